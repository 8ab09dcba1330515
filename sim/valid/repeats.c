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
 * 5th and 95th percentile times as its fastest and slowest runs
 * (gsl_stats_quantile_from_sorted_data, linear between order statistics,
 * as exec/spread.c takes a step's), as efa-collectives.csv gives them from
 * its source's repeated runs. Below that many runs the percentiles would be
 * the extremes of a few draws: the median alone. The merged row keeps the
 * first run's id (with " xk") and file:line. */
#include "valid_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The order of the measurement keys (collective, ranks, nodes, size, host
 * issue); a row with percentiles of its own is no repeat: it orders after
 * every row without, each apart. */
static int cmp_key(const valid_fab_row *a, const valid_fab_row *b)
{
	bool pa = a->fast_s > 0 || a->slow_s > 0, pb = b->fast_s > 0 || b->slow_s > 0;
	if (pa || pb)
		return pa && pb ? (a > b) - (a < b) : (pa > pb) - (pa < pb);
	int d = a->coll != b->coll ? (a->coll > b->coll) - (a->coll < b->coll)
	        : a->gpus != b->gpus ? (a->gpus > b->gpus) - (a->gpus < b->gpus)
	        : (a->nodes > b->nodes) - (a->nodes < b->nodes);
	if (d)
		return d;
	return a->bytes != b->bytes ? (a->bytes > b->bytes) - (a->bytes < b->bytes)
	                            : (a->issue_s > b->issue_s) - (a->issue_s < b->issue_s);
}

/* A row's place for the grouping: the row, by key, then as read. */
typedef struct slot {
	const valid_fab_row *row;
	size_t at;
} slot;

static int cmp_slot(const void *a, const void *b)
{
	const slot *x = a, *y = b;
	int d = cmp_key(x->row, y->row);
	return d ? d : (x->at > y->at) - (x->at < y->at);
}

int valid_fab_merge_repeats(valid_fab_fit *f)
{
	size_t n = f->nrows, out = 0;
	slot *v = malloc((n + 1) * sizeof *v);
	double *t = malloc((n + 1) * sizeof *t);
	valid_fab_row *merged = malloc((n + 1) * sizeof *merged);
	bool *first = calloc(n + 1, sizeof *first);
	if (!v || !t || !merged || !first) {
		free(v), free(t), free(merged), free(first);
		return SIM_ENOMEM;
	}
	/* rows of one measurement next to each other (O(n log n)); each group
	 * merged into the slot of its first row as read, so that the rows keep
	 * their order */
	for (size_t i = 0; i < n; i++)
		v[i] = (slot){&f->rows[i], i};
	qsort(v, n, sizeof *v, cmp_slot);
	f->nrepeat_rows = f->nrepeat_groups = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && (j == i || !cmp_key(v[i].row, v[j].row)); j++)
			t[j - i] = v[j].row->median_s;
		size_t k = j - i, at = v[i].at;
		valid_fab_row r = *v[i].row;
		if (k > 1) {
			gsl_sort(t, 1, k);
			r.median_s = gsl_stats_quantile_from_sorted_data(t, 1, k, 0.50);
			if (k >= VALID_FAB_SPREAD_RUNS) {
				r.fast_s = gsl_stats_quantile_from_sorted_data(t, 1, k, 0.05);
				r.slow_s = gsl_stats_quantile_from_sorted_data(t, 1, k, 0.95);
			}
			char id[sizeof r.id];
			snprintf(id, sizeof id, "%.18s x%u", v[i].row->id, (unsigned)(k % 1000000000u));
			memcpy(r.id, id, sizeof r.id);
			f->nrepeat_rows += k;
			f->nrepeat_groups++;
		}
		merged[at] = r;
		first[at] = true;
	}
	f->nfast = 0;
	for (size_t i = 0; i < n; i++)
		if (first[i]) {
			f->rows[out++] = merged[i];
			f->nfast += merged[i].fast_s > 0;
		}
	f->nrows = out;
	free(v), free(t), free(merged), free(first);
	return SIM_OK;
}
