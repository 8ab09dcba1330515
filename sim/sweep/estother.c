/* estother.c - the pre-screen of a plan on a cluster of two GPU types
 * ([cluster] other_gpu, other_nodes): which pipeline stages a node of the
 * other type holds, each estimated on its own type's view (estimate.c,
 * sweep_estimate_one). */
#include "sweep_int.h"

#include <stdlib.h>

/* The pipeline stages whose ranks some node of the other GPU type holds
 * ([cluster] other_gpu, other_nodes; a sweep may shrink the cluster below
 * them), by the plan's placement (plan_strides); whether there is one. */
static bool other_stages(const plan_scenario *s, bool *slow)
{
	const plan_spec *p = &s->plan;
	int stride[PLAN_DIMS], g = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	plan_strides(p, stride);
	int64_t ranks = (int64_t)p->tp * (p->cp > 1 ? p->cp : 1) * p->dp * p->pp;
	bool any = false;
	for (int st = 0; st < p->pp; st++)
		slow[st] = false;
	for (int n = 0; s->other_node && n < s->other_len && n < s->cluster.nodes; n++)
		for (int64_t r = (int64_t)n * g; s->other_node[n] && r < (int64_t)(n + 1) * g && r < ranks;
		     r++) {
			slow[(r / stride[PLAN_DIM_PP]) % p->pp] = true;
			any = true;
		}
	return any;
}

/* A cluster of two GPU types (exec/straggle.c: its data-parallel replicas
 * each at their own GPU's durations, the step the slowest's): a stage some
 * node of the other type holds is estimated on that type's view (its GPU,
 * its node's links, NCCL's tuner on it: straggle.c other_times), the rest
 * on the main type's, as the slowest replica would run if one held all of
 * them; the memory the main type's fit (the run's verdict over both).
 * Llama 2 70B on H100 with two A100 nodes (llama2-70b-h100-a100.ini):
 * estimated as H100 throughout, 52 % under the simulated step. */
void sweep_estimate_plan(const plan_scenario *s, sweep_estimate *e)
{
	int pp = s->plan.pp > 0 ? s->plan.pp : 1;
	bool *slow = s->other_node ? malloc((size_t)pp * sizeof *slow) : NULL;
	if (!slow || !other_stages(s, slow)) {
		free(slow);
		sweep_estimate_one(s, NULL, NULL, e);
		return;
	}
	plan_scenario o;
	plan_other_view(s, &o);
	o.other_node = NULL, o.other_len = 0;
	sweep_estimate_one(s, &o, slow, e);
	free(slow);
}
