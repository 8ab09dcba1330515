/* estz3.c - the sweep pre-screen's ZeRO-3 / FSDP data-parallel time in
 * closed form (estimate.c's dp_exposed for zero = 3): per layer its unit's
 * gathers and reduce-scatter as plan_build emits them (emit.c, grads.c),
 * DeepSpeed's IPG buckets and the hold-ups they cause, the ends (embedding
 * and head) as each framework moves them, the host's work at the gathers,
 * and what the compute beside them loses to the interference. */
#include "sweep_int.h"

#include <math.h>
#include <stdlib.h>

/* A ZeRO-3 / FSDP layer's collectives (dp_exposed): its unit's bytes, the
 * gathers of its pieces (ag, with the shard's casts) and its
 * reduce-scatter with FSDP1's passes and the casts around it (rs, cz the
 * casts alone), the wire's width over the buffer's (wire), the unit's
 * 16-bit bytes (lw) and gradient bytes (lg), the layer whose unit stands for
 * all (rep), the pieces (ng). */
typedef struct z3_layer {
	double lw, lg, ag, rs, cz, wire;
	double ag1; /* ZeRO++ hpZ: a step's first gather, over the shard group
	             * (ag is then the later ones', over the hpZ group) */
	double rsi; /* the share of rs beside the compute (z3_bucket_tail) */
	double cp, cg; /* ZeRO-Infinity: the shard's copy in, its gradient's out */
	int rep, ng;
} z3_layer;

static double vpp_of(const plan_scenario *s)
{
	return s->plan.vpp > 1 ? s->plan.vpp : 1;
}

/* The layer whose unit stands for all: an MoE model's first MoE layer,
 * else the first. */
static int rep_layer(const plan_scenario *s)
{
	for (int l = 0; l < s->model.layers; l++)
		if (work_layer_is_moe(&s->model, l))
			return l;
	return 0;
}

/* A unit's gathers of `lw` 16-bit bytes in `ng` pieces (shares ga) over
 * group grp, as emit.c unit_gather issues them: per piece, under ZeRO++
 * qwZ, the shard's quantisation, the int8 gather, the scales' gather and
 * the dequantisation (plan_zeropp_*), else the gather alone; then
 * DeepSpeed's copy out of the flat buffer (plan_zero3_gather_copy_s). */
static double z3_gathers(const plan_scenario *s, const net_group *grp, double lw,
                         const double *ga, int ng)
{
	double wb = plan_zero3_gather_width(s), wire = plan_zeropp_wire(s), t = 0;
	double n = grp->size > 1 ? grp->size : 1;
	for (int i = 0; i < ng; i++) {
		double e = lw * ga[i] / wb, sc = plan_zeropp_scale_bytes(s, e);
		if (!(ga[i] > 0))
			continue;
		t += sweep_coll_time(s, NET_ALLGATHER, grp, e * wire) +
		     (sc > 0 ? sweep_coll_time(s, NET_ALLGATHER, grp, sc) : 0) +
		     plan_zeropp_quant_s(s, e / n) + plan_zeropp_quant_s(s, e) +
		     (grp->size > 1 && s->fw.zero3_gather_copy == PLAN_GATHER_COPY_DP
		              ? plan_zero3_gather_copy_s(s, e)
		              : 0);
	}
	return t;
}

static void z3_layer_costs(const plan_scenario *s, const plan_groups *g, z3_layer *z)
{
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES];
	double wb = plan_zero3_gather_width(s);
	/* the unit of a layer (plan_zero3_layer, as plan_build's
	 * fsdp_unit_init): its own parameters, not the stage's averaged over
	 * its layers, which put the embedding and the output layer into every
	 * layer's gathers and reductions where z3_ends moves them (the
	 * quickstart's model at tp 2: 69.1 MB a gather against the graph's
	 * 63.7; torchtitan's ZeRO-3, dp 8, one sequence a micro-batch, 5.7 %
	 * over the simulated step). An MoE model: its MoE layer's unit for
	 * every layer, the routed experts under ep > 1 gathered and reduced
	 * on their own over the expert-DP group */
	double unit, sep = 0, gbytes = plan_grad_bytes(s);
	int rep = rep_layer(s);
	int ng = plan_zero3_layer(s, rep, &unit, &sep, ga, gr);
	double lw = unit * wb, lg = unit * gbytes;
	double sh = lw / wb / (g->shard.size > 1 ? g->shard.size : 1); /* shard elements */
	/* fsdp_casts: the shard's cast before each gather, and after each
	 * reduce-scatter its cast back (accumulation on later micro-batches
	 * left out of this pre-screen); the gathers of the layer's pieces
	 * (plan_zero3_pieces: its modules at their sizes) */
	double cast = plan_fsdp_gather_cast_s(s, sh);
	double ag1 = cast + z3_gathers(s, &g->shard, lw, ga, ng);
	double ag = g->hpz.size > 1 ? cast + z3_gathers(s, &g->hpz, lw, ga, ng) : ag1;
	/* the reduce-scatter at the wire's bytes (plan_zero3_wire_bytes:
	 * grad_wire_dtype), the casts to and from it beside FSDP1's
	 * passes (plan_zero3_cast_bytes) */
	double wire = plan_zero3_wire_bytes(s) / plan_grad_bytes(s);
	double cz = plan_zero3_cast_s(s, lw / wb, false) + plan_zero3_cast_s(s, sh, true);
	double rs = sweep_coll_time(s, NET_REDUCESCATTER, &g->shard, lg * wire);
	rs += plan_fsdp_reduce_s(s, lw / wb) + plan_fsdp_post_reduce_s(s, sh, false) + cz;
	if (sep > 0) {
		double xs = sep / (g->edp.size > 1 ? g->edp.size : 1);
		double x = plan_fsdp_gather_cast_s(s, xs) +
		           sweep_coll_time(s, NET_ALLGATHER, &g->edp, sep * wb);
		ag += x, ag1 += x;
		rs += sweep_coll_time(s, NET_REDUCESCATTER, &g->edp, sep * gbytes * wire) +
		      plan_zero3_cast_s(s, sep, false) + plan_fsdp_reduce_s(s, sep) +
		      plan_fsdp_post_reduce_s(s, xs, false) + plan_zero3_cast_s(s, xs, true);
	}
	/* ZeRO-Infinity (offload_params, training: emit.c unit_gather,
	 * reduce_tail): the rank's shard copied in from the host (NVMe through
	 * it) on the offload stream before its gather, and its gradient shard
	 * copied out after its reduction, on the same stream */
	double cp = 0, cg = 0;
	if (s->plan.offload_params != PLAN_OFFLOAD_NONE) {
		/* (the secondary shard's under hpZ: most gathers' copy) */
		const net_group *cg_grp = g->hpz.size > 1 ? &g->hpz : &g->shard;
		double n = cg_grp->size > 1 ? cg_grp->size : 1;
		double in = lw / n + (g->edp.size > 1 ? sep * wb / g->edp.size : 0);
		cp = plan_host_copy_s(s, in, s->plan.offload_params == PLAN_OFFLOAD_NVME);
		cg = plan_host_copy_s(s, lg / n, false);
	}
	*z = (z3_layer){lw, lg, ag, rs, cz, wire, ag1, rs, cp, cg, rep, ng};
}

/* A bucket's reduction of `bytes` gradient in `tensors` tensors, as
 * emit.c ipg_flush issues it: its calls' reduce-scatters (one, or one a
 * tensor: zero3_reduce_calls), or under ZeRO++ qgZ its 1-D tensors'
 * reduce-scatters and, per 2-D tensor, qgz_tensor's kernels and four
 * all-to-alls (plan_qgz_split, plan_qgz_kernels_s), a reduce-scatter for
 * those the world does not divide. */
static double z3_bucket_reduce(const plan_scenario *s, const plan_groups *g, double bytes,
                               double tensors, double wire)
{
	if (g->qglobal.size <= 1) {
		int c = plan_zero3_reduce_calls(s, tensors);
		return c * sweep_coll_time(s, NET_REDUCESCATTER, &g->shard, bytes * wire / c);
	}
	int nm, nq, nv;
	double vec, mat, gb = plan_grad_bytes(s), kt[3], mats, vecs;
	plan_qgz_bucket_tensors(s, rep_layer(s), tensors, &mats, &vecs);
	plan_qgz_split(s, bytes, mats, vecs, gb, &nm, &nq, &nv, &vec, &mat);
	double e = mat / gb, sc = plan_qgz_scale_bytes(e, g->dp.size);
	double l = g->qlocal.size > 1 ? g->qlocal.size : 1;
	plan_qgz_kernels_s(s, e, g->qlocal.size, g->qglobal.size, kt);
	double one = kt[0] + kt[1] + kt[2] + sweep_coll_time(s, NET_ALLTOALL, &g->qlocal, e / 2) +
	             sweep_coll_time(s, NET_ALLTOALL, &g->qlocal, sc) +
	             sweep_coll_time(s, NET_ALLTOALL, &g->qglobal, e / 2 / l) +
	             sweep_coll_time(s, NET_ALLTOALL, &g->qglobal, sc / l);
	return (nv > 0 ? nv * sweep_coll_time(s, NET_REDUCESCATTER, &g->shard, vec * wire) : 0) +
	       (nm > nq ? (nm - nq) * sweep_coll_time(s, NET_REDUCESCATTER, &g->shard, mat * wire)
	                : 0) +
	       nq * one;
}

/* DeepSpeed's IPG buckets (plan_zero3_bucket_list, each at its size: the
 * root unit's may be the largest by far), each in its calls
 * (zero3_reduce_calls): those reduced while layers' backwards follow
 * spread over them (z->rs becomes their share per layer, with the casts),
 * the rest after the backward of every micro-batch, exposed, returned: the
 * last, and the one the root unit's gradients close, which arrive after
 * the last layer's (the quickstart's model under deepspeed at dp 16: its
 * third bucket of layers, flushed as the embedding's gradient arrives, was
 * counted as a hold-up of a layer after it, 6.0 ms a micro-batch where the
 * graph exposes it whole, 8.2; the step 1.5 % over the simulated one). The
 * host's per-rank slicing, mostly hidden behind its lead, is left out here.
 * 0 where the framework has no such buckets.
 * *hol: what the buckets reduced mid-backward hold up per micro-batch. The
 * gathers and the reduce-scatters share the data-parallel group's one NCCL
 * stream (the graph's DP stream; ProcessGroupNCCL runs a group's
 * collectives in order on its stream), so a bucket's reduce-scatter r,
 * issued as a layer's backward ends, delays the gather the next layer's
 * backward prefetches for the one after it: that layer waits
 * max(0, r + ag - bwd_l) (the layer after the flush starts at once, its
 * gather done; the one after it finds its gather queued behind r). A
 * bucket of a GB, 5 ms on two nodes beside 3.3 ms of a layer's backward,
 * holds up 2.7 ms; averaged over the layers (z->rs) it held up nothing.
 * A bucket that holds up a layer outlasts the compute beside it, which
 * ends inside it, slowed by the interference at no further cost (as
 * sweep_z3_exposed's pb): z->rsi, the share beside the compute that the
 * interference is charged on, holds only the buckets that do not (the
 * quickstart's model under deepspeed at dp 16, one sequence a
 * micro-batch: its two 8 ms buckets charged again, 2.4 ms a
 * micro-batch). */
static double z3_bucket_tail(const plan_scenario *s, const plan_groups *g, int layers,
                             double bwd_l, z3_layer *z, double *hol)
{
	double tail = 0;
	int cap = layers * z->ng + 2;
	double *bk = malloc(2 * (size_t)cap * sizeof *bk);
	int mid = 0, nb = bk ? plan_zero3_bucket_list(s, 0, bk, bk + cap, cap, &mid) : 0;
	*hol = 0;
	if (nb > 0 && nb <= cap && layers > 0) {
		double rs = 0, rsi = 0;
		for (int i = 0; i < nb; i++) {
			/* the bucket's pass before it on the DP stream (emit.c
			 * ipg_flush: the copy in, the concatenation of more than one
			 * tensor, the division, 2 B of traffic per byte each), then
			 * its reduce-scatter */
			double pass = hw_mem_time(&s->gpu, (bk[cap + i] > 1 ? 6.0 : 4.0) * bk[i]);
			double t = pass + z3_bucket_reduce(s, g, bk[i], bk[cap + i], z->wire);
			*(i < mid ? &rs : &tail) += t;
			if (i < mid)
				*hol += fmax(0, t + z->ag - bwd_l);
			if (i < mid && t + z->ag <= bwd_l)
				rsi += t;
		}
		z->rs = rs / layers + z->cz;
		z->rsi = rsi / layers + z->cz;
	}
	free(bk);
	return tail;
}

/* The ends' exposed time (plan_zero3_ends; emit.c "The ends"), the worse
 * of the first and last stage's, per micro-batch (per step under
 * zero3_pp_gathered or, for the reductions, under no_sync: *once): flat's
 * gather before anything computes and its reduction after the backward;
 * units' embedding gather as the forward starts and its reduction after
 * the backward (its backward gather and the head's prefetched behind a
 * layer, the head's reduction behind the last layer's backward); modules'
 * embedding gather at the forward's start (the head's prefetched, kept
 * to its backward; their gradients in DeepSpeed's buckets,
 * z3_bucket_tail);
 * step's gathers once a step, its reductions as units'. The prefetched
 * ones, the head's in the forward and, under modules and units, the
 * embedding's again before its backward, hide behind the compute of the
 * layer they are issued beside (fwin: a layer's forward; bwin: its
 * backward less the reduce-scatter queued before them), their excess
 * exposed (the quickstart's 1.7B under deepspeed, dp 16 on one 100 Gb/s
 * NIC a node, one sequence a micro-batch: 3 gathers of 19 ms a
 * micro-batch on the graph's saturated DP stream, 1 counted before; the
 * step 5.5 -> 0.9 % under the simulated one). */
static double z3_ends(const plan_scenario *s, const plan_groups *g, const net_group *grp,
                      double wire, double fwin, double bwin, double *once)
{
	double wb = plan_zero3_gather_width(s), worst = 0;
	double n = g->shard.size > 1 ? g->shard.size : 1, gbytes = plan_grad_bytes(s);
	int mode = s->fw.zero3_root, stages[2] = {0, plan_last_rank(&s->plan)};
	bool kept = plan_zero3_pp_gathered(s), nosync = plan_zero3_unsharded_acc(s);
	*once = 0;
	for (int k = 0; k < 2; k++) {
		double ga[2], gr[2], ag[2], rs[2];
		int np = plan_zero3_ends(s, stages[k], ga, gr);
		for (int i = 0; i < 2; i++) {
			double one = 1; /* the end's gather is one piece */
			ag[i] = ga[i] > 0 ? plan_fsdp_gather_cast_s(s, ga[i] / n) +
			                            z3_gathers(s, grp, ga[i] * wb, &one, 1)
			                  : 0;
			rs[i] = gr[i] > 0 && s->fw.zero3_reduce != PLAN_ZERO3_REDUCE_BUCKET
			                ? sweep_coll_time(s, NET_REDUCESCATTER, &g->shard, gr[i] * gbytes * wire) +
			                          plan_fsdp_reduce_s(s, gr[i]) +
			                          plan_fsdp_post_reduce_s(s, gr[i] / n, false)
			                : 0;
		}
		double gather = np == 0 ? 0 : ag[0];
		double reduce = np == 0 || mode == PLAN_ZERO3_ROOT_MODULES ? 0 : rs[0];
		bool g1 = kept || mode == PLAN_ZERO3_ROOT_STEP; /* gathered once a step */
		/* the prefetched ones (emit.c end_gathers, ends_prefetch) beyond
		 * the compute beside them: the head's in the forward, the
		 * embedding's again in the backward */
		bool two = np == 2 && (mode == PLAN_ZERO3_ROOT_MODULES || mode == PLAN_ZERO3_ROOT_UNITS);
		if (two)
			gather += fmax(0, ag[1] - fwin) + fmax(0, ag[0] - bwin);
		if (g1 || nosync)
			*once = fmax(*once, (g1 ? gather : 0) + (kept || nosync ? reduce : 0));
		worst = fmax(worst, (g1 ? 0 : gather) + (kept || nosync ? 0 : reduce));
	}
	return worst;
}

/* ZeRO-3 under torch pipelining (plan_zero3_pp_gathered; emit.c
 * build_fsdp_reduce_after): each layer gathered once, in the step's first
 * forward through it (the next layer's while this one computes; the
 * chain's first waits whole), none after; the reduce-scatters (and the
 * replicas' all-reduce ar) after the last backward, back to back on the DP
 * stream, exposed (a chunk's overlap with the later chunks' backwards left
 * out of this pre-screen); the compute beside the gathers at 1 - i, the
 * larger of that and the gather's excess. What a step exposes, but the
 * ends. */
static double z3_kept_step(const plan_scenario *s, const plan_groups *g, const z3_layer *z,
                           double fwd_l, int layers, double ar)
{
	double i = sweep_coll_intf(s, NET_ALLGATHER, &g->shard, z->lw);
	return layers * (fmax(z->ag - fwd_l, i * fmin(z->ag, fwd_l)) + z->rs + ar) + z->ag;
}

/* The host's work at each layer's gathers (emit.c zero3_entry), per layer
 * and micro-batch in both passes (*hx_f the forward's): under zero3_sync
 * with the GPU idle, with what the bucket slicing of the layer's backward
 * leaves beyond its GPU time and the layer's reduction, which the next
 * layer's sync waits for; otherwise what outlasts the layer's compute. */
static double z3_host(const plan_scenario *s, const z3_layer *z, int layers, double fwd_l,
                      double bwd_l, double *hx_f)
{
	double H = plan_zero3_gather_host_s(s, z->rep);
	*hx_f = 0;
	if (H <= 0 && !s->fw.zero3_sync)
		return 0;
	double mx, last, hs = 0;
	plan_zero3_buckets(s, 0, &mx, &last, &hs);
	*hx_f = s->fw.zero3_sync ? H : fmax(0, H - fwd_l);
	return s->fw.zero3_sync ? 2 * H + fmax(0, hs / (layers > 0 ? layers : 1) - bwd_l) + z->rs
	                        : fmax(0, H - fwd_l) + fmax(0, H - bwd_l);
}

/* DeepSpeed's reuse window (plan_zero3_reuse_layers): its last kr layers
 * gather nothing for their backward, the backward's first among them; what
 * that saves a step (the gathers' excess over each backward, `early` the
 * reduction beside the earlier micro-batches', `ar` the replicas' all-reduce
 * beside the last), *reused the chain's first gather it saves. */
static double z3_reuse(const plan_scenario *s, const z3_layer *z, int layers, int m,
                       double bwd_l, double early, double ar, double *reused)
{
	int kr = plan_zero3_reuse_layers(s, 0);
	*reused = 0;
	if (kr <= 0 || layers <= 0)
		return 0;
	*reused = z->ag;
	return kr * ((m - 1) * (fmax(0, z->ag + early - bwd_l) - fmax(0, early - bwd_l)) +
	             fmax(0, z->ag + z->rs + ar - bwd_l) - fmax(0, z->rs + ar - bwd_l));
}

/* ZeRO-3 / FSDP's exposed data-parallel time (dp_exposed), as plan_build's
 * fsdp_gather: each layer's parameters are gathered before its forward and
 * again before its backward (its pieces' collectives back to back on the DP
 * stream), the next layer's while this one computes, and its gradient
 * reduce-scattered after its backward on the same stream, after FSDP1's
 * passes over it (plan_fsdp_reduce_s, 0 for other frameworks): per layer
 * and micro-batch the forward waits for max(0, AG - fwd), the backward for
 * max(0, AG + passes + RS - bwd). */
void sweep_z3_split(const plan_scenario *s, const plan_groups *g, double fwd_l, double bwd_l,
                    int layers, int m, sweep_z3_parts *out)
{
	*out = (sweep_z3_parts){0};
	z3_layer z;
	z3_layer_costs(s, g, &z);
	/* FSDP2's copy-out of each gathered unit on the compute stream, after
	 * its gather and before the unit runs (emit.c copy_out): compute the
	 * gathers hide behind like the rest, counted as exposed below, once
	 * per gather (the ends' left out of this pre-screen) */
	double co = s->fw.zero3_gather_copy == PLAN_GATHER_COPY_COMPUTE
	                    ? plan_zero3_gather_copy_s(s, z.lw / plan_zero3_gather_width(s))
	                    : 0;
	fwd_l += co, bwd_l += co;
	double hol, tail = z3_bucket_tail(s, g, layers, bwd_l, &z, &hol);
	/* as fsdp_layer_grads: with hybrid sharding the shard's all-reduce over
	 * its replicas after every micro-batch's reduce-scatter
	 * (hsdp_grad_reduce = microbatch) or the last one's; under
	 * accumulate_unsharded (no_sync) nothing is reduced before the last
	 * micro-batch */
	double ar = g->replica.size > 1
	                    ? sweep_coll_time(s, NET_ALLREDUCE, &g->replica,
	                                z.lg * z.wire / (g->shard.size > 1 ? g->shard.size : 1))
	                    : 0;
	/* ZeRO++ hpZ: the ends' gathers over the hpZ group but in the step's
	 * first forward (the difference once a step, below) */
	const net_group *eg = g->hpz.size > 1 ? &g->hpz : &g->shard;
	double bwin = fmax(0, bwd_l - z.rs);
	double once, ends = z3_ends(s, g, eg, z.wire, fwd_l, bwin, &once), once1 = 0;
	double ends1 = eg == &g->shard ? ends : z3_ends(s, g, &g->shard, z.wire, fwd_l, bwin, &once1);
	if (plan_zero3_pp_gathered(s) && layers > 0) {
		out->step = z3_kept_step(s, g, &z, fwd_l, layers, ar) + once + layers * co;
		return;
	}
	bool nosync = plan_zero3_unsharded_acc(s);
	double ar_mb = nosync || s->fw.hsdp_reduce != PLAN_REDUCE_MICROBATCH ? 0 : ar;
	double early = nosync ? 0 : z.rs + ar_mb;
	double hx_f, hx = z3_host(s, &z, layers, fwd_l, bwd_l, &hx_f);
	/* the chain's ends, which no compute hides (fsdp_gather, reset per
	 * chain): each forward and backward waits for its first layer's gather,
	 * issued as the chain starts; each backward's last reduction (its first
	 * layer's) delays the next forward's first gather, queued behind it on
	 * the DP stream, or the optimizer step after the last micro-batch; a
	 * bucket tail (DeepSpeed's) stands in for it. A chain is a chunk's
	 * pass: with vpp chunks a stage, vpp of them a micro-batch each way
	 * (the ideal profile's ZeRO-3 at pp 2, 3 chunks, 6 micro-batches: 6.7
	 * % under the simulated step with one) */
	double chunk_f = layers > 0 ? z.cp + z.ag : 0;
	double chunk_b = layers > 0 ? z.cp + z.ag + (tail > 0 ? 0 : z.rs + ar) : 0;
	double reused, kept = z3_reuse(s, &z, layers, m, bwd_l, early, ar, &reused);
	/* under zero3_sync the reduction is not beside the backward: the next
	 * layer's entry waits for it with the GPU idle (hx), so the backward
	 * has only the prefetched gather beside it (deepspeed-2021's GPT-3
	 * 175B at dp 128, one sequence a micro-batch: 4.4 % over the simulated
	 * step with the reduction's excess and interference counted again) */
	double eb = s->fw.zero3_sync ? 0 : early;
	double ebs = s->fw.zero3_sync || nosync ? 0 : z.rsi; /* beside the compute */
	double el = s->fw.zero3_sync ? 0 : z.rs + ar;
	/* and the compute beside every gather and reduction runs at 1 - i (the
	 * GPU's interference, as the replay charges it), for as long as they run
	 * hidden behind it: the gathers' group's collectives at its channels'
	 * share, the replicas' all-reduce at its own (one rank a node: few
	 * channels, plan_comm_scale). Under ZeRO++ hpZ every gather but the
	 * step's first forward's runs over the node's hpZ group, on the node's
	 * channels (24 inside a DGX A100: ia), not the shard group's few
	 * across nodes (i), which the reductions beside the backward keep (the
	 * quickstart's 1.7B at dp 16 with hpZ, qwZ and qgZ, one 100 Gb/s NIC a
	 * node, one sequence a micro-batch: 4.4 % under the simulated step with
	 * the shard group's share for the gathers, 2.0 % with the node's); the
	 * step's first forward gathers over the shard group (pf1) */
	double hid = fmin(2 * z.ag + ebs, fwd_l + bwd_l);
	double hid_ar = fmin(ar_mb, fwd_l + bwd_l - hid);
	double shard_b = z.lg * z.wire / (g->shard.size > 1 ? g->shard.size : 1);
	double i_ar = hid_ar > 0 ? sweep_coll_intf(s, NET_ALLREDUCE, &g->replica, shard_b) * hid_ar : 0;
	/* Per pass, compute c beside a DP chain d slowed at 1 - i while the
	 * chain runs: the pass takes max(d, c + i min(c, d)), c plus
	 * max(d - c, i min(c, d)): where the chain sets the pass (d > c) the
	 * slowed compute ends inside it and costs nothing more (summing the
	 * two counted the interference twice there: torchtitan's ZeRO-3 at tp
	 * 2, dp 8, one sequence a micro-batch, 10 % over the simulated step) */
	double i = sweep_coll_intf(s, NET_ALLGATHER, &g->shard, z.lw);
	double ia = g->hpz.size > 1 ? sweep_coll_intf(s, NET_ALLGATHER, &g->hpz, z.lw) : i;
	/* ZeRO-Infinity's copies (z.cp, z.cg; 0 otherwise): a layer's gather
	 * waits for its shard's copy, issued with the prefetch as the layer
	 * before starts, and where the copies outlast the compute they run back
	 * to back on the offload stream, each gather behind its copy while the
	 * next copy runs: a layer every cp in the forward, every cp + cg in the
	 * backward (the gradient's copy out on the same stream), beside the DP
	 * stream's chain (llama2-13b-zero-offload.ini at ZeRO-3 with the
	 * parameters on NVMe, one sequence a micro-batch: 10.7 % under the
	 * simulated step without them; no interference from the copies) */
	double ib = ia * fmin(z.ag, bwd_l) + i * fmin(ebs, fmax(0, bwd_l - z.ag));
	double pf = fmax(fmax(z.cp, z.ag) - fwd_l, ia * fmin(z.ag, fwd_l));
	double pb = fmax(fmax(z.ag + eb, z.cp + z.cg) - bwd_l, ib);
	double pl = fmax(fmax(z.ag + el, z.cp + z.cg) - bwd_l, ib);
	/* the buckets' hold-ups beyond what the averaged chain's excess
	 * counts already, every micro-batch that reduces (z3_bucket_tail);
	 * under zero3_sync every gather waits for the device anyway (hx) */
	hol = s->fw.zero3_sync ? 0 : fmax(0, hol - layers * fmax(0, z.ag + early - bwd_l));
	/* per layer and micro-batch (the last micro-batch's backward pl, not
	 * pb: the difference once a step), per chunk's chain, per stage's
	 * micro-batch, per step */
	out->layer_f = pf + hx_f + co;
	out->layer_b = pb + (hx - hx_f) + i_ar + co;
	out->chunk_f = chunk_f;
	out->chunk_b = chunk_b;
	out->mb = tail + ends + (nosync ? 0 : hol) - reused;
	/* hpZ: the first micro-batch's forward gathers over the shard group
	 * (z.ag1) where the others' run over the hpZ group (z.ag): its
	 * layers' excess, each chunk's first gather and the ends' once a step */
	double pf1 = fmax(fmax(z.cp, z.ag1) - fwd_l, i * fmin(z.ag1, fwd_l));
	double first = layers * (pf1 - pf) + (layers > 0 ? vpp_of(s) * (z.ag1 - z.ag) : 0) +
	               (ends1 - ends) + (once1 > 0 ? once1 - once : 0);
	out->step = layers * (pl - pb) + (nosync ? hol : 0) + once - kept + first;
	out->walk = true;
}

double sweep_z3_exposed(const plan_scenario *s, const plan_groups *g, double fwd_l,
                        double bwd_l, int layers, int m)
{
	sweep_z3_parts z;
	sweep_z3_split(s, g, fwd_l, bwd_l, layers, m, &z);
	int vpp = s->plan.vpp > 1 ? s->plan.vpp : 1;
	return layers * (double)m * (z.layer_f + z.layer_b) +
	       (double)vpp * m * (z.chunk_f + z.chunk_b) + m * z.mb + z.step;
}

/* ZeRO-Inference (inference with offload_params; emit.c fsdp_gather,
 * build_add_copy): each layer's whole TP shard copied from the host over
 * the GPU's PCIe link (from NVMe through the host at the drives' rate
 * shared by the node's GPUs, the slower of the two), on the offload
 * stream, the next layer's issued as a layer starts, the chain's first
 * when it starts. Per micro-batch a layer then starts max(its compute, the
 * fetch) after the one before it: f + (L - 1) max(c, f) + c for L layers,
 * f + (L - 1) max(0, f - c) beyond their compute. GPT-3 175B on one A100
 * (gpt3-175b-zero-inference.ini): 4.4 GB a layer, 175 ms at 25 GB/s
 * against a 21 ms forward of one sequence; the pre-screen priced it as a
 * training step (44 s against 28 and 55 simulated at two and one
 * sequences a micro-batch, its bound above the first). */
double sweep_z3_stream_exposed(const plan_scenario *s, const plan_groups *g, double fwd_l,
                               int layers, int m)
{
	if (layers <= 0)
		return 0;
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], unit, sep = 0;
	plan_zero3_layer(s, rep_layer(s), &unit, &sep, ga, gr);
	if (g->edp.size <= 1) /* its experts whole on the rank: in unit (fsdp_unit_init) */
		sep = 0;
	double bytes = (unit + sep) * plan_zero3_gather_width(s);
	double f = plan_host_copy_s(s, bytes, s->plan.offload_params == PLAN_OFFLOAD_NVME);
	return m * (f + (layers - 1) * fmax(0, f - fwd_l));
}
