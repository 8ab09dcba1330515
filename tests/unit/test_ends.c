/* test_ends.c - ZeRO-3's ends ([framework] zero3_root, plan_zero3_ends,
 * emit.c "The ends"): what each framework gathers and reduces of the
 * embedding and the head, counted in the task graph and felt in the step.
 *
 * The plan: the quickstart (megatron-1.7b, 24 layers, tied embeddings,
 * vocab 51,200, hidden 2,304, learned positions; tp 2) without a pipeline,
 * dp 8, ZeRO-3, one gather per layer and pass and no per-rank bucket: 4
 * micro-batches of 4 sequences (128 / (8 x 4)). Per micro-batch every layer
 * is gathered before its forward and its backward and reduce-scattered after
 * its backward: 4 x (24 + 24 + 24) = 288 DP tasks (test_plan's
 * test_zero3_buckets, "per unit"). The ends add, per micro-batch:
 *  - none: nothing (the embedding and output layer stay gathered);
 *  - flat: the root's gather before the forward and its reduce-scatter
 *    after the backward, 2: 296;
 *  - units with the tied weights: one unit of the three, gathered before
 *    the embedding's forward and reduced after its backward, 2: 296;
 *    untied: the embedding's gather before its forward and again before its
 *    backward and its reduction, the head's gather before its forward and
 *    its reduction, 5: 308;
 *  - modules (reduced per unit here, zero3_reduce = unit): the embedding's
 *    gathers before its forward and its backward, the head's before its
 *    forward only (taking the tied embedding again; kept to its backward,
 *    reused within DeepSpeed's reuse distance) and the two reductions,
 *    5: 308;
 *  - flat under no_sync (accumulate_unsharded): the layers and the root
 *    reduced once, after the last micro-batch: 4 x (48 + 1) + 24 + 1 = 221;
 *  - step (Megatron-FSDP's, the default): gathered once a step, in the
 *    first forward, and reduce-scattered every micro-batch, tied as one
 *    unit: 288 + 1 + 4 = 293; untied two pieces: 288 + 2 + 8 = 298.
 */
#include "../../sim/exec/exec.h"
#include "../../sim/plan/plan.h"
#include "../../sim/sweep/sweep.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#define NBASE 6
static const char *const base[NBASE] = {"parallel.pp=1",
					"parallel.dp=8",
					"parallel.zero=3",
					"parallel.fp32_grads=false",
					"framework.zero3_gathers=1",
					"framework.grad_bucket_per_dp=0"};

/* The quickstart under base plus up to three more overrides. */
static plan_scenario *load(const char *a, const char *b, const char *c)
{
	const char *o[NBASE + 3];
	int n = 0;
	for (int i = 0; i < NBASE; i++)
		o[n++] = base[i];
	const char *more[3] = {a, b, c};
	for (int i = 0; i < 3; i++)
		if (more[i])
			o[n++] = more[i];
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", o, n, d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	return s;
}

static int count_dp(const plan_graph *g, int rank)
{
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		n += g->tasks[i].rank == rank && g->tasks[i].kind == PLAN_TASK_DP;
	return n;
}

/* Does task `to` wait for a DP task outside the layers (layer -1)? */
static bool waits_for_end(const plan_graph *g, uint32_t to)
{
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].to == to && g->tasks[g->edges[i].from].kind == PLAN_TASK_DP &&
		    g->tasks[g->edges[i].from].layer == -1)
			return true;
	return false;
}

/* The DP task counts of the header, and the step they cost. */
static void test_counts(void)
{
	struct {
		const char *root, *more, *more2;
		int dp;
	} c[] = {
		{"framework.zero3_root=none", NULL, NULL, 288},
		{"framework.zero3_root=flat", NULL, NULL, 296},
		{"framework.zero3_root=units", NULL, NULL, 296},
		{"framework.zero3_root=units", "model.untied_embeddings=true", NULL, 308},
		{"framework.zero3_root=modules", NULL, NULL, 308},
		{"framework.zero3_root=none", "framework.accumulate_unsharded=true", NULL, 216},
		{"framework.zero3_root=flat", "framework.accumulate_unsharded=true", NULL, 221},
		{"framework.zero3_root=step", NULL, NULL, 293},
		{"framework.zero3_root=step", "model.untied_embeddings=true", NULL, 298},
	};
	double step[9] = {0};
	for (int i = 0; i < 9; i++) {
		plan_scenario *s = load(c[i].root, c[i].more, c[i].more2);
		plan_graph *g = NULL;
		if (!s || plan_build(s, &g) != SIM_OK) {
			CHECK(false);
			plan_scenario_free(s);
			continue;
		}
		CHECK_INT(plan_microbatches(&s->plan), 4);
		if (!check_int(count_dp(g, 0), c[i].dp, c[i].root, __FILE__, __LINE__))
			fprintf(stderr, "  (case %d)\n", i);
		/* flat and units gather before the embedding's forward: the
		 * step's first compute task waits for an end's gather */
		uint32_t first = UINT32_MAX;
		for (size_t t = 0; t < g->ntasks && first == UINT32_MAX; t++)
			if (g->tasks[t].rank == 0 && g->tasks[t].kind == PLAN_TASK_FWD)
				first = (uint32_t)t;
		CHECK(first != UINT32_MAX);
		if (first != UINT32_MAX)
			CHECK(waits_for_end(g, first) == (i != 0 && i != 5));
		exec_result r;
		if (exec_run(s, &r) == SIM_OK)
			step[i] = r.step_s;
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	/* what moves costs time: every mode above none's step; the untied
	 * ends move more than the tied unit */
	for (int i = 1; i < 5; i++)
		CHECK(step[i] > step[0]);
	CHECK(step[3] > step[2]);
	CHECK(step[6] > step[5]);
	/* step gathers once where flat gathers every micro-batch, and reduces
	 * the same */
	CHECK(step[7] > step[0] && step[7] < step[1]);
}

/* plan_zero3_ends's pieces: per rank on tp 2 the embedding E (its
 * vocabulary shard and the learned positions, plan_rank_embedding) and the
 * head H (the final norm; the tied output layer reads the embedding). */
static void test_sizes(void)
{
	plan_scenario *s = load("framework.zero3_root=flat", NULL, NULL);
	plan_scenario *u = load("framework.zero3_root=units", "model.untied_embeddings=true", NULL);
	plan_scenario *m = load("framework.zero3_root=modules", NULL, NULL);
	plan_scenario *n = load("framework.zero3_root=none", NULL, NULL);
	if (!s || !u || !m || !n) {
		CHECK(false);
	} else {
		double V = 51200, h = 2304, E = plan_rank_embedding(s), H = plan_rank_output(s);
		double ga[2], gr[2];
		CHECK_NEAR(E, V * h / 2 + 2048 * h, 1e-12); /* positions replicated */
		CHECK_NEAR(H, 2 * h, 1e-12);                 /* the final layernorm */
		CHECK_INT(plan_zero3_ends(s, 0, ga, gr), 1);
		CHECK_NEAR(ga[0], E + H, 1e-12);
		CHECK_NEAR(gr[0], E + H, 1e-12);
		CHECK_NEAR(ga[1], 0, 0);
		CHECK_INT(plan_zero3_ends(u, 0, ga, gr), 2);
		CHECK_NEAR(ga[0], E, 1e-12);
		CHECK_NEAR(ga[1], V * h / 2 + H, 1e-12); /* the untied output layer */
		CHECK_INT(plan_zero3_ends(m, 0, ga, gr), 2);
		CHECK_NEAR(ga[1], V * h / 2 + H, 1e-12); /* the tied weight again */
		CHECK_NEAR(gr[1], H, 1e-12);             /* its gradient the embedding's */
		CHECK_INT(plan_zero3_ends(n, 0, ga, gr), 0);
	}
	plan_scenario_free(s);
	plan_scenario_free(u);
	plan_scenario_free(m);
	plan_scenario_free(n);
}

/* FSDP's backward prefetch from the chain's first hook (emit.c
 * backward_prefetch): the backward's first layer, the last (23), is
 * gathered as the chain starts, beside the head's backward, not after it.
 * Layer 23's DP tasks per micro-batch in program order under none: its
 * forward gather, its backward gather, its reduce-scatter; the backward
 * gather waits for no backward compute task. */
static void test_backward_prefetch(void)
{
	plan_scenario *s = load("framework.zero3_root=none", NULL, NULL);
	plan_graph *g = NULL;
	if (!s || plan_build(s, &g) != SIM_OK) {
		CHECK(false);
		plan_scenario_free(s);
		return;
	}
	int seen = 0, checked = 0;
	for (size_t t = 0; t < g->ntasks; t++) {
		if (g->tasks[t].rank != 0 || g->tasks[t].kind != PLAN_TASK_DP ||
		    g->tasks[t].layer != 23 || seen++ % 3 != 1)
			continue;
		checked++;
		for (size_t e = 0; e < g->nedges; e++)
			if (g->edges[e].to == t)
				CHECK(g->tasks[g->edges[e].from].kind != PLAN_TASK_BWD);
	}
	CHECK_INT(seen, 4 * 3);
	CHECK_INT(checked, 4);
	plan_graph_free(g);
	plan_scenario_free(s);
}

/* torchtitan's ZBV under ZeRO-3 (the units kept gathered, reduced once
 * after their chunk's last backward): rank 0 holds both ends, untied two
 * units, each reduce-scattered once, in the last micro-batch. The
 * embedding's backward is all weight gradient, a W pass (chain.c), so its
 * reduction follows the last micro-batch's W as the layers' do. */
static void test_zbv_ends(void)
{
	/* without sequence parallelism (torchtitan's default at tp 2), whose
	 * final norm's gradient all-reduce would be a third collective of the
	 * ends (plan_norm_sync_calls) */
	const char *o[] = {"parallel.zero=3", "model.untied_embeddings=true",
	                   "parallel.sequence_parallel=false"};
	sim_diag *d = sim_diag_new();
	plan_scenario *t = NULL; /* the ZBV golden (torchtitan, pp 4, 8 micro-batches) */
	CHECK_INT(plan_scenario_load("tests/golden/pipeline-gantt-zbv.ini", o, 3, d, &t), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	plan_graph *g = NULL;
	if (t && plan_build(t, &g) == SIM_OK) {
		/* the ends' collectives (layer -1, bytes on the wire): each
		 * unit's one gather and one reduce-scatter */
		int n = 0;
		for (size_t i = 0; i < g->ntasks; i++) {
			const plan_task *x = &g->tasks[i];
			n += x->rank == 0 && x->kind == PLAN_TASK_DP && x->layer == -1 &&
			     x->scaleup_bytes > 0;
		}
		CHECK_INT(n, 2 + 2);
	} else {
		CHECK(false);
	}
	plan_graph_free(g);
	plan_scenario_free(t);
}

/* DeepSpeed's reuse window (plan_zero3_reuse_layers, R = 1e9 elements):
 * Llama 2 7B, P = 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360 a
 * layer, the head H = 32,000 x 4,096 + 4,096 = 131,076,096: (R - 2 H) / 2P
 * = 0.91, K = 2 layers kept (the last and the one below); 70B, P =
 * 855,654,400 (GQA: 8 K/V heads), H = 262,152,192: 0.14, K = 1. The 7B's
 * backward then gathers 30 layers, not 32: per micro-batch (2 here) two
 * layers' 7 module gathers fewer (zero3_modules = hf: q, k, v, o, gate,
 * up, down), each with its copy out of the flat buffer (zero3_gather_copy),
 * 2 x 2 x 7 x 2 = 56 DP tasks. */
static plan_scenario *ds_load(const char *model, const char *reuse)
{
	char text[512];
	snprintf(text, sizeof text,
		 "include = topologies/frameworks/deepspeed.ini\ninclude = models/%s.ini\n"
		 "include = topologies/nodes/dgx-a100-80g.ini\n[scenario]\nname = t\n"
		 "[cluster]\nname = c\nnodes = 1\n[model]\nseq_len = 2048\n[parallel]\n"
		 "dp = 8\nzero = 3\nmicro_batch = 1\nglobal_batch = 16\nrecompute = full\n"
		 "[framework]\nreuse_distance = %s\n",
		 model, reuse);
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	return s;
}

static void test_reuse(void)
{
	plan_scenario *a = ds_load("llama2-7b", "1e9"), *b = ds_load("llama2-70b", "1e9");
	plan_scenario *c = ds_load("llama2-7b", "0");
	if (a && b && c) {
		CHECK_INT(plan_zero3_reuse_layers(a, 0), 2);
		CHECK_INT(plan_zero3_reuse_layers(b, 0), 1);
		CHECK_INT(plan_zero3_reuse_layers(c, 0), 0);
		plan_graph *ga = NULL, *gc = NULL;
		if (plan_build(a, &ga) == SIM_OK && plan_build(c, &gc) == SIM_OK) {
			CHECK_INT(plan_microbatches(&a->plan), 2);
			CHECK_INT(count_dp(gc, 0) - count_dp(ga, 0), 2 * 2 * 7 * 2);
		} else {
			CHECK(false);
		}
		plan_graph_free(ga);
		plan_graph_free(gc);
	} else {
		CHECK(false);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
}

/* The memory at the backward's start (memsize.c root_gathered): flat's
 * root stays gathered from its forward, torchtitan's untied embedding is
 * resharded after its forward, so the two peaks' buffers differ by the
 * embedding's 16-bit bytes, 2 E, and nothing else moves. */
static void test_memory(void)
{
	plan_scenario *f = load("framework.zero3_root=flat", "model.untied_embeddings=true", NULL);
	plan_scenario *u = load("framework.zero3_root=units", "model.untied_embeddings=true", NULL);
	if (f && u) {
		double mf[PLAN_MEM_COUNT], mu[PLAN_MEM_COUNT];
		plan_memory(f, 0, mf);
		plan_memory(u, 0, mu);
		CHECK_NEAR(mf[PLAN_MEM_BUFFERS] - mu[PLAN_MEM_BUFFERS], 2 * plan_rank_embedding(f),
			   1e-9);
		CHECK_NEAR(mf[PLAN_MEM_WEIGHTS], mu[PLAN_MEM_WEIGHTS], 1e-12);
	} else {
		CHECK(false);
	}
	plan_scenario_free(f);
	plan_scenario_free(u);
}

/* The sweep's pre-screen charges the ends too (estimate.c z3_ends): flat
 * exposes the root's gather and reduction per micro-batch. */
static void test_estimate(void)
{
	plan_scenario *a = load("framework.zero3_root=none", NULL, NULL);
	plan_scenario *b = load("framework.zero3_root=flat", NULL, NULL);
	if (a && b) {
		sweep_estimate ea, eb;
		sweep_estimate_plan(a, &ea);
		sweep_estimate_plan(b, &eb);
		CHECK(eb.dp_s > ea.dp_s);
		CHECK(eb.step_s > ea.step_s);
	} else {
		CHECK(false);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
}

int main(void)
{
	test_counts();
	test_sizes();
	test_backward_prefetch();
	test_zbv_ends();
	test_reuse();
	test_memory();
	test_estimate();
	return check_done();
}
