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
	int gpus_per_node, nics_per_node;
};

/* Vertices that forward traffic: switches and the CPU root complex. */
static inline bool topo_transit(topo_vkind k)
{
	return k == TOPO_V_NVSWITCH || k == TOPO_V_PCIE_SWITCH || k == TOPO_V_CPU ||
	       k == TOPO_V_LEAF || k == TOPO_V_SPINE || k == TOPO_V_CORE;
}

/* Build the CSR adjacency (graph.c). */
int topo_index(topo_graph *g);

/* Fabric generators (fabric.c): add the switches and the NIC links. */
int topo_add_vertex(topo_graph *g, topo_vkind kind, int node, int index);
int topo_add_pair(topo_graph *g, int a, int b, topo_lkind kind, double Bps, double eff,
                  double lat_s, int lanes);
int topo_build_fabric(topo_graph *g);

#endif
