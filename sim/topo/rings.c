/* rings.c - NCCL's rings over one NVLink-mesh node (DGX-1's hybrid cube
 * mesh), found by search: every directed Hamiltonian cycle over the group's
 * direct NVLink arcs, then the largest set of them that fits in the bricks,
 * one brick per arc each, up to the fewest bricks of a GPU (NCCL's ring
 * search gives each ring its own NVLink bricks; on DGX-1 every GPU has 6, so
 * at most 6 rings); where no cycle exists over direct arcs, the pairs NCCL
 * reaches through an intermediate GPU (NVB) join them (coll.c's header has
 * the rest of the ring model). */
#include "topo_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Direct NVLink lanes between the ranks of a one-node group. */
static int mesh_lanes(const topo_graph *g, const int *r, int k, int *lanes)
{
	memset(lanes, 0, (size_t)k * k * sizeof *lanes);
	int any = 0;
	for (int i = 0; i < k; i++) {
		int v = topo_gpu(g, r[i]);
		for (int e = g->out_off[v]; e < g->out_off[v + 1]; e++) {
			const topo_link *l = &g->l[g->out[e]];
			for (int j = 0; j < k && l->kind == TOPO_L_NVLINK; j++)
				if (l->dst == topo_gpu(g, r[j])) {
					lanes[i * k + j] = l->lanes;
					any = 1;
				}
		}
	}
	return any;
}

/* No ring over direct links (5 of DGX-1's GPUs: GPU 4 links only to 0
 * among 0-4): add the pairs NCCL reaches through an intermediate GPU (NVB,
 * route.c), with the lanes of the path's narrower link. Returns whether any
 * was added. */
static int nvb_lanes(const topo_graph *g, const int *r, int k, int *lanes)
{
	int any = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			int va = topo_gpu(g, r[i]), vb = topo_gpu(g, r[j]);
			int w = i == j || lanes[i * k + j] > 0 ? -1 : topo_nvb_via(g, va, vb);
			if (w < 0)
				continue;
			int x = g->l[topo_nvlink(g, va, w)].lanes,
			    y = g->l[topo_nvlink(g, w, vb)].lanes;
			lanes[i * k + j] = x < y ? x : y;
			any = 1;
		}
	return any;
}

#define MAX_CYCLES 4096

/* Every directed Hamiltonian cycle from position 0 over arcs with lanes, into
 * cyc (k entries each); returns the count (at most MAX_CYCLES). */
static int ham_all(const int *lanes, int k, int *path, int depth, char *used, int *cyc, int nc)
{
	int u = path[depth - 1];
	if (depth == k) {
		if (lanes[u * k + path[0]] > 0 && nc < MAX_CYCLES) {
			memcpy(cyc + (size_t)nc * k, path, (size_t)k * sizeof *path);
			nc++;
		}
		return nc;
	}
	for (int v = 0; v < k && nc < MAX_CYCLES; v++) {
		if (used[v] || lanes[u * k + v] <= 0)
			continue;
		used[v] = 1;
		path[depth] = v;
		nc = ham_all(lanes, k, path, depth + 1, used, cyc, nc);
		used[v] = 0;
	}
	return nc;
}

static bool cycle_fits(const int *lanes, int k, const int *c)
{
	for (int i = 0; i < k; i++)
		if (lanes[c[i] * k + c[(i + 1) % k]] <= 0)
			return false;
	return true;
}

static void cycle_take(int *lanes, int k, const int *c, int d)
{
	for (int i = 0; i < k; i++)
		lanes[c[i] * k + c[(i + 1) % k]] -= d;
}

/* Depth-first search for the largest multiset of cycles that fit in the
 * lanes (cycles taken in list order, repeats allowed), stopping at the upper
 * bound `ub` (the fewest out-lanes of a GPU) or after SEARCH_BUDGET steps. */
#define SEARCH_BUDGET 200000

typedef struct pack {
	int *lanes, k, nc, ub, budget;
	const int *cyc;
	int *cur, ncur, *best, nbest;
} pack;

static void pack_rec(pack *p, int from)
{
	if (p->ncur > p->nbest) {
		p->nbest = p->ncur;
		memcpy(p->best, p->cur, (size_t)p->ncur * sizeof *p->cur);
	}
	if (p->nbest >= p->ub || p->ncur == MAX_RINGS)
		return;
	for (int i = from; i < p->nc && p->budget > 0 && p->nbest < p->ub; i++) {
		const int *c = p->cyc + (size_t)i * p->k;
		p->budget--;
		if (!cycle_fits(p->lanes, p->k, c))
			continue;
		cycle_take(p->lanes, p->k, c, 1);
		p->cur[p->ncur++] = i;
		pack_rec(p, i);
		p->ncur--;
		cycle_take(p->lanes, p->k, c, -1);
	}
}

static int pick_cycles(int *lanes, int k, const int *cyc, int nc, int *rings, const int *r)
{
	int ub = MAX_RINGS, cur[MAX_RINGS], best[MAX_RINGS];
	for (int i = 0; i < k; i++) {
		int out = 0;
		for (int j = 0; j < k; j++)
			out += lanes[i * k + j];
		if (out < ub)
			ub = out;
	}
	pack p = {lanes, k, nc, ub, SEARCH_BUDGET, cyc, cur, 0, best, 0};
	pack_rec(&p, 0);
	for (int c = 0; c < p.nbest; c++)
		for (int i = 0; i < k; i++)
			rings[c * k + i] = r[cyc[(size_t)best[c] * k + i]];
	return p.nbest;
}

int topo_mesh_rings(const topo_graph *g, const int *r, int k, int *rings)
{
	if (k < 2 || k > 16 || g->cl.node.intra != NET_INTRA_NVLINK_MESH)
		return 0;
	int *lanes = malloc((size_t)k * k * sizeof *lanes),
	    *path = malloc((size_t)k * sizeof *path);
	int *cyc = malloc((size_t)MAX_CYCLES * k * sizeof *cyc);
	char *used = calloc((size_t)k, 1);
	int nr = 0;
	if (lanes && path && cyc && used && mesh_lanes(g, r, k, lanes)) {
		path[0] = 0;
		used[0] = 1;
		int nc = ham_all(lanes, k, path, 1, used, cyc, 0);
		if (nc == 0 && nvb_lanes(g, r, k, lanes))
			nc = ham_all(lanes, k, path, 1, used, cyc, 0);
		nr = pick_cycles(lanes, k, cyc, nc, rings, r);
	}
	free(lanes);
	free(path);
	free(cyc);
	free(used);
	return nr;
}
