/* test_sweep.c - the sweep module: space parsing and its errors, auto
 * enumeration on the 16-GPU quickstart, deterministic plan order, pruning
 * counts, the pre-screen's bubble term, sweep files, cost and energy, the
 * Pareto front; the screen split in parts (MPI ranks) recounted equal to one
 * screen, the topology swap, the pre-screen on MoE and ZB-H1 against the
 * simulation, its data-parallel terms (gradient buckets, overlap_param_gather's
 * gathers), and store_merge's schema check. Runs from the source root
 * (meson's workdir). */
#include "check.h"
#include "scen.h"
#include "store/store.h"
#include "sweep/sweep_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUICKSTART "scenarios/quickstart.ini"

static plan_scenario *load(const char *const *sets, size_t n)
{
	return scen_file(QUICKSTART, sets, n);
}

/* The pre-screen's step within tol of the simulated one and its bound
 * under it, on s, which it frees (m > 0: the plan's micro-batches first). */
static void est_near_sim(plan_scenario *s, int m, double tol)
{
	exec_result r;
	if (s && (m <= 0 || CHECK_INT(plan_microbatches(&s->plan), m)) &&
	    CHECK_INT(exec_run(s, &r), SIM_OK)) {
		sweep_estimate e;
		sweep_estimate_plan(s, &e);
		CHECK(fabs(e.step_s - r.step_s) < tol * r.step_s);
		CHECK(e.bound_s <= r.step_s);
	}
	plan_scenario_free(s);
}

/* Add a spec expecting rc; with an error, its text must be `want`. */
static void add(sweep_space *sp, const char *spec, int rc, const char *want)
{
	sim_diag *d = sim_diag_new();
	CHECK_INT(sweep_space_add(sp, spec, "podsim sweep", 0, d), rc);
	if (want && CHECK_INT(sim_diag_count(d), 1))
		CHECK_STR(sim_diag_text(d, 0), want);
	sim_diag_free(d);
}

static void test_parse(void)
{
	sweep_space *sp = sweep_space_new();
	add(sp, "parallel.tp=1, 2,4", SIM_OK, NULL);
	add(sp, "parallel.recompute=none,full", SIM_OK, NULL);
	add(sp, "parallel.bucket_size=25 MB,100 MB", SIM_OK, NULL);
	CHECK_INT(sweep_space_ndims(sp), 3);
	CHECK_STR(sweep_space_key(sp, 0), "parallel.tp");
	CHECK_INT(sweep_space_nvalues(sp, 0), 3);
	CHECK_STR(sweep_space_value(sp, 0, 1), "2"); /* blanks trimmed */
	CHECK_STR(sweep_space_value(sp, 2, 0), "25 MB");
	CHECK_INT(sweep_space_size(sp), 3 * 2 * 2);
	add(sp, "parallel.tp", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.tp: expected SECTION.KEY=V1,V2,... or "
	    "SECTION.KEY=auto");
	add(sp, "parallel.tp=8", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.tp=8: parallel.tp is varied twice");
	add(sp, "parallel.pp=1,x", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.pp=1,x: parallel.pp: expected an integer, got "
	    "'x'");
	add(sp, "parallel.pp=0", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.pp=0: parallel.pp: 0 is out of range [1, 65536]");
	add(sp, "parallel.pp=1,,2", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.pp=1,,2: empty value in '1,,2'");
	add(sp, "parallel.pp=2,2", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.pp=2,2: parallel.pp: value '2' given twice");
	add(sp, "parallel.schedule=2f2b", SIM_ECONF, NULL);
	add(sp, "parallel.tpp=1", SIM_ECONF,
	    "podsim sweep: error: --vary parallel.tpp=1: parallel.tpp: not a configuration key "
	    "(see podsim keys)");
	add(sp, "cluster.nodes=auto", SIM_OK, NULL); /* refused when resolved */
	CHECK_INT(sweep_space_ndims(sp), 4);         /* failed specs add nothing */
	plan_scenario *s = load(NULL, 0);
	sim_diag *d = sim_diag_new();
	CHECK_INT(sweep_space_resolve(sp, s, d), SIM_ECONF);
	CHECK_INT(sim_diag_error_count(d), 1);
	sim_diag_free(d);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* The quickstart: 16 GPUs (2 x 8), GPT 1.7B with 24 layers and 24 heads,
 * global batch 128. Auto values:
 *   tp: divisors of 16 that divide 24 heads          -> 1 2 4 8
 *   pp: divisors of 16 that split 24 layers evenly   -> 1 2 4 8 (not 16)
 *   vpp: divisors of 24        -> 1 2 3 4 6 8 12 24
 *   micro_batch: divisors of 128 -> 1 2 4 8 16 32 64 128
 *   recompute: every choice    -> none selective full
 * dp = auto is derived (no dimension): 4*4*8*8*3 = 3072 plans. */
static void test_auto(void)
{
	sweep_space *sp = sweep_space_new();
	add(sp, "parallel.tp=auto", SIM_OK, NULL);
	add(sp, "parallel.pp=auto", SIM_OK, NULL);
	add(sp, "parallel.dp=auto", SIM_OK, NULL);
	add(sp, "parallel.vpp=auto", SIM_OK, NULL);
	add(sp, "parallel.micro_batch=auto", SIM_OK, NULL);
	add(sp, "parallel.recompute=auto", SIM_OK, NULL);
	plan_scenario *s = load(NULL, 0);
	sim_diag *d = sim_diag_new();
	CHECK_INT(sweep_space_resolve(sp, s, d), SIM_OK);
	sim_diag_free(d);
	CHECK_INT(sweep_space_ndims(sp), 5);
	CHECK(sweep_space_derives_dp(sp));
	static const char *const want[5][9] = {
	        {"parallel.tp", "1", "2", "4", "8"},
	        {"parallel.pp", "1", "2", "4", "8", "16"},
	        {"parallel.vpp", "1", "2", "3", "4", "6", "8", "12", "24"},
	        {"parallel.micro_batch", "1", "2", "4", "8", "16", "32", "64", "128"},
	        {"parallel.recompute", "none", "selective", "full"},
	};
	for (size_t i = 0; i < 5; i++) {
		CHECK_STR(sweep_space_key(sp, i), want[i][0]);
		size_t n = 0;
		while (n + 1 < 9 && want[i][n + 1])
			n++;
		CHECK_INT(sweep_space_nvalues(sp, i), n);
		for (size_t j = 0; j < n && j < sweep_space_nvalues(sp, i); j++)
			CHECK_STR(sweep_space_value(sp, i, j), want[i][j + 1]);
	}
	CHECK_INT(sweep_space_size(sp), 4 * 5 * 8 * 8 * 3);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* Plans are the product with the last dimension fastest: on tp (4 values) x
 * pp (3) x vpp (2) x micro_batch (2), plan 13 = 1*12 + 0*4 + 0*2 + 1 is
 * tp 2, pp 1, vpp 1, micro_batch 2, and its dp is 16 / (2*1) = 8. */
static sweep_space *space_48(void)
{
	sweep_space *sp = sweep_space_new();
	add(sp, "parallel.tp=1,2,4,8", SIM_OK, NULL);
	add(sp, "parallel.pp=1,2,4", SIM_OK, NULL);
	add(sp, "parallel.vpp=1,2", SIM_OK, NULL);
	add(sp, "parallel.micro_batch=1,2", SIM_OK, NULL);
	return sp;
}

static void test_order(void)
{
	sweep_space *sp = space_48();
	size_t idx[SWEEP_MAX_DIMS];
	sweep_space_plan(sp, 13, idx);
	CHECK_INT(idx[0], 1);
	CHECK_INT(idx[1], 0);
	CHECK_INT(idx[2], 0);
	CHECK_INT(idx[3], 1);
	sweep_plan p = {.index = 13, .dp = 8};
	char sets[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	CHECK_INT(sweep_plan_sets(sp, &p, sets), 5);
	CHECK_STR(sets[0], "parallel.tp=2");
	CHECK_STR(sets[3], "parallel.micro_batch=2");
	CHECK_STR(sets[4], "parallel.dp=8");
	char *text = sweep_space_text(sp);
	CHECK_STR(text, "parallel.tp=1,2,4,8\nparallel.pp=1,2,4\nparallel.vpp=1,2\n"
	                "parallel.micro_batch=1,2\nparallel.dp=derived\n");
	free(text);
	sweep_space_free(sp);
}

static int reason_count(const sweep_screen_result *r, const char *text)
{
	for (int i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i], text))
			return (int)r->reason_count[i];
	return 0;
}

/* 48 plans. Pruned as invalid:
 *   tp*pp = 8*4 = 32 does not divide 16 GPUs: 1 (tp, pp) x 2 vpp x 2 mb = 4;
 *   vpp 2 with pp 1: 4 tp x 2 mb = 8 (vpp needs pp > 1).
 * Every other plan is valid: 24 layers split over pp*vpp <= 8; m = 128 /
 * (mb * dp) = 8 tp pp / mb >= 8 >= pp, and a power of two, so interleaving's
 * m % pp == 0 holds. 48 - 4 - 8 = 36 valid; all fit in 80 GB. */
static void test_prune(void)
{
	sweep_space *sp = space_48();
	plan_scenario *s = load(NULL, 0);
	sweep_screen_result r;
	CHECK_INT(sweep_screen(sp, s, QUICKSTART, NULL, 0, &r), SIM_OK);
	CHECK_INT(r.nplans, 48);
	CHECK_INT(r.valid, 36);
	CHECK_INT(r.fitting, 36);
	CHECK_INT(reason_count(&r, "tp*pp*cp = #*#*# = # does not divide the # GPUs (dp derived)"),
	          4);
	CHECK_INT(reason_count(&r, "vpp > # interleaves pipeline stages: it needs pp > #"), 8);
	/* The best plan by estimate heads the list; the list is sorted. */
	uint64_t best[8];
	size_t k = sweep_best(&r, 8, best);
	CHECK_INT(k, 8);
	for (size_t i = 1; i < k; i++)
		CHECK(r.plans[best[i - 1]].est.step_s <= r.plans[best[i]].est.step_s);
	/* Interleaving halves the fill/drain term: plan (tp 1, pp 4, vpp 2, mb 1)
	 * = 0*12 + 2*4 + 1*2 + 0 = 10 against plan 8 (vpp 1), same layers per stage:
	 * bubble = (S - T) / vpp in closed form. Both are walked (pipewalk.c: the
	 * synchronous one-chunk pipeline's rendezvous, the interleaved one's
	 * asynchronous sends behind each other), which adds each one's exposed
	 * transfers: about half all the same (0.51 here). */
	CHECK(r.plans[10].est.bubble_s > 0.45 * r.plans[8].est.bubble_s);
	CHECK(r.plans[10].est.bubble_s < 0.55 * r.plans[8].est.bubble_s);
	CHECK(r.plans[8].est.bubble_s > 0);
	CHECK_NEAR(r.plans[0].est.bubble_s, 0, 1e-15); /* pp 1: no bubble */
	sweep_screen_free(&r);

	/* With 16 GB of HBM some valid plans do not fit: every pruned one's
	 * memory exceeds it, every kept one's does not. */
	const char *small[] = {"gpu.hbm=16 GB"};
	plan_scenario *s16 = load(small, 1);
	CHECK_INT(sweep_screen(sp, s16, QUICKSTART, small, 1, &r), SIM_OK);
	CHECK_INT(r.valid, 36);
	CHECK(r.fitting > 0 && r.fitting < 36);
	CHECK_INT(reason_count(&r, "does not fit in GPU memory (allocated + runtime > HBM)"),
	          (int)(r.valid - r.fitting));
	for (uint64_t i = 0; i < r.nplans; i++) {
		if (r.plans[i].status == SWEEP_NO_FIT)
			CHECK(r.plans[i].est.mem_peak_bytes > 16e9);
		else if (r.plans[i].status == SWEEP_OK)
			CHECK(r.plans[i].est.mem_peak_bytes <= 16e9);
	}
	sweep_screen_free(&r);
	plan_scenario_free(s16);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* The reload path (a [cluster] key) gives the same estimates as the fast
 * path for the same plans of dimension `dim` (n values); with sets, on the
 * scenario they change. The reload path loads each plan as `podsim run
 * --set` would, so what the loader derives from a plan's keys
 * (plan_derive) the fast path must derive too. */
static void reload_matches(const char *dim, uint64_t n, const char *const *sets, size_t nsets)
{
	sweep_space *fast = sweep_space_new(), *slow = sweep_space_new();
	add(fast, dim, SIM_OK, NULL);
	add(slow, "cluster.oversubscription=1", SIM_OK, NULL);
	add(slow, dim, SIM_OK, NULL);
	plan_scenario *s = load(sets, nsets);
	sweep_screen_result a, b;
	CHECK_INT(sweep_screen(fast, s, QUICKSTART, sets, nsets, &a), SIM_OK);
	CHECK_INT(sweep_screen(slow, s, QUICKSTART, sets, nsets, &b), SIM_OK);
	CHECK(a.nplans == n);
	CHECK(b.nplans == n);
	for (uint64_t i = 0; i < n && a.nplans == n && b.nplans == n; i++) {
		CHECK_INT(a.plans[i].status, b.plans[i].status);
		if (!strncmp(dim, "parallel.tp=", 12))
			CHECK_INT(a.plans[i].dp, 8 >> i); /* 16 / (tp * pp), base pp = 2 */
		CHECK_NEAR(a.plans[i].est.step_s, b.plans[i].est.step_s, 1e-12);
	}
	sweep_screen_free(&a);
	sweep_screen_free(&b);
	plan_scenario_free(s);
	sweep_space_free(fast);
	sweep_space_free(slow);
}

static void test_reload_matches(void)
{
	reload_matches("parallel.tp=1,2,4", 3, NULL, 0);
	/* GPT-2's vocabulary, which Megatron pads per tp (plan_pad_vocab: to
	 * 50304, 50432 and 50688 at tp 1, 2 and 4): the fast path pads it for
	 * each plan's tp, not the base scenario's (tp 2) */
	const char *gpt2[] = {"model.vocab=50257"};
	reload_matches("parallel.tp=1,2,4", 3, gpt2, 1);
	/* DeepSpeed's gradient dtype rule (deepspeed.ini grad_dtype): bf16
	 * gradients under ZeRO-1, fp32 (BF16_Optimizer) under ZeRO-0, so the
	 * ZeRO-1 plan's accumulation moves 5.25 bytes a parameter, not 18
	 * (plan_grad_accum_item). The fast path kept the base's (ZeRO-0) fp32
	 * and estimated the quickstart's ZeRO-1 plan 10.8 % over the simulated
	 * step under the deepspeed profile at micro-batch 1, its bound above it
	 * (tools/prescreen-audit) */
	const char *ds[] = {"framework.grad_dtype=params-unless-bf16-zero0",
	                    "framework.grad_accum=autograd", "parallel.zero=0"};
	reload_matches("parallel.zero=0,1", 2, ds, 3);
}

static void test_file(void)
{
	sweep_space *sp = sweep_space_new();
	sweep_file f;
	bool is_sweep = false;
	sim_diag *d = sim_diag_new();
	CHECK_INT(sweep_file_load("scenarios/sweep-quickstart.ini", sp, &f, &is_sweep, d), SIM_OK);
	sim_diag_print(d, stderr);
	CHECK(is_sweep);
	CHECK_STR(f.scenario, "scenarios/quickstart.ini");
	CHECK_INT(f.top, 16);
	CHECK_INT(sweep_space_ndims(sp), 5); /* key-table order */
	CHECK_STR(sweep_space_key(sp, 0), "parallel.tp");
	CHECK_STR(sweep_space_key(sp, 4), "parallel.recompute");
	CHECK_INT(sweep_file_load(QUICKSTART, sp, &f, &is_sweep, d), SIM_OK);
	CHECK(!is_sweep); /* a scenario, not a sweep file */
	sim_diag_free(d);
	sweep_space_free(sp);
}

/* Two classes of 8 GPUs, step 2 s, each busy 1.5 s computing + 0.1 s in the
 * optimizer: busy = 0.8. 16 A100s at 400 W on 2 nodes of 3300 W, PUE 1.1:
 *   E = 1.1 x 2 x (16 x 400 x 0.8 + 2 x 3300) = 1.1 x 2 x 11720 = 25784 J,
 *   E_tdp = 1.1 x 2 x (6400 + 6600) = 28600 J;
 *   cost at 2 USD/GPU-h = 16 x 2 / 3600 x 2 = 0.017778 USD.
 * Training on 1e9 tokens with 262144 tokens per step: 3814.7 steps. */
static void test_cost(void)
{
	const char *sets[] = {"cluster.pue=1.1", "cluster.gpu_hour_price=2"};
	plan_scenario *s = load(sets, 2);
	static exec_result r;
	memset(&r, 0, sizeof r);
	r.gpus = 16;
	r.step_s = 2;
	r.tokens_per_step = 262144;
	r.nclasses = 2;
	for (int k = 0; k < 2; k++) {
		r.classes[k].ranks = 8;
		r.classes[k].time_s[EXEC_CAT_COMPUTE] = 1.5;
		r.classes[k].time_s[EXEC_CAT_OPTIMIZER] = 0.1;
		r.classes[k].time_s[EXEC_CAT_BUBBLE] = 0.4;
	}
	sweep_cost c;
	sweep_cost_step(s, &r, &c);
	CHECK_NEAR(c.busy, 0.8, 1e-12);
	CHECK_NEAR(c.energy_j, 25784, 1e-12);
	CHECK_NEAR(c.energy_tdp_j, 28600, 1e-12);
	CHECK_NEAR(c.cost_usd, 16 * 2 / 3600.0 * 2, 1e-12);
	sweep_train t;
	sweep_train_cost(s, &r, &c, 1e9, &t);
	CHECK_NEAR(t.steps, 1e9 / 262144, 1e-12);
	CHECK_NEAR(t.gpu_hours, t.steps * 2 * 16 / 3600, 1e-12);
	CHECK_NEAR(t.tco2, t.energy_kwh * 0.423 / 1000, 1e-12); /* default intensity */
	CHECK_NEAR(t.step_factor, 1, 0);
	/* with a sampled spread whose mean step is 2.1 s: every time-proportional
	 * figure x 1.05 (steps of the mean, at the step's power) */
	sweep_train u;
	r.spread.samples = 100;
	r.spread.mean_s = 2.1;
	sweep_train_cost(s, &r, &c, 1e9, &u);
	CHECK_NEAR(u.step_factor, 1.05, 1e-12);
	CHECK_NEAR(u.steps, t.steps, 0);
	CHECK_NEAR(u.time_s, t.steps * 2.1, 1e-12);
	CHECK_NEAR(u.gpu_hours, 1.05 * t.gpu_hours, 1e-12);
	CHECK_NEAR(u.energy_kwh, 1.05 * t.energy_kwh, 1e-12);
	CHECK_NEAR(u.cost_usd, 1.05 * t.cost_usd, 1e-12);
	plan_scenario_free(s);
}

/* Pruning reasons count plans by the message with its numbers as '#', and
 * keep the first plan's own message as the example. Quickstart (16 GPUs,
 * pp 2, global_batch 128) with tp 1, 2, 4 (dp 8, 4, 2) and micro_batch 3, 5,
 * 6 (tp fastest): no micro-batch divides 128 / dp, so all 9 plans are pruned
 * for one reason, whose example is plan 0's (micro_batch 3, dp 8: 3*8 = 24).
 * Screened in 3 parts (MPI ranks), part 1's own first example is plan 1's
 * (tp 2: 3*4 = 12), and the recount still gives plan 0's. */
static void test_prune_examples(void)
{
	sweep_space *sp = sweep_space_new();
	add(sp, "parallel.micro_batch=3,5,6", SIM_OK, NULL);
	add(sp, "parallel.tp=1,2,4", SIM_OK, NULL);
	plan_scenario *s = load(NULL, 0);
	sweep_screen_result one, part[3];
	CHECK_INT(sweep_screen(sp, s, QUICKSTART, NULL, 0, &one), SIM_OK);
	CHECK_INT(one.valid, 0);
	if (CHECK_INT(one.nreasons, 1)) {
		CHECK_STR(one.reasons[0], "global_batch = # is not a multiple of micro_batch*dp = "
		                          "#*# = #");
		CHECK_STR(one.examples[0], "global_batch = 128 is not a multiple of micro_batch*dp "
		                           "= 3*8 = 24");
		CHECK_INT(one.reason_count[0], 9);
	}
	static char tables[3 * SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	static char examples[3 * SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	for (uint64_t r = 0; r < 3; r++) {
		CHECK_INT(sweep_screen_part(sp, s, QUICKSTART, NULL, 0, r, 3, &part[r]), SIM_OK);
		memcpy(tables[r * SWEEP_MAX_REASONS], part[r].reasons, sizeof part[r].reasons);
		memcpy(examples[r * SWEEP_MAX_REASONS], part[r].examples, sizeof part[r].examples);
	}
	CHECK_STR(part[1].examples[0], "global_batch = 128 is not a multiple of micro_batch*dp "
	                               "= 3*4 = 12");
	for (uint64_t i = 0; i < part[0].nplans; i++)
		part[0].plans[i] = part[i % 3].plans[i];
	sweep_screen_recount(&part[0], (const char(*)[SWEEP_REASON_MAX])tables,
	                     (const char(*)[SWEEP_REASON_MAX])examples, 3);
	CHECK_STR(part[0].examples[0], one.examples[0]);
	CHECK_INT(part[0].reason_count[0], 9);
	for (int r = 0; r < 3; r++)
		sweep_screen_free(&part[r]);
	sweep_screen_free(&one);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* Points (time, gpus, cost): 0 (1, 16, 2), 1 (2, 8, 1), 2 (2, 16, 2) is
 * dominated by 0, 3 (1, 16, 2) equals 0 (neither dominates). */
static void test_pareto(void)
{
	double a[] = {1, 2, 2, 1}, b[] = {16, 8, 16, 16}, c[] = {2, 1, 2, 2};
	bool f[4];
	sweep_pareto(a, b, c, 4, f);
	CHECK(f[0] && f[1] && !f[2] && f[3]);
	double x[] = {1, 2, 3, 4}, y[] = {1, 3, 2, 4};
	CHECK_NEAR(sweep_kendall_tau(x, y, 4), (5.0 - 1.0) / 6.0, 1e-12); /* 5 concordant, 1 not */
}

/* Risky plans (sweep_risky): medians, p95 and the p95's confidence
 * intervals of five plans.
 *   0: p50 10, p95 14 [13, 15]   the best median, a long tail
 *   1: p50 11, p95 12 [11.5, 12.5]  slower median, its p95 interval below
 *      0's: 0 is risky against 1
 *   2: p50 12, p95 12.9 [12.2, 13.5]  overlaps 0's interval: no reason
 *   3: p50 10, p95 11 [10.5, 11.5]  ties 0's median (no better): 0 is
 *      risky, and 3 has the lower p95, so 3 is 0's reason; 3 is not risky
 *   4: no spread (NaN): neither risky nor a reason
 * 1 is risky against 3 (median 10 < 11 is better, not "no better"): no. */
static void test_risky(void)
{
	double p50[] = {10, 11, 12, 10, NAN}, p95[] = {14, 12, 12.9, 11, NAN};
	double lo[] = {13, 11.5, 12.2, 10.5, NAN}, hi[] = {15, 12.5, 13.5, 11.5, NAN};
	long vs[5];
	sweep_risky(p50, p95, lo, hi, 5, vs);
	CHECK_INT(vs[0], 3);
	CHECK_INT(vs[1], -1);
	CHECK_INT(vs[2], -1);
	CHECK_INT(vs[3], -1);
	CHECK_INT(vs[4], -1);
	p50[3] = 9; /* now 3's median is better than 0's: 0's reason is 1 */
	sweep_risky(p50, p95, lo, hi, 5, vs);
	CHECK_INT(vs[0], 1);
	hi[1] = 13.2; /* 1's interval reaches 0's: sampling could explain it */
	sweep_risky(p50, p95, lo, hi, 5, vs);
	CHECK_INT(vs[0], -1);
}

/* Three parts of the screen (as three MPI ranks would run them), put
 * together and recounted, equal one screen: statuses, estimates, reasons
 * in the same order with the same counts. */
static void test_parts(void)
{
	sweep_space *sp = space_48();
	plan_scenario *s = load(NULL, 0);
	sweep_screen_result one, part[3];
	CHECK_INT(sweep_screen(sp, s, QUICKSTART, NULL, 0, &one), SIM_OK);
	static char tables[3 * SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	static char examples[3 * SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	for (uint64_t r = 0; r < 3; r++) {
		CHECK_INT(sweep_screen_part(sp, s, QUICKSTART, NULL, 0, r, 3, &part[r]), SIM_OK);
		memcpy(tables[r * SWEEP_MAX_REASONS], part[r].reasons, sizeof part[r].reasons);
		memcpy(examples[r * SWEEP_MAX_REASONS], part[r].examples, sizeof part[r].examples);
	}
	for (uint64_t i = 0; i < part[0].nplans; i++)
		part[0].plans[i] = part[i % 3].plans[i];
	sweep_screen_recount(&part[0], (const char(*)[SWEEP_REASON_MAX])tables,
	                     (const char(*)[SWEEP_REASON_MAX])examples, 3);
	CHECK_INT(part[0].valid, one.valid);
	CHECK_INT(part[0].fitting, one.fitting);
	if (CHECK_INT(part[0].nreasons, one.nreasons))
		for (int i = 0; i < one.nreasons; i++) {
			CHECK_STR(part[0].reasons[i], one.reasons[i]);
			CHECK_STR(part[0].examples[i], one.examples[i]);
			CHECK_INT(part[0].reason_count[i], one.reason_count[i]);
		}
	for (uint64_t i = 0; i < one.nplans; i++) {
		CHECK_INT(part[0].plans[i].status, one.plans[i].status);
		CHECK_INT(part[0].plans[i].reason, one.plans[i].reason);
		CHECK(part[0].plans[i].est.step_s == one.plans[i].est.step_s);
	}
	for (int r = 0; r < 3; r++)
		sweep_screen_free(&part[r]);
	sweep_screen_free(&one);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* auto for cp, ep, order and shard_size on the quickstart (16 GPUs, GPT
 * 1.7B dense, seq 2048):
 *   cp: c | 16 and c | 2048/2 = 1024 -> 1, 2, 4, 8, 16
 *   ep: a dense model has ep 1 only
 *   order: the 24 permutations of tp, cp, dp, pp, tp-cp-dp-pp first
 *   shard_size: 0 (all of dp*cp), then the divisors of 16 below 16. */
static void test_auto_more(void)
{
	sweep_space *sp = sweep_space_new();
	add(sp, "parallel.cp=auto", SIM_OK, NULL);
	add(sp, "parallel.ep=auto", SIM_OK, NULL);
	add(sp, "parallel.order=auto", SIM_OK, NULL);
	add(sp, "parallel.shard_size=auto", SIM_OK, NULL);
	add(sp, "parallel.order=tp-dp", SIM_ECONF, NULL); /* a bad order */
	plan_scenario *s = load(NULL, 0);
	sim_diag *d = sim_diag_new();
	CHECK_INT(sweep_space_resolve(sp, s, d), SIM_OK);
	CHECK_INT(sweep_space_nvalues(sp, 0), 5);
	CHECK_STR(sweep_space_value(sp, 0, 4), "16");
	CHECK_INT(sweep_space_nvalues(sp, 1), 1);
	CHECK_STR(sweep_space_value(sp, 1, 0), "1");
	CHECK_INT(sweep_space_nvalues(sp, 2), 24);
	CHECK_STR(sweep_space_value(sp, 2, 0), "tp-cp-dp-pp");
	CHECK_STR(sweep_space_value(sp, 2, 23), "pp-dp-cp-tp");
	CHECK_INT(sweep_space_nvalues(sp, 3), 5);
	CHECK_STR(sweep_space_value(sp, 3, 0), "0");
	CHECK_STR(sweep_space_value(sp, 3, 4), "8");
	sim_diag_free(d);
	plan_scenario_free(s);
	sweep_space_free(sp);
}

/* The topology swap: the cluster include replaced, --set values written
 * into the text (replacing a key, adding one to a section, a new section). */
static void test_topology_text(void)
{
	sim_diag *d = sim_diag_new();
	const char *sets[] = {"parallel.tp=4", "parallel.ep=1", "gpu.hbm=16 GB"};
	char *text = NULL, abs[PATH_MAX];
	CHECK_INT(sweep_topology_text(QUICKSTART, "topologies/dgx-h100-superpod.ini", sets, 3, d,
	                              &text),
	          SIM_OK);
	CHECK(realpath("topologies/dgx-h100-superpod.ini", abs) != NULL);
	char want[PATH_MAX + 32];
	snprintf(want, sizeof want, "\ninclude = %s\n", abs);
	CHECK(text && strstr(text, want));
	CHECK(text && !strstr(text, "tiny-2node"));
	CHECK(text && strstr(text, "include = ../models/megatron-1.7b.ini\n"));
	CHECK(text && strstr(text, "[parallel]\nep = 1\ntp = 4\npp = 2\n"));
	CHECK(text && !strstr(text, "tp = 2"));
	size_t n = text ? strlen(text) : 0;
	CHECK(n > 20 && !strcmp(text + n - 18, "[gpu]\nhbm = 16 GB\n"));
	free(text);
	/* A sweep over both clusters: dp derived per topology (16 and 256 GPUs). */
	sweep_space *sp = sweep_space_new();
	add(sp, "topology=topologies/tiny-2node.ini,topologies/dgx-h100-superpod.ini", SIM_OK,
	    NULL);
	add(sp, "parallel.tp=2,4", SIM_OK, NULL);
	add(sp, "topology=auto", SIM_ECONF,
	    "podsim sweep: error: --vary topology=auto: topology is varied twice");
	plan_scenario *s = load(NULL, 0);
	sweep_screen_result r;
	CHECK_INT(sweep_screen(sp, s, QUICKSTART, NULL, 0, &r), SIM_OK);
	if (CHECK_INT(r.nplans, 4)) {
		CHECK_INT(r.plans[0].gpus, 16);
		CHECK_INT(r.plans[0].dp, 4); /* 16 / (tp 2 x pp 2) */
		CHECK_INT(r.plans[3].gpus, 256);
		CHECK_INT(r.plans[3].dp, 32); /* 256 / (tp 4 x pp 2) */
		CHECK_INT(r.plans[3].status, SWEEP_OK);
	}
	sweep_screen_free(&r);
	sweep_space *bad = sweep_space_new();
	add(bad, "topology=auto", SIM_ECONF,
	    "podsim sweep: error: --vary topology=auto: topology=auto: list the topology files "
	    "(topologies/*.ini)");
	sweep_space_free(bad);
	plan_scenario_free(s);
	sweep_space_free(sp);
	sim_diag_free(d);
}

/* Measured against the simulation (the pre-screen's purpose is ranking):
 * Mixtral 8x7B (MoE, ep 8) on 32 H100, 1F1B and ZB-H1. Tolerance 5 % on the
 * step (measured 1.5-2 %: the dense-only pre-screen was 40 % low here), and
 * ZB-H1 is faster than 1F1B in both. */
static void test_moe_zb(void)
{
	double est[2], sim[2];
	/* tp_dgrad_async = never: the backward's reduce-scatter blocks under both
	 * schedules (ZB-H1 moves the wgrad GEMM it would run beside into W, so
	 * with `always` 1F1B gains that overlap and the two steps come within
	 * 0.1 %: the ranking under test here is the bubble's) */
	const char *sched[2][3] = {{"parallel.schedule=1f1b", "framework.runs_schedules=1f1b,zb-h1",
				    "framework.tp_dgrad_async=never"},
				   {"parallel.schedule=zb-h1", "framework.runs_schedules=1f1b,zb-h1",
				    "framework.tp_dgrad_async=never"}};
	for (int i = 0; i < 2; i++) {
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		CHECK_INT(
		        plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", sched[i], 3, d, &s),
		        SIM_OK);
		sim_diag_free(d);
		if (!s)
			return;
		sweep_estimate e;
		sweep_estimate_plan(s, &e);
		exec_result *r = malloc(sizeof *r);
		CHECK_INT(exec_run(s, r), SIM_OK);
		est[i] = e.step_s;
		sim[i] = r->step_s;
		CHECK_NEAR(e.step_s, r->step_s, 0.05);
		free(r);
		plan_scenario_free(s);
	}
	CHECK(est[1] < est[0]);
	CHECK(sim[1] < sim[0]);
}

/* The scenario at `path` with `sets`: the pre-screen's step within relative
 * `tol` of the simulated one, and its lower bound under it. */
static void estimate_near(const char *path, const char *const *sets, int n, double tol)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load(path, sets, n, d, &s), SIM_OK);
	sim_diag_free(d);
	exec_result *r = s ? malloc(sizeof *r) : NULL;
	if (r && CHECK_INT(exec_run(s, r), SIM_OK)) {
		sweep_estimate e;
		sweep_estimate_plan(s, &e);
		CHECK_NEAR(e.step_s, r->step_s, tol);
		CHECK(e.bound_s <= r->step_s);
	}
	free(r);
	plan_scenario_free(s);
}

/* The pre-screen's exposed DP (sweep_estimate.dp_s, estimate.c dp_tail:
 * the buckets of plan_grad_buckets with their launch points, run in order
 * on the DP stream, the compute beside them slowed by the interference)
 * against the simulation, on plans without a pipeline: Llama 3 8B on 2 and
 * 16 p5 nodes (EFA). Cases: Megatron-Core's 25M-parameter buckets under
 * overlap_grad_reduce with ZeRO-1 (each launched after its layer's last
 * backward: only the last, layer 0 with the embedding, and the optimizer's
 * all-gather are exposed, plus the interference's loss); the same without
 * overlap (one bucket after the backward); tp 2 with ZeRO-0 all-reduce
 * buckets; nanotron's DDP buckets at dp 64, where the stream cannot keep up
 * with the backward (32 buckets of 14 ms against 10 ms of backward per
 * layer) and the backlog is exposed; the first two again with a bf16 wire
 * under the fp32 buffer (grad_wire_dtype = params: half the bytes, a cast and
 * a copy back around each bucket). With tp = 1 the simulation's DP
 * category is the same quantity (exec charges the interference's loss to
 * the collective started last, which with tp > 1 is often a TP one):
 * within 2 % + 1 ms (measured 0.0 %; the old fraction-of-one-bucket rule
 * missed the interference's loss, 17 % low in case 0). Every case's step
 * within 1 % (measured 0.01-0.4 %). The bound stays admissible: it counts
 * no DP. */
static void test_dp_buckets(void)
{
	struct {
		const char *path, *sets[3];
		int n;
	} c[] = {
		{"scenarios/llama3-8b-efa.ini", {"parallel.micro_batch=2"}, 1},
		{"scenarios/llama3-8b-efa.ini", {"parallel.overlap_grad_reduce=false"}, 1},
		{"scenarios/llama3-8b-efa.ini", {"parallel.tp=2", "parallel.dp=8", "parallel.zero=0"}, 3},
		{"scenarios/llama3-8b-efa-nanotron.ini", {"parallel.pp=1", "parallel.tp=2", "parallel.dp=64"}, 3},
		/* a bf16 wire under the fp32 buffer (DeepSpeed's grad_wire_dtype),
		 * overlapped and not: the casts around each bucket count alike */
		{"scenarios/llama3-8b-efa.ini", {"parallel.micro_batch=2", "framework.grad_wire_dtype=params"}, 2},
		{"scenarios/llama3-8b-efa.ini",
		 {"parallel.overlap_grad_reduce=false", "framework.grad_wire_dtype=params"}, 2},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		CHECK_INT(plan_scenario_load(c[i].path, c[i].sets, (size_t)c[i].n, d, &s), SIM_OK);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
		if (!s)
			continue;
		sweep_estimate e;
		sweep_estimate_plan(s, &e);
		exec_result *r = malloc(sizeof *r);
		if (r && CHECK_INT(exec_run(s, r), SIM_OK)) {
			double dp = 0;
			for (int k = 0; k < r->nclasses; k++)
				dp = fmax(dp, r->classes[k].time_s[EXEC_CAT_DP]);
			CHECK(dp > 0);
			if (s->plan.tp == 1)
				CHECK_NEAR(e.dp_s, dp, 0.02 + 1e-3 / dp);
			CHECK_NEAR(e.step_s, r->step_s, 0.01);
			CHECK(e.bound_s <= r->step_s);
		}
		free(r);
		plan_scenario_free(s);
	}
	/* DeepSpeed ZeRO-3 (zero3_reduce = bucket, zero3_modules = hf): the
	 * pre-screen times each IPG bucket at its size (plan_zero3_bucket_list).
	 * Llama 3 8B at dp 16 on EFA: its root unit's bucket (embedding and
	 * output layer, 4.2 GB of fp32 gradients) is the largest; timing every
	 * bucket as that one made the estimate 23.8 s against 10.3 s simulated.
	 * The ZeRO-3 pre-screen leaves the host's slicing and the deeper
	 * prefetch out: within 10 % (measured -5.3 %, -1.0 % with the chain
	 * ends and the interference below). */
	const char *z3[] = {"parallel.zero=3", "framework.zero3_modules=hf",
			    "framework.zero3_reduce=bucket"};
	estimate_near("scenarios/llama3-8b-efa.ini", z3, 3, 0.10);
	/* ZeRO-3 per unit (FSDP's): the quickstart without a pipeline, dp 8,
	 * one and four micro-batches. Beside the per-layer waits the step
	 * pays, per micro-batch, each chain's first gather (the forward's and
	 * the backward's: nothing runs before them) and the backward's last
	 * reduction (the next forward's first gather queues behind it, or the
	 * optimizer waits for it), and the compute beside every hidden gather
	 * and reduction runs at 1 - interference (estimate.c dp_exposed).
	 * Within 1.5 % of the simulation (measured +0.6 % and +0.7 %; -3.2 %
	 * and -3.1 % without those terms). */
	for (int gb = 32; gb <= 128; gb *= 4) {
		char g[48];
		snprintf(g, sizeof g, "parallel.global_batch=%d", gb);
		const char *u[] = {"parallel.zero=3", "parallel.pp=1", "parallel.dp=8", g};
		estimate_near("scenarios/quickstart.ini", u, 4, 0.015);
	}
}

/* overlap_param_gather in the pre-screen (estimate.c pgather_stage), on an
 * analytic case: Llama 3 8B on one DGX H100, dp 8 with ZeRO-1 (the
 * distributed optimizer), micro-batch 2, no pipeline. The gathers are the
 * gradient buckets (plan_grad_buckets, backward order), all issued at the
 * step start in forward order on the DP stream: c_b each (its 16-bit
 * parameters over the shard group), gather b ending at G_b = c_1 + .. + c_b.
 * The first buckets in forward order, the backward's last, hold layer 0's
 * tensors (the last, the rest of layer 0 and the embedding; the one before,
 * layer 1's rest and layer 0's MLP: buckets close after the tensor that
 * fills them, grad_bucket_split = tensor) and are waited for by the step's
 * first task at a_1 = 0, so the forward is late by at least their G_1.
 * Every later bucket b ends before the
 * forward reaches its lowest layer l_b, which takes at least l_b layer
 * forwards, each at least its weight GEMMs' 2 P_layer T FLOPs (T = 2 x 8,192
 * tokens, tp 1) at the GPU's bf16 peak:
 *   G_b <= l_b x 2 P_layer T / peak <= a_b   (checked below),
 * so the delay D = max_b (G_b - a_b) is G_1, and with the GPU's
 * interference i on the compute that runs beside the rest of the gathers,
 *   X = D + i (G_n - D) = G_1 + i (G_n - G_1).
 * Without the overlap the pre-screen counts the whole gather W after the
 * optimizer step and nothing else changes:
 *   dp_s(off) - dp_s(on) = W - X.
 * Against the simulation (measured, tp 1: its DP category is the same
 * quantity): the estimate's DP within 2 % + 1 ms, its step within 1 %; the
 * bound stays under the simulated step. */
static void test_param_gather(void)
{
	const char *on[] = {"parallel.micro_batch=2", "parallel.overlap_param_gather=true"};
	const char *off[] = {"parallel.micro_batch=2"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL, *o = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", on, 2, d, &s), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", off, 1, d, &o), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	int cap = s ? plan_grad_bucket_cap(s) : 0;
	plan_grad_bucket *bk = s ? malloc((size_t)cap * sizeof *bk) : NULL;
	int nb = bk ? plan_grad_buckets(s, 0, bk, cap) : 0;
	CHECK(nb > 2 && s->plan.pp == 1 && s->plan.tp == 1 && s->plan.zero == 1);
	if (o && nb > 2) {
		plan_groups g;
		plan_make_groups(s, &g);
		double wb = 2.0 / plan_grad_bytes(s); /* bf16 parameters per gradient byte */
		double T = 2.0 * s->model.seq_len, peak = hw_peak(&s->gpu, HW_BF16);
		double fwd_lb = 2 * work_params_layer(&s->model) * T / peak;
		double G = 0, G1 = 0;
		net_cost c;
		for (int b = nb - 1; b >= 0; b--) { /* forward order */
			CHECK_INT(net_collective(&s->cluster, NET_ALLGATHER, &g.shard,
			                         bk[b].dense_bytes * wb, &c),
			          SIM_OK);
			G += c.time_s;
			if (bk[b].layer == 0) /* the buckets holding layer 0's tensors, first */
				G1 = G, CHECK(b == nb - 1 || bk[b + 1].layer == 0);
			else
				CHECK(G <= bk[b].layer * fwd_lb);
		}
		/* the compute beside the gathers slowed by the shard group's
		 * share (the interference times the channels it runs the
		 * gathers on over 16; the first bucket's, as the estimate) */
		double i = s->gpu.interference *
			   plan_coll_scale(s, NET_ALLGATHER, &g.shard, bk[0].dense_bytes * wb);
		double X = G1 + i * (G - G1), W, E;
		plan_zero_gather_bytes(o, 0, g.edp.size, &W, &E);
		CHECK(W > 0 && E == 0); /* a dense model: all over the shard group */
		CHECK_INT(net_collective(&o->cluster, NET_ALLGATHER, &g.shard, W, &c), SIM_OK);
		W = c.time_s;
		sweep_estimate es, eo;
		sweep_estimate_plan(s, &es);
		sweep_estimate_plan(o, &eo);
		CHECK_NEAR(eo.dp_s - es.dp_s, W - X, 1e-9);
		CHECK(X < W);
		exec_result *r = malloc(sizeof *r);
		if (r && CHECK_INT(exec_run(s, r), SIM_OK)) {
			double dp = r->classes[0].time_s[EXEC_CAT_DP];
			CHECK_NEAR(es.dp_s, dp, 0.02 + 1e-3 / dp);
			CHECK_NEAR(es.step_s, r->step_s, 0.01);
			CHECK(es.bound_s <= r->step_s);
		}
		free(r);
	}
	free(bk);
	plan_scenario_free(s);
	plan_scenario_free(o);
}

/* store_merge refuses an input of another schema version. */
static void test_merge_schema(void)
{
	char in[] = "/tmp/podsim-test-mergeXXXXXX", out[64];
	int fd = mkstemp(in);
	CHECK(fd >= 0);
	close(fd);
	unlink(in);
	snprintf(out, sizeof out, "%s.out", in);
	sim_diag *d = sim_diag_new();
	store *db = NULL;
	CHECK_INT(store_open(in, &db, d), SIM_OK);
	store_close(db);
	sqlite3 *raw;
	CHECK_INT(sqlite3_open(in, &raw), SQLITE_OK);
	CHECK_INT(sqlite3_exec(raw, "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	CHECK_INT(store_open(out, &db, d), SIM_OK);
	const char *ins[] = {in};
	int64_t runs = -1, sweeps = -1, serve = -1;
	CHECK_INT(store_merge(db, ins, 1, &runs, &sweeps, &serve, d), SIM_EDB);
	char want[256];
	snprintf(want, sizeof want,
	         "%s: error: schema version 3, this podsim merges version %d only (run 'podsim "
	         "runs --db FILE' once to migrate it)",
	         in, STORE_SCHEMA_VERSION);
	if (CHECK_INT(sim_diag_count(d), 1))
		CHECK_STR(sim_diag_text(d, 0), want);
	CHECK_INT(runs, 0);
	store_close(db);
	sim_diag_free(d);
	const char *sfx[] = {"", "-wal", "-shm"};
	for (int i = 0; i < 3; i++) {
		char p[96];
		snprintf(p, sizeof p, "%s%s", in, sfx[i]);
		unlink(p);
		snprintf(p, sizeof p, "%s%s", out, sfx[i]);
		unlink(p);
	}
}

/* Hybrid sharding in the pre-screen: plan_dp_grad_bytes gives one rank's
 * whole local gradient bytes (what a reduce-scatter over the shard group
 * starts from), whatever the shard group:
 * the quickstart without a pipeline on dp 8 under ZeRO-3 gives the same
 * bytes fully sharded and with shard_size 2 or 4 (before, the replicas'
 * count multiplied them: 4x and 2x). The HSDP plan's estimate then stays
 * near its simulated step: within 2 % (0.6 % when written), with the
 * replicas' all-reduce charged at its own group's interference (estimate.c
 * z3_exposed; at the shard group's it was 4 % over on fms-fsdp's 13B). */
static void test_hsdp_bytes(void)
{
	const char *full[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3"};
	const char *h2[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			    "parallel.shard_size=2"};
	const char *h4[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			    "parallel.shard_size=4"};
	plan_scenario *a = load(full, 3), *b = load(h2, 4), *c = load(h4, 4);
	if (a && b && c) {
		double ga = plan_dp_grad_bytes(a, 0), gb = plan_dp_grad_bytes(b, 0),
		       gc = plan_dp_grad_bytes(c, 0);
		CHECK(ga > 0);
		CHECK_NEAR(gb, ga, 1e-12);
		CHECK_NEAR(gc, ga, 1e-12);
		sweep_estimate e;
		exec_result r;
		sweep_estimate_plan(b, &e);
		if (CHECK_INT(exec_run(b, &r), SIM_OK))
			CHECK(fabs(e.step_s - r.step_s) < 0.02 * r.step_s);
	} else {
		CHECK(false);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
}

/* A looped schedule with fewer micro-batches than stages (looped BFS on pp
 * 4, 2 chunks a rank, m = 2: tests/golden/pipeline-gantt-bfs.ini with a
 * global batch of 4) waits at each chunk turn for its first micro-batch to
 * come round, (v - 1)(p - m) T / v: the closed form, which adds it, was
 * within 10 % of the simulated step (26 % under without it); the walk
 * (pipewalk.c), which meets the wait step by step, within 0.5 %. */
static void test_few_microbatches_looped(void)
{
	const char *set[] = {"parallel.global_batch=4"};
	est_near_sim(scen_file("tests/golden/pipeline-gantt-bfs.ini", set, 1), 2, 0.005);
	/* ... under torchtitan's default FSDP (zero_default 3; the golden
	 * states zero = 0): the pre-screen within 2 % (+1.7 %), its bound
	 * still under the simulated step */
	const char *z3[] = {"parallel.global_batch=4", "parallel.zero=3"};
	est_near_sim(scen_file("tests/golden/pipeline-gantt-bfs.ini", z3, 2), 2, 0.02);
}

/* est_near_sim on the quickstart under framework profile fw with [parallel]
 * lines par. */
static void est_quickstart(const char *fw, const char *par, double tol)
{
	char text[512];
	snprintf(text, sizeof text,
	         "include = scenarios/quickstart.ini\ninclude = topologies/frameworks/%s.ini\n"
	         "[parallel]\n%s",
	         fw, par);
	est_near_sim(scen_load(text), 0, tol);
}

/* Context parallelism's ring (work/layer.c attn_ring, plan/emit.c
 * link_deps): transfer k is issued before attention step k - 1 and step k
 * waits for it, so only the steps before k hide it. The estimate hid the
 * layer's whole ring behind all its attention steps (ring - attention
 * exposed): Transformer Engine's ring (the nemo profile) on the
 * quickstart's model at 8k tokens, tp 1, cp 8, pp 2, one sequence a
 * micro-batch, was 6.5, 11.3 and 9.6 % under the simulated step without,
 * with selective and with full recomputation (tools/prescreen-audit), and
 * tp 2, cp 2 at 2k tokens 3.2 % under; now within 0.6 %. */
/* Under zero3_sync (DeepSpeed 0.3.13-0.5.x) each layer's entry waits for
 * the reduction before it with the GPU idle (emit.c zero3_entry), so the
 * backward has only the prefetched gather beside it: the pre-screen
 * counted the reduction there as well (its excess and the compute's
 * interference beside it), on top of the wait. GPT-3 175B under the
 * deepspeed-2021 profile on 128 A100s, one sequence a micro-batch: 4.4 %
 * over the simulated step, now 1.5 % (what is left: the per-tensor
 * reduce-scatters of a layer, 34.9 ms in the graph, averaged over the
 * buckets as 37.6). */
static void test_z3_sync_reduce(void)
{
	const char *set[] = {"cluster.nodes=16", "parallel.dp=128", "parallel.global_batch=256"};
	est_near_sim(scen_file("scenarios/gpt3-175b-deepspeed-zero3-2021.ini", set, 3), 2, 0.025);
}

/* nanotron's ZeRO-1 gather loops (plan_zero_gather_host): the host's
 * per-rank loops from the backward's end and the GPU's copies after both
 * them and the gather (build_emit_optimizer's copy task waits for the
 * two). Llama 3 8B on 16 p5 nodes, tp 1, dp 128, one sequence a
 * micro-batch: the loops end 368 ms past the backward, the reduction, step
 * and gather 311 ms, the copies 32 ms after the later: the pre-screen took
 * the copies beside the loops' excess, 2.3 % under the simulated step; now
 * within 0.5 % (its ZeRO-0 twin has no such loops). */
static void test_zero_gather_copies(void)
{
	const char *set[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=128",
	                     "parallel.micro_batch=1", "parallel.zero=1",
	                     "parallel.sequence_parallel=false"};
	est_near_sim(scen_file("scenarios/llama3-8b-efa-nanotron.ini", set, 6), 2, 0.005);
}

/* Inference (train.mode = inference): the graph runs the forwards alone,
 * no gradients, no optimizer (plan_build, pipe.c), and the pre-screen
 * priced a training step: 3.3x the simulated step on the quickstart's
 * plans, every bound above its step (the exact search could return any of
 * them). Now the forwards alone, a pipeline walked through its forwards
 * (tp 4, pp 2, one sequence a micro-batch: 4.0 % under closed, each
 * micro-batch's transfer exposed), and ZeRO-Inference's weights streamed
 * from the host layer by layer (sweep_z3_stream_exposed: GPT-3 175B on one
 * A100, 44 s estimated against 28 and 55 simulated at two and one
 * sequences a micro-batch): each within 0.5 %, bounds below. */
static void test_inference(void)
{
	const char *pp2[] = {"train.mode=inference", "parallel.tp=4", "parallel.pp=2",
	                     "parallel.dp=2", "parallel.micro_batch=1"};
	est_near_sim(scen_file(QUICKSTART, pp2, 5), 64, 0.005);
	const char *pp1[] = {"train.mode=inference", "parallel.tp=1", "parallel.pp=1",
	                     "parallel.dp=16", "parallel.micro_batch=8"};
	est_near_sim(scen_file(QUICKSTART, pp1, 5), 1, 0.005);
	for (int mb = 1; mb <= 2; mb++) {
		char set[64];
		snprintf(set, sizeof set, "parallel.micro_batch=%d", mb);
		const char *z[] = {set};
		est_near_sim(scen_file("scenarios/gpt3-175b-zero-inference.ini", z, 1), 4 / mb, 0.005);
	}
}

/* train.frozen_layers: the frozen prefix (and the embedding with it) has
 * no backward in the graph (chain.c), where the pre-screen gave every
 * layer one: the quickstart's model with its first 8 layers frozen,
 * untied embeddings, was estimated up to 23 % over the simulated step, its
 * bound above it on five plans of eight (tools/prescreen-audit). Now the
 * frozen layers' forwards alone: within 0.5 % without a pipeline, 1.5 %
 * at pp 2. */
static void test_frozen(void)
{
	const char *pp1[] = {"train.frozen_layers=8", "model.untied_embeddings=true",
	                     "parallel.tp=1", "parallel.pp=1", "parallel.dp=16",
	                     "parallel.micro_batch=1"};
	est_near_sim(scen_file(QUICKSTART, pp1, 6), 8, 0.005);
	const char *pp2[] = {"train.frozen_layers=8", "model.untied_embeddings=true",
	                     "parallel.tp=1", "parallel.pp=2", "parallel.dp=8",
	                     "parallel.micro_batch=1"};
	est_near_sim(scen_file(QUICKSTART, pp2, 6), 16, 0.015);
}

/* ZeRO-Infinity (offload_params with ZeRO-3 training): each layer's shard
 * copied in from the host or NVMe before its gather, its gradient shard out
 * after its reduction, on the offload stream (emit.c unit_gather,
 * reduce_tail); where the copies outlast the compute they set the pace. The
 * pre-screen left them out ("not modelled"): Llama 2 13B on 8 A100 with
 * the parameters on NVMe, one sequence a micro-batch, 10.7 % under the
 * simulated step; now within 2 % (+1.3 %). */
static void test_zero_infinity_copies(void)
{
	const char *set[] = {"parallel.zero=3", "parallel.offload_params=nvme",
	                     "parallel.micro_batch=1"};
	est_near_sim(scen_file("scenarios/llama2-13b-zero-offload.ini", set, 3), 8, 0.02);
}

/* Tied embeddings under a pipeline are all-reduced between the first and
 * last stages after both backwards (grads.c build_emit_embedding_sync)
 * whatever the ZeRO stage; the pre-screen counted it below ZeRO-3 only:
 * torchtitan's ZeRO-3 (its reductions after the last backward, the sync
 * behind them), tp 1, pp 2, dp 8, one sequence a micro-batch, 1.9 % under
 * the simulated step (19.7 ms of sync), within 0.5 % with it. */
static void test_z3_embedding_sync(void)
{
	est_quickstart("torchtitan", "tp = 1\npp = 2\ndp = 8\nzero = 3\nmicro_batch = 1\n", 0.005);
}

/* A cluster of two GPU types ([cluster] other_gpu, other_nodes): the
 * simulation replays each data-parallel replica at its own GPUs'
 * durations, the step the slowest's (exec/straggle.c). Llama 2 70B on H100
 * with two A100 nodes (llama2-70b-h100-a100.ini), tp 4, pp 8: estimated as
 * H100 throughout, 52 % under the simulated step; with the stages those
 * nodes hold on the A100's view (sweep_estimate_plan), within 2 %. */
static void test_mixed_gpus(void)
{
	const char *set[] = {"parallel.tp=4", "parallel.pp=8", "parallel.dp=8",
	                     "parallel.micro_batch=1"};
	est_near_sim(scen_file("scenarios/llama2-70b-h100-a100.ini", set, 4), 0, 0.02);
}

static void test_cp_ring_steps(void)
{
	static const char *rc[] = {"none", "selective", "full"};
	for (int i = 0; i < 3; i++) {
		char par[160];
		snprintf(par, sizeof par,
		         "tp = 1\ncp = 8\npp = 2\ndp = 1\nmicro_batch = 1\nrecompute = %s\n"
		         "[model]\nseq_len = 8192\n",
		         rc[i]);
		est_quickstart("nemo", par, 0.006);
	}
	est_quickstart("nemo", "tp = 2\ncp = 2\npp = 1\ndp = 4\nmicro_batch = 1\n", 0.006);
}

/* The optimizer on the CPU moves the step, not the data-parallel traffic:
 * DeepSpeed reduces the gradients over DP before copying the shard to the
 * host (ZeRO-3: stage3.py __reduce_and_partition_ipg_grads, then
 * partition_grads' offload copy, :1294-1330 and :1466-1511 at
 * microsoft/DeepSpeed 38327e07; ZeRO-1/2 the same buckets, reduced, then
 * copied), and the graph reduces them alike. The pre-screen took the
 * memory model's zero gradient bytes under offload (the gradients leave
 * HBM) for the bytes reduced: ZeRO-3's reduce-scatters vanished
 * (estimated 32.3 s against 49.0 simulated on the plan below) and ZeRO-1's
 * buckets, overlapped with the backward, became one whole reduction after
 * it (+1.5 %). Now, on Llama 2 70B, tp 8, dp 32, pp 1, at ZeRO-1 and 3:
 * the same exposed DP time with and without offload, and the estimate
 * within 4 % of the simulated step (3.5 % over at ZeRO-3, as without
 * offload). */
static void test_offload_dp(void)
{
	for (int z = 1; z <= 3; z += 2) {
		char zs[32];
		snprintf(zs, sizeof zs, "parallel.zero=%d", z);
		const char *none[] = {"parallel.tp=8", "parallel.pp=1", "parallel.dp=32", zs};
		const char *cpu[] = {"parallel.tp=8", "parallel.pp=1", "parallel.dp=32", zs,
				     "parallel.offload_optimizer=cpu"};
		plan_scenario *a = scen_file("scenarios/llama2-70b-h100.ini", none, 4),
		              *b = scen_file("scenarios/llama2-70b-h100.ini", cpu, 5);
		exec_result r;
		if (a && b && CHECK_INT(exec_run(b, &r), SIM_OK)) {
			sweep_estimate ea, eb;
			sweep_estimate_plan(a, &ea);
			sweep_estimate_plan(b, &eb);
			CHECK(ea.dp_s > 0);
			CHECK_NEAR(eb.dp_s, ea.dp_s, 1e-9);
			CHECK(fabs(eb.step_s - r.step_s) < 0.04 * r.step_s);
		} else {
			CHECK(false);
		}
		plan_scenario_free(a);
		plan_scenario_free(b);
	}
}

/* A ZeRO-3 pass whose DP chain outlasts its compute (torchtitan's FSDP2 at
 * tp 2, dp 8 over two nodes, one sequence a micro-batch: each backward
 * layer's gather, cast and reduce-scatter take 2.06 ms in the replay beside
 * 1.79 ms of kernels) takes the chain's time; the kernels slowed by the
 * interference end inside it. The pre-screen added the slowdown to the
 * chain's excess (max(0, d - c) + i min(c, d)) and was 10.2 % over the
 * simulated step; per pass now c + max(d - c, i min(c, d)): 5.7 % over.
 * The rest was the layer's bytes: the stage's weights averaged over its
 * layers put the embedding and the output layer into every gather and
 * reduce-scatter (69.1 MB a gather against the graph's 63.7, which d - c
 * magnified), where z3_ends moves them apart; with the layer's own unit
 * (plan_zero3_layer) within 2 % (+1.1 %). */
static void test_z3_chain_bound(void)
{
	const char *set[] = {"parallel.pp=1", "parallel.tp=2", "parallel.dp=8",
			     "parallel.micro_batch=1"};
	est_near_sim(scen_file("tests/golden/pp-fsdp-torchtitan.ini", set, 4), 0, 0.02);
}

/* DeepSpeed's ZeRO-3 buckets hold up the gathers queued behind them on the
 * group's one NCCL stream: a 1 GB bucket's reduce-scatter (4.9 ms over two
 * nodes) delays the next layer's prefetched gather past its 3.3 ms
 * backward, by 2.7 ms a bucket (z3_bucket_tail's derivation). The
 * quickstart's model under DeepSpeed, tp 1, dp 16, one sequence a
 * micro-batch, three such buckets a micro-batch: averaged over the layers
 * they held up nothing and the estimate was 10.9 % under the simulated
 * step, 6.0 % with the hold-ups; with each bucket's pass before its
 * reduce-scatter on the DP stream (emit.c ipg_flush: copy, concatenation,
 * division) +1.9 %. The third bucket is closed by the last layer's
 * gradient, so flushed after the backward with the root's, not a hold-up
 * (plan_zero3_bucket_list's mid), and a bucket that holds up a layer
 * takes no interference beyond it (z3_bucket_tail's rsi): +0.7 % (+0.2 %
 * at four sequences, -1.2 % before; the 18.4B on 1,024 A100 of
 * gpt-18b-deepspeed-zero3.ini at 128, -1.0 -> +0.1 %). On one 100 Gb/s
 * NIC a node, where the gathers outlast the compute and the DP stream sets
 * the step, the ends' prefetched gathers (the head's in the forward, the
 * embedding's again before its backward: 19 ms each a micro-batch) hide
 * only behind the compute of the layer they are issued beside (estz3.c
 * z3_ends): -5.5 % taking them as hidden, -0.9 % now. */
static void test_z3_bucket_holdup(void)
{
	est_quickstart("deepspeed", "tp = 1\npp = 1\ndp = 16\nzero = 3\nmicro_batch = 1\n", 0.01);
	est_quickstart("deepspeed", "tp = 1\npp = 1\ndp = 16\nzero = 3\nmicro_batch = 4\n", 0.005);
	est_quickstart("deepspeed",
	               "tp = 1\npp = 1\ndp = 16\nzero = 3\nmicro_batch = 1\n[node]\nnics = 1\n"
	               "nic_bw = 100 Gb/s\n",
	               0.02);
}

/* ZeRO++ hpZ gathers every layer but in the step's first forward over the
 * node's hpZ group, whose all-gathers run on the node's channels (24 inside
 * a DGX A100, plan_comm_scale): the compute beside them slows at 0.148 x
 * 24/16, not at the shard group's share across nodes (one NIC a node: a
 * few channels). The quickstart's model under deepspeed, dp 16, ZeRO-3
 * with hpZ over the node, qwZ and qgZ, one 100 Gb/s NIC a node, one
 * sequence a micro-batch: 4.4 % under the simulated step with the shard
 * group's share, 2.0 % with the hpZ group's (estz3.c sweep_z3_split); with
 * hpZ alone 1.1 %. The bound is 3 %, which the shard group's share fails. */
static void test_z3_hpz_interference(void)
{
	const char *slow = "tp = 1\npp = 1\ndp = 16\nzero = 3\nmicro_batch = 1\nzero_hpz = 8\n"
	                   "zero_quantized_weights = true\nzero_quantized_gradients = true\n"
	                   "[node]\nnics = 1\nnic_bw = 100 Gb/s\n";
	est_quickstart("deepspeed", slow, 0.03);
	est_quickstart("deepspeed",
	               "tp = 1\npp = 1\ndp = 16\nzero = 3\nmicro_batch = 1\nzero_hpz = 8\n"
	               "[node]\nnics = 1\nnic_bw = 100 Gb/s\n",
	               0.02);
}

/* The stage-level walk of a synchronous pipeline (pipewalk.c), by hand: pp
 * 2, m 2, 1F1B, F = 1, B = 2, each send 0.5 s. Stage 0 runs F0 F1 B0 B1,
 * stage 1 F0 B0 F1 B1. Stage 0: F0 0-1, its send 1-1.5 (stage 1 has no op
 * before F0), F1 1.5-2.5 (after its pending send). Stage 1: F0 1.5-2.5, B0
 * 2.5-4.5, its send starts at 4.5 (stage 0's op before B0 is F1, done at
 * 2.5): 4.5-5. Stage 0's send of F1 waits for stage 1's B0 (the op before
 * its F1): 4.5-5; its B0 5-7. Stage 1: F1 at 5 (its send and its input),
 * 5-6, B1 6-8, its send after stage 0's B0 (7): 8-8.5; stage 0's B1
 * 8.5-10.5: span 10.5 s. Under p2p_serial stage 1's send of B0 also waits
 * for the activation of its next forward (F1, sent 4.5-5): 5-5.5, so its
 * F1 5.5-6.5, B1 6.5-8.5, send 8.5-9; stage 0's B0 5.5-7.5, B1 9-11: 11 s.
 * And the estimate of nanotron's Llama 3 8B on 64 p5 nodes, tp 8, pp 8,
 * one sequence a micro-batch (128), whose transfers' handshakes and host
 * synchronisations the rendezvous make every stage wait for: within 2 % of
 * the simulated step (17.3 % under with the closed form's bubble). */
static void test_pipe_walk(void)
{
	plan_scenario *s = scen_load("include = scenarios/quickstart.ini\n"
	                             "[parallel]\npp = 2\ndp = 4\nglobal_batch = 16\n"
	                             "micro_batch = 2\n");
	if (s && CHECK_INT(plan_microbatches(&s->plan), 2)) {
		const double F[] = {1, 1}, B[] = {2, 2}, x[] = {0.5, 0.5};
		sweep_walk_in in = {F, B, NULL, x, x, NULL, NULL, NULL};
		s->fw.p2p_serial = false;
		CHECK_NEAR(sweep_pipe_walk(s, &in, NULL), 10.5, 1e-12);
		s->fw.p2p_serial = true;
		CHECK_NEAR(sweep_pipe_walk(s, &in, NULL), 11.0, 1e-12);
		/* ZeRO-3's chain ends on the DP stream (pipewalk.c): each chain's
		 * first gather (pre 0.25 s) runs when the stream is free, its
		 * backward's last reduction (post 0.1 s) first. Stage 0: F0 after
		 * its gather, 0.25-1.25, send 1.25-1.75, F1 1.75-2.75 (after a
		 * forward the gather hid); stage 1: F0 at its input 1.75-2.75, B0
		 * 2.75-4.75, send 4.75-5.25; its F1 after B0 waits 4.75 + 0.1 +
		 * 0.25 = 5.1, less than its send: 5.25-6.25, B1 6.25-8.35 (the
		 * last backward's reduction with it), send after stage 0's B0
		 * (5.25-7.25): 8.35-8.85; stage 0's B1 after its B0 no earlier
		 * than 7.6, at its input 8.85, to 10.95 with its reduction */
		const double pre[] = {0.25, 0.25}, post[] = {0.1, 0.1};
		sweep_walk_in z = {F, B, NULL, x, x, NULL, pre, post};
		s->fw.p2p_serial = false;
		CHECK_NEAR(sweep_pipe_walk(s, &z, NULL), 10.95, 1e-12);
	}
	plan_scenario_free(s);
	const char *set[] = {"parallel.pp=8", "parallel.tp=8", "parallel.micro_batch=1",
	                     "parallel.dp=2"};
	est_near_sim(scen_file("scenarios/llama3-8b-efa-nanotron.ini", set, 4), 128, 0.02);
}

/* The walk with asynchronous sends (each behind the rank's previous one
 * that way, the next op not waiting for it), by hand. One chunk a stage,
 * as test_pipe_walk: stage 0 F0 0-1 (send 1-1.5), F1 1-2 (send 2-2.5);
 * stage 1 F0 1.5-2.5, B0 2.5-4.5 (send 4.5-5), F1 4.5-5.5, B1 5.5-7.5
 * (send 7.5-8); stage 0 B0 5-7, B1 8-10: 10 s (10.5 synchronous).
 * Interleaved, pp 2, vpp 2, m 2 (one group): virtual stages 0, 2 on rank
 * 0 and 1, 3 on rank 1; rank 0 runs F(v0: 0, 1), F(v2: 0, 1), B(v2: 0, 1),
 * B(v0: 0, 1); rank 1 F(v1: 0, 1), then F(v3, 0) B(v3, 0) F(v3, 1)
 * B(v3, 1) B(v1: 0, 1). Rank 0: v0 0-1, 1-2 (sends 1-1.5, 2-2.5); rank 1:
 * v1 1.5-2.5, 2.5-3.5 (sends 2.5-3, 3.5-4); rank 0: v2 3-4, 4-5 (sends
 * 4-4.5, 5-5.5); rank 1: F v3 4.5-5.5, B 5.5-7.5 (send 7.5-8), F 7.5-8.5,
 * B 8.5-10.5 (send 10.5-11); rank 0: B v2 8-10 (send 10-10.5), 11-13
 * (send 13-13.5); rank 1: B v1 10.5-12.5 (send 12.5-13), 13.5-15.5 (send
 * 15.5-16); rank 0: B v0 13-15, 16-18: 18 s. */
static void test_pipe_walk_async(void)
{
	plan_scenario *s = scen_load("include = scenarios/quickstart.ini\n"
	                             "[parallel]\npp = 2\ndp = 4\nglobal_batch = 16\n"
	                             "micro_batch = 2\np2p = async\n");
	if (s && CHECK_INT(plan_microbatches(&s->plan), 2)) {
		const double F[] = {1, 1, 1, 1}, B[] = {2, 2, 2, 2}, x[] = {0.5, 0.5, 0.5, 0.5};
		sweep_walk_in in = {F, B, NULL, x, x, NULL, NULL, NULL};
		CHECK_NEAR(sweep_pipe_walk(s, &in, NULL), 10.0, 1e-12);
		s->plan.vpp = 2;
		CHECK_NEAR(sweep_pipe_walk(s, &in, NULL), 18.0, 1e-12);
	}
	plan_scenario_free(s);
}

/* Many micro-batches: sweep_pipe_walk extrapolates from three short walks
 * (m0 >= 4 pp, m0 + one group and two) where the span grows alike; on these
 * shapes (stages of uneven times, transfers a third of a forward) it equals
 * the whole walk, or walks it whole (the asynchronous one-chunk pipeline
 * and the two-stage interleaved one, whose fast stages run ahead for long:
 * extrapolated from 4 pp they were 1.6 and 1.3 % short). */
static void test_pipe_walk_long(void)
{
	static const struct {
		int pp, vpp;
		const char *fw, *more;
	} shapes[] = {{4, 1, "megatron-core", ""},
	              {4, 1, "torchtitan", "schedule = gpipe\n"},
	              {4, 1, "megatron-core", "p2p = async\n"},
	              {2, 2, "megatron-core", ""},
	              {4, 3, "megatron-core", ""},
	              {4, 2, "torchtitan", "schedule = looped-bfs\n"}};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		char text[512];
		int dp = 16 / shapes[i].pp;
		snprintf(text, sizeof text,
		         "include = scenarios/quickstart.ini\ninclude = topologies/frameworks/%s.ini\n"
		         "[model]\nlayers = 48\n[parallel]\ntp = 1\npp = %d\nvpp = %d\ndp = %d\n"
		         "micro_batch = 1\nglobal_batch = %d\n%s",
		         shapes[i].fw, shapes[i].pp, shapes[i].vpp, dp, 96 * dp, shapes[i].more);
		plan_scenario *s = scen_load(text);
		if (!s)
			continue;
		int V = s->plan.pp * (s->plan.vpp > 1 ? s->plan.vpp : 1), m = 96;
		double F[12], B[12], xf[12], xb[12];
		for (int v = 0; v < V; v++)
			F[v] = 1 + 0.1 * (v % 3), B[v] = 2 * F[v] + 0.05 * v, xf[v] = xb[v] = 0.3;
		sweep_walk_in in = {F, B, NULL, xf, xb, NULL, NULL, NULL};
		double whole = sweep_pipe_walk_m(s, m, plan_vp_group(&s->plan), &in, NULL);
		CHECK(whole > m * 3);
		if (!CHECK_NEAR(sweep_pipe_walk(s, &in, NULL), whole, 1e-9))
			fprintf(stderr, "shape %zu\n", i);
		plan_scenario_free(s);
	}
}

/* Zero bubble splits a layer's backward into B and W (chain.c
 * split_weight_grads): a TP collective issued beside a weight-gradient GEMM
 * pairs, in B, with what follows it there. The pre-screen summed the whole
 * backward, pairing it with the wgrad it no longer meets, and was 3.8 %
 * under the simulated step on the quickstart under the ideal profile
 * (ZB-H1, tp 2, pp 2, ZeRO-1); B and W summed apart, within 1.5 % (0.4 %). */
static void test_zb_split(void)
{
	est_quickstart("ideal", "schedule = zb-h1\nzero = 1\n", 0.015);
}

/* Every synchronous pipeline walked (estimate.c walk_wanted), not only
 * nanotron's: each transfer is a rendezvous, so on the busiest stage an
 * activation arrives only once it has posted the receive and a send ends
 * before its next op starts, one transfer a micro-batch and direction the
 * closed form's bubble did not count. torchtitan's GPipe, ZeRO-3, tp 2, pp
 * 2, dp 4, one sequence a micro-batch (32 of them), across the two nodes:
 * 2.9 % under the simulated step, within 1 % walked (-0.8 %); Megatron-
 * Core's 1F1B on the quickstart at micro-batch 1: 1.0 % under, within
 * 0.3 % (+0.1 %). */
static void test_sync_walk(void)
{
	est_quickstart("torchtitan", "schedule = gpipe\nzero = 3\nmicro_batch = 1\n", 0.01);
	est_quickstart("megatron-core", "micro_batch = 1\n", 0.003);
}

/* Interleaved pipelines walked too (their sends asynchronous, each chunk its
 * own virtual stage's time): GPT-3 175B on Selene, pp 16, 3 chunks a
 * stage, two sequences a micro-batch, 96 of them: (S - T) / vpp left the
 * estimate 2.1 % under the simulated step; walked within 1.5 % (-1.1 %). */
static void test_interleaved_walk(void)
{
	const char *set[] = {"parallel.micro_batch=2", "parallel.vpp=3"};
	est_near_sim(scen_file("scenarios/gpt3-175b-selene.ini", set, 2), 96, 0.015);
}

/* Zero bubble walked too, each backward's B and W its own op (W no send):
 * ZBV under the ideal profile (tp 2, pp 2, ZeRO-1, 8 micro-batches), whose
 * closed form took the W passes off the fill as (S - T) - 2 (W_S - W_T),
 * was 2.5 % over the simulated step; walked within 1 % (-0.4 %). */
static void test_zb_walk(void)
{
	est_quickstart("ideal", "schedule = zbv\nvpp = 2\nzero = 1\n", 0.01);
}

/* ZeRO-3 under an interleaved pipeline: each chunk's pass is a chain of its
 * own (fsdp_gather resets per chain), whose first gather and last
 * reduction no compute hides, vpp of them a micro-batch each way. The
 * ideal profile at tp 1, pp 2, 3 chunks, dp 8, six micro-batches, Looped
 * BFS: one chain a pass counted, 6.7 % under the simulated step; vpp,
 * within 2 % (-1.3 %; +1.1 % since the chains' ends are walked with the
 * pipeline and the tied embedding's sync counted, pipewalk.c). */
static void test_z3_chunk_chains(void)
{
	est_quickstart("ideal",
	               "tp = 1\npp = 2\nvpp = 3\ndp = 8\nmicro_batch = 1\nglobal_batch = 48\n"
	               "schedule = looped-bfs\nzero = 3\n",
	               0.02);
}

/* A GEMM beside an async TP collective is a task of its own in the graph,
 * max(GPU, host), its host time its launch and framework operation and the
 * collective's own under comm_host_op (chain.c append_kernel, chain.carry).
 * The pre-screen took its kernel time with the framework's part as time on
 * the GPU beside the collective: nanotron's fc1 chunk 102.5 us where the
 * task is 71.9, the backward's qkv chunks likewise, 1.0 % under the
 * simulated step of llama3-8b-efa-nanotron.ini; as the graph, within
 * 0.2 % (0.00 %). */
static void test_beside_task(void)
{
	est_near_sim(scen_file("scenarios/llama3-8b-efa-nanotron.ini", NULL, 0), 0, 0.002);
}

/* The compute a stage's gradient buckets slow beside them (dp_tail's i B)
 * is its last backward's, which the walk runs longer: an upper stage's
 * delays the lower stages' last backwards. nanotron on the quickstart's
 * cluster, tp 1, pp 2, four micro-batches: stage 1's last backward 6.8 ms
 * slower, stage 0's starting as late; the buckets' tails taken per stage
 * after the walk without it, 1.9 % under the simulated step; within 0.5 %
 * (0.0 %). */
static void test_tail_slowdown(void)
{
	est_quickstart("nanotron", "tp = 1\npp = 2\ndp = 8\nmicro_batch = 1\nglobal_batch = 32\n",
	               0.005);
}

/* Tied embeddings under a pipeline: the first and last stages all-reduce
 * the word embedding's gradient after both backwards (grads.c
 * build_emit_embedding_sync: V h / t x 4 B, 19.7 ms on the quickstart),
 * behind the first stage's reduction on its DP stream, the step's last.
 * The pre-screen left it out, 2.0 % under the simulated step at tp 1, pp 2,
 * dp 8; with it within 1 % (0.4 %). */
static void test_embedding_sync(void)
{
	const char *set[] = {"parallel.tp=1", "parallel.dp=8"};
	est_near_sim(scen_file(QUICKSTART, set, 2), 0, 0.01);
}

/* The pre-screen's compute is the replay's where nothing hides it (pp 1,
 * no interference beside it), when it times runs of kernels as plan_build's
 * chains do (chain.c append_kernel): a GEMM beside an overlapped TP
 * collective is a compute task of its own and the kernels after it another
 * (nanotron's async linears, Llama 3 8B tp 8 on the EFA cluster: 259 such
 * collectives a micro-batch; the pre-screen merged them into one run, 5.4 %
 * under), and the gradient accumulation is one task of max(GPU, host)
 * (DeepSpeed's BF16_Optimizer cast and add, host-bound at 584 launches a
 * micro-batch; summed before, 6.9 % over). Both now to 1e-6. */
static void test_compute_runs(void)
{
	const char *nano[] = {"parallel.micro_batch=1", "parallel.zero=1"};
	for (int k = 0; k < 2; k++) {
		/* the second: the quickstart under Megatron-DeepSpeed, tp 2 dp 8 */
		plan_scenario *s =
		        k == 0 ? scen_file("scenarios/llama3-8b-efa-nanotron.ini", nano, 2)
		               : scen_load("include = scenarios/quickstart.ini\n"
		                           "include = topologies/frameworks/megatron-deepspeed.ini\n"
		                           "[parallel]\npp = 1\ndp = 8\nmicro_batch = 1\n");
		exec_result r;
		if (s && CHECK_INT(exec_run(s, &r), SIM_OK)) {
			sweep_estimate e;
			sweep_estimate_plan(s, &e);
			CHECK_NEAR(e.compute_s, r.classes[0].time_s[EXEC_CAT_COMPUTE], 1e-6);
		}
		plan_scenario_free(s);
	}
}

int main(void)
{
	test_parse();
	test_auto();
	test_order();
	test_prune();
	test_reload_matches();
	test_file();
	test_cost();
	test_pareto();
	test_risky();
	test_parts();
	test_prune_examples();
	test_auto_more();
	test_topology_text();
	test_moe_zb();
	test_dp_buckets();
	test_param_gather();
	test_hsdp_bytes();
	test_few_microbatches_looped();
	test_cp_ring_steps();
	test_mixed_gpus();
	test_z3_embedding_sync();
	test_zero_infinity_copies();
	test_frozen();
	test_inference();
	test_zero_gather_copies();
	test_z3_sync_reduce();
	test_offload_dp();
	test_z3_chain_bound();
	test_compute_runs();
	test_z3_bucket_holdup();
	test_z3_hpz_interference();
	test_pipe_walk();
	test_pipe_walk_async();
	test_pipe_walk_long();
	test_zb_split();
	test_sync_walk();
	test_interleaved_walk();
	test_zb_walk();
	test_z3_chunk_chains();
	test_beside_task();
	test_tail_slowdown();
	test_embedding_sync();
	test_merge_schema();
	return check_done();
}
