/* test_exec.c - replay semantics and the step breakdown on synthetic graphs
 * whose answers are known in closed form. */
#include "../../sim/exec/exec.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* A pipeline of p stages and m micro-batches, forward tf and backward tb per
 * stage split over v model chunks (interleaved when v > 1: chunk c of stage s
 * is virtual stage c*p + s), free communication (zero-duration transfers),
 * no optimizer. */
static plan_graph *pipeline_w(plan_schedule sched, int p, int m, int v, double tf, double tb,
			       double tw)
{
	plan_graph *g = plan_graph_new(p, 1);
	size_t n = (size_t)(p * v * m);
	uint32_t *ff = malloc(sizeof(uint32_t) * n), *fb = malloc(sizeof(uint32_t) * n);
	uint32_t *sf = malloc(sizeof(uint32_t) * n), *sb = malloc(sizeof(uint32_t) * n);
	int steps = plan_schedule_steps(sched, m, v);
	plan_op *ord = malloc(sizeof *ord * (size_t)steps);
	bool zb = sched == PLAN_SCHED_ZB_H1;
	for (int s = 0; s < p; s++) {
		plan_schedule_order(sched, p, m, v, s, ord);
		for (int i = 0; i < steps; i++) {
			bool b = ord[i].backward;
			int mb = ord[i].mb, vs = ord[i].chunk * p + s, k = vs * m + mb;
			double dur = ord[i].weight ? tw : b ? tb + (zb ? 0 : tw) : tf;
			plan_task t = {sim_time_from_s(dur / v), s, PLAN_STREAM_COMPUTE,
				       b ? PLAN_TASK_BWD : PLAN_TASK_FWD, 0, mb, 0, 0};
			uint32_t id = plan_graph_add(g, &t, NULL, 0);
			if (ord[i].weight)
				continue;
			(b ? fb : ff)[k] = id;
			if (b ? vs > 0 : vs < p * v - 1) {
				plan_task x = {0, s, b ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD,
					       PLAN_TASK_PP, -1, mb, 0, 0};
				(b ? sb : sf)[k] = plan_graph_add(g, &x, &id, 1);
			}
		}
	}
	for (int vs = 0; vs < p * v; vs++)
		for (int mb = 0; mb < m; mb++) {
			int k = vs * m + mb;
			if (vs > 0)
				plan_graph_edge(g, sf[k - m], ff[k]);
			if (vs < p * v - 1)
				plan_graph_edge(g, sb[k + m], fb[k]);
		}
	free(ff), free(fb), free(sf), free(sb), free(ord);
	return g;
}

static plan_graph *pipeline_v(plan_schedule sched, int p, int m, int v, double tf, double tb)
{
	return pipeline_w(sched, p, m, v, tf, tb, 0);
}

static plan_graph *pipeline(plan_schedule sched, int p, int m, double tf, double tb)
{
	return pipeline_v(sched, p, m, 1, tf, tb);
}

static net_cluster one_node(void)
{
	net_cluster c;
	memset(&c, 0, sizeof c);
	c.nodes = 1;
	c.node.gpus = 8;
	c.node.nics = 1;
	c.gpus = 8;
	c.oversubscription = 1;
	return c;
}

static void check_sums(const exec_result *r)
{
	for (int k = 0; k < r->nclasses; k++) {
		double sum = 0;
		for (int c = 0; c < EXEC_CAT_COUNT; c++)
			sum += r->classes[k].time_s[c];
		CHECK_NEAR(sum, r->step_s, 1e-9);
	}
}

/* With equal stages and free communication both GPipe and 1F1B take
 * (m + p - 1)(tf + tb): the last micro-batch's forward leaves stage 0 after
 * m*tf... and every stage is idle (p - 1)(tf + tb) in total, so the bubble
 * fraction of every stage is (p - 1)/(m + p - 1) (Narayanan et al. 2021). */
static void test_bubble(plan_schedule sched, int p, int m)
{
	double tf = 1e-3, tb = 2e-3;
	plan_graph *g = pipeline(sched, p, m, tf, tb);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, (m + p - 1) * (tf + tb), 1e-9);
	double want = (double)(p - 1) / (m + p - 1);
	for (int k = 0; k < p; k++) {
		CHECK_NEAR(r->classes[k].time_s[EXEC_CAT_BUBBLE] / r->step_s, want, 1e-9);
		CHECK_NEAR(r->classes[k].time_s[EXEC_CAT_COMPUTE], m * (tf + tb), 1e-9);
	}
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* Interleaved 1F1B with v chunks per stage (m a multiple of p): the bubble
 * shrinks by v, (p - 1)(tf + tb)/v per stage, so the step is
 * m(tf + tb) + (p - 1)(tf + tb)/v and the bubble fraction (p-1)/(v*m + p-1)
 * (Narayanan et al. 2021, section 2.2). */
static void test_interleaved(int p, int m, int v)
{
	double tf = 1e-3, tb = 2e-3;
	plan_graph *g = pipeline_v(PLAN_SCHED_1F1B, p, m, v, tf, tb);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, m * (tf + tb) + (p - 1) * (tf + tb) / v, 1e-9);
	for (int k = 0; k < p; k++)
		CHECK_NEAR(r->classes[k].time_s[EXEC_CAT_BUBBLE] / r->step_s,
			   (double)(p - 1) / (v * m + p - 1), 1e-9);
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* compute 1 ms -> TP all-reduce 0.5 ms -> compute 1 ms on one rank: step 2.5 ms,
 * exposed TP 0.5 ms, compute 2 ms, nothing else. */
static void test_tp_exposed(void)
{
	plan_graph *g = plan_graph_new(1, 8);
	plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0};
	plan_task t = {sim_time_from_s(0.5e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, 1e6f, 0};
	uint32_t x = plan_graph_add(g, &a, NULL, 0);
	uint32_t y = plan_graph_add(g, &t, &x, 1);
	plan_graph_add(g, &a, &y, 1);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 2.5e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_TP], 0.5e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_COMPUTE], 2e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_OTHER], 0, 1e-15);
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* A DP all-reduce that overlaps a later compute task is hidden; the optimizer
 * waiting for it exposes only the remainder: compute 1 ms, all-reduce 1.5 ms
 * started after the first compute, second compute 1 ms, optimizer waits until
 * 2.5 ms: exposed DP 0.5 ms. */
static void test_dp_overlap(void)
{
	plan_graph *g = plan_graph_new(1, 8);
	plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, 0, 0, 0, 0};
	plan_task d = {sim_time_from_s(1.5e-3), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, -1, 0, 0};
	plan_task o = {sim_time_from_s(0.2e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, -1, -1, 0, 0};
	uint32_t x = plan_graph_add(g, &a, NULL, 0);
	uint32_t y = plan_graph_add(g, &d, &x, 1);
	uint32_t z = plan_graph_add(g, &a, &x, 1);
	uint32_t deps[2] = {y, z};
	plan_graph_add(g, &o, deps, 2);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 2.7e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_DP], 0.5e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_OPTIMIZER], 0.2e-3, 1e-12);
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* A cycle is a plan bug and must be reported, not hang. */
static void test_cycle(void)
{
	plan_graph *g = plan_graph_new(1, 1);
	plan_task a = {1000, 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0};
	uint32_t x = plan_graph_add(g, &a, NULL, 0);
	uint32_t y = plan_graph_add(g, &a, &x, 1);
	plan_graph_edge(g, y, x);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_EINVAL);
	free(r);
	plan_graph_free(g);
}

/* The trace of a 2-stage, 2-micro-batch pipeline: one complete event per task
 * with its start time, metadata for 2 processes x 5 streams, valid framing. */
static void test_trace(void)
{
	plan_graph *g = pipeline(PLAN_SCHED_1F1B, 2, 2, 1e-3, 2e-3);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	FILE *f = tmpfile();
	exec_views v = {f, NULL, 0, NULL};
	CHECK_INT(exec_replay_views(g, &c, r, &v), SIM_OK);
	rewind(f);
	char line[512];
	int complete = 0, meta = 0, lines = 0;
	bool saw_b0 = false;
	while (fgets(line, sizeof line, f)) {
		lines++;
		complete += strstr(line, "\"ph\":\"X\"") != NULL;
		meta += strstr(line, "\"ph\":\"M\"") != NULL;
		/* stage 1 runs B0 right after F0 arrives: F0 on stage 0 ends at 1 ms,
		 * stage 1's F0 runs 1-2 ms, so its B0 starts at 2 ms = 2000 us. */
		if (strstr(line, "\"pid\":1,\"tid\":0,\"ts\":2000.000000") && strstr(line, "bwd mb0"))
			saw_b0 = true;
	}
	CHECK_INT(complete, (long long)g->ntasks);
	CHECK_INT(meta, 2 * (1 + PLAN_STREAM_COUNT));
	CHECK(saw_b0);
	CHECK_INT(lines, complete + meta + 2);
	fclose(f);
	free(r);
	plan_graph_free(g);
}

/* ZB-H1 (Qi et al. 2024): with the backward split into B (input gradients) and
 * W (weight gradients) and W held back, the gradient wave runs upstream at B
 * per stage, so with free communication the step is
 *   m(tf + tb + tw) + (p - 1)(tf + tb - tw)      (tw <= tf + tb... the paper's
 * ZB-H1 bubble, section 3, for T_W <= T_F, T_B), against 1F1B's
 *   m(tf + tb + tw) + (p - 1)(tf + tb + tw).
 * With tf = tb = tw the bubble shrinks to a third. */
static void test_zero_bubble(int p, int m)
{
	double tf = 1e-3, tb = 1e-3, tw = 1e-3;
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	plan_graph *g = pipeline_w(PLAN_SCHED_ZB_H1, p, m, 1, tf, tb, tw);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, m * (tf + tb + tw) + (p - 1) * (tf + tb - tw), 1e-9);
	check_sums(r);
	plan_graph_free(g);
	g = pipeline_w(PLAN_SCHED_1F1B, p, m, 1, tf, tb, tw);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, m * (tf + tb + tw) + (p - 1) * (tf + tb + tw), 1e-9);
	plan_graph_free(g);
	free(r);
}

/* Interference: a 10 ms compute task and a 4 ms DP collective start together
 * on one rank with interference 0.25. For 4 ms the compute progresses at 0.75
 * (3 ms of work), the remaining 7 ms at full speed: it ends at 11 ms. The
 * breakdown keeps 10 ms of compute and charges the lost 1 ms to DP. A
 * collective that starts when the compute is half done (a second case, 5 ms
 * in) slows only what is left: 5 + 4 + (5 - 3) = 11 ms as well. */
static void test_interference(void)
{
	for (int late = 0; late < 2; late++) {
		plan_graph *g = plan_graph_new(1, 1);
		g->interference = 0.25;
		plan_task c = {sim_time_from_s(10e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0};
		plan_task w = {sim_time_from_s(5e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, 0, 0};
		plan_task d = {sim_time_from_s(4e-3), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, 0, 0, 0};
		plan_graph_add(g, &c, NULL, 0);
		uint32_t wid = late ? plan_graph_add(g, &w, NULL, 0) : UINT32_MAX;
		if (late) /* the TP stand-in (5 ms) itself interferes: give it none */
			g->tasks[wid].stream = PLAN_STREAM_OFFLOAD;
		plan_graph_add(g, &d, late ? &wid : NULL, late ? 1 : 0);
		net_cluster cl = one_node();
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, 11e-3, 1e-12);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_COMPUTE], 10e-3, 1e-12);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_DP], 1e-3, 1e-12);
		check_sums(r);
		free(r);
		plan_graph_free(g);
	}
}

/* NIC sharing: a DP all-reduce and a pipeline send on one rank class, each
 * costed alone at the full rate of a NIC (25 GB/s x 0.9 = 22.5 GB/s; 1 ms
 * for 22.5 MB per NIC), start together: they progress at half speed and both
 * end at 2 ms. On a one-node cluster nothing crosses a NIC (1 ms), and a
 * transfer inside the node (TP, no NIC bytes) beside the DP one shares
 * nothing (1 ms). */
static void test_nic_sharing(void)
{
	double cap = 25e9 * 0.9;
	plan_task dp = {sim_time_from_s(1e-3), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, 0, 0,
			(float)(cap * 1e-3)};
	plan_task pp = {sim_time_from_s(1e-3), 0, PLAN_STREAM_PP_FWD, PLAN_TASK_PP, 0, 0, 0,
			(float)(cap * 1e-3)};
	plan_task tp = {sim_time_from_s(1e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, (float)1e6, 0};
	const struct {
		const plan_task *second;
		int nodes;
		double step;
	} cases[] = {{&pp, 2, 2e-3}, {&pp, 1, 1e-3}, {&tp, 2, 1e-3}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		plan_graph *g = plan_graph_new(1, 1);
		plan_graph_add(g, &dp, NULL, 0);
		plan_graph_add(g, cases[i].second, NULL, 0);
		net_cluster cl = one_node();
		cl.nodes = cases[i].nodes;
		cl.gpus = 8 * cases[i].nodes;
		cl.node.nic_Bps = 25e9;
		cl.node.nic_eff = 0.9;
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		free(r);
		plan_graph_free(g);
	}
}

int main(void)
{
	test_nic_sharing();
	test_interference();
	test_zero_bubble(2, 2);
	test_zero_bubble(4, 8);
	test_zero_bubble(8, 16);
	test_trace();
	test_bubble(PLAN_SCHED_GPIPE, 4, 8);
	test_bubble(PLAN_SCHED_1F1B, 4, 8);
	test_bubble(PLAN_SCHED_1F1B, 8, 3); /* fewer micro-batches than stages */
	test_bubble(PLAN_SCHED_1F1B, 1, 5);
	test_bubble(PLAN_SCHED_GPIPE, 16, 64);
	test_interleaved(4, 8, 2);
	test_interleaved(4, 16, 3);
	test_interleaved(8, 16, 4);
	test_tp_exposed();
	test_dp_overlap();
	test_cycle();
	return check_done();
}
