/* topo_int.h - internals shared by the files of sim/topo: the graph layout. */
#ifndef PODSIM_TOPO_INT_H
#define PODSIM_TOPO_INT_H

#include "topo.h"

struct topo_graph {
	net_cluster cl;
	topo_vertex *v;
	int nv, cap_v;
	topo_link *l;
	int nl, cap_l;
	/* CSR adjacency, built once after the last link: out-links of vertex u
	 * are out[out_off[u] .. out_off[u+1]), in-links likewise. */
	int *out_off, *out;
	int *in_off, *in;
	int *gpu; /* vertex of global GPU rank */
	int *nic; /* vertex of NIC node * nics + j */
	int *cpu; /* vertex of node n's CPU root complex (host memory) */
	int gpus_per_node, nics_per_node;
	/* Fabric shape for d-mod-k routing (route.c's choose), set at build:
	 * spine switches, and core switches per plane of a three-tier fabric
	 * (0 without a core layer; fabric.c). */
	int nspines, core_plane;
	/* supercores per plane of a four-tier fabric (0 without; fabric.c) */
	int super_plane;
	/* Per vertex: a NIC's destination index for d-mod-k, its place in
	 * leaf-major order (leaves in order, each one's NICs in port order, as
	 * OpenSM's ftree numbers the leaves' down ports); -1 for other vertices
	 * and NICs on no leaf. */
	int *dkey;
	/* Per link, set at build: its capacity (Bps x eff) and its link class
	 * (net_link_kind), read once per link by every flow simulation. */
	double *cap;
	uint8_t *lclass;
	/* Routing scratch (route.c): mutable through a const graph, so a graph
	 * is routed by one thread at a time. */
	struct topo_router *rt;
	/* The routes of the collectives' phases (memo.c), a cache of the same
	 * kind: every run on the graph (a sweep's plans, share.c) reuses them. */
	struct topo_memo *memo;
};

/* Vertices that forward traffic: switches and the CPU root complex. */
static inline bool topo_transit(topo_vkind k)
{
	return k == TOPO_V_NVSWITCH || k == TOPO_V_PCIE_SWITCH || k == TOPO_V_CPU ||
	       k == TOPO_V_LEAF || k == TOPO_V_SPINE || k == TOPO_V_CORE || k == TOPO_V_SUPER;
}

/* The direct NVLink link va -> vb, or -1 (route.c). */
int topo_nvlink(const topo_graph *g, int va, int vb);
/* The GPU of va's node with direct NVLinks va -> w -> vb and the most lanes
 * on the narrower of the two, or -1 (NCCL's NVB path; route.c). */
int topo_nvb_via(const topo_graph *g, int va, int vb);

/* topo_route_gpus with a preferred PXN relay for a's send into its NIC:
 * `relay`, a global GPU rank of a's node (the communicator member whose NIC
 * it is: a ring channel's entry rank), or -1 (route.c). */
int topo_route_gpus_via(const topo_graph *g, int a, int b, int nic_a, int nic_b, int relay,
                        int *path, int max);

/* Build the CSR adjacency (graph.c). */
int topo_index(topo_graph *g);

/* The routing context of g (route.c): searches allocated when first used. */
int topo_router_new(const topo_graph *g, struct topo_router **out);
void topo_router_free(struct topo_router *rt);

/* Fabric generators (fabric.c): add the switches and the NIC links. */
int topo_add_vertex(topo_graph *g, topo_vkind kind, int node, int index);
int topo_add_pair(topo_graph *g, int a, int b, topo_lkind kind, double Bps, double eff,
                  double lat_s, int lanes);
int topo_build_fabric(topo_graph *g);

/* Progressive filling's scratch (maxmin.c), per link and per flow. */
typedef struct topo_mm_ent {
	double key; /* link l's level when last computed (a lower bound) */
	int l;
} topo_mm_ent;
typedef struct topo_mm_work {
	double *left;      /* per link: capacity not taken by frozen flows */
	int *n;            /* per link: unfrozen flows */
	int *first, *last; /* per link: its flows in lf[first .. last) */
	topo_mm_ent *heap; /* links with unfrozen flows, by key */
	int *links;        /* the links some flow crosses (nl of them) */
	int *flows;        /* the flows to solve (nf of them) */
	char *frozen;      /* per flow */
	int *bott;         /* per flow: the link it froze on, its bottleneck */
	int *lf;           /* the links' flow lists (cap_lf entries; grows) */
	int nl, nf, nh, cap_lf;
} topo_mm_work;
int topo_mm_alloc(topo_mm_work *w, int nlinks, int nflows);
void topo_mm_free(topo_mm_work *w);
/* Max-min rates of the flows w->flows[0..nf), which cross exactly the links
 * w->links[0..nl) (each listed once), flow f on path[off[f] .. off[f+1]):
 * into rate[f]. Consumes both lists. */
int topo_mm_solve(const double *cap, const int *off, const int *path, double *rate,
                  topo_mm_work *w);

/* ------------------------------------------ sparse per-link accumulator -- */

/* Bytes and saturated time per graph link (acc.c), dense arrays that stay 0
 * except on the listed links: clearing and scanning cost the links a run
 * touched, not the graph's (the data-parallel reduce-scatter of a
 * 65,536-GPU step touches 3 % of its 868k links). Reused across calls by
 * its owner (topo_coll_ctx); a reused accumulator holds what a fresh one
 * would. */
typedef struct topo_acc {
	double *bytes, *sat; /* per graph link; 0 off the list */
	int *list;           /* the links that may be nonzero, each once (n) */
	uint8_t *on;         /* per link: 1 when listed */
	int n, nlinks;
} topo_acc;
int topo_acc_init(topo_acc *a, int nlinks);
void topo_acc_free(topo_acc *a);
/* Zero the listed links and empty the list: O(n). */
void topo_acc_clear(topo_acc *a);
/* List link l (once) before adding to it. */
static inline void topo_acc_touch(topo_acc *a, int l)
{
	if (!a->on[l]) {
		a->on[l] = 1;
		a->list[a->n++] = l;
	}
}
/* The list in increasing link order, so that a walk over it visits the
 * nonzero links in the order a scan of every link would (same sums, same
 * first-of-equals): O(n), a radix sort. */
void topo_acc_sort(topo_acc *a);

/* topo_sim_harvest into an accumulator (flow.c): adds repeat x each
 * touched link's counters to acc, listing the link; O(the flows' hops). */
void topo_sim_harvest_acc(topo_sim *s, double repeat, topo_acc *acc);
/* Each link the flows cross, once, with its counters (l, bytes, sat hold
 * at most the flows' total hops), then topo_sim_clear: what
 * topo_sim_harvest_acc would add, kept. The count, or -1 (out of memory). */
int topo_sim_take(topo_sim *s, int *l, double *bytes, double *sat);
/* From the next run on, link l's capacity is cap[l] / div[cls[l]] (cls
 * per link, div per class; cls NULL: cap[l], as built). The EFA model's
 * congestion derates NIC and fabric links per collective this way without
 * a new simulation (coll.c). */
void topo_sim_derate(topo_sim *s, const uint8_t *cls, const double div[NET_LINK_KIND_COUNT]);

/* ----------------------------------------------- routed phases (memo.c) -- */

/* A phase's flow instances as phase_run adds them (coll.c): instance f
 * carries the bytes of phase flow src[f] over split[f] rails, on links
 * links[off[f] .. off[f+1]). */
typedef struct topo_routed {
	int *src, *split, *off, *links;
	int n, nlinks;
} topo_routed;

/* Routes of the phases simulated on a graph, keyed on everything they
 * depend on (memo.c has the derivation); one per graph (topo_graph.memo). */
typedef struct topo_memo topo_memo;
int topo_memo_new(topo_memo **out);
void topo_memo_free(topo_memo *m);
/* The routes of the phase (groups[0 .. n * ngroups), rails, its flows
 * a, b, nic_a, nic_b [0 .. flows)), or NULL; the key stays for
 * topo_memo_keep. */
const topo_routed *topo_memo_find(topo_memo *m, int n, int ngroups, int rails, const int *groups,
                                  int flows, const int *a, const int *b, const int *nic_a,
                                  const int *nic_b);
/* Start routing the phase last looked up: the scratch, emptied. */
topo_routed *topo_memo_begin(topo_memo *m);
/* Append one routed instance to the scratch. SIM_OK or SIM_ENOMEM. */
int topo_memo_add(topo_memo *m, int src, int split, const int *links, int nlinks);
/* Remember the scratch under the key of the last find (when memory
 * allows; else it is simply not kept). */
void topo_memo_keep(topo_memo *m);

/* ---------------------------------------------------- phase outcomes -- */

/* A phase's simulation reused where only its bytes scale (outcome.c has the
 * derivation); one per collectives' context. */
typedef struct topo_outcomes topo_outcomes;
int topo_outcomes_new(topo_outcomes **out);
void topo_outcomes_free(topo_outcomes *oc);
/* Run w's flows (flow f carrying bytes[f], all from time 0) on sim, whose
 * NIC and fabric capacities are divided by div, or reuse the outcome of the
 * same flows in the same proportions: adds repeat x the makespan to *t_bw
 * and repeat x each crossed link's bytes and saturated seconds to acc. oc
 * NULL: always simulated with the call's own bytes. */
int topo_phase_sim(topo_outcomes *oc, topo_sim *sim, double div, const topo_routed *w,
                   const double *bytes, double repeat, double *t_bw, topo_acc *acc);
void topo_outcomes_stats(const topo_outcomes *oc, long long *hits, long long *misses);

/* ------------------------------------------------------------- rings -- */

/* The most rings (channels) a collective runs on here. */
#define MAX_RINGS 16
/* The rings of a one-node group of k ranks r on an NVLink-mesh node
 * (rings.c): each ring's rank order into rings[c * k ..]; the count, 0
 * where the node is no mesh, k is out of 2..16 or no ring exists. */
int topo_mesh_rings(const topo_graph *g, const int *r, int k, int *rings);

/* ------------------------------------------------ collectives' context -- */

/* What every collective on one graph reuses (coll.c): the flow simulation
 * over its links, the link accumulator of the one algorithm a call
 * simulates (NCCL's pick), and per-rank and per-node scratch that calls
 * leave as they found it. Allocated once per graph user (topo_cache holds one per
 * run), O(links + GPUs); a call then costs what its flows touch. */
typedef struct topo_coll_ctx {
	const topo_graph *g;
	topo_sim *sim;
	topo_acc acc;
	topo_outcomes *outcomes; /* the phases simulated, reused when scaled */
	int *pos;                /* per GPU rank: its index in the first group, else -1 */
	int *count;              /* per node: ranks of the group there, 0 between calls */
	int *first;              /* per node: its slot in the group's node order */
} topo_coll_ctx;
int topo_coll_ctx_new(const topo_graph *g, topo_coll_ctx **out);
void topo_coll_ctx_free(topo_coll_ctx *x);
/* topo_collective_groups on x: the same cost; on SIM_OK the chosen
 * algorithm's link loads are in x->acc, sorted (topo_acc_sort). */
int topo_coll_run(topo_coll_ctx *x, net_coll coll, const int *groups, int n, int ngroups,
                  double bytes, topo_algo algo, topo_cost *out);

#endif
