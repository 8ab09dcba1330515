/* emit.c - placing a chain's segs in the task graph: a cursor walks the
 * chain (whole, or in pieces under combined 1F1B, combined.c) and adds its
 * tasks with their edges (tp_comm_overlap's pairs, the CP ring's transfers,
 * overlap_param_gather's waits, DeepEP's rates), and ZeRO-3 / FSDP's
 * per-layer gathers, reduce-scatters and offload copies.
 */
#include "build_int.h"

#include <string.h>

static uint8_t seg_stream(uint8_t kind)
{
	return kind == PLAN_TASK_TP ? PLAN_STREAM_TP
	       : kind == PLAN_TASK_CP ? PLAN_STREAM_CP
	       : kind == PLAN_TASK_EP ? PLAN_STREAM_EP
				      : PLAN_STREAM_COMPUTE;
}

/* ZeRO-3 / FSDP with one unit per transformer layer: before a layer runs
 * (forward, or backward with its recomputation) its parameters are
 * all-gathered over DP; the gather of the next layer in chain order is issued
 * as soon as the current one starts computing (a prefetch window of one unit),
 * and after a layer's backward its gradients are reduce-scattered. Embedding
 * and output layer stay gathered in the root unit (not modelled as traffic).
 * ZeRO-Infinity (offload_params) first copies the rank's shard of the layer
 * from the host (or NVMe through the host) on the offload stream, and copies
 * each reduce-scattered gradient shard back. ZeRO-Inference (inference with
 * offload_params) streams each layer's whole TP shard from the host the same
 * way, the next layer's copy issued when a layer starts: a layer takes
 * max(compute, fetch) once the pipeline of copies is primed. */
static uint32_t fsdp_gather(builder *b, fsdp_state *f, int stage, int layer, uint32_t after)
{
	if (layer < 0 || layer >= f->layers)
		return UINT32_MAX;
	if (f->gather[layer] == UINT32_MAX && b->s->inference) { /* ZeRO-Inference */
		f->gather[layer] = build_add_copy(b, stage, f->param_bytes,
						  b->s->plan.offload_params == PLAN_OFFLOAD_NVME,
						  &after, 1, (int16_t)layer);
	} else if (f->gather[layer] == UINT32_MAX) {
		plan_offload off = b->s->plan.offload_params;
		if (off != PLAN_OFFLOAD_NONE)
			after = build_add_copy(b, stage, f->param_bytes / b->shard.size,
					       off == PLAN_OFFLOAD_NVME, &after, 1, (int16_t)layer);
		/* DeepSpeed fetches each module's parameters with its own
		 * coalesced all-gather ([framework] zero3_gathers: the layer's
		 * bytes in that many gathers back to back, each paying the ring's
		 * latency; the layer waits for the last) */
		int ng = b->s->fw.zero3_gathers > 1 ? b->s->fw.zero3_gathers : 1;
		uint32_t id = after;
		if (f->cast_s > 0) { /* FSDP's shard cast, which the gather waits for */
			plan_task cast = {sim_time_from_s(f->cast_s), stage, PLAN_STREAM_DP,
					  PLAN_TASK_DP, (int16_t)layer, -1, 0, 0};
			id = plan_graph_add(b->g, &cast, &after, 1);
			if (id == UINT32_MAX)
				return UINT32_MAX;
		}
		for (int k = 0; k < ng; k++) {
			id = build_add_dp_on(b, &b->shard, stage, NET_ALLGATHER,
					     f->param_bytes / ng, &id, 1, (int16_t)layer);
			if (id == UINT32_MAX)
				break; /* out of memory: plan_graph_add's failure */
		}
		f->gather[layer] = id;
	}
	return f->gather[layer];
}

/* A cursor at the start of chain c for micro-batch mb on `stage`, its first
 * task depending on `dep`; layer_end (if non-NULL) gets, per layer, the id of
 * the layer's last task. */
void build_cursor_init(cursor *k, const builder *b, const chain *c, int stage, int mb,
		       uint32_t dep, uint32_t *layer_end, fsdp_state *f)
{
	memset(k, 0, sizeof *k);
	k->c = c, k->stage = stage, k->mb = mb;
	k->prev = k->before = dep;
	k->first = k->tail = k->join = k->held = UINT32_MAX;
	k->cur = k->pcur = -1;
	k->layer_end = layer_end, k->f = f, k->pgather = b->pgather;
}

/* Under DeepEP (builder.held) a compute task's rate beside its kernels:
 * its duration over max(its host time, its kernels' GPU time beside them)
 * (plan_graph.deep_rate). */
static int set_deep(builder *b, uint32_t id, const seg *x)
{
	if (b->held <= 0 || seg_stream(x->kind) != PLAN_STREAM_COMPUTE || x->held <= 0)
		return SIM_OK;
	sim_time h = x->held > x->cpu ? x->held : x->cpu;
	return plan_graph_set_deep(b->g, id, (double)x->dur / (double)h);
}

/* A delay_wgrad_compute weight gradient (seg.aside): after the chain's last
 * link, which it does not become (nothing waits for it); the compute tail. */
static int emit_aside(builder *b, cursor *k, const seg *x, const plan_task *t)
{
	uint32_t id = plan_graph_add(b->g, t, &k->prev, 1);
	if (id == UINT32_MAX || set_deep(b, id, x) != SIM_OK)
		return SIM_ENOMEM;
	if (k->first == UINT32_MAX)
		k->first = id;
	if (k->layer_end && x->layer >= 0)
		k->layer_end[x->layer] = id;
	b->g->hardware_flops += x->flops * b->g->rank_gpus;
	k->tail = id;
	return SIM_OK;
}

/* What seg i waits for: deps[0] the chain's last link (a ring transfer the
 * one it forwards; a collective starting with the GEMM before it, the link
 * before that GEMM), deps[1] ZeRO-3's gather of a layer the chain enters
 * (issuing the next layer's as its prefetch) or the ring transfer a
 * compute step needs, deps[2] tp_comm_overlap's pending collective, deps[3]
 * overlap_param_gather's bucket (a layer's first forward of the step; the
 * chain's first task, the embedding, waits for its first layer's), deps[4]
 * the join a second pair displaced. Updates the cursor's layer, pending
 * join and held join. */
static void link_deps(builder *b, cursor *k, int i, uint32_t deps[5])
{
	const chain *c = k->c;
	const seg *x = &c->v[i];
	fsdp_state *f = k->f;
	deps[0] = k->prev;
	deps[1] = deps[2] = deps[3] = deps[4] = UINT32_MAX;
	if (f->on && x->layer >= 0 && x->layer != k->cur) {
		deps[1] = fsdp_gather(b, f, k->stage, x->layer, k->prev);
		fsdp_gather(b, f, k->stage, x->layer + f->dir, k->prev); /* prefetch */
		k->cur = x->layer;
	}
	if (k->pgather && x->ovl == 0) {
		int l = x->layer;
		for (int j = i; i == 0 && l < 0 && j < c->n; j++)
			l = c->v[j].layer;
		if (l >= 0 && l != k->pcur)
			deps[3] = k->pgather[l], k->pcur = l;
	}
	bool xfer = x->kind == PLAN_TASK_CP;
	if (xfer && x->cp_step > 1) /* the ring forwards the block it received */
		deps[0] = k->ring[x->cp_step - 1];
	else if (!xfer && x->cp_step > 0)
		deps[1] = k->ring[x->cp_step];
	if (x->ovl < 0) /* starts with the GEMM before it */
		deps[0] = k->before;
	if (!xfer && x->ovl == 0 && k->join != UINT32_MAX && k->join_skip-- == 0)
		deps[2] = k->join, k->join = UINT32_MAX;
	if (!xfer && x->ovl == 0 && k->held != UINT32_MAX) /* the GEMM of a pair that
							    * followed a pair's GEMM */
		deps[4] = k->held, k->held = UINT32_MAX;
}

/* A task beside the chain, not its next link: a CP ring transfer (the
 * compute step and the next transfer wait for it) or a tp_comm_overlap
 * collective beside its GEMM (the link after the GEMM waits for it). */
static void note_side(cursor *k, const seg *x, uint32_t id)
{
	if (x->kind == PLAN_TASK_CP) {
		k->ring[x->cp_step] = id;
		return;
	}
	if (k->join != UINT32_MAX && x->ovl > 0) /* a pair right after a pair's GEMM
						  * (nanotron's column backward:
						  * re-gather beside dgrad,
						  * reduce-scatter beside wgrad): its
						  * GEMM waits for the first
						  * collective */
		k->held = k->join;
	k->join = id;
	k->join_skip = x->ovl > 0; /* the all-gather's GEMM is the next link */
}

/* The chain's next link `id`: the layer's last task so far, its FLOPs, and
 * the cursor's last two links. */
static void note_link(builder *b, cursor *k, const seg *x, uint32_t id)
{
	if (k->layer_end && x->layer >= 0)
		k->layer_end[x->layer] = id;
	b->g->hardware_flops += x->flops * b->g->rank_gpus;
	k->before = k->prev;
	k->prev = k->tail = id;
}

/* ZeRO-3 / FSDP after the last backward task `id` of a layer: the flat
 * gradient's assembly on the compute stream (flat_s, the chain's new last
 * link), then, where this micro-batch reduces, on the DP stream the
 * post-backward passes (pass_s), the reduce-scatter over the shard group,
 * with hybrid sharding the shard's all-reduce over its replicas, FSDP's cast
 * back and accumulation (post_s), and under offload_params the gradient
 * shard's copy to the host.
 *
 * Which micro-batches reduce: every one, unless the framework accumulates
 * unsharded gradients (accumulate_unsharded: FSDP1's no_sync returns from
 * the post-backward hook before any reduction, torch 2.6.0
 * torch/distributed/fsdp/_runtime_utils.py:733-736, Debian 2.6.0+dfsg-7),
 * which reduces only in the micro-batch that completes the gradients (the
 * cursor's layer_end is set there), with no saved shard to add to
 * (post_s[0]). The replica all-reduce follows each reduce-scatter
 * (hsdp_grad_reduce = microbatch: FSDP1, _runtime_utils.py:850-866, before
 * the accumulation, :863-866) or only that last micro-batch's (boundary:
 * DeepSpeed's MiCS, plan.h plan_reduce).
 *
 * The step waits for every layer's reduction: FSDP1's final callback makes
 * the compute stream wait for the post-backward and all-reduce streams
 * after every backward that reduced (_runtime_utils.py:1089-1096), FSDP2's
 * waits for each group's post-reduce and all-reduce events
 * (_fully_shard/_fsdp_param_group.py:444-470), DeepSpeed ZeRO-3's epilogue
 * synchronises its reduce stream after every backward
 * (deepspeed/runtime/zero/stage3.py:1357-1364 at edaa72212, called through
 * engine.py:2891-2904). So the last micro-batch's final task per layer
 * goes to b->zdone for build_emit_optimizer. A later micro-batch's forward
 * already waits for the reductions before it: its layers' gathers queue
 * behind them on the DP stream. */
static int fsdp_layer_grads(builder *b, cursor *k, const seg *x, uint32_t id)
{
	const fsdp_state *f = k->f;
	const plan_scenario *s = b->s;
	int stage = k->stage;
	bool last = k->layer_end != NULL; /* completes the gradients */
	bool nosync = s->fw.accumulate_unsharded && b->m > 1;
	if (f->flat_s > 0) {
		plan_task cat = {sim_time_from_s(f->flat_s), stage, PLAN_STREAM_COMPUTE,
				 x->kind == PLAN_TASK_WGRAD ? PLAN_TASK_WGRAD : PLAN_TASK_BWD,
				 x->layer, k->mb, 0, 0};
		id = plan_graph_add(b->g, &cat, &id, 1);
		if (id == UINT32_MAX)
			return SIM_ENOMEM;
		if (k->layer_end)
			k->layer_end[x->layer] = id;
		k->prev = k->tail = id;
	}
	if (nosync && !last)
		return SIM_OK; /* accumulated unsharded, reduced at the last */
	uint32_t done = id;
	if (f->pass_s > 0) {
		plan_task pass = {sim_time_from_s(f->pass_s), stage, PLAN_STREAM_DP, PLAN_TASK_DP,
				  x->layer, k->mb, 0, 0};
		done = plan_graph_add(b->g, &pass, &id, 1);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	done = build_add_dp_on(b, &b->shard, stage, NET_REDUCESCATTER, f->grad_bytes, &done, 1,
			       x->layer);
	if (done == UINT32_MAX)
		return SIM_ENOMEM;
	double shard = f->grad_bytes / b->shard.size;
	if (b->replica.size > 1 && (last || s->fw.hsdp_reduce == PLAN_REDUCE_MICROBATCH)) {
		done = build_add_dp_on(b, &b->replica, stage, NET_ALLREDUCE, shard, &done, 1,
				       x->layer);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	double post = f->post_s[k->mb > 0 && !nosync];
	if (post > 0) { /* FSDP's cast back and accumulation, after it */
		plan_task pt = {sim_time_from_s(post), stage, PLAN_STREAM_DP, PLAN_TASK_DP,
				x->layer, k->mb, 0, 0};
		done = plan_graph_add(b->g, &pt, &done, 1);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	bool off = s->plan.offload_params != PLAN_OFFLOAD_NONE;
	if (off && (done = build_add_copy(b, stage, shard, false, &done, 1, x->layer)) ==
			   UINT32_MAX)
		return SIM_ENOMEM;
	if (last && b->zdone && b->nzdone < b->zcap) {
		b->zdone[b->nzdone] = done;
		b->zshard[b->nzdone++] = off ? 0 : shard;
	}
	return SIM_OK;
}

/* Emit the cursor's segs up to (not including) index `end`: each seg a task
 * on its stream with what it waits for (link_deps); a weight gradient aside,
 * a ring transfer or an overlapped collective beside the chain, anything
 * else its next link, and after a layer's last backward link ZeRO-3's
 * gradient traffic. SIM_OK or SIM_ENOMEM. */
int build_emit_to(builder *b, cursor *k, int end)
{
	const chain *c = k->c;
	for (; k->i < end; k->i++) {
		int i = k->i;
		const seg *x = &c->v[i];
		plan_task t = {x->dur, k->stage, seg_stream(x->kind), x->kind, x->layer, k->mb,
			       x->scaleup, x->nic};
		if (x->aside) {
			if (emit_aside(b, k, x, &t) != SIM_OK)
				return SIM_ENOMEM;
			continue;
		}
		uint32_t deps[5];
		link_deps(b, k, i, deps);
		uint32_t id = build_add_net(b->g, &t, deps, 5, x->net_s, x->net_nodes);
		if (id == UINT32_MAX || set_deep(b, id, x) != SIM_OK)
			return SIM_ENOMEM;
		if (k->first == UINT32_MAX)
			k->first = id;
		if (x->kind == PLAN_TASK_CP || x->ovl != 0) {
			note_side(k, x, id);
			continue;
		}
		note_link(b, k, x, id);
		bool layer_done = i + 1 == c->n || c->v[i + 1].layer != x->layer;
		if (k->f->on && k->f->dir < 0 && x->layer >= 0 && layer_done &&
		    fsdp_layer_grads(b, k, x, id) != SIM_OK)
			return SIM_ENOMEM;
	}
	return SIM_OK;
}
