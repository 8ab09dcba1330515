/* fabric.c - the scale-out fabric generators: single switch, two-level fat
 * tree (leaf/spine) with oversubscription, and rail-optimized leaves.
 *
 * Switch radix R from the NIC rate (one switch generation per link rate):
 *   >= 400 Gb/s: 64 (hardware.csv network,Switch NVIDIA Quantum-2
 *                 QM9700/QM9790 (NDR),radix)
 *   >= 200 Gb/s: 40 (network,Switch NVIDIA Quantum QM8700/QM8790 (HDR),radix)
 *   otherwise:   36 (network,Switch Mellanox SB7800 (EDR),radix)
 * (Ethernet and RoCE fabrics are assumed to use the same radix per rate.)
 * A leaf with oversubscription o splits its ports down:up = o:1, so it has
 *   p = floor(R * o / (1 + o)) down ports (R/2 when non-blocking)
 * and a leaf with d NICs below it gets u = ceil(d / o) uplinks of the NIC rate.
 * The spines are S = ceil(sum u / R) switches of radix R; uplink k of a leaf
 * goes to spine k mod S (parallel cables when a leaf has more uplinks than
 * there are spines). With one leaf there are no spines.
 *
 *   fat-tree:       whole nodes per leaf: floor(p / N) nodes of N NICs (a node
 *                   with N > p NICs spans ceil(N / p) leaves).
 *   rail-optimized: scalable units of p nodes (32 on NDR: hardware.csv
 *                   superpod,DGX SuperPOD H100,su_size = 32 nodes; 20 on HDR:
 *                   superpod,DGX SuperPOD A100,su_size = 20 nodes); in each
 *                   unit one leaf per rail j joins NIC j of every node, so
 *                   same-rail traffic in a unit is one switch hop (hardware.md
 *                   section 16). 1 SU of DGX H100 gives 8 leaves and
 *                   ceil(8 * 32 / 64) = 4 spines, 4 SUs 32 leaves and 16
 *                   spines, as hardware.csv superpod,DGX SuperPOD
 *                   H100,1SU_switches and 4SU_switches list.
 *   single-switch:  one switch, every NIC on it.
 *   torus-2d/3d:    no switch hierarchy: every node has a router (a leaf
 *                   vertex) that its NICs join, and the routers form a
 *                   D-dimensional torus, each linked to its two neighbours in
 *                   every dimension by max(1, N / 2D) links of the NIC rate
 *                   (a node's N NICs' worth of bandwidth spread over its 2D
 *                   directions). The dimensions are the most balanced
 *                   factorisation of the node count (16 -> 4 x 4, 64 -> 4 x 4
 *                   x 4, a prime count a ring); traffic takes shortest paths
 *                   router to router (BFS with ECMP).
 * A one-node cluster has no fabric (its NICs stay unconnected). A third (core)
 * layer above 8 SUs is not generated: larger fabrics get more spines.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>

static int radix(const net_node *nd)
{
	double gbps = nd->nic_Bps * 8 / 1e9;
	return gbps >= 400 - 1e-6 ? 64 : gbps >= 200 - 1e-6 ? 40 : 36;
}

static topo_lkind nic_lkind(const net_node *nd)
{
	return nd->nic_kind == NET_NIC_ROCE       ? TOPO_L_ROCE
	       : nd->nic_kind == NET_NIC_ETHERNET ? TOPO_L_ETHERNET
	                                          : TOPO_L_IB;
}

static int fabric_link(topo_graph *g, int a, int b)
{
	const net_node *nd = &g->cl.node;
	return topo_add_pair(g, a, b, nic_lkind(nd), nd->nic_Bps, nd->nic_eff, g->cl.switch_lat_s,
	                     1);
}

/* Leaf of NIC j of node n, by fabric (see the header comment). */
static int leaf_of(const topo_graph *g, int n, int j, int p)
{
	int N = g->nics_per_node;
	if (g->cl.fabric == NET_FABRIC_SINGLE)
		return 0;
	if (g->cl.fabric == NET_FABRIC_RAIL)
		return (n / p) * N + j;
	if (N <= p)
		return n / (p / N);
	int per_node = (N + p - 1) / p;
	return n * per_node + j / p;
}

static int add_spines(topo_graph *g, int leaf0, int nleaves, const int *down, double o, int R)
{
	if (nleaves < 2)
		return SIM_OK;
	int64_t up_total = 0;
	for (int l = 0; l < nleaves; l++)
		up_total += (int64_t)ceil(down[l] / o - 1e-9);
	int S = (int)((up_total + R - 1) / R);
	if (S < 1)
		S = 1;
	int spine0 = g->nv;
	for (int s = 0; s < S; s++) {
		int v = topo_add_vertex(g, TOPO_V_SPINE, -1, s);
		if (v < 0)
			return v;
	}
	for (int l = 0; l < nleaves; l++) {
		int u = (int)ceil(down[l] / o - 1e-9);
		for (int k = 0; k < u; k++) {
			int rc = fabric_link(g, leaf0 + l, spine0 + k % S);
			if (rc != SIM_OK)
				return rc;
		}
	}
	return SIM_OK;
}

/* The most balanced factorisation of n into d factors, dims[0] <= ... */
static void torus_dims(int n, int d, int *dims)
{
	for (int i = 0; i < d; i++)
		dims[i] = 1;
	int rest = n;
	for (int i = 0; i < d - 1; i++) {
		int k = d - i, best = 1; /* the largest divisor <= rest^(1/k) */
		for (int f = 1; (double)f <= pow(rest, 1.0 / k) + 1e-9; f++)
			if (rest % f == 0)
				best = f;
		dims[i] = best;
		rest /= best;
	}
	dims[d - 1] = rest;
}

static int build_torus(topo_graph *g, int D)
{
	const net_cluster *c = &g->cl;
	int N = g->nics_per_node, dims[3], r0 = g->nv, rc = SIM_OK;
	torus_dims(c->nodes, D, dims);
	for (int n = 0; n < c->nodes && rc == SIM_OK; n++) {
		int v = topo_add_vertex(g, TOPO_V_LEAF, -1, n);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int n = 0; n < c->nodes && rc == SIM_OK; n++)
		for (int j = 0; j < N && rc == SIM_OK; j++)
			rc = fabric_link(g, g->nic[(size_t)n * N + j], r0 + n);
	const net_node *nd = &c->node;
	int per = N / (2 * D) > 1 ? N / (2 * D) : 1, stride = 1;
	for (int d = 0; d < D && rc == SIM_OK; stride *= dims[d], d++) {
		if (dims[d] < 2)
			continue;
		for (int n = 0; n < c->nodes && rc == SIM_OK; n++) {
			int coord = (n / stride) % dims[d];
			int next = n + ((coord + 1) % dims[d] - coord) * stride;
			if (dims[d] == 2 && coord == 1)
				continue; /* a 2-ring has one neighbour: link it once */
			rc = topo_add_pair(g, r0 + n, r0 + next, nic_lkind(nd), nd->nic_Bps, nd->nic_eff,
					   c->switch_lat_s, per);
		}
	}
	return rc;
}

int topo_build_fabric(topo_graph *g)
{
	const net_cluster *c = &g->cl;
	int N = g->nics_per_node;
	if (c->nodes < 2 || N < 1)
		return SIM_OK;
	if (c->fabric == NET_FABRIC_TORUS2D || c->fabric == NET_FABRIC_TORUS3D)
		return build_torus(g, c->fabric == NET_FABRIC_TORUS2D ? 2 : 3);
	double o = c->oversubscription >= 1 ? c->oversubscription : 1;
	int R = radix(&c->node);
	int p = (int)floor(R * o / (1 + o));
	if (p < 1)
		p = 1;
	int nleaves = leaf_of(g, c->nodes - 1, N - 1, p) + 1;
	if (c->fabric == NET_FABRIC_RAIL)
		nleaves = ((c->nodes + p - 1) / p) * N;
	int *down = calloc((size_t)nleaves, sizeof *down);
	if (!down)
		return SIM_ENOMEM;
	int leaf0 = g->nv, rc = SIM_OK;
	for (int l = 0; l < nleaves && rc == SIM_OK; l++) {
		int v = topo_add_vertex(g, TOPO_V_LEAF, -1, l);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int n = 0; n < c->nodes && rc == SIM_OK; n++)
		for (int j = 0; j < N && rc == SIM_OK; j++) {
			int l = leaf_of(g, n, j, p);
			down[l]++;
			rc = fabric_link(g, g->nic[(size_t)n * N + j], leaf0 + l);
		}
	if (rc == SIM_OK && c->fabric != NET_FABRIC_SINGLE)
		rc = add_spines(g, leaf0, nleaves, down, o, R);
	free(down);
	return rc;
}
