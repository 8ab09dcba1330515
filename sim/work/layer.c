/* layer.c - the kernel programs one tensor-parallel rank runs for a transformer
 * layer, the embedding and the logits + loss, forward and backward.
 *
 * Symbols: b micro-batch, s sequence, T = b*s tokens, h hidden, f ffn, a heads,
 * g kv_heads, d = h/a, t tp, e bytes per element of the training dtype.
 * Outputs are FLOPs and HBM bytes (hw turns them into time) and TP collectives
 * with the full buffer size (net turns them into time).
 *
 * Forward layer on one rank (Megatron TP, Shoeybi et al. 2019; SP, Korthikanti
 * et al. 2022):
 *   ln1      norm on Tn tokens (Tn = T/t with SP, T without)   read+write 2eTnh
 *  [tp_ag1]  SP: all-gather of the norm output, T*h*e
 *   qkv      GEMM [T, h] x [h, (h + 2*kv)/t]    column parallel, GQA-aware
 *   attn     flash-attention core: 4*b*s^2*h/t FLOPs (QK^T and scores x V,
 *            2*b*s^2*h each; NOT halved for the causal mask, as the papers
 *            count), bytes = reading Q, K, V and writing O
 *   proj     GEMM [T, h/t] x [h/t, h]           row parallel
 *  [tp_ar1]  no SP: all-reduce of T*h*e  | SP: [tp_rs1] reduce-scatter, T*h*e
 *   resid1   bias + dropout + residual add: read 2, write 1, mask 1 byte
 *   ln2, [tp_ag2], fc1 GEMM [T, h] x [h, f/t] (SwiGLU: 2f/t, gate and up fused),
 *   act      gelu: read f, write f; swiglu: read 2f, write f (memory-bound)
 *   fc2      GEMM [T, f/t] x [f/t, h]           row parallel
 *  [tp_ar2 | tp_rs2], resid2
 * With GQA the t ranks split the g kv heads; when g < t each rank still holds
 * one (Megatron replicates them), so the per-rank kv width is d*max(g/t, 1).
 * With tp == 1 there are no communication items (and SP is meaningless).
 *
 * Backward mirrors it. A GEMM Y[m,n] = X[m,k] W[k,n] becomes two GEMMs of the
 * same cost: dgrad dX[m,k] = dY[m,n] W^T[n,k] and wgrad dW[k,n] = X^T[k,m]
 * dY[m,n]. The attention core costs twice its forward FLOPs (the papers' count;
 * FlashAttention's recomputation of QK^T is not added). Memory-bound kernels
 * move about twice their forward bytes. Collectives: without SP an all-reduce of
 * the input gradient after the column-parallel dgrads (fc1, qkv); with SP an
 * all-gather of the output gradient before the row-parallel GEMMs (fc2, proj)
 * and a reduce-scatter after the column-parallel dgrads. The collective is
 * listed between the dgrad and the wgrad, the order Megatron issues them (it
 * overlaps the collective with the wgrad). Megatron's SP also re-gathers the
 * saved norm output for the wgrad, overlapped with the dgrad; that all-gather
 * is not listed.
 */
#include "layer_int.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


dims wl_dims(const work_model *m, const work_shard *sh)
{
	dims d;
	int t = sh->tp > 0 ? sh->tp : 1;
	int g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double f = m->ffn > 0 ? m->ffn : 4.0 * m->hidden;
	double kv_heads = g >= t ? (double)g / t : 1.0;
	d.b = sh->micro_batch;
	d.s = sh->seq;
	d.T = d.b * d.s;
	d.comm = t > 1;
	d.sp = d.comm && sh->sp;
	d.t = t;
	d.Tn = d.sp ? d.T / t : d.T;
	d.h = m->hidden;
	/* fp8 training (Transformer Engine) casts only GEMM operands to 8 bits:
	 * activations, their communication and attention stay 16-bit. */
	d.eg = hw_dtype_bytes(sh->dtype);
	d.e = d.eg < 2.0 ? 2.0 : d.eg;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	d.kv = kv_heads * hd;
	d.qd = m->heads * hd / t;
	d.qkv_n = d.qd + 2.0 * d.kv;
	d.f = f / t;
	d.fc1_n = m->act == WORK_ACT_SWIGLU ? 2.0 * d.f : d.f;
	d.V = (double)m->vocab / t;
	d.ah = (double)m->heads / t;
	d.dh = hd;
	d.flash = sh->flash;
	d.softmax_fused = work_softmax_fused(m, sh);
	d.impl = sh->flash_impl;
	d.cp = sh->cp > 1 ? sh->cp : 1;
	d.cp_ag = d.cp > 1 && sh->cp_allgather;
	d.cp_a2a = d.cp > 1 && sh->cp_alltoall;
	d.gqa = g != m->heads;
	d.window = 0; /* per layer: wl_layer_dims */
	d.kw = d.vw = d.kv;
	d.ow = d.qd;
	d.mla = work_model_is_mla(m);
	if (d.mla) {
		d.qr = m->q_lora_rank;
		d.kr = m->kv_lora_rank;
		d.dr = m->qk_rope_head_dim;
		d.dn = m->qk_nope_head_dim;
		d.dv = m->v_head_dim;
		d.dh = d.dn + d.dr;
		d.qd = d.kw = d.ah * d.dh;
		d.vw = d.ow = d.ah * d.dv;
		d.kv = 0.5 * (d.kw + d.vw); /* a ring block carries K and V */
		d.qkv_n = 0;
	}
	return d;
}

work_item *wl_push(prog *p, work_item_kind kind, const char *name)
{
	assert(p->n < WORK_MAX_ITEMS);
	work_item *it = &p->v[p->n++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	snprintf(it->name, sizeof it->name, "%s", name);
	return it;
}

/* `batch` GEMMs C[m,n] = A[m,k] B[k,n] in one kernel: 2mnk FLOPs each, reading
 * A and B and writing C. */
void wl_gemm_b(prog *p, const dims *d, const char *name, double m, double n, double k,
		   double batch)
{
	work_item *it = wl_push(p, WORK_ITEM_KERNEL, name);
	it->kernel = WORK_KERNEL_GEMM;
	it->m = m;
	it->n = n;
	it->k = k;
	it->batch = batch;
	it->flops = 2.0 * m * n * k * batch;
	it->bytes = d->eg * (m * k + k * n + m * n) * batch;
}

void wl_gemm(prog *p, const dims *d, const char *name, double m, double n, double k)
{
	wl_gemm_b(p, d, name, m, n, k, 1.0);
}

void wl_mem(prog *p, const char *name, double bytes)
{
	work_item *it = wl_push(p, WORK_ITEM_KERNEL, name);
	it->kernel = WORK_KERNEL_MEM;
	it->bytes = bytes;
}

static void attn(prog *p, const dims *d, const char *name, double flops, double bytes,
		 bool backward)
{
	work_item *it = wl_push(p, WORK_ITEM_KERNEL, name);
	it->kernel = WORK_KERNEL_ATTN;
	it->flops = flops;
	it->bytes = bytes;
	it->attn_bwd = backward;
	it->attn_impl = d->impl;
	it->attn_qhd = d->T * 0.5 * (d->qd + d->ow); /* T ah (d_qk + d_v)/2 */
	/* one exponential per score element, forward or backward (P recomputed
	 * once): the score elements of the papers' FLOPs, 2 (d_qk + d_v) per
	 * element and head, the backward's count of FLOPs twice the forward's */
	it->attn_exps = (backward ? 0.5 : 1.0) * flops * d->ah / (2.0 * (d->qd + d->ow));
}

/* A TP collective; only emitted when tp > 1. */
void wl_comm(prog *p, const dims *d, const char *name, work_comm c, double bytes)
{
	if (!d->comm)
		return;
	work_item *it = wl_push(p, WORK_ITEM_COMM, name);
	it->comm = c;
	it->comm_bytes = bytes;
}

/* Collective of a row-parallel GEMM's output (forward): all-reduce, or
 * reduce-scatter with SP; of a column-parallel GEMM's input gradient (backward)
 * likewise. */
void wl_comm_reduce(prog *p, const dims *d, const char *ar, const char *rs)
{
	double bytes = d->T * d->h * d->e;
	if (d->sp)
		wl_comm(p, d, rs, WORK_COMM_REDUCESCATTER, bytes);
	else
		wl_comm(p, d, ar, WORK_COMM_ALLREDUCE, bytes);
}

/* SP only: all-gather of a sequence-sharded [T, h] activation or gradient. */
void wl_comm_gather(prog *p, const dims *d, const char *name)
{
	if (d->sp)
		wl_comm(p, d, name, WORK_COMM_ALLGATHER, d->T * d->h * d->e);
}

/* Norm: read x, write y (the parameters are negligible). */
double wl_norm_bytes(const dims *d)
{
	return 2.0 * d->e * d->Tn * d->h;
}

/* Bias + dropout + residual: read the GEMM output and the residual, write the
 * sum and a 1-byte dropout mask. */
static double resid_bytes(const dims *d)
{
	return (3.0 * d->e + 1.0) * d->Tn * d->h;
}

static double act_bytes(const work_model *m, const dims *d)
{
	double io = m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0; /* (2f in +) f out */
	return io * d->e * d->T * d->f;
}

/* Local queries (s tokens of this rank) against the whole sequence's keys
 * (s * cp): 4*b*s*(s*cp)*h/t, the whole layer's 4*b*S^2*h/t over cp ranks. */
static double attn_bytes(const dims *d);

static double attn_flops(const dims *d)
{
	/* QK^T over the q/k width, P V over the value width (4 b s^2 qd when
	 * they are equal) */
	return 2.0 * d->b * d->s * d->s * d->cp * (d->qd + d->ow);
}


/* Transformer Engine's ring attention merges the steps' partial results in
 * separate memory-bound kernels (AttnFuncWithCP, transformer_engine/pytorch/
 * attention.py at NVIDIA/TransformerEngine 7d576ed2, the TE of NeMo 24.07's
 * Dockerfile.ci; e bytes per element of q's 16-bit dtype, T = b s the
 * rank's tokens, causal load balancing: rank r holds chunks r and 2cp-1-r).
 * Forward (lines 829-890): out = zeros (write e T qd); after the steps, per
 * step k an out correction, out.add_(out_k * exp(lse_k - lse)) in eager
 * PyTorch: read out_k (e), write the fp32 product (4), read it (4) and out
 * (e), write out (e): 3e + 8 bytes per element of out_k, which is all of
 * the rank's queries at k = 0 and for ranks r >= k (the received chunks
 * precede both local ones), the second half for r < k: averaged over the
 * ranks, a fraction 1 - k/(2 cp). Backward (lines 975-1360): K and V copied
 * into the ring buffer (read and write 2 T kv), then per step dq
 * accumulated (copy at k = 0: 2e, add_: 3e per element, the same fraction
 * of T qd) and the step's dK, dV concatenated (read and write, 2e) and
 * accumulated into the travelling dkv (2e at k = 0, else 3e) over 2 T kv
 * times the fraction of the keys the step saw: all at k = 0 and for r < k,
 * the first half for r >= k: 1/2 + k/(2 cp). The lse corrections (T a
 * values) are not charged. */
static double ring_q_share(const dims *d, int k)
{
	return k == 0 ? 1.0 : 1.0 - (double)k / (2.0 * d->cp);
}

static double ring_kv_share(const dims *d, int k)
{
	return k == 0 ? 1.0 : 0.5 + (double)k / (2.0 * d->cp);
}

static void ring_merge_backward(prog *p, const dims *d, int k)
{
	double first = k == 0 ? 2.0 : 3.0;
	double q = d->T * d->qd * ring_q_share(d, k), kv = 2.0 * d->T * d->kv * ring_kv_share(d, k);
	wl_mem(p, "cp_dq_acc", first * d->e * q);
	wl_mem(p, "cp_dkv_acc", (2.0 + first) * d->e * kv);
}

/* The attention core as cp ring steps (see work.h); `mult` is 1 forward, 2
 * backward (twice the FLOPs and K/V plus their gradients on the wire).
 *
 * With d->cp_ag, PyTorch's context_parallel (torch 2.14.1 distributed/
 * tensor/experimental/_context_parallel/_attention.py: _cp_options'
 * rotate_method ALL_GATHER by default, :77; _AllGatherRotater, :273-300;
 * torchtitan's attention modules run under it, models/common/attention.py
 * at b5bcd76c): the first step's exchange_buffers all-gathers every rank's
 * K and V at once (one collective of cp blocks, issued before step 0
 * computes, waited for by step 1), the later steps read their block from
 * the gathered buffer with no transfer of their own. The backward
 * (_templated_ring_attention_backward, :491-650) gathers K and V again the
 * same way, and passes the K/V gradient around the ring by all-to-all
 * permutes (dkv_rotater, ALL_TO_ALL: a send to the next rank) accumulated
 * in fp32 (convert_to_f32, accum_dtype): per step 2 x 4 B per K/V element,
 * the bytes of the ring's K/V and their 16-bit gradients (2 block). The
 * gradient step k - 1 made is sent beside step k and step k + 1 waits for
 * it (cp_step k + 1; the gather is transfer 1); the permute after the last
 * step, which brings each rank its own K/V gradient home, is not charged. */
static void attn_ring(prog *p, const dims *d, double mult)
{
	double block = 2.0 * d->b * d->s * d->kv * d->e; /* K and V of s tokens */
	bool backward = mult > 1.0;
	if (!backward)
		wl_mem(p, "cp_out_zero", d->e * d->T * d->qd);
	else
		wl_mem(p, "cp_kv_copy", 2.0 * d->e * 2.0 * d->T * d->kv);
	if (d->cp_ag) { /* the gather, beside step 0 */
		work_item *x = wl_push(p, WORK_ITEM_COMM, "cp_kv_allgather");
		x->comm = WORK_COMM_CP_ALLGATHER;
		x->comm_bytes = d->cp * block;
		x->cp_step = 1;
	}
	for (int k = 0; k < d->cp; k++) {
		bool xfer = d->cp_ag ? backward && k >= 1 : k + 1 < d->cp;
		if (xfer) {
			work_item *x = wl_push(p, WORK_ITEM_COMM, d->cp_ag ? "cp_dkv" : "cp_kv");
			x->comm = WORK_COMM_CP_RING;
			x->comm_bytes = d->cp_ag ? 2.0 * block : mult * block;
			x->cp_step = k + 1;
		}
		attn(p, d, "attn", mult * attn_flops(d) / d->cp,
		     mult * (attn_bytes(d) + (k > 0 ? block : 0.0)), mult > 1.0);
		/* under the gather's forward only step 1 waits (for the gather) */
		p->v[p->n - 1].cp_step = d->cp_ag && !backward && k > 1 ? 0 : k;
		/* the step's queries meet 1/cp of the keys: its fixed work is 1/cp
		 * of the rank's queries' */
		p->v[p->n - 1].attn_qhd /= d->cp;
		if (backward)
			ring_merge_backward(p, d, k);
	}
	if (!backward)
		for (int k = 0; k < d->cp; k++)
			wl_mem(p, "cp_out_corr", (3.0 * d->e + 8.0) * d->T * d->qd * ring_q_share(d, k));
}

/* Q, K, V read and O written. */
static double attn_bytes(const dims *d)
{
	return d->e * d->T * (d->qd + d->kw + d->vw + d->ow);
}

/* Megatron's fused scale-mask-softmax (FusedScaleMaskSoftmax, megatron/
 * model/fused_softmax.py) takes a shape only if the kernel's constraints
 * hold; otherwise forward_torch_softmax runs PyTorch's ops. The constraints,
 * unchanged from NVIDIA/Megatron-LM 0fa7175f09 (2021-03-19, L132-133) to
 * microsoft/Megatron-DeepSpeed f4157bea (is_kernel_available, L152-172),
 * for 16-bit inputs with the GPT's causal mask:
 *   16 < sk <= max_seq     (2048 until 7a77abd9b6, 2022-01-12; then 4096)
 *   sq % 4 == 0, sk % 4 == 0
 *   b * np % 4 == 0        (np: heads per TP rank)
 *   b * np % batch_per_block == 0, batch_per_block = 4 warps x batches per
 *                          warp, 2 for sk <= 128 and 1 above
 *                          (fused_kernels/scaled_masked_softmax.h
 *                          get_batch_per_block, 40becfc96c L322-328)
 * [framework] softmax_fused_max_seq carries max_seq (0: the kernel takes
 * every shape, the rule is not modelled). With 16 heads on tp 8 a
 * micro-batch of one sequence gives b * np = 2: PyTorch's ops. */
bool work_softmax_fused(const work_model *m, const work_shard *sh)
{
	int max_seq = sh->softmax_fused_max_seq;
	if (max_seq <= 0 || sh->flash)
		return true;
	long sk = sh->seq, t = sh->tp > 0 ? sh->tp : 1;
	long batches = (long)sh->micro_batch * (m->heads / t);
	if (sh->cp_alltoall && sh->cp > 1) { /* Ulysses: the whole sequence, 1/cp of the heads */
		sk *= sh->cp;
		batches /= sh->cp;
	}
	long per_block = sk <= 128 ? 8 : 4;
	return sk > 16 && sk <= max_seq && sk % 4 == 0 && batches % 4 == 0 &&
	       batches % per_block == 0;
}

/* PyTorch's softmax over the last dimension, as the releases of these
 * frameworks' era run it (ATen native/cuda/SoftMax.cu, PyTorch 1.13.1
 * L725, L827, L956): rows of at most 1024 fp32 elements (4 KiB) run the
 * persistent warp kernel, one read and one write; longer rows
 * cunn_SoftMaxForward, three reads (maximum, sum of exponentials, write
 * pass) and a write. Backward first multiplies the gradient by the output
 * (grad * output: two reads, a write, its own launch), then the persistent
 * kernel reads that and the output and writes (12), or cunn_SoftMaxBackward
 * reads it for the sum and again with the output to write (16). Bytes per
 * element at fp32. (From PyTorch 2.1 rows that fit in shared memory are
 * read once, cunn_SoftMaxForwardSmem; not these stacks.) */
static double torch_softmax_bytes(double s, bool backward)
{
	bool persistent = s <= 1024;
	if (backward)
		return 12.0 + (persistent ? 12.0 : 16.0);
	return persistent ? 8.0 : 16.0;
}

/* Unfused attention core (Megatron without flash attention): per rank ah
 * heads, scores S = Q K^T as a batched GEMM [b*ah*s, d] x [d, s] (2*b*s^2*h/t
 * FLOPs, the s x s scores written to HBM), fused scale + mask + softmax (read
 * and write the scores), dropout on the probabilities (read, write, 1-byte
 * mask), and P V as [b*ah*s, s] x [s, d]. Backward: each GEMM's input
 * gradients, dP and dQ flattened as the forward, dV = P^T dO and dK = dS^T Q
 * as b*ah batched [s, s] x [s, d] GEMMs (cuBLAS's strided batch, Megatron's
 * baddbmm/bmm), dropout and softmax backward (read probabilities and
 * gradient, write the gradient). The score tensors are b*ah*s^2 elements.
 * Where the fused softmax refuses the shape (work_softmax_fused),
 * forward_torch_softmax runs five ops in its place, in fp32 because
 * apply_query_key_layer_scaling (on by default) forces
 * attention_softmax_in_fp32 (Megatron-DeepSpeed f4157bea transformer.py
 * L245-248, fused_softmax.py L192-207): .float() (e + 4 bytes per score),
 * the scale by the layer number (8), attention_mask_func's in-place
 * masked_fill_ (8; the [1, 1, s, s] mask is broadcast), the softmax
 * (torch_softmax_bytes) and .half() (4 + e); backward, autograd's mirror:
 * the cast (e + 4), the softmax's two kernels, masked_fill's and the
 * scale's (8 each), the cast back (4 + e). Five launches forward and six
 * backward instead of one each. */
static void softmax_torch(prog *p, const dims *d, double scores, bool backward)
{
	wl_mem(p, "attn_softmax_cast", (d->e + 4.0) * scores);
	if (backward) {
		double sb = torch_softmax_bytes(d->s, true);
		wl_mem(p, "attn_softmax_gradmul", 12.0 * scores);
		wl_mem(p, "attn_softmax", (sb - 12.0) * scores);
		wl_mem(p, "attn_softmax_mask", 8.0 * scores);
		wl_mem(p, "attn_softmax_scale", 8.0 * scores);
	} else {
		wl_mem(p, "attn_softmax_scale", 8.0 * scores);
		wl_mem(p, "attn_softmax_mask", 8.0 * scores);
		wl_mem(p, "attn_softmax", torch_softmax_bytes(d->s, false) * scores);
	}
	wl_mem(p, "attn_softmax_cast", (4.0 + d->e) * scores);
}

static void attn_unfused(prog *p, const dims *d, bool backward)
{
	double rows = d->b * d->ah * d->s, scores = rows * d->s, dv = d->ow / d->ah;
	if (!backward) {
		wl_gemm(p, d, "attn_qk", rows, d->s, d->dh);
		if (d->softmax_fused)
			wl_mem(p, "attn_softmax", 2.0 * d->e * scores);
		else
			softmax_torch(p, d, scores, false);
		wl_mem(p, "attn_drop", (2.0 * d->e + 1.0) * scores);
		wl_gemm(p, d, "attn_av", rows, dv, d->s);
		return;
	}
	/* dP = dO V^T as the forward's flattened [b*ah*s, dv] x [dv, s]; dV =
	 * P^T dO is b*ah GEMMs of [s, s] x [s, dv] in one batched kernel, its
	 * sum over each matrix's own s keys (as hw/attn.c's unfused_time): a
	 * weight gradient's form, [s, rows] x [rows, dv], would sum over every
	 * matrix's rows and leave s/128 x dv/128 output tiles for the SMs */
	wl_gemm_dgrad(p, d, "attn_av", rows, dv, d->s);
	wl_gemm_b(p, d, "attn_av_wgrad", d->s, dv, d->s, d->b * d->ah);
	wl_mem(p, "attn_drop", (2.0 * d->e + 1.0) * scores);
	if (d->softmax_fused)
		wl_mem(p, "attn_softmax", 3.0 * d->e * scores);
	else
		softmax_torch(p, d, scores, true);
	/* dQ = dS K flattened; dK = dS^T Q batched, as dV */
	wl_gemm_dgrad(p, d, "attn_qk", rows, d->s, d->dh);
	wl_gemm_b(p, d, "attn_qk_wgrad", d->s, d->dh, d->s, d->b * d->ah);
}

/* Sliding-window attention in the fused kernel: a query attends the w keys
 * before it, and the kernel skips the key tiles wholly outside the band, so
 * with tiles of B = 128 query and key rows (FlashAttention's and cuDNN's
 * for head sizes up to 128) each query tile computes ceil(w/B) + 1 key
 * tiles: s B (ceil(w/B) + 1) score pairs per sequence against the causal
 * s^2/2. The item keeps the papers' count scaled by 2 B (ceil(w/B) + 1) / s
 * (at most 1), which plan's causal half turns into those pairs; GPT-OSS's
 * w = 128 at s = 4096: 1/8. Not under CP (the ring keeps every step) nor on
 * the unfused path (its softmax masks the whole s x s scores). */
#define WL_ATTN_TILE 128.0

static double window_share(const dims *d)
{
	if (d->window <= 0 || d->cp > 1)
		return 1.0;
	double f = 2.0 * WL_ATTN_TILE * (ceil(d->window / WL_ATTN_TILE) + 1.0) / d->s;
	return f < 1.0 ? f : 1.0;
}

/* DeepSpeed-Ulysses (Jacobs et al. 2023; deepspeed/sequence/layer.py
 * DistributedAttention, which Megatron-DeepSpeed wraps around its local
 * attention from a2a476e1, 2023-08-23: megatron/model/transformer.py:614-622
 * at f4157bea, asserting the heads a multiple of the sequence-parallel
 * size). Each rank holds s = S/cp tokens of every head of its TP shard; an
 * all-to-all per tensor (_SeqAllToAll) trades tokens for heads, so each
 * rank holds the whole sequence of 1/cp of the heads, attends it with the
 * framework's own kernel (fused or not: the local attention of S tokens and
 * ah/cp heads, the same FLOPs as the ring's), and a fourth all-to-all
 * trades the output back. Forward: Q, K, V, then the output; backward (the
 * autograd of each all-to-all is the reverse one): the output's gradient,
 * then those of Q, K, V. Each moves the rank's tensor, (cp-1)/cp of it
 * over the group (net's all-to-all). */
static void ulysses_a2a(prog *p, const dims *d, const char *name, double width)
{
	work_item *x = wl_push(p, WORK_ITEM_COMM, name);
	x->comm = WORK_COMM_CP_ALLTOALL;
	x->comm_bytes = d->e * d->T * width;
}

static void attn_ulysses(prog *p, const dims *d, bool backward)
{
	static const char *const fwd[] = {"cp_q_a2a", "cp_k_a2a", "cp_v_a2a"};
	static const char *const bwd[] = {"cp_dq_a2a", "cp_dk_a2a", "cp_dv_a2a"};
	double w[] = {d->qd, d->kw, d->vw};
	dims u = *d; /* the whole sequence, 1/cp of the heads */
	double c = d->cp;
	u.cp = 1;
	u.s = d->s * c;
	u.T = d->T * c;
	u.ah = d->ah / c;
	u.qd = d->qd / c;
	u.kw = d->kw / c;
	u.vw = d->vw / c;
	u.ow = d->ow / c;
	u.kv = d->kv / c;
	u.window = 0;
	if (backward)
		ulysses_a2a(p, d, "cp_dout_a2a", d->ow);
	else
		for (int i = 0; i < 3; i++)
			ulysses_a2a(p, d, fwd[i], w[i]);
	double k = backward ? 2.0 : 1.0;
	if (u.flash)
		attn(p, &u, "attn", k * attn_flops(&u), k * attn_bytes(&u), backward);
	else
		attn_unfused(p, &u, backward);
	if (backward)
		for (int i = 0; i < 3; i++)
			ulysses_a2a(p, d, bwd[i], w[i]);
	else
		ulysses_a2a(p, d, "cp_out_a2a", d->ow);
}

void wl_attn_core(prog *p, const dims *d, bool backward)
{
	double k = backward ? 2.0 : 1.0;
	if (d->cp > 1 && d->cp_a2a)
		attn_ulysses(p, d, backward);
	else if (d->cp > 1)
		attn_ring(p, d, k);
	else if (d->flash)
		attn(p, d, "attn", k * attn_flops(d) * window_share(d), k * attn_bytes(d), backward);
	else
		attn_unfused(p, d, backward);
}

/* fp8 training's casts (Transformer Engine's delayed scaling, TE d0067d0d):
 * a GEMM operand that arrives in 16 bits is quantized to fp8 twice, row-wise
 * for this GEMM and column-wise (transposed) for the backward's other GEMM
 * (pytorch/module/linear.py:386-398 input_quantizer with columnwise usage;
 * base.py grad_output_preprocess: the fused cast + transpose of the output
 * gradient): read 2 bytes, write 1 + 1, per element. Where a fused kernel
 * already writes the operand, it writes it in fp8 and nothing is added: the
 * norms before qkv and fc1 (layernorm_linear.py:244-263, with_quantized_norm).
 * The activation is not TE's: Megatron-Core's TE layer spec builds the MLP
 * from its own MLP module with a TELayerNormColumnParallelLinear fc1 and a
 * TERowParallelLinear fc2 (megatron/core/models/gpt/gpt_layer_specs.py:
 * 110-120 at NVIDIA/Megatron-LM 338af514, the Megatron-Core of NeMo 24.07's
 * Dockerfile.ci; still so at d98e8a64), whose activation is Megatron's
 * jit-fused bias_swiglu / bias_gelu in 16 bits (transformer/mlp.py forward,
 * fusions/fused_bias_swiglu.py): fc2 receives a 16-bit input and fc1's
 * backward a 16-bit output gradient, each cast by TE like any other. What is
 * left per layer: the attention output before proj (T x qd) and the
 * activation before fc2 (T x f), and the output gradients of qkv (T x n),
 * fc1 (T x fc1_n), proj and fc2 (Tn x h each: with SP cast before the
 * all-gather). The weights' casts run once per step (plan/optim.c; Megatron
 * passes is_first_microbatch so TE caches them: pipeline_parallel/
 * schedules.py:198 at 338af514). The routed experts' GroupedLinear casts
 * its inputs per expert in one split quantization, and the backward its
 * output gradients (pytorch/module/grouped_linear.py:820, 1315,
 * _split_quantize): the R rows of fc1 and fc2 each way (moe.c wl_moe_forward,
 * wl_moe_backward; until 2026-11-30 not charged: DeepSeek-V3 on 1024 H100,
 * whose combined 1F1B hides most of them beside the all-to-alls, -7.7 ->
 * -7.6 %). */
void wl_fp8_cast(prog *p, const dims *d, const char *name, double elems)
{
	if (d->eg < 2.0)
		wl_mem(p, name, 4.0 * elems);
}

/* ------------------------------------------------------------- MLA -- */

/* Multi-head Latent Attention as Megatron-Core runs it with Transformer
 * Engine (MLASelfAttention, megatron/core/transformer/
 * multi_latent_attention.py at NVIDIA/Megatron-LM d98e8a64; the TE layer
 * spec, megatron/core/models/gpt/gpt_layer_specs.py:104-135: the down
 * projections are TELinear, parallel_mode 'duplicated' (:526-527,
 * :573-574), the up projections TELayerNormColumnParallelLinear with
 * qk_layernorm, the norm fused in front of the GEMM). Per rank, with SP
 * (Tn = T/t; without SP Tn = T and the gathers are absent), qr, kr the
 * latents, dr the RoPE width, ah = a/t heads of q/k width dn + dr (qd) and
 * value width dv (vw):
 *   ln1         norm on Tn x h
 *   q_down      GEMM [Tn, h] x [h, qr]      replicated weight, the rank's own
 *   kv_down     GEMM [Tn, h] x [h, kr + dr] tokens: no collective before
 *   q_norm      norm on Tn x qr, then (SP) all-gather of T x qr   (tp_ag_q)
 *   q_up        GEMM [T, qr] x [qr, ah (dn + dr)]    column parallel
 *   kv_norm     norm on Tn x kr, then (SP) all-gather of T x kr   (tp_ag_kv)
 *   k_pe        (SP) all-gather of the RoPE key, T x dr (:764-766) (tp_ag_pe)
 *   kv_up       GEMM [T, kr] x [kr, ah (dn + dv)]    column parallel
 *   rope        apply_rope_fusion off (Megatron-Bridge's DeepSeek provider,
 *               src/megatron/bridge/models/deepseek/deepseek_provider.py:108,
 *               and pretrain_config's default, recipes/deepseek/
 *               deepseek_v3.py:194, at NVIDIA-NeMo/Megatron-Bridge 9a5e7986):
 *               RoPE on q's T x ah x dr and on k_pe's T x dr (read + write
 *               each), query = cat(q_nope, q_pe) and key = cat(k_nope,
 *               k_pe expanded to ah heads) (read + write T x qd each), value
 *               .contiguous() out of kv's split (read + write T x vw)
 *               (:931-952): e T (2 ah dr + 2 dr + 4 qd + 2 vw) over 5 launches
 *   attn        flash core, q/k width qd, v width vw (attn_flops)
 *   proj        GEMM [T, ah dv] x [ah dv, h]          row parallel, as MHA
 * Without q_lora_rank the queries come from a column-parallel [T, h] x
 * [h, ah (dn + dr)] (linear_q_proj, :510) after the SP all-gather of the
 * norm output. fp8: TE casts each TELinear's input (two casts of the ln1
 * output) and every GEMM's output gradient; the up projections' norms write
 * fp8 themselves (wl_fp8_cast's rule). Backward mirrors it: each gather's
 * backward is a reduce-scatter (an all-reduce without SP) of the latent's
 * gradient between the up projection's dgrad and wgrad, and the two down
 * projections' input gradients are summed (read 2, write 1 of Tn x h).
 * Not charged: the TP all-reduce of the replicated down-projection weights'
 * gradients (finalize_model_grads' sequence-parallel params, once per step). */
static void latent_gather(prog *p, const dims *d, const char *name, double width)
{
	if (d->sp)
		wl_comm(p, d, name, WORK_COMM_ALLGATHER, d->T * width * d->e);
}

static void latent_reduce(prog *p, const dims *d, const char *name, double width)
{
	wl_comm(p, d, name, d->sp ? WORK_COMM_REDUCESCATTER : WORK_COMM_ALLREDUCE,
		d->T * width * d->e);
}

/* A norm on Tn x w: read x, write y. */
static double latent_norm_bytes(const dims *d, double w)
{
	return 2.0 * d->e * d->Tn * w;
}

static double mla_rope_bytes(const dims *d)
{
	return d->e * d->T * (2.0 * d->ah * d->dr + 2.0 * d->dr + 4.0 * d->qd + 2.0 * d->vw);
}

#define MLA_ROPE_LAUNCHES 5

static void mla_up_forward(prog *p, const dims *d)
{
	if (d->qr > 0) {
		wl_mem(p, "q_norm", latent_norm_bytes(d, d->qr));
		latent_gather(p, d, "tp_ag_q", d->qr);
		wl_gemm(p, d, "q_up", d->T, d->qd, d->qr);
	}
	wl_mem(p, "kv_norm", latent_norm_bytes(d, d->kr));
	latent_gather(p, d, "tp_ag_kv", d->kr);
	latent_gather(p, d, "tp_ag_pe", d->dr);
	wl_gemm(p, d, "kv_up", d->T, d->ah * (d->dn + d->dv), d->kr);
	wl_mem(p, "rope", mla_rope_bytes(d));
	p->v[p->n - 1].launches = MLA_ROPE_LAUNCHES;
}

static void mla_forward(prog *p, const dims *d)
{
	wl_mem(p, "ln1", wl_norm_bytes(d));
	if (d->qr > 0) {
		wl_fp8_cast(p, d, "q_down_cast", d->Tn * d->h);
		wl_gemm(p, d, "q_down", d->Tn, d->qr, d->h);
	} else {
		wl_comm_gather(p, d, "tp_ag1");
		wl_fp8_cast(p, d, "q_proj_cast", d->T * d->h);
		wl_gemm(p, d, "q_proj", d->T, d->qd, d->h);
	}
	wl_fp8_cast(p, d, "kv_down_cast", d->Tn * d->h);
	wl_gemm(p, d, "kv_down", d->Tn, d->kr + d->dr, d->h);
	mla_up_forward(p, d);
	wl_attn_core(p, d, false);
	wl_fp8_cast(p, d, "proj_cast", d->T * d->ow);
	wl_gemm(p, d, "proj", d->T, d->h, d->ow);
	wl_comm_reduce(p, d, "tp_ar1", "tp_rs1");
	wl_mem(p, "resid1", resid_bytes(d));
}

/* The backward from the residual add through the output projection to the
 * attention core: the same for every attention block (the projection's width
 * d->ow: a_t d, or MLA's a_t dv). */
static void attention_out_backward(prog *p, const dims *d)
{
	wl_mem(p, "resid1", 2.0 * resid_bytes(d));
	wl_fp8_cast(p, d, "proj_gcast", d->Tn * d->h);
	wl_comm_gather(p, d, "tp_ag1");
	wl_gemm_dgrad(p, d, "proj", d->T, d->h, d->ow);
	wl_gemm_wgrad(p, d, "proj", d->T, d->h, d->ow);
	wl_attn_core(p, d, true);
}

static void mla_backward(prog *p, const dims *d)
{
	double kvn = d->ah * (d->dn + d->dv);
	attention_out_backward(p, d);
	wl_mem(p, "rope", mla_rope_bytes(d));
	p->v[p->n - 1].launches = MLA_ROPE_LAUNCHES;
	wl_fp8_cast(p, d, "kv_up_gcast", d->T * kvn);
	wl_gemm_dgrad(p, d, "kv_up", d->T, kvn, d->kr);
	latent_reduce(p, d, "tp_rs_kv", d->kr);
	wl_gemm_wgrad(p, d, "kv_up", d->T, kvn, d->kr);
	latent_reduce(p, d, "tp_rs_pe", d->dr);
	wl_mem(p, "kv_norm", 2.0 * latent_norm_bytes(d, d->kr));
	wl_fp8_cast(p, d, "q_up_gcast", d->T * d->qd);
	if (d->qr > 0) {
		wl_gemm_dgrad(p, d, "q_up", d->T, d->qd, d->qr);
		latent_reduce(p, d, "tp_rs_q", d->qr);
		wl_gemm_wgrad(p, d, "q_up", d->T, d->qd, d->qr);
		wl_mem(p, "q_norm", 2.0 * latent_norm_bytes(d, d->qr));
		wl_fp8_cast(p, d, "q_down_gcast", d->Tn * d->qr);
		wl_gemm_dgrad(p, d, "q_down", d->Tn, d->qr, d->h);
		wl_gemm_wgrad(p, d, "q_down", d->Tn, d->qr, d->h);
	} else {
		wl_gemm_dgrad(p, d, "q_proj", d->T, d->qd, d->h);
		wl_comm_reduce(p, d, "tp_ar1q", "tp_rs1q");
		wl_gemm_wgrad(p, d, "q_proj", d->T, d->qd, d->h);
	}
	wl_fp8_cast(p, d, "kv_down_gcast", d->Tn * (d->kr + d->dr));
	wl_gemm_dgrad(p, d, "kv_down", d->Tn, d->kr + d->dr, d->h);
	wl_gemm_wgrad(p, d, "kv_down", d->Tn, d->kr + d->dr, d->h);
	wl_mem(p, "dx_sum", 3.0 * d->e * d->Tn * d->h);
	wl_mem(p, "ln1", 2.0 * wl_norm_bytes(d));
}

/* ln1 .. resid1: the attention block, forward. */
static void attention_forward(prog *p, const dims *d)
{
	if (d->mla) {
		mla_forward(p, d);
		return;
	}
	wl_mem(p, "ln1", wl_norm_bytes(d));
	wl_comm_gather(p, d, "tp_ag1");
	wl_gemm(p, d, "qkv", d->T, d->qkv_n, d->h);
	wl_attn_core(p, d, false);
	wl_fp8_cast(p, d, "proj_cast", d->T * d->ow);
	wl_gemm(p, d, "proj", d->T, d->h, d->ow);
	wl_comm_reduce(p, d, "tp_ar1", "tp_rs1");
	wl_mem(p, "resid1", resid_bytes(d));
}

/* The TP-split MLP of per-rank inner size d->f (after ln2, before resid2). */
void wl_mlp_forward(prog *p, const work_model *m, const dims *d, const char *fc1,
                    const char *fc2)
{
	wl_comm_gather(p, d, "tp_ag2");
	wl_gemm(p, d, fc1, d->T, d->fc1_n, d->h);
	wl_mem(p, "act", act_bytes(m, d));
	wl_fp8_cast(p, d, "fc2_cast", d->T * d->f);
	wl_gemm(p, d, fc2, d->T, d->h, d->f);
	wl_comm_reduce(p, d, "tp_ar2", "tp_rs2");
}

int work_layer_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	attention_forward(&p, &d);
	if (!m->parallel_residual) /* a parallel block normalises once */
		wl_mem(&p, "ln2", wl_norm_bytes(&d));
	wl_mlp_forward(&p, m, &d, "fc1", "fc2");
	wl_mem(&p, "resid2", resid_bytes(&d));
	return p.n;
}

/* dgrad and wgrad of the forward GEMM [m, k] x [k, n]; the collective (if any)
 * goes between them. */
void wl_gemm_dgrad_b(prog *p, const dims *d, const char *name, double m, double n, double k,
                     double batch)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%s_dgrad", name);
	wl_gemm_b(p, d, buf, m, k, n, batch);
}

void wl_gemm_wgrad_b(prog *p, const dims *d, const char *name, double m, double n, double k,
                     double batch)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%s_wgrad", name);
	wl_gemm_b(p, d, buf, k, n, m, batch);
}

void wl_gemm_dgrad(prog *p, const dims *d, const char *name, double m, double n, double k)
{
	wl_gemm_dgrad_b(p, d, name, m, n, k, 1.0);
}

void wl_gemm_wgrad(prog *p, const dims *d, const char *name, double m, double n, double k)
{
	wl_gemm_wgrad_b(p, d, name, m, n, k, 1.0);
}

/* The MLP's backward (after resid2's, before ln2's). */
void wl_mlp_backward(prog *p, const work_model *m, const dims *d, const char *fc1,
                     const char *fc2)
{
	wl_fp8_cast(p, d, "fc2_gcast", d->Tn * d->h);
	wl_comm_gather(p, d, "tp_ag2");
	wl_gemm_dgrad(p, d, fc2, d->T, d->h, d->f);
	wl_gemm_wgrad(p, d, fc2, d->T, d->h, d->f);
	wl_mem(p, "act", 2.0 * act_bytes(m, d));
	wl_fp8_cast(p, d, "fc1_gcast", d->T * d->fc1_n);
	wl_gemm_dgrad(p, d, fc1, d->T, d->fc1_n, d->h);
	wl_comm_reduce(p, d, "tp_ar2", "tp_rs2");
	wl_gemm_wgrad(p, d, fc1, d->T, d->fc1_n, d->h);
}

/* resid1 .. ln1 backward: the attention block. */
static void attention_backward(prog *p, const dims *d)
{
	if (d->mla) {
		mla_backward(p, d);
		return;
	}
	attention_out_backward(p, d);
	wl_fp8_cast(p, d, "qkv_gcast", d->T * d->qkv_n);
	wl_gemm_dgrad(p, d, "qkv", d->T, d->qkv_n, d->h);
	wl_comm_reduce(p, d, "tp_ar1", "tp_rs1");
	wl_gemm_wgrad(p, d, "qkv", d->T, d->qkv_n, d->h);
	wl_mem(p, "ln1", 2.0 * wl_norm_bytes(d));
}

int work_layer_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	wl_mem(&p, "resid2", 2.0 * resid_bytes(&d));
	wl_mlp_backward(&p, m, &d, "fc1", "fc2");
	if (!m->parallel_residual)
		wl_mem(&p, "ln2", 2.0 * wl_norm_bytes(&d));
	attention_backward(&p, &d);
	return p.n;
}

/* ------------------------------------------------------------ MoE layers -- */

/* A dense layer of an MoE model has its own inner size. */
dims wl_layer_dims(const work_model *m, const work_shard *sh, int layer)
{
	dims d = wl_dims(m, sh);
	if (work_layer_windowed(m, layer))
		d.window = m->window;
	if (m->moe_experts > 0 && !work_layer_is_moe(m, layer) && m->dense_ffn > 0) {
		d.f = (double)m->dense_ffn / d.t;
		d.fc1_n = m->act == WORK_ACT_SWIGLU ? 2.0 * d.f : d.f;
	}
	return d;
}

const char *work_layer_code_name(int code)
{
	static const char *const names[] = {"fused", "nanotron", "mpt", "fms", "hf-llama",
					    "hf-llama5"};
	return code >= 0 && code <= WORK_LAYER_HF_LLAMA5 ? names[code] : "fused";
}

/* A dense layer in an eager code's program (0 items: the fused one). MoE
 * layers keep the fused program (plan's rules refuse MoE models for the
 * codes that have no experts). */
static int eager_layer(const work_model *m, const work_shard *sh, const dims *d, int layer,
		       bool backward, work_item *out)
{
	if (work_layer_is_moe(m, layer) || work_model_is_mla(m))
		return 0; /* the eager codes have neither experts nor MLA */
	switch (sh->layer_code) {
	case WORK_LAYER_NANOTRON:
		return backward ? wl_nanotron_backward(m, d, out) : wl_nanotron_forward(m, d, out);
	case WORK_LAYER_MPT:
		return backward ? wl_mpt_backward(m, d, out) : wl_mpt_forward(m, d, out);
	case WORK_LAYER_FMS:
		return backward ? wl_fms_backward(m, d, out) : wl_fms_forward(m, d, out);
	case WORK_LAYER_HF_LLAMA:
		return backward ? wl_hf_llama_backward(m, d, out) : wl_hf_llama_forward(m, d, out);
	case WORK_LAYER_HF_LLAMA5:
		return backward ? wl_hf_llama5_backward(m, d, out) : wl_hf_llama5_forward(m, d, out);
	default:
		return 0;
	}
}

int work_layer_forward_at(const work_model *m, const work_shard *sh, int layer,
			  work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_layer_dims(m, sh, layer);
	prog p = {out, 0};
	int n = eager_layer(m, sh, &d, layer, false, out);
	if (n > 0)
		return work_lora_apply(m, sh, false, out, n);
	attention_forward(&p, &d);
	if (!m->parallel_residual) /* a parallel block normalises once */
		wl_mem(&p, "ln2", wl_norm_bytes(&d));
	if (work_layer_is_moe(m, layer) && sh->moe_dispatcher == WORK_MOE_GSHARD)
		wl_gshard_forward(&p, m, sh, &d);
	else if (work_layer_is_moe(m, layer))
		wl_moe_forward(&p, m, sh, &d);
	else
		wl_mlp_forward(&p, m, &d, "fc1", "fc2");
	wl_mem(&p, "resid2", resid_bytes(&d));
	return work_lora_apply(m, sh, false, out, p.n);
}

int work_layer_backward_at(const work_model *m, const work_shard *sh, int layer,
			   work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_layer_dims(m, sh, layer);
	prog p = {out, 0};
	int n = eager_layer(m, sh, &d, layer, true, out);
	if (n > 0)
		return work_lora_apply(m, sh, true, out, n);
	wl_mem(&p, "resid2", 2.0 * resid_bytes(&d));
	if (work_layer_is_moe(m, layer) && sh->moe_dispatcher == WORK_MOE_GSHARD)
		wl_gshard_backward(&p, m, sh, &d);
	else if (work_layer_is_moe(m, layer))
		wl_moe_backward(&p, m, sh, &d);
	else
		wl_mlp_backward(&p, m, &d, "fc1", "fc2");
	if (!m->parallel_residual)
		wl_mem(&p, "ln2", 2.0 * wl_norm_bytes(&d));
	attention_backward(&p, &d);
	return work_lora_apply(m, sh, true, out, p.n);
}

/* hf-llama5's model-level kernels beyond the embedding's lookup, the final
 * norm, the logits GEMM and the loss (tools/measured/h200-training/
 * kernels-layer.txt, "the rest of the forward": 38 kernels, of which podsim's
 * programs count 1 + 8 + 1 + 5 = 15). The other 23, charged once per
 * forward at the embedding: position ids and cache positions (arange, long
 * adds and copies, compare-eq, the cub scan's init and scan kernels, a DtoH
 * copy), the rotary table (inv_freq x positions as an fp32 sgemm, cat, cos,
 * sin, the attention scaling's two muls and their casts to bf16) and the
 * loss's label shift (fill, cat, casts, a memset). Counted from the list,
 * bytes not counted (a few per token). Backward ("the rest of the
 * backward": 30 against podsim's 6 + 2 + 16 + 1 = 25): AccumulateGrad of
 * the embedding, the final norm's weight and the untied lm_head (3) and the
 * loss's two fp32 fills (HF5_MODEL_BWD_FILLS). */
#define HF5_MODEL_FWD_LAUNCHES 23
#define HF5_MODEL_BWD_FILLS 2

/* Embedding (first stage). Vocab-parallel lookup: each rank gathers the rows of
 * its V/t slice (reads T*h, writes T*h, zeros elsewhere), then the partial
 * results are summed: all-reduce of T*h*e, or reduce-scatter with SP (which
 * leaves the sequence-sharded layout the first layer expects). With learned
 * positions, the position rows are added and dropout applied on Tn tokens.
 * Backward: with SP the output gradient is all-gathered first (the backward of
 * the reduce-scatter; without SP the all-reduce's backward is the identity),
 * then scattered-added into the table slice (about twice the forward bytes). */
int work_embed_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (sh->layer_code == WORK_LAYER_NANOTRON && !m->learned_pos)
		return wl_nanotron_embed_forward(&d, out);
	wl_mem(&p, "embed", 2.0 * d.e * d.T * d.h);
	if (sh->layer_code == WORK_LAYER_HF_LLAMA5)
		wl_kern(&p, "positions", 0.0, HF5_MODEL_FWD_LAUNCHES);
	wl_comm_reduce(&p, &d, "tp_ar_emb", "tp_rs_emb");
	if (m->learned_pos)
		wl_mem(&p, "pos", (3.0 * d.e + 1.0) * d.Tn * d.h);
	return p.n;
}

int work_embed_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (sh->layer_code == WORK_LAYER_NANOTRON && !m->learned_pos)
		return wl_nanotron_embed_backward(&d, out);
	if (m->learned_pos)
		wl_mem(&p, "pos", 2.0 * (3.0 * d.e + 1.0) * d.Tn * d.h);
	wl_comm_gather(&p, &d, "tp_ag_emb");
	wl_mem(&p, "embed", 4.0 * d.e * d.T * d.h);
	if (sh->layer_code == WORK_LAYER_HF_LLAMA5) /* AccumulateGrad (hf_llama.c) */
		wl_kern(&p, "accum_grad", 3.0 * d.e * d.V * d.h, 1);
	return p.n;
}

/* Logits and loss (last stage): final norm on Tn tokens; with SP an all-gather
 * of its output; the logits GEMM [T, h] x [h, V/t] (column parallel over the
 * vocabulary); then the cross-entropy, memory-bound on the T x V/t logits,
 * as the framework's code runs it (sh->loss; xent_bytes below). The
 * vocabulary-parallel loss adds three small all-reduces of T fp32 values
 * (Megatron: the row maximum, the target logit, the sum of exponentials).
 * Backward: the cross-entropy gradient, the logits dgrad, its all-reduce
 * (reduce-scatter with SP) of T*h*e, the wgrad, and the final norm. */

/* Bytes per logit the cross-entropy moves, forward (*f) and backward (*b),
 * and the kernels it launches (*nf, *nb), e the logits' element size. Each
 * PyTorch operation reads its inputs and writes its output once; a
 * (log-)softmax over the vocabulary reads its input three times (the
 * maximum, the sum of exponentials, the write pass: cunn_SoftMaxForward in
 * ATen's SoftMax.cu) and writes once: 3i + o; its backward reads the
 * gradient twice (its sum, then the write pass) and the output once:
 * 2o + o + o. The tensors are those of plan_loss_bytes (memory.c), cited
 * there:
 *   vocab-parallel  Megatron's cross_entropy.py, in place on an fp32 copy:
 *                   .float() e + 4, max 4, subtract 8, exp 8, sum 4,
 *                   divide 8 = e + 36; backward: the gradient scaled in
 *                   place 8, cast to e by .float()'s backward 4 + e = 12 + e
 *                   (6 + ~10 small kernels forward, 3 backward)
 *   upcast-shift    HF Llama: .float() e + 4, the shifted contiguous copy
 *                   8, log-softmax 16 (nll's gather is per token) = e + 28;
 *                   backward: nll's zero-filled gradient 4, log-softmax's
 *                   16, the slice's backward (zeros, copy) 12, .float()'s
 *                   4 + e = 36 + e
 *   upcast          cross_entropy(logits.float()): e + 20; 24 + e
 *   shift           no upcast: copy 2e, log-softmax 4e = 6e; backward
 *                   e + 4e + 3e = 8e; under autocast the log-softmax runs
 *                   on an fp32 cast: 2e + (e + 4) + 16 = 3e + 20 and
 *                   4 + 16 + (4 + e) + 3e = 24 + 4e
 *   16-bit,         log-softmax on the 16-bit logits 4e; backward
 *   chunked-16bit   e + 4e = 5e (chunks change the peak, not the bytes)
 *   chunked         compiled per chunk (torchtune): the upcast, softmax and
 *                   gradient fused in registers: read the logits twice 2e,
 *                   backward read and write 2e plus a re-read e = 3e
 *   fused-xent      flash-attn v2.4.2's Triton cross-entropy (llm-foundry):
 *                   one kernel reads each row once (the vocabulary fits its
 *                   64k block, ops/triton/cross_entropy.py:160-161) and
 *                   writes the row's loss and lse: e; backward reads the
 *                   logits and writes their gradient: 2e; around it the
 *                   labels' roll and last-column fill (modeling_mpt.py:
 *                   1004-1005 at 5e85bd62) and the mean's sums and division
 *                   (losses/cross_entropy.py:62): 7 launches forward, 2
 *                   backward.
 *   sharded         nanotron's _ShardedCrossEntropy makes the vocabulary-
 *                   parallel passes (its subtraction out of place: the same
 *                   bytes), so it falls to the default; its own head program
 *                   (nanotron.c) counts its kernels. */
static void xent_bytes(const work_shard *sh, double e, double *f, double *b, int *nf, int *nb)
{
	switch (sh->loss) {
	case WORK_LOSS_UPCAST_SHIFT:
		*f = e + 28, *b = 36 + e, *nf = 5, *nb = 6;
		return;
	case WORK_LOSS_UPCAST:
		*f = e + 20, *b = 24 + e, *nf = 4, *nb = 4;
		return;
	case WORK_LOSS_SHIFT:
		if (sh->loss_fp32)
			*f = 3 * e + 20, *b = 24 + 4 * e, *nf = 5, *nb = 6;
		else
			*f = 6 * e, *b = 8 * e, *nf = 4, *nb = 5;
		return;
	case WORK_LOSS_16BIT:
	case WORK_LOSS_CHUNKED_16BIT:
		*f = 4 * e, *b = 5 * e, *nf = 3, *nb = 3;
		return;
	case WORK_LOSS_CHUNKED:
		*f = 2 * e, *b = 3 * e, *nf = 2, *nb = 2;
		return;
	case WORK_LOSS_FUSED_XENT:
		*f = e, *b = 2 * e, *nf = 7, *nb = 2;
		return;
	default:
		*f = e + 36, *b = 12 + e, *nf = 16, *nb = 3;
		return;
	}
}

/* The final norm: the fused kernel, or the eager code's own (MPT's
 * low-precision LayerNorm, the Llama codes' fp32 RMSNorm: eager.c). */
static void final_norm(prog *p, const work_model *m, const work_shard *sh, const dims *d,
		       bool backward)
{
	switch (sh->layer_code) {
	case WORK_LAYER_MPT:
		wl_eager_norm(p, d, "lnf", WL_NORM_KERNEL, backward);
		return;
	case WORK_LAYER_FMS:
	case WORK_LAYER_HF_LLAMA:
	case WORK_LAYER_HF_LLAMA5:
		wl_eager_norm(p, d, "lnf", wl_llama_norm(m), backward);
		return;
	default:
		wl_mem(p, "lnf", (backward ? 2.0 : 1.0) * wl_norm_bytes(d));
	}
}

int work_head_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (sh->layer_code == WORK_LAYER_NANOTRON)
		return wl_nanotron_head_forward(&d, out);
	double small = 4.0 * d.T, f, b;
	int nf, nb;
	xent_bytes(sh, d.e, &f, &b, &nf, &nb);
	final_norm(&p, m, sh, &d, false);
	wl_comm_gather(&p, &d, "tp_ag_head");
	wl_gemm(&p, &d, "logits", d.T, d.V, d.h);
	bool vp = sh->loss == WORK_LOSS_VOCAB_PARALLEL || sh->loss == WORK_LOSS_SHARDED;
	if (vp) {
		wl_comm(&p, &d, "tp_ar_max", WORK_COMM_ALLREDUCE, small);
		wl_comm(&p, &d, "tp_ar_tgt", WORK_COMM_ALLREDUCE, small);
	}
	wl_mem(&p, "xent", d.T * d.V * f);
	p.v[p.n - 1].launches = nf;
	if (vp)
		wl_comm(&p, &d, "tp_ar_sum", WORK_COMM_ALLREDUCE, small);
	return p.n;
}

int work_head_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (sh->layer_code == WORK_LAYER_NANOTRON)
		return work_lora_apply(m, sh, true, out, wl_nanotron_head_backward(&d, out));
	double f, b;
	int nf, nb;
	xent_bytes(sh, d.e, &f, &b, &nf, &nb);
	wl_mem(&p, "xent", d.T * d.V * b);
	p.v[p.n - 1].launches = nb;
	wl_gemm_dgrad(&p, &d, "logits", d.T, d.V, d.h);
	wl_comm_reduce(&p, &d, "tp_ar_head", "tp_rs_head");
	wl_gemm_wgrad(&p, &d, "logits", d.T, d.V, d.h);
	final_norm(&p, m, sh, &d, true);
	if (sh->layer_code == WORK_LAYER_HF_LLAMA5) {
		/* AccumulateGrad of the final norm's weight and the untied
		 * lm_head, and the loss's fills (above work_embed_forward) */
		double w = d.h + (m->untied_embeddings ? d.V * d.h : 0.0);
		wl_kern(&p, "accum_grad", 3.0 * d.e * w, 1 + (m->untied_embeddings ? 1 : 0));
		wl_kern(&p, "loss_fill", 8.0 * d.T, HF5_MODEL_BWD_FILLS);
	}
	return work_lora_apply(m, sh, true, out, p.n);
}

/* ------------------------------------------------- parameter tensors -- */

int work_layer_mat_tensors(const work_model *m, const work_shard *sh, int layer)
{
	/* QKV, output projection; MLA's q down/up (or q), kv down/up, output
	 * projection */
	int lin = work_model_is_mla(m) ? (m->q_lora_rank > 0 ? 5 : 4) : 2;
	if (work_layer_is_moe(m, layer)) {
		int ep = sh->ep > 1 ? sh->ep : 1;
		lin += 1 + 2 * (m->moe_experts / ep) + (m->moe_shared_experts > 0 ? 2 : 0);
	} else {
		lin += 2; /* fc1 (gate and up), fc2 */
	}
	return lin;
}

int work_layer_param_tensors(const work_model *m, const work_shard *sh, int layer)
{
	/* the weight matrices, and MLA's two latent norms */
	int lin = work_layer_mat_tensors(m, sh, layer);
	int latent = work_model_is_mla(m) ? (m->q_lora_rank > 0 ? 2 : 1) : 0;
	int norms = (m->norm == WORK_NORM_LAYERNORM ? 2 : 1) * (2 + latent);
	/* MLA's projections carry no biases, its output projection may */
	return lin + norms + (m->bias ? (latent ? 1 : lin) : 0);
}

int work_ends_mat_tensors(const work_model *m, bool first, bool last)
{
	return (first ? 1 + (m->learned_pos ? 1 : 0) : 0) +
	       (last && m->untied_embeddings ? 1 : 0);
}

int work_ends_param_tensors(const work_model *m, bool first, bool last)
{
	int n = 0;
	if (first)
		n += 1 + (m->learned_pos ? 1 : 0);
	if (last)
		n += (m->untied_embeddings ? 1 : 0) + (m->norm == WORK_NORM_LAYERNORM ? 2 : 1);
	return n;
}
