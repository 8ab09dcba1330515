/* test_flow.c - max-min fair sharing (progressive filling) and the flow event
 * loop on hand-solved networks (sim/topo/flow.c), the contention-aware cost
 * of a plan's collectives (sim/topo/group.c) and whole steps with
 * [cluster] network = flow (sim/plan/netflow.c). Every expected value is
 * derived in the comment above its check. Runs from the source root. */
#include "../../sim/exec/exec.h"
#include "../../sim/topo/topo.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The definition, by rounds (maxmin.c's header, steps 1-4): every round
 * raises all unfrozen flows by the least r_l / n_l and freezes the flows
 * that cross a link left with nothing. maxmin.c pops links from a heap
 * instead; the rates must be the same. */
static void rounds_ref(int L, const double *cap, int F, const int *off, const int *path,
                       double *rate)
{
	double left[32];
	int n[32] = {0};
	bool frozen[64] = {false};
	for (int l = 0; l < L; l++)
		left[l] = cap[l];
	for (int i = 0; i < off[F]; i++)
		n[path[i]]++;
	double t = 0;
	for (int todo = F; todo > 0;) {
		double d = INFINITY;
		for (int l = 0; l < L; l++)
			if (n[l] > 0)
				d = fmin(d, left[l] / n[l]);
		t += d;
		bool sat[32];
		for (int l = 0; l < L; l++) {
			left[l] -= d * n[l];
			sat[l] = n[l] > 0 && left[l] <= 1e-12 * cap[l];
		}
		for (int f = 0; f < F; f++) {
			bool hit = false;
			for (int i = off[f]; i < off[f + 1]; i++)
				hit = hit || sat[path[i]];
			if (frozen[f] || !hit)
				continue;
			frozen[f] = true;
			rate[f] = t;
			todo--;
			for (int i = off[f]; i < off[f + 1]; i++)
				n[path[i]]--;
		}
	}
}

/* Append to path[np..] a random path of 1..kmax distinct links of L (a
 * draw that repeats a link is dropped); the new count. */
static int random_path(sim_rng *rng, int L, int kmax, int *path, int np)
{
	int from = np, k = 1 + (int)(kmax * sim_rng_uniform(rng));
	for (int j = 0; j < k; j++) {
		int l = (int)(L * sim_rng_uniform(rng)), dup = 0;
		for (int q = from; q < np; q++)
			dup |= path[q] == l;
		if (!dup)
			path[np++] = l;
	}
	return np;
}

/* Random networks (seeded): up to 30 links of capacity 1..10 (a third of
 * them 1, so that levels tie), up to 60 flows over 1..5 distinct links.
 * Rates agree with the rounds to 1e-12 relative. */
static void heap_matches_rounds(void)
{
	sim_rng *rng = sim_rng_new(20261201);
	CHECK(rng != NULL);
	double worst = 0;
	for (int trial = 0; trial < 3000 && rng; trial++) {
		int L = 1 + (int)(30 * sim_rng_uniform(rng)),
		    F = 1 + (int)(60 * sim_rng_uniform(rng));
		double cap[32], r1[64], r2[64];
		int off[65], path[64 * 5], np = 0;
		for (int l = 0; l < L; l++)
			cap[l] = sim_rng_uniform(rng) < 1.0 / 3
			                 ? 1
			                 : 1 + (int)(10 * sim_rng_uniform(rng));
		for (int f = 0; f < F; f++) {
			off[f] = np;
			np = random_path(rng, L, 5, path, np);
		}
		off[F] = np;
		rounds_ref(L, cap, F, off, path, r1);
		CHECK_INT(topo_maxmin(L, cap, F, off, path, r2), SIM_OK);
		for (int f = 0; f < F; f++)
			worst = fmax(worst, fabs(r2[f] - r1[f]) / r1[f]);
	}
	CHECK(worst < 1e-12);
	sim_rng_free(rng);
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

/* Time at >= 95 % of capacity. One link of 10 B/s, flows of 10 B and 20 B
 * from t = 0: 5 B/s each until the first ends at t = 2 (10 / 5), then the
 * second alone at 10 B/s for its last 10 B until t = 3. The link is full
 * throughout: 3 s saturated. A second link of 100 B/s that the second flow
 * also crosses carries at most 10 B/s: never saturated. */
static void saturated_time(void)
{
	double cap[2] = {10, 100};
	topo_sim *s;
	CHECK_INT(topo_sim_new(2, cap, &s), SIM_OK);
	int l0 = 0, both[2] = {0, 1};
	topo_sim_add(s, &l0, 1, 10, 0);
	int b = topo_sim_add(s, both, 2, 20, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_finish(s, b), 3 * SIM_PS_PER_S);
	CHECK_NEAR(topo_sim_link_sat_s(s, 0), 3.0, 1e-9);
	CHECK_NEAR(topo_sim_link_sat_s(s, 1), 0.0, 1e-12);
	CHECK_NEAR(topo_sim_link_bytes(s, 1), 20.0, 1e-9);
	topo_sim_free(s);
}

/* ------------------------------------------------ incremental updates -- */

/* The reference the incremental loop must agree with: the plain event loop
 * that re-solves every active flow (topo_maxmin) at every start and finish,
 * moving every flow's bytes at each event. Same finish rule: at an event t
 * a flow ends at now + ceil(left / rate) ps, and flows due within a relative
 * 1e-9 of the next event end with it. */
typedef struct ref_flow {
	int off, n;
	double left;
	sim_time start, finish;
	bool done;
} ref_flow;

static void ref_run(int nlinks, const double *cap, ref_flow *f, int nf, const int *links,
                    double *link_bytes)
{
	int act[64], off[65], path[64 * 8];
	double rate[64];
	sim_time now = 0;
	for (;;) {
		int na = 0, np = 0;
		sim_time next = SIM_TIME_MAX;
		for (int i = 0; i < nf; i++) {
			if (f[i].done)
				continue;
			if (f[i].start > now) {
				next = f[i].start < next ? f[i].start : next;
				continue;
			}
			act[na] = i;
			off[na++] = np;
			memcpy(path + np, links + f[i].off, (size_t)f[i].n * sizeof *path);
			np += f[i].n;
		}
		off[na] = np;
		if (na == 0 && next == SIM_TIME_MAX)
			return;
		if (na > 0)
			CHECK_INT(topo_maxmin(nlinks, cap, na, off, path, rate), SIM_OK);
		for (int a = 0; a < na; a++) {
			sim_time fin =
			        now + (sim_time)ceil(f[act[a]].left / rate[a] * SIM_PS_PER_S);
			next = fin < next ? fin : next;
		}
		sim_time tol = 1 + next / 1000000000;
		for (int a = 0; a < na; a++) {
			ref_flow *x = &f[act[a]];
			double moved = fmin(x->left, rate[a] * sim_time_to_s(next - now));
			bool ends = now + (sim_time)ceil(x->left / rate[a] * SIM_PS_PER_S) <=
			            next + tol;
			if (ends)
				moved = x->left;
			for (int k = 0; k < x->n; k++)
				link_bytes[links[x->off + k]] += moved;
			x->left -= moved;
			if (ends) {
				x->done = true;
				x->finish = next;
			}
		}
		now = next;
	}
}

/* Random networks (seeded, so reproducible): 24 links of 1..10 GB/s, up to
 * 40 flows over 1..5 random links with 0.1..4 GB and starts in [0, 2 s).
 * Finishes agree with the full re-solve to 1e-9 of the makespan (the two
 * loops round ps differently where rates stay equal over several events) and
 * link bytes to 1e-9. */
static void incremental_matches_full(void)
{
	sim_rng *rng = sim_rng_new(20261122);
	CHECK(rng != NULL);
	enum { L = 24 };
	double cap[L];
	for (int trial = 0; trial < 200 && rng; trial++) {
		for (int l = 0; l < L; l++)
			cap[l] = 1e9 * (1 + 9 * sim_rng_uniform(rng));
		topo_sim *s;
		CHECK_INT(topo_sim_new(L, cap, &s), SIM_OK);
		ref_flow f[64];
		int links[64 * 8], nl = 0;
		int nf = 1 + (int)(sim_rng_uniform(rng) * 40);
		for (int i = 0; i < nf; i++) {
			int n = 1 + (int)(sim_rng_uniform(rng) * 5);
			f[i] = (ref_flow){nl,
			                  n,
			                  1e8 + 3.9e9 * sim_rng_uniform(rng),
			                  (sim_time)(sim_rng_uniform(rng) * 2 * SIM_PS_PER_S),
			                  0,
			                  false};
			for (int k = 0; k < n; k++) /* distinct links on one path */
				for (bool dup = true; dup;) {
					links[nl + k] = (int)(sim_rng_uniform(rng) * L);
					dup = false;
					for (int q = 0; q < k; q++)
						dup |= links[nl + q] == links[nl + k];
				}
			CHECK_INT(topo_sim_add(s, links + nl, n, f[i].left, f[i].start), i);
			nl += n;
		}
		double want_bytes[L] = {0};
		ref_run(L, cap, f, nf, links, want_bytes);
		CHECK_INT(topo_sim_run(s), SIM_OK);
		double span = (double)topo_sim_makespan(s);
		for (int i = 0; i < nf; i++)
			if (!CHECK(fabs((double)(topo_sim_finish(s, i) - f[i].finish)) <=
			           1e-9 * span + 2))
				printf("  trial %d flow %d: %lld vs %lld ps\n", trial, i,
				       (long long)topo_sim_finish(s, i), (long long)f[i].finish);
		for (int l = 0; l < L; l++)
			CHECK_NEAR(topo_sim_link_bytes(s, l), want_bytes[l], 1e-9);
		topo_sim_free(s);
	}
	sim_rng_free(rng);
}

/* The work of an event is its component. 100 flows on 100 separate links of
 * 1 GB/s, flow i of (i + 1) GB, all from 0: the start solves all 100 once;
 * each finish frees a link no other flow crosses, so it re-solves nothing:
 * 100 flows re-solved in all (a full re-solve at each of the 100 events
 * would count 100 + 99 + ... + 1 = 5,050). Then one shared link joins flows
 * 0 and 1 (both also on it): the start solves 2 flows, flow 0's end
 * re-solves flow 1: 3 more. */
static void incremental_work(void)
{
	double cap[101];
	for (int l = 0; l < 101; l++)
		cap[l] = 1e9;
	topo_sim *s;
	CHECK_INT(topo_sim_new(101, cap, &s), SIM_OK);
	for (int i = 0; i < 100; i++)
		topo_sim_add(s, &i, 1, 1e9 * (i + 1), 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_resolved(s), 100);
	CHECK_INT(topo_sim_finish(s, 99), 100 * SIM_PS_PER_S);
	topo_sim_clear(s);
	int a[2] = {0, 100}, b[2] = {1, 100};
	topo_sim_add(s, a, 2, 1e9, 0);
	topo_sim_add(s, b, 2, 2e9, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_resolved(s), 103);
	/* 0.5 GB/s each until flow 0 ends at 2 s; flow 1 then has 1 GB left
	 * alone at 1 GB/s: 3 s. */
	CHECK_INT(topo_sim_finish(s, 1), 3 * SIM_PS_PER_S);
	topo_sim_free(s);
	/* A departure re-solves only the flows at least as fast as the one that
	 * left (flow.c's header): link 100 of 100 GB/s carries a fast flow and
	 * 50 slow ones, slow flow i also crosses its own link i of 1 GB/s. The
	 * slow ones freeze at 1 GB/s on their own links; the fast one gets the
	 * 100 - 50 = 50 GB/s left. 50 GB at 50 GB/s end at 1 s; flows slower
	 * than 50 GB/s keep their rates, so nothing is re-solved then, and the
	 * slow ones' 2 GB end together at 2 s. Re-solved: the 51 at the start,
	 * 0 at 1 s (a whole component re-solve would count 50 more). */
	double cap2[101];
	for (int l = 0; l < 101; l++)
		cap2[l] = l == 100 ? 100e9 : 1e9;
	CHECK_INT(topo_sim_new(101, cap2, &s), SIM_OK);
	int fast = 100;
	topo_sim_add(s, &fast, 1, 50e9, 0);
	for (int i = 0; i < 50; i++) {
		int path[2] = {i, 100};
		topo_sim_add(s, path, 2, 2e9, 0);
	}
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_resolved(s), 51);
	CHECK_INT(topo_sim_finish(s, 0), SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, 50), 2 * SIM_PS_PER_S);
	topo_sim_free(s);
	/* A departure whose effect reaches a flow it does not share a link with
	 * (flow.c's verify): link 0 of 2 GB/s carries g and a, link 1 of 3 GB/s
	 * carries a and b. Start: link 0 saturates first (2/2 = 1 < 3/2), g = a
	 * = 1; b gets 3 - 1 = 2. g (1 GB) ends at 1 s. Round 1 re-solves g's
	 * faster neighbour a alone, b's 2 GB/s fixed: link 1 leaves it 1, a =
	 * 1. Verify: b is faster than a on link 1, where a is now bottlenecked,
	 * so b joins. Round 2: a and b share link 1, 1.5 each (link 0 allows a
	 * 2). a had 2.5 - 1 = 1.5 GB left, b 3.5 - 2 = 1.5 GB: both end at 2 s.
	 * Re-solved: 3 at the start, 1 + 2 at 1 s. */
	double cap3[2] = {2e9, 3e9};
	CHECK_INT(topo_sim_new(2, cap3, &s), SIM_OK);
	int pg = 0, pa[2] = {0, 1}, pb = 1;
	topo_sim_add(s, &pg, 1, 1e9, 0);
	topo_sim_add(s, pa, 2, 2.5e9, 0);
	topo_sim_add(s, &pb, 1, 3.5e9, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_resolved(s), 6);
	CHECK_INT(topo_sim_finish(s, 0), SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, 1), 2 * SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, 2), 2 * SIM_PS_PER_S);
	topo_sim_free(s);
}

#define GIB 1073741824.0

/* A cluster of `nodes` DGX A100 80GB (8 GPUs, 8 HDR NICs of 25 GB/s at
 * nic_efficiency 0.96: B = 24 GB/s per NIC; hardware.csv rows cited in
 * topologies/nodes/dgx-a100-80g.ini) on the fabric `extra` describes. */
/* The graph of the cluster the configuration text describes (and its
 * net_cluster into *c when given). */
static topo_graph *graph_of(const char *text, net_cluster *c)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	net_cluster local;
	topo_graph *g = NULL;
	if (!c)
		c = &local;
	int rc = conf_load_string(text, strlen(text), "<test>", ".", d, &doc);
	if (rc == SIM_OK)
		rc = net_cluster_from_conf(doc, c, d);
	if (rc == SIM_OK)
		rc = topo_build(c, &g);
	sim_diag_print(d, stderr);
	conf_free(doc);
	sim_diag_free(d);
	CHECK_INT(rc, SIM_OK);
	return g;
}

static topo_graph *cluster(int nodes, const char *extra)
{
	char text[512];
	snprintf(text, sizeof text,
	         "include = topologies/nodes/dgx-a100-80g.ini\n[cluster]\nname = t\nnodes = "
	         "%d\n%s\n",
	         nodes, extra);
	return graph_of(text, NULL);
}

/* A PCIe box: 8 GPUs, 4 per PCIe switch (2 switches), GPU links and switch
 * uplinks of B = 31.5 GB/s at efficiency e = 0.8 (so 25.2 GB/s), with and
 * without P2P. Ring all-reduce on all 8 (one ring 0 -> 1 -> ... -> 7 -> 0,
 * each hop a flow of the same size):
 *  - P2P: hops inside a switch turn at it; hops 3 -> 4 and 7 -> 0 cross both
 *    uplinks, one flow per uplink direction: every flow at e B = 25.2 GB/s.
 *  - no P2P: every hop goes GPU -> switch -> CPU -> switch -> GPU, so switch
 *    0's uplink carries the 4 hops out of GPUs 0-3 and its downlink the 4
 *    into them: e B / 4 = 6.3 GB/s per flow.
 * The alpha-beta model's busbw (net/coll.c) is the same figure, and the flow
 * model's data time is 2(n-1)/n S / rate. A pair of GPUs on one switch
 * without P2P: both hops of the 2-ring cross that uplink: e B / 2. */
static topo_graph *graph_of(const char *text, net_cluster *c);

static void pcie_box(void)
{
	const double rate[2] = {0.8 * 31.5e9, 0.8 * 31.5e9 / 4};
	for (int p2p = 1; p2p >= 0; p2p--) {
		char text[1024];
		snprintf(text, sizeof text,
		         "include = topologies/gpus/h100-pcie.ini\n[node]\nname = box\ngpus = 8\n"
		         "intra = pcie\nintra_bw = 31.5 GB/s\nintra_efficiency = 0.8\nnics = 1\n"
		         "nic_bw = 100 Gb/s\nnic_efficiency = 0.9\npcie_bw = 31.5 GB/s\n"
		         "host_memory = 512 GB\ngpus_per_pcie_switch = 4\npcie_p2p = %s\n"
		         "[cluster]\nname = box\nnodes = 1\n",
		         p2p ? "true" : "false");
		net_cluster c;
		topo_graph *g = graph_of(text, &c);
		if (!g)
			continue;
		int ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
		topo_cost fc;
		CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, 8, GIB, TOPO_ALGO_RING, &fc),
		          SIM_OK);
		CHECK_NEAR(2 * 7 / 8.0 * GIB / fc.bw_time_s, rate[!p2p], 1e-9);
		net_group grp;
		net_cost ac;
		net_group_make(&c, 8, 1, &grp);
		CHECK_INT(net_collective(&c, NET_ALLREDUCE, &grp, GIB, &ac), SIM_OK);
		CHECK_NEAR(ac.busbw_Bps, rate[!p2p], 1e-12);
		/* Two GPUs of switch 0. */
		net_group_make(&c, 2, 1, &grp);
		CHECK_INT(net_collective(&c, NET_ALLREDUCE, &grp, GIB, &ac), SIM_OK);
		CHECK_NEAR(ac.busbw_Bps, p2p ? rate[0] : rate[0] / 2, 1e-12);
		CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, 2, GIB, TOPO_ALGO_RING, &fc),
		          SIM_OK);
		CHECK_NEAR(GIB / fc.bw_time_s, p2p ? rate[0] : rate[0] / 2, 1e-9);
		topo_free(g);
	}
}

/* Every algorithm's closed form (net/coll.c) against the flow model on
 * uncongested links: m DGX A100 nodes on one switch (every NIC one flow per
 * direction), all 8m GPUs. Ring: 2(n-1)/n S / busbw; tree: 2 S / busbw
 * (NCCL's tuner ratio) with the tree's latency model; hier: 2(k-1)/k S at
 * NVSwitch speed + 2(m-1)/(km) S per NIC; each with the best protocol. The
 * flow model must give the same time (to rounding of the ps clock) for
 * 64 KiB (latency-bound, LL) and 1 GiB (bandwidth-bound, Simple), and auto
 * must pick the same algorithm in both; to 1e-5: the flow clock rounds
 * each phase to whole picoseconds, and LL's 1/3.8 protocol factor (tree)
 * multiplies that by 4 in a 70 us collective. nccl_proto = simple forces
 * Simple. */
static void closed_forms_agree(void)
{
	static const topo_algo ta[3] = {TOPO_ALGO_RING, TOPO_ALGO_TREE, TOPO_ALGO_HIER};
	static const net_algo na[3] = {NET_ALGO_RING, NET_ALGO_TREE, NET_ALGO_HIER};
	for (int m = 2; m <= 8; m *= 2) {
		char text[512];
		snprintf(text, sizeof text,
		         "include = topologies/nodes/dgx-a100-80g.ini\n[cluster]\nname = t\nnodes = %d\n"
		         "fabric = single-switch\n",
		         m);
		net_cluster c;
		topo_graph *g = graph_of(text, &c);
		if (!g)
			continue;
		int n = 8 * m, ranks[64];
		for (int i = 0; i < n; i++)
			ranks[i] = i;
		net_group grp;
		net_group_make(&c, n, 1, &grp);
		for (double S = 65536; S <= GIB; S *= 16384) {
			for (int a = 0; a < 3; a++) {
				topo_cost fc;
				net_cost ac;
				net_cluster forced = c;
				forced.algo = na[a];
				CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, n, S, ta[a], &fc), SIM_OK);
				CHECK_INT(net_collective(&forced, NET_ALLREDUCE, &grp, S, &ac), SIM_OK);
				CHECK_INT(ac.algo, na[a]);
				CHECK_NEAR(fc.time_s, ac.time_s, 1e-5);
				CHECK_INT(fc.proto, ac.proto);
			}
			topo_cost fa;
			net_cost aa;
			CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, n, S, TOPO_ALGO_AUTO, &fa),
			          SIM_OK);
			CHECK_INT(net_collective(&c, NET_ALLREDUCE, &grp, S, &aa), SIM_OK);
			CHECK_INT(aa.algo, fa.algo == TOPO_ALGO_TREE ? NET_ALGO_TREE : NET_ALGO_RING);
			CHECK_NEAR(fa.time_s, aa.time_s, 1e-5);
		}
		net_cluster simple = c;
		simple.proto = NET_PROTO_SIMPLE + 1;
		net_cost sc;
		CHECK_INT(net_collective(&simple, NET_ALLREDUCE, &grp, 65536, &sc), SIM_OK);
		CHECK_INT(sc.proto, NET_PROTO_SIMPLE);
		topo_free(g);
	}
}

/* SHARP (net/coll.c "SHARP", sim/topo/coll.c) in both models: DGX H100
 * (NVLS, CollNetDirect at 0.85) and DGX A100 (no NVLS, Direct at 1) nodes
 * with sharp = true on a non-blocking fat tree (16 and 64 nodes: NDR
 * leaves face 32 NICs, HDR leaves 20, so the trees climb to the spines, on
 * 64 A100 nodes to the cores) and on one of oversubscription 2 (16 nodes:
 * SHARP's reduced streams climb once per tree, one per uplink, so the taper
 * costs them nothing and the closed form takes no 1/o; on 64 A100 nodes at
 * o = 2, three tiers, a leaf reaches the cores through 4 of its 12 uplinks
 * and its 8 trees share them: the flows see it, the placement-blind closed
 * form does not, as for the ring), all 8m GPUs (k = 8) and one per node
 * (k = 1, stride 8), 64 KiB
 * and 1 GiB, all-reduce (the three algorithms) and all-gather and
 * reduce-scatter (CollNetDirect against the ring and PAT). Forced, each
 * algorithm's time agrees to the ps clock's rounding; auto runs NCCL's
 * pick, the same algorithm and protocol in both, everywhere, and the same
 * time but for all-gather and reduce-scatter at o = 2: there the ring's
 * closed form pays the taper, 1/o, that one group's ring of flows does not
 * meet, so at k = 1 NCCL's model takes CollNetDirect, S / (0.9 x 47 GB/s),
 * which the flows then run (before issue 14's fix they kept the ring,
 * (n-1)/n S / 47 GB/s, the fastest of their own times). Expected picks at 1 GiB:
 * H100 k = 8 NVLS (busbw 480 GB/s against CollNetChain's 419, the ring's
 * 370), k = 1 CollNetChain (2 x 47 GB/s x (n-1)/n); A100 CollNetDirect
 * (latency 44 against 69.2 us, the same bandwidth). */
static void sharp_case(const topo_graph *g, const net_cluster *c, const net_group *grp,
                       net_coll coll, const int *ranks, double S, const topo_algo *ta,
                       const net_algo *na, bool same_time)
{
	int n = grp->size;
	for (int a = 0; a < 3; a++) {
		net_cluster forced = *c;
		forced.algo = na[a];
		if (!net_sharp_ok(c, coll, grp, na[a]))
			continue;
		topo_cost fc;
		net_cost ac;
		CHECK_INT(topo_collective(g, coll, ranks, n, S, ta[a], &fc), SIM_OK);
		CHECK_INT(net_collective(&forced, coll, grp, S, &ac), SIM_OK);
		CHECK_INT(ac.algo, na[a]);
		CHECK_NEAR(fc.time_s, ac.time_s, 1e-5);
	}
	topo_cost fa;
	net_cost aa;
	CHECK_INT(topo_collective(g, coll, ranks, n, S, TOPO_ALGO_AUTO, &fa), SIM_OK);
	CHECK_INT(net_collective(c, coll, grp, S, &aa), SIM_OK);
	CHECK_INT(aa.algo, topo_algo_to_net(fa.algo));
	CHECK_INT(aa.proto, fa.proto);
	if (same_time)
		CHECK_NEAR(fa.time_s, aa.time_s, 1e-5);
}

static void sharp_agrees(void)
{
	static const char *const node[2] = {"dgx-h100", "dgx-a100-80g"};
	static const topo_algo ta[3] = {TOPO_ALGO_COLLNET_DIRECT, TOPO_ALGO_COLLNET_CHAIN,
	                                TOPO_ALGO_NVLS};
	static const net_algo na[3] = {NET_ALGO_COLLNET_DIRECT, NET_ALGO_COLLNET_CHAIN,
	                               NET_ALGO_NVLS};
	static int ranks[512];
	for (int h = 0; h < 2; h++)
		for (int o = 1; o <= 2; o++)
			for (int m = 16; m <= (o == 1 ? 64 : 16); m *= 4) {
				char text[512];
				snprintf(text, sizeof text,
				         "include = topologies/nodes/%s.ini\n[cluster]\nname = t\n"
				         "nodes = %d\nfabric = fat-tree\noversubscription = %d\n"
				         "sharp = true\n",
				         node[h], m, o);
				net_cluster c;
				topo_graph *g = graph_of(text, &c);
				if (!g)
					continue;
				for (int k = 1; k <= 8; k += 7) {
					int n = k * m;
					for (int i = 0; i < n; i++)
						ranks[i] = k == 8 ? i : 8 * i;
					net_group grp;
					net_group_make(&c, n, k == 8 ? 1 : 8, &grp);
					for (double S = 65536; S <= GIB; S *= 16384)
						for (int op = 0; op < 3; op++) {
							net_coll coll = op == 0   ? NET_ALLREDUCE
							                : op == 1 ? NET_ALLGATHER
							                          : NET_REDUCESCATTER;
							sharp_case(g, &c, &grp, coll, ranks, S, ta, na,
							           o == 1 || coll == NET_ALLREDUCE);
							if (S == GIB && coll == NET_ALLREDUCE) {
								net_cost aa;
								CHECK_INT(net_collective(&c, coll, &grp, S, &aa),
								          SIM_OK);
								CHECK_INT(aa.algo,
								          h == 1   ? NET_ALGO_COLLNET_DIRECT
								          : k == 8 ? NET_ALGO_NVLS
								                   : NET_ALGO_COLLNET_CHAIN);
							}
						}
				}
				topo_free(g);
			}
}

/* SHARP with every copy of a group at once (a plan's data-parallel groups
 * under tp 8: 8 translates of one rank per node, GPU t of each of 16 DGX
 * H100 on a non-blocking fat tree, 4 nodes per NDR leaf): each translate's
 * trees leave the leaves on their own uplinks (d-mod-k by the root NIC),
 * each NIC carries one rank's S each way, so the time is one group's,
 * net's S / 47 GB/s + 14 us (CollNetChain at one rank per node), and every
 * leaf uplink the trees use carries S once per direction. */
static void sharp_translates(void)
{
	const char *text = "include = topologies/nodes/dgx-h100.ini\n[cluster]\nname = t\n"
	                   "nodes = 16\nfabric = fat-tree\nsharp = true\nnccl_algo = collnetchain\n";
	net_cluster c;
	topo_graph *g = graph_of(text, &c);
	if (!g)
		return;
	int groups[128];
	for (int t = 0; t < 8; t++)
		for (int i = 0; i < 16; i++)
			groups[t * 16 + i] = 8 * i + t;
	net_group grp;
	net_group_make(&c, 16, 8, &grp);
	net_cost ac;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &grp, GIB, &ac), SIM_OK);
	CHECK_INT(ac.algo, NET_ALGO_COLLNET_CHAIN);
	topo_cost fc;
	double *bytes = calloc((size_t)topo_nlinks(g), sizeof *bytes);
	CHECK_INT(topo_collective_groups(g, NET_ALLREDUCE, groups, 16, 8, GIB,
	                                 TOPO_ALGO_COLLNET_CHAIN, &fc, bytes, NULL),
	          SIM_OK);
	CHECK_NEAR(fc.time_s, ac.time_s, 1e-5);
	CHECK_NEAR(fc.time_s, 14e-6 + GIB / (50e9 * 0.94), 1e-5);
	double most = 0;
	int used = 0;
	for (int l = 0; l < topo_nlinks(g); l++) {
		const topo_link *k = topo_link_at(g, l);
		char a[64];
		topo_vertex_name(g, k->src, a, sizeof a);
		if (strncmp(a, "leaf", 4) || !(bytes[l] > 0))
			continue;
		char b[64];
		topo_vertex_name(g, k->dst, b, sizeof b);
		if (strncmp(b, "spine", 5))
			continue;
		used++;
		most = fmax(most, bytes[l]);
	}
	CHECK(used > 0);
	CHECK_NEAR(most, GIB, 1e-9);
	free(bytes);
	topo_free(g);
}

/* PAT (sim/topo/coll.c, net/coll.c "PAT") against its closed form on a
 * non-blocking fat tree of DGX A100 nodes, one rank per node (GPU 0 of each:
 * ranks 0, 8, 16, ...), n = 12 (not a power of 2: the peers at distance
 * 1, 2, 4, 8 get c_d = floor((11 + 2^d) / 2^(d+1)) = 6, 3, 1, 1 pieces of
 * S/12 per rank, sum 11), 16 and 64 nodes. Each rank's NIC (24 GB/s)
 * carries its flows back to back: makespan (n-1)/n S / 24 GB/s, t_bw = S /
 * 24 GB/s, time = net_pat_latency + S / 18 GB/s + coll_overhead: net's, to
 * the ps clock's rounding (1e-6). The groups span several leaves (HDR
 * leaves face 20 NICs) and the spine, where a collision of the d-mod-k
 * routes would show as a slower flow: none here. Auto picks the same
 * algorithm and protocol in both models at 64 KiB (PAT) and 256 MiB
 * (ring, Simple). */
static void pat_agrees(void)
{
	const int nodes[] = {12, 16, 64};
	for (int t = 0; t < 3; t++) {
		char text[512];
		snprintf(text, sizeof text,
		         "include = topologies/nodes/dgx-a100-80g.ini\n[cluster]\nname = t\nnodes = %d\n"
		         "fabric = fat-tree\n",
		         nodes[t]);
		net_cluster c;
		topo_graph *g = graph_of(text, &c);
		if (!g)
			continue;
		int n = nodes[t], ranks[64];
		for (int i = 0; i < n; i++)
			ranks[i] = 8 * i;
		net_group grp;
		net_group_make(&c, n, 8, &grp);
		net_cluster forced = c;
		forced.algo = NET_ALGO_PAT;
		for (int coll = NET_ALLGATHER; coll <= NET_REDUCESCATTER; coll++)
			for (double S = 65536; S <= 256.0 * 1048576; S *= 64) {
				topo_cost fc, fa;
				net_cost ac, aa;
				CHECK_INT(topo_collective(g, (net_coll)coll, ranks, n, S, TOPO_ALGO_PAT, &fc),
				          SIM_OK);
				CHECK_INT(net_collective(&forced, (net_coll)coll, &grp, S, &ac), SIM_OK);
				CHECK_INT(fc.algo, TOPO_ALGO_PAT);
				CHECK_INT(ac.algo, NET_ALGO_PAT);
				CHECK_NEAR(fc.time_s, ac.time_s, 1e-6);
				CHECK_NEAR(fc.bw_time_s, S / 24e9, 1e-6);
				CHECK_NEAR(fc.latency_s, net_pat_latency(&c, n), 1e-12);
				CHECK_INT(topo_collective(g, (net_coll)coll, ranks, n, S, TOPO_ALGO_AUTO, &fa),
				          SIM_OK);
				CHECK_INT(net_collective(&c, (net_coll)coll, &grp, S, &aa), SIM_OK);
				CHECK_INT(topo_algo_to_net(fa.algo), aa.algo);
				CHECK_INT(fa.proto, aa.proto);
				CHECK_NEAR(fa.time_s, aa.time_s, 1e-6);
				if (S == 65536)
					CHECK_INT(fa.algo, TOPO_ALGO_PAT);
				if (S == 256.0 * 1048576)
					CHECK_INT(fa.algo, TOPO_ALGO_RING);
			}
		topo_free(g);
	}
}

/* Issue 14: the flow model runs NCCL's pick, not the fastest simulated
 * candidate. 32 HGX H800 of a 32-node fat tree (NDR: 4 nodes, 32 NICs, per
 * leaf, 8 leaves on 4 spines), GPU 0 of every node (a data-parallel group
 * under tp 8), all-reduce of S = 32 MiB. NCCL's own table (net tune.c:
 * one NIC of 50 GB/s per rank, one channel of 48 GB/s doubled to 2 of 24,
 * N search.cc:1036-1048; ppn 1 takes the tree's network latencies):
 *   tree LL128: min(0.92 x 48, 2 x 36.0) = 44.16, x 120/128 = 41.4 (< 2 x
 *     29), x 0.5 x treeCorrectionFactor 0.9 = 18.63 GB/s; lat 14 + 2 x 5
 *     x 8.5 = 99: 99 + 1801.1 = 1900.1 us;
 *   ring LL128: 44.16 x 32/62 = 22.79; lat 14 + 62 x 8.5 = 541: 541 +
 *     1472.2 = 2013.2 us (Simple 2581, tree Simple 2319):
 * the tree with LL128. On the graph the tree's edges between leaves climb
 * by d-mod-k to the spines, and only NIC 0 of each node is used, so they
 * crowd a few of a leaf's 32 uplinks: the busiest carries five tree
 * edges' S/2 (2.5 S), and the tree is slower than the ring's flows (one
 * hop per NIC, no collision). NCCL still runs the tree, so auto must
 * report the tree at the forced tree's time in the flow model, with net's
 * algorithm and protocol; the old pick kept the ring (tools/coll-agree
 * lists such cases). */
static void nccl_pick_contended(void)
{
	const char *text = "include = topologies/nodes/hgx-h800.ini\n[cluster]\nname = t\n"
	                   "nodes = 32\nfabric = fat-tree\n";
	net_cluster c;
	topo_graph *g = graph_of(text, &c);
	if (!g)
		return;
	int ranks[32];
	for (int i = 0; i < 32; i++)
		ranks[i] = 8 * i;
	net_group grp;
	net_group_make(&c, 32, 8, &grp);
	double S = 32.0 * 1048576;
	net_cost ab;
	topo_cost fa, ft, fr;
	CHECK_INT(net_collective(&c, NET_ALLREDUCE, &grp, S, &ab), SIM_OK);
	CHECK_INT(ab.algo, NET_ALGO_TREE);
	CHECK_INT(ab.proto, NET_PROTO_LL128);
	CHECK_NEAR(net_tune_time_us(&c, NET_ALLREDUCE, &grp, S, NET_ALGO_TREE, NET_PROTO_LL128),
		   1900.1, 2e-4);
	CHECK_NEAR(net_tune_time_us(&c, NET_ALLREDUCE, &grp, S, NET_ALGO_RING, NET_PROTO_LL128),
		   2013.2, 2e-4);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, 32, S, TOPO_ALGO_AUTO, &fa), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, 32, S, TOPO_ALGO_TREE, &ft), SIM_OK);
	CHECK_INT(topo_collective(g, NET_ALLREDUCE, ranks, 32, S, TOPO_ALGO_RING, &fr), SIM_OK);
	CHECK_INT(topo_algo_to_net(fa.algo), ab.algo);
	CHECK_INT(fa.proto, ab.proto);
	CHECK_NEAR(fa.time_s, ft.time_s, 1e-12);
	CHECK(fa.time_s > 1.15 * ab.time_s); /* the collisions NCCL's model does not see */
	CHECK(fr.time_s < fa.time_s);        /* what "fastest of the candidates" kept */
	const topo_link *hot = topo_link_at(g, fa.hot_link);
	CHECK(hot && topo_link_class(g, fa.hot_link) == NET_LINK_FABRIC);
	CHECK_NEAR(fa.hot_link_bytes, 2.5 * S, 1e-9);
	topo_free(g);
}

/* A data-parallel all-reduce of S = 1 GiB over 4 ranks 24 apart (a plan
 * with order tp-cp-pp-dp, tp 8, pp 3, dp 4 on 12 nodes: rank r's group is
 * r, r+24, r+48, r+72, i.e. one GPU on each of nodes n, n+3, n+6, n+9). The
 * plan's 24 translates (every GPU of nodes 0-2) all run it at once. Each is
 * one ring of 4 ranks on 4 nodes (1 channel); a step moves S/4 over each
 * hop, 2(n-1) = 6 steps: t_bw = 6 (S/4) / rate.
 *  - Rail-optimized, o = 1: HDR leaves have floor(40/2) = 20 down ports, so
 *    one scalable unit of 20 nodes; GPU j's ring stays on rail leaf j, one
 *    flow per NIC direction: rate B, t_bw = 1.5 S / B.
 *  - Fat tree, o = 2: floor(40 * 2/3) = 26 down ports, 3 whole nodes (24
 *    NICs) per leaf and ceil(24/2) = 12 uplinks. The group's nodes sit on
 *    four different leaves, so all 24 NICs of a leaf send across: 24 flows
 *    on 12 uplinks (d-mod-k spreads them two per uplink, and two per
 *    downlink at the next leaf): rate B/2, t_bw = 3 S / B, twice the rail's.
 *  - Fat tree, o = 1: 20 down ports, 2 nodes (16 NICs) per leaf, 16
 *    uplinks: 16 flows, one each: rate B again.
 * Link loads: on the fat tree every uplink carries 2 flows x 6 steps x S/4
 * = 3 S and is saturated during the whole data time; the rail fabric's
 * spine links carry nothing. */
static void group_oversubscription(void)
{
	const double B = 25e9 * 0.96;
	topo_graph *rail = cluster(12, "fabric = rail-optimized"),
	           *ft2 = cluster(12, "fabric = fat-tree\noversubscription = 2"),
	           *ft1 = cluster(12, "fabric = fat-tree");
	topo_cache *kr, *k2, *k1;
	if (!rail || !ft2 || !ft1)
		return;
	CHECK_INT(topo_cache_new(rail, 96, &kr), SIM_OK);
	CHECK_INT(topo_cache_new(ft2, 96, &k2), SIM_OK);
	CHECK_INT(topo_cache_new(ft1, 96, &k1), SIM_OK);
	topo_group_result r, f2, f1;
	CHECK_INT(topo_group_cost(kr, NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING, &r), SIM_OK);
	CHECK_INT(topo_group_cost(k2, NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING, &f2), SIM_OK);
	CHECK_INT(topo_group_cost(k1, NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING, &f1), SIM_OK);
	CHECK_INT(r.translates, 24);
	CHECK_INT(r.simulated, 24);
	CHECK_NEAR(r.cost.bw_time_s, 1.5 * GIB / B, 1e-6);
	CHECK_NEAR(f1.cost.bw_time_s, 1.5 * GIB / B, 1e-6);
	CHECK_NEAR(f2.cost.bw_time_s, 3.0 * GIB / B, 1e-6);
	CHECK(f2.cost.time_s > 1.9 * r.cost.time_s);
	CHECK_NEAR(r.bytes[NET_LINK_FABRIC], 0, 1e-12);
	CHECK_NEAR(f2.bytes[NET_LINK_FABRIC], 3.0 * GIB, 1e-6);
	CHECK_NEAR(f2.sat_s[NET_LINK_FABRIC], f2.cost.bw_time_s, 1e-6);
	/* The nic class: every NIC sends 6 x S/4 = 1.5 S. */
	CHECK_NEAR(r.bytes[NET_LINK_NIC], 1.5 * GIB, 1e-6);
	const topo_link *hot = topo_link_at(ft2, f2.link[NET_LINK_FABRIC]);
	CHECK(hot && topo_vertex_at(ft2, hot->src)->kind == TOPO_V_LEAF);
	/* Cache: the same question is answered without simulating; another
	 * size is a new entry. */
	topo_group_result again;
	CHECK_INT(topo_group_cost(k2, NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING, &again), SIM_OK);
	CHECK_NEAR(again.cost.time_s, f2.cost.time_s, 0);
	CHECK_INT(topo_group_cost(k2, NET_ALLREDUCE, 4, 24, GIB / 2, TOPO_ALGO_RING, &again),
	          SIM_OK);
	int hits, misses;
	topo_cache_stats(k2, &hits, &misses);
	CHECK_INT(hits, 1);
	CHECK_INT(misses, 2);
	/* A group that does not fit the world. */
	CHECK_INT(topo_group_cost(k2, NET_ALLREDUCE, 8, 24, GIB, TOPO_ALGO_RING, &again),
	          SIM_EINVAL);
	topo_cache_free(kr);
	topo_cache_free(k2);
	topo_cache_free(k1);
	topo_free(rail);
	topo_free(ft2);
	topo_free(ft1);
}

/* The collectives of one cache share one simulation context (coll.c,
 * topo_coll_ctx): its flow simulation and sparse per-link accumulators
 * (acc.c) are reused from call to call and cleared over the links the last
 * call touched only. Reuse must give what a fresh context gives: every
 * question asked after others on one cache (12 DGX A100 nodes, fat tree
 * oversubscribed 2:1, 90 of the 96 ranks in the world) equals, field for
 * field and bit for bit, the same question asked alone on a new cache. The
 * dense link loads of topo_collective_groups (the public API) agree with the
 * class sums and maxima the cache computed from the sparse list. And the
 * translate count (group.c, a closed form since it no longer lists every
 * base): the bases b < 90 - (size-1) stride with floor(b / stride) mod size
 * = 0, counted here by brute force. */
typedef struct ask {
	net_coll coll;
	int size, stride;
	double bytes;
	topo_algo algo;
} ask;

static void same_result(const topo_group_result *a, const topo_group_result *b)
{
	CHECK_NEAR(a->cost.time_s, b->cost.time_s, 0);
	CHECK_NEAR(a->cost.bw_time_s, b->cost.bw_time_s, 0);
	CHECK_NEAR(a->cost.latency_s, b->cost.latency_s, 0);
	CHECK_NEAR(a->cost.hot_link_bytes, b->cost.hot_link_bytes, 0);
	CHECK_INT(a->cost.hot_link, b->cost.hot_link);
	CHECK_INT(a->cost.flows, b->cost.flows);
	CHECK_INT(a->cost.algo, b->cost.algo);
	CHECK_INT(a->cost.proto, b->cost.proto);
	CHECK_INT(a->translates, b->translates);
	CHECK_INT(a->simulated, b->simulated);
	for (int c = 0; c < NET_LINK_KIND_COUNT; c++) {
		CHECK_NEAR(a->bytes[c], b->bytes[c], 0);
		CHECK_NEAR(a->sat_s[c], b->sat_s[c], 0);
		CHECK_NEAR(a->total_bytes[c], b->total_bytes[c], 0);
		CHECK_INT(a->link[c], b->link[c]);
	}
}

/* The flow simulation is scale-invariant (outcome.c's header): all flows
 * start at 0 and rates do not depend on bytes, so bytes times c give every
 * finish, link byte count and saturated spell times c. Random flows
 * (seeded): 1,100 over 1..4 of 40 links of 1..10 GB/s, 0.1..4 GB each,
 * simulated as they are and in the canonical form (the largest at 2^30
 * bytes, the rest in proportion) scaled back by b_max / 2^30: the same to
 * 1e-9 (each rounds its finishes to whole picoseconds). */
static void canonical_form(void)
{
	enum { L = 40, F = 1100 };
	sim_rng *rng = sim_rng_new(20261201);
	CHECK(rng != NULL);
	if (!rng)
		return;
	double cap[L], bytes[F], top = 0;
	int links[F * 4], off[F + 1], np = 0;
	for (int l = 0; l < L; l++)
		cap[l] = 1e9 * (1 + (int)(10 * sim_rng_uniform(rng)));
	for (int f = 0; f < F; f++) {
		off[f] = np;
		np = random_path(rng, L, 4, links, np);
		bytes[f] = 1e8 + 3.9e9 * sim_rng_uniform(rng);
		top = fmax(top, bytes[f]);
	}
	off[F] = np;
	double span[2], lb[2][L], ls[2][L];
	for (int form = 0; form < 2; form++) {
		topo_sim *s;
		CHECK_INT(topo_sim_new(L, cap, &s), SIM_OK);
		for (int f = 0; f < F; f++)
			CHECK(topo_sim_add(s, links + off[f], off[f + 1] - off[f],
			                   form ? bytes[f] / top * 1073741824.0 : bytes[f], 0) >= 0);
		CHECK_INT(topo_sim_run(s), SIM_OK);
		double k = form ? top / 1073741824.0 : 1;
		span[form] = k * sim_time_to_s(topo_sim_makespan(s));
		for (int l = 0; l < L; l++) {
			lb[form][l] = k * topo_sim_link_bytes(s, l);
			ls[form][l] = k * topo_sim_link_sat_s(s, l);
		}
		topo_sim_free(s);
	}
	CHECK(span[0] > 1);
	CHECK_NEAR(span[1], span[0], 1e-9 * span[0]);
	for (int l = 0; l < L; l++) {
		CHECK_NEAR(lb[1][l], lb[0][l], 1e-9 * lb[0][l]);
		CHECK_NEAR(ls[1][l], ls[0][l], 1e-9 * span[0]);
	}
	sim_rng_free(rng);
}

/* A phase repeated with other bytes reuses its simulation (outcome.c): the
 * ring all-reduce of all 512 GPUs of 64 DGX A100 nodes on a fat tree
 * oversubscribed 2:1 (8 channels x 512 hops = 4,096 flows, unequal rates
 * where ECMP shares uplinks) at 1 GiB, then at 3 GiB. The second simulates
 * nothing, its data time is 3 x the first's, and it is bit for bit what a
 * fresh cache (which simulates it) answers. */
static void scaled_phases(void)
{
	topo_graph *g = cluster(64, "fabric = fat-tree\noversubscription = 2");
	if (!g)
		return;
	topo_cache *k, *fresh;
	topo_group_result a1, a3, b3;
	long long reused, simulated, reused1, simulated1;
	CHECK_INT(topo_cache_new(g, 512, &k), SIM_OK);
	CHECK_INT(topo_group_cost(k, NET_ALLREDUCE, 512, 1, GIB, TOPO_ALGO_RING, &a1), SIM_OK);
	topo_cache_phase_stats(k, &reused1, &simulated1);
	CHECK(simulated1 >= 1);
	CHECK_INT(topo_group_cost(k, NET_ALLREDUCE, 512, 1, 3 * GIB, TOPO_ALGO_RING, &a3), SIM_OK);
	topo_cache_phase_stats(k, &reused, &simulated);
	CHECK(simulated == simulated1 && reused > reused1);
	CHECK_NEAR(a3.cost.bw_time_s, 3 * a1.cost.bw_time_s, 1e-12 * a3.cost.bw_time_s);
	CHECK(a1.cost.flows >= 4096);
	CHECK_INT(topo_cache_new(g, 512, &fresh), SIM_OK);
	CHECK_INT(topo_group_cost(fresh, NET_ALLREDUCE, 512, 1, 3 * GIB, TOPO_ALGO_RING, &b3), SIM_OK);
	topo_cache_phase_stats(fresh, &reused, &simulated);
	CHECK(reused == 0 && simulated >= 1);
	same_result(&a3, &b3);
	topo_cache_free(fresh);
	topo_cache_free(k);
	topo_free(g);
}

static void context_reuse(void)
{
	topo_graph *g = cluster(12, "fabric = fat-tree\noversubscription = 2");
	if (!g)
		return;
	const ask q[] = {
	        {NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING},    /* across nodes: fabric links */
	        {NET_ALLGATHER, 8, 1, GIB / 8, TOPO_ALGO_AUTO}, /* inside each node */
	        {NET_ALLREDUCE, 3, 8, GIB, TOPO_ALGO_AUTO},     /* ring and tree timed */
	        {NET_ALLREDUCE, 3, 8, GIB, TOPO_ALGO_TREE},     /* the tree's ring bound */
	        {NET_ALLTOALL, 8, 1, GIB, TOPO_ALGO_AUTO},
	        {NET_P2P, 2, 8, GIB, TOPO_ALGO_AUTO},
	        {NET_REDUCESCATTER, 11, 8, GIB, TOPO_ALGO_AUTO},
	        {NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING}, /* again: from the cache */
	};
	enum { NQ = sizeof q / sizeof q[0] };
	topo_cache *shared;
	CHECK_INT(topo_cache_new(g, 90, &shared), SIM_OK);
	for (int i = 0; i < NQ; i++) {
		topo_group_result a, b;
		topo_cache *fresh;
		CHECK_INT(topo_group_cost(shared, q[i].coll, q[i].size, q[i].stride, q[i].bytes,
		                          q[i].algo, &a),
		          SIM_OK);
		CHECK_INT(topo_cache_new(g, 90, &fresh), SIM_OK);
		CHECK_INT(topo_group_cost(fresh, q[i].coll, q[i].size, q[i].stride, q[i].bytes,
		                          q[i].algo, &b),
		          SIM_OK);
		same_result(&a, &b);
		topo_cache_free(fresh);
		int span = (q[i].size - 1) * q[i].stride, count = 0;
		for (int base = 0; base + span < 90; base++)
			count += (base / q[i].stride) % q[i].size == 0;
		CHECK_INT(a.translates, count);
	}
	int hits, misses;
	topo_cache_stats(shared, &hits, &misses);
	CHECK_INT(hits, 1);
	CHECK_INT(misses, NQ - 1);
	topo_cache_free(shared);
	/* Dense (public) vs sparse (cache): the 4 x 24 ring, its 18 translates
	 * (bases 0..17: 90 - 72 = 18 < 24) run together. */
	int nl = topo_nlinks(g), groups[18 * 4];
	for (int t = 0; t < 18; t++)
		for (int i = 0; i < 4; i++)
			groups[t * 4 + i] = t + 24 * i;
	double *lb = calloc((size_t)nl, sizeof *lb), *ls = calloc((size_t)nl, sizeof *ls);
	topo_cost c;
	topo_group_result r;
	CHECK_INT(topo_cache_new(g, 90, &shared), SIM_OK);
	CHECK_INT(topo_group_cost(shared, NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_RING, &r), SIM_OK);
	CHECK_INT(topo_collective_groups(g, NET_ALLREDUCE, groups, 4, 18, GIB, TOPO_ALGO_RING, &c,
	                                 lb, ls),
	          SIM_OK);
	CHECK_INT(r.simulated, 18);
	CHECK_NEAR(c.time_s, r.cost.time_s, 0);
	double total[NET_LINK_KIND_COUNT] = {0}, most[NET_LINK_KIND_COUNT] = {0},
	       sat[NET_LINK_KIND_COUNT] = {0};
	for (int l = 0; l < nl; l++) {
		net_link_kind k = topo_link_class(g, l);
		total[k] += lb[l];
		most[k] = lb[l] > most[k] ? lb[l] : most[k];
		sat[k] = ls[l] > sat[k] ? ls[l] : sat[k];
	}
	for (int k = 0; k < NET_LINK_KIND_COUNT; k++) {
		CHECK_NEAR(r.total_bytes[k], total[k], 0);
		CHECK_NEAR(r.bytes[k], most[k], 0);
		CHECK_NEAR(r.sat_s[k], sat[k], 0);
	}
	CHECK(r.bytes[NET_LINK_FABRIC] > 0);
	free(lb);
	free(ls);
	topo_cache_free(shared);
	topo_free(g);
}

/* A whole step with [cluster] network = flow or alpha-beta. */
static int step(const char *extra, exec_result *r)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "include = models/megatron-1.7b.ini\n"
	         "include = topologies/nodes/dgx-a100-80g.ini\n"
	         "[scenario]\nname = t\nseed = 1\n"
	         "[train]\nprecision = bf16\n%s\n",
	         extra);
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	int rc = plan_scenario_load_string(text, "<test>", ".", d, &s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc == SIM_OK)
		rc = exec_run(s, r);
	plan_scenario_free(s);
	return rc;
}

/* One DGX A100 node, tp 2 dp 4: every collective stays on the NVSwitch,
 * where each GPU port carries one ring flow per direction, so the flow
 * model's ring is net's alpha-beta ring exactly (coll.c header) and the
 * step times agree (within 2 %, the tolerance the issue asks for). */
static void uncongested_step(void)
{
	const char *plan = "[parallel]\ntp = 2\npp = 1\ndp = 4\nmicro_batch = 4\n"
	                   "global_batch = 64\n[cluster]\nname = one\nnodes = 1\n";
	char flow[256];
	snprintf(flow, sizeof flow, "%snetwork = flow\n", plan);
	static exec_result a, f;
	CHECK_INT(step(plan, &a), SIM_OK);
	CHECK_INT(step(flow, &f), SIM_OK);
	CHECK(a.step_s > 0);
	CHECK_NEAR(f.step_s, a.step_s, 0.02);
	/* The flow model names the graph's links. */
	CHECK_STR(f.links[0].name, "n0/gpu0 -> n0/nvswitch0");
}

/* The plan of group_oversubscription as a step (tp 8, pp 3, dp 4, order
 * tp-cp-pp-dp on 12 nodes): the fat tree at o = 2 doubles the DP all-reduce's
 * data time, so the step is slower than on the rail-optimized fabric, and
 * the report names a saturated leaf -> spine link. */
static void oversubscribed_step(void)
{
	const char *plan = "[parallel]\ntp = 8\npp = 3\ndp = 4\norder = tp-cp-pp-dp\n"
	                   "micro_batch = 1\nglobal_batch = 12\n"
	                   "[cluster]\nname = c\nnodes = 12\nnetwork = flow\n";
	char rail[512], ft[512];
	snprintf(rail, sizeof rail, "%sfabric = rail-optimized\n", plan);
	snprintf(ft, sizeof ft, "%sfabric = fat-tree\noversubscription = 2\n", plan);
	static exec_result r, f;
	CHECK_INT(step(rail, &r), SIM_OK);
	CHECK_INT(step(ft, &f), SIM_OK);
	CHECK(f.step_s > r.step_s);
	bool saturated = false;
	for (int i = 0; i < f.nlinks; i++)
		if (!strncmp(f.links[i].name, "leaf", 4) && f.links[i].saturated_s > 0)
			saturated = true;
	CHECK(saturated);
}

/* Uplink contention between groups (exec/replay.c nic_change) on the fixture
 * tests/topologies/fat-tree-4x16-2to1.ini: 4 nodes of 16 A100 with 16 HDR
 * NICs, one node per leaf, 8 uplinks per leaf (2:1). Llama 2 7B, tp 16 (one
 * node), pp 2, dp 2 (stage 0 on nodes 0-1, stage 1 on nodes 2-3), one
 * micro-batch, async p2p, one gradient bucket after the backward
 * (overlap_grad_reduce = false): when stage 1's backward ends, its send of
 * the input gradient to stage 0 (P) and its all-reduce of its gradients (D)
 * start together and share its leaf's uplinks.
 * By hand, with B = 25 GB/s x 0.96 = 24 GB/s (a NIC and an uplink):
 *  - P: each of the 16 GPUs sends S_p = s h 2 B / tp = 4096 x 4096 x 2 / 16
 *    = 2 MiB (the sequence-parallel shard) through its own NIC; 16 flows on
 *    8 uplinks, 2 each: B/2 per flow, t_p = lat + S_p / (B/2) (174.8 us
 *    of data), and each uplink carries 2 S_p: fabric bytes = 2 x the NIC's.
 *  - D: 16 rings of 2 ranks, one per node: each rank sends 2(n-1)/n S_d =
 *    S_d through its NIC, the same 2 flows per uplink: t_d = lat + S_d /
 *    (B/2), fabric bytes = 2 x the NIC's.
 *  The closed forms (B_nic = k/G N B / o, rank_nic_bw) and the flow model
 *  give these alike (the fixture puts every flow between nodes on the
 *  uplinks). NIC demands S/t are each just below B/2: together below B, so
 *  no NIC sharing. Uplink demands u = 2 S / t are each just below B:
 *  together about 2 B, so both run at r = B / (u_p + u_d), about 1/2 (the
 *  latencies keep r a little above). P ends at t_p / r; D has then done t_p
 *  of its work and ends t_p (1/r - 1) later than alone. Stage 0 waits for
 *  P, so its backward, reduction and optimizer step, the step's end, move
 *  by the same
 *      delta = t_p (1/r - 1)     (about t_p),
 *  and each transfer lost delta to the uplinks (it ran t_p / r instead of
 *  t_p / 1). The step with the uplinks unshared is the graph replayed on
 *  the cluster at oversubscription 1 (bit for bit). Tolerances: ps rounding
 *  (1e-6 of delta); the two models' steps within 1e-3, their deltas within
 *  2 %. */
static int fixture(const char *extra, plan_scenario **s)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "include = models/llama2-7b.ini\n"
	         "include = tests/topologies/fat-tree-4x16-2to1.ini\n"
	         "[scenario]\nname = uplinks\nseed = 1\n[train]\nprecision = bf16\n"
	         "[parallel]\ntp = 16\npp = 2\ndp = 2\nmicro_batch = 1\nglobal_batch = 2\n"
	         "sequence_parallel = true\np2p = async\noverlap_grad_reduce = false\n%s\n",
	         extra);
	sim_diag *d = sim_diag_new();
	int rc = plan_scenario_load_string(text, "<test>", ".", d, s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	return rc;
}

/* Stage 1's task of kind k that crosses the NICs (the only one: P or D). */
static const plan_task *stage1_task(const plan_graph *g, uint8_t kind)
{
	const plan_task *t = NULL;
	int n = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].rank == 1 && g->tasks[i].kind == kind && g->tasks[i].nic_bytes > 0)
			t = &g->tasks[i], n++;
	CHECK_INT(n, 1);
	return t;
}

static void uplink_contention(void)
{
	const double B = 25e9 * 0.96, Sp = 4096.0 * 4096 * 2 / 16;
	static exec_result r[2], alone;
	double delta[2];
	for (int m = 0; m < 2; m++) {
		plan_scenario *s = NULL;
		plan_graph *g = NULL;
		CHECK_INT(fixture(m ? "[cluster]\nnetwork = flow\n" : "[cluster]\nnetwork = alpha-beta\n",
		                  &s),
		          SIM_OK);
		if (!s || plan_build(s, &g) != SIM_OK) {
			CHECK(false);
			plan_scenario_free(s);
			return;
		}
		const plan_task *p = stage1_task(g, PLAN_TASK_PP), *d = stage1_task(g, PLAN_TASK_DP);
		double tp = sim_time_to_s(p->dur), td = sim_time_to_s(d->dur);
		CHECK_NEAR(p->nic_bytes, Sp, 1e-6);
		CHECK_NEAR(p->uplink_bytes, 2.0 * p->nic_bytes, 1e-6);
		CHECK_NEAR(d->uplink_bytes, 2.0 * d->nic_bytes, 1e-6);
		CHECK(tp > Sp / (B / 2) && tp < 1.2 * Sp / (B / 2));
		CHECK_NEAR(td, d->nic_bytes / (B / 2), 0.01);
		double up = p->uplink_bytes / tp, ud = d->uplink_bytes / td;
		CHECK(p->nic_bytes / tp + d->nic_bytes / td < B); /* no NIC sharing */
		double rate = B / (up + ud);
		CHECK(rate > 0.5 && rate < 0.55);
		delta[m] = tp * (1 / rate - 1);
		CHECK_INT(exec_replay(g, &s->cluster, &r[m]), SIM_OK);
		CHECK_NEAR(r[m].uplinks.oversub, 2, 0);
		CHECK_NEAR(r[m].step_s - r[m].uplinks.free_step_s, delta[m], 1e-6);
		CHECK_NEAR(r[m].uplinks.lost_s[EXEC_CAT_PP], delta[m], 1e-6);
		CHECK_NEAR(r[m].uplinks.lost_s[EXEC_CAT_DP], delta[m], 1e-6);
		CHECK_INT(r[m].uplinks.rank, 1);
		net_cluster one = s->cluster;
		one.oversubscription = 1;
		CHECK_INT(exec_replay(g, &one, &alone), SIM_OK);
		CHECK_NEAR(alone.step_s, r[m].uplinks.free_step_s, 0);
		CHECK_NEAR(alone.uplinks.oversub, 0, 0);
		plan_graph_free(g);
		plan_scenario_free(s);
	}
	CHECK_NEAR(r[1].step_s, r[0].step_s, 1e-3);
	CHECK_NEAR(delta[1], delta[0], 0.02);
}

/* The fixture at oversubscription 1: a leaf has as many uplinks as NICs,
 * the NIC share bounds every set of transfers and the uplinks are not
 * shared, though the tasks carry their uplink bytes (the flow model's
 * busiest uplink, the closed forms' NIC bytes). Every figure of the replay
 * is bit for bit the replay of the same graph without uplink bytes (the
 * replay before the uplinks were modelled), in both network models. */
static void uplinks_non_blocking(void)
{
	static exec_result a, b;
	for (int m = 0; m < 2; m++) {
		plan_scenario *s = NULL;
		plan_graph *g = NULL;
		CHECK_INT(fixture(m ? "[cluster]\noversubscription = 1\nnetwork = flow\n"
		                    : "[cluster]\noversubscription = 1\nnetwork = alpha-beta\n",
		                  &s),
		          SIM_OK);
		if (!s || plan_build(s, &g) != SIM_OK) {
			CHECK(false);
			plan_scenario_free(s);
			return;
		}
		CHECK(stage1_task(g, PLAN_TASK_PP)->uplink_bytes > 0);
		CHECK(stage1_task(g, PLAN_TASK_DP)->uplink_bytes > 0);
		CHECK_INT(exec_replay(g, &s->cluster, &a), SIM_OK);
		for (size_t i = 0; i < g->ntasks; i++)
			g->tasks[i].uplink_bytes = 0;
		CHECK_INT(exec_replay(g, &s->cluster, &b), SIM_OK);
		CHECK_NEAR(a.uplinks.oversub, 0, 0);
		CHECK_NEAR(a.step_s, b.step_s, 0);
		CHECK_INT(a.nclasses, b.nclasses);
		for (int k = 0; k < a.nclasses; k++)
			for (int c = 0; c < EXEC_CAT_COUNT; c++)
				CHECK_NEAR(a.classes[k].time_s[c], b.classes[k].time_s[c], 0);
		plan_graph_free(g);
		plan_scenario_free(s);
	}
}

/* A run works on the links its flows cross, renumbered (flow.c): on six
 * links of 1, 2, 3, 4, 5, 6 GB/s, a flow of 2 GB over links 5 and 1 (the
 * narrower, 2 GB/s, sets 1 s) and one of 3 GB over link 3 (4 GB/s: 0.75 s).
 * Links 1, 3, 5 carry 2, 3, 2 GB and no other link anything; link 1 runs
 * at capacity for 1 s. A second run without a clear adds to the counters
 * (a 1 GB flow on link 1: 3 GB in all); topo_sim_harvest adds them, times
 * repeat 2, to the caller's per-link totals and leaves the sim clear. */
static void touched_links(void)
{
	double cap[6] = {1e9, 2e9, 3e9, 4e9, 5e9, 6e9};
	topo_sim *s;
	CHECK_INT(topo_sim_new(6, cap, &s), SIM_OK);
	int p0[2] = {5, 1}, p1 = 3;
	int a = topo_sim_add(s, p0, 2, 2e9, 0), b = topo_sim_add(s, &p1, 1, 3e9, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_INT(topo_sim_finish(s, a), SIM_PS_PER_S);
	CHECK_INT(topo_sim_finish(s, b), 3 * SIM_PS_PER_S / 4);
	const double want[6] = {0, 2e9, 0, 3e9, 0, 2e9};
	for (int l = 0; l < 6; l++)
		CHECK_NEAR(topo_sim_link_bytes(s, l), want[l], 1e-3);
	CHECK_NEAR(topo_sim_link_sat_s(s, 1), 1.0, 1e-9);
	CHECK_NEAR(topo_sim_link_sat_s(s, 5), 0.0, 1e-12);
	int p2 = 1;
	topo_sim_add(s, &p2, 1, 1e9, 0);
	CHECK_INT(topo_sim_run(s), SIM_OK);
	CHECK_NEAR(topo_sim_link_bytes(s, 1), 3e9, 1e-3);
	double total[6] = {0}, sat[6] = {0};
	topo_sim_harvest(s, 2, total, sat);
	CHECK_NEAR(total[1], 6e9, 1e-3);
	CHECK_NEAR(total[3], 6e9, 1e-3);
	CHECK_NEAR(total[0] + total[2] + total[4], 0, 1e-12);
	CHECK_INT(topo_sim_nflows(s), 0);
	for (int l = 0; l < 6; l++)
		CHECK_NEAR(topo_sim_link_bytes(s, l), 0, 1e-12);
	topo_sim_free(s);
}

/* Collectives that differ only in their bytes route their flows once
 * (memo.c, the graph's): on the 12-node fat tree (2:1) the data-parallel
 * ring of 4 ranks 24 apart as a reduce-scatter of 1 GiB, an all-gather of
 * 256 MiB and a reduce-scatter of 3 MiB (one ring phase each, the same 24
 * translates, the same flows: routed once, reused twice), then its
 * all-reduce of 1 GiB (ring and tree timed; group.c budgets 4 n k = 16
 * flows per translate, and 24 x 16 = 384 <= 512 keeps all 24 translates:
 * the ring's flows are the same, reused, the tree's routed) and a forced
 * tree of 512 MiB (its ring bound and its tree: both reused). A second cache
 * on the same graph (the next plan of a sweep) routes nothing. Every answer
 * equals, bit for bit, the same question on a new graph, which routes
 * everything. The same on 4 EFA p5 nodes (each flow between nodes split
 * over 4 rails, NCCL's choice by bytes), asked in both orders. */
static topo_graph *fat_tree_12(void)
{
	return cluster(12, "fabric = fat-tree\noversubscription = 2");
}

static topo_graph *efa_4(void)
{
	return graph_of("include = topologies/nodes/p5-h100.ini\n[cluster]\nname = e\n"
	                "nodes = 4\nfabric = efa\nrail_bw = 10 GB/s\nnet_latency = 40 us\n"
	                "congestion = 0.2\ncongestion_exp = 1\n",
	                NULL);
}

/* q on a cache of g (world ranks) equals q on a new graph made by make. */
static void same_as_new(const topo_graph *g, topo_graph *(*make)(void), int world, const ask *q)
{
	topo_group_result a, b;
	topo_cache *k, *fresh;
	topo_graph *g2 = make();
	if (!g2)
		return;
	CHECK_INT(topo_cache_new(g, world, &k), SIM_OK);
	CHECK_INT(topo_group_cost(k, q->coll, q->size, q->stride, q->bytes, q->algo, &a), SIM_OK);
	CHECK_INT(topo_cache_new(g2, world, &fresh), SIM_OK);
	CHECK_INT(topo_group_cost(fresh, q->coll, q->size, q->stride, q->bytes, q->algo, &b),
	          SIM_OK);
	same_result(&a, &b);
	long long reused, routed;
	topo_route_stats(g2, &reused, &routed);
	CHECK_INT(reused, 0);
	topo_cache_free(k);
	topo_cache_free(fresh);
	topo_free(g2);
}

static void routes_across_sizes(void)
{
	topo_graph *g = fat_tree_12();
	if (!g)
		return;
	const ask q[] = {
	        {NET_REDUCESCATTER, 4, 24, GIB, TOPO_ALGO_AUTO},
	        {NET_ALLGATHER, 4, 24, GIB / 4, TOPO_ALGO_AUTO},
	        {NET_REDUCESCATTER, 4, 24, 3 << 20, TOPO_ALGO_AUTO},
	        {NET_ALLREDUCE, 4, 24, GIB, TOPO_ALGO_AUTO},
	        {NET_ALLREDUCE, 4, 24, GIB / 2, TOPO_ALGO_TREE},
	};
	enum { NQ = sizeof q / sizeof q[0] };
	for (int i = 0; i < NQ; i++)
		same_as_new(g, fat_tree_12, 96, &q[i]);
	long long reused, routed;
	topo_route_stats(g, &reused, &routed);
	/* the ring and the tree; PAT applies (one rank per node) but is not
	 * simulated: at 3 MiB to 1 GiB on 24 nodes NCCL's tuner (net's closed
	 * forms) picks the ring, and auto simulates only NCCL's pick
	 * (pick_algo): the ring for the 1 GiB all-reduce too, so the tree is
	 * first routed by the forced tree */
	CHECK_INT(routed, 2);
	/* all-gather's ring, the 3 MiB reduce-scatter's ring, all-reduce's
	 * ring, forced tree's ring bound */
	CHECK_INT(reused, 4);
	for (int i = 0; i < NQ; i++) /* the next plan: every route known */
		same_as_new(g, fat_tree_12, 96, &q[i]);
	topo_route_stats(g, &reused, &routed);
	CHECK_INT(routed, 2);
	/* four rings, and the forced tree's ring bound and tree */
	CHECK_INT(reused, 4 + 6);
	topo_free(g);
	for (int order = 0; order < 2; order++) {
		topo_graph *e = efa_4();
		if (!e)
			return;
		for (int j = 0; j < 6; j++) {
			int i = order ? 5 - j : j;
			ask a = {i % 2 ? NET_ALLGATHER : NET_ALLREDUCE, 4, 8,
			         (double)(1 << (4 * i + 8)), TOPO_ALGO_AUTO}; /* 256 B .. 256 MiB */
			same_as_new(e, efa_4, 32, &a);
		}
		topo_route_stats(e, &reused, &routed);
		CHECK(reused > 0);
		topo_free(e);
	}
}

int main(void)
{
	touched_links();
	two_on_one();
	parking_lot();
	three_levels();
	heap_matches_rounds();
	bad_input();
	finish_times();
	saturated_time();
	incremental_matches_full();
	incremental_work();
	pcie_box();
	closed_forms_agree();
	pat_agrees();
	nccl_pick_contended();
	sharp_agrees();
	sharp_translates();
	group_oversubscription();
	context_reuse();
	canonical_form();
	scaled_phases();
	routes_across_sizes();
	uncongested_step();
	oversubscribed_step();
	uplink_contention();
	uplinks_non_blocking();
	return check_done();
}
