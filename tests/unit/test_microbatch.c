/* test_microbatch.c - what a micro-batch costs beyond its tokens (issue 23):
 * nanotron's layer code (work), the [framework] keys that charge it (plan),
 * plan_microbatch_cost against the graph plan_build makes, the step the
 * replay gives, and the pre-screen's closed form (sweep). Each check states
 * its derivation. */
#include "../../sim/exec/exec.h"
#include "../../sim/plan/plan.h"
#include "../../sim/sweep/sweep.h"
#include "check.h"
#include "scen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NANOTRON "tests/golden/nanotron-efa-tp8-pp2.ini"
#define QUICKSTART "scenarios/quickstart.ini"

static plan_scenario *load(const char *path, const char **sets, size_t n)
{
	return scen_file(path, sets, n);
}

typedef struct counts {
	int launches, comms, beside;
	double gemm_flops;
} counts;

static counts count(const work_item *it, int n)
{
	counts c = {0, 0, 0, 0};
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_COMM) {
			c.comms++;
			c.beside += it[i].beside;
			/* a collective beside the next item: that item is a GEMM */
			if (it[i].beside)
				CHECK(i + 1 < n && it[i + 1].kind == WORK_ITEM_KERNEL &&
				      it[i + 1].kernel == WORK_KERNEL_GEMM);
			continue;
		}
		c.launches += it[i].launches > 1 ? it[i].launches : 1;
		if (it[i].kernel == WORK_KERNEL_GEMM)
			c.gemm_flops += it[i].flops;
	}
	return c;
}

/* nanotron's Llama layer (sim/work/nanotron.c) on Llama 3 8B (GQA: 8 of 32
 * heads) and its MHA variant:
 *  - the same GEMM FLOPs as the fused program: the split GEMMs of the async
 *    column linears (T/t rows + two of (t-1)T/2t) add up to one [T, h] GEMM;
 *  - launches, t = 4, SP, GQA: forward ln1 1, qkv 1 + 2, layout 3, kv_pack 2,
 *    rope 2, prep 6, attn 1, proj 1, resid 1, ln2 1, fc1 1 + 2, act 2, fc2 1,
 *    resid 1 = 28; backward fc2 1 + 2 + 1, act 4, fc1 2, ln2 2, add 1, proj
 *    1 + 2 + 1, attn 1, kv 1, rope 2, layout 1, qkv 2, ln1 2, add 1 = 27;
 *    MHA: one layout copy forward (26) and two backward (28); t = 2: one
 *    gathered-shard GEMM instead of two (forward 26, backward 25);
 *  - collectives with SP: forward 2 all-gathers beside the local GEMMs and
 *    2 blocking reduce-scatters; backward 2 all-gathers beside the row
 *    linears' local dgrads, 2 re-gathers beside the dgrads, 2 reduce-scatters
 *    beside the wgrads: 4 + 6, 2 + 6 beside; without SP one all-reduce per
 *    linear pair each way, none beside;
 *  - the act item moves 5 e T f forward (SiLU 2f, product 3f) against the
 *    fused kernel's 3 e T f. */
static void test_nanotron_layer(void)
{
	work_model m = {.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
	                .vocab = 128256, .seq_len = 4096, .act = WORK_ACT_SWIGLU,
	                .norm = WORK_NORM_RMSNORM, .untied_embeddings = true};
	work_item a[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	for (int t = 1; t <= 4; t *= 2) {
		for (int sp = 0; sp < 2; sp++) {
			if (t == 1 && sp)
				continue;
			work_shard fu = {t, sp, 1, 4096, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
			work_shard nt = fu;
			nt.layer_code = WORK_LAYER_NANOTRON;
			counts cf = count(a, work_layer_forward_at(&m, &fu, 0, a));
			counts nf = count(b, work_layer_forward_at(&m, &nt, 0, b));
			CHECK_NEAR(nf.gemm_flops, cf.gemm_flops, 1e-12);
			counts cb = count(a, work_layer_backward_at(&m, &fu, 0, a));
			counts nb = count(b, work_layer_backward_at(&m, &nt, 0, b));
			CHECK_NEAR(nb.gemm_flops, cb.gemm_flops, 1e-12);
			if (t == 4 && sp) {
				CHECK_INT(nf.launches, 28);
				CHECK_INT(nb.launches, 27);
				CHECK_INT(nf.comms, 4);
				CHECK_INT(nf.beside, 2);
				CHECK_INT(nb.comms, 6);
				CHECK_INT(nb.beside, 6);
			}
			if (t == 2 && sp) {
				CHECK_INT(nf.launches, 26);
				CHECK_INT(nb.launches, 25);
			}
			if (t == 4 && !sp) {
				CHECK_INT(nf.comms, 2);
				CHECK_INT(nb.comms, 2);
				CHECK_INT(nf.beside + nb.beside, 0);
			}
			if (t == 1)
				CHECK_INT(nf.comms + nb.comms, 0);
		}
	}
	work_model mha = m;
	mha.kv_heads = 32;
	work_shard nt = {4, true, 1, 4096, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_NANOTRON, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	CHECK_INT(count(a, work_layer_forward_at(&mha, &nt, 0, a)).launches, 26);
	CHECK_INT(count(a, work_layer_backward_at(&mha, &nt, 0, a)).launches, 28);
	int n = work_layer_forward_at(&m, &nt, 0, a);
	double T = 4096, f = 14336 / 4.0;
	for (int i = 0; i < n; i++)
		if (!strcmp(a[i].name, "act"))
			CHECK_NEAR(a[i].bytes, 5 * 2 * T * f, 1e-12);
	/* the fp32 loss: 38 bytes per logit of the T x V/t slice (e = 2) */
	n = work_head_forward(&m, &nt, a);
	double L = T * 128256 / 4.0, big = 0;
	for (int i = 0; i < n; i++)
		if (a[i].kind == WORK_ITEM_KERNEL && a[i].kernel == WORK_KERNEL_MEM &&
		    strcmp(a[i].name, "lnf") != 0)
			big += a[i].bytes;
	CHECK(big >= 38 * L && big < 38 * L * 1.001);
}

/* Stage st's micro-batch 0 in the graph: its compute tasks (forward, backward
 * with its accumulation) last the compute + accum seconds that
 * plan_microbatch_cost sums; *c gets that cost. */
static void check_cost_matches(const plan_scenario *s, const plan_graph *g, int st,
			       plan_mb_cost *c)
{
	CHECK_INT(plan_microbatch_cost(s, st, c), SIM_OK);
	double sum = 0;
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->rank == st && t->mb == 0 && t->stream == PLAN_STREAM_COMPUTE)
			sum += sim_time_to_s(t->dur);
	}
	CHECK_NEAR(sum, c->compute_s + c->accum_s, 1e-9);
}

/* The micro-batch's cost as plan_microbatch_cost sums it equals the graph's:
 * on each stage of the nanotron golden the compute tasks of micro-batch 0
 * (forward, backward with its accumulation) last compute + accum seconds.
 * Its two stages sit on two p5 nodes (tp 8 fills each): a forward and a
 * backward pipeline transfer cross the EFA fabric, each at 1 B paying the
 * per-call wait D(2) = sync_delay x 1^exp = 297.511 us (calib/efa-h100.ini)
 * plus the network's per-step latency, 18.149 us once with LL (twice with
 * Simple) and at most one message cost (5.062 us) and NCCL's base latency
 * (under 10 us): per transfer within [315.66, 348.87] us. */
static void test_cost_matches_graph(void)
{
	plan_scenario *s = load(NANOTRON, NULL, 0);
	plan_graph *g = NULL;
	if (s && plan_build(s, &g) == SIM_OK) {
		for (int st = 0; st < s->plan.pp; st++) {
			plan_mb_cost c;
			check_cost_matches(s, g, st, &c);
			CHECK(c.accum_s > 0 && c.coll_latency_s > 0 && c.p2p_fixed_s > 0);
			CHECK(c.p2p_latency_s >= 2 * 315.66e-6 && c.p2p_latency_s <= 2 * 348.87e-6);
			CHECK_NEAR(c.fixed_s,
			           c.coll_latency_s + c.accum_s + c.p2p_fixed_s + c.p2p_latency_s +
			                   c.host_exposed_s,
			           1e-12);
		}
	}
	plan_graph_free(g);
	plan_scenario_free(s);
}

/* comm_host_op with a host-bound framework (op_overhead = 1 s): every
 * kernel and every collective costs the host 1.000004 s (launch 4 us), and
 * on stage 0 of the quickstart each collective is followed by a kernel of
 * its chain, so the host time of one micro-batch is exactly (kernels +
 * collectives) x 1.000004 s, all of it the compute time (host-bound); without
 * comm_host_op it is kernels x 1.000004 s. */
static void test_comm_host_op(void)
{
	const char *on[] = {"framework.op_overhead=1 s", "framework.comm_host_op=true"};
	for (int k = 0; k < 2; k++) {
		plan_scenario *s = load(QUICKSTART, on, k ? 2 : 1);
		plan_mb_cost c;
		if (s && plan_microbatch_cost(s, 0, &c) == SIM_OK) {
			int ops = c.kernels + (k ? c.collectives : 0);
			CHECK(c.collectives > 0);
			CHECK_NEAR(c.host_s, ops * 1.000004, 1e-12);
			CHECK_NEAR(c.compute_s, c.host_s, 1e-12);
		}
		plan_scenario_free(s);
	}
}

/* grad_accum = kernel on the quickstart shrunk to one node's two GPUs (tp 2,
 * no pipeline, no DP: the compute stream alone sets the step): each
 * micro-batch ends with one accumulation task of max(GPU, host) seconds,
 * GPU = launches x 4 us + bytes / HBM, host = launches x (4 + 20) us, with
 * bytes = local parameters (TP splits all but the norms, the row-parallel
 * biases and the positions) x (2 + 2 x 4) (bf16 gradient into an fp32
 * accumulator, as Megatron-Core's default fp32_grads: 2 + 2 x 4) and one launch per
 * parameter tensor: the GPT layer's 4 weights, 4 biases and 4 layernorm
 * tensors, 12 x 24 layers, plus the token and position embeddings and the
 * final layernorm's 2 (tied output): 292. The step grows by exactly m x that
 * task (m = 128 / 4 = 32). */
static void test_grad_accum(void)
{
	const char *base[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=1"};
	const char *with[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=1",
	                      "framework.grad_accum=kernel"};
	plan_scenario *a = load(QUICKSTART, base, 4), *b = load(QUICKSTART, with, 5);
	work_item it;
	if (a && b) {
		CHECK(!plan_grad_accum_item(a, 0, -1, &it));
		CHECK(plan_grad_accum_item(b, 0, -1, &it));
		const work_model *m = &b->model;
		/* half of what TP splits, the norms, row-parallel biases and positions
		 * whole: the split total plus half the replicated ones */
		double rep = m->layers * work_params_layer_replicated(m, 0) +
		             work_params_embedding_replicated(m) + work_params_output_replicated(m);
		double local = (m->layers * work_params_layer(m) + work_params_embedding(m) +
		                work_params_output(m)) / 2 + rep / 2;
		CHECK_NEAR(local, m->layers * plan_rank_layer(b, 0) + plan_rank_embedding(b) +
		                          plan_rank_output(b), 1e-12);
		CHECK_NEAR(it.bytes, local * 10, 1e-12);
		CHECK_INT(it.launches, 292);
		double gpu = it.launches * b->gpu.launch_s + hw_mem_time(&b->gpu, it.bytes) -
		             hw_overhead(&b->gpu);
		double host = it.launches * (b->gpu.launch_s + b->gpu.framework_s);
		double task = fmax(gpu, host);
		exec_result *r = malloc(2 * sizeof *r);
		if (r && exec_run(a, &r[0]) == SIM_OK && exec_run(b, &r[1]) == SIM_OK)
			CHECK_NEAR(r[1].step_s - r[0].step_s, 32 * task, 1e-6);
		free(r);
		plan_mb_cost c;
		CHECK_INT(plan_microbatch_cost(b, 0, &c), SIM_OK);
		CHECK_NEAR(c.accum_s, task, 1e-9);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
}

/* grad_accum = autograd (PyTorch's AccumulateGrad, DeepSpeed's
 * BF16_Optimizer; plan_grad_accum) on the same two GPUs, m = 32:
 *  - fp16 gradients (fp32_grads = false): AccumulateGrad keeps the first
 *    micro-batch's and adds each later one into param.grad, 2 + 2 read and 2
 *    written per parameter: (m - 1) / m x 6 B = 31/32 x 6 B per micro-batch,
 *    292 launches from C++: the host pays the launch alone (4 us each, no
 *    op_overhead), host = 292 x 4 us;
 *  - fp32 gradients over bf16 parameters: lp.grad.to(fp32) and add_, 2 + 4
 *    (the cast) + 4 + 4 + 4 (the add) = 18 B, 584 launches, each a Python
 *    operation (launch + op_overhead);
 *  - ZeRO-2 and one micro-batch of fp16 gradients: nothing to add;
 *  - kernel-fp16 (Megatron-LM 2022): 16-bit gradients added by LocalDDP's
 *    Python hook into the 16-bit buffer every micro-batch, 2 + 2 + 2 = 6 B,
 *    292 operations; fp32 gradients fused into the GEMMs: no task. */
static void test_grad_accum_autograd(void)
{
	const char *f16[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=1",
	                     "framework.grad_accum=autograd", "parallel.fp32_grads=false"};
	const char *f32[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=1",
	                     "framework.grad_accum=autograd", "parallel.fp32_grads=true"};
	const char *z2[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=2",
	                    "framework.grad_accum=autograd", "parallel.zero=2", "node.gpus=4"};
	const char *one[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1", "parallel.dp=1",
	                     "framework.grad_accum=autograd", "parallel.fp32_grads=false",
	                     "parallel.global_batch=4"};
	plan_scenario *a = load(QUICKSTART, f16, 6), *b = load(QUICKSTART, f32, 6),
	              *c = load(QUICKSTART, z2, 7), *d = load(QUICKSTART, one, 7);
	work_item it;
	if (a && b && c && d) {
		double local = a->model.layers * plan_rank_layer(a, 0) + plan_rank_embedding(a) +
		               plan_rank_output(a);
		CHECK_INT(plan_microbatches(&a->plan), 32);
		CHECK(plan_grad_accum_item(a, 0, -1, &it));
		CHECK_NEAR(it.bytes, local * 6 * 31 / 32, 1e-6);
		CHECK_INT(it.launches, 292);
		CHECK(it.native);
		CHECK_NEAR(plan_item_framework_s(&a->gpu, &it), 0, 0);
		plan_mb_cost mc;
		CHECK_INT(plan_microbatch_cost(a, 0, &mc), SIM_OK);
		double gpu = 292 * a->gpu.launch_s + hw_mem_time(&a->gpu, it.bytes) -
		             hw_overhead(&a->gpu);
		CHECK_NEAR(mc.accum_s, fmax(gpu, 292 * a->gpu.launch_s), 1e-9);
		CHECK(plan_grad_accum_item(b, 0, -1, &it));
		CHECK_NEAR(it.bytes, local * 18, 1e-6);
		CHECK_INT(it.launches, 584);
		CHECK(!it.native);
		CHECK_NEAR(plan_item_framework_s(&b->gpu, &it), b->gpu.framework_s, 0);
		CHECK(!plan_grad_accum_item(c, 0, -1, &it));
		CHECK_INT(plan_microbatches(&d->plan), 1);
		CHECK(!plan_grad_accum_item(d, 0, -1, &it));
		const char *k16[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1",
		                     "parallel.dp=1", "framework.grad_accum=kernel-fp16",
		                     "parallel.fp32_grads=false"};
		const char *k32[] = {"cluster.nodes=1", "node.gpus=2", "parallel.pp=1",
		                     "parallel.dp=1", "framework.grad_accum=kernel-fp16",
		                     "parallel.fp32_grads=true"};
		plan_scenario *e = load(QUICKSTART, k16, 6), *f = load(QUICKSTART, k32, 6);
		if (e && f) {
			CHECK(plan_grad_accum_item(e, 0, -1, &it));
			CHECK_NEAR(it.bytes, local * 6, 1e-6);
			CHECK_INT(it.launches, 292);
			CHECK(!it.native);
			CHECK(!plan_grad_accum_item(f, 0, -1, &it));
			CHECK(!strcmp(plan_grad_accum_name(e->fw.grad_accum), "kernel-fp16"));
		}
		plan_scenario_free(e);
		plan_scenario_free(f);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
	plan_scenario_free(d);
}

/* Pipeline transfers (quickstart, pp 2, synchronous 1F1B): with
 * p2p_host_ops = 10 every transfer lasts 10 x (launch + op_overhead, 4 +
 * 30.6 us) = 346 us longer;
 * with 2 handshakes 2 more p2p messages of 64 B on the pipeline group; with
 * p2p_fwd_tensors = 3 a forward transfer carries three tensors (each with its
 * host operations and handshakes) and two b s byte messages more
 * (plan_p2p_overhead); every PP task of the graph carries the overhead of its
 * direction. */
static void test_p2p_overhead(void)
{
	const char *k[] = {"framework.p2p_host_ops=10", "framework.p2p_handshakes=2",
	                   "framework.p2p_fwd_tensors=3"};
	plan_scenario *a = load(QUICKSTART, NULL, 0), *b = load(QUICKSTART, k, 3);
	plan_graph *ga = NULL, *gb = NULL;
	if (a && b && plan_build(a, &ga) == SIM_OK && plan_build(b, &gb) == SIM_OK) {
		plan_groups grp;
		plan_make_groups(b, &grp);
		net_cost meta, mask;
		CHECK_INT(net_collective(&b->cluster, NET_P2P, &grp.pp, PLAN_P2P_META_BYTES, &meta),
		          SIM_OK);
		CHECK_INT(net_collective(&b->cluster, NET_P2P, &grp.pp, 4.0 * 2048, &mask), SIM_OK);
		double one = 10 * (b->gpu.launch_s + b->gpu.framework_s) + 2 * meta.time_s;
		double fwd = 3 * one + 2 * mask.time_s, bwd = one;
		CHECK_NEAR(plan_p2p_overhead(b, &grp.pp, false), fwd, 1e-12);
		CHECK_NEAR(plan_p2p_overhead(b, &grp.pp, true), bwd, 1e-12);
		CHECK_NEAR(plan_p2p_overhead(a, &grp.pp, false), 0, 0);
		CHECK_INT(ga->ntasks, gb->ntasks);
		int n = 0, bad = 0;
		for (size_t i = 0; i < ga->ntasks && ga->ntasks == gb->ntasks; i++) {
			if (ga->tasks[i].kind != PLAN_TASK_PP)
				continue;
			n++;
			double want = ga->tasks[i].stream == PLAN_STREAM_PP_FWD ? fwd : bwd;
			double got = sim_time_to_s(gb->tasks[i].dur - ga->tasks[i].dur);
			bad += fabs(got - want) > 2e-12;
		}
		CHECK_INT(n, 2 * 8); /* one transfer each way per micro-batch, m = 128 / 16 */
		CHECK_INT(bad, 0);
	}
	plan_graph_free(ga);
	plan_graph_free(gb);
	plan_scenario_free(a);
	plan_scenario_free(b);
}

/* p2p_serial (nanotron's one blocking transfer at a time): on the quickstart
 * (pp 2, 1F1B, m = 8) stage 1 runs F0 B0 F1 B1 ... F7 B7: each of B0..B6 is
 * followed by a forward, so 7 gradient sends wait for the activation
 * received before that forward: 7 more edges, and a step no shorter. */
static void test_p2p_serial(void)
{
	const char *on[] = {"framework.p2p_serial=true"};
	plan_scenario *a = load(QUICKSTART, NULL, 0), *b = load(QUICKSTART, on, 1);
	plan_graph *ga = NULL, *gb = NULL;
	if (a && b && plan_build(a, &ga) == SIM_OK && plan_build(b, &gb) == SIM_OK) {
		CHECK_INT(gb->nedges - ga->nedges, 7);
		exec_result *r = malloc(2 * sizeof *r);
		if (r && exec_run(a, &r[0]) == SIM_OK && exec_run(b, &r[1]) == SIM_OK)
			CHECK(r[1].step_s >= r[0].step_s);
		free(r);
	}
	plan_graph_free(ga);
	plan_graph_free(gb);
	plan_scenario_free(a);
	plan_scenario_free(b);
}

static bool has_edge(const plan_graph *g, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to)
			return true;
	return false;
}

/* The async TP linears in the graph: nanotron on tp 8 with SP, no pipeline
 * (dp 2, 2 nodes). A collective issued beside a GEMM is a TP task whose next
 * task (the GEMM) does not wait for it, while a later task does. Per
 * micro-batch: 2 forward and 6 backward per layer (test_nanotron_layer), the
 * lm_head's all-gather forward and its re-gather and reduce-scatter
 * backward: 8 x 32 + 3 = 259; m = 4 micro-batches (global 8 / (1 x 2)):
 * 1036. */
static void test_beside_graph(void)
{
	const char *sets[] = {"parallel.pp=1", "parallel.dp=2", "parallel.global_batch=8"};
	plan_scenario *s = load(NANOTRON, sets, 3);
	plan_graph *g = NULL;
	if (s && plan_build(s, &g) == SIM_OK) {
		int beside = 0, joined = 0;
		for (uint32_t i = 0; i + 1 < g->ntasks; i++) {
			if (g->tasks[i].kind != PLAN_TASK_TP || g->tasks[i + 1].stream != PLAN_STREAM_COMPUTE)
				continue;
			if (has_edge(g, i, i + 1))
				continue;
			beside++;
			for (size_t e = 0; e < g->nedges; e++)
				if (g->edges[e].from == i && g->edges[e].to > i + 1) {
					joined++;
					break;
				}
		}
		CHECK_INT(beside, 1036);
		CHECK_INT(joined, beside);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
}

/* zero_one_bucket (nanotron, ZeRO-1): the gradients of a stage are reduced in
 * one all-reduce after the backward, then the optimizer's all-gather: two DP
 * tasks per rank class, against several buckets without the rule (without
 * sequence parallelism, whose norm gradients' TP sync adds tasks of its own:
 * test_plan's test_norm_sync). */
static void test_zero_one_bucket(void)
{
	const char *one[] = {"parallel.pp=1", "parallel.dp=2", "parallel.global_batch=8",
	                     "parallel.sequence_parallel=false", "parallel.zero=1"};
	const char *many[] = {"parallel.pp=1", "parallel.dp=2", "parallel.global_batch=8",
	                      "parallel.sequence_parallel=false", "parallel.zero=1",
	                      "framework.zero_one_bucket=false"};
	for (int k = 0; k < 2; k++) {
		plan_scenario *s = load(NANOTRON, k ? many : one, k ? 6 : 5);
		plan_graph *g = NULL;
		if (s && plan_build(s, &g) == SIM_OK) {
			int n = 0;
			for (size_t i = 0; i < g->ntasks; i++)
				n += g->tasks[i].kind == PLAN_TASK_DP;
			if (k == 0)
				CHECK_INT(n, 2);
			else
				CHECK(n > 2);
		}
		plan_graph_free(g);
		plan_scenario_free(s);
	}
}

/* nanotron's ZeRO-1 parameter all-gather and its per-rank loops
 * (plan_zero_gather_host, grads.c): Llama 3 8B at tp 1 pp 1 on 16 ranks (2
 * p5 nodes) under ZeRO-1. The stage's tensors: 32 layers x 6 (qkv, o,
 * gate_up, down, two norms) + the embedding, the final norm and the untied
 * lm_head = 195. With zero_gather_rank_op = 10.7 us (nanotron.ini) and the
 * H100's 4 us launch:
 *   host = 16 x (195 x (10.7 + 4) + 2 x 4) us = 16 x 2874.5 us = 45.992 ms
 *   GPU  = 3 copies x (read + write) x P x 2 B / (hbm_bw x hbm_eff)
 *        = 12 P / 3.015 TB/s = 31.96 ms for P = 8.03 G.
 * The graph: the host's part on the stage's offload stream after its last
 * backward, the GPU's copies on the compute stream after it and the gather.
 * Replayed:
 *  - the host's 46 ms hide behind the fp32 all-reduce of 32 GB over two
 *    nodes (hundreds of ms), so the step is longer than with the key at 0
 *    by the GPU's copies alone, 31.96 ms (ns ticks);
 *  - with the key at 1 and 2 ms the host's part outlasts everything after
 *    the backward, and the steps differ by the hosts' difference,
 *    16 x 195 x 1 ms = 3.12 s: the loops on the critical path, whole.
 * The pre-screen adds max(GPU, host - (its exposed DP + the step)). Nothing
 * under ZeRO-0 (no gather) or with the key at 0 (Megatron-Core, DeepSpeed:
 * one flat gather). */
static void test_zero_gather_copies(void)
{
	const char *on[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=16",
	                    "parallel.global_batch=16", "parallel.zero=1", NULL};
	plan_scenario *s = load(NANOTRON, on, 5), *z;
	on[5] = "framework.zero_gather_rank_op=0us";
	plan_scenario *o = load(NANOTRON, on, 6);
	on[5] = "framework.zero_gather_rank_op=1ms";
	plan_scenario *h1 = load(NANOTRON, on, 6);
	on[5] = "framework.zero_gather_rank_op=2ms";
	plan_scenario *h2 = load(NANOTRON, on, 6);
	on[4] = "parallel.zero=0";
	z = load(NANOTRON, on, 5);
	if (!s || !o || !z || !h1 || !h2)
		goto out;
	double host, gpu;
	int n, ranks;
	double t = plan_zero_gather_host(s, 0, &host, &gpu, &n, &ranks);
	CHECK_INT(n, 195);
	CHECK_INT(ranks, 16);
	CHECK_NEAR(s->fw.zero_gather_rank_op_s, 10.7e-6, 1e-12);
	CHECK_NEAR(host, 16 * (195 * (10.7e-6 + 4e-6) + 2 * 4e-6), 1e-12);
	CHECK_NEAR(host, 45.992e-3, 1e-9);
	double P = 16 * plan_local_params(s, 0); /* ZeRO-1's shard, 1/16 */
	CHECK(P > 8.0e9 && P < 8.1e9);
	CHECK_NEAR(gpu, 12 * P / (s->gpu.hbm_Bps * s->gpu.hbm_eff), 1e-9);
	CHECK_NEAR(t, host, 1e-15);
	CHECK_NEAR(plan_zero_gather_host(o, 0, NULL, NULL, NULL, NULL), 0, 0);
	CHECK_NEAR(plan_zero_gather_host(z, 0, NULL, NULL, NULL, NULL), 0, 0);
	plan_graph *g = NULL;
	if (plan_build(s, &g) == SIM_OK) {
		int hosts = 0, copies = 0;
		for (size_t i = 0; i < g->ntasks; i++) {
			const plan_task *x = &g->tasks[i];
			double d = sim_time_to_s(x->dur);
			hosts += x->kind == PLAN_TASK_OPTIM && x->stream == PLAN_STREAM_OFFLOAD &&
			         fabs(d - host) < 1e-9;
			copies += x->kind == PLAN_TASK_OPTIM && x->stream == PLAN_STREAM_COMPUTE &&
			          fabs(d - gpu) < 1e-9;
		}
		CHECK_INT(hosts, 1);
		CHECK_INT(copies, 1);
	}
	plan_graph_free(g);
	exec_result *r = malloc(4 * sizeof *r);
	if (r && exec_run(s, &r[0]) == SIM_OK && exec_run(o, &r[1]) == SIM_OK &&
	    exec_run(h1, &r[2]) == SIM_OK && exec_run(h2, &r[3]) == SIM_OK) {
		CHECK_NEAR(r[0].step_s - r[1].step_s, gpu, 1e-8);
		CHECK_NEAR(r[3].step_s - r[2].step_s, 16 * 195 * 1e-3, 1e-8);
		/* at 1 ms the host's 3.13 s less what runs beside it after the
		 * backward (the all-reduce, the step, the gather), then the copies */
		double h1s = 16 * (195 * (1e-3 + 4e-6) + 2 * 4e-6), d = r[2].step_s - r[1].step_s;
		CHECK(d > h1s - 1.0 && d < h1s + gpu);
	}
	free(r);
	sweep_estimate es, eo;
	sweep_estimate_plan(s, &es);
	sweep_estimate_plan(o, &eo);
	CHECK_NEAR(es.optimizer_s - eo.optimizer_s,
	           fmax(gpu, plan_step_loops(s, 0, NULL) + host - (eo.dp_s + eo.optimizer_s)),
	           1e-12);
	CHECK_NEAR(es.dp_s, eo.dp_s, 1e-15);
out:
	plan_scenario_free(s);
	plan_scenario_free(o);
	plan_scenario_free(z);
	plan_scenario_free(h1);
	plan_scenario_free(h2);
}

/* nanotron's per-tensor loops around the step (plan_step_loops) and its
 * clipping over the whole gradient (clip_scope = replica), on Llama 3 8B at
 * tp1 dp16 (195 parameter tensors, as test_zero_gather_copies).
 *   host = 195 tensors x 3 operations x (step_tensor_op 5.4 us + launch 4 us)
 *        = 5.499 ms
 *   clipping: 12 B (the fp32 norm's read, the rescale's read and write) per
 *   parameter of the rank's whole gradient, P; with clip_scope = shard the
 *   norm's 4 B per parameter of the ZeRO-1 shard, P/16: the step's GPU time
 *   differs by (12 P - 4 P/16) / (hbm_bw x hbm_efficiency).
 * ZeRO-0 (no gather loops after them): at step_tensor_op = 1 ms and 2 ms the
 * host's loops (0.587 s, 1.172 s) outlast the step's kernels, which end with
 * them: the steps differ by 195 x 3 x 1 ms = 0.585 s exactly, in the graph
 * (the compute stream's wait for them booked as optimizer time) and in the
 * pre-screen. */
static void test_step_loops(void)
{
	const char *on[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=16",
	                    "parallel.global_batch=16", "parallel.zero=1", NULL};
	plan_scenario *s = load(NANOTRON, on, 5);
	on[5] = "framework.clip_scope=shard";
	plan_scenario *sh = load(NANOTRON, on, 6);
	on[4] = "parallel.zero=0";
	on[5] = "framework.step_tensor_op=1ms";
	plan_scenario *h1 = load(NANOTRON, on, 6);
	on[5] = "framework.step_tensor_op=2ms";
	plan_scenario *h2 = load(NANOTRON, on, 6);
	on[5] = "framework.step_tensor_ops=0";
	plan_scenario *o = load(NANOTRON, on, 6);
	if (!s || !sh || !h1 || !h2 || !o)
		goto out;
	int n;
	double loops = plan_step_loops(s, 0, &n);
	CHECK_INT(n, 195);
	CHECK_INT(s->fw.step_tensor_ops, 3);
	CHECK_INT(s->fw.clip_scope, PLAN_CLIP_REPLICA);
	CHECK_NEAR(loops, 195 * 3 * (5.4e-6 + 4e-6), 1e-12);
	CHECK_NEAR(loops, 5.499e-3, 1e-9);
	CHECK_NEAR(plan_step_loops(o, 0, NULL), 0, 0);
	double local = plan_local_params(s, 0), P = 16 * local;
	double rate = s->gpu.hbm_Bps * s->gpu.hbm_eff;
	CHECK(P > 8.0e9 && P < 8.1e9);
	CHECK_NEAR(plan_optimizer_time(s, 0, local) - plan_optimizer_time(sh, 0, local),
	           (12 * P - 4 * local) / rate, 1e-9);
	plan_graph *g = NULL;
	double l1 = plan_step_loops(h1, 0, NULL);
	if (plan_build(h1, &g) == SIM_OK) {
		int hosts = 0;
		for (size_t i = 0; i < g->ntasks; i++) {
			const plan_task *x = &g->tasks[i];
			hosts += x->kind == PLAN_TASK_OPTIM && x->stream == PLAN_STREAM_OFFLOAD &&
			         fabs(sim_time_to_s(x->dur) - l1) < 1e-9;
		}
		CHECK_INT(hosts, 1);
	}
	plan_graph_free(g);
	exec_result *r = malloc(2 * sizeof *r);
	if (r && exec_run(h1, &r[0]) == SIM_OK && exec_run(h2, &r[1]) == SIM_OK) {
		CHECK_NEAR(r[1].step_s - r[0].step_s, 195 * 3 * 1e-3, 1e-8);
		/* the compute stream waits for the host's loops: optimizer time */
		CHECK_NEAR(r[1].classes[0].time_s[EXEC_CAT_OPTIMIZER] -
		                   r[0].classes[0].time_s[EXEC_CAT_OPTIMIZER],
		           195 * 3 * 1e-3, 1e-8);
	}
	free(r);
	sweep_estimate e1, e2, eo;
	sweep_estimate_plan(h1, &e1);
	sweep_estimate_plan(h2, &e2);
	sweep_estimate_plan(o, &eo);
	CHECK_NEAR(e2.optimizer_s - e1.optimizer_s, 195 * 3 * 1e-3, 1e-9);
	CHECK_NEAR(e1.optimizer_s - eo.optimizer_s, fmax(0, l1 - eo.optimizer_s - eo.dp_s), 1e-12);
out:
	plan_scenario_free(s);
	plan_scenario_free(sh);
	plan_scenario_free(h1);
	plan_scenario_free(h2);
	plan_scenario_free(o);
}

/* The profile file reads as cited (topologies/frameworks/nanotron.ini). */
static void test_profile(void)
{
	plan_scenario *s = load(NANOTRON, NULL, 0);
	if (s) {
		CHECK_STR(s->fw.name, "nanotron");
		CHECK_INT(s->fw.layer_kernels, WORK_LAYER_NANOTRON);
		CHECK_INT(s->fw.grad_accum, PLAN_ACCUM_KERNEL);
		CHECK_INT(s->fw.p2p_handshakes, 2);
		CHECK_INT(s->fw.p2p_host_ops, 21);
		CHECK_INT(s->fw.p2p_fwd_tensors, 2);
		CHECK(s->fw.zero_one_bucket && s->fw.comm_host_op && !s->fw.few_microbatches);
		CHECK(s->fw.p2p_serial);
		CHECK(s->plan.fp32_grads && s->plan.overlap_grad_reduce);
	}
	plan_scenario_free(s);
}

/* The pre-screen charges the same terms: with grad_accum = kernel its compute
 * grows by m x the accumulation task's time as plan_build emits it, a task
 * of its own taking max(GPU, host): the kernels' GPU time (plan_kernel_time
 * less the framework's part of each launch) against the host's launches and
 * framework ops (until 2026-11-30 the two were summed there), and with
 * p2p_host_ops = 10 its pipeline term by m x 2 x 346 us (one transfer each
 * way per micro-batch). */
static void test_estimate(void)
{
	const char *acc[] = {"framework.grad_accum=kernel"};
	const char *p2p[] = {"framework.p2p_host_ops=10"};
	plan_scenario *a = load(QUICKSTART, NULL, 0), *b = load(QUICKSTART, acc, 1),
	              *c = load(QUICKSTART, p2p, 1);
	if (a && b && c) {
		sweep_estimate ea, eb, ec;
		sweep_estimate_plan(a, &ea);
		sweep_estimate_plan(b, &eb);
		sweep_estimate_plan(c, &ec);
		int m = plan_microbatches(&a->plan), hit = 0;
		work_item it;
		/* the bottleneck stage's task (the same stage in both) */
		for (int st = 0; st < b->plan.pp; st++)
			if (plan_grad_accum_item(b, st, -1, &it)) {
				int nk = it.launches > 1 ? it.launches : 1;
				double fs = plan_item_framework_s(&b->gpu, &it);
				double g = plan_kernel_time(&b->gpu, b->dtype, &it) - nk * fs;
				double h = nk * (b->gpu.launch_s + fs);
				hit += fabs(eb.compute_s - ea.compute_s - m * fmax(g, h)) < 1e-9;
			}
		CHECK(hit >= 1); /* both stages' tasks are host-bound alike: 2 */
		CHECK(eb.step_s > ea.step_s);
		CHECK_NEAR(ec.pp_s - ea.pp_s, m * 2 * 10 * (c->gpu.launch_s + c->gpu.framework_s), 1e-9);
		CHECK_NEAR(c->gpu.launch_s + c->gpu.framework_s, 34.6e-6, 1e-12);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
}

/* A model of two layer kinds per MoE/dense split, windowed and full
 * (Mixtral with GPT-OSS's windows: 128 tokens on every odd layer_number):
 * plan_build and plan_microbatch_cost make one program per kind and agree
 * task for task; the sweep's pre-screen counts each stage's own mix, so its
 * bound stays under the simulated step; and the windows shorten it. */
static void test_window_kinds(void)
{
	const char *win[] = {"model.window=128", "model.window_skip=2"};
	plan_scenario *s = load("scenarios/mixtral-8x7b-h100.ini", win, 2),
	              *f = load("scenarios/mixtral-8x7b-h100.ini", NULL, 0);
	plan_graph *g = NULL;
	CHECK(s && f && plan_build(s, &g) == SIM_OK);
	if (g) {
		for (int st = 0; st < s->plan.pp; st++) {
			plan_mb_cost c;
			check_cost_matches(s, g, st, &c);
		}
		exec_result *r = malloc(2 * sizeof *r);
		bool ran = r && exec_run(s, &r[0]) == SIM_OK && exec_run(f, &r[1]) == SIM_OK;
		CHECK(ran);
		if (ran) {
			sweep_estimate e;
			sweep_estimate_plan(s, &e);
			CHECK(e.bound_s <= r[0].step_s);
			CHECK(r[0].step_s < r[1].step_s);
		}
		free(r);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	plan_scenario_free(f);
}

int main(void)
{
	test_nanotron_layer();
	test_cost_matches_graph();
	test_comm_host_op();
	test_grad_accum();
	test_grad_accum_autograd();
	test_p2p_overhead();
	test_p2p_serial();
	test_beside_graph();
	test_zero_one_bucket();
	test_zero_gather_copies();
	test_step_loops();
	test_profile();
	test_estimate();
	test_window_kinds();
	return check_done();
}
