/* kernel.c - the time of one kernel on one GPU: a roofline with calibrated
 * efficiencies (hw.h). Units: seconds, FLOPs, bytes, FLOP/s, bytes/s.
 *
 * A kernel that does F FLOPs in dtype t and moves B bytes to or from HBM takes
 *
 *     t = launch + framework + max(F / (P_t * e_gemm), B / (W * e_hbm))
 *
 * with P_t the dense peak of the dtype's path, W the HBM bandwidth and e_gemm,
 * e_hbm the calibrated fractions. This is the roofline model (Williams et al.,
 * CACM 2009) with the ceilings lowered to what microbenchmarks reach: e_gemm is
 * the best-shape fraction of a brute-force GEMM sweep (MAMF, hardware.md
 * section 14), so for ordinary training shapes it is an upper bound.
 *
 * A GEMM C[m,n] = A[m,k] B[k,n] does m*n*k multiply-adds, F = 2mnk, and at
 * minimum reads A and B and writes C once: B = s * (mk + kn + mn) bytes for s
 * bytes per element; both scale with the batch count. Its arithmetic intensity
 * F / B = 2mnk / (s (mk + kn + mn)) decides which ceiling binds: for a square
 * n = m = k in bf16 it is n/3 FLOP/byte, so on an A100 (312 TFLOP/s * 0.869 over
 * 2039 GB/s * 0.88, ridge ~151 FLOP/byte) squares above n ~ 450 are compute-bound.
 *
 * Fallback: a dtype whose peak is 0 (the GPU has no tensor path for it) runs
 * on the nearest slower path that exists instead of failing:
 *     fp8, int8 -> bf16 -> fp16 -> fp32;  bf16 -> fp16 -> fp32;  tf32, fp16,
 *     fp64 -> fp32 (vector).
 * (V100 has no bf16: frameworks run bf16 matmuls there at about fp16 tensor
 * speed at best; a tf32 request on a pre-Ampere GPU is fp32 math.) Storage
 * bytes stay those of the requested dtype. hw_peak() itself reports 0 for an
 * unsupported dtype, so plan checks can refuse such a precision; the fallback
 * only keeps kernel times finite for callers that ask anyway.
 */
#include "hw.h"

/* The dense peak actually used for dtype t, following the fallback above. */
static double path_peak(const hw_gpu *g, hw_dtype t)
{
	static const hw_dtype next[HW_DTYPE_COUNT] = {
		[HW_FP64] = HW_FP32, [HW_FP32] = HW_FP32, [HW_TF32] = HW_FP32,
		[HW_FP16] = HW_FP32, [HW_BF16] = HW_FP16, [HW_FP8] = HW_BF16,
		[HW_INT8] = HW_BF16,
	};
	if ((unsigned)t >= HW_DTYPE_COUNT)
		t = HW_FP32;
	for (int hops = 0; hops < HW_DTYPE_COUNT; hops++) {
		if (g->peak_flops[t] > 0)
			return g->peak_flops[t];
		t = next[t];
	}
	return 0;
}

double hw_peak(const hw_gpu *g, hw_dtype t)
{
	return (unsigned)t < HW_DTYPE_COUNT ? g->peak_flops[t] : 0;
}

double hw_overhead(const hw_gpu *g)
{
	return g->launch_s + g->framework_s;
}

/* Seconds to move `bytes` at the achievable HBM bandwidth (no overhead). */
static double stream_time(const hw_gpu *g, double bytes)
{
	double bw = g->hbm_Bps * g->hbm_eff;
	return bytes > 0 && bw > 0 ? bytes / bw : 0;
}

double hw_kernel_time(const hw_gpu *g, hw_dtype t, double flops, double bytes)
{
	double rate = path_peak(g, t) * g->gemm_eff;
	double compute = flops > 0 && rate > 0 ? flops / rate : 0;
	double memory = stream_time(g, bytes);
	return hw_overhead(g) + (compute > memory ? compute : memory);
}

/* Wave quantization, the first effect of the SMs. A GEMM's output is cut into
 * HW_GEMM_TILE x HW_GEMM_TILE tiles, one thread block each (128 x 128 is the
 * usual CUTLASS/cuBLAS block tile of 16-bit tensor-core GEMMs on Ampere and
 * Hopper: an assumption, not a measurement), and the sm_count SMs run them in
 * waves:
 *     tiles T = ceil(m/128) * ceil(n/128) * batch,   waves W = ceil(T / sm)
 * A wave lasts as long as a full one, each SM computing a 128 x 128 x k tile at
 * peak * e_gemm / sm, so the compute time is
 *     W * sm * 2 * 128 * 128 * k / (peak * e_gemm)
 * which is 2mnk / (peak * e_gemm) when m and n are multiples of 128 and T of
 * sm, and grows for skinny shapes: a 1024 x 384 output is 24 tiles, leaving 84
 * of an A100's 108 SMs idle. e_gemm is calibrated through this same formula on
 * the best shape of a GEMM sweep (see the GPU files). With sm_count = 0 the
 * plain roofline is used. */
#define HW_GEMM_TILE 128.0

static double ceil_div(double a, double b)
{
	double q = a / b, f = (double)(long long)q;
	return q > f ? f + 1.0 : f;
}

double hw_gemm_time(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch)
{
	double flops = 2.0 * m * n * k * batch;
	double bytes = hw_dtype_bytes(t) * (m * k + k * n + m * n) * batch;
	if (g->sm_count > 0 && m > 0 && n > 0) {
		double sm = g->sm_count;
		double tiles = ceil_div(m, HW_GEMM_TILE) * ceil_div(n, HW_GEMM_TILE) * batch;
		double waves = ceil_div(tiles, sm);
		flops = waves * sm * 2.0 * HW_GEMM_TILE * HW_GEMM_TILE * k;
	}
	return hw_kernel_time(g, t, flops, bytes);
}

/* A memory-bound kernel is still a kernel: it pays the launch and framework
 * overhead like any other. */
double hw_mem_time(const hw_gpu *g, double bytes)
{
	return hw_overhead(g) + stream_time(g, bytes);
}
