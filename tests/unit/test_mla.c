/* test_mla.c - Multi-head Latent Attention and multi-token prediction
 * (DeepSeek-V3): parameter counts and model FLOPs derived by hand against
 * the published model, the MLA layer program's GEMM FLOPs, core and
 * collectives, its saved tensors, the MTP module's work on the last stage,
 * and the pipeline split that counts the module. */
#include "../../sim/exec/exec.h"
#include "../../sim/plan/plan.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* DeepSeek-V3 (models/deepseek-v3.ini; Hugging Face deepseek-ai/DeepSeek-V3
 * config.json): h 7168, a 128, q_r 1536, k_r 512, dn 128, dr 64, dv 128, 61
 * layers (3 dense of f 18432, 58 with 256 routed experts of 2048 + 1
 * shared, top 8), V 129280, untied, RMSNorm, no biases, one MTP module. */
static work_model dsv3(void)
{
	work_model m = {.layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128, .ffn = 2048,
			 .vocab = 129280, .seq_len = 4096, .act = WORK_ACT_SWIGLU,
			 .norm = WORK_NORM_RMSNORM, .untied_embeddings = true, .moe_experts = 256,
			 .moe_topk = 8, .moe_shared_experts = 1, .moe_dense_layers = 3,
			 .dense_ffn = 18432, .moe_imbalance = 1.0, .q_lora_rank = 1536,
			 .kv_lora_rank = 512, .qk_nope_head_dim = 128, .qk_rope_head_dim = 64,
			 .v_head_dim = 128, .head_dim = 192, .mtp_layers = 1};
	return m;
}

/* Attention matmul weights (model.c's Pa):
 *   q_down  h q_r          = 7168 x 1536       =  11,010,048
 *   q_up    q_r a (dn+dr)  = 1536 x 128 x 192  =  37,748,736
 *   kv_down h (k_r + dr)   = 7168 x 576        =   4,128,768
 *   kv_up   k_r a (dn+dv)  = 512 x 128 x 256   =  16,777,216
 *   proj    a dv h         = 128 x 128 x 7168  = 117,440,512
 *                                         Pa   = 187,105,280
 * plus the latent norms' 1536 + 512 and the layer's two norms 2h.
 *   dense layer = Pa + 2,048 + 14,336 + 3 h 18432 (396,361,728) = 583,483,392
 *   MoE layer   = Pa + 2,048 + 14,336 + router h 256 (1,835,008)
 *                 + 257 experts x 3 h 2048 (44,040,192) = 11,507,286,016
 *   total       = 3 x 583,483,392 + 58 x 11,507,286,016 + 2 V h + h (final norm)
 *               = 671,026,404,352 (DeepSeek's "671B")
 *   MTP module  = 3 norms 3h + eh_proj 2h^2 (102,760,448) + one MoE layer
 *               = 11,610,067,968, which work_params_total adds. */
static void test_params(void)
{
	work_model m = dsv3();
	CHECK_NEAR(work_params_layer_at(&m, 0), 583483392.0, 0);
	CHECK_NEAR(work_params_layer_at(&m, 3), 11507286016.0, 0);
	CHECK_NEAR(work_params_mtp(&m), 11610067968.0, 0);
	CHECK_NEAR(work_params_mtp_experts(&m), 256 * 44040192.0, 0);
	CHECK_NEAR(work_params_total(&m), 671026404352.0 + 11610067968.0, 0);
	m.mtp_layers = 0;
	CHECK_NEAR(work_params_total(&m), 671026404352.0, 0);
	/* Without q_lora_rank (DeepSeek-V2-Lite) Q is one h x a(dn + dr)
	 * matrix and its latent norm goes: Pa - 11,010,048 - 37,748,736 +
	 * 7168 x 24576 (176,160,768) - 1,536. */
	double dense = work_params_layer_at(&m, 0);
	m.q_lora_rank = 0;
	CHECK_NEAR(work_params_layer_at(&m, 0),
		   dense - 11010048.0 - 37748736.0 + 176160768.0 - 1536.0, 0);
}

/* Model FLOPs per token (model.c): 6 x the matmul weights a token meets
 *   dense layers  Pa + 3 h 18432                = 583,466,496 each (x 3)
 *   MoE layers    Pa + h 256 + 9 x 44,040,192   = 585,302,016 each (x 58)
 * + the attention cores 6 s a (dn + dr + dv) = 6 x 4096 x 128 x 320 per
 * layer (61), + the logits 6 V h, + the MTP module 6 (MoE layer + 2h^2 +
 * V h) + one more core: 291,847,274,496 FLOPs per token. Megatron's own
 * count halves the cores for the causal mask (training.py:1079-1130 at
 * NVIDIA/Megatron-LM d98e8a64); with that, N10's measured 25.264 s for
 * 8192 x 4096 tokens on 1024 GPUs is 338.06 TFLOP/s per GPU, the 338 the
 * Megatron-Bridge performance summary prints for that run
 * (tests/cases/calibration.csv N10's note). */
static void test_flops(void)
{
	work_model m = dsv3();
	double att = 6.0 * 4096 * 128 * 320;
	CHECK_NEAR(work_model_flops(&m, 1.0), 291847274496.0, 1e-12);
	double tokens = 8192.0 * 4096;
	double megatron = (work_model_flops(&m, 1.0) - 0.5 * 62 * att) * tokens;
	CHECK_NEAR(megatron / 25.264 / 1024 / 1e12, 338.0, 0.001);
}

static double gemm_flops(const work_item *it, int n, const char *const *names)
{
	double f = 0;
	for (int i = 0; i < n; i++)
		for (const char *const *p = names; *p; p++)
			if (it[i].kind == WORK_ITEM_KERNEL && it[i].kernel == WORK_KERNEL_GEMM &&
			    !strcmp(it[i].name, *p))
				f += it[i].flops;
	return f;
}

static const work_item *find(const work_item *it, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(it[i].name, name))
			return &it[i];
	return NULL;
}

/* The MLA layer on one rank of tp 2 with SP, b 1, s 4096 (T = 4096, Tn =
 * 2048), bf16. The down projections run whole on the rank's Tn tokens, the
 * up projections and proj on T tokens and a/t heads: each term of Pa is
 * divided by t once, so the rank's attention GEMMs are 2 T Pa / t =
 * 2 x 4096 x 187,105,280 / 2 FLOPs forward, twice that backward. The
 * core: 2 b s^2 (a/t)(dn + dr + dv) = 2 x 4096^2 x 64 x 320 (QK^T over 192,
 * P V over 128), HBM e T (a/t)(192 + 192 + 128 + 128). Collectives
 * forward: the latents' all-gathers T q_r e, T k_r e, T dr e, no all-gather
 * of T h, and proj's reduce-scatter T h e. */
static void test_layer(void)
{
	work_model m = dsv3();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true};
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(&m, &sh, 0, f), nb = work_layer_backward_at(&m, &sh, 0, b);
	static const char *const fwd[] = {"q_down", "kv_down", "q_up", "kv_up", "proj", NULL};
	static const char *const bwd[] = {"q_down_dgrad", "q_down_wgrad", "kv_down_dgrad",
					  "kv_down_wgrad", "q_up_dgrad",  "q_up_wgrad",
					  "kv_up_dgrad",   "kv_up_wgrad", "proj_dgrad",
					  "proj_wgrad",    NULL};
	double want = 2.0 * 4096 * 187105280.0 / 2;
	CHECK_NEAR(gemm_flops(f, nf, fwd), want, 1e-12);
	CHECK_NEAR(gemm_flops(b, nb, bwd), 2 * want, 1e-12);
	const work_item *a = find(f, nf, "attn");
	CHECK(a != NULL);
	if (a) {
		CHECK_NEAR(a->flops, 2.0 * 4096 * 4096 * 64 * 320, 1e-12);
		CHECK_NEAR(a->bytes, 2.0 * 4096 * 64 * (192 + 192 + 128 + 128), 1e-12);
	}
	const work_item *q = find(f, nf, "tp_ag_q"), *kv = find(f, nf, "tp_ag_kv");
	const work_item *pe = find(f, nf, "tp_ag_pe"), *rs = find(f, nf, "tp_rs1");
	CHECK(q && kv && pe && rs && !find(f, nf, "tp_ag1"));
	if (q && kv && pe && rs) {
		CHECK_NEAR(q->comm_bytes, 4096 * 1536 * 2.0, 0);
		CHECK_NEAR(kv->comm_bytes, 4096 * 512 * 2.0, 0);
		CHECK_NEAR(pe->comm_bytes, 4096 * 64 * 2.0, 0);
		CHECK_NEAR(rs->comm_bytes, 4096 * 7168 * 2.0, 0);
	}
	/* each gather's backward: a reduce-scatter of the latent's gradient */
	CHECK(find(b, nb, "tp_rs_q") && find(b, nb, "tp_rs_kv") && find(b, nb, "tp_rs_pe"));
}

/* Saved tensors (memory.c), dense layer 0, tp 2 with SP, e = 2, per token:
 *   replicated / t: ((4e + 2) h + 2e (q_r + k_r)) / 2 = (10 x 7168 + 4 x 2048) / 2
 *   split:          e (2a (dn + dr + dv) + 2f + f) / t
 *                 = 2 (2 x 128 x 320 + 3 x 18432) / 2
 * times s b = 4096. */
static void test_memory(void)
{
	work_model m = dsv3();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true};
	double per = (10.0 * 7168 + 4.0 * 2048) / 2 + (2.0 * 128 * 320 + 3.0 * 18432);
	CHECK_NEAR(work_activation_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_NONE), 4096 * per, 1e-12);
}

/* Selective recomputation's modules (recompute.c) on the layer of
 * test_layer: by default the core alone; mla_up_proj the latent norms,
 * their gathers, the up projections and the RoPE (7 items: the RoPE key's
 * gather runs before the checkpoint); mlp a dense layer's gather, fc1,
 * activation, fc2 and reduce-scatter (bf16: no cast), nothing of an MoE
 * layer. What they leave unsaved (memory.c), dense layer 0, per token:
 * the latents' norm outputs e(q_r + k_r)/t = 2 x 2048 / 2, Q, K, V
 * e a (2 x 192 + 128)/t = 2 x 128 x 512 / 2, the MLP's e(2f + f)/t =
 * 2 x 3 x 18432 / 2. */
static void test_recompute(void)
{
	work_model m = dsv3();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true, .ep = 64};
	work_item f[WORK_MAX_ITEMS], r[WORK_MAX_ITEMS];
	int n = work_layer_forward_at(&m, &sh, 0, f);
	int nr = work_recompute_items(&m, 0, f, n, 0, r);
	CHECK_INT(nr, 1);
	CHECK_STR(r[0].name, "attn");
	CHECK_INT(work_recompute_items(&m, 0, f, n, WORK_RC_MLA_UP_PROJ, r), 7);
	CHECK_INT(work_recompute_items(&m, 0, f, n, WORK_RC_MLP, r), 5);
	CHECK_INT(work_recompute_items(&m, 0, f, n, WORK_RC_MLA_UP_PROJ | WORK_RC_MLP, r), 12);
	int nm = work_layer_forward_at(&m, &sh, 5, f);
	CHECK_INT(work_recompute_items(&m, 5, f, nm, WORK_RC_MLP, r), 0);
	unsigned mask = 0;
	char bad[32];
	CHECK_INT(work_recompute_parse("mla_up_proj, mlp", &mask, bad, sizeof bad), SIM_OK);
	CHECK_INT(mask, WORK_RC_MLA_UP_PROJ | WORK_RC_MLP);
	CHECK_INT(work_recompute_parse("mlp,moe", &mask, bad, sizeof bad), SIM_ECONF);
	CHECK_STR(bad, "moe");
	double none = work_activation_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_SELECTIVE);
	sh.recompute_modules = WORK_RC_MLA_UP_PROJ | WORK_RC_MLP;
	double sel = work_activation_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_SELECTIVE);
	CHECK_NEAR(none - sel, 4096 * (2048.0 + 128 * 512 + 3 * 18432), 1e-12);
}

/* One MTP module on the last stage (mtp.c): eh_proj's GEMM 2 T (2h)(h/t),
 * one MoE layer's forward GEMMs (the same items work_layer_forward_at
 * gives for the last layer) and the logits 2 T h (V/t); backward twice
 * each. */
static void test_mtp(void)
{
	work_model m = dsv3();
	work_shard sh = {.tp = 2, .sp = true, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16,
			 .flash = true, .ep = 64};
	work_item x[WORK_MAX_ITEMS], l[WORK_MAX_ITEMS];
	int n = work_mtp_forward(&m, &sh, x), nl = work_layer_forward_at(&m, &sh, 60, l);
	double gm = 0, gl = 0;
	for (int i = 0; i < n; i++)
		gm += x[i].kind == WORK_ITEM_KERNEL && x[i].kernel == WORK_KERNEL_GEMM ? x[i].flops
										    : 0;
	for (int i = 0; i < nl; i++)
		gl += l[i].kind == WORK_ITEM_KERNEL && l[i].kernel == WORK_KERNEL_GEMM ? l[i].flops
										    : 0;
	double T = 4096, h = 7168;
	CHECK_NEAR(gm, 2 * T * 2 * h * h / 2 + gl + 2 * T * h * 129280 / 2, 1e-12);
	/* it keeps its layer's tensors and, per token of its Tn = T/t, the
	 * two norms' inputs and the concatenation, e (h + h + 2h) */
	CHECK_NEAR(work_mtp_saved_bytes(&m, &sh, WORK_RECOMPUTE_NONE, NULL),
		   work_saved_bytes_at(&m, &sh, 60, WORK_RECOMPUTE_NONE, NULL) + 4 * 2 * T / 2 * h,
		   1e-12);
	m.mtp_layers = 0;
	CHECK_INT(work_mtp_forward(&m, &sh, x), 0);
	CHECK_INT(work_mtp_backward(&m, &sh, x), 0);
}

/* The framework's uneven rule counts the MTP module as a unit beside the
 * loss: 61 layers + E + m + L = 64 units on pp 8 x vpp 4 = 32 stages, 2
 * each: 1 layer with the embedding, 2 x 30, none beside m and L
 * (Megatron-Bridge's "Et|(tt|)*30mL"); without MTP 63 units give 0, 2 x
 * 30, 1. */
static void test_layout(void)
{
	plan_spec p = {.pp = 8, .vpp = 4, .uneven = PLAN_UNEVEN_END_STAGES, .mtp_units = 1};
	int out[32];
	CHECK(plan_layout(&p, 61, out) == NULL);
	CHECK_INT(out[0], 1);
	CHECK_INT(out[1], 2);
	CHECK_INT(out[30], 2);
	CHECK_INT(out[31], 0);
	p.mtp_units = 0;
	CHECK(plan_layout(&p, 61, out) == NULL);
	CHECK_INT(out[0], 0);
	CHECK_INT(out[31], 1);
}

/* A plan: the Mixtral scenario made MLA with an MTP module: the last
 * stage runs the module's forward and backward (more compute than without
 * it), the first stage is unchanged. */
static void test_plan(void)
{
	sim_diag *d = sim_diag_new();
	const char *mla[] = {"model.kv_heads=32",        "model.q_lora_rank=1024",
			     "model.kv_lora_rank=512",    "model.qk_nope_head_dim=128",
			     "model.qk_rope_head_dim=64", "model.v_head_dim=128",
			     "model.mtp_layers=1"};
	plan_scenario *s1 = NULL, *s0 = NULL;
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", mla, 7, d, &s1), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/mixtral-8x7b-h100.ini", mla, 6, d, &s0), SIM_OK);
	exec_result *r = malloc(2 * sizeof *r);
	bool ran = s0 && s1 && r && exec_run(s0, &r[0]) == SIM_OK && exec_run(s1, &r[1]) == SIM_OK;
	CHECK(ran);
	if (ran) {
		int last = s1->plan.pp - 1;
		const exec_class *a0 = &r[0].classes[0], *a1 = &r[1].classes[0];
		const exec_class *z0 = &r[0].classes[last], *z1 = &r[1].classes[last];
		CHECK(z1->time_s[EXEC_CAT_COMPUTE] > z0->time_s[EXEC_CAT_COMPUTE]);
		CHECK_NEAR(a1->time_s[EXEC_CAT_COMPUTE], a0->time_s[EXEC_CAT_COMPUTE], 1e-9);
		CHECK(r[1].model_flops > r[0].model_flops);
	}
	free(r);
	plan_scenario_free(s0);
	plan_scenario_free(s1);
	sim_diag_free(d);
}

int main(void)
{
	test_params();
	test_flops();
	test_layer();
	test_memory();
	test_recompute();
	test_mtp();
	test_layout();
	test_plan();
	return check_done();
}
