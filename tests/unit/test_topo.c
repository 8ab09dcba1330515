/* test_topo.c - the link graph (vertex and link counts, diameter, bisection),
 * ECMP routing, collectives on the graph against net's alpha-beta model, the
 * vTrain A100 all-reduce tables (tests/cases/microbench.csv), routes against
 * a plain BFS, and three-tier fabrics (switch counts, radix, d-mod-k). Runs
 * from the source root (meson's workdir). */
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
	/* GPUs 0-3 to 4-7 over the fabric NCCL uses: four 300 GB/s NVSwitch
	 * ports, 1200 GB/s. The PCIe path of switches 0 and 1 up to the CPU and
	 * down switches 2 and 3 (2 x 31.5 GB/s) is not counted: with NVLink NCCL
	 * never sends GPU to GPU through the host. */
	CHECK_NEAR(s.bisection_Bps, 1200e9, 1e-9);
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
	 * port, t_bw = 2(n-1)/n * S / B with B = 300 GB/s * 0.792, plus the
	 * ring's local step S / (n ring_local_bw) = S / (8 x 515 GB/s) (net
	 * coll.c), as alpha-beta. */
	double B = 300e9 * 0.792, L8 = 8 * 515e9;
	topo_cost c;
	net_cost ab;
	net_group g8 = {8, 8, 1, 1}, g16 = {16, 8, 2, 1};
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 8, GIB, TOPO_ALGO_RING, &c), SIM_OK);
	CHECK_INT(net_collective(cl, NET_ALLREDUCE, &g8, GIB, &ab), SIM_OK);
	CHECK_NEAR(c.time_s, ab.time_s, 0.05);
	CHECK_NEAR(c.bw_time_s, 14.0 / 8 * GIB / B + GIB / L8, 1e-6);
	CHECK_INT(c.algo, TOPO_ALGO_RING);
	/* 16 GPUs on 2 nodes: 8 rail-aligned rings, each crossing on one NIC of
	 * 25 GB/s * 0.96 = 24 GB/s: busbw 8 x 24 = 192 GB/s, as alpha-beta
	 * (hardware.csv efficiency,NCCL all-reduce busbw DGX A100 2 nodes,
	 * inter_node_8xHDR = 192 GB/s). */
	net_cluster ring_cl = *cl;
	ring_cl.algo = NET_ALGO_RING; /* NCCL's table's pick too (below) */
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_RING, &c), SIM_OK);
	CHECK_INT(net_collective(&ring_cl, NET_ALLREDUCE, &g16, GIB, &ab), SIM_OK);
	CHECK_INT(c.channels, 8);
	CHECK_NEAR(c.time_s, ab.time_s, 0.05);
	CHECK_NEAR(c.bw_time_s, 30.0 / 16 * GIB / 192e9, 1e-6);
	/* All-gather: half the link steps of all-reduce, one local step. */
	topo_cost ag;
	CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 8, GIB, TOPO_ALGO_RING, &ag), SIM_OK);
	CHECK_NEAR(ag.bw_time_s, 7.0 / 8 * GIB / B + GIB / L8, 1e-6);
	/* All-to-all on one node: each GPU sends 7/8 S through its port (no
	 * ring, no local step). */
	CHECK_INT(topo_collective(g, NET_ALLTOALL, r, 8, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_NEAR(c.bw_time_s, 7.0 / 8 * GIB / B, 1e-6);
	/* p2p between nodes: one flow through one NIC at 24 GB/s. */
	CHECK_INT(topo_collective(g, NET_P2P, r, 16, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_NEAR(c.bw_time_s, GIB / 24e9, 1e-6);
	/* Hierarchical and tree apply to all-reduce across nodes; auto runs
	 * NCCL's pick by its own table (net tune.c; hier only when forced). On
	 * 2 nodes NCCL's graphs have 8 channels of 24 GB/s (one per NIC,
	 * N search.cc:1039, 1052), the tree's bwIntra raised to min(2 x 24,
	 * 240/8) = 30 (search.cc:1278-1281): the tree's 220.8 GB/s is capped at
	 * 8 x perChMaxTreeBw 23.6 = 188.8, x 0.5 = 94.4 GB/s, below the ring's
	 * 8 x 24 x 16/30 = 102.4 GB/s (test_net.c test_nccl_table): auto is the
	 * ring, and the forced tree is slower. */
	topo_cost t, h, a;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_TREE, &t), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_HIER, &h), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_AUTO, &a), SIM_OK);
	topo_cost rg;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, GIB, TOPO_ALGO_RING, &rg), SIM_OK);
	CHECK_NEAR(a.time_s, rg.time_s, 1e-12);
	CHECK(t.time_s > rg.time_s);
	CHECK_INT(a.algo, TOPO_ALGO_RING);
	/* The forced tree on two nodes (net coll.c "tree", test_net.c
	 * test_tree_2nodes): the flows' busiest link is a GPU's port, its
	 * chain's 1.75 S up and down at B (the NICs carry S per node at 192
	 * GB/s), no ring bound; NCCL's per-channel ceiling, 8 x 23.6 x 0.5 =
	 * 94.4 GB/s, binds over the links' 0.92 B / 1.75 = 124.9 GB/s, in both
	 * models (the old flow tree: at least the ring's x 16/15). */
	printf("2 x dgx-a100 tree 1 GiB: flow t_bw %.1f us, time %.1f us\n", t.bw_time_s * 1e6,
	       t.time_s * 1e6);
	CHECK_NEAR(t.bw_time_s, 1.75 * GIB / B, 1e-6);
	CHECK_NEAR(t.time_s - t.latency_s - cl->node.coll_overhead_s, GIB / 94.4e9, 1e-9);
	net_cluster tree_cl = *cl;
	tree_cl.algo = NET_ALGO_TREE;
	CHECK_INT(net_collective(&tree_cl, NET_ALLREDUCE, &g16, GIB, &ab), SIM_OK);
	CHECK_NEAR(t.time_s, ab.time_s, 1e-9);
	CHECK(h.time_s > 0);
	/* Wrong algorithm for the collective, duplicate ranks. */
	CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 8, GIB, TOPO_ALGO_TREE, &c), SIM_EINVAL);
	int dup[2] = {1, 1};
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, dup, 2, GIB, TOPO_ALGO_RING, &c), SIM_EINVAL);
	topo_free(g);
}

/* NVLS on one DGX H100 (issue 14): the flow model picks the in-switch
 * reduction as NCCL's tuner does, and agrees with alpha-beta. 8 GPUs, 1 GiB:
 * the ports carry (n+1)/n S = 9/8 GiB each way at 450 GB/s x 0.822 = 370
 * GB/s (3.26 ms), below the switch's ceiling 2(n-1)/n S / nvls_busbw =
 * 14/8 GiB / 480 GB/s = 3.91 ms, so t_bw = 3.91 ms and busbw = 480 GB/s
 * less the latency (NCCL's NVLS constant, 25 us: N tuning.cc:161, 424-425):
 * nccl-tests measures ~480 GB/s (S22,
 * hardware.csv efficiency,NCCL all-reduce busbw DGX/HGX H100,nvls_peak).
 * The ring alone would give 450 x 0.822 = 370 GB/s. */
static void nvls_dgx_h100(void)
{
	topo_graph *g = build("dgx-h100", 1, NULL);
	if (!g)
		return;
	int r[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	topo_cost c, ring;
	net_cost ab;
	net_group g8 = {8, 8, 1, 1};
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 8, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_INT(net_collective(topo_cluster(g), NET_ALLREDUCE, &g8, GIB, &ab), SIM_OK);
	CHECK_INT(c.algo, TOPO_ALGO_NVLS);
	CHECK_INT(ab.algo, NET_ALGO_NVLS);
	CHECK_NEAR(c.bw_time_s, 14.0 / 8 * GIB / 480e9, 1e-9);
	CHECK_NEAR(c.busbw_Bps, 480e9, 0.10);
	CHECK_NEAR(ab.time_s, c.time_s, 1e-6);
	CHECK_NEAR(c.time_s, 25e-6 + 14.0 / 8 * GIB / 480e9, 1e-9);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 8, GIB, TOPO_ALGO_RING, &ring), SIM_OK);
	CHECK_NEAR(ring.busbw_Bps, 370e9, 0.02);
	/* Forced NVLS applies to all-reduce only. On two ranks the ports bind:
	 * 3/2 S each way at 370 GB/s = 4.35 ms above the ceiling S / 480 GB/s
	 * = 2.24 ms, and above the ring's S / 370 GB/s = 2.90 ms; NCCL's table
	 * (net tune.c) still picks NVLS: 16 channels of 370.8/16 GB/s x 0.85 x
	 * 15/16 x 2 = 591 GB/s bus, x n/nsteps = 1, against the ring's 370.8,
	 * so both models run NVLS there and time it slower than the ring. */
	net_group g2 = {2, 2, 1, 1};
	CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 8, GIB, TOPO_ALGO_NVLS, &c), SIM_EINVAL);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 2, GIB, TOPO_ALGO_NVLS, &c), SIM_OK);
	CHECK_NEAR(c.bw_time_s, 1.5 * GIB / (450e9 * 0.822), 1e-9);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 2, GIB, TOPO_ALGO_AUTO, &c), SIM_OK);
	CHECK_INT(net_collective(topo_cluster(g), NET_ALLREDUCE, &g2, GIB, &ab), SIM_OK);
	CHECK_INT(c.algo, TOPO_ALGO_NVLS);
	CHECK_INT(ab.algo, NET_ALGO_NVLS);
	CHECK_NEAR(c.bw_time_s, 1.5 * GIB / (450e9 * 0.822), 1e-9);
	topo_free(g);
	/* Across two nodes NVLS (without SHARP) does not apply. */
	g = build("dgx-h100", 2, NULL);
	if (!g)
		return;
	int r16[16];
	for (int i = 0; i < 16; i++)
		r16[i] = i;
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, r16, 16, GIB, TOPO_ALGO_NVLS, &c), SIM_EINVAL);
	topo_free(g);
}

/* The EFA model on the graph (fabric = efa): every flow between nodes is
 * split over the sender's 4 rails (p5: 32 EFA per 8 GPUs), the rails run at
 * rail_bw / kappa(m), and the latencies carry net's EFA terms, so on the
 * uncongested non-blocking fabric the flow model equals alpha-beta: ring
 * all-gather on 4 nodes (8 channels, each crossing on its head GPU's 4
 * rails: 8 x 4 x 10 GB/s = 320 GB/s = B_nic), the tree forced on 16 nodes
 * (two tiers at radix 64: 16 leaves of 32 rails), NVLSTree on 2 nodes (each
 * rank's shard S/8 crosses once each way over its 4 rails, S / 320 GB/s =
 * 0.84 ms, under the NVLS ceiling 2(n-1)/n S / 480 GB/s = 1.05 ms, which
 * binds), and all of them with congestion (kappa(4) = 1 + 0.2 x 3 = 1.6
 * stretches the rails) and the per-call sync delay (net_sync_delay, 300 us
 * (m-1): both models add net's figure to the algorithm they picked; for the
 * all-gather on 4 nodes 900 us, whatever its size). */
static void efa_rails(void)
{
	const char *keys = "fabric = efa\nnet_latency = 40 us\nmsg_overhead = 2 us\n"
	                   "rail_bw = 10 GB/s\ncongestion = %s\ncongestion_exp = 1\nsync_delay = %s";
	for (int cong = 0; cong < 2; cong++) {
		char extra[256];
		snprintf(extra, sizeof extra, keys, cong ? "0.2" : "0", cong ? "300 us" : "0 us");
		topo_graph *g = build("p5-h100", 16, extra);
		if (!g)
			return;
		const net_cluster *cl = topo_cluster(g);
		int r[128];
		for (int i = 0; i < 128; i++)
			r[i] = i;
		const double S = 268435456.0;
		topo_cost c;
		net_cost ab;
		net_group g32, g128, g16;
		net_group_make(cl, 32, 1, &g32);
		net_group_make(cl, 128, 1, &g128);
		net_group_make(cl, 16, 1, &g16);
		CHECK_INT(topo_collective(g, NET_ALLGATHER, r, 32, S, TOPO_ALGO_AUTO, &c), SIM_OK);
		CHECK_INT(net_collective(cl, NET_ALLGATHER, &g32, S, &ab), SIM_OK);
		CHECK_NEAR(c.time_s, ab.time_s, 1e-6);
		CHECK_NEAR(c.sync_s, ab.sync_s, 1e-12);
		CHECK_NEAR(c.sync_s, cong ? 900e-6 : 0, 1e-12);
		CHECK_NEAR(c.bw_time_s, 31.0 / 32 * S / 320e9 * (cong ? 1.6 : 1), 1e-6);
		CHECK_INT(topo_link_at(g, c.hot_link)->kind, TOPO_L_NVSWITCH);
		/* 8 channels x 32 hops, 4 of them between nodes, split over 4 rails */
		CHECK_INT(c.flows, 8 * (28 + 4 * 4));
		CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 128, S, TOPO_ALGO_TREE, &c), SIM_OK);
		net_cluster tree = *cl;
		tree.algo = NET_ALGO_TREE;
		CHECK_INT(net_collective(&tree, NET_ALLREDUCE, &g128, S, &ab), SIM_OK);
		CHECK_NEAR(c.time_s, ab.time_s, 1e-6);
		CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 16, S, TOPO_ALGO_NVLSTREE, &c), SIM_OK);
		net_cluster nt = *cl;
		nt.algo = NET_ALGO_NVLSTREE;
		CHECK_INT(net_collective(&nt, NET_ALLREDUCE, &g16, S, &ab), SIM_OK);
		CHECK_INT(ab.algo, NET_ALGO_NVLSTREE);
		CHECK_NEAR(c.time_s, ab.time_s, 1e-6);
		if (!cong) /* the ceiling 30/16 S / 480 GB/s binds over the rails' S / 320 */
			CHECK_NEAR(c.bw_time_s, 30.0 / 16 * S / 480e9, 1e-6);
		/* auto on 16 nodes, 256 MiB: the aws tuner's Tree/LL128 in both */
		CHECK_INT(topo_collective(g, NET_ALLREDUCE, r, 128, S, TOPO_ALGO_AUTO, &c), SIM_OK);
		CHECK_INT(net_collective(cl, NET_ALLREDUCE, &g128, S, &ab), SIM_OK);
		CHECK_INT(c.algo, TOPO_ALGO_TREE);
		CHECK_INT(c.proto, NET_PROTO_LL128);
		CHECK_INT(ab.algo, NET_ALGO_TREE);
		CHECK_NEAR(c.time_s, ab.time_s, 1e-6);
		CHECK_NEAR(c.sync_s, ab.sync_s, 1e-12);
		topo_free(g);
	}
}

/* Bytes on the links of g with the CPU root complex at one end, and on
 * PCIe links (class pcie) in all, from a run's per-link bytes. */
static void cpu_and_pcie_bytes(const topo_graph *g, const double *lb, double *cpu, double *pcie)
{
	*cpu = *pcie = 0;
	for (int l = 0; l < topo_nlinks(g); l++) {
		const topo_link *k = topo_link_at(g, l);
		if (topo_vertex_at(g, k->src)->kind == TOPO_V_CPU ||
		    topo_vertex_at(g, k->dst)->kind == TOPO_V_CPU)
			*cpu += lb[l];
		if (topo_link_class(g, l) == NET_LINK_PCIE)
			*pcie += lb[l];
	}
}

/* Whether a route passes through a CPU vertex. */
static bool route_via_cpu(const topo_graph *g, const int *path, int h)
{
	for (int i = 0; i < h; i++)
		if (topo_vertex_at(g, topo_link_at(g, path[i])->dst)->kind == TOPO_V_CPU)
			return true;
	return false;
}

/* A strided group's traffic between nodes never climbs to the CPU (NCCL's
 * PXN, route.c). 8 DGX H100 on the rail-optimized fabric, a plan with tp =
 * 4: the data-parallel (ZeRO shard) group of TP index t is t, t + 4, ...,
 * t + 60: 16 ranks, 2 per node, local GPUs t and t + 4 (PCIe switches t/2
 * and t/2 + 2 at 2 GPUs per switch; NIC j on switch j/2), and its 4
 * translates t = 0..3 run at once over all 8 GPUs of every node. The ring
 * has C = k = 2 channels; channel 0 enters a node at GPU t from NIC t and
 * leaves it from GPU t + 4 through NIC t (rail-aligned, coll.c): that
 * send used to go GPU t+4 -> switch t/2+2 -> CPU -> switch t/2 -> NIC t,
 * 2 x 15/32 S per node on the CPU link of each switch (the run's 'pcie ->
 * cpu ... saturated' row). With PXN it goes GPU t+4 -> NVSwitch -> GPU t
 * -> switch -> NIC t. Every NIC then carries one channel of one translate
 * each way (translate t: NICs t and t + 4), S/(nC) = S/32 per ring step,
 * at 50 GB/s x 0.94 = 47 GB/s; the other links are wider (PCIe 63 GB/s,
 * NVSwitch 450 x 0.822 = 370 GB/s, each carrying at most the NIC's flow),
 * so t_bw = (n-1) S/(nC) / 47 GB/s = 15/32 S / 47 GB/s (10.7 ms at 1 GiB),
 * which is alpha-beta's (B_nic = k/G x nics x 47 GB/s = 94 GB/s, t = 15/16
 * S / 94 GB/s) and, exactly, the time of the same collective on the
 * contiguous pairs {2t, 2t + 1} of every node (entry and exit ranks on
 * one switch: no relay needed), which loads the PCIe links as much (every
 * flow between nodes crosses two of them either way). Before the fix the
 * strided time was the CPU link's: two flows of S/32 per step on 63 GB/s,
 * 31.5 GB/s each, 1.49 x the pairs' (below 47 GB/s). Plus the routes:
 * PXN on an NVSwitch node; on a DGX-1 mesh only through a direct NVLink
 * peer (NCCL's PATH_NVL; NVB does not count); never on a PCIe node. */
static void strided_pxn(void)
{
	topo_graph *g = build("dgx-h100", 8, "fabric = rail-optimized");
	if (!g)
		return;
	const net_cluster *cl = topo_cluster(g);
	int strided[64], pairs[64];
	for (int t = 0; t < 4; t++)
		for (int i = 0; i < 16; i++) {
			strided[t * 16 + i] = t + 4 * i;
			pairs[t * 16 + i] = 8 * (i / 2) + 2 * t + i % 2;
		}
	int nl = topo_nlinks(g);
	double *lb = calloc((size_t)nl, sizeof *lb), *ls = calloc((size_t)nl, sizeof *ls);
	net_group g16;
	net_group_make(cl, 16, 4, &g16);
	CHECK_INT(g16.per_node, 2);
	const net_coll colls[2] = {NET_ALLGATHER, NET_REDUCESCATTER};
	for (int i = 0; i < 2; i++) {
		topo_cost cs, cp;
		net_cost ab;
		double cpu, pcie, cpu_p, pcie_p;
		CHECK_INT(topo_collective_groups(g, colls[i], strided, 16, 4, GIB, TOPO_ALGO_AUTO,
		                                 &cs, lb, ls),
		          SIM_OK);
		cpu_and_pcie_bytes(g, lb, &cpu, &pcie);
		CHECK_INT(topo_collective_groups(g, colls[i], pairs, 16, 4, GIB, TOPO_ALGO_AUTO,
		                                 &cp, lb, ls),
		          SIM_OK);
		cpu_and_pcie_bytes(g, lb, &cpu_p, &pcie_p);
		CHECK_NEAR(cpu, 0, 0);
		CHECK_NEAR(cpu_p, 0, 0);
		CHECK_NEAR(pcie, pcie_p, 1e-9);
		CHECK_INT(cs.channels, 2);
		CHECK_NEAR(cs.bw_time_s, 15.0 / 32 * GIB / (50e9 * 0.94), 1e-6);
		CHECK_NEAR(cs.bw_time_s, cp.bw_time_s, 1e-9);
		CHECK_NEAR(cs.time_s, cp.time_s, 1e-9);
		CHECK_INT(net_collective(cl, colls[i], &g16, GIB, &ab), SIM_OK);
		CHECK_NEAR(cs.time_s, ab.time_s, 1e-6);
	}
	/* The route itself: GPU 4 of node 0 into NIC 0 toward node 1's GPU 0:
	 * NVSwitch port, GPU 0's PCIe link, switch 0 -> NIC 0, then the rail
	 * leaf and node 1's NIC 0 -> switch -> GPU 0: 8 hops, no CPU. Receiving
	 * from NIC 0 on GPU 4 keeps the direct route (NCCL's PXN is for sends). */
	int p[TOPO_MAX_HOPS * 3];
	int h = topo_route_gpus(g, 4, 8, 0, 0, p, TOPO_MAX_HOPS * 3);
	CHECK_INT(h, 8);
	CHECK(h > 2 && !route_via_cpu(g, p, h));
	CHECK(h > 2 && topo_link_at(g, p[0])->kind == TOPO_L_NVSWITCH);
	CHECK(h > 2 && topo_link_at(g, p[2])->src == topo_gpu(g, 0));
	h = topo_route_gpus(g, 8, 4, 0, 0, p, TOPO_MAX_HOPS * 3);
	CHECK(h > 0 && route_via_cpu(g, p, h));
	free(lb);
	free(ls);
	topo_free(g);
	/* DGX-1 (4 NICs, NIC j on switch j with GPUs 2j, 2j + 1): GPU 2 into
	 * NIC 0 relays through GPU 0 (one brick 2-0); GPU 5 has no NVLink to
	 * GPU 0 (its path would be NVB), so it goes through the CPU as NCCL. */
	g = build("dgx1-v100", 2, NULL);
	if (g) {
		h = topo_route_gpus(g, 2, 8, 0, 0, p, TOPO_MAX_HOPS * 3);
		CHECK(h > 0 && !route_via_cpu(g, p, h));
		CHECK(h > 0 && topo_link_at(g, p[0])->kind == TOPO_L_NVLINK &&
		      topo_link_at(g, p[0])->dst == topo_gpu(g, 0));
		h = topo_route_gpus(g, 5, 8, 0, 0, p, TOPO_MAX_HOPS * 3);
		CHECK(h > 0 && route_via_cpu(g, p, h));
		topo_free(g);
	}
	/* A PCIe box has no NVLink to relay over: GPU 4 (switch 1 at 4 GPUs
	 * per switch) into NIC 0 (switch 0) turns at the CPU. */
	g = build("pcie-8x-h100", 2, NULL);
	if (g) {
		h = topo_route_gpus(g, 4, 8, 0, 0, p, TOPO_MAX_HOPS * 3);
		CHECK(h > 0 && route_via_cpu(g, p, h));
		topo_free(g);
	}
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
	double sum = 0, sum_ab = 0, per_n[9] = {0}, same = 0;
	int rows = 0, rows_n[9] = {0};
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
		same = fmax(same, fabs(c.time_s - ab.time_s) / ab.time_s);
		if (n >= 2 && n <= 8) {
			per_n[n] += fabs(c.time_s - t) / t;
			rows_n[n]++;
		}
		rows++;
	}
	double mape = rows ? sum / rows : 1, mape_ab = rows ? sum_ab / rows : 1;
	printf("vTrain A100 all-reduce (%d rows, 1-1024 MiB, 2-8 GPUs): MAPE flow %.2f%%, "
	       "alpha-beta %.2f%%\n",
	       rows, 100 * mape, 100 * mape_ab);
	CHECK_INT(rows, 1799);
	/* Issue #4 asks for <= 10 % on busbw for sizes >= 1 MiB (all these rows).
	 * With the ring's local step (net/coll.c; intra_efficiency 0.792,
	 * ring_local_bw 515 GB/s and coll_overhead 42 us fitted to these rows)
	 * the MAPE is 1.4 %, and 1.3-1.6 % for every group size: 2.5 % each
	 * (without the local step 2 GPUs were 15 % too fast, 8 GPUs 1.5 %). On
	 * one NVSwitch node the flow model meets net's formula row by row
	 * (to 1e-6: the flow model's clock and rate solver round). */
	CHECK(mape <= 0.02);
	for (int n = 2; n <= 8; n++) {
		double m = rows_n[n] ? per_n[n] / rows_n[n] : 1;
		printf("  %d GPUs: %d rows, MAPE %.2f%%\n", n, rows_n[n], 100 * m);
		CHECK(m <= 0.025);
	}
	printf("  flow against alpha-beta: largest relative difference %.3g\n", same);
	CHECK(same <= 1e-6); 
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

/* ------------------------------------------------ routes against a plain BFS */

/* The reference router: route.c as it was before its routing context (a full
 * breadth-first search from the destination per route, every distance reset,
 * then the walk), to compare route.c's stamped, early-stopping, cached
 * searches by attachment with. The choice among equal-cost next hops is
 * route.c's (ECMP hash; d-mod-k on InfiniBand, two and three tiers). */
typedef struct ref {
	const topo_graph *g;
	int nv, nl, S, C, SP; /* SP: supercores above core 0 (four tiers), else 0 */
	int *out_off, *out, *in_off, *in; /* adjacency in link order, as graph.c */
	int *dist, *queue;
	int *dkey; /* a NIC's d-mod-k index, leaf-major (route.c), else -1 */
} ref;

static bool ref_transit(topo_vkind k)
{
	return k == TOPO_V_NVSWITCH || k == TOPO_V_PCIE_SWITCH || k == TOPO_V_CPU ||
	       k == TOPO_V_LEAF || k == TOPO_V_SPINE || k == TOPO_V_CORE || k == TOPO_V_SUPER;
}

static void ref_adj(const ref *r, bool by_src, int *off, int *idx)
{
	memset(off, 0, ((size_t)r->nv + 1) * sizeof *off);
	for (int l = 0; l < r->nl; l++) {
		const topo_link *x = topo_link_at(r->g, l);
		off[(by_src ? x->src : x->dst) + 1]++;
	}
	for (int v = 0; v < r->nv; v++)
		off[v + 1] += off[v];
	int *fill = calloc((size_t)r->nv, sizeof *fill);
	for (int l = 0; l < r->nl; l++) {
		const topo_link *x = topo_link_at(r->g, l);
		int v = by_src ? x->src : x->dst;
		idx[off[v] + fill[v]++] = l;
	}
	free(fill);
}

static void ref_open(ref *r, const topo_graph *g)
{
	r->g = g;
	r->nv = topo_nvertices(g);
	r->nl = topo_nlinks(g);
	r->out_off = malloc(((size_t)r->nv + 1) * sizeof(int));
	r->in_off = malloc(((size_t)r->nv + 1) * sizeof(int));
	r->out = malloc((size_t)r->nl * sizeof(int));
	r->in = malloc((size_t)r->nl * sizeof(int));
	r->dist = malloc((size_t)r->nv * sizeof(int));
	r->queue = malloc((size_t)r->nv * sizeof(int));
	ref_adj(r, true, r->out_off, r->out);
	ref_adj(r, false, r->in_off, r->in);
	/* NICs numbered leaf by leaf, each leaf's in port (link) order. */
	r->dkey = malloc((size_t)r->nv * sizeof(int));
	for (int v = 0; v < r->nv; v++)
		r->dkey[v] = -1;
	for (int v = 0, next = 0; v < r->nv; v++)
		for (int i = r->out_off[v];
		     topo_vertex_at(g, v)->kind == TOPO_V_LEAF && i < r->out_off[v + 1]; i++) {
			int x = topo_link_at(g, r->out[i])->dst;
			if (topo_vertex_at(g, x)->kind == TOPO_V_NIC && r->dkey[x] < 0)
				r->dkey[x] = next++;
		}
	/* S: the spines leaf 0's uplinks reach (two tiers: all of them, or on
	 * rail-only its rail's); C: cores per plane = the cores above spine 0;
	 * SP: supercores per plane = the supercores above core 0. */
	r->S = r->C = r->SP = 0;
	for (int v = 0; v < r->nv; v++) {
		const topo_vertex *x = topo_vertex_at(g, v);
		bool leaf0 = x->kind == TOPO_V_LEAF && x->index == 0;
		topo_vkind above = leaf0 ? TOPO_V_SPINE
		                   : x->kind == TOPO_V_SPINE ? TOPO_V_CORE : TOPO_V_SUPER;
		if (!leaf0 && ((x->kind != TOPO_V_SPINE && x->kind != TOPO_V_CORE) || x->index != 0))
			continue;
		for (int i = r->out_off[v]; i < r->out_off[v + 1]; i++) {
			int c = topo_link_at(g, r->out[i])->dst;
			bool seen = false;
			for (int j = r->out_off[v]; j < i; j++)
				seen |= topo_link_at(g, r->out[j])->dst == c;
			if (topo_vertex_at(g, c)->kind == above && !seen)
				*(leaf0 ? &r->S : above == TOPO_V_CORE ? &r->C : &r->SP) += 1;
		}
	}
}

static void ref_close(ref *r)
{
	free(r->out_off);
	free(r->in_off);
	free(r->out);
	free(r->in);
	free(r->dist);
	free(r->queue);
	free(r->dkey);
}

static void ref_bfs(const ref *r, int dst, unsigned mask)
{
	for (int v = 0; v < r->nv; v++)
		r->dist[v] = -1;
	int head = 0, tail = 0;
	r->dist[dst] = 0;
	r->queue[tail++] = dst;
	while (head < tail) {
		int w = r->queue[head++];
		if (w != dst && !ref_transit(topo_vertex_at(r->g, w)->kind))
			continue;
		for (int i = r->in_off[w]; i < r->in_off[w + 1]; i++) {
			const topo_link *l = topo_link_at(r->g, r->in[i]);
			if (r->dist[l->src] < 0 && (mask >> l->kind & 1u)) {
				r->dist[l->src] = r->dist[w] + 1;
				r->queue[tail++] = l->src;
			}
		}
	}
}

static uint64_t ref_hash(int src, int dst, int at)
{
	int32_t key[3] = {src, dst, at};
	uint64_t h = sim_hash64(key, sizeof key);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* d-mod-k with a fourth tier, digit by digit (route.c's choose4): the
 * digits of key are u0 = key mod U (leaf uplink), u1 = (key div U) mod D
 * (spine up cable), u2 = (key div (U D)) mod J (core up cable); a hop up
 * takes the next digit, a hop down the parallel link of the same column:
 * from a supercore u2 div SP, from a core reached from a supercore u1 div
 * C. n[0..3]: candidate counts one to four hops back. -1: no rule here. */
static int ref_choose4(const ref *r, int64_t key, int at, int prev, const int *cand, int nc,
                       const int *n)
{
	const topo_graph *g = r->g;
	topo_vkind k = topo_vertex_at(g, at)->kind;
	int64_t U, D, J;
	if (k == TOPO_V_CORE &&
	    topo_vertex_at(g, topo_link_at(g, cand[0])->dst)->kind == TOPO_V_SUPER) {
		U = n[1] > 0 ? n[1] : 1, D = n[0] > 0 ? n[0] : 1;
		return (int)(key / (U * D) % nc);
	}
	if (k == TOPO_V_SUPER) {
		U = n[2] > 0 ? n[2] : 1, D = n[1] > 0 ? n[1] : 1, J = n[0] > 0 ? n[0] : 1;
		int64_t u2 = key / (U * D) % J;
		return (int)(u2 / (r->SP > 0 ? r->SP : 1) % nc);
	}
	if (k == TOPO_V_CORE && prev >= 0 && topo_vertex_at(g, prev)->kind == TOPO_V_SUPER) {
		U = n[3] > 0 ? n[3] : 1, D = n[2] > 0 ? n[2] : 1;
		int64_t u1 = key / U % D;
		return (int)(u1 / (r->C > 0 ? r->C : 1) % nc);
	}
	return -1;
}

static int ref_choose(const ref *r, int src, int dst, int at, int prev, const int *cand, int nc,
                      const int *n)
{
	const topo_vertex *d = topo_vertex_at(r->g, dst);
	const topo_graph *g = r->g;
	if (topo_cluster(g)->node.nic_kind != NET_NIC_IB || d->kind != TOPO_V_NIC)
		return (int)(ref_hash(src, dst, at) % (uint64_t)nc);
	int64_t key = r->dkey[dst] >= 0 ? r->dkey[dst]
	                                 : (int64_t)d->node * topo_cluster(g)->node.nics + d->index;
	int nc1 = n[0], nc2 = n[1];
	int four = r->SP > 0 ? ref_choose4(r, key, at, prev, cand, nc, n) : -1;
	if (four >= 0)
		return four;
	topo_vkind k = topo_vertex_at(g, at)->kind;
	if (k == TOPO_V_SPINE &&
	    topo_vertex_at(g, topo_link_at(g, cand[0])->dst)->kind == TOPO_V_CORE)
		return (int)(key / (nc1 > 0 ? nc1 : 1) % nc);
	if (k == TOPO_V_CORE && nc1 >= 2)
		return (int)(key / (nc2 > 0 ? nc2 : 1) % nc1 / (r->C > 0 ? r->C : 1) % nc);
	if (k != TOPO_V_SPINE || nc1 < 2)
		return (int)(key % nc);
	return (int)((key % nc1) / (r->S > 0 ? r->S : 1) % nc);
}

static int ref_route_mask(const ref *r, int src, int dst, unsigned mask, int *path, int max)
{
	if (src == dst)
		return 0;
	ref_bfs(r, dst, mask);
	if (r->dist[src] < 0)
		return SIM_ENOTFOUND;
	int u = src, prev = -1, hops = 0, n[4] = {0, 0, 0, 0};
	while (u != dst) {
		int cand[64], nc = 0;
		for (int i = r->out_off[u]; i < r->out_off[u + 1]; i++) {
			const topo_link *l = topo_link_at(r->g, r->out[i]);
			if (r->dist[l->dst] == r->dist[u] - 1 && (mask >> l->kind & 1u) &&
			    (l->dst == dst || ref_transit(topo_vertex_at(r->g, l->dst)->kind)) &&
			    nc < 64)
				cand[nc++] = r->out[i];
		}
		if (nc == 0)
			return SIM_ENOTFOUND;
		if (hops == max)
			return SIM_ERANGE;
		int pick = cand[ref_choose(r, src, dst, u, prev, cand, nc, n)];
		n[3] = n[2], n[2] = n[1], n[1] = n[0], n[0] = nc;
		prev = u;
		path[hops++] = pick;
		u = topo_link_at(r->g, pick)->dst;
	}
	return hops;
}

static int ref_append(const ref *r, int a, int b, int *path, int *n, int max)
{
	int h = ref_route_mask(r, a, b, ~0u, path + *n, max - *n);
	if (h >= 0)
		*n += h;
	return h < 0 ? h : SIM_OK;
}

static int ref_cpu(const ref *r, int node)
{
	for (int v = 0; v < r->nv; v++)
		if (topo_vertex_at(r->g, v)->kind == TOPO_V_CPU &&
		    topo_vertex_at(r->g, v)->node == node)
			return v;
	return -1;
}

/* The NVLink link va -> vb, or -1. */
static int ref_nvlink(const ref *r, int va, int vb)
{
	for (int i = r->out_off[va]; i < r->out_off[va + 1]; i++) {
		const topo_link *l = topo_link_at(r->g, r->out[i]);
		if (l->kind == TOPO_L_NVLINK && l->dst == vb)
			return r->out[i];
	}
	return -1;
}

/* The GPU of va's node linked to both va and vb with the most lanes (NCCL's
 * NVB path), or -1. */
static int ref_nvb_via(const ref *r, int va, int vb)
{
	const topo_graph *g = r->g;
	int G = topo_cluster(g)->node.gpus, node = topo_vertex_at(g, va)->node;
	int best = -1, best_lanes = 0;
	for (int i = 0; i < G; i++) {
		int w = topo_gpu(g, node * G + i);
		int x = w == va || w == vb ? -1 : ref_nvlink(r, va, w);
		int y = x < 0 ? -1 : ref_nvlink(r, w, vb);
		if (y < 0)
			continue;
		int lx = topo_link_at(g, x)->lanes, ly = topo_link_at(g, y)->lanes;
		if ((lx < ly ? lx : ly) > best_lanes) {
			best = w;
			best_lanes = lx < ly ? lx : ly;
		}
	}
	return best;
}

/* The PCIe switch a GPU or NIC vertex hangs from (its PCIe link's far end
 * that is a switch), or -1. */
static int ref_pcie_switch(const ref *r, int v)
{
	for (int i = r->out_off[v]; i < r->out_off[v + 1]; i++) {
		const topo_link *l = topo_link_at(r->g, r->out[i]);
		if (l->kind == TOPO_L_PCIE &&
		    topo_vertex_at(r->g, l->dst)->kind == TOPO_V_PCIE_SWITCH)
			return l->dst;
	}
	return -1;
}

/* GPUs va and vb NVLink peers: a direct NVLink or the same NVSwitch. */
static bool ref_nvl_peers(const ref *r, int va, int vb)
{
	if (ref_nvlink(r, va, vb) >= 0)
		return true;
	int sa = -1, sb = -1;
	for (int i = r->out_off[va]; i < r->out_off[va + 1]; i++)
		if (topo_link_at(r->g, r->out[i])->kind == TOPO_L_NVSWITCH)
			sa = topo_link_at(r->g, r->out[i])->dst;
	for (int i = r->out_off[vb]; i < r->out_off[vb + 1]; i++)
		if (topo_link_at(r->g, r->out[i])->kind == TOPO_L_NVSWITCH)
			sb = topo_link_at(r->g, r->out[i])->dst;
	return sa >= 0 && sa == sb;
}

/* NCCL's PXN relay for GPU va sending into NIC xa of its node (route.c):
 * on an NVLink node, xa on another PCIe switch than va: the first GPU of
 * xa's switch whose own NIC xa is, else the switch's first GPU, if it is
 * va's NVLink peer; else -1. */
static int ref_pxn(const ref *r, int va, int xa)
{
	const topo_graph *g = r->g;
	const net_node *nd = &topo_cluster(g)->node;
	int sw = ref_pcie_switch(r, xa), node = topo_vertex_at(g, va)->node, w = -1;
	if (nd->intra == NET_INTRA_PCIE || sw < 0 || ref_pcie_switch(r, va) == sw)
		return -1;
	for (int pass = 0; pass < 2 && w < 0; pass++)
		for (int i = 0; i < nd->gpus && w < 0; i++) {
			int v = topo_gpu(g, node * nd->gpus + i);
			if (ref_pcie_switch(r, v) == sw &&
			    (pass || topo_nic(g, node, topo_gpu_nic(g, i)) == xa))
				w = v;
		}
	return w >= 0 && w != va && ref_nvl_peers(r, va, w) ? w : -1;
}

/* topo_route_gpus over the reference router. */
static int ref_route_gpus(const ref *r, int a, int b, int nic_a, int nic_b, int *path, int max)
{
	const topo_graph *g = r->g;
	const net_node *nd = &topo_cluster(g)->node;
	int va = topo_gpu(g, a), vb = topo_gpu(g, b), G = nd->gpus, na = a / G, nb = b / G;
	int n = 0, rc;
	if (na == nb && nd->intra == NET_INTRA_PCIE && !nd->pcie_p2p) {
		rc = ref_append(r, va, ref_cpu(r, na), path, &n, max);
		if (rc == SIM_OK)
			rc = ref_append(r, ref_cpu(r, na), vb, path, &n, max);
		return rc == SIM_OK ? n : rc;
	}
	if (na == nb) {
		unsigned up = 1u << TOPO_L_NVLINK | 1u << TOPO_L_NVSWITCH;
		int h = ref_route_mask(r, va, vb, up, path, max);
		if (h != SIM_ENOTFOUND)
			return h;
		int w = ref_nvb_via(r, va, vb);
		if (w >= 0 && max >= 2) {
			path[0] = ref_nvlink(r, va, w);
			path[1] = ref_nvlink(r, w, vb);
			return 2;
		}
		return ref_route_mask(r, va, vb, ~0u, path, max);
	}
	nic_a = nic_a < 0 ? topo_gpu_nic(g, a % G) : nic_a;
	nic_b = nic_b < 0 ? topo_gpu_nic(g, b % G) : nic_b;
	if (topo_cluster(g)->fabric == NET_FABRIC_RAIL_ONLY) /* leave on b's rail */
		nic_a = nic_b;
	int xa = topo_nic(g, na, nic_a), xb = topo_nic(g, nb, nic_b);
	int w = ref_pxn(r, va, xa);
	if (w >= 0) { /* PXN: NVLink to the relay, its PCIe to the NIC */
		n = ref_route_mask(r, va, w, 1u << TOPO_L_NVLINK | 1u << TOPO_L_NVSWITCH, path, max);
		rc = n < 0 ? n : ref_append(r, w, xa, path, &n, max);
	} else
		rc = ref_append(r, va, xa, path, &n, max);
	if (rc == SIM_OK)
		rc = ref_append(r, xa, xb, path, &n, max);
	if (rc == SIM_OK)
		rc = ref_append(r, xb, vb, path, &n, max);
	return rc == SIM_OK ? n : rc;
}

/* xorshift64: a deterministic sample. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Compare route.c with the reference on GPU pairs of the cluster (every
 * ordered pair when there are at most max_pairs, else max_pairs drawn, half
 * with NICs chosen at random) and on vertex pairs drawn from the whole
 * graph; returns the number of routes that differ. */
static int compare_routes(const char *what, const char *node, int nodes, const char *extra,
                          int max_pairs)
{
	topo_graph *g = build(node, nodes, extra);
	if (!g)
		return 1;
	ref r;
	ref_open(&r, g);
	int n = topo_cluster(g)->gpus, N = topo_cluster(g)->node.nics, bad = 0, routes = 0;
	int64_t all = (int64_t)n * n;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int p1[TOPO_MAX_HOPS * 3], p2[TOPO_MAX_HOPS * 3];
	for (int64_t i = 0; i < (all <= max_pairs ? all : max_pairs); i++) {
		int a, b, xa = -1, xb = -1;
		if (all <= max_pairs) {
			a = (int)(i / n);
			b = (int)(i % n);
		} else {
			a = (int)(next_rand(&seed) % (uint64_t)n);
			b = (int)(next_rand(&seed) % (uint64_t)n);
			if (N > 0 && i % 2) {
				xa = (int)(next_rand(&seed) % (uint64_t)N);
				xb = (int)(next_rand(&seed) % (uint64_t)N);
			}
		}
		int h1 = topo_route_gpus(g, a, b, xa, xb, p1, TOPO_MAX_HOPS * 3);
		int h2 = ref_route_gpus(&r, a, b, xa, xb, p2, TOPO_MAX_HOPS * 3);
		bad += h1 != h2 || (h1 > 0 && memcmp(p1, p2, sizeof(int) * (size_t)h1));
		routes++;
	}
	/* Any vertex to any vertex (switches, CPUs, NICs, NVMe too). */
	for (int i = 0; i < 2000; i++) {
		int s = (int)(next_rand(&seed) % (uint64_t)r.nv),
		    d = (int)(next_rand(&seed) % (uint64_t)r.nv);
		int h1 = topo_route(g, s, d, p1, TOPO_MAX_HOPS);
		int h2 = ref_route_mask(&r, s, d, ~0u, p2, TOPO_MAX_HOPS);
		bad += h1 != h2 || (h1 > 0 && memcmp(p1, p2, sizeof(int) * (size_t)h1));
		routes++;
	}
	printf("routes against a plain BFS, %s: %d routes, %d differ\n", what, routes, bad);
	ref_close(&r);
	topo_free(g);
	return bad;
}

static void routes_match_plain_bfs(void)
{
	/* Every ordered GPU pair: a 2:1 fat tree of 6 DGX A100 (2 leaves), a
	 * 2 x 4 torus of 8 DGX H100 (equal routes both ways round the 4-ring),
	 * two DGX-1 (hybrid cube mesh: NVB pairs, PCIe and CPU between nodes),
	 * PCIe boxes with and without P2P (routes turning at the CPU). A sample
	 * of 3,000 pairs: two SUs of DGX H100 (rail-optimized, 16 leaves, 8
	 * spines), RoCE (ECMP hashing) on the same, and a three-tier fat tree
	 * (90 DGX A100 on HDR: 45 leaves in pods of 20, 20 and 5; fabric.c).
	 * Plus 2,000 routes between any two vertices of each. */
	CHECK_INT(
	        compare_routes("fat tree 2:1", "dgx-a100-80g", 6, "oversubscription = 2", 1 << 20),
	        0);
	CHECK_INT(compare_routes("torus 2D", "dgx-h100", 8, "fabric = torus-2d", 1 << 20), 0);
	CHECK_INT(compare_routes("DGX-1 mesh", "dgx1-v100", 2, NULL, 1 << 20), 0);
	CHECK_INT(compare_routes("PCIe node", "pcie-8x-h100", 2, NULL, 1 << 20), 0);
	CHECK_INT(compare_routes("PCIe node, no P2P", "pcie-8x-h100", 2, "[node]\npcie_p2p = false",
	                         1 << 20),
	          0);
	CHECK_INT(compare_routes("rail-optimized 2 SU", "dgx-h100", 64, "fabric = rail-optimized",
	                         3000),
	          0);
	CHECK_INT(compare_routes("rail-optimized RoCE", "dgx-h100", 64,
	                         "fabric = rail-optimized\n[node]\nnic_kind = roce", 3000),
	          0);
	CHECK_INT(compare_routes("three-tier fat tree", "dgx-a100-80g", 90, "fabric = fat-tree",
	                         3000),
	          0);
	/* Fabric tables (route.c) at the size where they matter: 16 SUs of DGX
	 * H100, rail-optimized on three tiers (128 leaves, 128 spines, 64
	 * cores), and an oversubscribed two-tier fabric whose last leaf is
	 * part-filled (fewer uplinks: spines it does not reach are 3 hops
	 * from it, through another leaf). */
	CHECK_INT(compare_routes("rail-optimized 16 SU", "dgx-h100", 512, "fabric = rail-optimized",
	                         1000),
	          0);
	CHECK_INT(compare_routes("fat tree 3:1, part-filled leaf", "dgx-a100-80g", 37,
	                         "oversubscription = 3", 3000),
	          0);
	/* Four tiers: 1,640 DGX A100 on HDR, 41 pods in 3 zones, the last zone
	 * one pod (fabric.c; fabric counts below). */
	CHECK_INT(compare_routes("four-tier fat tree", "dgx-a100-80g", 1640, "fabric = fat-tree", 600),
	          0);
	/* Rail-only: rails the fabric tables cannot join (unreachable
	 * switches, FAR), two tiers per rail at 2 SUs, three at 33. */
	CHECK_INT(compare_routes("rail-only 2 SU", "dgx-h100", 64, "fabric = rail-only", 3000), 0);
	CHECK_INT(compare_routes("rail-only 33 SU", "dgx-h100", 1056, "fabric = rail-only", 600), 0);
}

/* ---------------------------------------------------- three-tier fabrics */

/* Switches of each kind and the most ports (cable ends: out-links) of one. */
static void switch_ports(const topo_graph *g, int *count, int *max_ports)
{
	int nv = topo_nvertices(g), *deg = calloc((size_t)nv, sizeof *deg);
	for (int l = 0; l < topo_nlinks(g); l++)
		deg[topo_link_at(g, l)->src]++;
	for (int k = 0; k < TOPO_V_KIND_COUNT; k++)
		count[k] = max_ports[k] = 0;
	for (int v = 0; v < nv; v++) {
		topo_vkind k = topo_vertex_at(g, v)->kind;
		count[k]++;
		if (deg[v] > max_ports[k])
			max_ports[k] = deg[v];
	}
	free(deg);
}

typedef struct fabric_case {
	const char *node, *extra;
	int nodes, leaves, spines, cores, radix;
	int leaf_ports, spine_ports, core_ports; /* the busiest switch */
} fabric_case;

static void fabric_sizes(void)
{
	/* DGX H100 rail-optimized (NDR, radix 64: hardware.csv network,Switch
	 * NVIDIA Quantum-2 QM9700/QM9790 (NDR),radix; 8 rails, SUs of 32 nodes;
	 * a leaf has 32 NICs below and 32 uplinks), and DGX A100 fat trees on
	 * HDR (radix 40: network,Switch NVIDIA Quantum QM8700/QM8790 (HDR),radix;
	 * 20 down ports: 2 nodes of 8 NICs and 16 uplinks per leaf). */
	const char *rail = "fabric = rail-optimized", *ft = "fabric = fat-tree";
	const fabric_case cases[] = {
	        /* 4 SUs: 32 leaves x 32 uplinks / 64 = 16 spines with 2 cables per
	         * leaf: 64 ports (superpod,DGX SuperPOD H100,4SU_switches). */
	        {"dgx-h100", rail, 128, 32, 16, 0, 64, 64, 64, 0},
	        /* 8 SUs: 64 leaves, 32 spines with one cable per leaf: 64 ports,
	         * the largest two-tier fabric. */
	        {"dgx-h100", rail, 256, 64, 32, 0, 64, 64, 64, 0},
	        /* 9 SUs: 72 leaves; two tiers would put 72 cables on a spine, so
	         * pods of 4 SUs (32, 32, 8 leaves): 3 x 32 = 96 spines; m =
	         * floor(64 / 3) = 21, C = ceil(32 / 21) = 2 cores per plane, 64
	         * cores with 16 + 16 + 4 = 36 ports. */
	        {"dgx-h100", rail, 288, 72, 96, 64, 64, 64, 64, 36},
	        /* 16 SUs: 4 pods, 128 spines, m = 16, C = 2, 64 cores of 4 x 16
	         * = 64 ports (superpod,DGX SuperPOD B200,16SU: 128 leaf / 128
	         * spine / 64 core, same switches, SU and rails). */
	        {"dgx-h100", rail, 512, 128, 128, 64, 64, 64, 64, 64},
	        /* 64 SUs, 16,384 GPUs: 16 pods, 512 spines, m = 4, C = 8: 256
	         * cores (hardware.md section 10, B200 64 SU: 512 / 512 / 256). */
	        {"dgx-h100", rail, 2048, 512, 512, 256, 64, 64, 64, 64},
	        /* Selene-like: 128 DGX A100 on HDR, 64 leaves of 16 + 16 ports;
	         * two tiers: 26 spines, 64 cables on spine 0 > 40. Pods of 20
	         * leaves (20, 20, 20, 4): 4 x 16 = 64 spines of 20 + 20 ports;
	         * m = 10, C = 2, 32 cores of 10 + 10 + 10 + 2 = 32 ports. */
	        {"dgx-a100-80g", ft, 128, 64, 64, 32, 40, 32, 40, 32},
	        /* 2:1 at HDR: 26 down ports, 3 nodes (24 NICs) and 12 uplinks a
	         * leaf. 135 nodes = 45 leaves; two tiers: S = ceil(540 / 40) =
	         * 14, a cable from each leaf on spine 0 = 45 ports > 40. Pods of 20 (20, 20, 5): 36
	         * spines of 20 + 20; m = 13, C = 2, 24 cores of 10 + 10 + 3 = 23 ports. */
	        {"dgx-a100-80g", "fabric = fat-tree\noversubscription = 2", 135, 45, 36, 24, 40, 36,
	         40, 23},
	        /* 42 nodes at 2:1: 14 leaves, S = 5, spine 0 would get 3 cables a
	         * leaf = 42 > 40: one pod, 12 spines with one cable per leaf, no
	         * cores. */
	        {"dgx-a100-80g", "fabric = fat-tree\noversubscription = 2", 42, 14, 12, 0, 40, 36,
	         14, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const fabric_case *f = &cases[i];
		topo_graph *g = build(f->node, f->nodes, f->extra);
		if (!g)
			continue;
		int count[TOPO_V_KIND_COUNT], ports[TOPO_V_KIND_COUNT];
		switch_ports(g, count, ports);
		printf("fabric %s x %d: %d leaf / %d spine / %d core, ports %d / %d / %d\n",
		       f->node, f->nodes, count[TOPO_V_LEAF], count[TOPO_V_SPINE],
		       count[TOPO_V_CORE], ports[TOPO_V_LEAF], ports[TOPO_V_SPINE],
		       ports[TOPO_V_CORE]);
		CHECK_INT(count[TOPO_V_LEAF], f->leaves);
		CHECK_INT(count[TOPO_V_SPINE], f->spines);
		CHECK_INT(count[TOPO_V_CORE], f->cores);
		CHECK_INT(ports[TOPO_V_LEAF], f->leaf_ports);
		CHECK_INT(ports[TOPO_V_SPINE], f->spine_ports);
		CHECK_INT(ports[TOPO_V_CORE], f->core_ports);
		CHECK(ports[TOPO_V_LEAF] <= f->radix && ports[TOPO_V_SPINE] <= f->radix &&
		      ports[TOPO_V_CORE] <= f->radix);
		topo_free(g);
	}
	/* Beyond R pods a fourth tier: zones of R/2 pods under supercores
	 * (fabric.c). HDR fat tree of DGX A100 (radix 40, pods of 20 leaves of
	 * 2 nodes): three tiers hold 40 pods = 1,600 nodes; 1,640 nodes are 41
	 * pods in ceil(41 / 20) = 3 zones: 41 x 16 = 656 spines, 3 x 16 x 20 =
	 * 960 cores (C = 20: one cable from each pod), a full zone's core has
	 * 20 up cables, m' = floor(40 / 3) = 13, S = 2: 16 x 20 x 2 = 640
	 * supercores of at most 3 x 10 = 30 ports. Beyond R zones a fifth tier
	 * would be needed: 40 x 20 x 20 x 2 = 32,000 nodes; at radix 64 (DGX H100
	 * rail-optimized) 64 x 32 pods of 4 SUs = 262,144 nodes. */
	net_cluster c;
	topo_graph *g = NULL;
	if (CHECK(load("dgx-h100", 2, "fabric = rail-optimized", &c) == SIM_OK))
		CHECK_INT(topo_fabric_max_nodes(&c), 64 * 32 * 128);
	if (CHECK(load("dgx-a100-80g", 2, "fabric = fat-tree", &c) == SIM_OK))
		CHECK_INT(topo_fabric_max_nodes(&c), 32000);
	if (CHECK(load("dgx-a100-80g", 1640, "fabric = fat-tree", &c) == SIM_OK) &&
	    CHECK_INT(topo_build(&c, &g), SIM_OK)) {
		int count[TOPO_V_KIND_COUNT], ports[TOPO_V_KIND_COUNT];
		switch_ports(g, count, ports);
		printf("fabric dgx-a100-80g x 1640: %d leaf / %d spine / %d core / %d supercore, "
		       "ports %d / %d / %d / %d\n",
		       count[TOPO_V_LEAF], count[TOPO_V_SPINE], count[TOPO_V_CORE],
		       count[TOPO_V_SUPER], ports[TOPO_V_LEAF], ports[TOPO_V_SPINE],
		       ports[TOPO_V_CORE], ports[TOPO_V_SUPER]);
		CHECK_INT(count[TOPO_V_LEAF], 820);
		CHECK_INT(count[TOPO_V_SPINE], 656);
		CHECK_INT(count[TOPO_V_CORE], 960);
		CHECK_INT(count[TOPO_V_SUPER], 640);
		CHECK(ports[TOPO_V_LEAF] <= 40 && ports[TOPO_V_SPINE] <= 40 &&
		      ports[TOPO_V_CORE] <= 40 && ports[TOPO_V_SUPER] <= 40);
		topo_summary sm;
		CHECK_INT(topo_summarize(g, &sm), SIM_OK);
		/* GPU, PCIe, NIC, leaf, spine, core, supercore and down again. */
		CHECK_INT(sm.diameter_hops, 12);
	}
	topo_free(g);
}

/* The link of path[0..h) whose source has kind a and destination kind b. */
static int hop(const topo_graph *g, const int *path, int h, topo_vkind a, topo_vkind b)
{
	for (int i = 0; i < h; i++) {
		const topo_link *l = topo_link_at(g, path[i]);
		if (topo_vertex_at(g, l->src)->kind == a && topo_vertex_at(g, l->dst)->kind == b)
			return path[i];
	}
	return -1;
}

static int distinct(const int *x, int n)
{
	int d = 0;
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= x[j] == x[i];
		d += !seen;
	}
	return d;
}

/* d-mod-k through three tiers: 16 SUs of DGX H100 (4 pods, C = 2 cores per
 * plane, 16 cables from a core to each pod's spine of its plane). */
static void three_tier_routes(void)
{
	topo_graph *g = build("dgx-h100", 512, "fabric = rail-optimized");
	if (!g)
		return;
	/* Pod 0 to pod 1: GPU -> PCIe -> NIC -> leaf -> spine -> core -> spine ->
	 * leaf -> NIC -> PCIe -> GPU = 10 links; same rail in one SU still 6. */
	int p[TOPO_MAX_HOPS * 3], q[TOPO_MAX_HOPS * 3];
	CHECK_INT(topo_route_gpus(g, 0, 8 * 128, -1, -1, p, TOPO_MAX_HOPS * 3), 10);
	CHECK_INT(topo_route_gpus(g, 0, 8 * 128, -1, -1, q, TOPO_MAX_HOPS * 3), 10);
	CHECK(!memcmp(p, q, 10 * sizeof(int)));
	CHECK_INT(topo_route_gpus(g, 0, 8 * 31, -1, -1, p, TOPO_MAX_HOPS * 3), 6);
	/* Same pod, other SU: up to a spine and down, 8 links. */
	CHECK_INT(topo_route_gpus(g, 0, 8 * 32, -1, -1, p, TOPO_MAX_HOPS * 3), 8);
	/* d-mod-k keys are leaf-major: a rail leaf's 32 NICs (one per node of
	 * its SU) have consecutive keys. nic_of[d] is the NIC of key d. From
	 * n0/nic0 to the 32 NICs d = 1024 .. 1055 (leaf 32: SU 4, rail 0, pod
	 * 1): the leaf sends NIC d up uplink d mod 32, one spine each (on a
	 * global-index key the same rail's NICs, 8 apart, would share 4 of the
	 * 32 uplinks). Then to d = 1024 + 5 + 32 j, j = 0..31 (port 5 of leaves
	 * 32..63, pod 1), all on uplink 5, to spine 5 of pod 0: the spine takes
	 * uplink (d div 32) mod 32 = j, 32 distinct links to the plane's 2 cores,
	 * and core j mod 2 sends it down its (j div 2)-th cable to pod 1's spine
	 * 5: 32 distinct downlinks. */
	int nv = topo_nvertices(g), *nic_of = malloc(4096 * sizeof *nic_of), next = 0;
	for (int v = 0; v < nv && nic_of; v++)
		for (int l = 0; topo_vertex_at(g, v)->kind == TOPO_V_LEAF && l < topo_nlinks(g); l++) {
			const topo_link *x = topo_link_at(g, l);
			if (x->src == v && topo_vertex_at(g, x->dst)->kind == TOPO_V_NIC && next < 4096)
				nic_of[next++] = x->dst;
		}
	CHECK_INT(next, 4096);
	int src = topo_nic(g, 0, 0), up[32] = {0}, sc[32] = {0}, cs[32] = {0};
	for (int j = 0; j < 32 && next == 4096; j++) {
		int h = topo_route(g, src, nic_of[1024 + j], p, TOPO_MAX_HOPS);
		CHECK_INT(h, 6);
		up[j] = hop(g, p, h, TOPO_V_LEAF, TOPO_V_SPINE);
	}
	CHECK_INT(distinct(up, 32), 32);
	for (int j = 0; j < 32 && next == 4096; j++) {
		int h = topo_route(g, src, nic_of[1024 + 5 + 32 * j], p, TOPO_MAX_HOPS);
		CHECK_INT(h, 6);
		up[j] = hop(g, p, h, TOPO_V_LEAF, TOPO_V_SPINE);
		sc[j] = hop(g, p, h, TOPO_V_SPINE, TOPO_V_CORE);
		cs[j] = hop(g, p, h, TOPO_V_CORE, TOPO_V_SPINE);
	}
	CHECK_INT(distinct(up, 32), 1);
	CHECK_INT(distinct(sc, 32), 32);
	CHECK_INT(distinct(cs, 32), 32);
	free(nic_of);
	topo_free(g);
}

/* Bisection over the GPU fabric (summary.c): one DGX H100, 8 x 450 GB/s
 * NVLink, halves of 4 GPUs: 4 x 450 = 1.8 TB/s per direction (the host PCIe
 * paths, 126 GB/s more, not counted); the NVLink Switch System, 256 H100 in
 * one NVLink domain: 128 x 450 GB/s = 57.6 TB/s (hardware.csv nvswitch,NVLink
 * Switch System (H100),all_to_all_bw); a PCIe box keeps its CPU path:
 * pcie-8x-h100, GPUs 0-3 on PCIe switch 0 and 4-7 on switch 1, P2P between
 * the switches through the CPU's root complex: the cut is one uplink,
 * pcie_bw = 63 GB/s. */
static void gpu_fabric_bisection(void)
{
	struct {
		const char *node;
		double want;
	} c[] = {{"dgx-h100", 1.8e12}, {"dgx-h100-nvl256", 57.6e12}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		topo_graph *g = build(c[i].node, 1, NULL);
		if (!g)
			continue;
		topo_summary s;
		CHECK_INT(topo_summarize(g, &s), SIM_OK);
		CHECK_NEAR(s.bisection_Bps, c[i].want, 1e-9);
		topo_free(g);
	}
	net_cluster cl;
	topo_graph *g = build("pcie-8x-h100", 1, NULL);
	if (g && CHECK(load("pcie-8x-h100", 1, NULL, &cl) == SIM_OK)) {
		topo_summary s;
		CHECK_INT(topo_summarize(g, &s), SIM_OK);
		CHECK_NEAR(s.bisection_Bps, cl.node.pcie_Bps, 1e-9);
	}
	topo_free(g);
}

/* Rail of every vertex of a rail-only graph: a NIC's index, a leaf's NICs'
 * (-2 when they differ), a spine's, core's or supercore's the rail of the
 * switch one tier below it; -1 elsewhere. */
static int *vertex_rails(const topo_graph *g)
{
	int nv = topo_nvertices(g), nl = topo_nlinks(g), *rail = malloc((size_t)nv * sizeof *rail);
	if (!rail)
		return NULL;
	for (int v = 0; v < nv; v++)
		rail[v] = topo_vertex_at(g, v)->kind == TOPO_V_NIC ? topo_vertex_at(g, v)->index : -1;
	for (topo_vkind k = TOPO_V_LEAF; k <= TOPO_V_SUPER; k++)
		for (int l = 0; l < nl; l++) {
			const topo_link *x = topo_link_at(g, l);
			topo_vkind below = k == TOPO_V_LEAF ? TOPO_V_NIC : k - 1;
			if (topo_vertex_at(g, x->dst)->kind != k ||
			    topo_vertex_at(g, x->src)->kind != below)
				continue;
			int r = rail[x->src], *d = &rail[x->dst];
			*d = *d == -1 ? r : *d == r ? r : -2;
		}
	return rail;
}

static bool is_switch(const topo_graph *g, int v)
{
	topo_vkind k = topo_vertex_at(g, v)->kind;
	return k == TOPO_V_LEAF || k == TOPO_V_SPINE || k == TOPO_V_CORE || k == TOPO_V_SUPER;
}

/* Rail-only (fabric.c, route.c): DGX H100 (8 GPUs, 8 NICs, NDR radix 64,
 * 32 nodes a rail leaf, 2 GPUs and 2 NICs a PCIe switch). Counts:
 *   32 nodes: one unit, a leaf per rail and no spine (rail-optimized adds
 *     ceil(8 x 32 / 64) = 4 spines joining the rails: rail_superpod);
 *   64 nodes: 2 leaves a rail of 32 uplinks, S = ceil(64 / 64) = 1 spine a
 *     rail: 16 leaves, 8 spines;
 *   1,056 nodes: 33 leaves a rail; two tiers would put 33 x ceil(32 / 17) =
 *     66 > 64 cables on a spine, so pods of 32 leaves (32 + 1): 2 x 32 = 64
 *     spines a rail, m = 64 / 2 = 32, C = ceil(32 / 32) = 1 core a plane,
 *     32 cores a rail: 264 leaves, 512 spines, 256 cores.
 * No link joins switches of two rails, and every leaf holds one rail. A
 * flow from n0/gpu0 to GPU 5 of another node crosses the NVSwitch once
 * (gpu0 -> nvswitch -> gpu5, the GPU of NIC 5: PXN) and then stays on rail
 * 5: gpu5 -> PCIe switch -> NIC 5 -> rail 5's switches -> NIC 5 -> PCIe
 * switch -> GPU, 2 + 6 links in one unit, 2 + 10 through the cores. To GPU
 * 1, whose NIC shares gpu0's PCIe switch, GPUDirect reaches NIC 1 without
 * NVLink: 6 links. Same rail: as rail-optimized, 6 links in a unit. */
static void rail_only(void)
{
	static const struct {
		int nodes, leaves, spines, cores, far, cross_hops;
	} cases[] = {{32, 8, 0, 0, 31, 8}, {64, 16, 8, 0, 63, 10}, {1056, 264, 512, 256, 1040, 12}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		topo_graph *g = build("dgx-h100", cases[i].nodes, "fabric = rail-only");
		if (!g)
			continue;
		int count[TOPO_V_KIND_COUNT], ports[TOPO_V_KIND_COUNT];
		switch_ports(g, count, ports);
		CHECK_INT(count[TOPO_V_LEAF], cases[i].leaves);
		CHECK_INT(count[TOPO_V_SPINE], cases[i].spines);
		CHECK_INT(count[TOPO_V_CORE], cases[i].cores);
		CHECK_INT(count[TOPO_V_SUPER], 0);
		CHECK(ports[TOPO_V_LEAF] <= 64 && ports[TOPO_V_SPINE] <= 64 && ports[TOPO_V_CORE] <= 64);
		int *rail = vertex_rails(g), cross = 0, unrailed = 0;
		for (int l = 0; l < topo_nlinks(g) && rail; l++) {
			const topo_link *x = topo_link_at(g, l);
			if (is_switch(g, x->src) && is_switch(g, x->dst))
				cross += rail[x->src] != rail[x->dst];
		}
		for (int v = 0; v < topo_nvertices(g) && rail; v++)
			unrailed += is_switch(g, v) && rail[v] < 0;
		CHECK_INT(cross, 0);
		CHECK_INT(unrailed, 0);
		/* Cross rail: n0/gpu0 -> node `far`, GPU 5. */
		int p[TOPO_MAX_HOPS * 3], far = cases[i].far * 8, h;
		h = topo_route_gpus(g, 0, far + 5, -1, -1, p, TOPO_MAX_HOPS * 3);
		CHECK_INT(h, cases[i].cross_hops);
		int scaleup = 0, late = 0, off_rail = 0;
		for (int k = 0; k < h && rail; k++) {
			const topo_link *x = topo_link_at(g, p[k]);
			bool up = x->kind == TOPO_L_NVSWITCH || x->kind == TOPO_L_NVLINK;
			scaleup += up;
			late += up && k >= 2;
			off_rail += (is_switch(g, x->dst) || topo_vertex_at(g, x->dst)->kind == TOPO_V_NIC) &&
			            rail[x->dst] != 5;
		}
		CHECK_INT(scaleup, 2);
		CHECK_INT(late, 0);
		CHECK_INT(off_rail, 0);
		if (h >= 2) {
			CHECK_INT(topo_link_at(g, p[1])->dst, topo_gpu(g, 5)); /* the relay */
			CHECK_INT(topo_link_at(g, p[h - 1])->dst, topo_gpu(g, far + 5));
		}
		/* NIC 1 shares gpu0's PCIe switch: no NVLink. */
		h = topo_route_gpus(g, 0, far + 1, -1, -1, p, TOPO_MAX_HOPS * 3);
		CHECK_INT(h, cases[i].cross_hops - 2);
		for (int k = 0; k < h; k++)
			CHECK(topo_link_at(g, p[k])->kind != TOPO_L_NVSWITCH);
		/* Same rail, same unit: GPU -> PCIe -> NIC -> leaf -> NIC -> PCIe
		 * -> GPU. */
		CHECK_INT(topo_route_gpus(g, 3, 8 + 3, -1, -1, p, TOPO_MAX_HOPS * 3), 6);
		free(rail);
		topo_free(g);
	}
}

int main(void)
{
	torus();
	dgx_a100_node();
	fat_tree_4();
	rail_superpod();
	dgx1_mesh();
	against_alpha_beta();
	nvls_dgx_h100();
	efa_rails();
	strided_pxn();
	oversubscribed();
	vtrain_lut();
	routes_match_plain_bfs();
	fabric_sizes();
	three_tier_routes();
	gpu_fabric_bisection();
	rail_only();
	return check_done();
}
