/* test_exec.c - replay semantics and the step breakdown on synthetic graphs
 * whose answers are known in closed form. */
#include "../../sim/exec/exec.h"
#include "../../sim/exec/exec_int.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pipeline of p stages and m micro-batches, forward tf and backward tb per
 * stage split over v model chunks (interleaved when v > 1: chunk c of stage s
 * is virtual stage c*p + s), transfers of x seconds each, no optimizer. With
 * sync the transfers are wired as plan_build wires synchronous p2p
 * (plan_p2p_sync): a send blocks the sender's next step, and starts only once
 * the receiver has finished the step before the one that consumes it. */
static plan_graph *pipeline_x(plan_schedule sched, int p, int m, int v, double tf, double tb,
			      double tw, double x, bool sync)
{
	plan_graph *g = plan_graph_new(p, 1);
	size_t n = (size_t)(p * v * m);
	uint32_t *ff = malloc(sizeof(uint32_t) * n), *fb = malloc(sizeof(uint32_t) * n);
	uint32_t *sf = malloc(sizeof(uint32_t) * n), *sb = malloc(sizeof(uint32_t) * n);
	uint32_t *pf = malloc(sizeof(uint32_t) * n), *pb = malloc(sizeof(uint32_t) * n);
	int steps = plan_schedule_steps(sched, m, v);
	plan_op *ord = malloc(sizeof *ord * (size_t)steps);
	bool zb = sched == PLAN_SCHED_ZB_H1;
	for (int s = 0; s < p; s++) {
		plan_schedule_order(sched, p, m, v, p, 0, s, ord);
		uint32_t prev = UINT32_MAX, pending = UINT32_MAX;
		for (int i = 0; i < steps; i++) {
			bool b = ord[i].backward;
			int mb = ord[i].mb, vs = ord[i].chunk * p + s, k = vs * m + mb;
			double dur = ord[i].weight ? tw : b ? tb + (zb ? 0 : tw) : tf;
			plan_task t = {sim_time_from_s(dur / v), s, PLAN_STREAM_COMPUTE,
				       b ? PLAN_TASK_BWD : PLAN_TASK_FWD, 0, mb, 0, 0, 0};
			uint32_t id = plan_graph_add(g, &t, sync ? &pending : NULL, sync ? 1 : 0);
			uint32_t before = prev;
			pending = UINT32_MAX;
			prev = id;
			if (ord[i].weight)
				continue;
			(b ? fb : ff)[k] = id;
			(b ? pb : pf)[k] = before;
			if (b ? vs > 0 : vs < p * v - 1) {
				plan_task xt = {sim_time_from_s(x), s,
						b ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD, PLAN_TASK_PP,
						-1, mb, 0, 0, 0};
				pending = (b ? sb : sf)[k] = plan_graph_add(g, &xt, &id, 1);
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
			if (sync && vs > 0 && pf[k] != UINT32_MAX)
				plan_graph_edge(g, pf[k], sf[k - m]);
			if (sync && vs < p * v - 1 && pb[k] != UINT32_MAX)
				plan_graph_edge(g, pb[k], sb[k + m]);
		}
	free(ff), free(fb), free(sf), free(sb), free(pf), free(pb), free(ord);
	return g;
}

static plan_graph *pipeline_w(plan_schedule sched, int p, int m, int v, double tf, double tb,
			       double tw)
{
	return pipeline_x(sched, p, m, v, tf, tb, tw, 0, false);
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

/* `nodes` such nodes, each NIC at nic_Bps x nic_eff. */
static net_cluster nodes_of(int nodes, double nic_Bps, double nic_eff)
{
	net_cluster c = one_node();
	c.nodes = nodes;
	c.gpus = 8 * nodes;
	c.node.nic_Bps = nic_Bps;
	c.node.nic_eff = nic_eff;
	return c;
}

/* 4 nodes of 16 GPUs and 16 NICs of 25 GB/s x 0.96 on a fat tree at
 * oversubscription o (test_uplink_sharing, test_uplink_units). */
static net_cluster fat_tree_4x16(double o)
{
	net_cluster c = nodes_of(4, 25e9, 0.96);
	c.node.gpus = 16;
	c.node.nics = 16;
	c.gpus = 64;
	c.fabric = NET_FABRIC_FAT_TREE;
	c.oversubscription = o;
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

static int count_kind(const plan_graph *g, int rank, plan_task_kind k)
{
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		n += g->tasks[i].rank == rank && g->tasks[i].kind == k;
	return n;
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
	plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
	plan_task t = {sim_time_from_s(0.5e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, 1e6f, 0, 0};
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
	plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, 0, 0, 0, 0, 0};
	plan_task d = {sim_time_from_s(1.5e-3), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, -1, 0, 0, 0};
	plan_task o = {sim_time_from_s(0.2e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, -1, -1, 0, 0, 0};
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
	plan_task a = {1000, 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
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
	exec_views v = {f, NULL, 0, NULL, NULL, false};
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

/* Synchronous p2p with free transfers leaves GPipe's and 1F1B's math alone:
 * (m + p - 1)(tf + tb). A rendezvous only waits for the receiver's previous
 * step, and with equal stages that step ends no later than the sender's (in
 * 1F1B's steady state it is the backward whose gradient the sender needs next
 * anyway). Not so for ZB-H1: a blocking B send holds the W behind it until
 * the upstream stage is ready, and with tf = tw = 1 ms, tb = 2 ms, p = 4,
 * m = 8 the step grows from the paper's m(tf + tb + tw) + (p - 1)(tf + tb -
 * tw) = 38 ms to 44 ms; so plan_p2p_sync keeps ZB-H1 async by default (an
 * implementation that reaches its bubble overlaps its sends). */
static void test_sync_free(void)
{
	double tf = 1e-3, tb = 2e-3, tw = 1e-3;
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	const struct {
		plan_schedule sched;
		int p, m;
		double step;
	} cases[] = {{PLAN_SCHED_GPIPE, 4, 8, 11 * (tf + tb)},
		     {PLAN_SCHED_1F1B, 4, 8, 11 * (tf + tb)},
		     {PLAN_SCHED_1F1B, 8, 3, 10 * (tf + tb)},
		     {PLAN_SCHED_1F1B, 2, 2, 3 * (tf + tb)},
		     {PLAN_SCHED_ZB_H1, 4, 8, 44e-3}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool zb = cases[i].sched == PLAN_SCHED_ZB_H1;
		plan_graph *g = pipeline_x(cases[i].sched, cases[i].p, cases[i].m, 1, tf, tb,
					   zb ? tw : 0, 0, true);
		CHECK_INT(exec_replay(g, &c, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		check_sums(r);
		plan_graph_free(g);
	}
	plan_spec p = {.pp = 4, .vpp = 1, .schedule = PLAN_SCHED_ZB_H1};
	CHECK(!plan_p2p_sync(&p));
	p.schedule = PLAN_SCHED_1F1B;
	CHECK(plan_p2p_sync(&p));
	p.vpp = 2; /* Megatron-Core overlaps the interleaved schedule's p2p */
	CHECK(!plan_p2p_sync(&p));
	p.p2p = PLAN_P2P_SYNC;
	CHECK(plan_p2p_sync(&p));
	free(r);
}

/* A blocking send on 2 stages, 2 micro-batches of 1F1B, forward f, backward
 * b, every transfer x (stage 0: F0 F1 B0 B1, stage 1: F0 B0 F1 B1).
 * Async: stage 0 runs F0 [0, f] and F1 [f, 2f] back to back; stage 1 runs F0
 * at f + x, B0 until 2f + x + b, F1 at once (F1 arrived at 2f + x), B1 until
 * 3f + x + 2b; its gradient reaches stage 0 at 3f + 2x + 2b, and B1 ends the
 * step at 3f + 2x + 3b.
 * Sync: F0's send blocks stage 0, so F1 starts at f + x (x later: the send is
 * on the sender's critical path), and F1's send waits for stage 1's B0 (its
 * step before F1) to end at 2f + x + b, so stage 1's F1 starts at 2f + 2x + b
 * instead of 2f + x + b: the step is 3f + 3x + 3b, exactly one transfer more.
 * Stage 0's wait for stage 1 before its F1 send counts as bubble, the send
 * itself as exposed pp. */
static void test_sync_blocking(void)
{
	double f = 1e-3, b = 2e-3, x = 0.25e-3;
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	for (int sync = 0; sync < 2; sync++) {
		plan_graph *g = pipeline_x(PLAN_SCHED_1F1B, 2, 2, 1, f, b, 0, x, sync);
		exec_timeline tl = {0};
		exec_views v = {NULL, NULL, 0, &tl, NULL, false};
		CHECK_INT(exec_replay_views(g, &c, r, &v), SIM_OK);
		CHECK_NEAR(r->step_s, 3 * f + 3 * b + (sync ? 3 : 2) * x, 1e-9);
		CHECK_INT(tl.n, 8);
		CHECK_NEAR(tl.spans[1].start_s, sync ? f + x : f, 1e-9); /* stage 0's F1 */
		CHECK_NEAR(tl.spans[6].start_s, 2 * f + (sync ? 2 : 1) * x + b, 1e-9); /* stage 1's F1 */
		check_sums(r);
		exec_timeline_free(&tl);
		plan_graph_free(g);
	}
	free(r);
}

/* The receiver's all-gather of a scatter-gather transfer waits for the
 * transfer: stage 0 computes 2 ms, sends 1 ms; stage 1's TP all-gather
 * (0.5 ms) waits for the send, then its compute runs. Stage 1's 3.5 ms gap is
 * 2 ms bubble (stage 0 still computing), 1 ms exposed pp and 0.5 ms exposed
 * tp, not 3.5 ms of tp. */
static void test_gather_gap(void)
{
	plan_graph *g = plan_graph_new(2, 8);
	plan_task a = {sim_time_from_s(2e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
	plan_task x = {sim_time_from_s(1e-3), 0, PLAN_STREAM_PP_FWD, PLAN_TASK_PP, -1, 0, 0, 0, 0};
	plan_task t = {sim_time_from_s(0.5e-3), 1, PLAN_STREAM_TP, PLAN_TASK_TP, -1, 0, 0, 0, 0};
	plan_task b = {sim_time_from_s(2e-3), 1, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
	uint32_t ia = plan_graph_add(g, &a, NULL, 0);
	uint32_t ix = plan_graph_add(g, &x, &ia, 1);
	uint32_t it = plan_graph_add(g, &t, &ix, 1);
	plan_graph_add(g, &b, &it, 1);
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 5.5e-3, 1e-12);
	CHECK_NEAR(r->classes[1].time_s[EXEC_CAT_BUBBLE], 2e-3, 1e-12);
	CHECK_NEAR(r->classes[1].time_s[EXEC_CAT_PP], 1e-3, 1e-12);
	CHECK_NEAR(r->classes[1].time_s[EXEC_CAT_TP], 0.5e-3, 1e-12);
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* The interference tests' graph: one rank, interference 0.25, a 10 ms
 * compute task; and their 4 ms DP collective, no dependence. */
static plan_graph *compute_10ms(void)
{
	plan_graph *g = plan_graph_new(1, 1);
	g->interference = 0.25;
	plan_task c = {sim_time_from_s(10e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
	plan_graph_add(g, &c, NULL, 0);
	return g;
}

static plan_task dp_4ms(void)
{
	return (plan_task){sim_time_from_s(4e-3), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, 0, 0, 0, 0};
}

/* Replay the interference tests' one-rank graph on one node and free it:
 * the step, 10 ms of compute kept whole, and (dp_s >= 0) the time the
 * compute lost charged to DP. */
static void check_one_rank(plan_graph *g, double step_s, double dp_s)
{
	net_cluster cl = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
	CHECK_NEAR(r->step_s, step_s, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_COMPUTE], 10e-3, 1e-12);
	if (dp_s >= 0)
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_DP], dp_s, 1e-12);
	check_sums(r);
	free(r);
	plan_graph_free(g);
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
		plan_graph *g = compute_10ms();
		plan_task w = {sim_time_from_s(5e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, 0, 0, 0};
		plan_task d = dp_4ms();
		uint32_t wid = late ? plan_graph_add(g, &w, NULL, 0) : UINT32_MAX;
		if (late) /* the TP stand-in (5 ms) itself interferes: give it none */
			g->tasks[wid].stream = PLAN_STREAM_OFFLOAD;
		plan_graph_add(g, &d, late ? &wid : NULL, late ? 1 : 0);
		check_one_rank(g, 11e-3, 1e-3);
	}
}

/* A collective's own SM share (plan_graph.sm_scale, replay.c): the same
 * 10 ms compute beside a 4 ms DP collective of scale 0.5 (half the 16
 * channels the interference stands for) progresses at 1 - 0.25 x 0.5 =
 * 0.875 for 4 ms (3.5 ms of work), then 6.5 ms alone: 10.5 ms. With a
 * second collective of scale 2 on the TP stream from 0 to 2 ms the larger
 * share holds while both run: 2 ms at 0.5 (1 ms of work), 2 ms at 0.875
 * (1.75 ms), then 7.25 ms alone: 11.25 ms. */
static void test_interference_scale(void)
{
	for (int both = 0; both < 2; both++) {
		plan_graph *g = compute_10ms();
		plan_task d = dp_4ms();
		plan_task t = {sim_time_from_s(2e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, 0, 0, 0};
		uint32_t did = plan_graph_add(g, &d, NULL, 0);
		CHECK_INT(plan_graph_set_scale(g, did, 0.5), SIM_OK);
		if (both)
			CHECK_INT(plan_graph_set_scale(g, plan_graph_add(g, &t, NULL, 0), 2.0), SIM_OK);
		CHECK_INT(plan_graph_set_scale(g, 99, 1.0), SIM_EINVAL);
		check_one_rank(g, both ? 11.25e-3 : 10.5e-3, -1);
	}
}

/* DeepEP's kernels beside NCCL's (replay.c): interference 0.25 for NCCL's
 * collectives, DeepEP's all-to-all holding a share 0.15 of the SMs
 * (plan_graph ep_deep, ep_share). A 10 ms compute task, a 4 ms EP task and
 * a 2 ms DP collective start together: the SMs they hold add up, so the
 * compute runs at 1 - 0.40 = 0.60 for 2 ms (1.2 ms of work), at 0.85 for
 * the next 2 ms (1.7 ms), then at full rate for the 7.1 ms left: it ends
 * at 11.1 ms, 1.1 ms lost to the two. With the EP task one of NCCL's
 * collectives (ep_deep false) the two count once: 0.75 for 4 ms (3 ms of
 * work), then 7 ms: 11 ms. Shares past 0.9 leave the rate at 0.1: a 1 ms
 * compute beside 0.5 + 0.6 for 5 ms does 0.5 ms, then 0.5 ms: 5.5 ms.
 * A compute task with a rate of its own beside DeepEP (plan_graph
 * deep_rate 0.5: its GEMMs' waves on the SMs left) loses 0.5 instead of
 * ep_share: 10 ms beside 4 ms of DeepEP and 2 ms of NCCL at 1 - 0.75 for 2
 * ms (0.5 ms of work), 0.5 for 2 ms (1 ms), then 8.5 ms: 12.5 ms. */
static void test_deepep_interference(void)
{
	const struct {
		bool deep;
		double i, e, c, ep, dp, step, rate;
	} cases[] = {{true, 0.25, 0.15, 10e-3, 4e-3, 2e-3, 11.1e-3, 0},
		     {false, 0.25, 0.15, 10e-3, 4e-3, 2e-3, 11e-3, 0},
		     {true, 0.5, 0.6, 1e-3, 5e-3, 5e-3, 5.5e-3, 0},
		     {true, 0.25, 0.15, 10e-3, 4e-3, 2e-3, 12.5e-3, 0.5}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		plan_graph *g = plan_graph_new(1, 1);
		g->interference = cases[k].i;
		g->ep_deep = cases[k].deep;
		g->ep_share = cases[k].e;
		plan_task c = {sim_time_from_s(cases[k].c), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
		plan_task e = {sim_time_from_s(cases[k].ep), 0, PLAN_STREAM_EP, PLAN_TASK_EP, 0, 0, 0, 0, 0};
		plan_task d = {sim_time_from_s(cases[k].dp), 0, PLAN_STREAM_DP, PLAN_TASK_DP, 0, 0, 0, 0, 0};
		uint32_t id = plan_graph_add(g, &c, NULL, 0);
		plan_graph_add(g, &e, NULL, 0);
		plan_graph_add(g, &d, NULL, 0);
		if (cases[k].rate > 0)
			CHECK_INT(plan_graph_set_deep(g, id, cases[k].rate), SIM_OK);
		net_cluster cl = one_node();
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[k].step, 1e-12);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_COMPUTE], cases[k].c, 1e-12);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_EP] + r->classes[0].time_s[EXEC_CAT_DP],
			   cases[k].step - cases[k].c, 1e-12);
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
			(float)(cap * 1e-3), 0};
	plan_task pp = {sim_time_from_s(1e-3), 0, PLAN_STREAM_PP_FWD, PLAN_TASK_PP, 0, 0, 0,
			(float)(cap * 1e-3), 0};
	plan_task tp = {sim_time_from_s(1e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0, (float)1e6, 0, 0};
	const struct {
		const plan_task *second;
		int nodes;
		double step;
	} cases[] = {{&pp, 2, 2e-3}, {&pp, 1, 1e-3}, {&tp, 2, 1e-3}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		plan_graph *g = plan_graph_new(1, 1);
		plan_graph_add(g, &dp, NULL, 0);
		plan_graph_add(g, cases[i].second, NULL, 0);
		net_cluster cl = nodes_of(cases[i].nodes, 25e9, 0.9);
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		free(r);
		plan_graph_free(g);
	}
}

/* A pipeline transfer shares the NICs of the stage it lands on too
 * (replay.c pp_peer, nic_change): 2 nodes, NICs of 25 GB/s x 0.9 (cap B =
 * 22.5 GB/s); each transfer costed alone at a full NIC (demand B, 1 ms for
 * the pipeline send P, 4 ms for a data-parallel transfer D).
 *  a. stage 1 sends its gradient back (PP_BWD) to stage 0 while stage 0's
 *     D runs: stage 0's NICs carry D out and P in, 2 B > B: both at 1/2.
 *     P ends at 2 ms, D has done 1 ms of its 4 and ends at 2 + 3 = 5 ms
 *     (on stage 1's own NICs P is alone: its share there is 1).
 *  b. the same with the activation sent forward (PP_FWD) from stage 0 to
 *     stage 1's D: 5 ms.
 *  c. three stages, stage 1's D with stage 0's activation and stage 2's
 *     gradient landing on it: 3 B over B, each at 1/3; both sends end at 3
 *     ms, D with 1 ms done, then 3 ms alone: 6 ms.
 *  d. model chunks: the last stage's forward send lands on stage 0 (virtual
 *     stage pp - 1 + 1 is stage 0's next chunk), where D runs: 5 ms.
 *  e. a send landing on a stage with nothing on its NICs: 1 ms and D on a
 *     third stage 4 ms, no sharing: 4 ms.
 *  f. full duplex: stage 0's activation out and stage 1's gradient in cross
 *     (each stage sends one and receives the other): no pool holds both,
 *     1 ms (with no D; the slot's -1 rank is none).
 * Before the receiver's NICs were shared, a-d took 4 ms. The categories sum
 * to the step. */
static void test_pp_receiver_sharing(void)
{
	const double B = 25e9 * 0.9;
	const struct {
		int ranks;
		int d_rank[2];                     /* D's ranks (-1 none) */
		int p_rank[2], p_bwd[2];           /* the sends' ranks (-1 none), backward */
		double step;
	} cases[] = {
		{2, {0, -1}, {1, -1}, {1, 0}, 5e-3},
		{2, {1, -1}, {0, -1}, {0, 0}, 5e-3},
		{3, {1, -1}, {0, 2}, {0, 1}, 6e-3},
		{2, {0, -1}, {1, -1}, {0, 0}, 5e-3},
		{3, {2, -1}, {0, -1}, {0, 0}, 4e-3},
		{2, {-1, -1}, {0, 1}, {0, 1}, 1e-3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		plan_graph *g = plan_graph_new(cases[i].ranks, 8);
		for (int k = 0; k < 2; k++)
			if (cases[i].d_rank[k] >= 0) {
				plan_task d = {sim_time_from_s(4e-3), cases[i].d_rank[k], PLAN_STREAM_DP,
					       PLAN_TASK_DP, -1, -1, 0, (float)(B * 4e-3), 0};
				plan_graph_add(g, &d, NULL, 0);
			}
		for (int k = 0; k < 2; k++)
			if (cases[i].p_rank[k] >= 0) {
				plan_task p = {sim_time_from_s(1e-3), cases[i].p_rank[k],
					       cases[i].p_bwd[k] ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD,
					       PLAN_TASK_PP, -1, 0, 0, (float)(B * 1e-3), 0};
				plan_graph_add(g, &p, NULL, 0);
			}
		net_cluster cl = nodes_of(2, 25e9, 0.9);
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		check_sums(r);
		free(r);
		plan_graph_free(g);
	}
}

/* Uplink sharing (replay.c nic_change): 4 nodes of 16 GPUs and 16 NICs of
 * 25 GB/s x 0.96 (cap B = 24 GB/s, also each fabric uplink's rate) on a fat
 * tree oversubscribed 2:1. Rank class 0 starts a DP transfer D (4 ms) and a
 * pipeline send P (1 ms) together; demands are per NIC (nic_bytes / dur)
 * and per busiest uplink (uplink_bytes / dur), in units of B:
 *  a. the closed forms' pair: each at 1/2 of a NIC and a full uplink (o x
 *     its NIC share). NICs: 1/2 + 1/2 = 1, not past B: no NIC sharing.
 *     Uplinks: 1 + 1 = 2 > 1: both at 1/2. P ends at 2 ms, D has done 1 ms of
 *     its 4 and ends at 2 + 3 = 5 ms. Each lost 2 ms x (1 - 1/2) = 1 ms to
 *     the uplinks; the step with them unshared is 4 ms.
 *  b. a: at oversubscription 1 the uplinks are not shared: 4 ms, nothing
 *     reported (oversub 0).
 *  c. the largest demand as the floor: D at 1.5 uplinks (costed alone at
 *     that rate), P at 1/2: the share is 1.5 / 2 = 0.75; P ends at 1/0.75
 *     = 4/3 ms with D at 1 ms of work, D at 4/3 + 3 = 13/3 ms. D alone
 *     at 1.5: 4 ms (one transfer is never slowed).
 *  d. the smaller share wins and nothing is counted twice: D at a full NIC
 *     and no uplink bytes (its flows stay under one leaf), P at a full NIC
 *     and a full uplink: the NIC share 1/2 sets both (P alone on the
 *     uplinks runs at its own rate): P ends at 2 ms, D at 2 + 3 = 5 ms,
 *     nothing lost to the uplinks.
 * Times in whole picoseconds (retime rounds an end to the nearest): within
 * 1e-9 of the step.
 * The breakdown: rank 0 has no compute task, so the step is "other" time;
 * the categories sum to the step. */
static void test_uplink_sharing(void)
{
	const double B = 25e9 * 0.96;
	const struct {
		double dn, du, pn, pu, o; /* demands in B, oversubscription */
		bool with_p;
		double step, lost_dp, lost_pp, free_step;
	} cases[] = {
		{0.5, 1, 0.5, 1, 2, true, 5e-3, 1e-3, 1e-3, 4e-3},
		{0.5, 1, 0.5, 1, 1, true, 4e-3, 0, 0, 0},
		{0.75, 1.5, 0.25, 0.5, 2, true, 13e-3 / 3, 1e-3 / 3, 1e-3 / 3, 4e-3},
		{0.75, 1.5, 0, 0, 2, false, 4e-3, 0, 0, 0},
		{1, 0, 1, 1, 2, true, 5e-3, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double td = 4e-3, tq = 1e-3;
		plan_task d = {sim_time_from_s(td), 0, PLAN_STREAM_DP, PLAN_TASK_DP, -1, -1, 0,
			       (float)(cases[i].dn * B * td), (float)(cases[i].du * B * td)};
		plan_task p = {sim_time_from_s(tq), 0, PLAN_STREAM_PP_BWD, PLAN_TASK_PP, -1, 0, 0,
			       (float)(cases[i].pn * B * tq), (float)(cases[i].pu * B * tq)};
		plan_graph *g = plan_graph_new(1, 16);
		plan_graph_add(g, &d, NULL, 0);
		if (cases[i].with_p)
			plan_graph_add(g, &p, NULL, 0);
		net_cluster cl = fat_tree_4x16(cases[i].o);
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		CHECK_NEAR(r->uplinks.oversub, cases[i].o > 1 ? cases[i].o : 0, 0);
		CHECK_NEAR(r->uplinks.lost_s[EXEC_CAT_DP], cases[i].lost_dp, 1e-9);
		CHECK_NEAR(r->uplinks.lost_s[EXEC_CAT_PP], cases[i].lost_pp, 1e-9);
		CHECK_NEAR(r->uplinks.free_step_s, cases[i].free_step, 1e-9);
		CHECK_INT(exec_uplinks_slowed(&r->uplinks), cases[i].lost_dp > 0);
		check_sums(r);
		free(r);
		plan_graph_free(g);
	}
}

/* Uplinks shared across rank classes (plan_graph.up_unit, replay.c pool_up):
 * the fat tree of test_uplink_sharing (2:1, cap B), two rank classes, each
 * starting a DP transfer of 4 ms at half a NIC and a full uplink (the
 * closed forms' demand at o = 2). Each class its own uplinks (no up_unit,
 * or units 0 and 1): each alone on them, 4 ms. Both under unit 0 (two
 * stages on one leaf), or the second spanning units 0 and 1: their
 * demands sum to two uplinks' rate on unit 0, each at 1/2: 8 ms, and the
 * step with the uplinks unshared 4 ms. */
static void test_uplink_units(void)
{
	const double B = 25e9 * 0.96, td = 4e-3;
	const struct {
		int u[4]; /* first, last unit of class 0 and of class 1; -1: none */
		double step;
	} cases[] = {
		{{-1, -1, -1, -1}, 4e-3},
		{{0, 0, 1, 1}, 4e-3},
		{{0, 0, 0, 0}, 8e-3},
		{{0, 0, 0, 1}, 8e-3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		plan_graph *g = plan_graph_new(2, 16);
		for (int k = 0; k < 2; k++) {
			plan_task d = {sim_time_from_s(td), k, PLAN_STREAM_DP, PLAN_TASK_DP, -1, -1, 0,
				       (float)(0.5 * B * td), (float)(1.0 * B * td)};
			plan_graph_add(g, &d, NULL, 0);
		}
		if (cases[i].u[0] >= 0) {
			g->up_unit = malloc(4 * sizeof *g->up_unit);
			memcpy(g->up_unit, cases[i].u, 4 * sizeof *g->up_unit);
		}
		net_cluster cl = fat_tree_4x16(2);
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &cl, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[i].step, 1e-9);
		CHECK_NEAR(r->uplinks.free_step_s, cases[i].step > td * 1.5 ? td : 0, 1e-9);
		check_sums(r);
		free(r);
		plan_graph_free(g);
	}
}

/* tp_comm_overlap's pair (plan_build, tp_overlap_at): compute A (1 ms), then a
 * GEMM of g and a TP collective of c started together when A ends, then
 * compute B (1 ms) waiting for both. Without interference the pair takes
 * max(g, c): the collective adds max(0, c - g) where run in series it adds c.
 * With interference i the GEMM progresses at 1 - i while the collective runs,
 * so the pair takes max(c, g + i*c) (GEMM done after the collective: c at rate
 * 1 - i, then g - (1 - i)c at full rate; else the collective ends last): TP
 * gets what the pair adds over g, the interference included:
 *   g 4, c 2, i 0    -> step 6,   TP 0
 *   g 4, c 6, i 0    -> step 8,   TP 2     (c - g)
 *   g 4, c 2, i 0.25 -> step 6.5, TP 0.5   (i*c)
 *   g 4, c 6, i 0.25 -> step 8,   TP 2     (GEMM ends at 4/0.75 < 6)
 * against 1 + 4 + c + 1 in series (the test_tp_exposed shape). A quiet
 * collective (plan_graph_set_quiet: a userbuffer exchange by the copy
 * engines, or on SMs the GEMM's time already leaves) does not slow it:
 *   g 4, c 2, i 0.25, quiet -> step 6, TP 0 (max(g, c), as with i = 0). */
static void test_tp_overlap_pair(void)
{
	const struct {
		double g, c, i, step, tp;
		bool quiet;
	} cases[] = {{4, 2, 0, 6, 0, false},
		     {4, 6, 0, 8, 2, false},
		     {4, 2, 0.25, 6.5, 0.5, false},
		     {4, 6, 0.25, 8, 2, false},
		     {4, 2, 0.25, 6, 0, true},
		     {4, 6, 0.25, 8, 2, true}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		plan_graph *g = plan_graph_new(1, 8);
		g->interference = cases[k].i;
		plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 0, 0, 0, 0, 0};
		plan_task gm = a;
		gm.dur = sim_time_from_s(cases[k].g * 1e-3);
		plan_task t = {sim_time_from_s(cases[k].c * 1e-3), 0, PLAN_STREAM_TP, PLAN_TASK_TP, 0, 0,
			       1e6f, 0, 0};
		uint32_t x = plan_graph_add(g, &a, NULL, 0);
		uint32_t pair[2] = {plan_graph_add(g, &t, &x, 1), plan_graph_add(g, &gm, &x, 1)};
		plan_graph_add(g, &a, pair, 2);
		if (cases[k].quiet)
			CHECK_INT(plan_graph_set_quiet(g, pair[0]), SIM_OK);
		net_cluster c = one_node();
		exec_result *r = calloc(1, sizeof *r);
		CHECK_INT(exec_replay(g, &c, r), SIM_OK);
		CHECK_NEAR(r->step_s, cases[k].step * 1e-3, 1e-9);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_TP], cases[k].tp * 1e-3, 1e-9);
		CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_COMPUTE], (2 + cases[k].g) * 1e-3, 1e-9);
		check_sums(r);
		free(r);
		plan_graph_free(g);
	}
}

/* Load the quickstart scenario with overrides, build its graph (*g, if
 * non-NULL) and replay it into *r. */
static void quickstart(const char *const *set, size_t n, plan_graph **g, exec_result *r)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, n, d, &s), SIM_OK);
	if (s && g)
		CHECK_INT(plan_build(s, g), SIM_OK);
	if (s)
		CHECK_INT(exec_run(s, r), SIM_OK);
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* The single predecessor of task i, or UINT32_MAX when it has none or several. */
/* Per task of g, in one pass over the edges: its only predecessor
 * (UINT32_MAX when it has none or several), the first compute task whose only
 * predecessor it is (UINT32_MAX: none), and whether a compute task waits for
 * it. Linear, so the quickstart graph's checks stay fast under ASan. */
typedef struct task_links {
	uint32_t *pred, *first_compute_child;
	bool *feeds_compute;
} task_links;

static bool task_links_make(const plan_graph *g, task_links *l)
{
	size_t n = g->ntasks;
	int *count = calloc(n + 1, sizeof *count);
	l->pred = malloc((n + 1) * sizeof *l->pred);
	l->first_compute_child = malloc((n + 1) * sizeof *l->first_compute_child);
	l->feeds_compute = calloc(n + 1, sizeof *l->feeds_compute);
	if (!count || !l->pred || !l->first_compute_child || !l->feeds_compute) {
		free(count);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		l->pred[i] = l->first_compute_child[i] = UINT32_MAX;
	for (size_t e = 0; e < g->nedges; e++) {
		uint32_t from = g->edges[e].from, to = g->edges[e].to;
		count[to]++;
		l->pred[to] = from;
		l->feeds_compute[from] |= g->tasks[to].stream == PLAN_STREAM_COMPUTE;
	}
	for (size_t i = 0; i < n; i++)
		if (count[i] != 1)
			l->pred[i] = UINT32_MAX;
	for (size_t k = 0; k < n; k++) {
		uint32_t p = l->pred[k];
		if (p != UINT32_MAX && g->tasks[k].stream == PLAN_STREAM_COMPUTE &&
		    l->first_compute_child[p] == UINT32_MAX)
			l->first_compute_child[p] = (uint32_t)k;
	}
	free(count);
	return true;
}

static void task_links_free(task_links *l)
{
	free(l->pred);
	free(l->first_compute_child);
	free(l->feeds_compute);
}

/* tp_comm_overlap in plan_build (quickstart: tp 2 with SP, so per layer and
 * micro-batch 4 SP collectives forward and 4 backward, each beside a GEMM):
 * the same TP tasks as without it, in the same TP-stream order; every one of a
 * transformer layer starts with a compute task (the GEMM: same single
 * predecessor) and, as Transformer Engine's userbuffers run them
 * (plan_ub_kind; the GEMMs are GPU-bound here, so their task is their GPU
 * time): an all-gather's ring exchange is one of its GEMM's tp chunks longer
 * (its duration / 2: 4 per layer and micro-batch, the forward's two and the
 * backward's output-gradient gathers), the forward reduce-scatter's pipeline
 * one of 4 chunks (/ 4: 2), the backward's bulk reduce-scatter beside its
 * wgrad no longer than alone (2); a later compute task waits for the
 * collective; the step gets shorter and TP's exposed time drops. */
static void test_tp_overlap_build(void)
{
	/* without tp_comm_overlap every SP collective blocks (tp_dgrad_async =
	 * never: no reduce-scatter beside its wgrad), the baseline the chunked
	 * pairs are measured against */
	const char *set[] = {"parallel.sequence_parallel=true", "cluster.network=alpha-beta",
			     "framework.tp_dgrad_async=never", "parallel.tp_comm_overlap=false"};
	plan_graph *off = NULL, *on = NULL;
	exec_result *r0 = calloc(1, sizeof *r0), *r1 = calloc(1, sizeof *r1);
	quickstart(set, 4, &off, r0);
	set[3] = "parallel.tp_comm_overlap=true";
	quickstart(set, 4, &on, r1);
	task_links lk = {0};
	if (off && on && CHECK(task_links_make(on, &lk))) {
		size_t j = 0;
		int tp = 0, paired = 0, ring = 0, pipe = 0, bulk = 0, joined = 0;
		for (size_t i = 0; i < on->ntasks; i++) {
			const plan_task *t = &on->tasks[i];
			if (t->kind != PLAN_TASK_TP || t->rank != 0)
				continue;
			while (j < off->ntasks &&
			       (off->tasks[j].kind != PLAN_TASK_TP || off->tasks[j].rank != 0))
				j++;
			if (j == off->ntasks)
				break;
			const plan_task *u = &off->tasks[j++];
			tp++;
			if (t->layer < 0)
				continue;
			uint32_t p = lk.pred[i];
			uint32_t gemm = p == UINT32_MAX ? UINT32_MAX : lk.first_compute_child[p];
			if (gemm == UINT32_MAX)
				continue;
			paired++;
			double c = sim_time_to_s(u->dur), gd = sim_time_to_s(on->tasks[gemm].dur);
			double d = sim_time_to_s(t->dur);
			ring += fabs(d - (c + gd / 2)) < 1e-9;
			pipe += fabs(d - (c + gd / 4)) < 1e-9;
			bulk += fabs(d - c) < 1e-9;
			joined += lk.feeds_compute[i];
		}
		CHECK_INT(tp, count_kind(off, 0, PLAN_TASK_TP));
		CHECK_INT(tp, count_kind(on, 0, PLAN_TASK_TP));
		CHECK_INT(paired, 8 * 12 * 8); /* micro-batches x layers x 8 */
		CHECK_INT(ring, 8 * 12 * 4);
		CHECK_INT(pipe, 8 * 12 * 2);
		CHECK_INT(bulk, 8 * 12 * 2);
		CHECK_INT(joined, paired);
		CHECK(r1->step_s < r0->step_s);
		CHECK(r1->classes[0].time_s[EXEC_CAT_TP] < 0.6 * r0->classes[0].time_s[EXEC_CAT_TP]);
		check_sums(r1);
	}
	task_links_free(&lk);
	plan_graph_free(off);
	plan_graph_free(on);
	free(r0);
	free(r1);
}

/* Stage 0's DP tasks without a predecessor (the step-start gathers) and the
 * edges from them to a first forward (micro-batch 0). */
static void free_gathers(const plan_graph *g, int *free_dp, int *waiting)
{
	*free_dp = *waiting = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].rank == 0 && g->tasks[i].kind == PLAN_TASK_DP) {
			bool pred = false;
			for (size_t e = 0; e < g->nedges; e++)
				pred |= g->edges[e].to == i;
			if (pred)
				continue;
			(*free_dp)++;
			for (size_t e = 0; e < g->nedges; e++)
				if (g->edges[e].from == i) {
					const plan_task *t = &g->tasks[g->edges[e].to];
					*waiting += t->kind == PLAN_TASK_FWD && t->mb == 0;
				}
		}
}

/* overlap_param_gather in plan_build (quickstart with ZeRO-1, dp 4, with
 * overlap_grad_reduce, which Megatron-Core requires beside it: d98e8a64
 * megatron/training/arguments.py:1024-1029). With one bucket per stage the
 * stage's whole gather precedes its first forward, as after the optimizer
 * without the flag: the same bytes fully exposed, the same step. With a
 * bucket per layer (bucket_size 1 B, buckets closing at layers' ends:
 * grad_bucket_split = layer) stage 0's 12 gathers start the step
 * with no predecessor (stage 1, a later pipeline rank, keeps one bucket:
 * plan/buckets.c chunk_bucket_bytes), each layer's first forward waits for
 * one, and all but the first layer's hide under the forward: a shorter step
 * and less exposed DP time. */
static void test_param_gather_build(void)
{
	const char *set[] = {"parallel.zero=1", "cluster.network=alpha-beta",
			     "parallel.overlap_param_gather=false", "parallel.bucket_size=1 TB",
			     "parallel.overlap_grad_reduce=true", "framework.grad_bucket_split=layer"};
	exec_result *r = calloc(4, sizeof *r);
	plan_graph *g = NULL;
	quickstart(set, 6, NULL, &r[0]);
	set[2] = "parallel.overlap_param_gather=true";
	quickstart(set, 6, NULL, &r[1]);
	CHECK_NEAR(r[1].step_s, r[0].step_s, 1e-9);
	set[3] = "parallel.bucket_size=1 B";
	quickstart(set, 6, &g, &r[3]);
	set[2] = "parallel.overlap_param_gather=false";
	quickstart(set, 6, NULL, &r[2]);
	CHECK(r[3].step_s < r[2].step_s);
	CHECK(r[3].classes[0].time_s[EXEC_CAT_DP] < r[2].classes[0].time_s[EXEC_CAT_DP]);
	check_sums(&r[3]);
	/* the 12 gathers of the buckets per layer (g, built above); then with
	 * buckets closing after each tensor (the default, grad_bucket_split =
	 * tensor; plan/buckets.c) a gather per parameter tensor, 12 a layer
	 * (fc2, fc1, proj, qkv, four biases, two LayerNorms' weights and biases)
	 * and the embedding's, 145, issued in forward order; each layer's first
	 * forward waits for one, the last holding any of its tensors (its fc2's:
	 * the stream runs the gathers in order) */
	for (int split = 0; split < 2; split++) {
		if (split) {
			set[5] = "framework.grad_bucket_split=tensor";
			set[2] = "parallel.overlap_param_gather=true";
			quickstart(set, 6, &g, &r[3]);
		}
		int free_dp = 0, waiting = 0;
		if (g)
			free_gathers(g, &free_dp, &waiting);
		CHECK_INT(free_dp, split ? 145 : 12);
		CHECK_INT(waiting, 12);
		plan_graph_free(g);
		g = NULL;
	}
	free(r);
}

/* ZeRO-3's step waits for every gradient reduction (plan/emit.c
 * fsdp_layer_grads): FSDP1's final callback makes the compute stream wait
 * for the post-backward stream (torch 2.6.0 torch/distributed/fsdp/
 * _runtime_utils.py:1089-1096), DeepSpeed ZeRO-3 synchronises its reduce
 * stream (deepspeed/runtime/zero/stage3.py:1357-1364 at edaa72212). On the
 * quickstart with pp 1, dp 8 and ZeRO-3, one micro-batch (32 sequences =
 * dp 8 x micro_batch 4), the first layer's reduce-scatter is issued after
 * its backward and runs beyond the backward's last compute task (the
 * embedding's): the tail the step waits for (checked, so that the test
 * could fail). The optimizer starts no earlier than the last DP task (that
 * reduce-scatter; every gather precedes it on the DP stream) ends. Times
 * from the Chrome trace (microseconds, one complete event per task). */
static void test_zero3_step_waits(void)
{
	const char *set[] = {"parallel.pp=1", "parallel.dp=8", "parallel.zero=3",
			     "parallel.global_batch=32", "cluster.network=alpha-beta"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	exec_result *r = calloc(1, sizeof *r);
	FILE *f = tmpfile();
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", set, 5, d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	exec_views v = {f, NULL, 0, NULL, NULL, false};
	if (s && r && f && exec_run_views(s, r, &v) == SIM_OK) {
		CHECK_INT(plan_microbatches(&s->plan), 1);
		rewind(f);
		char line[512];
		double dp_end = 0, bwd_end = 0, opt = -1;
		int rs = 0;
		while (fgets(line, sizeof line, f)) {
			const char *ts = strstr(line, "\"ts\":");
			double t0, dur;
			if (!strstr(line, "\"pid\":0,") || !ts ||
			    sscanf(ts, "\"ts\":%lf,\"dur\":%lf", &t0, &dur) != 2)
				continue;
			if (strstr(line, "\"cat\":\"dp\"")) {
				dp_end = fmax(dp_end, t0 + dur);
				rs += strstr(line, "\"tid\":2,") != NULL;
			} else if (strstr(line, "\"cat\":\"bwd\"")) {
				bwd_end = fmax(bwd_end, t0 + dur);
			} else if (strstr(line, "\"cat\":\"optimizer\"")) {
				opt = t0;
			}
		}
		/* 24 layers: a gather before each forward and backward, a
		 * reduce-scatter after each backward; the ends' one unit
		 * (zero3_root = step): a gather a step, a reduce-scatter */
		CHECK_INT(rs, 3 * 24 + 2);
		CHECK(dp_end > bwd_end);
		CHECK(opt >= dp_end - 1e-6);
	}
	if (f)
		fclose(f);
	free(r);
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* The tail after the last compute task, on the DP and offload streams, is
 * charged in the order its tasks end, each from the previous end: compute
 * ends at 1 ms; DP d1 1-2 ms, d2 2-3.5 ms; offload o1 1-1.5, o2 1.5-3.5
 * (ending with d2), o3 3.5-4 ms. Charged: o1 0.5 offload, d1 0.5 DP, then
 * d2 and o2 tie at 3.5: the DP stream's task is taken (1.5 DP) and o2 adds
 * nothing, o3 0.5 offload. DP 2 ms, offload 1 ms, step 4 ms, nothing else
 * (one rank class: no bubble). */
static void test_tail_order(void)
{
	plan_graph *g = plan_graph_new(1, 8);
	plan_task a = {sim_time_from_s(1e-3), 0, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, 0, 0, 0, 0, 0};
	uint32_t x = plan_graph_add(g, &a, NULL, 0);
	const double dp[] = {1e-3, 1.5e-3}, off[] = {0.5e-3, 2e-3, 0.5e-3};
	for (int i = 0; i < 3; i++) {
		plan_task o = {sim_time_from_s(off[i]), 0, PLAN_STREAM_OFFLOAD, PLAN_TASK_OFFLOAD, -1, -1, 0, 0, 0};
		plan_graph_add(g, &o, &x, 1);
		if (i < 2) {
			plan_task d = {sim_time_from_s(dp[i]), 0, PLAN_STREAM_DP, PLAN_TASK_DP, -1, -1, 0, 0, 0};
			plan_graph_add(g, &d, &x, 1);
		}
	}
	net_cluster c = one_node();
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 4e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_DP], 2e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_OFFLOAD], 1e-3, 1e-12);
	CHECK_NEAR(r->classes[0].time_s[EXEC_CAT_OTHER], 0, 1e-12);
	check_sums(r);
	free(r);
	plan_graph_free(g);
}

/* The link report over three rank classes on two nodes of 8 GPUs and one
 * NIC (25 GB/s; scale-up 300 GB/s, PCIe 32 GB/s), tasks all independent:
 *   class 0: TP 3 GB on scale-up over 20 ms, DP 0.1 GB on the NIC over 10 ms;
 *   class 1: TP 1 GB over 10 ms, PP 0.2 GB over 8 ms (25 GB/s: saturated),
 *            DP 0.1 GB over 10 ms;
 *   class 2: EP 0.05 GB over 5 ms.
 * Step 20 ms. Each link class reports its most loaded class: scale-up class
 * 0 (3 GB, busy 20 ms, util 3e9 / (300e9 x 0.02) = 0.5, "tp"); NIC and fabric
 * (oversubscription 1) class 1 (0.3 GB, busy 18 ms, saturated 8 ms, "pp", the
 * larger of its kinds); PCIe, one NIC per 8 GPUs, 0.3 / 8 GB, busy 18 ms,
 * never saturated (0.2 / 8 GB in 8 ms = 3.1 GB/s). */
static void test_link_report(void)
{
	plan_graph *g = plan_graph_new(3, 8);
	const struct {
		int rank;
		uint8_t stream, kind;
		double s, su, nic;
	} t[] = {{0, PLAN_STREAM_TP, PLAN_TASK_TP, 20e-3, 3e9, 0},
		 {0, PLAN_STREAM_DP, PLAN_TASK_DP, 10e-3, 0, 1e8},
		 {1, PLAN_STREAM_TP, PLAN_TASK_TP, 10e-3, 1e9, 0},
		 {1, PLAN_STREAM_PP_FWD, PLAN_TASK_PP, 8e-3, 0, 2e8},
		 {1, PLAN_STREAM_DP, PLAN_TASK_DP, 10e-3, 0, 1e8},
		 {2, PLAN_STREAM_EP, PLAN_TASK_EP, 5e-3, 0, 5e7}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		plan_task k = {sim_time_from_s(t[i].s), t[i].rank, t[i].stream, t[i].kind, -1, -1,
			       (float)t[i].su, (float)t[i].nic, 0};
		plan_graph_add(g, &k, NULL, 0);
	}
	net_cluster c = nodes_of(2, 25e9, 0);
	c.node.intra_Bps = 300e9;
	c.node.pcie_Bps = 32e9;
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 20e-3, 1e-12);
	CHECK_INT(r->nlinks, 4);
	const struct {
		double bytes, busy, sat;
		const char *by;
	} want[] = {{3e9, 20e-3, 0, "tp"}, {3e8, 18e-3, 8e-3, "pp"}, {3e8, 18e-3, 8e-3, "pp"},
		    {3e8 / 8, 18e-3, 0, "pp"}};
	for (int i = 0; i < 4 && i < r->nlinks; i++) {
		CHECK_NEAR(r->links[i].bytes, want[i].bytes, want[i].bytes * 1e-6);
		CHECK_NEAR(r->links[i].busy_s, want[i].busy, 1e-12);
		CHECK_NEAR(r->links[i].saturated_s, want[i].sat, 1e-12);
		CHECK_STR(r->links[i].traffic, want[i].by);
	}
	CHECK_NEAR(r->links[0].util, 0.5, 1e-6);
	free(r);
	plan_graph_free(g);
}

/* exec_stragglers (straggle.c) on the quickstart (tp 2, pp 2, dp 4 on two
 * nodes of 8; placement tp-cp-dp-pp: stage 0 on node 0, stage 1 on node 1):
 *  - every GPU alike: one replay per step, the step exec_run's exactly;
 *  - node 1 slow (x 1.5): every replica has factors (1, 1.5), so the step is
 *    the graph replayed with stage 1's compute tasks 1.5 times longer (done
 *    here by hand with exec_replay) and every sampled step equals it;
 *  - one GPU alone (tp = pp = dp = 1) on a slow node: every task computes, so
 *    the step is 1.5 x the step (to the picosecond rounding of each task);
 *  - jitter: the pruned answer is the exhaustive one bit for bit, the same
 *    seed gives the same steps, and the slowest replica is no faster than
 *    the step without stragglers only by chance of fast GPUs (checked: the
 *    mean lies above the base at sigma 0.05 over 4 replicas of 4 GPUs). */
static void test_stragglers(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL, *one = NULL;
	const char *single[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=1",
				"parallel.global_batch=16", "cluster.nodes=1", "node.gpus=1"};
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", NULL, 0, d, &s), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/quickstart.ini", single, 6, d, &one), SIM_OK);
	exec_result *r = calloc(1, sizeof *r);
	plan_graph *g = NULL;
	if (s && one && r && CHECK_INT(exec_run(s, r), SIM_OK)) {
		exec_straggle_opts o = {0};
		o.slow_factor = 1;
		o.steps = 4;
		o.seed = 7;
		exec_straggle a;
		CHECK_INT(exec_stragglers(s, &o, &a), SIM_OK);
		CHECK_NEAR(a.base_s, r->step_s, 0);
		CHECK_NEAR(a.mean_s, r->step_s, 0);
		CHECK_INT((int)a.replays, 4);
		CHECK_INT(a.replicas, 4);

		o.slow_factor = 1.5;
		o.slow_nodes[0] = 1;
		o.nslow = 1;
		CHECK_INT(exec_stragglers(s, &o, &a), SIM_OK);
		CHECK_INT(a.slow_nodes, 1);
		if (CHECK_INT(plan_build(s, &g), SIM_OK)) {
			for (size_t i = 0; i < g->ntasks; i++)
				if (g->tasks[i].stream == PLAN_STREAM_COMPUTE && g->tasks[i].rank == 1)
					g->tasks[i].dur = (sim_time)((double)g->tasks[i].dur * 1.5 + 0.5);
			exec_result *q = calloc(1, sizeof *q);
			if (q && CHECK_INT(exec_replay(g, &s->cluster, q), SIM_OK)) {
				CHECK_NEAR(a.mean_s, q->step_s, 0);
				CHECK_NEAR(a.max_s, q->step_s, 0);
				CHECK(a.mean_s > a.base_s);
			}
			free(q);
		}
		exec_straggle b;
		CHECK_INT(exec_stragglers(one, &o, &b), SIM_EINVAL); /* one node: no node 1 */
		o.slow_nodes[0] = 0;
		CHECK_INT(exec_stragglers(one, &o, &b), SIM_OK);
		CHECK_NEAR(b.mean_s, 1.5 * b.base_s, 1e-9 * b.base_s);

		o.nslow = 0;
		o.sigma = 0.05;
		o.steps = 6;
		exec_straggle p1, p2, ex;
		CHECK_INT(exec_stragglers(s, &o, &p1), SIM_OK);
		CHECK_INT(exec_stragglers(s, &o, &p2), SIM_OK);
		o.exhaustive = true;
		CHECK_INT(exec_stragglers(s, &o, &ex), SIM_OK);
		CHECK_NEAR(p1.mean_s, ex.mean_s, 0);
		CHECK_NEAR(p1.max_s, ex.max_s, 0);
		CHECK_NEAR(p1.mean_s, p2.mean_s, 0);
		CHECK_INT((int)ex.replays, 6 * 4);
		CHECK(p1.replays <= ex.replays);
		CHECK(p1.mean_s > p1.base_s);
		o.exhaustive = false;
		o.sigma = -1;
		CHECK_INT(exec_stragglers(s, &o, &ex), SIM_EINVAL);
	}
	plan_graph_free(g);
	free(r);
	plan_scenario_free(s);
	plan_scenario_free(one);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* Nodes of another GPU type ([cluster] other_gpu, other_nodes; mixed.c) on
 * Llama 2 13B, tp 8 x dp 4 on four 8-GPU nodes (pp 1; placement
 * tp-cp-dp-pp: node n holds replica n whole):
 *  - other_gpu the node's own GPU file on every node: every task takes its
 *    own time, so the step is exec_run's of the plain scenario exactly;
 *  - one A100 40GB node in an H100 cluster: replica 1 runs every task on
 *    the A100 (its only instance is all A100), the other three on the
 *    H100. Replicas are independent until the step's end and the step is
 *    the slowest replica's, so it is the step of the same scenario with
 *    the A100 on every node (whose replicas all run the A100's graph), to
 *    the picosecond: the A100's tasks are slower (312 vs 989 TFLOP/s bf16,
 *    1.6 vs 3.35 TB/s), so replica 1 decides. The step with every node
 *    alike (mixed.base_s) is the H100 scenario's; two replays (the H100
 *    replicas are equal: one replay);
 *  - memory: the plan keeps 37.7 GiB allocated + 2.1 GiB runtime per GPU:
 *    fits the H100's 80 GB, not the A100's 40 GB (37.25 GiB): the verdict
 *    on the H100 fits, the other GPU's is out of memory, and the run and
 *    its class are OOM (the worst of the GPU types they run on);
 *  - the stragglers' step without stragglers (sigma 0, no slow node) is
 *    the mixed step (exec_stragglers shares the replicas). */
static const char mixed_text[] =
	"include = models/llama2-13b.ini\n"
	"include = topologies/gpus/%s.ini\n"
	"[scenario]\nname = mixed\n"
	"[node]\nname = node\ngpus = %d\nintra = nvswitch\nintra_bw = 450 GB/s\n"
	"intra_efficiency = 0.822\nnics = %d\nnic_bw = 400 Gb/s\nnic_efficiency = 0.94\n"
	"pcie_bw = 63 GB/s\nhost_memory = 2048 GB\n"
	"[cluster]\nname = c\nnodes = %d\n%s"
	"[parallel]\ntp = 8\ndp = 4\nmicro_batch = 1\nglobal_batch = 16\n"
	"[train]\nprecision = bf16\n";

static plan_scenario *mixed_load_on(const char *gpu, int gpn, const char *other, sim_diag *d)
{
	char text[2048];
	snprintf(text, sizeof text, mixed_text, gpu, gpn, gpn, 32 / gpn, other);
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "mixed.ini", ".", d, &s), SIM_OK);
	return s;
}

static plan_scenario *mixed_load(const char *gpu, const char *other, sim_diag *d)
{
	return mixed_load_on(gpu, 8, other, d);
}

/* The same on eight 4-GPU nodes: each TP group of 8 spans two nodes, so an
 * A100 node (node 2) and an H100 node (node 3) make replica 1's only stage
 * instance of both kinds. Its TP ranks run in lockstep at the slower, the
 * A100, on every task (each of its tasks is no faster than on the H100:
 * max(H100, A100) = A100 per task, checked by the equality), and with the
 * larger interference, the A100's: the step is again the all-A100 step. */
static void test_mixed_both(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *a = mixed_load_on("a100-sxm4-40g", 4, "", d);
	plan_scenario *m = mixed_load_on(
		"h100-sxm5-80g", 4, "other_gpu = topologies/gpus/a100-sxm4-40g.ini\nother_nodes = 2\n",
		d);
	exec_result *ra = calloc(1, sizeof *ra), *rm = calloc(1, sizeof *rm);
	if (a && m && ra && rm && CHECK_INT(exec_run(a, ra), SIM_OK) &&
	    CHECK_INT(exec_run(m, rm), SIM_OK)) {
		CHECK_NEAR(rm->step_s, ra->step_s, 0);
		CHECK_INT(rm->mixed.replica, 1);
		CHECK_INT(rm->mixed.replicas, 1);
		CHECK_INT(rm->mixed.kinds, 2);
		CHECK(rm->mixed.base_s < rm->step_s);
	}
	free(ra), free(rm);
	plan_scenario_free(a);
	plan_scenario_free(m);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

static void test_mixed(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *h = mixed_load("h100-sxm5-80g", "", d);
	plan_scenario *a = mixed_load("a100-sxm4-40g", "", d);
	plan_scenario *same = mixed_load(
		"h100-sxm5-80g", "other_gpu = topologies/gpus/h100-sxm5-80g.ini\nother_nodes = 0-3\n",
		d);
	plan_scenario *m = mixed_load(
		"h100-sxm5-80g", "other_gpu = topologies/gpus/a100-sxm4-40g.ini\nother_nodes = 1\n",
		d);
	exec_result *rh = calloc(1, sizeof *rh), *ra = calloc(1, sizeof *ra);
	exec_result *rs = calloc(1, sizeof *rs), *rm = calloc(1, sizeof *rm);
	if (h && a && same && m && rh && ra && rs && rm && CHECK_INT(exec_run(h, rh), SIM_OK) &&
	    CHECK_INT(exec_run(a, ra), SIM_OK) && CHECK_INT(exec_run(same, rs), SIM_OK) &&
	    CHECK_INT(exec_run(m, rm), SIM_OK)) {
		CHECK_INT(h->nother, 0);
		CHECK_INT(rh->mixed.nodes, 0);
		CHECK_INT(same->nother, 4);
		CHECK_NEAR(rs->step_s, rh->step_s, 0);
		CHECK_NEAR(rs->mixed.base_s, rh->step_s, 0);
		CHECK_INT(rs->mixed.kinds, 1);

		CHECK(ra->step_s > rh->step_s);
		CHECK_NEAR(rm->step_s, ra->step_s, 0);
		CHECK_NEAR(rm->mixed.step_s, rm->step_s, 0);
		CHECK_NEAR(rm->mixed.base_s, rh->step_s, 0);
		CHECK_INT(rm->mixed.nodes, 1);
		CHECK_INT(rm->mixed.replica, 1);
		CHECK_INT(rm->mixed.replicas, 1);
		CHECK_INT(rm->mixed.kinds, 2);
		CHECK_INT(rm->mixed.stage, 0);
		CHECK_STR(rm->mixed.gpu, "a100-sxm4-40g");
		CHECK(rm->mixed.stage_s > rm->mixed.stage_base_s);

		CHECK(!rh->oom);
		/* the class fits the H100 and not the A100 its ranks on node 1
		 * run on: its verdict is the worse, as the run's (and the
		 * basis other_gpu) */
		CHECK_INT(exec_class_gpu_verdict(&rm->classes[0], rm->mem_capacity_bytes),
			  PLAN_VERDICT_FITS);
		CHECK(rm->classes[0].mem_other);
		CHECK_INT(rm->classes[0].mem_other_verdict, PLAN_VERDICT_OOM);
		CHECK_INT(exec_class_verdict(&rm->classes[0], rm->mem_capacity_bytes),
			  PLAN_VERDICT_OOM);
		CHECK_INT(exec_mem_verdict(rm), PLAN_VERDICT_OOM);
		CHECK_INT(exec_mem_basis_of(rm), EXEC_MEM_ON_OTHER);
		CHECK_INT(rm->mixed.mem_verdict, PLAN_VERDICT_OOM);
		CHECK_NEAR(rm->mixed.mem_capacity_bytes, 39.494 * 1073741824.0, 1e-12);
		CHECK_INT(rm->mixed.mem_stage, 0);
		CHECK(rm->oom);
		CHECK_INT(exec_class_verdict(&ra->classes[0], ra->mem_capacity_bytes),
			  PLAN_VERDICT_OOM);

		exec_straggle_opts o = {0};
		o.slow_factor = 1;
		o.steps = 2;
		exec_straggle st;
		CHECK_INT(exec_stragglers(m, &o, &st), SIM_OK);
		CHECK_NEAR(st.base_s, rm->step_s, 0);
		CHECK_NEAR(st.mean_s, rm->step_s, 0);
		o.sigma = 0.05;
		o.steps = 3;
		o.seed = 3;
		exec_straggle p1, ex;
		CHECK_INT(exec_stragglers(m, &o, &p1), SIM_OK);
		o.exhaustive = true;
		CHECK_INT(exec_stragglers(m, &o, &ex), SIM_OK);
		CHECK_NEAR(p1.mean_s, ex.mean_s, 0);
	}
	free(rh), free(ra), free(rs), free(rm);
	plan_scenario_free(h);
	plan_scenario_free(a);
	plan_scenario_free(same);
	plan_scenario_free(m);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* The other nodes' own links ([cluster] other_gpu naming a node file:
 * plan_scenario.other_net; net/mixed.c, exec/straggle.c). Llama 2 13B, tp 8
 * x dp 4, pp 1, on 2 DGX H100 (nodes 0, 1) + 2 DGX A100 40GB (nodes 2, 3):
 * node n holds replica n whole, so each TP group is one node's 8 GPUs and
 * each data-parallel group one GPU of each node (stride 8), over both
 * types.
 *  - By hand, on the A100's links: a TP all-reduce of S = 256 MiB on its 8
 *    GPUs is a ring at B = intra_bw x intra_efficiency = 300 x 0.792 =
 *    237.6 GB/s with the ring's local step (ring_local_bw 515 GB/s): busbw
 *    B / (1 + B / (2 (n-1) 515)) = 237.6 / 1.032955 = 230.02 GB/s, data
 *    time 2 (n-1)/n S / busbw = 1.75 x 268435456 / 230.02e9 = 2.0422 ms
 *    beside NCCL's latency and the node's coll_overhead, 42 us (podsim
 *    coll on dgx-a100-40g-cluster: 2140.27 us in all).
 *    The DP ring over the four nodes, one GPU on each: its slowest hop is
 *    an A100 node's NIC share, 1/8 of 8 x 200 Gb/s x 0.96 = 24 GB/s
 *    (against the H100's 50 x 0.94 = 47), so 2 (n-1)/n S / 24e9 = 1.5 x
 *    268435456 / 24e9 = 16.777 ms of data time (+ latency, 42 us): the
 *    slowest view
 *    (net_node_slowest) is the A100's links on every link figure (scale-up
 *    237.6 < 370 GB/s, NICs 24 < 47 GB/s per GPU, no NVLS, coll_overhead
 *    42 us, ring_local_bw 515 GB/s).
 *  - In the replay: the A100 replicas (2, 3) run every task as the
 *    all-A100 cluster does (their kernels on the A100, TP on its NVLink, DP
 *    at the A100's NICs), so the step, the slowest replica's, is the
 *    all-A100 cluster's to the picosecond, in both network models. An H100
 *    replica's TP tasks take the all-H100 cluster's times, its DP tasks the
 *    all-A100 cluster's (the ring's slowest hop). With the A100's [gpu]
 *    file alone (the links of the H100 node on every node, as before) the
 *    A100 replicas' TP is faster: that step is shorter.
 *  - The flow model and alpha-beta agree on these groups (one node's ring,
 *    one GPU per node's ring on a non-blocking fat tree: podsim coll gives
 *    the same time to the nanosecond on the A100 cluster), so the two
 *    models' mixed steps are within 1 % of each other. */
static const char links_text[] =
	"include = models/llama2-13b.ini\n"
	"include = topologies/nodes/%s.ini\n"
	"[scenario]\nname = links\n"
	"[cluster]\nname = c\nnodes = 4\nnetwork = %s\n%s"
	"[parallel]\ntp = 8\ndp = 4\nmicro_batch = 1\nglobal_batch = 16\n"
	"[train]\nprecision = bf16\n";

static plan_scenario *links_load(const char *node, const char *network, const char *other,
				 sim_diag *d)
{
	char text[2048];
	snprintf(text, sizeof text, links_text, node, network, other);
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load_string(text, "links.ini", ".", d, &s), SIM_OK);
	return s;
}

/* Whether replica d's durations (exec_replicas_set on x) equal ref's graph's
 * on every task of stream `stream` (-1: every task); counts them in *n. */
static bool same_stream(exec_replicas *x, int d, const plan_graph *ref, int stream, int *n)
{
	const plan_graph *g = exec_replicas_set(x, NULL, d);
	if (g->ntasks != ref->ntasks)
		return false;
	*n = 0;
	for (size_t i = 0; i < g->ntasks; i++) {
		if (stream >= 0 && g->tasks[i].stream != stream)
			continue;
		++*n;
		if (g->tasks[i].dur != ref->tasks[i].dur)
			return false;
	}
	return true;
}

static void test_mixed_links_net(const plan_scenario *m)
{
	const double S = 268435456.0;
	net_cluster v = m->cluster;
	v.nodes = 1;
	v.node = m->other_net;
	net_group g;
	net_group_make(&v, 8, 1, &g);
	net_cost c;
	CHECK_INT(net_collective(&v, NET_ALLREDUCE, &g, S, &c), SIM_OK);
	double busbw = 237.6e9 / (1 + 237.6e9 / (2 * 7 * 515e9));
	CHECK_INT(c.algo, NET_ALGO_RING);
	CHECK_NEAR(c.time_s - c.latency_s - 42e-6, 1.75 * S / busbw, 1e-9);
	CHECK(c.latency_s > 0 && c.latency_s < 0.2e-3);

	net_node w;
	net_node_slowest(&m->cluster.node, &m->other_net, &w);
	CHECK_NEAR(w.intra_Bps * w.intra_eff, 237.6e9, 1e-9);
	CHECK_NEAR(w.nics * w.nic_Bps * w.nic_eff / w.gpus, 24e9, 1e-9);
	CHECK_NEAR(w.nvls_busbw_Bps, 0, 0);
	CHECK_NEAR(w.coll_overhead_s, 42e-6, 1e-9);
	CHECK_NEAR(w.ring_local_Bps, 515e9, 1e-9);
	net_cluster u = m->cluster;
	u.node = w;
	net_group_make(&u, 4, 8, &g);
	CHECK_INT(g.nodes, 4);
	CHECK_INT(net_collective(&u, NET_ALLREDUCE, &g, S, &c), SIM_OK);
	CHECK_INT(c.algo, NET_ALGO_RING);
	CHECK_NEAR(c.time_s - c.latency_s - 42e-6, 1.5 * S / 24e9, 1e-9);
}

/* The text stored with the run keeps the A100 node's [node] keys as an
 * [other_node] section beside [other_gpu]: with [cluster] other_gpu's path
 * pointing nowhere it loads to the same links and the same step, and its
 * own text is itself. */
static void test_mixed_links_text(const plan_scenario *m, double step_s)
{
	sim_diag *d = sim_diag_new();
	char *text = plan_scenario_text(m);
	const char *path = text ? strstr(text, "other_gpu = topologies/") : NULL;
	const char *sec = text ? strstr(text, "\n[other_node]\nname = dgx-a100-40g\n") : NULL;
	CHECK(path && sec && strstr(text, "\n[other_gpu]\nname = a100-sxm4-40g\n"));
	plan_scenario *s = NULL;
	exec_result *r = calloc(1, sizeof *r);
	if (path && sec && r) {
		text[(size_t)(path - text) + strlen("other_gpu = ")] = 'T';
		bool alike = true;
		CHECK_INT(plan_scenario_load_stored(text, d, &s, &alike), SIM_OK);
		CHECK(!alike);
		char *again = s ? plan_scenario_text(s) : NULL;
		CHECK(again && !strcmp(again, text));
		free(again);
		if (s) {
			CHECK(s->other_links);
			CHECK(!memcmp(&s->other_net, &m->other_net, sizeof s->other_net));
			CHECK_INT(exec_run(s, r), SIM_OK);
			CHECK_NEAR(r->step_s, step_s, 0);
		}
	}
	free(r);
	free(text);
	plan_scenario_free(s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

static void test_mixed_links(void)
{
	static const char *const models[] = {"alpha-beta", "flow"};
	static const char other[] = "other_gpu = topologies/nodes/dgx-a100-40g.ini\n"
				    "other_nodes = 2-3\n";
	static const char other_gpu[] = "other_gpu = topologies/gpus/a100-sxm4-40g.ini\n"
					"other_nodes = 2-3\n";
	double step[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		sim_diag *d = sim_diag_new();
		plan_scenario *m = links_load("dgx-h100", models[k], other, d);
		plan_scenario *h = links_load("dgx-h100", models[k], "", d);
		plan_scenario *a = links_load("dgx-a100-40g", models[k], "", d);
		plan_scenario *o = links_load("dgx-h100", models[k], other_gpu, d);
		exec_result *rm = calloc(1, sizeof *rm), *ra = calloc(1, sizeof *ra);
		exec_result *ro = calloc(1, sizeof *ro);
		plan_graph *gm = NULL, *gh = NULL, *ga = NULL;
		exec_replicas *x = NULL;
		if (m && h && a && o && rm && ra && ro && CHECK_INT(exec_run(m, rm), SIM_OK) &&
		    CHECK_INT(exec_run(a, ra), SIM_OK) && CHECK_INT(exec_run(o, ro), SIM_OK) &&
		    CHECK_INT(plan_build(m, &gm), SIM_OK) && CHECK_INT(plan_build(h, &gh), SIM_OK) &&
		    CHECK_INT(plan_build(a, &ga), SIM_OK) &&
		    CHECK_INT(exec_replicas_open(m, gm, &x), SIM_OK)) {
			CHECK(m->other_links && !o->other_links);
			CHECK_STR(m->other_net.name, "dgx-a100-40g");
			if (k == 0) {
				test_mixed_links_net(m);
				test_mixed_links_text(m, rm->step_s);
			}
			CHECK_NEAR(rm->step_s, ra->step_s, 0);
			CHECK(ro->step_s < rm->step_s);
			CHECK_INT(rm->mixed.replica, 2);
			CHECK_INT(rm->mixed.kinds, 2);
			int n = 0;
			CHECK(same_stream(x, 2, ga, -1, &n) && n > 0);
			CHECK(same_stream(x, 0, gh, PLAN_STREAM_TP, &n) && n > 0);
			CHECK(same_stream(x, 0, ga, PLAN_STREAM_DP, &n) && n > 0);
			CHECK(same_stream(x, 0, gh, PLAN_STREAM_COMPUTE, &n) && n > 0);
			step[k] = rm->step_s;
			/* stragglers on top: the pruned replays (every replica that a
			 * mixed group touches bounded by the ratio) find the
			 * exhaustive step */
			exec_straggle_opts so = {0};
			so.slow_factor = 1, so.sigma = 0.05, so.steps = 3, so.seed = 5;
			exec_straggle p1, ex;
			CHECK_INT(exec_stragglers(m, &so, &p1), SIM_OK);
			so.exhaustive = true;
			CHECK_INT(exec_stragglers(m, &so, &ex), SIM_OK);
			CHECK_NEAR(p1.mean_s, ex.mean_s, 0);
		}
		exec_replicas_close(x);
		plan_graph_free(gm), plan_graph_free(gh), plan_graph_free(ga);
		free(rm), free(ra), free(ro);
		plan_scenario_free(m), plan_scenario_free(h), plan_scenario_free(a);
		plan_scenario_free(o);
		sim_diag_print(d, stderr);
		sim_diag_free(d);
	}
	CHECK_NEAR(step[1], step[0], 0.01 * step[0]);
}

/* The text stored with a mixed run (plan_scenario_text) carries the A100's
 * keys as an [other_gpu] section, read in place of the file: with the path
 * of [cluster] other_gpu pointing nowhere it loads to the same other GPU
 * and the same step, to the picosecond, and its own text is itself (what
 * is hashed does not change when a stored run is stored again). The text
 * without the section and with the path gone (a run stored before the
 * section was kept, shown from another folder) does not load as it is;
 * plan_scenario_load_stored loads it with every node the H100 (alike). */
static void test_mixed_text(void)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *m = mixed_load(
		"h100-sxm5-80g", "other_gpu = topologies/gpus/a100-sxm4-40g.ini\nother_nodes = 1\n",
		d);
	char *text = m ? plan_scenario_text(m) : NULL;
	const char *path = text ? strstr(text, "other_gpu = topologies/") : NULL;
	const char *sec = text ? strstr(text, "\n[other_gpu]\nname = a100-sxm4-40g\n") : NULL;
	CHECK(path && sec && path < sec);
	if (path && sec) {
		size_t at = (size_t)(path - text) + strlen("other_gpu = ");
		text[at] = 'T'; /* "Topologies/": no such folder */
		plan_scenario *s = NULL, *old = NULL, *again = NULL;
		bool alike = true;
		exec_result *rm = calloc(1, sizeof *rm), *rs = calloc(1, sizeof *rs);
		CHECK_INT(plan_scenario_load_stored(text, d, &s, &alike), SIM_OK);
		CHECK(!alike);
		char *text2 = s ? plan_scenario_text(s) : NULL;
		CHECK(text2 && !strcmp(text2, text));
		if (s && rm && rs) {
			CHECK_INT(s->nother, 1);
			CHECK(!memcmp(&s->other_gpu, &m->other_gpu, sizeof s->other_gpu));
			CHECK_INT(exec_run(m, rm), SIM_OK);
			CHECK_INT(exec_run(s, rs), SIM_OK);
			CHECK_NEAR(rs->step_s, rm->step_s, 0);
			CHECK_STR(rs->mixed.gpu, "a100-sxm4-40g");
		}
		text[(size_t)(sec - text) + 1] = '\0'; /* the section dropped */
		sim_diag *q = sim_diag_new();
		CHECK_INT(plan_scenario_load_string(text, "stored run", ".", q, &again), SIM_ECONF);
		sim_diag_clear(q);
		CHECK_INT(plan_scenario_load_stored(text, q, &old, &alike), SIM_OK);
		CHECK(alike);
		CHECK(old && old->nother == 0 && !old->cluster.other_gpu[0]);
		CHECK(old && !strcmp(old->gpu.name, "h100-sxm5-80g"));
		sim_diag_free(q);
		free(text2);
		free(rm), free(rs);
		plan_scenario_free(s);
		plan_scenario_free(old);
		plan_scenario_free(again);
	}
	free(text);
	plan_scenario_free(m);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
}

/* The figures read off a result (result.c), on two hand-made classes:
 * class 0, 6 ranks: compute 3 s, optimizer 1 s, tp 0.5 s, dp 0.25 s;
 * class 1, 2 ranks: compute 1 s, tp 0.75 s, pp 1 s; step 5 s.
 * busy 4 s and 1 s; share (6 x 4 + 2 x 1) / (8 x 5) = 26/40 = 0.65;
 * the most tp 0.75 s (class 1), dp 0.25 s; exposed communication the
 * larger of 0.5 + 0.25 and 0.75 + 1 = 1.75 s; with a 1 s step the share
 * 26/8 is capped at 1. */
static void test_result_figures(void)
{
	exec_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	r->nclasses = 2;
	r->step_s = 5;
	r->classes[0].ranks = 6, r->classes[1].ranks = 2;
	double *a = r->classes[0].time_s, *b = r->classes[1].time_s;
	a[EXEC_CAT_COMPUTE] = 3, a[EXEC_CAT_OPTIMIZER] = 1, a[EXEC_CAT_TP] = 0.5,
	a[EXEC_CAT_DP] = 0.25;
	b[EXEC_CAT_COMPUTE] = 1, b[EXEC_CAT_TP] = 0.75, b[EXEC_CAT_PP] = 1;
	CHECK_NEAR(exec_class_busy(&r->classes[0]), 4, 1e-12);
	CHECK_NEAR(exec_busy_share(r), 0.65, 1e-12);
	CHECK_NEAR(exec_cat_most(r, EXEC_CAT_TP), 0.75, 1e-12);
	CHECK_NEAR(exec_cat_most(r, EXEC_CAT_DP), 0.25, 1e-12);
	CHECK_NEAR(exec_cat_most(r, EXEC_CAT_EP), 0, 1e-12);
	CHECK_NEAR(exec_exposed_comm(r), 1.75, 1e-12);
	r->step_s = 1;
	CHECK_NEAR(exec_busy_share(r), 1, 1e-12);
	r->nclasses = 0;
	CHECK_NEAR(exec_busy_share(r), 0, 1e-12);
	CHECK_NEAR(exec_exposed_comm(r), 0, 1e-12);
	free(r);
}

/* Why one step loses to another (exec_step_class, exec_step_diff_of).
 *  a) Equal stages, free communication (test_bubble's pipeline): 4 stages
 *     of 4 micro-batches take (m + p - 1)(tf + tb) = 7 x 3 ms = 21 ms, one
 *     stage the m(tf + tb) = 12 ms of its compute; every stage computes
 *     12 ms, so the 9 ms between them, (p - 1)(tf + tb), is all bubble,
 *     the largest and only term. The stages idle alike and compute alike:
 *     the first sets the step.
 *  b) Interleaving v = 2 cuts that bubble to (p - 1)(tf + tb)/v: the plan
 *     without loses by 4.5 ms, all bubble.
 *  c) Hand-made results of 1 s steps. a: class 0 computes 0.6 s and idles
 *     0.4 s (bubble); class 1 computes 0.8 s, exposes dp 0.1 s and idles
 *     0.1 s: class 1 sets the step. b: one class, compute 0.6, tp 0.1,
 *     other 0.3. a - b: compute +0.2, dp +0.1, bubble +0.1, tp -0.1,
 *     other -0.3, summing to 0, the steps' difference; largest first,
 *     equal terms in category order (dp before bubble); the largest is
 *     compute. b - a: every sign turns, the largest is other (+0.3). A
 *     result faster in every category (compute 0.5, other 0.1 against b)
 *     has no positive term: largest -1; so has b against itself, with no
 *     term at all. With equal idle (class 0: compute 0.9, bubble 0.1) the
 *     busier class, 0, sets the step. Without classes nothing is split. */
static void test_step_diff(void)
{
	double tf = 1e-3, tb = 2e-3;
	net_cluster c = one_node();
	exec_result *r4 = calloc(1, sizeof *r4), *r1 = calloc(1, sizeof *r1);
	exec_result *rv = calloc(1, sizeof *rv);
	if (!r4 || !r1 || !rv)
		return;
	plan_graph *g4 = pipeline(PLAN_SCHED_1F1B, 4, 4, tf, tb);
	plan_graph *g1 = pipeline(PLAN_SCHED_1F1B, 1, 4, tf, tb);
	plan_graph *gv = pipeline_v(PLAN_SCHED_1F1B, 4, 4, 2, tf, tb);
	CHECK_INT(exec_replay(g4, &c, r4), SIM_OK);
	CHECK_INT(exec_replay(g1, &c, r1), SIM_OK);
	CHECK_INT(exec_replay(gv, &c, rv), SIM_OK);
	exec_step_diff d;
	exec_step_diff_of(r4, r1, &d); /* a) */
	CHECK_INT(d.class_a, 0);
	CHECK_INT(d.class_b, 0);
	CHECK_NEAR(d.step_s, 3 * (tf + tb), 1e-9);
	CHECK_NEAR(d.cat_s[EXEC_CAT_BUBBLE], 3 * (tf + tb), 1e-9);
	CHECK_NEAR(d.cat_s[EXEC_CAT_COMPUTE], 0, 1e-15);
	CHECK_INT(d.largest, EXEC_CAT_BUBBLE);
	CHECK_INT(d.nterms, 1);
	exec_step_diff_of(r4, rv, &d); /* b) */
	CHECK_NEAR(d.step_s, 3 * (tf + tb) / 2, 1e-9);
	CHECK_NEAR(d.cat_s[EXEC_CAT_BUBBLE], 3 * (tf + tb) / 2, 1e-9);
	CHECK_INT(d.largest, EXEC_CAT_BUBBLE);
	plan_graph_free(g4), plan_graph_free(g1), plan_graph_free(gv);

	exec_result *a = r4, *b = r1; /* c) */
	memset(a, 0, sizeof *a), memset(b, 0, sizeof *b);
	a->nclasses = 2, a->step_s = 1;
	double *a0 = a->classes[0].time_s, *a1 = a->classes[1].time_s;
	a0[EXEC_CAT_COMPUTE] = 0.6, a0[EXEC_CAT_BUBBLE] = 0.4;
	a1[EXEC_CAT_COMPUTE] = 0.8, a1[EXEC_CAT_DP] = 0.1, a1[EXEC_CAT_BUBBLE] = 0.1;
	CHECK_INT(exec_step_class(a), 1);
	b->nclasses = 1, b->step_s = 1;
	double *b0 = b->classes[0].time_s;
	b0[EXEC_CAT_COMPUTE] = 0.6, b0[EXEC_CAT_TP] = 0.1, b0[EXEC_CAT_OTHER] = 0.3;
	exec_step_diff_of(a, b, &d);
	CHECK_INT(d.class_a, 1);
	CHECK_INT(d.class_b, 0);
	CHECK_NEAR(d.step_s, 0, 1e-15);
	CHECK_INT(d.nterms, 5);
	CHECK_INT(d.order[0], EXEC_CAT_COMPUTE);
	CHECK_INT(d.order[1], EXEC_CAT_DP);
	CHECK_INT(d.order[2], EXEC_CAT_BUBBLE);
	CHECK_INT(d.order[3], EXEC_CAT_TP);
	CHECK_INT(d.order[4], EXEC_CAT_OTHER);
	CHECK_INT(d.largest, EXEC_CAT_COMPUTE);
	double sum = 0;
	for (int k = 0; k < EXEC_CAT_COUNT; k++)
		sum += d.cat_s[k];
	CHECK_NEAR(sum, d.step_s, 1e-15);
	exec_step_diff_of(b, a, &d);
	CHECK_INT(d.largest, EXEC_CAT_OTHER);
	CHECK_NEAR(d.cat_s[EXEC_CAT_OTHER], 0.3, 1e-12);
	exec_step_diff_of(b, b, &d);
	CHECK_INT(d.nterms, 0);
	CHECK_INT(d.largest, -1);
	exec_result *x = rv;
	memset(x, 0, sizeof *x);
	x->nclasses = 1, x->step_s = 0.6;
	x->classes[0].time_s[EXEC_CAT_COMPUTE] = 0.5, x->classes[0].time_s[EXEC_CAT_OTHER] = 0.1;
	exec_step_diff_of(x, b, &d);
	CHECK_INT(d.nterms, 3);
	CHECK_INT(d.largest, -1);
	a0[EXEC_CAT_COMPUTE] = 0.9, a0[EXEC_CAT_BUBBLE] = 0.1;
	CHECK_INT(exec_step_class(a), 0);
	a->nclasses = 0;
	CHECK_INT(exec_step_class(a), -1);
	exec_step_diff_of(a, b, &d);
	CHECK_INT(d.class_a, -1);
	CHECK_INT(d.nterms, 0);
	CHECK_INT(d.largest, -1);
	free(r4), free(r1), free(rv);
}

int main(void)
{
	test_result_figures();
	test_step_diff();
	test_zero3_step_waits();
	test_mixed();
	test_mixed_both();
	test_mixed_text();
	test_mixed_links();
	test_stragglers();
	test_tail_order();
	test_link_report();
	test_tp_overlap_build();
	test_param_gather_build();
	test_tp_overlap_pair();
	test_nic_sharing();
	test_pp_receiver_sharing();
	test_uplink_sharing();
	test_uplink_units();
	test_sync_free();
	test_sync_blocking();
	test_gather_gap();
	test_interference();
	test_interference_scale();
	test_deepep_interference();
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
