/* valid.h - validation against published measurements: `podsim validate`.
 *
 * A case file is a CSV in the schema of tests/cases/README.md. Training-run rows
 * (calibration.csv: a `measured_iter_s` column) are turned into scenarios from
 * their hardware and plan columns and simulated; microbenchmark rows
 * (microbench.csv: a `kind` column) are predicted by the kernel and
 * collective models directly; memory rows (memory.csv: a `measured_peak_gib`
 * column) by the memory model's peak of the measured rank, in the counter
 * the row names (memrows.c). Every row ends "ok" with its signed error
 * (predicted - measured) / measured, or "skipped" with the reason; the summary
 * counts both. See valid.c for how a row becomes a scenario.
 */
#ifndef PODSIM_VALID_H
#define PODSIM_VALID_H

#include "../cases/cases.h"
#include "../exec/exec.h"

typedef enum { VALID_OK = 0, VALID_SKIPPED } valid_status;

typedef struct valid_row {
	char id[32];
	char group[64];  /* the row's source (training runs: its `source` column, one
			  * group per publication, valid_source_key), or the id
			  * prefix's family (microbenchmarks) */
	char what[96];   /* model and plan, or kernel and shape */
	char rank_key[96]; /* rows with equal keys are ranked together (Kendall tau) */
	valid_status status;
	char reason[200]; /* why skipped */
	char assumed[1024]; /* what the case reader assumed for fields the source left
			    * open ("; "-separated; empty when nothing) */
	double measured, predicted; /* seconds (GiB for memory rows) */
	double error;               /* (predicted - measured) / measured */
	/* memory rows: the plan's verdict ("fits", "tight" or "oom", as podsim
	 * run reports it; "" elsewhere), and whether the row is a run that ran
	 * out of memory (no peak measured; memrows.c): such a row is predicted
	 * by its verdict alone, outside the error statistics */
	char verdict[8];
	bool oom_run;
	/* training rows that simulated: what the error band is keyed on */
	char gpu[CONF_STR_MAX];       /* [gpu] name, e.g. "h100-sxm5-80g" */
	char framework[CONF_STR_MAX]; /* [framework] name of the profile it ran on */
	int gpus;
} valid_row;

typedef struct valid_group {
	char name[64];
	int rows, ok, skipped;
	double mape, median_ape, worst; /* worst = signed error of largest |error| */
	int within;     /* simulated rows within valid_within(kind) of the measurement */
	double bias;    /* mean signed error: a systematic sign is a missing mechanism */
	char worst_id[32];
	double tau;     /* mean Kendall tau over rank groups of >= 3 rows; NAN if none */
	int tau_groups; /* rank groups used */
	/* the rank group of the lowest tau (its rank_key and rows; NAN, "" if
	 * none), and how many rank groups fall under VALID_TAU_AIM */
	double tau_min;
	char tau_min_key[96];
	int tau_min_rows, tau_low;
	/* training rows' rank groups: those whose first choice (the row
	 * predicted fastest) measures within VALID_PICK_WITHIN of the group's
	 * fastest measured row, of pick_groups; the worst gap and its group */
	int pick_groups, pick_within;
	double pick_worst;
	char pick_worst_key[96];
	/* memory rows: runs that ran out of memory, those podsim calls out of
	 * memory, and completed runs (a measured peak) it calls out of memory */
	int oom_runs, oom_called, fit_called_oom;
} valid_group;

#define VALID_MAX_GROUPS 128

/* Kendall's tau that every rank group (rows of one source that rank plans of
 * one model on one GPU count) should reach: issue 14's aim. The text report
 * lists the rank groups under it, the JSON every rank group with its tau. */
#define VALID_TAU_AIM 0.8
/* A rank group's first choice (the plan predicted fastest) within this of
 * the measured best: issue 23's aim for the plan search ("podsim's first
 * choice within 10 % of the measured best"). */
#define VALID_PICK_WITHIN 0.10

/* What a case file holds: training runs (seconds per step), microbenchmarks
 * (their own units), or memory peaks (GiB per GPU, memory.csv). */
typedef enum { VALID_RUNS = 0, VALID_MICRO, VALID_MEMORY } valid_kind;

typedef struct valid_report {
	char path[256];
	valid_kind kind;
	size_t nrows;
	valid_row *rows;
	valid_group all;
	int ngroups;
	valid_group groups[VALID_MAX_GROUPS];
	/* The headline: every source weighs once. Mean over the groups with
	 * simulated rows of their MAPE and of their mean signed error. */
	double sources_mape, sources_bias;
	int nsources;
} valid_report;

struct valid_stacks; /* topologies/frameworks/stacks.csv (stacks.c) */

/* The cluster (under topologies/) that microbenchmark rows with fabric
 * `efa` run on: p5-class nodes with the EFA fabric fitted to
 * tests/cases/efa-collectives.csv. */
#define VALID_EFA_CLUSTER "efa-h100-cluster.ini"

/* Data directory holding models/ and topologies/ (the project root). */
typedef struct valid_options {
	const char *datadir;
	const char *only;    /* only rows whose id starts with this prefix, or NULL */
	FILE *progress;      /* progress lines, or NULL */
	const char *where;   /* only rows whose column COL equals VALUE ("COL=VALUE"), or NULL */
	bool framework_set;  /* training rows: override the framework profile's */
	double framework_s;  /* ... per-op host overhead (s) */
	net_model network;   /* collectives: alpha-beta (default) or the flow model */
	const struct valid_stacks *stacks; /* NULL: valid_run loads the shipped table */
	bool sustain_set;    /* training rows: override the GPU file's tensor_sustain */
	double sustain;
	int threads;         /* rows predicted at once (0: the CPUs it may use); the
	                      * report is the same for any count */
} valid_options;

/* Validate every row of the CSV at path. SIM_OK (the report may hold skipped
 * rows), SIM_ECONF/SIM_EIO for an unreadable or malformed file (see diag). */
int valid_run(const char *path, const valid_options *opt, valid_report **out, sim_diag *diag);
void valid_report_free(valid_report *r);

/* Write the scenario podsim builds for training row `id` of the CSV at path (a
 * complete .ini that 'podsim run' accepts, includes resolved under
 * opt->datadir) to out. SIM_OK; SIM_ECONF with a diagnostic when the file is
 * malformed, has no such row or the row cannot be simulated. */
int valid_scenario(const char *path, const char *id, const valid_options *opt, FILE *out,
		   sim_diag *diag);

/* The |error| a row of a file of `kind` counts as within at: 15 % for memory
 * peaks (issue 22: within 15 % on at least 80 % of the completed runs), 10 %
 * otherwise (issue 23: every EFA collective row within 10 % of its median).
 * The text report and the JSON (`within`, `within_threshold`) count them. */
double valid_within(valid_kind kind);

void valid_print_text(FILE *out, const valid_report *r, bool all_rows);
void valid_print_json(FILE *out, const valid_report *r);

/* Fit the per-op host overhead (framework_overhead) of the training rows
 * selected by opt (only / where) by minimising their MAPE over [lo_s, hi_s]:
 * a grid of 20 steps, then golden-section search to 0.1 us around the best.
 * Writes the value and the MAPE at it; *before_mape gets the MAPE with the
 * rows' own framework profiles. SIM_OK; SIM_ECONF when no row simulates. */
int valid_fit_framework(const char *path, const valid_options *opt, double lo_s, double hi_s,
			double *best_s, double *best_mape, double *before_mape, int *rows,
			sim_diag *diag);

/* ----------------------------------------------------------- error bands --
 * How far a prediction is likely to be from the measured step, from the
 * validation residuals (measured / predicted) of the shipped cases (band.c
 * has the statistics). A band belongs to a cell: GPU generation x framework
 * x scale bucket (GPU count 1-8, 9-64, 65-512, 513-), or a coarser one with
 * "*" for any. `podsim validate CASES.csv --bands-out FILE` writes one CSV
 * row per cell with at least VALID_BAND_MIN_ROWS simulated rows; the shipped
 * table is VALID_BANDS_FILE under the data folder. */
#define VALID_BANDS_FILE    "topologies/bands.csv"
#define VALID_BAND_MIN_ROWS 3

/* "ampere", "hopper", ... from a [gpu] name's prefix ("h100-sxm5-80g"), or
 * "unknown". */
const char *valid_gpu_generation(const char *gpu);
/* "1-8", "9-64", "65-512" or "513+". */
const char *valid_scale_bucket(int gpus);

typedef struct valid_band {
	int level;           /* valid_band_find: 1 (most specific) .. 5 (all rows) */
	char generation[16]; /* the cell; "*" = any */
	char framework[CONF_STR_MAX];
	char scale[16];
	int rows, sources;
	double n_eff;                      /* Kish's effective rows, W^2 / sum w^2 */
	double q10, median, q90, min, max; /* measured / predicted, weighted */
	double lo, hi;                     /* the band: [q10, q90], widened when n_eff < 9 */
	bool widened;
	char names[512]; /* its sources, "; "-separated */
} valid_band;

/* Write the band table of r's simulated training rows (CSV with a header:
 * generation, framework, gpus, rows, sources, n_eff, q10, median, q90, min,
 * max, lo, hi, widened, source_names). SIM_OK, SIM_EIO, SIM_ENOMEM. */
int valid_bands_write(const valid_report *r, FILE *out);

typedef struct valid_bands valid_bands;
/* Read a band table; malformed files are path:line errors (SIM_ECONF). */
int valid_bands_load(const char *path, valid_bands **out, sim_diag *diag);
void valid_bands_free(valid_bands *t);
/* The nearest cell of a scenario: the first the table holds of (generation,
 * framework, bucket), (generation, framework, *), (generation, *, bucket),
 * (generation, *, *), (*, *, *). false (out->level 0) when none. */
bool valid_band_find(const valid_bands *t, const char *gpu, const char *framework, int gpus,
		     valid_band *out);

/* "ampere, any framework, 9-64 GPUs: 27 rows, 2 sources". */
void valid_band_describe(const valid_band *b, char *buf, size_t len);

/* ------------------------------------------------ judging a prediction --
 * The band table and the best published MFU per GPU generation and
 * precision (VALID_MFU_FILE: generation, precision 16-bit|fp8, mfu, gpu,
 * gpus, model, source; each row cited), read from a data folder (refs.c).
 * A file the folder lacks is an empty table: no band, no flag. */
#define VALID_MFU_FILE "topologies/mfu-best.csv"

typedef struct valid_refs valid_refs;
/* Read both tables under datadir; malformed files are path:line errors. */
int valid_refs_load(const char *datadir, valid_refs **out, sim_diag *diag);
void valid_refs_free(valid_refs *r);
/* valid_band_find on the refs' table (false without one). */
bool valid_refs_band(const valid_refs *r, const char *gpu, const char *framework, int gpus,
		     valid_band *out);
/* The best published MFU for gpu's generation in dtype's precision class,
 * and its citation ("54.2% on ampere in 16-bit: Korthikanti et al. ...");
 * false when the table has none. */
bool valid_refs_mfu(const valid_refs *r, const char *gpu, hw_dtype dtype, double *mfu, char *why,
		    size_t len);
/* Fill res's band (step x [lo, hi] of the nearest cell, and its
 * description) and its implausibility flag (MFU above the best published),
 * or clear them (NaN band, no flag): for inference runs, without refs, or
 * where no row applies. With a step spread (res->spread sampled, exec.h)
 * the band widens by valid_spread_widening and its description says so
 * (", widened x0.970-1.090 by the step's spread"). */
void valid_refs_apply(const valid_refs *refs, const plan_scenario *s, exec_result *res);
/* The factors the step's spread widens a band by (refs.c derives the
 * composition): *lo = min(1, p10 / step), *hi = max(1, p90 / step); 1 and
 * 1 without a spread. */
void valid_spread_widening(const exec_result *r, double *lo, double *hi);

/* Fit a GPU type's tensor_sustain (hw.h) to the training rows selected by opt
 * (its `where`, e.g. gpu=h100-sxm5-80g), except those of source group `skip`
 * (NULL: none), minimising the mean over sources of their MAPE (each source
 * weighs once): every row is simulated on a grid of values from lo to hi in
 * steps of `step`, and the fit, and for each source the leave-one-source-out
 * fit on the others, is the grid point of least objective. */
#define VALID_FIT_MAX_GRID 201
typedef struct valid_sustain_src {
	char name[64];
	int rows;
	double mape_before, bias_before; /* at the GPU file's value */
	double mape_after, bias_after;   /* at the fitted value */
	double loso_value;               /* fitted without this source */
	double loso_mape, loso_bias;     /* this source at loso_value */
} valid_sustain_src;
typedef struct valid_sustain_fit {
	double value, before;            /* fitted; the GPU file's */
	double mape_before, mape_after;  /* mean over sources */
	double loso_mape;                /* mean over sources of loso_mape */
	int nsources, rows;
	valid_sustain_src src[VALID_MAX_GROUPS];
} valid_sustain_fit;
int valid_fit_sustain(const char *path, const valid_options *opt, const char *skip, double lo,
		      double hi, double step, valid_sustain_fit *out, sim_diag *diag);

/* Kendall's tau-b between x and y (n pairs); NAN when undefined. */
double valid_kendall_tau(const double *x, const double *y, size_t n);

/* ------------------------------------------------------ fabric calibration -- */

/* podsim calibrate --fabric (fabric.c, fabric_print.c, nccltests.c): the
 * EFA model's parameters (net.h) and the node's NVLink ring efficiency and
 * NVLS rate, fitted to a cluster's own collective benchmarks. */

/* One measured collective: the median time, and when the source gives
 * them the 5th and 95th percentile times (from busbw_p95_GBps and
 * busbw_p05_GBps: the fastest and slowest runs). */
typedef struct valid_fab_row {
	char id[32];
	char path[200]; /* file and line it came from */
	int line;
	net_coll coll;
	int gpus, nodes;
	double bytes;
	double median_s, fast_s, slow_s; /* fast_s, slow_s: 0 = not given */
	double issue_s;                  /* host issue inside the benchmark's clock (a blocking
					  * benchmark's: valid_eager_issue_s), else 0 */
	double before_s, after_s;        /* predicted median: start values, fitted */
	double fast_after_s;             /* predicted with kappa = 1, fitted */
	double loo_s;                    /* predicted by the fit without its node count */
} valid_fab_row;

typedef enum {
	VALID_FP_INTRA_EFF = 0, /* [node] intra_efficiency */
	VALID_FP_NVLS,          /* [node] nvls_busbw */
	VALID_FP_NET_LAT,       /* [cluster] net_latency */
	VALID_FP_MSG,           /* [cluster] msg_overhead */
	VALID_FP_RAIL,          /* [cluster] rail_bw */
	VALID_FP_CONG,          /* [cluster] congestion */
	VALID_FP_CONG_EXP,      /* [cluster] congestion_exp */
	VALID_FP_SYNC,          /* [cluster] sync_delay */
	VALID_FP_COUNT
} valid_fab_kind;

/* How a parameter left the fit (valid_fab_fit.pin): held by the user, driven
 * to a bound of its range, or, with no row giving its fastest runs, taken
 * as the uncongested fabric's (congestion and sync delay 0: what the
 * medians add to the fastest runs, which medians alone cannot tell from
 * the per-step costs). */
typedef enum {
	VALID_PIN_NONE = 0,
	VALID_PIN_HELD,
	VALID_PIN_BOUND,
	VALID_PIN_NO_SPREAD
} valid_fab_pin;

typedef struct valid_fab_param {
	valid_fab_kind kind;
	double lo, hi;          /* bounds (logistic transform) */
	double start, value, se;
	bool has_se;
} valid_fab_param;

#define VALID_FAB_MAX_NODES 32 /* distinct node counts */

typedef struct valid_fab_fit {
	char cluster_path[256];
	net_cluster cluster;  /* as loaded (its fabric and node) */
	net_cluster fitted;   /* with the fitted values */
	valid_fab_row *rows;
	size_t nrows, nignored, nfast; /* rows used, not used, with percentiles */
	valid_fab_param params[VALID_FP_COUNT];
	size_t nparams;  /* reported (fitted, and binding at the fit) */
	size_t nfitted;  /* went through the least squares (dof = residuals - nfitted) */
	char dropped[160]; /* keys no row depends on, comma-separated */
	char idle[160];    /* keys no row depends on at the fitted values (a bound
			    * that does not bind), comma-separated; not written */
	double mape_before, mape_after, mape_fast; /* medians; fastest runs at kappa 1 */
	int dof;
	size_t iterations;
	bool converged;
	const char *stop; /* calib_lm_result.stop of the final solve */
	/* The fitted parameters' correlations at the fit (params[] order, row-
	 * major nparams x nparams; calib_lm_result.corr), has_corr once the
	 * final solve gave them: two parameters correlated near +-1 trade
	 * against each other, the rows cannot tell them apart. */
	double corr[VALID_FP_COUNT * VALID_FP_COUNT];
	bool has_corr;
	/* Parameters not fitted but pinned at a value, by kind: held by the
	 * user (valid_fab_hold: calibrate --hold KEY=VALUE) or driven by the
	 * fit to a bound of their range and held there, the rest fitted again
	 * (fabric.c, pin_bounds); written to the include file beside the
	 * fitted ones. */
	valid_fab_pin pin[VALID_FP_COUNT];
	double pin_value[VALID_FP_COUNT];
	/* Leave one node count out, per distinct node count (increasing). */
	int nnodes;
	int nodes[VALID_FAB_MAX_NODES];
	double loo_mape[VALID_FAB_MAX_NODES];
	double loo_all; /* over every row */
	/* The measured spread per node count (rows with both percentiles). */
	int nspread;
	net_spread spread[NET_SPREAD_MAX];
	/* What the medians add to the fastest runs, per node count (nodes[i];
	 * rows with the fastest runs only, excess_rows[i] of them; fabric.c,
	 * excess_by_nodes): the one per-call wait E common to the collectives
	 * that fits their medians best (relative least squares), the median it
	 * misses most (signed, relative), and the fit's own median - uncongested
	 * time with the same weights. NAN without such rows. */
	int excess_rows[VALID_FAB_MAX_NODES];
	double excess_s[VALID_FAB_MAX_NODES];
	double excess_worst[VALID_FAB_MAX_NODES];
	double excess_fit_s[VALID_FAB_MAX_NODES];
	/* Repeated runs merged (repeats.c): runs of the same measurement
	 * (nrepeat_rows, in nrepeat_groups rows) become one row's median and,
	 * from VALID_FAB_SPREAD_RUNS runs on, its 5th-95th percentiles. */
	size_t nrepeat_rows, nrepeat_groups;
} valid_fab_fit;

/* Runs of one measurement from which calibrate takes percentiles. */
#define VALID_FAB_SPREAD_RUNS 5

/* Merge the rows without percentiles that repeat one measurement (the same
 * collective, ranks, nodes, size and host issue: nccl-tests run k times)
 * into one row each: the median of their times, and from
 * VALID_FAB_SPREAD_RUNS runs on the 5th and 95th percentiles as its fastest
 * and slowest runs; recounts nfast. valid_fab_fit_run calls it first.
 * SIM_OK or SIM_ENOMEM. */
int valid_fab_merge_repeats(valid_fab_fit *f);

/* The numeric columns of a case file of any schema (the training, memory,
 * microbenchmark and serving columns of numbers.c's table that the file
 * has): fields written loosely ("1,024", "2K", "512 GPUs", "350 ms",
 * "n/a") rewritten as the schema's numbers, then every one checked (finite,
 * >= 0, counts >= 1, integers below 2^31), each bad field a path:line
 * error in diag. SIM_OK, SIM_ECONF or SIM_ENOMEM. podsim validate's own
 * readers call it; the serving reader (sim/serve) too. */
int valid_case_numbers(cases_csv *c, sim_diag *diag);
/* Read a case file (cases_csv_read) with its header names written as
 * sources and tools write them read as the schemas' ("num_gpus",
 * "tensor_model_parallel_size", "seq_length", "TP", "global batch size"),
 * each a path:1 warning; a header that names a column the file already
 * has stays as written (loose.c). */
int valid_case_read(const char *path, cases_csv **out, sim_diag *diag);
/* The readings of the row's fields valid_case_numbers made, said
 * ("batch_size '1,024' read as 1024"), appended to `assumed` (numbers.c;
 * valid_loose_assume says them with the other readings). */
void valid_loose_numbers_assume(const cases_csv *c, size_t row, char *assumed, size_t alen);

/* Add the collective rows of a case CSV (microbenchmark schema: kind
 * allreduce / allgather / reducescatter, gpus, nodes, bytes, time_us or
 * busbw_GBps, optionally busbw_p05_GBps and busbw_p95_GBps) whose fabric
 * column, when the file has one, says efa, and whose gpu and gpus_per_node
 * (when given) are the cluster's; others are counted in nignored. Numbers
 * written loosely are read first (valid_loose_numbers: "256MB", "350 GB/s").
 * Bad rows are path:line errors. SIM_OK, SIM_ECONF, SIM_ENOMEM. */
int valid_fab_rows_csv(cases_csv *c, const hw_gpu *gpu, valid_fab_fit *f, sim_diag *diag);
/* The case schema's name of cluster c's fabric (tests/cases/README.md:
 * efa, rail-optimized, ib-fat-tree, roce-fat-tree), which a row's fabric
 * column must hold to be fitted to c; NULL for the others (a torus, an
 * Ethernet fat tree: only files without a fabric column). */
const char *valid_fab_case_fabric(const net_cluster *c);
/* Add the rows of an nccl-tests output file (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf: one row per size, out-of-place
 * time; ranks and nodes from its device lines). SIM_OK, SIM_ECONF (with
 * path:line errors), SIM_EIO, SIM_ENOMEM. */
int valid_fab_rows_nccl_tests(const char *path, valid_fab_fit *f, sim_diag *diag);
/* Fit, leave each node count out, and collect the spread. The rows and
 * f->cluster (fabric = efa) must be set. SIM_OK; SIM_ECONF when the rows
 * cannot fit the parameters (diag says); SIM_ENOMEM. */
int valid_fab_fit_run(valid_fab_fit *f, sim_diag *diag);
/* Hold a parameter instead of fitting it: spec "KEY=VALUE" with the key's
 * unit (net_latency=75us, rail_bw=10GB/s, congestion=0.1), for what the
 * rows leave weakly determined and another measurement gives. SIM_OK, or
 * SIM_ECONF with the reason in err (unknown key, no '=', a bad value); the
 * value's bounds are checked by valid_fab_fit_run. */
int valid_fab_hold(valid_fab_fit *f, const char *spec, char *err, size_t errlen);
void valid_fab_fit_free(valid_fab_fit *f);
/* Key name and section of a parameter ("net_latency", "cluster"). */
const char *valid_fab_key(valid_fab_kind k);
const char *valid_fab_section(valid_fab_kind k);
/* The unit a parameter's key takes (bandwidth, time, or none), and its
 * value in it as the .ini writes it ("30.200 us", "9.042 GB/s", "0.0875"). */
sim_unit valid_fab_unit(valid_fab_kind k);
void valid_fab_format(char *buf, size_t len, valid_fab_kind k, double x);

/* Output (fabric_print.c); `data` names the input files as given. */
void valid_fab_print_text(FILE *out, const valid_fab_fit *f, const char *data);
void valid_fab_print_json(FILE *out, const valid_fab_fit *f, const char *data);
/* The cluster include file: a comment header (data, method, fit quality,
 * residuals, the leave-one-node-count-out errors; no date) and the fitted
 * [node] and [cluster] keys with the spread. */
void valid_fab_print_ini(FILE *out, const valid_fab_fit *f, const char *data,
			 const char *out_name);

#endif
