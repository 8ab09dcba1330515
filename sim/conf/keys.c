/* keys.c - reading a section through a key table (conf.h): types, units,
 * ranges, defaults, required keys and unknown keys, all errors at once. */
#include "conf_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct field_ctx {
	const char *section;
	const conf_key *k;
	conf_loc loc;
	sim_diag *diag;
} field_ctx;

static int bad(const field_ctx *f, const char *what, const char *value)
{
	sim_diag_error(f->diag, f->loc.path, f->loc.line, "[%s] %s: %s, got '%s'", f->section,
		       f->k->name, what, value);
	return SIM_ECONF;
}

static int out_of_range(const field_ctx *f, const char *value)
{
	const conf_key *k = f->k;
	char lo[48], hi[48];
	sim_unit u = k->type == CONF_QTY ? k->unit : SIM_UNIT_NONE;
	sim_unit_format(k->min, u, lo, sizeof lo);
	sim_unit_format(k->max, u, hi, sizeof hi);
	sim_diag_error(f->diag, f->loc.path, f->loc.line, "[%s] %s = %s is out of range [%s, %s]",
		       f->section, k->name, value, lo, hi);
	return SIM_ECONF;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
	for (int i = 0; i < 4; i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return SIM_OK;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return SIM_OK;
		}
	}
	return SIM_ECONF;
}

static int parse_enum(const field_ctx *f, const char *v, int *out)
{
	for (int i = 0; f->k->choices[i]; i++)
		if (!strcmp(v, f->k->choices[i])) {
			*out = i;
			return SIM_OK;
		}
	sim_buf b;
	sim_buf_init(&b);
	for (int i = 0; f->k->choices[i]; i++)
		sim_buf_printf(&b, "%s%s", i ? ", " : "", f->k->choices[i]);
	sim_diag_error(f->diag, f->loc.path, f->loc.line, "[%s] %s: expected one of %s, got '%s'",
		       f->section, f->k->name, b.oom ? "?" : b.data, v);
	sim_buf_free(&b);
	return SIM_ECONF;
}

/* Parse value into the field at out + k->offset. */
static int store(const field_ctx *f, const char *v, void *out)
{
	const conf_key *k = f->k;
	char *dst = (char *)out + k->offset, *end;
	switch (k->type) {
	case CONF_INT: {
		errno = 0;
		long long x = strtoll(v, &end, 10);
		if (end == v || *end || errno)
			return bad(f, "expected an integer", v);
		if ((double)x < k->min || (double)x > k->max)
			return out_of_range(f, v);
		*(int *)dst = (int)x;
		return SIM_OK;
	}
	case CONF_REAL: {
		double x = strtod(v, &end);
		if (end == v || *end || !isfinite(x))
			return bad(f, "expected a number", v);
		if (x < k->min || x > k->max)
			return out_of_range(f, v);
		*(double *)dst = x;
		return SIM_OK;
	}
	case CONF_QTY: {
		double x;
		char err[256];
		if (sim_unit_parse(v, k->unit, &x, err, sizeof err) != SIM_OK) {
			sim_diag_error(f->diag, f->loc.path, f->loc.line, "[%s] %s: %s", f->section,
				       k->name, err);
			return SIM_ECONF;
		}
		if (x < k->min || x > k->max)
			return out_of_range(f, v);
		*(double *)dst = x;
		return SIM_OK;
	}
	case CONF_BOOL:
		if (parse_bool(v, (bool *)dst) != SIM_OK)
			return bad(f, "expected true or false", v);
		return SIM_OK;
	case CONF_ENUM:
		return parse_enum(f, v, (int *)dst);
	case CONF_STR:
		if (strlen(v) >= CONF_STR_MAX)
			return bad(f, "text longer than 127 bytes", v);
		memcpy(dst, v, strlen(v) + 1);
		return SIM_OK;
	}
	return SIM_EINVAL;
}

static int unknown_keys(const conf_doc *doc, const char *section, const conf_key *keys,
			size_t nkeys, sim_diag *diag)
{
	const char *names[128];
	size_t nn = nkeys < 128 ? nkeys : 128;
	for (size_t i = 0; i < nn; i++)
		names[i] = keys[i].name;
	int errors = 0;
	for (size_t i = 0; i < doc->n; i++) {
		const conf_entry *e = &doc->e[i];
		if (strcmp(e->section, section))
			continue;
		bool known = false;
		for (size_t k = 0; k < nkeys && !known; k++)
			known = !strcmp(e->key, keys[k].name);
		if (known)
			continue;
		sim_diag_error(diag, e->loc.path, e->loc.line, "unknown key '%s' in [%s]", e->key,
			       section);
		const char *near = conf_closest(e->key, names, nn);
		if (near)
			sim_diag_note(diag, e->loc.path, e->loc.line, "did you mean '%s'?", near);
		errors++;
	}
	return errors;
}

int conf_read(const conf_doc *doc, const char *section, const conf_key *keys, size_t nkeys,
	      void *out, bool section_optional, sim_diag *diag)
{
	const conf_section *sec = conf_doc_section(doc, section);
	if (!sec && !section_optional) {
		sim_diag_error(diag, doc->root, 0, "missing section [%s]", section);
		return SIM_ECONF;
	}
	int errors = unknown_keys(doc, section, keys, nkeys, diag);
	for (size_t i = 0; i < nkeys; i++) {
		const conf_key *k = &keys[i];
		const conf_entry *e = conf_doc_find(doc, section, k->name);
		field_ctx f = {section, k, e ? e->loc : conf_section_loc(doc, section), diag};
		if (e) {
			errors += store(&f, e->value, out) != SIM_OK;
		} else if (k->def) {
			if (store(&f, k->def, out) != SIM_OK)
				SIM_PANIC("bad default '%s' for [%s] %s", k->def, section, k->name);
		} else {
			sim_diag_error(diag, f.loc.path, f.loc.line, "[%s] missing required key '%s'",
				       section, k->name);
			errors++;
		}
	}
	return errors ? SIM_ECONF : SIM_OK;
}

void conf_print_keys(FILE *out, const char *section, const conf_key *keys, size_t nkeys)
{
	static const char *const types[] = {"integer", "number", "", "bool", "choice", "text"};
	fprintf(out, "[%s]\n", section);
	for (size_t i = 0; i < nkeys; i++) {
		const conf_key *k = &keys[i];
		char type[64];
		if (k->type == CONF_QTY)
			snprintf(type, sizeof type, "%s", sim_unit_name(k->unit));
		else if (k->type == CONF_ENUM)
			snprintf(type, sizeof type, "%s|%s%s", k->choices[0],
				 k->choices[1] ? k->choices[1] : "", k->choices[1] && k->choices[2] ? "|..." : "");
		else
			snprintf(type, sizeof type, "%s", types[k->type]);
		fprintf(out, "  %-20s %-18s %-14s %s\n", k->name, type, k->def ? k->def : "(required)",
			k->help);
	}
	fputc('\n', out);
}
