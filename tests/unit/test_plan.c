/* test_plan.c - schedule orders, the memory budget and graph generation. */
#include "../../sim/exec/exec.h"
#include "../../sim/plan/plan.h"
#include "check.h"

#include <stdlib.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

static void test_orders(void)
{
	plan_op o[16];
	/* 1F1B, p = 4, m = 8, stage 0: 3 warm-up forwards, then F3 B0 F4 B1 ... F7 B4,
	 * then B5 B6 B7. */
	plan_schedule_order(PLAN_SCHED_1F1B, 4, 8, 1, 4, 0, 0, o);
	const char *want0 = "F0F1F2F3B0F4B1F5B2F6B3F7B4B5B6B7";
	char got[128] = "";
	for (int i = 0; i < 16; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%c%d", o[i].backward ? 'B' : 'F', o[i].mb);
	CHECK_STR(got, want0);
	/* Last stage: no warm-up, strict alternation. */
	plan_schedule_order(PLAN_SCHED_1F1B, 4, 8, 1, 4, 0, 3, o);
	got[0] = 0;
	for (int i = 0; i < 16; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%c%d", o[i].backward ? 'B' : 'F', o[i].mb);
	CHECK_STR(got, "F0B0F1B1F2B2F3B3F4B4F5B5F6B6F7B7");
	/* GPipe: all forwards, then all backwards. */
	plan_schedule_order(PLAN_SCHED_GPIPE, 4, 8, 1, 4, 0, 1, o);
	got[0] = 0;
	for (int i = 0; i < 16; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%c%d", o[i].backward ? 'B' : 'F', o[i].mb);
	CHECK_STR(got, "F0F1F2F3F4F5F6F7B0B1B2B3B4B5B6B7");
	/* Interleaved, p = 2, m = 4, v = 2, stage 0: warm-up (2-0-1)*2 + (2-1)*2 = 4
	 * chunk-steps; forward step k runs chunk (k/2)%2 of micro-batch
	 * (k/4)*2 + k%2, backward steps visit chunk 1 first. */
	plan_op iv[16];
	plan_schedule_order(PLAN_SCHED_1F1B, 2, 4, 2, 2, 0, 0, iv);
	got[0] = 0;
	for (int i = 0; i < 16; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%c%d.%d", iv[i].backward ? 'B' : 'F',
			 iv[i].mb, iv[i].chunk);
	CHECK_STR(got, "F0.0F1.0F0.1F1.1F2.0B0.1F3.0B1.1F2.1B0.0F3.1B1.0B2.1B3.1B2.0B3.0");
	/* Fewer micro-batches than warm-up slots: all forwards first. */
	plan_schedule_order(PLAN_SCHED_1F1B, 8, 2, 1, 8, 0, 0, o);
	CHECK(!o[0].backward && !o[1].backward && o[2].backward && o[3].backward);
}

/* Megatron-Core's micro-batch groups of the interleaved schedule (graph.c
 * interleaved_op, plan_vp_group). Its own example (schedules.py get_schedule_
 * table, the comment at 4295be1a6c): PP2 N3 M5 VP2, virtual micro-batches
 * 0-9 run micro-batches 0 1 2 0 1 2 3 4 3 4 on chunks 0 0 0 1 1 1 0 0 1 1
 * (the last group, 3 and 4, the two left). Backward step k runs the same
 * micro-batch on the mirrored chunk. Warm-up (p - s - 1) 2 + (vpp - 1) N:
 * 5 steps on stage 0, 3 on stage 1; then one forward and one backward. */
/* "F<mb>.<chunk>" / "B<mb>.<chunk>" / "W<mb>.<chunk>" of the whole order of
 * `sched` on pp p, m micro-batches, vpp chunks in groups of n, on `stage`. */
static void order_str(plan_schedule sched, int p, int m, int vpp, int n, int stage, char *got,
                      size_t len)
{
	int steps = plan_schedule_steps(sched, m, vpp);
	plan_op o[64];
	if (steps > 64) {
		CHECK(steps <= 64);
		return;
	}
	plan_schedule_order(sched, p, m, vpp, n, 0, stage, o);
	got[0] = 0;
	for (int i = 0; i < steps; i++)
		snprintf(got + strlen(got), len - strlen(got), "%c%d.%d",
			 o[i].weight ? 'W' : o[i].backward ? 'B' : 'F', o[i].mb, o[i].chunk);
}

/* The 20 ops of PP2 M5 VP2 in groups of 3 on `stage`. */
static void group_order(int stage, char *got, size_t len)
{
	order_str(PLAN_SCHED_1F1B, 2, 5, 2, 3, stage, got, len);
}

static void test_vp_groups(void)
{
	char got[256];
	group_order(0, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1F1.1F2.1B0.1F3.0B1.1F4.0B2.1F3.1B0.0F4.1B1.0"
		       "B2.0B3.1B4.1B3.0B4.0");
	group_order(1, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1B0.1F1.1B1.1F2.1B2.1F3.0B0.0F4.0B1.0F3.1B2.0"
		       "F4.1B3.1B4.1B3.0B4.0");
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_1F1B, 2, 5, 2, 3, 0, 0), 5);
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_1F1B, 2, 5, 2, 3, 0, 1), 3);
	/* N = p with m a multiple of p is the schedule before the groups (the
	 * interleaved case of test_orders) */
	plan_op a[32], b[32]; /* 2 m vpp steps */
	plan_schedule_order(PLAN_SCHED_1F1B, 4, 8, 2, 4, 0, 1, a);
	plan_schedule_order(PLAN_SCHED_1F1B, 4, 8, 2, 0, 0, 1, b); /* N <= 0: p */
	int same = 1;
	for (int i = 0; i < 32; i++)
		same &= a[i].backward == b[i].backward && a[i].mb == b[i].mb &&
			a[i].chunk == b[i].chunk;
	CHECK(same);
	/* every (micro-batch, chunk) once forward and once backward, for
	 * groups of 3 to 9 of 9 micro-batches on p = 3, vpp = 3 */
	for (int n = 3; n <= 9; n++) {
		plan_op q[54];
		int seen[9][3][2] = {{{0}}};
		plan_schedule_order(PLAN_SCHED_1F1B, 3, 9, 3, n, 0, 2, q);
		for (int i = 0; i < 54; i++)
			seen[q[i].mb][q[i].chunk][q[i].backward]++;
		int ok = 1;
		for (int i = 0; i < 9; i++)
			for (int c = 0; c < 3; c++)
				ok &= seen[i][c][0] == 1 && seen[i][c][1] == 1;
		CHECK(ok);
	}
	/* plan_vp_group: MT-NLG's 105 layers on pp 35 with 2 chunks and 240
	 * micro-batches (global batch 1920 over dp 8): 240 % 35 = 30 < 35, so
	 * Megatron-Core's default groups of 35 are refused; the smallest group
	 * it takes is 40 (36-39 leave 24, 18, 12 and 6, under 35; 240 % 40 = 0).
	 * Without the groups (runs_vp_group = false) N stays pp and plan_check
	 * refuses the plan; an explicit vp_group is taken as it is; m a multiple
	 * of pp, or no interleaving, keeps pp. */
	plan_spec p = {.tp = 8, .pp = 35, .dp = 8, .cp = 1, .ep = 1, .vpp = 2, .micro_batch = 1,
		       .global_batch = 1920, .vp_groups = true};
	CHECK_INT(plan_vp_group(&p), 40);
	p.vp_groups = false;
	CHECK_INT(plan_vp_group(&p), 35);
	p.vp_groups = true;
	p.vp_group = 48;
	CHECK_INT(plan_vp_group(&p), 48);
	p.vp_group = 0;
	p.global_batch = 2240; /* 280 micro-batches */
	CHECK_INT(plan_vp_group(&p), 35);
	p.global_batch = 1920;
	p.vpp = 1;
	CHECK_INT(plan_vp_group(&p), 35);
}

/* torch pipelining's rounds (vp_rule PLAN_VP_TORCH; torch 2.14.1
 * distributed/pipelining/schedules.py:3149-3263). Its own examples (the
 * class docstring): pp 4 with 10 micro-batches runs 2 rounds of 5, with 3
 * one round of 3. Its order on pp 4, m 3, vpp 2, derived from its code:
 * warm-up _get_warmup_ops = (vpp - 1) N + 2 (pp - 1 - rank), capped at
 * m vpp = 6: 9 -> 6 on rank 0, so every forward first, forward step k on
 * chunk (k / 3) % 2 with each chunk's micro-batches in order (F0.0 F1.0
 * F2.0 F0.1 F1.1 F2.1), then backward step k on chunk 1 - ((k - 6) / 3) % 2
 * (B0.1 B1.1 B2.1 B0.0 B1.0 B2.0); 3 on rank 3: F0.0 F1.0 F2.0, then three
 * 1F1B steps of a forward on chunk (k / 3) % 2 = 1 and a backward on chunk
 * 1 - ((k - 3) / 3) % 2 = 1 (F0.1 B0.1 F1.1 B1.1 F2.1 B2.1), then the
 * cool-down's backwards on chunk 0 (B0.0 B1.0 B2.0). */
static void torch_order(int stage, char *got, size_t len)
{
	order_str(PLAN_SCHED_1F1B, 4, 3, 2, 3, stage, got, len);
}

static void test_vp_rounds(void)
{
	plan_spec p = {.tp = 1, .pp = 4, .dp = 1, .cp = 1, .ep = 1, .vpp = 2, .micro_batch = 1,
		       .global_batch = 10, .vp_groups = true, .vp_rule = PLAN_VP_TORCH};
	CHECK_INT(plan_vp_group(&p), 5); /* 2 rounds of 5 */
	p.global_batch = 3;
	CHECK_INT(plan_vp_group(&p), 3); /* one round of 3: fewer than pp */
	p.global_batch = 12;
	CHECK_INT(plan_vp_group(&p), 4); /* 3 rounds of pp */
	p.global_batch = 9;              /* 2 rounds: 9 % 2 != 0, torch refuses */
	CHECK_INT(plan_vp_group(&p), 4);
	p.global_batch = 40;
	p.pp = 8; /* 5 rounds of 8 */
	CHECK_INT(plan_vp_group(&p), 8);
	p.global_batch = 20; /* 2 rounds of 10 (Megatron-Core's smallest: 10 too) */
	CHECK_INT(plan_vp_group(&p), 10);
	p.global_batch = 18; /* 2 rounds of 9 where Megatron-Core takes 9 too */
	CHECK_INT(plan_vp_group(&p), 9);
	p.pp = 4;
	p.global_batch = 18; /* torch: 4 rounds, 18 % 4 != 0; Megatron-Core: 6 */
	CHECK_INT(plan_vp_group(&p), 4);
	p.vp_rule = PLAN_VP_MEGATRON;
	CHECK_INT(plan_vp_group(&p), 6);
	char got[256];
	torch_order(0, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1F1.1F2.1B0.1B1.1B2.1B0.0B1.0B2.0");
	torch_order(3, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1B0.1F1.1B1.1F2.1B2.1B0.0B1.0B2.0");
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_1F1B, 4, 3, 2, 3, 0, 0), 6);
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_1F1B, 4, 3, 2, 3, 0, 3), 3);
}

/* torch pipelining's interleaved zero bubble (ScheduleInterleavedZeroBubble,
 * ZB1P: schedule zb-h1 with vpp > 1), derived from its code (torch 2.14.1
 * distributed/pipelining/schedules.py:3265-3350 and _get_1f1b_rank_ops
 * :2992-3128) for pp 2, m 2, vpp 2: one round of N = 2; warm-up
 * _get_warmup_ops with multiply_factor 1, (vpp - 1) N + (pp - 1 - rank),
 * capped at m vpp = 4: 3 on rank 0, 2 on rank 1; forward step k on chunk
 * (k / 2) % 2, backward step k on chunk 1 - ((k - warm) / 2) % 2, each
 * chunk's micro-batches in order; after the backward of op k the weight pass
 * W of the backward `rank` before it (num_1f1b_microbatches = rank), the
 * Ws still held at the end.
 *   rank 0: F0.0 F1.0 F0.1 | F1.1 B0.1 W0.1 | B1.1 W1.1 B0.0 W0.0 B1.0 W1.0
 *   rank 1: F0.0 F1.0 | F0.1 B0.1 F1.1 B1.1 W0.1 | B0.0 W1.1 B1.0 W0.0 | W1.0 */
static void test_interleaved_zb(void)
{
	char got[256];
	order_str(PLAN_SCHED_ZB_H1, 2, 2, 2, 2, 0, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F0.1F1.1B0.1W0.1B1.1W1.1B0.0W0.0B1.0W1.0");
	order_str(PLAN_SCHED_ZB_H1, 2, 2, 2, 2, 1, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F0.1B0.1F1.1B1.1W0.1B0.0W1.1B1.0W0.0W1.0");
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_ZB_H1, 2, 2, 2, 2, 0, 0), 3);
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_ZB_H1, 2, 2, 2, 2, 0, 1), 2);
	/* the same plan under interleaved 1F1B warms up two steps a stage:
	 * 2 + 2 = 4 on rank 0 */
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_1F1B, 2, 2, 2, 2, 0, 0), 4);
	/* pp 4, vpp 2, m 8 (2 rounds of 4): 4 + 3 = 7 on stage 0, 4 on stage 3 */
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_ZB_H1, 4, 8, 2, 4, 0, 0), 7);
	CHECK_INT(plan_schedule_warm(PLAN_SCHED_ZB_H1, 4, 8, 2, 4, 0, 3), 4);
}

static plan_scenario gpt_scenario(void)
{
	plan_scenario s;
	memset(&s, 0, sizeof s);
	s.model = (work_model){.layers = 24, .hidden = 2048, .heads = 16, .kv_heads = 16,
			       .ffn = 8192, .vocab = 51200, .seq_len = 2048, .learned_pos = true,
			       .bias = true};
	s.plan = (plan_spec){.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1, .vpp = 1,
			     .micro_batch = 1, .global_batch = 8, .schedule = PLAN_SCHED_1F1B,
			     .recompute = WORK_RECOMPUTE_NONE, .bucket_bytes = 40e6};
	s.dtype = HW_BF16;
	return s;
}

/* Fill s->vlayers from the plan (what plan_scenario_load does). */
static void relayout(plan_scenario *s, int *buf)
{
	s->vlayers = buf;
	CHECK(plan_layout(&s->plan, s->model.layers, buf) == NULL);
}

/* Mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes per parameter (ZeRO paper,
 * Rajbhandari et al. 2020, section 3.1), 18 with fp32 gradient accumulation;
 * ZeRO-1 divides the 12 bytes of optimizer state by dp. */
static void test_memory(void)
{
	plan_scenario s = gpt_scenario();
	int vl[16];
	relayout(&s, vl);
	double b[PLAN_MEM_COUNT];
	double params = work_params_total(&s.model);
	plan_memory(&s, 0, b);
	double states = b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER];
	CHECK_NEAR(states / params, 16.0, 1e-12);
	s.plan.fp32_grads = true;
	plan_memory(&s, 0, b);
	states = b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER];
	CHECK_NEAR(states / params, 18.0, 1e-12);
	/* Activations: one micro-batch in flight on a single stage, 24 layers of
	 * s*b*h*(34 + 5*a*s/h) bytes (Korthikanti et al. 2022, t = 1), then the
	 * loss forward's peak, Megatron's vocabulary-parallel cross-entropy: the
	 * 16-bit logits beside their fp32 copy, s*b*V*(2 + 4), and what the final
	 * layernorm and the output layer keep, their inputs, 2 * 2 s*b*h. The
	 * backward's working set (a layer's activation gradients) does not meet
	 * the loss: the peak is the loss forward's. */
	double sbh = 2048.0 * 1 * 2048, logits = 2048.0 * 51200;
	double want = 24 * sbh * (34 + 5.0 * 16 * 2048 / 2048) + logits * 6 + 4 * sbh;
	CHECK_NEAR(b[PLAN_MEM_ACTIVATIONS], want, 1e-9);
	/* ZeRO-1 over dp = 8: optimizer states / 8. */
	s.plan.dp = 8;
	s.plan.zero = 1;
	s.plan.global_batch = 64;
	double z[PLAN_MEM_COUNT];
	plan_memory(&s, 0, z);
	CHECK_NEAR(z[PLAN_MEM_OPTIMIZER], b[PLAN_MEM_OPTIMIZER] / 8, 1e-12);
	/* 1F1B: stage 0 of 4 holds 4 micro-batches of its 6 layers, the last
	 * stage 1. Under full recomputation a stage's peak is its first
	 * backward: the kept layer inputs, the recomputed layer's tensors (one)
	 * and that layer's activation gradients (GELU: fc1's output gradient and
	 * the activation's, 2 e f s b). On the last stage the loss forward tops
	 * it: 6 s b V bytes of logits and the head's 4 s b h against one + the
	 * gradients. */
	s = gpt_scenario();
	s.plan.pp = 4;
	relayout(&s, vl);
	s.plan.recompute = WORK_RECOMPUTE_FULL;
	work_shard sh = {1, false, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	double per = work_activation_bytes(&s.model, &sh, WORK_RECOMPUTE_FULL);
	double one = work_activation_bytes(&s.model, &sh, WORK_RECOMPUTE_NONE);
	double grads = 2 * 2 * 8192.0 * 2048, loss = logits * 6 + 4 * sbh;
	CHECK(loss > one + grads);
	plan_memory(&s, 0, b);
	CHECK_NEAR(b[PLAN_MEM_ACTIVATIONS], 6 * 4 * per + one + grads, 1e-12);
	plan_memory(&s, 3, b);
	CHECK_NEAR(b[PLAN_MEM_ACTIVATIONS], 6 * 1 * per + loss, 1e-12);
	/* ZB-H1: the last stage holds 3 weight passes back, so 4 micro-batches
	 * like stage 0 (Qi et al. 2024: ZB-H1's peak equals 1F1B's). GPipe keeps
	 * all 8. */
	s.plan.schedule = PLAN_SCHED_ZB_H1;
	plan_memory(&s, 3, b);
	CHECK_NEAR(b[PLAN_MEM_ACTIVATIONS], 6 * 4 * per + loss, 1e-12);
	s.plan.schedule = PLAN_SCHED_GPIPE;
	plan_memory(&s, 1, b);
	CHECK_NEAR(b[PLAN_MEM_ACTIVATIONS], 6 * 8 * per + one + grads, 1e-12);
}

/* Count tasks of a kind on one stage. */
static int count(const plan_graph *g, int rank, plan_task_kind k)
{
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		n += g->tasks[i].rank == rank && g->tasks[i].kind == k;
	return n;
}

/* The quickstart plan (tp 2, pp 2, dp 4, 8 micro-batches of 4 sequences, 12
 * layers per stage) under each DP scheme:
 *  - ZeRO-0, no overlap: the stage's 12 layers of gradients in 40 MB buckets
 *    all-reduced after the backward; stage 0 also adds the embedding;
 *  - ZeRO-3: per micro-batch and layer one all-gather in forward, one in
 *    backward and one reduce-scatter: 8 x 12 x 3 = 288 DP tasks per stage (plus
 *    the tied-embedding sync on the first and last stage), no final gather;
 *  - TP: without SP, 2 all-reduces per layer forward and 2 backward, plus the
 *    recomputed forward's 2 under full recomputation, and on stage 0 the
 *    vocab-parallel embedding's all-reduce per forward (its backward needs
 *    none), and with scatter-gather p2p (plan_p2p_bytes) the all-gather of
 *    each gradient slice received from stage 1: 8 x 12 x 6 + 8 + 8. */
static void test_graph(void)
{
	const char *zero3[] = {"parallel.zero=3", "parallel.p2p_scatter_gather=true",
			       "framework.runs_zero_with_pp=3"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", zero3, 3, d, &s), SIM_OK);
	plan_graph *g = NULL;
	if (s && plan_build(s, &g) == SIM_OK) {
		CHECK_INT(plan_microbatches(&s->plan), 8);
		/* + each stage's end (zero3_root = step: the embedding on
		 * stage 0, the head and its tied copy of it on stage 1): one
		 * gather a step, a reduce-scatter a micro-batch */
		CHECK_INT(count(g, 0, PLAN_TASK_DP), 8 * 12 * 3 + 1 + 1 + 8);
		CHECK_INT(count(g, 1, PLAN_TASK_DP), 8 * 12 * 3 + 1 + 1 + 8);
		CHECK_INT(count(g, 0, PLAN_TASK_OPTIM), 1);
		double mem0[PLAN_MEM_COUNT], mem3[PLAN_MEM_COUNT];
		plan_memory(s, 0, mem3);
		s->plan.zero = 0;
		plan_memory(s, 0, mem0);
		CHECK_NEAR(mem3[PLAN_MEM_WEIGHTS], mem0[PLAN_MEM_WEIGHTS] / 4, 1e-12);
		CHECK_NEAR(mem3[PLAN_MEM_OPTIMIZER], mem0[PLAN_MEM_OPTIMIZER] / 4, 1e-12);
		plan_graph_free(g);
		g = NULL;
		s->plan.recompute = WORK_RECOMPUTE_FULL;
		CHECK_INT(plan_build(s, &g), SIM_OK);
		CHECK_INT(count(g, 0, PLAN_TASK_TP), 8 * 12 * 6 + 8 + 8);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* The fabric units a stage's nodes sit under (plan_up_units): Llama 2 70B on
 * 8 DGX H100 (8 NICs of 400 Gb/s: radix 64), tp 8, pp 4, dp 2, a stage of
 * 16 GPUs on 2 nodes. A fat tree at 2:1 has floor(64 x 2 / 3) = 42 ports
 * down a leaf, 5 whole nodes of 8 NICs: stages on nodes 0-1, 2-3, 4-5, 6-7
 * sit under leaves 0, 0, 0-1, 1, and the graph carries them; rail-optimized
 * at 2:1, a unit of 42 nodes: all under unit 0. None where nothing can share
 * a leaf's uplinks: non-blocking (and no up_unit in its graph), or the
 * stages not on consecutive ranks (order tp-cp-pp-dp). */
static void test_up_units(void)
{
	/* fabric, oversubscription, order: fat, rail, non-blocking, pp inside */
	const char *var[4][3] = {
	        {"cluster.fabric=fat-tree", "cluster.oversubscription=2", "parallel.order=tp-cp-dp-pp"},
	        {"cluster.fabric=rail-optimized", "cluster.oversubscription=2",
	         "parallel.order=tp-cp-dp-pp"},
	        {"cluster.fabric=fat-tree", "cluster.oversubscription=1", "parallel.order=tp-cp-dp-pp"},
	        {"cluster.fabric=fat-tree", "cluster.oversubscription=2", "parallel.order=tp-cp-pp-dp"}};
	sim_diag *d = sim_diag_new();
	plan_scenario *s[4] = {NULL};
	for (int i = 0; i < 4; i++) {
		const char *set[] = {"cluster.nodes=8", "parallel.tp=8", "parallel.pp=4", "parallel.dp=2",
				     var[i][0], var[i][1], var[i][2]};
		CHECK_INT(plan_scenario_load("scenarios/llama2-70b-h100.ini", set, 7, d, &s[i]), SIM_OK);
	}
	const int want[4][2] = {{0, 0}, {0, 0}, {0, 1}, {1, 1}};
	int a = -1, b = -1;
	for (int st = 0; s[0] && st < 4; st++) {
		CHECK(plan_up_units(s[0], st, &a, &b));
		CHECK_INT(a, want[st][0]);
		CHECK_INT(b, want[st][1]);
	}
	for (int st = 0; s[1] && st < 4; st++) {
		CHECK(plan_up_units(s[1], st, &a, &b));
		CHECK(a == 0 && b == 0);
	}
	CHECK(s[2] && !plan_up_units(s[2], 0, &a, &b));
	CHECK(s[3] && !plan_up_units(s[3], 0, &a, &b));
	plan_graph *g = NULL;
	if (s[0] && CHECK_INT(plan_build(s[0], &g), SIM_OK)) {
		CHECK(g->up_unit != NULL);
		CHECK(g->up_unit && g->up_unit[4] == 0 && g->up_unit[5] == 1);
	}
	plan_graph_free(g);
	g = NULL;
	if (s[2] && CHECK_INT(plan_build(s[2], &g), SIM_OK))
		CHECK(g->up_unit == NULL);
	plan_graph_free(g);
	for (int i = 0; i < 4; i++)
		plan_scenario_free(s[i]);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Host-side dispatch: with 1 s of framework overhead per op every run of
 * kernels is host-bound, so each compute task lasts exactly (its kernel count)
 * x (4 us launch + 1 s): an integer multiple of 1.000004 s. */
static void test_host_bound(void)
{
	const char *set[] = {"framework.op_overhead=1 s"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	plan_graph *g = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 1, d, &s), SIM_OK);
	if (s && plan_build(s, &g) == SIM_OK) {
		sim_time unit = sim_time_from_s(1.000004);
		int bad = 0, n = 0;
		for (size_t i = 0; i < g->ntasks; i++) {
			const plan_task *t = &g->tasks[i];
			if (t->kind != PLAN_TASK_FWD && t->kind != PLAN_TASK_BWD)
				continue;
			n++;
			bad += t->dur < unit || t->dur % unit != 0;
		}
		CHECK(n > 0);
		CHECK_INT(bad, 0);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Pipeline layouts (plan_layout):
 *  - Llama 3.1 405B on pp 8 x vpp 8 with the embedding and the loss counted as
 *    layers: (126 + 2) / 64 = 2 units per virtual stage, so virtual stage 0 and
 *    63 hold 1 transformer layer and the 62 others 2 (1 + 62*2 + 1 = 126);
 *  - first 3 and last 5 of 24 layers on pp 4: the two middle stages split the
 *    other 16 as 8 + 8;
 *  - 24 layers on pp 5 have no even split; first 4 + last 4 leaves 16 for 3
 *    stages, not even either;
 *  - under uneven_split = end-stages, 24 layers on pp 5: (24 + 2) units, 5
 *    a stage and one more on stage 1: 4, 6, 5, 5, 4; 105 layers on pp 56:
 *    (105 + 2) units, 1 a stage and one more on stages 1-51: 0 (the
 *    embedding alone), 2 x 51, 1 x 3, 0 (the loss alone), which
 *    Megatron-Core runs with --pipeline-model-parallel-layout
 *    "E|(tt|)*51(t|)*3L" (its documented example's last stage is "L" alone,
 *    docs/user-guide/features/pipeline_parallel_layout.md:18 at d98e8a64;
 *    an empty block passes its input through, transformer_block.py:764). */
static void test_layout(void)
{
	int v[64];
	plan_spec p = {.pp = 8, .vpp = 8, .embedding_in_split = true, .loss_in_split = true};
	CHECK(plan_layout(&p, 126, v) == NULL);
	int sum = 0;
	for (int i = 0; i < 64; i++)
		sum += v[i];
	CHECK_INT(sum, 126);
	CHECK_INT(v[0], 1);
	CHECK_INT(v[63], 1);
	CHECK_INT(v[1], 2);
	CHECK_INT(v[62], 2);
	p = (plan_spec){.pp = 4, .vpp = 1, .first_stage_layers = 3, .last_stage_layers = 5};
	CHECK(plan_layout(&p, 24, v) == NULL);
	CHECK(v[0] == 3 && v[1] == 8 && v[2] == 8 && v[3] == 5);
	p = (plan_spec){.pp = 5, .vpp = 1};
	CHECK(plan_layout(&p, 24, v) != NULL);
	p.first_stage_layers = p.last_stage_layers = 4;
	CHECK(plan_layout(&p, 24, v) != NULL);
	p = (plan_spec){.pp = 5, .vpp = 1, .uneven = PLAN_UNEVEN_END_STAGES};
	CHECK(plan_layout(&p, 24, v) == NULL);
	CHECK(v[0] == 4 && v[1] == 6 && v[2] == 5 && v[3] == 5 && v[4] == 4);
	int w[56];
	p.pp = 56;
	CHECK(plan_layout(&p, 105, w) == NULL);
	int twos = 0, ones = 0;
	for (int i = 1; i < 55; i++)
		twos += w[i] == 2, ones += w[i] == 1;
	CHECK_INT(w[0], 0);
	CHECK_INT(twos, 51);
	CHECK_INT(ones, 3);
	CHECK_INT(w[55], 0);
	/* nanotron's cost balancing (uneven_split = cost), the Ultra-Scale
	 * Playbook's 1B (16 layers, h 2048, 32 heads, f 8192, V 131,072): a layer
	 * 4 x 2048^2 + 3 x 8192 x 2048 = 67,108,864, the lm_head 268,435,456, in
	 * all 1,342,177,280. pp 4: shares of 335,544,320; stage 0 takes layers
	 * until their sum passes it, 5 layers make it exactly (not past: the
	 * comparison is strict), the 6th passes; stage 1 ends where 11 layers
	 * (738.2 M) pass 671.1 M, stage 2 where 16 (1,073.7 M) pass 1,006.6 M;
	 * stage 3 holds the final norm, the lm_head and the loss: 6, 5, 5, 0,
	 * the head on the last stage. pp 8 (shares of 167.8 M): 3, 3, 2, 3, 2, 3,
	 * then the head alone on stage 6 and the cast and loss on 7: layouts
	 * 3, 3, 2, 3, 2, 3, 0, 0, the head's stage 6. pp 16 leaves stage 15
	 * without a block (the head passes shares 13-15 at once): refused.
	 * Divisible or not, the rule applies; at vpp 2 it does not (nanotron has
	 * no interleaving): 16 layers on 8 virtual stages split evenly. */
	p = (plan_spec){.pp = 4, .vpp = 1, .uneven = PLAN_UNEVEN_COST,
			.cost_layer = 67108864, .cost_head = 268435456};
	CHECK(plan_layout(&p, 16, v) == NULL);
	CHECK(v[0] == 6 && v[1] == 5 && v[2] == 5 && v[3] == 0);
	int tail[3];
	CHECK(plan_layout_tail(&p, 16, tail) && tail[0] == 3 && tail[1] == 3 && tail[2] == 3);
	p.pp = 8;
	CHECK(plan_layout(&p, 16, v) == NULL);
	CHECK(v[0] == 3 && v[1] == 3 && v[2] == 2 && v[3] == 3 && v[4] == 2 && v[5] == 3 &&
	      v[6] == 0 && v[7] == 0);
	CHECK(plan_layout_tail(&p, 16, tail) && tail[0] == 6 && tail[1] == 7 && tail[2] == 7);
	p.pp = 16;
	CHECK(plan_layout(&p, 16, v) != NULL);
	CHECK(!plan_layout_tail(&p, 16, tail) && tail[0] == -1);
	p.pp = 4;
	p.vpp = 2;
	CHECK(plan_layout(&p, 16, v) == NULL);
	CHECK(v[0] == 2 && v[7] == 2);
	CHECK(!plan_layout_tail(&p, 16, tail));
	/* A stage with no layer runs: the benchmark's 1B under nanotron (Llama
	 * 3.2 1B's file with the 131,072 vocabulary, tp 1, pp 8, 8 micro-batches)
	 * splits as above, 3, 3, 2, 3, 2, 3, 0, 0; the plan builds, and stage 6,
	 * which holds no layer and not the head, runs one empty task per
	 * micro-batch and direction that passes it on (rank r is stage r at
	 * tp 1, dp 1), while the transfer out of it carries the logits. */
	{
		const char *nt[] = {"parallel.pp=8", "parallel.dp=1", "parallel.global_batch=8",
				    "parallel.micro_batch=1", "model.vocab=131072"};
		sim_diag *dn = sim_diag_new();
		plan_scenario *sn = NULL;
		CHECK_INT(plan_scenario_load("scenarios/llama-1b-nanotron-memory.ini", nt, 5, dn, &sn),
			  SIM_OK);
		plan_graph *gn = NULL;
		if (sn) {
			CHECK(sn->vlayers[0] == 3 && sn->vlayers[5] == 3 && sn->vlayers[6] == 0 &&
			      sn->vlayers[7] == 0);
			CHECK_INT(plan_build(sn, &gn), SIM_OK);
		}
		if (gn) {
			CHECK_INT(count(gn, 6, PLAN_TASK_FWD), 8);
			CHECK_INT(count(gn, 6, PLAN_TASK_BWD), 8);
			/* stage 6's tasks are empty, stage 7 (the head) computes */
			sim_time busy6 = 0, busy7 = 0;
			for (size_t i = 0; i < gn->ntasks; i++) {
				const plan_task *t = &gn->tasks[i];
				if (t->kind == PLAN_TASK_FWD || t->kind == PLAN_TASK_BWD) {
					busy6 += t->rank == 6 ? t->dur : 0;
					busy7 += t->rank == 7 ? t->dur : 0;
				}
			}
			CHECK(busy6 == 0 && busy7 > 0);
			/* nanotron's lm_head on stage 6 sends its bf16 logits [s, b, V]
			 * to the fp32 cast and loss on stage 7: 4096 x 131,072 x 2 B =
			 * 1 GiB each way; the other transfers carry the hidden states,
			 * 4096 x 2048 x 2 B = 16 MiB */
			double ga;
			CHECK_NEAR(plan_p2p_stage_bytes(sn, 6, false, &ga), 1073741824.0, 0);
			CHECK_NEAR(plan_p2p_stage_bytes(sn, 7, true, &ga), 1073741824.0, 0);
			CHECK_NEAR(plan_p2p_stage_bytes(sn, 5, false, &ga), 16777216.0, 0);
			CHECK_NEAR(plan_p2p_stage_bytes(sn, 6, true, &ga), 16777216.0, 0);
		}
		plan_graph_free(gn);
		plan_scenario_free(sn);
		sim_diag_print(dn, stderr);
		sim_diag_free(dn);
	}
	/* The uneven plan builds and every stage runs its own layers: with tp 2
	 * (no SP) a layer's forward is three compute tasks, ln1..proj | all-reduce |
	 * resid1..fc2 | all-reduce | resid2; the embedding (lookup | all-reduce |
	 * rest) and the head (its compute split by its all-reduce) add two on the
	 * end stages. 8 sequences / (micro_batch 4 x dp 2) = 1 micro-batch. */
	const char *set[] = {"parallel.tp=2", "parallel.pp=4", "parallel.dp=2",
			     "parallel.first_stage_layers=3", "parallel.last_stage_layers=5",
			     "parallel.global_batch=8", "parallel.recompute=none"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 7, d, &s), SIM_OK);
	if (s) {
		plan_graph *g = NULL;
		CHECK_INT(plan_build(s, &g), SIM_OK);
		int m = plan_microbatches(&s->plan);
		CHECK_INT(plan_stage_layers(s, 0), 3);
		CHECK_INT(plan_stage_layers(s, 1), 8);
		for (int st = 0; st < 4 && g; st++) {
			int want = 3 * plan_stage_layers(s, st) + 2 * (st == 0 || st == 3);
			CHECK_INT(count(g, st, PLAN_TASK_FWD), want * m);
		}
		plan_graph_free(g);
	}
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* Context parallelism (ring attention), quickstart model (24 layers) at
 * seq_len 8192, tp 2:
 *  - cp 4 x dp 2 does the same work as cp 1 x dp 8 on the same global batch:
 *    token-local kernels run on s/4 tokens on each of 4 ranks, and ring
 *    attention's 4 steps of (s/4 queries x s/4 keys) per rank add up to the
 *    full s x s; so the step's hardware FLOPs are equal;
 *  - per layer and micro-batch, cp - 1 = 3 K/V transfers forward and 3 in
 *    backward (no recomputation): 24 x 6 = 144 CP tasks per micro-batch;
 *  - activations are linear in the local sequence with flash attention, so a
 *    rank keeps exactly 1/4 of the cp 1 activations. */
static void test_cp(void)
{
	const char *cp4[] = {"parallel.tp=2", "parallel.pp=1", "parallel.dp=2", "parallel.cp=4",
			     "parallel.micro_batch=1", "parallel.global_batch=2", "model.seq_len=8192"};
	const char *cp1[] = {"parallel.tp=2", "parallel.pp=1", "parallel.dp=8", "parallel.cp=1",
			     "parallel.micro_batch=1", "parallel.global_batch=8", "model.seq_len=8192"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", cp4, 7, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", cp1, 7, d, &b), SIM_OK);
	if (a && b) {
		plan_graph *ga = NULL, *gb = NULL;
		CHECK_INT(plan_build(a, &ga), SIM_OK);
		CHECK_INT(plan_build(b, &gb), SIM_OK);
		if (ga && gb) {
			/* cp 1 runs 8 replicas of 1 sequence, cp 4 runs 2 of 1 sequence:
			 * compare per sequence. */
			CHECK_NEAR(ga->hardware_flops / 2, gb->hardware_flops / 8, 1e-9);
			CHECK_INT(count(ga, 0, PLAN_TASK_CP), 24 * 6);
			CHECK_INT(count(gb, 0, PLAN_TASK_CP), 0);
		}
		double ma[PLAN_MEM_COUNT], mb[PLAN_MEM_COUNT];
		plan_memory(a, 0, ma);
		plan_memory(b, 0, mb);
		CHECK_NEAR(ma[PLAN_MEM_ACTIVATIONS] / mb[PLAN_MEM_ACTIVATIONS], 0.25, 1e-12);
		plan_graph_free(ga);
		plan_graph_free(gb);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	sim_diag_free(d);
}

/* ZBV (torch pipelining's ScheduleZBVZeroBubble), its order derived by hand
 * from its code (torch 2.14.1 distributed/pipelining/schedules.py:3520-3600)
 * for pp 2, m 3 (the fewest it runs, 2 pp - 1), "F<mb>.<chunk>":
 *   rank 0: 2 (2 - 0) - 1 = 3 chunk-0 forwards; no pairs; 2 steps of a
 *     chunk-1 forward, B, W; one loop step (chunk 1 trails): no chunk-0
 *     forward left, B and W of chunk 0, F, B, W of chunk 1; no B pairs; 2
 *     steps of a chunk-0 B and its oldest held W;
 *   rank 1: one chunk-0 forward; one pair (chunk 1, chunk 0); one step of a
 *     chunk-1 forward, B, W; one loop step; one B pair (chunk 0, chunk 1);
 *     one step of a chunk-0 B and W; the Ws left, chunk 1's then chunk 0's.
 * Its V: rank r holds virtual stages r and 2 pp - 1 - r (pp 4: chunk 1 of
 * rank 3 is virtual stage 4, of rank 0 virtual stage 7). Quickstart's GPT
 * (tied embeddings) on pp 2: under 1F1B stage 0 all-reduces the embedding's
 * gradient with the last stage (one DP task beside ZeRO-1's buckets); under
 * ZBV both ends are on rank 0, one parameter: none. */
static void test_zbv(void)
{
	char got[256];
	order_str(PLAN_SCHED_ZBV, 2, 3, 2, 2, 0, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1B0.1W0.1F1.1B1.1W1.1B0.0W0.0F2.1B2.1W2.1B1.0W1.0B2.0W2.0");
	order_str(PLAN_SCHED_ZBV, 2, 3, 2, 2, 1, got, sizeof got);
	CHECK_STR(got, "F0.0F0.1F1.0F1.1B0.1W0.1F2.0B0.0W0.0F2.1B1.1W1.1B1.0B2.1B2.0W1.0W2.1W2.0");
	plan_spec p = {.pp = 4, .vpp = 2, .schedule = PLAN_SCHED_ZBV};
	int c;
	CHECK_INT(plan_vstage(&p, 0, 0), 0);
	CHECK_INT(plan_vstage(&p, 3, 0), 3);
	CHECK_INT(plan_vstage(&p, 3, 1), 4);
	CHECK_INT(plan_vstage(&p, 0, 1), 7);
	CHECK_INT(plan_vstage_rank(&p, 4, &c), 3);
	CHECK_INT(c, 1);
	CHECK_INT(plan_vstage_rank(&p, 7, &c), 0);
	CHECK_INT(plan_last_rank(&p), 0);
	p.schedule = PLAN_SCHED_1F1B; /* the looped placement */
	CHECK_INT(plan_vstage(&p, 0, 1), 4);
	CHECK_INT(plan_vstage_rank(&p, 7, &c), 3);
	CHECK_INT(plan_last_rank(&p), 3);
	const char *loop[] = {"parallel.vpp=2", "parallel.micro_batch=1", "parallel.global_batch=32",
			      "framework.runs_schedules=1f1b,interleaved,zbv"};
	const char *zbv[] = {"parallel.vpp=2", "parallel.micro_batch=1", "parallel.global_batch=32",
			     "framework.runs_schedules=1f1b,interleaved,zbv", "parallel.schedule=zbv"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", loop, 4, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", zbv, 5, d, &b), SIM_OK);
	plan_graph *ga = NULL, *gb = NULL;
	if (a && b && plan_build(a, &ga) == SIM_OK && plan_build(b, &gb) == SIM_OK)
		CHECK_INT(count(ga, 0, PLAN_TASK_DP) - count(gb, 0, PLAN_TASK_DP), 1);
	plan_graph_free(ga);
	plan_graph_free(gb);
	plan_scenario_free(a);
	plan_scenario_free(b);
	sim_diag_free(d);
}

/* DualPipeV (torch 2.14.1 distributed/pipelining/schedules.py:3729-3866),
 * derived by hand from its steps on p 2, m 4 (graph.c dualpipev_order):
 *   rank 0: F0.0 F1.0 (2 (p - r - 1) forwards of chunk 0); F2.0 F0.1 (r + 1
 *   pairs); I of chunk 1 mb 0 then the queued W, F1.1; the main step
 *   F3.0 B1.1+W F2.1 B0.0+W; step 5 B2.1+W F3.1 B1.0+W; step 6, r + 1 = 1:
 *   B3.1 whole, then zero bubble on: B2.0 split; step 7 W2.0 B3.0 split;
 *   step 8 W3.0.
 *   rank 1: F0.0 F0.1 F1.0 F1.1; two main steps F2.0 B0.1+W F2.1 B0.0+W,
 *   F3.0 B1.1+W F3.1 B1.0+W; step 6, r + 1 = 2: B2.1 and B2.0 whole, then
 *   (odd rank: from the chunk-1 backward of the middle step) B3.1 B3.0
 *   split; step 8 their W's, oldest first.
 * On other shapes every (micro-batch, chunk) runs one F, one B and one W on
 * each rank, each W after its B after its F. */
static void test_dualpipev(void)
{
	char got[256];
	order_str(PLAN_SCHED_DUALPIPEV, 2, 4, 2, 2, 0, got, sizeof got);
	CHECK_STR(got, "F0.0F1.0F2.0F0.1B0.1W0.1F1.1F3.0B1.1W1.1F2.1B0.0W0.0B2.1W2.1F3.1B1.0W1.0"
		       "B3.1W3.1B2.0W2.0B3.0W3.0");
	order_str(PLAN_SCHED_DUALPIPEV, 2, 4, 2, 2, 1, got, sizeof got);
	CHECK_STR(got, "F0.0F0.1F1.0F1.1F2.0B0.1W0.1F2.1B0.0W0.0F3.0B1.1W1.1F3.1B1.0W1.0"
		       "B2.1W2.1B2.0W2.0B3.1B3.0W3.1W3.0");
	int shapes[][2] = {{2, 5}, {4, 8}, {4, 13}, {8, 16}, {8, 40}, {3, 7}};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		int p = shapes[k][0], m = shapes[k][1], n = plan_schedule_steps(PLAN_SCHED_DUALPIPEV, m, 2);
		plan_op *o = malloc((size_t)n * sizeof *o);
		int *seen = calloc((size_t)(3 * 2 * m), sizeof *seen);
		for (int r = 0; o && seen && r < p; r++) {
			memset(seen, 0, (size_t)(3 * 2 * m) * sizeof *seen);
			int got_n = plan_schedule_head(PLAN_SCHED_DUALPIPEV, p, m, 2, p, 0, r, n, o);
			CHECK_INT(got_n, n);
			bool order_ok = true;
			for (int i = 0; i < got_n; i++) {
				int kind = o[i].weight ? 2 : o[i].backward ? 1 : 0;
				int at = (o[i].chunk * m + o[i].mb) * 3;
				seen[at + kind]++;
				order_ok = order_ok && (kind == 0 || seen[at + kind - 1] == 1);
			}
			CHECK(order_ok);
			int once = 0;
			for (int i = 0; i < 3 * 2 * m; i++)
				once += seen[i] == 1;
			CHECK_INT(once, 3 * 2 * m);
		}
		free(o), free(seen);
	}
	const char *few[] = {"parallel.vpp=2", "parallel.micro_batch=1", "parallel.global_batch=6",
			     "parallel.pp=4", "parallel.dp=1", "parallel.tp=4",
			     "framework.runs_schedules=1f1b,dualpipev", "parallel.schedule=dualpipev"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	/* 6 micro-batches on pp 4: fewer than 2 pp = 8 */
	CHECK(plan_scenario_load("scenarios/quickstart.ini", few, 8, d, &a) != SIM_OK);
	few[2] = "parallel.global_batch=8";
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", few, 8, d, &b), SIM_OK);
	exec_result r;
	if (b && CHECK_INT(exec_run(b, &r), SIM_OK)) {
		CHECK_INT(plan_last_rank(&b->plan), 0); /* the V: the loss on rank 0 */
		CHECK(r.step_s > 0);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	sim_diag_free(d);
}

/* Looped BFS (torch 2.14.1 distributed/pipelining/schedules.py:2964-2990,
 * _calculate_single_rank_operations): the rank's stages r, r + p, ... in
 * turn, each with every micro-batch's forward; then the stages from the
 * last down, each with its micro-batches' backwards last first. On p 2,
 * m 3, v 2 both ranks run F0.0 F1.0 F2.0 F0.1 F1.1 F2.1 then B2.1 B1.1
 * B0.1 B2.0 B1.0 B0.0 (the rank's leading no-ops are the dependencies'
 * business). Its activation peak is all m x v, as GPipe's: the closed
 * form and the walk agree on equal and unequal chunks. */
static void test_looped_bfs(void)
{
	char got[256];
	for (int st = 0; st < 2; st++) {
		order_str(PLAN_SCHED_LOOPED_BFS, 2, 3, 2, 2, st, got, sizeof got);
		CHECK_STR(got, "F0.0F1.0F2.0F0.1F1.1F2.1B2.1B1.1B0.1B2.0B1.0B0.0");
	}
	plan_spec p = {.pp = 2, .vpp = 2, .dp = 1, .micro_batch = 1, .global_batch = 3,
		       .schedule = PLAN_SCHED_LOOPED_BFS};
	double eq[2] = {1, 1}, uneq[2] = {1, 3};
	CHECK_NEAR(plan_peak_closed(&p, 0, 1), 6, 0);
	CHECK_NEAR(plan_peak_walk(&p, 0, eq), 6, 0);
	CHECK_NEAR(plan_peak_walk(&p, 1, uneq), 3 * 1 + 3 * 3, 0);
	const char *one[] = {"parallel.vpp=1", "parallel.schedule=looped-bfs",
			     "framework.runs_schedules=gpipe,1f1b,looped-bfs"};
	const char *two[] = {"parallel.vpp=2", "parallel.schedule=looped-bfs",
			     "framework.runs_schedules=gpipe,1f1b,looped-bfs"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK(plan_scenario_load("scenarios/quickstart.ini", one, 3, d, &a) != SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", two, 3, d, &b), SIM_OK);
	exec_result r;
	if (b && CHECK_INT(exec_run(b, &r), SIM_OK))
		CHECK(r.step_s > 0 && r.bubble_fraction > 0);
	plan_scenario_free(a);
	plan_scenario_free(b);
	sim_diag_free(d);
}

/* How many of stage st's data-parallel tasks of a layer (the reduce-
 * scatters: the gathers come before any backward) wait, directly, for the
 * stage's last backward-chain task, the last compute task of the step
 * before the optimizer. */
static int kept_reduce_after_backward(const plan_graph *g, int st)
{
	uint32_t last = UINT32_MAX;
	for (uint32_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].rank == st && g->tasks[i].stream == PLAN_STREAM_COMPUTE &&
		    g->tasks[i].kind == PLAN_TASK_BWD)
			last = i;
	int n = 0;
	for (size_t e = 0; last != UINT32_MAX && e < g->nedges; e++) {
		const plan_task *t = &g->tasks[g->edges[e].to];
		n += g->edges[e].from == last && t->rank == st && t->kind == PLAN_TASK_DP &&
		     t->layer >= 0;
	}
	return n;
}

/* The same for the reductions that wait for a pipeline send. */
static int kept_reduce_after_send(const plan_graph *g, int st)
{
	int n = 0;
	for (size_t e = 0; e < g->nedges; e++) {
		const plan_task *t = &g->tasks[g->edges[e].to], *f = &g->tasks[g->edges[e].from];
		n += f->kind == PLAN_TASK_PP && t->rank == st && t->kind == PLAN_TASK_DP &&
		     t->layer >= 0;
	}
	return n;
}

/* Placement and hybrid sharding on the quickstart (2 nodes x 8 GPUs):
 *  - order dp-tp-cp-pp with tp 2, dp 4, pp 2: DP innermost (stride 1), TP
 *    stride dp = 4, CP stride 8, PP stride 8 (tp*dp);
 *  - tp 8 x dp 2, pp 1: by default a TP group is 8 consecutive ranks, one node;
 *    with dp innermost its ranks are 2 apart and span both nodes;
 *  - ZeRO-3 with shard_size 2 over dp 4: the weights are split 2 ways, not 4
 *    (twice the bytes). Full sharding has 8 x 12 x 3 + 1 DP tasks on stage
 *    0 (per micro-batch and layer two gathers and a reduce-scatter; the
 *    tied embedding's all-reduce). Hybrid sharding adds the all-reduce of
 *    each reduced shard over its 2 replicas: after every micro-batch under
 *    FSDP (hsdp_grad_reduce = microbatch, the default: torch 2.6.0
 *    _runtime_utils.py:850-866), 8 x 12 more; at the last only under
 *    DeepSpeed's MiCS (boundary, mics.py:400-433 at edaa72212), 12 more.
 *    With FSDP's no_sync (accumulate_unsharded) nothing is reduced before
 *    the last micro-batch (_runtime_utils.py:733-736): 8 x 12 x 2 gathers,
 *    12 reduce-scatters, 12 all-reduces and the embedding's. Under torch
 *    pipelining (zero3_pp_gathered: units kept gathered from the step's
 *    first forward, reduced once after the last backward) full sharding
 *    has 12 gathers, 12 reduce-scatters and the embedding's all-reduce, and
 *    each reduce-scatter waits for the stage's last backward task.
 * Each count adds stage 0's end, the embedding (zero3_root = step, the
 * default; test_ends.c): one gather a step, and a reduce-scatter (with
 * hybrid sharding then an all-reduce) where a layer's are, 1 + 8 (+ 8),
 * 1 + 8 + 1 at the boundary, 1 + 1 + 1 under no_sync, 1 + 1 kept. */
static void test_placement(void)
{
	plan_spec p = {.tp = 2, .cp = 1, .dp = 4, .pp = 2};
	snprintf(p.order, sizeof p.order, "dp-tp-cp-pp");
	int st[PLAN_DIMS];
	plan_strides(&p, st);
	CHECK(st[PLAN_DIM_DP] == 1 && st[PLAN_DIM_TP] == 4 && st[PLAN_DIM_CP] == 8 &&
	      st[PLAN_DIM_PP] == 8);
	int ord[PLAN_DIMS];
	CHECK_INT(plan_order_parse("tp-dp-pp", ord), SIM_ECONF);
	CHECK_INT(plan_order_parse("tp-tp-dp-pp", ord), SIM_ECONF);
	const char *inner[] = {"parallel.tp=8", "parallel.dp=2", "parallel.pp=1",
			       "parallel.global_batch=64"};
	const char *across[] = {"parallel.tp=8", "parallel.dp=2", "parallel.pp=1",
				"parallel.global_batch=64", "parallel.order=dp-tp-cp-pp"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", inner, 4, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", across, 5, d, &b), SIM_OK);
	if (a && b) {
		plan_groups ga, gb;
		plan_make_groups(a, &ga);
		plan_make_groups(b, &gb);
		CHECK_INT(ga.tp.nodes, 1);
		CHECK_INT(gb.tp.nodes, 2);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	const char *full[] = {"parallel.zero=3", "framework.runs_zero_with_pp=3"};
	const char *hybrid[] = {"parallel.zero=3", "parallel.shard_size=2",
				"framework.runs_zero_with_pp=3", "framework.runs_hybrid_shard=true",
				"framework.hsdp_grad_reduce=microbatch"};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", full, 2, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", hybrid, 5, d, &b), SIM_OK);
	if (a && b) {
		double ma[PLAN_MEM_COUNT], mb[PLAN_MEM_COUNT];
		plan_memory(a, 0, ma);
		plan_memory(b, 0, mb);
		CHECK_NEAR(mb[PLAN_MEM_WEIGHTS], 2 * ma[PLAN_MEM_WEIGHTS], 1e-12);
		CHECK_INT(plan_microbatches(&b->plan), 8);
		plan_graph *g = NULL;
		CHECK_INT(plan_build(a, &g), SIM_OK);
		/* + the embedding (zero3_root = step): one gather a step, a
		 * reduce-scatter (with hybrid sharding then its all-reduce) a
		 * micro-batch */
		if (g)
			CHECK_INT(count(g, 0, PLAN_TASK_DP), 8 * 12 * 3 + 1 + 1 + 8);
		plan_graph_free(g);
		g = NULL;
		CHECK_INT(plan_build(b, &g), SIM_OK);
		if (g)
			CHECK_INT(count(g, 0, PLAN_TASK_DP), 8 * 12 * 3 + 1 + 8 * 12 + 1 + 8 + 8);
		plan_graph_free(g);
	}
	plan_scenario_free(b);
	b = NULL;
	hybrid[4] = "framework.hsdp_grad_reduce=boundary";
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", hybrid, 5, d, &b), SIM_OK);
	plan_graph *g = NULL;
	if (b && plan_build(b, &g) == SIM_OK)
		CHECK_INT(count(g, 0, PLAN_TASK_DP), 8 * 12 * 3 + 1 + 12 + 1 + 8 + 1);
	plan_graph_free(g);
	plan_scenario_free(b);
	b = NULL, g = NULL;
	hybrid[4] = "framework.accumulate_unsharded=true";
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", hybrid, 5, d, &b), SIM_OK);
	if (b && plan_build(b, &g) == SIM_OK)
		CHECK_INT(count(g, 0, PLAN_TASK_DP), 8 * 12 * 2 + 12 + 12 + 1 + 1 + 1 + 1);
	plan_graph_free(g);
	plan_scenario_free(a);
	plan_scenario_free(b);
	a = NULL, g = NULL;
	const char *kept[] = {"parallel.zero=3", "framework.runs_zero_with_pp=3",
			      "framework.zero3_pp_gathered=true"};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", kept, 3, d, &a), SIM_OK);
	if (a && plan_build(a, &g) == SIM_OK) {
		CHECK_INT(count(g, 0, PLAN_TASK_DP), 12 + 12 + 1 + 1 + 1);
		CHECK_INT(kept_reduce_after_backward(g, 0), 12);
		/* stage 1 sends its last backward's gradient: torch's 1F1B
		 * reduces after waiting for that send (schedules.py:1380-1388) */
		CHECK_INT(kept_reduce_after_backward(g, 1), 0);
		CHECK_INT(kept_reduce_after_send(g, 1), 12);
	}
	plan_graph_free(g);
	plan_scenario_free(a);
	sim_diag_free(d);
}

/* The ZeRO paper's memory per GPU (Rajbhandari et al. 2020, figure 1: Psi
 * parameters, K = 12 bytes of optimizer state, d data-parallel ranks), with
 * 16-bit gradients: stage 0 (2 + 2 + K) Psi, stage 1 (2 + 2 + K/d) Psi, stage 2
 * (2 + (2 + K)/d) Psi, stage 3 (2 + 2 + K) Psi / d; and Megatron's view
 * (Korthikanti et al. / the distributed optimizer docs) with fp32 gradients:
 * 18 bytes/param, and 6 + 12/d with the distributed optimizer (ZeRO-1). Single
 * stage, tp 1, so Psi is the whole model. */
static void test_zero_memory(void)
{
	plan_scenario s = gpt_scenario();
	int vl[4];
	relayout(&s, vl);
	s.plan.dp = 8;
	s.plan.global_batch = 64;
	double psi = work_params_total(&s.model), d = 8, b[PLAN_MEM_COUNT];
	double want[4] = {16, 4 + 12 / d, 2 + 14 / d, 16 / d};
	/* the ZeRO paper's stage 2 is DeepSpeed's: gradients reduced every
	 * micro-batch, only the shard kept (here 8 micro-batches) */
	s.fw.zero2_reduce = PLAN_REDUCE_MICROBATCH;
	for (int z = 0; z <= 3; z++) {
		s.plan.zero = z;
		plan_memory(&s, 0, b);
		double states = b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER];
		CHECK_NEAR(states / psi, want[z], 1e-12);
	}
	/* A framework reducing once at the accumulation boundary holds full
	 * gradients while accumulating 8 micro-batches: ZeRO-1's bytes; with a
	 * single micro-batch it can free each bucket once reduced: the paper's. */
	s.fw.zero2_reduce = PLAN_REDUCE_BOUNDARY;
	s.plan.zero = 2;
	plan_memory(&s, 0, b);
	CHECK_NEAR((b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER]) / psi,
		   4 + 12 / d, 1e-12);
	s.plan.global_batch = 8;
	plan_memory(&s, 0, b);
	CHECK_NEAR((b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER]) / psi,
		   2 + 14 / d, 1e-12);
	s.plan.global_batch = 64;
	s.plan.zero = 0;
	s.plan.fp32_grads = true;
	s.plan.zero = 0;
	plan_memory(&s, 0, b);
	CHECK_NEAR((b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER]) / psi, 18,
		   1e-12);
	s.plan.zero = 1;
	plan_memory(&s, 0, b);
	CHECK_NEAR((b[PLAN_MEM_WEIGHTS] + b[PLAN_MEM_GRADIENTS] + b[PLAN_MEM_OPTIMIZER]) / psi,
		   6 + 12 / d, 1e-12);
}

/* Communication volume per step and rank (ZeRO paper, section 7): DDP's ring
 * all-reduce sends 2 (n-1)/n Psi per step; ZeRO-3 / FSDP gathers the parameters
 * before the forward and again before the backward and reduce-scatters the
 * gradients, (n-1)/n Psi each: 3 (n-1)/n Psi, 1.5x DDP. Quickstart stage 1
 * (tp 2, its dp 4 group inside one node, so the scale-up bytes are all it
 * sends), one micro-batch, 16-bit gradients; the tied-embedding sync (layer
 * -1) is left out of both. */
static double dp_bytes(const char *zero)
{
	const char *set[] = {zero, "parallel.global_batch=16", "parallel.fp32_grads=false",
			     "framework.runs_zero_with_pp=3"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	plan_graph *g = NULL;
	double sum = 0;
	if (plan_scenario_load("scenarios/quickstart.ini", set, 4, d, &s) == SIM_OK &&
	    plan_build(s, &g) == SIM_OK)
		for (size_t i = 0; i < g->ntasks; i++)
			if (g->tasks[i].rank == 1 && g->tasks[i].kind == PLAN_TASK_DP &&
			    g->tasks[i].layer >= 0)
				sum += g->tasks[i].scaleup_bytes;
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_free(d);
	return sum;
}

static void test_comm_volume(void)
{
	double ddp = dp_bytes("parallel.zero=0"), fsdp = dp_bytes("parallel.zero=3");
	CHECK(ddp > 0);
	CHECK_NEAR(fsdp / ddp, 1.5, 1e-3);
}

/* The activation peak's closed forms (GPipe m, 1F1B pp - stage, interleaved
 * (pp - stage - 1) * 2 + (vpp - 1) * N + 1 chunk-steps, N the micro-batch
 * group, each capped at m * vpp) agree with the walk of the schedule on
 * every stage, for pp 1-8, vpp 1-4 (interleaving needs pp > 1, and m a
 * multiple of pp in groups of pp, else Megatron-Core's smallest group) and
 * m = pp to 4 pp plus fewer micro-batches than stages; interleaved also in
 * groups of 2 pp where m >= 2 pp, and in torch pipelining's rounds. */
static void test_peak_closed_form(void)
{
	double act[4] = {1, 1, 1, 1};
	int cases = 0, grouped = 0;
	for (int sched = PLAN_SCHED_GPIPE; sched <= PLAN_SCHED_1F1B; sched++)
		for (int pp = 1; pp <= 8; pp++)
			for (int vpp = 1; vpp <= 4; vpp++)
				for (int m = 1; m <= 4 * pp; m++) {
					if (vpp > 1 && (pp == 1 || sched != PLAN_SCHED_1F1B || m < pp))
						continue;
					plan_spec p = {.pp = pp, .vpp = vpp, .dp = 1, .micro_batch = 1,
						       .global_batch = m, .schedule = (plan_schedule)sched,
						       .vp_groups = true};
					for (int g = 0; g < (vpp > 1 && m >= 2 * pp ? 2 : 1); g++) {
						p.vp_group = g ? 2 * pp : 0;
						int n = plan_vp_group(&p);
						if (vpp > 1 && m % n && m % n < pp)
							continue; /* refused (plan_check) */
						for (int st = 0; st < pp; st++, cases++)
							CHECK_NEAR(plan_peak_closed(&p, st, 1.0),
								   plan_peak_walk(&p, st, act), 0);
						grouped += vpp > 1 && n != pp ? pp : 0;
					}
				}
	CHECK(cases > 500);
	CHECK(grouped > 300);
	/* torch pipelining's rounds (plan_vp_group, PLAN_VP_TORCH), m = 1 to
	 * 4 pp, fewer micro-batches than stages included (one round of m < pp) */
	int rounds = 0, below = 0;
	for (int pp = 2; pp <= 8; pp++)
		for (int vpp = 2; vpp <= 4; vpp++)
			for (int m = 1; m <= 4 * pp; m++) {
				plan_spec p = {.pp = pp, .vpp = vpp, .dp = 1, .micro_batch = 1,
					       .global_batch = m, .schedule = PLAN_SCHED_1F1B,
					       .vp_groups = true, .vp_rule = PLAN_VP_TORCH};
				int r = m / pp > 1 ? m / pp : 1, n = plan_vp_group(&p);
				if (m % r)
					continue; /* refused (plan_check) */
				CHECK_INT(n, m / r);
				for (int st = 0; st < pp; st++, rounds++)
					CHECK_NEAR(plan_peak_closed(&p, st, 1.0), plan_peak_walk(&p, st, act),
						   0);
				below += n < pp;
			}
	CHECK(rounds > 300);
	CHECK(below > 50);
}

/* Pipeline p2p bytes per rank and micro-batch (plan_p2p_bytes) for the
 * quickstart shape: s = 2048, b = 4, h = 2304, bf16, so the stage-boundary
 * activation is s*b*h*2 = 37,748,736 bytes.
 *  - tp 2, no SP, scatter-gather: each TP rank sends its half,
 *    18,874,368 bytes, and the receiving TP group all-gathers the whole
 *    37,748,736 (each rank ends with both halves);
 *  - scatter-gather off: each rank sends all 37,748,736, no all-gather;
 *  - SP: a rank holds s/t of the sequence already, 18,874,368, no all-gather;
 *  - tp 1: the whole tensor, nothing to gather. */
static void test_p2p_bytes(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", NULL, 0, d, &s), SIM_OK);
	if (s) {
		double full = 2048.0 * 4 * 2304 * 2, gather;
		CHECK(!s->plan.p2p_scatter_gather); /* the default, see plan.h */
		s->plan.p2p_scatter_gather = true;
		CHECK_NEAR(plan_p2p_bytes(s, &gather), full / 2, 1e-12);
		CHECK_NEAR(gather, full, 1e-12);
		s->plan.p2p_scatter_gather = false;
		CHECK_NEAR(plan_p2p_bytes(s, &gather), full, 1e-12);
		CHECK_NEAR(gather, 0, 0);
		s->plan.p2p_scatter_gather = true;
		s->plan.sequence_parallel = true;
		CHECK_NEAR(plan_p2p_bytes(s, &gather), full / 2, 1e-12);
		CHECK_NEAR(gather, 0, 0);
		s->plan.sequence_parallel = false;
		s->plan.tp = 1;
		CHECK_NEAR(plan_p2p_bytes(s, &gather), full, 1e-12);
		CHECK_NEAR(gather, 0, 0);
	}
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Selective recomputation by framework ([framework] selective_core_attn):
 * Megatron-DeepSpeed wraps only the unfused core (transformer.py:835-870
 * at f4157bea), so with flash attention selective re-runs nothing (the
 * step and the peak of recompute none); Megatron-Core re-runs the flash
 * core (a longer step); unfused, Megatron-DeepSpeed's selective re-runs it
 * and drops the scores (a longer step, a lower peak). */
static void test_selective_core_attn(void)
{
	const char *fw[] = {"topologies/frameworks/megatron-deepspeed.ini",
	                    "topologies/frameworks/megatron-core.ini"};
	const char *att[] = {"flash", "unfused"};
	double step[2][2][2], peak[2][2][2]; /* framework, attention, selective */
	for (int f = 0; f < 2; f++)
		for (int a = 0; a < 2; a++)
			for (int sel = 0; sel < 2; sel++) {
				char text[512];
				snprintf(text, sizeof text,
				         "include = scenarios/quickstart.ini\ninclude = %s\n"
				         "[parallel]\nrecompute = %s\nzero = 0\n[train]\nattention = %s\n",
				         fw[f], sel ? "selective" : "none", att[a]);
				sim_diag *d = sim_diag_new();
				plan_scenario *s = NULL;
				exec_result r;
				step[f][a][sel] = peak[f][a][sel] = -1;
				if (CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK) &&
				    CHECK_INT(exec_run(s, &r), SIM_OK)) {
					plan_mem_fit mf;
					plan_memory_fit(s, &mf);
					step[f][a][sel] = r.step_s;
					peak[f][a][sel] = mf.peak;
				}
				sim_diag_print(d, stderr);
				sim_diag_free(d);
				plan_scenario_free(s);
			}
	CHECK_NEAR(step[0][0][1], step[0][0][0], 1e-12);
	CHECK_NEAR(peak[0][0][1], peak[0][0][0], 1e-12);
	CHECK(step[1][0][1] > step[1][0][0]);
	CHECK(step[0][1][1] > step[0][1][0]);
	CHECK(peak[0][1][1] < peak[0][1][0]);
}

/* Megatron's distribute_saved_activations ([framework] distribute_saved;
 * metaseq runs it): a fully recomputed layer keeps 1/tp of its input,
 * e s b h / t (here 2 x 2048 x 4 x 2048 / 2 B = 16 MiB on the quickstart's
 * tp 2, micro-batch 4), and all-gathers the whole e s b h over TP before
 * its recomputed forward: one more task per recomputed layer and
 * micro-batch on every rank class (12 layers a stage x 8 micro-batches on
 * each of the quickstart's 2 stage classes = 192), a slower step and a
 * smaller peak. Not under SP, whose input is split already (Megatron
 * refuses the pair), nor at tp 1. */
static void test_distribute_saved(void)
{
	double step[2] = {-1, -1}, peak[2] = {-1, -1}, tasks[2] = {0, 0};
	for (int on = 0; on < 2; on++) {
		char text[512];
		snprintf(text, sizeof text,
		         "include = scenarios/quickstart.ini\n"
		         "include = topologies/frameworks/megatron-lm-2021.ini\n"
		         "[framework]\ndistribute_saved = %s\n[parallel]\nrecompute = full\n"
		         "zero = 0\n",
		         on ? "true" : "false");
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		exec_result r;
		if (CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK) &&
		    CHECK_INT(exec_run(s, &r), SIM_OK)) {
			plan_mem_fit mf;
			plan_memory_fit(s, &mf);
			step[on] = r.step_s;
			peak[on] = mf.peak;
			tasks[on] = (double)r.tasks;
			work_shard sh = plan_shard(s);
			CHECK(sh.distribute_saved == (on == 1));
			double esbh = 2.0 * 2048 * 4 * s->model.hidden;
			CHECK_NEAR(work_activation_bytes(&s->model, &sh, WORK_RECOMPUTE_FULL),
			           on ? esbh / 2 : esbh, 1e-9);
			work_item ag;
			CHECK_INT(work_saved_gather(&s->model, &sh, &ag), on);
			if (on)
				CHECK(ag.kind == WORK_ITEM_COMM && ag.comm == WORK_COMM_ALLGATHER &&
				      ag.comm_bytes == esbh);
			s->plan.sequence_parallel = true;
			CHECK(!plan_shard(s).distribute_saved);
			s->plan.sequence_parallel = false;
			s->plan.tp = 1;
			sh = plan_shard(s);
			CHECK_INT(work_saved_gather(&s->model, &sh, &ag), 0);
		}
		sim_diag_print(d, stderr);
		sim_diag_free(d);
		plan_scenario_free(s);
	}
	CHECK(step[1] > step[0]);
	CHECK(peak[1] < peak[0]);
	CHECK_NEAR(tasks[1] - tasks[0], 192, 1e-9);
}

/* DeepSpeed-Ulysses in the graph (cp_comm = all-to-all): its all-to-alls
 * are links of the chain, so the replay exposes all of them, as explain's
 * closed form adds them (each alone, alpha-beta on the CP group: within
 * 2 % inside a node); the compute stays the ring's but for the attention
 * kernel's shape (one kernel of the whole sequence and 1/cp of the heads
 * against cp steps). Heads of a TP rank no multiple of cp: refused, naming
 * Megatron-DeepSpeed's assert. */
static void test_cp_ulysses_graph(void)
{
	const char *text = "include = scenarios/quickstart.ini\n"
			   "include = topologies/frameworks/megatron-deepspeed.ini\n"
			   "[model]\nseq_len = 16384\n"
			   "[parallel]\ncp = 4\ntp = 1\ndp = 4\npp = 1\nzero = 1\n"
			   "[train]\nattention = flash\n";
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	if (s) {
		CHECK_INT(s->fw.cp_comm, PLAN_CP_ALLTOALL);
		exec_result u;
		plan_cp_cost cc;
		int m = plan_microbatches(&s->plan), L = plan_stage_layers(s, 0);
		if (CHECK_INT(exec_run(s, &u), SIM_OK) &&
		    CHECK_INT(plan_cp_exchange(s, &cc), SIM_OK) && CHECK(cc.alltoall)) {
			CHECK_INT(cc.a2a[0], 4);
			CHECK_INT(cc.a2a[1], 4);
			double closed = (cc.exposed_s[0] + cc.exposed_s[1]) * L * m;
			CHECK(closed > 0);
			CHECK_NEAR(u.classes[0].time_s[EXEC_CAT_CP], closed, 0.02);
		}
	}
	plan_scenario_free(s);
	s = NULL;
	sim_diag_clear(d);
	/* quickstart's 1.7B has 24 heads: cp 16 does not divide them */
	const char *bad = "include = scenarios/quickstart.ini\n"
			  "include = topologies/frameworks/megatron-deepspeed.ini\n"
			  "[model]\nseq_len = 16384\n"
			  "[parallel]\ncp = 16\ntp = 1\ndp = 1\npp = 1\n"
			  "[train]\nattention = flash\n";
	CHECK(plan_scenario_load_string(bad, "<test>", ".", d, &s) != SIM_OK);
	bool named = false;
	for (size_t i = 0; i < sim_diag_count(d); i++)
		named = named || strstr(sim_diag_text(d, i), "DeepSpeed-Ulysses needs") != NULL;
	CHECK(named);
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* torchtitan's context parallelism all-gathers K and V (torchtitan.ini
 * cp_comm = all-gather; work/layer.c attn_ring): the quickstart's model at
 * 16k tokens, cp 4, tp 1, dp 4. The gather carries the ring's bytes in one
 * collective but runs beside the first step only, where each of the ring's
 * three transfers runs beside a step; and the backward gathers again before
 * its K/V gradients go round: the step's exposed CP time exceeds the
 * ring's, the compute is the same. The graph carries one gather a layer
 * and pass and the ring's transfers in the backward only, and its replay
 * runs (a cp_step up to cp: cursor.ring holds cp + 1). */
static void test_cp_allgather_graph(void)
{
	const char *text = "include = scenarios/quickstart.ini\n"
			   "include = topologies/frameworks/torchtitan.ini\n"
			   "[model]\nseq_len = 16384\n"
			   "[parallel]\ncp = 4\ntp = 1\ndp = 4\npp = 1\n";
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (!s)
		return;
	CHECK_INT(s->fw.cp_comm, PLAN_CP_ALLGATHER);
	exec_result ag, ring;
	bool ok = CHECK_INT(exec_run(s, &ag), SIM_OK);
	s->fw.cp_comm = PLAN_CP_RING;
	ok = CHECK_INT(exec_run(s, &ring), SIM_OK) && ok;
	/* explain's closed form (plan_cp_exchange: each transfer beside its
	 * step, max(x - a, i min(x, a))) gives the replay's exposed CP inside a
	 * node within 2 % in both modes (0.2394 / 0.2414 s and 0.1717 / 0.1717 s) */
	plan_cp_cost cc;
	double exp_ag = 0, exp_ring = 0;
	int m = plan_microbatches(&s->plan), L = plan_stage_layers(s, 0);
	s->fw.cp_comm = PLAN_CP_ALLGATHER;
	if (CHECK_INT(plan_cp_exchange(s, &cc), SIM_OK) && CHECK(cc.allgather))
		exp_ag = (cc.exposed_s[0] + cc.exposed_s[1]) * L * m;
	s->fw.cp_comm = PLAN_CP_RING;
	if (CHECK_INT(plan_cp_exchange(s, &cc), SIM_OK) && CHECK(!cc.allgather))
		exp_ring = (cc.exposed_s[0] + cc.exposed_s[1]) * L * m;
	if (ok) {
		CHECK_NEAR(exp_ag, ag.classes[0].time_s[EXEC_CAT_CP], 0.02);
		CHECK_NEAR(exp_ring, ring.classes[0].time_s[EXEC_CAT_CP], 0.02);
		CHECK(ag.classes[0].time_s[EXEC_CAT_CP] > ring.classes[0].time_s[EXEC_CAT_CP]);
		CHECK_NEAR(ag.classes[0].time_s[EXEC_CAT_COMPUTE],
		           ring.classes[0].time_s[EXEC_CAT_COMPUTE], 1e-9);
		CHECK(ag.step_s > ring.step_s);
	}
	plan_scenario_free(s);
}

/* The megatron-deepspeed profile partitions what DeepSpeed's pipeline engine
 * sends over the TP group (pipe_partitioned / grad_partitioned default true,
 * DeepSpeed 38327e07 runtime/config.py:467-468): on the quickstart plan (tp 2,
 * pp 2, no SP) a rank sends half the 37,748,736-byte activation and its TP
 * group all-gathers the whole of it, where the default profile
 * (Megatron-Core, which the quickstart reads) sends it whole. */
static void test_p2p_bytes_deepspeed(void)
{
	const char *text = "include = scenarios/quickstart.ini\n"
			   "include = topologies/frameworks/megatron-deepspeed.ini\n";
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK);
	if (s) {
		double full = 2048.0 * 4 * 2304 * 2, gather;
		CHECK_STR(s->fw.name, "megatron-deepspeed");
		CHECK_INT(s->plan.tp, 2);
		CHECK(!s->plan.sequence_parallel);
		CHECK(s->plan.p2p_scatter_gather);
		CHECK_NEAR(plan_p2p_bytes(s, &gather), full / 2, 1e-12);
		CHECK_NEAR(gather, full, 1e-12);
	}
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* How plan_build wires pipeline transfers, on the quickstart plan (pp 2, 8
 * micro-batches, 1F1B): 8 forward sends on stage 0 and 8 gradient sends on
 * stage 1. Synchronous (the default for 1F1B): every send blocks a later task
 * of its own stage (the next step, or after the last step the gradient
 * reduction), and every send but the first forward one waits for a task of
 * the receiving stage (the step before the consuming one; stage 1's F0 has
 * none). Async: sends feed only the other stage. With scatter-gather on, each
 * forward on stage 1 and each backward on stage 0 begins with the TP
 * all-gather of the received slices: the first task of stage 1 is one, timed
 * (alpha-beta) as the all-gather of the whole 37,748,736-byte activation in
 * the TP group. */
/* Each pipeline send on its own hop (plan_pp_pair). The quickstart's 2 nodes
 * of 8 GPUs with tp 2 x dp 2 = 4 ranks per stage and pp 4: stages 0 and 1 on
 * the first node (ranks 0-3, 4-7), 2 and 3 on the second (8-11, 12-15), so
 * the hops 0 -> 1 and 2 -> 3 stay on a node, 1 -> 2 crosses (2 ranks, one per
 * node), and the interleaved wrap 3 -> 0 crosses as well. With tp 8 x dp 1
 * every stage fills a node and every hop crosses. In the graph (alpha-beta,
 * the same bytes on every hop) stage 1's forward send, the crossing one, takes
 * the NICs' time and stage 0's the NVLink's, net_collective's p2p on each
 * pair plus the same framework overhead (plan_p2p_overhead on each). */
static void test_pp_pairs(void)
{
	const char *set[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=4",
			     "parallel.global_batch=16", "parallel.micro_batch=1",
			     "cluster.network=alpha-beta"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 6, d, &s), SIM_OK);
	if (s) {
		net_group h[4];
		plan_pp_pair(s, 0, 1, &h[0]);
		plan_pp_pair(s, 1, 2, &h[1]);
		plan_pp_pair(s, 2, 3, &h[2]);
		plan_pp_pair(s, 3, 0, &h[3]);
		CHECK(h[0].size == 2 && h[0].nodes == 1 && h[0].per_node == 2);
		CHECK(h[1].size == 2 && h[1].nodes == 2 && h[1].per_node == 1);
		CHECK(h[2].nodes == 1 && h[3].nodes == 2);
		net_group back;
		plan_pp_pair(s, 2, 1, &back);
		CHECK_INT(back.nodes, 2);
		plan_graph *g = NULL;
		if (plan_build(s, &g) == SIM_OK) {
			double t[2] = {-1, -1};
			for (size_t i = 0; i < g->ntasks; i++) {
				const plan_task *x = &g->tasks[i];
				if (x->kind == PLAN_TASK_PP && x->stream == PLAN_STREAM_PP_FWD &&
				    x->rank < 2 && t[x->rank] < 0)
					t[x->rank] = sim_time_to_s(x->dur);
			}
			double gather, bytes = plan_p2p_stage_bytes(s, 0, false, &gather);
			net_cost in, out;
			CHECK_INT(net_collective(&s->cluster, NET_P2P, &h[0], bytes, &in), SIM_OK);
			CHECK_INT(net_collective(&s->cluster, NET_P2P, &h[1], bytes, &out), SIM_OK);
			CHECK(out.time_s > 2 * in.time_s);
			CHECK_NEAR(t[0], in.time_s + plan_p2p_overhead(s, &h[0], false), 1e-6); /* ns ticks */
			CHECK_NEAR(t[1], out.time_s + plan_p2p_overhead(s, &h[1], false), 1e-6);
		}
		plan_graph_free(g);
	}
	plan_scenario_free(s);
	const char *full[] = {"parallel.tp=8", "parallel.dp=1", "parallel.pp=2",
			      "parallel.global_batch=16", "parallel.micro_batch=1"};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", full, 5, d, &s), SIM_OK);
	if (s) {
		net_group h;
		plan_pp_pair(s, 0, 1, &h);
		CHECK(h.nodes == 2 && h.per_node == 1);
	}
	plan_scenario_free(s);
	sim_diag_free(d);
}

static void test_p2p_graph(void)
{
	for (int sync = 0; sync < 2; sync++) {
		const char *set[] = {sync ? "parallel.p2p=auto" : "parallel.p2p=async",
				     "cluster.network=alpha-beta", "parallel.p2p_scatter_gather=true"};
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		plan_graph *g = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 3, d, &s), SIM_OK);
		if (s && plan_build(s, &g) == SIM_OK) {
			CHECK(plan_p2p_sync(&s->plan) == (sync == 1));
			int sends = 0, blocking = 0, rendezvous = 0;
			for (size_t i = 0; i < g->ntasks; i++) {
				if (g->tasks[i].kind != PLAN_TASK_PP)
					continue;
				sends++;
				bool own = false, other = false;
				for (size_t e = 0; e < g->nedges; e++) {
					const plan_edge *x = &g->edges[e];
					if (x->from == i && g->tasks[x->to].rank == g->tasks[i].rank)
						own = true;
					if (x->to == i && g->tasks[x->from].rank != g->tasks[i].rank)
						other = true;
				}
				blocking += own;
				rendezvous += other;
			}
			CHECK_INT(sends, 16);
			CHECK_INT(blocking, sync ? 16 : 0);
			CHECK_INT(rendezvous, sync ? 15 : 0);
			uint32_t first = UINT32_MAX;
			for (size_t i = 0; i < g->ntasks && first == UINT32_MAX; i++)
				if (g->tasks[i].rank == 1)
					first = (uint32_t)i;
			CHECK(first != UINT32_MAX);
			if (first != UINT32_MAX) {
				plan_groups grp;
				plan_make_groups(s, &grp);
				net_cost c;
				CHECK_INT(net_collective(&s->cluster, NET_ALLGATHER, &grp.tp,
							 2048.0 * 4 * 2304 * 2, &c),
					  SIM_OK);
				CHECK_INT(g->tasks[first].kind, PLAN_TASK_TP);
				CHECK_INT(g->tasks[first].stream, PLAN_STREAM_TP);
				CHECK_INT(g->tasks[first].dur, sim_time_from_s(c.time_s));
			}
		}
		plan_graph_free(g);
		plan_scenario_free(s);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
	}
}


/* The [framework] defaults are the documented default profile: a scenario
 * without [framework] and one including topologies/frameworks/megatron-core.ini
 * read the same profile, field by field. */
static void test_framework_default(void)
{
	const char *text = "include = scenarios/quickstart.ini\n"
			   "include = topologies/frameworks/megatron-core.ini\n";
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", NULL, 0, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &b), SIM_OK);
	if (a && b) {
		const plan_framework *x = &a->fw, *y = &b->fw;
		CHECK_STR(x->name, y->name);
		CHECK_STR(x->release, y->release);
		CHECK_INT(x->sched_mask, y->sched_mask);
		CHECK_INT(x->zero_max, y->zero_max);
		CHECK_INT(x->zero_max_pp, y->zero_max_pp);
		CHECK_INT(x->tp, y->tp);
		CHECK_INT(x->cp, y->cp);
		CHECK_INT(x->ep, y->ep);
		CHECK_INT(x->tp_comm_overlap, y->tp_comm_overlap);
		CHECK_INT(x->offload_optimizer, y->offload_optimizer);
		CHECK_INT(x->offload_params, y->offload_params);
		CHECK_INT(x->hybrid_shard, y->hybrid_shard);
		CHECK_INT(x->overlap_grad_reduce, y->overlap_grad_reduce);
		CHECK_INT(x->zero2_reduce, y->zero2_reduce);
		CHECK_INT(x->zero_grad_op, y->zero_grad_op);
		CHECK_INT(x->uneven, y->uneven);
		CHECK_INT(x->vocab_multiple, y->vocab_multiple);
		CHECK_NEAR(x->op_overhead_s, y->op_overhead_s, 0);
		CHECK_INT(x->flash_impl, y->flash_impl);
		CHECK_INT(x->zero3_gathers, y->zero3_gathers);
		CHECK_INT(x->zero3_modules, y->zero3_modules);
		CHECK_INT(x->zero3_reduce, y->zero3_reduce);
		CHECK_INT(x->zero3_root, y->zero3_root);
		CHECK_NEAR(x->zero3_rank_op_s, y->zero3_rank_op_s, 0);
		CHECK_NEAR(x->grad_bucket, y->grad_bucket, 0);
		CHECK_NEAR(x->grad_bucket_per_dp, y->grad_bucket_per_dp, 0);
		CHECK_NEAR(x->grad_bucket_first, y->grad_bucket_first, 0);
		CHECK_INT(x->grad_bucket_split, y->grad_bucket_split);
		CHECK_INT(x->grad_bucket_calls, y->grad_bucket_calls);
		CHECK_INT(x->one_bucket_no_overlap, y->one_bucket_no_overlap);
		CHECK_INT(x->first_stage_buckets, y->first_stage_buckets);
		CHECK_INT(x->layer_kernels, y->layer_kernels);
		CHECK_INT(x->grad_accum, y->grad_accum);
		CHECK_INT(x->p2p_handshakes, y->p2p_handshakes);
		CHECK_INT(x->p2p_host_ops, y->p2p_host_ops);
		CHECK_INT(x->p2p_fwd_tensors, y->p2p_fwd_tensors);
		CHECK_INT(x->zero_one_bucket, y->zero_one_bucket);
		CHECK_INT(x->few_microbatches, y->few_microbatches);
		CHECK_INT(x->comm_host_op, y->comm_host_op);
		CHECK_INT(x->p2p_serial, y->p2p_serial);
		CHECK_INT(x->backward_grads, y->backward_grads);
		CHECK_INT(x->param_master, y->param_master);
		CHECK_INT(x->flat_params, y->flat_params);
		CHECK_INT(x->sp_gather_buffers, y->sp_gather_buffers);
		CHECK_INT(x->p2p_buffers, y->p2p_buffers);
		CHECK_NEAR(x->step_param_copies, y->step_param_copies, 0);
		CHECK_INT(x->comm_mask, y->comm_mask);
		CHECK_NEAR(x->workspace_bytes, y->workspace_bytes, 0);
		CHECK_INT(x->torch_workspaces, y->torch_workspaces);
		CHECK_NEAR(x->torch_workspace_bytes, y->torch_workspace_bytes, 0);
		CHECK_NEAR(x->tp_overlap_workspace_bytes, y->tp_overlap_workspace_bytes, 0);
		CHECK_INT(x->p2p_buffers, 4);
		/* the default profile pays no per-micro-batch cost beyond its
		 * kernels' launches (issue 23's keys default to Megatron-Core) */
		CHECK_INT(x->layer_kernels, WORK_LAYER_FUSED);
		CHECK_INT(x->grad_accum, PLAN_ACCUM_FUSED);
		CHECK_INT(x->p2p_handshakes + x->p2p_host_ops, 0);
		CHECK_INT(x->p2p_fwd_tensors, 1);
		CHECK(!x->zero_one_bucket && x->few_microbatches && !x->comm_host_op &&
		      !x->p2p_serial);
		CHECK_NEAR(a->gpu.framework_s, x->op_overhead_s, 0);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	sim_diag_free(d);
}

/* Megatron's vocabulary padding (plan_pad_vocab): V up to a multiple of
 * vocab_multiple x tp, ceil(V / m) m. GPT-3 on tp 8 (gpt3-175b-selene.ini,
 * megatron-core's 128): 50257 -> 51200 (50 x 1024), 943 dummy rows of h =
 * 12288 on the embedding, 943 x 12288 / 8 more weights per rank of stage 0;
 * model FLOPs count the model's 50257, the step the padded logits. */
static void test_vocab_padding(void)
{
	CHECK_INT(plan_padded_vocab(50257, 128, 1), 50304);   /* 393 x 128 */
	CHECK_INT(plan_padded_vocab(50257, 128, 4), 50688);   /* 99 x 512 */
	CHECK_INT(plan_padded_vocab(50257, 1, 8), 50264);     /* nanotron: 6283 x 8 */
	CHECK_INT(plan_padded_vocab(128256, 128, 8), 129024); /* Llama 3: 126 x 1024 */
	CHECK_INT(plan_padded_vocab(51200, 128, 8), 51200);   /* already a multiple */
	CHECK_INT(plan_padded_vocab(50257, 0, 8), 50257);     /* not padded */
	const char *off[] = {"framework.vocab_multiple=0"}, *tp4[] = {"parallel.tp=4",
								  "parallel.dp=16"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL, *c = NULL;
	CHECK_INT(plan_scenario_load("scenarios/gpt3-175b-selene.ini", NULL, 0, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/gpt3-175b-selene.ini", off, 1, d, &b), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/gpt3-175b-selene.ini", tp4, 2, d, &c), SIM_OK);
	sim_diag_print(d, stderr);
	if (a && b && c) {
		CHECK_INT(a->vocab_model, 50257);
		CHECK_INT(a->model.vocab, 51200);
		CHECK_INT(b->model.vocab, 50257);
		CHECK_INT(c->model.vocab, 50688);
		CHECK_NEAR(plan_rank_embedding(a) - plan_rank_embedding(b), 943.0 * 12288 / 8, 1e-12);
		work_model fa = plan_flops_model(a), fb = plan_flops_model(b);
		CHECK_INT(fa.vocab, 50257);
		CHECK_NEAR(work_model_flops(&fa, 1), work_model_flops(&fb, 1), 1e-15);
		char why[160] = "";
		CHECK(plan_vocab_assumption(a, why, sizeof why));
		CHECK_STR(why, "vocabulary padded to 51200 (framework megatron-core: a multiple of "
			       "128 x tp 8)");
		CHECK(!plan_vocab_assumption(b, why, sizeof why));
		/* the padded logits take longer; the same model FLOPs */
		exec_result *r = malloc(2 * sizeof *r);
		if (r && exec_run(a, &r[0]) == SIM_OK && exec_run(b, &r[1]) == SIM_OK) {
			CHECK(r[0].step_s > r[1].step_s);
			CHECK(r[0].mfu < r[1].mfu);
		}
		free(r);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
	sim_diag_free(d);
}

static int count_kind(const plan_graph *g, int rank, plan_task_kind k)
{
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		n += g->tasks[i].rank == rank && g->tasks[i].kind == k;
	return n;
}

/* ZeRO-2 under gradient accumulation. The quickstart without a pipeline (tp 2,
 * dp 8, 128 sequences of micro-batch 4: m = 4) has B gradient buckets of 40 MB.
 * A framework reducing at the boundary emits ZeRO-1's tasks under ZeRO-2:
 * B reduce-scatters and one parameter all-gather. Reducing every micro-batch
 * (DeepSpeed stage 2, Megatron-FSDP optim_grads: the default profile) emits
 * m * B reductions and the all-gather, and the step is longer: without
 * overlap each micro-batch's reduction holds the next one's forward back. */
static void test_zero2_accumulation(void)
{
	const char *base[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=1"};
	const char *z2b[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=2",
			     "framework.zero2_grad_reduce=boundary"};
	const char *z2m[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=2"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s1 = NULL, *s2 = NULL, *s3 = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", base, 3, d, &s1), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", z2b, 4, d, &s2), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", z2m, 3, d, &s3), SIM_OK);
	if (s1 && s2 && s3) {
		CHECK_INT(plan_microbatches(&s1->plan), 4);
		CHECK(!plan_grad_reduce_microbatch(s2));
		CHECK(plan_grad_reduce_microbatch(s3));
		plan_graph *g1 = NULL, *g2 = NULL, *g3 = NULL;
		CHECK_INT(plan_build(s1, &g1), SIM_OK);
		CHECK_INT(plan_build(s2, &g2), SIM_OK);
		CHECK_INT(plan_build(s3, &g3), SIM_OK);
		if (g1 && g2 && g3) {
			int n1 = count_kind(g1, 0, PLAN_TASK_DP), n3 = count_kind(g3, 0, PLAN_TASK_DP);
			CHECK_INT(count_kind(g2, 0, PLAN_TASK_DP), n1);
			CHECK_INT(n3 - 1, 4 * (n1 - 1)); /* the all-gather once, buckets m times */
		}
		plan_graph_free(g1), plan_graph_free(g2), plan_graph_free(g3);
		exec_result *r = malloc(3 * sizeof *r);
		if (r && exec_run(s1, &r[0]) == SIM_OK && exec_run(s2, &r[1]) == SIM_OK &&
		    exec_run(s3, &r[2]) == SIM_OK) {
			CHECK_NEAR(r[1].step_s, r[0].step_s, 1e-12);
			CHECK(r[2].step_s > r[0].step_s * 1.001);
			CHECK(r[2].classes[0].time_s[EXEC_CAT_DP] > r[0].classes[0].time_s[EXEC_CAT_DP]);
		}
		free(r);
	}
	plan_scenario_free(s1), plan_scenario_free(s2), plan_scenario_free(s3);
	sim_diag_free(d);
}


/* FSDP1's passes over a unit's unsharded gradient before its reduce-scatter
 * ([framework] fsdp_reduce_passes, plan_fsdp_reduce_bytes; torch 1.13.1's
 * _post_backward_hook). bf16 training, e = 2; reduce dtype r = 4 with
 * fp32_grads (Composer's DEFAULT), r = e without (PURE):
 *   fsdp1-pad, r = 4: cast e + r = 6, pad copy 2r = 8, pre-division 2r = 8: 22
 *   fsdp1,     r = 4: 6 + 8 = 14 (no copy)
 *   fsdp1-pad, r = 2: no cast, 4 + 4 = 8;  fsdp1, r = 2: 4
 * with 3, 2, 2 and 1 kernels; before them the flat gradient's assembly
 * (SplitBackward's cat) reads and writes it once, 2e = 4. The quickstart
 * under ZeRO-3 (tp 2, dp 8, its 24 layers, m = 128 / (4 x 8) = 4
 * micro-batches) gets one pass task per layer and micro-batch on the DP
 * stream, 24 x 4 = 96 more DP tasks, of hw_mem_time(P x 22) + 2 launches
 * each, P a layer's parameters per rank, and as many more backward compute
 * tasks (the assembly, hw_mem_time(P x 4)); the step grows, and nothing is
 * added under ZeRO-1 (no per-unit reduce-scatter). */
static void test_fsdp_reduce_passes(void)
{
	const char *none[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3"};
	const char *pad[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			     "framework.fsdp_reduce_passes=fsdp1-pad"};
	const char *nopad[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			       "framework.fsdp_reduce_passes=fsdp1"};
	const char *pure[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "framework.fsdp_reduce_passes=fsdp1-pad", "parallel.fp32_grads=false"};
	const char *pure1[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			       "framework.fsdp_reduce_passes=fsdp1", "parallel.fp32_grads=false"};
	const char *z1[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=1",
			    "framework.fsdp_reduce_passes=fsdp1-pad"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s[6] = {NULL};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", none, 3, d, &s[0]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", pad, 4, d, &s[1]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", nopad, 4, d, &s[2]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", pure, 5, d, &s[3]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", pure1, 5, d, &s[4]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", z1, 4, d, &s[5]), SIM_OK);
	if (s[0] && s[1] && s[2] && s[3] && s[4] && s[5]) {
		int k = -1;
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[0], &k), 0, 0);
		CHECK_INT(k, 0);
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[1], &k), 22, 1e-12);
		CHECK_INT(k, 3);
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[2], &k), 14, 1e-12);
		CHECK_INT(k, 2);
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[3], &k), 8, 1e-12);
		CHECK_INT(k, 2);
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[4], &k), 4, 1e-12);
		CHECK_INT(k, 1);
		CHECK_NEAR(plan_fsdp_reduce_bytes(s[5], &k), 0, 0);
		CHECK_NEAR(plan_fsdp_flat_grad_bytes(s[0]), 0, 0);
		CHECK_NEAR(plan_fsdp_flat_grad_bytes(s[1]), 4, 1e-12);
		CHECK_NEAR(plan_fsdp_flat_grad_bytes(s[3]), 4, 1e-12);
		CHECK_NEAR(plan_fsdp_flat_grad_bytes(s[5]), 0, 0);
		double P = work_params_layer(&s[1]->model) / 2; /* per rank at tp 2 */
		CHECK_NEAR(plan_fsdp_reduce_s(s[1], P),
			   hw_mem_time(&s[1]->gpu, 22 * P) + 2 * hw_overhead(&s[1]->gpu), 1e-12);
		CHECK_NEAR(plan_fsdp_flat_grad_s(s[1], P), hw_mem_time(&s[1]->gpu, 4 * P), 1e-12);
		CHECK_INT(plan_microbatches(&s[1]->plan), 4);
		plan_graph *g0 = NULL, *g1 = NULL;
		CHECK_INT(plan_build(s[0], &g0), SIM_OK);
		CHECK_INT(plan_build(s[1], &g1), SIM_OK);
		if (g0 && g1) {
			/* per reduce-scatter: the layers' and the ends' (their
			 * one unit under zero3_root = step), each micro-batch */
			CHECK_INT(count_kind(g1, 0, PLAN_TASK_DP) - count_kind(g0, 0, PLAN_TASK_DP),
				  (s[1]->model.layers + 1) * 4);
			CHECK_INT(count_kind(g1, 0, PLAN_TASK_BWD) - count_kind(g0, 0, PLAN_TASK_BWD),
				  (s[1]->model.layers + 1) * 4);
		}
		plan_graph_free(g0), plan_graph_free(g1);
		exec_result *r = malloc(4 * sizeof *r);
		if (r && exec_run(s[0], &r[0]) == SIM_OK && exec_run(s[1], &r[1]) == SIM_OK &&
		    exec_run(s[3], &r[2]) == SIM_OK) {
			CHECK(r[1].step_s > r[0].step_s);
			CHECK(r[1].step_s > r[2].step_s); /* 22 B per element against 8 */
		}
		free(r);
	}
	for (int i = 0; i < 6; i++)
		plan_scenario_free(s[i]);
	sim_diag_free(d);
}

/* DeepSpeed ZeRO-3's IPG buckets ([framework] zero3_reduce = bucket, emit.c
 * ipg_add; stage3.py:1258-1271 at DeepSpeed 38327e07: a tensor that would
 * take the open bucket past reduce_bucket_size elements reduces the bucket
 * first, then joins it; the epilogue reduces the rest). The quickstart
 * without a pipeline (tp 2, dp 8, 24 layers, m = 4), bf16 gradients, one
 * gradient tensor per layer (zero3_gathers = 1) of P elements (a layer's
 * parameters per rank), a bucket of 2.5 P: layers 23 and 22 fill 2 P, layer
 * 21 would make 3 P > 2.5 P, so {23, 22} is reduced and 21 opens the next;
 * buckets of two layers, the 12th, {1, 0}, still open when the backward
 * ends. The root unit's gradient R (the tied embedding, 51,200 x 2,304 / 2
 * = 1.85 P) joins then: 2 P + R > 2.5 P reduces {1, 0}, and R (< 2.5 P)
 * alone is the epilogue's bucket: 13 reduce-scatters per micro-batch, each
 * after one pass task (copy, concatenation, division), 26 DP tasks; the
 * gathers, 24 before the forwards and 24 before the backwards: 4 x (48 +
 * 26) = 296. Per unit (FSDP): 4 x (48 + 24) = 288. A bucket holding
 * everything: one reduction per micro-batch after the backward, 4 x (48 +
 * 2) = 200. A host cost per rank and tensor that no lead hides adds the
 * epilogue's host task, one compute task per micro-batch, and lengthens the
 * step. */
static void test_zero3_buckets(void)
{
	const char *base[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "parallel.fp32_grads=false", "framework.zero3_gathers=1",
			      "framework.grad_bucket_per_dp=0"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s0 = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", base, 6, d, &s0), SIM_OK);
	if (!s0) {
		sim_diag_free(d);
		return;
	}
	double P = work_params_layer(&s0->model) / 2, R = plan_rank_embedding(s0);
	CHECK(R > 0.5 * P && R < 2.5 * P); /* the derivation's premise */
	char bucket[64], host[64];
	snprintf(bucket, sizeof bucket, "framework.grad_bucket=%.0f", 2.5 * P);
	snprintf(host, sizeof host, "framework.zero3_rank_op=10ms");
	const char *unit[8], *bk[9], *all[9], *hs[10];
	for (int i = 0; i < 6; i++)
		unit[i] = bk[i] = all[i] = hs[i] = base[i];
	unit[6] = "framework.grad_bucket=1e12";
	bk[6] = all[6] = hs[6] = "framework.zero3_reduce=bucket";
	bk[7] = hs[7] = bucket;
	all[7] = "framework.grad_bucket=1e12";
	hs[8] = host;
	plan_scenario *s[4] = {NULL};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", unit, 7, d, &s[0]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", bk, 8, d, &s[1]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", all, 8, d, &s[2]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", hs, 9, d, &s[3]), SIM_OK);
	plan_graph *g[4] = {NULL};
	for (int i = 0; i < 4; i++)
		if (s[i])
			CHECK_INT(plan_build(s[i], &g[i]), SIM_OK);
	if (g[0] && g[1] && g[2] && g[3]) {
		CHECK_INT(plan_microbatches(&s[1]->plan), 4);
		/* + the ends' one gather a step (zero3_root = step), and per
		 * unit their reduce-scatter every micro-batch (in the buckets
		 * the root's gradient R below) */
		CHECK_INT(count_kind(g[0], 0, PLAN_TASK_DP), 288 + 1 + 4);
		CHECK_INT(count_kind(g[1], 0, PLAN_TASK_DP), 296 + 1);
		CHECK_INT(count_kind(g[2], 0, PLAN_TASK_DP), 200 + 1);
		CHECK_INT(count_kind(g[3], 0, PLAN_TASK_DP), 296 + 1);
		CHECK_INT(count_kind(g[3], 0, PLAN_TASK_BWD) - count_kind(g[1], 0, PLAN_TASK_BWD),
			  4);
		/* the closed form (plan_zero3_buckets) agrees: 13 buckets, the
		 * largest two layers' 2 x 2P bytes, the last the root's 2R; one
		 * bucket of 2 x (24P + R); none per unit. The graph's DP tasks
		 * are m x (48 gathers + 2 per bucket) */
		double mx, last, h;
		int n = plan_zero3_buckets(s[1], 0, &mx, &last, &h);
		CHECK_INT(n, 13);
		CHECK_NEAR(mx, 4 * P, 1e-9 * P);
		CHECK_NEAR(last, 2 * R, 1e-9 * R);
		CHECK_NEAR(h, 0, 0);
		CHECK_INT(count_kind(g[1], 0, PLAN_TASK_DP), 4 * (48 + 2 * n) + 1);
		CHECK_INT(plan_zero3_buckets(s[2], 0, &mx, &last, &h), 1);
		CHECK_NEAR(last, 2 * (24 * P + R), 1e-9 * P);
		CHECK_INT(plan_zero3_buckets(s[0], 0, &mx, &last, &h), 0);
		/* host: 10 ms x 8 ranks per tensor; the 24 layers' tensors and
		 * the root's, whatever the buckets */
		double t24 = 0;
		CHECK_INT(plan_zero3_buckets(s[3], 0, &mx, &last, &t24), 13);
		CHECK(t24 > 24 * 0.08); /* at least one tensor per layer */
	}
	exec_result *r = malloc(2 * sizeof *r);
	if (r && s[1] && s[3] && exec_run(s[1], &r[0]) == SIM_OK &&
	    exec_run(s[3], &r[1]) == SIM_OK)
		CHECK(r[1].step_s > r[0].step_s);
	free(r);
	/* zero3_reduce_calls = tensor (DeepSpeed 2021: one reduce-scatter per
	 * parameter tensor of a bucket): each of the 13 buckets is reduced in
	 * as many calls as it holds tensors (plan_zero3_bucket_list's count,
	 * rounded), so the graph's DP tasks are m x (48 gathers + the 13 pass
	 * tasks + the calls); a layer counts 9 tensors here
	 * (build_zero3_layer_tensors: one per gathered piece, 1 with
	 * zero3_gathers = 1, and the GPT layer's 4 biases and 4 norm tensors),
	 * so {23, 22} takes 18 calls; the bytes are the same */
	const char *pt[9];
	for (int i = 0; i < 8; i++)
		pt[i] = bk[i];
	pt[8] = "framework.zero3_reduce_calls=tensor";
	plan_scenario *st = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", pt, 9, d, &st), SIM_OK);
	plan_graph *gt = NULL;
	if (st && plan_build(st, &gt) == SIM_OK && gt) {
		double by[16], te[16];
		int mid = -1, n = plan_zero3_bucket_list(st, 0, by, te, 16, &mid), calls = 0;
		CHECK_INT(n, 13);
		/* the 12 buckets of two layers each, the root's last: the 11 first
		 * are closed by a layer's gradient, so reduced while layers'
		 * backwards follow; the twelfth (layers 1 and 0) by the root's,
		 * after the last layer's backward (the sweep's estimate exposes
		 * it with the root's) */
		CHECK_INT(mid, 11);
		CHECK_NEAR(te[0], 18, 1e-9);
		CHECK_INT(plan_zero3_reduce_calls(st, te[0]), 18);
		CHECK_INT(plan_zero3_reduce_calls(s[1], te[0]), 1);
		for (int i = 0; i < n && i < 16; i++)
			calls += plan_zero3_reduce_calls(st, te[i]);
		CHECK_INT(count_kind(gt, 0, PLAN_TASK_DP), 4 * (48 + n + calls) + 1);
	}
	plan_graph_free(gt);
	plan_scenario_free(st);
	for (int i = 0; i < 4; i++)
		plan_graph_free(g[i]), plan_scenario_free(s[i]);
	plan_scenario_free(s0);
	sim_diag_free(d);
}

/* DeepSpeed 2021's ZeRO-3 host work at the gathers ([framework]
 * zero3_gather_rank_op, zero3_rank_copies, zero3_sync; emit.c zero3_entry).
 * The quickstart without a pipeline (tp 2, dp 8, 24 layers, m = 128 / 8 / 4
 * = 4), Megatron's four linear modules per layer, each weight per rank
 * (3h^2/2 = 7.96e6 elements at h = 2304 and larger) over the 1e5
 * persistence threshold: 4 gathered tensors per layer. At 10 ms per rank
 * and tensor: H = 4 x 8 x 10 ms = 0.32 s per layer and pass; with
 * zero3_rank_copies each rank adds the GPU file's launch_overhead (4 us),
 * to both the gathers' and the reductions' per-rank host time. With
 * zero3_sync every layer's entry in a forward and a backward chain is one
 * host task on the compute stream, with the GPU idle: 24 x 4 more forward
 * and 24 x 4 more backward tasks, and the step grows by at least the 2 x 24
 * x 4 x 0.32 = 61.44 s they hold (the compute stream runs one task at a
 * time), and by at most one more step of the base plan (what the syncs
 * stop from overlapping: 62.58 s against 1.04 s + 61.44 s when written).
 * Without the sync the same host time is owed to the compute tasks after
 * it and only the GPU work queued ahead hides it: the host-bound step is
 * at least the 61.44 s, and shorter than with the sync (61.69 s). */
static void test_zero3_sync(void)
{
	const char *base[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "framework.zero3_modules=megatron",
			      "framework.zero3_gather_rank_op=10ms", "framework.zero3_sync=false",
			      "framework.zero3_rank_copies=false", "framework.zero3_rank_op=2ms"};
	const char *sync[8], *copies[8];
	for (int i = 0; i < 8; i++)
		sync[i] = copies[i] = base[i];
	sync[5] = "framework.zero3_sync=true";
	copies[6] = "framework.zero3_rank_copies=true";
	const char *none[4] = {base[0], base[1], base[2], base[3]};
	sim_diag *d = sim_diag_new();
	plan_scenario *s[4] = {NULL};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", none, 4, d, &s[0]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", base, 8, d, &s[1]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", sync, 8, d, &s[2]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", copies, 8, d, &s[3]), SIM_OK);
	if (s[0] && s[1] && s[2] && s[3]) {
		CHECK_INT(plan_microbatches(&s[2]->plan), 4);
		CHECK_NEAR(s[3]->gpu.launch_s, 4e-6, 1e-15);
		CHECK_NEAR(plan_zero3_gather_host_s(s[0], 0), 0, 0);
		CHECK_NEAR(plan_zero3_gather_host_s(s[2], 0), 0.32, 1e-12);
		CHECK_NEAR(plan_zero3_gather_host_s(s[3], 0), 4 * 8 * 10.004e-3, 1e-12);
		CHECK_NEAR(plan_zero3_reduce_rank_s(s[2]), 2e-3, 1e-15);
		CHECK_NEAR(plan_zero3_reduce_rank_s(s[3]), 2.004e-3, 1e-15);
		plan_graph *g[3] = {NULL};
		for (int i = 0; i < 3; i++)
			CHECK_INT(plan_build(s[i], &g[i]), SIM_OK);
		if (g[0] && g[1] && g[2]) {
			CHECK_INT(count_kind(g[1], 0, PLAN_TASK_FWD), count_kind(g[0], 0, PLAN_TASK_FWD));
			CHECK_INT(count_kind(g[2], 0, PLAN_TASK_FWD) - count_kind(g[0], 0, PLAN_TASK_FWD),
				  24 * 4);
			CHECK_INT(count_kind(g[2], 0, PLAN_TASK_BWD) - count_kind(g[0], 0, PLAN_TASK_BWD),
				  24 * 4);
		}
		for (int i = 0; i < 3; i++)
			plan_graph_free(g[i]);
		exec_result *r = malloc(3 * sizeof *r);
		if (r && exec_run(s[0], &r[0]) == SIM_OK && exec_run(s[1], &r[1]) == SIM_OK &&
		    exec_run(s[2], &r[2]) == SIM_OK) {
			CHECK(r[2].step_s >= r[0].step_s + 61.44);
			CHECK(r[2].step_s <= r[0].step_s + 61.44 + r[0].step_s);
			CHECK(r[1].step_s >= 61.44 && r[1].step_s < r[2].step_s);
		}
		free(r);
	}
	for (int i = 0; i < 4; i++)
		plan_scenario_free(s[i]);
	sim_diag_free(d);
}

/* ZeRO-3's gathers per linear module ([framework] zero3_modules,
 * work_layer_linears, plan_zero3_pieces). Analytic, weights only:
 *   GPT layer (the quickstart's megatron-1.7b: h = 2304, f = 4h = 9216,
 *   gelu, fused QKV): Hugging Face code (GPT-2's c_attn, c_proj, c_fc,
 *   c_proj) and Megatron's (query_key_value, dense, dense_h_to_4h,
 *   dense_4h_to_h) both 4 modules: 3h^2, h^2, hf, fh.
 *   Llama 3 8B layer (h = 4096, 32 heads of 128, 8 K/V heads: kv = 1024,
 *   f = 14336, swiglu): Hugging Face 7 (q_proj h^2, k_proj and v_proj
 *   h kv, o_proj h^2, gate_proj and up_proj hf, down_proj fh); Megatron
 *   4 (h (h + 2 kv), h^2, 2hf, fh); Qwen's fused c_attn (qkv_modules =
 *   1) 5.
 * Their shares of the layer's P = work_params_layer: gather w_i / P (the
 * norms and biases stay gathered: persistent under 1e5 elements); the
 * gradient shares add the rest to the first module, summing to 1. In the
 * graph (quickstart, tp 2, dp 8, ZeRO-3, per-unit reduce-scatters, m = 4):
 * the 4 modules gathered before each forward and backward of the 24
 * layers, 4 x (2 x 24 x 4 + 24) = 864 DP tasks against 4 x (48 + 24) = 288
 * with one even gather, each + 1 + 4 for the ends (zero3_root = step, the
 * default: the tied ends' one unit gathered once a step and reduce-scattered
 * every micro-batch; test_ends.c); the first layer's four gathers move bytes
 * in the ratio 3 : 1 : 4 : 4 over the NVLink ports. */
static void test_zero3_modules(void)
{
	const char *hf[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			    "framework.zero3_modules=hf", "framework.zero3_reduce=unit"};
	const char *even[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "framework.zero3_gathers=1", "framework.zero3_reduce=unit"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL, *e = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", hf, 5, d, &s), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", even, 5, d, &e), SIM_OK);
	sim_diag_free(d);
	if (!s || !e) {
		plan_scenario_free(s), plan_scenario_free(e);
		return;
	}
	double w[WORK_MAX_LINEARS], h = 2304, f = 9216;
	work_model gpt = s->model;
	CHECK_INT(gpt.hidden, 2304);
	for (int fused = 0; fused < 2; fused++) {
		CHECK_INT(work_layer_linears(&gpt, fused, w), 4);
		CHECK_NEAR(w[0], 3 * h * h, 0), CHECK_NEAR(w[1], h * h, 0);
		CHECK_NEAR(w[2], h * f, 0), CHECK_NEAR(w[3], f * h, 0);
	}
	work_model ll = gpt;
	ll.hidden = 4096, ll.heads = 32, ll.kv_heads = 8, ll.head_dim = 128, ll.ffn = 14336;
	ll.act = WORK_ACT_SWIGLU, ll.norm = WORK_NORM_RMSNORM, ll.bias = false;
	h = 4096, f = 14336;
	double kv = 1024, llama[] = {h * h, h * kv, h * kv, h * h, h * f, h * f, f * h};
	CHECK_INT(work_layer_linears(&ll, false, w), 7);
	for (int i = 0; i < 7; i++)
		CHECK_NEAR(w[i], llama[i], 0);
	CHECK_INT(work_layer_linears(&ll, true, w), 4);
	CHECK_NEAR(w[0], h * (h + 2 * kv), 0), CHECK_NEAR(w[1], h * h, 0);
	CHECK_NEAR(w[2], 2 * h * f, 0), CHECK_NEAR(w[3], f * h, 0);
	ll.qkv_modules = 1;
	CHECK_INT(work_layer_linears(&ll, false, w), 5);
	/* the plan's shares (GPT, tp 2: every module past 1e5 per rank) */
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], P = work_params_layer(&gpt);
	h = 2304, f = 9216;
	double gpt_w[] = {3 * h * h, h * h, h * f, f * h}, sum = 0;
	CHECK_INT(plan_zero3_pieces(s, ga, gr), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_NEAR(ga[i], gpt_w[i] / P, 1e-12);
		sum += gr[i];
	}
	CHECK_NEAR(sum, 1, 1e-12);
	CHECK_NEAR(gr[0], ga[0] + (P - 12 * h * h) / P, 1e-12);
	CHECK_INT(plan_zero3_pieces(e, ga, gr), 1);
	CHECK_NEAR(ga[0], 1, 0);
	plan_graph *g = NULL, *ge = NULL;
	CHECK_INT(plan_build(s, &g), SIM_OK);
	CHECK_INT(plan_build(e, &ge), SIM_OK);
	if (g && ge) {
		CHECK_INT(count_kind(g, 0, PLAN_TASK_DP), 864 + 1 + 4);
		CHECK_INT(count_kind(ge, 0, PLAN_TASK_DP), 288 + 1 + 4);
		double b[4];
		int n = 0;
		for (size_t i = 0; i < g->ntasks && n < 4; i++)
			if (g->tasks[i].rank == 0 && g->tasks[i].kind == PLAN_TASK_DP &&
			    g->tasks[i].layer >= 0)
				b[n++] = g->tasks[i].scaleup_bytes;
		if (CHECK_INT(n, 4)) {
			CHECK_NEAR(b[0] / b[1], 3, 1e-6);
			CHECK_NEAR(b[2] / b[1], 4, 1e-6);
			CHECK_NEAR(b[3] / b[1], 4, 1e-6);
		}
	}
	plan_graph_free(g), plan_graph_free(ge);
	plan_scenario_free(s), plan_scenario_free(e);
}

/* ZeRO-3's gradient wire and casts ([framework] grad_wire_dtype,
 * plan_zero3_wire_bytes / plan_zero3_cast_bytes, framework.c). The
 * quickstart without a pipeline (tp 2, dp 8, bf16, 24 layers, m = 4) under
 * ZeRO-3 with fp32_grads = true and one unit per layer:
 *   A  grads = persistent, grad_wire_dtype = grads (Megatron-FSDP: main_grad
 *      in fp32, reduced as it is): wire 4 B, no cast;
 *   B  A with grad_wire_dtype = params (DeepSpeed ZeRO-3: param.grad in
 *      bf16 reduced in communication_data_type, the model's dtype; the fp32
 *      buffer takes only the shard, zero/stage3.py:1372-1400, 1466-1492 at
 *      38327e07): wire 2 B, no cast, so every reduce-scatter moves half of
 *      A's bytes, task for task;
 *   C  grads = on-backward, wire grads (FSDP with reduce_dtype fp32 over
 *      param_dtype bf16): param.grad is bf16 (the gathered parameter's
 *      width, 2), cast before the reduce-scatter: read 2 + write 4 = 6 B per
 *      unsharded element; the shard kept in the stored parameter's dtype,
 *      bf16 under mixed without param_master: read 4 + write 2 = 6 B per
 *      shard element after;
 *   D  C with param_master (the fp32 shard is the parameter, FSDP2's
 *      orig_dtype fp32): 6 B before, nothing after (the fp32 shard is kept);
 *   E  C with fp32_grads = false (reduce_dtype None takes param_dtype):
 *      wire 2 = the gradient's dtype: nothing.
 * In C's graph each layer's reduction gains two memory-bound DP tasks per
 * micro-batch: the cast of its P/t elements (6 B each) before, the cast of
 * its P/(t dp) shard elements after, at hw_mem_time; so the DP tasks
 * that move no network bytes sum to 24 x 4 x (hw_mem_time(6 P/2) +
 * hw_mem_time(6 P/16)) and A has none. */
static void test_zero3_wire(void)
{
	/* the layers alone: the ends not moved (zero3_root = none; test_ends.c) */
	const char *base[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "parallel.fp32_grads=true", "framework.zero3_reduce=unit",
			      "framework.zero3_gathers=1", "framework.grads=persistent",
			      "framework.grad_wire_dtype=grads", "framework.param_master=false",
			      "framework.zero3_root=none"};
	const char *sets[5][10];
	for (int i = 0; i < 5; i++)
		memcpy(sets[i], base, sizeof base);
	sets[1][7] = "framework.grad_wire_dtype=params";
	sets[2][6] = sets[3][6] = sets[4][6] = "framework.grads=on-backward";
	sets[3][8] = "framework.param_master=true";
	sets[4][3] = "parallel.fp32_grads=false";
	double wire[5] = {4, 2, 4, 4, 2}, pre[5] = {0, 0, 6, 6, 0}, post[5] = {0, 0, 6, 0, 0};
	plan_scenario *s[5] = {0};
	sim_diag *d = sim_diag_new();
	for (int i = 0; i < 5; i++)
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", sets[i], 10, d, &s[i]),
			  SIM_OK);
	sim_diag_free(d);
	for (int i = 0; i < 5; i++) {
		if (!s[i])
			continue;
		CHECK_NEAR(plan_zero3_wire_bytes(s[i]), wire[i], 0);
		CHECK_NEAR(plan_zero3_cast_bytes(s[i], false), pre[i], 0);
		CHECK_NEAR(plan_zero3_cast_bytes(s[i], true), post[i], 0);
	}
	plan_graph *g[3] = {0};
	for (int i = 0; i < 3; i++)
		if (s[i])
			CHECK_INT(plan_build(s[i], &g[i]), SIM_OK);
	if (g[0] && g[1] && g[2] && s[2]) {
		/* B's reduce-scatters: half of A's, in the same order */
		int n = 0, half = 0;
		size_t j = 0;
		for (size_t i = 0; i < g[0]->ntasks; i++) {
			const plan_task *a = &g[0]->tasks[i];
			if (a->rank != 0 || a->kind != PLAN_TASK_DP || a->layer < 0)
				continue;
			while (j < g[1]->ntasks &&
			       (g[1]->tasks[j].rank != 0 || g[1]->tasks[j].kind != PLAN_TASK_DP ||
				g[1]->tasks[j].layer < 0))
				j++;
			if (j == g[1]->ntasks)
				break;
			const plan_task *b = &g[1]->tasks[j++];
			n++;
			/* gathers equal, reduce-scatters halved */
			half += fabs(b->scaleup_bytes - a->scaleup_bytes) > 0 &&
				fabs(b->scaleup_bytes - a->scaleup_bytes / 2) < 1e-6 * a->scaleup_bytes;
		}
		int m = 4, L = 24;
		CHECK_INT(n, count_kind(g[0], 0, PLAN_TASK_DP));
		CHECK_INT(half, m * L); /* one reduce-scatter per layer and micro-batch */
		/* C: the casts, one task each, 2 x 24 x 4 more DP tasks than A */
		CHECK_INT(count_kind(g[2], 0, PLAN_TASK_DP), count_kind(g[0], 0, PLAN_TASK_DP) + 2 * m * L);
		double P = work_params_layer(&s[2]->model), want = m * L *
			(hw_mem_time(&s[2]->gpu, 6 * P / 2) + hw_mem_time(&s[2]->gpu, 6 * P / 16));
		double got[2] = {0, 0};
		for (int k = 0; k < 3; k += 2)
			for (size_t i = 0; i < g[k]->ntasks; i++) {
				const plan_task *t = &g[k]->tasks[i];
				if (t->rank == 0 && t->kind == PLAN_TASK_DP && t->scaleup_bytes == 0 &&
				    t->nic_bytes == 0)
					got[k / 2] += sim_time_to_s(t->dur);
			}
		CHECK_NEAR(got[0], 0, 0);
		CHECK_NEAR(got[1], want, 1e-9 * want + 1e-12 * m * L * 2);
	}
	for (int i = 0; i < 3; i++)
		plan_graph_free(g[i]);
	for (int i = 0; i < 5; i++)
		plan_scenario_free(s[i]);
}

/* ZeRO-3 over an MoE model (plan_zero3_layer): Mixtral 8x7B (h 4096, 32
 * heads of 128, 8 KV heads, f 14336, SwiGLU, RMSNorm, 8 experts), tp 1 on
 * one DGX H100 (dp 8), the default profile (one gather per layer). Per layer:
 *   attention 4096^2 (q) + 2 x 4096 x 1024 (k, v) + 4096^2 (o) = 41,943,040,
 *   norms 2 x 4096 = 8,192, router 4096 x 8 = 32,768: 41,984,000;
 *   an expert 3 x 4096 x 14336 = 176,160,768, eight 1,409,286,144;
 *   the layer 1,451,270,144 (32 of them: 46.4B of Mixtral's 46.7B).
 * ep = 1: the experts are the layer's (FSDP's decoder-layer unit): one unit
 * of 1,451,270,144 over the shard group, nothing apart. ep = 2: the unit is
 * the 41,984,000, and the rank's 4 experts, 704,643,072, are their own unit
 * over the expert-DP group (8 / 2 = 4 ranks; torchtitan's fully_shard of
 * moe.experts on the EP mesh). Under the module split (zero3_modules = hf,
 * DeepSpeed, ep = 1) the pieces are q, k, v, o at their sizes and the MoE
 * block (router and experts, a z3 leaf) as one: 5 gathers, the block's
 * share (32,768 + 1,409,286,144) / 1,451,270,144, the norms' gradient on
 * q's. In the graph each MoE layer under ep = 2 adds, per micro-batch, two
 * gathers (forward, backward) and a reduce-scatter on the expert-DP group
 * to ep = 1's: 3 x 32 x m more DP tasks on the rank (m = 256 / 8 = 32
 * micro-batches of 1). Under ep = 8 the expert-DP group is one rank: each
 * holds its expert whole, nothing is gathered or reduced for it, and the
 * rank has ep = 1's DP tasks. */
static void test_zero3_moe(void)
{
	const char *e1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8", "parallel.ep=1",
			    "parallel.zero=3", "parallel.sequence_parallel=false",
			    "parallel.global_batch=256", "cluster.nodes=1"};
	const char *e2[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8", "parallel.ep=2",
			    "parallel.zero=3", "parallel.sequence_parallel=false",
			    "parallel.global_batch=256", "cluster.nodes=1"};
	const char *hf[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8", "parallel.ep=1",
			    "parallel.zero=3", "parallel.sequence_parallel=false",
			    "parallel.global_batch=256", "cluster.nodes=1",
			    "framework.zero3_modules=hf"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL, *c = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", e1, 8, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", e2, 8, d, &b), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", hf, 9, d, &c), SIM_OK);
	sim_diag_free(d);
	if (!a || !b || !c) {
		plan_scenario_free(a), plan_scenario_free(b), plan_scenario_free(c);
		return;
	}
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], unit, sep;
	double dense = 41984000.0, expert = 176160768.0, layer = dense + 8 * expert;
	CHECK_INT(plan_zero3_layer(a, 0, &unit, &sep, ga, gr), 1);
	CHECK_NEAR(unit, layer, 0), CHECK_NEAR(sep, 0, 0), CHECK_NEAR(ga[0], 1, 0);
	CHECK_INT(plan_zero3_layer(b, 0, &unit, &sep, ga, gr), 1);
	CHECK_NEAR(unit, dense, 0), CHECK_NEAR(sep, 4 * expert, 0);
	CHECK_INT(plan_zero3_layer(c, 0, &unit, &sep, ga, gr), 5);
	CHECK_NEAR(unit, layer, 0);
	double q = 4096.0 * 4096, kv = 4096.0 * 1024, want[] = {q, kv, kv, q};
	for (int i = 0; i < 4; i++)
		CHECK_NEAR(ga[i], want[i] / layer, 1e-15);
	CHECK_NEAR(ga[4], (32768 + 8 * expert) / layer, 1e-12);
	CHECK_NEAR(gr[0], (q + 8192) / layer, 1e-12);
	plan_groups g;
	plan_make_groups(b, &g);
	CHECK_INT(g.edp.size, 4), CHECK_INT(g.shard.size, 8);
	plan_graph *ga1 = NULL, *gb1 = NULL, *gc1 = NULL;
	CHECK_INT(plan_build(a, &ga1), SIM_OK);
	CHECK_INT(plan_build(b, &gb1), SIM_OK);
	if (ga1 && gb1)
		CHECK_INT(count_kind(gb1, 0, PLAN_TASK_DP),
			  count_kind(ga1, 0, PLAN_TASK_DP) + 3 * 32 * 32);
	b->plan.ep = 8; /* the expert-DP group: 8 / 8 = 1 rank */
	plan_make_groups(b, &g);
	CHECK_INT(g.edp.size, 1);
	CHECK_INT(plan_build(b, &gc1), SIM_OK);
	if (ga1 && gc1)
		CHECK_INT(count_kind(gc1, 0, PLAN_TASK_DP), count_kind(ga1, 0, PLAN_TASK_DP));
	plan_graph_free(ga1), plan_graph_free(gb1), plan_graph_free(gc1);
	plan_scenario_free(a), plan_scenario_free(b), plan_scenario_free(c);
}

/* FSDP MixedPrecision's shard casts and sharded accumulation ([framework]
 * fsdp_casts, plan_fsdp_gather_cast_bytes / plan_fsdp_post_reduce_bytes;
 * torch 2.6.0 _flat_param.py:1316-1330, _runtime_utils.py:897-911,
 * 1020-1045). bf16 training under the mixed policy with param_master (the
 * fp32 shard is the parameter): before each all-gather read 4, write 2 = 6
 * B per shard element; after each reduce-scatter with a bf16 reduce
 * (fp32_grads false) the cast back read 2, write 4 = 6, plus on a later
 * micro-batch the add into the saved fp32 shard read 4 + 4, write 4 = 12:
 * 18; with an fp32 reduce (the default) no cast: 0 on the first
 * micro-batch, 12 on later ones. Under pure (bf16 parameters) nothing is
 * cast: 0 before the gather, 0 / 6 after (the add in bf16: 3 x 2). The
 * quickstart under ZeRO-3 (tp 2, dp 8, 24 layers, m = 4): each micro-batch
 * gathers every layer before its forward and again before its backward,
 * 2 x 24 x 4 = 192 gathers, each after a cast task; after the 24 x 4
 * reduce-scatters 96 post tasks with the bf16 reduce, 24 x 3 = 72 (later
 * micro-batches only) with the fp32 one. Each is hw_mem_time(n x bytes), n
 * = a layer's parameters per rank (tp 2) over the shard group (8). */
static void test_fsdp_casts(void)
{
	const char *base[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "framework.param_master=true"};
	const char *c16[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			     "framework.param_master=true", "framework.fsdp_casts=true",
			     "parallel.fp32_grads=false"};
	const char *c32[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			     "framework.param_master=true", "framework.fsdp_casts=true"};
	const char *pure[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			      "framework.param_master=true", "framework.fsdp_casts=true",
			      "parallel.fp32_grads=false", "train.policy=pure"};
	const char *z1[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=1",
			    "framework.param_master=true", "framework.fsdp_casts=true"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s[5] = {NULL};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", base, 4, d, &s[0]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", c16, 6, d, &s[1]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", c32, 5, d, &s[2]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", pure, 7, d, &s[3]), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", z1, 5, d, &s[4]), SIM_OK);
	if (s[0] && s[1] && s[2] && s[3] && s[4]) {
		CHECK_NEAR(plan_fsdp_gather_cast_bytes(s[0]), 0, 0);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[0], true), 0, 0);
		CHECK_NEAR(plan_fsdp_gather_cast_bytes(s[1]), 6, 1e-12);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[1], false), 6, 1e-12);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[1], true), 18, 1e-12);
		CHECK_NEAR(plan_fsdp_gather_cast_bytes(s[2]), 6, 1e-12);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[2], false), 0, 0);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[2], true), 12, 1e-12);
		CHECK_NEAR(plan_fsdp_gather_cast_bytes(s[3]), 0, 0);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[3], false), 0, 0);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[3], true), 6, 1e-12);
		CHECK_NEAR(plan_fsdp_gather_cast_bytes(s[4]), 0, 0);
		CHECK_NEAR(plan_fsdp_post_reduce_bytes(s[4], true), 0, 0);
		double n = work_params_layer(&s[1]->model) / 2 / 8;
		CHECK_NEAR(plan_fsdp_gather_cast_s(s[1], n), hw_mem_time(&s[1]->gpu, 6 * n), 1e-12);
		CHECK_NEAR(plan_fsdp_post_reduce_s(s[1], n, true), hw_mem_time(&s[1]->gpu, 18 * n),
			   1e-12);
		CHECK_INT(plan_microbatches(&s[1]->plan), 4);
		plan_graph *g[3] = {NULL};
		for (int i = 0; i < 3; i++)
			CHECK_INT(plan_build(s[i], &g[i]), SIM_OK);
		if (g[0] && g[1] && g[2]) {
			int dp0 = count_kind(g[0], 0, PLAN_TASK_DP), l = s[0]->model.layers;
			/* the ends' one unit (zero3_root = step) alike: its one
			 * gather's cast, its reduce-scatters' casts back */
			CHECK_INT(count_kind(g[1], 0, PLAN_TASK_DP) - dp0, 2 * l * 4 + l * 4 + 1 + 4);
			CHECK_INT(count_kind(g[2], 0, PLAN_TASK_DP) - dp0, 2 * l * 4 + l * 3 + 1 + 3);
		}
		for (int i = 0; i < 3; i++)
			plan_graph_free(g[i]);
		/* the same reduce dtype (fp32) with and without the casts: more
		 * work on the DP stream, the same compute */
		exec_result *r = malloc(2 * sizeof *r);
		if (r && exec_run(s[0], &r[0]) == SIM_OK && exec_run(s[2], &r[1]) == SIM_OK) {
			CHECK(r[1].step_s > r[0].step_s);
			CHECK_NEAR(r[1].classes[0].time_s[EXEC_CAT_COMPUTE],
				   r[0].classes[0].time_s[EXEC_CAT_COMPUTE], 1e-9);
		}
		free(r);
	}
	for (int i = 0; i < 5; i++)
		plan_scenario_free(s[i]);
	sim_diag_free(d);
}

/* recompute_early_stop (plan_recompute_items; torch's non-reentrant
 * checkpoint stops at the forward's last saved tensor): full recomputation
 * re-runs a layer's forward items before its last GEMM, the MLP's down
 * projection fc2, so the recomputed FLOPs per layer and micro-batch drop by
 * fc2's 2 T h f / t (T = micro_batch x seq_len tokens) and what follows it
 * (the residual add, no FLOPs). The quickstart (tp 2, pp 2, dp 4; m = 128 /
 * (4 x 4) = 8 micro-batches): each rank of a stage recomputes its stage's
 * layers every micro-batch, so the graph's hardware FLOPs (all ranks) fall
 * by ranks / pp x layers x m x the skipped items' FLOPs; without the key
 * every forward item is recomputed. */
static void test_recompute_early_stop(void)
{
	const char *full[] = {"parallel.recompute=full"};
	const char *stop[] = {"parallel.recompute=full", "framework.recompute_early_stop=true"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", full, 1, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", stop, 2, d, &b), SIM_OK);
	if (a && b) {
		work_item it[WORK_MAX_ITEMS];
		work_shard sh = plan_shard(b);
		int n = work_layer_forward(&b->model, &sh, it);
		int k = plan_recompute_items(b, it, n);
		CHECK_INT(plan_recompute_items(a, it, n), n);
		CHECK(k < n);
		CHECK(it[k].kind == WORK_ITEM_KERNEL && it[k].kernel == WORK_KERNEL_GEMM);
		CHECK(strstr(it[k].name, "fc2") != NULL);
		for (int i = k + 1; i < n; i++) /* nothing after it is a GEMM */
			CHECK(!(it[i].kind == WORK_ITEM_KERNEL && it[i].kernel == WORK_KERNEL_GEMM));
		/* fc2: [T, f/t] x [f/t, h], 2 T h f / t FLOPs */
		double T = (double)b->plan.micro_batch * b->model.seq_len;
		CHECK_NEAR(it[k].flops, 2.0 * T * b->model.hidden * b->model.ffn / b->plan.tp, 1e-9);
		plan_graph *ga = NULL, *gb = NULL;
		CHECK_INT(plan_build(a, &ga), SIM_OK);
		CHECK_INT(plan_build(b, &gb), SIM_OK);
		if (ga && gb) {
			double ranks = (double)b->plan.tp * b->plan.pp * b->plan.dp;
			double layers = b->model.layers, m = plan_microbatches(&b->plan);
			double skipped = 0;
			for (int i = k; i < n; i++)
				skipped += it[i].flops;
			CHECK_NEAR(ga->hardware_flops - gb->hardware_flops,
				   ranks / b->plan.pp * layers * m * skipped, 1e-9);
		}
		plan_graph_free(ga), plan_graph_free(gb);
	}
	plan_scenario_free(a), plan_scenario_free(b);
	sim_diag_free(d);
}

/* Megatron's asynchronous input-gradient collective ([framework]
 * tp_dgrad_async, plan_tp_overlap): in a layer's backward the collective
 * after the QKV and FC1 dgrad GEMMs (tp_ar1/tp_ar2 without SP, tp_rs1/tp_rs2
 * with it) runs beside the wgrad GEMM after it (+1, unchunked), every other
 * collective blocks (0); `sp` keeps only the reduce-scatter async, `never`
 * none; with tp_comm_overlap the reduce-scatter is the chunked pair with its
 * dgrad (-1) instead. A pair of c and g takes max(c, g + i c) instead of
 * c + g, so the step with `always` is shorter and its exposed TP time smaller
 * than with `never`. */
static int async_of(const plan_scenario *s, const char *name, bool *beside)
{
	work_item it[WORK_MAX_ITEMS];
	work_shard sh = plan_shard(s);
	int n = work_layer_backward(&s->model, &sh, it);
	for (int i = 0; i < n; i++)
		if (!strcmp(it[i].name, name)) {
			*beside = plan_tp_beside(s, it, n, i);
			return plan_tp_overlap(s, it, n, i);
		}
	*beside = false;
	return 99; /* not in the program */
}

static void test_dgrad_async(void)
{
	const char *sets[][4] = {
		{"framework.tp_dgrad_async=always", "parallel.pp=1", "parallel.dp=8", "parallel.zero=0"},
		{"framework.tp_dgrad_async=never", "parallel.pp=1", "parallel.dp=8", "parallel.zero=0"},
		{"framework.tp_dgrad_async=sp", "parallel.pp=1", "parallel.dp=8", "parallel.zero=0"},
		{"framework.tp_dgrad_async=sp", "parallel.sequence_parallel=true", "parallel.pp=1",
		 "parallel.dp=8"},
		{"parallel.tp_comm_overlap=true", "parallel.sequence_parallel=true", "parallel.pp=1",
		 "parallel.dp=8"}};
	enum { N = 5 };
	sim_diag *d = sim_diag_new();
	plan_scenario *s[N] = {0};
	for (int k = 0; k < N; k++)
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", sets[k], 4, d, &s[k]), SIM_OK);
	if (s[0] && s[1] && s[2] && s[3] && s[4]) {
		bool b;
		CHECK_INT(async_of(s[0], "tp_ar1", &b), 1);
		CHECK(b);
		CHECK_INT(async_of(s[0], "tp_ar2", &b), 1);
		CHECK(b);
		CHECK_INT(async_of(s[0], "tp_ag1", &b), 99); /* no SP: no gathers */
		CHECK_INT(async_of(s[1], "tp_ar1", &b), 0);
		CHECK(!b);
		CHECK_INT(async_of(s[2], "tp_ar2", &b), 0);
		CHECK_INT(async_of(s[3], "tp_rs1", &b), 1);
		CHECK(b);
		CHECK_INT(async_of(s[3], "tp_rs2", &b), 1);
		CHECK_INT(async_of(s[3], "tp_ag1", &b), 0); /* the gradient's gather blocks */
		/* under tp_comm_overlap the backward's input-gradient reduce-scatter
		 * is TE's bulk overlap, beside the wgrad, unchunked (plan_ub_kind) */
		CHECK_INT(async_of(s[4], "tp_rs1", &b), 1);
		CHECK(b);
		/* the forward's pairs as TE's userbuffers run them (quickstart, tp 2):
		 * the norm output's all-gather a ring exchange, lengthened by one of
		 * 2 chunks of its GEMM (g = 4 -> 2), on all SMs; the attention
		 * projection's reduce-scatter a pipeline, lengthened by one of 4
		 * chunks (g = 4 -> 1), its GEMM leaving TE's 16 SMs to it */
		work_item it[WORK_MAX_ITEMS];
		work_shard sh = plan_shard(s[4]);
		int n = work_layer_forward(&s[4]->model, &sh, it), ag = -1, rs = -1;
		for (int i = 0; i < n; i++) {
			ag = ag < 0 && !strcmp(it[i].name, "tp_ag1") ? i : ag;
			rs = rs < 0 && !strcmp(it[i].name, "tp_rs1") ? i : rs;
		}
		if (CHECK(ag > 0 && rs > 1)) {
			CHECK_INT(plan_ub_kind(s[4], it, n, ag), PLAN_UB_RING);
			CHECK_INT(plan_tp_overlap(s[4], it, n, ag), 1);
			CHECK_NEAR(plan_ub_chunk(s[4], it, n, ag, 4.0), 2.0, 0);
			CHECK_INT(plan_ub_held(s[4], it, n, ag + 1), 0);
			CHECK_INT(plan_ub_kind(s[4], it, n, rs), PLAN_UB_PIPELINE);
			CHECK_INT(plan_tp_overlap(s[4], it, n, rs), -1);
			CHECK(!plan_tp_beside(s[4], it, n, rs));
			CHECK_NEAR(plan_ub_chunk(s[4], it, n, rs, 4.0), 1.0, 0);
			CHECK_INT(plan_ub_held(s[4], it, n, rs - 1), 16);
			CHECK(plan_ub_gemm_time(s[4], sh.dtype, it, n, rs - 1) >
			      plan_kernel_time(&s[4]->gpu, sh.dtype, &it[rs - 1]));
			/* without tp_comm_overlap: none */
			CHECK_INT(plan_ub_kind(s[3], it, n, rs), PLAN_UB_NONE);
		}
		exec_result *r = malloc(2 * sizeof *r);
		if (r && exec_run(s[0], &r[0]) == SIM_OK && exec_run(s[1], &r[1]) == SIM_OK) {
			CHECK(r[0].step_s < r[1].step_s);
			CHECK(r[0].classes[0].time_s[EXEC_CAT_TP] < r[1].classes[0].time_s[EXEC_CAT_TP]);
		}
		free(r);
	}
	for (int k = 0; k < N; k++)
		plan_scenario_free(s[k]);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* The plan string names every axis that changes the prediction: the base
 * quickstart's exact string, the 4D Llama 3 405B plan (tp8 sp cp2 pp8 vpp8,
 * the issue's example), and one override per axis, each of which must change
 * the string (before label.c, vpp = 2 printed the same string as vpp = 1). */
static void test_label(void)
{
	static const char *const axes[][3] = {
		{"parallel.vpp=2", " vpp2 ", NULL},
		{"parallel.cp=2", " cp2 ", "parallel.dp=2"}, /* tp2 cp2 pp2 dp2: 16 GPUs */
		{"parallel.zero=1", " zero1 ", NULL},
		{"parallel.offload_optimizer=cpu", " opt-offload=cpu ", "parallel.zero=1"},
		{"parallel.recompute=selective", " recompute=selective ", NULL},
		{"parallel.sequence_parallel=true", " tp2 sp ", NULL},
		{"parallel.schedule=gpipe", " gpipe ", "framework.runs_schedules=gpipe,1f1b"},
		{"train.precision=fp16", " fp16", NULL},
		{"framework.name=nemo", "nemo ", NULL},
		{"parallel.overlap_grad_reduce=true", " grad-overlap ", NULL},
		{"parallel.order=dp-tp-cp-pp", " order=dp-tp-cp-pp ", NULL},
		{"train.attention=unfused", " unfused ", NULL},
	};
	char base[PLAN_LABEL_MAX], got[PLAN_LABEL_MAX];
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", NULL, 0, d, &s), SIM_OK);
	if (s) {
		plan_label(s, base, sizeof base);
		CHECK_STR(base, "megatron-core tp2 cp1 pp2 vpp1 dp4 ep1 mb4 gb128 1f1b "
				"recompute=none zero0 bf16");
		plan_label(s, got, 8); /* truncated, terminated */
		CHECK_STR(got, "megatro");
	}
	plan_scenario_free(s);
	s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-405b-4d.ini", NULL, 0, d, &s), SIM_OK);
	if (s) {
		plan_label(s, got, sizeof got);
		CHECK_STR(got, "megatron-core tp8 sp cp2 pp8 vpp8 dp8 ep1 mb1 gb512 1f1b "
			       "recompute=none zero1 grad-overlap bf16");
	}
	plan_scenario_free(s);
	s = NULL; /* ep needs an MoE model: Mixtral runs ep 8 */
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", NULL, 0, d, &s), SIM_OK);
	if (s) {
		plan_label(s, got, sizeof got);
		CHECK(strstr(got, " dp8 ep8 ") != NULL);
	}
	plan_scenario_free(s);
	for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
		const char *set[2] = {axes[i][0], axes[i][2]};
		s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, set[1] ? 2 : 1, d, &s),
			  SIM_OK);
		if (!s)
			continue;
		plan_label(s, got, sizeof got);
		if (!strstr(got, axes[i][1]) || !strcmp(got, base))
			fprintf(stderr, "label with %s: %s\n", axes[i][0], got);
		CHECK(strstr(got, axes[i][1]) != NULL);
		CHECK(strcmp(got, base) != 0);
		plan_scenario_free(s);
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* tensor_sustain (hw.h): the loader sets the ceiling hw applies, 16-bit
 * training tensor_sustain, fp8 tensor_sustain_fp8 (tensor_sustain when 0);
 * the efficiencies stay the GPU file's (the microbenchmarks'); a sustain of
 * 1 sets no ceiling. */
static void test_sustain(void)
{
	const char *half[] = {"gpu.tensor_sustain=0.5"};
	const char *fp8[] = {"gpu.tensor_sustain=0.5", "gpu.tensor_sustain_fp8=0.8",
			     "train.precision=fp8"};
	const char *one[] = {"gpu.tensor_sustain=1"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL, *c = NULL, *e = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", NULL, 0, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", half, 1, d, &b), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", fp8, 3, d, &c), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", one, 1, d, &e), SIM_OK);
	if (a && b && c && e) {
		CHECK_NEAR(a->gpu.sustain_cap, a->gpu.tensor_sustain, 1e-12);
		CHECK_NEAR(b->gpu.sustain_cap, 0.5, 1e-12);
		CHECK_NEAR(c->gpu.sustain_cap, 0.8, 1e-12);
		CHECK_NEAR(e->gpu.sustain_cap, 0, 0);
		CHECK_NEAR(b->gpu.gemm_eff, a->gpu.gemm_eff, 1e-12);
		CHECK_NEAR(b->gpu.attn_eff[HW_FLASH_CUDNN][1], a->gpu.attn_eff[HW_FLASH_CUDNN][1], 1e-12);
	}
	plan_scenario_free(a), plan_scenario_free(b), plan_scenario_free(c), plan_scenario_free(e);
	sim_diag_free(d);
}

/* The first task predecessor of task i on the compute stream, or NULL. */
static const plan_task *compute_pred(const plan_graph *g, size_t i)
{
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].to == i && g->tasks[g->edges[e].from].stream == PLAN_STREAM_COMPUTE)
			return &g->tasks[g->edges[e].from];
	return NULL;
}

/* Megatron-Core's buckets (plan/buckets.c chunk_bucket_bytes; d98e8a64
 * training/training.py:2504-2515, distributed_data_parallel.py:160-171):
 * only the first pipeline stage's first model chunk splits at bucket_size,
 * every other chunk is one bucket, and the parameter all-gathers of
 * overlap_param_gather use the same buckets as the gradients. The
 * quickstart (tp 2, pp 2, dp 4, 24 layers: 12 per stage, m = 8, ZeRO-1 with
 * both overlaps) with bucket_size 2.5 layers' gradients (fp32: 4 B per
 * parameter of a layer's 1/tp) and buckets closing at layers' ends
 * (grad_bucket_split = layer; by tensor: test_grad_buckets_by_tensor): a
 * bucket closes once it holds 3 layers.
 *  - vpp 1: stage 0, layers 11..0, closes after 11-9, 8-6, 5-3, 2-0 (with the
 *    embedding): 4 reduce-scatters + 4 gathers + the tied embedding's
 *    all-reduce = 9 DP tasks; stage 1 one bucket: 1 + 1 + 1 = 3.
 *  - vpp 2 (6 layers a chunk): stage 0's chunk 0 splits, 5-3 and 2-0, its
 *    chunk 1 is one bucket: 3 + 3 + 1 = 7; stage 1 one bucket a chunk:
 *    2 + 2 + 1 = 5.
 * Interleaved, a chunk's buckets go out together after backward step
 * k + pipeline rank, k its last micro-batch's (schedules.py:1438-1456):
 * backward steps run in groups of pp = 2 micro-batches a chunk (chunk 1
 * mb 0-1, chunk 0 mb 0-1, ... chunk 1 mb 6-7, chunk 0 mb 6-7), so chunk 1's
 * reduce-scatter waits on stage 0 for its own mb 7 backward and on stage 1
 * for the next step, chunk 0's mb 6. */
static void test_megatron_buckets(void)
{
	const char *set[] = {"parallel.zero=1", "parallel.overlap_grad_reduce=true",
			     "parallel.overlap_param_gather=true", "parallel.fp32_grads=true",
			     "framework.first_stage_buckets=true",
			     "framework.one_bucket_no_overlap=true", "parallel.vpp=1",
			     "parallel.bucket_size=1 B", "framework.grad_bucket_split=layer"};
	sim_diag *d = sim_diag_new();
	for (int vpp = 1; vpp <= 2; vpp++) {
		char bucket[64];
		plan_scenario *s = NULL;
		set[6] = vpp == 1 ? "parallel.vpp=1" : "parallel.vpp=2";
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 9, d, &s), SIM_OK);
		if (!s)
			continue;
		double layer = work_params_layer(&s->model) / 2 * 4; /* fp32 grads, tp 2 */
		snprintf(bucket, sizeof bucket, "parallel.bucket_size=%.0f B", 2.5 * layer);
		set[7] = bucket;
		plan_scenario_free(s);
		s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 9, d, &s), SIM_OK);
		plan_graph *g = NULL;
		if (s && plan_build(s, &g) == SIM_OK) {
			CHECK_INT(plan_microbatches(&s->plan), 8);
			CHECK_INT(count(g, 0, PLAN_TASK_DP), vpp == 1 ? 9 : 7);
			CHECK_INT(count(g, 1, PLAN_TASK_DP), vpp == 1 ? 3 : 5);
			/* the first DP task with a compute predecessor on each stage:
			 * its first bucket's reduce-scatter */
			for (int r = 0; r < 2 && vpp == 2; r++)
				for (size_t i = 0; i < g->ntasks; i++) {
					const plan_task *t = &g->tasks[i], *pr;
					if (t->rank != r || t->kind != PLAN_TASK_DP ||
					    !(pr = compute_pred(g, i)))
						continue;
					CHECK_INT(pr->mb, r == 0 ? 7 : 6);
					CHECK_INT(pr->kind, PLAN_TASK_BWD);
					break;
				}
		}
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* A task's first predecessor (any stream), or NULL. */
static const plan_task *any_pred(const plan_graph *g, size_t i)
{
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].to == i)
			return &g->tasks[g->edges[e].from];
	return NULL;
}

/* plan_grad_buckets (what `podsim explain` section 5 prints) against the
 * gradient buckets plan_build emits, stage by stage, on the quickstart
 * (tp 2, pp 2, dp 4, m = 8, 12 layers a stage, ZeRO-0 all-reduces) under
 * the alpha-beta model with bucket_size 2.5 layers' fp32 gradients and
 * buckets closing at layers' ends (grad_bucket_split = layer: a bucket
 * closes once it holds 3 layers):
 *  - plain (vpp 1, no overlap, one_bucket_no_overlap): one bucket per stage
 *    (layers 0-11) after the stage's whole backward;
 *  - plain with overlap (vpp 1, first_stage_buckets off): stage 0 in 4
 *    buckets of 3 layers, each after its lowest layer's last backward
 *    (micro-batch 7), the last one at the end;
 *  - interleaved Megatron-Core (vpp 2, overlap, first_stage_buckets): stage
 *    0's chunk 1 (layers 6-11) one bucket, chunk 0 split (3-5, 0-2); stage 1
 *    one bucket a chunk. Backward steps run chunk 1 mb 0-1, chunk 0 mb 0-1,
 *    ..., chunk 1 mb 6-7, chunk 0 mb 6-7 (16 steps): chunk 1's last is step
 *    13 (0-based), chunk 0's step 15; a rank launches them after step
 *    k + rank: stage 0 after steps 13 and 15 (at the end), stage 1 chunk 1
 *    after step 14 (chunk 0 mb 6) and chunk 0 after the schedule (at the end).
 * Each bucket is one DP task on its stage, in order, holding its lowest
 * layer, lasting the all-reduce of its bytes (plan_grad_bucket_time's, as
 * explain prints it), after the task its launch names; the tied
 * embedding's all-reduce lasts plan_embedding_sync_time. */
static void test_grad_buckets(void)
{
	static const struct {
		int vpp;
		bool overlap, first;
		int n[2];                  /* buckets per stage */
		int layer[2][4];           /* each bucket's lowest layer */
		plan_bucket_launch launch; /* stage 0's */
		int step[2][4];            /* PLAN_LAUNCH_CHUNK: its step */
	} want[] = {
	        {1, false, true, {1, 1}, {{0}, {0}}, PLAN_LAUNCH_END, {{-1}, {-1}}},
	        {1, true, false, {4, 4}, {{9, 6, 3, 0}, {9, 6, 3, 0}}, PLAN_LAUNCH_LAYER,
	         {{-1, -1, -1, -1}, {-1, -1, -1, -1}}},
	        {2, true, true, {3, 2}, {{6, 3, 0}, {6, 0}}, PLAN_LAUNCH_CHUNK,
	         {{13, 15, 15}, {14, -1}}},
	};
	sim_diag *d = sim_diag_new();
	for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
		char vpp[32], ovl[48], first[48], bucket[64] = "parallel.bucket_size=1 B";
		snprintf(vpp, sizeof vpp, "parallel.vpp=%d", want[c].vpp);
		snprintf(ovl, sizeof ovl, "parallel.overlap_grad_reduce=%s",
		         want[c].overlap ? "true" : "false");
		snprintf(first, sizeof first, "framework.first_stage_buckets=%s",
		         want[c].first ? "true" : "false");
		const char *set[] = {vpp, ovl, first, "parallel.fp32_grads=true",
		                     "cluster.network=alpha-beta", bucket,
		                     "framework.grad_bucket_split=layer"};
		plan_scenario *s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 7, d, &s), SIM_OK);
		if (!s)
			continue;
		double layer = work_params_layer(&s->model) / 2 * 4; /* fp32 grads, tp 2 */
		snprintf(bucket, sizeof bucket, "parallel.bucket_size=%.0f B", 2.5 * layer);
		plan_scenario_free(s);
		s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 7, d, &s), SIM_OK);
		plan_graph *g = NULL;
		if (!s || plan_build(s, &g) != SIM_OK) {
			plan_scenario_free(s);
			continue;
		}
		plan_groups grp;
		plan_make_groups(s, &grp);
		for (int st = 0; st < 2; st++) {
			plan_grad_bucket k[13];
			int n = plan_grad_buckets(s, st, k, 13), i = 0;
			CHECK_INT(n, want[c].n[st]);
			for (size_t t = 0; t < g->ntasks && n > 0; t++) {
				const plan_task *x = &g->tasks[t];
				if (x->rank == st && x->kind == PLAN_TASK_DP && x->layer < 0)
					/* the tied embedding's sync, as explain times it */
					CHECK_INT(x->dur, sim_time_from_s(plan_embedding_sync_time(
					                          s, &grp, plan_grad_bytes(s))));
				if (x->rank != st || x->kind != PLAN_TASK_DP || x->layer < 0)
					continue; /* not a bucket: the tied embedding's sync */
				if (i >= n) {
					CHECK_INT(i, n); /* more buckets in the graph */
					break;
				}
				CHECK_INT(x->layer, k[i].layer);
				CHECK_INT(k[i].layer, want[c].layer[st][i]);
				net_cost nc;
				CHECK_INT(net_collective(&s->cluster, NET_ALLREDUCE, &grp.shard,
				                         k[i].dense_bytes, &nc),
				          SIM_OK);
				CHECK_INT(x->dur, sim_time_from_s(nc.time_s));
				/* explain's figure for it (plan_grad_bucket_time) */
				CHECK_INT(x->dur,
				          sim_time_from_s(plan_grad_bucket_time(s, &grp, &k[i])));
				const plan_task *pr = any_pred(g, t);
				CHECK(pr != NULL);
				if (st == 0)
					CHECK_INT(k[i].launch, want[c].launch);
				CHECK_INT(k[i].step, want[c].step[st][i]);
				if (pr && k[i].launch == PLAN_LAUNCH_LAYER) {
					CHECK_INT(pr->layer, k[i].layer);
					CHECK_INT(pr->mb, 7);
				}
				if (pr && k[i].launch == PLAN_LAUNCH_CHUNK) {
					/* the step's micro-batch: steps 13, 14, 15 are
					 * chunk 1 mb 7, chunk 0 mb 6, chunk 0 mb 7 */
					CHECK_INT(pr->mb, k[i].step == 14 ? 6 : 7);
					CHECK_INT(pr->layer / 6, k[i].step == 13 ? 1 : 0);
				}
				CHECK_INT(k[i].at_end, i == n - 1 || k[i].step == 15);
				i++;
			}
			CHECK_INT(i, n);
		}
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Buckets by tensor (plan/buckets.c), nanotron's DDP under ZeRO-0 on the
 * shipped scenarios/llama3-8b-efa-nanotron.ini (Llama 3 8B, tp 8, pp 1,
 * dp 16 over 16 EFA nodes, fp32 gradients): torch DDP's reducer closes a
 * bucket after the tensor that brings it to 524,288 parameters (the first,
 * 1 MiB of bf16) or 13,107,200 (25 MiB), and nanotron's fp32 hook sends
 * each tensor as its own all-reduce. Per rank (tp 8): qkv 4096 x 6144 / 8 =
 * 3,145,728; o 4096 x 4096 / 8 = 2,097,152; gate/up 4096 x 28672 / 8 =
 * 14,680,064; down 14336 x 4096 / 8 = 7,340,032; two norms of 4096; the
 * output layer 128256 x 4096 / 8 + its final norm = 65,671,168, the
 * embedding 65,667,072. In backward order (down, gate/up, norm, o, qkv,
 * norm):
 *   1  the output layer alone (past the first bucket's 524,288): 1 call;
 *   2  layer 31's down + gate/up = 22,020,096 (past 13,107,200): 2 calls;
 *   3  layer 31's norm, o, qkv, norm (5,251,072) + layer 30's down
 *      (12,591,104, short of the cap) + gate/up = 27,271,168: 6 calls,
 *      layers 30-31; and so on to layer 0's down + gate/up: buckets 3-33;
 *  34  layer 0's norm, o, qkv, norm and the embedding = 70,918,144: 5
 *      calls. A bucket is launched when its lowest layer's backward ends
 *      (podsim's approximation: torch launches one that closes inside a
 *      layer when its last tensor is ready), so 33 and 34 after the whole
 *      backward.
 * Each call is a DP task (1 + 2 + 31 x 6 + 5 = 194), one after the other;
 * a bucket's tasks last its plan_grad_bucket_time together (the alpha-beta
 * model: each call's all-reduce less its own wait for the slowest node, the
 * group's wait on its whole bytes once), less than its calls timed apart
 * on this EFA fabric. With grad_bucket_calls = bucket the same 34 buckets
 * are one call each; with grad_bucket_split = layer as well, a bucket per
 * layer (32); under ZeRO-1 nanotron all-reduces its buffer once. */
static void test_grad_buckets_by_tensor(void)
{
	sim_diag *d = sim_diag_new();
	const char *ab[] = {"cluster.network=alpha-beta", "framework.grad_bucket_calls=bucket",
			    "framework.grad_bucket_split=layer"};
	const char *z1[] = {"parallel.zero=1"};
	const double P = 4.0; /* fp32 gradient bytes */
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-efa-nanotron.ini", ab, 1, d, &s),
		  SIM_OK);
	plan_graph *g = NULL;
	if (!s || plan_build(s, &g) != SIM_OK) {
		plan_scenario_free(s);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
		CHECK(false);
		return;
	}
	int cap = plan_grad_bucket_cap(s);
	plan_grad_bucket *k = malloc((size_t)cap * sizeof *k);
	int n = k ? plan_grad_buckets(s, 0, k, cap) : 0;
	CHECK_INT(n, 34);
	if (n == 34) {
		CHECK_NEAR(k[0].dense_bytes, 65671168 * P, 0);
		CHECK_INT(k[0].ncalls, 1);
		CHECK_NEAR(k[1].dense_bytes, 22020096 * P, 0);
		CHECK_INT(k[1].ncalls, 2);
		CHECK_NEAR(k[1].calls[0], 7340032 * P, 0);
		CHECK_NEAR(k[1].calls[1], 14680064 * P, 0);
		static const double b3[] = {4096, 2097152, 3145728, 4096, 7340032, 14680064};
		for (int i = 2; i < 33; i++) {
			CHECK_NEAR(k[i].dense_bytes, 27271168 * P, 0);
			CHECK_INT(k[i].ncalls, 6);
			CHECK_INT(k[i].layer, 32 - i);
			CHECK_INT(k[i].last, 33 - i);
			for (int j = 0; j < 6 && k[i].ncalls == 6; j++)
				CHECK_NEAR(k[i].calls[j], b3[j] * P, 0);
		}
		CHECK_NEAR(k[33].dense_bytes, 70918144 * P, 0);
		CHECK_INT(k[33].ncalls, 5);
		CHECK_INT(k[33].layer, 0);
		/* launched when their lowest layer's backward ends (a bucket that
		 * closes inside a layer waits for the layer's end): the two that
		 * hold layer 0 after the whole backward */
		CHECK(k[33].at_end && k[32].at_end && !k[31].at_end);
		plan_groups grp;
		plan_make_groups(s, &grp);
		/* the graph's DP tasks, bucket by bucket */
		int b = 0, c = 0, tasks = 0;
		sim_time sum = 0;
		for (size_t t = 0; t < g->ntasks; t++) {
			const plan_task *x = &g->tasks[t];
			if (x->rank != 0 || x->kind != PLAN_TASK_DP || b >= n)
				continue;
			tasks++;
			sum += x->dur;
			if (++c < (k[b].ncalls > 0 ? k[b].ncalls : 1))
				continue;
			/* the bucket's calls together: its time (ticks rounded per task) */
			CHECK_NEAR((double)sum, (double)sim_time_from_s(plan_grad_bucket_time(s, &grp,
											&k[b])),
				   (double)k[b].ncalls);
			b++, c = 0, sum = 0;
		}
		CHECK_INT(tasks, 194);
		/* one wait for the group: less than its calls timed apart */
		double apart = 0;
		for (int j = 0; j < k[2].ncalls; j++) {
			net_cost nc;
			CHECK_INT(net_collective(&s->cluster, NET_ALLREDUCE, &grp.shard, k[2].calls[j],
						 &nc),
				  SIM_OK);
			apart += nc.time_s;
		}
		double sync = plan_call_group_wait(&s->cluster, &grp.shard, k[2].calls,
						   k[2].ncalls, 1);
		CHECK(sync < 0);
		CHECK_NEAR(plan_grad_bucket_time(s, &grp, &k[2]), apart + sync, 1e-12);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	/* the same buckets in one call each; then a bucket per layer */
	for (int set = 2; set <= 3; set++) {
		s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/llama3-8b-efa-nanotron.ini", ab, set, d, &s),
			  SIM_OK);
		int m = s && k ? plan_grad_buckets(s, 0, k, cap) : 0;
		CHECK_INT(m, set == 2 ? 34 : 32);
		for (int i = 0; i < m; i++)
			CHECK_INT(k[i].ncalls, 0);
		plan_scenario_free(s);
	}
	s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-efa-nanotron.ini", z1, 1, d, &s), SIM_OK);
	int m = s && k ? plan_grad_buckets(s, 0, k, cap) : 0;
	CHECK_INT(m, 1);
	CHECK_INT(m == 1 ? k[0].ncalls : -1, 0);
	plan_scenario_free(s);
	free(k);
	/* Megatron-Core (the default profile) closes its buckets the same way
	 * (param_and_grad_buffer.py:980-993 at d98e8a64), one collective each:
	 * the quickstart's stage 0 (GPT 1.7B, tp 2, layers 0-11 and the
	 * embedding) with overlap_grad_reduce, buckets of max(40M, 1M x dp 4) =
	 * 40,000,000 parameters. Per rank a layer's linears are fc2 and fc1
	 * 2304 x 9216 / 2 = 10,616,832 each, proj 2304 x 2304 / 2 = 2,654,208,
	 * qkv 2304 x 6912 / 2 = 7,962,624; its 8 small tensors (two LayerNorms'
	 * weights and biases, four linear biases) share 21,888 (3456 + 2304 +
	 * 4608 + 2304 + 4 x 2304): 2736 each; 31,872,384 a layer. Backward
	 * order fc2, fc1, 4 small, proj, qkv, 4 small:
	 *   1  layer 11 (31,872,384) + layer 10's fc2 = 42,489,216;
	 *   2  layer 10's rest (21,255,552) + layer 9's fc2 and fc1 = 42,489,216;
	 *   3  layer 9's rest (10,638,720) + layer 8 but its last 4 small
	 *      = 42,500,160;
	 * each later one past 40M by less than a tensor (10,616,832), the last
	 * with layer 0's rest and the embedding; together the stage's
	 * gradients. */
	const char *mc[] = {"parallel.overlap_grad_reduce=true", "parallel.fp32_grads=true"};
	s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", mc, 2, d, &s), SIM_OK);
	cap = s ? plan_grad_bucket_cap(s) : 0;
	k = cap > 0 ? malloc((size_t)cap * sizeof *k) : NULL;
	m = s && k ? plan_grad_buckets(s, 0, k, cap) : 0;
	CHECK(m > 4);
	if (s && m > 4) {
		CHECK_NEAR(plan_rank_layer(s, 0), 31872384, 0);
		CHECK_NEAR(k[0].dense_bytes, 42489216 * P, 0);
		CHECK_NEAR(k[1].dense_bytes, 42489216 * P, 0);
		CHECK_NEAR(k[2].dense_bytes, 42500160 * P, 0);
		CHECK_INT(k[0].layer, 10);
		CHECK_INT(k[0].last, 11);
		CHECK_INT(k[2].layer, 8);
		double all = 0;
		for (int i = 0; i < m; i++) {
			all += k[i].dense_bytes;
			CHECK_INT(k[i].ncalls, 0);
			if (i < m - 1)
				CHECK(k[i].dense_bytes >= 40e6 * P &&
				      k[i].dense_bytes < (40e6 + 10616832) * P);
		}
		CHECK_NEAR(all, (12 * 31872384 + plan_rank_embedding(s)) * P, 1);
	}
	plan_scenario_free(s);
	free(k);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Sequence parallelism's norm gradients (plan_norm_sync_calls), on the
 * 8B EFA nanotron scenario (tp 8 with SP, pp 1, 32 layers, RMSNorm, fp32
 * gradients): two norms a layer and the final norm, 65 tensors of h = 4096
 * values x 4 B = 16,384 B; nanotron sends them one per tensor
 * (sp_norm_sync = tensor): 65 calls; flattened (Megatron-Core): one call of
 * 65 x 16,384 = 1,064,960 B; none without SP. In the graph (alpha-beta):
 * 65 DP tasks of stage 0 outside any layer (no tied embedding on pp 1),
 * lasting plan_norm_sync_time together, the optimizer step after the last. */
static void test_norm_sync(void)
{
	sim_diag *d = sim_diag_new();
	const char *set[] = {"cluster.network=alpha-beta", "framework.sp_norm_sync=flat",
			     "parallel.sequence_parallel=false"};
	double c[PLAN_NORM_SYNC_MAX];
	for (int k = 1; k <= 3; k++) {
		plan_scenario *s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/llama3-8b-efa-nanotron.ini", set, (size_t)k,
					     d, &s),
			  SIM_OK);
		if (!s)
			continue;
		int n = plan_norm_sync_calls(s, 0, c, PLAN_NORM_SYNC_MAX);
		CHECK_INT(n, k == 1 ? 65 : k == 2 ? 1 : 0);
		if (n > 0)
			CHECK_NEAR(c[0], k == 1 ? 16384 : 1064960, 0);
		plan_graph *g = NULL;
		if (k == 1 && plan_build(s, &g) == SIM_OK) {
			plan_groups grp;
			plan_make_groups(s, &grp);
			int tasks = 0;
			sim_time sum = 0;
			size_t last = 0;
			for (size_t t = 0; t < g->ntasks; t++)
				if (g->tasks[t].rank == 0 && g->tasks[t].kind == PLAN_TASK_DP &&
				    g->tasks[t].layer < 0)
					tasks++, sum += g->tasks[t].dur, last = t;
			CHECK_INT(tasks, 65);
			CHECK_NEAR((double)sum,
				   (double)sim_time_from_s(plan_norm_sync_time(s, &grp, 0)), 65);
			bool waits = false;
			for (size_t e = 0; e < g->nedges; e++)
				waits |= g->edges[e].from == last &&
					 g->tasks[g->edges[e].to].kind == PLAN_TASK_OPTIM;
			CHECK(waits);
		}
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Megatron-LM 2020-2022 (megatron-lm.ini; megatron/model/distributed.py
 * :202-209 at e1c334b076): one all-reduce of each model chunk's whole
 * gradient buffer after the schedule. The quickstart with vpp 2 (6 layers a
 * chunk): per stage 2 buckets, layers 6-11 and 0-5, both after the whole
 * backward; no overlap_grad_reduce (runs_overlap_grad_reduce = false). */
static void test_megatron_lm_buckets(void)
{
	const char *text = "include = scenarios/quickstart.ini\n"
	                   "include = topologies/frameworks/megatron-lm.ini\n"
	                   "[parallel]\nvpp = 2\n";
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK);
	for (int st = 0; s && st < 2; st++) {
		plan_grad_bucket k[13];
		CHECK_INT(plan_grad_buckets(s, st, k, 13), 2);
		for (int i = 0; i < 2; i++) {
			CHECK_INT(k[i].layer, 6 - 6 * i);
			CHECK_INT(k[i].last, 11 - 6 * i);
			CHECK_INT(k[i].chunk, 1 - i);
			CHECK_INT(k[i].launch, PLAN_LAUNCH_END);
			CHECK_INT(k[i].at_end, true);
		}
	}
	CHECK(s && !s->fw.overlap_grad_reduce);
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* A wire narrower than the buffer (grad_wire_dtype = params over fp32
 * gradients under bf16: DeepSpeed's BF16_Optimizer, plan_grad_wire): each
 * bucket's collective carries 2 B per value instead of 4, between a cast
 * before it and a copy back after it on the DP stream, each (4 + 2) B of HBM
 * traffic per value (plan_grad_cast_bytes 12 B, half on each side). The
 * quickstart (tp 2, pp 2, dp 4, bf16) with fp32_grads and one bucket per
 * stage (bucket_size 0 falls back to the framework's; 1e12 B holds all):
 * stage 0's DP tasks for its bucket are pre-cast, all-reduce, post-cast,
 * with durations hw_mem_time(6 n), net_collective(2 n), hw_mem_time(6 n)
 * for n = the bucket's values (dense_bytes / 4); with grad_wire_dtype =
 * grads the bucket is one all-reduce of 4 n bytes. explain's figure
 * (plan_grad_bucket_time) is the three together. The tied embedding's sync
 * sends 4 B per value either way (plan_grad_bytes). */
static void test_grad_wire(void)
{
	sim_diag *d = sim_diag_new();
	for (int narrow = 0; narrow < 2; narrow++) {
		const char *set[] = {narrow ? "framework.grad_wire_dtype=params"
		                            : "framework.grad_wire_dtype=grads",
		                     "parallel.fp32_grads=true", "cluster.network=alpha-beta",
		                     "parallel.bucket_size=1e12 B", "parallel.overlap_grad_reduce=false"};
		plan_scenario *s = NULL;
		CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 5, d, &s), SIM_OK);
		plan_graph *g = NULL;
		if (!s || plan_build(s, &g) != SIM_OK) {
			plan_scenario_free(s);
			continue;
		}
		CHECK_NEAR(plan_grad_bytes(s), 4, 0);
		CHECK_NEAR(plan_grad_wire_bytes(s, 4), narrow ? 2 : 4, 0);
		CHECK_NEAR(plan_grad_cast_bytes(s), narrow ? 12 : 0, 0);
		plan_groups grp;
		plan_make_groups(s, &grp);
		plan_grad_bucket k[4];
		int n = plan_grad_buckets(s, 0, k, 4);
		CHECK_INT(n, 1);
		double values = k[0].dense_bytes / 4;
		net_cost nc;
		CHECK_INT(net_collective(&s->cluster, NET_ALLREDUCE, &grp.shard,
		                         values * (narrow ? 2 : 4), &nc),
		          SIM_OK);
		sim_time want[3] = {sim_time_from_s(hw_mem_time(&s->gpu, 6 * values)),
		                    sim_time_from_s(nc.time_s),
		                    sim_time_from_s(hw_mem_time(&s->gpu, 6 * values))};
		sim_time sum = 0;
		int i = narrow ? 0 : 1, end = narrow ? 3 : 2;
		for (size_t t = 0; t < g->ntasks; t++) {
			const plan_task *x = &g->tasks[t];
			if (x->rank != 0 || x->kind != PLAN_TASK_DP)
				continue;
			if (x->layer < 0) { /* the tied embedding's sync: the buffer's bytes */
				CHECK_INT(x->dur, sim_time_from_s(plan_embedding_sync_time(s, &grp, 4)));
				continue;
			}
			CHECK(i < end);
			if (i < end)
				CHECK_INT(x->dur, want[i]);
			i++;
			sum += x->dur;
		}
		CHECK_INT(i, end);
		/* explain's figure: the three summed before rounding */
		CHECK_NEAR((double)sum, (double)sim_time_from_s(plan_grad_bucket_time(s, &grp, &k[0])),
		           2);
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	sim_diag_free(d);
}

/* Sequence parallelism by the framework: its default where the scenario
 * leaves the key open (plan_derive; quickstart runs tp 2 under
 * Megatron-Core, whose --sequence-parallel is off unless given), again
 * after a sweep changes tp, never at tp 1 or where the framework has none;
 * stating it under a framework without it is the loader's rule error. */
static void test_sp_default(void)
{
	const char *on[] = {"framework.sequence_parallel_default=true"};
	const char *given[] = {"framework.sequence_parallel_default=true",
	                       "parallel.sequence_parallel=false"};
	const char *none[] = {"framework.sequence_parallel_default=true",
	                      "framework.runs_sequence_parallel=false"};
	const char *stated[] = {"framework.runs_sequence_parallel=false",
	                        "parallel.sequence_parallel=true"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL, *c = NULL, *e = NULL, *f = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", NULL, 0, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", on, 1, d, &b), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", given, 2, d, &c), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", none, 2, d, &e), SIM_OK);
	char buf[256];
	if (a && b && c && e) {
		CHECK_INT(a->plan.tp, 2);
		CHECK(!a->plan.sequence_parallel && !plan_sp_assumption(a, buf, sizeof buf));
		CHECK(b->plan.sequence_parallel && plan_sp_assumption(b, buf, sizeof buf));
		CHECK(strstr(buf, "framework megatron-core runs it at tp > 1") != NULL);
		CHECK(!c->plan.sequence_parallel && !plan_sp_assumption(c, buf, sizeof buf));
		CHECK(!e->plan.sequence_parallel);
		/* the sweep's fast path: tp 1, then tp 4, derived again */
		b->plan.tp = 1;
		plan_derive(b, false, false, false);
		CHECK(!b->plan.sequence_parallel);
		b->plan.tp = 4;
		plan_derive(b, false, false, false);
		CHECK(b->plan.sequence_parallel);
		c->plan.tp = 4;
		plan_derive(c, false, true, false);
		CHECK(!c->plan.sequence_parallel);
	}
	sim_diag_clear(d);
	CHECK(plan_scenario_load("scenarios/quickstart.ini", stated, 2, d, &f) != SIM_OK);
	bool rule = false;
	for (size_t i = 0; i < sim_diag_count(d); i++)
		rule = rule || strstr(sim_diag_text(d, i),
		                      "sequence parallelism: framework 'megatron-core' does not run it "
		                      "(rule runs_sequence_parallel)");
	CHECK(rule);
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(c);
	plan_scenario_free(e);
	plan_scenario_free(f);
	sim_diag_free(d);
}

/* The ZeRO stage by the framework: its default where the scenario leaves
 * the key open ([framework] zero_default: FSDP's sharding_strategy is
 * FULL_SHARD unless given, torch 1.13.1 fully_sharded_data_parallel.py:
 * 1053; metaseq's OPT launcher runs "zero2"), none at one data-parallel
 * rank (FSDP clamps to NO_SHARD, :1049-1052), at most the stage the
 * framework runs with a pipeline (metaseq: runs_zero_with_pp 0), again
 * after a sweep changes the plan; a stated stage kept, said by nothing;
 * Megatron-Core's default 0, said by nothing; NeMo's recipes' distributed
 * optimizer, 1. */
static void test_zero_default(void)
{
	static const struct {
		const char *fw, *par;
		int zero;
		const char *said; /* NULL: no assumption */
	} cases[] = {
	        {"pytorch-fsdp", "tp = 1\npp = 1\ndp = 16\n", 3,
	         "zero 3 (not given: framework pytorch-fsdp's default, zero_default 3)"},
	        {"pytorch-fsdp", "tp = 1\npp = 1\ndp = 16\nzero = 1\n", 1, NULL},
	        {"metaseq", "tp = 2\npp = 1\ndp = 8\n", 2,
	         "zero 2 (not given: framework metaseq's default, zero_default 2)"},
	        {"metaseq", "tp = 2\npp = 2\ndp = 4\n", 0,
	         "zero 0 (not given: framework metaseq's default, zero_default 2, at most "
	         "runs_zero_with_pp with a pipeline)"},
	        {"torchtitan", "tp = 2\npp = 2\ndp = 4\n", 3,
	         "zero 3 (not given: framework torchtitan's default, zero_default 3)"},
	        {"megatron-core", "tp = 2\npp = 2\ndp = 4\n", 0, NULL},
	        {"nemo", "tp = 2\npp = 2\ndp = 4\n", 1,
	         "zero 1 (not given: framework nemo's default, zero_default 1)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512], buf[256] = "";
		snprintf(text, sizeof text,
		         "include = scenarios/quickstart.ini\n"
		         "include = topologies/frameworks/%s.ini\n[parallel]\n%s",
		         cases[i].fw, cases[i].par);
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		if (CHECK_INT(plan_scenario_load_string(text, "<test>", ".", d, &s), SIM_OK)) {
			CHECK_INT(s->plan.zero, cases[i].zero);
			bool said = plan_zero_assumption(s, buf, sizeof buf);
			CHECK(said == (cases[i].said != NULL));
			if (cases[i].said)
				CHECK_STR(buf, cases[i].said);
		} else
			sim_diag_print(d, stderr);
		if (s && i == 0) { /* the sweep's fast path: dp 1, then pp 2 */
			s->plan.dp = 1;
			plan_derive(s, false, false, false);
			CHECK_INT(s->plan.zero, 0);
			CHECK(plan_zero_assumption(s, buf, sizeof buf));
			CHECK_STR(buf, "zero 0 (not given: framework pytorch-fsdp's default, "
			               "zero_default 3, but one data-parallel rank shards nothing)");
			s->plan.dp = 16;
			plan_derive(s, false, false, false);
			CHECK_INT(s->plan.zero, 3);
			plan_derive(s, false, false, true); /* given: left as it is */
			CHECK_INT(s->plan.zero, 3);
		}
		plan_scenario_free(s);
		sim_diag_free(d);
	}
}

int main(void)
{
	test_sp_default();
	test_zero_default();
	test_grad_wire();
	test_megatron_lm_buckets();
	test_grad_buckets();
	test_grad_buckets_by_tensor();
	test_norm_sync();
	test_zero3_buckets();
	test_zero3_sync();
	test_zero3_modules();
	test_zero3_wire();
	test_zero3_moe();
	test_megatron_buckets();
	test_dgrad_async();
	test_sustain();
	test_label();
	test_framework_default();
	test_vocab_padding();
	test_zero2_accumulation();
	test_fsdp_reduce_passes();
	test_fsdp_casts();
	test_recompute_early_stop();
	test_p2p_bytes();
	test_p2p_bytes_deepspeed();
	test_cp_allgather_graph();
	test_cp_ulysses_graph();
	test_selective_core_attn();
	test_distribute_saved();
	test_p2p_graph();
	test_pp_pairs();
	test_peak_closed_form();
	test_zero_memory();
	test_comm_volume();
	test_placement();
	test_cp();
	test_layout();
	test_host_bound();
	test_up_units();
	test_graph();
	test_orders();
	test_vp_groups();
	test_vp_rounds();
	test_interleaved_zb();
	test_zbv();
	test_looped_bfs();
	test_dualpipev();
	test_memory();
	return check_done();
}
