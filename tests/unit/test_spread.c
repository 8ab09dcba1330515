/* test_spread.c - the step's spread from the collectives' (exec/spread.c,
 * net/spread.c) on synthetic graphs whose answers are known in closed form,
 * and on shipped scenarios on the EFA cluster. */
#include "../../sim/exec/exec.h"
#include "check.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An EFA cluster with one spread entry (nodes:lo-hi), no NICs to share
 * (the replay's NIC fluid stays off) and correlation rho. */
static net_cluster efa(int nodes, double lo, double hi, double rho)
{
	net_cluster c;
	memset(&c, 0, sizeof c);
	c.fabric = NET_FABRIC_EFA;
	c.nodes = nodes;
	c.node.gpus = 8;
	c.gpus = 8 * nodes;
	c.nspread = 1;
	c.spread[0] = (net_spread){nodes, lo, hi};
	c.spread_corr = rho;
	return c;
}

/* One task on `stream` of rank 0 after `dep` (UINT32_MAX: none). */
static uint32_t task(plan_graph *g, uint8_t stream, uint8_t kind, double s, uint32_t dep)
{
	plan_task t = {sim_time_from_s(s), 0, stream, kind, -1, -1, 0, 0, 0};
	return plan_graph_add(g, &t, dep != UINT32_MAX ? &dep : NULL, dep != UINT32_MAX ? 1 : 0);
}

static exec_step_spread sample(const plan_graph *g, const net_cluster *c, double step, int n,
                               uint64_t seed, double rho)
{
	exec_spread_opts o = {n, seed, rho, 0};
	exec_step_spread sp;
	CHECK_INT(exec_spread(g, c, step, &o, &sp), SIM_OK);
	return sp;
}

/* A step that is one exposed collective across 4 nodes (1 s, all of it
 * network) followed by a 0.5 s compute task: step = 1.5 s, and in the fully
 * correlated limit each replay's collective takes Q(p_k) s for the
 * stratified p_k of replay k (exec/spread.c), so the step's quantile p is
 * 0.5 + Q(p): with 2,000 replays within 0.2 % of 0.5 + lo, 1.5, 0.5 + hi
 * (lo 0.59, hi 3.09: the shipped 4-node spread). Half the collective on the
 * network (net_frac 0.5): 1 + 0.5 (Q - 1) + 0.5. */
static void test_exposed(void)
{
	net_cluster c = efa(4, 0.59, 3.09, 0.5);
	for (int half = 0; half < 2; half++) {
		double f = half ? 0.5 : 1.0;
		plan_graph *g = plan_graph_new(1, 8);
		uint32_t x = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 1.0, UINT32_MAX);
		CHECK_INT(plan_graph_set_net(g, x, f, 4), SIM_OK);
		task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, 0.5, x);
		exec_step_spread sp = sample(g, &c, 1.5, 2000, 7, 1.0);
		CHECK_INT(sp.samples, 2000);
		CHECK_INT(sp.varying, 1);
		CHECK_NEAR(sp.corr, 1.0, 0);
		CHECK_NEAR(sp.p05_s, 1.5 + f * (0.59 - 1), 2e-3);
		CHECK_NEAR(sp.p50_s, 1.5, 2e-3);
		CHECK_NEAR(sp.p95_s, 1.5 + f * (3.09 - 1), 2e-3);
		net_spread s = {4, 0.59, 3.09};
		CHECK_NEAR(sp.p10_s, 1.5 + f * (net_spread_quantile(&s, 0.1) - 1), 2e-3);
		/* rho < 0 takes the cluster's spread_correlation */
		exec_step_spread d = sample(g, &c, 1.5, 50, 7, -1);
		CHECK_NEAR(d.corr, 0.5, 0);
		plan_graph_free(g);
	}
}

/* A compute-bound step: a 1 s compute task beside a 0.1 s DP collective
 * across 64 nodes (all network; to come out of hiding it would need a
 * slowdown of 10, under the 64-node spread 0.22-2.04 (sigma_hi = ln 2.04 /
 * 1.645 = 0.43) a z of ln 10 / 0.43 = 5.3, beyond any of 200 draws), then
 * the optimizer waiting for both. Without
 * interference every replay is exactly the deterministic step: zero spread
 * at any correlation. */
static void test_hidden(void)
{
	net_cluster c = efa(64, 0.22, 2.04, 0.5);
	plan_graph *g = plan_graph_new(1, 8);
	uint32_t a = task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, 1.0, UINT32_MAX);
	uint32_t x = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 0.1, UINT32_MAX);
	CHECK_INT(plan_graph_set_net(g, x, 1.0, 64), SIM_OK);
	uint32_t o = task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, 0.01, a);
	plan_graph_edge(g, x, o);
	exec_result *r = calloc(1, sizeof *r);
	CHECK_INT(exec_replay(g, &c, r), SIM_OK);
	CHECK_NEAR(r->step_s, 1.01, 1e-12);
	for (int k = 0; k < 3; k++) {
		exec_step_spread sp = sample(g, &c, r->step_s, 200, 3, 0.5 * k);
		CHECK_NEAR(sp.p05_s, 1.01, 1e-12);
		CHECK_NEAR(sp.p95_s, 1.01, 1e-12);
	}
	/* the same collective exposed (the optimizer waits for it alone) spreads */
	plan_graph *e = plan_graph_new(1, 8);
	x = task(e, PLAN_STREAM_DP, PLAN_TASK_DP, 0.1, UINT32_MAX);
	CHECK_INT(plan_graph_set_net(e, x, 1.0, 64), SIM_OK);
	task(e, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, 0.01, x);
	exec_step_spread sp = sample(e, &c, 0.11, 200, 3, 0.5);
	CHECK(sp.p95_s > 0.11 + 0.05);
	free(r);
	plan_graph_free(g);
	plan_graph_free(e);
}

/* Fifty exposed collectives in a chain (10 ms each, all network, 8 nodes:
 * 0.43-1.73). Correlated, the chain's quantiles are the collective's
 * (0.5 s x lo, x hi); independent, the chain is a sum of 50 draws: its
 * median near 50 x 10 ms x E[r] with the split log-normal's mean
 *   E[r] = e^(s_lo^2/2) Phi(-s_lo) + e^(s_hi^2/2) Phi(s_hi)
 * (each half-normal's moment generating function), and its 5th-95th
 * percentile range about 3.29 sd(r) / sqrt(50) x 0.5 s, several times
 * narrower than the correlated one. The default split (0.5) lies between. */
static void test_limits(void)
{
	net_cluster c = efa(8, 0.43, 1.73, 0.5);
	plan_graph *g = plan_graph_new(1, 8);
	uint32_t prev = UINT32_MAX;
	for (int i = 0; i < 50; i++) {
		prev = task(g, PLAN_STREAM_TP, PLAN_TASK_TP, 0.01, prev);
		CHECK_INT(plan_graph_set_net(g, prev, 1.0, 8), SIM_OK);
	}
	task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, 0, prev);
	exec_step_spread one = sample(g, &c, 0.5, 1000, 11, 1.0);
	exec_step_spread ind = sample(g, &c, 0.5, 1000, 11, 0.0);
	exec_step_spread mid = sample(g, &c, 0.5, 1000, 11, 0.5);
	CHECK_NEAR(one.p05_s, 0.5 * 0.43, 3e-3);
	CHECK_NEAR(one.p95_s, 0.5 * 1.73, 3e-3);
	double z95 = gsl_cdf_ugaussian_Pinv(0.95);
	double sl = -log(0.43) / z95, sh = log(1.73) / z95;
	double mean = exp(sl * sl / 2) * gsl_cdf_ugaussian_P(-sl) +
	              exp(sh * sh / 2) * gsl_cdf_ugaussian_P(sh);
	double m2 = exp(2 * sl * sl) * gsl_cdf_ugaussian_P(-2 * sl) +
	            exp(2 * sh * sh) * gsl_cdf_ugaussian_P(2 * sh);
	double sd = sqrt(m2 - mean * mean);
	CHECK(mean > 1.0);
	CHECK_NEAR(ind.p50_s, 0.5 * mean, 0.01);
	CHECK_NEAR(ind.p95_s - ind.p05_s, 2 * z95 * sd / sqrt(50) * 0.5, 0.1);
	CHECK(ind.p95_s - ind.p05_s < 0.25 * (one.p95_s - one.p05_s));
	CHECK(mid.p95_s - mid.p05_s < one.p95_s - one.p05_s);
	CHECK(mid.p95_s - mid.p05_s > ind.p95_s - ind.p05_s);
	/* the mean step (a campaign's, campaign_setup's fabric factor) is the
	 * chain's expected sum, 50 x 10 ms x E[r], at any correlation: the
	 * correlation moves the quantiles, not the mean */
	CHECK_NEAR(one.mean_s, 0.5 * mean, 0.005);
	CHECK_NEAR(ind.mean_s, 0.5 * mean, 0.005);
	CHECK_NEAR(mid.mean_s, 0.5 * mean, 0.005);
	/* reproducible: the same seed gives the same quantiles, another not */
	exec_step_spread again = sample(g, &c, 0.5, 1000, 11, 0.5);
	CHECK(memcmp(&again, &mid, sizeof mid) == 0);
	exec_step_spread other = sample(g, &c, 0.5, 1000, 12, 0.5);
	CHECK(other.p95_s != mid.p95_s);
	plan_graph_free(g);
}

/* No spread: nothing sampled (a cluster without one, or 0 samples); a
 * graph where nothing crosses nodes: every quantile is the step. */
static void test_none(void)
{
	plan_graph *g = plan_graph_new(1, 8);
	uint32_t x = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 1.0, UINT32_MAX);
	net_cluster c = efa(4, 0.59, 3.09, 0.5);
	exec_step_spread sp = sample(g, &c, 1.0, 100, 1, 0.5);
	CHECK_INT(sp.samples, 100);
	CHECK_INT(sp.varying, 0);
	CHECK_NEAR(sp.p05_s, 1.0, 0);
	CHECK_NEAR(sp.p95_s, 1.0, 0);
	CHECK_NEAR(sp.mean_s, 1.0, 0);
	CHECK_INT(plan_graph_set_net(g, x, 1.0, 4), SIM_OK);
	sp = sample(g, &c, 1.0, 0, 1, 0.5);
	CHECK_INT(sp.samples, 0);
	c.nspread = 0;
	sp = sample(g, &c, 1.0, 100, 1, 0.5);
	CHECK_INT(sp.samples, 0);
	CHECK(sp.p95_s == 0);
	CHECK_INT(plan_graph_set_net(g, 7, 1.0, 4), SIM_EINVAL);
	plan_graph_free(g);
}

/* Shipped scenarios on the EFA cluster (the graph's marks and the whole
 * run). Llama 3 8B on 8 p5 nodes, dp 64: the gradient reduction's last
 * bucket after the backward is exposed (e of the step), the rest hides
 * under the backward; with the 8-node spread (hi 1.73) the step's p95 is
 * about 1 + e (hi - 1) at full correlation, less at the default 0.5, and
 * so grows with e: at 1 micro-batch per GPU (e ~ 15 %) several times the
 * relative spread of 8 (e ~ 2 %). In Llama 2 70B on 64 nodes a DP group
 * across nodes and the pipeline sends between nodes vary, TP inside a node
 * does not. Without a spread key nothing is sampled. */
static void run_on(const char *path, const char *const *set, size_t n, int samples, int threads,
                   exec_result *r)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load(path, set, n, d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	exec_spread_opts o = {samples, s ? s->seed : 0, -1, threads};
	exec_views v = {NULL, NULL, 0, NULL, &o, false};
	if (s)
		CHECK_INT(exec_run_views(s, r, &v), SIM_OK);
	plan_scenario_free(s);
}

static void run(const char *path, const char *const *set, size_t n, int samples, exec_result *r)
{
	run_on(path, set, n, samples, 0, r);
}

/* The replays on 1, 2 and 5 threads (37 samples: the last batch short):
 * the draws are made in replay order before each batch (exec/spread.c), so
 * every quantile and the mean are the single thread's to the bit. */
static void test_threads(void)
{
	exec_result *r = calloc(1, sizeof *r);
	exec_step_spread one = {0};
	static const int threads[] = {1, 2, 5};
	for (size_t k = 0; r && k < sizeof threads / sizeof threads[0]; k++) {
		const char *set[] = {"cluster.nodes=8", "parallel.dp=64", "parallel.global_batch=64"};
		run_on("scenarios/llama3-8b-efa.ini", set, 3, 37, threads[k], r);
		CHECK_INT(r->spread.samples, 37);
		CHECK(r->spread.p95_s > r->spread.p05_s);
		if (k == 0) {
			one = r->spread;
			continue;
		}
		CHECK(r->spread.p05_s == one.p05_s && r->spread.p50_s == one.p50_s);
		CHECK(r->spread.p95_s == one.p95_s && r->spread.mean_s == one.mean_s);
		CHECK(r->spread.p95_lo_s == one.p95_lo_s && r->spread.p95_hi_s == one.p95_hi_s);
	}
	free(r);
}

static void test_scenarios(void)
{
	exec_result *r = calloc(1, sizeof *r);
	double rel[2];
	for (int k = 0; k < 2; k++) {
		const char *set[] = {"cluster.nodes=8", "parallel.dp=64",
		                     k ? "parallel.global_batch=512" : "parallel.global_batch=64"};
		run("scenarios/llama3-8b-efa.ini", set, 3, 100, r);
		CHECK_INT(r->spread.samples, 100);
		CHECK(r->spread.varying > 0);
		double e = r->classes[0].time_s[EXEC_CAT_DP] / r->step_s;
		rel[k] = r->spread.p95_s / r->step_s - 1;
		CHECK(rel[k] > 0.3 * e * 0.73 && rel[k] < 1.5 * e * 0.73);
		CHECK(r->spread.p05_s < r->step_s);
	}
	CHECK(rel[0] > 3 * rel[1]);
	/* A spread of 1-1 draws r = 1 for every call: each of the replays, reset
	 * between samples (exec_replayer), must give the deterministic step to
	 * the picosecond, NIC sharing and interference included (Llama 2 70B on
	 * 512 GPUs: pipeline sends beside gradient buckets). */
	static const char *const flat[] = {"cluster.spread=2:1-1 16:1-1"};
	run("scenarios/llama2-70b-efa.ini", flat, 1, 3, r);
	CHECK(r->spread.varying > 100);
	/* p05 interpolates between two order statistics, (1 - d) t_i + d t_j
	 * (GSL), which can land one ulp off equal t's: within a picosecond. */
	CHECK(fabs(r->spread.p05_s - r->step_s) <= 1e-12 && r->spread.p95_s == r->step_s);
	CHECK(r->spread.p95_lo_s == r->step_s && r->spread.p95_hi_s == r->step_s);
	static const char *const nospread[] = {"cluster.spread="};
	run("scenarios/llama3-8b-efa.ini", nospread, 1, 50, r);
	CHECK_INT(r->spread.samples, 0);
	plan_scenario *s = NULL;
	sim_diag *d = sim_diag_new();
	CHECK_INT(plan_scenario_load("scenarios/llama2-70b-efa.ini", NULL, 0, d, &s), SIM_OK);
	sim_diag_free(d);
	plan_graph *g = NULL;
	if (s)
		CHECK_INT(plan_build(s, &g), SIM_OK);
	size_t tp = 0, tp_net = 0, dp = 0, dp_net = 0, pp_net = 0;
	for (size_t i = 0; g && g->net_frac && i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		tp += t->kind == PLAN_TASK_TP;
		tp_net += t->kind == PLAN_TASK_TP && g->net_frac[i] > 0;
		dp += t->kind == PLAN_TASK_DP && g->net_frac[i] > 0;
		dp_net += t->kind == PLAN_TASK_DP && g->net_frac[i] == 1.0f;
		pp_net += t->kind == PLAN_TASK_PP && g->net_frac[i] > 0.5 && g->net_nodes[i] == 2;
	}
	CHECK(g && g->net_frac);
	CHECK(tp > 0 && tp_net == 0); /* tp 8 inside a p5 node */
	/* dp 16 across 16 nodes: every call across nodes varies whole (the
	 * measured ratios are of whole calls, net/spread.c; the SP norms'
	 * all-reduce inside the node does not vary) */
	CHECK(dp > 0 && dp_net == dp);
	CHECK(pp_net > 0);            /* stages on other nodes */
	plan_graph_free(g);
	plan_scenario_free(s);
	free(r);
}

/* plan_graph_varying, plan_graph_stream_s, plan_graph_deep_rate.
 * plan_graph_varying: per (kind, node count) in the order of the first
 * task: two DP tasks across 64 nodes (0.1 s at a net share of 1 and 0.3 s
 * at 0.5: 2 tasks, 0.4 s, 0.1 + 0.15 = 0.25 s of network), one TP task
 * across 8 (0.2 s at 0.25: 0.05 s), a DP task across 8 nodes apart from
 * the others; the compute task and a collective without a share do not
 * vary. With cap 2 the third pair is dropped. */
static void test_varying(void)
{
	plan_graph *g = plan_graph_new(1, 8);
	task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, 1.0, UINT32_MAX);
	uint32_t d1 = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 0.1, UINT32_MAX);
	uint32_t t1 = task(g, PLAN_STREAM_TP, PLAN_TASK_TP, 0.2, UINT32_MAX);
	task(g, PLAN_STREAM_TP, PLAN_TASK_TP, 0.4, UINT32_MAX);
	uint32_t d2 = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 0.3, UINT32_MAX);
	uint32_t d3 = task(g, PLAN_STREAM_DP, PLAN_TASK_DP, 0.5, UINT32_MAX);
	CHECK_INT(plan_graph_set_net(g, d1, 1.0, 64), SIM_OK);
	CHECK_INT(plan_graph_set_net(g, t1, 0.25, 8), SIM_OK);
	CHECK_INT(plan_graph_set_net(g, d2, 0.5, 64), SIM_OK);
	CHECK_INT(plan_graph_set_net(g, d3, 1.0, 8), SIM_OK);
	plan_varying v[4];
	CHECK_INT(plan_graph_varying(g, v, 4), 3);
	CHECK_STR(plan_task_kind_short(v[0].kind), "dp");
	CHECK_INT(v[0].nodes, 64);
	CHECK_INT(v[0].tasks, 2);
	CHECK_NEAR(v[0].dur_s, 0.4, 1e-9);
	CHECK_NEAR(v[0].net_s, 0.25, 1e-6); /* net_frac is a float */
	CHECK_STR(plan_task_kind_short(v[1].kind), "tp");
	CHECK_INT(v[1].nodes, 8);
	CHECK_NEAR(v[1].net_s, 0.05, 1e-6);
	CHECK_INT(v[2].kind, PLAN_TASK_DP);
	CHECK_INT(v[2].nodes, 8);
	CHECK_INT(plan_graph_varying(g, v, 2), 2);
	CHECK_STR(plan_task_kind_short(PLAN_TASK_KIND_COUNT), "?");
	/* the streams alone: DP 0.1 + 0.3 + 0.5 s, TP 0.2 + 0.4 s; none on rank 1 */
	CHECK_NEAR(plan_graph_stream_s(g, 0, PLAN_STREAM_DP), 0.9, 1e-9);
	CHECK_NEAR(plan_graph_stream_s(g, 0, PLAN_STREAM_TP), 0.6, 1e-9);
	CHECK_NEAR(plan_graph_stream_s(g, 1, PLAN_STREAM_DP), 0, 1e-9);
	/* beside DeepEP: no compute task marked, 0; the 1 s backward at 0.5 and
	 * another 1 s at 0.25: (1 + 1) / (1/0.5 + 1/0.25) = 2/6 */
	CHECK_NEAR(plan_graph_deep_rate(g, 0), 0, 1e-12);
	CHECK_INT(plan_graph_set_deep(g, 0, 0.5), SIM_OK);
	CHECK_NEAR(plan_graph_deep_rate(g, 0), 0.5, 1e-6);
	uint32_t c2 = task(g, PLAN_STREAM_COMPUTE, PLAN_TASK_FWD, 1.0, UINT32_MAX);
	CHECK_INT(plan_graph_set_deep(g, c2, 0.25), SIM_OK);
	CHECK_NEAR(plan_graph_deep_rate(g, 0), 2.0 / 6.0, 1e-6);
	plan_graph_free(g);
}

int main(void)
{
	test_varying();
	test_exposed();
	test_hidden();
	test_limits();
	test_none();
	test_scenarios();
	test_threads();
	return check_done();
}
