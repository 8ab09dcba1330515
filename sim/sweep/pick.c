/* pick.c - the fastest plan of a space, found as the sweep's exact search
 * finds it, for a command that needs the best plan itself rather than the
 * ranked table (`podsim explain --against`: what makes a plan lose).
 *
 * The search (the same rounds as `podsim sweep` without --top):
 *   1. every plan screened (sweep_screen: checks, memory, the closed form
 *      and its admissible lower bound est.bound_s);
 *   2. the pre-screen's best `first` fitting plans simulated;
 *   3. every other fitting plan whose bound is under the best simulated
 *      step (sweep_exact_candidates), the only ones that could still beat
 *      it, simulated in the pre-screen's order, up to `max_sims` plans in
 *      all. When none is left out the best is proven: no plan of the space
 *      simulates faster.
 * Each plan is simulated as `podsim run path --set ...` would (the same
 * sweep_plan_load), a round's plans on the machine's cores (simulate_all:
 * the outcome is one thread's), on link graphs shared by a worker's plans
 * (topo_graphs), without the spread's sampled replays and the shared uplinks' second replay: the
 * ranking is on the simulated step, which neither changes. */
#include "../topo/topo.h"
#include "sweep_int.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Keep the two fastest results of distinct plans in p (best, second). */
static void keep(sweep_pick *p, const sweep_plan *plan, exec_result *r)
{
	if (!p->r || r->step_s < p->r->step_s) {
		free(p->r2);
		p->second = p->best, p->r2 = p->r;
		p->best = plan, p->r = r;
	} else if (!p->r2 || r->step_s < p->r2->step_s) {
		free(p->r2);
		p->second = plan, p->r2 = r;
	} else {
		free(r);
	}
}

/* Plans idx[0..k) simulated on the machine's cores (core's sim_parallel,
 * at most SWEEP_THREADS_DEFAULT workers, each on its own link graphs: the
 * plans of a space share clusters), each with its own diagnostics; then
 * kept in idx order as one thread would (keep: the faster wins, the earlier
 * on a tie), and a plan whose step passes the clock left out and counted,
 * as the sweep does. The first load or simulation error in idx order is
 * returned with its diagnostics, the plans after it not kept. */
typedef struct pick_job {
	const sweep_space *sp;
	const sweep_pick_in *in;
	const sweep_pick *p;
	const uint64_t *idx;
	topo_graphs **graphs;
	exec_result **r;
	int *rc;
	sim_diag **diag;
	size_t k, base, planned;
	size_t shown; /* the last count worker 0 reported */
	atomic_size_t done;
} pick_job;

static void pick_one(void *ctx, size_t i, int worker)
{
	pick_job *j = ctx;
	const sweep_plan *plan = &j->p->sr.plans[j->idx[i]];
	plan_scenario *s = NULL;
	j->rc[i] = SIM_ENOMEM;
	if (!(j->diag[i] = sim_diag_new()))
		return;
	j->rc[i] = sweep_plan_load(j->sp, plan, j->in->path, j->in->sets, j->in->nsets, j->diag[i], &s);
	if (j->rc[i] == SIM_OK) {
		s->graphs = j->graphs[worker];
		exec_views v = {NULL, NULL, 0, NULL, NULL, true};
		j->r[i] = malloc(sizeof *j->r[i]);
		j->rc[i] = j->r[i] ? exec_run_views(s, j->r[i], &v) : SIM_ENOMEM;
	}
	plan_scenario_free(s);
	size_t done = atomic_fetch_add(&j->done, 1) + 1;
	if (j->in->progress && worker == 0)
		j->in->progress(j->base + (j->shown = done), j->planned, j->in->ctx);
}

static int simulate_all(const sweep_space *sp, const sweep_pick_in *in, topo_graphs **graphs,
			int threads, const uint64_t *idx, size_t k, size_t base, size_t planned,
			sweep_pick *p, sim_diag *diag)
{
	pick_job j = {sp, in, p, idx, graphs, calloc(k ? k : 1, sizeof(exec_result *)),
		      calloc(k ? k : 1, sizeof(int)), calloc(k ? k : 1, sizeof(sim_diag *)), k,
		      base, planned, 0, 0};
	int rc = j.r && j.rc && j.diag ? SIM_OK : SIM_ENOMEM;
	if (rc == SIM_OK)
		sim_parallel(k, threads, pick_one, &j);
	if (rc == SIM_OK && in->progress && j.shown < k) /* the last plan another worker's */
		in->progress(base + k, planned, in->ctx);
	for (size_t i = 0; rc == SIM_OK && i < k; i++) {
		sim_diag_append(diag, j.diag[i]);
		p->simulated++;
		if (j.rc[i] == SIM_ERANGE) {
			p->past_clock++;
			continue;
		}
		rc = j.rc[i];
		if (rc == SIM_OK) {
			keep(p, &p->sr.plans[idx[i]], j.r[i]);
			j.r[i] = NULL; /* kept or freed by keep */
		}
	}
	for (size_t i = 0; i < k; i++) {
		if (j.r)
			free(j.r[i]);
		if (j.diag)
			sim_diag_free(j.diag[i]);
	}
	free(j.r);
	free(j.rc);
	free(j.diag);
	return rc;
}

int sweep_threads_default(void)
{
	int t = sim_threads_default();
	return t < SWEEP_THREADS_DEFAULT ? t : SWEEP_THREADS_DEFAULT;
}

int sweep_pick_best(const sweep_space *sp, const plan_scenario *base, const sweep_pick_in *in,
		    sweep_pick *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rc = sweep_screen(sp, base, in->path, in->sets, in->nsets, &out->sr);
	if (rc != SIM_OK)
		return rc;
	size_t first = in->first ? in->first : 1, cap = in->max_sims ? in->max_sims : first;
	int threads = sweep_threads_default();
	topo_graphs *graphs[SWEEP_THREADS_DEFAULT] = {NULL};
	uint64_t *idx = malloc(first * sizeof *idx), *cand = NULL;
	rc = idx ? SIM_OK : SIM_ENOMEM;
	for (int t = 0; rc == SIM_OK && t < threads; t++)
		rc = topo_graphs_new(&graphs[t]);
	size_t k = rc == SIM_OK ? sweep_best(&out->sr, first < cap ? first : cap, idx) : 0, n = 0;
	if (rc == SIM_OK)
		rc = simulate_all(sp, in, graphs, threads, idx, k, 0, k, out, diag);
	if (rc == SIM_OK && out->r)
		rc = sweep_exact_candidates(&out->sr, idx, k, out->r->step_s, &cand, &n);
	size_t more = n < cap - k ? n : cap - k;
	if (rc == SIM_OK && more > 0)
		rc = simulate_all(sp, in, graphs, threads, cand, more, k, k + more, out, diag);
	out->left = n - more;
	free(cand);
	free(idx);
	for (int t = 0; t < threads; t++)
		topo_graphs_free(graphs[t]);
	return rc;
}

void sweep_pick_free(sweep_pick *p)
{
	free(p->r);
	free(p->r2);
	sweep_screen_free(&p->sr);
	memset(p, 0, sizeof *p);
}
