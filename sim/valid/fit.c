/* fit.c - calibrating a software stack's per-op host overhead on measured
 * training steps (podsim calibrate --framework).
 *
 * One parameter, the host time framework_overhead that podsim charges per
 * kernel beside its launch, decides the steps of small models (host-bound)
 * and hardly moves those of large ones (GPU-bound). The MAPE of the selected
 * rows as a function of it is piecewise smooth with one basin in practice, so
 * a grid of 21 points over [lo, hi] brackets the minimum and golden-section
 * search narrows it to 0.1 us. Each evaluation simulates every selected row
 * (valid_run), so the cost is ~40 validations of the selection. */
#include "valid_int.h"

#include <math.h>

static int mape_at(const char *path, const valid_options *base, bool set, double x, double *mape,
		   int *rows, sim_diag *diag)
{
	valid_options o = *base;
	o.framework_set = set;
	o.framework_s = x;
	o.progress = NULL;
	valid_report *r;
	int rc = valid_run(path, &o, &r, diag);
	if (rc != SIM_OK)
		return rc;
	*mape = r->all.ok > 0 ? r->all.mape : NAN;
	if (rows)
		*rows = r->all.ok;
	valid_report_free(r);
	return isfinite(*mape) ? SIM_OK : SIM_ECONF;
}

int valid_fit_framework(const char *path, const valid_options *opt, double lo_s, double hi_s,
			double *best_s, double *best_mape, double *before_mape, int *rows,
			sim_diag *diag)
{
	int rc = mape_at(path, opt, false, 0, before_mape, rows, diag);
	if (rc != SIM_OK) {
		if (rc == SIM_ECONF && !sim_diag_error_count(diag))
			sim_diag_error(diag, path, 0, "no selected training row can be simulated");
		return rc;
	}
	enum { GRID = 20 };
	double step = (hi_s - lo_s) / GRID, bx = lo_s, bf = INFINITY;
	for (int i = 0; i <= GRID; i++) {
		double x = lo_s + i * step, f;
		if ((rc = mape_at(path, opt, true, x, &f, NULL, diag)) != SIM_OK)
			return rc;
		if (f < bf)
			bf = f, bx = x;
	}
	/* Golden section on [bx - step, bx + step] (clipped to [lo, hi]). */
	const double g = (sqrt(5.0) - 1.0) / 2.0;
	double a = fmax(lo_s, bx - step), b = fmin(hi_s, bx + step);
	double c = b - g * (b - a), d = a + g * (b - a), fc, fd;
	if ((rc = mape_at(path, opt, true, c, &fc, NULL, diag)) != SIM_OK ||
	    (rc = mape_at(path, opt, true, d, &fd, NULL, diag)) != SIM_OK)
		return rc;
	while (b - a > 0.1e-6) {
		if (fc < fd) {
			b = d, d = c, fd = fc;
			c = b - g * (b - a);
			rc = mape_at(path, opt, true, c, &fc, NULL, diag);
		} else {
			a = c, c = d, fc = fd;
			d = a + g * (b - a);
			rc = mape_at(path, opt, true, d, &fd, NULL, diag);
		}
		if (rc != SIM_OK)
			return rc;
	}
	double x = fc < fd ? c : d, f = fc < fd ? fc : fd;
	if (bf <= f) /* the grid point was as good: keep it */
		x = bx, f = bf;
	*best_s = x;
	*best_mape = f;
	return SIM_OK;
}
