/* gemm.c - the time of a GEMM C[m,n] = A[m,k] B[k,n] (times `batch`) on the
 * SMs of one GPU: tiles, waves, and per wave the tensor-core time of a tile
 * against the HBM traffic of the wave's operands. Units: seconds, FLOPs,
 * bytes, FLOP/s, bytes/s. Called by plan (kernel programs), valid and calib
 * (microbenchmark rows) and the attention model (attn.c).
 *
 * Tiles. The output is cut into tm x tn tiles, one thread block each, run
 * one per SM. tm = tn = 128 is the usual CUTLASS/cuBLAS block tile of 16-bit
 * tensor-core GEMMs on Ampere and Hopper (an assumption, not a measurement).
 * A short GEMM (m <= 64, the decode and batching shapes) may instead run
 * with tiles as short as m rounded up to 16, 32 or 64 rows (CUTLASS and
 * cuBLAS carry short-tile tensor-core kernels for small m; which one cuBLAS's
 * heuristic picks for a shape is assumed here, not measured; Ampere's
 * mma.m16n8k16 is 16 rows tall), and on the CUDA-core
 * path (fp32, and fp64 at its CUDA-core rate fp64_vector where the GPU has
 * fp64 tensor cores: hw_vector_peak) a gemv with no padded rows at all,
 * tm = m < 16. A GEMM one
 * tile row tall (m <= 128) whose tiles fill under half the SMs may split k
 * over s thread blocks per tile (split-K: each does k / s, at least 512
 * deep, all in one wave; the fp32 partial sums, 4 m n s bytes, are written
 * and read back once more). Each candidate (tile rows x split) is timed
 * below and the fastest kept, the shortest covering tile unsplit unless
 * another is strictly faster, as cuBLAS's heuristic aims to. So m = 64 stays
 * memory-bound at the weights' bytes over the achievable HBM bandwidth
 * (an A100 64 x 8192 x 8192 bf16 GEMM: 1.36e8 B / (2039 GB/s x 0.87) =
 * 76.8 us + the 4 us launch, where a 128-row tile made it compute-bound at
 * 111 us). Measured: DeepGEMM's fp8 decode rows on H800
 * (tests/cases/gemm-decode.csv): m = 64, 128 GEMMs at 1.5-2.7 TB/s.
 * Not applied to taller GEMMs: 64-wide tiles for any dimension <= 64 were
 * tried and left out (they speed up the head_dim = 64 GEMMs of unfused
 * attention, and the end-to-end validation went from 24.2 % to 26.3 %
 * MAPE); split-K of the training GEMMs' wgrad (k = tokens) is not modelled
 * beyond GEMMs one tile row tall. (Unfused attention's dK and dV were once
 * written as such GEMMs, [d, b a s] x [b a s, s], and split here; since
 * 2026-11-29 they are the b x a batched [s, s] x [s, d] GEMMs cuBLAS runs,
 * work/layer.c attn_unfused.)
 *     R = ceil(m / tm), C = ceil(n / tn), tiles T = R C batch,
 *     waves W = ceil(T / sm), the last one holding T - (W-1) sm tiles.
 *
 * Compute. Every SM computes its tile at the per-SM share of the calibrated
 * tensor rate, plus a fixed time t_0 per tile (gemm_tile_overhead: the
 * software pipeline's fill before the first k-step and the epilogue that
 * converts and writes the tile), so a wave lasts
 *     t_c = 2 tm tn k / (P_t e_t / sm) + t_0
 * however many of its slots are used: the wave quantization (tiles = sm
 * takes one t_c, tiles = sm + 1 two). For m, n multiples of the tile and T of
 * sm, W t_c is 2mnk / (P_t e_t) + W t_0, the roofline plus the tile cost: the
 * efficiency of a long-k GEMM is e_t, that of k, e_t k / (k + k_0) with k_0 =
 * t_0 P_t e_t / (2 tm tn sm). Measured (tests/cases/gemm-shapes.csv, fp8 on
 * H800 at m = 4096: 1358 TFLOP/s at k = 16384, 1025 at 2048, 590 at 512) k_0
 * is about 800 fp8 k-steps, t_0 ~1.7 us.
 *
 * Memory. The tiles of a wave stream their A row panels and B column panels
 * (k deep) from HBM; tiles sharing a panel share it through L2, so a wave of
 * w tiles placed as an r x c block of the tile grid (swizzled rasterization:
 * r = ceil(sqrt(w)) rows, c = ceil(w / r) columns, clipped to the grid) reads
 *     s k (min(m, r tm) + min(n, c tn))
 * bytes of operands and writes its w / (R C) share of the m n outputs, s bytes
 * per element. A wave that covers whole matrices (w >= R C, batched GEMMs)
 * moves w / (R C) times the compulsory s (mk + kn + mn). The wave takes
 *     max(t_c, bytes_w / (W_hbm e_hbm)).
 * Large GEMMs are compute-bound (an H100 wave of 132 tiles in 11 x 12 reads
 * 2 k 23 * 128 bytes in 2.0e-9 k s against t_c = 5.3e-9 k s); a GEMM with
 * m <= 128 is one tile row, its wave reads a 132-tile-wide B panel and is
 * memory-bound; a GEMV moves its weight matrix once: t ~ s k n / (W e_hbm).
 * L2. When one matrix's operands and output, s (mk + kn + mn), fit in the L2
 * cache (l2 in the GPU file: A100 40 MB, H100 50 MB), the panels a wave
 * reads stay there for the next waves and HBM sees every element once: each
 * wave moves at most its tiles' share of those compulsory bytes. Checked
 * before it was kept: the 1,592 training rows of tests/cases/calibration.csv
 * move by at most 0.035 % (228 rows; MAPE per source unchanged, 7.7 %), the
 * unfused attention rows of attention.csv by up to 0.8 % (MAPE 11.0 ->
 * 11.1 %), the DeepGEMM decode rows by 0.1 % (17.5 -> 17.4 %).
 * Not modelled: split-K beyond one tile row, tile widths other than 128,
 * L2 reuse across kernels.
 *
 * Sustained clock. In a training step (hw_gpu.sustain_cap set) a GEMM whose
 * time the SM clock sets (its waves compute-bound) takes its microbenchmark
 * time / sustain: the microbenchmarks run short bursts at the boost clock, a
 * step runs at the one clock the chip sustains under its power and thermal
 * budget (hw.h tensor_sustain), and every SM-bound kernel of the step runs at
 * it, small GEMMs as well as large ones; a GEMM whose waves the HBM binds
 * (best_mem) is not slowed. Until 2026-11 the sustain was a ceiling on the
 * rate (only kernels near full rate slowed): refitted both ways on the
 * training rows, the clock fits better on every GPU and precision, each
 * source left out (README "Fitted constants": H100 16-bit 11.5 -> 9.3 %,
 * fp8 5.9 -> 5.3 %, A100 8.7 -> 8.0 %), and it removes the sign the
 * ceiling left by GEMM size (vTrain's 175B rows +7 %, 3.6B tp 4 rows -11 %).
 *
 * Held SMs (hw_gemm_time_held). Beside a kernel that holds n SMs for its
 * whole run (DeepEP's dispatch and combine: hw_sm_share) the GEMM launches
 * the kernel chosen for the whole GPU (cuBLAS picks it knowing nothing of
 * the other kernel; Transformer Engine sets no SM target unless
 * NVTE_EXT_MARGIN_SM is set, transformer_engine/pytorch/csrc/extensions/
 * gemm.cpp:285 at NVIDIA/TransformerEngine d0067d0d) and its tiles run in
 * waves of sm_count - n, each tile at the same per-SM rate:
 *     W' = ceil(T / (sm - n)) waves instead of ceil(T / sm),
 * so a GEMM of one wave on the whole GPU takes two (a 2048 x 2048 grid of
 * 256 tiles: 2 waves of 132, 3 of 112: 1.5x), one of many waves about
 * sm / (sm - n) (8192^3: 32 -> 37 waves, 1.16x; the linear share 1.18x).
 * Measured on an H200 (132 SMs) beside a 20-SM resident kernel
 * (tools/measure-sm-share.py, tools/measured/sm-share-h200-run*.csv; three
 * runs, against the same loop without the holder): 8192^3 1.1-1.36x (model
 * 1.16), 4096 x 4096 x 7168 1.23-1.26x (1.25: 8 -> 10 waves), 4096 x 7168 x
 * 2048 1.18-1.47x (1.14), 2048 x 2048 x 7168 1.6-2.0x (1.5) and 4096 x 1536
 * x 7168 1.6-2.1x (1.33: 3 -> 4 waves): the waves' direction, short of what
 * the small grids lose (cuBLAS's tiles are not this model's 128 x 128, and
 * its clusters of blocks need SMs of one GPC); the linear share says 1.18x
 * for all.
 *
 * The kernel's overhead (launch + framework) is added once. With sm_count = 0
 * the plain roofline of hw_kernel_time is used.
 */
#include "hw_int.h"

#include <math.h>
#include <stdbool.h>

#define HW_GEMM_TILE 128.0
#define HW_GEMV_TILE 16.0
#define HW_SPLIT_K_MIN 512.0 /* shallowest split of k (split-K) */
#define HW_SPLIT_K_MAX 16.0

static double ceil_div(double a, double b)
{
	return ceil(a / b);
}

typedef struct gemm_shape {
	double m, n, k, s;         /* dims and bytes per element */
	double tm, tn, rows, cols; /* tile and tile grid of one matrix */
} gemm_shape;

/* HBM bytes of a wave of w tiles (see the header). */
static double wave_bytes(const gemm_shape *x, double w)
{
	double grid = x->rows * x->cols;
	if (w >= grid)
		return w / grid * x->s * (x->m * x->k + x->k * x->n + x->m * x->n);
	double r = fmin(x->rows, ceil(sqrt(w)));
	double c = fmin(x->cols, ceil_div(w, r));
	r = fmin(x->rows, ceil_div(w, c));
	double operands = x->s * x->k * (fmin(x->m, r * x->tm) + fmin(x->n, c * x->tn));
	return operands + w / grid * x->s * x->m * x->n;
}

/* One candidate kernel: tile rows tm (columns HW_GEMM_TILE) and split-K
 * factor `split`, its tiles run by `sm` SMs; fills tiles, waves and bytes of
 * *out and returns the busy time (no overhead, no sustain cap); *mem: the
 * HBM traffic binds. A tile computes at the per-SM rate of the whole GPU
 * (rate / sm_count) whatever `sm` is. */
static double candidate(const hw_gpu *g, double rate, gemm_shape *x, double batch, double split,
			double sm, hw_gemm_plan *out, bool *mem)
{
	x->rows = ceil_div(x->m, x->tm);
	x->cols = ceil_div(x->n, x->tn);
	double grid = x->rows * x->cols * batch;
	out->tile_m = x->tm;
	out->tile_n = x->tn;
	out->tiles = grid * split;
	out->waves = ceil_div(out->tiles, sm);
	double tc = 2.0 * x->tm * x->tn * (x->k / split) / (rate / g->sm_count) + g->gemm_tile_s;
	if (split > 1) { /* one wave on the whole GPU (see split_max): the operands
			  * once, + partials; more on fewer SMs (gemm_plan's held) */
		out->bytes = wave_bytes(x, grid) + 2.0 * 4.0 * x->m * x->n * batch * split;
		double tm = hw_stream_time(g, out->bytes), tw = out->waves * tc;
		*mem = tm > tw;
		return fmax(tw, tm);
	}
	double last = out->tiles - (out->waves - 1) * sm;
	double bf = wave_bytes(x, fmin(sm, out->tiles)), bl = wave_bytes(x, last);
	/* L2-resident operands: when one matrix's A and B fit in L2 together
	 * (with the wave's outputs), later waves find the panels there and
	 * HBM sees each operand once: every wave moves its tiles' share of the
	 * compulsory s (mk + kn + mn), at most what wave_bytes says. */
	double comp = x->s * (x->m * x->k + x->k * x->n + x->m * x->n);
	if (g->l2_bytes > 0 && out->waves > 1 && comp <= g->l2_bytes) {
		double per = comp / (x->rows * x->cols);
		bf = fmin(bf, per * fmin(sm, out->tiles));
		bl = fmin(bl, per * last);
	}
	out->bytes = (out->waves - 1) * bf + bl;
	*mem = hw_stream_time(g, bf) > tc;
	return (out->waves - 1) * fmax(tc, hw_stream_time(g, bf)) + fmax(tc, hw_stream_time(g, bl));
}

/* The largest split-K factor for a grid of `grid` tiles: the split tiles
 * still fit one wave, and each split is at least HW_SPLIT_K_MIN deep. */
static double split_max(const hw_gpu *g, double grid, double k)
{
	double s = floor(g->sm_count / grid);
	s = fmin(s, floor(k / HW_SPLIT_K_MIN));
	return fmax(1.0, fmin(s, HW_SPLIT_K_MAX));
}

/* hw_gemm_explain with `held` SMs taken by another kernel for the whole
 * run: the kernel is chosen on the whole GPU, then timed on the rest. */
static void gemm_plan(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch,
                      int held, hw_gemm_plan *out)
{
	gemm_shape x = {m, n, k, hw_dtype_bytes(t), HW_GEMM_TILE, HW_GEMM_TILE, 0, 0};
	x.rows = ceil_div(m, x.tm);
	x.cols = ceil_div(n, x.tn);
	*out = (hw_gemm_plan){x.tm, x.tn, 0, 0, 0, 2.0 * m * n * k * batch, 0, "compute", 1};
	double rate = hw_rate(g, t), over = hw_overhead(g);
	if (g->sm_count <= 0 || m <= 0 || n <= 0 || k <= 0 || batch <= 0 || rate <= 0) {
		out->bytes = x.s * (m * k + k * n + m * n) * fmax(batch, 0);
		out->time_s = hw_kernel_time(g, t, out->flops, out->bytes);
		if (rate <= 0 || hw_stream_time(g, out->bytes) > out->flops / rate)
			out->bound = "memory";
	} else {
		/* the candidates, the shortest tile that covers m first (a gemv
		 * kernel with no padded rows on the CUDA cores), then the taller
		 * ones; unsplit before split: another wins only when strictly
		 * faster */
		bool simt = hw_path_dtype(g, t) == HW_FP32 || t == HW_FP64;
		double vrate = hw_vector_peak(g, t) * hw_gemm_eff(g, t);
		double rows[6];
		int nr = 0;
		if (simt && m < HW_GEMV_TILE)
			rows[nr++] = m;
		for (double r = HW_GEMV_TILE; r < HW_GEMM_TILE; r *= 2)
			if (m <= r)
				rows[nr++] = r;
		rows[nr++] = HW_GEMM_TILE;
		double best = INFINITY, best_tm = HW_GEMM_TILE;
		bool best_mem = false;
		for (int i = 0; i < nr; i++) {
			x.tm = rows[i];
			bool gemv = simt && x.tm < HW_GEMV_TILE;
			double grid = ceil_div(m, x.tm) * ceil_div(n, x.tn) * batch;
			double smax = m <= HW_GEMM_TILE ? split_max(g, grid, k) : 1.0;
			for (double sp = 1; sp <= smax; sp++) {
				hw_gemm_plan c = *out;
				bool mem;
				double busy = candidate(g, gemv ? vrate : rate, &x, batch, sp,
							g->sm_count, &c, &mem);
				if (busy < best) {
					best = busy, best_tm = x.tm;
					best_mem = mem;
					*out = c;
					out->split_k = sp;
				}
			}
		}
		if (held > 0) { /* the chosen kernel's waves on the SMs left */
			x.tm = best_tm;
			bool gemv = simt && x.tm < HW_GEMV_TILE;
			double sp = out->split_k, left = g->sm_count - held;
			best = candidate(g, gemv ? vrate : rate, &x, batch, sp, left > 1 ? left : 1,
					 out, &best_mem);
			out->split_k = sp;
		}
		/* the sustained clock (hw.h tensor_sustain) slows SM-bound waves */
		double cap = hw_clock_cap(g, t);
		if (cap > 0 && !best_mem)
			best /= cap;
		out->time_s = over + best;
		if (best_mem)
			out->bound = "memory";
	}
	if (over > 0.5 * out->time_s)
		out->bound = "latency";
}

void hw_gemm_explain(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch,
                     hw_gemm_plan *out)
{
	gemm_plan(g, t, m, n, k, batch, 0, out);
}

double hw_gemm_time(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch)
{
	hw_gemm_plan p;
	gemm_plan(g, t, m, n, k, batch, 0, &p);
	return p.time_s;
}

double hw_gemm_time_held(const hw_gpu *g, hw_dtype t, double m, double n, double k, double batch,
                         int held)
{
	hw_gemm_plan p;
	gemm_plan(g, t, m, n, k, batch, held > 0 ? held : 0, &p);
	return p.time_s;
}
