/* exec.h - replay of a plan's task graph on the event engine, and the metrics
 * of the step.
 *
 * Semantics (CUDA-stream-like): each rank class has PLAN_STREAM_COUNT streams;
 * tasks on one stream run one at a time in the order they were added to the
 * graph; a task starts when its stream is free and every predecessor has ended,
 * and runs for its duration. The compute stream's idle gaps are attributed to
 * what it waited on (see exec.c for the rules), so that per rank class the
 * categories of exec_result sum to the step time.
 */
#ifndef PODSIM_EXEC_H
#define PODSIM_EXEC_H

#include "../plan/plan.h"
#include "result.h"

/* Replay g and fill the per-class times, step time and link loads of *r.
 * SIM_OK or SIM_ENOMEM; SIM_EINVAL if the graph has a cycle (a plan bug). */
int exec_replay(const plan_graph *g, const net_cluster *c, exec_result *r);

/* Whole run: build the graph of s, replay it, and fill every field of *r
 * (identity, headline metrics, memory, links). */
int exec_run(const plan_scenario *s, exec_result *r);

/* One compute-stream task of the replayed timeline, for drawings (the HTML
 * report's Gantt chart). */
typedef struct exec_span {
	double start_s, dur_s;
	int32_t rank;  /* rank class */
	int32_t mb;    /* micro-batch, -1 if none */
	int16_t layer; /* -1 if none */
	uint8_t kind;  /* plan_task_kind: PLAN_TASK_FWD .. PLAN_TASK_OPTIM */
} exec_span;

/* Every compute-stream task of a replay, per rank class in start order (ranks
 * in turn). spans is malloc'd by the replay; release it with
 * exec_timeline_free. */
typedef struct exec_timeline {
	size_t n;
	exec_span *spans;
	/* Allocated memory over the step on the most loaded rank class
	 * (plan_memory_curve placed at its schedule ops' times): mem_n points
	 * (time, bytes) in time order, a polyline; NULL when not filled. */
	int mem_rank;
	size_t mem_n;
	double *mem_t, *mem_b;
} exec_timeline;

void exec_timeline_free(exec_timeline *t);

/* Extra views of the replayed timeline (any may be NULL / 0):
 *  trace: Chrome trace event format that Perfetto and chrome://tracing open:
 *         one process per rank class, one thread per stream, one complete
 *         event ("ph":"X") per task with its kind, layer, micro-batch and
 *         bytes; times in microseconds.
 *  gantt: a text chart of each rank class's compute stream over the step,
 *         gantt_width columns wide, like the textbook pipeline figures.
 *  timeline: when non-NULL, filled with the compute-stream tasks (exec_span). */
/* The step's spread (spread.c, where the sampling and its assumptions are
 * derived): on a cluster with a measured collective spread ([cluster]
 * spread), `samples` replays of the step in which the network part of
 * every collective across nodes is slowed by a draw from the spread at its
 * group's node count (net_spread_at); the draws of a replay share a
 * Gaussian component of weight `corr` (the rest is each call's own), so
 * corr = 1 moves every call together (each call's quantiles become the
 * step's where it is all exposed network) and corr = 0 draws them
 * independently. Seeded through core's RNG: equal options give equal
 * quantiles. */
typedef struct exec_spread_opts {
	int samples;   /* 0 = no spread */
	uint64_t seed; /* RNG seed */
	double corr;   /* in [0, 1]; < 0 = the cluster's spread_correlation */
	int threads;   /* replays at once; 0 = the CPUs it may use (the result is
	                * the same for any count: spread.c) */
} exec_spread_opts;

#define EXEC_SPREAD_SAMPLES 100    /* the default of podsim run and explain */
#define EXEC_SPREAD_MAX 100000     /* the most --spread-samples accepts */

/* The step's spread of graph g on c into *out (exec_run_views calls it with
 * views->spread; public for synthetic graphs in tests): o->samples replays
 * with the durations of the tasks that plan_graph.net_frac marks drawn
 * from c's spread; the quantiles of their step times, or step_s for all of
 * them when no task varies. *out is zeroed (no spread) when o asks for no
 * samples or c has no spread. SIM_OK, SIM_ENOMEM or SIM_EINVAL (a cycle). */
int exec_spread(const plan_graph *g, const net_cluster *c, double step_s,
		const exec_spread_opts *o, exec_step_spread *out);
/* What a long run's steps average over the simulated step: the mean of r's
 * sampled replays over r->step_s where it has them (the measured spread is
 * skewed above its median), else 1. podsim train's fabric factor and the
 * sweep's time to train. */
double exec_mean_step_factor(const exec_result *r);

/* Stragglers (straggle.c, where the model is derived): the step when GPUs
 * differ. Each GPU's compute runs e^{sigma z} slower (z standard normal,
 * drawn afresh per GPU and step: clock and thermal jitter), times
 * slow_factor on the nodes drawn slow (each with probability slow_prob,
 * persistent over the sampled steps) or listed in slow_nodes. A step waits
 * for its slowest participants where the plan synchronises them: the TP
 * and CP ranks of a stage (and EP groups) in lockstep, the stages of a
 * pipeline replica through its schedule, the replicas at the step's end.
 * Each replica is replayed with its stages' compute slowed (pruned where a
 * replica cannot beat the slowest found); the step is the slowest replica.
 * Seeded through core's RNG: equal options give equal answers. */
#define EXEC_STRAGGLE_MAX_LISTED 64
typedef struct exec_straggle_opts {
	double sigma;        /* per-GPU per-step log-normal jitter (0 = none) */
	double slow_prob;    /* probability that a node is slow */
	double slow_factor;  /* a slow node's compute slowdown (>= 1) */
	int slow_nodes[EXEC_STRAGGLE_MAX_LISTED]; /* nodes known to be slow */
	int nslow;
	int steps;           /* sampled steps (>= 1) */
	int max_replays;     /* per sampled step (0 = no cap): past it the
			      * remaining replicas are bounded, not replayed */
	uint64_t seed;
	bool exhaustive;     /* replay every replica (no pruning; tests) */
} exec_straggle_opts;

typedef struct exec_straggle {
	double base_s;       /* the step with every GPU alike */
	double mean_s, p50_s, p95_s, max_s; /* over the sampled steps */
	double factor;       /* mean_s / base_s */
	int steps, replicas; /* sampled steps; pipeline replicas of a step */
	long replays;        /* replica replays run, all steps */
	double bound_s;      /* the largest bound of a replica the cap left
			      * unreplayed, any step (0 = none left: exact) */
	int slow_nodes;      /* nodes slow (drawn and listed) */
} exec_straggle;

/* The straggler step of s (builds its graph). SIM_OK, SIM_ENOMEM,
 * SIM_EINVAL (a bad option or a cycle) or plan_build's error. */
int exec_stragglers(const plan_scenario *s, const exec_straggle_opts *o, exec_straggle *out);

/* Mixed GPU types (mixed.c, straggle.c): on a cluster whose nodes are not
 * all one GPU type ([cluster] other_gpu, other_nodes; plan_scenario
 * other_gpu, other_node) exec_run_views builds the graph on both GPU types
 * (the same tasks; each compute task's duration from hw on its own GPU) and
 * replays every distinct data-parallel replica: a stage instance runs each
 * task at its GPUs' time (the slower one's where both types meet in it) and
 * with their interference (the larger); the step is the slowest replica's, whose
 * graph is then replayed with the views (the breakdown, MFU and links are
 * that replica's; MFU is against the node type's peak on every GPU).
 * exec_result.mixed says what the mixed nodes cost: the step with every
 * node alike, the slowest replica and stage, and the memory verdict on the
 * other GPU's capacity. Approximated: collectives, copies and link loads
 * keep the main node type's NVLink, NICs and fabric (a DGX A100 node's
 * NVLink 3 is not modelled in an H100 cluster); the energy lines and the
 * error band are the main GPU's. exec_stragglers puts stragglers on top
 * (its base_s is then the mixed step). With every node alike nothing of
 * this runs: the rank-class replay as before. */

typedef struct exec_views {
	FILE *trace;
	FILE *gantt;
	int gantt_width;
	exec_timeline *timeline;
	/* when non-NULL with samples > 0 and the cluster has a spread: fill
	 * exec_result.spread (else it stays 0: no spread) */
	const exec_spread_opts *spread;
	/* true: leave exec_result.uplinks empty, without the second replay that
	 * prices the shared uplinks (exec_uplinks: on an oversubscribed fabric
	 * where they slowed a transfer, the graph replayed again with them
	 * unshared); the sweep, which prints no run report, skips it */
	bool skip_unshared;
} exec_views;

int exec_run_views(const plan_scenario *s, exec_result *r, const exec_views *v);
int exec_replay_views(const plan_graph *g, const net_cluster *c, exec_result *r,
		      const exec_views *v);

#endif
