/* keys.c - reading a section through a key table (conf.h): types, units,
 * ranges, defaults, required keys and unknown keys. Every problem is reported
 * at the file:line of the value (or of the section header for a missing key)
 * and reading goes on, so one run shows them all. The same tables print
 * --help-keys. Messages, one line each:
 *     unknown key 'micro_bach' in [parallel]      + note: did you mean 'micro_batch'?
 *     [parallel] tp: expected an integer, got 'x'
 *     [parallel] tp = 0 is out of range [1, 65536]
 *     [node] nic_bw: missing unit: write '200 Gb/s' or '25 GB/s'
 *     [parallel] schedule: expected one of gpipe, 1f1b; got '2f2b'
 *     [parallel] missing required key 'global_batch'
 *     missing section [model] (required keys: name, layers, ...)
 */
#include "conf_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One key being read: where its value came from, for messages. */
typedef struct field {
	const char *section;
	const conf_key *k;
	conf_loc loc;
	sim_diag *diag;
} field;

#define FIELD_ERR(f, ...) sim_diag_error((f)->diag, (f)->loc.path, (f)->loc.line, __VA_ARGS__)

static bool is_unbounded(double max)
{
	return !(max < 1e300);
}

/* "[1, 65536]" or ": must be at least 1", with units for quantities. */
static void range_text(const conf_key *k, char *buf, size_t len)
{
	char lo[48], hi[48];
	if (k->type == CONF_INT) {
		snprintf(lo, sizeof lo, "%.0f", k->min);
		snprintf(hi, sizeof hi, "%.0f", k->max);
	} else {
		sim_unit u = k->type == CONF_QTY ? k->unit : SIM_UNIT_NONE;
		sim_unit_format(k->min, u, lo, sizeof lo);
		sim_unit_format(k->max, u, hi, sizeof hi);
	}
	if (is_unbounded(k->max))
		snprintf(buf, len, ": must be at least %s", lo);
	else
		snprintf(buf, len, " [%s, %s]", lo, hi);
}

static int out_of_range(const field *f, const char *value)
{
	char r[112];
	range_text(f->k, r, sizeof r);
	FIELD_ERR(f, "[%s] %s = %s is out of range%s", f->section, f->k->name, value, r);
	return SIM_ECONF;
}

static int expected(const field *f, const char *what, const char *value)
{
	FIELD_ERR(f, "[%s] %s: expected %s, got '%s'", f->section, f->k->name, what, value);
	return SIM_ECONF;
}

static int read_int(const field *f, const char *v, int *dst)
{
	const char *p = v + (*v == '+' || *v == '-');
	if (*p < '0' || *p > '9' || strspn(p, "0123456789") != strlen(p))
		return expected(f, "an integer", v);
	errno = 0;
	long long x = strtoll(v, NULL, 10);
	double lo = f->k->min > INT_MIN ? f->k->min : INT_MIN;
	double hi = f->k->max < INT_MAX ? f->k->max : INT_MAX;
	if (errno == ERANGE || (double)x < lo || (double)x > hi)
		return out_of_range(f, v);
	*dst = (int)x;
	return SIM_OK;
}

/* A plain decimal number: no hex, no inf or nan, nothing after it. */
static int read_real(const field *f, const char *v, double *dst)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || strspn(v, "+-.0123456789eE") != strlen(v) || !isfinite(x))
		return expected(f, "a number", v);
	if (x < f->k->min || x > f->k->max)
		return out_of_range(f, v);
	*dst = x;
	return SIM_OK;
}

static int read_qty(const field *f, const char *v, double *dst)
{
	double x;
	char err[256];
	if (sim_unit_parse(v, f->k->unit, &x, err, sizeof err) != SIM_OK) {
		FIELD_ERR(f, "[%s] %s: %s", f->section, f->k->name, err);
		return SIM_ECONF;
	}
	if (x < f->k->min || x > f->k->max)
		return out_of_range(f, v);
	*dst = x;
	return SIM_OK;
}

static int read_bool(const field *f, const char *v, bool *dst)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
			*dst = !strcasecmp(v, yes[i]);
			return SIM_OK;
		}
	}
	return expected(f, "true or false", v);
}

static int read_enum(const field *f, const char *v, int *dst)
{
	const char *const *c = f->k->choices;
	for (int i = 0; c[i]; i++)
		if (!strcmp(v, c[i])) {
			*dst = i;
			return SIM_OK;
		}
	sim_buf b;
	sim_buf_init(&b);
	const char *guess = NULL;
	int best = INT_MAX;
	for (int i = 0; c[i]; i++) {
		sim_buf_printf(&b, "%s%s", i ? ", " : "", c[i]);
		if (conf_closer(v, c[i], &best))
			guess = c[i];
	}
	FIELD_ERR(f, "[%s] %s: expected one of %s; got '%s'", f->section, f->k->name,
		  b.oom ? "?" : b.data, v);
	if (guess)
		sim_diag_note(f->diag, f->loc.path, f->loc.line, "did you mean '%s'?", guess);
	sim_buf_free(&b);
	return SIM_ECONF;
}

/* Parse v into the field at out + k->offset. */
static int store(const field *f, const char *v, void *out)
{
	char *dst = (char *)out + f->k->offset;
	switch (f->k->type) {
	case CONF_INT:
		return read_int(f, v, (int *)(void *)dst);
	case CONF_REAL:
		return read_real(f, v, (double *)(void *)dst);
	case CONF_QTY:
		return read_qty(f, v, (double *)(void *)dst);
	case CONF_BOOL:
		return read_bool(f, v, (bool *)(void *)dst);
	case CONF_ENUM:
		return read_enum(f, v, (int *)(void *)dst);
	case CONF_STR:
		if (strlen(v) >= CONF_STR_MAX) {
			FIELD_ERR(f, "[%s] %s: text is longer than %d bytes", f->section, f->k->name,
				  CONF_STR_MAX - 1);
			return SIM_ECONF;
		}
		memcpy(dst, v, strlen(v) + 1);
		return SIM_OK;
	}
	SIM_PANIC("[%s] %s: bad key type %d", f->section, f->k->name, (int)f->k->type);
}

/* A value of the right type meaning "nothing", for fields left unread. */
static void clear_field(const conf_key *k, void *out)
{
	static const size_t size[] = {sizeof(int), sizeof(double), sizeof(double), sizeof(bool),
				      sizeof(int), CONF_STR_MAX};
	memset((char *)out + k->offset, 0, size[k->type]);
}

static void unknown_keys(const conf_section *s, const conf_key *keys, size_t nkeys,
			 sim_diag *diag)
{
	for (size_t i = 0; i < s->nkeys; i++) {
		const conf_entry *e = &s->keys[i];
		const char *guess = NULL;
		int best = INT_MAX;
		bool known = false;
		for (size_t k = 0; k < nkeys && !known; k++) {
			known = !strcmp(e->key, keys[k].name);
			if (conf_closer(e->key, keys[k].name, &best))
				guess = keys[k].name;
		}
		if (known)
			continue;
		sim_diag_error(diag, e->loc.path, e->loc.line, "unknown key '%s' in [%s]", e->key,
			       s->name);
		if (guess)
			sim_diag_note(diag, e->loc.path, e->loc.line, "did you mean '%s'?", guess);
	}
}

/* One error for an absent section, listing the keys it must have, if any. */
static void missing_section(const conf_doc *doc, const char *section, const conf_key *keys,
			    size_t nkeys, sim_diag *diag)
{
	sim_buf b;
	sim_buf_init(&b);
	for (size_t i = 0; i < nkeys; i++)
		if (!keys[i].def)
			sim_buf_printf(&b, "%s%s", b.len ? ", " : "", keys[i].name);
	if (b.len)
		sim_diag_error(diag, doc->root, 0, "missing section [%s] (required keys: %s)", section,
			       b.oom ? "?" : b.data);
	sim_buf_free(&b);
}

int conf_read(const conf_doc *doc, const char *section, const conf_key *keys, size_t nkeys,
	      void *out, bool section_optional, sim_diag *diag)
{
	int before = sim_diag_error_count(diag);
	const conf_section *s = conf_find_section(doc, section);
	if (s)
		unknown_keys(s, keys, nkeys, diag);
	else if (!section_optional)
		missing_section(doc, section, keys, nkeys, diag);
	for (size_t i = 0; i < nkeys; i++) {
		const conf_key *k = &keys[i];
		const conf_entry *e = s ? conf_find_entry(s, k->name) : NULL;
		field f = {section, k, e ? e->loc : conf_section_loc(doc, section), diag};
		clear_field(k, out);
		if (e) {
			store(&f, e->value, out);
		} else if (k->def) {
			int errs = sim_diag_error_count(diag);
			if (store(&f, k->def, out) != SIM_OK || sim_diag_error_count(diag) != errs)
				SIM_PANIC("bad default '%s' for [%s] %s", k->def, section, k->name);
		} else if (s) {
			sim_diag_error(diag, s->loc.path, s->loc.line, "[%s] missing required key '%s'",
				       section, k->name);
		}
	}
	return sim_diag_error_count(diag) > before ? SIM_ECONF : SIM_OK;
}

conf_loc conf_key_loc(const conf_doc *doc, const char *section, const char *key)
{
	conf_loc loc;
	if (conf_get(doc, section, key, &loc))
		return loc;
	return conf_section_loc(doc, section);
}

/* The type column of --help-keys: "integer 1..65536", "bandwidth", "gpipe|1f1b". */
static void type_text(const conf_key *k, char *buf, size_t len)
{
	switch (k->type) {
	case CONF_INT:
	case CONF_REAL:
		if (is_unbounded(k->max))
			snprintf(buf, len, "%s >= %g", k->type == CONF_INT ? "integer" : "number", k->min);
		else
			snprintf(buf, len, k->type == CONF_INT ? "integer %.0f..%.0f" : "number %g..%g",
				 k->min, k->max);
		return;
	case CONF_QTY:
		snprintf(buf, len, "%s", sim_unit_name(k->unit));
		return;
	case CONF_BOOL:
		snprintf(buf, len, "true|false");
		return;
	case CONF_ENUM: {
		size_t n = 0;
		buf[0] = '\0';
		for (int i = 0; k->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", k->choices[i]);
		return;
	}
	case CONF_STR:
		snprintf(buf, len, "text");
		return;
	}
	snprintf(buf, len, "?");
}

void conf_print_keys(FILE *out, const char *section, const conf_key *keys, size_t nkeys)
{
	fprintf(out, "[%s]\n", section);
	for (size_t i = 0; i < nkeys; i++) {
		const conf_key *k = &keys[i];
		char type[96];
		type_text(k, type, sizeof type);
		const char *def = !k->def ? "(required)" : *k->def ? k->def : "\"\"";
		fprintf(out, "  %-20s %-24s %-12s %s\n", k->name, type, def, k->help ? k->help : "");
	}
	fputc('\n', out);
}

int conf_flags_parse(const char *text, const conf_flag *names, size_t nnames, unsigned *mask,
		     char *bad, size_t len)
{
	*mask = 0;
	for (const char *p = text; *p;) {
		p += strspn(p, " ,");
		size_t n = strcspn(p, " ,");
		if (n == 0)
			break;
		unsigned bits = 0;
		for (size_t i = 0; i < nnames; i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				bits = names[i].bits;
		if (!bits) {
			if (bad)
				snprintf(bad, len, "%.*s", (int)n, p);
			return SIM_ECONF;
		}
		*mask |= bits;
		p += n;
	}
	return SIM_OK;
}
