/* cost.c - the closed forms that plan_build, plan_microbatch_cost and the
 * sweep's pre-screen share: a work item's kernel time (and beside DeepEP's
 * kernels), which TP collectives run beside a GEMM (tp_comm_overlap, async
 * input gradients), the net collective of a work item, pipeline transfers'
 * bytes and framework overhead, FSDP's gradient passes, DeepEP's SM share;
 * and plan_microbatch_cost, the stage's chains of one micro-batch summed.
 */
#include "build_int.h"

#include <math.h>
#include <string.h>

net_coll plan_comm_coll(work_comm c)
{
	switch (c) {
	case WORK_COMM_CP_RING:
		return NET_P2P;
	case WORK_COMM_EP_ALLTOALL:
	case WORK_COMM_CP_ALLTOALL:
		return NET_ALLTOALL;
	case WORK_COMM_ALLGATHER:
	case WORK_COMM_EP_ALLGATHER:
	case WORK_COMM_CP_ALLGATHER:
		return NET_ALLGATHER;
	case WORK_COMM_REDUCESCATTER:
		return NET_REDUCESCATTER;
	default:
		return NET_ALLREDUCE;
	}
}

static double kernel_time_one(const hw_gpu *gpu, hw_dtype t, const work_item *it);

/* An item standing for several kernels (work_item.launches) pays the
 * launch and the framework's host cost once per kernel. */
static double extra_launches(const hw_gpu *gpu, const work_item *it)
{
	return it->launches > 1 ? (it->launches - 1) * hw_overhead(gpu) : 0.0;
}

double plan_item_framework_s(const hw_gpu *gpu, const work_item *it)
{
	return it->native ? 0 : gpu->framework_s;
}

double plan_item_task_s(const hw_gpu *gpu, hw_dtype t, const work_item *it, double *g,
                        double *host)
{
	int nk = it->launches > 1 ? it->launches : 1;
	double fs = plan_item_framework_s(gpu, it);
	*g = plan_kernel_time(gpu, t, it) - nk * fs;
	*host = nk * (gpu->launch_s + fs);
	return fmax(*g, *host);
}

double plan_kernel_time(const hw_gpu *gpu, hw_dtype t, const work_item *it)
{
	hw_gpu g;
	if (it->native && gpu->framework_s > 0) { /* launched from C++: no framework op */
		g = *gpu;
		g.framework_s = 0;
		gpu = &g;
	}
	return kernel_time_one(gpu, t, it) + extra_launches(gpu, it);
}

/* A GEMM item: `batch` GEMMs in one batched kernel, or with it->streams = S
 * (Transformer Engine's multi-stream grouped GEMM, work.h) in ceil(batch /
 * S) rounds of S concurrent GEMMs, each round a batched grid of S: the
 * rounds' times less the one launch and host overhead they share. */
static double gemm_time(const hw_gpu *gpu, hw_dtype t, const work_item *it)
{
	double b = it->batch > 0 ? it->batch : 1.0;
	if (it->streams < 1 || b <= it->streams)
		return hw_gemm_time(gpu, t, it->m, it->n, it->k, b);
	double rounds = ceil(b / it->streams);
	double one = hw_gemm_time(gpu, t, it->m, it->n, it->k, it->streams);
	return rounds * (one - hw_overhead(gpu)) + hw_overhead(gpu);
}

hw_flash_work plan_attn_work(const work_item *it)
{
	/* the papers' FLOPs (full s x s, backward 2x) -> what the fused kernel
	 * executes: causal half, backward 2.5x the forward (hw/attn.c); the
	 * exponentials, the causal half of the item's score elements */
	return (hw_flash_work){it->flops * 0.5 * (it->attn_bwd ? 1.25 : 1.0), it->attn_qhd,
			       it->attn_exps * 0.5, it->bytes};
}

static double kernel_time_one(const hw_gpu *gpu, hw_dtype t, const work_item *it)
{
	switch (it->kernel) {
	case WORK_KERNEL_GEMM:
		return gemm_time(gpu, t, it);
	case WORK_KERNEL_ATTN: { /* fp8 recipes keep attention in bf16 */
		hw_flash_work w = plan_attn_work(it);
		return hw_flash_time(gpu, t == HW_FP8 ? HW_BF16 : t, it->attn_impl, it->attn_bwd, &w);
	}
	default:
		return hw_mem_time(gpu, it->bytes);
	}
}

/* A kernel's time beside DeepEP's kernels, which hold `held` SMs, a share
 * `share` of them, for its whole run: a GEMM's tiles in waves on the SMs
 * left (hw_gemm_time_held; with work_item.streams each round's batched grid
 * so, as gemm_time), any other kernel (fused attention, memory-bound ops)
 * progressing at 1 - share, (t - overhead) / (1 - share) + overhead. */
double build_kernel_time_held(const hw_gpu *gpu, hw_dtype t, const work_item *it, int held,
			      double share)
{
	double k = plan_kernel_time(gpu, t, it), over = hw_overhead(gpu);
	if (it->kind != WORK_ITEM_KERNEL || it->kernel != WORK_KERNEL_GEMM) {
		double one = k - extra_launches(gpu, it);
		return over + (one - over) / (share < 0.9 ? 1 - share : 0.1) + extra_launches(gpu, it);
	}
	double b = it->batch > 0 ? it->batch : 1.0, g;
	if (it->streams < 1 || b <= it->streams) {
		g = hw_gemm_time_held(gpu, t, it->m, it->n, it->k, b, held);
	} else {
		double one = hw_gemm_time_held(gpu, t, it->m, it->n, it->k, it->streams, held);
		g = ceil(b / it->streams) * (one - over) + over;
	}
	return g + extra_launches(gpu, it);
}

static bool is_gemm(const work_item *x)
{
	return x->kind == WORK_ITEM_KERNEL && x->kernel == WORK_KERNEL_GEMM;
}

/* tp_comm_overlap (Transformer Engine's userbuffers, Megatron-Core
 * --tp-comm-overlap). TE's defaults (NVIDIA/TransformerEngine d0067d0d,
 * transformer_engine/pytorch/module/base.py:350-392, initialize_ub): with
 * sequence parallelism the all-gather of the [s/t, b, h] input of a
 * column-parallel GEMM (qkv_fprop, fc1_fprop; backward: the output gradient
 * before the row-parallel proj_dgrad and fc2_dgrad) runs "ring_exchange":
 * num_splits = tp chunks over a ring of p2p copies by the copy engines
 * (use_ce), one SM, the GEMM on all SMs (no set_sm_margin); the
 * reduce-scatter of a row-parallel GEMM's output (proj_fprop, fc2_fprop)
 * runs "pipeline": 4 GEMM chunks, each chunk's reduce-scatter by a 16-SM
 * kernel while the next computes, the GEMM with a 16-SM margin
 * (set_sm_margin); the backward's input-gradient reduce-scatter of QKV and
 * FC1 runs "bulk" beside the wgrad GEMM (16 SMs, the wgrad with the
 * margin). podsim runs them so (plan_ub_kind): a ring exchange as the
 * GEMM on all SMs beside its collective lengthened by one GEMM chunk (g/t);
 * a pipeline as the GEMM on the SMs the margin leaves (hw_gemm_time_held,
 * g') beside its collective lengthened by one of its 4 chunks (g'/4); bulk
 * as the wgrad on the SMs the margin leaves beside the reduce-scatter,
 * unchunked (plan_tp_beside); and none of the three as interference on the
 * GEMM beside it (the copy engines take no SMs, the margin's SMs are in g':
 * plan_graph_set_quiet, replay.c). The chunks run as one GEMM: TE runs
 * num_splits GEMMs of m/num_splits rows, but round-robin on up to 3
 * compute streams, each waiting only for its own chunk's arrival
 * (common/comm_gemm_overlap/comm_gemm_overlap.cpp:1161-1195;
 * _NUM_MAX_UB_STREAMS = 3, pytorch/cpp_extensions/gemm.py:37), so one
 * chunk's partial last wave fills with the next chunk's tiles, as one
 * GEMM's waves would (alone, Llama 2 70B's QKV at tp 4 and 4096 tokens
 * would take 4 x 2 waves of 160 tiles against 5 of 640 on 132 SMs).
 * A t-step pipeline with GEMM chunks of g/t and transfers of
 * c/(t-1) (t-1 of them) takes
 *   g/t + (t-1) * max(g/t, c/(t-1)) = max(g, c + g/t)
 * (the first chunk computes before the ring has anything to send, or the last
 * after it is done). So the pair is modelled as the GEMM (g) and the
 * collective lengthened by one chunk (c + g/t) started together, the next
 * task waiting for both: max(g, c + g/t) instead of g + c (the pipeline:
 * max(g', c + g'/4)). A collective beside a GEMM that is not such a pair
 * (nanotron's async linears, Megatron's asynchronous input-gradient
 * collective) is NCCL's, on SMs: the GEMM slows by the GPU's interference
 * while it runs (replay.c), max(c, g + i c).
 * Only a TP all-gather directly before a GEMM, or a reduce-scatter directly
 * after one, with a kernel before the pair and something after it in the same
 * program (so the pair never begins or ends a chain or a layer). Returns +1,
 * -1 (seg.ovl) or 0 for item i (plan.h: the sweep's pre-screen times the
 * same pairs). */
bool build_named(const work_item *x, const char *suffix)
{
	size_t n = strlen(x->name), k = strlen(suffix);
	return n >= k && !strcmp(x->name + n - k, suffix);
}

/* TE's userbuffer defaults (the comment above): the SMs a pipeline's or a
 * bulk overlap's reduce-scatter kernels take, which the GEMM beside them
 * leaves (set_sm_margin), and the pipeline's GEMM chunks. */
#define UB_COMM_SMS        16
#define UB_PIPELINE_SPLITS 4

/* The tp_comm_overlap pair collective it[i] is in (the comment above). */
plan_ub plan_ub_kind(const plan_scenario *s, const work_item *it, int n, int i)
{
	if (!s->plan.tp_comm_overlap || it[i].kind != WORK_ITEM_COMM)
		return PLAN_UB_NONE;
	if (it[i].comm == WORK_COMM_ALLGATHER && i >= 1 && i + 2 < n &&
	    it[i - 1].kind == WORK_ITEM_KERNEL && is_gemm(&it[i + 1]))
		return PLAN_UB_RING;
	if (it[i].comm != WORK_COMM_REDUCESCATTER || i < 2 || i + 1 >= n ||
	    it[i - 2].kind != WORK_ITEM_KERNEL || !is_gemm(&it[i - 1]))
		return PLAN_UB_NONE;
	/* the backward's input-gradient reduce-scatter, between the dgrad it
	 * reduces and the wgrad it runs beside */
	if (build_named(&it[i - 1], "_dgrad") && is_gemm(&it[i + 1]) &&
	    build_named(&it[i + 1], "_wgrad"))
		return PLAN_UB_BULK;
	return PLAN_UB_PIPELINE;
}

/* The chunked pairs of tp_comm_overlap: +1 a ring exchange's (with the GEMM
 * after), -1 a pipeline's (with the GEMM before), 0 else. */
static int ub_overlap(const plan_scenario *s, const work_item *it, int n, int i)
{
	plan_ub k = plan_ub_kind(s, it, n, i);
	return k == PLAN_UB_RING ? 1 : k == PLAN_UB_PIPELINE ? -1 : 0;
}

int plan_ub_held(const plan_scenario *s, const work_item *it, int n, int j)
{
	bool pipe = j + 1 < n && plan_ub_kind(s, it, n, j + 1) == PLAN_UB_PIPELINE;
	bool bulk = j >= 1 && plan_ub_kind(s, it, n, j - 1) == PLAN_UB_BULK;
	return (pipe || bulk) && is_gemm(&it[j]) ? UB_COMM_SMS : 0;
}

double plan_ub_chunk(const plan_scenario *s, const work_item *it, int n, int i, double g)
{
	plan_ub k = plan_ub_kind(s, it, n, i);
	return k == PLAN_UB_RING ? g / (s->plan.tp > 0 ? s->plan.tp : 1)
	       : k == PLAN_UB_PIPELINE ? g / UB_PIPELINE_SPLITS
	                               : 0;
}

double plan_ub_gemm_time(const plan_scenario *s, hw_dtype t, const work_item *it, int n, int j)
{
	int held = plan_ub_held(s, it, n, j);
	return held > 0 ? build_kernel_time_held(&s->gpu, t, &it[j], held, 0)
			: plan_kernel_time(&s->gpu, t, &it[j]);
}

/* The backward's input-gradient collective of a column-parallel linear
 * (QKV, FC1, the vocabulary-parallel logits), listed between its dgrad and
 * wgrad GEMMs (work/layer.c). Megatron issues it asynchronously and computes
 * the weight gradient while it runs, waiting for it only after:
 * LinearWithGradAccumulationAndAsyncCommunication.backward, "Asynchronous
 * all-reduce" / "reduce_scatter" with async_op=True, then the wgrad GEMM
 * (NVIDIA/Megatron-LM d98e8a64, megatron/core/tensor_parallel/layers.py:
 * 694-709; since f3e57f6fee, 2021-09, "overlapping allreduce and gemm").
 * Megatron-DeepSpeed keeps the reduce-scatter async but turns the all-reduce
 * off under --deepspeed (microsoft/Megatron-DeepSpeed f4157bea,
 * megatron/arguments.py:390-397): [framework] tp_dgrad_async = sp. */
static bool dgrad_async(const plan_scenario *s, const work_item *it, int n, int i)
{
	int mode = s->fw.dgrad_async;
	bool rs = it[i].comm == WORK_COMM_REDUCESCATTER;
	if (mode == PLAN_DGRAD_NEVER || (mode == PLAN_DGRAD_SP && !rs) ||
	    (!rs && it[i].comm != WORK_COMM_ALLREDUCE))
		return false;
	return i >= 1 && i + 1 < n && is_gemm(&it[i - 1]) && build_named(&it[i - 1], "_dgrad") &&
	       is_gemm(&it[i + 1]) && build_named(&it[i + 1], "_wgrad");
}

bool plan_tp_beside(const plan_scenario *s, const work_item *it, int n, int i)
{
	if (it[i].kind != WORK_ITEM_COMM || i + 1 >= n || !is_gemm(&it[i + 1]))
		return false;
	plan_ub k = plan_ub_kind(s, it, n, i);
	return it[i].beside || k == PLAN_UB_BULK || (k == PLAN_UB_NONE && dgrad_async(s, it, n, i));
}

int plan_tp_overlap(const plan_scenario *s, const work_item *it, int n, int i)
{
	if (it[i].kind != WORK_ITEM_COMM)
		return 0;
	/* a collective the framework issues asynchronously beside the GEMM
	 * after it (work_item.beside: nanotron's async TP linears; Megatron's
	 * input-gradient collective beside the wgrad), not chunked: max(g, c),
	 * the task after both waiting for both; else a chunked pair or none */
	return plan_tp_beside(s, it, n, i) ? 1 : ub_overlap(s, it, n, i);
}

double plan_fsdp_flat_grad_s(const plan_scenario *s, double params)
{
	double bytes = plan_fsdp_flat_grad_bytes(s);
	return bytes > 0 && params > 0 ? hw_mem_time(&s->gpu, params * bytes) : 0;
}

double plan_fsdp_gather_cast_s(const plan_scenario *s, double params)
{
	double bytes = plan_fsdp_gather_cast_bytes(s);
	return bytes > 0 && params > 0 ? hw_mem_time(&s->gpu, params * bytes) : 0;
}

double plan_zeropp_wire(const plan_scenario *s)
{
	return s->plan.zero_qw ? 1.0 : plan_zero3_gather_width(s);
}

double plan_zeropp_scale_bytes(const plan_scenario *s, double elements)
{
	return s->plan.zero_qw && elements > 0 ? elements * 4.0 / PLAN_QW_GROUP : 0;
}

double plan_zero3_gather_copy_s(const plan_scenario *s, double elements)
{
	if (s->fw.zero3_gather_copy == PLAN_GATHER_COPY_NONE || s->plan.zero < 3 ||
	    !(elements > 0))
		return 0;
	return hw_mem_time(&s->gpu, elements * 2.0 * plan_zero3_gather_width(s));
}

double plan_zeropp_quant_s(const plan_scenario *s, double elements)
{
	if (!s->plan.zero_qw || !(elements > 0))
		return 0;
	double w = plan_zero3_gather_width(s);
	return hw_mem_time(&s->gpu, elements * (w + 1.0 + 4.0 / PLAN_QW_GROUP));
}

void plan_qgz_kernels_s(const plan_scenario *s, double e, int l, int nodes, double out[3])
{
	double w = plan_zero3_wire_bytes(s), ll = l > 1 ? l : 1, n = nodes > 1 ? nodes : 1;
	out[0] = hw_mem_time(&s->gpu, e * (w + 0.5));
	out[1] = hw_mem_time(&s->gpu, e * 0.5 * (1 + 1 / ll));
	out[2] = hw_mem_time(&s->gpu, e / ll * (0.5 + 2.0) + e / (ll * n) * (6.0 * (n - 1) + 4.0));
}

double plan_qgz_scale_bytes(double e, int world)
{
	double side = sqrt(e > 0 ? e : 0);
	return 4.0 * (side > world ? side : world);
}

void plan_qgz_layer_tensors(const plan_scenario *s, int g, double *mats, double *vecs)
{
	const work_model *m = &s->model;
	work_shard sh = plan_shard(s);
	double w[WORK_MAX_LINEARS];
	int mat = work_layer_mat_tensors(m, &sh, g);
	*vecs = work_layer_param_tensors(m, &sh, g) - mat;
	*mats = work_layer_is_moe(m, g) ? mat : work_layer_linears(m, false, w);
}

void plan_qgz_bucket_tensors(const plan_scenario *s, int g, double tensors, double *mats,
			     double *vecs)
{
	double lt = build_zero3_layer_tensors(s, g), lm, lv;
	plan_qgz_layer_tensors(s, g, &lm, &lv);
	*mats = lt > 0 ? tensors * lm / lt : tensors;
	*vecs = lt > 0 ? tensors * lv / lt : 0;
}

void plan_qgz_end_tensors(const plan_scenario *s, int stage, double *mats, double *vecs)
{
	bool first = stage == 0, last = stage == plan_last_rank(&s->plan);
	double t;
	bool trained = build_root_params(s, stage, &t) > 0;
	*mats = trained ? work_ends_mat_tensors(&s->model, first, last) : 0;
	*vecs = trained ? t - *mats : 0;
}

double plan_qgz_quant_share(const plan_scenario *s)
{
	double w[WORK_MAX_LINEARS], world = s->plan.dp > 1 ? s->plan.dp : 1;
	int n = work_layer_linears(&s->model, false, w), q = 0;
	for (int i = 0; i < n; i++)
		q += fmod(round(w[i]), 2.0 * world) == 0;
	return n > 0 ? (double)q / n : 1.0;
}

void plan_qgz_split(const plan_scenario *s, double bytes, double mats, double vecs, double gbytes,
		    int *nm, int *nq, int *nv, double *vec, double *mat)
{
	*nm = (int)fmin(1e5, fmax(1, round(mats)));
	*nq = (int)round(*nm * plan_qgz_quant_share(s));
	*nv = (int)fmin(1e5, fmax(0, round(vecs)));
	*vec = (double)s->model.hidden * gbytes;
	if (!(*nv * *vec < bytes / 2)) /* a bucket of tiny tensors: all as 2-D */
		*vec = 0, *nv = 0;
	*mat = (bytes - *nv * *vec) / *nm;
}

double plan_fsdp_post_reduce_s(const plan_scenario *s, double params, bool later)
{
	double bytes = plan_fsdp_post_reduce_bytes(s, later);
	return bytes > 0 && params > 0 ? hw_mem_time(&s->gpu, params * bytes) : 0;
}

double plan_zero3_cast_s(const plan_scenario *s, double elements, bool after)
{
	double bytes = plan_zero3_cast_bytes(s, after);
	return bytes > 0 && elements > 0 ? hw_mem_time(&s->gpu, elements * bytes) : 0;
}

double plan_fsdp_reduce_s(const plan_scenario *s, double params)
{
	int kernels;
	double bytes = plan_fsdp_reduce_bytes(s, &kernels);
	if (!(bytes > 0) || !(params > 0))
		return 0;
	return hw_mem_time(&s->gpu, params * bytes) + (kernels - 1) * hw_overhead(&s->gpu);
}

double plan_p2p_bytes(const plan_scenario *s, double *gather)
{
	const plan_spec *p = &s->plan;
	work_shard sh = plan_shard(s);
	double bytes = work_p2p_bytes(&s->model, &sh); /* b*s*h*e, /t with SP */
	/* Megatron-DeepSpeed asserts DeepSpeed's partitioned sends off for an MoE
	 * model with tp and pp > 1 (two tensors cross each stage:
	 * microsoft/Megatron-DeepSpeed f4157bea megatron/model/gpt_model.py:
	 * 376-383) */
	bool gshard = s->model.moe_experts > 0 && p->moe_dispatcher == WORK_MOE_GSHARD;
	bool split = p->p2p_scatter_gather && p->tp > 1 && !p->sequence_parallel && !gshard;
	*gather = split ? bytes : 0.0;
	return split ? bytes / p->tp : bytes;
}

double plan_p2p_stage_bytes(const plan_scenario *s, int stage, bool backward, double *gather)
{
	double bytes = plan_p2p_bytes(s, gather);
	int tail[3];
	if (!plan_layout_tail(&s->plan, s->model.layers, tail) || tail[0] >= s->plan.pp - 1)
		return bytes;
	int j = backward ? stage - 1 : stage; /* the transfer between stages j and j + 1 */
	work_shard sh = plan_shard(s);
	/* the lm_head's output [s, b, V/t] (a column linear, the sequence
	 * gathered under SP), in the activations' dtype, then cast to fp32 */
	double t = sh.tp > 0 ? sh.tp : 1;
	double logits = (double)sh.seq * sh.micro_batch * (double)s->model.vocab / t;
	if (j == tail[0]) {
		*gather = 0;
		return logits * work_act_elem_bytes(&sh);
	}
	if (j == tail[1] && tail[1] < tail[2]) {
		*gather = 0;
		return logits * 4.0;
	}
	return bytes;
}

/* [framework] p2p_handshakes, p2p_host_ops, p2p_fwd_tensors: nanotron's
 * P2P.send_tensors / recv_tensors (parallel/pipeline_parallel/p2p.py at
 * 0e0a27ea) send every tensor as three messages, the first metadata (7
 * longs, p2p.py:207-227), the second (shape and strides, :236-243) and the
 * data (:306), and both hosts synchronise with their GPU between them (the
 * synchronous copy_ of the metadata to the GPU, :220 and :236; the assert
 * reading first_metadata[0], :229; the receiver turning the received metadata
 * into Python integers, :255-283, and building its buffer from them, :328).
 * Per tensor: handshakes x (a metadata message, PLAN_P2P_META_BYTES) +
 * host_ops x (launch + op_overhead); a forward transfer carries
 * p2p_fwd_tensors tensors (nanotron's decoder blocks pass hidden_states and
 * the [b, s] sequence mask, models/llama.py:841), each extra one a b s byte
 * message of its own. The pipeline group's alpha-beta p2p times the
 * messages (latency-bound: the same in the flow model). */
double plan_p2p_overhead(const plan_scenario *s, const net_group *pp, bool backward)
{
	const plan_framework *f = &s->fw;
	int tensors = backward || f->p2p_fwd_tensors < 1 ? 1 : f->p2p_fwd_tensors;
	double host = f->p2p_host_ops * (s->gpu.launch_s + s->gpu.framework_s);
	double meta = 0, extra = 0;
	net_cost c;
	if (f->p2p_handshakes > 0 &&
	    net_collective(&s->cluster, NET_P2P, pp, PLAN_P2P_META_BYTES, &c) == SIM_OK)
		meta = f->p2p_handshakes * c.time_s;
	double mask = (double)s->plan.micro_batch * s->model.seq_len / (s->plan.cp > 1 ? s->plan.cp : 1);
	if (tensors > 1 && net_collective(&s->cluster, NET_P2P, pp, mask, &c) == SIM_OK)
		extra = (tensors - 1) * c.time_s;
	return tensors * (meta + host) + extra;
}

bool plan_p2p_sync(const plan_spec *p)
{
	return p->p2p == PLAN_P2P_SYNC ||
	       (p->p2p == PLAN_P2P_AUTO && p->vpp <= 1 && !plan_sched_zb(p->schedule));
}

bool plan_ep_deepep(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	return s->model.moe_experts > 0 && p->ep > 1 && p->moe_dispatcher == WORK_MOE_FUSED;
}

double plan_ep_share(const plan_scenario *s)
{
	if (plan_ep_deepep(s))
		return hw_sm_share(&s->gpu, s->plan.deepep_sms);
	net_group ep;
	plan_make_ep_group(s, &ep);
	return s->gpu.interference * plan_comm_scale(s, &ep, NET_ALGO_RING);
}

/* ------------------------------------------------ per-micro-batch cost -- */

/* Sum the stage's chains of one micro-batch (every chunk's forward, backward
 * with recomputation, and W) as plan_build makes them (build_stage_chains; the
 * collectives timed by alpha-beta): see plan.h, plan_mb_cost. */
static void sum_chain(const chain *c, plan_mb_cost *o)
{
	for (int i = 0; i < c->n; i++) {
		const seg *x = &c->v[i];
		bool comm = x->kind == PLAN_TASK_TP || x->kind == PLAN_TASK_EP ||
			    x->kind == PLAN_TASK_CP;
		if (comm) {
			if (x->kind == PLAN_TASK_CP) /* ring transfers overlap attention */
				continue;
			o->collectives++;
			o->coll_s += sim_time_to_s(x->dur);
			if (x->ovl != 0) {
				o->beside++;
				o->beside_s += sim_time_to_s(x->dur);
			}
			o->coll_latency_s += sim_time_to_s(x->lat);
			continue;
		}
		o->kernels += x->launches;
		o->gpu_s += sim_time_to_s(x->gpu);
		o->host_s += sim_time_to_s(x->cpu);
		o->compute_s += sim_time_to_s(x->dur);
	}
}

int plan_microbatch_cost(const plan_scenario *s, int stage, plan_mb_cost *out)
{
	const plan_spec *p = &s->plan;
	memset(out, 0, sizeof *out);
	if (stage < 0 || stage >= p->pp)
		return SIM_EINVAL;
	builder b;
	int rc = build_init(&b, s);
	b.latency = true;
	if (rc == SIM_OK) {
		build_stage_chains(&b, stage);
		rc = build_chains_oom(&b) ? SIM_ENOMEM : SIM_OK;
	}
	for (int c = 0; rc == SIM_OK && c < b.vpp; c++) {
		sum_chain(&b.fwd[c], out);
		if (!s->inference) {
			sum_chain(&b.bwd[c], out);
			sum_chain(&b.wgt[c], out);
		}
	}
	build_chains_close(&b);
	if (rc != SIM_OK)
		return rc;
	/* the accumulation tasks (one per chunk, each a compute task of its
	 * own) are reported apart from the layers' kernels */
	work_item acc;
	for (int c = 0; c < p->vpp && !s->inference; c++) {
		if (!plan_grad_accum_item(s, stage, c, &acc))
			continue;
		double g, h, task = plan_item_task_s(&s->gpu, b.sh.dtype, &acc, &g, &h);
		out->accum_s += task;
		out->kernels -= acc.launches > 1 ? acc.launches : 1;
		out->gpu_s -= g;
		out->host_s -= h;
		out->compute_s -= task;
	}
	if (p->pp > 1 && !s->inference) { /* the stage's own hops (pipe.c pp_send) */
		net_group fwd, bwd;
		plan_pp_pair(s, stage, stage + 1 < p->pp ? stage + 1 : stage - 1, &fwd);
		plan_pp_pair(s, stage, stage > 0 ? stage - 1 : stage + 1, &bwd);
		out->p2p_fixed_s = plan_p2p_overhead(s, &fwd, false) + plan_p2p_overhead(s, &bwd, true);
		/* the data transfers' own latency: each one's time at one byte
		 * (the network's per-step latency and, across nodes on a
		 * calibrated fabric, the per-call wait D(m)), as the collectives'
		 * latency above */
		net_cost c;
		const net_group *hop[2] = {&fwd, &bwd};
		for (int h = 0; h < 2; h++)
			if (net_collective(&s->cluster, NET_P2P, hop[h], 1, &c) == SIM_OK)
				out->p2p_latency_s += c.time_s;
	}
	out->host_exposed_s = fmax(0, out->compute_s - out->gpu_s);
	out->fixed_s = out->coll_latency_s + out->accum_s + out->p2p_fixed_s + out->p2p_latency_s +
	               out->host_exposed_s;
	return SIM_OK;
}

int plan_cp_exchange(const plan_scenario *s, plan_cp_cost *out)
{
	memset(out, 0, sizeof *out);
	if (s->plan.cp <= 1)
		return SIM_EINVAL;
	work_shard sh = plan_shard(s);
	plan_groups g;
	plan_make_groups(s, &g);
	out->cp = s->plan.cp;
	out->allgather = sh.cp_allgather;
	out->alltoall = sh.cp_alltoall;
	int layer = plan_global_layer(s, 0, 0);
	for (int pass = 0; pass < 2; pass++) {
		work_item it[WORK_MAX_ITEMS];
		int n = pass ? work_layer_backward_at(&s->model, &sh, layer, it)
			     : work_layer_forward_at(&s->model, &sh, layer, it);
		double x = -1; /* a transfer waiting for the step beside it */
		for (int i = 0; i < n; i++) {
			if (it[i].kind == WORK_ITEM_COMM && it[i].comm == WORK_COMM_CP_ALLTOALL) {
				net_cost c;
				double t = net_collective(&s->cluster, NET_ALLTOALL, &g.cp,
				                          it[i].comm_bytes, &c) == SIM_OK
				                   ? c.time_s
				                   : 0;
				out->a2a[pass]++;
				out->a2a_s[pass] += t;
				out->exposed_s[pass] += t; /* blocking */
			} else if (it[i].kind == WORK_ITEM_COMM && work_comm_on_cp(it[i].comm)) {
				net_cost c;
				double t = net_collective(&s->cluster, plan_comm_coll(it[i].comm), &g.cp,
				                          it[i].comm_bytes, &c) == SIM_OK
				                   ? c.time_s
				                   : 0;
				bool gather = it[i].comm == WORK_COMM_CP_ALLGATHER;
				(gather ? out->gathers : out->xfers)[pass]++;
				*(gather ? &out->gather_s[pass] : &out->xfer_s[pass]) += t;
				if (!pass && !gather)
					out->block_bytes = it[i].comm_bytes;
				if (gather)
					out->block_bytes = it[i].comm_bytes / out->cp;
				x = x < 0 ? t : x + t;
			} else if (x >= 0 && !strncmp(it[i].name, "attn", 4)) {
				/* the step slowed at 1 - i while the transfer runs (its
				 * send/receive channels not modelled: the whole
				 * interference, comm_seg's scale 1) */
				double a = plan_kernel_time(&s->gpu, sh.dtype, &it[i]);
				out->beside_s[pass] += a;
				out->exposed_s[pass] += fmax(x - a, s->gpu.interference * fmin(x, a));
				x = -1;
			}
		}
	}
	return SIM_OK;
}
