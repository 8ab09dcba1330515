/* sweep_run.h - the state of one `podsim sweep` (cli/sweep.c, which
 * parses, drives the rounds and prints) shared with cli/sweep_sim.c, which
 * simulates a round's plans: one at a time, on the machine's cores
 * (--threads) or over MPI ranks. Folder-internal. */
#ifndef PODSIM_CLI_SWEEP_RUN_H
#define PODSIM_CLI_SWEEP_RUN_H

#include "cli/sweep_out.h"
#include "store/store.h"
#include "sweep/sweep.h"
#include "topo/topo.h"
#include "valid/valid.h"

#include <signal.h>

#define MAX_ARGS 256

typedef struct sweep_opts {
	const char *file, *db, *train, *html;
	const char *vary[MAX_ARGS], *sets[MAX_ARGS];
	size_t nvary, nsets;
	long top;
	long max_sims;       /* the exact search's cap on its second round; 0: default */
	long spread_samples; /* -1: EXEC_SPREAD_SAMPLES */
	long threads;        /* --threads; 0: the cores it may use, at most 8 */
	int shard, nshards; /* --shard I/N; nshards 0 = all */
	bool json, no_db, help;
} sweep_opts;

typedef struct sweep_run {
	sweep_opts o;
	sweep_par par;
	sweep_space *sp;
	sweep_file f;
	const char *scenario;
	plan_scenario *base;
	sweep_screen_result sr;
	sim_row *rows;       /* this shard's plans in pre-screen order; done ones first */
	size_t n, cap, mine; /* simulated, allocated, this shard's */
	int64_t sweep_id;
	store *db;
	sim_diag *d;
	valid_refs *refs; /* bands and MFU ceilings (valid_refs_apply) */
	int stopped;       /* the signal that stopped it (SIGINT, SIGTERM, SIGHUP) or 0 */
	size_t past_clock; /* plans left out: their step passes the clock (SIM_ERANGE) */
	/* the exact search (exact.c): first round rows [0, search.first), then
	 * the plans whose bound is under the first round's best step */
	search_info search;
	/* network = flow: the link graphs the plans share, one per cluster
	 * (topo_graphs; plan_scenario.graphs), built once instead of per plan */
	topo_graphs *graphs;
	/* the stop handler's flag (sweep.c): the signal that arrived, or 0;
	 * read between plans */
	volatile sig_atomic_t *stop;
} sweep_run;

/* Simulate rows [from, to) of w->rows (serially, on the cores or over the
 * MPI ranks) and finish them: cost, energy, the stored run (this shard's),
 * in search order. SIM_OK, or the first failure's code (its message in
 * w->d). */
int sweep_sim_range(sweep_run *w, size_t from, size_t to);

#endif
