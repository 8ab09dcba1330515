/* maxmin.c - max-min fair rates of flows on links, by progressive filling
 * (topo.h; the event loop that uses it is flow.c).
 *
 * Max-min fairness. Links l have capacities c_l > 0; flow f crosses the set
 * P_f of links and gets rate x_f. A rate vector is feasible when every link's
 * load sum_{f: l in P_f} x_f <= c_l, and max-min fair when no flow's rate can
 * grow without lowering the rate of a flow that is no faster. Such a vector
 * exists, is unique, and is what progressive filling computes (Bertsekas &
 * Gallager, Data Networks, section 6.5.2):
 *   1. Every flow starts unfrozen at rate t = 0.
 *   2. Raise the rate t of all unfrozen flows together. Link l with n_l
 *      unfrozen flows and r_l capacity left (c_l minus the frozen flows'
 *      rates and minus n_l * t) saturates after a further delta_l = r_l / n_l.
 *      Raise t by delta = min_l delta_l over links with n_l > 0.
 *   3. Every link whose residue is now 0 is a bottleneck: freeze each unfrozen
 *      flow that crosses one at x_f = t, and remove it from the n_l of its
 *      links.
 *   4. Repeat from 2 while unfrozen flows remain.
 * Each round freezes at least one flow, so there are at most F rounds of
 * O(L + sum |P_f|) work. A frozen flow crosses a saturated link on which no
 * other flow is faster (they all froze at t or earlier, at lower levels),
 * which is the bottleneck condition that characterises max-min fairness.
 * Examples (test_flow.c): two flows on one link of c get c/2 each; the
 * parking lot (links A, B of capacity 1, flow 0 on A and B, flow 1 on A,
 * flow 2 on B) gives 1/2 to every flow.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>

/* A link's residue at or below this fraction of its capacity counts as 0. */
#define SAT_EPS 1e-12

/* One round of progressive filling. Only links that still carry unfrozen
 * flows and only unfrozen flows are visited: both lists shrink as flows
 * freeze, so a round costs O(active links + active path length). */
static int mm_round(const double *cap, const int *off, const int *path, double *rate,
                    topo_mm_work *w, double *t)
{
	double delta = INFINITY;
	int nl = 0;
	for (int i = 0; i < w->nl; i++) {
		int l = w->links[i];
		if (w->n[l] > 0) {
			double d = w->left[l] / w->n[l];
			delta = d < delta ? d : delta;
			w->links[nl++] = l;
		}
	}
	w->nl = nl;
	if (!isfinite(delta))
		return SIM_EINVAL;
	*t += delta;
	for (int i = 0; i < w->nl; i++) {
		int l = w->links[i];
		w->left[l] -= delta * w->n[l];
		w->sat[l] = w->left[l] <= SAT_EPS * cap[l];
	}
	int nf = 0;
	for (int j = 0; j < w->nf; j++) {
		int f = w->flows[j];
		bool hit = false;
		for (int i = off[f]; i < off[f + 1] && !hit; i++)
			hit = w->sat[path[i]];
		if (!hit) {
			w->flows[nf++] = f;
			continue;
		}
		rate[f] = *t;
		for (int i = off[f]; i < off[f + 1]; i++)
			w->n[path[i]]--;
	}
	w->nf = nf;
	for (int i = 0; i < w->nl; i++)
		w->sat[w->links[i]] = 0;
	return SIM_OK;
}

/* Max-min rates of the flows w->flows[0..nf), which cross exactly the links
 * w->links[0..nl) (each listed once): progressive filling from rate 0 on
 * full capacities. Consumes both lists. */
int topo_mm_solve(const double *cap, const int *off, const int *path, double *rate, topo_mm_work *w)
{
	for (int i = 0; i < w->nl; i++) {
		w->left[w->links[i]] = cap[w->links[i]];
		w->n[w->links[i]] = 0;
	}
	int nf = 0;
	for (int j = 0; j < w->nf; j++) {
		int f = w->flows[j];
		if (off[f] == off[f + 1]) {
			rate[f] = INFINITY;
			continue;
		}
		w->flows[nf++] = f;
		for (int i = off[f]; i < off[f + 1]; i++)
			w->n[path[i]]++;
	}
	w->nf = nf;
	double t = 0;
	int rc = SIM_OK;
	while (rc == SIM_OK && w->nf > 0)
		rc = mm_round(cap, off, path, rate, w, &t);
	return rc;
}

void topo_mm_free(topo_mm_work *w)
{
	free(w->left);
	free(w->n);
	free(w->sat);
	free(w->links);
	free(w->flows);
}

int topo_mm_alloc(topo_mm_work *w, int nlinks, int nflows)
{
	*w = (topo_mm_work){malloc(((size_t)nlinks + 1) * sizeof(double)),
	                    calloc((size_t)nlinks + 1, sizeof(int)),
	                    calloc((size_t)nlinks + 1, 1),
	                    malloc(((size_t)nlinks + 1) * sizeof(int)),
	                    malloc(((size_t)nflows + 1) * sizeof(int)),
	                    0,
	                    0};
	return w->left && w->n && w->sat && w->links && w->flows ? SIM_OK : SIM_ENOMEM;
}

int topo_maxmin(int nlinks, const double *cap_Bps, int nflows, const int *off, const int *path,
                double *rate_Bps)
{
	topo_mm_work w;
	int rc = topo_mm_alloc(&w, nlinks, nflows);
	for (int l = 0; l < nlinks && rc == SIM_OK; l++)
		if (!(cap_Bps[l] > 0))
			rc = SIM_EINVAL;
	/* w.sat marks the links already listed. */
	for (int f = 0; f < nflows && rc == SIM_OK; f++) {
		w.flows[w.nf++] = f;
		for (int i = off[f]; i < off[f + 1] && rc == SIM_OK; i++) {
			if (path[i] < 0 || path[i] >= nlinks)
				rc = SIM_EINVAL;
			else if (!w.sat[path[i]]) {
				w.sat[path[i]] = 1;
				w.links[w.nl++] = path[i];
			}
		}
	}
	for (int i = 0; i < w.nl; i++)
		w.sat[w.links[i]] = 0;
	if (rc == SIM_OK)
		rc = topo_mm_solve(cap_Bps, off, path, rate_Bps, &w);
	topo_mm_free(&w);
	return rc;
}
