/* graph.c - the task-graph container and the pipeline schedule orders. */
#include "plan.h"

#include <stdlib.h>

plan_graph *plan_graph_new(int ranks, int rank_gpus)
{
	plan_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->ranks = ranks;
	g->rank_gpus = rank_gpus;
	return g;
}

void plan_graph_free(plan_graph *g)
{
	if (!g)
		return;
	free(g->tasks);
	free(g->edges);
	free(g);
}

int plan_graph_edge(plan_graph *g, uint32_t from, uint32_t to)
{
	if (g->nedges == g->ecap) {
		size_t cap = g->ecap ? 2 * g->ecap : 1024;
		plan_edge *e = realloc(g->edges, cap * sizeof *e);
		if (!e)
			return SIM_ENOMEM;
		g->edges = e;
		g->ecap = cap;
	}
	g->edges[g->nedges].from = from;
	g->edges[g->nedges].to = to;
	g->nedges++;
	return SIM_OK;
}

uint32_t plan_graph_add(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps)
{
	if (g->ntasks >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (g->ntasks == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 1024;
		plan_task *n = realloc(g->tasks, cap * sizeof *n);
		if (!n)
			return UINT32_MAX;
		g->tasks = n;
		g->cap = cap;
	}
	uint32_t id = (uint32_t)g->ntasks;
	g->tasks[id] = *t;
	g->ntasks++;
	for (uint32_t i = 0; i < ndeps; i++)
		if (deps[i] != UINT32_MAX && plan_graph_edge(g, deps[i], id) != SIM_OK)
			return UINT32_MAX;
	return id;
}

/* Megatron's micro-batch and chunk of the k-th forward (or backward) step. */
static plan_op interleaved_op(int k, int p, int vpp, bool backward)
{
	int in_group = k % (p * vpp), chunk = in_group / p;
	plan_op op = {backward, (k / (p * vpp)) * p + in_group % p, chunk};
	if (backward)
		op.chunk = vpp - 1 - chunk;
	return op;
}

void plan_schedule_order(plan_schedule sched, int p, int m, int vpp, int stage, plan_op *out)
{
	int n = 0, total = m * vpp;
	if (sched == PLAN_SCHED_GPIPE) {
		for (int i = 0; i < m; i++)
			out[n++] = (plan_op){false, i, 0};
		for (int i = 0; i < m; i++)
			out[n++] = (plan_op){true, i, 0};
		return;
	}
	int warm = vpp > 1 ? (p - stage - 1) * 2 + (vpp - 1) * p : p - 1 - stage;
	if (warm > total)
		warm = total;
	int f = 0, b = 0;
	for (; f < warm; f++)
		out[n++] = interleaved_op(f, p, vpp, false);
	while (f < total) {
		out[n++] = interleaved_op(f++, p, vpp, false);
		out[n++] = interleaved_op(b++, p, vpp, true);
	}
	while (b < total)
		out[n++] = interleaved_op(b++, p, vpp, true);
}
