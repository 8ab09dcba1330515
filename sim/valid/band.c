/* band.c - error bands: how far a prediction is likely to be from the step a
 * real cluster measures, from the validation residuals of the shipped cases
 * (valid.h, "error bands"). Two halves:
 *
 *  - the generator (`podsim validate CASES.csv --bands-out FILE`,
 *    valid_bands_write): the simulated training rows of a report, grouped
 *    into cells by (GPU generation, framework, scale bucket) and their
 *    coarser wildcards, each cell's residual quantiles written as one CSV
 *    row (topologies/bands.csv ships the table of tests/cases/calibration.csv;
 *    tests/cli/validate.sh regenerates it and compares);
 *  - the lookup (valid_band_find): the nearest cell of a scenario.
 *
 * Residual of a row: x = ln(measured / predicted), so a band of ratios
 * [e^lo, e^hi] times a prediction p is the likely range [p e^lo, p e^hi] of
 * the measured step (a prediction 20 % too fast has x = ln 1.25).
 *
 * Weights: every source weighs once in its cell. A row of a source with k
 * rows in the cell has weight w = 1/k, so vTrain's 1,440 single-node rows
 * count as much as Megatron-Core's 4, and W = sum w = the number of sources.
 * Quantiles are weighted order statistics: Q(p) = the smallest x_(j) whose
 * cumulative weight C_j >= p W; its mirror Q'(p) = the largest x_(j) with
 * W - C_(j-1) >= p W. The band's core is [Q(0.1), Q'(0.1)] (80 % of the
 * weight between); the median is (Q(0.5) + Q'(0.5)) / 2.
 *
 * Few rows: n_eff = W^2 / sum w^2 (Kish's effective sample size; the row
 * count when all rows come from one source). The k-th smallest and k-th
 * largest of n exchangeable draws hold a new draw with probability
 * (n + 1 - 2k) / (n + 1), so an 80 % band from order statistics needs
 * n >= 9 (k = 1: (n - 1) / (n + 1) >= 0.8). Below that the core is widened
 * to hold (a) every residual, [min, max], and (b) the normal prediction
 * interval of the log ratios, mu +- t_0.9(nu) s sqrt(1 + 1/n_eff), with
 * the weighted mean mu and standard deviation s (reliability weights:
 * s^2 = sum w (x - mu)^2 / (W - sum w^2 / W)) and nu = max(n_eff - 1, 1)
 * degrees of freedom (Student's t: wide for 2 or 3 rows). A band is never
 * narrower than its residuals support.
 *
 * Cells: generation x framework x scale bucket; generation x framework;
 * generation x scale; generation; all rows ("*" for any). Only cells with
 * at least VALID_BAND_MIN_ROWS rows are written. Nearest (valid_band_find):
 * the first of those five levels, in that order, that the table holds for
 * the scenario's GPU generation, framework and GPU count. */
#include "valid_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BAND_P 0.10 /* each tail outside the band */

/* ------------------------------------------------------------- keys ---- */

const char *valid_gpu_generation(const char *gpu)
{
	/* Longer prefixes first where one is the start of another (a100/a10). */
	static const struct {
		const char *prefix, *gen;
	} map[] = {
	        {"v100", "volta"},     {"t4", "turing"},       {"a100", "ampere"},
	        {"a800", "ampere"},    {"a40", "ampere"},      {"a30", "ampere"},
	        {"a10", "ampere"},     {"rtx-30", "ampere"},   {"rtx-4090", "ada"},
	        {"l40", "ada"},        {"l4", "ada"},          {"gh200", "hopper"},
	        {"h100", "hopper"},    {"h200", "hopper"},     {"h800", "hopper"},
	        {"h20", "hopper"},     {"gb200", "blackwell"}, {"b200", "blackwell"},
	        {"b100", "blackwell"}, {"mi300", "cdna3"},     {"mi250", "cdna2"},
	};
	for (size_t i = 0; gpu && i < sizeof map / sizeof map[0]; i++)
		if (!strncmp(gpu, map[i].prefix, strlen(map[i].prefix)))
			return map[i].gen;
	return "unknown";
}

static const char *const buckets[] = {"1-8", "9-64", "65-512", "513+"};
enum { NBUCKETS = 4 };

const char *valid_scale_bucket(int gpus)
{
	return gpus <= 8     ? buckets[0]
	       : gpus <= 64  ? buckets[1]
	       : gpus <= 512 ? buckets[2]
	                     : buckets[3];
}

/* ---------------------------------------------------------- statistics -- */

typedef struct cell_row {
	double x, w;
	size_t row; /* report index: ties in x sort by it */
	size_t src; /* its source's index in the cell */
} cell_row;

static int by_x(const void *a, const void *b)
{
	const cell_row *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->row > q->row) - (p->row < q->row);
}

/* Q(p) and its mirror Q'(p) of the sorted weighted residuals (see top). */
static double q_low(const cell_row *c, size_t n, double W, double p)
{
	double cum = 0;
	for (size_t j = 0; j < n; j++) {
		cum += c[j].w;
		if (cum >= p * W * (1 - 1e-12))
			return c[j].x;
	}
	return c[n - 1].x;
}

static double q_high(const cell_row *c, size_t n, double W, double p)
{
	double cum = 0;
	for (size_t j = n; j-- > 0;) {
		cum += c[j].w;
		if (cum >= p * W * (1 - 1e-12))
			return c[j].x;
	}
	return c[0].x;
}

/* The band of n sorted residuals (n >= 1), as ratios, into b. */
static void cell_stats(const cell_row *c, size_t n, valid_band *b)
{
	double W = 0, w2 = 0, mu = 0;
	for (size_t j = 0; j < n; j++) {
		W += c[j].w;
		w2 += c[j].w * c[j].w;
		mu += c[j].w * c[j].x;
	}
	mu /= W;
	double ss = 0;
	for (size_t j = 0; j < n; j++)
		ss += c[j].w * (c[j].x - mu) * (c[j].x - mu);
	double denom = W - w2 / W;
	double sd = denom > 0 ? sqrt(ss / denom) : 0;
	b->n_eff = W * W / w2;
	double lo = q_low(c, n, W, BAND_P), hi = q_high(c, n, W, BAND_P);
	double med = (q_low(c, n, W, 0.5) + q_high(c, n, W, 0.5)) / 2;
	b->q10 = exp(lo);
	b->q90 = exp(hi);
	b->median = exp(med);
	b->min = exp(c[0].x);
	b->max = exp(c[n - 1].x);
	b->widened = b->n_eff < 9 - 1e-9;
	if (b->widened) {
		double nu = b->n_eff - 1 >= 1 ? b->n_eff - 1 : 1;
		double half = gsl_cdf_tdist_Pinv(1 - BAND_P, nu) * sd * sqrt(1 + 1 / b->n_eff);
		lo = fmin(fmin(lo, c[0].x), mu - half);
		hi = fmax(fmax(hi, c[n - 1].x), mu + half);
	}
	b->lo = exp(lo);
	b->hi = exp(hi);
}

/* ----------------------------------------------------------- generator -- */

/* Does row v belong to the cell (gen, fw, scale), "*" matching any? */
static bool in_cell(const valid_row *v, const char *gen, const char *fw, const char *scale)
{
	return v->status == VALID_OK && v->measured > 0 && v->predicted > 0 &&
	       (!strcmp(gen, "*") || !strcmp(gen, valid_gpu_generation(v->gpu))) &&
	       (!strcmp(fw, "*") || !strcmp(fw, v->framework)) &&
	       (!strcmp(scale, "*") || !strcmp(scale, valid_scale_bucket(v->gpus)));
}

/* The cell's statistics and sources; false when it has fewer than
 * VALID_BAND_MIN_ROWS rows. buf and src hold r->nrows entries. */
static bool make_cell(const valid_report *r, const char *gen, const char *fw, const char *scale,
                      cell_row *buf, size_t *src, valid_band *b)
{
	memset(b, 0, sizeof *b);
	snprintf(b->generation, sizeof b->generation, "%s", gen);
	snprintf(b->framework, sizeof b->framework, "%s", fw);
	snprintf(b->scale, sizeof b->scale, "%s", scale);
	/* src[j]: the first row of source j in the cell */
	size_t n = 0, ns = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		if (!in_cell(v, gen, fw, scale))
			continue;
		size_t j = 0;
		while (j < ns && strcmp(r->rows[src[j]].group, v->group))
			j++;
		if (j == ns) {
			src[ns++] = i;
			size_t used = strlen(b->names);
			snprintf(b->names + used, sizeof b->names - used, "%s%s", used ? "; " : "",
			         v->group);
		}
		buf[n++] = (cell_row){log(v->measured / v->predicted), 0, i, j};
	}
	b->rows = (int)n;
	b->sources = (int)ns;
	if (n < VALID_BAND_MIN_ROWS)
		return false;
	for (size_t j = 0; j < ns; j++) { /* each source weighs once: w = 1 / its rows */
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += buf[i].src == j;
		for (size_t i = 0; i < n; i++)
			if (buf[i].src == j)
				buf[i].w = 1.0 / (double)k;
	}
	qsort(buf, n, sizeof *buf, by_x);
	cell_stats(buf, n, b);
	return true;
}

static void write_cell(FILE *out, const valid_band *b)
{
	fprintf(out, "%s,%s,%s,%d,%d,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,\"%s\"\n",
	        b->generation, b->framework, b->scale, b->rows, b->sources, b->n_eff, b->q10,
	        b->median, b->q90, b->min, b->max, b->lo, b->hi, b->widened ? "yes" : "no",
	        b->names);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct values of a row key (generation or framework), sorted. */
static size_t distinct(const valid_report *r, bool gen, const char **out)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		if (v->status != VALID_OK || !v->gpu[0])
			continue;
		const char *k = gen ? valid_gpu_generation(v->gpu) : v->framework;
		size_t j = 0;
		while (j < n && strcmp(out[j], k))
			j++;
		if (j == n)
			out[n++] = k;
	}
	qsort(out, n, sizeof *out, by_name);
	return n;
}

int valid_bands_write(const valid_report *r, FILE *out)
{
	const char **gens = malloc((r->nrows + 1) * sizeof *gens);
	const char **fws = malloc((r->nrows + 1) * sizeof *fws);
	cell_row *buf = malloc((r->nrows + 1) * sizeof *buf);
	size_t *src = malloc((r->nrows + 1) * sizeof *src);
	if (!gens || !fws || !buf || !src) {
		free(gens), free(fws), free(buf), free(src);
		return SIM_ENOMEM;
	}
	size_t ng = distinct(r, true, gens), nf = distinct(r, false, fws);
	fprintf(out, "generation,framework,gpus,rows,sources,n_eff,q10,median,q90,min,max,lo,hi,"
	             "widened,source_names\n");
	valid_band b;
	for (size_t g = 0; g <= ng; g++) {
		const char *gen = g < ng ? gens[g] : "*";
		for (size_t f = 0; f <= nf; f++) {
			const char *fw = f < nf ? fws[f] : "*";
			if (g == ng && f < nf)
				continue; /* no (*, framework) level */
			for (int k = 0; k <= NBUCKETS; k++) {
				const char *scale = k < NBUCKETS ? buckets[k] : "*";
				if (g == ng && k < NBUCKETS)
					continue; /* nor (*, *, bucket) */
				if (make_cell(r, gen, fw, scale, buf, src, &b))
					write_cell(out, &b);
			}
		}
	}
	free(gens), free(fws), free(buf), free(src);
	return ferror(out) ? SIM_EIO : SIM_OK;
}

/* -------------------------------------------------------------- lookup -- */

struct valid_bands {
	size_t n;
	valid_band *cells;
};

static int get_num(const cases_csv *c, size_t row, const char *col, double *out, sim_diag *diag)
{
	if (cases_get_real(c, row, col, NAN, out, diag) != SIM_OK)
		return 1;
	if (!isfinite(*out) || *out < 0) {
		sim_diag_error(diag, cases_csv_path(c), cases_csv_line(c, row),
		               "column '%s': expected a number >= 0", col);
		return 1;
	}
	return 0;
}

int valid_bands_load(const char *path, valid_bands **out, sim_diag *diag)
{
	static const char *const need[] = {"generation", "framework", "gpus",         "rows",
	                                   "sources",    "n_eff",     "q10",          "median",
	                                   "q90",        "min",       "max",          "lo",
	                                   "hi",         "widened",   "source_names", NULL};
	*out = NULL;
	cases_csv *c;
	int rc = cases_csv_read(path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	valid_bands *t = calloc(1, sizeof *t);
	size_t n = cases_csv_rows(c);
	if (!t || !(t->cells = calloc(n ? n : 1, sizeof *t->cells))) {
		free(t);
		cases_csv_free(c);
		return SIM_ENOMEM;
	}
	int bad = cases_csv_require(c, need, diag);
	for (size_t i = 0; !bad && i < n; i++) {
		valid_band *b = &t->cells[t->n++];
		double rows = 0, sources = 0;
		snprintf(b->generation, sizeof b->generation, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "generation")));
		snprintf(b->framework, sizeof b->framework, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "framework")));
		snprintf(b->scale, sizeof b->scale, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "gpus")));
		snprintf(b->names, sizeof b->names, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "source_names")));
		b->widened = !strcmp(cases_csv_get(c, i, cases_csv_col(c, "widened")), "yes");
		bad += get_num(c, i, "rows", &rows, diag) +
		       get_num(c, i, "sources", &sources, diag) +
		       get_num(c, i, "n_eff", &b->n_eff, diag) +
		       get_num(c, i, "q10", &b->q10, diag) +
		       get_num(c, i, "median", &b->median, diag) +
		       get_num(c, i, "q90", &b->q90, diag) + get_num(c, i, "min", &b->min, diag) +
		       get_num(c, i, "max", &b->max, diag) + get_num(c, i, "lo", &b->lo, diag) +
		       get_num(c, i, "hi", &b->hi, diag);
		b->rows = (int)rows;
		b->sources = (int)sources;
		if (!bad && !(b->lo > 0 && b->lo <= b->hi)) {
			sim_diag_error(diag, path, cases_csv_line(c, i),
			               "band: expected 0 < lo <= hi, got %g and %g", b->lo, b->hi);
			bad++;
		}
	}
	cases_csv_free(c);
	if (bad) {
		valid_bands_free(t);
		return SIM_ECONF;
	}
	*out = t;
	return SIM_OK;
}

void valid_bands_free(valid_bands *t)
{
	if (!t)
		return;
	free(t->cells);
	free(t);
}

bool valid_band_find(const valid_bands *t, const char *gpu, const char *framework, int gpus,
                     valid_band *out)
{
	const char *gen = valid_gpu_generation(gpu), *scale = valid_scale_bucket(gpus);
	const char *const levels[5][3] = {{gen, framework, scale},
	                                  {gen, framework, "*"},
	                                  {gen, "*", scale},
	                                  {gen, "*", "*"},
	                                  {"*", "*", "*"}};
	memset(out, 0, sizeof *out);
	for (int l = 0; t && l < 5; l++)
		for (size_t i = 0; i < t->n; i++) {
			const valid_band *b = &t->cells[i];
			if (!strcmp(b->generation, levels[l][0]) &&
			    !strcmp(b->framework, levels[l][1]) &&
			    !strcmp(b->scale, levels[l][2])) {
				*out = *b;
				out->level = l + 1;
				return true;
			}
		}
	return false;
}
