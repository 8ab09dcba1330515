/* rng.c - seeded random numbers from GSL's Mersenne Twister. */
#include "core.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

struct sim_rng {
	gsl_rng *r;
};

sim_rng *sim_rng_new(uint64_t seed)
{
	sim_rng *x = malloc(sizeof *x);
	if (!x)
		return NULL;
	x->r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!x->r) {
		free(x);
		return NULL;
	}
	gsl_rng_set(x->r, (unsigned long)seed);
	return x;
}

void sim_rng_free(sim_rng *x)
{
	if (!x)
		return;
	gsl_rng_free(x->r);
	free(x);
}

double sim_rng_uniform(sim_rng *x)
{
	return gsl_rng_uniform(x->r);
}

double sim_rng_normal(sim_rng *x, double sigma)
{
	return gsl_ran_gaussian(x->r, sigma);
}
