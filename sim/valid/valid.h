/* valid.h - validation against published measurements: `podsim validate`.
 *
 * A case file is a CSV in the schema of tests/cases/README.md. Training-run rows
 * (calibration.csv: a `measured_iter_s` column) are turned into scenarios from
 * their hardware and plan columns and simulated; microbenchmark rows
 * (microbench.csv: a `kind` column) are predicted by the kernel and
 * collective models directly. Every row ends "ok" with its signed error
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
	char assumed[512]; /* what the case reader assumed for fields the source left
			    * open ("; "-separated; empty when nothing) */
	double measured, predicted; /* seconds */
	double error;               /* (predicted - measured) / measured */
} valid_row;

typedef struct valid_group {
	char name[64];
	int rows, ok, skipped;
	double mape, median_ape, worst; /* worst = signed error of largest |error| */
	double bias;    /* mean signed error: a systematic sign is a missing mechanism */
	char worst_id[32];
	double tau;     /* mean Kendall tau over rank groups of >= 3 rows; NAN if none */
	int tau_groups; /* rank groups used */
} valid_group;

#define VALID_MAX_GROUPS 128

typedef struct valid_report {
	char path[256];
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
	VALID_FP_COUNT
} valid_fab_kind;

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
	/* Leave one node count out, per distinct node count (increasing). */
	int nnodes;
	int nodes[VALID_FAB_MAX_NODES];
	double loo_mape[VALID_FAB_MAX_NODES];
	double loo_all; /* over every row */
	/* The measured spread per node count (rows with both percentiles). */
	int nspread;
	net_spread spread[NET_SPREAD_MAX];
} valid_fab_fit;

/* Add the collective rows of a case CSV (microbenchmark schema: kind
 * allreduce / allgather / reducescatter, gpus, nodes, bytes, time_us or
 * busbw_GBps, optionally busbw_p05_GBps and busbw_p95_GBps) whose fabric
 * column, when the file has one, says efa, and whose gpu and gpus_per_node
 * (when given) are the cluster's; others are counted in nignored. Bad rows
 * are path:line errors. SIM_OK, SIM_ECONF, SIM_ENOMEM. */
int valid_fab_rows_csv(const cases_csv *c, const hw_gpu *gpu, valid_fab_fit *f, sim_diag *diag);
/* Add the rows of an nccl-tests output file (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf: one row per size, out-of-place
 * time; ranks and nodes from its device lines). SIM_OK, SIM_ECONF (with
 * path:line errors), SIM_EIO, SIM_ENOMEM. */
int valid_fab_rows_nccl_tests(const char *path, valid_fab_fit *f, sim_diag *diag);
/* Fit, leave each node count out, and collect the spread. The rows and
 * f->cluster (fabric = efa) must be set. SIM_OK; SIM_ECONF when the rows
 * cannot fit the parameters (diag says); SIM_ENOMEM. */
int valid_fab_fit_run(valid_fab_fit *f, sim_diag *diag);
void valid_fab_fit_free(valid_fab_fit *f);
/* Key name and section of a parameter ("net_latency", "cluster"). */
const char *valid_fab_key(valid_fab_kind k);
const char *valid_fab_section(valid_fab_kind k);

/* Output (fabric_print.c); `data` names the input files as given. */
void valid_fab_print_text(FILE *out, const valid_fab_fit *f, const char *data);
void valid_fab_print_json(FILE *out, const valid_fab_fit *f, const char *data);
/* The cluster include file: a comment header (data, method, fit quality,
 * residuals, the leave-one-node-count-out errors; no date) and the fitted
 * [node] and [cluster] keys with the spread. */
void valid_fab_print_ini(FILE *out, const valid_fab_fit *f, const char *data,
			 const char *out_name);

#endif
