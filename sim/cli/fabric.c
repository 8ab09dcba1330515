/* fabric.c - `podsim calibrate DATA... --fabric CLUSTER.ini [--out FILE.ini]
 * [--json]`: fit a cluster's fabric (EFA, InfiniBand, RoCE: the calibrated
 * terms of sim/net/coll.c "The EFA model"), and its nodes' NVLink ring
 * efficiency and NVLS rate, to the cluster's own collective benchmarks
 * (valid_fab_*: sim/valid/fabric.c), print the fit with the
 * leave-one-node-count-out errors, and write the fitted keys as a cluster
 * include file through a temporary file renamed into place. Reached from
 * cli_calibrate. Exit status: 0 ok, 1 runtime failure, 2 bad input. */
#include "cli/cli.h"
#include "valid/valid.h"

#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2
#define MAX_DATA   4096 /* repeated nccl-tests runs: a file each */

static const char usage[] =
        "usage: podsim calibrate DATA... --fabric CLUSTER.ini [--hold KEY=VALUE]...\n"
        "       [--out FILE.ini] [--json]\n"
        "\n"
        "Fit the fabric of CLUSTER.ini (EFA, InfiniBand, RoCE: [cluster] net_latency,\n"
        "msg_overhead, rail_bw, congestion, congestion_exp, sync_delay, on top of\n"
        "NCCL's own model) and its nodes' NVLink ring efficiency and NVLS rate ([node]\n"
        "intra_efficiency, nvls_busbw) to the cluster's own collective benchmarks, by\n"
        "GSL nonlinear least squares on relative errors. Off EFA the include file also\n"
        "sets network = alpha-beta, the closed forms the fit used.\n"
        "DATA are case CSVs (*.csv, the schema of tests/cases/efa-collectives.csv:\n"
        "allreduce, allgather and reducescatter rows with gpus, nodes, bytes and\n"
        "(where the file has a fabric column) the cluster's fabric, efa, ib-fat-tree,\n"
        "roce-fat-tree or rail-optimized, and\n"
        "busbw_GBps or time_us, and busbw_p05_GBps / busbw_p95_GBps where the 5th and\n"
        "95th percentiles are known) or nccl-tests output (any other name: all_reduce_perf,\n"
        "all_gather_perf, reduce_scatter_perf, one run per file; the same test run 5\n"
        "times or more gives each size its median and 5th-95th percentiles, the spread).\n"
        "Prints the values with standard errors, every row's residual, the error of each\n"
        "node count predicted by the fit without it, and the measured spread; --out\n"
        "writes the fitted keys as a cluster include file (the cluster file includes it\n"
        "after its node file). A parameter the rows drive to a bound of its range (no\n"
        "message cost, no congestion, NICs at their line rate: typical of one or two\n"
        "node counts) is held at that bound, named, and the others fitted again.\n"
        "\n"
        "options:\n"
        "  --fabric FILE  the cluster file to calibrate (required)\n"
        "  --hold KEY=VALUE  hold a parameter at VALUE instead of fitting it (repeatable;\n"
        "                 e.g. net_latency=75us where the rows leave it weakly determined\n"
        "                 and another measurement gives it; 0 turns a cost or a stretch off,\n"
        "                 e.g. congestion=0); written with the fitted keys\n"
        "  --out FILE     write the fitted [node] and [cluster] keys\n"
        "  --json         print the fit as JSON\n"
        "  -h, --help     this help\n"
        "\n"
        "exit status: 0 ok, 1 runtime error, 2 bad input\n";

#define MAX_HOLD 16

typedef struct fab_opts {
	const char *data[MAX_DATA];
	int ndata;
	const char *hold[MAX_HOLD];
	int nhold;
	const char *cluster, *out;
	bool json, help;
} fab_opts;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("calibrate", usage, msg, arg);
}

static int parse(int argc, char **argv, fab_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool val = !strcmp(a, "--fabric") || !strcmp(a, "--out") || !strcmp(a, "--hold");
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--fabric"))
			o->cluster = argv[++i];
		else if (!strcmp(a, "--out"))
			o->out = argv[++i];
		else if (!strcmp(a, "--hold") && o->nhold == MAX_HOLD)
			return bad("too many --hold", argv[i + 1]);
		else if (!strcmp(a, "--hold"))
			o->hold[o->nhold++] = argv[++i];
		else if (a[0] == '-' && a[1])
			return bad("unknown option", a);
		else if (o->ndata == MAX_DATA)
			return bad("too many data files", a);
		else
			o->data[o->ndata++] = a;
	}
	if (!o->help && !o->ndata)
		return bad("calibrate --fabric takes one or more data files", NULL);
	return 0;
}

static bool is_csv(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && !strcmp(path + n - 4, ".csv");
}

/* The data files as given, space-separated (for the output's headers); where
 * they do not fit (repeated runs: hundreds of files), the first and the last
 * with their count. */
static void data_names(const fab_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < o->ndata && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", o->data[i]);
	if (n >= len)
		snprintf(buf, len, "%.400s ... %.400s (%d files)", o->data[0], o->data[o->ndata - 1],
		         o->ndata);
}

typedef struct ini_job {
	const valid_fab_fit *fit;
	const char *data, *name;
} ini_job;

static int ini_fill(FILE *f, void *ctx)
{
	const ini_job *j = ctx;
	valid_fab_print_ini(f, j->fit, j->data, j->name);
	return SIM_OK;
}

static int load(const fab_opts *o, valid_fab_fit *f, hw_gpu *gpu, sim_diag *d)
{
	conf_doc *doc = NULL;
	int rc = conf_load(o->cluster, d, &doc);
	if (rc == SIM_OK)
		rc = hw_gpu_from_conf(doc, gpu, d);
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, &f->cluster, d);
	conf_free(doc);
	snprintf(f->cluster_path, sizeof f->cluster_path, "%s", o->cluster);
	for (int i = 0; i < o->ndata && rc == SIM_OK; i++) {
		if (!is_csv(o->data[i])) {
			rc = valid_fab_rows_nccl_tests(o->data[i], f, d);
			continue;
		}
		cases_csv *csv = NULL;
		rc = valid_case_read(o->data[i], &csv, d);
		if (rc == SIM_OK)
			rc = valid_fab_rows_csv(csv, gpu, f, d);
		cases_csv_free(csv);
	}
	return rc;
}

int cli_calibrate_fabric(int argc, char **argv)
{
	fab_opts o = {0};
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, &o.out, 1)) >= 0)
		return rc;
	if (!o.cluster || !*o.cluster)
		return bad("--fabric takes the cluster file", NULL);
	sim_diag *d = sim_diag_new();
	valid_fab_fit fit;
	memset(&fit, 0, sizeof fit);
	for (int i = 0; i < o.nhold; i++) {
		char err[256];
		if (valid_fab_hold(&fit, o.hold[i], err, sizeof err) != SIM_OK) {
			sim_diag_free(d);
			return bad(err, NULL);
		}
	}
	hw_gpu gpu;
	rc = load(&o, &fit, &gpu, d);
	if (rc == SIM_OK)
		rc = valid_fab_fit_run(&fit, d);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	char data[1024];
	data_names(&o, data, sizeof data);
	if (rc == SIM_OK && o.out) {
		const char *name = strrchr(o.out, '/') ? strrchr(o.out, '/') + 1 : o.out;
		ini_job j = {&fit, data, name};
		rc = cli_write_file("calibrate", o.out, ini_fill, &j);
		if (rc != SIM_OK) {
			valid_fab_fit_free(&fit);
			return 1;
		}
	}
	if (rc == SIM_OK && o.json)
		valid_fab_print_json(stdout, &fit, data);
	else if (rc == SIM_OK)
		valid_fab_print_text(stdout, &fit, data);
	valid_fab_fit_free(&fit);
	return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
}
