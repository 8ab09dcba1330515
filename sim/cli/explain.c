/* explain.c - `podsim explain SCENARIO.ini`: how each headline number of a run
 * is obtained, as the formula with the scenario's values plugged in, next to
 * what the simulated step gives, with a line on where and why they differ.
 *
 * Sections (symbols: l layers, h hidden, a heads, g KV heads, d head size,
 * f MLP inner size, V vocabulary, s sequence, b micro-batch, t = tp, p = pp,
 * m micro-batches, v = vpp, n = DP group size):
 *  1. parameters per component (work.h's counts: attention h(ad) + 2h(gd) +
 *     (ad)h, MLP 2hf or 3hf with SwiGLU, norms and biases, embedding, output);
 *  2. model FLOPs per token, 6 x matmul weights + 6Vh logits + 12 l s (ad)
 *     attention (Narayanan et al. 2021), per step and the MFU; the sustained
 *     clock the kernels run at (hw.h tensor_sustain) or the assumption;
 *  3. memory per GPU of the most loaded stage (on the GPU type the plan's
 *     verdict is decided on: [cluster] other_gpu's worst stage when it is):
 *     2 + 4 + 12 bytes per parameter (sharded by ZeRO), Korthikanti et al.
 *     2022's activation terms times the micro-batches in flight, buffers and
 *     fragmentation (plan_memory); the plan's verdict, the worst of its GPU
 *     types and offload tiers, and the cuts;
 *  4. the textbook bubble (p-1)/(m+p-1), divided by v when interleaved, next to
 *     the simulated bubble fraction;
 *  5. the ring all-reduce of one stage's gradients, lat + 2(n-1)/n S/busbw
 *     (net.h), next to the gradient buckets the graph reduces
 *     (plan_grad_buckets: layers, chunk, bytes, launch, alpha-beta time) and
 *     the simulated exposed DP time;
 *  6. the error band: the validation cell nearest the scenario (valid.h,
 *     valid_band_find: GPU generation, framework, scale), its sources and
 *     residual quantiles, the widening rule when it applied, the band times
 *     the step (widened by the step's spread where there is one); and the
 *     MFU against the best published for the GPU;
 *  7. what a micro-batch costs beyond its tokens on the busiest stage
 *     (plan_microbatch_cost): kernels and collectives issued, the host time
 *     to issue them against the GPU time, the collectives' latency, the
 *     gradient accumulation, the pipeline transfers' overhead; their sum
 *     times m, against the step;
 *  8. the optimizer step of stage 0 (plan_optimizer_cost): bytes per trained
 *     parameter (update, gradient norm, casts), the kernels and the fraction
 *     of the copy rate they stream at, the time, next to the simulated
 *     optimizer time;
 *  9. on a cluster with a measured collective spread (EFA): the step's
 *     spread (exec/spread.c): the data, the split log-normal, the step's
 *     collectives that vary per group and node count, the correlation
 *     assumption, the sampled quantiles, the two limits (fully correlated,
 *     independent) and what the step exposes.
 * Deterministic (no wall time), so it is tested against golden files
 * (tests/golden/explain/). Exit 0, 1 if the simulation fails, 2 on bad input.
 */
#include "cli.h"

#include "campaign/campaign.h"
#include "exec/exec.h"
#include "valid/valid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPLAIN_EXIT_INPUT 2
#define EXPLAIN_MAX_SETS   256
#define EXPLAIN_MAX_STAGES 8  /* per-stage lists print at most this many */
#define EXPLAIN_MAX_BUCKETS 8 /* section 5 lists these buckets and the last */
#define EXPLAIN_COLS       96 /* "why" lines wrap here */

static const char usage_explain[] =
        "usage: podsim explain SCENARIO.ini [--set SECTION.KEY=VALUE ...]\n"
        "\n"
        "Simulate one step of the scenario (nothing is stored) and explain each headline\n"
        "number: the formula, the values plugged in and the result, next to what the\n"
        "simulation gives: parameter count per component, FLOPs per token and MFU,\n"
        "memory per category (weights, gradients, optimizer, Korthikanti activations),\n"
        "the textbook pipeline bubble (p-1)/(m+p-1) and the ring all-reduce time of\n"
        "the DP gradients, with where and why they differ; the error band; what a\n"
        "micro-batch costs beyond its tokens (collective latency, host dispatch the GPU\n"
        "waits for, gradient accumulation, pipeline handshakes), times the micro-batches;\n"
        "on a cluster with a measured collective spread (EFA), the step's spread and its\n"
        "limits.\n"
        "\n"
        "options:\n"
        "  --set SECTION.KEY=VALUE  override a key (repeatable)\n"
        "  --spread-samples N       sampled replays of the step's spread (default 100)\n"
        "  -h, --help               this help\n";

/* An integer-valued count grouped by thousands: "1,678,000". */
static const char *cnt(double v, char *buf, size_t len)
{
	char d[40];
	snprintf(d, sizeof d, "%.0f", fabs(v));
	size_t n = strlen(d), o = 0;
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Bytes with one decimal in binary units: "17.8 GiB". */
static const char *gib(double v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	while (fabs(v) >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

/* "  why          TEXT" with TEXT wrapped at EXPLAIN_COLS columns under itself. */
static void why(FILE *o, const char *text)
{
	const int indent = 15;
	fputs("  why          ", o);
	int col = indent;
	while (*text) {
		size_t w = strcspn(text, " ");
		if (col > indent && col + 1 + (int)w > EXPLAIN_COLS) {
			fprintf(o, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', o);
			col++;
		}
		fwrite(text, 1, w, o);
		col += (int)w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', o);
}

static const char *unit(double v, sim_unit u, char *buf, size_t len)
{
	sim_unit_format(v, u, buf, len);
	return buf;
}

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
		fprintf(o, "  attention    2h(ad) + 2h(gd) = 2 x %.0f x %.0f + 2 x %.0f x %.0f = %s\n",
		        h, m->heads * d, h, m->kv_heads * d, cnt(at, a, sizeof a));
		return;
	}
	fprintf(o,
	        "  attention    MLA: q_r = %d, k_r = %d, dn = %d, dr = %d, dv = %d\n"
	        "               %s + h(k_r + dr) + k_r a(dn + dv) + a dv h = %s\n",
	        m->q_lora_rank, m->kv_lora_rank, m->qk_nope_head_dim, m->qk_rope_head_dim,
	        m->v_head_dim, m->q_lora_rank > 0 ? "h q_r + q_r a(dn + dr)" : "h a(dn + dr)",
	        cnt(at, a, sizeof a));
}

static double mlp_matmul(const work_model *m)
{
	return (m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0) * m->hidden * m->ffn;
}

static void params(FILE *o, const work_model *m)
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
	        m->ffn, cnt(mlp, a, sizeof a));
	fprintf(o, "  norms, bias  2 %s norms%s%s = %s\n",
	        m->norm == WORK_NORM_RMSNORM ? "RMSNorm (h each)" : "LayerNorm (2h each)",
	        work_model_is_mla(m) ? " + MLA's latent norms" : "",
	        m->bias ? " + linear biases" : "", cnt(layer - at - mlp, a, sizeof a));
	fprintf(o, "  per layer    %s\n", cnt(layer, a, sizeof a));
	fprintf(o, "  embedding    V x h%s = %s\n", m->learned_pos ? " + s x h positions" : "",
	        cnt(work_params_embedding(m), a, sizeof a));
	fprintf(o, "  output       %s = %s\n",
	        m->untied_embeddings ? "V x h + final norm"
	                             : "final norm (logits tied to the embedding)",
	        cnt(work_params_output(m) - work_params_mtp(m) + work_params_mtp_experts(m), a,
	            sizeof a));
	if (m->mtp_layers > 0)
		fprintf(o, "  MTP          %d x (3 norms + eh_proj 2h x h + one layer like the last) = %s\n",
		        m->mtp_layers, cnt(work_params_mtp(m), a, sizeof a));
	double total = work_params_total(m);
	if (m->moe_experts > 0 || m->mtp_layers > 0)
		fprintf(o,
		        "  P            sum of the layers (dense and MoE) + embedding + output%s = "
		        "%s (%.3g)\n", m->mtp_layers > 0 ? " + MTP" : "",
		        cnt(total, a, sizeof a), total);
	else
		fprintf(o,
		        "  P            l x per layer + embedding + output = %d x %s + %s + %s = "
		        "%s (%.3g)\n",
		        m->layers, cnt(layer, a, sizeof a),
		        cnt(work_params_embedding(m), b, sizeof b),
		        cnt(work_params_output(m), c, sizeof c), cnt(total, e, sizeof e), total);
}

/* ----------------------------------------------------------------- FLOPs -- */

static void flops(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const work_model *m = &s->model;
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
		        kw, kw, m->layers, cnt(attn_matmul(m) + mlp_matmul(m), a, sizeof a), layers);
	fprintf(o, "  logits       %d x V x h = %d x %d x %d = %.4g\n", kw, kw, m->vocab, m->hidden,
		logits);
	if (work_model_is_mla(m))
		fprintf(o,
		        "  attention    %d x l x s x a(dn + dr + dv) = %d x %d x %d x %.0f = %.4g\n",
		        ka / 2, ka / 2, m->layers, m->seq_len, 2.0 * aw, attn);
	else
		fprintf(o, "  attention    %d x l x s x (ad) = %d x %d x %d x %.0f = %.4g\n", ka, ka,
		        m->layers, m->seq_len, q, attn);
	if (m->mtp_layers > 0)
		fprintf(o,
		        "  MTP          %d x (%d x (layer + 2h^2 + V h) + its attention) = %.4g\n",
		        m->mtp_layers, kw, mtp);
	fprintf(o, "  per token    %.4g FLOPs (%dP alone: %.4g)\n", per_token, kw,
	        kw * work_params_total(m));
	double tokens = (double)s->plan.global_batch * m->seq_len;
	fprintf(o, "  per step     x T = global_batch x s = %d x %d = %s tokens: %.4g FLOPs\n",
	        s->plan.global_batch, m->seq_len, cnt(tokens, a, sizeof a), per_token * tokens);
	int nf = s->train.frozen_layers;
	if (nf > 0 && !inf) /* plan_build's model FLOPs: the frozen prefix forward only */
		fprintf(o,
		        "  frozen       the first %d layers and the embedding run forward only (no\n"
		        "               backward): - 2/3 x %d/%d of layers + attention = - %.4g;"
		        " F = %.4g FLOPs\n",
		        nf, nf, m->layers, (layers + attn) * nf / l * 2.0 / 3.0 * tokens,
		        r->model_flops);
	fprintf(o, "  MFU          F / (step x GPUs x peak) = %.4g / (%s x %d x %s) = %.1f%%\n",
	        r->model_flops, unit(r->step_s, SIM_UNIT_TIME, b, sizeof b), r->gpus,
	        unit(r->peak_flops, SIM_UNIT_FLOPS, c, sizeof c), 100.0 * r->mfu);
	if (r->hardware_flops > r->model_flops * (1 + 1e-12))
		fprintf(o, "  HFU          counts the recomputed forward too: %.4g FLOPs, %.1f%%\n",
		        r->hardware_flops, 100.0 * r->hfu);
	if (plan_recompute_partial(&s->plan)) {
		int nl = plan_chunk_layers(s, 0, 0, NULL), k = 0;
		for (int i = 0; i < nl; i++)
			k += plan_layer_recomputed(&s->plan, nl, i);
		fprintf(o, "               of stage 0's first chunk %d of %d layers re-run their "
		           "forward (recompute_layers = %d, %s),\n               about %d/%d of "
		           "the layers' 2P: HFU/MFU ~ (6 + 2 x %d/%d) / 6\n",
		        k, nl, s->plan.recompute_layers,
		        s->plan.recompute_method == PLAN_RC_SPREAD ? "spread" : "block", k, nl, k, nl);
	}
	/* the sustained clock (hw.h tensor_sustain), or the assumption without it */
	if (s->gpu.sustain_cap > 0 && !s->gpu.sustain_assumed)
		fprintf(o, "  clock        every kernel the SM clock times runs at %.3g of the "
		           "microbenchmarks' clock\n               (tensor_sustain%s of %s: the clock "
		           "a step sustains under its power budget)\n",
		        s->gpu.sustain_cap, s->dtype == HW_FP8 && s->gpu.tensor_sustain_fp8 > 0 ? "_fp8" : "",
		        s->gpu.name);
	else if (s->gpu.sustain_cap > 0)
		fprintf(o, "  clock        assumed: %.3g of the microbenchmarks' clock (no tensor_sustain "
		           "fitted for %s):\n               %s (hw.h);\n               the step is as "
		           "uncertain as the fitted clocks' spread\n",
		        s->gpu.sustain_cap, s->gpu.name,
		        s->dtype == HW_FP8 ? "the fp8 clock of the one GPU type fitted in fp8, H100"
		                           : "the mean of the fitted GPU types' clocks, A100 and H100");
	else
		fprintf(o, "  clock        the microbenchmarks' clock (tensor_sustain = 1 for %s: "
		           "no throttling)\n",
		        s->gpu.name);
}

/* ---------------------------------------------------------------- memory -- */

/* Parameters one rank of `stage` holds before ZeRO sharding (plan_memory's
 * rule, restated: its layers, the embedding on the first stage, the output
 * layer and a tied copy of the word embedding on the last when p > 1, over
 * t but what TP keeps whole: plan_rank_layer and its kin). Dense models only
 * (section 5's gradient bytes). */
static double rank_params(const plan_scenario *s, int stage)
{
	const work_model *m = &s->model;
	double p = 0;
	for (int l = 0; l < plan_stage_layers(s, stage); l++)
		p += plan_rank_layer(s, plan_global_layer(s, stage, l));
	if (stage == 0)
		p += plan_rank_embedding(s);
	if (stage == s->plan.pp - 1) {
		p += plan_rank_output(s);
		if (!m->untied_embeddings && s->plan.pp > 1)
			p += (double)m->vocab * m->hidden / s->plan.tp;
	}
	return p;
}

/* Korthikanti et al. 2022, table 2: the formula of the plan's case and its
 * value per layer and micro-batch (16-bit activations). */
static double korthikanti(const plan_scenario *s, work_recompute rc, char *f, size_t len)
{
	work_shard sh = plan_shard(s);
	double sv = sh.seq, b = sh.micro_batch, h = s->model.hidden, a = s->model.heads, t = sh.tp;
	double sbh = sv * b * h, att = 5.0 * a * sv / (h * t);
	switch (rc) {
	case WORK_RECOMPUTE_FULL:
		if (sh.sp)
			snprintf(f, len, "2 s b h / t = 2 x %.0f x %.0f x %.0f / %.0f", sv, b, h,
			         t);
		else
			snprintf(f, len, "2 s b h = 2 x %.0f x %.0f x %.0f", sv, b, h);
		return 2.0 * sbh / (sh.sp ? t : 1);
	case WORK_RECOMPUTE_SELECTIVE:
		if (sh.sp) {
			snprintf(f, len, "s b h x 34/t = %.0f x %.0f x %.0f x 34/%.0f", sv, b, h,
			         t);
			return sbh * 34 / t;
		}
		snprintf(f, len, "s b h (10 + 24/t) = %.0f x %.0f x %.0f x (10 + 24/%.0f)", sv, b,
		         h, t);
		return sbh * (10 + 24 / t);
	default:
		if (sh.sp) {
			snprintf(f, len,
			         "s b h (34/t + 5as/(ht)) = %.0f x %.0f x %.0f x (34/%.0f + %.4g)",
			         sv, b, h, t, att);
			return sbh * (34 / t + att);
		}
		snprintf(
		        f, len,
		        "s b h (10 + 24/t + 5as/(ht)) = %.0f x %.0f x %.0f x (10 + 24/%.0f + %.4g)",
		        sv, b, h, t, att);
		return sbh * (10 + 24 / t + att);
	}
}

/* The per-layer activation count under the scenario's model code, one
 * micro-batch: Korthikanti's formula for the fused layers, podsim's figure
 * beside it; the eager or compiled count otherwise (work_saved_bytes_at). */
static void per_layer_kind(FILE *o, const plan_scenario *s, int stage);

/* The per-layer count, and under recompute_layers the split: recomputed
 * layers keep their input, the others what they save. */
static void per_layer(FILE *o, const plan_scenario *s, int stage)
{
	per_layer_kind(o, s, stage);
	if (!plan_recompute_partial(&s->plan))
		return;
	work_shard sh = plan_shard(s);
	work_saved sv = plan_saved(s);
	double in = 0, all = 0;
	int r = 0, n = 0;
	for (int c = 0; c < s->plan.vpp; c++) {
		int l0, nl = plan_chunk_layers(s, stage, c, &l0);
		for (int l = 0; l < nl; l++, n++) {
			int g = plan_global_layer(s, stage, l0 + l);
			if (plan_layer_recomputed(&s->plan, nl, l))
				r++, in += work_saved_bytes_at(&s->model, &sh, g, WORK_RECOMPUTE_FULL,
				                                &sv);
			else
				all += work_saved_bytes_at(&s->model, &sh, g, WORK_RECOMPUTE_NONE, &sv);
		}
	}
	char a[32], b[32], c[32];
	fprintf(o,
	        "  recompute    %d of %d layers recomputed (recompute_layers = %d per chunk, %s): "
	        "their inputs %s,\n               the other %d whole: %s; %s per micro-batch\n",
	        r, n, s->plan.recompute_layers,
	        s->plan.recompute_method == PLAN_RC_SPREAD ? "spread" : "block",
	        gib(in, a, sizeof a), n - r, gib(all, b, sizeof b), gib(in + all, c, sizeof c));
}

static void per_layer_kind(FILE *o, const plan_scenario *s, int stage)
{
	char f[200], a[32];
	work_shard sh = plan_shard(s);
	work_saved sv = plan_saved(s);
	int n = plan_stage_layers(s, stage);
	/* (under recompute_layers a layer's whole count; per_layer splits) */
	work_recompute rc = plan_recompute_partial(&s->plan) ? WORK_RECOMPUTE_NONE
	                                                     : s->plan.recompute;
	double sum = 0;
	for (int l = 0; l < n; l++)
		sum += work_saved_bytes_at(&s->model, &sh, plan_global_layer(s, stage, l), rc, &sv);
	double per = n > 0 ? sum / n : 0;
	if (sv.kind == WORK_SAVED_FUSED) {
		double text = korthikanti(s, rc, f, sizeof f);
		fprintf(o, "  per layer    Korthikanti et al. 2022, one micro-batch (s = %.0f per rank):\n"
		           "                 %s = %s\n",
		        (double)sh.seq, f, gib(text, a, sizeof a));
		if (s->flash && rc == WORK_RECOMPUTE_NONE)
			fprintf(o, "               flash attention keeps no s x s scores: drop the "
			           "5as/(ht) term\n");
		if (fabs(per - text) > 1e-3 * text)
			fprintf(o, "               podsim's per-layer figure: %s%s\n", gib(per, a, sizeof a),
			        s->model.act == WORK_ACT_SWIGLU || s->model.kv_heads != s->model.heads ||
			                        s->model.moe_experts > 0
			                ? " (the 34 rebuilt from SwiGLU/GQA/MoE tensor sizes)"
			                : "");
		return;
	}
	if (sv.kind == WORK_SAVED_NANOTRON) {
		fprintf(o,
		        "  per layer    nanotron's Llama code, one micro-batch: %s (the norms' "
		        "inputs, every linear input, Q, the packed K/V copy, the attention "
		        "output and LSE, SwiGLU's three tensors; work/memory.c)\n",
		        gib(per, a, sizeof a));
		return;
	}
	fprintf(o, "  per layer    %s code, one micro-batch: %s (every linear input, both "
	           "SwiGLU branches, the norms' copies; work/memory.c)\n",
	        sv.kind == WORK_SAVED_EAGER ? "eager" : "compiled", gib(per, a, sizeof a));
}

/* The device line of a peak: its device total against the capacity and the
 * verdict; out of memory on its own basis, allocated + runtime over the
 * capacity (plan_mem_verdict: the allocator's cache in the device figure
 * gives way first). */
static void device_line(FILE *o, const char *label, const plan_mem_peak *p)
{
	char a[48], b[48], c[48];
	fprintf(o, "  %-12s %s (+ runtime: what nvidia-smi shows) of %s: ", label,
	        gib(p->device, a, sizeof a), gib(p->capacity, b, sizeof b));
	double need = p->allocated + p->bytes[PLAN_MEM_RUNTIME];
	if (p->verdict == PLAN_VERDICT_OOM)
		fprintf(o, "OUT OF MEMORY, allocated + runtime %s over the capacity by %s\n",
		        gib(need, a, sizeof a), gib(need - p->capacity, c, sizeof c));
	else
		fprintf(o, "%s, %s free\n", plan_verdict_name(p->verdict),
		        gib(p->capacity - p->device, c, sizeof c));
}

/* The plan's verdict where the device line does not say it alone (the run's
 * exec_mem_verdict and basis, as `podsim run` prints them): with nodes of
 * other_gpu the other GPU type's worst stage and the worst of the two;
 * offloaded states past the node's host DRAM or NVMe. */
static void plan_verdict_lines(FILE *o, const plan_scenario *s, const exec_result *r,
                               bool on_other, int k)
{
	const exec_mixed *m = &r->mixed;
	exec_mem_basis on = exec_mem_basis_of(r);
	plan_verdict v = exec_mem_verdict(r);
	char a[48], b[48];
	if (m->nodes > 0 && m->mem_stage >= 0) {
		/* the GPU type section 3 does not walk: its most loaded stage */
		plan_mem_peak q;
		int j = on_other ? exec_mem_worst(r) : m->mem_stage;
		j = j > 0 ? j : 0;
		if (on_other)
			plan_memory_totals(s, j, &q);
		else
			plan_memory_other(s, j, false, &q);
		char label[2 * EXEC_NAME_MAX];
		snprintf(label, sizeof label, "on %s, stage %d: device", on_other ? r->gpu : m->gpu,
		         j);
		device_line(o, label, &q);
		fprintf(o, "  verdict      %s (on %s, stage %d: the worst of the GPU types the plan "
		           "runs on; section 10)\n",
		        v == PLAN_VERDICT_OOM ? "OUT OF MEMORY" : plan_verdict_name(v),
		        on_other ? m->gpu : r->gpu, on_other ? m->mem_stage : k);
	} else if (on == EXEC_MEM_ON_HOST || on == EXEC_MEM_ON_NVME) {
		bool host = on == EXEC_MEM_ON_HOST;
		fprintf(o, "  verdict      OUT OF MEMORY: the offloaded states per node, %s, overflow "
		           "the node's %s, %s\n",
		        gib(host ? r->host_bytes : r->nvme_bytes, a, sizeof a),
		        host ? "host memory" : "NVMe",
		        gib(host ? r->host_capacity_bytes : r->nvme_capacity_bytes, b, sizeof b));
	}
}

/* The cuts (plan_memory_cuts), and at the checkpoint after the step which
 * of the changes cannot move that moment (plan_memory_cuts_idle). */
static void cuts(FILE *o, const plan_scenario *s, const plan_mem_peak *p)
{
	plan_mem_cut cut[5], idle[5];
	int n = plan_memory_cuts(s, cut, 5);
	int ni = p->checkpoint ? plan_memory_cuts_idle(s, idle, 5) : 0;
	char a[48], b[48], text[1200];
	if (n == 0 && !p->checkpoint) {
		why(o, "none of recompute = full, a higher ZeRO stage, a smaller micro-batch or "
		       "optimizer offloading applies to this plan: it needs more GPUs or a "
		       "smaller model");
		return;
	}
	if (n > 0) {
		fprintf(o, "  cut first    (each change alone: what it saves of the most loaded "
		           "stage's demand, allocated x %.3g + runtime, and the device after)\n",
		        1 + s->fw.allocator_overhead);
		for (int i = 0; i < n; i++)
			fprintf(o, "    %-44s -%-10s %s -> %s (%s)\n", cut[i].what,
			        gib(cut[i].saved, a, sizeof a), cut[i].term,
			        gib(cut[i].device, b, sizeof b), plan_verdict_name(cut[i].verdict));
	}
	if (!p->checkpoint)
		return;
	/* the checkpoint's own bytes: the shard copies and the gathered root
	 * beside the static terms (memwalk.c save_moment) */
	size_t len = (size_t)snprintf(
	        text, sizeof text,
	        "the peak is the checkpoint after the step: the state dict's copy of every "
	        "parameter's shard and the gathered root beside the static terms. "
	        "checkpoint_offload (accelerate's FULL_STATE_DICT: offload_to_cpu, rank0_only) "
	        "leaves one unit gathered instead of the copies; a higher ZeRO stage and the "
	        "optimizer on the CPU shrink the static terms beside them; recomputation and the "
	        "micro-batch act only on the step before it, whose reserved the save keeps, and "
	        "the parameters' CPU offload leaves the copies on the GPU.");
	if (ni > 0 && len < sizeof text) {
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        " Of the changes that apply, these cannot change that "
		                        "moment here:");
		for (int i = 0; i < ni && len < sizeof text; i++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s %s",
			                        i ? "," : "", idle[i].what);
		if (len < sizeof text)
			snprintf(text + len, sizeof text - len, ".");
	}
	why(o, text);
}

/* Section 3: the most loaded stage's peak, found by walking its schedule
 * (plan_memory_peak) on the GPU the plan's verdict is decided on (the
 * run's basis: other_gpu's worst stage where it decides): the moment,
 * every term alive then with its formula, the counters against capacity
 * and the verdict; the other GPU type's device line and the plan's verdict
 * where they differ; where it does not fit or is tight, the changes that
 * cut most (plan_memory_cuts), and at the checkpoint after the step what
 * acts on it. */
static void memory(FILE *o, const plan_scenario *s, const exec_result *r)
{
	int k = exec_mem_worst(r);
	k = k > 0 ? k : 0;
	plan_mem_peak p;
	bool on_other = exec_mem_basis_of(r) == EXEC_MEM_ON_OTHER && r->mixed.nodes > 0 &&
	                r->mixed.mem_stage >= 0;
	if (on_other) {
		k = r->mixed.mem_stage;
		plan_memory_other(s, k, true, &p);
	} else {
		plan_memory_peak(s, k, &p);
	}
	char a[48];
	if (on_other)
		fprintf(o, "\n3. Memory per GPU, stage %d on %s ([cluster] other_gpu: the worst "
		           "stage its nodes hold, where the plan's verdict is decided)\n",
		        k, r->mixed.gpu);
	else
		fprintf(o, "\n3. Memory per GPU, stage %d (the most loaded of %d)\n", k,
		        r->nclasses);
	fprintf(o, "  peak at      %s\n", p.moment);
	for (int m = 0; m < PLAN_MEM_COUNT; m++) {
		bool head = true;
		for (int i = 0; i < p.nterms; i++) {
			const plan_mem_term *t = &p.term[i];
			if (t->cat != (plan_mem)m)
				continue;
			fprintf(o, "  %-16s %-22s %10s  %s\n", head ? plan_mem_name((plan_mem)m) : "",
			        t->name, gib(t->bytes, a, sizeof a), t->formula);
			head = false;
		}
	}
	per_layer(o, s, k);
	fprintf(o, "  allocated    %s (PyTorch's max_memory_allocated)\n",
	        gib(p.allocated, a, sizeof a));
	fprintf(o, "  reserved     %s (+ the allocator's cache: max_memory_reserved)\n",
	        gib(p.reserved, a, sizeof a));
	device_line(o, "device", &p);
	plan_verdict_lines(o, s, r, on_other, k);
	if (exec_mem_verdict(r) == PLAN_VERDICT_FITS && p.verdict == PLAN_VERDICT_FITS)
		return;
	exec_mem_basis on = exec_mem_basis_of(r);
	if (p.verdict == PLAN_VERDICT_FITS && (on == EXEC_MEM_ON_HOST || on == EXEC_MEM_ON_NVME)) {
		why(o, "the GPU fits: the offloaded states of a node's ranks overflow its tier, which "
		       "the GPU's cuts (recomputation, the micro-batch, a higher ZeRO stage) do not "
		       "move; more nodes for the same states, or the other offload tier, do");
		return;
	}
	cuts(o, s, &p);
}

/* ---------------------------------------------------------------- bubble -- */

static double busy(const exec_class *c)
{
	return c->time_s[EXEC_CAT_COMPUTE] + c->time_s[EXEC_CAT_OPTIMIZER];
}

static void bubble_why(FILE *o, const plan_scenario *s, const exec_result *r)
{
	int lo = 0, hi = 0;
	for (int k = 1; k < r->nclasses; k++) {
		lo = busy(&r->classes[k]) < busy(&r->classes[lo]) ? k : lo;
		hi = busy(&r->classes[k]) > busy(&r->classes[hi]) ? k : hi;
	}
	char a[32], b[32], t[512];
	snprintf(
	        t, sizeof t,
	        "%s; here busy time per stage runs from %s (%s) to %s (%s): the faster stages "
	        "wait for the slowest, and that wait is bubble, while transfers in flight count "
	        "as exposed pp instead.",
	        s->plan.schedule == PLAN_SCHED_ZB_H1
	                ? "ZB-H1 runs weight-gradient passes inside 1F1B's bubble, so the textbook "
	                  "1F1B figure is an upper bound"
	                : "the textbook assumes p equal stages and free transfers",
	        unit(busy(&r->classes[lo]), SIM_UNIT_TIME, a, sizeof a), r->classes[lo].name,
	        unit(busy(&r->classes[hi]), SIM_UNIT_TIME, b, sizeof b), r->classes[hi].name);
	why(o, t);
}

static void bubble(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p);
	fprintf(o, "\n4. Pipeline bubble\n");
	fprintf(o,
	        "  m            global_batch / (micro_batch x dp) = %d / (%d x %d) = %d "
	        "micro-batches\n",
	        p->global_batch, p->micro_batch, p->dp, m);
	double tb = (double)(p->pp - 1) / (m + p->pp - 1);
	fprintf(o, "  textbook     (p - 1)/(m + p - 1) = (%d - 1)/(%d + %d - 1) = %.1f%%", p->pp, m,
	        p->pp, 100.0 * tb);
	if (p->vpp > 1) {
		tb /= p->vpp;
		fprintf(o, ", / v = %d (interleaved): %.1f%%", p->vpp, 100.0 * tb);
	}
	fprintf(o, "\n  simulated    %.1f%% of the step (worst stage); per stage:",
	        100.0 * r->bubble_fraction);
	for (int k = 0; k < r->nclasses; k++) {
		if (k == EXPLAIN_MAX_STAGES && r->nclasses > EXPLAIN_MAX_STAGES + 1) {
			fprintf(o, " ... %d more", r->nclasses - EXPLAIN_MAX_STAGES);
			break;
		}
		fprintf(o, " %.1f%%",
		        r->step_s > 0 ? 100.0 * r->classes[k].time_s[EXEC_CAT_BUBBLE] / r->step_s
		                      : 0);
	}
	fputc('\n', o);
	if (p->pp == 1)
		why(o,
		    "no pipeline (p = 1): neither has a bubble; the compute stream's idle time is "
		    "exposed communication.");
	else
		bubble_why(o, s, r);
}

/* -------------------------------------------------------------- DP ring -- */

/* ZeRO-1/2 buckets are reduce-scattered unless the framework all-reduces
 * them (zero_grad_op); ZeRO-0 all-reduces. */
static bool grad_rs(const plan_scenario *s)
{
	return s->plan.zero >= 1 && s->fw.zero_grad_op == PLAN_GRAD_OP_REDUCE_SCATTER;
}

/* A stage's gradient buckets as plan_build reduces them (plan_grad_buckets,
 * plan/grads.c): a malloc'ed list of *n, NULL when none or out of memory. */
static plan_grad_bucket *stage_buckets(const plan_scenario *s, int stage, int *n)
{
	int cap = plan_stage_layers(s, stage) + 1;
	plan_grad_bucket *k = malloc((size_t)cap * sizeof *k);
	*n = k ? plan_grad_buckets(s, stage, k, cap) : 0;
	if (*n <= 0) {
		free(k);
		*n = 0;
		return NULL;
	}
	return k;
}

/* One bucket's DP work as plan_build times it with the alpha-beta model
 * (build_add_dp_on through grads.c's flush_bucket): the dense bytes on the
 * wire reduced in the shard group, then all-reduced over its replicas; the
 * expert bytes over the expert-DP group. */
static double bucket_time(const plan_scenario *s, const plan_groups *g, const plan_grad_bucket *k,
                          double wire)
{
	net_coll coll = grad_rs(s) ? NET_REDUCESCATTER : NET_ALLREDUCE;
	net_cost c;
	double t = 0, dense = k->dense_bytes * wire, experts = k->expert_bytes * wire;
	if (g->dp.size > 1 && dense > 0) {
		if (net_collective(&s->cluster, coll, &g->shard, dense, &c) == SIM_OK)
			t += c.time_s;
		if (g->replica.size > 1 &&
		    net_collective(&s->cluster, NET_ALLREDUCE, &g->replica, dense / g->shard.size,
		                   &c) == SIM_OK)
			t += c.time_s;
	}
	if (g->edp.size > 1 && experts > 0 &&
	    net_collective(&s->cluster, coll, &g->edp, experts, &c) == SIM_OK)
		t += c.time_s;
	return t;
}

/* When bucket k starts, in words. */
static const char *bucket_launch(const plan_grad_bucket *k, int nbwd, char *buf, size_t len)
{
	const char *end = k->at_end ? " (at the end)" : "";
	if (k->launch == PLAN_LAUNCH_LAYER)
		snprintf(buf, len, "when layer %d's last backward ends%s", k->layer, end);
	else if (k->launch == PLAN_LAUNCH_CHUNK)
		snprintf(buf, len, "aligned, after backward step %d of %d%s", k->step + 1, nbwd,
		         end);
	else
		snprintf(buf, len, "after the stage's whole backward");
	return buf;
}

/* The buckets of stage 0, one line each (the first EXPLAIN_MAX_BUCKETS and
 * the last), and per later stage how many and how many wait for the
 * whole backward. Returns stage 0's DP work. */
static double bucket_lines(FILE *o, const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	plan_groups g;
	plan_make_groups(s, &g);
	/* wire bytes per gradient byte (grad_compression), as grads.c */
	double gbytes = (p->fp32_grads || s->dtype == HW_FP32) ? 4.0 : 2.0;
	double wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	int n, nbwd = plan_microbatches(p) * p->vpp, end = 0;
	plan_grad_bucket *k = stage_buckets(s, 0, &n);
	double total = 0;
	char a[32], b[32], c[64], d[32];
	for (int i = 0; i < n; i++)
		end += k[i].at_end;
	fprintf(o, "  buckets      %d %s%s (plan_grad_buckets, the graph's), %d at the end of "
	           "the backward%s\n",
	        n, grad_rs(s) ? "reduce-scatter" : "all-reduce", n == 1 ? "" : "s", end,
	        grad_rs(s) ? " (ZeRO: half the ring's traffic)" : "");
	for (int i = 0; i < n; i++) {
		double t = bucket_time(s, &g, &k[i], wire);
		total += t;
		if (i == EXPLAIN_MAX_BUCKETS && i < n - 1)
			fprintf(o, "               ... %d more\n", n - 1 - EXPLAIN_MAX_BUCKETS);
		if (i >= EXPLAIN_MAX_BUCKETS && i < n - 1)
			continue;
		if (k[i].layer < 0)
			snprintf(b, sizeof b, "none");
		else if (k[i].layer == k[i].last)
			snprintf(b, sizeof b, "%d", k[i].layer);
		else
			snprintf(b, sizeof b, "%d-%d", k[i].layer, k[i].last);
		fprintf(o, "               %2d  layers %-6s chunk %d  %-11s %s: %s\n", i + 1, b,
		        k[i].chunk,
		        unit((k[i].dense_bytes + k[i].expert_bytes) * wire, SIM_UNIT_BYTES, a, sizeof a),
		        bucket_launch(&k[i], nbwd, c, sizeof c), unit(t, SIM_UNIT_TIME, d, sizeof d));
	}
	free(k);
	fprintf(o, "               in all: %s\n", unit(total, SIM_UNIT_TIME, a, sizeof a));
	/* later stages: runs of equal (buckets, at the end) */
	for (int st = 1, lo = 1, pn = -1, pe = -1; st <= p->pp; st++) {
		int m = -1, e = -1;
		if (st < p->pp) {
			plan_grad_bucket *q = stage_buckets(s, st, &m);
			e = 0;
			for (int i = 0; i < m; i++)
				e += q[i].at_end;
			free(q);
		}
		if (st > 1 && (m != pn || e != pe)) {
			if (lo == st - 1)
				snprintf(b, sizeof b, "stage %d", lo);
			else
				snprintf(b, sizeof b, "stages %d-%d", lo, st - 1);
			fprintf(o, "               %s: %d bucket%s, %d at the end of the backward\n", b,
			        pn, pn == 1 ? "" : "s", pe);
			lo = st;
		}
		pn = m, pe = e;
	}
	return total;
}

/* The tied word embedding's gradient all-reduce between stage 0 and the last
 * stage (plan/grads.c's build_emit_embedding_sync), 0 when untied or p = 1. */
static double tied_sync(const plan_scenario *s, double gbytes)
{
	const plan_spec *p = &s->plan;
	if (p->pp == 1 || s->model.untied_embeddings)
		return 0;
	net_group pair;
	net_cost c;
	net_group_make(&s->cluster, 2, (p->pp - 1) * p->tp * p->dp * (p->cp > 1 ? p->cp : 1),
	               &pair);
	double bytes = (double)s->model.vocab * s->model.hidden / p->tp * gbytes;
	return net_collective(&s->cluster, NET_ALLREDUCE, &pair, bytes, &c) == SIM_OK ? c.time_s
	                                                                              : 0;
}

/* ZeRO-3's all-gathers per layer and pass (plan_zero3_pieces: a
 * persistent module has none) and where their split comes from. */
static int zero3_gathers(const plan_scenario *s)
{
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES];
	int n = plan_zero3_pieces(s, ga, gr), k = 0;
	for (int i = 0; i < n; i++)
		k += ga[i] > 0;
	return k;
}

static const char *zero3_split_words(const plan_scenario *s)
{
	switch (s->fw.zero3_modules) {
	case PLAN_ZERO3_HF:
		return "one per linear module of the model's Hugging Face code, at its size";
	case PLAN_ZERO3_MEGATRON:
		return "one per linear module of Megatron's layer, at its size";
	default:
		return "of equal size";
	}
}

static void dp_why(FILE *o, const plan_scenario *s, double ring, double buckets_s, double exposed)
{
	const plan_spec *p = &s->plan;
	char t[768], a[32];
	double mx, last, host;
	int nb = p->zero >= 3 ? plan_zero3_buckets(s, 0, &mx, &last, &host) : 0;
	if (p->zero >= 3 && nb > 0) {
		char b1[32], b2[32], b3[32], z[1024];
		snprintf(z, sizeof z,
		         "ZeRO-3 gathers each layer's weights before its forward and backward "
		         "(%d gathers per layer and pass, %s); its gradients go into buckets of %s "
		         "(framework zero3_reduce = bucket, DeepSpeed's IPG buckets), each "
		         "reduce-scattered when the next tensor would overflow it: %d per "
		         "micro-batch, the largest %s, the last (%s, with the embedding and "
		         "output layer) after the backward, exposed. The host slices each "
		         "bucket's tensors once per rank (zero3_rank_op): %s per micro-batch, "
		         "hidden only behind the GPU work it has queued ahead.",
		         zero3_gathers(s), zero3_split_words(s),
		         unit(plan_bucket_bytes(s), SIM_UNIT_BYTES, b1, sizeof b1), nb,
		         unit(mx, SIM_UNIT_BYTES, b2, sizeof b2),
		         unit(last, SIM_UNIT_BYTES, b3, sizeof b3),
		         unit(host, SIM_UNIT_TIME, a, sizeof a));
		why(o, z);
		return;
	}
	if (p->zero >= 3) {
		why(o, "ZeRO-3 gathers each layer's weights before its forward and backward and "
		       "reduce-scatters its gradients after its backward (with hybrid sharding, "
		       "then all-reduces the shard over its replicas), overlapped with compute: "
		       "only the waits are exposed, and the optimizer step, which waits for the "
		       "last layer's reduction; there is no single all-reduce to compare.");
		return;
	}
	/* how stage 0's first bucket starts (all alike but a chunk's launch
	 * point, which leaves no bucket of stage 0 at the end) */
	int n;
	plan_grad_bucket *k = stage_buckets(s, 0, &n);
	plan_bucket_launch launch = n > 0 ? k[0].launch : PLAN_LAUNCH_END;
	free(k);
	snprintf(t, sizeof t,
	         "the textbook time is one ring over the whole gradient; podsim sends buckets "
	         "(each pays the latency and the fixed overhead)%s, %s: %s of DP work in all. Only "
	         "what is "
	         "left after the stage's last compute task, or what stalls a later one, is "
	         "exposed: %.0f%% of that work, %.0f%% of the one-ring time.",
	         p->zero >= 1 ? (grad_rs(s) ? " as reduce-scatters, then the optimizer's all-gather"
	                                    : " as all-reduces (each rank keeps its slice), then "
	                                      "the optimizer's all-gather")
	                      : "",
	         launch == PLAN_LAUNCH_CHUNK
	                 ? "each chunk's together at Megatron-Core's aligned launch point "
	                   "(pipeline rank backward steps after the chunk's last micro-batch), so "
	                   "they overlap the later chunks' backward"
	         : launch == PLAN_LAUNCH_LAYER
	                 ? "each issued when its layers' last backward ends, so they "
	                   "overlap the rest of the backward"
	                 : p->zero >= 1 && s->fw.zero_one_bucket
	                           ? "one collective issued after the stage's whole backward "
	                             "(the framework's zero_one_bucket)"
	                           : "issued after the stage's whole backward (overlap_grad_reduce "
	                             "= false)",
	         unit(buckets_s, SIM_UNIT_TIME, a, sizeof a),
	         buckets_s > 0 ? 100.0 * exposed / buckets_s : 0,
	         ring > 0 ? 100.0 * exposed / ring : 0);
	why(o, t);
}

static void dp_ring(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int cp = p->cp > 1 ? p->cp : 1, n = p->dp * cp;
	fprintf(o, "\n5. Data-parallel gradient all-reduce (stage 0)\n");
	if (s->inference) {
		fprintf(o,
			"  none         inference: no gradients, so no reduction; the dp = %d "
			"replicas\n"
			"               run their sequences independently; simulated exposed DP on "
			"stage 0: %.4g s\n",
			p->dp, r->classes[0].time_s[EXEC_CAT_DP]);
		return;
	}
	if (n == 1) {
		fprintf(o,
		        "  none         dp x cp = 1: no gradient reduction; simulated exposed DP "
		        "on "
		        "stage 0: %.4g s\n",
		        r->classes[0].time_s[EXEC_CAT_DP]);
		return;
	}
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	/* bytes per value on the wire: the gradients' width, or compressed
	 * (train.grad_compression: fp8 1 B, 1-bit Adam 1/8 B) */
	double gb = plan_grad_wire_bytes(s, fp32 || p->fp32_grads ? 4 : 2);
	/* only trained parameters are reduced: LoRA's adapters, the layers
	 * above frozen_layers (the stage budget's train) */
	bool part = s->train.lora_rank > 0 || s->train.frozen_layers > 0;
	plan_budget bg;
	plan_stage_budget(s, 0, &bg);
	double S = (part ? bg.train : rank_params(s, 0)) * gb;
	net_group grp;
	net_group_make(&s->cluster, n, p->tp, &grp);
	net_cost c;
	char a[32], b[32], d[32], e[32];
	net_cluster ring_only = s->cluster; /* the ring, whatever the tuner would pick */
	ring_only.algo = NET_ALGO_RING;
	if (net_collective(&ring_only, NET_ALLREDUCE, &grp, S, &c) != SIM_OK)
		return;
	double bw = c.busbw_Bps * net_proto_bw(c.proto);
	double ring = c.latency_s + 2.0 * (n - 1) / n * S / bw;
	fprintf(o,
	        "  S            P_rank%s x %.4g B = %s over n = dp x cp = %d ranks (stride t = %d: "
	        "%d per "
	        "node, %d node%s)\n",
	        part ? " (trained)" : "", gb, gib(S, a, sizeof a), n, p->tp, grp.per_node, grp.nodes,
	        grp.nodes == 1 ? "" : "s");
	if (conf_get(s->doc, "parallel", "fp32_grads", NULL))
		fprintf(o, "  dtype        %s gradients ([parallel] fp32_grads = %s, the scenario's)\n",
		        fp32 || p->fp32_grads ? "fp32" : "16-bit", p->fp32_grads ? "true" : "false");
	else
		fprintf(o,
		        "  dtype        %s gradients (%s: grad_dtype = %s, the framework's rule)\n",
		        fp32 || p->fp32_grads ? "fp32" : "16-bit", hw_dtype_name(s->dtype),
		        plan_grad_dtype_name(s->fw.grad_dtype));
	fprintf(o, "  ring         lat + 2(n-1)/n x S / busbw = %s + 2 x %d/%d x %s / %s = %s\n",
	        unit(c.latency_s, SIM_UNIT_TIME, a, sizeof a), n - 1, n, gib(S, b, sizeof b),
	        unit(bw, SIM_UNIT_BANDWIDTH, d, sizeof d), unit(ring, SIM_UNIT_TIME, e, sizeof e));
	double local = net_ring_local_time(&ring_only, NET_ALLREDUCE, &grp, S);
	if (local > 0)
		fprintf(o,
		        "               busbw includes the ring's local step, S / (n x ring_local_bw) "
		        "= %s\n"
		        "               (one send per loop is a copy inside the GPU; net/coll.c)\n",
		        unit(local, SIM_UNIT_TIME, a, sizeof a));
	fprintf(o,
	        "               busbw: the group's %s bandwidth x %.2f (NCCL protocol);\n"
	        "               with the fixed overhead per collective: %s\n",
	        grp.nodes > 1 ? "NIC share of" : "scale-up", net_proto_bw(c.proto),
	        unit(c.time_s, SIM_UNIT_TIME, a, sizeof a));
	double bt = p->zero >= 3 ? 0 : bucket_lines(o, s);
	double tied = p->zero >= 3 ? 0 : tied_sync(s, gb);
	if (tied > 0) {
		fprintf(o,
		        "  tied emb.    + V h / t x %.0f B all-reduced between the first and last "
		        "stage "
		        "(after both backwards): %s\n",
		        gb, unit(tied, SIM_UNIT_TIME, a, sizeof a));
		bt += tied;
	}
	double exposed = r->classes[0].time_s[EXEC_CAT_DP];
	fprintf(o, "  simulated    exposed DP on stage 0: %s (%.1f%% of the step)\n",
	        unit(exposed, SIM_UNIT_TIME, a, sizeof a),
	        r->step_s > 0 ? 100.0 * exposed / r->step_s : 0);
	dp_why(o, s, ring, bt, exposed);
}

/* ------------------------------------------------------------ error band -- */

static void band(FILE *o, const plan_scenario *s, const exec_result *r, const valid_refs *refs)
{
	static const char *const level_name[] = {
		"", "generation, framework and scale", "generation and framework",
		"generation and scale", "generation", "every source"};
	char a[48], text[128];
	fprintf(o, "\n6. Error band: how far a measured step is likely to be from this one\n");
	fprintf(o, "  nearest      GPU generation %s (%s), framework %s, %d GPUs (bucket %s)\n",
	        valid_gpu_generation(s->gpu.name), s->gpu.name, s->fw.name, s->cluster.gpus,
	        valid_scale_bucket(s->cluster.gpus));
	valid_band b;
	if (s->inference) {
		fprintf(o, "  band         none: the validation cases are training steps\n");
	} else if (!valid_refs_band(refs, s->gpu.name, s->fw.name, s->cluster.gpus, &b)) {
		fprintf(o, "  band         none: no band table in the data folder (%s)\n",
		        VALID_BANDS_FILE);
	} else {
		valid_band_describe(&b, text, sizeof text);
		fprintf(o, "  cell         %s (level %d of 5: same %s), n_eff %.2f\n", text,
		        b.level, level_name[b.level], b.n_eff);
		fprintf(o, "  sources      %s\n", b.names);
		fprintf(o, "  residuals    measured / predicted, each source weighing once: q10 %.4f, "
		           "median %.4f, q90 %.4f (min %.4f, max %.4f)\n",
		        b.q10, b.median, b.q90, b.min, b.max);
		if (b.widened)
			fprintf(o, "  widened      n_eff %.2f < 9 rows: [q10, q90] widened to hold every "
			           "residual and the t prediction interval: [%.4f, %.4f]\n",
			        b.n_eff, b.lo, b.hi);
		else
			fprintf(o, "  band         [q10, q90] = [%.4f, %.4f]\n", b.lo, b.hi);
		char lo[48], hi[48];
		fprintf(o, "  step         %s x [%.4f, %.4f] = %s to %s\n",
		        unit(r->step_s, SIM_UNIT_TIME, a, sizeof a), b.lo, b.hi,
		        unit(r->step_s * b.lo, SIM_UNIT_TIME, lo, sizeof lo),
		        unit(r->step_s * b.hi, SIM_UNIT_TIME, hi, sizeof hi));
		double wl, wh;
		valid_spread_widening(r, &wl, &wh);
		if (r->spread.samples > 0)
			fprintf(o, "  spread       x [%.4f, %.4f], the step's p10 and p90 over the step "
			           "(section 7; never narrower): %s to %s\n",
			        wl, wh, unit(r->band_lo_s, SIM_UNIT_TIME, lo, sizeof lo),
			        unit(r->band_hi_s, SIM_UNIT_TIME, hi, sizeof hi));
	}
	double best;
	char why[192];
	if (s->inference)
		fprintf(o, "  MFU ceiling  not judged: the published figures are of training steps\n");
	else if (valid_refs_mfu(refs, s->gpu.name, s->dtype, &best, why, sizeof why))
		fprintf(o, "  MFU ceiling  best published %s\n  verdict      MFU %.1f%% %s\n", why,
		        100 * r->mfu, r->mfu > best ? "is above it: implausible" : "is within it");
	else
		fprintf(o, "  MFU ceiling  none for %s in %s (%s)\n", valid_gpu_generation(s->gpu.name),
		        hw_dtype_name(s->dtype), VALID_MFU_FILE);
}

/* ------------------------------------------ per-micro-batch fixed cost -- */

/* The stage whose compute stream is busiest (the one the pipeline runs at). */
static int busiest_stage(const exec_result *r)
{
	int k = 0;
	for (int i = 1; i < r->nclasses; i++)
		if (busy(&r->classes[i]) > busy(&r->classes[k]))
			k = i;
	return k;
}

static void fixed_why(FILE *o, const plan_mb_cost *c, double share)
{
	struct {
		const char *what;
		double v;
	} t[] = {{"the collectives' latency", c->coll_latency_s},
	         {"host dispatch the GPU waits for", c->host_exposed_s},
	         {"gradient accumulation", c->accum_s},
	         {"the pipeline transfers' handshakes", c->p2p_fixed_s}};
	int k = 0;
	for (int i = 1; i < 4; i++)
		k = t[i].v > t[k].v ? i : k;
	char text[512];
	snprintf(text, sizeof text,
	         "these terms do not shrink with the micro-batch's tokens: a plan of many "
	         "micro-batches pays them m times, here %.1f%% of the step, most of it %s. "
	         "Fewer, larger micro-batches, or fewer and cheaper collectives per layer "
	         "(a smaller tp, inside a node), shrink it.",
	         100 * share, c->fixed_s > 0 ? t[k].what : "nothing");
	why(o, text);
}

/* The stage's MoE all-to-alls (every task on its EP stream, as built) and
 * how much of them the step hid: exposed is the EP category of the stage's
 * breakdown (the compute stream waiting for them, and the interference
 * charged to them); under moe_a2a_overlap also the same plan's step with the
 * overlap off (a shallow copy of the scenario with the two keys cleared). */
static void a2a_overlap(FILE *o, const plan_scenario *s, const exec_result *r, int st)
{
	const plan_spec *p = &s->plan;
	plan_graph *g = NULL;
	if (p->ep <= 1 || s->model.moe_experts == 0 || plan_build(s, &g) != SIM_OK)
		return;
	double ep = 0, cd = 0, ch = 0; /* EP stream; compute alone and beside DeepEP */
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->rank == st && t->stream == PLAN_STREAM_EP)
			ep += sim_time_to_s(t->dur);
		if (t->rank == st && t->stream == PLAN_STREAM_COMPUTE && g->deep_rate &&
		    g->deep_rate[i] > 0)
			cd += sim_time_to_s(t->dur), ch += sim_time_to_s(t->dur) / g->deep_rate[i];
	}
	plan_graph_free(g);
	double exposed = r->classes[st].time_s[EXEC_CAT_EP], hid = fmax(0, ep - exposed);
	char a[32], b[32], c[32];
	fprintf(o,
	        "  all-to-all   ep = %d: %s a step on this stage's EP stream; exposed %s (the\n"
	        "               compute stream waiting, and the interference charged to them):\n"
	        "               hidden %s (%.0f%%)\n",
	        p->ep, unit(ep, SIM_UNIT_TIME, a, sizeof a), unit(exposed, SIM_UNIT_TIME, b, sizeof b),
	        unit(hid, SIM_UNIT_TIME, c, sizeof c), ep > 0 ? 100 * hid / ep : 0.0);
	if (!p->moe_a2a_overlap) {
		fprintf(o, "               moe_a2a_overlap off: each blocks its micro-batch's next "
		           "compute\n");
		return;
	}
	if (plan_ep_deepep(s))
		fprintf(o,
		        "               DeepEP's dispatch and combine hold %d of the %d SMs while they run\n"
		        "               (moe_deepep_num_sms): the other micro-batch's compute beside them\n"
		        "               runs at %.3f of its rate on this stage (its GEMMs' tile waves on the\n"
		        "               %d SMs left, other kernels at %d/%d; beside NCCL's collectives 1 - %.3g)\n",
		        p->deepep_sms, s->gpu.sm_count, ch > 0 ? cd / ch : 1 - plan_ep_share(s),
		        s->gpu.sm_count - p->deepep_sms, s->gpu.sm_count - p->deepep_sms, s->gpu.sm_count,
		        s->gpu.interference);
	plan_scenario *t = malloc(sizeof *t);
	exec_result *r0 = malloc(sizeof *r0);
	if (t && r0) {
		*t = *s;
		t->plan.moe_a2a_overlap = t->plan.delay_wgrad = false;
		if (exec_run(t, r0) == SIM_OK)
			fprintf(o,
			        "               moe_a2a_overlap%s (combined 1F1B):\n"
			        "               the step is %s, %s without it\n",
			        p->delay_wgrad ? " + delay_wgrad_compute" : "",
			        unit(r->step_s, SIM_UNIT_TIME, a, sizeof a),
			        unit(r0->step_s, SIM_UNIT_TIME, b, sizeof b));
	}
	free(t);
	free(r0);
}

static void fixed_cost(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int st = busiest_stage(r), m = plan_microbatches(p);
	plan_mb_cost c;
	fprintf(o, "\n7. What a micro-batch costs beyond its tokens (stage %d, the busiest)\n", st);
	if (s->inference) {
		fprintf(o, "  none         inference: forward passes only\n");
		return;
	}
	if (plan_microbatch_cost(s, st, &c) != SIM_OK)
		return;
	char a[32], b[32], d[32], e[32], f[32], h[32];
	double op = s->gpu.launch_s + s->gpu.framework_s;
	int host_ops = c.kernels + (s->fw.comm_host_op ? c.collectives : 0);
	fprintf(o,
	        "  issued       %d kernel launches (layer code %s) and %d collectives per\n"
	        "               micro-batch of %d x %d tokens\n",
	        c.kernels, work_layer_code_name(s->fw.layer_kernels),
	        c.collectives, p->micro_batch, s->model.seq_len / (p->cp > 1 ? p->cp : 1));
	fprintf(o,
	        "  host         %d operations%s x (launch %s + op_overhead %s)\n"
	        "               = %s to issue; the GPU runs the kernels in %s; each run of\n"
	        "               kernels between two collectives takes max(GPU, host): %s,\n"
	        "               so the host adds %s\n",
	        host_ops, s->fw.comm_host_op ? " (kernels and collectives)" : "",
	        unit(s->gpu.launch_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(s->gpu.framework_s, SIM_UNIT_TIME, b, sizeof b),
	        unit(host_ops * op, SIM_UNIT_TIME, d, sizeof d),
	        unit(c.gpu_s, SIM_UNIT_TIME, e, sizeof e),
	        unit(c.compute_s, SIM_UNIT_TIME, f, sizeof f),
	        unit(c.host_exposed_s, SIM_UNIT_TIME, h, sizeof h));
	plan_groups g;
	plan_make_groups(s, &g);
	fprintf(o,
	        "  collectives  %d (tp = %d: %d per node, %d node%s%s), latency (each one's time\n"
	        "               at 1 B) %s of their %s (alpha-beta)\n",
	        c.collectives, p->tp, g.tp.per_node, g.tp.nodes, g.tp.nodes == 1 ? "" : "s",
	        p->ep > 1 ? "; and ep's all-to-alls" : "",
	        unit(c.coll_latency_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(c.coll_s, SIM_UNIT_TIME, b, sizeof b));
	if (c.beside > 0)
		fprintf(o,
		        "               %d of them (%s) run beside a GEMM and block only what it\n"
		        "               cannot hide (tp_dgrad_async = %s: the input gradient's beside "
		        "the wgrad;\n"
		        "               tp_comm_overlap %s)\n",
		        c.beside, unit(c.beside_s, SIM_UNIT_TIME, a, sizeof a),
		        plan_dgrad_async_name(s->fw.dgrad_async),
		        p->tp_comm_overlap ? "on" : "off");
	a2a_overlap(o, s, r, st);
	work_item acc;
	if (plan_grad_accum_item(s, st, -1, &acc))
		fprintf(o,
		        "  accumulate   grad_accum = kernel: %s moved to add the gradients into "
		        "%s accumulators,\n"
		        "               %d launches: %s\n",
		        gib(acc.bytes, a, sizeof a), p->fp32_grads ? "fp32" : "16-bit", acc.launches,
		        unit(c.accum_s, SIM_UNIT_TIME, b, sizeof b));
	else
		fprintf(o, "  accumulate   fused into the weight-gradient GEMMs: 0\n");
	if (p->pp > 1)
		fprintf(o,
		        "  pipeline     per tensor %d handshake%s and %d host operations, %d "
		        "forward tensor%s:\n"
		        "               %s (one forward and one backward transfer)\n",
		        s->fw.p2p_handshakes, s->fw.p2p_handshakes == 1 ? "" : "s",
		        s->fw.p2p_host_ops, s->fw.p2p_fwd_tensors,
		        s->fw.p2p_fwd_tensors == 1 ? "" : "s",
		        unit(c.p2p_fixed_s, SIM_UNIT_TIME, a, sizeof a));
	else
		fprintf(o, "  pipeline     none (pp = 1)\n");
	double all = m * c.fixed_s, share = r->step_s > 0 ? all / r->step_s : 0;
	char g2[32];
	fprintf(o,
	        "  fixed        latency + host + accumulate + pipeline\n"
	        "               = %s + %s + %s + %s = %s per micro-batch;\n"
	        "               x m = %d: %s of the %s step (%.1f%%)\n",
	        unit(c.coll_latency_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(c.host_exposed_s, SIM_UNIT_TIME, b, sizeof b),
	        unit(c.accum_s, SIM_UNIT_TIME, d, sizeof d),
	        unit(c.p2p_fixed_s, SIM_UNIT_TIME, e, sizeof e),
	        unit(c.fixed_s, SIM_UNIT_TIME, f, sizeof f), m,
	        unit(all, SIM_UNIT_TIME, h, sizeof h), unit(r->step_s, SIM_UNIT_TIME, g2, sizeof g2),
	        100 * share);
	fixed_why(o, &c, share);
}

/* ----------------------------------------------------------- step spread -- */

/* The varying collectives of one group kind on one node count. */
typedef struct vgroup {
	uint8_t kind;
	int nodes;
	size_t tasks;
	double dur_s, net_s;
} vgroup;

#define EXPLAIN_MAX_VGROUPS 32

static const char *task_group(uint8_t kind)
{
	switch (kind) {
	case PLAN_TASK_TP:
		return "tp";
	case PLAN_TASK_DP:
		return "dp";
	case PLAN_TASK_PP:
		return "pp";
	case PLAN_TASK_CP:
		return "cp";
	case PLAN_TASK_EP:
		return "ep";
	default:
		return "other";
	}
}

/* The tasks of g that vary, per group kind and node count. */
static size_t vgroups(const plan_graph *g, vgroup *v)
{
	size_t n = 0;
	for (size_t i = 0; g->net_frac && i < g->ntasks; i++) {
		if (!(g->net_frac[i] > 0))
			continue;
		const plan_task *t = &g->tasks[i];
		size_t k = 0;
		while (k < n && !(v[k].kind == t->kind && v[k].nodes == g->net_nodes[i]))
			k++;
		if (k == n && n == EXPLAIN_MAX_VGROUPS)
			continue;
		if (k == n)
			v[n++] = (vgroup){t->kind, g->net_nodes[i], 0, 0, 0};
		double d = sim_time_to_s(t->dur);
		v[k].tasks++;
		v[k].dur_s += d;
		v[k].net_s += d * g->net_frac[i];
	}
	return n;
}

static void spread_quantiles(FILE *o, const char *label, const exec_step_spread *q, double step)
{
	char a[48], b[48], c[48];
	fprintf(o, "  %-12s p5 %s, median %s, p95 %s (%+.1f%% over the step)\n", label,
	        unit(q->p05_s, SIM_UNIT_TIME, a, sizeof a), unit(q->p50_s, SIM_UNIT_TIME, b, sizeof b),
	        unit(q->p95_s, SIM_UNIT_TIME, c, sizeof c), step > 0 ? 100 * (q->p95_s / step - 1) : 0);
}

/* 8. The optimizer step of stage 0 on the GPU (plan_optimizer_cost,
 * plan/optim.c): bytes per trained parameter, the kernels and the fraction
 * of the copy rate they stream at, the time, and the simulated optimizer
 * time of the stage. */
static void optimizer_section(FILE *o, const plan_scenario *s, const exec_result *r)
{
	fprintf(o, "\n8. Optimizer step (stage 0)\n");
	if (s->inference) {
		fprintf(o, "  none         inference: no gradients, no step\n");
		return;
	}
	if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE) {
		fprintf(o, "  offloaded    offload_optimizer: the step runs on the host's CPU "
		           "(CPU Adam), not as GPU kernels\n");
		return;
	}
	plan_budget b;
	plan_stage_budget(s, 0, &b);
	double local = plan_local_params(s, 0), all = b.dense + b.experts;
	double trained = all > 0 ? local * b.train / all : local;
	plan_optim_cost c;
	plan_optimizer_cost(s, &c);
	double copy = s->gpu.hbm_Bps * s->gpu.hbm_eff;
	double t = plan_optimizer_time(s, 0, local);
	char a[48], bb[48], cc[48], n[48];
	fprintf(o, "  trained      %s parameters stepped by one rank of stage 0 (after ZeRO's "
	           "sharding)\n", cnt(trained, n, sizeof n));
	fprintf(o, "  bytes        update %.4g B + gradient norm %.4g B%s + casts %.4g B per "
	           "parameter\n", c.step_bytes, c.norm_bytes,
	        s->train.clip_grad ? "" : " (clip_grad = false)", c.cast_bytes);
	fprintf(o, "  kernels      %s\n", c.impl);
	fprintf(o, "  rate         copy rate hbm_bw x hbm_efficiency = %s x %.3g = %s; the update at "
	           "%.3g of it (%s), the norm at %.3g, the casts at 1\n",
	        unit(s->gpu.hbm_Bps, SIM_UNIT_BANDWIDTH, a, sizeof a), s->gpu.hbm_eff,
	        unit(copy, SIM_UNIT_BANDWIDTH, bb, sizeof bb), c.stream,
	        unit(copy * c.stream, SIM_UNIT_BANDWIDTH, cc, sizeof cc), c.norm_stream);
	why(o, c.why);
	double upd = copy > 0 ? trained * c.step_bytes / (copy * c.stream) : 0;
	double nrm = copy > 0 ? trained * c.norm_bytes / (copy * c.norm_stream) : 0;
	double cst = copy > 0 ? trained * c.cast_bytes / copy : 0;
	fprintf(o, "  time         update %s + norm %s + casts %s + launch and host %s",
	        unit(upd, SIM_UNIT_TIME, a, sizeof a), unit(nrm, SIM_UNIT_TIME, bb, sizeof bb),
	        unit(cst, SIM_UNIT_TIME, cc, sizeof cc),
	        unit(hw_overhead(&s->gpu), SIM_UNIT_TIME, n, sizeof n));
	if (s->dtype == HW_FP8)
		fprintf(o, " + fp8 weight casts");
	double tensors, host = plan_optimizer_host_time(s, 0, &tensors);
	if (host > 0 && s->fw.optimizer_item_sync)
		fprintf(o, ", taking turns with the host (below)");
	else if (host > 0 && host >= t)
		fprintf(o, ", shorter than the host's launches (below)");
	fprintf(o, " = %s\n", unit(t, SIM_UNIT_TIME, a, sizeof a));
	if (host > 0)
		fprintf(o, "  host         %d layers x %.4g tensors x 8 launches x (launch + op_overhead "
		           "%s) = %s%s\n",
		        plan_stage_layers(s, 0), tensors,
		        unit(s->gpu.launch_s + s->gpu.framework_s, SIM_UNIT_TIME, a, sizeof a),
		        unit(host, SIM_UNIT_TIME, bb, sizeof bb),
		        s->fw.flat_params ? " (a tensor: an FSDP unit's flat parameter)" : "");
	if (host > 0 && s->fw.optimizer_item_sync)
		fprintf(o, "  sync         optimizer_item_sync: each tensor's .item() waits for the "
		           "previous tensor's kernels; per tensor max(9 h, h + g + 7 max(h, g)) "
		           "with h the launch and op_overhead, g a pass's GPU time, plus one step "
		           "count increment h per tensor (plan/optim.c)\n");
	if (r->nclasses > 0)
		fprintf(o, "  simulated    optimizer time on stage 0's compute stream: %s (%.1f%% of the "
		           "step)\n",
		        unit(r->classes[0].time_s[EXEC_CAT_OPTIMIZER], SIM_UNIT_TIME, a, sizeof a),
		        r->step_s > 0 ? 100.0 * r->classes[0].time_s[EXEC_CAT_OPTIMIZER] / r->step_s
		                      : 0.0);
}

/* What the step exposes of its communication, the most of any rank class
 * per group: "dp 0.81 s, pp 0.05 s, tp 3.73 s". */
static void exposed_text(const exec_result *r, char *buf, size_t len)
{
	static const exec_cat cats[] = {EXEC_CAT_DP, EXEC_CAT_PP, EXEC_CAT_CP, EXEC_CAT_EP,
	                                EXEC_CAT_TP};
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof cats / sizeof cats[0] && used < len; k++) {
		double most = 0;
		for (int c = 0; c < r->nclasses; c++)
			most = fmax(most, r->classes[c].time_s[cats[k]]);
		if (most > 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %.3g s",
			                         used ? ", " : "", exec_cat_name(cats[k]), most);
	}
	if (!used)
		snprintf(buf, len, "none");
}

static void spread_section(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const net_cluster *c = &s->cluster;
	if (c->fabric != NET_FABRIC_EFA || c->nspread < 1 || r->spread.samples < 1)
		return;
	fprintf(o, "\n9. Step spread: how the step varies with the fabric's measured collective "
	           "spread\n");
	fprintf(o, "  data         [cluster] spread, per node count the 5th and 95th percentile "
	           "collective time over the median: %s\n", c->spread_text);
	fprintf(o, "  model        per call a slowdown r of the network part N of its time (the "
	           "part kappa(m) stretches): T - N + r N; r split log-normal, median 1, ln r = "
	           "s_lo z below the median and s_hi z above, s = |ln ratio| / 1.645\n");
	plan_graph *g = NULL;
	if (plan_build(s, &g) != SIM_OK)
		return;
	vgroup v[EXPLAIN_MAX_VGROUPS];
	size_t nv = vgroups(g, v);
	for (size_t k = 0; k < nv; k++) {
		net_spread sp;
		double sl = 0, sh = 0;
		bool on = net_spread_at(c, v[k].nodes, &sp);
		if (on)
			net_spread_sigmas(&sp, &sl, &sh);
		char a[48];
		fprintf(o, "  %-12s %s across %d nodes: %zu calls, %s in all, %.1f%% of it network; "
		           "spread %.3f-%.3f (s_lo %.3f, s_hi %.3f)\n",
		        k ? "" : "varying", task_group(v[k].kind), v[k].nodes, v[k].tasks,
		        unit(v[k].dur_s, SIM_UNIT_TIME, a, sizeof a),
		        v[k].dur_s > 0 ? 100 * v[k].net_s / v[k].dur_s : 0, on ? sp.lo : 1, on ? sp.hi : 1,
		        sl, sh);
	}
	if (nv == 0)
		fprintf(o, "  varying      none: no collective of the step crosses nodes\n");
	fprintf(o, "  correlation  rho = %.2g ([cluster] spread_correlation; assumed: the data "
	           "give one collective at a time): z = sqrt(rho) z_step + sqrt(1 - rho) z_call\n",
	        r->spread.corr);
	char a[48], b[48];
	fprintf(o, "  sampled      %d replays of the step, seed %llu; p95 within %s to %s at 95%% "
	           "confidence\n",
	        r->spread.samples, (unsigned long long)r->spread.seed,
	        unit(r->spread.p95_lo_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(r->spread.p95_hi_s, SIM_UNIT_TIME, b, sizeof b));
	spread_quantiles(o, "step", &r->spread, r->step_s);
	exec_step_spread lim;
	for (int k = 0; k < 2 && nv > 0; k++) {
		exec_spread_opts opt = {r->spread.samples, r->spread.seed, k ? 0.0 : 1.0};
		if (exec_spread(g, c, r->step_s, &opt, &lim) == SIM_OK)
			spread_quantiles(o, k ? "independent" : "correlated", &lim, r->step_s);
	}
	plan_graph_free(g);
	char ex[160], text[1024];
	exposed_text(r, ex, sizeof ex);
	snprintf(text, sizeof text,
	         "the step varies where it waits on collectives across nodes; it exposes %s of "
	         "communication (the most of any stage, of %s), and only the groups listed "
	         "above vary. A hidden collective matters only when a draw outlasts the compute "
	         "hiding it. Fully correlated (rho = 1), every call draws the same quantile: a "
	         "step that were one exposed collective would have its measured quantiles. "
	         "Independent (rho = 0), the calls' slowdowns average out over the step "
	         "toward the spread's mean (above its median of 1 at every shipped node "
	         "count), a narrower spread; where a few exposed calls on parallel paths "
	         "decide the step (pipeline stages, buckets), their maximum can reach further "
	         "than the correlated limit.",
	         ex, unit(r->step_s, SIM_UNIT_TIME, a, sizeof a));
	why(o, text);
}

/* ----------------------------------------------------------------- mixed -- */

/* 9. With nodes of another GPU type ([cluster] other_gpu, other_nodes): how
 * the step of exec_result.mixed comes about (exec/mixed.c derives it). */
static void mixed_section(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const exec_mixed *m = &r->mixed;
	if (m->nodes <= 0)
		return;
	char a[48], b[48], text[1200];
	fprintf(o, "\n10. Mixed GPU types: %s on %d of %d nodes (other_nodes = %s), %s elsewhere\n",
	        m->gpu, m->nodes, m->cluster_nodes, s->cluster.other_nodes, r->gpu);
	fprintf(o, "  instances    a stage of a replica (its tp x cp ranks in lockstep, EP groups "
	           "joined) is all %s, all %s, or both (each task the slower of the two); "
	           "global rank r sits on node r / %d\n",
	        r->gpu, m->gpu, s->cluster.node.gpus);
	fprintf(o, "  tasks        the task graph built again on %s, task for task: slowest stage "
	           "%d of replica %d, compute and optimizer tasks %s (%s on %s, x %.3f)\n",
	        m->gpu, m->stage, m->replica, unit(m->stage_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(m->stage_base_s, SIM_UNIT_TIME, b, sizeof b), r->gpu,
	        m->stage_base_s > 0 ? m->stage_s / m->stage_base_s : 0.0);
	fprintf(o, "  interference %.3g of a compute task's rate beside a collective on %s, %.3g on "
	           "%s ([gpu] interference)\n",
	        s->other_gpu.interference, m->gpu, s->gpu.interference, r->gpu);
	fprintf(o, "  step         max over replicas of each replica's replay = replica %d's %s; "
	           "%s with every node %s (%+.1f%%); %d of %d replicas hold a mixed node, %d "
	           "replays (equal replicas once)\n",
	        m->replica, unit(m->step_s, SIM_UNIT_TIME, a, sizeof a),
	        unit(m->base_s, SIM_UNIT_TIME, b, sizeof b), r->gpu,
	        m->base_s > 0 ? 100 * (m->step_s / m->base_s - 1) : 0.0, m->replicas, m->dp,
	        m->kinds);
	/* out of memory on allocated + runtime, as section 3's device line */
	char v[160];
	if (m->mem_verdict == PLAN_VERDICT_OOM) {
		char n[48], d[48];
		snprintf(v, sizeof v, "OUT OF MEMORY, allocated + runtime %s over the capacity by %s",
		         gib(m->mem_needed_bytes, n, sizeof n),
		         gib(m->mem_needed_bytes - m->mem_capacity_bytes, d, sizeof d));
	} else {
		snprintf(v, sizeof v, "%s", plan_verdict_name(m->mem_verdict));
	}
	fprintf(o, "  memory       on %s: device %s of %s, %s (stage %d, the worst it holds); on "
	           "%s: section 3\n",
	        m->gpu, gib(m->mem_peak_bytes, a, sizeof a), gib(m->mem_capacity_bytes, b, sizeof b),
	        v, m->mem_stage, r->gpu);
	snprintf(text, sizeof text,
	         "the data-parallel replicas meet at the gradient reduction, which waits for the "
	         "last replica's buckets, so the step is the slowest replica's; inside a replica "
	         "the mixed stage delays the micro-batches behind it through the schedule, which "
	         "the replica's replay gives. Approximated: collectives and copies keep the main "
	         "node type's NVLink, NICs and fabric (%s's own node may differ), and the "
	         "energy lines count %s's power on every GPU.",
	         m->gpu, r->gpu);
	why(o, text);
}

/* ------------------------------------------------------------------ main -- */

/* 10 (11 after the mixed nodes'). With a [campaign] section: the campaign's
 * set-up (campaign_explain).
 * Its input errors are the user's: printed, exit status 2. */
static int campaign_section(FILE *o, const plan_scenario *s, const exec_result *r)
{
	if (!conf_has_section(s->doc, "campaign"))
		return SIM_OK;
	sim_diag *d = sim_diag_new();
	campaign_input *in = malloc(sizeof *in);
	int rc = d && in ? campaign_setup(s, r, NULL, in, d) : SIM_ENOMEM;
	if (rc == SIM_OK)
		campaign_explain(o, in, r->mixed.nodes > 0 ? 11 : 10);
	if (d)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	free(in);
	return rc;
}

static int parse(int argc, char **argv, const char **file, const char **sets, size_t *nsets,
                 bool *help, long *samples)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			*help = true;
		else if (!strcmp(argv[i], "--set") && i + 1 < argc && *nsets < EXPLAIN_MAX_SETS)
			sets[(*nsets)++] = argv[++i];
		else if (!strcmp(argv[i], "--spread-samples") && i + 1 < argc) {
			if (cli_parse_samples(argv[++i], samples) != 0)
				return cli_usage_error("explain", usage_explain, CLI_SAMPLES_MSG, argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "podsim explain: error: %s: %s\n\n%s",
			        !strcmp(argv[i], "--set") || !strcmp(argv[i], "--spread-samples")
			                ? "option needs a value"
			                : "unknown option",
			        argv[i], usage_explain);
			return EXPLAIN_EXIT_INPUT;
		} else if (!*file)
			*file = argv[i];
		else {
			fprintf(stderr, "podsim explain: error: takes one scenario file\n\n%s",
			        usage_explain);
			return EXPLAIN_EXIT_INPUT;
		}
	}
	return 0;
}

int cli_explain(int argc, char **argv)
{
	const char *file = NULL, *sets[EXPLAIN_MAX_SETS];
	size_t nsets = 0;
	bool help = false;
	long samples = EXEC_SPREAD_SAMPLES;
	int rc = parse(argc, argv, &file, sets, &nsets, &help, &samples);
	if (rc || help) {
		if (help)
			fputs(usage_explain, stdout);
		return rc;
	}
	if (!file) {
		fprintf(stderr, "podsim explain: error: takes one scenario file\n\n%s",
		        usage_explain);
		return EXPLAIN_EXIT_INPUT;
	}
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	rc = plan_scenario_load(file, sets, nsets, d, &s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? 1 : EXPLAIN_EXIT_INPUT;
	valid_refs *refs = NULL;
	if ((rc = cli_load_refs(&refs)) != 0) {
		plan_scenario_free(s);
		return rc;
	}
	exec_result *r = malloc(sizeof *r);
	exec_spread_opts sp = {(int)samples, s->seed, -1};
	exec_views v = {NULL, NULL, 0, NULL, &sp};
	rc = r ? exec_run_views(s, r, &v) : SIM_ENOMEM;
	if (rc == SIM_OK)
		valid_refs_apply(refs, s, r); /* the band as run prints it */
	if (rc == SIM_OK) {
		printf("podsim explain: %s (%s)\n  %s on %d x %s (%s), plan %s\n", r->scenario,
		       file, r->model, r->gpus, r->gpu, r->cluster, r->plan);
		printf("  Each figure: the formula, the scenario's values, the result; then what "
		       "the simulated step gives.\n");
		params(stdout, &s->model);
		flops(stdout, s, r);
		memory(stdout, s, r);
		bubble(stdout, s, r);
		dp_ring(stdout, s, r);
		band(stdout, s, r, refs);
		fixed_cost(stdout, s, r);
		optimizer_section(stdout, s, r);
		spread_section(stdout, s, r);
		mixed_section(stdout, s, r);
		rc = campaign_section(stdout, s, r);
	} else if (rc == SIM_ERANGE && r) { /* bad input: the clock */
		fprintf(stderr, "%s: error: %s\n", file, r->error);
	} else {
		fprintf(stderr, "podsim explain: error: %s\n", sim_strerror(rc));
	}
	free(r);
	valid_refs_free(refs);
	plan_scenario_free(s);
	return rc == SIM_OK                                              ? 0
	       : rc == SIM_ECONF || rc == SIM_EIO || rc == SIM_ERANGE ? EXPLAIN_EXIT_INPUT
	                                                                : 1;
}
