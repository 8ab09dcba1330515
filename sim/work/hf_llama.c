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
	return wl_llama_forward(m, d, &r, true, out);
}

int wl_hf_llama_backward(const work_model *m, const dims *d, work_item *out)
{
	wl_rope r = hf_rope(d);
	return wl_llama_backward(m, d, &r, out);
}
