/* bench_engine.c - raw throughput of the event engine (not a test; tools/bench
 * runs it from a release build and the figures go to README.md).
 *
 * hold: the classic priority-queue benchmark. N events stay pending; each
 * event, when it runs, schedules one more at now + a random delay, so every
 * step is one pop and one push on a heap of N. Delays come from a table filled
 * once from the seeded RNG, so the figure is the engine's, not GSL's. Only the
 * steady state is timed: the clock stops when the last replacement is
 * scheduled, before the N leftover events drain.
 *
 * cancel: schedule N events at random times, cancel every other one by id,
 * run the rest; reported as engine operations (schedule, cancel, run) per
 * second.
 *
 * Usage: bench_engine [EVENTS]  (default 4,000,000 hold steps per size)
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DELAYS 65536u /* power of two */

typedef struct hold {
	const sim_time *delay;
	uint64_t left, k;
	double t_end;
} hold;

static double wall_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void step(sim_engine *e, void *ctx, uint64_t arg)
{
	hold *h = ctx;
	if (h->left == 0)
		return;
	sim_time d = h->delay[h->k++ & (DELAYS - 1)];
	sim_engine_schedule(e, sim_engine_now(e) + d, 0, step, h, arg);
	if (--h->left == 0)
		h->t_end = wall_s();
}

static void nop(sim_engine *e, void *ctx, uint64_t arg)
{
	(void)e;
	(void)arg;
	++*(uint64_t *)ctx;
}

/* Hold model on n pending events; returns steps per second. */
static double bench_hold(size_t n, uint64_t steps, const sim_time *delay)
{
	sim_engine *e = sim_engine_new();
	hold h = {delay, steps, 0, 0};
	for (size_t k = 0; k < n; k++)
		sim_engine_schedule(e, delay[(k * 7919u) & (DELAYS - 1)], 0, step, &h, k);
	double t0 = wall_s();
	sim_engine_run(e, SIM_TIME_MAX);
	sim_engine_free(e);
	return (double)steps / (h.t_end - t0);
}

/* n schedules, n/2 cancels, n/2 runs; returns operations per second. */
static double bench_cancel(size_t n, const sim_time *delay)
{
	sim_engine *e = sim_engine_new();
	sim_event_id *ids = malloc(n * sizeof *ids);
	uint64_t ran = 0;
	if (!e || !ids)
		return 0;
	double t0 = wall_s();
	for (size_t k = 0; k < n; k++)
		ids[k] = sim_engine_schedule(e, delay[k & (DELAYS - 1)] * (sim_time)(k % 97 + 1),
					     0, nop, &ran, k);
	for (size_t k = 0; k < n; k += 2)
		sim_engine_cancel(e, ids[k]);
	sim_engine_run(e, SIM_TIME_MAX);
	double dt = wall_s() - t0;
	free(ids);
	sim_engine_free(e);
	return (double)(n + n / 2 + ran) / dt;
}

int main(int argc, char **argv)
{
	uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;
	static const size_t sizes[] = {10000, 100000, 1000000};
	sim_time *delay = malloc(DELAYS * sizeof *delay);
	sim_rng *rng = sim_rng_new(1);
	if (!delay || !rng || steps == 0)
		return 1;
	/* 1 ps .. 1 us, uniform: about the spread of kernel durations. */
	for (size_t k = 0; k < DELAYS; k++)
		delay[k] = 1 + (sim_time)(sim_rng_uniform(rng) * 1e6);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		printf("engine hold n=%zu: %.1f M events/s\n", sizes[i],
		       bench_hold(sizes[i], steps, delay) / 1e6);
	printf("engine schedule/cancel/run n=1000000: %.1f M ops/s\n",
	       bench_cancel(1000000, delay) / 1e6);
	sim_rng_free(rng);
	free(delay);
	return 0;
}
