/* route.c - shortest-path routing with deterministic ECMP (topo.h).
 *
 * A breadth-first search from the destination over the in-links gives every
 * vertex its hop distance to dst; a vertex may only be passed through when it
 * forwards traffic (topo_transit: switches and the CPU root complex), so the
 * search expands a vertex's in-links only when it is dst or a transit vertex.
 * The route then walks from src: at vertex u with distance d, the candidate
 * next hops are the out-links to vertices at distance d - 1 that may be
 * entered (dst itself or a transit vertex); with c candidates, candidate
 * hash(src, dst, u) mod c is taken. The hash makes the choice deterministic
 * per flow and independent from switch to switch, like ECMP hashing on a
 * flow's header.
 *
 * Cost. The searches live in a routing context kept with the graph (struct
 * topo_router: up to ROUTE_SEARCHES resumable searches, the least recently
 * used replaced, each 12 bytes per vertex, allocated when first used):
 *  - a search labels vertices with its generation (a stamp), so starting
 *    one costs O(1) instead of resetting a distance per vertex;
 *  - it stops as soon as src is labelled, and every candidate next hop of
 *    the walk is labelled by then: a FIFO search labels src with distance D
 *    while expanding a vertex of level D - 1; it expands level D - 1 only
 *    after all of level D - 2, whose expansion labelled all of level D - 1,
 *    so levels 0 .. D - 1 are complete. The walk leaves src (level D) and
 *    then visits only vertices of levels < D; at one of level d it looks for
 *    neighbours of level d - 1 <= D - 1, all labelled; a vertex not labelled
 *    is farther than D - 1 and cannot be a candidate. A later route toward
 *    the same target resumes the search where it stopped;
 *  - by attachment: a destination t that does not forward (NIC, GPU), whose
 *    in-links in the mask all come from vertices that forward, W = {w1 ..
 *    wk} (a NIC: its PCIe switch and its leaf; a GPU over NVLink: its
 *    NVSwitch), is entered from one of them and no route passes through it,
 *    so for every v != t
 *        dist_t(v) = 1 + min_i dist_wi(v)   (dist_t(t) = 0),
 *    and the searches toward w1 .. wk serve every destination attached to
 *    them: a ring's consecutive flows into the NICs under one leaf share the
 *    leaf's search (the PCIe switch's search stays inside its node). They
 *    are advanced together level by level until one labels src at level L
 *    (it may stop there at once): each has levels 0 .. L - 1 complete, so
 *    the minimum is exact for every vertex within L hops of t, which holds
 *    every candidate the walk weighs (D = L + 1 and candidates are at most
 *    D - 1 hops from t).
 *    The candidates, their order and the choice among them (keyed on t
 *    itself) are those of one search from t, so the routes are the same
 *    (test_topo compares them with a plain BFS);
 *  - fabric tables: a search toward a fabric switch (leaf, spine, core,
 *    supercore) crosses the whole fabric before it labels a NIC on the far
 *    side, and
 *    the walks of a collective's flows target every leaf in turn, more than
 *    the searches kept, so each route restarted a search of the fabric
 *    (routing ~ nodes^2.6 past 512 nodes). Where the fabric is closed (every
 *    link into or out of a fabric switch joins another fabric switch or a
 *    vertex that does not forward: a NIC), a search from switch t labels
 *    exactly
 *        the fabric switches f, with their hop distance D_t(f) inside the
 *        fabric (a path leaving the fabric would pass through a NIC), and
 *        a vertex x that does not forward: 1 + min D_t(f) over its
 *        out-links x -> f into the fabric (x is labelled, never expanded),
 *    and nothing else. D_t is one byte per fabric switch, a breadth-first
 *    search over the fabric's links alone, computed once per class of
 *    targets with the same fabric neighbours (a pod's leaves:
 *    fabric_classes) and kept (up to ROUTE_TABLE_MEMORY, then all dropped
 *    and recomputed on demand); it is complete, so it stands for a search
 *    that has labelled every level: the rule above (levels 0 .. L - 1
 *    complete) holds for it at every L. Distances being the same, so are
 *    the candidates and the routes; a walk then costs its hops times the
 *    degrees on its way, and the fabric is searched once per pod instead
 *    of once per route.
 *
 * Between two GPUs of a node the route uses only scale-up links (NVLink,
 * NVSwitch) when they connect the pair, since NCCL uses NVLink P2P when it
 * can; on an NVLink mesh a pair without a direct link goes through the GPU
 * linked to both with the most bricks on its narrower side (NCCL's NVB path
 * through an intermediate GPU, enabled by default; NCCL_NVB_DISABLE in
 * NCCL's environment-variable documentation); otherwise (PCIe nodes) the
 * whole node. Without that rule GPUs that share a PCIe switch would find a
 * two-hop PCIe route as short as the NVSwitch one.
 *
 * Into a NIC of another PCIe switch: PXN. A GPU reaches a NIC on its own
 * PCIe switch directly (GPUDirect RDMA, NCCL's PATH_PIX); a NIC on another
 * switch is reached through the CPU root complex (PATH_PHB / PATH_SYS),
 * unless the node has NVLink: then NCCL sends through an intermediate GPU
 * (PXN = PCI x NVLink, PATH_PXN = 7, ranked below PATH_PHB = 8 so the ring
 * search takes it first; NVIDIA/nccl 5067397c src/include/graph.h:135-145).
 * src/graph/paths.cc:812-840 (ncclTopoComputePaths) gives GPU g the path
 * GPU g -> NVLink -> GPU p -> PCIe -> NIC n when p is the NIC's local GPU
 * (ncclTopoGetLocalGpu, topo.cc:2110: the first GPU closest to the NIC
 * whose own NIC it is), p reaches n within a PCIe switch (<= PATH_PXB) with
 * GPUDirect, p and g are NVLink peers (<= PATH_NVL: a direct NVLink or one
 * NVSwitch; NVB does not count) on one node, and g's own path to n crosses
 * the CPU (> PATH_PXN); only for sending (GPU -> NIC: "favor receiving
 * locally and sending remotely"). The proxy then posts the send from p
 * (ncclTopoGetIntermediateRank, paths.cc:633-663; search.cc:1400-1417 for a
 * ring's channel NICs). topo_route_gpus does the same on the graph: on an
 * NVSwitch or NVLink-mesh node, a GPU sending into a NIC that is not on its
 * PCIe switch goes over the scale-up links to the relay GPU and down that
 * GPU's PCIe link to the NIC, never through the CPU. The relay is the
 * caller's (a member of the communicator, as NCCL's topology holds only
 * those: the ring channel's entry rank, coll.c) when it sits on the NIC's
 * switch, else the first GPU of that switch whose own NIC it is
 * (topo_gpu_nic), else the switch's first GPU; without a direct NVLink to
 * it, as NCCL, no PXN. Receiving (NIC -> GPU) keeps the direct route. On a
 * DGX H100 with tp = 4 a data-parallel ring holds local GPUs 0 and 4 of
 * each node: entering at GPU 0 from NIC 0, it leaves from GPU 4, whose
 * send into NIC 0 (switch 0; GPU 4 hangs from switch 2) used to climb to
 * the CPU and back, twice the NIC's bytes on one switch's CPU link.
 *
 * Rail-only fabrics (fabric.c) have no switch between rails: a flow from GPU
 * a to GPU b of another node whose NIC is on another rail leaves a's node by
 * the NIC on b's rail, so the same PXN path applies: a -> NVLink -> the GPU
 * of that NIC -> PCIe -> NIC -> b's rail -> b. This is the route Wang et al.
 * 2023 (arXiv 2307.12169, section 4) give for rail-only's cross-rail traffic
 * and what NCCL's PXN does for all-to-all (NCCL 2.12: a node's GPUs gather
 * the data for one destination on the GPU of the destination's rail). A
 * sender whose PCIe switch already holds that NIC (two GPUs per switch)
 * reaches it directly, without NVLink, as GPUDirect RDMA does; a pair of
 * NVLink-mesh GPUs without a direct link (no PXN in NCCL) goes through the
 * CPU root complex.
 */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

/* Searches kept per graph: ROUTE_SEARCHES, fewer when they would take more
 * than ROUTE_MEMORY (12 bytes per vertex each: 16 x 12 x 48,384 vertices =
 * 9.3 MB for 16,384 DGX H100 GPUs), but at least one more than the
 * ROUTE_MAX_ATTACH searches a route pins at once (a destination with more
 * attachments gets a search of its own). */
#define ROUTE_SEARCHES   16
#define ROUTE_MEMORY     (64 << 20)
#define ROUTE_MAX_ATTACH 4
/* Fabric tables kept (one byte per fabric switch each): 64 MiB holds a
 * table toward every switch of a fabric of 8,192 switches. */
#define ROUTE_TABLE_MEMORY (64 << 20)
#define FAR                255 /* a fabric table's "not reachable" */

typedef struct mark {
	unsigned gen; /* the search's generation when labelled */
	int dist;     /* hops to the search's target */
} mark;

/* One breadth-first search toward `target` over the links in `mask`. */
typedef struct search {
	int target; /* -1: unused */
	unsigned mask, gen;
	long long used; /* route counter at the last use (LRU) */
	mark *mark;     /* per vertex */
	int *queue;     /* labelled vertices; [head, tail) not expanded yet */
	int head, tail;
} search;

/* An out-link as the walk weighs it: its id, far end, that end's fabric
 * index (-1: none or no tables) and its kind. */
typedef struct hop {
	int link, dst, fid;
	unsigned kind;
} hop;

/* The fabric switches' distance tables (header comment). */
typedef struct fabric {
	int nf;          /* fabric switches; 0: no tables (not closed, or none) */
	int *fid;        /* per vertex: its index among the fabric switches, or -1 */
	int *fv;         /* per fabric switch: its vertex */
	int *in_off, *in; /* fabric in-links as fabric indices (CSR) */
	int *cls;        /* per fabric switch: its class's first switch (below) */
	uint8_t **tab;   /* per class's first switch: its table, or NULL */
	int *queue;      /* BFS scratch, nf */
	size_t bytes;    /* tables held */
} fabric;

typedef struct topo_router {
	search s[ROUTE_SEARCHES];
	int n;         /* searches in use */
	long long now; /* routes so far */
	fabric f;
	/* per vertex, its out-links into vertices that forward (CSR, in
	 * out-link order): a walk's candidates short of the last hop, with
	 * what the walk reads of them kept together */
	int *fwd_off;
	struct hop *fwd;
} topo_router;

static bool is_fabric(topo_vkind k)
{
	return k == TOPO_V_LEAF || k == TOPO_V_SPINE || k == TOPO_V_CORE || k == TOPO_V_SUPER;
}

/* The distinct fabric neighbours of fabric switch k, sorted, into out
 * (room for its degree): in-neighbours (in) or out-neighbours. */
static int fabric_set(const topo_graph *g, const fabric *f, int k, bool in, int *out)
{
	int n = 0, v = f->fv[k];
	int lo = in ? g->in_off[v] : g->out_off[v], hi = in ? g->in_off[v + 1] : g->out_off[v + 1];
	for (int i = lo; i < hi; i++) {
		const topo_link *l = &g->l[in ? g->in[i] : g->out[i]];
		int x = f->fid[in ? l->src : l->dst], j = n;
		if (x < 0)
			continue;
		while (j > 0 && out[j - 1] > x) /* insertion sort, dropping repeats */
			j--;
		if (j > 0 && out[j - 1] == x)
			continue;
		memmove(out + j + 1, out + j, (size_t)(n - j) * sizeof *out);
		out[j] = x;
		n++;
	}
	return n;
}

/* Classes of fabric switches that share one table: switches t1, t2 with the
 * same non-empty set S of fabric neighbours, in-links and out-links alike
 * (the leaves of a pod with as many uplinks). For w != t, the last hop of a
 * shortest path from w to t comes from S and what precedes it is a shortest
 * path to that neighbour, so
 *     D_t(w) = 1 + min over s in S of D_s(w)     (w != t),
 * the same for t1 and t2 whenever w is neither; and D_t1(t2) = 2 (t2 links
 * to S, and t2 is not in S: it would then be its own neighbour). So the
 * table of the class's first switch r serves every member t, read as
 * 0 at t, 2 at r (when r != t) and D_r elsewhere (tval). A fat tree's
 * leaves then need one breadth-first search per pod, not one each. */
static int fabric_classes(const topo_graph *g, fabric *f)
{
	int nf = f->nf, maxdeg = 1;
	for (int v = 0; v < g->nv; v++) {
		int d = g->in_off[v + 1] - g->in_off[v], o = g->out_off[v + 1] - g->out_off[v];
		maxdeg = d > maxdeg ? d : maxdeg;
		maxdeg = o > maxdeg ? o : maxdeg;
	}
	size_t slots = 16;
	while (slots < 2 * (size_t)nf)
		slots *= 2;
	f->cls = malloc((size_t)nf * sizeof *f->cls);
	int *a = malloc((size_t)maxdeg * sizeof *a), *b = malloc((size_t)maxdeg * sizeof *b);
	int *c = malloc((size_t)maxdeg * sizeof *c), *slot = malloc(slots * sizeof *slot);
	int rc = f->cls && a && b && c && slot ? SIM_OK : SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < slots; i++)
		slot[i] = -1;
	for (int k = 0; rc == SIM_OK && k < nf; k++) {
		f->cls[k] = k;
		int na = fabric_set(g, f, k, true, a), nb = fabric_set(g, f, k, false, b);
		if (na == 0 || na != nb || memcmp(a, b, (size_t)na * sizeof *a))
			continue; /* no neighbours, or not the same both ways: alone */
		size_t h = (size_t)sim_hash64(a, (size_t)na * sizeof *a) & (slots - 1);
		for (;; h = (h + 1) & (slots - 1)) {
			if (slot[h] < 0) {
				slot[h] = k;
				break;
			}
			int r = slot[h];
			if (fabric_set(g, f, r, true, c) == na && !memcmp(a, c, (size_t)na * sizeof *a)) {
				f->cls[k] = r;
				break;
			}
		}
	}
	free(a), free(b), free(c), free(slot);
	return rc;
}

/* Index the fabric switches and their links among themselves, when the
 * fabric is closed (header comment); else leave f->nf = 0. */
static int fabric_index(const topo_graph *g, fabric *f)
{
	f->fid = malloc((size_t)g->nv * sizeof *f->fid);
	if (!f->fid)
		return SIM_ENOMEM;
	int nf = 0;
	for (int v = 0; v < g->nv; v++)
		f->fid[v] = is_fabric(g->v[v].kind) ? nf++ : -1;
	int inner = 0;
	for (int i = 0; i < g->nl; i++) {
		const topo_link *l = &g->l[i];
		bool a = f->fid[l->src] >= 0, b = f->fid[l->dst] >= 0;
		if (a && b)
			inner++;
		else if ((a && topo_transit(g->v[l->dst].kind)) || (b && topo_transit(g->v[l->src].kind)))
			return SIM_OK; /* not closed: no tables */
	}
	if (nf == 0)
		return SIM_OK;
	f->fv = malloc((size_t)nf * sizeof *f->fv);
	f->in_off = calloc((size_t)nf + 1, sizeof *f->in_off);
	f->in = malloc(((size_t)inner + 1) * sizeof *f->in);
	f->tab = calloc((size_t)nf, sizeof *f->tab);
	f->queue = malloc((size_t)nf * sizeof *f->queue);
	if (!f->fv || !f->in_off || !f->in || !f->tab || !f->queue)
		return SIM_ENOMEM;
	for (int v = 0; v < g->nv; v++)
		if (f->fid[v] >= 0) {
			int k = f->fid[v];
			f->fv[k] = v;
			f->in_off[k + 1] = f->in_off[k];
			for (int i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
				int src = f->fid[g->l[g->in[i]].src];
				if (src >= 0)
					f->in[f->in_off[k + 1]++] = src;
			}
		}
	f->nf = nf;
	return fabric_classes(g, f);
}

static void fabric_drop(fabric *f)
{
	for (int k = 0; k < f->nf; k++) {
		free(f->tab[k]);
		f->tab[k] = NULL;
	}
	f->bytes = 0;
}

static void fabric_free(fabric *f)
{
	if (f->tab)
		fabric_drop(f);
	free(f->fid), free(f->fv), free(f->in_off), free(f->in), free(f->tab), free(f->queue);
	free(f->cls);
}

/* The table of class switch k (f->cls[k] == k): hops from every fabric
 * switch, FAR when unreachable (a breadth-first search over the fabric's
 * in-links). NULL: no memory, or a distance that does not fit in a byte (a
 * long torus ring): the caller searches instead. */
static const uint8_t *fabric_table(fabric *f, int k)
{
	if (f->tab[k])
		return f->tab[k];
	uint8_t *d = malloc((size_t)f->nf);
	if (!d)
		return NULL;
	memset(d, FAR, (size_t)f->nf);
	int head = 0, tail = 0;
	d[k] = 0;
	f->queue[tail++] = k;
	while (head < tail) {
		int w = f->queue[head++];
		if (d[w] + 1 >= FAR) {
			free(d);
			return NULL;
		}
		for (int i = f->in_off[w]; i < f->in_off[w + 1]; i++)
			if (d[f->in[i]] == FAR) {
				d[f->in[i]] = (uint8_t)(d[w] + 1);
				f->queue[tail++] = f->in[i];
			}
	}
	f->tab[k] = d;
	f->bytes += (size_t)f->nf;
	return d;
}

/* A table toward fabric switch t, read through its class's table d (of
 * switch r = f->cls[t]; fabric_classes). */
typedef struct ftab {
	const uint8_t *d;
	int t, r;
} ftab;

/* Hops from fabric switch x to the table's switch, FAR: unreachable. */
static inline int tval(const ftab *ft, int x)
{
	return x == ft->t ? 0 : x == ft->r ? 2 : ft->d[x];
}

/* Hops from v toward the table's switch (header comment), -1: not labelled. */
static int table_label(const topo_graph *g, const ftab *ft, int v)
{
	const fabric *f = &g->rt->f;
	if (f->fid[v] >= 0)
		return tval(ft, f->fid[v]) == FAR ? -1 : tval(ft, f->fid[v]);
	if (topo_transit(g->v[v].kind))
		return -1;
	int best = FAR;
	for (int i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
		int k = f->fid[g->l[g->out[i]].dst];
		if (k >= 0 && tval(ft, k) < best)
			best = tval(ft, k);
	}
	return best == FAR ? -1 : best + 1;
}

/* The out-links into vertices that forward, per vertex (rt->fwd). */
static int forwarding(const topo_graph *g, topo_router *rt)
{
	rt->fwd_off = calloc((size_t)g->nv + 1, sizeof *rt->fwd_off);
	rt->fwd = malloc(((size_t)g->nl + 1) * sizeof *rt->fwd);
	if (!rt->fwd_off || !rt->fwd)
		return SIM_ENOMEM;
	for (int u = 0; u < g->nv; u++) {
		rt->fwd_off[u + 1] = rt->fwd_off[u];
		for (int i = g->out_off[u]; i < g->out_off[u + 1]; i++) {
			const topo_link *l = &g->l[g->out[i]];
			if (topo_transit(g->v[l->dst].kind))
				rt->fwd[rt->fwd_off[u + 1]++] =
					(hop){g->out[i], l->dst, rt->f.nf > 0 ? rt->f.fid[l->dst] : -1,
					      (unsigned)l->kind};
		}
	}
	return SIM_OK;
}

int topo_router_new(const topo_graph *g, topo_router **out)
{
	topo_router *rt = calloc(1, sizeof *rt);
	if (!rt)
		return SIM_ENOMEM;
	int64_t fit = ROUTE_MEMORY / ((int64_t)g->nv * (int64_t)(sizeof(mark) + sizeof(int)) + 1);
	rt->n = fit > ROUTE_SEARCHES     ? ROUTE_SEARCHES
	        : fit > ROUTE_MAX_ATTACH ? (int)fit
	                                 : ROUTE_MAX_ATTACH + 1;
	for (int i = 0; i < ROUTE_SEARCHES; i++)
		rt->s[i].target = -1;
	if (fabric_index(g, &rt->f) != SIM_OK || forwarding(g, rt) != SIM_OK) {
		topo_router_free(rt);
		return SIM_ENOMEM;
	}
	*out = rt;
	return SIM_OK;
}

void topo_router_free(topo_router *rt)
{
	if (!rt)
		return;
	for (int i = 0; i < ROUTE_SEARCHES; i++) {
		free(rt->s[i].mark);
		free(rt->s[i].queue);
	}
	fabric_free(&rt->f);
	free(rt->fwd_off), free(rt->fwd);
	free(rt);
}

/* Hops from v to the search's target, -1 when not labelled (yet). */
static inline int label(const search *s, int v)
{
	return s->mark[v].gen == s->gen ? s->mark[v].dist : -1;
}

static void start(const topo_graph *g, search *s, int target, unsigned mask)
{
	if (++s->gen == 0) { /* wrapped: forget every old stamp */
		memset(s->mark, 0, sizeof *s->mark * (size_t)g->nv);
		s->gen = 1;
	}
	s->target = target;
	s->mask = mask;
	s->head = s->tail = 0;
	s->mark[target] = (mark){s->gen, 0};
	s->queue[s->tail++] = target;
}

/* Expand the next queued vertex: only the target and vertices that forward
 * pass traffic on, so only their in-links are followed. */
static void expand(const topo_graph *g, search *s)
{
	int w = s->queue[s->head++];
	if (w != s->target && !topo_transit(g->v[w].kind))
		return;
	int d = s->mark[w].dist + 1;
	for (int i = g->in_off[w]; i < g->in_off[w + 1]; i++) {
		const topo_link *l = &g->l[g->in[i]];
		if (s->mark[l->src].gen != s->gen && (s->mask >> l->kind & 1u)) {
			s->mark[l->src] = (mark){s->gen, d};
			s->queue[s->tail++] = l->src;
		}
	}
}

/* The search toward (target, mask), resumed from the cache or started in
 * the least recently used slot not taken by this route. NULL: no memory. */
static search *acquire(const topo_graph *g, int target, unsigned mask)
{
	topo_router *rt = g->rt;
	search *victim = NULL;
	for (int i = 0; i < rt->n; i++) {
		search *s = &rt->s[i];
		if (s->target == target && s->mask == mask) {
			s->used = rt->now;
			return s;
		}
		if (s->used != rt->now && (!victim || s->used < victim->used))
			victim = s;
	}
	if (!victim->mark) {
		victim->mark = calloc((size_t)g->nv, sizeof *victim->mark);
		victim->queue = malloc((size_t)g->nv * sizeof *victim->queue);
		if (!victim->mark || !victim->queue) {
			free(victim->mark);
			free(victim->queue);
			victim->mark = NULL;
			victim->queue = NULL;
			return NULL;
		}
	}
	start(g, victim, target, mask);
	victim->used = rt->now;
	return victim;
}

/* Distances to dst: one search toward dst (n = 1, direct), or the searches
 * toward its attachments (header comment); a fabric table stands for the
 * search of a fabric switch (s[i] NULL, tab[i] set). */
typedef struct target {
	const topo_graph *g;
	int dst, n;
	bool direct;
	search *s[ROUTE_MAX_ATTACH];
	ftab tab[ROUTE_MAX_ATTACH]; /* .d NULL: none */
} target;

static int tlabel(const target *t, int i, int v)
{
	return t->tab[i].d ? table_label(t->g, &t->tab[i], v) : label(t->s[i], v);
}

static int tdist(const target *t, int v)
{
	if (t->direct)
		return tlabel(t, 0, v);
	if (v == t->dst)
		return 0;
	int best = -1;
	for (int i = 0; i < t->n; i++) {
		int d = tlabel(t, i, v);
		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best < 0 ? -1 : best + 1;
}

/* Attachment i's label of a hop's far end (a fabric switch), -1: none. */
static inline int label_or_far(const target *t, int i, const hop *h)
{
	if (!t->tab[i].d)
		return label(t->s[i], h->dst);
	int d = tval(&t->tab[i], h->fid);
	return d == FAR ? -1 : d;
}

/* tdist of a hop's far end, read straight from the tables for a fabric
 * switch (a switch forwards, so a direct target's table or the
 * attachments' labels as tdist reads them). */
static int hop_dist(const target *t, const hop *h)
{
	if (h->fid < 0 || h->dst == t->dst)
		return tdist(t, h->dst);
	int best = -1;
	for (int i = 0; i < t->n; i++) {
		int d = label_or_far(t, i, h);
		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best < 0 || t->direct ? best : best + 1;
}

/* The attachments of dst: the distinct tails of its in-links in the mask.
 * Returns their count, or -1 when dst needs a search of its own (it
 * forwards, a tail does not, or there are too many). */
static int attachments(const topo_graph *g, int dst, unsigned mask, int *w)
{
	if (topo_transit(g->v[dst].kind))
		return -1;
	int n = 0;
	for (int i = g->in_off[dst]; i < g->in_off[dst + 1]; i++) {
		const topo_link *l = &g->l[g->in[i]];
		if (!(mask >> l->kind & 1u))
			continue;
		if (!topo_transit(g->v[l->src].kind))
			return -1;
		bool seen = false;
		for (int j = 0; j < n; j++)
			seen |= w[j] == l->src;
		if (seen)
			continue;
		if (n == ROUTE_MAX_ATTACH)
			return -1;
		w[n++] = l->src;
	}
	return n;
}

/* Label src in the searches of t (header comment). SIM_OK, SIM_ENOTFOUND,
 * SIM_ENOMEM. */
static int reach(const topo_graph *g, int src, int dst, unsigned mask, target *t)
{
	int w[ROUTE_MAX_ATTACH], n = attachments(g, dst, mask, w);
	*t = (target){g, dst, n < 0 ? 1 : n, n < 0, {NULL}, {{NULL, 0, 0}}};
	if (n == 0)
		return SIM_ENOTFOUND;
	fabric *f = &g->rt->f;
	for (int i = 0; i < t->n; i++) {
		int to = t->direct ? dst : w[i];
		if (f->nf > 0 && mask == ~0u && f->fid[to] >= 0) {
			int k = f->fid[to];
			t->tab[i] = (ftab){fabric_table(f, f->cls[k]), k, f->cls[k]};
			if (t->tab[i].d)
				continue;
		}
		if (!(t->s[i] = acquire(g, to, mask)))
			return SIM_ENOMEM;
	}
	if (t->direct && t->tab[0].d)
		return tlabel(t, 0, src) < 0 ? SIM_ENOTFOUND : SIM_OK;
	if (t->direct) {
		search *s = t->s[0];
		while (label(s, src) < 0 && s->head < s->tail)
			expand(g, s);
		return label(s, src) < 0 ? SIM_ENOTFOUND : SIM_OK;
	}
	/* Level by level: before level L every search has levels 0 .. L - 1
	 * complete and none labels src below L; each then completes level L,
	 * or stops as soon as it labels src there (the others keep levels
	 * 0 .. L - 1 complete, all the walk needs). */
	for (int level = 0;; level++) {
		bool open = false, seen = false;
		for (int i = 0; i < t->n; i++) {
			search *s = t->s[i]; /* NULL: a table, every level complete */
			while (s && s->head < s->tail && s->mark[s->queue[s->head]].dist < level &&
			       (unsigned)label(s, src) > (unsigned)level)
				expand(g, s);
			if ((unsigned)tlabel(t, i, src) <= (unsigned)level)
				return SIM_OK;
			seen |= tlabel(t, i, src) >= 0;
			open |= s && s->head < s->tail;
		}
		if (!open) /* finished searches label every vertex they reach */
			return seen ? SIM_OK : SIM_ENOTFOUND;
	}
}

static uint64_t ecmp_hash(int src, int dst, int at)
{
	int32_t key[3] = {src, dst, at};
	/* FNV-1a's low bits mix poorly for nearby keys; murmur3's finaliser
	 * spreads them before the modulo. */
	uint64_t h = sim_hash64(key, sizeof key);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* Which of the nc equal-cost next hops cand[0..nc) at vertex `at` (reached
 * from `prev`) a flow takes; h[0] = nc1 and h[1] = nc2 are the candidate
 * counts one and two hops back (h[2], h[3]: three and four, for choose4).
 * InfiniBand fabrics are routed by the subnet manager, whose fat-tree engine
 * (OpenSM ftree) is destination-based (d-mod-k): with d the destination NIC's
 * index in leaf-major order (g->dkey: leaves in order, each one's NICs in
 * port order, as ftree numbers them), a leaf sends it up on uplink u = d mod U (U uplinks;
 * in two tiers uplink u goes to spine u mod S, fabric.c), and the spine sends
 * it down on the link of the same column u, i.e. its (u div S)-th parallel
 * link to the destination leaf. With a core layer a spine has one link to
 * each leaf of its pod, and going up it takes the next digit, uplink
 * v = (d div U) mod V of its V uplinks (uplink v goes to core v mod C of its
 * plane, fabric.c); the core sends it down on the link of the same column,
 * its (v div C)-th parallel link to the destination pod's spine. Flows into
 * NICs with consecutive indices (one node's NICs, a ring's next hops) then
 * use distinct uplinks and downlinks, and on a rail-optimized fabric so do
 * the flows into one rail leaf's NICs (one per node of the unit). RoCE and Ethernet switches hash each
 * flow's header onto a port (ECMP), which can put several flows on one
 * uplink while another idles. EFA is routed as InfiniBand: its SRD
 * transport sprays every flow's packets over many paths, so no two flows
 * collide on one uplink as hashing would have them; destination-spread
 * routing is the fluid picture closest to that. */
static int64_t at_least_1(int x)
{
	return x > 0 ? x : 1;
}

/* Four tiers (zones of pods under supercores, fabric.c), d-mod-k one digit
 * further: a core takes up cable j = (d div (U D)) mod J of its J (U: the
 * leaf's uplinks, D: the spine's), i.e. supercore j mod S of its plane, and
 * the supercore sends the flow down the same column, its (j div S)-th
 * parallel link to the destination zone's core of that plane; that core,
 * reached from a supercore, sends it down column i = (d div U) mod D, the
 * cable the source spine took, its (i div C)-th parallel link to the
 * destination pod's spine. nc[0..3]: the candidate counts one to four hops
 * back; -1: not a four-tier hop (the three-tier rules apply). */
static int choose4(const topo_graph *g, int64_t key, int at, int prev, const int *cand, int nc,
                   const int *h)
{
	topo_vkind k = g->v[at].kind;
	if (k == TOPO_V_CORE && g->v[g->l[cand[0]].dst].kind == TOPO_V_SUPER)
		return (int)(key / (at_least_1(h[0]) * at_least_1(h[1])) % nc);
	if (k == TOPO_V_SUPER)
		return (int)(key / (at_least_1(h[1]) * at_least_1(h[2])) % at_least_1(h[0]) /
		             at_least_1(g->super_plane) % nc);
	if (k == TOPO_V_CORE && prev >= 0 && g->v[prev].kind == TOPO_V_SUPER)
		return (int)(key / at_least_1(h[3]) % at_least_1(h[2]) / at_least_1(g->core_plane) %
		             nc);
	return -1;
}

static int choose(const topo_graph *g, int src, int dst, int at, int prev, const int *cand, int nc,
                  const int *h)
{
	const topo_vertex *d = &g->v[dst];
	if ((g->cl.node.nic_kind != NET_NIC_IB && g->cl.node.nic_kind != NET_NIC_EFA) ||
	    d->kind != TOPO_V_NIC)
		return (int)(ecmp_hash(src, dst, at) % (uint64_t)nc);
	int64_t key = g->dkey[dst] >= 0 ? g->dkey[dst] : (int64_t)d->node * g->nics_per_node + d->index;
	int nc1 = h[0], nc2 = h[1];
	int four = g->super_plane > 0 ? choose4(g, key, at, prev, cand, nc, h) : -1;
	if (four >= 0)
		return four;
	topo_vkind k = g->v[at].kind;
	if (k == TOPO_V_SPINE && g->v[g->l[cand[0]].dst].kind == TOPO_V_CORE)
		return (int)(key / (nc1 > 0 ? nc1 : 1) % nc);
	if (k == TOPO_V_CORE && nc1 >= 2)
		return (int)(key / (nc2 > 0 ? nc2 : 1) % nc1 /
		             (g->core_plane > 0 ? g->core_plane : 1) % nc);
	if (k != TOPO_V_SPINE || nc1 < 2)
		return (int)(key % nc);
	return (int)((key % nc1) / (g->nspines > 0 ? g->nspines : 1) % nc);
}

static int walk(const topo_graph *g, int src, int dst, unsigned mask, const target *t, int *path,
                int max)
{
	int u = src, prev = -1, hops = 0, h[4] = {0, 0, 0, 0}, du = tdist(t, src);
	const topo_router *rt = g->rt;
	while (u != dst) {
		/* The candidates: out-links in the mask into dst or a vertex that
		 * forwards, at distance du - 1: dst itself when du = 1 (no other
		 * vertex is at 0), else only vertices that forward (dst is at 0). */
		int cand[64], nc = 0;
		if (du == 1) {
			for (int i = g->out_off[u]; i < g->out_off[u + 1] && nc < 64; i++) {
				const topo_link *l = &g->l[g->out[i]];
				if ((mask >> l->kind & 1u) && l->dst == dst)
					cand[nc++] = g->out[i];
			}
		} else {
			for (int i = rt->fwd_off[u]; i < rt->fwd_off[u + 1] && nc < 64; i++) {
				const hop *e = &rt->fwd[i];
				if ((mask >> e->kind & 1u) && hop_dist(t, e) == du - 1)
					cand[nc++] = e->link;
			}
		}
		if (nc == 0)
			return SIM_ENOTFOUND;
		if (hops == max)
			return SIM_ERANGE;
		int pick = cand[choose(g, src, dst, u, prev, cand, nc, h)];
		h[3] = h[2], h[2] = h[1], h[1] = h[0], h[0] = nc;
		prev = u;
		path[hops++] = pick;
		u = g->l[pick].dst;
		du--;
	}
	return hops;
}

/* Route over the links whose kind is in mask (bit per topo_lkind). */
static int route_mask(const topo_graph *g, int src, int dst, unsigned mask, int *path, int max)
{
	if (src < 0 || src >= g->nv || dst < 0 || dst >= g->nv)
		return SIM_EINVAL;
	if (src == dst)
		return 0;
	g->rt->now++;
	if (g->rt->f.bytes > ROUTE_TABLE_MEMORY)
		fabric_drop(&g->rt->f); /* no route holds a table between routes */
	target t;
	int rc = reach(g, src, dst, mask, &t);
	return rc == SIM_OK ? walk(g, src, dst, mask, &t, path, max) : rc;
}

int topo_route(const topo_graph *g, int src, int dst, int *path, int max)
{
	return route_mask(g, src, dst, ~0u, path, max);
}

/* Append the route a -> b to path[*n..max). */
static int append(const topo_graph *g, int a, int b, int *path, int *n, int max)
{
	int rc = topo_route(g, a, b, path + *n, max - *n);
	if (rc < 0)
		return rc;
	*n += rc;
	return SIM_OK;
}

int topo_nvlink(const topo_graph *g, int va, int vb)
{
	for (int e = g->out_off[va]; e < g->out_off[va + 1]; e++) {
		const topo_link *l = &g->l[g->out[e]];
		if (l->kind == TOPO_L_NVLINK && l->dst == vb)
			return g->out[e];
	}
	return -1;
}

int topo_nvb_via(const topo_graph *g, int va, int vb)
{
	int best = -1, best_lanes = 0, node = g->v[va].node, G = g->gpus_per_node;
	for (int i = 0; i < G; i++) {
		int w = g->gpu[(size_t)node * G + i];
		int x = w == va || w == vb ? -1 : topo_nvlink(g, va, w);
		int y = x < 0 ? -1 : topo_nvlink(g, w, vb);
		if (y < 0)
			continue;
		int lanes = g->l[x].lanes < g->l[y].lanes ? g->l[x].lanes : g->l[y].lanes;
		if (lanes > best_lanes) {
			best = w;
			best_lanes = lanes;
		}
	}
	return best;
}

/* The PCIe switch vertex v (a GPU or a NIC) hangs from, or -1. */
static int pcie_switch_of(const topo_graph *g, int v)
{
	for (int e = g->out_off[v]; e < g->out_off[v + 1]; e++) {
		const topo_link *l = &g->l[g->out[e]];
		if (l->kind == TOPO_L_PCIE && g->v[l->dst].kind == TOPO_V_PCIE_SWITCH)
			return l->dst;
	}
	return -1;
}

/* Whether GPUs va and vb are NVLink peers (NCCL's PATH_NVL): a direct
 * NVLink, or ports on one NVSwitch. */
static bool nvl_peers(const topo_graph *g, int va, int vb)
{
	if (topo_nvlink(g, va, vb) >= 0)
		return true;
	for (int e = g->out_off[va]; e < g->out_off[va + 1]; e++) {
		const topo_link *l = &g->l[g->out[e]];
		if (l->kind != TOPO_L_NVSWITCH)
			continue;
		for (int f = g->out_off[vb]; f < g->out_off[vb + 1]; f++)
			if (g->l[g->out[f]].kind == TOPO_L_NVSWITCH &&
			    g->l[g->out[f]].dst == l->dst)
				return true;
	}
	return false;
}

/* The GPU through which GPU vertex va sends into NIC vertex xa of its node
 * (PXN, header comment), or -1 for the direct route. `relay`: the caller's
 * preferred relay (a global GPU rank) or -1. */
static int pxn_relay(const topo_graph *g, int va, int xa, int relay)
{
	if (g->cl.node.intra == NET_INTRA_PCIE)
		return -1;
	int sw = pcie_switch_of(g, xa);
	if (sw < 0 || pcie_switch_of(g, va) == sw)
		return -1;
	int G = g->gpus_per_node, node = g->v[va].node, w = -1;
	const int *gpu = g->gpu + (size_t)node * G;
	if (relay >= 0 && relay / G == node && pcie_switch_of(g, gpu[relay % G]) == sw)
		w = gpu[relay % G];
	for (int i = 0; i < G && w < 0; i++)
		if (pcie_switch_of(g, gpu[i]) == sw && topo_nic(g, node, topo_gpu_nic(g, i)) == xa)
			w = gpu[i];
	for (int i = 0; i < G && w < 0; i++)
		if (pcie_switch_of(g, gpu[i]) == sw)
			w = gpu[i];
	return w >= 0 && w != va && nvl_peers(g, va, w) ? w : -1;
}

/* Append GPU va's route into NIC xa to path[*n..max): PXN through a relay
 * GPU where it applies, else the shortest route. */
static int append_send(const topo_graph *g, int va, int xa, int relay, int *path, int *n, int max)
{
	int w = pxn_relay(g, va, xa, relay);
	if (w < 0)
		return append(g, va, xa, path, n, max);
	unsigned up = 1u << TOPO_L_NVLINK | 1u << TOPO_L_NVSWITCH;
	int h = route_mask(g, va, w, up, path + *n, max - *n);
	if (h < 0)
		return h;
	*n += h;
	return append(g, w, xa, path, n, max);
}

int topo_route_gpus(const topo_graph *g, int a, int b, int nic_a, int nic_b, int *path, int max)
{
	return topo_route_gpus_via(g, a, b, nic_a, nic_b, -1, path, max);
}

int topo_route_gpus_via(const topo_graph *g, int a, int b, int nic_a, int nic_b, int relay,
                        int *path, int max)
{
	int va = topo_gpu(g, a), vb = topo_gpu(g, b);
	if (va < 0 || vb < 0)
		return SIM_EINVAL;
	int G = g->gpus_per_node, na = a / G, nb = b / G;
	if (na == nb && g->cl.node.intra == NET_INTRA_PCIE && !g->cl.node.pcie_p2p) {
		/* No P2P: the sender copies into host memory, the receiver out of
		 * it (NCCL's SHM transport), so the route turns at the CPU. */
		int n = 0, rc = append(g, va, g->cpu[na], path, &n, max);
		if (rc == SIM_OK)
			rc = append(g, g->cpu[na], vb, path, &n, max);
		return rc == SIM_OK ? n : rc;
	}
	if (na == nb) {
		/* Scale-up links first, as NCCL uses NVLink P2P where it can. */
		unsigned up = 1u << TOPO_L_NVLINK | 1u << TOPO_L_NVSWITCH;
		int h = route_mask(g, va, vb, up, path, max);
		if (h != SIM_ENOTFOUND)
			return h;
		/* An NVLink mesh pair without a direct link: through the GPU
		 * linked to both (NCCL's NVB paths, on unless NCCL_NVB_DISABLE). */
		int w = topo_nvb_via(g, va, vb);
		if (w >= 0 && max >= 2) {
			path[0] = topo_nvlink(g, va, w);
			path[1] = topo_nvlink(g, w, vb);
			return 2;
		}
		return topo_route(g, va, vb, path, max);
	}
	if (nic_a < 0)
		nic_a = topo_gpu_nic(g, a % G);
	if (nic_b < 0)
		nic_b = topo_gpu_nic(g, b % G);
	/* Rail-only: no switch joins rail nic_a to rail nic_b, so the flow
	 * leaves by its node's NIC on the destination's rail, reached over
	 * NVLink through that NIC's GPU (PXN, append_send; header comment). */
	if (g->cl.fabric == NET_FABRIC_RAIL_ONLY)
		nic_a = nic_b;
	int xa = topo_nic(g, na, nic_a), xb = topo_nic(g, nb, nic_b);
	if (xa < 0 || xb < 0)
		return SIM_ENOTFOUND;
	int n = 0, rc = append_send(g, va, xa, relay, path, &n, max);
	if (rc == SIM_OK)
		rc = append(g, xa, xb, path, &n, max);
	if (rc == SIM_OK)
		rc = append(g, xb, vb, path, &n, max);
	return rc == SIM_OK ? n : rc;
}
