/* calibrate.c - `podsim calibrate CASES.csv --gpu NAME [--out FILE.ini]
 * [--json] [--data DIR]` (--framework: framework.c; --fabric: fabric.c):
 * fit a GPU type's efficiencies to measured kernels
 * (sim/calib) and print the fit; --out writes the calibration .ini through a
 * temporary file renamed into place, so an error leaves nothing half-written.
 * Exit status: 0 ok, 1 runtime failure (writing, memory), 2 bad input. */
#include "calib/calib.h"
#include "cli/cli.h"
#include "valid/valid.h"

#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2

static const char usage[] =
        "usage: podsim calibrate CASES.csv --gpu NAME [--out FILE.ini] [--json]\n"
        "       podsim calibrate CASES.csv --framework NAME ... (see --framework --help)\n"
        "       podsim calibrate CASES.csv --sustain --gpu NAME ... (see --sustain --help)\n"
        "       podsim calibrate DATA... --fabric CLUSTER.ini ... (see --fabric --help)\n"
        "\n"
        "Fit the efficiency parameters of GPU type NAME (topologies/gpus/NAME.ini) to\n"
        "measured kernels: the gemm and hbm_copy rows of CASES.csv for that GPU, in the\n"
        "schema of tests/cases/microbench.csv (tools/measure-kernels.py writes such rows\n"
        "on your own GPU). Fits gemm_efficiency_<dtype> per dtype present, hbm_efficiency\n"
        "and, when some kernel is tiny, launch_overhead, by GSL nonlinear least squares\n"
        "on relative time residuals; prints the values, standard errors and residuals.\n"
        "\n"
        "options:\n"
        "  --gpu NAME     GPU type to fit (required)\n"
        "  --out FILE     write a calibration .ini to include after the GPU file\n"
        "  --json         print the fit as JSON\n"
        "  --data DIR     folder holding topologies/ (default: $PODSIM_DATA, else the\n"
        "                 source tree podsim was built from)\n"
        "  -h, --help     this help\n"
        "\n"
        "exit status: 0 ok, 1 runtime error, 2 bad input\n";

typedef struct opts {
	const char *csv, *gpu, *out, *data;
	bool json, help;
} opts;

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("calibrate", usage, msg, arg);
}

static int parse(int argc, char **argv, opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *why;
		bool val = !strcmp(a, "--gpu") || !strcmp(a, "--out") || !strcmp(a, "--data");
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--gpu"))
			o->gpu = argv[++i];
		else if (!strcmp(a, "--out"))
			o->out = argv[++i];
		else if (!strcmp(a, "--data"))
			o->data = argv[++i];
		else if ((why = cli_one_arg(a, &o->csv, "too many arguments")))
			return bad(why, a);
	}
	if (!o->help && (!o->csv || !o->gpu))
		return bad(!o->csv ? "calibrate takes one CSV file" : "--gpu NAME is required",
		           NULL);
	return 0;
}

/* Load topologies/gpus/NAME.ini from the data folder. */
static int load_gpu(const opts *o, hw_gpu *g, sim_diag *d)
{
	const char *dir = o->data ? o->data : cli_datadir();
	if (strchr(o->gpu, '/') || !*o->gpu) {
		fprintf(stderr, "podsim calibrate: error: --gpu takes a GPU type name: %s\n",
		        o->gpu);
		return SIM_ECONF;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/topologies/gpus/%s.ini", dir, o->gpu);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "podsim calibrate: error: unknown GPU '%s' (no %s)\n", o->gpu,
		        path);
		return SIM_ECONF;
	}
	fclose(f);
	conf_doc *doc = NULL;
	int rc = conf_load(path, d, &doc);
	if (rc == SIM_OK)
		rc = hw_gpu_from_conf(doc, g, d);
	conf_free(doc);
	return rc;
}

typedef struct ini_job {
	const calib_fit *fit;
	const char *data;
} ini_job;

static int ini_fill(FILE *f, void *ctx)
{
	const ini_job *j = ctx;
	calib_print_ini(f, j->fit, j->data);
	return SIM_OK;
}

/* Write the .ini all or nothing (sim_write_atomic). */
static int write_ini(const char *out, const calib_fit *fit, const char *data)
{
	ini_job j = {fit, data};
	return cli_write_file("calibrate", out, ini_fill, &j);
}

static int status_of(int rc)
{
	return rc == SIM_ENOMEM || rc == SIM_EIO ? 1 : EXIT_INPUT;
}

int cli_calibrate(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--framework"))
			return cli_calibrate_framework(argc, argv);
		if (!strcmp(argv[i], "--sustain"))
			return cli_calibrate_sustain(argc, argv);
		if (!strcmp(argv[i], "--fabric"))
			return cli_calibrate_fabric(argc, argv);
	}
	opts o = {0};
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, &o.out, 1)) >= 0)
		return rc;
	sim_diag *d = sim_diag_new();
	hw_gpu gpu;
	cases_csv *csv = NULL;
	calib_fit fit;
	memset(&fit, 0, sizeof fit);
	rc = load_gpu(&o, &gpu, d);
	if (rc == SIM_OK)
		rc = valid_case_read(o.csv, &csv, d); /* its diagnostics say why it failed */
	if (rc == SIM_OK)
		rc = calib_rows_from_csv(csv, gpu.name, &fit, d);
	if (rc == SIM_OK)
		rc = calib_run(&gpu, &fit, d);
	sim_diag_print(d, stderr);
	if (rc == SIM_OK && o.out)
		rc = write_ini(o.out, &fit, o.csv);
	if (rc == SIM_OK && o.json)
		calib_print_json(stdout, &fit, o.csv);
	else if (rc == SIM_OK)
		calib_print_text(stdout, &fit, o.csv);
	int status = rc == SIM_OK ? 0 : rc == SIM_EIO && !csv ? EXIT_INPUT : status_of(rc);
	calib_fit_free(&fit);
	cases_csv_free(csv);
	sim_diag_free(d);
	return status;
}
