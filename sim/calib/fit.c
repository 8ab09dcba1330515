/* fit.c - the least-squares fit of calib.h: choosing the parameters, the
 * logistic transform, GSL's trust-region solver, standard errors.
 *
 * Unknowns u_j are unbounded; the parameter is x_j = hi_j / (1 + exp(-u_j))
 * (hi = 1 for efficiencies, 100 us for the launch overhead), so every step of
 * the solver stays in (0, hi). Residuals r_i(u) = t_i(x(u)) / m_i - 1.
 * At the solution GSL gives J = dr/du; cov(u) = s^2 (J^T J)^-1 with
 * s^2 = chi^2 / (n - p), and by the delta method
 *     se(x_j) = |dx_j/du_j| sqrt(cov_jj),  dx/du = hi sigma (1 - sigma).
 * With n = p there is no residual variance to scale by: no standard errors.
 */
#include "calib.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LAUNCH_HI  1e-4 /* launch_overhead bound, s */
#define RAMP_HI    1e4  /* attn_<impl>_ramp bound, FLOPs per query token, head, head dim */
#define TILE_HI    2e-5 /* gemm_tile_overhead bound, s */
#define TINY_SHARE 0.25 /* a row is tiny when overhead >= this share of it */

/* The solver stops after 200 iterations or at these tolerances. */
static const calib_lm_stop lm_stop = {200, 1e-12, 1e-12, 1e-14};

typedef struct fit_ctx {
	calib_fit *fit;
	hw_gpu gpu;  /* scratch: the start GPU with the current parameters */
	size_t *use; /* the rows fitted (not sweep maxima) */
	size_t nuse;
} fit_ctx;

static double hi_of(const calib_param *p)
{
	return p->kind == CALIB_P_LAUNCH      ? LAUNCH_HI
	       : p->kind == CALIB_P_ATTN_RAMP ? RAMP_HI
	       : p->kind == CALIB_P_GEMM_TILE ? TILE_HI
	                                      : 1.0;
}

static double sigma(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

static double to_u(const calib_param *p, double x)
{
	double f = x / hi_of(p);
	f = f < 1e-4 ? 1e-4 : f > 0.9999 ? 0.9999 : f;
	return log(f / (1.0 - f));
}

static void set_param(hw_gpu *g, const calib_param *p, double x)
{
	switch (p->kind) {
	case CALIB_P_GEMM_EFF:
		g->gemm_eff_dtype[p->dtype] = x;
		break;
	case CALIB_P_HBM_EFF:
		g->hbm_eff = x;
		break;
	case CALIB_P_LAUNCH:
		g->launch_s = x;
		break;
	case CALIB_P_ATTN_FWD:
		g->attn_eff[p->impl][0] = x;
		if (p->tied)
			g->attn_eff[p->impl][1] = x;
		break;
	case CALIB_P_ATTN_BWD:
		g->attn_eff[p->impl][1] = x;
		break;
	case CALIB_P_ATTN_RAMP:
		g->attn_ramp[p->impl] = x;
		break;
	case CALIB_P_GEMM_TILE:
		g->gemm_tile_s = x;
		break;
	}
}

static void apply(fit_ctx *c, const double *u)
{
	for (size_t j = 0; j < c->fit->nparams; j++)
		set_param(&c->gpu, &c->fit->params[j], hi_of(&c->fit->params[j]) * sigma(u[j]));
}

static int residuals(const gsl_vector *u, void *data, gsl_vector *f)
{
	fit_ctx *c = data;
	double x[CALIB_MAX_PARAMS];
	for (size_t j = 0; j < c->fit->nparams; j++)
		x[j] = gsl_vector_get(u, j);
	apply(c, x);
	for (size_t i = 0; i < c->nuse; i++) {
		const calib_row *r = &c->fit->rows[c->use[i]];
		gsl_vector_set(f, i, calib_predict(&c->gpu, r) / r->measured_s - 1.0);
	}
	return GSL_SUCCESS;
}

static double mape(const calib_fit *fit, bool after)
{
	double s = 0;
	for (size_t i = 0; i < fit->nrows; i++) {
		const calib_row *r = &fit->rows[i];
		s += fabs((after ? r->after_s : r->before_s) - r->measured_s) / r->measured_s;
	}
	return fit->nrows ? s / (double)fit->nrows : 0;
}

static calib_param *add_param(calib_fit *fit, calib_param_kind kind, hw_dtype t, const char *key,
                              double start)
{
	if (fit->nparams == CALIB_MAX_PARAMS)
		return NULL;
	calib_param *p = &fit->params[fit->nparams++];
	memset(p, 0, sizeof *p);
	snprintf(p->key, sizeof p->key, "%s", key);
	p->kind = kind;
	p->dtype = t;
	p->start = p->value = start;
	return p;
}

/* The attention parameters of every fused implementation with fitted rows:
 * forward efficiency and ramp, and the backward efficiency when some row
 * times a backward (start: 0.4, 0.4 and a ramp of 1000, the order of
 * magnitude of FlashAttention-2 on H100). */
static void attn_params(calib_fit *fit)
{
	bool fwd[HW_FLASH_COUNT] = {false}, both[HW_FLASH_COUNT] = {false};
	for (size_t i = 0; i < fit->nrows; i++) {
		const calib_row *r = &fit->rows[i];
		if (r->kind == CALIB_ROW_ATTN && r->attn.flash) {
			fwd[r->attn.impl] = fwd[r->attn.impl] || !r->attn_both;
			both[r->attn.impl] = both[r->attn.impl] || r->attn_both;
		}
	}
	char key[40];
	for (int i = 0; i < HW_FLASH_COUNT; i++) {
		if (!fwd[i] && !both[i])
			continue;
		const char *n = hw_flash_name((hw_flash_impl)i);
		calib_param *p;
		snprintf(key, sizeof key, "attn_%s_fwd", n);
		if ((p = add_param(fit, CALIB_P_ATTN_FWD, HW_FP16, key, 0.4))) {
			p->impl = (hw_flash_impl)i;
			p->tied = !fwd[i]; /* forward + backward rows only */
		}
		if (both[i] && fwd[i]) {
			snprintf(key, sizeof key, "attn_%s_bwd", n);
			if ((p = add_param(fit, CALIB_P_ATTN_BWD, HW_FP16, key, 0.4)))
				p->impl = (hw_flash_impl)i;
		}
		snprintf(key, sizeof key, "attn_%s_ramp", n);
		if ((p = add_param(fit, CALIB_P_ATTN_RAMP, HW_FP16, key, 1000)))
			p->impl = (hw_flash_impl)i;
	}
}

/* The backward efficiency of an implementation timed forward only, such
 * that its backward runs at the rate FlashAttention-2's does relative to its
 * forward (calib.h), at head dimension 128 on a long sequence (the ramp
 * left out). Per forward FLOP a pass takes 1 / (P e) + x of matmuls and
 * exponentials, x = 1 / (4 d R) (hw/attn.c: one exponential per 4 d forward
 * FLOPs, per 10 d backward ones; P the 16-bit peak, R the special-function
 * rate), so FA2's backward per FLOP over its forward per FLOP is
 *     k = (1 / (P b2) + x / 2.5) / (1 / (P f2) + x)
 * and the implementation's backward e_b solves
 *     2.5 / (P e_b) + x = 2.5 k (1 / (P e_f) + x).
 * Without the exponentials (R unknown, x = 0) e_b = e_f b2 / f2. */
static double derived_bwd(const hw_gpu *g, double e_f, double f2, double b2)
{
	double P = hw_peak(g, HW_FP16), R = hw_sfu_rate(g);
	double x = R > 0 && P > 0 ? P / (4.0 * 128.0 * R) : 0; /* in units of 1/P */
	double k = (1.0 / b2 + x / 2.5) / (1.0 / f2 + x);
	double rhs = 2.5 * k * (1.0 / e_f + x) - x;
	return rhs > 0 ? 2.5 / rhs : e_f * b2 / f2;
}

/* After the fit: an implementation timed forward only gets its backward
 * efficiency from FlashAttention-2's backward / forward ratio (calib.h,
 * derived_bwd). */
static void derive_backward(calib_fit *fit)
{
	double f2 = 0, b2 = 0;
	for (size_t j = 0; j < fit->nparams; j++) {
		const calib_param *p = &fit->params[j];
		if (p->impl == HW_FLASH_FA2 && p->kind == CALIB_P_ATTN_FWD)
			f2 = p->value;
		if (p->impl == HW_FLASH_FA2 && p->kind == CALIB_P_ATTN_BWD)
			b2 = p->value;
	}
	size_t n = fit->nparams;
	for (size_t j = 0; j < n; j++) { /* tied: the backward key equals the forward */
		const calib_param *p = &fit->params[j];
		if (p->kind != CALIB_P_ATTN_FWD || !p->tied)
			continue;
		char key[40];
		snprintf(key, sizeof key, "attn_%s_bwd", hw_flash_name(p->impl));
		hw_flash_impl impl = p->impl;
		double v = p->value;
		calib_param *q = add_param(fit, CALIB_P_ATTN_BWD, HW_FP16, key, v);
		if (q) {
			q->impl = impl;
			q->derived = true;
			q->tied = true;
		}
	}
	if (!(f2 > 0 && b2 > 0))
		return;
	for (size_t j = 0; j < n; j++) {
		const calib_param *p = &fit->params[j];
		if (p->kind != CALIB_P_ATTN_FWD || p->impl == HW_FLASH_FA2 || p->tied)
			continue;
		bool has = false;
		for (size_t k = 0; k < n; k++)
			has |= fit->params[k].kind == CALIB_P_ATTN_BWD && fit->params[k].impl == p->impl;
		if (has)
			continue;
		char key[40];
		snprintf(key, sizeof key, "attn_%s_bwd", hw_flash_name(p->impl));
		hw_flash_impl impl = p->impl;
		double v = derived_bwd(&fit->fitted, p->value, f2, b2);
		calib_param *q = add_param(fit, CALIB_P_ATTN_BWD, HW_FP16, key, v);
		if (q) {
			q->impl = impl;
			q->derived = true;
			set_param(&fit->fitted, q, v);
		}
	}
}

/* Does any row's time move when parameter p moves by 1 % of its range? */
static bool identifiable(const hw_gpu *start, const calib_fit *fit, const calib_param *p)
{
	hw_gpu a = *start;
	for (size_t j = 0; j < fit->nparams; j++) /* every parameter at its start */
		set_param(&a, &fit->params[j], fit->params[j].start);
	hw_gpu b = a;
	set_param(&a, p, p->start);
	double step = 0.01 * hi_of(p);
	set_param(&b, p, p->start + (p->start + step < hi_of(p) ? step : -step));
	for (size_t i = 0; i < fit->nrows; i++) {
		if (fit->rows[i].bound)
			continue;
		double ta = calib_predict(&a, &fit->rows[i]), tb = calib_predict(&b, &fit->rows[i]);
		if (fabs(ta - tb) > 1e-9 * ta)
			return true;
	}
	return false;
}

/* The parameters the rows can tell: one GEMM efficiency per dtype present,
 * the HBM efficiency with hbm_copy rows, the launch with tiny rows. */
static void choose_params(const hw_gpu *g, calib_fit *fit)
{
	bool dtype_seen[HW_DTYPE_COUNT] = {false}, hbm = false, tiny = false, depths = false;
	double k_seen[HW_DTYPE_COUNT] = {0};
	for (size_t i = 0; i < fit->nrows; i++) {
		const calib_row *r = &fit->rows[i];
		if (r->bound)
			continue; /* sweep maxima set their dtype apart (add_bound_only) */
		if (r->kind == CALIB_ROW_GEMM) {
			depths = depths || (dtype_seen[r->dtype] && r->k != k_seen[r->dtype]);
			dtype_seen[r->dtype] = true;
			k_seen[r->dtype] = r->k;
		}
		else if (r->kind == CALIB_ROW_HBM)
			hbm = true;
		else
			continue; /* attention: attn_params, never tiny */
		tiny = tiny || hw_overhead(g) >= TINY_SHARE * calib_predict(g, r);
	}
	char key[40];
	for (int t = 0; t < HW_DTYPE_COUNT; t++)
		if (dtype_seen[t]) {
			snprintf(key, sizeof key, "gemm_efficiency_%s", hw_dtype_name((hw_dtype)t));
			add_param(fit, CALIB_P_GEMM_EFF, (hw_dtype)t, key,
			          hw_gemm_eff(g, (hw_dtype)t));
		}
	if (hbm)
		add_param(fit, CALIB_P_HBM_EFF, HW_FP32, "hbm_efficiency", g->hbm_eff);
	if (tiny)
		add_param(fit, CALIB_P_LAUNCH, HW_FP32, "launch_overhead", g->launch_s);
	if (depths) /* start: 1 us, the order of the measured fp8 tiles */
		add_param(fit, CALIB_P_GEMM_TILE, HW_FP32, "gemm_tile_overhead",
		          g->gemm_tile_s > 0 ? g->gemm_tile_s : 1e-6);
	attn_params(fit);
	size_t kept = 0;
	for (size_t j = 0; j < fit->nparams; j++) {
		if (identifiable(g, fit, &fit->params[j])) {
			fit->params[kept++] = fit->params[j];
			continue;
		}
		size_t len = strlen(fit->dropped);
		snprintf(fit->dropped + len, sizeof fit->dropped - len, "%s%s", len ? ", " : "",
		         fit->params[j].key);
	}
	fit->nparams = kept;
}

/* One solve from u (updated); standard errors of the fitted values from
 * the unknowns' standard deviations through the logistic bounds (see the
 * header). */
static int solve(fit_ctx *c, double *u)
{
	calib_fit *fit = c->fit;
	calib_lm lm = {residuals, c, c->nuse, fit->nparams, lm_stop, fit->dof};
	calib_lm_result res;
	int rc = calib_lm_solve(&lm, u, &res);
	if (rc != SIM_OK)
		return rc;
	fit->converged = res.converged;
	fit->stop = res.stop;
	fit->iterations = res.iterations;
	fit->has_corr = fit->dof > 0;
	for (size_t j = 0; j < lm.p * lm.p && fit->has_corr; j++)
		fit->corr[j] = res.corr[j];
	for (size_t j = 0; j < lm.p && fit->dof > 0; j++) {
		calib_param *q = &fit->params[j];
		double s = sigma(u[j]);
		q->se = hi_of(q) * s * (1 - s) * res.sd[j];
		q->has_se = isfinite(q->se);
	}
	return SIM_OK;
}

/* The sweep maxima's bound on each dtype's GEMM efficiency (0 = none). */
static void bounds(const hw_gpu *g, const calib_fit *fit, double *e)
{
	for (int t = 0; t < HW_DTYPE_COUNT; t++)
		e[t] = 0;
	for (size_t i = 0; i < fit->nrows; i++) {
		const calib_row *r = &fit->rows[i];
		double peak = hw_peak(g, r->dtype);
		if (r->bound && peak > 0) {
			double x = 2 * r->m * r->n * r->k / r->measured_s / peak;
			e[r->dtype] = x > e[r->dtype] ? x : e[r->dtype];
		}
	}
}

/* Parameters the fitted rows leave out but a sweep maximum sets: added
 * with their bound as value (no fit, no standard error). */
static void add_bound_only(const hw_gpu *g, calib_fit *fit, const double *e)
{
	for (int t = 0; t < HW_DTYPE_COUNT; t++) {
		bool have = false;
		for (size_t j = 0; j < fit->nparams; j++)
			have |= fit->params[j].kind == CALIB_P_GEMM_EFF && (int)fit->params[j].dtype == t;
		if (have || !(e[t] > 0) || fit->nparams == CALIB_MAX_PARAMS)
			continue;
		char key[40];
		snprintf(key, sizeof key, "gemm_efficiency_%s", hw_dtype_name((hw_dtype)t));
		add_param(fit, CALIB_P_GEMM_EFF, (hw_dtype)t, key, hw_gemm_eff(g, (hw_dtype)t));
		calib_param *p = &fit->params[fit->nparams - 1];
		p->value = e[t] < 1 ? e[t] : 1;
		p->bounded = true;
	}
}

int calib_run(const hw_gpu *start, calib_fit *fit, sim_diag *diag)
{
	fit->nparams = 0;
	fit->dropped[0] = 0;
	fit->fitted = *start;
	for (size_t i = 0; i < fit->nrows; i++)
		fit->rows[i].before_s = fit->rows[i].after_s = calib_predict(start, &fit->rows[i]);
	fit->mape_before = fit->mape_after = mape(fit, false);
	fit_ctx c = {fit, *start, malloc((fit->nrows + 1) * sizeof(size_t)), 0};
	if (!c.use)
		return SIM_ENOMEM;
	for (size_t i = 0; i < fit->nrows; i++)
		if (!fit->rows[i].bound)
			c.use[c.nuse++] = i;
	choose_params(start, fit);
	double e[HW_DTYPE_COUNT];
	bounds(start, fit, e);
	size_t nfit = fit->nparams;
	fit->nfitted = nfit;
	fit->converged = nfit == 0; /* nothing to solve */
	add_bound_only(start, fit, e);
	if (fit->nparams == 0 || c.nuse < nfit) {
		sim_diag_error(diag, NULL, 0,
		               "%zu rows cannot fit %zu parameters of %s (each needs a row that "
		               "depends on it)",
		               c.nuse, nfit, fit->gpu);
		free(c.use);
		return SIM_ECONF;
	}
	fit->dof = (int)(c.nuse - nfit);
	double u[CALIB_MAX_PARAMS];
	for (size_t j = 0; j < fit->nparams; j++)
		u[j] = to_u(&fit->params[j], j < nfit ? fit->params[j].start : fit->params[j].value);
	int rc = SIM_OK;
	if (nfit > 0) {
		size_t all = fit->nparams;
		fit->nparams = nfit; /* the solver sees the fitted ones only */
		gsl_error_handler_t *old = gsl_set_error_handler_off();
		rc = solve(&c, u);
		gsl_set_error_handler(old);
		fit->nparams = all;
	}
	free(c.use);
	if (rc != SIM_OK)
		return rc;
	for (size_t j = 0; j < fit->nparams; j++) {
		calib_param *p = &fit->params[j];
		if (j < nfit)
			p->value = hi_of(p) * sigma(u[j]);
		/* A fitted GEMM efficiency above its dtype's sweep maximum is
		 * capped there: no shape runs faster than the maximum. */
		if (p->kind == CALIB_P_GEMM_EFF && e[(int)p->dtype] > 0 && p->value >= e[(int)p->dtype]) {
			p->value = e[(int)p->dtype];
			p->bounded = true;
			p->has_se = false;
		}
		set_param(&fit->fitted, p, p->value);
	}
	derive_backward(fit);
	for (size_t i = 0; i < fit->nrows; i++)
		fit->rows[i].after_s = calib_predict(&fit->fitted, &fit->rows[i]);
	fit->mape_after = mape(fit, true);
	return SIM_OK;
}
