/* test_moe.c - mixture-of-experts layers and expert parallelism: parameter
 * counts against the published model, the layer programs against the model
 * FLOPs, the all-to-all sizes, and the task graph and memory of an EP plan. */
#include "../../sim/exec/exec.h"
#include "../../sim/plan/plan.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mixtral 8x7B (Jiang et al. 2024; config.json): h 4096, 32 layers, 32 heads,
 * 8 KV heads (d = 128), SwiGLU experts of f = 14336, 8 experts, top 2,
 * V = 32000, untied, RMSNorm, no biases. Per layer: attention 2*h*h + 2*h*1024
 * = 41,943,040; router h*8 = 32,768; an expert 3*h*f = 176,160,768; norms 2h.
 * Total = 32 x (41,943,040 + 8,192 + 32,768 + 8 x 176,160,768) + 2 x V*h + h
 *       = 46,702,792,704, the model card's 46.7B; active per token (2
 * experts) 12,879,925,248, its 12.9B. */
static work_model mixtral(void)
{
	work_model m = {.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
			 .vocab = 32000, .seq_len = 4096, .act = WORK_ACT_SWIGLU,
			 .norm = WORK_NORM_RMSNORM, .untied_embeddings = true, .moe_experts = 8,
			 .moe_topk = 2, .moe_imbalance = 1.0};
	return m;
}

static void test_params(void)
{
	work_model m = mixtral();
	CHECK_NEAR(work_params_total(&m), 46702792704.0, 0);
	CHECK_NEAR(work_params_layer_experts(&m, 5), 8 * 176160768.0, 0);
	CHECK(work_layer_is_moe(&m, 0));
	/* Model FLOPs per token: 6 x active matmul weights (attention, router, two
	 * experts per layer, the logits V*h) + 12*l*s*(a*d) attention. */
	double active = 32 * (41943040.0 + 32768 + 2 * 176160768.0) + 32000.0 * 4096;
	double want = 6 * active + 12.0 * 32 * 4096 * 4096;
	CHECK_NEAR(work_model_flops(&m, 1.0), want, 1e-12);
	/* Leading dense layers with their own inner size (DeepSeek-style). */
	m.moe_dense_layers = 1;
	m.dense_ffn = 8192;
	CHECK(!work_layer_is_moe(&m, 0) && work_layer_is_moe(&m, 1));
	CHECK_NEAR(work_params_layer_at(&m, 0), 41943040.0 + 8192 + 3 * 4096.0 * 8192, 0);
}

typedef struct sums {
	double flops, a2a;
	int na2a;
} sums;

static sums sum(const work_item *it, int n)
{
	sums s = {0, 0, 0};
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_KERNEL && strcmp(it[i].name, "attn") != 0)
			s.flops += it[i].flops;
		if (it[i].kind == WORK_ITEM_COMM && it[i].comm == WORK_COMM_EP_ALLTOALL)
			s.a2a += it[i].comm_bytes, s.na2a++;
	}
	return s;
}

/* The MoE layer program over the t TP ranks does the layer's matmul FLOPs:
 * forward 2 x (attention + router + k experts) weights per token, backward
 * twice that, with tokens T = b*s split over TP by SP (the routed path) or the
 * weights split over TP (attention). Each rank sends k*Tn*h*e bytes per
 * all-to-all, Tn = T/t (b 1, s 4096, t 2: 2*2048*4096*2 = 33,554,432), twice
 * forward (dispatch, combine) and twice backward. With imbalance 1.5 the
 * busiest rank moves and computes 1.5x the routed part. */
static void test_programs(void)
{
	work_model m = mixtral();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true, .cp = 1, .ep = 8};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	sums sf = sum(f, work_layer_forward_at(&m, &sh, 3, f));
	sums sb = sum(b, work_layer_backward_at(&m, &sh, 3, b));
	double T = 4096, w = 41943040.0 + 32768 + 2 * 176160768.0;
	CHECK_NEAR(sf.flops * 2, 2 * T * w, 1e-12);
	CHECK_NEAR(sb.flops * 2, 4 * T * w, 1e-12);
	CHECK_INT(sf.na2a, 2);
	CHECK_INT(sb.na2a, 2);
	CHECK_NEAR(sf.a2a, 2 * 33554432.0, 0);
	m.moe_imbalance = 1.5;
	sums si = sum(f, work_layer_forward_at(&m, &sh, 3, f));
	double routed = 2 * (T / 2) * 2 * 176160768.0; /* per rank, k = 2 */
	CHECK_NEAR(si.flops - sf.flops, 0.5 * routed, 1e-9);
	CHECK_NEAR(si.a2a, 1.5 * sf.a2a, 1e-12);
}

static const work_item *named(const work_item *it, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(it[i].name, name))
			return &it[i];
	return NULL;
}

/* [parallel] moe_dispatcher = alltoall (Megatron-Core's
 * MoEAlltoAllTokenDispatcher, layer.c ep_counts): Mixtral at tp 2 with SP and
 * ep 4, Tn = 4096 / 2 = 2048 tokens, k = 2: R = 4096 rows, 8 / 4 = 2 local
 * experts, e = 2, h = 4096. Beside the fused program's items:
 *   forward   the counts' all-gather, 8 bytes x 8 experts x 4 ranks = 256 B
 *             on the EP group; the probabilities' all-to-all, 4R = 16,384 B;
 *             the sort, 2R(e h + 4) = 67,141,632 B, and the unsort, 2R e h =
 *             67,108,864 B
 *   backward  the probabilities' all-to-all again, the sort and unsort passes
 *             again, no counts
 * so 3 all-to-alls each way instead of 2. With ep 8 (one local expert) no
 * sort, the rest stays; the fused dispatcher has none of them. */
static void test_dispatcher(void)
{
	work_model m = mixtral();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true, .cp = 1, .ep = 4, .moe_dispatcher = WORK_MOE_ALLTOALL};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(&m, &sh, 3, f), nb = work_layer_backward_at(&m, &sh, 3, b);
	sums sf = sum(f, nf), sb = sum(b, nb);
	CHECK_INT(sf.na2a, 3);
	CHECK_INT(sb.na2a, 3);
	CHECK_NEAR(sf.a2a, 2 * 2 * 4096 * 4096.0 + 4 * 4096.0, 0);
	const work_item *c = named(f, nf, "ep_counts");
	CHECK(c && c->kind == WORK_ITEM_COMM && c->comm == WORK_COMM_EP_ALLGATHER &&
	      work_comm_on_ep(c->comm));
	if (c)
		CHECK_NEAR(c->comm_bytes, 256, 0);
	CHECK(named(b, nb, "ep_counts") == NULL);
	const work_item *x = named(f, nf, "sort"), *y = named(f, nf, "unsort");
	CHECK(x && y);
	if (x && y) {
		CHECK_NEAR(x->bytes, 67141632.0, 0);
		CHECK_NEAR(y->bytes, 67108864.0, 0);
	}
	CHECK(named(b, nb, "sort") && named(b, nb, "unsort"));
	sh.ep = 8;
	nf = work_layer_forward_at(&m, &sh, 3, f);
	CHECK(named(f, nf, "sort") == NULL && named(f, nf, "ep_probs") != NULL);
	sh.moe_dispatcher = WORK_MOE_FUSED;
	nf = work_layer_forward_at(&m, &sh, 3, f);
	CHECK(named(f, nf, "ep_probs") == NULL && named(f, nf, "ep_counts") == NULL);
	CHECK_INT(sum(f, nf).na2a, 2);
}

/* Kernels an MoE layer's program launches: an item stands for `launches`
 * kernels (0 = 1). */
static int launches(const work_item *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (v[i].kind == WORK_ITEM_KERNEL)
			k += v[i].launches > 1 ? v[i].launches : 1;
	return k;
}

/* GPT-OSS-120B as Megatron-Bridge 26.02 ran it (the N09 row): h 2880, 64
 * heads of 64, 8 KV heads, 128 experts of 2880, top 4, SwiGLU-like with
 * biases, tp 1, ep 8 (16 local experts), one 4096-token micro-batch, the
 * all-to-all dispatcher. Derivation (layer.c "ep_meta", "expert_bias"):
 *  - forward, without biases: ln1, qkv, attn, proj, resid1, ln2, router,
 *    topk (8 items of one kernel), the dispatcher's metadata 11 (7 kernels
 *    of preprocess + 4 device-to-host copies), permute 4 (TE's row-id map
 *    in three passes + the permute), sort, fc1e, acte, fc2e, unsort,
 *    unpermute, resid2 (7 of one): 8 + 11 + 4 + 7 = 30;
 *  - the experts' biases add 2 x 16 + 1 = 33 forward (b * p and the sum
 *    per expert, the cat; probabilities in bf16, so no cast) and 4 x 16 +
 *    3 + 2 x 16 = 99 backward (per expert grad * p, its sum to [h], grad *
 *    b, its sum to [n, 1]; two split backwards and the probabilities'
 *    gradient sum; each local expert's fc1 and fc2 bias gradient added to
 *    its main_grad);
 *  - bytes per row of R = 4 x 4096 = 16384 rows, h = 2880, e = 2: forward
 *    6e h = 12 h, backward 8e h = 16 h plus 2 x 16 x (8 + e) h.
 * With the fused dispatcher neither the metadata nor TE's row-id passes. */
static void test_launches(void)
{
	work_model m = {.layers = 36, .hidden = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64,
			 .ffn = 2880, .vocab = 201088, .seq_len = 4096, .act = WORK_ACT_SWIGLU,
			 .norm = WORK_NORM_RMSNORM, .untied_embeddings = true, .moe_experts = 128,
			 .moe_topk = 4, .moe_imbalance = 1.0, .bias = false};
	work_shard sh = {.tp = 1, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16, .flash = true,
			 .cp = 1, .ep = 8, .moe_dispatcher = WORK_MOE_ALLTOALL};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(&m, &sh, 0, f), nb = work_layer_backward_at(&m, &sh, 0, b);
	CHECK_INT(launches(f, nf), 30);
	int nb0 = launches(b, nb);
	CHECK(named(f, nf, "ebias") == NULL && named(b, nb, "ebias") == NULL);
	m.bias = true;
	nf = work_layer_forward_at(&m, &sh, 0, f);
	nb = work_layer_backward_at(&m, &sh, 0, b);
	CHECK_INT(launches(f, nf), 30 + 33);
	CHECK_INT(launches(b, nb), nb0 + 99);
	const work_item *g1 = named(f, nf, "fc1e"), *g2 = named(b, nb, "fc2e_wgrad");
	CHECK(g1 && g2 && g1->streams == 4 && g2->streams == 4 && g1->batch == 16);
	const work_item *ef = named(f, nf, "ebias"), *eb = named(b, nb, "ebias");
	CHECK(ef && eb);
	if (ef && eb) {
		double rh = 16384.0 * 2880;
		CHECK_NEAR(ef->bytes, 12 * rh, 1e-12);
		CHECK_NEAR(eb->bytes, 16 * rh + 2 * 16 * 10 * 2880.0, 1e-12);
	}
	sh.moe_dispatcher = WORK_MOE_FUSED;
	m.bias = false;
	nf = work_layer_forward_at(&m, &sh, 0, f);
	CHECK_INT(launches(f, nf), 30 - 11 - 3 - 2); /* no metadata, row-id passes, sorts */
}

/* Sliding-window attention (GPT-OSS: window 128, every second layer full):
 * Megatron-Core's layer_number = layer + 1 is windowed unless a multiple of
 * window_skip. The fused kernel's work: query tiles of 128 rows each meet
 * ceil(128/128) + 1 = 2 key tiles, 4096 x 256 score pairs against the
 * causal 4096^2 / 2, so the item keeps the papers' count x 2 x 256 / 4096
 * = 1/8 (forward and backward); the bytes stay (Q, K, V, O). */
static void test_window(void)
{
	work_model m = {.layers = 4, .hidden = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64,
			 .ffn = 2880, .vocab = 201088, .seq_len = 4096, .act = WORK_ACT_SWIGLU,
			 .norm = WORK_NORM_RMSNORM, .moe_experts = 128, .moe_topk = 4,
			 .moe_imbalance = 1.0, .window = 128, .window_skip = 2};
	CHECK(work_layer_windowed(&m, 0) && !work_layer_windowed(&m, 1) &&
	      work_layer_windowed(&m, 2) && !work_layer_windowed(&m, 3));
	work_shard sh = {.tp = 1, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16, .flash = true,
			 .cp = 1, .ep = 8, .moe_dispatcher = WORK_MOE_ALLTOALL};
	work_item a[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	for (int bwd = 0; bwd < 2; bwd++) {
		int na = bwd ? work_layer_backward_at(&m, &sh, 0, a) : work_layer_forward_at(&m, &sh, 0, a);
		int nb = bwd ? work_layer_backward_at(&m, &sh, 1, b) : work_layer_forward_at(&m, &sh, 1, b);
		const work_item *w = named(a, na, "attn"), *f = named(b, nb, "attn");
		CHECK(w && f);
		if (w && f) {
			CHECK_NEAR(f->flops, (bwd ? 2 : 1) * 4.0 * 4096 * 4096 * 4096, 1e-12);
			CHECK_NEAR(w->flops, f->flops / 8, 1e-12);
			CHECK_NEAR(w->bytes, f->bytes, 0);
		}
	}
	m.window_skip = 0; /* every layer */
	CHECK(work_layer_windowed(&m, 1) && work_layer_windowed(&m, 3));
	m.window = 0;
	CHECK(!work_layer_windowed(&m, 0));
	/* a window as long as the sequence is the causal kernel */
	m.window = 4096;
	int n = work_layer_forward_at(&m, &sh, 0, a), nb = work_layer_forward_at(&m, &sh, 1, b);
	CHECK_NEAR(named(a, n, "attn")->flops, named(b, nb, "attn")->flops, 0);
}

static int count(const plan_graph *g, int rank, plan_task_kind k)
{
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		n += g->tasks[i].rank == rank && g->tasks[i].kind == k;
	return n;
}

/* The shipped scenario (tp 2, ep 8, pp 2, dp 8, 512 / (1 x 8) = 64 micro-
 * batches, 16 layers per stage): 4 all-to-alls per layer and micro-batch
 * (selective recomputation re-runs only the attention core): 16 x 64 x 4 = 4096
 * EP tasks per stage. Memory: one expert of each of the stage's 16 layers on
 * every GPU (8 experts / ep 8), 16 x 176,160,768 x 2 bytes of bf16 weights,
 * besides the TP-split rest. ep 8 -> 4 doubles the experts per GPU. */
static void test_plan(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", NULL, 0, d, &s), SIM_OK);
	if (!s) {
		sim_diag_free(d);
		return;
	}
	plan_graph *g = NULL;
	CHECK_INT(plan_build(s, &g), SIM_OK);
	if (g) {
		CHECK_INT(count(g, 0, PLAN_TASK_EP), 16 * 64 * 4);
		CHECK_INT(count(g, 1, PLAN_TASK_EP), 16 * 64 * 4);
	}
	plan_graph_free(g);
	double m8[PLAN_MEM_COUNT], m4[PLAN_MEM_COUNT];
	plan_memory(s, 1, m8);
	s->plan.ep = 4;
	plan_memory(s, 1, m4);
	CHECK_NEAR(m4[PLAN_MEM_WEIGHTS] - m8[PLAN_MEM_WEIGHTS], 16 * 176160768.0 * 2, 1e-9);
	plan_scenario_free(s);
	/* The alltoall dispatcher names itself in the plan string and, with its
	 * extra collectives and passes, lengthens the step. */
	const char *a2a[] = {"parallel.moe_dispatcher=alltoall"};
	plan_scenario *s2 = NULL, *s3 = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", NULL, 0, d, &s2), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", a2a, 1, d, &s3), SIM_OK);
	if (s2 && s3) {
		char l2[PLAN_LABEL_MAX], l3[PLAN_LABEL_MAX];
		plan_label(s2, l2, sizeof l2);
		plan_label(s3, l3, sizeof l3);
		CHECK(strstr(l2, "a2a-dispatcher") == NULL && strstr(l3, "a2a-dispatcher") != NULL);
		exec_result *r = malloc(2 * sizeof *r);
		bool ran = r && exec_run(s2, &r[0]) == SIM_OK && exec_run(s3, &r[1]) == SIM_OK;
		CHECK(ran);
		if (ran)
			CHECK(r[1].step_s > r[0].step_s);
		free(r);
	}
	/* The experts' grouped GEMM as Transformer Engine runs it: 16 GEMMs
	 * of GPT-OSS's fc1 [1024, 2880] x [2880, 5760] over 4 streams take 4
	 * rounds of a 4-GEMM grid (360 tiles of 128 x 128 each: 1440 tiles,
	 * 11 waves of 132 SMs, the last one 10/11 full), never less than
	 * the one batched grid of 5760 tiles (44 waves) would. */
	if (s2) {
		work_item gm = {.kind = WORK_ITEM_KERNEL, .kernel = WORK_KERNEL_GEMM, .m = 1024,
			       .n = 5760, .k = 2880, .batch = 16, .streams = 4};
		double four = hw_gemm_time(&s2->gpu, HW_BF16, 1024, 5760, 2880, 4);
		double over = hw_overhead(&s2->gpu);
		CHECK_NEAR(plan_kernel_time(&s2->gpu, HW_BF16, &gm), 4 * (four - over) + over, 1e-12);
		CHECK(plan_kernel_time(&s2->gpu, HW_BF16, &gm) >=
		      hw_gemm_time(&s2->gpu, HW_BF16, 1024, 5760, 2880, 16));
		gm.batch = 4; /* one round: the batched grid */
		CHECK_NEAR(plan_kernel_time(&s2->gpu, HW_BF16, &gm), four, 1e-12);
	}
	plan_scenario_free(s2);
	plan_scenario_free(s3);
	/* Plans that cannot run are refused at the key. */
	const char *bad[] = {"parallel.ep=3"};
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", bad, 1, d, &s), SIM_ECONF);
	const char *nosp[] = {"parallel.sequence_parallel=false"};
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", nosp, 1, d, &s), SIM_ECONF);
	sim_diag_free(d);
}

/* A pair's pieces (test_a2a_overlap): durations in seconds. */
typedef struct pair_pieces {
	double e, a, d, mf, c, tf;  /* forward: embedding, before the dispatch, the
				     * dispatch, the experts, the combine, after it */
	double pb, cb, mb, db, ab, eb; /* backward: before the combine, the combine, the
					* experts, the dispatch, after it, the embedding */
	double sf, sb;                 /* each micro-batch's tasks summed */
} pair_pieces;

/* Sort the combined step's tasks on rank 0 (graph order, tasks i0 .. i1-1:
 * micro-batch 1's forward and 0's backward) into the pieces, by the EP tasks
 * each micro-batch has passed. */
static pair_pieces pieces(const plan_graph *g, size_t i0, size_t i1)
{
	pair_pieces p = {0};
	int ef = 0, eb = 0;
	bool b_seen = false;
	size_t last_f = i0;
	for (size_t i = i0; i < i1; i++)
		if (g->tasks[i].rank == 0 && g->tasks[i].mb == 1)
			last_f = i;
	for (size_t i = i0; i < i1; i++) {
		const plan_task *t = &g->tasks[i];
		double d = sim_time_to_s(t->dur);
		if (t->rank != 0)
			continue;
		bool ep = t->kind == PLAN_TASK_EP;
		if (t->mb == 1) {
			p.sf += d;
			double *f[] = {b_seen ? &p.a : &p.e, &p.mf, &p.tf};
			*(ep ? (ef == 0 ? &p.d : &p.c) : f[ef]) += d;
			ef += ep;
		} else if (t->mb == 0) {
			b_seen = true;
			p.sb += d;
			double *b[] = {&p.pb, &p.mb, i > last_f ? &p.eb : &p.ab};
			*(ep ? (eb == 0 ? &p.cb : &p.db) : b[eb]) += d;
			eb += ep;
		}
	}
	return p;
}

/* moe_a2a_overlap on one MoE layer, pp 1, ep 2 = dp 2 on one NVSwitch node,
 * m = 2 micro-batches, interference 0 and DeepEP's kernels on no SMs
 * (moe_deepep_num_sms = 0: compute beside a collective keeps its rate; the
 * SMs they take are test_deepep_share's). Megatron-Core's combined 1F1B without
 * a pipeline (combined_1f1b.py:35-135) runs F0, then F1 with B0, then B1:
 * plan_schedule_order with one extra warm-up forward. The plain 1F1B runs
 * F0 B0 F1 B1 one after the other on the one stage, so
 *   T_plain - T_overlap = SF + SB - PAIR
 * (F0, B1, the gradient all-reduce and the optimizer are the same tasks in
 * both), SF and SB the summed tasks of F1 and B0, PAIR the combined step.
 * In the combined step the compute stream runs, in issue order (model_chunk_
 * schedule_plan.py:236-303 and 499-630), E_f, P_b, A_f, M_b, M_f, A_b, T_f,
 * E_b and the EP stream C_b, D_f, D_b, C_f, each task after the one before
 * it on its stream and after its own micro-batch's task before it; from the
 * step's start (both streams idle):
 *   C_b ends  cb'  = e + pb + cb          A_f ends  af = e + pb + a
 *   M_b ends  mb'  = max(af, cb') + mb    D_f ends  df = max(cb', af) + d
 *   D_b ends  db'  = max(df, mb') + db    M_f ends  mf' = max(mb', df) + mf
 *   C_f ends  cf'  = max(db', mf') + c    A_b ends  ab' = max(mf', db') + ab
 *   PAIR = max(ab', cf') + tf + eb
 * (T_f waits for C_f and follows A_b; E_b follows it). The replay must give
 * exactly that: the graph holds the issue order and the dependencies. */
static void a2a_overlap_case(const char *intra)
{
	const char *base[] = {intra, "cluster.nodes=1", "node.gpus=2", "model.layers=1",
			      "model.moe_experts=2", "parallel.tp=1", "parallel.pp=1",
			      "parallel.dp=2", "parallel.ep=2", "parallel.global_batch=4",
			      "parallel.recompute=none", "parallel.sequence_parallel=false",
			      "gpu.interference=0", "parallel.moe_deepep_num_sms=0",
			      "parallel.moe_a2a_overlap=true", "parallel.delay_wgrad_compute=true"};
	sim_diag *dg = sim_diag_new();
	plan_scenario *s[3] = {NULL, NULL, NULL}; /* plain, overlap, with delay */
	for (int k = 0; k < 3; k++)
		CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", base,
					     (size_t)(14 + k), dg, &s[k]),
			  SIM_OK);
	sim_diag_free(dg);
	exec_result *r = malloc(3 * sizeof *r);
	plan_graph *g = NULL;
	if (!s[0] || !s[1] || !s[2] || !r || plan_build(s[1], &g) != SIM_OK) {
		CHECK(false);
		goto done;
	}
	for (int k = 0; k < 3; k++)
		CHECK_INT(exec_run(s[k], &r[k]), SIM_OK);
	size_t i0 = 0, i1 = 0; /* the combined step: first task of micro-batch 1, B1's */
	while (i0 < g->ntasks && !(g->tasks[i0].rank == 0 && g->tasks[i0].mb == 1))
		i0++;
	for (i1 = i0; i1 < g->ntasks; i1++)
		if (g->tasks[i1].rank == 0 && g->tasks[i1].mb == 1 &&
		    g->tasks[i1].kind == PLAN_TASK_BWD)
			break;
	pair_pieces p = pieces(g, i0, i1);
	CHECK(p.d > 0 && p.c > 0 && p.cb > 0 && p.db > 0 && p.a > 0 && p.mb > 0);
	double cb = p.e + p.pb + p.cb, af = p.e + p.pb + p.a;
	double mb = fmax(af, cb) + p.mb, df = fmax(cb, af) + p.d;
	double db = fmax(df, mb) + p.db, mf = fmax(mb, df) + p.mf;
	double cf = fmax(db, mf) + p.c, ab = fmax(mf, db) + p.ab;
	double pair = fmax(ab, cf) + p.tf + p.eb;
	CHECK_NEAR(r[0].step_s - r[1].step_s, p.sf + p.sb - pair, 1e-6);
	/* the pair hides something, and no more than its all-to-alls (here all
	 * of them: equal to a picosecond tick, the two steps' difference in
	 * doubles rounding a few ulps above their sum) */
	CHECK(r[1].step_s < r[0].step_s);
	CHECK(r[0].step_s - r[1].step_s <= p.d + p.c + p.cb + p.db + 1e-12);
	/* delay_wgrad_compute: the deferred weight gradients are tasks of their
	 * own; each stream still runs its tasks one at a time, so the step is at
	 * least the compute stream's and the EP stream's busy time */
	plan_graph *gd = NULL;
	CHECK_INT(plan_build(s[2], &gd), SIM_OK);
	if (gd) {
		double comp = 0, ep = 0;
		int w = 0;
		for (size_t i = 0; i < gd->ntasks; i++) {
			const plan_task *t = &gd->tasks[i];
			if (t->rank != 0)
				continue;
			comp += t->stream == PLAN_STREAM_COMPUTE ? sim_time_to_s(t->dur) : 0;
			ep += t->stream == PLAN_STREAM_EP ? sim_time_to_s(t->dur) : 0;
			w += t->kind == PLAN_TASK_WGRAD;
		}
		CHECK(w > 0);
		CHECK(r[2].step_s >= comp && r[2].step_s >= ep);
		CHECK(r[2].step_s < r[0].step_s);
	}
	plan_graph_free(gd);
done:
	plan_graph_free(g);
	free(r);
	for (int k = 0; k < 3; k++)
		plan_scenario_free(s[k]);
}

/* The order (F0 F1 B0 B1 without a pipeline), then the step both where the
 * all-to-alls are short beside the compute (NVSwitch) and where they are
 * long (a 2 GB/s scale-up: each max() above then takes the other side). */
static void test_a2a_overlap(void)
{
	plan_op o[8];
	plan_schedule_order(PLAN_SCHED_1F1B, 1, 2, 1, 1, 1, 0, o);
	CHECK(!o[0].backward && !o[1].backward && o[1].mb == 1 && o[2].backward &&
	      o[2].mb == 0 && o[3].backward && o[3].mb == 1);
	a2a_overlap_case("node.intra=nvswitch");
	a2a_overlap_case("node.intra_bw=2 GB/s");
	/* One micro-batch: its forward is all the warm-up, so no step is
	 * combined (combined_1f1b.py:97-98: the loop over m - 1 pairs runs
	 * none): the same step as without the overlap, to the picosecond. */
	const char *one[] = {"cluster.nodes=1", "node.gpus=2", "model.layers=1",
			     "model.moe_experts=2", "parallel.tp=1", "parallel.pp=1",
			     "parallel.dp=2", "parallel.ep=2", "parallel.global_batch=2",
			     "parallel.recompute=none", "parallel.sequence_parallel=false",
			     "parallel.moe_a2a_overlap=true"};
	sim_diag *d1 = sim_diag_new();
	plan_scenario *s0 = NULL, *s1 = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", one, 11, d1, &s0), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", one, 12, d1, &s1), SIM_OK);
	sim_diag_free(d1);
	exec_result *r1 = malloc(2 * sizeof *r1);
	if (s0 && s1 && r1 && exec_run(s0, &r1[0]) == SIM_OK && exec_run(s1, &r1[1]) == SIM_OK)
		CHECK(r1[0].step_s == r1[1].step_s);
	else
		CHECK(false);
	free(r1);
	plan_scenario_free(s0);
	plan_scenario_free(s1);
	/* Memory: the one more warm-up forward holds one more micro-batch's
	 * activations of a chunk, so the peak does not drop; and the memory
	 * walk's head (memwalk.c head_ops, its warm-up one longer) still finds
	 * the whole walk's peak, on every stage of the interleaved pipeline. */
	const char *on[] = {"parallel.vpp=2", "parallel.moe_a2a_overlap=true",
			    "parallel.delay_wgrad_compute=true"};
	sim_diag *dg = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", on, 1, dg, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", on, 3, dg, &b), SIM_OK);
	sim_diag_free(dg);
	int n = b ? plan_schedule_steps(b->plan.schedule, plan_microbatches(&b->plan), 2) + 1 : 0;
	double *v = malloc(3 * (size_t)(n > 0 ? n : 1) * sizeof *v);
	for (int st = 0; a && b && v && st < 2; st++) {
		plan_mem_peak pa, pb;
		plan_memory_peak(a, st, &pa);
		plan_memory_peak(b, st, &pb);
		CHECK(pb.allocated > pa.allocated);
		CHECK_INT(plan_memory_curve(b, st, v, v + n, v + 2 * n, n), n);
		double top = 0;
		for (int i = 0; i < n; i++)
			top = v[n + i] > top ? v[n + i] : top;
		CHECK_NEAR(pb.allocated, top, 1e-9);
	}
	free(v);
	plan_scenario_free(a);
	plan_scenario_free(b);
}

/* The combined step of micro-batch 1's forward and 0's backward on rank 0
 * (tasks i0 .. i1-1 in graph order, the issue order): the time from its
 * start, each task starting when its stream (compute or EP) is done with
 * the task issued before it on that stream and its own micro-batch with its
 * task before (the two rules of model_chunk_schedule_plan.py's issue order
 * and ScheduleNode's per-micro-batch events, the derivation before
 * plan/combined.c's build_emit_pair); no SMs lost to the collectives. The EP
 * tasks' micro-batch and layer, in issue order, go to ep[] (at most nep). */
static double combined_step(const plan_graph *g, size_t i0, size_t i1, int ep[][2], int nep,
			    int *n)
{
	double stream[PLAN_STREAM_COUNT] = {0}, chain[2] = {0, 0}, end = 0;
	*n = 0;
	for (size_t i = i0; i < i1; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->rank != 0 || (t->mb != 0 && t->mb != 1))
			continue;
		double e = fmax(stream[t->stream], chain[t->mb]) + sim_time_to_s(t->dur);
		stream[t->stream] = chain[t->mb] = e;
		end = fmax(end, e);
		if (t->kind == PLAN_TASK_EP && *n < nep)
			ep[*n][0] = t->mb, ep[*n][1] = t->layer, (*n)++;
	}
	return end;
}

/* moe_a2a_overlap with a multi-token prediction module: Megatron-Core's
 * schedule plan makes the module one more layer of the last chunk (model.
 * mtp.layers after the decoder's, model_chunk_schedule_plan.py:417-423 at
 * d98e8a64; :328-338 at 23e00ed096), paired like any layer: forward layer i
 * with the backward's i-th from the end (:560-574). One MoE layer (layer
 * 0) and its MTP module (layer -1 in the graph), pp 1, m = 2: the
 * combined step pairs F1's layer 0 with B0's module, then F1's module with
 * B0's layer 0, so the EP stream runs, per pair, combine_b | dispatch_f ->
 * dispatch_b | combine_f (:236-303):
 *   (0, MTP) (1, L0) (0, MTP) (1, L0) | (0, L0) (1, MTP) (0, L0) (1, MTP)
 * (micro-batch, layer). The step then follows from the two-stream rule
 * (combined_step) and, as in a2a_overlap_case, T_plain - T_overlap =
 * SF + SB - PAIR, the plain 1F1B running F1 and B0 one after the other. */
static void test_a2a_mtp(void)
{
	const char *base[] = {"node.intra_bw=2 GB/s", "cluster.nodes=1", "node.gpus=2",
			      "model.layers=1", "model.moe_experts=2", "model.mtp_layers=1",
			      "parallel.tp=1", "parallel.pp=1", "parallel.dp=2", "parallel.ep=2",
			      "parallel.global_batch=4", "parallel.recompute=none",
			      "parallel.sequence_parallel=false", "gpu.interference=0",
			      "parallel.moe_deepep_num_sms=0", "parallel.moe_a2a_overlap=true"};
	sim_diag *dg = sim_diag_new();
	plan_scenario *s[2] = {NULL, NULL}; /* plain, overlap */
	for (int k = 0; k < 2; k++)
		CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", base,
					     (size_t)(15 + k), dg, &s[k]),
			  SIM_OK);
	sim_diag_free(dg);
	plan_graph *g = NULL;
	exec_result *r = malloc(2 * sizeof *r);
	if (!s[0] || !s[1] || !r || plan_build(s[1], &g) != SIM_OK ||
	    exec_run(s[0], &r[0]) != SIM_OK || exec_run(s[1], &r[1]) != SIM_OK) {
		CHECK(false);
		goto done;
	}
	size_t i0 = 0, i1 = 0, i2 = 0; /* F1's first task, B1's first, the step's end */
	while (i0 < g->ntasks && !(g->tasks[i0].rank == 0 && g->tasks[i0].mb == 1))
		i0++;
	for (i1 = i0; i1 < g->ntasks; i1++)
		if (g->tasks[i1].rank == 0 && g->tasks[i1].mb == 1 &&
		    g->tasks[i1].kind == PLAN_TASK_BWD)
			break;
	int ep[16][2], n = 0;
	double pair = combined_step(g, i0, i1, ep, 16, &n);
	static const int want[8][2] = {{0, -1}, {1, 0}, {0, -1}, {1, 0},
				       {0, 0},  {1, -1}, {0, 0}, {1, -1}};
	CHECK_INT(n, 8);
	for (int k = 0; k < 8 && k < n; k++) {
		CHECK_INT(ep[k][0], want[k][0]);
		CHECK_INT(ep[k][1], want[k][1]);
	}
	double sf = 0, sb = 0;
	for (i2 = i0; i2 < i1; i2++) {
		const plan_task *t = &g->tasks[i2];
		if (t->rank == 0 && t->mb == 1)
			sf += sim_time_to_s(t->dur);
		else if (t->rank == 0 && t->mb == 0)
			sb += sim_time_to_s(t->dur);
	}
	CHECK_NEAR(r[0].step_s - r[1].step_s, sf + sb - pair, 1e-6);
	CHECK(r[1].step_s < r[0].step_s);
done:
	plan_graph_free(g);
	free(r);
	for (int k = 0; k < 2; k++)
		plan_scenario_free(s[k]);
}

/* DeepEP's SMs (plan_ep_share): under the fused dispatcher the EP stream's
 * kernels are DeepEP's, each holding moe_deepep_num_sms of the H100's 132
 * SMs (Megatron-Core's default 20: a share 20/132 = 0.1515 lost to the
 * compute beside it, apart from NCCL's 16/132 interference); under the
 * alltoall dispatcher they are NCCL's collectives. Without moe_a2a_overlap
 * no compute runs beside them (each blocks its micro-batch's next compute),
 * so the step does not depend on the SMs they hold; with it the other
 * micro-batch's compute does, so more SMs, a longer step. */
static void test_deepep_share(void)
{
	const char *base[] = {"parallel.vpp=2", "parallel.moe_deepep_num_sms=20",
			      "parallel.moe_a2a_overlap=true", "parallel.delay_wgrad_compute=true"};
	const char *sms[] = {"parallel.moe_deepep_num_sms=0", "parallel.moe_deepep_num_sms=20",
			     "parallel.moe_deepep_num_sms=64"};
	sim_diag *dg = sim_diag_new();
	double step[2][3];
	for (int ovl = 0; ovl < 2; ovl++)
		for (int k = 0; k < 3; k++) {
			plan_scenario *s = NULL;
			const char *set[4] = {base[0], sms[k], base[2], base[3]};
			CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", set,
						     ovl ? 4 : 2, dg, &s),
				  SIM_OK);
			exec_result *r = malloc(sizeof *r);
			step[ovl][k] = s && r && exec_run(s, r) == SIM_OK ? r->step_s : -1;
			CHECK(step[ovl][k] > 0);
			if (s && k == 1) {
				CHECK(plan_ep_deepep(s));
				CHECK_NEAR(plan_ep_share(s), 20.0 / 132, 1e-15);
			}
			free(r);
			plan_scenario_free(s);
		}
	CHECK(step[0][0] == step[0][1] && step[0][1] == step[0][2]);
	CHECK(step[1][0] < step[1][1] && step[1][1] < step[1][2]);
	/* the compute tasks' own rates beside DeepEP (plan/emit.c set_deep) under
	 * the overlap: each in (0, 1], and only there */
	for (int ovl = 0; ovl < 2; ovl++) {
		plan_scenario *s = NULL;
		plan_graph *g = NULL;
		CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", base, ovl ? 4 : 2, dg,
					     &s),
			  SIM_OK);
		if (!s || plan_build(s, &g) != SIM_OK) {
			CHECK(false);
			plan_scenario_free(s);
			continue;
		}
		CHECK(g->ep_deep && (ovl ? g->deep_rate != NULL : g->deep_rate == NULL));
		int set = 0, bad = 0;
		for (size_t i = 0; g->deep_rate && i < g->ntasks; i++) {
			if (g->tasks[i].stream != PLAN_STREAM_COMPUTE)
				bad += g->deep_rate[i] != 0;
			else if (g->deep_rate[i] > 0)
				set++, bad += g->deep_rate[i] > 1;
		}
		CHECK(ovl ? set > 0 : set == 0);
		CHECK_INT(bad, 0);
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	const char *a2a[] = {"parallel.moe_dispatcher=alltoall"};
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", a2a, 1, dg, &s), SIM_OK);
	plan_graph *g = NULL;
	if (s && plan_build(s, &g) == SIM_OK) {
		CHECK(!plan_ep_deepep(s) && !g->ep_deep);
		/* NCCL's all-to-alls on the EP group of 8 inside a DGX H100: 24
		 * channels (net_tune_channels), 24/16 of the interference */
		CHECK_NEAR(plan_ep_share(s), s->gpu.interference * 24 / 16, 1e-12);
	} else {
		CHECK(false);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_free(dg);
}

/* ZeRO-1's gather of the updated parameters after the optimizer step
 * (overlap_param_gather off, grads.c): the dense ones over the shard group,
 * then the routed experts over the expert-DP group, as Megatron-Core's
 * expert buffers (and podsim's overlapped gather) hold them. Mixtral at tp
 * 2, ep 8, pp 1, dp 16 on 4 nodes: the shard group is 16 ranks, 4 a node;
 * the expert-DP group 4, one a node, so its gather crosses only NICs. One
 * gather over the shard group of all the local parameters took the experts
 * at 16 / 4 times their bytes. */
static void test_param_gather_experts(void)
{
	const char *set[] = {"parallel.pp=1", "parallel.dp=16", "parallel.micro_batch=1",
	                     "parallel.zero=1", "parallel.overlap_param_gather=false"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", set, 5, d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	plan_graph *g = NULL;
	if (!s || !CHECK_INT(plan_build(s, &g), SIM_OK)) {
		plan_scenario_free(s);
		return;
	}
	size_t opt = g->ntasks, dp[4];
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->rank == 0 && t->kind == PLAN_TASK_OPTIM)
			opt = i;
		else if (t->rank == 0 && t->kind == PLAN_TASK_DP && opt < i && n < 4)
			dp[n++] = i;
	}
	if (CHECK_INT(n, 2)) {
		CHECK(g->tasks[dp[0]].scaleup_bytes > 0); /* dense: 4 ranks a node */
		CHECK(g->tasks[dp[1]].scaleup_bytes == 0); /* experts: 1 a node */
		CHECK(g->tasks[dp[1]].nic_bytes > 0);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
}

/* fp8 experts (layer.c fp8_cast): Transformer Engine's GroupedLinear casts
 * each expert's input rows, and in the backward its output gradients, 4
 * bytes an element (read 2, write row-wise and column-wise fp8). Mixtral at
 * tp 2 with SP and ep 8: Tn = 2048 tokens, k = 2, R = 4096 rows on the rank
 * (one local expert), h = 4096, f = 14336 (fc1 2f for SwiGLU). Forward:
 * fc1's input 4 R h = 67,108,864, fc2's 4 R f = 234,881,024. Backward: fc2's
 * output gradient 4 R h = 67,108,864, fc1's 4 R 2f = 469,762,048. In bf16
 * none of them. */
static void test_fp8_expert_casts(void)
{
	work_model m = mixtral();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_FP8,
			 .flash = true, .cp = 1, .ep = 8};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(&m, &sh, 3, f), nb = work_layer_backward_at(&m, &sh, 3, b);
	const struct {
		const char *name;
		bool bwd;
		double bytes;
	} want[] = {{"fc1e_cast", false, 67108864.0},
		    {"fc2e_cast", false, 234881024.0},
		    {"fc2e_gcast", true, 67108864.0},
		    {"fc1e_gcast", true, 469762048.0}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const work_item *x = want[i].bwd ? named(b, nb, want[i].name) : named(f, nf, want[i].name);
		CHECK(x && x->bytes == want[i].bytes);
	}
	sh.dtype = HW_BF16;
	nf = work_layer_forward_at(&m, &sh, 3, f);
	nb = work_layer_backward_at(&m, &sh, 3, b);
	CHECK(!named(f, nf, "fc1e_cast") && !named(b, nb, "fc1e_gcast"));
}

/* DeepSpeed-MoE (moe_dispatcher = gshard, layer.c "DeepSpeed-MoE") on a
 * GPT-MoE of h 2048, f 8192 (GELU), 24 layers, 64 experts, top 1, MoE in
 * every second layer (moe_layer_interval 2: layers 1, 3, ..., 23, 0-based).
 * A rank of tp 2 without SP, b 4, s 2048: S = T = 8192 tokens (the TP ranks
 * hold them alike); capacity factor 1.25: EC = 1 x 1.25 x 8192 = 10,240
 * slots; each TP rank keeps EC / 2 = R = 5,120; ep 16: 4 local experts of
 * 1,280 rows. Forward:
 *   dispatch, combine  2 S EC h = 2 x 8192 x 10240 x 2048 = 343,597,383,680
 *                      flops each (the dense einsums over every slot)
 *   experts            2 R f h each of fc1 and fc2 = 171,798,691,840
 *   all-to-alls        e R h = 2 x 5120 x 2048 = 20,971,520 B each way
 *   slot gather        over TP, e EC h = 41,943,040 B (the full buffer)
 *   gate               18 S EC = 1,509,949,440 B
 * Backward: the combine's two GEMMs and the dispatch's input gradient (three
 * of 2 S EC h), the drop's backward gather. At tp 1 there is nothing to
 * drop: no gather, R = EC.
 * Saved, per token (memory.c), against the dense layer's split MLP tensors
 * (e fc1 + e f) / t = 16,384: the slots here 1.25 x (2h + 2f + 2f) / 2 =
 * 23,040, the gathered slots 1.25 x 2h = 5,120, mask and cast weights
 * 4 EC = 40,960, gates 4E = 256, capacity one-hot 4 EC / E = 640: 70,016,
 * so the MoE layer keeps 8192 x (70,016 - 16,384) = 439,353,344 B more. */
static void test_gshard(void)
{
	work_model m = {.layers = 24, .hidden = 2048, .heads = 16, .kv_heads = 16, .ffn = 8192,
			 .vocab = 50257, .seq_len = 2048, .act = WORK_ACT_GELU,
			 .norm = WORK_NORM_LAYERNORM, .moe_experts = 64, .moe_topk = 1,
			 .moe_interval = 2, .moe_imbalance = 1.0};
	CHECK(!work_layer_is_moe(&m, 0) && work_layer_is_moe(&m, 1) && !work_layer_is_moe(&m, 22) &&
	      work_layer_is_moe(&m, 23));
	CHECK_INT(work_moe_layers(&m), 12);
	m.moe_dense_layers = 1; /* then every second from layer 1 on: 2, 4, ... */
	CHECK(!work_layer_is_moe(&m, 1) && work_layer_is_moe(&m, 2) && work_moe_layers(&m) == 11);
	m.moe_dense_layers = 0;
	work_shard sh = {.tp = 2, .sp = false, .micro_batch = 4, .seq = 2048, .dtype = HW_BF16,
			 .flash = true, .cp = 1, .ep = 16, .moe_dispatcher = WORK_MOE_GSHARD,
			 .moe_capacity = 1.25};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(&m, &sh, 1, f), nb = work_layer_backward_at(&m, &sh, 1, b);
	const double ein = 343597383680.0, expert = 171798691840.0;
	CHECK_NEAR(named(f, nf, "dispatch")->flops, ein, 1e-12);
	CHECK_NEAR(named(f, nf, "combine")->flops, ein, 1e-12);
	CHECK_NEAR(named(f, nf, "fc1e")->flops, expert, 1e-12);
	CHECK_NEAR(named(f, nf, "fc2e")->flops, expert, 1e-12);
	CHECK_NEAR(named(f, nf, "fc1e")->batch, 4, 0);
	CHECK_NEAR(named(f, nf, "ep_dispatch")->comm_bytes, 20971520.0, 0);
	CHECK_NEAR(named(f, nf, "ep_combine")->comm_bytes, 20971520.0, 0);
	const work_item *g = named(f, nf, "slot_gather");
	CHECK(g && g->comm == WORK_COMM_ALLGATHER);
	CHECK_NEAR(g ? g->comm_bytes : 0, 41943040.0, 0);
	CHECK_NEAR(named(f, nf, "gate")->bytes, 1509949440.0, 0);
	CHECK_NEAR(named(b, nb, "combine_dslot")->flops + named(b, nb, "combine_dw")->flops +
			   named(b, nb, "dispatch_dx")->flops,
		   3 * ein, 1e-12);
	CHECK(named(b, nb, "slot_gather") != NULL);
	/* with SP the rank holds S = 4096 tokens, EC = 5,120 slots, and still
	 * drops half of them (DeepSpeed drops whatever SP): e (EC/2) h each way */
	sh.sp = true;
	nf = work_layer_forward_at(&m, &sh, 1, f);
	CHECK_NEAR(named(f, nf, "ep_dispatch")->comm_bytes, 2.0 * 2560 * 2048, 0);
	CHECK_NEAR(named(f, nf, "dispatch")->flops, 2.0 * 4096 * 5120 * 2048, 1e-12);
	CHECK(named(f, nf, "slot_gather") != NULL);
	sh.sp = false;
	double dense0 = work_activation_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_NONE);
	double moe1 = work_activation_bytes_at(&m, &sh, 1, WORK_RECOMPUTE_NONE);
	CHECK_NEAR(moe1 - dense0, 439353344.0, 1e-12);
	/* tp 1: nothing dropped or gathered, all EC slots here */
	sh.tp = 1;
	sh.ep = 64;
	nf = work_layer_forward_at(&m, &sh, 1, f);
	CHECK(named(f, nf, "slot_gather") == NULL);
	CHECK_NEAR(named(f, nf, "ep_dispatch")->comm_bytes, 2.0 * 10240 * 2048, 0);
	CHECK_NEAR(named(f, nf, "fc1e")->flops, 2 * expert, 1e-12);
	/* A residual MoE (one shared expert; DeepSpeed's use_residual) at tp 2:
	 * the expert-shaped MLP whole on all S = 8192 tokens, 2 S f h =
	 * 274,877,906,944 flops for fc1 (not halved over TP) and no TP
	 * collective of its own; the [S, 2] coefficient GEMM, 2 S 2 h; the
	 * weighted sum, 7 e S h = 234,881,024 B. It keeps per token e f + e f
	 * (fc1's and the activation's outputs) + 2 e h (the two outputs the sum
	 * reads) = 40,960 B more: 335,544,320 B. */
	sh.tp = 2;
	sh.ep = 16;
	int comm0 = 0, comm1 = 0;
	nf = work_layer_forward_at(&m, &sh, 1, f);
	for (int i = 0; i < nf; i++)
		comm0 += f[i].kind == WORK_ITEM_COMM;
	double before = work_activation_bytes_at(&m, &sh, 1, WORK_RECOMPUTE_NONE);
	m.moe_shared_experts = 1;
	nf = work_layer_forward_at(&m, &sh, 1, f);
	for (int i = 0; i < nf; i++)
		comm1 += f[i].kind == WORK_ITEM_COMM;
	CHECK_INT(comm1, comm0);
	CHECK_NEAR(named(f, nf, "fc1r")->flops, 274877906944.0, 1e-12);
	CHECK_NEAR(named(f, nf, "coef")->flops, 2.0 * 8192 * 2 * 2048, 1e-12);
	CHECK_NEAR(named(f, nf, "coef_mix")->bytes, 234881024.0, 0);
	CHECK_NEAR(work_activation_bytes_at(&m, &sh, 1, WORK_RECOMPUTE_NONE) - before, 335544320.0,
		   1e-12);
	nb = work_layer_backward_at(&m, &sh, 1, b);
	CHECK(named(b, nb, "fc1r_dgrad") != NULL && named(b, nb, "coef_wgrad") != NULL);
	/* No token dropped (capacity factor 0): the busiest expert's count sets
	 * the capacity, imbalance 1.5: EC = 1.5 x 8192 = 12,288, R = 6,144 rows
	 * here, e R h = 25,165,824 B each way; the count agreed by an
	 * all-reduce over the 16 EP ranks (8 B each, as the counts' gather) */
	m.moe_shared_experts = 0;
	m.moe_imbalance = 1.5;
	sh.moe_capacity = 0;
	nf = work_layer_forward_at(&m, &sh, 1, f);
	CHECK_NEAR(named(f, nf, "ep_dispatch")->comm_bytes, 25165824.0, 0);
	const work_item *cm = named(f, nf, "cap_max");
	CHECK(cm && cm->comm == WORK_COMM_EP_ALLGATHER);
	CHECK_NEAR(cm ? cm->comm_bytes : 0, 8.0 * 16, 0);
	sh.moe_capacity = 1.5; /* the same slots, dropped at capacity: no agreement */
	nf = work_layer_forward_at(&m, &sh, 1, f);
	CHECK(named(f, nf, "cap_max") == NULL);
	CHECK_NEAR(named(f, nf, "ep_dispatch")->comm_bytes, 25165824.0, 0);
}

/* The plan's rules for DeepSpeed-MoE on Mixtral (tp 2, pp 2, ep 8): without
 * SP it loads, where Megatron-Core's dispatchers need SP; with SP too (the
 * framework runs it, dropping the slots alike); and the
 * pipeline sends whole activations, b s h e = 1 x 4096 x 4096 x 2 =
 * 33,554,432 B, not DeepSpeed's 1/t partitions (Megatron-DeepSpeed asserts
 * them off for MoE models, gpt_model.py:376-383), which a dense model's
 * p2p_scatter_gather would send and all-gather. */
static void test_gshard_plan(void)
{
	sim_diag *d = sim_diag_new();
	const char *ok[] = {"parallel.moe_dispatcher=gshard", "parallel.sequence_parallel=false",
			    "parallel.p2p_scatter_gather=true"};
	const char *sp[] = {"parallel.moe_dispatcher=gshard", "parallel.sequence_parallel=true"};
	const char *fused[] = {"parallel.sequence_parallel=false"};
	plan_scenario *s = NULL, *withsp = NULL, *mc = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", ok, 3, d, &s), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", sp, 2, d, &withsp), SIM_OK);
	CHECK(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", fused, 1, d, &mc) != SIM_OK);
	if (s) {
		char l[PLAN_LABEL_MAX]; /* the plan string names the layer */
		plan_label(s, l, sizeof l);
		CHECK(strstr(l, " gshard ") != NULL);
		double gather = -1;
		CHECK_NEAR(plan_p2p_bytes(s, &gather), 33554432.0, 0);
		CHECK_NEAR(gather, 0, 0);
		s->plan.moe_dispatcher = WORK_MOE_FUSED; /* the split a dense model would take */
		CHECK_NEAR(plan_p2p_bytes(s, &gather), 33554432.0 / 2, 0);
		CHECK_NEAR(gather, 33554432.0, 0);
		plan_label(s, l, sizeof l);
		CHECK(strstr(l, "gshard") == NULL);
	}
	plan_scenario_free(s);
	plan_scenario_free(withsp);
	plan_scenario_free(mc);
	sim_diag_free(d);
}

int main(void)
{
	test_params();
	test_fp8_expert_casts();
	test_programs();
	test_dispatcher();
	test_gshard();
	test_gshard_plan();
	test_launches();
	test_window();
	test_plan();
	test_a2a_overlap();
	test_a2a_mtp();
	test_deepep_share();
	test_param_gather_experts();
	return check_done();
}
