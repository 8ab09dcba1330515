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
 * A frozen flow crosses a saturated link on which no other flow is faster
 * (they all froze at t or earlier, at lower levels), which is the bottleneck
 * condition that characterises max-min fairness.
 *
 * Done as rounds, each visiting every link and flow still unfrozen, this
 * costs O(R (L + sum |P_f|)) for R distinct levels; a ring over hundreds
 * of nodes of a fat tree with ECMP collisions has R ~ 150 (a 256-node
 * data-parallel ring of 8,160 flows: 7 ms a solve, which flow.c re-solved
 * at each of its 682 finishes before a departure re-solved only the faster
 * flows). So it is done link by link instead. While flows
 * rise together at level t, link l saturates at level
 *     s_l = left_l / n_l,   left_l = c_l - (sum of its frozen flows' rates),
 * which does not move while nothing freezes; the next link to saturate is
 * the one of least s_l. Freezing its unfrozen flows at t = s_l takes t from
 * left_m and one from n_m of each of their links m, and s_m can only grow:
 * s_m >= t gives (left_m - t) / (n_m - 1) >= (left_m - left_m/n_m) / (n_m - 1)
 * = left_m / n_m. So the links sit in a min-heap keyed by s_l as last
 * computed, a lower bound of the level since keys only grow: the top's
 * level is recomputed, and where it grew the key is refreshed and sifted
 * down, else the top's is the least level of all and its flows freeze.
 * Each flow freezes once: O(sum |P_f| + (L + refreshes) log L). Links that
 * saturate at the same level are popped one after another at that level,
 * as the round froze them together. Where the first round alone freezes
 * every flow (one level: a non-blocking fabric's phase), that round is the
 * answer and no heap is built (one_level).
 * Examples (test_flow.c): two flows on one link of c get c/2 each; the
 * parking lot (links A, B of capacity 1, flow 0 on A and B, flow 1 on A,
 * flow 2 on B) gives 1/2 to every flow.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>

/* The level at which link l saturates (header comment). */
static double level(const topo_mm_work *w, int l)
{
	return w->left[l] / w->n[l];
}

/* Heap order: lower key first, then lower link (reproducible ties). */
static bool before(topo_mm_ent a, topo_mm_ent b)
{
	return a.key < b.key || (a.key == b.key && a.l < b.l);
}

static void sift_down(topo_mm_work *w, int i)
{
	topo_mm_ent e = w->heap[i];
	for (;;) {
		int c = 2 * i + 1;
		if (c >= w->nh)
			break;
		if (c + 1 < w->nh && before(w->heap[c + 1], w->heap[c]))
			c++;
		if (!before(w->heap[c], e))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	w->heap[i] = e;
}

static void pop(topo_mm_work *w)
{
	w->heap[0] = w->heap[--w->nh];
	sift_down(w, 0);
}

/* Freeze flow f at rate t: its links lose t of their capacity and one
 * unfrozen flow (their keys are refreshed when they reach the top). */
static void freeze(const int *off, const int *path, double *rate, topo_mm_work *w, int f, double t,
                   int l)
{
	w->frozen[f] = 1;
	w->bott[f] = l;
	rate[f] = t;
	for (int i = off[f]; i < off[f + 1]; i++) {
		w->left[path[i]] -= t;
		w->n[path[i]]--;
	}
}

/* Each listed link's unfrozen flows, lf[first[l] .. last[l]). */
static int link_lists(const int *off, const int *path, topo_mm_work *w)
{
	int at = 0;
	for (int i = 0; i < w->nl; i++) {
		int l = w->links[i];
		w->first[l] = w->last[l] = at;
		at += w->n[l];
	}
	if (at > w->cap_lf) {
		int *p = realloc(w->lf, (size_t)at * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		w->lf = p;
		w->cap_lf = at;
	}
	for (int j = 0; j < w->nf; j++) {
		int f = w->flows[j];
		for (int i = off[f]; i < off[f + 1]; i++)
			w->lf[w->last[path[i]]++] = f;
	}
	return SIM_OK;
}

/* The first round of filling, where it freezes every flow: all rise to the
 * least level t = min c_l / n_l, and each crosses a link saturated there
 * (c_l - t n_l at most 1e-12 of c_l), so all get t, each bottlenecked on
 * that link. The phases of a non-blocking fabric, whose flows share one
 * rate, end here in O(L + sum |P_f|), cheaper than building the heap.
 * False, with nothing written, where some flow would stay unfrozen. */
static bool one_level(const double *cap, const int *off, const int *path, double *rate,
                      topo_mm_work *w)
{
	double t = INFINITY;
	for (int i = 0; i < w->nl; i++) {
		int l = w->links[i];
		if (w->n[l] > 0)
			t = fmin(t, cap[l] / w->n[l]);
	}
	if (!isfinite(t))
		return false;
	for (int j = 0; j < w->nf; j++) {
		int f = w->flows[j], b = -1;
		for (int i = off[f]; i < off[f + 1] && b < 0; i++)
			if (cap[path[i]] - t * w->n[path[i]] <= 1e-12 * cap[path[i]])
				b = path[i];
		if (b < 0)
			return false;
		w->bott[f] = b;
	}
	for (int j = 0; j < w->nf; j++)
		rate[w->flows[j]] = t;
	return true;
}

/* Max-min rates of the flows w->flows[0..nf), which cross exactly the links
 * w->links[0..nl) (each listed once): progressive filling from rate 0 on
 * full capacities, link by link in order of saturation. Consumes both
 * lists. */
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
		w->frozen[f] = 0;
		for (int i = off[f]; i < off[f + 1]; i++)
			w->n[path[i]]++;
	}
	w->nf = nf;
	if (one_level(cap, off, path, rate, w)) {
		w->nf = w->nl = 0;
		return SIM_OK;
	}
	int rc = link_lists(off, path, w);
	w->nh = 0;
	for (int i = 0; i < w->nl && rc == SIM_OK; i++) {
		int l = w->links[i];
		if (w->n[l] > 0)
			w->heap[w->nh++] = (topo_mm_ent){level(w, l), l};
	}
	for (int i = w->nh / 2 - 1; i >= 0; i--)
		sift_down(w, i);
	double t = 0;
	int unfrozen = w->nf;
	while (rc == SIM_OK && unfrozen > 0 && w->nh > 0) {
		int l = w->heap[0].l;
		if (w->n[l] == 0) { /* its flows froze on other links */
			pop(w);
			continue;
		}
		double s = level(w, l);
		if (s > w->heap[0].key) { /* a stale key, below the level: refresh */
			w->heap[0].key = s;
			sift_down(w, 0);
			continue;
		}
		if (!isfinite(s))
			rc = SIM_EINVAL;
		t = s > t ? s : t; /* s_l >= t but for rounding */
		pop(w);
		for (int k = w->first[l]; k < w->last[l] && rc == SIM_OK; k++)
			if (!w->frozen[w->lf[k]]) {
				freeze(off, path, rate, w, w->lf[k], t, l);
				unfrozen--;
			}
	}
	w->nf = w->nl = 0;
	return rc;
}

void topo_mm_free(topo_mm_work *w)
{
	free(w->left);
	free(w->n);
	free(w->first);
	free(w->last);
	free(w->heap);
	free(w->links);
	free(w->flows);
	free(w->frozen);
	free(w->bott);
	free(w->lf);
}

int topo_mm_alloc(topo_mm_work *w, int nlinks, int nflows)
{
	size_t L = (size_t)nlinks + 1, F = (size_t)nflows + 1;
	*w = (topo_mm_work){.left = malloc(L * sizeof(double)),
	                    .n = calloc(L, sizeof(int)),
	                    .first = malloc(L * sizeof(int)),
	                    .last = malloc(L * sizeof(int)),
	                    .heap = malloc(L * sizeof(topo_mm_ent)),
	                    .links = malloc(L * sizeof(int)),
	                    .flows = malloc(F * sizeof(int)),
	                    .frozen = calloc(F, 1),
	                    .bott = malloc(F * sizeof(int))};
	if (!w->left || !w->n || !w->first || !w->last || !w->heap || !w->links || !w->flows ||
	    !w->frozen || !w->bott)
		return SIM_ENOMEM;
	return SIM_OK;
}

int topo_maxmin(int nlinks, const double *cap_Bps, int nflows, const int *off, const int *path,
                double *rate_Bps)
{
	topo_mm_work w;
	int rc = topo_mm_alloc(&w, nlinks, nflows);
	for (int l = 0; l < nlinks && rc == SIM_OK; l++)
		if (!(cap_Bps[l] > 0))
			rc = SIM_EINVAL;
	/* w.first marks the links already listed. */
	for (int l = 0; l < nlinks && rc == SIM_OK; l++)
		w.first[l] = 0;
	for (int f = 0; f < nflows && rc == SIM_OK; f++) {
		w.flows[w.nf++] = f;
		for (int i = off[f]; i < off[f + 1] && rc == SIM_OK; i++) {
			if (path[i] < 0 || path[i] >= nlinks)
				rc = SIM_EINVAL;
			else if (!w.first[path[i]]) {
				w.first[path[i]] = 1;
				w.links[w.nl++] = path[i];
			}
		}
	}
	if (rc == SIM_OK)
		rc = topo_mm_solve(cap_Bps, off, path, rate_Bps, &w);
	topo_mm_free(&w);
	return rc;
}
