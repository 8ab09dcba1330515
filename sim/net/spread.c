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
 * What varies (plan/build.c build_comm_net_s): the whole call. The data
 * are ratios of whole collectives' times, and what makes a call slower than its median
 * (a node's lag that holds every later step back, the wait for the
 * slowest node, coll.c "The EFA model", 5.) or faster (no lag met: the
 * fastest runs, which the fitted fabric without its wait reproduces within
 * 5.2 % MAPE) is not a fixed share of the call: at 4 nodes the fastest
 * all-gather takes 0.52 of its median, the fastest all-reduce 0.73. So a
 * call across m nodes that draws r runs at r T, as its benchmark would:
 * the calibration's collectives take their node count's quantiles (the
 * geometric means of its rows') whole. Until 2026-11-30 only the part a
 * congestion kappa(m) stretches varied (N = kappa dT/dkappa + D, 96-100 % of these calls then);
 * the shipped fit has no kappa (congestion = 0: coll.c 4.), and the part
 * that derivative leaves, where NVLink binds a ring's bandwidth, is 31-90 %
 * of these calls' medians, against ratios measured on the whole. Assumed:
 * where NVLink binds, it varies with the call (its wait is the call's).
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
