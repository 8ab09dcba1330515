/* test_hw.c - the GPU model: dtypes, the roofline kernel time on hand-solved
 * cases, the fallback of unsupported dtypes, measured microbenchmarks against
 * predictions, and every shipped GPU file through conf_load + hw_gpu_from_conf.
 * Runs from the source root (meson's workdir). */
#include "../../sim/hw/hw.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

/* An A100 SXM4 80 GB as topologies/gpus/a100-sxm4-80g.ini describes it. */
static hw_gpu a100(void)
{
	hw_gpu g;
	memset(&g, 0, sizeof g);
	snprintf(g.name, sizeof g.name, "a100-sxm4-80g");
	g.sm_count = 108;
	g.clock_hz = 1410e6;
	g.peak_flops[HW_FP64] = 19.5e12;
	g.peak_flops[HW_FP32] = 19.5e12;
	g.peak_flops[HW_TF32] = 156e12;
	g.peak_flops[HW_FP16] = 312e12;
	g.peak_flops[HW_BF16] = 312e12;
	g.peak_flops[HW_INT8] = 624e12;
	g.hbm_bytes = 80e9;
	g.hbm_Bps = 2039e9;
	g.l2_bytes = 40e6;
	g.launch_s = 4e-6;
	g.gemm_eff = 0.880; /* the A100 file's MAMF fraction through the wave model */
	g.hbm_eff = 0.87;
	g.tdp_w = 400;
	return g;
}

static void test_dtypes(void)
{
	hw_dtype t = HW_FP64;
	CHECK_INT(hw_dtype_parse("bf16", &t), SIM_OK);
	CHECK_INT(t, HW_BF16);
	CHECK_INT(hw_dtype_parse("fp8", &t), SIM_OK);
	CHECK_INT(t, HW_FP8);
	CHECK_INT(hw_dtype_parse("float16", &t), SIM_ECONF);
	CHECK_INT(hw_dtype_parse(NULL, &t), SIM_ECONF);
	CHECK_STR(hw_dtype_name(HW_TF32), "tf32");
	CHECK_STR(hw_dtype_name((hw_dtype)99), "?");
	CHECK_NEAR(hw_dtype_bytes(HW_FP64), 8, 0);
	CHECK_NEAR(hw_dtype_bytes(HW_TF32), 4, 0);
	CHECK_NEAR(hw_dtype_bytes(HW_BF16), 2, 0);
	CHECK_NEAR(hw_dtype_bytes(HW_INT8), 1, 0);
}

/* m = n = k = 8192 in bf16 on the A100:
 *   tiles = (8192/128)^2 = 4096 on 108 SMs -> 38 waves = 4104 tile slots
 *   F = 4104 * 2 * 128^2 * 8192 = 1.1016e12 FLOP -> F / (312e12 * 0.880) = 4.0124 ms
 *   B = 2 * 3 * 8192^2 = 402.7 MB   -> B / (2039e9 * 0.87)  = 0.2270 ms
 * compute-bound: t = 4 us + 4.0124 ms. A batch of 3 is 12288 tiles, 114 waves
 * = 3 x 38: exactly three times the work. */
static void test_gemm_compute_bound(void)
{
	hw_gpu g = a100();
	double n = 8192;
	double want = 4e-6 + 38 * 108 * 2 * 128.0 * 128.0 * n / (312e12 * 0.880);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 1), want, 1e-12);
	/* The batch multiplies both FLOPs and bytes, so the time less overhead. */
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 3) - 4e-6, 3 * (want - 4e-6), 1e-12);
	CHECK_NEAR(hw_overhead(&g), 4e-6, 1e-12);
	g.framework_s = 20e-6;
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 1), want + 20e-6, 1e-12);
}

/* m = n = 8192, k = 16 in bf16 (a rank-16 update):
 *   F = 2 * 8192^2 * 16 = 2.147e9 FLOP       -> 7.92 us of compute
 *   B = 2 * (8192*16 + 16*8192 + 8192^2) = 134.7 MB -> 75.96 us of HBM traffic
 * memory-bound: t = 4 us + B / (2039e9 * 0.87). */
/* Wave quantization on a skinny shape: m = 1024, n = 384, k = 1024 is
 * 8 x 3 = 24 tiles, one wave on 108 SMs, so it takes as long as a full wave:
 * 108 * 2 * 128^2 * 1024 / (312e12 * 0.880) = 13.2 us of compute, 4.5x the
 * 2mnk / (peak e) = 2.93 us a plain roofline would give. */
static void test_gemm_waves(void)
{
	hw_gpu g = a100();
	double want = 4e-6 + 108 * 2 * 128.0 * 128.0 * 1024 / (312e12 * 0.880);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 1024, 384, 1024, 1), want, 1e-12);
	g.sm_count = 0; /* no SM count: the plain roofline */
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 1024, 384, 1024, 1),
		   4e-6 + 2.0 * 1024 * 384 * 1024 / (312e12 * 0.880), 1e-12);
}

static void test_gemm_memory_bound(void)
{
	hw_gpu g = a100();
	double bytes = 2.0 * (8192.0 * 16 + 16.0 * 8192 + 8192.0 * 8192);
	double want = 4e-6 + bytes / (2039e9 * 0.87);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 8192, 8192, 16, 1), want, 1e-12);
	CHECK_NEAR(hw_mem_time(&g, 1e9), 4e-6 + 1e9 / (2039e9 * 0.87), 1e-12);
	CHECK_NEAR(hw_mem_time(&g, 0), 4e-6, 1e-12);
	/* A kernel with both: the larger ceiling binds. */
	CHECK_NEAR(hw_kernel_time(&g, HW_FP16, 274.56e12 * 1e-3, 1e3), 4e-6 + 1e-3, 1e-9);
	CHECK_NEAR(hw_kernel_time(&g, HW_FP16, 1e3, 2039e9 * 0.87 * 1e-3), 4e-6 + 1e-3, 1e-9);
}

/* Unsupported dtypes: hw_peak reports 0 (so plans can refuse them) and kernel
 * times fall back: fp8 -> bf16 on an A100; bf16 -> fp16 on a V100-like GPU;
 * tf32 -> fp32 vector when there is no tf32. */
static void test_fallback(void)
{
	hw_gpu g = a100();
	CHECK_NEAR(hw_peak(&g, HW_FP8), 0, 0);
	CHECK_NEAR(hw_peak(&g, HW_BF16), 312e12, 0);
	CHECK_NEAR(hw_peak(&g, (hw_dtype)42), 0, 0);
	double f = 1e12;
	CHECK_NEAR(hw_kernel_time(&g, HW_FP8, f, 0), hw_kernel_time(&g, HW_BF16, f, 0), 1e-12);
	g.peak_flops[HW_BF16] = 0;
	g.peak_flops[HW_TF32] = 0;
	CHECK_NEAR(hw_kernel_time(&g, HW_BF16, f, 0), hw_kernel_time(&g, HW_FP16, f, 0), 1e-12);
	CHECK_NEAR(hw_kernel_time(&g, HW_FP8, f, 0), hw_kernel_time(&g, HW_FP16, f, 0), 1e-12);
	CHECK_NEAR(hw_kernel_time(&g, HW_TF32, f, 0), 4e-6 + f / (19.5e12 * 0.880), 1e-12);
	/* fp8 storage is 1 byte even on the fallback path. */
	CHECK_NEAR(hw_gemm_time(&g, HW_FP8, 8192, 8192, 1, 1),
		   4e-6 + (8192.0 * 2 + 8192.0 * 8192) / (2039e9 * 0.87), 1e-12);
}

/* Measured GEMMs and HBM (shared/data/cases/microbench.csv), copied here:
 *   Q01 a100-sxm4-80g bf16 m=1024 n=10240 k=5120  271.2 TFLOP/s -> 396.0 us
 *   Q03 h100-sxm5-80g bf16 m=2048 n=2048 k=13312  794.5 TFLOP/s -> 140.6 us
 *   Q17 a100-sxm4-80g HBM read 1.8 TB/s -> 1 GiB in 596.5 us
 * Predictions use the GPU files' calibrated efficiencies, so the GEMM rows
 * check the roofline bookkeeping (the efficiency came from the same MAMF
 * figure) and the 4 us launch cost: tolerance 2 %. Q17 is an independent
 * read-only kernel against the copy-based 0.87: tolerance 5 %. */
static void test_measured(void)
{
	hw_gpu g = a100();
	double q01 = 2.0 * 1024 * 10240 * 5120 / 271.2e12;
	double p01 = hw_gemm_time(&g, HW_BF16, 1024, 10240, 5120, 1);
	printf("Q01 A100 GEMM: measured %.1f us, predicted %.1f us\n", q01 * 1e6, p01 * 1e6);
	CHECK_NEAR(p01, q01, 0.02);
	hw_gpu h = g;
	h.peak_flops[HW_BF16] = 989.4e12;
	h.hbm_Bps = 3350e9;
	h.gemm_eff = 0.828;
	h.sm_count = 132;
	h.hbm_eff = 0.90;
	double q03 = 2.0 * 2048 * 2048 * 13312 / 794.5e12;
	double p03 = hw_gemm_time(&h, HW_BF16, 2048, 2048, 13312, 1);
	printf("Q03 H100 GEMM: measured %.1f us, predicted %.1f us\n", q03 * 1e6, p03 * 1e6);
	CHECK_NEAR(p03, q03, 0.03);
	double gib = 1073741824.0;
	double q17 = gib / 1.8e12, p17 = hw_mem_time(&g, gib);
	printf("Q17 A100 HBM read: measured %.1f us, predicted %.1f us\n", q17 * 1e6, p17 * 1e6);
	CHECK_NEAR(p17, q17, 0.05);
}

static const char *const gpu_files[] = {
	"v100-sxm2-32g", "t4",		"a40",		"a100-sxm4-40g", "a100-sxm4-80g",
	"a100-pcie",	 "h100-sxm5-80g", "h100-pcie",	"h800-sxm5-80g", "h200-sxm-141g",
	"b200",		 "rtx-4090",	  "mi300x",
};

/* Every shipped GPU file loads cleanly and names itself after its file. */
static void test_shipped(void)
{
	for (size_t i = 0; i < sizeof gpu_files / sizeof gpu_files[0]; i++) {
		char path[256];
		snprintf(path, sizeof path, "topologies/gpus/%s.ini", gpu_files[i]);
		sim_diag *d = sim_diag_new();
		conf_doc *doc = NULL;
		hw_gpu g;
		int rc = conf_load(path, d, &doc);
		if (rc == SIM_OK)
			rc = hw_gpu_from_conf(doc, &g, d);
		if (!CHECK_INT(rc, SIM_OK))
			sim_diag_print(d, stderr);
		else
			CHECK_STR(g.name, gpu_files[i]);
		conf_free(doc);
		sim_diag_free(d);
	}
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	hw_gpu g;
	CHECK_INT(conf_load("topologies/gpus/h100-sxm5-80g.ini", d, &doc), SIM_OK);
	CHECK_INT(hw_gpu_from_conf(doc, &g, d), SIM_OK);
	CHECK_NEAR(hw_peak(&g, HW_BF16), 989.4e12, 1e-12); /* dense, not 1979 */
	CHECK_NEAR(hw_peak(&g, HW_FP8), 1978.9e12, 1e-12);
	CHECK_NEAR(g.hbm_Bps, 3350e9, 1e-12);
	CHECK_NEAR(g.hbm_bytes, 80e9, 1e-12);
	CHECK_NEAR(g.launch_s, 4e-6, 1e-12);
	CHECK_NEAR(g.gemm_eff, 0.828, 1e-12);
	CHECK_NEAR(g.tdp_w, 700, 1e-12);
	conf_free(doc);
	sim_diag_free(d);
}

/* Cross-key checks report at the right place. */
static void test_bad(void)
{
	static const char text[] =
		"[gpu]\nname = x\nsm_count = 1\nclock = 1 GHz\nfp32 = 1 TFLOP/s\nhbm = 1 GB\n"
		"hbm_bw = 1 TB/s\nl2 = 1 MB\ngemm_efficiency = 0.8\nhbm_efficiency = 0.8\ntdp = 1 W\n";
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	hw_gpu g;
	CHECK_INT(conf_load_string(text, strlen(text), "t.ini", ".", d, &doc), SIM_OK);
	CHECK_INT(hw_gpu_from_conf(doc, &g, d), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "t.ini:1: error: [gpu] no tensor-core peak: set at least "
				       "one of tf32, fp16, bf16, fp8, int8");
	conf_free(doc);
	sim_diag_free(d);
}

int main(void)
{
	test_dtypes();
	test_gemm_compute_bound();
	test_gemm_memory_bound();
	test_gemm_waves();
	test_fallback();
	test_measured();
	test_shipped();
	test_bad();
	return check_done();
}
