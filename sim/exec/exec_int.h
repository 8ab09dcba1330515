/* exec_int.h - internals shared by the files of sim/exec. */
#ifndef PODSIM_EXEC_INT_H
#define PODSIM_EXEC_INT_H

#include "exec.h"

/* A replay of g set up once (predecessor lists, stream FIFOs) and run as
 * often as wanted, for the sampled replays of the step's spread
 * (spread.c): each run replays g on c as exec_replay does, reading the
 * tasks' durations from g->tasks at that moment, and gives only the step
 * time (the last task's end): no breakdown, links or views. SIM_OK,
 * SIM_ENOMEM or SIM_EINVAL (a cycle). g must outlive the replayer. */
typedef struct exec_replayer exec_replayer;
int exec_replayer_new(const plan_graph *g, exec_replayer **out);
int exec_replayer_run(exec_replayer *x, const net_cluster *c, sim_time *step);
void exec_replayer_free(exec_replayer *x);

/* The data-parallel replicas of a plan, each replayed with its own
 * durations (straggle.c, where the model and the pruning are derived; the
 * stragglers' step and the mixed nodes' step, mixed.c, share it). A stage
 * instance is one stage of one replica, index d * pp + k; its GPU kind is
 * EXEC_GPU_MAIN (every rank on the node's GPU), _OTHER (every rank on
 * other_gpu) or _BOTH (some of each: lockstep at the slower). */
enum { EXEC_GPU_MAIN = 0, EXEC_GPU_BOTH, EXEC_GPU_OTHER };

typedef struct exec_replica_order {
	double F; /* the replica's bound factor */
	int d;
} exec_replica_order;

typedef struct exec_replicas {
	const plan_graph *g; /* the rank-class graph on the node's GPU */
	plan_graph gs;       /* g with one replica's durations (tasks, rank_interference) */
	plan_task *tasks;
	exec_replayer *x;    /* replays gs */
	const net_cluster *c;
	int64_t ranks;
	int gpn, pp, dp, tp, cp, ep;
	int stride[PLAN_DIMS];
	int *up;             /* per instance the root of its EP groups' union; NULL: ep 1 */
	exec_replica_order *ord;
	double base_s;       /* g's step (every GPU of the main type) */
	/* mixed nodes (NULL, 0 when every node is alike) */
	uint8_t *kind;       /* per instance: EXEC_GPU_* */
	sim_time *other;     /* per task: its duration on other_gpu and its node's links */
	/* with other_gpu's own node (plan_scenario.other_links): per task its
	 * duration on the links of both node types' slowest (net_node_slowest),
	 * for transfers whose group spans both; NULL otherwise */
	sim_time *meet;
	/* per task its SM share over the interference (plan_graph.sm_scale):
	 * on other_gpu's twin (oscale), on the slowest links' twin (mscale,
	 * with meet), and the replica set's (scale, the replays' graph's) */
	float *oscale, *mscale, *scale;
	uint8_t *dpkind;     /* per stage: the kind of its data-parallel groups (links) */
	double ratio;        /* bound factor of a mixed instance (straggle.c) */
	double *intf;        /* per rank class: interference of the replica set */
	double intf_kind[3];
	double *eps;         /* ... and the DeepEP kernels' SM share (ep_share) */
	double eps_kind[3];
	int mixed_replicas;  /* replicas with an instance not EXEC_GPU_MAIN */
	int kinds;           /* distinct replicas replayed by the last step */
} exec_replicas;

/* Set up the replicas of s, whose graph (plan_build) is g; with mixed nodes
 * also builds g's twin on s->other_gpu. SIM_OK, SIM_ENOMEM, SIM_EINVAL. */
int exec_replicas_open(const plan_scenario *s, const plan_graph *g, exec_replicas **out);
void exec_replicas_close(exec_replicas *x);
/* Replica d's durations into x->gs: each task's on its instance's kind,
 * compute tasks times f[d * pp + k] (f NULL: 1). Returns &x->gs. */
const plan_graph *exec_replicas_set(exec_replicas *x, const double *f, int d);
/* One step: the slowest replica's (*slowest) under factors f (NULL: none;
 * then equal replicas share one replay, exactly), pruned by the bound
 * unless exhaustive; max_replays > 0 caps the replays, *bound gets the
 * largest bound left. */
int exec_replicas_step(exec_replicas *x, const double *f, bool exhaustive, int max_replays,
		       double *step, int *slowest, long *replays, double *bound);

/* The mixed nodes' step (mixed.c): the replicas of s (graph g) with their
 * kinds, the slowest found (equal replicas replayed once), *out left set to
 * it for the caller's replay with views (&(*out)->gs; close it after), and
 * what it costs into *m (the memory on the other GPU too). */
int exec_mixed_open(const plan_scenario *s, const plan_graph *g, exec_mixed *m,
		    exec_replicas **out);

#endif
