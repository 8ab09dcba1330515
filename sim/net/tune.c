/* tune.c - NCCL's own table of predicted times, from which it picks the
 * algorithm and protocol of a collective (net_tune_pick; coll.c "Which
 * algorithm NCCL runs"). N = NVIDIA/nccl 5067397c; line numbers are of
 * that commit. Units as NCCL's: microseconds and GB/s (1e9 B/s), so that
 * the constants read as in the source.
 *
 * What NCCL does. ncclTopoTuneModel (N src/graph/tuning.cc:243-618) fills,
 * once per communicator, a latency lat[coll][algo][proto] and a bandwidth
 * bw[coll][algo][proto] from its constants (tuning.cc:139-216) and from the
 * graphs its topology search found, each a channel count nCh and a
 * bandwidth per channel inside the node (bwIntra) and across nodes
 * (bwInter). Per call ncclTopoGetAlgoTime (tuning.cc:629-657) predicts
 *     time = lat' + bytes / (1000 bw')   [us]
 * with two corrections: the tree's all-reduce bandwidth times
 * treeCorrectionFactor[proto][log2(bytes/64)] for 64 B .. 256 MiB
 * (tuning.cc:620-643; NVLSTree too on Blackwell x86 hosts, :644-647), and
 * the ring's Simple all-reduce latency across nodes x1.4 (x1.9 before
 * Ampere) once each rank's part per channel is 64 B or more, its plateau
 * (tuning.cc:648-651). NCCL takes the lowest time (N src/enqueue.cc:
 * 2028-2046); entries of bandwidth 0 (disabled) are skipped (:634-637).
 *
 * The graphs (podsim's stand-in for NCCL's search, src/graph/search.cc,
 * which it does not run). From the node's nominal links, never podsim's
 * fitted efficiencies, congestion or coll_overhead (NCCL does not know
 * them):
 *   NVLink nodes: L = intra_bw / (25 GB/s per link, 50 on NVLink 5, cc >=
 *     10), links per GPU; NCCL rates each link at its model bandwidth
 *     ncclTopoNVLinkBw (N src/graph/topo.h:19-24, 275-281: 20 GB/s SM70
 *     and SM80, 20.6 SM90, 40.1 SM100), so B_i = L x that: DGX A100 12 x 20
 *     = 240 GB/s, DGX H100 18 x 20.6 = 370.8, B200 18 x 40.1 = 721.8.
 *     Inside a node the ring and tree graphs have nCh = L channels of B_i/L
 *     (the DGX A100: 6 rings of 40 doubled to 12 of 20, search.cc:
 *     1036-1048; the H100 and B200 taken alike).
 *   PCIe nodes: B_i = the group's PCIe rate (coll.c's B_intra without the
 *     efficiency), 2 channels; NCCL's intra hardware is then PCI
 *     (tuning.cc:283-285).
 *   Across nodes (m > 1): the k ranks of a node reach u = max(1, min(nics,
 *     k nics / G)) NICs of nic_bw each (NCCL's communicator sees the NICs
 *     near its GPUs, not the other groups sharing them). The search
 *     starts at the fastest speed of its list a path carries (search.cc:
 *     1164-1174; the lists search.cc:1052-1065, 24 GB/s for a 25 GB/s
 *     HDR NIC, 48 for 50 GB/s NDR), puts as many channels of it through
 *     each NIC as the NIC holds (usually one; a lower speed with more
 *     channels only ties, and the tie goes to fewer hops, search.cc:
 *     457-466), and ncclTopoDupChannels doubles the channels, halving
 *     their speed, only at 25 GB/s or more and not on SM90 under 50 GB/s
 *     with more than 4 channels (search.cc:1036-1048, 1258). So nCh =
 *     ceil(u) floor(nic_bw / s) channels of bwInter = min(s, min(B_i if
 *     k > 1, u nic_bw) / nCh), doubled by that rule: 2 DGX A100 with 8
 *     HDR NICs have 8 channels of 24 GB/s (not 16 of 12.5), one rank per
 *     node one channel of 24. The tree graph has at most the ring's
 *     channels (N src/init.cc:1185) and NCCL gives both the smaller count
 *     (init.cc:1459; runtime doubles them again, connect.cc:460, which
 *     the table does not see). The ring's bwIntra = bwInter (search.cc:
 *     1272), the tree's raised up to twice it (search.cc:1278-1281), where
 *     the node allows: min(2 bwInter, B_i / nCh). The channel count
 *     matters through the per-channel caps: 2 DGX A100's tree is capped
 *     at 8 x perChMaxTreeBw 23.6 = 188.8 GB/s, below its links' 0.92 x 8 x
 *     30 = 220.8, so the ring (8 x 24 = 192) wins from 16 MiB up (16
 *     channels lifted the cap to 377.6 and made the tree win). Not
 *     modelled: the GPU-NIC PCIe link's own speed (NCCL's 24 GB/s for
 *     Gen4 x16, 48 Gen5, topo.cc:657) where it is below the NIC's.
 *   NVLS graph (nodes with nvls_busbw, SM90 on): nCh = 16 (NVLS_NCHANNELS_
 *     SM90, N src/transport/nvls.cc:155-213; 24 on one SM100 node, 32
 *     across), bwIntra = B_i / nCh, bwInter raised up to twice bwIntra on
 *     one node (search.cc:1273-1276), else the NICs' u nic_bw / nCh.
 *   CollNet graphs ([cluster] sharp): the tree's bandwidths over one
 *     channel per head, a head per NIC the group reaches (ceil(u); assumed:
 *     the search is not modelled), so that CollNetDirect's GPU/NIC factor
 *     ppn / nCh (tuning.cc:343-345) is the group's ranks per NIC.
 * NCCL's search picks each channel's speed from a list (search.cc:
 * 1051-1061); podsim's continuous B / nCh stands for it.
 *
 * The table (tuning.cc:287-441), for collective c on n ranks, m nodes,
 * ppn = n / m, nsteps = 2(n-1) all-reduce, n-1 all-gather/reduce-scatter,
 * n broadcast:
 *   bw = nCh x (m <= 2 or CollNet ? bwIntra : bwInter), then
 *     ring LL     min(llMaxBw, 0.5 bw)           llMaxBw (:198-203): one
 *                                                node by GPU arch, 87.7
 *                                                A100, 141 H100; across
 *                                                nodes 39.0 (2), 20.4 (>2)
 *                                                (Intel hosts assumed)
 *     ring LL128  min(0.92 bw, nCh perChMaxRingLL128Bw)   (:204-209)
 *     tree AR     min(0.92 bw, nCh perChMaxTreeBw)        (:216-221)
 *     tree LL     min(bw / 3.8, llMaxBw); LL128 min(bw x (m = 1 ? 7/9 :
 *                 120/128), nCh perChMaxTreeLL128Bw)      (:210-215)
 *     PAT         0.75 bw
 *     NVLS, NVLSTree: nCh min(bwIntra e (nCh-1)/nCh x (AR ? 2 : (ppn-1)/
 *                 ppn), bwInter x (NVLSTree, m <= 2 ? 2 : 1), NVLSTree ?
 *                 perChMaxNVLSTreeBw : inf), e = 0.85 Hopper, 0.74
 *                 Blackwell (:136-141, 306-323)
 *     CollNetDirect AR: bw / f, f = ppn/nCh - (ppn/nCh - 1)/2, x0.85 on
 *                 SM90 on; AG/RS ppn min(bwIntra, 0.9 bwInter) (:338-348)
 *   converted to algorithm bandwidth by n / nsteps for ring, NVLS and
 *   NVLSTree, 0.5 for the tree and CollNet, not at all for the non-ring
 *   all-gather / reduce-scatter (:376-382);
 *   lat = base[a][p] + (ring, AR/AG/RS) (nsteps - nI) max(hwIntra,
 *     netOverhead) + nI hwInter, nI = 2(m-1) AR, m-1 AG/RS, netOverhead 1 us
 *     (x3 Simple) across nodes (Intel hosts, :224-228);
 *     (ring, broadcast) nsteps x hw (Simple: the tree's hw), the branch of
 *     a graph whose channels differ (:394-402; assumed);
 *     (tree AR) 2 ((ppn-1) hwIntra + log2i(m) hwInter);
 *     (CollNetDirect) 2 (min(1, ppn-1) hwIntra + 0.4 (ppn-1)) + hwInter;
 *     (CollNetChain) 2 (ppn-1) hwIntra + hwInter;
 *     (NVLS) hwIntra (+ hwInter across nodes); (NVLSTree) hwIntra + 2
 *     log2i(m) hwInter; (PAT) 8 + log2i(m) hwInter / 3.5 + 2.8 n;
 *   hwInter the NET row of the algorithm, the tree's with ppn = 1
 *   (:386-388), plus the net plugin's latency (twice with Simple, :389-391;
 *   0 on InfiniBand and RoCE, net_efa_tuner_latency on EFA, whose devices
 *   are one per GPU with its rails aggregated).
 * Enables (tuning.cc:443-560): LL128 on SM70 and later with NVLink inside
 * the node (typeIntra <= PATH_NVB; GPU-NIC paths up to PXB/PXN, taken as
 * met) (net_proto_ok: nodes of intra = pcie off); NVLSTree only across
 * nodes; CollNet and NVLS across nodes only with [cluster] sharp;
 * CollNetDirect only on NVSwitch nodes; [cluster] nccl_algo / nccl_proto
 * as NCCL_ALGO / NCCL_PROTO. Only algorithms podsim can time enter (coll.c's
 * predicates: the tree for groups of the same ranks on every node, NVLS
 * where net_nvls_allreduce applies, net_pat_ok, net_sharp_ok); NVLS
 * all-gather / reduce-scatter on one node is left out: its entry never
 * beats the ring's LL or LL128 (8 H100: 25 us + S / 259 GB/s against LL's
 * 10.8 us + S / 161 below 1.8 MB and LL128's 27.3 us + S / 390 above).
 *
 * Who calls it: net_nccl_choice (coll.c), on EFA across nodes after the
 * aws-ofi-nccl region tuner (net_efa_choice); net_collective and the flow
 * model (sim/topo) then time the pair with podsim's own costs.
 */
#include "net_int.h"

#include <math.h>

enum { T_LL = NET_PROTO_LL, T_LL128 = NET_PROTO_LL128, T_SIMPLE = NET_PROTO_SIMPLE };
enum { HW_NVLINK = 0, HW_PCI, HW_NET };
/* NCCL's algorithms in its table order (tuning.cc:144-150). */
enum { A_TREE = 0, A_RING, A_CND, A_CNC, A_NVLS, A_NVLST, A_PAT, A_COUNT };

/* tuning.cc:143-151: baseLatencies[algo][proto], us */
static const double base_us[A_COUNT][3] = {
	{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};
/* tuning.cc:152-175: hwLatencies[hw][algo][proto], us */
static const double hw_us[3][A_COUNT][3] = {
	{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
	{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
	{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};
double net_tune_nvls_intra_s(void)
{
	return (base_us[A_NVLS][T_SIMPLE] + hw_us[HW_NVLINK][A_NVLS][T_SIMPLE]) / 1e6;
}

double net_tune_nvlstree_net_s(void)
{
	return hw_us[HW_NET][A_NVLST][T_SIMPLE] / 1e6;
}

/* tuning.cc:177-213, [arch: Volta, Ampere, Hopper, Blackwell][N1, N2, N4] */
static const double ll_max_bw[4][3] = {
	{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
static const double ring_ll128_ch[4][3] = {
	{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
static const double tree_ll128_ch[4][3] = {
	{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double tree_ch[4][3] = {
	{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
static const double nvlstree_ch[4][3] = {
	{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
/* tuning.cc:136-141 */
static const double nvls_eff[4] = {0, 0, 0.85, 0.74};
/* tuning.cc:620-628, powers of two from 64 B */
static const double tree_corr[3][24] = {
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

/* A graph of NCCL's search: channels, GB/s per channel inside and across. */
typedef struct tgraph {
	double nch, intra, inter;
} tgraph;

/* Everything the table needs about the communicator. */
typedef struct tcomm {
	double n, m, ppn, cc;
	int arch;       /* 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell */
	int idx2;       /* N1, N2, N4 */
	int intra_hw;   /* HW_NVLINK or HW_PCI */
	double lat_inter; /* the net plugin's latency per network step, us (graphs[a]->latencyInter) */
	tgraph ring, tree, nvls, collnet;
} tcomm;

double net_tune_cc(const net_node *nd)
{
	if (nd->cc > 0)
		return nd->cc;
	return nd->nvls_busbw_Bps > 0 ? 9.0 : 8.0;
}

/* NCCL's NVLink bandwidth per link (topo.h:19-24, 275-281), GB/s. */
static double nvlink_model_bw(double cc)
{
	return cc >= 10 ? 40.1 : cc >= 9 ? 20.6 : cc > 8.55 && cc < 8.65 ? 12.0 : cc >= 7 ? 20.0 : 18.0;
}

/* The search's speed of one channel across nodes: the fastest of NCCL's
 * list (search.cc:1052-1053, 1058-1059, 1064-1065) a NIC of nic GB/s
 * carries. */
static double inter_speed(double cc, double nic)
{
	static const double s80[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};
	static const double s90[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
	static const double s100[] = {96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
	const double *a = cc >= 10 ? s100 : cc >= 9 ? s90 : s80;
	int n = cc >= 10 ? (int)(sizeof s100 / sizeof *s100)
		: cc >= 9 ? (int)(sizeof s90 / sizeof *s90) : (int)(sizeof s80 / sizeof *s80);
	for (int i = 0; i < n; i++)
		if (a[i] <= nic)
			return a[i];
	return a[n - 1];
}

static int log2i_d(double x)
{
	int l = 0;
	while (x >= 2) {
		x /= 2;
		l++;
	}
	return l;
}

static void tcomm_make(const net_cluster *c, const net_group *g, tcomm *t)
{
	const net_node *nd = &c->node;
	t->n = g->size;
	t->m = g->nodes;
	t->ppn = t->n / t->m;
	t->cc = net_tune_cc(nd);
	t->arch = t->cc >= 10 ? 3 : t->cc >= 9 ? 2 : t->cc >= 8 ? 1 : 0;
	t->idx2 = g->nodes <= 2 ? g->nodes - 1 : 2;
	double k = g->per_node, bi = INFINITY, nch_i = 2;
	t->intra_hw = nd->intra == NET_INTRA_PCIE ? HW_PCI : HW_NVLINK;
	if (k > 1 || g->nodes == 1) {
		if (nd->intra == NET_INTRA_PCIE) {
			double s = nd->gpus_per_switch > 0 ? nd->gpus_per_switch : 2, b = nd->intra_Bps;
			if (!nd->pcie_p2p)
				b = fmin(b, nd->pcie_Bps / fmin(s, k));
			else if (k > s)
				b = fmin(b, nd->pcie_Bps);
			bi = b / 1e9;
		} else {
			double per_link = t->cc >= 10 ? 50e9 : 25e9;
			nch_i = fmax(1, round(nd->intra_Bps / per_link));
			bi = nch_i * nvlink_model_bw(t->cc);
		}
	}
	/* NCCL's network devices: on EFA one per GPU, its rails aggregated (the
	 * plugin's device speed is one rail's x the rails: A src/nccl_ofi_rdma.cpp:
	 * 410-413, coll.c "The EFA model" 3.), with the plugin's latency on every
	 * network step (tuning.cc:389-391, graphs[a]->latencyInter: 75 us on p5);
	 * elsewhere every NIC is a device of its own and no latency is added */
	bool efa = c->fabric == NET_FABRIC_EFA && nd->gpus > 0;
	double rails = efa && nd->nics > nd->gpus ? (double)nd->nics / nd->gpus : 1;
	double devs = nd->nics / rails, dev_Bps = nd->nic_Bps * rails;
	t->lat_inter = efa ? net_efa_tuner_latency(c) * 1e6 : 0;
	/* the network devices the group's k ranks of a node reach */
	double u = fmax(1, fmin(devs, k * devs / nd->gpus));
	if (g->nodes == 1) {
		t->ring = t->tree = (tgraph){nch_i, bi / nch_i, bi / nch_i};
	} else {
		double nic = dev_Bps / 1e9, s = inter_speed(t->cc, nic);
		double nch = ceil(u) * fmax(1, floor(nic / s));
		double inter = fmin(s, fmin(bi, u * nic) / nch);
		/* ncclTopoDupChannels (search.cc:1036-1048) */
		if (inter >= 25 && !(t->cc > 8.05 && inter < 50 && nch > 4)) {
			nch *= 2;
			inter /= 2;
		}
		t->ring = (tgraph){nch, inter, inter};
		t->tree = (tgraph){nch, fmin(2 * inter, bi / nch), inter};
	}
	/* CollNet: one channel per head, a head per NIC (assumed), the tree's
	 * bandwidths over them */
	double heads = ceil(u);
	t->collnet = (tgraph){heads, t->tree.intra * t->tree.nch / heads,
			      t->tree.inter * t->tree.nch / heads};
	double nn = t->cc >= 10 ? (g->nodes > 1 ? 32 : 24) : 16;
	double nvi = (isfinite(bi) ? bi : 0) / nn;
	t->nvls = (tgraph){nn, nvi,
			   g->nodes == 1 ? 2 * nvi
					 : u * dev_Bps / 1e9 / nn};
}

/* The ring search's channels inside an NVLink node (N src/graph/search.cc:
 * 1150-1265): the first speed of the architecture's list (:1051-1065) that
 * the GPU's NVLink bandwidth B carries, as many channels of it as B holds
 * (16 at most, ringGraph->maxChannels = MAXCHANNELS / 2, src/init.cc:1177),
 * then ncclTopoDupChannels (search.cc:1036-1048). A DGX A100 (240 GB/s):
 * 6 of 40 GB/s, duplicated to 12; a DGX H100 (370.8): 6 of 60, 12; a B200
 * node (721.8): 8 of 90, 16. tcomm_make's table keeps its stand-in, L
 * channels of one link's bandwidth (the same total): on the A100 the two
 * agree (12 of 20), on the H100 the per-channel ceilings bind at neither
 * count, on the B200 the ring's LL128 ceiling would be 640 GB/s at 16
 * rather than 720 at 18 (not carried over: a known gap of 3.6 % there). */
static double intra_channels(double cc, double bw)
{
	static const double s80[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
	static const double s90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
	static const double s100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
	const double *a = cc >= 10 ? s100 : cc >= 9 ? s90 : s80;
	int na = cc >= 10 ? (int)(sizeof s100 / sizeof *s100)
		 : cc >= 9 ? (int)(sizeof s90 / sizeof *s90) : (int)(sizeof s80 / sizeof *s80);
	int i = 0;
	while (i < na - 1 && a[i] > bw)
		i++;
	double s = a[i], n = fmin(16, fmax(1, floor(bw / s)));
	if (s >= 25 && !(cc > 8.05 && s < 50 && n > 4))
		n = fmin(16, 2 * n);
	return n;
}

/* comm->nChannels: the ring's and the tree's fewer (N src/init.cc:1459;
 * inside an NVLink node the ring search's, intra_channels), doubled when
 * the rings are connected (src/graph/connect.cc:460, 32 at most), doubled
 * again on SM90 and later across nodes where the ring's bwIntra is above 45
 * GB/s and fewer than 16 remain (connect.cc:482-485); an NVLS collective
 * runs on the NVLS graph's channels instead (tcomm_make: NVLS_NCHANNELS_SM90
 * 16, SM100 24 or 32). So inside a DGX A100 or DGX H100 24, a B200 node 32; across nodes of 400 Gb/s NICs a group of
 * one rank per node 4 (one NIC: 1 channel of 48 GB/s, duplicated to 2 of
 * 24, then 4), of 2 per node 8, of 4 or 8 per node 16. */
double net_tune_channels(const net_cluster *c, const net_group *g, net_algo a)
{
	if (g->size <= 1)
		return 0;
	tcomm t;
	tcomm_make(c, g, &t);
	double n = fmin(t.ring.nch, t.tree.nch);
	if (g->nodes == 1 && t.intra_hw == HW_NVLINK)
		n = intra_channels(t.cc, t.ring.nch * t.ring.intra);
	n = fmin(32, 2 * n);
	if (t.cc >= 9 && g->nodes > 1 && t.ring.intra > 45 && n < 16)
		n = fmin(32, 2 * n);
	/* NVLS on the NVLS graph's channels (nvls.cc:155-213), across nodes no
	 * more than the communicator's; NVLSTree on the NVLS graph's
	 * (enqueue.cc:2084-2090). Rings and trees of messages under 32 KiB per
	 * channel (Simple; 5 KiB LL128, 4 KiB x ranks LL) run fewer
	 * (enqueue.cc:2092-2096): not modelled, a step's collectives are larger */
	if (a == NET_ALGO_NVLS)
		return g->nodes > 1 ? fmin(t.nvls.nch, n) : t.nvls.nch;
	if (a == NET_ALGO_NVLSTREE)
		return t.nvls.nch;
	return n;
}

/* The tree's protocol step on bus bandwidth `bus` (tuning.cc:210-215): LL at
 * 1/3.8 of it and llMaxBw, LL128 at 120/128 of it (7/9 on one node) and nCh
 * perChMaxTreeLL128Bw; Simple as it is. */
static double tree_proto(const tcomm *t, int p, double bus)
{
	if (p == T_LL)
		return fmin(bus / 3.8, ll_max_bw[t->m == 1 ? t->arch : 0][t->idx2]);
	if (p == T_LL128)
		return fmin(bus * (t->m == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
			    t->tree.nch * tree_ll128_ch[t->arch][t->idx2]);
	return bus;
}

/* tuning.cc:287-441 for one entry: *lat (us) and *bw (GB/s, algorithm
 * bandwidth); false when NCCL has no entry (bw 0). */
static bool entry(const tcomm *t, net_coll coll, int a, int p, double *lat, double *bw)
{
	bool ar = coll == NET_ALLREDUCE, agrs = coll == NET_ALLGATHER || coll == NET_REDUCESCATTER;
	double n = t->n, m = t->m, ppn = t->ppn;
	double nsteps = ar ? 2 * (n - 1) : agrs ? n - 1 : n;
	bool collnet = a == A_CND || a == A_CNC;
	const tgraph *gr = a == A_RING			? &t->ring
			   : a == A_NVLS || a == A_NVLST ? &t->nvls
			   : collnet			 ? &t->collnet
							 : &t->tree;
	double b = m <= 2 || collnet ? gr->intra : gr->inter;
	if (a == A_NVLS || a == A_NVLST) {
		double ib = gr->intra * nvls_eff[t->arch] * (gr->nch - 1) / gr->nch;
		ib *= ar ? 2.0 : (ppn - 1) / ppn;
		double nb = gr->inter * (m <= 2 && a == A_NVLST ? 2 : 1);
		b = fmin(ib, nb);
		if (a == A_NVLST)
			b = fmin(b, nvlstree_ch[t->arch][t->idx2]);
	}
	double bus = gr->nch * b;
	double llmax = ll_max_bw[m == 1 ? t->arch : 0][t->idx2];
	if (a == A_RING && p == T_LL)
		bus = fmin(llmax, bus * .5);
	if (a == A_RING && p == T_LL128)
		bus = fmin(bus * 0.92, gr->nch * ring_ll128_ch[t->arch][t->idx2]);
	if (a == A_TREE && ar)
		bus = fmin(bus * .92, gr->nch * tree_ch[t->arch][t->idx2]);
	if (a == A_TREE)
		bus = tree_proto(t, p, bus);
	if (a == A_PAT)
		bus *= .75;
	if (a == A_CND && agrs) {
		bus = ppn * fmin(gr->intra, gr->inter * 0.9);
	} else if (a == A_CND) {
		double f = ppn / gr->nch;
		f -= (f - 1) / 2;
		bus /= f;
		if (t->cc >= 9)
			bus *= .85;
	}
	if (!(a != A_RING && agrs))
		bus *= a == A_RING || a == A_NVLS || a == A_NVLST ? n / nsteps : .5;
	if (!(bus > 0))
		return false;
	*bw = bus;
	int ahw = a == A_NVLS || a == A_NVLST ? HW_NVLINK : t->intra_hw;
	double hintra = hw_us[ahw][a][p];
	double hinter = (ppn == 1 ? hw_us[HW_NET][A_TREE][p] : hw_us[HW_NET][a][p]) +
			t->lat_inter * (p == T_SIMPLE ? 2 : 1);
	double l = base_us[a][p];
	int lm = log2i_d(m);
	switch (a) {
	case A_RING:
		if (!ar && !agrs) {
			int hw = m == 1 ? t->intra_hw : HW_NET;
			l += nsteps * hw_us[hw][p == T_SIMPLE ? A_TREE : A_RING][p];
		} else {
			double ov = m > 1 ? (p == T_SIMPLE ? 3.0 : 1.0) : 0;
			double ni = m == 1 ? 0 : ar ? 2 * (m - 1) : m - 1;
			l += (nsteps - ni) * fmax(hintra, ov) + ni * hinter;
		}
		break;
	case A_TREE:
		l += 2 * ((ppn - 1) * hintra + lm * hinter);
		break;
	case A_CND:
		l += 2 * (fmin(1, ppn - 1) * hintra + (ppn - 1) * 0.4) + hinter;
		break;
	case A_CNC:
		l += 2 * (ppn - 1) * hintra + hinter;
		break;
	case A_NVLS:
		l = hintra + (m > 1 ? hinter : 0);
		break;
	case A_NVLST:
		l += hintra + 2 * lm * hinter;
		break;
	default: /* PAT */
		l += lm * (hinter / 3.5) + n * 2.8;
		break;
	}
	*lat = l;
	return true;
}

/* ncclTopoGetAlgoTime (tuning.cc:629-657), us. */
static double algo_time(const tcomm *t, net_coll coll, int a, int p, double bytes, double lat,
			double bw)
{
	int ls = bytes >= 64 ? log2i_d(floor(bytes / 64)) : -1;
	bool ar = coll == NET_ALLREDUCE;
	if (a == A_TREE && ar && ls >= 0 && ls < 23)
		bw *= tree_corr[p][ls];
	if (a == A_NVLST && ar && ls >= 0 && ls < 24 && t->cc >= 10)
		bw *= tree_corr[p][ls];
	if (a == A_RING && p == T_SIMPLE && t->m > 1 && ar && bytes / (t->ring.nch * t->n) >= 64)
		lat *= t->cc < 8 ? 1.9 : 1.4;
	return lat + bytes / (1000 * bw);
}

static net_algo to_net(int a)
{
	static const net_algo map[A_COUNT] = {NET_ALGO_TREE,	       NET_ALGO_RING,
					      NET_ALGO_COLLNET_DIRECT, NET_ALGO_COLLNET_CHAIN,
					      NET_ALGO_NVLS,	       NET_ALGO_NVLSTREE,
					      NET_ALGO_PAT};
	return map[a];
}

/* Whether NCCL has algorithm a for the collective and podsim can time it. */
static bool algo_on(const net_cluster *c, net_coll coll, const net_group *g, double cc, int a)
{
	bool ar = coll == NET_ALLREDUCE, agrs = coll == NET_ALLGATHER || coll == NET_REDUCESCATTER;
	bool regular = (int64_t)g->per_node * g->nodes == g->size;
	const net_node *nd = &c->node;
	switch (a) {
	case A_RING:
		return ar || agrs || coll == NET_BROADCAST;
	case A_TREE:
		return ar && regular;
	case A_NVLS:
		if (!ar || cc < 9 || !(nd->nvls_busbw_Bps > 0) || nd->intra != NET_INTRA_NVSWITCH)
			return false;
		return g->nodes == 1 ? g->size >= 2 : net_sharp_ok(c, coll, g, NET_ALGO_NVLS);
	case A_NVLST:
		return ar && cc >= 9 && g->nodes > 1 && g->per_node > 1 && regular &&
		       nd->intra == NET_INTRA_NVSWITCH && nd->nvls_busbw_Bps > 0;
	case A_PAT:
		return net_pat_ok(c, coll, g);
	case A_CND:
		return (ar || agrs) && net_sharp_ok(c, coll, g, NET_ALGO_COLLNET_DIRECT);
	default: /* CollNetChain */
		return ar && net_sharp_ok(c, coll, g, NET_ALGO_COLLNET_CHAIN);
	}
}

/* Whether NCCL runs protocol p with algorithm a: LL and LL128 only for the
 * ring and the tree (tuning.cc:299-304, 338-339), LL128 from SM70 on
 * NVLink nodes (:535-553; net_proto_ok), nccl_proto. */
static bool proto_on(const net_cluster *c, const tcomm *t, int a, int p)
{
	if (a != A_RING && a != A_TREE && p != T_SIMPLE)
		return false;
	return net_proto_ok(c, (net_proto)p) && !(p == T_LL128 && t->cc < 7);
}

bool net_tune_pick(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		   net_algo *algo, net_proto *proto)
{
	if (!c || !g || g->size < 2 || !(bytes > 0) || g->nodes < 1 ||
	    (coll != NET_ALLREDUCE && coll != NET_ALLGATHER && coll != NET_REDUCESCATTER &&
	     coll != NET_BROADCAST) ||
	    c->algo == NET_ALGO_HIER)
		return false;
	tcomm t;
	tcomm_make(c, g, &t);
	double best = INFINITY;
	bool forced = false;
	/* a forced algorithm where it applies, else all (NCCL falls back) */
	for (int a = 0; a < A_COUNT; a++)
		if (c->algo == to_net(a) && algo_on(c, coll, g, t.cc, a))
			forced = true;
	for (int a = 0; a < A_COUNT; a++) {
		if ((forced && c->algo != to_net(a)) || !algo_on(c, coll, g, t.cc, a))
			continue;
		for (int p = 0; p < NET_PROTO_COUNT; p++) {
			if (!proto_on(c, &t, a, p))
				continue;
			double lat, bw;
			if (!entry(&t, coll, a, p, &lat, &bw))
				continue;
			double x = algo_time(&t, coll, a, p, bytes, lat, bw);
			if (x < best) {
				best = x;
				*algo = to_net(a);
				*proto = (net_proto)p;
			}
		}
	}
	return isfinite(best);
}

double net_tune_time_us(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
			net_algo algo, net_proto proto)
{
	if (!c || !g || g->size < 2 || !(bytes > 0) || (unsigned)proto >= NET_PROTO_COUNT)
		return -1;
	tcomm t;
	tcomm_make(c, g, &t);
	for (int a = 0; a < A_COUNT; a++) {
		double lat, bw;
		if (to_net(a) == algo && proto_on(c, &t, a, (int)proto) &&
		    algo_on(c, coll, g, t.cc, a) && entry(&t, coll, a, (int)proto, &lat, &bw))
			return algo_time(&t, coll, a, (int)proto, bytes, lat, bw);
	}
	return -1;
}

/* NCCL's per-channel ceilings on the tree all-reduce (tuning.cc:210-221),
 * the figures its own measurements put on what one channel's thread block
 * moves: nCh perChMaxTreeBw for every protocol, then LL at 1/3.8 of it
 * (and llMaxBw), LL128 at 120/128 of it (7/9 on one node) and nCh
 * perChMaxTreeLL128Bw; as algorithm bandwidth x 0.5 (:376-382). The links'
 * own bound (0.92 x nCh bw) is left out: podsim times the links itself
 * (coll.c "tree"). The tree's data time is at least bytes over it. */
double net_tree_cap_time(const net_cluster *c, const net_group *g, net_proto p, double bytes)
{
	if (!c || !g || g->size < 2 || !(bytes > 0) || (unsigned)p >= NET_PROTO_COUNT)
		return 0;
	tcomm t;
	tcomm_make(c, g, &t);
	double bus = tree_proto(&t, (int)p, t.tree.nch * tree_ch[t.arch][t.idx2]);
	return bus > 0 ? bytes / (0.5 * bus * 1e9) : 0;
}
