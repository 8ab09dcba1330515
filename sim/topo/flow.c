/* flow.c - flows on routed paths sharing links max-min fairly (maxmin.c),
 * advanced from start to finish event by event (topo.h).
 *
 * Time. topo_sim keeps flows with a size in bytes and a start time (integer
 * picoseconds). Between two events (a start or a finish) rates are constant:
 * a flow's bytes left change linearly and its finish is
 * fin = t + ceil(left / rate), fixed when its rate was last set at t. The
 * loop takes the earliest of the next start and the earliest fin (a binary
 * heap of finishes, stale entries skipped by a version number), retires
 * every flow due by then (within a relative 1e-9, so flows whose equal rates
 * differ in the last bits end in one event), admits the flows starting then,
 * and re-solves.
 *
 * Incremental update. Only rates in the connected component of the changed
 * flows can change, where two active flows are connected when they share a
 * link: max-min fairness decomposes over components, since progressive
 * filling couples flows only through the n_l and r_l of shared links. So at
 * an event the flows that started or ended name their links; a search over
 * links -> active flows on them -> their links collects the affected
 * component, and only it is settled (bytes moved at the old rates), solved,
 * and given new finishes and link loads. A flow elsewhere keeps its rate and
 * its finish. The cost of an event is the size of the affected component,
 * not of the whole network: a finish on a link that no other active flow
 * crosses costs O(its path). (test_flow.c checks the incremental rates and
 * finishes against a full re-solve at every event on random networks, and
 * counts the flows re-solved.)
 *
 * Departures re-solve only the flows at least as fast as the one that left.
 * Let flow g, of rate x_g, end. Progressive filling (maxmin.c) from 0 to
 * level x_g is the same with and without g: a link that g crosses does not
 * saturate below x_g with g (else g would have frozen there), and without g
 * it carries less; every other link sees the same flows rise and freeze.
 * So every flow of rate below x_g keeps it, and the faster ones are the
 * max-min rates of the residual network: each link's capacity less the
 * rates of its slower flows (they rise to level x_g unfrozen, as filling
 * from 0 on the residual capacities also has them, and go on alike). An
 * event that ends several flows re-solves those at least as fast as the
 * slowest of them (less 1e-9 of it, for rates equal but for rounding); an
 * event with a start re-solves the whole component. Flows of equal bytes
 * end fastest first, so most finishes re-solve few: a data-parallel ring
 * of 8,160 flows on a RoCE fat tree re-solved 5.5 M flows over its 682
 * events and now only its 8,160 at the start (its flows of one rate end
 * together, the slower ones keep theirs).
 *
 * Links touched only. A run works on the links its flows cross, numbered
 * 0 .. Lc - 1 for the run (compact(): the paths rewritten, capacities and
 * counters copied in, all put back by expand()), so its per-link arrays and
 * the max-min scratch hold Lc entries, not the graph's: a phase of a
 * collective on 65,536 GPUs allocated and cleared 868k links' arrays per
 * phase. Every loop over links walks lists built from the paths, never the
 * link numbers in order, so the renumbering changes no result.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- the loop -- */

typedef struct sflow {
	int off, n;  /* links in s->links[off .. off + n) */
	double left; /* bytes still to send at t_upd */
	double rate; /* since t_upd */
	sim_time start, finish, t_upd, fin;
	unsigned ver; /* finish-heap entries with another version are stale */
	bool active, done;
} sflow;

struct topo_sim {
	int nlinks; /* the run's compact count while it runs (compact()) */
	double *cap;
	double *link_bytes;
	double *link_sat_s; /* time at >= TOPO_SAT_LOAD of capacity */
	sflow *f;
	int nf, cap_f;
	int *links;
	int nl, cap_nl;
	long long resolved;              /* flows re-solved, all events of all runs */
	int *map;                        /* per link: its compact number during a run, else -1 */
	bool clean;                      /* every link's counters are 0 (topo_sim_clear, harvest) */
	const uint8_t *cls;              /* topo_sim_derate: per link its class, or NULL */
	double div[NET_LINK_KIND_COUNT]; /* per class: the capacity divisor */
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
	if (!s->cap || !s->link_bytes || !s->link_sat_s) {
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
	return topo_sim_new(g->nl, g->cap, out);
}

void topo_sim_free(topo_sim *s)
{
	if (!s)
		return;
	free(s->cap);
	free(s->link_bytes);
	free(s->link_sat_s);
	free(s->f);
	free(s->links);
	free(s->map);
	free(s);
}

void topo_sim_clear(topo_sim *s)
{
	/* Only a run writes the counters (topo_sim_run sets clean = false), and
	 * only on its flows' links, which s->links still lists (graph link ids
	 * after expand()): zero those, not every link of the graph. */
	if (!s->clean)
		for (int i = 0; i < s->nl; i++) {
			s->link_bytes[s->links[i]] = 0;
			s->link_sat_s[s->links[i]] = 0;
		}
	s->nf = 0;
	s->nl = 0;
	s->clean = true;
}

/* Only the flows' links can carry anything; each is added once (its
 * counters are zeroed as it is), which adds to total[l] and sat[l] what a
 * pass over every link would (the others add repeat x 0). With acc, into
 * its arrays, each link listed. */
static void harvest(topo_sim *s, double repeat, double *total, double *sat, topo_acc *acc)
{
	for (int i = 0; i < s->nl; i++) {
		int l = s->links[i];
		if (acc)
			topo_acc_touch(acc, l);
		total[l] += repeat * s->link_bytes[l];
		sat[l] += repeat * s->link_sat_s[l];
		s->link_bytes[l] = 0;
		s->link_sat_s[l] = 0;
	}
	s->nf = 0;
	s->nl = 0;
	s->clean = true;
}

void topo_sim_harvest(topo_sim *s, double repeat, double *total, double *sat)
{
	harvest(s, repeat, total, sat, NULL);
}

void topo_sim_harvest_acc(topo_sim *s, double repeat, topo_acc *acc)
{
	harvest(s, repeat, acc->bytes, acc->sat, acc);
}

void topo_sim_derate(topo_sim *s, const uint8_t *cls, const double div[NET_LINK_KIND_COUNT])
{
	s->cls = cls;
	for (int c = 0; c < NET_LINK_KIND_COUNT && cls; c++)
		s->div[c] = div[c];
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
	s->f[s->nf] = (sflow){.off = s->nl, .n = n, .left = bytes, .start = start};
	s->nl += n;
	return s->nf++;
}

/* The state of one topo_sim_run. Flows are added in order, so their paths
 * lie end to end in s->links and off[i] = f[i].off is a CSR index over them,
 * which is what topo_mm_solve reads. */
typedef struct fin_entry {
	sim_time fin;
	int flow;
	unsigned ver;
} fin_entry;

typedef struct run {
	int *off;            /* nf + 1 */
	double *rate;        /* nf: topo_mm_solve's output, copied into the flows */
	int *lfirst, *lend;  /* per link: its flows in lflow[lfirst[l] .. lend[l]) */
	int *lflow;          /* s->nl entries */
	double *load;        /* per link: the rate sum of its active flows */
	sim_time *sat_since; /* per link: start of its current >= 95 % spell, or -1 */
	unsigned *lmark, *fmark, stamp;
	int *order, nstart, next_start; /* flows by start time */
	struct start_key *starts;       /* scratch for sorting them */
	int *chg, nchg;                 /* flows started or ended at this event */
	int *comp;                      /* the component being re-solved: flows, links */
	double cut;                     /* flows slower than this keep their rates */
	double *low, *rcap;             /* per link: those flows' rates; capacity left */
	fin_entry *heap;
	int nheap, cap_heap;
	topo_mm_work w;
} run;

static bool earlier(const fin_entry *a, const fin_entry *b)
{
	return a->fin < b->fin || (a->fin == b->fin && a->flow < b->flow);
}

/* Put e at slot i or below it (sift down over the heap's nheap entries). */
static void heap_down(run *r, int i, fin_entry e)
{
	for (;;) {
		int c = 2 * i + 1;
		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && earlier(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!earlier(&r->heap[c], &e))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = e;
}

/* Every re-solve pushes a new finish for each flow of its component and
 * leaves the old one stale. Where the heap is full, the stale entries are
 * dropped and the rest heapified (O(n)) before it grows: a heap of the
 * current finishes, not of every re-solve's (a ring of 8,160 flows re-solved
 * 682 times left 5.5 M entries). */
static void heap_compact(const topo_sim *s, run *r)
{
	int n = 0;
	for (int i = 0; i < r->nheap; i++) {
		const fin_entry *e = &r->heap[i];
		if (s->f[e->flow].active && s->f[e->flow].ver == e->ver)
			r->heap[n++] = *e;
	}
	r->nheap = n;
	for (int i = n / 2 - 1; i >= 0; i--)
		heap_down(r, i, r->heap[i]);
}

static int heap_push(const topo_sim *s, run *r, fin_entry e)
{
	/* Full: compacted, and grown where over half its entries are current,
	 * so the next compaction is at least cap / 2 pushes away (O(1) a push,
	 * amortized). */
	if (r->nheap == r->cap_heap) {
		heap_compact(s, r);
		if (2 * r->nheap >= r->cap_heap) {
			int cap = r->cap_heap ? 2 * r->cap_heap : 256;
			fin_entry *p = realloc(r->heap, (size_t)cap * sizeof *p);
			if (!p)
				return SIM_ENOMEM;
			r->heap = p;
			r->cap_heap = cap;
		}
	}
	int i = r->nheap++;
	for (; i > 0 && earlier(&e, &r->heap[(i - 1) / 2]); i = (i - 1) / 2)
		r->heap[i] = r->heap[(i - 1) / 2];
	r->heap[i] = e;
	return SIM_OK;
}

static void heap_pop(run *r)
{
	fin_entry last = r->heap[--r->nheap];
	if (r->nheap > 0)
		heap_down(r, 0, last);
}

/* The earliest finish still current, or NULL; drops stale entries. */
static const fin_entry *heap_top(const topo_sim *s, run *r)
{
	while (r->nheap > 0) {
		const fin_entry *e = &r->heap[0];
		const sflow *f = &s->f[e->flow];
		if (f->active && f->ver == e->ver)
			return e;
		heap_pop(r);
	}
	return NULL;
}

static void run_free(run *r)
{
	free(r->off);
	free(r->rate);
	free(r->lfirst);
	free(r->lend);
	free(r->lflow);
	free(r->load);
	free(r->sat_since);
	free(r->lmark);
	free(r->fmark);
	free(r->order);
	free(r->starts);
	free(r->chg);
	free(r->comp);
	free(r->low);
	free(r->rcap);
	free(r->heap);
	topo_mm_free(&r->w);
}

typedef struct start_key {
	sim_time start;
	int flow;
} start_key;

static int by_start(const void *a, const void *b)
{
	const start_key *x = a, *y = b;
	return x->start < y->start   ? -1
	       : x->start > y->start ? 1
	                             : (x->flow > y->flow) - (x->flow < y->flow);
}

static int run_init(topo_sim *s, run *r)
{
	int L = s->nlinks, F = s->nf;
	*r = (run){0};
	r->off = malloc(((size_t)F + 1) * sizeof *r->off);
	r->rate = malloc((size_t)F * sizeof *r->rate);
	r->lfirst = calloc((size_t)L + 1, sizeof *r->lfirst);
	r->lend = calloc((size_t)L + 1, sizeof *r->lend);
	r->lflow = malloc(((size_t)s->nl + 1) * sizeof *r->lflow);
	r->load = calloc((size_t)L + 1, sizeof *r->load);
	r->sat_since = malloc(((size_t)L + 1) * sizeof *r->sat_since);
	r->lmark = calloc((size_t)L + 1, sizeof *r->lmark);
	r->fmark = calloc((size_t)F, sizeof *r->fmark);
	r->order = malloc((size_t)F * sizeof *r->order);
	r->chg = malloc((size_t)F * sizeof *r->chg);
	r->comp = malloc(((size_t)F + (size_t)L + 1) * sizeof *r->comp);
	r->starts = malloc((size_t)F * sizeof *r->starts);
	r->low = malloc(((size_t)L + 1) * sizeof *r->low);
	r->rcap = malloc(((size_t)L + 1) * sizeof *r->rcap);
	r->cut = -INFINITY;
	int rc = topo_mm_alloc(&r->w, L, F);
	if (rc != SIM_OK || !r->off || !r->rate || !r->lfirst || !r->lend || !r->lflow ||
	    !r->load || !r->sat_since || !r->lmark || !r->fmark || !r->order || !r->chg ||
	    !r->comp || !r->starts || !r->low || !r->rcap)
		return SIM_ENOMEM;
	/* Per-link flow lists (counting sort of the path entries by link). */
	for (int i = 0; i < s->nl; i++)
		r->lend[s->links[i]]++;
	for (int l = 0, at = 0; l < L; l++) {
		r->lfirst[l] = at;
		at += r->lend[l];
		r->lend[l] = r->lfirst[l];
		r->sat_since[l] = -1;
	}
	for (int i = 0; i < F; i++) {
		sflow *f = &s->f[i];
		r->off[i] = f->off;
		for (int k = 0; k < f->n; k++)
			r->lflow[r->lend[s->links[f->off + k]]++] = i;
		f->active = false;
		f->done = f->left <= 0; /* nothing to send: done at its start */
		f->finish = f->done ? f->start : 0;
		if (!f->done)
			r->starts[r->nstart++] = (start_key){f->start, i};
	}
	r->off[F] = s->nl;
	qsort(r->starts, (size_t)r->nstart, sizeof *r->starts, by_start);
	for (int j = 0; j < r->nstart; j++)
		r->order[j] = r->starts[j].flow;
	return SIM_OK;
}

/* Bytes moved by flow f from its last update to now, on each of its links. */
static void settle(topo_sim *s, sflow *f, sim_time now, bool all)
{
	double moved = all || !isfinite(f->rate)
	                       ? f->left
	                       : fmin(f->left, f->rate * sim_time_to_s(now - f->t_upd));
	for (int k = 0; k < f->n; k++)
		s->link_bytes[s->links[f->off + k]] += moved;
	f->left -= moved;
	f->t_upd = now;
}

static void mark_flow(topo_sim *s, run *r, int i)
{
	r->fmark[i] = r->stamp;
	r->w.flows[r->w.nf++] = i;
	const sflow *f = &s->f[i];
	for (int k = 0; k < f->n; k++) {
		int l = s->links[f->off + k];
		if (r->lmark[l] != r->stamp) {
			r->lmark[l] = r->stamp;
			r->w.links[r->w.nl++] = l;
		}
	}
}

/* The component of the changed flows: their links, the active flows on
 * those links at r->cut or faster, their links, and so on (w.flows,
 * w.links); per link, the rates of its slower flows (r->low), which keep
 * their rates (header comment). Ended flows are dropped from the link lists
 * on the way. */
static void component(topo_sim *s, run *r)
{
	r->stamp++;
	r->w.nf = r->w.nl = 0;
	for (int j = 0; j < r->nchg; j++) {
		int i = r->chg[j];
		const sflow *f = &s->f[i];
		if (f->active && r->fmark[i] != r->stamp)
			mark_flow(s, r, i);
		for (int k = 0; k < f->n; k++) {
			int l = s->links[f->off + k];
			if (r->lmark[l] != r->stamp) {
				r->lmark[l] = r->stamp;
				r->w.links[r->w.nl++] = l;
			}
		}
	}
	for (int q = 0; q < r->w.nl; q++) {
		int l = r->w.links[q];
		r->low[l] = 0;
		for (int k = r->lfirst[l]; k < r->lend[l];) {
			int i = r->lflow[k];
			const sflow *f = &s->f[i];
			if (f->done) {
				r->lflow[k] = r->lflow[--r->lend[l]];
				continue;
			}
			if (f->active && f->rate < r->cut)
				r->low[l] += f->rate;
			else if (f->active && r->fmark[i] != r->stamp)
				mark_flow(s, r, i);
			k++;
		}
	}
}

/* Loads of the component's links from their flows' new rates; a link's
 * saturated spell closes or opens at now. */
static void update_loads(topo_sim *s, run *r, const int *links, int nl, sim_time now)
{
	for (int q = 0; q < nl; q++) {
		int l = links[q];
		double load = 0;
		for (int k = r->lfirst[l]; k < r->lend[l]; k++) {
			const sflow *f = &s->f[r->lflow[k]];
			if (f->active && isfinite(f->rate))
				load += f->rate;
		}
		r->load[l] = load;
		if (r->sat_since[l] >= 0)
			s->link_sat_s[l] += sim_time_to_s(now - r->sat_since[l]);
		r->sat_since[l] = load >= TOPO_SAT_LOAD * s->cap[l] ? now : -1;
	}
}

/* Re-solve the component of the changed flows at now. */
static int resolve(topo_sim *s, run *r, sim_time now)
{
	component(s, r);
	int nf = r->w.nf, nl = r->w.nl;
	/* topo_mm_solve consumes w's lists: keep the component in comp. */
	int *comp = r->comp;
	memcpy(comp, r->w.flows, (size_t)nf * sizeof *comp);
	memcpy(comp + nf, r->w.links, (size_t)nl * sizeof *comp);
	for (int j = 0; j < nf; j++)
		settle(s, &s->f[comp[j]], now, false);
	s->resolved += nf;
	for (int q = 0; q < nl; q++) {
		int l = comp[nf + q];
		r->rcap[l] = fmax(s->cap[l] - r->low[l], 0);
	}
	int rc = topo_mm_solve(r->rcap, r->off, s->links, r->rate, &r->w);
	for (int j = 0; j < nf && rc == SIM_OK; j++) {
		sflow *f = &s->f[comp[j]];
		f->rate = r->rate[comp[j]];
		f->ver++;
		double ps = isfinite(f->rate) && f->left > 0
		                    ? ceil(f->left / f->rate * SIM_PS_PER_S)
		                    : 0;
		if (!(f->rate > 0))
			rc = SIM_EINVAL;
		else if (ps >= (double)(SIM_TIME_MAX - now))
			rc = SIM_ERANGE;
		else
			rc = heap_push(s, r, (fin_entry){now + (sim_time)ps, comp[j], f->ver});
	}
	if (rc == SIM_OK)
		update_loads(s, r, comp + nf, nl, now);
	return rc;
}

/* The graph-wide view of a sim, kept while a run works on its compact one. */
typedef struct wide {
	int nlinks;
	double *cap, *link_bytes, *link_sat_s;
	int *gl;     /* per compact link: its graph link */
	int n;       /* compact links numbered in map and gl */
	bool filled; /* the compact arrays hold the counters */
} wide;

/* Renumber the links the flows cross 0 .. Lc - 1 in order of first use and
 * swap in their capacities and counters (header comment). On SIM_ENOMEM
 * expand() still puts everything back. */
static int compact(topo_sim *s, wide *w)
{
	*w = (wide){s->nlinks, s->cap, s->link_bytes, s->link_sat_s, NULL, 0, false};
	if (!s->map) {
		s->map = malloc(((size_t)s->nlinks + 1) * sizeof *s->map);
		if (!s->map)
			return SIM_ENOMEM;
		for (int l = 0; l < s->nlinks; l++)
			s->map[l] = -1;
	}
	w->gl = malloc(((size_t)s->nl + 1) * sizeof *w->gl);
	if (!w->gl)
		return SIM_ENOMEM;
	for (int i = 0; i < s->nl; i++) {
		int l = s->links[i];
		if (s->map[l] < 0) {
			s->map[l] = w->n;
			w->gl[w->n++] = l;
		}
		s->links[i] = s->map[l];
	}
	double *cap = malloc(((size_t)w->n + 1) * sizeof *cap);
	double *bytes = malloc(((size_t)w->n + 1) * sizeof *bytes);
	double *sat = malloc(((size_t)w->n + 1) * sizeof *sat);
	if (!cap || !bytes || !sat) {
		free(cap), free(bytes), free(sat);
		return SIM_ENOMEM;
	}
	for (int c = 0; c < w->n; c++) {
		/* derated: cap / 1 is cap exactly where a class keeps its own */
		cap[c] = s->cls ? w->cap[w->gl[c]] / s->div[s->cls[w->gl[c]]] : w->cap[w->gl[c]];
		bytes[c] = w->link_bytes[w->gl[c]];
		sat[c] = w->link_sat_s[w->gl[c]];
	}
	s->nlinks = w->n, s->cap = cap, s->link_bytes = bytes, s->link_sat_s = sat;
	w->filled = true;
	return SIM_OK;
}

/* Put the graph-wide view back, with the run's counters. */
static void expand(topo_sim *s, wide *w)
{
	if (w->filled) {
		for (int c = 0; c < w->n; c++) {
			w->link_bytes[w->gl[c]] = s->link_bytes[c];
			w->link_sat_s[w->gl[c]] = s->link_sat_s[c];
		}
		free(s->cap), free(s->link_bytes), free(s->link_sat_s);
	}
	if (w->gl) {
		for (int i = 0; i < s->nl; i++)
			s->links[i] = w->gl[s->links[i]];
		for (int c = 0; c < w->n; c++)
			s->map[w->gl[c]] = -1;
	}
	free(w->gl);
	s->nlinks = w->nlinks, s->cap = w->cap, s->link_bytes = w->link_bytes,
	s->link_sat_s = w->link_sat_s;
}

static int run_compact(topo_sim *s);

int topo_sim_run(topo_sim *s)
{
	if (s->nf == 0)
		return SIM_OK;
	wide wv;
	s->clean = false;
	int rc = compact(s, &wv);
	if (rc == SIM_OK)
		rc = run_compact(s);
	expand(s, &wv);
	return rc;
}

/* topo_sim_run on the compact view. */
static int run_compact(topo_sim *s)
{
	run r;
	int rc = run_init(s, &r);
	sim_time now = r.nstart > 0 ? s->f[r.order[0]].start : SIM_TIME_MAX;
	while (rc == SIM_OK && now != SIM_TIME_MAX) {
		/* Admit the flows that start now; r.chg already holds those that
		 * ended now. */
		while (r.next_start < r.nstart && s->f[r.order[r.next_start]].start <= now) {
			int i = r.order[r.next_start++];
			s->f[i].active = true;
			s->f[i].t_upd = now;
			s->f[i].rate = 0;
			r.chg[r.nchg++] = i;
			r.cut = -INFINITY; /* an arrival: every rate may change */
		}
		rc = resolve(s, &r, now);
		r.nchg = 0;
		r.cut = INFINITY;
		if (rc != SIM_OK)
			break;
		sim_time next =
		        r.next_start < r.nstart ? s->f[r.order[r.next_start]].start : SIM_TIME_MAX;
		const fin_entry *top = heap_top(s, &r);
		if (top && top->fin < next)
			next = top->fin;
		if (next == SIM_TIME_MAX)
			break;
		/* Flows due within a relative 1e-9 of next (equal rates that
		 * differ in the last bits) finish together: one event, not one
		 * each. */
		sim_time tol = 1 + next / 1000000000;
		while ((top = heap_top(s, &r)) && top->fin <= next + tol) {
			sflow *f = &s->f[top->flow];
			/* within 1e-9 of the slowest ended rate counts as equal to it */
			r.cut = fmin(r.cut, f->rate * (1 - 1e-9));
			settle(s, f, next, true);
			f->left = 0;
			f->active = false;
			f->done = true;
			f->finish = next;
			r.chg[r.nchg++] = top->flow;
			heap_pop(&r);
		}
		now = next;
	}
	run_free(&r);
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

long long topo_sim_resolved(const topo_sim *s)
{
	return s->resolved;
}

double topo_sim_link_bytes(const topo_sim *s, int link)
{
	return link >= 0 && link < s->nlinks ? s->link_bytes[link] : 0;
}

double topo_sim_link_sat_s(const topo_sim *s, int link)
{
	return link >= 0 && link < s->nlinks ? s->link_sat_s[link] : 0;
}
