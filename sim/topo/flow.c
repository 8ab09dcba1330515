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
 * So every flow of rate below x_g keeps it (below the slowest of the flows
 * that end at an event, less 1e-9 of it for rates equal but for rounding).
 *
 * And of the faster ones, only those whose rates change need solving. A set
 * A of flows is solved on the residual network (each link's capacity less
 * the rates of its flows outside A, which stay fixed). The result is the
 * max-min allocation if every flow is bottlenecked: crosses a saturated
 * link on which no flow is faster (Bertsekas & Gallager's characterisation,
 * which also makes it unique). A flow of A is bottlenecked among A's flows
 * by the solve, a flow off A's links keeps its links' flows and rates; so
 * only the flows outside A on A's links need checking: each keeps the link
 * it froze on when last solved (still saturated, none faster?), and none
 * may be faster than a flow of A bottlenecked on a link they share. Those
 * that fail join A, which is solved again (verify(), resolve()). A starts
 * as the faster flows on the ended flows' links; after 32 rounds, as the
 * whole component of the faster flows. An event with a start solves the
 * component of the changed flows at once.
 *
 * What a round reads. Solving A needs each of its links' capacity left by
 * the flows outside A, and verifying it each link's load as solved: both
 * are the link's load less or plus A's changes, read from A's paths. So
 * every link keeps its load (the rate sum of its active flows), changed by
 * each new rate and each end along the flow's path; the increments' rounding
 * is bounded by summing a link afresh once it took more increments than it
 * has flows (O(1) a change, amortised). The flows bottlenecked on a link are
 * listed (a doubly linked list per link), and each link keeps a bound on its
 * flows' rates, so verify() reads a link's whole flow list only where a
 * flow outside A may be faster than one of A bottlenecked there. Before,
 * every round read every flow of every link of A (a PAT phase on 1,024
 * nodes of a RoCE fat tree: about 120 flows re-solved over 500 links, each
 * leaf uplink listing hundreds of flows, three rounds an event, 27,000
 * events); the rounds are the same, and every shipped scenario's and case
 * file's output was byte for byte (a5ef0d3).
 *
 * Flows of equal bytes end fastest first, so most finishes change few
 * rates: a data-parallel ring of 8,160 flows on a RoCE fat tree re-solved
 * 5.5 M flows over its 682 events before, and only its 8,160 at the start
 * now; the PAT gathers of a Mixtral plan on 4,096 GPUs (7,168 flows of 7
 * sizes, 4,000 finishes) changed 2 % of the rates they re-solved.
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

/* Rates within this fraction of each other are equal but for rounding (the
 * slower-flow rule's cut, verify()'s checks). */
#define RATE_TOL 1e-9

/* ------------------------------------------------------------- the loop -- */

typedef struct sflow {
	int off, n;  /* links in s->links[off .. off + n) */
	double left; /* bytes still to send at t_upd */
	double rate; /* since t_upd */
	sim_time start, finish, t_upd, fin;
	unsigned ver; /* finish-heap entries with another version are stale */
	int bott;     /* the link it froze on when last solved (its bottleneck) */
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

int topo_sim_take(topo_sim *s, int *l, double *bytes, double *sat)
{
	int n = 0;
	if (!s->map) { /* marks the links taken; -1 elsewhere, as compact() keeps it */
		s->map = malloc(((size_t)s->nlinks + 1) * sizeof *s->map);
		if (!s->map) {
			topo_sim_clear(s);
			return -1;
		}
		for (int i = 0; i < s->nlinks; i++)
			s->map[i] = -1;
	}
	for (int i = 0; i < s->nl; i++) {
		int k = s->links[i];
		if (s->map[k] >= 0)
			continue;
		s->map[k] = n;
		l[n] = k;
		bytes[n] = s->link_bytes[k];
		sat[n++] = s->link_sat_s[k];
	}
	for (int i = 0; i < n; i++)
		s->map[l[i]] = -1;
	topo_sim_clear(s);
	return n;
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
	double *load;        /* per link: the rate sum of its active flows, kept by
	                      * increments (load_add) */
	int *lupd;           /* per link: increments since load was last summed */
	double *ub;          /* per link: at least the fastest active flow's rate */
	int *bhead;          /* per link: first active flow bottlenecked there, or -1 */
	int *bnext, *bprev;  /* per flow: the next, previous in its bottleneck's list */
	sim_time *sat_since; /* per link: start of its current >= 95 % spell, or -1 */
	unsigned *lmark, *fmark, stamp;
	int *order, nstart, next_start; /* flows by start time */
	struct start_key *starts;       /* scratch for sorting them */
	int *chg, nchg;                 /* flows started or ended at this event */
	int *af, naf;                   /* the flows being re-solved (the set A) */
	int *al, nal;                   /* their links and the changed flows' */
	double cut;                     /* flows slower than this keep their rates */
	sim_time now;                   /* of the event being resolved */
	double *rcap;                   /* per link: capacity the flows outside A leave */
	double *vload, *vmax, *vmin;    /* per link of A, as solved: load, fastest rate of
	                                 * A's flows, slowest of A's flows bottlenecked there */
	int *add;                       /* verify(): the flows that join A */
	char *joined;                   /* per flow: listed in add */
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
	free(r->lupd);
	free(r->ub);
	free(r->bhead);
	free(r->bnext);
	free(r->bprev);
	free(r->sat_since);
	free(r->lmark);
	free(r->fmark);
	free(r->order);
	free(r->starts);
	free(r->chg);
	free(r->af);
	free(r->al);
	free(r->rcap);
	free(r->vload);
	free(r->vmax);
	free(r->vmin);
	free(r->add);
	free(r->joined);
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
	r->lupd = calloc((size_t)L + 1, sizeof *r->lupd);
	r->ub = calloc((size_t)L + 1, sizeof *r->ub);
	r->bhead = malloc(((size_t)L + 1) * sizeof *r->bhead);
	r->bnext = malloc(((size_t)F + 1) * sizeof *r->bnext);
	r->bprev = malloc(((size_t)F + 1) * sizeof *r->bprev);
	r->sat_since = malloc(((size_t)L + 1) * sizeof *r->sat_since);
	r->lmark = calloc((size_t)L + 1, sizeof *r->lmark);
	r->fmark = calloc((size_t)F, sizeof *r->fmark);
	r->order = malloc((size_t)F * sizeof *r->order);
	r->chg = malloc((size_t)F * sizeof *r->chg);
	r->af = malloc(((size_t)F + 1) * sizeof *r->af);
	r->al = malloc(((size_t)L + 1) * sizeof *r->al);
	r->starts = malloc((size_t)F * sizeof *r->starts);
	r->rcap = malloc(((size_t)L + 1) * sizeof *r->rcap);
	r->vload = malloc(((size_t)L + 1) * sizeof *r->vload);
	r->vmax = malloc(((size_t)L + 1) * sizeof *r->vmax);
	r->vmin = malloc(((size_t)L + 1) * sizeof *r->vmin);
	r->add = malloc(((size_t)F + 1) * sizeof *r->add);
	r->joined = calloc((size_t)F + 1, 1);
	r->cut = -INFINITY;
	int rc = topo_mm_alloc(&r->w, L, F);
	if (rc != SIM_OK || !r->off || !r->rate || !r->lfirst || !r->lend || !r->lflow ||
	    !r->load || !r->sat_since || !r->lmark || !r->fmark || !r->order || !r->chg || !r->af ||
	    !r->al || !r->starts || !r->rcap || !r->vload || !r->vmax || !r->vmin || !r->add ||
	    !r->joined || !r->lupd || !r->ub || !r->bhead || !r->bnext || !r->bprev)
		return SIM_ENOMEM;
	/* Per-link flow lists (counting sort of the path entries by link). */
	for (int i = 0; i < s->nl; i++)
		r->lend[s->links[i]]++;
	for (int l = 0, at = 0; l < L; l++) {
		r->lfirst[l] = at;
		at += r->lend[l];
		r->lend[l] = r->lfirst[l];
		r->sat_since[l] = -1;
		r->bhead[l] = -1;
	}
	for (int i = 0; i < F; i++) {
		sflow *f = &s->f[i];
		r->off[i] = f->off;
		for (int k = 0; k < f->n; k++)
			r->lflow[r->lend[s->links[f->off + k]]++] = i;
		f->active = false;
		f->done = f->left <= 0; /* nothing to send: done at its start */
		f->finish = f->done ? f->start : 0;
		f->bott = -1;
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

/* Link l's load summed afresh from its active flows; its list drops its
 * ended flows on the way. */
static void load_sum(const topo_sim *s, run *r, int l)
{
	double load = 0;
	for (int k = r->lfirst[l]; k < r->lend[l];) {
		const sflow *f = &s->f[r->lflow[k]];
		if (f->done) {
			r->lflow[k] = r->lflow[--r->lend[l]];
			continue;
		}
		if (f->active && isfinite(f->rate))
			load += f->rate;
		k++;
	}
	r->load[l] = load;
	r->lupd[l] = 0;
}

/* Link l's load changed by dx (a flow's new rate, a flow's end); summed
 * afresh once it took more increments than the link has flows (plus a few,
 * so that a link of one or two flows is not summed at every change), so the
 * rounding of the increments stays bounded, at O(1) a change amortised. */
static void load_add(const topo_sim *s, run *r, int l, double dx)
{
	r->load[l] += dx;
	if (++r->lupd[l] > r->lend[l] - r->lfirst[l] + 8)
		load_sum(s, r, l);
}

/* Flow i out of / into the list of the flows bottlenecked on link b. */
static void bott_unlink(run *r, int i, int b)
{
	if (b < 0)
		return;
	if (r->bprev[i] >= 0)
		r->bnext[r->bprev[i]] = r->bnext[i];
	else
		r->bhead[b] = r->bnext[i];
	if (r->bnext[i] >= 0)
		r->bprev[r->bnext[i]] = r->bprev[i];
}

static void bott_link(run *r, int i, int b)
{
	if (b < 0)
		return;
	r->bprev[i] = -1;
	r->bnext[i] = r->bhead[b];
	if (r->bhead[b] >= 0)
		r->bprev[r->bhead[b]] = i;
	r->bhead[b] = i;
}

/* Link l into A's links (once per stamp). */
static void mark_link(run *r, int l)
{
	if (r->lmark[l] != r->stamp) {
		r->lmark[l] = r->stamp;
		r->al[r->nal++] = l;
	}
}

/* Flow i into A: settled at the old rate (its rate changes at now), its
 * links listed. */
static void mark_flow(topo_sim *s, run *r, int i)
{
	sflow *f = &s->f[i];
	r->fmark[i] = r->stamp;
	r->af[r->naf++] = i;
	settle(s, f, r->now, false);
	for (int k = 0; k < f->n; k++)
		mark_link(r, s->links[f->off + k]);
}

/* A fresh set: the changed flows' links, and those of them still active. */
static void seed(topo_sim *s, run *r)
{
	r->stamp++;
	r->naf = r->nal = 0;
	for (int j = 0; j < r->nchg; j++) {
		int i = r->chg[j];
		const sflow *f = &s->f[i];
		if (f->active && r->fmark[i] != r->stamp)
			mark_flow(s, r, i); /* lists its links */
		else
			for (int k = 0; k < f->n; k++)
				mark_link(r, s->links[f->off + k]);
	}
}

/* The flows of link l at r->cut or faster not yet in A, into A; ended
 * flows are dropped from the link's list on the way. */
static void take_link(topo_sim *s, run *r, int l)
{
	for (int k = r->lfirst[l]; k < r->lend[l];) {
		int i = r->lflow[k];
		const sflow *f = &s->f[i];
		if (f->done) {
			r->lflow[k] = r->lflow[--r->lend[l]];
			continue;
		}
		if (f->active && f->rate >= r->cut && r->fmark[i] != r->stamp)
			mark_flow(s, r, i);
		k++;
	}
}

/* A = the changed flows' neighbours at r->cut or faster, those sharing one
 * of their links; whole: and the faster flows on those flows' links, and so
 * on (their component). */
static void collect(topo_sim *s, run *r, bool whole)
{
	seed(s, r);
	for (int q = 0, n = r->nal; q < (whole ? r->nal : n); q++)
		take_link(s, r, r->al[q]);
}

/* Max-min rates of A on the capacity the flows outside it leave (their
 * rates fixed): into r->rate, bottlenecks into r->w.bott. */
static int solve_set(topo_sim *s, run *r)
{
	/* the rates outside A: each link's load less its flows of A */
	for (int q = 0; q < r->nal; q++)
		r->rcap[r->al[q]] = r->load[r->al[q]];
	for (int j = 0; j < r->naf; j++) {
		const sflow *f = &s->f[r->af[j]];
		if (isfinite(f->rate))
			for (int k = 0; k < f->n; k++)
				r->rcap[s->links[f->off + k]] -= f->rate;
	}
	for (int q = 0; q < r->nal; q++) {
		int l = r->al[q];
		r->rcap[l] = fmax(s->cap[l] - r->rcap[l], 0);
	}
	memcpy(r->w.flows, r->af, (size_t)r->naf * sizeof *r->af);
	memcpy(r->w.links, r->al, (size_t)r->nal * sizeof *r->al);
	r->w.nf = r->naf;
	r->w.nl = r->nal;
	s->resolved += r->naf;
	return topo_mm_solve(r->rcap, r->off, s->links, r->rate, &r->w);
}

/* A flow's rate as solved: new in A, else as it was. */
static double rate_now(const topo_sim *s, const run *r, int i)
{
	return r->fmark[i] == r->stamp ? r->rate[i] : s->f[i].rate;
}

/* Flow i, outside A, joins it (once per round). */
static void join(run *r, int i, int *nadd)
{
	if (!r->joined[i]) {
		r->joined[i] = 1;
		r->add[(*nadd)++] = i;
	}
}

/* Whether the solved rates are max-min fair: every flow is bottlenecked, on
 * a saturated link where none is faster (the characterisation of max-min
 * fairness). A flow off A's links keeps its links' flows and rates, so its
 * bottleneck holds; a flow of A is bottlenecked in the residual network,
 * so on its link b only the flows outside A can be faster. On A's links,
 * then, a flow outside A joins A where its bottleneck (when one of A's
 * links) lost its saturation or gained a faster flow, or where it is
 * faster than a flow of A bottlenecked on the link (within RATE_TOL, for
 * rates equal but for rounding). The number that joined.
 *
 * Done from A's paths and two per-link structures, not by reading every
 * flow of A's links (hundreds on a leaf's uplink, at every round of every
 * event):
 *  - a link's load as solved is its kept load (r->load) plus A's changes;
 *  - the flows bottlenecked on a link are listed (bhead, bnext), so the
 *    first test reads only the flows whose bottleneck is one of A's links.
 *    It compares a flow with A's fastest there: the flows outside A on
 *    its bottleneck are no faster than it (within RATE_TOL), as they were
 *    when it was last solved or verified, and they have not changed since;
 *  - the second test reads a link's flows only where A has a flow
 *    bottlenecked there and the link's bound on its flows' rates (r->ub,
 *    raised by every new rate, made exact by this read) is above it. */
static int verify(topo_sim *s, run *r)
{
	int nal = r->nal, nadd = 0;
	for (int q = 0; q < nal; q++) {
		int l = r->al[q];
		r->vload[l] = r->load[l];
		r->vmax[l] = 0;
		r->vmin[l] = INFINITY;
	}
	for (int j = 0; j < r->naf; j++) {
		int i = r->af[j];
		const sflow *f = &s->f[i];
		double x = r->rate[i], old = isfinite(f->rate) ? f->rate : 0;
		if (!isfinite(x))
			continue; /* no links */
		for (int k = 0; k < f->n; k++) {
			int l = s->links[f->off + k];
			r->vload[l] += x - old;
			r->vmax[l] = fmax(r->vmax[l], x);
		}
		if (r->w.bott[i] >= 0)
			r->vmin[r->w.bott[i]] = fmin(r->vmin[r->w.bott[i]], x);
	}
	for (int q = 0; q < nal; q++) { /* bottlenecks that no longer hold */
		int l = r->al[q];
		bool sat = r->vload[l] >= (1 - RATE_TOL) * s->cap[l];
		for (int i = r->bhead[l]; i >= 0; i = r->bnext[i])
			if (r->fmark[i] != r->stamp &&
			    !(sat && s->f[i].rate >= (1 - RATE_TOL) * r->vmax[l]))
				join(r, i, &nadd);
	}
	for (int q = 0; q < nal; q++) { /* flows faster than A's bottlenecked ones */
		int l = r->al[q];
		double lo = r->vmin[l], top = 0;
		if (!(lo < INFINITY) || lo >= (1 - RATE_TOL) * r->ub[l])
			continue;
		for (int k = r->lfirst[l]; k < r->lend[l];) {
			int i = r->lflow[k];
			const sflow *f = &s->f[i];
			if (f->done) {
				r->lflow[k] = r->lflow[--r->lend[l]];
				continue;
			}
			k++;
			double x = rate_now(s, r, i);
			if (!f->active || !isfinite(x))
				continue;
			top = fmax(top, x);
			if (r->fmark[i] != r->stamp && !(lo >= (1 - RATE_TOL) * x))
				join(r, i, &nadd);
		}
		r->ub[l] = top;
	}
	for (int j = 0; j < nadd; j++) {
		r->joined[r->add[j]] = 0;
		mark_flow(s, r, r->add[j]);
	}
	return nadd;
}

/* Give A its solved rates and new finishes, and A's links their loads; a
 * link's saturated spell closes or opens at now. */
static int apply(topo_sim *s, run *r, sim_time now)
{
	int rc = SIM_OK;
	for (int j = 0; j < r->naf && rc == SIM_OK; j++) {
		int i = r->af[j];
		sflow *f = &s->f[i];
		double old = isfinite(f->rate) ? f->rate : 0;
		f->rate = r->rate[i];
		double x = isfinite(f->rate) ? f->rate : 0;
		for (int k = 0; k < f->n && x != old; k++) {
			int l = s->links[f->off + k];
			load_add(s, r, l, x - old);
			r->ub[l] = fmax(r->ub[l], x);
		}
		int b = f->n > 0 ? r->w.bott[i] : -1;
		if (b != f->bott) {
			bott_unlink(r, i, f->bott);
			f->bott = b;
			bott_link(r, i, b);
		}
		f->ver++;
		double ps = isfinite(f->rate) && f->left > 0
		                    ? ceil(f->left / f->rate * SIM_PS_PER_S)
		                    : 0;
		if (!(f->rate > 0))
			rc = SIM_EINVAL;
		else if (ps >= (double)(SIM_TIME_MAX - now))
			rc = SIM_ERANGE;
		else
			rc = heap_push(s, r, (fin_entry){now + (sim_time)ps, i, f->ver});
	}
	for (int q = 0; q < r->nal && rc == SIM_OK; q++) {
		int l = r->al[q];
		double load = r->load[l];
		if (r->sat_since[l] >= 0)
			s->link_sat_s[l] += sim_time_to_s(now - r->sat_since[l]);
		r->sat_since[l] = load >= TOPO_SAT_LOAD * s->cap[l] ? now : -1;
	}
	return rc;
}

/* Re-solve at now (header comment): at a start, the component of the
 * changed flows; at a finish, the faster neighbours of the flows that
 * ended, grown until the rates verify, or (after a few rounds) the
 * component of the faster flows. */
static int resolve(topo_sim *s, run *r, sim_time now)
{
	enum { ROUNDS = 32 };
	r->now = now;
	collect(s, r, r->cut == -INFINITY);
	int rc = solve_set(s, r);
	for (int round = 0; rc == SIM_OK && r->cut > -INFINITY && verify(s, r) > 0; round++) {
		if (round == ROUNDS) {
			collect(s, r, true);
			rc = solve_set(s, r);
			break;
		}
		rc = solve_set(s, r);
	}
	return rc == SIM_OK ? apply(s, r, now) : rc;
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
			r.cut = fmin(r.cut, f->rate * (1 - RATE_TOL));
			settle(s, f, next, true);
			f->left = 0;
			f->active = false;
			f->done = true;
			f->finish = next;
			for (int k = 0; k < f->n && isfinite(f->rate); k++)
				load_add(s, &r, s->links[f->off + k], -f->rate);
			bott_unlink(&r, top->flow, f->bott);
			f->bott = -1;
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
