/* sweep_int.h - internals of the sweep module shared by space.c (spaces,
 * sweep files), screen.c (pruning and the closed-form pre-screen), cost.c
 * and rank.c. Other modules use sweep.h. */
#ifndef PODSIM_SWEEP_INT_H
#define PODSIM_SWEEP_INT_H

#include "sweep.h"

#include <limits.h>

/* One dimension: a key, its key-table entry and its values, as text and
 * parsed (integers, enum indices and booleans as doubles, quantities in SI). */
typedef struct sweep_dim {
	char key[SWEEP_KEY_MAX];     /* "parallel.tp" */
	char section[SWEEP_KEY_MAX]; /* "parallel" */
	const conf_key *k;           /* NULL for the topology */
	bool is_auto;
	bool topology;      /* "topology": values are topology files ... */
	char dir[PATH_MAX]; /* ... relative to this folder ("" = working dir) */
	size_t n;
	char value[SWEEP_MAX_VALUES][SWEEP_VALUE_MAX];
	double num[SWEEP_MAX_VALUES];
} sweep_dim;

struct sweep_space {
	size_t ndims;
	bool dp_auto; /* parallel.dp=auto was given: dp is derived */
	sweep_dim dims[SWEEP_MAX_DIMS];
};

/* sweep_space_add with relative topology files resolved from dir. */
int sweep_space_add_in(sweep_space *sp, const char *spec, const char *dir, const char *path,
                       int line, sim_diag *diag);
/* Topology value j of dimension d as a path from the working directory. */
void sweep_dim_file(const sweep_dim *d, size_t j, char *out, size_t len);
/* The dimension index of the topology, or -1. */
int sweep_space_topology(const sweep_space *sp);

/* swap.c: the scenario at path with its cluster include replaced by topo
 * and the sets written in, loaded (the text: sweep_topology_text, sweep.h). */
int sweep_topology_load(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, plan_scenario **out);
/* The base scenario of a topology: sweep_topology_load with dp = GPUs /
 * (tp*pp*cp) of the scenario's plan, so that it fills the new cluster. */
int sweep_topology_base(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, plan_scenario **out);

/* The key-table entry of SECTION.KEY, or NULL. */
const conf_key *sweep_find_key(const char *section, const char *key);
/* Parse text as a value of k: SIM_OK with *out, or SIM_ECONF with why in err. */
int sweep_parse_value(const conf_key *k, const char *text, double *out, char *err, size_t len);
/* Is dimension d a [parallel] key or cluster.nodes (applied to a copy)? */
bool sweep_dim_fast(const sweep_dim *d);

/* The screen of plans i with i % nparts == part only (sweep_screen is part
 * 0 of 1); the other plans are left zero. */
int sweep_screen_part(const sweep_space *sp, const plan_scenario *base, const char *path,
                      const char *const *sets, size_t nsets, uint64_t part, uint64_t nparts,
                      sweep_screen_result *out);
/* After every part's plans were put into r: count valid, fitting and the
 * reasons again in plan order, reading plan i's reason and its example from
 * the tables of part i % nparts (reasons[part * SWEEP_MAX_REASONS + reason],
 * examples[...] alike), so the result equals one sweep_screen of the whole
 * space: the first plan in plan order with a reason is also the first of its
 * part, so its part's example is its own message. */
void sweep_screen_recount(sweep_screen_result *r, const char (*reasons)[SWEEP_REASON_MAX],
                          const char (*examples)[SWEEP_REASON_MAX], uint64_t nparts);

/* The pre-screen's order of fitting plans (estimated step, then index):
 * sweep_best's, and the exact search's second round (exact.c). */
int sweep_plan_order(const sweep_plan *x, const sweep_plan *y);

/* A collective's time on group g by the closed forms (net_collective; 0 for
 * a group of one rank or a failed costing), and the compute's slowdown
 * beside it (the GPU's interference at the channels g's communicator runs
 * it on, plan_coll_scale, as the replay charges it). estimate.c. */
/* estimate.c: the pre-screen of s (sweep_estimate_plan, estother.c), the
 * stages on_o[st] on the other GPU type's view o (NULL: all on s). */
void sweep_estimate_one(const plan_scenario *s, const plan_scenario *o, const bool *on_o,
                        sweep_estimate *e);
/* rank.c: est.mem_share, the need of a plan's memory basis over its
 * capacity (sweep_mem_basis_of; HUGE_VAL where nothing holds it). */
double sweep_mem_share(const plan_scenario *s, const plan_mem_fit *f);
double sweep_coll_time(const plan_scenario *s, net_coll c, const net_group *g, double bytes);
double sweep_coll_intf(const plan_scenario *s, net_coll c, const net_group *g, double bytes);
/* ZeRO-3 / FSDP's exposed data-parallel time of a step of m micro-batches
 * whose busiest stage has `layers` layers, each's forward fwd_l and
 * backward bwd_l (estz3.c has the derivation). */
double sweep_z3_exposed(const plan_scenario *s, const plan_groups *g, double fwd_l,
                        double bwd_l, int layers, int m);
/* The same time by where the chains pay it, for the pipeline walk to run
 * with each stage's passes (estz3.c): per layer and micro-batch in the
 * forward and the backward, per chunk's chain and micro-batch (its first
 * gather, chunk_f; with its backward's last reduction, chunk_b), per stage
 * and micro-batch after its backward (the ends, the buckets' tail and
 * hold-ups), and once a step; walk false where the step's gathers are not
 * per micro-batch (torch pipelining's, plan_zero3_pp_gathered: all of it in
 * step). With vpp chunks a stage, sweep_z3_exposed = layers m (layer_f +
 * layer_b) + vpp m (chunk_f + chunk_b) + m mb + step. */
typedef struct sweep_z3_parts {
	double layer_f, layer_b, chunk_f, chunk_b, mb, step;
	bool walk;
} sweep_z3_parts;
void sweep_z3_split(const plan_scenario *s, const plan_groups *g, double fwd_l, double bwd_l,
                    int layers, int m, sweep_z3_parts *out);
/* ZeRO-Inference's weights streamed from the host (inference with
 * offload_params), exposed beyond the forwards: per micro-batch the first
 * layer's fetch, and each later layer's excess over the layer before it
 * (estz3.c). */
double sweep_z3_stream_exposed(const plan_scenario *s, const plan_groups *g, double fwd_l,
                               int layers, int m);

/* What the pipeline walk takes (pipewalk.c has the edges and why), per
 * virtual stage v (v = the stage without interleaving): its forward and
 * backward of a micro-batch F[v] and B[v] (under zero bubble B the input
 * gradients', W[v] the weight pass; W may be NULL without one), its send
 * forward xf[v] and back xb[v]; per stage, last[st] more on its last op
 * (the compute its gradient buckets slow beside them; NULL: none). */
typedef struct sweep_walk_in {
	const double *F, *B, *W, *xf, *xb, *last;
	/* per virtual stage, or NULL: ZeRO-3's gather of a chain's first
	 * layer (pre) and its backward's last reduction (post) on the DP
	 * stream, which orders them and nothing else (pipewalk.c) */
	const double *pre, *post;
} sweep_walk_in;
/* The span from the first op to the last op or send of the latest stage,
 * or -1 (out of memory, a stall); with ends, each stage's last op's end.
 * sweep_pipe_walk_m walks m micro-batches in interleaving groups of g;
 * sweep_pipe_walk the plan's, extrapolated from three shorter walks when
 * they are many and the span grows alike. */
double sweep_pipe_walk(const plan_scenario *s, const sweep_walk_in *in, double *ends);
double sweep_pipe_walk_m(const plan_scenario *s, int m, int g, const sweep_walk_in *in,
                         double *ends);

#endif
