/* tune.c - the plan columns a training row leaves open, settled by
 * simulating the row: its micro-batch (the fastest that fits of the
 * divisors of its sequences per replica, as a tuned benchmark ran), its
 * recomputation, ZeRO stage and sequence parallelism (the framework's
 * defaults where they fit, else the fastest combination that fits), and a
 * layout it leaves open altogether (valid_open_layout). Each candidate is the
 * row's own scenario (valid_row_text) loaded and run as the prediction runs
 * it; runs.c writes the settled values into the row's text and says them. */
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A column's value as the reader takes it: written loosely, the schema's
 * (valid_loose: "BF16" is bf16, "RoCE" roce-fat-tree). */
static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

/* Whether the plan fits: the verdict `podsim run` reports and the sweep
 * prunes on (plan_memory_fit: the most loaded stage within the GPU's memory,
 * which holds exactly when every stage is, since a stage out of memory has a
 * device total above the capacity and one within it none; the stages on
 * [cluster] other_gpu's nodes; offloaded states within host DRAM and NVMe). */
static bool fits(const plan_scenario *s)
{
	plan_mem_fit f;
	plan_memory_fit(s, &f);
	return f.where == PLAN_OOM_NONE;
}

/* The row's scenario under `t`, loaded as the prediction loads it (a
 * missing feature's rule set aside, valid_rule_waivers): NULL where it
 * cannot be. */
static plan_scenario *tuned_load(const cases_csv *c, size_t row, const valid_options *opt,
                                 const valid_tune *t)
{
	sim_buf b;
	sim_buf_init(&b);
	char assumed[1024] = "", whyb[256];
	const char *why =
	        valid_row_text(c, row, "", opt, t, &b, assumed, sizeof assumed, whyb, sizeof whyb);
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	if (!why && !b.oom && d &&
	    plan_scenario_load_string(b.data, "<tuning>", opt->datadir, d, &s) != SIM_OK) {
		s = NULL;
		if (valid_rule_waivers(d, &b, assumed, sizeof assumed) && !b.oom) {
			sim_diag_clear(d);
			if (plan_scenario_load_string(b.data, "<tuning>", opt->datadir, d, &s) != SIM_OK)
				s = NULL;
		}
	}
	sim_diag_free(d);
	sim_buf_free(&b);
	return s;
}

/* The row's framework profile (valid_row_stack, valid_load_profile) into *fw; false
 * where it has none or it does not load. valid_tuned_plan reads what the
 * framework runs from it: selective recomputation (runs_selective_recompute;
 * Megatron-LM's arrived in 2022) and its ZeRO stages (runs_zero, and
 * runs_zero_with_pp under a pipeline). */
static bool row_framework(const cases_csv *c, size_t row, const valid_options *opt,
                          plan_framework *fw)
{
	const char *profile, *attention;
	char name[64], scratch[1024] = "";
	return !valid_row_stack(c, row, opt, &profile, &attention, name, sizeof name, scratch,
	                        sizeof scratch) &&
	       valid_load_profile(opt, profile, fw);
}

/* Whether the row fits under `t`. */
static bool tuned_fits(const cases_csv *c, size_t row, const valid_options *opt,
                       const valid_tune *t)
{
	plan_scenario *s = tuned_load(c, row, opt, t);
	bool ok = s && fits(s);
	plan_scenario_free(s);
	return ok;
}

/* The step of the row under `t` where it loads, fits and simulates, else
 * a negative time: -2 where it loads but does not fit. `r` is the
 * caller's result buffer. Under t->partial
 * (recompute full), first the fewest layers of each chunk whose
 * recomputation makes it fit, by bisection (memory falls as more layers
 * recompute: Megatron-LM's --recompute-method block --recompute-num-layers
 * N, from bbab79f869, as the cuts `podsim explain` prints find them);
 * t->rc_layers 0 where only all of them fit. */
static double tuned_step(const cases_csv *c, size_t row, const valid_options *opt, valid_tune *t,
                         exec_result *r)
{
	t->rc_layers = 0;
	plan_scenario *s = tuned_load(c, row, opt, t);
	if (!s || !fits(s)) {
		bool oom = s != NULL;
		plan_scenario_free(s);
		return oom ? -2 : -1;
	}
	if (t->partial) {
		int lo = 1, hi = 0, first; /* hi: the most layers a chunk holds (all) */
		for (int st = 0; st < s->plan.pp; st++)
			for (int ch = 0; ch < (s->plan.vpp > 1 ? s->plan.vpp : 1); ch++) {
				int n = plan_chunk_layers(s, st, ch, &first);
				hi = n > hi ? n : hi;
			}
		int all = hi;
		while (lo < hi) {
			valid_tune m = *t;
			m.rc_layers = lo + (hi - lo) / 2;
			if (tuned_fits(c, row, opt, &m))
				hi = m.rc_layers;
			else
				lo = m.rc_layers + 1;
		}
		valid_tune m = *t;
		m.rc_layers = lo;
		plan_scenario *p = lo < all ? tuned_load(c, row, opt, &m) : NULL;
		if (p && fits(p)) {
			plan_scenario_free(s);
			s = p;
			t->rc_layers = lo;
		} else
			plan_scenario_free(p);
	}
	double step = exec_run(s, r) == SIM_OK ? r->step_s : -1;
	plan_scenario_free(s);
	return step;
}

/* An empty micro_batch column. Benchmark tables publish the plan their
 * authors tuned (the Megatron-LM README's table names tp, pp, dp and the
 * batch, not the micro-batch), and the micro-batch is the knob tuned last:
 * a larger one runs larger GEMMs and hides more of the data-parallel
 * reduction behind the last micro-batch's backward, a smaller one shrinks a
 * pipeline's bubble. So `t` gets the divisor of the row's sequences per
 * replica (global_batch / dp) whose simulated step is the shortest among
 * those that fit in memory, ties to the smaller, and its time per sequence
 * is returned; a negative time, and t->mb 0, when none of them runs (the
 * row then reports micro_batch 1's reason). Where the batch is open or no
 * multiple of dp (valid_row_batch: each micro-batch then runs a batch of its
 * own), the candidates are 1, 2, 4 ... 64: with the batch published, those
 * whose rounded batch is within 10 % of it (1 always), ranked by the time
 * per sequence. */
static double tuned_micro_batch(const cases_csv *c, size_t row, const valid_options *opt,
                                valid_tune *t, exec_result *r)
{
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	long dp = valid_row_dp(c, row), gb = valid_row_global_batch(c, row, rec);
	bool own = gb <= 0 || (dp > 0 && gb % dp); /* a batch per micro-batch */
	long per = own ? 64 : dp > 0 ? gb / dp : 0, best = 0, failed = 0;
	double best_s = -1;
	for (long mb = 1; mb <= per && mb <= 64; mb = own ? 2 * mb : mb + 1) {
		int how;
		long batch = valid_row_batch(c, row, rec, mb, &how);
		if ((!own && per % mb) || batch <= 0 || mb <= t->above ||
		    (own && gb > 0 && mb > 1 && fabs((double)(batch - gb)) > 0.1 * (double)gb))
			continue;
		valid_tune m = *t;
		m.mb = mb;
		double step = tuned_step(c, row, opt, &m, r);
		double cost = step >= 0 ? step / (double)batch : step;
		if (step < 0)
			failed = mb;
		if (step == -2)
			break; /* out of memory: a larger micro-batch holds more */
		if (step >= 0 && (!best || cost < best_s)) {
			best = mb;
			best_s = cost;
			t->rc_layers = m.rc_layers;
		}
	}
	t->mb = best;
	t->capped = failed > best;
	return best_s;
}

/* The ZeRO stage the row's scenario loads with (tune t): the framework's
 * for an open column (valid_open_zero: FSDP's FULL_SHARD), else 0. */
static int loaded_zero(const cases_csv *c, size_t row, const valid_options *opt,
                       const valid_tune *t)
{
	plan_scenario *s0 = tuned_load(c, row, opt, t);
	int z = s0 ? s0->plan.zero : 0;
	plan_scenario_free(s0);
	return z;
}

/* One candidate of valid_tuned_plan: its step (its micro-batch tuned where
 * open), or, for the defaults at their micro-batch def_mb on this network
 * (`defaults`), its step per sequence; -1 where it does not fit. */
static double candidate(const cases_csv *c, size_t row, const valid_options *opt,
                        const valid_recipe *rec, valid_tune *t, exec_result *r, bool open_mb,
                        bool defaults, long def_mb)
{
	if (!defaults)
		return open_mb ? tuned_micro_batch(c, row, opt, t, r) : tuned_step(c, row, opt, t, r);
	int how;
	t->mb = def_mb;
	double step = tuned_step(c, row, opt, t, r);
	return step >= 0 ? step / (double)valid_row_batch(c, row, rec, t->mb, &how) : step;
}

/* The open plan columns a simulation settles: the micro-batch (above),
 * and the ZeRO stage and recomputation where the row and its recipe leave
 * them open and their defaults (zero 0, recompute none) leave the plan out
 * of memory. The run completed, so it fitted; a framework's users reach
 * for the distributed optimizer or ZeRO and for recomputation when a plan
 * does not fit, and tune for speed: so the fastest combination that fits
 * of the ZeRO stages the framework runs (runs_zero, with a pipeline
 * runs_zero_with_pp; a stage past them, its rule set aside and said, only
 * where none of them fits)
 * and none, selective (where the framework runs it: Megatron-LM from
 * 2022, runs_selective_recompute) or full recomputation (there also of the
 * fewest layers a chunk that fit, tuned_step), each with its micro-batch
 * tuned where open, ranked on the closed-form network (as the sweep's
 * pre-screen ranks plans: a flow simulation of a 4,096-GPU MoE plan takes
 * a minute, its closed forms milliseconds) and the row then simulated on
 * its own; sequence parallelism, where open at tp > 1 and the framework
 * runs it (runs_sequence_parallel) but its default does not, among them.
 * Where nothing fits, the defaults: the row is predicted and its verdict
 * says out of memory. Where the defaults fit, the defaults, unless the
 * micro-batch is open, there is no pipeline and memory capped it (a
 * larger one did not fit: def.capped): then the same search, the others
 * only at larger micro-batches, against the defaults at theirs, by time
 * per sequence (a tuned ZeRO-3 benchmark recomputes to run fewer, larger
 * micro-batches, each of which gathers the weights again: OPT-style rows
 * 3x faster than at micro-batch 1). A row offloading to the CPU or NVMe
 * keeps its ZeRO rule (put_open_plan). */
valid_tune valid_tuned_plan(const cases_csv *c, size_t row, const valid_options *opt)
{
	static const char *const rcs[] = {NULL, "selective", "full"};
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	char rv[32];
	const char *off = get(c, row, "offload");
	bool open_rc = !*valid_plan_col(c, row, rec, "recompute", rv, sizeof rv);
	bool open_zero = !*valid_plan_col(c, row, rec, "zero", rv, sizeof rv) &&
	                 (!*off || !strcmp(off, "none"));
	bool open_mb = !*valid_plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	bool open_sp = !*valid_plan_col(c, row, rec, "sequence_parallel", rv, sizeof rv) &&
	               atol(get(c, row, "tp")) > 1;
	valid_tune def = {.zero = -1}, best = def;
	exec_result *r = malloc(sizeof *r);
	if (!r)
		return def;
	double best_s = -1;
	if (open_mb)
		best_s = tuned_micro_batch(c, row, opt, &def, r);
	else if (open_rc || open_zero || open_sp)
		best_s = tuned_fits(c, row, opt, &def) ? 0 : -1;
	/* sequence parallelism where the framework runs it and neither its
	 * default nor MoE's rule (put_open_plan) has turned it on already */
	if (open_sp) {
		plan_scenario *s0 = tuned_load(c, row, opt, &def);
		open_sp = s0 && !s0->plan.sequence_parallel && s0->fw.sp &&
		          s0->model.moe_experts <= 1;
		plan_scenario_free(s0);
	}
	/* where the defaults fit, the others only without a pipeline, where
	 * memory, not speed, capped the micro-batch, and only for larger
	 * micro-batches: what they cost is repaid only by a micro-batch the
	 * defaults cannot fit, whose fixed costs (ZeRO-3's gathers, the
	 * data-parallel waits, the host's) are paid fewer times; a pipeline's
	 * micro-batch also sets its bubble, and pipelined benchmarks run small
	 * ones (NVIDIA's tables 1-2) */
	bool plain = best_s >= 0;
	if ((plain && !(open_mb && def.capped && atol(get(c, row, "pp")) <= 1)) ||
	    (!open_rc && !open_zero && !open_sp)) {
		free(r);
		return def;
	}
	if (plain) /* ranked again with the recomputations, on the same network */
		best_s = -1;
	plan_framework fw;
	bool have_fw = row_framework(c, row, opt, &fw);
	bool selective = open_rc && have_fw && fw.selective_recompute;
	/* the ZeRO stages the framework runs first; past them (its rule set
	 * aside, said) only where none of them fits */
	int zmax = !open_zero ? 0
	           : !have_fw ? 3
	           : atoi(get(c, row, "pp")) > 1 ? fw.zero_max_pp
	                                          : fw.zero_max;
	/* the defaults' stage: the framework's for an open column
	 * (valid_open_zero: FSDP's FULL_SHARD), else 0 */
	int dz = open_zero ? loaded_zero(c, row, opt, &def) : 0;
	for (int sp = 0; sp <= (open_sp ? 1 : 0); sp++)
		for (int z = 0; z <= (open_zero ? 3 : 0); z++)
			for (size_t i = 0; i < (open_rc ? sizeof rcs / sizeof rcs[0] : 1); i++) {
				if (z == dz && i == 0 && !sp && !plain)
					continue; /* the defaults, tried above */
				if (z > zmax && best_s >= 0)
					break; /* a stage the framework runs fits */
				if (rcs[i] && !strcmp(rcs[i], "selective") && !selective)
					continue; /* not offered (a row stating it sets the rule aside) */
				/* full recomputation of only as many layers as it takes
				 * where the framework has that option (from 2022, with
				 * selective: Megatron-LM bbab79f869) */
				valid_tune t = {.recompute = rcs[i],
				              .zero = open_zero ? z : -1,
				              .sp = sp,
				              .sp_open = open_sp,
			              .for_speed = plain,
			              .above = plain ? def.mb : 0,
				              .partial = selective && rcs[i] && !strcmp(rcs[i], "full"),
				              .fast = true};
				double step = candidate(c, row, opt, rec, &t, r, open_mb,
				                        plain && z == dz && i == 0 && !sp, def.mb);
				if (step >= 0 && (best_s < 0 || step < best_s)) {
					best = t;
					best_s = step;
				}
			}
	free(r);
	best.fast = false; /* the row itself on its own network */
	return best;
}

/* Whether a training row leaves its layout open, tp, pp and dp alike,
 * neither the row as written nor its recipe giving one. */
static bool layout_open(const cases_csv *c, size_t row, const valid_options *opt)
{
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	static const char *const deg[] = {"tp", "pp", "dp"};
	for (int i = 0; i < 3; i++) {
		char rv[32];
		int k = cases_csv_col(c, deg[i]);
		if (k >= 0 && (*cases_csv_written(c, row, k) || *cases_csv_get(c, row, k)))
			return false;
		if (*valid_recipe_value(rec, deg[i], rv, sizeof rv))
			return false;
	}
	return true;
}

int valid_open_layout(cases_csv *c, size_t row, const valid_options *opt)
{
	int kt = cases_csv_col(c, "tp"), kp = cases_csv_col(c, "pp");
	if (kt < 0 || kp < 0 || cases_csv_col(c, "kind") >= 0)
		return SIM_OK;
	/* the degrees the row's recipe line gives where the row leaves them
	 * open (a run script's, recipes.csv): into the cells, as published,
	 * so that every reading of them (dp = gpus / (tp pp cp)) agrees */
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	int k2[2] = {kt, kp};
	static const char *const deg[] = {"tp", "pp"};
	for (int i = 0; i < 2; i++) {
		char rv[32];
		if (*cases_csv_written(c, row, k2[i]) || *cases_csv_get(c, row, k2[i]) ||
		    !*valid_recipe_value(rec, deg[i], rv, sizeof rv))
			continue;
		int rc = cases_csv_set(c, row, k2[i], rv);
		if (rc != SIM_OK)
			return rc;
	}
	/* one of tp and pp open beside the other and a published dp: the
	 * degree that fills the GPUs, as an open dp is (put_open_plan says it) */
	long fill = 0;
	int open_k = valid_filled_degree(c, row, &fill);
	if (open_k >= 0) {
		char f[24];
		snprintf(f, sizeof f, "%ld", fill);
		return cases_csv_set(c, row, open_k, f);
	}
	if (!layout_open(c, row, opt))
		return SIM_OK;
	valid_row *v = calloc(1, sizeof *v);
	if (!v)
		return SIM_ENOMEM;
	/* the documented default first: tp 1, pp 1 (put_open_plan says so) */
	valid_training_row(c, row, opt, v);
	bool runs = v->status == VALID_OK && strcmp(v->verdict, "oom");
	long gpus = atol(get(c, row, "gpus")), gpn = atol(get(c, row, "gpus_per_node"));
	long cp = atol(get(c, row, "cp"));
	gpn = gpn > 0 ? gpn : 8; /* valid_row_hardware's default node */
	cp = cp > 0 ? cp : 1;
	double best = INFINITY;
	long bt = 0, bp = 0;
	/* tp inside a node (NVLink), pp in powers of two that fill the GPUs:
	 * NVIDIA's, DeepSpeed's and the papers' layouts; the row's builder and
	 * the plan check refuse the rest (heads, layers, batch) */
	for (long tp = 1; !runs && tp <= 8 && tp <= gpn; tp *= 2)
		for (long pp = 1; pp <= 64; pp *= 2) {
			if ((tp == 1 && pp == 1) || gpus % (tp * pp * cp) != 0)
				continue;
			char t[24], p[24];
			snprintf(t, sizeof t, "%ld", tp);
			snprintf(p, sizeof p, "%ld", pp);
			int rc = cases_csv_set(c, row, kt, t);
			rc = rc != SIM_OK ? rc : cases_csv_set(c, row, kp, p);
			if (rc != SIM_OK) {
				free(v);
				return rc;
			}
			memset(v, 0, sizeof *v);
			valid_training_row(c, row, opt, v);
			if (v->status == VALID_OK && strcmp(v->verdict, "oom") && v->predicted < best)
				best = v->predicted, bt = tp, bp = pp;
		}
	free(v);
	char t[24] = "", p[24] = "";
	if (bt > 0) {
		snprintf(t, sizeof t, "%ld", bt);
		snprintf(p, sizeof p, "%ld", bp);
	}
	int rc = cases_csv_set(c, row, kt, t); /* none runs: open again, as before */
	return rc != SIM_OK ? rc : cases_csv_set(c, row, kp, p);
}
