/* diag.c - ordered diagnostics about user input ("path:line: error: msg"). */
#include "core.h"

#include <stdlib.h>
#include <string.h>

struct sim_diag {
	char **text;
	sim_diag_level *level;
	size_t n, cap;
	int errors;
};

sim_diag *sim_diag_new(void)
{
	return calloc(1, sizeof(sim_diag));
}

void sim_diag_clear(sim_diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->text[i]);
	d->n = 0;
	d->errors = 0;
}

void sim_diag_free(sim_diag *d)
{
	if (!d)
		return;
	sim_diag_clear(d);
	free(d->text);
	free(d->level);
	free(d);
}

void sim_diag_vadd(sim_diag *d, sim_diag_level level, const char *path, int line,
		   const char *fmt, va_list ap)
{
	static const char *const names[] = {"error", "warning", "note"};
	char msg[2048], where[1024] = "";
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (path && line > 0)
		snprintf(where, sizeof where, "%s:%d: ", path, line);
	else if (path)
		snprintf(where, sizeof where, "%s: ", path);
	size_t len = strlen(where) + strlen(msg) + 16;
	char *t = malloc(len);
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		char **nt = realloc(d->text, cap * sizeof *nt);
		if (nt)
			d->text = nt;
		sim_diag_level *nl = nt ? realloc(d->level, cap * sizeof *nl) : NULL;
		if (nl)
			d->level = nl;
		if (nt && nl)
			d->cap = cap;
	}
	if (!t || d->n == d->cap) {
		free(t);
		if (level == SIM_DIAG_ERROR)
			d->errors++; /* still counted: the caller must fail */
		return;
	}
	snprintf(t, len, "%s%s: %s", where, names[level], msg);
	d->text[d->n] = t;
	d->level[d->n++] = level;
	if (level == SIM_DIAG_ERROR)
		d->errors++;
}

void sim_diag_add(sim_diag *d, sim_diag_level level, const char *path, int line, const char *fmt,
		  ...)
{
	va_list ap;
	va_start(ap, fmt);
	sim_diag_vadd(d, level, path, line, fmt, ap);
	va_end(ap);
}

int sim_diag_error_count(const sim_diag *d)
{
	return d->errors;
}

size_t sim_diag_count(const sim_diag *d)
{
	return d->n;
}

const char *sim_diag_text(const sim_diag *d, size_t i)
{
	return i < d->n ? d->text[i] : "";
}

void sim_diag_print(const sim_diag *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(out, "%s\n", d->text[i]);
}
