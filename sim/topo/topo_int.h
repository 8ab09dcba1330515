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
typedef struct topo_mm_work {
	double *left; /* capacity not yet taken, per link */
	int *n;       /* unfrozen flows per link */
	char *sat;    /* link saturated this round */
	int *links;   /* the links some unfrozen flow crosses (nl of them) */
	int *flows;   /* the unfrozen flows (nf of them) */
	int nl, nf;
} topo_mm_work;
int topo_mm_alloc(topo_mm_work *w, int nlinks, int nflows);
void topo_mm_free(topo_mm_work *w);
/* Max-min rates of the flows w->flows[0..nf), which cross exactly the links
 * w->links[0..nl) (each listed once), flow f on path[off[f] .. off[f+1]):
 * into rate[f]. Consumes both lists. */
int topo_mm_solve(const double *cap, const int *off, const int *path, double *rate,
                  topo_mm_work *w);

#endif
