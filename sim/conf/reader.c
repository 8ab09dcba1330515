/* reader.c - reading .ini files into a conf_doc: our line reader in front of
 * inih's ini_parse_stream.
 *
 * inih r55 gives its handler no line number, reads lines into a 200-byte buffer
 * (a longer line is silently split), truncates section names at 49 characters,
 * takes "key: value" and indented continuation lines, and strips inline
 * comments only after ';'. So every physical line first passes read_line(),
 * which knows the file and line number and applies podsim's rules:
 *   - a UTF-8 BOM at the start is skipped; a NUL byte stops the file (binary);
 *   - lines over CONF_MAX_LINE bytes (not counting "\r\n") are errors;
 *   - blank lines and lines starting with ';' or '#' are comments; elsewhere a
 *     comment starts at ';' or '#' after a blank;
 *   - "[name]" opens a section (name: letters, digits, '_', '-', at most
 *     CONF_MAX_SECTION characters); "key = value" sets a key; anything else is
 *     an error.
 * A good line is handed to inih in canonical form ("[name]" or "key=value",
 * never indented, so never a continuation); a bad one is reported and skipped.
 * The handler then sees each value while the reader's line number is current.
 *
 * Top-level "include = PATH" lines (before any section) load PATH at once,
 * relative to the including file's directory, so the including file's later
 * keys override the included ones; a [gpu] or [node] file naming another
 * device than a sibling read before it replaces that section
 * (device_sections). Cycles are found by file identity (device
 * and inode), and reported with the chain of display paths.
 */
#include "conf_int.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

_Static_assert(CONF_MAX_LINE < INI_MAX_LINE, "a checked line must fit inih's buffer");
_Static_assert(CONF_MAX_SECTION < 50, "inih truncates section names at 49 characters");

#define CONF_MAX_FILE (16u << 20) /* bytes; a scenario file is a few hundred */

typedef struct load_ctx {
	conf_doc *doc;
	sim_diag *diag;
	bool nomem;
} load_ctx;

/* One file (or string) being read; parent is the file that included it. */
typedef struct conf_file {
	load_ctx *ctx;
	const struct conf_file *parent;
	const char *path;     /* for messages: lexically normalised (arena) */
	const char *dir_open; /* directory for includes, as the OS sees it */
	const char *dir_disp; /* the same, for messages */
	dev_t dev;
	ino_t ino;
	bool has_id; /* dev and ino are known (not a string) */
	int depth, file_id, line;
	const char *text;
	size_t len, pos;
	bool in_section; /* a section header was seen */
	bool skip;       /* the current section header was bad: ignore its keys */
	bool replace[2]; /* it names another device than an earlier file: device_sections */
} conf_file;

/* A device file replaces, it does not extend. [gpu] and [node] describe one
 * device each, and a GPU or node file sets every key it means (fitted ones
 * like tensor_sustain or ring_local_bw only where they were fitted). When a
 * file names another device (`name`) than a file read before it that is not
 * one of its own includes (a variant swapping the node file of the scenario
 * it includes), the keys those earlier files set in that section are
 * dropped at the end of this file: otherwise an A100's fitted constants
 * would stay on the V100 that replaced it. A file extends what it includes
 * (its includes are read inside it, with larger file ids) and whatever
 * includes it overrides it (read after it). */
static const char *const device_sections[2] = {"gpu", "node"};

#define FERR(f, ...) sim_diag_error((f)->ctx->diag, (f)->path, (f)->line, __VA_ARGS__)

/* ---------------------------------------------------------------- paths -- */

/* "a/./b/../c" -> "a/c", keeping leading ".." and a leading '/'; "" -> ".".
 * Only for messages: opening uses the joined path, right even with symlinks. */
static char *normalize(sim_arena *a, const char *path)
{
	char *copy = sim_arena_strdup(a, path);
	size_t cap = strlen(path) / 2 + 2, n = 0;
	char **part = sim_arena_alloc(a, cap * sizeof *part);
	if (!copy || !part)
		return NULL;
	bool abs = path[0] == '/';
	for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..") && n > 0 && strcmp(part[n - 1], ".."))
			n--;
		else if (!(strcmp(t, "..") == 0 && abs))
			part[n++] = t;
	}
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_append(&b, abs ? "/" : "", abs);
	for (size_t i = 0; i < n; i++)
		sim_buf_printf(&b, "%s%s", i ? "/" : "", part[i]);
	char *r = b.oom ? NULL : sim_arena_strdup(a, b.len ? b.data : ".");
	sim_buf_free(&b);
	return r;
}

static char *dir_of(sim_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return sim_arena_strdup(a, ".");
	return sim_arena_printf(a, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

static char *join(sim_arena *a, const char *dir, const char *rel)
{
	return rel[0] == '/' ? sim_arena_strdup(a, rel) : sim_arena_printf(a, "%s/%s", dir, rel);
}

/* Read a whole regular file (sim_input_read: a FIFO, a device or a directory
 * is refused without blocking). Returns 0 or an errno value; st gets the
 * file's device and inode for include cycles. */
static int slurp(const char *path, char **text, size_t *len, struct stat *st)
{
	sim_file_id id;
	int err = sim_input_read(path, CONF_MAX_FILE, text, len, &id);
	if (!err) {
		st->st_dev = (dev_t)id.dev;
		st->st_ino = (ino_t)id.ino;
	}
	return err;
}

/* --------------------------------------------------------------- lines -- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut a comment (';' or '#' at the start or after a blank) and surrounding
 * blanks from the line in place; returns the trimmed start. */
static char *strip(char *s)
{
	while (blank(*s))
		s++;
	char *end = s;
	for (char *p = s; *p; p++) {
		if ((*p == ';' || *p == '#') && (p == s || blank(p[-1])))
			break;
		end = p + 1;
	}
	while (end > s && blank(end[-1]))
		end--;
	*end = '\0';
	return s;
}

/* Report a problem with the current line; returns false (inih skips it). */
static bool line_error(conf_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool line_error(conf_file *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sim_diag_vadd(f->ctx->diag, SIM_DIAG_ERROR, f->path, f->line, fmt, ap);
	va_end(ap);
	return false;
}

/* "[name]": checks it, opens the section in the document, writes "[name]". */
static bool section_line(conf_file *f, char *s, char *out, size_t size)
{
	char *close = strchr(s, ']');
	f->in_section = true;
	f->skip = true; /* until the header proves good */
	if (!close)
		return line_error(f, "section header '%s' has no closing ']'", s);
	if (close[1])
		return line_error(f, "unexpected text '%s' after the section header", close + 1);
	*close = '\0';
	char *name = strip(s + 1);
	if (strlen(name) > CONF_MAX_SECTION)
		return line_error(f, "section name '%s' is longer than %d characters", name, CONF_MAX_SECTION);
	if (!conf_valid_name(name))
		return line_error(f, "invalid section name '%s': use letters, digits, '_' and '-'", name);
	conf_doc *doc = f->ctx->doc;
	conf_section *sec = conf_add_section(doc, name, (conf_loc){f->path, f->line});
	if (!sec)
		return f->ctx->nomem = true, false;
	if (sec->file_id == f->file_id)
		FERR(f, "duplicate section [%s] (first opened at line %d)", name, sec->line);
	else
		sec->line = f->line;
	sec->file_id = f->file_id;
	f->skip = false;
	snprintf(out, size, "[%s]", name);
	return true;
}

/* "key = value": checks the shape and the key, writes "key=value". */
static bool key_line(conf_file *f, char *s, char *out, size_t size)
{
	char *eq = strchr(s, '=');
	if (!eq)
		return line_error(f, "expected 'key = value', got '%s'", s);
	*eq = '\0';
	char *key = strip(s), *value = strip(eq + 1);
	if (!*key)
		return line_error(f, "missing key name before '='");
	if (!conf_valid_name(key))
		return line_error(f, "invalid key name '%s': use letters, digits, '_' and '-'", key);
	if (f->skip)
		return false; /* in a bad section header's body: already reported */
	snprintf(out, size, "%s=%s", key, value);
	return true;
}

/* Check one physical line (without its "\n" or "\r\n"); fill out (inih's
 * buffer) and return true if inih should see it. */
static bool check_line(conf_file *f, const char *raw, size_t n, char *out, size_t size)
{
	if (memchr(raw, '\0', n)) {
		FERR(f, "NUL byte: not a text file");
		f->pos = f->len; /* stop reading this file */
		return false;
	}
	if (n > CONF_MAX_LINE || n >= size)
		return line_error(f, "line is longer than %d bytes", CONF_MAX_LINE);
	const char *why = NULL;
	size_t bad = sim_text_check(raw, n, &why);
	if (bad < n) /* names reach JSON, XHTML and the terminal: text only */
		return line_error(f, "%s (byte 0x%02x at column %zu): a configuration file is "
				  "UTF-8 text", why, (unsigned)(unsigned char)raw[bad], bad + 1);
	char line[CONF_MAX_LINE + 1];
	memcpy(line, raw, n);
	line[n] = '\0';
	char *s = strip(line);
	if (!*s)
		return false;
	return *s == '[' ? section_line(f, s, out, size) : key_line(f, s, out, size);
}

/* inih's reader: the next line that inih should see, or NULL at the end. */
static char *read_line(char *str, int num, void *stream)
{
	conf_file *f = stream;
	while (f->pos < f->len && !f->ctx->nomem) {
		const char *s = f->text + f->pos;
		const char *nl = memchr(s, '\n', f->len - f->pos);
		size_t n = nl ? (size_t)(nl - s) : f->len - f->pos;
		f->pos += n + (nl != NULL);
		f->line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (f->line == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
			s += 3, n -= 3;
		if (check_line(f, s, n, str, (size_t)num))
			return str;
	}
	return NULL;
}

/* ------------------------------------------------------------- includes -- */

static void parse(conf_file *f);

/* The nearest file in the include chain that is the same file as st (or, for
 * text given as a string, has the same display path). */
static const conf_file *find_cycle(const conf_file *f, const struct stat *st, const char *disp)
{
	for (; f; f = f->parent)
		if (f->has_id ? f->dev == st->st_dev && f->ino == st->st_ino : !strcmp(f->path, disp))
			return f;
	return NULL;
}

/* "a.ini -> b.ini -> " for the chain from `from` down to f. */
static void chain(sim_buf *b, const conf_file *f, const conf_file *from)
{
	if (f != from)
		chain(b, f->parent, from);
	sim_buf_printf(b, "%s -> ", f->path);
}

static void report_cycle(conf_file *f, const conf_file *from, const char *disp)
{
	sim_buf b;
	sim_buf_init(&b);
	chain(&b, f, from);
	sim_buf_printf(&b, "%s", disp);
	if (b.oom)
		f->ctx->nomem = true;
	else
		FERR(f, "include cycle: %s", b.data);
	sim_buf_free(&b);
}

/* Read the file named by an include line now, into the same document. */
static void include(conf_file *f, const char *value)
{
	sim_arena *a = f->ctx->doc->arena;
	if (!*value) {
		FERR(f, "include needs a file name");
		return;
	}
	char *open = join(a, f->dir_open, value), *disp = join(a, f->dir_disp, value);
	if (!open || !disp || !(disp = normalize(a, disp))) {
		f->ctx->nomem = true;
		return;
	}
	struct stat st;
	if (stat(open, &st) != 0) {
		FERR(f, "cannot open include '%s': %s", value, strerror(errno));
		return;
	}
	const conf_file *loop = find_cycle(f, &st, disp);
	if (loop) {
		report_cycle(f, loop, disp);
		return;
	}
	if (f->depth >= CONF_MAX_INCLUDE_DEPTH) {
		FERR(f, "includes are nested more than %d deep", CONF_MAX_INCLUDE_DEPTH);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	int err = slurp(open, &text, &len, &st);
	if (err) {
		if (err == ENOMEM)
			f->ctx->nomem = true;
		else
			FERR(f, "cannot open include '%s': %s", value,
			     err == EFBIG ? "larger than 16 MiB, not a configuration file"
					  : sim_input_strerror(err));
		return;
	}
	conf_file child = {.ctx = f->ctx, .parent = f, .path = disp, .dir_open = dir_of(a, open),
			   .dir_disp = dir_of(a, disp), .dev = st.st_dev, .ino = st.st_ino,
			   .has_id = true, .depth = f->depth + 1, .text = text, .len = len};
	if (child.dir_open && child.dir_disp)
		parse(&child);
	else
		f->ctx->nomem = true;
	free(text);
}

/* inih's handler: called for each "key=value" read_line() passed on, while
 * f->line is that line's number. */
static int on_value(void *user, const char *section, const char *name, const char *value)
{
	conf_file *f = user;
	conf_doc *doc = f->ctx->doc;
	if (f->ctx->nomem)
		return 1;
	if (!f->in_section) {
		if (!strcmp(name, "include"))
			include(f, value);
		else
			FERR(f, "key '%s' is outside any section (only 'include' may come before the "
				"first [section])",
			     name);
		return 1;
	}
	if (!strcmp(name, "include")) {
		FERR(f, "'include' must come before the first [section]");
		return 1;
	}
	conf_section *sec = conf_find_section(doc, section);
	conf_entry *e = sec ? conf_find_entry(sec, name) : NULL;
	if (!sec)
		SIM_PANIC("inih reports section [%s], which the reader never opened", section);
	if (e && e->file_id == f->file_id) {
		FERR(f, "duplicate key '%s' in [%s] (first set at line %d)", name, section, e->loc.line);
		return 1;
	}
	/* another device than a file read before this one named */
	if (e && !strcmp(name, "name") && e->file_id > 0 && e->file_id < f->file_id &&
	    strcmp(e->value, value))
		for (int i = 0; i < 2; i++)
			if (!strcmp(section, device_sections[i]))
				f->replace[i] = true;
	if (!conf_set(doc, sec, name, value, (conf_loc){f->path, f->line}, f->file_id))
		f->ctx->nomem = true;
	return 1;
}

/* Drop the keys of section `name` that files read before f (not its
 * includes) set (device_sections). */
static void drop_earlier(conf_file *f, const char *name)
{
	conf_section *sec = conf_find_section(f->ctx->doc, name);
	if (!sec)
		return;
	size_t k = 0;
	for (size_t i = 0; i < sec->nkeys; i++)
		if (!(sec->keys[i].file_id > 0 && sec->keys[i].file_id < f->file_id))
			sec->keys[k++] = sec->keys[i];
	sec->nkeys = k;
}

static void parse(conf_file *f)
{
	f->file_id = ++f->ctx->doc->next_file_id;
	int rc = ini_parse_stream(read_line, f, on_value, f);
	if (rc == -2)
		f->ctx->nomem = true;
	else if (rc != 0 && !f->ctx->nomem)
		sim_diag_error(f->ctx->diag, f->path, 0, "internal error: inih rejected a checked line");
	for (int i = 0; i < 2; i++)
		if (f->replace[i])
			drop_earlier(f, device_sections[i]);
}

/* ---------------------------------------------------------------- loads -- */

static int finish(load_ctx *ctx, int errors_before, conf_doc **out)
{
	if (ctx->nomem) {
		conf_free(ctx->doc);
		return SIM_ENOMEM;
	}
	if (sim_diag_error_count(ctx->diag) > errors_before) {
		conf_free(ctx->doc);
		return SIM_ECONF;
	}
	*out = ctx->doc;
	return SIM_OK;
}

int conf_load(const char *path, sim_diag *diag, conf_doc **out)
{
	*out = NULL;
	int before = sim_diag_error_count(diag);
	load_ctx ctx = {conf_doc_new(path), diag, false};
	if (!ctx.doc)
		return SIM_ENOMEM;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int err = slurp(path, &text, &len, &st);
	if (err == ENOMEM) {
		ctx.nomem = true;
	} else if (err) {
		sim_diag_error(diag, path, 0, "cannot open: %s",
			       err == EFBIG ? "larger than 16 MiB, not a configuration file"
					    : sim_input_strerror(err));
	} else if (len == 0) {
		sim_diag_error(diag, path, 0, "empty file");
	} else {
		sim_arena *a = ctx.doc->arena;
		conf_file f = {.ctx = &ctx, .path = ctx.doc->root, .dir_open = dir_of(a, path),
			       .dir_disp = dir_of(a, path), .dev = st.st_dev, .ino = st.st_ino,
			       .has_id = true, .text = text, .len = len};
		if (f.dir_open && f.dir_disp)
			parse(&f);
		else
			ctx.nomem = true;
	}
	free(text);
	return finish(&ctx, before, out);
}

int conf_load_string(const char *text, size_t len, const char *name, const char *base_dir,
		     sim_diag *diag, conf_doc **out)
{
	*out = NULL;
	int before = sim_diag_error_count(diag);
	load_ctx ctx = {conf_doc_new(name ? name : "<string>"), diag, false};
	if (!ctx.doc)
		return SIM_ENOMEM;
	const char *dir = base_dir && *base_dir ? base_dir : ".";
	conf_file f = {.ctx = &ctx, .path = ctx.doc->root, .dir_open = dir, .dir_disp = dir,
		       .text = text, .len = len};
	parse(&f);
	return finish(&ctx, before, out);
}
