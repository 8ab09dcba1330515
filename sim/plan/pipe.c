/* pipe.c - the pipeline: a stage's steps in the schedule's order
 * (plan_schedule_order) with the sends after them, the combined steps of
 * moe_a2a_overlap, ZeRO-2's per-micro-batch reductions, and the edges
 * between the stages (synchronous p2p's rendezvous, p2p_serial).
 */
#include "build_int.h"

#include <stdlib.h>

/* The send of micro-batch mb's activation (or, backward, its gradient) to
 * the next (previous) stage after task `after`, on the PP stream: the p2p
 * of plan_p2p_stage_bytes on that hop (plan_pp_pair: across a node boundary
 * or inside a node, as the two stages' ranks lie; an interleaved schedule's
 * last stage sends to the first) and the framework's overhead
 * (plan_p2p_overhead). v is the sender's virtual stage; where the next
 * (previous) one is on the same rank, ZBV's turn, nothing is sent: a task
 * of no time stands for it. */
static uint32_t pp_send(builder *b, int stage, int v, int mb, bool backward, uint32_t after)
{
	int to = plan_vstage_rank(&b->s->plan, backward ? v - 1 : v + 1, NULL);
	if (to == stage) {
		plan_task t = {0, stage, backward ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD,
			       PLAN_TASK_PP, (int16_t)stage, mb, 0, 0, 0};
		return plan_graph_add(b->g, &t, &after, 1);
	}
	net_group hop;
	plan_pp_pair(b->s, stage, to, &hop);
	double gather, bytes = plan_p2p_stage_bytes(b->s, stage, backward, &gather);
	net_cost cost;
	if (build_comm_cost(b, NET_P2P, &hop, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	double wire_s = cost.time_s;
	cost.time_s += plan_p2p_overhead(b->s, &hop, backward);
	plan_netflow_alias(b->flow, &(net_cost){.time_s = wire_s, .intra_bytes = cost.intra_bytes,
	                                        .inter_bytes = cost.inter_bytes},
	                   cost.time_s);
	/* (under ZBV the receiver named: plan_task_pp_peer) */
	int16_t peer = plan_sched_v(b->s->plan.schedule) ? (int16_t)to : -1;
	plan_task t = {sim_time_from_s(cost.time_s), stage,
		       backward ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD, PLAN_TASK_PP, peer, mb,
		       (float)cost.intra_bytes, build_nic_share(&b->s->cluster, cost.inter_bytes),
		       (float)cost.fabric_bytes};
	return build_add_net(b->g, &t, &after, 1,
			     build_comm_net_s(b, &hop, cost.time_s), hop.nodes);
}

/* What build_emit_schedule carries from one op to the next: synchronous p2p's
 * unwaited send, the last step's end, ZeRO-2's per-micro-batch reduction
 * (plan_grad_reduce_microbatch: the buckets of micro-batches before the last
 * go out after their own backward; not overlapped, the next step waits for
 * them: gate), the last backward step without a forward after it. */
typedef struct sched_state {
	bool sync, mbr;
	uint32_t prev, pending, gate;
	size_t last_b;
	int lmax;
	uint32_t *mb_end, *mb_ids;
	double *mb_shard;
	uint32_t *btail; /* build_chunk_sync: the backward steps' last tasks in order */
	int *bchunk, nb; /* ... and per chunk its launch step (build_chunk_launch) */
	bool gathered;   /* fsdp_state.kept: the stage's gathers are under way */
} sched_state;

/* One op of the schedule being emitted. Not copied (cur points at f). */
typedef struct op_emit {
	plan_op op;
	size_t k; /* per-micro-batch ids' index: v * m + mb */
	bool grads, early;
	fsdp_state f;
	cursor cur;
} op_emit;

static void op_begin(builder *b, int stage, const plan_op *op, sched_state *st,
		     uint32_t *layer_end, op_emit *e)
{
	int m = b->m, v = plan_vstage(&b->s->plan, stage, op->chunk);
	bool bwd = op->backward;
	e->op = *op;
	e->k = (size_t)v * (size_t)m + (size_t)op->mb;
	e->f = b->fsdp;
	e->f.dir = bwd ? -1 : 1;
	/* ZeRO++ hpZ: a step's first gathers of the chunk's parameters are its
	 * first micro-batch's forward; every later one draws from the
	 * secondary shard (emit.c unit_gather) */
	e->f.secondary = b->s->plan.zero_hpz > 1 && (bwd || op->mb > 0);
	/* torch's single-stage schedules (Schedule1F1B, ScheduleGPipe) reduce
	 * after waiting for the last backward's send (schedules.py:1380-1388,
	 * 1171 in torch 2.14.1): the multi-stage ones at the REDUCE_GRAD action
	 * right after the chunk's last backward */
	e->f.defer = e->f.kept && b->vpp == 1;
	e->f.layers = plan_stage_layers(b->s, stage);
	/* each op gathers its layers again, but where they stay gathered from
	 * the stage's first op to the step's end (plan_zero3_pp_gathered) */
	/* (and a backward keeps the last layers DeepSpeed's reuse window held
	 * from the forward before it, pp 1: plan_zero3_reuse_layers) */
	int held = bwd ? e->f.held : 0;
	for (int l = 0; e->f.on && !(e->f.kept && st->gathered) && l < e->f.layers - held; l++)
		e->f.gather[l] = UINT32_MAX;
	/* the ends' likewise, and under zero3_root = step from the stage's
	 * first op on */
	bool ends_kept = e->f.kept || b->s->fw.zero3_root == PLAN_ZERO3_ROOT_STEP;
	for (int p = 0; e->f.on && !(ends_kept && st->gathered) && p < 2; p++)
		e->f.end_gather[p] = UINT32_MAX;
	st->gathered = true;
	if (e->f.bucket) { /* the root unit's gradients close the backward */
		e->f.root_bytes = build_root_params(b->s, stage, &e->f.root_tensors) * e->f.gbytes;
		plan_qgz_end_tensors(b->s, stage, &e->f.root_mats, &e->f.root_vecs);
	}
	/* Gradients are complete after the last micro-batch's W (zero bubble)
	 * or backward: that is what the DP buckets wait for. */
	bool gstep = bwd && op->weight == b->zb; /* completes its gradients */
	e->grads = gstep && op->mb == m - 1;
	e->early = st->mbr && gstep && op->mb < m - 1; /* a micro-batch's own reduction */
	for (int l = 0; e->early && l < st->lmax; l++)
		st->mb_end[l] = UINT32_MAX;
	const chain *ch = op->weight ? &b->wgt[op->chunk] : bwd ? &b->bwd[op->chunk]
								 : &b->fwd[op->chunk];
	build_cursor_init(&e->cur, b, ch, stage, op->mb, UINT32_MAX,
			  e->grads ? layer_end : e->early ? st->mb_end : NULL, &e->f);
	if (bwd || op->mb != 0) /* only a chunk's first forward waits for the gathers */
		e->cur.pgather = NULL;
}

/* After an op's tasks: its edges to the steps around it, the per-micro-batch
 * ids, its gradient buckets (ZeRO-2 per micro-batch) and its send. */
static int op_end(builder *b, int stage, pipe_ids *ids, sched_state *st, const op_emit *e)
{
	uint32_t first = e->cur.first, last = e->cur.prev, tail = e->cur.tail;
	bool bwd = e->op.backward;
	int rc = SIM_OK;
	if (st->sync && st->pending != UINT32_MAX && first != UINT32_MAX) {
		if (plan_graph_edge(b->g, st->pending, first) != SIM_OK)
			rc = SIM_ENOMEM;
		st->pending = UINT32_MAX;
	}
	if (st->gate != UINT32_MAX && first != UINT32_MAX) {
		if (plan_graph_edge(b->g, st->gate, first) != SIM_OK)
			rc = SIM_ENOMEM;
		st->gate = UINT32_MAX;
	}
	if (e->early && tail != UINT32_MAX) {
		int n = build_emit_grad_buckets(b, stage, tail, st->mb_end, NULL, st->mb_ids,
						st->mb_shard);
		if (n < 0)
			rc = SIM_ENOMEM;
		else if (n > 0 && !b->s->plan.overlap_grad_reduce)
			st->gate = st->mb_ids[n - 1];
	}
	uint32_t before = st->prev;
	if (last != UINT32_MAX)
		st->prev = last;
	if (e->op.weight) {
		if (tail != UINT32_MAX)
			ids->last_bwd[stage] = tail;
		return rc;
	}
	size_t k = e->k;
	(bwd ? ids->first_b : ids->first_f)[k] = first;
	(bwd ? ids->pred_b : ids->pred_f)[k] = before;
	ids->next_f[k] = UINT32_MAX;
	if (bwd)
		st->last_b = k;
	else if (st->last_b != SIZE_MAX)
		ids->next_f[st->last_b] = (uint32_t)k, st->last_b = SIZE_MAX;
	if (bwd) /* with deferred weight gradients the last of them */
		ids->last_bwd[stage] = tail;
	if (bwd && st->btail)
		st->btail[st->nb++] = tail;
	int v = plan_vstage(&b->s->plan, stage, e->op.chunk);
	if (bwd ? v > 0 : v < b->vstages - 1) { /* after the last link: not after
						  * a deferred weight gradient */
		uint32_t id = pp_send(b, stage, v, e->op.mb, bwd, last);
		if (id == UINT32_MAX)
			rc = SIM_ENOMEM;
		(bwd ? ids->send_b : ids->send_f)[k] = id;
		st->pending = id;
	}
	return rc;
}

/* The stage's compute-stream program in schedule order, with its sends.
 * Per-micro-batch ids are indexed by virtual stage: k = v * m + mb. With
 * synchronous p2p (plan_p2p_sync) a step's send blocks the stage's next step
 * (its first task waits for the send; after the last step, the gradient
 * reduction and the optimizer do, through last_bwd), and each step records
 * the last task of the step before it (pred_f, pred_b), which the transfer
 * feeding it waits for (build_link_stages). Under moe_a2a_overlap a forward
 * followed by a backward (1F1B's steady step) is one combined step
 * (build_emit_pair). */
int build_emit_schedule(builder *b, int stage, pipe_ids *ids, uint32_t *layer_end)
{
	int pp = b->s->plan.pp, m = b->m;
	int lmax = plan_max_stage_layers(b->s), cap = 2 * plan_grad_bucket_cap(b->s);
	sched_state st = {plan_p2p_sync(&b->s->plan), plan_grad_reduce_microbatch(b->s),
			  UINT32_MAX, UINT32_MAX, UINT32_MAX, SIZE_MAX, lmax, NULL, NULL, NULL,
			  NULL, NULL, 0, false};
	int steps = plan_schedule_steps(b->s->plan.schedule, m, b->vpp);
	plan_op *order = malloc((size_t)steps * sizeof *order);
	op_emit *e = malloc(2 * sizeof *e);
	if (st.mbr) {
		st.mb_end = malloc((size_t)(lmax > 0 ? lmax : 1) * sizeof *st.mb_end);
		st.mb_ids = malloc((size_t)cap * sizeof *st.mb_ids);
		st.mb_shard = malloc((size_t)cap * sizeof *st.mb_shard);
	}
	if (build_chunk_sync(b->s)) {
		st.btail = malloc((size_t)steps * sizeof *st.btail);
		st.bchunk = malloc((size_t)b->vpp * sizeof *st.bchunk);
	}
	int rc = SIM_OK;
	if (!order || !e || (st.mbr && (!st.mb_end || !st.mb_ids || !st.mb_shard)) ||
	    (build_chunk_sync(b->s) &&
	     (!st.btail || !st.bchunk || build_chunk_launch(b->s, stage, st.bchunk) != SIM_OK)))
		rc = SIM_ENOMEM;
	else
		plan_schedule_order(b->s->plan.schedule, pp, m, b->vpp, plan_vp_group(&b->s->plan),
				    plan_warm_extra(&b->s->plan), stage, order);
	/* the steady steps' forwards: a forward after the warm-up followed by a
	 * backward (all forwards in the warm-up, as with m = 1 without a
	 * pipeline: none; Megatron-Core runs those steps alone) */
	int warm = plan_schedule_warm(b->s->plan.schedule, pp, m, b->vpp,
				      plan_vp_group(&b->s->plan), plan_warm_extra(&b->s->plan), stage);
	for (int i = 0; i < steps && rc == SIM_OK; i++) {
		if (b->s->inference && order[i].backward)
			continue; /* forward passes only */
		bool pair = b->ovl && i >= warm && !order[i].backward && i + 1 < steps &&
			    order[i + 1].backward && !order[i + 1].weight;
		op_begin(b, stage, &order[i], &st, layer_end, &e[0]);
		if (pair)
			op_begin(b, stage, &order[i + 1], &st, layer_end, &e[1]);
		rc = pair ? build_emit_pair(b, &e[0].cur, &e[1].cur)
			  : build_emit_to(b, &e[0].cur, e[0].cur.c->n);
		if (rc == SIM_OK)
			rc = op_end(b, stage, ids, &st, &e[0]);
		if (rc == SIM_OK && pair)
			rc = op_end(b, stage, ids, &st, &e[1]), i++;
		if (rc == SIM_OK && !pair && e[0].f.npend > 0 && e[0].f.defer) {
			/* after the send, where the op has one (pp_send: v > 0) */
			int v = plan_vstage(&b->s->plan, stage, e[0].op.chunk);
			uint32_t after = e[0].op.backward && v > 0 ? ids->send_b[e[0].k]
								   : e[0].cur.prev;
			rc = build_fsdp_reduce_after(b, &e[0].cur, after);
		}
	}
	if (rc == SIM_OK && st.sync && st.pending != UINT32_MAX && !b->s->inference)
		ids->last_bwd[stage] = st.pending;
	/* Megatron-Core's aligned launch (build_chunk_sync): after its k-th
	 * backward step a rank launches the chunk whose last micro-batch was
	 * its step k - stage (pipeline rank); chunks that leaves over, after
	 * the schedule (UINT32_MAX: last_bwd). build_chunk_launch counts the
	 * steps, the same for plan_grad_buckets (explain). */
	for (int c = 0; rc == SIM_OK && st.btail && c < b->vpp; c++)
		if (st.bchunk[c] >= 0 && st.bchunk[c] < st.nb)
			ids->sync_at[stage * b->vpp + c] = st.btail[st.bchunk[c]];
	free(order), free(e), free(st.mb_end), free(st.mb_ids), free(st.mb_shard);
	free(st.btail), free(st.bchunk);
	return rc;
}

/* Virtual stage v's micro-batch waits for v - 1's forward send and v + 1's
 * backward send (v - 1 of chunk c > 0 on stage 0 is the last stage's chunk
 * c - 1: the interleaved pipeline wraps around). */
int build_link_stages(builder *b, const pipe_ids *ids)
{
	int m = b->m;
	bool sync = plan_p2p_sync(&b->s->plan);
	bool serial = sync && b->s->fw.p2p_serial && b->vpp == 1;
	for (int v = 0; v < b->vstages; v++)
		for (int mb = 0; mb < m; mb++) {
			size_t k = (size_t)v * (size_t)m + (size_t)mb;
			if (v > 0 && plan_graph_edge(b->g, ids->send_f[k - (size_t)m],
						     ids->first_f[k]) != SIM_OK)
				return SIM_ENOMEM;
			if (v < b->vstages - 1 && !b->s->inference &&
			    plan_graph_edge(b->g, ids->send_b[k + (size_t)m], ids->first_b[k]) != SIM_OK)
				return SIM_ENOMEM;
			/* rendezvous: the transfer starts once the receiver is done
			 * with the step before the one that consumes it */
			if (sync && v > 0 && ids->pred_f[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->pred_f[k], ids->send_f[k - (size_t)m]) != SIM_OK)
				return SIM_ENOMEM;
			if (sync && v < b->vstages - 1 && !b->s->inference &&
			    ids->pred_b[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->pred_b[k], ids->send_b[k + (size_t)m]) != SIM_OK)
				return SIM_ENOMEM;
			/* [framework] p2p_serial (nanotron's run_communication,
			 * parallel/pipeline_parallel/state.py:124-172 at 0e0a27ea:
			 * send activation, receive activation, send gradient, receive
			 * gradient, one blocking transfer at a time): the gradient a
			 * stage sends after its backward waits for the activation it
			 * receives for its next forward, where Megatron batches the
			 * two. Synchronous 1F1B without interleaving only. */
			if (serial && v > 0 && !b->s->inference && ids->next_f[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->send_f[ids->next_f[k] - (size_t)m],
					    ids->send_b[k]) != SIM_OK)
				return SIM_ENOMEM;
		}
	return SIM_OK;
}
