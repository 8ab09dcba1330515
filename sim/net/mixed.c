/* mixed.c - the links of a cluster whose nodes are not all one type
 * ([cluster] other_gpu naming a node file; plan_scenario.other_net).
 *
 * A collective is timed on one node type's links (net_collective on a
 * net_cluster whose `node` is that type). A group wholly on the other
 * type's nodes is timed on a view of the cluster with the other node
 * (sim/exec/straggle.c builds the graph on it). A group with members on
 * both types is timed on the view with net_node_slowest(main, other):
 *
 *   Ring (all-reduce, all-gather, reduce-scatter). Each of the 2(n-1) (or
 *   n-1) steps, every rank sends a chunk of S/n to its successor at once;
 *   the next step's chunk can leave a rank only when the previous one has
 *   arrived, so the pipeline runs at its slowest hop: busbw = min over hops
 *   of the hop's rate. A hop inside a node runs on that node's scale-up
 *   port (intra_bw x intra_efficiency); a hop between nodes leaves through
 *   the sender's NICs and arrives through the receiver's, k/G of each
 *   node's nics x nic_bw x nic_efficiency (net_nic_busbw). A ring over both
 *   types has hops of both kinds on both types (NCCL's ring enters and
 *   leaves every node), so busbw = min(intra rate of either type, NIC
 *   share of either type): the net_collective formula on a node with the
 *   lower intra rate and the lower NIC total. Its per-step latency is the
 *   step's slowest hop too: the slower node's link class (NVLink or PCIe).
 *   Tree (double binary tree). A chunk crosses every edge of the tree up
 *   (reduce) and down (broadcast), chunks pipelined: the tree runs at its
 *   slowest edge, an inter-node edge at the lower NIC share and the chain
 *   inside a node at the lower scale-up rate: the same node.
 *   NCCL does the same when it sets a communicator up: every rank's
 *   search of its own node is all-gathered and each algorithm's graph
 *   keeps the minimum over ranks of its channels, intra-node and inter-node
 *   bandwidth and the maximum (slowest) link type (N = NVIDIA/nccl
 *   5067397c, src/init.cc:1439-1445: nChannels, bwIntra, bwInter = min,
 *   typeIntra, typeInter = max), and its tuning model then times and picks
 *   every algorithm of the communicator on those: one view of the slowest
 *   node, as here.
 *   NVLS works inside one node (a group over both types spans nodes), and
 *   NVLSTree needs the switch's reduction on every node of the group: a
 *   rank without NVLS has no NVLS channels, the minimum is 0 and NCCL turns
 *   NVLS off for the communicator (N src/init.cc:1453): nvls_busbw is the
 *   lower of the two, 0 where either node has none. coll_overhead is the larger. ring_local_bw (the ring's local
 *   step, inside one node only) the lower where both have one, else the
 *   one set (0 = no local step: faster). The node's own figures beside the
 *   links (host memory, NVMe, power) stay a's: those are per node, not per
 *   group (offload copies are timed on the rank's own node type). */
#include "net.h"

#include <string.h>

/* a node's scale-up and NIC totals per GPU */
static double intra_rate(const net_node *n)
{
	return n->intra_Bps * n->intra_eff;
}

static double nic_rate(const net_node *n)
{
	return n->nics * n->nic_Bps * n->nic_eff / (n->gpus > 0 ? n->gpus : 1);
}

void net_node_slowest(const net_node *a, const net_node *b, net_node *out)
{
	*out = *a;
	if (intra_rate(b) < intra_rate(a)) {
		out->intra = b->intra;
		out->intra_Bps = b->intra_Bps;
		out->intra_eff = b->intra_eff;
		out->gpus_per_switch = b->gpus_per_switch;
		out->pcie_p2p = b->pcie_p2p;
	}
	if (nic_rate(b) < nic_rate(a)) {
		out->nics = b->nics;
		out->nic_Bps = b->nic_Bps;
		out->nic_eff = b->nic_eff;
		out->nic_kind = b->nic_kind;
		out->ec2 = b->ec2;
	}
	if (b->pcie_Bps * b->pcie_eff < a->pcie_Bps * a->pcie_eff) {
		out->pcie_Bps = b->pcie_Bps;
		out->pcie_eff = b->pcie_eff;
	}
	out->nvls_busbw_Bps = a->nvls_busbw_Bps < b->nvls_busbw_Bps ? a->nvls_busbw_Bps
								    : b->nvls_busbw_Bps;
	if (b->cc > 0 && (a->cc <= 0 || b->cc < a->cc))
		out->cc = b->cc; /* NCCL tunes for the lowest (minCompCap) */
	if (b->coll_overhead_s > a->coll_overhead_s)
		out->coll_overhead_s = b->coll_overhead_s;
	if (b->ring_local_Bps > 0 && (a->ring_local_Bps <= 0 || b->ring_local_Bps < a->ring_local_Bps))
		out->ring_local_Bps = b->ring_local_Bps;
}

int net_node_from_section(const conf_doc *doc, const char *section, net_node *out,
			  sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rc = conf_read(doc, section, net_node_keys, net_node_nkeys, out, false, diag);
	if (rc != SIM_OK || !conf_has_section(doc, section))
		return SIM_ECONF;
	return SIM_OK;
}
