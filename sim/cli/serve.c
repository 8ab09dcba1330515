/* serve.c - podsim serve SCENARIO: simulate a serving window (sim/serve),
 * print the latency, throughput and KV-cache answers, store the run. Also
 * reached by `podsim run` on a file with a [serve] section. */
#include "cli/cli.h"
#include "serve/serve.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_INPUT 2
#define MAX_SETS 256

static const char usage[] =
	"usage: podsim serve SCENARIO.ini [options]\n"
	"\n"
	"Simulate a serving scenario ([serve] section): a request stream over model\n"
	"replicas with iteration-level scheduling and a paged KV cache. Prints TTFT,\n"
	"time per output token and end-to-end latency (mean, p50, p90, p99),\n"
	"throughput, goodput under the SLO, KV-cache use and preemptions.\n"
	"\n"
	"options:\n"
	"  --set SECTION.KEY=VALUE  override a key (repeatable), e.g. --set serve.rate=4\n"
	"  --json                   print one JSON object instead of the text report\n"
	"  --db PATH                run database (default: $PODSIM_DB, else podsim.db)\n"
	"  --no-db                  do not store the run\n"
	"  --print-config           print the resolved configuration and exit\n"
	"  --html FILE              also write the run as an HTML page: latency CDFs and the\n"
	"                           throughput-latency curve (the stream at rising rates)\n"
	"  --trace FILE             write the iterations per replica and the KV-cache and\n"
	"                           queue counters as a Chrome trace (ui.perfetto.dev)\n"
	"  --capacity               capacity planning: the highest Poisson rate meeting the\n"
	"                           SLO (slo_ttft, slo_tpot) for each plan of the --vary\n"
	"                           space, ranked by GPU-hours per million output tokens\n"
	"  --vary SECTION.KEY=A,B   a dimension of the space (repeatable), e.g.\n"
	"                           --vary serve.tp=1,2,4 --vary serve.weights=bf16,fp8\n"
	"  --slo-target SHARE       share of requests that must meet the SLO (default 0.9)\n"
	"  -h, --help               this help\n"
	"\n"
	"exit status: 0 ok, 1 runtime error (database), 2 bad input (nothing stored)\n";

typedef struct opts {
	const char *file, *db, *trace, *html;
	const char *sets[MAX_SETS];
	size_t nsets;
	const char *vary[MAX_SETS];
	size_t nvary;
	double target;
	bool json, no_db, print_config, explain, capacity;
} opts;

static int parse(int argc, char **argv, opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *why;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return -1;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--no-db")) {
			o->no_db = true;
		} else if (!strcmp(a, "--print-config")) {
			o->print_config = true;
		} else if (!strcmp(a, "--capacity")) {
			o->capacity = true;
		} else if (!strcmp(a, "--vary") || !strcmp(a, "--slo-target")) {
			if (i + 1 >= argc)
				return cli_usage_error("serve", usage, "missing value after", a);
			const char *v = argv[++i];
			if (!strcmp(a, "--vary")) {
				if (o->nvary >= MAX_SETS)
					return cli_usage_error("serve", usage, "too many --vary options", NULL);
				o->vary[o->nvary++] = v;
			} else {
				char *end;
				o->target = strtod(v, &end);
				if (end == v || *end || !(o->target > 0 && o->target <= 1))
					return cli_usage_error("serve", usage,
							       "--slo-target takes a share in (0, 1]", v);
			}
		} else if (!strcmp(a, "--db") || !strcmp(a, "--set") || !strcmp(a, "--trace") ||
			   !strcmp(a, "--html")) {
			if (i + 1 >= argc)
				return cli_usage_error("serve", usage, "missing value after", a);
			if (!strcmp(a, "--db"))
				o->db = argv[++i];
			else if (!strcmp(a, "--trace"))
				o->trace = argv[++i];
			else if (!strcmp(a, "--html"))
				o->html = argv[++i];
			else if (o->nsets < MAX_SETS)
				o->sets[o->nsets++] = argv[++i];
			else
				return cli_usage_error("serve", usage, "too many --set options", NULL);
		} else if ((why = cli_one_arg(a, &o->file, "serve takes one scenario file"))) {
			return cli_usage_error("serve", usage, why, a);
		}
	}
	if (!o->file)
		return cli_usage_error("serve", usage, "serve takes one scenario file", NULL);
	if (o->nvary && !o->capacity)
		return cli_usage_error("serve", usage, "--vary needs --capacity", NULL);
	return 0;
}

static const char *db_path(const opts *o)
{
	return cli_db_path(o->db);
}

/* The progress line on a terminal: shown once a run has taken a second, then
 * at most every tenth of a second (serve_run_progress calls it every 1,000
 * finished requests). */
typedef struct progress {
	struct timespec t0;
	double last;
	bool shown;
} progress;

static double since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void on_progress(int done, int total, void *ctx)
{
	progress *p = ctx;
	double el = since(&p->t0);
	if (el < 1.0 || (el - p->last < 0.1 && done < total))
		return;
	p->last = el;
	p->shown = true;
	double eta = done > 0 ? el * (total - done) / done : 0;
	fprintf(stderr, "\rpodsim serve: %d/%d requests  %.0f s  ETA %.0f s   ", done, total, el,
		eta);
	if (done == total)
		fputc('\n', stderr);
}

typedef struct traced {
	const serve_scenario *s;
	serve_result *r;
	sim_diag *d;
	int rc;
	progress *pr; /* NULL: no progress line */
} traced;

static int fill_trace(FILE *f, void *ctx)
{
	traced *t = ctx;
	t->rc = serve_run_progress(t->s, t->r, f, t->pr ? on_progress : NULL, t->pr, t->d);
	return t->rc;
}

/* --trace: the run writes FILE.tmp, renamed into place when complete. */
static int run_traced(const opts *o, const serve_scenario *s, serve_result *r, sim_diag *d,
		      progress *pr)
{
	traced t = {s, r, d, SIM_OK, pr};
	int rc = sim_write_atomic(o->trace, fill_trace, &t);
	if (rc != SIM_OK && t.rc == SIM_OK)
		fprintf(stderr, "%s: error: cannot write the trace\n", o->trace);
	return rc;
}

typedef struct page {
	const serve_scenario *s;
	const serve_result *r;
} page;

static int fill_html(FILE *f, void *ctx)
{
	const page *p = ctx;
	return serve_html(f, p->s, p->r);
}

static int store_it(const opts *o, const serve_scenario *s, const serve_result *r, int64_t *id,
		    sim_diag *d)
{
	*id = 0;
	if (o->no_db)
		return SIM_OK;
	store *db;
	int rc = store_open(db_path(o), &db, d);
	if (rc != SIM_OK)
		return rc;
	rc = serve_store(db, s, r, id, d);
	store_close(db);
	return rc;
}

static int serve_main(int argc, char **argv, bool explain)
{
	opts o = {.explain = explain};
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* outputs checked before any work, as every command does (cli.h) */
	const char *outs[] = {o.trace, o.html};
	if (!o.explain && !o.print_config &&
	    (!cli_outputs_ok(outs, 2) || (!o.no_db && !o.capacity && !cli_db_ok(db_path(&o)))))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	serve_scenario *s = NULL;
	rc = d ? serve_scenario_load(o.file, o.sets, o.nsets, d, &s) : SIM_ENOMEM;
	sim_diag_print(d, stderr);
	if (rc != SIM_OK || sim_diag_error_count(d) > 0) {
		sim_diag_free(d);
		serve_scenario_free(s);
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	sim_diag_clear(d);
	if (o.capacity) { /* each plan is loaded again with its overrides */
		serve_scenario_free(s);
		rc = serve_capacity(o.file, o.sets, o.nsets, o.vary, o.nvary,
				    o.target > 0 ? o.target : 0.9, stdout, d);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
		return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	if (o.explain) {
		serve_explain(stdout, s);
		serve_scenario_free(s);
		sim_diag_free(d);
		return 0;
	}
	if (o.print_config) {
		char *text = conf_resolved_text(s->doc);
		fputs(text ? text : "", stdout);
		free(text);
		serve_scenario_free(s);
		sim_diag_free(d);
		return 0;
	}
	serve_result r;
	int64_t id = 0;
	progress pr = {{0, 0}, 0, false};
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	progress *pp = isatty(fileno(stderr)) ? &pr : NULL;
	rc = o.trace ? run_traced(&o, s, &r, d, pp)
		     : serve_run_progress(s, &r, NULL, pp ? on_progress : NULL, pp, d);
	if (pr.shown && rc != SIM_OK) /* the line ends at the last request; not here */
		fputc('\n', stderr);
	if (rc == SIM_OK)
		rc = store_it(&o, s, &r, &id, d);
	sim_diag_print(d, stderr);
	if (rc == SIM_OK) {
		if (o.json)
			serve_print_json(stdout, &r, id);
		else
			serve_print_text(stdout, &r, id);
		page pg = {s, &r};
		if (o.html && sim_write_atomic(o.html, fill_html, &pg) != SIM_OK) {
			fprintf(stderr, "%s: error: cannot write the HTML page\n", o.html);
			rc = SIM_EIO;
		}
		if (id > 0)
			fprintf(stderr, "podsim: stored as serving run %lld in %s\n", (long long)id,
				db_path(&o));
		fprintf(stderr, "podsim: simulated in %.3f s\n", r.wall_s);
	} else if (rc == SIM_ERANGE) { /* bad input: the stream outlasts the clock */
		fprintf(stderr,
			"%s: error: the request stream or an iteration runs past the simulator's "
			"clock (%.0f days in int64 picoseconds): check [serve] rate and requests, "
			"the trace's times, and the GPU's peaks\n",
			o.file, sim_time_to_s(SIM_TIME_HORIZON) / 86400);
	} else if (sim_diag_error_count(d) == 0) {
		fprintf(stderr, "podsim: error: %s\n", sim_strerror(rc));
	}
	int status = rc == SIM_OK ? 0 : rc == SIM_ECONF || rc == SIM_ERANGE ? EXIT_INPUT : 1;
	serve_scenario_free(s);
	sim_diag_free(d);
	return status;
}

int cli_serve(int argc, char **argv)
{
	return serve_main(argc, argv, false);
}

int cli_serve_explain(int argc, char **argv)
{
	return serve_main(argc, argv, true);
}

int cli_show_serve(store *db, int64_t id, bool json, sim_diag *d)
{
	store_serve_run row;
	char *strings, *text;
	int rc = store_get_serve(db, id, &row, &strings, &text, d);
	if (rc != SIM_OK)
		return rc;
	serve_result *r = malloc(sizeof *r);
	if (r) {
		serve_result_of_stored(&row, text, r);
		if (json)
			serve_print_json(stdout, r, id);
		else
			serve_print_text(stdout, r, id);
	}
	free(r);
	free(strings);
	free(text);
	return r ? SIM_OK : SIM_ENOMEM;
}
