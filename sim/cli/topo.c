/* topo.c - `podsim topo FILE.ini [--dot]`: the link graph of a cluster file
 * (sim/topo): vertices and links per kind, diameter, bisection and per-GPU
 * injection bandwidth, or the graph in Graphviz DOT for small clusters. Also
 * holds cli_topo_load, which `podsim coll` shares. */
#include "topo/topo.h"
#include "cli/cli.h"

#include <string.h>

#define EXIT_INPUT 2

static const char usage_topo[] =
        "usage: podsim topo CLUSTER.ini [--dot] [--set SECTION.KEY=VALUE ...]\n"
        "\n"
        "Build the cluster's link graph (GPUs, NVSwitch or NVLink mesh, PCIe switches,\n"
        "CPU, NICs, NVMe, leaf and spine switches) and print a summary: vertices and\n"
        "links per kind, diameter in hops between GPUs, bisection bandwidth (max flow\n"
        "from the first half of the GPUs to the second) and injection bandwidth per\n"
        "GPU. --dot prints the graph for Graphviz instead (at most 512 vertices).\n"
        "\n"
        "options:\n"
        "  --dot                    Graphviz DOT on stdout ('| dot -Tsvg > t.svg')\n"
        "  --set SECTION.KEY=VALUE  override a key, e.g. --set cluster.nodes=4\n"
        "  -h, --help               this help\n";

int cli_topo_load(const char *path, const char *const *sets, int nsets, topo_graph **out)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	net_cluster c;
	*out = NULL;
	int rc = d ? conf_load_set(path, sets, (size_t)(nsets > 0 ? nsets : 0), d, &doc) : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, &c, d);
	if (d)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	conf_free(doc);
	/* Past TOPO_MAX_GPUS the graph is refused rather than left to exhaust
	 * memory (topo.h). */
	if (rc == SIM_OK && (int64_t)c.nodes * c.node.gpus > TOPO_MAX_GPUS) {
		fprintf(stderr,
		        "%s: error: %d nodes x %d GPUs: the link graph is built for at most %d "
		        "GPUs; set cluster.nodes to %d or fewer\n",
		        path, c.nodes, c.node.gpus, TOPO_MAX_GPUS,
		        TOPO_MAX_GPUS / c.node.gpus);
		return EXIT_INPUT;
	}
	/* Four switch tiers of the NIC rate's radix hold so many nodes; a
	 * fifth is not generated (fabric.c). */
	if (rc == SIM_OK && c.nodes > topo_fabric_max_nodes(&c)) {
		fprintf(stderr,
		        "%s: error: %d nodes: four switch tiers (leaf, spine, core, supercore) of "
		        "this NIC rate's radix hold at most %d and podsim builds no fifth; set "
		        "cluster.nodes to %d or fewer\n",
		        path, c.nodes, topo_fabric_max_nodes(&c), topo_fabric_max_nodes(&c));
		return EXIT_INPUT;
	}
	if (rc == SIM_OK) {
		rc = topo_build(&c, out);
		if (rc != SIM_OK)
			fprintf(stderr, "%s: error: cannot build the link graph: %s\n", path,
			        sim_strerror(rc));
	}
	return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
}

static void bw(double Bps, char *buf, size_t len)
{
	sim_unit_format(Bps, SIM_UNIT_BANDWIDTH, buf, len);
}

static void print_summary(const topo_graph *g, const topo_summary *s)
{
	const net_cluster *c = topo_cluster(g);
	char a[32], b[32];
	printf("cluster %s: %d nodes x %d GPUs (%s), %d GPUs\n", c->name, c->nodes, c->node.gpus,
	       c->node.name, c->gpus);
	printf("vertices: %d\n", s->nvertices);
	for (int k = 0; k < TOPO_V_KIND_COUNT; k++)
		if (s->vertices[k])
			printf("  %-12s %6d\n", topo_vkind_name((topo_vkind)k), s->vertices[k]);
	printf("links (directed): %d\n", s->nlinks);
	for (int k = 0; k < TOPO_L_KIND_COUNT; k++)
		if (s->links[k])
			printf("  %-12s %6d\n", topo_lkind_name((topo_lkind)k), s->links[k]);
	printf("diameter: %d hops (GPU to GPU)\n", s->diameter_hops);
	if (s->bisection_Bps >= 0) {
		bw(s->bisection_Bps, a, sizeof a);
		printf("bisection bandwidth: %s per direction\n", a);
	} else
		printf("bisection bandwidth: not computed (over %d vertices)\n",
		       TOPO_SUMMARY_MAX_VERTICES);
	bw(s->inject_scaleup_Bps, a, sizeof a);
	bw(s->inject_net_Bps, b, sizeof b);
	printf("injection per GPU: scale-up %s, network %s\n", a, b);
}

int cli_topo(int argc, char **argv)
{
	const char *file = NULL, *sets[64];
	int nsets = 0;
	bool dot = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_topo, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--dot"))
			dot = true;
		else if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < 64)
			sets[nsets++] = argv[++i];
		else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "podsim topo: error: unexpected argument '%s'\n\n%s",
			        argv[i], usage_topo);
			return EXIT_INPUT;
		} else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "podsim topo: error: expected a cluster file\n\n%s", usage_topo);
		return EXIT_INPUT;
	}
	topo_graph *g;
	int rc = cli_topo_load(file, sets, nsets, &g);
	if (rc)
		return rc;
	if (dot) {
		rc = topo_write_dot(g, stdout);
		if (rc == SIM_ERANGE)
			fprintf(stderr,
			        "podsim topo: error: the graph has %d vertices; --dot draws at "
			        "most %d "
			        "(a larger drawing is unreadable): use --set cluster.nodes=2\n",
			        topo_nvertices(g), TOPO_DOT_MAX_VERTICES);
		topo_free(g);
		return rc == SIM_OK ? 0 : EXIT_INPUT;
	}
	topo_summary s;
	rc = topo_summarize(g, &s);
	if (rc == SIM_OK)
		print_summary(g, &s);
	else
		fprintf(stderr, "podsim topo: error: %s\n", sim_strerror(rc));
	topo_free(g);
	return rc == SIM_OK ? 0 : 1;
}
