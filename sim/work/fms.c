/* fms.c - the kernel programs of IBM foundation-model-stack's LLaMA as
 * fms-fsdp trained it for the PyTorch blog "Maximizing training throughput
 * using PyTorch FSDP" (2024-03) (work.h, WORK_LAYER_FMS).
 *
 * Sources: foundation-model-stack at 006bd7ed (2024-03-11, main the day the
 * blog's fms-fsdp commit 7746dac of 2024-03-13 would have installed; fms-fsdp
 * pins only ibm-fms >= 0.0.3, requirements.txt:5), file:line there:
 * fms/models/llama.py (LL), fms/modules/attention.py (AT), feedforward.py
 * (FF), layernorm.py (LN), positions.py (PO); fms-fsdp at 7746dac:
 * main_training.py (MT), fms_fsdp/utils/train_utils.py (TU),
 * fms_fsdp/policies/mixed_precision.py (MP). fms-fsdp wraps the model in FSDP
 * with MixedPrecision bfSixteen (MP:11-15: parameters, gradients and buffers
 * in bf16, no autocast) and no torch.compile (use_torch_compile = False,
 * config/training.py; MT:105), so every tensor below is bf16 unless cast.
 *
 * Forward layer (LLaMABlock.forward, LL:107-160; p_dropout = 0 skips both
 * dropouts, LL:143, 152):
 *   ln       LayerNormParameterized(use_mean=False, use_high_precision_pow=
 *            True) (LL:62-69, LN:59-72): the fp32 RMSNorm of eager.c,
 *            (28 + 4e) Tn h over 8 launches
 *   q, k, v  three nn.Linear (AT:60-68, 128-146): GEMMs [T, h] x [h, qd],
 *            [h, kv], [h, kv], the fused QKV's FLOPs
 *   rope     RotaryEmbedding.adjusted_qk (PO:213-268), each layer: position
 *            ids arange + repeat (PO:240-242), torch.max of their first
 *            column and its + seq_len (PO:250-251; compute_freqs_cis returns
 *            at once, the table being cached, PO:167-168), the table gathered
 *            at them (PO:252: b s dh/2 x 2 x 2 fp32, 8 B per token and head-
 *            dim element written, 8 read): 5 launches, 16 T dh; then per
 *            element of q (and of k): q.float() e + 4 (PO:246), the product
 *            with the rotation matrices, written as [.., dh/2, 2, 2] fp32:
 *            read 4, write 8 = 12 (PO:256-257), .sum(5) read 8 write 4 = 12
 *            (PO:258), type_as e + 4 (PO:260): 32 + 2e over 4 launches
 *   kv       GQA (34B, 70B): keys and values unsqueeze(2).expand().flatten(
 *            1, 2) (AT:184-188): a copy each (eager.c)
 *   attn     F.scaled_dot_product_attention, causal, no mask (AT:203-210;
 *            LL:272-279 sets is_causal_mask): PyTorch's FlashAttention-2
 *            backend, the fused core; its output, [b, s, heads, dh] in memory
 *            and transposed back, makes transpose(2, 1).contiguous() (AT:221-
 *            225) a view: no copy
 *   o        dense (AT:226); residual add (LL:146)
 *   ff_ln    as ln; GatedLinearUnit (FF:206-210): wg GEMM, SiLU, w1 GEMM,
 *            the product, w2 GEMM (eager.c's SwiGLU; the fused fc1's FLOPs)
 *   resid2   (LL:155)
 * Forward launches per layer (MHA, t = 1): 8 + 3 + (5 + 8) + 1 + 1 + 1 + 8
 * + (2 + 2) + 1 + 1 = 41 (43 with GQA's copies), of which 7 GEMMs and the
 * attention core.
 * Backward (autograd, eager.c's order), per element of q (and of k) for
 * RoPE: type_as's cast e + 4, the product's gradient with the matrices
 * (read the expanded gradient 4, write 8) and its sum back to q's shape (read
 * 8, write 4): 24, .float()'s cast 4 + e: 32 + 2e over 4 launches (the
 * table has no gradient). Backward launches per layer (MHA, t = 1): w2 2,
 * product 2, w1 2, SiLU 1, wg 2, add 1, ff_ln 16, fork 1, o 2, attn 1, rope
 * 8, v, k, q 6, adds 2, ln 16, fork 1 = 63.
 *
 * The embedding (WordEmbedding, LL:182-190, embedding.py:113) is the fused
 * lookup; the head is dec_norm (LL:216-223: the fp32 RMSNorm), the logits
 * GEMM (embedding.py:128) and the loss of [framework] loss: fms-fsdp's
 * CrossEntropyLoss on the bf16 logits (TU:45-46), no shift, no upcast. */
#include "layer_int.h"

/* RoPE's costs above, e the element size */
static wl_rope fms_rope(const dims *d)
{
	double b = 32.0 + 2.0 * d->e;
	return (wl_rope){.fwd = b, .bwd = b, .fwd_n = 8, .bwd_n = 8, .table = 16.0, .table_n = 5};
}

int wl_fms_forward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = fms_rope(d);
	/* SDPA is the only attention path: no copy of its output */
	return wl_llama_forward(m, d, &r, false, NULL, out);
}

int wl_fms_backward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = fms_rope(d);
	return wl_llama_backward(m, d, &r, NULL, out);
}
