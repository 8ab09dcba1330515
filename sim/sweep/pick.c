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
 * sweep_plan_load), on link graphs shared by the plans (topo_graphs), without
 * the spread's sampled replays and the shared uplinks' second replay: the
 * ranking is on the simulated step, which neither changes. */
#include "../topo/topo.h"
#include "sweep_int.h"

#include <math.h>
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

/* Simulate plan idx; a plan whose step passes the clock is left out and
 * counted, as the sweep does. */
static int simulate(const sweep_space *sp, const sweep_pick_in *in, topo_graphs *graphs,
		    uint64_t idx, sweep_pick *p, sim_diag *diag)
{
	const sweep_plan *plan = &p->sr.plans[idx];
	plan_scenario *s;
	int rc = sweep_plan_load(sp, plan, in->path, in->sets, in->nsets, diag, &s);
	if (rc != SIM_OK)
		return rc;
	s->graphs = graphs;
	exec_result *r = malloc(sizeof *r);
	exec_views v = {NULL, NULL, 0, NULL, NULL, true};
	rc = r ? exec_run_views(s, r, &v) : SIM_ENOMEM;
	plan_scenario_free(s);
	p->simulated++;
	if (rc == SIM_ERANGE) {
		p->past_clock++;
		free(r);
		return SIM_OK;
	}
	if (rc != SIM_OK) {
		free(r);
		return rc;
	}
	keep(p, plan, r);
	return SIM_OK;
}

int sweep_pick_best(const sweep_space *sp, const plan_scenario *base, const sweep_pick_in *in,
		    sweep_pick *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rc = sweep_screen(sp, base, in->path, in->sets, in->nsets, &out->sr);
	if (rc != SIM_OK)
		return rc;
	size_t first = in->first ? in->first : 1, cap = in->max_sims ? in->max_sims : first;
	topo_graphs *graphs = NULL;
	uint64_t *idx = malloc(first * sizeof *idx), *cand = NULL;
	if (!idx || topo_graphs_new(&graphs) != SIM_OK) {
		free(idx);
		return SIM_ENOMEM;
	}
	size_t k = sweep_best(&out->sr, first < cap ? first : cap, idx), n = 0;
	for (size_t i = 0; i < k && rc == SIM_OK; i++) {
		rc = simulate(sp, in, graphs, idx[i], out, diag);
		if (in->progress)
			in->progress(i + 1, k, in->ctx);
	}
	if (rc == SIM_OK && out->r)
		rc = sweep_exact_candidates(&out->sr, idx, k, out->r->step_s, &cand, &n);
	size_t more = n < cap - k ? n : cap - k;
	for (size_t i = 0; i < more && rc == SIM_OK; i++) {
		rc = simulate(sp, in, graphs, cand[i], out, diag);
		if (in->progress)
			in->progress(k + i + 1, k + more, in->ctx);
	}
	out->left = n - more;
	free(cand);
	free(idx);
	topo_graphs_free(graphs);
	return rc;
}

void sweep_pick_free(sweep_pick *p)
{
	free(p->r);
	free(p->r2);
	sweep_screen_free(&p->sr);
	memset(p, 0, sizeof *p);
}
