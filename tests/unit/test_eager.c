/* test_eager.c - the eager layer codes (sim/work/eager.c, mpt.c, fms.c,
 * hf_llama.c): the same GEMM FLOPs as the fused programs, the launches and
 * the memory-bound bytes per layer and token derived in each file's header,
 * and the profiles that run them. Each check states its derivation. */
#include "../../sim/plan/plan.h"
#include "check.h"

#include <string.h>

typedef struct counts {
	int launches, comms, gemms;
	double gemm_flops, mem_bytes; /* GEMMs' FLOPs; memory-bound kernels' bytes */
} counts;

static counts count(const work_item *it, int n)
{
	counts c = {0, 0, 0, 0, 0};
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_COMM) {
			c.comms++;
			continue;
		}
		c.launches += it[i].launches > 1 ? it[i].launches : 1;
		if (it[i].kernel == WORK_KERNEL_GEMM)
			c.gemm_flops += it[i].flops, c.gemms++;
		if (it[i].kernel == WORK_KERNEL_MEM)
			c.mem_bytes += it[i].bytes;
	}
	return c;
}

static const work_model llama2_7b = {.layers = 32,
                                     .hidden = 4096,
                                     .heads = 32,
                                     .kv_heads = 32,
                                     .ffn = 11008,
                                     .vocab = 32000,
                                     .seq_len = 4096,
                                     .act = WORK_ACT_SWIGLU,
                                     .norm = WORK_NORM_RMSNORM,
                                     .untied_embeddings = true};
static const work_model llama2_70b = {.layers = 80,
                                      .hidden = 8192,
                                      .heads = 64,
                                      .kv_heads = 8,
                                      .ffn = 28672,
                                      .vocab = 32000,
                                      .seq_len = 4096,
                                      .act = WORK_ACT_SWIGLU,
                                      .norm = WORK_NORM_RMSNORM,
                                      .untied_embeddings = true};
static const work_model mpt_7b = {.layers = 32,
                                  .hidden = 4096,
                                  .heads = 32,
                                  .kv_heads = 32,
                                  .ffn = 16384,
                                  .vocab = 50368,
                                  .seq_len = 2048,
                                  .act = WORK_ACT_GELU,
                                  .norm = WORK_NORM_LAYERNORM};

static work_shard shard(int t, bool sp, int code, int loss)
{
	work_shard sh = {t, sp, 2, 4096, HW_BF16, true, 1, 1, HW_FLASH_FA2, code, loss, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	return sh;
}

/* Every eager code runs the fused program's GEMM FLOPs, forward and
 * backward, for the layer and the head, on MHA and GQA, SwiGLU and GELU,
 * with and without TP (its collectives where the fused program has them,
 * the same count). */
static void test_flops_equal(void)
{
	const work_model *models[] = {&llama2_7b, &llama2_70b, &mpt_7b};
	int codes[] = {WORK_LAYER_MPT, WORK_LAYER_FMS, WORK_LAYER_HF_LLAMA, WORK_LAYER_HF_LLAMA5};
	work_item a[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	for (int mi = 0; mi < 3; mi++)
		for (int ci = 0; ci < 3; ci++)
			for (int t = 1; t <= 4; t *= 2)
				for (int sp = 0; sp < 2; sp++) {
					if (t == 1 && sp)
						continue;
					const work_model *m = models[mi];
					work_shard fu =
					        shard(t, sp, WORK_LAYER_FUSED, WORK_LOSS_16BIT);
					work_shard ea = shard(t, sp, codes[ci], WORK_LOSS_16BIT);
					counts cf = count(a, work_layer_forward_at(m, &fu, 0, a));
					counts ef = count(b, work_layer_forward_at(m, &ea, 0, b));
					CHECK_NEAR(ef.gemm_flops, cf.gemm_flops, 1e-12);
					CHECK_INT(ef.comms, cf.comms);
					cf = count(a, work_layer_backward_at(m, &fu, 0, a));
					ef = count(b, work_layer_backward_at(m, &ea, 0, b));
					CHECK_NEAR(ef.gemm_flops, cf.gemm_flops, 1e-12);
					CHECK_INT(ef.comms, cf.comms);
					cf = count(a, work_head_forward(m, &fu, a));
					ef = count(b, work_head_forward(m, &ea, b));
					CHECK_NEAR(ef.gemm_flops, cf.gemm_flops, 1e-12);
					cf = count(a, work_head_backward(m, &fu, a));
					ef = count(b, work_head_backward(m, &ea, b));
					CHECK_NEAR(ef.gemm_flops, cf.gemm_flops, 1e-12);
				}
}

/* Launches and memory-bound bytes per layer, t = 1 (T = 2 x 4096 tokens,
 * e = 2), as each file's header derives them:
 *  - FMS on Llama 2 7B (h 4096, f 11008, MHA): forward 41 launches, 7 of
 *    them GEMMs; bytes per token: two fp32 RMSNorms 2 x 36h, RoPE (32 + 2e)
 *    (qd + kv) + 16 dh = 36 x 8192 + 2048, two residual adds 2 x 6h, SiLU
 *    4f and the product 6f: 72h + 294912 + 2048 + 12h + 10f = 751104.
 *    Backward 63 launches: norms 2 x 92h, forks 2 x 6h, RoPE 36 x 8192, the
 *    product's 12f, SiLU's 6f, the MLP's input add 6h, q/k/v's two adds 12h:
 *    214h + 294912 + 18f = 1369600.
 *  - GQA (Llama 2 70B, 8 KV heads): two more launches each way (the
 *    expanded K and V: 2e (kv + qd) = 4 x 9216 per token).
 *  - HF Llama on Llama 2 7B: forward 40 launches (RoPE's 12 for FMS's 13),
 *    bytes 72h + 10e (qd + kv) + 4e dh + 12h + 10f = 619008; backward 73
 *    (RoPE 18 for 8), 214h + 15e (qd + kv) + 18f = 1320448.
 *  - MPT on MPT-7B (h 4096, f 16384, GELU, layer norm): forward 10 launches
 *    (4 GEMMs), 2 x 2e h + 2 x 3e h + 2e f = 20h + 4f = 147456; backward
 *    17 launches, 2 x 5e h + 2 x 3e h + 3e f + split's 2e x 3h = 44h + 6f =
 *    278528. The fused program moves 22h + 4f forward (its residuals' 1-byte
 *    dropout masks) in 10 launches. */
static void test_layer_counts(void)
{
	work_item a[WORK_MAX_ITEMS];
	double T = 2 * 4096.0, h = 4096, f = 11008;
	work_shard fms = shard(1, false, WORK_LAYER_FMS, WORK_LOSS_16BIT);
	counts c = count(a, work_layer_forward_at(&llama2_7b, &fms, 0, a));
	CHECK_INT(c.launches, 41);
	CHECK_INT(c.gemms, 7);
	CHECK_NEAR(c.mem_bytes / T, 72 * h + 36 * 8192 + 16 * 128 + 12 * h + 10 * f, 1e-12);
	CHECK_NEAR(c.mem_bytes / T, 751104, 1e-12);
	c = count(a, work_layer_backward_at(&llama2_7b, &fms, 0, a));
	CHECK_INT(c.launches, 63);
	CHECK_INT(c.gemms, 14);
	CHECK_NEAR(c.mem_bytes / T, 1369600, 1e-12);

	counts g = count(a, work_layer_forward_at(&llama2_70b, &fms, 0, a));
	CHECK_INT(g.launches, 43);
	counts g0 = g;
	g = count(a, work_layer_backward_at(&llama2_70b, &fms, 0, a));
	CHECK_INT(g.launches, 65);
	/* the 70B's expanded K and V: 2e (kv + qd) = 4 x (1024 + 8192) of the
	 * forward's bytes per token */
	double h70 = 8192, f70 = 28672, qk70 = 8192 + 1024;
	CHECK_NEAR(g0.mem_bytes / T,
	           72 * h70 + 36 * qk70 + 16 * 128 + 4 * qk70 + 12 * h70 + 10 * f70, 1e-12);

	work_shard hf = shard(1, false, WORK_LAYER_HF_LLAMA, WORK_LOSS_UPCAST_SHIFT);
	c = count(a, work_layer_forward_at(&llama2_7b, &hf, 0, a));
	CHECK_INT(c.launches, 40);
	CHECK_NEAR(c.mem_bytes / T, 619008, 1e-12);
	c = count(a, work_layer_backward_at(&llama2_7b, &hf, 0, a));
	CHECK_INT(c.launches, 73);
	CHECK_NEAR(c.mem_bytes / T, 1320448, 1e-12);

	/* hf-llama5 (hf_llama.c, kernels-layer.txt's 41 + 95 with GQA): the
	 * forward drops RoPE's table gather (2 launches, 4e dh = 1024 B a
	 * token) and adds cuDNN's 3 memsets (no bytes): 40 - 2 + 3 = 41 on MHA;
	 * on the 70B's GQA also 41 (no repeat_kv: 42 - 2 - 2 + 3). Backward
	 * 73 + 13 (cuDNN's auxiliary kernels) + 9 (AccumulateGrad) = 95, on GQA
	 * too (75 - 2 + 22); bytes: the auxiliary (8 + e) qd + 2 (4 qd + e kv)
	 * = 10 x 4096 + 2 x 6 x 4096 = 90112 a token on MHA, and 3e per
	 * parameter of the layer: 4096 x 4 x 4096 + 3 x 4096 x 11008 + 2 x 4096
	 * = 202383360 params x 6 B / 8192 tokens = 148230 a token. */
	work_shard hf5 = shard(1, false, WORK_LAYER_HF_LLAMA5, WORK_LOSS_UPCAST_SHIFT);
	c = count(a, work_layer_forward_at(&llama2_7b, &hf5, 0, a));
	CHECK_INT(c.launches, 41);
	CHECK_NEAR(c.mem_bytes / T, 619008 - 1024, 1e-12);
	c = count(a, work_layer_backward_at(&llama2_7b, &hf5, 0, a));
	CHECK_INT(c.launches, 95);
	CHECK_NEAR(c.mem_bytes / T, 1320448 + 90112 + 148230, 1e-12);
	CHECK_INT(count(a, work_layer_forward_at(&llama2_70b, &hf5, 0, a)).launches, 41);
	CHECK_INT(count(a, work_layer_backward_at(&llama2_70b, &hf5, 0, a)).launches, 95);

	work_shard mpt = shard(1, false, WORK_LAYER_MPT, WORK_LOSS_FUSED_XENT);
	work_shard fu = shard(1, false, WORK_LAYER_FUSED, WORK_LOSS_FUSED_XENT);
	c = count(a, work_layer_forward_at(&mpt_7b, &mpt, 0, a));
	CHECK_INT(c.launches, 10);
	CHECK_INT(c.gemms, 4);
	CHECK_NEAR(c.mem_bytes / T, 147456, 1e-12);
	c = count(a, work_layer_backward_at(&mpt_7b, &mpt, 0, a));
	CHECK_INT(c.launches, 17);
	CHECK_NEAR(c.mem_bytes / T, 278528, 1e-12);
	c = count(a, work_layer_forward_at(&mpt_7b, &fu, 0, a));
	CHECK_INT(c.launches, 10);
	CHECK_NEAR(c.mem_bytes / T, 22 * h + 4 * 16384.0, 1e-12);
}

/* The head: the code's final norm, then the loss. FMS: the fp32 RMSNorm
 * (36h per token forward, 8 launches; 92h backward, 16) and the 16-bit
 * cross-entropy (4e per logit forward, 5e backward); MPT: the layer-norm
 * kernel (4h; 10h over 2 launches) and flash-attn's Triton cross-entropy (e
 * per logit forward over 7 launches, 2e backward over 2). */
static void test_head(void)
{
	work_item a[WORK_MAX_ITEMS];
	double T = 2 * 4096.0;
	work_shard fms = shard(1, false, WORK_LAYER_FMS, WORK_LOSS_16BIT);
	counts c = count(a, work_head_forward(&llama2_7b, &fms, a));
	CHECK_NEAR(c.mem_bytes / T, 36 * 4096.0 + 8 * 32000.0, 1e-12);
	CHECK_INT(c.launches, 8 + 1 + 3);
	c = count(a, work_head_backward(&llama2_7b, &fms, a));
	CHECK_NEAR(c.mem_bytes / T, 92 * 4096.0 + 10 * 32000.0, 1e-12);
	work_shard mpt = shard(1, false, WORK_LAYER_MPT, WORK_LOSS_FUSED_XENT);
	c = count(a, work_head_forward(&mpt_7b, &mpt, a));
	CHECK_NEAR(c.mem_bytes / T, 4 * 4096.0 + 2 * 50368.0, 1e-12);
	CHECK_INT(c.launches, 1 + 1 + 7);
	c = count(a, work_head_backward(&mpt_7b, &mpt, a));
	CHECK_NEAR(c.mem_bytes / T, 10 * 4096.0 + 4 * 50368.0, 1e-12);
	CHECK_INT(c.launches, 2 + 2 + 2);
	CHECK_STR(work_layer_code_name(WORK_LAYER_HF_LLAMA), "hf-llama");
	CHECK_STR(work_layer_code_name(WORK_LAYER_HF_LLAMA5), "hf-llama5");
	/* hf-llama5's model-level kernels (layer.c): the embedding's lookup and
	 * the 23 position/rotary/label kernels; the head backward adds the
	 * untied lm_head's and final norm's AccumulateGrad and 2 fills to the
	 * loss's 6, the logits' 2 GEMMs and the norm's 16: 26 + 4 = 30 with the
	 * embedding's lookup and its add (kernels-layer.txt: 38 + 30 for the
	 * rest of the model, of which the forward's 15 are the head's 8 + 1 + 5
	 * and the lookup) */
	work_shard hf5 = shard(1, false, WORK_LAYER_HF_LLAMA5, WORK_LOSS_UPCAST_SHIFT);
	int fw = count(a, work_embed_forward(&llama2_7b, &hf5, a)).launches +
	         count(a, work_head_forward(&llama2_7b, &hf5, a)).launches;
	int bw = count(a, work_embed_backward(&llama2_7b, &hf5, a)).launches +
	         count(a, work_head_backward(&llama2_7b, &hf5, a)).launches;
	CHECK_INT(fw, 38);
	CHECK_INT(bw, 30);
}

/* The profiles read as cited: fms-fsdp (the FSDP blog's stack) runs the FMS
 * code and its 16-bit loss without the attention output's copy; llm-foundry
 * the MPT code, flash-attn's loss and the layer norm's 16-bit input;
 * pytorch-fsdp, hf-transformers and deepspeed the HF Llama code. */
static void test_profiles(void)
{
	static const struct {
		const char *file;
		int code, loss;
	} want[] = {
	        {"topologies/frameworks/fms-fsdp.ini", WORK_LAYER_FMS, WORK_LOSS_16BIT},
	        {"topologies/frameworks/llm-foundry.ini", WORK_LAYER_MPT, WORK_LOSS_FUSED_XENT},
	        {"topologies/frameworks/pytorch-fsdp.ini", WORK_LAYER_HF_LLAMA,
	         WORK_LOSS_UPCAST_SHIFT},
	        {"topologies/frameworks/hf-transformers.ini", WORK_LAYER_HF_LLAMA,
	         WORK_LOSS_UPCAST_SHIFT},
	        {"topologies/frameworks/deepspeed.ini", WORK_LAYER_HF_LLAMA,
	         WORK_LOSS_UPCAST_SHIFT},
	        {"topologies/frameworks/hf-transformers-torch2.11.ini", WORK_LAYER_HF_LLAMA5,
	         WORK_LOSS_UPCAST_SHIFT},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		sim_diag *d = sim_diag_new();
		conf_doc *doc = NULL;
		plan_framework fw;
		if (CHECK_INT(conf_load(want[i].file, d, &doc), SIM_OK) &&
		    CHECK_INT(plan_framework_from_conf(doc, &fw, d), SIM_OK)) {
			CHECK_INT(fw.layer_kernels, want[i].code);
			CHECK_INT(fw.loss, want[i].loss);
			/* DeepSpeed accumulates through autograd (deepspeed.ini) */
			CHECK_INT(fw.grad_accum, strstr(want[i].file, "/deepspeed.ini")
			                                 ? PLAN_ACCUM_AUTOGRAD
			                                 : PLAN_ACCUM_FUSED);
			CHECK(!fw.comm_host_op);
			if (want[i].code != WORK_LAYER_HF_LLAMA && want[i].code != WORK_LAYER_HF_LLAMA5)
				CHECK(!fw.attn_out_copy);
			/* torch 2.11's SDPA takes GQA's K and V as they are */
			if (want[i].code == WORK_LAYER_HF_LLAMA5)
				CHECK(!fw.expand_kv && fw.foreach_temps == 1);
		}
		conf_free(doc);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
	}
}

int main(void)
{
	test_flops_equal();
	test_layer_counts();
	test_head();
	test_profiles();
	return check_done();
}
