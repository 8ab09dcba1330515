/* test_campaign.c - sim/campaign: Young/Daly's optimum, the closed-form
 * expected wall time against the Monte Carlo, determinism, the reliability
 * table's scaling and its bad rows. */
#include "campaign/campaign.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A hand-made campaign: 10,000 steps of 10 s (W = 1e5 s), a checkpoint
 * every 100 steps (tau = 1,000 s) stopping training 60 s, restarts of 600 s,
 * failures at 1 per 2 h, no causes table (one anonymous cause). */
static campaign_input base(void)
{
	campaign_input in;
	memset(&in, 0, sizeof in);
	in.step_s = 10;
	in.steps = 10000;
	in.tokens_per_step = 1e6;
	in.gpus = 8, in.nodes = 1, in.nics = 1;
	in.interval_steps = 100;
	in.block_s = 60;
	in.write_s = in.read_s = 60;
	in.restart_s = 600;
	in.requeue_s = 600;
	in.rate_s = 1.0 / 7200;
	in.draws = 4000;
	in.seed = 7;
	return in;
}

/* Young: tau = sqrt(2 C M); C = 60 s, M = 3 h = 10,800 s:
 * sqrt(2 x 60 x 10,800) = sqrt(1,296,000) = 1,138.42 s. Daly's higher-order
 * optimum (Daly 2006, FGCS 22(3), for C < 2M):
 *   sqrt(2CM) [1 + (1/3) sqrt(C/(2M)) + (1/9) (C/(2M))] - C
 *   = 1,138.42 x (1 + 0.017568 + 0.000309) - 60 = 1,098.77 s,
 * which is where the exact expected wall time (e^{l(tau+C)} - 1 per tau of
 * work) is lowest: the scan over whole seconds below finds it within 0.5 %,
 * and Young's first-order figure within 4 %. */
static void young_daly(void)
{
	CHECK_NEAR(campaign_young_daly(60, 10800), 1138.42, 1e-5);
	CHECK_NEAR(campaign_young_daly(0, 10800), 0, 0);
	campaign_input in = base();
	in.step_s = 1;
	in.steps = 1e8;
	in.block_s = 60;
	in.restart_s = 0;
	in.rate_s = 1.0 / 10800;
	double best = INFINITY, arg = 0;
	for (double k = 700; k <= 1600; k += 1) {
		in.interval_steps = k;
		double w = campaign_expected_wall(&in);
		if (w < best)
			best = w, arg = k;
	}
	CHECK_NEAR(arg, 1098.77, 0.005);
	CHECK_NEAR(arg, campaign_young_daly(60, 10800), 0.04);
}

/* The closed form of mc.c on base(): l = 1/7200 s, R = 600 s, a = 1,060 s
 * (tau + C), 100 segments, the last without its checkpoint:
 *   e^{lR} = e^{1/12} = 1.086904;
 *   E[T(1060)] = 1.086904 x (e^{0.147222} - 1) x 7200
 *              = 1.086904 x 0.158613 x 7200 = 1,241.26 s;
 *   E[T(1000)] = 1.086904 x (e^{0.138889} - 1) x 7200
 *              = 1.086904 x 0.148976 x 7200 = 1,165.83 s;
 *   E[wall] = 99 x 1,241.26 + 1,165.83 = 124,050 s; goodput 1e5 / E = 0.8061.
 * The Monte Carlo's mean of 4,000 campaigns must fall within 4 standard
 * errors (sd / sqrt(4000)) of it: a 1-in-15,000 chance of a false alarm
 * for a given seed, and the seed is fixed. */
static void closed_form(void)
{
	campaign_input in = base();
	double e = campaign_expected_wall(&in);
	CHECK_NEAR(e, 124050, 2e-4);
	campaign_result *r = malloc(sizeof *r);
	CHECK(campaign_run(&in, r) == SIM_OK);
	double mean_s = r->days.mean * 86400, se = r->days.sd * 86400 / sqrt(in.draws);
	CHECK(fabs(mean_s - e) < 4 * se);
	CHECK(se < 0.005 * e); /* the tolerance is tight enough to mean something */
	CHECK_NEAR(r->expected_days * 86400, e, 1e-12);
	/* goodput of the mean campaign vs the mean goodput: Jensen, within 1 % */
	CHECK_NEAR(r->goodput.mean, 1e5 / e, 0.01);
	/* interruptions: a Poisson process over the wall time, E[N] = l E[wall] */
	CHECK_NEAR(r->interruptions.mean, e / 7200, 0.02);
	/* the parts add up: work + checkpoints + restarts + recomputed = wall */
	CHECK_NEAR(1e5 / 3600 + r->ckpt_h.mean + r->restart_h.mean + r->lost_h.mean,
		   r->days.mean * 24, 1e-9);
	CHECK(r->days.p10 <= r->days.p50 && r->days.p50 <= r->days.p90);
	free(r);
}

/* Hour-long restarts (l R = 1/2): failures during a restart now weigh. A
 * restart then takes (e^{lR} - 1) / l = 7,200 x 0.648721 = 4,671 s on
 * average, not R = 3,600 s; a Monte Carlo that let restarts finish
 * unharmed would come out about 10 % short.
 *   e^{lR} = e^{0.5} = 1.648721;
 *   E[T(1060)] = 1.648721 x 0.158613 x 7200 = 1,882.84 s;
 *   E[T(1000)] = 1.648721 x 0.148976 x 7200 = 1,768.71 s;
 *   E[wall] = 99 x 1,882.84 + 1,768.71 = 188,170 s. */
static void long_restarts(void)
{
	campaign_input in = base();
	in.restart_s = in.requeue_s = 3600;
	double e = campaign_expected_wall(&in);
	CHECK_NEAR(e, 188170, 1e-4);
	campaign_result *r = malloc(sizeof *r);
	CHECK(campaign_run(&in, r) == SIM_OK);
	double mean_s = r->days.mean * 86400, se = r->days.sd * 86400 / sqrt(in.draws);
	CHECK(fabs(mean_s - e) < 4 * se);
	CHECK(se < 0.01 * e);
	/* restart time per interruption: the mean of R-long attempts cut short */
	CHECK_NEAR(r->restart_h.mean / r->interruptions.mean * 3600,
		   (1 - exp(-0.5)) * 7200, 0.03);
	free(r);
}

/* Without failures the campaign is the work and 99 checkpoints exactly. */
static void no_failures(void)
{
	campaign_input in = base();
	in.rate_s = 0;
	in.draws = 3;
	campaign_result *r = malloc(sizeof *r);
	CHECK(campaign_run(&in, r) == SIM_OK);
	CHECK_NEAR(r->days.mean * 86400, 1e5 + 99 * 60, 1e-12);
	CHECK_NEAR(r->interruptions.p90, 0, 0);
	CHECK_NEAR(r->ideal_days * 86400, 1e5 + 99 * 60, 1e-12);
	CHECK_NEAR(r->expected_days, r->ideal_days, 1e-12);
	free(r);
}

static void determinism(void)
{
	campaign_input in = base();
	in.draws = 500;
	campaign_result *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	CHECK(campaign_run(&in, a) == SIM_OK);
	CHECK(campaign_run(&in, b) == SIM_OK);
	CHECK(!memcmp(&a->days, &b->days, sizeof a->days));
	CHECK(!memcmp(&a->lost_h, &b->lost_h, sizeof a->lost_h));
	CHECK(a->interruptions.mean == b->interruptions.mean);
	in.seed = 8;
	CHECK(campaign_run(&in, b) == SIM_OK);
	CHECK(a->days.mean != b->days.mean);
	free(a);
	free(b);
}

/* Asynchronous checkpoints: a failure in the first P seconds after a
 * checkpoint loses one more segment. With P = 500 s and tau = 1,000 s about
 * half the failures that follow a checkpoint of this run cost 1,000 s more
 * of recomputation, so the recomputed time grows by far more than noise;
 * spares that swap in at no cost shorten every restart of a cause that
 * replaces a node. */
static void async_and_spares(void)
{
	campaign_input in = base();
	in.draws = 2000;
	campaign_result *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	CHECK(campaign_run(&in, a) == SIM_OK);
	in.persist_s = 500;
	CHECK(campaign_run(&in, b) == SIM_OK);
	CHECK(b->lost_h.mean > a->lost_h.mean + 0.25 * a->interruptions.mean * 1000 / 3600);
	CHECK(isnan(b->expected_days));
	in.persist_s = 2000; /* more than tau: campaign_setup folds it into the block */
	CHECK(campaign_run(&in, b) == SIM_EINVAL);
	in = base();
	in.draws = 2000;
	in.ncauses = 1;
	in.cause[0].rate_s = in.rate_s;
	in.cause[0].replace = true;
	in.spares = 4;
	in.spare_swap_s = 0;
	in.repair_s = 3600;
	CHECK(campaign_run(&in, b) == SIM_OK);
	CHECK(b->restart_h.mean < 0.5 * a->restart_h.mean);
	CHECK(b->spares_used > 0.9 * b->interruptions.mean);
	free(a);
	free(b);
}

static void bad_input(void)
{
	campaign_input in = base();
	campaign_result *r = malloc(sizeof *r);
	in.interval_steps = 0.5;
	CHECK(campaign_run(&in, r) == SIM_EINVAL);
	in = base();
	in.rate_s = -1;
	CHECK(campaign_run(&in, r) == SIM_EINVAL);
	in = base();
	in.steps = 0;
	CHECK(campaign_run(&in, r) == SIM_EINVAL);
	free(r);
}

/* The shipped Llama 3 table scaled to its own cluster gives back its 419
 * interruptions in 54 days; on twice the GPUs and nodes, twice the rate. */
static void reliability(void)
{
	campaign_ref ref = {54 * 86400.0, 16384, 2048, 16384, 1};
	campaign_input in;
	memset(&in, 0, sizeof in);
	in.gpus = 16384, in.nodes = 2048, in.nics = 16384;
	sim_diag *d = sim_diag_new();
	const char *table = "topologies/reliability/llama3-405b-interruptions.csv";
	CHECK(campaign_read_causes(table, &ref, &in, d) == SIM_OK);
	CHECK_INT(in.ncauses, 18);
	CHECK_NEAR(in.rate_s * ref.window_s, 419, 1e-12);
	CHECK_STR(in.cause[0].name, "Faulty GPU");
	CHECK_NEAR(in.cause[0].rate_s * ref.window_s, 148, 1e-12);
	double one = in.rate_s;
	in.gpus *= 2, in.nodes *= 2, in.nics *= 2;
	CHECK(campaign_read_causes(table, &ref, &in, d) == SIM_OK);
	CHECK_NEAR(in.rate_s, 2 * one, 1e-12);
	/* GPU category: 148 + 72 + 19 + 17 + 6 + 6 = 268 of 419 (64 %) */
	double gpu = 0;
	for (int i = 0; i < in.ncauses; i++)
		if (!strcmp(in.cause[i].category, "GPU"))
			gpu += in.cause[i].rate_s;
	CHECK_NEAR(gpu / in.rate_s, 268.0 / 419, 1e-12);
	CHECK_INT(sim_diag_error_count(d), 0);
	/* bad rows: a negative count and an unknown component, each at its line */
	char path[] = "/tmp/podsim-rel-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL);
	if (f) {
		fputs("component,category,interruptions,per,replace\n"
		      "A,GPU,3,gpu,yes\n"
		      "B,GPU,-2,gpu,yes\n"
		      "C,Host,1,rack,no\n",
		      f);
		fclose(f);
	}
	CHECK(campaign_read_causes(path, &ref, &in, d) == SIM_ECONF);
	CHECK_INT(sim_diag_error_count(d), 2);
	char want[128];
	snprintf(want, sizeof want,
		 "%s:3: error: column 'interruptions': a count of failures must be 0 or more, "
		 "got '-2'",
		 path);
	CHECK_STR(sim_diag_text(d, 0), want);
	snprintf(want, sizeof want, "%s:4: error: column 'per': expected gpu, node or nic, got 'rack'",
		 path);
	CHECK_STR(sim_diag_text(d, 1), want);
	remove(path);
	sim_diag_free(d);
}

/* Stragglers: the expected maximum of n standard normals, exactly
 * 1/sqrt(pi) = 0.56419 for n = 2, and 1.16296 (n = 5), 1.53875 (n = 10)
 * from the tables of order statistics (Harter 1961); Blom's approximation
 * is within 5 % of them, and one GPU waits for nobody. */
static void stragglers(void)
{
	CHECK_NEAR(campaign_expected_max_normal(2), 1 / sqrt(M_PI), 0.05);
	CHECK_NEAR(campaign_expected_max_normal(5), 1.16296, 0.05);
	CHECK_NEAR(campaign_expected_max_normal(10), 1.53875, 0.05);
	CHECK_NEAR(campaign_straggler(0.02, 1), 1, 0);
	CHECK_NEAR(campaign_straggler(0, 16384), 1, 0);
	/* 16,384 GPUs: E[max] = Phi^-1(16383.625 / 16384.25) = Phi^-1(0.9999619)
	 * = 3.956, so a 2 % jitter per GPU slows every step by
	 * e^{0.02 x 3.956} = 1.0823 */
	CHECK_NEAR(campaign_expected_max_normal(16384), 3.956, 0.001);
	CHECK_NEAR(campaign_straggler(0.02, 16384), 1.0823, 1e-4);
	CHECK_NEAR(campaign_straggler(0.02, 16384), exp(0.02 * campaign_expected_max_normal(16384)),
		   1e-12);
}

/* The timeline is the Monte Carlo's first draw: with one draw, its failures
 * are the interruptions counted, and its training and restart stretches
 * tile the wall time without gaps. */
static void timeline(void)
{
	campaign_input in = base();
	in.draws = 1;
	campaign_result *r = malloc(sizeof *r);
	CHECK(campaign_run(&in, r) == SIM_OK);
	campaign_event *ev;
	size_t n;
	CHECK(campaign_timeline(&in, &ev, &n) == SIM_OK);
	double fails = 0, t = 0;
	bool tiled = true;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == CAMPAIGN_EV_FAILURE) {
			fails += 1;
			continue;
		}
		tiled = tiled && fabs(ev[i].start_s - t) <= 1e-9 * (1 + t);
		t = ev[i].start_s + ev[i].dur_s;
	}
	CHECK(tiled);
	CHECK(fails > 5);
	CHECK_NEAR(fails, r->interruptions.mean, 0);
	CHECK_NEAR(t, r->days.mean * 86400, 1e-12);
	int total = 0;
	for (int i = 0; i < CAMPAIGN_HIST_BINS; i++)
		total += r->hist[i];
	CHECK_INT(total, 1);
	free(ev);
	free(r);
}

int main(void)
{
	timeline();
	stragglers();
	young_daly();
	closed_form();
	long_restarts();
	no_failures();
	determinism();
	async_and_spares();
	bad_input();
	reliability();
	return check_done();
}
