/* spread.c - the step time's spread from the measured spread of the
 * collectives (ARCHITECTURE.md, "The step's spread").
 *
 * Mechanism. The step is the replay of its task graph; a collective across
 * nodes on an EFA fabric with a measured spread carries the share net_frac
 * of its duration that is the call's (plan_graph, plan/build.c
 * build_comm_net_s: the whole call; below 1 where a task holds more).
 * Replay k of n redraws every such task's duration:
 *     dur' = dur (1 + net_frac (r - 1)),  r = Q_m(z)
 * where Q_m is the split log-normal of the spread at the task's node count
 * m (net_spread_at, net_spread_factor: median 1, 5th and 95th percentiles
 * the measured ones) and z a standard normal. Compute, NVLink collectives
 * and copies keep their durations. The replay is the ordinary one, so a
 * slower collective costs the step only where it comes out of hiding
 * (exposed by the stream semantics, the NIC sharing and the interference
 * of replay.c), and the step time is the last task's end as always.
 *
 * Composition over the calls of a step: a Gaussian copula,
 *     z = sqrt(rho) z_step + sqrt(1 - rho) e_call,
 * z_step drawn once per replay and e_call once per task, both standard
 * normal, so every call keeps its measured marginal (z is standard normal
 * for any rho) and rho is the correlation of two calls' normal scores z
 * within a step. rho = 1: every call draws the same quantile, and a step
 * that is all one exposed collective has exactly that collective's
 * quantiles (the envelope of a chain of collectives); rho = 0: independent
 * calls, whose slowdowns average out over the many collectives of a step
 * toward the split log-normal's mean, above its median (net/spread.c): the
 * tight limit. Where the slowest of parallel paths decides the step, the
 * maximum of independent draws has the longer tail, so rho = 1 bounds a
 * chain, not every step.
 * The data (one collective at a time, percentiles over repeated runs)
 * cannot split the two; podsim assumes rho = 0.5 ([cluster]
 * spread_correlation): congestion from other tenants of the fabric lasts
 * longer than a step (a shared part), while each call also meets its own
 * flows' path collisions and proxy scheduling (its own part). `podsim
 * explain` prints the two limits beside it. A task stands for every
 * concurrent copy of its collective in its rank class (the DP groups of
 * the TP ranks of a stage run at once through the same nodes' rails and the
 * same fabric): one draw per task.
 *
 * Sampling: the step component is stratified, z_step of replay k =
 * Phi^-1((k + u_k) / n), u_k uniform, so the shared part, which decides
 * the tails when rho is large, covers its distribution evenly at any n; the
 * per-call draws are plain. Draws come from core's RNG (GSL mt19937): the
 * u_k from one generator seeded with the scenario's seed, the per-call
 * normals (one per varying task in task order, drawn whatever rho is) from
 * a second seeded with seed + SPREAD_CALL_SEED. So runs with one seed
 * share their step components (common random numbers: two plans of a
 * sweep meet the same fabric history, and their p95 differ by their
 * exposure, not by luck), and runs that differ only in rho share every
 * draw. Quantiles of the n step times: GSL's
 * gsl_stats_quantile_from_sorted_data (linear interpolation between order
 * statistics).
 *
 * Cost: n replays of the whole step (each as long as the run's own replay,
 * without its link statistics and views). They run on the machine's cores
 * (exec_spread_opts.threads; core's sim_parallel, one replayer and one copy
 * of the task durations each), in batches of as many replays as threads: the
 * batch's durations are drawn in replay order on the calling thread first,
 * so the draws, and with them every quantile, are those of one thread
 * whatever the count (spread_threads in tests/exec). A replay reads the
 * graph and the cluster and writes only its replayer (no globals: STYLE).
 */
#include "exec_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPREAD_CALL_SEED 0x5851f42dULL /* the per-call generator's seed offset */

/* The varying tasks of a graph: id, share of the duration, and the sigmas
 * of the split log-normal at their node count (net_spread_sigmas). */
typedef struct vary {
	uint32_t id;
	double frac, s_lo, s_hi;
} vary;

/* The tasks of g whose duration varies on c; *n of them into a malloc'd
 * array (NULL when none). SIM_OK or SIM_ENOMEM. */
static int varying(const plan_graph *g, const net_cluster *c, vary **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!g->net_frac)
		return SIM_OK;
	size_t k = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		k += g->net_frac[i] > 0;
	if (k == 0)
		return SIM_OK;
	vary *v = malloc(k * sizeof *v);
	if (!v)
		return SIM_ENOMEM;
	for (size_t i = 0; i < g->ntasks; i++) {
		net_spread s;
		if (!(g->net_frac[i] > 0) || !net_spread_at(c, g->net_nodes[i], &s))
			continue;
		vary *x = &v[(*n)++];
		x->id = (uint32_t)i;
		x->frac = g->net_frac[i];
		net_spread_sigmas(&s, &x->s_lo, &x->s_hi);
	}
	*out = v;
	return SIM_OK;
}

/* Quantiles and mean of the sorted step times t[0..n-1] into out, and the p95's
 * confidence interval from order statistics: the count of samples below the
 * true 95th percentile is binomial (n, 0.95), so with about 95 %
 * confidence it lies between the order statistics of ranks
 *     l = floor(0.95 n - 1.96 s),  u = ceil(0.95 n + 1.96 s),
 *     s = sqrt(0.95 x 0.05 n)
 * (1-based, clamped to 1..n; the binomial's normal approximation). At 100
 * samples: the 90th and 100th; at 50 the 44th and the largest. Independent
 * of the distribution, so it says how far sampling alone may have moved
 * the p95 (sweep_risky compares plans by it). */
static void quantiles(const double *t, size_t n, exec_step_spread *out)
{
	out->p05_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.05);
	out->p10_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.10);
	out->p50_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.50);
	out->p90_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.90);
	out->p95_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.95);
	out->mean_s = gsl_stats_mean(t, 1, n);
	double np = 0.95 * (double)n, sd = sqrt(np * 0.05);
	double l = floor(np - 1.96 * sd), u = ceil(np + 1.96 * sd);
	l = l < 1 ? 1 : l > (double)n ? (double)n : l;
	u = u < 1 ? 1 : u > (double)n ? (double)n : u;
	out->p95_lo_s = t[(size_t)l - 1];
	out->p95_hi_s = t[(size_t)u - 1];
}

/* One replay's durations: each varying task's drawn from z (file comment). */
static void draw(const plan_graph *g, const vary *v, size_t nv, double rho, double z_step,
                 sim_rng *calls, plan_task *tasks)
{
	double a = sqrt(rho), b = sqrt(1 - rho);
	for (size_t j = 0; j < nv; j++) {
		double z = a * z_step + b * sim_rng_normal(calls, 1.0);
		double r = exp((z < 0 ? v[j].s_lo : v[j].s_hi) * z);
		double d = (double)g->tasks[v[j].id].dur * (1 + v[j].frac * (r - 1));
		/* capped at the horizon: the replay then reports SIM_ERANGE */
		tasks[v[j].id].dur = !(d > 0)                       ? 0
				     : d < (double)SIM_TIME_HORIZON ? (sim_time)(d + 0.5)
								    : SIM_TIME_HORIZON;
	}
}

double exec_mean_step_factor(const exec_result *r)
{
	return r->spread.samples > 0 && r->spread.mean_s > 0 && r->step_s > 0
		       ? r->spread.mean_s / r->step_s
		       : 1;
}

/* One thread's replays: its copy of the task durations, the graph that
 * points at them, its replayer, and the last replay's outcome. */
typedef struct spread_job {
	plan_task *tasks;
	plan_graph gs;
	exec_replayer *x;
	const net_cluster *c;
	sim_time step;
	int rc;
} spread_job;

/* sim_parallel's piece: replay job i (any worker may run it; only it
 * touches its replayer). */
static void job_run(void *ctx, size_t i, int worker)
{
	(void)worker;
	spread_job *j = (spread_job *)ctx + i;
	j->rc = exec_replayer_run(j->x, j->c, &j->step);
}

/* The threads the replays run on: the option, else the cores this process
 * may use (sim_threads_default), at
 * most the samples and SPREAD_THREADS_MAX (each holds a replayer and a copy
 * of the tasks: about 15 MB more a thread for Llama 2 70B's 149,879 tasks
 * on 512 GPUs, so 16 keep it near a quarter of a GB). */
#define SPREAD_THREADS_MAX 16
static size_t spread_threads(const exec_spread_opts *o, size_t n)
{
	long t = o->threads > 0 ? o->threads : sim_threads_default();
	t = t < 1 ? 1 : t > SPREAD_THREADS_MAX ? SPREAD_THREADS_MAX : t;
	return (size_t)t < n ? (size_t)t : n;
}

static void jobs_free(spread_job *j, size_t nj)
{
	for (size_t i = 0; j && i < nj; i++) {
		exec_replayer_free(j[i].x);
		free(j[i].tasks);
	}
	free(j);
}

/* nj jobs replaying g on c, each with its own copy of g's tasks; NULL
 * when memory runs out. */
static spread_job *jobs_new(const plan_graph *g, const net_cluster *c, size_t nj)
{
	spread_job *j = calloc(nj, sizeof *j);
	for (size_t i = 0; j && i < nj; i++) {
		j[i].c = c;
		j[i].tasks = malloc(g->ntasks * sizeof *j[i].tasks);
		if (!j[i].tasks) {
			jobs_free(j, nj);
			return NULL;
		}
		memcpy(j[i].tasks, g->tasks, g->ntasks * sizeof *j[i].tasks);
		j[i].gs = *g; /* the same graph with the drawn durations */
		j[i].gs.tasks = j[i].tasks;
		if (exec_replayer_new(&j[i].gs, &j[i].x) != SIM_OK) {
			jobs_free(j, nj);
			return NULL;
		}
	}
	return j;
}

/* Run the first nb jobs, one a worker (core's sim_parallel); the first
 * error of theirs, else SIM_OK. */
static int jobs_run(spread_job *j, size_t nb)
{
	sim_parallel(nb, (int)nb, job_run, j);
	for (size_t i = 0; i < nb; i++)
		if (j[i].rc != SIM_OK)
			return j[i].rc;
	return SIM_OK;
}

int exec_spread(const plan_graph *g, const net_cluster *c, double step_s, const exec_spread_opts *o,
                exec_step_spread *out)
{
	memset(out, 0, sizeof *out);
	if (!o || o->samples < 1 || c->nspread < 1)
		return SIM_OK;
	double rho = o->corr >= 0 ? o->corr : c->spread_corr;
	rho = rho < 0 ? 0 : rho > 1 ? 1 : rho;
	out->samples = o->samples;
	out->seed = o->seed;
	out->corr = rho;
	vary *v;
	size_t nv;
	if (varying(g, c, &v, &nv) != SIM_OK)
		return SIM_ENOMEM;
	out->varying = (int)nv;
	if (nv == 0) { /* nothing crosses nodes: every replay is the step */
		out->p05_s = out->p10_s = out->p50_s = out->p90_s = out->p95_s = step_s;
		out->mean_s = step_s;
		out->p95_lo_s = out->p95_hi_s = step_s;
		return SIM_OK;
	}
	size_t n = (size_t)o->samples, nj = spread_threads(o, n);
	double *t = malloc(n * sizeof *t);
	sim_rng *steps = sim_rng_new(o->seed), *calls = sim_rng_new(o->seed + SPREAD_CALL_SEED);
	spread_job *jobs = t && steps && calls ? jobs_new(g, c, nj) : NULL;
	int rc = jobs ? SIM_OK : SIM_ENOMEM;
	for (size_t k0 = 0; rc == SIM_OK && k0 < n; k0 += nj) {
		size_t nb = n - k0 < nj ? n - k0 : nj;
		/* the batch's draws in replay order (one thread's sequence) */
		for (size_t i = 0; i < nb; i++) {
			size_t k = k0 + i;
			double p = ((double)k + sim_rng_uniform(steps)) / (double)n;
			double z_step = gsl_cdf_ugaussian_Pinv(p > 0 ? p : 0.5 / (double)n);
			draw(g, v, nv, rho, z_step, calls, jobs[i].tasks);
		}
		rc = jobs_run(jobs, nb);
		for (size_t i = 0; rc == SIM_OK && i < nb; i++)
			t[k0 + i] = sim_time_to_s(jobs[i].step);
	}
	if (rc == SIM_OK) {
		gsl_sort(t, 1, n);
		quantiles(t, n, out);
	} else {
		memset(out, 0, sizeof *out);
	}
	jobs_free(jobs, nj);
	sim_rng_free(steps);
	sim_rng_free(calls);
	free(t);
	free(v);
	return rc;
}
