/* summary.c - error statistics, Kendall's tau and the validate reports. */
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

/* Kendall's tau-b = (C - D) / sqrt((C + D + Tx)(C + D + Ty)) over all pairs,
 * where Tx (Ty) counts pairs tied only in x (y). O(n^2): rank groups are small. */
double valid_kendall_tau(const double *x, const double *y, size_t n)
{
	double conc = 0, disc = 0, tx = 0, ty = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double dx = x[i] - x[j], dy = y[i] - y[j];
			if (dx == 0 && dy == 0)
				continue;
			if (dx == 0)
				tx++;
			else if (dy == 0)
				ty++;
			else if ((dx > 0) == (dy > 0))
				conc++;
			else
				disc++;
		}
	double den = sqrt((conc + disc + tx) * (conc + disc + ty));
	return den > 0 ? (conc - disc) / den : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double valid_within(valid_kind kind)
{
	return kind == VALID_MEMORY ? 0.15 : 0.10;
}

const char *valid_verdict_name(plan_verdict v)
{
	return v == PLAN_VERDICT_OOM ? "oom" : plan_verdict_name(v);
}

/* Calls f for each rank group of source `name` (NULL: every source): the
 * simulated rows of completed runs sharing the source and rank_key, at least
 * 3 of them, with the group's first row, its size, its Kendall tau (NAN
 * when every pair ties) and its first choice's gap: the measured value of
 * the row predicted lowest (the first in file order where several tie) over
 * the group's lowest measured value, less 1 (0 when the pick is the best).
 * SIM_OK or SIM_ENOMEM. */
typedef void (*rank_fn)(void *arg, const valid_row *first, size_t n, double tau, double gap);

/* rank_fn's gap of the n pairs (measured x, predicted y). */
static double pick_gap(const double *x, const double *y, size_t n)
{
	size_t pick = 0, best = 0;
	for (size_t i = 1; i < n; i++) {
		pick = y[i] < y[pick] ? i : pick;
		best = x[i] < x[best] ? i : best;
	}
	return x[best] > 0 ? x[pick] / x[best] - 1 : NAN;
}

static int each_rank_group(const valid_report *r, const char *name, rank_fn f, void *arg)
{
	double *x = malloc((r->nrows ? r->nrows : 1) * sizeof *x);
	double *y = malloc((r->nrows ? r->nrows : 1) * sizeof *y);
	char *seen = calloc(r->nrows ? r->nrows : 1, 1);
	int rc = x && y && seen ? SIM_OK : SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < r->nrows; i++) {
		const valid_row *a = &r->rows[i];
		if (seen[i] || a->status != VALID_OK || a->oom_run || (name && strcmp(a->group, name)))
			continue;
		size_t n = 0;
		for (size_t j = i; j < r->nrows; j++) {
			const valid_row *b = &r->rows[j];
			if (b->status == VALID_OK && !b->oom_run && !strcmp(a->group, b->group) &&
			    !strcmp(a->rank_key, b->rank_key)) {
				seen[j] = 1;
				x[n] = b->measured;
				y[n++] = b->predicted;
			}
		}
		if (n >= 3)
			f(arg, a, n, valid_kendall_tau(x, y, n), pick_gap(x, y, n));
	}
	free(x), free(y), free(seen);
	return rc;
}

static void add_tau(void *arg, const valid_row *first, size_t n, double tau, double gap)
{
	valid_group *g = arg;
	if (!isnan(gap)) {
		g->pick_groups++;
		g->pick_within += gap <= VALID_PICK_WITHIN;
		if (isnan(g->pick_worst) || gap > g->pick_worst) {
			g->pick_worst = gap;
			snprintf(g->pick_worst_key, sizeof g->pick_worst_key, "%s", first->rank_key);
		}
	}
	if (isnan(tau))
		return;
	g->tau += tau;
	g->tau_groups++;
	g->tau_low += tau < VALID_TAU_AIM;
	if (isnan(g->tau_min) || tau < g->tau_min) {
		g->tau_min = tau;
		g->tau_min_rows = (int)n;
		snprintf(g->tau_min_key, sizeof g->tau_min_key, "%s", first->rank_key);
	}
}

/* No first choices counted in g. */
static void pick_none(valid_group *g)
{
	g->pick_groups = g->pick_within = 0;
	g->pick_worst = NAN;
	g->pick_worst_key[0] = 0;
}

/* No rank group counted yet (add_tau's start). */
static void tau_none(valid_group *g)
{
	g->tau = 0;
	g->tau_groups = g->tau_low = g->tau_min_rows = 0;
	g->tau_min = NAN;
	g->tau_min_key[0] = 0;
	pick_none(g);
}

/* Mean tau over the rank groups of `name`, and the lowest (none where the
 * walk ran out of memory). */
static void group_tau(const valid_report *r, const char *name, valid_group *g)
{
	tau_none(g);
	if (each_rank_group(r, name, add_tau, g) != SIM_OK)
		tau_none(g);
	g->tau = g->tau_groups ? g->tau / g->tau_groups : NAN;
	if (r->kind != VALID_RUNS) /* a first choice is a training plan's */
		pick_none(g);
}

static void group_stats(const valid_report *r, const char *name, valid_group *g)
{
	memset(g, 0, sizeof *g);
	snprintf(g->name, sizeof g->name, "%s", name ? name : "all");
	double *ape = malloc((r->nrows ? r->nrows : 1) * sizeof *ape);
	double sum = 0, signed_sum = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		if (name && strcmp(v->group, name))
			continue;
		g->rows++;
		if (v->status != VALID_OK) {
			g->skipped++;
			continue;
		}
		bool called = !strcmp(v->verdict, valid_verdict_name(PLAN_VERDICT_OOM));
		if (v->oom_run) { /* no peak to compare: its verdict only */
			g->oom_runs++;
			g->oom_called += called;
			continue;
		}
		g->fit_called_oom += called;
		double e = fabs(v->error);
		if (ape)
			ape[g->ok] = e;
		g->ok++;
		g->within += e <= valid_within(r->kind);
		sum += e;
		signed_sum += v->error;
		if (e >= fabs(g->worst)) {
			g->worst = v->error;
			snprintf(g->worst_id, sizeof g->worst_id, "%s", v->id);
		}
	}
	g->mape = g->ok ? sum / g->ok : NAN;
	g->bias = g->ok ? signed_sum / g->ok : NAN;
	if (ape && g->ok) {
		qsort(ape, (size_t)g->ok, sizeof *ape, cmp_double);
		g->median_ape = g->ok % 2 ? ape[g->ok / 2] : (ape[g->ok / 2 - 1] + ape[g->ok / 2]) / 2;
	} else {
		g->median_ape = NAN;
	}
	free(ape);
	group_tau(r, name, g);
}

void valid_summarize(valid_report *r)
{
	group_stats(r, NULL, &r->all);
	r->ngroups = 0;
	for (size_t i = 0; i < r->nrows && r->ngroups < VALID_MAX_GROUPS; i++) {
		bool known = false;
		for (int k = 0; k < r->ngroups; k++)
			known = known || !strcmp(r->groups[k].name, r->rows[i].group);
		if (!known)
			group_stats(r, r->rows[i].group, &r->groups[r->ngroups++]);
	}
	/* every source weighs once: the mean of the per-source figures */
	double m = 0, b = 0;
	r->nsources = 0;
	for (int k = 0; k < r->ngroups; k++)
		if (r->groups[k].ok > 0) {
			m += r->groups[k].mape;
			b += r->groups[k].bias;
			r->nsources++;
		}
	r->sources_mape = r->nsources ? m / r->nsources : NAN;
	r->sources_bias = r->nsources ? b / r->nsources : NAN;
}

/* A row's case as the 48-character column holds it: whole when it fits,
 * else the model's first words, " .. " and the rest from the GPUs on
 * ("256xa100-sxm4-80g tp8 pp1 dp32": the first word after the first that
 * is a count, 'x' and a name), the plan whole; without such a word its
 * last words that fit. Cutting the text at the column printed "dp3" for
 * dp 32. The JSON holds the whole. */
#define CASE_COL 48
static const char *case_cell(const char *what, char out[CASE_COL + 1])
{
	size_t n = strlen(what), sep = 4; /* " .. " */
	if (n <= CASE_COL)
		return what;
	size_t tail = 0; /* the rest: what + n - tail, from a word's start */
	for (const char *w = strchr(what, ' '); w && !tail; w = strchr(w + 1, ' ')) {
		const char *p = w + 1;
		while (isdigit((unsigned char)*p))
			p++;
		if (p > w + 1 && *p == 'x' && n - (size_t)(w + 1 - what) + sep <= CASE_COL)
			tail = n - (size_t)(w + 1 - what);
	}
	/* no GPU word: the most last words that fit */
	for (const char *w = strchr(what, ' '); w && !tail; w = strchr(w + 1, ' '))
		if (n - (size_t)(w + 1 - what) + sep <= CASE_COL)
			tail = n - (size_t)(w + 1 - what);
	size_t head = 0; /* the first words: what[0, head) */
	for (size_t i = 0; i < n - tail && i + sep + tail <= CASE_COL; i++)
		if (what[i] == ' ')
			head = i;
	if (!tail || !head) /* one word longer than the column: its start */
		snprintf(out, CASE_COL + 1, "%.*s..", CASE_COL - 2, what);
	else
		snprintf(out, CASE_COL + 1, "%.*s .. %s", (int)head, what, what + n - tail);
	return out;
}

static void print_row(FILE *out, const valid_row *v, bool assumed)
{
	char cell[CASE_COL + 1];
	const char *what = case_cell(v->what, cell);
	if (v->status == VALID_OK && v->oom_run && !isfinite(v->predicted)) /* a training row */
		fprintf(out, "%-18s %-48.48s %12s %12s %9s\n", v->id, what, "oom", "-", v->verdict);
	else if (v->status == VALID_OK && v->oom_run)
		fprintf(out, "%-18s %-48.48s %12s %12.6g %9s\n", v->id, what, "oom", v->predicted,
		        v->verdict);
	else if (v->status == VALID_OK)
		fprintf(out, "%-18s %-48.48s %12.6g %12.6g %+8.1f%%%s%s\n", v->id, what,
		        v->measured, v->predicted, 100 * v->error, *v->verdict ? " " : "", v->verdict);
	else
		fprintf(out, "%-18s %-48.48s skipped: %s\n", v->id, what, v->reason);
	if (assumed && v->assumed[0])
		fprintf(out, "%-18s assumed: %s\n", "", v->assumed);
}

static int by_abs_error(const void *a, const void *b)
{
	const valid_row *x = *(const valid_row *const *)a, *y = *(const valid_row *const *)b;
	double ex = fabs(x->error), ey = fabs(y->error);
	return (ex < ey) - (ex > ey);
}

static void print_group(FILE *out, const valid_group *g)
{
	fprintf(out, "%-34.34s %5d %5d %5d", g->name, g->rows, g->ok, g->skipped);
	if (g->ok)
		fprintf(out, " %7.1f%% %+7.1f%% %7.1f%% %+7.1f%% %-10s", 100 * g->mape,
			100 * g->bias, 100 * g->median_ape, 100 * g->worst, g->worst_id);
	else
		fprintf(out, " %8s %8s %8s %8s %-10s", "-", "-", "-", "-", "");
	if (g->tau_groups)
		fprintf(out, " %6.2f (%d)\n", g->tau, g->tau_groups);
	else
		fprintf(out, " %6s\n", "-");
}

/* Skip reasons with their counts, most frequent first (at most 12). */
static void print_reasons(FILE *out, const valid_report *r)
{
	const char *reason[12];
	int count[12], n = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		if (v->status == VALID_OK)
			continue;
		int k = 0;
		while (k < n && strcmp(reason[k], v->reason))
			k++;
		if (k == n && n < 12) {
			reason[n] = v->reason;
			count[n++] = 0;
		}
		if (k < n)
			count[k]++;
	}
	for (int i = 0; i < n; i++)
		fprintf(out, "  %5d  %s\n", count[i], reason[i]);
}

static void json_num(sim_buf *b, const char *key, double v, bool comma)
{
	if (isfinite(v))
		sim_buf_printf(b, "\"%s\":%.9g%s", key, v, comma ? "," : "");
	else
		sim_buf_printf(b, "\"%s\":null%s", key, comma ? "," : "");
}

/* A rank group's key (model|gpus|gpu, or a microbenchmark's kind|...) as
 * words: the fields joined by ", ". */
static void key_words(const char *key, char *out, size_t size)
{
	size_t k = 0;
	for (const char *c = key; *c && k + 3 < size; c++) {
		if (*c == '|') {
			out[k++] = ',';
			out[k++] = ' ';
		} else {
			out[k++] = *c;
		}
	}
	out[k] = 0;
}

/* The cells the simulated rows left open and took from their own text or a
 * documented default: each assumption that says "not published" counts its
 * cell (the assumption's first word) once per row, most counted first. */
enum { OPEN_NAMES = 32 };
typedef struct open_cells {
	int rows; /* simulated rows with at least one */
	int n;
	char name[OPEN_NAMES][24];
	int count[OPEN_NAMES];
} open_cells;

static void count_open(const valid_report *r, open_cells *o)
{
	memset(o, 0, sizeof *o);
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		if (v->status != VALID_OK)
			continue;
		bool any = false;
		char seen[OPEN_NAMES] = {0};
		for (const char *p = v->assumed; *p;) {
			size_t n = strcspn(p, ";");
			char part[256];
			snprintf(part, sizeof part, "%.*s", (int)(n < 255 ? n : 255), p);
			p += n + (p[n] == ';');
			p += strspn(p, " ");
			if (!strstr(part, "not published"))
				continue;
			char name[24];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(part, " "), part);
			int k = 0;
			while (k < o->n && strcmp(o->name[k], name))
				k++;
			if (k == o->n && o->n < OPEN_NAMES)
				snprintf(o->name[o->n++], sizeof o->name[0], "%s", name);
			if (k < o->n && !seen[k]) {
				seen[k] = 1;
				o->count[k]++;
			}
			any = true;
		}
		o->rows += any;
	}
	/* most counted first (a few names: insertion sort) */
	for (int i = 1; i < o->n; i++)
		for (int j = i; j > 0 && o->count[j] > o->count[j - 1]; j--) {
			char t[24];
			int c = o->count[j];
			memcpy(t, o->name[j], sizeof t);
			memcpy(o->name[j], o->name[j - 1], sizeof t);
			memcpy(o->name[j - 1], t, sizeof t);
			o->count[j] = o->count[j - 1];
			o->count[j - 1] = c;
		}
}

static void print_low(void *arg, const valid_row *first, size_t n, double tau, double gap)
{
	(void)gap;
	if (isnan(tau) || tau >= VALID_TAU_AIM)
		return;
	char key[200];
	key_words(first->rank_key, key, sizeof key);
	fprintf(arg, "  %-34.34s %-48.48s %4zu rows  tau %5.2f\n", first->group, key, n, tau);
}

/* The JSON array of rank groups: the buffer and the entries written. */
typedef struct json_ranks {
	sim_buf *b;
	int n;
	bool runs; /* training rows: each group's first choice too */
} json_ranks;

static void json_rank(void *arg, const valid_row *first, size_t n, double tau, double gap)
{
	json_ranks *j = arg;
	sim_buf *b = j->b;
	sim_buf_printf(b, "%s{\"source\":", j->n++ ? "," : "");
	sim_buf_json_string(b, first->group);
	sim_buf_printf(b, ",\"key\":");
	sim_buf_json_string(b, first->rank_key);
	sim_buf_printf(b, ",\"rows\":%zu,", n);
	json_num(b, "kendall_tau", tau, j->runs);
	if (j->runs)
		json_num(b, "first_choice_gap", gap, false);
	sim_buf_printf(b, "}");
}

void valid_print_text(FILE *out, const valid_report *r, bool all_rows)
{
	bool mem = r->kind == VALID_MEMORY;
	fprintf(out, "%-18s %-48s %12s %12s %9s\n", "id", "case", mem ? "measured_GiB" : "measured_s",
		mem ? "predicted_GiB" : "predicted_s", "error");
	const valid_row **worst = malloc((r->nrows ? r->nrows : 1) * sizeof *worst);
	size_t nw = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		if (all_rows)
			print_row(out, &r->rows[i], true);
		else if (worst && r->rows[i].status == VALID_OK && !r->rows[i].oom_run)
			worst[nw++] = &r->rows[i];
	}
	if (!all_rows && worst) {
		qsort(worst, nw, sizeof *worst, by_abs_error);
		for (size_t i = 0; i < nw && i < 10; i++)
			print_row(out, worst[i], false);
		if (nw > 10)
			fprintf(out, "(%zu more simulated rows; --rows prints every row)\n", nw - 10);
	}
	free(worst);
	if (r->all.skipped) {
		fprintf(out, "\nskipped rows by reason:\n");
		print_reasons(out, r);
	}
	fprintf(out, "\nvalidation of %s: %d rows, %d simulated, %d skipped\n", r->path, r->all.rows,
		r->all.ok, r->all.skipped);
	fprintf(out, "%-34s %5s %5s %5s %8s %8s %8s %8s %-10s %s\n", "source", "rows", "ok",
		"skip", "MAPE", "bias", "median", "worst", "(id)", "tau (groups)");
	for (int i = 0; i < r->ngroups; i++)
		print_group(out, &r->groups[i]);
	print_group(out, &r->all);
	if (r->all.tau_low > 0) {
		fprintf(out, "\nrank groups under Kendall's tau %.1f (a source's rows of one model on "
			"one GPU count, measured against predicted):\n", VALID_TAU_AIM);
		each_rank_group(r, NULL, print_low, out);
	}
	if (r->all.pick_groups > 0) {
		fprintf(out, "\nfirst choice within %.0f %% of the measured best (a rank group's row "
		        "predicted fastest, measured against its fastest measured row):\n",
		        100 * VALID_PICK_WITHIN);
		for (int i = 0; i < r->ngroups; i++) {
			const valid_group *g = &r->groups[i];
			if (!g->pick_groups)
				continue;
			char key[200];
			key_words(g->pick_worst_key, key, sizeof key);
			fprintf(out, "  %-34.34s %2d of %2d groups", g->name, g->pick_within,
			        g->pick_groups);
			if (g->pick_worst > VALID_PICK_WITHIN)
				fprintf(out, "; worst %+.1f %% (%s)", 100 * g->pick_worst, key);
			fprintf(out, "\n");
		}
	}
	if (r->all.oom_runs || (mem && r->all.fit_called_oom))
		fprintf(out, "\nout-of-memory runs: %d, called out of memory: %d; completed runs called "
		        "out of memory: %d of %d\n",
		        r->all.oom_runs, r->all.oom_called, r->all.fit_called_oom, r->all.ok);
	open_cells o;
	count_open(r, &o);
	if (o.rows) {
		fprintf(out, "\ncells the sources leave open (not published: from the row's text or "
		        "a documented default, each said on its row): %d of %d simulated rows;",
		        o.rows, r->all.ok);
		for (int i = 0; i < o.n; i++)
			fprintf(out, "%s %s %d", i ? "," : "", o.name[i], o.count[i]);
		fprintf(out, "\n");
	}
	if (r->nsources > 0)
		fprintf(out, "\nper source (each weighs once, %d sources): MAPE %.1f%%, mean signed "
			"error %+.1f%%; over all rows: MAPE %.1f%%, %d of %d within %.0f%%\n",
			r->nsources, 100 * r->sources_mape, 100 * r->sources_bias, 100 * r->all.mape,
			r->all.within, r->all.ok, 100 * valid_within(r->kind));
}

static void json_group(sim_buf *b, const valid_group *g)
{
	sim_buf_printf(b, "{\"name\":");
	sim_buf_json_string(b, g->name);
	sim_buf_printf(b, ",\"count\":%d,\"ok\":%d,\"skipped\":%d,", g->rows, g->ok, g->skipped);
	json_num(b, "mape", g->ok ? g->mape : NAN, true);
	json_num(b, "mean_signed_error", g->ok ? g->bias : NAN, true);
	json_num(b, "median_ape", g->ok ? g->median_ape : NAN, true);
	sim_buf_printf(b, "\"within\":%d,", g->within);
	json_num(b, "worst_error", g->ok ? g->worst : NAN, true);
	sim_buf_printf(b, "\"worst_id\":");
	sim_buf_json_string(b, g->worst_id);
	sim_buf_printf(b, ",");
	json_num(b, "kendall_tau", g->tau, true);
	json_num(b, "kendall_tau_min", g->tau_min, true);
	sim_buf_printf(b, "\"kendall_tau_min_key\":");
	sim_buf_json_string(b, g->tau_min_key);
	sim_buf_printf(b, ",\"tau_groups\":%d,\"tau_groups_under_aim\":%d,\"oom_runs\":%d,"
	               "\"oom_called\":%d,\"fit_called_oom\":%d,\"first_choice_groups\":%d,"
	               "\"first_choice_within\":%d,",
	               g->tau_groups, g->tau_low, g->oom_runs, g->oom_called, g->fit_called_oom,
	               g->pick_groups, g->pick_within);
	json_num(b, "first_choice_worst_gap", g->pick_worst, true);
	sim_buf_printf(b, "\"first_choice_worst_key\":");
	sim_buf_json_string(b, g->pick_worst_key);
	sim_buf_printf(b, "}");
}

void valid_print_json(FILE *out, const valid_report *r)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "{\"file\":");
	sim_buf_json_string(&b, r->path);
	sim_buf_printf(&b, ",\"rows\":[");
	for (size_t i = 0; i < r->nrows; i++) {
		const valid_row *v = &r->rows[i];
		sim_buf_printf(&b, "%s{\"id\":", i ? "," : "");
		sim_buf_json_string(&b, v->id);
		sim_buf_printf(&b, ",\"group\":");
		sim_buf_json_string(&b, v->group);
		sim_buf_printf(&b, ",\"case\":");
		sim_buf_json_string(&b, v->what);
		sim_buf_printf(&b, ",\"status\":\"%s\",", v->status == VALID_OK ? "ok" : "skipped");
		bool ok = v->status == VALID_OK;
		bool mem = r->kind == VALID_MEMORY;
		json_num(&b, mem ? "measured_gib" : "measured_iter_s", v->measured > 0 ? v->measured : NAN,
			 true);
		json_num(&b, mem ? "predicted_gib" : "predicted_iter_s", ok ? v->predicted : NAN, true);
		json_num(&b, "error", ok && !v->oom_run ? v->error : NAN, true);
		if (mem || *v->verdict) {
			sim_buf_printf(&b, "\"verdict\":");
			sim_buf_json_string(&b, v->verdict);
			sim_buf_printf(&b, ",");
		}
		if (mem || v->oom_run)
			sim_buf_printf(&b, "\"oom_run\":%s,", v->oom_run ? "true" : "false");
		sim_buf_printf(&b, "\"reason\":");
		sim_buf_json_string(&b, ok ? "" : v->reason);
		sim_buf_printf(&b, ",\"assumed\":");
		sim_buf_json_string(&b, v->assumed);
		sim_buf_printf(&b, "}");
	}
	sim_buf_printf(&b, "],\"summary\":{");
	json_num(&b, "sources_mape", r->nsources ? r->sources_mape : NAN, true);
	json_num(&b, "sources_mean_signed_error", r->nsources ? r->sources_bias : NAN, true);
	sim_buf_printf(&b, "\"sources\":%d,\"all\":", r->nsources);
	json_group(&b, &r->all);
	sim_buf_printf(&b, ",\"groups\":[");
	for (int i = 0; i < r->ngroups; i++) {
		sim_buf_printf(&b, "%s", i ? "," : "");
		json_group(&b, &r->groups[i]);
	}
	open_cells o;
	count_open(r, &o);
	sim_buf_printf(&b, "],\"open_rows\":%d,\"open_cells\":{", o.rows);
	for (int i = 0; i < o.n; i++) {
		sim_buf_printf(&b, "%s", i ? "," : "");
		sim_buf_json_string(&b, o.name[i]);
		sim_buf_printf(&b, ":%d", o.count[i]);
	}
	sim_buf_printf(&b, "}");
	sim_buf_printf(&b, ",\"within_threshold\":%.9g,\"tau_aim\":%.9g,\"rank_groups\":[",
		       valid_within(r->kind), VALID_TAU_AIM);
	json_ranks jr = {&b, 0, r->kind == VALID_RUNS};
	each_rank_group(r, NULL, json_rank, &jr);
	sim_buf_printf(&b, "]}}\n");
	fputs(b.oom ? "{\"error\":\"out of memory\"}\n" : b.data, out);
	sim_buf_free(&b);
}
