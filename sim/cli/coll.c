/* coll.c - `podsim coll`: one collective timed on the link graph (flow model,
 * sim/topo) and by net's alpha-beta formulas, printed the way nccl-tests
 * prints (size, time, algbw, busbw), with each model's algorithm and
 * protocol (the same: NCCL's choice, net_nccl_choice), optionally over a
 * size sweep. */
#include "cli/cli.h"
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2

static const char usage_coll[] =
        "usage: podsim coll --topology CLUSTER.ini --gpus N OP SIZE [options]\n"
        "\n"
        "Time one collective on the first N GPUs of the cluster (ranks fill nodes in\n"
        "order; with --stride S GPUs 0, S, 2S, ...) with the flow-level network model\n"
        "(routed flows sharing links max-min fairly) and with the alpha-beta model,\n"
        "side by side, as nccl-tests reports: time, algbw = SIZE / time and busbw =\n"
        "algbw x bus factor (2(n-1)/n for all-reduce, (n-1)/n for all-gather,\n"
        "reduce-scatter and all-to-all). A group of k of each node's G GPUs across\n"
        "nodes gets k/G of the node's NICs in the alpha-beta model (the node's\n"
        "other GPUs in groups like it, as in a training step); the flow model runs\n"
        "the group alone (the header says so). The footer names the channels\n"
        "NCCL runs the call on, one thread block (one SM) each: what it takes from\n"
        "the compute beside it in a training step.\n"
        "\n"
        "OP:   allreduce | allgather | reducescatter | broadcast | alltoall | p2p\n"
        "SIZE: bytes with a unit, e.g. 1GiB, 256MB, 8B (the full buffer; p2p: the message)\n"
        "\n"
        "options:\n"
        "  --algo ring|tree|hier|nvls|nvlstree|pat|collnetdirect|collnetchain|auto\n"
        "                              algorithm of both models (default auto: NCCL's\n"
        "                              choice by its own tuning table (NCCL's\n"
        "                              constants, the nodes' nominal links), or on\n"
        "                              EFA the aws-ofi-nccl tuner's region; both\n"
        "                              models time it, the flow model runs it\n"
        "                              whatever the links do to it; nvls: all-reduce\n"
        "                              inside one NVLS node (across nodes with\n"
        "                              cluster.sharp=true), nvlstree: across them;\n"
        "                              pat: all-gather, reduce-scatter, 1 GPU per node;\n"
        "                              collnetdirect, collnetchain: all-reduce across\n"
        "                              nodes through SHARP, with cluster.sharp=true)\n"
        "  --stride S                  every S-th GPU from 0 (S = GPUs per node: one\n"
        "                              per node on the same rail, a data-parallel group)\n"
        "  --sweep                     sizes from 8 B doubling up to SIZE\n"
        "  --json                      JSON rows: time_s, algbw_GBps, busbw_GBps, algorithm\n"
        "  --set SECTION.KEY=VALUE     override a key of the cluster file\n"
        "  -h, --help                  this help\n";

typedef struct coll_args {
	const char *topology, *op, *size, *algo;
	const char *sets[64];
	int nsets;
	long gpus, stride;
	bool sweep, json;
} coll_args;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("coll", usage_coll, msg, arg);
}

static int parse_args(int argc, char **argv, coll_args *a)
{
	int npos = 0;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			fputs(usage_coll, stdout);
			return -1;
		} else if (!strcmp(s, "--sweep"))
			a->sweep = true;
		else if (!strcmp(s, "--json"))
			a->json = true;
		else if ((!strcmp(s, "--topology") || !strcmp(s, "--gpus") ||
		          !strcmp(s, "--algo") || !strcmp(s, "--set") || !strcmp(s, "--stride")) &&
		         !has)
			return bad("option needs a value", s);
		else if (!strcmp(s, "--topology"))
			a->topology = argv[++i];
		else if (!strcmp(s, "--algo"))
			a->algo = argv[++i];
		else if (!strcmp(s, "--set")) {
			if (a->nsets == 64)
				return bad("too many --set options", NULL);
			a->sets[a->nsets++] = argv[++i];
		} else if (!strcmp(s, "--gpus")) {
			char *end;
			a->gpus = strtol(argv[++i], &end, 10);
			if (*end || a->gpus < 1)
				return bad("--gpus takes a positive count", argv[i]);
		} else if (!strcmp(s, "--stride")) {
			char *end;
			a->stride = strtol(argv[++i], &end, 10);
			if (*end || a->stride < 1 || a->stride > 1000000)
				return bad("--stride takes a positive count", argv[i]);
		} else if (s[0] == '-' && s[1])
			return bad("unknown option", s);
		else if (npos == 0 && ++npos)
			a->op = s;
		else if (npos == 1 && ++npos)
			a->size = s;
		else
			return bad("too many arguments", s);
	}
	if (!a->topology || !a->gpus || !a->op || !a->size)
		return bad("expected --topology FILE --gpus N OP SIZE", NULL);
	return 0;
}

static int parse_op(const char *s, net_coll *out)
{
	static const char *const names[][2] = {
	        {"allreduce", "all-reduce"},         {"allgather", "all-gather"},
	        {"reducescatter", "reduce-scatter"}, {"broadcast", "bcast"},
	        {"alltoall", "all-to-all"},          {"p2p", "sendrecv"}};
	for (int c = 0; c < NET_COLL_COUNT; c++)
		if (!strcmp(s, names[c][0]) || !strcmp(s, names[c][1])) {
			*out = (net_coll)c;
			return SIM_OK;
		}
	return SIM_ECONF;
}

static const char *proto_name(net_proto p)
{
	return p == NET_PROTO_LL ? "LL" : p == NET_PROTO_LL128 ? "LL128" : "Simple";
}

typedef struct row {
	double bytes;
	topo_cost f;
	net_cost ab;
	double ch; /* NCCL's channels for the alpha-beta model's algorithm
		    * (net_tune_channels); 0 for p2p */
} row;

/* The alpha-beta model's algorithm under the flow model's name: net reports
 * all-to-all and p2p as ring (net_cost.algo), their only algorithm, which
 * the flow model calls pairwise and direct. */
static const char *ab_algo_name(net_coll op, net_algo a)
{
	return op == NET_ALLTOALL ? topo_algo_name(TOPO_ALGO_PAIRWISE)
	       : op == NET_P2P    ? topo_algo_name(TOPO_ALGO_DIRECT)
	                          : net_algo_name(a);
}

static void print_row(const coll_args *a, net_coll op, int n, const row *r, bool first)
{
	double f = topo_bus_factor(op, n);
	double ab_alg = r->ab.time_s > 0 ? r->bytes / r->ab.time_s : 0;
	if (a->json) {
		printf("%s{\"bytes\": %.0f, \"time_s\": %.9g, \"algbw_GBps\": %.6g, "
		       "\"busbw_GBps\": "
		       "%.6g, \"algorithm\": \"%s\", \"protocol\": \"%s\", \"alpha_beta\": "
		       "{\"time_s\": %.9g, \"algbw_GBps\": %.6g, \"busbw_GBps\": %.6g, "
		       "\"algorithm\": \"%s\", \"protocol\": \"%s\", \"nccl_channels\": %.0f}}",
		       first ? "" : ",\n ", r->bytes, r->f.time_s, r->f.algbw_Bps / 1e9,
		       r->f.busbw_Bps / 1e9, topo_algo_name(r->f.algo), proto_name(r->f.proto),
		       r->ab.time_s, ab_alg / 1e9, ab_alg * f / 1e9, ab_algo_name(op, r->ab.algo),
		       proto_name(r->ab.proto), r->ch);
		return;
	}
	printf("%13.0f %11.2f %8.2f %8.2f  %-13s %-6s %11.2f %8.2f %8.2f  %-13s %s\n", r->bytes,
	       r->f.time_s * 1e6, r->f.algbw_Bps / 1e9, r->f.busbw_Bps / 1e9,
	       topo_algo_name(r->f.algo), proto_name(r->f.proto), r->ab.time_s * 1e6, ab_alg / 1e9,
	       ab_alg * f / 1e9, ab_algo_name(op, r->ab.algo), proto_name(r->ab.proto));
}

static int time_one(const topo_graph *g, net_coll op, const int *ranks, int n, int stride,
                    double bytes, topo_algo algo, row *r)
{
	/* Both models run the same algorithm: --algo, else [cluster] nccl_algo
	 * (as --set cluster.nccl_algo=tree gives it). */
	net_cluster cl = *topo_cluster(g);
	const net_cluster *c = &cl;
	if (algo != TOPO_ALGO_AUTO)
		cl.algo = topo_algo_to_net(algo);
	else
		algo = topo_algo_from_net(cl.algo);
	net_group grp;
	net_group_make(c, n, stride, &grp);
	if (op == NET_P2P) /* first to last rank */
		grp = (net_group){2, ranks[0] / c->node.gpus == ranks[n - 1] / c->node.gpus ? 2 : 1,
		                  ranks[0] / c->node.gpus == ranks[n - 1] / c->node.gpus ? 1 : 2,
		                  ranks[n - 1] - ranks[0]};
	r->bytes = bytes;
	int rc = topo_collective(g, op, ranks, n, bytes, algo, &r->f);
	if (rc == SIM_OK)
		rc = net_collective(c, op, &grp, bytes, &r->ab);
	r->ch = rc == SIM_OK && op != NET_P2P ? net_tune_channels(c, &grp, r->ab.algo) : 0;
	return rc;
}

static void print_header(const coll_args *a, const topo_graph *g, net_coll op, int n)
{
	const net_cluster *c = topo_cluster(g);
	net_group grp; /* the nodes the ranks 0, S, 2S, ... span (--stride S) */
	net_group_make(c, n, (int)a->stride, &grp);
	printf("# podsim coll: %s on %d GPUs of %s (%d node(s), %d of each node's %d), "
	       "algorithm %s\n",
	       net_coll_name(op), n, c->name, grp.nodes, grp.per_node, c->node.gpus,
	       a->algo ? a->algo : "auto");
	if (op != NET_P2P && grp.nodes > 1 && grp.per_node < c->node.gpus)
		printf("# the group holds %d of each node's %d GPUs: the alpha-beta model gives it "
		       "%d/%d of the node's NICs (the node's other GPUs in groups like it at once, "
		       "as a step's data-parallel groups across TP ranks are); the flow model runs "
		       "it alone, on every NIC its ranks reach\n",
		       grp.per_node, c->node.gpus, grp.per_node, c->node.gpus);
	printf("#                        flow model                                     alpha-beta\n");
	printf("#        size        time    algbw    busbw  algo          proto         time    "
	       "algbw    busbw  algo          proto\n");
	printf("#         (B)        (us)   (GB/s)   (GB/s)                              (us)   "
	       "(GB/s)   (GB/s)\n");
}

static void print_footer(const topo_graph *g, net_coll op, const row *r)
{
	char name[2][64];
	const topo_link *l = topo_link_at(g, r->f.hot_link);
	if (!l)
		return;
	topo_vertex_name(g, l->src, name[0], sizeof name[0]);
	topo_vertex_name(g, l->dst, name[1], sizeof name[1]);
	printf("# flow model at %.0f B: %d channel(s), %d flows simulated; most loaded link %s -> "
	       "%s (%s), %.4g B\n",
	       r->bytes, r->f.channels, r->f.flows, name[0], name[1], topo_lkind_name(l->kind),
	       r->f.hot_link_bytes);
	if (r->ch > 0)
		printf("# NCCL runs the alpha-beta model's %s at %.0f B on %.0f channels (its topology "
		       "search: net_tune_channels), one thread block on an SM of its own each: the "
		       "SMs it takes from the compute beside it in a step\n",
		       ab_algo_name(op, r->ab.algo), r->bytes, r->ch);
}

static int run_sizes(const coll_args *a, const topo_graph *g, net_coll op, double size,
                     topo_algo algo)
{
	int n = (int)a->gpus, *ranks = malloc((size_t)n * sizeof *ranks);
	if (!ranks)
		return 1;
	for (int i = 0; i < n; i++)
		ranks[i] = i * (int)a->stride;
	double s = a->sweep ? 8 : size;
	row r = {0};
	int rc = SIM_OK;
	bool opened = false; /* nothing on stdout if the first size fails */
	for (bool first = true; s <= size && rc == SIM_OK; s *= 2, first = false) {
		rc = time_one(g, op, ranks, n, (int)a->stride, s, algo, &r);
		if (rc == SIM_OK && !opened) {
			if (a->json)
				printf("[");
			else
				print_header(a, g, op, n);
			opened = true;
		}
		if (rc == SIM_OK)
			print_row(a, op, n, &r, first);
		if (!a->sweep)
			break;
	}
	if (a->json && opened)
		printf("]\n");
	else if (!a->json && rc == SIM_OK)
		print_footer(g, op, &r);
	free(ranks);
	if (rc == SIM_EINVAL) {
		fprintf(stderr,
		        "podsim coll: error: algorithm %s does not apply to %s on these GPUs\n",
		        a->algo ? a->algo : "auto", net_coll_name(op));
		return EXIT_INPUT;
	}
	if (rc == SIM_ERANGE) { /* the user's SIZE or --gpus, not a failure */
		fprintf(stderr,
		        "podsim coll: error: SIZE '%s' on %ld GPUs is too large to simulate "
		        "(a time past the clock's ~106 days, or too many flows)\n",
		        a->size, a->gpus);
		return EXIT_INPUT;
	}
	if (rc != SIM_OK)
		fprintf(stderr, "podsim coll: error: %s\n", sim_strerror(rc));
	return rc == SIM_OK ? 0 : 1;
}

/* Refuse up front what the flow model cannot finish in reasonable time: it
 * routes and rates every flow event by event, so its cost grows faster than
 * the GPU count. Measured (release build, 2-core x86-64, 1 GiB, on
 * dgx-h100-superpod scaled out; all-reduce when auto simulated the ring,
 * the tree and NVLSTree to keep the fastest; it now simulates NCCL's pick
 * alone, NVLSTree at 16,384: 0.64 s, 82 MB, and the limits below hold for
 * the costliest pick, the tree, which simulates its ring bound first):
 * all-reduce 0.05 s at 1,024 GPUs, 0.3 s at 4,096, 1.8 s at 16,384 (three
 * switch tiers, 655k flows, 142 MB), 6.5 s at 32,768 (282 MB; 65,536 would
 * pass the tree's 2^20 flows); all-to-all (n^2 flows at once) 0.2 s at 256,
 * 7 s at 1,024 (its flow limit); --sweep repeats it for each of ~30 sizes
 * (all-reduce at 4,096: 7.3 s; all-to-all at 256: 5.3 s, at 512: ~50 s).
 * Before route.c's cached searches: all-reduce 2.1 s at 4,096, 50 s at
 * 16,384. */
static bool too_big(const coll_args *a, net_coll op)
{
	long max = op == NET_ALLTOALL ? (a->sweep ? 256 : 1024) : (a->sweep ? 4096 : 32768);
	if (a->gpus <= max)
		return false;
	fprintf(stderr,
	        "podsim coll: error: --gpus %ld: the flow model times every flow and would run for "
	        "many minutes; use --gpus %ld or fewer%s\n",
	        a->gpus, max, a->sweep ? " with --sweep, or one SIZE without it" : "");
	return true;
}

int cli_coll(int argc, char **argv)
{
	coll_args a = {.stride = 1};
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	net_coll op;
	if (parse_op(a.op, &op) != SIM_OK)
		return bad("unknown collective", a.op);
	topo_algo algo = TOPO_ALGO_AUTO;
	if (a.algo && topo_algo_parse(a.algo, &algo) != SIM_OK)
		return bad("unknown --algo (ring, tree, hier, nvls, nvlstree, pat, collnetdirect, "
		           "collnetchain, auto)",
		           a.algo);
	bool ring_ok = op == NET_ALLREDUCE || op == NET_ALLGATHER || op == NET_REDUCESCATTER ||
	               op == NET_BROADCAST;
	if ((algo == TOPO_ALGO_RING && !ring_ok) ||
	    ((algo == TOPO_ALGO_TREE || algo == TOPO_ALGO_HIER || algo == TOPO_ALGO_NVLS ||
	      algo == TOPO_ALGO_NVLSTREE || algo == TOPO_ALGO_COLLNET_DIRECT ||
	      algo == TOPO_ALGO_COLLNET_CHAIN) &&
	     op != NET_ALLREDUCE) ||
	    (algo == TOPO_ALGO_PAT && op != NET_ALLGATHER && op != NET_REDUCESCATTER))
		return bad("this --algo does not apply to the collective", a.algo);
	double size = 0;
	char err[160];
	int pr = sim_unit_parse(a.size, SIM_UNIT_BYTES, &size, err, sizeof err);
	if (pr != SIM_OK || size < 1) {
		fprintf(stderr, "podsim coll: error: SIZE '%s': %s\n", a.size,
		        pr != SIM_OK ? err : "must be at least 1 B");
		return EXIT_INPUT;
	}
	if (too_big(&a, op))
		return EXIT_INPUT;
	topo_graph *g;
	rc = cli_topo_load(a.topology, a.sets, a.nsets, &g);
	if (rc)
		return rc;
	int total = topo_cluster(g)->gpus;
	if ((a.gpus - 1) * a.stride >= total || (op == NET_P2P && a.gpus < 2)) {
		fprintf(stderr, "podsim coll: error: --gpus %ld%s: the cluster has %d GPUs%s\n",
		        a.gpus, a.stride > 1 ? " at that --stride" : "", total,
		        op == NET_P2P ? " (p2p needs 2 or more)" : "");
		topo_free(g);
		return EXIT_INPUT;
	}
	rc = run_sizes(&a, g, op, size, algo);
	topo_free(g);
	return rc;
}
