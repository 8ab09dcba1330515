/* plan.h - a scenario (model + cluster + parallelism plan) checked and turned
 * into per-rank task graphs and a memory budget.
 *
 * Rank classes: data-parallel replicas and the ranks of one tensor-parallel
 * group execute the same program, so a plan with tp*pp*dp GPUs is replayed as pp
 * representative ranks, one per pipeline stage. TP and DP collectives are timed
 * on their full groups (the network still carries the traffic of every rank);
 * PP transfers connect the stage ranks. See ARCHITECTURE.md, "Rank classes".
 *
 * Placement: global rank = tp_rank + tp * (cp_rank + cp * (dp_rank + dp *
 * pp_rank)) (TP innermost, then CP, then DP, then PP: Megatron's default), so TP
 * groups have stride 1, CP groups stride tp, DP groups stride tp*cp, and
 * neighbouring stages are tp*cp*dp ranks apart. Gradients are reduced (and
 * ZeRO shards) over the dp*cp ranks that hold the same parameters (stride tp).
 */
#ifndef PODSIM_PLAN_H
#define PODSIM_PLAN_H

#include "../net/net.h"
#include "../work/work.h"

/* Pipeline schedules: GPipe, 1F1B (with vpp > 1 interleaved), and ZB-H1, the
 * zero-bubble schedule of Qi et al. 2024 ("Zero Bubble Pipeline Parallelism"):
 * 1F1B's order of forwards and backwards with each backward split into B
 * (input gradients, on the critical path: its result is sent upstream at once)
 * and W (weight gradients, run after B, off the critical path), for a bubble of
 * (p-1)(T_F + T_B - T_W) instead of 1F1B's (p-1)(T_F + T_B + T_W) at the same
 * activation memory. ZBV (Qi et al. section 6, torch pipelining's
 * ScheduleZBVZeroBubble): two chunks per rank in a V, rank r holding virtual
 * stages r and 2p - 1 - r (plan_vstage), so the first and the last virtual
 * stage, the embedding and the loss, are both on rank 0 and the turn from
 * chunk 0 to chunk 1 on rank p - 1 sends nothing; its order is torch's
 * (graph.c zbv_order), its backwards split as ZB-H1's (plan_sched_zb).
 * Looped BFS (Lamy-Poirier 2022, arXiv 2211.05953; torch pipelining's
 * ScheduleLoopedBFS): GPipe over a rank's vpp chunks, breadth first: every
 * micro-batch's forward through chunk 0, then chunk 1, ..., then the
 * backwards from the last chunk down, each chunk's micro-batches last
 * first (torch 2.14.1 distributed/pipelining/schedules.py:2964-2990): all
 * m x vpp activations live at the turn, as GPipe's. DualPipeV (DeepSeek-V3's
 * DualPipe folded into a V, torch pipelining's ScheduleDualPipeV): ZBV's
 * placement, its own order (graph.c dualpipev_order) of forwards, split
 * backwards (B, W) and whole ones (a B and its W at once), a chunk's
 * forward beside the other chunk's backward run one after the other as
 * torch runs them. */
typedef enum {
	PLAN_SCHED_GPIPE = 0,
	PLAN_SCHED_1F1B,
	PLAN_SCHED_ZB_H1,
	PLAN_SCHED_ZBV,
	PLAN_SCHED_LOOPED_BFS,
	PLAN_SCHED_DUALPIPEV
} plan_schedule;
/* Whether a schedule places a rank's two chunks in a V (ZBV, DualPipeV:
 * plan_vstage). */
static inline bool plan_sched_v(plan_schedule s)
{
	return s == PLAN_SCHED_ZBV || s == PLAN_SCHED_DUALPIPEV;
}
/* Whether a schedule runs every forward before any backward (GPipe, Looped
 * BFS): its activation peak is all m x vpp of them. */
static inline bool plan_sched_all_fwd(plan_schedule s)
{
	return s == PLAN_SCHED_GPIPE || s == PLAN_SCHED_LOOPED_BFS;
}
/* Whether a schedule splits each backward into B and W (ZB-H1, ZBV,
 * DualPipeV: its whole backwards are a B with its W right after). */
static inline bool plan_sched_zb(plan_schedule s)
{
	return s == PLAN_SCHED_ZB_H1 || s == PLAN_SCHED_ZBV || s == PLAN_SCHED_DUALPIPEV;
}

typedef enum { PLAN_OFFLOAD_NONE = 0, PLAN_OFFLOAD_CPU, PLAN_OFFLOAD_NVME } plan_offload;

/* Pipeline p2p ([parallel] p2p). Sync: the send and the matching receive are
 * one rendezvous (NCCL send/recv, each side's stream waiting on it: Megatron's
 * batched isend/irecv + wait, DeepSpeed PipelineEngine's send/recv): the
 * transfer starts when the sender has produced the tensor and the receiver
 * has finished the compute before the consuming step, and the sender's next
 * compute waits for its end. Async: the send overlaps the sender's next
 * compute (Megatron-Core's --overlap-p2p-communication, on by default for
 * the interleaved schedule, turned off without it). Auto: sync for GPipe and
 * 1F1B, async for interleaved 1F1B (vpp > 1) and ZB-H1, whose bubble needs
 * its sends overlapped (test_exec). Sync with vpp > 1 is refused (plan_check):
 * Megatron batches each interleaved step's sends and receives, which a
 * rendezvous per transfer would deadlock. */
typedef enum { PLAN_P2P_AUTO = 0, PLAN_P2P_SYNC, PLAN_P2P_ASYNC } plan_p2p;

/* Which layers of a chunk recompute_layers = N recomputes (of n):
 * block, the chunk's first N (Megatron-Core --recompute-method block,
 * megatron/core/recompute.py:167-181 at d98e8a64, called per model chunk
 * from transformer_block.py:662); spread, N spaced evenly through the
 * chunk, each the last of its n/N layers: fms-fsdp's every_xth_item = x
 * checkpoints blocks x, 2x, ... (1-based; fms_fsdp/policies/ac_handler.py:
 * 17-34 at 7746dac, the PyTorch FSDP blog's commit), N = n / x, as
 * torchtitan's selective_ac_option = "x" (torchtitan/distributed/
 * activation_checkpoint.py:27-49 at 1f029641b); fms-fsdp later takes a
 * fraction p = N / n and centres the blocks half a period earlier
 * (ac_handler.py:16-64 at 5a296af), the same count. */
typedef enum { PLAN_RC_BLOCK = 0, PLAN_RC_SPREAD } plan_rc_method;

typedef struct plan_spec {
	int tp, pp, dp, cp, ep, vpp;
	int moe_dispatcher; /* work_moe_dispatcher */
	double moe_capacity; /* [parallel] moe_capacity_factor (gshard) */
	int deepep_sms;     /* [parallel] moe_deepep_num_sms: the SMs the fused
			     * dispatcher's kernels hold (plan_ep_share) */
	int micro_batch;  /* sequences per micro-batch per DP rank */
	int global_batch; /* sequences per step over all DP ranks */
	plan_schedule schedule;
	work_recompute recompute;
	/* Megatron-Core's recompute_modules under recompute = selective (work.h
	 * WORK_RC_*, parsed into recompute_mask by plan_check; empty = the
	 * default, core_attn). */
	char recompute_modules[CONF_STR_MAX];
	unsigned recompute_mask;
	/* Under recompute = full, how many layers of each pipeline chunk
	 * re-run their forward in the backward (keeping only their input);
	 * the others keep every tensor they save. 0 = all of them. Which ones:
	 * recompute_method (plan_layer_recomputed). */
	int recompute_layers;
	int recompute_method; /* plan_rc_method */
	bool sequence_parallel;
	int zero;                 /* 0-3; 1 = distributed optimizer */
	double bucket_bytes;      /* gradient bucket; 0 = the framework's (plan_bucket_bytes) */
	bool overlap_grad_reduce; /* DP all-reduce overlapped with backward */
	bool fp32_grads;          /* DP gradients accumulated, kept and reduced in
	                           * fp32 (Megatron main grads); unset in the
	                           * scenario: the framework's grad_dtype rule */
	/* Pipeline layout (Megatron-Core's decoder_first/last_pipeline_num_layers and
	 * account_for_embedding/loss_in_pipeline_split); see plan_layout. */
	int first_stage_layers, last_stage_layers; /* 0 = even split */
	bool embedding_in_split, loss_in_split;
	/* ZeRO-Offload / ZeRO-Infinity: where the optimizer states (and the
	 * Adam step) and, with ZeRO-3, the parameters live; see plan_build. */
	plan_offload offload_optimizer, offload_params;
	char order[CONF_STR_MAX]; /* placement, innermost first: "tp-cp-dp-pp" */
	int shard_size;           /* hybrid sharding: ZeRO shard group (0 = dp*cp) */
	/* DeepSpeed ZeRO++ (zero_hpz_partition_size, zero_quantized_weights;
	 * emit.c unit_gather): hpZ's secondary shard of the 16-bit parameters
	 * over zero_hpz consecutive data-parallel ranks (1 = off), from which
	 * every ZeRO-3 gather after a parameter's first of the step draws;
	 * qwZ's int8 gathers with fp32 scales */
	int zero_hpz;
	bool zero_qw;
	bool zero_qg; /* qgZ (zero_quantized_gradients): int4 all-to-all
		       * reduction of the gradients (plan_qgz_*) */
	plan_p2p p2p;             /* pipeline transfers: sync or async (plan_p2p_sync) */
	bool p2p_scatter_gather;  /* send 1/tp per rank, all-gather on the receiver
				   * (plan_p2p_bytes); default false, see there */
	/* Transformer Engine's userbuffers overlap (Megatron --tp-comm-overlap):
	 * each sequence-parallel all-gather before a GEMM and reduce-scatter
	 * after one runs beside that GEMM, chunked (plan_build, append_items).
	 * Needs sequence_parallel (plan_check). */
	bool tp_comm_overlap;
	/* Megatron --overlap-param-gather: with zero = 1 or 2 the updated
	 * parameters are all-gathered bucket by bucket under the next step's
	 * forward instead of after the optimizer (plan_build,
	 * build_emit_param_gather). */
	bool overlap_param_gather;
	/* Megatron-Core's expert-parallel all-to-all overlap
	 * (overlap_moe_expert_parallel_comm, "combined 1F1B"): one more warm-up
	 * forward, then each steady step runs one micro-batch's forward and
	 * another's backward layer by layer, the all-to-alls of one beside the
	 * compute of the other (plan_build, build_emit_pair); delay_wgrad_compute
	 * moves the weight-gradient GEMMs out of the backward's dependency
	 * chain so that they fill the gaps (append_backward). plan_check holds
	 * Megatron-Core's constraints. */
	bool moe_a2a_overlap, delay_wgrad;
	/* Micro-batches per group of the interleaved schedule (Megatron-Core
	 * --microbatch-group-size-per-virtual-pipeline-stage); 0 = pp, or the
	 * smallest the framework accepts: plan_vp_group. */
	int vp_group;
	/* Not keys: whether the framework runs such groups ([framework]
	 * runs_vp_group) and how it sizes them (plan_vp_rule, vp_group_rule),
	 * copied here by the loader for plan_vp_group. */
	bool vp_groups;
	int vp_rule;
	/* Not a [parallel] key: the framework's rule for layers that do not
	 * split evenly (plan_uneven, [framework] uneven_split), copied here by
	 * the loader so that plan_layout sees it. */
	int uneven;
	/* Not a key either: the model's MTP modules ([model] mtp_layers), which
	 * that rule counts as units on the last stage beside the loss. */
	int mtp_units;
	/* Nor these: the block costs the cost rule balances (PLAN_UNEVEN_COST),
	 * a decoder layer's and the lm_head's, set by the loader from the model
	 * (plan_block_costs). */
	double cost_layer, cost_head;
} plan_spec;

/* ------------------------------------------------------------ placement -- */

enum { PLAN_DIM_TP = 0, PLAN_DIM_CP, PLAN_DIM_DP, PLAN_DIM_PP, PLAN_DIMS };

/* "tp-cp-dp-pp" (any order of the four, innermost first) -> order[]. SIM_OK
 * or SIM_ECONF. */
int plan_order_parse(const char *text, int order[PLAN_DIMS]);
/* Rank distance between neighbours of each dimension under p->order. */
void plan_strides(const plan_spec *p, int stride[PLAN_DIMS]);

extern const conf_key plan_spec_keys[];    /* [parallel] */
extern const size_t plan_spec_nkeys;
/* [scenario]: what plan_scenario_keys read (serving scenarios share it). */
typedef struct plan_head {
	char name[CONF_STR_MAX];
	char description[CONF_STR_MAX];
	int seed;
} plan_head;
extern const conf_key plan_scenario_keys[]; /* [scenario] */
extern const size_t plan_scenario_nkeys;
extern const conf_key plan_train_keys[];    /* [train] */
extern const size_t plan_train_nkeys;

/* ------------------------------------------------------ framework profile -- */

/* The software stack a scenario runs on ([framework], framework.c): what it
 * runs (the rules plan_check enforces: a plan its framework does not run is a
 * file:line error naming the rule) and how (when ZeRO-2 reduces gradients
 * under accumulation, how it splits an uneven pipeline, its host cost per
 * operation). Profiles are data files, topologies/frameworks/NAME.ini, each
 * fact cited to the framework's source; a scenario includes one. Without a
 * [framework] section the key defaults apply, which are the documented
 * default profile, Megatron-Core (topologies/frameworks/megatron-core.ini; a
 * unit test keeps the two equal). A profile file may also set [parallel] and
 * [train] keys (bucket size, attention, overlap flags): the scenario inherits
 * them and can override them as any included value. */
enum {
	PLAN_FW_GPIPE = 1 << 0,
	PLAN_FW_1F1B = 1 << 1,
	PLAN_FW_INTERLEAVED = 1 << 2,
	PLAN_FW_ZB_H1 = 1 << 3,
	PLAN_FW_INTERLEAVED_ZB = 1 << 4, /* ZB-H1 over vpp > 1 chunks: torch's
	                                  * ScheduleInterleavedZeroBubble */
	PLAN_FW_ZBV = 1 << 5,            /* torch's ScheduleZBVZeroBubble */
	PLAN_FW_LOOPED_BFS = 1 << 6,     /* torch's ScheduleLoopedBFS */
	PLAN_FW_DUALPIPEV = 1 << 7,      /* torch's ScheduleDualPipeV */
};

/* When ZeRO-2 reduce-scatters gradients under gradient accumulation:
 * boundary = once, during the last micro-batch's backward (the rank holds
 * full gradients while accumulating; ZeRO-1's traffic); microbatch = after
 * every micro-batch's backward, bucket by bucket (DeepSpeed stage 2 keeps
 * only its gradient partition, so it must reduce each micro-batch's).
 * The same two for ZeRO-3's all-reduce of each reduced shard over its
 * replicas under hybrid sharding ([framework] hsdp_grad_reduce): FSDP1
 * all-reduces right after every reduce-scatter (torch 2.6.0
 * torch/distributed/fsdp/_runtime_utils.py:850-866, Debian 2.6.0+dfsg-7),
 * FSDP2 too unless told not to (_fully_shard/_fsdp_param_group.py:171,
 * all_reduce_grads = True); DeepSpeed's MiCS only at the accumulation
 * boundary (deepspeed/runtime/zero/mics.py:400-433 at edaa72212). */
typedef enum { PLAN_REDUCE_BOUNDARY = 0, PLAN_REDUCE_MICROBATCH } plan_reduce;
/* How ZeRO-3 reduce-scatters gradients ([framework] zero3_reduce): after each
 * unit's backward (FSDP), or in buckets filled tensor by tensor in backward
 * order and reduced when the next tensor would overflow them, the last one
 * after the backward (DeepSpeed's IPG buckets, emit.c ipg_add). */
typedef enum { PLAN_ZERO3_REDUCE_UNIT = 0, PLAN_ZERO3_REDUCE_BUCKET } plan_zero3_reduce;
/* Where ZeRO-3 copies a gathered unit out of the gather's flat buffer
 * ([framework] zero3_gather_copy; plan_zero3_gather_copy_s): nowhere (FSDP1
 * gathers into its flat parameter), on the gather's stream after it
 * (DeepSpeed's torch.cat in the handle's wait) or on the compute stream
 * before the unit runs (FSDP2's foreach_all_gather_copy_out). */
typedef enum {
	PLAN_GATHER_COPY_NONE = 0,
	PLAN_GATHER_COPY_DP,
	PLAN_GATHER_COPY_COMPUTE
} plan_gather_copy;
/* How ZeRO-3 moves the parameters outside the transformer layers, the ends
 * of the model: the embedding, and the head (final norm, output layer,
 * MTP modules) ([framework] zero3_root; emit.c "The ends"):
 *  - flat: one root unit (FSDP1's root FlatParameter, FSDP2's root module
 *    holding what no block holds): all-gathered as each micro-batch's
 *    forward starts, not resharded after the forward (the root's
 *    heuristic), reduce-scattered after the whole backward;
 *  - units: torchtitan's, the embedding a unit of its own resharded after
 *    the forward (gathered again before its backward) and the final norm
 *    with the output layer one that is not (tied weights: one unit of the
 *    three, as flat);
 *  - modules: DeepSpeed's, each module gathered before its forward, the
 *    embedding again before its backward, the head kept across the
 *    turnaround by the reuse distance (its gradients in the IPG buckets);
 *  - step (the default, Megatron-Core's): Megatron-FSDP's modules outside
 *    its units, gathered in the step's first forward and kept (their
 *    buckets are never released within a step), each reduce-scattered
 *    after its backward in every micro-batch as the units' (megatron-core.ini);
 *  - none: never moved (podsim's approximation for every framework before
 *    2026-11-30). The memory counts them gathered in every case but those
 *    that reshard the embedding after its forward. */
typedef enum {
	PLAN_ZERO3_ROOT_FLAT = 0,
	PLAN_ZERO3_ROOT_UNITS,
	PLAN_ZERO3_ROOT_MODULES,
	PLAN_ZERO3_ROOT_NONE,
	PLAN_ZERO3_ROOT_STEP
} plan_zero3_root;

/* [framework] cp_comm: how context parallelism exchanges K and V (work/
 * layer.c attn_ring has both). */
typedef enum { PLAN_CP_RING = 0, PLAN_CP_ALLGATHER, PLAN_CP_ALLTOALL } plan_cp_comm;
/* [framework] selective_core_attn: which attention cores selective
 * recomputation wraps (plan_shard): every one (Megatron-Core), or only
 * the unfused one (Megatron's legacy layer code, Megatron-DeepSpeed: its
 * flash attention and DeepSpeed's DistributedAttention run unwrapped). */
typedef enum { PLAN_SEL_ATTN_ALWAYS = 0, PLAN_SEL_ATTN_UNFUSED } plan_selective_attn;
/* How many calls a ZeRO-3 bucket is reduce-scattered in ([framework]
 * zero3_reduce_calls; plan_zero3_reduce_calls). */
typedef enum { PLAN_ZERO3_CALLS_BUCKET = 0, PLAN_ZERO3_CALLS_TENSOR } plan_zero3_calls;

/* How ZeRO-3 splits a layer's gathers ([framework] zero3_modules): `even`,
 * zero3_gathers gathers of equal size (FSDP's one unit per block: 1); `hf`,
 * one per linear module of the model's Hugging Face code, at its size
 * (work_layer_linears: qkv_modules and the activation); `megatron`, the
 * four of Megatron's layer code (fused QKV, fused gate and up). */
typedef enum { PLAN_ZERO3_EVEN = 0, PLAN_ZERO3_HF, PLAN_ZERO3_MEGATRON } plan_zero3_split;

/* What a framework does with layers that do not split evenly over the
 * pp * vpp virtual stages when the scenario gives no layout: refuse (error),
 * or count the embedding and the loss as one layer each and give the end
 * stages the fewer layers (end-stages; plan_layout); or, nanotron's rule,
 * balance every split by its blocks' compute costs, the lm_head one block
 * (cost; plan_layout), whether the layers divide evenly or not. */
typedef enum { PLAN_UNEVEN_ERROR = 0, PLAN_UNEVEN_END_STAGES, PLAN_UNEVEN_COST } plan_uneven;
/* How a framework that runs interleaved micro-batch groups other than pp
 * ([framework] runs_vp_group) sizes them ([framework] vp_group_rule,
 * plan_vp_group): Megatron-Core's groups of N, set by the user or the
 * smallest it accepts; torch pipelining's rounds, N = m / max(1, m / pp)
 * with m a multiple of the rounds, which it picks itself. */
typedef enum { PLAN_VP_MEGATRON = 0, PLAN_VP_TORCH } plan_vp_rule;

/* The collective that reduces a ZeRO-1/2 gradient bucket: a reduce-scatter
 * (Megatron's distributed optimizer, FSDP), or an all-reduce of the whole
 * bucket of which each rank keeps its slice (DeepSpeed's default
 * use_multi_rank_bucket_allreduce): twice the traffic. */
typedef enum { PLAN_GRAD_OP_REDUCE_SCATTER = 0, PLAN_GRAD_OP_ALL_REDUCE } plan_grad_op;

/* Where a ZeRO-0..2 gradient bucket may close: at a layer's end (podsim's
 * approximation, a bucket never smaller than a layer), or after any
 * parameter tensor as torch DDP's reducer closes them (plan/grads.c
 * "Buckets by tensor"). */
typedef enum { PLAN_BUCKET_SPLIT_LAYER = 0, PLAN_BUCKET_SPLIT_TENSOR } plan_bucket_split;
/* How a bucket is sent: one collective over its flat buffer, or one per
 * parameter tensor inside a NCCL group (nanotron's fp32 DDP hook). */
typedef enum { PLAN_BUCKET_CALLS_BUCKET = 0, PLAN_BUCKET_CALLS_TENSOR } plan_bucket_calls;
/* How sequence parallelism's norm gradients are all-reduced over TP after
 * the backward: flattened into one call, or one call per tensor in a NCCL
 * group (plan_norm_sync_calls). */
typedef enum { PLAN_NORM_SYNC_FLAT = 0, PLAN_NORM_SYNC_TENSOR } plan_norm_sync;
/* What gradient clipping reads and writes (plan_optimizer_time): the norm of
 * what the rank steps, its ZeRO shard (Megatron's distributed optimizer,
 * DeepSpeed, FSDP; the rescale, rare once training settles, not charged),
 * or of the rank's whole gradient before any DP sharding, followed by an
 * unconditional rescale of all of it (nanotron's clip_grad_norm). */
typedef enum { PLAN_CLIP_SHARD = 0, PLAN_CLIP_REPLICA } plan_clip_scope;

/* What the framework keeps alive (memory.c, memwalk.c; each value cited in
 * the profile files). The loss: bytes per token and vocabulary entry (per
 * rank: V/t for the vocabulary-parallel loss) at four moments, see
 * plan_loss_bytes. */
typedef enum {
	PLAN_LOSS_VOCAB_PARALLEL = 0, /* Megatron: fp32 softmax in place */
	PLAN_LOSS_UPCAST_SHIFT,       /* HF Llama <= 4.44: .float(), shifted copy */
	PLAN_LOSS_SHIFT,              /* HF GPT-2 style: shifted copy, no upcast */
	PLAN_LOSS_UPCAST,             /* cross_entropy(logits.float()), logits freed */
	PLAN_LOSS_CHUNKED,            /* compiled per-chunk upcast (torchtune) */
	PLAN_LOSS_CHUNKED_16BIT,      /* 16-bit chunks and log-softmax (lit-gpt 2023) */
	PLAN_LOSS_16BIT,              /* cross_entropy on the 16-bit logits */
	PLAN_LOSS_FUSED_XENT,         /* flash-attn's Triton cross-entropy (llm-foundry) */
	PLAN_LOSS_SHARDED             /* nanotron: fp32 cast, out-of-place shift */
} plan_loss;
_Static_assert((int)PLAN_LOSS_16BIT == (int)WORK_LOSS_16BIT &&
		       (int)PLAN_LOSS_FUSED_XENT == (int)WORK_LOSS_FUSED_XENT &&
		       (int)PLAN_LOSS_CHUNKED == (int)WORK_LOSS_CHUNKED &&
		       (int)PLAN_LOSS_SHARDED == (int)WORK_LOSS_SHARDED,
	       "plan_loss and work_loss share their order");
/* When gradients exist: a buffer allocated once (Megatron's main_grad, in
 * the fp32_grads dtype), or param.grad from the first backward until the
 * optimizer's zero_grad (PyTorch's default). */
typedef enum { PLAN_GRADS_PERSISTENT = 0, PLAN_GRADS_ON_BACKWARD } plan_grads;
/* What a framework's own memory log reports as max_memory_allocated
 * ([framework] logged_peak): the step's peak, or, where the framework resets
 * PyTorch's peak counters after the forward and backward before it logs
 * them, the peak of the optimizer phase (plan_memory_after_pipeline). */
typedef enum { PLAN_LOGGED_STEP = 0, PLAN_LOGGED_AFTER_PIPELINE } plan_logged_peak;
/* The optimizer's step: one fused kernel per chunk of tensors (apex's,
 * Transformer Engine's and DeepSpeed's FusedAdam: no temporaries), torch's
 * foreach (foreach_temps state-sized lists alive together: sqrt(v), and in
 * torch 1.13 the out-of-place denominator beside it; plan_framework), a
 * loop over parameters (one parameter's temporaries), or
 * torch.optim's own fused kernel (fused=True: no temporaries, its
 * arithmetic in double; optim.c). */
typedef enum {
	PLAN_OPTIM_FUSED = 0,
	PLAN_OPTIM_FOREACH,
	PLAN_OPTIM_SINGLE,
	PLAN_OPTIM_TORCH_FUSED
} plan_optim_impl;
/* The input-gradient TP collective of a column-parallel linear (QKV, FC1)
 * in the backward: issued asynchronously and run beside the weight-gradient
 * GEMM that follows it (always: the all-reduce without sequence parallelism
 * and the reduce-scatter with it; sp: only the reduce-scatter), or blocking
 * (never). plan_tp_overlap. */
typedef enum { PLAN_DGRAD_ALWAYS = 0, PLAN_DGRAD_SP, PLAN_DGRAD_NEVER } plan_dgrad_async;
/* Its [framework] tp_dgrad_async value: "always", "sp", "never". */
const char *plan_dgrad_async_name(int mode);

typedef struct plan_framework {
	char name[CONF_STR_MAX];      /* "megatron-core" */
	char release[CONF_STR_MAX];   /* release and date the facts are from */
	char schedules[CONF_STR_MAX]; /* runs_schedules, as written */
	unsigned sched_mask;          /* PLAN_FW_* parsed from schedules */
	int zero_max;                 /* highest ZeRO stage it runs */
	int zero_max_pp;              /* ... together with pp > 1 */
	bool tp, cp, ep, tp_comm_overlap, offload_optimizer, offload_params, hybrid_shard;
	bool sp;                      /* runs sequence parallelism (runs_sequence_parallel) */
	bool sp_default;              /* ... at tp > 1 where the plan leaves it open
	                               * (sequence_parallel_default, plan_derive) */
	int zero_default;             /* the ZeRO stage where the plan leaves it open
	                               * (zero_default, plan_derive) */
	bool zeropp;              /* runs ZeRO++'s hpZ and qwZ (runs_zeropp) */
	bool selective_recompute; /* runs recompute = selective (runs_selective_recompute) */
	bool selective_means_layers; /* its "selective" is whole layers (selective_means_layers) */
	bool overlap_grad_reduce_pp; /* ... with a pipeline too
	                              * (runs_overlap_grad_reduce_with_pp) */
	bool overlap_grad_reduce; /* overlaps the DP reduction with the backward
	                           * (runs_overlap_grad_reduce; also overlap_param_gather) */
	bool moe_a2a_overlap;          /* runs_moe_a2a_overlap */
	bool vp_group;                 /* runs_vp_group: interleaved micro-batch
	                                * groups other than pp (plan_vp_group) */
	int vp_rule;                  /* plan_vp_rule: vp_group_rule, how it sizes them */
	int zero2_reduce;             /* plan_reduce */
	int hsdp_reduce;              /* plan_reduce: ZeRO-3's replica all-reduce under
				       * hybrid sharding (plan_build's fsdp_layer_grads) */
	int zero_grad_op;             /* plan_grad_op (ZeRO-1/2 buckets) */
	int uneven;                   /* plan_uneven */
	int dgrad_async;              /* plan_dgrad_async */
	double op_overhead_s;         /* host time per operation (0 = CUDA graphs) */
	double optimizer_op_overhead_s; /* a per-tensor optimizer step's host time per
					 * operation beyond its launch (optim.c) */
	int flash_impl;               /* hw_flash_impl: its fused attention kernel */
	int vocab_multiple;           /* the vocabulary padded to a multiple of this x tp
				       * (0: not padded; plan_pad_vocab) */
	int softmax_fused_max_seq;    /* unfused attention: the longest key length
				       * its fused scale-mask-softmax kernel takes
				       * (0: every shape; work_shard) */
	int zero3_gathers;            /* ZeRO-3 all-gathers per layer and pass: 1 for
				       * FSDP's per-block units, one per linear
				       * module for DeepSpeed (plan_build), equal
				       * in size; under zero3_modules the model's
				       * modules instead (plan_zero3_pieces) */
	int zero3_modules;            /* plan_zero3_split */
	int zero3_gather_copy;        /* plan_gather_copy */
	int zero3_reduce;             /* plan_zero3_reduce: per unit (FSDP) or
				       * in DeepSpeed's IPG buckets of grad_bucket
				       * elements (emit.c) */
	int zero3_root;               /* plan_zero3_root: the ends' gathers */
	int cp_comm;                  /* plan_cp_comm: CP's K/V exchange */
	int selective_attn;           /* plan_selective_attn */
	double zero3_rank_op_s;       /* host time per (shard rank x gradient
				       * tensor) of a bucket's reduce-scatter:
				       * DeepSpeed's per-rank slicing (emit.c) */
	double zero3_gather_rank_op_s; /* host time per (shard rank x gathered
				       * tensor) of a ZeRO-3 all-gather: DeepSpeed
				       * 2021's per-rank views (emit.c) */
	bool zero3_sync;              /* the host synchronises the device before
				       * each layer's gathers are issued
				       * (DeepSpeed before 2021-10; emit.c) */
	int zero3_reduce_calls;       /* plan_zero3_calls */
	bool zero3_rank_copies;       /* ZeRO-3's collectives take per-rank tensor
				       * lists: one copy kernel launch per rank
				       * and tensor (PyTorch's list collectives) */
	double zero_gather_rank_op_s; /* host time per (DP rank x parameter tensor)
				       * after ZeRO-1/2's parameter all-gather
				       * (nanotron's all_gather_coalesced;
				       * plan_zero_gather_host) */
	int step_tensor_ops;          /* host operations per parameter tensor of the
				       * framework's own loops around the step
				       * (nanotron: the clipping's norm and
				       * rescale, the master copy; plan_step_loops) */
	double step_tensor_op_s;      /* host time of each, beyond its launch */
	int clip_scope;               /* PLAN_CLIP_*: what the gradient norm reads */
	bool fsdp_casts;              /* FSDP MixedPrecision's shard casts and the
				       * sharded accumulation, on its side
				       * streams (plan_fsdp_gather_cast_bytes) */
	bool distribute_saved;        /* full recomputation keeps each layer's
				       * input split over the TP group, gathered
				       * before its recomputed forward (Megatron's
				       * distribute_saved_activations, metaseq's
				       * --distribute-checkpointed-activations) */
	bool recompute_early_stop;    /* full recomputation stops at the layer's
				       * last saved tensor: its last GEMM and what
				       * follows are not re-run (torch's
				       * non-reentrant checkpoint, >= 2.1) */
	int fsdp_reduce;              /* plan_fsdp_reduce: the passes over a unit's
				       * unsharded gradient before its reduce-scatter */
	/* Gradient buckets (plan_bucket_bytes, build_emit_grad_buckets): a bucket holds
	 * max(grad_bucket, grad_bucket_per_dp x dp x cp) parameters' gradients;
	 * one_bucket_no_overlap: without overlap_grad_reduce the whole stage is
	 * one collective after the backward; first_stage_buckets: buckets
	 * never span model chunks, and only the first stage's first chunk
	 * splits at the bucket size; every other chunk is one bucket, for the
	 * gradients and overlap_param_gather's gathers alike (Megatron-Core,
	 * plan/buckets.c chunk_bucket_bytes). */
	double grad_bucket, grad_bucket_per_dp;
	/* grad_bucket_first: the first bucket's parameters (0 = grad_bucket's);
	 * grad_bucket_split: plan_bucket_split; grad_bucket_calls:
	 * plan_bucket_calls (plan/buckets.c "Buckets by tensor") */
	double grad_bucket_first;
	int grad_bucket_split, grad_bucket_calls;
	int sp_norm_sync;             /* plan_norm_sync (plan_norm_sync_calls) */
	bool one_bucket_no_overlap, first_stage_buckets;
	int grad_dtype;               /* plan_grad_dtype: the rule that sets
				       * [parallel] fp32_grads by precision where
				       * the scenario does not (plan_grad_fp32) */
	int grad_wire;                /* plan_grad_wire: the dtype the ZeRO-0..2
				       * buckets are reduced in (plan_grad_wire_bytes) */
	/* memory: what the model code saves (work_saved) */
	int saved_tensors;            /* work_saved_kind */
	int norm_saved;               /* work_norm_saved */
	bool expand_kv, attn_out_copy;
	bool returns_kv;              /* the model returns every layer's K and V
				       * (HF use_cache left on), held with its output */
	bool mask_4d;                 /* a (b, 1, s, s) attention mask per forward */
	bool dropout;                 /* eager code with dropout on the residual branches
				       * (masks and outputs kept: HF GPT-2) */
	bool lora_qkv_fused;          /* the q, k, v adapters share one dropout of the
				       * attention input (lit-gpt's LoRAQKVLinear) */
	int loss;                     /* plan_loss */
	bool holds_outputs;           /* the training loop keeps the model's output (its
				       * logits, returned K/V) referenced through the
				       * backward and the step */
	int logged_peak;              /* plan_logged_peak */
	/* gradients and buffers */
	int grads;                    /* plan_grads */
	bool grad_copy;               /* torch DDP's flat buckets: a second gradient copy */
	int grad_buckets;             /* bucket_size buffers held (DeepSpeed IPG) */
	bool accumulate_unsharded;    /* ZeRO-3 under accumulation keeps unsharded grads
				       * (FSDP no_sync): memory, and the reduce-scatters
				       * only in the last micro-batch (fsdp_layer_grads) */
	bool zero3_pp_gathered;       /* with pp > 1 ZeRO-3 units stay gathered and
				       * gradients unsharded across the micro-batches
				       * (plan_zero3_pp_gathered) */
	bool frozen_grads;            /* flat parameters mixing frozen and trainable
				       * weights carry gradients for all of them */
	bool zero2_param_shards;      /* ZeRO-2 keeps parameters sharded at rest and
				       * gathered from forward to backward (FSDP
				       * SHARD_GRAD_OP) */
	bool step_fp32_grads;         /* the step builds an fp32 copy of the gradient
				       * partition (DeepSpeed) */
	bool quant_rest_fp32;         /* with quantized base weights the unquantized
				       * parameters are cast to fp32 (PEFT k-bit prep) */
	bool param_master;            /* under the mixed policy the (sharded)
				       * parameter is itself the fp32 master: no
				       * 16-bit copy between steps, 16 bits only
				       * while gathered, fp32 gradients at the step
				       * (FSDP's MixedPrecision; memory.c) */
	bool flat_params;             /* the optimizer steps one flat parameter per
				       * wrapped unit (FSDP1, use_orig_params =
				       * False), its shard, not the model's tensors */
	bool params_in_shard;         /* FSDP1's use_orig_params: a rank's optimizer
				       * steps the parameters its flat shard holds
				       * (optim.c, plan_optimizer_host_time) */
	int optimizer_impl;           /* plan_optim_impl */
	bool optimizer_item_sync;     /* the per-tensor loop (optimizer_impl =
				       * single) reads each tensor's step count
				       * from the GPU (.item()): host and GPU
				       * take turns (Composer's DecoupledAdamW;
				       * optim.c) */
	int foreach_temps;            /* state-sized lists alive together in a
				       * foreach Adam(W) step: 2 in torch 1.13.1
				       * (sqrt(v), then denom = _foreach_add out of
				       * place), 1 from 2.6.0 (_foreach_add_ in
				       * place; framework.c cites both) */
	int gathered_layers;          /* ZeRO-3 layers unsharded at once */
	double reuse_distance;        /* ZeRO-3 keeps a module gathered whose next use
				       * comes within this many elements of the trace
				       * (DeepSpeed's stage3_max_reuse_distance; 0: none,
				       * plan_zero3_reuse_layers) */
	double live_params;           /* ZeRO-3 with offloaded parameters: elements
				       * gathered at most (0 = two layers) */
	double workspace_bytes;       /* allocator-owned buffers beside the tensors
				       * and PyTorch's own workspaces (Transformer
				       * Engine's cuBLAS workspace), on compute
				       * capability >= 9.0 or not stated */
	double workspace_pre_hopper_bytes; /* the same before compute capability 9.0
				       * (0 = workspace_bytes): plan_workspace_bytes */
	bool scores_buffer;           /* the unfused attention's QK^T lands in a
				       * buffer kept between steps (Megatron-Core's
				       * local layers: work_scores_buffer_bytes) */
	int torch_workspaces;         /* PyTorch's cuBLAS workspaces: one per
				       * (thread, stream) that runs a PyTorch GEMM */
	double torch_workspace_bytes; /* each of them (CUBLAS_WORKSPACE_CONFIG) */
	double tp_overlap_workspace_bytes; /* beside them under tp_comm_overlap: the
				       * workspace of the userbuffer GEMMs
				       * (Transformer Engine) */
	/* outside the allocator, and its overhead */
	double context_bytes;         /* CUDA context and loaded kernels */
	double nccl_bytes;            /* NCCL's module and state, once with any group */
	double comm_bytes;            /* NCCL buffers per communicator */
	double allocator_overhead;    /* reserved / allocated - 1 (caching allocator) */
	double offload_fill;          /* with the optimizer offloaded, the fraction of the
				       * HBM left over that the framework fills with
				       * states anyway (ColossalAI Gemini auto) */
	bool offload_copy_pool;       /* under offload_params each unit's shard is
				       * copied in on a stream of its own, whose
				       * cached block no other stream reuses (FSDP1's
				       * pre-unshard stream): reserved (memwalk.c) */
	bool checkpoint_shards;       /* saving a checkpoint copies every parameter's
				       * local shard into a new GPU tensor, its root
				       * unit gathered (FSDP1's SHARDED_STATE_DICT
				       * without offload_to_cpu): a moment after the
				       * step (memwalk.c) */
	bool checkpoint_offload;      /* with checkpoint_shards: the checkpoint is a
				       * full state dict copied to the CPU unit by
				       * unit (FULL_STATE_DICT, offload_to_cpu and
				       * rank0_only): one unit gathered beside the
				       * root instead of the shard copies */
	/* What nanotron keeps beside (memwalk.c; defaults: none of it, and the
	 * four pipeline buffers podsim counted before) */
	bool backward_grads;          /* each backward leaves the 16-bit .grad of the
				       * stage's parameters, added into the persistent
				       * buffer and freed when it ends */
	int sp_gather_buffers;        /* persistent s b h buffers of the sequence-
				       * parallel all-gathers */
	int p2p_buffers;              /* pipeline activations/gradients held beside the
				       * saved tensors */
	double step_param_copies;     /* 16-bit parameter copies the ZeRO-1 step's
				       * all-gather allocates beside the flat shard */
	char comm_groups[CONF_STR_MAX]; /* communicators beyond the plan's groups */
	unsigned comm_mask;           /* PLAN_COMM_* parsed from comm_groups */
	/* What a micro-batch costs beyond its tokens, as the framework pays it
	 * (issue 23; plan_microbatch_cost sums it). The defaults are
	 * Megatron-Core's: fused layers, gradients accumulated inside the wgrad
	 * GEMMs, one message per pipeline tensor. */
	int layer_kernels;          /* work_layer_code: the kernels a layer launches */
	int grad_accum;             /* plan_grad_accum */
	int p2p_handshakes;         /* metadata messages before each pipeline tensor */
	int p2p_host_ops;           /* host operations (synchronisations) per tensor */
	int p2p_fwd_tensors;        /* tensors one forward transfer carries */
	bool zero_one_bucket;       /* ZeRO >= 1: one reduction after the backward */
	bool few_microbatches;      /* runs 1F1B with fewer than pp - 1 micro-batches */
	bool kv_heads_below_tp;     /* runs tp > kv_heads (K/V heads repeated per rank) */
	bool comm_host_op;          /* each TP/CP/EP collective costs the host an operation */
	bool p2p_serial;            /* a stage's pipeline transfers one at a time */
} plan_framework;

/* Communicators a framework creates beyond the plan's parallel groups
 * ([framework] comm_groups; memwalk.c communicators()): a collective on
 * the default group (a barrier), on a second group of all ranks, on the
 * whole pipeline group, on the model-parallel group (tp x pp). */
enum {
	PLAN_COMM_DEFAULT = 1 << 0,
	PLAN_COMM_WORLD = 1 << 1,
	PLAN_COMM_PP = 1 << 2,
	PLAN_COMM_MP = 1 << 3,
};

/* How gradients are accumulated over micro-batches ([framework] grad_accum):
 * FUSED inside the weight-gradient GEMMs (Megatron-Core's
 * gradient_accumulation_fusion adds each wgrad into the fp32 main grad), or
 * KERNEL: after every micro-batch's backward one add per parameter tensor,
 * reading the 16-bit gradient and reading and writing the accumulator (fp32
 * with fp32_grads): nanotron's FP32GradientAccumulator (plan_build), or
 * AUTOGRAD: PyTorch's own accumulation, under ZeRO-0/1 only (ZeRO-2/3 move
 * each gradient out as it is produced): AccumulateGrad keeps the first
 * micro-batch's gradient in param.grad and adds each later one in place,
 * reading both and writing one in the gradient's dtype (torch/csrc/autograd/
 * functions/accumulate_grad.h; PyTorch 1.13.1 :145-196), so (m - 1) / m of an
 * add per micro-batch; where the gradients are kept in fp32 beside 16-bit
 * parameters the framework copies every micro-batch's 16-bit param.grad into
 * its fp32 buffer instead: DeepSpeed's BF16_Optimizer.update_hp_grads,
 * hp_grad.add_(lp.grad.to(fp32)) per tensor, a cast to a temporary fp32
 * tensor and the add, two launches and 2 + 4 + 4 + 4 + 4 bytes per
 * parameter (microsoft/DeepSpeed 38327e07 runtime/bf16_optimizer.py:332-346,
 * called after every backward, runtime/pipe/engine.py:852-867 and
 * bf16_optimizer.py:316-330).
 * KERNEL_FP16: KERNEL for 16-bit gradients, FUSED for fp32 ones: Megatron-LM
 * from 2022-02 fuses the accumulation into the wgrad GEMM only into an fp32
 * main_grad (NVIDIA/Megatron-LM 83b1e42f30 megatron/arguments.py:171-182),
 * and an fp16 run's LocalDDP hook adds each micro-batch's gradient into its
 * contiguous buffer (default from e8fb052f81, 2021-08-18;
 * megatron/model/distributed.py:168-176 at f2d64c004d), until fp16 fusion
 * (07916bf245, 2022-09-27). */
typedef enum {
	PLAN_ACCUM_FUSED = 0,
	PLAN_ACCUM_KERNEL,
	PLAN_ACCUM_AUTOGRAD,
	PLAN_ACCUM_KERNEL_FP16
} plan_grad_accum;
const char *plan_grad_accum_name(int accum); /* "fused", "kernel", ... */

/* What FSDP1 does to a unit's unsharded gradient before reduce-scattering
 * it ([framework] fsdp_reduce_passes; plan_fsdp_flat_grad_bytes,
 * plan_fsdp_reduce_bytes): NONE, or FSDP1: its assembly from the flat
 * parameter's views (compute stream), then in the post-backward hook the cast
 * to the reduce dtype and the default hook's pre-division, and in torch 1.13
 * also F.pad's copy of the whole gradient (FSDP1_PAD). */
typedef enum {
	PLAN_FSDP_REDUCE_NONE = 0,
	PLAN_FSDP_REDUCE_FSDP1,
	PLAN_FSDP_REDUCE_FSDP1_PAD
} plan_fsdp_reduce;

extern const conf_key plan_framework_keys[]; /* [framework] */
extern const size_t plan_framework_nkeys;

/* Read [framework] (optional: defaults = Megatron-Core) into *out and parse
 * its schedule list; unknown schedule names are errors at the key. */
int plan_framework_from_conf(const conf_doc *doc, plan_framework *out, sim_diag *diag);
/* Every pipeline schedule a profile's runs_schedules may name, as its value
 * ("gpipe, 1f1b, interleaved, ..."), into out. */
void plan_framework_all_schedules(char *out, size_t len);

struct plan_scenario;
/* The framework's rules on s->plan (part of plan_check): each combination the
 * framework does not run is an error at the [parallel] key, naming the rule,
 * with a note where the rule is set. Returns the number of errors. */
int plan_check_framework(const struct plan_scenario *s, sim_diag *diag);

/* [train] memory keys: the precision policy, optimizer and fine-tuning
 * method (plan_train_keys; bytes per parameter in memory.c). */
typedef enum {
	PLAN_POLICY_MIXED = 0, /* 16-bit weights, fp32 master in the optimizer */
	PLAN_POLICY_AMP,       /* fp32 parameters under autocast */
	PLAN_POLICY_PURE       /* 16-bit weights, gradients and optimizer states */
} plan_policy;
typedef enum {
	PLAN_ADAM = 0,     /* two states per parameter, the policy's dtype */
	PLAN_ADAM_8BIT,    /* bitsandbytes / torchao: uint8 states + fp32 absmax per 256 */
	PLAN_ADAM_PAGED,   /* bitsandbytes paged: states in unified memory */
	PLAN_ADAM_PAGED_8BIT,
	PLAN_SGD,          /* no state (momentum-free, torch.optim.SGD's default) */
	PLAN_SGD_MOMENTUM, /* one momentum buffer in the policy's state dtype */
	PLAN_ADAFACTOR     /* factored second moment: a row and a column vector per matrix */
} plan_optimizer;
/* Frozen base weights under LoRA: as the policy keeps weights (AUTO), 16-bit,
 * fp32, 4-bit NF4 (fp32 absmax per 64), NF4 with double quantization, 4-bit
 * GPTQ (fp16 scale per 128), 8-bit (LLM.int8, fp32 scale per row ~ 0). */
typedef enum {
	PLAN_BASE_AUTO = 0,
	PLAN_BASE_16BIT,
	PLAN_BASE_FP32,
	PLAN_BASE_NF4,
	PLAN_BASE_NF4_DQ,
	PLAN_BASE_INT4,
	PLAN_BASE_INT8
} plan_base;
typedef struct plan_train {
	int policy;                    /* plan_policy */
	int optimizer;                 /* plan_optimizer */
	bool optimizer_in_backward;    /* each parameter stepped in its backward */
	bool clip_grad;                /* the gradient norm computed each step */
	int lora_rank;                 /* 0 = every parameter trains */
	char lora_targets[CONF_STR_MAX];
	unsigned lora_mask;            /* WORK_LORA_* (work.h) parsed from lora_targets */
	bool lora_dropout;             /* adapters see a dropout of their input */
	int base_weights;              /* plan_base */
	bool train_embeddings;         /* LoRA plus full embedding and output layer */
	int frozen_layers;             /* the first N layers and the embedding frozen */
	bool compile;                  /* torch.compile: WORK_SAVED_COMPILED */
	bool chunked_loss;             /* PLAN_LOSS_CHUNKED */
	bool activation_offload;       /* kept activations go to the host */
	bool autocast;                 /* 16-bit matmuls under torch autocast over 16-bit
					* weights (HF Trainer's --bf16): the loss's
					* log-softmax in fp32 (implied by policy amp) */
	int grad_compression;          /* plan_gradcomp */
	int fp8_recipe;                /* plan_fp8_recipe: fp8 training's scaling */
} plan_train;

/* fp8 training's scaling recipe (train.fp8_recipe, Megatron-Core's
 * --fp8-recipe; its default is delayed, core/transformer/
 * transformer_config.py:594-596 at d98e8a64). It changes what the fused
 * layer keeps (work_shard fp8_delayed). */
typedef enum { PLAN_FP8_DELAYED = 0, PLAN_FP8_TENSORWISE, PLAN_FP8_MXFP8, PLAN_FP8_BLOCKWISE } plan_fp8_recipe;

/* Compression of the data-parallel gradient traffic (train.grad_compression):
 * none (the gradients' own width, fp32_grads), fp8 (1 byte per value, as
 * MS-AMP's fp8 gradient all-reduce), 1bit (1-bit Adam's compressed
 * all-reduce after its warm-up: 1 bit per value, plus error feedback). */
typedef enum { PLAN_GC_NONE = 0, PLAN_GC_FP8, PLAN_GC_1BIT } plan_gradcomp;


/* "q,v" or "attention, mlp" -> WORK_LORA_* bits; SIM_ECONF for an unknown
 * name or an empty list. */
int plan_lora_targets(const char *text, unsigned *mask);

/* A loaded, checked scenario. */
typedef struct plan_scenario {
	conf_doc *doc; /* owns the configuration (resolved text, locations) */
	char name[CONF_STR_MAX];
	char description[CONF_STR_MAX];
	uint64_t seed;
	hw_dtype dtype; /* training precision of the matmuls and activations */
	bool flash;     /* fused (flash) attention; false = the unfused path */
	bool inference; /* forward passes only (prefill): no backward, gradients or
			 * optimizer; with offload_params the weights stream from the
			 * host per layer (ZeRO-Inference) */
	/* model.vocab is the vocabulary the layers run: the model file's
	 * (vocab_model) padded by the framework for the plan's tp
	 * (plan_pad_vocab); model FLOPs count vocab_model. */
	work_model model;
	int vocab_model;
	bool sp_from_fw; /* sequence_parallel from [framework] sequence_parallel_default
	                  * (plan_derive; plan_sp_assumption) */
	bool zero_from_fw; /* zero from [framework] zero_default (plan_derive;
	                    * plan_zero_assumption) */
	hw_gpu gpu;
	net_cluster cluster;
	plan_spec plan;
	plan_framework fw;
	plan_train train;
	int *vlayers; /* transformer layers per virtual stage v = chunk * pp + stage */
	/* Nodes of another GPU type ([cluster] other_gpu, other_nodes;
	 * scenario.c reads the file and checks the list): other_gpu is that
	 * GPU, with this scenario's framework host cost and sustain cap as
	 * gpu's; other_node[n] (n < other_len, the cluster's nodes at
	 * loading: a sweep's copy may vary cluster.nodes, and nodes past it
	 * are the node's type) is true on the nodes holding it. nother = 0
	 * and other_node NULL when every node is alike (then other_gpu is
	 * unset). exec times their ranks' tasks on it (exec.h, "Mixed GPU
	 * types"). other_text: the [other_gpu] section plan_scenario_text
	 * adds when other_gpu came from a file (NULL when it came from the
	 * scenario's own [other_gpu] section, or there is none).
	 * other_net: the links of the nodes holding other_gpu: the [node] of
	 * the node file [cluster] other_gpu names (its [gpu] is other_gpu;
	 * other_text then adds an [other_node] section with its keys, read in
	 * its place when the text is loaded again), other_links set; with a
	 * [gpu] file the main node's (cluster.node), other_links false. */
	hw_gpu other_gpu;
	net_node other_net;
	bool other_links;
	bool *other_node;
	int nother, other_len;
	char *other_text;
	/* Borrowed, not loaded: link graphs shared across runs (sim/topo,
	 * topo_graphs), set by a caller that runs many scenarios (podsim
	 * sweep owns one set for all its plans). Under network = flow
	 * plan_build takes the cluster's graph from it instead of building
	 * one; NULL: it builds its own. Results are the same either way. */
	struct topo_graphs *graphs;
} plan_scenario;

/* The scenario as the other GPU type's nodes run it ([cluster] other_gpu):
 * *o = *s with that GPU, its node's links (other_net where the node file
 * gave them, else the main node's) and NCCL's tuner on its compute
 * capability. exec's straggler replay (other_times) and the sweep's
 * pre-screen (a mixed cluster's stages) both time the other type so. */
void plan_other_view(const plan_scenario *s, plan_scenario *o);

/* A copy of `bytes` between a GPU and the host over its PCIe link at its
 * efficiency, from or to NVMe (nvme) no faster than the node's drives
 * shared by its GPUs: the offload stream's task (plan_build's copies,
 * which the sweep's pre-screen times alike). */
double plan_host_copy_s(const plan_scenario *s, double bytes, bool nvme);

/* Load a scenario file, apply "section.key=value" overrides, read every
 * section, and check the plan (plan_check). On any error the diagnostics say
 * where, *out is NULL and SIM_ECONF is returned. */
int plan_scenario_load(const char *path, const char *const *overrides, size_t noverrides,
		       sim_diag *diag, plan_scenario **out);
/* The same, read but not checked (no plan_check, no layout: vlayers NULL):
 * the base of a sweep, whose every plan is checked on its own, so that a
 * base whose own plan the varied keys replace need not be valid itself
 * (its tp under a framework without tensor parallelism, its dp for another
 * split). Errors reading a section are errors still. */
int plan_scenario_load_unchecked(const char *path, const char *const *overrides,
                                 size_t noverrides, sim_diag *diag, plan_scenario **out);
/* The same from configuration text in memory (generated scenarios, e.g. by
 * `podsim validate`); includes resolve from base_dir; `name` appears in
 * messages. */
int plan_scenario_load_string(const char *text, const char *name, const char *base_dir,
			      sim_diag *diag, plan_scenario **out);
void plan_scenario_free(plan_scenario *s);
/* A stored run's scenario text (plan_scenario_text's) loaded again, for
 * the inputs a stored run reads from it beside its stored figures (the
 * energy terms: the main GPU, [node] power, [cluster] pue). A text stored
 * before the [other_gpu] section was kept names other_gpu's file relative
 * to a scenario file unknown here: when it does not load, it is loaded
 * without [cluster] other_gpu and other_nodes, every node the main GPU's
 * type, and *alike is set (such a scenario does not replay the run). */
int plan_scenario_load_stored(const char *text, sim_diag *diag, plan_scenario **out, bool *alike);
/* The scenario as canonical .ini text: conf_resolved_text of its document
 * and, when [cluster] other_gpu named a file, that file's keys as an
 * [other_gpu] section (and a node file's [node] keys as an [other_node]
 * section; read in place of the file when the text is loaded again). This is what is stored with a run and hashed, and what
 * --print-config prints: it loads to the same scenario from any folder,
 * with no file beside it. Caller frees; NULL when out of memory. */
char *plan_scenario_text(const plan_scenario *s);

/* The plan string (label.c): the framework and every plan axis that changes
 * the prediction, in a fixed order, e.g. "megatron-core tp8 sp cp2 pp8 vpp8
 * dp8 ep1 mb1 gb512 1f1b recompute=none zero1 grad-overlap bf16"; label.c
 * lists the tokens. Deterministic: equal plans give equal strings. Written
 * into buf (len bytes, truncated, always terminated); PLAN_LABEL_MAX holds
 * every possible string. */
#define PLAN_LABEL_MAX 256
void plan_label(const plan_scenario *s, char *buf, size_t len);

/* Check the plan against the model and cluster: tp*pp*dp*cp == GPUs, heads %
 * tp, kv_heads % tp, the pipeline layout (plan_layout), global_batch %
 * (micro_batch*dp), features not built yet. Errors point at the [parallel]
 * keys involved. */
int plan_check(const plan_scenario *s, sim_diag *diag);

/* The pipeline layout: transformer layers of each of the V = pp*vpp virtual
 * stages, written to out[V]. Layers are assigned in order (virtual stage v
 * holds the layers after those of v - 1).
 *  - first_stage_layers / last_stage_layers (when > 0) fix virtual stage 0's and
 *    V-1's counts; the other layers split evenly over the remaining stages.
 *  - otherwise the L layers, plus one unit for the embedding (embedding_in_split)
 *    and one for the loss (loss_in_split), split evenly over V: each stage holds
 *    U = (L + e + l) / V units, virtual stage 0 one layer fewer with the
 *    embedding counted, V-1 one fewer with the loss (the Llama 3.1 405B layout on
 *    pp 8 x vpp 8: (126 + 2) / 64 = 2 units, so 1 layer on the two end stages).
 *  - otherwise, when they do not split evenly and p->uneven is
 *    PLAN_UNEVEN_END_STAGES (the framework's rule, e.g. Megatron-Core's
 *    account_for_embedding/loss_in_pipeline_split generalised to any count):
 *    the L + 2 units (embedding and loss one each) go U = floor((L + 2) / V) to
 *    every virtual stage and one more to stages 1 .. (L + 2) % V, the end
 *    stages holding their embedding or loss unit in place of a layer: 126
 *    layers on 16 stages give 7, 8 x 14, 7; 70 on 12 give 5, 6 x 10, 5.
 *    The model's MTP modules (p->mtp_units) count one unit each on the last
 *    stage beside the loss, as Megatron-Bridge's DeepSeek-V3 layouts place
 *    them (src/megatron/bridge/recipes/deepseek/deepseek_v3.py:116-131 at
 *    NVIDIA-NeMo/Megatron-Bridge 9a5e7986: last_layer = ["mtp"] * n +
 *    ["loss"], every stage of each listed layout holding equal units; the
 *    H100 benchmark's "Et|(tt|)*30mL", scripts/performance/run_script.py:71):
 *    61 layers + E + m + L on 32 stages give 1, 2 x 30, 0.
 *  - under PLAN_UNEVEN_COST (nanotron), with no layout key and vpp = 1, always:
 *    the blocks in order, the embedding (cost 0), the L layers (cost_layer
 *    each), the final norm (0), the lm_head (cost_head), the fp32 cast and the
 *    loss (0), go to stage k until their cumulative cost passes k + 1 pp-ths
 *    of the total, each block that passes it moving on to the next stage
 *    (nanotron models/base.py:216-236 at 0e0a27ea, exactly: the threshold
 *    total x ((k + 1) / pp) in doubles, the comparison strict, one stage per
 *    block). Llama 1B (16 layers of 67.1 M, lm_head 268.4 M) on pp 4 gives
 *    6, 5, 5, 0: the last stage holds the lm_head alone. A stage given no
 *    block is refused, as nanotron's benchmark configs refuse it
 *    (bench_cluster create_configs.py is_enough_layers_for_pp). Where the
 *    lm_head lands before the last stage (stages after it holding only the
 *    fp32 cast and the loss), podsim keeps the lm_head with the loss on the
 *    last stage, and the transfers between them carry the logits
 *    (plan_p2p_stage_bytes): plan_layout_assumption says so.
 * Returns NULL, or why the layout is impossible (a static string). */
const char *plan_layout(const plan_spec *p, int layers, int *out);
/* Under the cost rule, the stages of the lm_head, the fp32 cast and the loss
 * into tail (nanotron's blocks after the last layer); false, and -1 each,
 * when the rule does not apply. */
bool plan_layout_tail(const plan_spec *p, int layers, int tail[3]);
/* When the scenario's layout came from the framework's uneven rule (no
 * layout key set, layers not divisible), a one-line description of it for
 * the assumptions printed with a run ("uneven pipeline split ..."); false
 * otherwise. */
bool plan_layout_assumption(const struct plan_scenario *s, char *buf, size_t len);

/* The communication groups of a plan on its cluster (groups.c): TP, CP, the
 * gradient group (dp*cp ranks), the hybrid-sharding shard and replica groups,
 * EP and expert-DP, pipeline neighbours and the first/last-stage embedding
 * pair. */
typedef struct plan_groups {
	net_group tp, cp, dp, shard, replica, ep, edp, pp, embed;
	net_group hpz; /* ZeRO++ hpZ's secondary group: zero_hpz consecutive
			* ranks of the shard group (size 1 when off) */
	net_group qlocal, qglobal; /* ZeRO++ qgZ's all-to-all groups: a node's
				    * ranks, and one rank a node (size 1 when
				    * qgZ is off or the group is one node) */
} plan_groups;
void plan_make_groups(const plan_scenario *s, plan_groups *g);
/* The expert-parallel group alone, as plan_make_groups builds it (ep
 * consecutive ranks): for callers that need no other group, as the sweep's
 * pre-screen, per program (plan_ep_share). */
void plan_make_ep_group(const plan_scenario *s, net_group *ep);
/* The pipeline hop from stage `from` to stage `to` (groups.c): the pair of
 * the first replica's ranks of the two stages (rank 0 of the other
 * dimensions, stage k at k x the pipeline's stride). On one node: 2 ranks at
 * their distance; on two: 2 ranks a node or more apart, 1 per node. g->pp is
 * the hop from stage 0 to 1; where the stride is below the GPUs per node
 * some hops cross a node boundary and others do not (tp x dp = 4 on 8-GPU
 * nodes: every second one), and each send is timed on its own hop. */
void plan_pp_pair(const plan_scenario *s, int from, int to, net_group *out);
/* How many of the pipeline's pp - 1 forward hops (k -> k + 1, plan_pp_pair)
 * cross a node boundary; the first crossing one's k in *cross and the first
 * one inside a node in *inside (-1 where there is none; either may be NULL). */
int plan_pp_cross(const plan_scenario *s, int *cross, int *inside);
/* Their sizes alone (no geometry): the dp x cp ranks holding the same
 * parameters, the ZeRO shard group among them, the expert-data-parallel group. */
void plan_group_sizes(const plan_spec *p, int *dpg, int *shard, int *edp);

/* ZeRO-2 under gradient accumulation (m > 1 micro-batches) with a framework
 * that reduces every micro-batch (zero2_grad_reduce = microbatch, DeepSpeed
 * stage 2): each micro-batch's gradients are reduce-scattered bucket by
 * bucket after its backward, m times the data-parallel traffic of one
 * reduction, and a rank keeps only its gradient shard. Without it (boundary,
 * or m = 1) ZeRO-2 reduces once, as ZeRO-1, and while accumulating over m > 1
 * micro-batches a rank holds full gradients (plan_memory). Not with the
 * optimizer offloaded (ZeRO-Offload keeps its copy-per-bucket path). */
bool plan_grad_reduce_microbatch(const struct plan_scenario *s);
/* Whether a rank keeps only its shard of the gradients: ZeRO-3, or ZeRO-2
 * when it reduces every micro-batch or runs a single one. */
bool plan_grads_sharded(const struct plan_scenario *s);
/* ZeRO-3 under a pipeline as torch pipelining runs FSDP2 ([framework]
 * zero3_pp_gathered; torchtitan): each unit's parameters are all-gathered
 * in the step's first forward through them and stay gathered to the step's
 * end (torchtitan reshard_after_forward "default" = not pp_enabled,
 * distributed/fsdp.py:112-136 at b5bcd76c; the stage's backward runs with
 * set_reshard_after_backward(False)), the gradients accumulate unsharded
 * (set_requires_gradient_sync(False), torch 2.14.1
 * distributed/pipelining/stage.py:935-940), and each chunk's are
 * reduce-scattered once, after its last backward (REDUCE_GRAD:
 * perform_reduce_grad, stage.py:1262-1285; scheduled after the chunk's
 * m-th backward, schedules.py:1463-1495, or after the whole schedule on
 * one chunk, :1171, :1388), then resharded. True for such a plan: zero 3,
 * pp > 1, training. */
bool plan_zero3_pp_gathered(const struct plan_scenario *s);
/* The ends' parameters ZeRO-3 moves on `stage` under [framework]
 * zero3_root (plan_zero3_root; grads.c): per piece (0 the embedding, or the
 * one root unit; 1 the head) the elements gathered and those reduced.
 * Returns the pieces, 0 where nothing moves. */
int plan_zero3_ends(const struct plan_scenario *s, int stage, double gather[2], double grad[2]);
/* The last layers of `stage` that ZeRO-3 keeps gathered from their forward
 * to their backward under [framework] reuse_distance (grads.c; 0 without
 * it, with a pipeline or offloaded parameters). */
int plan_zero3_reuse_layers(const struct plan_scenario *s, int stage);
/* Whether ZeRO-3 gradients accumulate unsharded over the micro-batches
 * (accumulate_unsharded, FSDP no_sync, or plan_zero3_pp_gathered) and are
 * reduced only once the last micro-batch completes them. */
bool plan_zero3_unsharded_acc(const struct plan_scenario *s);

/* Bytes of one data-parallel gradient bucket: [parallel] bucket_size when
 * set, else the framework's max(grad_bucket, grad_bucket_per_dp x dp x cp)
 * parameters of 4-byte (fp32_grads) or 2-byte gradients. */
double plan_bucket_bytes(const struct plan_scenario *s);

/* The framework's own workspace on GPU g: [framework] workspace from
 * compute capability 9.0 on (or where g states none), workspace_pre_hopper
 * before (when set); *tp_overlap the tp_overlap_workspace scaled the same
 * way (Transformer Engine's userbuffer GEMMs hold 3 of its workspaces).
 * tp_overlap may be NULL. */
double plan_workspace_bytes(const plan_framework *fw, const hw_gpu *g, double *tp_overlap);

/* The vocabulary a framework's layers run: the model's V padded up to a
 * multiple of m = vocab_multiple x tp, ceil(V / m) x m, so that every TP
 * rank holds an equal slice of the embedding, the logits and the loss
 * (vocab_multiple 0: V). Megatron pads with dummy tokens
 * (megatron/training/vocab_utils.py:47-59 at d98e8a64, 128 x tp by default,
 * arguments.py:2441; Megatron-DeepSpeed the same, f4157bea
 * megatron/tokenizer/tokenizer.py:58-70); nanotron by 1 x tp
 * (src/nanotron/trainer.py:682-686, config.py:221 at 0e0a27ea); Megatron-
 * Bridge where its recipe sets should_pad_vocab, as its performance recipes
 * do (067f987d src/megatron/bridge/models/gpt_provider.py:266-271,
 * perf_recipes/llama/b200/llama3.py:37). The padded rows are weights,
 * logits and loss like the others: the GEMMs, the memory and the loss run
 * over them. plan_pad_vocab sets s->model.vocab from s->vocab_model for the
 * plan's tp (again after a sweep changes tp) and the nanotron balancing's
 * lm_head cost with it. */
int plan_padded_vocab(int vocab, int multiple, int tp);
/* The model as MFU counts its FLOPs: the model file's vocabulary, not the
 * padding (Megatron's own report counts the padded one, training.py:1302 at
 * d98e8a64; model FLOPs are the model's, PaLM's definition). */
work_model plan_flops_model(const plan_scenario *s);
void plan_pad_vocab(plan_scenario *s);
/* What plan_scenario_load derives from the [parallel] keys it read, again
 * after they change (the sweep's fast path writes a plan's values into a
 * copy of the base): the ZeRO stage by the framework's default ([framework]
 * zero_default, at most the stage it runs with the plan's pipeline; 0 with
 * one data-parallel rank) unless zero_given, then fp32_grads by the framework's rule for the precision
 * and ZeRO stage ([framework] grad_dtype, plan_grad_fp32) unless
 * fp32_given (the scenario, a --set or the sweep's own dimension gives
 * it), sequence_parallel at tp > 1 by the framework's default ([framework]
 * sequence_parallel_default, where it runs it) unless sp_given, the
 * vocabulary padded for tp (plan_pad_vocab), the recompute
 * modules' mask (work_recompute_parse; a bad list is plan_check's error,
 * the mask 0). */
void plan_derive(plan_scenario *s, bool fp32_given, bool sp_given, bool zero_given);
/* Sequence parallelism taken from the framework's default as an assumption
 * (into buf): true when plan_derive set it (sp_from_fw). */
bool plan_sp_assumption(const plan_scenario *s, char *buf, size_t len);
/* The ZeRO stage taken from the framework's default as an assumption (into
 * buf): true when plan_derive set it (zero_from_fw). */
bool plan_zero_assumption(const plan_scenario *s, char *buf, size_t len);
/* The ZeRO stage framework fw runs where a plan of pp stages and dp_cp
 * data-parallel x context-parallel ranks leaves zero open (plan_derive's
 * rule: zero_default, capped by runs_zero, with a pipeline by
 * runs_zero_with_pp; 0 with one rank). */
int plan_zero_default(const plan_framework *fw, int pp, int64_t dp_cp);
/* plan_zero_default's stage, and why in words into buf: "framework NAME's
 * default, zero_default D" and, where the stage is not D, the reason. */
int plan_zero_default_text(const plan_framework *fw, int pp, int64_t dp_cp, char *buf,
                           size_t len);
/* The interleaved schedule's micro-batch group as an assumption (into buf):
 * true when vp_group is left at 0 and plan_vp_group picks a group other
 * than pp (the micro-batches no multiple of pp). */
bool plan_vp_group_assumption(const plan_scenario *s, char *buf, size_t len);
/* A padded vocabulary as an assumption printed on a case row ("vocabulary
 * padded to 50304 (framework megatron-core: a multiple of 128 x tp 1)");
 * false, buf untouched, when the plan runs the model's own. */
bool plan_vocab_assumption(const plan_scenario *s, char *buf, size_t len);

/* Micro-batches per step per pipeline: global_batch / (micro_batch * dp). */
int plan_microbatches(const plan_spec *p);
/* How one rank executes a layer under this plan: tp, sp, micro-batch, its
 * share of the sequence (seq_len / cp), dtype, attention path, cp, ep. */
work_shard plan_shard(const plan_scenario *s);

/* Transformer layers held by pipeline stage `stage` (all its chunks). */
int plan_stage_layers(const plan_scenario *s, int stage);
/* The model's index of the stage's `local`-th layer (chunks in order), or -1. */
int plan_global_layer(const plan_scenario *s, int stage, int local);
/* Checks that need the pipeline layout (s->vlayers): train.frozen_layers
 * inside the first chunk. SIM_OK or SIM_ECONF (errors in diag). */
int plan_check_layout(const plan_scenario *s, sim_diag *diag);
/* Whether global layer g is frozen (train.frozen_layers: g < N). */
bool plan_layer_frozen(const plan_scenario *s, int g);
/* The parameters of chunk c of `stage` that train.frozen_layers freezes, per
 * TP rank: its frozen layers', and the embedding's on virtual stage 0. */
double plan_chunk_frozen(const plan_scenario *s, int stage, int chunk);
/* The most layers any stage holds. */
int plan_max_stage_layers(const plan_scenario *s);
/* Layers of chunk `chunk` of `stage`, and the stage-local index of its first
 * layer (chunks are numbered in model order). */
int plan_chunk_layers(const plan_scenario *s, int stage, int chunk, int *first_local);
/* The virtual stage (position in the pipeline, 0 .. pp vpp - 1) of chunk c
 * of `stage`: c pp + stage (the looped placement: Megatron's interleaving,
 * torch's loop style), or under ZBV's V (torch's generate_stage_to_rank_
 * mapping, style "v", distributed/pipelining/_utils.py:515-545 in 2.14.1)
 * stage for chunk 0 and 2 pp - 1 - stage for chunk 1. (Inline: the memory
 * walk asks it per op.) */
static inline int plan_vstage(const plan_spec *p, int stage, int c)
{
	return plan_sched_v(p->schedule) && c == 1 ? 2 * p->pp - 1 - stage : c * p->pp + stage;
}
/* The stage (pipeline rank) holding virtual stage v, and its chunk. */
int plan_vstage_rank(const plan_spec *p, int v, int *chunk);
/* The stage holding the last virtual stage, the output layer and the loss:
 * pp - 1, or 0 under ZBV. */
int plan_last_rank(const plan_spec *p);
/* Whether layer l (0-based) of a chunk of n layers re-runs its forward in
 * the backward under recompute = full (recompute_layers and
 * recompute_method; false under none and selective). */
bool plan_layer_recomputed(const plan_spec *p, int n, int l);
/* How many of a layer's n forward items `f` its full recomputation re-runs:
 * all n, or with [framework] recompute_early_stop those before its last
 * GEMM (derived at the definition, framework.c). */
int plan_recompute_items(const plan_scenario *s, const work_item *f, int n);
/* Whether full recomputation covers only some layers (recompute_layers > 0):
 * then a multi-token prediction module keeps its tensors, as Megatron-Core's
 * block method skips its recompute (multi_token_prediction.py:1630-1633 at
 * d98e8a64). */
bool plan_recompute_partial(const plan_spec *p);
/* Its layers by kind (count[0] dense, count[1] MoE; what a layer holds and
 * keeps depends only on its kind) with the model index of the first of each
 * kind (rep[k], -1 when none); returns the chunk's layers. */
int plan_chunk_kinds(const plan_scenario *s, int stage, int chunk, int count[2], int rep[2]);

/* ---------------------------------------------------------------- memory -- */

/* Memory categories of one rank at its peak. Allocated (PyTorch's
 * max_memory_allocated) is the first five; reserved adds fragmentation, the
 * caching allocator's cached blocks; the device (nvidia-smi) adds runtime,
 * what lives outside the allocator: the CUDA context and loaded kernels,
 * NCCL's buffers, paged optimizer states. */
typedef enum {
	PLAN_MEM_WEIGHTS = 0,
	PLAN_MEM_GRADIENTS,
	PLAN_MEM_OPTIMIZER,
	PLAN_MEM_ACTIVATIONS,
	PLAN_MEM_BUFFERS,
	PLAN_MEM_FRAGMENTATION,
	PLAN_MEM_RUNTIME,
	PLAN_MEM_COUNT
} plan_mem;

/* "weights", "gradients", "optimizer_states", "activations", "buffers",
 * "fragmentation", "runtime". */
const char *plan_mem_name(plan_mem m);

/* The verdict a planner banks on: the device total (reserved plus runtime)
 * against the GPU's capacity: out of memory when the allocated bytes and the
 * runtime alone exceed it, tight when the device total leaves under 10 % of
 * the capacity free (the allocator then has to release its cache and retry,
 * and a longer sample or a framework update tips it over). */
typedef enum { PLAN_VERDICT_FITS = 0, PLAN_VERDICT_TIGHT, PLAN_VERDICT_OOM } plan_verdict;
#define PLAN_TIGHT_HEADROOM 0.10
/* "fits", "tight", "out of memory". */
const char *plan_verdict_name(plan_verdict v);
/* The verdict of a device total (plan_mem_peak.device) with `allocated`
 * bytes and `runtime` outside the allocator on a GPU of `capacity`. */
plan_verdict plan_mem_verdict(double allocated, double runtime, double device, double capacity);

/* One live term at the peak: what it is, its category, its bytes and the
 * formula with the scenario's values. */
#define PLAN_MEM_MAX_TERMS 40
typedef struct plan_mem_term {
	char name[48];
	plan_mem cat;
	double bytes;
	char formula[200];
} plan_mem_term;

/* A rank's memory peak over the step (memwalk.c): the schedule walked op by
 * op (plan_schedule_order) with what each moment keeps alive: the static
 * terms (weights, optimizer states, persistent gradient buffers), the
 * activations of the micro-batches in flight, the gradients from their first
 * backward (unless the framework keeps a persistent buffer), the loss's logit
 * tensors around the last stage's loss, the working set of a recomputed
 * layer, gathered ZeRO-3 layers, and the optimizer step's temporaries; the
 * peak is the largest sum, its terms listed. */
typedef struct plan_mem_peak {
	double bytes[PLAN_MEM_COUNT];       /* per category at the peak */
	double allocated, reserved, device; /* PyTorch's counters and nvidia-smi's */
	double demand;   /* device bytes without the cap: allocated x (1 + overhead) + runtime */
	double capacity;
	plan_verdict verdict;
	int op;           /* schedule op of the peak; -1 the optimizer step or the
	                   * checkpoint after it */
	bool brief;       /* plan_memory_totals: no moment, no terms */
	bool checkpoint;  /* the peak is the checkpoint after the step
	                   * (checkpoint_shards: the state dict's copies) */
	char moment[160]; /* the peak's moment in words */
	int nterms;
	plan_mem_term term[PLAN_MEM_MAX_TERMS];
} plan_mem_peak;

/* The peak of one rank of `stage`. */
void plan_memory_peak(const plan_scenario *s, int stage, plan_mem_peak *out);
/* The same bytes, counters and verdict without the moment and the terms
 * (the sweep's pre-screen, the cuts). */
void plan_memory_totals(const plan_scenario *s, int stage, plan_mem_peak *out);
/* The allocated bytes' peak of one rank of `stage` from the end of its last
 * forward or backward through the optimizer step (the static terms, what the
 * pipeline leaves, the step's gradients and temporaries): what
 * max_memory_allocated reads when the peak counters were reset after the
 * pipeline ([framework] logged_peak = after-pipeline). 0 for inference. */
double plan_memory_after_pipeline(const plan_scenario *s, int stage);
/* Its categories only (what reports and stores use). */
void plan_memory(const plan_scenario *s, int stage, double bytes[PLAN_MEM_COUNT]);

/* Whether the plan fits (fit.c): the verdict `podsim run` reports (text,
 * JSON, HTML, explain) and `podsim sweep` prunes on and prints. The
 * scenario's GPU: the stage with the largest device total (the first of
 * equals) and its verdict; other_gpu ([cluster] other_nodes): of the stages
 * with a rank on its nodes, the worst verdict (then the largest device
 * total); the offloaded states per node (the most loaded stage's,
 * plan_offload_memory) against host DRAM and NVMe. `where` names the first
 * of these that is out of memory. The plan's verdict is the worst of them:
 * out of memory where `where` says so, else the worse of the two GPU
 * types' verdicts; its basis (`by_other`) is other_gpu's stage when that
 * verdict is worse than the scenario's GPU's, or as bad (fits or tight)
 * with a larger share of its capacity used (plan_fit_by_other). */
typedef enum {
	PLAN_OOM_NONE = 0,
	PLAN_OOM_GPU,
	PLAN_OOM_OTHER_GPU,
	PLAN_OOM_HOST,
	PLAN_OOM_NVME
} plan_oom;
typedef struct plan_mem_fit {
	plan_verdict verdict; /* the plan's: the worst over GPU types and tiers */
	bool by_other;        /* its GPU basis is other_gpu's stage */
	int stage;            /* the scenario's GPU: the most loaded stage */
	double peak;          /* its device bytes */
	double needed;        /* its allocated + runtime */
	plan_verdict gpu_verdict; /* and its verdict */
	int other_stage;      /* other_gpu: the worst stage its nodes hold, -1 none */
	double other_peak, other_capacity;
	double other_needed;  /* its allocated + runtime: what the verdict compares */
	plan_verdict other_verdict;
	/* offloaded bytes per node and that node's capacity, of the fullest
	 * node (on a mixed cluster either type's: its own host DRAM and NVMe) */
	double host, nvme, host_capacity, nvme_capacity;
	plan_oom where;
} plan_mem_fit;
void plan_memory_fit(const plan_scenario *s, plan_mem_fit *out);
/* Whether other_gpu's verdict decides over the scenario's GPU's: a worse
 * verdict, or an equal one short of out of memory with a larger share of
 * its capacity taken by the device total (the fuller GPU; on out of memory
 * both, the scenario's GPU, as plan_oom orders them). Shared by
 * plan_memory_fit and exec's reports, so the two cannot drift apart. */
bool plan_fit_by_other(plan_verdict gpu, double gpu_device, double gpu_capacity,
                       plan_verdict other, double other_device, double other_capacity);
/* "fits", or why the plan does not fit ("does not fit in GPU memory
 * (allocated + runtime > HBM)", ...): the sweep's pruning reasons. */
const char *plan_oom_text(plan_oom w);
/* The peak of a rank of `stage` on [cluster] other_gpu (plan_memory_totals
 * with that GPU's capacity; `full`: plan_memory_peak, its moment and
 * terms); false, *out untouched, when no rank of the stage sits on its
 * nodes. */
bool plan_memory_other(const plan_scenario *s, int stage, bool full, plan_mem_peak *out);
/* Whether a rank of `stage` sits on a node of [cluster] other_gpu. */
bool plan_stage_on_other(const plan_scenario *s, int stage);

/* Allocated bytes over the step on `stage`: for each schedule op in order
 * its start, the peak within it and its end, then the optimizer step as one
 * more op (start, peak, end). Writes at most max entries per array; returns
 * the number of ops (plan_schedule_steps + 1). */
int plan_memory_curve(const plan_scenario *s, int stage, double *start, double *peak,
		      double *end, int max);

/* Where a plan that does not fit (or is tight) can cut memory: each of the
 * changes recompute = full, the next ZeRO stage the framework runs, half the
 * micro-batch, the optimizer offloaded to the CPU (with ZeRO-1 at least),
 * and with checkpoint_shards the checkpoint saved as a full state dict
 * through the CPU (checkpoint_offload), applied alone and kept when
 * plan_check accepts it (the framework's rules included), with what it
 * saves of the demand of the most loaded stage (the device bytes before the
 * allocator's cache gives way to the capacity) on the GPU the plan's
 * verdict is decided on (plan_memory_fit: other_gpu's stages when they
 * decide), that stage's device bytes after, and the plan's verdict after
 * (the worst over its GPU types); sorted by saving, largest first. Returns
 * the number written. */
typedef struct plan_mem_cut {
	char what[64];       /* "recompute = full" */
	char term[48];       /* the term it cuts most */
	double saved;        /* demand saved on the most loaded stage */
	double device;       /* its device bytes after the change */
	plan_verdict verdict;
} plan_mem_cut;
int plan_memory_cuts(const plan_scenario *s, plan_mem_cut *out, int max);
/* The changes of the same list that plan_check accepts but that save
 * nothing (saved <= 0: a peak they do not act on, as the checkpoint after
 * the step for recomputation when the save's own bytes exceed the step's
 * reserved), in the list's order. Returns the number written. */
int plan_memory_cuts_idle(const plan_scenario *s, plan_mem_cut *out, int max);

/* Parameters of one rank, term by term (memory.c). */
typedef struct plan_budget {
	int layers;
	double dense, experts, linear; /* held before sharding: TP-split, routed experts
					* over EP, and the layers' linear weights */
	double train, frozen;          /* what trains (all, or LoRA adapters plus the
					* trained embeddings) and the frozen base */
	double adapters;               /* LoRA adapter parameters */
	double frozen_bytes;           /* the frozen base's bytes */
	double base_bytes;             /* per frozen linear weight */
	double quant_state;            /* of frozen_bytes, the 4-bit base's quantisation
					* statistics (bitsandbytes' absmax): whole on
					* every rank, never sharded or offloaded */
	double layer_max;              /* the largest layer's parameters */
	double w, g, o, paged;         /* bytes per trainable parameter (plan_param_bytes) */
	double wg;                     /* bytes of a parameter as the layers compute with
					* it (gathered under ZeRO-3): w, or 2 where the
					* framework's param_master keeps w = 4 */
} plan_budget;
void plan_stage_budget(const plan_scenario *s, int stage, plan_budget *b);
/* Parameters of chunk c of stage (dense TP-split, routed experts over EP,
 * the layers' linear weights), and what of them trains. */
void plan_chunk_params(const plan_scenario *s, int stage, int chunk, double *dense,
		       double *experts, double *linear);
double plan_chunk_train(const plan_scenario *s, int stage, int chunk);
/* A layer's norm and bias parameters (not linear weights). */
double plan_layer_small_params(const work_model *m);
/* One TP rank's parameters of global layer g (its routed experts excluded:
 * they go over EP), of the input embedding and of the output layer with the
 * final norm: the TP-split part over tp, what TP replicates whole
 * (work_params_*_replicated). */
double plan_rank_layer(const plan_scenario *s, int g);
double plan_rank_embedding(const plan_scenario *s);
double plan_rank_output(const plan_scenario *s);
/* The change LoRA makes to the model FLOPs of `tokens` tokens (MFU's
 * numerator): the frozen linears' weight gradients, 2 of the 6 FLOPs per
 * matmul weight and token (the output layer's too unless the embeddings
 * train), not computed (work/lora.c), and the adapters' 6 per adapter weight
 * and token added; 0 without LoRA or in inference (memory.c). */
double plan_lora_flops_change(const plan_scenario *s, double tokens);
/* LoRA adapter parameters of one layer on one rank. */
double plan_lora_layer_params(const plan_scenario *s);
/* Bytes per trainable parameter: weights, gradients, optimizer states in the
 * allocator (master included) and paged optimizer states (memory.c's table). */
void plan_param_bytes(const plan_scenario *s, double *w, double *g, double *opt, double *paged);
/* Bytes of a trained parameter as the layers compute with it, ZeRO-3's
 * gathered copy (plan_budget.wg). */
double plan_param_gather_bytes(const plan_scenario *s);
/* The largest tensor one rank of `stage` steps in the optimizer, in
 * elements (a per-tensor loop's temporaries and launches are sized by it):
 * with flat_params the largest FSDP unit's shard, else the model's largest
 * parameter tensor on the rank (memory.c). */
double plan_step_tensor_max(const plan_scenario *s, int stage);
/* The data-parallel gradients' dtype by training precision, a framework
 * rule ([framework] grad_dtype). The gradients are accumulated over the
 * micro-batches, kept and reduced in one dtype, and [parallel] fp32_grads
 * is that dtype (true: fp32, false: 16 bits, the parameters'); a scenario
 * that sets fp32_grads overrides the rule.
 *   FP32: fp32 at every precision (nanotron's FP32GradientAccumulator).
 *   PARAMS: the parameters' own dtype, 16 bits under fp16, bf16 and fp8
 *     (DeepSpeed ZeRO's param.grad reduced in communication_data_type;
 *     FSDP mixed-precision policies whose reduce_dtype is the param_dtype).
 *   FP32_UNLESS_FP16: Megatron: the grad buffer has the parameters' dtype
 *     (fp16) unless --accumulate-allreduce-grads-in-fp32, which bf16 forces
 *     (megatron/arguments.py:151-160 at e1c334b076, buffer dtype
 *     megatron/model/distributed.py:117-119; Megatron-Core core_v0.13.0
 *     c550cf6c megatron/training/arguments.py:674-686 and training.py:1102,
 *     core/distributed/distributed_data_parallel.py:234); fp8 trains with
 *     --bf16 parameters, so fp32.
 *   PARAMS_UNLESS_BF16_ZERO0: DeepSpeed: the parameters' dtype, but bf16
 *     without ZeRO accumulates in fp32: get_data_types defaults
 *     grad_accum_dtype to fp32 for bf16 without ZeRO, else to the model's
 *     dtype, and fp32 accumulation under bf16 selects BF16_Optimizer with its
 *     fp32 gradient buffers (microsoft/DeepSpeed 38327e07
 *     deepspeed/runtime/engine.py:1010-1025, 1300-1349;
 *     runtime/bf16_optimizer.py:161-163).
 * fp32 and tf32 training keep fp32 gradients under every rule. */
typedef enum {
	PLAN_GRAD_FP32,
	PLAN_GRAD_PARAMS,
	PLAN_GRAD_FP32_UNLESS_FP16,
	PLAN_GRAD_PARAMS_UNLESS_BF16_ZERO0
} plan_grad_dtype;
bool plan_grad_fp32(int rule, hw_dtype precision, int zero);
const char *plan_grad_dtype_name(int rule); /* "fp32-unless-fp16", ... */
/* The dtype a framework reduces the gradient buckets in ([framework]
 * grad_wire_dtype), beside the dtype it keeps them in (fp32_grads); ZeRO-3's
 * reduce-scatters follow the same rule (plan_zero3_wire_bytes):
 *   GRADS: the buffer itself goes on the wire (Megatron's DDP buffer, also
 *     with --grad-reduce-in-bf16, which makes the buffer bf16: Megatron-LM
 *     d98e8a64 megatron/training/arguments.py:1213-1214 turns
 *     accumulate_allreduce_grads_in_fp32 off, and core/distributed/
 *     param_and_grad_buffer.py:924 sets grad_dtype = param.dtype;
 *     nanotron's fp32 accumulator, all-reduced or reduce-scattered as fp32:
 *     0e0a27ea src/nanotron/optim/gradient_accumulator.py:349-377).
 *   PARAMS: the training dtype (16 bits; fp8 trains with bf16 parameters):
 *     a wider buffer is cast to it before the collective and the result
 *     copied back after (DeepSpeed 38327e07 runtime/engine.py:2491-2513,
 *     allreduce_bucket: tensor.to(communication_data_type), all_reduce,
 *     tensor.copy_; communication_data_type defaults to the training dtype,
 *     :939-950; BF16_Optimizer's fp32 buffer, bf16_optimizer.py:161-163,
 *     is what buffered_allreduce_fallback reduces, engine.py:2611-2616). */
typedef enum { PLAN_WIRE_GRADS, PLAN_WIRE_PARAMS } plan_grad_wire;
/* Bytes per gradient value on the data-parallel wire of the ZeRO-0..2
 * buckets, g being the buffer's (plan_grad_bytes): 1 (fp8) or 1/8 (1 bit)
 * under grad_compression, else the wire dtype's (plan_grad_wire). */
double plan_grad_wire_bytes(const plan_scenario *s, double g);
/* HBM bytes per gradient value of the casts around the wire when it is
 * narrower than the buffer (plan_grad_wire PARAMS, no compression): the
 * cast to the wire dtype reads g and writes w, the copy back reads w and
 * writes g, 2 (g + w) (12 B for an fp32 buffer and a bf16 wire); else 0.
 * Memory-bound work on the DP stream around each bucket's collective. */
double plan_grad_cast_bytes(const plan_scenario *s);
/* The seconds of one of the two (the cast or the copy back, (g + w) B per
 * value each) for `values` gradient values at HBM bandwidth, 0 without. */
double plan_grad_cast_time(const plan_scenario *s, double values);
/* Adafactor's factored second moment per parameter of a layer's matrices
 * (fp32 row and column vectors: 4 (1/in + 1/out) B per [in, out] weight). */
double plan_adafactor_state_bytes(const plan_scenario *s);
/* Bytes per frozen linear weight under base_weights (w: the policy's). */
double plan_base_bytes(const plan_scenario *s, double w);
bool plan_base_quantized(const plan_scenario *s);
/* The loss's logit bytes per token and vocabulary entry on one rank at the
 * loss forward's peak, kept until its backward, at the backward's peak, and
 * held by the caller through the layers' backward (memory.c). */
void plan_loss_bytes(const plan_scenario *s, double *fwd, double *kept, double *bwd,
		     double *held);
/* The model code's saved tensors under the scenario (framework, compile,
 * policy). */
work_saved plan_saved(const plan_scenario *s);

/* The activation peak of `stage` under p's schedule, in units of act_c[c]
 * (what a forward of one micro-batch over chunk c keeps): the walk of
 * plan_schedule_order (a forward keeps, a backward, or with ZB-H1 its W,
 * frees; -1 when out of memory), and for equal chunks without ZB-H1 its
 * closed form (GPipe m; 1F1B pp - stage; interleaved (pp - stage - 1) * 2 +
 * (vpp - 1) * pp + 1, each at most m * vpp). */
double plan_peak_walk(const plan_spec *p, int stage, const double *act_c);
double plan_peak_closed(const plan_spec *p, int stage, double act);

/* Parameters whose optimizer step one rank of `stage` runs: its shard (over
 * dp*cp for dense weights, over the expert-data-parallel ranks for experts)
 * with ZeRO >= 1, else all it holds. */
double plan_local_params(const plan_scenario *s, int stage);
/* The optimizer step on the GPU (optim.c): bytes its kernels move per
 * trained parameter under the scenario's policy, optimizer and the
 * framework's optimizer_impl (the fp32 casts around it and the gradient
 * norm included), and the time of one rank of `stage` stepping `local`
 * parameters (plan_local_params; only the trained share under LoRA). */
/* Whether `stage` reduces its (first chunk's) gradients in one collective
 * after its backward rather than in buckets (the framework's
 * one_bucket_no_overlap without overlap_grad_reduce, first_stage_buckets on
 * later pipeline stages, zero_one_bucket under ZeRO; build_emit_grad_buckets;
 * under first_stage_buckets every later chunk is one bucket too). */
bool plan_one_bucket(const plan_scenario *s, int stage);

/* When a gradient bucket's reduction starts (plan_grad_buckets). */
typedef enum plan_bucket_launch {
	PLAN_LAUNCH_LAYER, /* when its lowest layer's last backward ends (overlap) */
	PLAN_LAUNCH_CHUNK, /* with its chunk's other buckets after backward step `step`
	                    * (Megatron-Core's aligned launch, interleaved) */
	PLAN_LAUNCH_END    /* after the stage's whole backward: nothing left to hide it */
} plan_bucket_launch;

/* One data-parallel gradient bucket of a stage, as plan_build reduces it. */
#define PLAN_BUCKET_CALLS 32
typedef struct plan_grad_bucket {
	int layer, last; /* its stage-local layers [layer, last]; -1 on a stage without layers */
	int chunk;       /* the model chunk holding them */
	double dense_bytes, expert_bytes; /* gradient bytes (the gradients' own width,
	                                   * before grad_compression): the dense part
	                                   * over the shard group, the experts over the
	                                   * expert-DP group */
	plan_bucket_launch launch;
	int step;        /* PLAN_LAUNCH_CHUNK: the backward step (0-based, in
	                  * plan_schedule_order) it follows; else -1 */
	bool at_end;     /* it starts only once the stage's last backward step is
	                  * done (its whole backward; the chunk launched after the
	                  * last step; the lowest layer's bucket): exposed but for
	                  * what the optimizer step and the other stages hide */
	int ncalls;      /* grad_bucket_calls = tensor: its dense bytes go in ncalls
	                  * collectives of calls[i] bytes, one per parameter tensor
	                  * (beyond PLAN_BUCKET_CALLS the rest join the last);
	                  * 0: one collective over dense_bytes */
	double calls[PLAN_BUCKET_CALLS];
} plan_grad_bucket;

/* The most gradient buckets any stage has (plan_grad_buckets): its layers
 * + 1 where buckets close at layers' ends, more where they close after any
 * tensor (grad_bucket_split = tensor). */
int plan_grad_bucket_cap(const plan_scenario *s);
/* The stage's gradient buckets in backward order (last layer first), the
 * ones plan_build emits (plan/buckets.c; `podsim explain` prints them): at
 * most cap written (plan_grad_bucket_cap holds them all); returns how
 * many, 0 for inference and ZeRO-3 (whose reductions are per layer), or
 * SIM_ENOMEM. Whether a group has more than one rank is not asked: a bucket
 * with a one-rank group is simply not sent. */
int plan_grad_buckets(const plan_scenario *s, int stage, plan_grad_bucket *out, int cap);
/* Bytes per gradient value as the graph accumulates and keeps them: 4
 * with fp32_grads or fp32/tf32 training (tf32 trains fp32 parameters whose
 * gradients are fp32; only its matmuls round), else 2. The ZeRO-0..2
 * buckets' wire may be narrower (plan_grad_wire_bytes); the tied-embedding
 * sync sends these bytes as they are (DeepSpeed's pipeline engine
 * all-reduces BF16_Optimizer's fp32 _hp_grad, 38327e07 runtime/pipe/
 * engine.py:287-291; Megatron all-reduces main_grad). */
double plan_grad_bytes(const plan_scenario *s);
/* The collective a gradient bucket is reduced with in its shard group:
 * reduce-scatter under ZeRO-1/2 unless the framework all-reduces them
 * (zero_grad_op), else all-reduce. */
net_coll plan_grad_coll(const plan_scenario *s);
/* One bucket's data-parallel time with the alpha-beta model (net_collective)
 * in groups g (plan_make_groups), as plan_build reduces it (grads.c): its
 * dense bytes on the wire (grad_compression) with plan_grad_coll in the
 * shard group, then all-reduced over the shard's replicas; its expert bytes
 * over the expert-DP group. A one-rank group sends nothing. */
double plan_grad_bucket_time(const plan_scenario *s, const plan_groups *g,
			     const plan_grad_bucket *k);
/* n collectives of bytes[i] x scale on group g issued in one NCCL
 * group (a bucket's calls under grad_bucket_calls = tensor, the norm
 * gradients' under sp_norm_sync = tensor) wait for their slowest node once
 * (net_sync_delay), not once per call: the seconds to add
 * to the sum of the calls' times (each timed alone with net_collective, its
 * own wait included), <= 0; 0 for one call or off EFA. */
double plan_call_group_wait(const net_cluster *c, const net_group *g,
			    const double *bytes, int n, double scale);
/* One call of such a group, x bytes, in order: the wait it gives back,
 * D(m) if an earlier call of the group moved bytes (*waited), else 0; sets
 * *waited once a call moves bytes. The rule plan_call_group_wait sums and
 * the graph applies per call (build_add_call_group). */
double plan_call_wait_back(const net_cluster *c, const net_group *g, double x, bool *waited);
/* Sequence parallelism's norm gradients. The norms' weights (and biases)
 * are replicated over the TP ranks, each of which saw only its shard of the
 * sequence, so their gradients are summed over TP after the backward, after
 * the data-parallel reduction and before the optimizer step: Megatron-Core's
 * finalize_model_grads all-reduces them flattened into one buffer
 * (core/distributed/finalize_model_grads.py:416-480, called at :661 after
 * finish_grad_sync, d98e8a64); nanotron ties every parameter not sharded
 * over TP across the TP group with a SUM (trainer.py:985-1023 under
 * tp_mode REDUCE_SCATTER) and sync_tied_weights_gradients calls
 * all_reduce_coalesced on them, one all-reduce per tensor in one NCCL group
 * (tied_parameters.py:119-165; trainer.py:522-526, after the fp32 DP
 * all-reduce, 0e0a27ea). The tensors: each of the stage's layers' norms
 * (work_layer_norms, with LayerNorm's biases), the last stage's final
 * norm, h values each at the gradients' width (plan_grad_bytes). Writes at
 * most cap calls' bytes (one call, or one per tensor: sp_norm_sync) to
 * calls and returns how many; 0 without sequence parallelism, with tp 1 or
 * for inference. */
#define PLAN_NORM_SYNC_MAX 1024
int plan_norm_sync_calls(const plan_scenario *s, int stage, double *calls, int cap);
/* Their time on stage `stage` in groups g (the alpha-beta model; a group of
 * calls waits for its slowest node once, plan_call_group_wait); 0 when
 * there are none. */
double plan_norm_sync_time(const plan_scenario *s, const plan_groups *g, int stage);
/* The tied word embedding's gradient all-reduce between the first and the
 * last stage with the alpha-beta model, in g's embed group (the graph's),
 * at value_bytes per value: V h / tp values; 0 when untied or pp = 1. */
double plan_embedding_sync_time(const plan_scenario *s, const plan_groups *g,
				double value_bytes);
double plan_optimizer_bytes(const plan_scenario *s);
double plan_optimizer_time(const plan_scenario *s, int stage, double local);
/* Of `local` parameters of `stage` (plan_local_params), those the optimizer
 * steps: all, or their trained share (the stage budget's train over what it
 * holds: LoRA's adapters, the layers above frozen_layers). */
double plan_optimizer_trained(const plan_scenario *s, int stage, double local);
/* The optimizer step's parts (optim.c): bytes per trained parameter of the
 * update kernels, of the gradient norm and of the mixed policy's casts; the
 * fraction of the GPU's copy rate (hbm_bw x hbm_efficiency) at which the
 * update and the norm kernels stream (the casts at the copy rate); and
 * what runs the update, in words (explain). */
typedef struct plan_optim_cost {
	double step_bytes, norm_bytes, cast_bytes;
	double clip_bytes;  /* clip_scope = replica: the norm and the rescale per
			     * parameter of the rank's whole gradient (norm_bytes
			     * then 0), at the copy rate */
	double stream;      /* the update's fraction of the copy rate, (0, 1] */
	double norm_stream; /* the norm's */
	const char *impl;  /* the update's kernels, for explain */
	const char *why;   /* where the stream fraction comes from */
} plan_optim_cost;
void plan_optimizer_cost(const plan_scenario *s, plan_optim_cost *c);
/* A tensor-by-tensor step's host time on `stage` (optimizer_impl = single,
 * Adam): layers x *tensors per layer x the passes' launches x (launch +
 * op_overhead), which plan_optimizer_time takes when longer than the
 * kernels (or, with optimizer_item_sync, adds to them tensor by tensor:
 * optim.c); 0 (and *tensors 0) for a multi-tensor step. */
double plan_optimizer_host_time(const plan_scenario *s, int stage, double *tensors);
/* Whether that step loops over the busiest rank's tensors of its FSDP1 flat
 * shard ([framework] params_in_shard under ZeRO >= 2 on more than one shard
 * rank, without flat_params or LoRA), not every tensor of a layer. */
bool plan_optimizer_in_shard(const plan_scenario *s);

/* The gradient bytes one rank of `stage` reduces over data parallelism, as
 * the sweep pre-screen's time model reads them (the pre-walk memory model's
 * figure times the shard group: unchanged by the memory model, so that step
 * times do not move with it; offloading moves the optimizer, not these
 * bytes: the gradients are reduced before they are copied out). ZeRO-1/2's
 * gather after the step: plan_zero_gather_bytes. */
double plan_dp_grad_bytes(const plan_scenario *s, int stage);

/* Host DRAM and NVMe bytes per node that offloading puts there for a node of
 * `stage`'s ranks: with the optimizer offloaded the states of every GPU's
 * trained parameters (plan_param_bytes' optimizer bytes: 12 per local
 * parameter under mixed-precision Adam; only LoRA's adapters under LoRA) and
 * their fp32 gradients (4) on the host, or the states on NVMe; with the
 * parameters offloaded their shards at the policy's bytes, a frozen base at
 * its own (a QLoRA base's 4-bit weights). With
 * offloading the HBM figures of plan_memory drop the optimizer states and the
 * gradients (reduced bucket by bucket and copied out; the buckets stay under
 * buffers), and with the parameters offloaded the weights, which only the
 * gathered layers of ZeRO-3 keep. */
void plan_offload_memory(const plan_scenario *s, int stage, double *host, double *nvme);

/* ------------------------------------------------------------ task graph -- */

typedef enum {
	PLAN_STREAM_COMPUTE = 0,
	PLAN_STREAM_TP,
	PLAN_STREAM_DP,
	PLAN_STREAM_PP_FWD, /* activations to the next stage */
	PLAN_STREAM_PP_BWD, /* gradients to the previous stage */
	PLAN_STREAM_CP,     /* ring-attention K/V transfers */
	PLAN_STREAM_EP,     /* expert all-to-all */
	PLAN_STREAM_OFFLOAD, /* host <-> GPU copies and the CPU optimizer step */
	PLAN_STREAM_COUNT
} plan_stream;

/* Task kinds; the exec module maps them to breakdown categories. */
typedef enum {
	PLAN_TASK_FWD = 0, /* forward compute */
	PLAN_TASK_BWD,     /* backward compute */
	PLAN_TASK_RECOMP,  /* recomputed forward */
	PLAN_TASK_WGRAD,   /* zero-bubble weight-gradient pass W */
	PLAN_TASK_OPTIM,   /* optimizer step (the last compute kind) */
	PLAN_TASK_TP,      /* TP collective */
	PLAN_TASK_DP,      /* DP gradient reduction */
	PLAN_TASK_PP,      /* pipeline p2p */
	PLAN_TASK_CP,      /* ring-attention K/V transfer */
	PLAN_TASK_EP,      /* expert-parallel all-to-all */
	PLAN_TASK_OFFLOAD, /* PCIe/NVMe copy or CPU optimizer step */
	PLAN_TASK_KIND_COUNT
} plan_task_kind;

typedef struct plan_task {
	sim_time dur;        /* duration on an idle resource */
	int32_t rank;        /* rank class (pipeline stage) */
	uint8_t stream;      /* plan_stream */
	uint8_t kind;        /* plan_task_kind */
	int16_t layer;       /* -1 if none; a pipeline transfer's receiving stage
	                      * where it is neither the next nor the previous
	                      * (ZBV's chunk 1: plan_task_pp_peer) */
	int32_t mb;          /* micro-batch, -1 if none */
	float scaleup_bytes; /* bytes on each rank's NVLink/NVSwitch (or PCIe P2P) port */
	float nic_bytes;     /* bytes through each NIC of the node (shared by its GPUs) */
	float uplink_bytes;  /* bytes on the busiest fabric uplink (net_cost.fabric_bytes) */
} plan_task;
/* A hot struct (one per task, ~10^5-10^6 per graph): uplink_bytes sits in
 * what was padding after nic_bytes. */
_Static_assert(sizeof(plan_task) == 32, "plan_task grew");

/* A pipeline transfer's receiving stage among `ranks` stages: its layer
 * field where set (ZBV), else the next stage for a forward send
 * (activations) and the previous for a backward one (gradients), wrapping
 * round (interleaved chunks: virtual stage v + 1 is stage (v + 1) % pp); -1
 * for any other task. */
static inline int plan_task_pp_peer(const plan_task *t, int ranks)
{
	if (t->kind != PLAN_TASK_PP || ranks < 2)
		return -1;
	if (t->layer >= 0)
		return t->layer;
	return t->stream == PLAN_STREAM_PP_FWD ? (t->rank + 1) % ranks
	                                       : (t->rank - 1 + ranks) % ranks;
}

/* What a rank class's offload tasks put on the offload tiers' links over the
 * step (the link report): [0] its GPU's PCIe link to host memory, [1] the
 * node's host memory (a CPU optimizer step), [2] the node's NVMe (all its
 * GPUs); bytes, the time those tasks ran, and the time at >= 95 % of the
 * link's capacity. */
enum { PLAN_OFF_HOST = 0, PLAN_OFF_DRAM, PLAN_OFF_NVME, PLAN_OFF_COUNT };
typedef struct plan_offload_load {
	double bytes[PLAN_OFF_COUNT], busy_s[PLAN_OFF_COUNT], sat_s[PLAN_OFF_COUNT];
} plan_offload_load;

/* A dependency: `to` may start only after `from` has ended. */
typedef struct plan_edge {
	uint32_t from, to;
} plan_edge;

/* One step of a pipeline schedule on one stage: forward or backward of a
 * micro-batch. */
typedef struct plan_op {
	bool backward;
	int mb;
	int chunk;   /* model chunk (0 unless interleaved) */
	bool weight; /* zero-bubble: the weight-gradient pass W of a backward */
} plan_op;

/* [cluster] network = flow: what the step's collectives put on each link class
 * (net_link_kind) of the flow model, for the run's link report (netflow.c).
 * Per class, over the rank class whose collectives load it most: bytes summed
 * over its collective tasks of each one's busiest link of the class, the time
 * those tasks ran, and the time that link was at >= 95 % of capacity. */
typedef struct plan_netlinks {
	bool on;
	char name[NET_LINK_KIND_COUNT][64]; /* e.g. "leaf0 -> spine1" */
	double bytes[NET_LINK_KIND_COUNT], busy_s[NET_LINK_KIND_COUNT];
	double sat_s[NET_LINK_KIND_COUNT];
} plan_netlinks;

typedef struct plan_graph {
	int ranks;             /* rank classes */
	int rank_gpus;         /* GPUs each rank class stands for */
	size_t ntasks, cap;
	plan_task *tasks;      /* in program order per stream */
	size_t nedges, ecap;
	plan_edge *edges;
	double hardware_flops; /* per step, all GPUs, recompute included */
	double model_flops;    /* per step, all GPUs */
	double tokens;         /* per step */
	double interference;   /* compute slowdown beside a collective (hw_gpu) */
	/* The EP stream's tasks are DeepEP's kernels (plan_ep_deepep), each
	 * taking ep_share of the SMs from the compute beside it (plan_ep_share),
	 * apart from NCCL's collectives' interference; false: they are NCCL's */
	bool ep_deep;
	double ep_share;
	/* With ep_deep, per compute task (plan_graph_set_deep; NULL while none
	 * is set): its rate beside DeepEP's kernels, its kernels' time alone
	 * over their time on the SMs those leave (a GEMM's waves on them,
	 * hw_gemm_time_held; other kernels at 1 - ep_share); 0 = not set, the
	 * replay takes 1 - ep_share. */
	float *deep_rate;
	/* Per task (plan_graph_set_quiet; NULL while none is set): 1 for a
	 * collective that takes no SMs from the compute beside it, which the
	 * replay then does not slow by the interference: tp_comm_overlap's
	 * userbuffer exchanges (copy engines, or SMs the GEMM beside them
	 * already left: plan_ub_kind) */
	uint8_t *quiet;
	/* Per task (plan_graph_set_scale; NULL while none is set): a collective's
	 * share of the SMs as a multiple of `interference` (which stands for
	 * NCCL's 16 channels on the GPU type: hw.h): its communicator's channels
	 * / 16 (plan_comm_scale), set on the DP stream's collectives and the
	 * chains' TP and EP ones; 1 for tasks none was set for (pipeline and CP
	 * ring transfers: NCCL's send/receive run on its p2p channels, whose
	 * count per peer is not modelled). */
	float *sm_scale;
	/* Per rank class, where classes run on different GPU types (exec's
	 * mixed-node replays set them on their copy of the graph; not owned, not
	 * freed by plan_graph_free): NULL = interference and ep_share for every
	 * class. */
	const double *rank_interference, *rank_ep_share;
	/* Per rank class, where classes share a fabric's leaf uplinks (an
	 * oversubscribed fabric, stages on consecutive nodes: plan_up_units):
	 * 2 ints, the first and last fabric unit (a leaf's nodes; a
	 * rail-optimized unit's) its nodes sit under. NULL: each class its own
	 * uplinks. exec's replay shares a unit's uplinks among the transfers of
	 * every class under it. */
	int *up_unit;
	/* Memory over the step, per rank class (for timeline views): the bytes
	 * held throughout (weights, gradients, states, buffers) and the
	 * activations one micro-batch's forward over one model chunk keeps until
	 * its backward (W with ZB-H1) ends. NULL when not filled. */
	double *mem_static, *mem_act_op;
	plan_netlinks net;     /* network = flow only (netflow.c) */
	plan_offload_load *offload; /* per rank class; NULL without offload tasks */
	/* On a cluster with a measured spread ([cluster] spread, EFA), per task
	 * (plan_graph_set_net; both NULL while no task varies): the share of its
	 * dur that the fabric's variability scales (build_comm_net_s: a call
	 * slowed r times takes dur (1 + net_frac (r - 1))), and the nodes its
	 * group spans, which pick the spread (net_spread_at). 0 for compute,
	 * copies and collectives inside a node. */
	float *net_frac;
	uint16_t *net_nodes;
	/* The clock's horizon (plan_graph_horizon): the saturating sum of every
	 * task's dur, and the longest task (the likely culprit when the sum
	 * passes SIM_TIME_HORIZON). */
	sim_time dur_total;
	uint32_t longest;
} plan_graph;

/* The compute-stream order of a schedule on `stage` of `p` with `m`
 * micro-batches and `vpp` model chunks per stage: GPipe runs every forward then
 * every backward; 1F1B runs min(p-1-stage, m) warm-up forwards, then alternates
 * one forward and one backward, then drains the remaining backwards (Narayanan
 * et al. 2021). With vpp > 1 (interleaved 1F1B) the unit is a micro-batch on
 * one chunk, the micro-batches in groups of `group` (N, plan_vp_group): forward
 * step k runs chunk (k / N) % vpp of micro-batch (k / (N * vpp)) * N + k % N
 * (the last group, of the r micro-batches left, the same with r for N),
 * backward steps visit the chunks in reverse, and the warm-up is
 * (p - stage - 1) * 2 + (vpp - 1) * N steps (Megatron-LM's schedule; N = p
 * before Megatron-Core's micro-batch groups). ZB-H1 is 1F1B with each backward B followed by its
 * W. `extra` more warm-up forwards (plan_warm_extra: Megatron-Core's combined
 * 1F1B adds one). `out` holds plan_schedule_steps() entries. */
void plan_schedule_order(plan_schedule sched, int p, int m, int vpp, int group, int extra,
			 int stage, plan_op *out);
/* The extra warm-up forwards of p's schedule: 1 with moe_a2a_overlap
 * (Megatron-Core schedules.py get_pp_rank_microbatches: "we schedule one
 * extra micro-batch forward step before the 1f1b stages"), else 0. */
int plan_warm_extra(const plan_spec *p);
/* 1F1B's warm-up forwards on `stage` (the first ops of plan_schedule_order,
 * at most m * vpp); the steady steps' forwards follow at even offsets.
 * Interleaved, (p - stage - 1) * 2 + (vpp - 1) * group; interleaved under
 * ZB-H1 (torch pipelining's ScheduleInterleavedZeroBubble), one step a stage
 * instead of two. */
int plan_schedule_warm(plan_schedule sched, int p, int m, int vpp, int group, int extra,
                       int stage);
/* Steps of a schedule: 2*m*vpp, 3*m*vpp with the zero-bubble W passes. */
int plan_schedule_steps(plan_schedule sched, int m, int vpp);
/* The first min(cap, steps) ops of that order (the memory walk's prefix);
 * returns how many it wrote. */
int plan_schedule_head(plan_schedule sched, int p, int m, int vpp, int group, int extra,
		       int stage, int cap, plan_op *out);
/* The micro-batches per group of the interleaved schedule, `group` above:
 * Megatron-Core's microbatch_group_size_per_vp_stage (schedules.py
 * get_schedule_table at d98e8a64, since 4295be1a6c of 2024-11-01): the
 * micro-batches run in groups of N contiguous ones, each group through
 * chunk 0, then chunk 1, ..., the last group taking the rest; the warm-up is
 * (p - stage - 1) * 2 + (vpp - 1) * N. N = pp (the default, and the schedule
 * before that commit, which needed m a multiple of pp); [parallel]
 * vp_group sets it, and left at 0 on a framework that runs the groups
 * ([framework] runs_vp_group) with m no multiple of pp it is the smallest
 * N Megatron-Core accepts: pp <= N <= m with m % N = 0 or m % N >= pp
 * (schedules.py:1160-1180: a shorter last group would stall the pipeline).
 * torch pipelining's ScheduleInterleaved1F1B (vp_rule PLAN_VP_TORCH) runs
 * the same table in rounds it picks itself: r = max(1, m // pp) rounds of
 * N = m / r, m a multiple of r, so N = m < pp where m < pp (torch 2.14.1
 * distributed/pipelining/schedules.py:3149-3263: the warm-up
 * _get_warmup_ops, (vpp - 1) N + 2 (pp - 1 - stage) capped at m vpp, the
 * chunk of forward step k (k / N) % vpp, the backwards' in reverse, each
 * chunk's micro-batches in order: Megatron's table with that N).
 * pp where vpp = 1. */
int plan_vp_group(const plan_spec *p);

/* Time of one work item's kernel on gpu in dtype t (GEMMs with their batch,
 * attention on the bf16 path under fp8, memory-bound kernels), launch
 * included (once per kernel an item stands for, work_item.launches); and the
 * net collective a work item's communication is. Shared by plan_build and the
 * sweep pre-screen. */
double plan_kernel_time(const hw_gpu *gpu, hw_dtype t, const work_item *it);
/* What a fused attention item's kernel does (hw_flash_work): the FLOPs and
 * exponentials it executes, the causal half of the item's papers' count, the
 * backward's FLOPs 2.5x the forward's. */
hw_flash_work plan_attn_work(const work_item *it);
/* The framework's host cost per launch of item `it`: [framework]
 * op_overhead (gpu->framework_s), 0 for a native item (work_item.native).
 * An item's host time is launches x (launch_s + this); its GPU time
 * plan_kernel_time less launches x this. */
double plan_item_framework_s(const hw_gpu *gpu, const work_item *it);
/* Item `it` as a compute task of its own (chain.c append_kernel's split):
 * its GPU time (*gpu), its host time (*host: launches and framework ops)
 * and the task's time, max(GPU, host). The gradient accumulation task's,
 * for plan_microbatch_cost and the sweep pre-screen. */
double plan_item_task_s(const hw_gpu *gpu, hw_dtype t, const work_item *it, double *g,
                        double *host);
/* The GEMM a TP collective it[i] of a layer program runs beside: +1 the GEMM
 * after it (an all-gather under tp_comm_overlap, or a collective the framework
 * issues beside it, work_item.beside), -1 the GEMM before it (a reduce-scatter
 * under tp_comm_overlap), 0 none: plan_build's overlapped pairs (cost.c
 * derives their time), which the sweep's pre-screen times alike. */
int plan_tp_overlap(const plan_scenario *s, const work_item *it, int n, int i);
/* Does collective i run beside the GEMM after it unchunked (work_item.beside,
 * Megatron's async input-gradient collective: [framework] tp_dgrad_async, or
 * tp_comm_overlap's bulk reduce-scatter beside the wgrad), max(g, c), rather
 * than as a chunked tp_comm_overlap pair? */
bool plan_tp_beside(const plan_scenario *s, const work_item *it, int n, int i);
/* The tp_comm_overlap pair a TP collective is in, as Transformer Engine's
 * userbuffers run it (cost.c): none, a ring exchange (an all-gather before
 * a GEMM, copy engines), a pipeline (a forward reduce-scatter after its GEMM,
 * 16 SMs and 4 chunks) or bulk (the backward's input-gradient reduce-scatter
 * beside the wgrad, 16 SMs). */
typedef enum { PLAN_UB_NONE = 0, PLAN_UB_RING, PLAN_UB_PIPELINE, PLAN_UB_BULK } plan_ub;
plan_ub plan_ub_kind(const plan_scenario *s, const work_item *it, int n, int i);
/* SMs a userbuffer overlap's kernels take from GEMM it[j] for its whole run
 * (a pipeline's GEMM, a bulk pair's wgrad: TE's set_sm_margin), else 0. */
int plan_ub_held(const plan_scenario *s, const work_item *it, int n, int j);
/* GEMM it[j]'s time as plan_kernel_time, on the SMs plan_ub_held leaves. */
double plan_ub_gemm_time(const plan_scenario *s, hw_dtype t, const work_item *it, int n, int j);
/* What collective it[i] of a chunked pair is lengthened by, given its GEMM's
 * GPU time g: one of the ring exchange's tp chunks, one of the pipeline's 4;
 * 0 for any other collective. */
double plan_ub_chunk(const plan_scenario *s, const work_item *it, int n, int i, double g);
net_coll plan_comm_coll(work_comm c);

/* Bytes one rank sends to the next (or previous) stage per micro-batch: the
 * stage-boundary activation (or its gradient) of b*s*h elements, work_p2p_bytes.
 * With sequence parallelism each TP rank holds s/t of it already. Without SP
 * the t ranks of a TP group hold the same full tensor; with
 * p2p_scatter_gather (Megatron-LM's scatter_gather_tensors_in_pipeline, on
 * by default without SP; DeepSpeed's pipe partitioning for tp > 1) each sends
 * its 1/t slice (b*s*h*e/t bytes) and the receiving TP group all-gathers the
 * full b*s*h*e bytes before the first layer (forward) or the last layer's
 * backward. *gather gets those all-gather bytes, 0 when there is none (tp 1,
 * SP on, or scatter-gather off, when each rank sends the whole b*s*h*e).
 * The key defaults to false (the default profile, Megatron-Core, sends whole
 * tensors with SP off); the profiles of the frameworks that scatter turn it
 * on: megatron-lm.ini, and megatron-deepspeed.ini (DeepSpeed's
 * pipe_partitioned / grad_partitioned, on by default; the vTrain multi-node
 * rows 9.1 -> 7.6 % MAPE, +1.1 -> -0.9 % signed, their tp 8 rows +6.1 ->
 * +3.0 %). DeepSpeed also all-gathers its own sent output once more before
 * that micro-batch's backward (pipe/engine.py:826-834, its data freed after
 * the send): an intra-node all-gather per micro-batch, not modelled. */
double plan_p2p_bytes(const plan_scenario *s, double *gather);
/* The bytes of the pipeline transfer `stage` sends (forward to stage + 1,
 * backward to stage - 1): plan_p2p_bytes, but where nanotron's cost balancing
 * puts the lm_head before the last stage (plan_layout_tail) the transfer
 * out of the lm_head's stage carries its 16-bit logits, b s V/t x e, and the
 * one out of the fp32 cast's (before the loss's) the fp32 logits, 4 b s V/t
 * (and the gradients of each back). */
double plan_p2p_stage_bytes(const plan_scenario *s, int stage, bool backward, double *gather);
/* The framework's cost of one pipeline transfer beyond its data message
 * ([framework] p2p_handshakes, p2p_host_ops, p2p_fwd_tensors; cost.c):
 * metadata messages, host synchronisations and extra tensors, on the
 * pipeline group `pp`. 0 for the default profile. */
#define PLAN_P2P_META_BYTES 64.0
double plan_p2p_overhead(const plan_scenario *s, const net_group *pp, bool backward);
/* Whether pipeline transfers are synchronous under p (see plan_p2p). */
bool plan_p2p_sync(const plan_spec *p);

/* Whether the MoE dispatcher's kernels are DeepEP's (moe_dispatcher = fused
 * on an MoE model with ep > 1), and the share of the GPU's SMs the EP
 * stream's kernels take from the compute beside them: DeepEP's, hw_sm_share
 * of [parallel] moe_deepep_num_sms,
 * whose default is Megatron-Core's moe_deepep_num_sms = 20
 * (megatron/core/transformer/transformer_config.py:193 at core_v0.14.0
 * 23e00ed096, handed to DeepEP's Buffer.set_num_sms by the flex
 * dispatcher, transformer/moe/token_dispatcher.py:968, fused_a2a.py:257-259;
 * DeepEP's own default Buffer.num_sms = 20, deep_ep/buffer.py:30 at
 * deepseek-ai/DeepEP e02e4d2); Megatron-Bridge's DeepSeek-V3 recipes leave
 * it (NVIDIA-NeMo/Megatron-Bridge 9a5e7986 sets no moe_deepep_num_sms);
 * otherwise NCCL's `interference` (the alltoall dispatcher's collectives)
 * times the EP group's channels over 16 (plan_comm_scale).
 * In the replay a compute task beside both kinds of kernel loses both shares
 * (their SMs add up), at most 0.9 (exec/replay.c). */
bool plan_ep_deepep(const plan_scenario *s);
double plan_ep_share(const plan_scenario *s);

/* [framework] grad_accum = kernel or autograd: the task that accumulates one
 * micro-batch's gradients of `stage`'s chunk `chunk` (-1: all its chunks), a
 * memory-bound item per local parameter, one launch per parameter tensor
 * (chain.c, append_grad_accum): kernel reads the 16-bit gradient and reads
 * and writes the accumulator (4 + 4 bytes with fp32_grads); autograd adds in
 * the gradient's dtype, (m - 1) / m of 3 x its bytes, or with fp32_grads
 * over 16-bit parameters casts and adds, 2 + 16 bytes and two launches
 * (plan_grad_accum). False when the framework accumulates inside the GEMMs
 * (the default), and for autograd under ZeRO-2/3 or with one micro-batch of
 * 16-bit gradients. */
bool plan_grad_accum_item(const plan_scenario *s, int stage, int chunk, work_item *out);

/* DeepSpeed ZeRO-3's gradient buckets ([framework] zero3_reduce = bucket) on
 * `stage` per micro-batch, as plan_build emits them (emit.c ipg_add): the
 * reduce-scatters, the largest bucket's and the last bucket's bytes (the
 * last reduced after the backward) and the host time of the per-rank
 * slicing of all of them (zero3_rank_op x shard ranks x tensors, before the
 * host's lead hides any). 0 and zeros in other modes. */
int plan_zero3_buckets(const plan_scenario *s, int stage, double *max_bytes,
		       double *last_bytes, double *host_s);
/* ZeRO-3's host time per shard rank, on the issuing thread: per gradient
 * tensor of a bucket's reduction (zero3_rank_op) and per gathered tensor of
 * a gather (zero3_gather_rank_op), each with a kernel launch when the
 * collectives copy per rank (zero3_rank_copies). Times the shard group's size
 * they give the host time per tensor. */
double plan_zero3_reduce_rank_s(const plan_scenario *s);
double plan_zero3_gather_rank_s(const plan_scenario *s);
/* The host time of global layer g's ZeRO-3 gathers in one pass: its unit's
 * gathered tensors (plan_zero3_layer's nonzero gathers) x shard ranks, and
 * under ep > 1 the routed experts' unit x expert-DP ranks, each x
 * plan_zero3_gather_rank_s; 0 without ZeRO-3 across DP ranks. */
double plan_zero3_gather_host_s(const plan_scenario *s, int g);
/* ZeRO-1/2's gather of `stage`'s updated parameters after the optimizer step
 * (frozen layers' and a LoRA base's are not updated), in 16 bits: *dense
 * over the shard group and *experts, the routed experts, over the
 * expert-DP group of `edp` ranks, as the optimizer shards them (Megatron-
 * Core's expert buffers live on the expert-DP group: core/distributed/
 * distributed_data_parallel.py:285-290 at d98e8a64); with edp <= 1 all of
 * them in *dense. grads.c issues them, the sweep's pre-screen times them. */
void plan_zero_gather_bytes(const plan_scenario *s, int stage, int edp, double *dense,
                            double *experts);
/* ZeRO-1/2's parameter all-gather as a framework with per-rank loops runs it
 * ([framework] zero_gather_rank_op: nanotron), for `stage`: the host's loops
 * (*host: a task on the offload stream from the end of the stage's
 * backward) and the GPU's copies (*gpu: on the compute stream after them and
 * the gather; grads.c); returns max(host, GPU), what they take on their
 * own; 0 where the key is 0, the plan has no ZeRO-1/2 gather, or one rank
 * holds everything. Any out-pointer may be NULL; tensors gets the stage's
 * parameter tensors, ranks the shard group's size (0 without the loops). */
double plan_zero_gather_host(const plan_scenario *s, int stage, double *host, double *gpu,
			     int *tensors, int *ranks);
/* The framework's own per-tensor loops around the optimizer step
 * ([framework] step_tensor_ops, step_tensor_op: nanotron's clipping and
 * master copy), for `stage`: the host's time, tensors x ops x (op + launch)
 * (grads.c: a host task from the end of the stage's backward that the
 * step's kernels wait for, and the ZeRO gather's loops after it); 0 where
 * the keys are 0. tensors (may be NULL) gets the stage's parameter tensors. */
double plan_step_loops(const plan_scenario *s, int stage, int *tensors);
/* The same buckets' bytes in the order they are reduced and, if tensors is
 * not NULL, the parameter tensors each holds (at most cap written; the
 * count returned, as plan_zero3_buckets); *mid (may be NULL) gets how many
 * of the first are reduced while layers' backwards still follow them, the
 * rest after the backward (closed by the root unit's gradients, or the
 * last). */
int plan_zero3_bucket_list(const plan_scenario *s, int stage, double *bytes, double *tensors,
			   int cap, int *mid);
/* How many reduce-scatters a bucket of `tensors` parameter tensors is
 * reduced with ([framework] zero3_reduce_calls): 1 (one call over the
 * bucket: reduce_scatter_coalesced, DeepSpeed from 2022-01), or one per
 * tensor (tensor: _reduce_scatter_gradients' loop, one reduce_scatter per
 * parameter, microsoft/DeepSpeed 112ebff6e deepspeed/runtime/zero/
 * partition_parameters.py:731-748), each 1/k of the bytes (the tensors'
 * sizes are not tracked: the bytes sum the same, the k calls each pay the
 * collective's latency). */
int plan_zero3_reduce_calls(const plan_scenario *s, double tensors);

/* ZeRO-3's pieces of one layer (a dense layer, work_params_layer, as plan_build's
 * units), per [framework] zero3_modules: returns n (1 to PLAN_ZERO3_MAX_PIECES)
 * and, in forward order, gather[i] the share of the layer's parameters its i-th
 * all-gather fetches and grad[i] the share of its gradient arriving as the i-th
 * tensor (the grad shares sum to 1). even: 1/zero3_gathers each. hf and
 * megatron: each linear module's weight (work_layer_linears); DeepSpeed keeps
 * a parameter of at most stage3_param_persistence_threshold = 1e5 elements
 * gathered on every rank (zero/config.py:214, parameter_offload.py:256-267 at
 * microsoft/DeepSpeed 38327e07): the norms and biases are never gathered, nor
 * a module whose weight per rank is that small (gather 0); their gradients
 * join the first module's (reduced last in the backward). */
#define PLAN_ZERO3_MAX_PIECES 64
int plan_zero3_pieces(const plan_scenario *s, double *gather, double *grad);
/* ZeRO-3's unit of global layer g as plan_build gathers and reduces it:
 * *unit the parameters per rank that the shard group gathers (before each
 * forward and backward) and reduce-scatters, in the pieces gather[] and
 * grad[] (returns n, as plan_zero3_pieces), and *sep the routed experts per
 * rank that the expert-data-parallel group gathers and reduce-scatters on
 * their own (0 for a dense layer and under ep = 1). A dense layer:
 * work_params_layer / tp, plan_zero3_pieces. An MoE layer: its routed
 * experts are the rank's E / ep (work_params_layer_experts / ep), the rest
 * its TP rank's (plan_rank_layer: attention, norms, router, shared experts).
 *   ep = 1: the experts belong to the layer's unit. FSDP wraps the decoder
 *     layer, MoE block included, as one unit (an HF Mixtral under accelerate's
 *     transformer_auto_wrap_policy); DeepSpeed ZeRO-3 refuses its own MoE
 *     layers (engine.py:1675 at 38327e07), so an HF MoE model's experts are
 *     ordinary parameters, and the MoE block flagged a z3 leaf module
 *     (utils/z3_leaf_module.py:43-44; its parameters fetched with the module,
 *     runtime/zero/parameter_offload.py:276-288; without it experts that
 *     receive no token never fetch) is gathered in one fetch: under the
 *     module splits (hf, megatron) the attention's linears at their sizes,
 *     then the MoE block (router, shared and routed experts) as one piece.
 *   ep > 1: the experts are their own unit over the expert-DP group:
 *     torchtitan fully_shards transformer_block.moe.experts on the EP mesh's
 *     edp dimension before the block (torchtitan/models/llama4/
 *     parallelize.py:413-446 at 1f029641b; under ep = 1 on the block's mesh,
 *     which this model joins to the unit); Megatron-FSDP groups expert
 *     parameters apart (is_expert_param, keyed with the unit) over the
 *     expert data-parallel group (core/distributed/custom_fsdp/
 *     param_and_grad_buffer.py:114-115, 970-981, 1055 at c550cf6c). */
int plan_zero3_layer(const plan_scenario *s, int g, double *unit, double *sep, double *gather,
		     double *grad);

/* [framework] fsdp_reduce_passes: HBM bytes moved per element of a unit's
 * unsharded gradient before its reduce-scatter, per micro-batch, under ZeRO-3
 * with more than one data-parallel rank (0 otherwise), and in *kernels (if
 * not NULL) the kernels that move them; the derivation is at the definition
 * (framework.c). plan_build runs them as one memory-bound task
 * on the DP stream (FSDP's post-backward stream) that the reduce-scatter
 * waits for; the sweep pre-screen charges the same time. */
double plan_fsdp_reduce_bytes(const plan_scenario *s, int *kernels);
/* Their time for a unit of `params` parameters per rank: one memory-bound
 * pass of params x plan_fsdp_reduce_bytes at the GPU's achievable HBM rate,
 * plus the launches of its kernels (0 when there are none). */
double plan_fsdp_reduce_s(const plan_scenario *s, double params);
/* The same framework's assembly of the unit's unsharded gradient from its
 * parameters' (autograd's SplitBackward of FSDP1's flat-parameter views), on
 * the compute stream after the unit's backward, per micro-batch: 2e bytes per
 * element under fsdp_reduce_passes other than none (0 otherwise), and its
 * time for `params` parameters per rank (one kernel). */
double plan_fsdp_flat_grad_bytes(const plan_scenario *s);
double plan_fsdp_flat_grad_s(const plan_scenario *s, double params);

/* [framework] fsdp_casts, under ZeRO-3 with more than one data-parallel rank
 * in training (0 otherwise), HBM bytes per element of a unit's *shard*
 * (derived at the definition, framework.c): before each all-gather, the
 * cast of the fp32 shard to the 16-bit parameter dtype (mixed policy with
 * param_master, a 16-bit dtype: 4 + 2), on FSDP's pre-unshard stream, which
 * the all-gather waits for; after each reduce-scatter, on the post-backward
 * stream, the reduced shard's cast back to the fp32 parameter where the
 * reduce dtype is narrower (fp32_grads false: 2 + 4) and, for a micro-batch
 * after the step's first (`later`), its addition into the saved shard
 * (4 + 4 + 4). plan_build runs each as one memory-bound task on the DP
 * stream; the _s forms give their time for `params` shard elements (one
 * kernel each, 0 when none). */
/* ZeRO++ qwZ ([parallel] zero_quantized_weights; DeepSpeed 0.16.5,
 * microsoft/DeepSpeed 38327e07, deepspeed/runtime/zero/): each coalesced
 * gather quantises the rank's shard to int8 with CUDAQuantizer
 * (partition_parameters.py:769-807: symmetric, one fp32 scale per group,
 * groups of at most target_group_size = 8,000 elements, in practice just
 * under it), all-gathers the int8 values and then, in a second call, the
 * scales (:1370-1371), and AllGatherCoalescedHandle.wait dequantises the
 * whole gathered tensor (:683-686), on the all-gather stream
 * (partitioned_param_coordinator.py:327-334); the compute stream waits
 * for that stream (:342-343). Both kernels read one width and write the
 * other: (w + 1 + 4/8000) bytes per element, w the gather width
 * (plan_zero3_gather_width). plan_zeropp_wire is the bytes per gathered
 * element on the first call's wire (1 under qwZ, else w),
 * plan_zeropp_scale_bytes the second call's bytes for `elements` (0
 * without qwZ), plan_zeropp_quant_s one kernel's time over `elements`. */
#define PLAN_QW_GROUP 8000.0
/* ZeRO++ qgZ ([parallel] zero_quantized_gradients; 38327e07): where the
 * data-parallel group spans more than one node, DeepSpeed's
 * __avg_scatter_grads (runtime/zero/stage3.py:1372-1398) replaces a
 * bucket's reduce-scatter by all_to_all_quant_reduce
 * (runtime/comm/coalesced_collectives.py:29-76), tensor by tensor: a 1-D
 * tensor (a norm, a bias) is reduce-scattered on its own; a 2-D one of e
 * elements is quantised to int4 in groups (swizzle_quant, one fp32 scale
 * a group, max(rows, cols, world) groups), exchanged all-to-all inside the
 * node (values, then scales: two calls over the node's l ranks),
 * dequantised, summed over the node and requantised to int4 (quantized_
 * reduction: reads e/2 bytes, writes e/(2l)), exchanged all-to-all across
 * the N nodes (two calls over one rank a node), dequantised to fp16
 * (csrc/quantization/pt_binding.cpp:107-127, 390) and its N chunks summed
 * in Python and divided (N - 1 adds of 6 B an element, read two and write
 * one fp16, and a division of 4 B, over e/(lN) elements each).
 * plan_qgz_kernels_s gives the three kernels' times for e elements of w
 * bytes (the wire dtype), l ranks a node and N nodes: quantisation
 * e (w + 1/2), reduction e/2 (1 + 1/l), dequantisation and sums
 * e/l (1/2 + 2) + e/(lN) (6 (N - 1) + 4); plan_qgz_scale_bytes the scales of the
 * first exchange (4 B x max(sqrt(e), world): the larger side of a
 * square-ish matrix). */
void plan_qgz_kernels_s(const plan_scenario *s, double e, int l, int nodes, double out[3]);
double plan_qgz_scale_bytes(double e, int world);
/* The 2-D and 1-D gradient tensors qgZ sees of global layer g (*mats:
 * the Hugging Face code's linear weights, work_layer_linears, or an MoE
 * layer's matrices; *vecs: its norms and biases) and of the ends of
 * `stage` (embedding, learned positions, an untied output layer; the final
 * norm), those trained. */
void plan_qgz_layer_tensors(const plan_scenario *s, int g, double *mats, double *vecs);
void plan_qgz_end_tensors(const plan_scenario *s, int stage, double *mats, double *vecs);
/* The same for a bucket of `tensors` of plan_zero3_bucket_list's count
 * (plan_zero3_layer's pieces standing for a layer's weights): its share
 * of 2-D and 1-D tensors as layer g's (the pre-screen's reading). */
void plan_qgz_bucket_tensors(const plan_scenario *s, int g, double tensors, double *mats,
			     double *vecs);
/* The share of a layer's 2-D gradient tensors that qgZ quantises: those
 * whose elements 2 x world divides; DeepSpeed reduce-scatters the others
 * on their own, as a 1-D tensor, with a warning ("qgZ falls back to
 * reduce_scatter", coalesced_collectives.py:43-50 at microsoft/DeepSpeed
 * 38327e07: its two-stage all-to-all cuts the tensor into 2 x world
 * pieces). Over the Hugging Face code's linear weights (work_layer_linears;
 * the world is dp: qgZ runs without tp, pp or cp), the ends' and an MoE
 * layer's matrices taken at the same share: 1 on a power-of-two world,
 * 0 for Llama's 4096-wide matrices on 3 nodes of 8 (2 x 24 = 48 leaves a
 * factor 3 over). */
double plan_qgz_quant_share(const plan_scenario *s);
/* A qgZ bucket of `bytes` gradient (gbytes an element) holding `mats` 2-D
 * and `vecs` 1-D tensors, as emit.c qgz_bucket reduces it: *nv 1-D tensors
 * of *vec bytes each (a hidden size's; none when they would take half the
 * bucket: then all go as 2-D) reduce-scattered, and *nm >= 1 2-D tensors
 * of *mat bytes each, *nq of them through qgZ's all-to-alls
 * (plan_qgz_quant_share), the rest reduce-scattered. */
void plan_qgz_split(const plan_scenario *s, double bytes, double mats, double vecs, double gbytes,
		    int *nm, int *nq, int *nv, double *vec, double *mat);
/* DeepSpeed's ZeRO-3 gathers a module's parameters (or a prefetch's,
 * every parameter the bucket holds) with one coalesced all-gather into a
 * flat buffer, and the handle's wait, on the all-gather stream, copies each
 * parameter out of it with torch.cat (AllGatherCoalescedHandle.wait,
 * partition_parameters.py:1164-1188, 696-707; the stream:
 * partitioned_param_coordinator.py:324-333, at microsoft/DeepSpeed
 * 38327e07; under qwZ out of the dequantised flat copy, :683-692); 2021's
 * releases gathered into a list of per-rank views that ProcessGroupNCCL
 * copied the flat result into (deepspeed-2021.ini): either way every
 * gathered element is read and written once at the gather's width, after
 * the gather on the DP stream: the time of `elements` (0 unless
 * [framework] zero3_gather_copy). A module of one parameter fetched on
 * demand gathers in place (:1245-1291); in steady state the prefetch
 * fetches nearly all, coalesced: not told apart. */
double plan_zero3_gather_copy_s(const plan_scenario *s, double elements);
double plan_zeropp_wire(const plan_scenario *s);
double plan_zeropp_scale_bytes(const plan_scenario *s, double elements);
double plan_zeropp_quant_s(const plan_scenario *s, double elements);
double plan_fsdp_gather_cast_bytes(const plan_scenario *s);
double plan_fsdp_post_reduce_bytes(const plan_scenario *s, bool later);
double plan_fsdp_gather_cast_s(const plan_scenario *s, double params);
double plan_fsdp_post_reduce_s(const plan_scenario *s, double params, bool later);

/* ZeRO-3's gradient wire ([framework] grad_wire_dtype, as the ZeRO-0..2
 * buckets'): the bytes per value of a unit's (or IPG bucket's)
 * reduce-scatter and of the shard's all-reduce over its replicas under
 * hybrid sharding, plan_grad_wire_bytes of plan_grad_bytes: under
 * `params` the training dtype (DeepSpeed ZeRO-3 reduces param.grad in
 * communication_data_type, the model's dtype unless configured, whatever
 * the partition accumulates in), under `grads` the reduce dtype the
 * framework keeps (fp32_grads: FSDP's MixedPrecision reduce_dtype,
 * Megatron-FSDP's main_grad). The derivation is at the definition
 * (framework.c). ZeRO-3 refuses grad_compression (plan_check). */
double plan_zero3_wire_bytes(const plan_scenario *s);
/* Bytes of a weight element on ZeRO-3's all-gather wire as the step's
 * graph times it: 4 in fp32 and tf32, 2 otherwise (framework.c). */
double plan_zero3_gather_width(const plan_scenario *s);
/* HBM bytes of the casts around that wire, under ZeRO-3 with more than one
 * data-parallel rank in training (0 otherwise): before the reduce-scatter
 * (after = false) per element of the unsharded gradient, reading the dtype
 * autograd produced it in and writing the wire's, where they differ and
 * no fsdp_reduce_passes pass counts FSDP1's own cast; after it (after =
 * true) per element of the reduced shard, reading the wire's and writing
 * the kept gradient's, where they differ and fsdp_casts does not count
 * FSDP's own cast back. plan_build runs each as one memory-bound task on
 * the DP stream around the collective; the sweep pre-screen and explain
 * charge the same; plan_zero3_cast_s gives their time for `elements`. */
double plan_zero3_cast_bytes(const plan_scenario *s, bool after);
double plan_zero3_cast_s(const plan_scenario *s, double elements, bool after);

/* What one micro-batch costs a stage beyond its tokens (issue 23): the
 * stage's chains of one micro-batch as plan_build makes them (alpha-beta
 * collectives), summed. Compute tasks: kernels launched, their GPU time,
 * the host time to issue them (launch + op_overhead each, and one operation
 * per collective with comm_host_op), and their time max(GPU, host) per run of
 * kernels between two collectives; host_exposed = compute - GPU, the host
 * time the GPU waits for at this micro-batch size (it grows as micro-batches
 * shrink). Collectives (TP, EP; CP's ring overlaps attention): their count,
 * time and latency (each one's time at one byte). accum: the gradient
 * accumulation task (plan_grad_accum_item), max(GPU, host). p2p_fixed: the
 * framework's overhead of one forward and one backward pipeline transfer
 * (plan_p2p_overhead; pp > 1); p2p_latency: those two transfers' own time
 * at one byte (their latency, and across nodes of a calibrated fabric the
 * per-call wait). fixed = latency + accum + p2p_fixed + p2p_latency +
 * host_exposed: what the micro-batch pays whatever its tokens (podsim
 * explain prints it). */
typedef struct plan_mb_cost {
	int kernels, collectives;
	int beside;                   /* collectives run beside a GEMM (async input
				       * gradient, tp_comm_overlap, async linears) */
	double beside_s;              /* their time */
	double gpu_s, host_s, compute_s, host_exposed_s;
	double coll_s, coll_latency_s;
	double accum_s, p2p_fixed_s, p2p_latency_s;
	double fixed_s;
} plan_mb_cost;
int plan_microbatch_cost(const plan_scenario *s, int stage, plan_mb_cost *out);

/* Context parallelism's K/V exchange of one layer (the stage-0 chain's
 * first; cost.c), as work/layer.c attn_ring lays it out and each item alone
 * times it (alpha-beta on the CP group, the fused kernel's time): per pass
 * (0 forward, 1 backward) the transfers (ring steps, or the all-gather and
 * the K/V gradients' ring under [framework] cp_comm = all-gather), their
 * time, the attention steps each runs beside (the attention item after it)
 * and the sum of max(x - a, i min(x, a)) for transfer x beside step a (the
 * step slowed by the GPU's interference while it runs, as the replay
 * charges it, or the transfer's excess). block_bytes: a rank's K and V of
 * its s / cp tokens. Under cp_comm = all-to-all (Ulysses, attn_ulysses)
 * the all-to-alls instead, each blocking: a2a, a2a_s per pass, all exposed
 * (block_bytes 0).
 * SIM_EINVAL without cp > 1. podsim explain prints it. */
typedef struct plan_cp_cost {
	int cp;
	bool allgather, alltoall;
	double block_bytes;
	int xfers[2], gathers[2], a2a[2];
	double xfer_s[2], gather_s[2], beside_s[2], exposed_s[2], a2a_s[2];
} plan_cp_cost;
int plan_cp_exchange(const plan_scenario *s, plan_cp_cost *out);

/* Build the step's task graph. SIM_OK, SIM_ENOMEM, or SIM_ERANGE when its
 * tasks add up past the clock's horizon (plan_graph_horizon). */
int plan_build(const plan_scenario *s, plan_graph **out);
/* As plan_build; on SIM_ERANGE why (when not NULL) says which task and which
 * inputs set its time. */
int plan_build_why(const plan_scenario *s, plan_graph **out, char *why, size_t len);
/* SIM_OK while the graph's tasks add up to less than SIM_TIME_HORIZON (so no
 * replay of it, any order, can pass the clock's range); else SIM_ERANGE with
 * the longest task, its length and the inputs that set it in why. */
int plan_graph_horizon(const plan_graph *g, char *why, size_t len);
/* Which inputs set a task kind's duration (for messages): "[gpu] peak ...". */
const char *plan_task_inputs(uint8_t kind);
/* A task kind's short name: "fwd", "bwd", "recompute", "wgrad",
 * "optimizer", then its group, "tp", "dp", "pp", "cp", "ep", "offload"
 * (the Chrome trace's categories; "?" past the kinds). */
const char *plan_task_kind_short(uint8_t kind);

/* The tasks of a graph that vary with the fabric (plan_graph.net_frac > 0)
 * of one kind on groups across one node count: how many, their seconds and
 * of those the network part (duration x net_frac). */
typedef struct plan_varying {
	uint8_t kind; /* plan_task_kind */
	int nodes;
	size_t tasks;
	double dur_s, net_s;
} plan_varying;
/* Fill out with g's varying tasks per (kind, node count), in the order of
 * their first task, at most cap of them (later pairs dropped); returns how
 * many. */
size_t plan_graph_varying(const plan_graph *g, plan_varying *out, size_t cap);
/* The seconds of rank class `rank`'s tasks on `stream` in g (durations
 * summed, as built: what the stream would take alone). */
double plan_graph_stream_s(const plan_graph *g, int rank, int stream);
/* The rate of rank class `rank`'s compute tasks beside DeepEP's kernels
 * (plan_graph.deep_rate > 0), weighted by time: their durations summed over
 * their durations at that rate; 0 when it has none. */
double plan_graph_deep_rate(const plan_graph *g, int rank);

/* [cluster] network = flow (netflow.c): plan_build times collectives with
 * sim/topo's flow model, every translate of a group contending on the
 * cluster's link graph. One plan_netflow per plan_build holds the graph (its
 * own, or one shared from s->graphs) and the group-cost cache. open gives
 * NULL (and SIM_OK) under alpha-beta. */
typedef struct plan_netflow plan_netflow;
int plan_netflow_open(const plan_scenario *s, plan_netflow **out);
void plan_netflow_close(plan_netflow *f);
/* Cost of `coll` on the group of `size` ranks `stride` apart, as net_cost
 * (intra_bytes: the busiest scale-up link's bytes; inter_bytes such that
 * gpus/nics times it is the busiest NIC link's). Falls back to
 * net_collective on `grp` when the flow model cannot time it. */
int plan_netflow_cost(plan_netflow *f, net_coll coll, const net_group *grp, int size,
		      int stride, double bytes, net_cost *out);
/* A caller that lengthens a collective's time beyond the answer c (a
 * pipeline send's framework overhead, a TP collective's GEMM chunk under
 * tp_comm_overlap) gives its task's time here, so that the report finds
 * the answer's link loads under the duration the task carries (the answers
 * are keyed by duration and bytes). Nothing without f or a change. */
void plan_netflow_alias(plan_netflow *f, const net_cost *c, double time_s);
/* Fill g->net from the collective tasks of g. */
void plan_netflow_report(const plan_netflow *f, plan_graph *g);
/* Cache lookups answered and collectives simulated (tests). */
void plan_netflow_stats(const plan_netflow *f, int *hits, int *misses);
void plan_graph_free(plan_graph *g);

/* The fabric units (plan_graph.up_unit) stage st's nodes sit under, in
 * *first and *last: a fat tree's leaf holds floor(p / N) whole nodes of N
 * NICs (p = net_leaf_down), a rail-optimized or rail-only unit p nodes
 * (topo/fabric.c leaf_of). Only where transfers of different stages can
 * meet on a leaf's uplinks: an oversubscribed fabric with uplinks
 * (net_fabric_uplinks), the stages on consecutive ranks (pp outermost in
 * [parallel] order) and one GPU type; false otherwise (each stage its own
 * uplinks, as before). */
bool plan_up_units(const plan_scenario *s, int st, int *first, int *last);

/* Builder helpers (also used by tests to make synthetic graphs): add a task
 * with the given predecessors and return its id, or UINT32_MAX on OOM; add one
 * more dependency edge (SIM_OK or SIM_ENOMEM). */
plan_graph *plan_graph_new(int ranks, int rank_gpus);
uint32_t plan_graph_add(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps);
int plan_graph_edge(plan_graph *g, uint32_t from, uint32_t to);
/* Mark task id as varying with the fabric (plan_graph.net_frac, net_nodes):
 * frac of its duration, clamped to [0, 1], on a group across `nodes`
 * nodes. SIM_OK or SIM_ENOMEM. */
int plan_graph_set_net(plan_graph *g, uint32_t id, double frac, int nodes);
/* Task id's rate beside DeepEP's kernels (plan_graph.deep_rate), clamped
 * to [0, 1]. SIM_OK, SIM_EINVAL (no such task), SIM_ENOMEM. */
int plan_graph_set_deep(plan_graph *g, uint32_t id, double rate);
/* Mark task id quiet (plan_graph.quiet). SIM_OK, SIM_EINVAL (no such task),
 * SIM_ENOMEM. */
int plan_graph_set_quiet(plan_graph *g, uint32_t id);
/* Task id's SM share as a multiple of the interference (plan_graph.sm_scale).
 * SIM_OK, SIM_EINVAL (no such task), SIM_ENOMEM. */
int plan_graph_set_scale(plan_graph *g, uint32_t id, double scale);
/* A collective's SM share on group g as a multiple of the GPU's
 * interference: the channels its communicator runs algorithm a on
 * (net_tune_channels) over the 16 the GPU files' interference stands for;
 * 1 for a group of one rank. plan_coll_scale: the same for collective c of
 * `bytes` on g, at the algorithm net_collective picks for it. */
double plan_comm_scale(const plan_scenario *s, const net_group *g, net_algo a);
double plan_coll_scale(const plan_scenario *s, net_coll c, const net_group *g, double bytes);
/* Count `bytes` moved in dur_s on offload link `link` (PLAN_OFF_*) of rank
 * class `rank` against its capacity cap_Bps (g->offload). */
int plan_graph_offload(plan_graph *g, int rank, int link, double bytes, double dur_s,
		       double cap_Bps);

#endif
