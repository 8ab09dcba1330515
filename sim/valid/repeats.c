/* repeats.c - podsim calibrate --fabric: repeated runs of one measurement
 * become its median and spread (valid.h, valid_fab_merge_repeats).
 *
 * nccl-tests prints one time per size, the mean of its iterations (-n), and
 * no percentiles; a cluster's run-to-run spread shows only across separate
 * runs (a job relaunched, other tenants' traffic, another placement). A user
 * who runs the same test k times hands calibrate k files that measure the
 * same collective on the same ranks at each size. Taken as k rows, each
 * would be fitted as a median, and the fit, with no fastest runs, would
 * leave the spread out ([cluster] spread, the step's band) and fit the
 * per-call wait and the congestion only through how the medians grow.
 *
 * Rows without percentiles of one collective, rank count, node count, size
 * and host issue (the same measurement) are merged into one row: its median
 * the median of the k times, and from VALID_FAB_SPREAD_RUNS runs on the
 * 5th and 95th percentile times as its fastest and slowest runs (linear
 * interpolation between order statistics: the p-th percentile of sorted
 * times t_0 .. t_{k-1} is t_j + (x - j)(t_{j+1} - t_j), x = p (k - 1) / 100,
 * j = floor(x); numpy's default), as efa-collectives.csv gives them from
 * its source's repeated runs. Below that many runs the percentiles would be
 * the extremes of a few draws: the median alone. The merged row keeps the
 * first run's id (with " xk") and file:line. */
#include "valid_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same(const valid_fab_row *a, const valid_fab_row *b)
{
	return a->coll == b->coll && a->gpus == b->gpus && a->nodes == b->nodes &&
	       a->bytes == b->bytes && a->issue_s == b->issue_s && !(a->fast_s > 0) &&
	       !(a->slow_s > 0) && !(b->fast_s > 0) && !(b->slow_s > 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double valid_percentile(const double *sorted, size_t k, double p)
{
	if (k == 0)
		return NAN;
	double x = p * (double)(k - 1) / 100;
	size_t j = (size_t)floor(x);
	if (j + 1 >= k)
		return sorted[k - 1];
	return sorted[j] + (x - (double)j) * (sorted[j + 1] - sorted[j]);
}

int valid_fab_merge_repeats(valid_fab_fit *f)
{
	size_t n = f->nrows, out = 0;
	bool *done = calloc(n + 1, sizeof *done);
	double *t = malloc((n + 1) * sizeof *t);
	if (!done || !t) {
		free(done), free(t);
		return SIM_ENOMEM;
	}
	f->nrepeat_rows = f->nrepeat_groups = 0;
	f->nfast = 0;
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		valid_fab_row r = f->rows[i];
		size_t k = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && (j == i || same(&r, &f->rows[j]))) {
				t[k++] = f->rows[j].median_s;
				done[j] = true;
			}
		if (k > 1) {
			qsort(t, k, sizeof *t, cmp_double);
			r.median_s = valid_percentile(t, k, 50);
			if (k >= VALID_FAB_SPREAD_RUNS) {
				r.fast_s = valid_percentile(t, k, 5);
				r.slow_s = valid_percentile(t, k, 95);
			}
			char id[sizeof r.id];
			snprintf(id, sizeof id, "%.18s x%u", f->rows[i].id, (unsigned)(k % 1000000000u));
			memcpy(r.id, id, sizeof r.id);
			f->nrepeat_rows += k;
			f->nrepeat_groups++;
		}
		f->nfast += r.fast_s > 0;
		f->rows[out++] = r; /* out <= i: earlier slots are free */
	}
	f->nrows = out;
	free(done), free(t);
	return SIM_OK;
}
