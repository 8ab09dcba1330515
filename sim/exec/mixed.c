/* mixed.c - the step of a cluster whose nodes are not all one GPU type
 * ([cluster] other_gpu, other_nodes; exec.h "Mixed GPU types").
 *
 * The replicas are straggle.c's (exec_replicas): each stage instance takes
 * its ranks' GPU kind, every task of an instance on other_gpu its time on
 * that GPU (the graph built again on it, task for task), a mixed instance
 * the slower of the two per task; the synchronous step waits for the
 * slowest replica. Replicas of equal kinds share a replay, so a few mixed
 * nodes cost a few replays whatever dp is. The caller (run.c) replays the
 * slowest replica's graph once more with its views, so the breakdown, MFU
 * and links of the run are that replica's. What is reported beside: the
 * step with every node of the main type, the slowest replica, its stage
 * with the most compute time (with and without the other GPU); the memory
 * verdict on the other GPU's capacity for the stages its ranks hold is
 * plan_memory_fit's (plan/fit.c), which run.c puts beside. */
#include "exec_int.h"

#include <stdio.h>
#include <string.h>

/* Replica d's stage with the most compute-stream time (its compute and
 * optimizer tasks summed; x->gs holds d's durations). */
static void slowest_stage(const exec_replicas *x, exec_mixed *m)
{
	double best = -1;
	for (int k = 0; k < x->pp; k++) {
		sim_time a = 0, b = 0;
		for (size_t i = 0; i < x->g->ntasks; i++) {
			const plan_task *t = &x->g->tasks[i];
			if (t->rank != k || t->stream != PLAN_STREAM_COMPUTE)
				continue;
			a += x->tasks[i].dur;
			b += t->dur;
		}
		double s = sim_time_to_s(a);
		if (s > best) {
			best = s;
			m->stage = k;
			m->stage_s = s;
			m->stage_base_s = sim_time_to_s(b);
		}
	}
}

int exec_mixed_open(const plan_scenario *s, const plan_graph *g, exec_mixed *m,
		    exec_replicas **out)
{
	memset(m, 0, sizeof *m);
	*out = NULL;
	exec_replicas *x;
	int rc = exec_replicas_open(s, g, &x);
	if (rc != SIM_OK)
		return rc;
	long replays = 0;
	double bound = 0;
	rc = exec_replicas_step(x, NULL, false, 0, &m->step_s, &m->replica, &replays, &bound);
	if (rc != SIM_OK) {
		exec_replicas_close(x);
		return rc;
	}
	exec_replicas_set(x, NULL, m->replica);
	m->cluster_nodes = s->cluster.nodes;
	for (int n = 0; n < s->other_len && n < s->cluster.nodes; n++)
		m->nodes += s->other_node[n]; /* nother, unless a sweep shrank the cluster */
	snprintf(m->gpu, sizeof m->gpu, "%s", s->other_gpu.name);
	m->dp = x->dp;
	m->replicas = x->mixed_replicas;
	m->kinds = x->kinds;
	m->base_s = x->base_s;
	slowest_stage(x, m);
	*out = x;
	return SIM_OK;
}
