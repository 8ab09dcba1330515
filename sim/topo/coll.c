/* coll.c - NCCL-like collectives on the link graph (topo.h).
 *
 * A collective is a few phases; a phase is a set of simultaneous flows run to
 * completion in topo_sim (max-min sharing), and its time is the latest
 * finish. Notation: n ranks, m nodes with k ranks each, S bytes (the full
 * buffer, as nccl-tests counts it), C channels.
 *
 * Ring (all-reduce, all-gather, reduce-scatter, broadcast). NCCL orders ranks
 * so that each node is contiguous and runs C rings side by side, each moving
 * S/C. With m > 1 there is one channel per local rank (C = k): in channel c
 * every node's segment enters at its c-th rank, visits the others in order and
 * leaves from the rank next to it (c xor 1), and the inter-node hop uses the
 * entry rank's NIC on both sides, so a rail-optimized fabric keeps every ring
 * on one rail (NCCL's ring search tries the same NIC in and out first:
 * crossNic, NVIDIA/nccl 5067397c src/graph/search.cc:593-619, 1232-1239). In
 * a contiguous group the exit rank c xor 1 shares the entry rank's PCIe
 * switch; in a strided one it need not (a data-parallel group under tp = 4
 * holds local GPUs j and j + 4 of each node): its send into the entry rank's
 * NIC goes over NVLink to the entry rank and down that GPU's PCIe link
 * (NCCL's PXN, route.c; the entry rank is the relay: route_flow), as NCCL's
 * ring channel sends through the NIC's local GPU when its own path to the
 * NIC would cross the CPU (search.cc:1400-1417). On one NVLink-mesh
 * node the rings are found by search (rings.c): all Hamiltonian cycles over direct
 * NVLink arcs are listed, then a depth-first search packs as many as fit, one
 * brick per arc each, up to the fewest bricks of a GPU (NCCL's ring
 * search also gives each ring its own NVLink bricks; on DGX-1 every GPU has 6
 * bricks, so at most 6 rings); when no cycle exists over direct arcs, the
 * arcs through an intermediate GPU (NCCL's NVB paths, route.c) join the
 * search. Otherwise
 * one ring in rank order. One ring step moves S/(nC) per rank per channel; all
 * steps have the same pattern, so one step is simulated and
 *     all-reduce:  t_bw = 2(n-1) * t_step,   all-gather / reduce-scatter:
 *     t_bw = (n-1) * t_step,   broadcast: the n-1 hops of the open ring each
 *     carry S/C at once (pipelined), t_bw = the phase time.
 * On an uncongested NVSwitch node every rank's switch port carries one flow
 * per direction, t_step = S/(n B) with B = intra_bw * intra_efficiency, and
 * t_bw = 2(n-1)/n * S/B: net's alpha-beta formula.
 *
 * Double binary tree (all-reduce). Two binary trees over the nodes (heap
 * order: node at position p has parent (p-1)/2; the second tree mirrors the
 * positions, p -> m-1-p, so that a leaf of one is inner in the other); inside
 * a node a chain through its k ranks. Each tree reduces S/2 up and broadcasts
 * it down; pipelined over many chunks, reduce and broadcast run concurrently,
 * so every tree edge carries S/(2C) in each direction at once, in C channels
 * (head rank and NIC as for the ring). One phase. Timed as net's closed form
 * (net coll.c "tree", where NCCL's code is cited): on two nodes the flows
 * alone (a node sends S and receives S through its NICs, a GPU's port
 * carries its chain's 2(k-1)/k S each way); on more, at least the ring's
 * links x n/(n-1) (an inner node sends 2 S); then per protocol the links x
 * 0.92 and net_tree_proto_bw, and at least NCCL's per-channel ceiling
 * (net_tree_cap_time).
 *
 * Hierarchical (all-reduce, m > 1, k > 1): intra-node ring reduce-scatter
 * (k-1 steps of S/k), k inter-node ring all-reduces of S/k at once, one per
 * local rank over its own NIC (2(m-1) steps of S/(km)), intra-node ring
 * all-gather (as the first phase).
 *
 * NVLS (all-reduce inside one NVSwitch node whose node has nvls_busbw:
 * NCCL's in-switch reduction, H100 and later). Reduce-scatter by multimem
 * loads: for shard i (S/n bytes) every GPU's part goes up into the switch,
 * which adds the parts and sends the sum down to GPU i; all-gather by
 * multimem stores: GPU i sends its reduced shard up once and the switch
 * copies it down to all n GPUs. Per GPU port: up n * S/n + S/n = (n+1)/n S,
 * down S/n + n * S/n = (n+1)/n S, pipelined: one phase with one flow each
 * way between every GPU and its node's NVSwitch vertex. The switch's
 * reduction rate is not a link: NCCL's measured ceiling, the node's
 * nvls_busbw (nccl-tests busbw = algbw * 2(n-1)/n), bounds the data time,
 *     t_bw = max(flows' makespan, 2(n-1)/n * S / nvls_busbw).
 * On a DGX H100 (450 GB/s x 0.822 per port, nvls_busbw 480 GB/s) the
 * ceiling binds: 8 GPUs, 1 GiB: ports 9/8 S / 370 GB/s = 3.26 ms < 14/8 S
 * / 480 GB/s = 3.91 ms, as net_nvls_allreduce; the ports bind where
 * intra_efficiency is low or other groups' traffic shares them. Latency:
 * net's NVLS latency, Simple protocol only.
 *
 * NVLSTree (all-reduce, m > 1 NVLS nodes, k > 1): NVLS inside every node
 * (its flows as above) and, at once, for every local rank j the double
 * binary tree over the nodes between the nodes' ranks j, each edge carrying
 * S/(2k) each way (the rank's shard of the NVLS reduction). NCCL's tuning
 * model bounds its data time (net.h): t_bw >= 2(n-1)/n S / min(nvls_busbw,
 * (m <= 2 ? 2(n-1)/n : 1) B_nic), as the tree's bound. On two nodes the
 * flows meet it (each rank's shard crosses once each way: S / B_nic); on
 * more, a node inner in one tree and a leaf in the other sends 4 S/(2k)
 * per rank, 2 S / B_nic, n/(n-1) above NCCL's figure.
 *
 * Rails (nics > G): a GPU's network device is its nics/G NICs (on EFA its
 * rails, net.h); a flow between nodes is split into one flow per rail, rail
 * j of the sender's GPU to rail j of the receiver's, each with 1/rails of
 * the bytes (aws-ofi-nccl stripes large messages and rotates small ones
 * over the rails; on InfiniBand or RoCE NCCL spreads a GPU's channels over
 * the NICs beside it, ncclTopoGetLocalNet by channel: in a fluid model each
 * NIC carries an equal share, as net's B_nic counts k/G of the node's NICs). Congestion (fabric = efa): the NIC and fabric links of a
 * collective across m nodes run at 1/kappa(m) of their capacity
 * (net_congestion), as net's B_nic.
 *
 * PAT (all-gather, reduce-scatter; one rank on each of n nodes: NCCL's
 * Parallel Aggregated Trees, net_pat_ok; its schedule is derived in
 * sim/net/coll.c "PAT" from N src/include/collectives.h:442-922 and
 * src/transport/generic.cc:69-81). Rank i has a connection per dimension
 * d (2^d < n) to rank i + 2^d (all-gather sends that way; reduce-scatter
 * sends to i - 2^d, generic.cc:76, 80), and dimension d carries
 *     c_d = #{1 <= s < n : lowbit(s) = d} = floor((n - 1 + 2^d) / 2^(d+1))
 * pieces of S/n per rank (n = 16: 8, 4, 2, 1; n = 3: 1, 1), sum n - 1. The
 * kernel streams chunks through every dimension's slots at once, so one
 * phase runs the log2 n flows of every rank together (the per-step
 * order inside a chunk is not simulated: the flows carry each dimension's
 * whole bytes, the links' load and the rank's total, (n-1)/n S, exactly).
 * On a non-blocking fabric each rank's NIC carries its flows back to back
 * at B_nic (max-min shares among flows of one sender and of one receiver,
 * the same by symmetry, keep the NIC busy until the last ends): makespan
 * (n-1)/n S / B_nic. NCCL's model charges PAT the whole buffer at 0.75 of
 * the bus bandwidth (net.h NET_PAT_BW), so t_bw = makespan x n/(n-1) and
 * time = net_pat_latency + t_bw / 0.75: net's S / (0.75 B_nic) where the
 * links are uncongested (test_flow checks both models agree), slower
 * where other traffic or a collision on the fabric slows a flow.
 *
 * SHARP ([cluster] sharp; net_sharp_ok, sim/net/coll.c "SHARP" derives
 * NCCL's kernels and tuning model). One phase, k ranks on each of m nodes:
 *   inside each node, CollNetDirect: every rank sends 2 S/k to each other
 *     rank for all-reduce (the scatter to the heads and the copy of the
 *     sums back), S/k for all-gather and reduce-scatter; CollNetChain: S
 *     (k-1)/k to the next rank and as much to the previous (the chains up
 *     and down, the channels' heads rotating); NVLS: NVLS's (k+1)/k S each
 *     way between each GPU and its NVSwitch under nvls_busbw's ceiling;
 *   each rank's shard between the GPU and the leaf above its own NIC: S/k
 *     each way (all-gather: S/n up, S/k down; reduce-scatter the reverse);
 *   the trees: one per local rank j, over the nodes' ranks j, rooted at
 *     the last node's: for each node the route from its NIC to the root's
 *     NIC up to that route's highest switch, and the same cables back down
 *     (route_tree); a link is loaded once per tree and direction whatever
 *     the nodes under it (the switches reduce), S/k.
 * t_bw = the makespan / NCCL's derate (net_sharp_eff: CollNetDirect 0.85
 * for all-reduce on NVLS nodes, 0.9 for all-gather and reduce-scatter);
 * latency net_sharp_latency, Simple only. On uncongested links each NIC
 * carries S/k each way at its rate and each NVLink port its bytes, so the
 * time is net's closed form (test_flow sharp_agrees); oversubscription
 * does not slow the trees, whose streams climb one per uplink, unless
 * routes put several trees on one cable (a tapered three-tier fabric).
 *
 * Pairwise all-to-all: every ordered pair sends S/n at once. P2P: one flow of
 * S from the first rank to the last.
 *
 * Latency and protocol: NCCL's tuning model from net (net_proto_latency):
 *     ring: nsteps = 2(n-1) (all-reduce) or n-1, ninter = (passes)(m-1),
 *           one rank per node with the tree's network step (net_ring_latency);
 *     tree: nsteps = 2((k-1) + ceil(log2 m)), ninter = 2 ceil(log2 m)
 *           (NCCL's tree latency shape; the ring's per-step constants are
 *           reused, assumed);
 *     hier: nsteps = 2(k-1) + 2(m-1), ninter = 2(m-1);
 *     nvls, nvlstree: net's (net_nvls_latency, net_nvlstree_latency);
 *     collnetdirect, collnetchain, nvls across nodes: net_sharp_latency;
 *     pat: net_pat_latency (Simple only, t_bw at NET_PAT_BW);
 *     all-to-all, p2p: one step inside a node and one across (as net).
 * time = lat[p] + t_bw / protocol factor[p] + coll_overhead for the
 * protocol p NCCL picks (below; LL128 only on NVLink nodes). All of these
 * latencies carry the EFA model's terms on fabric = efa (net.h), and the
 * algorithm's time the EFA model's per-call synchronisation delay
 * (net_sync_delay), as net_collective's: the two models take every EFA term
 * from net.
 *
 * Which algorithm (pick_algo). NCCL does not measure: it fills a table of
 * predicted times from its own model, lets a tuner plugin rewrite it, takes
 * the lowest entry and runs that pair whatever the fabric does to it (N
 * src/enqueue.cc:2123-2151, 2028-2046; src/graph/tuning.cc:630-657; net's
 * coll.c "Which algorithm NCCL runs" derives it). So the flow model
 * simulates one pair, net's (net_nccl_choice: NCCL's own table, rebuilt
 * from its constants and the nodes' nominal links in net's tune.c; on EFA
 * across nodes NCCL's view of the cluster with aws-ofi-nccl's region
 * tuner first, net_efa_choice;
 * nccl_algo / nccl_proto forcing as NCCL_ALGO / NCCL_PROTO), not the
 * fastest of several simulated candidates: contention between translates,
 * ECMP collisions and oversubscription slow NCCL's pick without changing
 * it, and the two models report the same algorithm and protocol (tools/
 * coll-agree checks the shipped topologies; before, keeping its lowest
 * simulated time, the flow model differed in 207 of 13,317 cases: the ring
 * where NCCL's model picks the tree (1,024 GPUs of Selene, 1-4 GiB; H800
 * nodes one GPU each, where the tree's edges collide on d-mod-k uplinks:
 * test_flow nccl_pick_contended, 32 nodes at 32 MiB), the ring or the tree
 * where it picks NVLSTree (two GPUs per DGX H100 node), the ring where it
 * picks PAT, and 230 more protocol choices).
 * A forced algorithm (--algo, nccl_algo) runs with the protocol NCCL's
 * model gives it; where net's model has no time for the forced algorithm
 * (none of the shipped cases) the protocol with the lowest flow time.
 * Simulating one algorithm is also cheaper: PAT's n log2 n flows (229k at
 * 16,384 nodes) only where it is picked, the tree's ring bound and the tree
 * where the tree is, the ring alone elsewhere.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FLOWS (1 << 20)
/* A flow end that is the NVSwitch of the other end's node (NVLS). */
#define SWITCH (-2)
/* SHARP's flow ends (header comment "SHARP"): the leaf switch above the
 * other end's NIC; and a tree flow between the leaf above rank b's NIC and
 * the top of its tree, up (a = TREE_UP) or down (a = TREE_DOWN), the tree
 * named by its root rank (on its last node) in nic_a (route_tree). */
#define LEAF      (-3)
#define TREE_UP   (-4)
#define TREE_DOWN (-5)

static const char *const algo_names[TOPO_ALGO_COUNT] = {
	"auto", "ring", "tree", "hier", "pairwise", "direct", "nvls", "nvlstree", "pat",
	"collnetdirect", "collnetchain"};

const char *topo_algo_name(topo_algo a)
{
	return (unsigned)a < TOPO_ALGO_COUNT ? algo_names[a] : "?";
}

int topo_algo_parse(const char *s, topo_algo *out)
{
	for (int a = 0; a < TOPO_ALGO_COUNT; a++)
		if (!strcmp(s, algo_names[a])) {
			*out = (topo_algo)a;
			return SIM_OK;
		}
	return SIM_ECONF;
}

topo_algo topo_algo_from_net(net_algo a)
{
	return a == NET_ALGO_RING       ? TOPO_ALGO_RING
	       : a == NET_ALGO_TREE     ? TOPO_ALGO_TREE
	       : a == NET_ALGO_HIER     ? TOPO_ALGO_HIER
	       : a == NET_ALGO_NVLS     ? TOPO_ALGO_NVLS
	       : a == NET_ALGO_NVLSTREE ? TOPO_ALGO_NVLSTREE
	       : a == NET_ALGO_PAT      ? TOPO_ALGO_PAT
	       : a == NET_ALGO_COLLNET_DIRECT ? TOPO_ALGO_COLLNET_DIRECT
	       : a == NET_ALGO_COLLNET_CHAIN  ? TOPO_ALGO_COLLNET_CHAIN
	                                : TOPO_ALGO_AUTO;
}

net_algo topo_algo_to_net(topo_algo a)
{
	return a == TOPO_ALGO_TREE       ? NET_ALGO_TREE
	       : a == TOPO_ALGO_HIER     ? NET_ALGO_HIER
	       : a == TOPO_ALGO_NVLS     ? NET_ALGO_NVLS
	       : a == TOPO_ALGO_NVLSTREE ? NET_ALGO_NVLSTREE
	       : a == TOPO_ALGO_PAT      ? NET_ALGO_PAT
	       : a == TOPO_ALGO_COLLNET_DIRECT ? NET_ALGO_COLLNET_DIRECT
	       : a == TOPO_ALGO_COLLNET_CHAIN  ? NET_ALGO_COLLNET_CHAIN
	                                 : NET_ALGO_RING;
}

double topo_bus_factor(net_coll coll, int n)
{
	double x = n;
	switch (coll) {
	case NET_ALLREDUCE:
		return n > 1 ? 2 * (x - 1) / x : 0;
	case NET_ALLGATHER:
	case NET_REDUCESCATTER:
	case NET_ALLTOALL:
		return n > 1 ? (x - 1) / x : 0;
	default:
		return 1;
	}
}

/* ------------------------------------------------------------ geometry -- */

typedef struct geo {
	int n, m, k;  /* k: the first node's ranks */
	int kmax;     /* the most ranks on one node (net_group's per_node) */
	bool regular; /* every node holds k ranks */
	int *loc;     /* m * k ranks, node by node, in the given order (regular only) */
} geo;

/* The group's nodes and ranks per node. x's per-node counts (0 between
 * calls) and per-rank positions (-1 between calls) serve as scratch: the
 * counts are put back here, the positions stay for the run (x->pos[ranks[i]]
 * = i; a rank already placed is a repeat) and topo_coll_run puts them back,
 * so a call costs O(n), not O(nodes + GPUs). */
static int geo_make(topo_coll_ctx *x, const int *ranks, int n, geo *o)
{
	const topo_graph *g = x->g;
	int G = g->gpus_per_node, *count = x->count, *first = x->first;
	*o = (geo){n, 0, 0, 0, true, NULL};
	o->loc = malloc((size_t)n * sizeof *o->loc);
	int rc = o->loc ? SIM_OK : SIM_ENOMEM;
	int *order = NULL;
	if (rc == SIM_OK && !(order = malloc((size_t)n * sizeof *order)))
		rc = SIM_ENOMEM;
	for (int i = 0; i < n && rc == SIM_OK; i++) {
		if (topo_gpu(g, ranks[i]) < 0) {
			rc = SIM_EINVAL;
			break;
		}
		if (x->pos[ranks[i]] >= 0)
			rc = SIM_EINVAL; /* a repeated rank */
		else
			x->pos[ranks[i]] = i;
		int node = ranks[i] / G;
		if (count[node]++ == 0)
			order[o->m++] = node;
	}
	if (rc == SIM_OK) {
		o->k = count[order[0]];
		for (int i = 0; i < o->m; i++) {
			o->regular &= count[order[i]] == o->k;
			if (count[order[i]] > o->kmax)
				o->kmax = count[order[i]];
			first[order[i]] = i;
			count[order[i]] = 0;
		}
		for (int i = 0; i < n && o->regular; i++) {
			int node = ranks[i] / G, slot = first[node];
			o->loc[slot * o->k + count[node]++] = ranks[i];
		}
	}
	for (int i = 0; i < o->m; i++)
		count[order[i]] = 0;
	free(order);
	if (rc != SIM_OK) {
		free(o->loc);
		o->loc = NULL;
	}
	return rc;
}

/* --------------------------------------------------------------- flows -- */

typedef struct phase {
	int *a, *b, *nic_a, *nic_b;
	double *bytes;
	int n, cap;
} phase;

static int phase_add(phase *p, int a, int b, int nic_a, int nic_b, double bytes)
{
	if (p->n == MAX_FLOWS)
		return SIM_ERANGE;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		int *na = realloc(p->a, (size_t)cap * sizeof(int));
		if (na)
			p->a = na;
		int *nb = realloc(p->b, (size_t)cap * sizeof(int));
		if (nb)
			p->b = nb;
		int *xa = realloc(p->nic_a, (size_t)cap * sizeof(int));
		if (xa)
			p->nic_a = xa;
		int *xb = realloc(p->nic_b, (size_t)cap * sizeof(int));
		if (xb)
			p->nic_b = xb;
		double *by = realloc(p->bytes, (size_t)cap * sizeof(double));
		if (by)
			p->bytes = by;
		if (!na || !nb || !xa || !xb || !by)
			return SIM_ENOMEM;
		p->cap = cap;
	}
	p->a[p->n] = a;
	p->b[p->n] = b;
	p->nic_a[p->n] = nic_a;
	p->nic_b[p->n] = nic_b;
	p->bytes[p->n++] = bytes;
	return SIM_OK;
}

static void phase_free(phase *p)
{
	free(p->a);
	free(p->b);
	free(p->nic_a);
	free(p->nic_b);
	free(p->bytes);
	memset(p, 0, sizeof *p);
}

/* What a collective run accumulates: link bytes and time at >= 95 % of
 * capacity (weighted by repeats), in the context's sparse accumulator
 * (acc.c). The phases are built for the first group (ranks[0..n)); phase_run
 * replays every flow in each of the `ngroups` concurrent translates
 * groups[t * n ..], rank ranks[i] -> groups[t * n + i] (pos[rank] = i), so
 * translates of a group contend on one simulation. */
typedef struct run {
	const topo_graph *g;
	topo_sim *sim;
	topo_acc *acc;
	int flows;
	int n, ngroups;
	const int *groups;
	const int *pos;    /* per global rank: index in the first group, -1 */
	double ring_t_bw;  /* all-reduce: the ring's t_bw once timed, else 0 */
	int rails;         /* NICs per GPU a flow between nodes is split over (nics > G), else 1 */
	topo_memo *memo;   /* the graph's routes of the phases seen (memo.c) */
	topo_outcomes *oc; /* the context's phases simulated (outcome.c) */
	double div;        /* the NIC and fabric links' capacity divisor (derate_for) */
} run;

static int tr_rank(const run *r, int t, int rank)
{
	return rank < 0 || t == 0 ? rank : r->groups[(size_t)t * r->n + (size_t)r->pos[rank]];
}

/* NIC index for a flow end: -1 (the GPU's own) or the channel head's NIC. */
static int tr_nic(const run *r, int t, int head)
{
	return head < 0 ? -1 : topo_gpu_nic(r->g, tr_rank(r, t, head) % r->g->gpus_per_node);
}

/* The NVSwitch vertex GPU vertex v hangs from, or -1. */
static int nvswitch_of(const topo_graph *g, int v)
{
	for (int e = g->out_off[v]; e < g->out_off[v + 1]; e++)
		if (g->l[g->out[e]].kind == TOPO_L_NVSWITCH)
			return g->l[g->out[e]].dst;
	return -1;
}

/* The NIC vertex of global GPU rank `rank` (its own, topo_gpu_nic), and the
 * fabric switch that NIC hangs from with the links up (*up) and down
 * (*down) between them; -1 when there is none. */
static int rank_leaf(const topo_graph *g, int rank, int *nic, int *up, int *down)
{
	int G = g->gpus_per_node;
	*nic = topo_nic(g, rank / G, topo_gpu_nic(g, rank % G));
	if (*nic < 0)
		return -1;
	for (int e = g->out_off[*nic]; e < g->out_off[*nic + 1]; e++) {
		const topo_link *l = &g->l[g->out[e]];
		if (g->v[l->dst].node >= 0)
			continue; /* inside the node */
		*up = g->out[e];
		for (int f = g->in_off[*nic]; f < g->in_off[*nic + 1]; f++)
			if (g->l[g->in[f]].src == l->dst) {
				*down = g->in[f];
				return l->dst;
			}
	}
	return -1;
}

/* A flow between a GPU and the leaf above its NIC (SHARP, LEAF ends). */
static int route_leaf(const run *r, const phase *p, int t, int i, int *path, int max)
{
	bool down = p->a[i] == LEAF;
	int rank = tr_rank(r, t, down ? p->b[i] : p->a[i]);
	int gpu = topo_gpu(r->g, rank), nic, up_l = -1, down_l = -1;
	if (gpu < 0 || rank_leaf(r->g, rank, &nic, &up_l, &down_l) < 0 || max < 1)
		return SIM_EINVAL;
	if (down) {
		path[0] = down_l;
		int h = topo_route(r->g, nic, gpu, path + 1, max - 1);
		return h < 0 ? h : h + 1;
	}
	int h = topo_route(r->g, gpu, nic, path, max - 1);
	if (h < 0)
		return h;
	path[h] = up_l;
	return h + 1;
}

/* The reduction trees of a SHARP phase being routed: the tree of the flows
 * routed last (translate, root rank, direction) and per link the serial of
 * the last tree that loaded it (route_tree). */
typedef struct tree_state {
	int t, root, dir, serial;
	int *stamp; /* per link; NULL until a tree flow is routed */
} tree_state;

/* A tree flow (TREE_UP / TREE_DOWN ends; header comment "SHARP"): the part
 * above the leaves of the route from rank b's NIC to its tree's root NIC
 * (nic_a's, the tree's rank on the last node), up from b's leaf to the
 * route's highest switch, or the same cables back down (the reduction
 * tree's result retraces it: a destination-routed path down would take
 * one cable per destination NIC, not per leaf), keeping only the links
 * that no flow of the same tree and direction took before (the switches
 * reduce: one stream per link and direction). Returns the hops kept, 0
 * when none. */
static int route_tree(const run *r, const phase *p, int t, int i, tree_state *st, int *path,
                      int max)
{
	const topo_graph *g = r->g;
	int dir = p->a[i], root = tr_rank(r, t, p->nic_a[i]), x = tr_rank(r, t, p->b[i]);
	int nx, nr, up, down;
	if (!st->stamp && !(st->stamp = calloc((size_t)g->nl, sizeof *st->stamp)))
		return SIM_ENOMEM;
	if (st->serial == 0 || st->t != t || st->root != root || st->dir != dir)
		*st = (tree_state){t, root, dir, st->serial + 1, st->stamp};
	if (rank_leaf(g, x, &nx, &up, &down) < 0 || rank_leaf(g, root, &nr, &up, &down) < 0)
		return SIM_EINVAL;
	int h = nx == nr ? 0 : topo_route(g, nx, nr, path, max);
	if (h < 0)
		return h;
	/* the highest switch: the route's links before it climb, after it descend */
	int top = -1, best = -1;
	for (int y = 0; y < h; y++) {
		int v = g->l[path[y]].dst;
		if (g->v[v].node < 0 && (int)g->v[v].kind > best) {
			best = (int)g->v[v].kind;
			top = y;
		}
	}
	int kept = 0, links[TOPO_MAX_HOPS * 3];
	for (int y = 1; y <= top && y < TOPO_MAX_HOPS * 3; y++) {
		int l = path[y];
		if (dir == TREE_DOWN) { /* the cable's other direction (topo_add_pair) */
			l ^= 1;
			if (g->l[l].src != g->l[path[y]].dst || g->l[l].dst != g->l[path[y]].src)
				return SIM_EINVAL;
		}
		if (st->stamp[l] != st->serial) {
			st->stamp[l] = st->serial;
			links[kept++] = l;
		}
	}
	memcpy(path, links, (size_t)kept * sizeof *path);
	return kept;
}

/* Route flow i of phase p in translate t into path (at most max hops), over
 * rail `rail` of the NICs between nodes. */
static int route_flow(const run *r, const phase *p, int t, int i, int rail, int *path, int max)
{
	if (p->a[i] == LEAF || p->b[i] == LEAF)
		return route_leaf(r, p, t, i, path, max);
	if (p->a[i] == SWITCH || p->b[i] == SWITCH) {
		int gpu = topo_gpu(r->g, tr_rank(r, t, p->a[i] == SWITCH ? p->b[i] : p->a[i]));
		int sw = nvswitch_of(r->g, gpu);
		if (sw < 0)
			return SIM_EINVAL;
		return p->a[i] == SWITCH ? topo_route(r->g, sw, gpu, path, max)
		                         : topo_route(r->g, gpu, sw, path, max);
	}
	int a = tr_rank(r, t, p->a[i]), b = tr_rank(r, t, p->b[i]), G = r->g->gpus_per_node;
	int na = tr_nic(r, t, p->nic_a[i]), nb = tr_nic(r, t, p->nic_b[i]);
	if (r->rails > 1 && a / G != b / G) { /* rail `rail` of each end's device */
		na = (na < 0 ? topo_gpu_nic(r->g, a % G) : na) + rail;
		nb = (nb < 0 ? topo_gpu_nic(r->g, b % G) : nb) + rail;
	}
	/* The rank whose NIC the sender uses relays its send where that NIC
	 * is not on the sender's PCIe switch (PXN, route.c). */
	return topo_route_gpus_via(r->g, a, b, na, nb, tr_rank(r, t, p->nic_a[i]), path, max);
}

/* Whether flow i of phase p in translate t crosses nodes (then split over
 * the rails). */
static bool between_nodes(const run *r, const phase *p, int t, int i)
{
	int G = r->g->gpus_per_node, a = tr_rank(r, t, p->a[i]), b = tr_rank(r, t, p->b[i]);
	return a >= 0 && b >= 0 && a / G != b / G;
}

/* Route every flow instance of the phase, in the order phase_run adds
 * them (translate, flow, rail), into the memo's scratch. */
static int route_phase(run *r, const phase *p, topo_routed **out)
{
	int path[TOPO_MAX_HOPS * 3];
	tree_state st = {0};
	int rc = SIM_OK;
	*out = topo_memo_begin(r->memo);
	for (int t = 0; t < r->ngroups && rc == SIM_OK; t++)
		for (int i = 0; i < p->n && rc == SIM_OK; i++) {
			if (p->a[i] == TREE_UP || p->a[i] == TREE_DOWN) {
				int h = route_tree(r, p, t, i, &st, path, TOPO_MAX_HOPS * 3);
				rc = h < 0 ? h : h == 0 ? SIM_OK : topo_memo_add(r->memo, i, 1, path, h);
				continue;
			}
			int split = r->rails > 1 && between_nodes(r, p, t, i) ? r->rails : 1;
			for (int j = 0; j < split && rc == SIM_OK; j++) {
				int h = route_flow(r, p, t, i, j, path, TOPO_MAX_HOPS * 3);
				rc = h < 0 ? h : topo_memo_add(r->memo, i, split, path, h);
			}
		}
	free(st.stamp);
	return rc;
}

/* Simulate the phase once; its time times `repeat` is added to *t_bw. The
 * routes come from the graph's memo when a phase of the same flows was
 * routed on it before, whatever its bytes (memo.c: the same links in the
 * same order, so the same simulation), else they are routed and
 * remembered. */
static int phase_run(run *r, phase *p, double repeat, double *t_bw)
{
	topo_sim_clear(r->sim);
	if ((int64_t)p->n * r->ngroups * r->rails > MAX_FLOWS)
		return SIM_ERANGE;
	const topo_routed *w = topo_memo_find(r->memo, r->n, r->ngroups, r->rails, r->groups, p->n,
	                                      p->a, p->b, p->nic_a, p->nic_b);
	bool routed = !w;
	if (routed) {
		topo_routed *fresh;
		int rc = route_phase(r, p, &fresh);
		if (rc != SIM_OK)
			return rc;
		w = fresh;
	}
	double *bytes = malloc(((size_t)w->n + 1) * sizeof *bytes);
	if (!bytes)
		return SIM_ENOMEM;
	for (int f = 0; f < w->n; f++)
		bytes[f] = p->bytes[w->src[f]] / w->split[f];
	int flows = w->n;
	int rc = topo_phase_sim(r->oc, r->sim, r->div, w, bytes, repeat, t_bw, r->acc);
	free(bytes);
	if (routed) /* the scratch moves into the memo: w is not read after */
		topo_memo_keep(r->memo);
	if (rc != SIM_OK)
		return rc;
	r->flows += flows;
	p->n = 0;
	return SIM_OK;
}

/* ------------------------------------------------------------- channels -- */

/* Segment of node i for channel c: c-th rank first, its neighbour (c xor 1)
 * last, the rest in order. */
static void segment(const geo *o, int i, int c, int *seq)
{
	const int *L = o->loc + (size_t)i * o->k;
	int k = o->k, last = (c ^ 1) < k ? (c ^ 1) : (c + k - 1) % k, n = 0;
	seq[n++] = L[c];
	for (int j = 0; j < k; j++)
		if (j != c && j != last)
			seq[n++] = L[j];
	if (last != c)
		seq[n++] = L[last];
}

/* The C ring orders (n ranks each) into rings; returns C. */
static int ring_orders(const topo_graph *g, const geo *o, const int *ranks, int *rings)
{
	int n = o->n;
	if (o->m == 1) {
		int c = topo_mesh_rings(g, ranks, n, rings);
		if (c > 0)
			return c;
	}
	if (o->m == 1 || !o->regular) {
		memcpy(rings, ranks, (size_t)n * sizeof *rings);
		return 1;
	}
	for (int c = 0; c < o->k; c++)
		for (int i = 0; i < o->m; i++)
			segment(o, i, c, rings + (size_t)c * n + (size_t)i * o->k);
	return o->k;
}

/* The NIC pair for a hop a -> b of channel ring `ring` (a is at position i),
 * as the ranks whose NICs carry it (the segment heads), or -1: own NIC. */
static void hop_nics(const topo_graph *g, const geo *o, const int *ring, int i, int *na, int *nb)
{
	*na = *nb = -1;
	int G = g->gpus_per_node, b = ring[(i + 1) % o->n];
	if (ring[i] / G == b / G || !o->regular || o->m == 1)
		return;
	int head_a = ring[(i / o->k) * o->k]; /* segment heads */
	*na = head_a;
	*nb = b;
}

/* ---------------------------------------------------------- algorithms -- */

typedef struct shape {
	double t_bw, nsteps, ninter;
	int channels;
} shape;

static int do_ring(run *r, const geo *o, net_coll coll, const int *ranks, double S, shape *sh)
{
	int n = o->n, *rings = malloc((size_t)n * MAX_RINGS * sizeof *rings);
	if (!rings)
		return SIM_ENOMEM;
	int C = ring_orders(r->g, o, ranks, rings), rc = SIM_OK;
	bool bcast = coll == NET_BROADCAST;
	double chunk = bcast ? S / C : S / ((double)n * C);
	phase p = {0};
	for (int c = 0; c < C && rc == SIM_OK; c++)
		for (int i = 0; i < n - (bcast ? 1 : 0) && rc == SIM_OK; i++) {
			int na, nb;
			const int *ring = rings + (size_t)c * n;
			hop_nics(r->g, o, ring, i, &na, &nb);
			rc = phase_add(&p, ring[i], ring[(i + 1) % n], na, nb, chunk);
		}
	double passes = coll == NET_ALLREDUCE ? 2 : 1;
	double repeat = bcast ? 1 : passes * (n - 1);
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, repeat, &sh->t_bw);
	sh->nsteps = passes * (n - 1);
	sh->ninter = o->m > 1 ? passes * (o->m - 1) : 0;
	sh->channels = C;
	if (coll == NET_ALLREDUCE)
		r->ring_t_bw = sh->t_bw; /* the links' time: the tree's bound */
	/* the ring's local step, inside one node (net_ring_local_time) */
	net_group grp = {n, o->m == 1 ? n : o->k, o->m, 0};
	sh->t_bw += net_ring_local_time(&r->g->cl, coll, &grp, S);
	phase_free(&p);
	free(rings);
	return rc;
}

static int ceil_log2(int m)
{
	int d = 0;
	while ((1 << d) < m)
		d++;
	return d;
}

/* Tree edge both ways between node positions (segment heads), channel c. */
static int tree_edge(run *r, phase *p, const int *sa, const int *sb, double bytes)
{
	(void)r;
	int rc = phase_add(p, sa[0], sb[0], sa[0], sb[0], bytes);
	return rc == SIM_OK ? phase_add(p, sb[0], sa[0], sb[0], sa[0], bytes) : rc;
}

static int do_tree(run *r, const geo *o, const int *ranks, double S, shape *sh)
{
	int m = o->m, k = o->k, C = m > 1 ? k : 1, rc = SIM_OK;
	if (r->ring_t_bw <= 0) { /* the ring bound below (tree forced) */
		shape ring;
		rc = do_ring(r, o, NET_ALLREDUCE, ranks, S, &ring);
		topo_acc_clear(r->acc);
		r->flows = 0;
		if (rc != SIM_OK)
			return rc;
	}
	int *seg = malloc((size_t)m * k * sizeof *seg);
	if (!seg)
		return SIM_ENOMEM;
	phase p = {0};
	double b = S / (2.0 * C);
	for (int c = 0; c < C && rc == SIM_OK; c++) {
		for (int i = 0; i < m; i++)
			segment(o, i, c, seg + (size_t)i * k);
		for (int t = 0; t < 2 && rc == SIM_OK; t++) {
			for (int i = 0; i < m && rc == SIM_OK; i++)
				for (int j = 0; j + 1 < k && rc == SIM_OK; j++) {
					const int *s = seg + (size_t)i * k;
					rc = phase_add(&p, s[j], s[j + 1], -1, -1, b);
					if (rc == SIM_OK)
						rc = phase_add(&p, s[j + 1], s[j], -1, -1, b);
				}
			for (int pos = 1; pos < m && rc == SIM_OK; pos++) {
				int child = t ? m - 1 - pos : pos,
				    parent = t ? m - 1 - (pos - 1) / 2 : (pos - 1) / 2;
				rc = tree_edge(r, &p, seg + (size_t)child * k,
				               seg + (size_t)parent * k, b);
			}
		}
	}
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	/* Across more than two nodes an inner node of one tree sends S/2 up
	 * and S down and, a leaf of the other, S/2 up: 2 S, the ring's n/(n-1)
	 * (net coll.c "tree"), which the flows meet where the NICs bind; NCCL's
	 * tuner says as much (its ratio 0.5 against the ring's n / (2(n-1))).
	 * With the ring timed (auto), the tree's data time is at least ring x
	 * n / (n-1) there. On two nodes every channel's chunk crosses once each
	 * way (S per node, not 2 S), and the flows alone time the links. */
	if (r->ring_t_bw > 0 && o->n > 1 && m != 2)
		sh->t_bw = fmax(sh->t_bw, r->ring_t_bw * o->n / (o->n - 1.0));
	sh->nsteps = 2.0 * ((k - 1) + ceil_log2(m));
	sh->ninter = 2.0 * ceil_log2(m);
	sh->channels = C;
	phase_free(&p);
	free(seg);
	return rc;
}

static int do_hier(run *r, const geo *o, double S, shape *sh)
{
	int m = o->m, k = o->k, rc = SIM_OK;
	phase p = {0};
	sh->t_bw = 0;
	for (int i = 0; i < m && rc == SIM_OK; i++)
		for (int j = 0; j < k && rc == SIM_OK; j++) {
			const int *L = o->loc + (size_t)i * k;
			rc = phase_add(&p, L[j], L[(j + 1) % k], -1, -1, S / k);
		}
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 2.0 * (k - 1), &sh->t_bw); /* reduce-scatter + all-gather */
	for (int i = 0; i < m && rc == SIM_OK; i++)
		for (int j = 0; j < k && rc == SIM_OK; j++) {
			int a = o->loc[(size_t)i * k + j],
			    b = o->loc[(size_t)((i + 1) % m) * k + j];
			rc = phase_add(&p, a, b, -1, -1, S / ((double)k * m));
		}
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 2.0 * (m - 1), &sh->t_bw);
	sh->nsteps = 2.0 * (k - 1) + 2.0 * (m - 1);
	sh->ninter = 2.0 * (m - 1);
	sh->channels = k;
	phase_free(&p);
	return rc;
}

static int do_pairs(run *r, const geo *o, net_coll coll, const int *ranks, double S, shape *sh)
{
	int n = o->n, rc = SIM_OK;
	phase p = {0};
	if (coll == NET_P2P)
		rc = phase_add(&p, ranks[0], ranks[n - 1], -1, -1, S);
	else if ((int64_t)n * (n - 1) > MAX_FLOWS)
		rc = SIM_ERANGE;
	for (int i = 0; i < n && rc == SIM_OK && coll != NET_P2P; i++)
		for (int j = 0; j < n && rc == SIM_OK; j++)
			if (i != j)
				rc = phase_add(&p, ranks[i], ranks[j], -1, -1, S / n);
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	bool cross = o->m > 1;
	bool inside = coll == NET_P2P ? !cross : o->k > 1;
	sh->nsteps = (double)inside + (double)cross;
	sh->ninter = cross;
	sh->channels = 1;
	phase_free(&p);
	return rc;
}

/* NVLS inside one node (header comment). */
static int do_nvls(run *r, const geo *o, const int *ranks, double S, shape *sh)
{
	int n = o->n, rc = SIM_OK;
	phase p = {0};
	double b = S * (n + 1.0) / n;
	for (int i = 0; i < n && rc == SIM_OK; i++) {
		rc = phase_add(&p, ranks[i], SWITCH, -1, -1, b);
		if (rc == SIM_OK)
			rc = phase_add(&p, SWITCH, ranks[i], -1, -1, b);
	}
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	double ceiling = 2.0 * (n - 1) / n * S / r->g->cl.node.nvls_busbw_Bps;
	sh->t_bw = fmax(sh->t_bw, ceiling);
	sh->nsteps = 1;
	sh->ninter = 0;
	sh->channels = 1;
	phase_free(&p);
	return rc;
}

/* NVLSTree across nodes (header comment). */
static int do_nvlstree(run *r, const geo *o, double S, shape *sh)
{
	int m = o->m, k = o->k, n = o->n, rc = SIM_OK;
	phase p = {0};
	double up = S * (k + 1.0) / k, b = S / (2.0 * k);
	for (int i = 0; i < n && rc == SIM_OK; i++) {
		rc = phase_add(&p, o->loc[i], SWITCH, -1, -1, up);
		if (rc == SIM_OK)
			rc = phase_add(&p, SWITCH, o->loc[i], -1, -1, up);
	}
	for (int j = 0; j < k && rc == SIM_OK; j++)
		for (int t = 0; t < 2 && rc == SIM_OK; t++)
			for (int pos = 1; pos < m && rc == SIM_OK; pos++) {
				int child = t ? m - 1 - pos : pos,
				    parent = t ? m - 1 - (pos - 1) / 2 : (pos - 1) / 2;
				int x = o->loc[(size_t)child * k + j],
				    y = o->loc[(size_t)parent * k + j];
				rc = phase_add(&p, x, y, -1, -1, b);
				if (rc == SIM_OK)
					rc = phase_add(&p, y, x, -1, -1, b);
			}
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	const net_cluster *c = &r->g->cl;
	double bus = fmin(c->node.nvls_busbw_Bps,
	                  (m <= 2 ? 2.0 * (n - 1) / n : 1) * net_nic_busbw(c, k, m));
	sh->t_bw = fmax(sh->t_bw, 2.0 * (n - 1) / n * S / bus);
	sh->ninter = sh->nsteps = 2.0 * floor(log2((double)m));
	sh->channels = k;
	phase_free(&p);
	return rc;
}

/* SHARP across nodes (header comment "SHARP"): CollNetDirect,
 * CollNetChain or NVLS (a = TOPO_ALGO_NVLS) inside every node, each rank's
 * shard S/k to and from the leaf above its NIC, and the trees above the
 * leaves, one per local rank j over the nodes' ranks j. */
static int do_sharp(run *r, const geo *o, net_coll coll, double S, topo_algo a, shape *sh)
{
	int m = o->m, k = o->k, n = o->n, rc = SIM_OK;
	double kk = k;
	phase p = {0};
	for (int i = 0; i < m && rc == SIM_OK; i++) {
		const int *L = o->loc + (size_t)i * k;
		for (int j = 0; j < k && rc == SIM_OK; j++) {
			if (a == TOPO_ALGO_NVLS) { /* NVLS's port loads (k+1)/k S */
				rc = phase_add(&p, L[j], SWITCH, -1, -1, S * (kk + 1) / kk);
				if (rc == SIM_OK)
					rc = phase_add(&p, SWITCH, L[j], -1, -1, S * (kk + 1) / kk);
			} else if (a == TOPO_ALGO_COLLNET_DIRECT) {
				/* all-reduce: scatter + copy, 2 S/k to each other
				 * rank; all-gather: the rank's rail, reduce-scatter:
				 * its parts for the other heads, S/k */
				double b = coll == NET_ALLREDUCE ? 2 * S / kk : S / kk;
				for (int l = 0; l < k && rc == SIM_OK; l++)
					if (l != j)
						rc = phase_add(&p, L[j], L[l], -1, -1, b);
			} else if (k > 1) { /* the chains up and down: (k-1)/k S each */
				rc = phase_add(&p, L[j], L[(j + 1) % k], -1, -1, (kk - 1) / kk * S);
				if (rc == SIM_OK)
					rc = phase_add(&p, L[(j + 1) % k], L[j], -1, -1,
					               (kk - 1) / kk * S);
			}
		}
	}
	/* a head's shard up and the result down, S/k each way; all-gather sends
	 * its own S/n and gets its rail's S/k, reduce-scatter the other way */
	double up = coll == NET_ALLGATHER ? S / n : S / kk,
	       down = coll == NET_REDUCESCATTER ? S / n : S / kk;
	for (int x = 0; x < n && rc == SIM_OK; x++) {
		rc = phase_add(&p, o->loc[x], LEAF, -1, -1, up);
		if (rc == SIM_OK)
			rc = phase_add(&p, LEAF, o->loc[x], -1, -1, down);
	}
	/* grouped by tree and direction, as route_tree's state wants them;
	 * S/k each way (all-gather: the gathered rail down, up the subtree's
	 * part of it, at most S/k: taken as S/k; reduce-scatter mirrored) */
	for (int j = 0; j < k && rc == SIM_OK; j++)
		for (int d = 0; d < 2 && rc == SIM_OK; d++)
			for (int i = 0; i < m && rc == SIM_OK; i++)
				rc = phase_add(&p, d ? TREE_DOWN : TREE_UP, o->loc[(size_t)i * k + j],
				               o->loc[(size_t)(m - 1) * k + j], -1, S / kk);
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	const net_cluster *c = &r->g->cl;
	if (a == TOPO_ALGO_NVLS) /* the node's NVLS ceiling, as do_nvls */
		sh->t_bw = fmax(sh->t_bw, 2.0 * (n - 1) / n * S / c->node.nvls_busbw_Bps);
	else
		sh->t_bw /= net_sharp_eff(c, coll, topo_algo_to_net(a));
	sh->nsteps = sh->ninter = 1;
	sh->channels = k;
	phase_free(&p);
	return rc;
}

/* PAT (header comment): one phase of every rank's flow per dimension. */
static int do_pat(run *r, const geo *o, net_coll coll, const int *ranks, double S, shape *sh)
{
	int n = o->n, rc = SIM_OK;
	phase p = {0};
	for (int d = 0; (1 << d) < n && rc == SIM_OK; d++) {
		int step = 1 << d, pieces = (n - 1 + step) >> (d + 1);
		for (int i = 0; i < n && rc == SIM_OK; i++) {
			int j = coll == NET_REDUCESCATTER ? (i - step + n) % n : (i + step) % n;
			rc = phase_add(&p, ranks[i], ranks[j], -1, -1, pieces * S / n);
		}
	}
	sh->t_bw = 0;
	if (rc == SIM_OK)
		rc = phase_run(r, &p, 1, &sh->t_bw);
	sh->t_bw *= n / (n - 1.0); /* NCCL's model: the whole buffer (header) */
	sh->nsteps = n - 1.0;
	sh->ninter = n - 1.0;
	sh->channels = 1;
	phase_free(&p);
	return rc;
}

/* Whether the group's nodes reduce in their NVSwitch (NVLS): NVSwitch nodes
 * with nvls_busbw, at least 2 ranks, and the Simple protocol allowed; one
 * node for NVLS, several with the same ranks on each for NVLSTree. */
static bool nvls_ok(const net_cluster *c, const geo *o)
{
	return o->n >= 2 && c->node.intra == NET_INTRA_NVSWITCH && c->node.nvls_busbw_Bps > 0 &&
	       net_proto_ok(c, NET_PROTO_SIMPLE);
}

static bool applies(const net_cluster *c, net_coll coll, topo_algo a, const geo *o)
{
	switch (a) {
	case TOPO_ALGO_RING:
		return coll == NET_ALLREDUCE || coll == NET_ALLGATHER ||
		       coll == NET_REDUCESCATTER || coll == NET_BROADCAST;
	case TOPO_ALGO_TREE:
		return coll == NET_ALLREDUCE && o->regular;
	case TOPO_ALGO_HIER:
		return coll == NET_ALLREDUCE && o->regular && o->m > 1 && o->k > 1;
	case TOPO_ALGO_PAIRWISE:
		return coll == NET_ALLTOALL;
	case TOPO_ALGO_DIRECT:
		return coll == NET_P2P;
	case TOPO_ALGO_NVLS: {
		net_group grp = {o->n, o->k, o->m, 0};
		return coll == NET_ALLREDUCE &&
		       (o->m == 1 ? nvls_ok(c, o)
		                  : o->regular && net_sharp_ok(c, coll, &grp, NET_ALGO_NVLS));
	}
	case TOPO_ALGO_COLLNET_DIRECT:
	case TOPO_ALGO_COLLNET_CHAIN: {
		net_group grp = {o->n, o->k, o->m, 0};
		return o->regular && net_sharp_ok(c, coll, &grp, topo_algo_to_net(a));
	}
	case TOPO_ALGO_NVLSTREE:
		return coll == NET_ALLREDUCE && o->m > 1 && o->k > 1 && o->regular && nvls_ok(c, o);
	case TOPO_ALGO_PAT: {
		net_group grp = {o->n, o->k, o->m, 0};
		return o->regular && net_pat_ok(c, coll, &grp);
	}
	default:
		return false;
	}
}

/* The double binary tree's protocols: NCCL's tuning model for it
 * (net_tree_latency, net_tree_proto_bw: its own latency constants, busBw x
 * 0.92 and protocol caps on the links' time) and its per-channel ceiling
 * (net_tree_cap_time: perChMaxTreeBw over NCCL's tree channels), which
 * keeps the flow tree on two nodes, whose links alone would give 2 x DGX
 * A100 234 GB/s busbw, at NCCL's 94.4 GB/s of data (175 GB/s busbw at 1
 * GiB); NCCL's table picks the ring there (189 GB/s). */

/* Time one algorithm: flows, then the best protocol (or protocol `only`
 * when >= 0). */
static int time_algo(run *r, const geo *o, net_coll coll, const int *ranks, double S, topo_algo a,
                     int only, topo_cost *c)
{
	shape sh = {0};
	int rc = a == TOPO_ALGO_RING       ? do_ring(r, o, coll, ranks, S, &sh)
	         : a == TOPO_ALGO_TREE     ? do_tree(r, o, ranks, S, &sh)
	         : a == TOPO_ALGO_HIER     ? do_hier(r, o, S, &sh)
	         : a == TOPO_ALGO_NVLS     ? (o->m > 1 ? do_sharp(r, o, coll, S, a, &sh)
	                                               : do_nvls(r, o, ranks, S, &sh))
	         : a == TOPO_ALGO_COLLNET_DIRECT || a == TOPO_ALGO_COLLNET_CHAIN
	                                   ? do_sharp(r, o, coll, S, a, &sh)
	         : a == TOPO_ALGO_NVLSTREE ? do_nvlstree(r, o, S, &sh)
	         : a == TOPO_ALGO_PAT      ? do_pat(r, o, coll, ranks, S, &sh)
	                                   : do_pairs(r, o, coll, ranks, S, &sh);
	if (rc != SIM_OK)
		return rc;
	const net_cluster *cl = &r->g->cl;
	net_group grp = {o->n, o->k, o->m, 0};
	double best = INFINITY;
	bool sharp = a == TOPO_ALGO_COLLNET_DIRECT || a == TOPO_ALGO_COLLNET_CHAIN ||
	             (a == TOPO_ALGO_NVLS && o->m > 1);
	bool nvls = a == TOPO_ALGO_NVLS || a == TOPO_ALGO_NVLSTREE || a == TOPO_ALGO_PAT || sharp;
	if (nvls) { /* Simple only, net's NVLS, PAT and SHARP latencies */
		c->proto = NET_PROTO_SIMPLE;
		c->latency_s = sharp ? net_sharp_latency(topo_algo_to_net(a), o->k)
		               : a == TOPO_ALGO_NVLS ? net_nvls_latency(cl)
		               : a == TOPO_ALGO_PAT ? net_pat_latency(cl, o->n)
		                                    : net_nvlstree_latency(cl, o->m);
		best = c->latency_s + sh.t_bw / (a == TOPO_ALGO_PAT ? NET_PAT_BW : 1);
	}
	for (int p = 0; p < NET_PROTO_COUNT && !nvls; p++) {
		if (!net_proto_ok(cl, (net_proto)p) || (only >= 0 && p != only))
			continue;
		bool tree = a == TOPO_ALGO_TREE;
		double lat = tree ? net_tree_latency(cl, o->m, (net_proto)p, sh.nsteps, sh.ninter)
		                  : net_ring_latency(cl, o->m, a == TOPO_ALGO_RING &&
		                                     net_ring_one_per_node(coll, &grp),
		                                     sh.nsteps, sh.ninter, (net_proto)p);
		double t = tree ? lat + fmax(sh.t_bw / net_tree_proto_bw((net_proto)p, o->m > 1),
		                             net_tree_cap_time(cl, &grp, (net_proto)p, S))
		                : lat + sh.t_bw / net_proto_bw((net_proto)p);
		if (t < best) {
			best = t;
			c->proto = (net_proto)p;
			c->latency_s = lat;
		}
	}
	c->time_s = best + cl->node.coll_overhead_s;
	c->bw_time_s = sh.t_bw;
	c->algo = a;
	c->channels = sh.channels;
	return SIM_OK;
}

/* The chosen algorithm's hot link: the first of the most loaded, walking
 * the sorted list of the links it touched (acc.c: as a scan of all). */
static void finish_cost(const run *r, const topo_acc *acc, net_coll coll, int n, double S,
                        topo_cost *c)
{
	c->flows = r->flows;
	c->algbw_Bps = c->time_s > 0 ? S / c->time_s : 0;
	c->busbw_Bps = c->algbw_Bps * topo_bus_factor(coll, n);
	c->hot_link = -1;
	for (int i = 0; i < acc->n; i++) {
		int l = acc->list[i];
		if (acc->bytes[l] > c->hot_link_bytes) {
			c->hot_link_bytes = acc->bytes[l];
			c->hot_link = l;
		}
	}
}

int topo_collective(const topo_graph *g, net_coll coll, const int *ranks, int n, double bytes,
                    topo_algo algo, topo_cost *out)
{
	return topo_collective_groups(g, coll, ranks, n, 1, bytes, algo, out, NULL, NULL);
}

/* The flow simulation of a collective across m nodes: the graph's link
 * capacities, the NIC and fabric links of an EFA cluster over kappa(m)
 * (header comment), set on the context's simulation for this call. */
static double derate_for(topo_coll_ctx *x, int m)
{
	const topo_graph *g = x->g;
	double kappa = net_congestion(&g->cl, m);
	if (!(kappa > 1)) {
		topo_sim_derate(x->sim, NULL, NULL);
		return 1;
	}
	double div[NET_LINK_KIND_COUNT];
	for (int k = 0; k < NET_LINK_KIND_COUNT; k++)
		div[k] = k == NET_LINK_NIC || k == NET_LINK_FABRIC ? kappa : 1;
	topo_sim_derate(x->sim, g->lclass, div);
	return kappa;
}

static int run_open(run *r, topo_coll_ctx *x, const int *groups, int n, int ngroups, int m)
{
	const topo_graph *g = x->g;
	*r = (run){.g = g,
	           .sim = x->sim,
	           .acc = &x->acc,
	           .n = n,
	           .ngroups = ngroups,
	           .groups = groups,
	           .pos = x->pos,
	           .rails = 1,
	           .memo = g->memo,
	           .oc = x->outcomes,
	           .div = 1};
	if (g->nics_per_node > g->gpus_per_node)
		r->rails = g->nics_per_node / g->gpus_per_node;
	for (size_t i = (size_t)n; i < (size_t)n * (size_t)ngroups; i++)
		if (topo_gpu(g, groups[i]) < 0)
			return SIM_EINVAL;
	r->div = derate_for(x, m);
	return SIM_OK;
}

/* The group as net sees it (net_group): n ranks on m nodes, at most kmax
 * on one; p2p: its first and last rank (the message's two ends), as
 * podsim coll and the plan give it to net_collective. */
static net_group net_group_of(const topo_graph *g, const geo *o, net_coll coll, const int *ranks)
{
	if (coll != NET_P2P)
		return (net_group){o->n, o->kmax, o->m, 0};
	int G = g->gpus_per_node;
	bool same = ranks[0] / G == ranks[o->n - 1] / G;
	return (net_group){2, same ? 2 : 1, same ? 1 : 2, ranks[o->n - 1] - ranks[0]};
}

/* The algorithm NCCL runs (header comment "Which algorithm"): net's choice
 * for the group (net_nccl_choice: NCCL's table, net tune.c; the region
 * tuner's on EFA; a forced algorithm with the protocol NCCL's model gives
 * it), simulated once; its link loads stay in x->acc, sorted. */
static int pick_algo(run *r, topo_coll_ctx *x, const geo *o, net_coll coll, const int *ranks,
                     double bytes, topo_algo algo, topo_cost *out)
{
	const topo_graph *g = r->g;
	net_group grp = net_group_of(g, o, coll, ranks);
	net_cluster view = g->cl;
	if (algo != TOPO_ALGO_AUTO)
		view.algo = topo_algo_to_net(algo);
	net_algo na;
	net_proto np;
	int only = -1;
	topo_algo a = algo;
	if (net_nccl_choice(&view, coll, &grp, bytes, &na, &np) == SIM_OK) {
		topo_algo ta = coll == NET_ALLTOALL ? TOPO_ALGO_PAIRWISE
		               : coll == NET_P2P    ? TOPO_ALGO_DIRECT
		                                    : topo_algo_from_net(na);
		if (algo == TOPO_ALGO_AUTO || ta == algo) {
			a = ta;
			only = (int)np;
		} /* else forced where net's model has no time for it: the
		   * protocol with the lowest flow time */
	}
	if (a == TOPO_ALGO_AUTO || !applies(&g->cl, coll, a, o)) {
		/* net has no choice for the group (none fails on the shipped
		 * clusters: tools/coll-agree): the collective's plain algorithm */
		a = coll == NET_ALLTOALL ? TOPO_ALGO_PAIRWISE
		    : coll == NET_P2P    ? TOPO_ALGO_DIRECT
		                         : TOPO_ALGO_RING;
		only = -1;
		if (!applies(&g->cl, coll, a, o))
			return SIM_EINVAL;
	}
	topo_acc_clear(&x->acc);
	r->flows = 0;
	*out = (topo_cost){0};
	int rc = time_algo(r, o, coll, ranks, bytes, a, only, out);
	if (rc == SIM_OK && !isfinite(out->time_s))
		rc = SIM_EINVAL;
	topo_acc_sort(&x->acc);
	return rc;
}

int topo_coll_ctx_new(const topo_graph *g, topo_coll_ctx **out)
{
	*out = NULL;
	topo_coll_ctx *x = calloc(1, sizeof *x);
	if (!x)
		return SIM_ENOMEM;
	x->g = g;
	size_t ranks = (size_t)g->cl.nodes * (size_t)g->gpus_per_node; /* topo_gpu's */
	x->pos = malloc((ranks + 1) * sizeof *x->pos);
	x->count = calloc((size_t)g->cl.nodes + 1, sizeof *x->count);
	x->first = malloc(((size_t)g->cl.nodes + 1) * sizeof *x->first);
	int rc = x->pos && x->count && x->first ? SIM_OK : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = topo_acc_init(&x->acc, g->nl);
	if (rc == SIM_OK)
		rc = topo_sim_for_graph(g, &x->sim);
	if (rc == SIM_OK)
		rc = topo_outcomes_new(&x->outcomes);
	if (rc != SIM_OK) {
		topo_coll_ctx_free(x);
		return rc;
	}
	for (size_t i = 0; i < ranks; i++)
		x->pos[i] = -1;
	*out = x;
	return SIM_OK;
}

void topo_coll_ctx_free(topo_coll_ctx *x)
{
	if (!x)
		return;
	topo_sim_free(x->sim);
	topo_outcomes_free(x->outcomes);
	topo_acc_free(&x->acc);
	free(x->pos);
	free(x->count);
	free(x->first);
	free(x);
}

int topo_coll_run(topo_coll_ctx *x, net_coll coll, const int *groups, int n, int ngroups,
                  double bytes, topo_algo algo, topo_cost *out)
{
	const topo_graph *g = x ? x->g : NULL;
	memset(out, 0, sizeof *out);
	out->hot_link = -1;
	if (!g || !groups || n < 1 || ngroups < 1 || (unsigned)coll >= NET_COLL_COUNT ||
	    !(bytes >= 0) || (unsigned)algo >= TOPO_ALGO_COUNT || (coll == NET_P2P && n < 2))
		return SIM_EINVAL;
	topo_acc_clear(&x->acc);
	geo o;
	int rc = geo_make(x, groups, n, &o);
	if (rc == SIM_OK && algo != TOPO_ALGO_AUTO && !applies(&g->cl, coll, algo, &o))
		rc = SIM_EINVAL;
	if (rc == SIM_OK)
		out->algo = algo;
	run r;
	if (rc == SIM_OK && n > 1 && bytes > 0) {
		rc = run_open(&r, x, groups, n, ngroups, o.m);
		if (rc == SIM_OK)
			rc = pick_algo(&r, x, &o, coll, groups, bytes, algo, out);
		if (rc == SIM_OK) { /* after NCCL's choice, which does not see it (net.h) */
			net_group grp = {n, o.k, o.m, 0};
			out->sync_s = net_sync_delay(&g->cl, &grp, bytes);
			out->time_s += out->sync_s;
			finish_cost(&r, &x->acc, coll, n, bytes, out);
		}
	}
	/* put the positions back (geo_make): -1 for every rank */
	for (int i = 0; i < n; i++)
		if (topo_gpu(g, groups[i]) >= 0)
			x->pos[groups[i]] = -1;
	free(o.loc);
	return rc;
}

int topo_collective_groups(const topo_graph *g, net_coll coll, const int *groups, int n,
                           int ngroups, double bytes, topo_algo algo, topo_cost *out,
                           double *link_bytes, double *link_sat)
{
	memset(out, 0, sizeof *out);
	out->hot_link = -1;
	if (!g)
		return SIM_EINVAL;
	if (link_bytes)
		memset(link_bytes, 0, (size_t)g->nl * sizeof *link_bytes);
	if (link_sat)
		memset(link_sat, 0, (size_t)g->nl * sizeof *link_sat);
	topo_coll_ctx *x;
	int rc = topo_coll_ctx_new(g, &x);
	if (rc != SIM_OK)
		return rc;
	rc = topo_coll_run(x, coll, groups, n, ngroups, bytes, algo, out);
	for (int i = 0; rc == SIM_OK && i < x->acc.n; i++) {
		int l = x->acc.list[i];
		if (link_bytes)
			link_bytes[l] = x->acc.bytes[l];
		if (link_sat)
			link_sat[l] = x->acc.sat[l];
	}
	topo_coll_ctx_free(x);
	return rc;
}
