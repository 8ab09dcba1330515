/* exact.c - the plans an exact search must still simulate (sweep.h,
 * sweep_exact_candidates).
 *
 * Every fitting plan carries a lower bound on its simulated step
 * (sweep_estimate.bound_s, estimate.c: the GPU time of the kernels on its
 * busiest path). Once some plans are simulated and the best of them takes T,
 * a plan whose bound is at least T cannot be faster; the others can, and are
 * simulated too. After that no plan left out can beat the best simulated one
 * within the model: the answer is exact, however poorly the closed-form
 * pre-screen ranked the space. The threshold is fixed (the best of the first
 * round), not lowered as candidates finish, so the list is known before any
 * of them runs: shards and MPI ranks deal it out and agree with a serial run.
 */
#include "sweep_int.h"

#include <stdlib.h>

typedef struct cand {
	double est;
	uint64_t index;
} cand;

/* The pre-screen's order: under a --max-sims cap the likeliest winners run */
static int by_estimate(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->est != y->est)
		return x->est < y->est ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_index(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int sweep_exact_candidates(const sweep_screen_result *r, const uint64_t *done, size_t ndone,
			   double threshold, uint64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	uint64_t *seen = malloc((ndone ? ndone : 1) * sizeof *seen);
	if (!seen)
		return SIM_ENOMEM;
	for (size_t i = 0; i < ndone; i++)
		seen[i] = done[i];
	qsort(seen, ndone, sizeof *seen, by_index);
	size_t cap = 0, k = 0;
	cand *c = NULL;
	for (uint64_t i = 0; i < r->nplans; i++) {
		const sweep_plan *p = &r->plans[i];
		if (p->status != SWEEP_OK || !(p->est.bound_s < threshold) ||
		    bsearch(&i, seen, ndone, sizeof *seen, by_index))
			continue;
		if (k == cap) {
			size_t nc = cap ? 2 * cap : 64;
			cand *t = realloc(c, nc * sizeof *c);
			if (!t) {
				free(c);
				free(seen);
				return SIM_ENOMEM;
			}
			c = t;
			cap = nc;
		}
		c[k].est = p->est.step_s;
		c[k++].index = i;
	}
	free(seen);
	if (k > 1) /* qsort's base must not be NULL, even for 0 items (UBSan) */
		qsort(c, k, sizeof *c, by_estimate);
	uint64_t *o = malloc((k ? k : 1) * sizeof *o);
	if (!o) {
		free(c);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < k; i++)
		o[i] = c[i].index;
	free(c);
	*out = o;
	*n = k;
	return SIM_OK;
}
