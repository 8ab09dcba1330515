/* test_flow.c - max-min fair sharing (progressive filling) and the flow event
 * loop on hand-solved networks (sim/topo/flow.c). Every expected value is
 * derived in the comment above its check. */
#include "../../sim/topo/topo.h"
#include "check.h"

#include <math.h>

static void two_on_one(void)
{
	/* One link of 10 GB/s, two flows: both freeze when the link saturates at
	 * t = 10 / 2 = 5 GB/s. */
	double cap[1] = {10e9}, rate[2];
	int off[3] = {0, 1, 2}, path[2] = {0, 0};
	CHECK_INT(topo_maxmin(1, cap, 2, off, path, rate), SIM_OK);
	CHECK_NEAR(rate[0], 5e9, 1e-12);
	CHECK_NEAR(rate[1], 5e9, 1e-12);
}

static void parking_lot(void)
{
	/* Parking lot: links A (0) and B (1) of capacity 1; flow 0 crosses A and
	 * B, flow 1 only A, flow 2 only B. Each link has 2 flows, so both
	 * saturate at t = 1/2 and every flow gets 1/2. */
	double cap[2] = {1, 1}, rate[3];
	int off[4] = {0, 2, 3, 4}, path[4] = {0, 1, 0, 1};
	CHECK_INT(topo_maxmin(2, cap, 3, off, path, rate), SIM_OK);
	CHECK_NEAR(rate[0], 0.5, 1e-12);
	CHECK_NEAR(rate[1], 0.5, 1e-12);
	CHECK_NEAR(rate[2], 0.5, 1e-12);
	/* Same flows, B of capacity 2: A saturates first at t = 1/2 (deltas 1/2
	 * vs 2/2), freezing flows 0 and 1 at 1/2; B has 2 - 1/2 = 3/2 left for
	 * flow 2 alone, which freezes at 3/2. */
	cap[1] = 2;
	CHECK_INT(topo_maxmin(2, cap, 3, off, path, rate), SIM_OK);
	CHECK_NEAR(rate[0], 0.5, 1e-12);
	CHECK_NEAR(rate[1], 0.5, 1e-12);
	CHECK_NEAR(rate[2], 1.5, 1e-12);
}

static void three_levels(void)
{
	/* Links 0 (cap 3), 1 (cap 4), 2 (cap 10). Flows: f0 {0}, f1 {0, 1},
	 * f2 {0, 1, 2}, f3 {1, 2}, f4 {2}.
	 * Every link starts with 3 unfrozen flows.
	 * Round 1: deltas 3/3 = 1, 4/3, 10/3 -> t = 1; link 0 saturates and f0,
	 *   f1, f2 freeze at 1. Link 1 has 4 - 3 = 1 left for f3; link 2 has
	 *   10 - 3 = 7 left for f3, f4.
	 * Round 2: deltas 1/1 = 1, 7/2 -> t = 2; link 1 saturates: f3 = 2.
	 *   Link 2 has 7 - 2 = 5 left for f4.
	 * Round 3: delta 5 -> f4 = 7. Link 2 carries 1 + 2 + 7 = 10. */
	double cap[3] = {3, 4, 10}, rate[5];
	int off[6] = {0, 1, 3, 6, 8, 9}, path[9] = {0, 0, 1, 0, 1, 2, 1, 2, 2};
	CHECK_INT(topo_maxmin(3, cap, 5, off, path, rate), SIM_OK);
	CHECK_NEAR(rate[0], 1, 1e-12);
	CHECK_NEAR(rate[1], 1, 1e-12);
	CHECK_NEAR(rate[2], 1, 1e-12);
	CHECK_NEAR(rate[3], 2, 1e-12);
	CHECK_NEAR(rate[4], 7, 1e-12);
}

static void bad_input(void)
{
	double cap[1] = {0}, rate[1];
	int off[2] = {0, 1}, path[1] = {0};
	CHECK_INT(topo_maxmin(1, cap, 1, off, path, rate), SIM_EINVAL);
	cap[0] = 1;
	path[0] = 3;
	CHECK_INT(topo_maxmin(1, cap, 1, off, path, rate), SIM_EINVAL);
	/* A flow that crosses no link is not limited. */
	int off0[2] = {0, 0};
	CHECK_INT(topo_maxmin(1, cap, 1, off0, path, rate), SIM_OK);
	CHECK(isinf(rate[0]));
}

static void finish_times(void)
{
	/* One link of 1 GB/s. Flow a (1 GB) and flow b (3 GB) start at 0 and get
	 * 0.5 GB/s each; a ends at 1 / 0.5 = 2 s, when b has 2 GB left, which it
	 * sends alone at 1 GB/s: b ends at 2 + 2 = 4 s. */
	double cap[1] = {1e9};
	int link = 0;
	topo_sim *s;
	CHECK_INT(topo_sim_new(1, cap, &s), SIM_OK);
	int a = topo_sim_add(s, &link, 1, 1e9, 0), b = topo_sim_add(s, &link, 1, 3e9, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_finish(s, a), 2 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, b), 4 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_makespan(s), 4 * SIM_PS_PER_S);
	CHECK_NEAR(topo_sim_link_bytes(s, 0), 4e9, 1e-12);

	/* A late start: a (2 GB) alone from 0 sends 1 GB by 1 s, when b (1 GB)
	 * starts; both then get 0.5 GB/s, so b ends at 1 + 1 / 0.5 = 3 s and a,
	 * with 1 GB left, also at 3 s. */
	topo_sim_clear(s);
	a = topo_sim_add(s, &link, 1, 2e9, 0);
	b = topo_sim_add(s, &link, 1, 1e9, SIM_PS_PER_S);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_finish(s, a), 3 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, b), 3 * SIM_PS_PER_S);

	/* Parking lot in time: links A, B of 1 GB/s; the long flow (A, B) of
	 * 1 GB and short flows on A (1 GB) and on B (2 GB). All run at 0.5 until
	 * 2 s, when the long and the A flow end (1 GB each); the B flow has 1 GB
	 * left, alone on B at 1 GB/s: ends at 3 s. Link B carries 1 + 2 = 3 GB. */
	double cap2[2] = {1e9, 1e9};
	topo_sim *p;
	CHECK_INT(topo_sim_new(2, cap2, &p), SIM_OK);
	int ab[2] = {0, 1}, lA = 0, lB = 1;
	int f0 = topo_sim_add(p, ab, 2, 1e9, 0), f1 = topo_sim_add(p, &lA, 1, 1e9, 0);
	int f2 = topo_sim_add(p, &lB, 1, 2e9, 0);
	CHECK_INT(topo_sim_run(p), SIM_OK);
	CHECK_INT(topo_sim_finish(p, f0), 2 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(p, f1), 2 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(p, f2), 3 * SIM_PS_PER_S);
	CHECK_NEAR(topo_sim_link_bytes(p, 1), 3e9, 1e-12);
	CHECK_INT(topo_sim_nflows(p), 3);

	/* Zero bytes or no links: done at the start. Bad link ids are refused. */
	topo_sim_clear(p);
	int z = topo_sim_add(p, ab, 2, 0, 5), y = topo_sim_add(p, ab, 0, 1e9, 7);
	CHECK_INT(topo_sim_run(p), SIM_OK);
	CHECK_INT(topo_sim_finish(p, z), 5);
	CHECK_INT(topo_sim_finish(p, y), 7);
	int bad = 9;
	CHECK(topo_sim_add(p, &bad, 1, 1, 0) < 0);
	topo_sim_free(p);
	topo_sim_free(s);
}

int main(void)
{
	two_on_one();
	parking_lot();
	three_levels();
	bad_input();
	finish_times();
	return check_done();
}
