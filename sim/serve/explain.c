/* explain.c - `podsim explain` on a serving scenario: the closed forms a
 * student checks by hand beside what the simulation's cost model gives
 * (serve_explain). Every number is computed here from the same inputs as
 * the run; nothing is pinned.
 *
 *  - KV bytes per token = 2 x layers x kv_heads x head_dim x bytes.
 *  - The roofline: a kernel doing F FLOPs on B bytes of HBM traffic is
 *    compute bound when its arithmetic intensity F / B exceeds the ridge
 *    point R = peak x gemm_efficiency / (HBM bandwidth x hbm_efficiency).
 *    A GEMM [M, k] x [k, n] with w-byte weights and e-byte activations has
 *    F / B = 2Mnk / (nkw + (Mk + Mn) e) -> 2M / w for M << k, n: decode
 *    (M = the batch) sits far left of the ridge, prefill (M = the prompt's
 *    tokens) right of it.
 *  - The decode step at batch b with context c per request, closed form:
 *    t = (W + b c K) / (HBM bw x hbm_eff), W = weight bytes per GPU, K = KV
 *    bytes per token per GPU; the simulated step adds the kernels'
 *    overheads, the TP all-reduces and the engine's per-step cost.
 *  - The prefill of p tokens, closed form: 2 P p / (t x peak x eff), P the
 *    matmul parameters (compute bound); and at the sustained clock
 *    (hw.h tensor_sustain), which a prefill's SM-bound kernels run at.
 *  - The largest batch that fits: KV tokens the cache holds / (prompt +
 *    output).
 */
#include "serve_int.h"

#include <math.h>

#define GIB 1073741824.0

/* Sections 4 and 5: the decode step at batch 1 and bmax, the prefill of
 * one prompt, closed form beside the cost model's parts. */
static void explain_steps(FILE *f, const serve_scenario *s, const serve_memory *mem, double bw,
			  double bmax)
{
	const work_model *m = &s->model;
	hw_dtype gd = serve_gemm_dtype(s->weights);
	double peak = hw_peak(&s->gpu, gd) * hw_gemm_eff(&s->gpu, gd);
	double Ms[2] = {1, bmax};
	serve_cost *c;
	if (serve_cost_new(s, &c) != SIM_OK)
		return;
	double W = mem->weights_bytes, ctx = s->prompt_tokens + s->output_tokens / 2.0;
	fprintf(f, "\n4. Decode step (context %.0f tokens per request)\n", ctx);
	double bs[2] = {1, Ms[1]};
	for (int i = 0; i < 2; i++) {
		double b = bs[i];
		double closed = (W + b * ctx * mem->kv_token_bytes) / bw;
		serve_batch bt = {.decodes = (int)b, .decode_ctx = b * ctx, .samples = (int)b};
		serve_iter_parts p;
		serve_iteration_parts(c, &bt, &p);
		fprintf(f, "   batch %5.0f: (W + b c K) / bw = (%.2f GB + %.0f x %.0f x %.0f B) / %.0f GB/s"
			   " = %.3f ms; simulated %.3f ms\n",
			b, W / 1e9, b, ctx, mem->kv_token_bytes, bw / 1e9, 1e3 * closed, 1e3 * p.total_s);
		fprintf(f, "                GEMMs %.3f, attention %.3f, element-wise %.3f, all-reduce %.3f,"
			   " head %.3f, engine %.3f ms\n",
			1e3 * p.gemm_s, 1e3 * p.attn_s, 1e3 * p.elementwise_s, 1e3 * p.allreduce_s,
			1e3 * p.head_s, 1e3 * (p.total_s - p.gemm_s - p.attn_s - p.elementwise_s -
					       p.allreduce_s - p.head_s));
	}
	double P = work_params_layer(m) * m->layers, pt = s->prompt_tokens;
	double closed = 2 * P * pt / (s->tp * peak);
	serve_batch bp = {.prefill_tokens = s->prompt_tokens, .prefills = 1, .starts = 1,
			  .prefill_attn = 0.5 * pt * pt, .samples = 1};
	fprintf(f, "\n5. Prefill of %d tokens\n", s->prompt_tokens);
	fprintf(f, "   2 P p / (tp x peak) = 2 x %.3g x %.0f / (%d x %.0f TFLOP/s) = %.3f ms; simulated "
		   "%.3f ms\n",
		P, pt, s->tp, peak / 1e12, 1e3 * closed, 1e3 * serve_iteration_s(c, &bp));
	if (s->gpu.sustain_cap > 0)
		fprintf(f, "   at the sustained clock (tensor_sustain %.2f of it%s, hw.h): %.3f ms\n",
			s->gpu.sustain_cap,
			s->gpu.sustain_assumed ? "; assumed, not fitted for this GPU" : "",
			1e3 * closed / s->gpu.sustain_cap);
	serve_iter_parts p;
	serve_iteration_parts(c, &bp, &p);
	fprintf(f, "   GEMMs %.3f, attention %.3f, element-wise %.3f, all-reduce %.3f, head %.3f, "
		   "host %.3f ms (the GPU's time or the host's kernel launches, the longer)\n",
		1e3 * p.gemm_s, 1e3 * p.attn_s, 1e3 * p.elementwise_s, 1e3 * p.allreduce_s,
		1e3 * p.head_s, 1e3 * p.host_s);
	serve_cost_free(c);
}

void serve_explain(FILE *f, const serve_scenario *s)
{
	const work_model *m = &s->model;
	const hw_gpu *g = &s->gpu;
	serve_memory mem;
	serve_memory_of(s, &mem);
	double d = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	double kvb = hw_dtype_bytes(s->kv_dtype), w = serve_weight_bytes(s->weights);
	fprintf(f, "serving scenario %s: %s on %d replica(s) of tp %d pp %d, %s\n\n", s->name, m->name,
		s->replicas, s->tp, s->pp, g->name);
	fprintf(f, "1. KV cache per token\n");
	fprintf(f, "   2 x layers x kv_heads x head_dim x bytes = 2 x %d x %d x %.0f x %.0f = %.0f B"
		   " (%.1f KiB)\n",
		m->layers, m->kv_heads, d, kvb, serve_kv_bytes_per_token(m, s->kv_dtype),
		serve_kv_bytes_per_token(m, s->kv_dtype) / 1024);
	fprintf(f, "   per GPU (layers / pp, ceil(kv_heads / tp) heads): %.0f B\n\n", mem.kv_token_bytes);
	fprintf(f, "2. Memory per GPU (%.1f GiB)\n", g->hbm_bytes / GIB);
	fprintf(f, "   weights %.2f GiB + activations %.2f GiB + reserve %.2f GiB; KV cache %.2f GiB\n",
		mem.weights_bytes / GIB, mem.activation_bytes / GIB, mem.reserve_bytes / GIB,
		mem.kv_bytes / GIB);
	double tokens = (double)mem.kv_blocks * s->engine.block_tokens;
	double req = (double)s->prompt_tokens + s->output_tokens;
	fprintf(f, "   = %lld blocks of %d tokens = %.0f tokens per replica\n",
		(long long)mem.kv_blocks, s->engine.block_tokens, tokens);
	fprintf(f, "   largest batch at %d + %d tokens per request: %.0f requests (max_batch %d)\n\n",
		s->prompt_tokens, s->output_tokens, floor(tokens / req), s->max_batch);
	hw_dtype gd = serve_gemm_dtype(s->weights);
	double peak = hw_peak(g, gd) * hw_gemm_eff(g, gd), bw = g->hbm_Bps * g->hbm_eff;
	double ridge = peak / bw, k = m->hidden, n = 4.0 * m->hidden / s->tp;
	fprintf(f, "3. Roofline (%s GEMMs: %.0f TFLOP/s achievable, %.0f GB/s)\n",
		hw_dtype_name(gd), peak / 1e12, bw / 1e9);
	fprintf(f, "   ridge point %.0f FLOP/B\n", ridge);
	double bmax = fmin(floor(tokens / req), s->max_batch);
	double Ms[3] = {1, bmax > 1 ? bmax : 1, s->prompt_tokens};
	const char *what[3] = {"decode, batch 1", "decode, largest batch", "prefill of one prompt"};
	for (int i = 0; i < 3; i++) {
		double M = Ms[i], ai = 2 * M * n * k / (n * k * w + (M * k + M * n) * 2);
		fprintf(f, "   %-22s M = %6.0f  intensity %8.1f FLOP/B  %s\n", what[i], M, ai,
			ai < ridge ? "memory bound" : "compute bound");
	}
	explain_steps(f, s, &mem, bw, Ms[1]);
}
