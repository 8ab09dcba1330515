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
 *   backward     and unsharded embedding and output layer; FSDP
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
 *                copy of every parameter's local shard and the gathered
 *                root unit (save_moment)
 * Candidates: after each forward (the loss forward included), at each
 * backward's start (the loss backward) and over its layers (the larger of
 * its start and end, the working set throughout), and the optimizer step;
 * the peak is the largest. Gradients and activations therefore peak
 * together only when gradients outlive a backward (accumulation, pipelines,
 * persistent buffers): torchtune's single step peaks at the optimizer
 * (memory.csv MC04), ATorch's FSDP steps at the loss (MH02: the gradients'
 * 4 B/param are not in the measured DP scaling of 12 B/param).
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
#include "plan.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything the walk needs about one stage, sized once. */
typedef struct mw {
	const plan_scenario *s;
	int stage, m, vpp, nops;
	bool last;
	plan_budget b;
	double shards, eshards, dpg;
	double T; /* tokens per micro-batch on this rank */
	/* always */
	double weights, frozen, states, grad_buf, grad_copy, buckets, p2p, workspace, torch_ws,
	        ub_workspace, gather, scores;
	/* forward and backward */
	double gathered, cache;
	/* per chunk and micro-batch */
	double *act;     /* kept per chunk (activations + K/V + mask) */
	double *gc;      /* gradients a chunk's first backward leaves */
	double *g16;     /* 16-bit gradients each backward of a chunk leaves until
	                  * it ends (backward_grads) */
	double kv, mask; /* of those, per micro-batch (stage) */
	double loss_fwd, loss_kept, loss_bwd, loss_held;
	double work;       /* a recomputed layer's working set */
	double bwd_grads;  /* a layer's activation gradients in its backward */
	double dequant;    /* a 4-bit linear's weight dequantised for its GEMM */
	double layer_grad; /* one layer's unsharded gradients in its backward */
	double grads_step; /* gradients at the optimizer step */
	double temps, step_fp32, step_gather;
	double save_copy, save_root; /* the checkpoint's shard copies, gathered root */
	double pre_pool;    /* offload_copy_pool: the shard-copy stream's cached block */
	double idle_gather; /* the step's gathered layers, cached on the all-gather stream */
	double runtime, context, nccl, comms, paged;
	int ncomms;
	plan_op *ops;
} mw;

/* What chunk c of the stage keeps per micro-batch when full recomputation
 * covers only some of its layers (recompute_layers, plan_layer_recomputed):
 * a recomputed layer its input (kept[k], k its kind: dense layers first,
 * `ndense` of them), every other layer what it saves (full[k]), a frozen one
 * nothing; each its returned K/V (w->kv). Raises w->work to the working set
 * a recomputed layer adds in the backward beyond the chunk's kept bytes at
 * the backward's start: its saved tensors, less what the layers after it,
 * whose backwards ran before, kept whole and freed. With L layers
 * of one kind, k recomputed: k x kept + (L - k) x full; the working set is
 * full where the chunk's last layer is recomputed (all of them, or spread:
 * the last of each period, fms-fsdp's every second block), none under
 * Megatron's block method with k < L (its recomputed layers come after
 * L - k whole ones, freed). */
static double partial_chunk(const plan_scenario *s, int stage, int c, const double kept[2],
                            const double full[2], mw *w, int ndense)
{
	int l0, n = plan_chunk_layers(s, stage, c, &l0);
	double a = 0, freed = 0;
	for (int l = n - 1; l >= 0; l--) { /* in the backward's order */
		int k = l < ndense ? 0 : 1;
		bool r = plan_layer_recomputed(&s->plan, n, l);
		a += w->kv;
		if (plan_layer_frozen(s, plan_global_layer(s, stage, l0 + l)))
			continue;
		a += r ? kept[k] : s->train.activation_offload ? 0 : full[k];
		if (r && full[k] - freed > w->work)
			w->work = full[k] - freed;
		if (!r && !s->train.activation_offload)
			freed += full[k];
	}
	return a;
}

/* Phases of a candidate. */
enum { PH_FWD = 0, PH_LOSS_BWD, PH_BWD, PH_STEP };

/* Communicators a rank of `stage` belongs to (each its own NCCL buffers):
 * TP, CP, the gradient group, hybrid shard and replica groups, EP and
 * expert-DP, one per pipeline neighbour (PyTorch's 2-rank p2p
 * communicators, ProcessGroupNCCL.cpp 1.13.1:184-188) and the tied-embedding
 * pair on the end stages. */
static int communicators(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	int dpg, shard, edp, n = 0;
	plan_group_sizes(p, &dpg, &shard, &edp);
	n += p->tp > 1;
	n += p->cp > 1;
	n += dpg > 1;
	n += shard > 1 && shard < dpg; /* hybrid: the shard group beside the replicas */
	n += p->ep > 1;
	n += edp > 1 && p->ep > 1;
	if (p->pp > 1)
		n += (stage > 0) + (stage < p->pp - 1);
	bool tied = p->pp > 1 && !s->model.untied_embeddings;
	n += tied && (stage == 0 || stage == p->pp - 1);
	/* the framework's own groups (comm_groups); a group of one rank has
	 * no peers and no buffers, and one with the ranks of another group is
	 * that group (nanotron reuses a process group per rank set: parallel/
	 * context.py:104-115): the pipeline group is the tied pair at pp = 2,
	 * the model-parallel group the TP or the pipeline group unless both
	 * are > 1 */
	unsigned c = s->fw.comm_mask;
	int world = p->tp * (p->cp > 1 ? p->cp : 1) * p->dp * p->pp;
	n += (c & PLAN_COMM_DEFAULT) && world > 1;
	n += (c & PLAN_COMM_WORLD) && world > 1;
	n += (c & PLAN_COMM_PP) && p->pp > 1 && !(tied && p->pp == 2);
	n += (c & PLAN_COMM_MP) && p->tp > 1 && p->pp > 1;
	return n;
}

/* What size_stage's parts share, derived once from the scenario and the
 * stage's budget. */
typedef struct sizing {
	const plan_spec *p;
	const plan_framework *fw;
	const plan_budget *b;
	work_shard sh;
	bool lora, offo, offp; /* adapters; optimizer, parameters offloaded */
	bool wshard;           /* weights over the shard group (ZeRO-3, SHARD_GRAD_OP) */
	bool flat;             /* FSDP's flat parameters: the frozen base gets gradients */
	bool unsharded_acc;    /* FSDP no_sync: gradients accumulate unsharded */
	double ws;             /* the weights' shard count */
	double ex;             /* expert parameters (none trained under LoRA) */
	double qs;             /* the 4-bit base's quantisation state */
	double tdense;         /* trained parameters outside the experts */
	double os, oe;         /* the optimizer states' shard counts, dense and expert */
	double gparams, gs;    /* parameters with gradients; the gradients' shard count */
	double e;              /* bytes of a 16-bit (or wider) activation element */
	double gw, rw;         /* bytes per gathered layer and root parameter */
	double root;           /* the root unit's parameters: embedding, output, final norm */
} sizing;

/* The stage's shapes and the shares of its parameters (sizing). */
static void size_setup(const plan_scenario *s, int stage, mw *w, sizing *z)
{
	const plan_spec *p = &s->plan;
	const plan_framework *fw = &s->fw;
	plan_budget *b = &w->b;
	plan_stage_budget(s, stage, b);
	z->p = p, z->fw = fw, z->b = b;
	int dpg, shard, edp;
	plan_group_sizes(p, &dpg, &shard, &edp);
	w->dpg = dpg, w->shards = shard, w->eshards = edp;
	w->m = plan_microbatches(p);
	w->vpp = p->vpp;
	w->last = stage == p->pp - 1;
	z->sh = plan_shard(s);
	w->T = (double)z->sh.seq * z->sh.micro_batch;
	z->lora = s->train.lora_rank > 0;
	z->offo = p->offload_optimizer != PLAN_OFFLOAD_NONE;
	z->offp = p->offload_params != PLAN_OFFLOAD_NONE;
	z->wshard = p->zero >= 3 || (p->zero == 2 && fw->zero2_param_shards);
	z->ws = z->wshard ? w->shards : 1;
	z->ex = z->lora ? 0 : b->experts;
	z->qs = b->quant_state;
	z->os = p->zero >= 1 ? w->shards : 1, z->oe = p->zero >= 1 ? w->eshards : 1;
	z->tdense = b->train - z->ex;
	z->flat = fw->frozen_grads && z->lora && p->zero >= 2;
	z->gparams = z->flat ? b->frozen + b->train : b->train;
	z->unsharded_acc = fw->accumulate_unsharded && p->zero >= 3 && w->m > 1;
	bool gsh = plan_grads_sharded(s) && !z->unsharded_acc;
	z->gs = gsh ? w->shards : 1;
	z->e = hw_dtype_bytes(s->dtype) < 2 ? 2.0 : hw_dtype_bytes(s->dtype);
	/* What ZeRO-3 gathers: the base's linear weights at their stored bytes,
	 * the embedding and output layer at 16 bits, or fp32 with
	 * quant_rest_fp32, when quantised (packed 4-bit: 0.5 B); param_master
	 * gathers in 16 bits what it stores in fp32 (b->wg). */
	double gbase = b->wg < b->w && b->base_bytes > b->wg ? b->wg : b->base_bytes;
	z->gw = z->lora ? (z->qs > 0 ? 0.5 : gbase) : b->wg;
	z->rw = z->lora && plan_base_quantized(s) ? (fw->quant_rest_fp32 ? 4.0 : 2.0) : z->gw;
	z->root = b->dense - b->linear - b->layers * plan_layer_small_params(&s->model) / p->tp;
}

/* Weights and optimizer states. */
static void size_weights(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_budget *b = z->b;
	/* Weights: what trains at the policy's bytes, the frozen base at its own,
	 * over the shard group under ZeRO-3 (and FSDP SHARD_GRAD_OP at rest). */
	w->weights = ((b->train - z->ex) * b->w +
	              z->ex * b->w * (z->wshard ? w->shards / w->eshards : 1)) /
	             z->ws;
	/* (the 4-bit base's quantisation state whole on every rank, beside its
	 * shard, and left on the GPU by parameter offload: memory.c) */
	w->frozen = z->lora || s->train.frozen_layers > 0
	                    ? (b->frozen_bytes - z->qs) / z->ws + z->qs
	                    : 0;
	if (z->offp)
		w->weights = 0, w->frozen = z->qs;
	/* Optimizer states (master included) over the shard group with ZeRO >= 1
	 * (experts over their expert-DP group); paged states outside the allocator. */
	w->states = z->offo ? 0 : z->tdense * b->o / z->os + z->ex * b->o / z->oe;
	w->paged = z->offo ? 0 : z->tdense * b->paged / z->os + z->ex * b->paged / z->oe;
}

/* Gradients: which parameters get them, sharded or not; the persistent
 * buffer, what the optimizer step sees, torch DDP's bucket copy. */
static void size_grads(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_framework *fw = z->fw;
	const plan_budget *b = z->b;
	double gfull = z->gparams * b->g / z->gs;
	if (z->offo)
		gfull = 0;
	w->grad_buf = fw->grads == PLAN_GRADS_PERSISTENT ? gfull : 0;
	w->grads_step = fw->grads == PLAN_GRADS_PERSISTENT || s->train.optimizer_in_backward ? 0
	                : z->unsharded_acc && !z->offo ? z->gparams * b->g / w->shards
	                                               : gfull;
	/* torch DDP's buckets are flat copies of the gradients in the parameters'
	 * dtype (reducer.cpp, PyTorch 1.13.1: 1066, 1082) */
	w->grad_copy =
	        fw->grad_copy && w->dpg > 1 && z->p->zero == 0 && !z->offo ? b->train * b->w : 0;
	if ((z->wshard && (w->shards > 1 || z->offp)) || s->train.optimizer_in_backward)
		w->layer_grad =
		        b->layer_max * b->g * (z->lora ? b->adapters / (b->dense + b->experts) : 1);
}

/* Buffers and workspaces that live all step: gradient buckets, pipeline
 * send/receive tensors, the framework's and PyTorch's GEMM workspaces, the
 * scores buffer, the sequence-parallel gather buffers. */
static void size_buffers(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_spec *p = z->p;
	const plan_framework *fw = z->fw;
	w->buckets = p->zero >= 1 ? fw->grad_buckets * plan_bucket_bytes(s) : 0;
	if (p->pp > 1)
		w->p2p = fw->p2p_buffers * work_p2p_bytes(&s->model, &z->sh);
	double ub_ws;
	w->workspace = plan_workspace_bytes(fw, &s->gpu, &ub_ws);
	/* PyTorch's own cuBLAS workspaces. PyTorch gives each cuBLAS handle a
	 * workspace per stream from its caching allocator at the first GEMM
	 * and keeps it ("PyTorch retains a cuBLAS workspace for each
	 * handle/stream pair", Megatron-LM d98e8a64 tests/unit_tests/
	 * distributed/mfsdp_v2/test_memory.py:313-314, which clears them with
	 * torch._C._cuda_clearCublasWorkspaces to see FSDP's own memory;
	 * measured on the H200, torch 2.11: 32 MiB at each stream's first
	 * GEMM, counted in memory_allocated, the same under
	 * CUBLAS_WORKSPACE_CONFIG=:4096:8, tools/measured/h200-training/
	 * alloc.csv). Handles are per thread: each thread reserves its own
	 * from the pool (PyTorch 1.13.1, Debian pytorch_1.13.1+dfsg-4, aten/
	 * src/ATen/cuda/CublasHandlePool.cpp:32-47; that release left the
	 * workspace to cuBLAS, outside the allocator's counters), and autograd
	 * runs a CUDA backward on its one worker thread per GPU, not the
	 * caller's (torch/csrc/autograd/engine.cpp:107-118, 1316-1326; a
	 * reentrant backward, Megatron's recompute, stays on it: 1078, 1172).
	 * tools/measure-cublas-threads.py measures the pair on a GPU (not yet
	 * run). So a training
	 * step whose forward and backward both run PyTorch GEMMs on the
	 * default stream holds two: Megatron-Core's output layer is
	 * tensor_parallel.ColumnParallelLinear (models/gpt/gpt_model.py:
	 * 272-276; TE's only for an MXFP8 output projection), torch.matmul
	 * in its forward (layers.py:459) and in its dgrad and wgrad
	 * (layers.py:683, 782), with TE's own workspace for every TE GEMM
	 * (`workspace`). The count is the profile's torch_workspaces; side
	 * streams that run no GEMM (NCCL, FSDP's and DeepSpeed's
	 * prefetch and copy streams) add none. */
	w->torch_ws = fw->torch_workspaces * fw->torch_workspace_bytes;
	/* Under tp_comm_overlap Transformer Engine's GEMMs that overlap a TP
	 * collective through userbuffers get a workspace of their own, one
	 * cuBLAS workspace per stream they may split over: get_cublas_workspace
	 * is cached per (device, ub) and returns 3 x 32 MiB (+ 3 KiB) on
	 * Hopper and later, 3 x 4 MiB before (TransformerEngine d0067d0d
	 * pytorch/cpp_extensions/gemm.py:37, 40-45, 48-66; general_gemm picks
	 * it for a GEMM with a userbuffer, :227). GEMMs without one, fc2's
	 * weight gradient (module/layernorm_mlp.py:1400), keep the plain
	 * workspace, so both stay. Same code in b9d690e04, the TE revision
	 * Megatron-LM's CI pinned when MA16's golden values were written
	 * (Megatron-LM 4828d651e7 pyproject.toml:230). Megatron-Core sets up
	 * userbuffers under --tp-comm-overlap (training/initialize.py:194-264,
	 * d98e8a64); the userbuffers themselves come from cuMemCreate or
	 * cudaMalloc (TE common/comm_gemm_overlap/comm_gemm_overlap.cpp:421,
	 * userbuffers/userbuffers-host.cpp:514-557), outside PyTorch's
	 * allocator, and are not counted here. */
	w->ub_workspace = p->tp_comm_overlap && p->tp > 1 ? ub_ws : 0;
	/* the unfused attention's QK^T buffer, kept between steps by frameworks
	 * that write the scores into a buffer of their own (scores_buffer) */
	w->scores = fw->scores_buffer ? work_scores_buffer_bytes(&s->model, &z->sh) : 0;
	/* the sequence-parallel all-gathers' persistent buffers: the whole
	 * micro-batch's s x b x h in 16 bits each */
	if (p->sequence_parallel && p->tp > 1)
		w->gather = fw->sp_gather_buffers * w->T * s->model.hidden * z->e;
}

/* What the forward and backward add to the weights: ZeRO-3's gathered
 * layers, autocast's cache of 16-bit casts. */
static void size_gathered(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_framework *fw = z->fw;
	const plan_budget *b = z->b;
	/* ZeRO-3 gathers layers (and the embedding and output) for the forward
	 * and backward; with parameters offloaded up to live_params elements. */
	if (z->wshard && (w->shards > 1 || z->offp)) {
		double nl = fw->gathered_layers < b->layers ? fw->gathered_layers : b->layers;
		w->gathered = b->layer_max * nl * z->gw + z->root * z->rw;
		if (z->p->zero == 2) /* SHARD_GRAD_OP: every layer, unsharded */
			w->gathered = (b->dense + b->experts - z->root) * z->gw + z->root * z->rw;
		if (z->offp && fw->live_params > 0 && fw->live_params < b->dense)
			w->gathered = fw->live_params * z->gw;
	}
	/* autocast's 16-bit copies of fp32 weights it casts, cleared before the
	 * backward (not cached for sharded or frozen weights) */
	if (s->train.policy == PLAN_POLICY_AMP && !z->wshard &&
	    fw->saved_tensors != WORK_SAVED_FUSED)
		w->cache = b->train * 2.0;
}

/* FSDP's checkpoint (save_copy, save_root, idle_gather) and CPU offload's
 * copy stream (pre_pool); after size_gathered. */
static void size_fsdp_pools(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_framework *fw = z->fw;
	const plan_budget *b = z->b;
	/* A checkpoint of FSDP1's SHARDED_STATE_DICT (checkpoint_shards): the
	 * pre-state_dict hook of every unit unshards it on the GPU and its post
	 * hook replaces each parameter by a ShardedTensor around a clone of its
	 * own chunk (torch 2.6.0 distributed/fsdp/_state_dict_utils.py:506-571,
	 * _shard_utils.py:42-44), moved to the CPU only with offload_to_cpu
	 * (:565-566), which ShardedStateDictConfig leaves off (accelerate
	 * v0.28.0 utils/dataclasses.py:1195-1208 sets a config for
	 * FULL_STATE_DICT alone). The dict holds every clone until the caller
	 * drops it: accelerate's save_fsdp_model asks for model.state_dict()
	 * whole even for the adapters alone (utils/fsdp_utils.py:36-41, 53-67;
	 * PEFT 6008f272a get_peft_model_state_dict, save_and_load.py). So after
	 * the step the GPU holds, beside the static terms, the rank's shard of
	 * every parameter once more, at its stored bytes (FSDP's flat parameter
	 * is the fp32 one under the mixed policy; the 4-bit base packed, its
	 * quantisation state not a parameter), offloaded or not, and the root
	 * unit, gathered by the root's pre-hook (or still gathered from an
	 * evaluation's forward, below) while its children's clones and its own
	 * are made (each layer is gathered and freed in turn). Gradients were
	 * freed by the step (set_to_none), activations by the backward. (The
	 * optimizer's state dict comes after the model's is dropped.) */
	if (fw->checkpoint_shards && z->wshard && w->shards > 1 && !s->inference) {
		double cw = s->train.policy == PLAN_POLICY_MIXED ? 4.0 : b->w;
		w->save_copy =
		        ((b->train - z->ex) * cw + z->ex * cw * w->shards / w->eshards) / z->ws;
		if (z->lora || s->train.frozen_layers > 0)
			w->save_copy += (b->frozen_bytes - z->qs) / z->ws;
		w->save_root = z->root * (z->lora ? z->rw : cw);
		/* The state dict gathers each unit on the default stream
		 * (_unshard_param_utils.py:197-198); the root stays gathered from
		 * the evaluation's forward before the save (no backward reshards
		 * it, _runtime_utils.py:489-496), in the all-gather stream's
		 * blocks, whose other blocks, the step's gathered layers, serve no
		 * allocation on another stream: PyTorch's caching allocator gives
		 * a stream only its own cached blocks (c10/cuda/
		 * CUDACachingAllocator.cpp:2569-2571 in 2.6.0) and frees them only
		 * when cudaMalloc fails. */
		if (w->gathered > z->root * z->rw)
			w->idle_gather = w->gathered - z->root * z->rw;
	}
	/* FSDP1 under CPUOffload copies a unit's shard to the GPU before its
	 * all-gather (pre_unshard: flat_param_to(device), torch 2.6.0
	 * distributed/fsdp/_flat_param.py:1309-1311) inside a stream of its own
	 * (_runtime_utils.py:265, 289-292), recorded on the all-gather stream
	 * and freed when the unit is gathered (_flat_param.py:1455-1463). The
	 * block goes back to that stream's cache, which no other stream's
	 * allocation uses (above): reserved beside the rest, the largest shard
	 * copied in (the root's, first in every forward) or the two units in
	 * flight, split from it. (MixedPrecision's low-precision shard uses the
	 * same stream, _flat_param.py:1316-1330; not counted: no row measuring
	 * reserved memory runs it.) */
	if (fw->offload_copy_pool && z->offp && z->wshard && !s->inference) {
		double rs = z->root * z->rw / w->shards,
		       ls = 2.0 * b->layer_max * z->gw / w->shards;
		w->pre_pool = rs > ls ? rs : ls;
	}
}

/* The adapters' side of a layer under 4-bit LoRA: the dequantised weight
 * (w->dequant) and, returned, the dropout copies of the adapters' inputs
 * per token and layer. */
static double size_lora(const plan_scenario *s, const sizing *z, mw *w)
{
	const work_model *m = &s->model;
	const plan_framework *fw = z->fw;
	double h = m->hidden, f = m->ffn > 0 ? m->ffn : 4.0 * h;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(h / m->heads);
	/* A 4-bit linear dequantises its whole weight to 16 bits for the GEMM
	 * of its input gradient (and of its forward): bitsandbytes MatMul4Bit,
	 * linear(A, dequantize_4bit(B).t()) and matmul(grad_output,
	 * dequantize_4bit(B).t()), the copy freed after each (bitsandbytes
	 * 0.44.1 autograd/_functions.py:509, 540). In a layer's backward the
	 * largest, an MLP projection h x f / t (or the QKV projection where the
	 * model code fuses it, lora_qkv_fused), lives beside the MLP's
	 * activation gradients. */
	if (z->lora && z->qs > 0) {
		double kvh = m->kv_heads > 0 ? m->kv_heads : m->heads;
		double qkv = h * (fw->lora_qkv_fused ? m->heads + 2.0 * kvh : m->heads) * hd;
		w->dequant = (h * f > qkv ? h * f : qkv) / z->p->tp * 2.0;
	}
	if (!z->lora || !s->train.lora_dropout)
		return 0;
	unsigned k = s->train.lora_mask;
	int nqkv = !!(k & PLAN_LORA_Q) + !!(k & PLAN_LORA_K) + !!(k & PLAN_LORA_V);
	int nh = (fw->lora_qkv_fused && nqkv ? 1 : nqkv) + !!(k & PLAN_LORA_GATE) +
	         !!(k & PLAN_LORA_UP);
	return (z->e + 1) *
	       (nh * h + ((k & PLAN_LORA_O) ? m->heads * hd : 0) + ((k & PLAN_LORA_DOWN) ? f : 0)) /
	       z->p->tp;
}

/* K and V a layer returns, and the 4-D attention mask, per micro-batch. */
static void size_kv_mask(const plan_scenario *s, const sizing *z, mw *w)
{
	const plan_framework *fw = z->fw;
	double e = z->e;
	double g = s->model.kv_heads > 0 ? s->model.kv_heads : s->model.heads;
	double hd = s->model.head_dim > 0 ? s->model.head_dim
	                                  : (double)(s->model.hidden / s->model.heads);
	double kvw = (g >= z->p->tp ? g / z->p->tp : 1.0) * hd;
	w->kv = fw->returns_kv && fw->holds_outputs ? 2.0 * e * kvw * w->T : 0;
	w->mask = fw->mask_4d
	                  ? (s->train.policy == PLAN_POLICY_AMP ? 4.0 : e) *
	                            (double)z->sh.micro_batch * z->sh.seq * (double)s->model.seq_len
	                  : 0;
}

/* What chunk c keeps per micro-batch (before the mask). A layer keeps what
 * its kind keeps: work_saved_bytes_at once per kind, cached in kept_k and
 * full_k (-1 until sized); lora_in per token and layer from size_lora. */
static double chunk_activations(const plan_scenario *s, int stage, int c, const sizing *z,
                                double lora_in, double kept_k[2], double full_k[2], mw *w)
{
	work_saved sv = plan_saved(s);
	work_recompute rc = z->p->recompute;
	bool partial = plan_recompute_partial(z->p);
	int count[2], rep[2];
	plan_chunk_kinds(s, stage, c, count, rep);
	double a = 0;
	for (int k = 0; k < 2; k++) {
		if (!count[k])
			continue;
		if (kept_k[k] < 0) {
			double kept = work_saved_bytes_at(&s->model, &z->sh, rep[k], rc, &sv);
			full_k[k] = work_saved_bytes_at(&s->model, &z->sh, rep[k],
			                                WORK_RECOMPUTE_NONE, &sv) +
			            lora_in * w->T;
			if (rc != WORK_RECOMPUTE_FULL)
				kept += lora_in * w->T;
			kept_k[k] = s->train.activation_offload ? 0 : kept;
		}
		if (partial)
			continue;
		a += count[k] * (kept_k[k] + w->kv);
		if (rc == WORK_RECOMPUTE_FULL && full_k[k] > w->work)
			w->work = full_k[k];
	}
	/* frozen layers (a prefix with the embedding, plan_layer_frozen)
	 * run without autograd: they save nothing */
	int l0, nl = plan_chunk_layers(s, stage, c, &l0), nfz = 0;
	for (int l = 0; l < nl; l++)
		nfz += plan_layer_frozen(s, plan_global_layer(s, stage, l0 + l));
	if (nfz > 0 && kept_k[0] > 0 && !partial)
		a -= nfz * kept_k[0];
	if (partial)
		a = partial_chunk(s, stage, c, kept_k, full_k, w, count[0]);
	/* the MTP modules beside the loss (work/mtp.c; kept whole when
	 * recomputation covers only some layers: plan_recompute_partial) */
	if (stage == s->plan.pp - 1 && c == w->vpp - 1 && !s->train.activation_offload)
		a += work_mtp_saved_bytes(&s->model, &z->sh, partial ? WORK_RECOMPUTE_NONE : rc,
		                          &sv);
	return a;
}

/* The gradients chunk c's backwards leave: its first backward's (w->gc),
 * and the .grad each backward leaves until it ends (w->g16). */
static void chunk_grads(const plan_scenario *s, int stage, int c, const sizing *z, mw *w)
{
	const plan_framework *fw = z->fw;
	double d, x, lin, gpar;
	plan_chunk_params(s, stage, c, &d, &x, &lin);
	gpar = z->flat || (s->train.lora_rank <= 0 && s->train.frozen_layers <= 0)
	               ? d + x
	               : plan_chunk_train(s, stage, c);
	bool on_bwd = fw->grads == PLAN_GRADS_ON_BACKWARD && !s->train.optimizer_in_backward;
	/* (FSDP's no_sync keeps the unsharded gradients on the GPU even
	 * under CPUOffload, until the backward that syncs them: "When used
	 * with CPU offloading, the gradients will not be offloaded to CPU
	 * when inside the context manager. Instead, they will only be
	 * offloaded right after the eventual sync", Debian python3-torch
	 * 1.13.1+dfsg-4 torch/distributed/fsdp/fully_sharded_data_parallel.py:
	 * 3595-3601; then on the CPU for the step: grads_step) */
	w->gc[c] = on_bwd && (!z->offo || z->unsharded_acc)
	                   ? gpar * z->b->g / (z->unsharded_acc ? 1 : z->gs)
	                   : 0;
	/* the .grad a backward leaves in the parameters' dtype, whole */
	w->g16[c] = fw->backward_grads && !z->offo ? gpar * z->b->w : 0;
}

/* Activations per chunk and micro-batch, the recomputed layer's working set
 * and a layer's activation gradients in its backward. */
static void size_activations(const plan_scenario *s, int stage, const sizing *z, mw *w)
{
	double lora_in = size_lora(s, z, w);
	size_kv_mask(s, z, w);
	w->work = 0;
	double kept_k[2] = {-1, -1}, full_k[2] = {-1, -1};
	for (int c = 0; c < w->vpp; c++) {
		double a = chunk_activations(s, stage, c, z, lora_in, kept_k, full_k, w);
		w->act[c] = a + (c == 0 ? w->mask : 0);
		chunk_grads(s, stage, c, z, w);
	}
	/* A layer's backward allocates its input gradients before it frees what
	 * its forward saved: at the MLP the gradient of the product and of both
	 * SwiGLU branches (3 e f / t per token; 2 e f / t for GELU). */
	double f = s->model.ffn > 0 ? s->model.ffn : 4.0 * s->model.hidden;
	w->bwd_grads = w->T * (s->model.act == WORK_ACT_SWIGLU ? 3 : 2) * z->e * f / z->p->tp;
}

/* The loss on the last stage (logits per rank: T tokens x V), with what
 * the final norm and the output layer keep for their backward: the norm's
 * saved tensors and the output layer's input (2e h for the fused layers,
 * the eager norm's bytes + e h), until the output layer's backward. */
static void size_loss(const plan_scenario *s, const sizing *z, mw *w)
{
	work_saved sv = plan_saved(s);
	double e = z->e;
	double lf, lk, lb, lh, tv = w->T * s->model.vocab;
	plan_loss_bytes(s, &lf, &lk, &lb, &lh);
	double head = 2 * e;
	if (sv.kind == WORK_SAVED_NANOTRON) { /* the Triton norm's input and rstd */
		head = 2 * e + 4.0 / s->model.hidden;
	} else if (sv.kind != WORK_SAVED_FUSED) {
		static const double ne[] = {1, 2, 1, 0}, nc[] = {0, 0, 4, 8};
		bool ln = s->model.norm == WORK_NORM_LAYERNORM;
		head = sv.fp32_residual ? (ln ? 4 : 8) + e
		       : ln             ? 2 * e
		                        : ne[sv.norm] * e + nc[sv.norm] + e;
	}
	head *= w->T * s->model.hidden / (z->p->sequence_parallel && z->p->tp > 1 ? z->p->tp : 1);
	if (w->last && !s->inference)
		w->loss_fwd = lf * tv + head, w->loss_kept = lk * tv + head,
		w->loss_bwd = lb * tv + head, w->loss_held = lh * tv;
}

/* The optimizer step's temporaries (on the local shard). foreach:
 * foreach_temps lists of every local state element. single: one
 * tensor's at a time, the largest's (plan_step_tensor_max), and two of
 * them: `denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`
 * holds sqrt(v) while the division writes its out-of-place result, then
 * frees it (torch/optim/adamw.py _single_tensor_adamw: Debian
 * python3-torch 1.13.1+dfsg-4 L314-316, 2.6.0+dfsg-7 L475-477; Composer's
 * DecoupledAdamW.adamw the same expression, composer/optim/
 * decoupled_weight_decay.py:258-260 at v0.16.4, 289-291 at 640518880). */
static void size_step(const plan_scenario *s, int stage, const sizing *z, mw *w)
{
	const plan_spec *p = z->p;
	const plan_framework *fw = z->fw;
	double local = z->offo ? 0 : z->tdense / z->os + z->ex / z->oe;
	double st = s->train.policy == PLAN_POLICY_PURE ? 2.0 : 4.0;
	bool adam_step = s->train.optimizer == PLAN_ADAM && !s->train.optimizer_in_backward;
	if (fw->optimizer_impl == PLAN_OPTIM_FOREACH && adam_step)
		w->temps = fw->foreach_temps * local * st;
	if (fw->optimizer_impl == PLAN_OPTIM_SINGLE && adam_step && !z->offo) {
		double big = plan_step_tensor_max(s, stage);
		w->temps = 2.0 * (big < local ? big : local) * st;
	}
	if (fw->step_fp32_grads && !z->offo)
		w->step_fp32 = local * 4.0;
	/* ZeRO-1's parameter all-gather after the step: the flat local shard
	 * and step_param_copies 16-bit copies of the stage's parameters */
	if (p->zero >= 1 && w->shards > 1 && fw->step_param_copies > 0 && !z->offo)
		w->step_gather = z->b->w * (z->tdense * fw->step_param_copies + z->tdense / z->os);
}

/* Outside the allocator: the CUDA context, NCCL's state and buffers per
 * communicator, paged optimizer states (size_weights). */
static void size_runtime(const plan_scenario *s, int stage, mw *w)
{
	/* NCCL keeps its buffers in GPU memory for the P2P (NVLink, PCIe P2P) and
	 * network transports; between GPUs of a node without either (GeForce
	 * cards) it uses the SHM transport, whose buffers are host shared memory
	 * (src/transport/shm.cc:332-345): nothing on the GPU. Nor NCCL's 1.28 GiB
	 * of state measured on NVLink A100s: MF11 reserved 23.05 GiB of a 3090's
	 * 24 GiB beside the 0.47 GiB context, which leaves no room for it. */
	w->ncomms = communicators(s, stage);
	const net_node *nd = &s->cluster.node;
	bool shm = nd->intra == NET_INTRA_PCIE && !nd->pcie_p2p && s->cluster.nodes == 1;
	if (shm)
		w->ncomms = 0;
	w->context = s->fw.context_bytes;
	w->nccl = w->ncomms > 0 ? s->fw.nccl_bytes : 0;
	w->comms = w->ncomms * s->fw.comm_bytes;
	w->runtime = w->context + w->nccl + w->comms + w->paged;
}

/* Size every term of the stage (mw's fields; the walk adds them up). */
static void size_stage(const plan_scenario *s, int stage, mw *w)
{
	sizing z;
	size_setup(s, stage, w, &z);
	size_weights(s, &z, w);
	size_grads(s, &z, w);
	size_buffers(s, &z, w);
	size_gathered(s, &z, w);
	size_fsdp_pools(s, &z, w);
	size_activations(s, stage, &z, w);
	size_loss(s, &z, w);
	size_step(s, stage, &z, w);
	size_runtime(s, stage, w);
}

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
	       w->p2p + w->workspace + w->torch_ws + w->ub_workspace + w->gather + w->scores;
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
	x->loss = st->loss_live + (x->loss_op ? w->loss_fwd : 0);
	x->cache = w->cache;
	consider(best, x);
	if (x->loss_op)
		st->loss_live += w->loss_kept;
	return st->S + st->G + st->kept + x->loss + x->gathered + x->cache;
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
	                 .zb = w->s->plan.schedule == PLAN_SCHED_ZB_H1,
	                 .gdone = calloc((size_t)w->vpp, sizeof *st.gdone)};
	best->op = -2;
	best->total = 0;
	for (int i = 0; i < w->nops; i++) {
		plan_op o = w->ops[i];
		int c = o.chunk;
		bool lop = w->last && c == w->vpp - 1;
		cand x = {.op = i, .mb = o.mb, .chunk = c, .loss_op = lop, .gathered = w->gathered};
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
 * activations in flight repeat with a period of P = p*vpp steps under
 * interleaving (each chunk appears p times in both the forward and the
 * backward sequence of a period), every step when all chunks keep the same
 * bytes and the loss is not on the stage (one chunk, or equal ones); the
 * gradients of every chunk exist from its first backward (its W under
 * ZB-H1, stage steps later), within p*vpp (interleaved) or 1 backwards; the
 * cool-down only frees. So warm-up + n x (settle + P + 2) ops see every
 * distinct state; GPipe's peak is at its last forward or its first
 * backwards (m + 2 ops). tests/unit/test_memory.c compares the result with
 * the whole walk. */
static int head_ops(const mw *w, int steps)
{
	const plan_scenario *s = w->s;
	long p = s->plan.pp, vpp = w->vpp, k;
	if (s->plan.schedule == PLAN_SCHED_GPIPE) {
		k = (long)w->m + 2;
	} else {
		bool zb = s->plan.schedule == PLAN_SCHED_ZB_H1, same = !w->last;
		for (int c = 1; c < vpp; c++)
			same = same && w->act[c] == w->act[0];
		long period = vpp > 1 && !same ? p * vpp : 1;
		long settle = (vpp > 1 ? p * vpp : 1) + (zb ? w->stage : 0);
		long warm = (vpp > 1 ? (p - w->stage - 1) * 2 + (vpp - 1) * p : p - 1 - w->stage) +
		            plan_warm_extra(&s->plan);
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
	size_stage(s, stage, w);
	int steps = s->inference ? 0 : plan_schedule_steps(s->plan.schedule, m, vpp);
	w->nops = whole ? steps : head_ops(w, steps);
	w->ops = w->nops ? malloc((size_t)w->nops * sizeof *w->ops) : NULL;
	if (w->nops && !w->ops) {
		free(w->act), free(w->gc), free(w->g16);
		return false;
	}
	if (w->nops)
		plan_schedule_head(s->plan.schedule, s->plan.pp, m, vpp, plan_warm_extra(&s->plan),
		                   stage, w->nops, w->ops);
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
	case PH_FWD:
		snprintf(buf, len,
		         "end of the forward of micro-batch %d%s%s, %d chunk-step%s of "
		         "activations held",
		         x->mb, w->vpp > 1 ? " on its chunk " : "",
		         x->loss_op ? " with the loss" : "", x->inflight,
		         x->inflight == 1 ? "" : "s");
		if (w->vpp > 1)
			snprintf(buf, len,
			         "end of the forward of micro-batch %d on chunk %d%s, %d "
			         "chunk-steps held",
			         x->mb, x->chunk, x->loss_op ? " with the loss" : "", x->inflight);
		break;
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
	            ? ", layer inputs under full recompute"
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
	add(o, PLAN_MEM_ACTIVATIONS, x->work, "layer backward", "%sits activation gradients (%s)",
	    x->work > w->bwd_grads ? "a recomputed layer's saved tensors + " : "",
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

/* The moment's terms beyond the static ones. */
static void moment_terms(const mw *w, const cand *x, plan_mem_peak *o)
{
	const plan_scenario *s = w->s;
	char a[32], b[32];
	moment_activations(w, x, o);
	add(o, PLAN_MEM_BUFFERS, x->dequant, "dequantised weight",
	    "the largest 4-bit linear in 16 bits for its GEMM: %s params x 2 B",
	    qty(x->dequant / 2, a, sizeof a));
	add(o, PLAN_MEM_BUFFERS, x->gathered, "gathered weights",
	    "%s%d layers of %s params (+ embedding, output)",
	    s->plan.zero == 2 ? "SHARD_GRAD_OP keeps all layers unsharded; " : "ZeRO-3: ",
	    s->fw.gathered_layers, qty(w->b.layer_max, b, sizeof b));
	add(o, PLAN_MEM_WEIGHTS, x->cache, "autocast weight cache",
	    "16-bit casts of %s fp32 params x 2 B, freed before the backward",
	    qty(w->b.train, a, sizeof a));
	add(o, PLAN_MEM_GRADIENTS, x->G, "gradients",
	    "%s params x %.4g B from each chunk's first backward%s", qty(w->b.train, a, sizeof a),
	    w->b.g,
	    s->fw.accumulate_unsharded && s->plan.zero >= 3 && w->m > 1
	            ? " (unsharded while accumulating, FSDP no_sync)"
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

/* The checkpoint after the step (checkpoint_shards; size_stage derives its
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
	add(o, PLAN_MEM_WEIGHTS, w->save_copy, "state-dict shards",
	    "a copy of every parameter's local shard at its stored bytes (%s params / shards "
	    "%.0f): FSDP's SHARDED_STATE_DICT clones each chunk on the GPU",
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

/* The most loaded stage (the largest demand): its demand, device bytes and
 * verdict. */
static double worst_demand(const plan_scenario *s, double *device, plan_verdict *v)
{
	double worst = -1;
	for (int k = 0; k < s->plan.pp; k++) {
		plan_mem_peak p;
		plan_memory_totals(s, k, &p);
		if (p.demand > worst) {
			worst = p.demand;
			*device = p.device;
			*v = p.verdict;
		}
	}
	return worst;
}

static int by_saving(const void *a, const void *b)
{
	double x = ((const plan_mem_cut *)a)->saved, y = ((const plan_mem_cut *)b)->saved;
	return (x < y) - (x > y);
}

int plan_memory_cuts(const plan_scenario *s, plan_mem_cut *out, int max)
{
	plan_verdict v0;
	double d0, base = worst_demand(s, &d0, &v0);
	int n = 0;
	for (int k = 0; k < 4 && n < max; k++) {
		plan_scenario x = *s;
		plan_mem_cut c = {0};
		const plan_framework *f = &s->fw;
		int zmax = s->plan.pp > 1 ? f->zero_max_pp : f->zero_max;
		if (k == 0) {
			if (s->plan.recompute == WORK_RECOMPUTE_FULL && !plan_recompute_partial(&s->plan))
				continue;
			x.plan.recompute = WORK_RECOMPUTE_FULL;
			x.plan.recompute_layers = 0;
			snprintf(c.what, sizeof c.what, "%s",
			         plan_recompute_partial(&s->plan) ? "recompute_layers = 0 (all)"
			                                         : "recompute = full");
			snprintf(c.term, sizeof c.term, "kept activations");
		} else if (k == 1) {
			if (s->plan.zero >= zmax ||
			    s->plan.dp * (s->plan.cp > 1 ? s->plan.cp : 1) < 2)
				continue;
			x.plan.zero = s->plan.zero + 1;
			snprintf(c.what, sizeof c.what, "zero = %d", x.plan.zero);
			snprintf(c.term, sizeof c.term,
			         x.plan.zero == 1   ? "optimizer states"
			         : x.plan.zero == 2 ? "gradients"
			                            : "weights");
		} else if (k == 2) {
			if (s->plan.micro_batch < 2 || s->plan.micro_batch % 2)
				continue;
			x.plan.micro_batch = s->plan.micro_batch / 2;
			snprintf(c.what, sizeof c.what,
			         "micro_batch = %d (twice the micro-batches)", x.plan.micro_batch);
			snprintf(c.term, sizeof c.term, "activations and loss");
		} else {
			if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE ||
			    !f->offload_optimizer || s->inference)
				continue;
			x.plan.offload_optimizer = PLAN_OFFLOAD_CPU;
			if (x.plan.zero < 1)
				x.plan.zero = 1; /* ZeRO-Offload partitions the states */
			snprintf(c.what, sizeof c.what, "offload_optimizer = cpu%s",
			         s->plan.zero < 1 ? " (with zero = 1)" : "");
			snprintf(c.term, sizeof c.term, "optimizer states and gradients");
		}
		/* only plans the scenario's framework and podsim run */
		sim_diag *d = sim_diag_new();
		bool ok = d && plan_check(&x, d) == SIM_OK;
		sim_diag_free(d);
		if (!ok)
			continue;
		c.saved = base - worst_demand(&x, &c.device, &c.verdict);
		if (c.saved > 0)
			out[n++] = c;
	}
	qsort(out, (size_t)n, sizeof *out, by_saving);
	return n;
}
