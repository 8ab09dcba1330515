/* serve.h - inference serving as a workload: a stream of requests served by
 * replicas of a model, each replica a TP x PP group of GPUs running an
 * iteration-level scheduler (static batching, continuous batching as vLLM and
 * TensorRT-LLM's in-flight batching, or chunked prefill with a token budget as
 * Sarathi-Serve) over a paged KV cache.
 *
 * The same GPU, network and model descriptions as training: [model] (work),
 * [gpu] (hw), [node] and [cluster] (net); a serving scenario has a [serve]
 * section instead of [parallel] and [train], and an [engine] section, the
 * serving framework's profile (topologies/serving/NAME.ini: what the engine does,
 * cited). Every iteration's time comes from hw's kernel model (GEMMs on the
 * iteration's tokens, fused attention over prefill chunks and over the
 * decoding requests' KV cache) and net's collective model (the TP
 * all-reduces), plus the engine's per-kernel and per-iteration costs
 * (cost.c). The KV cache's capacity comes from the memory left after the
 * weights, the activation workspace and the engine's reserve (cost.c).
 *
 * Units: seconds and bytes at the API; sim_time picoseconds inside the event
 * loop (engine.c). Deterministic: the seed fixes every draw.
 *
 * Who calls it: cli (podsim serve, podsim run on a file with [serve],
 * podsim validate on a serving case file).
 */
#ifndef PODSIM_SERVE_H
#define PODSIM_SERVE_H

#include "../store/store.h"

typedef enum { SERVE_STATIC = 0, SERVE_CONTINUOUS, SERVE_CHUNKED } serve_batching;
typedef enum { SERVE_POISSON = 0, SERVE_CLOSED, SERVE_OFFLINE, SERVE_TRACE, SERVE_GAMMA } serve_arrivals;
typedef enum { SERVE_LEN_FIXED = 0, SERVE_LEN_UNIFORM, SERVE_LEN_EXPONENTIAL } serve_len_dist;
typedef enum { SERVE_ROUTE_RR = 0, SERVE_ROUTE_LEAST } serve_route;
/* When KV blocks run out: recompute the preempted request's prefill later,
 * or swap its blocks to host memory over PCIe and back (vLLM's two modes). */
typedef enum { SERVE_RECOMPUTE = 0, SERVE_SWAP } serve_preempt;
/* Weight precision: 16-bit, fp8 (weights and activations, fp8 GEMMs), or
 * weight-only int8/int4 (16-bit GEMMs whose weight operand is read at 1 or
 * 0.5 bytes and dequantised in the kernel). */
typedef enum {
	SERVE_W_BF16 = 0,
	SERVE_W_FP16,
	SERVE_W_FP8,
	SERVE_W_INT8,
	SERVE_W_INT4
} serve_weights;

/* The serving framework's profile ([engine], topologies/serving/NAME.ini). */
typedef struct serve_engine {
	char name[CONF_STR_MAX];
	char source[CONF_STR_MAX];
	bool cuda_graphs;         /* decode-only iterations replay a captured graph */
	double kernel_gap_s;      /* GPU time between back-to-back kernels (hw launch_s) */
	double host_launch_s;     /* host time to enqueue one kernel outside a graph */
	double graph_launch_s;    /* host time to launch one captured graph */
	double iteration_s;       /* host time per iteration: scheduling, sampling, output */
	double request_setup_s;   /* host time of an iteration that starts new requests:
				   * the runtime's per-call setup and the first token's
				   * hand-back (cost.c) */
	int elementwise_kernels;  /* memory-bound kernels per layer (norms, RoPE, act, adds) */
	double memory_fraction;   /* share of the memory left after weights, activations
				   * and reserve that becomes KV cache */
	double reserve_bytes;     /* CUDA context, NCCL, workspaces */
	int block_tokens;         /* tokens per KV block (paged attention) */
	int flash_impl;           /* hw_flash_impl of its attention kernels */
	bool kv_per_query_head;   /* the decode attention kernel reads each KV head once
				   * per query head (no GQA sharing), not once per group */
} serve_engine;

/* Everything a serving run needs, loaded and checked. */
typedef struct serve_scenario {
	conf_doc *doc;
	char name[CONF_STR_MAX];
	char description[CONF_STR_MAX];
	uint64_t seed;
	work_model model;
	hw_gpu gpu; /* with the engine's kernel gap as launch_s */
	net_cluster cluster;
	serve_engine engine;
	plan_framework fw; /* [framework] defaults: the CUDA context, NCCL and
			    * workspace bytes of plan's memory model */
	int tp, pp, replicas;
	serve_weights weights;
	hw_dtype kv_dtype;
	serve_batching batching;
	int max_batch;  /* requests in one iteration (max_num_seqs) */
	int max_tokens; /* tokens per iteration (max_num_batched_tokens; chunked: the budget) */
	serve_arrivals arrivals;
	double rate;      /* requests/s (Poisson, gamma) */
	double burstiness; /* gamma: coefficient of variation of the gaps (1 = Poisson) */
	int concurrency;  /* closed loop: requests kept in flight */
	int requests;     /* requests in the run (trace: its rows) */
	int prompt_tokens, output_tokens;
	serve_len_dist prompt_dist, output_dist;
	serve_route route;
	serve_preempt preempt;
	double slo_ttft_s, slo_tpot_s;
	double swap_space_bytes; /* host memory per GPU for swapped KV (preemption = swap) */
	char trace_path[CONF_STR_MAX];
	/* trace arrivals: times (s) and lengths, `requests` of each */
	double *trace_t;
	int *trace_in, *trace_out;
} serve_scenario;

extern const conf_key serve_keys[]; /* [serve] */
extern const size_t serve_nkeys;
extern const conf_key serve_engine_keys[]; /* [engine] */
extern const size_t serve_engine_nkeys;

/* Whether the scenario file at path (with overrides) has a [serve] section:
 * `podsim run` dispatches on it. Errors loading the file are left for the
 * real load to report (false). */
bool serve_is_serving(const char *path);

/* Load and check a serving scenario (file or text). Errors as file:line in
 * diag, *out NULL and SIM_ECONF; SIM_ENOMEM. */
int serve_scenario_load(const char *path, const char *const *overrides, size_t noverrides,
			sim_diag *diag, serve_scenario **out);
int serve_scenario_load_string(const char *text, const char *name, const char *base_dir,
			       sim_diag *diag, serve_scenario **out);
void serve_scenario_free(serve_scenario *s);

/* ---------------------------------------------------------- the cost model */

/* Per-GPU memory of one replica (cost.c). */
typedef struct serve_memory {
	double weights_bytes;      /* the stage's parameters at the weight precision */
	double activation_bytes;   /* workspace of the largest iteration */
	double reserve_bytes;      /* the engine's */
	double kv_bytes;           /* KV cache: memory_fraction x what is left */
	double kv_token_bytes;     /* per token per GPU: 2 x layers/pp x kv heads/tp x d x e */
	int64_t kv_blocks;         /* kv_bytes / (block_tokens x kv_token_bytes) */
} serve_memory;

/* KV-cache bytes per token of the whole model (all GPUs of a replica):
 * 2 (K and V) x layers x kv_heads x head_dim x bytes per element. */
double serve_kv_bytes_per_token(const work_model *m, hw_dtype kv);
void serve_memory_of(const serve_scenario *s, serve_memory *out);

/* One iteration's batch as the cost model sees it: the decoding requests
 * (one token each, `decode_ctx` KV tokens summed over them) and the prefill
 * chunks (`prefill_tokens` new tokens summed, `prefill_attn` = sum over
 * chunks of chunk x (context before it + chunk / 2), the causal attention
 * work in query-key pairs), and how many sequences emit a token. */
typedef struct serve_batch {
	int decodes;
	double decode_ctx;
	int prefill_tokens;
	int prefills;
	int starts; /* requests whose prefill begins in this iteration */
	double prefill_attn;
	int samples;
} serve_batch;

/* The cost model with per-token-count tables filled on first use (so a run
 * of 100k requests calls hw once per distinct token count). */
typedef struct serve_cost serve_cost;
int serve_cost_new(const serve_scenario *s, serve_cost **out);
void serve_cost_free(serve_cost *c);
/* Seconds of one iteration on one replica (all its pp stages in turn). */
double serve_iteration_s(serve_cost *c, const serve_batch *b);
/* Its parts, for explain and tests: GEMMs, attention, element-wise, TP
 * all-reduces, the head (logits), and the engine's overheads. */
typedef struct serve_iter_parts {
	double gemm_s, attn_s, elementwise_s, allreduce_s, head_s, overhead_s, setup_s, host_s,
	    total_s;
} serve_iter_parts;
void serve_iteration_parts(serve_cost *c, const serve_batch *b, serve_iter_parts *out);

/* ------------------------------------------------------------- a run ---- */

typedef struct serve_stat {
	double mean, p50, p90, p99, max;
} serve_stat;

typedef struct serve_result {
	char name[CONF_STR_MAX];
	char label[CONF_STR_MAX]; /* "trtllm tp4 x8 continuous fp8" */
	char gpu[CONF_STR_MAX];
	char model[CONF_STR_MAX];
	int gpus;        /* replicas x tp x pp */
	int64_t requests, completed, preemptions, iterations;
	double swapped_bytes; /* KV bytes per GPU moved over PCIe by swaps, both ways */
	int64_t prompt_tokens, output_tokens;
	double makespan_s; /* first arrival to last completion */
	serve_stat ttft, tpot, e2e; /* seconds */
	double cdf[3][101]; /* TTFT, TPOT, E2E: the q-th percentile for q = 0..100 (s) */
	double req_per_s, out_tok_per_s, out_tok_per_s_gpu;
	double goodput_req_per_s, slo_met; /* requests meeting both SLOs, and their share */
	double slo_ttft_s, slo_tpot_s;
	double kv_mean, kv_peak;     /* KV blocks in use over capacity, time-weighted, max */
	/* Cost and energy per output token: the replicas' GPU-hours at
	 * [cluster] gpu_hour_price (NaN when 0 = unknown) per million output
	 * tokens; joules per output token with every GPU at its TDP plus its
	 * share of the node's other power, times the PUE (an upper bound: a
	 * decode-bound GPU draws less than its TDP). */
	double usd_per_mtok, joule_per_tok;
	double batch_mean, queue_mean; /* running and waiting requests, time-weighted */
	serve_memory mem;
	double wall_s;
} serve_result;

/* Simulate the scenario's request stream. SIM_OK; SIM_ECONF when a request
 * can never run (its KV does not fit the cache: diag says where);
 * SIM_ENOMEM. */
int serve_run(const serve_scenario *s, serve_result *out, sim_diag *diag);
/* The same, writing the run as a Chrome/Perfetto trace to `trace` (when not
 * NULL): one process per replica, each iteration a slice (its decodes,
 * prefill tokens and batch in args), and counters of KV blocks in use,
 * running and waiting requests at each iteration's start. Times in us. */
int serve_run_trace(const serve_scenario *s, serve_result *out, FILE *trace, sim_diag *diag);
/* Progress of a long run: fn(done, total, ctx) every 1,000 finished requests
 * and at the last (the cli's progress line on a terminal). trace as above,
 * NULL for none; fn NULL for no progress. */
typedef void (*serve_progress_fn)(int done, int total, void *ctx);
int serve_run_progress(const serve_scenario *s, serve_result *out, FILE *trace,
                       serve_progress_fn fn, void *ctx, sim_diag *diag);

void serve_print_text(FILE *out, const serve_result *r, int64_t id);
void serve_print_json(FILE *out, const serve_result *r, int64_t id);
/* Store a run (store_put_serve) with the resolved scenario text. */
int serve_store(store *db, const serve_scenario *s, const serve_result *r, int64_t *id,
		sim_diag *diag);

/* A stored run (store_get_serve) as a result for serve_print_text/json
 * (save.c): the stored figures; what the store does not keep is derived
 * from the stored scenario text when it still loads (the memory pieces:
 * activations, reserve, KV bytes per token; cost and energy per token),
 * else left 0 / unknown (NaN); swapped bytes and the CDFs are not stored (0).
 * Returns whether the scenario text loaded. */
bool serve_result_of_stored(const store_serve_run *row, const char *text, serve_result *out);

/* podsim explain on a serving scenario (explain.c): KV bytes per token, the
 * memory and the largest batch that fits, the roofline of prefill and
 * decode against the ridge point, the closed-form decode step and prefill
 * beside the cost model's. */
void serve_explain(FILE *out, const serve_scenario *s);

/* Capacity planning (capacity.c): for every plan of the space the --vary
 * dimensions span ("section.key=a,b,c", applied after `sets`), the highest
 * Poisson rate at which a share `target` of requests meets the scenario's
 * SLO, its output tokens/s and GPU-hours (USD with a GPU-hour price) per
 * million output tokens; ranked cheapest first, refused plans listed with
 * the loader's reason. SIM_OK, SIM_ECONF (a malformed dimension), SIM_ENOMEM. */
int serve_capacity(const char *path, const char *const *sets, size_t nsets,
		   const char *const *vary, size_t nvary, double target, FILE *out, sim_diag *d);

/* An HTML page of a run (html.c): the headline numbers, the latency CDFs,
 * and the throughput-latency curve of the scenario rerun as a Poisson
 * stream at rising rates until it saturates (each point a full simulation).
 * SIM_OK or SIM_ENOMEM. */
int serve_html(FILE *out, const serve_scenario *s, const serve_result *r);

/* ---------------------------------------------------------- validation -- */

/* Whether a case file is a serving one (its header has 'batching' and
 * 'engine' columns). */
bool serve_cases_is_serving(const char *path);
/* podsim validate on a serving case file (tests/cases/serving.csv): each row
 * becomes a serving scenario on the shipped GPU, node and engine files, is
 * run, and the row's metric compared; prints rows and MAPE per source and
 * metric. `only` filters ids by prefix; `scenario` (non-NULL) prints that
 * row's scenario text and stops. Returns SIM_OK, SIM_ECONF (diag). */
int serve_validate(const char *csv, const char *datadir, const char *only, const char *scenario,
		   bool json, bool all_rows, double *mape_out, FILE *out, sim_diag *diag);

#endif
