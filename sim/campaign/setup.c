/* setup.c - a campaign's input from a scenario and its simulated step: the
 * [campaign], [storage] and [reliability] key tables and campaign_setup.
 *
 * Checkpoint bytes: every trained parameter's weights and optimizer states
 * (plan_param_bytes: 2 + 12 bytes under the mixed policy with Adam: bf16
 * weights, fp32 master, m and v; 4 + 8 under a framework's param_master,
 * FSDP's fp32 shards being the master), what a resumable checkpoint holds; the
 * gradients are not saved. A LoRA run is counted in full too (an
 * overestimate: only the adapters need saving).
 * Write and read time: bytes / min(aggregate bandwidth, nodes x per-node
 * limit), every node writing its shard at once (ZeRO and pipeline shards
 * spread the state over all nodes).
 * Asynchronous checkpoints stop training for the copy of one GPU's shard
 * (bytes / GPUs) over PCIe into host memory (pcie_bw x pcie_efficiency);
 * their auto interval is Young/Daly's with that stop, but no shorter than
 * the write to storage (else the writes queue and training waits anyway).
 * Restart: requeue + process start + checkpoint load + warm-up steps.
 * The step: the simulated one times the stragglers' factor, and no shorter
 * than reading its
 * tokens (tokens per step x token_bytes at the read bandwidth, aggregate and
 * per node): the loader prefetches during the previous step, so it costs
 * nothing unless the storage cannot keep up. Checkpoint loads and the loader
 * are not made to share the bandwidth.
 * Power: as sweep/cost.c's step model (GPUs at tdp x the share of the step
 * they compute, node power always, times PUE) while training; node power
 * alone while stopped (checkpoints, restarts). */
#include "campaign.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct camp_conf {
	double tokens, steps;
	char interval[CONF_STR_MAX];
	int mode;
	double ckpt_bytes;
	double requeue_s, start_s;
	int warmup_steps, spares;
	double swap_s, repair_s;
	int seed, draws;
	double token_bytes, straggler_sigma;
	double slow_prob, slow_factor;
	char slow_nodes[CONF_STR_MAX];
	int straggler_steps, max_replays;
} camp_conf;

typedef struct storage_conf {
	double write_Bps, read_Bps, node_Bps;
} storage_conf;

typedef struct rel_conf {
	char name[CONF_STR_MAX], source[CONF_STR_MAX], table[CONF_STR_MAX];
	double window_s;
	int gpus, nodes, nics;
	double scale;
} rel_conf;

static const char *const mode_names[] = {"sync", "async", NULL};

#define CK(f) offsetof(camp_conf, f)
const conf_key campaign_keys[] = {
	{"tokens", CONF_REAL, SIM_UNIT_NONE, 0, 1e18, "0", NULL, CK(tokens),
	 "tokens to train (0 = give steps)"},
	{"steps", CONF_REAL, SIM_UNIT_NONE, 0, 1e12, "0", NULL, CK(steps),
	 "steps to train (0 = from tokens)"},
	{"checkpoint_interval", CONF_STR, SIM_UNIT_NONE, 0, 0, "auto", NULL, CK(interval),
	 "work between checkpoints: auto (Young/Daly sqrt(2 x cost x MTBF)), a time, or 'N steps'"},
	{"checkpoint", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "sync", mode_names, CK(mode),
	 "sync (training waits for the write) or async (waits for the copy to host memory)"},
	{"checkpoint_bytes", CONF_QTY, SIM_UNIT_BYTES, 0, 1e18, "0 B", NULL, CK(ckpt_bytes),
	 "bytes per checkpoint (0 = the plan's weights and optimizer states)"},
	{"requeue", CONF_QTY, SIM_UNIT_TIME, 0, 1e7, "10 min", NULL, CK(requeue_s),
	 "scheduler requeue and node replacement after a failure (assumed 10 min)"},
	{"process_start", CONF_QTY, SIM_UNIT_TIME, 0, 1e7, "5 min", NULL, CK(start_s),
	 "process start and NCCL set-up at restart (assumed 5 min)"},
	{"warmup_steps", CONF_INT, SIM_UNIT_NONE, 0, 1000000, "0", NULL, CK(warmup_steps),
	 "steps' time lost after a restart (compilation, data loader, warm-up)"},
	{"spares", CONF_INT, SIM_UNIT_NONE, 0, CAMPAIGN_MAX_SPARES, "0", NULL, CK(spares),
	 "hot spare nodes swapped in for a failure that needs a node replaced"},
	{"spare_swap", CONF_QTY, SIM_UNIT_TIME, 0, 1e7, "1 min", NULL, CK(swap_s),
	 "swapping a hot spare in, in place of the requeue"},
	{"repair", CONF_QTY, SIM_UNIT_TIME, 0, 1e9, "24 h", NULL, CK(repair_s),
	 "until a failed node is back as a spare"},
	{"seed", CONF_INT, SIM_UNIT_NONE, -1, 2147483647, "-1", NULL, CK(seed),
	 "Monte Carlo seed (-1 = [scenario] seed)"},
	{"draws", CONF_INT, SIM_UNIT_NONE, 1, CAMPAIGN_MAX_DRAWS, "1000", NULL, CK(draws),
	 "campaigns simulated"},
	{"token_bytes", CONF_QTY, SIM_UNIT_BYTES, 0, 1024, "4 B", NULL, CK(token_bytes),
	 "bytes read from storage per training token (int32 token ids: 4 B)"},
	{"straggler_sigma", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL, CK(straggler_sigma),
	 "per-GPU log-normal jitter of a step's compute (0 = none); the step waits for the "
	 "slowest where the plan synchronises (exec_stragglers)"},
	{"slow_node_prob", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL, CK(slow_prob),
	 "probability that a node computes slower for the whole campaign (0 = none)"},
	{"slow_node_factor", CONF_REAL, SIM_UNIT_NONE, 1, 100, "1.25", NULL, CK(slow_factor),
	 "a slow node's compute slowdown (assumed 1.25 when slow nodes are on)"},
	{"slow_nodes", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, CK(slow_nodes),
	 "nodes known to be slow, e.g. '3, 17' (0-based; ranks fill the nodes in order)"},
	{"straggler_steps", CONF_INT, SIM_UNIT_NONE, 1, 10000, "10", NULL, CK(straggler_steps),
	 "steps sampled for the stragglers' mean step (each replays the slowest replicas)"},
	{"straggler_replays", CONF_INT, SIM_UNIT_NONE, 0, 1000000, "32", NULL, CK(max_replays),
	 "replica replays per sampled step, slowest first (0 = every one the bound keeps)"},
};
const size_t campaign_nkeys = sizeof campaign_keys / sizeof campaign_keys[0];

#define SK(f) offsetof(storage_conf, f)
const conf_key campaign_storage_keys[] = {
	{"write_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 1, 1e18, NULL, NULL, SK(write_Bps),
	 "aggregate write bandwidth of the checkpoint file system"},
	{"read_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 1, 1e18, NULL, NULL, SK(read_Bps),
	 "aggregate read bandwidth of the checkpoint file system"},
	{"node_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 0, 1e18, "0 B/s", NULL, SK(node_Bps),
	 "per-node limit on storage traffic (0 = none)"},
};
const size_t campaign_storage_nkeys =
	sizeof campaign_storage_keys / sizeof campaign_storage_keys[0];

#define RK(f) offsetof(rel_conf, f)
const conf_key campaign_reliability_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, RK(name), "the table's name"},
	{"source", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, RK(source), "where the counts come from"},
	{"table", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, RK(table),
	 "CSV of interruptions per root cause (relative to this file)"},
	{"window", CONF_QTY, SIM_UNIT_TIME, 1, 1e10, NULL, NULL, RK(window_s),
	 "time over which the interruptions were counted"},
	{"gpus", CONF_INT, SIM_UNIT_NONE, 1, 100000000, NULL, NULL, RK(gpus),
	 "GPUs of the reference run"},
	{"nodes", CONF_INT, SIM_UNIT_NONE, 1, 100000000, NULL, NULL, RK(nodes),
	 "nodes of the reference run"},
	{"nics", CONF_INT, SIM_UNIT_NONE, 1, 100000000, NULL, NULL, RK(nics),
	 "compute NICs of the reference run"},
	{"scale", CONF_REAL, SIM_UNIT_NONE, 0, 1e6, "1", NULL, RK(scale),
	 "multiplier of every rate (what-if)"},
};
const size_t campaign_reliability_nkeys =
	sizeof campaign_reliability_keys / sizeof campaign_reliability_keys[0];

/* The table's path: relative to the file that named it. */
static void table_path(const plan_scenario *s, const char *table, char *out, size_t len)
{
	conf_loc loc = conf_key_loc(s->doc, "reliability", "table");
	if (table[0] == '/' || loc.line == 0) {
		snprintf(out, len, "%s", table);
		return;
	}
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", loc.path);
	snprintf(out, len, "%s/%s", dirname(dir), table);
}

static int read_confs(const plan_scenario *s, camp_conf *c, storage_conf *st, rel_conf *rel,
		      sim_diag *diag)
{
	int rc = SIM_OK;
	const char *root = conf_root_path(s->doc);
	if (!conf_has_section(s->doc, "campaign")) {
		sim_diag_error(diag, root, 0, "no [campaign] section: a campaign needs tokens or steps");
		rc = SIM_ECONF;
	}
	if (!conf_has_section(s->doc, "storage")) {
		sim_diag_error(diag, root, 0,
			       "no [storage] section: checkpoints need the file system's write_bw "
			       "and read_bw");
		rc = SIM_ECONF;
	}
	if (!conf_has_section(s->doc, "reliability")) {
		sim_diag_error(diag, root, 0,
			       "no [reliability] section: include a failure table, e.g. "
			       "topologies/reliability/llama3-405b.ini");
		rc = SIM_ECONF;
	}
	if (rc != SIM_OK)
		return rc;
	if (conf_read(s->doc, "campaign", campaign_keys, campaign_nkeys, c, false, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "storage", campaign_storage_keys, campaign_storage_nkeys, st, false,
		      diag) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "reliability", campaign_reliability_keys, campaign_reliability_nkeys,
		      rel, false, diag) != SIM_OK)
		rc = SIM_ECONF;
	return rc;
}

/* Steps from the command line, else [campaign] steps or tokens. */
static int steps_of(const plan_scenario *s, const exec_result *r, const camp_conf *c,
		    const campaign_opts *o, double *steps, sim_diag *diag)
{
	double tokens = o && o->tokens >= 0 ? o->tokens : c->tokens;
	double st = o && o->steps >= 0 ? o->steps : c->steps;
	if (o && o->tokens >= 0)
		st = 0; /* --tokens wins over the file's steps */
	if (o && o->steps >= 0)
		tokens = 0;
	conf_loc loc = conf_section_loc(s->doc, "campaign");
	if (tokens > 0 && st > 0) {
		sim_diag_error(diag, loc.path, loc.line, "set tokens or steps, not both");
		return SIM_ECONF;
	}
	if (!(tokens > 0) && !(st > 0)) {
		sim_diag_error(diag, loc.path, loc.line,
			       "nothing to train: set tokens or steps (or --tokens)");
		return SIM_ECONF;
	}
	*steps = st > 0 ? ceil(st) : ceil(tokens / r->tokens_per_step);
	return SIM_OK;
}

/* checkpoint_interval: auto (*steps = 0), "N steps" or a time. */
static int interval_of(const plan_scenario *s, const char *text, double step_s, double *steps,
		       sim_diag *diag)
{
	conf_loc loc = conf_key_loc(s->doc, "campaign", "checkpoint_interval");
	*steps = 0;
	if (!strcmp(text, "auto"))
		return SIM_OK;
	char *end;
	double n = strtod(text, &end);
	while (*end == ' ')
		end++;
	if (end != text && (!strcmp(end, "steps") || !strcmp(end, "step"))) {
		if (!(n >= 1) || n != floor(n) || n > 1e12) {
			sim_diag_error(diag, loc.path, loc.line,
				       "checkpoint_interval = '%s': a whole number of steps, at least 1",
				       text);
			return SIM_ECONF;
		}
		*steps = n;
		return SIM_OK;
	}
	double t;
	char err[160];
	if (sim_unit_parse(text, SIM_UNIT_TIME, &t, err, sizeof err) != SIM_OK) {
		sim_diag_error(diag, loc.path, loc.line,
			       "checkpoint_interval = '%s': expected auto, a time or 'N steps' (%s)",
			       text, err);
		return SIM_ECONF;
	}
	if (t < step_s) {
		sim_diag_error(diag, loc.path, loc.line,
			       "checkpoint_interval = '%s' is shorter than one step (%.3g s)", text,
			       step_s);
		return SIM_ECONF;
	}
	*steps = floor(t / step_s);
	return SIM_OK;
}

/* Checkpoint bytes, times and the interval. */
static int checkpoints(const plan_scenario *s, const camp_conf *c, const storage_conf *st,
		       campaign_input *in, sim_diag *diag)
{
	double w, g, opt, paged;
	plan_param_bytes(s, &w, &g, &opt, &paged);
	if (c->ckpt_bytes > 0) {
		in->ckpt_bytes = c->ckpt_bytes;
	} else {
		in->params = work_params_total(&s->model);
		in->bytes_per_param = w + opt + paged;
		in->ckpt_bytes = in->params * in->bytes_per_param;
	}
	double wbw = st->write_Bps, rbw = st->read_Bps, nbw = st->node_Bps * in->nodes;
	if (nbw > 0 && nbw < wbw)
		wbw = nbw;
	if (nbw > 0 && nbw < rbw)
		rbw = nbw;
	in->write_Bps = wbw, in->read_Bps = rbw;
	in->write_s = in->ckpt_bytes / wbw;
	in->read_s = in->ckpt_bytes / rbw;
	in->async = c->mode == 1;
	const net_node *nd = &s->cluster.node;
	double pcie = nd->pcie_Bps * (nd->pcie_eff > 0 ? nd->pcie_eff : 1);
	in->block_s = in->async ? (pcie > 0 ? in->ckpt_bytes / in->gpus / pcie : 0) : in->write_s;
	in->persist_s = in->async ? in->write_s : 0;
	double k;
	if (interval_of(s, c->interval, in->step_s, &k, diag) != SIM_OK)
		return SIM_ECONF;
	in->interval_auto = k == 0;
	if (in->interval_auto) {
		double tau = in->rate_s > 0 ? campaign_young_daly(in->block_s, 1 / in->rate_s)
					    : in->steps * in->step_s;
		/* async: no sooner than the storage takes one checkpoint, or the
		 * writes queue up and training waits for them after all */
		k = fmax(1, fmax(round(tau / in->step_s), ceil(in->persist_s / in->step_s)));
	}
	in->interval_steps = fmin(k, in->steps);
	/* async: a checkpoint waits for the previous write to land (mc.c) */
	double tau = in->interval_steps * in->step_s;
	if (in->persist_s > tau) {
		in->block_s += in->persist_s - tau;
		in->persist_s = tau;
	}
	return SIM_OK;
}

/* [campaign] slow_nodes: "3, 17" -> o->slow_nodes; a bad entry is an error
 * at the key. */
static int slow_list(const plan_scenario *s, const char *text, int nodes, exec_straggle_opts *o,
		     sim_diag *diag)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		char *end;
		long v = strtol(p, &end, 10);
		conf_loc loc = conf_key_loc(s->doc, "campaign", "slow_nodes");
		if (end == p || v < 0 || v >= nodes || o->nslow >= EXEC_STRAGGLE_MAX_LISTED) {
			sim_diag_error(diag, loc.path, loc.line,
				       "slow_nodes = '%s': want up to %d node numbers from 0 to %d, "
				       "separated by commas",
				       text, EXEC_STRAGGLE_MAX_LISTED, nodes - 1);
			return SIM_ECONF;
		}
		o->slow_nodes[o->nslow++] = (int)v;
		p = end;
		while (*p == ' ')
			p++;
		if (*p && *p != ',') {
			sim_diag_error(diag, loc.path, loc.line,
				       "slow_nodes = '%s': want node numbers separated by commas", text);
			return SIM_ECONF;
		}
	}
	return SIM_OK;
}

/* The stragglers' factor on the step: simulated per replica
 * (exec_stragglers) when any GPU differs, with the closed form beside it
 * (campaign_straggler: every GPU gating the whole step) for comparison. */
static int stragglers(const plan_scenario *s, const camp_conf *c, campaign_input *in,
		      sim_diag *diag)
{
	in->straggler_sigma = c->straggler_sigma;
	in->straggler_analytic = campaign_straggler(c->straggler_sigma, in->gpus);
	in->straggler = in->straggler_p95 = 1;
	in->slow_node_prob = c->slow_prob;
	in->slow_node_factor = c->slow_factor;
	exec_straggle_opts so = {0};
	so.sigma = c->straggler_sigma;
	so.slow_prob = c->slow_prob;
	so.slow_factor = c->slow_factor;
	so.steps = c->straggler_steps;
	so.max_replays = c->max_replays;
	so.seed = in->seed;
	if (slow_list(s, c->slow_nodes, in->nodes, &so, diag) != SIM_OK)
		return SIM_ECONF;
	bool slow = so.nslow > 0 || c->slow_prob > 0;
	if (!(c->straggler_sigma > 0) && !(slow && c->slow_factor > 1))
		return SIM_OK;
	exec_straggle st;
	int rc = exec_stragglers(s, &so, &st);
	if (rc != SIM_OK) {
		sim_diag_error(diag, conf_root_path(s->doc), 0,
			       "the stragglers' replays failed (%s)", sim_strerror(rc));
		return SIM_ECONF;
	}
	in->straggler = st.factor;
	in->straggler_p95 = st.base_s > 0 ? st.p95_s / st.base_s : 1;
	in->straggler_steps = st.steps;
	in->straggler_replicas = st.replicas;
	in->straggler_replays = st.replays;
	in->straggler_bound = st.bound_s > 0 && st.base_s > 0 ? st.bound_s / st.base_s : 0;
	in->slow_nodes = st.slow_nodes;
	return SIM_OK;
}

static void power(const plan_scenario *s, const exec_result *r, campaign_input *in)
{
	double busy = exec_busy_share(r);
	double pue = s->cluster.pue > 0 ? s->cluster.pue : 1;
	double node_w = in->nodes * s->cluster.node.power_w;
	in->train_w = pue * (in->gpus * s->gpu.tdp_w * busy + node_w);
	in->idle_w = pue * node_w;
	in->gpu_hour_usd = s->cluster.gpu_hour_usd;
	in->grid_kg_per_kwh = s->cluster.grid_kg_per_kwh;
}

int campaign_setup(const plan_scenario *s, const exec_result *r, const campaign_opts *o,
		   campaign_input *in, sim_diag *diag)
{
	memset(in, 0, sizeof *in);
	camp_conf c;
	storage_conf st;
	rel_conf rel;
	if (read_confs(s, &c, &st, &rel, diag) != SIM_OK)
		return SIM_ECONF;
	if (s->inference || !(r->step_s > 0) || !(r->tokens_per_step > 0)) {
		sim_diag_error(diag, conf_root_path(s->doc), 0,
			       "a campaign needs a training step (mode = train)");
		return SIM_ECONF;
	}
	in->sim_step_s = r->step_s;
	in->tokens_per_step = r->tokens_per_step;
	in->gpus = r->gpus;
	in->nodes = (r->gpus + s->cluster.node.gpus - 1) / s->cluster.node.gpus;
	in->nics = in->nodes * s->cluster.node.nics;
	in->seed = o && o->seed >= 0 ? (uint64_t)o->seed
		   : c.seed >= 0     ? (uint64_t)c.seed
				     : s->seed;
	if (stragglers(s, &c, in, diag) != SIM_OK)
		return SIM_ECONF;
	double rbw = st.read_Bps, nbw = st.node_Bps * in->nodes;
	in->loader_s = r->tokens_per_step * c.token_bytes / (nbw > 0 && nbw < rbw ? nbw : rbw);
	/* Over a campaign of many steps the time per step is their mean, which
	 * a skewed collective spread puts above the median step the replay
	 * gives: the fabric factor (campaign.h) */
	in->fabric = exec_mean_step_factor(r);
	in->fabric_samples = r->spread.samples;
	in->step_s = fmax(r->step_s * in->straggler * in->fabric, in->loader_s);
	if (steps_of(s, r, &c, o, &in->steps, diag) != SIM_OK)
		return SIM_ECONF;
	char path[4200];
	table_path(s, rel.table, path, sizeof path);
	campaign_ref ref = {rel.window_s, rel.gpus, rel.nodes, rel.nics, rel.scale};
	int rc = campaign_read_causes(path, &ref, in, diag);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? rc : SIM_ECONF;
	snprintf(in->reliability, sizeof in->reliability, "%s", rel.name);
	if (checkpoints(s, &c, &st, in, diag) != SIM_OK)
		return SIM_ECONF;
	in->requeue_s = c.requeue_s;
	in->start_s = c.start_s;
	in->warmup_steps = c.warmup_steps;
	in->restart_s = c.requeue_s + c.start_s + in->read_s + c.warmup_steps * in->step_s;
	in->spares = c.spares;
	in->spare_swap_s = c.swap_s;
	in->repair_s = c.repair_s;
	in->draws = o && o->draws > 0 ? (int)o->draws : c.draws;
	power(s, r, in);
	/* The Monte Carlo's work is its failures: draws x (expected wall time x
	 * the job's failure rate) (mc.c). Past 2e8 of them (a minute or more on
	 * one core) the answer would take hours: refused up front, naming what
	 * to change, rather than a run that looks hung. */
	double fails = in->draws * campaign_expected_wall(in) * in->rate_s;
	if (!(fails <= 2e8)) {
		sim_diag_error(diag, conf_root_path(s->doc), 0,
			       "the campaign would draw about %.3g failures (%d draws x %.3g each: "
			       "%.3g steps of %.3g s, a failure every %.3g h): more than the 2e8 "
			       "the Monte Carlo takes; train on fewer tokens or steps, on fewer "
			       "GPUs, or with fewer draws",
			       fails, in->draws, fails / (in->draws > 0 ? in->draws : 1), in->steps,
			       in->step_s, in->rate_s > 0 ? 1 / in->rate_s / 3600 : INFINITY);
		return SIM_ECONF;
	}
	return SIM_OK;
}
