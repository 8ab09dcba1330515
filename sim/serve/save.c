/* save.c - a serving run into the run database (store_put_serve) and back
 * (serve_result_of_stored, for `podsim runs show`). */
#include "serve_int.h"

#include <math.h>
#include <stdio.h>
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

static serve_stat unlat(const double v[5])
{
	return (serve_stat){v[0], v[1], v[2], v[3], v[4]};
}

bool serve_result_of_stored(const store_serve_run *row, const char *text, serve_result *out)
{
	*out = (serve_result){.usd_per_mtok = NAN, .joule_per_tok = NAN};
	snprintf(out->name, sizeof out->name, "%s", row->name);
	snprintf(out->label, sizeof out->label, "%s", row->plan);
	snprintf(out->model, sizeof out->model, "%s", row->model);
	snprintf(out->gpu, sizeof out->gpu, "%s", row->gpu);
	out->gpus = row->gpus;
	out->requests = row->requests;
	out->completed = row->completed;
	out->prompt_tokens = row->prompt_tokens;
	out->output_tokens = row->output_tokens;
	out->iterations = row->iterations;
	out->preemptions = row->preemptions;
	out->makespan_s = row->makespan_s;
	out->ttft = unlat(row->latency[0]);
	out->tpot = unlat(row->latency[1]);
	out->e2e = unlat(row->latency[2]);
	out->req_per_s = row->req_per_s;
	out->out_tok_per_s = row->out_tok_per_s;
	out->out_tok_per_s_gpu = row->out_tok_per_s_gpu;
	out->goodput_req_per_s = row->goodput_req_per_s;
	out->slo_met = row->slo_met;
	out->slo_ttft_s = row->slo_ttft_s;
	out->slo_tpot_s = row->slo_tpot_s;
	out->batch_mean = row->batch_mean;
	out->queue_mean = row->queue_mean;
	out->kv_mean = row->kv_mean;
	out->kv_peak = row->kv_peak;
	/* the stored scenario is resolved (includes inlined); a trace file it
	 * names may be gone, and then only the stored figures print */
	sim_diag *d = sim_diag_new();
	serve_scenario *s = NULL;
	bool ok = d && text && serve_scenario_load_string(text, "stored run", ".", d, &s) == SIM_OK;
	if (ok) {
		serve_memory_of(s, &out->mem);
		serve_price(s, out);
	}
	out->mem.weights_bytes = row->weights_bytes;
	out->mem.kv_bytes = row->kv_bytes;
	out->mem.kv_blocks = row->kv_blocks;
	serve_scenario_free(s);
	sim_diag_free(d);
	return ok;
}
