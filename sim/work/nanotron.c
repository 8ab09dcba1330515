/* nanotron.c - the kernel programs of Hugging Face nanotron's eager Llama code
 * (work.h, WORK_LAYER_NANOTRON): what one TP rank launches per decoder
 * layer, for the embedding and for the logits + loss, forward and backward.
 *
 * Source: huggingface/nanotron at 0e0a27ea (2025-02-19, "scaling benchmark",
 * the Ultra-Scale Playbook's merge); file:line below are at that commit:
 * models/llama.py (LL), parallel/tensor_parallel/functional.py (TF), .../nn.py
 * (TN). The benchmark configs run tp_mode REDUCE_SCATTER (sequence
 * parallelism) with tp_linear_async_communication on, and ALL_REDUCE with it
 * off (scripts/scaling_benchmarks.py:88-89; TN:136-137 refuses async row
 * linears in ALL_REDUCE mode), so here SP means the async linears.
 *
 * Symbols as layer.c: T = b s tokens, Tn = T/t with SP, h hidden, qd = query
 * width, kv = K (or V) width, n = qd + 2 kv, f = MLP inner size per rank, V =
 * vocabulary slice, e = 2 bytes (bf16). Bytes are read + written. Each item
 * is one kernel unless `launches` says more (each launch costs the host a
 * framework operation: plan/chain.c).
 *
 * Forward layer (LL:719-733 _core_forward):
 *   ln1      TritonRMSNorm (LL:704), one Triton kernel: 2 e Tn h
 *   qkv      column linear (TF:118-266, async): the all-gather of the
 *            sequence shards starts (TF:167) and the local shard's GEMM
 *            [T/t, h] x [h, n] runs beside it (TF:198); after the wait (TF:212)
 *            the shards before and after the rank's own, [(t-1)T/2t, h] x [h, n]
 *            each (TF:230, 245; a middle rank runs both, the slowest of the
 *            group that the next collective waits for). Without SP: identity,
 *            one GEMM [T, h] x [h, n].
 *   layout   MHA: qkv.view().permute(2,1,0,3,4).contiguous(), one copy of the
 *            n columns (LL:470-473); GQA: three transpose().contiguous()
 *            copies (LL:459-468): 2 e T n either way
 *   kv_pack  torch.cat of K and V, then permute(1,2,0,3,4).contiguous()
 *            (LL:655-657): two copies of 2 kv columns: 8 e T kv
 *   rope     flash-attn's rotary (LL:658), Triton, in place on Q and on K:
 *            2 launches, 2 e T (qd + kv)
 *   prep     CoreAttention's cu_seqlens: torch.zeros x2, mask.sum x2,
 *            torch.cumsum x2 (LL:274-277): 6 launches on b-sized tensors
 *   attn     flash_attn_varlen_func (LL:286), the fused core (layer.c)
 *   [copy]   b > 1: attention_output ... .transpose(0, 1) (LL:688) is not a
 *            view F.linear can flatten: one copy, 2 e T qd
 *   proj     row linear (TF:453-470): GEMM [T, qd] x [qd, h], then the
 *            blocking reduce-scatter (SP) or all-reduce (TF:596-601) of T h e
 *   resid1   hidden_states + residual (LL:727): 3 e Tn h
 *   ln2, fc1 (column linear as qkv, n = 2f), act: split, SiLU and the
 *            product apart (LL:199-201): silu reads f writes f, mul reads 2f
 *            writes f: 2 launches, 5 e T f
 *   fc2      row linear as proj; resid2 (LL:732)
 * Backward (autograd, in reverse):
 *   fc2      row linear's backward (TF:476-581): with SP the all-gather of
 *            the output gradient (TF:501) beside the local dgrad shard
 *            [T/t, h] x [h, f] (TF:531), after the wait (TF:538) the other
 *            shards (TF:552, 559), then the wgrad [f, T] x [T, h] (TF:578);
 *            without SP dgrad and wgrad (the all-reduce's backward is the
 *            identity)
 *   act      mul's backward (2 products), SiLU's, and split's (a cat):
 *            4 launches, (6 + 3 + 4) e T f
 *   fc1      column linear's backward (TF:268-343): with SP (and
 *            tp_recompute_allgather, on by default: config/
 *            parallelism_config.py:37) the re-gather of the input (TF:289)
 *            beside the dgrad (TF:296), then the reduce-scatter of the input
 *            gradient (TF:318) beside the wgrad (TF:335); without SP the
 *            dgrad, the wgrad and the identity's blocking all-reduce
 *   ln2      Triton backward: dx and the dw reduction: 2 launches, 4 e Tn h
 *   fork     the residual branch's gradient added at the fork: 3 e Tn h
 *   proj     row linear's backward as fc2; [copy] its transpose back
 *   attn     the fused core's backward
 *   kv       split's backward (a cat) of dK, dV: 4 e T kv
 *   rope     the two rotary backward kernels: 2 e T (qd + kv)
 *   layout   MHA: unbind's backward (stack) and the column linear's
 *            grad_output.contiguous() (TF:302): 2 launches, 4 e T n; GQA:
 *            split's backward (a cat): 2 e T n
 *   qkv      column linear's backward as fc1; ln1 (2 launches), fork add.
 * The embedding (TN:277-296) and the loss (LL:957-978, TF:31-105) below. */
#include "layer_int.h"

/* A run of `launches` memory-bound kernels moving `bytes` in all. */
static void kern(prog *p, const char *name, double bytes, int launches)
{
	wl_mem(p, name, bytes);
	p->v[p->n - 1].launches = launches;
}

static void gemm(prog *p, const dims *d, const char *name, double m, double n, double k)
{
	wl_gemm_b(p, d, name, m, n, k, 1.0);
}

/* The shards gathered after the wait: (t-1)/t of the rows, as two GEMMs
 * (before and after the rank's own) for t > 2, one for t = 2. */
static void rest_gemms(prog *p, const dims *d, const char *name, double n, double k)
{
	int g = d->t > 2 ? 2 : 1;
	wl_gemm_b(p, d, name, d->T * (d->t - 1) / d->t / g, n, k, g);
	p->v[p->n - 1].launches = g;
}

/* A collective that runs beside the next item (nanotron's async_op=True). */
static void comm_beside(prog *p, const dims *d, const char *name, work_comm c)
{
	int n = p->n;
	wl_comm(p, d, name, c, d->T * d->h * d->e);
	if (p->n > n)
		p->v[p->n - 1].beside = true;
}

/* Column-parallel linear [T, k] x [k, n], forward. */
static void col_fwd(prog *p, const dims *d, const char *ag, const char *name, const char *local,
                    double n, double k)
{
	if (!d->sp) {
		gemm(p, d, name, d->T, n, k);
		return;
	}
	comm_beside(p, d, ag, WORK_COMM_ALLGATHER);
	gemm(p, d, local, d->T / d->t, n, k);
	rest_gemms(p, d, name, n, k);
}

/* ... backward: dgrad [T, n] x [n, k], wgrad [k, T] x [T, n]. */
static void col_bwd(prog *p, const dims *d, const char *ag, const char *rs, const char *dg,
                    const char *wg, double n, double k)
{
	if (d->sp)
		comm_beside(p, d, ag, WORK_COMM_ALLGATHER);
	gemm(p, d, dg, d->T, k, n);
	if (d->sp)
		comm_beside(p, d, rs, WORK_COMM_REDUCESCATTER);
	gemm(p, d, wg, k, n, d->T);
	if (!d->sp)
		wl_comm(p, d, rs, WORK_COMM_ALLREDUCE, d->T * d->h * d->e);
}

/* Row-parallel linear [T, k] x [k, n] (n = h), forward: GEMM, then the
 * blocking reduce-scatter (SP) or all-reduce. */
static void row_fwd(prog *p, const dims *d, const char *ar, const char *name, double n, double k)
{
	gemm(p, d, name, d->T, n, k);
	wl_comm(p, d, ar, d->sp ? WORK_COMM_REDUCESCATTER : WORK_COMM_ALLREDUCE,
	        d->T * d->h * d->e);
}

/* ... backward. */
static void row_bwd(prog *p, const dims *d, const char *ag, const char *dg, const char *dl,
                    const char *wg, double n, double k)
{
	if (d->sp) {
		comm_beside(p, d, ag, WORK_COMM_ALLGATHER);
		gemm(p, d, dl, d->T / d->t, k, n);
		rest_gemms(p, d, dg, k, n);
	} else {
		gemm(p, d, dg, d->T, k, n);
	}
	gemm(p, d, wg, k, n, d->T);
}

int wl_nanotron_forward(const work_model *m, const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T;
	kern(&p, "ln1", wl_norm_bytes(d), 1);
	col_fwd(&p, d, "tp_ag1", "qkv", "qkv_local", d->qkv_n, d->h);
	kern(&p, "qkv_layout", 2 * e * T * d->qkv_n, d->gqa ? 3 : 1);
	kern(&p, "kv_pack", 8 * e * T * d->kv, 2);
	kern(&p, "rope", 2 * e * T * (d->qd + d->kv), 2);
	kern(&p, "attn_prep", 2 * T, 6);
	wl_attn_core(&p, d, false);
	if (d->b > 1)
		kern(&p, "attn_out_copy", 2 * e * T * d->qd, 1);
	row_fwd(&p, d, "tp_rs1", "proj", d->h, d->qd);
	kern(&p, "resid1", 3 * e * d->Tn * d->h, 1);
	kern(&p, "ln2", wl_norm_bytes(d), 1);
	col_fwd(&p, d, "tp_ag2", "fc1", "fc1_local", d->fc1_n, d->h);
	bool glu = m->act == WORK_ACT_SWIGLU;
	kern(&p, "act", (glu ? 5 : 2) * e * T * d->f, glu ? 2 : 1);
	row_fwd(&p, d, "tp_rs2", "fc2", d->h, d->f);
	kern(&p, "resid2", 3 * e * d->Tn * d->h, 1);
	return p.n;
}

int wl_nanotron_backward(const work_model *m, const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T;
	bool glu = m->act == WORK_ACT_SWIGLU;
	row_bwd(&p, d, "tp_ag2", "fc2_dgrad", "fc2_dgrad_loc", "fc2_wgrad", d->h, d->f);
	kern(&p, "act", (glu ? 13 : 3) * e * T * d->f, glu ? 4 : 1);
	col_bwd(&p, d, "tp_ag2r", "tp_rs2", "fc1_dgrad", "fc1_wgrad", d->fc1_n, d->h);
	kern(&p, "ln2", 2 * wl_norm_bytes(d), 2);
	kern(&p, "resid_add2", 3 * e * d->Tn * d->h, 1);
	row_bwd(&p, d, "tp_ag1", "proj_dgrad", "proj_dgrad_loc", "proj_wgrad", d->h, d->qd);
	if (d->b > 1)
		kern(&p, "attn_out_copy", 2 * e * T * d->qd, 1);
	wl_attn_core(&p, d, true);
	kern(&p, "kv_unpack", 4 * e * T * d->kv, 1);
	kern(&p, "rope", 2 * e * T * (d->qd + d->kv), 2);
	if (d->gqa)
		kern(&p, "qkv_layout", 2 * e * T * d->qkv_n, 1);
	else
		kern(&p, "qkv_layout", 4 * e * T * d->qkv_n, 2);
	col_bwd(&p, d, "tp_ag1r", "tp_rs1", "qkv_dgrad", "qkv_wgrad", d->qkv_n, d->h);
	kern(&p, "ln1", 2 * wl_norm_bytes(d), 2);
	kern(&p, "resid_add1", 3 * e * d->Tn * d->h, 1);
	return p.n;
}

/* Embedding (TN:277-296): with t > 1 the out-of-slice mask (two comparisons
 * and logical_or), clone, subtract and the masked fill of the ids (int64,
 * 8 B per token each: 6 launches), the lookup (2 e T h), the mask's negation
 * and the product (2 launches, 2 e T h + T), then the reduce-scatter (SP) or
 * all-reduce. Backward: the collective's backward (SP: an all-gather,
 * blocking), the product's (2 e T h) and the lookup's scatter-add (4 e T h). */
int wl_nanotron_embed_forward(const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T;
	if (d->comm)
		kern(&p, "embed_mask", 6 * 8 * T, 6);
	kern(&p, "embed", 2 * e * T * d->h, 1);
	if (d->comm) {
		kern(&p, "embed_mul", 2 * e * T * d->h + T, 2);
		wl_comm(&p, d, d->sp ? "tp_rs_emb" : "tp_ar_emb",
		        d->sp ? WORK_COMM_REDUCESCATTER : WORK_COMM_ALLREDUCE, T * d->h * e);
	}
	return p.n;
}

int wl_nanotron_embed_backward(const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T;
	if (d->sp)
		wl_comm(&p, d, "tp_ag_emb", WORK_COMM_ALLGATHER, T * d->h * e);
	if (d->comm)
		kern(&p, "embed_mul", 2 * e * T * d->h, 1);
	kern(&p, "embed", 4 * e * T * d->h, 1);
	return p.n;
}

/* Logits and loss: final TritonRMSNorm, lm_head as a column linear (LL:856-874),
 * cast_to_fp32 (LL:876: read e, write 4 per logit), then Loss (LL:957-978) and
 * _ShardedCrossEntropy.forward (TF:31-88) on the fp32 [T, V] slice: labels'
 * transpose().contiguous() and the row max (4 per logit), all-reduce MAX;
 * subtract the max (8), the target mask, clone, subtract, masked fills, arange,
 * gather, clone (9 small), all-reduce SUM of the target logits; exp in place (8)
 * and its row sum (4), all-reduce SUM; log, subtract, div_ in place (8) and
 * masked_mean's four kernels and the division by the micro-batch count (7
 * small). In all 38 bytes per logit (e = 2) over 25 launches, as Megatron's
 * vocabulary-parallel loss (layer.c, xent_bytes) with more small kernels. The three all-reduces carry T fp32 values each. Backward
 * (TF:90-105): the loss's small kernels, arange, the target's float, subtract
 * and index_put (9 small), grad_input.mul_ (8 per logit), the fp32 cast's
 * backward (4 + e), the lm_head's column backward, the norm's (2 launches). */
int wl_nanotron_head_forward(const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T, L = T * d->V, small = 4 * T;
	kern(&p, "lnf", wl_norm_bytes(d), 1);
	col_fwd(&p, d, "tp_ag_head", "logits", "logits_local", d->V, d->h);
	kern(&p, "to_fp32", (e + 4) * L, 1);
	kern(&p, "xent_max", 4 * L + 16 * T, 2);
	wl_comm(&p, d, "tp_ar_max", WORK_COMM_ALLREDUCE, small);
	kern(&p, "xent_tgt", 8 * L + 9 * 8 * T, 10);
	wl_comm(&p, d, "tp_ar_tgt", WORK_COMM_ALLREDUCE, small);
	kern(&p, "xent_sum", 12 * L, 2);
	wl_comm(&p, d, "tp_ar_sum", WORK_COMM_ALLREDUCE, small);
	kern(&p, "xent_loss", 8 * L + 8 * 4 * T, 8);
	return p.n;
}

int wl_nanotron_head_backward(const dims *d, work_item *out)
{
	prog p = {out, 0};
	double e = d->e, T = d->T, L = T * d->V;
	kern(&p, "xent_grad", 8 * L + 9 * 8 * T, 10);
	kern(&p, "to_fp32", (4 + e) * L, 1);
	col_bwd(&p, d, "tp_ag_headr", "tp_rs_head", "logits_dgrad", "logits_wgrad", d->V, d->h);
	kern(&p, "lnf", 2 * wl_norm_bytes(d), 2);
	return p.n;
}
