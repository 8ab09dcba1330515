/* save.c - a serving run into the run database (store_put_serve). */
#include "serve_int.h"

#include <stdlib.h>

static void lat(double dst[5], const serve_stat *s)
{
	dst[0] = s->mean;
	dst[1] = s->p50;
	dst[2] = s->p90;
	dst[3] = s->p99;
	dst[4] = s->max;
}

int serve_store(store *db, const serve_scenario *s, const serve_result *r, int64_t *id,
		sim_diag *diag)
{
	store_serve_run row = {
		.name = r->name, .plan = r->label, .model = r->model, .gpu = r->gpu,
		.seed = s->seed, .gpus = r->gpus, .requests = r->requests,
		.completed = r->completed, .prompt_tokens = r->prompt_tokens,
		.output_tokens = r->output_tokens, .iterations = r->iterations,
		.preemptions = r->preemptions, .kv_blocks = r->mem.kv_blocks,
		.makespan_s = r->makespan_s, .req_per_s = r->req_per_s,
		.out_tok_per_s = r->out_tok_per_s, .out_tok_per_s_gpu = r->out_tok_per_s_gpu,
		.goodput_req_per_s = r->goodput_req_per_s, .slo_met = r->slo_met,
		.slo_ttft_s = r->slo_ttft_s, .slo_tpot_s = r->slo_tpot_s,
		.batch_mean = r->batch_mean, .queue_mean = r->queue_mean, .kv_mean = r->kv_mean,
		.kv_peak = r->kv_peak, .weights_bytes = r->mem.weights_bytes,
		.kv_bytes = r->mem.kv_bytes,
	};
	lat(row.latency[0], &r->ttft);
	lat(row.latency[1], &r->tpot);
	lat(row.latency[2], &r->e2e);
	char *text = conf_resolved_text(s->doc);
	if (!text)
		return SIM_ENOMEM;
	int rc = store_put_serve(db, text, &row, id, diag);
	free(text);
	return rc;
}
