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

/* A memory-bound task of `q` seconds on the DP stream after *id, which
 * becomes it (unit_gather); nothing when q is 0. */
static int dp_kernel(builder *b, int stage, int16_t layer, double q, uint32_t *id)
{
	if (!(q > 0))
		return SIM_OK;
	plan_task t = {sim_time_from_s(q), stage, PLAN_STREAM_DP, PLAN_TASK_DP, layer, -1, 0, 0, 0};
	*id = plan_graph_add(b->g, &t, id, 1);
	return *id == UINT32_MAX ? SIM_ENOMEM : SIM_OK;
}

/* ZeRO-3 / FSDP with one unit per transformer layer: before a layer runs
 * (forward, or backward with its recomputation) its parameters are
 * all-gathered over DP; the gather of the next layer in chain order is issued
 * as soon as the current one starts computing (a prefetch window of one unit),
 * and after a layer's backward its gradients are reduce-scattered. The
 * embedding and the head move as the framework moves them ("The ends",
 * below).
 * ZeRO-Infinity (offload_params) first copies the rank's shard of the layer
 * from the host (or NVMe through the host) on the offload stream, and copies
 * each reduce-scattered gradient shard back. ZeRO-Inference (inference with
 * offload_params) streams each layer's whole TP shard from the host the same
 * way, the next layer's copy issued when a layer starts: a layer takes
 * max(compute, fetch) once the pipeline of copies is primed.
 *
 * DeepSpeed's own prefetch, read against this window (DeepSpeed 0.16.5,
 * microsoft/DeepSpeed 38327e07, deepspeed/runtime/zero/): each submodule's
 * pre-forward and pre-backward hook (parameter_offload.py:445-454, 457-491)
 * calls fetch_sub_module (partitioned_param_coordinator.py:285-418), which
 * all-gathers the module's parameters not yet in flight (:300-315), makes
 * the compute stream wait for the whole all-gather stream (:342-343: a
 * module waits for every gather issued before it, on one FIFO stream, as
 * here), then, from the second step on (a recorded trace), pops parameters
 * off the trace and gathers them in one coalesced call until
 * stage3_prefetch_bucket_size elements (zero/config.py:208, 5e7) or the
 * room left under stage3_max_live_parameters (1e9, :231) is reached
 * (:379-413). The gathered parameters are released after the module unless
 * reused within stage3_max_reuse_distance (1e9, :237; :522-554), so the
 * live count falls by a module per step and, once the frontier is 1e9
 * elements ahead, each step issues about one module's gather: the
 * all-gather stream runs back to back up to 1e9 elements (2 layers of a
 * 20B GPT, 5 of a 7B) ahead of compute, the host held back only by its
 * sync on the gather three modules earlier (:329-332). So when the gathers
 * outlast compute both this window and DeepSpeed's run the stream back to
 * back and the step is the gathers' sum; when compute outlasts them both
 * hide them; DeepSpeed's deeper window hides more only where one layer's
 * gathers outlast its compute between layers that do not (the first
 * layers of a pass). Not modelled: that deeper window, and the host work of
 * a coalesced gather of several parameters (AllGatherCoalescedHandle.wait,
 * partition_parameters.py:677-721: per parameter one narrow, append and
 * record_stream per rank), which the steady state above avoids (one
 * parameter per prefetch once the live limit binds).
 *
 * ZeRO++ (DeepSpeed's hpZ and qwZ, [parallel] zero_hpz and
 * zero_quantized_weights; 38327e07): when a gathered parameter is released
 * (_partition, partition_parameters.py:1538-1543) DeepSpeed keeps a
 * secondary shard of it, 1/zero_hpz of the 16-bit tensor, over the hpZ
 * group (_partition_param_sec, :1673-1716), kept until the optimizer step
 * invalidates it (stage3.py:2061, 512-516); every later gather of the
 * parameter draws from it over that group (all_gather_coalesced,
 * :1219-1223): only a parameter's first gather of the step, the forward of
 * the first micro-batch (fsdp_state.secondary false), crosses the whole
 * shard group; its backward and every later micro-batch's passes stay in
 * the hpZ group (a node's GPUs). Under ZeRO-Infinity the secondary shard
 * lives where the primary does (remote_device, :1688-1693): its copy in is
 * 1/zero_hpz of the layer. qwZ gathers each piece as int8 values and fp32
 * scales, two calls, between a quantisation of the shard and a
 * dequantisation of the gathered tensor on the DP stream
 * (plan_zeropp_quant_s). */
static uint32_t unit_gather(builder *b, const fsdp_unit *u, int stage, int16_t layer,
			    uint32_t after, bool secondary)
{
	const plan_scenario *s = b->s;
	plan_offload off = s->plan.offload_params;
	const net_group *grp = secondary ? &b->hpz : &b->shard;
	if (off != PLAN_OFFLOAD_NONE)
		after = build_add_copy(b, stage,
				       u->param_bytes / grp->size +
					       u->sep_param_bytes / b->edp.size,
				       off == PLAN_OFFLOAD_NVME, &after, 1, layer);
	/* DeepSpeed fetches each module's parameters with its own coalesced
	 * all-gather (plan_zero3_pieces: the layer's modules at their sizes,
	 * or zero3_gathers equal ones, back to back, each paying the ring's
	 * latency; the layer waits for the last; a persistent module's share
	 * is 0: no gather) */
	uint32_t id = after;
	if (u->cast_s > 0) { /* FSDP's shard cast, which the gather waits for */
		plan_task cast = {sim_time_from_s(u->cast_s), stage, PLAN_STREAM_DP, PLAN_TASK_DP,
				  layer, -1, 0, 0, 0};
		id = plan_graph_add(b->g, &cast, &after, 1);
		if (id == UINT32_MAX)
			return UINT32_MAX;
	}
	double wb = plan_zero3_gather_width(s), wire = plan_zeropp_wire(s);
	for (int k = 0; k < u->pieces; k++) {
		if (!(u->gather_frac[k] > 0))
			continue;
		double e = u->param_bytes * u->gather_frac[k] / wb; /* elements */
		/* qwZ's quantisation of the shard, the gathers, its
		 * dequantisation; the copy out of the flat buffer */
		if (dp_kernel(b, stage, layer, plan_zeropp_quant_s(s, e / grp->size), &id) != SIM_OK)
			return UINT32_MAX;
		id = build_add_dp_on(b, grp, stage, NET_ALLGATHER, e * wire, &id, 1, layer);
		double sc = plan_zeropp_scale_bytes(s, e);
		if (sc > 0 && id != UINT32_MAX)
			id = build_add_dp_on(b, grp, stage, NET_ALLGATHER, sc, &id, 1, layer);
		if (id == UINT32_MAX ||
		    dp_kernel(b, stage, layer, plan_zeropp_quant_s(s, e), &id) != SIM_OK ||
		    (grp->size > 1 && s->fw.zero3_gather_copy == PLAN_GATHER_COPY_DP &&
		     dp_kernel(b, stage, layer, plan_zero3_gather_copy_s(s, e), &id) != SIM_OK))
			return UINT32_MAX; /* out of memory: plan_graph_add's failure */
	}
	/* an MoE layer's routed experts under ep > 1: their own unit over the
	 * expert-data-parallel group, after the layer's (torchtitan's
	 * fully_shard of moe.experts on the EP mesh before the block's;
	 * Megatron-FSDP's expert parameter groups) */
	if (u->sep_param_bytes > 0 && u->sep_cast_s > 0) {
		plan_task cast = {sim_time_from_s(u->sep_cast_s), stage, PLAN_STREAM_DP,
				  PLAN_TASK_DP, layer, -1, 0, 0, 0};
		id = plan_graph_add(b->g, &cast, &id, 1);
	}
	if (u->sep_param_bytes > 0 && id != UINT32_MAX)
		id = build_add_dp_on(b, &b->edp, stage, NET_ALLGATHER, u->sep_param_bytes, &id, 1,
				     layer);
	return id;
}

static uint32_t fsdp_gather(builder *b, fsdp_state *f, int stage, int layer, uint32_t after)
{
	if (layer < 0 || layer >= f->layers)
		return UINT32_MAX;
	const fsdp_unit *u = build_fsdp_unit(b, f, stage, layer);
	if (f->gather[layer] == UINT32_MAX && b->s->inference) /* ZeRO-Inference */
		f->gather[layer] = build_add_copy(b, stage, u->param_bytes + u->sep_param_bytes,
						  b->s->plan.offload_params == PLAN_OFFLOAD_NVME,
						  &after, 1, (int16_t)layer);
	else if (f->gather[layer] == UINT32_MAX)
		f->gather[layer] = unit_gather(b, u, stage, (int16_t)layer, after, f->secondary);
	return f->gather[layer];
}

/* The ends (plan_zero3_root; plan_zero3_ends sizes them, seg.end marks
 * their tasks): the parameters outside the transformer layers, moved on
 * the DP stream in the order their tasks are issued, as each framework
 * moves them:
 *  - flat: FSDP1's root FlatParameter (torch 2.14.1
 *    torch/distributed/fsdp/_runtime_utils.py:485-500: the root's
 *    parameters are not freed after the forward, "with the intention that
 *    they are immediately used for backward") or FSDP2's root module
 *    (_fully_shard/_fsdp_state.py:208-212, the same unless the user set
 *    reshard_after_forward): all-gathered before the forward chain's first
 *    task, once per micro-batch, not again for the backward; reduce-
 *    scattered after the backward chain, when its last gradient (the
 *    embedding's) is ready;
 *  - units: torchtitan (torchtitan/distributed/fsdp.py:238-267 at
 *    b5bcd76c): the embedding a unit of its own, resharded after the
 *    forward without a pipeline and gathered again for its backward
 *    (prefetched as layer 0's backward starts), the final norm and the
 *    output layer one that is not ("do not reshard_after_forward the last
 *    layers", gathered as the last layer starts); each reduced after its
 *    backward; tied weights one unit of the three, as flat but gathered
 *    at the embedding and reduced after its backward;
 *  - modules: DeepSpeed, every module gathered before its forward
 *    (fetch_sub_module; emit.c's DeepSpeed note above) and released after
 *    it unless the trace uses it again within stage3_max_reuse_distance
 *    (1e9 elements; partitioned_param_coordinator.py:524-554 at 38327e07):
 *    the head's backward follows its forward at once (kept), the
 *    embedding's comes a whole pass of twice the model's parameters
 *    later (gathered again before it); the gradients in the IPG buckets
 *    (ipg_end's root_bytes);
 *  - step: Megatron-FSDP (megatron-core.ini cites it), gathered in the
 *    step's first forward through them and kept (pipe.c op_begin keeps
 *    their gathers across the stage's ops), reduced as units' are.
 * Under plan_zero3_pp_gathered they stay gathered as the layers do, their
 * reductions after the chain (build_fsdp_reduce_after). */
static int end_piece(const fsdp_state *f, int e)
{
	return f->nends == 1 ? 0 : e - 1;
}

/* Does a task of end e gather its piece in this pass (f->dir)? (flat's
 * one gather is at the chain's start: ends_dep) */
static bool end_gathers(const builder *b, const fsdp_state *f, int e)
{
	int mode = b->s->fw.zero3_root;
	if (mode == PLAN_ZERO3_ROOT_MODULES) /* the head kept by its reuse */
		return f->dir > 0 || e == 1;
	if (mode == PLAN_ZERO3_ROOT_STEP) /* kept across the step's ops (pipe.c) */
		return f->dir > 0 && (f->nends == 2 || e == 1);
	if (mode != PLAN_ZERO3_ROOT_UNITS)
		return false;
	if (f->nends == 1) /* tied: one unit, kept after its forward */
		return e == 1 && f->dir > 0;
	return f->dir > 0 || (e == 1 && !f->kept); /* the head's is kept */
}

/* Is end e's piece reduced once its backward tasks are done? (flat's
 * after the chain) */
static bool end_reduces(const builder *b, const fsdp_state *f, int e)
{
	int mode = b->s->fw.zero3_root;
	return mode == PLAN_ZERO3_ROOT_MODULES ||
	       ((mode == PLAN_ZERO3_ROOT_UNITS || mode == PLAN_ZERO3_ROOT_STEP) &&
		(f->nends == 2 || e == 1));
}

static uint32_t end_gather(builder *b, fsdp_state *f, int stage, int p, uint32_t after)
{
	if (f->end_gather[p] == UINT32_MAX && f->end[p].param_bytes > 0)
		f->end_gather[p] = unit_gather(b, &f->end[p], stage, -1, after, f->secondary);
	return f->end_gather[p];
}

/* FSDP2's copy-out of gather g, a unit of `bytes` 16-bit parameters
 * ([framework] zero3_gather_copy = compute-stream): wait_for_unshard,
 * called as the unit's forward or backward starts, copies the gathered
 * flat buffer into each parameter with split_with_sizes_copy on the
 * current stream (torch 2.6.0 distributed/fsdp/_fully_shard/
 * _fsdp_param_group.py:271-306, _fsdp_collectives.py:235-290): a compute
 * task before the unit's first, once per gather (*done: the gather last
 * copied; a unit kept gathered across ops is copied once). What the chain
 * waits for instead of g. */
static uint32_t copy_out(builder *b, cursor *k, uint32_t g, uint32_t *done, double bytes,
			 int16_t layer)
{
	const plan_scenario *s = b->s;
	if (g == UINT32_MAX || s->fw.zero3_gather_copy != PLAN_GATHER_COPY_COMPUTE || *done == g)
		return g;
	double secs = plan_zero3_gather_copy_s(s, bytes / plan_zero3_gather_width(s));
	plan_task t = {sim_time_from_s(secs), k->stage, PLAN_STREAM_COMPUTE,
		       k->f->dir > 0 ? PLAN_TASK_FWD : PLAN_TASK_BWD, layer, k->mb, 0, 0, 0};
	*done = g;
	return plan_graph_add(b->g, &t, &g, 1);
}

/* The end gather seg i waits for (its copy-out, copy_out), or UINT32_MAX. */
static uint32_t ends_dep(builder *b, cursor *k, int i)
{
	fsdp_state *f = k->f;
	const seg *x = &k->c->v[i];
	if (f->nends == 0)
		return UINT32_MAX;
	int p = b->s->fw.zero3_root == PLAN_ZERO3_ROOT_FLAT ? 0 : end_piece(f, x->end);
	if (b->s->fw.zero3_root == PLAN_ZERO3_ROOT_FLAT ? !(f->dir > 0 && i == 0 && k->c->ends)
							: x->end == 0 || !end_gathers(b, f, x->end))
		return UINT32_MAX;
	return copy_out(b, k, end_gather(b, f, k->stage, p, k->prev), &f->end_copied[p],
			f->end[p].param_bytes + f->end[p].sep_param_bytes, -1);
}

/* Past the stage's last layer (forward) or first (backward): the end the
 * chain runs next, gathered now as a layer's successor would be. */
static void ends_prefetch(builder *b, cursor *k)
{
	fsdp_state *f = k->f;
	int e = f->dir > 0 ? 2 : 1;
	if (f->nends > 0 && b->s->fw.zero3_root != PLAN_ZERO3_ROOT_FLAT &&
	    (k->c->ends & (1u << e)) && end_gathers(b, f, e))
		end_gather(b, f, k->stage, end_piece(f, e), k->prev);
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

/* A backward chain that starts outside the layers (the head's backward on
 * the last stage, a gradient's receive on the others): its first layer's
 * gather issued as the chain starts, beside them. FSDP1's pre-backward hook
 * of the root prefetches the next handle in backward order
 * (_runtime_utils.py:682-686 in torch 2.14.1, BACKWARD_PRE), FSDP2 its
 * next unit in reverse forward order (torchtitan's lm_head prefetches the
 * last block explicitly under EP, fsdp.py:396-397 at b5bcd76c). */
static void backward_prefetch(builder *b, cursor *k)
{
	const chain *c = k->c;
	for (int j = 0; j < c->n; j++)
		if (c->v[j].layer >= 0 && !c->v[j].aside) {
			fsdp_gather(b, k->f, k->stage, c->v[j].layer, k->prev);
			return;
		}
}

/* What seg i waits for: deps[0] the chain's last link (a ring transfer the
 * one it forwards; a collective starting with the GEMM before it, the link
 * before that GEMM), deps[1] ZeRO-3's gather of a layer the chain enters
 * (issuing the next layer's as its prefetch) or the ring transfer a
 * compute step needs, deps[2] tp_comm_overlap's pending collective, deps[3]
 * overlap_param_gather's bucket (a layer's first forward of the step; the
 * chain's first task, the embedding, waits for its first layer's), deps[4]
 * the join a second pair displaced, deps[5] an end's gather (ends_dep; a
 * backward chain's first task also issues its first layer's gather,
 * backward_prefetch). Updates the cursor's layer, pending join and held
 * join. */
/* A CP exchange beside the attention steps (the ring's transfers, the
 * all-gather: cp_step >= 1); Ulysses' all-to-alls (cp_step 0) are links of
 * the chain. */
static bool cp_beside(const seg *x)
{
	return x->kind == PLAN_TASK_CP && x->cp_step > 0;
}

static void link_deps(builder *b, cursor *k, int i, uint32_t deps[6])
{
	const chain *c = k->c;
	const seg *x = &c->v[i];
	fsdp_state *f = k->f;
	deps[0] = k->prev;
	deps[1] = deps[2] = deps[3] = deps[4] = UINT32_MAX;
	deps[5] = f->on ? ends_dep(b, k, i) : UINT32_MAX;
	if (f->on && i == 0 && f->dir < 0 && x->layer < 0)
		backward_prefetch(b, k);
	if (f->on && x->layer >= 0 && x->layer != k->cur) {
		deps[1] = fsdp_gather(b, f, k->stage, x->layer, k->prev);
		const fsdp_unit *u = build_fsdp_unit(b, f, k->stage, x->layer);
		deps[1] = copy_out(b, k, deps[1], &f->copied[x->layer],
				   u->param_bytes + u->sep_param_bytes, x->layer);
		int next = x->layer + f->dir; /* the prefetch */
		if (next >= 0 && next < f->layers)
			fsdp_gather(b, f, k->stage, next, k->prev);
		else
			ends_prefetch(b, k);
		k->cur = x->layer;
	}
	if (k->pgather && x->ovl == 0) {
		int l = x->layer;
		for (int j = i; i == 0 && l < 0 && j < c->n; j++)
			l = c->v[j].layer;
		if (l >= 0 && l != k->pcur)
			deps[3] = k->pgather[l], k->pcur = l;
	}
	bool xfer = cp_beside(x);
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

/* A ZeRO-3 reduction of `bytes` of gradient after task `done` (what its
 * reduce-scatter waits for): the reduce-scatter over the shard group, with
 * hybrid sharding the shard's all-reduce over its replicas (every
 * micro-batch, or the last: hsdp_grad_reduce), both at the wire's bytes
 * (f->wire: plan_zero3_wire_bytes), FSDP's cast back and accumulation and
 * the shard's cast from the wire dtype (post_s), under offload_params the
 * shard's copy to the host;
 * in the micro-batch that completes the gradients its last task goes to
 * b->zdone for the optimizer step. When zdone is full (more buckets than
 * it holds) the newest replaces the last entry, which then carries both
 * shards: the DP stream runs them in order, so waiting for the newer is
 * waiting for both. */
static int reduce_after(builder *b, cursor *k, const net_group *grp, uint32_t done, double bytes,
			double post_s, int16_t layer);

static int reduce_tail(builder *b, cursor *k, const net_group *grp, uint32_t done, double bytes,
		       double post_s, int16_t layer)
{
	done = build_add_dp_on(b, grp, k->stage, NET_REDUCESCATTER, bytes * k->f->wire, &done, 1,
			       layer);
	if (done == UINT32_MAX)
		return SIM_ENOMEM;
	return reduce_after(b, k, grp, done, bytes, post_s, layer);
}

/* A memory-bound task of `secs` on the DP stream after *id, which becomes
 * it (nothing for 0). */
static int dp_pass(builder *b, cursor *k, double secs, int16_t layer, uint32_t *id)
{
	if (!(secs > 0))
		return SIM_OK;
	plan_task t = {sim_time_from_s(secs), k->stage, PLAN_STREAM_DP, PLAN_TASK_DP, layer, k->mb,
		       0, 0, 0};
	*id = plan_graph_add(b->g, &t, id, 1);
	return *id == UINT32_MAX ? SIM_ENOMEM : SIM_OK;
}

/* ZeRO++ qgZ's reduction of one 2-D gradient tensor of `bytes` after
 * `done` (plan.h plan_qgz_kernels_s): the int4 quantisation, the node's
 * all-to-alls of values and scales, the reduction over the node and
 * requantisation, the all-to-alls across the nodes, the dequantisation and
 * the sum over the nodes, on the DP stream; then what follows a
 * reduce-scatter (reduce_after). */
static int qgz_tensor(builder *b, cursor *k, uint32_t done, double bytes, double post_s,
		      int16_t layer)
{
	const plan_scenario *s = b->s;
	const net_group *lo = &b->qlocal, *gl = &b->qglobal;
	double e = bytes / k->f->gbytes, kt[3];
	double sc = plan_qgz_scale_bytes(e, b->dp.size), l = lo->size > 1 ? lo->size : 1;
	plan_qgz_kernels_s(s, e, lo->size, gl->size, kt);
	uint32_t id = done;
	if (dp_pass(b, k, kt[0], layer, &id) != SIM_OK ||
	    (id = build_add_dp_on(b, lo, k->stage, NET_ALLTOALL, e / 2, &id, 1, layer)) ==
		    UINT32_MAX ||
	    (id = build_add_dp_on(b, lo, k->stage, NET_ALLTOALL, sc, &id, 1, layer)) == UINT32_MAX ||
	    dp_pass(b, k, kt[1], layer, &id) != SIM_OK ||
	    (id = build_add_dp_on(b, gl, k->stage, NET_ALLTOALL, e / 2 / l, &id, 1, layer)) ==
		    UINT32_MAX ||
	    (id = build_add_dp_on(b, gl, k->stage, NET_ALLTOALL, sc / l, &id, 1, layer)) ==
		    UINT32_MAX ||
	    dp_pass(b, k, kt[2], layer, &id) != SIM_OK)
		return SIM_ENOMEM;
	return reduce_after(b, k, &b->shard, id, bytes, post_s, layer);
}

/* reduce_tail after its reduce-scatter `done` over grp: the replicas'
 * all-reduce, the casts and accumulation, the offload copy, and the step's
 * bookkeeping. */
static int reduce_after(builder *b, cursor *k, const net_group *grp, uint32_t done, double bytes,
			double post_s, int16_t layer)
{
	const plan_scenario *s = b->s;
	int stage = k->stage;
	bool last = k->layer_end != NULL;
	double wire = k->f->wire;
	k->f->rs_last = done;
	double shard = bytes / grp->size;
	if (grp == &b->shard && b->replica.size > 1 &&
	    (last || s->fw.hsdp_reduce == PLAN_REDUCE_MICROBATCH)) {
		done = build_add_dp_on(b, &b->replica, stage, NET_ALLREDUCE, shard * wire, &done,
				       1, layer);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	if (post_s > 0) { /* FSDP's cast back and accumulation, after it */
		plan_task pt = {sim_time_from_s(post_s), stage, PLAN_STREAM_DP, PLAN_TASK_DP, layer,
				k->mb, 0, 0, 0};
		done = plan_graph_add(b->g, &pt, &done, 1);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	bool off = s->plan.offload_params != PLAN_OFFLOAD_NONE;
	if (off && (done = build_add_copy(b, stage, shard, false, &done, 1, layer)) == UINT32_MAX)
		return SIM_ENOMEM;
	if (last && b->zdone && b->zcap > 0) {
		if (b->nzdone == b->zcap) {
			b->zdone[b->zcap - 1] = done;
			b->zshard[b->zcap - 1] += off ? 0 : shard;
		} else {
			b->zdone[b->nzdone] = done;
			b->zshard[b->nzdone++] = off ? 0 : shard;
		}
	}
	return SIM_OK;
}

/* DeepSpeed ZeRO-3's gradient reduction ([framework] zero3_reduce = bucket;
 * DeepSpeed 0.16.5, microsoft/DeepSpeed 38327e07, deepspeed/runtime/): every
 * parameter's gradient hook (zero/stage3.py:1161-1190) calls
 * reduce_independent_p_g_buckets_and_remove_grads (:1258-1271): when the
 * tensor would take the open IPG bucket past reduce_bucket_size elements
 * (zero/config.py:109, 5e8; [framework] grad_bucket, [parallel]
 * bucket_size; Hugging Face's "auto" is h^2) and the bucket holds
 * something, the bucket is reduced first; then the tensor joins it, copied
 * into the bucket's flat buffer on the reduce stream when it fits
 * (contiguous_gradients, zero/config.py:98, default true; stage3.py:
 * 1279-1288). A bucket's reduction (__reduce_and_partition_ipg_grads,
 * :1294-1328, on the reduce stream) runs reduce_scatter_coalesced
 * (comm/coalesced_collectives.py:158-218): the bucket's tensors cut into one
 * slice per rank in Python (:170-175), interleaved and concatenated into one
 * buffer unless the bucket is one tensor the group divides (:179-199),
 * divided in place (:201), one reduce-scatter (:205-207); each rank's shard
 * is then copied, or added on later micro-batches, into its gradient
 * partition (partition_grads, stage3.py:1466-1527; 1/n of the bytes, not
 * charged). After every micro-batch's backward the engine's epilogue
 * (engine.py:2051-2053) reduces the bucket left open and synchronises the
 * reduce stream (stage3.py:1131-1136). The communication dtype is the
 * model's unless configured (engine.py:938-950; grad_wire_dtype = params:
 * no casts); the bucket's wire bytes and any casts are
 * plan_zero3_wire_bytes' and plan_zero3_cast_bytes' (framework.c).
 *
 * Modelled: a layer's gradient is its unit's pieces' tensors (its gathered
 * modules at their sizes, plan_zero3_layer; last module first) carrying its tensors
 * parameter tensors
 * (its norms and biases too), added at the end of the layer's backward; the
 * root unit's (embedding, output layer) at the end of the chain. Per bucket
 * on the DP stream: one memory-bound task of the copy (2 e per element that
 * fitted: read and write), the concatenation (2 e per element, when the
 * bucket holds more than one tensor) and the division (2 e), then
 * reduce_tail's reduce-scatter. The host's per-rank slicing, zero3_rank_op
 * per shard rank and tensor (tools/measured/zero3-host), runs on the thread
 * that issues the backward's kernels, inside the hook: the GPU runs the
 * kernels the host had queued meanwhile. The host's lead is counted as the
 * GPU time of the chain's compute tasks beyond their own host time since
 * the last such stall (host_exposed; the task's max(gpu, cpu) keeps no
 * lead of its own); what the lead does not cover is owed to the next
 * compute task (its cpu time), and after the chain to a host task before
 * the last bucket's reduction. The host's syncs on the reduce stream (at
 * most 2 reductions in flight, stage3.py:1305-1308) and on the all-gather
 * stream (partitioned_param_coordinator.py:329-332) wait for collectives
 * issued three steps earlier and are taken not to cap the lead. Approximated:
 * a bucket that fills inside a layer is reduced at the layer's end; an
 * untied output layer's gradient, which comes first, joins at the end with
 * the embedding's; the padding of tensors the group does not divide (a
 * torch.empty per rank, measured at 0.9 us more per rank and tensor) is
 * not modelled. */
/* ZeRO++ qgZ's reduction of a bucket of `bytes` gradient, `elems`
 * elements, holding `mats` 2-D and `vecs` 1-D tensors (plan.h
 * plan_qgz_kernels_s, plan_qgz_split): its 1-D tensors (norms, biases) each
 * reduce-scattered over the shard group at a hidden size's bytes, then its
 * 2-D tensors, equal shares of the rest, each by qgz_tensor, those the
 * world does not divide (plan_qgz_quant_share) reduce-scattered. */
static int qgz_bucket(builder *b, cursor *k, uint32_t done, double bytes, double mats,
		      double vecs, double elems, int16_t layer)
{
	int nm, nq, nv;
	double vec, mat;
	plan_qgz_split(b->s, bytes, mats, vecs, k->f->gbytes, &nm, &nq, &nv, &vec, &mat);
	double cast = plan_zero3_cast_s(b->s, elems / b->shard.size / (nm + nv), true);
	for (int i = 0; i < nv; i++)
		if (reduce_tail(b, k, &b->shard, done, vec, cast, layer) != SIM_OK)
			return SIM_ENOMEM;
	for (int i = 0; i < nm; i++)
		if ((i < nq ? qgz_tensor(b, k, done, mat, cast, layer)
			    : reduce_tail(b, k, &b->shard, done, mat, cast, layer)) != SIM_OK)
			return SIM_ENOMEM;
	return SIM_OK;
}

static int ipg_flush(builder *b, cursor *k, uint32_t dep, int16_t layer)
{
	fsdp_state *f = k->f;
	if (!(f->ipg_bytes > 0))
		return SIM_OK;
	double elems = f->ipg_bytes / f->gbytes; /* the casts to and from the wire
						   * dtype (plan_zero3_cast_bytes) */
	double bytes = 2.0 * f->ipg_fit + 2.0 * f->ipg_bytes +
		       (f->ipg_tensors > 1 ? 2.0 * f->ipg_bytes : 0) +
		       elems * plan_zero3_cast_bytes(b->s, false);
	plan_task pass = {sim_time_from_s(hw_mem_time(&b->s->gpu, bytes)), k->stage,
			  PLAN_STREAM_DP, PLAN_TASK_DP, layer, k->mb, 0, 0, 0};
	uint32_t done = plan_graph_add(b->g, &pass, &dep, 1);
	if (done == UINT32_MAX)
		return SIM_ENOMEM;
	double n = f->ipg_bytes, mats = f->ipg_mats, vecs = f->ipg_vecs;
	int calls = plan_zero3_reduce_calls(b->s, f->ipg_tensors); /* per tensor: DeepSpeed 2021 */
	f->ipg_bytes = f->ipg_fit = f->ipg_tensors = f->ipg_mats = f->ipg_vecs = 0;
	if (b->qglobal.size > 1)
		return qgz_bucket(b, k, done, n, mats, vecs, elems, layer);
	for (int i = 0; i < calls; i++)
		if (reduce_tail(b, k, &b->shard, done, n / calls,
				plan_zero3_cast_s(b->s, elems / b->shard.size / calls, true),
				layer) != SIM_OK)
			return SIM_ENOMEM;
	return SIM_OK;
}

/* A tensor of `bytes` gradient carrying `tensors` parameter tensors joins
 * the bucket after task `dep`, the bucket reduced first when it would
 * overflow (its host time owed to the next compute task). */
static int ipg_add(builder *b, cursor *k, double bytes, double tensors, double mats,
		   double vecs, uint32_t dep, int16_t layer)
{
	fsdp_state *f = k->f;
	if (f->ipg_bytes > 0 && f->ipg_bytes + bytes > f->bucket_bytes) {
		k->f->carry = sim_time_add_sat(
			f->carry, sim_time_from_s(f->ipg_tensors * f->tensor_host_s));
		if (ipg_flush(b, k, dep, layer) != SIM_OK)
			return SIM_ENOMEM;
	}
	if (f->ipg_bytes + bytes <= f->bucket_bytes)
		f->ipg_fit += bytes;
	f->ipg_bytes += bytes;
	f->ipg_tensors += tensors;
	f->ipg_mats += mats, f->ipg_vecs += vecs;
	return SIM_OK;
}

/* The host time owed (f->carry) that the GPU does not hide: what exceeds the
 * host's lead, the GPU time of the chain's compute tasks beyond their host
 * time since the last payment (f->lead; the kernels the host had queued
 * before the hook ran). Pays it: both drop by the hidden part. */
static sim_time host_exposed(fsdp_state *f)
{
	sim_time c = f->carry, hid = c < f->lead ? c : f->lead;
	f->carry = 0;
	f->lead -= hid;
	return c - hid;
}

/* The end of a backward chain under zero3_reduce = bucket: the root unit's
 * gradients join the bucket, the host time still owed (and the last
 * bucket's slicing) runs as a host task on the compute stream, the
 * epilogue's reduction of the last bucket after it. Once per chain. */
static int ipg_end(builder *b, cursor *k)
{
	fsdp_state *f = k->f;
	if (f->root_bytes > 0) {
		double r = f->root_bytes;
		f->root_bytes = 0;
		if (ipg_add(b, k, r, f->root_tensors, f->root_mats, f->root_vecs, k->prev, -1) !=
		    SIM_OK)
			return SIM_ENOMEM;
	}
	f->carry = sim_time_add_sat(f->carry, sim_time_from_s(f->ipg_tensors * f->tensor_host_s));
	sim_time host = host_exposed(f);
	uint32_t dep = k->prev;
	if (host > 0 && f->ipg_bytes > 0) {
		plan_task t = {host, k->stage, PLAN_STREAM_COMPUTE, PLAN_TASK_BWD, -1, k->mb,
			       0, 0, 0};
		dep = plan_graph_add(b->g, &t, &k->prev, 1);
		if (dep == UINT32_MAX)
			return SIM_ENOMEM;
		k->before = k->prev;
		k->prev = k->tail = dep;
	}
	return ipg_flush(b, k, dep, -1);
}

/* The host's work where a chain enters a ZeRO-3 layer x->layer: issuing its
 * gathers (its unit's gather_host_s: plan_zero3_gather_host_s, the per-rank loops of
 * DeepSpeed before 2021-10). Without zero3_sync it is owed to the next
 * compute tasks like a bucket's slicing (host_exposed: hidden behind the
 * GPU work queued ahead). With it the host first synchronises the device,
 * as DeepSpeed 0.3.13-0.5.x does (microsoft/DeepSpeed 112ebff6e, 2021-04-08,
 * deepspeed/runtime/zero/): every submodule's pre-forward and pre-backward
 * hook fetches its parameters and, when any were gathered or in flight,
 * waits for the gather handles, the gather stream and torch.cuda.synchronize()
 * (stage3.py:357-406, 483-491), which waits for every stream, the gradient
 * reductions' too; then it prefetches the next modules' parameters
 * (:312-324), each through _allgather_param, which calls
 * torch.cuda.synchronize() again and builds the per-rank list
 * (partition_parameters.py:610-650), before the module's own kernels are
 * issued. So the GPU is idle while the host issues the gathers, and what
 * the gradient hooks still owe is paid there too: a host task on the
 * compute stream after the chain's last link, this layer's gather and the
 * last reduction, that the layer's first task follows; the host's lead
 * starts again from nothing. Approximated per layer (DeepSpeed syncs per
 * module): the next layer's gather is issued with it, as link_deps's
 * prefetch does. The sync's own cost (a cudaDeviceSynchronize on an idle
 * device) is not charged. */
static int zero3_entry(builder *b, cursor *k, const seg *x)
{
	fsdp_state *f = k->f;
	sim_time h = sim_time_from_s(build_fsdp_unit(b, f, k->stage, x->layer)->gather_host_s);
	if (!f->sync) {
		f->carry = sim_time_add_sat(f->carry, h);
		return SIM_OK;
	}
	uint32_t deps[3] = {k->prev, fsdp_gather(b, f, k->stage, x->layer, k->prev), f->rs_last};
	fsdp_gather(b, f, k->stage, x->layer + f->dir, k->prev);
	h = sim_time_add_sat(h, host_exposed(f));
	f->lead = 0;
	if (h <= 0)
		return SIM_OK;
	plan_task t = {h, k->stage, PLAN_STREAM_COMPUTE, f->dir > 0 ? PLAN_TASK_FWD : PLAN_TASK_BWD,
		       x->layer, k->mb, 0, 0, 0};
	uint32_t id = plan_graph_add(b->g, &t, deps, 3);
	if (id == UINT32_MAX)
		return SIM_ENOMEM;
	if (k->first == UINT32_MAX)
		k->first = id;
	k->before = k->prev;
	k->prev = k->tail = id;
	return SIM_OK;
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
static int fsdp_layer_reduce(builder *b, cursor *k, int16_t layer, uint32_t id);

static int fsdp_layer_grads(builder *b, cursor *k, const seg *x, uint32_t id)
{
	fsdp_state *f = k->f;
	const plan_scenario *s = b->s;
	int stage = k->stage;
	const fsdp_unit *u = build_fsdp_unit(b, f, stage, x->layer);
	bool last = k->layer_end != NULL; /* completes the gradients */
	bool nosync = plan_zero3_unsharded_acc(s);
	if (u->flat_s > 0) {
		plan_task cat = {sim_time_from_s(u->flat_s), stage, PLAN_STREAM_COMPUTE,
				 x->kind == PLAN_TASK_WGRAD ? PLAN_TASK_WGRAD : PLAN_TASK_BWD,
				 x->layer, k->mb, 0, 0, 0};
		id = plan_graph_add(b->g, &cat, &id, 1);
		if (id == UINT32_MAX)
			return SIM_ENOMEM;
		if (k->layer_end)
			k->layer_end[x->layer] = id;
		k->prev = k->tail = id;
	}
	if (nosync && !last)
		return SIM_OK; /* accumulated unsharded, reduced at the last */
	if (f->bucket) { /* DeepSpeed's IPG buckets (ipg_flush) */
		for (int i = u->pieces - 1; i >= 0; i--) /* last module first */
			if (ipg_add(b, k, u->grad_bytes * u->grad_frac[i], u->tensors / u->pieces,
				    u->mats / u->pieces, u->vecs / u->pieces, id, x->layer) != SIM_OK)
				return SIM_ENOMEM;
		return SIM_OK;
	}
	if (f->kept && f->npend < f->layers + 2) { /* after the chain (build_fsdp_reduce_after) */
		f->pend[f->npend++] = x->layer;
		return SIM_OK;
	}
	return fsdp_layer_reduce(b, k, x->layer, id);
}

/* A layer's reduction (fsdp_layer_grads) after task id: FSDP1's passes and
 * the cast to the wire on the DP stream, the reduce-scatter (reduce_tail),
 * then the routed experts' own unit. */
static int unit_reduce(builder *b, cursor *k, const fsdp_unit *u, int16_t layer, uint32_t id)
{
	int stage = k->stage;
	bool nosync = plan_zero3_unsharded_acc(b->s);
	int later = k->mb > 0 && !nosync;
	uint32_t done = id;
	if (u->pass_s + u->pre_s > 0) { /* FSDP1's passes, the cast to the wire */
		plan_task pass = {sim_time_from_s(u->pass_s + u->pre_s), stage, PLAN_STREAM_DP,
				  PLAN_TASK_DP, layer, k->mb, 0, 0, 0};
		done = plan_graph_add(b->g, &pass, &id, 1);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	if (reduce_tail(b, k, &b->shard, done, u->grad_bytes, u->post_s[later], layer) !=
	    SIM_OK)
		return SIM_ENOMEM;
	if (!(u->sep_grad_bytes > 0))
		return SIM_OK;
	/* the routed experts' own unit over the expert-DP group, after the
	 * layer's (its hook runs when the experts' backward ends, before the
	 * block's; one DP stream: the order of the two does not change when
	 * both end) */
	done = id;
	if (u->sep_pre_s > 0) {
		plan_task pass = {sim_time_from_s(u->sep_pre_s), stage, PLAN_STREAM_DP,
				  PLAN_TASK_DP, layer, k->mb, 0, 0, 0};
		done = plan_graph_add(b->g, &pass, &id, 1);
		if (done == UINT32_MAX)
			return SIM_ENOMEM;
	}
	return reduce_tail(b, k, &b->edp, done, u->sep_grad_bytes, u->sep_post_s[later],
			   layer);
}

static int fsdp_layer_reduce(builder *b, cursor *k, int16_t layer, uint32_t id)
{
	return unit_reduce(b, k, build_fsdp_unit(b, k->f, k->stage, layer), layer, id);
}

/* End piece p's gradients after task id (the ends, above): FSDP1's flat
 * gradient pass on the compute stream, then as a layer's (fsdp_layer_grads),
 * nothing under DeepSpeed's buckets, which take them at the chain's end. */
static int end_grads(builder *b, cursor *k, int p, uint32_t id)
{
	fsdp_state *f = k->f;
	const fsdp_unit *u = &f->end[p];
	bool last = k->layer_end != NULL; /* completes the gradients */
	if (!(u->grad_bytes > 0) || f->bucket)
		return SIM_OK;
	if (u->flat_s > 0) {
		plan_task cat = {sim_time_from_s(u->flat_s), k->stage, PLAN_STREAM_COMPUTE,
				 PLAN_TASK_BWD, -1, k->mb, 0, 0, 0};
		id = plan_graph_add(b->g, &cat, &id, 1);
		if (id == UINT32_MAX)
			return SIM_ENOMEM;
		k->prev = k->tail = id;
	}
	if (plan_zero3_unsharded_acc(b->s) && !last)
		return SIM_OK; /* accumulated unsharded, reduced at the last */
	if (f->kept && f->npend < f->layers + 2) {
		f->pend[f->npend++] = (int16_t)(-1 - p);
		return SIM_OK;
	}
	return unit_reduce(b, k, u, -1, id);
}

/* Under plan_zero3_pp_gathered the chunk's reductions wait for its last
 * backward chain to end (torch pipelining's REDUCE_GRAD after the chunk's
 * m-th backward: every FSDP parameter group's post_backward, one
 * reduce-scatter each), in the order the layers completed; under a
 * single-stage schedule (fsdp_state.defer) for that backward's send too
 * (build_fsdp_reduce_after). */
int build_fsdp_reduce_after(builder *b, cursor *k, uint32_t end)
{
	fsdp_state *f = k->f;
	for (int i = 0; i < f->npend; i++)
		if ((f->pend[i] >= 0 ? fsdp_layer_reduce(b, k, f->pend[i], end)
				     : unit_reduce(b, k, &f->end[-1 - f->pend[i]], -1, end)) != SIM_OK)
			return SIM_ENOMEM;
	f->npend = 0;
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
		if (k->f->on && x->layer >= 0 && x->layer != k->cur && !x->aside &&
		    (k->f->host_gathers || k->f->sync) && zero3_entry(b, k, x) != SIM_OK)
			return SIM_ENOMEM;
		plan_task t = {x->dur, k->stage, seg_stream(x->kind), x->kind, x->layer, k->mb,
			       x->scaleup, x->nic, x->uplink};
		if ((k->f->bucket || k->f->host_gathers) && t.stream == PLAN_STREAM_COMPUTE) {
			/* the host time a bucket's reduction left (ipg_add), less
			 * the host's lead */
			sim_time cpu = sim_time_add_sat(x->cpu, host_exposed(k->f));
			t.dur = x->gpu > cpu ? x->gpu : cpu;
			k->f->lead = sim_time_add_sat(k->f->lead, x->gpu > cpu ? x->gpu - cpu : 0);
		}
		if (x->aside) {
			if (emit_aside(b, k, x, &t) != SIM_OK)
				return SIM_ENOMEM;
			continue;
		}
		uint32_t deps[6];
		link_deps(b, k, i, deps);
		uint32_t id = build_add_net(b->g, &t, deps, 6, x->net_s, x->net_nodes);
		if (id == UINT32_MAX || set_deep(b, id, x) != SIM_OK ||
		    (x->quiet && plan_graph_set_quiet(b->g, id) != SIM_OK) ||
		    (x->scale > 0 && x->scale != 1 &&
		     plan_graph_set_scale(b->g, id, x->scale) != SIM_OK))
			return SIM_ENOMEM;
		if (k->first == UINT32_MAX)
			k->first = id;
		if (cp_beside(x) || x->ovl != 0) {
			note_side(k, x, id);
			continue;
		}
		note_link(b, k, x, id);
		bool layer_done = i + 1 == c->n || c->v[i + 1].layer != x->layer;
		if (k->f->on && k->f->dir < 0 && x->layer >= 0 && layer_done &&
		    fsdp_layer_grads(b, k, x, id) != SIM_OK)
			return SIM_ENOMEM;
		bool end_done = x->end && (i + 1 == c->n || c->v[i + 1].end != x->end);
		if (k->f->nends > 0 && k->f->dir < 0 && end_done && end_reduces(b, k->f, x->end) &&
		    end_grads(b, k, end_piece(k->f, x->end), id) != SIM_OK)
			return SIM_ENOMEM;
	}
	if (k->i == c->n && k->f->nends > 0 && k->f->dir < 0 && c->ends && !k->ends_done &&
	    b->s->fw.zero3_root == PLAN_ZERO3_ROOT_FLAT) { /* flat's root, after the chain */
		k->ends_done = true;
		if (end_grads(b, k, 0, k->prev) != SIM_OK)
			return SIM_ENOMEM;
	}
	if (k->i == c->n && k->f->on && k->f->bucket && k->f->dir < 0 && !k->f->ended) {
		k->f->ended = true;
		if (!(plan_zero3_unsharded_acc(b->s) && !k->layer_end))
			return ipg_end(b, k);
	}
	if (k->i == c->n && k->f->on && k->f->npend > 0 && !k->f->defer)
		return build_fsdp_reduce_after(b, k, k->prev);
	return SIM_OK;
}
