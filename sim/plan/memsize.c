/* memsize.c - the terms of a rank's memory, sized once per stage for the
 * walk (memwalk.c adds them up over the schedule; its header says what
 * lives when): weights and optimizer states, gradients, buffers and
 * workspaces, what the forward and backward gather, FSDP's checkpoint and
 * copy-stream pools, activations and gradients per chunk, the loss, the
 * optimizer step's temporaries and the runtime outside the allocator. Bytes
 * per parameter and per token come from memory.c (plan_stage_budget,
 * plan_loss_bytes) and work (work_saved_bytes_at); each framework term is
 * cited where it is sized. */
#include "mem_int.h"

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
	bool tied = p->pp > 1 && !s->model.untied_embeddings && plan_last_rank(p) != 0;
	n += tied && (stage == 0 || stage == plan_last_rank(p));
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
	w->last = stage == plan_last_rank(p);
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
	z->unsharded_acc = p->zero >= 3 && plan_zero3_unsharded_acc(s);
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
	/* ZeRO++ hpZ: the secondary 16-bit shard of every parameter over the
	 * hpZ group (DeepSpeed's _partition_param_sec, partition_parameters.py:
	 * 1673-1716 at 38327e07, in the parameter's dtype, on the device the
	 * primary lives on), created as the step's first gather releases it
	 * and freed at the optimizer step (stage3.py:2061): held through every
	 * forward and backward, counted at all moments */
	int hpz = s->plan.zero_hpz > (int)w->shards ? (int)w->shards : s->plan.zero_hpz;
	w->secondary = z->p->zero >= 3 && hpz > 1 ? (b->train + b->frozen) * b->wg / hpz : 0;
	if (z->offp)
		w->weights = 0, w->frozen = z->qs, w->secondary = 0;
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

/* The ends' parameters gathered as the backward starts, where the
 * activations peak (emit.c "The ends"): all of them where they stay
 * gathered (zero3_root none, flat's root kept from its forward, step's
 * from the step's first, every unit under plan_zero3_pp_gathered); else
 * the head's (its output layer reads a tied embedding again under
 * modules), the embedding being resharded after
 * its forward (torchtitan's own unit; DeepSpeed releases it, its next use
 * a whole pass away, past stage3_max_reuse_distance), but for torchtitan's
 * one unit of tied weights, kept. */
bool mem_embedding_released(const plan_scenario *s, int stage, double ends[2])
{
	double gr[2];
	int n = s->plan.zero >= 3 ? plan_zero3_ends(s, stage, ends, gr) : 0;
	int mode = s->fw.zero3_root;
	return n == 2 && (mode == PLAN_ZERO3_ROOT_MODULES || mode == PLAN_ZERO3_ROOT_UNITS) &&
	       !plan_zero3_pp_gathered(s);
}

/* The root's elements gathered then: all of it, or less the embedding
 * where mem_embedding_released. */
static double root_gathered(const plan_scenario *s, int stage, const sizing *z)
{
	double ga[2];
	int mode = s->fw.zero3_root;
	if (!mem_embedding_released(s, stage, ga))
		return z->root;
	/* the root less the embedding, with the tied weight the head reads
	 * again where both ends share the stage (plan_zero3_ends's head: its
	 * copy on another stage is in the root already) */
	bool both = stage == 0 && stage == plan_last_rank(&s->plan);
	double copy = both && !s->model.untied_embeddings && mode == PLAN_ZERO3_ROOT_MODULES
			      ? (double)s->model.vocab * s->model.hidden / s->plan.tp
			      : 0;
	double r = z->root - ga[0] + copy;
	return r > 0 ? r : 0;
}

/* ZeRO-3's layers gathered at the peak (mem_int.h): gathered_layers, or
 * under DeepSpeed's reuse window, at the turn where the activations peak,
 * the layers it keeps (plan_zero3_reuse_layers) or the running one; at
 * most the stage's. */
int mem_gathered_layers(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	int layers = plan_stage_layers(s, stage), nl = s->fw.gathered_layers;
	if (s->fw.reuse_distance > 0 && p->pp == 1 && p->offload_params == PLAN_OFFLOAD_NONE) {
		int k = plan_zero3_reuse_layers(s, stage);
		nl = k > 1 ? k : 1;
	}
	return nl < layers ? nl : layers;
}

/* Bytes an element of a ZeRO-3 gather's flat buffers (mem_int.h): the
 * gather's width where the framework copies out of one
 * (zero3_gather_copy), and qwZ's int8 value and share of an fp32 scale. */
double mem_gather_flat_width(const plan_scenario *s)
{
	return (s->fw.zero3_gather_copy != PLAN_GATHER_COPY_NONE ? plan_zero3_gather_width(s) : 0) +
	       (s->plan.zero_qw ? 1.0 + 4.0 / PLAN_QW_GROUP : 0);
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
		double nl = mem_gathered_layers(s, w->stage);
		w->gathered = b->layer_max * nl * z->gw + root_gathered(s, w->stage, z) * z->rw;
		/* SHARD_GRAD_OP, or ZeRO-3 under torch pipelining (kept gathered
		 * from the step's first forward: plan_zero3_pp_gathered): every
		 * layer, unsharded */
		if (z->p->zero == 2 || plan_zero3_pp_gathered(s))
			w->gathered = (b->dense + b->experts - z->root) * z->gw + z->root * z->rw;
		if (z->offp && fw->live_params > 0 && fw->live_params < b->dense)
			w->gathered = fw->live_params * z->gw;
		/* DeepSpeed's coalesced gather lands in a flat buffer at the
		 * gather's width, which lives beside the parameters its wait
		 * copies out of it until the copies are done (zero3_gather_copy;
		 * partition_parameters.py:1172-1188, 696-717 at microsoft/
		 * DeepSpeed 38327e07); under ZeRO++ qwZ the gather lands in an
		 * int8 flat buffer and its fp32 scales in another, which the
		 * handle holds until its wait has dequantised them into that
		 * 16-bit flat copy (:1331-1334, 1358-1363, 683-692): w B, and
		 * 1 B and 4 / PLAN_QW_GROUP B, an element of the largest gather,
		 * a module's (plan_zero3_pieces), beside the gathered layers
		 * (the parameters alone). Over one rank nothing is gathered:
		 * DeepSpeed copies each parameter to the device on its own
		 * (all_gather_coalesced, :1207-1208; NoGatherHandle, :44-62) */
		double flat = mem_gather_flat_width(s);
		if (z->p->zero >= 3 && flat > 0 && w->gathered > 0 && w->shards > 1) {
			double g[PLAN_ZERO3_MAX_PIECES], r[PLAN_ZERO3_MAX_PIECES], top = 0;
			int n = plan_zero3_pieces(s, g, r);
			for (int k = 0; k < n; k++)
				top = g[k] > top ? g[k] : top;
			w->gather_flat = b->layer_max * top * flat;
		}
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
		/* checkpoint_offload: a FULL_STATE_DICT instead, as accelerate
		 * configures it for more than one process (offload_to_cpu and
		 * rank0_only: accelerate v0.28.0 (9e72c612) utils/dataclasses.py:
		 * 1203-1206, utils/fsdp_utils.py:54-62). Each unit is gathered on the
		 * computation stream in its pre-hook, moved to the CPU on rank 0
		 * (handle.to_cpu) or resharded at once on the others, and freed
		 * when its post-hook ends (torch 2.6.0 distributed/fsdp/
		 * _unshard_param_utils.py:197-232), the clones made on the CPU;
		 * the root's stays gathered while its children are saved. So
		 * the GPU holds, beside the root, one unit gathered at its
		 * stored bytes (state dicts gather in full precision), the
		 * largest layer, instead of the shard copies. */
		if (fw->checkpoint_offload)
			w->save_copy = b->layer_max * (z->lora ? z->gw : cw);
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
	int nqkv = !!(k & WORK_LORA_Q) + !!(k & WORK_LORA_K) + !!(k & WORK_LORA_V);
	int nh = (fw->lora_qkv_fused && nqkv ? 1 : nqkv) + !!(k & WORK_LORA_GATE) +
	         !!(k & WORK_LORA_UP);
	return (z->e + 1) *
	       (nh * h + ((k & WORK_LORA_O) ? m->heads * hd : 0) + ((k & WORK_LORA_DOWN) ? f : 0)) /
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
	if (plan_vstage(&s->plan, stage, c) == s->plan.pp * w->vpp - 1 &&
	    !s->train.activation_offload)
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

/* Context parallelism's buffers in a layer's attention, per rank, beyond
 * what the layer keeps (q = the rank's query elements, T x heads/t x d;
 * k = its K or V elements, T x kv_heads/t x d; e the 16-bit size):
 *   ring        Transformer Engine's AttnFuncWithCPAndKVP2P (NVIDIA/
 *               TransformerEngine d0067d0da pytorch/attention/
 *               dot_product_attention/context_parallel.py): the forward
 *               keeps every step's K/V buffer (p2p_comm_buffers, cp of 2k:
 *               1685-1711) and output (out_per_step, cp of q: 1672) to the
 *               correction, which adds them into an fp32 output (1980-1998):
 *               cp (2k + q) e + 4 q; it saves the last buffer instead of
 *               the local K and V (2087, 2128), the same bytes. Its backward
 *               holds dq and two [K/V, dK/V] pairs in flight (2396-2401)
 *               and each step's dq, dk, dv: e (2 q + 10 k)
 *   all-gather  PyTorch's context_parallel (torch 2.14.1 _context_parallel/
 *               _attention.py): the forward's K/V copy and their all-gather
 *               (_AllGatherRotater, 273-300: cp of 2k), the fp32 merged
 *               output (convert_to_f32) and a step's output: (cp + 1) 2k e
 *               + 4 q + e q. The backward (:508-650): fp32 accumulators of
 *               dq, dk, dv (4 (q + 2k)), each step's gradients (e (q + 2k)),
 *               the gathered K/V and the copy ((cp + 1) 2k e) and the K/V
 *               gradients' ring in fp32, one sent and one received (16 k)
 * The forward's is a moment of the last layer's forward (w->fwd_work); the
 * backward's replaces the MLP's activation gradients as the layer's
 * backward working set where larger (the attention runs after the MLP's
 * backward has freed them). */
static void size_cp_buffers(const plan_scenario *s, const sizing *z, mw *w)
{
	w->fwd_work = 0;
	w->bwd_cp = false;
	int cp = z->sh.cp;
	if (cp <= 1)
		return;
	double t = z->p->tp, e = z->e;
	double g = s->model.kv_heads > 0 ? s->model.kv_heads : s->model.heads;
	double d = s->model.head_dim > 0 ? s->model.head_dim
	                                 : (double)(s->model.hidden / s->model.heads);
	double q = w->T * s->model.heads / t * d, k = w->T * (g >= t ? g / t : 1.0) * d;
	double bwd;
	if (z->sh.cp_allgather) {
		w->fwd_work = (cp + 1) * 2 * k * e + 4 * q + e * q;
		bwd = 4 * (q + 2 * k) + e * (q + 2 * k) + (cp + 1) * 2 * k * e + 16 * k;
	} else {
		w->fwd_work = cp * (2 * k + q) * e + 4 * q;
		bwd = e * (2 * q + 10 * k);
	}
	if (bwd > w->bwd_grads) {
		w->bwd_grads = bwd;
		w->bwd_cp = true;
	}
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
	size_cp_buffers(s, z, w);
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

void mem_size_stage(const plan_scenario *s, int stage, mw *w)
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
