/* pipewalk.c - the pre-screen's pipeline: a walk of the schedule at the
 * stage level, with the edges plan_build draws between the stages (plan/
 * pipe.c op_end and build_link_stages), instead of the closed form's bubble
 * and per-micro-batch transfer terms.
 *
 * Why: with synchronous p2p every transfer is a rendezvous. The sender's
 * next step waits for its send (pending); the send starts only when the
 * receiver is done with the step before the one that consumes it; and under
 * [framework] p2p_serial (nanotron's run_communication: one blocking
 * transfer at a time) a stage's gradient send also waits for the activation
 * it receives for its next forward. So each steady 1F1B step of a middle
 * stage waits for its own two sends and for the two it receives, each
 * started only when both ends are ready, and a slow stage's neighbours wait
 * with it. Where a transfer costs little next to a step (Megatron's NCCL
 * sends inside a node) this is nearly the closed form's bubble, which missed
 * 0.2-3 % of the step all the same (on the busiest stage one transfer a
 * micro-batch and direction, 1F1B and GPipe alike); where it does not
 * (nanotron's handshakes and host synchronisations, 21 host operations and
 * two metadata messages a transfer, across EFA nodes) the closed form missed
 * 5-17 % of the step at pp 4-8, the stages' uneven layers and the
 * rendezvous' waits compounding. Interleaved pipelines send asynchronously
 * (plan_p2p_sync), and there too the closed form's (S - T) / vpp fell
 * short: GPT-3 175B on Selene, pp 16, 3 chunks a stage, 2.1 % under the
 * simulated step, 1.1 % walked (each chunk its own time, each send behind
 * the rank's previous one that way). Zero bubble's weight passes (W, no
 * send) are ops of their own: ZBV 2.5 % over, 0.4 % under walked.
 * estimate.c walks every training pipeline (walk_wanted), O(pp x vpp x m)
 * per plan unless extrapolated (sweep_pipe_walk).
 *
 * Each stage (pipeline rank) runs its plan_schedule_order ops in order, an
 * op of chunk c running virtual stage v = plan_vstage(stage, c) (v = stage
 * without interleaving); op j starts at the end of op j - 1 and, with
 * synchronous p2p, of op j - 1's send, and at the end of the transfer that
 * brings its input (a forward's activation from virtual stage v - 1, a
 * backward's gradient from v + 1; interleaved, the last rank's chunk c
 * feeds rank 0's chunk c + 1; a weight pass none); it runs F[v], B[v] or
 * W[v], a stage's last op last[st] more (the compute its gradient buckets
 * slow beside them: estimate.c's dp_tail). Its send (a forward's to v + 1, a backward's to v - 1; none after a
 * weight pass; 0 s within a rank, the V's turn) takes xf[v] or xb[v] and
 * starts at the
 * op's end and: synchronous, at the end of the receiving rank's op before
 * the one that consumes it and, p2p_serial, a backward's at the end of the
 * activation sent to this stage for the forward after it; asynchronous
 * (interleaved and zero-bubble schedules: plan_p2p_sync), at the end of the rank's
 * previous send in that direction (the graph's pipeline streams, one a
 * direction). The span is the latest stage's last op or send. Ops are
 * resolved as their inputs are known, stage by stage, until every stage is
 * done (the order is the graph's, which has no cycle; a stall returns
 * -1). In inference a stage runs the forwards of its order alone, as
 * plan/pipe.c skips the backward ops, with the same forward edges
 * (build_link_stages draws no backward ones).
 *
 * ZeRO-3 / FSDP gathering and reducing every micro-batch (in->pre, post):
 * a chain's first layer's gather has no edge but the DP stream's order
 * (emit.c fsdp_gather: the cursor starts with none; the pipeline's edges
 * reach the chain's first compute task), so it runs as soon as the stream
 * is free, beside the input's wait and the op before it, and delays the op
 * only past them. After a forward the stream is free (its gathers ran
 * ahead of its layers: hidden); after a backward it holds that backward's
 * last reduction first (post), which the stage's last backward also adds
 * to its end: op j starts no earlier than the end of a backward before it
 * + post + pre (the first op of a stage at pre). */
#include "sweep_int.h"

#include <math.h>
#include <stdlib.h>

typedef struct walk {
	int p, m, n, V; /* stages, micro-batches, ops per stage, virtual stages */
	bool sync, serial;
	plan_op *ops;               /* p x n */
	double *end, *send;         /* p x n: op end, its send's end (NAN unknown,
	                             * -1 none) */
	double *last;               /* 2 p: a stage's latest forward and backward
	                             * send (asynchronous p2p) */
	int *vst;                   /* p x n: the op's virtual stage */
	int *pos_f, *pos_b;         /* V x m: the op index of F(mb), B(mb) of a
	                             * virtual stage on its rank */
	int *vrank;                 /* V: the rank of a virtual stage */
	int *next_f;                /* p x n: the forward after op j (-1 none) */
} walk;

static double *at(const walk *w, double *v, int st, int j)
{
	return &v[(size_t)st * (size_t)w->n + (size_t)j];
}

static size_t idx(const walk *w, int st, int j)
{
	return (size_t)st * (size_t)w->n + (size_t)j;
}

/* The op index on its rank of virtual stage v's forward (or backward) of
 * micro-batch mb. */
static int pos(const walk *w, int v, int mb, bool backward)
{
	return (backward ? w->pos_b : w->pos_f)[(size_t)v * (size_t)w->m + (size_t)mb];
}

/* The end of the send that brings op j of stage st its input, NAN when not
 * yet known, 0 when it needs none. */
static double input_end(const walk *w, int st, int j)
{
	const plan_op *o = &w->ops[idx(w, st, j)];
	int v = w->vst[idx(w, st, j)], u = o->backward ? v + 1 : v - 1;
	if (o->weight || u < 0 || u >= w->V) /* (a weight pass follows its B here) */
		return 0;
	return *at(w, w->send, w->vrank[u], pos(w, u, o->mb, o->backward));
}

/* The send of op j of stage st, when its start is known. */
static bool resolve_send(walk *w, int st, int j, const sweep_walk_in *in)
{
	const double *xf = in->xf, *xb = in->xb;
	const plan_op *o = &w->ops[idx(w, st, j)];
	int v = w->vst[idx(w, st, j)], tv = o->backward ? v - 1 : v + 1, to = w->vrank[tv];
	double start = *at(w, w->end, st, j);
	if (!w->sync) { /* behind the rank's previous send that way */
		double *prev = &w->last[2 * st + o->backward];
		start = fmax(start, *prev);
		*prev = *at(w, w->send, st, j) = start + (o->backward ? xb[v] : xf[v]);
		return true;
	}
	/* the receiver's op before the one that consumes it */
	int q = pos(w, tv, o->mb, o->backward);
	if (q > 0) {
		double r = *at(w, w->end, to, q - 1);
		if (isnan(r))
			return false;
		start = fmax(start, r);
	}
	int nf = w->next_f[idx(w, st, j)];
	if (w->serial && o->backward && v > 0 && nf >= 0) {
		int mb = w->ops[idx(w, st, nf)].mb;
		double a = *at(w, w->send, w->vrank[v - 1], pos(w, v - 1, mb, false));
		if (isnan(a))
			return false;
		start = fmax(start, a);
	}
	*at(w, w->send, st, j) = start + (o->backward ? xb[v] : xf[v]);
	return true;
}

/* Advance stage st as far as its inputs allow; whether it moved. */
static bool advance(walk *w, int st, int *ptr, const sweep_walk_in *in)
{
	bool moved = false;
	for (;;) {
		int j = ptr[st];
		double t = 0;
		if (j > 0) {
			double *s = at(w, w->send, st, j - 1);
			if (isnan(*s)) {
				if (!resolve_send(w, st, j - 1, in))
					return moved;
				moved = true;
			}
			t = *at(w, w->end, st, j - 1);
			if (w->sync) /* the next op waits for the send */
				t = fmax(t, *s);
		}
		if (j == w->n)
			return moved;
		double inp = input_end(w, st, j);
		if (isnan(inp))
			return moved;
		const plan_op *o = &w->ops[idx(w, st, j)];
		int v = w->vst[idx(w, st, j)];
		double d = o->weight ? in->W[v] : o->backward ? in->B[v] : in->F[v];
		if (in->last && j == w->n - 1)
			d += in->last[st];
		if (in->pre && !o->weight) { /* the DP stream's gather first */
			const plan_op *q = j > 0 ? &w->ops[idx(w, st, j - 1)] : NULL;
			if (!q)
				t = fmax(t, in->pre[v]);
			else if (q->backward && !q->weight)
				t = fmax(t, *at(w, w->end, st, j - 1) + in->post[w->vst[idx(w, st, j - 1)]] +
				                    in->pre[v]);
		}
		if (in->post && j == w->n - 1 && o->backward && !o->weight)
			d += in->post[v];
		*at(w, w->end, st, j) = fmax(t, inp) + d;
		/* no send out of the ends of the pipeline, nor after a weight pass */
		if (o->weight || (o->backward ? v == 0 : v == w->V - 1))
			*at(w, w->send, st, j) = -1;
		ptr[st] = j + 1;
		moved = true;
	}
}

double sweep_pipe_walk_m(const plan_scenario *s, int m, int g, const sweep_walk_in *in,
                         double *ends)
{
	const plan_spec *p = &s->plan;
	int vpp = p->vpp > 1 ? p->vpp : 1;
	int full = plan_schedule_steps(p->schedule, m, vpp); /* a stage's ops, training */
	walk w = {p->pp, m, s->inference ? m * vpp : full, p->pp * vpp,
	          plan_p2p_sync(p), false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	w.serial = w.sync && s->fw.p2p_serial && vpp == 1 && !s->inference;
	size_t ops = (size_t)w.p * (size_t)w.n, mbs = (size_t)w.V * (size_t)w.m;
	/* one block (a walk per plan of a sweep): the doubles, the ops (and one
	 * stage's whole order, which inference filters), the ints, each part's
	 * alignment at most the one before it */
	char *blk = malloc((2 * ops + 2 * (size_t)w.p) * sizeof(double) +
	                   (ops + (size_t)full) * sizeof(plan_op) +
	                   (2 * ops + 2 * mbs + (size_t)w.V + (size_t)w.p) * sizeof(int));
	double span = -1;
	bool zb = plan_sched_zb(p->schedule);
	if (!blk || full != (zb ? 3 : 2) * m * vpp || (zb && !in->W && !s->inference))
		goto out;
	w.end = (double *)blk;
	w.send = w.end + ops;
	w.last = w.send + ops;
	w.ops = (plan_op *)(w.last + 2 * w.p);
	plan_op *order = w.ops + ops;
	w.vst = (int *)(order + full);
	w.next_f = w.vst + ops;
	w.pos_f = w.next_f + ops;
	w.pos_b = w.pos_f + mbs;
	w.vrank = w.pos_b + mbs;
	int *ptr = w.vrank + w.V;
	for (int st = 0; st < w.p; st++) {
		ptr[st] = 0;
		w.last[2 * st] = w.last[2 * st + 1] = 0;
		for (int c = 0; c < vpp; c++)
			w.vrank[plan_vstage(p, st, c)] = st;
	}
	for (int st = 0; st < w.p; st++) {
		plan_op *o = &w.ops[idx(&w, st, 0)];
		plan_schedule_order(p->schedule, w.p, w.m, vpp, g, plan_warm_extra(p), st, order);
		for (int j = 0, k = 0; j < full; j++) /* inference: the forwards */
			if (!s->inference || !order[j].backward)
				o[k++] = order[j];
		int next = -1; /* the forward after op j, walking back */
		for (int j = w.n - 1; j >= 0; j--) {
			int v = plan_vstage(p, st, o[j].chunk);
			w.vst[idx(&w, st, j)] = v;
			w.next_f[idx(&w, st, j)] = next;
			if (!o[j].weight)
				(o[j].backward ? w.pos_b : w.pos_f)[(size_t)v * (size_t)w.m +
				                                    (size_t)o[j].mb] = j;
			if (!o[j].backward)
				next = j;
		}
	}
	for (size_t i = 0; i < ops; i++)
		w.end[i] = w.send[i] = NAN;
	for (;;) {
		bool moved = false, done = true;
		for (int st = 0; st < w.p; st++) {
			moved |= advance(&w, st, ptr, in);
			done &= ptr[st] == w.n && !isnan(*at(&w, w.send, st, w.n - 1));
		}
		if (done)
			break;
		if (!moved)
			goto out; /* a stall: not the graph's order */
	}
	span = 0;
	for (int st = 0; st < w.p; st++) {
		span = fmax(span, fmax(*at(&w, w.end, st, w.n - 1), *at(&w, w.send, st, w.n - 1)));
		if (ends)
			ends[st] = *at(&w, w.end, st, w.n - 1);
	}
out:
	free(blk);
	return span;
}

/* With many micro-batches the walk's steady state repeats per group of them
 * (one with one chunk a stage, the interleaved order's group g): walked for
 * m0, m0 + k and m0 + 2k (m0 >= 4 pp, as m modulo k), where the span grows
 * by the same amount twice it is taken to grow so for every later group;
 * where it does not (asynchronous sends let a fast stage run ahead of a slow
 * one until its warm-up's slack is spent, which can take many groups), the
 * whole walk. A test, not a proof: on the MT-NLG space every plan so
 * extrapolated equals its whole walk (5,241, within 2e-13), but from m0 >=
 * 2 pp one of test_pipe_walk_long's shapes (pp 2, 2 chunks, uneven stages)
 * grew alike twice and was 2.7 % short. */
double sweep_pipe_walk(const plan_scenario *s, const sweep_walk_in *in, double *ends)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), g = plan_vp_group(p), k = p->vpp > 1 ? g : 1;
	int m0 = 4 * p->pp + ((m - 4 * p->pp) % k + k) % k;
	if (m >= m0 + 4 * k) {
		double a = sweep_pipe_walk_m(s, m0, g, in, NULL);
		double b = sweep_pipe_walk_m(s, m0 + k, g, in, NULL);
		double c = sweep_pipe_walk_m(s, m0 + 2 * k, g, in, ends);
		if (a < 0 || b < 0 || c < 0)
			return -1;
		if (fabs((c - b) - (b - a)) <= 1e-12 * c) {
			double grow = (double)(m - m0 - 2 * k) / k * (c - b);
			for (int st = 0; ends && st < p->pp; st++)
				ends[st] += grow;
			return c + grow;
		}
	}
	return sweep_pipe_walk_m(s, m, g, in, ends);
}
