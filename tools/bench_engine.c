/* bench_engine.c - raw throughput of the event engine: the classic "hold"
 * model. N events stay pending; each event, when it runs, schedules one more at
 * now + a random delay, so every step is one pop and one push on a heap of N.
 * Prints events per second for several N. Not a test: figures go to README. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct hold {
	sim_rng *rng;
	uint64_t left;
} hold;

static void step(sim_engine *e, void *ctx, uint64_t arg)
{
	hold *h = ctx;
	if (h->left == 0)
		return;
	h->left--;
	sim_time d = (sim_time)(sim_rng_uniform(h->rng) * 1e6) + 1;
	sim_engine_schedule(e, sim_engine_now(e) + d, 0, step, h, arg);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
	size_t sizes[] = {1000, 100000, 1000000};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		sim_engine *e = sim_engine_new();
		hold h = {sim_rng_new(1), total};
		for (size_t k = 0; k < sizes[i]; k++)
			sim_engine_schedule(e, (sim_time)k, 0, step, &h, k);
		double t0 = now_s();
		uint64_t n = sim_engine_run(e, SIM_TIME_MAX);
		double dt = now_s() - t0;
		printf("engine hold n=%-8zu %llu events in %.3f s: %.1f M events/s\n", sizes[i],
		       (unsigned long long)n, dt, (double)n / dt / 1e6);
		sim_rng_free(h.rng);
		sim_engine_free(e);
	}
	return 0;
}
