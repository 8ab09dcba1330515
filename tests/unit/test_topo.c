/* test_topo.c - the link graph (vertex and link counts, diameter, bisection),
 * ECMP routing, collectives on the graph against net's alpha-beta model, and
 * the vTrain A100 all-reduce tables (tests/cases/microbench.csv). Runs from
 * the source root (meson's workdir). */
#include "../../sim/cases/cases.h"
#include "../../sim/topo/topo.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* A cluster of `nodes` copies of a shipped node file. */
static int load(const char *node_file, int nodes, const char *extra, net_cluster *c)
{
	char text[512];
	snprintf(text, sizeof text,
	         "include = topologies/nodes/%s.ini\n[cluster]\nname = t\nnodes = %d\n%s\n",
	         node_file, nodes, extra ? extra : "");
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	int rc = conf_load_string(text, strlen(text), "<test>", ".", d, &doc);
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, c, d);
	sim_diag_print(d, stderr);
	conf_free(doc);
	sim_diag_free(d);
	return rc;
}

static topo_graph *build(const char *node_file, int nodes, const char *extra)
{
	net_cluster c;
	topo_graph *g = NULL;
	if (!CHECK(load(node_file, nodes, extra, &c) == SIM_OK))
		return NULL;
	CHECK_INT(topo_build(&c, &g), SIM_OK);
	return g;
}

static void dgx_a100_node(void)
{
	/* One DGX A100: 8 GPUs, 1 NVSwitch vertex, ceil(8/2) = 4 PCIe switches,
	 * 1 CPU, 8 NICs, 1 NVMe = 23 vertices. Cable pairs: 8 GPU-NVSwitch,
	 * 8 GPU-PCIe, 8 NIC-PCIe, 4 PCIe-CPU, 1 NVMe-CPU = 29, so 58 directed
	 * links: 16 nvswitch, 42 pcie. One node has no fabric. */
	topo_graph *g = build("dgx-a100-80g", 1, NULL);
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.nvertices, 23);
	CHECK_INT(s.vertices[TOPO_V_GPU], 8);
	CHECK_INT(s.vertices[TOPO_V_NVSWITCH], 1);
	CHECK_INT(s.vertices[TOPO_V_PCIE_SWITCH], 4);
	CHECK_INT(s.vertices[TOPO_V_NIC], 8);
	CHECK_INT(s.vertices[TOPO_V_LEAF], 0);
	CHECK_INT(s.nlinks, 58);
	CHECK_INT(s.links[TOPO_L_NVSWITCH], 16);
	CHECK_INT(s.links[TOPO_L_PCIE], 42);
	/* Any GPU pair: GPU -> NVSwitch -> GPU, 2 links. */
	CHECK_INT(s.diameter_hops, 2);
	/* GPUs 0-3 to 4-7: four 300 GB/s NVSwitch ports, plus the PCIe path of
	 * switches 0 and 1 (GPUs 0-3) up to the CPU and down switches 2 and 3:
	 * 2 x 31.5 GB/s. 1200 + 63 = 1263 GB/s. */
	CHECK_NEAR(s.bisection_Bps, 1263e9, 1e-9);
	CHECK_NEAR(s.inject_scaleup_Bps, 300e9, 1e-12);
	CHECK_NEAR(s.inject_net_Bps, 25e9, 1e-12);
	char name[32];
	topo_vertex_name(g, topo_gpu(g, 3), name, sizeof name);
	CHECK_STR(name, "n0/gpu3");
	topo_free(g);
}

static void fat_tree_4(void)
{
	/* 4 DGX A100 on HDR (200 Gb/s: radix 40, 20 down ports per leaf when
	 * non-blocking): floor(20 / 8) = 2 nodes per leaf, 2 leaves of 16 NICs,
	 * 16 uplinks each, ceil(32 / 40) = 1 spine. Vertices 4 x 23 + 2 + 1 = 95;
	 * links 4 x 58 + 2 x 32 (NIC-leaf) + 2 x 32 (leaf-spine) = 360, of which
	 * 128 are ib. */
	topo_graph *g = build("dgx-a100-80g", 4, "fabric = fat-tree");
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.nvertices, 95);
	CHECK_INT(s.vertices[TOPO_V_LEAF], 2);
	CHECK_INT(s.vertices[TOPO_V_SPINE], 1);
	CHECK_INT(s.nlinks, 360);
	CHECK_INT(s.links[TOPO_L_IB], 128);
	/* GPU -> PCIe -> NIC -> leaf -> spine -> leaf -> NIC -> PCIe -> GPU. */
	CHECK_INT(s.diameter_hops, 8);
	/* Nodes 0, 1 (leaf 0) vs 2, 3 (leaf 1): the 16 leaf-spine cables of
	 * 25 GB/s are the cut: 400 GB/s. */
	CHECK_NEAR(s.bisection_Bps, 400e9, 1e-9);

	/* ECMP: same pair, same path; the 8 rail pairs n0/gpu i -> n2/gpu i
	 * spread over several of leaf 0's 16 parallel uplinks. */
	int p1[TOPO_MAX_HOPS], p2[TOPO_MAX_HOPS], up[8];
	int h1 = topo_route_gpus(g, 0, 16, -1, -1, p1, TOPO_MAX_HOPS);
	int h2 = topo_route_gpus(g, 0, 16, -1, -1, p2, TOPO_MAX_HOPS);
	CHECK_INT(h1, 8);
	CHECK(h1 == h2 && !memcmp(p1, p2, sizeof(int) * (size_t)h1));
	int distinct = 0;
	for (int i = 0; i < 8; i++) {
		CHECK_INT(topo_route_gpus(g, i, 16 + i, -1, -1, p1, TOPO_MAX_HOPS), 8);
		up[i] = p1[3]; /* leaf -> spine */
		CHECK_INT(topo_vertex_at(g, topo_link_at(g, up[i])->dst)->kind, TOPO_V_SPINE);
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= up[j] == up[i];
		distinct += !seen;
	}
	CHECK(distinct >= 3);
	/* A GPU never forwards: no route ends anywhere but at its target. */
	CHECK_INT(topo_route(g, topo_gpu(g, 0), topo_gpu(g, 0), p1, TOPO_MAX_HOPS), 0);
	topo_free(g);
}

static void rail_superpod(void)
{
	/* topologies/dgx-h100-superpod.ini: 32 DGX H100 (NDR, radix 64, 32 down
	 * ports), one SU: one leaf per rail = 8 leaves, 8 x 32 uplinks / 64 =
	 * 4 spines (hardware.csv superpod,DGX SuperPOD H100,1SU_switches).
	 * Same rail: GPU -> PCIe -> NIC -> leaf -> NIC -> PCIe -> GPU = 6 links. */
	topo_graph *g = build("dgx-h100", 32, "fabric = rail-optimized");
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.vertices[TOPO_V_LEAF], 8);
	CHECK_INT(s.vertices[TOPO_V_SPINE], 4);
	int p[TOPO_MAX_HOPS];
	CHECK_INT(topo_route_gpus(g, 3, 8 * 20 + 3, -1, -1, p, TOPO_MAX_HOPS), 6);
	CHECK_INT(topo_route_gpus(g, 3, 8 * 20 + 4, -1, -1, p, TOPO_MAX_HOPS), 8);
	/* 16 nodes a side, 128 rail NICs of 50 GB/s each way into the leaves:
	 * non-blocking, so the cut is 128 x 50 GB/s = 6.4 TB/s. */
	CHECK_NEAR(s.bisection_Bps, 6.4e12, 1e-9);
	topo_free(g);
}

static void dgx1_mesh(void)
{
	/* DGX-1 hybrid cube mesh: every GPU has 4 NVLink neighbours (16 cable
	 * pairs, 32 directed nvlink links) with 6 bricks in all. */
	topo_graph *g = build("dgx1-v100", 1, NULL);
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.links[TOPO_L_NVLINK], 32);
	CHECK_NEAR(s.inject_scaleup_Bps, 150e9, 1e-12);
	/* GPU 0 and GPU 5 have no direct link: NCCL goes through a GPU linked
	 * to both (NVB). 0's neighbours are 1 (1 brick), 2 (1), 3 (2), 4 (2); 5's
	 * are 1 (2), 4 (1), 6 (2), 7 (1): GPUs 1 and 4 qualify, both with 1
	 * brick on the narrower side; the first, GPU 1, is taken: 0 -> 1 -> 5. */
	int p[TOPO_MAX_HOPS];
	CHECK_INT(topo_route_gpus(g, 0, 5, -1, -1, p, TOPO_MAX_HOPS), 2);
	CHECK_INT(topo_link_at(g, p[0])->dst, topo_gpu(g, 1));
	CHECK_INT(topo_link_at(g, p[1])->dst, topo_gpu(g, 5));
	CHECK_INT(topo_link_at(g, p[1])->kind, TOPO_L_NVLINK);
	/* GPUs 0-4: GPU 4's only direct neighbour among them is 0, so no ring
	 * exists over direct links; with NVB arcs the rings stay on NVLink (the
	 * busiest link is one), at least one brick's 25 GB/s x 0.897 of busbw
	 * (PCIe through the CPU would give at most 15.75 GB/s). */
	int r5[5] = {0, 1, 2, 3, 4};
	topo_cost c5;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r5, 5, GIB, TOPO_ALGO_RING, &c5), SIM_OK);
	CHECK_INT(topo_link_at(g, c5.hot_link)->kind, TOPO_L_NVLINK);
	CHECK(2 * 4 / 5.0 * GIB / c5.bw_time_s >= 25e9 * 0.897);
	/* Ring all-reduce on the 8 GPUs: the ring search should find 6 rings of
	 * one brick per arc, reaching the alpha-beta busbw (6 x 25 x 0.897). */
	int r[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	topo_cost c;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 8, GIB, TOPO_ALGO_RING, &c), SIM_OK);
	net_group grp = {8, 8, 1, 1};
	net_cost ab;
	CHECK_INT(net_collective(topo_cluster(g), NET_ALLREDUCE, &grp, GIB, &ab), SIM_OK);
	printf("dgx-1 ring all-reduce 1 GiB: %d rings, flow %.1f us, alpha-beta %.1f us\n",
	       c.channels, c.time_s * 1e6, ab.time_s * 1e6);
	CHECK_INT(c.channels, 6);
	CHECK_NEAR(c.time_s, ab.time_s, 0.01);
	topo_free(g);
}

/* The flow model against net_collective on uncongested groups. */
static void against_alpha_beta(void)
{
	topo_graph *g = build("dgx-a100-80g", 2, NULL);
	if (!g)
		return;
	int r[16];
	for (int i = 0; i < 16; i++)
		r[i] = i;
	const net_cluster *cl = topo_cluster(g);
	/* 8 GPUs on one NVSwitch node, 1 GiB: each ring step is one flow per GPU
	 * port, t_bw = 2(n-1)/n * S / (300 GB/s * 0.767), as alpha-beta. */
	topo_cost c;
	net_cost ab;
	net_group g8 = {8, 8, 1, 1}, g16 = {16, 8, 2, 1};
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 8, GIB, TOPO_ALGO_RING, &c), SIM_OK);
	CHECK_INT(net_collective(cl, NET_ALLREDUCE, &g8, GIB, &ab), SIM_OK);
	CHECK_NEAR(c.time_s, ab.time_s, 0.05);
	CHECK_NEAR(c.bw_time_s, 14.0 / 8 * GIB / (300e9 * 0.767), 1e-6);
	CHECK_INT(c.algo, TOPO_ALGO_RING);
	/* 16 GPUs on 2 nodes: 8 rail-aligned rings, each crossing on one NIC of
	 * 25 GB/s * 0.96 = 24 GB/s: busbw 8 x 24 = 192 GB/s, as alpha-beta
	 * (hardware.csv efficiency,NCCL all-reduce busbw DGX A100 2 nodes,
	 * inter_node_8xHDR = 192 GB/s). */
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_RING, &c), SIM_OK);
	CHECK_INT(net_collective(cl, NET_ALLREDUCE, &g16, GIB, &ab), SIM_OK);
	CHECK_INT(c.channels, 8);
	CHECK_NEAR(c.time_s, ab.time_s, 0.05);
	CHECK_NEAR(c.bw_time_s, 30.0 / 16 * GIB / 192e9, 1e-6);
	/* All-gather: half the steps of all-reduce. */
	topo_cost ag;
	CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 8, GIB, TOPO_ALGO_RING, &ag), SIM_OK);
	CHECK_NEAR(ag.bw_time_s, 7.0 / 8 * GIB / (300e9 * 0.767), 1e-6);
	/* All-to-all on one node: each GPU sends 7/8 S through its port. */
	CHECK_INT(topo_collective(g, NET_ALLTOALL, r, 8, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_NEAR(c.bw_time_s, 7.0 / 8 * GIB / (300e9 * 0.767), 1e-6);
	/* p2p between nodes: one flow through one NIC at 24 GB/s. */
	CHECK_INT(topo_collective(g, NET_P2P, r, 16, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_NEAR(c.bw_time_s, GIB / 24e9, 1e-6);
	/* Hierarchical and tree apply to all-reduce across nodes; auto picks the
	 * lower time of NCCL's ring and tree (hier only when forced). The tree's
	 * data time is at least the ring's x n/(n-1) (NCCL's tree ratio 0.5 vs
	 * the ring's n/(2(n-1))) and derated by 0.92, so at 1 GiB, where
	 * latency is negligible, ring wins: tree >= ring x 16/15 / 0.92. */
	topo_cost t, h, a;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_TREE, &t), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_HIER, &h), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_AUTO, &a), SIM_OK);
	topo_cost rg;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_RING, &rg), SIM_OK);
	CHECK(a.time_s <= t.time_s && a.time_s <= rg.time_s);
	CHECK_INT(a.algo, TOPO_ALGO_RING);
	CHECK(t.bw_time_s >= rg.bw_time_s * 16 / 15 * (1 - 1e-9));
	CHECK(h.time_s > 0);
	/* Wrong algorithm for the collective, duplicate ranks. */
	CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 8, GIB, TOPO_ALGO_TREE, &c), SIM_EINVAL);
	int dup[2] = {1, 1};
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, dup, 2, GIB, TOPO_ALGO_RING, &c), SIM_EINVAL);
	topo_free(g);
}

/* Oversubscription: a 2:1 tapered fat tree halves the cross-leaf rate. */
static void oversubscribed(void)
{
	/* HDR radix 40 at o = 2: floor(40 * 2 / 3) = 26 down ports, 3 nodes of
	 * 8 NICs per leaf; 6 nodes -> 2 leaves of 24 NICs with 12 uplinks each.
	 * Bisection (nodes 0-2 vs 3-5) = 12 x 25 GB/s = 300 GB/s. */
	topo_graph *g = build("dgx-a100-80g", 6, "oversubscription = 2");
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.vertices[TOPO_V_LEAF], 2);
	CHECK_NEAR(s.bisection_Bps, 300e9, 1e-9);
	topo_free(g);
}

/* vTrain's A100 all-reduce tables: flow model with algorithm auto, MAPE of the
 * time over all rows and of busbw over rows >= 1 MiB. */
static void vtrain_lut(void)
{
	sim_diag *d = sim_diag_new();
	cases_csv *csv = NULL;
	if (!CHECK(cases_csv_read("tests/cases/microbench.csv", &csv, d) == SIM_OK)) {
		sim_diag_free(d);
		return;
	}
	topo_graph *g = build("dgx-a100-80g", 1, NULL);
	int cid = cases_csv_col(csv, "id"), cn = cases_csv_col(csv, "gpus");
	int cb = cases_csv_col(csv, "bytes"), ct = cases_csv_col(csv, "time_us");
	double sum = 0, sum_ab = 0;
	int rows = 0;
	int r[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	for (size_t i = 0; g && i < cases_csv_rows(csv); i++) {
		if (strncmp(cases_csv_get(csv, i, cid), "LUT-A100-", 9))
			continue;
		int n = atoi(cases_csv_get(csv, i, cn));
		double bytes = atof(cases_csv_get(csv, i, cb)),
		       t = atof(cases_csv_get(csv, i, ct)) * 1e-6;
		topo_cost c;
		net_cost ab;
		net_group grp = {n, n, 1, 1};
		if (topo_collective(g, NET_ALLREDUCE, r, n, bytes, TOPO_ALGO_AUTO, &c) != SIM_OK ||
		    net_collective(topo_cluster(g), NET_ALLREDUCE, &grp, bytes, &ab) != SIM_OK ||
		    !(t > 0))
			continue;
		/* busbw error = time error: busbw = factor * S / t. */
		sum += fabs(c.time_s - t) / t;
		sum_ab += fabs(ab.time_s - t) / t;
		rows++;
	}
	double mape = rows ? sum / rows : 1, mape_ab = rows ? sum_ab / rows : 1;
	printf("vTrain A100 all-reduce (%d rows, 1-1024 MiB, 2-8 GPUs): MAPE flow %.2f%%, "
	       "alpha-beta %.2f%%\n",
	       rows, 100 * mape, 100 * mape_ab);
	CHECK_INT(rows, 1799);
	/* Issue #4 asks for <= 10 % on busbw for sizes >= 1 MiB (all these rows). */
	CHECK(mape <= 0.10);
	topo_free(g);
	cases_csv_free(csv);
	sim_diag_free(d);
}

/* A 2D torus of 16 DGX H100 (8 NICs each): 4 x 4 routers (leaf vertices),
 * each NIC joined to its node's router (128 x 2 directed ib links) and each
 * router to its +x and +y neighbour (16 x 2 pairs, 2 directed links each,
 * 8 NICs / 4 directions = 2 lanes a link): 256 + 64 = 320 ib links. The
 * farthest routers are 2 + 2 router hops apart, so GPU to GPU is GPU -> PCIe
 * -> NIC -> 5 routers -> NIC -> PCIe -> GPU: 10 hops. A prime node count
 * gives a ring (1 x n); 64 nodes in 3D a 4 x 4 x 4 torus (6 neighbours). */
static void torus(void)
{
	topo_graph *g = build("dgx-h100", 16, "fabric = torus-2d");
	if (!g)
		return;
	topo_summary s;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	CHECK_INT(s.vertices[TOPO_V_LEAF], 16);
	CHECK_INT(s.vertices[TOPO_V_SPINE], 0);
	CHECK_INT(s.links[TOPO_L_IB], 320);
	CHECK_INT(s.diameter_hops, 10);
	topo_free(g);
	g = build("dgx-h100", 64, "fabric = torus-3d");
	if (!g)
		return;
	CHECK_INT(topo_summarize(g, &s), SIM_OK);
	/* 64 x 8 NIC pairs + 64 routers x 3 dimensions x 2 directions: 1024 +
	 * 384; the farthest routers are 2 + 2 + 2 = 6 router hops apart, plus the
	 * 3 hops at each end (GPU -> PCIe -> NIC -> router): 12. */
	CHECK_INT(s.links[TOPO_L_IB], 64 * 8 * 2 + 64 * 3 * 2);
	CHECK_INT(s.diameter_hops, 6 + 6);
	topo_free(g);
}

int main(void)
{
	torus();
	dgx_a100_node();
	fat_tree_4();
	rail_superpod();
	dgx1_mesh();
	against_alpha_beta();
	oversubscribed();
	vtrain_lut();
	return check_done();
}
