/* diag.c - diagnostics about user input, kept in the order reported so that
 * several errors can be shown at once. Each message is formatted once, when it
 * is added, exactly as it prints:
 *     path:line: level: message      (path != NULL, line > 0)
 *     path: level: message           (path != NULL, line <= 0)
 *     level: message                 (path == NULL)
 * If memory runs out, a message may be lost but errors are still counted, so a
 * caller that checks sim_diag_error_count() still fails; past DIAG_MAX_KEPT
 * errors, later ones (and their notes) are only counted. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

typedef struct diag_msg {
	sim_diag_level level;
	char *text;
} diag_msg;

/* Errors kept (and printed) at most: a binary or foreign file included by
 * mistake gives one error per line, and 16 MiB of them would take minutes to
 * print and hundreds of MB to hold. Later errors are counted, not kept. */
#define DIAG_MAX_KEPT 50

struct sim_diag {
	diag_msg *msg;
	size_t n, cap;
	int errors, kept_errors;
	bool lost;     /* a message could not be stored (out of memory) */
	bool dropping; /* the last error was over the cap: drop its notes too */
};

static const char *const level_names[] = {"error", "warning", "note"};

sim_diag *sim_diag_new(void)
{
	return calloc(1, sizeof(sim_diag));
}

void sim_diag_clear(sim_diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->msg[i].text);
	d->n = 0;
	d->errors = d->kept_errors = 0;
	d->lost = d->dropping = false;
}

void sim_diag_free(sim_diag *d)
{
	if (!d)
		return;
	sim_diag_clear(d);
	free(d->msg);
	free(d);
}

/* The message formatted with its location prefix, in one malloc'd string. */
static char *format_msg(sim_diag_level level, const char *path, int line, const char *fmt,
			va_list ap)
{
	char where[32] = "";
	if (path && line > 0)
		snprintf(where, sizeof where, ":%d", line);
	const char *lv = level_names[level];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	size_t plen = path ? strlen(path) + strlen(where) + 2 : 0; /* "path:12: " */
	size_t len = plen + strlen(lv) + 2 + (size_t)n + 1;
	char *t = malloc(len);
	if (!t)
		return NULL;
	int k = path ? snprintf(t, len, "%s%s: %s: ", path, where, lv) : snprintf(t, len, "%s: ", lv);
	vsnprintf(t + k, len - (size_t)k, fmt, ap);
	return t;
}

/* Whether a message of `level` is kept (counting an error either way), and
 * room for it; false when it is dropped or memory runs out (then lost). */
static bool room(sim_diag *d, sim_diag_level level)
{
	if (level == SIM_DIAG_ERROR) {
		d->errors++; /* counted even if the text is lost: the caller must fail */
		d->dropping = d->kept_errors >= DIAG_MAX_KEPT;
		if (!d->dropping)
			d->kept_errors++;
	}
	if (d->dropping && level != SIM_DIAG_WARNING)
		return false;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		diag_msg *m = realloc(d->msg, cap * sizeof *m);
		if (!m) {
			d->lost = true;
			return false;
		}
		d->msg = m;
		d->cap = cap;
	}
	return true;
}

static void push(sim_diag *d, sim_diag_level level, char *t)
{
	if (!t) {
		d->lost = true;
		return;
	}
	d->msg[d->n].level = level;
	d->msg[d->n++].text = t;
}

void sim_diag_vadd(sim_diag *d, sim_diag_level level, const char *path, int line,
		   const char *fmt, va_list ap)
{
	if ((unsigned)level > SIM_DIAG_NOTE)
		level = SIM_DIAG_ERROR;
	if (room(d, level))
		push(d, level, format_msg(level, path, line, fmt, ap));
}

void sim_diag_append(sim_diag *d, const sim_diag *from)
{
	int copied = 0;
	for (size_t i = 0; from && i < from->n; i++) {
		sim_diag_level level = from->msg[i].level;
		copied += level == SIM_DIAG_ERROR;
		if (room(d, level)) {
			size_t len = strlen(from->msg[i].text) + 1;
			char *t = malloc(len);
			if (t)
				memcpy(t, from->msg[i].text, len);
			push(d, level, t);
		}
	}
	if (from) { /* errors `from` counted without their text */
		d->errors += from->errors - copied;
		d->lost = d->lost || from->lost;
	}
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
	return i < d->n ? d->msg[i].text : "";
}

void sim_diag_print(const sim_diag *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(out, "%s\n", d->msg[i].text);
	if (d->lost)
		fprintf(out, "error: out of memory: some messages were lost\n");
	if (d->errors > d->kept_errors)
		fprintf(out, "note: %d more errors not shown\n", d->errors - d->kept_errors);
}
