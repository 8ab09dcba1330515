/* rng.c - seeded random numbers from GSL's Mersenne Twister (gsl_rng_mt19937),
 * podsim's only source of randomness: the same seed gives the same sequence
 * on every run and platform. mt19937 keeps only the low 32 bits of the seed,
 * so seeds equal mod 2^32 give the same sequence (GSL replaces a seed of
 * exactly 0 by its default, 4357). */
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

/* [0, 1): 32 random bits / 2^32. */
double sim_rng_uniform(sim_rng *x)
{
	return gsl_rng_uniform(x->r);
}

/* Mean 0, standard deviation sigma (GSL's Box-Muller polar method). */
double sim_rng_normal(sim_rng *x, double sigma)
{
	return gsl_ran_gaussian(x->r, sigma);
}
