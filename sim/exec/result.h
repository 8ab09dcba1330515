/* result.h - what one simulated step produces: the figures that report prints,
 * store saves and compare/validate read. Plain data, no behaviour; part of the
 * exec module's public interface (included by exec.h).
 *
 * Definitions (ARCHITECTURE.md, "Metrics"):
 *  - step time: first task start to last task end on any rank, optimizer included.
 *  - per rank class, the step splits into categories that sum to the step time:
 *    compute (compute stream busy with forward/backward/recompute kernels),
 *    optimizer, exposed communication per group (time the compute stream waits
 *    on a TP/CP/EP/DP/PP transfer that is in flight), bubble (waiting on a
 *    pipeline neighbour that is still computing, and idling after the rank's last
 *    task until the step ends), offload stall, other.
 *  - bubble fraction = bubble time / step time on the worst rank class.
 *  - MFU = model FLOPs / (step time * GPUs * dense dtype peak); HFU counts
 *    recomputation too.
 */
#ifndef PODSIM_EXEC_RESULT_H
#define PODSIM_EXEC_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "../plan/plan.h"

typedef enum {
	EXEC_CAT_COMPUTE = 0,
	EXEC_CAT_OPTIMIZER,
	EXEC_CAT_TP,
	EXEC_CAT_CP,
	EXEC_CAT_EP,
	EXEC_CAT_DP,
	EXEC_CAT_PP,
	EXEC_CAT_BUBBLE,
	EXEC_CAT_OFFLOAD,
	EXEC_CAT_OTHER,
	EXEC_CAT_COUNT
} exec_cat;

/* "compute", "optimizer", "tp", "cp", "ep", "dp", "pp", "bubble", "offload",
 * "other": the JSON keys of a breakdown. */
const char *exec_cat_name(exec_cat c);

/* Memory categories are plan_mem (plan.h): the plan decides what is kept.
 * A class's device total (mem_total_bytes) is their sum; PyTorch's allocated
 * counter the first five, reserved with fragmentation (exec_class_verdict). */

#define EXEC_NAME_MAX 128

/* One class of equivalent ranks (e.g. pipeline stage 3: all its TP and DP
 * ranks behave the same). */
typedef struct exec_class {
	char name[EXEC_NAME_MAX]; /* "stage 3" */
	int ranks;                /* GPUs in the class */
	double time_s[EXEC_CAT_COUNT];
	double mem_bytes[PLAN_MEM_COUNT]; /* peak HBM by category, on the scenario's GPU */
	double mem_total_bytes;
	/* what the framework's own log reads as its max_memory_allocated when
	 * it resets the peak counters after the forward and backward ([framework]
	 * logged_peak = after-pipeline, nanotron: plan_memory_after_pipeline);
	 * 0 where the log reads the step's peak (stored since schema version 12) */
	double mem_logged_bytes;
	bool oom;                 /* out of memory on any GPU type it runs on */
	/* with a rank on a node of [cluster] other_gpu (plan_memory_other;
	 * stored since schema version 10): its device total, allocated + runtime and verdict against
	 * that GPU's capacity (exec_mixed.mem_capacity_bytes) */
	bool mem_other;
	double mem_other_total_bytes, mem_other_needed_bytes;
	plan_verdict mem_other_verdict;
} exec_class;

/* A class's verdict: the worst over the GPU types its ranks run on (out of
 * memory when `oom`, which a stored class keeps; else the worse of its
 * verdict on the scenario's GPU of `capacity` and on other_gpu). */
plan_verdict exec_class_verdict(const exec_class *c, double capacity);
/* Its verdict on the scenario's GPU alone (plan_mem_verdict from its
 * categories: allocated, runtime and the device total). */
plan_verdict exec_class_gpu_verdict(const exec_class *c, double capacity);
/* Its allocated and reserved bytes, and allocated + runtime: what the
 * verdict calls out of memory when it exceeds the capacity (the
 * allocator's cache gives way first). */
double exec_class_allocated(const exec_class *c);
double exec_class_reserved(const exec_class *c);
double exec_class_needed(const exec_class *c);
/* Its busy time on the compute stream: compute and optimizer seconds. */
double exec_class_busy(const exec_class *c);

typedef struct exec_link {
	char name[EXEC_NAME_MAX]; /* an example link of the class */
	char kind[16];            /* "nvlink", "ib", "pcie", ... */
	int count;                /* links in the class */
	double Bps;               /* capacity per direction */
	double bytes;             /* carried per link during the step */
	double busy_s;            /* time the link carried traffic */
	double util;              /* mean utilisation over the step, bytes/(Bps*step) */
	double saturated_s;       /* time at >= 95% of capacity */
	char traffic[8];          /* whose traffic loads it most: "tp", "dp", ... */
} exec_link;

/* The step's spread on a cluster with a measured collective spread
 * ([cluster] spread, EFA; exec_spread_opts, spread.c): quantiles of the
 * step time over sampled replays in which each collective's network part
 * is slowed by a draw from the spread at its group's node count. */
typedef struct exec_step_spread {
	int samples;      /* sampled replays; 0 = none (no spread, or not asked) */
	uint64_t seed;    /* the RNG seed of the draws (the scenario's) */
	double corr;      /* the share of a call's log-slowdown common to the step */
	double p05_s, p10_s, p50_s, p90_s, p95_s; /* step-time quantiles */
	double p95_lo_s, p95_hi_s; /* the p95's sampling error: the order statistics
				    * bounding the true p95 with about 95 % confidence */
	int varying;      /* tasks whose duration varies (collectives across nodes) */
	double mean_s;    /* the sampled steps' mean: what a long run averages per
			   * step (campaign_setup's fabric factor; not stored: runs
			   * read back have 0) */
} exec_step_spread;

/* A cluster with nodes of another GPU type ([cluster] other_gpu,
 * other_nodes; exec.h "Mixed GPU types", mixed.c): the step is the slowest
 * pipeline replica's with its ranks on those nodes timed on that GPU; this
 * says what they cost and where. nodes = 0: every node alike (the rest 0). */
typedef struct exec_mixed {
	int nodes;              /* nodes holding the other GPU type */
	int cluster_nodes;      /* of the cluster's */
	char gpu[EXEC_NAME_MAX]; /* its name */
	int dp;                 /* pipeline (data-parallel) replicas */
	int replicas;           /* of them, those with a rank on a mixed node */
	int kinds;              /* distinct replicas replayed (equal ones share a replay) */
	double base_s;          /* the step with every node of the main type */
	double step_s;          /* with the mixed nodes (= exec_result.step_s) */
	int replica;            /* the slowest replica (data-parallel index) */
	int stage;              /* its stage with the most compute time */
	double stage_s, stage_base_s; /* that stage's compute time, and on the main type */
	/* memory on the other GPU: the worst of the stages its ranks hold */
	double mem_capacity_bytes, mem_peak_bytes;
	double mem_needed_bytes; /* that stage's allocated + runtime: the verdict's basis */
	int mem_stage;
	plan_verdict mem_verdict;
	/* read back from a run stored before schema version 10 whose scenario
	 * names [cluster] other_gpu: the figures above were not kept (nodes 0),
	 * so its verdict is the stored OOM flag or the scenario's GPU's, and the
	 * reports say so (store_get_run) */
	bool unstored;
} exec_mixed;

/* Fabric uplinks shared by different groups' transfers on an oversubscribed
 * fabric (exec/replay.c nic_change): while transfers of one rank class run
 * at once, each progresses at the smaller of its NIC share and its share of
 * the leaf's uplinks. What that cost, for the reports. oversub = 0 where the
 * uplinks are not shared (a non-blocking fabric, one node, no uplinks); the
 * rest 0 where no transfer was slowed by them. Not stored in the database. */
typedef struct exec_uplinks {
	double oversub;                     /* [cluster] oversubscription */
	int rank;                           /* the rank class whose transfers lost most */
	double lost_s[EXEC_CAT_COUNT];      /* ... their time lost to the uplink share
					     * beyond their NIC share, per group */
	double free_step_s;                 /* the step with the uplinks not shared */
	double free_most_s[EXEC_CAT_COUNT]; /* ... and per category the most seconds
					     * of any rank class (exec_cat_most's) */
} exec_uplinks;

/* Whether u says that the shared uplinks slowed some transfer. */
bool exec_uplinks_slowed(const exec_uplinks *u);

#define EXEC_MAX_CLASSES 256
#define EXEC_MAX_LINKS 8

typedef struct exec_result {
	/* why exec_run failed with SIM_ERANGE (the step past the clock's
	 * horizon: which task, which inputs), else "" */
	char error[512];
	/* identity */
	char scenario[EXEC_NAME_MAX];
	char model[EXEC_NAME_MAX];
	char gpu[EXEC_NAME_MAX];
	char cluster[EXEC_NAME_MAX];
	char plan[PLAN_LABEL_MAX]; /* plan_label: "megatron-lm tp8 cp1 pp16 vpp1 dp8 ..." */
	/* the pipeline's layers per stage where the framework's rule set them
	 * (plan_layout_assumption: an uneven split, nanotron's cost balancing),
	 * else "" */
	char layout[512];
	uint64_t seed;
	int gpus;
	/* headline */
	double step_s;
	double tokens_per_step;
	double tokens_per_s;
	double model_flops;    /* per step, whole cluster */
	double hardware_flops; /* per step, recompute included */
	double peak_flops;     /* dense peak per GPU in the training dtype */
	double mfu, hfu;
	double tflops_per_gpu; /* model FLOP/s per GPU / 1e12 */
	double bubble_fraction;
	double mem_capacity_bytes; /* HBM per GPU */
	double mem_peak_bytes;     /* worst class */
	bool oom;                  /* HBM, host DRAM or NVMe overflows */
	/* offloading (0 without): per node, the most loaded class, and capacity */
	double host_bytes, host_capacity_bytes, nvme_bytes, nvme_capacity_bytes;
	/* judged against the validation data (valid_refs_apply; NaN, "" and
	 * false until then, and where nothing applies) */
	double band_lo_s, band_hi_s; /* likely range of the measured step */
	char band_from[EXEC_NAME_MAX]; /* the band's cell: "hopper, nemo, 513- GPUs: ..." */
	bool implausible;              /* MFU above the best published for the GPU */
	char implausible_why[256];
	/* the step's spread from the collectives' (samples 0 without one) */
	exec_step_spread spread;
	/* nodes of another GPU type (nodes 0 without) */
	exec_mixed mixed;
	/* detail */
	int nclasses;
	exec_class classes[EXEC_MAX_CLASSES];
	int nlinks;
	exec_link links[EXEC_MAX_LINKS];
	exec_uplinks uplinks;
	/* simulation cost */
	uint64_t tasks;
	uint64_t events;
	double wall_s; /* not stored in the database digest: varies run to run */
} exec_result;

/* The share of the step the GPUs' compute streams are busy, each class
 * weighted by its ranks, at most 1; 0 without classes or step (the energy
 * model's busy share: sweep_cost_step, campaign's power). */
double exec_busy_share(const exec_result *r);
/* The most seconds any rank class spends in category c, 0 without classes
 * (of a communication category: what the step exposes of that group's). */
double exec_cat_most(const exec_result *r, exec_cat c);
/* The most exposed communication of any rank class: its tp + cp + ep + dp +
 * pp seconds (the sweep's "comm" column). */
double exec_exposed_comm(const exec_result *r);

/* The rank class that sets the step: the one that waits least on the
 * others, its idle time (bubble + other: waiting on a pipeline neighbour
 * that is still computing, and after its last task until the step ends)
 * the smallest; among equals (within the clock's 1 ps) the busiest
 * (exec_class_busy), then the first; -1 without classes. The other stages
 * of a pipeline idle on it, so their breakdowns show its excess as their
 * bubble; its own shows what fills the step. Its categories, like every
 * class's, sum to the step (the replay charges each moment of a class's
 * compute stream, from 0 to the step's end, to exactly one category:
 * replay.c charge_gap, charge_tail). */
int exec_step_class(const exec_result *r);

/* Why step a is longer than step b, term by term: a's step minus b's,
 * split over the categories of the class that sets each step
 * (exec_step_class). Since each class's categories sum to its run's step,
 *   sum over c of cat_s[c] = (sum of a's class) - (sum of b's) = step_s
 * up to rounding: the replay adds each charged interval, exact in
 * picoseconds, to its category in seconds (double), so a class's sum is
 * the step within about 1e-16 s per interval (1e-9 s covers a million).
 * Where the two steps are set by different classes (stage 3 of a pipeline
 * against the one stage of a plan without) the terms compare those
 * classes, which is what makes them sum; a per-category maximum over
 * classes (exec_cat_most, compare's table) does not.
 * `order` holds the categories whose terms are not zero (1 ps or more: less
 * is rounding), largest first (signed: a's losses, then its gains; ties by
 * category); `largest`, the term that makes a lose, is the first of them
 * when positive (-1 when no term is). With no class on either side every
 * term is 0. Used by the sweep (each plan against the best) and compare
 * (its explanation). */
typedef struct exec_step_diff {
	double step_s;                /* a's step - b's */
	double cat_s[EXEC_CAT_COUNT]; /* a's class - b's class, per category */
	int class_a, class_b;         /* exec_step_class of a and b */
	int largest;                  /* exec_cat, or -1 */
	int nterms;
	exec_cat order[EXEC_CAT_COUNT];
} exec_step_diff;
void exec_step_diff_of(const exec_result *a, const exec_result *b, exec_step_diff *d);

/* The class with the largest device total (the first of equals), -1 without
 * classes: the most loaded class that the reports and explain show. */
int exec_mem_worst(const exec_result *r);

/* Where the run's memory verdict is decided, as plan_memory_fit decides it
 * (the same rule, plan_fit_by_other, over the same figures): out of memory
 * on the scenario's GPU, else on other_gpu, else offloaded states past host
 * DRAM, else past NVMe; short of out of memory the GPU type whose verdict
 * is worse (or equal with a larger share of its capacity used). A run
 * stored before schema version 10 kept no other_gpu figures
 * (exec_mixed.unstored): out of memory there reads as EXEC_MEM_ON_OTHER
 * with exec_mixed empty. */
typedef enum {
	EXEC_MEM_ON_GPU = 0,
	EXEC_MEM_ON_OTHER,
	EXEC_MEM_ON_HOST,
	EXEC_MEM_ON_NVME
} exec_mem_basis;
exec_mem_basis exec_mem_basis_of(const exec_result *r);
/* The run's memory verdict: the worst over the GPU types the plan runs on
 * and the offload tiers (out of memory exactly when `oom`); the one text,
 * JSON, HTML and explain print and the sweep prunes on (plan_memory_fit). */
plan_verdict exec_mem_verdict(const exec_result *r);
/* The free bytes of the verdict's GPU basis: capacity - device total on
 * other_gpu's worst stage when it decides, else on the most loaded class. */
double exec_mem_headroom(const exec_result *r);

#endif
