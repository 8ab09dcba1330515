/* run.c - one whole simulated step: build the graph, replay it, and derive the
 * headline metrics (definitions in result.h and ARCHITECTURE.md). */
#include "exec_int.h"
#include "../topo/topo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void identity(const plan_scenario *s, exec_result *r)
{
	snprintf(r->scenario, sizeof r->scenario, "%s", s->name);
	snprintf(r->model, sizeof r->model, "%s", s->model.name);
	snprintf(r->gpu, sizeof r->gpu, "%s", s->gpu.name);
	/* auto beyond NET_FLOW_AUTO_NODES: said, since the closed forms see no
	 * ECMP collision or oversubscription (a Mixtral plan on 8,192 H100 over
	 * a RoCE fat tree: 1.60 s against the link graph's 2.39 s) */
	bool fell_back = s->cluster.network == NET_MODEL_AUTO && !net_uses_flow(&s->cluster);
	if (fell_back)
		snprintf(r->cluster, sizeof r->cluster, "%s, alpha-beta network: auto over %d nodes",
			 s->cluster.name, NET_FLOW_AUTO_NODES);
	else
		snprintf(r->cluster, sizeof r->cluster, "%s%s", s->cluster.name,
			 net_uses_flow(&s->cluster) ? ", flow network" : "");
	plan_label(s, r->plan, sizeof r->plan);
	if (!plan_layout_assumption(s, r->layout, sizeof r->layout))
		r->layout[0] = 0;
	r->seed = s->seed;
	r->gpus = s->cluster.gpus;
	r->band_lo_s = r->band_hi_s = NAN; /* valid_refs_apply fills them */
}

/* Each class's peak by category, on other_gpu too where a rank of it sits
 * on one of its nodes, and the plan's verdict (plan_memory_fit, the one the
 * sweep prunes on): its GPU, other_gpu's stages, the offloaded states per
 * node against host DRAM and NVMe. A class is out of memory on either GPU
 * type. */
static void memory(const plan_scenario *s, exec_result *r, plan_mem_fit *f)
{
	r->mem_capacity_bytes = s->gpu.hbm_bytes;
	r->mem_peak_bytes = 0;
	for (int k = 0; k < r->nclasses; k++) {
		exec_class *c = &r->classes[k];
		plan_mem_peak p;
		plan_memory_peak(s, k, &p);
		memcpy(c->mem_bytes, p.bytes, sizeof c->mem_bytes);
		c->mem_total_bytes = p.device;
		c->mem_logged_bytes = s->fw.logged_peak == PLAN_LOGGED_AFTER_PIPELINE
					      ? plan_memory_after_pipeline(s, k)
					      : 0;
		c->oom = p.verdict == PLAN_VERDICT_OOM;
		c->mem_other = plan_memory_other(s, k, false, &p);
		if (c->mem_other) {
			c->mem_other_total_bytes = p.device;
			c->mem_other_needed_bytes = p.allocated + p.bytes[PLAN_MEM_RUNTIME];
			c->mem_other_verdict = p.verdict;
			c->oom = c->oom || p.verdict == PLAN_VERDICT_OOM;
		}
		if (c->mem_total_bytes > r->mem_peak_bytes)
			r->mem_peak_bytes = c->mem_total_bytes;
	}
	plan_memory_fit(s, f);
	r->host_bytes = f->host;
	r->nvme_bytes = f->nvme;
	r->host_capacity_bytes = f->host_capacity;
	r->nvme_capacity_bytes = f->nvme_capacity;
	r->oom = f->where != PLAN_OOM_NONE;
}

/* The memory verdict on other_gpu (plan_memory_fit's). */
static void mixed_memory(const plan_mem_fit *f, exec_mixed *m)
{
	m->mem_capacity_bytes = f->other_capacity;
	m->mem_stage = f->other_stage;
	m->mem_verdict = f->other_verdict;
	m->mem_peak_bytes = f->other_peak;
	m->mem_needed_bytes = f->other_needed;
}

static void headline(const plan_scenario *s, const plan_graph *g, exec_result *r)
{
	r->tokens_per_step = g->tokens;
	r->tokens_per_s = r->step_s > 0 ? g->tokens / r->step_s : 0;
	r->model_flops = g->model_flops;
	r->hardware_flops = g->hardware_flops;
	r->peak_flops = hw_peak(&s->gpu, s->dtype);
	double denom = r->step_s * r->gpus * r->peak_flops;
	r->mfu = denom > 0 ? g->model_flops / denom : 0;
	r->hfu = denom > 0 ? g->hardware_flops / denom : 0;
	r->tflops_per_gpu = r->step_s > 0 ? g->model_flops / r->step_s / r->gpus / 1e12 : 0;
	r->bubble_fraction = 0;
	for (int k = 0; k < r->nclasses; k++) {
		double f = r->step_s > 0 ? r->classes[k].time_s[EXEC_CAT_BUBBLE] / r->step_s : 0;
		if (f > r->bubble_fraction)
			r->bubble_fraction = f;
	}
}

/* The memory curve of the most loaded class onto the timeline: its schedule
 * ops (plan_memory_curve: start, peak, end) matched in order to the class's
 * compute spans (a forward op is a run of forward spans of its micro-batch,
 * a backward op of backward, recompute and, under ZB-H1, W spans; the
 * optimizer step last), each op drawn as start -> peak at its middle -> end. */
static void memory_curve(const plan_scenario *s, const exec_result *r, exec_timeline *tl)
{
	int k = 0;
	for (int i = 1; i < r->nclasses; i++)
		if (r->classes[i].mem_total_bytes > r->classes[k].mem_total_bytes)
			k = i;
	int n = plan_schedule_steps(s->plan.schedule, plan_microbatches(&s->plan), s->plan.vpp) + 1;
	double *st = malloc((size_t)n * sizeof *st), *pk = malloc((size_t)n * sizeof *pk);
	double *en = malloc((size_t)n * sizeof *en);
	plan_op *ops = malloc((size_t)n * sizeof *ops);
	tl->mem_t = malloc((size_t)n * 3 * sizeof *tl->mem_t);
	tl->mem_b = malloc((size_t)n * 3 * sizeof *tl->mem_b);
	tl->mem_n = 0;
	tl->mem_rank = k;
	if (!st || !pk || !en || !ops || !tl->mem_t || !tl->mem_b || s->inference ||
	    plan_memory_curve(s, k, st, pk, en, n) != n) {
		free(tl->mem_t), free(tl->mem_b);
		tl->mem_t = tl->mem_b = NULL;
		free(st), free(pk), free(en), free(ops);
		return;
	}
	plan_schedule_order(s->plan.schedule, s->plan.pp, plan_microbatches(&s->plan), s->plan.vpp,
			    plan_vp_group(&s->plan), plan_warm_extra(&s->plan), k, ops);
	int warm = plan_schedule_warm(s->plan.schedule, s->plan.pp, plan_microbatches(&s->plan),
				      s->plan.vpp, plan_vp_group(&s->plan), plan_warm_extra(&s->plan), k);
	size_t i = 0;
	while (i < tl->n && tl->spans[i].rank != k)
		i++;
	for (int j = 0; j < n && i < tl->n && tl->spans[i].rank == k; j++) {
		bool step = j == n - 1;
		bool bwd = !step && ops[j].backward;
		/* moe_a2a_overlap: a forward and the backward after it run as one
		 * combined step, their spans interleaved (plan/combined.c build_emit_pair):
		 * both ops take the pair's time, the forward its first half */
		bool pair = !step && j + 2 < n && plan_warm_extra(&s->plan) > 0 && j >= warm &&
			    !bwd && ops[j + 1].backward && !ops[j + 1].weight;
		double t0 = tl->spans[i].start_s, t1 = t0 + tl->spans[i].dur_s;
		for (; i < tl->n && tl->spans[i].rank == k; i++) {
			const exec_span *x = &tl->spans[i];
			bool xb = x->kind != PLAN_TASK_FWD && x->kind != PLAN_TASK_OPTIM;
			bool xs = x->kind == PLAN_TASK_OPTIM;
			bool other = pair && xb && x->mb == ops[j + 1].mb;
			if (step ? !xs : (xs || ((xb != bwd || x->mb != ops[j].mb) && !other)))
				break;
			t1 = x->start_s + x->dur_s;
		}
		for (int q = 0; q <= (int)pair; q++) {
			double a = pair ? t0 + q * (t1 - t0) / 2 : t0, b = pair ? a + (t1 - t0) / 2 : t1;
			tl->mem_t[tl->mem_n] = a, tl->mem_b[tl->mem_n++] = st[j + q];
			tl->mem_t[tl->mem_n] = (a + b) / 2, tl->mem_b[tl->mem_n++] = pk[j + q];
			tl->mem_t[tl->mem_n] = b, tl->mem_b[tl->mem_n++] = en[j + q];
		}
		j += pair;
	}
	free(st), free(pk), free(en), free(ops);
}

int exec_run(const plan_scenario *s, exec_result *r)
{
	return exec_run_views(s, r, NULL);
}

static int run_views(const plan_scenario *s, exec_result *r, const exec_views *v);

/* With nodes of another GPU type the step's graph is built twice, on each
 * GPU (straggle.c), on one cluster: under network = flow both builds take
 * its link graph from one set (topo_graphs), unless the caller gave one. */
int exec_run_views(const plan_scenario *s, exec_result *r, const exec_views *v)
{
	if (s->nother == 0 || s->graphs || !net_uses_flow(&s->cluster))
		return run_views(s, r, v);
	plan_scenario one = *s;
	if (topo_graphs_new(&one.graphs) != SIM_OK)
		return SIM_ENOMEM;
	int rc = run_views(&one, r, v);
	topo_graphs_free(one.graphs);
	return rc;
}

static int run_views(const plan_scenario *s, exec_result *r, const exec_views *v)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(r, 0, sizeof *r);
	identity(s, r);
	plan_graph *g;
	int rc = plan_build_why(s, &g, r->error, sizeof r->error);
	if (rc != SIM_OK)
		return rc;
	/* nodes of another GPU type: the slowest replica's graph (mixed.c) */
	exec_replicas *mx = NULL;
	exec_mixed mixed;
	const plan_graph *rg = g;
	if (s->nother > 0) {
		rc = exec_mixed_open(s, g, &mixed, &mx);
		rg = mx ? &mx->gs : g;
		if (rc == SIM_ERANGE) /* the graph on other_gpu, or a replica's replay */
			snprintf(r->error, sizeof r->error,
				 "the step on [cluster] other_gpu '%s' runs past the simulator's "
				 "clock (int64 picoseconds): a task on it takes too long",
				 s->other_gpu.name);
	}
	if (rc == SIM_OK)
		rc = exec_replay_views(rg, &s->cluster, r, v);
	plan_mem_fit fit;
	if (rc == SIM_OK) {
		memory(s, r, &fit);
		headline(s, g, r);
		if (v && v->timeline)
			memory_curve(s, r, v->timeline);
	}
	if (rc == SIM_OK && mx) {
		r->mixed = mixed;
		mixed_memory(&fit, &r->mixed);
	}
	if (rc == SIM_OK && v && v->spread)
		rc = exec_spread(rg, &s->cluster, r->step_s, v->spread, &r->spread);
	exec_replicas_close(mx);
	if (rc == SIM_ERANGE && !r->error[0])
		snprintf(r->error, sizeof r->error,
			 "a sampled replay of the step's spread runs past the simulator's clock "
			 "(int64 picoseconds): its collectives' times come from [cluster] spread");
	plan_graph_free(g);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rc;
}
