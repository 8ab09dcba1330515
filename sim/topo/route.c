/* route.c - shortest-path routing with deterministic ECMP (topo.h).
 *
 * A breadth-first search from the destination over the in-links gives every
 * vertex its hop distance to dst; a vertex may only be passed through when it
 * forwards traffic (topo_transit: switches and the CPU root complex), so the
 * search expands a vertex's in-links only when it is dst or a transit vertex.
 * The route then walks from src: at vertex u with distance d, the candidate
 * next hops are the out-links to vertices at distance d - 1 that may be
 * entered (dst itself or a transit vertex); with c candidates, candidate
 * hash(src, dst, u) mod c is taken. The hash makes the choice deterministic
 * per flow and independent from switch to switch, like ECMP hashing on a
 * flow's header. Cost: one BFS, O(V + E), per route.
 *
 * Between two GPUs of a node the route uses only scale-up links (NVLink,
 * NVSwitch) when they connect the pair, since NCCL uses NVLink P2P when it
 * can; on an NVLink mesh a pair without a direct link goes through the GPU
 * linked to both with the most bricks on its narrower side (NCCL's NVB path
 * through an intermediate GPU, enabled by default; NCCL_NVB_DISABLE in
 * NCCL's environment-variable documentation); otherwise (PCIe nodes) the
 * whole node. Without that rule GPUs that share a PCIe switch would find a
 * two-hop PCIe route as short as the NVSwitch one.
 */
#include "topo_int.h"

#include <stdlib.h>

/* dist[u] = hops from u to dst, -1 when unreachable. */
static int bfs_to(const topo_graph *g, int dst, unsigned mask, int *dist, int *queue)
{
	for (int u = 0; u < g->nv; u++)
		dist[u] = -1;
	int head = 0, tail = 0;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		int w = queue[head++];
		if (w != dst && !topo_transit(g->v[w].kind))
			continue;
		for (int i = g->in_off[w]; i < g->in_off[w + 1]; i++) {
			int u = g->l[g->in[i]].src;
			if (dist[u] < 0 && (mask >> g->l[g->in[i]].kind & 1u)) {
				dist[u] = dist[w] + 1;
				queue[tail++] = u;
			}
		}
	}
	return SIM_OK;
}

static uint64_t ecmp_hash(int src, int dst, int at)
{
	int32_t key[3] = {src, dst, at};
	/* FNV-1a's low bits mix poorly for nearby keys; murmur3's finaliser
	 * spreads them before the modulo. */
	uint64_t h = sim_hash64(key, sizeof key);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* Which of the nc equal-cost next hops at vertex `at` a flow takes.
 * InfiniBand fabrics are routed by the subnet manager, whose fat-tree engine
 * (OpenSM ftree) is destination-based (d-mod-k): with d the global index of
 * the destination NIC, a leaf sends it up on uplink u = d mod U (U uplinks;
 * uplink u goes to spine u mod S, fabric.c), and the spine sends it down on
 * the link of the same column u, i.e. its (u div S)-th parallel link to the
 * destination leaf. Flows into NICs with consecutive indices (one node's
 * NICs, a ring's next hops) then use distinct uplinks and downlinks. RoCE
 * and Ethernet switches hash each flow's header onto a port (ECMP), which
 * can put several flows on one uplink while another idles. */
static int choose(const topo_graph *g, int src, int dst, int at, int nc, int prev_nc)
{
	const topo_vertex *d = &g->v[dst];
	if (g->cl.node.nic_kind != NET_NIC_IB || d->kind != TOPO_V_NIC)
		return (int)(ecmp_hash(src, dst, at) % (uint64_t)nc);
	int64_t key = (int64_t)d->node * g->nics_per_node + d->index;
	if (g->v[at].kind != TOPO_V_SPINE || prev_nc < 2)
		return (int)(key % nc);
	int S = 0;
	for (int v = 0; v < g->nv; v++)
		S += g->v[v].kind == TOPO_V_SPINE;
	return (int)((key % prev_nc) / (S > 0 ? S : 1) % nc);
}

static int walk(const topo_graph *g, int src, int dst, unsigned mask, const int *dist, int *path,
                int max)
{
	int u = src, hops = 0, prev_nc = 0;
	while (u != dst) {
		int cand[64], nc = 0;
		for (int i = g->out_off[u]; i < g->out_off[u + 1]; i++) {
			const topo_link *l = &g->l[g->out[i]];
			if (dist[l->dst] == dist[u] - 1 && (mask >> l->kind & 1u) &&
			    (l->dst == dst || topo_transit(g->v[l->dst].kind)) && nc < 64)
				cand[nc++] = g->out[i];
		}
		if (nc == 0)
			return SIM_ENOTFOUND;
		if (hops == max)
			return SIM_ERANGE;
		int pick = cand[choose(g, src, dst, u, nc, prev_nc)];
		prev_nc = nc;
		path[hops++] = pick;
		u = g->l[pick].dst;
	}
	return hops;
}

/* Route over the links whose kind is in mask (bit per topo_lkind). */
static int route_mask(const topo_graph *g, int src, int dst, unsigned mask, int *path, int max)
{
	if (src < 0 || src >= g->nv || dst < 0 || dst >= g->nv)
		return SIM_EINVAL;
	if (src == dst)
		return 0;
	int *dist = malloc(2 * (size_t)g->nv * sizeof *dist);
	if (!dist)
		return SIM_ENOMEM;
	bfs_to(g, dst, mask, dist, dist + g->nv);
	int rc = dist[src] < 0 ? SIM_ENOTFOUND : walk(g, src, dst, mask, dist, path, max);
	free(dist);
	return rc;
}

int topo_route(const topo_graph *g, int src, int dst, int *path, int max)
{
	return route_mask(g, src, dst, ~0u, path, max);
}

/* Append the route a -> b to path[*n..max). */
static int append(const topo_graph *g, int a, int b, int *path, int *n, int max)
{
	int rc = topo_route(g, a, b, path + *n, max - *n);
	if (rc < 0)
		return rc;
	*n += rc;
	return SIM_OK;
}

int topo_nvlink(const topo_graph *g, int va, int vb)
{
	for (int e = g->out_off[va]; e < g->out_off[va + 1]; e++) {
		const topo_link *l = &g->l[g->out[e]];
		if (l->kind == TOPO_L_NVLINK && l->dst == vb)
			return g->out[e];
	}
	return -1;
}

int topo_nvb_via(const topo_graph *g, int va, int vb)
{
	int best = -1, best_lanes = 0, node = g->v[va].node, G = g->gpus_per_node;
	for (int i = 0; i < G; i++) {
		int w = g->gpu[(size_t)node * G + i];
		int x = w == va || w == vb ? -1 : topo_nvlink(g, va, w);
		int y = x < 0 ? -1 : topo_nvlink(g, w, vb);
		if (y < 0)
			continue;
		int lanes = g->l[x].lanes < g->l[y].lanes ? g->l[x].lanes : g->l[y].lanes;
		if (lanes > best_lanes) {
			best = w;
			best_lanes = lanes;
		}
	}
	return best;
}

int topo_route_gpus(const topo_graph *g, int a, int b, int nic_a, int nic_b, int *path, int max)
{
	int va = topo_gpu(g, a), vb = topo_gpu(g, b);
	if (va < 0 || vb < 0)
		return SIM_EINVAL;
	int G = g->gpus_per_node, na = a / G, nb = b / G;
	if (na == nb && g->cl.node.intra == NET_INTRA_PCIE && !g->cl.node.pcie_p2p) {
		/* No P2P: the sender copies into host memory, the receiver out of
		 * it (NCCL's SHM transport), so the route turns at the CPU. */
		int n = 0, rc = append(g, va, g->cpu[na], path, &n, max);
		if (rc == SIM_OK)
			rc = append(g, g->cpu[na], vb, path, &n, max);
		return rc == SIM_OK ? n : rc;
	}
	if (na == nb) {
		/* Scale-up links first, as NCCL uses NVLink P2P where it can. */
		unsigned up = 1u << TOPO_L_NVLINK | 1u << TOPO_L_NVSWITCH;
		int h = route_mask(g, va, vb, up, path, max);
		if (h != SIM_ENOTFOUND)
			return h;
		/* An NVLink mesh pair without a direct link: through the GPU
		 * linked to both (NCCL's NVB paths, on unless NCCL_NVB_DISABLE). */
		int w = topo_nvb_via(g, va, vb);
		if (w >= 0 && max >= 2) {
			path[0] = topo_nvlink(g, va, w);
			path[1] = topo_nvlink(g, w, vb);
			return 2;
		}
		return topo_route(g, va, vb, path, max);
	}
	if (nic_a < 0)
		nic_a = topo_gpu_nic(g, a % G);
	if (nic_b < 0)
		nic_b = topo_gpu_nic(g, b % G);
	int xa = topo_nic(g, na, nic_a), xb = topo_nic(g, nb, nic_b);
	if (xa < 0 || xb < 0)
		return SIM_ENOTFOUND;
	int n = 0, rc = append(g, va, xa, path, &n, max);
	if (rc == SIM_OK)
		rc = append(g, xa, xb, path, &n, max);
	if (rc == SIM_OK)
		rc = append(g, xb, vb, path, &n, max);
	return rc == SIM_OK ? n : rc;
}
