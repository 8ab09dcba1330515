/* sweep_out.c - what `podsim sweep` prints (sweep.c drives): the ranked
 * table, the search and pruning lines, the JSON document, the train-to-D
 * figures and the HTML page's points, from the simulated rows (sweep_out.h). */
#include "sweep_out.h"
#include "explain_int.h"

#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Why row i is risky: its tail against the better one's, the tails over
 * the medians, and the exposed communication per group that makes them. */
void cli_sweep_risky_why(const sim_row *rows, size_t i, char *buf, size_t len)
{
	const sim_row *a = &rows[i];
	long j = a->risky_vs;
	if (j < 0) {
		snprintf(buf, len, "%s", "");
		return;
	}
	const sim_row *b = &rows[j];
	const exec_step_spread *x = &a->r->spread, *y = &b->r->spread;
	char ea[96], eb[96];
	/* "tp 3.21, dp 2.35 s" */
	static const exec_cat cats[] = {EXEC_CAT_TP, EXEC_CAT_CP, EXEC_CAT_EP, EXEC_CAT_DP,
	                                EXEC_CAT_PP};
	cli_exposed_text(a->r, cats, sizeof cats / sizeof cats[0], false, ea, sizeof ea);
	cli_exposed_text(b->r, cats, sizeof cats / sizeof cats[0], false, eb, sizeof eb);
	snprintf(buf, len,
	         "p95 %.4g s (at least %.4g) is above rank %ld's %.4g s (at most %.4g), whose "
	         "median is no better (%.4g s against %.4g s); its tail is %+.1f%% over its "
	         "median against %+.1f%%, exposed communication %s against %s",
	         x->p95_s, x->p95_lo_s, j + 1, y->p95_s, y->p95_hi_s, y->p50_s, x->p50_s,
	         100 * (x->p95_s / x->p50_s - 1), 100 * (y->p95_s / y->p50_s - 1), ea, eb);
}

static bool any_spread(const sim_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (report_has_spread(rows[i].r))
			return true;
	return false;
}

/* ---------------------------------------------------------------- output -- */

void cli_sweep_settings(const sweep_space *sp, const sweep_plan *p, char *buf, size_t len)
{
	char sets[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	size_t n = sweep_plan_sets(sp, p, sets), used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *dot = strchr(sets[i], '.');
		if (!strncmp(sets[i], "topology=", 9)) { /* the file's name: topology=dgx-h100 */
			const char *slash = strrchr(sets[i], '/');
			size_t k = strlen(slash ? slash + 1 : sets[i] + 9);
			bool ini = k > 4 && !strcmp(sets[i] + strlen(sets[i]) - 4, ".ini");
			used += (size_t)snprintf(buf + used, len - used, "%stopology=%.*s",
			                         i ? " " : "", (int)(ini ? k - 4 : k),
			                         slash ? slash + 1 : sets[i] + 9);
			continue;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
		                         dot ? dot + 1 : sets[i]);
	}
}

/* No plan fits: the nearest, its need against the capacity, and its cuts
 * (explain_memory prints the same list for a plan run alone). */
static void print_nearest(const sweep_space *sp, const sweep_nearest *nf)
{
	if (!nf->has)
		return;
	char set[512], a[48], b[48], c[48];
	cli_sweep_settings(sp, nf->plan, set, sizeof set);
	printf("\nno plan fits in memory; the nearest: %s\n", set);
	if (nf->basis.stage >= 0)
		printf("  its stage %d needs %s (allocated + runtime) of the %s's %s, %.0f%%; "
		       "device %s with the allocator's cache\n",
		       nf->basis.stage, explain_gib(nf->basis.need, a, sizeof a), nf->basis.tier,
		       explain_gib(nf->basis.capacity, b, sizeof b), 100 * nf->basis.need / nf->basis.capacity,
		       explain_gib(nf->basis.device, c, sizeof c));
	else
		printf("  the offloaded states of a node's ranks need %s of its %s, %s: more "
		       "nodes for the same states, or the other offload tier\n",
		       explain_gib(nf->basis.need, a, sizeof a), nf->basis.tier,
		       explain_gib(nf->basis.capacity, b, sizeof b));
	if (nf->basis.stage >= 0 && nf->ncuts == 0)
		printf("  none of recompute = full, a higher ZeRO stage, a smaller micro-batch or "
		       "optimizer offloading applies to it: more GPUs or a smaller model\n");
	if (nf->ncuts > 0)
		printf("  cut first (each change alone on that plan: what it saves of the stage's "
		       "demand, and the device after; podsim explain lists every term):\n");
	for (int i = 0; i < nf->ncuts; i++)
		printf("    %-44s -%-10s %s -> %s (%s)\n", nf->cut[i].what,
		       explain_gib(nf->cut[i].saved, a, sizeof a), nf->cut[i].term,
		       explain_gib(nf->cut[i].device, b, sizeof b),
		       plan_verdict_name(nf->cut[i].verdict));
	if (nf->basis.stage >= 0 && (nf->fix.found || nf->ncuts > 0))
		cli_remedy_print(stdout, &nf->fix);
}

/* The search line: what was simulated and whether the answer is exact. */
static void print_search(const search_info *q, size_t n)
{
	if (!q->exact) {
		printf("search: the pre-screen's best %zu (--top, or the sweep file's top): the "
		       "closed form may rank the best plan past them; without either the search is "
		       "exact\n",
		       q->first);
	} else if (q->proven) {
		printf("search: exact: %zu simulated (the pre-screen's best %zu, then every plan whose "
		       "lower bound is under their best, %.4f s); no other plan can be faster\n",
		       n, q->first, q->threshold);
	} else {
		printf("search: not proven: %zu plans whose lower bound is under %.4f s were left "
		       "out (--max-sims, or stopped)\n",
		       q->left, q->threshold);
	}
}

/* Why each plan after the first loses to it: its step minus rank 1's,
 * term by term on the stage that sets each step (exec_step_diff). */
static void print_loses(const sim_row *rows, size_t n)
{
	if (n < 2)
		return;
	const exec_result *b = rows[0].r;
	int kb = rows[1].loses.class_b;
	printf("\nloses to rank 1 by = its step minus rank 1's, split over the breakdown of the "
	       "stage that sets each step (the one idling least: rank 1's %s; tp, cp, ep, dp, "
	       "pp = exposed communication), largest first; podsim compare on the two stored "
	       "runs prints the same\n",
	       kb >= 0 ? b->classes[kb].name : "-");
	for (size_t i = 1; i < n; i++) {
		const exec_step_diff *d = &rows[i].loses;
		char text[512];
		cli_step_diff_text(d, text, sizeof text);
		printf("  rank %zu: %s", i + 1, text);
		if (d->class_a >= 0 && d->class_a != kb)
			printf(" (its %s)", rows[i].r->classes[d->class_a].name);
		putchar('\n');
	}
}

/* The first of the ranked rows that fits with headroom (its memory column
 * "fits", not "tight"), or -1 where every simulated plan is tight. */
static long fastest_fits(const sim_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].plan->est.mem_verdict != PLAN_VERDICT_TIGHT)
			return (long)i;
	return -1;
}

/* Rank 1 tight: the plan a planner books where no headroom is wanted is
 * the fastest that fits; say which, and what it costs. */
static void print_tight_first(const sweep_space *sp, const sim_row *rows, size_t n)
{
	if (n == 0 || rows[0].plan->est.mem_verdict != PLAN_VERDICT_TIGHT)
		return;
	long k = fastest_fits(rows, n);
	printf("tight = under 10 %% of the GPU's memory left on the device (allocated, the "
	       "allocator's cache and the runtime): it runs, the cache giving way, with nothing "
	       "spare for fragmentation, a longer sequence or another library's buffers; ");
	if (k < 0) {
		printf("every simulated plan is tight\n");
		return;
	}
	char set[512];
	cli_sweep_settings(sp, rows[k].plan, set, sizeof set);
	printf("rank 1 is tight, and the fastest plan that fits is rank %ld, %+.1f%% (%.4f s, "
	       "%.1f GiB free): %s\n",
	       k + 1, 100 * (rows[k].r->step_s / rows[0].r->step_s - 1), rows[k].r->step_s,
	       exec_mem_headroom(rows[k].r) / 1073741824.0, set);
}

/* The ranked table of the n rows and its legends. */
static void print_table(const sweep_space *sp, const sim_row *rows, size_t n, const char *fit_weak)
{
	printf("\n");
	bool spread = any_spread(rows, n);
	printf("%4s %6s %10s %-13s ", "rank", "run", "step (s)", "likely (s)");
	if (spread)
		printf("%10s %11s ", "p50 (s)", "p95 (s)");
	printf("%10s %11s %7s %9s %6s %7s %9s %9s %9s %2s  %s\n", "est (s)", "tokens/s", "MFU",
	       "free GiB", "memory", "bubble", "comm (s)", "$/step", "kJ/step", "P", "plan");
	bool any_implausible = false;
	for (size_t i = 0; i < n; i++) {
		const exec_result *r = rows[i].r;
		char set[512], band[48], mfu[16];
		cli_sweep_settings(sp, rows[i].plan, set, sizeof set);
		report_range_text(r->band_lo_s, r->band_hi_s, "", band, sizeof band);
		snprintf(mfu, sizeof mfu, "%.1f%%%s", 100 * r->mfu, r->implausible ? "!" : "");
		any_implausible = any_implausible || r->implausible;
		printf("%4zu %6lld %10.4f %-13s ", i + 1, (long long)rows[i].run_id, r->step_s,
		       *band ? band : "-");
		if (spread && report_has_spread(r))
			printf("%10.4f %10.4f%s ", r->spread.p50_s, r->spread.p95_s,
			       rows[i].risky_vs >= 0 ? "~" : " ");
		else if (spread)
			printf("%10s %11s ", "-", "-");
		printf("%10.4f %11.0f %7s %9.1f %6s %6.1f%% %9.4f %9.4f %9.2f %2s  %s\n",
		       rows[i].plan->est.step_s, r->tokens_per_s, mfu,
		       exec_mem_headroom(r) / 1073741824.0, /* on the verdict's GPU */
		       rows[i].plan->est.mem_verdict == PLAN_VERDICT_TIGHT ? "tight" : "fits",
		       100 * r->bubble_fraction, rows[i].exposed_s, rows[i].cost.cost_usd,
		       rows[i].cost.energy_j / 1e3, rows[i].pareto ? "*" : "", set);
	}
	printf("\n* = Pareto front of (step time, GPUs, cost per step)\n");
	print_tight_first(sp, rows, n);
	if (n > 0 && rows[0].r->band_from[0])
		printf("likely = the measured step's likely range, from the validation residuals of "
		       "the plan's nearest sources (rank 1: %s; podsim explain)\n",
		       rows[0].r->band_from);
	for (size_t i = 0; any_implausible && i < n; i++)
		if (rows[i].r->implausible) {
			printf("! = implausible (rank %zu: %s)\n", i + 1, rows[i].r->implausible_why);
			break;
		}
	if (spread)
		printf("p50, p95 = the step's median and 95th percentile over %d replays with sampled "
		       "collective times (the cluster's measured spread, seed %llu, correlation "
		       "%.2g; podsim explain)\n",
		       rows[0].r->spread.samples, (unsigned long long)rows[0].r->spread.seed,
		       rows[0].r->spread.corr);
	for (size_t i = 0; spread && i < n; i++) {
		char why[REPORT_WHY_MAX];
		cli_sweep_risky_why(rows, i, why, sizeof why);
		if (*why)
			printf("~ = risky: rank %zu's %s\n", i + 1, why);
	}
	if (fit_weak && *fit_weak)
		printf("fit = the base scenario's cluster was calibrated on rows that leave %s "
		       "weakly determined ([cluster] fit_weak): the plans whose steps rest on small "
		       "calls across nodes (TP across nodes, pipeline sends, many buckets at scale) "
		       "are the least certain (podsim explain)\n",
		       fit_weak);
	print_loses(rows, n);
}

void cli_sweep_print_text(const sweep_space *sp, const sweep_screen_result *sr, const sim_row *rows,
                       size_t n, double tau, int64_t sweep_id, int shard, int nshards,
                       const search_info *q, const sweep_nearest *nf, const char *fit_weak)
{
	if (sweep_id > 0)
		printf("sweep %lld: ", (long long)sweep_id);
	if (nshards > 0)
		printf("shard %d/%d: ", shard, nshards);
	printf("%llu plans, %llu valid, %llu fit in memory, %zu simulated\n",
	       (unsigned long long)sr->nplans, (unsigned long long)sr->valid,
	       (unsigned long long)sr->fitting, n);
	if (sr->fitting > 0)
		print_search(q, n);
	printf("pre-screen: %.0f plans/s", sr->wall_s > 0 ? (double)sr->nplans / sr->wall_s : 0);
	if (n >= 2)
		printf("; Kendall tau (pre-screen vs simulated, %zu plans): %.3f", n, tau);
	printf("\n");
	if (n > 0)
		print_table(sp, rows, n, fit_weak);
	if (sr->nplans > sr->fitting) {
		/* Counted by the message with its numbers as '#'; the first plan's
		 * own message is printed, numbers and all. */
		printf("\npruned (plans, and the reason of the first of them):\n");
		for (int i = 0; i < sr->nreasons; i++)
			printf("  %8llu  %s%s\n", (unsigned long long)sr->reason_count[i],
			       strcmp(sr->reasons[i], "other reasons") ? "" : "other reasons, e.g. ",
			       sr->examples[i][0] ? sr->examples[i] : sr->reasons[i]);
	}
	print_nearest(sp, nf);
}

static void json_str(const char *s)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_json_string(&b, s);
	fputs(b.oom || !b.data ? "\"\"" : b.data, stdout);
	sim_buf_free(&b);
}

/* Why plan i loses to rank 1 (exec_step_diff): null for rank 1. */
static void json_loses(const sim_row *rows, size_t i)
{
	const exec_step_diff *d = &rows[i].loses;
	if (i == 0 || d->class_a < 0 || d->class_b < 0) {
		printf(",\"loses\":null");
		return;
	}
	printf(",\"loses\":{\"step_s\":%.9g,\"class\":", d->step_s);
	json_str(rows[i].r->classes[d->class_a].name);
	printf(",\"best_class\":");
	json_str(rows[0].r->classes[d->class_b].name);
	printf(",\"terms_s\":{");
	for (int c = 0; c < EXEC_CAT_COUNT; c++)
		printf("%s\"%s\":%.9g", c ? "," : "", exec_cat_name((exec_cat)c), d->cat_s[c]);
	printf("},\"largest\":");
	if (d->largest >= 0)
		printf("\"%s\"}", exec_cat_name((exec_cat)d->largest));
	else
		printf("null}");
}

/* A plan's settings as a JSON object {"parallel.tp":"2", ...}. */
static void json_settings(const sweep_space *sp, const sweep_plan *p)
{
	char sets[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	size_t n = sweep_plan_sets(sp, p, sets);
	putchar('{');
	for (size_t k = 0; k < n; k++) {
		char *eq = strchr(sets[k], '=');
		*eq = '\0';
		printf("%s", k ? "," : "");
		json_str(sets[k]);
		putchar(':');
		json_str(eq + 1);
	}
	putchar('}');
}

/* Plan i of the ranked rows (rank i + 1). */
static void json_plan(const sweep_space *sp, const sim_row *rows, size_t i)
{
	const sim_row *row = &rows[i];
	size_t rank = i + 1;
	const exec_result *r = row->r;
	const sweep_estimate *e = &row->plan->est;
	printf("{\"rank\":%zu,\"run_id\":%lld,\"index\":%llu,\"settings\":", rank,
	       (long long)row->run_id, (unsigned long long)row->plan->index);
	json_settings(sp, row->plan);
	printf(",\"plan\":");
	json_str(r->plan);
	if (report_has_band(r))
		printf(",\"step_band_s\":[%.9g,%.9g]", r->band_lo_s, r->band_hi_s);
	else
		printf(",\"step_band_s\":null");
	printf(",\"implausible\":%s,\"implausible_reason\":", r->implausible ? "true" : "false");
	if (r->implausible)
		json_str(r->implausible_why);
	else
		printf("null");
	if (report_has_spread(r)) { /* only where sampled: other sweeps print as before */
		char why[REPORT_WHY_MAX];
		cli_sweep_risky_why(rows, i, why, sizeof why);
		printf(",\"step_spread\":{\"p05_s\":%.9g,\"p50_s\":%.9g,\"p95_s\":%.9g,"
		       "\"samples\":%d},\"risky\":%s,\"risky_reason\":",
		       r->spread.p05_s, r->spread.p50_s, r->spread.p95_s, r->spread.samples,
		       *why ? "true" : "false");
		if (*why)
			json_str(why);
		else
			printf("null");
	}
	printf(",\"gpus\":%d,\"step_s\":%.9g,\"tokens_per_s\":%.9g,\"mfu\":%.6g,"
	       "\"mem_headroom_bytes\":%.9g,\"mem_verdict\":\"%s\",\"bubble_fraction\":%.6g,"
	       "\"exposed_comm_s\":%.9g,"
	       "\"cost_per_step_usd\":%.9g,\"energy_per_step_j\":%.9g,\"busy\":%.6g,"
	       "\"pareto\":%s,\"prescreen\":{\"step_s\":%.9g,\"compute_s\":%.9g,"
	       "\"bubble_s\":%.9g,\"tp_s\":%.9g,\"pp_s\":%.9g,\"dp_s\":%.9g,"
	       "\"optimizer_s\":%.9g,\"bound_s\":%.9g,\"mem_peak_bytes\":%.9g}",
	       r->gpus, r->step_s, r->tokens_per_s, r->mfu,
	       exec_mem_headroom(r), plan_verdict_name(e->mem_verdict),
	       r->bubble_fraction, row->exposed_s, row->cost.cost_usd, row->cost.energy_j, row->cost.busy,
	       row->pareto ? "true" : "false", e->step_s, e->compute_s, e->bubble_s, e->tp_s,
	       e->pp_s, e->dp_s, e->optimizer_s, e->bound_s, e->mem_peak_bytes);
	if (row->has_days) /* only with a [campaign]: other sweeps print as before */
		printf(",\"campaign_expected_days\":%.9g", row->days);
	json_loses(rows, i);
	printf("}");
}

/* The best plan's band as factors of its step time, [lo, hi] (NaN without). */
static void band_factors(const exec_result *r, double *lo, double *hi)
{
	bool ok = report_has_band(r) && r->step_s > 0;
	*lo = ok ? r->band_lo_s / r->step_s : NAN;
	*hi = ok ? r->band_hi_s / r->step_s : NAN;
}

/* The sweep's dimensions and their values: "space":[{key, values}...]. */
static void json_space(const sweep_space *sp)
{
	printf("\"space\":[");
	for (size_t d = 0; d < sweep_space_ndims(sp); d++) {
		printf("%s{\"key\":", d ? "," : "");
		json_str(sweep_space_key(sp, d));
		printf(",\"values\":[");
		for (size_t j = 0; j < sweep_space_nvalues(sp, d); j++) {
			printf("%s", j ? "," : "");
			json_str(sweep_space_value(sp, d, j));
		}
		printf("]}");
	}
	printf("]");
}

/* The plans set aside, counted per reason, and an example of each. */
static void json_pruned(const sweep_screen_result *sr)
{
	printf(",\"pruned\":{");
	for (int i = 0; i < sr->nreasons; i++) {
		printf("%s", i ? "," : "");
		json_str(sr->reasons[i]);
		printf(":%llu", (unsigned long long)sr->reason_count[i]);
	}
	printf("},\"pruned_examples\":{");
	for (int i = 0; i < sr->nreasons; i++) {
		printf("%s", i ? "," : "");
		json_str(sr->reasons[i]);
		putchar(':');
		json_str(sr->examples[i]);
	}
	printf("}");
}

/* Where nothing fits: the nearest plan and the cuts that would make it fit. */
static void json_nearest(const sweep_space *sp, const sweep_nearest *nf)
{
	printf(",\"nearest_no_fit\":{\"index\":%llu,\"settings\":",
	       (unsigned long long)nf->plan->index);
	json_settings(sp, nf->plan);
	printf(",\"tier\":");
	json_str(nf->basis.tier);
	printf(",\"stage\":%d,\"need_bytes\":%.9g,\"device_bytes\":%.9g,"
	       "\"capacity_bytes\":%.9g,\"cuts\":[",
	       nf->basis.stage, nf->basis.need, nf->basis.device, nf->basis.capacity);
	for (int j = 0; j < nf->ncuts; j++) {
		printf("%s{\"change\":", j ? "," : "");
		json_str(nf->cut[j].what);
		printf(",\"term\":");
		json_str(nf->cut[j].term);
		printf(",\"saved_bytes\":%.9g,\"device_bytes\":%.9g,\"verdict\":\"%s\"}",
		       nf->cut[j].saved, nf->cut[j].device, plan_verdict_name(nf->cut[j].verdict));
	}
	printf("]");
	if (nf->basis.stage >= 0) {
		sim_buf b;
		sim_buf_init(&b);
		sim_buf_append(&b, ",", 1);
		cli_remedy_json(&b, &nf->fix);
		if (!b.oom)
			fwrite(b.data, 1, b.len, stdout);
		sim_buf_free(&b);
	}
	printf("}");
}

/* --train-tokens: the best plan's whole run, its band from the best row's. */
static void json_train(const sweep_train *t, const sim_row *best)
{
	printf(",\"train\":{\"tokens\":%.9g,\"steps\":%.9g,\"time_s\":%.9g,"
	       "\"gpu_hours\":%.9g,\"energy_kwh\":%.9g,\"energy_tdp_kwh\":%.9g,"
	       "\"cost_usd\":%.9g,\"tco2\":%.9g,\"tco2_tdp\":%.9g,\"flops_6pd\":%.9g,"
	       "\"step_factor\":%.9g",
	       t->tokens, t->steps, t->time_s, t->gpu_hours, t->energy_kwh, t->energy_tdp_kwh,
	       t->cost_usd, t->tco2, t->tco2_tdp, t->flops_6pd, t->step_factor);
	double lo, hi;
	band_factors(best->r, &lo, &hi);
	if (isfinite(lo) && isfinite(hi))
		printf(",\"time_band_s\":[%.9g,%.9g],\"cost_band_usd\":[%.9g,%.9g]",
		       lo * t->time_s, hi * t->time_s, lo * t->cost_usd, hi * t->cost_usd);
	else
		printf(",\"time_band_s\":null,\"cost_band_usd\":null");
	printf("}");
}

void cli_sweep_print_json(const sweep_space *sp, const sweep_screen_result *sr, const sim_row *rows,
                       size_t n, double tau, int64_t sweep_id, const sweep_train *t,
                       const search_info *q, const sweep_nearest *nf)
{
	printf("{\"sweep_id\":%lld,", (long long)sweep_id);
	json_space(sp);
	printf(",\"dp_derived\":%s,\"plans_total\":%llu,\"valid\":%llu,\"fitting\":%llu,"
	       "\"simulated\":%zu,\"prescreen_s\":%.6g,\"prescreen_plans_per_s\":%.6g,"
	       "\"kendall_tau\":",
	       sweep_space_derives_dp(sp) ? "true" : "false", (unsigned long long)sr->nplans,
	       (unsigned long long)sr->valid, (unsigned long long)sr->fitting, n, sr->wall_s,
	       sr->wall_s > 0 ? (double)sr->nplans / sr->wall_s : 0);
	if (isnan(tau))
		printf("null");
	else
		printf("%.6g", tau);
	printf(",\"search\":{\"exact\":%s,\"proven\":%s,\"first_round\":%zu,"
	       "\"threshold_s\":",
	       q->exact ? "true" : "false", q->exact && q->proven ? "true" : "false", q->first);
	if (q->exact && isfinite(q->threshold))
		printf("%.9g", q->threshold);
	else
		printf("null");
	printf(",\"left_out\":%zu}", q->left);
	printf(",\"plans\":[");
	for (size_t i = 0; i < n; i++) {
		printf("%s", i ? "," : "");
		json_plan(sp, rows, i);
	}
	printf("]");
	long k = fastest_fits(rows, n);
	if (k >= 0)
		printf(",\"fastest_fits_rank\":%ld", k + 1);
	else
		printf(",\"fastest_fits_rank\":null");
	json_pruned(sr);
	if (nf->has) /* only when nothing fits: other sweeps print as before */
		json_nearest(sp, nf);
	if (t)
		json_train(t, &rows[0]);
	printf("}\n");
}

void cli_sweep_print_train(const sweep_train *t, const plan_scenario *s, const exec_result *r)
{
	double lo, hi;
	char days[64], cost[64];
	band_factors(r, &lo, &hi);
	report_range_text(lo * t->time_s / 86400, hi * t->time_s / 86400, "days", days, sizeof days);
	report_range_text(lo * t->cost_usd, hi * t->cost_usd, "USD", cost, sizeof cost);
	printf("\nto train on %.3g tokens with the best plan (C = 6PD = %.3g FLOPs):\n", t->tokens,
	       t->flops_6pd);
	char gh[64];
	report_range_text(lo * t->gpu_hours, hi * t->gpu_hours, "", gh, sizeof gh);
	printf("  %.0f steps, %.2f days%s%s%s, %.4g GPU-hours%s%s%s\n", t->steps,
	       t->time_s / 86400, *days ? " (likely " : "", days, *days ? ")" : "", t->gpu_hours,
	       *gh ? " (likely " : "", gh, *gh ? ")" : "");
	if (t->step_factor != 1)
		printf("  steps of the mean of %d replays with the fabric's measured spread: x %.4f "
		       "the simulated step\n",
		       r->spread.samples, t->step_factor);
	sweep_energy e;
	sweep_energy_scenario(s, r->gpus, t->time_s / 3600.0, &e);
	cli_energy_print(stdout, "energy and CO2 of the run (each term and its source)", &e,
			 s->gpu.name, "[node] power", false);
	printf("  with the GPUs at TDP only while computing (TDP x the compute streams' busy\n"
	       "  fraction, node power as above): %.4g MWh, %.4g t CO2e\n",
	       t->energy_kwh / 1e3, t->tco2);
	if (s->cluster.gpu_hour_usd > 0)
		printf("  cost %.4g USD%s%s%s at %.3g USD per GPU-hour\n", t->cost_usd,
		       *cost ? " (likely " : "", cost, *cost ? ")" : "", s->cluster.gpu_hour_usd);
	else
		printf("  cost: set [cluster] gpu_hour_price (USD) to see it\n");
}


/* The sweep's HTML page (report_sweep_html), rows in rank order. */
int cli_sweep_html(const char *path, const char *file, const sweep_space *sp, const sim_row *rows,
                   size_t n, double tau)
{
	report_sweep_point *p = calloc(n ? n : 1, sizeof *p);
	if (!p)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const exec_result *r = rows[i].r;
		cli_sweep_settings(sp, rows[i].plan, p[i].label, sizeof p[i].label);
		p[i].step_s = r->step_s;
		p[i].est_s = rows[i].plan->est.step_s;
		p[i].mfu = r->mfu;
		p[i].tokens_per_s = r->tokens_per_s;
		p[i].cost_usd = rows[i].cost.cost_usd;
		p[i].gpus = r->gpus;
		p[i].pareto = rows[i].pareto;
		p[i].band_lo_s = r->band_lo_s;
		p[i].band_hi_s = r->band_hi_s;
		p[i].implausible = r->implausible;
		bool on = report_has_spread(r);
		p[i].p50_s = on ? r->spread.p50_s : NAN;
		p[i].p95_s = on ? r->spread.p95_s : NAN;
		cli_sweep_risky_why(rows, i, p[i].risky_why, sizeof p[i].risky_why);
	}
	int rc = report_sweep_html_file(path, file, p, n, tau);
	free(p);
	if (rc != SIM_OK)
		fprintf(stderr, "podsim sweep: error: cannot write %s: %s\n", path, strerror(errno));
	return rc == SIM_OK ? 0 : 1;
}
