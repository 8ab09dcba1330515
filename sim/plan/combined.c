/* combined.c - moe_a2a_overlap: Megatron-Core's combined 1F1B, a forward
 * and a backward of two micro-batches emitted together, cut at the MoE
 * all-to-alls (the derivation below, with its sources).
 */
#include "build_int.h"

#include <stdlib.h>

/* moe_a2a_overlap: Megatron-Core's combined 1F1B ("EP A2A overlap",
 * overlap_moe_expert_parallel_comm). Sources, NVIDIA/Megatron-LM d98e8a64
 * (the same order at core_v0.14.0, 23e00ed096, 2025-10, the release
 * Megatron-Bridge 25.09 ran):
 *  - schedules.py:934-971 (get_pp_rank_microbatches): the interleaved
 *    schedule runs one more warm-up forward ("so that the forward and
 *    backward computations are independent in all 1f1b steps"), and
 *    schedules.py:1483-1509 turns each steady step into one
 *    combined_1f1b_schedule_for_interleaved_pipelining call with the
 *    forward of one virtual micro-batch and the backward of another;
 *    without a pipeline combined_1f1b.py:35-135 runs micro-batch 0's
 *    forward alone, then (forward i+1, backward i) pairs, then the last
 *    backward: the same as one extra warm-up forward (plan_warm_extra).
 *  - models/common/model_chunk_schedule_plan.py:499-630: a combined step
 *    runs the forward chunk's embedding, the backward chunk's output layer,
 *    then layer pairs (forward layer i with the backward's i-th layer from
 *    the end), then the backward's remaining layers, the forward's, the
 *    forward's output layer and loss, the backward's embedding.
 *  - model_chunk_schedule_plan.py:236-303 (TransformerLayerSchedulePlan.run),
 *    one layer pair, issued in this order:
 *        comm stream:  combine_b | dispatch_f -> dispatch_b | combine_f
 *        comp stream:  attn_f    | mlp_b -> mlp_dw_b -> mlp_f | attn_b -> attn_dw_b
 *    (attn = attention, norm, router, shared experts, dispatch preprocess:
 *    "pre_dispatch_computation", fine_grained_callables.py:20-130).
 *  - pipeline_parallel/utils.py:181-345 (ScheduleNode): each node waits on
 *    its micro-batch's chunk event before it runs on its stream and records
 *    it after: the nodes of one micro-batch run in their data order, the two
 *    micro-batches are joined only by each stream's issue order.
 * That is this graph: two cursors (build_emit_to) over the two chains, emitted in
 * that issue order so that each stream's FIFO (replay.c) holds it, each
 * chain's links waiting only for their own predecessor. The cuts per layer
 * (chain_cuts) are the all-to-alls: forward [.. dispatch) [dispatch ..
 * experts) [experts .. combine], backward [.. combine] [experts .. dispatch)
 * [dispatch ..]. So while one micro-batch's all-to-all runs on the EP stream
 * the other's compute runs, slowed by the GPU's interference (replay.c), and
 * a layer pair takes between max(compute, all-to-all) and their sum, the
 * dependency of each all-to-all on the compute before it deciding where
 * (test_plan derives a case). What runs after the forward's combine inside
 * Megatron's combine node (the unpermutation, the residual) is compute here,
 * at the head of the next forward piece (it waits for the combine either
 * way); the backward's before its combine too, at the end of the piece
 * before. The last chunk's multi-token prediction modules are layers of it
 * there (model_chunk_schedule_plan.py:417-423, TransformerLayerSchedulePlan
 * for a MultiTokenPredictionLayer, :30-52 and :112-176: its embedding,
 * norms and eh_proj before its attention in the pre-dispatch node), so a
 * module's all-to-alls pair with the other micro-batch's compute as a
 * layer's do (make_mtp_prog, seg.unit). Warm-up forwards and cool-down
 * backwards run alone; with delay_wgrad_compute a cool-down backward still
 * overlaps its dispatch with the experts' deferred weight gradients
 * (append_backward). */

/* Per layer of a chain, in chain order, the three seg indices where a
 * combined step switches to the other micro-batch (above; a layer without
 * all-to-alls: the forward's all before the first switch, the backward's
 * between the first and the second). */
typedef struct cuts {
	int k[3];
} cuts;

static void close_cuts(cuts *q, bool bwd, int start, int end)
{
	if (!bwd && q->k[0] < 0)
		q->k[0] = q->k[1] = q->k[2] = end;
	else if (!bwd && q->k[2] < 0)
		q->k[2] = end;
	if (bwd && q->k[0] < 0)
		q->k[0] = start;
	if (bwd && q->k[1] < 0)
		q->k[1] = q->k[2] = end;
}

/* The cuts of chain c's layers (out holds c->n); *lstart and *lend get the
 * index of the first layer's first seg and the index after the last seg of
 * any layer (c->n and lstart without layers). Returns the layers. */
static int chain_cuts(const chain *c, bool bwd, cuts *out, int *lstart, int *lend)
{
	int n = 0, cur = -1, start = 0, end = 0;
	*lstart = -1, *lend = -1;
	for (int i = 0; i < c->n; i++) {
		const seg *x = &c->v[i];
		if (x->unit >= 0)
			*lend = i + 1;
		if (x->aside || x->unit < 0)
			continue;
		if (x->unit != cur) {
			if (n > 0)
				close_cuts(&out[n - 1], bwd, start, end);
			out[n++] = (cuts){{-1, -1, -1}};
			cur = x->unit, start = i;
			if (*lstart < 0)
				*lstart = i;
		}
		end = i + 1;
		int *k = out[n - 1].k;
		if (x->a2a == 1 && bwd) {
			k[1] = k[1] < 0 ? i : k[1];
			k[2] = i + 1;
		} else if (x->a2a == 1) {
			k[0] = k[0] < 0 ? i : k[0];
			k[1] = i + 1;
		} else if (x->a2a == 2) {
			k[bwd ? 0 : 2] = i + 1;
		}
	}
	if (n > 0)
		close_cuts(&out[n - 1], bwd, start, end);
	if (*lstart < 0)
		*lstart = c->n;
	if (*lend < *lstart)
		*lend = *lstart;
	return n;
}

/* One combined step: forward cursor F and backward cursor B in Megatron's
 * issue order (the derivation above). SIM_OK or SIM_ENOMEM. */
int build_emit_pair(builder *b, cursor *F, cursor *B)
{
	cuts *cf = malloc((size_t)(F->c->n + 1) * sizeof *cf);
	cuts *cb = malloc((size_t)(B->c->n + 1) * sizeof *cb);
	if (!cf || !cb) {
		free(cf), free(cb);
		return SIM_ENOMEM;
	}
	int fs, fe, bs, be;
	int lf = chain_cuts(F->c, false, cf, &fs, &fe), lb = chain_cuts(B->c, true, cb, &bs, &be);
	int n = lf < lb ? lf : lb;
	int rc = build_emit_to(b, F, fs); /* the forward's embedding first */
	for (int j = 0; j < n && rc == SIM_OK; j++)
		for (int q = 0; q < 3 && rc == SIM_OK; q++)
			if ((rc = build_emit_to(b, B, cb[j].k[q])) == SIM_OK)
				rc = build_emit_to(b, F, cf[j].k[q]);
	/* the backward's layers left, the forward's, then the forward's
	 * output layer and the backward's embedding */
	if (rc == SIM_OK)
		rc = build_emit_to(b, B, be);
	if (rc == SIM_OK)
		rc = build_emit_to(b, F, fe);
	if (rc == SIM_OK)
		rc = build_emit_to(b, F, F->c->n);
	if (rc == SIM_OK)
		rc = build_emit_to(b, B, B->c->n);
	free(cf), free(cb);
	return rc;
}
