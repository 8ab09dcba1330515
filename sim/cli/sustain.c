/* sustain.c - `podsim calibrate CASES.csv --sustain --gpu NAME ...`: fit a GPU
 * type's tensor_sustain (hw.h: the fraction of the microbenchmarks' tensor
 * throughput that training steps sustain) to the measured training steps of
 * that GPU (valid_fit_sustain), print every source's error before, after and
 * left out of the fit, and write the value with that table as a calibration
 * .ini (topologies/calib/NAME-sustain.ini) through a temporary file. Reached
 * from cli_calibrate. */
#include "cli/cli.h"
#include "valid/valid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2

static const char usage[] =
	"usage: podsim calibrate CASES.csv --sustain --gpu NAME [--fp8] [--skip-source SOURCE]\n"
	"                        [--range LO,HI] [--step S] [--out FILE.ini] [--data DIR]\n"
	"\n"
	"Fit GPU type NAME's tensor_sustain, the fraction of its microbenchmarks' tensor\n"
	"throughput (GEMMs and attention, measured in short bursts) that the back-to-back\n"
	"kernels of a training step sustain, to the measured training steps of CASES.csv\n"
	"(the schema of tests/cases/calibration.csv) run on that GPU: the value of least\n"
	"mean MAPE over the sources (each source weighs once), on a grid. Prints each\n"
	"source's MAPE and mean signed error before and after, and left out: the fit on\n"
	"the other sources, predicting it. --out writes a calibration .ini.\n"
	"\n"
	"options:\n"
	"  --gpu NAME            the GPU type (rows whose gpu column is NAME)\n"
	"  --fp8                 fit tensor_sustain_fp8 on the fp8 rows (default: the\n"
	"                        16-bit rows, tensor_sustain)\n"
	"  --skip-source SOURCE  leave out a source group (as validate names it)\n"
	"  --range LO,HI         the grid's range (default 0.6,1)\n"
	"  --step S              the grid's step (default 0.005)\n"
	"  --out FILE            write the value and the table as a [gpu] .ini\n"
	"  --data DIR            folder holding models/ and topologies/\n"
	"  -h, --help            this help\n"
	"\n"
	"exit status: 0 ok, 1 runtime error, 2 bad input\n";

typedef struct sopts {
	const char *csv, *gpu, *skip, *out, *data;
	double lo, hi, step;
	bool help, fp8;
} sopts;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("calibrate", usage, msg, arg);
}

static int parse(int argc, char **argv, sopts *o)
{
	o->lo = 0.6, o->hi = 1.0, o->step = 0.005;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *why;
		bool val = !strcmp(a, "--gpu") || !strcmp(a, "--skip-source") || !strcmp(a, "--out") ||
			   !strcmp(a, "--data") || !strcmp(a, "--range") || !strcmp(a, "--step");
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--sustain"))
			continue;
		else if (!strcmp(a, "--fp8"))
			o->fp8 = true;
		else if (!strcmp(a, "--gpu"))
			o->gpu = argv[++i];
		else if (!strcmp(a, "--skip-source") && o->skip)
			return bad("--skip-source leaves out one source group: given twice", argv[i + 1]);
		else if (!strcmp(a, "--skip-source"))
			o->skip = argv[++i];
		else if (!strcmp(a, "--out"))
			o->out = argv[++i];
		else if (!strcmp(a, "--data"))
			o->data = argv[++i];
		else if (!strcmp(a, "--range")) {
			char *end;
			o->lo = strtod(argv[++i], &end);
			if (*end != ',' || (o->hi = strtod(end + 1, &end), *end) || !(o->lo > 0) ||
			    !(o->hi > o->lo) || o->hi > 1)
				return bad("--range takes LO,HI with 0 < LO < HI <= 1", argv[i]);
		} else if (!strcmp(a, "--step")) {
			char *end;
			o->step = strtod(argv[++i], &end);
			if (*end || !(o->step > 0))
				return bad("--step takes a positive number", argv[i]);
		} else if ((why = cli_one_arg(a, &o->csv, "calibrate takes one CSV file")))
			return bad(why, a);
	}
	if (o->help)
		return 0;
	if (!o->csv)
		return bad("calibrate takes one CSV file", NULL);
	if (!o->gpu || !*o->gpu || strchr(o->gpu, '/'))
		return bad("--sustain needs --gpu NAME (a GPU type)", o->gpu);
	return 0;
}

typedef struct job {
	const sopts *o;
	const valid_sustain_fit *f;
} job;

static void table(FILE *f, const char *pre, const valid_sustain_fit *r)
{
	fprintf(f, "%s%-34s %5s %16s %16s %22s\n", pre, "source", "rows", "before MAPE/bias",
		"after MAPE/bias", "left out: value MAPE/bias");
	for (int g = 0; g < r->nsources; g++) {
		const valid_sustain_src *s = &r->src[g];
		fprintf(f, "%s%-34.34s %5d %7.1f%% %+6.1f%% %7.1f%% %+6.1f%% %7.3f %6.1f%% %+6.1f%%\n",
			pre, s->name, s->rows, 100 * s->mape_before, 100 * s->bias_before,
			100 * s->mape_after, 100 * s->bias_after, s->loso_value, 100 * s->loso_mape,
			100 * s->loso_bias);
	}
	fprintf(f, "%smean over %d sources: MAPE %.1f%% before, %.1f%% after, %.1f%% left out\n",
		pre, r->nsources, 100 * r->mape_before, 100 * r->mape_after, 100 * r->loso_mape);
}

static int fill(FILE *f, void *ctx)
{
	const job *j = ctx;
	const sopts *o = j->o;
	fprintf(f, "; %s-sustain%s.ini - tensor_sustain%s of %s, written by\n", o->gpu,
		o->fp8 ? "-fp8" : "", o->fp8 ? "_fp8" : "", o->gpu);
	fprintf(f, ";     podsim calibrate %s --sustain --gpu %s%s%s%s --range %g,%g --step %g\n",
		o->csv, o->gpu, o->fp8 ? " --fp8" : "", o->skip ? " --skip-source " : "",
		o->skip ? o->skip : "", o->lo, o->hi, o->step);
	fprintf(f, "; (tools/calibrate-all regenerates it with SUSTAIN=1; the GPU file carries the value).\n");
	fprintf(f, "; The value of least mean MAPE over the sources of %d training rows on %s;\n",
		j->f->rows, o->gpu);
	fprintf(f, "; per source, and each left out of the fit (fitted on the others):\n");
	table(f, ";   ", j->f);
	fprintf(f, "[gpu]\ntensor_sustain%s = %.3f\n", o->fp8 ? "_fp8" : "", j->f->value);
	return SIM_OK;
}

int cli_calibrate_sustain(int argc, char **argv)
{
	sopts o = {0};
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, &o.out, 1)) >= 0)
		return rc;
	char where[160];
	snprintf(where, sizeof where, "gpu=%s&precision%s=fp8", o.gpu, o.fp8 ? "" : "!");
	valid_options vo = {.datadir = o.data ? o.data : cli_datadir(),
			    .where = where,
			    .network = NET_MODEL_AUTO}; /* as podsim validate */
	sim_diag *d = sim_diag_new();
	valid_sustain_fit fit;
	fprintf(stderr, "podsim calibrate: fitting tensor_sustain of %s on %s ...\n", o.gpu, o.csv);
	rc = valid_fit_sustain(o.csv, &vo, o.skip, o.lo, o.hi, o.step, &fit, d);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	printf("%s: tensor_sustain%s = %.3f (%d rows, %d sources)\n", o.gpu, o.fp8 ? "_fp8" : "",
	       fit.value, fit.rows, fit.nsources);
	table(stdout, "  ", &fit);
	if (o.out) {
		job j = {&o, &fit};
		if (cli_write_file("calibrate", o.out, fill, &j) != SIM_OK)
			return 1;
	}
	return 0;
}
