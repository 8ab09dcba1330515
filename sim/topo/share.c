/* share.c - link graphs shared by the runs of one process (topo.h,
 * topo_graphs): a sweep's plans on one cluster time their collectives on one
 * graph instead of building it per plan.
 *
 * What is shared. A graph is a function of its net_cluster alone
 * (topo_build), so a graph built for cluster a serves every cluster b with
 * net_cluster_same(a, b): its vertices, links, CSR adjacency, capacities and
 * link classes are what topo_build(b) would make, and coll.c reads the rest
 * of the cluster (NCCL's latencies, the EFA terms) from the same fields. The
 * routing context (route.c) travels with it: its searches and fabric tables
 * are caches whose routes equal a fresh search's (route.c's header; the
 * resumable searches and the tables stand for complete searches), so a plan
 * routed on a graph that earlier plans used gets the routes a fresh graph
 * gives, only sooner. What a run changes (the flow simulation, the link
 * accumulators, the collectives' cache) stays in its own topo_cache.
 *
 * Memory. A graph takes about 650 bytes per GPU and its router up to 128
 * MiB (route.c); the set keeps the TOPO_GRAPHS_KEEP most recently used
 * graphs whose GPUs add up to at most TOPO_GRAPHS_GPUS (a sweep over
 * cluster.nodes or topologies needs one per cluster; plans are simulated in
 * the pre-screen's order, which mixes clusters), dropping the least recently
 * used first. Single-threaded, as routing on a graph is.
 */
#include "topo_int.h"

#include <stdlib.h>

typedef struct shelf {
	topo_graph *g;
	long long used; /* the set's clock at the last get */
} shelf;

struct topo_graphs {
	shelf s[TOPO_GRAPHS_KEEP];
	int n;
	long long now;
	int built, shared;
};

int topo_graphs_new(topo_graphs **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? SIM_OK : SIM_ENOMEM;
}

void topo_graphs_free(topo_graphs *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->n; i++)
		topo_free(set->s[i].g);
	free(set);
}

void topo_graphs_stats(const topo_graphs *set, int *built, int *shared)
{
	*built = set ? set->built : 0;
	*shared = set ? set->shared : 0;
}

/* Drop the least recently used graph but `keep`. */
static void drop_oldest(topo_graphs *set, const topo_graph *keep)
{
	int k = -1;
	for (int i = 0; i < set->n; i++)
		if (set->s[i].g != keep && (k < 0 || set->s[i].used < set->s[k].used))
			k = i;
	if (k < 0)
		return;
	topo_free(set->s[k].g);
	set->s[k] = set->s[--set->n];
}

int topo_graphs_get(topo_graphs *set, const net_cluster *c, const topo_graph **out)
{
	*out = NULL;
	if (!set || !c)
		return SIM_EINVAL;
	set->now++;
	for (int i = 0; i < set->n; i++)
		if (net_cluster_same(&set->s[i].g->cl, c)) {
			set->s[i].used = set->now;
			set->shared++;
			*out = set->s[i].g;
			return SIM_OK;
		}
	topo_graph *g;
	int rc = topo_build(c, &g);
	if (rc != SIM_OK)
		return rc;
	if (set->n == TOPO_GRAPHS_KEEP)
		drop_oldest(set, NULL);
	set->s[set->n++] = (shelf){g, set->now};
	for (;;) { /* the GPU budget: the new graph stays, even alone past it */
		int64_t gpus = 0;
		for (int i = 0; i < set->n; i++)
			gpus += set->s[i].g->cl.gpus;
		if (set->n == 1 || gpus <= TOPO_GRAPHS_GPUS)
			break;
		drop_oldest(set, g);
	}
	set->built++;
	*out = g;
	return SIM_OK;
}
