/* pipewalk.c - the pre-screen's pipeline where its transfers couple the
 * stages: a walk of the schedule at the stage level, with the edges
 * plan_build draws for synchronous p2p (plan/pipe.c op_end and
 * build_link_stages), instead of the closed form's bubble and per-micro-
 * batch transfer terms.
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
 * rendezvous' waits compounding. estimate.c walks every synchronous
 * pipeline of one chunk a stage (walk_wanted); O(pp x m) per plan, a
 * quarter of the pre-screen's rate on the MT-NLG space.
 *
 * Each stage runs its plan_schedule_order ops in order; op j starts at the
 * end of op j - 1 and of op j - 1's send, and at the end of the transfer
 * that brings its input (a forward's activation from stage - 1, a
 * backward's gradient from stage + 1); it runs F[stage] or B[stage]. Its
 * send (a forward's to stage + 1, a backward's to stage - 1) starts at the
 * op's end, at the end of the receiver's op before the one that consumes it
 * and, p2p_serial, a backward's at the end of the activation sent to this
 * stage for the forward after it; it takes xf[stage] or xb[stage]. The span
 * is the latest stage's last op or send. Ops are resolved as their inputs
 * are known, stage by stage, until every stage is done (the order is the
 * graph's, which has no cycle; a stall returns -1). */
#include "sweep_int.h"

#include <math.h>
#include <stdlib.h>

typedef struct walk {
	int p, m, n; /* stages, micro-batches, ops per stage (2 m) */
	plan_op *ops;               /* p x n */
	double *end, *send;         /* p x n: op end, its send's end (NAN unknown,
	                             * -1 none) */
	int *pos_f, *pos_b;         /* p x m: the op index of F(mb), B(mb) */
	int *next_f;                /* p x n: the forward after op j (-1 none) */
} walk;

static double *at(const walk *w, double *v, int st, int j)
{
	return &v[(size_t)st * (size_t)w->n + (size_t)j];
}

/* The end of the send that brings op j of stage st its input, NAN when not
 * yet known, 0 when it needs none. */
static double input_end(const walk *w, int st, int j)
{
	const plan_op *o = &w->ops[(size_t)st * (size_t)w->n + (size_t)j];
	if (!o->backward && st > 0)
		return *at(w, w->send, st - 1, w->pos_f[(size_t)(st - 1) * (size_t)w->m + (size_t)o->mb]);
	if (o->backward && st < w->p - 1)
		return *at(w, w->send, st + 1, w->pos_b[(size_t)(st + 1) * (size_t)w->m + (size_t)o->mb]);
	return 0;
}

/* The send of op j of stage st, when its start is known. */
static bool resolve_send(walk *w, int st, int j, const double *xf, const double *xb, bool serial)
{
	const plan_op *o = &w->ops[(size_t)st * (size_t)w->n + (size_t)j];
	int to = o->backward ? st - 1 : st + 1;
	double start = *at(w, w->end, st, j);
	/* the receiver's op before the one that consumes it */
	int q = o->backward ? w->pos_b[(size_t)to * (size_t)w->m + (size_t)o->mb]
	                    : w->pos_f[(size_t)to * (size_t)w->m + (size_t)o->mb];
	if (q > 0) {
		double r = *at(w, w->end, to, q - 1);
		if (isnan(r))
			return false;
		start = fmax(start, r);
	}
	int nf = w->next_f[(size_t)st * (size_t)w->n + (size_t)j];
	if (serial && o->backward && st > 0 && nf >= 0) {
		int mb = w->ops[(size_t)st * (size_t)w->n + (size_t)nf].mb;
		double a = *at(w, w->send, st - 1, w->pos_f[(size_t)(st - 1) * (size_t)w->m + (size_t)mb]);
		if (isnan(a))
			return false;
		start = fmax(start, a);
	}
	*at(w, w->send, st, j) = start + (o->backward ? xb[st] : xf[st]);
	return true;
}

/* Advance stage st as far as its inputs allow; whether it moved. */
static bool advance(walk *w, int st, int *ptr, const double *F, const double *B,
                    const double *xf, const double *xb, bool serial)
{
	bool moved = false;
	for (;;) {
		int j = ptr[st];
		double t = 0;
		if (j > 0) {
			double *s = at(w, w->send, st, j - 1);
			if (isnan(*s)) {
				if (!resolve_send(w, st, j - 1, xf, xb, serial))
					return moved;
				moved = true;
			}
			t = fmax(*at(w, w->end, st, j - 1), *s);
		}
		if (j == w->n)
			return moved;
		double in = input_end(w, st, j);
		if (isnan(in))
			return moved;
		const plan_op *o = &w->ops[(size_t)st * (size_t)w->n + (size_t)j];
		*at(w, w->end, st, j) = fmax(t, in) + (o->backward ? B[st] : F[st]);
		/* no send out of the ends of the pipeline */
		if (o->backward ? st == 0 : st == w->p - 1)
			*at(w, w->send, st, j) = -1;
		ptr[st] = j + 1;
		moved = true;
	}
}

double sweep_pipe_walk(const plan_scenario *s, const double *F, const double *B,
                       const double *xf, const double *xb)
{
	const plan_spec *p = &s->plan;
	walk w = {p->pp, plan_microbatches(p), 2 * plan_microbatches(p), NULL, NULL, NULL,
	          NULL, NULL, NULL};
	size_t ops = (size_t)w.p * (size_t)w.n, mbs = (size_t)w.p * (size_t)w.m;
	/* one block (a walk per plan of a sweep): the doubles, the ops, the
	 * ints, each part's alignment at most the one before it */
	char *blk = malloc(2 * ops * sizeof(double) + ops * sizeof(plan_op) +
	                   (2 * mbs + ops + (size_t)w.p) * sizeof(int));
	double span = -1;
	if (!blk || plan_schedule_steps(p->schedule, w.m, 1) != w.n)
		goto out;
	w.end = (double *)blk;
	w.send = w.end + ops;
	w.ops = (plan_op *)(w.send + ops);
	w.pos_f = (int *)(w.ops + ops);
	w.pos_b = w.pos_f + mbs;
	w.next_f = w.pos_b + mbs;
	int *ptr = w.next_f + ops;
	for (int st = 0; st < w.p; st++)
		ptr[st] = 0;
	for (int st = 0; st < w.p; st++) {
		plan_op *o = &w.ops[(size_t)st * (size_t)w.n];
		plan_schedule_order(p->schedule, w.p, w.m, 1, plan_vp_group(p), plan_warm_extra(p), st,
		                    o);
		int next = -1; /* the forward after op j, walking back */
		for (int j = w.n - 1; j >= 0; j--) {
			w.next_f[(size_t)st * (size_t)w.n + (size_t)j] = next;
			(o[j].backward ? w.pos_b : w.pos_f)[(size_t)st * (size_t)w.m + (size_t)o[j].mb] = j;
			if (!o[j].backward)
				next = j;
		}
	}
	for (size_t i = 0; i < ops; i++)
		w.end[i] = w.send[i] = NAN;
	bool serial = s->fw.p2p_serial;
	for (;;) {
		bool moved = false, done = true;
		for (int st = 0; st < w.p; st++) {
			moved |= advance(&w, st, ptr, F, B, xf, xb, serial);
			done &= ptr[st] == w.n && !isnan(*at(&w, w.send, st, w.n - 1));
		}
		if (done)
			break;
		if (!moved)
			goto out; /* a stall: not the graph's order */
	}
	span = 0;
	for (int st = 0; st < w.p; st++)
		span = fmax(span, fmax(*at(&w, w.end, st, w.n - 1), *at(&w, w.send, st, w.n - 1)));
out:
	free(blk);
	return span;
}
