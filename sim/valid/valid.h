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
	char assumed[512]; /* what the case reader assumed for fields the source left
			    * open ("; "-separated; empty when nothing) */
	double measured, predicted; /* seconds (GiB for memory rows) */
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

#endif
