/* straggle.c - the step when GPUs differ: per-GPU slowdowns replayed per
 * pipeline replica (exec.h, exec_stragglers).
 *
 * The rank-class graph has one representative rank per pipeline stage: it
 * is exact when every GPU is alike. With stragglers the ranks differ, and
 * what a slow GPU costs depends on where the plan synchronises it:
 *   - inside a stage instance (the tp x cp ranks of one stage of one
 *     data-parallel replica) every layer's TP collectives (and CP's ring
 *     steps) make the ranks wait for each other, so the instance computes at
 *     the pace of its slowest GPU: its factor is the maximum of its GPUs'
 *     (an expert-parallel group's all-to-alls join the instances it spans:
 *     they take the maximum over all of them);
 *   - a pipeline replica's stages are coupled through its schedule: a slow
 *     stage delays the micro-batches behind it and its bubble, which the
 *     replay of the replica's graph with each stage's compute slowed gives
 *     exactly;
 *   - the data-parallel replicas meet at the gradient reduction of each
 *     stage, which ends after the last replica's buckets: the step is the
 *     slowest replica's (max over replicas of max over stages of a stage's
 *     end = max over stages of max over replicas, the reduction's own time
 *     being the same in every replica).
 * Only compute-stream tasks are slowed (kernels, the optimizer step):
 * collectives and copies keep their durations, as the links do not slow
 * with the GPU's clock.
 *
 * The slowdowns. GPU g of a step runs its compute f_g = c_g e^{sigma z}
 * times slower, z standard normal drawn per GPU and step (clock and thermal
 * jitter, independent from step to step), c_g = slow_factor on a slow node
 * and 1 elsewhere; a node is slow with probability slow_prob (drawn once,
 * persistent over the sampled steps: a degraded node stays degraded) or
 * when listed. Global rank r sits on node r / G (ranks fill the nodes in
 * order) and has coordinates (r / stride_d) mod size_d under the plan's
 * placement order (plan_strides).
 *
 * Pruning. The replay is monotone in the tasks' durations (max-plus over a
 * fixed order per stream), and slowing a replica's compute by at most F
 * (its largest stage factor) is no worse than slowing every task by F,
 * which scales its step by F exactly; so a replica's step is at most
 * base x max(1, F). Replicas are replayed in decreasing F and the rest
 * skipped once that bound is no more than the slowest step found; the
 * answer is the exhaustive one's (exhaustive = true checks it). With the
 * flow network's NIC sharing the monotonicity is approximate. Jitter
 * prunes poorly: a slow stage raises its replica's step by only part of its
 * factor (the share of the step its compute is on the critical path, 0.6
 * for Llama 3 405B on 16,384 GPUs), so with sigma = 0.02 about 90 of 128
 * replicas pass the bound; max_replays caps the replays of a sampled step
 * (in decreasing F: the slowest stage instances first, which decide the
 * step) and reports the largest bound left unreplayed (bound_s).
 *
 * Cost: one graph, a copy of its tasks, and per sampled step one replay per
 * replica not pruned (about a tenth of them with sigma's normal tails).
 * With sigma = 0 and no slow node every replica is the rank class: one
 * replay, and the step is exec_run's exactly. */
#include "exec_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STRAGGLE_SLOW_SEED 0x9e3779b97f4a7c15ULL /* the slow nodes' generator's offset */

typedef struct layout {
	int64_t ranks;
	int gpn, pp, dp, tp, cp, ep;
	int stride[PLAN_DIMS];
} layout;

static int coord(const layout *l, int64_t r, int d)
{
	int size[PLAN_DIMS] = {l->tp, l->cp, l->dp, l->pp};
	return (int)((r / l->stride[d]) % size[d]);
}

/* Union-find over stage instances (index dp * pp + stage). */
static int root(int *up, int i)
{
	while (up[i] != i) {
		up[i] = up[up[i]];
		i = up[i];
	}
	return i;
}

/* The factor of every stage instance for one step into f[dp * pp]: the
 * maximum of its GPUs' (and, with EP, of the instances its groups join). */
static void instance_factors(const layout *l, const exec_straggle_opts *o, const bool *slow,
			     sim_rng *rng, const int *up, double *f)
{
	int n = l->dp * l->pp;
	for (int i = 0; i < n; i++)
		f[i] = 0;
	for (int64_t r = 0; r < l->ranks; r++) {
		double x = o->sigma > 0 ? exp(sim_rng_normal(rng, o->sigma)) : 1;
		if (slow[r / l->gpn])
			x *= o->slow_factor;
		int i = coord(l, r, PLAN_DIM_DP) * l->pp + coord(l, r, PLAN_DIM_PP);
		if (x > f[i])
			f[i] = x;
	}
	if (up) {
		for (int i = 0; i < n; i++) { /* the group's maximum at its root */
			int k = up[i];
			if (f[i] > f[k])
				f[k] = f[i];
		}
		for (int i = 0; i < n; i++)
			f[i] = f[up[i]];
	}
}

/* EP groups (ep consecutive global ranks) joining the instances they span;
 * up[i] = the root of instance i, flattened. NULL when ep <= 1. */
static int *ep_groups(const layout *l)
{
	if (l->ep <= 1)
		return NULL;
	int n = l->dp * l->pp;
	int *up = malloc((size_t)n * sizeof *up);
	if (!up)
		return NULL;
	for (int i = 0; i < n; i++)
		up[i] = i;
	for (int64_t g = 0; g + l->ep <= l->ranks; g += l->ep) {
		int a = root(up, coord(l, g, PLAN_DIM_DP) * l->pp + coord(l, g, PLAN_DIM_PP));
		for (int64_t r = g + 1; r < g + l->ep; r++) {
			int b = root(up, coord(l, r, PLAN_DIM_DP) * l->pp + coord(l, r, PLAN_DIM_PP));
			if (a != b)
				up[b] = a;
		}
	}
	for (int i = 0; i < n; i++)
		up[i] = root(up, i);
	return up;
}

typedef struct order_item {
	double F;
	int d;
} order_item;

static int by_f_desc(const void *a, const void *b)
{
	const order_item *x = a, *y = b;
	return x->F < y->F ? 1 : x->F > y->F ? -1 : x->d - y->d;
}

/* Replica d's step: g's compute tasks of stage k slowed by f[d * pp + k]. */
static int replay_replica(const plan_graph *g, const net_cluster *c, const double *f, int d,
			  int pp, plan_task *tasks, exec_replayer *x, double *step)
{
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->stream != PLAN_STREAM_COMPUTE)
			continue;
		double v = (double)t->dur * f[(size_t)d * pp + t->rank];
		tasks[i].dur = v < (double)SIM_TIME_HORIZON ? (sim_time)(v + 0.5) : SIM_TIME_HORIZON;
	}
	sim_time s;
	int rc = exec_replayer_run(x, c, &s);
	*step = sim_time_to_s(s);
	return rc;
}

static bool opts_ok(const exec_straggle_opts *o, int nodes)
{
	if (!o || !(o->sigma >= 0) || !(o->slow_prob >= 0 && o->slow_prob <= 1) ||
	    !(o->slow_factor >= 1) || o->steps < 1 || o->nslow < 0 ||
	    o->nslow > EXEC_STRAGGLE_MAX_LISTED)
		return false;
	for (int i = 0; i < o->nslow; i++)
		if (o->slow_nodes[i] < 0 || o->slow_nodes[i] >= nodes)
			return false;
	return true;
}

/* One sampled step: the slowest replica, pruned (file comment). */
static int one_step(const plan_graph *g, const net_cluster *c, const layout *l,
		    const exec_straggle_opts *o, const double *f, order_item *ord, plan_task *tasks,
		    exec_replayer *x, double base, double *step, long *replays, double *bound)
{
	for (int d = 0; d < l->dp; d++) {
		double F = 0;
		for (int k = 0; k < l->pp; k++)
			F = fmax(F, f[(size_t)d * l->pp + k]);
		ord[d] = (order_item){F, d};
	}
	qsort(ord, (size_t)l->dp, sizeof *ord, by_f_desc);
	double best = -INFINITY;
	int done = 0;
	for (int j = 0; j < l->dp; j++) {
		double ub = base * fmax(1, ord[j].F);
		if (!o->exhaustive && ub <= best)
			break;
		if (!o->exhaustive && o->max_replays > 0 && done >= o->max_replays) {
			*bound = fmax(*bound, ub); /* the rest's bounds are no larger */
			break;
		}
		done++;
		double t;
		int rc = replay_replica(g, c, f, ord[j].d, l->pp, tasks, x, &t);
		if (rc != SIM_OK)
			return rc;
		++*replays;
		best = fmax(best, t);
	}
	*step = best;
	return SIM_OK;
}

int exec_stragglers(const plan_scenario *s, const exec_straggle_opts *o, exec_straggle *out)
{
	memset(out, 0, sizeof *out);
	const plan_spec *p = &s->plan;
	layout l = {0};
	l.tp = p->tp, l.cp = p->cp > 1 ? p->cp : 1, l.dp = p->dp, l.pp = p->pp;
	l.ep = p->ep > 1 ? p->ep : 1;
	l.gpn = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	l.ranks = (int64_t)l.tp * l.cp * l.dp * l.pp;
	int nodes = (int)((l.ranks + l.gpn - 1) / l.gpn);
	if (!opts_ok(o, nodes) || l.ranks < 1)
		return SIM_EINVAL;
	plan_strides(p, l.stride);
	plan_graph *g;
	int rc = plan_build(s, &g);
	if (rc != SIM_OK)
		return rc;
	size_t ninst = (size_t)l.dp * l.pp;
	double *f = malloc(ninst * sizeof *f), *t = malloc((size_t)o->steps * sizeof *t);
	bool *slow = calloc((size_t)nodes, sizeof *slow);
	order_item *ord = malloc((size_t)l.dp * sizeof *ord);
	plan_task *tasks = malloc(g->ntasks * sizeof *tasks);
	int *up = ep_groups(&l);
	sim_rng *jit = sim_rng_new(o->seed), *sl = sim_rng_new(o->seed + STRAGGLE_SLOW_SEED);
	rc = f && t && slow && ord && tasks && jit && sl && (l.ep <= 1 || up) ? SIM_OK : SIM_ENOMEM;
	exec_replayer *x = NULL;
	plan_graph gs = *g; /* the same graph with a replica's durations */
	if (rc == SIM_OK) {
		memcpy(tasks, g->tasks, g->ntasks * sizeof *tasks);
		gs.tasks = tasks;
		rc = exec_replayer_new(&gs, &x);
	}
	sim_time b = 0;
	if (rc == SIM_OK)
		rc = exec_replayer_run(x, &s->cluster, &b);
	out->base_s = sim_time_to_s(b);
	out->replicas = l.dp;
	out->steps = o->steps;
	if (rc == SIM_OK) {
		for (int n = 0; n < nodes; n++) /* one draw per node, whatever slow_prob */
			slow[n] = sim_rng_uniform(sl) < o->slow_prob;
		for (int i = 0; i < o->nslow; i++)
			slow[o->slow_nodes[i]] = true;
		for (int n = 0; n < nodes; n++)
			out->slow_nodes += slow[n];
	}
	for (int k = 0; rc == SIM_OK && k < o->steps; k++) {
		instance_factors(&l, o, slow, jit, up, f);
		rc = one_step(g, &s->cluster, &l, o, f, ord, tasks, x, out->base_s, &t[k],
			      &out->replays, &out->bound_s);
	}
	if (rc == SIM_OK) {
		size_t n = (size_t)o->steps;
		out->mean_s = gsl_stats_mean(t, 1, n);
		gsl_sort(t, 1, n);
		out->p50_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.50);
		out->p95_s = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.95);
		out->max_s = t[n - 1];
		out->factor = out->base_s > 0 ? out->mean_s / out->base_s : 1;
	}
	exec_replayer_free(x);
	sim_rng_free(jit);
	sim_rng_free(sl);
	free(up);
	free(tasks);
	free(ord);
	free(slow);
	free(t);
	free(f);
	plan_graph_free(g);
	return rc;
}
