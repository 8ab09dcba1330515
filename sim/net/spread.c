/* spread.c - the measured spread of collectives on a calibrated fabric (EFA
 * in the shipped data; podsim calibrate --fabric on any) as a
 * distribution, and the part of a collective's time it scales.
 *
 * Data. [cluster] spread gives per node count m the 5th and 95th percentile
 * of a collective's time over its median, lo(m) <= 1 <= hi(m) (fitted by
 * podsim calibrate --fabric from tests/cases/efa-collectives.csv: 256 MiB
 * all-gather, reduce-scatter and all-reduce on 1-64 p5 nodes, the geometric
 * mean of the node count's rows). The shipped values are skewed: at 4 nodes
 * 0.59-3.09, ln = -0.53 / +1.13, so no log-normal (symmetric in ln) holds
 * all three quantiles.
 *
 * Distribution (net_spread_quantile, net_spread_factor): a split log-normal
 * with median 1, ln r = sigma_lo z for z < 0 and sigma_hi z for z >= 0, z a
 * standard normal, with
 *     sigma_lo = -ln(lo) / z95,   sigma_hi = ln(hi) / z95,   z95 = 1.6448536
 * (the 95th percentile of the standard normal). Its quantile function is
 * Q(p) = exp(sigma(p) Phi^-1(p)), sigma(p) = sigma_lo below 1/2, sigma_hi
 * above: Q(0.05) = lo, Q(0.5) = 1, Q(0.95) = hi exactly, the CDF continuous,
 * each half a log-normal's. Its mean, e^(s_lo^2/2) Phi(-s_lo) +
 * e^(s_hi^2/2) Phi(s_hi), exceeds 1 unless the lower tail is much the
 * wider: 1.006-1.347 for the shipped node counts (64 and 4 nodes), so a
 * sum of many independent calls runs slower than its median calls.
 *
 * Which calls: every collective whose group spans m > 1 nodes takes the
 * spread at m, whatever its kind; the data are all-gather, reduce-scatter
 * and all-reduce of 256 MiB on 8 ranks per node, so applying them to a
 * pipeline send between two nodes (m = 2), an all-to-all or a smaller
 * message is assumed (the fabric's congestion, not the collective, is
 * what varies).
 *
 * Between listed node counts, sigma_lo and sigma_hi are interpolated
 * linearly in ln m (the calibration's node counts are powers of two); below
 * the first and beyond the last listed count the nearest one is kept
 * (assumed: the spread beyond 64 nodes is not measured). A collective inside
 * one node has no network part and does not vary (the 1-node entry is
 * NVLink's and the benchmark's noise, 0.94-1.04, which the step does not
 * inherit).
 *
 * What varies (net_network_time). The calibration's congestion kappa(m)
 * (coll.c, "The EFA model", 4.) stretches exactly the network terms of a
 * collective across m nodes: its network steps' latency, the per-message
 * costs and the rails' rate; the per-call synchronisation delay D (5.) is
 * added whole. The median run is at kappa(m) with D, the fastest near
 * kappa = 1 without it (the fit reproduces the fastest runs so within
 * 5.2 % MAPE), so the spread is read as a spread of the fabric's part of
 * the call: a call that draws r runs at T - N + r N with
 *     N = kappa dT/dkappa + D,
 * the network part at the median, which net_network_time evaluates by a
 * forward difference of net_collective in kappa (relative step 1e-6: exact
 * for linear T; where NVLink binds the bandwidth the derivative holds the
 * latency terms only) plus D, which kappa does not move. The measured
 * ratios are of whole collectives, T_q / T_50 = 1 + (r_q - 1) N / T; for
 * the calibration's collectives (256 MiB, 8 ranks per node, 2-64 nodes)
 * N / T = 0.957-0.998 on the shipped fit (test_net), so the ratios are
 * applied to N as measured: the network part's own spread would be wider
 * by T / N, at most 4.5 % of r_q - 1, about the two digits the data are
 * given to. The exception is the all-reduce on 2 nodes, NVLSTree, whose
 * bandwidth NVLink binds on the shipped fit (the NVLS port bound 0.638 x
 * 450 GB/s x 8/9 x 2(n-1)/n = 478 GB/s under the network's 494 GB/s at
 * kappa(2)): N / T = 0.29, so its measured spread (0.82-1.23) is applied
 * to under a third of it (assumed: the spread is the fabric's, and NVLink
 * does not vary).
 *
 * On the shipped p5 cluster a multi-node ring or tree of 8 ranks per node
 * is network-bound at every kappa >= 1 (its rails give 32 x 8.97 = 287
 * GB/s, NVLink 450 x 0.638 = 287 GB/s per GPU: the fit made them equal)
 * and one of 1 rank per node (DP under TP 8) always is; only a draw with
 * r < 1 (faster than the median) can let NVLink bind, where T - N + r N is
 * slightly optimistic.
 */
#include "net_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

void net_spread_sigmas(const net_spread *s, double *s_lo, double *s_hi)
{
	double z95 = gsl_cdf_ugaussian_Pinv(0.95);
	*s_lo = -log(s->lo) / z95;
	*s_hi = log(s->hi) / z95;
}

bool net_spread_at(const net_cluster *c, int nodes, net_spread *out)
{
	if (!c || c->nspread < 1 || nodes <= 1)
		return false;
	const net_spread *s = c->spread;
	int n = c->nspread, i = 0;
	while (i < n && s[i].nodes < nodes)
		i++;
	if (i == n)
		*out = s[n - 1];
	else if (i == 0 || s[i].nodes == nodes)
		*out = s[i];
	else { /* between s[i-1] and s[i]: sigmas linear in ln m */
		double w = (log(nodes) - log(s[i - 1].nodes)) /
		           (log(s[i].nodes) - log(s[i - 1].nodes));
		out->lo = exp((1 - w) * log(s[i - 1].lo) + w * log(s[i].lo));
		out->hi = exp((1 - w) * log(s[i - 1].hi) + w * log(s[i].hi));
	}
	out->nodes = nodes;
	return true;
}

double net_spread_factor(const net_spread *s, double z)
{
	double s_lo, s_hi;
	net_spread_sigmas(s, &s_lo, &s_hi);
	return exp((z < 0 ? s_lo : s_hi) * z);
}

double net_spread_quantile(const net_spread *s, double p)
{
	if (!(p > 0 && p < 1))
		return p <= 0 ? 0 : INFINITY;
	return net_spread_factor(s, gsl_cdf_ugaussian_Pinv(p));
}

#define KAPPA_STEP 1e-6 /* relative step of the forward difference in kappa */

double net_network_time(const net_cluster *c, net_coll coll, const net_group *g, double bytes)
{
	if (!c || !g || g->nodes <= 1 || !(bytes > 0))
		return 0;
	net_cost at, up;
	if (net_collective(c, coll, g, bytes, &at) != SIM_OK)
		return 0;
	/* The same cluster with kappa(m) stretched by 1 + KAPPA_STEP: congestion
	 * c' = (kappa (1 + h) - 1) / (m - 1)^exp (coll.c net_congestion). */
	net_cluster d = *c;
	double kappa = net_congestion(c, g->nodes);
	double e = c->congestion > 0 ? c->congestion_exp : 0;
	d.congestion = (kappa * (1 + KAPPA_STEP) - 1) / pow(g->nodes - 1.0, e);
	d.congestion_exp = e;
	if (net_collective(&d, coll, g, bytes, &up) != SIM_OK)
		return 0;
	/* The synchronisation delay does not depend on kappa (it cancels in
	 * the difference) and varies as a whole (header comment). */
	double n = (up.time_s - at.time_s) / KAPPA_STEP + at.sync_s;
	return n > 0 ? fmin(n, at.time_s) : 0;
}
