/* print.c - a campaign as text and JSON (campaign.h). Called by the cli
 * after the step's report. */
#include "campaign.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A duration in s, min, h or days. */
static const char *dur(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.1f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.1f min", s / 60);
	else if (s < 4 * 86400)
		snprintf(buf, len, "%.2f h", s / 3600);
	else
		snprintf(buf, len, "%.2f days", s / 86400);
	return buf;
}

static void row(FILE *out, const char *name, const campaign_stats *s, const char *fmt, double k)
{
	char f[64];
	snprintf(f, sizeof f, "  %%-26s %s %s %s %s\n", fmt, fmt, fmt, fmt);
	fprintf(out, f, name, k * s->p10, k * s->p50, k * s->p90, k * s->mean);
}

/* Interruptions per category (the causes summed by category), mean per
 * campaign, largest first, with their share. */
static void by_category(FILE *out, const campaign_result *r)
{
	const campaign_input *in = &r->in;
	char name[CAMPAIGN_MAX_CAUSES][CAMPAIGN_NAME_MAX];
	double n[CAMPAIGN_MAX_CAUSES];
	int k = 0;
	for (int i = 0; i < in->ncauses; i++) {
		int j = 0;
		while (j < k && strcmp(name[j], in->cause[i].category))
			j++;
		if (j == k) {
			snprintf(name[k], CAMPAIGN_NAME_MAX, "%s", in->cause[i].category);
			n[k++] = 0;
		}
		n[j] += r->cause_mean[i];
	}
	double total = r->interruptions.mean > 0 ? r->interruptions.mean : 1;
	fprintf(out, "  by category (mean):");
	for (int done = 0; done < k; done++) {
		int best = -1;
		for (int j = 0; j < k; j++)
			if (n[j] >= 0 && (best < 0 || n[j] > n[best]))
				best = j;
		fprintf(out, "%s %s %.1f (%.1f %%)", done ? "," : "", name[best], n[best],
			100 * n[best] / total);
		n[best] = -1;
	}
	fprintf(out, "\n");
}

void campaign_print_text(FILE *out, const campaign_result *r, int64_t id)
{
	const campaign_input *in = &r->in;
	char a[32], b[32], c[32], d[32], e[32];
	char bytes[32];
	sim_unit_format(in->ckpt_bytes, SIM_UNIT_BYTES, bytes, sizeof bytes);
	fprintf(out, "\ncampaign%s\n", id > 0 ? "" : " (not stored)");
	if (id > 0)
		fprintf(out, "  stored as campaign %lld\n", (long long)id);
	fprintf(out, "  work: %.0f steps of %.3f s (%.4g T tokens) = %s on %d GPUs, %d nodes\n",
		in->steps, in->step_s, in->steps * in->tokens_per_step / 1e12,
		dur(r->work_s, a, sizeof a), in->gpus, in->nodes);
	bool strag = in->straggler != 1 || in->loader_s > in->sim_step_s * in->straggler * in->fabric;
	if (strag || in->fabric != 1) {
		fprintf(out, "  step: simulated %.3f s", in->sim_step_s);
		if (strag)
			fprintf(out, " x stragglers %.4f (sigma %.3g over %d GPUs, %d slow nodes; p95 %.4f)",
				in->straggler, in->straggler_sigma, in->gpus, in->slow_nodes,
				in->straggler_p95);
		if (in->fabric != 1)
			fprintf(out, " x fabric %.4f (the mean of %d steps sampled with the cluster's "
				"collective spread)", in->fabric, in->fabric_samples);
		fprintf(out, ", loader %s per step\n", dur(in->loader_s, a, sizeof a));
	}
	double mtbf = in->rate_s > 0 ? 1 / in->rate_s : INFINITY;
	fprintf(out,
		"  failures: %d causes of table %s scaled to %d GPUs, %d nodes, %d NICs: job MTBF %s "
		"(%.3f per hour)\n",
		in->ncauses, in->reliability, in->gpus, in->nodes, in->nics,
		isfinite(mtbf) ? dur(mtbf, a, sizeof a) : "infinite", 3600 * in->rate_s);
	fprintf(out, "  checkpoint: %s, %s, write %s, read %s; training stops %s per checkpoint",
		bytes, in->async ? "async" : "sync", dur(in->write_s, a, sizeof a),
		dur(in->read_s, b, sizeof b), dur(in->block_s, c, sizeof c));
	if (in->async)
		fprintf(out, ", durable %s later", dur(in->persist_s, d, sizeof d));
	fprintf(out, "\n  interval: every %.0f steps = %s of work%s\n", in->interval_steps,
		dur(in->interval_steps * in->step_s, a, sizeof a),
		!in->interval_auto ? ""
		: in->async        ? " (auto: Young/Daly sqrt(2 x stop x MTBF), at least one write)"
				   : " (auto: Young/Daly sqrt(2 x stop x MTBF))");
	fprintf(out, "  restart: requeue %s + start %s + load %s + %d warm-up steps = %s",
		dur(in->requeue_s, a, sizeof a), dur(in->start_s, b, sizeof b),
		dur(in->read_s, c, sizeof c), in->warmup_steps, dur(in->restart_s, d, sizeof d));
	if (in->spares > 0)
		fprintf(out, "; %d hot spares (swap %s, repair %s)", in->spares,
			dur(in->spare_swap_s, e, sizeof e), dur(in->repair_s, a, sizeof a));
	fprintf(out, "\n  Monte Carlo: %d campaigns, seed %llu\n", in->draws,
		(unsigned long long)in->seed);
	fprintf(out, "  %-26s %9s %9s %9s %9s\n", "", "p10", "p50", "p90", "mean");
	row(out, "days to train", &r->days, "%9.2f", 1);
	row(out, "interruptions", &r->interruptions, "%9.1f", 1);
	row(out, "goodput (%)", &r->goodput, "%9.2f", 100);
	row(out, "checkpoints (h)", &r->ckpt_h, "%9.1f", 1);
	row(out, "restarts (h)", &r->restart_h, "%9.1f", 1);
	row(out, "recomputed work (h)", &r->lost_h, "%9.1f", 1);
	row(out, "energy (MWh)", &r->energy_mwh, "%9.1f", 1);
	if (in->gpu_hour_usd > 0)
		row(out, "cost (M USD)", &r->cost_musd, "%9.3f", 1);
	row(out, "emissions (t CO2e)", &r->tco2, "%9.1f", 1);
	fprintf(out, "  without failures: %.2f days (work and checkpoints)", r->ideal_days);
	if (isfinite(r->expected_days))
		fprintf(out, "; expected in closed form: %.2f days", r->expected_days);
	fprintf(out, "\n");
	if (in->spares > 0)
		fprintf(out, "  spares swapped in: %.1f per campaign (mean)\n", r->spares_used);
	if (in->ncauses > 0)
		by_category(out, r);
}

static void num(sim_buf *b, const char *key, double v)
{
	sim_buf_printf(b, "\"%s\":", key);
	if (isfinite(v))
		sim_buf_printf(b, "%.9g,", v);
	else
		sim_buf_append(b, "null,", 5);
}

/* Drop the comma just written (the last member of an object). */
static void uncomma(sim_buf *b)
{
	if (!b->oom && b->len > 0 && b->data[b->len - 1] == ',')
		b->len--;
}

static void stat(sim_buf *b, const char *key, const campaign_stats *s)
{
	sim_buf_printf(b, "\"%s\":{", key);
	num(b, "p10", s->p10);
	num(b, "p50", s->p50);
	num(b, "p90", s->p90);
	num(b, "mean", s->mean);
	num(b, "sd", s->sd);
	uncomma(b);
	sim_buf_append(b, "},", 2);
}

void campaign_json_buf(sim_buf *b, const campaign_result *r, int64_t id)
{
	const campaign_input *in = &r->in;
	if (id > 0)
		sim_buf_printf(b, "{\"campaign_id\":%lld,", (long long)id);
	else
		sim_buf_append(b, "{\"campaign_id\":null,", 20);
	num(b, "steps", in->steps);
	num(b, "step_time_s", in->step_s);
	num(b, "simulated_step_s", in->sim_step_s);
	num(b, "straggler_factor", in->straggler);
	num(b, "straggler_p95_factor", in->straggler_p95);
	num(b, "straggler_analytic_factor", in->straggler_analytic);
	num(b, "fabric_spread_factor", in->fabric);
	sim_buf_printf(b, "\"fabric_spread_samples\":%d,", in->fabric_samples);
	sim_buf_printf(b, "\"slow_nodes\":%d,\"straggler_replays\":%ld,", in->slow_nodes,
		       in->straggler_replays);
	num(b, "loader_s", in->loader_s);
	num(b, "tokens", in->steps * in->tokens_per_step);
	num(b, "work_s", r->work_s);
	sim_buf_printf(b, "\"gpus\":%d,\"nodes\":%d,\"nics\":%d,", in->gpus, in->nodes, in->nics);
	sim_buf_append(b, "\"reliability\":", 14);
	sim_buf_json_string(b, in->reliability);
	sim_buf_append(b, ",", 1);
	num(b, "failure_rate_per_h", 3600 * in->rate_s);
	num(b, "mtbf_h", in->rate_s > 0 ? 1 / (3600 * in->rate_s) : INFINITY);
	num(b, "checkpoint_bytes", in->ckpt_bytes);
	sim_buf_printf(b, "\"checkpoint\":\"%s\",", in->async ? "async" : "sync");
	num(b, "write_s", in->write_s);
	num(b, "read_s", in->read_s);
	num(b, "checkpoint_stop_s", in->block_s);
	num(b, "checkpoint_persist_s", in->persist_s);
	num(b, "interval_steps", in->interval_steps);
	sim_buf_printf(b, "\"interval_auto\":%s,", in->interval_auto ? "true" : "false");
	num(b, "restart_s", in->restart_s);
	sim_buf_printf(b, "\"spares\":%d,\"draws\":%d,\"seed\":%llu,", in->spares, in->draws,
		       (unsigned long long)in->seed);
	num(b, "ideal_days", r->ideal_days);
	num(b, "expected_days", r->expected_days);
	stat(b, "days", &r->days);
	stat(b, "interruptions", &r->interruptions);
	stat(b, "goodput", &r->goodput);
	stat(b, "checkpoint_h", &r->ckpt_h);
	stat(b, "restart_h", &r->restart_h);
	stat(b, "recomputed_h", &r->lost_h);
	stat(b, "energy_mwh", &r->energy_mwh);
	stat(b, "cost_musd", &r->cost_musd);
	stat(b, "tco2", &r->tco2);
	num(b, "spares_used", r->spares_used);
	sim_buf_append(b, "\"causes\":[", 10);
	for (int i = 0; i < in->ncauses; i++) {
		const campaign_cause *c = &in->cause[i];
		sim_buf_append(b, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
		sim_buf_json_string(b, c->name);
		sim_buf_append(b, ",\"category\":", 12);
		sim_buf_json_string(b, c->category);
		sim_buf_printf(b, ",\"per\":\"%s\",\"replace\":%s,", c->per,
			       c->replace ? "true" : "false");
		num(b, "units", c->units);
		num(b, "rate_per_h", 3600 * c->rate_s);
		num(b, "interruptions", r->cause_mean[i]);
		uncomma(b);
		sim_buf_append(b, "}", 1);
	}
	sim_buf_append(b, "]}", 2);
}
