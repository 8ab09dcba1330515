/* micro.c - microbenchmark rows (microbench.csv) against the kernel and
 * collective models.
 *
 *  gemm:     measured time = 2mnk / TFLOP/s; predicted hw_gemm_time(m, n, k).
 *  allreduce, allgather, reducescatter: measured time_us, or from busbw:
 *            t = S * f / busbw with f = 2(n-1)/n (all-reduce), (n-1)/n (others)
 *            (nccl-tests' definition); S = the row's bytes or 1 GiB when the
 *            source gives only a bandwidth. Predicted net_collective on a group
 *            of the row's GPUs spread over its nodes.
 *  p2p:      unidirectional copy bandwidth between two GPUs of a node, as the
 *            time of 1 GiB; bidirectional, as 1 GiB each way at once.
 *  hbm_copy: a read (or copy) of 1 GiB: predicted hw_mem_time.
 *  attention: a fused or unfused attention kernel (attention()).
 * A row whose `algo` is ring or nvls is timed with that algorithm, as the
 * source pinned it (NCCL_ALGO); others with the tuner's choice.
 * Rows with fabric `efa` run on the shipped EFA cluster (VALID_EFA_CLUSTER,
 * its fabric fitted by podsim calibrate --fabric) with their node count;
 * rows of another instance on their own node and NICs with that fit
 * (load_efa, an assumption on the row).
 * Rows podsim cannot time (NVLS on a node without it) are skipped with the
 * reason.
 *
 * What the benchmark's clock holds (issue 23). A collective row is timed as
 * its benchmark times it. nccl-tests (NVIDIA/nccl-tests a0b82b2,
 * src/common.cu:98, 105, 729-772) issues `iters` (20) calls back to back
 * without waiting (blocking_coll 0) and divides the span by iters: the host
 * issues the next call while the GPU runs the last, so the host cost of a
 * call is hidden wherever the kernel outlasts it (every collective row
 * here: 20 us and more) and nothing is added. stas00's all_reduce_bench.py
 * (stas00/ml-engineering 744d01e, network/benchmarks/all_reduce_bench.py:
 * 207-213) times one blocking call at a time:
 *     dist.barrier(); start_event.record(); dist.all_reduce(tensor);
 *     end_event.record(); torch.cuda.synchronize()
 * Both events go to the current stream, idle after the barrier, so the GPU
 * stamps the start as soon as it is recorded; the kernel starts only after
 * the host has issued dist.all_reduce (the Python call into c10d, its work
 * object and stream handshake, NCCL's enqueue and the kernel launch), so
 * the interval is that host issue plus the collective; the script says so
 * itself (:28-33: "slightly slower because it uses a blocking approach").
 * podsim charges the issue as it charges every eager framework operation
 * (plan: one host operation per collective with comm_host_op):
 *     t = launch_overhead (the row's GPU file) + op_overhead + t_collective,
 * op_overhead the [framework] default (30.6 us: eager PyTorch's host cost
 * per operation measured on an H200, plan/framework.c). At 1 MiB on one
 * B200 node that is 34.6 us of a 62 us call; at 4 GiB and more under
 * 0.3 %. The same source's 32 KiB - 2 MiB sweep on one node (network/
 * README.md:1394, the Q15-1n-* rows) leaves a flat 31-33 us between its
 * measurements and podsim coll's times. Not modelled: the ranks' skew
 * leaving the barrier (each rank's clock starts when its own barrier
 * ends; the call ends with the last rank's), which the multi-node row may
 * hold. The Playbook rows (efa-collectives.csv) average back-to-back calls
 * (bench_cluster f55b5e5 all_gather.py:21-31): one issue per `trials`
 * calls of a millisecond or more, not charged.
 */
#include "valid_int.h"

#include "../topo/topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

static void add_assumed(valid_row *v, const char *text)
{
	size_t n = strlen(v->assumed);
	snprintf(v->assumed + n, sizeof v->assumed - n, "%s%s", n ? "; " : "", text);
}

/* The row's GPU file (valid_gpu_alias: a name without its form factor is
 * the SXM part's, said); an open gpu column the GPU the row's note, source
 * or model names (valid_gpu_named), said, else open. */
static const char *row_gpu(const cases_csv *c, size_t row, valid_row *v)
{
	const char *gpu = get(c, row, "gpu");
	char said[240];
	if (!*gpu && (gpu = valid_gpu_named(c, row, said, sizeof said)) && !strstr(v->assumed, said))
		add_assumed(v, said);
	const char *alias, *g = valid_gpu_alias(gpu ? gpu : "", &alias);
	if (alias && !strstr(v->assumed, alias))
		add_assumed(v, alias);
	return g;
}

/* The row's node count: its nodes column, or where the source gave only
 * the GPUs, the nodes they fill (gpus / gpus_per_node, 8 per node when that
 * is open too, every shipped template's box), said; 0 when neither. */
static long row_nodes(const cases_csv *c, size_t row, valid_row *v)
{
	long nodes = atol(get(c, row, "nodes")), gpus = atol(get(c, row, "gpus"));
	if (*get(c, row, "nodes") || gpus <= 0)
		return nodes;
	long gpn = atol(get(c, row, "gpus_per_node"));
	gpn = gpn > 0 ? gpn : 8;
	nodes = (gpus + gpn - 1) / gpn;
	char text[128];
	snprintf(text, sizeof text, "nodes %ld (not published: %ld GPUs, %ld per node)", nodes, gpus,
	         gpn);
	add_assumed(v, text);
	return nodes;
}

/* The row's GPUs a node: its gpus_per_node, or where it gives its GPUs and
 * nodes but not that, the GPUs over the nodes when whole, said (a row of 8
 * GPUs on 2 nodes is 4 a node, not one node of the template's 8); 0 when
 * the row says neither (the template's box). */
static long row_gpn(const cases_csv *c, size_t row, valid_row *v)
{
	long gpn = atol(get(c, row, "gpus_per_node"));
	long gpus = atol(get(c, row, "gpus")), nodes = atol(get(c, row, "nodes"));
	if (*get(c, row, "gpus_per_node") || gpus <= 0 || nodes <= 1 || gpus % nodes)
		return gpn;
	char text[128];
	snprintf(text, sizeof text, "gpus_per_node %ld (not published: %ld GPUs on %ld nodes)",
	         gpus / nodes, gpus, nodes);
	add_assumed(v, text);
	return gpus / nodes;
}

/* The row's node_intra, or for a row of several GPUs that leaves it open,
 * the baseboard of its GPU (valid_default_intra), said. */
static const char *row_intra(const cases_csv *c, size_t row, const char *g, valid_row *v)
{
	const char *intra = get(c, row, "node_intra");
	if (*intra || atol(get(c, row, "gpus")) == 1 || !valid_default_intra(g))
		return intra;
	intra = valid_default_intra(g);
	char text[96];
	snprintf(text, sizeof text, "node_intra %s (not published: the %s baseboard)", intra, g);
	add_assumed(v, text);
	return intra;
}

/* Load a cluster written as text (paths from the data folder). */
static int load_text(const sim_buf *b, const valid_options *opt, hw_gpu *gpu, net_cluster *cl)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	int rc = b->oom ? SIM_ENOMEM
			: conf_load_string(b->data, b->len, "<microbench>", opt->datadir, d, &doc);
	if (rc == SIM_OK)
		rc = hw_gpu_from_conf(doc, gpu, d);
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, cl, d);
	conf_free(doc);
	sim_diag_free(d);
	return rc;
}

/* The node file a row's node_intra stands for: the training reader's
 * (valid_node_template; its GPU file is included after it and replaces the
 * node's), a PCIe generation's 8-card box whatever card it holds (the
 * collective's links are the box's), a single GPU's (no node_intra) the DGX
 * A100's. */
static const char *node_template(const char *intra, const char *gpu)
{
	const char *t = *intra ? valid_node_template(intra, gpu) : "dgx-a100-80g";
	return t                                 ? t
	       : !strcmp(intra, "pcie-gen4")     ? "pcie-8x-a100"
	       : !strcmp(intra, "pcie-gen5")     ? "pcie-8x-h100"
	                                         : NULL;
}

/* The node file of the row: its node_intra's template, or the 4-GPU board
 * for 4 GPUs a node (valid_board4), said. */
static const char *row_template(const cases_csv *c, size_t row, const char *g, long gpn,
                                valid_row *v)
{
	const char *tmpl = node_template(row_intra(c, row, g, v), g);
	const char *board = valid_board4(tmpl, gpn);
	if (!board)
		return tmpl;
	char text[160];
	snprintf(text, sizeof text,
	         "4 GPUs a node: the %s board (NVLink between every pair, no NVSwitch; a NIC per "
	         "GPU unless the row says)", board);
	add_assumed(v, text);
	return board;
}

/* The EC2 instance an EFA row of another instance ran on, for aws-ofi-nccl's
 * tuner tables ([node] ec2_instance), from its GPU and NIC count as the
 * shipped node files hold them: H200 with 16 EFA is p5en (nodes/p5en-h200.ini),
 * with 32 p5e (32 EFA on P5/P5e, A src/platform-aws.cpp:1064), B200 with 8
 * p6-b200 (nodes/p6-b200.ini); "none" (NCCL's own tuner) otherwise. */
const char *valid_efa_instance(const char *gpu, double nics)
{
	if (!strncmp(gpu, "h200", 4))
		return nics == 16 ? "p5en" : nics == 32 ? "p5e" : "none";
	if (!strcmp(gpu, "b200"))
		return nics == 8 ? "p6-b200" : "none";
	return !strncmp(gpu, "h100", 4) && nics == 32 ? "p5" : "none";
}

/* The fitted cluster whose per-step latency and message cost an unfitted
 * EFA instance takes: that of its aws-ofi-nccl platform, which sets the
 * plugin's latency and defaults per class of instance (A src/platform-
 * aws.cpp:149-174: one "p5en/p6-b200" entry, 35 us; "p5/p5e" :132-148, 75
 * us): P6-B200's fit (small calls measured) for p5en, p5's otherwise. */
static const char *efa_platform_fit(const char *instance)
{
	return !strcmp(instance, "p5en") ? "efa-b200-cluster.ini" : VALID_EFA_CLUSTER;
}

/* Load topologies/FILE with `nodes` nodes (at least 1). */
static int load_cluster(const char *file, long nodes, const valid_options *opt, hw_gpu *gpu,
			net_cluster *cl)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "include = topologies/%s\n[cluster]\nnodes = %ld\n", file,
		       nodes > 0 ? nodes : 1);
	int rc = load_text(&b, opt, gpu, cl);
	sim_buf_free(&b);
	return rc;
}

int valid_efa_unfitted(const valid_options *opt, const char *gpu, double nics, double gbps,
                       valid_efa_unfit *u)
{
	hw_gpu g;
	net_cluster cl;
	u->nics = nics, u->gbps = gbps;
	u->instance = valid_efa_instance(gpu, nics);
	u->like = efa_platform_fit(u->instance);
	int rc = load_cluster(u->like, 1, opt, &g, &cl);
	u->lat = rc == SIM_OK ? cl.net_lat_s : 0;
	u->msg = rc == SIM_OK ? cl.msg_overhead_s : 0;
	return rc;
}

void valid_efa_unfit_keys(sim_buf *b, const valid_efa_unfit *u, bool cluster)
{
	if (cluster)
		sim_buf_printf(b, "oversubscription = 1\nswitch_latency = 0 ns\nnet_latency = %.9g s\n"
		                  "msg_overhead = %.9g s\n", u->lat, u->msg);
	else
		sim_buf_printf(b, "nics = %g\nnic_bw = %g Gb/s\nnic_kind = efa\nec2_instance = %s\n",
		               u->nics, u->gbps, u->instance);
}

void valid_efa_unfit_said(char *buf, size_t len, const char *gpu, const valid_efa_unfit *u,
                          double nic_eff)
{
	char eff[64] = "";
	if (nic_eff > 0)
		snprintf(eff, sizeof eff, " at the node file's NIC efficiency %.2f", nic_eff);
	snprintf(buf, len,
	         "EFA on %s (%g x %g Gb/s, aws-ofi-nccl tuner of %s): an unfitted cluster, "
	         "uncongested%s, with the %s fit's latency %.3g us and message cost %.3g us",
	         gpu, u->nics, u->gbps, u->instance, eff,
	         strcmp(u->like, VALID_EFA_CLUSTER) ? "P6-B200" : "p5", u->lat * 1e6, u->msg * 1e6);
}

/* A row measured on an EFA fabric runs on the shipped EFA cluster of its
 * GPU (valid_efa_cluster) where that cluster's fabric is fitted to its own
 * collectives (podsim calibrate --fabric, tools/calibrate-all: it states
 * its rails' achievable rate, rail_bw, which the fit writes), with the
 * row's node count and the cluster's node (its GPUs per node the row's;
 * the row's NIC columns not used, as for training rows): p5's VALID_EFA_CLUSTER
 * (topologies/calib/efa-h100.ini, from efa-collectives.csv) and P6-B200's
 * (topologies/calib/efa-b200.ini, from its all-reduce sweep here). A row of
 * another instance (p5en's H200 with 16 x 200 Gb/s) runs on its own node
 * (GPU, NVLink) with its own NICs, on the EFA model (fabric = efa:
 * aws-ofi-nccl's tuner, no NVLS or SHARP across nodes) with the documented
 * defaults of an unfitted cluster: the per-step latency and message cost
 * (properties of SRD and the plugin) of the fitted cluster of its plugin
 * platform (efa_platform_fit: p5en is P6-B200's), but neither that fit's
 * congestion, sync delay and spread nor its rail efficiency, which are that
 * cluster's state: the node file's NIC efficiency instead, uncongested.
 * Printed as an assumption; a user with measurements of the cluster fits
 * them (podsim calibrate --fabric). */
static const char *load_efa(const cases_csv *c, size_t row, const valid_options *opt, hw_gpu *gpu,
			    net_cluster *cl, valid_row *v)
{
	const char *g = row_gpu(c, row, v), *fit = valid_efa_cluster(g);
	long nodes = row_nodes(c, row, v);
	long gpn = row_gpn(c, row, v);
	double nics = atof(get(c, row, "nics_per_node")), gbps = atof(get(c, row, "nic_gbps"));
	if (fit && load_cluster(fit, nodes, opt, gpu, cl) == SIM_OK && cl->rail_Bps > 0 &&
	    !strcmp(gpu->name, g) && (gpn <= 0 || gpn == cl->node.gpus)) {
		if (strcmp(fit, VALID_EFA_CLUSTER)) {
			char text[160];
			snprintf(text, sizeof text,
				 "EFA on the shipped %s (its fabric fitted to its own collectives)",
				 fit);
			add_assumed(v, text);
		}
		return NULL;
	}
	valid_efa_unfit u;
	if (valid_efa_unfitted(opt, g, nics, gbps, &u) != SIM_OK)
		return "a shipped EFA cluster does not load";
	const char *tmpl = row_template(c, row, g, gpn, v);
	if (!tmpl || nics <= 0 || gbps <= 0)
		return "an EFA row of another instance needs its node_intra, nics_per_node and nic_gbps";
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "include = topologies/nodes/%s.ini\ninclude = topologies/gpus/%s.ini\n"
	                   "[node]\n", tmpl, g);
	if (gpn > 0)
		sim_buf_printf(&b, "gpus = %ld\n", gpn);
	valid_efa_unfit_keys(&b, &u, false);
	sim_buf_printf(&b, "[cluster]\nname = efa-%s\nnodes = %ld\nfabric = efa\n", g,
	               nodes > 0 ? nodes : 1);
	valid_efa_unfit_keys(&b, &u, true);
	int rc = load_text(&b, opt, gpu, cl);
	sim_buf_free(&b);
	if (rc != SIM_OK)
		return "no shipped GPU or node file for this EFA row";
	char text[300];
	valid_efa_unfit_said(text, sizeof text, g, &u, cl->node.nic_eff);
	add_assumed(v, text);
	return NULL;
}

/* Load a GPU type and a one-or-more-node cluster for the row. */
static const char *load_hw(const cases_csv *c, size_t row, const valid_options *opt, hw_gpu *gpu,
			   net_cluster *cl, valid_row *v)
{
	if (!strcmp(get(c, row, "fabric"), "efa"))
		return load_efa(c, row, opt, gpu, cl, v);
	const char *g = row_gpu(c, row, v);
	long gpn = row_gpn(c, row, v);
	const char *tmpl = row_template(c, row, g, gpn, v);
	if (!tmpl)
		return "no node template for this node_intra";
	long nodes = row_nodes(c, row, v);
	if (nodes <= 0 && !*get(c, row, "gpus") && strstr(get(c, row, "note"), ">2 nodes")) {
		/* a statement for "more than 2 nodes" of the node type (NCCL issue
		 * 812's DGX A100 ring): the fewest nodes it covers, 3 (a ring's bus
		 * bandwidth across nodes does not grow with their number) */
		nodes = 3;
		add_assumed(v, "nodes and GPUs not stated (\"more than 2 nodes\"): the fewest, 3 nodes");
	}
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "include = topologies/nodes/%s.ini\ninclude = topologies/gpus/%s.ini\n",
		       tmpl, g);
	sim_buf_printf(&b, "[cluster]\nname = bench\nnodes = %ld\n", nodes > 0 ? nodes : 1);
	/* the row's GPUs a node (the template's box otherwise): 2 nodes of 4
	 * are not one of 8 */
	if (*get(c, row, "nics_per_node") || *get(c, row, "nic_gbps") || gpn > 0)
		sim_buf_printf(&b, "[node]\n");
	if (gpn > 0)
		sim_buf_printf(&b, "gpus = %ld\n", gpn);
	char said[200];
	long scaled = nodes > 1 && !*get(c, row, "nics_per_node")
	                      ? valid_nics_per_gpu(opt->datadir, tmpl, gpn, said, sizeof said)
	                      : 0;
	if (scaled > 0) {
		sim_buf_printf(&b, "nics = %ld\n", scaled);
		add_assumed(v, said);
	}
	if (*get(c, row, "nics_per_node"))
		sim_buf_printf(&b, "nics = %s\n", get(c, row, "nics_per_node"));
	if (*get(c, row, "nic_gbps"))
		sim_buf_printf(&b, "nic_bw = %s Gb/s\n", get(c, row, "nic_gbps"));
	int rc = load_text(&b, opt, gpu, cl);
	sim_buf_free(&b);
	return rc == SIM_OK ? NULL : "no shipped GPU or node file for this row";
}

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
 * broadcast. */
/* The largest all-to-all a row times on the flow model (collective()). */
#define VALID_A2A_FLOW_RANKS 128

static double coll_factor(net_coll k, double n)
{
	return k == NET_ALLREDUCE ? 2 * (n - 1) / n : k == NET_BROADCAST ? 1 : (n - 1) / n;
}

/* A collective row whose time_us and busbw_GBps are open carries its
 * measurement in measured_value, as its measured_metric names it, in
 * measured_unit: a time (a metric in a time unit, "allreduce_time" in us),
 * a bus bandwidth ("busbw", "busbw_median", "avg_busbw_over_sweep") or an
 * algorithm bandwidth ("algbw": bytes over the time, nccl-tests
 * doc/PERFORMANCE.md), bandwidths in any unit of bytes or bits per second.
 * The time in seconds, 0 where the metric names none of them. */
static double metric_time(const cases_csv *c, size_t row, net_coll k, double n, double bytes)
{
	const char *m = get(c, row, "measured_metric"), *u = get(c, row, "measured_unit");
	double v = atof(get(c, row, "measured_value"));
	double s = valid_unit_si(u, SIM_UNIT_TIME), bps = valid_unit_si(u, SIM_UNIT_BANDWIDTH);
	if (!(v > 0))
		return 0;
	if (s > 0)
		return v * s;
	if (bps > 0 && strstr(m, "busbw"))
		return bytes * coll_factor(k, n) / (v * bps);
	if (bps > 0 && strstr(m, "algbw"))
		return bytes / (v * bps);
	return 0;
}

/* Time of collective k of `bytes` on ranks 0..n-1 of cl: net's alpha-beta
 * form, or with network = flow the flow model on cl's link graph. */
static int coll_time(const net_cluster *cl, net_coll k, int n, double bytes, double *t_s)
{
	if (!net_uses_flow(cl)) {
		net_group g;
		net_group_make(cl, n, 1, &g);
		if (k == NET_P2P)
			g = (net_group){2, 2, 1, 1};
		net_cost cost;
		int rc = net_collective(cl, k, &g, bytes, &cost);
		*t_s = cost.time_s;
		return rc;
	}
	topo_graph *tg;
	int rc = topo_build(cl, &tg);
	int *ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof *ranks);
	if (rc == SIM_OK && !ranks)
		rc = SIM_ENOMEM;
	for (int i = 0; rc == SIM_OK && i < n; i++)
		ranks[i] = i;
	topo_cost cost;
	if (rc == SIM_OK)
		rc = topo_collective(tg, k, ranks, n, bytes, topo_algo_from_net(cl->algo), &cost);
	if (rc == SIM_OK)
		*t_s = cost.time_s;
	free(ranks);
	topo_free(tg);
	return rc;
}

bool valid_blocking_bench(const cases_csv *c, size_t row)
{
	return strstr(get(c, row, "source"), "all_reduce_bench") ||
	       strstr(get(c, row, "note"), "all_reduce_bench");
}

double valid_eager_issue_s(const hw_gpu *gpu)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	plan_framework fw;
	double op = 0;
	if (conf_load_string("", 0, "<framework>", ".", d, &doc) == SIM_OK &&
	    plan_framework_from_conf(doc, &fw, d) == SIM_OK)
		op = fw.op_overhead_s;
	conf_free(doc);
	sim_diag_free(d);
	return gpu->launch_s + op;
}

static const char *collective(const cases_csv *c, size_t row, const hw_gpu *gpu,
			      const net_cluster *cl, net_coll k, valid_row *v)
{
	bool nvls = !strcmp(get(c, row, "algo"), "nvls");
	if (nvls && (k != NET_ALLREDUCE || !(cl->node.nvls_busbw_Bps > 0)))
		return "NVLS on a node without it (nvls_busbw)";
	double n = atof(get(c, row, "gpus"));
	if (!*get(c, row, "gpus") && (cl->nodes > 1 || *get(c, row, "nodes"))) {
		/* nodes assumed by load_hw, or the row's one node: all its GPUs */
		n = (double)cl->nodes * cl->node.gpus;
		char text[96];
		snprintf(text, sizeof text, "gpus %.0f (not published: %d node%s of %d)", n, cl->nodes,
		         cl->nodes == 1 ? "" : "s", cl->node.gpus);
		add_assumed(v, text);
	}
	if (n < 2)
		return "a collective needs at least 2 GPUs";
	double bytes = atof(get(c, row, "bytes"));
	double t_us = atof(get(c, row, "time_us")), busbw = atof(get(c, row, "busbw_GBps"));
	if (bytes <= 0) {
		bytes = 1073741824.0;
		add_assumed(v, "bytes 1 GiB (not published: a bandwidth at large messages)");
	}
	if (t_us > 0)
		v->measured = t_us * 1e-6;
	else if (busbw > 0)
		v->measured = bytes * coll_factor(k, n) / (busbw * 1e9);
	else if (!((v->measured = metric_time(c, row, k, n, bytes)) > 0))
		return "neither time nor bus bandwidth given (time_us, busbw_GBps, or a "
		       "measured_metric of a time, busbw or algbw)";
	net_cluster pinned = *cl; /* a ring the source pinned (NCCL_ALGO=Ring) */
	if (!strcmp(get(c, row, "algo"), "ring") && k == NET_ALLREDUCE) {
		pinned.algo = NET_ALGO_RING;
		cl = &pinned;
	}
	/* The flow model's pairwise all-to-all runs all n (n - 1) flows at once
	 * (topo/coll.c): 16k at 128 ranks take 0.3 s, 65k at 256 on nodes of 32
	 * NICs 12 s and a million at 1,024 minutes and gigabytes; beyond 128
	 * ranks the row takes net's closed form, as --network alpha-beta would */
	if (k == NET_ALLTOALL && n > VALID_A2A_FLOW_RANKS && net_uses_flow(cl)) {
		pinned.network = NET_MODEL_ALPHA_BETA;
		cl = &pinned;
		char text[128];
		snprintf(text, sizeof text,
		         "an all-to-all of %.0f ranks (over %d): the alpha-beta model, not the flow "
		         "model's n(n-1) flows", n, VALID_A2A_FLOW_RANKS);
		add_assumed(v, text);
	}
	if (nvls) { /* pinned: NVLS whatever the tuner would pick */
		net_group g;
		net_group_make(cl, (int)n, 1, &g);
		net_cost nv;
		if (net_nvls_allreduce(cl, &g, bytes, &nv) != SIM_OK)
			return "NVLS needs the group inside one node";
		v->predicted = nv.time_s;
	} else if (coll_time(cl, k, (int)n, bytes, &v->predicted) != SIM_OK)
		return "the group does not fit the cluster";
	if (valid_blocking_bench(c, row)) {
		double h = valid_eager_issue_s(gpu);
		v->predicted += h;
		char text[160];
		snprintf(text, sizeof text,
			 "one blocking call timed from before its host issue: + %.3g us "
			 "(launch + the default framework op_overhead)",
			 h * 1e6);
		add_assumed(v, text);
	}
	return NULL;
}

/* The benchmark's PyTorch reference attention (benchmarks/
 * benchmark_flash_attention.py, attention_pytorch, at flash-attention
 * 60499abc), kernel by kernel on podsim's GEMM and memory-bound models, with
 * sc = b h s^2 score elements of e bytes:
 *   forward: baddbmm S = alpha Q K^T (a batched GEMM writing sc), with the
 *   causal mask an add (read sc, write sc; the s^2 mask itself is cached),
 *   softmax (read, write), dropout at p = 0 (read, write, a 1-byte mask),
 *   einsum P V (a batched GEMM reading sc);
 *   backward: the einsum's dP = dO V^T and dV = P^T dO, dropout's (read the
 *   gradient and the mask, write), softmax's (read P and dP, write dS), the
 *   alpha scaling of baddbmm's gradient (read, write), dQ = dS K, dK = dS^T Q.
 * It has more passes over the scores than Megatron's unfused path (one fused
 * scale-mask-softmax kernel, work/layer.c), which hw's unfused model times:
 * these rows check the pieces (batched GEMMs with a 128-wide reduction,
 * memory-bound passes over sc) rather than Megatron's kernel list. */
static double reference_attention(const hw_gpu *g, hw_dtype t, const hw_attn *a)
{
	double bh = a->batch * a->heads, s = a->seq_q, d = a->head_dim;
	double e = hw_dtype_bytes(t), sc = bh * s * s;
	if (!a->backward)
		return hw_gemm_time(g, t, s, s, d, bh) + (a->causal ? hw_mem_time(g, 2 * e * sc) : 0) +
		       hw_mem_time(g, 2 * e * sc) + hw_mem_time(g, (2 * e + 1) * sc) +
		       hw_gemm_time(g, t, s, d, s, bh);
	return hw_gemm_time(g, t, s, s, d, bh) + hw_gemm_time(g, t, s, d, s, bh) +
	       hw_mem_time(g, (2 * e + 1) * sc) + hw_mem_time(g, 3 * e * sc) +
	       hw_mem_time(g, 2 * e * sc) + hw_gemm_time(g, t, s, d, s, bh) +
	       hw_gemm_time(g, t, s, d, s, bh);
}

/* An attention kernel row (attention.csv): m = batch, n = sequence, k =
 * head dimension, heads = 2048 / head dimension (the FlashAttention
 * benchmark's hidden size), algo = fa2 | fa3 | cudnn | unfused, metric
 * attn_tflops_fwd[_bwd][_causal] counted as FlashAttention counts: forward
 * F = 4 b s^2 H d, halved with the causal mask, forward + backward 3.5 F.
 * Measured time = those FLOPs / TFLOP/s; predicted hw_attn_time of the
 * forward, plus the backward's for _fwd_bwd (unfused rows: the benchmark's
 * PyTorch reference, reference_attention). */
static const char *attention(const cases_csv *c, size_t row, const hw_gpu *gpu, valid_row *v)
{
	hw_dtype t;
	if (hw_dtype_parse(get(c, row, "dtype"), &t) != SIM_OK)
		return "unknown dtype";
	const char *algo = get(c, row, "algo"), *metric = get(c, row, "measured_metric");
	bool unfused = !strcmp(algo, "unfused");
	hw_flash_impl impl = HW_FLASH_FA2;
	if (!unfused && hw_flash_parse(algo, &impl) != SIM_OK)
		return "attention algo: expected fa2, fa3, cudnn or unfused";
	double b = atof(get(c, row, "m")), s = atof(get(c, row, "n")), d = atof(get(c, row, "k"));
	double tf = atof(get(c, row, "measured_value"));
	if (b <= 0 || s <= 0 || d <= 0 || tf <= 0 || strncmp(metric, "attn_tflops_fwd", 15))
		return "attention shape, metric or TFLOP/s missing";
	bool causal = strstr(metric, "_causal") != NULL, both = strstr(metric, "_bwd") != NULL;
	double heads = 2048.0 / d, f = 4.0 * b * s * s * heads * d * (causal ? 0.5 : 1.0);
	v->measured = (both ? 3.5 : 1.0) * f / (tf * 1e12);
	hw_attn a = {b, heads, heads, s, s, d, causal, !unfused, false, impl};
	v->predicted = unfused ? reference_attention(gpu, t, &a) : hw_attn_time(gpu, t, &a);
	if (both) {
		a.backward = true;
		v->predicted += unfused ? reference_attention(gpu, t, &a) : hw_attn_time(gpu, t, &a);
	}
	snprintf(v->what, sizeof v->what, "attn %.20s %.8s d%.0f s%.0f %s%s", gpu->name, algo, d, s,
		 both ? "fwd+bwd" : "fwd", causal ? " causal" : "");
	return NULL;
}

static const char *predict(const cases_csv *c, size_t row, const valid_options *opt,
			   valid_row *v)
{
	const char *kind = get(c, row, "kind");
	if (!*kind) /* named.c reads it from a nccl-tests binary the text names */
		return "kind missing (and the row's text names no nccl-tests binary, or two: "
		       "all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, "
		       "broadcast_perf)";
	hw_gpu gpu;
	net_cluster cl;
	const char *why = load_hw(c, row, opt, &gpu, &cl, v);
	if (why)
		return why;
	cl.network = opt->network;
	if (!strcmp(kind, "attention"))
		return attention(c, row, &gpu, v);
	if (!strcmp(kind, "gemm")) {
		hw_dtype t;
		const char *dt = get(c, row, "dtype");
		if (!*dt) { /* the training dtype, as an open precision */
			dt = valid_default_precision(gpu.name);
			add_assumed(v, !strcmp(dt, "fp16") ? "dtype fp16 (not published)"
			                                   : "dtype bf16 (not published)");
		}
		if (hw_dtype_parse(dt, &t) != SIM_OK)
			return "unknown dtype";
		double m = atof(get(c, row, "m")), n = atof(get(c, row, "n")), k = atof(get(c, row, "k"));
		double tf = atof(get(c, row, "measured_value"));
		if (m <= 0 || n <= 0 || k <= 0 || tf <= 0)
			return "GEMM shape or TFLOP/s missing";
		v->measured = 2 * m * n * k / (tf * 1e12);
		v->predicted = hw_gemm_time(&gpu, t, m, n, k, 1);
		return NULL;
	}
	if (!strcmp(kind, "allreduce"))
		return collective(c, row, &gpu, &cl, NET_ALLREDUCE, v);
	if (!strcmp(kind, "allgather"))
		return collective(c, row, &gpu, &cl, NET_ALLGATHER, v);
	if (!strcmp(kind, "reducescatter"))
		return collective(c, row, &gpu, &cl, NET_REDUCESCATTER, v);
	/* nccl-tests' alltoall_perf and broadcast_perf (bench_cluster's
	 * all_to_all.py, broadcast.py): bytes per rank, as net's */
	if (!strcmp(kind, "alltoall"))
		return collective(c, row, &gpu, &cl, NET_ALLTOALL, v);
	if (!strcmp(kind, "broadcast"))
		return collective(c, row, &gpu, &cl, NET_BROADCAST, v);
	double gbps = atof(get(c, row, "measured_value"));
	double scale = !strcmp(get(c, row, "measured_unit"), "TB/s") ? 1e12 : 1e9;
	if (gbps <= 0)
		return "no measured bandwidth";
	v->measured = 1073741824.0 / (gbps * scale);
	if (!strcmp(kind, "p2p")) {
		if (strstr(get(c, row, "algo"), "bidir")) {
			/* both GPUs copy 1 GiB to the other at once (nvbandwidth's
			 * bidirectional test reports both directions' bytes over the
			 * time): an all-to-all of 2 GiB per rank on 2 GPUs is exactly
			 * that pair of opposite copies, on full-duplex links */
			v->measured = 2 * 1073741824.0 / (gbps * scale);
			if (coll_time(&cl, NET_ALLTOALL, 2, 2 * 1073741824.0, &v->predicted) != SIM_OK)
				return "p2p not available";
			return NULL;
		}
		if (coll_time(&cl, NET_P2P, 2, 1073741824.0, &v->predicted) != SIM_OK)
			return "p2p not available";
		return NULL;
	}
	if (!strcmp(kind, "hbm_copy")) {
		v->predicted = hw_mem_time(&gpu, 1073741824.0);
		return NULL;
	}
	return "unknown kind";
}

void valid_micro_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	snprintf(v->what, sizeof v->what, "%s %s x%s %s", get(c, row, "kind"), get(c, row, "gpu"),
		 get(c, row, "gpus"), get(c, row, "bytes"));
	snprintf(v->rank_key, sizeof v->rank_key, "%s|%s|%s", get(c, row, "kind"),
		 get(c, row, "gpu"), get(c, row, "gpus"));
	valid_loose_assume(c, row, v->assumed, sizeof v->assumed);
	const char *why = predict(c, row, opt, v);
	if (why) {
		v->status = VALID_SKIPPED;
		snprintf(v->reason, sizeof v->reason, "%s", why);
		return;
	}
	v->status = VALID_OK;
	v->error = (v->predicted - v->measured) / v->measured;
}
