/* kernel.c - the time of one kernel on one GPU: a roofline with calibrated
 * efficiencies (hw.h), memory-bound ops, and the slowdown of compute beside a
 * communication kernel. GEMMs are in gemm.c, attention in attn.c.
 * Units: seconds, FLOPs, bytes, FLOP/s, bytes/s.
 *
 * A kernel that does F FLOPs in dtype t and moves B bytes to or from HBM takes
 *
 *     t = launch + framework + max(F / (P_t * e_gemm), B / (W * e_hbm))
 *
 * with P_t the dense peak of the dtype's path, W the HBM bandwidth and e_gemm,
 * e_hbm the calibrated fractions; e_gemm is the dtype's own efficiency
 * (gemm_efficiency_fp8 ...) where the GPU file sets one. This is the roofline
 * model (Williams et al., CACM 2009) with the ceilings lowered to what
 * microbenchmarks reach: e_gemm is
 * the best-shape fraction of a brute-force GEMM sweep (MAMF, hardware.md
 * section 14), so for ordinary training shapes it is an upper bound.
 *
 * Fallback: a dtype whose peak is 0 (the GPU has no tensor path for it) runs
 * on the nearest slower path that exists instead of failing:
 *     int4 -> int8; fp8, int8 -> bf16 -> fp16 -> fp32;  bf16 -> fp16 -> fp32;
 *     tf32, fp16, fp64 -> fp32 (vector).
 * (V100 has no bf16: frameworks run bf16 matmuls there at about fp16 tensor
 * speed at best; a tf32 request on a pre-Ampere GPU is fp32 math.) Storage
 * bytes stay those of the requested dtype. hw_peak() itself reports 0 for an
 * unsupported dtype, so plan checks can refuse such a precision; the fallback
 * only keeps kernel times finite for callers that ask anyway.
 */
#include "hw_int.h"

hw_dtype hw_path_dtype(const hw_gpu *g, hw_dtype t)
{
	static const hw_dtype next[HW_DTYPE_COUNT] = {
		[HW_FP64] = HW_FP32, [HW_FP32] = HW_FP32, [HW_TF32] = HW_FP32,
		[HW_FP16] = HW_FP32, [HW_BF16] = HW_FP16, [HW_FP8] = HW_BF16,
		[HW_INT8] = HW_BF16, [HW_INT4] = HW_INT8,
	};
	if ((unsigned)t >= HW_DTYPE_COUNT)
		t = HW_FP32;
	for (int hops = 0; hops < HW_DTYPE_COUNT; hops++) {
		if (g->peak_flops[t] > 0)
			return t;
		t = next[t];
	}
	return HW_FP32;
}

double hw_peak(const hw_gpu *g, hw_dtype t)
{
	return (unsigned)t < HW_DTYPE_COUNT ? g->peak_flops[t] : 0;
}

double hw_vector_peak(const hw_gpu *g, hw_dtype t)
{
	if (t == HW_FP64 && g->peak_flops[HW_FP64] > 0)
		return g->fp64_vector_flops > 0 ? g->fp64_vector_flops : g->peak_flops[HW_FP64];
	return g->peak_flops[HW_FP32];
}

double hw_gemm_eff(const hw_gpu *g, hw_dtype t)
{
	hw_dtype p = hw_path_dtype(g, t);
	return g->gemm_eff_dtype[p] > 0 ? g->gemm_eff_dtype[p] : g->gemm_eff;
}

double hw_rate(const hw_gpu *g, hw_dtype t)
{
	return g->peak_flops[hw_path_dtype(g, t)] * hw_gemm_eff(g, t);
}

double hw_overhead(const hw_gpu *g)
{
	return g->launch_s + g->framework_s;
}

double hw_clock_cap(const hw_gpu *g, hw_dtype t)
{
	return t == HW_FP8 ? g->sustain_cap : g->sustain_cap16;
}

double hw_stream_time(const hw_gpu *g, double bytes)
{
	double bw = g->hbm_Bps * g->hbm_eff;
	return bytes > 0 && bw > 0 ? bytes / bw : 0;
}

double hw_kernel_time(const hw_gpu *g, hw_dtype t, double flops, double bytes)
{
	double rate = hw_rate(g, t);
	double compute = flops > 0 && rate > 0 ? flops / rate : 0;
	double memory = hw_stream_time(g, bytes);
	return hw_overhead(g) + (compute > memory ? compute : memory);
}

/* A memory-bound op (norm, softmax, GeLU/SwiGLU, dropout, residual add,
 * optimizer step, embedding gather) reads and writes `bytes` once; it is
 * still a kernel and pays the launch and framework overhead:
 *     t = launch + framework + bytes / (hbm_bw * hbm_eff). */
double hw_mem_time(const hw_gpu *g, double bytes)
{
	return hw_overhead(g) + hw_stream_time(g, bytes);
}

/* Interference. A communication kernel (NCCL: one thread block per channel;
 * DeepEP: one per SM it is given) holds SMs the compute kernels beside it
 * would use, so while it runs the compute progresses at rate r = 1 - i (i,
 * the share of the SMs it holds). A compute task needing C seconds alone,
 * overlapped by such a kernel for its first D seconds:
 *     C <= D r:  it finishes inside the overlap, at C / r;
 *     else:      D seconds at rate r do D r of the work, the rest at full
 *                rate: D + (C - D r).
 * hw_overlap_time takes i = interference (NCCL's collectives; clamped to
 * [0, 0.9] by the key table); hw_sm_share gives a kernel's i from its SMs. */
double hw_overlap_share(double share, double compute_s, double comm_s)
{
	double r = 1.0 - share;
	if (compute_s <= 0)
		return 0;
	if (comm_s <= 0 || r >= 1.0)
		return compute_s;
	if (compute_s <= comm_s * r)
		return compute_s / r;
	return comm_s + (compute_s - comm_s * r);
}

double hw_overlap_time(const hw_gpu *g, double compute_s, double comm_s)
{
	return hw_overlap_share(g->interference, compute_s, comm_s);
}

/* A kernel resident on `sms` SMs from its launch to its end leaves the
 * other sm_count - sms to the kernels beside it: they run at
 * (sm_count - sms) / sm_count of their rate, a share sms / sm_count lost.
 * DeepEP's normal dispatch and combine are such kernels: a grid of num_sms
 * blocks (num_channels * 2 with num_channels = num_sms / 2 across nodes,
 * csrc/kernels/internode.cu:1038 and :1866; num_sms inside a node,
 * intranode.cu:500, deepseek-ai/DeepEP e02e4d2); a dispatch block is 16
 * warps with 128 KiB of shared memory (internode.cu:357, :1007-1009) whose
 * warps spin on the buffers' head and tail until their tokens are through
 * (the polling loops, :698-771), so the SMs are held for the kernel's whole
 * time whether or not data moves. */
double hw_sm_share(const hw_gpu *g, int sms)
{
	if (sms <= 0 || g->sm_count <= 0)
		return 0;
	return sms >= g->sm_count ? 1.0 : (double)sms / g->sm_count;
}
