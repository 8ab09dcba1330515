/* time.c - conversions between simulated picoseconds and seconds. */
#include "core.h"

#include <math.h>

sim_time sim_time_from_s(double seconds)
{
	if (!(seconds > 0)) /* negative, zero and NaN */
		return 0;
	double ps = seconds * (double)SIM_PS_PER_S;
	if (ps >= 9.2e18) /* just below INT64_MAX: saturate */
		return SIM_TIME_MAX;
	return (sim_time)llround(ps);
}

double sim_time_to_s(sim_time t)
{
	return (double)t / (double)SIM_PS_PER_S;
}
