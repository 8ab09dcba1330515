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
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------- tensor_sustain -- */

typedef struct grid_eval {
	size_t nrows;
	double *meas, *pred; /* [point][row], row order of the report */
	int *group;          /* per row: index into names, -1 = not used */
	char (*names)[64];
	int ngroups;
} grid_eval;

/* Mean over the groups in `use` (all when use < 0 means "all but -use-1")
 * of their MAPE at grid point k; bias too. */
static double objective(const grid_eval *e, int k, int leave_out, double *bias)
{
	double m = 0, b = 0;
	int n = 0;
	for (int g = 0; g < e->ngroups; g++) {
		if (g == leave_out)
			continue;
		double s = 0, sb = 0;
		int r = 0;
		for (size_t i = 0; i < e->nrows; i++) {
			if (e->group[i] != g)
				continue;
			double err = (e->pred[(size_t)k * e->nrows + i] - e->meas[i]) / e->meas[i];
			s += fabs(err);
			sb += err;
			r++;
		}
		if (r) {
			m += s / r;
			b += sb / r;
			n++;
		}
	}
	if (bias)
		*bias = n ? b / n : NAN;
	return n ? m / n : INFINITY;
}

static void group_stats_at(const grid_eval *e, int k, int g, double *mape, double *bias)
{
	double s = 0, sb = 0;
	int r = 0;
	for (size_t i = 0; i < e->nrows; i++)
		if (e->group[i] == g) {
			double err = (e->pred[(size_t)k * e->nrows + i] - e->meas[i]) / e->meas[i];
			s += fabs(err);
			sb += err;
			r++;
		}
	*mape = r ? s / r : NAN;
	*bias = r ? sb / r : NAN;
}

static int argmin(const grid_eval *e, int npts, int leave_out)
{
	int best = 0;
	double bf = INFINITY;
	for (int k = 0; k < npts; k++) {
		double f = objective(e, k, leave_out, NULL);
		if (f < bf - 1e-12)
			bf = f, best = k;
	}
	return best;
}

int valid_fit_sustain(const char *path, const valid_options *opt, const char *skip, double lo,
		      double hi, double step, valid_sustain_fit *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int npts = (int)floor((hi - lo) / step + 0.5) + 1;
	if (!(step > 0) || npts < 2 || npts > VALID_FIT_MAX_GRID || lo <= 0 || hi > 1) {
		sim_diag_error(diag, NULL, 0, "tensor_sustain grid %g..%g step %g: expected 0 < lo < "
			       "hi <= 1 and at most %d points", lo, hi, step, VALID_FIT_MAX_GRID);
		return SIM_ECONF;
	}
	valid_options o = *opt;
	o.progress = NULL;
	valid_report *r;
	int rc = valid_run(path, &o, &r, diag); /* the GPU file's own value */
	if (rc != SIM_OK)
		return rc;
	grid_eval e = {0};
	e.nrows = r->nrows;
	e.meas = calloc(e.nrows ? e.nrows : 1, sizeof *e.meas);
	e.pred = calloc((size_t)(npts + 1) * (e.nrows ? e.nrows : 1), sizeof *e.pred);
	e.group = calloc(e.nrows ? e.nrows : 1, sizeof *e.group);
	e.names = calloc(VALID_MAX_GROUPS, sizeof *e.names);
	if (!e.meas || !e.pred || !e.group || !e.names)
		rc = SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < e.nrows; i++) {
		const valid_row *v = &r->rows[i];
		e.group[i] = -1;
		if (v->status != VALID_OK || v->oom_run || (skip && !strcmp(v->group, skip)))
			continue;
		int g = 0;
		while (g < e.ngroups && strcmp(e.names[g], v->group))
			g++;
		if (g == e.ngroups) {
			if (e.ngroups == VALID_MAX_GROUPS)
				continue;
			snprintf(e.names[e.ngroups++], sizeof e.names[0], "%s", v->group);
		}
		e.group[i] = g;
		e.meas[i] = v->measured;
		e.pred[(size_t)npts * e.nrows + i] = v->predicted; /* the file's, at slot npts */
		out->rows++;
	}
	valid_report_free(r);
	for (int k = 0; rc == SIM_OK && k < npts; k++) {
		o.sustain_set = true;
		o.sustain = lo + k * step;
		if ((rc = valid_run(path, &o, &r, diag)) != SIM_OK)
			break;
		for (size_t i = 0; i < e.nrows && i < r->nrows; i++)
			e.pred[(size_t)k * e.nrows + i] =
				r->rows[i].status == VALID_OK ? r->rows[i].predicted : NAN;
		valid_report_free(r);
	}
	if (rc == SIM_OK && e.ngroups == 0) {
		sim_diag_error(diag, path, 0, "no selected training row can be simulated");
		rc = SIM_ECONF;
	}
	if (rc == SIM_OK) {
		int best = argmin(&e, npts, -1);
		out->value = lo + best * step;
		out->nsources = e.ngroups;
		out->mape_before = objective(&e, npts, -1, NULL);
		out->mape_after = objective(&e, best, -1, NULL);
		double lm = 0;
		for (int g = 0; g < e.ngroups; g++) {
			valid_sustain_src *sr = &out->src[g];
			snprintf(sr->name, sizeof sr->name, "%s", e.names[g]);
			for (size_t i = 0; i < e.nrows; i++)
				sr->rows += e.group[i] == g;
			group_stats_at(&e, npts, g, &sr->mape_before, &sr->bias_before);
			group_stats_at(&e, best, g, &sr->mape_after, &sr->bias_after);
			int lk = e.ngroups > 1 ? argmin(&e, npts, g) : best;
			sr->loso_value = lo + lk * step;
			group_stats_at(&e, lk, g, &sr->loso_mape, &sr->loso_bias);
			lm += sr->loso_mape;
		}
		out->loso_mape = lm / e.ngroups;
	}
	free(e.meas), free(e.pred), free(e.group), free(e.names);
	return rc;
}
