/* attn.c - the attention core of one layer (softmax(Q K^T / sqrt(d)) V) on one
 * GPU: flash (fused) or unfused. Units: FLOPs, bytes, seconds. A helper for
 * callers that build kernel programs (work, plan) and for `podsim kernel`.
 *
 * Shapes: b sequences, h query heads, g key/value heads (GQA: g < h, g = h
 * without), q query and v key positions, d head dimension, s bytes per element.
 *
 * Flash (Dao et al. 2022; one kernel). Forward FLOPs: two matmuls, Q K^T and
 * P V, each 2 q v d per head: F = 4 b h q v d. A causal mask lets the kernel
 * skip the blocks above the diagonal: F / 2 (the diagonal blocks are ignored).
 * Backward recomputes S = Q K^T and does dV = P^T dO, dP = dO V^T, dQ = dS K,
 * dK = dS^T Q: 5 matmuls against 2, so 2.5 F (FlashAttention-2 paper, sec. 3).
 * HBM traffic is the compulsory one: forward reads Q, K, V and writes O (and a
 * fp32 log-sum-exp per row, 4 b h q); backward reads Q, K, V, O, dO and writes
 * dQ, dK, dV. K and V have g heads, so GQA shrinks their traffic by g / h.
 * Time (hw_flash_time): measured kernels are slower than a GEMM and slower
 * still at short sequences (tests/cases/attention.csv: FlashAttention-2 on
 * H100, causal, head dim 128, forward + backward, 163 TFLOP/s at 512 tokens,
 * 328 at 16k; a bf16 GEMM reaches ~790). The model charges, besides the F
 * executed FLOPs, a work W0 per query token, head and head dimension that
 * does not shrink with the sequence (the Q tile load, the O/dQ writes and the
 * online-softmax rescaling of every row block, the causal diagonal blocks):
 *     t = launch + max((F + r * b h q d * p) / (peak * e), bytes / bw),
 * p = 1 forward, 2.5 backward; e (attn_<impl>_fwd / _bwd) and r
 * (attn_<impl>_ramp) per GPU and implementation, fitted by podsim calibrate
 * to the measured rows. Causal forward: F = 2 b h s^2 d, so the achieved rate
 * is peak * e * 2s / (2s + r): the ramp with sequence length. Without measured
 * values for the implementation (fa3/cudnn fall back to fa2) the kernel runs
 * at the dtype's GEMM efficiency (an upper bound; its exponentials below are
 * not charged there either: a GPU without measured attention kernels, B200,
 * may run ones that evaluate part of them off the special-function units, as
 * FlashAttention-4's Blackwell forward emulates exp2 on some fragments,
 * Dao-AILab/flash-attention 0251105a flash_attn/cute/flash_fwd_sm100.py:76-107).
 * The softmax's exponentials. Every score element the kernel computes is
 * exponentiated once, forward (online softmax) and backward (P = exp(S -
 * LSE) recomputed): X = b h q v, halved under the causal mask as F. They run
 * on the SMs' special-function units, 16 results per clock per SM on
 * compute capability 7.0-9.0 (CUDA C++ Programming Guide, "Arithmetic
 * Instructions", throughput of exp2f and the other transcendentals; not the
 * tensor cores; 10.0 assumed the same: Blackwell's kernels emulate some of
 * theirs, above): H100 SXM 132 x 16 x 1.83 GHz = 3.9e12/s against 989 TFLOP/s
 * of 16-bit matmul, the figure with which FlashAttention-3 (Shah et al.
 * 2024, sec. 3.1) explains why "exponential can take 50% of the cycle time
 * compared to matmul" at head dimension 128: F / X = 4 d FLOPs per
 * exponential forward (10 d backward), so the share doubles at d = 64,
 * which no efficiency per implementation can follow. Charged beside the
 * matmuls, not hidden under them (the kernels overlap them only in part),
 *     t = launch + max((F + r b h q d p) / (peak e) + X / R_sfu, bytes / bw),
 * both parts at the sustained clock; e and r are fitted with it (head
 * dimension 128 rows), so the head dimension 64 rows are predicted.
 *
 * Unfused (the eager PyTorch path). Forward: a batched GEMM S = Q K^T (b h
 * matrices of q x v x d), a softmax that reads S and writes P (2 s b h q v
 * bytes), and a batched GEMM O = P V (q x d x v). K and V are expanded to h
 * heads first (repeat_interleave), so GQA saves nothing, and the causal mask
 * is applied to the full S, so it saves nothing either. Backward: dP = dO V^T,
 * dV = P^T dO, a softmax backward reading P and dP and writing dS (3 s b h q
 * v), dQ = dS K, dK = dS^T Q. Times are those of hw_gemm_time and hw_mem_time,
 * each paying its own launch: the s x s score matrix through HBM is what
 * makes long sequences slow.
 */
#include "hw_int.h"

#include <string.h>

static double q_elems(const hw_attn *a)
{
	return a->batch * a->heads * a->seq_q * a->head_dim;
}

static double kv_elems(const hw_attn *a, bool expanded)
{
	double g = !expanded && a->kv_heads > 0 ? a->kv_heads : a->heads;
	return a->batch * g * a->seq_kv * a->head_dim;
}

static double score_elems(const hw_attn *a)
{
	return a->batch * a->heads * a->seq_q * a->seq_kv;
}

double hw_attn_flops(const hw_attn *a)
{
	double f = 4.0 * score_elems(a) * a->head_dim;
	if (a->flash && a->causal)
		f *= 0.5;
	return a->backward ? 2.5 * f : f;
}

double hw_attn_bytes(const hw_attn *a, hw_dtype t)
{
	double s = hw_dtype_bytes(t), q = q_elems(a), kv = kv_elems(a, !a->flash);
	if (a->flash) {
		double lse = 4.0 * a->batch * a->heads * a->seq_q;
		/* fwd: Q, O + K, V; bwd: Q, O, dO, dQ + K, V, dK, dV */
		return a->backward ? s * (4 * q + 4 * kv) + lse : s * (2 * q + 2 * kv) + lse;
	}
	double sc = score_elems(a);
	/* fwd: S written, read by softmax, P written, read by PV = 4 score
	 * passes; bwd: P read twice (dV, softmax bwd), dP written and read, dS
	 * written and read twice (dQ, dK) = 7. Q, K, V, O (and grads) once. */
	return a->backward ? s * (7 * sc + 4 * q + 4 * kv) : s * (4 * sc + 2 * q + 2 * kv);
}

static double unfused_time(const hw_gpu *g, hw_dtype t, const hw_attn *a)
{
	double bh = a->batch * a->heads, q = a->seq_q, v = a->seq_kv, d = a->head_dim;
	double s = hw_dtype_bytes(t), sc = score_elems(a);
	if (!a->backward)
		return hw_gemm_time(g, t, q, v, d, bh) + hw_mem_time(g, 2 * s * sc) +
		       hw_gemm_time(g, t, q, d, v, bh);
	return hw_gemm_time(g, t, q, v, d, bh)    /* dP = dO V^T */
	       + hw_gemm_time(g, t, v, d, q, bh)  /* dV = P^T dO */
	       + hw_mem_time(g, 3 * s * sc)       /* dS = softmax'(P, dP) */
	       + hw_gemm_time(g, t, q, d, v, bh)  /* dQ = dS K */
	       + hw_gemm_time(g, t, v, d, q, bh); /* dK = dS^T Q */
}

static const char *const flash_names[HW_FLASH_COUNT] = {"fa2", "fa3", "cudnn"};

int hw_flash_parse(const char *name, hw_flash_impl *out)
{
	for (int i = 0; i < HW_FLASH_COUNT; i++)
		if (!strcmp(name, flash_names[i])) {
			*out = (hw_flash_impl)i;
			return SIM_OK;
		}
	return SIM_ECONF;
}

const char *hw_flash_name(hw_flash_impl i)
{
	return (unsigned)i < HW_FLASH_COUNT ? flash_names[i] : "?";
}

/* Special-function results per clock and SM on NVIDIA's compute capability
 * 7.0 and later (attn.c's header); other GPUs (older ones, and those without
 * a compute capability: AMD) are not known and charge none. */
#define HW_SFU_PER_SM_CLOCK 16.0

double hw_sfu_rate(const hw_gpu *g)
{
	if (!(g->compute_capability >= 7.0) || g->sm_count <= 0 || !(g->clock_hz > 0))
		return 0;
	return HW_SFU_PER_SM_CLOCK * g->sm_count * g->clock_hz;
}

double hw_flash_exp_time(const hw_gpu *g, const hw_flash_work *w)
{
	double sfu = hw_sfu_rate(g);
	if (!(sfu > 0) || !(w->exps > 0))
		return 0;
	double t = w->exps / sfu;
	double cap = hw_clock_cap(g, HW_BF16); /* the softmax's, beside 16-bit matmuls */
	return cap > 0 ? t / cap : t;
}

double hw_attn_exps(const hw_attn *a)
{
	double x = score_elems(a);
	return a->flash && a->causal ? 0.5 * x : x;
}

double hw_flash_time(const hw_gpu *g, hw_dtype t, hw_flash_impl impl, bool backward,
		     const hw_flash_work *w)
{
	int pass = backward ? 1 : 0;
	hw_flash_impl use = impl;
	if ((unsigned)use >= HW_FLASH_COUNT || !(g->attn_eff[use][pass] > 0))
		use = HW_FLASH_FA2; /* Hopper kernels not measured on this GPU */
	double e = g->attn_eff[use][pass];
	if (!(e > 0))
		return hw_kernel_time(g, t, w->flops, w->bytes);
	double peak = hw_peak(g, hw_path_dtype(g, t));
	double work = w->flops + g->attn_ramp[use] * w->qhd * (backward ? 2.5 : 1.0);
	double tc = peak > 0 ? work / (peak * e) : 0, tm = hw_stream_time(g, w->bytes);
	/* the sustained clock (hw.h tensor_sustain) slows the SM-bound part,
	 * the exponentials too (hw_flash_exp_time) */
	double cap = hw_clock_cap(g, hw_path_dtype(g, t));
	if (cap > 0)
		tc /= cap;
	tc += hw_flash_exp_time(g, w);
	return hw_overhead(g) + (tc > tm ? tc : tm);
}

double hw_attn_time(const hw_gpu *g, hw_dtype t, const hw_attn *a)
{
	if (a->batch <= 0 || a->heads <= 0 || a->seq_q <= 0 || a->seq_kv <= 0 || a->head_dim <= 0)
		return 0;
	if (!a->flash)
		return unfused_time(g, t, a);
	hw_flash_work w = {hw_attn_flops(a), a->batch * a->heads * a->seq_q * a->head_dim,
			   hw_attn_exps(a), hw_attn_bytes(a, t)};
	return hw_flash_time(g, t, a->impl, a->backward, &w);
}
