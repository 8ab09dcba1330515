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

static int by_order(const void *a, const void *b)
{
	return sweep_plan_order(*(const sweep_plan *const *)a, *(const sweep_plan *const *)b);
}

int sweep_exact_candidates(const sweep_screen_result *r, const uint64_t *done, size_t ndone,
			   double threshold, uint64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	/* plans already simulated: skipped (one byte per plan of the space) */
	bool *seen = calloc(r->nplans ? r->nplans : 1, sizeof *seen);
	const sweep_plan **c = malloc((r->nplans ? r->nplans : 1) * sizeof *c);
	if (!seen || !c) {
		free(seen);
		free(c);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < ndone; i++)
		seen[done[i]] = true;
	size_t k = 0;
	for (uint64_t i = 0; i < r->nplans; i++)
		if (r->plans[i].status == SWEEP_OK && r->plans[i].est.bound_s < threshold && !seen[i])
			c[k++] = &r->plans[i];
	free(seen);
	/* in the pre-screen's order: under a --max-sims cap the likeliest
	 * winners run first */
	if (k > 0)
		qsort(c, k, sizeof *c, by_order);
	uint64_t *o = malloc((k ? k : 1) * sizeof *o);
	if (!o) {
		free(c);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < k; i++)
		o[i] = (uint64_t)(c[i] - r->plans); /* its place in r->plans */
	free(c);
	*out = o;
	*n = k;
	return SIM_OK;
}
