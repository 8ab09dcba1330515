/* campaign.h - time to train: a whole pre-training campaign on top of one
 * simulated step, with failures, checkpoints and restarts, by Monte Carlo.
 *
 * A step simulator stops at the step; a buyer asks "how many days, and how
 * much of the time is useful work?". This module takes the step time and the
 * plan's bytes of model state from the step simulation (sim/exec, sim/plan),
 * a [campaign] section (tokens or steps, checkpoint policy, restart costs,
 * hot spares, draws, seed), the cluster's [storage] section (aggregate write
 * and read bandwidth, per-node limit) and a [reliability] section (a table of
 * interruptions per root cause over a reference run, scaled per component),
 * and simulates the campaign draws times with GSL's RNG (sim_rng).
 *
 * The model (derivations in mc.c):
 *  - synchronous training: any failure kills the whole job;
 *  - failures of the job form a Poisson process of rate lambda = sum over
 *    causes of (interruptions / (reference units x reference window)) x
 *    units of this job (per GPU, node or NIC: reliability.c); inter-arrival
 *    times are drawn from the exponential law, never per step;
 *  - the job alternates work segments of `interval` (whole steps) and
 *    checkpoints that stop training for `block` seconds (sync: the write to
 *    storage; async: the copy to host memory, the write then persists in the
 *    background for `persist` seconds, and a failure before it lands rolls
 *    back one more segment);
 *  - a failure loses the work since the last durable checkpoint and costs a
 *    restart (requeue, process start, checkpoint load, warm-up steps), during
 *    which failures can strike again; with hot spares a failure that needs a
 *    node replaced swaps a spare in (spare_swap instead of requeue) while one
 *    is available, the failed node returning after `repair`.
 *  - Time base: double seconds (a campaign of months overflows nothing and
 *    needs no picosecond exactness; the step clock of sim/exec is int64 ps).
 *
 * Who calls it: sim/cli (podsim train), tests/unit/test_campaign.c. store
 * saves campaign_result (schema 8).
 */
#ifndef PODSIM_CAMPAIGN_H
#define PODSIM_CAMPAIGN_H

#include "../cases/cases.h"
#include "../exec/exec.h"

#define CAMPAIGN_MAX_CAUSES 32
#define CAMPAIGN_NAME_MAX 64
#define CAMPAIGN_MAX_DRAWS 1000000
#define CAMPAIGN_MAX_SPARES 4096

/* One root cause of interruptions (a row of the reliability table). */
typedef struct campaign_cause {
	char name[CAMPAIGN_NAME_MAX];     /* "Faulty GPU" */
	char category[CAMPAIGN_NAME_MAX]; /* "GPU" */
	char per[8];                      /* the component it scales with: gpu, node, nic */
	bool replace;                     /* needs a node replaced (hot spares apply) */
	double count;                     /* interruptions in the reference window */
	double ref_units;                 /* components of the reference run */
	double units;                     /* components of this job (GPUs, nodes, NICs) */
	double rate_s;                    /* this job's rate, per second */
} campaign_cause;

/* Everything the Monte Carlo needs, in seconds, bytes, watts. Filled from a
 * scenario by campaign_setup, or by hand (tests). */
typedef struct campaign_input {
	/* the work */
	double step_s;          /* one step of the campaign: the simulated step,
				 * slowed by stragglers and by the fabric's spread,
				 * at least the loader's read */
	double sim_step_s;      /* the simulated step */
	double straggler_sigma; /* per-GPU log-normal jitter of a step (0 = none) */
	double straggler;       /* the step's slowdown factor from stragglers: the
				 * mean sampled step over the simulated one
				 * (exec_stragglers; 1 = none) */
	double straggler_analytic; /* the closed form, every GPU gating the whole
				    * step (campaign_straggler), for comparison */
	double straggler_p95;   /* the sampled steps' 95th percentile over the simulated */
	/* On a cluster with a measured collective spread ([cluster] spread, EFA;
	 * the run's sampled replays, exec_step_spread): the mean sampled step
	 * over the simulated one, what the campaign's steps average (1 = no
	 * spread, or none sampled), and the replays it comes from. A product
	 * with the stragglers' factor: the two are sampled apart (assumed
	 * independent: per-GPU compute jitter, per-call fabric delay). */
	double fabric;
	int fabric_samples;
	int straggler_steps, straggler_replicas; /* sampled steps; replicas of one */
	long straggler_replays; /* replica replays the sampling ran */
	double straggler_bound; /* the largest factor a replica the cap left
				 * unreplayed could have had (0 = exact) */
	double slow_node_prob, slow_node_factor;
	int slow_nodes;         /* nodes slow in the sampled cluster */
	double loader_s;        /* reading one step's tokens from storage */
	double steps;           /* whole steps to train */
	double tokens_per_step;
	int gpus, nodes, nics;
	/* checkpoints */
	double ckpt_bytes;      /* model state written per checkpoint */
	double params, bytes_per_param; /* its derivation (0, 0 when given) */
	double write_Bps, read_Bps;     /* storage bandwidth used (per-node limit applied) */
	double write_s, read_s; /* the whole checkpoint to / from storage */
	bool async;             /* block = copy to host memory, persist = write_s */
	double block_s;         /* training stops for this long per checkpoint */
	double persist_s;       /* async: after the block until durable (0 = sync) */
	double interval_steps;  /* work between checkpoints, whole steps (>= 1) */
	bool interval_auto;     /* Young/Daly's sqrt(2 x block x MTBF) */
	/* restarts: restart_s = requeue + start + read_s + warmup_steps x step_s */
	double requeue_s, start_s;
	int warmup_steps;
	double restart_s;
	int spares;             /* hot spare nodes */
	double spare_swap_s, repair_s;
	/* failures */
	char reliability[CONF_STR_MAX]; /* the table's name */
	double window_s, rate_scale;    /* the table's window and what-if scale */
	int ncauses;
	campaign_cause cause[CAMPAIGN_MAX_CAUSES];
	double rate_s;          /* sum of the causes' rates, per second */
	/* Monte Carlo */
	int draws;
	uint64_t seed;
	/* energy and cost over the wall time (sweep/cost.c's step model: GPUs at
	 * tdp x busy while they train, node power always, times PUE) */
	double train_w, idle_w; /* whole cluster while training / stopped */
	double gpu_hour_usd, grid_kg_per_kwh;
} campaign_input;

typedef struct campaign_stats {
	double mean, sd, p10, p50, p90;
} campaign_stats;

#define CAMPAIGN_HIST_BINS 40

typedef struct campaign_result {
	campaign_input in;
	double work_s;          /* steps x step_s: the useful time */
	double ideal_days;      /* work plus checkpoints, no failures */
	double expected_days;   /* closed form (campaign_expected_wall; NaN with spares) */
	campaign_stats days, interruptions, goodput;
	campaign_stats ckpt_h, restart_h, lost_h; /* time lost, hours */
	campaign_stats energy_mwh, cost_musd, tco2;
	double cause_mean[CAMPAIGN_MAX_CAUSES]; /* mean interruptions per cause */
	double spares_used;     /* mean spare swaps per campaign */
	/* the goodput's histogram: bins of equal width over [hist_lo, hist_hi] */
	double hist_lo, hist_hi;
	int hist[CAMPAIGN_HIST_BINS];
	double wall_s;          /* the Monte Carlo's own run time (not stored) */
} campaign_result;

/* Young's first-order optimum of the work between checkpoints,
 * sqrt(2 x block x MTBF) (Young 1974, CACM 17(9); the leading term of
 * Daly 2006's): the interval minimising the expected loss per unit work,
 * block/tau + tau/(2 M). */
double campaign_young_daly(double block_s, double mtbf_s);

/* Stragglers, analytically: each of n GPUs takes a step slowed by a factor
 * e^{sigma z}, z standard normal and independent per GPU and step; a
 * synchronous step waits for the slowest, e^{sigma E[max of n z]}. E[max]
 * by Blom's approximation, Phi^-1((n - 0.375) / (n + 0.25)) (1958; within
 * 5 % of the exact expected maxima 0.5642, 1.1630, 1.5388 for n = 2, 5,
 * 10). It charges the whole step to the slowest GPU; campaign_setup
 * simulates instead (exec_stragglers: the slowest of each synchronised
 * group, per pipeline replica, only the compute slowed) and prints this
 * bound beside it. */
double campaign_straggler(double sigma, double n);
double campaign_expected_max_normal(double n);

/* The expected wall time of a synchronous campaign without spares, in
 * closed form (Daly 2006; derivation in mc.c):
 *   E = (n - 1) e^{lR} (e^{l(tau + C)} - 1) / l + e^{lR} (e^{l t_last} - 1) / l
 * for n segments, the last of t_last work without a checkpoint. */
double campaign_expected_wall(const campaign_input *in);

/* Run the Monte Carlo: in->draws campaigns seeded by in->seed. The same input
 * gives the same result, bit for bit. SIM_OK, SIM_EINVAL (inconsistent
 * input: no steps, interval < 1 step, negative rates), SIM_ENOMEM. */
int campaign_run(const campaign_input *in, campaign_result *out);

/* One campaign's timeline, for drawings (the HTML page): the first draw of
 * campaign_run (same seed, same draw) as stretches of training (work and
 * checkpoints between restarts), failures (instants) and restarts. */
typedef enum { CAMPAIGN_EV_TRAIN, CAMPAIGN_EV_FAILURE, CAMPAIGN_EV_RESTART } campaign_ev_kind;
typedef struct campaign_event {
	double start_s, dur_s;
	int kind;  /* campaign_ev_kind */
	int cause; /* failures: index into in->cause, -1 when none */
} campaign_event;
/* Fill *ev (malloc'd, caller frees) and *n. SIM_OK, SIM_EINVAL, SIM_ENOMEM. */
int campaign_timeline(const campaign_input *in, campaign_event **ev, size_t *n);

/* Command-line overrides of [campaign] (negative = not given). */
typedef struct campaign_opts {
	double tokens;
	double steps;
	long draws;
	long long seed;
} campaign_opts;

/* Fill *in from the scenario's [campaign], [storage] and [reliability]
 * sections and the simulated step r: steps from tokens, checkpoint bytes
 * from the plan (parameters x bytes of weights and optimizer states per
 * parameter, plan_param_bytes), write and read times, the interval (auto or
 * given, at least one step), restart cost, the failure causes scaled to this
 * job's GPUs, nodes and NICs, power and prices. Errors are "path:line:
 * error: ..." in diag; SIM_ECONF, SIM_EIO (table unreadable), SIM_ENOMEM. */
int campaign_setup(const plan_scenario *s, const exec_result *r, const campaign_opts *o,
		   campaign_input *in, sim_diag *diag);

/* The reliability table (reliability.c): read a CSV of interruptions per
 * root cause (columns component, category, interruptions, per, replace) and
 * scale it to a job: rate = interruptions / (reference units of `per` x
 * window_s) x units of this job, times scale. Negative counts, unknown
 * `per` values are "path:line: error:". */
typedef struct campaign_ref {
	double window_s;
	double gpus, nodes, nics; /* the reference run's component counts */
	double scale;             /* what-if multiplier of every rate */
} campaign_ref;
int campaign_read_causes(const char *path, const campaign_ref *ref, campaign_input *in,
			 sim_diag *diag);

/* The campaign as text (after the step's report), and as one JSON object
 * appended to b (print.c); id = its stored id (0 = not stored). */
void campaign_print_text(FILE *out, const campaign_result *r, int64_t id);
void campaign_json_buf(sim_buf *b, const campaign_result *r, int64_t id);

/* podsim explain's section on the campaign (explain.c): the job's failure
 * rate derived cause by cause from the table, its MTBF, the checkpoint's
 * bytes and times, Young/Daly's interval with its values, the restart, and
 * the closed-form expected days and goodput; `number` heads the section. */
void campaign_explain(FILE *out, const campaign_input *in, int number);

/* Key tables of [campaign], [storage] and [reliability], for `podsim keys`. */
extern const conf_key campaign_keys[], campaign_storage_keys[], campaign_reliability_keys[];
extern const size_t campaign_nkeys, campaign_storage_nkeys, campaign_reliability_nkeys;

#endif
