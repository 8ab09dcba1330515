/* framework.c - `podsim calibrate CASES.csv --framework NAME ...`: fit the
 * per-op host overhead of a software stack ([framework] op_overhead) to measured
 * training steps (valid_fit_framework), check it on held-out rows, and write
 * the framework profile topologies/frameworks/NAME.ini through a temporary
 * file renamed into place. Reached from cli_calibrate. */
#include "cli/cli.h"
#include "valid/valid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2

static const char usage[] =
	"usage: podsim calibrate CASES.csv --framework NAME [--only PREFIX] [--where COL=VAL]\n"
	"                        [--check-only PREFIX] [--check-where COL=VAL] [--out FILE.ini]\n"
	"\n"
	"Fit the host overhead per operation of a software stack (the [framework] key\n"
	"op_overhead) to the measured training steps of CASES.csv (the schema\n"
	"of tests/cases/calibration.csv) selected by --only / --where, by minimising\n"
	"their MAPE; then report the MAPE on the held-out rows selected by --check-only /\n"
	"--check-where. --out writes a framework profile (topologies/frameworks/NAME.ini\n"
	"is what 'podsim validate' includes for the sources that ran that stack).\n"
	"\n"
	"options:\n"
	"  --framework NAME     the profile's name (e.g. megatron-deepspeed)\n"
	"  --only PREFIX        fit on rows whose id starts with PREFIX\n"
	"  --where COL=VAL      fit on rows whose column COL holds VAL\n"
	"  --check-only PREFIX  held-out rows by id prefix\n"
	"  --check-where COL=VAL  held-out rows by column\n"
	"  --range LO,HI        search range in us (default 0,200)\n"
	"  --out FILE           write the profile .ini\n"
	"  --data DIR           folder holding models/ and topologies/\n"
	"  -h, --help           this help\n"
	"\n"
	"exit status: 0 ok, 1 runtime error, 2 bad input\n";

typedef struct fopts {
	const char *csv, *name, *only, *where, *conly, *cwhere, *out, *data;
	double lo, hi;
	bool help;
} fopts;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("calibrate", usage, msg, arg);
}

static int parse(int argc, char **argv, fopts *o)
{
	static const char *const valued[] = {"--framework", "--only", "--where", "--check-only",
					     "--check-where", "--out", "--data", "--range"};
	o->lo = 0;
	o->hi = 200e-6;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *why;
		bool val = false;
		for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
			val = val || !strcmp(a, valued[k]);
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--framework"))
			o->name = argv[++i];
		else if (!strcmp(a, "--only"))
			o->only = argv[++i];
		else if (!strcmp(a, "--where"))
			o->where = argv[++i];
		else if (!strcmp(a, "--check-only"))
			o->conly = argv[++i];
		else if (!strcmp(a, "--check-where"))
			o->cwhere = argv[++i];
		else if (!strcmp(a, "--out"))
			o->out = argv[++i];
		else if (!strcmp(a, "--data"))
			o->data = argv[++i];
		else if (!strcmp(a, "--range")) {
			char *end;
			o->lo = strtod(argv[++i], &end) * 1e-6;
			o->hi = *end == ',' ? strtod(end + 1, &end) * 1e-6 : -1;
			if (*end || !(o->lo >= 0) || !(o->hi > o->lo) || o->hi > 1)
				return bad("--range takes LO,HI in us with 0 <= LO < HI", argv[i]);
		} else if ((why = cli_one_arg(a, &o->csv, "too many arguments")))
			return bad(why, a);
	}
	if (o->help)
		return 0;
	if (!o->csv)
		return bad("calibrate takes one CSV file", NULL);
	if (!o->name || !*o->name || strchr(o->name, '/'))
		return bad("--framework takes a profile name", o->name);
	return 0;
}

typedef struct profile {
	const fopts *o;
	double x, fit, check;
	int n, nc;
} profile;

/* The profile: the fitted value with how it was obtained. */
static int profile_fill(FILE *f, void *ctx)
{
	const profile *p = ctx;
	const fopts *o = p->o;
	fprintf(f, "; %s.ini - host cost of one operation of the %s software stack,\n", o->name,
		o->name);
	fprintf(f, "; fitted by podsim calibrate --framework on measured training steps:\n");
	fprintf(f, ";   data %s, fit rows:%s%s%s%s (%d rows, MAPE %.1f %%)\n", o->csv,
		o->only ? " id " : "", o->only ? o->only : "", o->where ? " where " : "",
		o->where ? o->where : "", p->n, 100 * p->fit);
	if (p->nc > 0)
		fprintf(f, ";   held out:%s%s%s%s (%d rows, MAPE %.1f %%)\n", o->conly ? " id " : "",
			o->conly ? o->conly : "", o->cwhere ? " where " : "",
			o->cwhere ? o->cwhere : "", p->nc, 100 * p->check);
	fprintf(f, "[framework]\nop_overhead = %.1f us\n", p->x * 1e6);
	return SIM_OK;
}

static int write_profile(const fopts *o, double x, double fit, int n, double check, int nc)
{
	profile p = {o, x, fit, check, n, nc};
	return cli_write_file("calibrate", o->out, profile_fill, &p);
}

int cli_calibrate_framework(int argc, char **argv)
{
	fopts o = {0};
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, &o.out, 1)) >= 0)
		return rc;
	valid_options vo = {.datadir = o.data ? o.data : cli_datadir(),
			    .only = o.only,
			    .where = o.where,
			    .network = NET_MODEL_AUTO}; /* as podsim validate */
	sim_diag *d = sim_diag_new();
	double x = 0, fit = 0, before = 0, check = NAN;
	int n = 0, nc = 0;
	fprintf(stderr, "podsim calibrate: fitting op_overhead on %s ...\n", o.csv);
	rc = valid_fit_framework(o.csv, &vo, o.lo, o.hi, &x, &fit, &before, &n, d);
	if (rc == SIM_OK && (o.conly || o.cwhere)) {
		valid_options co = vo;
		co.only = o.conly;
		co.where = o.cwhere;
		co.framework_set = true;
		co.framework_s = x;
		valid_report *r;
		rc = valid_run(o.csv, &co, &r, d);
		if (rc == SIM_OK) {
			nc = r->all.ok;
			check = r->all.mape;
			valid_report_free(r);
		}
	}
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	printf("framework %s: op_overhead = %.1f us\n", o.name, x * 1e6);
	printf("  fit rows      %6d   MAPE %5.1f %% (with their current profiles: %.1f %%)\n", n,
	       100 * fit, 100 * before);
	if (nc > 0)
		printf("  held-out rows %6d   MAPE %5.1f %%\n", nc, 100 * check);
	if (o.out && write_profile(&o, x, fit, n, check, nc) != SIM_OK)
		return 1;
	return 0;
}
