/* fabric.c - the scale-out fabric generators: single switch, fat trees of two
 * to four tiers with oversubscription, rail-optimized leaves, rail-only rails
 * and tori.
 *
 * Switch radix R from the NIC rate (one switch generation per link rate;
 * net_switch_radix, net.h, where the link report reads it too):
 *   >= 400 Gb/s: 64 (hardware.csv network,Switch NVIDIA Quantum-2
 *                 QM9700/QM9790 (NDR),radix)
 *   >= 200 Gb/s: 40 (network,Switch NVIDIA Quantum QM8700/QM8790 (HDR),radix)
 *   otherwise:   36 (network,Switch Mellanox SB7800 (EDR),radix)
 * (Ethernet and RoCE fabrics are assumed to use the same radix per rate.)
 * EFA: 64 whatever the rail rate (assumed: AWS publishes neither its
 * switches nor its topology; a radix of 64 keeps 64 p5 nodes, 2,048 rails,
 * on two tiers, where the 36 of a 100 Gb/s InfiniBand switch would need
 * three for 12 nodes).
 * A leaf with oversubscription o splits its ports down:up = o:1, so it has
 * (net_leaf_down)
 *   p = floor(R * o / (1 + o)) down ports (R/2 when non-blocking)
 * and a leaf with d NICs below it gets u = ceil(d / o) uplinks of the NIC rate.
 * Two tiers: the spines are S = ceil(sum u / R) switches of radix R; uplink
 * k of a leaf goes to spine k mod S (parallel cables when a leaf has more
 * uplinks than there are spines). With one leaf there are no spines. Spine 0
 * is the busiest, with sum ceil(u / S) ports; when that exceeds R (more
 * leaves than R when u = R/2: above 8 SUs of DGX H100, 64 leaves of 32
 * uplinks on 32 spines) the fabric gets three tiers instead, as NVIDIA's
 * larger SuperPODs and k-ary fat trees do (hardware.csv superpod,DGX
 * SuperPOD B200,16SU: "3-tier above 8 SU"):
 *   pods of h = R/2 consecutive leaves (rail-optimized: the largest multiple
 *   of the N leaves of an SU not above h, so SUs stay whole), U = the most
 *   uplinks of a leaf, U spines per pod: uplink k of a leaf goes to spine k
 *   of its pod, one cable per leaf and spine, so a spine has d <= h down
 *   ports (the pod's leaves with more than k uplinks) and d up;
 *   plane k = spine k of every pod; with P pods each core takes at most
 *   m = floor(R / P) cables from a pod, so a plane has C = ceil(d_max / m)
 *   cores (d_max = the largest pod) and uplink i of a spine goes to core
 *   i mod C of its plane: at most ceil(d / C) <= m cables from each pod,
 *   P m <= R ports per core, and every core of a plane reaches every full pod.
 *   16 SUs of DGX H100 (512 nodes, 128 leaves of 32 + 32 ports): P = 128 /
 *   32 = 4 pods, 4 x 32 = 128 spines, m = 16, C = 2, 32 planes x 2 = 64
 *   cores: 128 leaf / 128 spine / 64 core as the B200 row lists (same
 *   radix-64 NDR switches, 32-node SUs, 8 rails); 64 SUs (2048 nodes): P =
 *   16, 512 spines, m = 4, C = 8, 256 cores (hardware.md section 10, B200
 *   64 SU: 512 / 512 / 256). More than R pods take a fourth tier:
 *   zones of Z = R/2 pods, each zone's cores built as above but with R/2
 *   ports down (m = (R/2) / Z = 1 cable from each pod: C = dmax cores per
 *   plane) and as many up; supercore plane (k, c) = core (k, c) of every
 *   zone; with Q zones each supercore takes at most m' = floor(R / Q)
 *   cables from a zone, so a plane has S = ceil(u_max / m') supercores
 *   (u_max: the most up cables of a core) and up cable j of a core goes to
 *   supercore j mod S of its plane: Q m' <= R ports per supercore. 512 SUs
 *   of DGX H100 (16,384 nodes, 131,072 NICs: 4,096 leaves in 128 pods of
 *   32): Z = 32, Q = 4 zones, C = 32, 4,096 spines, 4,096 cores (32 up
 *   cables each), m' = 16, S = 2, 2,048 supercores. More than R zones would
 *   need a fifth tier: not generated (SIM_ERANGE; R zones x R/2 pods x R/2
 *   leaves, 2,097,152 NICs at radix 64, past the GPUs a graph is built for).
 *   A single pod (P = 1: more leaves than two tiers with k mod S cabling
 *   fit, at most h of them) has no cores: one cable per leaf and spine.
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
 *   rail-only:      Wang et al. 2023 ("Rail-only: A Low-Cost High-Performance
 *                   Network for Training LLMs with Trillion Parameters",
 *                   arXiv 2307.12169, section 4): the rail-optimized leaves
 *                   (one per rail per unit of p nodes) without the spines
 *                   that join the rails: rail j's leaves get a fat tree of
 *                   their own, built by the tier rules above (pods of R/2
 *                   leaves), and no link joins two rails. Leaves are numbered
 *                   rail-major (leaf j U + u: rail j, unit u of U), so a rail's
 *                   leaves are consecutive; every rail has the same shape. Up
 *                   to p nodes a rail is one switch (32 DGX H100 at NDR: 8
 *                   rail switches, no spine); 33 to p R/2 nodes take two
 *                   tiers per rail (1,024 DGX H100: 32 leaves and 16 spines
 *                   per rail); past that three or four. A flow between rails
 *                   leaves through its node's NIC on the destination's rail,
 *                   reached over NVLink (PXN, route.c).
 *   efa:            built as fat-tree (AWS does not publish its EFA fabric;
 *                   a non-blocking fat tree unless oversubscription says
 *                   otherwise); the EFA model (net.h) adds what NCCL over
 *                   aws-ofi-nccl pays on it.
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
 * A one-node cluster has no fabric (its NICs stay unconnected).
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>

static topo_lkind nic_lkind(const net_node *nd)
{
	return nd->nic_kind == NET_NIC_ROCE       ? TOPO_L_ROCE
	       : nd->nic_kind == NET_NIC_ETHERNET ? TOPO_L_ETHERNET
	       : nd->nic_kind == NET_NIC_EFA      ? TOPO_L_EFA
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
	int N = g->nics_per_node, u = net_leaf_nodes(&g->cl);
	if (g->cl.fabric == NET_FABRIC_SINGLE)
		return 0;
	if (g->cl.fabric == NET_FABRIC_RAIL)
		return (n / u) * N + j;
	if (g->cl.fabric == NET_FABRIC_RAIL_ONLY)
		return j * ((g->cl.nodes + u - 1) / u) + n / u;
	if (u > 0)
		return n / u;
	int per_node = (N + p - 1) / p;
	return n * per_node + j / p;
}

/* Uplinks of a leaf with `down` NICs at oversubscription o. */
static int uplinks(int down, double o)
{
	return (int)ceil(down / o - 1e-9);
}

/* Leaves of pod p with more than k uplinks: the down (and up) cables of
 * spine (p, k). */
static int spine_cables(const int *up, int nleaves, int pod, int p, int k)
{
	int d = 0;
	for (int l = p * pod; l < nleaves && l < (p + 1) * pod; l++)
		d += up[l] > k;
	return d;
}

/* The cores of a three-tier fabric, above its spines (spine k of pod p is
 * vertex spine0 + p U + k; header comment). */
static int add_cores(topo_graph *g, int spine0, int nleaves, const int *up, int U, int pod, int R)
{
	int P = (nleaves + pod - 1) / pod, m = R / P, dmax = 0;
	for (int l = 0; l < nleaves; l++)
		dmax += l < pod && up[l] > 0;
	int C = (dmax + m - 1) / m, core0 = g->nv, rc = SIM_OK;
	g->core_plane = C;
	for (int c = 0; c < U * C && rc == SIM_OK; c++) {
		int v = topo_add_vertex(g, TOPO_V_CORE, -1, c);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int p = 0; p < P && rc == SIM_OK; p++)
		for (int k = 0; k < U && rc == SIM_OK; k++) {
			int d = spine_cables(up, nleaves, pod, p, k);
			for (int i = 0; i < d && rc == SIM_OK; i++)
				rc = fabric_link(g, spine0 + p * U + k, core0 + k * C + i % C);
		}
	return rc;
}

/* Four tiers (header comment): zones of R/2 pods with R/2 ports down per
 * core, supercores over the cores of every zone. Core (z, k, c) is vertex
 * core0 + (z U + k) C + c, supercore (k, c, s) super0 + (k C + c) S + s. */
static int add_zones(topo_graph *g, int spine0, int nleaves, const int *up, int U, int pod, int R)
{
	int P = (nleaves + pod - 1) / pod, Z = R / 2, Q = (P + Z - 1) / Z, dmax = 0;
	if (Q > R)
		return SIM_ERANGE;
	for (int l = 0; l < nleaves; l++)
		dmax += l < pod && up[l] > 0;
	int C = dmax > 0 ? dmax : 1; /* m = (R/2) / Z = 1 cable per pod */
	int *dn = calloc((size_t)Q * U * C + 1, sizeof *dn), rc = dn ? SIM_OK : SIM_ENOMEM;
	int core0 = g->nv, umax = 0;
	for (int c = 0; c < Q * U * C && rc == SIM_OK; c++) {
		int v = topo_add_vertex(g, TOPO_V_CORE, -1, c);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int p = 0; p < P && rc == SIM_OK; p++)
		for (int k = 0; k < U && rc == SIM_OK; k++) {
			int d = spine_cables(up, nleaves, pod, p, k), z = p / Z;
			for (int i = 0; i < d && rc == SIM_OK; i++) {
				int c = (z * U + k) * C + i % C;
				rc = fabric_link(g, spine0 + p * U + k, core0 + c);
				umax = ++dn[c] > umax ? dn[c] : umax;
			}
		}
	int m = R / Q, S = (umax + m - 1) / m, super0 = g->nv;
	g->core_plane = C;
	g->super_plane = S;
	for (int x = 0; x < U * C * S && rc == SIM_OK; x++) {
		int v = topo_add_vertex(g, TOPO_V_SUPER, -1, x);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int z = 0; z < Q && rc == SIM_OK; z++)
		for (int kc = 0; kc < U * C && rc == SIM_OK; kc++) {
			int c = z * U * C + kc;
			for (int j = 0; j < dn[c] && rc == SIM_OK; j++)
				rc = fabric_link(g, core0 + c, super0 + kc * S + j % S);
		}
	free(dn);
	return rc;
}

/* Pods of `pod` leaves, U spines each, cores above when there are several
 * pods, zones and supercores past R pods (header comment). */
static int add_pods(topo_graph *g, int leaf0, int nleaves, const int *up, int pod, int R)
{
	int P = (nleaves + pod - 1) / pod, U = 0, spine0 = g->nv, rc = SIM_OK;
	if ((P + R / 2 - 1) / (R / 2) > R)
		return SIM_ERANGE;
	for (int l = 0; l < nleaves; l++)
		U = up[l] > U ? up[l] : U;
	for (int s = 0; s < P * U && rc == SIM_OK; s++) {
		int v = topo_add_vertex(g, TOPO_V_SPINE, -1, s);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int l = 0; l < nleaves && rc == SIM_OK; l++)
		for (int k = 0; k < up[l] && rc == SIM_OK; k++)
			rc = fabric_link(g, leaf0 + l, spine0 + (l / pod) * U + k);
	if (rc == SIM_OK && P > R)
		rc = add_zones(g, spine0, nleaves, up, U, pod, R);
	else if (rc == SIM_OK && P > 1)
		rc = add_cores(g, spine0, nleaves, up, U, pod, R);
	return rc;
}

static int add_spines(topo_graph *g, int leaf0, int nleaves, const int *down, double o, int R,
                      int pod)
{
	if (nleaves < 2)
		return SIM_OK;
	int *up = malloc((size_t)nleaves * sizeof *up);
	if (!up)
		return SIM_ENOMEM;
	int64_t up_total = 0;
	for (int l = 0; l < nleaves; l++)
		up_total += up[l] = uplinks(down[l], o);
	int S = (int)((up_total + R - 1) / R);
	if (S < 1)
		S = 1;
	int64_t busiest = 0; /* ports of spine 0 */
	for (int l = 0; l < nleaves; l++)
		busiest += (up[l] + S - 1) / S;
	int rc = SIM_OK;
	if (busiest > R)
		rc = add_pods(g, leaf0, nleaves, up, pod, R);
	int spine0 = g->nv;
	for (int s = 0; s < S && busiest <= R && rc == SIM_OK; s++) {
		int v = topo_add_vertex(g, TOPO_V_SPINE, -1, s);
		rc = v < 0 ? v : SIM_OK;
	}
	for (int l = 0; l < nleaves && busiest <= R && rc == SIM_OK; l++)
		for (int k = 0; k < up[l] && rc == SIM_OK; k++)
			rc = fabric_link(g, leaf0 + l, spine0 + k % S);
	free(up);
	return rc;
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

/* Leaves per pod of a three-tier fabric: R/2, whole SUs when rail-optimized. */
static int pod_leaves(const net_cluster *c, int R)
{
	int N = c->node.nics;
	return c->fabric == NET_FABRIC_RAIL && N <= R / 2 ? R / 2 / N * N : R / 2;
}

int topo_fabric_max_nodes(const net_cluster *c)
{
	int N = c->node.nics;
	if (c->fabric != NET_FABRIC_FAT_TREE && c->fabric != NET_FABRIC_RAIL &&
	    c->fabric != NET_FABRIC_EFA && c->fabric != NET_FABRIC_RAIL_ONLY)
		return INT32_MAX;
	if (N < 1)
		return INT32_MAX;
	int R = net_switch_radix(c), p = net_leaf_down(c);
	int64_t leaves = (int64_t)R * (R / 2) * pod_leaves(c, R), nodes; /* R zones of R/2 pods */
	if (c->fabric == NET_FABRIC_RAIL_ONLY)
		nodes = leaves * p; /* per rail: that many leaves of p nodes */
	else if (c->fabric == NET_FABRIC_RAIL)
		nodes = leaves / N * p; /* whole SUs of N leaves and p nodes */
	else if (N <= p)
		nodes = leaves * (p / N);
	else
		nodes = leaves / ((N + p - 1) / p);
	return nodes < INT32_MAX ? (int)nodes : INT32_MAX;
}

/* Rail j's switches above its leaves, vertices v0 .. nv - 1, are numbered
 * from 0 by add_spines; every rail has the same shape, so switch i of a kind
 * becomes j K + i (K: that kind's count in one rail), and "spine17" names one
 * switch of the cluster. */
static void rail_names(topo_graph *g, int v0, int j)
{
	int count[TOPO_V_KIND_COUNT] = {0};
	for (int v = v0; v < g->nv; v++)
		count[g->v[v].kind]++;
	for (int v = v0; v < g->nv; v++)
		g->v[v].index += j * count[g->v[v].kind];
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
	int R = net_switch_radix(c), p = net_leaf_down(c);
	int nleaves = leaf_of(g, c->nodes - 1, N - 1, p) + 1;
	int units = (c->nodes + p - 1) / p;
	if (c->fabric == NET_FABRIC_RAIL || c->fabric == NET_FABRIC_RAIL_ONLY)
		nleaves = units * N;
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
	if (c->fabric == NET_FABRIC_RAIL_ONLY) /* a fat tree per rail, none between */
		for (int j = 0, v0 = g->nv; j < N && rc == SIM_OK; j++, v0 = g->nv) {
			rc = add_spines(g, leaf0 + j * units, units, down + j * units, o, R, R / 2);
			rail_names(g, v0, j);
		}
	else if (rc == SIM_OK && c->fabric != NET_FABRIC_SINGLE)
		rc = add_spines(g, leaf0, nleaves, down, o, R, pod_leaves(c, R));
	free(down);
	return rc;
}
