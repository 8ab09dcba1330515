/* test_band.c - error bands (valid/band.c) on hand-made validation reports:
 * the weighted quantiles, each source weighing once, the widening rule for
 * few rows with its t interval worked by hand, the nearest-cell levels, the
 * table's round trip through its CSV, the GPU generations and scale buckets,
 * and the MFU ceiling judged by valid_refs_apply.
 * Run from the source root (reads topologies/mfu-best.csv). */
#include "../../sim/valid/valid.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void row(valid_row *v, const char *group, const char *gpu, const char *fw, int gpus,
                double ratio)
{
	memset(v, 0, sizeof *v);
	v->status = VALID_OK;
	snprintf(v->group, sizeof v->group, "%s", group);
	snprintf(v->gpu, sizeof v->gpu, "%s", gpu);
	snprintf(v->framework, sizeof v->framework, "%s", fw);
	v->gpus = gpus;
	v->predicted = 2.0;
	v->measured = 2.0 * ratio; /* measured / predicted = ratio */
}

static valid_report *report(size_t n)
{
	valid_report *r = calloc(1, sizeof *r);
	r->rows = calloc(n, sizeof *r->rows);
	r->nrows = n;
	return r;
}

static char tmpl[] = "/tmp/podsim-band-XXXXXX";

/* Write r's band table to a file and read it back. */
static valid_bands *roundtrip(const valid_report *r, const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", tmpl, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_INT(valid_bands_write(r, f), SIM_OK);
	fclose(f);
	sim_diag *d = sim_diag_new();
	valid_bands *t = NULL;
	CHECK_INT(valid_bands_load(path, &t, d), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	return t;
}

/* 20 rows of one source, ratios 0.81 .. 1.00: each weighs 1/20, so the
 * 10 % tails hold two rows each: q10 = the 2nd smallest (0.82), q90 the 2nd
 * largest (0.99); n_eff = 20 >= 9, no widening: the band is [0.82, 0.99].
 * The median averages the 10th and 11th logs: sqrt(0.90 x 0.91). */
static void test_quantiles(void)
{
	valid_report *r = report(20);
	for (int i = 0; i < 20; i++)
		row(&r->rows[i], "A", "a100-sxm4-80g", "nemo", 16, 0.81 + 0.01 * i);
	valid_bands *t = roundtrip(r, "q.csv");
	valid_band b;
	CHECK(valid_band_find(t, "a100-sxm4-80g", "nemo", 16, &b));
	CHECK_INT(b.level, 1);
	CHECK_INT(b.rows, 20);
	CHECK_INT(b.sources, 1);
	CHECK_NEAR(b.n_eff, 20, 1e-9);
	CHECK(!b.widened);
	CHECK_NEAR(b.q10, 0.82, 1e-9);
	CHECK_NEAR(b.q90, 0.99, 1e-9);
	CHECK_NEAR(b.lo, 0.82, 1e-9);
	CHECK_NEAR(b.hi, 0.99, 1e-9);
	CHECK_NEAR(b.median, sqrt(0.90 * 0.91), 1e-4);
	CHECK_NEAR(b.min, 0.81, 1e-9);
	CHECK_NEAR(b.max, 1.00, 1e-9);
	CHECK_STR(b.names, "A");
	valid_bands_free(t);
	valid_report_free(r);
}

/* 3 rows of one source, log ratios -0.1, 0, 0.1: n_eff = 3 < 9, so the band
 * is widened. Weighted mean 0; s^2 = sum w x^2 / (W - sum w^2 / W) =
 * (0.02 / 3) / (1 - 1/3) = 0.01, s = 0.1; t_0.9 with 2 degrees of freedom
 * = 1.885618; half-width 1.885618 x 0.1 x sqrt(1 + 1/3) = 0.217732: the
 * band is [e^-0.217732, e^0.217732] = [0.8043, 1.2433], wider than the
 * residuals' own range [0.905, 1.105]. */
static void test_widened(void)
{
	valid_report *r = report(3);
	for (int i = 0; i < 3; i++)
		row(&r->rows[i], "A", "h100-sxm5-80g", "megatron-core", 1024, exp(0.1 * (i - 1)));
	valid_bands *t = roundtrip(r, "w.csv");
	valid_band b;
	CHECK(valid_band_find(t, "h100-sxm5-80g", "megatron-core", 2048, &b));
	CHECK(b.widened);
	CHECK_NEAR(b.n_eff, 3, 1e-9);
	CHECK_NEAR(b.lo, 0.804341, 2e-4);
	CHECK_NEAR(b.hi, 1.243254, 2e-4);
	CHECK(b.lo < b.min && b.hi > b.max);
	valid_bands_free(t);
	valid_report_free(r);
	/* Two rows are below VALID_BAND_MIN_ROWS: no cell, no band at all. */
	r = report(2);
	row(&r->rows[0], "A", "h100-sxm5-80g", "nemo", 8, 1.0);
	row(&r->rows[1], "A", "h100-sxm5-80g", "nemo", 8, 1.2);
	t = roundtrip(r, "two.csv");
	CHECK(!valid_band_find(t, "h100-sxm5-80g", "nemo", 8, &b));
	CHECK_INT(b.level, 0);
	valid_bands_free(t);
	valid_report_free(r);
}

/* Each source weighs once: source A has 9 rows at ratio 1, source B one at
 * 2. By rows the median would be 1; by source the weights are 1/9 and 1, so
 * the lower median is 1 and the upper 2: median sqrt(2). n_eff = 2^2 /
 * (9/81 + 1) = 3.6 < 9: widened to hold both sources' residuals. */
static void test_source_weights(void)
{
	valid_report *r = report(10);
	for (int i = 0; i < 9; i++)
		row(&r->rows[i], "A", "a100-sxm4-80g", "megatron-deepspeed", 512, 1.0);
	row(&r->rows[9], "B", "a100-sxm4-80g", "megatron-deepspeed", 512, 2.0);
	valid_bands *t = roundtrip(r, "s.csv");
	valid_band b;
	CHECK(valid_band_find(t, "a100-sxm4-80g", "megatron-deepspeed", 256, &b));
	CHECK_INT(b.sources, 2);
	CHECK_STR(b.names, "A; B");
	CHECK_NEAR(b.median, sqrt(2.0), 1e-4);
	CHECK_NEAR(b.n_eff, 3.6, 1e-3);
	CHECK(b.widened && b.lo <= 1.0 && b.hi >= 2.0);
	valid_bands_free(t);
	valid_report_free(r);
}

/* Nearest: rows of hopper/megatron-core at 16 GPUs (bucket 9-64) give the
 * cells (hopper, megatron-core, 9-64), (hopper, megatron-core, *),
 * (hopper, *, 9-64), (hopper, *, *) and (*, *, *); a query falls through
 * the five levels in that order. */
static void test_levels(void)
{
	valid_report *r = report(4);
	for (int i = 0; i < 4; i++)
		row(&r->rows[i], "A", "h100-sxm5-80g", "megatron-core", 16, 1.0 + 0.1 * i);
	valid_bands *t = roundtrip(r, "l.csv");
	valid_band b;
	struct {
		const char *gpu, *fw;
		int gpus, level;
		const char *cell;
	} q[] = {
	        {"h100-sxm5-80g", "megatron-core", 32, 1, "hopper, megatron-core, 9-64 GPUs"},
	        {"h800-sxm5-80g", "megatron-core", 1024, 2, "hopper, megatron-core, any scale"},
	        {"h200-sxm-141g", "nemo", 64, 3, "hopper, any framework, 9-64 GPUs"},
	        {"h100-pcie", "nemo", 8, 4, "hopper, any framework, any scale"},
	        {"b200", "megatron-core", 16, 5, "any GPU, any framework, any scale"},
	        {"my-own-gpu", "x", 1, 5, "any GPU, any framework, any scale"},
	};
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		CHECK(valid_band_find(t, q[i].gpu, q[i].fw, q[i].gpus, &b));
		CHECK_INT(b.level, q[i].level);
		char text[256];
		valid_band_describe(&b, text, sizeof text);
		CHECK(strncmp(text, q[i].cell, strlen(q[i].cell)) == 0);
	}
	CHECK(!valid_band_find(NULL, "h100-sxm5-80g", "megatron-core", 16, &b));
	valid_bands_free(t);
	valid_report_free(r);
	CHECK_STR(valid_gpu_generation("a100-sxm4-40g"), "ampere");
	CHECK_STR(valid_gpu_generation("a10"), "ampere");
	CHECK_STR(valid_gpu_generation("gb200"), "blackwell");
	CHECK_STR(valid_gpu_generation("v100-sxm2-32g"), "volta");
	CHECK_STR(valid_gpu_generation("tiny"), "unknown");
	CHECK_STR(valid_scale_bucket(8), "1-8");
	CHECK_STR(valid_scale_bucket(9), "9-64");
	CHECK_STR(valid_scale_bucket(512), "65-512");
	CHECK_STR(valid_scale_bucket(513), "513+");
}

/* A malformed table is a path:line error. */
static void test_bad_table(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/bad.csv", tmpl);
	FILE *f = fopen(path, "w");
	if (!CHECK(f != NULL))
		return;
	fputs("generation,framework,gpus,rows,sources,n_eff,q10,median,q90,min,max,lo,hi,widened,"
	      "source_names\nhopper,nemo,1-8,3,1,3,1,1,1,1,1,1.2,1.1,no,x\n",
	      f);
	fclose(f);
	sim_diag *d = sim_diag_new();
	valid_bands *t = NULL;
	CHECK_INT(valid_bands_load(path, &t, d), SIM_ECONF);
	CHECK(t == NULL);
	char want[320];
	snprintf(want, sizeof want, "%s:2: error: band: expected 0 < lo <= hi, got 1.2 and 1.1",
	         path);
	if (CHECK_INT(sim_diag_count(d), 1))
		CHECK_STR(sim_diag_text(d, 0), want);
	sim_diag_free(d);
}

/* The shipped MFU ceilings: A100 16-bit 64.1 % (MosaicML's MPT-7B, case
 * O07, by podsim's FLOP count: tests/cli/bands.sh derives it), H100 bf16
 * 49.4 %, H100 fp8 42.5 %; nothing for Blackwell or fp32. */
static void test_mfu(void)
{
	sim_diag *d = sim_diag_new();
	valid_refs *refs = NULL;
	CHECK_INT(valid_refs_load(".", &refs, d), SIM_OK);
	sim_diag_print(d, stderr);
	double m = 0;
	char why[192];
	CHECK(valid_refs_mfu(refs, "a100-sxm4-80g", HW_BF16, &m, why, sizeof why));
	CHECK_NEAR(m, 0.641, 1e-12);
	CHECK(strstr(why, "MosaicML") != NULL);
	CHECK(valid_refs_mfu(refs, "a100-sxm4-80g", HW_FP16, &m, why, sizeof why));
	CHECK(valid_refs_mfu(refs, "h100-sxm5-80g", HW_BF16, &m, why, sizeof why));
	CHECK_NEAR(m, 0.494, 1e-12);
	CHECK(valid_refs_mfu(refs, "h200-sxm-141g", HW_FP8, &m, why, sizeof why));
	CHECK_NEAR(m, 0.425, 1e-12);
	CHECK(!valid_refs_mfu(refs, "b200", HW_BF16, &m, why, sizeof why));
	CHECK(!valid_refs_mfu(refs, "a100-sxm4-80g", HW_FP32, &m, why, sizeof why));
	valid_refs_free(refs);
	/* a folder without the tables: no band, no ceiling, not an error */
	CHECK_INT(valid_refs_load(tmpl, &refs, d), SIM_OK);
	valid_band b;
	CHECK(!valid_refs_band(refs, "a100-sxm4-80g", "nemo", 8, &b));
	CHECK(!valid_refs_mfu(refs, "a100-sxm4-80g", HW_BF16, &m, why, sizeof why));
	valid_refs_free(refs);
	sim_diag_free(d);
}

int main(void)
{
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	test_quantiles();
	test_widened();
	test_source_weights();
	test_levels();
	test_bad_table();
	test_mfu();
	const char *names[] = {"q.csv", "w.csv", "two.csv", "s.csv", "l.csv", "bad.csv"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", tmpl, names[i]);
		unlink(path);
	}
	rmdir(tmpl);
	return check_done();
}
