/* gpu.c - the [gpu] section: a GPU type's spec-sheet numbers and calibrated
 * efficiencies (hw.h), and the names and storage sizes of the data types.
 *
 * Units after reading, all SI: FLOP/s for the peaks, bytes, bytes/s, Hz, s, W.
 * Peaks are dense (no 2:4 sparsity) and per dtype: fp32 is the vector
 * (CUDA-core) rate, every other dtype the tensor-core (matrix) rate; 0 means
 * the GPU has no such path (see kernel.c for the fallback used when a kernel
 * asks for one anyway). fp64 is the tensor (DMMA) rate where the GPU has one
 * (A100, H100) and fp64_vector then its CUDA-core rate (A100 9.7 against
 * 19.5 TFLOP/s: hardware.csv fp64_vector and fp64_tensor rows). V100's int8
 * is DP4A on the CUDA cores (no int8 tensor mode; its file derives the rate). gemm_efficiency and hbm_efficiency are fractions of
 * the peaks that large kernels reach, calibrated from microbenchmarks
 * (reference/hardware.md section 14).
 *
 * Called by plan (scenario loading) and valid (microbenchmark rows).
 */
#include "hw.h"

#include <stddef.h>
#include <string.h>

#define BIG 1e300 /* no upper bound */

#define PEAK(key, t, what)                                                                     \
	{key, CONF_QTY, SIM_UNIT_FLOPS, 0, 1e19, "0 FLOP/s", NULL,                             \
	 offsetof(hw_gpu, peak_flops) + (size_t)(t) * sizeof(double), what}

#define EFF(key, t, what)                                                                      \
	{key, CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL,                                       \
	 offsetof(hw_gpu, gemm_eff_dtype) + (size_t)(t) * sizeof(double), what}

#define ATTN(key, impl, pass, what)                                                            \
	{key, CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL,                                       \
	 offsetof(hw_gpu, attn_eff) + ((size_t)(impl) * 2 + (size_t)(pass)) * sizeof(double), what}

#define RAMP(key, impl, what)                                                                  \
	{key, CONF_REAL, SIM_UNIT_NONE, 0, 1e6, "0", NULL,                                     \
	 offsetof(hw_gpu, attn_ramp) + (size_t)(impl) * sizeof(double), what}

const conf_key hw_gpu_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(hw_gpu, name),
	 "GPU type, e.g. a100-sxm4-80g"},
	{"source", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(hw_gpu, source),
	 "where the numbers come from"},
	{"sm_count", CONF_INT, SIM_UNIT_NONE, 1, 100000, NULL, NULL, offsetof(hw_gpu, sm_count),
	 "streaming multiprocessors (compute units on AMD)"},
	{"compute_capability", CONF_REAL, SIM_UNIT_NONE, 0, 99, "0", NULL,
	 offsetof(hw_gpu, compute_capability),
	 "CUDA compute capability, e.g. 8.0 (A100), 9.0 (H100): what frameworks pick code paths "
	 "and buffer sizes by; 0 = not stated (non-NVIDIA)"},
	{"clock", CONF_QTY, SIM_UNIT_FREQ, 1e6, 1e11, NULL, NULL, offsetof(hw_gpu, clock_hz),
	 "clock behind the spec peaks"},
	PEAK("fp64", HW_FP64, "dense fp64 peak (tensor/matrix; vector where there is none)"),
	{"fp64_vector", CONF_QTY, SIM_UNIT_FLOPS, 0, 1e19, "0 FLOP/s", NULL,
	 offsetof(hw_gpu, fp64_vector_flops),
	 "dense fp64 on the CUDA cores where it differs from fp64 (gemv, non-GEMM work); 0 = fp64"},
	PEAK("fp32", HW_FP32, "dense fp32 vector (CUDA-core) peak"),
	PEAK("tf32", HW_TF32, "dense tf32 tensor-core peak; 0 = unsupported"),
	PEAK("fp16", HW_FP16, "dense fp16 tensor-core peak (fp32 accumulate); 0 = unsupported"),
	PEAK("bf16", HW_BF16, "dense bf16 tensor-core peak; 0 = unsupported"),
	PEAK("fp8", HW_FP8, "dense fp8 tensor-core peak; 0 = unsupported"),
	PEAK("int8", HW_INT8, "dense int8 tensor-core peak (OP/s); 0 = unsupported"),
	PEAK("int4", HW_INT4, "dense int4 tensor-core peak (OP/s); 0 = unsupported"),
	{"hbm", CONF_QTY, SIM_UNIT_BYTES, 1, BIG, NULL, NULL, offsetof(hw_gpu, hbm_bytes),
	 "device memory capacity"},
	{"hbm_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 1, BIG, NULL, NULL, offsetof(hw_gpu, hbm_Bps),
	 "peak device memory bandwidth"},
	{"l2", CONF_QTY, SIM_UNIT_BYTES, 0, BIG, NULL, NULL, offsetof(hw_gpu, l2_bytes),
	 "L2 cache size"},
	{"launch_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 1, "4 us", NULL,
	 offsetof(hw_gpu, launch_s), "per-kernel launch cost"},
	{"gemm_efficiency", CONF_REAL, SIM_UNIT_NONE, 0.01, 1, NULL, NULL,
	 offsetof(hw_gpu, gemm_eff), "fraction of tensor peak reached by large GEMMs"},
	{"hbm_efficiency", CONF_REAL, SIM_UNIT_NONE, 0.01, 1, NULL, NULL,
	 offsetof(hw_gpu, hbm_eff), "fraction of hbm_bw reached by streaming kernels"},
	{"tdp", CONF_QTY, SIM_UNIT_POWER, 1, 1e6, NULL, NULL, offsetof(hw_gpu, tdp_w),
	 "board power limit"},
	EFF("gemm_efficiency_tf32", HW_TF32, "tf32 GEMM fraction of peak; 0 = gemm_efficiency"),
	EFF("gemm_efficiency_fp16", HW_FP16, "fp16 GEMM fraction of peak; 0 = gemm_efficiency"),
	EFF("gemm_efficiency_bf16", HW_BF16, "bf16 GEMM fraction of peak; 0 = gemm_efficiency"),
	EFF("gemm_efficiency_fp8", HW_FP8, "fp8 GEMM fraction of peak; 0 = gemm_efficiency"),
	EFF("gemm_efficiency_int8", HW_INT8, "int8 GEMM fraction of peak; 0 = gemm_efficiency"),
	EFF("gemm_efficiency_int4", HW_INT4, "int4 GEMM fraction of peak; 0 = gemm_efficiency"),
	/* Default 0.12 = 16 / 132: NCCL runs one thread block (one SM) per
	 * channel, 16 channels is a common intra-node ring count (NCCL's limit
	 * is 32), and an H100 has 132 SMs. An assumption, not a measurement:
	 * the GPU files set 16 / sm_count each. */
	{"tensor_sustain", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL,
	 offsetof(hw_gpu, tensor_sustain),
	 "fraction of the microbenchmarks' clock a step's SM-bound kernels sustain "
	 "(0 = not fitted: the fitted GPUs' mean, hw.h HW_SUSTAIN_DEFAULT)"},
	{"tensor_sustain_fp8", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL,
	 offsetof(hw_gpu, tensor_sustain_fp8),
	 "the same for fp8 training (0 = tensor_sustain; neither fitted: HW_SUSTAIN_DEFAULT_FP8)"},
	{"gemm_tile_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 1e-4, "0 us", NULL,
	 offsetof(hw_gpu, gemm_tile_s),
	 "fixed time per GEMM output tile beside its k-loop (prologue, epilogue)"},
	ATTN("attn_fa2_fwd", HW_FLASH_FA2, 0, "FlashAttention-2 forward: fraction of peak at long sequences"),
	ATTN("attn_fa2_bwd", HW_FLASH_FA2, 1, "FlashAttention-2 backward: fraction of peak at long sequences"),
	RAMP("attn_fa2_ramp", HW_FLASH_FA2, "FlashAttention-2: work per query token, head and head dim"),
	ATTN("attn_fa3_fwd", HW_FLASH_FA3, 0, "FlashAttention-3 forward (0 = fa2's)"),
	ATTN("attn_fa3_bwd", HW_FLASH_FA3, 1, "FlashAttention-3 backward (0 = fa2's)"),
	RAMP("attn_fa3_ramp", HW_FLASH_FA3, "FlashAttention-3: work per query token, head and head dim"),
	ATTN("attn_cudnn_fwd", HW_FLASH_CUDNN, 0, "cuDNN fused attention forward (0 = fa2's)"),
	ATTN("attn_cudnn_bwd", HW_FLASH_CUDNN, 1, "cuDNN fused attention backward (0 = fa2's)"),
	RAMP("attn_cudnn_ramp", HW_FLASH_CUDNN, "cuDNN fused attention: work per query token, head, head dim"),
	{"interference", CONF_REAL, SIM_UNIT_NONE, 0, 0.9, "0.12", NULL,
	 offsetof(hw_gpu, interference),
	 "fraction of compute lost beside a running collective (its SMs / sm_count)"},
};
const size_t hw_gpu_nkeys = sizeof hw_gpu_keys / sizeof hw_gpu_keys[0];

static const char *const dtype_names[HW_DTYPE_COUNT] = {"fp64", "fp32", "tf32", "fp16",
							"bf16", "fp8",  "int8", "int4"};
static const double dtype_bytes[HW_DTYPE_COUNT] = {8, 4, 4, 2, 2, 1, 1, 0.5};

int hw_dtype_parse(const char *name, hw_dtype *out)
{
	for (int i = 0; name && i < HW_DTYPE_COUNT; i++)
		if (!strcmp(name, dtype_names[i])) {
			*out = (hw_dtype)i;
			return SIM_OK;
		}
	return SIM_ECONF;
}

const char *hw_dtype_name(hw_dtype t)
{
	return (unsigned)t < HW_DTYPE_COUNT ? dtype_names[t] : "?";
}

double hw_dtype_bytes(hw_dtype t)
{
	return (unsigned)t < HW_DTYPE_COUNT ? dtype_bytes[t] : 0;
}

/* Checks across keys: a GPU needs the fp32 vector path (every fallback in
 * kernel.c ends there) and at least one tensor-core path. */
static int check_gpu(const conf_doc *doc, const char *sec, const hw_gpu *g, sim_diag *diag)
{
	int rc = SIM_OK;
	if (g->peak_flops[HW_FP32] <= 0) {
		conf_loc l = conf_key_loc(doc, sec, "fp32");
		sim_diag_error(diag, l.path, l.line, "[%s] fp32 must be > 0 FLOP/s", sec);
		rc = SIM_ECONF;
	}
	static const hw_dtype tensor[] = {HW_TF32, HW_FP16, HW_BF16, HW_FP8, HW_INT8, HW_INT4};
	bool any = false;
	for (size_t i = 0; i < sizeof tensor / sizeof tensor[0]; i++)
		any = any || g->peak_flops[tensor[i]] > 0;
	if (!any) {
		conf_loc l = conf_section_loc(doc, sec);
		sim_diag_error(diag, l.path, l.line,
			       "[%s] no tensor-core peak: set at least one of tf32, fp16, bf16, "
			       "fp8, int8, int4", sec);
		rc = SIM_ECONF;
	}
	return rc;
}

int hw_gpu_from_section(const conf_doc *doc, const char *section, hw_gpu *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rc = conf_read(doc, section, hw_gpu_keys, hw_gpu_nkeys, out, false, diag);
	if (rc != SIM_OK || !conf_has_section(doc, section))
		return SIM_ECONF;
	return check_gpu(doc, section, out, diag);
}

int hw_gpu_from_conf(const conf_doc *doc, hw_gpu *out, sim_diag *diag)
{
	return hw_gpu_from_section(doc, "gpu", out, diag);
}

void hw_step_clock(hw_gpu *g, bool fp8)
{
	double k = g->tensor_sustain;
	if (fp8 && g->tensor_sustain_fp8 > 0)
		k = g->tensor_sustain_fp8;
	g->sustain_assumed = k <= 0;
	if (g->sustain_assumed)
		k = fp8 ? HW_SUSTAIN_DEFAULT_FP8 : HW_SUSTAIN_DEFAULT;
	g->sustain_cap = k < 1.0 ? k : 0.0;
	double k16 = g->tensor_sustain > 0 ? g->tensor_sustain : HW_SUSTAIN_DEFAULT;
	g->sustain_cap16 = !fp8 ? g->sustain_cap : k16 < 1.0 ? k16 : 0.0;
}
