/* flow.c - flows on routed paths sharing links max-min fairly, advanced from
 * start to finish event by event (topo.h).
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
 *
 * Time. topo_sim keeps flows with a size in bytes and a start time (integer
 * picoseconds). Between two events (a start or a finish) rates are constant,
 * so the loop is: admit the flows that start now, solve max-min over the
 * active flows, find the earliest of the next start and the active flows'
 * finishes now + ceil(remaining / rate), move every active flow's remaining
 * bytes forward by rate * dt, retire the flows that finish then, repeat. The
 * whole active set is re-solved at each event (the issue asks for an
 * incremental update limited to the affected links: left for the step
 * replay, where flow counts grow).
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A link's residue at or below this fraction of its capacity counts as 0. */
#define SAT_EPS 1e-12

typedef struct mm_work {
	double *left; /* capacity not yet taken, per link */
	int *n;       /* unfrozen flows per link */
	char *sat;    /* link saturated this round */
	char *frozen; /* per flow */
	int *links;   /* the links some unfrozen flow crosses (nl of them) */
	int *flows;   /* the unfrozen flows (nf of them) */
	int nl, nf;
} mm_work;

/* One round of progressive filling. Only links that still carry unfrozen
 * flows and only unfrozen flows are visited: both lists shrink as flows
 * freeze, so a round costs O(active links + active path length). */
static int mm_round(const double *cap, const int *off, const int *path, double *rate, mm_work *w,
                    double *t)
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
		w->frozen[f] = 1;
		rate[f] = *t;
		for (int i = off[f]; i < off[f + 1]; i++)
			w->n[path[i]]--;
	}
	w->nf = nf;
	for (int i = 0; i < w->nl; i++)
		w->sat[w->links[i]] = 0;
	return SIM_OK;
}

int topo_maxmin(int nlinks, const double *cap_Bps, int nflows, const int *off, const int *path,
                double *rate_Bps)
{
	mm_work w = {malloc((size_t)nlinks * sizeof(double) + 1),
	             calloc((size_t)nlinks + 1, sizeof(int)),
	             calloc((size_t)nlinks + 1, 1),
	             calloc((size_t)nflows + 1, 1),
	             malloc(((size_t)nlinks + 1) * sizeof(int)),
	             malloc(((size_t)nflows + 1) * sizeof(int)),
	             0,
	             0};
	int rc = w.left && w.n && w.sat && w.frozen && w.links && w.flows ? SIM_OK : SIM_ENOMEM;
	for (int l = 0; l < nlinks && rc == SIM_OK; l++) {
		w.left[l] = cap_Bps[l];
		if (!(cap_Bps[l] > 0))
			rc = SIM_EINVAL;
	}
	for (int f = 0; f < nflows && rc == SIM_OK; f++) {
		if (off[f] == off[f + 1]) {
			rate_Bps[f] = INFINITY;
			w.frozen[f] = 1;
		} else {
			w.flows[w.nf++] = f;
		}
		for (int i = off[f]; i < off[f + 1] && rc == SIM_OK; i++) {
			if (path[i] < 0 || path[i] >= nlinks)
				rc = SIM_EINVAL;
			else if (w.n[path[i]]++ == 0)
				w.links[w.nl++] = path[i];
		}
	}
	double t = 0;
	while (rc == SIM_OK && w.nf > 0)
		rc = mm_round(cap_Bps, off, path, rate_Bps, &w, &t);
	free(w.left);
	free(w.n);
	free(w.sat);
	free(w.frozen);
	free(w.links);
	free(w.flows);
	return rc;
}

/* ------------------------------------------------------------- the loop -- */

typedef struct sflow {
	int off, n;  /* links in s->links[off .. off + n) */
	double left; /* bytes still to send */
	sim_time start, finish;
	bool done;
} sflow;

struct topo_sim {
	int nlinks;
	double *cap;
	double *link_bytes;
	double *link_sat_s; /* time at >= TOPO_SAT_LOAD of capacity */
	double *load;       /* scratch: rate sum per link between two events */
	sflow *f;
	int nf, cap_f;
	int *links;
	int nl, cap_nl;
};

int topo_sim_new(int nlinks, const double *cap_Bps, topo_sim **out)
{
	topo_sim *s = calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return SIM_ENOMEM;
	s->nlinks = nlinks;
	s->cap = malloc(((size_t)nlinks + 1) * sizeof *s->cap);
	s->link_bytes = calloc((size_t)nlinks + 1, sizeof *s->link_bytes);
	s->link_sat_s = calloc((size_t)nlinks + 1, sizeof *s->link_sat_s);
	s->load = calloc((size_t)nlinks + 1, sizeof *s->load);
	if (!s->cap || !s->link_bytes || !s->link_sat_s || !s->load) {
		topo_sim_free(s);
		return SIM_ENOMEM;
	}
	if (nlinks > 0)
		memcpy(s->cap, cap_Bps, (size_t)nlinks * sizeof *s->cap);
	*out = s;
	return SIM_OK;
}

int topo_sim_for_graph(const topo_graph *g, topo_sim **out)
{
	double *cap = malloc(((size_t)g->nl + 1) * sizeof *cap);
	if (!cap)
		return SIM_ENOMEM;
	for (int l = 0; l < g->nl; l++)
		cap[l] = topo_link_cap(g, l);
	int rc = topo_sim_new(g->nl, cap, out);
	free(cap);
	return rc;
}

void topo_sim_free(topo_sim *s)
{
	if (!s)
		return;
	free(s->cap);
	free(s->link_bytes);
	free(s->link_sat_s);
	free(s->load);
	free(s->f);
	free(s->links);
	free(s);
}

void topo_sim_clear(topo_sim *s)
{
	s->nf = 0;
	s->nl = 0;
	memset(s->link_bytes, 0, (size_t)s->nlinks * sizeof *s->link_bytes);
	memset(s->link_sat_s, 0, (size_t)s->nlinks * sizeof *s->link_sat_s);
}

int topo_sim_add(topo_sim *s, const int *links, int n, double bytes, sim_time start)
{
	if (n < 0 || !(bytes >= 0) || start < 0)
		return SIM_EINVAL;
	for (int i = 0; i < n; i++)
		if (links[i] < 0 || links[i] >= s->nlinks)
			return SIM_EINVAL;
	if (s->nf == s->cap_f) {
		int cap = s->cap_f ? 2 * s->cap_f : 64;
		sflow *p = realloc(s->f, (size_t)cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		s->f = p;
		s->cap_f = cap;
	}
	if (s->nl + n > s->cap_nl) {
		int cap = s->cap_nl ? 2 * s->cap_nl : 256;
		while (cap < s->nl + n)
			cap *= 2;
		int *p = realloc(s->links, (size_t)cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		s->links = p;
		s->cap_nl = cap;
	}
	memcpy(s->links + s->nl, links, (size_t)n * sizeof *links);
	s->f[s->nf] = (sflow){s->nl, n, bytes, start, 0, false};
	s->nl += n;
	return s->nf++;
}

/* Active flows now: started, not done. Fills act[], their CSR paths, returns
 * the count. */
static int gather(topo_sim *s, sim_time now, int *act, int *off, int *path)
{
	int na = 0, np = 0;
	for (int i = 0; i < s->nf; i++) {
		sflow *f = &s->f[i];
		if (f->done || f->start > now)
			continue;
		act[na] = i;
		off[na++] = np;
		memcpy(path + np, s->links + f->off, (size_t)f->n * sizeof *path);
		np += f->n;
	}
	off[na] = np;
	return na;
}

/* Links loaded to >= TOPO_SAT_LOAD of capacity by the rates of the active
 * flows count dt as saturated time. */
static void count_saturated(topo_sim *s, const int *act, int na, const double *rate, double dt)
{
	for (int a = 0; a < na; a++) {
		const sflow *f = &s->f[act[a]];
		for (int i = 0; i < f->n && isfinite(rate[a]); i++)
			s->load[s->links[f->off + i]] += rate[a];
	}
	for (int a = 0; a < na; a++) {
		const sflow *f = &s->f[act[a]];
		for (int i = 0; i < f->n; i++) {
			int l = s->links[f->off + i];
			if (s->load[l] >= TOPO_SAT_LOAD * s->cap[l])
				s->link_sat_s[l] += dt;
			s->load[l] = -INFINITY; /* counted once */
		}
	}
	for (int a = 0; a < na; a++) {
		const sflow *f = &s->f[act[a]];
		for (int i = 0; i < f->n; i++)
			s->load[s->links[f->off + i]] = 0;
	}
}

/* Move the active flows from now to next at their rates; retire those whose
 * finish is next. */
static void advance(topo_sim *s, const int *act, int na, const double *rate, sim_time now,
                    sim_time next)
{
	double dt = sim_time_to_s(next - now);
	/* Flows due within a relative 1e-9 of `next` (equal rates that differ
	 * in the last bits) finish together: one event, not one each. */
	sim_time tol = 1 + next / 1000000000;
	count_saturated(s, act, na, rate, dt);
	for (int a = 0; a < na; a++) {
		sflow *f = &s->f[act[a]];
		double moved = isfinite(rate[a]) ? fmin(f->left, rate[a] * dt) : f->left;
		bool ends = !isfinite(rate[a]) ||
		            now + (sim_time)ceil(f->left / rate[a] * SIM_PS_PER_S) <= next + tol;
		if (ends)
			moved = f->left;
		for (int i = 0; i < f->n; i++)
			s->link_bytes[s->links[f->off + i]] += moved;
		f->left -= moved;
		if (ends) {
			f->left = 0;
			f->done = true;
			f->finish = isfinite(rate[a]) ? next : now;
		}
	}
}

static int step(topo_sim *s, sim_time *now, int *act, int *off, int *path, double *rate)
{
	int na = gather(s, *now, act, off, path);
	sim_time next = SIM_TIME_MAX;
	for (int i = 0; i < s->nf; i++)
		if (!s->f[i].done && s->f[i].start > *now && s->f[i].start < next)
			next = s->f[i].start;
	if (na == 0) {
		*now = next;
		return SIM_OK;
	}
	int rc = topo_maxmin(s->nlinks, s->cap, na, off, path, rate);
	if (rc != SIM_OK)
		return rc;
	for (int a = 0; a < na; a++) {
		sflow *f = &s->f[act[a]];
		if (!isfinite(rate[a]) || f->left <= 0) {
			next = *now;
			continue;
		}
		if (!(rate[a] > 0))
			return SIM_EINVAL;
		double ps = ceil(f->left / rate[a] * SIM_PS_PER_S);
		if (ps >= (double)(SIM_TIME_MAX - *now))
			return SIM_ERANGE;
		sim_time fin = *now + (sim_time)ps;
		if (fin < next)
			next = fin;
	}
	advance(s, act, na, rate, *now, next);
	*now = next;
	return SIM_OK;
}

int topo_sim_run(topo_sim *s)
{
	if (s->nf == 0)
		return SIM_OK;
	int *act = malloc((size_t)s->nf * sizeof *act),
	    *off = malloc(((size_t)s->nf + 1) * sizeof *off);
	int *path = malloc(((size_t)s->nl + 1) * sizeof *path);
	double *rate = malloc((size_t)s->nf * sizeof *rate);
	int rc = act && off && path && rate ? SIM_OK : SIM_ENOMEM;
	sim_time now = SIM_TIME_MAX;
	for (int i = 0; i < s->nf; i++) {
		if (!s->f[i].done && s->f[i].start < now)
			now = s->f[i].start;
		if (s->f[i].left <= 0 && !s->f[i].done) {
			s->f[i].done = true;
			s->f[i].finish = s->f[i].start;
		}
	}
	while (rc == SIM_OK && now != SIM_TIME_MAX) {
		rc = step(s, &now, act, off, path, rate);
		bool left = false;
		for (int i = 0; i < s->nf && !left; i++)
			left = !s->f[i].done;
		if (!left)
			break;
	}
	free(act);
	free(off);
	free(path);
	free(rate);
	return rc;
}

sim_time topo_sim_finish(const topo_sim *s, int id)
{
	return id >= 0 && id < s->nf ? s->f[id].finish : -1;
}

sim_time topo_sim_makespan(const topo_sim *s)
{
	sim_time m = 0;
	for (int i = 0; i < s->nf; i++)
		if (s->f[i].finish > m)
			m = s->f[i].finish;
	return m;
}

int topo_sim_nflows(const topo_sim *s)
{
	return s->nf;
}

double topo_sim_link_bytes(const topo_sim *s, int link)
{
	return link >= 0 && link < s->nlinks ? s->link_bytes[link] : 0;
}

double topo_sim_link_sat_s(const topo_sim *s, int link)
{
	return link >= 0 && link < s->nlinks ? s->link_sat_s[link] : 0;
}
