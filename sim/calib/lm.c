/* lm.c - one nonlinear least-squares solve as the fits run it: the GPU
 * calibration (fit.c) and valid's fabric calibration (valid/fabric.c).
 *
 * GSL's trust-region driver with Levenberg-Marquardt steps and a
 * finite-difference Jacobian J minimises chi^2 = sum_i r_i(u)^2 over the p
 * unknowns u from the caller's start. With dof = n - p > 0 degrees of
 * freedom the unknowns' covariance at the solution is (J^T J)^-1 scaled by
 * the residual variance chi^2 / dof; its diagonal's square roots are the
 * standard deviations of u, which the callers map through their logistic
 * bounds (delta method, calib.h), and its correlations C_jk / sqrt(C_jj
 * C_kk), which that mapping leaves unchanged. The covariance lives on the stack
 * (p <= CALIB_MAX_PARAMS), so only the workspace can run out of memory. */
#include "calib.h"

#include <assert.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>

int calib_lm_solve(const calib_lm *lm, double *u, calib_lm_result *out)
{
	size_t n = lm->n, p = lm->p;
	assert(p <= CALIB_MAX_PARAMS);
	gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
	par.trs = gsl_multifit_nlinear_trs_lm;
	gsl_multifit_nlinear_fdf fdf = {lm->residuals, NULL, NULL, n, p, lm->ctx, 0, 0, 0};
	gsl_multifit_nlinear_workspace *w =
	        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
	if (!w)
		return SIM_ENOMEM;
	gsl_vector_view x0 = gsl_vector_view_array(u, p);
	int info = 0;
	int st = gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
	if (st == GSL_SUCCESS)
		st = gsl_multifit_nlinear_driver(lm->stop.max_iter, lm->stop.xtol, lm->stop.gtol,
		                                 lm->stop.ftol, NULL, NULL, &info, w);
	out->converged = st == GSL_SUCCESS;
	out->iterations = gsl_multifit_nlinear_niter(w);
	/* GSL's driver returns GSL_EMAXITER also when its first pass finds no
	 * step that lowers chi^2 (GSL_ENOPROG on iteration 0): say that, not
	 * an iteration budget run out. */
	out->stop = st == GSL_SUCCESS ? NULL
	            : st == GSL_EMAXITER && out->iterations <= 1
	                    ? "no step from the start lowered the residuals"
	                    : gsl_strerror(st);
	const gsl_vector *x = gsl_multifit_nlinear_position(w);
	for (size_t j = 0; j < p; j++)
		u[j] = gsl_vector_get(x, j);
	out->chi2 = 0;
	gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w),
	              &out->chi2);
	if (lm->dof > 0) {
		double cov[CALIB_MAX_PARAMS * CALIB_MAX_PARAMS];
		gsl_matrix_view c = gsl_matrix_view_array(cov, p, p);
		gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, &c.matrix);
		for (size_t j = 0; j < p; j++) {
			double var = gsl_matrix_get(&c.matrix, j, j) * out->chi2 / lm->dof;
			out->sd[j] = sqrt(var > 0 ? var : 0);
		}
		for (size_t j = 0; j < p; j++)
			for (size_t k = 0; k < p; k++) {
				double vj = gsl_matrix_get(&c.matrix, j, j);
				double vk = gsl_matrix_get(&c.matrix, k, k);
				double r = NAN;
				if (vj > 0 && vk > 0)
					r = gsl_matrix_get(&c.matrix, j, k) / sqrt(vj * vk);
				out->corr[j * p + k] = r;
			}
	}
	gsl_multifit_nlinear_free(w);
	return SIM_OK;
}
