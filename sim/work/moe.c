/* moe.c - the mixture-of-experts block of a layer on one rank, forward and
 * backward, in place of the MLP (layer.c calls it for an MoE layer): the
 * router, the token dispatch (Megatron-Core's all-to-all or all-gather
 * dispatchers, DeepEP's fused one), the local experts' grouped GEMMs, the
 * combine and the shared experts; and DeepSpeed-MoE's GShard layer
 * (Megatron-DeepSpeed). Symbols as layer.c's header; each kernel's
 * derivation and source beside it. */
#include "layer_int.h"


/* The MoE block's sizes on one rank: Tn tokens routed here (SP is required
 * with tp > 1, so T/t), R0 = k*Tn rows sent to experts, R = R0 * imbalance
 * rows on the busiest rank, E/ep local experts of full inner size (expert
 * TP 1), and the shared experts as one TP-split MLP of inner size S*f. */
typedef struct moe_dims {
	double Tn, R0, R, local, f, fc1, io;
	double a2a; /* bytes one rank sends per all-to-all */
} moe_dims;

static moe_dims make_moe(const work_model *m, const work_shard *sh, const dims *d)
{
	moe_dims x;
	double ep = sh->ep > 1 ? sh->ep : 1;
	double imb = m->moe_imbalance >= 1 ? m->moe_imbalance : 1.0;
	x.Tn = d->Tn;
	x.R0 = m->moe_topk * x.Tn;
	x.R = x.R0 * imb;
	x.local = m->moe_experts / ep;
	x.f = m->ffn;
	x.fc1 = m->act == WORK_ACT_SWIGLU ? 2.0 * x.f : x.f;
	x.io = m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0;
	x.a2a = d->e * x.R * d->h;
	return x;
}

/* dims of the shared experts: the TP-split MLP with inner size S*f. */
static dims shared_dims(const work_model *m, const dims *d)
{
	dims s = *d;
	s.f = (double)m->moe_shared_experts * m->ffn / d->t;
	s.fc1_n = m->act == WORK_ACT_SWIGLU ? 2.0 * s.f : s.f;
	return s;
}

static void a2a(prog *p, const char *name, double bytes)
{
	work_item *it = wl_push(p, WORK_ITEM_COMM, name);
	it->comm = WORK_COMM_EP_ALLTOALL;
	it->comm_bytes = bytes;
}

/* [parallel] moe_dispatcher = alltoall: what Megatron-Core's all-to-all
 * token dispatcher does around the token all-to-alls with ep > 1
 * (MoEAlltoAllTokenDispatcher, megatron/core/
 * transformer/moe/token_dispatcher.py at NVIDIA/Megatron-LM d98e8a64):
 *   counts   preprocess gathers every rank's tokens per expert over the EP
 *            group (gather_from_sequence_parallel_region of the [E] int64
 *            counts, :560-580): an all-gather of 8 E bytes per rank, ep x 8 E
 *            gathered, forward only (the counts carry no gradient);
 *   probs    token_dispatch sends the routing probabilities in an all-to-all
 *            of their own after the tokens' (:705-724): R x 4 bytes (fp32),
 *            forward, and its backward once more;
 *   sort     with more than one local expert, dispatch_postprocess sorts the
 *            received chunks by local expert (sort_chunks_by_idxs, :782) and
 *            combine_preprocess restores the order before the combine
 *            (:817): each reads and writes the R x h rows (the sort also the
 *            R fp32 probabilities), forward, and in the backward each pass's
 *            gradient once more.
 * The tokens' all-to-alls, the (un)permutation and the experts are the
 * items around them (make_moe). */
static bool a2a_dispatcher(const work_shard *sh)
{
	return sh->ep > 1 && sh->moe_dispatcher == WORK_MOE_ALLTOALL;
}

static void ep_counts(prog *p, const work_model *m, const work_shard *sh)
{
	if (!a2a_dispatcher(sh))
		return;
	work_item *it = wl_push(p, WORK_ITEM_COMM, "ep_counts");
	it->comm = WORK_COMM_EP_ALLGATHER;
	it->comm_bytes = 8.0 * m->moe_experts * sh->ep;
}

static void ep_probs(prog *p, const work_shard *sh, const moe_dims *x)
{
	if (a2a_dispatcher(sh))
		a2a(p, "ep_probs", 4.0 * x->R);
}

static void ep_sort(prog *p, const work_shard *sh, const dims *d, const moe_dims *x,
		    const char *name, bool probs)
{
	if (a2a_dispatcher(sh) && x->local > 1)
		wl_mem(p, name, 2.0 * x->R * (d->e * d->h + (probs ? 4.0 : 0.0)));
}

/* The kernels Megatron-Core's all-to-all dispatcher and Transformer Engine's
 * fused permutation launch beyond one per item (tp 1, dropless; megatron/
 * core/transformer/moe/token_dispatcher.py at NVIDIA/Megatron-LM 8f1c2f8a,
 * the Megatron-LM Megatron-Bridge 26.02 (b8475660) pins; the same code at
 * d98e8a64, :543-592 and :935-958; transformer_engine/pytorch/triton/
 * permutation.py at NVIDIA/TransformerEngine d0067d0d):
 *   meta     preprocess (:513-562): routing_map.sum(dim=0) and .long(), the
 *            input splits' reshape().sum(), after the counts' all-gather
 *            the local experts' slice .contiguous() and three sums (per
 *            rank, output_splits_tp, per local expert): 7 kernels; then at
 *            cuda_dtoh_point "before_permutation_1" (:880-899) four
 *            device-to-host copies (tokens_per_expert, input_splits,
 *            output_splits, output_splits_tp) on a side stream: 11
 *            launches of a few hundred bytes, forward only (the counts
 *            carry no gradient);
 *   permute  fused_permute_with_probs: make_row_id_map's three Triton
 *            passes (:73, :93, :111) and the permute kernel (:174): 4
 *            launches forward; its backward is one unpermute kernel.
 * The sort and unsort (make_chunk_sort_map :383 and sort_chunks_by_map
 * :426: 2 launches each), the unpermute (:255) and the fused top-k stay
 * counted in their items' bytes at one launch each: their second kernels
 * move a map of R ints. */
#define MOE_META_LAUNCHES 11
#define MOE_PERMUTE_LAUNCHES 4

static void ep_meta(prog *p, const work_model *m, const work_shard *sh)
{
	if (!a2a_dispatcher(sh))
		return;
	/* the [E] int64 counts read and written a few times: bytes that round
	 * to nothing next to the launches */
	wl_kern(p, "ep_meta", 8.0 * 8.0 * m->moe_experts * sh->ep, MOE_META_LAUNCHES);
}

/* Experts with biases (a model with linear biases, GPT-OSS's add_bias_linear
 * = True: src/megatron/bridge/models/gpt_oss/gpt_oss_bridge.py:69 at
 * NVIDIA-NeMo/Megatron-Bridge b8475660) under Megatron-Core's TEGroupedMLP:
 * fc1's bias is added in its grouped GEMM, but fc2 runs with skip_bias_add
 * and TEGroupedMLP._apply_bias (megatron/core/transformer/moe/experts.py:
 * 704-721, called at :853, at 8f1c2f8a; :345-370 at d98e8a64) adds each
 * local expert's bias weighted by the routing probability in a Python loop
 * over the experts:
 *   torch.cat([t + b * p for t, b, p in zip(split(out), biases,
 *              split(probs))]).to(out.dtype)
 * where t is the expert's [n, h] output, b its [h] bias and p its [n, 1]
 * probabilities, all in the activation dtype (e bytes): the router runs in
 * the input's dtype unless moe_router_dtype says fp32 (megatron/core/
 * transformer/moe/router.py:100-105 at 8f1c2f8a; GPT-OSS's provider leaves
 * it None) and Transformer Engine's fused top-k returns probabilities in
 * the logits' dtype (transformer_engine/pytorch/router.py:297 at d0067d0d),
 * so .to() is a no-op. Per row of the R rows this rank's experts hold:
 *   forward   b * p writes e h; t + (.) reads 2e h, writes e h; the cat
 *             reads and writes e h: 6e h over 2 x local + 1 launches;
 *   backward  per expert the product's gradients grad * p (2e) summed to
 *             b's [h] (e) and grad * b (2e) summed to p's [n, 1] (e), 4
 *             launches (the sum's gradients pass through); the split's
 *             backward concatenates the experts' output gradients (2e) and
 *             their probability gradients, which autograd adds to the
 *             activation's (R values): 8e h over 4 x local + 3 launches;
 *             and Megatron's DDP hook adds every bias parameter's .grad
 *             into its fp32 main_grad (megatron/core/distributed/
 *             distributed_data_parallel.py:427-440 at 8f1c2f8a: TE fuses
 *             the weights' accumulation, not the biases' gradients it
 *             returns), fc1's and fc2's bias of every local expert: 2 x
 *             local launches of (8 + e) h bytes.
 * The dense layers' few bias and norm-weight accumulations are not
 * charged. */
static void expert_bias(prog *p, const dims *d, const moe_dims *x, bool backward)
{
	double rh = x->R * d->h;
	int local = (int)x->local;
	if (!backward)
		wl_kern(p, "ebias", 6.0 * d->e * rh, 2 * local + 1);
	else
		wl_kern(p, "ebias", 8.0 * d->e * rh + 2.0 * x->local * (8.0 + d->e) * d->h,
			4 * local + 3 + 2 * local);
}

/* The experts' GEMMs: Megatron-Core's TEGroupedMLP runs each of fc1 and
 * fc2 (and their dgrad and wgrad) as Transformer Engine's GroupedLinear,
 * whose general_grouped_gemm issues the local experts' GEMMs as separate
 * cuBLAS GEMMs round-robin over TE's compute streams
 * (multi_stream_cublas_gemm, transformer_engine/common/gemm/cublaslt_gemm.cu:
 * 970-1022 at NVIDIA/TransformerEngine d0067d0d; 4 streams, common/util/
 * multi_stream.cpp:52-54; the CUTLASS grouped kernel only under
 * NVTE_USE_CUTLASS_GROUPED_GEMM, default off, cublaslt_gemm.cu:1065), so at
 * most 4 run at once: each GEMM's last wave is filled only by its three
 * neighbours' tiles, not by all the experts' as one batched grid would
 * (work.h streams; plan's gemm_time takes local / 4 rounds of 4). */
#define MOE_GEMM_STREAMS 4

static void moe_gemm(prog *p)
{
	p->v[p->n - 1].streams = MOE_GEMM_STREAMS;
}

void wl_moe_forward(prog *p, const work_model *m, const work_shard *sh, const dims *d)
{
	moe_dims x = make_moe(m, sh, d);
	double rows = x.R / x.local; /* rows per local expert */
	if (m->moe_shared_experts > 0) {
		dims sd = shared_dims(m, d);
		wl_mlp_forward(p, m, &sd, "fc1s", "fc2s");
	}
	wl_gemm(p, d, "router", x.Tn, m->moe_experts, d->h);
	wl_mem(p, "topk", 8.0 * x.Tn * m->moe_experts); /* fp32 scores: read + write */
	ep_counts(p, m, sh);
	ep_meta(p, m, sh);
	wl_mem(p, "permute", 2.0 * d->e * x.R0 * d->h);
	if (a2a_dispatcher(sh))
		p->v[p->n - 1].launches = MOE_PERMUTE_LAUNCHES;
	a2a(p, "ep_dispatch", x.a2a);
	ep_probs(p, sh, &x);
	ep_sort(p, sh, d, &x, "sort", true);
	wl_fp8_cast(p, d, "fc1e_cast", x.R * d->h);
	wl_gemm_b(p, d, "fc1e", rows, x.fc1, d->h, x.local);
	moe_gemm(p);
	wl_mem(p, "acte", x.io * d->e * x.R * x.f);
	wl_fp8_cast(p, d, "fc2e_cast", x.R * x.f);
	wl_gemm_b(p, d, "fc2e", rows, d->h, x.f, x.local);
	moe_gemm(p);
	if (m->bias)
		expert_bias(p, d, &x, false);
	ep_sort(p, sh, d, &x, "unsort", false);
	a2a(p, "ep_combine", x.a2a);
	wl_mem(p, "unpermute", d->e * (2.0 * x.R0 + x.Tn) * d->h);
}

void wl_moe_backward(prog *p, const work_model *m, const work_shard *sh, const dims *d)
{
	moe_dims x = make_moe(m, sh, d);
	double rows = x.R / x.local;
	wl_mem(p, "unpermute", 2.0 * d->e * (2.0 * x.R0 + x.Tn) * d->h);
	a2a(p, "ep_combine", x.a2a);
	ep_sort(p, sh, d, &x, "unsort", false);
	if (m->bias)
		expert_bias(p, d, &x, true);
	wl_fp8_cast(p, d, "fc2e_gcast", x.R * d->h);
	wl_gemm_dgrad_b(p, d, "fc2e", rows, d->h, x.f, x.local);
	moe_gemm(p);
	wl_gemm_wgrad_b(p, d, "fc2e", rows, d->h, x.f, x.local);
	moe_gemm(p);
	wl_mem(p, "acte", 2.0 * x.io * d->e * x.R * x.f);
	wl_fp8_cast(p, d, "fc1e_gcast", x.R * x.fc1);
	wl_gemm_dgrad_b(p, d, "fc1e", rows, x.fc1, d->h, x.local);
	moe_gemm(p);
	wl_gemm_wgrad_b(p, d, "fc1e", rows, x.fc1, d->h, x.local);
	moe_gemm(p);
	ep_sort(p, sh, d, &x, "sort", true);
	ep_probs(p, sh, &x);
	a2a(p, "ep_dispatch", x.a2a);
	wl_mem(p, "permute", 2.0 * d->e * x.R0 * d->h);
	wl_mem(p, "topk", 8.0 * x.Tn * m->moe_experts);
	wl_gemm_dgrad(p, d, "router", x.Tn, m->moe_experts, d->h);
	wl_gemm_wgrad(p, d, "router", x.Tn, m->moe_experts, d->h);
	if (m->moe_shared_experts > 0) {
		dims sd = shared_dims(m, d);
		wl_mlp_backward(p, m, &sd, "fc1s", "fc2s");
	}
}

/* -------------------------------------------------------- DeepSpeed-MoE -- */

/* moe_dispatcher = gshard: DeepSpeed-MoE's MOELayer (D = microsoft/DeepSpeed
 * 38327e07 deepspeed/moe/sharded_moe.py), the MoE layer Megatron-DeepSpeed
 * builds for --num-experts > 1 (microsoft/Megatron-DeepSpeed f4157bea
 * megatron/model/transformer.py:1067-1083), whatever ep. GShard's dense
 * dispatch on the rank's S tokens (all T of the micro-batch without SP: the
 * TP ranks hold them alike; T/t with SP, which DeepSpeed does not refuse):
 *   gate      the router [S, E], top-k with a fixed capacity of C slots per
 *             expert, EC = k cf S in all (_capacity :161-170; top-2 doubles
 *             cf, :331), cf = [parallel] moe_capacity_factor
 *             (--moe-train-capacity-factor, 1.0, Megatron-DeepSpeed
 *             megatron/arguments.py:913), or without dropping
 *             (--disable-moe-token-dropping, cf 0 here) the busiest expert's
 *             count, agreed by an all-reduce (MAX) over the EP group
 *             (:214-218, :335-338): cf = model.moe_imbalance, and the
 *             all-reduce, 8 bytes, timed as the counts' all-gather (both
 *             latency); its [S, E, C] fp32 combine weights
 *             (einsum "se,sc->sec", :283), their bool mask (:285) and both
 *             cast to 16 bits (:609, :669): per [S, EC] element 4 + 5 + 3 +
 *             6 = 18 bytes;
 *   dispatch  einsum "sec,sm->ecm" (:609), a dense GEMM [EC, S] x [S, h]
 *             whatever the mask's zeros: 2 S EC h flops, quadratic in S;
 *   drop      with tp > 1 each TP rank keeps its 1/t of the slots (:614-626,
 *             mappings.py:55-68: a view), with SP too, where the tokens
 *             were no duplicates;
 *   experts   the slots to their experts' ranks over the EP group (:628)
 *             and back (:654); the rank's E/ep experts, whole (expert TP
 *             1), run one after another (experts.py:29-33) on every slot,
 *             filled or not: EC/t rows;
 *   gather    with tp > 1 the TP ranks' slots all-gathered (:664;
 *             mappings.py:30-52: all_gather_into_tensor, then a cat) for
 *             the combine einsum "sec,ecm->sm" (:669), [S, EC] x [EC, h].
 * Backward: the combine's gradients of the slots and of the weights (two
 * GEMMs), the weights' gradient cast up and reduced to the gates (10 bytes
 * an element), the gather's backward (a view), the all-to-alls and
 * experts, the drop's backward (an all-gather over TP, mappings.py:100-
 * 102), the dispatch's input gradient (the mask takes none), the router.
 * A residual MoE (model.moe_shared_experts > 0: DeepSpeed's use_residual,
 * Megatron-DeepSpeed's --mlp-type residual, PR-MoE) adds after the experts
 * an MLP of the expert's kind on the rank's S tokens, whole on every TP
 * rank (moe/layer.py:81-84, 124-130: the expert module itself, not split
 * over TP, no collective), a [S, 2] coefficient GEMM, and the weighted sum
 * of the two outputs (two products and an add: 7 e S h bytes).
 * Its saved tensors: memory.c work_activation_bytes_at. */
typedef struct gshard_dims {
	double S, EC, drop, R, local;
} gshard_dims;

static gshard_dims make_gshard(const work_model *m, const work_shard *sh, const dims *d)
{
	gshard_dims g;
	double cf = sh->moe_capacity > 0 ? sh->moe_capacity
	            : m->moe_imbalance >= 1 ? m->moe_imbalance
	                                    : 1.0;
	g.S = d->Tn;
	g.EC = m->moe_topk * cf * g.S;
	g.drop = d->t > 1 ? d->t : 1.0; /* under SP too (:614-626) */
	g.R = g.EC / g.drop;
	g.local = m->moe_experts / (sh->ep > 1 ? sh->ep : 1);
	return g;
}

/* The residual MoE's MLP: the expert's shape on the rank's tokens, whole,
 * no TP collective. */
static dims gshard_residual(const work_model *m, const dims *d)
{
	dims r = *d;
	r.T = r.Tn = d->Tn;
	r.t = 1;
	r.sp = r.comm = false;
	r.f = (double)m->moe_shared_experts * m->ffn;
	r.fc1_n = m->act == WORK_ACT_SWIGLU ? 2.0 * r.f : r.f;
	return r;
}

void wl_gshard_forward(prog *p, const work_model *m, const work_shard *sh, const dims *d)
{
	gshard_dims g = make_gshard(m, sh, d);
	moe_dims x = make_moe(m, sh, d);
	double rows = g.R / g.local;
	wl_gemm(p, d, "router", g.S, m->moe_experts, d->h);
	wl_mem(p, "topk", 8.0 * g.S * m->moe_experts);
	if (!(sh->moe_capacity > 0) && sh->ep > 1) { /* the capacity agreed over EP */
		work_item *it = wl_push(p, WORK_ITEM_COMM, "cap_max");
		it->comm = WORK_COMM_EP_ALLGATHER;
		it->comm_bytes = 8.0 * sh->ep;
	}
	wl_mem(p, "gate", 18.0 * g.S * g.EC);
	wl_gemm(p, d, "dispatch", g.EC, d->h, g.S);
	a2a(p, "ep_dispatch", d->e * g.R * d->h);
	wl_gemm_b(p, d, "fc1e", rows, x.fc1, d->h, g.local);
	wl_mem(p, "acte", x.io * d->e * g.R * x.f);
	wl_gemm_b(p, d, "fc2e", rows, d->h, x.f, g.local);
	a2a(p, "ep_combine", d->e * g.R * d->h);
	if (g.drop > 1) {
		wl_comm(p, d, "slot_gather", WORK_COMM_ALLGATHER, d->e * g.EC * d->h);
		wl_mem(p, "slot_cat", 2.0 * d->e * g.EC * d->h);
	}
	wl_gemm(p, d, "combine", g.S, d->h, g.EC);
	if (m->moe_shared_experts > 0) {
		dims r = gshard_residual(m, d);
		wl_mlp_forward(p, m, &r, "fc1r", "fc2r");
		wl_gemm(p, d, "coef", g.S, 2, d->h);
		wl_mem(p, "coef_mix", 7.0 * d->e * g.S * d->h);
	}
}

void wl_gshard_backward(prog *p, const work_model *m, const work_shard *sh, const dims *d)
{
	gshard_dims g = make_gshard(m, sh, d);
	moe_dims x = make_moe(m, sh, d);
	double rows = g.R / g.local;
	if (m->moe_shared_experts > 0) {
		dims r = gshard_residual(m, d);
		wl_mem(p, "coef_mix", 2.0 * 7.0 * d->e * g.S * d->h);
		wl_gemm_dgrad(p, d, "coef", g.S, 2, d->h);
		wl_gemm_wgrad(p, d, "coef", g.S, 2, d->h);
		wl_mlp_backward(p, m, &r, "fc1r", "fc2r");
	}
	wl_gemm(p, d, "combine_dslot", g.EC, d->h, g.S);
	wl_gemm(p, d, "combine_dw", g.S, g.EC, d->h);
	wl_mem(p, "gate", 10.0 * g.S * g.EC);
	a2a(p, "ep_combine", d->e * g.R * d->h);
	wl_gemm_dgrad_b(p, d, "fc2e", rows, d->h, x.f, g.local);
	wl_gemm_wgrad_b(p, d, "fc2e", rows, d->h, x.f, g.local);
	wl_mem(p, "acte", 2.0 * x.io * d->e * g.R * x.f);
	wl_gemm_dgrad_b(p, d, "fc1e", rows, x.fc1, d->h, g.local);
	wl_gemm_wgrad_b(p, d, "fc1e", rows, x.fc1, d->h, g.local);
	a2a(p, "ep_dispatch", d->e * g.R * d->h);
	if (g.drop > 1) {
		wl_comm(p, d, "slot_gather", WORK_COMM_ALLGATHER, d->e * g.EC * d->h);
		wl_mem(p, "slot_cat", 2.0 * d->e * g.EC * d->h);
	}
	wl_gemm(p, d, "dispatch_dx", g.S, d->h, g.EC);
	wl_mem(p, "topk", 8.0 * g.S * m->moe_experts);
	wl_gemm_dgrad(p, d, "router", g.S, m->moe_experts, d->h);
	wl_gemm_wgrad(p, d, "router", g.S, m->moe_experts, d->h);
}
