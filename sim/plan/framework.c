/* framework.c - the [framework] section: the software stack a scenario runs
 * on, as data (plan.h, "framework profile"), and the rules it imposes on a
 * plan (plan_check_framework). Profiles ship as topologies/frameworks/NAME.ini,
 * every fact cited there to the framework's source file and commit; the key
 * defaults below are the default profile, Megatron-Core
 * (topologies/frameworks/megatron-core.ini, kept equal by test_plan). */
#include "plan.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

static const char *const reduce_names[] = {"boundary", "microbatch", NULL};
static const char *const uneven_names[] = {"error", "end-stages", "cost", NULL};
static const char *const vp_rule_names[] = {"megatron-core", "torch-rounds", NULL};
_Static_assert(PLAN_VP_MEGATRON == 0 && PLAN_VP_TORCH == 1, "vp_rule_names follows plan_vp_rule");
static const char *const grad_op_names[] = {"reduce-scatter", "all-reduce", NULL};
static const char *const bucket_split_names[] = {"layer", "tensor", NULL}; /* plan_bucket_split */
static const char *const bucket_calls_names[] = {"bucket", "tensor", NULL}; /* plan_bucket_calls */
static const char *const norm_sync_names[] = {"flat", "tensor", NULL}; /* plan_norm_sync */
static const char *const clip_names[] = {"shard", "replica", NULL}; /* plan_clip_scope */
static const char *const flash_names[] = {"fa2", "fa3", "cudnn", NULL}; /* hw_flash_impl order */
static const char *const layer_names[] = {"fused", "nanotron", "mpt", "fms", "hf-llama",
					  "hf-llama5", NULL}; /* work_layer_code */
static const char *const accum_names[] = {"fused", "kernel", "autograd", "kernel-fp16",
                                           NULL}; /* plan_grad_accum */
static const char *const zero3_reduce_names[] = {"unit", "bucket", NULL}; /* plan_zero3_reduce */
static const char *const gather_copy_names[] = {"none", "gather-stream", "compute-stream",
                                                NULL}; /* plan_gather_copy */
_Static_assert(PLAN_GATHER_COPY_NONE == 0 && PLAN_GATHER_COPY_DP == 1 &&
                       PLAN_GATHER_COPY_COMPUTE == 2,
               "gather_copy_names follows plan_gather_copy");
static const char *const cp_comm_names[] = {"ring", "all-gather", "all-to-all",
                                            NULL}; /* plan_cp_comm */
static const char *const sel_attn_names[] = {"always", "unfused", NULL}; /* plan_selective_attn */
static const char *const zero3_root_names[] = {"flat", "units", "modules", "none", "step",
                                                NULL}; /* plan_zero3_root */
static const char *const grad_dtype_names[] = {"fp32", "params", "fp32-unless-fp16",
                                                "params-unless-bf16-zero0", NULL};
_Static_assert(PLAN_GRAD_FP32 == 0 && PLAN_GRAD_PARAMS == 1 && PLAN_GRAD_FP32_UNLESS_FP16 == 2,
               "grad_dtype_names follows plan_grad_dtype");
static const char *const grad_wire_names[] = {"grads", "params", NULL};
_Static_assert(PLAN_WIRE_GRADS == 0 && PLAN_WIRE_PARAMS == 1, "grad_wire_names follows plan_grad_wire");
static const char *const zero3_split_names[] = {"even", "hf", "megatron", NULL}; /* plan_zero3_split */
static const char *const zero3_calls_names[] = {"bucket", "tensor", NULL}; /* plan_zero3_calls */
_Static_assert(PLAN_ZERO3_EVEN == 0 && PLAN_ZERO3_HF == 1 && PLAN_ZERO3_MEGATRON == 2,
               "zero3_split_names follows plan_zero3_split");
_Static_assert(WORK_LAYER_FUSED == 0 && WORK_LAYER_NANOTRON == 1 && WORK_LAYER_MPT == 2 &&
                       WORK_LAYER_FMS == 3 && WORK_LAYER_HF_LLAMA == 4 &&
                       WORK_LAYER_HF_LLAMA5 == 5,
               "layer_names follows work_layer_code");
_Static_assert(PLAN_ACCUM_FUSED == 0 && PLAN_ACCUM_KERNEL == 1 && PLAN_ACCUM_AUTOGRAD == 2 &&
                       PLAN_ACCUM_KERNEL_FP16 == 3,
               "accum_names follows plan_grad_accum");
_Static_assert(HW_FLASH_FA2 == 0 && HW_FLASH_FA3 == 1 && HW_FLASH_CUDNN == 2,
               "flash_names follows hw_flash_impl");
static const char *const saved_names[] = {"fused", "eager", "compiled", "nanotron", NULL};
static const char *const norm_names[] = {"fused", "16-bit", "fp32-input", "fp32", NULL};
static const char *const loss_names[] = {"vocab-parallel", "upcast-shift", "shift",  "upcast",
					 "chunked",        "chunked-16bit", "16-bit", "fused-xent",
					 "sharded",        NULL};
static const char *const grads_names[] = {"persistent", "on-backward", NULL};
static const char *const logged_names[] = {"step", "after-pipeline", NULL}; /* plan_logged_peak */
static const char *const optim_names[] = {"fused", "foreach", "single", "torch-fused", NULL};
_Static_assert(PLAN_OPTIM_FUSED == 0 && PLAN_OPTIM_FOREACH == 1 && PLAN_OPTIM_SINGLE == 2 &&
                   PLAN_OPTIM_TORCH_FUSED == 3,
               "optim_names follows plan_optim_impl");
static const char *const dgrad_names[] = {"always", "sp", "never", NULL}; /* plan_dgrad_async */
static const char *const fsdp_reduce_names[] = {"none", "fsdp1", "fsdp1-pad", NULL};
_Static_assert(PLAN_FSDP_REDUCE_NONE == 0 && PLAN_FSDP_REDUCE_FSDP1 == 1 &&
                       PLAN_FSDP_REDUCE_FSDP1_PAD == 2,
               "fsdp_reduce_names follows plan_fsdp_reduce");

const char *plan_dgrad_async_name(int mode)
{
	return mode >= PLAN_DGRAD_ALWAYS && mode <= PLAN_DGRAD_NEVER ? dgrad_names[mode] : "?";
}
_Static_assert(sizeof(plan_reduce) == sizeof(int), "conf stores enums as int");

#define FK(field) offsetof(plan_framework, field)
const conf_key plan_framework_keys[] = {
        {"name", CONF_STR, SIM_UNIT_NONE, 0, 0, "megatron-core", NULL, FK(name),
         "framework profile (reports, error bands, rules)"},
        {"release", CONF_STR, SIM_UNIT_NONE, 0, 0, "core_r0.13.0 (2025-07)", NULL, FK(release),
         "release and date the profile's facts are taken from"},
        {"runs_schedules", CONF_STR, SIM_UNIT_NONE, 0, 0, "1f1b,interleaved", NULL, FK(schedules),
         "pipeline schedules it runs: gpipe, 1f1b, interleaved, zb-h1, interleaved-zb "
         "(schedule = zb-h1 with vpp > 1), zbv, looped-bfs, dualpipev (comma-separated)"},
        {"runs_zero", CONF_INT, SIM_UNIT_NONE, 0, 3, "3", NULL, FK(zero_max),
         "highest ZeRO stage it runs (1 = distributed optimizer, 3 = FSDP)"},
        {"runs_zero_with_pp", CONF_INT, SIM_UNIT_NONE, 0, 3, "1", NULL, FK(zero_max_pp),
         "highest ZeRO stage it runs together with pipeline parallelism"},
        {"zero_default", CONF_INT, SIM_UNIT_NONE, 0, 3, "0", NULL, FK(zero_default),
         "the ZeRO stage it runs where the plan leaves zero open and has more than one "
         "data-parallel rank (a scenario without the key, an open zero column of a "
         "measured row): 3 for FSDP, whose default is FULL_SHARD; at most runs_zero, "
         "with a pipeline runs_zero_with_pp"},
        {"runs_tp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(tp),
         "runs tensor parallelism"},
        {"runs_sequence_parallel", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(sp),
         "runs sequence parallelism beside tensor parallelism (false where it predates it: "
         "Megatron-LM before cfd2e21607, 2022-04-28)"},
        {"sequence_parallel_default", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(sp_default),
         "what it runs at tp > 1 where the plan leaves sequence_parallel open: its "
         "recipes' or its flag's default (a scenario without the key, an open "
         "sequence_parallel column of a measured row)"},
        {"runs_cp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(cp),
         "runs context parallelism"},
        {"runs_ep", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(ep),
         "runs expert parallelism"},
        {"runs_tp_comm_overlap", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(tp_comm_overlap),
         "overlaps sequence-parallel collectives with their GEMMs"},
        {"runs_moe_a2a_overlap", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(moe_a2a_overlap),
         "overlaps expert-parallel all-to-alls with another micro-batch's compute "
         "(Megatron-Core's combined 1F1B, core_v0.14.0 on)"},
        {"runs_vp_group", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(vp_group),
         "runs the interleaved schedule's micro-batches in groups other than pp "
         "([parallel] vp_group; Megatron-Core since 2024-11), so micro-batches that are "
         "no multiple of pp interleave too"},
        {"vp_group_rule", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "megatron-core", vp_rule_names,
         FK(vp_rule),
         "how it sizes those groups: megatron-core (groups of [parallel] vp_group, or the "
         "smallest it accepts: pp <= N <= m, a last group of 0 or >= pp), torch-rounds "
         "(torch pipelining's ScheduleInterleaved1F1B: max(1, m // pp) rounds of equal size, "
         "m a multiple of them; fewer micro-batches than pp run as one round)"},
        {"runs_overlap_grad_reduce", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(overlap_grad_reduce),
         "reduces gradients during the backward (overlap_grad_reduce; overlap_param_gather, "
         "which needs it, too); false where the reduction runs only after the backward"},
        {"runs_overlap_grad_reduce_with_pp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(overlap_grad_reduce_pp),
         "... with a pipeline too; false where only a plan without one overlaps it (Megatron-LM "
         "of 2021: --DDP-impl torch, its overlapped DDP, only at pp = 1)"},
        {"runs_offload_optimizer", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(offload_optimizer), "runs the optimizer on the CPU (optimizer states on the host)"},
        {"runs_offload_params", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(offload_params),
         "keeps sharded parameters on the host or NVMe (ZeRO-Infinity)"},
        {"runs_hybrid_shard", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, FK(hybrid_shard),
         "shards ZeRO states over a subgroup of the data-parallel ranks (shard_size)"},
        {"runs_zeropp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(zeropp),
         "runs DeepSpeed's ZeRO++ options on ZeRO-3 (zero_hpz, zero_quantized_weights, "
         "zero_quantized_gradients; "
         "DeepSpeed 0.9.5, 2023, on)"},
        {"runs_selective_recompute", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(selective_recompute),
         "runs recompute = selective, Megatron's per-module recomputation (false where the "
         "framework has none: Megatron-LM before 2022, or its own 'selective' checkpoints "
         "whole layers: recompute = full with recompute_layers)"},
        {"selective_means_layers", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(selective_means_layers),
         "what the framework calls selective checkpointing is whole layers, every x-th "
         "(fms-fsdp's): a measured row's 'selective' is read as recompute = full of some "
         "layers (podsim validate)"},
        {"zero2_grad_reduce", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "microbatch", reduce_names,
         FK(zero2_reduce),
         "ZeRO-2 under gradient accumulation: reduce-scatter once at the last micro-batch "
         "(boundary) or after every micro-batch (microbatch)"},
        {"hsdp_grad_reduce", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "microbatch", reduce_names,
         FK(hsdp_reduce),
         "ZeRO-3 with hybrid sharding (shard_size) under gradient accumulation: all-reduce "
         "each reduced shard over its replicas after every micro-batch (microbatch: FSDP) "
         "or at the last one only (boundary: DeepSpeed MiCS)"},
        {"zero_grad_op", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "reduce-scatter", grad_op_names,
         FK(zero_grad_op),
         "ZeRO-1/2 gradient buckets: reduce-scatter, or all-reduce with each rank keeping "
         "its slice (twice the traffic)"},
        {"uneven_split", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "end-stages", uneven_names, FK(uneven),
         "layers that do not split evenly over pp*vpp: error, or end-stages (embedding and "
         "loss count as layers, the end stages hold fewer); cost: every split balanced by "
         "the blocks' compute costs, the lm_head a block (nanotron)"},
        {"flash_impl", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "cudnn", flash_names, FK(flash_impl),
         "fused attention kernel: fa2 (FlashAttention-2, PyTorch SDPA), fa3 "
         "(FlashAttention-3), cudnn (cuDNN fused attention, Transformer Engine)"},
        {"vocab_multiple", CONF_INT, SIM_UNIT_NONE, 0, 1 << 16, "128", NULL, FK(vocab_multiple),
         "the vocabulary the layers run is the model's padded up to a multiple of "
         "vocab_multiple x tp (Megatron's make_vocab_size_divisible_by, 128; nanotron's, 1); "
         "0: the model's vocabulary as it is (Hugging Face and FSDP stacks)"},
        {"softmax_fused_max_seq", CONF_INT, SIM_UNIT_NONE, 0, 1 << 20, "0", NULL,
         FK(softmax_fused_max_seq),
         "unfused attention: the longest sequence Megatron's fused scale-mask-softmax kernel "
         "takes (0: it takes every shape); a shape it refuses (longer, or micro-batch x heads "
         "per rank not a multiple of 4) runs PyTorch's five ops in fp32"},
        {"zero3_gathers", CONF_INT, SIM_UNIT_NONE, 1, 64, "1", NULL, FK(zero3_gathers),
         "ZeRO-3 parameter all-gathers per layer and pass (1: one unit per block as FSDP; "
         "DeepSpeed gathers each linear module apart)"},
        {"zero3_modules", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "even", zero3_split_names,
         FK(zero3_modules),
         "ZeRO-3 gathers per layer: even (zero3_gathers of equal size), hf (one per linear "
         "module of the model's Hugging Face code, at its size: model.qkv_modules, the "
         "activation) or megatron (Megatron's four: fused QKV, fused gate/up)"},
        {"zero3_gather_copy", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", gather_copy_names,
         FK(zero3_gather_copy),
         "where ZeRO-3 copies each gathered unit out of the gather's flat buffer: none "
         "(FSDP1 gathers into its flat parameter), gather-stream (DeepSpeed's torch.cat in "
         "the handle's wait) or compute-stream (FSDP2's copy-out before the unit runs)"},
        {"zero3_reduce", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "unit", zero3_reduce_names,
         FK(zero3_reduce),
         "ZeRO-3 gradient reduce-scatters: unit (after each unit's backward: FSDP) or bucket "
         "(DeepSpeed's IPG buckets of grad_bucket elements, filled tensor by tensor, the "
         "last reduced after the backward)"},
        {"cp_comm", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "ring", cp_comm_names, FK(cp_comm),
         "context parallelism's K/V exchange: ring (Megatron-Core and Transformer "
         "Engine's p2p: each K/V block passed to the next rank beside the step that "
         "attends to the one before) or all-gather (PyTorch's context_parallel, "
         "torchtitan: every rank's K/V gathered once beside the first step, again in the "
         "backward, the K/V gradients passed around the ring in fp32) or all-to-all "
         "(DeepSpeed-Ulysses, Megatron-DeepSpeed from 2023-08: Q, K, V and the output "
         "traded for heads over the CP group, each rank attending the whole sequence with "
         "1/cp of the heads, on any attention kernel)"},
        {"selective_core_attn", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "always", sel_attn_names,
         FK(selective_attn),
         "which attention cores recompute = selective re-runs: always (Megatron-Core "
         "checkpoints core_attn whatever its kernel) or unfused (Megatron's legacy layer "
         "code and Megatron-DeepSpeed wrap only the unfused core: flash attention and "
         "DeepSpeed-Ulysses' DistributedAttention keep what they save, and selective "
         "then re-runs nothing of the attention)"},
        {"zero3_root", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "step", zero3_root_names,
         FK(zero3_root),
         "ZeRO-3's embedding and head (final norm, output layer): step (Megatron-FSDP's "
         "modules outside its units: gathered in the step's first forward and kept, each "
         "reduce-scattered after its backward every micro-batch), none (never moved), flat "
         "(one root unit gathered as each forward starts, kept through the backward, reduced "
         "after it: FSDP1's root, "
         "FSDP2's root module), units (torchtitan: the embedding its own unit, regathered for "
         "its backward; norm and output one kept to theirs) or modules (DeepSpeed: each "
         "gathered before its forward, the embedding again before its backward)"},
        {"zero3_rank_op", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL, FK(zero3_rank_op_s),
         "ZeRO-3 bucket reductions: host time per shard rank and gradient tensor (DeepSpeed's "
         "reduce_scatter_coalesced slices every tensor per rank in Python)"},
        {"zero3_gather_rank_op", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL,
         FK(zero3_gather_rank_op_s),
         "ZeRO-3 gathers: host time per shard rank and gathered tensor (DeepSpeed before "
         "2021-10 views the gathered tensor once per rank in Python and passes the list to "
         "all_gather)"},
        {"zero3_reduce_calls", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "bucket", zero3_calls_names,
         FK(zero3_reduce_calls),
         "ZeRO-3 bucket reductions: one reduce-scatter per bucket (bucket), or one per "
         "parameter tensor in it (tensor: DeepSpeed before 2022-01)"},
        {"zero3_sync", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(zero3_sync),
         "ZeRO-3: the host synchronises the device before each layer's gathers are issued "
         "(DeepSpeed before 2021-10: torch.cuda.synchronize per gathered parameter and "
         "after every module's fetch), so their host work and what the gradient hooks "
         "still owe run with the GPU idle"},
        {"zero3_rank_copies", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(zero3_rank_copies),
         "ZeRO-3's all-gathers and reduce-scatters take per-rank tensor lists: PyTorch copies "
         "each rank's slice with its own kernel, one launch per rank and tensor beside "
         "zero3_rank_op and zero3_gather_rank_op"},
        {"zero_gather_rank_op", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL,
         FK(zero_gather_rank_op_s),
         "ZeRO-1/2's parameter all-gather after the step: host time per (DP rank x parameter "
         "tensor) of the framework's own loops (nanotron slices, flattens, unflattens and "
         "copies every parameter once per rank in Python), each copy a kernel launch too; 0: "
         "one flat gather with no per-rank work (Megatron-Core, DeepSpeed)"},
        {"step_tensor_ops", CONF_INT, SIM_UNIT_NONE, 0, 64, "0", NULL, FK(step_tensor_ops),
         "host operations per parameter tensor of the framework's own Python loops around the "
         "optimizer step, each a kernel launch (nanotron: 3, the clipping's norm and rescale "
         "and the fp32 master's copy into the bf16 parameter); 0: multi-tensor kernels, a few "
         "launches whatever the tensor count (Megatron-Core, DeepSpeed, torch's foreach)"},
        {"step_tensor_op", CONF_QTY, SIM_UNIT_TIME, 0, 1, "0 us", NULL, FK(step_tensor_op_s),
         "host time of each of step_tensor_ops beyond its kernel launch (Python and "
         "PyTorch's dispatcher)"},
        {"clip_scope", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "shard", clip_names, FK(clip_scope),
         "what gradient clipping reads: shard, the gradients the rank steps (its ZeRO shard; "
         "the rescale, rare once training settles, not charged), or replica, the rank's whole "
         "gradient before DP sharding, then rescaled whole every step (nanotron multiplies "
         "by the clamped coefficient unconditionally)"},
        {"distribute_saved", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(distribute_saved),
         "recompute = full at tp > 1 without sequence parallelism keeps each layer's input "
         "split over the TP group (1/tp of it a rank) and all-gathers it before the layer's "
         "recomputed forward (Megatron's --distribute-saved-activations, CheckpointFunction "
         "in core/tensor_parallel/random.py; metaseq's --distribute-checkpointed-activations)"},
        {"recompute_early_stop", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(recompute_early_stop),
         "recompute = full re-runs a layer's forward only up to its last saved tensor: the "
         "last GEMM (the MLP's down projection) and what follows are not recomputed "
         "(PyTorch's non-reentrant checkpoint from 2.1, early stop)"},
        {"fsdp_casts", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(fsdp_casts),
         "ZeRO-3: FSDP MixedPrecision's cast of each unit's fp32 shard before every "
         "all-gather, the reduced shard's cast back to fp32, and its addition into the "
         "saved shard on later micro-batches (plan_fsdp_gather_cast_bytes)"},
        {"fsdp_reduce_passes", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", fsdp_reduce_names,
         FK(fsdp_reduce),
         "ZeRO-3: passes over a unit's unsharded gradient before its reduce-scatter, each "
         "micro-batch: none, fsdp1 (its assembly from the flat parameter's views, the cast "
         "to the reduce dtype, pre-division), fsdp1-pad (also torch 1.13's F.pad copy)"},
        {"grad_bucket", CONF_REAL, SIM_UNIT_NONE, 0, 1e13, "40000000", NULL, FK(grad_bucket),
         "parameters per data-parallel gradient bucket (0 = one bucket per stage)"},
        {"grad_bucket_per_dp", CONF_REAL, SIM_UNIT_NONE, 0, 1e13, "1000000", NULL,
         FK(grad_bucket_per_dp),
         "... at least this many per data-parallel rank (Megatron: max(40M, 1M x dp))"},
        {"grad_bucket_first", CONF_REAL, SIM_UNIT_NONE, 0, 1e13, "0", NULL,
         FK(grad_bucket_first),
         "ZeRO-0: parameters of the first bucket the backward fills, when smaller than the "
         "others (torch DDP: 1 MiB of 16-bit gradients, 524288; 0 = as the others)"},
        {"grad_bucket_split", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "tensor", bucket_split_names,
         FK(grad_bucket_split),
         "where a ZeRO-0..2 bucket may close: tensor (after the parameter tensor that fills "
         "it, as Megatron-Core's buffers and torch DDP's reducer close them), layer (only at "
         "a layer's end, podsim's coarser approximation)"},
        {"sp_norm_sync", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "flat", norm_sync_names,
         FK(sp_norm_sync),
         "sequence parallelism's norm gradients, all-reduced over TP after the backward: flat "
         "(one all-reduce of them flattened, Megatron-Core), tensor (one per norm tensor in a "
         "NCCL group, nanotron's TP-tied parameters)"},
        {"grad_bucket_calls", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "bucket", bucket_calls_names,
         FK(grad_bucket_calls),
         "ZeRO-0: collectives per bucket: bucket (one over its flat buffer), tensor (one per "
         "parameter tensor in a NCCL group: nanotron's fp32 hook, all_reduce_coalesced)"},
        {"grad_dtype", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fp32-unless-fp16", grad_dtype_names,
         FK(grad_dtype),
         "dtype of the data-parallel gradients (accumulated, kept, reduced) when [parallel] "
         "fp32_grads is not set: fp32, params (the training dtype), fp32-unless-fp16 "
         "(Megatron: fp16 runs keep fp16 gradients, bf16 and fp8 runs fp32), "
         "params-unless-bf16-zero0 (DeepSpeed: the training dtype, but fp32 for bf16 "
         "without ZeRO)"},
        {"grad_wire_dtype", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "grads", grad_wire_names,
         FK(grad_wire),
         "dtype the data-parallel gradients are reduced in (ZeRO-0..2 buckets, ZeRO-3 "
         "reduce-scatters): grads (the buffer's), params (the training dtype: a wider "
         "buffer is cast before and copied back after, DeepSpeed's "
         "communication_data_type)"},
        {"one_bucket_no_overlap", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(one_bucket_no_overlap),
         "without overlap_grad_reduce, one collective for the whole stage"},
        {"first_stage_buckets", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(first_stage_buckets),
         "each model chunk has its own buckets (gradients and overlap_param_gather's "
         "gathers), and only the first stage's first chunk splits them: every other "
         "chunk is one bucket, reduced after its backward (interleaved: at Megatron-Core's "
         "aligned launch point)"},
        {"tp_dgrad_async", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "always", dgrad_names,
         FK(dgrad_async),
         "the backward's input-gradient TP collective of QKV and FC1 runs beside their "
         "weight-gradient GEMM: always (all-reduce or, with SP, reduce-scatter), sp (only "
         "the reduce-scatter), never (blocking)"},
        /* eager PyTorch's host time per operation, measured (tools/measured/
         * h200-training, README there): Hugging Face transformers 5.17's Llama
         * on torch 2.11, sequence 64 so that the GPU waits for the host, took
         * 597.7 ms to issue 17,253 kernels over seven forward + backward passes
         * on two machines (1B- and 8B-shaped models and their tp 2-8 shards):
         * 34.6 us per kernel, less the 4 us launch of the GPU file (hardware.csv
         * latency,CUDA kernel launch,host_dispatch, S51): 30.6 us. It replaces
         * 20 us (pytorch_op_roundtrip_v100, S51d, secondary: a V100-era figure
         * for one op; a model's op carries its module, hooks and autograd). One
         * figure for every eager stack: the others' host cost per kernel is not
         * measured (the profiles say so); CUDA graphs set 0. */
        {"op_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 1, "30.6 us", NULL, FK(op_overhead_s),
         "host time per operation beside its kernel launch (0 = CUDA graphs)"},
        {"optimizer_op_overhead", CONF_QTY, SIM_UNIT_TIME, 0, 1, "8.1 us", NULL,
         FK(optimizer_op_overhead_s),
         "host time beside its kernel launch of each operation of a tensor-by-tensor optimizer "
         "step (optimizer_impl = single): bare tensor operations under no_grad, cheaper than "
         "the model code's op_overhead (tools/measured/composer-adamw-host)"},
        /* memory: what the framework keeps alive (memory.c, memwalk.c) */
        {"saved_tensors", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", saved_names, FK(saved_tensors),
         "what a layer keeps for its backward: fused (Megatron/TE, Korthikanti's count), "
         "eager (PyTorch modeling code: every linear input, both SwiGLU branches), compiled"},
        {"norm_saved", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", norm_names, FK(norm_saved),
         "eager norms keep: fused (the input), 16-bit (input and normalised), fp32-input (an "
         "fp32 copy of the input and the 16-bit normalised), fp32 (both in fp32)"},
        {"expand_kv", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(expand_kv),
         "GQA keys and values repeated to every query head before attention (repeat_kv)"},
        {"attn_out_copy", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(attn_out_copy),
         "the attention output is copied (transpose + contiguous) before the projection"},
        {"returns_kv", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(returns_kv),
         "the model returns every layer's K and V (use_cache left on) until the next step"},
        {"mask_4d", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(mask_4d),
         "a (b, 1, s, s) attention mask is built for every forward"},
        {"dropout", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(dropout),
         "eager code applies dropout on the residual branches (masks and outputs kept)"},
        {"lora_qkv_fused", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(lora_qkv_fused),
         "the q, k, v LoRA adapters share one dropout of the attention input"},
        {"loss", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "vocab-parallel", loss_names, FK(loss),
         "the loss's logit tensors: vocab-parallel (Megatron), upcast-shift (HF Llama), shift "
         "(HF GPT-2), upcast, chunked, chunked-16bit, 16-bit, fused-xent (flash-attn's Triton "
         "cross-entropy) (plan_loss_bytes)"},
        {"holds_outputs", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(holds_outputs),
         "the training loop keeps the model's output (logits, returned K/V) through the "
         "backward"},
        {"logged_peak", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "step", logged_names, FK(logged_peak),
         "what the framework's own log reports as max_memory_allocated: step (the step's "
         "peak) or after-pipeline (it resets PyTorch's peak counters after the forward and "
         "backward, so the optimizer phase's peak; max_memory_reserved keeps the cached "
         "segments and stays the step's) (plan_memory_after_pipeline)"},
        {"grads", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "persistent", grads_names, FK(grads),
         "gradients in a buffer allocated once (persistent) or from the first backward to "
         "the step (on-backward)"},
        {"grad_copy", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(grad_copy),
         "data parallelism keeps a second copy of the gradients (torch DDP's flat buckets)"},
        {"grad_buckets", CONF_INT, SIM_UNIT_NONE, 0, 16, "0", NULL, FK(grad_buckets),
         "bucket_size gradient buffers held with ZeRO (DeepSpeed's IPG buckets)"},
        {"accumulate_unsharded", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(accumulate_unsharded),
         "ZeRO-3 keeps unsharded gradients while accumulating micro-batches (FSDP no_sync)"},
        {"zero3_pp_gathered", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(zero3_pp_gathered),
         "with pp > 1 ZeRO-3 keeps each unit gathered from the step's first forward to its "
         "end and accumulates unsharded gradients, reduce-scattered once per chunk after its "
         "last backward (torch pipelining with FSDP2, torchtitan's default)"},
        {"frozen_grads", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(frozen_grads),
         "flat parameters mixing frozen and trained weights carry gradients for all of them"},
        {"zero2_param_shards", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(zero2_param_shards),
         "ZeRO-2 shards the parameters too and keeps them gathered from forward to backward "
         "(FSDP SHARD_GRAD_OP)"},
        {"step_fp32_grads", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(step_fp32_grads),
         "the optimizer step makes an fp32 copy of the gradient partition (DeepSpeed)"},
        {"quant_rest_fp32", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(quant_rest_fp32),
         "with quantised base weights the unquantised parameters are cast to fp32"},
        {"param_master", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(param_master),
         "under the mixed policy the (sharded) fp32 parameter is the master: no separate "
         "16-bit copy, 16 bits only while gathered, fp32 gradients at the step (FSDP's "
         "MixedPrecision: 4 + 4 + 8 B per parameter)"},
        {"flat_params", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(flat_params),
         "the optimizer steps one flat parameter per wrapped unit, its shard (FSDP1 with "
         "use_orig_params = False), not the model's tensors"},
        {"params_in_shard", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(params_in_shard),
         "FSDP1 with use_orig_params = True: a rank's optimizer sees only the parameters its "
         "flat shard holds (the others' grad is None), so a per-tensor step loops over the "
         "busiest rank's tensors, not every tensor of the layer"},
        {"optimizer_item_sync", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(optimizer_item_sync),
         "the per-tensor step (optimizer_impl = single) reads each tensor's step count back "
         "from the GPU (.item()) before its kernels: the host waits for the previous "
         "tensor's, host and GPU take turns (Composer's DecoupledAdamW)"},
        {"optimizer_impl", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", optim_names,
         FK(optimizer_impl),
         "the optimizer step: fused (apex/TE/DeepSpeed FusedAdam: no temporaries), foreach "
         "(foreach_temps state-sized lists), single (a loop over tensors), torch-fused "
         "(AdamW(fused=True))"},
        /* torch/optim/adamw.py _multi_tensor_adamw, non-capturable path:
         * 1.13.1 (Debian python3-torch 1.13.1+dfsg-4) L418-422:
         *   exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs)
         *   denom = torch._foreach_add(exp_avg_sq_sqrt, eps)   (a second list)
         *   torch._foreach_addcdiv_(params, exp_avgs, denom, step_size)
         * (capturable L394-400 and adam.py L495-523 alike): two lists.
         * 2.6.0 (Debian 2.6.0+dfsg-7) adamw.py L699-707, adam.py L703-707,
         * and 2.14.1 (Debian 2.14.1+dfsg-1; AdamW is Adam with
         * decoupled_weight_decay) adam.py L790-794: _foreach_add_(exp_avg_sq_sqrt,
         * eps) in place, one list; the gradient copies of maximize and of
         * Adam's L2 weight decay (adam.py 2.6.0 L594, L612) are deleted
         * before it (L639). The capturable path's extra lists are the
         * per-tensor bias corrections, one element each (L646-665). 2.6.0's
         * test/test_optim.py test_peak_memory_foreach (L958-1005) holds
         * foreach Adam(W) to the single-tensor peak plus one such list.
         * Measured: one 512 MiB list over 512 MiB of bf16 parameters in
         * torch 2.11 (tools/measured/h200-training/alloc.csv). Releases
         * 2.0-2.5 were not in the sources at hand. 3: 1.13.1 with
         * maximize=True, whose negated gradients (adamw.py L344) live to
         * the end. (test_optim.py: pytorch_2.6.0+dfsg.orig.tar.xz.) */
        {"foreach_temps", CONF_INT, SIM_UNIT_NONE, 1, 3, "1", NULL, FK(foreach_temps),
         "state-sized lists alive together in a foreach Adam(W) step: 1 (torch >= 2.6: "
         "sqrt(v) in place), 2 (torch 1.13: sqrt(v) and the out-of-place denominator)"},
        {"gathered_layers", CONF_INT, SIM_UNIT_NONE, 1, 64, "2", NULL, FK(gathered_layers),
         "ZeRO-3 layers unsharded at once (the running one and the prefetched)"},
        {"reuse_distance", CONF_REAL, SIM_UNIT_NONE, 0, 1e15, "0", NULL, FK(reuse_distance),
         "ZeRO-3 keeps a module gathered when the trace uses it again within this many "
         "parameters (DeepSpeed's stage3_max_reuse_distance): the last layers stay gathered "
         "from their forward to their backward (0: none)"},
        {"live_params", CONF_REAL, SIM_UNIT_NONE, 0, 1e15, "0", NULL, FK(live_params),
         "ZeRO-3 with offloaded parameters: parameters gathered at most (0 = gathered_layers)"},
        {"workspace", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "32 MiB", NULL, FK(workspace_bytes),
         "the framework's own cuBLAS workspace beside PyTorch's (torch_workspaces): "
         "Transformer Engine's; 0 where every GEMM goes through PyTorch"},
        {"workspace_pre_hopper", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "0 B", NULL,
         FK(workspace_pre_hopper_bytes),
         "workspace on GPUs before compute capability 9.0 (the GPU's compute_capability); "
         "0 = workspace"},
        {"scores_buffer", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(scores_buffer),
         "the unfused attention writes QK^T into a persistent buffer of b a s^2 / t elements "
         "kept between steps (Megatron-Core's --transformer-impl local)"},
        {"torch_workspaces", CONF_INT, SIM_UNIT_NONE, 0, 64, "2", NULL, FK(torch_workspaces),
         "PyTorch's cuBLAS workspaces: one per (thread, stream) running a PyTorch GEMM; "
         "training: the forward's main thread and autograd's backward thread"},
        {"torch_workspace", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "32 MiB", NULL,
         FK(torch_workspace_bytes),
         "each PyTorch cuBLAS workspace (CUBLAS_WORKSPACE_CONFIG; 32 MiB: :4096:8, Hopper's "
         "default)"},
        {"tp_overlap_workspace", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "96 MiB", NULL,
         FK(tp_overlap_workspace_bytes),
         "allocated beside them under tp_comm_overlap: the cuBLAS workspace of the GEMMs that "
         "overlap a TP collective (Transformer Engine: 3 streams x 32 MiB)"},
        {"cuda_context", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "0.47 GiB", NULL, FK(context_bytes),
         "CUDA context and loaded kernels, outside the allocator"},
        {"nccl_context", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "1.28 GiB", NULL, FK(nccl_bytes),
         "NCCL's module and state once a rank is in any communicator, outside the allocator"},
        {"nccl_buffers", CONF_QTY, SIM_UNIT_BYTES, 0, 1e12, "0.17 GiB", NULL, FK(comm_bytes),
         "NCCL's buffers per communicator, outside the allocator"},
        {"allocator_overhead", CONF_REAL, SIM_UNIT_NONE, 0, 4, "0.177", NULL,
         FK(allocator_overhead),
         "reserved / allocated - 1: the caching allocator's cached blocks at the peak"},
        {"offload_fill", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0", NULL, FK(offload_fill),
         "with the optimizer offloaded, the fraction of the HBM left over that the framework "
         "fills with states anyway (0 = what it needs)"},
        {"offload_copy_pool", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(offload_copy_pool),
         "under offload_params the shards copied in before each all-gather go through a "
         "stream of their own whose cached block stays reserved (FSDP1's pre-unshard stream)"},
        {"checkpoint_shards", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(checkpoint_shards),
         "saving a checkpoint copies every parameter's local shard to the GPU beside the "
         "weights, the root unit gathered (FSDP1 SHARDED_STATE_DICT without offload_to_cpu): "
         "a peak after the step"},
        {"checkpoint_offload", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
         FK(checkpoint_offload),
         "with checkpoint_shards: save a full state dict instead, each unit gathered in turn "
         "and copied to the CPU (FULL_STATE_DICT with offload_to_cpu, rank0_only): no shard "
         "copies on the GPU"},
        {"backward_grads", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(backward_grads),
         "each backward leaves the 16-bit .grad of the stage's parameters, added into the "
         "persistent buffer and freed when the backward ends (nanotron's fp32 accumulator)"},
        {"sp_gather_buffers", CONF_INT, SIM_UNIT_NONE, 0, 8, "0", NULL, FK(sp_gather_buffers),
         "persistent buffers of a micro-batch's gathered s x b x h activations under sequence "
         "parallelism (nanotron's MemoryBuffer)"},
        {"p2p_buffers", CONF_INT, SIM_UNIT_NONE, 0, 8, "4", NULL, FK(p2p_buffers),
         "pipeline activations and gradients of s x b x h a stage holds beside its saved "
         "tensors (sent, received)"},
        {"step_param_copies", CONF_REAL, SIM_UNIT_NONE, 0, 8, "0", NULL, FK(step_param_copies),
         "16-bit copies of the stage's parameters the ZeRO-1 step's parameter all-gather "
         "allocates beside the flat shard (0 = gathers in place)"},
        {"comm_groups", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, FK(comm_groups),
         "communicators beyond the plan's parallel groups, each with its NCCL buffers: default "
         "(a barrier), world (a second all-ranks group), pp (the whole pipeline group), mp "
         "(tp x pp)"},
        /* per-micro-batch costs (issue 23): keep this block last */
        {"layer_kernels", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", layer_names,
         FK(layer_kernels),
         "kernels a dense layer, the embedding and the loss launch: fused (Megatron-Core with "
         "Transformer Engine), or the eager model code of nanotron (Llama), mpt (llm-foundry), "
         "fms (foundation-model-stack's LLaMA) or hf-llama (transformers' Llama)"},
        {"grad_accum", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", accum_names, FK(grad_accum),
         "gradient accumulation: fused into the wgrad GEMMs, kernel (an add per parameter "
         "tensor after every micro-batch's backward) or autograd (PyTorch's AccumulateGrad "
         "into param.grad from the second micro-batch, or with fp32 gradients over 16-bit "
         "parameters a cast and add into the fp32 buffer every micro-batch: DeepSpeed's "
         "BF16_Optimizer; ZeRO-0/1) or kernel-fp16 (kernel for 16-bit gradients, fused for "
         "fp32: Megatron-LM 2022)"},
        {"p2p_handshakes", CONF_INT, SIM_UNIT_NONE, 0, 16, "0", NULL, FK(p2p_handshakes),
         "metadata messages exchanged before each pipeline tensor"},
        {"p2p_host_ops", CONF_INT, SIM_UNIT_NONE, 0, 1000, "0", NULL, FK(p2p_host_ops),
         "host operations (synchronisations, copies) on the critical path of each pipeline "
         "tensor"},
        {"p2p_fwd_tensors", CONF_INT, SIM_UNIT_NONE, 1, 16, "1", NULL, FK(p2p_fwd_tensors),
         "tensors a forward pipeline transfer carries (each with its handshakes)"},
        {"zero_one_bucket", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(zero_one_bucket),
         "with ZeRO >= 1 the gradients are reduced in one collective after the backward, "
         "whatever overlap_grad_reduce says"},
        {"runs_few_microbatches", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(few_microbatches), "runs 1F1B with fewer than pp - 1 micro-batches"},
        {"runs_kv_heads_below_tp", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL,
         FK(kv_heads_below_tp),
         "runs tp larger than the model's kv_heads (each rank repeating a K/V head)"},
        {"comm_host_op", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(comm_host_op),
         "each collective inside a layer costs the host one operation (launch + op_overhead) "
         "before the kernels after it"},
        {"p2p_serial", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, FK(p2p_serial),
         "synchronous 1F1B: a stage sends its gradient only after receiving the next "
         "activation (one blocking transfer at a time) instead of both at once"},
};
const size_t plan_framework_nkeys = sizeof plan_framework_keys / sizeof plan_framework_keys[0];

static const conf_flag sched_bits[] = {
        {"gpipe", PLAN_FW_GPIPE},
        {"1f1b", PLAN_FW_1F1B},
        {"interleaved", PLAN_FW_INTERLEAVED},
        {"zb-h1", PLAN_FW_ZB_H1},
        {"interleaved-zb", PLAN_FW_INTERLEAVED_ZB},
        {"zbv", PLAN_FW_ZBV},
        {"looped-bfs", PLAN_FW_LOOPED_BFS},
        {"dualpipev", PLAN_FW_DUALPIPEV},
};

void plan_framework_all_schedules(char *out, size_t len)
{
	size_t n = 0;
	if (len)
		out[0] = '\0';
	for (size_t i = 0; i < sizeof sched_bits / sizeof sched_bits[0] && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", sched_bits[i].name);
}

static const conf_flag comm_bits[] = {
        {"default", PLAN_COMM_DEFAULT},
        {"world", PLAN_COMM_WORLD},
        {"pp", PLAN_COMM_PP},
        {"mp", PLAN_COMM_MP},
};

int plan_framework_from_conf(const conf_doc *doc, plan_framework *out, sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int rc = conf_read(doc, "framework", plan_framework_keys, plan_framework_nkeys, out, true,
	                   diag);
	if (rc != SIM_OK)
		return rc;
	char bad[48] = "";
	if (conf_flags_parse(out->schedules, sched_bits, sizeof sched_bits / sizeof sched_bits[0],
	                     &out->sched_mask, bad, sizeof bad) != SIM_OK ||
	    !out->sched_mask) {
		conf_loc loc = conf_key_loc(doc, "framework", "runs_schedules");
		sim_diag_error(diag, loc.path, loc.line,
		               "runs_schedules = '%s': '%s' is not a schedule (gpipe, 1f1b, "
		               "interleaved, zb-h1, interleaved-zb, zbv, looped-bfs, dualpipev)",
		               out->schedules, bad[0] ? bad : out->schedules);
		return SIM_ECONF;
	}
	if (conf_flags_parse(out->comm_groups, comm_bits, sizeof comm_bits / sizeof comm_bits[0],
	                     &out->comm_mask, bad, sizeof bad) != SIM_OK) { /* empty is none */
		conf_loc loc = conf_key_loc(doc, "framework", "comm_groups");
		sim_diag_error(diag, loc.path, loc.line,
		               "comm_groups = '%s': '%s' is not a group (default, world, pp, mp)",
		               out->comm_groups, bad);
		return SIM_ECONF;
	}
	if (out->zero_max_pp > out->zero_max) {
		conf_loc loc = conf_key_loc(doc, "framework", "runs_zero_with_pp");
		sim_diag_error(diag, loc.path, loc.line,
		               "runs_zero_with_pp = %d exceeds runs_zero = %d", out->zero_max_pp,
		               out->zero_max);
		return SIM_ECONF;
	}
	return SIM_OK;
}

/* An error at the user's [parallel] (or [train]) key, then a note at the
 * framework key that makes the rule (the profile file's line, or the
 * default profile's name when the scenario names none). */
static void rule_error(const plan_scenario *s, sim_diag *diag, const char *section, const char *key,
                       const char *rule, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

static void rule_error(const plan_scenario *s, sim_diag *diag, const char *section, const char *key,
                       const char *rule, const char *fmt, ...)
{
	conf_loc loc = conf_key_loc(s->doc, section, key);
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sim_diag_error(diag, loc.path, loc.line, "%s: framework '%s' does not run it (rule %s)",
	               msg, s->fw.name, rule);
	if (conf_get(s->doc, "framework", rule, NULL)) {
		conf_loc r = conf_key_loc(s->doc, "framework", rule);
		sim_diag_note(diag, r.path, r.line, "the rule is set here");
	} else {
		sim_diag_note(diag, loc.path, loc.line,
		              "the scenario names no [framework]: the default profile is "
		              "topologies/frameworks/megatron-core.ini; include another profile "
		              "(topologies/frameworks/) for other rules");
	}
}

static const char *sched_name(const plan_spec *p, unsigned *bit)
{
	if (p->schedule == PLAN_SCHED_GPIPE)
		return *bit = PLAN_FW_GPIPE, "gpipe";
	if (p->schedule == PLAN_SCHED_ZBV)
		return *bit = PLAN_FW_ZBV, "zbv";
	if (p->schedule == PLAN_SCHED_LOOPED_BFS)
		return *bit = PLAN_FW_LOOPED_BFS, "looped-bfs";
	if (p->schedule == PLAN_SCHED_DUALPIPEV)
		return *bit = PLAN_FW_DUALPIPEV, "dualpipev";
	if (p->schedule == PLAN_SCHED_ZB_H1 && p->vpp > 1)
		return *bit = PLAN_FW_INTERLEAVED_ZB, "interleaved zb-h1";
	if (p->schedule == PLAN_SCHED_ZB_H1)
		return *bit = PLAN_FW_ZB_H1, "zb-h1";
	if (p->vpp > 1)
		return *bit = PLAN_FW_INTERLEAVED, "interleaved 1f1b";
	return *bit = PLAN_FW_1F1B, "1f1b";
}

/* The rules of the per-micro-batch block: a 1F1B engine that needs pp - 1
 * micro-batches (nanotron asserts it: parallel/pipeline_parallel/
 * engine.py:236-238 at 0e0a27ea), and the eager layer codes: none has
 * experts (nanotron's, FMS's and HF's Llama decoder layers, llm-foundry's
 * MPTBlock with its dense FFNs); nanotron always attends with flash-attn's
 * varlen kernel (models/llama.py:286), FMS with SDPA (fms/modules/
 * attention.py:203 at 006bd7ed), the llm-foundry benchmarks with its Triton
 * kernel (attn_impl triton: scripts/train/benchmarking/submit_benchmarks.py:
 * 144 at 5e85bd62); HF Llama's eager attention is the unfused path. */
static const char *no_unfused(int code)
{
	switch (code) {
	case WORK_LAYER_NANOTRON:
		return "its Llama layer attends with flash-attn";
	case WORK_LAYER_MPT:
		return "the llm-foundry benchmarks attend with its Triton flash kernel";
	case WORK_LAYER_FMS:
		return "its attention is PyTorch SDPA's fused kernel";
	default:
		return NULL;
	}
}

static int check_microbatch_rules(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0, m = plan_microbatches(p);
	if (!s->fw.few_microbatches && p->pp > 1 && !plan_sched_all_fwd(p->schedule) &&
	    !s->inference && m < p->pp - 1) {
		rule_error(s, diag, "parallel", "global_batch", "runs_few_microbatches",
		           "%d micro-batches with pp = %d under 1F1B (it needs at least pp - 1 = %d)",
		           m, p->pp, p->pp - 1);
		errors++;
	}
	int g = s->model.kv_heads > 0 ? s->model.kv_heads : s->model.heads;
	if (!s->fw.kv_heads_below_tp && p->tp > 1 && g % p->tp != 0) {
		rule_error(s, diag, "parallel", "tp", "runs_kv_heads_below_tp",
		           "tp = %d with the model's %d kv_heads (it splits whole K/V heads over the "
		           "TP ranks: kv_heads must be a multiple of tp)",
		           p->tp, g);
		errors++;
	}
	int code = s->fw.layer_kernels;
	if (code != WORK_LAYER_FUSED && s->model.moe_experts > 0) {
		rule_error(s, diag, "model", "moe_experts", "layer_kernels",
		           "a mixture-of-experts model (%s)",
		           code == WORK_LAYER_MPT ? "its MPT block has dense FFNs only"
		                                  : "its Llama layer code has no experts");
		errors++;
	}
	if (!s->flash && no_unfused(code)) {
		rule_error(s, diag, "train", "attention", "layer_kernels",
		           "unfused attention (%s)", no_unfused(code));
		errors++;
	}
	return errors;
}

int plan_check_framework(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	const plan_framework *f = &s->fw;
	int errors = 0;
	unsigned bit;
	const char *sched = sched_name(p, &bit);
	if (p->pp > 1 && !(f->sched_mask & bit)) {
		rule_error(s, diag, "parallel", bit == PLAN_FW_INTERLEAVED ? "vpp" : "schedule",
		           "runs_schedules", "the %s schedule (it runs %s)", sched, f->schedules);
		errors++;
	}
	if (p->zero > f->zero_max) {
		rule_error(s, diag, "parallel", "zero", "runs_zero",
		           "zero = %d (it runs ZeRO stages up to %d)", p->zero, f->zero_max);
		errors++;
	} else if (p->pp > 1 && p->zero > f->zero_max_pp) {
		rule_error(s, diag, "parallel", "zero", "runs_zero_with_pp",
		           "zero = %d with pp = %d (it runs ZeRO stages up to %d with a pipeline)",
		           p->zero, p->pp, f->zero_max_pp);
		errors++;
	}
	static const struct {
		const char *key, *rule, *what;
		size_t flag; /* offsetof(plan_framework, ...) */
	} feats[] = {
	        {"tp", "runs_tp", "tensor parallelism", offsetof(plan_framework, tp)},
	        {"sequence_parallel", "runs_sequence_parallel", "sequence parallelism",
	         offsetof(plan_framework, sp)},
	        {"cp", "runs_cp", "context parallelism", offsetof(plan_framework, cp)},
	        {"ep", "runs_ep", "expert parallelism", offsetof(plan_framework, ep)},
	        {"tp_comm_overlap", "runs_tp_comm_overlap", "tp_comm_overlap",
	         offsetof(plan_framework, tp_comm_overlap)},
	        {"moe_a2a_overlap", "runs_moe_a2a_overlap", "moe_a2a_overlap",
	         offsetof(plan_framework, moe_a2a_overlap)},
	        {"vp_group", "runs_vp_group",
	         "interleaved micro-batch groups other than pp (vp_group; Megatron-Core's "
	         "--microbatch-group-size-per-virtual-pipeline-stage)",
	         offsetof(plan_framework, vp_group)},
	        {"offload_optimizer", "runs_offload_optimizer", "optimizer offloading",
	         offsetof(plan_framework, offload_optimizer)},
	        {"offload_params", "runs_offload_params", "parameter offloading",
	         offsetof(plan_framework, offload_params)},
	        {"shard_size", "runs_hybrid_shard", "hybrid sharding",
	         offsetof(plan_framework, hybrid_shard)},
	        {"zero_hpz", "runs_zeropp", "ZeRO++ hpZ (zero_hpz)", offsetof(plan_framework, zeropp)},
	        {"zero_quantized_weights", "runs_zeropp", "ZeRO++ qwZ (zero_quantized_weights)",
	         offsetof(plan_framework, zeropp)},
	        {"zero_quantized_gradients", "runs_zeropp", "ZeRO++ qgZ (zero_quantized_gradients)",
	         offsetof(plan_framework, zeropp)},
	        {"overlap_grad_reduce", "runs_overlap_grad_reduce",
	         "overlap_grad_reduce (a data-parallel reduction during the backward)",
	         offsetof(plan_framework, overlap_grad_reduce)},
	        {"overlap_param_gather", "runs_overlap_grad_reduce",
	         "overlap_param_gather (its gathers are the overlapped reduction's buckets)",
	         offsetof(plan_framework, overlap_grad_reduce)},
	        {"overlap_grad_reduce", "runs_overlap_grad_reduce_with_pp",
	         "overlap_grad_reduce with a pipeline",
	         offsetof(plan_framework, overlap_grad_reduce_pp)},
	        {"recompute", "runs_selective_recompute",
	         "recompute = selective (per-module recomputation; it recomputes whole layers: "
	         "recompute = full, of some layers with recompute_layers)",
	         offsetof(plan_framework, selective_recompute)},
	};
	bool used[] = {p->tp > 1,
	               p->tp > 1 && p->sequence_parallel,
	               p->cp > 1,
	               p->ep > 1,
	               p->tp_comm_overlap,
	               p->moe_a2a_overlap,
	               p->vpp > 1 && p->vp_group > 0 && p->vp_group != p->pp &&
	                       p->schedule != PLAN_SCHED_LOOPED_BFS,
	               p->offload_optimizer != PLAN_OFFLOAD_NONE && !s->inference,
	               p->offload_params != PLAN_OFFLOAD_NONE,
	               p->shard_size > 0 && p->shard_size < p->dp * p->cp,
	               p->zero_hpz > 1,
	               p->zero_qw,
	               p->zero_qg,
	               p->overlap_grad_reduce && !s->inference,
	               p->overlap_param_gather && !s->inference,
	               p->overlap_grad_reduce && p->pp > 1 && !s->inference,
	               p->recompute == WORK_RECOMPUTE_SELECTIVE};
	errors += check_microbatch_rules(s, diag);
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++) {
		bool runs;
		memcpy(&runs, (const char *)f + feats[i].flag, sizeof runs);
		if (used[i] && !runs) {
			rule_error(s, diag, "parallel", feats[i].key, feats[i].rule, "%s",
			           feats[i].what);
			errors++;
		}
	}
	return errors;
}

const char *plan_grad_accum_name(int accum)
{
	return accum >= PLAN_ACCUM_FUSED && accum <= PLAN_ACCUM_KERNEL_FP16 ? accum_names[accum]
	                                                                    : "?";
}

const char *plan_grad_dtype_name(int rule)
{
	return rule >= PLAN_GRAD_FP32 && rule <= PLAN_GRAD_PARAMS_UNLESS_BF16_ZERO0 ? grad_dtype_names[rule]
	                                                                    : "?";
}

bool plan_grad_fp32(int rule, hw_dtype precision, int zero)
{
	if (precision == HW_FP32 || precision == HW_TF32)
		return true;
	switch (rule) {
	case PLAN_GRAD_PARAMS:
		return false;
	case PLAN_GRAD_PARAMS_UNLESS_BF16_ZERO0: /* fp8 trains bf16 parameters */
		return precision != HW_FP16 && zero == 0;
	case PLAN_GRAD_FP32_UNLESS_FP16:
		return precision != HW_FP16;
	default:
		return true;
	}
}

bool plan_grad_reduce_microbatch(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	return p->zero == 2 && s->fw.zero2_reduce == PLAN_REDUCE_MICROBATCH && !s->inference &&
	       plan_microbatches(p) > 1 && p->offload_optimizer == PLAN_OFFLOAD_NONE;
}

bool plan_zero3_pp_gathered(const plan_scenario *s)
{
	return s->fw.zero3_pp_gathered && s->plan.pp > 1 && s->plan.zero >= 3 && !s->inference;
}

bool plan_zero3_unsharded_acc(const plan_scenario *s)
{
	return (s->fw.accumulate_unsharded || plan_zero3_pp_gathered(s)) &&
	       plan_microbatches(&s->plan) > 1;
}

bool plan_grads_sharded(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	if (p->zero >= 3)
		return true;
	return p->zero == 2 && (plan_microbatches(p) == 1 || plan_grad_reduce_microbatch(s));
}

/* Transformer Engine sizes its cuBLAS workspace by the device's major
 * compute capability: 32 MiB + 1 KiB from 9 (Hopper) on, 4 MiB before
 * (TransformerEngine d0067d0d pytorch/cpp_extensions/gemm.py:40-45), and the
 * userbuffer GEMMs' at 3 of them (:48-56). Megatron-LM's golden
 * mem-allocated-bytes of one TE test differ by that 28 MiB (+ 1 KiB) between
 * H100 and A100: 581,489,664 and 552,128,512 B (gpt3_mcore_te_tp1_pp1_dist_
 * optimizer_no_mmap_bin_files, d98e8a64), the same model and plan. */
double plan_workspace_bytes(const plan_framework *fw, const hw_gpu *g, double *tp_overlap)
{
	bool pre = g->compute_capability > 0 && g->compute_capability < 9.0 &&
	           fw->workspace_pre_hopper_bytes > 0;
	double ws = pre ? fw->workspace_pre_hopper_bytes : fw->workspace_bytes;
	if (tp_overlap)
		*tp_overlap = fw->tp_overlap_workspace_bytes *
		              (pre && fw->workspace_bytes > 0 ? ws / fw->workspace_bytes : 1.0);
	return ws;
}

double plan_bucket_bytes(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	if (p->bucket_bytes > 0)
		return p->bucket_bytes;
	double g = plan_grad_bytes(s);
	double dpg = (double)p->dp * (p->cp > 1 ? p->cp : 1);
	double n = s->fw.grad_bucket_per_dp * dpg;
	n = n > s->fw.grad_bucket ? n : s->fw.grad_bucket;
	return n > 0 ? n * g : 1e300; /* 0: one bucket */
}

/* FSDP1's post-backward work on a unit's unsharded gradient G (n elements in
 * the training dtype, e bytes each), before the reduce-scatter, on the
 * unit's post-backward stream after its backward (torch 1.13.1,
 * torch/distributed/fsdp/fully_sharded_data_parallel.py:3191-3355,
 * _post_backward_hook; Debian python3-torch 1.13.1+dfsg-4, the release in
 * llm-foundry's benchmark image, scripts/train/benchmarking/
 * submit_benchmarks.py:48-50 at mosaicml/llm-foundry b2a43a14):
 *   cast     with a reduce dtype wider than the parameters' (MixedPrecision
 *            reduce_dtype fp32 over param_dtype bf16: Composer's DEFAULT,
 *            composer/trainer/mosaic_fsdp_utils.py:87-90 at v0.16.4;
 *            [parallel] fp32_grads) `param.grad.data.to(reduce_dtype)`
 *            (:3263): read e, write r (r = 4, else r = e and no cast)
 *   pad      `F.pad(grad_flatten, [0, num_pad])` (:3296) copies the whole
 *            gradient even when num_pad = 0 (ATen's constant_pad_nd returns
 *            a clone when no pad is positive): read r, write r
 *   divide   the default hook's pre-division, in place
 *            (algorithms/_comm_hooks/default_hooks.py reduce_scatter_hook:
 *            grad.div_(gradient_predivide_factor)), a factor > 1 for any
 *            world size >= 2 (_get_gradient_predivide_factor: the largest
 *            power of two f with f^2 <= world): read r, write r
 * so (e + r if cast) + 2r + 2r bytes per element with the pad (fsdp1-pad:
 * 22 for DEFAULT, 8 for Composer's PURE, where the gradient stays bf16),
 * without it (fsdp1: PyTorch releases that pad only when needed) 2r less.
 * What follows on the reduced 1/world shard (post-division, the
 * accumulation into _saved_grad_shard) is not counted.
 *
 * Before all of it the unsharded gradient is assembled on the compute stream
 * (plan_fsdp_flat_grad_bytes): each forward re-creates the unit's parameters
 * as views into its FlatParameter, torch.split then .view
 * (flat_param.py:944-992, _get_unflat_views, called by _unflatten(as_params
 * = False) before every forward, flatten_params_wrapper.py:162-165), so in
 * the backward autograd's SplitBackward concatenates the views' gradients
 * into the FlatParameter's (at::cat in split_with_sizes_backward): read e,
 * write e per element, once the unit's last weight gradient exists. */
double plan_fsdp_flat_grad_bytes(const plan_scenario *s)
{
	int k;
	if (!(plan_fsdp_reduce_bytes(s, &k) > 0))
		return 0;
	return 2.0 * hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
}

/* PyTorch's non-reentrant checkpoint (torch.utils.checkpoint with
 * use_reentrant = False, which checkpoint_wrapper's NO_REENTRANT calls:
 * torch 2.6.0 distributed/algorithms/_checkpoint/checkpoint_wrapper.py:
 * 12, 130-135) re-runs the block's forward in the backward under a
 * saved-tensors hook that counts what it packs, and with early stop (on by
 * default, _enable_checkpoint_early_stop = True, utils/checkpoint.py:735;
 * passed to the frame at :1520-1525) raises _StopRecomputationError once
 * it has packed as many tensors as the forward saved (:1084-1087), which
 * ends the recomputation (:1121-1127). Autograd saves an operation's
 * inputs when it records the node, before the kernel runs: the generated
 * VariableType code saves the inputs in setup_derivative, then calls the
 * kernel, then saves the outputs (torchgen/packaged/autograd/
 * gen_variable_type.py:1286, 2148-2150, 2166-2168 in 2.6.0), so the
 * forward's last tensor-saving operation stops the replay
 * before its own kernel: in a transformer block that is the MLP's down
 * projection (its input and weight saved for its gradients), and the
 * residual add after it saves nothing. So the recomputation is the
 * forward's items before its last GEMM. The rule needs the layer's last
 * GEMM to be its last saving operation (a dropout after it would save its
 * mask): fms-fsdp's LLaMA block runs none (p_dropout 0). Read in 2.6.0
 * (Debian python3-torch 2.6.0+dfsg-7); torch 1.13.1's utils/checkpoint.py
 * (Debian 1.13.1+dfsg-4) has no early stop and replays the whole forward,
 * so a profile of 1.13 (llm-foundry's) keeps the key off. */
int plan_recompute_items(const plan_scenario *s, const work_item *f, int n)
{
	if (!s->fw.recompute_early_stop)
		return n;
	for (int i = n - 1; i >= 0; i--)
		if (f[i].kind == WORK_ITEM_KERNEL && f[i].kernel == WORK_KERNEL_GEMM)
			return i;
	return n;
}

/* FSDP1's MixedPrecision around the collectives, on a unit's shard of n/w
 * elements (w the shard group), each a memory-bound kernel on a side stream
 * ([framework] fsdp_casts). Before every all-gather, forward or backward,
 * FSDP's pre-unshard stream casts the fp32 shard to param_dtype
 * (_use_low_precision_shard: `_mp_shard.copy_(_local_shard)`, "copy_()
 * implicitly casts to the low precision"; torch 2.6.0 _flat_param.py:
 * 1305-1330, 1.13.1 flat_param.py:637-654, the pre_all_gather stream of
 * fully_sharded_data_parallel.py:1557), and the all-gather's stream waits
 * for it (2.6.0 _runtime_utils.py:289-292, unshard_stream.wait_stream(
 * pre_unshard_stream)): read 4, write e = 2 bytes per shard element, under
 * the mixed policy with param_master (the fp32 shard is the parameter) and a
 * 16-bit training dtype; otherwise the shard is gathered as it is. After the
 * reduce-scatter, on the post-backward stream, the reduced shard is cast
 * back to the parameter's dtype when the reduce dtype differs
 * (_cast_grad_to_param_dtype, 2.6.0 _runtime_utils.py:1020-1045, called at
 * :897; 1.13.1 fully_sharded_data_parallel.py:3300, 3357-3381): read r,
 * write 4 with r = 2 (fp32_grads false); and where it has a saved shard from
 * an earlier micro-batch of the step (no no_sync), `_saved_grad_shard +=
 * sharded_grad` (2.6.0 _runtime_utils.py:905-911; 1.13.1 :3307-3321): read
 * 4 + 4, write 4. Neither follows the reduction's own kernels (pre- and
 * post-division, plan_fsdp_reduce_bytes). FSDP2 casts and accumulates the
 * same way in its own code (not checked: torchtitan keeps the key off). */
double plan_fsdp_gather_cast_bytes(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	if (!s->fw.fsdp_casts || p->zero < 3 || s->inference || fp32 ||
	    (double)p->dp * (p->cp > 1 ? p->cp : 1) <= 1)
		return 0;
	if (s->train.policy != PLAN_POLICY_MIXED || !s->fw.param_master)
		return 0;
	return 4.0 + hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
}

double plan_fsdp_post_reduce_bytes(const plan_scenario *s, bool later)
{
	const plan_spec *p = &s->plan;
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	if (!s->fw.fsdp_casts || p->zero < 3 || s->inference ||
	    (double)p->dp * (p->cp > 1 ? p->cp : 1) <= 1)
		return 0;
	/* the parameter's width: fp32 under mixed with param_master and amp,
	 * the training dtype under pure */
	bool wide = fp32 || s->train.policy == PLAN_POLICY_AMP ||
	            (s->train.policy == PLAN_POLICY_MIXED && s->fw.param_master);
	double pw = wide ? 4.0 : hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	double r = plan_zero3_wire_bytes(s); /* the reduce dtype: 4 with fp32_grads or fp32/tf32 */
	double cast = r < pw ? r + pw : 0;
	return cast + (later ? 3.0 * pw : 0);
}

double plan_fsdp_reduce_bytes(const plan_scenario *s, int *kernels)
{
	const plan_spec *p = &s->plan;
	int mode = s->fw.fsdp_reduce;
	if (kernels)
		*kernels = 0;
	if (mode == PLAN_FSDP_REDUCE_NONE || p->zero < 3 || s->inference ||
	    (double)p->dp * (p->cp > 1 ? p->cp : 1) <= 1)
		return 0;
	double e = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	double r = plan_zero3_wire_bytes(s); /* the reduce dtype: 4 with fp32_grads or fp32/tf32 */
	bool cast = r > e, pad = mode == PLAN_FSDP_REDUCE_FSDP1_PAD;
	if (kernels)
		*kernels = cast + pad + 1;
	return (cast ? e + r : 0) + (pad ? 2.0 * r : 0) + 2.0 * r;
}

/* ZeRO-3's gradient wire and the casts around it (plan.h). What the
 * frameworks reduce, read in their code:
 *   DeepSpeed ZeRO-3 (grad_wire_dtype = params): each bucket's tensors are
 *     the parameters' own param.grad, in the model's dtype (self.dtype, the
 *     first parameter's: zero/stage3.py:189 at microsoft/DeepSpeed 38327e07);
 *     __avg_scatter_grads casts them to communication_data_type only where
 *     it differs from that dtype and casts the reduced partitions back
 *     (zero/stage3.py:1372-1400); communication_data_type defaults to the
 *     training dtype, fp16 or bf16, else fp32 (engine.py:938-950). The
 *     partition is then copied or added into the gradient partition buffer
 *     of gradient_accumulation_dtype (partition_grads, stage3.py:1466-1492:
 *     1/n of the gradient, not charged), so fp32_grads widens the buffer,
 *     never the wire: w = e, no cast.
 *   PyTorch FSDP (grad_wire_dtype = grads, fp32_grads = MixedPrecision's
 *     reduce_dtype): FSDP1 casts the unsharded param.grad (param_dtype) to
 *     reduce_dtype in the post-backward hook, reduce-scatters, and casts
 *     the shard back to the parameter's dtype (torch 2.6.0 fsdp/
 *     _runtime_utils.py:745-754, _cast_grad_to_param_dtype :1020-1045;
 *     counted by fsdp_reduce_passes and fsdp_casts where a profile sets
 *     them); FSDP2's
 *     foreach_reduce copies the gradients into a reduce-scatter input of
 *     reduce_dtype (the cast in the copy-in, read e and write r), reduce-
 *     scatters it, and casts the output to the parameter's dtype where they
 *     differ (torch 2.6.0 distributed/fsdp/_fully_shard/_fsdp_collectives.py:
 *     352-375, 390-395, 427; Debian 2.6.0+dfsg-7). reduce_dtype left None
 *     takes param_dtype (fsdp/api.py:123-129; FSDP2's foreach_reduce, :353,
 *     reduce_dtype or the gradients' dtype): r = e, no cast.
 *   Megatron-FSDP (grads = persistent): the weight gradients land in the
 *     main_grad buffer of the reduce dtype and are reduce-scattered into its
 *     shard: nothing to cast.
 * So with w = plan_zero3_wire_bytes: before the collective the source dtype
 * is the buffer's g under grads = persistent, else the gathered parameter's
 * (plan_param_gather_bytes: 16 bits under mixed or pure, 4 under amp or
 * fp32), cast (read it, write w) where it differs from w; after it the kept
 * gradient's dtype is g under persistent, else the stored parameter's
 * (plan_param_bytes' w: fp32 where param_master or amp keep fp32
 * parameters), cast (read w, write it) where it differs from w. Under
 * params the wire is the source dtype and the partition is copied as it is:
 * none. bf16 with reduce_dtype fp32 (torchtitan's default): 2 + 4 = 6 B per
 * unsharded element before, nothing after (the fp32 parameter takes the
 * fp32 shard). */
double plan_zero3_gather_width(const plan_scenario *s)
{
	return s->dtype == HW_FP32 || s->dtype == HW_TF32 ? 4.0 : 2.0;
}

double plan_zero3_wire_bytes(const plan_scenario *s)
{
	return plan_grad_wire_bytes(s, plan_grad_bytes(s));
}

double plan_zero3_cast_bytes(const plan_scenario *s, bool after)
{
	const plan_spec *p = &s->plan;
	if (p->zero < 3 || s->inference || (double)p->dp * (p->cp > 1 ? p->cp : 1) <= 1 ||
	    s->fw.grad_wire == PLAN_WIRE_PARAMS)
		return 0;
	double w = plan_zero3_wire_bytes(s), g = plan_grad_bytes(s);
	bool buffer = s->fw.grads == PLAN_GRADS_PERSISTENT;
	if (!after) {
		double e = buffer ? g : plan_param_gather_bytes(s);
		return e != w && s->fw.fsdp_reduce == PLAN_FSDP_REDUCE_NONE ? e + w : 0;
	}
	double k, gg, o, paged;
	plan_param_bytes(s, &k, &gg, &o, &paged);
	k = buffer ? g : k;
	return k != w && !s->fw.fsdp_casts ? w + k : 0;
}
