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
 * replay, and the step is exec_run's exactly.
 *
 * Mixed GPU types ([cluster] other_gpu, other_nodes; plan_scenario). A
 * stage instance is EXEC_GPU_MAIN, _OTHER or _BOTH by the GPUs of its
 * ranks (an EP group's all-to-alls join the instances it spans: the union
 * takes both kinds). The graph is built a second time on other_gpu (the
 * same tasks in the same order: only durations come from the GPU), so
 * every task of an _OTHER instance takes its own time on that GPU, one of
 * a _BOTH instance the larger of the two (lockstep at the slower rank),
 * and the instance's interference and DeepEP share (plan_ep_share) are the
 * other GPU's (the larger ones for _BOTH); stragglers' factors multiply the
 * compute tasks on top. Without
 * factors a replica's step depends only on its instances' kinds, so equal
 * kind vectors share one replay (exact: a few replays for a few mixed
 * nodes, whatever dp is). With factors the bound of a replica holding a
 * mixed instance is base x F x ratio, ratio the largest task ratio
 * max(main, other) / main times the interference's (1 - i_main) /
 * (1 - i_other) where larger than 1 (the largest such ratio of NCCL's
 * interference, DeepEP's SM share and their sum: rate_ratio): every task
 * of the replica is at most that many times its main-type time (as exact
 * as the bound above).
 * The compute tasks' own rates beside DeepEP's kernels (plan_graph
 * deep_rate) stay the main GPU's.
 * Collectives and copies keep the main graph's times where they do not
 * depend on the GPU (the node's NVLink, NICs and fabric are the main
 * node type's); tasks whose times do (a pipeline transfer's host
 * operations) take the other GPU's. */
#include "exec_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STRAGGLE_SLOW_SEED 0x9e3779b97f4a7c15ULL /* the slow nodes' generator's offset */

static int coord(const exec_replicas *l, int64_t r, int d)
{
	int size[PLAN_DIMS] = {l->tp, l->cp, l->dp, l->pp};
	return (int)((r / l->stride[d]) % size[d]);
}

static int instance(const exec_replicas *l, int64_t r)
{
	return coord(l, r, PLAN_DIM_DP) * l->pp + coord(l, r, PLAN_DIM_PP);
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
static void instance_factors(const exec_replicas *l, const exec_straggle_opts *o,
			     const bool *slow, sim_rng *rng, double *f)
{
	int n = l->dp * l->pp;
	for (int i = 0; i < n; i++)
		f[i] = 0;
	for (int64_t r = 0; r < l->ranks; r++) {
		double x = o->sigma > 0 ? exp(sim_rng_normal(rng, o->sigma)) : 1;
		if (slow[r / l->gpn])
			x *= o->slow_factor;
		int i = instance(l, r);
		if (x > f[i])
			f[i] = x;
	}
	if (l->up) {
		for (int i = 0; i < n; i++) { /* the group's maximum at its root */
			int k = l->up[i];
			if (f[i] > f[k])
				f[k] = f[i];
		}
		for (int i = 0; i < n; i++)
			f[i] = f[l->up[i]];
	}
}

/* EP groups (ep consecutive global ranks) joining the instances they span;
 * up[i] = the root of instance i, flattened. NULL when ep <= 1. */
static int *ep_groups(const exec_replicas *l)
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
		int a = root(up, instance(l, g));
		for (int64_t r = g + 1; r < g + l->ep; r++) {
			int b = root(up, instance(l, r));
			if (a != b)
				up[b] = a;
		}
	}
	for (int i = 0; i < n; i++)
		up[i] = root(up, i);
	return up;
}

/* Mixed nodes: the kind of every instance (bit 0: a rank on the node's
 * GPU, bit 1: one on other_gpu; an EP union ORs its instances'). */
static void instance_kinds(exec_replicas *x, const plan_scenario *s)
{
	int n = x->dp * x->pp;
	memset(x->kind, 0, (size_t)n);
	for (int64_t r = 0; r < x->ranks; r++) {
		int64_t node = r / x->gpn;
		bool other = node < s->other_len && s->other_node[node];
		x->kind[instance(x, r)] |= other ? 2 : 1;
	}
	if (x->up) {
		for (int i = 0; i < n; i++)
			x->kind[x->up[i]] |= x->kind[i];
		for (int i = 0; i < n; i++)
			x->kind[i] = x->kind[x->up[i]];
	}
	static const uint8_t of[4] = {EXEC_GPU_MAIN, EXEC_GPU_MAIN, EXEC_GPU_OTHER, EXEC_GPU_BOTH};
	if (x->dpkind) { /* a stage's data-parallel groups: its instances of every replica */
		memset(x->dpkind, 0, (size_t)x->pp);
		for (int i = 0; i < n; i++)
			x->dpkind[i % x->pp] |= x->kind[i];
		for (int k = 0; k < x->pp; k++)
			x->dpkind[k] = of[x->dpkind[k]];
	}
	for (int i = 0; i < n; i++)
		x->kind[i] = of[x->kind[i]];
	x->mixed_replicas = 0;
	for (int d = 0; d < x->dp; d++) {
		bool m = false;
		for (int k = 0; k < x->pp; k++)
			m = m || x->kind[(size_t)d * x->pp + k] != EXEC_GPU_MAIN;
		x->mixed_replicas += m;
	}
}

/* (1 - main) / (1 - other) of two shares of the SMs lost (each at most 0.9,
 * as the replay clamps them), or 1 where the other GPU loses no more. */
static double rate_ratio(double main, double other)
{
	main = fmin(main, 0.9), other = fmin(other, 0.9);
	return other > main ? (1 - main) / (1 - other) : 1.0;
}

/* g's twin built on scenario o (the same tasks, edges and order, other
 * durations): its durations into *dur and its tasks' SM scales into
 * *scale (plan_graph.sm_scale; 1 where it has none), the largest ratio of
 * a task's to g's into *r (no smaller than it was), and g2 (the caller
 * frees it). */
static int twin(const exec_replicas *x, const plan_scenario *o, sim_time *dur, float *scale,
		double *r, plan_graph **g2)
{
	int rc = plan_build(o, g2);
	if (rc != SIM_OK)
		return rc;
	const plan_graph *g = x->g, *h = *g2;
	if (h->ntasks != g->ntasks || h->nedges != g->nedges)
		return SIM_EINVAL;
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *a = &g->tasks[i], *b = &h->tasks[i];
		if (a->rank != b->rank || a->stream != b->stream || a->kind != b->kind)
			return SIM_EINVAL; /* a plan_build that branches on the GPU or links */
		dur[i] = b->dur;
		scale[i] = h->sm_scale ? h->sm_scale[i] : 1.0f;
		if (b->dur > a->dur)
			*r = a->dur > 0 ? fmax(*r, (double)b->dur / (double)a->dur) : INFINITY;
	}
	return SIM_OK;
}

/* Whether the other nodes' transfers differ from the main nodes': links of
 * their own, or GPUs of another compute capability, for which NCCL's tuner
 * may pick another algorithm (net tune.c; a group over both types at the
 * lower, net_node_slowest). */
static bool own_links(const plan_scenario *s)
{
	return s->other_links || s->other_net.cc != s->cluster.node.cc;
}

/* Mixed nodes: g's twin on other_gpu and its node's links (plan_build with
 * that GPU and node), its durations into x->other; with links of its own
 * also the twin on the main GPU and both types' slowest links
 * (net_node_slowest) into x->meet; and the bound's ratio (file comment). */
static int other_times(exec_replicas *x, const plan_scenario *s)
{
	plan_scenario o;
	plan_other_view(s, &o);
	plan_graph *g2 = NULL, *g3 = NULL;
	double r = 1;
	int rc = twin(x, &o, x->other, x->oscale, &r, &g2);
	if (rc == SIM_OK && x->meet) {
		o.gpu = s->gpu;
		net_node_slowest(&s->cluster.node, &s->other_net, &o.cluster.node);
		rc = twin(x, &o, x->meet, x->mscale, &r, &g3);
	}
	plan_graph_free(g3);
	if (rc != SIM_OK) {
		plan_graph_free(g2);
		return rc;
	}
	const plan_graph *g = x->g;
	double im = g->interference, io = g2->interference;
	double em = g->ep_deep ? g->ep_share : 0, eo = g2->ep_deep ? g2->ep_share : 0;
	x->intf_kind[EXEC_GPU_MAIN] = im;
	x->intf_kind[EXEC_GPU_OTHER] = io;
	x->intf_kind[EXEC_GPU_BOTH] = fmax(im, io);
	x->eps_kind[EXEC_GPU_MAIN] = em;
	x->eps_kind[EXEC_GPU_OTHER] = eo;
	x->eps_kind[EXEC_GPU_BOTH] = fmax(em, eo);
	/* the compute's rate beside NCCL's collectives, DeepEP's kernels or
	 * both (replay.c) on each GPU: the largest ratio main / other, over
	 * every collective's SM scale on either (and both types' links) */
	double q = rate_ratio(em, eo);
	for (size_t i = 0; i < g->ntasks; i++) {
		double km = g->sm_scale ? g->sm_scale[i] : 1;
		double ko = fmax(x->oscale[i], x->mscale ? x->mscale[i] : 0);
		q = fmax(q, fmax(rate_ratio(im * km, io * ko), rate_ratio(im * km + em, io * ko + eo)));
	}
	x->ratio = r * q;
	plan_graph_free(g2);
	return rc;
}

int exec_replicas_open(const plan_scenario *s, const plan_graph *g, exec_replicas **out)
{
	*out = NULL;
	exec_replicas *x = calloc(1, sizeof *x);
	if (!x)
		return SIM_ENOMEM;
	const plan_spec *p = &s->plan;
	x->g = g;
	x->c = &s->cluster;
	x->tp = p->tp, x->cp = p->cp > 1 ? p->cp : 1, x->dp = p->dp, x->pp = p->pp;
	x->ep = p->ep > 1 ? p->ep : 1;
	x->gpn = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	x->ranks = (int64_t)x->tp * x->cp * x->dp * x->pp;
	plan_strides(p, x->stride);
	size_t ninst = (size_t)x->dp * x->pp;
	x->ord = malloc((size_t)x->dp * sizeof *x->ord);
	x->tasks = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->tasks);
	x->up = ep_groups(x);
	bool mixed = s->nother > 0;
	if (mixed && own_links(s)) {
		x->meet = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->meet);
		x->mscale = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->mscale);
		x->dpkind = malloc((size_t)x->pp);
	}
	if (mixed) {
		x->kind = malloc(ninst);
		x->other = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->other);
		x->oscale = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->oscale);
		x->scale = malloc((g->ntasks ? g->ntasks : 1) * sizeof *x->scale);
		x->intf = malloc((size_t)x->pp * sizeof *x->intf);
		x->eps = malloc((size_t)x->pp * sizeof *x->eps);
	}
	int rc = x->ord && x->tasks && (x->ep <= 1 || x->up) &&
			 (!mixed || (x->kind && x->other && x->oscale && x->scale && x->intf &&
				     x->eps)) &&
			 (!mixed || !own_links(s) || (x->meet && x->mscale && x->dpkind))
		     ? SIM_OK
		     : SIM_ENOMEM;
	if (rc == SIM_OK) {
		memcpy(x->tasks, g->tasks, g->ntasks * sizeof *x->tasks);
		x->gs = *g;
		x->gs.tasks = x->tasks;
		rc = exec_replayer_new(&x->gs, &x->x);
	}
	sim_time b = 0;
	if (rc == SIM_OK)
		rc = exec_replayer_run(x->x, x->c, &b);
	x->base_s = sim_time_to_s(b);
	if (rc == SIM_OK && mixed) {
		instance_kinds(x, s);
		rc = other_times(x, s);
	}
	if (rc != SIM_OK) {
		exec_replicas_close(x);
		return rc;
	}
	*out = x;
	return SIM_OK;
}

void exec_replicas_close(exec_replicas *x)
{
	if (!x)
		return;
	exec_replayer_free(x->x);
	free(x->intf);
	free(x->eps);
	free(x->other);
	free(x->meet);
	free(x->oscale), free(x->mscale), free(x->scale);
	free(x->dpkind);
	free(x->kind);
	free(x->up);
	free(x->tasks);
	free(x->ord);
	free(x);
}

/* The union of two kinds (EXEC_GPU_*). */
static int kind_or(int a, int b)
{
	return a == b ? a : EXEC_GPU_BOTH;
}

/* The kind of the nodes task t of a replica (its instances' kinds `kind`)
 * runs on: with the other nodes' own links a transfer's group's (a
 * pipeline send's two stages of the replica, the data-parallel groups'
 * stage in every replica: dpkind); else, and for compute, TP, CP, EP and
 * offload tasks (the instance's own ranks, EP groups joined), the
 * instance's. */
static int task_kind(const exec_replicas *x, const uint8_t *kind, const plan_task *t)
{
	int k = kind[t->rank];
	if (!x->meet)
		return k;
	switch (t->stream) {
	case PLAN_STREAM_DP:
		return x->dpkind[t->rank];
	case PLAN_STREAM_PP_FWD:
	case PLAN_STREAM_PP_BWD: {
		int to = plan_task_pp_peer(t, x->pp);
		return to >= 0 ? kind_or(k, kind[to]) : k;
	}
	default:
		return k;
	}
}

const plan_graph *exec_replicas_set(exec_replicas *x, const double *f, int d)
{
	const plan_graph *g = x->g;
	const uint8_t *kind = x->kind ? x->kind + (size_t)d * x->pp : NULL;
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		int k = kind ? task_kind(x, kind, t) : EXEC_GPU_MAIN;
		sim_time a = t->dur;
		if (k != EXEC_GPU_MAIN) {
			sim_time o = x->other[i];
			a = k == EXEC_GPU_OTHER || o > a ? o : a;
		}
		/* a group over both types: at its slowest hop and tuned for the
		 * lower compute capability (net_node_slowest), whatever either
		 * type alone would pick */
		if (k == EXEC_GPU_BOTH && x->meet && t->stream != PLAN_STREAM_COMPUTE)
			a = x->meet[i];
		if (kind) { /* the SMs its collective takes on that type (both: the more) */
			float km = g->sm_scale ? g->sm_scale[i] : 1.0f, ko = x->oscale[i];
			x->scale[i] = k == EXEC_GPU_MAIN    ? km
				      : k == EXEC_GPU_OTHER ? ko
				      : x->meet		    ? x->mscale[i]
							    : (km > ko ? km : ko);
		}
		if (f && t->stream == PLAN_STREAM_COMPUTE) {
			double v = (double)a * f[(size_t)d * x->pp + t->rank];
			a = v < (double)SIM_TIME_HORIZON ? (sim_time)(v + 0.5) : SIM_TIME_HORIZON;
		}
		x->tasks[i].dur = a;
	}
	if (kind) {
		for (int k = 0; k < x->pp; k++)
			x->intf[k] = x->intf_kind[kind[k]], x->eps[k] = x->eps_kind[kind[k]];
		x->gs.rank_interference = x->intf;
		x->gs.rank_ep_share = x->eps;
		x->gs.sm_scale = x->scale;
	}
	return &x->gs;
}

static int by_f_desc(const void *a, const void *b)
{
	const exec_replica_order *x = a, *y = b;
	return x->F < y->F ? 1 : x->F > y->F ? -1 : x->d - y->d;
}

/* Whether replica d's kinds equal those of a replica replayed before it
 * (ord[0..j)): its step is that one's. */
static bool seen(const exec_replicas *x, int j, int d)
{
	const uint8_t *a = x->kind ? x->kind + (size_t)d * x->pp : NULL;
	for (int i = 0; i < j; i++) {
		const uint8_t *b = x->kind ? x->kind + (size_t)x->ord[i].d * x->pp : NULL;
		if (!a || !memcmp(a, b, (size_t)x->pp))
			return true;
	}
	return false;
}

int exec_replicas_step(exec_replicas *x, const double *f, bool exhaustive, int max_replays,
		       double *step, int *slowest, long *replays, double *bound)
{
	/* with the other nodes' links a replica's transfers change with its
	 * neighbours' and its data-parallel groups' kinds: any non-main kind
	 * there bounds every instance of the replica by the ratio */
	bool dpmixed = false;
	for (int k = 0; x->dpkind && k < x->pp; k++)
		dpmixed = dpmixed || x->dpkind[k] != EXEC_GPU_MAIN;
	for (int d = 0; d < x->dp; d++) {
		double F = f ? 0 : 1;
		bool touched = dpmixed;
		for (int k = 0; x->kind && x->meet && k < x->pp; k++)
			touched = touched || x->kind[(size_t)d * x->pp + k] != EXEC_GPU_MAIN;
		for (int k = 0; k < x->pp; k++) {
			size_t i = (size_t)d * x->pp + k;
			double r = x->kind && (touched || x->kind[i] != EXEC_GPU_MAIN) ? x->ratio : 1;
			F = fmax(F, (f ? f[i] : 1) * r);
		}
		x->ord[d] = (exec_replica_order){F, d};
	}
	qsort(x->ord, (size_t)x->dp, sizeof *x->ord, by_f_desc);
	double best = -INFINITY;
	int done = 0, arg = -1;
	x->kinds = 0;
	for (int j = 0; j < x->dp; j++) {
		if (!f && seen(x, j, x->ord[j].d))
			continue; /* the same replica as one replayed */
		double ub = x->base_s * fmax(1, x->ord[j].F);
		if (f && !exhaustive && ub <= best)
			break;
		if (f && !exhaustive && max_replays > 0 && done >= max_replays) {
			*bound = fmax(*bound, ub); /* the rest's bounds are no larger */
			break;
		}
		done++;
		exec_replicas_set(x, f, x->ord[j].d);
		sim_time s;
		int rc = exec_replayer_run(x->x, x->c, &s);
		if (rc != SIM_OK)
			return rc;
		++*replays;
		x->kinds++;
		double t = sim_time_to_s(s);
		if (t > best || (t == best && x->ord[j].d < arg))
			best = t, arg = x->ord[j].d;
	}
	*step = best;
	if (slowest)
		*slowest = arg;
	return SIM_OK;
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

int exec_stragglers(const plan_scenario *s, const exec_straggle_opts *o, exec_straggle *out)
{
	memset(out, 0, sizeof *out);
	const plan_spec *p = &s->plan;
	int64_t ranks = (int64_t)p->tp * (p->cp > 1 ? p->cp : 1) * p->dp * p->pp;
	int gpn = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	int nodes = (int)((ranks + gpn - 1) / gpn);
	if (!opts_ok(o, nodes) || ranks < 1)
		return SIM_EINVAL;
	plan_graph *g;
	int rc = plan_build(s, &g);
	if (rc != SIM_OK)
		return rc;
	exec_replicas *x = NULL;
	size_t ninst = (size_t)p->dp * p->pp;
	double *f = malloc(ninst * sizeof *f), *t = malloc((size_t)o->steps * sizeof *t);
	bool *slow = calloc((size_t)nodes, sizeof *slow);
	sim_rng *jit = sim_rng_new(o->seed), *sl = sim_rng_new(o->seed + STRAGGLE_SLOW_SEED);
	rc = f && t && slow && jit && sl ? SIM_OK : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = exec_replicas_open(s, g, &x);
	if (rc == SIM_OK) { /* the step without stragglers: exec_run's */
		out->base_s = x->base_s;
		if (x->kind)
			rc = exec_replicas_step(x, NULL, false, 0, &out->base_s, NULL, &out->replays,
						&out->bound_s);
	}
	out->replicas = p->dp;
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
		instance_factors(x, o, slow, jit, f);
		rc = exec_replicas_step(x, f, o->exhaustive, o->max_replays, &t[k], NULL,
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
	exec_replicas_close(x);
	sim_rng_free(jit);
	sim_rng_free(sl);
	free(slow);
	free(t);
	free(f);
	plan_graph_free(g);
	return rc;
}
