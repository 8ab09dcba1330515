/* hf_llama.c - the kernel programs of Hugging Face transformers'
 * LlamaDecoderLayer in eager PyTorch with SDPA or flash-attention-2
 * attention (work.h, WORK_LAYER_HF_LLAMA): what the profiles running HF
 * models launch (hf-transformers, deepspeed, pytorch-fsdp and those that
 * include them).
 *
 * Source: transformers 4.36's modeling_llama.py, read as the copy in
 * jquesnelle/yarn at 995db5b5, scaled_rope/modeling_llama_yarn.py (Y),
 * updated "for latest transformers" at 248d9ef (2024-01-17) and the file
 * the memory keys of these profiles already cite (the transformers
 * repository itself is past the mirror's size limit). file:line below are
 * Y's. The decoder layer (Y:955-975):
 *   ln1      LlamaRMSNorm (Y:136-141): the fp32 RMSNorm of eager.c
 *   q, k, v  q_proj, k_proj, v_proj (Y:855-857; FA2 Y:656-658): three GEMMs
 *            of the fused QKV's FLOPs; view + transpose (Y:859-861) are views
 *   rope     rotary_emb returns the cached cos and sin (Y:172-180); each
 *            layer gathers them at position_ids (Y:379-380): 2 launches,
 *            2e b s dh each = 4e T dh; then per element of q (and of k):
 *            q * cos 2e, rotate_half's -x2 e (half the elements read and
 *            written) and torch.cat 2e (Y:351-355), * sin 2e, + 3e (Y:381-
 *            382): 10e over 5 launches
 *   kv       GQA: repeat_kv's expand + reshape (Y:420-429, 874-875): a copy
 *            each (eager.c); flash-attention-2 takes K and V as they are
 *            (Y:711) and repeats nothing: the SDPA path is counted
 *   attn     SDPA, causal with no mask (all-ones masks are dropped by
 *            _prepare_4d_causal_attention_mask_for_sdpa, Y:1197): PyTorch's
 *            FlashAttention-2 backend; its output lies [b, s, heads, dh] in
 *            memory, so transpose(1, 2).contiguous() (Y:900) copies nothing
 *            (FA2: reshape, Y:715). Under unfused attention, the eager
 *            LlamaAttention's matmuls and softmax (the unfused core of
 *            layer.c) and its output's transpose(1, 2).contiguous() (Y:601),
 *            a copy: 2e T qd.
 *   o        o_proj (Y:903); residual add (Y:969)
 *   ln2      post_attention_layernorm; LlamaMLP (Y:415): down_proj(
 *            act_fn(gate_proj(x)) * up_proj(x)), eager.c's SwiGLU
 *   resid2   (Y:975)
 * Forward launches per layer (MHA, t = 1, flash): 8 + 3 + (2 + 10) + 1 +
 * 1 + 1 + 8 + 5 + 1 = 40 (42 with GQA's copies).
 * Backward per element of q (and of k) for RoPE: grad * sin 2e, -x2's
 * negation e, the two slices' backward (zeros, then the slice copied: 2e
 * each), grad * cos 2e, the three gradients of q added (two adds, 3e each):
 * 15e over 9 launches (cos and sin have no gradient). Backward launches per
 * layer (MHA, t = 1): as fms.c with RoPE's 18 for 8: 73.
 *
 * The embedding (embed_tokens) is the fused lookup; the head is the final
 * LlamaRMSNorm, lm_head's GEMM and the loss of [framework] loss (HF Llama's
 * logits.float() and shifted copy, Y:1364-1372: upcast-shift). */
#include "layer_int.h"

/* RoPE's costs above, e the element size */
static wl_rope hf_rope(const dims *d)
{
	double e = d->e;
	return (wl_rope){.fwd = 10.0 * e,
	                 .bwd = 15.0 * e,
	                 .fwd_n = 10,
	                 .bwd_n = 18,
	                 .table = 4.0 * e,
	                 .table_n = 2};
}

int wl_hf_llama_forward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = hf_rope(d);
	return wl_llama_forward(m, d, &r, true, NULL, out);
}

int wl_hf_llama_backward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = hf_rope(d);
	return wl_llama_backward(m, d, &r, NULL, out);
}

/* hf-llama5: the same decoder layer as transformers 5.x runs it on torch
 * 2.11 with SDPA attention, counted from the kernels one layer launched on
 * an H200 (tools/measured/h200-training/kernels-layer.txt, "one decoder
 * layer's forward/backward kernels", kernel names as CUPTI printed them;
 * kernels.csv: 41 forward, 95 backward per layer). What differs from the
 * 4.36 layer above:
 *   rope     the model computes cos and sin once per forward (the sgemm,
 *            cat, cos and sin kernels of the file's "rest of the forward"):
 *            no per-layer table gather (table_n 0). Per layer as above:
 *            q * cos, k * cos, rotate_half * sin (bf16 MulFunctor x4),
 *            neg x2, cat x2 (CatArrayBatchedCopy), the two adds: 10; the
 *            backward's 18 as above (4 bf16 mul, 2 neg, 4 FillFunctor and 4
 *            direct_copy for the slices, 4 of the 16 bf16 adds).
 *   kv       SDPA with enable_gqa: K and V go to attention as they are
 *            (no repeat_kv copy kernels in the list).
 *   attn     cuDNN's fused attention (torch 2.11 picks it on sm90): forward
 *            the fprop kernel and 3 Memsets; backward the bprop kernel,
 *            compute_dot_do_o, convert_dq_to_16bits, 2 fmha_reduce_head
 *            (dK and dV of the shared KV heads), 7 Memsets and 2 DtoD
 *            memcpys: 13 beside the bprop. Bytes (inferred from the kernel
 *            names, not measured): dQ accumulated in fp32 (memset 4 T qd,
 *            its conversion 4 + e), dK and dV reduced from the query heads
 *            in fp32 (4 T qd read, e T kv written, each); dO.O's row sums
 *            and the memsets of the forward's statistics are per row (not
 *            counted).
 *   grads    AccumulateGrad: with gradients already in .grad (a micro-batch
 *            after the step's first) each parameter tensor's new gradient is
 *            added into it: 9 of the 16 bf16 CUDAFunctor_add (q, k, v, o,
 *            gate, up, down, the two norm weights), 3e per parameter. podsim
 *            charges them on every micro-batch (the first of a step launches
 *            none: 9 x layers fewer).
 * Forward: 8 + 3 + 10 + (1 + 3) + 1 + 1 + 8 + 5 + 1 = 41 with GQA, as
 * measured. Backward: the 4.36 count less the expand's 2, plus 13 and 9:
 * 95 with GQA, as measured. Two differences cancel inside it: the list's
 * fp32 RMSNorm backward is 15 kernels (eager.c derives 16: the mean's
 * backward has no kernel of its own in the list), and it holds 6 bf16
 * direct_copy kernels where RoPE's slices explain 4 (2 not attributed). */
static wl_llama_extra hf5_extra(const dims *d)
{
	double e = d->e, T = d->T;
	double mlp = (d->fc1_n > d->f ? 3.0 : 2.0) * d->h * d->f;
	return (wl_llama_extra){
	        .attn_fwd_n = 3,
	        .attn_fwd = 0.0,
	        .attn_bwd_n = 13,
	        .attn_bwd = (8.0 + e) * T * d->qd + 2.0 * (4.0 * T * d->qd + e * T * d->kv),
	        .no_expand_kv = true,
	        .grads = 9,
	        .grad_params = d->h * (2.0 * d->qd + 2.0 * d->kv) + mlp + 2.0 * d->h};
}

static wl_rope hf5_rope(const dims *d)
{
	wl_rope r = hf_rope(d);
	r.table = 0.0;
	r.table_n = 0;
	return r;
}

int wl_hf_llama5_forward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = hf5_rope(d);
	wl_llama_extra x = hf5_extra(d);
	return wl_llama_forward(m, d, &r, true, &x, out);
}

int wl_hf_llama5_backward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = hf5_rope(d);
	wl_llama_extra x = hf5_extra(d);
	return wl_llama_backward(m, d, &r, &x, out);
}
