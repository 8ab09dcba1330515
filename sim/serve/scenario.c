/* scenario.c - loading a serving scenario: [scenario], [model], [gpu],
 * [node], [cluster] as for training (their modules read them), the [serve]
 * and [engine] key tables here, a trace file's rows, and the checks that make
 * bad input a file:line error before anything runs (serve.h). */
#include "serve_int.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const batching_names[] = {"static", "continuous", "chunked", NULL};
static const char *const arrival_names[] = {"poisson", "closed", "offline", "trace", "gamma",
					    NULL};
static const char *const dist_names[] = {"fixed", "uniform", "exponential", NULL};
static const char *const route_names[] = {"round-robin", "least-outstanding", NULL};
static const char *const preempt_names[] = {"recompute", "swap", NULL};
static const char *const weight_names[] = {"bf16", "fp16", "fp8", "int8", "int4", NULL};
static const char *const kv_names[] = {"auto", "bf16", "fp16", "fp8", "int8", NULL};
static const char *const flash_names[] = {"fa2", "fa3", "cudnn", NULL};
_Static_assert(sizeof(serve_batching) == sizeof(int), "conf stores enums as int");

/* What the [serve] table fills; copied into serve_scenario. */
typedef struct serve_conf {
	int tp, pp, replicas, weights, kv, batching, max_batch, max_tokens;
	int arrivals, concurrency, requests, prompt, output, prompt_dist, output_dist, route, preempt;
	double rate, burst, slo_ttft, slo_tpot, swap_space;
	char trace[CONF_STR_MAX];
} serve_conf;

#define SK(f) offsetof(serve_conf, f)
const conf_key serve_keys[] = {
	{"tp", CONF_INT, SIM_UNIT_NONE, 1, 1024, "1", NULL, SK(tp),
	 "tensor-parallel size of one replica (inside a node)"},
	{"pp", CONF_INT, SIM_UNIT_NONE, 1, 1024, "1", NULL, SK(pp), "pipeline stages of one replica"},
	{"replicas", CONF_INT, SIM_UNIT_NONE, 0, 1048576, "0", NULL, SK(replicas),
	 "model replicas (0 = as many as the cluster holds)"},
	{"weights", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "bf16", weight_names, SK(weights),
	 "weight precision: bf16, fp16, fp8 (fp8 GEMMs), int8 / int4 (weight-only)"},
	{"kv_cache", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", kv_names, SK(kv),
	 "KV-cache precision (auto = fp8 with fp8 weights, else the 16-bit type)"},
	{"batching", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "continuous", batching_names, SK(batching),
	 "static (a batch runs to its end), continuous (iteration-level, whole prompts), "
	 "chunked (prompts cut to fill a token budget beside the decodes)"},
	{"max_batch", CONF_INT, SIM_UNIT_NONE, 1, 65536, "256", NULL, SK(max_batch),
	 "requests in one iteration (vLLM max_num_seqs, TensorRT-LLM max_batch_size)"},
	{"max_tokens", CONF_INT, SIM_UNIT_NONE, 1, 16777216, "8192", NULL, SK(max_tokens),
	 "tokens in one iteration (max_num_batched_tokens); chunked: the chunk budget"},
	{"arrivals", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "poisson", arrival_names, SK(arrivals),
	 "poisson at `rate`, closed loop of `concurrency` clients, offline (all at t = 0), "
	 "a trace file, or gamma (bursty: gaps with coefficient of variation `burstiness`)"},
	{"rate", CONF_REAL, SIM_UNIT_NONE, -1e12, 1e12, "1", NULL, SK(rate),
	 "Poisson arrival rate, requests per second (> 0)"},
	{"burstiness", CONF_REAL, SIM_UNIT_NONE, 0.05, 20, "1", NULL, SK(burst),
	 "gamma arrivals: coefficient of variation of the gaps (1 = Poisson, > 1 bursty)"},
	{"concurrency", CONF_INT, SIM_UNIT_NONE, 1, 1048576, "1", NULL, SK(concurrency),
	 "closed loop: requests kept in flight"},
	{"requests", CONF_INT, SIM_UNIT_NONE, 1, 100000000, "1000", NULL, SK(requests),
	 "requests in the run (trace: its rows)"},
	{"trace", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, SK(trace),
	 "CSV of arrival_s,prompt_tokens,output_tokens (path from this file's folder)"},
	{"prompt_tokens", CONF_INT, SIM_UNIT_NONE, 1, 16777216, "512", NULL, SK(prompt),
	 "prompt length (the mean when drawn)"},
	{"output_tokens", CONF_INT, SIM_UNIT_NONE, 1, 16777216, "128", NULL, SK(output),
	 "output length (the mean when drawn)"},
	{"prompt_dist", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fixed", dist_names, SK(prompt_dist),
	 "fixed, uniform (mean/2 .. 3 mean/2) or exponential (capped at 4 x mean)"},
	{"output_dist", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fixed", dist_names, SK(output_dist),
	 "fixed, uniform or exponential, as prompt_dist"},
	{"router", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "round-robin", route_names, SK(route),
	 "which replica a request goes to"},
	{"preemption", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "recompute", preempt_names, SK(preempt),
	 "when KV blocks run out: recompute the newest request later, or swap its KV to the "
	 "host over PCIe and back"},
	{"swap_space", CONF_QTY, SIM_UNIT_BYTES, 0, 1e15, "4 GiB", NULL, SK(swap_space),
	 "host memory per GPU for swapped KV (vLLM's swap_space); a swap that does not fit "
	 "recomputes"},
	{"slo_ttft", CONF_QTY, SIM_UNIT_TIME, 0, 1e6, "500 ms", NULL, SK(slo_ttft),
	 "goodput: time to first token at most"},
	{"slo_tpot", CONF_QTY, SIM_UNIT_TIME, 0, 1e6, "50 ms", NULL, SK(slo_tpot),
	 "goodput: time per output token at most"},
};
const size_t serve_nkeys = sizeof serve_keys / sizeof serve_keys[0];

typedef struct engine_conf {
	serve_engine e;
	int flash;
} engine_conf;

#define EK(f) offsetof(engine_conf, e.f)
const conf_key serve_engine_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, "generic", NULL, EK(name), "serving engine"},
	{"source", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, EK(source), "where the facts are from"},
	{"cuda_graphs", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, EK(cuda_graphs),
	 "decode-only iterations replay a captured CUDA graph (one host launch)"},
	/* hardware.csv latency,CUDA graph,replay_vs_direct (S51e, B200, secondary):
	 * a 24 us kernel takes 25.8 us replayed from a graph, 1.8 us beyond its
	 * work (28.3 us launched directly, the host's dispatch included); assumed
	 * the same on other GPUs and for kernels a stream already holds */
	{"kernel_gap", CONF_QTY, SIM_UNIT_TIME, 0, 1, "1.8 us", NULL, EK(kernel_gap_s),
	 "GPU time of each kernel beyond its work between back-to-back kernels (hardware.csv "
	 "S51e: 1.8 us in a CUDA graph; replaces the GPU file's launch_overhead)"},
	{"host_launch", CONF_QTY, SIM_UNIT_TIME, 0, 1, "4 us", NULL, EK(host_launch_s),
	 "host time to enqueue one kernel outside a graph"},
	{"graph_launch", CONF_QTY, SIM_UNIT_TIME, 0, 1, "10 us", NULL, EK(graph_launch_s),
	 "host time to launch one captured graph"},
	{"iteration_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 10, "100 us", NULL, EK(iteration_s),
	 "host time per iteration: scheduling, sampling, returning tokens"},
	{"request_setup", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL, EK(request_setup_s),
	 "host time of an iteration that starts new requests (runtime setup, first token out)"},
	{"elementwise_kernels", CONF_INT, SIM_UNIT_NONE, 0, 100, "4", NULL,
	 EK(elementwise_kernels), "memory-bound kernels per layer (norms, RoPE, activation, adds)"},
	{"memory_fraction", CONF_REAL, SIM_UNIT_NONE, 0.01, 1, "0.9", NULL, EK(memory_fraction),
	 "share of the memory left after weights, activations and reserve given to the KV cache"},
	{"block_tokens", CONF_INT, SIM_UNIT_NONE, 1, 65536, "16", NULL, EK(block_tokens),
	 "tokens per KV-cache block (paged attention)"},
	{"kv_per_query_head", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, EK(kv_per_query_head),
	 "decode attention reads K/V once per query head (a kernel without GQA sharing)"},
	{"attention", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fa2", flash_names,
	 offsetof(engine_conf, flash), "fused attention kernels' implementation (hw's fa2/fa3/cudnn)"},
};
const size_t serve_engine_nkeys = sizeof serve_engine_keys / sizeof serve_engine_keys[0];

static const char *const known_sections[] = {"scenario", "model", "gpu",    "node",
					     "cluster",  "serve", "engine", "framework", NULL};

bool serve_is_serving(const char *path)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	bool yes = d && conf_load(path, d, &doc) == SIM_OK && conf_has_section(doc, "serve");
	conf_free(doc);
	sim_diag_free(d);
	return yes;
}

static void err_at(const serve_scenario *s, const char *key, sim_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err_at(const serve_scenario *s, const char *key, sim_diag *d, const char *fmt, ...)
{
	conf_loc loc = key ? conf_key_loc(s->doc, "serve", key) : conf_section_loc(s->doc, "serve");
	va_list ap;
	va_start(ap, fmt);
	sim_diag_vadd(d, SIM_DIAG_ERROR, loc.path, loc.line, fmt, ap);
	va_end(ap);
}

/* The largest length a distribution can draw (serve_draw_len). */
int serve_len_max(serve_len_dist dist, int mean)
{
	return dist == SERVE_LEN_UNIFORM ? mean + mean / 2 : dist == SERVE_LEN_EXPONENTIAL ? 4 * mean : mean;
}

static int read_sections(serve_scenario *s, sim_diag *d)
{
	plan_head head;
	serve_conf c;
	engine_conf e;
	static const conf_kind other[] = {{"sweep", "a sweep file", "sweep"},
	                                  {"parallel", "a training scenario", "run"},
	                                  {NULL, NULL, NULL}};
	if (conf_other_kind(s->doc, other, d))
		return SIM_ECONF;
	int rc = SIM_OK;
	if (conf_check_sections(s->doc, known_sections, d) > 0)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "scenario", plan_scenario_keys, plan_scenario_nkeys, &head, false,
		      d) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "serve", serve_keys, serve_nkeys, &c, false, d) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "engine", serve_engine_keys, serve_engine_nkeys, &e, true, d) != SIM_OK)
		rc = SIM_ECONF;
	if (work_model_from_conf(s->doc, &s->model, d) != SIM_OK)
		rc = SIM_ECONF;
	if (hw_gpu_from_conf(s->doc, &s->gpu, d) != SIM_OK)
		rc = SIM_ECONF;
	if (net_cluster_from_conf(s->doc, &s->cluster, d) != SIM_OK)
		rc = SIM_ECONF;
	if (plan_framework_from_conf(s->doc, &s->fw, d) != SIM_OK)
		rc = SIM_ECONF;
	if (rc != SIM_OK)
		return rc;
	memcpy(s->name, head.name, sizeof s->name);
	memcpy(s->description, head.description, sizeof s->description);
	s->seed = (uint64_t)head.seed;
	s->engine = e.e;
	s->engine.flash_impl = e.flash;
	s->tp = c.tp;
	s->pp = c.pp;
	s->replicas = c.replicas;
	s->weights = (serve_weights)c.weights;
	static const hw_dtype kv_dtype[] = {HW_BF16, HW_BF16, HW_FP16, HW_FP8, HW_INT8};
	s->kv_dtype = kv_dtype[c.kv];
	if (c.kv == 0)
		s->kv_dtype = s->weights == SERVE_W_FP8 ? HW_FP8
			      : s->weights == SERVE_W_FP16 ? HW_FP16 : HW_BF16;
	s->batching = (serve_batching)c.batching;
	s->max_batch = c.max_batch;
	s->max_tokens = c.max_tokens;
	s->arrivals = (serve_arrivals)c.arrivals;
	s->rate = c.rate;
	s->burstiness = c.burst;
	s->concurrency = c.concurrency;
	s->requests = c.requests;
	s->prompt_tokens = c.prompt;
	s->output_tokens = c.output;
	s->prompt_dist = (serve_len_dist)c.prompt_dist;
	s->output_dist = (serve_len_dist)c.output_dist;
	s->route = (serve_route)c.route;
	s->preempt = (serve_preempt)c.preempt;
	s->slo_ttft_s = c.slo_ttft;
	s->slo_tpot_s = c.slo_tpot;
	s->swap_space_bytes = c.swap_space;
	memcpy(s->trace_path, c.trace, sizeof s->trace_path);
	/* the serving engine's kernels run back to back: the GPU-side gap is
	 * the engine's (its host side is charged per iteration, cost.c) */
	s->gpu.launch_s = s->engine.kernel_gap_s;
	s->gpu.framework_s = 0;
	/* the sustained clock as for training and inference steps (hw.h) */
	hw_step_clock(&s->gpu, s->weights == SERVE_W_FP8);
	return SIM_OK;
}

/* The plan, lengths and stream against the model and cluster. */
static int check(serve_scenario *s, sim_diag *d)
{
	int bad = sim_diag_error_count(d);
	const work_model *m = &s->model;
	if (m->moe_experts > 0) {
		conf_loc loc = conf_key_loc(s->doc, "model", "moe_experts");
		sim_diag_error(d, loc.path, loc.line,
			       "serving a mixture-of-experts model (moe_experts = %d) is not modelled "
			       "yet: the cost model has dense layers only",
			       m->moe_experts);
	}
	if (m->heads % s->tp)
		err_at(s, "tp", d, "tp = %d does not divide the model's %d attention heads", s->tp,
		       m->heads);
	if (s->tp > s->cluster.node.gpus)
		err_at(s, "tp", d, "tp = %d is more than a node's %d GPUs (TP stays inside a node)",
		       s->tp, s->cluster.node.gpus);
	if (m->layers % s->pp)
		err_at(s, "pp", d, "pp = %d does not divide the model's %d layers", s->pp, m->layers);
	int per = s->tp * s->pp;
	if (s->replicas == 0)
		s->replicas = s->cluster.gpus / per;
	if (s->replicas < 1 || (double)s->replicas * per > s->cluster.gpus)
		err_at(s, s->replicas ? "replicas" : "tp", d,
		       "%d replicas of %d GPUs do not fit the cluster's %d GPUs",
		       s->replicas ? s->replicas : 1, per, s->cluster.gpus);
	if (s->weights == SERVE_W_FP8 && !(s->gpu.peak_flops[HW_FP8] > 0))
		err_at(s, "weights", d, "weights = fp8 needs fp8 tensor cores, which %s lacks",
		       s->gpu.name);
	if ((s->arrivals == SERVE_POISSON || s->arrivals == SERVE_GAMMA) && !(s->rate > 0))
		err_at(s, "rate", d, "rate = %g requests/s: a %s stream needs a rate > 0", s->rate,
		       s->arrivals == SERVE_GAMMA ? "gamma" : "Poisson");
	if (s->arrivals != SERVE_TRACE) {
		int pin = serve_len_max(s->prompt_dist, s->prompt_tokens);
		int pout = serve_len_max(s->output_dist, s->output_tokens);
		if ((double)pin + pout > m->seq_len)
			err_at(s, "prompt_tokens", d,
			       "prompts and outputs reach %d tokens, past the model's context of %d "
			       "(seq_len)",
			       pin + pout, m->seq_len);
	} else if (!s->trace_path[0]) {
		err_at(s, "arrivals", d, "arrivals = trace needs a trace file (trace = PATH)");
	}
	if (s->batching == SERVE_CHUNKED && s->max_tokens < s->max_batch)
		err_at(s, "max_tokens", d,
		       "max_tokens = %d is below max_batch = %d: chunked prefill needs a token "
		       "per decoding request",
		       s->max_tokens, s->max_batch);
	return sim_diag_error_count(d) > bad ? SIM_ECONF : SIM_OK;
}

/* The KV cache must hold the longest request of the stream (its prompt and
 * output), else nothing could ever run it: an error at [serve]. */
static int check_memory(serve_scenario *s, sim_diag *d)
{
	serve_memory mem;
	serve_memory_of(s, &mem);
	int need = 0;
	if (s->arrivals == SERVE_TRACE) {
		for (int i = 0; i < s->requests; i++)
			if (s->trace_in[i] + s->trace_out[i] > need)
				need = s->trace_in[i] + s->trace_out[i];
	} else {
		need = serve_len_max(s->prompt_dist, s->prompt_tokens) +
		       serve_len_max(s->output_dist, s->output_tokens);
	}
	int maxp = s->arrivals == SERVE_TRACE ? 0 : serve_len_max(s->prompt_dist, s->prompt_tokens);
	for (int i = 0; s->arrivals == SERVE_TRACE && i < s->requests; i++)
		maxp = s->trace_in[i] > maxp ? s->trace_in[i] : maxp;
	if (s->batching == SERVE_STATIC && (double)s->max_batch * (maxp + 1) > 1e9) {
		conf_loc loc = conf_key_loc(s->doc, "serve", "max_batch");
		sim_diag_error(d, loc.path, loc.line,
			       "max_batch = %d requests of up to %d prompt tokens: a static batch's "
			       "prefill of over 10^9 tokens",
			       s->max_batch, maxp);
		return SIM_ECONF;
	}
	if (s->batching == SERVE_CONTINUOUS && s->max_tokens < maxp) {
		conf_loc loc = conf_key_loc(s->doc, "serve", "max_tokens");
		sim_diag_error(d, loc.path, loc.line,
			       "max_tokens = %d is below the longest prompt (%d tokens): continuous "
			       "batching runs whole prompts (vLLM requires max_num_batched_tokens >= "
			       "max_model_len without chunked prefill); raise it or use batching = "
			       "chunked",
			       s->max_tokens, maxp);
		return SIM_ECONF;
	}
	int64_t blocks = ((int64_t)need + s->engine.block_tokens - 1) / s->engine.block_tokens;
	if (mem.kv_blocks >= blocks)
		return SIM_OK;
	conf_loc loc = conf_section_loc(s->doc, "serve");
	sim_diag_error(d, loc.path, loc.line,
		       "the KV cache cannot hold one request of %d tokens: %.2f GiB per GPU left for "
		       "it after %.2f GiB of weights, %.2f GiB of activations and %.2f GiB reserved "
		       "(%lld blocks of %d tokens, %lld needed)",
		       need, mem.kv_bytes / 1073741824.0, mem.weights_bytes / 1073741824.0,
		       mem.activation_bytes / 1073741824.0, mem.reserve_bytes / 1073741824.0,
		       (long long)(mem.kv_blocks > 0 ? mem.kv_blocks : 0), s->engine.block_tokens,
		       (long long)blocks);
	return SIM_ECONF;
}

static int finish(serve_scenario *s, int rc, sim_diag *d, serve_scenario **out)
{
	if (rc == SIM_OK)
		rc = read_sections(s, d);
	if (rc == SIM_OK)
		rc = check(s, d);
	if (rc == SIM_OK && s->arrivals == SERVE_TRACE)
		rc = serve_trace_load(s, d);
	if (rc == SIM_OK)
		rc = check_memory(s, d);
	if (rc != SIM_OK) {
		serve_scenario_free(s);
		return rc;
	}
	*out = s;
	return SIM_OK;
}

int serve_scenario_load(const char *path, const char *const *overrides, size_t noverrides,
			sim_diag *diag, serve_scenario **out)
{
	*out = NULL;
	serve_scenario *s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	int rc = conf_load_set(path, overrides, noverrides, diag, &s->doc);
	return finish(s, rc, diag, out);
}

int serve_scenario_load_string(const char *text, const char *name, const char *base_dir,
			       sim_diag *diag, serve_scenario **out)
{
	*out = NULL;
	serve_scenario *s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	int rc = conf_load_string(text, strlen(text), name, base_dir, diag, &s->doc);
	return finish(s, rc, diag, out);
}

void serve_scenario_free(serve_scenario *s)
{
	if (!s)
		return;
	conf_free(s->doc);
	free(s->trace_t);
	free(s->trace_in);
	free(s->trace_out);
	free(s);
}
