/* doc.c - the configuration document: values with their locations, sections,
 * overrides, lookups and the canonical resolved text. Lookups are linear: a
 * scenario has a few hundred values. */
#include "conf_int.h"

#include <stdlib.h>
#include <string.h>

const conf_entry *conf_doc_find(const conf_doc *doc, const char *section, const char *key)
{
	for (size_t i = 0; i < doc->n; i++)
		if (!strcmp(doc->e[i].section, section) && !strcmp(doc->e[i].key, key))
			return &doc->e[i];
	return NULL;
}

const conf_section *conf_doc_section(const conf_doc *doc, const char *name)
{
	for (size_t i = 0; i < doc->ns; i++)
		if (!strcmp(doc->s[i].name, name))
			return &doc->s[i];
	return NULL;
}

int conf_doc_open_section(conf_doc *doc, const char *name, conf_loc loc, int file, sim_diag *diag)
{
	for (size_t i = 0; i < doc->ns; i++) {
		conf_section *s = &doc->s[i];
		if (strcmp(s->name, name))
			continue;
		if (s->file == file) {
			sim_diag_error(diag, loc.path, loc.line,
				       "section [%s] opened twice in one file (first at line %d)", name,
				       s->loc.line);
			return SIM_ECONF;
		}
		s->file = file; /* a later file extends it */
		return SIM_OK;
	}
	if (doc->ns == doc->scap) {
		size_t cap = doc->scap ? 2 * doc->scap : 16;
		conf_section *n = realloc(doc->s, cap * sizeof *n);
		if (!n)
			return SIM_ENOMEM;
		doc->s = n;
		doc->scap = cap;
	}
	doc->s[doc->ns++] = (conf_section){name, loc, file};
	return SIM_OK;
}

int conf_doc_set(conf_doc *doc, const char *section, const char *key, const char *value,
		 conf_loc loc, int file, sim_diag *diag)
{
	for (size_t i = 0; i < doc->n; i++) {
		conf_entry *e = &doc->e[i];
		if (strcmp(e->section, section) || strcmp(e->key, key))
			continue;
		if (file >= 0 && e->file == file) {
			sim_diag_error(diag, loc.path, loc.line,
				       "duplicate key '%s' in [%s] (first set at line %d)", key, section,
				       e->loc.line);
			return SIM_ECONF;
		}
		const char *v = sim_arena_strdup(doc->arena, value);
		if (!v)
			return SIM_ENOMEM;
		e->value = v;
		e->loc = loc;
		e->file = file;
		return SIM_OK;
	}
	if (doc->n == doc->cap) {
		size_t cap = doc->cap ? 2 * doc->cap : 64;
		conf_entry *n = realloc(doc->e, cap * sizeof *n);
		if (!n)
			return SIM_ENOMEM;
		doc->e = n;
		doc->cap = cap;
	}
	conf_entry e = {sim_arena_strdup(doc->arena, section), sim_arena_strdup(doc->arena, key),
			sim_arena_strdup(doc->arena, value), loc, file};
	if (!e.section || !e.key || !e.value)
		return SIM_ENOMEM;
	doc->e[doc->n++] = e;
	return SIM_OK;
}

int conf_override(conf_doc *doc, const char *assignment, sim_diag *diag)
{
	const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
	if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1) {
		sim_diag_error(diag, "<command line>", 0, "--set expects SECTION.KEY=VALUE, got '%s'",
			       assignment);
		return SIM_ECONF;
	}
	char *section = sim_arena_printf(doc->arena, "%.*s", (int)(dot - assignment), assignment);
	char *key = sim_arena_printf(doc->arena, "%.*s", (int)(eq - dot - 1), dot + 1);
	if (!section || !key)
		return SIM_ENOMEM;
	const char *value = eq + 1;
	while (*value == ' ')
		value++;
	conf_loc loc = {"<command line>", 0};
	if (!conf_doc_section(doc, section) &&
	    conf_doc_open_section(doc, section, loc, -1, diag) != SIM_OK)
		return SIM_ENOMEM;
	return conf_doc_set(doc, section, key, value, loc, -1, diag);
}

const char *conf_get(const conf_doc *doc, const char *section, const char *key, conf_loc *loc)
{
	const conf_entry *e = conf_doc_find(doc, section, key);
	if (e && loc)
		*loc = e->loc;
	return e ? e->value : NULL;
}

bool conf_has_section(const conf_doc *doc, const char *section)
{
	return conf_doc_section(doc, section) != NULL;
}

conf_loc conf_section_loc(const conf_doc *doc, const char *section)
{
	const conf_section *s = conf_doc_section(doc, section);
	return s ? s->loc : (conf_loc){doc->root, 0};
}

conf_loc conf_key_loc(const conf_doc *doc, const char *section, const char *key)
{
	const conf_entry *e = conf_doc_find(doc, section, key);
	return e ? e->loc : conf_section_loc(doc, section);
}

const char *conf_root_path(const conf_doc *doc)
{
	return doc->root;
}

size_t conf_section_count(const conf_doc *doc)
{
	return doc->ns;
}

const char *conf_section_name(const conf_doc *doc, size_t i)
{
	return i < doc->ns ? doc->s[i].name : NULL;
}

size_t conf_key_count(const conf_doc *doc, size_t section)
{
	size_t n = 0;
	for (size_t i = 0; section < doc->ns && i < doc->n; i++)
		n += !strcmp(doc->e[i].section, doc->s[section].name);
	return n;
}

const char *conf_key_name(const conf_doc *doc, size_t section, size_t k)
{
	for (size_t i = 0; section < doc->ns && i < doc->n; i++)
		if (!strcmp(doc->e[i].section, doc->s[section].name) && k-- == 0)
			return doc->e[i].key;
	return NULL;
}

char *conf_resolved_text(const conf_doc *doc)
{
	sim_buf b;
	sim_buf_init(&b);
	for (size_t s = 0; s < doc->ns; s++) {
		sim_buf_printf(&b, "%s[%s]\n", s ? "\n" : "", doc->s[s].name);
		for (size_t i = 0; i < doc->n; i++)
			if (!strcmp(doc->e[i].section, doc->s[s].name))
				sim_buf_printf(&b, "%s = %s\n", doc->e[i].key, doc->e[i].value);
	}
	if (b.oom || !b.data) {
		bool oom = b.oom;
		sim_buf_free(&b);
		return oom ? NULL : strdup("");
	}
	return b.data;
}

const char *conf_closest(const char *name, const char *const *names, size_t n)
{
	const char *best = NULL;
	int bestd = 1 << 30;
	for (size_t i = 0; i < n; i++) {
		int d = sim_levenshtein(name, names[i]);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	int limit = (int)strlen(name) / 3 + 1;
	return bestd <= (limit < 3 ? limit : 3) ? best : NULL;
}

int conf_check_sections(const conf_doc *doc, const char *const *known, sim_diag *diag)
{
	size_t nk = 0;
	while (known[nk])
		nk++;
	int bad = 0;
	for (size_t s = 0; s < doc->ns; s++) {
		bool ok = false;
		for (size_t k = 0; k < nk && !ok; k++)
			ok = !strcmp(doc->s[s].name, known[k]);
		if (ok)
			continue;
		conf_loc l = doc->s[s].loc;
		sim_diag_error(diag, l.path, l.line, "unknown section [%s]", doc->s[s].name);
		const char *near = conf_closest(doc->s[s].name, known, nk);
		if (near)
			sim_diag_note(diag, l.path, l.line, "did you mean [%s]?", near);
		bad++;
	}
	return bad;
}
