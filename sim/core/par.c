/* par.c - independent pieces of work on the machine's cores (POSIX
 * threads), for the work whose pieces share nothing they write: a sweep's
 * plans, each simulated from its own scenario (cli/sweep_sim.c), explain
 * --against's search (sweep/pick.c), a step's sampled replays
 * (exec/spread.c), validate's rows (valid/valid.c).
 *
 * sim_parallel(n, threads, fn, ctx) calls fn(ctx, i, worker) once for
 * every i in [0, n), on `threads` workers (the calling thread is worker 0),
 * each taking the next i from one shared atomic counter (dynamic
 * scheduling: a slow piece holds only its worker). The order in which the
 * i run is unspecified, so fn must write only what belongs to i (or to its
 * worker), and the caller combines the results in i's order afterwards:
 * then the outcome is the same for any thread count. A worker that cannot
 * start leaves its share to the others (at worst worker 0 runs all).
 *
 * sim_threads_default() is the cores this process may run on (its CPU
 * affinity: taskset, a container's or a batch system's CPU set), else the
 * cores online; at least 1.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "core.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct par_run {
	size_t n;
	atomic_size_t next;
	void (*fn)(void *ctx, size_t i, int worker);
	void *ctx;
} par_run;

typedef struct par_worker {
	par_run *run;
	int id;
} par_worker;

static void *work(void *arg)
{
	par_worker *w = arg;
	par_run *r = w->run;
	for (size_t i = atomic_fetch_add(&r->next, 1); i < r->n; i = atomic_fetch_add(&r->next, 1))
		r->fn(r->ctx, i, w->id);
	return NULL;
}

int sim_threads_default(void)
{
	long t = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		t = CPU_COUNT(&set);
#endif
	return t < 1 ? 1 : t > SIM_PAR_MAX ? SIM_PAR_MAX : (int)t;
}

void sim_parallel(size_t n, int threads, void (*fn)(void *ctx, size_t i, int worker), void *ctx)
{
	par_run r = {n, 0, fn, ctx};
	int t = threads < 1 ? 1 : threads > SIM_PAR_MAX ? SIM_PAR_MAX : threads;
	if ((size_t)t > n)
		t = n > 0 ? (int)n : 1;
	pthread_t th[SIM_PAR_MAX];
	par_worker w[SIM_PAR_MAX];
	bool started[SIM_PAR_MAX] = {false};
	for (int k = 0; k < t; k++)
		w[k] = (par_worker){&r, k};
	for (int k = 1; k < t; k++)
		started[k] = pthread_create(&th[k], NULL, work, &w[k]) == 0;
	work(&w[0]);
	for (int k = 1; k < t; k++)
		if (started[k])
			pthread_join(th[k], NULL);
}
