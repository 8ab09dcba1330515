/* hw.h - the GPU model: a GPU type's spec-sheet numbers and calibrated
 * efficiencies, and the time of the kernels podsim replays.
 *
 * Kernels (kernel.c, gemm.c, attn.c):
 *  - a generic kernel is a roofline with calibrated ceilings,
 *        t = launch + framework + max(flops / (peak[dtype] * eff[dtype]),
 *                                     bytes / (hbm_bw * hbm_eff));
 *  - a GEMM is cut into output tiles run by the SMs in waves; each wave lasts
 *    as long as one tile's tensor-core time or the HBM traffic of the wave's
 *    operands, whichever is longer (gemm.c), so skinny shapes come out
 *    memory-bound and partial waves cost a whole wave;
 *  - a memory-bound op (norm, softmax, activation, optimizer step) is
 *    launch + framework + bytes / (hbm_bw * hbm_eff);
 *  - attention is one flash kernel or the unfused three-kernel path (attn.c);
 *  - a collective running beside compute takes `interference` of the SMs'
 *    throughput (NCCL channels run on SMs): hw_overlap_time; a kernel
 *    resident on n SMs takes n / sm_count (DeepEP's): hw_sm_share.
 * eff[dtype] is gemm_efficiency_<dtype> where the GPU file sets one, else
 * gemm_efficiency: fp8 GEMMs reach a smaller fraction of their peak than bf16
 * (hardware.csv efficiency,GEMM FP8 MAMF vs GEMM BF16 MAMF). The efficiencies
 * are calibrated by `podsim calibrate` (sim/calib).
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
	HW_INT4, /* int4 tensor path (Turing, Ampere); packed two per byte */
	HW_DTYPE_COUNT
} hw_dtype;

/* "fp16" -> HW_FP16 etc.; SIM_ECONF if unknown. */
int hw_dtype_parse(const char *name, hw_dtype *out);
const char *hw_dtype_name(hw_dtype t);
/* Storage size of one element: fp64 8, fp32/tf32 4, fp16/bf16 2, fp8/int8 1,
 * int4 0.5. */
double hw_dtype_bytes(hw_dtype t);

typedef struct hw_gpu {
	char name[CONF_STR_MAX];   /* e.g. "a100-sxm4-80g" */
	char source[CONF_STR_MAX]; /* provenance of the numbers */
	int sm_count;
	/* CUDA compute capability (major.minor, e.g. 9.0); 0 = not stated. What
	 * torch.cuda.get_device_properties().major reports and Transformer Engine
	 * sizes its cuBLAS workspace by (plan_workspace_bytes). */
	double compute_capability;
	double clock_hz;
	double peak_flops[HW_DTYPE_COUNT]; /* dense peak FLOP/s per dtype; 0 = unsupported */
	/* fp64 on the CUDA cores (FMA units) where it differs from peak_flops[HW_FP64],
	 * the tensor (DMMA) rate of Ampere and Hopper: what fp64 work off the tensor
	 * cores runs at (hw_vector_peak); 0 = the same as fp64. */
	double fp64_vector_flops;
	/* Capacity: what the driver reports (torch.cuda.get_device_properties()
	 * .total_memory), which the memory verdict and the KV cache get. Spec
	 * sheets quote decimal GB where the device holds GiB less the driver's
	 * share: an "80 GB" H100 reports 79.1 GiB (topologies/gpus/ cite each). */
	double hbm_bytes;
	double hbm_Bps;                    /* peak HBM bandwidth */
	double l2_bytes;                   /* GEMM operands that fit are read once (gemm.c) */
	double launch_s;    /* per-kernel launch cost */
	double framework_s; /* host time per op of the framework (plan sets it from
			     * [framework] op_overhead; 0 = graph mode, bare kernels) */
	double gemm_eff;    /* achievable fraction of tensor peak on large GEMMs (calibrated) */
	double hbm_eff;     /* achievable fraction of HBM bandwidth (calibrated) */
	double tdp_w;
	/* Per-dtype GEMM efficiency; 0 = use gemm_eff (see hw_gemm_eff). */
	double gemm_eff_dtype[HW_DTYPE_COUNT];
	/* Fixed time every GEMM output tile pays beside its k-loop (the
	 * pipeline's prologue and the epilogue writing the tile; gemm.c): what
	 * makes short-k GEMMs slower per FLOP. 0 = not measured. */
	double gemm_tile_s;
	/* The fraction of the microbenchmarks' clock that a training step's
	 * back-to-back kernels sustain: the microbenchmarks run short bursts at
	 * the boost clock; under a step's load the chip settles at one lower
	 * clock, the highest its power, current and temperature budgets allow
	 * (NVIDIA GPU Boost picks it continuously for the whole chip:
	 * stas00/ml-engineering 744d01e1 compute/accelerator/README.md:1079).
	 * Fitted to measured training steps (podsim calibrate --sustain); 0 =
	 * not fitted: hw_step_clock assumes HW_SUSTAIN_DEFAULT. hw applies it only where `sustain_cap` is set (the
	 * scenario loader sets it for training and inference steps, never for
	 * microbenchmark rows): every kernel whose time the SM clock sets
	 * (compute-bound GEMM waves, fused attention's compute) takes its
	 * microbenchmark time / sustain; what the HBM binds is not slowed
	 * (hw_gemm_explain, hw_flash_time). */
	/* Per dtype (hw_step_clock): a fitted factor holds the clock and the
	 * GEMM model's error in that dtype (the H200 measured both apart: its
	 * bf16 factor 0.898 is a clock of 0.813 and a GEMM model 10 % slow,
	 * tools/measured/h200-training), so a kernel takes its own dtype's: in
	 * an fp8 step the fp8 GEMMs take tensor_sustain_fp8 and the 16-bit
	 * SM-bound kernels (fused attention, which fp8 recipes keep in bf16;
	 * 16-bit GEMMs) tensor_sustain, as in a 16-bit step (an fp8 step's
	 * clock is no higher: the H200 sustained 1335 MHz under fp8 GEMMs and
	 * 1440 under bf16 ones). Until 2026-11-30 every SM-bound kernel of an
	 * fp8 step took the fp8 factor, fused attention 28 % faster than in a
	 * bf16 step on the H100 (0.92 against 0.72). */
	double tensor_sustain;
	double tensor_sustain_fp8; /* the same for fp8 training (0 = tensor_sustain) */
	double sustain_cap;        /* 0 = none, else the sustained clock fraction (runtime) */
	double sustain_cap16;      /* the 16-bit one, for the SM-bound kernels not in fp8
				    * (fused attention, 16-bit GEMMs) of an fp8 step; = sustain_cap
				    * otherwise (runtime; hw_clock_cap picks per kernel) */
	bool sustain_assumed;      /* sustain_cap is HW_SUSTAIN_DEFAULT*, no fit (runtime) */
	/* Fraction of compute throughput a concurrently running communication
	 * kernel takes (its SMs / sm_count); see hw_overlap_time. */
	double interference;
	/* Fused attention kernels, per implementation (hw_flash_impl) and pass
	 * (0 forward, 1 backward): the fraction of the dtype's peak reached on
	 * the FLOPs the kernel executes at long sequences, and the ramp, the
	 * FLOP-equivalent work per query token, head and head dimension that
	 * does not shrink with the sequence (attn.c); fitted to measured kernels
	 * (tests/cases/attention.csv). 0 = not measured: see hw_attn_time. */
	double attn_eff[3][2];
	double attn_ramp[3];
} hw_gpu;

/* The [gpu] section's key table (for --help-keys). */
extern const conf_key hw_gpu_keys[];
extern const size_t hw_gpu_nkeys;

/* Read the [gpu] section. SIM_OK or SIM_ECONF (errors in diag). */
int hw_gpu_from_conf(const conf_doc *doc, hw_gpu *out, sim_diag *diag);
/* The same from another section with [gpu]'s keys (a scenario's
 * [other_gpu], plan_scenario_text). */
int hw_gpu_from_section(const conf_doc *doc, const char *section, hw_gpu *out, sim_diag *diag);

/* Peak of dtype in FLOP/s, or 0 if the GPU has no such tensor path. */
double hw_peak(const hw_gpu *g, hw_dtype t);
/* Peak of dtype t on the CUDA cores (no tensor cores): fp64_vector for fp64
 * (fp64 where unset), fp32 for every other dtype. */
double hw_vector_peak(const hw_gpu *g, hw_dtype t);

/* Time of one GEMM C[m,n] = A[m,k] B[k,n] repeated `batch` times, in dtype. */
double hw_gemm_time(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch);
/* Time of a kernel that does `flops` tensor FLOPs and moves `bytes` to/from HBM. */
double hw_kernel_time(const hw_gpu *g, hw_dtype t, double flops, double bytes);
/* Time of a memory-bound kernel moving `bytes`. */
double hw_mem_time(const hw_gpu *g, double bytes);
/* Per-kernel overhead: launch_s + framework_s. */
double hw_overhead(const hw_gpu *g);

/* The calibrated GEMM efficiency of the tensor path that dtype t runs on
 * (after the fallback of kernel.c): gemm_eff_dtype[path] if set, else gemm_eff. */
double hw_gemm_eff(const hw_gpu *g, hw_dtype t);

/* The sustained clock of a GPU type with no fit on measured steps, a
 * documented default: every fitted type sustains less than its
 * microbenchmarks' clock, so the burst clock (1) is known to be optimistic.
 * 16-bit: the mean of the fitted types, each type once (topologies/gpus:
 * a100-sxm4-80g 0.85, h100-sxm5-80g 0.72; their siblings share them):
 * (0.85 + 0.72) / 2 = 0.785. fp8: the one fitted type's, h100-sxm5-80g
 * tensor_sustain_fp8 0.96. tests/cli/calibrate.sh checks both against the
 * shipped fits, so a refit that moves them fails until these follow. */
#define HW_SUSTAIN_DEFAULT     0.785
#define HW_SUSTAIN_DEFAULT_FP8 0.96

/* Set g->sustain_cap for a step whose tensor work is fp8 or not: the GPU's
 * tensor_sustain (tensor_sustain_fp8 for fp8 where set), or, neither set,
 * the default above (g->sustain_assumed); 0 (no slowdown) at 1. Training,
 * inference and serving steps call it; the microbenchmark rows never do. */
void hw_step_clock(hw_gpu *g, bool fp8);

/* How a GEMM runs (gemm.c): its tile, tile and wave counts, the time of one
 * full wave and which ceiling binds ("compute", "memory" or "latency" when
 * the overhead is more than half the time). */
typedef struct hw_gemm_plan {
	double tile_m, tile_n; /* output tile of one thread block */
	double tiles, waves;
	double time_s;  /* = hw_gemm_time */
	double flops;   /* useful FLOPs, 2mnk * batch */
	double bytes;   /* HBM traffic summed over the waves */
	const char *bound;
	double split_k; /* k split over this many thread blocks per tile (1 = none) */
} hw_gemm_plan;
void hw_gemm_explain(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch,
		     hw_gemm_plan *out);
/* hw_gemm_time when `held` of the SMs are taken by another kernel for the
 * GEMM's whole run: the kernel chosen for the whole GPU, its tiles in waves
 * of sm_count - held (gemm.c). held <= 0: hw_gemm_time. */
double hw_gemm_time_held(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch,
			 int held);

/* Attention of one layer (attn.c). Flash: one fused kernel, causal masks skip
 * half the score blocks, K/V traffic shrinks with GQA (kv_heads < heads).
 * Unfused: QK^T, softmax and PV as separate kernels that write and read the
 * seq_q x seq_kv score matrix through HBM. backward = the backward pass
 * (flash: 2.5x the forward FLOPs, recomputing the scores). */
/* Fused attention implementations: FlashAttention-2 (any Ampere/Hopper GPU;
 * PyTorch's SDPA flash backend), FlashAttention-3 (Hopper), cuDNN's fused
 * attention (Transformer Engine's default on Hopper). */
typedef enum { HW_FLASH_FA2 = 0, HW_FLASH_FA3, HW_FLASH_CUDNN, HW_FLASH_COUNT } hw_flash_impl;
/* "fa2", "fa3", "cudnn" -> impl; SIM_ECONF if unknown. */
int hw_flash_parse(const char *name, hw_flash_impl *out);
const char *hw_flash_name(hw_flash_impl i);

typedef struct hw_attn {
	double batch, heads, kv_heads, seq_q, seq_kv, head_dim;
	bool causal, flash, backward;
	hw_flash_impl impl; /* flash only */
} hw_attn;
double hw_attn_flops(const hw_attn *a); /* FLOPs executed (masked blocks skipped) */
double hw_attn_bytes(const hw_attn *a, hw_dtype t); /* HBM traffic */
double hw_attn_time(const hw_gpu *g, hw_dtype t, const hw_attn *a);
/* What one fused attention kernel does: the matmul FLOPs it executes
 * (masked blocks skipped, the backward's recomputation included), qhd =
 * query tokens x heads x head_dim (the size the ramp scales), the
 * exponentials its softmax evaluates (one per score element it computes,
 * forward or backward: hw_attn_exps) and the bytes it moves. */
typedef struct hw_flash_work {
	double flops, qhd, exps, bytes;
} hw_flash_work;
/* Its time: the measured model of attn.c when the GPU file has impl's
 * efficiencies (falling back from fa3/cudnn to fa2), else the generic kernel
 * at the GEMM efficiency. Launch and framework overhead included. */
double hw_flash_time(const hw_gpu *g, hw_dtype t, hw_flash_impl impl, bool backward,
		     const hw_flash_work *w);
/* The GPU's rate of special-function results (exp2, rcp, ...) per second,
 * 0 where it is not known (attn.c). */
double hw_sfu_rate(const hw_gpu *g);
/* The time w's exponentials take on those units, at the sustained clock
 * where set: the part of hw_flash_time they add (0 without a rate). */
double hw_flash_exp_time(const hw_gpu *g, const hw_flash_work *w);
/* The exponentials a fused attention kernel evaluates (attn.c). */
double hw_attn_exps(const hw_attn *a);

/* Time of a compute task that needs compute_s alone when a communication
 * kernel runs beside it for the first comm_s seconds: during the overlap it
 * progresses at rate 1 - interference (hw.h, gpu.c for the default). */
double hw_overlap_time(const hw_gpu *g, double compute_s, double comm_s);
/* The same with the communication kernel holding a share `share` of the SMs
 * (rate 1 - share beside it). */
double hw_overlap_share(double share, double compute_s, double comm_s);
/* The share of g's SMs a kernel resident on `sms` of them for its whole run
 * takes from the kernels beside it: sms / sm_count (at most 1; kernel.c). */
double hw_sm_share(const hw_gpu *g, int sms);

#endif
