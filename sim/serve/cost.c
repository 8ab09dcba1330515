/* cost.c - the time of one serving iteration and the memory of one replica,
 * from hw's kernel model and net's collective model (serve.h).
 *
 * Notation (one GPU of a replica with tensor parallelism t, pipeline pp):
 * h hidden, a heads, g KV heads, d head dim, f ffn, V vocabulary, L = layers
 * / pp layers per stage; a_t = a / t query heads and g_t = ceil(g / t) KV
 * heads per GPU (KV heads are replicated when t > g, as TensorRT-LLM and
 * vLLM do); e = 2 bytes for activations, w = weight bytes per element, c =
 * KV bytes per element.
 *
 * One iteration processes M = decodes + prefill tokens. Per layer and GPU:
 *  - four GEMMs on all M tokens at once (sequences are concatenated):
 *      QKV [M, h] x [h, (a_t + 2 g_t) d], out [M, a_t d] x [a_t d, h],
 *      MLP up [M, h] x [h, 2f/t] (SwiGLU's gate and up fused; f/t with
 *      GELU), down [M, f/t] x [f/t, h]; hw_gemm_time in the weights' dtype
 *      (fp8 GEMMs for fp8; for weight-only int8/int4 a 16-bit GEMM whose
 *      weight operand is read at w bytes: the roofline hw_kernel_time of
 *      2Mnk FLOPs and nkw + (Mk + Mn) e bytes). At M = 1 each GEMM is bound
 *      by reading its weights: nkw / (HBM bw x hbm_eff), the decode step's
 *      floor (test_serve checks it).
 *  - attention as fused kernels (hw_flash_time): the decodes in one kernel
 *    of 4 a_t d C FLOPs moving 2 g_t d C c bytes of KV (C = the decoding
 *    requests' KV tokens summed) plus their queries and outputs, memory
 *    bound for any GQA ratio below the ridge (a_t instead of g_t KV heads
 *    read for an engine whose kernel does not share them, kv_per_query_head);
 *    the prefill chunks in one
 *    causal kernel of 4 a_t d P FLOPs, P = sum of chunk x (context before it
 *    + chunk / 2) query-key pairs.
 *  - the element-wise kernels (norms, RoPE, activation, residual adds, the
 *    KV write): M e (10 h + 3 f/t + 2 (a_t + 2 g_t) d) + 2 M g_t d c bytes at
 *    hw_mem_time, `elementwise_kernels` launches.
 *  - with t > 1 two all-reduces of M h e bytes (net_collective, NCCL's
 *    algorithm and protocol picked as its tuner does).
 * The last stage adds the logits GEMM [S, h] x [h, V/t] (16-bit: engines
 * keep the head unquantised) for the S sequences that emit a token, the
 * all-gather of their S V e logits and a sampling pass over S V 4 bytes;
 * the first stage the embedding lookup (M h e). Stages run one after the
 * other, with a transfer of M h e bytes between neighbours (no pipelining
 * of iterations across stages: a replica with pp > 1 is one iteration deep).
 *
 * Engine overheads: every kernel pays the engine's kernel_gap on the GPU
 * (hw's launch_s, set by the loader). The host enqueues the kernels while
 * the GPU runs them, so an iteration takes
 *     T = iteration_overhead + max(GPU time, host enqueue time),
 * host enqueue = kernels x host_launch, or one graph_launch for a
 * decode-only iteration when the engine captures CUDA graphs.
 *
 * Memory per GPU: the stage's weights at w bytes (embedding and head at 16
 * bits), the activation workspace of the largest iteration (M_max e (2h +
 * max((a_t + 2 g_t) d, MLP up width)): the residual stream, a GEMM's input and
 * its output, buffers reused layer after layer; plus fp32 logits of
 * max_batch rows), the reserve
 * (plan's memory pieces for the CUDA context, cuBLAS workspace and, with
 * t > 1, NCCL: [framework] defaults), and the KV cache: memory_fraction of
 * what is left (TensorRT-LLM's free_gpu_memory_fraction and vLLM's
 * gpu_memory_utilization both hand out about 0.9 of it); static batching
 * preallocates the batch's contiguous cache and may use all of it.
 */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>

double serve_weight_bytes(serve_weights w)
{
	static const double b[] = {2, 2, 1, 1, 0.5};
	return b[w];
}

hw_dtype serve_gemm_dtype(serve_weights w)
{
	return w == SERVE_W_FP8 ? HW_FP8 : w == SERVE_W_BF16 ? HW_BF16 : HW_FP16;
}

const char *serve_weights_name(serve_weights w)
{
	static const char *const n[] = {"bf16", "fp16", "fp8", "int8", "int4"};
	return n[w];
}

const char *serve_batching_name(serve_batching b)
{
	static const char *const n[] = {"static", "continuous", "chunked"};
	return n[b];
}

#define ACT_BYTES 2.0 /* activations, all-reduces, logits: 16-bit */
#define MEMO_MAX 65536 /* token counts with a memoised GEMM/all-reduce time */

struct serve_cost {
	const serve_scenario *s;
	double h, at, gt, d, f, V;
	int layers;       /* per stage */
	double wb, kvb;   /* weight and KV bytes per element */
	hw_dtype gd;      /* GEMM dtype */
	net_group tpg;
	double *gemm_memo, *ar_memo; /* per M: one layer's GEMMs, one all-reduce; < 0 unset */
};

static double gemm_one(const serve_cost *c, double m, double n, double k)
{
	const hw_gpu *g = &c->s->gpu;
	if (c->s->weights == SERVE_W_INT8 || c->s->weights == SERVE_W_INT4)
		return hw_kernel_time(g, HW_FP16, 2 * m * n * k,
				      n * k * c->wb + (m * k + m * n) * ACT_BYTES);
	return hw_gemm_time(g, c->gd, m, n, k, 1);
}

static double layer_gemms(const serve_cost *c, double m)
{
	double qkv = (c->at + 2 * c->gt) * c->d;
	bool swiglu = c->s->model.act == WORK_ACT_SWIGLU;
	double ft = c->f / c->s->tp;
	return gemm_one(c, m, qkv, c->h) + gemm_one(c, m, c->h, c->at * c->d) +
	       gemm_one(c, m, (swiglu ? 2 : 1) * ft, c->h) + gemm_one(c, m, c->h, ft);
}

static double allreduce(const serve_cost *c, double bytes)
{
	net_cost nc;
	if (c->s->tp < 2 ||
	    net_collective(&c->s->cluster, NET_ALLREDUCE, &c->tpg, bytes, &nc) != SIM_OK)
		return 0;
	return nc.time_s;
}

static double memo(double *tab, int m, double v_if_unset, bool *hit)
{
	*hit = m < MEMO_MAX && tab[m] >= 0;
	return *hit ? tab[m] : v_if_unset;
}

static double gemms_at(serve_cost *c, int m)
{
	bool hit;
	double v = memo(c->gemm_memo, m, 0, &hit);
	if (hit)
		return v;
	v = layer_gemms(c, m);
	if (m < MEMO_MAX)
		c->gemm_memo[m] = v;
	return v;
}

static double allreduce_at(serve_cost *c, int m)
{
	bool hit;
	double v = memo(c->ar_memo, m, 0, &hit);
	if (hit)
		return v;
	v = allreduce(c, m * c->h * ACT_BYTES);
	if (m < MEMO_MAX)
		c->ar_memo[m] = v;
	return v;
}

int serve_cost_new(const serve_scenario *s, serve_cost **out)
{
	serve_cost *c = calloc(1, sizeof *c);
	if (!c)
		return SIM_ENOMEM;
	c->gemm_memo = malloc(MEMO_MAX * sizeof *c->gemm_memo);
	c->ar_memo = malloc(MEMO_MAX * sizeof *c->ar_memo);
	if (!c->gemm_memo || !c->ar_memo) {
		serve_cost_free(c);
		return SIM_ENOMEM;
	}
	for (int i = 0; i < MEMO_MAX; i++)
		c->gemm_memo[i] = c->ar_memo[i] = -1;
	const work_model *m = &s->model;
	c->s = s;
	c->h = m->hidden;
	c->d = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	c->at = (double)m->heads / s->tp;
	c->gt = ceil((double)m->kv_heads / s->tp);
	c->f = m->ffn;
	c->V = m->vocab;
	c->layers = m->layers / s->pp;
	c->wb = serve_weight_bytes(s->weights);
	c->kvb = hw_dtype_bytes(s->kv_dtype);
	c->gd = serve_gemm_dtype(s->weights);
	net_group_make(&s->cluster, s->tp, 1, &c->tpg);
	*out = c;
	return SIM_OK;
}

void serve_cost_free(serve_cost *c)
{
	if (!c)
		return;
	free(c->gemm_memo);
	free(c->ar_memo);
	free(c);
}

/* One layer's attention kernels: the decodes' and the prefill chunks'. */
static double attention(const serve_cost *c, const serve_batch *b, int *kernels)
{
	const hw_gpu *g = &c->s->gpu;
	hw_flash_impl impl = (hw_flash_impl)c->s->engine.flash_impl;
	double t = 0, qd = c->at * c->d;
	*kernels = 0;
	if (b->decodes > 0) {
		double flops = 4 * qd * b->decode_ctx;
		/* K/V heads read per GPU: g_t, or a_t when the kernel does not share
		 * a KV head's loads among its query heads (serve_engine) */
		double kvh = c->s->engine.kv_per_query_head ? c->at : c->gt;
		double bytes = 2 * kvh * c->d * b->decode_ctx * c->kvb + 2 * b->decodes * qd * ACT_BYTES;
		/* one exponential per score element: the flops over 4 d */
		t += hw_flash_time(g, HW_BF16, impl, false,
				   &(hw_flash_work){flops, b->decodes * qd, flops / (4 * c->d), bytes});
		++*kernels;
	}
	if (b->prefill_tokens > 0) {
		double flops = 4 * qd * b->prefill_attn;
		double bytes = 2 * b->prefill_tokens * qd * ACT_BYTES +
			       2 * c->gt * c->d * (b->prefill_tokens + b->prefill_attn / b->prefill_tokens) * c->kvb;
		t += hw_flash_time(g, HW_BF16, impl, false,
				   &(hw_flash_work){flops, b->prefill_tokens * qd, flops / (4 * c->d),
						    bytes});
		++*kernels;
	}
	return t;
}

void serve_iteration_parts(serve_cost *c, const serve_batch *b, serve_iter_parts *p)
{
	const serve_scenario *s = c->s;
	const hw_gpu *g = &s->gpu;
	int m = b->decodes + b->prefill_tokens;
	*p = (serve_iter_parts){0};
	if (m <= 0)
		return;
	int attn_kernels;
	double L = c->layers, pp = s->pp;
	p->gemm_s = pp * L * gemms_at(c, m);
	p->attn_s = pp * L * attention(c, b, &attn_kernels);
	double ft = c->f / s->tp, act = s->model.act == WORK_ACT_SWIGLU ? 3 : 2;
	double ew = m * ACT_BYTES * (10 * c->h + act * ft + 2 * (c->at + 2 * c->gt) * c->d) +
		    2.0 * m * c->gt * c->d * c->kvb;
	int ek = s->engine.elementwise_kernels;
	p->elementwise_s = ek > 0 ? pp * L * (hw_mem_time(g, ew) + (ek - 1) * hw_overhead(g)) : 0;
	double ar = allreduce_at(c, m);
	p->allreduce_s = pp * L * 2 * ar;
	if (pp > 1) { /* stage-to-stage transfers of the hidden states */
		net_cost nc;
		net_group pg;
		net_group_make(&s->cluster, 2, s->tp, &pg);
		if (net_collective(&s->cluster, NET_P2P, &pg, m * c->h * ACT_BYTES, &nc) == SIM_OK)
			p->allreduce_s += (pp - 1) * nc.time_s;
	}
	double S = b->samples > 0 ? b->samples : 0, Vt = c->V / s->tp;
	p->head_s = hw_mem_time(g, m * c->h * ACT_BYTES); /* embedding lookup */
	if (S > 0) {
		p->head_s += hw_gemm_time(g, HW_BF16, S, Vt, c->h, 1) + hw_mem_time(g, S * c->V * 4);
		net_cost nc;
		if (s->tp > 1 && net_collective(&s->cluster, NET_ALLGATHER, &c->tpg,
						S * c->V * ACT_BYTES, &nc) == SIM_OK)
			p->head_s += nc.time_s;
	}
	double gpu = p->gemm_s + p->attn_s + p->elementwise_s + p->allreduce_s + p->head_s;
	int kernels = (int)(pp * L * (4 + attn_kernels + ek + (s->tp > 1 ? 2 : 0))) + 4;
	bool graph = s->engine.cuda_graphs && b->prefill_tokens == 0;
	p->host_s = graph ? s->engine.graph_launch_s : kernels * s->engine.host_launch_s;
	p->overhead_s = s->engine.iteration_s;
	p->setup_s = b->starts > 0 ? s->engine.request_setup_s : 0;
	p->total_s = p->overhead_s + p->setup_s + (gpu > p->host_s ? gpu : p->host_s);
}

double serve_iteration_s(serve_cost *c, const serve_batch *b)
{
	serve_iter_parts p;
	serve_iteration_parts(c, b, &p);
	return p.total_s;
}

double serve_kv_bytes_per_token(const work_model *m, hw_dtype kv)
{
	double d = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	return 2.0 * m->layers * m->kv_heads * d * hw_dtype_bytes(kv);
}

void serve_memory_of(const serve_scenario *s, serve_memory *out)
{
	const work_model *m = &s->model;
	double t = s->tp, d = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	double gt = ceil((double)m->kv_heads / t), at = m->heads / t, L = (double)m->layers / s->pp;
	double layers = work_params_layer(m) * L / t * serve_weight_bytes(s->weights);
	double emb = work_params_embedding(m) / t * ACT_BYTES;
	double head = work_params_output(m) / t * ACT_BYTES;
	double ends = s->pp == 1 ? emb + head : emb > head ? emb : head;
	out->weights_bytes = layers + ends;
	int maxp = s->arrivals == SERVE_TRACE ? 0 : serve_len_max(s->prompt_dist, s->prompt_tokens);
	for (int i = 0; s->arrivals == SERVE_TRACE && i < s->requests; i++)
		maxp = s->trace_in[i] > maxp ? s->trace_in[i] : maxp;
	double mmax = s->batching == SERVE_STATIC     ? (double)s->max_batch * maxp
		      : s->batching == SERVE_CHUNKED  ? s->max_tokens
		      : s->max_tokens > maxp         ? s->max_tokens
						      : maxp;
	double ft = m->ffn / t;
	double qkv = (at + 2 * gt) * d, mlp = (m->act == WORK_ACT_SWIGLU ? 2 : 1) * ft;
	out->activation_bytes = mmax * ACT_BYTES * (2 * m->hidden + (qkv > mlp ? qkv : mlp)) +
				(double)s->max_batch * m->vocab / t * 4;
	out->reserve_bytes = s->fw.context_bytes + plan_workspace_bytes(&s->fw, &s->gpu, NULL) +
			     (s->tp > 1 ? s->fw.nccl_bytes + s->fw.comm_bytes : 0);
	double left = s->gpu.hbm_bytes - out->weights_bytes - out->activation_bytes - out->reserve_bytes;
	/* static batching preallocates the batch's whole KV (a contiguous cache,
	 * TensorRT-LLM's gptSession without paging): all of what is left */
	double frac = s->batching == SERVE_STATIC ? 1.0 : s->engine.memory_fraction;
	out->kv_bytes = left > 0 ? frac * left : 0;
	out->kv_token_bytes = 2.0 * L * gt * d * hw_dtype_bytes(s->kv_dtype);
	out->kv_blocks = (int64_t)floor(out->kv_bytes / (s->engine.block_tokens * out->kv_token_bytes));
}
