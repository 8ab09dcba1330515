/* reader.c - reading .ini files: our line reader in front of inih.
 *
 * inih (r55) gives its handler no line number, cuts lines at 200 bytes and
 * section names at 50 characters, and accepts "key: value" and indented
 * continuation lines. So every physical line first passes our checks, which
 * know the line number: NUL bytes, over-long lines, section headers (closed,
 * named, not too long), "key = value" shape. A line that fails is reported and
 * handed to inih as an empty line; a good line is handed over trimmed (so
 * inih never sees a continuation line). The handler then reads the current line
 * number and section from the shared context. Top-level "include = PATH" lines
 * load the named file at once, before the rest of the including file, so the
 * including file's keys override the included ones.
 */
#include "conf_int.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader_ctx {
	conf_doc *doc;
	const char *p, *end; /* remaining text */
	const char *path, *dir;
	const char **stack;
	int depth, line, file;
	const char *section; /* current section (arena string) or NULL */
	bool in_section;
	sim_diag *diag;
	int errors;
} reader_ctx;

static void error(reader_ctx *c, const char *fmt, const char *arg)
{
	sim_diag_error(c->diag, c->path, c->line, fmt, arg);
	c->errors++;
}

static bool valid_key(const char *k, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = k[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '-' || ch == '.'))
			return false;
	}
	return true;
}

/* Check one trimmed line; returns false (after reporting) if inih must not see
 * it. Tracks the current section. */
static bool check_line(reader_ctx *c, char *s)
{
	if (!*s || *s == ';' || *s == '#')
		return true;
	if (*s == '[') {
		char *close = strchr(s, ']');
		if (!close) {
			error(c, "unterminated section header: expected ']'%s", "");
			c->in_section = true; /* skip its keys: they belong to no known section */
			c->section = NULL;
			return false;
		}
		char *after = close + 1;
		while (*after == ' ' || *after == '\t')
			after++;
		if (*after && *after != ';' && *after != '#') {
			error(c, "text after the section header: '%s'", after);
			return false;
		}
		size_t n = (size_t)(close - s - 1);
		if (n == 0 || n > CONF_MAX_SECTION || !valid_key(s + 1, n)) {
			if (n > CONF_MAX_SECTION)
				sim_diag_error(c->diag, c->path, c->line,
					       "section name longer than %d characters", CONF_MAX_SECTION);
			else
				sim_diag_error(c->diag, c->path, c->line, "invalid section name '%.*s'",
					       (int)n, s + 1);
			c->errors++;
			c->in_section = true;
			c->section = NULL;
			return false;
		}
		c->section = sim_arena_printf(c->doc->arena, "%.*s", (int)n, s + 1);
		c->in_section = true;
		if (conf_doc_open_section(c->doc, c->section, (conf_loc){c->path, c->line}, c->file,
					  c->diag) != SIM_OK)
			c->errors++;
		return true;
	}
	char *eq = strchr(s, '=');
	if (!eq) {
		error(c, "expected 'key = value', got '%s'", s);
		return false;
	}
	size_t n = (size_t)(eq - s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!valid_key(s, n)) {
		sim_diag_error(c->diag, c->path, c->line, "invalid key name '%.*s'", (int)n, s);
		c->errors++;
		return false;
	}
	if (c->section == NULL && c->in_section)
		return false; /* inside a rejected section: already reported */
	return true;
}

/* inih's reader: serve the next physical line, checked and trimmed. */
static char *read_line(char *str, int num, void *stream)
{
	reader_ctx *c = stream;
	if (c->p >= c->end)
		return NULL;
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	const char *stop = nl ? nl : c->end;
	size_t len = (size_t)(stop - c->p);
	c->line++;
	const char *raw = c->p;
	c->p = nl ? nl + 1 : c->end;
	if (len > 0 && raw[len - 1] == '\r')
		len--;
	str[0] = '\0';
	if (memchr(raw, '\0', len)) {
		error(c, "NUL byte in the file: not a text .ini file%s", "");
		c->p = c->end; /* stop reading this file */
		return str;
	}
	if (len > CONF_MAX_LINE || len + 2 > (size_t)num) {
		sim_diag_error(c->diag, c->path, c->line, "line is longer than %d bytes",
			       CONF_MAX_LINE);
		c->errors++;
		return str;
	}
	while (len > 0 && (*raw == ' ' || *raw == '\t'))
		raw++, len--;
	while (len > 0 && (raw[len - 1] == ' ' || raw[len - 1] == '\t'))
		len--;
	memcpy(str, raw, len);
	str[len] = '\0';
	if (!check_line(c, str))
		str[0] = '\0';
	return str;
}

/* Lexically normalised join of dir and path ("a/b/../c" -> "a/c"); absolute
 * paths are kept. Returned in the arena. */
static const char *join_path(sim_arena *a, const char *dir, const char *path)
{
	char *full = path[0] == '/' || !dir || !*dir ? sim_arena_strdup(a, path)
						     : sim_arena_printf(a, "%s/%s", dir, path);
	if (!full)
		return NULL;
	char *parts[256];
	int n = 0;
	bool abs = full[0] == '/';
	for (char *save, *t = strtok_r(full, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..") && n > 0 && strcmp(parts[n - 1], ".."))
			n--;
		else if (n < 256)
			parts[n++] = t;
	}
	sim_buf b;
	sim_buf_init(&b);
	if (abs)
		sim_buf_append(&b, "/", 1);
	for (int i = 0; i < n; i++)
		sim_buf_printf(&b, "%s%s", i ? "/" : "", parts[i]);
	const char *r = b.oom ? NULL : sim_arena_strdup(a, b.len ? b.data : ".");
	sim_buf_free(&b);
	return r;
}

static const char *dir_of(sim_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return sim_arena_printf(a, "%.*s", (int)(slash - path), path);
}

static int load_file(conf_doc *doc, const char *path, const char **stack, int depth,
		     sim_diag *diag, conf_loc from);

static void include(reader_ctx *c, const char *value)
{
	const char *path = join_path(c->doc->arena, c->dir, value);
	if (!path)
		return;
	for (int i = 0; i < c->depth; i++) {
		if (strcmp(c->stack[i], path) != 0)
			continue;
		sim_buf b;
		sim_buf_init(&b);
		for (int k = i; k < c->depth; k++)
			sim_buf_printf(&b, "%s -> ", c->stack[k]);
		sim_buf_printf(&b, "%s", path);
		error(c, "include cycle: %s", b.oom ? "?" : b.data);
		sim_buf_free(&b);
		return;
	}
	if (c->depth >= CONF_MAX_INCLUDE_DEPTH) {
		sim_diag_error(c->diag, c->path, c->line, "includes nested deeper than %d",
			       CONF_MAX_INCLUDE_DEPTH);
		c->errors++;
		return;
	}
	if (load_file(c->doc, path, c->stack, c->depth, c->diag, (conf_loc){c->path, c->line}) !=
	    SIM_OK)
		c->errors++;
}

static int on_value(void *user, const char *section, const char *name, const char *value)
{
	reader_ctx *c = user;
	if (!c->in_section) {
		if (!strcmp(name, "include"))
			include(c, value);
		else
			error(c, "key '%s' outside any section (only 'include' may come first)", name);
		return 1;
	}
	(void)section; /* ours is the same, and never truncated */
	if (!c->section)
		return 1;
	if (conf_doc_set(c->doc, c->section, name, value, (conf_loc){c->path, c->line}, c->file,
			 c->diag) != SIM_OK)
		c->errors++;
	return 1;
}

int conf_parse_text(conf_doc *doc, const char *text, size_t len, const char *path,
		    const char *dir, const char **stack, int depth, sim_diag *diag)
{
	reader_ctx c = {.doc = doc, .p = text, .end = text + len, .path = path, .dir = dir,
			.stack = stack, .depth = depth, .diag = diag, .file = doc->nfiles++};
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		c.p += 3;
	stack[depth] = path;
	c.depth = depth + 1;
	int rc = ini_parse_stream(read_line, &c, on_value, &c);
	if (rc < 0)
		return SIM_ENOMEM;
	/* rc > 0: inih disliked a line our checks passed; report it too. */
	if (rc > 0) {
		sim_diag_error(diag, path, rc, "cannot parse this line");
		c.errors++;
	}
	return c.errors ? SIM_ECONF : SIM_OK;
}

/* Read a whole file into a buffer. */
static int slurp(const char *path, sim_buf *b, int *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*err = errno;
		return SIM_EIO;
	}
	char chunk[16384];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b->len < (64u << 20))
		sim_buf_append(b, chunk, n);
	*err = ferror(f) ? EIO : 0;
	fclose(f);
	if (b->len >= (64u << 20))
		*err = EFBIG;
	return *err ? SIM_EIO : b->oom ? SIM_ENOMEM : SIM_OK;
}

static int load_file(conf_doc *doc, const char *path, const char **stack, int depth,
		     sim_diag *diag, conf_loc from)
{
	sim_buf b;
	sim_buf_init(&b);
	int err = 0, rc = slurp(path, &b, &err);
	if (rc == SIM_EIO) {
		if (from.path)
			sim_diag_error(diag, from.path, from.line, "cannot open include '%s': %s", path,
				       strerror(err));
		else
			sim_diag_error(diag, path, 0, "cannot open: %s", strerror(err));
		rc = SIM_ECONF;
	} else if (rc == SIM_OK) {
		if (b.len == 0 && !from.path) {
			sim_diag_error(diag, path, 0, "empty file");
			rc = SIM_ECONF;
		} else {
			rc = conf_parse_text(doc, b.data ? b.data : "", b.len, path, dir_of(doc->arena, path),
					     stack, depth, diag);
		}
	}
	sim_buf_free(&b);
	return rc;
}

static conf_doc *doc_new(void)
{
	conf_doc *d = calloc(1, sizeof *d);
	if (d && !(d->arena = sim_arena_new())) {
		free(d);
		return NULL;
	}
	return d;
}

int conf_load(const char *path, sim_diag *diag, conf_doc **out)
{
	*out = NULL;
	conf_doc *doc = doc_new();
	if (!doc)
		return SIM_ENOMEM;
	const char *stack[CONF_MAX_INCLUDE_DEPTH + 1];
	doc->root = join_path(doc->arena, NULL, path);
	if (!doc->root) {
		conf_free(doc);
		return SIM_ENOMEM;
	}
	int rc = load_file(doc, doc->root, stack, 0, diag, (conf_loc){NULL, 0});
	if (rc == SIM_OK && sim_diag_error_count(diag) > 0)
		rc = SIM_ECONF;
	if (rc != SIM_OK) {
		conf_free(doc);
		return rc;
	}
	*out = doc;
	return SIM_OK;
}

int conf_load_string(const char *text, size_t len, const char *name, const char *base_dir,
		     sim_diag *diag, conf_doc **out)
{
	*out = NULL;
	conf_doc *doc = doc_new();
	if (!doc)
		return SIM_ENOMEM;
	const char *stack[CONF_MAX_INCLUDE_DEPTH + 1];
	doc->root = sim_arena_strdup(doc->arena, name);
	int rc = conf_parse_text(doc, text, len, doc->root, base_dir ? base_dir : ".", stack, 0,
				 diag);
	if (rc != SIM_OK) {
		conf_free(doc);
		return rc;
	}
	*out = doc;
	return SIM_OK;
}

void conf_free(conf_doc *doc)
{
	if (!doc)
		return;
	free(doc->e);
	free(doc->s);
	sim_arena_free(doc->arena);
	free(doc);
}
