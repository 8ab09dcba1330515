/* memo.c - routed phases remembered across the collectives timed on one
 * graph (topo_int.h, topo_memo, held by the graph; used by coll.c's
 * phase_run).
 *
 * Why. A step's data-parallel collectives differ mostly in their byte
 * counts: the gradient buckets' reduce-scatters and the parameter
 * all-gathers of a 65,536-GPU Llama 3.1 405B step are 7 of its 11
 * distinct collectives, one 512-rank ring each, so the cache of group
 * costs (group.c, keyed on the bytes) misses on each and every miss routed
 * the same flows again (route.c's walks: about a fifth of such a run).
 * Phases also repeat across collectives (a reduce-scatter and an all-gather
 * move the same ring) and across algorithms (the forced tree's ring bound).
 *
 * What is remembered. A phase (coll.c) is a list of flows (a, b, nic_a,
 * nic_b) between ranks of the first group, replayed in every translate of
 * `groups` and split over `rails`; the routes of its flows are a function of
 * exactly those (route_flow reads nothing else, and routing is
 * deterministic: route.c), never of the bytes. So the key is that whole
 * description, [n, ngroups, rails, flows, groups..., a..., b..., nic_a...,
 * nic_b...], compared in full (a 64-bit hash only finds the candidate), and
 * the value is the flow instances in the order phase_run adds them: for each
 * one its phase flow (whose bytes it carries), its split and its links. A
 * phase found here adds the same flows with the same links in the same
 * order as routing them again would, with this call's bytes: the
 * simulation, and so every result, is bit for bit the same.
 *
 * Whose. The routes depend on the graph alone, so the memo is the graph's,
 * a cache beside the router's (route.c) and like it mutable through a
 * const graph: every run on the graph reuses it, the plans of a sweep that
 * share a graph (share.c) too, where plans that differ only in what the
 * fabric does not see (micro-batch, recomputation, buckets) route the same
 * rings. It holds routes only; a run's flows, loads and costs stay its own
 * (topo_coll_ctx, topo_cache).
 *
 * Memory: at most TOPO_MEMO_INTS ints of keys and routes (64 MiB; a
 * 131,072-GPU step's phases take a few MiB); past it the memo is emptied
 * and fills again.
 */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

#define TOPO_MEMO_INTS ((size_t)16 << 20)

typedef struct mentry {
	uint64_t hash;
	int *key;
	size_t nkey;
	topo_routed r;
} mentry;

struct topo_memo {
	mentry *e;
	int n, cap;
	size_t ints;     /* held by the entries */
	int *key;        /* scratch: the key being looked up */
	size_t nkey, cap_key;
	uint64_t hash;
	topo_routed tmp; /* scratch: a phase being routed */
	int cap_inst, cap_links;
	long long hits, misses;
};

int topo_memo_new(topo_memo **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? SIM_OK : SIM_ENOMEM;
}

static void routed_free(topo_routed *r)
{
	free(r->src), free(r->split), free(r->off), free(r->links);
	memset(r, 0, sizeof *r);
}

static void drop_all(topo_memo *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->e[i].key);
		routed_free(&m->e[i].r);
	}
	m->n = 0;
	m->ints = 0;
}

void topo_memo_free(topo_memo *m)
{
	if (!m)
		return;
	drop_all(m);
	free(m->e);
	free(m->key);
	routed_free(&m->tmp);
	free(m);
}

static void topo_memo_stats(const topo_memo *m, long long *hits, long long *misses)
{
	*hits = m ? m->hits : 0;
	*misses = m ? m->misses : 0;
}

void topo_route_stats(const topo_graph *g, long long *reused, long long *routed)
{
	topo_memo_stats(g ? g->memo : NULL, reused, routed);
}

static int grow(int **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return SIM_OK;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	int *q = realloc(*p, c * sizeof *q);
	if (!q)
		return SIM_ENOMEM;
	*p = q;
	*cap = c;
	return SIM_OK;
}

const topo_routed *topo_memo_find(topo_memo *m, int n, int ngroups, int rails, const int *groups,
                                  int flows, const int *a, const int *b, const int *nic_a,
                                  const int *nic_b)
{
	size_t ng = (size_t)n * (size_t)ngroups, nf = (size_t)flows;
	m->nkey = 4 + ng + 4 * nf;
	if (grow(&m->key, &m->cap_key, m->nkey) != SIM_OK) {
		m->nkey = 0; /* nothing to remember this phase under */
		return NULL;
	}
	int *k = m->key;
	k[0] = n, k[1] = ngroups, k[2] = rails, k[3] = flows;
	memcpy(k + 4, groups, ng * sizeof *k);
	memcpy(k + 4 + ng, a, nf * sizeof *k);
	memcpy(k + 4 + ng + nf, b, nf * sizeof *k);
	memcpy(k + 4 + ng + 2 * nf, nic_a, nf * sizeof *k);
	memcpy(k + 4 + ng + 3 * nf, nic_b, nf * sizeof *k);
	m->hash = sim_hash64(k, m->nkey * sizeof *k);
	for (int i = 0; i < m->n; i++) {
		const mentry *e = &m->e[i];
		if (e->hash == m->hash && e->nkey == m->nkey &&
		    !memcmp(e->key, k, m->nkey * sizeof *k)) {
			m->hits++;
			return &e->r;
		}
	}
	m->misses++;
	return NULL;
}

topo_routed *topo_memo_begin(topo_memo *m)
{
	m->tmp.n = 0;
	m->tmp.nlinks = 0;
	return &m->tmp;
}

int topo_memo_add(topo_memo *m, int src, int split, const int *links, int nlinks)
{
	topo_routed *r = &m->tmp;
	if (r->n + 1 >= m->cap_inst) {
		int c = m->cap_inst ? 2 * m->cap_inst : 256;
		int *s = realloc(r->src, (size_t)c * sizeof *s);
		if (s)
			r->src = s;
		int *p = realloc(r->split, (size_t)c * sizeof *p);
		if (p)
			r->split = p;
		int *o = realloc(r->off, (size_t)(c + 1) * sizeof *o);
		if (o)
			r->off = o;
		if (!s || !p || !o)
			return SIM_ENOMEM;
		m->cap_inst = c;
	}
	if (r->nlinks + nlinks > m->cap_links) {
		size_t c = (size_t)m->cap_links;
		if (grow(&r->links, &c, (size_t)r->nlinks + (size_t)nlinks) != SIM_OK)
			return SIM_ENOMEM;
		m->cap_links = (int)c;
	}
	if (r->n == 0)
		r->off[0] = 0;
	r->src[r->n] = src;
	r->split[r->n] = split;
	memcpy(r->links + r->nlinks, links, (size_t)nlinks * sizeof *links);
	r->nlinks += nlinks;
	r->off[++r->n] = r->nlinks;
	return SIM_OK;
}

void topo_memo_keep(topo_memo *m)
{
	topo_routed *t = &m->tmp;
	size_t ints = m->nkey + 3 * (size_t)t->n + 1 + (size_t)t->nlinks;
	if (m->nkey == 0 || t->n == 0 || ints > TOPO_MEMO_INTS)
		return;
	if (m->ints + ints > TOPO_MEMO_INTS)
		drop_all(m);
	if (m->n == m->cap) {
		int c = m->cap ? 2 * m->cap : 16;
		mentry *e = realloc(m->e, (size_t)c * sizeof *e);
		if (!e)
			return; /* not remembered: the next call routes again */
		m->e = e;
		m->cap = c;
	}
	int *key = malloc(m->nkey * sizeof *key);
	if (!key)
		return;
	memcpy(key, m->key, m->nkey * sizeof *key);
	/* the routes move into the entry; the scratch starts empty again */
	m->e[m->n++] = (mentry){m->hash, key, m->nkey, *t};
	memset(t, 0, sizeof *t);
	m->cap_inst = m->cap_links = 0;
	m->ints += ints;
}
