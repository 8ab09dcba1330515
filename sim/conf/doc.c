/* doc.c - the configuration document: sections and their keys in first-seen
 * order, each value with the file:line it came from. Lookups, --set overrides,
 * the canonical resolved text (stored with runs and hashed) and the check for
 * unknown sections. Files are read into it by reader.c. */
#include "conf_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CONF_MAX_LINE_TEXT STR(CONF_MAX_LINE)

conf_doc *conf_doc_new(const char *root)
{
	conf_doc *doc = calloc(1, sizeof *doc);
	if (!doc)
		return NULL;
	doc->arena = sim_arena_new();
	doc->root = doc->arena ? sim_arena_strdup(doc->arena, root) : NULL;
	if (!doc->root) {
		conf_free(doc);
		return NULL;
	}
	return doc;
}

void conf_free(conf_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nsecs; i++)
		free(doc->secs[i]->keys);
	free(doc->secs);
	sim_arena_free(doc->arena);
	free(doc);
}

conf_section *conf_find_section(const conf_doc *doc, const char *name)
{
	for (size_t i = 0; i < doc->nsecs; i++)
		if (!strcmp(doc->secs[i]->name, name))
			return doc->secs[i];
	return NULL;
}

conf_entry *conf_find_entry(const conf_section *s, const char *key)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].key, key))
			return &s->keys[i];
	return NULL;
}

conf_section *conf_add_section(conf_doc *doc, const char *name, conf_loc loc)
{
	conf_section *s = conf_find_section(doc, name);
	if (s)
		return s;
	if (doc->nsecs == doc->cap) {
		size_t cap = doc->cap ? 2 * doc->cap : 8;
		conf_section **v = realloc(doc->secs, cap * sizeof *v);
		if (!v)
			return NULL;
		doc->secs = v;
		doc->cap = cap;
	}
	s = sim_arena_alloc(doc->arena, sizeof *s);
	if (!s || !(s->name = sim_arena_strdup(doc->arena, name)))
		return NULL;
	s->loc = loc;
	s->file_id = -1;
	doc->secs[doc->nsecs++] = s;
	return s;
}

conf_entry *conf_set(conf_doc *doc, conf_section *s, const char *key, const char *value,
		     conf_loc loc, int file_id)
{
	const char *v = sim_arena_strdup(doc->arena, value);
	if (!v)
		return NULL;
	conf_entry *e = conf_find_entry(s, key);
	if (!e) {
		if (s->nkeys == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 8;
			conf_entry *k = realloc(s->keys, cap * sizeof *k);
			if (!k)
				return NULL;
			s->keys = k;
			s->cap = cap;
		}
		const char *name = sim_arena_strdup(doc->arena, key);
		if (!name)
			return NULL;
		e = &s->keys[s->nkeys++];
		e->key = name;
	}
	e->value = v;
	e->loc = loc;
	e->file_id = file_id;
	return e;
}

bool conf_valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

bool conf_closer(const char *word, const char *cand, int *best)
{
	int len = (int)strlen(word);
	int limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
	int d = strcasecmp(word, cand) ? sim_levenshtein(word, cand) : 0;
	if (d > limit || d >= *best)
		return false;
	*best = d;
	return true;
}

/* ------------------------------------------------------------- lookups -- */

const char *conf_get(const conf_doc *doc, const char *section, const char *key, conf_loc *loc)
{
	const conf_section *s = conf_find_section(doc, section);
	const conf_entry *e = s ? conf_find_entry(s, key) : NULL;
	if (e && loc)
		*loc = e->loc;
	return e ? e->value : NULL;
}

bool conf_has_section(const conf_doc *doc, const char *section)
{
	return conf_find_section(doc, section) != NULL;
}

conf_loc conf_section_loc(const conf_doc *doc, const char *section)
{
	const conf_section *s = conf_find_section(doc, section);
	return s ? s->loc : (conf_loc){doc->root, 0};
}

const char *conf_root_path(const conf_doc *doc)
{
	return doc->root;
}

size_t conf_section_count(const conf_doc *doc)
{
	return doc->nsecs;
}

const char *conf_section_name(const conf_doc *doc, size_t i)
{
	return i < doc->nsecs ? doc->secs[i]->name : NULL;
}

size_t conf_key_count(const conf_doc *doc, size_t section)
{
	return section < doc->nsecs ? doc->secs[section]->nkeys : 0;
}

const char *conf_key_name(const conf_doc *doc, size_t section, size_t i)
{
	if (section >= doc->nsecs || i >= doc->secs[section]->nkeys)
		return NULL;
	return doc->secs[section]->keys[i].key;
}

/* ----------------------------------------------------------- overrides -- */

/* Copy s[0..n) without surrounding blanks into out (size CONF_MAX_LINE + 1). */
static void trim_copy(char *out, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* Why "key = value" would not read back from a file as this value, or NULL:
 * the resolved text must load to the same document. */
static const char *value_problem(const char *key, const char *val)
{
	if (strlen(key) + 3 + strlen(val) > CONF_MAX_LINE)
		return "the line 'key = value' would be longer than " CONF_MAX_LINE_TEXT " bytes";
	for (const char *p = val; *p; p++) {
		if (*p == '\n' || *p == '\r')
			return "the value has a line break";
		if ((*p == ';' || *p == '#') && (p == val || p[-1] == ' ' || p[-1] == '\t'))
			return "';' or '#' at the start or after a blank would start a comment";
	}
	return NULL;
}

int conf_override(conf_doc *doc, const char *assignment, sim_diag *diag)
{
	const char *eq = strchr(assignment, '=');
	const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
	if (strlen(assignment) > CONF_MAX_LINE) {
		sim_diag_error(diag, CONF_CMDLINE, 0, "bad override '%.32s...': longer than %d bytes",
			       assignment, CONF_MAX_LINE);
		return SIM_ECONF;
	}
	const char *bad_text = NULL;
	size_t n = strlen(assignment), at = sim_text_check(assignment, n, &bad_text);
	if (at < n) { /* not echoed: the bad bytes would reach the terminal */
		sim_diag_error(diag, CONF_CMDLINE, 0, "bad override: %s (byte 0x%02x at column %zu)",
			       bad_text, (unsigned)(unsigned char)assignment[at], at + 1);
		return SIM_ECONF;
	}
	if (!eq || !dot) {
		sim_diag_error(diag, CONF_CMDLINE, 0, "bad override '%s': expected section.key=value",
			       assignment);
		return SIM_ECONF;
	}
	char sec[CONF_MAX_LINE + 1], key[CONF_MAX_LINE + 1], val[CONF_MAX_LINE + 1];
	trim_copy(sec, assignment, (size_t)(dot - assignment));
	trim_copy(key, dot + 1, (size_t)(eq - dot - 1));
	trim_copy(val, eq + 1, strlen(eq + 1));
	if (!conf_valid_name(sec) || !conf_valid_name(key) || strlen(sec) > CONF_MAX_SECTION) {
		sim_diag_error(diag, CONF_CMDLINE, 0,
			       "bad override '%s': expected section.key=value, with names of "
			       "letters, digits, '_' and '-'",
			       assignment);
		return SIM_ECONF;
	}
	const char *why = value_problem(key, val);
	if (why) {
		sim_diag_error(diag, CONF_CMDLINE, 0, "bad override '%s': %s", assignment, why);
		return SIM_ECONF;
	}
	conf_loc loc = {CONF_CMDLINE, 0};
	conf_section *s = conf_add_section(doc, sec, loc);
	if (!s || !conf_set(doc, s, key, val, loc, -1))
		return SIM_ENOMEM;
	return SIM_OK;
}

/* ----------------------------------------------------- resolved output -- */

char *conf_resolved_text(const conf_doc *doc)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_append(&b, "", 0);
	for (size_t i = 0; i < doc->nsecs; i++) {
		const conf_section *s = doc->secs[i];
		sim_buf_printf(&b, "%s[%s]\n", i ? "\n" : "", s->name);
		for (size_t k = 0; k < s->nkeys; k++)
			sim_buf_printf(&b, "%s = %s\n", s->keys[k].key, s->keys[k].value);
	}
	if (b.oom) {
		sim_buf_free(&b);
		return NULL;
	}
	return b.data;
}

int conf_check_sections(const conf_doc *doc, const char *const *known, sim_diag *diag)
{
	int n = 0;
	for (size_t i = 0; i < doc->nsecs; i++) {
		const conf_section *s = doc->secs[i];
		const char *guess = NULL;
		int best = INT_MAX;
		bool found = false;
		for (const char *const *k = known; *k && !found; k++) {
			found = !strcmp(*k, s->name);
			if (conf_closer(s->name, *k, &best))
				guess = *k;
		}
		if (found)
			continue;
		n++;
		sim_diag_error(diag, s->loc.path, s->loc.line, "unknown section [%s]", s->name);
		if (guess)
			sim_diag_note(diag, s->loc.path, s->loc.line, "did you mean [%s]?", guess);
	}
	return n;
}

bool conf_other_kind(const conf_doc *doc, const conf_kind *kinds, sim_diag *diag)
{
	for (const conf_kind *k = kinds; k->section; k++) {
		if (!conf_has_section(doc, k->section))
			continue;
		conf_loc loc = conf_section_loc(doc, k->section);
		sim_diag_error(diag, loc.path, loc.line, "[%s] makes this %s: run it with 'podsim %s %s'",
		               k->section, k->what, k->cmd, conf_root_path(doc));
		return true;
	}
	return false;
}

int conf_load_set(const char *path, const char *const *sets, size_t n, sim_diag *diag,
		  conf_doc **out)
{
	int rc = conf_load(path, diag, out);
	for (size_t i = 0; rc == SIM_OK && i < n; i++)
		rc = conf_override(*out, sets[i], diag);
	if (rc != SIM_OK) {
		conf_free(*out);
		*out = NULL;
	}
	return rc;
}
