/* chain.c - a stage's chains: per model chunk the forward, backward and
 * zero-bubble W chains of segs (build_int.h) that the cursors of emit.c
 * place in the graph. Layer programs (work.h) become segs here: kernels
 * merged into compute tasks, collectives timed (append_items); MTP modules
 * as layers of the last chunk; the backward's order under moe_a2a_overlap
 * and delay_wgrad_compute (append_backward).
 */
#include "build_int.h"

#include <stdlib.h>
#include <string.h>

static void chain_push(chain *c, seg x)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		seg *v = realloc(c->v, (size_t)cap * sizeof *v);
		if (!v) {
			c->oom = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = x;
}

/* Mark the segs from index `from` on as ZeRO-3's end e (seg.end). */
static void mark_end(chain *c, int from, uint8_t e)
{
	for (int i = from; i < c->n; i++)
		c->v[i].end = e;
	if (c->n > from)
		c->ends |= (uint8_t)(1u << e);
}

/* The seg of collective it[i] of a program of n items, on its group (CP's
 * ring, EP, or TP): its time, lengthened by one GEMM chunk when
 * tp_comm_overlap runs it beside a GEMM it is not hidden under (see
 * plan_tp_overlap), its bytes on the scale-up links and its NIC share, the
 * seconds that vary with the fabric (build_comm_net_s), an all-to-all's
 * side (dispatch or combine) and, when builder.latency asks, its latency
 * (its time at one byte). */
static seg comm_seg(builder *b, const work_item *it, int n, int i, int16_t layer, int16_t unit)
{
	bool ring = work_comm_on_cp(it[i].comm), cpg = work_comm_cp_group(it[i].comm);
	bool ep = work_comm_on_ep(it[i].comm);
	const net_group *grp = cpg ? &b->cp : ep ? &b->ep : &b->tp;
	net_coll coll = plan_comm_coll(it[i].comm);
	net_cost cost;
	if (build_comm_cost(b, coll, grp, it[i].comm_bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	double net_s = build_comm_net_s(b, grp, cost.time_s);
	int ovl = plan_tp_overlap(b->s, it, n, i);
	if (ovl != 0 && !plan_tp_beside(b->s, it, n, i)) {
		/* a chunked pair: one GEMM chunk longer (its GEMM on the SMs the
		 * pipeline's margin leaves) */
		double gs = plan_ub_gemm_time(b->s, b->sh.dtype, it, n, i + ovl) -
			    b->s->gpu.framework_s;
		net_cost wire = cost;
		cost.time_s += plan_ub_chunk(b->s, it, n, i, gs);
		plan_netflow_alias(b->flow, &wire, cost.time_s);
	}
	seg x = {.dur = sim_time_from_s(cost.time_s),
		 .kind = cpg ? PLAN_TASK_CP : ep ? PLAN_TASK_EP : PLAN_TASK_TP,
		 .layer = layer,
		 .scaleup = (float)cost.intra_bytes,
		 .nic = build_nic_share(&b->s->cluster, cost.inter_bytes),
		 .uplink = (float)cost.fabric_bytes,
		 .cp_step = it[i].cp_step,
		 .ovl = ovl,
		 .net_s = net_s,
		 .net_nodes = grp->nodes,
		 .unit = unit,
		 .quiet = plan_ub_kind(b->s, it, n, i) != PLAN_UB_NONE,
		 /* a CP ring's transfers are NCCL send/receive on its p2p
		  * channels, which are not modelled (plan_graph.sm_scale) */
		 .scale = ring ? 1.0f : (float)plan_comm_scale(b->s, grp, cost.algo)};
	if (ep && it[i].comm == WORK_COMM_EP_ALLTOALL)
		x.a2a = build_named(&it[i], "ep_combine") ? 2 : 1;
	net_cost one;
	if (b->latency && net_collective(&b->s->cluster, coll, grp, 1.0, &one) == SIM_OK)
		x.lat = sim_time_from_s(one.time_s);
	return x;
}

/* Kernel it[i] of a program of n items, merged into the chain's open compute
 * task of kind `kind` (a new one when none is open, when the kernel is a
 * GEMM beside an overlapped collective, which is a task of its own and
 * closes it, or when it starts a ring-attention step). The host issues
 * kernels asynchronously: each costs it the launch plus the framework's
 * per-op overhead, while the GPU runs them back to back, so a run of kernels
 * between two collectives takes max(GPU time, host time) (a CPU-bound run
 * when kernels are tiny and the framework eager). hw's kernel times include
 * launch and framework overhead as a serial cost; on the GPU side the
 * launch stays (the gap between kernels), the framework part moves to the
 * host. With no framework overhead this is the serial sum. The host time of
 * collectives issued since the last compute task (chain.carry) is charged
 * here. Returns false on out of memory. */
static bool append_kernel(builder *b, chain *c, const work_item *it, int n, int i, uint8_t kind,
			  int16_t layer, int16_t unit, bool *open)
{
	const hw_gpu *gpu = &b->s->gpu;
	/* a GEMM beside a userbuffer overlap's SMs on the SMs they leave */
	double k = plan_ub_gemm_time(b->s, b->sh.dtype, it, n, i);
	int nk = it[i].launches > 1 ? it[i].launches : 1; /* kernels it stands for */
	double fs = plan_item_framework_s(gpu, &it[i]);
	sim_time g = sim_time_from_s(k - nk * fs);
	sim_time gh = b->held > 0 ? sim_time_from_s(build_kernel_time_held(gpu, b->sh.dtype, &it[i],
									   b->held, b->share) -
						    nk * fs)
				  : g;
	sim_time h = sim_time_from_s(nk * (gpu->launch_s + fs));
	/* a GEMM beside an overlapped collective: a task of its own */
	bool alone = (i >= 1 && plan_tp_overlap(b->s, it, n, i - 1) == 1) ||
		     (i + 1 < n && plan_tp_overlap(b->s, it, n, i + 1) == -1);
	if (!*open || alone || c->n == 0 || it[i].cp_step > 0) {
		chain_push(c, (seg){.kind = kind, .layer = layer, .cp_step = it[i].cp_step,
				    .unit = unit});
		*open = true;
		if (c->oom)
			return false;
	}
	seg *x = &c->v[c->n - 1];
	if (x->kind == PLAN_TASK_CP) { /* the ring step is a new compute task */
		chain_push(c, (seg){.kind = kind, .layer = layer, .unit = unit});
		if (c->oom)
			return false;
		x = &c->v[c->n - 1];
	}
	/* saturating: a duration past the clock is reported by plan_graph_add,
	 * not wrapped */
	x->gpu = sim_time_add_sat(x->gpu, g);
	x->held = sim_time_add_sat(x->held, gh);
	x->launches += nk;
	x->cpu = sim_time_add_sat(x->cpu, sim_time_add_sat(h, c->carry));
	c->carry = 0;
	x->dur = x->gpu > x->cpu ? x->gpu : x->cpu;
	x->flops += it[i].flops;
	if (alone) /* the kernels after the pair wait for the collective too */
		*open = false;
	return true;
}

/* Append a program of work items to chain c: kernels merge into the open
 * compute task of kind `kind` (append_kernel); each TP or EP collective
 * closes it and adds a task of its own (comm_seg), a CP ring transfer runs
 * beside it. With tp_comm_overlap a GEMM overlapped with its collective is a
 * compute task of its own (plan_tp_overlap). Under [framework] comm_host_op
 * the host issues each collective too, one framework operation charged to
 * the compute task after it (chain.carry). */
static void append_items(builder *b, chain *c, const work_item *it, int n, uint8_t kind,
			 int16_t layer)
{
	bool open = false;
	int16_t unit = b->unit >= 0 ? b->unit : layer; /* seg.unit */
	const hw_gpu *gpu = &b->s->gpu;
	for (int i = 0; i < n; i++) {
		if (it[i].kind != WORK_ITEM_COMM) {
			if (!append_kernel(b, c, it, n, i, kind, layer, unit, &open))
				return;
			continue;
		}
		chain_push(c, comm_seg(b, it, n, i, layer, unit));
		if (b->s->fw.comm_host_op)
			c->carry = sim_time_add_sat(c->carry,
						    sim_time_from_s(gpu->launch_s + gpu->framework_s));
		if (!work_comm_on_cp(it[i].comm)) /* a TP collective blocks; a ring
						      * transfer overlaps */
			open = false;
	}
}

/* Zero-bubble split of a backward program: the weight-gradient GEMMs (W: named
 * "*_wgrad", except the attention core's, which are activation gradients) move
 * to w[], the rest (B) stays in order in it[]. Returns B's count. */
static int split_weight_grads(work_item *it, int n, work_item *w, int *nw)
{
	int nb = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(it[i].name);
		bool wgrad = it[i].kind == WORK_ITEM_KERNEL && len > 6 &&
			     !strcmp(it[i].name + len - 6, "_wgrad") &&
			     strncmp(it[i].name, "attn", 4) != 0;
		if (wgrad)
			w[(*nw)++] = it[i];
		else
			it[nb++] = it[i];
	}
	return nb;
}

/* One layer kind's programs (dense, or MoE): forward, backward (B with the
 * zero-bubble split), weight passes W, and what selective recomputation
 * re-runs (work_recompute_items: by default the attention core, "attn"
 * (flash) or "attn_qk", "attn_softmax", ...; with CP the ring's transfers
 * too; [parallel] recompute_modules). */
typedef struct layer_prog {
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS], w[WORK_MAX_ITEMS], core[WORK_MAX_ITEMS];
	int nf, nb, nw, nc;
} layer_prog;

static void make_layer_prog(const builder *b, int layer, layer_prog *lp)
{
	const work_model *m = &b->s->model;
	lp->nf = work_layer_forward_at(m, &b->sh, layer, lp->f);
	lp->nb = work_layer_backward_at(m, &b->sh, layer, lp->b);
	lp->nw = lp->nc = 0;
	if (b->zb)
		lp->nb = split_weight_grads(lp->b, lp->nb, lp->w, &lp->nw);
	lp->nc = work_recompute_items(m, layer, lp->f, lp->nf, b->sh.recompute_modules, lp->core);
}

/* Append n items of src to a program of *n0 items (their sum fits: the
 * same items work_mtp_forward and work_mtp_backward hold). */
static void prog_cat(work_item *dst, int *n0, const work_item *src, int n)
{
	memcpy(dst + *n0, src, (size_t)n * sizeof *src);
	*n0 += n;
}

/* A multi-token prediction module (work/mtp.c) as the layer Megatron-Core
 * makes it, the last layer of the last chunk: f its norms, concatenation and
 * eh_proj and then its transformer layer (what full recomputation re-runs:
 * MultiTokenPredictionLayer.forward checkpoints _proj_and_transformer_layer,
 * not the embedding before it, megatron/core/transformer/
 * multi_token_prediction.py:1696-1736 at NVIDIA/Megatron-LM d98e8a64), b
 * their backward and the embedding's, core what selective recomputation
 * re-runs of the layer (its TransformerLayer has the model's config, so the
 * same recompute_modules). The embedding's forward goes before f
 * (build_stage_chains); the module's final norm, logits and loss are the head's
 * items, which Megatron-Core computes in the model's post-process
 * (GPTModel._postprocess, models/gpt/gpt_model.py:665-746 at d98e8a64,
 * :468-508 at 23e00ed096; the schedule's mtp_post_process node holds only
 * the module's final norm, multi_token_prediction.py:1433-1445,
 * models/common/fine_grained_callables.py:101-107: the norm is counted with
 * the logits here). */
static void make_mtp_prog(const builder *b, layer_prog *lp)
{
	const work_model *m = &b->s->model;
	int g = m->layers - 1;
	work_item x[WORK_MAX_ITEMS];
	lp->nf = lp->nb = lp->nw = 0;
	prog_cat(lp->f, &lp->nf, x, work_mtp_proj(m, &b->sh, false, x));
	int nl = work_layer_forward_at(m, &b->sh, g, x);
	prog_cat(lp->f, &lp->nf, x, nl);
	lp->nc = work_recompute_items(m, g, x, nl, b->sh.recompute_modules, lp->core);
	prog_cat(lp->b, &lp->nb, x, work_layer_backward_at(m, &b->sh, g, x));
	prog_cat(lp->b, &lp->nb, x, work_mtp_proj(m, &b->sh, true, x));
	prog_cat(lp->b, &lp->nb, x, work_mtp_embed(m, &b->sh, true, x));
	if (b->zb)
		lp->nb = split_weight_grads(lp->b, lp->nb, lp->w, &lp->nw);
}

/* The receiver's side of a scatter-gather pipeline transfer (plan_p2p_bytes):
 * the TP group all-gathers the slices its ranks received, a blocking TP
 * collective before the chain's first compute task. */
static void append_p2p_gather(builder *b, chain *c)
{
	double bytes;
	plan_p2p_bytes(b->s, &bytes);
	if (bytes <= 0)
		return;
	work_item ag = {.kind = WORK_ITEM_COMM, .comm = WORK_COMM_ALLGATHER, .comm_bytes = bytes};
	append_items(b, c, &ag, 1, PLAN_TASK_TP, -1);
}

/* The gradient accumulation task of [framework] grad_accum = kernel
 * (plan_grad_accum_item, grads.c, derives it) after a micro-batch's backward
 * of chunk `chunk`. It closes the chain
 * that completes the gradients (the backward, or W under ZB-H1); the DP
 * buckets, which wait for their layers' last task, may start before it. */
static void append_grad_accum(builder *b, chain *c, int stage, int chunk)
{
	work_item it;
	if (plan_grad_accum_item(b->s, stage, chunk, &it))
		append_items(b, c, &it, 1, b->zb ? PLAN_TASK_WGRAD : PLAN_TASK_BWD, -1);
}

/* delay_wgrad_compute: the weight-gradient GEMMs Transformer Engine defers
 * (TransformerLayerNode.backward_dw runs the node's bwd_dw_callables:
 * the experts' grouped linears for the "mlp" node, the attention's QKV and
 * output projections and the shared experts for "pre_dispatch_computation",
 * megatron/core/models/gpt/fine_grained_callables.py:272 and
 * models/common/utils.py:379-421 at NVIDIA/Megatron-LM d98e8a64; a dense
 * layer's MLP, transformer/mlp.py:385). The router's GEMM is a plain
 * matmul with its gradient in the backward; the attention core has no
 * weights (split_weight_grads' rule). */
static bool deferred_wgrad(const work_item *x)
{
	return x->kind == WORK_ITEM_KERNEL && build_named(x, "_wgrad") &&
	       strncmp(x->name, "attn", 4) != 0 && strncmp(x->name, "router", 6) != 0;
}

/* Append items [lo, hi) of a backward program to c; with `w` (not NULL) the
 * deferred weight gradients among them go to w[] instead. */
static void append_part(builder *b, chain *c, const work_item *it, int lo, int hi, int16_t layer,
			work_item *w, int *nw)
{
	work_item x[WORK_MAX_ITEMS];
	int n = 0;
	for (int i = lo; i < hi; i++) {
		if (w && deferred_wgrad(&it[i]))
			w[(*nw)++] = it[i];
		else
			x[n++] = it[i];
	}
	append_items(b, c, x, n, PLAN_TASK_BWD, layer);
}

/* Deferred weight gradients as tasks the chain does not wait for (seg.aside). */
static void append_aside(builder *b, chain *c, const work_item *w, int nw, int16_t layer)
{
	int from = c->n;
	append_items(b, c, w, nw, PLAN_TASK_WGRAD, layer);
	for (int i = from; i < c->n; i++)
		c->v[i].aside = true;
}

/* One layer's backward under moe_a2a_overlap, in the order its pieces run
 * in Megatron-Core's combined 1F1B (TransformerLayerSchedulePlan.run, the
 * derivation before build_emit_pair): the combine's backward C (with what precedes
 * it: the residual and unpermutation gradients), the experts' backward M, the
 * dispatch's backward D, then the attention part A, the selectively
 * recomputed attention core at A's start (it recomputes inside the
 * attention's backward). With delay_wgrad_compute (b->delay) M's deferred
 * weight gradients W_m follow M as aside tasks, and A's, W_a, are held in
 * pend[] and placed after the next layer's gradient reaches its combine
 * (before that C, which waits only for the part before it: the backward_dw
 * of "pre_dispatch_computation" runs after the layer, models/common/
 * model_chunk_schedule_plan.py:298-301, and the combine's backward node
 * waits on the chunk's event, recorded by A's backward, not by backward_dw,
 * models/common/utils.py:323-358, pipeline_parallel/utils.py:323-345). A
 * layer without all-to-alls (dense) is all A. */
static void append_backward(builder *b, chain *c, const layer_prog *lp, int16_t id, bool sel,
			    work_item *pend, int *npend, int16_t pid)
{
	const work_item *it = lp->b;
	int n = lp->nb, cend = 0, dst = -1, dend = 0;
	for (int i = 0; i < n; i++) {
		if (it[i].kind != WORK_ITEM_COMM || it[i].comm != WORK_COMM_EP_ALLTOALL)
			continue;
		if (build_named(&it[i], "ep_combine"))
			cend = i + 1;
		else if (dst < 0 || dend == i)
			dst = dst < 0 ? i : dst, dend = i + 1;
	}
	if (dst < 0 || dst < cend)
		cend = dst = dend = 0; /* no dispatch after a combine: all A */
	work_item wm[WORK_MAX_ITEMS], wa[WORK_MAX_ITEMS];
	int nwm = 0, nwa = 0;
	work_item *dm = b->delay ? wm : NULL, *da = b->delay ? wa : NULL;
	append_part(b, c, it, 0, cend > 0 ? cend - 1 : 0, id, dm, &nwm);
	if (*npend > 0) /* W_a of the layer before in the backward (pid) */
		append_aside(b, c, pend, *npend, pid);
	*npend = 0;
	append_part(b, c, it, cend > 0 ? cend - 1 : 0, cend, id, dm, &nwm);
	append_part(b, c, it, cend, dst, id, dm, &nwm);
	append_aside(b, c, wm, nwm, id);
	append_part(b, c, it, dst, dend, id, NULL, NULL);
	if (sel)
		append_items(b, c, lp->core, lp->nc, PLAN_TASK_RECOMP, id);
	append_part(b, c, it, dend, n, id, da, &nwa);
	memcpy(pend, wa, (size_t)nwa * sizeof *wa);
	*npend = nwa;
}

/* One layer's backward (or an MTP module's, make_mtp_prog) into the chunk's
 * chains: under moe_a2a_overlap append_backward (pend, npend and *pl carry
 * the attention's held weight gradients and the layer they belong to), else
 * its recomputation (its whole forward when `full`: plan_layer_recomputed),
 * B, and W under the zero-bubble split. */
static void layer_backward(builder *b, chain *bk, chain *wt, const layer_prog *lp, int16_t id,
			   bool full, work_item *pend, int *npend, int16_t *pl)
{
	bool sel = b->s->plan.recompute == WORK_RECOMPUTE_SELECTIVE;
	if (b->ovl) {
		append_backward(b, bk, lp, id, sel, pend, npend, *pl);
		*pl = id;
		return;
	}
	work_item ag;
	if (full && work_saved_gather(&b->s->model, &b->sh, &ag))
		append_items(b, bk, &ag, 1, PLAN_TASK_RECOMP, id); /* its input, whole again */
	if (full)
		append_items(b, bk, lp->f, plan_recompute_items(b->s, lp->f, lp->nf),
			     PLAN_TASK_RECOMP, id);
	else if (sel)
		append_items(b, bk, lp->core, lp->nc, PLAN_TASK_RECOMP, id);
	append_items(b, bk, lp->b, lp->nb, PLAN_TASK_BWD, id);
	append_items(b, wt, lp->w, lp->nw, PLAN_TASK_WGRAD, id);
}

/* What one chunk's chains are built from: its virtual stage v, its layers
 * (their programs lp, made on first use into b->progs: [0] dense, [1] MoE,
 * [2] and [3] the same with a sliding window (work_layer_windowed), [4] an
 * MTP module (make_mtp_prog)), the MTP modules it holds and whether it ends
 * with the loss. */
typedef struct chunk_plan {
	int v, l0, nl, nmtp;
	bool last;
	const layer_prog **lp;
} chunk_plan;

/* Chunk c's forward: the embedding on virtual stage 0, its
 * layers, the MTP modules, the logits and losses on the last. */
static void chunk_forward(builder *b, chain *fw, const chunk_plan *k)
{
	const work_model *m = &b->s->model;
	work_item x[WORK_MAX_ITEMS];
	if (k->v == 0) {
		append_items(b, fw, x, work_embed_forward(m, &b->sh, x), PLAN_TASK_FWD, -1);
		mark_end(fw, 0, 1);
	}
	for (int l = 0; l < k->nl; l++)
		append_items(b, fw, k->lp[l]->f, k->lp[l]->nf, PLAN_TASK_FWD, (int16_t)(k->l0 + l));
	/* the MTP modules after the layers, each one more layer of the
	 * chunk (Megatron-Core's schedule plan appends model.mtp.layers
	 * to the decoder's, model_chunk_schedule_plan.py:417-423 at
	 * d98e8a64, :315-338 at core_v0.14.0 23e00ed096), so that
	 * build_emit_pair pairs it as a layer (seg.unit); then the logits and
	 * losses of the modules and of the model (the post-process,
	 * GPTModel._postprocess), whose backward runs first */
	int head = fw->n;
	for (int j = 0; j < k->nmtp; j++) {
		b->unit = MTP_UNIT(j);
		append_items(b, fw, x, work_mtp_embed(m, &b->sh, false, x), PLAN_TASK_FWD, -1);
		append_items(b, fw, b->progs[4].f, b->progs[4].nf, PLAN_TASK_FWD, -1);
		b->unit = -1;
	}
	for (int j = 0; k->last && j <= k->nmtp; j++)
		append_items(b, fw, x, work_head_forward(m, &b->sh, x), PLAN_TASK_FWD, -1);
	mark_end(fw, head, 2);
}

/* Chunk c's backward (and under ZB-H1 its W chain): the heads' backward on the last, the MTP modules and the layers in reverse,
 * the embedding's, the gradient accumulation. */
static void chunk_backward(builder *b, chain *bk, chain *wt, int stage, int c,
                           const chunk_plan *k)
{
	const work_model *m = &b->s->model;
	work_item x[WORK_MAX_ITEMS], wg[WORK_MAX_ITEMS];
	int bh = bk->n, wh = wt->n;
	for (int j = 0; k->last && j <= k->nmtp; j++) {
		int nhw = 0, nh = work_head_backward(m, &b->sh, x);
		if (b->zb)
			nh = split_weight_grads(x, nh, wg, &nhw);
		append_items(b, bk, x, nh, PLAN_TASK_BWD, -1);
		append_items(b, wt, wg, nhw, PLAN_TASK_WGRAD, -1);
	}
	work_item pend[WORK_MAX_ITEMS]; /* append_backward's held W_a */
	int npend = 0;
	int16_t pl = -1, pu = -1; /* ... their layer and unit */
	for (int j = k->nmtp - 1; j >= 0; j--) {
		b->unit = pu = MTP_UNIT(j);
		layer_backward(b, bk, wt, &b->progs[4], -1,
			       b->s->plan.recompute == WORK_RECOMPUTE_FULL &&
				       !plan_recompute_partial(&b->s->plan),
			       pend, &npend, &pl);
		b->unit = -1;
	}
	mark_end(bk, bh, 2);
	mark_end(wt, wh, 2);
	for (int l = k->nl - 1; l >= 0; l--) {
		if (plan_layer_frozen(b->s, plan_global_layer(b->s, stage, k->l0 + l)))
			continue; /* frozen prefix: no backward (plan_layer_frozen) */
		layer_backward(b, bk, wt, k->lp[l], (int16_t)(k->l0 + l),
			       plan_layer_recomputed(&b->s->plan, k->nl, l), pend, &npend, &pl);
		pu = -1;
	}
	if (npend > 0) { /* the chunk's last W_a, after its last layer */
		b->unit = pu;
		append_aside(b, bk, pend, npend, pl);
		b->unit = -1;
	}
	/* the embedding's backward is its weight gradient alone (the token ids
	 * take none): under a zero-bubble schedule a W pass (torch pipelining's
	 * stage_backward_input stops at the stage's inputs, its
	 * stage_backward_weight computes every parameter's gradient) */
	if (k->v == 0 && b->s->train.frozen_layers <= 0) {
		chain *to = b->zb ? wt : bk;
		int eb = to->n;
		append_items(b, to, x, work_embed_backward(m, &b->sh, x),
			     b->zb ? PLAN_TASK_WGRAD : PLAN_TASK_BWD, -1);
		mark_end(to, eb, 1);
	}
	append_grad_accum(b, b->zb ? wt : bk, stage, c);
}

/* Build the forward and backward chains of every model chunk of a stage.
 * Chunk c of stage st is virtual stage v = c * pp + st (plan_vstage: under
 * ZBV 2 pp - 1 - st for chunk 1) and holds the stage's
 * local layers first_c .. first_c + n_c - 1 (plan_chunk_layers: the layout may
 * be uneven); the embedding runs on virtual stage 0, logits and loss on the
 * last one. */
void build_stage_chains(builder *b, int stage)
{
	const work_model *m = &b->s->model;
	layer_prog *kinds = b->progs;
	bool made[5] = {false, false, false, false, false};
	int local = 0; /* stage-local index of the chunk's first layer */
	b->unit = -1;
	for (int c = 0; c < b->vpp; c++) {
		chain *fw = &b->fwd[c], *bk = &b->bwd[c], *wt = &b->wgt[c];
		chunk_plan k = {.v = plan_vstage(&b->s->plan, stage, c)};
		k.nl = plan_chunk_layers(b->s, stage, c, &k.l0);
		fw->n = bk->n = wt->n = 0;
		fw->carry = bk->carry = wt->carry = 0;
		fw->ends = bk->ends = wt->ends = 0;
		const layer_prog *lp[k.nl > 0 ? k.nl : 1];
		for (int l = 0; l < k.nl; l++) {
			int g = plan_global_layer(b->s, stage, local + l);
			int j = work_layer_is_moe(m, g) + 2 * work_layer_windowed(m, g);
			if (!made[j])
				make_layer_prog(b, g, &kinds[j]), made[j] = true;
			lp[l] = &kinds[j];
		}
		local += k.nl;
		k.lp = lp;
		k.last = k.v == b->vstages - 1;
		k.nmtp = k.last && m->mtp_layers > 0 ? m->mtp_layers : 0;
		if (k.nmtp > 0 && !made[4])
			make_mtp_prog(b, &kinds[4]), made[4] = true;
		if (k.v > 0) /* the p2p receives, first in each chain */
			append_p2p_gather(b, fw);
		if (k.v < b->vstages - 1)
			append_p2p_gather(b, bk);
		chunk_forward(b, fw, &k);
		chunk_backward(b, bk, wt, stage, c, &k);
		/* a stage that holds no layer (nanotron's cost balancing can leave
		 * one between the layers and the loss, plan_layout) still passes
		 * each micro-batch on: one empty task per direction carries the
		 * chain's dependencies */
		if (fw->n == 0)
			chain_push(fw, (seg){.kind = PLAN_TASK_FWD, .layer = -1, .unit = -1});
		if (bk->n == 0)
			chain_push(bk, (seg){.kind = PLAN_TASK_BWD, .layer = -1, .unit = -1});
	}
}

bool build_chains_oom(const builder *b)
{
	for (int c = 0; c < b->vpp; c++)
		if (b->fwd[c].oom || b->bwd[c].oom || b->wgt[c].oom)
			return true;
	return false;
}

int build_chains_open(builder *b)
{
	b->fwd = calloc((size_t)b->vpp, sizeof *b->fwd);
	b->bwd = calloc((size_t)b->vpp, sizeof *b->bwd);
	b->wgt = calloc((size_t)b->vpp, sizeof *b->wgt);
	b->progs = malloc(5 * sizeof *b->progs);
	return b->fwd && b->bwd && b->wgt && b->progs ? SIM_OK : SIM_ENOMEM;
}

void build_chains_close(builder *b)
{
	for (int c = 0; b->fwd && b->bwd && b->wgt && c < b->vpp; c++)
		free(b->fwd[c].v), free(b->bwd[c].v), free(b->wgt[c].v);
	free(b->fwd), free(b->bwd), free(b->wgt), free(b->progs);
}
