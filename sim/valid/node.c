/* node.c - the node a training row runs on: the node template of its GPU and
 * node_intra (a shipped topologies/nodes/ file), the 4-GPU boards, the EFA
 * cluster of its GPU, the NICs a template gives a GPU, and the hardware a
 * row's columns leave open (valid_row_hardware), each default said on the
 * row. runs.c builds the rest of the row's scenario around it. */
#include "valid_int.h"

#include <stdlib.h>
#include <string.h>

/* A column's value as the reader takes it: written loosely, the schema's
 * (valid_loose: "BF16" is bf16, "RoCE" roce-fat-tree). */
static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

const char *valid_node_template(const char *intra, const char *gpu)
{
	if (!strcmp(intra, "nvswitch-gen2"))
		return strstr(gpu, "a800")  ? "hgx-a800"
		       : strstr(gpu, "40g") ? "dgx-a100-40g"
		                            : "dgx-a100-80g";
	if (!strcmp(intra, "nvswitch-gen3"))
		return strstr(gpu, "h800")   ? "hgx-h800"
		       : strstr(gpu, "h200") ? "hgx-h200"
		                             : "dgx-h100";
	/* PCIe boxes of 8 GPUs on two switches: H100 PCIe on Gen5, A100 PCIe on
	 * Gen4 (the row's gpu file sets the GPU) */
	if (!strcmp(intra, "pcie-gen5") && !strcmp(gpu, "h100-pcie"))
		return "pcie-8x-h100";
	if (!strcmp(intra, "pcie-gen4") && strstr(gpu, "a100-pcie"))
		return "pcie-8x-a100";
	/* the consumer cards' box (4 on one Gen4 root each), Alvis's A40 and T4
	 * nodes (topologies/nodes/) */
	if (!strcmp(intra, "pcie-gen4") && strstr(gpu, "rtx-"))
		return "pcie-4x4090";
	if (!strcmp(intra, "pcie-gen4") && !strcmp(gpu, "a40"))
		return "alvis-a40";
	if (!strcmp(intra, "pcie-gen4") && !strcmp(gpu, "l40s"))
		return "pcie-8x-l40s";
	if (!strcmp(intra, "pcie-gen3") && !strcmp(gpu, "t4"))
		return "alvis-t4";
	if (!strcmp(intra, "nvlink-hcm"))
		return "dgx1-v100";
	if (!strcmp(intra, "nvswitch-gen4"))
		return strstr(gpu, "gb200") ? "gb200-nvl72" : "dgx-b200";
	return NULL;
}

/* The 4-GPU baseboard of an 8-GPU node template, for a row of 4 GPUs a
 * node: HGX A100 4-GPU and HGX H100 4-GPU connect their GPUs pairwise by
 * NVLink, without an NVSwitch (so without NVLS), and have a NIC per GPU as
 * the DGX has (topologies/nodes/hgx-*-4gpu*.ini, each assumption there);
 * NULL for templates without such a board (and for gpn other than 4). */
const char *valid_board4(const char *tmpl, long gpn)
{
	if (gpn != 4 || !tmpl)
		return NULL;
	return !strcmp(tmpl, "dgx-a100-40g")   ? "hgx-a100-4gpu-40g"
	       : !strcmp(tmpl, "dgx-a100-80g") ? "hgx-a100-4gpu-80g"
	       : !strcmp(tmpl, "dgx-h100")     ? "hgx-h100-4gpu"
	                                       : NULL;
}

const char *valid_default_node(const char *gpu)
{
	const char *intra = valid_default_intra(gpu);
	return intra ? valid_node_template(intra, gpu) : NULL;
}

const char *valid_efa_cluster(const char *gpu)
{
	return !strcmp(gpu, "h100-sxm5-80g")   ? VALID_EFA_CLUSTER
	       : !strcmp(gpu, "h200-sxm-141g") ? "efa-h200-cluster.ini"
	       : !strcmp(gpu, "b200")          ? "efa-b200-cluster.ini"
	                                       : NULL;
}

/* [section] key `key` of <datadir>/<dir>/<name>.ini as the loader reads it
 * (its includes, later values over earlier ones, its spacing) into out; ""
 * where the file or the key is not. */
const char *valid_ini_key(const char *datadir, const char *dir, const char *name,
                          const char *section, const char *key, char *out, size_t len)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s/%s.ini", datadir ? datadir : ".", dir, name);
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	const char *v = d && conf_load(path, d, &doc) == SIM_OK ? conf_get(doc, section, key, NULL)
	                                                         : NULL;
	snprintf(out, len, "%s", v ? v : "");
	conf_free(doc);
	sim_diag_free(d);
	return out;
}

/* [node] key `key` of topologies/nodes/<tmpl>.ini as a number (a board's
 * own value over its DGX's); 0 where the file or the key is not. */
static double node_key(const char *datadir, const char *tmpl, const char *key)
{
	char v[64];
	return atof(valid_ini_key(datadir, "topologies/nodes", tmpl, "node", key, v, sizeof v));
}

long valid_nics_per_gpu(const char *datadir, const char *tmpl, long gpn, char *said, size_t len)
{
	double tg = gpn > 0 ? node_key(datadir, tmpl, "gpus") : 0;
	double tn = tg > (double)gpn ? node_key(datadir, tmpl, "nics") : 0;
	if (tn <= 0)
		return 0;
	long n = (long)(tn * (double)gpn / tg + 0.5);
	n = n < 1 ? 1 : n;
	snprintf(said, len, "nics_per_node %ld (not published: the %s node's %.0f NICs for %.0f GPUs, "
	                    "kept per GPU)", n, tmpl, tn, tg);
	return n;
}

/* A training row measured on an EFA instance that no shipped EFA cluster is
 * (A100 on p4d or p4de): its own node (GPU, NVLink, the node template of
 * its node_intra) with its EFA NICs, on the EFA model (fabric = efa:
 * NCCL's own choice, as aws-ofi-nccl has no tuner tables for these
 * instances; no NVLS or SHARP across nodes), as an unfitted cluster: the
 * per-step latency and message cost of its plugin platform's fitted cluster
 * (valid_efa_unfitted), uncongested at the node file's NIC efficiency, as
 * micro.c runs such collective rows. Open NIC columns of an A100 row take
 * p4d's: 4 EFA devices, one per PCIe switch of two GPUs (aws/aws-ofi-nccl
 * 2daf7d30 topology/p4d-24xl-topo.xml, p4de-24xl-topo.xml), at 100 Gb/s
 * each (AWS's 400 Gb/s per p4d instance; not in the project's references).
 * NULL, or why the row cannot run. */
const char *valid_row_efa_other(const cases_csv *c, size_t row, const valid_options *opt,
                                const char *gpu, valid_efa_unfit *u, char *assumed, size_t alen)
{
	double nics = atof(get(c, row, "nics_per_node")), gbps = atof(get(c, row, "nic_gbps"));
	if (!strncmp(gpu, "a100-sxm4", 9) && nics <= 0 && gbps <= 0) {
		nics = 4, gbps = 100;
		valid_assume(assumed, alen, "4 EFA of 100 Gb/s per node (not published: p4d's, "
		             "aws-ofi-nccl's topology file and AWS's 400 Gb/s)");
	}
	if (nics <= 0 || gbps <= 0)
		return "an EFA row of an instance no shipped EFA cluster is (topologies/efa-*-"
		       "cluster.ini: h100-sxm5-80g, h200-sxm-141g, b200) needs nics_per_node and "
		       "nic_gbps";
	if (!opt || valid_efa_unfitted(opt, gpu, nics, gbps, u) != SIM_OK)
		return "a shipped EFA cluster does not load";
	char said[300];
	valid_efa_unfit_said(said, sizeof said, gpu, u, 0);
	valid_assume(assumed, alen, "%s", said);
	return NULL;
}

/* The row's hardware: its GPU file (valid_gpu_alias), the node template of
 * its node_intra (open: the GPU's baseboard, valid_default_intra) and its
 * GPUs per node (open: 8, every template's box but the NVL72 rack), each
 * default said; NULL, or why the row has none. */
const char *valid_row_hardware(const cases_csv *c, size_t row, const char **gpu_out,
                               const char **tmpl_out, long *gpn_out, char *assumed, size_t alen,
                               char *why, size_t whylen)
{
	const char *gpu = get(c, row, "gpu"), *intra = get(c, row, "node_intra");
	const char *alias;
	valid_loose_assume(c, row, assumed, alen);
	if (!*gpu) { /* the GPU the row's note, source or model names */
		char said[240];
		gpu = valid_gpu_named(c, row, said, sizeof said);
		if (!gpu) {
			snprintf(why, whylen, "%s", said);
			return why;
		}
		valid_assume(assumed, alen, "%s", said);
	}
	gpu = valid_gpu_alias(gpu, &alias);
	if (alias)
		valid_assume(assumed, alen, "%s", alias);
	if (!*intra && valid_default_intra(gpu)) {
		intra = valid_default_intra(gpu);
		valid_assume(assumed, alen, "node_intra %s (not published: the %s baseboard)", intra,
		             gpu);
	}
	const char *tmpl = valid_node_template(intra, gpu);
	/* a node named as sources name it ("NVSwitch", "DGX A100", "HGX",
	 * "NVLink", "PCIe"): the GPU's own baseboard where the name agrees
	 * with it (a PCIe name only for a PCIe card and back), said */
	const char *base = valid_default_intra(gpu);
	if (!tmpl && *intra && base) {
		char low[64];
		valid_lower(intra, low, sizeof low);
		bool pcie_name = strstr(low, "pcie") != NULL, pcie_base = !strncmp(base, "pcie", 4);
		bool known = strstr(low, "nvswitch") || strstr(low, "dgx") || strstr(low, "hgx") ||
		             strstr(low, "nvlink") || strstr(low, "sxm") || pcie_name;
		if (known && pcie_name == pcie_base && valid_node_template(base, gpu)) {
			valid_assume(assumed, alen, "node_intra '%.40s' read as %s (the %s baseboard)",
			             intra, base, gpu);
			tmpl = valid_node_template(base, gpu);
		}
	}
	if (!tmpl) {
		snprintf(why, whylen, "no node template for node_intra '%s' with %s (shipped: DGX-1 "
		         "V100, DGX A100, DGX/HGX H100, H200, H800, DGX B200, GB200 NVL72, 8 x H100 "
		         "PCIe Gen5, 8 x A100 PCIe Gen4)", intra, gpu);
		return why;
	}
	long gpn = atol(get(c, row, "gpus_per_node"));
	/* every node template but the NVL72 rack's is a box of 8 */
	if (!*get(c, row, "gpus_per_node") && strcmp(tmpl, "gb200-nvl72")) {
		gpn = 8;
		valid_assume(assumed, alen, "gpus_per_node 8 (not published: the %s node's)", tmpl);
	}
	/* 4 SXM GPUs a node: the 4-GPU board, not the 8-GPU box cut in half */
	const char *board = valid_board4(tmpl, gpn);
	if (board) {
		valid_assume(assumed, alen,
		             "4 GPUs a node: the %s board (NVLink between every pair, no NVSwitch; "
		             "a NIC per GPU unless the row says)",
		             board);
		tmpl = board;
	}
	*gpu_out = gpu;
	*tmpl_out = tmpl;
	*gpn_out = gpn;
	return NULL;
}
