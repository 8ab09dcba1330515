/* memwalk.c - a rank's memory peak over the step, found by walking its
 * schedule (plan_schedule_order) and adding up what each moment keeps alive;
 * the counters that reports compare with capacity (allocated, reserved,
 * device) and the verdict; the memory curve for the HTML page; and where a
 * plan that does not fit can cut.
 *
 * What lives when (each term's size in memory.c; B = bytes):
 *   always       weights (shards, the frozen base), optimizer states and
 *                master, a persistent gradient buffer (Megatron's main_grad,
 *                nanotron's fp32 accumulator), torch DDP's bucket copy of the
 *                gradients (16-bit: the parameters' dtype), DeepSpeed's
 *                gradient buckets, p2p_buffers pipeline send/receive
 *                tensors, sp_gather_buffers persistent SP all-gather
 *                buffers (nanotron's MemoryBuffer), the framework's
 *                workspaces (and the userbuffer GEMMs' under
 *                tp_comm_overlap), PyTorch's cuBLAS workspaces (one per
 *                thread and stream that runs its GEMMs)
 *   forward and  ZeRO-3's gathered layers (gathered_layers of the largest)
 *   backward     and unsharded embedding and output layer, the flat buffer
 *                of the largest gather (DeepSpeed's, FSDP2's, qwZ's int8
 *                one; memsize.c); FSDP
 *                SHARD_GRAD_OP's unsharded copy of every layer
 *   forward      under autocast over unsharded fp32 weights, autocast's cache
 *                of their 16-bit casts (2 B per trainable parameter; the
 *                cache is cleared when the autocast region exits, before
 *                the backward: torch/csrc/autograd autocast_mode cached_cast)
 *   per micro-   its kept activations per chunk, from its forward to its
 *   batch        backward (to W under ZB-H1); K and V per layer when the
 *                model returns them; the loss's logit tensors on the last
 *                stage (plan_loss_bytes: the forward's peak, kept, the
 *                backward's peak, and the logits the caller holds during
 *                the layers' backward)
 *   gradients    persistent, or from each chunk's first backward until the
 *                optimizer step (its shard under ZeRO-2 reducing every
 *                micro-batch and ZeRO-3, unsharded under FSDP no_sync
 *                accumulation, on the GPU under CPU offload too until the
 *                syncing backward), or never all at once with the optimizer
 *                step fused into the backward
 *   a layer's    under full recomputation the recomputed layer's saved
 *   backward     tensors (its no-recompute bytes; with recompute_layers
 *                less what the whole layers after it freed, partial_chunk);
 *                under ZeRO-3 and
 *                optimizer-in-backward the layer's unsharded gradients
 *   a backward's with backward_grads the .grad of the chunk's parameters in
 *   end          their dtype, which nanotron adds into its fp32 buffer and
 *                frees after every backward (a candidate of the end only:
 *                they grow as the activations shrink)
 *   step         the gradients, foreach AdamW's foreach_temps state-sized lists
 *                (torch/optim/adamw.py: 1.13.1 L418-422 sqrt(v) and the
 *                denominator, 2.6.0 L699-707 sqrt(v) alone; framework.c),
 *                DeepSpeed's fp32 copy of the gradient
 *                partition (stage_1_and_2.py:1890-1900, stage3.py:1895-1905),
 *                ZeRO-1's parameter all-gather: the flat shard and
 *                step_param_copies 16-bit copies of the stage's parameters
 *                (nanotron)
 *   checkpoint   with checkpoint_shards, after the step: the state dict's
 *                copy of every parameter's local shard (checkpoint_offload:
 *                one unit gathered instead) and the gathered root unit
 *                (save_moment)
 * Candidates: after each forward (the loss forward included), at each
 * backward's start (the loss backward) and over its layers (the larger of
 * its start and end, the working set throughout), and the optimizer step;
 * the peak is the largest. Gradients and activations therefore peak
 * together only when gradients outlive a backward (accumulation, pipelines,
 * persistent buffers): torchtune's single step peaks at the optimizer
 * (memory.csv MC04), ATorch's FSDP steps at the loss (MH02: the gradients'
 * 4 B/param are not in the measured DP scaling of 12 B/param).
 *
 * Each term is sized once per stage by memsize.c (mem_size_stage, mem_int.h).
 *
 * The counters: allocated = the sum; reserved = allocated x (1 +
 * allocator_overhead), capped by what the device leaves beside the runtime
 * (PyTorch's caching allocator frees its cached blocks and retries before it
 * fails), plus the blocks a stream other than the default one keeps cached
 * (offload_copy_pool: CPU offload's shard copies); device = reserved +
 * runtime (context, NCCL, paged states). At a checkpoint after the step,
 * reserved = the larger of the step peak's and the checkpoint's allocated
 * beside the step's gathered layers, idle on FSDP's all-gather stream
 * (save_moment). */
#include "mem_int.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Phases of a candidate. */
enum { PH_FWD = 0, PH_LOSS_BWD, PH_BWD, PH_STEP };


/* One candidate moment: its phase and what is alive beyond the static terms. */
typedef struct cand {
	double total;
	int op, phase, mb, chunk, inflight;
	bool loss_op;
	double G, kept, loss, held, gathered, cache, work, layer_grad, step_grads, temps, half,
	        dequant;
} cand;

static double static_sum(const mw *w)
{
	return w->weights + w->frozen + w->states + w->grad_buf + w->grad_copy + w->buckets +
	       w->p2p + w->workspace + w->torch_ws + w->ub_workspace + w->gather + w->scores +
	       w->secondary;
}

static void consider(cand *best, const cand *c)
{
	double t = c->G + c->kept + c->loss + c->held + c->gathered + c->cache + c->work +
	           c->layer_grad + c->step_grads + c->temps + c->half + c->dequant;
	if (t > best->total || best->op == -2) {
		*best = *c;
		best->total = t;
	}
}

/* What the walk carries from op to op: the static terms (S), the gradients
 * left so far (G), the activations kept (kept, of `inflight` micro-batch
 * chunks), the loss's live and held logits, which chunks' gradients exist. */
typedef struct walk_state {
	double S, kept, G, loss_live, held;
	int inflight;
	bool zb;
	bool *gdone;
} walk_state;

/* A forward of chunk x->chunk: its activations join the kept ones (the
 * loss forward after the last chunk of the last stage). The op's peak. */
static double walk_forward(const mw *w, walk_state *st, cand *x, cand *best)
{
	int c = x->chunk;
	st->kept += w->act[c];
	st->inflight++;
	x->phase = PH_FWD, x->G = st->G, x->kept = st->kept, x->inflight = st->inflight;
	x->loss = st->loss_live;
	x->cache = w->cache;
	double peak = st->S + st->G + st->kept + x->loss + x->gathered + x->cache;
	/* its last layer's attention under CP (fwd_work), before the loss: the
	 * chunk's activations counted whole (that layer's MLP ones a moment
	 * early) */
	if (w->fwd_work > 0) {
		x->work = w->fwd_work;
		consider(best, x);
		peak += w->fwd_work;
		x->work = 0;
	}
	if (x->loss_op) {
		x->loss += w->loss_fwd;
		double v = peak - w->fwd_work + w->loss_fwd;
		peak = v > peak ? v : peak;
	}
	consider(best, x);
	if (x->loss_op)
		st->loss_live += w->loss_kept;
	return peak;
}

/* A backward (or ZB-H1's W) of chunk o.chunk: the loss backward first on
 * the loss chunk, then the layers' backward, the larger of its start and
 * its end (its gradients in, its activations out). The op's peak, at least
 * `peak`. */
static double walk_backward(const mw *w, walk_state *st, plan_op o, cand *x, cand *best,
                            double peak)
{
	int c = o.chunk;
	if (x->loss_op && !o.weight) {
		cand y = *x;
		y.phase = PH_LOSS_BWD, y.G = st->G, y.kept = st->kept, y.inflight = st->inflight;
		y.loss = st->loss_live - w->loss_kept + w->loss_bwd;
		consider(best, &y);
		peak = st->S + st->G + st->kept + y.loss + y.gathered;
		st->loss_live -= w->loss_kept;
		st->held = w->loss_held;
	}
	bool frees = !st->zb || o.weight;
	double gnew = frees && !st->gdone[c] ? w->gc[c] : 0;
	/* the backward's own 16-bit gradients, whole at its end */
	double half = o.weight || !st->zb ? w->g16[c] : 0;
	double start = st->G + st->kept,
	       end = st->G + gnew + st->kept - (frees ? w->act[c] : 0) + half;
	x->phase = PH_BWD, x->inflight = st->inflight;
	bool end_larger = end > start;
	x->G = end_larger ? st->G + gnew : st->G;
	x->kept = end_larger ? st->kept - (frees ? w->act[c] : 0) : st->kept;
	x->half = end_larger ? half : 0;
	x->loss = st->loss_live, x->held = st->held;
	x->work = (o.weight ? 0 : w->work) + w->bwd_grads;
	x->layer_grad = w->layer_grad;
	x->dequant = w->dequant;
	consider(best, x);
	double v = st->S + x->G + x->kept + x->loss + x->held + x->gathered + x->work +
	           x->layer_grad + x->half + x->dequant;
	peak = v > peak ? v : peak;
	if (frees) {
		st->kept -= w->act[c];
		st->inflight--;
		st->G += gnew;
		st->gdone[c] = true;
	}
	if (!o.weight && c == 0)
		st->held = 0;
	return peak;
}

/* The optimizer step: the gradients (all chunks done), the caller's held
 * logits and returned K/V of the last micro-batch, the temporaries. */
static void walk_step(const mw *w, double S, cand *best, double *cs, double *cp, double *ce,
                      int max)
{
	cand x = {.op = -1,
	          .phase = PH_STEP,
	          .mb = w->m - 1,
	          .step_grads = w->grads_step,
	          .temps = w->temps + w->step_fp32 + w->step_gather,
	          .held = w->loss_held + w->kv * w->b.layers};
	consider(best, &x);
	if (cs && w->nops < max) {
		double v = S + x.step_grads + x.temps + x.held;
		cs[w->nops] = S + w->grads_step + x.held;
		cp[w->nops] = v;
		ce[w->nops] = S;
	}
}

/* Walk the stage's schedule: the largest candidate into *best; with
 * curve != NULL the allocated bytes at each op's start, peak and end (the
 * static terms included; the optimizer step last). */
static void walk(const mw *w, cand *best, double *cs, double *cp, double *ce, int max)
{
	walk_state st = {.S = static_sum(w),
	                 .zb = plan_sched_zb(w->s->plan.schedule),
	                 .gdone = calloc((size_t)w->vpp, sizeof *st.gdone)};
	best->op = -2;
	best->total = 0;
	for (int i = 0; i < w->nops; i++) {
		plan_op o = w->ops[i];
		int c = o.chunk;
		bool lop = plan_vstage(&w->s->plan, w->stage, c) == w->s->plan.pp * w->vpp - 1;
		cand x = {.op = i,
		          .mb = o.mb,
		          .chunk = c,
		          .loss_op = lop,
		          .gathered = w->gathered + w->gather_flat};
		double before = st.S + st.G + st.kept + st.loss_live + st.held;
		double peak = o.backward ? walk_backward(w, &st, o, &x, best, before)
		                         : walk_forward(w, &st, &x, best);
		if (cs && i < max) {
			cs[i] = before;
			cp[i] = peak;
			ce[i] = st.S + st.G + st.kept + st.loss_live + st.held;
		}
	}
	walk_step(w, st.S, best, cs, cp, ce, max);
	free(st.gdone);
}

/* The ops of the schedule that hold its peak, beyond which the walk only
 * repeats or drains. After the warm-up a 1F1B-family stage alternates a
 * forward with a backward (and under ZB-H1 a W): n = 2 (3) ops a step. The
 * activations in flight repeat with a period of P = N*vpp steps under
 * interleaving (N = plan_vp_group, pp by default: each chunk appears N times
 * in both the forward and the backward sequence of a period; the last,
 * shorter group comes after the last forward, in the cool-down), every step
 * when all chunks keep the same bytes and the loss is not on the stage (one
 * chunk, or equal ones); the
 * gradients of every chunk exist from its first backward (its W under
 * ZB-H1, stage steps later), within N*vpp (interleaved) or 1 backwards; the
 * cool-down only frees. So warm-up + n x (settle + P + 2) ops see every
 * distinct state; GPipe's peak is at its last forward or its first
 * backwards (m + 2 ops). tests/unit/test_memory.c compares the result with
 * the whole walk. */
static int head_ops(const mw *w, int steps)
{
	const plan_scenario *s = w->s;
	long p = s->plan.pp, vpp = w->vpp, n = plan_vp_group(&s->plan), k;
	if (s->plan.schedule == PLAN_SCHED_GPIPE) {
		k = (long)w->m + 2;
	} else if (plan_sched_v(s->plan.schedule) ||
	           s->plan.schedule == PLAN_SCHED_LOOPED_BFS) {
		k = steps; /* no period stated for its order: the whole walk */
	} else {
		bool zb = plan_sched_zb(s->plan.schedule), same = !w->last;
		for (int c = 1; c < vpp; c++)
			same = same && w->act[c] == w->act[0];
		long period = vpp > 1 && !same ? n * vpp : 1;
		long settle = (vpp > 1 ? n * vpp : 1) + (zb ? w->stage : 0);
		long warm = plan_schedule_warm(s->plan.schedule, (int)p, w->m, (int)vpp, (int)n,
		                               plan_warm_extra(&s->plan), w->stage);
		k = warm + (zb ? 3 : 2) * (settle + period + 2);
	}
	return k < steps ? (int)k : steps;
}

/* Size the stage and its schedule (whole, or the ops that hold its peak);
 * false when out of memory. */
static bool open_stage(const plan_scenario *s, int stage, mw *w, bool whole)
{
	memset(w, 0, sizeof *w);
	w->s = s;
	w->stage = stage;
	int m = plan_microbatches(&s->plan), vpp = s->plan.vpp;
	w->act = calloc((size_t)vpp, sizeof *w->act);
	w->gc = calloc((size_t)vpp, sizeof *w->gc);
	w->g16 = calloc((size_t)vpp, sizeof *w->g16);
	if (!w->act || !w->gc || !w->g16) {
		free(w->act), free(w->gc), free(w->g16);
		return false;
	}
	mem_size_stage(s, stage, w);
	int steps = s->inference ? 0 : plan_schedule_steps(s->plan.schedule, m, vpp);
	w->nops = whole ? steps : head_ops(w, steps);
	w->ops = w->nops ? malloc((size_t)w->nops * sizeof *w->ops) : NULL;
	if (w->nops && !w->ops) {
		free(w->act), free(w->gc), free(w->g16);
		return false;
	}
	if (w->nops)
		plan_schedule_head(s->plan.schedule, s->plan.pp, m, vpp, plan_vp_group(&s->plan),
		                   plan_warm_extra(&s->plan), stage, w->nops, w->ops);
	return true;
}

static void close_stage(mw *w)
{
	free(w->act), free(w->gc), free(w->g16), free(w->ops);
}

plan_verdict plan_mem_verdict(double allocated, double runtime, double device, double capacity)
{
	if (allocated + runtime > capacity)
		return PLAN_VERDICT_OOM;
	if (device > (1.0 - PLAN_TIGHT_HEADROOM) * capacity)
		return PLAN_VERDICT_TIGHT;
	return PLAN_VERDICT_FITS;
}

/* A count with an SI suffix for formulas: "6.74 G", "131 M", "8192". */
static const char *qty(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1e9)
		snprintf(buf, len, "%.4g G", v / 1e9);
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.4g M", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.4g k", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* Bytes in binary units for formulas: "4.64 GiB", "32 MiB". */
static const char *bq(double v, char *buf, size_t len)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int k = 0;
	while (fabs(v) >= 1024 && k < 4)
		v /= 1024, k++;
	snprintf(buf, len, "%.3g %s", v, u[k]);
	return buf;
}

static void add_term(plan_mem_peak *out, plan_mem cat, double bytes, const char *name,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add_term(plan_mem_peak *out, plan_mem cat, double bytes, const char *name,
                     const char *fmt, ...)
{
	if (!(bytes > 0))
		return;
	out->bytes[cat] += bytes;
	if (out->nterms >= PLAN_MEM_MAX_TERMS)
		return;
	plan_mem_term *t = &out->term[out->nterms++];
	t->cat = cat;
	t->bytes = bytes;
	snprintf(t->name, sizeof t->name, "%s", name);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->formula, sizeof t->formula, fmt, ap);
	va_end(ap);
}

/* A term: its bytes into its category, and unless out->brief its name and
 * formula (whose arguments, formatted numbers among them, are then not
 * evaluated: the sweep sizes thousands of plans a second). */
#define add(o_, cat_, b_, ...)                                                                     \
	do {                                                                                       \
		double add_b_ = (b_);                                                              \
		if (!(o_)->brief)                                                                  \
			add_term(o_, cat_, add_b_, __VA_ARGS__);                                   \
		else if (add_b_ > 0)                                                               \
			(o_)->bytes[cat_] += add_b_;                                               \
	} while (0)

static const char *policy_name(const plan_scenario *s)
{
	static const char *const n[] = {"mixed policy", "amp policy", "pure policy"};
	if (s->dtype == HW_FP32 || s->dtype == HW_TF32)
		return "fp32 training"; /* no 16-bit copy, whatever the policy */
	return n[s->train.policy];
}

/* The static terms, the same at every moment. */
static void static_terms(const mw *w, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	const plan_budget *b = &w->b;
	char a[32], c[32];
	bool lora = s->train.lora_rank > 0;
	bool wsh = s->plan.zero >= 3 || (s->plan.zero == 2 && s->fw.zero2_param_shards);
	const char *sh = wsh && w->shards > 1 ? " / shards" : "";
	snprintf(c, sizeof c, "%.0f", w->shards);
	bool fz = s->train.frozen_layers > 0;
	bool own = b->wg < b->w; /* param_master: the fp32 parameter is the master */
	add(o, PLAN_MEM_WEIGHTS, w->weights, lora || fz ? "trained weights" : "weights",
	    "%s params x %.4g B (%s%s)%s%s%s", qty(b->train, a, sizeof a), b->w, policy_name(s),
	    !own  ? ""
	    : *sh ? "; the sharded parameter is the master: no separate 16-bit copy, 16 bits "
	            "only while gathered"
	          : "; the fp32 parameter is the master: no separate 16-bit copy",
	    sh, *sh ? " " : "", *sh ? c : "");
	add(o, PLAN_MEM_WEIGHTS, w->secondary, "hpZ secondary shard",
	    "ZeRO++: %s params x %.4g B / zero_hpz %d, from the step's first gather to the "
	    "optimizer step", qty(b->train + b->frozen, a, sizeof a), w->b.wg,
	    s->plan.zero_hpz);
	static const char *const base[] = {
	        "", "16-bit", "fp32", "NF4", "NF4, double-quantised", "GPTQ int4", "int8"};
	if (fz)
		add(o, PLAN_MEM_WEIGHTS, w->frozen, "frozen layers' weights",
		    "%s params x %.4g B (the first %d layers and the embedding; no gradients, "
		    "no optimizer states)",
		    qty(b->frozen, a, sizeof a), b->base_bytes, s->train.frozen_layers);
	else
		add(o, PLAN_MEM_WEIGHTS, w->frozen - b->quant_state, "frozen base weights",
		    "%s params: linear x %.4g B (%s%s), the rest x %s%s%s%s",
		    qty(b->frozen, a, sizeof a),
		    b->base_bytes - b->quant_state / (b->linear + b->experts),
		    s->train.base_weights ? base[s->train.base_weights] : "as trained",
		    b->quant_state > 0 ? ", packed" : "",
		    plan_base_quantized(s) ? (s->fw.quant_rest_fp32 ? "4 B" : "2 B") : "the same",
		    sh, *sh ? " " : "", *sh ? c : "");
	if (!fz)
		add(o, PLAN_MEM_WEIGHTS, b->quant_state, "quantisation state",
		    "%s linear params x %.4g B (bitsandbytes' absmax): whole on every rank, not "
		    "sharded or offloaded",
		    qty(b->linear + b->experts, a, sizeof a),
		    b->quant_state / (b->linear + b->experts));
	bool opt_sh = s->plan.zero >= 1 && w->shards > 1;
	bool master = s->train.policy == PLAN_POLICY_MIXED && s->dtype != HW_FP32 &&
	              s->dtype != HW_TF32 && !own;
	static const char *const st_names[] = {"Adam m, v", "8-bit m, v", "Adam m, v", "8-bit m, v",
	                                       "",          "momentum",   "factored v"};
	const char *states = s->train.grad_compression == PLAN_GC_1BIT
	                             ? "Adam m, v, 1-bit error feedback"
	                             : st_names[s->train.optimizer];
	add(o, PLAN_MEM_OPTIMIZER, w->states, "optimizer states",
	    "%s trained params x %.4g B (%s%s%s)%s%s", qty(b->train, a, sizeof a), b->o,
	    master ? "fp32 master" : "", master && *states ? ", " : "", states,
	    opt_sh ? " / ZeRO shards " : "", opt_sh ? c : "");
	add(o, PLAN_MEM_GRADIENTS, w->grad_buf, "gradient buffer",
	    "persistent (main_grad): %s params x %.4g B%s%s", qty(b->train, a, sizeof a), b->g,
	    plan_grads_sharded(s) && w->shards > 1 ? " / shards " : "",
	    plan_grads_sharded(s) && w->shards > 1 ? c : "");
	add(o, PLAN_MEM_GRADIENTS, w->grad_copy, "DDP bucket copy",
	    "torch DDP's flat buckets, a second gradient copy: %s x %.4g B",
	    qty(b->train, a, sizeof a), b->w);
	add(o, PLAN_MEM_BUFFERS, w->buckets, "gradient buckets", "%d x bucket_size %s",
	    s->fw.grad_buckets, bq(plan_bucket_bytes(s), a, sizeof a));
	int np = s->fw.p2p_buffers;
	add(o, PLAN_MEM_BUFFERS, w->p2p, "pipeline buffers",
	    "%d send/receive activation%s of s b h e = %s each", np, np == 1 ? "" : "s",
	    bq(np > 0 ? w->p2p / np : 0, a, sizeof a));
	add(o, PLAN_MEM_BUFFERS, w->workspace, "workspaces",
	    "the framework's own cuBLAS workspaces (Transformer Engine's)");
	add(o, PLAN_MEM_BUFFERS, w->torch_ws, "PyTorch workspaces",
	    "%d cuBLAS workspaces x %s: one per (thread, stream) running PyTorch GEMMs",
	    s->fw.torch_workspaces, bq(s->fw.torch_workspace_bytes, a, sizeof a));
	add(o, PLAN_MEM_BUFFERS, w->ub_workspace, "TP-overlap workspace",
	    "the cuBLAS workspace of the GEMMs overlapping TP communication (tp_comm_overlap)");
	add(o, PLAN_MEM_BUFFERS, w->scores, "attention scores buffer",
	    "QK^T of one micro-batch, b a s^2 e / t, kept between steps (scores_buffer)");
	add(o, PLAN_MEM_BUFFERS, w->gather, "SP gather buffers",
	    "%d persistent all-gather buffers of s b h e = %s each", s->fw.sp_gather_buffers,
	    bq(s->fw.sp_gather_buffers > 0 ? w->gather / s->fw.sp_gather_buffers : 0, a, sizeof a));
}

static void moment(const mw *w, const cand *x, char *buf, size_t len)
{
	switch (x->phase) {
	case PH_FWD: {
		/* with work, the last layer's attention under CP (walk_forward) */
		const char *at = x->work > 0 ? "the last layer's attention (CP buffers) in the forward"
		                             : "end of the forward",
		           *loss = x->loss_op && x->work <= 0 ? " with the loss" : "";
		snprintf(buf, len, "%s of micro-batch %d%s%s, %d chunk-step%s of activations held",
		         at, x->mb, w->vpp > 1 ? " on its chunk " : "", loss, x->inflight,
		         x->inflight == 1 ? "" : "s");
		if (w->vpp > 1)
			snprintf(buf, len, "%s of micro-batch %d on chunk %d%s, %d chunk-steps held", at,
			         x->mb, x->chunk, loss, x->inflight);
		break;
	}
	case PH_LOSS_BWD:
		snprintf(buf, len, "the loss backward of micro-batch %d, %d chunk-step%s held",
		         x->mb, x->inflight, x->inflight == 1 ? "" : "s");
		break;
	case PH_BWD:
		/* every layer's backward holds its activation gradients (bwd_grads);
		 * a recomputed layer's also the saved tensors its forward re-made */
		snprintf(buf, len, "backward of micro-batch %d (chunk %d)%s, %d chunk-step%s held",
		         x->mb, x->chunk,
		         x->work > w->bwd_grads ? " recomputing a layer"
		         : x->work > 0          ? " through a layer"
		                                : "",
		         x->inflight, x->inflight == 1 ? "" : "s");
		break;
	default:
		snprintf(buf, len, "the optimizer step");
	}
}

/* The activations at the moment: the kept chunks, the loss logits, the
 * held outputs, a layer's backward. */
static void moment_activations(const mw *w, const cand *x, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	char a[32], b[32];
	double act1 = 0;
	for (int c = 0; c < w->vpp; c++)
		act1 += w->act[c];
	char rcsplit[64] = "";
	if (plan_recompute_partial(&s->plan)) {
		int n = 0, r = 0;
		for (int c = 0; c < w->vpp; c++) {
			int nl = plan_chunk_layers(s, w->stage, c, NULL);
			for (int l = 0; l < nl; l++)
				r += plan_layer_recomputed(&s->plan, nl, l);
			n += nl;
		}
		snprintf(rcsplit, sizeof rcsplit, ": inputs of %d recomputed, %d whole", r, n - r);
	}
	add(o, PLAN_MEM_ACTIVATIONS, x->kept, "kept activations",
	    "%.4g chunk-steps of %s (%s tokens x %d layers%s%s)%s",
	    act1 > 0 ? x->kept / (act1 / w->vpp) : 0, bq(act1 / w->vpp, a, sizeof a),
	    qty(w->T, b, sizeof b), w->b.layers / (w->vpp > 0 ? w->vpp : 1),
	    s->plan.recompute == WORK_RECOMPUTE_FULL && !*rcsplit
	            ? (plan_shard(s).distribute_saved
	                       ? ", layer inputs under full recompute, 1/tp each (distribute_saved)"
	                       : ", layer inputs under full recompute")
	            : "",
	    rcsplit, w->kv > 0 ? ", returned K/V included" : "");
	double tv = w->T * s->model.vocab;
	if (x->loss > 0)
		add(o, PLAN_MEM_ACTIVATIONS, x->loss, "loss logits", "%s tokens x V %d x %.3g B%s",
		    qty(w->T, a, sizeof a), s->model.vocab, tv > 0 ? x->loss / tv : 0,
		    x->phase == PH_LOSS_BWD            ? " (the loss backward's peak)"
		    : x->loss_op && x->phase == PH_FWD ? " (the loss forward's peak)"
		                                       : " (kept for the backward)");
	add(o, PLAN_MEM_ACTIVATIONS, x->held, "held outputs",
	    "the logits%s the training loop holds", w->kv > 0 ? " and returned K/V" : "");
	if (x->phase == PH_FWD)
		add(o, PLAN_MEM_ACTIVATIONS, x->work, "CP attention buffers",
		    "the K/V exchange's buffers and %s outputs in a layer's attention",
		    s->fw.cp_comm == PLAN_CP_ALLGATHER ? "the merged fp32" : "every step's");
	else
		add(o, PLAN_MEM_ACTIVATIONS, x->work, "layer backward", "%s%s (%s)",
		    x->work > w->bwd_grads ? "a recomputed layer's saved tensors + " : "",
		    w->bwd_cp ? "its attention's CP buffers and gradients"
		              : "its activation gradients",
		    bq(w->bwd_grads, a, sizeof a));
}

/* The optimizer step's temporaries, each part named. */
static void moment_step_temps(const mw *w, const cand *x, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	if (x->temps <= 0)
		return;
	char single[160], big[32];
	snprintf(single, sizeof single,
	         "AdamW tensor by tensor: sqrt(v) and the denominator of the largest, "
	         "2 x %s elements%s",
	         qty(w->temps / (s->train.policy == PLAN_POLICY_PURE ? 4.0 : 8.0), big, sizeof big),
	         s->fw.flat_params ? " (an FSDP unit's flat shard)" : "");
	const char *part[3] = {
	        w->temps <= 0                               ? NULL
	        : s->fw.optimizer_impl == PLAN_OPTIM_SINGLE ? single
	        : s->fw.foreach_temps > 1 ? "foreach AdamW: sqrt(v) and the out-of-place "
	                                    "denominator, 2 x the states' elements"
	                                  : "foreach AdamW: sqrt(v), its denominator in "
	                                    "place, 1 x the states' elements",
	        w->step_fp32 > 0 ? (w->temps > 0 ? "fp32 gradient partition"
	                                         : "the fp32 copy of the gradient partition")
	                         : NULL,
	        w->step_gather > 0 ? "ZeRO-1's parameter all-gather: the flat shard and "
	                             "16-bit copies of the parameters"
	                           : NULL};
	char txt[200] = "";
	for (int k = 0; k < 3; k++)
		if (part[k])
			snprintf(txt + strlen(txt), sizeof txt - strlen(txt), "%s%s",
			         txt[0] ? "; " : "", part[k]);
	add(o, PLAN_MEM_OPTIMIZER, x->temps, "step temporaries", "%s", txt);
}

/* Which ends the gathered weights hold as the backward starts
 * (memsize.c root_gathered). */
static const char *ends_words(const plan_scenario *s, int stage)
{
	double ga[2];
	if (mem_embedding_released(s, stage, ga))
		return ga[1] > 0 ? "the head; the embedding resharded after its forward"
				 : "no end: the embedding resharded after its forward";
	return "embedding, output";
}

/* The moment's terms beyond the static ones. */
static void moment_terms(const mw *w, const cand *x, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	char a[32], b[32];
	moment_activations(w, x, o);
	add(o, PLAN_MEM_BUFFERS, x->dequant, "dequantised weight",
	    "the largest 4-bit linear in 16 bits for its GEMM: %s params x 2 B",
	    qty(x->dequant / 2, a, sizeof a));
	/* a gather's flat buffers ride with the gathered layers (walk) */
	double qw = x->gathered > 0 ? w->gather_flat : 0;
	add(o, PLAN_MEM_BUFFERS, qw, "gather buffer",
	    "the largest gather's flat buffer%s (%s params x %.4g B) until its parameters are "
	    "copied out",
	    s->plan.zero_qw ? ", int8 values and fp32 scales under qwZ" : "",
	    qty(qw > 0 ? qw / mem_gather_flat_width(s) : 0, a, sizeof a), mem_gather_flat_width(s));
	if (plan_zero3_pp_gathered(s))
		add(o, PLAN_MEM_BUFFERS, x->gathered - qw, "gathered weights",
		    "ZeRO-3 under torch pipelining keeps every layer of the stage unsharded from "
		    "its first forward to the step's end (%d layers, + embedding, output)",
		    w->b.layers);
	else
		add(o, PLAN_MEM_BUFFERS, x->gathered - qw, "gathered weights",
		    "%s%d layer%s of %s params (+ %s)",
		    s->plan.zero == 2 ? "SHARD_GRAD_OP keeps all layers unsharded; " : "ZeRO-3: ",
		    mem_gathered_layers(s, w->stage), mem_gathered_layers(s, w->stage) == 1 ? "" : "s",
		    qty(w->b.layer_max, b, sizeof b), ends_words(s, w->stage));
	add(o, PLAN_MEM_WEIGHTS, x->cache, "autocast weight cache",
	    "16-bit casts of %s fp32 params x 2 B, freed before the backward",
	    qty(w->b.train, a, sizeof a));
	add(o, PLAN_MEM_GRADIENTS, x->G, "gradients",
	    "%s params x %.4g B from each chunk's first backward%s", qty(w->b.train, a, sizeof a),
	    w->b.g,
	    s->plan.zero >= 3 && plan_zero3_unsharded_acc(s)
	            ? plan_zero3_pp_gathered(s)
	                      ? " (unsharded while accumulating: torch pipelining reduces them "
	                        "after the chunk's last backward)"
	                      : " (unsharded while accumulating, FSDP no_sync)"
	            : "");
	add(o, PLAN_MEM_GRADIENTS, x->layer_grad, "layer gradients",
	    "one layer's unsharded gradients in its backward");
	add(o, PLAN_MEM_GRADIENTS, x->step_grads, "gradients", "%s params x %.4g B at the step",
	    qty(w->b.train, a, sizeof a), w->b.g);
	add(o, PLAN_MEM_GRADIENTS, x->half, "backward's 16-bit gradients",
	    ".grad of %s params x %.4g B at the backward's end, then added into the buffer "
	    "and freed",
	    qty(w->b.train, a, sizeof a), w->b.w);
	moment_step_temps(w, x, o);
}

static void runtime_terms(const mw *w, plan_mem_peak *o)
{
	char a[32];
	add(o, PLAN_MEM_RUNTIME, w->context, "CUDA context", "context and loaded kernels");
	add(o, PLAN_MEM_RUNTIME, w->nccl, "NCCL", "its module and state, once in any communicator");
	add(o, PLAN_MEM_RUNTIME, w->comms, "NCCL buffers", "%d communicators x %s", w->ncomms,
	    bq(w->s->fw.comm_bytes, a, sizeof a));
	add(o, PLAN_MEM_RUNTIME, w->paged, "paged optimizer states",
	    "unified memory: %s params x %.4g B", qty(w->b.train, a, sizeof a), w->b.paged);
}

/* What the device leaves the allocator's cache beside `alloc` allocated
 * (unbounded when `alloc` itself does not fit: the demand then shows by how
 * much). */
static double room_of(const plan_scenario *s, double alloc, double runtime)
{
	double r = s->gpu.hbm_bytes - runtime - alloc;
	return r >= 0 ? r : HUGE_VAL;
}

/* The reserved bytes of `alloc` allocated at the step's peak: the other
 * streams' cached blocks (`held`) and the overhead, capped by what the device
 * leaves beside the runtime (the allocator frees its cache and retries before
 * it fails). */
static double reserved_of(const plan_scenario *s, double alloc, double held, double runtime)
{
	double room = room_of(s, alloc, runtime), extra = held + alloc * s->fw.allocator_overhead;
	return alloc + (extra < room ? extra : room);
}

/* allocated, reserved (the other streams' cached blocks and the allocator's
 * overhead, capped by the device; at a checkpoint after the step, `floor` >
 * 0: the training peak's reserved, kept) and device; the verdict. */
static void counters(const mw *w, double floor, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	double runtime = w->runtime, alloc = 0;
	for (int c = 0; c < PLAN_MEM_FRAGMENTATION; c++)
		alloc += o->bytes[c];
	double cap = s->gpu.hbm_bytes, room = room_of(s, alloc, runtime);
	double pool = w->pre_pool < room ? w->pre_pool : room;
	double idle = floor > 0 ? w->idle_gather : 0;
	idle = idle < room - pool ? idle : room - pool;
	char a[32], b[32];
	add(o, PLAN_MEM_FRAGMENTATION, pool, "offload copy stream",
	    "FSDP's pre-unshard stream's cached block for the shards copied in: the larger of "
	    "the root's shard and two layers'");
	add(o, PLAN_MEM_FRAGMENTATION, idle, "idle all-gather blocks",
	    "the step's gathered layers, cached on FSDP's all-gather stream, no use to the "
	    "default stream's copies");
	double held = pool + idle;
	double want = alloc * s->fw.allocator_overhead, frag = want;
	if (floor > 0)
		want = frag = floor > alloc + held ? floor - alloc - held : 0;
	else if (held + frag > room)
		frag = room - held;
	if (floor > 0)
		add(o, PLAN_MEM_FRAGMENTATION, frag, "allocator cache",
		    "reserved - allocated: the step peak's reserved %s, kept, over %s allocated",
		    bq(floor, a, sizeof a), bq(alloc, b, sizeof b));
	else
		add(o, PLAN_MEM_FRAGMENTATION, frag, "allocator cache",
		    "reserved - allocated: %.3g x %s allocated%s", s->fw.allocator_overhead,
		    bq(alloc, a, sizeof a), frag < want - 1 ? ", capped by the device" : "");
	o->allocated = alloc;
	o->reserved = alloc + o->bytes[PLAN_MEM_FRAGMENTATION];
	o->device = o->reserved + runtime;
	o->demand = alloc + w->pre_pool + idle + want + runtime;
	o->capacity = cap;
	o->verdict = plan_mem_verdict(alloc, runtime, o->device, cap);
}

/* The checkpoint after the step (checkpoint_shards; mem_size_stage derives its
 * bytes): the peak when it allocates more than the step's largest moment.
 * The caching allocator keeps what the step reserved (nothing empties it
 * between the step and the save), and the state dict's clones, each a
 * parameter's chunk, fit the blocks the step's activations left cached on
 * the default stream, so the checkpoint's reserved is the larger of the step
 * peak's reserved (*floor) and its own allocated beside the blocks other
 * streams keep (counters). */
static bool save_moment(const mw *w, const cand *best, double *floor)
{
	if (!(w->save_copy > 0))
		return false;
	double S = static_sum(w), train = S + best->total,
	       save = S + w->save_copy + w->save_root;
	if (!(save > train))
		return false;
	*floor = reserved_of(w->s, train, w->pre_pool, w->runtime);
	return true;
}

static void save_terms(const mw *w, plan_mem_peak *o)
{
	char a[32];
	if (w->s->fw.checkpoint_offload)
		add(o, PLAN_MEM_WEIGHTS, w->save_copy, "state-dict unit",
		    "the largest unit gathered (%s params) while its state dict is copied to the "
		    "CPU: FULL_STATE_DICT with offload_to_cpu",
		    qty(w->b.layer_max, a, sizeof a));
	else
		add(o, PLAN_MEM_WEIGHTS, w->save_copy, "state-dict shards",
		    "a copy of every parameter's local shard at its stored bytes (%s params / "
		    "shards %.0f): FSDP's SHARDED_STATE_DICT clones each chunk on the GPU",
		    qty(w->b.dense + w->b.experts, a, sizeof a), w->shards);
	add(o, PLAN_MEM_BUFFERS, w->save_root, "gathered root",
	    "the root unit (embedding, output layer, final norm), gathered while the state "
	    "dict is built");
}

/* Inference (prefill of the global batch): the weights (all of them, or with
 * offload_params the two layers being streamed); the working set of the one
 * layer running plus the KV cache the prefill leaves for generation: 2 (K, V)
 * x kv width / tp x seq x micro-batch x the stage's layers x micro-batches,
 * in 16 bits. */
static void inference_terms(const mw *w, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	work_shard sh = plan_shard(s);
	char a[32];
	double we = s->dtype == HW_FP32 || s->dtype == HW_TF32 ? 4.0 : 2.0;
	int layers = plan_stage_layers(s, w->stage);
	double params = w->b.dense + w->b.experts;
	if (p->offload_params != PLAN_OFFLOAD_NONE)
		add(o, PLAN_MEM_WEIGHTS, 2.0 * work_params_layer(m) / p->tp * we, "streamed layers",
		    "2 layers x %s params x %.0f B", qty(work_params_layer(m) / p->tp, a, sizeof a),
		    we);
	else
		add(o, PLAN_MEM_WEIGHTS, params * we, "weights", "%s params x %.0f B",
		    qty(params, a, sizeof a), we);
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double kv = (g >= p->tp ? g / p->tp : 1.0) * hd, e = we < 4.0 ? 2.0 : 4.0;
	double cache = 2.0 * kv * sh.seq * sh.micro_batch * e * layers * plan_microbatches(p);
	add(o, PLAN_MEM_ACTIVATIONS, work_activation_bytes(m, &sh, WORK_RECOMPUTE_NONE),
	    "running layer", "one layer's activations: %s B",
	    qty(work_activation_bytes(m, &sh, WORK_RECOMPUTE_NONE), a, sizeof a));
	add(o, PLAN_MEM_ACTIVATIONS, cache, "KV cache",
	    "2 x kv width %.0f x s %d x b %d x %.0f B x %d layers x %d micro-batches", kv, sh.seq,
	    sh.micro_batch, e, layers, plan_microbatches(p));
	add(o, PLAN_MEM_BUFFERS, p->pp > 1 ? 4.0 * work_p2p_bytes(m, &sh) : 0, "pipeline buffers",
	    "4 send/receive activations");
	snprintf(o->moment, sizeof o->moment, "the prefill of the last micro-batch");
	o->op = -1;
}

static void peak(const plan_scenario *s, int stage, plan_mem_peak *out, bool brief)
{
	memset(out, 0, offsetof(plan_mem_peak, term));
	out->brief = brief;
	mw w;
	if (!open_stage(s, stage, &w, false)) {
		snprintf(out->moment, sizeof out->moment, "out of memory walking the schedule");
		return;
	}
	double floor = 0;
	if (s->inference) {
		inference_terms(&w, out);
	} else {
		cand best;
		walk(&w, &best, NULL, NULL, NULL, 0);
		static_terms(&w, out);
		if (save_moment(&w, &best, &floor)) {
			save_terms(&w, out);
			char a[32];
			if (!brief)
				snprintf(out->moment, sizeof out->moment,
				         "saving a checkpoint after the step (the sharded state "
				         "dict's copies), beside the step peak's %s reserved",
				         bq(floor, a, sizeof a));
			out->op = -1;
			out->checkpoint = true;
		} else {
			moment_terms(&w, &best, out);
			if (!brief)
				moment(&w, &best, out->moment, sizeof out->moment);
			out->op = best.op;
		}
	}
	runtime_terms(&w, out);
	if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE && s->fw.offload_fill > 0) {
		double alloc = 0, left;
		for (int c = 0; c < PLAN_MEM_FRAGMENTATION; c++)
			alloc += out->bytes[c];
		left = s->gpu.hbm_bytes - w.runtime - alloc;
		char a[32];
		add(out, PLAN_MEM_OPTIMIZER, s->fw.offload_fill * left, "states kept on the GPU",
		    "the framework fills %.3g of the %s left with offloaded states",
		    s->fw.offload_fill, bq(left, a, sizeof a));
	}
	counters(&w, floor, out);
	close_stage(&w);
}

void plan_memory_peak(const plan_scenario *s, int stage, plan_mem_peak *out)
{
	peak(s, stage, out, false);
}

void plan_memory_totals(const plan_scenario *s, int stage, plan_mem_peak *out)
{
	peak(s, stage, out, true);
}

void plan_memory(const plan_scenario *s, int stage, double bytes[PLAN_MEM_COUNT])
{
	plan_mem_peak p;
	plan_memory_totals(s, stage, &p);
	memcpy(bytes, p.bytes, sizeof p.bytes);
}

int plan_memory_curve(const plan_scenario *s, int stage, double *start, double *peak, double *end,
                      int max)
{
	mw w;
	if (s->inference || !open_stage(s, stage, &w, true))
		return 0;
	cand best;
	walk(&w, &best, start, peak, end, max);
	int n = w.nops + 1;
	close_stage(&w);
	return n;
}

/* From the end of the stage's last forward or backward (what the pipeline
 * leaves allocated: the static terms, the gradients, anything the loop
 * holds) through the optimizer step's candidate (walk_step): the peak that
 * max_memory_allocated reads after a reset between the two. nanotron resets
 * the counters there in the steps it logs (logged_peak, nanotron.ini). Not
 * counted: the offloaded states a framework fills the GPU's room with
 * (offload_fill, sized against the step's peak in peak()), which no
 * framework that logs so keeps. */
double plan_memory_after_pipeline(const plan_scenario *s, int stage)
{
	int n = plan_memory_curve(s, stage, NULL, NULL, NULL, 0); /* the ops and the step */
	double *a = n > 0 ? malloc(3 * (size_t)n * sizeof *a) : NULL, v = 0;
	if (a && plan_memory_curve(s, stage, a, a + n, a + 2 * n, n) == n) {
		const double *peak = a + n, *end = a + 2 * n;
		v = peak[n - 1];
		if (n >= 2 && end[n - 2] > v)
			v = end[n - 2];
	}
	free(a);
	return v;
}

/* The most loaded stage (the largest demand) on the GPU the plan's verdict
 * is decided on (plan_memory_fit's basis: other_gpu's stages when
 * `other`): its demand and device bytes. */
static double worst_demand(const plan_scenario *s, bool other, double *device)
{
	double worst = -1;
	for (int k = 0; k < s->plan.pp; k++) {
		plan_mem_peak p;
		if (other) {
			if (!plan_memory_other(s, k, false, &p))
				continue;
		} else {
			plan_memory_totals(s, k, &p);
		}
		if (p.demand > worst) {
			worst = p.demand;
			*device = p.device;
		}
	}
	return worst;
}

static int by_saving(const void *a, const void *b)
{
	double x = ((const plan_mem_cut *)a)->saved, y = ((const plan_mem_cut *)b)->saved;
	return (x < y) - (x > y);
}

/* Change k of the list (0 recompute, 1 ZeRO, 2 micro-batch, 3 optimizer
 * offload, 4 checkpoint) into x and c; false when it does not apply. */
static bool cut_change(const plan_scenario *s, int k, plan_scenario *x, plan_mem_cut *c)
{
	const plan_framework *f = &s->fw;
	int zmax = s->plan.pp > 1 ? f->zero_max_pp : f->zero_max;
	*x = *s;
	memset(c, 0, sizeof *c);
	if (k == 0) {
		if (s->plan.recompute == WORK_RECOMPUTE_FULL && !plan_recompute_partial(&s->plan))
			return false;
		x->plan.recompute = WORK_RECOMPUTE_FULL;
		x->plan.recompute_layers = 0;
		snprintf(c->what, sizeof c->what, "%s",
		         plan_recompute_partial(&s->plan) ? "recompute_layers = 0 (all)"
		                                          : "recompute = full");
		snprintf(c->term, sizeof c->term, "kept activations");
	} else if (k == 1) {
		if (s->plan.zero >= zmax || s->plan.dp * (s->plan.cp > 1 ? s->plan.cp : 1) < 2)
			return false;
		x->plan.zero = s->plan.zero + 1;
		snprintf(c->what, sizeof c->what, "zero = %d", x->plan.zero);
		snprintf(c->term, sizeof c->term,
		         x->plan.zero == 1   ? "optimizer states"
		         : x->plan.zero == 2 ? "gradients"
		                             : "weights");
	} else if (k == 2) {
		if (s->plan.micro_batch < 2 || s->plan.micro_batch % 2)
			return false;
		x->plan.micro_batch = s->plan.micro_batch / 2;
		snprintf(c->what, sizeof c->what, "micro_batch = %d (twice the micro-batches)",
		         x->plan.micro_batch);
		snprintf(c->term, sizeof c->term, "activations and loss");
	} else if (k == 3) {
		if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE || !f->offload_optimizer ||
		    s->inference)
			return false;
		x->plan.offload_optimizer = PLAN_OFFLOAD_CPU;
		if (x->plan.zero < 1)
			x->plan.zero = 1; /* ZeRO-Offload partitions the states */
		snprintf(c->what, sizeof c->what, "offload_optimizer = cpu%s",
		         s->plan.zero < 1 ? " (with zero = 1)" : "");
		snprintf(c->term, sizeof c->term, "optimizer states and gradients");
	} else {
		/* the checkpoint's shard copies: accelerate's other state-dict
		 * type, FULL_STATE_DICT through the CPU (memsize.c) */
		if (!f->checkpoint_shards || f->checkpoint_offload || s->inference)
			return false;
		x->fw.checkpoint_offload = true;
		snprintf(c->what, sizeof c->what, "checkpoint_offload = true (FULL_STATE_DICT)");
		snprintf(c->term, sizeof c->term, "state-dict shards");
	}
	/* only plans the scenario's framework and podsim run */
	sim_diag *d = sim_diag_new();
	bool ok = d && plan_check(x, d) == SIM_OK;
	sim_diag_free(d);
	return ok;
}

/* The cuts that save (idle false) or those that save nothing (idle). */
static int cuts(const plan_scenario *s, plan_mem_cut *out, int max, bool idle)
{
	plan_mem_fit f0;
	plan_memory_fit(s, &f0);
	bool other = f0.by_other && f0.where != PLAN_OOM_GPU;
	double d0, base = worst_demand(s, other, &d0);
	int n = 0;
	for (int k = 0; k < 5 && n < max; k++) {
		plan_scenario x;
		plan_mem_cut c;
		if (!cut_change(s, k, &x, &c))
			continue;
		/* the saving and the device after on the same GPU; the
		 * verdict after the plan's (the worst over its GPU types) */
		c.saved = base - worst_demand(&x, other, &c.device);
		plan_mem_fit after;
		plan_memory_fit(&x, &after);
		c.verdict = after.verdict;
		if ((c.saved > 0) != idle)
			out[n++] = c;
	}
	if (!idle)
		qsort(out, (size_t)n, sizeof *out, by_saving);
	return n;
}

int plan_memory_cuts(const plan_scenario *s, plan_mem_cut *out, int max)
{
	return cuts(s, out, max, false);
}

int plan_memory_cuts_idle(const plan_scenario *s, plan_mem_cut *out, int max)
{
	return cuts(s, out, max, true);
}
