/* kernel.c - `podsim kernel --gpu NAME KIND ARGS...`: the time podsim's GPU
 * model gives one kernel, so a user can hold it against a measurement:
 *   gemm M N K [DTYPE] [--batch B]   C[M,N] = A[M,K] B[K,N] (hw_gemm_explain)
 *   copy BYTES                       a device-to-device copy (read + write)
 *   attention B H SEQ D [DTYPE] [--kv-heads G] [--unfused | --impl fa2|fa3|cudnn]
 *             [--no-causal] [--backward]
 * Prints the time, the achieved TFLOP/s (or GB/s) and what bounds it;
 * --json gives {kind, time_s, tflops, bound, ...}. */
#include "cli/cli.h"
#include "hw/hw.h"

#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT 2

static const char usage[] =
	"usage: podsim kernel --gpu NAME gemm M N K [DTYPE] [--batch B] [--json]\n"
	"       podsim kernel --gpu NAME copy BYTES [--json]\n"
	"       podsim kernel --gpu NAME attention B H SEQ D [DTYPE] [--kv-heads G]\n"
	"                     [--unfused | --impl fa2|fa3|cudnn] [--no-causal] [--backward]\n"
	"                     [--json]\n"
	"\n"
	"The time podsim's GPU model gives one kernel on GPU type NAME\n"
	"(topologies/gpus/NAME.ini; include a calibration with --calib FILE): a GEMM\n"
	"C[M,N] = A[M,K] B[K,N] cut into tiles run in waves over the SMs, an HBM copy,\n"
	"or the attention core of one layer (flash by default, causal). Prints the\n"
	"time, achieved TFLOP/s or GB/s, tiles and waves, and whether compute,\n"
	"memory or launch latency bounds it. DTYPE: fp64 fp32 tf32 fp16 bf16 fp8\n"
	"int8 int4 (default bf16; a GPU whose file sets the dtype's peak to 0 has no\n"
	"such path). BYTES takes a unit (1GiB, 512MB).\n"
	"\n"
	"options:\n"
	"  --gpu NAME     GPU type (required)\n"
	"  --calib FILE   a calibration .ini (podsim calibrate --out) over the GPU file\n"
	"  --json         print {kind, time_s, tflops, gbps, bound, ...}\n"
	"  --data DIR     folder holding topologies/\n"
	"  --impl NAME    fused attention kernel: fa2 (FlashAttention-2, default), fa3\n"
	"                 (FlashAttention-3), cudnn (cuDNN / Transformer Engine)\n"
	"  -h, --help     this help\n";

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("kernel", usage, msg, arg);
}

/* A positive number, or false. */
static bool num(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && !*end && *out > 0 && *out < 1e18;
}

static int load(const char *dir, const char *gpu, const char *calib, hw_gpu *g)
{
	if (!*gpu || strchr(gpu, '/'))
		return bad("--gpu takes a GPU type name", gpu);
	char text[8192];
	snprintf(text, sizeof text, "include = topologies/gpus/%s.ini\n%s%s%s", gpu,
		 calib ? "include = " : "", calib ? calib : "", calib ? "\n" : "");
	char path[4096];
	snprintf(path, sizeof path, "%s/topologies/gpus/%s.ini", dir, gpu);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "podsim kernel: error: unknown GPU '%s' (no %s)\n", gpu, path);
		return EXIT_INPUT;
	}
	fclose(f);
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	int rc = conf_load_string(text, strlen(text), "<podsim kernel>", dir, d, &doc);
	if (rc == SIM_OK)
		rc = hw_gpu_from_conf(doc, g, d);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	conf_free(doc);
	return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
}

static void print(bool json, const char *kind, const char *shape, double t, double flops,
		  double bytes, const char *bound, double tiles, double waves)
{
	double tf = flops > 0 ? flops / t * 1e-12 : 0, gb = bytes / t * 1e-9;
	if (json) {
		printf("{\"kind\":\"%s\",\"shape\":\"%s\",\"time_s\":%.9g,\"tflops\":%.9g,"
		       "\"gbps\":%.9g,\"flops\":%.9g,\"bytes\":%.9g,\"bound\":\"%s\",\"tiles\":%.9g,"
		       "\"waves\":%.9g}\n",
		       kind, shape, t, tf, gb, flops, bytes, bound, tiles, waves);
		return;
	}
	printf("%s %s\n  time      %.3f us\n", kind, shape, t * 1e6);
	if (flops > 0)
		printf("  achieved  %.1f TFLOP/s (%.4g FLOPs)\n", tf, flops);
	printf("  traffic   %.1f GB/s (%.4g bytes)\n", gb, bytes);
	if (tiles > 0)
		printf("  tiles     %.0f in %.0f wave%s\n", tiles, waves, waves == 1 ? "" : "s");
	printf("  bound     %s\n", bound);
}

typedef struct kopts {
	const char *gpu, *calib, *data, *pos[8];
	int npos;
	double batch, kvh;
	bool json, unfused, causal, backward, help;
	hw_flash_impl impl;
} kopts;

static int parse(int argc, char **argv, kopts *o)
{
	*o = (kopts){.batch = 1, .causal = true};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool val = !strcmp(a, "--gpu") || !strcmp(a, "--calib") || !strcmp(a, "--data") ||
			   !strcmp(a, "--batch") || !strcmp(a, "--kv-heads") || !strcmp(a, "--impl");
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--gpu"))
			o->gpu = argv[++i];
		else if (!strcmp(a, "--calib"))
			o->calib = argv[++i];
		else if (!strcmp(a, "--data"))
			o->data = argv[++i];
		else if (!strcmp(a, "--batch")) {
			if (!num(argv[++i], &o->batch))
				return bad("--batch takes a positive number", argv[i]);
		} else if (!strcmp(a, "--kv-heads")) {
			if (!num(argv[++i], &o->kvh))
				return bad("--kv-heads takes a positive number", argv[i]);
		} else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--unfused"))
			o->unfused = true;
		else if (!strcmp(a, "--impl")) {
			if (hw_flash_parse(argv[++i], &o->impl) != SIM_OK)
				return bad("--impl takes fa2, fa3 or cudnn", argv[i]);
		} else if (!strcmp(a, "--no-causal"))
			o->causal = false;
		else if (!strcmp(a, "--backward"))
			o->backward = true;
		else if (a[0] == '-' && a[1])
			return bad("unknown option", a);
		else if (o->npos == 8)
			return bad("too many arguments", a);
		else
			o->pos[o->npos++] = a;
	}
	return 0;
}

/* The optional dtype argument at pos[i] (bf16 without), on a tensor path. */
static int dtype_at(const kopts *o, int i, const hw_gpu *g, hw_dtype *t)
{
	*t = HW_BF16;
	if (o->npos > i && hw_dtype_parse(o->pos[i], t) != SIM_OK)
		return bad("unknown dtype", o->pos[i]);
	if (hw_peak(g, *t) <= 0) {
		fprintf(stderr,
			"podsim kernel: error: %s has no %s path (%s = 0 in its GPU file: "
			"unsupported)\n",
			g->name, hw_dtype_name(*t), hw_dtype_name(*t));
		return EXIT_INPUT;
	}
	return 0;
}

static int gemm(const kopts *o, const hw_gpu *g)
{
	double m, n, k;
	hw_dtype t;
	if (o->npos < 4 || o->npos > 5 || !num(o->pos[1], &m) || !num(o->pos[2], &n) ||
	    !num(o->pos[3], &k))
		return bad("gemm takes M N K [DTYPE] (positive numbers)", NULL);
	int rc = dtype_at(o, 4, g, &t);
	if (rc)
		return rc;
	hw_gemm_plan pl;
	hw_gemm_explain(g, t, m, n, k, o->batch, &pl);
	char shape[160];
	snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f %s batch %.0f", m, n, k, hw_dtype_name(t),
		 o->batch);
	print(o->json, "gemm", shape, pl.time_s, pl.flops, pl.bytes, pl.bound, pl.tiles, pl.waves);
	if (o->json)
		return 0;
	printf("  tile      %.0f x %.0f", pl.tile_m, pl.tile_n);
	if (pl.split_k > 1)
		printf(", k split %.0f ways (split-K: the tiles alone would fill %.0f of %d SMs)",
		       pl.split_k, pl.tiles / pl.split_k, g->sm_count);
	printf("\n");
	return 0;
}

static int copy(const kopts *o, const hw_gpu *g)
{
	double bytes;
	char err[128], shape[64];
	if (o->npos != 2 || sim_unit_parse(o->pos[1], SIM_UNIT_BYTES, &bytes, err, sizeof err) != SIM_OK ||
	    !(bytes > 0))
		return bad("copy takes BYTES with a unit (e.g. 1GiB)", o->npos > 1 ? o->pos[1] : NULL);
	double time = hw_mem_time(g, 2.0 * bytes); /* read and write */
	snprintf(shape, sizeof shape, "%.0f bytes", bytes);
	print(o->json, "copy", shape, time, 0, 2.0 * bytes,
	      time > 2 * hw_overhead(g) ? "memory" : "latency", 0, 0);
	return 0;
}

static int attention(const kopts *o, const hw_gpu *g)
{
	double b, h, s, d;
	hw_dtype t;
	if (o->npos < 5 || o->npos > 6 || !num(o->pos[1], &b) || !num(o->pos[2], &h) ||
	    !num(o->pos[3], &s) || !num(o->pos[4], &d))
		return bad("attention takes B H SEQ D [DTYPE] (positive numbers)", NULL);
	int rc = dtype_at(o, 5, g, &t);
	if (rc)
		return rc;
	hw_attn a = {b,           h, o->kvh > 0 ? o->kvh : h, s, s, d, o->causal, !o->unfused,
		     o->backward, o->impl};
	double time = hw_attn_time(g, t, &a);
	char shape[160];
	snprintf(shape, sizeof shape, "b%.0f h%.0f kv%.0f s%.0f d%.0f %s %s%s%s", b, h, a.kv_heads, s,
		 d, hw_dtype_name(t), o->unfused ? "unfused" : hw_flash_name(o->impl),
		 o->causal ? " causal" : "",
		 o->backward ? " backward" : "");
	double fl = hw_attn_flops(&a), by = hw_attn_bytes(&a, t);
	double tc = fl / (hw_peak(g, t) * hw_gemm_eff(g, t));
	print(o->json, "attention", shape, time, fl, by, tc >= time * 0.5 ? "compute" : "memory", 0,
	      0);
	return 0;
}

int cli_kernel(int argc, char **argv)
{
	kopts o;
	int rc = parse(argc, argv, &o);
	if ((rc = cli_parsed(rc, o.help, usage, NULL, 0)) >= 0)
		return rc;
	if (!o.gpu)
		return bad("--gpu NAME is required", NULL);
	if (o.npos == 0)
		return bad("which kernel? gemm, copy or attention", NULL);
	const char *dir = o.data ? o.data : cli_datadir();
	hw_gpu g;
	if ((rc = load(dir, o.gpu, o.calib, &g)))
		return rc;
	if (!strcmp(o.pos[0], "gemm"))
		return gemm(&o, &g);
	if (!strcmp(o.pos[0], "copy"))
		return copy(&o, &g);
	if (!strcmp(o.pos[0], "attention"))
		return attention(&o, &g);
	return bad("unknown kernel (gemm, copy or attention)", o.pos[0]);
}
