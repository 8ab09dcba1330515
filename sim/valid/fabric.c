/* fabric.c - calibrating a cluster's fabric (EFA, InfiniBand, RoCE) to its
 * own collective benchmarks (podsim calibrate --fabric; valid.h).
 *
 * Model: net_collective (alpha-beta) on the cluster with the row's node
 * count, the row's GPUs filling the nodes in order; on an uncongested,
 * non-blocking EFA fabric the flow model gives the same times
 * (tests/unit/test_topo.c, efa_rails), so what validate predicts with
 * either is what was fitted. Off EFA the flow model routes each flow (hash
 * ECMP on RoCE) and would add its collisions to the congestion the rows
 * measured: the include file then sets network = alpha-beta
 * (fabric_print.c). A CSV row is fitted when its fabric column, where the
 * file has one, names the cluster's (valid_fab_case_fabric). The calibrated
 * terms are EFA's model's (sim/net/coll.c, "The EFA model", 1., 2., 4. and
 * 5.), on top of NCCL's own model on any fabric. Parameters (net.h, "The
 * EFA model" in sim/net/coll.c), each kept inside its bounds by a logistic transform
 * x = lo + (hi - lo) / (1 + exp(-u)):
 *     [node] intra_efficiency   (0.05, 1)         the NVLink ring's share of intra_bw
 *     [node] nvls_busbw         (10 GB/s, 2 intra_bw)  the NVLS ceiling
 *     [cluster] net_latency     (0, 1 ms)         per inter-node step, twice with Simple
 *     [cluster] msg_overhead    (0, 100 us)       per step across nodes
 *     [cluster] rail_bw         (0.5 GB/s, nic_bw) achievable per NIC (EFA: per rail)
 *     [cluster] congestion      (0, 20)           kappa(m) = 1 + congestion (m-1)^exp
 *     [cluster] congestion_exp  (0, 3)            also the sync delay's exponent
 *     [cluster] sync_delay      (0, 10 ms)        D(m) = sync_delay (m-1)^exp per call
 * A parameter no row depends on (no 1-node all-reduce: nvls_busbw) is left
 * out and named; one the user holds (calibrate --hold KEY=VALUE,
 * valid_fab_hold: what these rows leave weakly determined and another
 * measurement gives) leaves the fit at its value, within the same bounds.
 * A parameter the fit drives to a bound of its range (within 1e-4 of the
 * range: no message cost, no congestion, a NIC at its line rate; the rows
 * want it there or past it) has no estimate, and its saturated transform
 * keeps the solver from converging: it leaves the fit at that bound, into
 * the cluster as a held one goes, is named as such (written to the include
 * file), and the others are fitted again (pin_bounds); a parameter that no
 * row depends on once it is pinned (congestion_exp beside no congestion)
 * is left out as above. Rows of one node count across nodes without
 * their fastest runs (no 5th-95th percentiles: a user's nccl-tests output
 * on one cluster size, means of blocking calls) cannot tell the
 * congestion and the per-call wait from the per-step costs: both are then
 * the uncongested fabric's, 0, not fitted and named so (no_spread;
 * `--hold` still sets them).
 * The start is fixed, not the cluster file's current values,
 * so that refitting gives the same file: intra_efficiency 0.822 and
 * nvls_busbw 480 GB/s (DGX H100's, topologies/nodes/dgx-h100.ini),
 * net_latency 75 us (what aws-ofi-nccl reports on p5, A src/platform-aws.cpp:
 * 137), msg_overhead 1 us, rail_bw 0.8 x nic_bw, congestion 0.1, exponent 1,
 * sync_delay 100 us;
 * the solver also starts from net_latency 20 us and congestion 1 (the
 * residual surface has more than one basin: latency and congestion trade)
 * and keeps the lowest chi^2.
 *
 * Residuals (relative, so a 1 ms and a 25 ms row weigh alike): every row
 * gives r = t(median) / measured median - 1; a row with busbw_p95_GBps
 * (the fastest 5 % of its runs) also r = t(kappa = 1, no sync delay) /
 * fastest time - 1: the fastest runs are taken as the uncongested fabric,
 * which separates congestion and the per-call wait from the per-step
 * costs (NCCL's choice of algorithm and protocol is made on its own view
 * in both, net_efa_choice). GSL multifit_nlinear, trust region
 * with Levenberg-Marquardt steps, finite-difference Jacobian, as
 * sim/calib/fit.c; standard errors from (J^T J)^-1 chi^2 / (n - p) through
 * the transform (delta method).
 *
 * Leave one node count out: for each node count, the fit is repeated
 * without its rows (from the full fit's values) and predicts their medians;
 * the MAPE per node count and over all rows measures how the model carries
 * to node counts it was not fitted on.
 *
 * Spread: per node count, the geometric means over its rows of the fastest
 * and slowest time over the median (busbw_median / busbw_p95 and
 * busbw_median / busbw_p05), written as [cluster] spread for a later
 * step-time band.
 *
 * What the medians add to the fastest runs (excess_by_nodes; printed, a
 * diagnostic of the data, not fitted): per node count, the one per-call
 * wait E that, added to every row's fastest run f_r, fits the medians t_r
 * best in relative terms,
 *     min_E sum_r ((f_r + E - t_r) / t_r)^2
 *     =>  E = sum_r (t_r - f_r) / t_r^2  /  sum_r 1 / t_r^2,
 * and the median it misses most. Where E leaves every median close, the
 * medians' excess is a wait common to the collectives (model term 5., the
 * sync delay) rather than a stretch of each one's own time (4., kappa);
 * a fit smooth in the node count can then be no better than E(m) is
 * smooth. On tests/cases/efa-collectives.csv E leaves every median of 2-32
 * nodes within 8.5 % (4.5 % but the 16-node all-reduce) while one stretch
 * per node count misses 4 and 8 nodes by 12-20 %, and E grows 4.0, 2.4,
 * 1.2, 2.0 and 2.7 times per doubling from 2 to 64 nodes: the 8 -> 16
 * step is what no power law of m gives (README "NCCL over AWS EFA").
 */
#include "../calib/calib.h"
#include "valid_int.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The solver stops after 300 iterations or at these tolerances. */
static const calib_lm_stop lm_stop = {300, 1e-10, 1e-10, 1e-12};

/* The keys are net's list (net_efa_fit_key); valid_fab_kind follows its order. */
_Static_assert(VALID_FP_COUNT == NET_EFA_FIT_KEYS, "valid_fab_kind is net_efa_fit_key's order");

const char *valid_fab_key(valid_fab_kind k)
{
	return (unsigned)k < VALID_FP_COUNT ? net_efa_fit_key((int)k) : "?";
}

const char *valid_fab_section(valid_fab_kind k)
{
	return k == VALID_FP_INTRA_EFF || k == VALID_FP_NVLS ? "node" : "cluster";
}

sim_unit valid_fab_unit(valid_fab_kind k)
{
	switch (k) {
	case VALID_FP_NVLS:
	case VALID_FP_RAIL:
		return SIM_UNIT_BANDWIDTH;
	case VALID_FP_NET_LAT:
	case VALID_FP_MSG:
	case VALID_FP_SYNC:
		return SIM_UNIT_TIME;
	default:
		return SIM_UNIT_NONE;
	}
}

int valid_fab_hold(valid_fab_fit *f, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	if (!eq) {
		snprintf(err, errlen, "--hold takes KEY=VALUE, e.g. net_latency=75us");
		return SIM_ECONF;
	}
	size_t n = (size_t)(eq - spec);
	int k = net_efa_fit_key_find(spec, n);
	if (k < 0) {
		char keys[160];
		net_efa_fit_key_list(keys, sizeof keys);
		snprintf(err, errlen, "--hold: unknown key '%.*s' (%s)", (int)n, spec, keys);
		return SIM_ECONF;
	}
	char why[160];
	double x;
	sim_unit u = valid_fab_unit((valid_fab_kind)k);
	if (sim_unit_parse(eq + 1, u, &x, why, sizeof why) != SIM_OK) {
		snprintf(err, errlen, "--hold %s: %s", net_efa_fit_key(k), why);
		return SIM_ECONF;
	}
	f->pin[k] = VALID_PIN_HELD;
	f->pin_value[k] = x;
	return SIM_OK;
}

static void set_param(net_cluster *c, valid_fab_kind k, double x)
{
	switch (k) {
	case VALID_FP_INTRA_EFF:
		c->node.intra_eff = x;
		break;
	case VALID_FP_NVLS:
		c->node.nvls_busbw_Bps = x;
		break;
	case VALID_FP_NET_LAT:
		c->net_lat_s = x;
		break;
	case VALID_FP_MSG:
		c->msg_overhead_s = x;
		break;
	case VALID_FP_RAIL:
		c->rail_Bps = x;
		c->node.nic_eff = x / c->node.nic_Bps;
		break;
	case VALID_FP_CONG:
		c->congestion = x;
		break;
	case VALID_FP_SYNC:
		c->sync_s = x;
		break;
	default:
		c->congestion_exp = x;
		break;
	}
}

static double get_param(const net_cluster *c, valid_fab_kind k)
{
	switch (k) {
	case VALID_FP_INTRA_EFF:
		return c->node.intra_eff;
	case VALID_FP_NVLS:
		return c->node.nvls_busbw_Bps;
	case VALID_FP_NET_LAT:
		return c->net_lat_s;
	case VALID_FP_MSG:
		return c->msg_overhead_s;
	case VALID_FP_RAIL:
		return c->node.nic_Bps * c->node.nic_eff;
	case VALID_FP_CONG:
		return c->congestion;
	case VALID_FP_SYNC:
		return c->sync_s;
	default:
		return c->congestion_exp;
	}
}

/* Predicted time of row r on cluster c, as its benchmark's clock holds it
 * (the host issue of a blocking benchmark's call added, as validate adds
 * it); fast: without congestion and sync delay (the uncongested fabric). */
static double predict(const net_cluster *c, const valid_fab_row *r, bool fast)
{
	net_cluster x = *c;
	x.nodes = r->nodes;
	x.gpus = r->nodes * x.node.gpus;
	if (fast) {
		x.congestion = 0;
		x.sync_s = 0;
	}
	net_group g;
	net_group_make(&x, r->gpus, 1, &g);
	net_cost cost;
	return net_collective(&x, r->coll, &g, r->bytes, &cost) == SIM_OK ? cost.time_s + r->issue_s
									   : NAN;
}

/* ------------------------------------------------------------------ fit -- */

typedef struct ctx {
	valid_fab_fit *f;
	net_cluster c;   /* scratch: the cluster at the current parameters */
	const char *use; /* per row: 1 = fitted (leave-one-out drops some) */
	size_t nres;
} ctx;

static double sigma(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

static double to_x(const valid_fab_param *p, double u)
{
	return p->lo + (p->hi - p->lo) * sigma(u);
}

static double to_u(const valid_fab_param *p, double x)
{
	double t = (x - p->lo) / (p->hi - p->lo);
	t = t < 1e-6 ? 1e-6 : t > 1 - 1e-6 ? 1 - 1e-6 : t;
	return log(t / (1 - t));
}

static void apply(ctx *k, const double *u)
{
	for (size_t j = 0; j < k->f->nparams; j++)
		set_param(&k->c, k->f->params[j].kind, to_x(&k->f->params[j], u[j]));
}

static int residuals(const gsl_vector *u, void *data, gsl_vector *out)
{
	ctx *k = data;
	double x[VALID_FP_COUNT];
	for (size_t j = 0; j < k->f->nparams; j++)
		x[j] = gsl_vector_get(u, j);
	apply(k, x);
	size_t i = 0;
	for (size_t r = 0; r < k->f->nrows; r++) {
		const valid_fab_row *w = &k->f->rows[r];
		if (!k->use[r])
			continue;
		double t = predict(&k->c, w, false);
		gsl_vector_set(out, i++, isfinite(t) ? t / w->median_s - 1 : 1e3);
		if (w->fast_s > 0) {
			t = predict(&k->c, w, true);
			gsl_vector_set(out, i++, isfinite(t) ? t / w->fast_s - 1 : 1e3);
		}
	}
	return GSL_SUCCESS;
}

static size_t count_res(const valid_fab_fit *f, const char *use)
{
	size_t n = 0;
	for (size_t r = 0; r < f->nrows; r++)
		n += use[r] ? 1 + (f->rows[r].fast_s > 0) : 0;
	return n;
}

/* One Levenberg-Marquardt solve from u (updated, calib_lm_solve); chi^2
 * into *chi2. With se, the standard errors of f's parameters from this
 * solve. */
static int solve(ctx *k, double *u, double *chi2, bool se, size_t *iters, calib_lm_result *out)
{
	valid_fab_fit *f = k->f;
	calib_lm lm = {residuals, k, k->nres, f->nparams, lm_stop, se ? f->dof : 0};
	calib_lm_result res;
	int rc = calib_lm_solve(&lm, u, &res);
	if (rc != SIM_OK)
		return rc;
	*chi2 = res.chi2;
	*iters = res.iterations;
	*out = res;
	if (se) {
		f->has_corr = lm.dof > 0;
		for (size_t j = 0; j < lm.p * lm.p && f->has_corr; j++)
			f->corr[j] = res.corr[j];
	}
	for (size_t j = 0; j < lm.p && lm.dof > 0; j++) {
		valid_fab_param *q = &f->params[j];
		double s = sigma(u[j]);
		q->se = (q->hi - q->lo) * s * (1 - s) * res.sd[j];
		q->has_se = isfinite(q->se);
	}
	return SIM_OK;
}

/* The parameters and their bounds and starts (header comment). */
static void choose(valid_fab_fit *f)
{
	const net_node *nd = &f->cluster.node;
	const double lo[VALID_FP_COUNT] = {0.05, 10e9, 0, 0, 0.5e9, 0, 0, 0};
	const double hi[VALID_FP_COUNT] = {1, 2 * nd->intra_Bps, 1e-3, 1e-4, nd->nic_Bps, 20, 3,
	                                   10e-3};
	const double start[VALID_FP_COUNT] = {0.822, 480e9,          75e-6, 1e-6,
	                                      0.8 * nd->nic_Bps, 0.1, 1,    100e-6};
	f->nparams = 0;
	for (int k = 0; k < VALID_FP_COUNT; k++)
		f->params[f->nparams++] = (valid_fab_param){
		        (valid_fab_kind)k, lo[k], hi[k], start[k], start[k], 0, false};
}

/* Does any residual move when parameter j moves by 1 % of its range from
 * x (its value in `at`)? */
static bool identifiable(const valid_fab_fit *f, const net_cluster *at, size_t j, double x)
{
	const valid_fab_param *p = &f->params[j];
	net_cluster a = *at, b = *at;
	double step = 0.01 * (p->hi - p->lo);
	set_param(&b, p->kind, x + (x + step < p->hi ? step : -step));
	for (size_t r = 0; r < f->nrows; r++)
		for (int fast = 0; fast < 1 + (f->rows[r].fast_s > 0); fast++) {
			double ta = predict(&a, &f->rows[r], fast),
			       tb = predict(&b, &f->rows[r], fast);
			if (fabs(ta - tb) > 1e-9 * ta)
				return true;
		}
	return false;
}

static double mape_of(const valid_fab_fit *f, int which)
{
	double s = 0;
	size_t n = 0;
	for (size_t r = 0; r < f->nrows; r++) {
		const valid_fab_row *w = &f->rows[r];
		double t = which == 0 ? w->before_s : which == 1 ? w->after_s : w->fast_after_s;
		double m = which == 2 ? w->fast_s : w->median_s;
		if (m > 0) {
			s += fabs(t - m) / m;
			n++;
		}
	}
	return n ? s / (double)n : 0;
}

/* Best of the starts (header comment) into u; chi^2 returned. */
static int multistart(ctx *k, double *u, bool se, double *chi2_out)
{
	valid_fab_fit *f = k->f;
	static const double lat[] = {75e-6, 20e-6}, cong[] = {0.1, 1.0};
	double best = INFINITY, ub[VALID_FP_COUNT], t[VALID_FP_COUNT];
	size_t iters = 0;
	int rc = SIM_OK;
	for (int a = 0; a < 2 && rc == SIM_OK; a++)
		for (int b = 0; b < 2 && rc == SIM_OK; b++) {
			for (size_t j = 0; j < f->nparams; j++) {
				const valid_fab_param *p = &f->params[j];
				double x = p->kind == VALID_FP_NET_LAT ? lat[a]
				           : p->kind == VALID_FP_CONG  ? cong[b]
				                                       : p->start;
				t[j] = to_u(p, x);
			}
			double chi2;
			size_t it = 0;
			calib_lm_result res;
			rc = solve(k, t, &chi2, false, &it, &res);
			if (rc == SIM_OK && chi2 < best) {
				best = chi2;
				iters = it;
				memcpy(ub, t, sizeof t);
				f->converged = res.converged;
				f->stop = res.stop;
			}
		}
	if (rc == SIM_OK && se) { /* the best again, for its statistics */
		size_t it;
		calib_lm_result res;
		rc = solve(k, ub, &best, true, &it, &res);
		f->iterations = iters + it;
		/* Whether the fit converged is the best start's solve's: from
		 * its optimum GSL's driver finds no step and reports
		 * GSL_EMAXITER after one pass (no progress on the first
		 * iteration, multifit_nlinear/driver.c), which said "NOT
		 * converged" of a fit that had (the shipped EFA fit until
		 * 2026-11-29); only a re-solve that moved says more. */
		if (rc == SIM_OK && it > 1) {
			f->converged = res.converged;
			f->stop = res.stop;
		}
	}
	memcpy(u, ub, sizeof ub);
	*chi2_out = best;
	return rc;
}

/* Leave each node count out (header comment). */
static int leave_out(valid_fab_fit *f, const double *u_full)
{
	char *use = malloc(f->nrows + 1);
	if (!use)
		return SIM_ENOMEM;
	double sum = 0;
	int rc = SIM_OK;
	for (int i = 0; i < f->nnodes && rc == SIM_OK; i++) {
		for (size_t r = 0; r < f->nrows; r++)
			use[r] = f->rows[r].nodes != f->nodes[i];
		ctx k = {f, f->cluster, use, count_res(f, use)};
		double u[VALID_FP_COUNT], chi2;
		memcpy(u, u_full, sizeof u);
		bool can = k.nres >= f->nparams; /* else no prediction for these rows */
		size_t it;
		calib_lm_result res;
		if (can && f->nparams > 0) /* none left: the pinned cluster predicts */
			rc = solve(&k, u, &chi2, false, &it, &res);
		apply(&k, u);
		double s = 0;
		int n = 0;
		for (size_t r = 0; r < f->nrows && rc == SIM_OK; r++) {
			valid_fab_row *w = &f->rows[r];
			if (use[r])
				continue;
			w->loo_s = can ? predict(&k.c, w, false) : NAN;
			s += fabs(w->loo_s - w->median_s) / w->median_s;
			n++;
		}
		f->loo_mape[i] = n ? s / n : NAN;
		sum += s;
	}
	f->loo_all = f->nrows ? sum / (double)f->nrows : NAN;
	free(use);
	return rc;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Distinct node counts, and the spread of each. */
static void node_counts(valid_fab_fit *f)
{
	f->nnodes = 0;
	for (size_t r = 0; r < f->nrows; r++) {
		bool seen = false;
		for (int i = 0; i < f->nnodes; i++)
			seen |= f->nodes[i] == f->rows[r].nodes;
		if (!seen && f->nnodes < VALID_FAB_MAX_NODES)
			f->nodes[f->nnodes++] = f->rows[r].nodes;
	}
	qsort(f->nodes, (size_t)f->nnodes, sizeof f->nodes[0], cmp_int);
	f->nspread = 0;
	for (int i = 0; i < f->nnodes && f->nspread < NET_SPREAD_MAX; i++) {
		double lo = 0, hi = 0;
		int n = 0;
		for (size_t r = 0; r < f->nrows; r++) {
			const valid_fab_row *w = &f->rows[r];
			if (w->nodes != f->nodes[i] || !(w->fast_s > 0) || !(w->slow_s > 0))
				continue;
			lo += log(w->fast_s / w->median_s);
			hi += log(w->slow_s / w->median_s);
			n++;
		}
		if (n > 0)
			f->spread[f->nspread++] =
			        (net_spread){f->nodes[i], exp(lo / n), exp(hi / n)};
	}
}

/* The excess of the medians over the fastest runs per node count, measured
 * and fitted (header comment). */
static void excess_by_nodes(valid_fab_fit *f)
{
	for (int i = 0; i < f->nnodes; i++) {
		double num = 0, fit = 0, den = 0;
		int n = 0;
		for (size_t r = 0; r < f->nrows; r++) {
			const valid_fab_row *w = &f->rows[r];
			if (w->nodes != f->nodes[i] || !(w->fast_s > 0))
				continue;
			double q = 1 / (w->median_s * w->median_s);
			num += (w->median_s - w->fast_s) * q;
			fit += (w->after_s - w->fast_after_s) * q;
			den += q;
			n++;
		}
		f->excess_rows[i] = n;
		f->excess_s[i] = f->excess_fit_s[i] = f->excess_worst[i] = NAN;
		if (n == 0)
			continue;
		double e = num / den, worst = 0;
		for (size_t r = 0; r < f->nrows; r++) {
			const valid_fab_row *w = &f->rows[r];
			if (w->nodes != f->nodes[i] || !(w->fast_s > 0))
				continue;
			double x = (w->fast_s + e - w->median_s) / w->median_s;
			if (fabs(x) > fabs(worst))
				worst = x;
		}
		f->excess_s[i] = e;
		f->excess_fit_s[i] = fit / den;
		f->excess_worst[i] = worst;
	}
}

/* Keep the parameters some residual depends on at `at` (at their start,
 * or with fitted at their value) and name the others in names; with
 * fitted a dropped one gets the cluster file's value back in `at`. */
static void prune(valid_fab_fit *f, net_cluster *at, bool fitted, char *names, size_t size)
{
	size_t kept = 0, n = f->nparams, idx[VALID_FP_COUNT];
	names[0] = '\0';
	for (size_t j = 0; j < n; j++) {
		const valid_fab_param *p = &f->params[j];
		if (identifiable(f, at, j, fitted ? p->value : p->start)) {
			idx[kept] = j;
			f->params[kept++] = *p;
			continue;
		}
		if (fitted)
			set_param(at, p->kind, get_param(&f->cluster, p->kind));
		size_t len = strlen(names);
		snprintf(names + len, size - len, "%s%s", len ? ", " : "", valid_fab_key(p->kind));
	}
	f->nparams = kept;
	/* the kept parameters' correlations, in their new places (a <= idx[a],
	 * b <= idx[b], kept <= n: each entry moves to an index no larger than
	 * its own, so none is overwritten before it is read) */
	for (size_t a = 0; a < kept && f->has_corr; a++)
		for (size_t b = 0; b < kept; b++)
			f->corr[a * kept + b] = f->corr[idx[a] * n + idx[b]];
}

/* The held parameters (valid_fab_hold) leave the fit: each within its
 * bounds (choose) goes into the cluster at its value, the start of the fit
 * and its result alike. */
static int hold(valid_fab_fit *f, sim_diag *diag)
{
	size_t kept = 0;
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		if (f->pin[p->kind] != VALID_PIN_HELD) {
			f->params[kept++] = *p;
			continue;
		}
		double x = f->pin_value[p->kind];
		/* a cost or a stretch whose range starts at 0 may be held at 0:
		 * the term off (congestion = 0: no stretch, kappa = 1) */
		bool off = p->lo == 0 && x == 0;
		if (!((x > p->lo || off) && x < p->hi)) {
			char a[32], b[32], c[32];
			valid_fab_format(a, sizeof a, p->kind, x);
			valid_fab_format(b, sizeof b, p->kind, p->lo);
			valid_fab_format(c, sizeof c, p->kind, p->hi);
			sim_diag_error(diag, NULL, 0, "--hold %s = %s is outside %s%s, %s)",
			               valid_fab_key(p->kind), a, p->lo == 0 ? "[" : "(", b, c);
			return SIM_ECONF;
		}
		set_param(&f->cluster, p->kind, x);
	}
	f->nparams = kept;
	return SIM_OK;
}

/* Without a row that gives its fastest runs (5th-95th percentiles) and
 * with one node count across nodes, the congestion and the per-call wait,
 * both defined by what the medians add to the fastest runs, cannot be told
 * from the per-step costs: at one node count m, kappa(m) is a factor on the
 * rails' rate and the latencies, D(m) a cost per call as a latency is.
 * Unless held, they leave the fit at 0, the uncongested fabric's, and are
 * named so (header comment); congestion_exp then moves no row and leaves
 * as well (prune). Across several node counts their shapes in m part
 * them from the per-step costs (tests/cli/calibrate.sh's round trips). */
static void no_spread(valid_fab_fit *f)
{
	int across = 0;
	for (int i = 0; i < f->nnodes; i++)
		across += f->nodes[i] > 1;
	if (f->nfast > 0 || across > 1)
		return;
	size_t kept = 0;
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		if (p->kind != VALID_FP_CONG && p->kind != VALID_FP_SYNC) {
			f->params[kept++] = *p;
			continue;
		}
		f->pin[p->kind] = VALID_PIN_NO_SPREAD;
		f->pin_value[p->kind] = 0;
		set_param(&f->cluster, p->kind, 0);
	}
	f->nparams = kept;
}

/* The fitted parameters at a bound of their range (header comment) leave
 * the fit there, into f's cluster and `start`; returns how many. */
static int pin_bounds(valid_fab_fit *f, const double *u, net_cluster *start)
{
	size_t kept = 0;
	int n = 0;
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		double s = sigma(u[j]);
		if (s > 1e-4 && s < 1 - 1e-4) {
			f->params[kept++] = *p;
			continue;
		}
		double x = s <= 1e-4 ? p->lo : p->hi;
		f->pin[p->kind] = VALID_PIN_BOUND;
		f->pin_value[p->kind] = x;
		set_param(&f->cluster, p->kind, x);
		set_param(start, p->kind, x);
		n++;
	}
	f->nparams = kept;
	return n;
}

/* What a fit needs: NICs between the nodes and rows for the cluster's
 * fabric; SIM_ECONF with the reason in diag otherwise. */
static int fab_check_input(const valid_fab_fit *f, sim_diag *diag)
{
	if (f->cluster.node.nics < 1 || !(f->cluster.node.nic_Bps > 0)) {
		sim_diag_error(diag, f->cluster_path, 0,
		               "podsim calibrate --fabric fits the network between nodes: the "
		               "cluster's nodes need NICs ([node] nics, nic_bw)");
		return SIM_ECONF;
	}
	if (f->nrows == 0) {
		const char *fab = valid_fab_case_fabric(&f->cluster);
		const char *what = "no all-reduce, all-gather or reduce-scatter rows for the cluster's "
		                   "GPU and fabric";
		if (fab)
			sim_diag_error(diag, NULL, 0, "%s (fabric column '%s', or no such column)",
			               what, fab);
		else
			sim_diag_error(diag, NULL, 0,
			               "%s (this fabric: only a file without a fabric column)", what);
		return SIM_ECONF;
	}
	return SIM_OK;
}

/* The fit's rounds from `start` over the rows `use` marks: fit, pin the
 * parameters the rows drive to a bound of their range, drop what no row
 * then depends on, fit again, until none is pinned (u: the fitted values
 * in the solver's coordinates). */
static int fit_rounds(valid_fab_fit *f, net_cluster *start, char *use, double *u,
                      sim_diag *diag)
{
	double chi2;
	int rc = SIM_OK;
	for (;;) {
		ctx k = {f, *start, use, count_res(f, use)};
		if (f->nparams == 0 || k.nres < f->nparams) {
			if (f->nparams == 0)
				sim_diag_error(diag, NULL, 0, "nothing to fit: all held or unused");
			else
				sim_diag_error(diag, NULL, 0,
				               "%zu measurements cannot fit %zu parameters", k.nres,
				               f->nparams);
			return SIM_ECONF;
		}
		f->dof = (int)(k.nres - f->nparams);
		f->nfitted = f->nparams;
		rc = multistart(&k, u, true, &chi2);
		if (rc != SIM_OK || pin_bounds(f, u, start) == 0)
			return rc;
		/* what no row depends on once the bounds are pinned leaves too */
		char more[sizeof f->dropped];
		prune(f, start, false, more, sizeof more);
		size_t len = strlen(f->dropped);
		if (more[0])
			snprintf(f->dropped + len, sizeof f->dropped - len, "%s%s", len ? ", " : "",
			         more);
		if (f->nparams == 0) { /* every one at a bound: nothing left to fit */
			f->dof = (int)count_res(f, use);
			f->nfitted = 0;
			f->converged = true;
			f->has_corr = false;
			return SIM_OK;
		}
	}
}

/* The fitted cluster from `start` and the solver's values u, the bounds
 * that bind no row there, and every row's prediction after the fit. */
static void fit_results(valid_fab_fit *f, const net_cluster *start, const double *u)
{
	f->fitted = *start;
	for (size_t j = 0; j < f->nparams; j++) {
		f->params[j].value = to_x(&f->params[j], u[j]);
		set_param(&f->fitted, f->params[j].kind, f->params[j].value);
	}
	/* A bound that binds no row at the fitted values (the NVLS ceiling
	 * under the NVLS port bound, say) has no estimate. */
	prune(f, &f->fitted, true, f->idle, sizeof f->idle);
	f->fitted.nspread = f->nspread;
	memcpy(f->fitted.spread, f->spread, sizeof f->spread);
	for (size_t r = 0; r < f->nrows; r++) {
		f->rows[r].after_s = predict(&f->fitted, &f->rows[r], false);
		f->rows[r].fast_after_s = predict(&f->fitted, &f->rows[r], true);
	}
	f->mape_after = mape_of(f, 1);
	f->mape_fast = mape_of(f, 2);
	excess_by_nodes(f);
}

int valid_fab_fit_run(valid_fab_fit *f, sim_diag *diag)
{
	if (fab_check_input(f, diag) != SIM_OK)
		return SIM_ECONF;
	if (valid_fab_merge_repeats(f) != SIM_OK)
		return SIM_ENOMEM;
	node_counts(f);
	choose(f);
	if (hold(f, diag) != SIM_OK)
		return SIM_ECONF;
	no_spread(f);
	net_cluster start = f->cluster;
	for (size_t j = 0; j < f->nparams; j++)
		set_param(&start, f->params[j].kind, f->params[j].start);
	prune(f, &start, false, f->dropped, sizeof f->dropped);
	for (size_t r = 0; r < f->nrows; r++)
		f->rows[r].before_s = predict(&start, &f->rows[r], false);
	f->mape_before = mape_of(f, 0);
	char *use = malloc(f->nrows + 1);
	if (!use)
		return SIM_ENOMEM;
	memset(use, 1, f->nrows);
	double u[VALID_FP_COUNT];
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = fit_rounds(f, &start, use, u, diag);
	if (rc == SIM_OK)
		rc = leave_out(f, u);
	gsl_set_error_handler(old);
	free(use);
	if (rc != SIM_OK && rc != SIM_ECONF) /* the solver's own failure (ECONF's are named above) */
		sim_diag_error(diag, NULL, 0, "the least-squares fit failed: %s", sim_strerror(rc));
	if (rc != SIM_OK)
		return rc;
	fit_results(f, &start, u);
	return SIM_OK;
}

void valid_fab_fit_free(valid_fab_fit *f)
{
	if (!f)
		return;
	free(f->rows);
	f->rows = NULL;
	f->nrows = 0;
}

/* ----------------------------------------------------------------- rows -- */

static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

/* Append a row to f (grows the array). */
int valid_fab_add(valid_fab_fit *f, const valid_fab_row *r)
{
	if ((f->nrows & (f->nrows - 1)) == 0) { /* full at 0, 1, 2, 4, ...: double */
		size_t cap = f->nrows ? 2 * f->nrows : 1;
		valid_fab_row *p = realloc(f->rows, cap * sizeof *p);
		if (!p)
			return SIM_ENOMEM;
		f->rows = p;
	}
	f->rows[f->nrows++] = *r;
	return SIM_OK;
}

double valid_fab_factor(net_coll coll, double n)
{
	return coll == NET_ALLREDUCE ? 2 * (n - 1) / n : (n - 1) / n;
}

/* One CSV row into r; SIM_ECONF with a path:line error. */
static int csv_row(const cases_csv *c, size_t i, net_coll coll, int G, valid_fab_row *r,
                   sim_diag *diag)
{
	const char *path = cases_csv_path(c);
	int line = cases_csv_line(c, i);
	memset(r, 0, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", get(c, i, "id"));
	snprintf(r->path, sizeof r->path, "%s", path);
	r->line = line;
	r->coll = coll;
	double gpus = 0, nodes = 0, us = 0, med = 0, p05 = 0, p95 = 0;
	int rc = cases_get_real(c, i, "gpus", 0, &gpus, diag);
	rc = rc ? rc : cases_get_real(c, i, "nodes", 0, &nodes, diag);
	rc = rc ? rc : cases_get_real(c, i, "bytes", 0, &r->bytes, diag);
	rc = rc ? rc : cases_get_real(c, i, "time_us", 0, &us, diag);
	rc = rc ? rc : cases_get_real(c, i, "busbw_GBps", 0, &med, diag);
	if (rc == SIM_OK && cases_csv_col(c, "busbw_p05_GBps") >= 0)
		rc = cases_get_real(c, i, "busbw_p05_GBps", 0, &p05, diag);
	if (rc == SIM_OK && cases_csv_col(c, "busbw_p95_GBps") >= 0)
		rc = cases_get_real(c, i, "busbw_p95_GBps", 0, &p95, diag);
	if (rc != SIM_OK)
		return rc;
	const char *why = NULL;
	if (!(nodes >= 1 && nodes <= 1e6 && nodes == floor(nodes)))
		why = "needs nodes >= 1";
	else if (!(gpus >= 2 && gpus == floor(gpus) && gpus <= nodes * G && gpus > (nodes - 1) * G))
		why = "needs gpus >= 2 filling its nodes (more than nodes - 1 and at most nodes "
		      "times the cluster's GPUs per node)";
	else if (!(r->bytes >= 1))
		why = "needs bytes (the collective's size)";
	else if (!(us > 0) && !(med > 0))
		why = "needs time_us or busbw_GBps";
	else if ((p05 > 0 || p95 > 0) &&
	         !(p05 > 0 && p95 > 0 && p05 <= p95 && (us > 0 || (p05 <= med && med <= p95))))
		why = "needs busbw_p05_GBps <= busbw_GBps <= busbw_p95_GBps, both given";
	if (why) {
		sim_diag_error(diag, path, line, "row %s: %s", r->id, why);
		return SIM_ECONF;
	}
	r->gpus = (int)gpus;
	r->nodes = (int)nodes;
	double work = r->bytes * valid_fab_factor(coll, gpus);
	r->median_s = us > 0 ? us * 1e-6 : work / (med * 1e9);
	if (p95 > 0) {
		r->fast_s = work / (p95 * 1e9);
		r->slow_s = work / (p05 * 1e9);
	}
	return SIM_OK;
}

const char *valid_fab_case_fabric(const net_cluster *c)
{
	switch (c->fabric) {
	case NET_FABRIC_EFA:
		return "efa";
	case NET_FABRIC_RAIL:
		return "rail-optimized";
	case NET_FABRIC_FAT_TREE:
		return c->node.nic_kind == NET_NIC_IB     ? "ib-fat-tree"
		       : c->node.nic_kind == NET_NIC_ROCE ? "roce-fat-tree"
		                                          : NULL;
	default:
		return NULL;
	}
}

int valid_fab_rows_csv(cases_csv *c, const hw_gpu *gpu, valid_fab_fit *f, sim_diag *diag)
{
	static const char *const need[] = {"id",    "kind",    "gpus",       "nodes",
	                                   "bytes", "time_us", "busbw_GBps", NULL};
	if (cases_csv_require(c, need, diag) > 0)
		return SIM_ECONF;
	if (valid_loose_numbers(c) != SIM_OK) /* "256MB", "1,024", "350 GB/s" */
		return SIM_ENOMEM;
	int bad = 0, G = f->cluster.node.gpus;
	const char *fabric = valid_fab_case_fabric(&f->cluster);
	for (size_t i = 0; i < cases_csv_rows(c); i++) {
		const char *kind = get(c, i, "kind");
		net_coll coll = !strcmp(kind, "allreduce")       ? NET_ALLREDUCE
		                : !strcmp(kind, "allgather")     ? NET_ALLGATHER
		                : !strcmp(kind, "reducescatter") ? NET_REDUCESCATTER
		                                                 : NET_COLL_COUNT;
		const char *fab = get(c, i, "fabric"), *g = get(c, i, "gpu");
		const char *gpn = get(c, i, "gpus_per_node");
		bool has_fabric = cases_csv_col(c, "fabric") >= 0;
		if (coll == NET_COLL_COUNT || (has_fabric && strcmp(fab, fabric ? fabric : "")) ||
		    (*g && strcmp(g, gpu->name)) || (*gpn && atoi(gpn) != G)) {
			f->nignored++;
			continue;
		}
		valid_fab_row r;
		if (csv_row(c, i, coll, G, &r, diag) != SIM_OK) {
			bad++;
			continue;
		}
		r.issue_s = valid_blocking_bench(c, i) ? valid_eager_issue_s(gpu) : 0;
		if (valid_fab_add(f, &r) != SIM_OK)
			return SIM_ENOMEM;
		f->nfast += r.fast_s > 0;
	}
	return bad ? SIM_ECONF : SIM_OK;
}
