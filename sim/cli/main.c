/* main.c - the podsim command line: argument parsing and the commands. The only
 * place that calls exit() or decides exit statuses:
 *   0 success, 1 runtime failure (database, out of memory), 2 bad input. */
#include "cli/cli.h"
#include "serve/serve.h"
#include "report/report.h"
#include "store/store.h"
#include "sweep/sweep.h"
#include "valid/valid.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_INPUT 2
#define MAX_SETS 256

static const char usage_main[] =
	"usage: podsim COMMAND [ARGS]\n"
	"\n"
	"Predict a training step of a transformer on a GPU cluster by simulation.\n"
	"\n"
	"commands:\n"
	"  run SCENARIO.ini    simulate one step, print the report, store the run\n"
	"                      (a file with a [serve] section: as 'podsim serve')\n"
	"  serve SCENARIO.ini  simulate serving: a request stream over model replicas,\n"
	"                      TTFT/TPOT/latency percentiles, throughput, KV cache\n"
	"  runs                list the stored runs\n"
	"  runs show ID        print a stored run again\n"
	"  runs digest         hash of the stored rows (for determinism checks)\n"
	"  runs merge OUT IN.. combine run databases (e.g. sweep --shard outputs)\n"
	"  validate CASES.csv  compare predictions with published measurements\n"
	"  kernel              one kernel's predicted time on a GPU type (GEMM, copy,\n"
	"                      attention), to compare with a measurement\n"
	"  estimate            back-of-the-envelope figures: memory, GPUs, C = 6PD, days\n"
	"  explain SCENARIO.ini  each headline number's formula, values and simulation\n"
	"  train SCENARIO.ini  the whole campaign: days to train with failures,\n"
	"                      checkpoints and restarts (Monte Carlo), goodput\n"
	"  calibrate CASES.csv --gpu NAME  fit a GPU's efficiencies to measured kernels\n"
	"  sweep FILE          search plans: pre-screen, simulate the best, rank, cost\n"
	"  compare ID ID ...   stored runs side by side, the biggest difference explained\n"
	"  topo CLUSTER.ini    the cluster's link graph: counts, diameter, bisection, DOT\n"
	"  coll --topology F --gpus N OP SIZE  a collective, flow model vs alpha-beta\n"
	"  keys                list every configuration key with its unit and default\n"
	"\n"
	"options:\n"
	"  -h, --help          this help; 'podsim COMMAND --help' for a command\n"
	"  --version           print the version\n"
	"\n"
	"The run database is podsim.db in the working directory unless --db PATH or\n"
	"the environment variable PODSIM_DB names another.\n";

static const char usage_run[] =
	"usage: podsim run SCENARIO.ini [options]\n"
	"\n"
	"Simulate one training step of the scenario and print step time, its breakdown\n"
	"per pipeline stage, MFU, memory per GPU and the most loaded links.\n"
	"\n"
	"options:\n"
	"  --set SECTION.KEY=VALUE  override a key (repeatable), e.g. --set parallel.tp=4\n"
	"  --json                   print one JSON object instead of the text report\n"
	"  --db PATH                run database (default: $PODSIM_DB, else podsim.db)\n"
	"  --no-db                  do not store the run\n"
	"  --print-config           print the resolved configuration and exit\n"
	"  --gantt                  draw each pipeline stage's compute stream as text\n"
	"  --trace FILE             write the replayed timeline as a Chrome trace (open it\n"
	"                           in https://ui.perfetto.dev or chrome://tracing)\n"
	"  --html FILE              also write the report as one self-contained HTML page\n"
	"                           (Gantt chart, breakdown, memory and link bars)\n"
	"  --spread-samples N       on a cluster with a measured collective spread ([cluster]\n"
	"                           spread, EFA): replay the step N times with sampled\n"
	"                           collective times for its 5th-95th percentile (default 100;\n"
	"                           0 = off; seeded by [scenario] seed)\n"
	"  -h, --help               this help\n"
	"\n"
	"exit status: 0 ok, 1 runtime error (database), 2 bad input (nothing stored)\n";

static const char usage_runs[] =
	"usage: podsim runs [--db PATH] [--limit N]\n"
	"       podsim runs show ID [--db PATH] [--json] [--html FILE]\n"
	"       podsim runs digest [--db PATH]\n"
	"       podsim runs merge OUT.db IN.db...   (see podsim runs merge --help)\n"
	"\n"
	"List the stored runs, newest first, or print one stored run again exactly as\n"
	"'podsim run' printed it. A serving run ('podsim serve', listed under 'serving\n"
	"runs') is 'runs show sID' (or plain ID when no training run has that id);\n"
	"--html is for training runs. 'runs digest' prints a hash of every stored row\n"
	"except ids and timestamps: equal databases of equal runs have equal digests.\n"
	"\n"
	"options:\n"
	"  --db PATH    run database (default: $PODSIM_DB, else podsim.db)\n"
	"  --limit N    list at most N runs (default 50, 0 = all)\n"
	"  --json       print the run as JSON\n"
	"  --html FILE  also write the run as an HTML page (its Gantt chart is redrawn\n"
	"               by replaying the stored scenario when it reproduces the run)\n"
	"  -h, --help   this help\n";

static const char usage_validate[] =
	"usage: podsim validate CASES.csv [options]\n"
	"\n"
	"Simulate every row of a case file and compare with the measurement. Training\n"
	"runs (a 'measured_iter_s' column, as tests/cases/calibration.csv) become\n"
	"scenarios built from their hardware and plan columns; microbenchmarks (a\n"
	"'kind' column, as tests/cases/microbench.csv) go to the kernel and collective\n"
	"models. Prints the worst rows, skipped rows by reason, and per source group\n"
	"the MAPE, median and worst error and Kendall's tau between measured and\n"
	"predicted times of rows that share model and GPU count, and how many rows\n"
	"rest on cells their source leaves open (each said on its row).\n"
	"\n"
	"options:\n"
	"  --json           print {rows: [...], summary: {...}} instead\n"
	"  --rows           print every row, not only the 10 worst\n"
	"  --only PREFIX    only rows whose id starts with PREFIX (e.g. V, S, LUT-A100)\n"
	"  --where COL=VAL  only rows whose column COL holds VAL (e.g. hidden=1024)\n"
	"  --scenario ID    print the scenario built for training row ID and exit\n"
	"                   (save it and 'podsim run' it to see that row's breakdown)\n"
	"  --max-mape X     exit with status 1 when the overall MAPE exceeds X (e.g. 0.25)\n"
	"  --gates FILE     exit with status 1 when a source's MAPE or |mean signed error|\n"
	"                   exceeds its gate: lines 'CSV | SOURCE | MAPE | BIAS' of FILE\n"
	"                   for this CSV's name (SOURCE: a group, 'all' rows, or 'sources',\n"
	"                   the mean over sources); tests/cases/max-mape.txt\n"
	"  --bands-out FILE write the error bands of the training rows (residual\n"
	"                   quantiles per GPU generation, framework and scale), the\n"
	"                   table 'podsim run' reads from topologies/bands.csv\n"
	"  --network M      time collectives with alpha-beta, flow (link graph) or auto\n"
	"                   (default: flow up to 512 nodes)\n"
	"  --data DIR       folder holding models/ and topologies/ (default: $PODSIM_DATA,\n"
	"                   else the source tree podsim was built from)\n"
	"  --threads N      predict N rows at once (default: the cores it may use); the\n"
	"                   report is the same for any N\n"
	"  -h, --help       this help\n"
	"\n"
	"A serving case file (an 'engine' and a 'batching' column, as\n"
	"tests/cases/serving.csv) runs each row as a serving scenario (podsim serve)\n"
	"and prints MAPE per source and metric; --json, --rows, --only, --scenario\n"
	"and --max-mape apply.\n";

static const char usage_keys[] =
	"usage: podsim keys\n"
	"\n"
	"Print every configuration key of every section: type or unit, default\n"
	"(required when none) and a line of help.\n";

typedef struct cli_opts {
	const char *file;
	const char *sets[MAX_SETS];
	size_t nsets;
	const char *db;
	bool no_db, json, print_config, help, gantt;
	long limit;
	const char *show_id;
	bool rows;
	const char *only, *data, *trace, *scenario, *html, *where;
	const char *network; /* validate --network */
	const char *bands_out; /* validate --bands-out */
	const char *gates;     /* validate --gates */
	double max_mape;
	long spread_samples;   /* run --spread-samples (-1 = EXEC_SPREAD_SAMPLES) */
	long threads;          /* validate --threads (0: the CPUs it may use) */
} cli_opts;

int cli_usage_error(const char *cmd, const char *usage, const char *msg, const char *arg)
{
	fprintf(stderr, "podsim%s%s: error: %s%s%s\n", cmd ? " " : "", cmd ? cmd : "", msg,
		arg ? ": " : "", arg ? arg : "");
	if (usage)
		fprintf(stderr, "\n%s", usage);
	return EXIT_INPUT;
}

static int bad_usage(const char *msg, const char *arg, const char *usage)
{
	return cli_usage_error(NULL, usage, msg, arg);
}

/* Parse options shared by the commands; positional arguments go to pos[]. */
static int parse(int argc, char **argv, cli_opts *o, const char **pos, int *npos,
		 const char *usage)
{
	*npos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool has_next = i + 1 < argc;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--no-db"))
			o->no_db = true;
		else if (!strcmp(a, "--print-config"))
			o->print_config = true;
		else if (!strcmp(a, "--gantt"))
			o->gantt = true;
		else if (!strcmp(a, "--rows"))
			o->rows = true;
		else if ((!strcmp(a, "--set") || !strcmp(a, "--db") || !strcmp(a, "--limit") ||
			  !strcmp(a, "--only") || !strcmp(a, "--data") || !strcmp(a, "--max-mape") ||
			  !strcmp(a, "--gates") ||
			  !strcmp(a, "--trace") || !strcmp(a, "--scenario") || !strcmp(a, "--html") ||
			  !strcmp(a, "--where") || !strcmp(a, "--network") || !strcmp(a, "--bands-out") ||
			  !strcmp(a, "--spread-samples") || !strcmp(a, "--threads")) &&
			 !has_next)
			return bad_usage("option needs a value", a, usage);
		else if (!strcmp(a, "--set")) {
			if (o->nsets == MAX_SETS)
				return bad_usage("too many --set options", NULL, usage);
			o->sets[o->nsets++] = argv[++i];
		} else if (!strcmp(a, "--db"))
			o->db = argv[++i];
		else if (!strcmp(a, "--trace"))
			o->trace = argv[++i];
		else if (!strcmp(a, "--html"))
			o->html = argv[++i];
		else if (!strcmp(a, "--only"))
			o->only = argv[++i];
		else if (!strcmp(a, "--scenario"))
			o->scenario = argv[++i];
		else if (!strcmp(a, "--where"))
			o->where = argv[++i];
		else if (!strcmp(a, "--network"))
			o->network = argv[++i];
		else if (!strcmp(a, "--bands-out"))
			o->bands_out = argv[++i];
		else if (!strcmp(a, "--data"))
			o->data = argv[++i];
		else if (!strcmp(a, "--gates"))
			o->gates = argv[++i];
		else if (!strcmp(a, "--max-mape")) {
			char *end;
			o->max_mape = strtod(argv[++i], &end);
			if (*end || !(o->max_mape > 0))
				return bad_usage("--max-mape takes a positive fraction", argv[i], usage);
		} else if (!strcmp(a, "--spread-samples")) {
			if (cli_parse_samples(argv[++i], &o->spread_samples) != 0)
				return bad_usage(CLI_SAMPLES_MSG, argv[i], usage);
		} else if (!strcmp(a, "--threads")) {
			char *end;
			o->threads = strtol(argv[++i], &end, 10);
			if (*end || o->threads < 1 || o->threads > SIM_PAR_MAX)
				return bad_usage("--threads takes a count from 1 to 64", argv[i], usage);
		} else if (!strcmp(a, "--limit")) {
			char *end;
			o->limit = strtol(argv[++i], &end, 10);
			if (*end || o->limit < 0)
				return bad_usage("--limit takes a count", argv[i], usage);
		} else if (a[0] == '-' && a[1])
			return bad_usage("unknown option", a, usage);
		else if (*npos < 4)
			pos[(*npos)++] = a;
		else
			return bad_usage("too many arguments", a, usage);
	}
	return 0;
}

int cli_parse_samples(const char *text, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(text, &end, 10);
	if (end == text || *end || errno || n < 0 || n > EXEC_SPREAD_MAX)
		return -1;
	*out = n;
	return 0;
}

const char *cli_datadir(void)
{
	const char *env = getenv("PODSIM_DATA");
	return env && *env ? env : PODSIM_SRCDIR;
}

void cli_exposed_text(const exec_result *r, const exec_cat *cats, size_t n, bool each_s,
                      char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < n && used < len; k++) {
		double most = exec_cat_most(r, cats[k]);
		if (most > 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %.3g%s",
			                         used ? ", " : "", exec_cat_name(cats[k]), most,
			                         each_s ? " s" : "");
	}
	if (used == 0)
		snprintf(buf, len, "none");
	else if (!each_s && used < len)
		snprintf(buf + used, len - used, " s");
}

/* The settings that move each breakdown category, most direct first. */
const char *const *cli_cat_settings(exec_cat c)
{
	static const char *const bubble[] = {"parallel.vpp",
	                                     "parallel.pp",
	                                     "parallel.micro_batch",
	                                     "parallel.schedule",
	                                     "parallel.global_batch",
	                                     "parallel.dp",
	                                     NULL};
	static const char *const compute[] = {"parallel.recompute",
	                                      "parallel.recompute_layers",
	                                      "parallel.tp",
	                                      "parallel.micro_batch",
	                                      "train.precision",
	                                      "parallel.dp",
	                                      "parallel.pp",
	                                      NULL};
	static const char *const tp[] = {"parallel.tp", "parallel.sequence_parallel", NULL};
	static const char *const dp[] = {"parallel.zero", "parallel.overlap_grad_reduce",
	                                 "parallel.dp",   "parallel.bucket_size",
	                                 "cluster.nodes", NULL};
	static const char *const pp[] = {"parallel.pp", "parallel.vpp", "parallel.micro_batch",
	                                 NULL};
	static const char *const opt[] = {"parallel.zero", "parallel.dp", "parallel.tp",
	                                  "parallel.pp", NULL};
	static const char *const cp[] = {"parallel.cp", NULL};
	static const char *const ep[] = {"parallel.ep", "parallel.moe_a2a_overlap",
	                                 "parallel.moe_dispatcher", NULL};
	static const char *const off[] = {"parallel.offload_optimizer", "parallel.offload_params",
	                                  "train.activation_offload", NULL};
	static const char *const none[] = {NULL};
	switch (c) {
	case EXEC_CAT_BUBBLE:
		return bubble;
	case EXEC_CAT_COMPUTE:
		return compute;
	case EXEC_CAT_TP:
		return tp;
	case EXEC_CAT_DP:
		return dp;
	case EXEC_CAT_PP:
		return pp;
	case EXEC_CAT_OPTIMIZER:
		return opt;
	case EXEC_CAT_CP:
		return cp;
	case EXEC_CAT_EP:
		return ep;
	case EXEC_CAT_OFFLOAD:
		return off;
	default:
		return none;
	}
}

const char *cli_cat_words(exec_cat c)
{
	switch (c) {
	case EXEC_CAT_COMPUTE:
		return "computing";
	case EXEC_CAT_OPTIMIZER:
		return "in the optimizer";
	case EXEC_CAT_BUBBLE:
		return "in pipeline bubbles";
	case EXEC_CAT_TP:
		return "waiting on tensor-parallel communication";
	case EXEC_CAT_DP:
		return "waiting on data-parallel communication";
	case EXEC_CAT_PP:
		return "waiting on pipeline transfers";
	case EXEC_CAT_CP:
		return "waiting on context-parallel transfers";
	case EXEC_CAT_EP:
		return "waiting on expert-parallel all-to-alls";
	case EXEC_CAT_OFFLOAD:
		return "waiting on offload copies and the host's optimizer";
	default:
		return "in other waits";
	}
}

void cli_step_diff_text(const exec_step_diff *d, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%+.4f s:", d->step_s);
	int shown = 0;
	for (int k = 0; k < d->nterms && used < len; k++) {
		double x = d->cat_s[d->order[k]];
		if (fabs(x) < 0.00005) /* prints as +0.0000 */
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s %s %+.4f", shown++ ? "," : "",
		                         exec_cat_name(d->order[k]), x);
	}
	if (shown == 0 && used < len)
		snprintf(buf + used, len - used, " the same breakdown");
}

int cli_load_refs(valid_refs **out)
{
	sim_diag *d = sim_diag_new();
	int rc = d ? valid_refs_load(cli_datadir(), out, d) : SIM_ENOMEM;
	if (d)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
}

static const char *db_path(const cli_opts *o)
{
	return cli_db_path(o->db);
}

const char *cli_db_path(const char *flag)
{
	if (flag)
		return flag;
	const char *env = getenv(STORE_ENV);
	return env && *env ? env : STORE_DEFAULT_PATH;
}

bool cli_flush_diag(sim_diag *d)
{
	sim_diag_print(d, stderr);
	bool bad = sim_diag_error_count(d) > 0;
	sim_diag_clear(d);
	return bad;
}

void cli_put_json(sim_buf *b)
{
	if (b->oom)
		fputs("{\"error\":\"out of memory\"}\n", stdout);
	else
		fwrite(b->data, 1, b->len, stdout);
	sim_buf_free(b);
}

static int store_run(const cli_opts *o, const plan_scenario *s, const exec_result *r,
		     int64_t *id, sim_diag *d)
{
	*id = 0;
	if (o->no_db)
		return SIM_OK;
	store *db;
	int rc = store_open(db_path(o), &db, d);
	if (rc != SIM_OK)
		return rc;
	char *text = plan_scenario_text(s);
	rc = text ? store_put_run(db, text, r, id, d) : SIM_ENOMEM;
	free(text);
	store_close(db);
	return rc;
}

/* Simulate; with --trace write the timeline through sim_out (a temporary file
 * renamed into place only when complete, so a failed run leaves no
 * half-written trace); with --gantt render the chart into *gantt (malloc'd
 * text) for printing after the report. */
static int run_views(const cli_opts *o, const plan_scenario *s, exec_result *r, char **gantt,
		     exec_timeline *tl)
{
	exec_spread_opts sp = {o->spread_samples >= 0 ? (int)o->spread_samples : EXEC_SPREAD_SAMPLES,
			       s->seed, -1, 0};
	exec_views v = {NULL, NULL, 100, o->html ? tl : NULL, &sp, false};
	size_t glen = 0;
	sim_out *trace = NULL;
	*gantt = NULL;
	if (o->gantt)
		v.gantt = open_memstream(gantt, &glen);
	int rc = o->gantt && !v.gantt ? SIM_EIO : SIM_OK;
	if (rc == SIM_OK && o->trace && (rc = sim_out_open(o->trace, &trace)) == SIM_OK)
		v.trace = sim_out_file(trace);
	if (rc == SIM_OK)
		rc = exec_run_views(s, r, &v);
	if (v.gantt)
		fclose(v.gantt);
	if (trace)
		rc = sim_out_close(trace, rc);
	if (rc == SIM_EIO)
		fprintf(stderr, "%s: error: cannot write the trace: %s\n",
			o->trace ? o->trace : "gantt", strerror(errno));
	return rc;
}

/* Outputs named on the command line are checked before any work, so a
 * directory or a missing folder is bad input (exit 2), not a lost run. */
bool cli_db_ok(const char *path)
{
	const char *why = store_path_refused(path);
	if (why)
		fprintf(stderr, "%s: error: cannot open database: %s\n", *path ? path : "''", why);
	return !why;
}

bool cli_outputs_ok(const char *const *paths, size_t n)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		char why[256];
		if (paths[i] && sim_out_check(paths[i], why, sizeof why) != SIM_OK) {
			fprintf(stderr, "%s: error: %s\n", *paths[i] ? paths[i] : "''", why);
			ok = false;
		}
	}
	return ok;
}

int cli_parsed(int rc, bool help, const char *usage, const char *const *paths, size_t n)
{
	if (rc)
		return rc;
	if (help) {
		fputs(usage, stdout);
		return 0;
	}
	return cli_outputs_ok(paths, n) ? -1 : EXIT_INPUT;
}

const char *cli_one_arg(const char *a, const char **slot, const char *taken)
{
	if (a[0] == '-' && a[1])
		return "unknown option";
	if (*slot)
		return taken;
	*slot = a;
	return NULL;
}

int cli_write_file(const char *cmd, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	int rc = sim_write_atomic(path, fill, ctx);
	if (rc != SIM_OK)
		fprintf(stderr, "podsim %s: error: cannot write %s: %s\n", cmd, path,
		        strerror(errno));
	return rc;
}

/* The energy per step of a run (after its report; runs show reads its
 * inputs, and run_remedy's, from the stored scenario text). */
static void step_energy(const plan_scenario *s, const exec_result *r)
{
	sweep_energy e;
	sweep_energy_scenario(s, r->gpus, r->step_s / 3600.0, &e);
	cli_energy_print(stdout, "\nenergy per step (each term and its source)", &e, s->gpu.name,
			 "[node] power", false);
}

/* A plan that does not fit, or is tight: what makes it fit without
 * changing its split (sweep_fit_remedy), after its report. */
static void run_remedy(const plan_scenario *s, const exec_result *r)
{
	plan_verdict v = exec_mem_verdict(r);
	sweep_remedy fix;
	if (v == PLAN_VERDICT_FITS || s->inference || sweep_fit_remedy(s, &fix) != SIM_OK)
		return;
	printf("\nmemory: %s; what makes it fit (podsim explain: each change alone, every term)\n",
	       v == PLAN_VERDICT_OOM ? "out of memory" : "tight, under 10 % headroom");
	cli_remedy_print(stdout, &fix);
}

/* The run's JSON with the energy terms per step as its last member, after
 * fit_with where the plan does not fit or is tight (s NULL: the report
 * alone). */
static void run_json(const plan_scenario *s, const exec_result *r, int64_t id)
{
	if (!s) {
		report_json(stdout, r, id);
		return;
	}
	sim_buf b;
	sim_buf_init(&b);
	report_json_buf(&b, r, id);
	/* the report ends "}}\n": reopen its object */
	while (!b.oom && b.len > 0 && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '}')) {
		b.len--;
		if (b.data[b.len] == '}')
			break;
	}
	sim_buf_append(&b, ",", 1);
	sweep_remedy fix;
	if (!s->inference && exec_mem_verdict(r) != PLAN_VERDICT_FITS &&
	    sweep_fit_remedy(s, &fix) == SIM_OK) {
		cli_remedy_json(&b, &fix);
		sim_buf_append(&b, ",", 1);
	}
	sweep_energy e;
	sweep_energy_scenario(s, r->gpus, r->step_s / 3600.0, &e);
	cli_energy_json(&b, &e, s->gpu.name, "[node] power");
	sim_buf_append(&b, "}\n", 2);
	cli_put_json(&b);
}

static int cmd_run(int argc, char **argv)
{
	cli_opts o = {0};
	o.spread_samples = -1;
	const char *pos[4];
	int npos, rc = parse(argc, argv, &o, pos, &npos, usage_run);
	if (rc)
		return rc;
	if (o.help) {
		fputs(usage_run, stdout);
		return 0;
	}
	if (npos != 1)
		return bad_usage("run takes one scenario file", NULL, usage_run);
	const char *outs[] = {o.trace, o.html};
	if (!cli_outputs_ok(outs, 2) || (!o.no_db && !cli_db_ok(db_path(&o))))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	rc = plan_scenario_load(pos[0], o.sets, o.nsets, d, &s);
	if (cli_flush_diag(d) || rc != SIM_OK) {
		sim_diag_free(d);
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	if (o.print_config) {
		char *text = plan_scenario_text(s);
		fputs(text ? text : "", stdout);
		free(text);
		plan_scenario_free(s);
		sim_diag_free(d);
		return 0;
	}
	valid_refs *refs = NULL;
	if ((rc = cli_load_refs(&refs)) != 0) {
		plan_scenario_free(s);
		sim_diag_free(d);
		return rc;
	}
	exec_result *r = malloc(sizeof *r);
	int64_t id = 0;
	char *gantt = NULL;
	exec_timeline tl = {0};
	rc = r ? run_views(&o, s, r, &gantt, &tl) : SIM_ENOMEM;
	if (rc == SIM_OK)
		valid_refs_apply(refs, s, r);
	valid_refs_free(refs);
	if (rc == SIM_OK)
		rc = store_run(&o, s, r, &id, d);
	bool told = cli_flush_diag(d); /* the error itself, e.g. "db: error: ..." */
	if (rc == SIM_OK) {
		if (o.json)
			run_json(s, r, id);
		else
			report_text(stdout, r, id);
		if (!o.json) {
			run_remedy(s, r);
			step_energy(s, r);
		}
		if (gantt && !o.json)
			fputs(gantt, stdout);
		if (o.html && report_html_file(o.html, r, id, &tl, NULL) != SIM_OK) {
			fprintf(stderr, "%s: error: cannot write the HTML report: %s\n", o.html,
				strerror(errno));
			rc = SIM_EIO;
		}
		if (id > 0)
			fprintf(stderr, "podsim: stored as run %lld in %s\n", (long long)id,
				db_path(&o));
		fprintf(stderr, "podsim: simulated in %.3f s\n", r->wall_s);
	} else if (rc == SIM_ERANGE && r && r->error[0]) { /* bad input: the clock */
		fprintf(stderr, "%s: error: %s\n", pos[0], r->error);
	} else if (r && r->error[0] && !told && rc != SIM_EIO) { /* the builder said why */
		fprintf(stderr, "podsim: error: %s\n", r->error);
	} else if (!told && rc != SIM_EIO) { /* run_views told of its EIO */
		fprintf(stderr, "podsim: error: %s\n", sim_strerror(rc));
	}
	free(gantt);
	exec_timeline_free(&tl);
	free(r);
	plan_scenario_free(s);
	sim_diag_free(d);
	return rc == SIM_OK ? 0 : rc == SIM_ERANGE ? EXIT_INPUT : 1;
}

/* runs show --html: redraw the Gantt chart when the stored scenario replays
 * to the stored step time, else write the page without it and say why. */
static int html_of_stored(const char *path, const exec_result *r, int64_t id, const char *text)
{
	exec_timeline tl = {0};
	const char *why = NULL;
	bool ok = report_html_timeline(text, r, &tl, &why) == SIM_OK;
	int rc = report_html_file(path, r, id, ok ? &tl : NULL, why);
	exec_timeline_free(&tl);
	if (rc != SIM_OK)
		fprintf(stderr, "%s: error: cannot write the HTML report: %s\n", path,
			strerror(errno));
	else if (!ok)
		fprintf(stderr, "podsim: note: %s: no Gantt chart: %s\n", path, why);
	return rc;
}

static int runs_show(const cli_opts *o, store *db, const char *id_text, sim_diag *d)
{
	char *end;
	bool serving = id_text[0] == 's';
	long long id = strtoll(id_text + serving, &end, 10);
	if (*end || id <= 0 || !isdigit((unsigned char)id_text[serving])) {
		fprintf(stderr, "podsim: error: run id must be a positive integer (sN for a serving "
				"run): %s\n", id_text);
		return EXIT_INPUT;
	}
	if (serving && o->html) {
		fprintf(stderr, "podsim: error: --html: a serving run's page is written by "
				"'podsim serve FILE --html'\n");
		return EXIT_INPUT;
	}
	exec_result *r = serving ? NULL : malloc(sizeof *r);
	char *text = NULL;
	int rc = serving ? SIM_ENOTFOUND : r ? store_get_run(db, id, r, &text, d) : SIM_ENOMEM;
	cli_flush_diag(d);
	if (rc == SIM_ENOTFOUND && !o->html) { /* a serving run of that id */
		free(r);
		rc = cli_show_serve(db, id, o->json, d);
		cli_flush_diag(d);
		if (rc == SIM_ENOTFOUND)
			fprintf(stderr, "podsim: error: no %srun %lld in %s\n", serving ? "serving " : "",
				id, db_path(o));
		return rc == SIM_OK ? 0 : rc == SIM_ENOTFOUND ? EXIT_INPUT : 1;
	}
	if (rc == SIM_OK && o->html && html_of_stored(o->html, r, id, text) != SIM_OK)
		rc = SIM_EIO;
	if (rc == SIM_ENOTFOUND)
		fprintf(stderr, "podsim: error: no run %lld in %s\n", id, db_path(o));
	else if (rc == SIM_OK) {
		/* the power inputs live in the stored scenario text */
		sim_diag *q = sim_diag_new();
		plan_scenario *s = NULL;
		bool alike;
		bool ok = q && text && plan_scenario_load_stored(text, q, &s, &alike) == SIM_OK;
		if (o->json)
			run_json(ok ? s : NULL, r, id);
		else
			report_text(stdout, r, id);
		if (ok && !o->json) {
			run_remedy(s, r);
			step_energy(s, r);
		}
		plan_scenario_free(s);
		sim_diag_free(q);
	}
	free(text);
	free(r);
	return rc == SIM_OK ? 0 : rc == SIM_ENOTFOUND ? EXIT_INPUT : 1;
}

static int cmd_runs(int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "merge"))
		return cli_runs_merge(argc - 1, argv + 1);
	cli_opts o = {.limit = 50};
	const char *pos[4];
	int npos, rc = parse(argc, argv, &o, pos, &npos, usage_runs);
	if (rc)
		return rc;
	if (o.help) {
		fputs(usage_runs, stdout);
		return 0;
	}
	bool show = npos >= 1 && !strcmp(pos[0], "show");
	bool digest = npos >= 1 && !strcmp(pos[0], "digest");
	if ((show && npos != 2) || (digest && npos != 1) || (!show && !digest && npos != 0))
		return bad_usage("expected 'runs', 'runs show ID' or 'runs digest'", NULL,
				 usage_runs);
	if (!cli_outputs_ok(&o.html, 1) || !cli_db_ok(db_path(&o)))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	store *db;
	rc = store_open(db_path(&o), &db, d);
	if (rc != SIM_OK) {
		cli_flush_diag(d);
		sim_diag_free(d);
		return 1;
	}
	if (show) {
		rc = runs_show(&o, db, pos[1], d);
	} else if (digest) {
		uint64_t h;
		rc = store_digest(db, &h, d) == SIM_OK ? 0 : 1;
		char hex[17];
		sim_hash_hex(h, hex);
		if (rc == 0)
			printf("%s\n", hex);
	} else {
		rc = store_list_runs(db, stdout, (int)o.limit, d) == SIM_OK ? 0 : 1;
		if (rc == 0) /* serving runs, when there are any */
			rc = store_list_serve(db, stdout, (int)o.limit, d) == SIM_OK ? 0 : 1;
	}
	cli_flush_diag(d);
	store_close(db);
	sim_diag_free(d);
	return rc;
}

static int write_bands(FILE *f, void *report)
{
	return valid_bands_write(report, f);
}

/* Trim spaces at both ends of s in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* The gates of `file` (--gates): lines "CSV | SOURCE | MAPE | BIAS" whose CSV
 * is the case file's base name. Prints each failed gate; returns 1 if any
 * failed or a named source is absent, 2 on an unreadable or malformed file,
 * else 0. */
static int check_gates(const char *gates, const char *csv, const valid_report *r)
{
	FILE *f = NULL;
	int err = sim_input_open(gates, SIM_INPUT_MAX, &f, NULL);
	if (err) {
		fprintf(stderr, "%s: error: cannot read: %s\n", gates, sim_input_strerror(err));
		return EXIT_INPUT;
	}
	const char *base = strrchr(csv, '/') ? strrchr(csv, '/') + 1 : csv;
	char line[512];
	int lineno = 0, status = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *p = trim(line);
		if (!*p || *p == '#' || !strchr(p, '|'))
			continue; /* comments, blank lines and the overall "CSV X" lines */
		char *fld[4];
		int n = 0;
		for (char *t = p; n < 4 && t; n++) {
			char *bar = strchr(t, '|');
			if (bar)
				*bar = '\0';
			fld[n] = trim(t);
			t = bar ? bar + 1 : NULL;
		}
		char *end1, *end2;
		double mm = n == 4 ? strtod(fld[2], &end1) : 0, mb = n == 4 ? strtod(fld[3], &end2) : 0;
		if (n != 4 || *end1 || *end2 || !(mm > 0) || !(mb > 0)) {
			fprintf(stderr, "%s:%d: error: expected 'CSV | SOURCE | MAPE | BIAS'\n", gates,
				lineno);
			status = EXIT_INPUT;
			continue;
		}
		if (strcmp(fld[0], base))
			continue;
		double mape = NAN, bias = NAN;
		if (!strcmp(fld[1], "all"))
			mape = r->all.mape, bias = r->all.bias;
		else if (!strcmp(fld[1], "sources"))
			mape = r->sources_mape, bias = r->sources_bias;
		else
			for (int g = 0; g < r->ngroups; g++)
				if (!strcmp(r->groups[g].name, fld[1]))
					mape = r->groups[g].mape, bias = r->groups[g].bias;
		if (!isfinite(mape)) {
			fprintf(stderr, "%s:%d: error: no simulated rows of source '%s'\n", gates, lineno,
				fld[1]);
			status = status ? status : 1;
		} else if (mape > mm || fabs(bias) > mb) {
			fprintf(stderr,
				"podsim: error: %s: MAPE %.2f%% (gate %.2f%%), mean signed error %+.2f%% "
				"(gate %.2f%%)\n",
				fld[1], 100 * mape, 100 * mm, 100 * bias, 100 * mb);
			status = status ? status : 1;
		}
	}
	fclose(f);
	return status;
}

static int cmd_validate(int argc, char **argv)
{
	cli_opts o = {0};
	const char *pos[4];
	int npos, rc = parse(argc, argv, &o, pos, &npos, usage_validate);
	if (rc)
		return rc;
	if (o.help) {
		fputs(usage_validate, stdout);
		return 0;
	}
	if (npos != 1)
		return bad_usage("validate takes one CSV file", NULL, usage_validate);
	if (!cli_outputs_ok(&o.bands_out, 1))
		return EXIT_INPUT;
	if (o.gates) { /* readable before the rows are simulated */
		FILE *g;
		int err = sim_input_open(o.gates, SIM_INPUT_MAX, &g, NULL);
		if (err) {
			fprintf(stderr, "%s: error: cannot read: %s\n", o.gates, sim_input_strerror(err));
			return EXIT_INPUT;
		}
		fclose(g);
	}
	valid_options vo = {.datadir = o.data ? o.data : cli_datadir(),
			    .only = o.only,
			    .where = o.where,
			    .threads = (int)o.threads};
	if (o.network && strcmp(o.network, "alpha-beta") && strcmp(o.network, "flow") &&
	    strcmp(o.network, "auto"))
		return bad_usage("--network takes alpha-beta, flow or auto", o.network, usage_validate);
	vo.network = !o.network || !strcmp(o.network, "auto") ? NET_MODEL_AUTO
		     : !strcmp(o.network, "flow")                 ? NET_MODEL_FLOW
								  : NET_MODEL_ALPHA_BETA;
	if (isatty(fileno(stderr)))
		vo.progress = stderr;
	sim_diag *d = sim_diag_new();
	if (serve_cases_is_serving(pos[0])) { /* serving rows: sim/serve */
		double mape = NAN;
		if (o.gates || o.where || o.bands_out || o.network) {
			sim_diag_free(d);
			return bad_usage("--gates, --where, --bands-out and --network are not for "
					 "serving case files",
					 pos[0], usage_validate);
		}
		rc = serve_validate(pos[0], vo.datadir, o.only, o.scenario, o.json, o.rows, &mape,
				    stdout, d);
		cli_flush_diag(d);
		sim_diag_free(d);
		if (rc != SIM_OK)
			return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
		if (!o.scenario && o.max_mape > 0 && !(mape <= o.max_mape)) {
			fprintf(stderr, "podsim: error: MAPE %.2f%% exceeds the threshold %.2f%%\n",
				100 * mape, 100 * o.max_mape);
			return 1;
		}
		return 0;
	}
	if (o.scenario) {
		rc = valid_scenario(pos[0], o.scenario, &vo, stdout, d);
		cli_flush_diag(d);
		sim_diag_free(d);
		return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	valid_report *r;
	rc = valid_run(pos[0], &vo, &r, d);
	cli_flush_diag(d);
	sim_diag_free(d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	if (o.json)
		valid_print_json(stdout, r);
	else
		valid_print_text(stdout, r, o.rows);
	int status = 0;
	if (o.bands_out && sim_write_atomic(o.bands_out, write_bands, r) != SIM_OK) {
		fprintf(stderr, "%s: error: cannot write the band table: %s\n", o.bands_out,
			strerror(errno));
		status = 1;
	}
	if (o.max_mape > 0 && !(r->all.ok > 0 && r->all.mape <= o.max_mape)) {
		fprintf(stderr, "podsim: error: MAPE %.2f%% exceeds the threshold %.2f%%\n",
			100 * r->all.mape, 100 * o.max_mape);
		status = 1;
	}
	if (o.gates) {
		int g = check_gates(o.gates, pos[0], r);
		status = g > status ? g : status;
	}
	valid_report_free(r);
	return status;
}

static int cmd_keys(int argc, char **argv)
{
	if (argc > 0 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		fputs(usage_keys, stdout);
		return 0;
	}
	if (argc > 0)
		return bad_usage("keys takes no arguments", argv[0], usage_keys);
	conf_print_keys(stdout, "scenario", plan_scenario_keys, plan_scenario_nkeys);
	conf_print_keys(stdout, "model", work_model_keys, work_model_nkeys);
	conf_print_keys(stdout, "gpu", hw_gpu_keys, hw_gpu_nkeys);
	conf_print_keys(stdout, "node", net_node_keys, net_node_nkeys);
	conf_print_keys(stdout, "cluster", net_cluster_keys, net_cluster_nkeys);
	conf_print_keys(stdout, "parallel", plan_spec_keys, plan_spec_nkeys);
	conf_print_keys(stdout, "train", plan_train_keys, plan_train_nkeys);
	conf_print_keys(stdout, "framework", plan_framework_keys, plan_framework_nkeys);
	conf_print_keys(stdout, "sweep", sweep_keys, sweep_nkeys);
	conf_print_keys(stdout, "campaign", campaign_keys, campaign_nkeys);
	conf_print_keys(stdout, "storage", campaign_storage_keys, campaign_storage_nkeys);
	conf_print_keys(stdout, "reliability", campaign_reliability_keys, campaign_reliability_nkeys);
	conf_print_keys(stdout, "serve", serve_keys, serve_nkeys);
	conf_print_keys(stdout, "engine", serve_engine_keys, serve_engine_nkeys);
	return 0;
}

/* The scenario file of `run` or `explain` arguments (the first operand,
 * skipping the values of options that take one), or NULL. */
static const char *operand(int argc, char **argv)
{
	static const char *const with_value[] = {"--set", "--db", "--trace", "--html",
						 "--spread-samples", NULL};
	for (int i = 0; i < argc; i++) {
		bool takes = false;
		for (int k = 0; with_value[k]; k++)
			takes = takes || !strcmp(argv[i], with_value[k]);
		if (takes)
			i++;
		else if (argv[i][0] != '-')
			return argv[i];
	}
	return NULL;
}

/* Whether `run`/`explain` got a serving scenario (a [serve] section). */
static bool serving(int argc, char **argv)
{
	const char *f = operand(argc, argv);
	return f && serve_is_serving(f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return EXIT_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("podsim %s\n", PODSIM_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run") && serving(argc - 2, argv + 2))
		return cli_serve(argc - 2, argv + 2);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "serve"))
		return cli_serve(argc - 2, argv + 2);
	if (!strcmp(cmd, "runs"))
		return cmd_runs(argc - 2, argv + 2);
	if (!strcmp(cmd, "kernel"))
		return cli_kernel(argc - 2, argv + 2);
	if (!strcmp(cmd, "estimate"))
		return cli_estimate(argc - 2, argv + 2);
	if (!strcmp(cmd, "train"))
		return cli_train(argc - 2, argv + 2);
	if (!strcmp(cmd, "explain") && serving(argc - 2, argv + 2))
		return cli_serve_explain(argc - 2, argv + 2);
	if (!strcmp(cmd, "explain"))
		return cli_explain(argc - 2, argv + 2);
	if (!strcmp(cmd, "calibrate"))
		return cli_calibrate(argc - 2, argv + 2);
	if (!strcmp(cmd, "sweep"))
		return cli_sweep(argc - 2, argv + 2);
	if (!strcmp(cmd, "compare"))
		return cli_compare(argc - 2, argv + 2);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc - 2, argv + 2);
	if (!strcmp(cmd, "topo"))
		return cli_topo(argc - 2, argv + 2);
	if (!strcmp(cmd, "coll"))
		return cli_coll(argc - 2, argv + 2);
	if (!strcmp(cmd, "keys"))
		return cmd_keys(argc - 2, argv + 2);
	fprintf(stderr, "podsim: error: unknown command '%s'\n\n%s", cmd, usage_main);
	return EXIT_INPUT;
}
