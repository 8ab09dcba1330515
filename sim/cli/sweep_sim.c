/* sweep_sim.c - a round of `podsim sweep`: its plans simulated as `podsim
 * run` would simulate each, then finished (cost, energy, the stored run) in
 * the search's order (sweep_run.h). Serially (`--threads 1`, one core), on
 * the machine's cores (`simulate_threads`: core's sim_parallel, each worker
 * its own link graphs and diagnostics, worker 0 finishing the rows whose
 * predecessors are simulated), or over MPI ranks (`simulate_mpi`, rank 0
 * receiving and storing). The three give the same rows, table and
 * database (tests/cli/sweep.sh, sweep-scale.sh). */
#include "cli/sweep_run.h"
#include "cli/cli.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The monotonic clock in seconds. */
static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress(size_t done, size_t n, double t0_s)
{
	double el = now_s() - t0_s;
	double rate = el > 0 ? (double)done / el : 0;
	double eta = rate > 0 ? (double)(n - done) / rate : 0;
	fprintf(stderr, "\rpodsim sweep: simulated %zu/%zu  %.1f plans/s  ETA %.0f s   ", done, n,
	        rate, eta);
	if (done == n)
		fputc('\n', stderr);
}

/* A simulated row's state from its simulation's code rc: 1 simulated, -1
 * failed, 0 left out because its step passes the clock (simulate_with
 * warned; compact() drops it, counted in past_clock, not a failure); the
 * code the round goes on with. */
static int settle(sweep_run *w, sim_row *row, int rc)
{
	row->state = rc == SIM_OK ? 1 : rc == SIM_ERANGE ? 0 : -1;
	if (rc == SIM_ERANGE)
		rc = SIM_OK, w->past_clock++;
	return rc;
}

/* Cost, energy and the stored row of a simulated plan (row->r filled). */
static int finish(sweep_run *w, sim_row *row, const plan_scenario *s)
{
	sweep_cost_step(s, row->r, &row->cost);
	row->exposed_s = exec_exposed_comm(row->r);
	if (!w->db)
		return SIM_OK;
	char *text = plan_scenario_text(s);
	int rc = text ? store_put_sweep_run(w->db, w->sweep_id, row->rank, text, row->r,
	                                    &row->run_id, w->d)
	              : SIM_ENOMEM;
	free(text);
	return rc;
}

/* Simulate a row's plan exactly as `podsim run FILE --set ...` would, on
 * the link graphs `graphs` with its diagnostics into d and its spread's
 * replays on `spread_threads` (0: every core), and finish it (store it)
 * when `keep`. */
static int simulate_with(sweep_run *w, sim_row *row, bool keep, topo_graphs *graphs, sim_diag *d,
                         int spread_threads)
{
	plan_scenario *s;
	int rc = sweep_plan_load(w->sp, row->plan, w->scenario, w->o.sets, w->o.nsets, d, &s);
	if (rc != SIM_OK)
		return rc;
	s->graphs = graphs;
	row->r = malloc(sizeof *row->r);
	/* run's default too: a plan of a sweep is simulated as `podsim run` would */
	long n = w->o.spread_samples >= 0 ? w->o.spread_samples : EXEC_SPREAD_SAMPLES;
	exec_spread_opts sp = {(int)n, s->seed, -1, spread_threads};
	/* no run report per plan: the shared uplinks' second replay is skipped */
	exec_views v = {NULL, NULL, 0, NULL, &sp, true};
	rc = row->r ? exec_run_views(s, row->r, &v) : SIM_ENOMEM;
	if (rc == SIM_ERANGE) { /* past the clock: this plan is left out, said why */
		char set[512];
		cli_sweep_settings(w->sp, row->plan, set, sizeof set);
		sim_diag_warning(d, w->o.file, 0, "plan %s left out: %s", set, row->r->error);
	}
	if (rc == SIM_OK)
		valid_refs_apply(w->refs, s, row->r);
	if (rc == SIM_OK && keep)
		rc = finish(w, row, s);
	plan_scenario_free(s);
	return rc;
}

/* The threads a sweep's plans run on: --threads, else
 * sweep_threads_default; 1 under mpirun, whose ranks share the cores. */
static int plan_threads(const sweep_run *w)
{
	if (w->par.size > 1)
		return 1;
	if (w->o.threads > 0)
		return (int)w->o.threads;
	return sweep_threads_default();
}

/* The replays of one plan's spread: the cores left to it by the plan
 * workers (under mpirun, by the ranks), at least 1. */
static int spread_threads(const sweep_run *w, int plan_workers)
{
	int cores = sim_threads_default(), by = w->par.size > 1 ? w->par.size : plan_workers;
	return by > 1 ? (cores / by > 1 ? cores / by : 1) : 0;
}

static int simulate(sweep_run *w, sim_row *row, bool keep)
{
	return simulate_with(w, row, keep, w->graphs, w->d, spread_threads(w, 1));
}

/* Plans simulated apart (sim_parallel): rows[i]'s outcome into rc[i] and its
 * diagnostics into diag[i], worker k on its own link graphs graphs[k]. The
 * rows are finished (their diagnostics said, their state set, their runs
 * stored) in row order by worker 0 alone, as soon as every row before them
 * is simulated (ready[i]), and after the workers end for the rest: runs
 * appear in the database as a serial sweep stores them, and Ctrl-C keeps
 * the finished ones. */
#define NOT_RUN (-1000) /* rc of a row Ctrl-C (or a failure) kept from its simulation */
typedef struct plan_job {
	sweep_run *w;
	size_t from, n, next; /* rows w->rows[from + i]; next: the first row not finished */
	int *rc;
	sim_diag **diag;
	atomic_int *ready;
	topo_graphs **graphs;
	int spread, fin_rc;
	atomic_bool stop; /* a row failed: simulate no more */
	bool tty;
	double t0_s;
	atomic_size_t done;
} plan_job;

/* Finish row i (its simulation ready): as simulate_serial would have. */
static int finish_row(plan_job *j, size_t i)
{
	sweep_run *w = j->w;
	sim_row *row = &w->rows[j->from + i];
	sim_diag_append(w->d, j->diag[i]);
	if (j->rc[i] == NOT_RUN)
		return SIM_OK; /* state 0: not simulated, as a serial run stopped */
	int rc = settle(w, row, j->rc[i]);
	if (rc == SIM_OK && row->state > 0 && row->own) {
		plan_scenario *s;
		sim_diag *quiet = sim_diag_new(); /* its load's messages were said above */
		rc = quiet ? sweep_plan_load(w->sp, row->plan, w->scenario, w->o.sets, w->o.nsets, quiet,
		                             &s)
		           : SIM_ENOMEM;
		if (rc == SIM_OK) {
			rc = finish(w, row, s);
			plan_scenario_free(s);
		}
		sim_diag_free(quiet);
		row->done = rc == SIM_OK;
	}
	return rc;
}

/* Worker 0: finish the rows whose predecessors are all ready. */
static void finish_ready(plan_job *j)
{
	while (j->fin_rc == SIM_OK && j->next < j->n &&
	       atomic_load_explicit(&j->ready[j->next], memory_order_acquire)) {
		j->fin_rc = finish_row(j, j->next++);
		if (j->fin_rc != SIM_OK)
			atomic_store(&j->stop, true);
	}
}

static void plan_one(void *ctx, size_t i, int worker)
{
	plan_job *j = ctx;
	j->rc[i] = NOT_RUN;
	if (!*j->w->stop && !atomic_load(&j->stop) && (j->diag[i] = sim_diag_new()) != NULL) {
		sim_row *row = &j->w->rows[j->from + i];
		j->rc[i] = simulate_with(j->w, row, false, j->graphs[worker], j->diag[i], j->spread);
		size_t done = atomic_fetch_add(&j->done, 1) + 1;
		if (j->tty && worker == 0)
			progress(done, j->n, j->t0_s);
	}
	atomic_store_explicit(&j->ready[i], 1, memory_order_release);
	if (worker == 0)
		finish_ready(j);
}

/* Rows [from, to) on `threads` workers, finished in row order up to the
 * first failure (finish_row). */
static int simulate_threads(sweep_run *w, size_t from, size_t to, int threads)
{
	size_t n = to - from;
	plan_job j = {.w = w, .from = from, .n = n, .rc = calloc(n, sizeof(int)),
	              .diag = calloc(n, sizeof(sim_diag *)), .ready = calloc(n, sizeof(atomic_int)),
	              .graphs = calloc((size_t)threads, sizeof(topo_graphs *)),
	              .spread = spread_threads(w, threads), .tty = isatty(fileno(stderr))};
	atomic_init(&j.stop, false);
	atomic_init(&j.done, 0);
	int rc = j.rc && j.diag && j.ready && j.graphs ? SIM_OK : SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < n; i++)
		atomic_init(&j.ready[i], 0);
	for (int k = 0; rc == SIM_OK && k < threads; k++)
		rc = topo_graphs_new(&j.graphs[k]);
	j.t0_s = now_s();
	if (rc == SIM_OK) {
		sim_parallel(n, threads, plan_one, &j);
		finish_ready(&j); /* every row is ready now */
		rc = j.fin_rc;
		size_t done = atomic_load(&j.done);
		if (j.tty) { /* the line's last state, ended (progress ends it at n) */
			progress(done, n, j.t0_s);
			if (done < n)
				fputc('\n', stderr);
		}
	}
	for (size_t i = 0; j.diag && i < n; i++)
		sim_diag_free(j.diag[i]);
	for (int k = 0; j.graphs && k < threads; k++)
		topo_graphs_free(j.graphs[k]);
	free(j.rc);
	free(j.diag);
	free((void *)j.ready);
	free(j.graphs);
	return rc;
}

/* Serial: simulate rows [from, to) in order until done or Ctrl-C; this
 * shard's are stored. */
static int simulate_serial(sweep_run *w, size_t from, size_t to)
{
	bool tty = isatty(fileno(stderr));
	double t0_s = now_s();
	int rc = SIM_OK;
	for (size_t i = from; i < to && rc == SIM_OK && !*w->stop; i++) {
		sim_row *row = &w->rows[i];
		rc = simulate(w, row, row->own);
		row->done = rc == SIM_OK && row->own;
		rc = settle(w, row, rc);
		if (tty)
			progress(i + 1 - from, to - from, t0_s);
	}
	return rc;
}

/* MPI: row p is simulated by rank p % size; rank 0 receives the others' in
 * order and stores every row in pre-screen order, as a serial run does.
 * Message states: 1 simulated, 0 skipped (Ctrl-C), -1 failed. A rank sends
 * its results only after its last simulation: a result is too large for
 * MPI's eager protocol, so a send blocks until rank 0 posts the receive,
 * which it does only after its own simulations; sending as they finish
 * would hold every other rank at its first result (no speed-up). */
static int simulate_mpi(sweep_run *w, size_t from, size_t to)
{
	const sweep_par *p = &w->par;
	size_t size = (size_t)p->size, me = (size_t)p->rank;
	int rc = SIM_OK, failed = 0;
	for (size_t i = from + me; i < to; i += size) {
		sim_row *row = &w->rows[i];
		if (!*w->stop && rc == SIM_OK) {
			rc = settle(w, row, simulate(w, row, false));
		}
		failed |= row->state < 0;
	}
	for (size_t i = from + me; me != 0 && i < to; i += size)
		sweep_par_send(p, w->rows[i].r, w->rows[i].state, (int)i);
	for (size_t i = from; me == 0 && i < to; i++) {
		sim_row *row = &w->rows[i];
		int ok = row->state;
		if ((i - from) % size != 0) {
			row->r = malloc(sizeof *row->r);
			if (!row->r)
				return SIM_ENOMEM;
			sweep_par_recv(p, (int)((i - from) % size), (int)i, row->r, &ok);
			row->state = ok;
		}
		failed |= ok < 0;
		plan_scenario *s;
		if (ok > 0 && row->own && sweep_plan_load(w->sp, row->plan, w->scenario, w->o.sets, w->o.nsets,
		                              w->d, &s) == SIM_OK) {
			rc = finish(w, row, s);
			plan_scenario_free(s);
			row->done = rc == SIM_OK;
		}
	}
	*w->stop = sweep_par_max(p, *w->stop);
	return sweep_par_max(p, failed) ? SIM_EINVAL : rc;
}

int sweep_sim_range(sweep_run *w, size_t from, size_t to)
{
	int t = plan_threads(w);
	return w->par.size > 1        ? simulate_mpi(w, from, to)
	       : t > 1 && to > from + 1 ? simulate_threads(w, from, to, t)
	                              : simulate_serial(w, from, to);
}
