/* explain_model.c - sections 1 and 2 of `podsim explain` (explain.c): the
 * parameters per component (work.h's counts) and the model FLOPs per token
 * and per step, with the MFU and the clock the kernels run at. */
#include "explain_int.h"

#include <math.h>

static double head_dim(const work_model *m)
{
	return m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
}

/* ------------------------------------------------------------ parameters -- */

/* Matmul weights of attention and of a dense MLP (work.h's formulas). */
static double attn_matmul(const work_model *m)
{
	double h = m->hidden, q = m->heads * head_dim(m), kv = m->kv_heads * head_dim(m);
	if (work_model_is_mla(m)) { /* model.c's Pa */
		double a = m->heads, qr = m->q_lora_rank, kr = m->kv_lora_rank;
		double dn = m->qk_nope_head_dim, dr = m->qk_rope_head_dim, dv = m->v_head_dim;
		return (qr > 0 ? h * qr + qr * a * (dn + dr) : h * a * (dn + dr)) + h * (kr + dr) +
		       kr * a * (dn + dv) + a * dv * h;
	}
	return 2.0 * h * q + 2.0 * h * kv;
}

/* The attention line of section 1: MHA/GQA, or MLA's projections. */
static void attn_line(FILE *o, const work_model *m, double at)
{
	char a[48];
	double h = m->hidden, d = head_dim(m);
	if (!work_model_is_mla(m)) {
		fprintf(o,
		        "  attention    2h(ad) + 2h(gd) = 2 x %.0f x %.0f + 2 x %.0f x %.0f = %s\n",
		        h, m->heads * d, h, m->kv_heads * d, explain_cnt(at, a, sizeof a));
		return;
	}
	fprintf(o,
	        "  attention    MLA: q_r = %d, k_r = %d, dn = %d, dr = %d, dv = %d\n"
	        "               %s + h(k_r + dr) + k_r a(dn + dv) + a dv h = %s\n",
	        m->q_lora_rank, m->kv_lora_rank, m->qk_nope_head_dim, m->qk_rope_head_dim,
	        m->v_head_dim, m->q_lora_rank > 0 ? "h q_r + q_r a(dn + dr)" : "h a(dn + dr)",
	        explain_cnt(at, a, sizeof a));
}

static double mlp_matmul(const work_model *m)
{
	return (m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0) * m->hidden * m->ffn;
}

void explain_params(FILE *o, const work_model *m)
{
	char a[48], b[48], c[48], e[48];
	double h = m->hidden, d = head_dim(m), layer = work_params_layer(m);
	double at = attn_matmul(m), mlp = mlp_matmul(m);
	fprintf(o, "\n1. Parameters P\n");
	fprintf(o,
	        "  shape: l = %d layers, h = %d, a = %d heads of d = %.0f, g = %d KV heads,\n"
	        "         f = %d (%s), V = %d, s = %d\n",
	        m->layers, m->hidden, m->heads, d, m->kv_heads, m->ffn,
	        m->act == WORK_ACT_SWIGLU ? "SwiGLU" : "GELU", m->vocab, m->seq_len);
	attn_line(o, m, at);
	fprintf(o, "  MLP          %s = %s x %.0f x %d = %s\n",
	        m->act == WORK_ACT_SWIGLU ? "3hf" : "2hf", m->act == WORK_ACT_SWIGLU ? "3" : "2", h,
	        m->ffn, explain_cnt(mlp, a, sizeof a));
	fprintf(o, "  norms, bias  %d %s norm%s%s%s%s = %s\n", work_layer_norms(m),
	        m->norm == WORK_NORM_RMSNORM ? "RMSNorm (h each)" : "LayerNorm (2h each)",
	        work_layer_norms(m) > 1 ? "s" : "",
	        m->parallel_residual ? " (a parallel block's shared one)" : "",
	        work_model_is_mla(m) ? " + MLA's latent norms" : "",
	        m->bias ? " + linear biases" : "", explain_cnt(layer - at - mlp, a, sizeof a));
	fprintf(o, "  per layer    %s\n", explain_cnt(layer, a, sizeof a));
	fprintf(o, "  embedding    V x h%s = %s\n", m->learned_pos ? " + s x h positions" : "",
	        explain_cnt(work_params_embedding(m), a, sizeof a));
	fprintf(o, "  output       %s = %s\n",
	        m->untied_embeddings ? "V x h + final norm"
	                             : "final norm (logits tied to the embedding)",
	        explain_cnt(work_params_output(m) - work_params_mtp(m) + work_params_mtp_experts(m),
	                    a, sizeof a));
	if (m->mtp_layers > 0)
		fprintf(o,
		        "  MTP          %d x (3 norms + eh_proj 2h x h + one layer like the last) = %s\n",
		        m->mtp_layers, explain_cnt(work_params_mtp(m), a, sizeof a));
	double total = work_params_total(m);
	if (m->moe_experts > 0 || m->mtp_layers > 0)
		fprintf(o,
		        "  P            sum of the layers (dense and MoE) + embedding + output%s = "
		        "%s (%.3g)\n",
		        m->mtp_layers > 0 ? " + MTP" : "", explain_cnt(total, a, sizeof a), total);
	else
		fprintf(o,
		        "  P            l x per layer + embedding + output = %d x %s + %s + %s = "
		        "%s (%.3g)\n",
		        m->layers, explain_cnt(layer, a, sizeof a),
		        explain_cnt(work_params_embedding(m), b, sizeof b),
		        explain_cnt(work_params_output(m), c, sizeof c),
		        explain_cnt(total, e, sizeof e), total);
}

/* ----------------------------------------------------------------- FLOPs -- */

/* The clock line: the sustained clock the kernels run at (hw.h
 * tensor_sustain), or the assumption without it. */
static void clock_line(FILE *o, const plan_scenario *s)
{
	/* an fp8 step: its fp8 GEMMs at the fp8 factor, its 16-bit kernels at
	 * the 16-bit one (each kernel its own dtype's, hw.h) */
	bool split = s->dtype == HW_FP8 && s->gpu.sustain_cap16 != s->gpu.sustain_cap;
	const char *what = split ? "fp8 GEMM" : "kernel";
	if (s->gpu.sustain_cap > 0 && !s->gpu.sustain_assumed)
		fprintf(o,
		        "  clock        every %s the SM clock times runs at %.3g of the "
		        "microbenchmarks' clock\n               (tensor_sustain%s of %s: the clock "
		        "a step sustains under its power budget)\n",
		        what, s->gpu.sustain_cap,
		        s->dtype == HW_FP8 && s->gpu.tensor_sustain_fp8 > 0 ? "_fp8" : "",
		        s->gpu.name);
	else if (s->gpu.sustain_cap > 0)
		fprintf(o,
		        "  clock        assumed: %.3g of the microbenchmarks' clock (no tensor_sustain "
		        "fitted for %s):\n               %s (hw.h);\n               the step is as "
		        "uncertain as the fitted clocks' spread\n",
		        s->gpu.sustain_cap, s->gpu.name,
		        s->dtype == HW_FP8
		                ? "the fp8 clock of the one GPU type fitted in fp8, H100"
		                : "the mean of the fitted GPU types' clocks, A100 and H100");
	else
		fprintf(o,
		        "  clock        the microbenchmarks' clock (tensor_sustain = 1 for %s: "
		        "no throttling)\n",
		        s->gpu.name);
	if (split)
		fprintf(o,
		        "               its 16-bit kernels (fused attention, 16-bit GEMMs) at %.3g, "
		        "as in a 16-bit step:\n               each kernel takes its own dtype's "
		        "factor (hw.h)\n",
		        s->gpu.sustain_cap16 > 0 ? s->gpu.sustain_cap16 : 1.0);
}

void explain_vocab(FILE *o, const plan_scenario *s)
{
	if (s->model.vocab == s->vocab_model || s->vocab_model <= 0)
		return;
	int tp = s->plan.tp > 0 ? s->plan.tp : 1;
	fprintf(o,
	        "  V padded     the model's %d up to a multiple of [framework] vocab_multiple x tp =\n"
	        "               %d x %d = %d: V = %d (%d dummy tokens; the embedding, logits and\n"
	        "               loss run over them, model FLOPs and MFU count the model's %d)\n",
	        s->vocab_model, s->fw.vocab_multiple, tp, s->fw.vocab_multiple * tp, s->model.vocab,
	        s->model.vocab - s->vocab_model, s->vocab_model);
}

void explain_flops(FILE *o, const plan_scenario *s, const exec_result *r)
{
	work_model fm = plan_flops_model(s); /* the model's vocabulary, not the padding */
	const work_model *m = &fm;
	char a[48], b[48], c[48];
	double l = m->layers, h = m->hidden, sq = m->seq_len, q = m->heads * head_dim(m);
	/* training: 6 FLOPs per weight and token (2 forward, 4 backward) and
	 * 12 l s (ad) of attention; inference: the forward alone, a third */
	bool inf = s->inference;
	int kw = inf ? 2 : 6, ka = inf ? 4 : 12;
	double per_token = work_model_flops(m, 1.0) / (inf ? 3.0 : 1.0);
	/* MLA: QK^T over a (dn + dr), P V over a dv: (ka / 2) l s a (dqk + dv) */
	double aw = work_model_is_mla(m) ? 0.5 * m->heads * (head_dim(m) + m->v_head_dim) : q;
	double logits = kw * (double)m->vocab * h, attn = ka * l * sq * aw;
	double mtp = 0; /* the MTP modules: eh_proj, a layer, its logits (model.c) */
	if (m->mtp_layers > 0) {
		work_model x = *m;
		x.mtp_layers = 0;
		mtp = per_token - work_model_flops(&x, 1.0) / (inf ? 3.0 : 1.0);
	}
	double layers = per_token - logits - attn - mtp;
	fprintf(o, inf ? "\n2. Model FLOPs (inference: the forward only, 2 per weight and token)\n"
	               : "\n2. Model FLOPs (forward + backward, recomputation not counted)\n");
	if (m->moe_experts > 0)
		fprintf(o,
		        "  layers       %d x matmul weights a token meets (router, top-%d and "
		        "shared experts) = %.4g\n",
		        kw, m->moe_topk, layers);
	else
		fprintf(o,
		        "  layers       %d x l x (attention + MLP matmul weights) = %d x %d x %s = "
		        "%.4g\n",
		        kw, kw, m->layers, explain_cnt(attn_matmul(m) + mlp_matmul(m), a, sizeof a),
		        layers);
	fprintf(o, "  logits       %d x V x h = %d x %d x %d = %.4g\n", kw, kw, m->vocab, m->hidden,
	        logits);
	if (work_model_is_mla(m))
		fprintf(o,
		        "  attention    %d x l x s x a(dn + dr + dv) = %d x %d x %d x %.0f = %.4g\n",
		        ka / 2, ka / 2, m->layers, m->seq_len, 2.0 * aw, attn);
	else
		fprintf(o, "  attention    %d x l x s x (ad) = %d x %d x %d x %.0f = %.4g\n", ka,
		        ka, m->layers, m->seq_len, q, attn);
	if (m->mtp_layers > 0)
		fprintf(o,
		        "  MTP          %d x (%d x (layer + 2h^2 + V h) + its attention) = %.4g\n",
		        m->mtp_layers, kw, mtp);
	fprintf(o, "  per token    %.4g FLOPs (%dP alone: %.4g)\n", per_token, kw,
	        kw * work_params_total(m));
	double tokens = (double)s->plan.global_batch * m->seq_len;
	fprintf(o, "  per step     x T = global_batch x s = %d x %d = %s tokens: %.4g FLOPs\n",
	        s->plan.global_batch, m->seq_len, explain_cnt(tokens, a, sizeof a),
	        per_token * tokens);
	int nf = s->train.frozen_layers;
	if (nf > 0 && !inf) /* plan_build's model FLOPs: the frozen prefix forward only */
		fprintf(o,
		        "  frozen       the first %d layers and the embedding run forward only (no\n"
		        "               backward): - 2/3 x %d/%d of layers + attention = - %.4g;"
		        " F = %.4g FLOPs\n",
		        nf, nf, m->layers, (layers + attn) * nf / l * 2.0 / 3.0 * tokens,
		        r->model_flops);
	if (s->train.lora_rank > 0 && !inf) /* plan_build's: plan_lora_flops_change */
		fprintf(o,
		        "  LoRA         the frozen linears' weight gradients (2 of the 6 per weight and\n"
		        "               token%s) are not computed, the rank-%d adapters' 6 per\n"
		        "               weight and token are: %+.4g; F = %.4g FLOPs\n",
		        s->train.train_embeddings ? "; the output layer trains" : ", the output layer's too",
		        s->train.lora_rank, plan_lora_flops_change(s, tokens), r->model_flops);
	fprintf(o, "  MFU          F / (step x GPUs x peak) = %.4g / (%s x %d x %s) = %.1f%%\n",
	        r->model_flops, explain_unit(r->step_s, SIM_UNIT_TIME, b, sizeof b), r->gpus,
	        explain_unit(r->peak_flops, SIM_UNIT_FLOPS, c, sizeof c), 100.0 * r->mfu);
	if (r->hardware_flops > r->model_flops * (1 + 1e-12))
		fprintf(o, "  HFU          counts the recomputed forward too: %.4g FLOPs, %.1f%%\n",
		        r->hardware_flops, 100.0 * r->hfu);
	if (plan_recompute_partial(&s->plan)) {
		int nl = plan_chunk_layers(s, 0, 0, NULL), k = 0;
		for (int i = 0; i < nl; i++)
			k += plan_layer_recomputed(&s->plan, nl, i);
		fprintf(o,
		        "               of stage 0's first chunk %d of %d layers re-run their "
		        "forward (recompute_layers = %d, %s),\n               about %d/%d of "
		        "the layers' 2P: HFU/MFU ~ (6 + 2 x %d/%d) / 6\n",
		        k, nl, s->plan.recompute_layers,
		        s->plan.recompute_method == PLAN_RC_SPREAD ? "spread" : "block", k, nl, k,
		        nl);
	}
	clock_line(o, s);
}
