/* text.c - the human-readable report of one simulated step.
 *
 * Sections, in order: identity (scenario, model, GPU, cluster, plan, GPUs,
 * seed); headline metrics (step time with its error band, tokens/s, MFU,
 * HFU, TFLOP/s per GPU, bubble fraction, the band's validation cell and the
 * implausibility flag when set); the breakdown per rank class in seconds and % of the step,
 * showing only categories that are non-zero in some class (more than
 * TEXT_MAX_ROWS classes print the first and last TEXT_EDGE_ROWS and a
 * "... N more" line); memory per GPU by category for the most loaded class
 * with the plan's memory verdict (verdict.c: on a mixed cluster a line per
 * GPU type and the worst of them), and each class's total and verdict; the link classes, most loaded
 * first; on an oversubscribed fabric where different groups' transfers
 * slowed each other on its uplinks, what that cost (exec_uplinks); the
 * simulation's size and the run id.
 *
 * The output depends only on the result (never on wall time), so it is
 * deterministic and can be compared against golden files. Sizes print in
 * binary units (GiB), bandwidths through sim_unit_format.
 */
#include "report_int.h"

#include <math.h>
#include <string.h>

#define TEXT_MAX_ROWS 16  /* more classes than this are elided */
#define TEXT_EDGE_ROWS 4  /* rows kept at each end when eliding */
#define TEXT_NAME_MAX 40  /* widest name column */

static void fmt_bytes(double v, char *buf, size_t len)
{
	report_bytes_text(v, buf, len);
}

/* Decimal digits grouped by thousands: "254312" -> "254,312". */
static void group_digits(const char *digits, bool neg, char *buf, size_t len)
{
	char tmp[64];
	size_t nd = strlen(digits), o = 0;
	if (neg)
		tmp[o++] = '-';
	for (size_t i = 0; i < nd && o + 2 < sizeof tmp; i++) {
		if (i && (nd - i) % 3 == 0)
			tmp[o++] = ',';
		tmp[o++] = digits[i];
	}
	tmp[o] = '\0';
	size_t n = o < len ? o : len - 1; /* len > 0: callers pass their buffer */
	memcpy(buf, tmp, n);
	buf[n] = '\0';
}

/* A count rounded to an integer, grouped: "254,312". */
static void fmt_count(double v, char *buf, size_t len)
{
	char digits[32];
	if (!isfinite(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	snprintf(digits, sizeof digits, "%.0f", fabs(v));
	group_digits(digits, v < 0 && strcmp(digits, "0"), buf, len);
}

static void fmt_u64(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	group_digits(digits, false, buf, len);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static int name_width(const exec_result *r, int floor)
{
	int w = floor;
	for (int i = 0; i < r->nclasses; i++) {
		int n = (int)strlen(r->classes[i].name);
		w = n > w ? n : w;
	}
	return w < TEXT_NAME_MAX ? w : TEXT_NAME_MAX;
}

/* Whether class row i is printed; *gap is set on the first elided row. */
static bool row_shown(int n, int i, bool *gap)
{
	*gap = n > TEXT_MAX_ROWS && i == TEXT_EDGE_ROWS;
	return n <= TEXT_MAX_ROWS || i < TEXT_EDGE_ROWS || i >= n - TEXT_EDGE_ROWS;
}

static void header(FILE *out, const exec_result *r)
{
	fprintf(out, "podsim: %s\n", r->scenario);
	fprintf(out, "  %-17s %s\n", "model", r->model);
	fprintf(out, "  %-17s %s\n", "gpu", r->gpu);
	fprintf(out, "  %-17s %s\n", "cluster", r->cluster);
	fprintf(out, "  %-17s %s\n", "plan", r->plan);
	if (*r->layout)
		fprintf(out, "  %-17s %s\n", "layout", r->layout);
	fprintf(out, "  %-17s %d\n", "gpus", r->gpus);
	fprintf(out, "  %-17s %llu\n", "seed", (unsigned long long)r->seed);
}

void report_range_text(double lo, double hi, const char *unit, char *buf, size_t len)
{
	if (!(isfinite(lo) && isfinite(hi) && hi > 0)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	int dec = 2 - (int)floor(log10(hi)); /* three significant digits of hi */
	dec = dec < 0 ? 0 : dec > 9 ? 9 : dec;
	snprintf(buf, len, "%.*f-%.*f%s%s", dec, lo, dec, hi, *unit ? " " : "", unit);
}

bool report_has_band(const exec_result *r)
{
	return isfinite(r->band_lo_s) && isfinite(r->band_hi_s) && r->band_lo_s > 0 &&
	       r->band_hi_s >= r->band_lo_s;
}

void report_band_text(const exec_result *r, char *buf, size_t len)
{
	if (!report_has_band(r)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	double f = 1;
	const char *unit = "s";
	if (r->step_s < 1e-3)
		f = 1e6, unit = "us";
	else if (r->step_s < 1)
		f = 1e3, unit = "ms";
	char range[64];
	report_range_text(f * r->band_lo_s, f * r->band_hi_s, unit, range, sizeof range);
	snprintf(buf, len, "%s%s", *range ? "likely " : "", range);
}

bool report_has_spread(const exec_result *r)
{
	return r->spread.samples > 0 && isfinite(r->spread.p05_s) && isfinite(r->spread.p95_s);
}

void report_spread_text(const exec_result *r, char *buf, size_t len)
{
	const exec_step_spread *s = &r->spread;
	if (!report_has_spread(r)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	double f = 1;
	const char *unit = "s";
	if (r->step_s < 1e-3)
		f = 1e6, unit = "us";
	else if (r->step_s < 1)
		f = 1e3, unit = "ms";
	int dec = s->p95_s > 0 ? 3 - (int)floor(log10(f * s->p95_s)) : 3; /* 4 digits of p95 */
	dec = dec < 0 ? 0 : dec > 9 ? 9 : dec;
	snprintf(buf, len, "p5 %.*f %s, median %.*f %s, p95 %.*f %s (%+.1f%% over the step)", dec,
		 f * s->p05_s, unit, dec, f * s->p50_s, unit, dec, f * s->p95_s, unit,
		 r->step_s > 0 ? 100 * (s->p95_s / r->step_s - 1) : 0.0);
}

static void headline(FILE *out, const exec_result *r)
{
	char step[64], tok[48], band[96];
	sim_unit_format(r->step_s, SIM_UNIT_TIME, step, sizeof step);
	fmt_count(r->tokens_per_s, tok, sizeof tok);
	report_band_text(r, band, sizeof band);
	fprintf(out, "\nstep\n");
	fprintf(out, "  %-17s %s%s%s\n", "step time", step, *band ? ", " : "", band);
	if (report_has_spread(r)) {
		char sp[160];
		report_spread_text(r, sp, sizeof sp);
		fprintf(out, "  %-17s %s\n", "step spread", sp);
		char ci[64];
		report_range_text(r->spread.p95_lo_s, r->spread.p95_hi_s, "s", ci, sizeof ci);
		fprintf(out, "  %-17s measured collective spread, %d sampled steps (p95 within %s "
			     "at 95%% confidence), seed %llu, correlation %.2g (podsim explain)\n",
			"spread from", r->spread.samples, ci, (unsigned long long)r->spread.seed,
			r->spread.corr);
	}
	fprintf(out, "  %-17s %s\n", "tokens/s", tok);
	fprintf(out, "  %-17s %.1f%%\n", "MFU", 100.0 * r->mfu);
	fprintf(out, "  %-17s %.1f%%\n", "HFU", 100.0 * r->hfu);
	fprintf(out, "  %-17s %.1f\n", "TFLOP/s per GPU", r->tflops_per_gpu);
	fprintf(out, "  %-17s %.1f%%\n", "bubble fraction", 100.0 * r->bubble_fraction);
	if (r->band_from[0])
		fprintf(out, "  %-17s %s (podsim explain)\n", "error band from", r->band_from);
	if (r->implausible)
		fprintf(out, "  %-17s %s\n", "implausible", r->implausible_why);
}

static void breakdown_row(FILE *out, const exec_class *c, const bool used[], int w,
			  double step)
{
	double total = 0;
	fprintf(out, "  %-*.*s %6d", w, w, c->name, c->ranks);
	for (int k = 0; k < EXEC_CAT_COUNT; k++) {
		total += c->time_s[k];
		if (used[k])
			fprintf(out, " %8.4f %5.1f%%", c->time_s[k], pct(c->time_s[k], step));
	}
	fprintf(out, " %8.4f\n", total);
}

static void breakdown(FILE *out, const exec_result *r)
{
	bool used[EXEC_CAT_COUNT] = {false};
	for (int i = 0; i < r->nclasses; i++)
		for (int k = 0; k < EXEC_CAT_COUNT; k++)
			used[k] = used[k] || r->classes[i].time_s[k] != 0;
	int w = name_width(r, 5);
	fprintf(out, "\nbreakdown per rank class (seconds, %% of step)\n");
	fprintf(out, "  %-*s %6s", w, "class", "ranks");
	for (int k = 0; k < EXEC_CAT_COUNT; k++)
		if (used[k])
			fprintf(out, " %15s", exec_cat_name((exec_cat)k));
	fprintf(out, " %8s\n", "step");
	for (int i = 0; i < r->nclasses; i++) {
		bool gap;
		bool shown = row_shown(r->nclasses, i, &gap);
		if (gap)
			fprintf(out, "  ... %d more\n", r->nclasses - 2 * TEXT_EDGE_ROWS);
		if (shown)
			breakdown_row(out, &r->classes[i], used, w, r->step_s);
	}
}

static void memory_classes(FILE *out, const exec_result *r)
{
	int w = name_width(r, 5);
	char tot[32];
	fprintf(out, "  per class:\n");
	for (int i = 0; i < r->nclasses; i++) {
		bool gap;
		bool shown = row_shown(r->nclasses, i, &gap);
		if (gap)
			fprintf(out, "    ... %d more\n", r->nclasses - 2 * TEXT_EDGE_ROWS);
		if (!shown)
			continue;
		const exec_class *c = &r->classes[i];
		fmt_bytes(c->mem_total_bytes, tot, sizeof tot);
		char v[REPORT_MEM_TEXT];
		report_class_verdict(r, c, v, sizeof v);
		fprintf(out, "    %-*.*s %12s  %s\n", w, w, c->name, tot, v);
	}
}

/* An offloading tier, per node, when used. */
static void offloaded(FILE *out, const char *tier, double used, double cap)
{
	char a[32], b[32];
	if (!(used > 0))
		return;
	fmt_bytes(used, a, sizeof a);
	fmt_bytes(cap, b, sizeof b);
	fprintf(out, "  %s per node (offloaded states): %s of %s: %s\n", tier, a, b,
		used > cap ? "OOM" : "fits");
}

static void memory(FILE *out, const exec_result *r)
{
	char a[32];
	int worst = exec_mem_worst(r);
	if (worst >= 0) {
		const exec_class *c = &r->classes[worst];
		fprintf(out, "\nmemory per GPU (%s, the most loaded class)\n", c->name);
		for (int m = 0; m < PLAN_MEM_COUNT; m++) {
			fmt_bytes(c->mem_bytes[m], a, sizeof a);
			fprintf(out, "  %-17s %12s\n", plan_mem_name((plan_mem)m), a);
		}
		fmt_bytes(exec_class_allocated(c), a, sizeof a);
		fprintf(out, "  %-17s %12s  (PyTorch's max allocated)\n", "allocated", a);
		if (c->mem_logged_bytes > 0) {
			fmt_bytes(c->mem_logged_bytes, a, sizeof a);
			fprintf(out,
				"  %-17s %12s  (the framework's log: max allocated after its "
				"counters' reset past the backward)\n",
				"logged", a);
		}
		fmt_bytes(exec_class_reserved(c), a, sizeof a);
		fprintf(out, "  %-17s %12s  (+ the allocator's cache)\n", "reserved", a);
		fmt_bytes(c->mem_total_bytes, a, sizeof a);
		fprintf(out, "  %-17s %12s  (+ runtime: the device's view)\n", "total", a);
	} else {
		fprintf(out, "\nmemory per GPU\n");
	}
	/* the verdict (verdict.c): the GPU's line, other_gpu's, the plan's */
	report_mem_lines l;
	report_mem_verdict(r, &l);
	for (int i = 0; i < l.n; i++) {
		if (!strcmp(l.label[i], "verdict"))
			continue;
		if (l.label[i][0])
			fprintf(out, "  %-17s %s\n", l.label[i], l.text[i]);
		else
			fprintf(out, "  %s\n", l.text[i]);
	}
	offloaded(out, "host memory", r->host_bytes, r->host_capacity_bytes);
	offloaded(out, "NVMe", r->nvme_bytes, r->nvme_capacity_bytes);
	for (int i = 0; i < l.n; i++)
		if (!strcmp(l.label[i], "verdict"))
			fprintf(out, "  %-17s %s\n", l.label[i], l.text[i]);
	if (r->nclasses > 1)
		memory_classes(out, r);
}

/* Nodes of another GPU type: what they cost and where (exec_mixed). */
static void mixed(FILE *out, const exec_result *r)
{
	const exec_mixed *m = &r->mixed;
	if (m->nodes <= 0)
		return;
	char a[64], b[64], c[32], d[32], e[32];
	fprintf(out, "\nmixed GPU types\n");
	fprintf(out, "  %-17s %s on %d of %d nodes ([cluster] other_nodes), %s elsewhere\n",
		"other GPU", m->gpu, m->nodes, m->cluster_nodes, r->gpu);
	sim_unit_format(m->base_s, SIM_UNIT_TIME, a, sizeof a);
	sim_unit_format(m->step_s, SIM_UNIT_TIME, b, sizeof b);
	fprintf(out, "  %-17s %s with every node %s; %s with the mixed nodes (%+.1f%%)\n",
		"step", a, r->gpu, b, m->base_s > 0 ? 100 * (m->step_s / m->base_s - 1) : 0.0);
	fprintf(out, "  %-17s replica %d of %d (%d hold%s a mixed node; %d replayed, equal "
		     "ones once): the breakdown below is its\n",
		"slowest replica", m->replica, m->dp, m->replicas, m->replicas == 1 ? "s" : "",
		m->kinds);
	sim_unit_format(m->stage_s, SIM_UNIT_TIME, a, sizeof a);
	sim_unit_format(m->stage_base_s, SIM_UNIT_TIME, b, sizeof b);
	fprintf(out, "  %-17s stage %d: compute and optimizer tasks %s (%s on %s, x %.3f)\n",
		"slowest stage", m->stage, a, b, r->gpu,
		m->stage_base_s > 0 ? m->stage_s / m->stage_base_s : 0.0);
	fmt_bytes(m->mem_peak_bytes, c, sizeof c);
	fmt_bytes(m->mem_capacity_bytes, d, sizeof d);
	fmt_bytes(m->mem_needed_bytes, a, sizeof a);
	fmt_bytes(m->mem_needed_bytes - m->mem_capacity_bytes, e, sizeof e);
	if (m->mem_verdict == PLAN_VERDICT_OOM)
		fprintf(out,
			"  %-17s OOM on %s (stage %d): allocated + runtime %s over the capacity %s "
			"by %s\n",
			"memory", m->gpu, m->mem_stage, a, d, e);
	else
		fprintf(out, "  %-17s peak %s of %s on %s (stage %d): %s\n", "memory", c, d, m->gpu,
			m->mem_stage, plan_verdict_name(m->mem_verdict));
}

/* Link indices sorted by utilisation, highest first (stable on ties). */
static void link_order(const exec_result *r, int order[EXEC_MAX_LINKS])
{
	int n = r->nlinks < EXEC_MAX_LINKS ? r->nlinks : EXEC_MAX_LINKS;
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && r->links[order[j - 1]].util < r->links[i].util) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

static void links(FILE *out, const exec_result *r)
{
	int n = r->nlinks < EXEC_MAX_LINKS ? r->nlinks : EXEC_MAX_LINKS;
	if (n <= 0) {
		fprintf(out, "\nlinks: no inter-GPU traffic\n");
		return;
	}
	int order[EXEC_MAX_LINKS], w = 4;
	link_order(r, order);
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(r->links[i].name);
		w = len > w ? len : w;
	}
	w = w < TEXT_NAME_MAX ? w : TEXT_NAME_MAX;
	fprintf(out, "\nlinks, most loaded first\n");
	fprintf(out, "  %-*s %-8s %6s %12s %12s %7s %10s %10s  %s\n", w, "link", "kind", "count",
		"capacity", "carried", "util", "busy s", "saturated", "by");
	for (int i = 0; i < n; i++) {
		const exec_link *l = &r->links[order[i]];
		char cap[48], bytes[32];
		sim_unit_format(l->Bps, SIM_UNIT_BANDWIDTH, cap, sizeof cap);
		fmt_bytes(l->bytes, bytes, sizeof bytes);
		fprintf(out, "  %-*.*s %-8s %6d %12s %12s %6.1f%% %10.4f %10.4f  %s\n", w, w, l->name,
			l->kind, l->count, cap, bytes, 100.0 * l->util, l->busy_s, l->saturated_s,
			l->bytes > 0 && l->traffic[0] ? l->traffic : "-");
	}
}

/* "dp 10.1 ms, pp 2.2 ms" (with sign: "+0.92 ms") of the communication
 * categories where v is non-zero. */
static void cat_list(const double *v, bool sign, char *buf, size_t len)
{
	static const exec_cat comm[] = {EXEC_CAT_TP, EXEC_CAT_CP, EXEC_CAT_EP, EXEC_CAT_DP,
					EXEC_CAT_PP};
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof comm / sizeof comm[0] && used < len; i++) {
		double x = v[comm[i]];
		if (fabs(x) >= 1e-6) /* a microsecond or more */
			used += (size_t)snprintf(buf + used, len - used, "%s%s %s%.3g ms",
						 used ? ", " : "", exec_cat_name(comm[i]),
						 sign && x > 0 ? "+" : "", x * 1e3);
	}
	if (!used)
		snprintf(buf, len, "none");
}

/* The shared fabric uplinks (exec_uplinks), where they slowed a transfer:
 * the step against the step with the uplinks not shared, the rank class
 * whose transfers lost most, and what the step exposes more per group (the
 * most of any rank class, as the breakdown's readers compare). */
static void uplinks(FILE *out, const exec_result *r)
{
	const exec_uplinks *u = &r->uplinks;
	if (!exec_uplinks_slowed(u))
		return;
	const char *name = u->rank < r->nclasses ? r->classes[u->rank].name : "rank class";
	double lost = 0, more[EXEC_CAT_COUNT];
	for (int c = 0; c < EXEC_CAT_COUNT; c++) {
		lost += u->lost_s[c];
		more[c] = exec_cat_most(r, (exec_cat)c) - u->free_most_s[c];
	}
	char a[160], b[160];
	cat_list(u->lost_s, false, a, sizeof a);
	cat_list(more, true, b, sizeof b);
	fprintf(out, "\nshared fabric uplinks (oversubscription %.3g:1): groups' transfers at once "
		     "share a leaf's uplinks\n", u->oversub);
	char st[64], fr[64];
	sim_unit_format(r->step_s, SIM_UNIT_TIME, st, sizeof st);
	sim_unit_format(u->free_step_s, SIM_UNIT_TIME, fr, sizeof fr);
	fprintf(out, "  %-17s %s, %s with the uplinks not shared (%+.3g ms)\n", "step", st, fr,
		(r->step_s - u->free_step_s) * 1e3);
	fprintf(out, "  %-17s %s's transfers, %.3g ms beyond their NIC share: %s\n", "slowed", name,
		lost * 1e3, a);
	fprintf(out, "  %-17s %s (the most of any rank class, per group)\n", "exposed", b);
}

void report_text(FILE *out, const exec_result *r, int64_t run_id)
{
	header(out, r);
	headline(out, r);
	mixed(out, r);
	breakdown(out, r);
	memory(out, r);
	links(out, r);
	uplinks(out, r);
	char tasks[48], events[48];
	fmt_u64(r->tasks, tasks, sizeof tasks);
	fmt_u64(r->events, events, sizeof events);
	fprintf(out, "\nsimulated %s tasks, %s events\n", tasks, events);
	if (run_id > 0)
		fprintf(out, "run %lld\n", (long long)run_id);
	else
		fprintf(out, "not stored\n");
}
