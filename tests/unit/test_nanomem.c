/* test_nanomem.c - what nanotron keeps in GPU memory (issue 22), derived by
 * hand for Llama 3.2 1B (models/llama3.2-1b.ini: 16 layers, h 2048, 32 heads
 * of 64, 8 KV heads, f 8192, V 128256, tied embedding; P = 1,235,814,400)
 * under topologies/frameworks/nanotron.ini, and podsim's terms held equal to
 * the derivation: the layer's saved tensors (work/memory.c "nanotron"), the
 * sharded loss (plan/memory.c), and the walk's new terms (memwalk.c: the
 * backward's 16-bit gradients, DDP's 16-bit buckets, the SP gather buffers,
 * one pipeline buffer, ZeRO-1's gather copies, the extra communicators). */
#include "check.h"
#include "scen.h"

#include "../../sim/exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define NANO                                                                                       \
	"include = models/llama3.2-1b.ini\ninclude = topologies/efa-h100-cluster.ini\n"            \
	"include = topologies/frameworks/nanotron.ini\n[scenario]\nname = t\n[cluster]\n"          \
	"nodes = 1\n[model]\nseq_len = 4096\n[train]\nprecision = bf16\n[parallel]\n"

static const double P = 1235814400.0, V = 128256, H = 2048, LAYER = 60821504.0, EMB = 262668288.0;

/* One TP rank's share of `all` parameters of which `whole` stay whole on
 * every rank: nanotron's TritonRMSNorm weights are of the full hidden size
 * (models/llama.py:704, 712 at 0e0a27ea, the final norm the same), two per
 * layer, RN = 2 h = 4,096 (work_params_layer_replicated). */
static const double RN = 4096;
static double rank_share(double all, double whole, double t)
{
	return (all - whole) / t + whole;
}


/* Communicators in the runtime term: (runtime - context - NCCL) / buffers. */
static double comms(const plan_scenario *s, const plan_mem_peak *p)
{
	return (p->bytes[PLAN_MEM_RUNTIME] - s->fw.context_bytes - s->fw.nccl_bytes) /
	       s->fw.comm_bytes;
}

/* Per token and layer (work/memory.c's table), e = 2, t = 1: the norms'
 * inputs and rstd 2 (2 x 2048 + 4), the two linear inputs 2 x 4096,
 * Q 4096, the packed K/V 2 x 2 x 512, the output 4096, the LSE 4 x 32,
 * SwiGLU 4 x 2 x 8192: 16,392 + 75,904 = 92,296. Without GQA (32 KV heads)
 * Q is a view of the packed q, k, v copy: + 2 e kv = 8192 more, and K, V
 * are 2048 wide: 16,392 + 2 (4096 + 8192) + 128 + 65,536 = 106,632. With
 * tp 4 and SP: 16,392/4 + (2 (4096 + 1024) + 128 + 65,536)/4 = 23,074. The
 * loss: forward 8 B per logit (the fp32 cast and the out-of-place shifted
 * copy), kept 4 (the softmax), backward 4 + 2; / t. */
static void test_layer_and_loss(void)
{
	work_model m = {.layers = 16,
	                .hidden = 2048,
	                .heads = 32,
	                .kv_heads = 8,
	                .ffn = 8192,
	                .vocab = 128256,
	                .seq_len = 1,
	                .act = WORK_ACT_SWIGLU,
	                .norm = WORK_NORM_RMSNORM};
	work_shard sh = {1,
	                 false,
	                 1,
	                 1,
	                 HW_BF16,
	                 true,
	                 1,
	                 1,
	                 HW_FLASH_FA2,
	                 WORK_LAYER_NANOTRON,
	                 WORK_LOSS_SHARDED,
	                 false,
	                 WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	work_saved nt = {WORK_SAVED_NANOTRON, WORK_SAVE_NORM_FUSED, false, false, false, false};
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_NONE, &nt), 92296, 1e-12);
	/* the eager count with the same keys lacks only the LSE and the rstd */
	work_saved eager = {WORK_SAVED_EAGER, WORK_SAVE_NORM_FUSED, false, false, false, false};
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_NONE, &eager), 92296 - 136,
	           1e-12);
	/* recompute_layer: CheckpointFunction keeps the layer input, e h */
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_FULL, &nt), 4096, 1e-12);
	work_model mha = m;
	mha.kv_heads = 32;
	CHECK_NEAR(work_saved_bytes_at(&mha, &sh, 0, WORK_RECOMPUTE_NONE, &nt), 106632, 1e-12);
	work_shard sp = sh;
	sp.tp = 4, sp.sp = true;
	CHECK_NEAR(work_saved_bytes_at(&m, &sp, 0, WORK_RECOMPUTE_NONE, &nt), 23074, 1e-12);
	CHECK_NEAR(work_saved_bytes_at(&m, &sp, 0, WORK_RECOMPUTE_FULL, &nt), 1024, 1e-12);
	/* tp 4 without SP (ALL_REDUCE, plain linears): the replicated part
	 * whole, 16,392 + 75,904/4 = 35,368 per token; with two sequences
	 * o_proj's matmul keeps its folded copy of the transposed output too,
	 * e q / t = 1024 more */
	work_shard ar = sh;
	ar.tp = 4;
	CHECK_NEAR(work_saved_bytes_at(&m, &ar, 0, WORK_RECOMPUTE_NONE, &nt), 35368, 1e-12);
	ar.micro_batch = 2;
	CHECK_NEAR(work_saved_bytes_at(&m, &ar, 0, WORK_RECOMPUTE_NONE, &nt), 2 * (35368 + 1024),
	           1e-12);

	plan_scenario *s = scen_load(NANO "tp = 4\npp = 2\nmicro_batch = 1\nglobal_batch = 4\n"
	                             "sequence_parallel = true\n");
	if (!s)
		return;
	double f, k, b, h;
	plan_loss_bytes(s, &f, &k, &b, &h);
	CHECK_NEAR(f, 8.0 / 4, 1e-12);
	CHECK_NEAR(k, 4.0 / 4, 1e-12);
	CHECK_NEAR(b, 6.0 / 4, 1e-12);
	CHECK_NEAR(h, 0, 0);
	CHECK_INT(plan_saved(s).kind, WORK_SAVED_NANOTRON);
	plan_scenario_free(s);
}

/* Plan A: dp 8, micro-batch 4 of 4096 tokens (T = 16,384), no TP or PP,
 * ZeRO-0, one micro-batch per step. Static: 16-bit weights 2P, the fp32
 * gradient buffer 4P, DDP's 16-bit buckets 2P, fp32 master and Adam m, v
 * 12P: 20P = 24,716,288,000, and PyTorch's two 32 MiB cuBLAS workspaces
 * (the forward's thread and autograd's backward thread, memwalk.c). The peak is the end
 * of the forward with the loss: 16 layers x 92,296 x T = 24,194,842,624 of
 * activations, 8 T V = 16,810,770,432 of logits and the final norm's input,
 * rstd and the lm_head's input, (2 e h + 4) T = 134,283,264: allocated
 * 65,923,293,184 B = 61.40 GiB. The backward's end (20P, 2P of .grad) and
 * the loss backward (6 B per logit) are smaller. Runtime: the context
 * 0.47 GiB, NCCL 1.28 GiB and three communicators (dp, the default group's
 * barrier, world_pg) x 0.17 GiB = 2.26 GiB; reserved = 1.177 x allocated =
 * 72.26 GiB, the device 74.52 GiB of the 79.1 GiB an H100 reports: tight
 * (over 90 %), not out of memory. */
static void test_plan_dp8(void)
{
	plan_scenario *s = scen_load(NANO "tp = 1\npp = 1\ndp = 8\nmicro_batch = 4\nglobal_batch = "
	                             "32\nzero = 0\n");
	if (!s)
		return;
	double T = 16384;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK(strstr(p.moment, "forward") && strstr(p.moment, "with the loss"));
	CHECK_NEAR(scen_term(&p, "weights"), 2 * P, 1e-12);
	CHECK_NEAR(scen_term(&p, "gradient buffer"), 4 * P, 1e-12);
	CHECK_NEAR(scen_term(&p, "DDP bucket copy"), 2 * P, 1e-12);
	CHECK_NEAR(scen_term(&p, "optimizer states"), 12 * P, 1e-12);
	CHECK_NEAR(scen_term(&p, "kept activations"), 16 * 92296 * T, 1e-12);
	CHECK_NEAR(scen_term(&p, "loss logits"), 8 * T * V + (2 * 2 * H + 4) * T, 1e-12);
	CHECK_NEAR(scen_term(&p, "backward's 16-bit gradients"), 0, 0);
	double alloc = 20 * P + 67108864 + 16 * 92296 * T + 8 * T * V + 8196 * T;
	CHECK_NEAR(alloc, 65923293184.0, 1e-12);
	CHECK_NEAR(p.allocated, alloc, 1e-12);
	CHECK_NEAR(comms(s, &p), 3, 1e-9);
	CHECK_NEAR(p.reserved, 1.177 * alloc, 1e-12);
	CHECK_NEAR(p.device - p.reserved, 0.47 * 1073741824.0 + 1.28 * 1073741824.0 +
	                                          3 * 0.17 * 1073741824.0,
	           1e-9);
	CHECK_NEAR(p.capacity, 79.1 * 1073741824.0, 1e-12);
	CHECK_INT(p.verdict, PLAN_VERDICT_TIGHT);
	plan_scenario_free(s);
}

/* Plan B: tp 4 with SP, pp 2 under 1F1B, dp 1, micro-batch 4 (T = 16,384),
 * 4 micro-batches. nanotron balances the stages by its block costs (plan_layout,
 * uneven_split = cost): a layer 4 x 32 x 64 x 2048 + 3 x 8192 x 2048 =
 * 67,108,864, the lm_head 128,256 x 2048 = 262,668,288, in all 1,336,410,112;
 * stage 0 takes layers until their sum passes half, 668,205,056: 10 x
 * 67,108,864 = 671,088,640 does. Per rank: stage 0 holds 10 layers and the
 * embedding, (10 x (60,821,504 - 4,096) + 262,668,288)/4 + 10 x 4,096 =
 * 217,751,552 parameters (the norms whole); stage 1 the other 6, the final
 * norm (whole) and the tied lm_head's own copy: 156,919,808. Static: 18 B per parameter (no DDP with
 * dp 1), PyTorch's two 32 MiB workspaces, one pipeline tensor s b h e / t = 16 MiB and the
 * two SP gather buffers 2 T h e = 128 MiB. Activations per micro-batch and
 * layer: 23,074 x T = 378,028,032. Stage 0 keeps pp - 0 = 2
 * micro-batches, its peak the first backward's start, with that layer's
 * activation gradients 3 e f / t x T = 201,326,592; stage 1 keeps one and
 * peaks at its loss forward: 8/4 x T x V + (2 e h + 4) T / 4. Six
 * communicators each: tp, the pipeline neighbour, the tied pair (also the
 * pipeline group at pp = 2), the default group, world_pg and tp x pp. */
static void test_plan_tp4_pp2(void)
{
	plan_scenario *s = scen_load(NANO "tp = 4\npp = 2\ndp = 1\nmicro_batch = 4\nglobal_batch = "
	                             "16\nsequence_parallel = true\nschedule = 1f1b\nzero = 0\n");
	if (!s)
		return;
	double T = 16384, p0 = rank_share(10 * LAYER + EMB, 10 * RN, 4),
	       p1 = rank_share(6 * LAYER + 2048 + EMB, 6 * RN + 2048, 4);
	CHECK_NEAR(p0, 217751552, 0);
	CHECK_NEAR(p1, 156919808, 0);
	CHECK_INT(s->vlayers[0], 10);
	CHECK_INT(s->vlayers[1], 6);
	double buf = 67108864 + 16777216 + 134217728, act = 10 * 23074 * T, act1 = 6 * 23074 * T;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK_NEAR(scen_term(&p, "weights"), 2 * p0, 1e-12);
	CHECK_NEAR(scen_term(&p, "pipeline buffers"), 16777216, 1e-12);
	CHECK_NEAR(scen_term(&p, "SP gather buffers"), 134217728, 1e-12);
	CHECK_NEAR(scen_term(&p, "DDP bucket copy"), 0, 0);
	CHECK_NEAR(scen_term(&p, "kept activations"), 2 * act, 1e-12);
	CHECK_NEAR(p.allocated, 18 * p0 + buf + 2 * act + 201326592, 1e-12);
	CHECK(strstr(p.moment, "backward of micro-batch 0") != NULL);
	CHECK_NEAR(comms(s, &p), 6, 1e-9);
	plan_memory_peak(s, 1, &p);
	CHECK(strstr(p.moment, "with the loss") != NULL);
	CHECK_NEAR(p.allocated, 18 * p1 + buf + act1 + 2 * T * V + 8196 * T / 4, 1e-12);
	CHECK_NEAR(comms(s, &p), 6, 1e-9);
	plan_scenario_free(s);
	/* pp 4: the whole pipeline group is its own communicator; a middle
	 * stage has two neighbours and no tied pair: tp, 2 p2p, default,
	 * world, pp, mp = 7 */
	s = scen_load(NANO "tp = 2\npp = 4\ndp = 1\nmicro_batch = 1\nglobal_batch = 8\n"
	              "sequence_parallel = true\n");
	if (s) {
		plan_memory_peak(s, 1, &p);
		CHECK_NEAR(comms(s, &p), 7, 1e-9);
		plan_scenario_free(s);
	}
}

/* The backward's 16-bit gradients: stage 0 of tp 4, pp 2 (SP, 4 micro-
 * batches of 4096 tokens; 10 layers, plan B's split) under full
 * recomputation keeps only the layer inputs, 10 x e h / t x T = 20 MiB per
 * micro-batch, so the peak is a backward's end: one micro-batch still in
 * flight, the stage's .grad 2 x 217,751,552, the recomputed layer's tensors
 * 23,074 x T and its activation gradients 3 e f / t x T. ZeRO-1 with tp 2,
 * pp 2, dp 2 (no DDP; stage 0 holds P0 = (10 x (60,821,504 - 4,096) +
 * 262,668,288)/2 + 10 x 4,096): the states
 * over dp, 2 + 4 + 12/2 B per parameter, and at the step the all-gather's
 * flat shard and two 16-bit copies of the parameters, 2 x (2 + 1/2) P0,
 * gone after it. */
static void test_backward_and_step(void)
{
	plan_scenario *s = scen_load(NANO "tp = 4\npp = 2\ndp = 1\nmicro_batch = 1\nglobal_batch = 4\n"
	                             "sequence_parallel = true\nrecompute = full\n");
	if (!s)
		return;
	double T = 4096, p0 = rank_share(10 * LAYER + EMB, 10 * RN, 4);
	double stat = 18 * p0 + 67108864 + 4194304 + 2 * T * H * 2;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK(strstr(p.moment, "backward") && strstr(p.moment, "recomputing"));
	CHECK_NEAR(scen_term(&p, "backward's 16-bit gradients"), 2 * p0, 1e-12);
	CHECK_NEAR(scen_term(&p, "kept activations"), 10 * 2 * H / 4 * T, 1e-12);
	CHECK_NEAR(p.allocated,
	           stat + 10 * 2 * H / 4 * T + 2 * p0 + 23074 * T + 3 * 2 * 8192 / 4 * T, 1e-12);
	plan_scenario_free(s);
	s = scen_load(NANO "tp = 2\npp = 2\ndp = 2\nmicro_batch = 1\nglobal_batch = 8\n"
	              "sequence_parallel = true\nzero = 1\n");
	if (s) {
		int n = plan_schedule_steps(s->plan.schedule, 4, 1) + 1;
		double *a = malloc(3 * (size_t)n * sizeof *a);
		double q0 = rank_share(10 * LAYER + EMB, 10 * RN, 2);
		CHECK_INT(plan_memory_curve(s, 0, a, a + n, a + 2 * n, n), n);
		double st = 2 * q0 + 4 * q0 + 12 * q0 / 2 + 67108864 + 8388608 + 2 * T * H * 2;
		CHECK_NEAR(a[n + n - 1], st + 2 * (2 + 0.5) * q0, 1e-12);
		CHECK_NEAR(a[2 * n + n - 1], st, 1e-12);
		free(a);
		plan_scenario_free(s);
	}
}

/* What a run reports beside its peaks (exec_class.mem_logged_bytes, the
 * report's "logged" line and JSON logged_allocated): nanotron's own log
 * reads max_memory_allocated after resetting the counters past the backward
 * ([framework] logged_peak = after-pipeline), the optimizer phase's
 * allocated, plan_memory_after_pipeline (derived term by term in
 * tests/cli/case-reader-open.sh), below the step's peak; 0 for a framework
 * that logs the step's peak. */
static void test_logged(void)
{
	plan_scenario *s = scen_load(NANO "tp = 1\npp = 1\ndp = 8\nmicro_batch = 4\nglobal_batch = "
	                             "32\nzero = 0\n");
	plan_scenario *t = scen_load(NANO "tp = 1\npp = 1\ndp = 8\nmicro_batch = 4\nglobal_batch = "
	                             "32\nzero = 0\n[framework]\nlogged_peak = step\n");
	exec_result *r = malloc(2 * sizeof *r);
	if (s && t && r && CHECK_INT(exec_run(s, &r[0]), SIM_OK) &&
	    CHECK_INT(exec_run(t, &r[1]), SIM_OK)) {
		const exec_class *c = &r[0].classes[0];
		CHECK_NEAR(c->mem_logged_bytes, plan_memory_after_pipeline(s, 0), 0);
		CHECK(c->mem_logged_bytes > 0 && c->mem_logged_bytes < exec_class_allocated(c));
		CHECK_NEAR(r[1].classes[0].mem_logged_bytes, 0, 0);
	}
	free(r);
	plan_scenario_free(s);
	plan_scenario_free(t);
}

int main(void)
{
	test_logged();
	test_layer_and_loss();
	test_plan_dp8();
	test_plan_tp4_pp2();
	test_backward_and_step();
	return check_done();
}
