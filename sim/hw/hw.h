/* hw.h - the GPU model: a GPU type's spec-sheet numbers and calibrated
 * efficiencies, and the time of the kernels podsim replays.
 *
 * First model (issue #2): a per-kernel roofline with calibrated efficiencies,
 *     t = launch + framework + max(flops / (peak[dtype] * gemm_eff),
 *                                  bytes / (hbm_bw * hbm_eff))
 * for tensor-core work, and bytes / (hbm_bw * hbm_eff) for memory-bound kernels.
 * The SM-level model (waves, tiles, interference) replaces the body of these
 * functions, not their signatures.
 *
 * Units: seconds, bytes, FLOP/s, bytes/s. Read from the [gpu] section.
 */
#ifndef PODSIM_HW_H
#define PODSIM_HW_H

#include "../conf/conf.h"

typedef enum {
	HW_FP64 = 0,
	HW_FP32, /* vector (CUDA-core) fp32 */
	HW_TF32,
	HW_FP16,
	HW_BF16,
	HW_FP8,
	HW_INT8,
	HW_DTYPE_COUNT
} hw_dtype;

/* "fp16" -> HW_FP16 etc.; SIM_ECONF if unknown. */
int hw_dtype_parse(const char *name, hw_dtype *out);
const char *hw_dtype_name(hw_dtype t);
/* Storage size of one element: fp64 8, fp32/tf32 4, fp16/bf16 2, fp8/int8 1. */
double hw_dtype_bytes(hw_dtype t);

typedef struct hw_gpu {
	char name[CONF_STR_MAX];   /* e.g. "a100-sxm4-80g" */
	char source[CONF_STR_MAX]; /* provenance of the numbers */
	int sm_count;
	double clock_hz;
	double peak_flops[HW_DTYPE_COUNT]; /* dense peak FLOP/s per dtype; 0 = unsupported */
	double hbm_bytes;                  /* capacity */
	double hbm_Bps;                    /* peak HBM bandwidth */
	double l2_bytes;
	double launch_s;    /* per-kernel launch cost */
	double framework_s; /* per-op eager framework overhead (0 = graph mode) */
	double gemm_eff;    /* achievable fraction of tensor peak on large GEMMs (calibrated) */
	double hbm_eff;     /* achievable fraction of HBM bandwidth (calibrated) */
	double tdp_w;
} hw_gpu;

/* The [gpu] section's key table (for --help-keys). */
extern const conf_key hw_gpu_keys[];
extern const size_t hw_gpu_nkeys;

/* Read the [gpu] section. SIM_OK or SIM_ECONF (errors in diag). */
int hw_gpu_from_conf(const conf_doc *doc, hw_gpu *out, sim_diag *diag);

/* Peak of dtype in FLOP/s, or 0 if the GPU has no such tensor path. */
double hw_peak(const hw_gpu *g, hw_dtype t);

/* Time of one GEMM C[m,n] = A[m,k] B[k,n] repeated `batch` times, in dtype. */
double hw_gemm_time(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch);
/* Time of a kernel that does `flops` tensor FLOPs and moves `bytes` to/from HBM. */
double hw_kernel_time(const hw_gpu *g, hw_dtype t, double flops, double bytes);
/* Time of a memory-bound kernel moving `bytes`. */
double hw_mem_time(const hw_gpu *g, double bytes);
/* Per-kernel overhead: launch_s + framework_s. */
double hw_overhead(const hw_gpu *g);

#endif
