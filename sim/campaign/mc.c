/* mc.c - the campaign's Monte Carlo and its closed forms (campaign.h).
 *
 * Units: seconds of wall time (double), counts, joules.
 *
 * The job: W = steps x step_s of work in n = ceil(steps / k) segments of
 * k = interval_steps steps (tau = k x step_s), the last holding the rest
 * (t_last). After each segment but the last a checkpoint stops training for
 * C = block_s. Failures of the job arrive as a Poisson process of rate l (the
 * causes' rates summed), so the time to the next failure is exponential
 * wherever we stand (memoryless): a draw never walks step by step, it jumps
 * from failure to failure. From a durable state, the next failure falls at
 * gap ~ Exp(l); the whole segments of a = tau + C that fit in it are done
 * (k = min(segments left, floor(gap / a))), and the failure lands in the
 * segment after them: its work so far is lost (recomputed later), or, if it
 * hit the checkpoint's block, the whole tau plus the block's part. Then a
 * restart of R seconds (requeue + process start + checkpoint load + warm-up
 * steps); a failure during it restarts the restart.
 *
 * Asynchronous checkpoints: the block is the copy into host memory and the
 * write lands P = persist_s later, while training continues. A failure in the
 * first P seconds of a segment that follows a checkpoint taken in this run
 * loses that checkpoint too: the previous segment's tau is recomputed as
 * well. When P > tau the next checkpoint must wait for the previous write:
 * campaign_setup then adds P - tau to the block (so P <= tau here).
 *
 * Expected wall time in closed form (sync, one restart cost, no spares;
 * Daly 2006, "A higher order estimate of the optimum checkpoint interval for
 * restart dumps", FGCS 22(3)). Let T(a) be the time to get through a stretch
 * of a seconds that must run without a failure (a segment and its
 * checkpoint), starting right after a restart or a checkpoint. With
 * probability e^{-la} no failure comes: time a. Otherwise a failure at
 * X < a, a completed restart (expected time E_R), and T(a) afresh:
 *   E[T] = a e^{-la} + (1 - e^{-la}) (E[X | X < a] + E_R + E[T]).
 * With (1 - e^{-la}) E[X | X < a] = 1/l - e^{-la} (a + 1/l) this solves to
 *   E[T(a)] = (e^{la} - 1) (1/l + E_R).
 * A restart of R seconds is itself a stretch that must run unbroken, whose
 * failures cost no further restart but a new one: E_R = (e^{lR} - 1) / l, so
 * 1/l + E_R = e^{lR} / l and
 *   E[T(a)] = e^{lR} (e^{la} - 1) / l,
 * and the campaign: E[wall] = (n - 1) E[T(tau + C)] + E[T(t_last)].
 * As l -> 0 it tends to W + (n - 1) C (expm1 keeps that exact in doubles).
 *
 * Young's optimum: the loss per unit work of a segment is about
 * C / tau + tau / (2 M) (a checkpoint per tau, and a failure every M = 1/l
 * seconds loses half a segment on average); its derivative vanishes at
 * tau = sqrt(2 C M). */
#include "campaign.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double campaign_young_daly(double block_s, double mtbf_s)
{
	return sqrt(2.0 * block_s * mtbf_s);
}

double campaign_expected_max_normal(double n)
{
	return n > 1 ? gsl_cdf_ugaussian_Pinv((n - 0.375) / (n + 0.25)) : 0;
}

double campaign_straggler(double sigma, double n)
{
	return exp(sigma * campaign_expected_max_normal(n));
}

/* e^{lR} (e^{la} - 1) / l, and a as l -> 0. */
static double stretch(double l, double r, double a)
{
	return l > 0 ? exp(l * r) * expm1(l * a) / l : a;
}

/* Segments and the last one's work. */
static void segments(const campaign_input *in, double *n, double *tau, double *last)
{
	double k = in->interval_steps;
	*n = ceil(in->steps / k);
	*tau = k * in->step_s;
	*last = (in->steps - (*n - 1) * k) * in->step_s;
}

double campaign_expected_wall(const campaign_input *in)
{
	double n, tau, last;
	segments(in, &n, &tau, &last);
	double l = in->rate_s, r = in->restart_s;
	return (n - 1) * stretch(l, r, tau + in->block_s) + stretch(l, r, last);
}

/* One draw's tallies. */
typedef struct draw {
	double wall, ckpt, restart, lost;
	double interruptions, swaps;
	double cause[CAMPAIGN_MAX_CAUSES];
} draw;

/* A growing list of timeline events (campaign_timeline); NULL in the
 * Monte Carlo, which records nothing. */
typedef struct rec {
	campaign_event *ev;
	size_t n, cap;
	bool oom;
} rec;

typedef struct mc {
	const campaign_input *in;
	sim_rng *rng;
	double cum[CAMPAIGN_MAX_CAUSES]; /* cumulative cause probabilities */
	double *spare_back;              /* when each spare is back from repair */
	rec *rec;
} mc;

static void record(mc *m, int kind, double start, double dur, int cause)
{
	rec *r = m->rec;
	if (!r || r->oom)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		campaign_event *e = realloc(r->ev, cap * sizeof *e);
		if (!e) {
			r->oom = true;
			return;
		}
		r->ev = e, r->cap = cap;
	}
	r->ev[r->n++] = (campaign_event){start, dur, kind, cause};
}

/* The causes' cumulative shares of the rate, for drawing a failure's cause. */
static void set_cum(mc *m)
{
	double acc = 0;
	for (int i = 0; i < m->in->ncauses; i++) {
		acc += m->in->cause[i].rate_s;
		m->cum[i] = m->in->rate_s > 0 ? acc / m->in->rate_s : 1;
	}
}

static double exp_draw(mc *m)
{
	double l = m->in->rate_s;
	return l > 0 ? -log1p(-sim_rng_uniform(m->rng)) / l : INFINITY;
}

/* A failure at time t: its cause, and the restart it needs (a spare swapped
 * in when the cause needs a node replaced and one is available). */
static double failure(mc *m, draw *d, double t)
{
	const campaign_input *in = m->in;
	double u = sim_rng_uniform(m->rng);
	int c = 0;
	while (c < in->ncauses - 1 && u >= m->cum[c])
		c++;
	d->interruptions += 1;
	if (in->ncauses > 0)
		d->cause[c] += 1;
	record(m, CAMPAIGN_EV_FAILURE, t, 0, in->ncauses > 0 ? c : -1);
	if (in->ncauses > 0 && in->cause[c].replace)
		for (int i = 0; i < in->spares; i++)
			if (m->spare_back[i] <= t) {
				m->spare_back[i] = t + in->repair_s;
				d->swaps += 1;
				return in->restart_s - in->requeue_s + in->spare_swap_s;
			}
	return in->restart_s;
}

/* Restart after a failure at time t (the failure's restart cost r): failures
 * during it start a new one. Returns the time it completes. */
static double restart(mc *m, draw *d, double t, double r)
{
	for (;;) {
		double x = exp_draw(m);
		if (x >= r) {
			d->restart += r;
			record(m, CAMPAIGN_EV_RESTART, t, r, -1);
			return t + r;
		}
		record(m, CAMPAIGN_EV_RESTART, t, x, -1);
		t += x;
		d->restart += x;
		r = failure(m, d, t);
	}
}

static void run_draw(mc *m, draw *d)
{
	const campaign_input *in = m->in;
	double n, tau, last;
	segments(in, &n, &tau, &last);
	double c = in->block_s, a = tau + c, p = in->persist_s;
	memset(d, 0, sizeof *d);
	for (int i = 0; i < in->spares; i++)
		m->spare_back[i] = 0;
	double t = 0, seg = 0, since = 0; /* segments durable; taken since the restart */
	for (;;) {
		double gap = exp_draw(m), t0 = t;
		double left = n - 1 - seg, k = floor(gap / a);
		if (k > left)
			k = left;
		t += k * a, seg += k, since += k, gap -= k * a;
		d->ckpt += k * c;
		bool final = seg == n - 1;
		if (final && gap >= last) {
			t += last;
			record(m, CAMPAIGN_EV_TRAIN, t0, t - t0, -1);
			break;
		}
		/* the failure, gap into the segment after the k done */
		t += gap;
		record(m, CAMPAIGN_EV_TRAIN, t0, t - t0, -1);
		double work = final ? last : tau;
		if (gap < work) {
			d->lost += gap;
		} else {
			d->lost += work;
			d->ckpt += gap - work;
		}
		if (p > 0 && since >= 1 && gap < p) {
			seg -= 1; /* the last checkpoint had not landed */
			d->lost += tau;
		}
		since = 0;
		t = restart(m, d, t, failure(m, d, t));
	}
	d->wall = t;
}

static void stats(double *x, size_t n, campaign_stats *s)
{
	s->mean = gsl_stats_mean(x, 1, n);
	s->sd = n > 1 ? gsl_stats_sd_m(x, 1, n, s->mean) : 0;
	gsl_sort(x, 1, n);
	s->p10 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.1);
	s->p50 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5);
	s->p90 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.9);
}

/* The goodput's histogram from its sorted draws x[0..n). */
static void histogram(const double *x, size_t n, campaign_result *out)
{
	out->hist_lo = x[0];
	out->hist_hi = x[n - 1];
	double w = (out->hist_hi - out->hist_lo) / CAMPAIGN_HIST_BINS;
	for (size_t j = 0; j < n; j++) {
		int b = w > 0 ? (int)((x[j] - out->hist_lo) / w) : 0;
		out->hist[b < CAMPAIGN_HIST_BINS ? b : CAMPAIGN_HIST_BINS - 1]++;
	}
}

static int check(const campaign_input *in)
{
	if (!(in->steps >= 1) || !(in->step_s > 0) || !(in->interval_steps >= 1) ||
	    in->draws < 1 || in->draws > CAMPAIGN_MAX_DRAWS || !(in->rate_s >= 0) ||
	    !(in->block_s >= 0) || !(in->restart_s >= 0) || !(in->persist_s >= 0) ||
	    in->ncauses < 0 || in->ncauses > CAMPAIGN_MAX_CAUSES || in->spares < 0 ||
	    in->spares > CAMPAIGN_MAX_SPARES || !isfinite(in->steps * in->step_s))
		return SIM_EINVAL;
	if (in->persist_s > in->interval_steps * in->step_s)
		return SIM_EINVAL;
	for (int i = 0; i < in->ncauses; i++)
		if (!(in->cause[i].rate_s >= 0))
			return SIM_EINVAL;
	return SIM_OK;
}

enum { S_DAYS, S_INT, S_GOOD, S_CKPT, S_REST, S_LOST, S_ENERGY, S_COST, S_CO2, S_COUNT };

/* Energy (J) of a draw: the cluster trains during work and recomputed
 * work, and stands stopped during checkpoints and restarts. */
static double energy_j(const campaign_input *in, double work, const draw *d)
{
	return in->train_w * (work + d->lost) + in->idle_w * (d->ckpt + d->restart);
}

int campaign_run(const campaign_input *in, campaign_result *out)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(out, 0, sizeof *out);
	out->in = *in;
	if (check(in) != SIM_OK)
		return SIM_EINVAL;
	mc m = {in, sim_rng_new(in->seed), {0}, NULL, NULL};
	size_t nd = (size_t)in->draws;
	double *col = malloc(nd * S_COUNT * sizeof *col);
	m.spare_back = malloc(((size_t)in->spares + 1) * sizeof *m.spare_back);
	if (!m.rng || !col || !m.spare_back) {
		sim_rng_free(m.rng);
		free(col);
		free(m.spare_back);
		return SIM_ENOMEM;
	}
	set_cum(&m);
	double work = in->steps * in->step_s;
	double kg_per_j = in->grid_kg_per_kwh / 3.6e6;
	for (size_t j = 0; j < nd; j++) {
		draw d;
		run_draw(&m, &d);
		double e = energy_j(in, work, &d);
		col[S_DAYS * nd + j] = d.wall / 86400;
		col[S_INT * nd + j] = d.interruptions;
		col[S_GOOD * nd + j] = work / d.wall;
		col[S_CKPT * nd + j] = d.ckpt / 3600;
		col[S_REST * nd + j] = d.restart / 3600;
		col[S_LOST * nd + j] = d.lost / 3600;
		col[S_ENERGY * nd + j] = e / 3.6e9;
		col[S_COST * nd + j] = in->gpus * d.wall / 3600 * in->gpu_hour_usd / 1e6;
		col[S_CO2 * nd + j] = e * kg_per_j / 1000;
		for (int i = 0; i < in->ncauses; i++)
			out->cause_mean[i] += d.cause[i] / (double)nd;
		out->spares_used += d.swaps / (double)nd;
	}
	campaign_stats *dst[S_COUNT] = {&out->days,   &out->interruptions, &out->goodput,
					&out->ckpt_h, &out->restart_h,     &out->lost_h,
					&out->energy_mwh, &out->cost_musd, &out->tco2};
	for (int k = 0; k < S_COUNT; k++)
		stats(col + (size_t)k * nd, nd, dst[k]);
	histogram(col + S_GOOD * nd, nd, out); /* sorted by stats() */
	double n, tau, last;
	segments(in, &n, &tau, &last);
	out->work_s = work;
	out->ideal_days = (work + (n - 1) * in->block_s) / 86400;
	out->expected_days = in->spares == 0 && in->persist_s == 0
				     ? campaign_expected_wall(in) / 86400
				     : NAN;
	sim_rng_free(m.rng);
	free(col);
	free(m.spare_back);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	return SIM_OK;
}

/* The first draw of campaign_run again, recording its events. */
int campaign_timeline(const campaign_input *in, campaign_event **ev, size_t *n)
{
	*ev = NULL;
	*n = 0;
	if (check(in) != SIM_OK)
		return SIM_EINVAL;
	rec r = {NULL, 0, 0, false};
	mc m = {in, sim_rng_new(in->seed), {0}, malloc(((size_t)in->spares + 1) * sizeof(double)),
		&r};
	if (!m.rng || !m.spare_back) {
		sim_rng_free(m.rng);
		free(m.spare_back);
		return SIM_ENOMEM;
	}
	set_cum(&m);
	draw d;
	run_draw(&m, &d);
	sim_rng_free(m.rng);
	free(m.spare_back);
	if (r.oom) {
		free(r.ev);
		return SIM_ENOMEM;
	}
	*ev = r.ev;
	*n = r.n;
	return SIM_OK;
}
