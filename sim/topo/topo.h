/* topo.h - the network as a directed link graph, routed flows that share links
 * max-min fairly, and NCCL-like collectives timed on the graph (issue #4).
 *
 * Layer: after net, before work (uses core, conf, net). net's alpha-beta
 * collectives stay as the closed-form pre-screen; this module is the
 * flow-level model that can tell a rail-optimized fabric from a blocking one.
 *
 * Graph (graph.c). Built from a net_cluster: every node gets GPUs, its
 * scale-up fabric (one NVSwitch crossbar vertex, an NVLink mesh, or PCIe),
 * PCIe switches (two GPUs per switch), one CPU root-complex vertex, NICs and
 * an NVMe vertex; the fabric generator adds leaf/spine switches. Links come in
 * pairs (link 2i and 2i+1 are the two directions of one cable), each with a
 * capacity per direction in bytes/s, a latency in s, a kind and an efficiency
 * (the fraction of capacity NCCL reaches: the node's intra_efficiency on
 * scale-up links and on PCIe links of PCIe nodes, nic_efficiency on NIC and
 * fabric links, 1 elsewhere). Derivations live in graph.c.
 *
 * Routing (route.c): shortest paths by hop count; GPUs, NICs and NVMe drives
 * never forward traffic (only switches and the CPU root complex do); among
 * equal-cost next hops a hash of (src, dst, current vertex) picks one
 * (deterministic ECMP). GPU-to-GPU traffic between nodes leaves through a
 * given NIC of each node (topo_route_gpus), as NCCL binds a channel to a NIC;
 * a GPU sends into a NIC of another PCIe switch through the NIC's GPU over
 * NVLink where the node has NVLink (NCCL's PXN; route.c), not the CPU.
 *
 * Flows (flow.c): max-min fair rates by progressive filling and an event loop
 * that advances flows from start to finish, re-solving at each event only
 * the component of flows that share links with the changed ones (derivation
 * in flow.c).
 *
 * Collectives (coll.c): ring, double binary tree, hierarchical, NVLS
 * (in-switch reduction: flows between the GPUs and their NVSwitch under the
 * node's NVLS ceiling), pairwise all-to-all and p2p as phases of
 * simultaneous flows, plus NCCL's protocol latencies from net
 * (net_proto_latency). The algorithm and protocol are NCCL's choice by
 * its model, net_nccl_choice (the pair of NCCL's own table, net tune.c; on EFA the
 * aws-ofi-nccl region tuner's), simulated whatever the links do to it, as
 * NCCL runs it. Units: seconds, bytes, bytes/s.
 */
#ifndef PODSIM_TOPO_H
#define PODSIM_TOPO_H

#include "../net/net.h"

typedef enum {
	TOPO_V_GPU = 0,
	TOPO_V_NVSWITCH,
	TOPO_V_PCIE_SWITCH,
	TOPO_V_CPU,
	TOPO_V_NIC,
	TOPO_V_NVME,
	TOPO_V_LEAF,
	TOPO_V_SPINE,
	TOPO_V_CORE,
	TOPO_V_SUPER, /* the fourth tier, over the cores of zones of pods (fabric.c) */
	TOPO_V_KIND_COUNT
} topo_vkind;

typedef enum {
	TOPO_L_NVLINK = 0, /* GPU-GPU point to point (mesh) */
	TOPO_L_NVSWITCH,   /* GPU - NVSwitch */
	TOPO_L_PCIE,
	TOPO_L_IB,
	TOPO_L_ROCE,
	TOPO_L_ETHERNET,
	TOPO_L_C2C,
	TOPO_L_EFA, /* AWS EFA rails and their fabric */
	TOPO_L_KIND_COUNT
} topo_lkind;

const char *topo_vkind_name(topo_vkind k);
const char *topo_lkind_name(topo_lkind k);

typedef struct topo_vertex {
	topo_vkind kind;
	int node;  /* node index, -1 for fabric switches */
	int index; /* index among the vertices of this kind in the node (or fabric) */
} topo_vertex;

typedef struct topo_link {
	int src, dst; /* vertex ids */
	topo_lkind kind;
	int lanes;    /* NVLink bricks on a mesh link (ring search budget), else 1 */
	double Bps;   /* capacity per direction */
	double eff;   /* achievable fraction of Bps */
	double lat_s; /* propagation + switching latency of the hop */
} topo_link;

typedef struct topo_graph topo_graph;

/* Build the graph of cluster c. SIM_OK, SIM_ENOMEM, or SIM_EINVAL when the
 * cluster cannot be drawn (no GPUs, several nodes without NICs). */
int topo_build(const net_cluster *c, topo_graph **out);
void topo_free(topo_graph *g);
/* The most nodes c's fabric holds in four switch tiers (leaf, spine, core,
 * supercore; fabric.c): topo_build refuses more with SIM_ERANGE. INT32_MAX for fabrics
 * without a switch hierarchy (single switch, torus). */
int topo_fabric_max_nodes(const net_cluster *c);
/* The most GPUs a link graph is built for: the graph holds every GPU with
 * its links and switches, about 650 bytes per GPU (1,048,576 GPUs of DGX
 * A100 nodes: 660 MB), and a flow-model run about twice that with its
 * routes and flows (1.2 M GPUs on a 2D torus: 1.8 GB, 18 s). Callers refuse
 * larger clusters before building anything (podsim topo and coll, and plan's
 * check of network = flow). */
#define TOPO_MAX_GPUS (1 << 20)

/* Graphs shared by the runs of one process (share.c): a sweep owns one set
 * and its plans' builds (plan_build under network = flow) take the graph of
 * their cluster from it, built once per distinct cluster (net_cluster_same)
 * instead of once per plan. A graph from the set is read-only to its user
 * (routing's caches aside, which change no route: route.c) and stays valid
 * until the set is freed or a later get builds another graph, which may
 * drop it: the set keeps at most TOPO_GRAPHS_KEEP graphs and, beyond the
 * newest, at most TOPO_GRAPHS_GPUS GPUs of them (least recently used
 * dropped first). Holds no global state; one thread at a time. */
typedef struct topo_graphs topo_graphs;
#define TOPO_GRAPHS_KEEP 4
#define TOPO_GRAPHS_GPUS (1 << 18)

int topo_graphs_new(topo_graphs **out);
void topo_graphs_free(topo_graphs *set);
/* The graph of cluster c: shared when the set holds one for the same
 * cluster, else built (topo_build's codes) and kept. */
int topo_graphs_get(topo_graphs *set, const net_cluster *c, const topo_graph **out);
/* Graphs built, and gets answered with a graph built before. */
void topo_graphs_stats(const topo_graphs *set, int *built, int *shared);

const net_cluster *topo_cluster(const topo_graph *g);
int topo_nvertices(const topo_graph *g);
int topo_nlinks(const topo_graph *g);
const topo_vertex *topo_vertex_at(const topo_graph *g, int v);
const topo_link *topo_link_at(const topo_graph *g, int l);
/* "n0/gpu3", "n1/nic0", "leaf2", "spine0". */
void topo_vertex_name(const topo_graph *g, int v, char *buf, size_t len);
/* Vertex of global GPU rank r (ranks fill nodes in order), or -1. */
int topo_gpu(const topo_graph *g, int rank);
/* Vertex of NIC j of node n, or -1. */
int topo_nic(const topo_graph *g, int node, int j);
/* The NIC a GPU uses by default: local GPU g of G on a node with N NICs
 * uses NIC floor(g * N / G) (one rail per GPU when N = G). */
int topo_gpu_nic(const topo_graph *g, int local_gpu);
/* Link capacity as the flow model uses it: Bps * eff. */
double topo_link_cap(const topo_graph *g, int l);

/* ------------------------------------------------------------- routing -- */

#define TOPO_MAX_HOPS 32

/* Shortest route from vertex src to vertex dst: link ids into path[0..max).
 * Returns the hop count (0 when src == dst), or SIM_ENOTFOUND when dst cannot
 * be reached, SIM_ERANGE when the route is longer than max. */
int topo_route(const topo_graph *g, int src, int dst, int *path, int max);
/* Route GPU rank a to GPU rank b. Inside a node: topo_route. Between nodes:
 * a -> NIC nic_a of a's node -> fabric -> NIC nic_b of b's node -> b, where a
 * negative NIC index means the GPU's own (topo_gpu_nic); on an NVLink node
 * a -> NIC nic_a is a -> NVLink -> the NIC's GPU -> PCIe -> NIC when the NIC
 * is not on a's PCIe switch (PXN, route.c). Same returns. */
int topo_route_gpus(const topo_graph *g, int a, int b, int nic_a, int nic_b, int *path, int max);
/* Of the collectives' phases simulated on g (by every run on it): those
 * whose routes were reused from an earlier phase with the same flows
 * (another byte count, another collective moving the same ring, another
 * plan of a sweep: memo.c), and those routed. */
void topo_route_stats(const topo_graph *g, long long *reused, long long *routed);

/* ------------------------------------------------------------- summary -- */

typedef struct topo_summary {
	int vertices[TOPO_V_KIND_COUNT];
	int links[TOPO_L_KIND_COUNT]; /* directed links per kind */
	int nvertices, nlinks;
	int diameter_hops;         /* longest shortest GPU-to-GPU route */
	double bisection_Bps;      /* max flow from the first half of the GPUs to the
	                            * second half (raw capacities); < 0 = not computed */
	double inject_scaleup_Bps; /* per GPU, out of the GPU into the scale-up fabric */
	double inject_net_Bps;     /* per GPU: nics * nic_bw / gpus */
} topo_summary;

/* Largest graph whose bisection (a max flow) and all-pairs diameter are
 * computed; above it the diameter comes from node 0's GPUs only and the
 * bisection is not computed. */
#define TOPO_SUMMARY_MAX_VERTICES 20000

int topo_summarize(const topo_graph *g, topo_summary *out);

/* Graphviz DOT of the graph (one undirected edge per link pair). Refuses
 * graphs over TOPO_DOT_MAX_VERTICES with SIM_ERANGE. */
#define TOPO_DOT_MAX_VERTICES 512
int topo_write_dot(const topo_graph *g, FILE *out);

/* --------------------------------------------------------------- flows -- */

/* Max-min fair rates by progressive filling. nlinks links of capacity
 * cap_Bps[l] > 0; flow f crosses links path[off[f] .. off[f+1]). Writes
 * rate_Bps[f]; a flow that crosses no link gets INFINITY. SIM_OK or
 * SIM_EINVAL (bad link id, non-positive capacity) or SIM_ENOMEM. */
int topo_maxmin(int nlinks, const double *cap_Bps, int nflows, const int *off, const int *path,
                double *rate_Bps);

/* Flows with start times advanced event by event: at every flow start and
 * finish the rates of the affected component (the active flows linked to
 * the changed ones through shared links) are re-solved, the others kept. */
typedef struct topo_sim topo_sim;

int topo_sim_new(int nlinks, const double *cap_Bps, topo_sim **out);
/* A simulation over the links of g with capacities topo_link_cap. */
int topo_sim_for_graph(const topo_graph *g, topo_sim **out);
void topo_sim_free(topo_sim *s);
/* Forget every flow and the link counters; capacities stay. */
void topo_sim_clear(topo_sim *s);
/* Add repeat x each link's bytes and saturated time to total[] and sat[]
 * (per graph link), then forget the flows and counters as topo_sim_clear
 * does: O(the flows' hops), not O(links). */
void topo_sim_harvest(topo_sim *s, double repeat, double *total, double *sat);
/* Add a flow of `bytes` over links[0..n) starting at `start`. Returns its id
 * (>= 0) or a negative error. */
int topo_sim_add(topo_sim *s, const int *links, int n, double bytes, sim_time start);
/* Run every flow to its end. SIM_OK, or SIM_EINVAL if a flow can never end. */
int topo_sim_run(topo_sim *s);
sim_time topo_sim_finish(const topo_sim *s, int id);
sim_time topo_sim_makespan(const topo_sim *s); /* latest finish; 0 with no flows */
int topo_sim_nflows(const topo_sim *s);
/* Flows re-solved so far, summed over events and runs (the incremental
 * update's work: a full re-solve would count every active flow). */
long long topo_sim_resolved(const topo_sim *s);
double topo_sim_link_bytes(const topo_sim *s, int link); /* bytes carried so far */
/* Time so far during which the link's load was >= TOPO_SAT_LOAD of its
 * capacity (the report's "saturated" time). */
#define TOPO_SAT_LOAD 0.95
double topo_sim_link_sat_s(const topo_sim *s, int link);

/* --------------------------------------------------------- collectives -- */

typedef enum {
	TOPO_ALGO_AUTO = 0,
	TOPO_ALGO_RING,
	TOPO_ALGO_TREE,     /* double binary tree (all-reduce) */
	TOPO_ALGO_HIER,     /* intra-node reduce-scatter, inter-node ring, intra all-gather */
	TOPO_ALGO_PAIRWISE, /* all-to-all: every pair at once */
	TOPO_ALGO_DIRECT,   /* p2p: one flow */
	TOPO_ALGO_NVLS,     /* all-reduce inside one NVSwitch node, reduced in the switch */
	TOPO_ALGO_NVLSTREE, /* all-reduce: NVLS in every node, trees between the nodes */
	TOPO_ALGO_PAT,      /* all-gather, reduce-scatter, one rank per node: NCCL's PAT */
	TOPO_ALGO_COLLNET_DIRECT, /* all-reduce across nodes, SHARP ([cluster] sharp) */
	TOPO_ALGO_COLLNET_CHAIN,  /* the same, a chain inside each node */
	TOPO_ALGO_COUNT
} topo_algo;

const char *topo_algo_name(topo_algo a);
/* net's [cluster] nccl_algo as the flow model's algorithm: ring, tree, hier,
 * nvls, nvlstree, pat, collnetdirect and collnetchain map to theirs, auto to
 * AUTO; and back: the same to theirs, every other flow algorithm to ring (as
 * net reports all-to-all and p2p). nvls is NVLS inside one node, or across
 * nodes over SHARP with [cluster] sharp (net_sharp_ok). */
topo_algo topo_algo_from_net(net_algo a);
net_algo topo_algo_to_net(topo_algo a);
/* Parse "ring", "tree", "hier", "auto", "pairwise", "direct", "nvls",
 * "nvlstree", "pat". SIM_OK or SIM_ECONF. */
int topo_algo_parse(const char *s, topo_algo *out);

typedef struct topo_cost {
	double time_s;    /* latency + bw_time / protocol factor + coll_overhead + sync_s */
	double latency_s; /* NCCL's tuning-model latency of the chosen protocol */
	double bw_time_s; /* flow-model data movement time at protocol factor 1 */
	double algbw_Bps; /* bytes / time_s */
	double busbw_Bps; /* algbw * nccl-tests' bus factor */
	topo_algo algo;   /* the algorithm used (never AUTO) */
	net_proto proto;
	int channels; /* rings/trees run side by side */
	int flows;    /* flows simulated */
	int hot_link; /* the link that carried the most bytes, or -1 */
	double hot_link_bytes;
	double sync_s; /* the EFA model's per-call synchronisation delay (net_sync_delay) */
} topo_cost;

/* Time collective `coll` of `bytes` (the full buffer as nccl-tests counts it;
 * the message for p2p) on the GPU ranks ranks[0..n) of g, with algorithm
 * `algo` (AUTO = NCCL's choice, net_nccl_choice, with its protocol; a
 * forced algorithm runs with the protocol NCCL's model gives it). SIM_OK;
 * SIM_EINVAL for a bad rank list or an algorithm that does not apply to the
 * collective; SIM_ERANGE when it would need too many flows. */
int topo_collective(const topo_graph *g, net_coll coll, const int *ranks, int n, double bytes,
                    topo_algo algo, topo_cost *out);

/* The same collective run at once by `ngroups` groups of n ranks,
 * groups[t * n .. (t + 1) * n) (translates of the first: same shape, rank i
 * of every group plays the role of rank i of the first), all sharing the
 * graph, so their flows contend. The cost is the first group's algorithm
 * choice and the slowest flow's finish; when given, link_bytes and link_sat
 * (g's nlinks entries) receive the bytes each link carried and its time at
 * >= TOPO_SAT_LOAD of capacity, all groups together. Returns as
 * topo_collective. */
int topo_collective_groups(const topo_graph *g, net_coll coll, const int *groups, int n,
                           int ngroups, double bytes, topo_algo algo, topo_cost *out,
                           double *link_bytes, double *link_sat);

/* nccl-tests' bus bandwidth factor of a collective on n ranks. */
double topo_bus_factor(net_coll coll, int n);

/* ------------------------------------------------- a plan's collectives -- */

/* The link class (net_link_kind) a link of g is reported under: scale-up
 * (NVLink, NVSwitch, C2C, a PCIe node's GPU links), nic (a NIC at one end),
 * fabric (switch to switch), pcie (the rest of the PCIe tree). */
net_link_kind topo_link_class(const topo_graph *g, int l);

/* Per-run cache of group costs over a graph whose first `world` GPU ranks
 * run the plan (group.c). Holds no global state; free with topo_cache_free. */
typedef struct topo_cache topo_cache;

int topo_cache_new(const topo_graph *g, int world, topo_cache **out);
void topo_cache_free(topo_cache *k);
const topo_graph *topo_cache_graph(const topo_cache *k);
/* Lookups answered from the cache, and collectives simulated. */
void topo_cache_stats(const topo_cache *k, int *hits, int *misses);
/* Of the flow phases the cache's collectives ran (outcome.c): those whose
 * simulation was reused, scaled (the same flows in the same proportions,
 * other bytes), and those simulated in their canonical form; phases of few
 * flows, simulated as they come, are in neither. */
void topo_cache_phase_stats(const topo_cache *k, long long *reused, long long *simulated);


/* Translates simulated at most this many flows per phase together (above,
 * only the first translates: `simulated` < `translates`). */
#define TOPO_GROUP_MAX_FLOWS 512

typedef struct topo_group_result {
	topo_cost cost;     /* time of the collective with every translate running */
	int translates;     /* concurrent copies of the group in the plan */
	int simulated;      /* of which simulated together */
	/* per net_link_kind, all simulated translates together: */
	double bytes[NET_LINK_KIND_COUNT];       /* on the busiest link of the class */
	double sat_s[NET_LINK_KIND_COUNT];       /* most time a link of the class spent
	                                          * at >= TOPO_SAT_LOAD of capacity */
	double total_bytes[NET_LINK_KIND_COUNT]; /* on all links of the class */
	int link[NET_LINK_KIND_COUNT];           /* the busiest link, or -1 */
} topo_group_result;

/* Cost of collective `coll` of `bytes` (as topo_collective) on the group of
 * `size` ranks `stride` apart, run at once by all its translates in the
 * first `world` ranks (see group.c), answered from the cache when the same
 * (coll, size, stride, bytes, algo) was asked before. SIM_OK, SIM_EINVAL
 * (group outside the world), SIM_ERANGE, SIM_ENOMEM. */
int topo_group_cost(topo_cache *k, net_coll coll, int size, int stride, double bytes,
                    topo_algo algo, topo_group_result *out);

#endif
