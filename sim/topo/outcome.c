/* outcome.c - a phase's flow simulation, reused where only its bytes scale
 * (topo_int.h, topo_outcomes, held by a collectives' context; used by
 * coll.c's phase_run).
 *
 * Why. A step's data-parallel collectives repeat the same phase (the same
 * ring's flows on the same links) with other byte counts: the gradient
 * buckets' reduce-scatters, the parameter gathers, the all-reduce of the
 * last bucket. On a fabric where ECMP puts flows on shared links at unequal
 * rates, one such phase finishes its flows at hundreds of distinct times and
 * the simulation re-solves the rates at each. A Mixtral 8x7B step on 4,096
 * H100 over a RoCE fat tree (tp 8, ep 4) runs its data-parallel PAT
 * reduce-scatter (7,168 flows of 7 sizes, about 4,000 finishes) for every
 * gradient bucket: 4.0 s simulating each, 2.0 s reusing them; on 8,192
 * H100 (36,864 flows, 27,000 finishes a phase) 23.7 s against 9.2 s. (Once
 * a finish re-solved only the flows whose rates change, the reuse saved
 * 10 % of a 65,536-GPU step on a non-blocking fabric, whose phases are
 * cheap, and was taken out; b42b288, brought back for ECMP fabrics.)
 *
 * Why a scaled phase is the same simulation. All flows of a phase start at
 * once (time 0). Max-min rates depend on the flows' links and the links'
 * capacities, never on bytes, so multiplying every flow's bytes by c keeps
 * every rate and, between events, every flow's share of what it has left:
 * each finish happens at c times its time, every link carries c times its
 * bytes and stays saturated c times as long. So the phase is simulated once
 * in a canonical form, its largest flow at TOPO_OUTCOME_BYTES (2^30) and the
 * others in proportion (b_f / b_max, times a power of two: exact), and its
 * outcome (makespan, per link bytes and saturated seconds) is scaled by
 * b_max / 2^30 into the call's. A later phase with the same flows on the same
 * links, the same byte proportions and the same capacity divisor (the EFA
 * derating, per node count) reuses that outcome without simulating.
 *
 * Reproducible. The outcome is a function of the phase alone (its canonical
 * form, the graph's capacities and the divisor), never of which phases came
 * before: a plan gives the same figures alone, in a sweep, or after any other
 * command. The canonical form moves the time of a phase by its rounding to
 * whole picoseconds at 2^30 bytes instead of at the call's bytes (below 1e-9
 * of it). Phases of fewer than TOPO_OUTCOME_MIN_FLOWS flows are simulated as
 * they come, with their own bytes: they re-solve a handful of times, and
 * keeping them costs more than it saves.
 *
 * Memory: the last TOPO_OUTCOME_KEEP phases of the context, their flows'
 * links, byte proportions and per-link outcome (a 12,256-flow phase of 8
 * hops about 0.6 MB).
 */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

#define TOPO_OUTCOME_BYTES     1073741824.0 /* 2^30 */
#define TOPO_OUTCOME_MIN_FLOWS 1024
#define TOPO_OUTCOME_KEEP      8

typedef struct outcome {
	uint64_t hash;
	int n, np;        /* flow instances, their links in all */
	int *off, *links; /* key: flow f on links[off[f] .. off[f + 1]) */
	double *share;    /* key: flow f's bytes over the largest */
	double div;       /* key: the NIC and fabric links' capacity divisor */
	double span_s;    /* makespan of the canonical form */
	int nl;           /* links crossed, each once */
	int *l;
	double *bytes, *sat; /* per link crossed, the canonical form's */
} outcome;

struct topo_outcomes {
	outcome e[TOPO_OUTCOME_KEEP];
	int next; /* the slot replaced next (oldest first) */
	long long hits, misses;
};

int topo_outcomes_new(topo_outcomes **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? SIM_OK : SIM_ENOMEM;
}

static void outcome_free(outcome *o)
{
	free(o->off), free(o->links), free(o->share), free(o->l), free(o->bytes), free(o->sat);
	memset(o, 0, sizeof *o);
}

void topo_outcomes_free(topo_outcomes *oc)
{
	if (!oc)
		return;
	for (int i = 0; i < TOPO_OUTCOME_KEEP; i++)
		outcome_free(&oc->e[i]);
	free(oc);
}

/* The key's hash (same_phase compares the key itself): core's FNV-1a of
 * each part, then of the parts' hashes. */
static uint64_t hash_phase(const topo_routed *w, const double *share, double div)
{
	size_t np = (size_t)(w->off[w->n] - w->off[0]);
	uint64_t part[5] = {(uint64_t)w->n,
	                    sim_hash64(w->off, ((size_t)w->n + 1) * sizeof *w->off),
	                    sim_hash64(w->links + w->off[0], np * sizeof *w->links),
	                    sim_hash64(share, (size_t)w->n * sizeof *share), 0};
	memcpy(&part[4], &div, sizeof div);
	return sim_hash64(part, sizeof part);
}

/* w's flows on sim, flow f carrying bytes[f] x mul, all from time 0, run;
 * on an error sim is cleared. */
static int run_flows(topo_sim *sim, const topo_routed *w, const double *bytes, double mul)
{
	topo_sim_clear(sim);
	for (int f = 0; f < w->n; f++) {
		int id = topo_sim_add(sim, w->links + w->off[f], w->off[f + 1] - w->off[f],
		                      bytes[f] * mul, 0);
		if (id < 0) {
			topo_sim_clear(sim);
			return id;
		}
	}
	int rc = topo_sim_run(sim);
	if (rc != SIM_OK)
		topo_sim_clear(sim);
	return rc;
}

static bool same_phase(const outcome *o, uint64_t hash, const topo_routed *w, const double *share,
                       double div)
{
	int np = w->off[w->n] - w->off[0];
	return o->n > 0 && o->hash == hash && o->n == w->n && o->np == np && o->div == div &&
	       memcmp(o->share, share, (size_t)w->n * sizeof *share) == 0 &&
	       memcmp(o->links, w->links + w->off[0], (size_t)np * sizeof *o->links) == 0 &&
	       memcmp(o->off, w->off, ((size_t)w->n + 1) * sizeof *o->off) == 0;
}

/* Simulate the canonical form of w's flows on sim and keep its outcome in
 * o (replacing what o held). */
static int simulate(topo_sim *sim, const topo_routed *w, const double *share, double div,
                    uint64_t hash, outcome *o)
{
	outcome_free(o);
	int np = w->off[w->n] - w->off[0];
	o->off = malloc(((size_t)w->n + 1) * sizeof *o->off);
	o->links = malloc(((size_t)np + 1) * sizeof *o->links);
	o->share = malloc(((size_t)w->n + 1) * sizeof *o->share);
	o->l = malloc(((size_t)np + 1) * sizeof *o->l);
	o->bytes = malloc(((size_t)np + 1) * sizeof *o->bytes);
	o->sat = malloc(((size_t)np + 1) * sizeof *o->sat);
	if (!o->off || !o->links || !o->share || !o->l || !o->bytes || !o->sat) {
		outcome_free(o);
		return SIM_ENOMEM;
	}
	int rc = run_flows(sim, w, share, TOPO_OUTCOME_BYTES);
	if (rc != SIM_OK) {
		outcome_free(o);
		return rc;
	}
	o->span_s = sim_time_to_s(topo_sim_makespan(sim));
	o->nl = topo_sim_take(sim, o->l, o->bytes, o->sat);
	memcpy(o->off, w->off, ((size_t)w->n + 1) * sizeof *o->off);
	memcpy(o->links, w->links + w->off[0], (size_t)np * sizeof *o->links);
	memcpy(o->share, share, (size_t)w->n * sizeof *o->share);
	o->hash = hash, o->n = w->n, o->np = np, o->div = div;
	return SIM_OK;
}

/* The call's flows as they come: what phase_run did before outcomes. */
static int simulate_as_is(topo_sim *sim, const topo_routed *w, const double *bytes, double repeat,
                          double *t_bw, topo_acc *acc)
{
	int rc = run_flows(sim, w, bytes, 1.0);
	if (rc != SIM_OK)
		return rc;
	*t_bw += repeat * sim_time_to_s(topo_sim_makespan(sim));
	topo_sim_harvest_acc(sim, repeat, acc);
	return SIM_OK;
}

int topo_phase_sim(topo_outcomes *oc, topo_sim *sim, double div, const topo_routed *w,
                   const double *bytes, double repeat, double *t_bw, topo_acc *acc)
{
	double top = 0;
	for (int f = 0; f < w->n; f++)
		top = bytes[f] > top ? bytes[f] : top;
	if (!oc || w->n < TOPO_OUTCOME_MIN_FLOWS || !(top > 0))
		return simulate_as_is(sim, w, bytes, repeat, t_bw, acc);
	double *share = malloc(((size_t)w->n + 1) * sizeof *share);
	if (!share)
		return SIM_ENOMEM;
	for (int f = 0; f < w->n; f++)
		share[f] = bytes[f] / top;
	uint64_t hash = hash_phase(w, share, div);
	outcome *o = NULL;
	for (int i = 0; i < TOPO_OUTCOME_KEEP && !o; i++)
		if (same_phase(&oc->e[i], hash, w, share, div))
			o = &oc->e[i];
	int rc = SIM_OK;
	if (o)
		oc->hits++;
	else {
		oc->misses++;
		o = &oc->e[oc->next];
		oc->next = (oc->next + 1) % TOPO_OUTCOME_KEEP;
		rc = simulate(sim, w, share, div, hash, o);
	}
	free(share);
	if (rc != SIM_OK)
		return rc;
	/* the canonical form's outcome, scaled to the call's bytes (header) */
	double scale = top / TOPO_OUTCOME_BYTES, k = repeat * scale;
	*t_bw += repeat * (o->span_s * scale);
	for (int i = 0; i < o->nl; i++) {
		int l = o->l[i];
		topo_acc_touch(acc, l);
		acc->bytes[l] += k * o->bytes[i];
		acc->sat[l] += k * o->sat[i];
	}
	return SIM_OK;
}

void topo_outcomes_stats(const topo_outcomes *oc, long long *hits, long long *misses)
{
	*hits = oc ? oc->hits : 0;
	*misses = oc ? oc->misses : 0;
}
