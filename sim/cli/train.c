/* train.c - podsim train: a whole training campaign (sim/campaign) on top of
 * one simulated step. Parses, calls the modules, prints. */
#include "cli/cli.h"
#include "campaign/campaign.h"
#include "report/report.h"
#include "store/store.h"
#include "valid/valid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2
#define MAX_SETS 256

static const char usage[] =
	"usage: podsim train SCENARIO.ini [options]\n"
	"\n"
	"Simulate one step of the scenario, then its whole training campaign by Monte\n"
	"Carlo: failures drawn from the [reliability] table scaled to the cluster,\n"
	"checkpoints to the [storage] file system, restarts, hot spares ([campaign]).\n"
	"Prints the step's report, then days to train (p10/p50/p90), interruptions,\n"
	"goodput, time lost to checkpoints, restarts and recomputed work, energy and\n"
	"cost over the real wall time; stores the step and the campaign.\n"
	"\n"
	"options:\n"
	"  --tokens D               tokens to train (overrides [campaign] tokens/steps)\n"
	"  --steps N                steps to train (overrides [campaign] tokens/steps)\n"
	"  --draws N                campaigns simulated (default [campaign] draws, 1000)\n"
	"  --seed S                 Monte Carlo seed (default [campaign] seed, else [scenario])\n"
	"  --set SECTION.KEY=VALUE  override a key (repeatable)\n"
	"  --json                   print {\"step\": ..., \"campaign\": ...}\n"
	"  --html FILE              also write a page: one campaign's timeline (training,\n"
	"                           failures, restarts), where the time goes, the goodput's\n"
	"                           distribution\n"
	"  --spread-samples N       on a cluster with a measured collective spread ([cluster]\n"
	"                           spread, EFA): replay the step N times with sampled\n"
	"                           collective times; the campaign's step is their mean\n"
	"                           (default 100; 0 = off: the simulated step)\n"
	"  --db PATH                run database (default: $PODSIM_DB, else podsim.db)\n"
	"  --no-db                  do not store\n"
	"  -h, --help               this help\n"
	"\n"
	"exit status: 0 ok, 1 runtime error (database), 2 bad input (nothing stored)\n";

typedef struct train_opts {
	const char *file, *db, *html;
	const char *sets[MAX_SETS];
	int nsets;
	bool json, no_db, help;
	long spread_samples; /* --spread-samples (-1 = EXEC_SPREAD_SAMPLES) */
	campaign_opts co;
} train_opts;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("train", usage, msg, arg);
}

static int number(const char *text, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || errno || !(v >= 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, train_opts *o)
{
	o->co = (campaign_opts){-1, -1, -1, -1};
	o->spread_samples = -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool valued = !strcmp(a, "--tokens") || !strcmp(a, "--steps") ||
			      !strcmp(a, "--draws") || !strcmp(a, "--seed") || !strcmp(a, "--set") ||
			      !strcmp(a, "--db") || !strcmp(a, "--html") ||
			      !strcmp(a, "--spread-samples");
		if (valued && i + 1 >= argc)
			return bad("option needs a value", a);
		double v;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--no-db"))
			o->no_db = true;
		else if (!strcmp(a, "--db"))
			o->db = argv[++i];
		else if (!strcmp(a, "--html"))
			o->html = argv[++i];
		else if (!strcmp(a, "--set")) {
			if (o->nsets == MAX_SETS)
				return bad("too many --set options", NULL);
			o->sets[o->nsets++] = argv[++i];
		} else if (!strcmp(a, "--tokens")) {
			if (number(argv[++i], 1e18, &v) || !(v > 0))
				return bad("--tokens takes a positive count (e.g. 15.6e12)", argv[i]);
			o->co.tokens = v;
		} else if (!strcmp(a, "--steps")) {
			if (number(argv[++i], 1e12, &v) || !(v >= 1))
				return bad("--steps takes a count of at least 1", argv[i]);
			o->co.steps = v;
		} else if (!strcmp(a, "--draws")) {
			if (number(argv[++i], CAMPAIGN_MAX_DRAWS, &v) || !(v >= 1) || v != (double)(long)v)
				return bad("--draws takes a count from 1 to 1000000", argv[i]);
			o->co.draws = (long)v;
		} else if (!strcmp(a, "--seed")) {
			if (number(argv[++i], 2147483647.0, &v) || v != (double)(long long)v)
				return bad("--seed takes a count from 0 to 2147483647", argv[i]);
			o->co.seed = (long long)v;
		} else if (!strcmp(a, "--spread-samples")) {
			if (cli_parse_samples(argv[++i], &o->spread_samples) != 0)
				return bad(CLI_SAMPLES_MSG, argv[i]);
		} else if (a[0] == '-' && a[1])
			return bad("unknown option", a);
		else if (!o->file)
			o->file = a;
		else
			return bad("train takes one scenario file", a);
	}
	if (!o->help && !o->file)
		return bad("train takes one scenario file", NULL);
	return 0;
}

static const char *db_path(const train_opts *o)
{
	return cli_db_path(o->db);
}

static int save(const train_opts *o, const plan_scenario *s, const exec_result *r,
		const campaign_result *c, int64_t *rid, int64_t *cid, sim_diag *d)
{
	*rid = *cid = 0;
	if (o->no_db)
		return SIM_OK;
	store *db;
	int rc = store_open(db_path(o), &db, d);
	if (rc != SIM_OK)
		return rc;
	char *text = plan_scenario_text(s);
	rc = text ? store_put_campaign(db, text, r, c, rid, cid, d) : SIM_ENOMEM;
	free(text);
	store_close(db);
	return rc;
}

static void print(const train_opts *o, const exec_result *r, const campaign_result *c,
		  int64_t rid, int64_t cid)
{
	if (!o->json) {
		report_text(stdout, r, rid);
		campaign_print_text(stdout, c, cid);
		return;
	}
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_append(&b, "{\"step\":", 8);
	report_json_buf(&b, r, rid);
	while (!b.oom && b.len > 0 && b.data[b.len - 1] == '\n')
		b.len--;
	sim_buf_append(&b, ",\"campaign\":", 12);
	campaign_json_buf(&b, c, cid);
	sim_buf_append(&b, "}\n", 2);
	cli_put_json(&b);
}

/* --html: the page, with the first campaign's timeline. */
static int html(const train_opts *o, const exec_result *r, const campaign_result *c)
{
	campaign_event *ev;
	size_t n;
	int rc = campaign_timeline(&c->in, &ev, &n);
	if (rc == SIM_OK)
		rc = report_campaign_html_file(o->html, r, c, ev, n);
	free(ev);
	if (rc != SIM_OK)
		fprintf(stderr, "%s: error: cannot write the HTML page\n", o->html);
	return rc;
}

/* Simulate the step and the campaign; diagnostics in d. */
static int simulate(const train_opts *o, const plan_scenario *s, exec_result *r,
		    campaign_result *c, sim_diag *d)
{
	valid_refs *refs = NULL;
	int rc = cli_load_refs(&refs);
	if (rc != 0)
		return rc == 1 ? SIM_ENOMEM : SIM_ECONF;
	/* the step's spread sampled as run samples it: its mean is the campaign's
	 * step on a cluster with a measured collective spread (campaign_setup) */
	exec_spread_opts sp = {o->spread_samples >= 0 ? (int)o->spread_samples : EXEC_SPREAD_SAMPLES,
			       s->seed, -1, 0};
	exec_views v = {NULL, NULL, 100, NULL, &sp, false};
	rc = exec_run_views(s, r, &v);
	if (rc == SIM_OK)
		valid_refs_apply(refs, s, r);
	valid_refs_free(refs);
	campaign_input *in = rc == SIM_OK ? malloc(sizeof *in) : NULL;
	if (rc == SIM_OK && !in)
		rc = SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = campaign_setup(s, r, &o->co, in, d);
	if (rc == SIM_OK)
		rc = campaign_run(in, c);
	free(in);
	return rc;
}

int cli_train(int argc, char **argv)
{
	train_opts o = {0};
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, &o.html, 1)) >= 0)
		return rc;
	/* the database checked before any work too, as every command does (cli.h) */
	if (!o.no_db && !cli_db_ok(db_path(&o)))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	rc = d ? plan_scenario_load(o.file, o.sets, (size_t)o.nsets, d, &s) : SIM_ENOMEM;
	if (rc != SIM_OK) {
		if (d)
			sim_diag_print(d, stderr);
		sim_diag_free(d);
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	exec_result *r = malloc(sizeof *r);
	campaign_result *c = malloc(sizeof *c);
	int64_t rid = 0, cid = 0;
	rc = r && c ? simulate(&o, s, r, c, d) : SIM_ENOMEM;
	bool input = rc == SIM_ECONF || rc == SIM_EIO || rc == SIM_EINVAL;
	int status = rc == SIM_OK ? 0 : input ? EXIT_INPUT : 1;
	if (rc == SIM_OK) {
		rc = save(&o, s, r, c, &rid, &cid, d);
		status = rc == SIM_OK ? 0 : 1;
	}
	sim_diag_print(d, stderr);
	if (rc == SIM_OK && o.html && html(&o, r, c) != SIM_OK)
		status = 1;
	if (rc == SIM_OK) {
		print(&o, r, c, rid, cid);
		if (cid > 0)
			fprintf(stderr, "podsim: stored as run %lld, campaign %lld in %s\n",
				(long long)rid, (long long)cid, db_path(&o));
		fprintf(stderr, "podsim: step simulated in %.3f s, %d campaigns in %.3f s\n",
			r->wall_s, c->in.draws, c->wall_s);
	} else if (sim_diag_error_count(d) == 0) {
		fprintf(stderr, "podsim train: error: %s\n", sim_strerror(rc));
	}
	free(r);
	free(c);
	plan_scenario_free(s);
	sim_diag_free(d);
	return status;
}
