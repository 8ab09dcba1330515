/* memory.c - activation memory a layer keeps for its backward pass, and the
 * pipeline send size (Korthikanti et al. 2022, "Reducing Activation
 * Recomputation in Large Transformer Models", section 4 and table 2).
 *
 * Symbols: s seq, b micro-batch, h hidden, a heads, g kv_heads, d = h/a,
 * kv = g*d, f ffn, t tp, e bytes per stored element (2 in the paper).
 * The tensors a layer keeps, per sequence position and micro-batch (in units
 * of s*b, i.e. multiply each line by s*b):
 *
 *   attention block                    bytes           GPT (e = 2, kv = h)
 *     ln1 input                        e*h             2h     replicated
 *     QKV GEMM input (ln1 output)      e*h             2h     replicated
 *     Q, K (for QK^T)                  e*(h + kv)      4h     / t
 *     softmax output                   e*a*s           2as    / t
 *     attention dropout mask           a*s             as     / t
 *     dropout output (for x V)         e*a*s           2as    / t
 *     V                                e*kv            2h     / t
 *     proj GEMM input                  e*h             2h     / t
 *     dropout mask after proj          h               h      replicated
 *   MLP block
 *     ln2 input                        e*h             2h     replicated
 *     fc1 input (ln2 output)           e*h             2h     replicated
 *     activation input                 e*f  (SwiGLU 2f) 8h    / t
 *     fc2 input (activation output)    e*f             8h     / t
 *     dropout mask after fc2           h               h      replicated
 *
 * Summing the GPT column: replicated 2+2+1+2+2+1 = 10h, split 4+2+2+8+8 = 24h,
 * attention scores 5as: s*b*h*(10 + 24/t + 5as/(h t)), the table's "no SP" row
 * (34 + 5as/h at t = 1). Sequence parallelism splits the replicated part too:
 * s*b*h*(34/t + 5as/(h t)). Selective recomputation recomputes the score
 * tensors (drops the 5as term); full recomputation keeps only the layer input,
 * e*s*b*h (2sbh in the paper), split over t with SP.
 *
 * In general the replicated part is (4e + 2)*h, the split part
 * e*(2h + 2kv + 2f) for GELU and e*(2h + 2kv + 3f) for SwiGLU (fc1 writes the
 * gate and the up projection, 2f, which the activation reads; it writes f),
 * and the score part (2e + 1)*a*s ((e + 5)*a*s where Megatron's fused
 * softmax refuses the shape and PyTorch's saves its fp32 output:
 * work_softmax_fused). Dropout masks are 1 byte and are kept for
 * every model (Llama-style models train without dropout: a small overcount of
 * 2sbh + as^2b bytes). Element size: the training dtype's, but at least 2 bytes
 * (fp8 training keeps its activations in 16 bits), except three GEMM
 * inputs kept for the weight gradients, which Transformer Engine keeps in fp8
 * (gemm_in_bytes), and the attention output, 16-bit and under delayed
 * scaling a byte more (proj_in_bytes); fp32 doubles the tensors, not the
 * masks.
 *
 * MLA (work_model_is_mla; layer.c's MLA program): the attention block keeps,
 * besides ln1's input and output and the dropout mask, each latent's norm
 * input and output (the up projections' inputs: TE's LayerNormLinear saves
 * the local norm output and gathers it again in backward), 2e(qr + kr) per
 * token, replicated without SP (2e kr without q_lora_rank); and at the core
 * Q, K (a (dn + dr) each), V and O (a dv each) split over TP, for the
 * e*(2q/t + 2kv) above: e*a*(2(dn + dr) + 2dv)/t. The RoPE and the
 * concatenations keep nothing (a rotation by constant tables; cat and split
 * save no tensors).
 * Selective recomputation's modules (work.h WORK_RC_*): core_attn drops the
 * score part (the only thing the unfused core keeps that flash does not);
 * mla_up_proj the latents' norm outputs and Q, K, V, e(q_r + k_r) +
 * e a (2(dn + dr) + dv)/t; mlp a dense layer's MLP tensors past its input,
 * e(fc1 + f)/t; moe_act the experts' activation output, e k imb f/t.
 */
#include "work.h"

double work_act_elem_bytes(const work_shard *sh)
{
	double e = hw_dtype_bytes(sh->dtype);
	return e < 2.0 ? 2.0 : e;
}

/* Bytes per element of a GEMM input the layer keeps for its weight gradient:
 * in fp8 training Transformer Engine's modules keep the quantized input, one
 * byte per element, and drop the other usage's copy (TransformerEngine
 * d0067d0d pytorch/module/linear.py:600-616 "Discard row-wise data since it
 * is not needed in backward pass"; layernorm_linear.py:478-487 its ln_out;
 * layernorm_mlp.py:636-655 the activation's output quantized for fc2;
 * grouped_linear.py:545-546 the experts'). The fused count below is TE's
 * layers (Megatron-Core, NeMo, Megatron-Bridge): the inputs of QKV (ln1's
 * output), of fc1 (ln2's output; an expert's permuted rows) and of fc2 (the
 * activation's output), and MLA's up projections (the latents' norm
 * outputs); the output projection's is proj_in_bytes. Everything else stays
 * 16-bit (work_act_elem_bytes). */
static double gemm_in_bytes(const work_shard *sh, double e)
{
	return sh->dtype == HW_FP8 ? 1.0 : e;
}

/* Bytes per element of the output projection's input, the attention's
 * output O. The fused attention saves O for its own backward in 16 bits
 * (TE d0067d0d pytorch/attention/dot_product_attention/backends.py:1631,
 * f16_tensors = (q, k, v, out_f16); the attention stays 16-bit under fp8
 * GEMMs unless fp8_dpa), so O is kept whatever the projection does: e, the
 * one tensor both keep in 16-bit training. Under fp8 TE's Linear keeps its
 * own quantized copy beside it (linear.py:380-437, 600-616), one byte more,
 * which Megatron-Core turns off with save_original_input for every recipe but
 * delayed scaling ("linear_proj also saves the quantized tensor of this
 * output", core/transformer/attention.py:428-444 at d98e8a64, TE >= 2.6):
 * e + 1 under delayed scaling, e otherwise. When selective recomputation
 * checkpoints the core attention (attn_recomputed), the attention keeps
 * nothing and O lives only as what the projection saved: e, or its 1-byte
 * copy under delayed scaling. */
static double proj_in_bytes(const work_shard *sh, double e, bool attn_recomputed)
{
	if (sh->dtype != HW_FP8 || !sh->fp8_delayed)
		return e;
	return attn_recomputed ? 1.0 : e + 1.0;
}

/* Per-token activation bytes on one rank: the part that every TP rank keeps in
 * full without SP (rep), the part split over TP (split, already per rank) and
 * the attention score part (score, per rank). The per-rank K/V width is
 * d*max(g/t, 1): with fewer kv heads than ranks each rank keeps one. e8 is
 * a saved GEMM input's element size (gemm_in_bytes): ln1's and ln2's
 * outputs in rep, the activation's output in split; ep the attention
 * output's (proj_in_bytes). */
static void act_parts(const work_model *m, double e, double e8, double ep, double s, double t,
		      double *rep, double *split, double *score)
{
	double h = m->hidden, a = m->heads;
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double kv = (g >= t ? g / t : 1.0) * hd, q = m->heads * hd;
	double f = m->ffn > 0 ? m->ffn : 4.0 * m->hidden;
	double fc1 = m->act == WORK_ACT_SWIGLU ? 2.0 * f : f;
	*rep = (2.0 * e + 2.0 * e8 + 2.0) * h;
	/* a parallel block (work_layer_norms): one norm's input, and the MLP
	 * reads the attention's input, the same tensor */
	if (m->parallel_residual)
		*rep -= (e + e8) * h;
	*split = (e * q + ep * q + e * fc1 + e8 * f) / t + 2.0 * e * kv;
	if (work_model_is_mla(m)) {
		double qk = (double)m->qk_nope_head_dim + m->qk_rope_head_dim, dv = m->v_head_dim;
		*rep += (e + e8) * ((double)m->q_lora_rank + m->kv_lora_rank);
		*split = (e * a * (2.0 * qk + dv) + ep * a * dv + e * fc1 + e8 * f) / t;
	}
	*score = (2.0 * e + 1.0) * a * s / t;
}

double work_activation_bytes(const work_model *m, const work_shard *sh, work_recompute rc)
{
	double s = sh->seq, b = sh->micro_batch;
	double t = sh->tp > 0 ? sh->tp : 1;
	double e = work_act_elem_bytes(sh);
	bool sp = sh->sp && t > 1;
	if (rc == WORK_RECOMPUTE_FULL) /* split over TP by SP or distribute_saved */
		return e * s * b * m->hidden / (sp || sh->distribute_saved ? t : 1.0);
	unsigned k = rc == WORK_RECOMPUTE_SELECTIVE
			     ? (sh->recompute_modules ? sh->recompute_modules : WORK_RC_CORE_ATTN)
			     : 0;
	double rep, split, score, e8 = gemm_in_bytes(sh, e);
	double ep = proj_in_bytes(sh, e, (k & WORK_RC_CORE_ATTN) != 0);
	act_parts(m, e, e8, ep, s, t, &rep, &split, &score);
	if ((k & WORK_RC_MLA_UP_PROJ) && work_model_is_mla(m)) {
		/* the checkpoint keeps its inputs, the latents, not their norms'
		 * outputs nor Q, K, V: e(q_r + k_r) replicated, e a (2(dn + dr)
		 * + dv) / t split */
		double qk = (double)m->qk_nope_head_dim + m->qk_rope_head_dim;
		rep -= e8 * ((double)m->q_lora_rank + m->kv_lora_rank);
		split -= e * m->heads * (2.0 * qk + m->v_head_dim) / t;
	}
	if (k & WORK_RC_MLP) { /* keeps the MLP's input (ln2's output) only */
		double f = m->ffn > 0 ? m->ffn : 4.0 * m->hidden;
		split -= (e * (m->act == WORK_ACT_SWIGLU ? 2.0 * f : f) + e8 * f) / t;
	}
	double per_token = (sp ? rep / t : rep) + split;
	/* PyTorch's softmax in place of the fused kernel (work_softmax_fused)
	 * saves its fp32 output: (e + 5) a s / t with the mask and dropout's
	 * output, not (2e + 1) */
	if (!work_softmax_fused(m, sh))
		score = (e + 5.0) * m->heads * s / t;
	/* Ulysses (cp_alltoall): a rank's scores are the whole sequence's of
	 * 1/cp of the heads, a / cp x (s cp)^2 = cp times its tokens' */
	if (sh->cp_alltoall && sh->cp > 1)
		score *= sh->cp;
	if (!sh->flash && (rc == WORK_RECOMPUTE_NONE || !(k & WORK_RC_CORE_ATTN)))
		per_token += score; /* flash attention keeps no s x s tensors */
	return s * b * per_token;
}

/* What a DeepSpeed-MoE layer (layer.c "DeepSpeed-MoE") keeps per token of
 * the sequence: S = s b tokens on the rank (s b / t with SP), k cf slots
 * per token, 1/t of them here (DeepSpeed drops them whatever SP). Per slot
 * here fc1's input, output and the activation's output; the combine keeps
 * the slots gathered whole (e h per slot) and the weights cast to 16 bits,
 * the dispatch its 16-bit mask (2 + 2 bytes per token and slot: EC = k cf
 * S, quadratic in the micro-batch's tokens); the gate its fp32
 * probabilities and capacity one-hot (4E + 4C). A residual MoE's MLP keeps
 * its tensors whole (e fc1 + e f per shared expert, not split over TP) and
 * the weighted sum the two outputs (2 e h). */
static double gshard_bytes(const work_model *m, const work_shard *sh, double e, double e8,
			   double imb)
{
	double t = sh->tp > 0 ? sh->tp : 1, h = m->hidden, s = sh->seq, b = sh->micro_batch;
	double f = m->ffn, fc1 = m->act == WORK_ACT_SWIGLU ? 2.0 * f : f;
	double S = sh->sp && t > 1 ? s * b / t : s * b;
	double kc = m->moe_topk * (sh->moe_capacity > 0 ? sh->moe_capacity : imb);
	double EC = kc * S, C = EC / m->moe_experts;
	double per_tok = S / (s * b); /* the rank's tokens per token of the sequence */
	double res = m->moe_shared_experts > 0
	                     ? m->moe_shared_experts * (e * fc1 + e8 * f) + 2.0 * e * h
	                     : 0.0;
	return per_tok * (kc * (e8 * h + e * fc1 + e8 * f) / t + kc * e * h + 4.0 * EC +
			  4.0 * m->moe_experts + 4.0 * C + res);
}

/* An MoE layer keeps, instead of the dense MLP's split tensors e*(fc1 + f)/t
 * per token, per routed row (k*imbalance rows per local token, Tn = T/t local
 * tokens): the permuted input (h), fc1's output (fc1), the activation's output
 * (f) and fc2's output before the combine (h), plus the fp32 router scores
 * (4E per local token) and the shared experts' TP-split MLP tensors
 * e*S*(fc1 + f)/t; per token of the sequence that is
 *   e*k*imb*(2h + fc1 + f)/t + 4E/t + e*S*(fc1 + f)/t.
 * A dense layer of an MoE model uses dense_ffn. */
double work_activation_bytes_at(const work_model *m, const work_shard *sh, int layer,
				work_recompute rc)
{
	if (m->moe_experts == 0)
		return work_activation_bytes(m, sh, rc);
	work_model x = *m;
	if (!work_layer_is_moe(m, layer)) {
		x.ffn = m->dense_ffn > 0 ? m->dense_ffn : m->ffn;
		return work_activation_bytes(&x, sh, rc);
	}
	if (rc == WORK_RECOMPUTE_FULL)
		return work_activation_bytes(m, sh, rc);
	double t = sh->tp > 0 ? sh->tp : 1, e = work_act_elem_bytes(sh), h = m->hidden;
	double e8 = gemm_in_bytes(sh, e);
	double f = m->ffn, fc1 = m->act == WORK_ACT_SWIGLU ? 2.0 * f : f;
	double imb = m->moe_imbalance >= 1 ? m->moe_imbalance : 1.0;
	double dense_mlp = (e * fc1 + e8 * f) / t; /* what the dense formula counted */
	double s = sh->seq, b = sh->micro_batch, moe;
	if (sh->moe_dispatcher == WORK_MOE_GSHARD) {
		moe = gshard_bytes(m, sh, e, e8, imb);
	} else {
		/* per routed row: the permuted input (fc1's, e8), fc1's output, the
		 * activation's output (fc2's input, e8), fc2's output */
		moe = (m->moe_topk * imb * (e8 * h + e * h + e * fc1 + e8 * f) +
		       4.0 * m->moe_experts + m->moe_shared_experts * (e * fc1 + e8 * f)) /
		      t;
		if (rc == WORK_RECOMPUTE_SELECTIVE && (sh->recompute_modules & WORK_RC_MOE_ACT))
			moe -= e8 * m->moe_topk * imb * f / t; /* the activation's output */
	}
	work_shard x2 = *sh; /* recompute_modules' mlp is a dense layer's only */
	x2.recompute_modules &= ~(unsigned)WORK_RC_MLP;
	return work_activation_bytes(m, &x2, rc) + s * b * (moe - dense_mlp);
}

/* The activation crosses stages in the same 16-bit (or wider) form. */
double work_p2p_bytes(const work_model *m, const work_shard *sh)
{
	double t = sh->tp > 0 ? sh->tp : 1;
	bool sp = sh->sp && t > 1;
	double bytes = (double)sh->seq * sh->micro_batch * m->hidden * work_act_elem_bytes(sh);
	return sp ? bytes / t : bytes;
}

/* Megatron-Core's local DotProductAttention (--transformer-impl local;
 * LocalSpecProvider.core_attention, core/models/backends.py:131 at
 * d98e8a64) takes the [b x np, sq, sk] tensor QK^T is written into from
 * parallel_state's GlobalMemoryBuffer (transformer/dot_product_attention.py:
 * 187-199, np = heads / tp, K repeated to every query head under GQA:
 * :169-175) in query.dtype. The buffer keeps one tensor per (name, dtype)
 * and only grows (core/utils.py:727-753): allocated at the first forward,
 * it stays between steps, b a s^2 e / t bytes. The softmax's output and
 * dropout's (work_activation_bytes' 5as term) are separate tensors. The
 * 64M CI model at b 4, 8 heads, s 1024, bf16: 4 x 8 x 1024^2 x 2 =
 * 64 MiB. */
double work_scores_buffer_bytes(const work_model *m, const work_shard *sh)
{
	if (sh->flash)
		return 0;
	double t = sh->tp > 0 ? sh->tp : 1, s = sh->seq;
	double cp = sh->cp_alltoall && sh->cp > 1 ? sh->cp : 1; /* Ulysses: cp x */
	return cp * sh->micro_batch * (m->heads / t) * s * s * work_act_elem_bytes(sh);
}

/* Eager and compiled code (work_saved). Per token of one micro-batch on one
 * rank, t = tp (the parts split over TP divided by t, the replicated ones only
 * with SP), e the activation element size, q = a*d, kv = g*d (kv_e = q when
 * K and V are repeated to every query head), f the MLP branch width. Eager
 * PyTorch keeps what its autograd nodes save:
 *   two norms                  2 * n * h   n = e, 2e, 4 + e or 8 for RMSNorm code
 *                                          (work_norm_saved), e for a layer-norm
 *                                          kernel; 8 (4) with an fp32 residual
 *   attention input            c_a * e * h c_a = 1, or under autocast the casts of
 *                                          the separate Q, K, V projections (3;
 *                                          1 for GPT-style fused QKV)
 *   Q, K, V at the attention   e * (q + 2 kv_e) / t
 *   attention output           e * q / t   (twice with attn_out_copy: the copy
 *                                          that the output projection keeps)
 *   MLP input                  c_m * e * h c_m = 2 under autocast with SwiGLU's
 *                                          gate and up projections, else 1
 *   MLP                        SwiGLU 4 e f / t (gate output, activation output,
 *                                          up output, product); GELU 2 e f / t
 *   unfused attention          (2e + 1) a s / t: softmax output, dropout mask,
 *                                          dropout output; (e + 5) a s / t
 *                                          under autocast (fp32 softmax)
 *   residual dropout           2 (e + 1) h: mask and output of both branches,
 *                                          where the code has dropout (GPT-2)
 * A parallel block (parallel_residual: GPT-J, Phi) keeps one norm's n h and
 * no MLP input of its own: its MLP reads the attention's input tensor. Phi-1.5
 * under Lit-GPT (e = 2, a LayerNorm kernel, fused QKV, the output copy, GELU,
 * h = q = 2048, f = 8192): e h + e h + e (q + 2q) + 2 e q + 2 e f = 4,096 +
 * 4,096 + 12,288 + 8,192 + 32,768 = 61,440 bytes per token and layer, against
 * a sequential block's 69,632 (its second norm's input and MLP input, 4h).
 * Hugging Face Llama-2-7B (e = 2, fp32-upcasting RMSNorm, repeat_kv, the
 * copy): 12h + 2h + 6h + 4h + 2h + 8f = 26h + 8f = 194,560 bytes per token
 * and layer, the 27 hidden-size copies plus the layer output that stas00's
 * ml-engineering measured for Llama-3.1-8B (28.0 copies; memory notes 2.3).
 * Compiled code (Inductor's partitioner) keeps both norms' 16-bit input and
 * output (4 e h), the attention input, Q, K, V unrepeated, the attention
 * output and the MLP input, and SwiGLU's gate and up outputs and their
 * product (3 e f; 2 e f for GELU): 16h + 4kv + 6f at e = 2, 102,400 bytes for
 * Llama-3.2-3B against 103,278 implied by torchtune's measured -9.0 GiB
 * from eager to compiled (memory.csv MC01 -> MC02). MoE layers add the same
 * routed-expert difference as the fused count (work_activation_bytes_at). */
static double eager_bytes(const work_model *m, const work_shard *sh, const work_saved *sv)
{
	double s = sh->seq, t = sh->tp > 0 ? sh->tp : 1, e = work_act_elem_bytes(sh);
	bool sp = sh->sp && t > 1, amp = sv->fp32_residual;
	bool swiglu = m->act == WORK_ACT_SWIGLU;
	double h = m->hidden, a = m->heads;
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double q = a * hd, kv = (g >= t ? g : t) * hd, f = m->ffn > 0 ? m->ffn : 4.0 * h;
	double rep, split, score = 0;
	/* a parallel block (work_layer_norms): one norm, the MLP reading the
	 * attention's input (the same tensor) */
	bool par = m->parallel_residual;
	if (sv->kind == WORK_SAVED_COMPILED) {
		rep = par ? 2 * e * h + e * h : 4 * e * h + e * h + e * h;
		split = e * (q + 2 * kv + q) + (swiglu ? 3 : 2) * e * f;
		if (!sh->flash)
			score = (2 * e + 1) * a * s;
	} else {
		static const double norm_e[] = {1, 2, 1, 0}; /* times e */
		static const double norm_c[] = {0, 0, 4, 8}; /* plus bytes */
		/* a layer norm runs as one kernel that keeps its input (with mean
		 * and rstd): the code's RMSNorm choice does not apply to it */
		bool ln = m->norm == WORK_NORM_LAYERNORM || sv->norm == WORK_SAVE_NORM_FUSED;
		double n = ln ? e : norm_e[sv->norm] * e + norm_c[sv->norm];
		if (amp)
			n = ln ? 4 : 8;
		double ca = amp && swiglu ? 3 : 1, cm = amp && swiglu ? 2 : 1;
		double kve = sv->expand_kv ? q : kv;
		rep = par ? n * h + ca * e * h : 2 * n * h + ca * e * h + cm * e * h;
		if (sv->dropout)
			rep += 2 * (e + 1) * h;
		split = e * (q + 2 * kve) + e * q * (sv->attn_out_copy ? 2 : 1) +
			(swiglu ? 4 : 2) * e * f;
		if (!sh->flash)
			score = (amp ? e + 5 : 2 * e + 1) * a * s;
	}
	return s * sh->micro_batch * ((sp ? rep / t : rep) + (split + score) / t);
}

/* Nanotron's Llama code (huggingface/nanotron 0e0a27ea: models/llama.py LL,
 * parallel/tensor_parallel/functional.py TF) with flash-attn v2.6.3
 * (418d6771; its fast-modeling extra allows >= 2.5.0, < 2.7.0:
 * pyproject.toml), per token of one micro-batch on one rank, symbols as
 * above (a = heads, g = kv heads, d = head width, q = a d, kv = g d):
 *   two norms        2 (e h + 4)  TritonRMSNorm (LL:704, 712) is flash-attn's
 *                                 layer_norm_fn: without a residual it saves
 *                                 its input itself and the fp32 rstd per row
 *                                 (ops/triton/layer_norm.py:304-318, 370-380,
 *                                 763-764); its output is not kept
 *   qkv, gate_up in  2 e h        the column linears save their input: the
 *                                 local sequence shard under SP with
 *                                 tp_recompute_allgather (its default,
 *                                 config/parallelism_config.py:37; TF:213-214),
 *                                 else the whole input (TF:132, 139, 443-445)
 *   Q                e q / t      GQA: its own transpose().contiguous() copy
 *                                 (LL:460-462); without GQA q, k and v are
 *                                 views of one permute().contiguous() copy of
 *                                 the packed projection (LL:470-474), which
 *                                 flash-attn's saved q keeps whole:
 *                                 e (q + 2 kv) / t
 *   K, V             2 e kv / t   torch.cat then permute().contiguous() into
 *                                 one [b, s, 2, g, d] copy (LL:655-657); the
 *                                 rotary runs in place on Q and on it, saving
 *                                 only its cos/sin caches (layers/rotary.py:
 *                                 455-480, 246-249); K and V are views of it
 *                                 (LL:660); the earlier layout copies and the
 *                                 cat die in the forward
 *   attention out    e q / t      flash_attn_varlen_func (LL:286) saves q, k,
 *   softmax LSE      4 a / t      v, out and the fp32 LSE [a/t, total tokens]
 *                                 (flash_attn_interface.py:637-638,
 *                                 csrc/flash_attn/flash_api.cpp:691); o_proj
 *                                 takes the output's transposed [s, b, q] view
 *                                 (LL:687-690): the async linear (SP, or t = 1
 *                                 as the benchmarks run it) saves the view
 *                                 (TF:466-471); without SP and t > 1 the
 *                                 plain F.linear under autograd (TF:595) folds
 *                                 it with a copy when b > 1, which its matmul
 *                                 keeps: + e q / t
 *   MLP              4 e f / t    split gives views (LL:200): SiLU saves the
 *                                 gate view, which keeps the packed [gate, up]
 *                                 output whole (2f), the product saves SiLU's
 *                                 output (f) and up (the same packed tensor),
 *                                 down_proj its input, the product (f)
 * The residual adds save nothing (LL:727, 732). The replicated part is
 * 4 e h + 8, /t with SP; the split part e (2q + 2kv) + 4a + 4ef (GQA) or
 * e (2q + 4kv) + 4a + 4ef (MHA), /t. Llama 3.2 1B (h 2048, q 2048, kv 512,
 * a 32, f 8192, e 2, t 1): 16,392 + 75,904 = 92,296 bytes per token and layer,
 * the eager count's 92,160 (fused norms, no repeat_kv, no output copy) plus
 * the LSE (128) and the two rstd (8). nanotron.c's time programs move the
 * same tensors: its qkv_layout and kv_pack kernels are these copies. */
static double nanotron_bytes(const work_model *m, const work_shard *sh)
{
	double s = sh->seq, t = sh->tp > 0 ? sh->tp : 1, e = work_act_elem_bytes(sh);
	bool sp = sh->sp && t > 1;
	double h = m->hidden, a = m->heads;
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double q = a * hd, kv = (g >= t ? g : t) * hd, f = m->ffn > 0 ? m->ffn : 4.0 * h;
	bool gqa = g != a;
	double rep = 2 * (e * h + 4) + 2 * e * h;
	double split = e * (gqa ? q : q + 2 * kv) + 2 * e * kv + e * q + 4 * a +
		       (m->act == WORK_ACT_SWIGLU ? 4 : 2) * e * f;
	if (!sp && t > 1 && sh->micro_batch > 1)
		split += e * q;
	return s * sh->micro_batch * ((sp ? rep / t : rep) + split / t);
}

double work_saved_bytes_at(const work_model *m, const work_shard *sh, int layer,
			   work_recompute rc, const work_saved *sv)
{
	if (!sv || sv->kind == WORK_SAVED_FUSED)
		return work_activation_bytes_at(m, sh, layer, rc);
	double t = sh->tp > 0 ? sh->tp : 1;
	bool sp = sh->sp && t > 1;
	if (rc == WORK_RECOMPUTE_FULL) /* the layer input, fp32 under autocast */
		return (sv->fp32_residual ? 4.0 : work_act_elem_bytes(sh)) * sh->seq *
		       sh->micro_batch * m->hidden / (sp || sh->distribute_saved ? t : 1.0);
	work_shard x = *sh;
	if (rc == WORK_RECOMPUTE_SELECTIVE)
		x.flash = true; /* the score tensors are recomputed */
	double moe = work_activation_bytes_at(m, sh, layer, rc) - work_activation_bytes(m, sh, rc);
	work_model d = *m;
	if (m->moe_experts > 0 && !work_layer_is_moe(m, layer)) {
		d.ffn = m->dense_ffn > 0 ? m->dense_ffn : m->ffn;
		moe = 0;
	}
	if (sv->kind == WORK_SAVED_NANOTRON) /* flash attention only: no scores */
		return nanotron_bytes(&d, &x) + (moe > 0 ? moe : 0);
	return eager_bytes(&d, &x, sv) + (moe > 0 ? moe : 0);
}
