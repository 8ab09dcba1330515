/* test_hw.c - the GPU model: dtypes, the roofline kernel time on hand-solved
 * cases, the fallback of unsupported dtypes, measured microbenchmarks against
 * predictions, and every shipped GPU file through conf_load + hw_gpu_from_conf.
 * Runs from the source root (meson's workdir). */
#include "../../sim/hw/hw.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

/* An A100 SXM4 80 GB as topologies/gpus/a100-sxm4-80g.ini described it before its
 * GEMM efficiency became the sweep maximum itself (0.869): the hand-solved cases
 * below keep the earlier 0.880. */
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
	g.gemm_eff = 0.880; /* MAMF fraction divided by Q01's wave occupancy */
	g.hbm_eff = 0.87;
	g.tdp_w = 400;
	return g;
}

/* An H100 SXM5 as topologies/gpus/h100-sxm5-80g.ini described it before its GEMM
 * efficiencies became the sweep maxima (0.803, fp8 0.709; test_shipped): the
 * hand-solved cases keep the wave-corrected 0.828 and 0.812. */
static hw_gpu h100(void)
{
	hw_gpu g = a100();
	snprintf(g.name, sizeof g.name, "h100-sxm5-80g");
	g.sm_count = 132;
	g.peak_flops[HW_BF16] = g.peak_flops[HW_FP16] = 989.4e12;
	g.peak_flops[HW_FP8] = 1978.9e12;
	g.hbm_Bps = 3350e9;
	g.gemm_eff = 0.828;
	g.gemm_eff_dtype[HW_FP8] = 0.812;
	g.hbm_eff = 0.90;
	g.interference = 16.0 / 132;
	return g;
}

/* A GEMV, m = 1, n = k = 8192 in bf16 on the H100: 16-row tiles, 1 x 64 = 64
 * tiles, one wave; t_c = 2 * 16 * 128 * 8192 / (989.4e12 * 0.828 / 132)
 * = 5.4 us, while the wave reads the whole weight matrix: operands
 * 2 * 8192 * (1 + 8192) plus 2 * 8192 outputs = 2 (mk + kn + mn) =
 * 134.25 MB -> 44.5 us at 3350e9 * 0.90. Memory-bound, and the time is
 * launch + bytes / (hbm_bw * hbm_eff); less the launch it is within 12 % of
 * bytes / hbm_bw = 40.1 us (the 0.90 efficiency). On the A100 the same holds. */
static void test_gemv(void)
{
	hw_gpu g = h100();
	double bytes = 2.0 * (8192.0 + 8192.0 * 8192 + 8192.0);
	double t = hw_gemm_time(&g, HW_BF16, 1, 8192, 8192, 1);
	CHECK_NEAR(t, 4e-6 + bytes / (3350e9 * 0.90), 1e-12);
	CHECK_NEAR(t - 4e-6, bytes / 3350e9, 0.12);
	hw_gemm_plan p;
	hw_gemm_explain(&g, HW_BF16, 1, 8192, 8192, 1, &p);
	CHECK_STR(p.bound, "memory");
	CHECK_NEAR(p.tile_m, 16, 0);
	CHECK_NEAR(p.tiles, 64, 0);
	hw_gpu a = a100();
	CHECK_NEAR(hw_gemm_time(&a, HW_BF16, 1, 8192, 8192, 1), 4e-6 + bytes / (2039e9 * 0.87),
		   1e-12);
	/* A tiny GEMM is latency-bound: 64^3 is one tile of 0.02 us against 4 us
	 * of launch. */
	hw_gemm_explain(&g, HW_BF16, 64, 64, 64, 1, &p);
	CHECK_STR(p.bound, "latency");
}

/* Wave quantization at the SM count. On the H100 (132 SMs):
 *   m = 12 * 128 = 1536, n = 11 * 128 = 1408: 132 tiles, one wave;
 *   m = 7 * 128 = 896, n = 19 * 128 = 2432: 133 tiles, two waves.
 * k = 8192, so t_c = 2 * 128^2 * 8192 / (989.4e12 * 0.828 / 132) = 43.3 us,
 * and the waves are compute-bound: a full wave of the second shape (7 x 19
 * block) reads 2 * 8192 * (896 + 2432) = 54.5 MB = 18.1 us of HBM. One tile
 * more doubles the time (less the launch). */
static void test_waves_at_sm_count(void)
{
	hw_gpu g = h100();
	double tc = 2 * 128.0 * 128.0 * 8192 / (989.4e12 * 0.828 / 132);
	double t132 = hw_gemm_time(&g, HW_BF16, 1536, 1408, 8192, 1);
	double t133 = hw_gemm_time(&g, HW_BF16, 896, 2432, 8192, 1);
	CHECK_NEAR(t132, 4e-6 + tc, 1e-12);
	CHECK_NEAR(t133, 4e-6 + 2 * tc, 1e-12);
	hw_gemm_plan p;
	hw_gemm_explain(&g, HW_BF16, 896, 2432, 8192, 1, &p);
	CHECK_NEAR(p.tiles, 133, 0);
	CHECK_NEAR(p.waves, 2, 0);
	CHECK_STR(p.bound, "compute");
}

/* Roofline crossover: n = k = 8192 bf16 on the H100 as m grows. m = 128 is
 * one tile row; a full wave (1 x 64 tiles, the whole row) reads
 * 2 * 8192 * (128 + 8192) = 136.3 MB = 45.2 us against t_c = 43.3 us:
 * memory-bound. m = 4096 is 32 x 64 = 2048 tiles, 16 waves; a wave is a
 * 12 x 11 block reading 2 * 8192 * 23 * 128 = 48.2 MB = 16.0 us: compute-bound,
 * 16 t_c. */
static void test_crossover(void)
{
	hw_gpu g = h100();
	double tc = 2 * 128.0 * 128.0 * 8192 / (989.4e12 * 0.828 / 132);
	hw_gemm_plan p;
	hw_gemm_explain(&g, HW_BF16, 128, 8192, 8192, 1, &p);
	CHECK_STR(p.bound, "memory");
	CHECK_NEAR(p.time_s, 4e-6 + 2.0 * 8192 * (128 + 8192 + 128) / (3350e9 * 0.90), 1e-12);
	hw_gemm_explain(&g, HW_BF16, 4096, 8192, 8192, 1, &p);
	CHECK_STR(p.bound, "compute");
	CHECK_NEAR(p.time_s, 4e-6 + 16 * tc, 1e-12);
}

/* dtype scaling: a compute-bound 8192^3 GEMM on the H100 is 4096 tiles in 32
 * waves in any dtype, so its time less launch scales with 1 / (peak * eff):
 * fp8 / bf16 = (989.4 * 0.828) / (1978.9 * 0.812) = 0.5098, not the 0.5 of the
 * peaks, 989.4 / 1978.9 (hardware.csv efficiency,GEMM FP8 MAMF,H100 SXM is 0.709 of peak
 * against 0.803 for bf16). Without a per-dtype value fp8 uses gemm_eff. */
static void test_dtype_scaling(void)
{
	hw_gpu g = h100();
	double n = 8192;
	double bf = hw_gemm_time(&g, HW_BF16, n, n, n, 1) - 4e-6;
	double f8 = hw_gemm_time(&g, HW_FP8, n, n, n, 1) - 4e-6;
	CHECK_NEAR(f8 / bf, (989.4 * 0.828) / (1978.9 * 0.812), 1e-12);
	CHECK_NEAR(hw_gemm_eff(&g, HW_FP8), 0.812, 0);
	CHECK_NEAR(hw_gemm_eff(&g, HW_BF16), 0.828, 0);
	g.gemm_eff_dtype[HW_FP8] = 0;
	CHECK_NEAR(hw_gemm_eff(&g, HW_FP8), 0.828, 0);
	CHECK_NEAR((hw_gemm_time(&g, HW_FP8, n, n, n, 1) - 4e-6) / bf, 989.4 / 1978.9, 1e-12);
	/* A fallback dtype uses the efficiency of the path it runs on. */
	hw_gpu a = a100();
	a.gemm_eff_dtype[HW_BF16] = 0.5;
	CHECK_NEAR(hw_gemm_eff(&a, HW_FP8), 0.5, 0);
}

/* Interference i = 16/132 = 0.1212 on the H100, r = 1 - i = 0.8788:
 *   C = 10 ms, D = 5 ms: 5 + (10 - 5 r) = 10.606 ms (slowed by D i);
 *   C = 1 ms,  D = 5 ms: done inside the overlap, 1 / r = 1.138 ms;
 *   no collective, or i = 0: C. */
static void test_interference(void)
{
	hw_gpu g = h100();
	double r = 1 - 16.0 / 132;
	CHECK_NEAR(hw_overlap_time(&g, 10e-3, 5e-3), 5e-3 + (10e-3 - 5e-3 * r), 1e-12);
	CHECK_NEAR(hw_overlap_time(&g, 10e-3, 5e-3), 10.606e-3, 1e-4);
	CHECK_NEAR(hw_overlap_time(&g, 1e-3, 5e-3), 1e-3 / r, 1e-12);
	CHECK_NEAR(hw_overlap_time(&g, 1e-3, 0), 1e-3, 0);
	g.interference = 0;
	CHECK_NEAR(hw_overlap_time(&g, 10e-3, 5e-3), 10e-3, 0);
	/* A kernel resident on 20 of the 132 SMs (DeepEP's default num_sms):
	 * share 20/132 = 0.1515, r = 112/132; C = 10 ms, D = 5 ms:
	 * 5 + (10 - 5 x 112/132) = 10.7576 ms. None held: nothing lost; all
	 * of them or more: the share is 1. */
	CHECK_NEAR(hw_sm_share(&g, 20), 20.0 / 132, 1e-15);
	CHECK_NEAR(hw_overlap_share(hw_sm_share(&g, 20), 10e-3, 5e-3),
		   5e-3 + (10e-3 - 5e-3 * 112.0 / 132), 1e-15);
	CHECK_NEAR(hw_overlap_share(hw_sm_share(&g, 20), 10e-3, 5e-3), 10.7576e-3, 1e-5);
	CHECK_NEAR(hw_sm_share(&g, 0), 0, 0);
	CHECK_NEAR(hw_sm_share(&g, 132), 1, 0);
	CHECK_NEAR(hw_sm_share(&g, 200), 1, 0);
}

/* A GEMM beside a kernel holding 20 of the H100's 132 SMs (gemm.c, "Held
 * SMs"): the kernel chosen for 132 SMs, its 128 x 128 tiles in waves of
 * 112. Compute-bound waves (t_c = 2 128^2 k / (989.4e12 x 0.828 / 132),
 * no tile overhead in this GPU, against a wave's operand bytes over 3015
 * GB/s: 2048 x 2048 x 7168 t_c = 37.8 us, a 132-tile wave of 12 x 11 tiles
 * reads 2 x 7168 x (12 + 11) x 128 bytes = 42.2 MB, 14.0 us; 8192^3 t_c =
 * 43.3 us against 48.2 MB, 16.0 us), so the time less the launch is waves x
 * t_c and the ratio is the waves':
 *   2048 x 2048: 16 x 16 = 256 tiles, ceil(256/132) = 2 -> ceil(256/112)
 *                = 3 waves: 1.5x;
 *   8192^3:      64 x 64 = 4096 tiles, 32 -> 37 waves: 37/32 = 1.156x.
 * Nothing held: hw_gemm_time. */
static void test_gemm_held(void)
{
	hw_gpu g = h100();
	double over = hw_overhead(&g);
	const struct {
		double m, n, k, ratio;
	} c[] = {{2048, 2048, 7168, 3.0 / 2}, {8192, 8192, 8192, 37.0 / 32}};
	for (int i = 0; i < 2; i++) {
		double t = hw_gemm_time(&g, HW_BF16, c[i].m, c[i].n, c[i].k, 1);
		double h = hw_gemm_time_held(&g, HW_BF16, c[i].m, c[i].n, c[i].k, 1, 20);
		CHECK_NEAR((h - over) / (t - over), c[i].ratio, 1e-12);
		CHECK_NEAR(hw_gemm_time_held(&g, HW_BF16, c[i].m, c[i].n, c[i].k, 1, 0), t, 0);
	}
}

/* Attention, one layer of Llama-2-70B-like shapes: b = 1, h = 64, g = 8
 * (GQA), q = v = 4096, d = 128, bf16 on the H100.
 *   flash forward FLOPs 4 * 64 * 4096^2 * 128 = 549.8e9, causal half: 274.9e9;
 *   backward 2.5x.
 *   flash bytes: Q, O 2 * 2 * 64 * 4096 * 128 = 134.2 MB; K, V with g = 8:
 *   2 * 2 * 8 * 4096 * 128 = 16.8 MB; lse 4 * 64 * 4096 = 1.05 MB.
 *   unfused: + 4 score passes of 2 * 64 * 4096^2 = 2.147 GB each, K/V
 *   expanded to 64 heads. */
static void test_attention(void)
{
	hw_gpu g = h100();
	hw_attn a = {1, 64, 8, 4096, 4096, 128, false, true, false, HW_FLASH_FA2};
	double full = 4.0 * 64 * 4096.0 * 4096 * 128;
	CHECK_NEAR(hw_attn_flops(&a), full, 1e-12);
	a.causal = true;
	CHECK_NEAR(hw_attn_flops(&a), full / 2, 1e-12);
	double q = 64 * 4096.0 * 128, kv = 8 * 4096.0 * 128, lse = 4.0 * 64 * 4096;
	CHECK_NEAR(hw_attn_bytes(&a, HW_BF16), 2 * (2 * q + 2 * kv) + lse, 1e-12);
	CHECK_NEAR(hw_attn_time(&g, HW_BF16, &a), 4e-6 + full / 2 / (989.4e12 * 0.828), 1e-12);
	a.backward = true;
	CHECK_NEAR(hw_attn_flops(&a), 2.5 * full / 2, 1e-12);
	CHECK_NEAR(hw_attn_bytes(&a, HW_BF16), 2 * (4 * q + 4 * kv) + lse, 1e-12);
	/* GQA shrinks K/V traffic: g = h has 8x the K/V bytes. */
	hw_attn mha = a;
	mha.kv_heads = 64;
	CHECK_NEAR(hw_attn_bytes(&mha, HW_BF16) - hw_attn_bytes(&a, HW_BF16), 2 * 4 * (8 * kv - kv),
		   1e-12);
	/* Unfused: full FLOPs despite the mask, the score matrix through HBM,
	 * three kernels, and slower than flash at this length. */
	hw_attn u = {1, 64, 8, 4096, 4096, 128, true, false, false, HW_FLASH_FA2};
	double sc = 64 * 4096.0 * 4096;
	CHECK_NEAR(hw_attn_flops(&u), full, 1e-12);
	CHECK_NEAR(hw_attn_bytes(&u, HW_BF16), 2 * (4 * sc + 2 * q + 2 * 8 * kv), 1e-12);
	a.backward = false;
	CHECK(hw_attn_time(&g, HW_BF16, &u) > 1.5 * hw_attn_time(&g, HW_BF16, &a));
	CHECK_NEAR(hw_attn_time(&g, HW_BF16, &u),
		   hw_gemm_time(&g, HW_BF16, 4096, 4096, 128, 64) + hw_mem_time(&g, 2 * 2 * sc) +
			   hw_gemm_time(&g, HW_BF16, 4096, 128, 4096, 64),
		   1e-12);
}

/* Memory-bound ops: a LayerNorm over 4096 x 8192 bf16 reads and writes
 * 2 * 2 * 4096 * 8192 = 134.2 MB: 4 us + 134.2e6 / (3350e9 * 0.90) = 48.5 us. */
static void test_mem_op(void)
{
	hw_gpu g = h100();
	double bytes = 2.0 * 2 * 4096 * 8192;
	CHECK_NEAR(hw_mem_time(&g, bytes), 4e-6 + bytes / (3350e9 * 0.90), 1e-12);
	CHECK_NEAR(hw_mem_time(&g, bytes), 48.5e-6, 1e-3);
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

/* m = n = 8192, k = 16 in bf16 (a rank-16 update) on the A100: 64 x 64 =
 * 4096 tiles, 38 waves, 37 of 108 tiles and a last one of 100.
 *   t_c = 2 * 128^2 * 16 / (312e12 * 0.880 / 108) = 0.206 us per wave;
 *   a full wave is an 11 x 10 block (r = ceil(sqrt(108)) = 11, c = ceil(108/11)
 *   = 10): operands 2 * 16 * (11 + 10) * 128 = 86,016 B, outputs its 108/4096
 *   of 2 * 8192^2 = 3,538,944 B -> 3,624,960 B = 2.04 us at 2039e9 * 0.87;
 *   the last wave is 10 x 10: 2 * 16 * 20 * 128 + 100 * 32768 = 3,358,720 B.
 * memory-bound: t = 4 us + (37 * 3,624,960 + 3,358,720) / (2039e9 * 0.87),
 * 2.2 % above the compulsory 2 (mk + kn + mn) bytes (the panels re-read per
 * wave). */
static void test_gemm_memory_bound(void)
{
	hw_gpu g = a100();
	double bytes = 37 * 3624960.0 + 3358720.0;
	double want = 4e-6 + bytes / (2039e9 * 0.87);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 8192, 8192, 16, 1), want, 1e-12);
	hw_gemm_plan p;
	hw_gemm_explain(&g, HW_BF16, 8192, 8192, 16, 1, &p);
	CHECK_STR(p.bound, "memory");
	CHECK_NEAR(p.waves, 38, 0);
	CHECK_NEAR(p.bytes, bytes, 1e-12);
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
	/* fp8 storage is 1 byte even on the fallback path: a GEMV m = 1,
	 * n = k = 8192 moves 8192 + 8192^2 + 8192 bytes (memory-bound, see
	 * test_gemv). */
	CHECK_NEAR(hw_gemm_time(&g, HW_FP8, 1, 8192, 8192, 1),
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
	CHECK_NEAR(g.hbm_bytes, 79.1 * 1073741824.0, 1e-12); /* reported, not 80e9 */
	CHECK_NEAR(g.launch_s, 4e-6, 1e-12);
	CHECK_NEAR(g.gemm_eff, 0.803, 1e-12);              /* 794.5 / 989.4, MAMF */
	CHECK_NEAR(g.gemm_eff_dtype[HW_FP8], 0.709, 1e-12); /* 1402.6 / 1978.9 */
	CHECK_NEAR(g.gemm_eff_dtype[HW_BF16], 0, 0);
	CHECK_NEAR(g.interference, 0.121, 1e-12);
	CHECK_NEAR(g.tdp_w, 700, 1e-12);
	conf_free(doc);
	sim_diag_free(d);
}

/* A MAMF figure is the maximum of a brute-force sweep of GEMM shapes
 * (hardware.csv efficiency,GEMM BF16/FP8 MAMF), so no shape may come out
 * faster than it: the shipped files set e = MAMF / peak, which full-wave shapes
 * reach (tiles a multiple of sm_count: 3072 x 11264 = 2112 tiles = 16 waves on
 * 132 SMs, 3456 x 4096 = 864 = 8 x 108, 4736 x 4096 = 1184 = 8 x 148) and
 * others do not exceed. Rates exclude the launch; 1e-3 allows for the
 * efficiencies' three digits (0.709 x 1978.9 = 1403.0 against 1402.6). */
static void test_sweep_maximum(void)
{
	static const struct {
		const char *gpu;
		hw_dtype t;
		double mamf; /* FLOP/s */
	} rows[] = {
		{"h100-sxm5-80g", HW_BF16, 794.5e12}, {"h100-sxm5-80g", HW_FP8, 1402.6e12},
		{"h200-sxm-141g", HW_FP8, 1453.4e12}, {"a100-sxm4-80g", HW_BF16, 271.2e12},
		{"b200", HW_BF16, 1745.0e12},
	};
	static const double shapes[][3] = {
		{16384, 16384, 16384}, {8192, 8192, 8192}, {3072, 11264, 8192}, {1024, 8448, 14336},
		{2048, 2048, 13312},   {8192, 28672, 8192},	  {3456, 4096, 8192},	{4736, 4096, 8192},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char path[256];
		snprintf(path, sizeof path, "topologies/gpus/%s.ini", rows[i].gpu);
		sim_diag *d = sim_diag_new();
		conf_doc *doc = NULL;
		hw_gpu g;
		if (!CHECK_INT(conf_load(path, d, &doc), SIM_OK) ||
		    !CHECK_INT(hw_gpu_from_conf(doc, &g, d), SIM_OK)) {
			conf_free(doc);
			sim_diag_free(d);
			continue;
		}
		double best = 0;
		for (size_t j = 0; j < sizeof shapes / sizeof shapes[0]; j++) {
			double m = shapes[j][0], n = shapes[j][1], k = shapes[j][2];
			double t = hw_gemm_time(&g, rows[i].t, m, n, k, 1) - hw_overhead(&g);
			double rate = 2.0 * m * n * k / t;
			CHECK(rate <= rows[i].mamf * (1 + 1e-3));
			best = rate > best ? rate : best;
		}
		/* a full-wave shape comes close: with the tile overhead t_0 of the
		 * Hopper files (2.15 us) within 5 % (k = 13312..16384: k_0 / (k + k_0)
		 * with k_0 ~ 407 bf16 or ~ 800 fp8 k-steps), exactly without one */
		CHECK(best >= rows[i].mamf * (g.gemm_tile_s > 0 ? 0.95 : 1 - 1e-3));
		conf_free(doc);
		sim_diag_free(d);
	}
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
				       "one of tf32, fp16, bf16, fp8, int8, int4");
	conf_free(doc);
	sim_diag_free(d);
}

/* The tile overhead (gemm_tile_overhead, gemm.c): a full-wave compute-bound
 * GEMM pays t_0 per wave on top of its k-loop, so on the A100 of a100() with
 * t_0 = 2 us, 8192^3 (38 waves) takes 38 (t_c + t_0) + launch, and its
 * efficiency falls as k shrinks: e k / (k + k_0), k_0 = t_0 P e / (2 tm tn sm)
 * = 2e-6 x 312e12 x 0.880 / (32768 x 108) = 155.2 k-steps. */
static void test_gemm_tile_overhead(void)
{
	hw_gpu g = a100();
	g.gemm_tile_s = 2e-6;
	double n = 8192, tc = 2 * 128.0 * 128.0 * n / (312e12 * 0.880 / 108);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 1), 4e-6 + 38 * (tc + 2e-6), 1e-12);
	double k0 = 2e-6 * 312e12 * 0.880 / (32768 * 108.0);
	/* 3456 x 4096 = 864 tiles = 8 full waves: the rate is exactly e k / (k + k_0) */
	for (double k = 512; k <= 16384; k *= 2) {
		double t = hw_gemm_time(&g, HW_BF16, 3456, 4096, k, 1) - hw_overhead(&g);
		CHECK_NEAR(2 * 3456.0 * 4096 * k / t, 312e12 * 0.880 * k / (k + k0), 1e-9);
	}
}

/* The sustained clock (hw.h tensor_sustain, sustain_cap): every SM-bound
 * kernel of a step takes its microbenchmark time / sustain. The 8192^3 GEMM
 * of test_gemm_compute_bound (38 waves of 108 tiles, compute-bound) takes
 * its unsustained time less the overhead, / 0.7, plus the overhead; so does
 * the wave-bound skinny GEMM of test_gemm_waves (24 tiles on 108 SMs: 22 %
 * of the rate, but its waves still compute-bound: the SM clock sets them),
 * where the old ceiling left it alone. A memory-bound GEMV (m = 1, its
 * weight streamed from HBM) keeps its time: the HBM sets it, not the clock. */
static void test_sustain_cap(void)
{
	hw_gpu g = a100();
	double n = 8192, o = hw_overhead(&g);
	double free_t = hw_gemm_time(&g, HW_BF16, n, n, n, 1);
	double skinny = hw_gemm_time(&g, HW_BF16, 1024, 384, 1024, 1);
	double gemv = hw_gemm_time(&g, HW_BF16, 1, 8192, 8192, 1);
	hw_gemm_plan pl;
	hw_gemm_explain(&g, HW_BF16, 1, 8192, 8192, 1, &pl);
	CHECK(!strcmp(pl.bound, "memory"));
	g.sustain_cap = g.sustain_cap16 = 0.7;
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 1), o + (free_t - o) / 0.7, 1e-12);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 1024, 384, 1024, 1), o + (skinny - o) / 0.7, 1e-12);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, 1, 8192, 8192, 1), gemv, 1e-12);
	hw_gemm_explain(&g, HW_BF16, n, n, n, 1, &pl);
	CHECK(!strcmp(pl.bound, "compute"));
	/* fused attention: 1 TFLOP forward at e = 0.5 of the bf16 peak, no ramp,
	 * 1 MB of HBM traffic (compute-bound): 1e12 / (peak x 0.5) / 0.7 */
	g.attn_eff[HW_FLASH_FA2][0] = 0.5;
	g.attn_ramp[HW_FLASH_FA2] = 0;
	double pk = hw_peak(&g, HW_BF16);
	hw_flash_work w = {1e12, 0, 0, 1e6};
	CHECK_NEAR(hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w),
		   o + 1e12 / (pk * 0.5) / 0.7, 1e-12);
	g.sustain_cap = g.sustain_cap16 = 0;
	CHECK_NEAR(hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w), o + 1e12 / (pk * 0.5), 1e-12);
}

/* The softmax's exponentials (attn.c): 16 per clock per SM from compute
 * capability 7.0 on, so an A100 (108 SMs at 1.41 GHz) evaluates 16 x 108 x
 * 1.41e9 = 2.43648e12 per second; a GPU without a compute capability
 * charges none. A fused forward of 1e12 FLOPs at e = 0.5 and 1e10
 * exponentials takes 1e12 / (peak 0.5) + 1e10 / 2.43648e12 s (+ launch),
 * and at the sustained clock 0.7 both parts / 0.7. hw_attn_exps counts one
 * per score element, half of them under the causal mask: b h q v = 2 x 16 x
 * 4096^2 = 536870912, causal 268435456 (forward or backward alike). With
 * the forward's 4 d FLOPs per exponential the exponentials add (312e12 x
 * 0.5) / (4 d x 2.43648e12) of the matmul time: 25.0 % at head dimension
 * 64, 12.5 % at 128. */
static void test_flash_exps(void)
{
	hw_gpu g = a100();
	double o = hw_overhead(&g);
	CHECK_NEAR(hw_sfu_rate(&g), 0, 0);
	g.compute_capability = 8.0;
	CHECK_NEAR(hw_sfu_rate(&g), 2.43648e12, 1e-12);
	g.attn_eff[HW_FLASH_FA2][0] = 0.5;
	g.attn_ramp[HW_FLASH_FA2] = 0;
	double pk = hw_peak(&g, HW_BF16);
	hw_flash_work w = {1e12, 0, 1e10, 1e6};
	CHECK_NEAR(hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w),
		   o + 1e12 / (pk * 0.5) + 1e10 / 2.43648e12, 1e-12);
	g.sustain_cap = g.sustain_cap16 = 0.7;
	CHECK_NEAR(hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w),
		   o + (1e12 / (pk * 0.5) + 1e10 / 2.43648e12) / 0.7, 1e-12);
	hw_attn a = {2, 16, 16, 4096, 4096, 128, false, true, false, HW_FLASH_FA2};
	CHECK_NEAR(hw_attn_exps(&a), 536870912, 1e-15);
	a.causal = true;
	CHECK_NEAR(hw_attn_exps(&a), 268435456, 1e-15);
	a.backward = true;
	CHECK_NEAR(hw_attn_exps(&a), 268435456, 1e-15);
	/* the exponentials' share of the matmul time by head dimension */
	for (int d = 64; d <= 128; d *= 2) {
		a.head_dim = d, a.backward = false;
		double mm = hw_attn_flops(&a) / (pk * 0.5), ex = hw_attn_exps(&a) / 2.43648e12;
		CHECK_NEAR(ex / mm, 156e12 / (4.0 * d * 2.43648e12), 1e-12);
	}
}

/* hw_step_clock picks the step's clock: the fitted tensor_sustain, the fp8
 * fit for fp8 where set (else the 16-bit one), and with neither key the
 * documented default of hw.h (16-bit 0.80, fp8 0.92), flagged as assumed;
 * an explicit 1 is the burst clock (no cap). */
static void test_step_clock(void)
{
	hw_gpu g = a100();
	g.tensor_sustain = 0, g.tensor_sustain_fp8 = 0;
	hw_step_clock(&g, false);
	CHECK_NEAR(g.sustain_cap, HW_SUSTAIN_DEFAULT, 1e-15);
	CHECK(g.sustain_assumed);
	hw_step_clock(&g, true);
	CHECK_NEAR(g.sustain_cap, HW_SUSTAIN_DEFAULT_FP8, 1e-15);
	CHECK(g.sustain_assumed);
	g.tensor_sustain = 0.7;
	hw_step_clock(&g, true); /* no fp8 fit: the 16-bit one */
	CHECK_NEAR(g.sustain_cap, 0.7, 1e-15);
	CHECK(!g.sustain_assumed);
	g.tensor_sustain_fp8 = 0.9;
	hw_step_clock(&g, true);
	CHECK_NEAR(g.sustain_cap, 0.9, 1e-15);
	hw_step_clock(&g, false);
	CHECK_NEAR(g.sustain_cap, 0.7, 1e-15);
	g.tensor_sustain = 1;
	hw_step_clock(&g, false);
	CHECK(g.sustain_cap == 0 && !g.sustain_assumed);
}

/* A kernel takes the sustained factor of its own dtype: in an fp8 step the
 * fp8 GEMMs take tensor_sustain_fp8 and the 16-bit kernels (fused attention,
 * which fp8 recipes keep in bf16, and 16-bit GEMMs) tensor_sustain, as in a
 * 16-bit step of the same GPU (the factors carry the GEMM model's per-dtype
 * error beside the clock; an fp8 step's clock is no higher). With 0.7 and
 * 0.9: an 8192^3 bf16 GEMM and a fused attention forward take the same time
 * in both steps, the fp8 GEMM its burst time / 0.9. */
static void test_dtype_clock(void)
{
	hw_gpu g = a100();
	g.peak_flops[HW_FP8] = 624e12;
	double n = 8192, o = hw_overhead(&g);
	g.attn_eff[HW_FLASH_FA2][0] = 0.5;
	g.attn_ramp[HW_FLASH_FA2] = 0;
	hw_flash_work w = {1e12, 0, 0, 1e6};
	double b0 = hw_gemm_time(&g, HW_BF16, n, n, n, 1), f0 = hw_gemm_time(&g, HW_FP8, n, n, n, 1);
	double a0 = hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w);
	g.tensor_sustain = 0.7, g.tensor_sustain_fp8 = 0.9;
	hw_step_clock(&g, false);
	double b16 = hw_gemm_time(&g, HW_BF16, n, n, n, 1);
	double a16 = hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w);
	CHECK_NEAR(b16, o + (b0 - o) / 0.7, 1e-12);
	CHECK_NEAR(a16, o + (a0 - o) / 0.7, 1e-12);
	hw_step_clock(&g, true);
	CHECK_NEAR(g.sustain_cap, 0.9, 1e-15);
	CHECK_NEAR(g.sustain_cap16, 0.7, 1e-15);
	CHECK_NEAR(hw_gemm_time(&g, HW_FP8, n, n, n, 1), o + (f0 - o) / 0.9, 1e-12);
	CHECK_NEAR(hw_gemm_time(&g, HW_BF16, n, n, n, 1), b16, 1e-15);
	CHECK_NEAR(hw_flash_time(&g, HW_BF16, HW_FLASH_FA2, false, &w), a16, 1e-15);
	/* no 16-bit fit: its default, not the fp8 one */
	g.tensor_sustain = 0;
	hw_step_clock(&g, true);
	CHECK_NEAR(g.sustain_cap16, HW_SUSTAIN_DEFAULT, 1e-15);
}

/* The table's newer entries, read from the shipped files (each value's
 * hardware.csv row is cited there):
 *  - int4 on the A100 is 1248 TOPS dense (int8_tensor notes), 2x int8, and a
 *    large int4 GEMM is compute-bound: m = n = k = 8192, 4096 tiles in 38
 *    waves, t = 4 us + 4104 * 2 * 128^2 * 8192 / (1248e12 * 0.869), half the
 *    int8 GEMM's compute; its operands are 0.5 B per element.
 *  - the H100 has no int4 path (0): hw_peak says so, the kernel falls back to
 *    int8 (kernel.c) only for callers that ask anyway.
 *  - fp64 on the A100: tensor 19.5, CUDA cores 9.7 (fp64_vector). A gemv
 *    (m = 4 < 16: no padded rows, on the CUDA cores) runs at 9.7e12 x 0.869;
 *    with HBM fast enough that compute binds, one wave of 108 tiles
 *    (n = 128 x 108) takes t = 4 us + 2 * 4 * 128 * k / (9.7e12 * 0.869 / 108),
 *    against 2 * 16 * 128 * k / (19.5e12 ...) for a 16-row tensor tile: the
 *    gemv is faster (4 / 9.7 < 16 / 19.5) and chosen. At m = 8 it is not
 *    (8 / 9.7 > 16 / 19.5): the 16-row tensor tile wins.
 *  - V100 int8 is DP4A: 4 x 15.7 = 62.8 TOPS. */
static void test_table_entries(void)
{
	static const char *const files[] = {"a100-sxm4-80g", "h100-sxm5-80g", "v100-sxm2-32g",
					     "t4", "a40"};
	hw_gpu g[5];
	for (int i = 0; i < 5; i++) {
		char path[128];
		snprintf(path, sizeof path, "topologies/gpus/%s.ini", files[i]);
		sim_diag *d = sim_diag_new();
		conf_doc *doc = NULL;
		CHECK_INT(conf_load(path, d, &doc), SIM_OK);
		CHECK_INT(hw_gpu_from_conf(doc, &g[i], d), SIM_OK);
		conf_free(doc);
		sim_diag_free(d);
	}
	hw_gpu *a = &g[0];
	CHECK_NEAR(hw_peak(a, HW_INT4), 1248e12, 1e-12);
	CHECK_NEAR(hw_peak(&g[3], HW_INT4), 260e12, 1e-12);
	CHECK_NEAR(hw_peak(&g[4], HW_INT4), 598.7e12, 1e-12);
	CHECK_NEAR(hw_peak(&g[1], HW_INT4), 0, 0);
	CHECK_NEAR(hw_peak(&g[2], HW_INT8), 4 * 15.7e12, 1e-12);
	CHECK_NEAR(hw_dtype_bytes(HW_INT4), 0.5, 0);
	hw_dtype t = HW_FP64;
	CHECK_INT(hw_dtype_parse("int4", &t), SIM_OK);
	CHECK_INT(t, HW_INT4);
	double n = 8192, tiles = 4104;
	CHECK_NEAR(hw_gemm_time(a, HW_INT4, n, n, n, 1),
		   4e-6 + tiles * 2 * 128 * 128 * n / (1248e12 * 0.869), 1e-12);
	CHECK_NEAR(hw_gemm_time(a, HW_INT4, n, n, n, 1) - 4e-6,
		   (hw_gemm_time(a, HW_INT8, n, n, n, 1) - 4e-6) / 2, 1e-12);
	CHECK_NEAR(hw_gemm_time(&g[1], HW_INT4, n, n, n, 1), hw_gemm_time(&g[1], HW_INT8, n, n, n, 1),
		   0);
	CHECK_NEAR(a->fp64_vector_flops, 9.7e12, 1e-12);
	CHECK_NEAR(hw_vector_peak(a, HW_FP64), 9.7e12, 1e-12);
	CHECK_NEAR(hw_vector_peak(a, HW_FP32), 19.5e12, 1e-12);
	CHECK_NEAR(hw_vector_peak(&g[2], HW_FP64), 7.8e12, 1e-12); /* V100: no split */
	a->hbm_Bps = 1e18; /* compute binds */
	double k = 65536, w = 2 * 4 * 128 * k / (9.7e12 * 0.869 / 108);
	hw_gemm_plan p;
	hw_gemm_explain(a, HW_FP64, 4, 128 * 108, k, 1, &p);
	CHECK_NEAR(p.tile_m, 4, 0);
	CHECK_NEAR(p.time_s, 4e-6 + w, 1e-9);
	CHECK_STR(p.bound, "compute");
	/* m = 8: the 16-row tile on the fp64 tensor cores at 19.5 */
	hw_gemm_explain(a, HW_FP64, 8, 128 * 108, k, 1, &p);
	CHECK_NEAR(p.tile_m, 16, 0);
	CHECK_NEAR(p.time_s, 4e-6 + 2 * 16 * 128 * k / (19.5e12 * 0.869 / 108), 1e-9);
}

/* L2-resident operands (gemm.c): m = n = 2048, k = 1024 in bf16 on the A100
 * test GPU, 16 x 16 = 256 tiles in waves of 108, 108, 40. Its operands and
 * output, 2 (mk + kn + mn) = 16,777,216 B, fit the 40 MB L2, so HBM moves
 * exactly those bytes; without an L2 each wave re-reads its 11 x 10 block's
 * panels: 2 x 1024 x (1408 + 1280) + 108/256 of the output per full wave,
 * more in all. With HBM slowed to 100 GB/s every wave is memory-bound and the
 * time is 4 us + 16,777,216 / (100e9 x 0.87). */
static void test_l2_operands(void)
{
	hw_gpu g = a100();
	double comp = 2.0 * (2048.0 * 1024 * 2 + 2048.0 * 2048);
	hw_gemm_plan p;
	hw_gemm_explain(&g, HW_BF16, 2048, 2048, 1024, 1, &p);
	CHECK_NEAR(p.waves, 3, 0);
	CHECK_NEAR(p.bytes, comp, 1e-12);
	g.l2_bytes = 0;
	hw_gemm_explain(&g, HW_BF16, 2048, 2048, 1024, 1, &p);
	CHECK(p.bytes > 1.2 * comp);
	g.l2_bytes = 40e6;
	g.hbm_Bps = 100e9;
	hw_gemm_explain(&g, HW_BF16, 2048, 2048, 1024, 1, &p);
	CHECK_STR(p.bound, "memory");
	CHECK_NEAR(p.time_s, 4e-6 + comp / (100e9 * 0.87), 1e-12);
}

int main(void)
{
	test_sustain_cap();
	test_flash_exps();
	test_step_clock();
	test_dtype_clock();
	test_gemm_tile_overhead();
	test_dtypes();
	test_gemm_compute_bound();
	test_gemm_memory_bound();
	test_gemm_waves();
	test_gemv();
	test_waves_at_sm_count();
	test_crossover();
	test_dtype_scaling();
	test_interference();
	test_gemm_held();
	test_attention();
	test_mem_op();
	test_fallback();
	test_table_entries();
	test_l2_operands();
	test_measured();
	test_shipped();
	test_sweep_maximum();
	test_bad();
	return check_done();
}
