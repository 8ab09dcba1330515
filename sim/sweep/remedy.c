/* remedy.c - what makes a plan that does not fit (or is tight) fit without
 * changing how its GPUs are split: the fastest combination, by the
 * pre-screen's estimate, of the changes plan_memory_cuts tries one at a
 * time. Those single cuts say which term to cut first and by how much; a
 * plan far over its capacity needs several at once (nanotron's 1B at 16
 * sequences a micro-batch is 2.6x its H100: no single change fits it), and
 * which combination costs least is a question of time, not of bytes:
 * halving the micro-batch re-runs the per-micro-batch costs twice as often,
 * full recomputation re-runs each layer's forward (a third more compute),
 * ZeRO-3 gathers the weights every micro-batch, optimizer offload moves the
 * step to the CPU. The pre-screen (sweep_estimate_plan) times each
 * candidate and gives its memory verdict (plan_memory_fit's, what the sweep
 * prunes on), so the answer is the plan a sweep over those keys would rank
 * first among the ones that fit.
 *
 * The space, per key, from the plan's own value towards less memory:
 *   micro_batch         every divisor of the plan's (the global batch
 *                       stays; more micro-batches)
 *   recompute           as it is, selective (from none), full of every layer,
 *                       and full of the fewest layers a chunk that fit
 *                       (recompute_layers, by bisection: fewer_layers)
 *   zero                the plan's stage up to the framework's highest (its
 *                       zero_max, zero_max_pp under a pipeline), with dp x
 *                       cp >= 2
 *   offload_optimizer   none, cpu where the framework offloads (training)
 *   checkpoint_offload  false, true where the framework saves shard copies
 *   sequence_parallel   true where tp > 1 runs without it and the framework
 *                       runs it (runs_sequence_parallel; the norms' and
 *                       dropouts' activations split over the TP ranks)
 *   offload_params      cpu where the framework streams ZeRO-3's parameters
 *                       from the host (ZeRO-Infinity)
 * Every candidate passes plan_check and plan_check_layout (the framework's
 * rules: a candidate no framework runs is not an answer). At most 64
 * divisors x 3 x 4 x 2 x 2 x 2 x 2 estimates, and a bisection of a few more for each
 * that fits recomputing every layer: milliseconds. */
#include "sweep_int.h"

#include <stdio.h>
#include <string.h>

/* One candidate's values of the keys above. */
typedef struct knobs {
	int mb;
	work_recompute rc;
	int rl; /* recompute = full: recompute_layers (0 = every layer) */
	int zero;
	bool offload, ckpt, sp;
	bool params; /* offload_params = cpu (ZeRO-Infinity) */
} knobs;

static void apply(const plan_scenario *s, const knobs *k, plan_scenario *x)
{
	*x = *s;
	x->plan.micro_batch = k->mb;
	x->plan.recompute = k->rc;
	x->plan.recompute_layers = k->rc == WORK_RECOMPUTE_FULL ? k->rl : 0;
	x->plan.zero = k->zero;
	if (k->offload) {
		x->plan.offload_optimizer = PLAN_OFFLOAD_CPU;
		if (x->plan.zero < 1)
			x->plan.zero = 1; /* ZeRO-Offload partitions the states */
	}
	if (k->ckpt)
		x->fw.checkpoint_offload = true;
	if (k->sp)
		x->plan.sequence_parallel = true;
	if (k->params)
		x->plan.offload_params = PLAN_OFFLOAD_CPU;
}

/* The changes of k against s, "micro_batch = 2, zero = 1"; their count. */
static int describe(const plan_scenario *s, const knobs *k, char *buf, size_t len)
{
	static const char *const rc_name[] = {"none", "selective", "full"};
	const plan_spec *p = &s->plan;
	int n = 0;
	size_t used = 0;
	buf[0] = '\0';
#define PUT(...)                                                                             \
	do {                                                                                 \
		if (used < len)                                                              \
			used += (size_t)snprintf(buf + used, len - used, "%s", n ? ", " : ""); \
		if (used < len)                                                              \
			used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__);       \
		n++;                                                                         \
	} while (0)
	if (k->mb != p->micro_batch)
		PUT("micro_batch = %d", k->mb);
	bool full = k->rc == WORK_RECOMPUTE_FULL;
	if (k->rc != p->recompute)
		PUT("recompute = %s", rc_name[k->rc]);
	if (full && k->rl != (p->recompute == WORK_RECOMPUTE_FULL ? p->recompute_layers : 0))
		PUT(k->rl > 0 ? "recompute_layers = %d" : "recompute_layers = %d (all)", k->rl);
	if (k->offload)
		PUT("offload_optimizer = cpu");
	int z = k->offload && k->zero < 1 ? 1 : k->zero;
	if (z != p->zero)
		PUT("zero = %d", z);
	if (k->ckpt)
		PUT("checkpoint_offload = true");
	if (k->sp)
		PUT("sequence_parallel = true");
	if (k->params)
		PUT("offload_params = cpu");
#undef PUT
	return n;
}

/* Whether x is a plan the framework and podsim run (the loader's checks). */
static bool runs(const plan_scenario *x, sim_diag *d)
{
	sim_diag_clear(d);
	if (plan_check(x, d) != SIM_OK)
		return false;
	sim_diag_clear(d);
	return plan_check_layout(x, d) == SIM_OK;
}

/* Better: fits before tight, then the shorter estimate, then fewer changes. */
static bool better(plan_verdict v, double est, int nch, const sweep_remedy *r)
{
	if (!r->found || v != r->verdict)
		return !r->found || v < r->verdict;
	if (est != r->est_s)
		return est < r->est_s;
	return nch < r->changes;
}

/* The fastest tight candidate (fewer changes on a tie). */
static bool better_tight(double est, int nch, const sweep_remedy *r)
{
	if (!r->tight_found || est != r->tight_est_s)
		return !r->tight_found || est < r->tight_est_s;
	return nch < r->tight_changes;
}

/* Candidate k: estimated and kept in r where it is better (fits before
 * tight, the shorter estimate, fewer changes; the fastest tight one apart).
 * Its verdict, or -1 where the framework does not run it. `count`: one of
 * the grid's candidates (r->tried), not a bisection's probe. */
static int consider(const plan_scenario *s, const knobs *k, sweep_remedy *r, sim_diag *d,
                    bool count)
{
	plan_scenario x;
	apply(s, k, &x);
	if (!runs(&x, d))
		return -1;
	r->tried += count;
	sweep_estimate e;
	sweep_estimate_plan(&x, &e);
	if (e.mem_verdict == PLAN_VERDICT_OOM)
		return PLAN_VERDICT_OOM;
	char what[sizeof r->what];
	int nch = describe(s, k, what, sizeof what);
	if (e.mem_verdict == PLAN_VERDICT_TIGHT && better_tight(e.step_s, nch, r)) {
		r->tight_found = true;
		r->tight_est_s = e.step_s;
		r->tight_changes = nch;
		r->tight_device = e.mem_peak_bytes;
		memcpy(r->tight_what, what, sizeof what);
	}
	if (better(e.mem_verdict, e.step_s, nch, r)) {
		r->found = true;
		r->verdict = e.mem_verdict;
		r->est_s = e.step_s;
		r->changes = nch;
		r->device = e.mem_peak_bytes;
		r->share = e.mem_share;
		memcpy(r->what, what, sizeof what);
	}
	return e.mem_verdict;
}

/* Full recomputation of fewer layers (Megatron's recompute_num_layers, the
 * block method or the spread the framework uses): a candidate that fits
 * recomputing every layer of a chunk may fit recomputing fewer, for less
 * time. The peak falls as the count rises, so the fewest that fit are found
 * by bisection over 1 .. most - 1 (most: the largest chunk). */
static void fewer_layers(const plan_scenario *s, knobs k, int most, sweep_remedy *r,
                         sim_diag *d)
{
	int lo = 1, hi = most; /* hi: known to fit (every layer) */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		k.rl = mid;
		plan_scenario x;
		apply(s, &k, &x);
		bool fits = false;
		if (runs(&x, d)) {
			sweep_estimate e;
			sweep_estimate_plan(&x, &e);
			fits = e.mem_verdict == PLAN_VERDICT_FITS;
		}
		if (fits)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (hi < most) {
		k.rl = hi;
		consider(s, &k, r, d, false);
	}
}

int sweep_fit_remedy(const plan_scenario *s, sweep_remedy *r)
{
	memset(r, 0, sizeof *r);
	const plan_spec *p = &s->plan;
	const plan_framework *f = &s->fw;
	sweep_estimate e0;
	sweep_estimate_plan(s, &e0);
	r->plan_est_s = e0.step_s;
	r->plan_verdict = e0.mem_verdict;
	if (e0.mem_verdict == PLAN_VERDICT_FITS || s->inference)
		return SIM_OK;
	sim_diag *d = sim_diag_new();
	if (!d)
		return SIM_ENOMEM;
	int mbs[64], nmb = 0;
	for (int v = p->micro_batch; v >= 1 && nmb < 64; v--)
		if (p->micro_batch % v == 0)
			mbs[nmb++] = v;
	knobs rcs[3];
	int nrc = 0, most = 0;
	rcs[nrc++] = (knobs){.rc = p->recompute, .rl = p->recompute_layers};
	if (p->recompute == WORK_RECOMPUTE_NONE)
		rcs[nrc++] = (knobs){.rc = WORK_RECOMPUTE_SELECTIVE};
	if (p->recompute != WORK_RECOMPUTE_FULL || plan_recompute_partial(p))
		rcs[nrc++] = (knobs){.rc = WORK_RECOMPUTE_FULL, .rl = 0};
	for (int v = 0; s->vlayers && v < p->pp * p->vpp; v++)
		most = s->vlayers[v] > most ? s->vlayers[v] : most;
	int zmax = p->pp > 1 ? f->zero_max_pp : f->zero_max;
	if (p->dp * (p->cp > 1 ? p->cp : 1) < 2 || zmax < p->zero)
		zmax = p->zero;
	int noff = p->offload_optimizer == PLAN_OFFLOAD_NONE && f->offload_optimizer ? 2 : 1;
	int nck = f->checkpoint_shards && !f->checkpoint_offload ? 2 : 1;
	int nsp = p->tp > 1 && !p->sequence_parallel && f->sp ? 2 : 1;
	/* the parameters on the host: ZeRO-3 only (plan_check) */
	int npo = p->offload_params == PLAN_OFFLOAD_NONE && f->offload_params && zmax >= 3 ? 2 : 1;
	/* the candidates in one index, t = (((i nrc + j) nz + z) no + o) nc + c
	 * (micro-batch i outermost, the checkpoint / SP choice c innermost);
	 * t = 0 is the plan itself */
	int nz = zmax - p->zero + 1, no = noff * npo, nc = nck * nsp;
	int total = nmb * nrc * nz * no * nc;
	for (int t = 1; t < total; t++) {
		int c = t % nc, o = t / nc % no, z = p->zero + t / (nc * no) % nz;
		knobs k = rcs[t / (nc * no * nz) % nrc];
		k.mb = mbs[t / (nc * no * nz * nrc)];
		k.zero = z;
		k.offload = o % 2 && noff == 2;
		k.params = o >= noff;
		k.ckpt = c % 2 && nck == 2;
		k.sp = c >= nck;
		if (k.offload && z < 1 && zmax >= 1)
			continue; /* apply's zero = 1, met at z = 1 */
		int v = consider(s, &k, r, d, true);
		if (v == PLAN_VERDICT_FITS && k.rc == WORK_RECOMPUTE_FULL && k.rl == 0 && most > 1)
			fewer_layers(s, k, most, r, d);
	}
	/* a tight plan is worth naming only beside a fitting one it beats */
	if (!r->found || r->verdict != PLAN_VERDICT_FITS || !(r->tight_est_s < r->est_s))
		r->tight_found = false;
	sim_diag_free(d);
	return SIM_OK;
}
