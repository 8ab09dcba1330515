/* net.h - nodes, the cluster fabric and the cost of communication.
 *
 * First model (issue #2): a node is G GPUs on a scale-up fabric (NVSwitch, an
 * NVLink mesh or PCIe) with N NICs to a non-blocking (or oversubscribed) fat
 * tree. Collectives are NCCL's algorithms with alpha-beta costs:
 *
 *   ring all-reduce on n ranks, S bytes:  t = lat + 2(n-1)/n * S / busbw
 *   ring all-gather / reduce-scatter:     t = lat + (n-1)/n * S / busbw
 *     (S = the full, unsharded buffer)
 *   lat = base + (nsteps - ninter) * intra_step + ninter * inter_step  (NCCL tuning
 *   model, reference/hardware.md section 13, source S27: the per-protocol base and
 *   per-step latencies for NVLink, PCIe and network steps live in net.c as NCCL's
 *   published tuning constants), nsteps = 2(n-1) for all-reduce and n-1 for the
 *   others, ninter = steps that cross a node boundary.
 *   Every collective also pays the node's calibrated coll_overhead (what
 *   nccl-tests measure beyond the tuning model at small sizes).
 *   The algorithm and protocol (LL, LL128, Simple) are NCCL's pick by its
 *   own tuning model (net_nccl_choice: tune.c rebuilds NCCL's table from
 *   its constants and the node's nominal links), which these formulas then
 *   time; LL moves half the payload per byte on the wire, LL128 ~92%.
 *   An all-reduce inside one node with NVLS (net_nvls_allreduce) may run
 *   NVLS where NCCL's table puts it below the ring.
 *
 *   busbw = min(intra-node bandwidth per GPU  (if the group has >1 GPU per node),
 *               NIC share of the group        (if it spans >1 node))
 *   The NIC share assumes every GPU of a node communicates at once (true for
 *   DP groups across TP ranks): a group with k GPUs on a node gets
 *   k/G * nics * nic_bw * nic_eff, divided by the fabric oversubscription.
 *
 * The flow-level network (issue #4) replaces these formulas with routed flows
 * that share links; the alpha-beta versions stay for the plan pre-screen.
 * Units: seconds, bytes, bytes/s.
 */
#ifndef PODSIM_NET_H
#define PODSIM_NET_H

#include "../conf/conf.h"

typedef enum { NET_INTRA_NVSWITCH = 0, NET_INTRA_NVLINK_MESH, NET_INTRA_PCIE } net_intra;
typedef enum {
	NET_FABRIC_FAT_TREE = 0,
	NET_FABRIC_RAIL,
	NET_FABRIC_SINGLE,
	NET_FABRIC_TORUS2D, /* nodes on a 2D torus, one router per node */
	NET_FABRIC_TORUS3D,
	NET_FABRIC_EFA, /* AWS EFA: a non-blocking fat tree (as fat-tree) that NCCL
			 * reaches through aws-ofi-nccl (the EFA model below) */
	NET_FABRIC_RAIL_ONLY /* rail-only (Wang et al. 2023): NIC j of every node on
			      * rail j's own switches, no spine joining the rails;
			      * traffic between rails crosses the node over NVLink
			      * (PXN). The alpha-beta model times it as
			      * rail-optimized (net/coll.c). */
} net_fabric;
/* How a plan's collectives are timed ([cluster] network): the closed forms
 * below, or the flow-level model on the cluster's link graph (sim/topo) with
 * every concurrent translate of a group contending for the links. */
typedef enum { NET_MODEL_ALPHA_BETA = 0, NET_MODEL_FLOW, NET_MODEL_AUTO } net_model;

/* NCCL's algorithm for a collective ([cluster] nccl_algo, as NCCL_ALGO):
 * auto = NCCL's pick by its own table among ring, tree, nvls, nvlstree and
 * pat where they apply (net_nccl_choice; on EFA the aws-ofi-nccl tuner's
 * regions first, net_efa_region); a forced one is used where it applies (ring:
 * all-reduce, all-gather, reduce-scatter, broadcast; tree, hier, nvls,
 * nvlstree: all-reduce; pat: all-gather and reduce-scatter of a group with
 * one rank on each node, net_pat_ok) and auto elsewhere, as NCCL falls
 * back. hier = intra-node reduce-scatter, inter-node ring all-reduces,
 * intra-node all-gather. nvls = in-switch reduction inside one node;
 * nvlstree = NVLS inside each node and a tree between the nodes (NCCL's
 * NVLSTree); pat = NCCL's Parallel Aggregated Trees (2.23 on: log-distance
 * peers, coll.c "PAT"). With [cluster] sharp (NCCL's CollNet through the
 * SHARP plugin, coll.c "SHARP"): collnetdirect, collnetchain (all-reduce
 * across nodes, the switches reduce) and nvls across nodes (NVLS inside
 * each node, SHARP between them). */
typedef enum {
	NET_ALGO_AUTO = 0,
	NET_ALGO_RING,
	NET_ALGO_TREE,
	NET_ALGO_HIER,
	NET_ALGO_NVLS,
	NET_ALGO_NVLSTREE,
	NET_ALGO_PAT,
	NET_ALGO_COLLNET_DIRECT, /* CollNetDirect: SHARP in the network ([cluster] sharp) */
	NET_ALGO_COLLNET_CHAIN,  /* CollNetChain: SHARP, a chain inside each node */
	NET_ALGO_COUNT
} net_algo;

const char *net_algo_name(net_algo a);

/* auto (the default): the flow model up to this many nodes, alpha-beta
 * beyond, where the two agree on non-blocking fabrics and a sweep's
 * hundreds of simulated plans would pay the flow model's cost for nothing:
 * Mixtral 8x7B (tp 8, ep 4) on 2,048 DGX H100, rail-optimized InfiniBand,
 * the same step in 0.5 s against 0.002 s (Llama 3.1 405B: 0.033 against
 * 0.013 s). Where they differ, on a RoCE fat tree's ECMP collisions, the
 * flow model takes 2.0 s on 512 nodes and 41 s on 2,048 (README "Speed"),
 * and the run says which model timed it (exec/run.c). */
#define NET_FLOW_AUTO_NODES 512

/* The compute NICs' link technology: names the NIC and fabric link classes. */
typedef enum { NET_NIC_IB = 0, NET_NIC_ROCE, NET_NIC_ETHERNET, NET_NIC_EFA } net_nic;

/* The EC2 instance type of an AWS node ([node] ec2_instance), as aws-ofi-nccl
 * reads the product name to pick its tuner platform (A = aws/aws-ofi-nccl
 * 2daf7d30, include/tuner/nccl_ofi_tuner_process_config.h:38-50): p5 and p5e
 * share the P5_P5E tables, p5en and p6-b200 have their own (efa.c); none (not
 * an AWS instance, or one without region tables): NCCL's own tuner decides. */
typedef enum {
	NET_EC2_NONE = 0,
	NET_EC2_P5,
	NET_EC2_P5E,
	NET_EC2_P5EN,
	NET_EC2_P6_B200,
	NET_EC2_COUNT
} net_ec2;

typedef struct net_node {
	char name[CONF_STR_MAX];
	char source[CONF_STR_MAX];
	int gpus;              /* GPUs per node */
	net_intra intra;
	double intra_Bps;      /* per GPU, per direction, into the scale-up fabric */
	double intra_eff;      /* achievable fraction of intra_Bps (calibrated) */
	int nics;              /* compute NICs per node */
	double nic_Bps;        /* per NIC, per direction */
	double nic_eff;        /* achievable fraction of nic_Bps (calibrated) */
	double pcie_Bps;       /* GPU <-> host, per direction */
	double host_mem_bytes; /* DRAM per node */
	double nvme_bytes;
	double nvme_Bps;
	double host_mem_Bps;   /* host DRAM bandwidth, all sockets (0 = unknown) */
	double host_mem_eff;   /* reached by a CPU optimizer step (assumed) */
	double pcie_eff;       /* achievable fraction of pcie_Bps for host copies */
	double power_w;        /* node power excluding GPUs (CPU, NICs, fans) */
	double nvls_busbw_Bps; /* NVLink SHARP all-reduce bus bandwidth (0 = none) */
	double coll_overhead_s; /* fixed cost per collective beyond NCCL's latency model
				 * (launch, proxy, synchronisation), calibrated */
	double ring_local_Bps; /* ring_local_bw: the rate of the ring kernel's one local
				* step per loop, all channels together (0 = none;
				* net_ring_local_time, coll.c "The ring's local step") */
	net_nic nic_kind;      /* ib (default), roce or ethernet */
	net_ec2 ec2;           /* ec2_instance: the aws-ofi-nccl tuner's platform (none) */
	/* PCIe nodes: GPUs share PCIe switches, gpus_per_switch on each, one
	 * pcie_bw uplink per switch to the CPU; with pcie_p2p GPU pairs talk
	 * through the switches, without it through host memory. */
	int gpus_per_switch;
	bool pcie_p2p;
	/* The GPUs' compute capability ([gpu] compute_capability, read by
	 * net_cluster_from_conf; 0 = unknown): NCCL's tuner constants are per
	 * GPU architecture (tune.c, net_tune_cc). */
	double cc;
} net_node;

/* The measured spread of a collective's time at one node count on an EFA
 * fabric ([cluster] spread, fitted by podsim calibrate --fabric): the 5th
 * and 95th percentile times over the median time (lo <= 1 <= hi). The
 * step's spread (sim/exec, exec_spread) samples it (net_spread_factor). */
typedef struct net_spread {
	int nodes;
	double lo, hi;
} net_spread;

#define NET_SPREAD_MAX 9 /* 9 entries NODES:LO-HI fit the key's 127 bytes */

typedef struct net_cluster {
	char name[CONF_STR_MAX];
	net_node node;
	int nodes;
	net_fabric fabric;
	double oversubscription; /* >= 1; 1 = non-blocking */
	double switch_lat_s;     /* per switch hop */
	int gpus;                /* nodes * node.gpus */
	/* Cost and carbon (podsim sweep): price of one GPU-hour in USD (0 =
	 * unknown), grid carbon intensity in kg CO2e per kWh, data-centre PUE. */
	double gpu_hour_usd;
	double grid_kg_per_kwh;
	double pue;
	double gpu_power_w; /* measured average board power per GPU (0 = the TDP) */
	net_model network; /* [cluster] network: alpha-beta, flow or auto (default) */
	net_algo algo;     /* [cluster] nccl_algo (default auto) */
	int proto;         /* [cluster] nccl_proto: 0 = auto, else net_proto + 1 */
	bool sharp;        /* [cluster] sharp: NCCL_COLLNET_ENABLE=1 with the SHARP
			    * plugin on an InfiniBand fabric whose switches reduce
			    * (coll.c "SHARP"); false by default */
	/* The calibrated fabric (coll.c "The EFA model": EFA's, and any fabric's
	 * that podsim calibrate --fabric fitted; 0 by default: NCCL's model): */
	double net_lat_s;      /* net_latency: per inter-node step, twice with Simple */
	double msg_overhead_s; /* msg_overhead: per step of a collective across nodes */
	double rail_Bps;       /* rail_bw as written (0: nic_bw x nic_efficiency); the
				* loader sets node.nic_eff = rail_bw / nic_bw */
	double congestion;     /* median slowdown kappa(m) = 1 + congestion (m-1)^exp */
	double congestion_exp;
	double sync_s;         /* sync_delay: the per-call wait for the slowest of m nodes,
				* D(m) = sync_delay (m-1)^congestion_exp (net_sync_delay) */
	char spread_text[CONF_STR_MAX]; /* [cluster] spread as written */
	/* [cluster] fit_weak as written: the fitted keys the fabric's calibration
	 * left weakly determined (podsim calibrate --fabric writes it; explain
	 * names them beside the step's network part) */
	char fit_weak[CONF_STR_MAX];
	int nspread;
	net_spread spread[NET_SPREAD_MAX];
	double spread_corr; /* spread_correlation: the share of a call's log-slowdown
			     * variance common to every call of a step (exec_spread) */
	/* Nodes of another GPU type, as written ([cluster] other_gpu: a [gpu]
	 * file, or a node file with its [gpu]; other_nodes: their node
	 * numbers); plan's loader reads the file and checks the list
	 * (plan_scenario.other_gpu, other_net). "" = none. */
	char other_gpu[CONF_STR_MAX];
	char other_nodes[CONF_STR_MAX];
} net_cluster;

/* Whether collectives on c are timed by the flow model (network = flow, or
 * auto on at most NET_FLOW_AUTO_NODES nodes). */
bool net_uses_flow(const net_cluster *c);
/* The EFA model's keys a fabric calibration fits (valid/fabric.c, in its
 * parameters' order: intra_efficiency, nvls_busbw, net_latency,
 * msg_overhead, rail_bw, congestion, congestion_exp, sync_delay), k <
 * NET_EFA_FIT_KEYS; NULL past them. [cluster] fit_weak names some of them. */
#define NET_EFA_FIT_KEYS 8
const char *net_efa_fit_key(int k);
/* The index of the key spelled by the n characters at name, or -1; them
 * all, comma-separated, into buf (for messages naming the choices). */
int net_efa_fit_key_find(const char *name, size_t n);
void net_efa_fit_key_list(char *buf, size_t len);

/* Whether a and b are the same cluster: every field equal (strings by
 * content, numbers by value), so that anything computed from one (a link
 * graph, sim/topo) holds for the other. A sweep's plans share a link graph
 * on this test (topo_graphs). A field added to net_node or net_cluster must
 * be compared here (test_net checks every key of the two key tables). */
bool net_cluster_same(const net_cluster *a, const net_cluster *b);

extern const conf_key net_node_keys[];
extern const size_t net_node_nkeys;
extern const conf_key net_cluster_keys[];
extern const size_t net_cluster_nkeys;

/* Read [node] and [cluster]. SIM_OK or SIM_ECONF. */
int net_cluster_from_conf(const conf_doc *doc, net_cluster *out, sim_diag *diag);

/* A [node] section named `section` (a node file's "node", or a stored
 * run's "other_node": plan/scenario.c) into *out with the node key table;
 * SIM_OK or SIM_ECONF (mixed.c). */
int net_node_from_section(const conf_doc *doc, const char *section, net_node *out,
			  sim_diag *diag);
/* The links a collective over nodes of both types a and b runs at (mixed.c
 * derives it: a ring's and a tree's slowest hop): a's figures with the lower
 * scale-up rate (intra_bw x intra_efficiency, its kind), the lower NIC total
 * per GPU (nics x nic_bw x nic_efficiency / gpus, its kind), the lower PCIe
 * rate, the lower nvls_busbw (0 where either has none), the larger
 * coll_overhead, the lower ring_local_bw, the lower known compute capability
 * (NCCL's minCompCap). a and b have the same gpus. */
void net_node_slowest(const net_node *a, const net_node *b, net_node *out);

/* A communication group of `size` ranks whose global ranks are r, r+stride, ...
 * placed on nodes of G GPUs filled in rank order. */
typedef struct net_group {
	int size;     /* ranks in the group */
	int per_node; /* ranks of the group on one node */
	int nodes;    /* nodes the group spans */
	int stride;   /* rank distance between members (net_group_make's; 0 when
		       * built by hand: the flow model then needs it given) */
} net_group;

void net_group_make(const net_cluster *c, int size, int stride, net_group *out);

typedef enum {
	NET_ALLREDUCE = 0,
	NET_ALLGATHER,
	NET_REDUCESCATTER,
	NET_BROADCAST,
	NET_ALLTOALL,
	NET_P2P,
	NET_COLL_COUNT
} net_coll;

const char *net_coll_name(net_coll c);

typedef enum { NET_PROTO_LL = 0, NET_PROTO_LL128, NET_PROTO_SIMPLE, NET_PROTO_COUNT } net_proto;

typedef struct net_cost {
	double time_s;      /* total */
	double latency_s;   /* the alpha part */
	double busbw_Bps;   /* bus bandwidth used (before protocol efficiency) */
	net_proto proto;    /* chosen protocol */
	double intra_bytes; /* bytes each rank sends over its scale-up port */
	double inter_bytes; /* bytes each rank sends through the NICs */
	net_algo algo;      /* the algorithm used (ring for all-to-all and p2p) */
	double sync_s;      /* of time_s: the EFA model's synchronisation delay
			     * (net_sync_delay; 0 elsewhere) */
	/* bytes on the busiest fabric (switch-to-switch) link with every copy of
	 * the group running (the leaves' uplinks where they are the bottleneck):
	 * the flow model's busiest link of the class; in the closed forms each
	 * NIC's bytes times the oversubscription o (a leaf's N NICs share N/o
	 * uplinks, net_fabric_uplinks), 0 inside one node or without uplinks.
	 * The replay shares a node's uplinks among transfers of different groups
	 * by it (exec/replay.c). */
	double fabric_bytes;
} net_cost;

/* NVLS (NVLink SHARP: the NVSwitch reduces, H100 and later): an all-reduce of
 * a group inside one node whose node has nvls_busbw takes
 *   t = lat + S / algbw,
 *   algbw = min(nvls_busbw * n / (2 (n - 1)), B_port * n / (n + 1))
 * (nccl-tests' busbw = algbw * 2(n-1)/n): the switch's reduction ceiling,
 * or each GPU's port (intra_bw * intra_efficiency), which carries (n+1)/n S
 * each way (the shards up for the reduction and its own reduced shard up
 * for the multicast, and back down; sim/topo/coll.c derives it). SIM_OK
 * with the cost, or SIM_EINVAL when NVLS does not apply (other collectives,
 * groups across nodes without [cluster] sharp, nodes without it). Latency
 * net_nvls_latency. Across nodes with sharp (net_sharp_ok: NCCL's NVLS
 * algorithm over CollNet, coll.c "SHARP") each node's NVLS reduces its k
 * ranks and the switches reduce between the nodes:
 *   busbw = min(nvls_busbw, B_port k/(k+1) 2(n-1)/n, 2(n-1)/n B_sharp),
 *   t = net_sharp_latency + 2(n-1)/n S / busbw. */
int net_nvls_allreduce(const net_cluster *c, const net_group *g, double bytes, net_cost *out);
/* NVLS's latency inside a node: NCCL's tuning constants for NVLS, base 0
 * and 25 us of NVLink hardware latency with Simple (N tuning.cc:153, 161,
 * 424-425), as tune.c weighs NVLS against the ring (it was the ring's
 * Simple base and one NVLink step, 11.8 us, while NCCL's choice used 25). */
double net_nvls_latency(const net_cluster *c);

/* Cost of one collective of `bytes` (full buffer size as nccl-tests counts it;
 * for P2P the message) on group g. For P2P, g->nodes > 1 means the two ranks are
 * on different nodes. SIM_OK, or SIM_EINVAL on a bad group. */
int net_collective(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		   net_cost *out);

/* NCCL's tuning-model latency (the header's lat formula) of a collective
 * across `nodes` nodes with nsteps steps of which ninter cross a node
 * boundary, for protocol p, with the EFA terms on fabric = efa (coll.c); and
 * the fraction of bus bandwidth protocol p delivers. For the flow-level
 * model (sim/topo), which times the same algorithms on a link graph. */
double net_proto_latency(const net_cluster *c, int nodes, double nsteps, double ninter,
			 net_proto p);
double net_proto_bw(net_proto p);
/* The ring's latency, net_proto_latency's, but for a ring all-reduce,
 * all-gather or reduce-scatter of one rank per node (one_per_node: see
 * net_ring_one_per_node), whose network steps take the tree's network
 * latency (NCCL 2.23 on, coll.c). */
double net_ring_latency(const net_cluster *c, int nodes, bool one_per_node, double nsteps,
			double ninter, net_proto p);
bool net_ring_one_per_node(net_coll coll, const net_group *g);
/* The double binary tree's tuning model (NCCL tuning.cc, S27; constants in
 * coll.c): its latency across `nodes` nodes for nsteps steps of which
 * ninter cross nodes (EFA terms included), and the fraction of bus
 * bandwidth protocol p delivers (the 0.92 tree derate included). */
double net_tree_latency(const net_cluster *c, int nodes, net_proto p, double nsteps,
			double ninter);
double net_tree_proto_bw(net_proto p, bool multi_node);
/* The tree all-reduce's data time floor from NCCL's per-channel ceilings
 * (tune.c: perChMaxTreeBw, perChMaxTreeLL128Bw over NCCL's tree channels
 * for group g), seconds for `bytes`; 0 where none applies. */
double net_tree_cap_time(const net_cluster *c, const net_group *g, net_proto p, double bytes);
/* PAT (coll.c "PAT"): whether NCCL runs it for collective `coll` on group
 * g (all-gather or reduce-scatter, one rank on each of more than one node,
 * the Simple protocol allowed: N tuning.cc:215-223, 295-304); its
 * tuning-model latency for n = g's ranks on as many nodes (EFA terms
 * included); and the fraction of the links' bus bandwidth its data time
 * runs at, NCCL's 0.75 (tuning.cc:337): t_bw = S / (0.75 busbw), the whole
 * buffer S (no (n-1)/n: tuning.cc:446-451 converts only the ring's). */
bool net_pat_ok(const net_cluster *c, net_coll coll, const net_group *g);
double net_pat_latency(const net_cluster *c, int n);
#define NET_PAT_BW 0.75
/* SHARP (coll.c "SHARP"; [cluster] sharp): whether NCCL runs algorithm a
 * (NET_ALGO_COLLNET_DIRECT, NET_ALGO_COLLNET_CHAIN, or NET_ALGO_NVLS across
 * nodes) for collective `coll` on group g: sharp set, at least 2 nodes
 * (NCCL_COLLNET_NODE_THRESHOLD), the same k ranks on each node, the Simple
 * protocol allowed; all-reduce: the CollNets for k <= 8, CollNetDirect on
 * NVSwitch nodes only, NVLS on NVSwitch nodes with nvls_busbw and k >= 2;
 * all-gather and reduce-scatter: CollNetDirect on NVSwitch nodes with a NIC
 * per local rank (k <= nics, k <= 8). */
bool net_sharp_ok(const net_cluster *c, net_coll coll, const net_group *g, net_algo a);
/* Its tuning-model latency for k ranks per node (Simple; coll.c). */
double net_sharp_latency(net_algo a, int k);
/* The rate of the group's k ranks per node into the switches: k/G of the
 * node's NICs x nic_bw x nic_efficiency, without the oversubscription (each
 * leaf sends one reduced stream per tree up, coll.c "SHARP"). */
double net_sharp_nic_bw(const net_cluster *c, double k);
/* The data-time divisor of algorithm a under SHARP for collective `coll`:
 * NCCL's 0.85 for CollNetDirect's all-reduce on Hopper and later (taken as
 * NVSwitch nodes with nvls_busbw), 0.9 for its all-gather and
 * reduce-scatter, else 1. */
double net_sharp_eff(const net_cluster *c, net_coll coll, net_algo a);
/* NVLSTree's latency across `nodes` nodes: NVLS's, 2 floor(log2 nodes)
 * network steps, and the EFA terms (coll.c). */
double net_nvlstree_latency(const net_cluster *c, int nodes);
/* B_nic: the bus bandwidth k ranks per node of a group across m nodes get
 * from the NICs, k/G of the node's nics x nic_bw x nic_efficiency, over the
 * oversubscription and the congestion kappa(m) (coll.c). */
double net_nic_busbw(const net_cluster *c, double k, int m);
/* The calibrated fabric's median congestion kappa(m) = 1 + congestion
 * (m-1)^exp of a collective across m nodes (coll.c); 1 inside a node or
 * with congestion 0 (the default). */
double net_congestion(const net_cluster *c, int nodes);
/* The calibrated fabric's per-call synchronisation delay (coll.c, "The EFA
 * model", 5.) of a collective of `bytes` > 0 on group g: the wait for the
 * slowest of its m > 1 nodes, D(m) = sync_delay (m-1)^congestion_exp, the
 * same for every call whatever its size or kind; 0 inside a node, for no
 * bytes or without sync_delay (the default). Both models add it to the time
 * of the algorithm they picked (net_collective, topo_collective_groups),
 * NCCL's choice not seeing it. */
double net_sync_delay(const net_cluster *c, const net_group *g, double bytes);
/* NCCL's choice on EFA (coll.c, "The EFA model", 6.): the algorithm and
 * protocol NCCL picks for a collective across more than one node, by its own
 * model of the cluster (the plugin's reported latency, NET_EFA_TUNER_LATENCY,
 * for net_latency; no message cost, congestion or sync delay; the region
 * tuner first), which net_collective and the flow model then time with the
 * cluster's fitted costs. False off EFA, inside a node, for one rank or no
 * bytes. A forced nccl_algo / nccl_proto holds as in net_collective. */
bool net_efa_choice(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto);
/* NCCL's choice (coll.c "Which algorithm NCCL runs"): the algorithm and
 * protocol NCCL runs for collective `coll` of `bytes` on group g, picked by
 * its model, never measured: net_efa_choice on EFA across nodes (the
 * plugin's region tuner first), else NCCL's own table (net_tune_pick,
 * tune.c; the closed forms' lowest time for all-to-all, p2p and a forced
 * hier); a forced nccl_algo / nccl_proto holds where it applies. net_collective times this pair with the closed forms, the flow
 * model (sim/topo) simulates it on the link graph: one decision for both.
 * algo is ring for all-to-all and p2p (their one algorithm); for one rank
 * or no bytes ring/Simple. SIM_OK, or SIM_EINVAL on a bad group. */
int net_nccl_choice(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto);
/* NCCL's own table (tune.c, where it is derived): net_tune_pick, the pair
 * with the lowest time NCCL's model predicts (N src/graph/tuning.cc
 * ncclTopoTuneModel and ncclTopoGetAlgoTime at 5067397c) from NCCL's
 * constants and the node's nominal links (not podsim's fitted
 * efficiencies), among the algorithms podsim times for the group, a forced
 * nccl_algo / nccl_proto holding where it applies; for all-reduce,
 * all-gather, reduce-scatter and broadcast (on EFA with the plugin's latency
 * on every network step, after its region tuner: net_efa_choice; false for
 * other collectives, nccl_algo = hier, one rank or no bytes). net_tune_time_us: that
 * table's time of one pair in microseconds, -1 where NCCL has no entry.
 * net_tune_cc: the compute capability the table uses (the node's, or 9.0
 * where it has nvls_busbw and 8.0 otherwise when unknown). */
bool net_tune_pick(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		   net_algo *algo, net_proto *proto);
double net_tune_time_us(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
			net_algo algo, net_proto proto);
double net_tune_cc(const net_node *nd);
/* The channels NCCL's communicator of group g runs algorithm a on, each
 * one thread block on an SM of its own (tune.c): rings and trees (and any
 * algorithm but NVLS) comm->nChannels, from the search's graphs (tune.c's
 * stand-in), doubled at connection, 32 at most; NVLS and NVLSTree the NVLS
 * graph's (16 on SM90, 24 or 32 on SM100). 0 for a group of one rank. */
double net_tune_channels(const net_cluster *c, const net_group *g, net_algo a);
/* The latency aws-ofi-nccl reports to NCCL, which NCCL adds to every network
 * step: 75 us on p5/p5e (and instances it has no entry of its own for here,
 * A src/platform-aws.cpp:133-137), 35 us on p5en and p6-b200 (:150-154);
 * NET_EFA_TUNER_LATENCY is p5's. */
#define NET_EFA_TUNER_LATENCY      75e-6
#define NET_EFA_TUNER_LATENCY_P5EN 35e-6
double net_efa_tuner_latency(const net_cluster *c);
/* The aws-ofi-nccl region tuner (efa.c): on fabric = efa, for a collective
 * of `bytes` on a group of k ranks on every one of more than 2 nodes, the
 * algorithm and protocol of the first region of the node's platform
 * ([node] ec2_instance) for that collective and k that contains (bytes,
 * ranks) and applies to the group and cluster; true when one does. The
 * tables (A src/tuner/nccl_ofi_regions.cpp at 2daf7d30): p5/p5e all-reduce
 * for k = 8, 2 and 1, all-gather and reduce-scatter for k = 1; p5en and
 * p6-b200 all-reduce, all-gather and reduce-scatter for k = 8 and 1. False
 * (NCCL's lowest time decides) for other layouts, collectives and
 * platforms, and with nccl_algo or nccl_proto forced (the plugin then
 * defers to NCCL). */
bool net_efa_region(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto);
/* The ring's local step (coll.c, "The ring's local step"): the time an
 * all-reduce, all-gather or reduce-scatter ring of `bytes` on group g adds
 * for the one step per loop that moves no data over the scale-up links,
 * S / (n ring_local_bw), inside one NVLink node; 0 across nodes, on PCIe
 * nodes, for other collectives, or where the node has no ring_local_bw. Both models add it
 * to the ring's data time (make_shape; sim/topo do_ring). */
double net_ring_local_time(const net_cluster *c, net_coll coll, const net_group *g, double bytes);

/* Whether protocol p runs on cluster c, and is allowed by [cluster]
 * nccl_proto (LL128 only on NVLink nodes, as NCCL enables it). */
bool net_proto_ok(const net_cluster *c, net_proto p);

/* The spread of collectives (spread.c, where the distribution is derived).
 * net_spread_at: the spread at `nodes` nodes on a cluster with a [cluster]
 * spread (podsim calibrate --fabric writes it; interpolated in ln m between
 * listed node counts, the nearest listed beyond them); false without a
 * spread, or for one node (no network part). net_spread_factor: the slowdown of a call
 * whose standard-normal draw is z under the split log-normal of s (median 1,
 * 5th and 95th percentiles s->lo and s->hi); net_spread_quantile: its
 * quantile p. What varies is the whole call across nodes (spread.c; the
 * graph marks it, plan/build.c build_comm_net_s). */
bool net_spread_at(const net_cluster *c, int nodes, net_spread *out);
double net_spread_factor(const net_spread *s, double z);
/* The split log-normal's sigmas: net_spread_factor(s, z) = exp(s_lo z) for
 * z < 0, exp(s_hi z) for z >= 0 (for callers drawing many factors). */
void net_spread_sigmas(const net_spread *s, double *s_lo, double *s_hi);
double net_spread_quantile(const net_spread *s, double p);

/* Link classes for saturation reports: every link of a class carries the same
 * load in a symmetric plan, so podsim reports per class with one example name. */
typedef enum { NET_LINK_SCALEUP = 0, NET_LINK_NIC, NET_LINK_FABRIC, NET_LINK_PCIE, NET_LINK_KIND_COUNT } net_link_kind;

typedef struct net_link_class {
	net_link_kind kind;
	char name[64];    /* e.g. "node0/gpu0 -> nvswitch" */
	char kind_name[16];
	int count;        /* links of this class in the cluster */
	double Bps;       /* capacity per direction */
} net_link_class;

/* The switches of the scale-out fabric (sim/topo/fabric.c builds them):
 * net_switch_radix is the ports of one switch by the NIC rate (64 at 400 Gb/s
 * and up, 40 at 200, 36 below; 64 on EFA), net_leaf_down the ports of a leaf
 * that face NICs, floor(R o / (1 + o)) at oversubscription o (R/2 when
 * non-blocking): a rail-optimized or rail-only unit is that many nodes. */
int net_switch_radix(const net_cluster *c);
int net_leaf_down(const net_cluster *c);
/* The nodes one leaf unit holds, whole (topo/fabric.c leaf_of numbers the
 * leaves by them): a fat tree's leaf (EFA's alike) floor(p / N) nodes of N
 * NICs, p = net_leaf_down; a rail-optimized or rail-only unit p nodes (a
 * leaf per rail). 0 where a node's NICs span several fat-tree leaves
 * (N > p) or the fabric has no leaves (single switch, torus). */
int net_leaf_nodes(const net_cluster *c);

/* Whether the cluster's leaves have fabric links above them (the fabric link
 * class): more than one node, NICs, and not a single switch or a rail-only
 * unit of one switch per rail. */
bool net_fabric_uplinks(const net_cluster *c);

/* The link classes of the cluster (up to NET_LINK_KIND_COUNT). Returns count. */
int net_link_classes(const net_cluster *c, net_link_class out[NET_LINK_KIND_COUNT]);

#endif
