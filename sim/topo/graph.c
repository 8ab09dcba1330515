/* graph.c - the link graph of a cluster: vertices, link pairs and the node
 * internals (topo.h). Fabric switches are added by fabric.c.
 *
 * A node of G GPUs (net_node) becomes:
 *   G gpu vertices;
 *   scale-up fabric by the node's intra kind:
 *     nvswitch:    one nvswitch vertex standing for all the node's NVSwitch
 *                  chips (a non-blocking crossbar, hardware.md section 16),
 *                  one nvswitch-kind link pair per GPU at intra_bw;
 *     nvlink-mesh: GPU-GPU nvlink pairs. G = 8 is the DGX-1 V100 hybrid cube
 *                  mesh (hardware.csv node,DGX-1 (V100),gpus: "not all GPU
 *                  pairs directly linked"; nvlink,NVLink 2 (V100),links_per_gpu
 *                  = 6 at nvlink,NVLink 2 (V100),per_link_per_direction = 25
 *                  GB/s): two quads 0-3 and 4-7, each a full mesh, plus GPU i
 *                  to i+4; the doubled bricks are the ones of the DGX-1 V100
 *                  whitepaper's figure (S40; nvidia-smi topo -m shows NV2 on
 *                  0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7 and NV1 elsewhere), so
 *                  every GPU has 6 bricks of intra_bw / 6. Any other G is a full
 *                  mesh with intra_bw / (G-1) per pair (assumed; 2 bricks per
 *                  pair for the ring search);
 *     pcie:        no scale-up links; GPUs talk through the PCIe switches and
 *                  the CPU (hardware.md section 16: "share host PCIe switches
 *                  and the CPU root complex"), at intra_bw on the GPU links;
 *                  with pcie_p2p = false every GPU-to-GPU route turns at the
 *                  CPU (through host memory, route.c).
 *   ceil(G/s) pcie_switch vertices for s = gpus_per_pcie_switch (default 2:
 *   DGX A100 and DGX-1 pair two GPUs per switch; assumed for the others),
 *   GPUs s*i .. s*i + s - 1 on switch i, each switch to the CPU at pcie_bw;
 *   one cpu vertex: the sockets merged into one root complex (hardware.csv has
 *   no socket-interconnect figure);
 *   NICs: NIC j on switch floor(j * nsw / N), NIC-switch link at pcie_bw;
 *   nvme (when nvme > 0): one vertex on the CPU at nvme_bw (pcie_bw when the
 *   node file leaves nvme_bw at 0, assumed).
 * Efficiencies: scale-up links get intra_efficiency, PCIe links of a pcie node
 * too (its scale-up fabric is PCIe); other PCIe links 1 (NCCL's per-NIC
 * figure already includes the GPUDirect path); NIC and fabric links
 * nic_efficiency. Latencies: the fabric's switch_latency on NIC and fabric
 * links, 0 inside a node (NCCL's step latencies cover them).
 */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const vkind_names[TOPO_V_KIND_COUNT] = {
        "gpu", "nvswitch", "pcie_switch", "cpu", "nic", "nvme", "leaf", "spine", "core",
        "supercore"};
static const char *const lkind_names[TOPO_L_KIND_COUNT] = {
        "nvlink", "nvswitch", "pcie", "ib", "roce", "ethernet", "c2c", "efa"};

const char *topo_vkind_name(topo_vkind k)
{
	return (unsigned)k < TOPO_V_KIND_COUNT ? vkind_names[k] : "?";
}

const char *topo_lkind_name(topo_lkind k)
{
	return (unsigned)k < TOPO_L_KIND_COUNT ? lkind_names[k] : "?";
}

int topo_add_vertex(topo_graph *g, topo_vkind kind, int node, int index)
{
	if (g->nv == g->cap_v) {
		int cap = g->cap_v ? 2 * g->cap_v : 64;
		topo_vertex *p = realloc(g->v, (size_t)cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		g->v = p;
		g->cap_v = cap;
	}
	g->v[g->nv] = (topo_vertex){kind, node, index};
	return g->nv++;
}

int topo_add_pair(topo_graph *g, int a, int b, topo_lkind kind, double Bps, double eff,
                  double lat_s, int lanes)
{
	if (g->nl + 2 > g->cap_l) {
		int cap = g->cap_l ? 2 * g->cap_l : 128;
		topo_link *p = realloc(g->l, (size_t)cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		g->l = p;
		g->cap_l = cap;
	}
	g->l[g->nl++] = (topo_link){a, b, kind, lanes, Bps, eff, lat_s};
	g->l[g->nl++] = (topo_link){b, a, kind, lanes, Bps, eff, lat_s};
	return SIM_OK;
}

/* DGX-1 V100 bricks between GPU i < j (see the header comment); 0 = none. */
static int dgx1_bricks(int i, int j)
{
	static const int nv[8][8] = {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0},
	                             {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
	                             {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
	                             {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};
	return nv[i][j];
}

static int add_scaleup(topo_graph *g, int node, const int *gpu)
{
	const net_node *nd = &g->cl.node;
	int G = nd->gpus, rc = SIM_OK;
	if (nd->intra == NET_INTRA_NVSWITCH) {
		int sw = topo_add_vertex(g, TOPO_V_NVSWITCH, node, 0);
		if (sw < 0)
			return sw;
		for (int i = 0; i < G && rc == SIM_OK; i++)
			rc = topo_add_pair(g, gpu[i], sw, TOPO_L_NVSWITCH, nd->intra_Bps,
			                   nd->intra_eff, 0, 1);
		return rc;
	}
	if (nd->intra != NET_INTRA_NVLINK_MESH)
		return SIM_OK;
	for (int i = 0; i < G; i++)
		for (int j = i + 1; j < G && rc == SIM_OK; j++) {
			int lanes = G == 8 ? dgx1_bricks(i, j) : 2;
			double bw = G == 8 ? lanes * nd->intra_Bps / 6 : nd->intra_Bps / (G - 1);
			if (lanes > 0)
				rc = topo_add_pair(g, gpu[i], gpu[j], TOPO_L_NVLINK, bw,
				                   nd->intra_eff, 0, lanes);
		}
	return rc;
}

/* PCIe tree, CPU, NICs and NVMe of one node. */
static int add_host(topo_graph *g, int node, const int *gpu)
{
	const net_node *nd = &g->cl.node;
	int G = nd->gpus, per = nd->gpus_per_switch > 0 ? nd->gpus_per_switch : 2;
	int nsw = (G + per - 1) / per, rc = SIM_OK;
	bool pcie_node = nd->intra == NET_INTRA_PCIE;
	double gpu_bw = pcie_node ? nd->intra_Bps : nd->pcie_Bps;
	double eff = pcie_node ? nd->intra_eff : 1;
	int cpu = topo_add_vertex(g, TOPO_V_CPU, node, 0);
	if (cpu < 0)
		return cpu;
	g->cpu[node] = cpu;
	int sw0 = g->nv;
	for (int s = 0; s < nsw; s++) {
		int sw = topo_add_vertex(g, TOPO_V_PCIE_SWITCH, node, s);
		if (sw < 0)
			return sw;
		rc = topo_add_pair(g, sw, cpu, TOPO_L_PCIE, nd->pcie_Bps, eff, 0, 1);
		if (rc != SIM_OK)
			return rc;
	}
	for (int i = 0; i < G && rc == SIM_OK; i++)
		rc = topo_add_pair(g, gpu[i], sw0 + i / per, TOPO_L_PCIE, gpu_bw, eff, 0, 1);
	for (int j = 0; j < nd->nics && rc == SIM_OK; j++) {
		int nic = topo_add_vertex(g, TOPO_V_NIC, node, j);
		if (nic < 0)
			return nic;
		g->nic[(size_t)node * nd->nics + j] = nic;
		rc = topo_add_pair(g, nic, sw0 + j * nsw / nd->nics, TOPO_L_PCIE, nd->pcie_Bps, 1,
		                   0, 1);
	}
	if (rc == SIM_OK && nd->nvme_bytes > 0) {
		int nv = topo_add_vertex(g, TOPO_V_NVME, node, 0);
		if (nv < 0)
			return nv;
		rc = topo_add_pair(g, nv, cpu, TOPO_L_PCIE,
		                   nd->nvme_Bps > 0 ? nd->nvme_Bps : nd->pcie_Bps, 1, 0, 1);
	}
	return rc;
}

static int add_node(topo_graph *g, int node)
{
	int G = g->cl.node.gpus;
	int *gpu = g->gpu + (size_t)node * G;
	for (int i = 0; i < G; i++) {
		gpu[i] = topo_add_vertex(g, TOPO_V_GPU, node, i);
		if (gpu[i] < 0)
			return gpu[i];
	}
	int rc = add_scaleup(g, node, gpu);
	return rc == SIM_OK ? add_host(g, node, gpu) : rc;
}

static int csr(int nv, int nl, const topo_link *l, bool by_src, int **off_out, int **idx_out)
{
	int *off = calloc((size_t)nv + 1, sizeof *off),
	    *idx = malloc(((size_t)nl + 1) * sizeof *idx);
	if (!off || !idx) {
		free(off);
		free(idx);
		return SIM_ENOMEM;
	}
	for (int i = 0; i < nl; i++)
		off[(by_src ? l[i].src : l[i].dst) + 1]++;
	for (int u = 0; u < nv; u++)
		off[u + 1] += off[u];
	int *fill = calloc((size_t)nv, sizeof *fill);
	if (!fill) {
		free(off);
		free(idx);
		return SIM_ENOMEM;
	}
	for (int i = 0; i < nl; i++) {
		int u = by_src ? l[i].src : l[i].dst;
		idx[off[u] + fill[u]++] = i;
	}
	free(fill);
	*off_out = off;
	*idx_out = idx;
	return SIM_OK;
}

int topo_index(topo_graph *g)
{
	int rc = csr(g->nv, g->nl, g->l, true, &g->out_off, &g->out);
	return rc == SIM_OK ? csr(g->nv, g->nl, g->l, false, &g->in_off, &g->in) : rc;
}

/* g->dkey (topo_int.h). On a fat tree whose leaves take whole nodes this is
 * the NIC's global index node * nics + j; on a rail-optimized fabric a rail
 * leaf's NICs (one per node of the unit) are consecutive, so flows into one
 * rail spread over all of the leaf's uplinks instead of every nics-th. */
static int number_nics(topo_graph *g)
{
	g->dkey = malloc(((size_t)g->nv + 1) * sizeof *g->dkey);
	if (!g->dkey)
		return SIM_ENOMEM;
	for (int v = 0; v < g->nv; v++)
		g->dkey[v] = -1;
	int next = 0;
	for (int v = 0; v < g->nv; v++) {
		if (g->v[v].kind != TOPO_V_LEAF)
			continue;
		for (int e = g->out_off[v]; e < g->out_off[v + 1]; e++) {
			int x = g->l[g->out[e]].dst;
			if (g->v[x].kind == TOPO_V_NIC && g->dkey[x] < 0)
				g->dkey[x] = next++;
		}
	}
	return SIM_OK;
}

/* The link class of link l (topo_link_class): scale-up (NVLink, NVSwitch,
 * C2C, and a PCIe node's GPU links), PCIe, NIC (a link touching a NIC) or
 * fabric. */
static net_link_kind link_class_of(const topo_graph *g, int l)
{
	const topo_link *k = &g->l[l];
	topo_vkind a = g->v[k->src].kind, b = g->v[k->dst].kind;
	switch (k->kind) {
	case TOPO_L_NVLINK:
	case TOPO_L_NVSWITCH:
	case TOPO_L_C2C:
		return NET_LINK_SCALEUP;
	case TOPO_L_PCIE:
		return g->cl.node.intra == NET_INTRA_PCIE && (a == TOPO_V_GPU || b == TOPO_V_GPU)
		               ? NET_LINK_SCALEUP
		               : NET_LINK_PCIE;
	default:
		return a == TOPO_V_NIC || b == TOPO_V_NIC ? NET_LINK_NIC : NET_LINK_FABRIC;
	}
}

static int link_tables(topo_graph *g)
{
	g->cap = malloc(((size_t)g->nl + 1) * sizeof *g->cap);
	g->lclass = malloc((size_t)g->nl + 1);
	if (!g->cap || !g->lclass)
		return SIM_ENOMEM;
	for (int l = 0; l < g->nl; l++) {
		g->cap[l] = g->l[l].Bps * g->l[l].eff;
		g->lclass[l] = (uint8_t)link_class_of(g, l);
	}
	return SIM_OK;
}

int topo_build(const net_cluster *c, topo_graph **out)
{
	*out = NULL;
	if (!c || c->nodes < 1 || c->node.gpus < 1 || c->node.nics < 0 ||
	    (c->nodes > 1 && (c->node.nics < 1 || !(c->node.nic_Bps > 0))) ||
	    (int64_t)c->nodes * c->node.gpus > INT32_MAX / 64)
		return SIM_EINVAL;
	topo_graph *g = calloc(1, sizeof *g);
	if (!g)
		return SIM_ENOMEM;
	g->cl = *c;
	g->gpus_per_node = c->node.gpus;
	g->nics_per_node = c->node.nics;
	g->gpu = malloc((size_t)c->nodes * c->node.gpus * sizeof *g->gpu);
	g->nic = malloc(((size_t)c->nodes * c->node.nics + 1) * sizeof *g->nic);
	g->cpu = malloc((size_t)c->nodes * sizeof *g->cpu);
	int rc = g->gpu && g->nic && g->cpu ? SIM_OK : SIM_ENOMEM;
	for (int n = 0; n < c->nodes && rc == SIM_OK; n++)
		rc = add_node(g, n);
	if (rc == SIM_OK)
		rc = topo_build_fabric(g);
	if (rc == SIM_OK)
		rc = topo_index(g);
	for (int v = 0; v < g->nv && rc == SIM_OK; v++)
		g->nspines += g->v[v].kind == TOPO_V_SPINE;
	if (c->fabric == NET_FABRIC_RAIL_ONLY && c->node.nics > 0)
		g->nspines /= c->node.nics; /* per rail: d-mod-k stays within one */
	if (rc == SIM_OK)
		rc = number_nics(g);
	if (rc == SIM_OK)
		rc = link_tables(g);
	if (rc == SIM_OK)
		rc = topo_router_new(g, &g->rt);
	if (rc == SIM_OK)
		rc = topo_memo_new(&g->memo);
	if (rc != SIM_OK) {
		topo_free(g);
		return rc;
	}
	*out = g;
	return SIM_OK;
}

void topo_free(topo_graph *g)
{
	if (!g)
		return;
	free(g->v);
	free(g->l);
	free(g->out_off);
	free(g->out);
	free(g->in_off);
	free(g->in);
	free(g->gpu);
	free(g->nic);
	free(g->dkey);
	free(g->cap);
	free(g->lclass);
	free(g->cpu);
	topo_router_free(g->rt);
	topo_memo_free(g->memo);
	free(g);
}

const net_cluster *topo_cluster(const topo_graph *g)
{
	return &g->cl;
}

int topo_nvertices(const topo_graph *g)
{
	return g->nv;
}

int topo_nlinks(const topo_graph *g)
{
	return g->nl;
}

const topo_vertex *topo_vertex_at(const topo_graph *g, int v)
{
	return v >= 0 && v < g->nv ? &g->v[v] : NULL;
}

const topo_link *topo_link_at(const topo_graph *g, int l)
{
	return l >= 0 && l < g->nl ? &g->l[l] : NULL;
}

void topo_vertex_name(const topo_graph *g, int v, char *buf, size_t len)
{
	const topo_vertex *x = topo_vertex_at(g, v);
	if (!x)
		snprintf(buf, len, "?");
	else if (x->node >= 0)
		snprintf(buf, len, "n%d/%s%d", x->node,
		         x->kind == TOPO_V_PCIE_SWITCH ? "pcie" : topo_vkind_name(x->kind),
		         x->index);
	else
		snprintf(buf, len, "%s%d", topo_vkind_name(x->kind), x->index);
}

int topo_gpu(const topo_graph *g, int rank)
{
	return rank >= 0 && rank < g->cl.nodes * g->gpus_per_node ? g->gpu[rank] : -1;
}

int topo_nic(const topo_graph *g, int node, int j)
{
	return node >= 0 && node < g->cl.nodes && j >= 0 && j < g->nics_per_node
	               ? g->nic[(size_t)node * g->nics_per_node + j]
	               : -1;
}

int topo_gpu_nic(const topo_graph *g, int local_gpu)
{
	if (g->nics_per_node < 1)
		return -1;
	return (int)((int64_t)local_gpu * g->nics_per_node / g->gpus_per_node);
}

double topo_link_cap(const topo_graph *g, int l)
{
	return g->cap[l];
}
