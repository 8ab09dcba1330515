/* summary.c - figures of a topology graph (`podsim topo`) and its Graphviz
 * form.
 *
 * Diameter: the longest shortest route, in links, between two GPUs, where
 * switches, the CPU and NICs forward traffic (a BFS toward
 * every GPU; toward node 0's GPUs only on graphs over
 * TOPO_SUMMARY_MAX_VERTICES, which the fabric's symmetry makes a fair sample).
 *
 * Bisection bandwidth: the maximum flow from the first half of the GPU ranks
 * to the second (ranks fill nodes in order, so on a multi-node cluster this
 * cuts the cluster between nodes N/2 - 1 and N/2) with the links' raw
 * capacities and GPUs not forwarding. By max-flow/min-cut it equals the
 * smallest total capacity of links whose removal separates the halves.
 * Edmonds-Karp: augment along shortest residual paths until none is left; the
 * residual capacity of link e (u -> v) is cap(e) - f(e) + f(e'), e' = v -> u
 * its pair, because flow on e' can be cancelled.
 */
#include "topo_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int diameter(const topo_graph *g)
{
	int *dist = malloc(2 * (size_t)g->nv * sizeof *dist);
	if (!dist)
		return SIM_ENOMEM;
	int ngpu = g->cl.nodes * g->gpus_per_node, best = 0;
	int ndst = g->nv > TOPO_SUMMARY_MAX_VERTICES ? g->gpus_per_node : ngpu;
	for (int d = 0; d < ndst; d++) {
		int dst = g->gpu[d], *queue = dist + g->nv, head = 0, tail = 0;
		for (int u = 0; u < g->nv; u++)
			dist[u] = -1;
		dist[dst] = 0;
		queue[tail++] = dst;
		while (head < tail) {
			int w = queue[head++];
			topo_vkind kw = g->v[w].kind;
			if (w != dst && !topo_transit(kw) && kw != TOPO_V_NIC)
				continue;
			for (int i = g->in_off[w]; i < g->in_off[w + 1]; i++) {
				int u = g->l[g->in[i]].src;
				if (dist[u] < 0) {
					dist[u] = dist[w] + 1;
					queue[tail++] = u;
				}
			}
		}
		for (int r = 0; r < ngpu; r++)
			if (dist[g->gpu[r]] > best)
				best = dist[g->gpu[r]];
	}
	free(dist);
	return best;
}

typedef struct mf {
	const topo_graph *g;
	double *f; /* flow per link */
	int *side; /* per vertex: 1 = source half GPU, 2 = sink half GPU, 3 = not on
		    * the GPU fabric (bisection), 0 other */
	int *via;  /* link by which the BFS reached a vertex, -1 = from the source */
	int *queue;
	bool nvlink; /* NVLink inside the node: no GPU -> PCIe switch -> GPU hop */
} mf;

/* On an NVLink node NCCL moves data between two GPUs of the node over NVLink,
 * never GPU -> PCIe switch -> GPU (P2P over PCIe is its fallback where no
 * NVLink path exists): with two bridged GPUs behind one switch the bisection
 * is the bridge, 300 GB/s, not 300 + 31.5. A switch's links to GPUs still
 * carry NIC traffic (NIC -> switch -> GPU). */
static bool gpu_pcie_gpu(const mf *m, int u, int v)
{
	const topo_graph *g = m->g;
	if (!m->nvlink || g->v[u].kind != TOPO_V_PCIE_SWITCH || g->v[v].kind != TOPO_V_GPU ||
	    m->via[u] < 0)
		return false;
	return g->v[g->l[m->via[u]].src].kind == TOPO_V_GPU;
}

static double resid(const mf *m, int e)
{
	return m->g->l[e].Bps - m->f[e] + m->f[e ^ 1];
}

/* One augmenting path; returns the amount pushed (0 = none left). */
static double augment(mf *m)
{
	const topo_graph *g = m->g;
	int head = 0, tail = 0, sink = -1;
	for (int u = 0; u < g->nv; u++)
		m->via[u] = -2;
	for (int u = 0; u < g->nv; u++)
		if (m->side[u] == 1) {
			m->via[u] = -1;
			m->queue[tail++] = u;
		}
	while (head < tail && sink < 0) {
		int u = m->queue[head++];
		if (g->v[u].kind == TOPO_V_GPU && m->side[u] != 1)
			continue;
		for (int i = g->out_off[u]; i < g->out_off[u + 1]; i++) {
			int e = g->out[i], v = g->l[e].dst;
			if (m->via[v] != -2 || m->side[v] == 3 || resid(m, e) <= 1e-9 * g->l[e].Bps ||
			    gpu_pcie_gpu(m, u, v))
				continue;
			m->via[v] = e;
			if (m->side[v] == 2) {
				sink = v;
				break;
			}
			m->queue[tail++] = v;
		}
	}
	if (sink < 0)
		return 0;
	double push = INFINITY;
	for (int v = sink; m->via[v] >= 0; v = g->l[m->via[v]].src)
		push = fmin(push, resid(m, m->via[v]));
	for (int v = sink; m->via[v] >= 0; v = g->l[m->via[v]].src) {
		int e = m->via[v];
		double cancel = fmin(push, m->f[e ^ 1]);
		m->f[e ^ 1] -= cancel;
		m->f[e] += push - cancel;
	}
	return push;
}

/* The bisection over the fabric the collectives use: a max flow from the
 * first half of the GPUs to the second, GPUs not relaying. With NVLink or
 * NVSwitch inside a node NCCL moves GPU-to-GPU data over NVLink, and to other
 * nodes through the NICs: paths through the CPU (host memory or the root
 * complex) are left out, as is NVMe. On a PCIe-only node the CPU's root
 * complex carries P2P between PCIe switches (and host memory without P2P),
 * so it stays. One DGX H100: 8 x 450 GB/s / 2 = 1.8 TB/s (the host path
 * added 126 GB/s before). Nor does a GPU-to-GPU path cross a PCIe switch on
 * an NVLink node (gpu_pcie_gpu). */
static double bisection(const topo_graph *g)
{
	int ngpu = g->cl.nodes * g->gpus_per_node;
	if (ngpu < 2)
		return 0;
	bool nvlink = g->cl.node.intra != NET_INTRA_PCIE;
	mf m = {g, calloc((size_t)g->nl, sizeof(double)), calloc((size_t)g->nv, sizeof(int)),
	        malloc((size_t)g->nv * sizeof(int)), malloc((size_t)g->nv * sizeof(int)), nvlink};
	double total = -1;
	if (m.f && m.side && m.via && m.queue) {
		for (int v = 0; v < g->nv; v++)
			if (g->v[v].kind == TOPO_V_NVME || (nvlink && g->v[v].kind == TOPO_V_CPU))
				m.side[v] = 3;
		for (int r = 0; r < ngpu; r++)
			m.side[g->gpu[r]] = r < ngpu / 2 ? 1 : 2;
		total = 0;
		for (double p; (p = augment(&m)) > 0;)
			total += p;
	}
	free(m.f);
	free(m.side);
	free(m.via);
	free(m.queue);
	return total;
}

int topo_summarize(const topo_graph *g, topo_summary *out)
{
	memset(out, 0, sizeof *out);
	out->nvertices = g->nv;
	out->nlinks = g->nl;
	for (int v = 0; v < g->nv; v++)
		out->vertices[g->v[v].kind]++;
	for (int l = 0; l < g->nl; l++)
		out->links[g->l[l].kind]++;
	int v0 = g->gpu[0];
	for (int i = g->out_off[v0]; i < g->out_off[v0 + 1]; i++) {
		const topo_link *l = &g->l[g->out[i]];
		bool up = l->kind == TOPO_L_NVLINK || l->kind == TOPO_L_NVSWITCH ||
		          (g->cl.node.intra == NET_INTRA_PCIE && l->kind == TOPO_L_PCIE);
		if (up)
			out->inject_scaleup_Bps += l->Bps;
	}
	out->inject_net_Bps = g->cl.node.nics * g->cl.node.nic_Bps / g->gpus_per_node;
	int d = diameter(g);
	if (d < 0)
		return d;
	out->diameter_hops = d;
	out->bisection_Bps = g->nv > TOPO_SUMMARY_MAX_VERTICES ? -1 : bisection(g);
	return out->bisection_Bps == -1 && g->nv <= TOPO_SUMMARY_MAX_VERTICES ? SIM_ENOMEM : SIM_OK;
}

static const char *shape(topo_vkind k)
{
	switch (k) {
	case TOPO_V_GPU:
		return "box";
	case TOPO_V_NIC:
	case TOPO_V_NVME:
		return "ellipse";
	case TOPO_V_CPU:
		return "box3d";
	default:
		return "diamond";
	}
}

int topo_write_dot(const topo_graph *g, FILE *out)
{
	if (g->nv > TOPO_DOT_MAX_VERTICES)
		return SIM_ERANGE;
	char name[64], bw[32];
	fprintf(out, "graph \"%s\" {\n\tnode [fontsize=10];\n\tedge [fontsize=8];\n", g->cl.name);
	for (int v = 0; v < g->nv; v++) {
		topo_vertex_name(g, v, name, sizeof name);
		fprintf(out, "\tv%d [label=\"%s\", shape=%s];\n", v, name, shape(g->v[v].kind));
	}
	for (int l = 0; l < g->nl; l += 2) {
		sim_unit_format(g->l[l].Bps, SIM_UNIT_BANDWIDTH, bw, sizeof bw);
		fprintf(out, "\tv%d -- v%d [label=\"%s %s\"];\n", g->l[l].src, g->l[l].dst,
		        topo_lkind_name(g->l[l].kind), bw);
	}
	fputs("}\n", out);
	return SIM_OK;
}
