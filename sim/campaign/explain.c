/* explain.c - podsim explain's campaign section (campaign_explain): every
 * figure of the campaign's set-up with its formula and values, so that a
 * reader can redo the arithmetic by hand. Called by sim/cli/explain.c when
 * the scenario has a [campaign] section. */
#include "campaign.h"

#include <math.h>
#include <stdio.h>

static void t(char *buf, size_t len, double s)
{
	if (s < 120)
		snprintf(buf, len, "%.4g s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.4g min", s / 60);
	else
		snprintf(buf, len, "%.4g h", s / 3600);
}

static void rates(FILE *o, const campaign_input *in)
{
	fprintf(o, "  failures     table %s: N interruptions in a window T = %.0f h on U components of "
		   "their kind; per component N / (U T), times the job's u of them%s\n",
		in->reliability, in->window_s / 3600,
		in->rate_scale != 1 ? ", times [reliability] scale" : "");
	fprintf(o, "    %-32s %5s %-5s %8s %8s %14s %12s\n", "cause", "N", "per", "U", "u",
		"per unit /h", "job /h");
	for (int i = 0; i < in->ncauses; i++) {
		const campaign_cause *c = &in->cause[i];
		double per_unit = c->units > 0 ? c->rate_s / c->units : 0;
		fprintf(o, "    %-32s %5.0f %-5s %8.0f %8.0f %14.4e %12.6f\n", c->name, c->count, c->per,
			c->ref_units, c->units, 3600 * per_unit, 3600 * c->rate_s);
	}
	char a[32];
	if (in->rate_s > 0) {
		t(a, sizeof a, 1 / in->rate_s);
		fprintf(o, "  job rate     l = sum = %.6f per hour; MTBF M = 1 / l = %s\n",
			3600 * in->rate_s, a);
	} else {
		fprintf(o, "  job rate     0: no failures\n");
	}
}

static void checkpoint(FILE *o, const campaign_input *in)
{
	char a[32], b[32], c[32];
	if (in->bytes_per_param > 0)
		fprintf(o, "  checkpoint   bytes = P x (weights + optimizer states) = %.4g x %.4g B = "
			   "%.4g TB\n",
			in->params, in->bytes_per_param, in->ckpt_bytes / 1e12);
	else
		fprintf(o, "  checkpoint   bytes = [campaign] checkpoint_bytes = %.4g TB\n",
			in->ckpt_bytes / 1e12);
	t(a, sizeof a, in->write_s);
	t(b, sizeof b, in->read_s);
	fprintf(o, "  write/read   %.4g TB / %.4g GB/s = %s; / %.4g GB/s = %s\n", in->ckpt_bytes / 1e12,
		in->write_Bps / 1e9, a, in->read_Bps / 1e9, b);
	t(a, sizeof a, in->block_s);
	if (in->async) {
		t(b, sizeof b, in->persist_s);
		fprintf(o, "  stop C       async: one GPU's shard over PCIe into host memory, %s; "
			   "durable %s later\n",
			a, b);
	} else {
		fprintf(o, "  stop C       sync: the write, %s\n", a);
	}
	double tau = in->interval_steps * in->step_s;
	t(c, sizeof c, tau);
	if (in->rate_s > 0) {
		t(b, sizeof b, campaign_young_daly(in->block_s, 1 / in->rate_s));
		fprintf(o, "  Young/Daly   tau = sqrt(2 C M) = sqrt(2 x %.4g s x %.4g s) = %s\n",
			in->block_s, 1 / in->rate_s, b);
	}
	fprintf(o, "  interval     %s: %.0f steps of %.4g s = %s of work\n",
		in->interval_auto ? (in->async ? "auto (at least one write)" : "auto")
				  : "[campaign] checkpoint_interval",
		in->interval_steps, in->step_s, c);
}

static void expected(FILE *o, const campaign_input *in)
{
	char a[32], b[32];
	t(a, sizeof a, in->requeue_s);
	t(b, sizeof b, in->start_s);
	fprintf(o, "  restart R    requeue %s + start %s + load %.4g s + %d warm-up steps x %.4g s = "
		   "%.4g s\n",
		a, b, in->read_s, in->warmup_steps, in->step_s, in->restart_s);
	double n = ceil(in->steps / in->interval_steps), tau = in->interval_steps * in->step_s;
	double last = (in->steps - (n - 1) * in->interval_steps) * in->step_s;
	double w = in->steps * in->step_s, e = campaign_expected_wall(in);
	fprintf(o, "  expected     E = (n - 1) e^{lR} (e^{l(tau + C)} - 1) / l + e^{lR} "
		   "(e^{l t_last} - 1) / l (Daly 2006, sim/campaign/mc.c)\n");
	fprintf(o, "               n = %.0f segments, tau = %.4g s, t_last = %.4g s: E = %.4g days "
		   "for W = %.4g days of work\n",
		n, tau, last, e / 86400, w / 86400);
	fprintf(o, "  goodput      W / E = %.2f %%%s\n", 100 * w / e,
		in->spares > 0 || in->persist_s > 0
			? " (without spares and async roll-backs: podsim train's Monte Carlo has them)"
			: "");
}

void campaign_explain(FILE *o, const campaign_input *in, int number)
{
	fprintf(o, "\n%d. Campaign: the job's MTBF and how often to checkpoint\n", number);
	double slowed = in->sim_step_s * in->straggler * in->fabric;
	if (in->fabric != 1 || in->straggler != 1 || in->loader_s > slowed) {
		fprintf(o, "  step         max(simulated %.4g s x stragglers %.4f", in->sim_step_s,
			in->straggler);
		if (in->fabric != 1)
			fprintf(o, " x fabric %.4f", in->fabric);
		fprintf(o, " = %.4g, loader %.4g s) = %.4g s\n", slowed, in->loader_s, in->step_s);
	}
	if (in->fabric != 1)
		fprintf(o, "  fabric       the step replayed %d times with the collectives across nodes "
			   "drawn from the\n"
			   "               cluster's measured spread (the step-spread section): their mean "
			   "over the simulated\n"
			   "               step, x %.4f; a campaign's steps average it, and the spread is "
			   "skewed above its median\n",
			in->fabric_samples, in->fabric);
	if (in->straggler != 1) {
		fprintf(o, "  stragglers   each GPU's compute e^{sigma z} slower, sigma = %.3g, z per GPU "
			   "and step;\n"
			   "               %d of %d nodes slow (x %.3g: slow_node_prob %.3g, slow_nodes);\n"
			   "               a stage's TP/CP ranks wait for their slowest, each of the %d "
			   "pipeline\n"
			   "               replicas replayed with its stages slowed, the step the "
			   "slowest replica's:\n"
			   "               mean over %d sampled steps x %.4f (p95 x %.4f; %ld replays)\n",
			in->straggler_sigma, in->slow_nodes, in->nodes, in->slow_node_factor,
			in->slow_node_prob, in->straggler_replicas, in->straggler_steps, in->straggler,
			in->straggler_p95, in->straggler_replays);
		if (in->straggler_bound > 0)
			fprintf(o, "               (straggler_replays caps a step's replays, slowest "
				   "stages first: a replica left\n"
				   "               unreplayed is bounded by x %.4f, its slowest stage's "
				   "factor on the whole step)\n",
				in->straggler_bound);
		if (in->straggler_sigma > 0)
			fprintf(o, "  closed form  the whole step waiting for the slowest of %d GPUs: "
				   "e^{%.3g x %.4g} = %.4f\n",
				in->gpus, in->straggler_sigma, campaign_expected_max_normal(in->gpus),
				in->straggler_analytic);
	}
	rates(o, in);
	checkpoint(o, in);
	expected(o, in);
}
