/* calib.h - calibration of a GPU type's efficiency parameters from measured
 * kernels (`podsim calibrate`).
 *
 * Input: rows of a case CSV in the microbench.csv schema (tests/cases/
 * README.md) for one GPU: kind `gemm` (m, n, k, dtype; time_us, or TFLOP/s
 * in measured_value with time = 2mnk / value) and kind `hbm_copy` (bytes moved,
 * default 1 GiB; time_us, or GB/s or TB/s in measured_value with time =
 * bytes / value). Other kinds and GPUs are counted and ignored.
 *
 * Model: the simulator's own kernel times (hw_gemm_time, hw_mem_time), so a
 * fitted value means what the simulator will do with it. Parameters:
 * gemm_efficiency_<dtype> for every dtype with GEMM rows, hbm_efficiency when
 * there are hbm_copy rows, and launch_overhead when some row is tiny (the
 * overhead is at least a quarter of its predicted time). A parameter no row
 * depends on (every GEMM of a dtype memory-bound, say) is left out and named.
 *
 * GEMM tiles: with GEMM rows of one dtype at two or more reduction depths k,
 * gemm_tile_overhead (the fixed time per output tile, hw/gemm.c) is fitted
 * too: short-k GEMMs are slower per FLOP.
 *
 * Sweep maxima: a GEMM row whose measured_metric is
 * max_achievable_matmul_tflops (MAMF: the best of a brute-force sweep of
 * shapes) bounds every shape rather than timing one: no GEMM of its dtype
 * runs faster. Such rows set gemm_efficiency_<dtype> = max value / peak,
 * the rate hw_gemm_time gives a GEMM whose tiles fill whole waves (fitting
 * them through the wave model would let full-wave shapes beat the
 * maximum; a tile overhead only slows shapes below it). With ordinary GEMM rows of the
 * dtype as well, those are fitted and the result capped at the bound. Bound
 * rows are reported but not fitted.
 *
 * Attention: rows of kind `attention` (tests/cases/attention.csv: m batch,
 * n sequence, k head dim, heads = 2048 / k, algo fa2 | fa3 | cudnn,
 * measured_metric attn_tflops_fwd[_bwd][_causal], FlashAttention's FLOP
 * count) time hw_attn_time of the forward, plus the backward for _fwd_bwd.
 * The causal rows of head dimension 128 (what decoder training runs) fit
 * attn_<impl>_fwd, _bwd and _ramp (hw.h); the others are ignored (they
 * stay validation rows of `podsim validate`). An implementation measured
 * forward only gets its backward efficiency from FlashAttention-2's
 * backward / forward ratio on the same GPU (printed as an assumption); one
 * measured forward + backward only fits one efficiency for both passes
 * (their sum is what a step pays). Unfused rows are not fitted (the unfused
 * path is the GEMM and memory-bound model).
 *
 * Fit (fit.c): GSL nonlinear least squares (gsl_multifit_nlinear, trust
 * region with Levenberg-Marquardt steps, finite-difference Jacobian) on the
 * relative residuals r_i = (predicted_i - measured_i) / measured_i, so a
 * 10 us kernel weighs as much as a 10 ms one. Bounds by a logistic transform:
 * efficiency e = 1 / (1 + exp(-u)) in (0, 1), launch = 100 us / (1 + exp(-u)).
 * Standard errors from the covariance (J^T J)^-1 at the solution scaled by
 * chi^2 / (n - p), mapped through the transform (delta method); none when
 * n = p (an exact solve).
 */
#ifndef PODSIM_CALIB_H
#define PODSIM_CALIB_H

#include "../cases/cases.h"
#include "../hw/hw.h"

#include <gsl/gsl_vector.h>

#define CALIB_MAX_PARAMS 16

typedef enum { CALIB_ROW_GEMM = 0, CALIB_ROW_HBM, CALIB_ROW_ATTN } calib_row_kind;

typedef struct calib_row {
	char id[32];
	int line; /* first physical line in the CSV */
	calib_row_kind kind;
	hw_dtype dtype;
	double m, n, k; /* GEMM shape */
	double bytes;   /* hbm_copy: bytes moved */
	hw_attn attn;   /* attention: the forward's shape and implementation */
	bool attn_both; /* attention: forward + backward timed together */
	double measured_s, before_s, after_s;
	bool bound; /* a sweep maximum (see the header), not a timed shape */
} calib_row;

typedef enum {
	CALIB_P_GEMM_EFF = 0,
	CALIB_P_HBM_EFF,
	CALIB_P_LAUNCH,
	CALIB_P_ATTN_FWD, /* attn_<impl>_fwd */
	CALIB_P_ATTN_BWD, /* attn_<impl>_bwd */
	CALIB_P_ATTN_RAMP, /* attn_<impl>_ramp */
	CALIB_P_GEMM_TILE  /* gemm_tile_overhead */
} calib_param_kind;

typedef struct calib_param {
	char key[40]; /* the [gpu] key it sets, e.g. gemm_efficiency_fp8 */
	calib_param_kind kind;
	hw_dtype dtype; /* for CALIB_P_GEMM_EFF */
	hw_flash_impl impl; /* for CALIB_P_ATTN_* */
	bool derived;   /* not fitted: from another implementation's ratio */
	bool tied;      /* attn_<impl>_fwd that also sets _bwd: the rows time both
			 * passes together only */
	double start, value;
	double se;   /* standard error in the key's unit (s for launch) */
	bool has_se; /* false when there are no degrees of freedom */
	bool bounded; /* set (or capped) by a sweep maximum */
} calib_param;

typedef struct calib_fit {
	char gpu[CONF_STR_MAX];
	calib_row *rows;
	size_t nrows, nignored; /* rows used; rows of other GPUs or kinds */
	calib_param params[CALIB_MAX_PARAMS];
	size_t nparams;
	size_t nfitted; /* params[0 .. nfitted) went through the least squares */
	char dropped[256]; /* keys left out as not identifiable, comma-separated */
	double mape_before, mape_after;
	size_t iterations;
	int dof; /* nrows - nparams */
	bool converged;
	const char *stop; /* calib_lm_result.stop of the final solve */
	hw_gpu fitted; /* the start GPU with the fitted values */
	/* The fitted ones' correlations (params[0 .. nfitted), row-major
	 * nfitted x nfitted; calib_lm_result.corr) when dof > 0: a pair near
	 * +-1 trades, the rows cannot part them. */
	double corr[CALIB_MAX_PARAMS * CALIB_MAX_PARAMS];
	bool has_corr;
} calib_fit;
/* The pairs of fitted parameters whose correlation reaches +-CALIB_CORR
 * (the text and JSON outputs list them). */
#define CALIB_CORR 0.9

/* Collect the rows of GPU `gpu` from a case file. Problems are
 * "path:line: error:" in diag; returns SIM_OK, SIM_ECONF (bad rows, no rows
 * for the GPU) or SIM_ENOMEM. *fit is initialised here. */
int calib_rows_from_csv(const cases_csv *c, const char *gpu, calib_fit *fit, sim_diag *diag);
/* Predicted time of a row on GPU g (the model of the fit). */
double calib_predict(const hw_gpu *g, const calib_row *r);
/* Choose the parameters and fit them, starting from `start` (the GPU file).
 * SIM_OK, SIM_ECONF (fewer rows than parameters: diag says) or SIM_ENOMEM. */
int calib_run(const hw_gpu *start, calib_fit *fit, sim_diag *diag);
void calib_fit_free(calib_fit *fit);

/* One nonlinear least-squares solve (lm.c), the one both GPU calibration
 * and valid's fabric calibration run: GSL's trust region with
 * Levenberg-Marquardt steps and a finite-difference Jacobian on the n
 * residuals `residuals` writes for the p <= CALIB_MAX_PARAMS unknowns. */
typedef struct calib_lm_stop { /* gsl_multifit_nlinear_driver's stopping rule */
	size_t max_iter;
	double xtol, gtol, ftol; /* on the step, the gradient and the cost */
} calib_lm_stop;
typedef struct calib_lm {
	int (*residuals)(const gsl_vector *u, void *ctx, gsl_vector *r);
	void *ctx;
	size_t n, p;
	calib_lm_stop stop;
	int dof; /* > 0: the unknowns' standard deviations, with chi^2 / dof */
} calib_lm;
typedef struct calib_lm_result {
	bool converged;
	const char *stop; /* why the driver stopped short (gsl_strerror; NULL when it converged) */
	size_t iterations;
	double chi2;                 /* sum of squared residuals at the solution */
	double sd[CALIB_MAX_PARAMS]; /* with dof > 0: sqrt of (J^T J)^-1's diagonal
	                              * times chi2 / dof (0 where that is negative) */
	/* with dof > 0: the unknowns' correlations, row-major p x p,
	 * C_jk / sqrt(C_jj C_kk) of that covariance C (NAN where a variance is
	 * not positive). The callers' logistic bounds scale each unknown by its
	 * own positive derivative (delta method), which leaves correlations as
	 * they are: these are the parameters' too. */
	double corr[CALIB_MAX_PARAMS * CALIB_MAX_PARAMS];
} calib_lm_result;
/* Solve from u, which ends at the solution; SIM_OK or SIM_ENOMEM. */
int calib_lm_solve(const calib_lm *lm, double *u, calib_lm_result *out);

/* Output (print.c). `data` is the CSV path as the user gave it. */
void calib_print_text(FILE *out, const calib_fit *fit, const char *data);
void calib_print_json(FILE *out, const calib_fit *fit, const char *data);
/* The calibration .ini: a comment header (data file, row ids, method, fit
 * quality; no date, so regenerating gives the same bytes) and a [gpu]
 * section with the fitted keys, to be included after the GPU file. */
void calib_print_ini(FILE *out, const calib_fit *fit, const char *data);
/* Pieces of those outputs that valid's fabric calibration prints too: a
 * member `"key": x` of a JSON object (%.6g; null when x is not finite),
 * then ", " with comma; and "; prefix" followed by the items, comma-separated
 * and wrapped into comment lines at 96 columns (well under
 * CONF_MAX_LINE) that go on with ";  ". */
void calib_json_num(FILE *out, const char *key, double x, bool comma);
void calib_ini_list(FILE *out, const char *prefix, const char *const *items, size_t n);
/* And the pairs of n fitted parameters (names[i]) whose correlation corr
 * (row-major n x n) reaches +-CALIB_CORR: `"correlated": [{"a", "b", "r"},
 * ...]` followed by ", ", or per pair a line "PRE a and b correlated +r:
 * rows cannot part them" appended to b. */
void calib_json_correlated(FILE *out, const char *const *names, const double *corr, size_t n);
void calib_text_correlated(sim_buf *b, const char *pre, const char *const *names,
                           const double *corr, size_t n);

#endif
