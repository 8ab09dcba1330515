/* mtp.c - the multi-token prediction module of DeepSeek-V3 as Megatron-Core
 * runs it (MultiTokenPredictionLayer, megatron/core/transformer/
 * multi_token_prediction.py at NVIDIA/Megatron-LM d98e8a64), one per
 * [model] mtp_layers, on the last pipeline stage after the main head
 * (plan/chain.c; Megatron-Bridge's DeepSeek-V3 layout "Et|(tt|)*30mL" puts
 * it, m, beside the loss, L).
 *
 * Per module on one TP rank (symbols of layer.c: T tokens, Tn = T/t with
 * SP, h hidden, e activation bytes):
 *   mtp_embed   the shifted tokens' embedding (embedding(input_ids), :1302,
 *               after roll_tensor): the vocabulary-parallel lookup of
 *               work_embed_forward, 2 e T h, and its all-reduce (SP:
 *               reduce-scatter) of T h e
 *   mtp_norms   enorm on the embedding and hnorm on the main model's hidden
 *               states (_concat_embeddings, :1331-1340): 2 x 2 e Tn h
 *   mtp_cat     torch.cat of the two: read 2 and write 2 of e Tn h
 *   eh_proj     ColumnParallelLinear 2h -> h, no bias (:1172-1186): SP
 *               all-gather of its T x 2h input, GEMM [T, 2h] x [2h, h/t],
 *               then gather_from_tensor_model_parallel_region of the
 *               T x h/t outputs, an all-gather of T h e (:1353), and the
 *               SP scatter (a slice)
 *   layer       one transformer layer of the last layer's kind
 *               (work_layer_forward_at with the last layer's index: MoE for
 *               DeepSeek-V3)
 *   head        the module's final_layernorm, the shared output layer's
 *               logits and the loss (work_head_forward)
 * Backward in reverse: the head's, the layer's, the SP scatter's backward
 * (an all-gather of T h e; the hidden-dim gather's backward is a slice),
 * eh_proj's dgrad, its input gradient's reduce-scatter (all-reduce without
 * SP) of T 2h e, its wgrad, the cat and norms (twice their bytes), and the
 * embedding's backward (work_embed_backward's all-gather and scatter-add).
 * fp8: the GEMM operands arriving in 16 bits are cast (4 bytes per element,
 * layer.c wl_fp8_cast): eh_proj's input and its output gradient.
 * Saved for the backward (work_mtp_saved_bytes): the layer's tensors, and
 * per token the two norms' inputs (the embedding and the hidden states) and
 * eh_proj's input, the concatenation (2h), e (h + h + 2h), sequence-
 * sharded with SP; under full recomputation only the layer's input.
 * Not charged: the word-embedding gradient the last stage then holds is
 * all-reduced with the first stage's (Megatron's shared-embedding group),
 * and the MTP loss's scaling. */
#include "layer_int.h"

#include <string.h>

static void cast(prog *p, const dims *d, const char *name, double elems)
{
	if (d->eg < 2.0)
		wl_mem(p, name, 4.0 * elems);
}

/* Append n items of src. */
static void append(prog *p, const work_item *src, int n)
{
	for (int i = 0; i < n; i++) {
		work_item *it = wl_push(p, src[i].kind, src[i].name);
		*it = src[i];
	}
}

/* The module's pieces before its layer: the shifted tokens' embedding, and
 * the norms, concatenation and eh_proj (the file comment); their backwards
 * in reverse order. */
int work_mtp_embed(const work_model *m, const work_shard *sh, bool backward,
		   work_item out[WORK_MAX_ITEMS])
{
	if (m->mtp_layers <= 0)
		return 0;
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (backward) {
		wl_comm_gather(&p, &d, "tp_ag_mtpe");
		wl_mem(&p, "mtp_embed", 4.0 * d.e * d.T * d.h);
	} else {
		wl_mem(&p, "mtp_embed", 2.0 * d.e * d.T * d.h);
		wl_comm_reduce(&p, &d, "tp_ar_mtpe", "tp_rs_mtpe");
	}
	return p.n;
}

int work_mtp_proj(const work_model *m, const work_shard *sh, bool backward,
		  work_item out[WORK_MAX_ITEMS])
{
	if (m->mtp_layers <= 0)
		return 0;
	dims d = wl_dims(m, sh);
	prog p = {out, 0};
	if (!backward) {
		wl_mem(&p, "mtp_norms", 2.0 * wl_norm_bytes(&d));
		wl_mem(&p, "mtp_cat", 4.0 * d.e * d.Tn * d.h);
		cast(&p, &d, "eh_cast", 2.0 * d.Tn * d.h);
		if (d.sp)
			wl_comm(&p, &d, "tp_ag_eh", WORK_COMM_ALLGATHER, 2.0 * d.T * d.h * d.e);
		wl_gemm_b(&p, &d, "eh_proj", d.T, d.h / d.t, 2.0 * d.h, 1.0);
		wl_comm(&p, &d, "tp_ag_eho", WORK_COMM_ALLGATHER, d.T * d.h * d.e);
		return p.n;
	}
	wl_comm_gather(&p, &d, "tp_ag_ehg");
	cast(&p, &d, "eh_gcast", d.T * d.h / d.t);
	wl_gemm_b(&p, &d, "eh_proj_dgrad", d.T, 2.0 * d.h, d.h / d.t, 1.0);
	if (d.comm)
		wl_comm(&p, &d, "tp_rs_eh", d.sp ? WORK_COMM_REDUCESCATTER : WORK_COMM_ALLREDUCE,
			2.0 * d.T * d.h * d.e);
	wl_gemm_b(&p, &d, "eh_proj_wgrad", 2.0 * d.h, d.h / d.t, d.T, 1.0);
	wl_mem(&p, "mtp_cat", 8.0 * d.e * d.Tn * d.h);
	wl_mem(&p, "mtp_norms", 4.0 * wl_norm_bytes(&d));
	return p.n;
}

int work_mtp_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	if (m->mtp_layers <= 0)
		return 0;
	prog p = {out, 0};
	work_item x[WORK_MAX_ITEMS];
	append(&p, x, work_mtp_embed(m, sh, false, x));
	append(&p, x, work_mtp_proj(m, sh, false, x));
	append(&p, x, work_layer_forward_at(m, sh, m->layers - 1, x));
	append(&p, x, work_head_forward(m, sh, x));
	return p.n;
}

int work_mtp_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS])
{
	if (m->mtp_layers <= 0)
		return 0;
	prog p = {out, 0};
	work_item x[WORK_MAX_ITEMS];
	append(&p, x, work_head_backward(m, sh, x));
	append(&p, x, work_layer_backward_at(m, sh, m->layers - 1, x));
	append(&p, x, work_mtp_proj(m, sh, true, x));
	append(&p, x, work_mtp_embed(m, sh, true, x));
	return p.n;
}

double work_mtp_saved_bytes(const work_model *m, const work_shard *sh, work_recompute rc,
			    const work_saved *sv)
{
	if (m->mtp_layers <= 0)
		return 0;
	dims d = wl_dims(m, sh);
	double own = rc == WORK_RECOMPUTE_FULL ? 0 : 4.0 * d.e * d.Tn * d.h;
	return m->mtp_layers * (work_saved_bytes_at(m, sh, m->layers - 1, rc, sv) + own);
}
