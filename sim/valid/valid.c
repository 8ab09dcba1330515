/* valid.c - the validate driver: read the case file, predict each row, and
 * summarise the errors per source group (see valid.h). */
#include "valid_int.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Source groups by row id prefix (tests/cases/README.md). */
static const struct {
	const char *prefix, *name;
} groups[] = {
	{"G-h800", "DeepGEMM fp8 shapes H800"},
	{"GD-h800", "DeepGEMM fp8 decode shapes H800"},
	{"A-h100", "attention kernels H100"},
	{"A-a100", "attention kernels A100"},
	{"LUT-A100", "vTrain A100 all-reduce LUT"},
	{"LUT-V100", "vTrain V100 all-reduce LUT"},
	{"D", "Megatron-Core H100"},
	{"N", "NeMo / Megatron-Bridge"},
	{"O", "MosaicML FSDP"},
	{"P", "PyTorch FSDP"},
	{"V", "vTrain multi-node"},
	{"S", "vTrain single-node"},
	{"Q", "public microbenchmarks"},
	{"E-", "EFA collectives (p5-class, 1-64 nodes)"},
};

static const char *group_of(const char *id)
{
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (!strncmp(id, groups[i].prefix, strlen(groups[i].prefix)))
			return groups[i].name;
	return "other";
}

/* Every numeric column present must hold finite, non-negative numbers (or be
 * empty: unknown): a typo such as 'ten' or 'nan' in a measured time is the
 * user's error, with its line, not a silently skipped or NaN-poisoned row.
 * Returns the number of bad fields (all reported). */
static int check_numbers(const cases_csv *c, sim_diag *diag)
{
	size_t ncols;
	const valid_numcol *cols = valid_numeric_cols(&ncols);
	int bad = 0;
	for (size_t i = 0; i < ncols; i++) {
		int col = cases_csv_col(c, cols[i].col);
		if (col < 0)
			continue;
		for (size_t row = 0; row < cases_csv_rows(c); row++) {
			double v;
			const char *text = cases_csv_get(c, row, col);
			const char *want = NULL;
			if (cases_get_real(c, row, cols[i].col, 0, &v, diag) != SIM_OK) {
				bad++;
				continue;
			}
			/* counts are at least 1 when given (0 would be a plan that
			 * cannot run: "skipped" hid it), counts and integers below
			 * 2^31 (INT64_MAX gpus overflowed the node count) */
			if (v < 0)
				want = "a number >= 0";
			else if (cols[i].kind != VALID_NUM_REAL && *text && (v != floor(v) || v > INT_MAX))
				want = "an integer below 2^31";
			else if (cols[i].kind == VALID_NUM_COUNT && *text && v < 1)
				want = "a count of at least 1";
			if (want) {
				sim_diag_error(diag, cases_csv_path(c), cases_csv_line(c, row),
					       "column '%s': expected %s, got '%s'", cols[i].col, want,
					       cases_csv_written(c, row, col)); /* as the file has it */
				bad++;
			}
		}
	}
	return bad;
}

int valid_case_numbers(cases_csv *c, sim_diag *diag)
{
	int rc = valid_loose_numbers(c);
	return rc != SIM_OK ? rc : check_numbers(c, diag) ? SIM_ECONF : SIM_OK;
}

/* The options with the shipped stack table loaded when the caller gave none
 * (*own gets what to free). */
static int with_stacks(const valid_options *opt, valid_options *o, valid_stacks **own,
		       sim_diag *diag)
{
	*o = *opt;
	*own = NULL;
	if (opt->stacks)
		return SIM_OK;
	int rc = valid_stacks_load(opt->datadir, own, diag);
	o->stacks = *own;
	return rc;
}

/* The case file's kind from its columns (VALID_RUNS, VALID_MICRO,
 * VALID_MEMORY), its required columns present and its numbers numeric;
 * SIM_ECONF with the errors in diag otherwise. */
static int case_kind(const char *path, cases_csv *c, valid_kind *kind, sim_diag *diag)
{
	static const char *const need_id[] = {"id", NULL};
	static const char *const need_runs[] = {
		"id", "model", "layers", "hidden", "heads", "ffn", "vocab", "seq_len", "global_batch",
		"gpus", "gpu", "gpus_per_node", "node_intra", "tp", "pp", "dp", "precision",
		"measured_iter_s", NULL};
	static const char *const need_micro[] = {"id", "kind", "gpu", "gpus", "measured_value",
						 NULL};
	static const char *const need_mem[] = {
		"id", "source", "framework", "model", "layers", "hidden", "heads", "seq_len", "gpus",
		"gpu", "tp", "pp", "dp", "precision", "measured_peak_gib", "memory_kind", NULL};
	bool micro = cases_csv_col(c, "kind") >= 0;
	bool runs = cases_csv_col(c, "measured_iter_s") >= 0;
	bool mem = !micro && !runs && cases_csv_col(c, "measured_peak_gib") >= 0;
	const char *const *need = micro ? need_micro : runs ? need_runs : mem ? need_mem : need_id;
	int rc = SIM_OK;
	if (cases_csv_require(c, need, diag) > 0 || (!micro && !runs && !mem) ||
	    (rc = valid_case_numbers(c, diag)) != SIM_OK) {
		if (rc == SIM_ENOMEM)
			return rc;
		if (!micro && !runs && !mem)
			sim_diag_error(diag, path, 1,
				       "not a case file: expected a 'measured_iter_s' (training runs), "
				       "'measured_peak_gib' (memory peaks) or 'kind' (microbenchmarks) "
				       "column");
		return SIM_ECONF;
	}
	*kind = micro ? VALID_MICRO : mem ? VALID_MEMORY : VALID_RUNS;
	return SIM_OK;
}

/* An id the file has used before is a warning at its line: the rows are
 * reported apart, but --scenario ID and --only take the first, and a
 * report's reader keyed by id sees one of them. */
static void warn_repeated_ids(const char *path, const cases_csv *c, sim_diag *diag)
{
	int col = cases_csv_col(c, "id");
	size_t n = cases_csv_rows(c);
	for (size_t j = 1; col >= 0 && j < n; j++) {
		const char *id = cases_csv_get(c, j, col);
		for (size_t i = 0; *id && i < j; i++)
			if (!strcmp(id, cases_csv_get(c, i, col))) {
				sim_diag_warning(diag, path, cases_csv_line(c, j),
				                 "id '%s' repeats line %d's: --scenario takes the first",
				                 id, cases_csv_line(c, i));
				break;
			}
	}
}

/* --where COL=VALUE, several joined by '&' (all must hold; '!=' negates). */
enum { WHERE_MAX = 4 };
typedef struct where_filter {
	char buf[256], *col[WHERE_MAX], *val[WHERE_MAX];
	bool neg[WHERE_MAX];
	int n;
} where_filter;

/* Parses opt->where into w (none: n = 0); SIM_ECONF with a path:1 error
 * where a term is no COLUMN=VALUE of the file's columns or there are more
 * than WHERE_MAX. */
static int where_parse(const char *path, const char *where, const cases_csv *c, where_filter *w,
                       sim_diag *diag)
{
	w->n = 0;
	if (!where)
		return SIM_OK;
	snprintf(w->buf, sizeof w->buf, "%s", where);
	bool ok = true;
	for (char *tok = w->buf; tok && ok; w->n++) {
		char *next = strchr(tok, '&');
		if (next)
			*next++ = '\0';
		char *eq = strchr(tok, '=');
		ok = w->n < WHERE_MAX && eq != NULL;
		if (!ok)
			break;
		w->neg[w->n] = eq > tok && eq[-1] == '!';
		if (w->neg[w->n])
			eq[-1] = '\0';
		*eq = '\0';
		w->col[w->n] = tok, w->val[w->n] = eq + 1;
		ok = cases_csv_col(c, w->col[w->n]) >= 0;
		tok = next;
	}
	if (ok)
		return SIM_OK;
	sim_diag_error(diag, path, 1, "--where %s: expected COLUMN=VALUE (several joined "
		       "by '&', != to negate) with columns of the file", where);
	return SIM_ECONF;
}

/* Whether row i of c passes w. */
static bool where_keep(const where_filter *w, const cases_csv *c, size_t i)
{
	bool keep = true;
	for (int k = 0; k < w->n && keep; k++)
		keep = (strcmp(cases_csv_get(c, i, cases_csv_col(c, w->col[k])), w->val[k]) == 0) !=
		       w->neg[k];
	return keep;
}

/* The predictions of valid_run's rows (sim_parallel's piece: row k of the
 * report, line at[k] of the file; every worker reads the file only). */
typedef struct row_job {
	const cases_csv *c;
	const valid_options *opt;
	valid_kind kind;
	valid_report *r;
	const size_t *at;
	atomic_size_t done; /* rows predicted, for the progress lines */
} row_job;

static void predict_row(void *ctx, size_t k, int worker)
{
	(void)worker;
	row_job *j = ctx;
	valid_row *v = &j->r->rows[k];
	if (j->kind == VALID_MICRO)
		valid_micro_row(j->c, j->at[k], j->opt, v);
	else if (j->kind == VALID_MEMORY)
		valid_memory_row(j->c, j->at[k], j->opt, v);
	else
		valid_training_row(j->c, j->at[k], j->opt, v);
	size_t d = atomic_fetch_add(&j->done, 1) + 1;
	if (j->opt->progress && d % 100 == 0)
		fprintf(j->opt->progress, "validate: %zu/%zu rows\n", d, j->r->nrows);
}

int valid_run(const char *path, const valid_options *opt_in, valid_report **out, sim_diag *diag)
{
	*out = NULL;
	cases_csv *c;
	int rc = valid_case_read(path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	valid_options o;
	valid_stacks *own = NULL;
	if ((cases_csv_col(c, "measured_iter_s") >= 0 || cases_csv_col(c, "measured_peak_gib") >= 0) &&
	    (rc = with_stacks(opt_in, &o, &own, diag)) != SIM_OK) {
		cases_csv_free(c);
		return rc;
	}
	if (!own)
		o = *opt_in;
	const valid_options *opt = &o;
	valid_kind kind = VALID_RUNS;
	where_filter w;
	if ((cases_csv_col(c, "measured_iter_s") >= 0 && (rc = valid_token_seq_len(c, opt)) != SIM_OK) ||
	    (rc = case_kind(path, c, &kind, diag)) != SIM_OK ||
	    where_parse(path, opt->where, c, &w, diag) != SIM_OK) {
		cases_csv_free(c);
		valid_stacks_free(own);
		return rc == SIM_ENOMEM ? rc : SIM_ECONF;
	}
	warn_repeated_ids(path, c, diag);
	valid_report *r = calloc(1, sizeof *r);
	size_t n = cases_csv_rows(c);
	if (!r || !(r->rows = calloc(n ? n : 1, sizeof *r->rows))) {
		free(r);
		cases_csv_free(c);
		valid_stacks_free(own);
		return SIM_ENOMEM;
	}
	snprintf(r->path, sizeof r->path, "%s", path);
	r->kind = kind;
	/* First, in order, the rows kept and the cells their open columns
	 * take (valid_open_framework, valid_open_layout: a row's reading may
	 * look at the rows before it, "as the previous row"); then the
	 * predictions, which only read the file, on the cores. */
	size_t *at = malloc((n ? n : 1) * sizeof *at);
	if (!at)
		rc = SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < n; i++) {
		const char *id = cases_csv_get(c, i, cases_csv_col(c, "id"));
		if (opt->only && strncmp(id, opt->only, strlen(opt->only)))
			continue;
		if (!where_keep(&w, c, i))
			continue;
		valid_row *v = &r->rows[r->nrows];
		snprintf(v->id, sizeof v->id, "%s", id);
		snprintf(v->group, sizeof v->group, "%s", group_of(id));
		at[r->nrows++] = i;
		if (kind == VALID_MEMORY)
			rc = valid_open_framework(c, i, opt);
		else if (kind == VALID_RUNS)
			rc = valid_open_layout(c, i, opt);
	}
	if (rc == SIM_OK) {
		row_job job = {c, opt, kind, r, at, 0};
		sim_parallel(r->nrows, opt->threads > 0 ? opt->threads : sim_threads_default(),
		             predict_row, &job);
	}
	free(at);
	cases_csv_free(c);
	valid_stacks_free(own);
	if (rc != SIM_OK) { /* valid_open_layout's or valid_open_framework's allocation */
		valid_report_free(r);
		return rc;
	}
	valid_summarize(r);
	*out = r;
	return SIM_OK;
}

void valid_report_free(valid_report *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r);
}

int valid_scenario(const char *path, const char *id, const valid_options *opt, FILE *out,
		   sim_diag *diag)
{
	cases_csv *c;
	int rc = valid_case_read(path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	bool mem = cases_csv_col(c, "measured_peak_gib") >= 0;
	if (cases_csv_col(c, "measured_iter_s") < 0 && !mem) {
		sim_diag_error(diag, path, 1, "--scenario needs a training-run or memory case file "
			       "(a 'measured_iter_s' or 'measured_peak_gib' column)");
		cases_csv_free(c);
		return SIM_ECONF;
	}
	valid_options o;
	valid_stacks *own = NULL;
	if ((rc = with_stacks(opt, &o, &own, diag)) != SIM_OK ||
	    (!mem && (rc = valid_token_seq_len(c, &o)) != SIM_OK) ||
	    (rc = valid_case_numbers(c, diag)) != SIM_OK) {
		/* the same readings and checks as valid_run */
		valid_stacks_free(own);
		cases_csv_free(c);
		return rc;
	}
	size_t n = cases_csv_rows(c), row = n;
	for (size_t i = 0; i < n && row == n; i++)
		if (!strcmp(cases_csv_get(c, i, cases_csv_col(c, "id")), id))
			row = i;
	if (row == n) {
		sim_diag_error(diag, path, 0, "no row with id '%s'", id);
		valid_stacks_free(own);
		cases_csv_free(c);
		return SIM_ECONF;
	}
	sim_buf b;
	sim_buf_init(&b);
	char why[200];
	rc = mem ? valid_open_framework(c, row, &o) : valid_open_layout(c, row, &o);
	if (rc == SIM_OK)
		rc = mem ? valid_memory_scenario(c, row, &o, &b, why, sizeof why)
		         : valid_row_scenario(c, row, &o, &b, why, sizeof why);
	valid_stacks_free(own);
	if (rc == SIM_ECONF)
		sim_diag_error(diag, path, 0, "row %s cannot be simulated: %s", id, why);
	else if (rc == SIM_OK)
		fprintf(out, "; scenario of row %s of %s (podsim validate --scenario)\n%s", id,
			path, b.data);
	sim_buf_free(&b);
	cases_csv_free(c);
	return rc;
}
