/* sweep_out.h - internals of `podsim sweep` shared by its two files (not a
 * module API; cli.h declares the command): the simulated rows and the
 * search that chose them, which sweep.c fills, and what sweep_out.c prints
 * from them. */
#ifndef PODSIM_CLI_SWEEP_OUT_H
#define PODSIM_CLI_SWEEP_OUT_H

#include "cli/cli.h"
#include "sweep/sweep.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One simulated plan. */
typedef struct sim_row {
	const sweep_plan *plan;
	int64_t rank; /* place in the pre-screen order, 1 = best */
	int64_t run_id;
	exec_result *r;
	sweep_cost cost;
	double exposed_s;
	long risky_vs; /* sweep_risky: the plan (row) whose tail beats this one's, or -1 */
	exec_step_diff loses; /* its step against rank 1's, term by term (rank 2 on) */
	int state; /* 1 simulated, 0 not (Ctrl-C), -1 failed */
	bool own;  /* this shard's: stored and printed (others only set the threshold) */
	bool done; /* simulated and finished (stored) */
	bool pareto;
	bool has_days;       /* a [campaign]: expected days with failures (rank_days) */
	double days;
} sim_row;

/* How the simulated plans were chosen (the exact search or --top). */
typedef struct search_info {
	bool exact, proven;
	size_t first;     /* the first round: the pre-screen's best K */
	size_t left;      /* candidates past --max-sims, not simulated */
	double threshold; /* the first round's best step (exact) */
} search_info;

/* A plan's settings as the table prints them: each swept key's last part
 * and value ("tp=2 micro_batch=4"), a topology file by its name alone. */
void cli_sweep_settings(const sweep_space *sp, const sweep_plan *p, char *buf, size_t len);
/* Why row i is risky (rows[i].risky_vs, sweep_risky): its tail against the
 * better one's and the exposed communication that makes them; "" when not. */
void cli_sweep_risky_why(const sim_row *rows, size_t i, char *buf, size_t len);
/* The ranked table of the n rows (rank order) with the counts, the search
 * line, the legends and the pruned plans, on stdout; fit_weak, the base
 * scenario's [cluster] fit_weak ("" for none), adds a legend line. */
void cli_sweep_print_text(const sweep_space *sp, const sweep_screen_result *sr,
                          const sim_row *rows, size_t n, double tau, int64_t sweep_id,
                          int shard, int nshards, const search_info *q,
                          const sweep_nearest *nf, const char *fit_weak);
/* The same as one JSON object on stdout, with the train-to-D figures t of
 * the best plan when given. */
void cli_sweep_print_json(const sweep_space *sp, const sweep_screen_result *sr,
                          const sim_row *rows, size_t n, double tau, int64_t sweep_id,
                          const sweep_train *t, const search_info *q, const sweep_nearest *nf);
/* The train-to-D lines of the best plan (scenario s, result r). */
void cli_sweep_print_train(const sweep_train *t, const plan_scenario *s, const exec_result *r);
/* The HTML page of the n rows (report_sweep_html) at path, titled by the
 * sweep's file; 0, or 1 after an error line. */
int cli_sweep_html(const char *path, const char *file, const sweep_space *sp, const sim_row *rows,
                   size_t n, double tau);

#endif
