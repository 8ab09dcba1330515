/* time.c - conversions between simulated time (int64 picoseconds) and
 * seconds, used only at the edges (model formulas in, reports out).
 *
 * sim_time_from_s rounds to the nearest picosecond (halves away from zero),
 * maps negative values, zero and NaN to 0 and saturates at SIM_TIME_MAX
 * (about 106 days), so the result is always a valid, non-negative time. */
#include "core.h"

#include <math.h>

/* 2^63 as a double: the first value that no longer fits in int64. Every
 * double below it is at most 2^63 - 1024, so llround cannot overflow. */
#define TWO_POW_63 9223372036854775808.0

sim_time sim_time_from_s(double seconds)
{
	if (!(seconds > 0)) /* negative, zero and NaN */
		return 0;
	double ps = seconds * (double)SIM_PS_PER_S;
	if (ps >= TWO_POW_63) /* also +inf */
		return SIM_TIME_MAX;
	return (sim_time)llround(ps);
}

sim_time sim_time_add_sat(sim_time a, sim_time b)
{
	int64_t s;
	return sim_add_i64(a, b, &s) ? s : SIM_TIME_MAX;
}

double sim_time_to_s(sim_time t)
{
	return (double)t / (double)SIM_PS_PER_S;
}
