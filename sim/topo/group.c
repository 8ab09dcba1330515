/* group.c - the contention-aware cost of a plan's collectives (topo.h).
 *
 * In a data-/tensor-parallel plan every translate of a communication group
 * runs the same collective at the same time: all TP groups of every node,
 * all DP groups of a stage, every pipeline pair. A group of `size` ranks
 * r, r + s, ..., r + (size-1) s (s = stride) has the translates with base
 * b in [0, world) such that floor(b / s) mod size = 0 and
 * b + (size-1) s < world: the mixed-radix rank numbering of plan/groups.c
 * gives exactly these (for the tied-embedding pair, stride (pp-1) s_pp,
 * the bound keeps b < s_pp). topo_group_cost runs the collective of all of
 * them at once on one flow simulation (topo_collective_groups), so rail
 * alignment, several GPUs sharing a NIC, fat-tree oversubscription and ECMP
 * collisions on leaf uplinks all show in the time.
 *
 * All translates or a sample of node-aligned blocks. translates() lists
 * the bases in increasing order, so the first `stride` translates (bases
 * below size * stride) together cover a block of whole nodes, the next
 * `stride` the next block, and so on. Up to TOPO_GROUP_MAX_FLOWS flows
 * (estimated per translate: k channels of n ring hops, 4 n k for a tree)
 * every translate is simulated; above it the first whole blocks that fit
 * the budget (at least one), flagged by simulated < translates. A sample
 * is exact when the blocks' traffic does not meet: one switch (only NIC
 * links are shared), a rail-optimized fabric whose rings stay on their rail
 * leaf, and a fat tree with d-mod-k routing (route.c) when a block holds
 * whole leaves. It under-counts contention where a leaf holds nodes of a
 * sampled and an unsampled block, and where the hash ECMP of RoCE /
 * Ethernet puts flows of different blocks on one spine link. The
 * budget keeps a 1,024-GPU GPT-3 step (8 distinct collectives) under
 * 0.2 s of flow simulation; the cache below makes it once per distinct
 * collective.
 *
 * Cache: per (collective, size, stride, bytes, algorithm), a linear list
 * (a plan has a few dozen distinct collectives; a step's thousands of
 * identical tasks hit it). A miss that differs from an earlier collective
 * only in its bytes (a step's gradient buckets) still simulates its flows,
 * but takes their routes from the graph's memo (memo.c) instead of
 * routing them again.
 *
 * Link classes (net_link_kind): NVLink / NVSwitch / C2C links and a PCIe
 * node's GPU links are scale-up; links with a NIC at one end are nic; other
 * InfiniBand / RoCE / Ethernet links (leaf-spine-core) fabric; the rest
 * (GPU or NIC to PCIe switch, PCIe switch to CPU) pcie.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct centry {
	net_coll coll;
	int size, stride;
	double bytes;
	topo_algo algo;
	int rc;
	topo_group_result res;
} centry;

struct topo_cache {
	const topo_graph *g;
	int world;
	centry *e;
	int n, cap;
	int hits, misses;
	topo_coll_ctx *ctx; /* the collectives' simulation and link loads */
	int *groups;        /* scratch: translates */
	size_t cap_groups;
};

net_link_kind topo_link_class(const topo_graph *g, int l)
{
	return (net_link_kind)g->lclass[l];
}

int topo_cache_new(const topo_graph *g, int world, topo_cache **out)
{
	*out = NULL;
	if (!g || world < 1 || world > g->cl.gpus)
		return SIM_EINVAL;
	topo_cache *k = calloc(1, sizeof *k);
	if (!k)
		return SIM_ENOMEM;
	k->g = g;
	k->world = world;
	int rc = topo_coll_ctx_new(g, &k->ctx);
	if (rc != SIM_OK) {
		topo_cache_free(k);
		return rc;
	}
	*out = k;
	return SIM_OK;
}

void topo_cache_free(topo_cache *k)
{
	if (!k)
		return;
	free(k->e);
	topo_coll_ctx_free(k->ctx);
	free(k->groups);
	free(k);
}

void topo_cache_stats(const topo_cache *k, int *hits, int *misses)
{
	*hits = k ? k->hits : 0;
	*misses = k ? k->misses : 0;
}

void topo_cache_phase_stats(const topo_cache *k, long long *reused, long long *simulated)
{
	topo_outcomes_stats(k && k->ctx ? k->ctx->outcomes : NULL, reused, simulated);
}

const topo_graph *topo_cache_graph(const topo_cache *k)
{
	return k->g;
}

/* How many translates the group has: the bases b in [0, W), W = world -
 * (size-1) stride, with floor(b / stride) mod size = 0, i.e. b mod (size
 * stride) < stride: `stride` in each whole period of size x stride and
 * min(rest, stride) in the last, partial one. */
static int64_t count_translates(int world, int size, int stride)
{
	int64_t w = world - (int64_t)(size - 1) * stride, period = (int64_t)size * stride;
	if (w <= 0)
		return 0;
	int64_t rest = w % period;
	return w / period * stride + (rest < stride ? rest : stride);
}

/* The first t translates of the group into k->groups, bases in increasing
 * order (period by period, the `stride` bases at its start): O(t size), not
 * O(world). SIM_OK or SIM_ENOMEM. */
static int translates(topo_cache *k, int size, int stride, int t)
{
	size_t need = (size_t)t * (size_t)size;
	if (need > k->cap_groups) {
		size_t cap = k->cap_groups ? 2 * k->cap_groups : 256;
		while (cap < need)
			cap *= 2;
		int *p = realloc(k->groups, cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		k->groups = p;
		k->cap_groups = cap;
	}
	int64_t period = (int64_t)size * stride;
	for (int j = 0; j < t; j++) {
		int64_t b = j / stride * period + j % stride;
		for (int i = 0; i < size; i++)
			k->groups[(size_t)j * size + i] = (int)(b + (int64_t)i * stride);
	}
	return SIM_OK;
}

/* Flows of one translate, an upper bound used to size the simulation: with
 * k ranks of the group per node (k channels), ring n k, tree 4 n k (both
 * directions of both trees), pairwise n (n-1). */
static int64_t flows_per_group(net_coll coll, int n, int stride, int G)
{
	if (coll == NET_ALLTOALL)
		return (int64_t)n * (n - 1);
	if (coll == NET_P2P)
		return 1;
	int64_t k = stride >= G ? 1 : (G + stride - 1) / stride;
	k = k < n ? k : n;
	return (coll == NET_ALLREDUCE ? 4 : 1) * (int64_t)n * k;
}

/* Per link class: the busiest link, its bytes and saturated time, over the
 * links the collective touched in increasing order (the accumulator's sorted
 * list; every other link holds 0: acc.c), as a scan of every link would. */
static void classify(const topo_cache *k, topo_group_result *r)
{
	const topo_graph *g = k->g;
	const topo_acc *a = &k->ctx->acc;
	for (int c = 0; c < NET_LINK_KIND_COUNT; c++)
		r->link[c] = -1;
	for (int i = 0; i < a->n; i++) {
		int l = a->list[i];
		net_link_kind c = (net_link_kind)g->lclass[l];
		r->total_bytes[c] += a->bytes[l];
		if (a->bytes[l] > r->bytes[c]) {
			r->bytes[c] = a->bytes[l];
			r->link[c] = l;
		}
		if (a->sat[l] > r->sat_s[c])
			r->sat_s[c] = a->sat[l];
	}
}

static int compute(topo_cache *k, const centry *key, topo_group_result *r)
{
	memset(r, 0, sizeof *r);
	int64_t per = flows_per_group(key->coll, key->size, key->stride, k->g->gpus_per_node);
	int64_t limit = TOPO_GROUP_MAX_FLOWS / (per > 0 ? per : 1);
	int64_t all64 = count_translates(k->world, key->size, key->stride);
	if (all64 == 0)
		return SIM_EINVAL;
	int all = (int)all64; /* <= world */
	/* translates() lists bases in increasing order, so the first `block`
	 * (bases below size * stride) cover whole nodes together; a sample is
	 * a whole number of such blocks. */
	int block = key->stride < all ? key->stride : all;
	int t = all;
	if (t > limit)
		t = limit >= block ? (int)(limit / block) * block : block;
	r->translates = all;
	r->simulated = t;
	int rc = translates(k, key->size, key->stride, t);
	if (rc == SIM_OK)
		rc = topo_coll_run(k->ctx, key->coll, k->groups, key->size, t, key->bytes,
		                   key->algo, &r->cost);
	if (rc == SIM_OK)
		classify(k, r);
	return rc;
}

int topo_group_cost(topo_cache *k, net_coll coll, int size, int stride, double bytes,
                    topo_algo algo, topo_group_result *out)
{
	memset(out, 0, sizeof *out);
	if (!k || size < 1 || stride < 1 || (int64_t)(size - 1) * stride >= k->world ||
	    !(bytes >= 0) || (unsigned)coll >= NET_COLL_COUNT)
		return SIM_EINVAL;
	for (int i = 0; i < k->n; i++) {
		const centry *e = &k->e[i];
		if (e->coll == coll && e->size == size && e->stride == stride &&
		    e->bytes == bytes && e->algo == algo) {
			k->hits++;
			*out = e->res;
			return e->rc;
		}
	}
	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 16;
		centry *p = realloc(k->e, (size_t)cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		k->e = p;
		k->cap = cap;
	}
	centry *e = &k->e[k->n];
	memset(e, 0, sizeof *e);
	e->coll = coll, e->size = size, e->stride = stride, e->bytes = bytes, e->algo = algo;
	e->rc = compute(k, e, &e->res);
	if (e->rc == SIM_ENOMEM)
		return e->rc; /* not cached: may succeed later */
	k->n++;
	k->misses++;
	*out = e->res;
	return e->rc;
}
