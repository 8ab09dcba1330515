/* test_serve.c - the serving workload (sim/serve): closed forms of the cost
 * and memory model, Little's law on a closed loop, static batching's
 * iteration count, preemption by recompute, determinism by seed, the store's
 * serving tables, and bad input at its file:line. Scenarios use the shipped
 * node, model and engine files (run from the source root). */
#include "../../sim/serve/serve_int.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Llama 2 7B (32 heads, no GQA) on one DGX H100 node, 1 replica of TP1. */
static const char base[] =
	"include = models/llama2-7b.ini\n"
	"include = topologies/nodes/dgx-h100.ini\n"
	"include = topologies/serving/trtllm.ini\n"
	"[scenario]\nname = t\nseed = 7\n"
	"[cluster]\nname = one\nnodes = 1\n";

static serve_scenario *load(const char *serve, sim_diag *d)
{
	char text[4096];
	snprintf(text, sizeof text, "%s[serve]\n%s", base, serve);
	serve_scenario *s = NULL;
	int rc = serve_scenario_load_string(text, "<test>", ".", d, &s);
	if (rc != SIM_OK)
		sim_diag_print(d, stderr);
	return s;
}

/* KV bytes per token = 2 x layers x kv_heads x head_dim x bytes:
 * Llama 2 70B (80 layers, 8 KV heads of 128) in fp16: 2 * 80 * 8 * 128 * 2 =
 * 327,680 B (320 KiB); fp8 half of it. Llama 2 7B (32 layers, 32 heads of
 * 128): 2 * 32 * 32 * 128 * 2 = 524,288 B. */
static void test_kv_bytes(void)
{
	work_model m = {.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8};
	CHECK_NEAR(serve_kv_bytes_per_token(&m, HW_FP16), 327680, 1e-12);
	CHECK_NEAR(serve_kv_bytes_per_token(&m, HW_FP8), 163840, 1e-12);
	work_model s7 = {.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32};
	CHECK_NEAR(serve_kv_bytes_per_token(&s7, HW_BF16), 524288, 1e-12);
}

/* Decode at batch 1 is bound by reading the weights: Llama 2 7B's layer
 * matmuls hold 4 h^2 + 3 h f = 4 * 4096^2 + 3 * 4096 * 11008 = 202,375,168
 * parameters, 404.75 MB in bf16, x 32 layers = 12.952 GB; at the H100's
 * 3350 GB/s x hbm_efficiency 0.90 = 3015 GB/s that is 4.296 ms. The GEMMs'
 * time must sit just above it (tile overheads and kernel gaps: within 8 %),
 * and the whole step (attention over one token, element-wise kernels, the
 * logits GEMM 4096 x 32000 = 262 MB more, the engine's overhead) within
 * 15 % of weights / bandwidth. Per-GPU memory: the layers' 6.476 GB + the
 * embedding and head (2 x 32000 x 4096 x 2 B = 0.524 GB) = 7.0 GB. */
static void test_decode_floor(void)
{
	sim_diag *d = sim_diag_new();
	serve_scenario *s = load("weights = bf16\nprompt_tokens = 128\noutput_tokens = 128\n", d);
	CHECK(s != NULL);
	if (!s) {
		sim_diag_free(d);
		return;
	}
	double layer = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008;
	double bytes = 32 * layer * 2, bw = s->gpu.hbm_Bps * s->gpu.hbm_eff;
	CHECK_NEAR(bytes / bw, 4.296e-3, 0.002);
	serve_cost *c;
	CHECK_INT(serve_cost_new(s, &c), SIM_OK);
	serve_batch b = {.decodes = 1, .decode_ctx = 129, .samples = 1};
	serve_iter_parts p;
	serve_iteration_parts(c, &b, &p);
	CHECK(p.gemm_s >= bytes / bw);
	CHECK(p.gemm_s <= 1.08 * bytes / bw);
	double head = 4096.0 * 32000 * 2 / bw;
	CHECK(p.total_s >= (bytes + 4096.0 * 32000 * 2) / bw);
	CHECK(p.total_s <= 1.15 * (bytes / bw + head));
	/* 8 decodes cost about the same: the weights are read once */
	serve_batch b8 = {.decodes = 8, .decode_ctx = 8 * 129, .samples = 8};
	CHECK(serve_iteration_s(c, &b8) < 1.05 * serve_iteration_s(c, &b));
	serve_memory mem;
	serve_memory_of(s, &mem);
	CHECK_NEAR(mem.weights_bytes, 32 * layer * 2 + 2.0 * 32000 * 4096 * 2, 0.01);
	CHECK_NEAR(mem.kv_token_bytes, 524288, 1e-12);
	serve_cost_free(c);
	serve_scenario_free(s);
	sim_diag_free(d);
}

/* Little's law on a closed loop of N clients with no think time: requests in
 * flight = N at every moment but the drain at the end, so throughput x mean
 * end-to-end latency = N (the last N requests finish with fewer in flight:
 * 600 requests make that tail about 2 %; tolerance 5 %). */
static void test_little(void)
{
	sim_diag *d = sim_diag_new();
	serve_scenario *s = load("arrivals = closed\nconcurrency = 12\nrequests = 600\n"
				 "prompt_tokens = 256\noutput_tokens = 64\nprompt_dist = uniform\n"
				 "output_dist = uniform\n",
				 d);
	serve_result r;
	CHECK(s && serve_run(s, &r, d) == SIM_OK);
	if (s) {
		CHECK_INT(r.completed, 600);
		CHECK_NEAR(r.req_per_s * r.e2e.mean, 12, 0.05);
		CHECK(r.ttft.p50 <= r.ttft.p90 && r.ttft.p90 <= r.ttft.p99 && r.ttft.p99 <= r.ttft.max);
		CHECK(r.e2e.mean > r.ttft.mean);
	}
	serve_scenario_free(s);
	sim_diag_free(d);
}

/* Static batching of B requests with fixed lengths in and out takes one
 * prefill iteration and out - 1 decode iterations; the whole batch's first
 * tokens come out together (TTFT the same for all), and every request ends
 * at the last iteration. */
static void test_static(void)
{
	sim_diag *d = sim_diag_new();
	serve_scenario *s = load("batching = static\narrivals = offline\nrequests = 32\nreplicas = 1\n"
				 "max_batch = 32\nprompt_tokens = 100\noutput_tokens = 50\n",
				 d);
	serve_result r;
	CHECK(s && serve_run(s, &r, d) == SIM_OK);
	if (s) {
		CHECK_INT(r.iterations, 50);
		CHECK_INT(r.output_tokens, 32 * 50);
		CHECK_NEAR(r.ttft.p50, r.ttft.max, 1e-12);
		CHECK_NEAR(r.e2e.p50, r.makespan_s, 1e-12);
		CHECK_INT(r.preemptions, 0);
	}
	serve_scenario_free(s);
	sim_diag_free(d);
}

/* The engine's request_setup is host time paid by an iteration that starts
 * new requests, once per such iteration: a static batch of 8 pays it once
 * (TTFT and makespan both 3 ms longer, nothing else changes); one prompt of
 * 1,000 tokens prefilled in chunks of 256 (4 iterations) pays it once, on
 * its first chunk; TTFT is its prefill iterations, so exactly 3 ms more. */
static void test_request_setup(void)
{
	static const char *const runs[] = {
		"batching = static\narrivals = offline\nrequests = 8\nreplicas = 1\n"
		"max_batch = 8\nprompt_tokens = 128\noutput_tokens = 16\n",
		"batching = chunked\narrivals = offline\nrequests = 1\nreplicas = 1\n"
		"max_tokens = 256\nprompt_tokens = 1000\noutput_tokens = 16\n",
	};
	for (int k = 0; k < 2; k++) {
		char with[1024];
		snprintf(with, sizeof with, "%s[engine]\nrequest_setup = 3 ms\n", runs[k]);
		sim_diag *d = sim_diag_new();
		serve_scenario *s0 = load(runs[k], d), *s1 = load(with, d);
		serve_result r0, r1;
		CHECK(s0 && s1 && serve_run(s0, &r0, d) == SIM_OK && serve_run(s1, &r1, d) == SIM_OK);
		if (s0 && s1) {
			CHECK_NEAR(s1->engine.request_setup_s, 3e-3, 1e-12);
			CHECK_NEAR(r1.makespan_s - r0.makespan_s, 3e-3, 1e-6);
			CHECK_NEAR(r1.ttft.mean - r0.ttft.mean, 3e-3, 1e-6);
			CHECK_INT(r1.iterations, r0.iterations);
		}
		serve_scenario_free(s0);
		serve_scenario_free(s1);
		sim_diag_free(d);
	}
}

/* Host swap space: with swap_space = 0 no swap fits, every preemption
 * recomputes, and the run is the recompute run exactly (same makespan,
 * preemptions, nothing swapped); with 600 MiB per GPU a preempted request
 * (1,000 prompt tokens plus those generated, 512 KiB each, in blocks of
 * 16 tokens = 8 MiB) fits only while its KV is at most 75 blocks (1,200
 * tokens), so it swaps some and recomputes the others: fewer bytes swapped
 * than with unlimited space (1 PB), and every swapped block comes back (a
 * multiple of 2 x 8 MiB). */
static void test_swap_space(void)
{
	static const char fmt[] =
		"batching = continuous\narrivals = offline\nrequests = 200\nprompt_tokens = 1000\n"
		"output_tokens = 1000\nmax_tokens = 4096\npreemption = %s\nswap_space = %s\n"
		"[engine]\nmemory_fraction = 0.05\nblock_tokens = 16\n";
	const char *modes[4][2] = {{"recompute", "4 GiB"}, {"swap", "0 GiB"}, {"swap", "600 MiB"},
				   {"swap", "1 PB"}};
	serve_result r[4];
	sim_diag *d = sim_diag_new();
	bool ok = true;
	for (int k = 0; k < 4; k++) {
		char txt[512];
		snprintf(txt, sizeof txt, fmt, modes[k][0], modes[k][1]);
		serve_scenario *s = load(txt, d);
		ok = ok && s && serve_run(s, &r[k], d) == SIM_OK;
		serve_scenario_free(s);
	}
	CHECK(ok);
	if (ok) {
		CHECK(r[0].preemptions > 0);
		CHECK_INT(r[1].preemptions, r[0].preemptions);
		CHECK_NEAR(r[1].makespan_s, r[0].makespan_s, 1e-12);
		CHECK(r[1].swapped_bytes == 0);
		CHECK(r[2].swapped_bytes > 0 && r[2].swapped_bytes < r[3].swapped_bytes);
		CHECK_NEAR(fmod(r[2].swapped_bytes, 2 * 16.0 * 524288), 0, 1e-9);
		for (int k = 0; k < 4; k++)
			CHECK_INT(r[k].completed, 200);
	}
	sim_diag_free(d);
}

/* A KV cache too small for the offered batch: continuous batching preempts
 * (recompute) and still completes everything; chunked prefill as well; and
 * with swapping, every swapped block goes out and comes back (bytes moved =
 * 2 x a multiple of one block's 16 x 512 KiB = 8 MiB). */
static void test_preemption(void)
{
	sim_diag *d = sim_diag_new();
	const char *modes[] = {"continuous", "chunked", "continuous"};
	for (int k = 0; k < 3; k++) {
		char txt[512];
		snprintf(txt, sizeof txt,
			 "batching = %s\narrivals = offline\nrequests = 200\nprompt_tokens = 1000\n"
			 "output_tokens = 1000\nmax_tokens = 4096\npreemption = %s\n[engine]\n"
			 "memory_fraction = 0.05\nblock_tokens = 16\n",
			 modes[k], k == 2 ? "swap" : "recompute");
		serve_scenario *s = load(txt, d);
		serve_result r;
		CHECK(s && serve_run(s, &r, d) == SIM_OK);
		if (s) {
			CHECK_INT(r.completed, 200);
			CHECK(r.preemptions > 0);
			CHECK(r.kv_peak <= 1.0 && r.kv_peak > 0.9);
			CHECK_INT(r.output_tokens, 200 * 1000);
			double block = 16.0 * 524288;
			CHECK(k < 2 ? r.swapped_bytes == 0 : r.swapped_bytes > 0);
			CHECK_NEAR(fmod(r.swapped_bytes, 2 * block), 0, 1e-9);
		}
		serve_scenario_free(s);
	}
	/* chunks of long prompts with a cache of about two requests: partial
	 * prefills preempt the newest request for blocks instead of stalling */
	serve_scenario *s = load("batching = chunked\narrivals = offline\nrequests = 100\n"
				 "prompt_tokens = 1000\noutput_tokens = 50\nmax_tokens = 2048\n"
				 "replicas = 1\n[engine]\nmemory_fraction = 0.02\nblock_tokens = 16\n",
				 d);
	serve_result r;
	CHECK(s && serve_run(s, &r, d) == SIM_OK);
	if (s) {
		CHECK_INT(r.completed, 100);
		CHECK(r.preemptions > 0);
	}
	serve_scenario_free(s);
	sim_diag_free(d);
}

/* Same seed, same run; another seed, another Poisson stream. */
static void test_determinism(void)
{
	sim_diag *d = sim_diag_new();
	const char *txt = "arrivals = poisson\nrate = 20\nrequests = 300\nprompt_dist = exponential\n"
			  "output_dist = exponential\nprompt_tokens = 300\noutput_tokens = 100\n";
	serve_scenario *a = load(txt, d), *b = load(txt, d);
	serve_result ra, rb;
	CHECK(a && b && serve_run(a, &ra, d) == SIM_OK && serve_run(b, &rb, d) == SIM_OK);
	if (a && b) {
		CHECK(ra.ttft.mean == rb.ttft.mean && ra.e2e.p99 == rb.e2e.p99);
		CHECK_INT(ra.iterations, rb.iterations);
		CHECK_INT(ra.prompt_tokens, rb.prompt_tokens);
		b->seed = 8;
		CHECK(serve_run(b, &rb, d) == SIM_OK);
		CHECK(ra.prompt_tokens != rb.prompt_tokens);
	}
	serve_scenario_free(a);
	serve_scenario_free(b);
	sim_diag_free(d);
}

/* Bad input: each an error at the key's line, nothing loaded. */
static void test_bad(void)
{
	struct {
		const char *serve, *want;
	} cases[] = {
		{"arrivals = poisson\nrate = 0\n",
		 "<test>:12: error: rate = 0 requests/s: a Poisson stream needs a rate > 0"},
		{"prompt_tokens = 4000\noutput_tokens = 200\n",
		 "<test>:11: error: prompts and outputs reach 4200 tokens, past the model's context "
		 "of 4096 (seq_len)"},
		{"tp = 3\n", "<test>:11: error: tp = 3 does not divide the model's 32 attention heads"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sim_diag *d = sim_diag_new();
		char text[4096];
		snprintf(text, sizeof text, "%s[serve]\n%s", base, cases[i].serve);
		serve_scenario *s = NULL;
		CHECK_INT(serve_scenario_load_string(text, "<test>", ".", d, &s), SIM_ECONF);
		CHECK(s == NULL);
		CHECK(sim_diag_count(d) >= 1);
		if (sim_diag_count(d) >= 1)
			CHECK_STR(sim_diag_text(d, 0), cases[i].want);
		sim_diag_free(d);
	}
}

/* The store keeps a serving run in its own tables, in one transaction. */
static void test_store(void)
{
	char dir[] = "/tmp/podsim-serve-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(false);
		return;
	}
	char path[256];
	snprintf(path, sizeof path, "%s/runs.db", dir);
	sim_diag *d = sim_diag_new();
	serve_scenario *s = load("requests = 50\nrate = 10\n", d);
	serve_result r;
	store *db = NULL;
	int64_t id = 0;
	CHECK(s && serve_run(s, &r, d) == SIM_OK);
	CHECK_INT(store_open(path, &db, d), SIM_OK);
	if (s && db) {
		CHECK_INT(serve_store(db, s, &r, &id, d), SIM_OK);
		CHECK_INT(id, 1);
	}
	uint64_t h1 = 0, h2 = 0;
	if (db) {
		CHECK_INT(store_digest(db, &h1, d), SIM_OK);
		CHECK_INT(serve_store(db, s, &r, &id, d), SIM_OK);
		CHECK_INT(store_digest(db, &h2, d), SIM_OK);
		CHECK(h1 != h2);
	}
	store_close(db);
	serve_scenario_free(s);
	sim_diag_free(d);
	remove(path);
	char aux[300];
	snprintf(aux, sizeof aux, "%s-wal", path);
	remove(aux);
	snprintf(aux, sizeof aux, "%s-shm", path);
	remove(aux);
	rmdir(dir);
}

/* Gamma variates: shape k has mean k and variance k, so gaps of
 * gamma(k) / (k rate) have mean 1/rate and coefficient of variation
 * 1/sqrt(k); 200,000 draws pin the mean within 1 % and the CV within 2 %
 * (standard errors about 0.2-0.5 %). */
static void test_gamma(void)
{
	const double ks[] = {0.25, 1, 4};
	for (int i = 0; i < 3; i++) {
		sim_rng *r = sim_rng_new(3);
		double sum = 0, sq = 0, n = 200000;
		for (int j = 0; j < (int)n; j++) {
			double x = serve_gamma_draw(r, ks[i]);
			sum += x;
			sq += x * x;
		}
		double mean = sum / n, var = sq / n - mean * mean;
		CHECK_NEAR(mean, ks[i], 0.01);
		CHECK_NEAR(sqrt(var) / mean, 1 / sqrt(ks[i]), 0.02);
		sim_rng_free(r);
	}
}

/* A trace: requests arrive at its times with its lengths; the first
 * request's TTFT at an idle replica is one prefill iteration, and the
 * prompt and output token counts are the trace's sums. */
static void test_trace(void)
{
	char path[] = "/tmp/podsim-trace-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("arrival_s,prompt_tokens,output_tokens\n0.0,100,10\n0.5,200,20\n0.5,50,5\n", f);
	fclose(f);
	char txt[512];
	snprintf(txt, sizeof txt, "arrivals = trace\nreplicas = 1\ntrace = %s\n", path);
	sim_diag *d = sim_diag_new();
	serve_scenario *s = load(txt, d);
	serve_result r;
	CHECK(s && serve_run(s, &r, d) == SIM_OK);
	if (s) {
		CHECK_INT(r.requests, 3);
		CHECK_INT(r.prompt_tokens, 350);
		CHECK_INT(r.output_tokens, 35);
		serve_cost *c;
		CHECK_INT(serve_cost_new(s, &c), SIM_OK);
		serve_batch b = {.prefill_tokens = 100, .prefills = 1, .prefill_attn = 5000, .samples = 1};
		/* the first request's prefill ends before the others arrive */
		CHECK(r.ttft.max >= serve_iteration_s(c, &b));
		CHECK(r.makespan_s > 0.5);
		serve_cost_free(c);
	}
	serve_scenario_free(s);
	sim_diag_free(d);
	remove(path);
}

/* Chunked prefill under load keeps decodes going beside long prompts: its
 * p99 time per output token is below continuous batching's, where a whole
 * prompt of up to 3,000 tokens joins an iteration of decodes (Sarathi-Serve's
 * point); and continuous batching refuses a budget below the longest prompt. */
static void test_chunked(void)
{
	sim_diag *d = sim_diag_new();
	double p99[2];
	const char *modes[] = {"continuous", "chunked"};
	for (int k = 0; k < 2; k++) {
		char txt[512];
		snprintf(txt, sizeof txt,
			 "batching = %s\nreplicas = 1\narrivals = poisson\nrate = 3\nrequests = 300\n"
			 "prompt_tokens = 2000\nprompt_dist = uniform\noutput_tokens = 200\n"
			 "max_tokens = %d\n",
			 modes[k], k ? 512 : 4096);
		serve_scenario *s = load(txt, d);
		serve_result r;
		CHECK(s && serve_run(s, &r, d) == SIM_OK);
		p99[k] = s ? r.tpot.p99 : 0;
		serve_scenario_free(s);
	}
	CHECK(p99[1] < p99[0]);
	CHECK(load("batching = continuous\nprompt_tokens = 2000\nmax_tokens = 1024\n", d) == NULL);
	CHECK(sim_diag_count(d) > 0 && strstr(sim_diag_text(d, sim_diag_count(d) - 1),
					      "max_tokens = 1024 is below the longest prompt (2000"));
	sim_diag_free(d);
}

int main(void)
{
	test_gamma();
	test_trace();
	test_chunked();
	test_kv_bytes();
	test_decode_floor();
	test_little();
	test_static();
	test_request_setup();
	test_swap_space();
	test_preemption();
	test_determinism();
	test_bad();
	test_store();
	return check_done();
}
