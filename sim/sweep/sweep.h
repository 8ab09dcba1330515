/* sweep.h - exploring a space of plans: enumeration, pruning, a closed-form
 * pre-screen, the ranking of what is simulated, cost and energy.
 *
 * A space is a list of dimensions, each a configuration key (SECTION.KEY, the
 * same names as `--set`) and its values, given by `--vary parallel.tp=1,2,4`
 * flags or by a sweep file (see sweep_file_load). `auto` enumerates the values
 * that can be valid on the base scenario (sweep_space_resolve). Plans are the
 * Cartesian product in the order the dimensions were given, the last
 * dimension varying fastest, so plan i is the same plan on every run.
 *
 * Derived dp: when the space does not list parallel.dp but varies tp, pp, cp
 * or cluster.nodes, each plan's dp is GPUs / (tp * pp * cp) (plans where that
 * is not an integer are pruned): the plan fills the cluster.
 *
 * Stages (sweep_screen): every plan is checked by plan_check (invalid plans
 * pruned, counted by the checker's message with numbers replaced by '#', the
 * first plan's message kept as the example),
 * then by plan_memory_fit (plans that `podsim run` would call out of memory,
 * on the GPU, on [cluster] other_gpu's nodes, or in host DRAM or NVMe for
 * offloaded states, pruned before any simulation), then timed by the closed-form model of estimate.c, which also
 * gives each plan an admissible lower bound on its simulated step. The CLI
 * then simulates the best K with the discrete-event engine and, unless --top
 * was given, every other plan whose bound is under the best of them
 * (sweep_exact_candidates): the exact search.
 *
 * Layer: after valid; uses plan, exec (results), work, hw, net, conf, core.
 */
#ifndef PODSIM_SWEEP_H
#define PODSIM_SWEEP_H

#include "../exec/exec.h"

#define SWEEP_MAX_DIMS   16
#define SWEEP_MAX_VALUES 512
#define SWEEP_VALUE_MAX  128
#define SWEEP_KEY_MAX    64

typedef struct sweep_space sweep_space;

sweep_space *sweep_space_new(void);
void sweep_space_free(sweep_space *sp);

/* Add a dimension from "SECTION.KEY=V1,V2,..." or "SECTION.KEY=auto". The key
 * must be a known configuration key, each value valid for its type and range
 * (checked here), no key twice. Errors go to diag at (path, line); with line
 * 0 as "PATH: error: --vary SPEC: ..." (PATH e.g. "podsim sweep"). SIM_OK or
 * SIM_ECONF. */
int sweep_space_add(sweep_space *sp, const char *spec, const char *path, int line, sim_diag *diag);
/* The same, its errors as "PATH: error: FLAG SPEC: ..." (another command's
 * option than --vary, e.g. explain's --against). */
int sweep_space_add_as(sweep_space *sp, const char *spec, const char *flag, const char *path,
                       sim_diag *diag);

/* Replace `auto` dimensions by their values on the base scenario s (G GPUs,
 * L layers, a heads, g kv_heads, B global batch):
 *   tp: t | G, t | a and (t | g or g | t)   pp: p | G with an even layer split
 *   vpp: v | L                              micro_batch: m | B
 *   dp: G / (tp*pp*cp), derived per plan (the only valid value)
 *   enums and booleans: every choice; zero: 0..3.
 * SIM_OK, or SIM_ECONF for a key that has no auto (diag). */
int sweep_space_resolve(sweep_space *sp, const plan_scenario *s, sim_diag *diag);

size_t sweep_space_ndims(const sweep_space *sp);
/* "parallel.tp"; the number of values; value j as text. */
const char *sweep_space_key(const sweep_space *sp, size_t dim);
size_t sweep_space_nvalues(const sweep_space *sp, size_t dim);
const char *sweep_space_value(const sweep_space *sp, size_t dim, size_t j);
/* Plans in the product (0 for an empty space: one plan, the base). */
uint64_t sweep_space_size(const sweep_space *sp);
/* The most plans a sweep enumerates: the pre-screen keeps every plan (a
 * sweep_plan, about 100 bytes) in memory, so 2^21 plans take about 200 MB
 * and a minute at the pre-screen's ~40k plans/s. Larger spaces are refused
 * up front with their size (podsim sweep), not allocated. */
#define SWEEP_MAX_PLANS ((uint64_t)1 << 21)
/* Does each plan derive dp (see above)? */
bool sweep_space_derives_dp(const sweep_space *sp);
/* The value index of each dimension of plan i (last dimension fastest). */
void sweep_space_plan(const sweep_space *sp, uint64_t i, size_t idx[SWEEP_MAX_DIMS]);
/* The space as "KEY=V1,V2\n" lines (what the database stores). malloc'd. */
char *sweep_space_text(const sweep_space *sp);

/* --------------------------------------------------------- sweep files -- */

/* A sweep file holds one [sweep] section:
 *     [sweep]
 *     scenario = gpt3-13b.ini      ; base scenario, relative to this file
 *     top = 16                     ; plans to simulate (default 32)
 *     tp = auto                    ; a key per dimension, named after what it
 *     pp = 1,2,4,8                 ; varies: the [parallel] keys, and nodes
 *     micro_batch = 1,2,4          ; (cluster.nodes), precision (train.precision)
 *     recompute = none,full
 * Unknown keys and sections are errors with did-you-mean notes; dimensions
 * are added in the key table's order. */
typedef struct sweep_file {
	char scenario[4096]; /* resolved from the sweep file's folder */
	int top;             /* 0 = not set */
} sweep_file;

extern const conf_key sweep_keys[];
extern const size_t sweep_nkeys;

/* Load path as a sweep file when it has a [sweep] section: fill *f and add
 * its dimensions to sp, *is_sweep = true. A file without one is left to the
 * caller as a scenario (*is_sweep = false). SIM_OK, SIM_ECONF, SIM_ENOMEM. */
int sweep_file_load(const char *path, sweep_space *sp, sweep_file *f, bool *is_sweep,
                    sim_diag *diag);

/* ------------------------------------------------------------ screening -- */

/* Closed-form figures of one plan (screen.c has the derivation). */
typedef struct sweep_estimate {
	double step_s;
	double compute_s;        /* bottleneck stage's forward+backward(+recompute) kernels x m */
	double bubble_s;         /* pipeline fill and drain */
	double tp_s, pp_s, dp_s; /* exposed communication */
	double optimizer_s;
	/* An admissible lower bound on the simulated step (estimate.c, bound_of):
	 * the GPU time of the kernels on the busiest path, nothing exposed; the
	 * exact search (sweep_exact_*) stops when no plan left can beat the best */
	double bound_s;
	/* plan_memory_fit: the worst stage's device total on the GPU, the
	 * plan's verdict (the worst over the GPU types it runs on and the
	 * offload tiers: the run's exec_mem_verdict), and where the plan does
	 * not fit (the GPU, other_gpu, host DRAM or NVMe: the sweep prunes it) */
	double mem_peak_bytes;
	plan_verdict mem_verdict;
	plan_oom mem_oom;
	/* The share of its capacity the verdict's basis demands: allocated +
	 * runtime over the HBM of the GPU that decides (the scenario's or
	 * other_gpu), or the offloaded bytes over the node's host memory or NVMe
	 * where those overflow; above 1 does not fit (sweep_nearest_no_fit) */
	double mem_share;
} sweep_estimate;

/* The pre-screen of a checked scenario (plan_check passed, vlayers set). */
void sweep_estimate_plan(const plan_scenario *s, sweep_estimate *e);

typedef enum { SWEEP_OK = 0, SWEEP_INVALID, SWEEP_NO_FIT } sweep_status;

typedef struct sweep_plan {
	uint64_t index; /* position in the product */
	sweep_status status;
	int reason; /* index into the result's reasons when pruned */
	int gpus;
	int dp; /* the plan's dp (derived or given) */
	sweep_estimate est;
} sweep_plan;

#define SWEEP_MAX_REASONS 64
#define SWEEP_REASON_MAX  256

/* Pruned plans are counted per reason: reasons[k] is the message with its
 * numbers replaced by '#' (so "tp = 3 does not divide ..." and "tp = 5 ..."
 * count as one), examples[k] the full message of the first plan, in plan
 * order, pruned for it ("global_batch = 100 is not a multiple of
 * micro_batch*dp = 4*8 = 32"). When the table is full, the last slot
 * becomes "other reasons" and keeps the example it had. */
typedef struct sweep_screen_result {
	sweep_plan *plans; /* every plan of the product, in order */
	uint64_t nplans, valid, fitting;
	int nreasons;
	char reasons[SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	char examples[SWEEP_MAX_REASONS][SWEEP_REASON_MAX];
	uint64_t reason_count[SWEEP_MAX_REASONS];
	double wall_s; /* time the screen took */
} sweep_screen_result;

/* Screen every plan of sp (resolved) on the scenario at `path` with the
 * user's `sets` applied first. Plans varying only [parallel] keys and
 * cluster.nodes are applied to a copy of the loaded scenario; others reload
 * the scenario with --set overrides. SIM_OK or SIM_ENOMEM; the base
 * scenario's errors are the caller's (load it first). */
int sweep_screen(const sweep_space *sp, const plan_scenario *base, const char *path,
                 const char *const *sets, size_t nsets, sweep_screen_result *out);
void sweep_screen_free(sweep_screen_result *r);

/* The --set assignments of plan i ("parallel.tp=4", with the derived dp),
 * written into out[SWEEP_MAX_DIMS + 1][SWEEP_KEY_MAX + SWEEP_VALUE_MAX];
 * returns how many. */
#define SWEEP_SET_MAX (SWEEP_KEY_MAX + SWEEP_VALUE_MAX + 2)
size_t sweep_plan_sets(const sweep_space *sp, const sweep_plan *p,
                       char out[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX]);

/* Load plan p's scenario: the file at path with the user's sets, then the
 * plan's (sweep_plan_sets) - exactly what `podsim run path --set ...` runs.
 * plan_scenario_load's codes; errors in diag. */
int sweep_plan_load(const sweep_space *sp, const sweep_plan *p, const char *path,
                    const char *const *sets, size_t nsets, sim_diag *diag, plan_scenario **out);

/* The memory a plan's verdict is decided on (plan_memory_fit's order):
 * where it does not fit, the tier that overflows (the scenario's GPU,
 * other_gpu, the node's host memory or NVMe); else the fuller of the GPU
 * types. need: allocated + runtime of the deciding stage (the offloaded
 * bytes per node for host or NVMe), capacity: that tier's, device: the
 * stage's device total with the allocator's cache (0 for host or NVMe). */
typedef struct sweep_mem_basis {
	const char *tier; /* "GPU", "other_gpu", "host memory", "NVMe" */
	int stage;        /* the deciding stage, -1 for host or NVMe */
	double need, capacity, device;
} sweep_mem_basis;
void sweep_mem_basis_of(const plan_scenario *s, const plan_mem_fit *f, sweep_mem_basis *out);

/* What makes a plan that does not fit, or is tight, fit without changing
 * its split of the GPUs (remedy.c has the space and why): the combination
 * of a smaller micro-batch, recomputation (of the fewest layers that fit),
 * a higher ZeRO stage, optimizer and parameter offload, the checkpoint's
 * offload and sequence parallelism that fits with the shortest
 * pre-screen estimate (fits before tight, then fewer changes), and the
 * fastest tight one where it beats that. found =
 * false when the plan fits, is an inference plan, or no combination gets
 * it out of memory. SIM_OK or SIM_ENOMEM. */
typedef struct sweep_remedy {
	bool found;
	char what[160];            /* "micro_batch = 2, zero = 1" */
	int changes;               /* keys changed */
	plan_verdict verdict;      /* the changed plan's: fits, else tight */
	double device, share;      /* its est.mem_peak_bytes and est.mem_share */
	double est_s;              /* its estimated step */
	double plan_est_s;         /* the plan's own estimate, */
	plan_verdict plan_verdict; /* and its verdict */
	int tried;                 /* candidates the framework runs */
	/* beside a fitting answer, the fastest tight candidate where its
	 * estimate is shorter (under 10 % headroom, but it runs) */
	bool tight_found;
	char tight_what[160];
	int tight_changes;
	double tight_device, tight_est_s;
} sweep_remedy;
int sweep_fit_remedy(const plan_scenario *s, sweep_remedy *r);

/* The plan pruned for memory whose demand is the smallest share of its
 * capacity (est.mem_share; ties by index): the one closest to fitting, for
 * the sweep that finds none. false when no plan was pruned for memory. */
bool sweep_nearest_no_fit(const sweep_screen_result *r, uint64_t *idx);

/* When no plan of r fits (r->fitting == 0): that nearest plan, its basis
 * and the changes that cut most (plan_memory_cuts on its scenario, loaded
 * again as sweep_plan_load does) and their fastest combination that fits
 * (sweep_fit_remedy); neither for host or NVMe, which the GPU's cuts do
 * not move. has = false when some plan fits or none was pruned
 * for memory. SIM_OK, or the load's error (diag). */
typedef struct sweep_nearest {
	bool has;
	const sweep_plan *plan;
	sweep_mem_basis basis;
	plan_mem_cut cut[5];
	int ncuts;
	sweep_remedy fix; /* sweep_fit_remedy of that plan (GPU basis only) */
} sweep_nearest;
int sweep_nearest_of(const sweep_space *sp, const sweep_screen_result *r, const char *path,
                     const char *const *sets, size_t nsets, sim_diag *diag, sweep_nearest *out);

/* Indices of the fitting plans sorted by estimated step time (ties by
 * index): up to k written to out; returns how many. */
size_t sweep_best(const sweep_screen_result *r, size_t k, uint64_t *out);

/* The exact search (the default without --top; exact.c): after a first round
 * of simulations whose best step is `threshold`, the fitting plans not among
 * `done` (ndone indices into r->plans) whose lower bound est.bound_s is under
 * it - the only ones that could still be faster - in the pre-screen's order
 * (estimated step, ties by index). *out is malloc'd (free it), *n its length. SIM_OK or SIM_ENOMEM. */
int sweep_exact_candidates(const sweep_screen_result *r, const uint64_t *done, size_t ndone,
                           double threshold, uint64_t **out, size_t *n);

/* ------------------------------------------------ the best of a space -- */

/* The plans simulated at once by default (`podsim sweep` without
 * --threads, `explain --against`'s search): the CPUs the process may use,
 * at most this many, since each worker holds its own link graphs and
 * replay. */
#define SWEEP_THREADS_DEFAULT 8
int sweep_threads_default(void);

/* The fastest plan of a space, found as `podsim sweep` without --top finds
 * it (pick.c): every plan screened, the pre-screen's best `first` fitting
 * plans simulated, then every fitting plan whose lower bound is under the
 * best simulated step (sweep_exact_candidates), up to `max_sims` in all;
 * each simulated as `podsim run path --set ...` would (sweep_plan_load),
 * without the spread's replays. `podsim explain --against` uses it. */
typedef struct sweep_pick_in {
	const char *path;         /* the scenario file */
	const char *const *sets;  /* the user's --set assignments */
	size_t nsets;
	size_t first;    /* the first round (>= 1) */
	size_t max_sims; /* plans simulated at most (>= first) */
	/* called after each simulation with the plans simulated and those
	 * planned so far (the first round's, then with the second's); may be
	 * NULL */
	void (*progress)(size_t done, size_t planned, void *ctx);
	void *ctx;
} sweep_pick_in;
typedef struct sweep_pick {
	sweep_screen_result sr;
	/* the two fastest simulated plans (into sr.plans) and their results
	 * (malloc'd); NULL when fewer were simulated */
	const sweep_plan *best, *second;
	exec_result *r, *r2;
	size_t simulated;  /* plans simulated */
	size_t past_clock; /* of them, left out: the step passes the clock */
	size_t left;       /* plans whose bound is under the best, not simulated (max_sims) */
} sweep_pick;
/* SIM_OK (out->best NULL when no plan fits), SIM_ENOMEM, or a plan's load
 * or simulation error (diag). Free with sweep_pick_free, also on error. */
int sweep_pick_best(const sweep_space *sp, const plan_scenario *base, const sweep_pick_in *in,
		    sweep_pick *out, sim_diag *diag);
void sweep_pick_free(sweep_pick *p);

/* ------------------------------------------------------ parallel sweeps -- */

/* A sweep spread over MPI ranks (par.c). Without MPI in the build, or when
 * not started by mpirun/srun, every process is rank 0 of 1 and no MPI call
 * is made. Rank 0 alone prints and writes the database; the results equal a
 * serial run's (same plans, same order, same digest). */
typedef struct sweep_par {
	int rank, size;
	bool mpi; /* MPI_Init was called */
} sweep_par;

bool sweep_par_built(void); /* built with MPI (PODSIM_MPI)? */
int sweep_par_init(sweep_par *p);
void sweep_par_end(sweep_par *p);
/* sweep_screen with plan i screened by rank i % size; every rank gets the
 * whole result (reasons counted in plan order, as one process would). */
int sweep_screen_par(const sweep_par *p, const sweep_space *sp, const plan_scenario *base,
                     const char *path, const char *const *sets, size_t nsets,
                     sweep_screen_result *out);
/* A simulated result (ok = 0: not simulated, r unused) to rank 0, with tag =
 * its place in the simulated list; rank 0 receives it from rank `from`. */
int sweep_par_send(const sweep_par *p, const exec_result *r, int ok, int tag);
int sweep_par_recv(const sweep_par *p, int from, int tag, exec_result *r, int *ok);
/* The maximum of x over the ranks (x itself without MPI). */
int sweep_par_max(const sweep_par *p, int x);
/* The minimum of x over the ranks (x itself without MPI). */
double sweep_par_min(const sweep_par *p, double x);

/* ------------------------------------------------------ energy and cost -- */

/* Energy and cost of one simulated step (cost.c):
 *   busy   = sum over rank classes of ranks x (compute + optimizer time)
 *            / (GPUs x step): the compute-stream utilisation
 *   E_step = PUE x step x (GPUs x TDP x busy + nodes x node power)   [J]
 *   cost   = GPUs x step / 3600 x gpu_hour_price                     [USD]
 * TDP x utilisation assumes an idle GPU draws nothing and a busy one its TDP;
 * the Llama 2 paper's convention (every GPU at TDP the whole time) is
 * E_tdp = PUE x step x (GPUs x TDP + nodes x node power). */
typedef struct sweep_cost {
	double busy;         /* 0..1 */
	double energy_j;     /* per step, TDP x utilisation */
	double energy_tdp_j; /* per step, every GPU at TDP */
	double cost_usd;     /* per step, 0 when no price is set */
} sweep_cost;

void sweep_cost_step(const plan_scenario *s, const exec_result *r, sweep_cost *c);

/* Energy and carbon as separate, labelled terms (cost.c; printed by run,
 * estimate and sweep):
 *   GPU power    P_g = gpus x (measured average, else TDP)
 *   node power   P_n = nodes x node overhead (CPUs, NICs, fans, [node] power)
 *   facility     P_f = (P_g + P_n) x PUE
 *   energy       E = P_f x hours;  CO2 = E x grid intensity
 * Llama 2's convention (Touvron et al. 2023, table 2) counts the GPUs alone
 * at TDP, PUE 1: E_gpu = gpus x TDP x hours, reported beside E. */
typedef struct sweep_energy sweep_energy;
struct sweep_energy {
	double gpus, gpu_w; /* per GPU, W */
	bool measured;      /* gpu_w is [cluster] gpu_power, not the TDP */
	double tdp_w;
	double nodes, node_w; /* per node, W */
	double pue, kg_per_kwh, hours;
	double gpu_kw, node_kw, facility_kw, mwh, tco2;
	double gpu_tdp_mwh; /* the GPUs alone at TDP, PUE 1 (Llama 2's figure) */
	/* of the gpus, those of another type (mixed clusters, sweep_energy_other)
	 * and that GPU's TDP; 0 when every GPU is alike */
	double other_gpus, other_w;
	char other_gpu[128]; /* its name */
	/* of the nodes, those of the other type whose [node] power is their
	 * own (a node file in [cluster] other_gpu), and that power; 0 else */
	double other_nodes, other_node_w;
};
/* Terms for `gpus` GPUs on `nodes` nodes of the scenario's hardware over
 * `hours` of wall time. */
void sweep_energy_terms(const hw_gpu *g, const net_cluster *c, double gpus, double nodes,
			double hours, sweep_energy *e);
/* A scenario's energy terms for a run of `gpus` GPUs over `hours`: the
 * above, and on a cluster with nodes of another GPU type ([cluster]
 * other_gpu) that type's GPUs at its own TDP: the other nodes' GPUs the run
 * uses (the nodes are filled in order, so the run's gpus / gpus per node
 * first nodes), at [gpu] tdp of the other GPU unless [cluster] gpu_power
 * gives one measured average for every GPU; and where [cluster] other_gpu
 * names a node file, its nodes at that file's [node] power
 * (sweep_other_nodes; a [gpu] file alone: the main node's). */
void sweep_energy_scenario(const plan_scenario *s, double gpus, double hours, sweep_energy *e);
/* The GPUs of `s`'s other type among a run's first `gpus` GPUs (0 on a
 * cluster of one GPU type). */
double sweep_other_gpus(const plan_scenario *s, double gpus);
/* The cluster's nodes of the other type when their [node] power is their
 * own (s->other_links: a node file), else 0. */
double sweep_other_nodes(const plan_scenario *s);

/* Training to D tokens with the plan: steps = D / tokens per step; C = 6 P D
 * for reference. */
typedef struct sweep_train {
	double tokens, steps, time_s, gpu_hours, energy_kwh, energy_tdp_kwh, cost_usd;
	/* the steps' mean over the simulated step: on a cluster with a measured
	 * collective spread the mean of the run's sampled replays (what a long
	 * run's steps average, as podsim train's fabric factor), else 1; the
	 * time, GPU-hours, energy and cost are of steps of that mean */
	double step_factor;
	double tco2, tco2_tdp; /* t CO2e = kWh x grid_intensity / 1000 */
	double flops_6pd;
} sweep_train;

void sweep_train_cost(const plan_scenario *s, const exec_result *r, const sweep_cost *c,
                      double tokens, sweep_train *t);

/* ---------------------------------------------------------------- ranks -- */

/* Kendall's tau-b (valid_kendall_tau). */
double sweep_kendall_tau(const double *x, const double *y, size_t n);
/* Mark the Pareto front of n points minimising (a, b, c): front[i] = no
 * other point is <= on all three and < on one. */
void sweep_pareto(const double *a, const double *b, const double *c, size_t n, bool *front);

/* Risky plans (on a cluster with a measured collective spread, exec.h):
 * plan i is risky when another plan j has a median step no better (p50_j
 * >= p50_i) but a 95th percentile better beyond sampling error: the upper
 * end of j's p95 confidence interval below the lower end of i's
 * (exec_step_spread.p95_lo_s, p95_hi_s: order statistics bounding each
 * p95 with about 95 % confidence). Ranked by the median, i looks at least
 * as good, yet j's slow steps are faster. Plans of one sweep share their
 * steps' draws (common random numbers, exec/spread.c), so the two
 * estimates err together and disjoint intervals are a conservative test.
 * vs[i] = the j with the lowest p95 (the first on ties), or -1. NaN
 * quantiles are never risky nor the reason. */
void sweep_risky(const double *p50, const double *p95, const double *p95_lo,
		 const double *p95_hi, size_t n, long *vs);

/* The scenario file at path as text (malloc'd, *out) with its include of a
 * file holding a [cluster] section replaced by `include = topo` (topo
 * resolved to an absolute path) and the SECTION.KEY=VALUE sets written in:
 * the `topology` dimension of a sweep, also serve's capacity planning (any
 * scenario with a cluster include). SIM_OK, SIM_ECONF (diag: no such
 * include, topo missing, a bad set), SIM_ENOMEM. */
int sweep_topology_text(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, char **out);

#endif
