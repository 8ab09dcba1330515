/* report.c - a serving run as text and JSON (serve.h). Times print in ms,
 * JSON carries seconds. */
#include "serve_int.h"

#include <inttypes.h>

#define GIB 1073741824.0

static void stat_line(FILE *f, const char *name, const serve_stat *s)
{
	fprintf(f, "  %-6s mean %9.2f  p50 %9.2f  p90 %9.2f  p99 %9.2f  max %9.2f ms\n", name,
		1e3 * s->mean, 1e3 * s->p50, 1e3 * s->p90, 1e3 * s->p99, 1e3 * s->max);
}

void serve_print_text(FILE *f, const serve_result *r, int64_t id)
{
	fprintf(f, "serve %s%s", r->name, id > 0 ? "" : "\n");
	if (id > 0)
		fprintf(f, " (run %" PRId64 ")\n", id);
	fprintf(f, "  plan   %s\n", r->label);
	fprintf(f, "  model  %s on %d x %s\n", r->model, r->gpus, r->gpu);
	fprintf(f, "\nrequests %" PRId64 " (%" PRId64 " completed), %" PRId64 " prompt and %" PRId64
		   " output tokens, %.3f s\n",
		r->requests, r->completed, r->prompt_tokens, r->output_tokens, r->makespan_s);
	fprintf(f, "\nlatency\n");
	stat_line(f, "TTFT", &r->ttft);
	stat_line(f, "TPOT", &r->tpot);
	stat_line(f, "E2E", &r->e2e);
	fprintf(f, "\nthroughput\n");
	fprintf(f, "  %.3f requests/s, %.1f output tokens/s, %.1f output tokens/s per GPU\n",
		r->req_per_s, r->out_tok_per_s, r->out_tok_per_s_gpu);
	fprintf(f, "  goodput %.3f requests/s (%.1f %% meet TTFT <= %.0f ms and TPOT <= %.0f ms)\n",
		r->goodput_req_per_s, 100 * r->slo_met, 1e3 * r->slo_ttft_s, 1e3 * r->slo_tpot_s);
	if (r->usd_per_mtok == r->usd_per_mtok)
		fprintf(f, "  cost %.3f USD per million output tokens\n", r->usd_per_mtok);
	if (r->joule_per_tok == r->joule_per_tok)
		fprintf(f, "  energy at most %.3f J per output token (GPUs at TDP)\n", r->joule_per_tok);
	fprintf(f, "\nscheduler\n");
	fprintf(f, "  %" PRId64 " iterations, mean batch %.1f requests, mean queue %.1f, "
		   "%" PRId64 " preemptions\n",
		r->iterations, r->batch_mean, r->queue_mean, r->preemptions);
	fprintf(f, "  KV cache in use: mean %.1f %%, peak %.1f %%\n", 100 * r->kv_mean,
		100 * r->kv_peak);
	if (r->swapped_bytes > 0)
		fprintf(f, "  swapped %.2f GiB per GPU over PCIe\n", r->swapped_bytes / GIB);
	fprintf(f, "\nmemory per GPU\n");
	fprintf(f, "  weights %.2f GiB, activations %.2f GiB, reserved %.2f GiB, KV cache %.2f GiB\n",
		r->mem.weights_bytes / GIB, r->mem.activation_bytes / GIB, r->mem.reserve_bytes / GIB,
		r->mem.kv_bytes / GIB);
	fprintf(f, "  KV %.1f KiB per token per GPU, %" PRId64 " blocks per replica\n",
		r->mem.kv_token_bytes / 1024, r->mem.kv_blocks);
}

static void stat_json(FILE *f, const char *name, const serve_stat *s, bool comma)
{
	fprintf(f, "\"%s\":{\"mean\":%.9g,\"p50\":%.9g,\"p90\":%.9g,\"p99\":%.9g,\"max\":%.9g}%s",
		name, s->mean, s->p50, s->p90, s->p99, s->max, comma ? "," : "");
}

void serve_print_json(FILE *f, const serve_result *r, int64_t id)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "{\"kind\":\"serve\",\"run_id\":%" PRId64 ",\"name\":", id);
	sim_buf_json_string(&b, r->name);
	sim_buf_printf(&b, ",\"plan\":");
	sim_buf_json_string(&b, r->label);
	sim_buf_printf(&b, ",\"model\":");
	sim_buf_json_string(&b, r->model);
	sim_buf_printf(&b, ",\"gpu\":");
	sim_buf_json_string(&b, r->gpu);
	fputs(b.oom ? "{" : b.data, f);
	sim_buf_free(&b);
	fprintf(f, ",\"gpus\":%d,\"requests\":%" PRId64 ",\"completed\":%" PRId64
		   ",\"prompt_tokens\":%" PRId64 ",\"output_tokens\":%" PRId64 ",\"makespan_s\":%.9g,",
		r->gpus, r->requests, r->completed, r->prompt_tokens, r->output_tokens, r->makespan_s);
	stat_json(f, "ttft_s", &r->ttft, true);
	stat_json(f, "tpot_s", &r->tpot, true);
	stat_json(f, "e2e_s", &r->e2e, true);
	fprintf(f, "\"requests_per_s\":%.9g,\"output_tokens_per_s\":%.9g,"
		   "\"output_tokens_per_s_per_gpu\":%.9g,\"goodput_requests_per_s\":%.9g,"
		   "\"slo_met\":%.9g,\"slo_ttft_s\":%.9g,\"slo_tpot_s\":%.9g,",
		r->req_per_s, r->out_tok_per_s, r->out_tok_per_s_gpu, r->goodput_req_per_s, r->slo_met,
		r->slo_ttft_s, r->slo_tpot_s);
	if (r->usd_per_mtok == r->usd_per_mtok)
		fprintf(f, "\"usd_per_million_output_tokens\":%.9g,", r->usd_per_mtok);
	if (r->joule_per_tok == r->joule_per_tok)
		fprintf(f, "\"joule_per_output_token\":%.9g,", r->joule_per_tok);
	fprintf(f, "\"iterations\":%" PRId64 ",\"preemptions\":%" PRId64 ",\"batch_mean\":%.9g,"
		   "\"queue_mean\":%.9g,\"kv_mean\":%.9g,\"kv_peak\":%.9g,\"swapped_bytes\":%.9g,",
		r->iterations, r->preemptions, r->batch_mean, r->queue_mean, r->kv_mean, r->kv_peak,
		r->swapped_bytes);
	fprintf(f, "\"memory\":{\"weights_bytes\":%.9g,\"activation_bytes\":%.9g,"
		   "\"reserve_bytes\":%.9g,\"kv_bytes\":%.9g,\"kv_token_bytes\":%.9g,"
		   "\"kv_blocks\":%" PRId64 "}}\n",
		r->mem.weights_bytes, r->mem.activation_bytes, r->mem.reserve_bytes, r->mem.kv_bytes,
		r->mem.kv_token_bytes, r->mem.kv_blocks);
}
