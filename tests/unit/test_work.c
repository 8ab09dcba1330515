/* test_work.c - analytic checks of the workload module: parameter counts of
 * published models, Megatron's FLOPs formula, the per-rank layer programs
 * (FLOPs over TP ranks, TP collectives with and without SP) and Korthikanti's
 * activation memory. Every expected number is derived in a comment. */
#include "check.h"
#include "work/work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPT-3 175B (Brown et al. 2020): l = 96, h = 12288, a = 96, V = 50257,
 * s = 2048, f = 4h, learned positions, tied output, biases, layernorm. */
static work_model gpt3(void)
{
	return (work_model){.name = "gpt3-175b", .layers = 96, .hidden = 12288, .heads = 96,
			    .kv_heads = 96, .ffn = 4 * 12288, .vocab = 50257, .seq_len = 2048,
			    .act = WORK_ACT_GELU, .norm = WORK_NORM_LAYERNORM,
			    .learned_pos = true, .bias = true};
}

/* Llama 2 7B (Touvron et al. 2023): l = 32, h = 4096, a = g = 32, f = 11008,
 * V = 32000, s = 4096, SwiGLU, RMSNorm, untied output, no biases. */
static work_model llama2_7b(void)
{
	return (work_model){.name = "llama2-7b", .layers = 32, .hidden = 4096, .heads = 32,
			    .kv_heads = 32, .ffn = 11008, .vocab = 32000, .seq_len = 4096,
			    .act = WORK_ACT_SWIGLU, .norm = WORK_NORM_RMSNORM,
			    .untied_embeddings = true, .bias = false};
}

/* Llama 2 70B: GQA with 8 kv heads, f = 28672. */
static work_model llama2_70b(void)
{
	work_model m = llama2_7b();
	m.layers = 80;
	m.hidden = 8192;
	m.heads = 64;
	m.kv_heads = 8;
	m.ffn = 28672;
	return m;
}

/* GPT-3 175B, layer = 12h^2 + 13h:
 *   12 * 12288^2 = 12 * 150,994,944 = 1,811,939,328;  13h = 159,744
 *   -> 1,812,099,072 per layer; x 96 = 173,961,510,912
 *   embedding (V + s)h = 52,305 * 12,288 = 642,723,840
 *   final layernorm 2h = 24,576
 *   total = 174,604,259,328 (~174.6e9; Megatron's formula without the final
 *   norm: 174,604,234,752).
 * Llama 2 7B, layer = 4h^2 (Q, K, V, O) + 3hf (gate, up, down) + 2h (norms)
 *   = 67,108,864 + 135,266,304 + 8,192 = 202,383,360; x 32 = 6,476,267,520
 *   embedding + output 2Vh = 262,144,000; final norm h = 4,096
 *   total = 6,738,415,616 (the released checkpoint's count).
 * Llama 2 70B, d = 128, kv = 8*128 = 1024:
 *   layer = 2h^2 + 2h*kv + 3hf + 2h = 134,217,728 + 16,777,216 + 704,643,072
 *   + 16,384 = 855,654,400; x 80 = 68,452,352,000; 2Vh = 524,288,000;
 *   + h = 8,192 -> 68,976,648,192. */
static void test_params(void)
{
	work_model g = gpt3();
	CHECK_NEAR(work_params_layer(&g), 1812099072.0, 0);
	CHECK_NEAR(work_params_embedding(&g), 642723840.0 + 0, 0);
	CHECK_NEAR(work_params_output(&g), 24576.0, 0);
	CHECK_NEAR(work_params_total(&g), 174604259328.0, 0);
	double h = 12288, l = 96, V = 50257, s = 2048;
	double megatron = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
	CHECK_NEAR(work_params_total(&g) - 2 * h, megatron, 1e-12);

	work_model m = llama2_7b();
	CHECK_NEAR(work_params_layer(&m), 202383360.0, 0);
	CHECK_NEAR(work_params_total(&m), 6738415616.0, 0);
	work_model b = llama2_70b();
	CHECK_NEAR(work_params_layer(&b), 855654400.0, 0);
	CHECK_NEAR(work_params_total(&b), 68976648192.0, 0);
	/* ffn = 0 and kv_heads = 0 mean 4h and heads in structs built in code. */
	g.ffn = 0;
	g.kv_heads = 0;
	CHECK_NEAR(work_params_total(&g), 174604259328.0, 0);
}

/* Megatron (Narayanan et al. 2021): F = 72 B s l h^2 (1 + s/6h + V/12lh) for
 * B sequences of s tokens; work_model_flops takes T = B*s tokens. Per token
 * that is 72lh^2 + 12lsh + 6Vh; for GPT-3 175B with B = 1536:
 *   72 * 96 * 12288^2 = 1.043677e12, 12 * 96 * 2048 * 12288 = 2.8991e10,
 *   6 * 50257 * 12288 = 3.7053e9 -> 1.076374e12 FLOPs per token,
 *   x 3,145,728 tokens = 3.3860e18 FLOPs per step. */
static void test_flops(void)
{
	work_model g = gpt3();
	double B = 1536, s = 2048, l = 96, h = 12288, V = 50257;
	double want = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
	CHECK_NEAR(work_model_flops(&g, B * s), want, 1e-12);
	CHECK_NEAR(work_model_flops(&g, B * s), 3.3860e18, 1e-4);
	/* Against 6 * P * D (Kaplan et al. 2020): 6 * 174.6e9 = 1.0476e12 FLOPs
	 * per token vs 1.0764e12, +2.7%: the attention's 12lsh = 2.90e10, less the
	 * 6 * (sh + 13lh + 2h) = 2.4e8 of parameters that are no matmul weights. */
	double sixpd = 6 * work_params_total(&g) * B * s;
	CHECK(work_model_flops(&g, B * s) > sixpd);
	CHECK_NEAR(work_model_flops(&g, B * s) / sixpd, 1.0275, 2e-3);
}

typedef struct sums {
	double gemm, attn, mem;
	int ar, ag, rs;
	double comm_bytes;
} sums;

static sums sum_items(const work_item *it, int n)
{
	sums x = {0};
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_COMM) {
			x.ar += it[i].comm == WORK_COMM_ALLREDUCE;
			x.ag += it[i].comm == WORK_COMM_ALLGATHER;
			x.rs += it[i].comm == WORK_COMM_REDUCESCATTER;
			x.comm_bytes += it[i].comm_bytes;
		} else if (it[i].kernel == WORK_KERNEL_GEMM) {
			/* a batched GEMM (the unfused attention's dV and dK: b x heads
			 * matrices) counts each of its matrices */
			double batch = it[i].batch > 0 ? it[i].batch : 1;
			CHECK_NEAR(it[i].flops, 2 * it[i].m * it[i].n * it[i].k * batch, 1e-12);
			x.gemm += it[i].flops;
		} else if (it[i].kernel == WORK_KERNEL_ATTN) {
			x.attn += it[i].flops;
		} else {
			x.mem += it[i].bytes;
		}
	}
	return x;
}

static const work_item *find(const work_item *it, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(it[i].name, name) == 0)
			return &it[i];
	return NULL;
}

/* Forward GEMMs of a GPT layer over all t ranks (Korthikanti et al. 2022,
 * section 6; Narayanan et al. 2021, appendix): QKV 6bsh^2, proj 2bsh^2,
 * fc1 8bsh^2, fc2 8bsh^2 = 24bsh^2; attention QK^T + scores x V = 4bs^2h.
 * Backward: dgrad + wgrad = 2x, attention 2x. Example: GPT-3 layer with b = 1,
 * s = 2048: 24 * 2048 * 12288^2 = 7.4217e12 FLOPs, attention
 * 4 * 2048^2 * 12288 = 2.0616e11 FLOPs. */
static void test_layer_flops(void)
{
	work_model g = gpt3();
	double b = 2, s = 2048, h = 12288;
	int tps[] = {1, 2, 8};
	for (int i = 0; i < 3; i++) {
		int t = tps[i];
		work_shard sh = {t, false, 2, 2048, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		work_item f[WORK_MAX_ITEMS], w[WORK_MAX_ITEMS];
		sums fs = sum_items(f, work_layer_forward(&g, &sh, f));
		sums bs = sum_items(w, work_layer_backward(&g, &sh, w));
		CHECK_NEAR(fs.gemm * t, 24 * b * s * h * h, 1e-12);
		CHECK_NEAR(fs.attn * t, 4 * b * s * s * h, 1e-12);
		CHECK_NEAR(bs.gemm, 2 * fs.gemm, 1e-12);
		CHECK_NEAR(bs.attn, 2 * fs.attn, 1e-12);
		CHECK(fs.mem > 0 && bs.mem > 1.9 * fs.mem);
	}
	/* Shapes at t = 8: qkv [T, h] x [h, 3h/8], proj [T, h/8] x [h/8, h];
	 * backward of proj: dgrad [T, h] x [h, h/8], wgrad [h/8, T] x [T, h]. */
	work_shard sh = {8, false, 2, 2048, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	work_item f[WORK_MAX_ITEMS], w[WORK_MAX_ITEMS];
	int nf = work_layer_forward(&g, &sh, f), nb = work_layer_backward(&g, &sh, w);
	const work_item *q = find(f, nf, "qkv"), *dg = find(w, nb, "proj_dgrad"),
			*wg = find(w, nb, "proj_wgrad");
	CHECK(q && dg && wg && find(f, nf, "attn") && find(f, nf, "act") && find(f, nf, "ln1"));
	if (q && dg && wg) {
		CHECK(q->m == b * s && q->n == 3 * h / 8 && q->k == h);
		CHECK(dg->m == b * s && dg->n == h / 8 && dg->k == h);
		CHECK(wg->m == h / 8 && wg->n == h && wg->k == b * s);
	}
}

/* The layer, embedding and head programs together, fwd + bwd, summed over the
 * TP ranks and the layers, are the model FLOPs: 3 x (forward per layer) x l +
 * 3 x logits (2TVh). Holds for GQA + SwiGLU (Llama 2 70B, t = 8 = g). */
static void test_programs_match_model_flops(void)
{
	work_model ms[] = {gpt3(), llama2_70b()};
	for (int i = 0; i < 2; i++) {
		work_model *m = &ms[i];
		work_shard sh = {8, true, 1, m->seq_len, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		work_item it[WORK_MAX_ITEMS];
		double total = 0;
		total += m->layers * sum_items(it, work_layer_forward(m, &sh, it)).gemm;
		total += m->layers * sum_items(it, work_layer_forward(m, &sh, it)).attn;
		total += m->layers * sum_items(it, work_layer_backward(m, &sh, it)).gemm;
		total += m->layers * sum_items(it, work_layer_backward(m, &sh, it)).attn;
		total += sum_items(it, work_head_forward(m, &sh, it)).gemm;
		total += sum_items(it, work_head_backward(m, &sh, it)).gemm;
		total += sum_items(it, work_embed_forward(m, &sh, it)).gemm;
		total += sum_items(it, work_embed_backward(m, &sh, it)).gemm;
		CHECK_NEAR(total * sh.tp, work_model_flops(m, (double)m->seq_len), 1e-12);
	}
}

/* TP collectives (Korthikanti et al. 2022, figure 5): without SP two
 * all-reduces of b*s*h*e per layer forward (after proj and fc2) and two in
 * backward (after the qkv and fc1 input gradients); with SP each becomes an
 * all-gather + a reduce-scatter of the same full buffer. GPT-3, b = 1,
 * s = 2048, bf16: b*s*h*2 = 2048 * 12288 * 2 = 50,331,648 bytes each.
 * With t = 1 there are none. */
static void test_tp_comm(void)
{
	work_model g = gpt3();
	double buf = 2048.0 * 12288 * 2;
	work_item it[WORK_MAX_ITEMS];
	for (int sp = 0; sp < 2; sp++) {
		work_shard one = {1, sp, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		sums a = sum_items(it, work_layer_forward(&g, &one, it));
		sums b = sum_items(it, work_layer_backward(&g, &one, it));
		sums e = sum_items(it, work_embed_forward(&g, &one, it));
		sums h = sum_items(it, work_head_forward(&g, &one, it));
		CHECK_INT(a.ar + a.ag + a.rs + b.ar + b.ag + b.rs, 0);
		CHECK_INT(e.ar + e.ag + e.rs + h.ar + h.ag + h.rs, 0);
	}
	work_shard nosp = {8, false, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	int nf = work_layer_forward(&g, &nosp, it);
	sums a = sum_items(it, nf);
	CHECK_INT(a.ar, 2);
	CHECK_INT(a.ag + a.rs, 0);
	CHECK_NEAR(a.comm_bytes, 2 * buf, 1e-12);
	CHECK(find(it, nf, "tp_ar1") && find(it, nf, "tp_ar2"));
	sums b = sum_items(it, work_layer_backward(&g, &nosp, it));
	CHECK_INT(b.ar, 2);
	CHECK_NEAR(b.comm_bytes, 2 * buf, 1e-12);

	work_shard sp = {8, true, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	nf = work_layer_forward(&g, &sp, it);
	a = sum_items(it, nf);
	CHECK_INT(a.ar, 0);
	CHECK_INT(a.ag, 2);
	CHECK_INT(a.rs, 2);
	CHECK_NEAR(a.comm_bytes, 4 * buf, 1e-12);
	/* All-gather right before the column-parallel GEMMs. */
	for (int i = 1; i < nf; i++)
		if (!strcmp(it[i].name, "qkv") || !strcmp(it[i].name, "fc1"))
			CHECK(it[i - 1].kind == WORK_ITEM_COMM &&
			      it[i - 1].comm == WORK_COMM_ALLGATHER);
	b = sum_items(it, work_layer_backward(&g, &sp, it));
	CHECK_INT(b.ar, 0);
	CHECK_INT(b.ag, 2);
	CHECK_INT(b.rs, 2);
	/* Embedding: one all-reduce of T*h*e (reduce-scatter with SP); head: three
	 * small fp32 all-reduces of T values plus, in backward, the logits input
	 * gradient's all-reduce. */
	sums e = sum_items(it, work_embed_forward(&g, &nosp, it));
	CHECK(e.ar == 1 && e.comm_bytes == buf);
	sums h = sum_items(it, work_head_forward(&g, &nosp, it));
	CHECK(h.ar == 3 && h.comm_bytes == 3 * 2048.0 * 4);
	h = sum_items(it, work_head_backward(&g, &nosp, it));
	CHECK(h.ar == 1 && h.comm_bytes == buf);
}

/* Korthikanti et al. 2022, table 2, bytes per layer (16-bit activations):
 *   none, no SP:  sbh(10 + 24/t + 5as/(ht))   -> t = 1: sbh(34 + 5as/h)
 *   none, SP:     sbh(34/t + 5as/(ht))
 *   selective:    sbh(10 + 24/t), SP: sbh*34/t
 *   full:         2sbh (2sbh/t with SP).
 * GPT-3, s = 2048, b = 1, h = 12288, a = 96: sbh = 25,165,824; 5as/h = 80;
 * t = 1 no recompute: 25,165,824 * 114 = 2,868,903,936 bytes. */
static void test_activations(void)
{
	work_model g = gpt3();
	double s = 2048, b = 1, h = 12288, a = 96, sbh = s * b * h;
	work_shard one = {1, false, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	CHECK_NEAR(work_activation_bytes(&g, &one, WORK_RECOMPUTE_NONE), sbh * (34 + 5 * a * s / h),
		   1e-12);
	CHECK_NEAR(work_activation_bytes(&g, &one, WORK_RECOMPUTE_NONE), 2868903936.0, 1e-12);
	CHECK_NEAR(work_activation_bytes(&g, &one, WORK_RECOMPUTE_SELECTIVE), sbh * 34, 1e-12);
	CHECK_NEAR(work_activation_bytes(&g, &one, WORK_RECOMPUTE_FULL), 2 * sbh, 1e-12);
	for (int t = 2; t <= 8; t *= 2) {
		work_shard n = {t, false, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false}, p = {t, true, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		double sc = 5 * a * s / (h * t);
		CHECK_NEAR(work_activation_bytes(&g, &n, WORK_RECOMPUTE_NONE),
			   sbh * (10 + 24.0 / t + sc), 1e-12);
		CHECK_NEAR(work_activation_bytes(&g, &p, WORK_RECOMPUTE_NONE),
			   sbh * (34.0 / t + sc), 1e-12);
		CHECK_NEAR(work_activation_bytes(&g, &n, WORK_RECOMPUTE_SELECTIVE),
			   sbh * (10 + 24.0 / t), 1e-12);
		CHECK_NEAR(work_activation_bytes(&g, &p, WORK_RECOMPUTE_SELECTIVE), sbh * 34.0 / t,
			   1e-12);
		CHECK_NEAR(work_activation_bytes(&g, &n, WORK_RECOMPUTE_FULL), 2 * sbh, 1e-12);
		CHECK_NEAR(work_activation_bytes(&g, &p, WORK_RECOMPUTE_FULL), 2 * sbh / t, 1e-12);
	}
	/* Llama 2 70B (h = 8192, kv = 1024, f = 28672, a = 64), t = 8 = g, SP,
	 * selective: per token e(2h + 2kv + 3f)/t + (4e + 2)h/t with e = 2
	 *   = (2 * (16384 + 2048 + 86016) + 10 * 8192) / 8 = (208896 + 81920) / 8
	 *   = 36352 bytes; x s*b = 4096 -> 148,897,792 bytes. */
	work_model m = llama2_70b();
	work_shard p = {8, true, 1, 4096, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	CHECK_NEAR(work_activation_bytes(&m, &p, WORK_RECOMPUTE_SELECTIVE), 148897792.0, 1e-12);
	/* Pipeline send: s*b*h*e = 4096 * 8192 * 2 / 8 with SP. */
	CHECK_NEAR(work_p2p_bytes(&m, &p), 4096.0 * 8192 * 2 / 8, 1e-12);
	/* fp8 (Transformer Engine): three saved GEMM inputs take 1 byte, not 2
	 * (memory.c gemm_in_bytes): ln1's and ln2's outputs (h each, replicated,
	 * /t with SP) and the activation's output (f, split): per token
	 * (2h + f)/t = (16384 + 28672) / 8 = 5632 bytes less; x 4096 tokens =
	 * 23,068,672. The attention output O (q = 8192) stays 16-bit
	 * (proj_in_bytes) under tensorwise scaling. Under delayed scaling the
	 * output projection keeps a 1-byte copy instead: beside the attention's
	 * own O without recomputation, q/t = 1024 bytes a token more (4,194,304
	 * over 4096 tokens), and alone when the core attention is recomputed
	 * (selective), 1024 less than 16-bit O: 27,262,976 less than bf16 in all.
	 * The p2p stays 16-bit. */
	work_shard p8 = p;
	p8.dtype = HW_FP8;
	CHECK_NEAR(work_activation_bytes(&m, &p8, WORK_RECOMPUTE_SELECTIVE),
		   148897792.0 - 23068672.0, 1e-12);
	double cs = work_activation_bytes(&m, &p8, WORK_RECOMPUTE_NONE);
	p8.fp8_delayed = true;
	CHECK_NEAR(work_activation_bytes(&m, &p8, WORK_RECOMPUTE_SELECTIVE),
		   148897792.0 - 27262976.0, 1e-12);
	CHECK_NEAR(work_activation_bytes(&m, &p8, WORK_RECOMPUTE_NONE) - cs, 4194304.0, 1e-12);
	p.fp8_delayed = true; /* only fp8 has a recipe */
	CHECK_NEAR(work_activation_bytes(&m, &p, WORK_RECOMPUTE_SELECTIVE), 148897792.0, 1e-12);
	CHECK_NEAR(work_p2p_bytes(&m, &p8), 4096.0 * 8192 * 2 / 8, 1e-12);
}

/* A shipped model file through conf_load + work_model_from_conf. */
static void test_model_file(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	work_model m;
	int rc = conf_load(PODSIM_SRCDIR "/models/gpt3-175b.ini", d, &doc);
	CHECK_INT(rc, SIM_OK);
	if (rc == SIM_OK) {
		CHECK_INT(work_model_from_conf(doc, &m, d), SIM_OK);
		CHECK_INT(m.layers, 96);
		CHECK_INT(m.ffn, 4 * 12288);
		CHECK_INT(m.kv_heads, 96);
		CHECK(m.learned_pos && m.bias && !m.untied_embeddings);
		CHECK_NEAR(work_params_total(&m), 174604259328.0, 0);
		conf_free(doc);
	}
	doc = NULL;
	rc = conf_load(PODSIM_SRCDIR "/models/llama2-7b.ini", d, &doc);
	CHECK_INT(rc, SIM_OK);
	if (rc == SIM_OK) {
		CHECK_INT(work_model_from_conf(doc, &m, d), SIM_OK);
		CHECK(m.act == WORK_ACT_SWIGLU && m.norm == WORK_NORM_RMSNORM);
		CHECK_NEAR(work_params_total(&m), 6738415616.0, 0);
		conf_free(doc);
	}
	/* tiny.ini leaves kv_heads and ffn out: they default to heads and 4h. */
	doc = NULL;
	rc = conf_load(PODSIM_SRCDIR "/models/tiny.ini", d, &doc);
	CHECK_INT(rc, SIM_OK);
	if (rc == SIM_OK) {
		CHECK_INT(work_model_from_conf(doc, &m, d), SIM_OK);
		CHECK_INT(m.kv_heads, 4);
		CHECK_INT(m.ffn, 1024);
		CHECK(m.act == WORK_ACT_GELU && m.norm == WORK_NORM_LAYERNORM && m.bias);
		conf_free(doc);
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* models/NAME.ini read into *m; false (and the diagnostics printed, a
 * failed check) when it does not load. */
static bool shipped_model(const char *name, work_model *m)
{
	char path[512];
	snprintf(path, sizeof path, "%s/models/%s.ini", PODSIM_SRCDIR, name);
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	bool ok = conf_load(path, d, &doc) == SIM_OK && work_model_from_conf(doc, m, d) == SIM_OK;
	if (!CHECK(ok))
		sim_diag_print(d, stderr);
	conf_free(doc);
	sim_diag_free(d);
	return ok;
}

/* Every shipped model loads; the Megatron weak-scaling shapes give the
 * parameter counts of Narayanan et al. 2021, table 1, to its rounding (the
 * 1.7B row: l(12h^2 + 13h) + (V + s)h + 2h = 1.65e9, printed as 1.7), and the
 * Llama files the released checkpoints' counts (computed as in test_params:
 * 13,015,864,320; 8,030,261,248; 70,553,706,496; 405,853,388,800). */
static void test_shipped_models(void)
{
	static const struct {
		const char *file;
		double params, rel;
	} cases[] = {
		{"megatron-1.7b", 1.7e9, 0.04},	     {"megatron-3.6b", 3.6e9, 0.015},
		{"megatron-7.5b", 7.5e9, 0.005},     {"megatron-18.4b", 18.4e9, 0.005},
		{"megatron-39.1b", 39.1e9, 0.002},   {"megatron-76.1b", 76.1e9, 0.002},
		{"megatron-145.6b", 145.6e9, 0.002}, {"megatron-310.1b", 310.1e9, 0.002},
		{"megatron-529.6b", 529.6e9, 0.002}, {"megatron-1008b", 1008e9, 0.002},
		{"llama2-13b", 13015864320.0, 0},    {"llama2-70b", 68976648192.0, 0},
		{"llama3-8b", 8030261248.0, 0},	     {"llama3-70b", 70553706496.0, 0},
		{"llama3-405b", 405853388800.0, 0},  {"gpt-175b-vtrain", 174604259328.0, 0},
		{"tiny", 3454464.0, 0},
		/* Llama 3.1's files are Llama 3's architecture (include) */
		{"llama3.1-8b", 8030261248.0, 0},    {"llama3.1-70b", 70553706496.0, 0},
		{"llama3.1-405b", 405853388800.0, 0},
		/* l (2h^2 + 2h g d + 3hf + 2h) + V h + h, tied: 3,212,749,824 */
		{"llama3.2-3b", 3212749824.0, 0},
		/* BLOOM's model card 176,247,271,424 less its embedding
		 * LayerNorm's 2h = 28,672, which podsim does not carry; OPT's
		 * paper "175B" (GPT-3's shape, its padded 50,272 vocabulary) */
		{"bloom-176b", 176247242752.0, 0},   {"opt-175b", 175e9, 0.003},
		/* the first LLaMA: l (4h^2 + 3hf + 2h) + 2 V h + h, untied, MHA
		 * (7B 32 x 202,383,360 + 262,148,096); the paper's table 2 rounds
		 * them to 6.7, 13.0, 32.5 and 65.2B */
		{"llama-7b", 6738415616.0, 0},	     {"llama-13b", 13015864320.0, 0},
		{"llama-33b", 32528943616.0, 0},     {"llama-65b", 65285660672.0, 0},
		/* Mistral 7B: 32 (2h^2 + 2h x 8 x 128 + 3hf + 2h) + 2 V h + h,
		 * the release's count */
		{"mistral-7b", 7241732096.0, 0},
		/* GPT-NeoX-20B's model card: 44 (12h^2 + 13h) + 2 V h + 2h */
		{"gpt-neox-20b", 20554567680.0, 0},
		/* GPT-2 XL's released count: 48 (12h^2 + 13h) + (V + 1024) h + 2h */
		{"gpt2-xl", 1557611200.0, 0},
		/* GPT-3's and OPT's smaller sizes to the names' rounding: l (12h^2
		 * + 13h) + (V + s) h + 2h, tied (OPT's 2,048 positions; its
		 * checkpoints' two offset rows are not counted) */
		{"gpt3-1.3b", 1.3e9, 0.015},	     {"gpt3-2.7b", 2.7e9, 0.02},
		{"gpt3-6.7b", 6.7e9, 0.01},	     {"gpt3-13b", 13e9, 0.015},
		{"opt-1.3b", 1.3e9, 0.015},	     {"opt-2.7b", 2.7e9, 0.02},
		{"opt-6.7b", 6.7e9, 0.01},	     {"opt-13b", 13e9, 0.015},
		{"opt-30b", 30e9, 0.002},	     {"opt-66b", 66e9, 0.005},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		work_model m;
		if (shipped_model(cases[i].file, &m))
			CHECK_NEAR(work_params_total(&m), cases[i].params, cases[i].rel);
	}
}

/* Active parameters: Mixtral 8x7B's 46,702,792,704 with each layer's 8
 * experts (3 x 4096 x 14336 each) at top-2: 32 x 6 x 176,160,768 =
 * 33,822,867,456 idle, 12,879,925,248 active (the model card's "12.9B
 * active"); a dense model's are all of them. */
static void test_active_params(void)
{
	static const struct {
		const char *file;
		double total, active;
	} cases[] = {
		{"mixtral-8x7b", 46702792704.0, 12879925248.0},
		/* Mixtral 8x22B: 56 layers of 8 experts (3 x 6144 x 16384 each)
		 * at top-2, the release's "141B" and "39B active" */
		{"mixtral-8x22b", 140620634112.0, 39152031744.0},
		{"llama3-8b", 8030261248.0, 8030261248.0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		work_model m;
		if (shipped_model(cases[i].file, &m)) {
			CHECK_NEAR(work_params_total(&m), cases[i].total, 0);
			CHECK_NEAR(work_params_active(&m), cases[i].active, 0);
		}
	}
}

/* Shape errors point at the key's line. */
static void test_model_errors(void)
{
	const char *text = "[model]\n"
			   "name = bad\n"
			   "layers = 2\n"
			   "hidden = 100\n"
			   "heads = 3\n"
			   "kv_heads = 2\n"
			   "vocab = 10\n"
			   "seq_len = 8\n";
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	work_model m;
	CHECK_INT(conf_load_string(text, strlen(text), "bad.ini", ".", d, &doc), SIM_OK);
	if (doc) {
		CHECK_INT(work_model_from_conf(doc, &m, d), SIM_ECONF);
		CHECK_INT(sim_diag_error_count(d), 2);
		if (sim_diag_count(d) >= 2) {
			CHECK_STR(sim_diag_text(d, 0),
				  "bad.ini:5: error: hidden (100) is not a multiple of heads (3); set head_dim if the model's heads are not hidden/heads wide");
			CHECK_STR(sim_diag_text(d, 1),
				  "bad.ini:6: error: heads (3) is not a multiple of kv_heads (2)");
		}
		conf_free(doc);
	}
	sim_diag_free(d);
}

/* The unfused attention path moves the core into two batched GEMMs of
 * 2*b*s^2*h/t FLOPs each, so the layer's GEMM FLOPs summed over t ranks are
 * 24*b*s^2... i.e. 24*b*s*h^2 + 4*b*s^2*h with nothing left in the flash kernel;
 * and only the unfused path keeps the s x s score tensors: per layer
 * s*b*(2e + 1)*a*s/t bytes more (softmax output, dropout mask and output,
 * Korthikanti's 5as/h term at e = 2). */
static void test_unfused(void)
{
	work_model g = gpt3();
	double b = 2, s = 2048, h = 12288, a = 96;
	for (int t = 1; t <= 8; t *= 8) {
		work_shard sh = {t, false, 2, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		work_item it[WORK_MAX_ITEMS];
		int n = work_layer_forward(&g, &sh, it);
		double gemm = 0, attn = 0;
		for (int i = 0; i < n; i++) {
			if (it[i].kernel == WORK_KERNEL_GEMM && it[i].kind == WORK_ITEM_KERNEL)
				gemm += it[i].flops;
			if (it[i].kernel == WORK_KERNEL_ATTN && it[i].kind == WORK_ITEM_KERNEL)
				attn += it[i].flops;
		}
		CHECK_NEAR(gemm * t, 24 * b * s * h * h + 4 * b * s * s * h, 1e-12);
		CHECK_NEAR(attn, 0, 0);
		work_shard fl = sh;
		fl.flash = true;
		double diff = work_activation_bytes(&g, &sh, WORK_RECOMPUTE_NONE) -
			      work_activation_bytes(&g, &fl, WORK_RECOMPUTE_NONE);
		CHECK_NEAR(diff, s * b * 5.0 * a * s / t, 1e-12);
	}
}

/* The fused attention kernel's exponentials (work_item.attn_exps, hw/attn.c):
 * one per score element in the papers' count, b s^2 a / t per rank, forward
 * and backward alike (the backward recomputes P once), while the backward's
 * FLOPs are twice the forward's: GPT-3 (a = 96, d = 128) at b = 2, s =
 * 2048 on tp 8: 2 x 2048^2 x 12 = 100663296 each, and FLOPs / exps = 4 d =
 * 512 forward, 8 d = 1024 backward. */
static void test_attn_exps(void)
{
	work_model g = gpt3();
	work_shard sh = {8, false, 2, 2048, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	work_item it[WORK_MAX_ITEMS];
	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? work_layer_backward(&g, &sh, it) : work_layer_forward(&g, &sh, it);
		int found = 0;
		for (int i = 0; i < n; i++) {
			if (it[i].kind != WORK_ITEM_KERNEL || it[i].kernel != WORK_KERNEL_ATTN)
				continue;
			found++;
			CHECK_NEAR(it[i].attn_exps, 2.0 * 2048 * 2048 * 12, 1e-12);
			CHECK_NEAR(it[i].flops / it[i].attn_exps, pass ? 1024 : 512, 1e-12);
		}
		CHECK_INT(found, 1);
	}
}

/* Megatron's fused softmax refuses shapes (work_softmax_fused): GPT-3's 96
 * heads on tp 8 give np = 12; b = 1 sequence: 12 x 1 = 12, a multiple of 4,
 * fused; a 16-head model on tp 8 (np = 2) at b = 1 gives 2: PyTorch's five
 * ops forward and backward instead of one each. Their bytes per score
 * element at e = 2, s = 1024 (persistent softmax): forward .float() 6,
 * scale 8, masked_fill_ 8, softmax 8, .half() 6 = 36 against the kernel's
 * 2e = 4; backward 6 + (12 + 12) + 8 + 8 + 6 = 52 over six launches against
 * 3e = 6 over one. At s = 2048 the softmax is ATen's block kernel (16
 * forward, 12 + 16 backward): 44 forward. Longer keys than
 * the framework's limit refuse too (2048 for Megatron-LM 2021); with the
 * limit 0 every shape is fused. Without recomputation the saved scores
 * become (e + 5) a s / t per token instead of (2e + 1): 2 a s / t more. */
static void test_softmax_fallback(void)
{
	work_model m = gpt3();
	m.heads = 16;
	m.hidden = 2048;
	double s = 1024, scores = 1 * 2 * s * s; /* b np s^2 at tp 8, b = 1 */
	work_shard sh = {8, false, 1, 1024, HW_FP16, false, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 4096, false, 0, 0, 0, false, false, false, false};
	CHECK(!work_softmax_fused(&m, &sh));
	work_shard two = sh, nolimit = sh, gpt = sh, longer = sh;
	two.micro_batch = 2;
	CHECK(work_softmax_fused(&m, &two));
	nolimit.softmax_fused_max_seq = 0;
	CHECK(work_softmax_fused(&m, &nolimit));
	work_model g = gpt3();
	CHECK(work_softmax_fused(&g, &gpt));
	longer.micro_batch = 2;
	longer.seq = 4096;
	longer.softmax_fused_max_seq = 2048;
	CHECK(!work_softmax_fused(&m, &longer));
	longer.softmax_fused_max_seq = 4096;
	CHECK(work_softmax_fused(&m, &longer));
	for (int bwd = 0; bwd < 2; bwd++) {
		work_item a[WORK_MAX_ITEMS], f[WORK_MAX_ITEMS];
		int na = bwd ? work_layer_backward(&m, &sh, a) : work_layer_forward(&m, &sh, a);
		int nf = bwd ? work_layer_backward(&m, &nolimit, f) : work_layer_forward(&m, &nolimit, f);
		CHECK(na == nf + (bwd ? 5 : 4));
		double ba = 0, bf = 0;
		for (int i = 0; i < na; i++)
			if (!strncmp(a[i].name, "attn_softmax", 12))
				ba += a[i].bytes;
		for (int i = 0; i < nf; i++)
			if (!strncmp(f[i].name, "attn_softmax", 12))
				bf += f[i].bytes;
		CHECK_NEAR(ba, (bwd ? 52.0 : 36.0) * scores, 1e-12);
		CHECK_NEAR(bf, (bwd ? 6.0 : 4.0) * scores, 1e-12);
	}
	work_shard s2 = sh, s2f = nolimit;
	s2.seq = s2f.seq = 2048;
	work_item a[WORK_MAX_ITEMS];
	int na = work_layer_forward(&m, &s2, a);
	double ba = 0;
	for (int i = 0; i < na; i++)
		if (!strncmp(a[i].name, "attn_softmax", 12))
			ba += a[i].bytes;
	CHECK_NEAR(ba, 44.0 * 2 * 2048.0 * 2048.0, 1e-12);
	double diff = work_activation_bytes(&m, &s2, WORK_RECOMPUTE_NONE) -
		      work_activation_bytes(&m, &s2f, WORK_RECOMPUTE_NONE);
	CHECK_NEAR(diff, 2048.0 * 1 * 2.0 * 16 * 2048.0 / 8, 1e-12);
}

/* The cross-entropy's bytes per logit by implementation (layer.c,
 * xent_bytes), on GPT-3's head at tp 8: T = 2048 tokens, V/t = 50257/8,
 * e = 2. Megatron's vocabulary-parallel loss: e + 36 = 38 forward over 16
 * launches, 12 + e = 14 backward; HF Llama's upcast-shift e + 28 = 30 and
 * 36 + e = 38; a 16-bit log-softmax 4e = 8 and 5e = 10; under autocast the
 * shift variant runs on an fp32 cast: 3e + 20 = 26 and 24 + 4e = 32. Only
 * the vocabulary-parallel loss all-reduces (three T x 4 B). */
static void test_xent(void)
{
	work_model g = gpt3();
	work_item it[WORK_MAX_ITEMS];
	double L = 2048.0 * 50257 / 8;
	struct {
		work_loss loss;
		bool fp32;
		double f, b;
		int nf, ar;
	} c[] = {{WORK_LOSS_VOCAB_PARALLEL, false, 38, 14, 16, 3},
		 {WORK_LOSS_UPCAST_SHIFT, false, 30, 38, 5, 0},
		 {WORK_LOSS_16BIT, false, 8, 10, 3, 0},
		 {WORK_LOSS_SHIFT, true, 26, 32, 5, 0}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		work_shard sh = {8, false, 1, 2048, HW_BF16, false, 1, 1, HW_FLASH_FA2,
				 WORK_LAYER_FUSED, c[i].loss, c[i].fp32, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
		int n = work_head_forward(&g, &sh, it);
		const work_item *x = find(it, n, "xent");
		CHECK(x != NULL);
		if (x) {
			CHECK_NEAR(x->bytes, L * c[i].f, 1e-12);
			CHECK_INT(x->launches, c[i].nf);
		}
		CHECK_INT(sum_items(it, n).ar, c[i].ar);
		n = work_head_backward(&g, &sh, it);
		x = find(it, n, "xent");
		CHECK(x != NULL);
		if (x)
			CHECK_NEAR(x->bytes, L * c[i].b, 1e-12);
	}
}

/* fp8 casts (layer.c fp8_cast): GPT-3 at tp 8 with SP, T = 2048, Tn = 256,
 * h = 12288, qd = 1536, n = 3 x 1536 = 4608; 4 bytes per element cast (read
 * 2, write row-wise and column-wise fp8). Forward: the attention output
 * before proj, 4 T qd = 12,582,912. Backward: fc2's and proj's output
 * gradients on the SP shard, 4 Tn h = 12,582,912 each, qkv's 4 T n =
 * 37,748,736. Megatron-Core's own activation between TE's fc1 and fc2
 * (layer.c): fc2's 16-bit input, 4 T f/t = 4 x 2048 x 6144 = 50,331,648, and
 * fc1's output gradient, the same for GeLU (fc1_n = f/t) and twice that,
 * 100,663,296, for SwiGLU (gate and up: fc1_n = 2 f/t). In bf16 none of
 * them. */
static void test_fp8_casts(void)
{
	work_model g = gpt3();
	work_item it[WORK_MAX_ITEMS];
	work_shard sh = {8, true, 1, 2048, HW_FP8, true, 1, 1, HW_FLASH_FA2,
			 WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	int n = work_layer_forward(&g, &sh, it);
	const work_item *x = find(it, n, "proj_cast");
	CHECK(x && x->bytes == 12582912.0);
	x = find(it, n, "fc2_cast");
	CHECK(x && x->bytes == 50331648.0);
	n = work_layer_backward(&g, &sh, it);
	x = find(it, n, "fc1_gcast");
	CHECK(x && x->bytes == 50331648.0);
	x = find(it, n, "fc2_gcast");
	CHECK(x && x->bytes == 12582912.0);
	x = find(it, n, "proj_gcast");
	CHECK(x && x->bytes == 12582912.0);
	x = find(it, n, "qkv_gcast");
	CHECK(x && x->bytes == 37748736.0);
	g.act = WORK_ACT_SWIGLU;
	n = work_layer_backward(&g, &sh, it);
	x = find(it, n, "fc1_gcast");
	CHECK(x && x->bytes == 100663296.0);
	sh.dtype = HW_BF16;
	n = work_layer_backward(&g, &sh, it);
	CHECK(!find(it, n, "qkv_gcast") && !find(it, n, "fc2_gcast") &&
	      !find(it, n, "fc1_gcast"));
	n = work_layer_forward(&g, &sh, it);
	CHECK(!find(it, n, "fc2_cast"));
}

/* Transformer Engine's ring-attention merges (layer.c ring_q_share /
 * ring_kv_share): Llama 3 8B's shape at cp 2, the rank's s = 4096 tokens,
 * qd = 4096, kv = 8 x 128 = 1024, e = 2. Forward: out zeroed, 2 T qd =
 * 33,554,432; corrections (3e + 8) T qd x (1 + 3/4) = 14 x 16,777,216 x
 * 1.75 = 411,041,792. Backward: K and V into the ring buffer, 2e 2 T kv =
 * 33,554,432; dq 2e T qd + 3e T qd x 3/4 = 67,108,864 + 75,497,472 =
 * 142,606,336; dkv (2 + 2) e 2 T kv + (2 + 3) e 2 T kv x 3/4 = 67,108,864 +
 * 62,914,560 = 130,023,424. Without CP none of them. */
static double bytes_named(const work_item *it, int n, const char *name)
{
	double b = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(it[i].name, name))
			b += it[i].bytes;
	return b;
}

static void test_cp_merges(void)
{
	work_model m = llama2_7b();
	m.kv_heads = 8;
	work_item it[WORK_MAX_ITEMS];
	work_shard sh = {.tp = 1, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16, .flash = true,
			 .cp = 2, .ep = 1, .flash_impl = HW_FLASH_CUDNN,
			 .layer_code = WORK_LAYER_FUSED, .loss = WORK_LOSS_VOCAB_PARALLEL};
	int n = work_layer_forward(&m, &sh, it);
	CHECK(bytes_named(it, n, "cp_out_zero") == 33554432.0);
	CHECK(bytes_named(it, n, "cp_out_corr") == 411041792.0);
	n = work_layer_backward(&m, &sh, it);
	CHECK(bytes_named(it, n, "cp_kv_copy") == 33554432.0);
	CHECK(bytes_named(it, n, "cp_dq_acc") == 142606336.0);
	CHECK(bytes_named(it, n, "cp_dkv_acc") == 130023424.0);
	sh.cp = 1;
	n = work_layer_forward(&m, &sh, it);
	CHECK(bytes_named(it, n, "cp_out_corr") == 0.0);
	n = work_layer_backward(&m, &sh, it);
	CHECK(bytes_named(it, n, "cp_dq_acc") == 0.0);
}

/* The context-parallel tests' shard: Llama 2 7B's layer (8 KV heads) on one
 * TP rank, 4,096 tokens a rank of cp 4, flash attention. */
static work_shard cp4_shard(void)
{
	return (work_shard){.tp = 1, .micro_batch = 1, .seq = 4096, .dtype = HW_BF16, .flash = true,
			    .cp = 4, .ep = 1, .flash_impl = HW_FLASH_CUDNN,
			    .layer_code = WORK_LAYER_FUSED, .loss = WORK_LOSS_VOCAB_PARALLEL};
}

/* DeepSpeed-Ulysses (work_shard.cp_alltoall; layer.c attn_ulysses), Llama 2
 * 7B's shape with 8 KV heads at cp 4, s = 4096 tokens a rank (T = 4096, e =
 * 2 B, head 128: qd = 32 x 128 = 4096, kv = 8 x 128 = 1024). Forward: Q, K,
 * V all-to-alls of e T width, 33,554,432, 8,388,608, 8,388,608 B, before
 * the attention, the output's (33,554,432 B) after it, all blocking
 * (cp_step 0, not the ring's); backward: the output gradient's first, then
 * Q's, K's, V's. One attention kernel over the whole sequence (16,384
 * tokens) with 8 of the 32 heads: the ring's FLOPs summed over its 4 steps,
 * 2 b s (s cp)(qd + ow) = 2 x 4096 x 16384 x 8192 = 1.0995e12 forward. */
static void test_cp_ulysses(void)
{
	work_model m = llama2_7b();
	m.kv_heads = 8;
	work_item a[WORK_MAX_ITEMS], r[WORK_MAX_ITEMS];
	work_shard sh = cp4_shard();
	static const double fwd[] = {33554432.0, 8388608.0, 8388608.0, 33554432.0};
	static const double bwd[] = {33554432.0, 33554432.0, 8388608.0, 8388608.0};
	for (int back = 0; back < 2; back++) {
		sh.cp_alltoall = false;
		int nr = back ? work_layer_backward(&m, &sh, r) : work_layer_forward(&m, &sh, r);
		sh.cp_alltoall = true;
		int na = back ? work_layer_backward(&m, &sh, a) : work_layer_forward(&m, &sh, a);
		int n2a = 0, attn = 0, ring = 0, first = -1, last = -1, at = -1;
		double fa = 0, fr = 0;
		for (int i = 0; i < na; i++) {
			if (a[i].kind == WORK_ITEM_COMM && a[i].comm == WORK_COMM_CP_ALLTOALL) {
				if (n2a < 4)
					CHECK(a[i].comm_bytes == (back ? bwd : fwd)[n2a]);
				CHECK_INT(a[i].cp_step, 0);
				first = first < 0 ? i : first;
				last = i;
				n2a++;
			}
			ring += a[i].kind == WORK_ITEM_COMM && work_comm_on_cp(a[i].comm);
			if (!strcmp(a[i].name, "attn")) {
				attn++;
				fa += a[i].flops;
				at = i;
			}
		}
		for (int i = 0; i < nr; i++)
			fr += !strcmp(r[i].name, "attn") ? r[i].flops : 0;
		CHECK_INT(n2a, 4);
		CHECK_INT(ring, 0);
		CHECK_INT(attn, 1);
		CHECK_NEAR(fa, fr, 1e-12);
		CHECK_NEAR(fa, (back ? 2.0 : 1.0) * 2.0 * 4096 * 16384 * 8192, 1e-12);
		/* forward: three before the attention, one after; backward: one
		 * before, three after */
		CHECK(first < at && last > at);
		int before = 0;
		for (int i = 0; i < at; i++)
			before += a[i].kind == WORK_ITEM_COMM && a[i].comm == WORK_COMM_CP_ALLTOALL;
		CHECK_INT(before, back ? 1 : 3);
	}
	/* Unfused under Ulysses (Megatron-DeepSpeed's CoreAttention wrapped):
	 * a rank keeps the whole sequence's scores of 1/cp of the heads, cp
	 * times the s x s of its own tokens (memory.c), and so does the
	 * scores' buffer */
	work_shard f = sh, u = sh;
	f.cp_alltoall = false;
	u.flash = false;
	u.cp_alltoall = true;
	work_shard o = u;
	o.cp_alltoall = false;
	double fl = work_activation_bytes(&m, &f, WORK_RECOMPUTE_NONE);
	double one = work_activation_bytes(&m, &o, WORK_RECOMPUTE_NONE) - fl;
	CHECK(one > 0);
	CHECK_NEAR(work_activation_bytes(&m, &u, WORK_RECOMPUTE_NONE) - fl, 4.0 * one, 1e-12);
	CHECK_NEAR(work_scores_buffer_bytes(&m, &u), 4.0 * work_scores_buffer_bytes(&m, &o), 1e-12);
}

/* PyTorch's context_parallel (work_shard.cp_allgather; layer.c attn_ring):
 * the same shape at cp 4, so a K/V block is 2 b s kv e = 2 x 4096 x 1024 x
 * 2 = 16,777,216 B. Forward: one all-gather of cp blocks (67,108,864 B) at
 * cp_step 1 and no ring transfer; the steps' cp_step 0, 1, 0, 0 (only step
 * 1 waits, for the gather). Backward: the gather again, then cp - 1 = 3
 * K/V-gradient transfers of 2 blocks each (fp32 dK and dV of the block,
 * 33,554,432 B) at cp_step 2, 3, 4, steps at 0..3; the attention FLOPs and
 * the merges the ring's (the same kernels). The ring instead: cp - 1
 * transfers of a block forward, 2 blocks backward, at cp_step 1..3. */
static void test_cp_allgather(void)
{
	work_model m = llama2_7b();
	m.kv_heads = 8;
	work_item a[WORK_MAX_ITEMS], r[WORK_MAX_ITEMS];
	work_shard sh = cp4_shard();
	for (int bwd = 0; bwd < 2; bwd++) {
		sh.cp_allgather = false;
		int nr = bwd ? work_layer_backward(&m, &sh, r) : work_layer_forward(&m, &sh, r);
		sh.cp_allgather = true;
		int na = bwd ? work_layer_backward(&m, &sh, a) : work_layer_forward(&m, &sh, a);
		int ring = 0, gather = 0, steps = 0, rsteps[4], asteps[4], xs[4];
		double rb = 0, flops_a = 0, flops_r = 0;
		for (int i = 0; i < na; i++) {
			if (a[i].kind == WORK_ITEM_COMM && a[i].comm == WORK_COMM_CP_ALLGATHER) {
				CHECK(a[i].comm_bytes == 67108864.0 && a[i].cp_step == 1);
				gather++;
			} else if (a[i].kind == WORK_ITEM_COMM && a[i].comm == WORK_COMM_CP_RING) {
				CHECK(a[i].comm_bytes == 33554432.0);
				if (ring < 4)
					xs[ring] = a[i].cp_step;
				ring++;
			} else if (!strcmp(a[i].name, "attn")) {
				if (steps < 4)
					asteps[steps] = a[i].cp_step;
				steps++;
				flops_a += a[i].flops;
			}
		}
		int rs = 0;
		for (int i = 0; i < nr; i++) {
			if (r[i].kind == WORK_ITEM_COMM && r[i].comm == WORK_COMM_CP_RING)
				rb += r[i].comm_bytes;
			if (!strcmp(r[i].name, "attn")) {
				if (rs < 4)
					rsteps[rs] = r[i].cp_step;
				rs++;
				flops_r += r[i].flops;
			}
		}
		CHECK_INT(gather, 1);
		CHECK_INT(steps, 4);
		CHECK_INT(rs, 4);
		CHECK(flops_a == flops_r);
		CHECK(rb == (bwd ? 3 * 33554432.0 : 3 * 16777216.0));
		CHECK(rsteps[0] == 0 && rsteps[1] == 1 && rsteps[2] == 2 && rsteps[3] == 3);
		if (bwd) {
			CHECK_INT(ring, 3);
			CHECK(xs[0] == 2 && xs[1] == 3 && xs[2] == 4);
			CHECK(asteps[0] == 0 && asteps[1] == 1 && asteps[2] == 2 && asteps[3] == 3);
		} else {
			CHECK_INT(ring, 0);
			CHECK(asteps[0] == 0 && asteps[1] == 1 && asteps[2] == 0 && asteps[3] == 0);
		}
	}
}

/* LoRA (work/lora.c): GPT-3 175B's layer on a tp 8 rank, b 1, s 2048, flash
 * attention, adapters of rank 16 on q and v, no dropout. T = 2048 tokens,
 * h = 12288, q = kv = 12288 / 8 = 1536 per rank, qkv_n = 4608.
 *   forward: every item as without LoRA, and after the fused qkv one
 *     "qkv_lora" of e (T h + 6 T n') bytes, n' = (q + kv) = 3072 (2/3 of
 *     qkv_n), 4 launches: 2 (2048 x 12288 + 6 x 2048 x 3072) = 125,829,120;
 *   backward: no weight gradient of qkv, proj, fc1 or fc2 nor their biases'
 *     (their GEMM FLOPs, 2 T (h qkv_n + q h + h f + f h) per rank with f =
 *     4h / 8 = 6144, are gone from the GEMM sum) and a "qkv_lora_bwd" of
 *     e (4 T n' + 5 T h) = 2 (4 x 2048 x 3072 + 5 x 2048 x 12288) =
 *     301,989,888 bytes, 6 launches, in qkv_wgrad's place; proj, fc1 and fc2
 *     get none (not targeted).
 * Dropout on adds the mask and the copy of x: T h (2e + 1) forward, (2e + 1)
 * T h backward, one launch each. The output layer's weight gradient goes
 * unless the embeddings train. */
static void test_lora(void)
{
	work_model g = gpt3();
	work_shard sh = {8, false, 1, 2048, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED,
			 WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0,
			 0, 0, false, false, false, false};
	work_item f0[WORK_MAX_ITEMS], b0[WORK_MAX_ITEMS], f1[WORK_MAX_ITEMS], b1[WORK_MAX_ITEMS];
	int nf0 = work_layer_forward_at(&g, &sh, 0, f0), nb0 = work_layer_backward_at(&g, &sh, 0, b0);
	sh.lora_rank = 16;
	sh.lora_targets = WORK_LORA_Q | WORK_LORA_V;
	int nf1 = work_layer_forward_at(&g, &sh, 0, f1), nb1 = work_layer_backward_at(&g, &sh, 0, b1);
	double T = 2048, h = 12288, qkv = 4608, q = 1536, f = 6144, np = 3072;
	CHECK_INT(nf1, nf0 + 1);
	const work_item *a = find(f1, nf1, "qkv_lora");
	CHECK(a && a == find(f1, nf1, "qkv") + 1 && a->kernel == WORK_KERNEL_MEM);
	if (a) {
		CHECK_NEAR(a->bytes, 125829120.0, 1e-12);
		CHECK_NEAR(a->bytes, 2 * (T * h + 6 * T * np), 1e-12);
		CHECK_INT(a->launches, 4);
	}
	CHECK(!find(f1, nf1, "proj_lora") && !find(f1, nf1, "fc1_lora") && !find(f1, nf1, "fc2_lora"));
	sums s0 = sum_items(b0, nb0), s1 = sum_items(b1, nb1);
	CHECK_NEAR(s0.gemm - s1.gemm, 2 * T * (h * qkv + q * h + h * f + f * h), 1e-12);
	static const char *const gone[] = {"qkv_wgrad", "proj_wgrad", "fc1_wgrad", "fc2_wgrad",
					   "qkv_bgrad", "proj_bgrad", "fc1_bgrad", "fc2_bgrad"};
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
		CHECK(!find(b1, nb1, gone[i]));
	CHECK(find(b1, nb1, "qkv_dgrad") && find(b1, nb1, "fc2_dgrad"));
	const work_item *ab = find(b1, nb1, "qkv_lora_bwd");
	CHECK(ab && ab->kernel == WORK_KERNEL_MEM);
	if (ab) {
		CHECK_NEAR(ab->bytes, 301989888.0, 1e-12);
		CHECK_INT(ab->launches, 6);
	}
	CHECK(!find(b1, nb1, "proj_lora_bwd"));
	/* dropout on */
	sh.lora_dropout = true;
	nf1 = work_layer_forward_at(&g, &sh, 0, f1);
	nb1 = work_layer_backward_at(&g, &sh, 0, b1);
	a = find(f1, nf1, "qkv_lora");
	ab = find(b1, nb1, "qkv_lora_bwd");
	CHECK(a && ab);
	if (a && ab) {
		CHECK_NEAR(a->bytes, 125829120.0 + T * h * 5, 1e-12);
		CHECK_INT(a->launches, 5);
		CHECK_NEAR(ab->bytes, 301989888.0 + T * h * 5, 1e-12);
		CHECK_INT(ab->launches, 7);
	}
	/* the output layer: frozen, unless the embeddings train */
	work_item hb[WORK_MAX_ITEMS];
	int nh = work_head_backward(&g, &sh, hb);
	CHECK(!find(hb, nh, "logits_wgrad") && find(hb, nh, "logits_dgrad"));
	sh.train_embeddings = true;
	nh = work_head_backward(&g, &sh, hb);
	CHECK(find(hb, nh, "logits_wgrad") != NULL);
	/* DeepSeek-V3's MLA projections and its experts: frozen, no adapters
	 * (layer 0 is dense: MLA; layer 3 routes) */
	work_model ds;
	if (shipped_model("deepseek-v3", &ds)) {
		work_shard d3 = sh;
		d3.tp = 1;
		d3.lora_rank = 0;
		int n0 = work_layer_backward_at(&ds, &d3, 0, b0), n3 = work_layer_backward_at(&ds, &d3, 3, f0);
		CHECK(find(b0, n0, "kv_down_wgrad") && find(b0, n0, "q_up_wgrad"));
		CHECK(find(f0, n3, "fc1e_wgrad") && find(f0, n3, "router_wgrad"));
		d3.lora_rank = 16;
		n0 = work_layer_backward_at(&ds, &d3, 0, b0);
		n3 = work_layer_backward_at(&ds, &d3, 3, f0);
		for (int i = 0; i < n0; i++)
			CHECK(!strstr(b0[i].name, "_wgrad") || !strncmp(b0[i].name, "attn_", 5));
		for (int i = 0; i < n3; i++)
			CHECK(!strstr(f0[i].name, "_wgrad") || !strncmp(f0[i].name, "attn_", 5));
	}
}

int main(void)
{
	test_lora();
	test_xent();
	test_cp_allgather();
	test_cp_ulysses();
	test_fp8_casts();
	test_cp_merges();
	test_unfused();
	test_attn_exps();
	test_softmax_fallback();
	test_params();
	test_flops();
	test_layer_flops();
	test_programs_match_model_flops();
	test_tp_comm();
	test_activations();
	test_model_file();
	test_shipped_models();
	test_active_params();
	test_model_errors();
	return check_done();
}
