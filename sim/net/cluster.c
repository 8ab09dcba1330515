/* cluster.c - the [node] and [cluster] sections, communication-group geometry
 * and the cluster's link classes (net.h).
 *
 * Units after reading, all SI: bytes, bytes/s (per direction), seconds, W.
 * A node is `gpus` GPUs on one scale-up fabric with `nics` compute NICs; the
 * cluster is `nodes` such nodes on a fat tree (or rail-optimised fat tree,
 * rail-only rails, a torus, or one switch). Invariant after net_cluster_from_conf: gpus = nodes * node.gpus
 * fits an int.
 *
 * Group geometry: global ranks fill nodes in order (ranks 0..G-1 on node 0, ...),
 * so a group r, r+stride, ..., r+(size-1)*stride puts rank i on node
 * floor(i*stride / G). net_group_make walks the group from r = 0 (the groups of
 * a plan are translates of this one) and counts the nodes it touches and the
 * most ranks it puts on one of them: tp = 8 with stride 1 on 8-GPU nodes is
 * {8, 8, 1}; the matching dp group with stride 8 is {dp, 1, dp}.
 *
 * Called by plan (scenario loading, group sizes), exec (link classes) and valid.
 */
#include "net.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 1e300 /* no upper bound */

static const char *const intra_names[] = {"nvswitch", "nvlink-mesh", "pcie", NULL};
static const char *const nic_names[] = {"ib", "roce", "ethernet", "efa", NULL};
static const char *const ec2_names[] = {"none", "p5", "p5e", "p5en", "p6-b200", NULL};
static const char *const fabric_names[] = {"fat-tree", "rail-optimized", "single-switch",
					     "torus-2d", "torus-3d", "efa", "rail-only",
					     NULL};
static const char *const model_names[] = {"alpha-beta", "flow", "auto", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree", "hier", "nvls", "nvlstree",
					 "pat", "collnetdirect", "collnetchain", NULL};
/* nccl_proto's values: auto, then net_proto's order (stored as net_proto + 1). */
static const char *const proto_names[] = {"auto", "ll", "ll128", "simple", NULL};

const char *net_algo_name(net_algo a)
{
	return (unsigned)a < NET_ALGO_COUNT ? algo_names[a] : "?";
}

#define QTY(key, unit, lo, def, field, help) \
	{key, CONF_QTY, unit, lo, BIG, def, NULL, offsetof(net_node, field), help}
#define FRACTION(key, field, help) \
	{key, CONF_REAL, SIM_UNIT_NONE, 0.01, 1, NULL, NULL, offsetof(net_node, field), help}

const conf_key net_node_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(net_node, name),
	 "node type, e.g. dgx-a100-80g"},
	{"source", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(net_node, source),
	 "where the numbers come from"},
	{"gpus", CONF_INT, SIM_UNIT_NONE, 1, 1024, NULL, NULL, offsetof(net_node, gpus),
	 "GPUs per node"},
	{"intra", CONF_ENUM, SIM_UNIT_NONE, 0, 0, NULL, intra_names, offsetof(net_node, intra),
	 "scale-up fabric between the GPUs of a node"},
	QTY("intra_bw", SIM_UNIT_BANDWIDTH, 1, NULL, intra_Bps,
	    "scale-up bandwidth per GPU per direction"),
	FRACTION("intra_efficiency", intra_eff, "fraction of intra_bw NCCL reaches (busbw)"),
	{"nics", CONF_INT, SIM_UNIT_NONE, 0, 1024, NULL, NULL, offsetof(net_node, nics),
	 "compute NICs per node"},
	QTY("nic_bw", SIM_UNIT_BANDWIDTH, 0, NULL, nic_Bps, "line rate of one NIC per direction"),
	FRACTION("nic_efficiency", nic_eff, "fraction of nic_bw NCCL reaches per NIC"),
	{"nic_kind", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "ib", nic_names,
	 offsetof(net_node, nic_kind), "compute NIC technology (names link classes; efa: AWS "
	 "EFA rails)"},
	{"ec2_instance", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", ec2_names,
	 offsetof(net_node, ec2),
	 "AWS instance type (p5, p5e, p5en, p6-b200): on fabric = efa, the aws-ofi-nccl tuner's "
	 "region tables; none = NCCL's own tuner"},
	QTY("pcie_bw", SIM_UNIT_BANDWIDTH, 1, NULL, pcie_Bps, "GPU <-> host per direction"),
	/* hardware.csv pcie,PCIe Gen4 x16 measured,a100_h2d_sm_copy: 25.13 of 31.5 GB/s */
	{"pcie_efficiency", CONF_REAL, SIM_UNIT_NONE, 0.01, 1, "0.8", NULL,
	 offsetof(net_node, pcie_eff), "fraction of pcie_bw a host copy reaches"},
	{"gpus_per_pcie_switch", CONF_INT, SIM_UNIT_NONE, 1, 1024, "2", NULL,
	 offsetof(net_node, gpus_per_switch),
	 "GPUs behind each PCIe switch (its uplink to the CPU is pcie_bw; 1 = every GPU on a "
	 "root port)"},
	{"pcie_p2p", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, offsetof(net_node, pcie_p2p),
	 "intra = pcie: GPUs exchange data directly over PCIe (P2P); false = through host "
	 "memory, as GeForce cards"},
	QTY("host_memory", SIM_UNIT_BYTES, 0, NULL, host_mem_bytes, "host DRAM per node"),
	QTY("nvme", SIM_UNIT_BYTES, 0, "0 B", nvme_bytes, "local NVMe capacity per node"),
	QTY("nvme_bw", SIM_UNIT_BANDWIDTH, 0, "0 B/s", nvme_Bps, "local NVMe read bandwidth"),
	QTY("host_mem_bw", SIM_UNIT_BANDWIDTH, 0, "0 B/s", host_mem_Bps,
	    "host DRAM bandwidth of the node (all sockets; 0 = unknown)"),
	{"host_mem_efficiency", CONF_REAL, SIM_UNIT_NONE, 0.01, 1, "0.5", NULL,
	 offsetof(net_node, host_mem_eff),
	 "fraction of host_mem_bw a CPU optimizer step reaches (assumed 0.5)"},
	QTY("power", SIM_UNIT_POWER, 0, "0 W", power_w, "node power besides the GPUs"),
	QTY("nvls_busbw", SIM_UNIT_BANDWIDTH, 0, "0 B/s", nvls_busbw_Bps,
	    "NVLink SHARP all-reduce bus bandwidth inside a node (0 = no NVLS)"),
	QTY("coll_overhead", SIM_UNIT_TIME, 0, "0 us", coll_overhead_s,
	    "fixed cost per collective beyond NCCL's latency model (calibrated)"),
	QTY("ring_local_bw", SIM_UNIT_BANDWIDTH, 0, "0 B/s", ring_local_Bps,
	    "rate of the ring's one local step per loop inside an NVLink node, all channels "
	    "(NCCL P2P read: the send into the GPU's own buffer; 0 = none, calibrated)"),
};
const size_t net_node_nkeys = sizeof net_node_keys / sizeof net_node_keys[0];

const conf_key net_cluster_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(net_cluster, name),
	 "cluster name"},
	{"nodes", CONF_INT, SIM_UNIT_NONE, 1, 1000000, NULL, NULL, offsetof(net_cluster, nodes),
	 "number of nodes"},
	{"fabric", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fat-tree", fabric_names,
	 offsetof(net_cluster, fabric),
	 "scale-out topology (efa: a fat tree reached through aws-ofi-nccl, the EFA model; "
	 "rail-only: NIC j of every node on rail j's switches, no spine between rails)"},
	{"oversubscription", CONF_REAL, SIM_UNIT_NONE, 1, 1000, "1", NULL,
	 offsetof(net_cluster, oversubscription), "fabric taper (1 = non-blocking)"},
	{"switch_latency", CONF_QTY, SIM_UNIT_TIME, 0, 1e-3, "130 ns", NULL,
	 offsetof(net_cluster, switch_lat_s), "latency per switch hop"},
	/* Default 0.423 kg/kWh: the intensity implied by the Llama 2 paper
	 * (Touvron et al. 2023, table 2: 31.22 t CO2e for 184,320 A100 GPU-hours
	 * at 400 W = 73.7 MWh), close to the 2022 US grid average. */
	{"gpu_hour_price", CONF_REAL, SIM_UNIT_NONE, 0, 1e6, "0", NULL,
	 offsetof(net_cluster, gpu_hour_usd), "USD per GPU-hour (0 = unknown; podsim sweep)"},
	{"grid_intensity", CONF_REAL, SIM_UNIT_NONE, 0, 10, "0.423", NULL,
	 offsetof(net_cluster, grid_kg_per_kwh), "kg CO2e per kWh of the grid (energy lines)"},
	{"pue", CONF_REAL, SIM_UNIT_NONE, 1, 10, "1", NULL, offsetof(net_cluster, pue),
	 "data-centre power usage effectiveness: facility power / IT power (energy lines)"},
	{"gpu_power", CONF_QTY, SIM_UNIT_POWER, 0, 1e5, "0 W", NULL,
	 offsetof(net_cluster, gpu_power_w),
	 "measured average board power per GPU for the energy lines (0 W = the GPU's TDP)"},
	{"network", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", model_names,
	 offsetof(net_cluster, network),
	 "collective cost model: alpha-beta, flow (link graph) or auto (flow up to 512 nodes)"},
	{"nccl_algo", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", algo_names,
	 offsetof(net_cluster, algo),
	 "NCCL algorithm, as NCCL_ALGO: auto (lowest predicted time), ring, tree, hier, nvls, "
	 "nvlstree, pat (all-gather, reduce-scatter at 1 rank per node), collnetdirect or "
	 "collnetchain (across nodes with sharp); used where it applies"},
	{"sharp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, offsetof(net_cluster, sharp),
	 "SHARP in-network reduction: NCCL_COLLNET_ENABLE=1 with the SHARP plugin on a "
	 "SHARP-capable InfiniBand fabric (CollNetDirect, CollNetChain, NVLS across nodes)"},
	{"nccl_proto", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", proto_names,
	 offsetof(net_cluster, proto),
	 "NCCL protocol, as NCCL_PROTO: auto, ll, ll128 (NVLink nodes only) or simple"},
	/* The calibrated fabric (net.h; coll.c "The EFA model", which any fabric
	 * takes when podsim calibrate --fabric fits it to its own collectives);
	 * by default 0 and 1: NCCL's own model alone (calib_keys). */
	{"net_latency", CONF_QTY, SIM_UNIT_TIME, 0, 1e-2, "0 us", NULL,
	 offsetof(net_cluster, net_lat_s),
	 "calibrated fabric: network latency per inter-node step (twice with Simple), as NCCL "
	 "adds the net plugin's latency"},
	{"msg_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 1e-2, "0 us", NULL,
	 offsetof(net_cluster, msg_overhead_s),
	 "calibrated fabric: cost of the network message of each step of a collective across "
	 "nodes"},
	{"rail_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 0, BIG, "0 B/s", NULL,
	 offsetof(net_cluster, rail_Bps),
	 "calibrated fabric: achievable bandwidth of one NIC (on EFA one rail) per direction (0 = "
	 "the node's nic_bw x nic_efficiency)"},
	{"congestion", CONF_REAL, SIM_UNIT_NONE, 0, 100, "0", NULL,
	 offsetof(net_cluster, congestion),
	 "calibrated fabric: median slowdown of the network across m nodes, 1 + congestion x "
	 "(m-1)^congestion_exp"},
	{"congestion_exp", CONF_REAL, SIM_UNIT_NONE, 0, 4, "1", NULL,
	 offsetof(net_cluster, congestion_exp),
	 "calibrated fabric: exponent of the congestion law and of the sync delay's growth"},
	{"sync_delay", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL, offsetof(net_cluster, sync_s),
	 "calibrated fabric: per-call wait for the slowest node of a collective across m nodes, "
	 "sync_delay x (m-1)^congestion_exp"},
	{"fit_weak", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(net_cluster, fit_weak),
	 "calibrated fabric: the fitted keys the calibration's rows leave weakly determined "
	 "(written by podsim calibrate --fabric; explain names them)"},
	{"spread", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(net_cluster, spread_text),
	 "calibrated fabric: measured spread per node count, NODES:LO-HI ... (5th and 95th "
	 "percentile time over the median)"},
	/* Assumed (the data, one collective at a time, cannot split it): half
	 * of a call's log-slowdown variance is the step's (congestion from
	 * other tenants lasts longer than a step), half its own (spread.c,
	 * exec/spread.c). */
	{"spread_correlation", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0.5", NULL,
	 offsetof(net_cluster, spread_corr),
	 "calibrated fabric: share of a collective's slowdown common to every collective of a "
	 "step (1 = all slow together, 0 = independent calls)"},
	{"other_gpu", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(net_cluster, other_gpu),
	 "a [gpu] file (path from this file, as include) held by the nodes other_nodes lists "
	 "instead of the node's GPU: a cluster of two GPU types"},
	{"other_nodes", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(net_cluster, other_nodes),
	 "node numbers (from 0; ranges A-B) that hold other_gpu, e.g. '3, 17' or '0-3'"},
};
const size_t net_cluster_nkeys = sizeof net_cluster_keys / sizeof net_cluster_keys[0];

static void key_error(const conf_doc *doc, const char *section, const char *key,
		      sim_diag *diag, const char *msg)
{
	conf_loc l = conf_key_loc(doc, section, key);
	sim_diag_error(diag, l.path, l.line, "%s", msg);
}

/* [cluster] spread: "NODES:LO-HI" entries separated by blanks or commas,
 * nodes increasing, 0 < LO <= 1 <= HI <= 100. */
static int parse_spread(const conf_doc *doc, net_cluster *c, sim_diag *diag)
{
	const char *p = c->spread_text;
	c->nspread = 0;
	while (*p) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *start = p;
		char *end;
		long nodes = strtol(p, &end, 10);
		double lo = 0, hi = 0;
		bool ok = end != p && *end == ':';
		if (ok) {
			p = end + 1;
			lo = strtod(p, &end);
			ok = end != p && *end == '-';
		}
		if (ok) {
			p = end + 1;
			hi = strtod(p, &end);
			ok = end != p && (*end == '\0' || *end == ' ' || *end == ',' || *end == '\t');
		}
		int len = (int)strcspn(start, " ,\t");
		char msg[256];
		if (!ok || nodes < 1 || nodes > 1000000 || !(lo > 0 && lo <= 1) || !(hi >= 1 && hi <= 100))
			snprintf(msg, sizeof msg,
				 "[cluster] spread: '%.*s' is not NODES:LO-HI with 0 < LO <= 1 <= HI <= "
				 "100 (the 5th and 95th percentile times over the median)",
				 len, start);
		else if (c->nspread > 0 && nodes <= c->spread[c->nspread - 1].nodes)
			snprintf(msg, sizeof msg, "[cluster] spread: node counts must increase ('%.*s')",
				 len, start);
		else if (c->nspread == NET_SPREAD_MAX)
			snprintf(msg, sizeof msg, "[cluster] spread: more than %d node counts",
				 NET_SPREAD_MAX);
		else {
			c->spread[c->nspread++] = (net_spread){(int)nodes, lo, hi};
			p = end;
			continue;
		}
		key_error(doc, "cluster", "spread", diag, msg);
		return SIM_ECONF;
	}
	return SIM_OK;
}

/* [cluster] fit_weak: names of the fabric calibration's keys (valid/
 * fabric.c), separated by blanks or commas. */
const char *net_efa_fit_key(int k)
{
	static const char *const keys[NET_EFA_FIT_KEYS] = {
		"intra_efficiency", "nvls_busbw", "net_latency",    "msg_overhead",
		"rail_bw",          "congestion", "congestion_exp", "sync_delay"};
	return k >= 0 && k < NET_EFA_FIT_KEYS ? keys[k] : NULL;
}

int net_efa_fit_key_find(const char *name, size_t n)
{
	for (int k = 0; k < NET_EFA_FIT_KEYS; k++)
		if (strlen(net_efa_fit_key(k)) == n && !strncmp(net_efa_fit_key(k), name, n))
			return k;
	return -1;
}

void net_efa_fit_key_list(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int k = 0; k < NET_EFA_FIT_KEYS && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", net_efa_fit_key(k));
}

static int parse_fit_weak(const conf_doc *doc, const net_cluster *c, sim_diag *diag)
{
	const char *p = c->fit_weak;
	while (*p) {
		p += strspn(p, " ,\t");
		size_t n = strcspn(p, " ,\t");
		if (n == 0)
			break;
		if (net_efa_fit_key_find(p, n) < 0) {
			char msg[320], keys[160];
			net_efa_fit_key_list(keys, sizeof keys);
			snprintf(msg, sizeof msg,
				 "[cluster] fit_weak: '%.*s' is not a key the fabric calibration fits "
				 "(%s)",
				 (int)n, p, keys);
			key_error(doc, "cluster", "fit_weak", diag, msg);
			return SIM_ECONF;
		}
		p += n;
	}
	return SIM_OK;
}

/* The calibrated fabric's keys (coll.c "The EFA model": EFA's, and any
 * fabric's that podsim calibrate --fabric fitted to its own collectives):
 * rail_bw within the NIC's line rate, then the node's nic_efficiency. */
static int calib_keys(const conf_doc *doc, net_cluster *c, sim_diag *diag)
{
	int rc = SIM_OK;
	if (c->rail_Bps > 0 && c->rail_Bps > c->node.nic_Bps * (1 + 1e-12)) {
		char msg[200];
		snprintf(msg, sizeof msg,
			 "[cluster] rail_bw = %.4g GB/s exceeds the line rate of one NIC ([node] "
			 "nic_bw = %.4g GB/s)",
			 c->rail_Bps / 1e9, c->node.nic_Bps / 1e9);
		key_error(doc, "cluster", "rail_bw", diag, msg);
		rc = SIM_ECONF;
	} else if (c->rail_Bps > 0) {
		c->node.nic_eff = c->rail_Bps / c->node.nic_Bps;
	}
	if (parse_spread(doc, c, diag) != SIM_OK || parse_fit_weak(doc, c, diag) != SIM_OK)
		rc = SIM_ECONF;
	return rc;
}

/* Rail-only (net.h): rail k is the NIC of every node's GPU k, and a flow
 * between rails crosses the node over NVLink to the GPU on the destination's
 * rail (PXN). So each GPU needs a NIC of its own (nics >= gpus) and the node
 * NVLink to relay over: a PCIe node would send every cross-rail byte through
 * the CPU, a route NCCL's PXN never takes. One node has no fabric. */
static int rail_only_keys(const conf_doc *doc, const net_cluster *c, sim_diag *diag)
{
	if (c->fabric != NET_FABRIC_RAIL_ONLY || c->nodes < 2)
		return SIM_OK;
	const net_node *nd = &c->node;
	char msg[320];
	if (nd->intra == NET_INTRA_PCIE) {
		snprintf(msg, sizeof msg,
			 "[cluster] fabric = rail-only needs NVLink inside the node ([node] intra = "
			 "nvswitch or nvlink-mesh, not pcie): traffic between rails crosses the node "
			 "over NVLink to the GPU on the destination's rail (PXN)");
		key_error(doc, "cluster", "fabric", diag, msg);
		return SIM_ECONF;
	}
	if (nd->nics > 0 && nd->nics < nd->gpus) {
		snprintf(msg, sizeof msg,
			 "[cluster] fabric = rail-only needs a NIC per GPU: [node] nics = %d is fewer "
			 "than the %d rails of gpus = %d (rail k joins GPU k of every node)",
			 nd->nics, nd->gpus, nd->gpus);
		key_error(doc, "node", "nics", diag, msg);
		return SIM_ECONF;
	}
	return SIM_OK;
}

/* sharp (coll.c "SHARP"): in-network reduction is a feature of InfiniBand
 * switches (Quantum QM8700 HDR: SHARPv2, Quantum-2 QM9700 NDR: SHARPv3,
 * Quantum-X800 XDR: SHARPv4: hardware.md section 8b, hardware.csv network,Switch NVIDIA
 * Quantum-2 QM9700/QM9790 (NDR) and Quantum-X800 Q3400 (XDR) rows, notes
 * "SHARPv3", "SHARPv4"; S55, S56)
 * that NCCL reaches through the SHARP CollNet plugin over its IB verbs. EFA
 * has none (NCCL over aws-ofi-nccl: no CollNet, net.h), nor has RoCE or
 * Ethernet (no cited switch that reduces NCCL's traffic), nor a torus of
 * routers without a switch tree. */
static int sharp_keys(const conf_doc *doc, const net_cluster *c, sim_diag *diag)
{
	if (!c->sharp)
		return SIM_OK;
	const char *why = c->fabric == NET_FABRIC_EFA ? "fabric = efa (AWS EFA: no CollNet, no "
							  "in-network reduction)"
			  : c->node.nic_kind == NET_NIC_EFA ? "[node] nic_kind = efa"
			  : c->node.nic_kind == NET_NIC_ROCE ? "[node] nic_kind = roce (no switch that "
							       "reduces NCCL's traffic)"
			  : c->node.nic_kind == NET_NIC_ETHERNET ? "[node] nic_kind = ethernet (no switch "
								   "that reduces NCCL's traffic)"
			  : c->fabric == NET_FABRIC_TORUS2D || c->fabric == NET_FABRIC_TORUS3D
			      ? "a torus (no switch tree to reduce in)"
			      : NULL;
	if (!why)
		return SIM_OK;
	char msg[320];
	snprintf(msg, sizeof msg,
		 "[cluster] sharp = true needs an InfiniBand switch fabric whose switches reduce "
		 "(SHARP), not %s",
		 why);
	key_error(doc, "cluster", "sharp", diag, msg);
	return SIM_ECONF;
}

/* Checks across keys, after both sections read cleanly. */
static int check_cluster(const conf_doc *doc, net_cluster *c, sim_diag *diag)
{
	int rc = calib_keys(doc, c, diag);
	if (rail_only_keys(doc, c, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (sharp_keys(doc, c, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (c->nodes > 1 && (c->node.nics < 1 || c->node.nic_Bps <= 0)) {
		key_error(doc, "node", "nics", diag,
			  "[node] a cluster of more than one node needs nics >= 1 and nic_bw > 0");
		rc = SIM_ECONF;
	}
	int64_t total;
	if (!sim_mul_i64(c->nodes, c->node.gpus, &total) || total > INT_MAX) {
		char msg[160];
		snprintf(msg, sizeof msg, "[cluster] nodes = %d times [node] gpus = %d is too many GPUs",
			 c->nodes, c->node.gpus);
		key_error(doc, "cluster", "nodes", diag, msg);
		return SIM_ECONF;
	}
	c->gpus = (int)total;
	/* the EFA model (aws-ofi-nccl over SRD) on NICs the node calls something
	 * else: legal (a what-if), but most likely a node file of another
	 * cluster under fabric = efa; said, not refused (and not beside an
	 * error, which says enough) */
	if (rc == SIM_OK && c->fabric == NET_FABRIC_EFA && c->node.nic_kind != NET_NIC_EFA &&
	    c->nodes > 1) {
		conf_loc l = conf_key_loc(doc, "cluster", "fabric");
		sim_diag_warning(diag, l.path, l.line,
		                 "[cluster] fabric = efa with [node] nic_kind = %s: the EFA model "
		                 "(aws-ofi-nccl over SRD) runs on these NICs; an AWS node's file "
		                 "sets nic_kind = efa",
		                 nic_names[c->node.nic_kind]);
	}
	return rc;
}

int net_cluster_from_conf(const conf_doc *doc, net_cluster *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rn = conf_read(doc, "node", net_node_keys, net_node_nkeys, &out->node, false, diag);
	int rc = conf_read(doc, "cluster", net_cluster_keys, net_cluster_nkeys, out, false, diag);
	if (rn != SIM_OK || rc != SIM_OK || !conf_has_section(doc, "node") ||
	    !conf_has_section(doc, "cluster"))
		return SIM_ECONF;
	/* the GPU's compute capability for NCCL's tuner (tune.c); hw checks
	 * the key, 0 when absent or unreadable */
	const char *cc = conf_get(doc, "gpu", "compute_capability", NULL);
	if (cc) {
		char *end;
		double v = strtod(cc, &end);
		out->node.cc = end != cc && v > 0 && v < 100 ? v : 0;
	}
	return check_cluster(doc, out, diag);
}

void net_group_make(const net_cluster *c, int size, int stride, net_group *out)
{
	int64_t g = c->node.gpus > 0 ? c->node.gpus : 1;
	int64_t step = stride > 0 ? stride : 1;
	*out = (net_group){size > 0 ? size : 0, 0, 0, (int)step};
	int64_t node = -1, run = 0;
	for (int64_t i = 0; i < out->size; i++) {
		int64_t n = i * step / g;
		if (n != node) {
			node = n;
			run = 0;
			out->nodes++;
		}
		if (++run > out->per_node)
			out->per_node = (int)run;
	}
}

/* ----------------------------------------------------------- link classes -- */

/* Radix by link rate, one switch generation per rate (hardware.csv
 * network,Switch NVIDIA Quantum-2 QM9700/QM9790 (NDR),radix = 64; network,
 * Switch NVIDIA Quantum QM8700/QM8790 (HDR),radix = 40; network,Switch
 * Mellanox SB7800 (EDR),radix = 36); EFA 64 whatever the rail rate (assumed:
 * AWS publishes neither switches nor topology; sim/topo/fabric.c). */
int net_switch_radix(const net_cluster *c)
{
	if (c->fabric == NET_FABRIC_EFA)
		return 64;
	double gbps = c->node.nic_Bps * 8 / 1e9;
	return gbps >= 400 - 1e-6 ? 64 : gbps >= 200 - 1e-6 ? 40 : 36;
}

int net_leaf_down(const net_cluster *c)
{
	double o = c->oversubscription >= 1 ? c->oversubscription : 1;
	int p = (int)floor(net_switch_radix(c) * o / (1 + o));
	return p < 1 ? 1 : p;
}

int net_leaf_nodes(const net_cluster *c)
{
	int p = net_leaf_down(c), n = c->node.nics;
	switch (c->fabric) {
	case NET_FABRIC_RAIL:
	case NET_FABRIC_RAIL_ONLY:
		return p;
	case NET_FABRIC_FAT_TREE:
	case NET_FABRIC_EFA:
		return n >= 1 && n <= p ? p / n : 0;
	default:
		return 0;
	}
}

static void link_set(net_link_class *l, net_link_kind kind, const char *name,
		     const char *kind_name, int64_t count, double Bps)
{
	l->kind = kind;
	snprintf(l->name, sizeof l->name, "%s", name);
	snprintf(l->kind_name, sizeof l->kind_name, "%s", kind_name);
	l->count = count > INT_MAX ? INT_MAX : (int)count;
	l->Bps = Bps;
}

bool net_fabric_uplinks(const net_cluster *c)
{
	/* Rail-only up to a unit of net_leaf_down nodes: one switch per rail,
	 * nothing above it (sim/topo/fabric.c). */
	bool one_tier = c->fabric == NET_FABRIC_SINGLE ||
			(c->fabric == NET_FABRIC_RAIL_ONLY && c->nodes <= net_leaf_down(c));
	return c->nodes > 1 && c->node.nics > 0 && !one_tier;
}

/* Classes, in this order where they exist:
 *   scale-up  every GPU's port into the node fabric ("node0/gpu0 -> nvswitch"),
 *             kind nvlink (NVSwitch, NVLink mesh) or pcie; intra_bw each.
 *   nic       every compute NIC's link to its leaf switch, kind ib/roce/ethernet.
 *   fabric    leaf -> spine uplinks (nodes > 1, not for a single switch). A
 *             fat tree with oversubscription o has nodes*nics/o uplinks of the
 *             NIC rate, so each carries o times a NIC's share of traffic.
 *   pcie      every GPU's host link ("node0/gpu0 -> host"), pcie_bw each.
 */
int net_link_classes(const net_cluster *c, net_link_class out[NET_LINK_KIND_COUNT])
{
	const net_node *nd = &c->node;
	int n = 0;
	int64_t gpus = (int64_t)c->nodes * nd->gpus, nics = (int64_t)c->nodes * nd->nics;
	const char *nic_kind = nic_names[nd->nic_kind <= NET_NIC_EFA ? nd->nic_kind : 0];
	bool pcie = nd->intra == NET_INTRA_PCIE;
	link_set(&out[n++], NET_LINK_SCALEUP,
		 pcie			       ? "node0/gpu0 -> pcie-switch"
		 : nd->intra == NET_INTRA_NVSWITCH ? "node0/gpu0 -> nvswitch"
						   : "node0/gpu0 -> nvlink-mesh",
		 pcie ? "pcie" : "nvlink", gpus, nd->intra_Bps);
	if (nd->nics > 0)
		link_set(&out[n++], NET_LINK_NIC, "node0/nic0 -> leaf0", nic_kind, nics, nd->nic_Bps);
	if (net_fabric_uplinks(c)) {
		double o = c->oversubscription >= 1 ? c->oversubscription : 1;
		int64_t up = (int64_t)((double)nics / o);
		link_set(&out[n++], NET_LINK_FABRIC, "leaf0 -> spine0", nic_kind, up > 0 ? up : 1,
			 nd->nic_Bps);
	}
	link_set(&out[n++], NET_LINK_PCIE, "node0/gpu0 -> host", "pcie", gpus, nd->pcie_Bps);
	return n;
}

static bool node_same(const net_node *a, const net_node *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->source, b->source) && a->gpus == b->gpus &&
	       a->intra == b->intra && a->intra_Bps == b->intra_Bps &&
	       a->intra_eff == b->intra_eff && a->nics == b->nics && a->nic_Bps == b->nic_Bps &&
	       a->nic_eff == b->nic_eff && a->pcie_Bps == b->pcie_Bps &&
	       a->host_mem_bytes == b->host_mem_bytes && a->nvme_bytes == b->nvme_bytes &&
	       a->nvme_Bps == b->nvme_Bps && a->host_mem_Bps == b->host_mem_Bps &&
	       a->host_mem_eff == b->host_mem_eff && a->pcie_eff == b->pcie_eff &&
	       a->power_w == b->power_w && a->nvls_busbw_Bps == b->nvls_busbw_Bps &&
	       a->coll_overhead_s == b->coll_overhead_s && a->ring_local_Bps == b->ring_local_Bps &&
	       a->nic_kind == b->nic_kind && a->ec2 == b->ec2 && a->gpus_per_switch == b->gpus_per_switch &&
	       a->pcie_p2p == b->pcie_p2p && a->cc == b->cc;
}

bool net_cluster_same(const net_cluster *a, const net_cluster *b)
{
	if (!node_same(&a->node, &b->node) || strcmp(a->name, b->name) || a->nodes != b->nodes ||
	    a->fabric != b->fabric || a->oversubscription != b->oversubscription ||
	    a->switch_lat_s != b->switch_lat_s || a->gpus != b->gpus ||
	    a->gpu_hour_usd != b->gpu_hour_usd || a->grid_kg_per_kwh != b->grid_kg_per_kwh ||
	    a->pue != b->pue || a->gpu_power_w != b->gpu_power_w || a->network != b->network ||
	    a->algo != b->algo || a->proto != b->proto || a->sharp != b->sharp ||
	    a->net_lat_s != b->net_lat_s ||
	    a->msg_overhead_s != b->msg_overhead_s || a->rail_Bps != b->rail_Bps ||
	    a->congestion != b->congestion || a->congestion_exp != b->congestion_exp ||
	    a->sync_s != b->sync_s || strcmp(a->spread_text, b->spread_text) ||
	    strcmp(a->fit_weak, b->fit_weak) ||
	    a->nspread != b->nspread || a->spread_corr != b->spread_corr ||
	    strcmp(a->other_gpu, b->other_gpu) || strcmp(a->other_nodes, b->other_nodes))
		return false;
	for (int i = 0; i < a->nspread; i++)
		if (a->spread[i].nodes != b->spread[i].nodes || a->spread[i].lo != b->spread[i].lo ||
		    a->spread[i].hi != b->spread[i].hi)
			return false;
	return true;
}

bool net_uses_flow(const net_cluster *c)
{
	return c->network == NET_MODEL_FLOW ||
	       (c->network == NET_MODEL_AUTO && c->nodes <= NET_FLOW_AUTO_NODES);
}
