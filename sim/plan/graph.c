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

void plan_schedule_order(plan_schedule sched, int p, int m, int stage, plan_op *out)
{
	int n = 0;
	if (sched == PLAN_SCHED_GPIPE) {
		for (int i = 0; i < m; i++)
			out[n++] = (plan_op){false, i};
		for (int i = 0; i < m; i++)
			out[n++] = (plan_op){true, i};
		return;
	}
	int warm = p - 1 - stage;
	if (warm > m)
		warm = m;
	int f = 0, b = 0;
	for (; f < warm; f++)
		out[n++] = (plan_op){false, f};
	while (f < m) {
		out[n++] = (plan_op){false, f++};
		out[n++] = (plan_op){true, b++};
	}
	while (b < m)
		out[n++] = (plan_op){true, b++};
}
