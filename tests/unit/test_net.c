/* test_net.c - nodes, clusters and collectives: group geometry, ring
 * collectives on hand-computed cases (alpha-beta with NCCL's latency tables),
 * protocol choice, traffic split, link classes, measured busbw against
 * predictions, and the shipped node and cluster files through conf_load.
 * Runs from the source root (meson's workdir). */
#include "../../sim/net/net.h"
#include "../../sim/net/net_int.h"
#include "../../sim/hw/hw.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* n DGX A100 80 GB nodes as topologies/nodes/dgx-a100-80g.ini described them
 * before the ring's local step (test_ring_local): NVSwitch, 300 GB/s per GPU
 * per direction at 0.767 (S21's 230 GB/s at 8 GPUs, no ring_local_bw), 8 x
 * HDR (25 GB/s) at 0.96. The analytic cases below need these numbers, not
 * the file's. */
static net_cluster dgx_a100(int nodes)
{
	net_cluster c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "test");
	c.node.gpus = 8;
	c.node.intra = NET_INTRA_NVSWITCH;
	c.node.intra_Bps = 300e9;
	c.node.intra_eff = 0.767;
	c.node.nics = 8;
	c.node.nic_Bps = 25e9;
	c.node.nic_eff = 0.96;
	c.node.pcie_Bps = 31.5e9;
	c.nodes = nodes;
	c.oversubscription = 1;
	c.switch_lat_s = 130e-9;
	c.gpus = nodes * 8;
	return c;
}

static void group(const net_cluster *c, int size, int stride, int per_node, int nodes)
{
	net_group g;
	net_group_make(c, size, stride, &g);
	CHECK_INT(g.size, size);
	CHECK_INT(g.per_node, per_node);
	CHECK_INT(g.nodes, nodes);
}

/* Ranks fill 8-GPU nodes in order; rank i of the group sits on node
 * floor(i * stride / 8). */
static void test_groups(void)
{
	net_cluster c = dgx_a100(16);
	group(&c, 8, 1, 8, 1);   /* tp = 8: one node */
	group(&c, 4, 1, 4, 1);   /* tp = 4: half a node */
	group(&c, 8, 8, 1, 8);   /* dp over tp = 8: one rank per node */
	group(&c, 4, 2, 4, 1);   /* dp = 4 over tp = 2: ranks 0 2 4 6 */
	group(&c, 8, 2, 4, 2);   /* dp = 8 over tp = 2: 4 per node on 2 nodes */
	group(&c, 2, 64, 1, 2);  /* a pipeline pair 64 ranks apart */
	group(&c, 16, 1, 8, 2);  /* 16 consecutive ranks */
	group(&c, 3, 12, 1, 3);  /* ranks 0 12 24: nodes 0 1 3 */
	group(&c, 1, 1, 1, 1);
	net_group g;
	net_group_make(&c, 0, 1, &g);
	CHECK_INT(g.size, 0);
}

/* Ring all-reduce, 8 A100 on NVSwitch, S = 1 GiB:
 *   busbw = 300e9 * 0.767 = 230.1 GB/s; bandwidth term 2*7/8 * S / busbw = 8.166 ms
 *   Simple: lat = 8.4 + 2*7 * 3.4 = 56.0 us   -> t = 8.222 ms   (chosen)
 *   LL128:  lat = 14 + 14 * 1.9 = 40.6 us, bandwidth / 0.92 -> 8.917 ms
 * Each rank sends 2*7/8 * S over its NVLink port and nothing through NICs. */
static void test_allreduce_node(void)
{
	net_cluster c = dgx_a100(1);
	net_group g;
	net_group_make(&c, 8, 1, &g);
	net_cost k;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	double bw = 300e9 * 0.767, lat = 8.4e-6 + 14 * 3.4e-6;
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.busbw_Bps, bw, 1e-12);
	CHECK_NEAR(k.latency_s, lat, 1e-9);
	CHECK_NEAR(k.time_s, lat + 2.0 * 7 / 8 * GIB / bw, 1e-9);
	CHECK_NEAR(k.intra_bytes, 2.0 * 7 / 8 * GIB, 1e-12);
	CHECK_NEAR(k.inter_bytes, 0, 0);
}

/* 2 nodes x 8 GPUs, one ring of 16, S = 1 GiB:
 *   busbw = min(230.1, 8/8 * 8 * 25e9 * 0.96 = 192) = 192 GB/s
 *   nsteps = 2*15 = 30, of which ninter = 2*(2-1) = 2 cross nodes; an intra step
 *   costs max(3.4, 3 * 1 us net overhead) = 3.4 us for Simple:
 *   lat = 8.4 + 28 * 3.4 + 2 * 14 = 131.6 us; t = lat + 2*15/16 * S / 192e9.
 * Traffic: of the 2*15/16 * S a rank sends, 1/8 goes through a NIC.
 * NCCL's own table picks the ring here too (test_nccl_table); forced so
 * that the figures stay the ring's whatever the table does. */
/* The double binary tree on two nodes (coll.c "tree"), 2 DGX A100 (B_intra
 * = 300 x 0.767 = 230.1 GB/s, 8 NICs of 25 x 0.96 = 24 GB/s), 16 ranks,
 * S = 1 GiB, forced. Every channel's chunk crosses between the nodes once
 * up and once down (the two mirrored trees make either node the root of
 * half the channels), so a node sends S and receives S through its NICs,
 * t_net = S / 192 GB/s; the chain inside a node sends 2 (k-1)/k S = 1.75 S
 * per GPU (up and down at once), t_in = 1.75 S / 230.1 GB/s = S / 131.5
 * GB/s; links x 0.92 (Simple): S / 120.96 GB/s. NCCL's per-channel
 * ceiling: its graph has 8 channels (one per NIC at 24 GB/s), 8 x
 * perChMaxTreeBw 23.6 = 188.8 GB/s of tree bus bandwidth, x 0.5 = 94.4
 * GB/s of data: t_bw = max(S / 120.96, S / 94.4) = S / 94.4 GB/s (the old
 * closed form: 2 S / (0.92 x 192) = S / 88.3). LL128: links x 0.92 x
 * 120/128 = S / 113.4, ceiling min(188.8 x 120/128, 8 x 20) = 160, x 0.5
 * = 80 GB/s: S / 80.
 * Slow NVLink (intra_bw 150 GB/s: 6 links, NCCL's 120 GB/s over 8
 * channels of 15; B_intra 115.05): t_in = 1.75 S / 115.05 GB/s, / 0.92 =
 * S / 60.49 GB/s above the ceiling S / 94.4: the links bind (old: 2 S /
 * (0.92 x 115.05) = S / 52.9).
 * One rank on each of 2 nodes: one channel of 24 GB/s, ceiling 23.6 x 0.5
 * = 11.8 GB/s: S / 11.8 GB/s against the links' S / (0.92 x 24) (old: 2 S
 * / (0.92 x 24) = S / 11.04).
 * 4 DGX A100, 32 ranks: an inner node sends 2 S, the links' 2 S / (0.92 x
 * 192 GB/s) = S / 88.3 GB/s as before; NCCL's ceiling on more than two
 * nodes, 8 x 17.8 x 0.5 = 71.2 GB/s, binds: S / 71.2 GB/s. */
static void test_tree_2nodes(void)
{
	net_cluster c = dgx_a100(2);
	c.algo = NET_ALGO_TREE;
	net_group g;
	net_group_make(&c, 16, 1, &g);
	net_cost k;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_TREE);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.time_s - k.latency_s, GIB / 94.4e9, 1e-9);
	CHECK_NEAR(net_tree_cap_time(&c, &g, NET_PROTO_SIMPLE, GIB), GIB / 94.4e9, 1e-12);
	CHECK_NEAR(net_tree_cap_time(&c, &g, NET_PROTO_LL128, GIB), GIB / 80e9, 1e-12);
	CHECK_NEAR(k.inter_bytes, GIB / 8, 1e-12);
	c.proto = 1 + NET_PROTO_LL128;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_LL128);
	CHECK_NEAR(k.time_s - k.latency_s, GIB / 80e9, 1e-9);
	c.proto = 0;
	net_cluster slow = c;
	slow.node.intra_Bps = 150e9;
	CHECK_INT(net_collective(&slow, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.time_s - k.latency_s, 1.75 * GIB / (0.92 * 150e9 * 0.767), 1e-9);
	net_group_make(&c, 2, 8, &g);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.time_s - k.latency_s, GIB / 11.8e9, 1e-9);
	net_cluster four = dgx_a100(4);
	four.algo = NET_ALGO_TREE;
	net_group_make(&four, 32, 1, &g);
	CHECK_INT(net_collective(&four, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.time_s - k.latency_s, GIB / 71.2e9, 1e-9);
}

static void test_allreduce_2nodes(void)
{
	net_cluster c = dgx_a100(2);
	c.algo = NET_ALGO_RING;
	net_group g;
	net_group_make(&c, 16, 1, &g);
	net_cost k;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	double lat = 8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6, sent = 2.0 * 15 / 16 * GIB;
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.busbw_Bps, 192e9, 1e-12);
	CHECK_NEAR(k.latency_s, lat, 1e-9);
	CHECK_NEAR(k.time_s, lat + sent / 192e9, 1e-9);
	CHECK_NEAR(k.inter_bytes, sent / 8, 1e-12);
	CHECK_NEAR(k.intra_bytes, sent * 7 / 8, 1e-12);

	/* Slow NVLink (intra_bw 150 GB/s: B_intra = 150 x 0.767 = 115.05 GB/s).
	 * Across nodes each channel's chain through a node leaves it through a
	 * NIC, so a rank sends 7/8 of its bytes over NVLink (coll.c header,
	 * B_intra across nodes): the NVLink bound is 115.05 x 8/7 = 131.49 GB/s,
	 * below the NICs' 192: busbw 131.49 GB/s (115.05 if every byte crossed
	 * NVLink), t = lat + sent / busbw. Inside one node the ring's 8 hops are
	 * all NVLink: 115.05 GB/s before its local step (test_ring_local). */
	net_cluster slow = c;
	slow.node.intra_Bps = 150e9;
	CHECK_INT(net_collective(&slow, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.busbw_Bps, 150e9 * 0.767 * 8 / 7, 1e-12);
	CHECK_NEAR(k.time_s, lat + sent / (150e9 * 0.767 * 8 / 7), 1e-9);

	/* A DP group of 16 with one rank per node (tp = 8): each rank owns one
	 * NIC, busbw = 1/8 * 8 * 24 GB/s = 24 GB/s; every step crosses nodes:
	 * lat = 8.4 + 30 * 14 = 428.4 us; all traffic goes through the NIC. */
	net_cluster big = dgx_a100(16);
	net_group_make(&big, 16, 8, &g);
	CHECK_INT(net_collective(&big, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.busbw_Bps, 24e9, 1e-12);
	CHECK_NEAR(k.time_s, 8.4e-6 + 30 * 14e-6 + sent / 24e9, 1e-9);
	CHECK_NEAR(k.inter_bytes, sent, 1e-12);
	CHECK_NEAR(k.intra_bytes, 0, 0);
	/* A 2:1 taper halves the NIC share. */
	big.oversubscription = 2;
	CHECK_INT(net_collective(&big, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.busbw_Bps, 12e9, 1e-12);
}

/* PAT (coll.c "PAT"; N = NVIDIA/nccl 5067397c src/graph/tuning.cc) on DGX
 * A100 nodes, a group of one rank per node (stride 8): B = 1/8 x 8 x 25 GB/s
 * x 0.96 = 24 GB/s, no coll_overhead. Per n:
 *   PAT (Simple):  lat = 8.0 + 2.8 n + floor(log2 n) x 14 / 3.5 us,
 *                  t = lat + S / (0.75 B) = lat + S / 18 GB/s;
 *   ring, one rank per node (the tree's network step, tuning.cc:386-388):
 *     LL      6.6 + 5.0 (n-1) us + (n-1)/n S / (0.5 B),
 *     LL128  14.0 + 8.5 (n-1) us + (n-1)/n S / (0.92 B),
 *     Simple  8.4 + 14  (n-1) us + (n-1)/n S / B.
 * NCCL's table (tune.c) sees one channel of 24 GB/s (the one NIC of 25 GB/s
 * at the fastest speed of its list it carries, search.cc:1052, not doubled
 * below 25 GB/s, search.cc:1039), so its ring LL128 is capped at 1 x
 * perChMaxRingLL128Bw = 20 GB/s (tuning.cc:204-209), x n/(n-1) as
 * algorithm bandwidth, Simple 24 x n/(n-1), PAT 0.75 x 24 = 18.
 * n = 16: PAT 68.8 us, ring LL 81.6, LL128 141.5, Simple 218.4 us.
 *   64 KiB: PAT 68.8 + 3.64 = 72.44 us < ring LL 81.6 + 5.12 = 86.72: PAT;
 *   1 MiB:  PAT 68.8 + 58.25 = 127.05 us < LL 163.52, LL128 190.7: PAT;
 *   16 MiB: NCCL's Simple 218.4 + 16 MiB / 25.6 GB/s = 873.8 us < LL128
 *   141.5 + 786.4 = 927.9 < PAT 1000.9: ring/Simple, podsim's time 218.4
 *   + 15/16 S / B = 873.8 us (the old two channels: LL128 853.8);
 *   256 MiB: Simple 8.4 + 210 + 10485.8 = 10704.2 us: ring.
 * n = 64: PAT 8 + 179.2 + 6 x 4 = 211.2 us, ring LL 321.6, LL128 549.5,
 *   Simple 890.4 us. 1 MiB: PAT 211.2 + 58.25 = 269.5 us < LL 321.6 +
 *   85.98 = 407.6: PAT; 16 MiB PAT (1143.3 us < LL128 549.5 + 825.8 =
 *   1375.3, Simple 890.4 + 688.1 = 1578.5); 64 MiB NCCL's ring Simple
 *   890.4 + 2752.5 = 3642.9 < LL128 549.5 + 3303.1 = 3852.6 < PAT 3939.5:
 *   ring/Simple, podsim's 890.4 + 63/64 S / B = 3642.9 us.
 * PAT applies to all-gather and reduce-scatter of one rank per node only:
 * not to all-reduce, not to 8 ranks per node (nccl_algo = pat there falls
 * back to the lowest time: the ring), not with nccl_proto = ll. */
static void test_pat(void)
{
	net_cluster c = dgx_a100(64);
	const double MiB = 1048576.0, B = 24e9;
	const struct {
		int n;
		double S;
		net_algo algo;
		net_proto proto;
		double t_us;
	} cases[] = {
	        {16, 64 * 1024, NET_ALGO_PAT, NET_PROTO_SIMPLE, 68.8 + 65536 / 18e3},
	        {16, MiB, NET_ALGO_PAT, NET_PROTO_SIMPLE, 68.8 + MiB / 18e3},
	        {16, 16 * MiB, NET_ALGO_RING, NET_PROTO_SIMPLE, 218.4 + 15.0 / 16 * 16 * MiB / B * 1e6},
	        {16, 256 * MiB, NET_ALGO_RING, NET_PROTO_SIMPLE, 218.4 + 15.0 / 16 * 256 * MiB / B * 1e6},
	        {64, MiB, NET_ALGO_PAT, NET_PROTO_SIMPLE, 211.2 + MiB / 18e3},
	        {64, 16 * MiB, NET_ALGO_PAT, NET_PROTO_SIMPLE, 211.2 + 16 * MiB / 18e3},
	        {64, 64 * MiB, NET_ALGO_RING, NET_PROTO_SIMPLE, 890.4 + 63.0 / 64 * 64 * MiB / B * 1e6},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int coll = NET_ALLGATHER; coll <= NET_REDUCESCATTER; coll++) {
			net_group g;
			net_cost k;
			net_group_make(&c, cases[i].n, 8, &g);
			CHECK_INT(net_pat_ok(&c, (net_coll)coll, &g), 1);
			CHECK_INT(net_collective(&c, (net_coll)coll, &g, cases[i].S, &k), SIM_OK);
			CHECK_INT(k.algo, cases[i].algo);
			CHECK_INT(k.proto, cases[i].proto);
			CHECK_NEAR(k.time_s, cases[i].t_us * 1e-6, 1e-9);
			CHECK_NEAR(k.inter_bytes, (cases[i].n - 1.0) / cases[i].n * cases[i].S, 1e-12);
		}
	}
	/* forced: PAT at 256 MiB on 16 nodes, 68.8 us + 256 MiB / 18 GB/s */
	net_cluster f = c;
	f.algo = NET_ALGO_PAT;
	net_group g;
	net_cost k;
	net_group_make(&f, 16, 8, &g);
	CHECK_INT(net_collective(&f, NET_ALLGATHER, &g, 256 * MiB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_PAT);
	CHECK_NEAR(k.time_s, 68.8e-6 + 256 * MiB / 18e9, 1e-9);
	CHECK_NEAR(k.latency_s, 68.8e-6, 1e-9);
	/* the ring forced at 64 KiB: LL, 81.6 + 5.12 us */
	f.algo = NET_ALGO_RING;
	CHECK_INT(net_collective(&f, NET_ALLGATHER, &g, 65536, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_RING);
	CHECK_NEAR(k.time_s, 81.6e-6 + 15.0 / 16 * 65536 / (0.5 * B), 1e-9);
	/* not all-reduce, not 8 ranks per node, not LL only */
	CHECK_INT(net_pat_ok(&c, NET_ALLREDUCE, &g), 0);
	f.algo = NET_ALGO_PAT;
	CHECK_INT(net_collective(&f, NET_ALLREDUCE, &g, 65536, &k), SIM_OK);
	CHECK_INT(k.algo == NET_ALGO_PAT, 0);
	net_group_make(&f, 128, 1, &g);
	CHECK_INT(net_pat_ok(&f, NET_ALLGATHER, &g), 0);
	CHECK_INT(net_collective(&f, NET_ALLGATHER, &g, 65536, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_RING);
	net_cluster ll = c;
	ll.proto = NET_PROTO_LL + 1;
	net_group_make(&ll, 16, 8, &g);
	CHECK_INT(net_pat_ok(&ll, NET_ALLGATHER, &g), 0);
	CHECK_INT(net_collective(&ll, NET_ALLGATHER, &g, 65536, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_RING);
	/* the latency alone, n = 3 (floor(log2 3) = 1): 8 + 8.4 + 4 = 20.4 us */
	CHECK_NEAR(net_pat_latency(&c, 3), 20.4e-6, 1e-12);
}

/* All-gather and reduce-scatter move (n-1)/n * S: half an all-reduce's bytes,
 * with n-1 = 7 steps: lat = 8.4 + 7 * 3.4 = 32.2 us (Simple). Broadcast is a
 * pipelined ring: S / busbw. */
static void test_allgather(void)
{
	net_cluster c = dgx_a100(1);
	net_group g;
	net_group_make(&c, 8, 1, &g);
	net_cost ag, rs, bc;
	double bw = 300e9 * 0.767;
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, GIB, &ag), SIM_OK);
	CHECK_INT(net_collective(&c, NET_REDUCESCATTER, &g, GIB, &rs), SIM_OK);
	CHECK_INT(net_collective(&c, NET_BROADCAST, &g, GIB, &bc), SIM_OK);
	CHECK_NEAR(ag.time_s, 32.2e-6 + 7.0 / 8 * GIB / bw, 1e-9);
	CHECK_NEAR(rs.time_s, ag.time_s, 1e-12);
	CHECK_NEAR(ag.intra_bytes, 7.0 / 8 * GIB, 1e-12);
	CHECK_NEAR(bc.time_s, 32.2e-6 + GIB / bw, 1e-9);
	CHECK_STR(net_coll_name(NET_ALLGATHER), "all-gather");
	CHECK_STR(net_coll_name(NET_COLL_COUNT), "?");
}

/* Protocol choice on 8 A100 (busbw 230.1 GB/s, 14 steps), x = 1.75 S / busbw:
 *   LL     15.0 us + x / 0.5     LL128 40.6 us + x / 0.92     Simple 56.0 us + x
 * LL wins below x = 28 us, Simple above x = 177 us, LL128 in between:
 * 8 KiB (x = 0.06 us) -> LL; 16 MiB (x = 128 us) -> LL128; 1 GiB -> Simple. */
static void test_protocols(void)
{
	net_cluster c = dgx_a100(1);
	net_group g;
	net_group_make(&c, 8, 1, &g);
	net_cost k;
	double bw = 300e9 * 0.767;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 8192, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_LL);
	CHECK_NEAR(k.time_s, 6.6e-6 + 14 * 0.6e-6 + 1.75 * 8192 / (0.5 * bw), 1e-9);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 16 * 1048576.0, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_LL128);
	CHECK_NEAR(k.time_s, 14e-6 + 14 * 1.9e-6 + 1.75 * 16 * 1048576.0 / (0.92 * bw), 1e-9);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	/* PCIe nodes: no LL128, PCIe step latencies (Simple 5.7 us). */
	c.node.intra = NET_INTRA_PCIE;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 16 * 1048576.0, &k), SIM_OK);
	CHECK(k.proto != NET_PROTO_LL128);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.latency_s, 8.4e-6 + 14 * 5.7e-6, 1e-9);
}

/* The ring's local step (coll.c): with ring_local_bw L, a ring inside one
 * node adds S / (n L) to its data time. DGX A100 as fitted (B = 300 x 0.792
 * = 237.6 GB/s, L = 515 GB/s), S = 1 GiB:
 *   all-reduce, n = 2: t_bw = S/B + S/(2L) = 4.519 + 1.042 = 5.561 ms,
 *     busbw = S / t_bw = B / (1 + B/(2L)) = 193.1 GB/s; Simple: lat = 8.4 +
 *     2 x 3.4 = 15.2 us (LL128: 17.8 us + t_bw / 0.92, slower);
 *   all-reduce, n = 8: busbw = B / (1 + B/(14 L)) = 230.0 GB/s;
 *   all-gather, n = 4: t_bw = 3/4 S/B + S/(4L), busbw = B / (1 + B/(3L));
 *   broadcast, n = 4: a pipeline, no local step: S / B;
 *   the tree (forced) keeps the links' rate: 2 S / B;
 *   a ring across two nodes pays none (NIC bound: 192 GB/s as without L).
 * busbw rises with the group size (more link steps per local step). */
static void test_ring_local(void)
{
	net_cluster c = dgx_a100(1);
	c.node.intra_eff = 0.792;
	c.node.ring_local_Bps = 515e9;
	double B = 300e9 * 0.792, L = 515e9;
	net_group g;
	net_cost k;
	net_group_make(&c, 2, 1, &g);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	double t_bw = GIB / B + GIB / (2 * L);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.time_s, 15.2e-6 + t_bw, 1e-9);
	CHECK_NEAR(k.busbw_Bps, B / (1 + B / (2 * L)), 1e-9);
	CHECK_NEAR(k.busbw_Bps, 193.1e9, 1e-3);
	CHECK_NEAR(net_ring_local_time(&c, NET_ALLREDUCE, &g, GIB), GIB / (2 * L), 1e-12);
	double prev = 0;
	for (int n = 2; n <= 8; n++) {
		net_group_make(&c, n, 1, &g);
		CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
		CHECK_NEAR(k.busbw_Bps, B / (1 + B / (2.0 * (n - 1) * L)), 1e-9);
		CHECK(k.busbw_Bps > prev);
		prev = k.busbw_Bps;
	}
	CHECK_NEAR(prev, 230.0e9, 1e-3);
	net_group_make(&c, 4, 1, &g);
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.busbw_Bps, B / (1 + B / (3 * L)), 1e-9);
	CHECK_INT(net_collective(&c, NET_REDUCESCATTER, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.busbw_Bps, B / (1 + B / (3 * L)), 1e-9);
	CHECK_INT(net_collective(&c, NET_BROADCAST, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.time_s, k.latency_s + GIB / B, 1e-9);
	CHECK_NEAR(net_ring_local_time(&c, NET_BROADCAST, &g, GIB), 0, 0);
	net_cluster t = c;
	t.algo = NET_ALGO_TREE;
	CHECK_INT(net_collective(&t, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_TREE);
	CHECK_NEAR(k.time_s - k.latency_s, 2 * GIB / (B * net_tree_proto_bw(k.proto, false)),
		   1e-9);
	/* across nodes: as without the local step */
	net_cluster two = dgx_a100(2), two_l = two;
	two_l.node.ring_local_Bps = 515e9;
	net_cost a, b;
	net_group_make(&two, 16, 1, &g);
	CHECK_INT(net_collective(&two, NET_ALLREDUCE, &g, GIB, &a), SIM_OK);
	CHECK_INT(net_collective(&two_l, NET_ALLREDUCE, &g, GIB, &b), SIM_OK);
	CHECK_NEAR(b.time_s, a.time_s, 1e-12);
	CHECK_NEAR(net_ring_local_time(&two_l, NET_ALLREDUCE, &g, GIB), 0, 0);
	/* none on a PCIe node (P2P read is NCCL's on NVLink paths), without
	 * ring_local_bw, for one rank or no bytes */
	net_cluster pcie = c;
	pcie.node.intra = NET_INTRA_PCIE;
	net_group_make(&pcie, 4, 1, &g);
	CHECK_NEAR(net_ring_local_time(&pcie, NET_ALLREDUCE, &g, GIB), 0, 0);
	net_group_make(&c, 4, 1, &g);
	CHECK_NEAR(net_ring_local_time(&two, NET_ALLREDUCE, &g, GIB), 0, 0);
	CHECK_NEAR(net_ring_local_time(&c, NET_ALLREDUCE, &g, 0), 0, 0);
	net_group_make(&c, 1, 1, &g);
	CHECK_NEAR(net_ring_local_time(&c, NET_ALLREDUCE, &g, GIB), 0, 0);
}

/* p2p and all-to-all, and the trivial and bad cases. */
static void test_p2p_alltoall(void)
{
	net_cluster c = dgx_a100(2);
	net_group g = {2, 2, 1, 1};
	net_cost k;
	/* Inside a node: 1 GiB / 230.1 GB/s + 8.4 + 3.4 us. */
	CHECK_INT(net_collective(&c, NET_P2P, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.time_s, 11.8e-6 + GIB / (300e9 * 0.767), 1e-9);
	CHECK_NEAR(k.intra_bytes, GIB, 1e-12);
	/* Across nodes: one NIC, 24 GB/s; lat 8.4 + 14 us. */
	g = (net_group){2, 1, 2, 8};
	CHECK_INT(net_collective(&c, NET_P2P, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.time_s, 22.4e-6 + GIB / 24e9, 1e-9);
	CHECK_NEAR(k.inter_bytes, GIB, 1e-12);
	/* All-to-all of 16 over 2 nodes: 7/16 S inside (230.1 GB/s), 8/16 S out
	 * per rank; the node's 8 ranks send 8 x 0.5 S over its 192 GB/s of NICs,
	 * one rank's 24 GB/s NIC share each: the NIC side binds, 0.5 S / 24e9
	 * (as the flow model: each NIC carries its GPU's bytes); one concurrent
	 * round: lat = 8.4 + 3.4 + 14 us. */
	net_group_make(&c, 16, 1, &g);
	CHECK_INT(net_collective(&c, NET_ALLTOALL, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.time_s, 25.8e-6 + 0.5 * GIB / 24e9, 1e-9);
	CHECK_NEAR(k.intra_bytes, 7.0 / 16 * GIB, 1e-12);
	CHECK_NEAR(k.inter_bytes, 8.0 / 16 * GIB, 1e-12);
	/* One rank or no bytes cost nothing; groups that do not fit are EINVAL. */
	g = (net_group){1, 1, 1, 1};
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_OK);
	CHECK_NEAR(k.time_s, 0, 0);
	net_group_make(&c, 16, 1, &g);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 0, &k), SIM_OK);
	CHECK_NEAR(k.time_s, 0, 0);
	net_group_make(&c, 32, 1, &g); /* 4 nodes on a 2-node cluster */
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_EINVAL);
	g = (net_group){16, 16, 1, 1};    /* 16 per node on 8-GPU nodes */
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, GIB, &k), SIM_EINVAL);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, NULL, GIB, &k), SIM_EINVAL);
}

static void test_links(void)
{
	net_cluster c = dgx_a100(2);
	net_link_class lc[NET_LINK_KIND_COUNT];
	CHECK_INT(net_link_classes(&c, lc), 4);
	CHECK_INT(lc[0].kind, NET_LINK_SCALEUP);
	CHECK_STR(lc[0].name, "node0/gpu0 -> nvswitch");
	CHECK_STR(lc[0].kind_name, "nvlink");
	CHECK_INT(lc[0].count, 16);
	CHECK_NEAR(lc[0].Bps, 300e9, 0);
	CHECK_STR(lc[1].name, "node0/nic0 -> leaf0");
	CHECK_STR(lc[1].kind_name, "ib");
	CHECK_INT(lc[1].count, 16);
	CHECK_INT(lc[2].kind, NET_LINK_FABRIC);
	CHECK_INT(lc[2].count, 16);
	CHECK_INT(lc[3].kind, NET_LINK_PCIE);
	CHECK_STR(lc[3].name, "node0/gpu0 -> host");
	c.oversubscription = 2;
	net_link_classes(&c, lc);
	CHECK_INT(lc[2].count, 8);
	/* One PCIe node on Ethernet: no fabric class. */
	c = dgx_a100(1);
	c.node.intra = NET_INTRA_PCIE;
	c.node.nic_kind = NET_NIC_ETHERNET;
	CHECK_INT(net_link_classes(&c, lc), 3);
	CHECK_STR(lc[0].name, "node0/gpu0 -> pcie-switch");
	CHECK_STR(lc[0].kind_name, "pcie");
	CHECK_STR(lc[1].kind_name, "ethernet");
	CHECK_INT(lc[2].kind, NET_LINK_PCIE);
	/* Rail-only on HDR (radix 40, 20 NICs a leaf when non-blocking): up to
	 * 20 nodes a rail is one switch, no fabric class; 21 nodes take a
	 * spine per rail, 21 x 8 uplinks. At 3:1 a leaf has floor(40 x 3 / 4)
	 * = 30 down ports: 21 nodes are one unit again. */
	c = dgx_a100(20);
	c.fabric = NET_FABRIC_RAIL_ONLY;
	CHECK_INT(net_switch_radix(&c), 40);
	CHECK_INT(net_leaf_down(&c), 20);
	CHECK_INT(net_link_classes(&c, lc), 3);
	CHECK_INT(lc[2].kind, NET_LINK_PCIE);
	c.nodes = 21;
	CHECK_INT(net_link_classes(&c, lc), 4);
	CHECK_INT(lc[2].kind, NET_LINK_FABRIC);
	CHECK_INT(lc[2].count, 168);
	c.oversubscription = 3;
	CHECK_INT(net_leaf_down(&c), 30);
	CHECK_INT(net_link_classes(&c, lc), 3);
}

/* nccl-tests' bus bandwidth of a predicted all-reduce: 2(n-1)/n * S / t. */
static double ar_busbw(const net_cluster *c, int n, double bytes)
{
	net_group g;
	net_group_make(c, n, 1, &g);
	net_cost k;
	if (net_collective(c, NET_ALLREDUCE, &g, bytes, &k) != SIM_OK)
		return 0;
	return 2.0 * (n - 1) / n * bytes / k.time_s;
}

/* Measured all-reduce bus bandwidth (shared/data/cases/microbench.csv),
 * copied here with their row ids:
 *   LUT-A100-G8-1024  8 x A100 NVSwitch, 1 GiB (1073741824 B): 8193 us, 229.35 GB/s
 *   LUT-A100-G8-0513  8 x A100 NVSwitch, 537919488 B: 4194.8 us, 224.41 GB/s
 *   Q08               8 x A100 NVSwitch, 16 GiB: 234.89 GB/s
 *   Q09               8 x H200 NVSwitch gen3 (ring, NVLS off), 16 GiB: 367.2 GB/s
 *   Q12               DGX A100 multi-node, 8 x HDR, ring: 192 GB/s (large messages)
 * The intra-node efficiencies come from other sources (S21: ~230 GB/s on
 * A100; S20: ~370 GB/s on H100), so these are real checks: tolerance 3 % on
 * the large-message rows, 5 % on the 0.5 GiB row. */
static void test_measured(void)
{
	net_cluster a = dgx_a100(1);
	double p = ar_busbw(&a, 8, GIB);
	printf("LUT-A100-G8-1024: measured 229.35 GB/s, predicted %.2f GB/s\n", p / 1e9);
	CHECK_NEAR(p, 229.35e9, 0.03);
	p = ar_busbw(&a, 8, 537919488.0);
	printf("LUT-A100-G8-0513: measured 224.41 GB/s, predicted %.2f GB/s\n", p / 1e9);
	CHECK_NEAR(p, 224.41e9, 0.05);
	p = ar_busbw(&a, 8, 16 * GIB);
	printf("Q08 A100 16 GiB: measured 234.89 GB/s, predicted %.2f GB/s\n", p / 1e9);
	CHECK_NEAR(p, 234.89e9, 0.03);
	net_cluster h = dgx_a100(1);
	h.node.intra_Bps = 450e9;
	h.node.intra_eff = 0.822;
	p = ar_busbw(&h, 8, 16 * GIB);
	printf("Q09 H200 16 GiB ring: measured 367.2 GB/s, predicted %.2f GB/s\n", p / 1e9);
	CHECK_NEAR(p, 367.2e9, 0.03);
	net_cluster m = dgx_a100(4);
	p = ar_busbw(&m, 32, 16 * GIB);
	printf("Q12 4 x DGX A100 8 x HDR: measured 192 GB/s, predicted %.2f GB/s\n", p / 1e9);
	CHECK_NEAR(p, 192e9, 0.03);
}

static const char *const clusters[] = {
	"selene-a100-80g", "dgx-h100-superpod", "h800-cluster", "dgx-a100-40g-cluster",
	"alvis-a100",	   "alvis-a40",		"workstation-4090", "tiny-2node",
	"efa-h100-cluster",
};
static const char *const nodes[] = {"dgx-a100-40g", "dgx-a100-80g", "dgx-h100", "hgx-h800",
				    "dgx1-v100",    "pcie-4x4090",  "alvis-a100", "alvis-a40",
				    "alvis-v100",   "alvis-t4",     "p5-h100", "hgx-a100-4gpu-40g",
				    "hgx-a100-4gpu-80g", "hgx-h100-4gpu"};

static int load_cluster(const char *path, const char *extra, net_cluster *c, hw_gpu *gpu,
			sim_diag *d)
{
	char text[512];
	snprintf(text, sizeof text, "include = %s\n%s", path, extra);
	conf_doc *doc = NULL;
	int rc = conf_load_string(text, strlen(text), "t.ini", "topologies", d, &doc);
	if (rc == SIM_OK)
		rc = hw_gpu_from_conf(doc, gpu, d);
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, c, d);
	conf_free(doc);
	return rc;
}

/* Every shipped cluster loads (with its node and GPU); every node file loads
 * with a one-node [cluster]; tiny-2node has the numbers of its files. */
static void test_shipped(void)
{
	net_cluster c;
	hw_gpu g;
	for (size_t i = 0; i < sizeof clusters / sizeof clusters[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s.ini", clusters[i]);
		sim_diag *d = sim_diag_new();
		if (!CHECK_INT(load_cluster(path, "", &c, &g, d), SIM_OK))
			sim_diag_print(d, stderr);
		else
			CHECK_STR(c.name, clusters[i]);
		sim_diag_free(d);
	}
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "nodes/%s.ini", nodes[i]);
		sim_diag *d = sim_diag_new();
		if (!CHECK_INT(load_cluster(path, "[cluster]\nname = one\nnodes = 1\n", &c, &g, d),
			       SIM_OK))
			sim_diag_print(d, stderr);
		else
			CHECK_STR(c.node.name, nodes[i]);
		sim_diag_free(d);
	}
	sim_diag *d = sim_diag_new();
	CHECK_INT(load_cluster("tiny-2node.ini", "", &c, &g, d), SIM_OK);
	CHECK_INT(c.nodes, 2);
	CHECK_INT(c.gpus, 16);
	CHECK_INT(c.node.intra, NET_INTRA_NVSWITCH);
	CHECK_NEAR(c.node.intra_Bps, 300e9, 1e-12);
	CHECK_NEAR(c.node.nic_Bps, 25e9, 1e-12); /* 200 Gb/s */
	CHECK_INT(c.node.nic_kind, NET_NIC_IB);
	CHECK_NEAR(c.switch_lat_s, 130e-9, 1e-12);
	CHECK_NEAR(hw_peak(&g, HW_BF16), 312e12, 1e-12);
	CHECK_STR(g.name, "a100-sxm4-80g");
	sim_diag_free(d);
	/* The 4-GPU H100 board: its file's overrides of the DGX H100 it
	 * includes (a mesh of 4 with no NVLS, a NIC per GPU), the rest the
	 * DGX's (the NIC rate). */
	d = sim_diag_new();
	CHECK_INT(load_cluster("nodes/hgx-h100-4gpu.ini", "[cluster]\nname = b\nnodes = 2\n", &c, &g,
			       d),
		  SIM_OK);
	CHECK_INT(c.node.gpus, 4);
	CHECK_INT(c.node.intra, NET_INTRA_NVLINK_MESH);
	CHECK_NEAR(c.node.nvls_busbw_Bps, 0, 1e-12);
	CHECK_INT(c.node.nics, 4);
	CHECK_NEAR(c.node.nic_Bps, 50e9, 1e-12); /* 400 Gb/s */
	sim_diag_free(d);
	/* More than one node without NICs is an error at the nics line. */
	d = sim_diag_new();
	CHECK_INT(load_cluster("tiny-2node.ini", "[node]\nnics = 0\n", &c, &g, d), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "t.ini:3: error: [node] a cluster of more than one node "
				       "needs nics >= 1 and nic_bw > 0");
	sim_diag_free(d);
}

/* The node's calibrated coll_overhead is added once to every collective and
 * p2p, whatever the size: 44 us on top of the same all-reduce. */
static void test_overhead(void)
{
	net_cluster c = dgx_a100(1);
	net_group g;
	net_group_make(&c, 8, 1, &g);
	net_cost a, b, p;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 1048576.0, &a), SIM_OK);
	c.node.coll_overhead_s = 44e-6;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 1048576.0, &b), SIM_OK);
	CHECK_NEAR(b.time_s - a.time_s, 44e-6, 1e-9);
	net_group pair = {2, 2, 1, 1};
	CHECK_INT(net_collective(&c, NET_P2P, &pair, 4096.0, &p), SIM_OK);
	CHECK(p.time_s > 44e-6);
}

/* NVLS: with nvls_busbw B = 480 GB/s an 8-GPU all-reduce of S has algbw
 * min(B x 8/14, B_port x 8/9) = min(274.3, 328.8) GB/s on H100 ports (450 x
 * 0.822 = 370 GB/s), so S = 1 GiB takes lat + S / 274.3e9 = 3.91 ms + lat,
 * faster than the ring at 370 GB/s busbw (algbw 211): the all-reduce picks
 * NVLS. On A100 ports (300 x 0.767 = 230 GB/s) each port's 9/8 S binds
 * instead: algbw 230 x 8/9 = 204.5 GB/s. A group across two nodes, an
 * all-gather, or a node without NVLS gets none. */
static void test_nvls(void)
{
	net_cluster c = dgx_a100(2);
	c.node.nvls_busbw_Bps = 480e9;
	c.node.intra_Bps = 450e9;
	c.node.intra_eff = 0.822;
	net_group g, across;
	net_group_make(&c, 8, 1, &g);
	net_group_make(&c, 16, 1, &across);
	net_cost nv, ar, ag;
	double S = 1073741824.0;
	CHECK_INT(net_nvls_allreduce(&c, &g, S, &nv), SIM_OK);
	CHECK_NEAR(nv.time_s - nv.latency_s, S / (480e9 * 8 / 14), 1e-12);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, S, &ar), SIM_OK);
	CHECK_NEAR(ar.time_s, nv.time_s, 1e-12);
	CHECK_INT(net_nvls_allreduce(&c, &across, S, &nv), SIM_EINVAL);
	net_cluster a100 = dgx_a100(2);
	a100.node.nvls_busbw_Bps = 480e9;
	CHECK_INT(net_nvls_allreduce(&a100, &g, S, &nv), SIM_OK);
	CHECK_NEAR(nv.time_s - nv.latency_s, S / (300e9 * 0.767 * 8 / 9), 1e-12);
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &ag), SIM_OK);
	CHECK(ag.busbw_Bps < 480e9);
	c.node.nvls_busbw_Bps = 0;
	CHECK_INT(net_nvls_allreduce(&c, &g, S, &nv), SIM_EINVAL);
}

/* A p5-class EFA cluster of `nodes` nodes with the EFA keys given (the
 * shipped node file; its rails are 32 x 100 Gb/s). */
static int efa_cluster(int nnodes, const char *keys, net_cluster *c, sim_diag *d)
{
	char text[512];
	hw_gpu g;
	snprintf(text, sizeof text,
		 "[cluster]\nname = efa\nnodes = %d\nfabric = efa\n%s\n", nnodes, keys);
	return load_cluster("nodes/p5-h100.ini", text, c, &g, d);
}

/* The EFA model's closed forms (net.h, coll.c "The EFA model"). Ring
 * all-gather, Simple forced, on N = 4 nodes of 8 (n = 32), L = 50 us, o = 3
 * us, rails 32 x 10 GB/s, no congestion:
 *   lat  = base 8.4 + (n - N) x max(3.4, 3 x 1) + (N - 1) x (14 + 2 L)
 *          + (n - 1) x o = 8.4 + 28 x 3.4 + 3 x 114 + 31 x 3 = 538.6 us
 *   B    = min(NVLink 450 x 0.822 = 369.9, NICs 32 x 10 = 320) = 320 GB/s
 *   t    = lat + (n-1)/n S / B, S = 256 MiB: 538.6 us + 813.4 us.
 * Step by step: each of the n - 1 steps moves a chunk S/n per rank at the
 * ring's bus bandwidth B and pays the message cost o, the N - 1 steps that
 * cross nodes also 14 + 2 L, the others 3.4 us:
 *   t = 8.4 + (n - N) 3.4 + (N - 1)(14 + 2 L) + (n - 1)(o + S / (n B)),
 * the closed form above. Congestion 0.5 with exponent 1 on 3 nodes doubles
 * (kappa = 1 + 0.5 x 2 = 2) the network latencies and halves the rails'
 * rate. */
static void test_efa(void)
{
	const double S = 268435456.0, us = 1e-6;
	net_cluster c;
	sim_diag *d = sim_diag_new();
	CHECK_INT(efa_cluster(4,
			      "net_latency = 50 us\nmsg_overhead = 3 us\nrail_bw = 10 GB/s\n"
			      "nccl_proto = simple",
			      &c, d),
		  SIM_OK);
	sim_diag_print(d, stderr);
	CHECK_INT(c.fabric, NET_FABRIC_EFA);
	CHECK_NEAR(c.node.nic_eff, 0.8, 1e-12); /* rail_bw / nic_bw = 10 / 12.5 */
	net_group g;
	net_group_make(&c, 32, 1, &g);
	net_cost ag;
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &ag), SIM_OK);
	double lat = 8.4 * us + 28 * 3.4 * us + 3 * (14 + 2 * 50) * us + 31 * 3 * us;
	CHECK_NEAR(ag.latency_s, lat, 1e-12);
	CHECK_NEAR(ag.time_s, lat + 31.0 / 32 * S / 320e9, 1e-12);
	CHECK_NEAR(ag.busbw_Bps, 320e9, 1e-12);
	/* LL128 pays L once: its network step is 4 + 50 us, NVLink steps
	 * max(1.9, 1) us, and 0.92 of the bandwidth. */
	CHECK_INT(efa_cluster(4,
			      "net_latency = 50 us\nmsg_overhead = 3 us\nrail_bw = 10 GB/s\n"
			      "nccl_proto = ll128",
			      &c, d),
		  SIM_OK);
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &ag), SIM_OK);
	lat = 14 * us + 28 * 1.9 * us + 3 * (4 + 50) * us + 31 * 3 * us;
	CHECK_NEAR(ag.time_s, lat + 31.0 / 32 * S / (0.92 * 320e9), 1e-12);
	/* Congestion: kappa(3) = 2 with congestion 0.5, exponent 1. */
	CHECK_INT(efa_cluster(3,
			      "net_latency = 50 us\nmsg_overhead = 3 us\nrail_bw = 10 GB/s\n"
			      "nccl_proto = simple\ncongestion = 0.5\ncongestion_exp = 1",
			      &c, d),
		  SIM_OK);
	CHECK_NEAR(net_congestion(&c, 3), 2, 1e-12);
	CHECK_NEAR(net_congestion(&c, 1), 1, 1e-12);
	net_group_make(&c, 24, 1, &g);
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &ag), SIM_OK);
	lat = 8.4 * us + 21 * 3.4 * us + 2 * 2 * (14 + 2 * 50) * us + 2 * 23 * 3 * us;
	CHECK_NEAR(ag.time_s, lat + 23.0 / 24 * S / 160e9, 1e-12);
	/* The same keys calibrate any fabric (podsim calibrate --fabric on an
	 * InfiniBand or RoCE cluster's own collectives): on a fat tree of
	 * DGX H100 (NDR), ring all-gather with Simple on N = 2 nodes of 8
	 * (n = 16), L = 5 us and o = 1 us add to NCCL's own time the L of
	 * each of the N - 1 network steps twice (Simple) and o on each of the
	 * n - 1 steps: (N-1) 2 L + (n-1) o = 10 + 15 = 25 us. */
	net_cluster ib0, ib1;
	const char *ring = "[cluster]\nname = x\nnodes = 2\nnccl_algo = ring\nnccl_proto = simple\n";
	char keys[256];
	snprintf(keys, sizeof keys, "%snet_latency = 5 us\nmsg_overhead = 1 us\n", ring);
	CHECK_INT(load_cluster("nodes/dgx-h100.ini", ring, &ib0, &(hw_gpu){0}, d), SIM_OK);
	CHECK_INT(load_cluster("nodes/dgx-h100.ini", keys, &ib1, &(hw_gpu){0}, d), SIM_OK);
	CHECK_INT(ib1.fabric, NET_FABRIC_FAT_TREE);
	net_group_make(&ib0, 16, 1, &g);
	net_cost a0, a1;
	CHECK_INT(net_collective(&ib0, NET_ALLGATHER, &g, S, &a0), SIM_OK);
	CHECK_INT(net_collective(&ib1, NET_ALLGATHER, &g, S, &a1), SIM_OK);
	CHECK_INT(a1.algo, a0.algo);
	CHECK_INT(a1.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(a1.time_s - a0.time_s, 25 * us, 1e-9);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	d = sim_diag_new();
	CHECK_INT(efa_cluster(2, "rail_bw = 20 GB/s", &c, d), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "t.ini:6: error: [cluster] rail_bw = 20 GB/s exceeds the "
				       "line rate of one NIC ([node] nic_bw = 12.5 GB/s)");
	sim_diag_free(d);
	d = sim_diag_new();
	CHECK_INT(efa_cluster(2, "spread = 1:0.95-1.05 2:0.8-1.3, 4:0.5-2", &c, d), SIM_OK);
	CHECK_INT(c.nspread, 3);
	CHECK_INT(c.spread[2].nodes, 4);
	CHECK_NEAR(c.spread[1].lo, 0.8, 1e-12);
	CHECK_NEAR(c.spread[2].hi, 2, 1e-12);
	CHECK_INT(efa_cluster(2, "spread = 1:0.95-1.05 1:0.8-1.3", &c, d), SIM_ECONF);
	CHECK_INT(efa_cluster(2, "spread = 2:1.2-1.3", &c, d), SIM_ECONF);
	sim_diag_free(d);
}

/* The aws-ofi-nccl region tuner (efa.c), 8 ranks per node on p5: 256 MiB
 * all-reduce on 4 nodes Ring/LL128, on 16 Tree/LL128; 1 GiB on 32 nodes
 * NVLSTree/Simple (notes section 3.4). Not on 2 nodes, not for all-gather,
 * not with nccl_proto forced; with LL128 impossible it falls to the next
 * region that applies or to NCCL's lowest time. */
static void test_efa_region(void)
{
	net_cluster c;
	sim_diag *d = sim_diag_new();
	CHECK_INT(efa_cluster(64, "", &c, d), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	net_algo a = NET_ALGO_AUTO;
	net_proto p = NET_PROTO_LL;
	net_group g;
	const double S = 268435456.0;
	net_group_make(&c, 32, 1, &g);
	CHECK(net_efa_region(&c, NET_ALLREDUCE, &g, S, &a, &p));
	CHECK_INT(a, NET_ALGO_RING);
	CHECK_INT(p, NET_PROTO_LL128);
	net_group_make(&c, 128, 1, &g);
	CHECK(net_efa_region(&c, NET_ALLREDUCE, &g, S, &a, &p));
	CHECK_INT(a, NET_ALGO_TREE);
	CHECK_INT(p, NET_PROTO_LL128);
	net_cost x;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_TREE);
	CHECK_INT(x.proto, NET_PROTO_LL128);
	net_group_make(&c, 256, 1, &g);
	CHECK(net_efa_region(&c, NET_ALLREDUCE, &g, 4 * S, &a, &p));
	CHECK_INT(a, NET_ALGO_NVLSTREE);
	CHECK_INT(p, NET_PROTO_SIMPLE);
	net_group_make(&c, 16, 1, &g);
	CHECK(!net_efa_region(&c, NET_ALLREDUCE, &g, S, &a, &p));
	net_group_make(&c, 128, 1, &g);
	CHECK(!net_efa_region(&c, NET_ALLGATHER, &g, S, &a, &p));
	net_group_make(&c, 64, 2, &g); /* 4 ranks per node: p5/p5e has no table */
	CHECK(!net_efa_region(&c, NET_ALLREDUCE, &g, S, &a, &p));
	net_cluster none = c; /* an instance without region tables: NCCL decides */
	none.node.ec2 = NET_EC2_NONE;
	net_group_make(&c, 128, 1, &g);
	CHECK(!net_efa_region(&none, NET_ALLREDUCE, &g, S, &a, &p));
	c.proto = 1 + NET_PROTO_SIMPLE;
	net_group_make(&c, 128, 1, &g);
	CHECK(!net_efa_region(&c, NET_ALLREDUCE, &g, S, &a, &p));
}

/* The pick of net_efa_region for a group of `size` ranks at `stride`
 * (stride 8: 1 rank per node, 4: 2 per node) on cluster c, as "algo/proto",
 * or "-" where NCCL's own tuner decides. */
static const char *efa_pick(const net_cluster *c, net_coll coll, int size, int stride,
			    double bytes)
{
	static const char *const pn[] = {"LL", "LL128", "Simple"};
	static char out[32];
	net_group g;
	net_algo a;
	net_proto p;
	net_group_make(c, size, stride, &g);
	if (!net_efa_region(c, coll, &g, bytes, &a, &p))
		return "-";
	snprintf(out, sizeof out, "%s/%s", net_algo_name(a), pn[p]);
	return out;
}

/* The region tuner's tables for 1 and 2 ranks per node (efa_tables.c, from
 * A = aws/aws-ofi-nccl 2daf7d30 src/tuner/nccl_ofi_regions.cpp; points in
 * the plane (log2 bytes, log2 ranks) = (x, y); MiB = 2^20 B).
 *
 * p5/p5e, 1 rank per node, all-reduce (A :880-913): Tree/LL128 is left of
 * the chain (0, 16) - (2367488, 16) - (9999360, 64) - ...; Ring/LL128
 * between that chain and the line (4736000, 2) - (269484032, 128), which in
 * log2 runs from (22.175, 1) to (28.006, 7): at 16 ranks (y = 4) it is at
 * x = 22.175 + 3/6 x 5.831 = 25.09 (35.7 MB), at 3 ranks (y = 1.585) at
 * 22.74 (7.0 MB); Ring/Simple right of it.
 *   1 MiB, 16 nodes: (20, 4) on the bottom edge y = 4 from x = -19.9 to
 *     21.17 of Tree/LL128: a boundary point, inside: tree/LL128;
 *   32 MiB, 16 nodes: x = 25 < 25.09, right of 2367488's 21.17: ring/LL128;
 *   256 MiB, 16 nodes: x = 28 > 25.09: ring/Simple; on 3 nodes also
 *     (28 > 22.74);
 *   (119477248, 128): a vertex of Tree/LL128 (listed first) and
 *     Ring/LL128: tree/LL128; (269484032, 128): a vertex of Ring/LL128 and
 *     Ring/Simple: ring/LL128 (first in the list); 1 % more bytes at 128
 *     ranks: right of the line, ring/Simple;
 *   2 nodes: the plugin's <= 2 nodes rule (A :2096-2099): none.
 * p5/p5e, 1 rank per node, all-gather (A :918-934): one region, Ring/Simple,
 * right of the line (4 MiB, 2) - (8 GiB, 2048), (22, 1) - (33, 11): x = 22 +
 * 1.1 (y - 1), at 16 ranks 25.3 (41 MB): 256 MiB ring/Simple, 1 MiB none;
 * (8 GiB, 2048) is its vertex: ring/Simple, 1 % fewer bytes: none.
 * Reduce-scatter (A :938-954): right of (8 MiB, 2) - (4 GiB, 1024), (23, 1)
 * - (32, 10): x = y + 22, at 16 ranks exactly 64 MiB: on the edge,
 * ring/Simple; 32 MiB: none.
 * p5/p5e, 2 ranks per node, all-reduce (A :770-874), at 256 MiB (x = 28):
 *   32 ranks (16 nodes, y = 5): Tree/LL128 ends at 5525504 B (22.4) and
 *     Ring/LL128 at the edge (41842688, 8) - (296747008, 64), (25.318, 3) -
 *     (28.145, 6): 27.203 at y = 5; NVLSTree/Simple spans from there to its
 *     vertical edge at 275775488 B (28.039): nvlstree/Simple. Without NVLS
 *     on the node NVLSTree does not apply and the next region containing
 *     the point is none (Ring/Simple starts at 28.039): none;
 *   64 ranks (32 nodes, y = 6): Ring/LL128 spans 9473024 - 296747008 B
 *     (its vertices at y = 6): ring/LL128;
 *   128 ranks (64 nodes, y = 7): Ring/LL128 ends at 257114112 B (27.938),
 *     Tree/Simple spans 257114112 - 787480576 B: tree/Simple;
 *   1 MiB, 64 ranks: left of Tree/LL128's 9473024 B: tree/LL128;
 *   (296747008, 64): a vertex of Ring/LL128 (listed before NVLSTree,
 *     Ring/Simple and Tree/Simple, which share it): ring/LL128.
 * p5en, 1 rank per node, all-gather (A :557-607): PAT/Simple left of the
 * chain (8388608, 8) - (16777216, 16) - (16777216, 32): at 16 ranks 16 MiB.
 * 1 MiB on 16 nodes lies in it: pat/Simple; 32 MiB: Ring/LL128
 * (16777217 - 50331648 B at y = 4); 256 MiB: ring/Simple.
 * p6-b200, 8 ranks per node, all-reduce on 4 nodes (32 ranks, A :978-1055):
 * 1 MiB between Tree/LL's 393216 B and Tree/LL128's 18350080 B at y = 5:
 * tree/LL128; 16 GiB right of the NVLSTree region's vertex (435159040, 32):
 * ring/Simple. */
static void test_efa_layouts(void)
{
	net_cluster c, en, p6;
	hw_gpu gpu;
	sim_diag *d = sim_diag_new();
	const char *big = "[cluster]\nname = e\nnodes = 2048\nfabric = efa\n";
	CHECK_INT(load_cluster("nodes/p5-h100.ini", big, &c, &gpu, d), SIM_OK);
	CHECK_INT(load_cluster("nodes/p5en-h200.ini", big, &en, &gpu, d), SIM_OK);
	CHECK_INT(load_cluster("nodes/p6-b200.ini", big, &p6, &gpu, d), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	CHECK_INT(c.node.ec2, NET_EC2_P5);
	CHECK_INT(en.node.ec2, NET_EC2_P5EN);
	CHECK_INT(p6.node.ec2, NET_EC2_P6_B200);
	const double MiB = 1048576.0;
	/* p5/p5e, 1 rank per node, all-reduce */
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 16, 8, MiB), "tree/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 16, 8, 32 * MiB), "ring/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 16, 8, 256 * MiB), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 3, 8, 256 * MiB), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 128, 8, 119477248), "tree/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 128, 8, 269484032), "ring/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 128, 8, 269484032 * 1.01), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 2, 8, 256 * MiB), "-");
	/* all-gather and reduce-scatter */
	CHECK_STR(efa_pick(&c, NET_ALLGATHER, 16, 8, 256 * MiB), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLGATHER, 16, 8, MiB), "-");
	CHECK_STR(efa_pick(&c, NET_ALLGATHER, 2048, 8, 8192 * MiB), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLGATHER, 2048, 8, 8192 * MiB * 0.99), "-");
	CHECK_STR(efa_pick(&c, NET_REDUCESCATTER, 16, 8, 64 * MiB), "ring/Simple");
	CHECK_STR(efa_pick(&c, NET_REDUCESCATTER, 16, 8, 32 * MiB), "-");
	/* p5/p5e, 2 ranks per node, all-reduce */
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 32, 4, 256 * MiB), "nvlstree/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 64, 4, 256 * MiB), "ring/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 128, 4, 256 * MiB), "tree/Simple");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 64, 4, MiB), "tree/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 64, 4, 296747008), "ring/LL128");
	CHECK_STR(efa_pick(&c, NET_ALLREDUCE, 4, 4, 256 * MiB), "-"); /* 2 nodes */
	net_cluster nonvls = c;
	nonvls.node.nvls_busbw_Bps = 0;
	CHECK_STR(efa_pick(&nonvls, NET_ALLREDUCE, 32, 4, 256 * MiB), "-");
	/* p5en: PAT where the table has it, its rings elsewhere */
	net_algo a[4];
	net_proto p[4];
	CHECK_INT(net_efa_regions(NET_EC2_P5EN, NET_ALLGATHER, 1, MiB, 16, a, p, 4), 1);
	CHECK_INT(a[0], EFA_PAT);
	CHECK_INT(EFA_PAT, NET_ALGO_PAT);
	CHECK_STR(efa_pick(&en, NET_ALLGATHER, 16, 8, MiB), "pat/Simple");
	CHECK_STR(efa_pick(&en, NET_REDUCESCATTER, 16, 8, MiB), "pat/Simple");
	/* PAT needs the Simple protocol: with nccl_proto forced the plugin
	 * defers to NCCL anyway */
	CHECK_STR(efa_pick(&en, NET_ALLGATHER, 16, 8, 32 * MiB), "ring/LL128");
	CHECK_STR(efa_pick(&en, NET_ALLGATHER, 16, 8, 256 * MiB), "ring/Simple");
	/* p6-b200, 8 ranks per node */
	CHECK_STR(efa_pick(&p6, NET_ALLREDUCE, 32, 1, MiB), "tree/LL128");
	CHECK_STR(efa_pick(&p6, NET_ALLREDUCE, 32, 1, 16384 * MiB), "ring/Simple");
	/* The region's pair is the one both models time: net_collective
	 * (alpha-beta) here, sim/topo's flows through the same net_efa_choice
	 * (test_flow). A 1 MiB all-gather on 16 p5en nodes (PAT in the table)
	 * runs PAT/Simple. */
	net_group g;
	net_cost k;
	net_group_make(&c, 64, 4, &g);
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 256 * MiB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_RING);
	CHECK_INT(k.proto, NET_PROTO_LL128);
	net_group_make(&c, 16, 8, &g);
	CHECK_INT(net_collective(&c, NET_REDUCESCATTER, &g, 64 * MiB, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	net_group_make(&en, 16, 8, &g);
	CHECK_INT(net_collective(&en, NET_ALLGATHER, &g, MiB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_PAT);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(k.latency_s, net_pat_latency(&en, 16), 1e-12);
	/* 32 MiB: the region's Ring/LL128 */
	CHECK_INT(net_collective(&en, NET_ALLGATHER, &g, 32 * MiB, &k), SIM_OK);
	CHECK_INT(k.algo, NET_ALGO_RING);
	CHECK_INT(k.proto, NET_PROTO_LL128);
	/* The tuner latency NCCL sees: 75 us on p5/p5e, 35 on p5en, p6-b200. */
	CHECK_NEAR(net_efa_tuner_latency(&c), 75e-6, 1e-15);
	CHECK_NEAR(net_efa_tuner_latency(&en), 35e-6, 1e-15);
	CHECK_NEAR(net_efa_tuner_latency(&p6), 35e-6, 1e-15);
}

/* The spread of collectives (spread.c). The split log-normal reproduces the
 * three measured quantiles at every listed node count of the shipped
 * cluster: Q(0.05) = lo, Q(0.5) = 1, Q(0.95) = hi, and its two halves meet
 * at 1. Between listed counts the sigmas are linear in ln m: at 3 nodes,
 * w = ln(3/2) / ln 2 = 0.585, lo = exp(0.415 ln 0.82 + 0.585 ln 0.59). One
 * node and a cluster without the key have none; beyond 64 the 64's. (Which
 * part of a task varies: test_spread's test_scenarios.) */
static void test_spread(void)
{
	net_cluster c;
	hw_gpu g;
	sim_diag *d = sim_diag_new();
	CHECK_INT(load_cluster("efa-h100-cluster.ini", "", &c, &g, d), SIM_OK);
	sim_diag_print(d, stderr);
	CHECK_INT(c.nspread, 7);
	CHECK_NEAR(c.spread_corr, 0.5, 1e-12);
	for (int i = 0; i < c.nspread; i++) {
		net_spread s;
		if (c.spread[i].nodes < 2) {
			CHECK(!net_spread_at(&c, c.spread[i].nodes, &s));
			continue;
		}
		CHECK(net_spread_at(&c, c.spread[i].nodes, &s));
		CHECK_NEAR(net_spread_quantile(&s, 0.05), c.spread[i].lo, 1e-9);
		CHECK_NEAR(net_spread_quantile(&s, 0.5), 1, 1e-12);
		CHECK_NEAR(net_spread_quantile(&s, 0.95), c.spread[i].hi, 1e-9);
		CHECK_NEAR(net_spread_factor(&s, -1e-9), 1, 1e-8);
		CHECK_NEAR(net_spread_factor(&s, 1e-9), 1, 1e-8);
		CHECK(net_spread_quantile(&s, 0.25) < 1 && net_spread_quantile(&s, 0.75) > 1);
	}
	net_spread s;
	CHECK(net_spread_at(&c, 3, &s));
	double w = log(1.5) / log(2);
	CHECK_NEAR(s.lo, exp((1 - w) * log(0.82) + w * log(0.59)), 1e-12);
	CHECK_NEAR(s.hi, exp((1 - w) * log(1.23) + w * log(3.09)), 1e-12);
	CHECK(net_spread_at(&c, 128, &s));
	CHECK_NEAR(s.lo, 0.22, 1e-12);
	CHECK_NEAR(s.hi, 2.04, 1e-12);
	CHECK(!net_spread_at(&c, 1, &s));
	sim_diag_free(d);
	d = sim_diag_new();
	CHECK_INT(efa_cluster(4, "net_latency = 50 us\nrail_bw = 10 GB/s", &c, d), SIM_OK);
	sim_diag_free(d);
	CHECK(!net_spread_at(&c, 4, &s)); /* no spread key */
}

/* The per-call synchronisation delay (coll.c, "The EFA model", 5.):
 *   D = sync_delay (m-1)^congestion_exp,
 * the same for every call across m nodes whatever its bytes or kind. On 4
 * nodes of 8 (n = 32, k = 8) with sync_delay 200 us and exp 0.5: D = 200 us
 * sqrt(3) = 346.4 us, for a 256 MiB all-gather, the all-reduce of it and a
 * 1 KiB all-reduce alike (each waits for its slowest node once; until
 * 2026-11-29 the wait was scaled by 1 - exp(-b / 8 MiB) of the bytes b a
 * rank sends through its NICs, and the 1 KiB call waited 0.010 us). A p2p
 * between two nodes: D = 200 us (m = 2). A call of no bytes waits for
 * nothing. net_collective adds D to the time of NCCL's choice: the same
 * cluster without the delay times it D shorter. Inside a node, off EFA and
 * without the key there is none. */
static void test_sync_delay(void)
{
	net_cluster c;
	sim_diag *d = sim_diag_new();
	CHECK_INT(efa_cluster(4, "net_latency = 50 us\nrail_bw = 10 GB/s\nsync_delay = 200 us\n"
	                         "congestion_exp = 0.5", &c, d), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	const double S = 268435456.0, MiB8 = 8388608.0, us = 1e-6;
	net_group g;
	net_group_make(&c, 32, 1, &g);
	CHECK_NEAR(net_sync_delay(&c, &g, S), 200 * us * sqrt(3), 1e-15);
	CHECK_NEAR(net_sync_delay(&c, &g, S), 346.4 * us, 1e-4);
	CHECK_NEAR(net_sync_delay(&c, &g, 1024), 200 * us * sqrt(3), 1e-15);
	CHECK_NEAR(net_sync_delay(&c, &g, 0), 0, 0);
	net_group p = {2, 1, 2, 8};
	CHECK_NEAR(net_sync_delay(&c, &p, MiB8), 200 * us, 1e-15);
	/* a small call pays the whole wait on top of its own time */
	net_cost small, small0;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g, 1024, &small), SIM_OK);
	net_cluster z0 = c;
	z0.sync_s = 0;
	CHECK_INT(net_collective(&z0, NET_ALLREDUCE, &g, 1024, &small0), SIM_OK);
	CHECK_NEAR(small.time_s - small0.time_s, 200 * us * sqrt(3), 1e-12);
	net_cost with, without;
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &with), SIM_OK);
	net_cluster z = c;
	z.sync_s = 0;
	CHECK_INT(net_collective(&z, NET_ALLGATHER, &g, S, &without), SIM_OK);
	CHECK_NEAR(with.time_s - without.time_s, with.sync_s, 1e-15);
	CHECK_NEAR(with.sync_s, net_sync_delay(&c, &g, S), 0);
	CHECK_INT(with.proto, without.proto);
	CHECK_NEAR(without.sync_s, 0, 0);
	net_group one;
	net_group_make(&c, 8, 1, &one);
	CHECK_NEAR(net_sync_delay(&c, &one, S), 0, 0);
	/* the wait is the calibrated fabric's, whatever the fabric */
	double efa = net_sync_delay(&c, &g, S);
	c.fabric = NET_FABRIC_FAT_TREE;
	CHECK_NEAR(net_sync_delay(&c, &g, S), efa, 0);
	c.sync_s = 0;
	CHECK_NEAR(net_sync_delay(&c, &g, S), 0, 0);
}

/* NCCL's choice on EFA (coll.c, "The EFA model", 6.): NCCL picks the
 * protocol by its own table (tune.c), with the plugin's 75 us per network
 * step (twice with Simple), then the cluster's fitted costs time it.
 * All-gather of 256 MiB on 2 p5 nodes of 8 (n = 16, 14 intra and 1 inter
 * step). NCCL's table: a device per GPU of 4 rails x 12.5 GB/s = 50 GB/s,
 * one channel each at NCCL's 48 (not doubled: Hopper, under 50 GB/s, 8
 * channels), intra 18 NVLinks x 20.6 = 370.8 GB/s, so 8 channels of
 * min(48, 370.8 / 8) = 46.35 GB/s; on 2 nodes the ring's bus bandwidth is
 * 8 x 46.35 = 370.8, LL128 min(0.92 x 370.8, 8 x 36.7) = 293.6; x n/(n-1):
 *   Simple 8.4 + 14 x 3.4 + (14 + 2 x 75) + S / 395.5 GB/s = 898.7 us
 *   LL128  14 + 14 x 1.9 + (4 + 75)        + S / 313.2 GB/s = 976.7 us
 * NCCL runs Simple (the closed forms on NCCL's view picked LL128 before:
 * their LL128 had no per-channel cap). The cluster's own costs
 * (net_latency = 5 us, rails 32 x 10 GB/s = 320 GB/s, t_bw = 15/16 S / 320
 * GB/s = 786.4 us) time it: Simple 8.4 + 47.6 + (14 + 10) + 786.4 = 866.4
 * us (plus the node's coll_overhead); forced LL128 14 + 26.6 + (4 + 5) +
 * 854.8 = 904.4 us. */
static void test_efa_choice(void)
{
	net_cluster c;
	sim_diag *d = sim_diag_new();
	CHECK_INT(efa_cluster(2, "net_latency = 5 us\nrail_bw = 10 GB/s", &c, d), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	const double S = 268435456.0, us = 1e-6;
	net_group g;
	net_group_make(&c, 16, 1, &g);
	net_algo a;
	net_proto p;
	CHECK(net_efa_choice(&c, NET_ALLGATHER, &g, S, &a, &p));
	CHECK_INT(p, NET_PROTO_SIMPLE);
	net_cost k, simple;
	CHECK_INT(net_collective(&c, NET_ALLGATHER, &g, S, &k), SIM_OK);
	CHECK_INT(k.proto, NET_PROTO_SIMPLE);
	double oh = c.node.coll_overhead_s;
	CHECK_NEAR(k.time_s - oh, 866.4 * us, 1e-4);
	net_cluster s = c;
	s.proto = NET_PROTO_LL128 + 1;
	CHECK_INT(net_collective(&s, NET_ALLGATHER, &g, S, &simple), SIM_OK);
	CHECK_NEAR(simple.time_s - oh, 904.4 * us, 1e-4);
	/* Inside a node, and off EFA, NCCL's model is podsim's: no view. */
	net_group one;
	net_group_make(&c, 8, 1, &one);
	CHECK(!net_efa_choice(&c, NET_ALLGATHER, &one, S, &a, &p));
	c.fabric = NET_FABRIC_FAT_TREE;
	CHECK(!net_efa_choice(&c, NET_ALLGATHER, &g, S, &a, &p));
}

/* net_cluster_same: equal for a copy, and unequal when any one field a key
 * of [node] or [cluster] sets differs (each key's field changed through its
 * table's offset and type), so a field added to the tables but not to the
 * comparison fails here; a sweep shares a link graph only between clusters
 * it calls the same (topo_graphs). */
static void perturb(void *base, const conf_key *k)
{
	char *p = (char *)base + k->offset;
	switch (k->type) {
	case CONF_INT:
	case CONF_ENUM:
		*(int *)(void *)p += 1;
		break;
	case CONF_REAL:
	case CONF_QTY:
		*(double *)(void *)p = *(double *)(void *)p * 2 + 1;
		break;
	case CONF_BOOL:
		*(bool *)(void *)p = !*(bool *)(void *)p;
		break;
	case CONF_STR:
		p[0] = p[0] == 'x' ? 'y' : 'x';
		break;
	}
}

static void test_same(void)
{
	net_cluster c, d;
	hw_gpu g;
	sim_diag *diag = sim_diag_new();
	CHECK_INT(load_cluster("dgx-h100-superpod.ini", "", &c, &g, diag), SIM_OK);
	d = c;
	CHECK(net_cluster_same(&c, &d));
	for (size_t i = 0; i < net_node_nkeys; i++) {
		d = c;
		perturb(&d.node, &net_node_keys[i]);
		if (!CHECK(!net_cluster_same(&c, &d)))
			fprintf(stderr, "  [node] %s\n", net_node_keys[i].name);
	}
	for (size_t i = 0; i < net_cluster_nkeys; i++) {
		d = c;
		perturb(&d, &net_cluster_keys[i]);
		if (!CHECK(!net_cluster_same(&c, &d)))
			fprintf(stderr, "  [cluster] %s\n", net_cluster_keys[i].name);
	}
	d = c; /* derived fields: the GPU count and the parsed spread */
	d.gpus++;
	CHECK(!net_cluster_same(&c, &d));
	d = c;
	d.nspread = 1;
	d.spread[0] = (net_spread){c.spread[0].nodes + 1, 0.9, 1.1};
	CHECK(!net_cluster_same(&c, &d) || c.nspread == 1);
	sim_diag_free(diag);
}

/* SHARP (coll.c "SHARP"; [cluster] sharp) on the shipped DGX H100 SuperPOD
 * (per GPU: NVLink 450 GB/s x 0.822 = 369.9 GB/s, an NDR NIC 50 GB/s x
 * 0.94 = 47 GB/s; nvls_busbw 480 GB/s), all-reduce of S = 1 GiB.
 *   8 ranks per node on 16 nodes (n = 128): B_sharp = 8 x 47 = 376 GB/s.
 *     CollNetChain: t_bw = max(2 x 7/8 S / 369.9, S / 376) = S / 211.37
 *       GB/s (NVLink binds), busbw 2 x 127/128 x 211.37 = 419.5 GB/s;
 *       latency 2 x 7 x 2.8 + 30 = 69.2 us.
 *     CollNetDirect: the same over 0.85 (Hopper), latency 2 (3.7 + 7 x 0.4)
 *       + 31 = 44 us.
 *     NVLS: busbw min(480, 369.9 x 8/9 x 2 x 127/128, 2 x 127/128 x 376)
 *       = 480 GB/s, latency 25 + 18 = 43 us: the fastest, NCCL's pick.
 *     Ring: busbw min(369.9, 376) = 369.9 GB/s: NVS binds, SHARP's gain is
 *       NVLS's 480 (1.30x).
 *   1 rank per node on 64 nodes (a data-parallel group under tp 8, n = 64):
 *     ring busbw = one NIC, 47 GB/s; CollNetChain t_bw = S / 47 GB/s,
 *     busbw 2 x 63/64 x 47 = 92.5 GB/s (2x: the data crosses the NIC once
 *     each way, not 2(n-1)/n times), latency 14 us (one rank per node:
 *     the tree's network latency). */
static void test_sharp(void)
{
	net_cluster c, off;
	hw_gpu gpu;
	sim_diag *d = sim_diag_new();
	CHECK_INT(load_cluster("dgx-h100-superpod.ini", "[cluster]\nnodes = 64\nsharp = true\n",
			       &c, &gpu, d),
		  SIM_OK);
	CHECK(c.sharp);
	CHECK_INT(load_cluster("dgx-h100-superpod.ini", "[cluster]\nnodes = 64\n", &off, &gpu, d),
		  SIM_OK);
	CHECK(!off.sharp);
	double S = GIB, b_in = 450e9 * 0.822, b_nic = 50e9 * 0.94;
	net_group g16, g64;
	net_group_make(&c, 128, 1, &g16);
	net_group_make(&c, 64, 8, &g64);
	CHECK_INT(g64.per_node, 1);
	net_cost x;
	/* the three algorithms, forced, 8 ranks per node on 16 nodes */
	c.algo = NET_ALGO_COLLNET_CHAIN;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g16, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_COLLNET_CHAIN);
	CHECK_INT(x.proto, NET_PROTO_SIMPLE);
	CHECK_NEAR(x.latency_s, 69.2e-6, 1e-12);
	CHECK_NEAR(x.time_s - x.latency_s, 1.75 * S / b_in, 1e-9);
	CHECK_NEAR(x.busbw_Bps, 2 * 127.0 / 128 * b_in / 1.75, 1e3);
	CHECK_NEAR(x.intra_bytes, 1.75 * S, 1);
	CHECK_NEAR(x.inter_bytes, S / 8, 1);
	c.algo = NET_ALGO_COLLNET_DIRECT;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g16, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_COLLNET_DIRECT);
	CHECK_NEAR(x.latency_s, 44e-6, 1e-12);
	CHECK_NEAR(x.time_s - x.latency_s, 1.75 * S / b_in / 0.85, 1e-9);
	c.algo = NET_ALGO_NVLS;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g16, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_NVLS);
	CHECK_NEAR(x.latency_s, 43e-6, 1e-12);
	CHECK_NEAR(x.busbw_Bps, 480e9, 1);
	CHECK_NEAR(x.time_s - x.latency_s, 2 * 127.0 / 128 * S / 480e9, 1e-9);
	/* NCCL's tuner: NVLS, faster than the ring by 480 / 369.9 */
	c.algo = NET_ALGO_AUTO;
	net_cost ring;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g16, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_NVLS);
	CHECK_INT(net_collective(&off, NET_ALLREDUCE, &g16, S, &ring), SIM_OK);
	CHECK(ring.algo != NET_ALGO_NVLS && ring.algo != NET_ALGO_COLLNET_CHAIN);
	CHECK(ring.time_s > 1.25 * x.time_s);
	/* one rank per node on 64 nodes: twice the ring's bus bandwidth */
	c.algo = NET_ALGO_COLLNET_CHAIN;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g64, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_COLLNET_CHAIN);
	CHECK_NEAR(x.latency_s, 14e-6, 1e-12);
	CHECK_NEAR(x.time_s - x.latency_s, S / b_nic, 1e-9);
	CHECK_NEAR(x.busbw_Bps, 2 * 63.0 / 64 * b_nic, 1e3);
	c.algo = NET_ALGO_AUTO;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g64, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_COLLNET_CHAIN); /* Direct: x 1/0.85 */
	CHECK_INT(net_collective(&off, NET_ALLREDUCE, &g64, S, &ring), SIM_OK);
	CHECK(ring.time_s > 1.9 * x.time_s);
	/* all-gather and reduce-scatter, CollNetDirect (coll.c "SHARP"): on 16
	 * nodes of 8, t_bw = max(7/8 S / 369.9, S / 376) / 0.9 = S / 338.4
	 * GB/s (the NICs bind), latency 44 us; with 4 NICs per node (k > nics)
	 * NCCL runs none, nor CollNetChain */
	for (int op = 0; op < 2; op++) {
		net_coll coll = op ? NET_REDUCESCATTER : NET_ALLGATHER;
		c.algo = NET_ALGO_COLLNET_DIRECT;
		CHECK_INT(net_collective(&c, coll, &g16, S, &x), SIM_OK);
		CHECK_INT(x.algo, NET_ALGO_COLLNET_DIRECT);
		CHECK_NEAR(x.latency_s, 44e-6, 1e-12);
		CHECK_NEAR(x.time_s - x.latency_s, S / (8 * b_nic) / 0.9, 1e-9);
		CHECK_NEAR(x.inter_bytes, S / 8, 1);
		CHECK(!net_sharp_ok(&c, coll, &g16, NET_ALGO_COLLNET_CHAIN));
		net_cluster four = c;
		four.node.nics = 4;
		CHECK(!net_sharp_ok(&four, coll, &g16, NET_ALGO_COLLNET_DIRECT));
		CHECK(net_sharp_ok(&four, NET_ALLREDUCE, &g16, NET_ALGO_COLLNET_DIRECT));
	}
	c.algo = NET_ALGO_AUTO;
	/* where NCCL runs none: inside a node, broadcast, sharp off, > 8 per
	 * node (a 16-GPU node), a PCIe node for Direct */
	net_group node;
	net_group_make(&c, 8, 1, &node);
	CHECK(!net_sharp_ok(&c, NET_ALLREDUCE, &node, NET_ALGO_COLLNET_CHAIN));
	CHECK(!net_sharp_ok(&c, NET_BROADCAST, &g16, NET_ALGO_COLLNET_DIRECT));
	CHECK(!net_sharp_ok(&off, NET_ALLREDUCE, &g16, NET_ALGO_COLLNET_DIRECT));
	CHECK(net_sharp_ok(&c, NET_ALLREDUCE, &g16, NET_ALGO_COLLNET_DIRECT));
	net_group wide = {32, 16, 2, 1};
	CHECK(!net_sharp_ok(&c, NET_ALLREDUCE, &wide, NET_ALGO_COLLNET_CHAIN));
	CHECK(net_sharp_ok(&c, NET_ALLREDUCE, &wide, NET_ALGO_NVLS));
	net_cluster pcie = c;
	pcie.node.intra = NET_INTRA_PCIE;
	CHECK(!net_sharp_ok(&pcie, NET_ALLREDUCE, &g16, NET_ALGO_COLLNET_DIRECT));
	CHECK(net_sharp_ok(&pcie, NET_ALLREDUCE, &g16, NET_ALGO_COLLNET_CHAIN));
	c.algo = NET_ALGO_COLLNET_DIRECT; /* forced where it does not apply: auto */
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &node, S, &x), SIM_OK);
	CHECK_INT(x.algo, NET_ALGO_NVLS);
	/* on an oversubscribed fabric the ring's NICs pay the taper, SHARP's
	 * reduced streams do not (one per uplink) */
	c.algo = NET_ALGO_COLLNET_CHAIN;
	c.oversubscription = 4;
	c.fabric = NET_FABRIC_FAT_TREE;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &g64, S, &x), SIM_OK);
	CHECK_NEAR(x.time_s - x.latency_s, S / b_nic, 1e-9);
	CHECK_NEAR(x.fabric_bytes, S, 1);
	/* refused where the fabric has no SHARP */
	CHECK_INT(load_cluster("efa-h100-cluster.ini", "[cluster]\nsharp = true\n", &c, &gpu, d),
		  SIM_ECONF);
	sim_diag_free(d);
}

/* NCCL's own table (tune.c; N = NVIDIA/nccl 5067397c src/graph/tuning.cc),
 * derived by hand; times in us, bandwidths in GB/s as NCCL's.
 *
 * 8 x H100 on NVSwitch (compute capability 9.0, 18 NVLink links of NCCL's
 * 20.6 GB/s: B_i = 370.8 over 18 channels), all-reduce, n = 8, nsteps 14:
 *   ring LL:   lat 6.6 + 14 x 0.6 = 15.0; bw min(llMaxBw Hopper N1 141,
 *              0.5 x 370.8) = 141, x n/nsteps 8/14 = 80.571
 *   ring Simple: lat 8.4 + 14 x 3.4 = 56.0; bw 370.8 x 8/14 = 211.886
 *   NVLS:      lat 25; 16 channels of 370.8/16 = 23.175: min(23.175 x 0.85
 *              x 15/16 x 2 = 36.935, bwInter 2 x 23.175) x 16 = 590.96,
 *              x 8/14 = 337.69
 *   1 KiB:  ring LL 15.0 + 1024 / 80571 = 15.0127 (tree LL: 6.8 + 2 x 7 x
 *           0.6 = 15.2 and more): ring/LL;
 *   1 MiB:  ring LL 15.0 + 13.014 = 28.014 < NVLS 25 + 3.105 = 28.105:
 *           ring/LL; 2 MiB: NVLS 31.21 < ring LL 41.03: NVLS (NVLS from 2
 *           MiB up, as microbench.csv Q10's source reports for the H200);
 *   1 GiB:  NVLS 25 + 3179.6 = 3204.6 < ring Simple 56 + 5067.5 = 5123.5.
 *   Two ranks, 1 GiB: NVLS 590.96 x 2/2: 25 + 1816.9 = 1841.9 against the
 *   ring's 15.2 + 2895.7 = 2910.9: NVLS, which podsim times slower than
 *   the ring (its port bound, net_nvls_allreduce); the old pick by
 *   podsim's own times was the ring.
 * 2 DGX A100 (8 HDR NICs of 25 GB/s, B_i 12 x 20 = 240), 16 ranks, 1 GiB:
 *   NCCL's search puts one channel on each NIC at 24 GB/s, the fastest of
 *   its list (search.cc:1052) a 25 GB/s NIC carries, and does not double
 *   graphs under 25 GB/s (search.cc:1039): 8 channels of 24; on two nodes
 *   NCCL takes bwIntra, the ring's 24, the tree's raised to min(2 x 24,
 *   240/8) = 30 (search.cc:1278-1281):
 *   ring Simple: 8 x 24 = 192, x 16/30 = 102.4; lat (8.4 + 28 x 3.4 + 2 x
 *     14) x 1.4 (plateau) = 184.24: 184.24 + 10485.76 = 10670.0
 *   tree Simple: min(8 x 30 x 0.92 = 220.8, 8 x perChMaxTreeBw 23.6 =
 *     188.8) x 0.5 = 94.4; lat 8.4 + 2 (7 x 4.0 + 1 x 14) = 92.4: 92.4 +
 *     11374.4 = 11466.8: the ring (with the old 16 channels of 12.5 the
 *     cap was 377.6 and the tree won at 9818.3; S25's 192 GB/s is the
 *     ring's).
 * 16 DGX A100, one rank per node (stride 8): u = 1 NIC, one channel of
 *   24; ppn 1 takes the tree's network latencies (5.0 / 8.5 / 14);
 *   llMaxBw across > 2 nodes 20.4 (Intel hosts):
 *   ring LL 156.6 + S/6.4 (0.5 x 24 x 16/30), LL128 269 + S/10.667 (min(
 *     0.92 x 24, 1 x 20) x 16/30), Simple 428.4 x 1.4 + S/12.8;
 *   tree: min(0.92 x 24, 1 x 17.8) = 17.8: LL 46.8 + S/2.342 (17.8 / 3.8
 *     x 0.5), LL128 82 + S/8.344 (17.8 x 120/128 x 0.5), Simple 120.4 +
 *     S/8.9, each bandwidth times treeCorrectionFactor at log2(S/64);
 *   4 KiB (factor LL 0.7): tree LL 46.8 + 2.498 = 49.298: tree/LL;
 *   1 MiB (LL128 0.6, Simple 0.5): tree LL128 82 + 209.45 = 291.45 < ring
 *     LL 320.4, tree Simple 356.0: tree/LL128;
 *   8 MiB (LL128 0.9, Simple 0.8): ring LL128 269 + 786.43 = 1055.43 <
 *     tree LL128 1199.1, ring Simple 1255.1: ring/LL128;
 *   16 MiB: ring LL128 269 + 1572.86 = 1841.86 < ring Simple 1910.5, tree
 *     LL128 82 + 2234.17 = 2316.17: ring/LL128;
 *   1 GiB: ring Simple 599.76 + 83886.08 = 84485.84 < ring LL128: ring/
 *     Simple. */
/* NCCL's channels per communicator (net_tune_channels; tune.c, NCCL
 * 5067397c): one node: the ring search's first speed the GPU's NVLink
 * bandwidth carries, as many channels of it as fit (16 at most), doubled
 * by ncclTopoDupChannels, then doubled at connection (32 at most):
 *   DGX A100, 12 links x 20 GB/s = 240: 6 of 40, dup 12, x2 = 24;
 *   DGX H100 (cc 9), 18 x 20.6 = 370.8: 6 of 60, dup 12, x2 = 24;
 *   B200 (cc 10), 18 x 40.1 = 721.8: 8 of 90, dup 16, x2 = 32.
 * Across nodes, k ranks a node reaching u = k of its 8 NICs: u channels of
 * the NIC's speed s from NCCL's list, dup where s >= 25 (not on SM90 under
 * 50 with more than 4), x2, and on SM90 x2 again below 16 where bwIntra >
 * 45:
 *   A100, HDR 25 GB/s (s 24: no dup): k = 1: 1 -> 2; k = 8: 8 -> 16;
 *   H100, NDR 50 GB/s (s 48): k = 1: 1 dup 2 of 24, x2 = 4; k = 2: 2 dup 4,
 *   8; k = 4: 4 dup 8, 16; k = 8: 8 of 48 (> 4 under 50: no dup), 16.
 * A group of one rank runs none. An NVLS collective runs the NVLS graph's
 * channels instead: 16 on SM90 (NVLS_NCHANNELS_SM90, nvls.cc), so the DGX
 * H100's all-reduce by NVLS takes 16, its ring 24. */
static void test_tune_channels(void)
{
	net_cluster a = dgx_a100(4), h = dgx_a100(4), b = dgx_a100(1);
	h.node.intra_Bps = 450e9;
	h.node.nic_Bps = 50e9;
	h.node.cc = 9.0;
	b.node.intra_Bps = 900e9;
	b.node.cc = 10.0;
	static const struct {
		int which, size, stride;
		double ch;
	} cases[] = {
		{0, 8, 1, 24}, {1, 8, 1, 24},  {2, 8, 1, 32},  {0, 4, 8, 2},  {0, 32, 1, 16},
		{1, 4, 8, 4},  {1, 8, 4, 8},   {1, 16, 2, 16}, {1, 32, 1, 16}, {1, 1, 1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const net_cluster *c = cases[i].which == 0 ? &a : cases[i].which == 1 ? &h : &b;
		net_group g;
		net_group_make(c, cases[i].size, cases[i].stride, &g);
		if (!CHECK_NEAR(net_tune_channels(c, &g, NET_ALGO_RING), cases[i].ch, 0))
			fprintf(stderr, "  case %zu\n", i);
	}
	net_group g8;
	net_group_make(&h, 8, 1, &g8);
	CHECK_NEAR(net_tune_channels(&h, &g8, NET_ALGO_NVLS), 16, 0);
	CHECK_NEAR(net_tune_channels(&h, &g8, NET_ALGO_TREE), 24, 0);
}

static void test_nccl_table(void)
{
	net_cluster h = dgx_a100(1);
	h.node.intra_Bps = 450e9;
	h.node.intra_eff = 0.822;
	h.node.nic_Bps = 50e9;
	h.node.nvls_busbw_Bps = 480e9;
	h.node.cc = 9.0;
	net_group g8, g2;
	net_group_make(&h, 8, 1, &g8);
	net_group_make(&h, 2, 1, &g2);
	const double KiB = 1024, MiB = 1048576;
	/* NCCL's pick (picked) and its table's time of that pair, or only the
	 * time of an entry the derivation compares it with (picked false) */
	static const struct {
		int which; /* 0: 8 x H100, 1: 2 x H100, 2: 2 x 8 A100, 3: 16 x 1 A100 */
		double S, t_us;
		net_algo a;
		net_proto p;
		bool picked;
	} cases[] = {
		{0, 1024, 15.0127, NET_ALGO_RING, NET_PROTO_LL, true},
		{0, 1048576, 28.014, NET_ALGO_RING, NET_PROTO_LL, true},
		{0, 2097152, 31.21, NET_ALGO_NVLS, NET_PROTO_SIMPLE, true},
		{0, 1073741824, 3204.6, NET_ALGO_NVLS, NET_PROTO_SIMPLE, true},
		{1, 1073741824, 1841.9, NET_ALGO_NVLS, NET_PROTO_SIMPLE, true},
		{2, 1073741824, 10670.0, NET_ALGO_RING, NET_PROTO_SIMPLE, true},
		{3, 4096, 49.298, NET_ALGO_TREE, NET_PROTO_LL, true},
		{3, 1048576, 291.45, NET_ALGO_TREE, NET_PROTO_LL128, true},
		{3, 8388608, 1055.43, NET_ALGO_RING, NET_PROTO_LL128, true},
		{3, 16777216, 1841.86, NET_ALGO_RING, NET_PROTO_LL128, true},
		{3, 1073741824, 84485.84, NET_ALGO_RING, NET_PROTO_SIMPLE, true},
		{0, 1048576, 28.105, NET_ALGO_NVLS, NET_PROTO_SIMPLE, false},
		{0, 1073741824, 5123.5, NET_ALGO_RING, NET_PROTO_SIMPLE, false},
		{2, 1073741824, 11466.8, NET_ALGO_TREE, NET_PROTO_SIMPLE, false},
		{3, 16777216, 2316.17, NET_ALGO_TREE, NET_PROTO_LL128, false},
		{3, 8388608, 1199.1, NET_ALGO_TREE, NET_PROTO_LL128, false},
	};
	net_cluster a2 = dgx_a100(2), a16 = dgx_a100(16);
	net_group g16, g1;
	net_group_make(&a2, 16, 1, &g16);
	net_group_make(&a16, 16, 8, &g1);
	CHECK_NEAR(net_tune_cc(&a2.node), 8.0, 0); /* unknown, no NVLS: Ampere */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const net_cluster *c = cases[i].which < 2 ? &h : cases[i].which == 2 ? &a2 : &a16;
		const net_group *g = cases[i].which == 0   ? &g8
				     : cases[i].which == 1 ? &g2
				     : cases[i].which == 2 ? &g16
							   : &g1;
		CHECK_NEAR(net_tune_time_us(c, NET_ALLREDUCE, g, cases[i].S, cases[i].a, cases[i].p),
			   cases[i].t_us, 2e-4);
		if (!cases[i].picked)
			continue;
		net_algo a = NET_ALGO_AUTO;
		net_proto p = NET_PROTO_COUNT;
		CHECK(net_tune_pick(c, NET_ALLREDUCE, g, cases[i].S, &a, &p));
		CHECK_INT(a, cases[i].a);
		CHECK_INT(p, cases[i].p);
		/* both models run that pair: net_nccl_choice, net_collective */
		net_algo ca;
		net_proto cp;
		net_cost k;
		CHECK_INT(net_nccl_choice(c, NET_ALLREDUCE, g, cases[i].S, &ca, &cp), SIM_OK);
		CHECK_INT(ca, cases[i].a);
		CHECK_INT(cp, cases[i].p);
		CHECK_INT(net_collective(c, NET_ALLREDUCE, g, cases[i].S, &k), SIM_OK);
		CHECK_INT(k.algo, cases[i].a);
		CHECK_INT(k.proto, cases[i].p);
	}
	/* no LL128 and no NVLS on PCIe; NVLS only for SM90 and later; a forced
	 * protocol holds; LL / LL128 never for NVLS */
	net_cluster pc = h;
	pc.node.intra = NET_INTRA_PCIE;
	pc.node.gpus_per_switch = 2;
	pc.node.pcie_p2p = true;
	net_algo a;
	net_proto p;
	for (double S = KiB; S <= 1024 * MiB; S *= 4) {
		CHECK(net_tune_pick(&pc, NET_ALLREDUCE, &g8, S, &a, &p));
		CHECK(p != NET_PROTO_LL128 && a != NET_ALGO_NVLS);
	}
	net_cluster amp = h;
	amp.node.cc = 8.0;
	CHECK(net_tune_pick(&amp, NET_ALLREDUCE, &g8, 1024 * MiB, &a, &p));
	CHECK(a != NET_ALGO_NVLS);
	CHECK(net_tune_time_us(&h, NET_ALLREDUCE, &g8, MiB, NET_ALGO_NVLS, NET_PROTO_LL) < 0);
	net_cluster simple = h;
	simple.proto = NET_PROTO_SIMPLE + 1;
	CHECK(net_tune_pick(&simple, NET_ALLREDUCE, &g8, KiB, &a, &p));
	CHECK_INT(p, NET_PROTO_SIMPLE);
	/* all-to-all and p2p are not in NCCL's table */
	CHECK(!net_tune_pick(&h, NET_ALLTOALL, &g8, MiB, &a, &p));
}

int main(void)
{
	test_nccl_table();
	test_tune_channels();
	test_same();
	test_efa();
	test_efa_choice();
	test_sync_delay();
	test_efa_region();
	test_efa_layouts();
	test_spread();
	test_nvls();
	test_sharp();
	test_overhead();
	test_groups();
	test_allreduce_node();
	test_allreduce_2nodes();
	test_tree_2nodes();
	test_allgather();
	test_pat();
	test_ring_local();
	test_protocols();
	test_p2p_alltoall();
	test_links();
	test_measured();
	test_shipped();
	return check_done();
}
