/* work.h - the workload: a transformer's shape turned into parameter counts,
 * FLOPs, and the per-layer kernels and communication points one tensor-parallel
 * rank executes, plus activation memory (Korthikanti et al. 2022).
 *
 * Hardware-free: outputs FLOPs and bytes; hw turns them into time.
 *
 * Parameters (decoder, h = hidden, f = ffn, a = heads, g = kv_heads, d = h/a):
 *   attention: h*h (Q) + 2*h*g*d (K, V) + h*h (out)          + biases
 *   MLP:       gelu 2*h*f, swiglu 3*h*f                      + biases
 *   norms:     2 per layer, 2h each (layernorm) or h (rmsnorm); final norm
 *   embedding: V*h (+ s*h learned positions for GPT); the output layer is tied
 *              to the embedding unless untied_embeddings = true.
 * Model FLOPs of one step (Megatron, Narayanan et al. 2021, eq. 3 generalised):
 *   per token: 6 * P_dense_matmul + 12 * l * s * h (attention scores and
 *   values, 4*s*h forward, x3 fwd+bwd, causal mask not discounted, as the
 *   papers count); P_dense_matmul = the layers' matmul weights + the h x V
 *   logits matrix (6*V*h per token); no embedding lookup, norms or biases.
 *   For GPT with f = 4h and T = B*s tokens this is
 *   F = 72*B*s*l*h^2*(1 + s/6h + V/12lh). Derivation in model.c.
 */
#ifndef PODSIM_WORK_H
#define PODSIM_WORK_H

#include "../hw/hw.h"

typedef enum { WORK_ACT_GELU = 0, WORK_ACT_SWIGLU } work_act;
typedef enum { WORK_NORM_LAYERNORM = 0, WORK_NORM_RMSNORM } work_norm;

typedef struct work_model {
	char name[CONF_STR_MAX];
	char source[CONF_STR_MAX];
	/* other names sources give the model ("MT-NLG 530B"), comma-separated:
	 * the case reader finds the file by them (valid/memrows.c); nothing
	 * else reads them */
	char aliases[CONF_STR_MAX];
	int layers, hidden, heads, kv_heads, ffn, vocab, seq_len;
	work_act act;
	work_norm norm;
	bool learned_pos;       /* GPT learned position embeddings */
	bool untied_embeddings; /* separate output projection */
	bool bias;              /* linear layers carry biases */
	/* GPT-J / Phi's parallel block: attention and MLP both read one shared
	 * norm's output and their outputs are added to the residual together
	 * (Lit-GPT parallel_residual with shared_attention_norm): one norm per
	 * layer, the MLP's input the attention's (work_layer_norms, memory.c) */
	bool parallel_residual;
	int head_dim;           /* attention head size d (0 = hidden / heads) */
	/* Sliding-window attention (Megatron-Core's window_size = (window, 0)
	 * and window_attn_skip_freq): a windowed layer's queries attend the
	 * `window` tokens before them (0 = full causal attention); with
	 * window_skip = N every N-th layer (1-based) keeps full attention, 0 =
	 * every layer windowed (work_layer_windowed). */
	int window, window_skip;
	/* Mixture of experts (0 experts = dense): every layer from index
	 * moe_dense_layers on replaces its MLP by moe_experts routed experts of
	 * inner size ffn, moe_topk per token, plus moe_shared_experts always-on
	 * experts of the same size; the leading dense layers use dense_ffn. */
	int moe_experts, moe_topk, moe_shared_experts, moe_dense_layers, dense_ffn;
	/* every moe_interval-th layer of those is MoE, the others dense (0, 1 =
	 * every layer; Megatron-DeepSpeed's --expert-interval, layer numbers
	 * 1-based from there divisible by it: microsoft/Megatron-DeepSpeed
	 * f4157bea megatron/model/transformer.py get_num_experts_per_layer) */
	int moe_interval;
	double moe_imbalance; /* tokens routed to the busiest expert rank over the
			       * mean (1 = perfectly balanced routing) */
	/* Multi-head Latent Attention (DeepSeek-V2/V3; kv_lora_rank 0 = not
	 * MLA): Q through a q_lora_rank down projection (0 = projected
	 * directly from h), K and V through one shared kv_lora_rank latent
	 * plus a qk_rope_head_dim RoPE key shared by all heads; per head q/k
	 * width qk_nope_head_dim + qk_rope_head_dim, v width v_head_dim. The
	 * reader sets head_dim to the q/k width (model.c). */
	int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
	/* Multi-token prediction modules on the last pipeline stage (Megatron-
	 * Core's mtp_num_layers; 0 = none): each one layer of the last
	 * layer's kind plus its projection, norms and a second logits + loss
	 * (work_mtp_forward). */
	int mtp_layers;
	/* Linear modules the model's (Hugging Face) code computes Q, K and V
	 * with: 1 fused (GPT-2's c_attn, GPT-NeoX's query_key_value, Qwen's
	 * c_attn), 2 (q and a fused kv), 3 apart (Llama's q/k/v_proj); 0 = by
	 * the activation, 1 for gelu and 3 for swiglu (work_layer_linears) */
	int qkv_modules;
} work_model;

/* Whether the model's attention is MLA (kv_lora_rank > 0). */
static inline bool work_model_is_mla(const work_model *m)
{
	return m->kv_lora_rank > 0;
}

extern const conf_key work_model_keys[];
extern const size_t work_model_nkeys;

/* Read [model]; checks hidden % heads, heads % kv_heads. */
int work_model_from_conf(const conf_doc *doc, work_model *out, sim_diag *diag);

/* The norms per layer: 2, or 1 in a parallel block (parallel_residual). */
int work_layer_norms(const work_model *m);
double work_params_layer(const work_model *m);     /* one dense transformer layer */
/* The linear modules of one dense layer as a model's code builds them, in
 * forward order, each its weight's elements (biases and norms apart: they
 * are the rest of work_params_layer): returns how many (at most
 * WORK_MAX_LINEARS) and fills w. fused: Megatron's layer code (one
 * query_key_value, dense, one dense_h_to_4h holding gate and up under
 * swiglu, dense_4h_to_h); else the Hugging Face code's (qkv_modules
 * projections, o_proj, gate/up/down_proj or fc/proj). MLA's projections
 * (q down/up or q, kv down/up, output) are the same in both. */
#define WORK_MAX_LINEARS 8
int work_layer_linears(const work_model *m, bool fused, double *w);
/* Layer `layer` (0-based, global): all its parameters, and of those the routed
 * experts' (0 for a dense layer); the rest (attention, norms, router, shared
 * experts) is split over TP, the routed experts over EP. */
double work_params_layer_at(const work_model *m, int layer);
double work_params_layer_experts(const work_model *m, int layer);
/* Whether layer `layer` (0-based) has experts: from moe_dense_layers on,
 * every moe_interval-th; and how many layers do. */
bool work_layer_is_moe(const work_model *m, int layer);
int work_moe_layers(const work_model *m);
/* Whether layer `layer` (0-based) attends a sliding window: Megatron-Core's
 * is_layer_window_attention (megatron/core/transformer/utils.py:451-462 at
 * NVIDIA/Megatron-LM 8f1c2f8a) with layer_number = layer + 1. */
bool work_layer_windowed(const work_model *m, int layer);
double work_params_embedding(const work_model *m); /* input embedding (+ positions) */
/* Untied output layer (0 if tied) + final norm, + the MTP modules'
 * parameters except their routed experts (they live on the last stage,
 * split over TP like the output layer; work_params_mtp_experts over EP). */
double work_params_output(const work_model *m);
double work_params_total(const work_model *m);
/* The parameters one token's forward meets: work_params_total with each
 * routed expert layer's (and the MTP modules') experts at top-k of E, as
 * llm-foundry's n_active_params counts them (models/utils/mpt_param_count.py
 * megablocks_n_active_params, mosaicml/llm-foundry 8c8dd48f7); a dense
 * model's are all of them. */
double work_params_active(const work_model *m);
/* The multi-token prediction modules (mtp_layers of them, on the last
 * stage): per module its two input norms, the 2h x h projection, the final
 * norm and one layer of the last layer's kind (the embedding and output
 * layer are the model's own); of that, the routed experts' share. Counted
 * in work_params_total and, by plan, on the last stage. */
double work_params_mtp(const work_model *m);
double work_params_mtp_experts(const work_model *m);
/* Of the above, what tensor parallelism does not split but keeps whole on
 * every TP rank (model.c): a layer's norms and its row-parallel biases (the
 * attention output projection's, fc2's), the learned position embedding, the
 * final norm (and the MTP modules' norms and layers' such parts).
 * work_params_tp_local gives one TP rank's share of `total` parameters of
 * which `replicated` stay whole. */
double work_params_layer_replicated(const work_model *m, int layer);
double work_params_embedding_replicated(const work_model *m);
double work_params_output_replicated(const work_model *m);
double work_params_tp_local(double total, double replicated, int tp);
/* Model FLOPs (no recompute) for `tokens` tokens, forward+backward; for MoE
 * layers the matmul weights a token meets: router, top-k and shared experts. */
double work_model_flops(const work_model *m, double tokens);

/* The code a framework runs a dense decoder layer, the embedding and the
 * logits + loss with ([framework] layer_kernels), which sets how many kernels
 * a layer launches and what the unfused ones move:
 *  - FUSED: Megatron-Core with Transformer Engine, the programs below (one
 *    kernel per norm, activation, residual; QKV and the attention core fused);
 *  - NANOTRON: Hugging Face nanotron's eager Llama code (nanotron.c, every
 *    kernel cited to models/llama.py and parallel/tensor_parallel at commit
 *    0e0a27ea, 2025-02-19): layout copies around RoPE, RoPE as two Triton
 *    kernels, varlen attention's cu_seqlens kernels, SiLU and the gate product
 *    apart, plain residual adds (and their gradient adds at the forks), the
 *    fp32 cross-entropy's passes over the logits, and its asynchronous TP
 *    linears: each column-parallel GEMM split into the local shard beside the
 *    sequence all-gather and the shards gathered after it, the backward's
 *    re-gather of the input and its reduce-scatter beside the GEMMs
 *    (work_item.beside). MoE layers keep the FUSED program;
 *  - MPT: MosaicML llm-foundry's MPT block (mpt.c, at 5e85bd62, 2024-01-06,
 *    the benchmark table's refresh): the low-precision layer norm, the fused
 *    Wqkv and its split's backward, GELU apart, plain residual adds;
 *  - FMS: IBM foundation-model-stack's LLaMA as fms-fsdp ran it in 2024-03
 *    (fms.c, at 006bd7ed): the fp32 RMSNorm's eight kernels, RoPE as fp32
 *    rotation matrices, separate q/k/v and w1/wg linears, SiLU and the gate
 *    product apart, expanded K/V under GQA;
 *  - HF_LLAMA: Hugging Face transformers' LlamaDecoderLayer (hf_llama.c, the
 *    4.36 SDPA/flash-attention-2 code): the same structure with RoPE by
 *    rotate_half, and repeat_kv under GQA;
 *  - HF_LLAMA5: the same layer as transformers 5.x runs it on torch 2.11 with
 *    SDPA (hf_llama.c, counted from kernels measured on an H200): cuDNN
 *    attention's auxiliary kernels, GQA without repeat_kv, the adds of each
 *    gradient into .grad, and the model's per-forward position and rotary
 *    kernels at the embedding.
 * The three eager codes share eager.c's PyTorch pieces; their embedding is
 * the fused lookup, their head the code's final norm, the logits GEMM and
 * the loss of work_shard.loss. Each keeps the fused GEMM FLOPs (q/k/v and
 * gate/up split into GEMMs of the same total). */
typedef enum {
	WORK_LAYER_FUSED = 0,
	WORK_LAYER_NANOTRON,
	WORK_LAYER_MPT,
	WORK_LAYER_FMS,
	WORK_LAYER_HF_LLAMA,
	WORK_LAYER_HF_LLAMA5
} work_layer_code;
/* The code's name as the [framework] layer_kernels key spells it. */
const char *work_layer_code_name(int code);

/* How one rank executes a layer: the tensor-parallel shard. */
typedef struct work_shard {
	int tp;
	bool sp;          /* sequence parallelism */
	int micro_batch;  /* sequences per micro-batch */
	int seq;          /* sequence length */
	hw_dtype dtype;
	bool flash;       /* fused (flash) attention: the s x s scores never reach
			   * HBM nor the saved activations; false = the unfused
			   * path (QK^T GEMM, softmax, dropout, x V GEMM) that
			   * Korthikanti et al. 2022 count */
	int cp;           /* context parallelism (0 or 1 = none): `seq` is then the
			   * rank's own share s/cp of the sequence, and attention
			   * runs as ring attention over the cp ranks (see
			   * work_layer_forward) */
	int ep;           /* expert parallelism (0 or 1 = none): the routed experts
			   * are spread over ep ranks, whole (expert TP 1) */
	hw_flash_impl flash_impl; /* which fused attention kernel (the framework's) */
	int layer_code;   /* work_layer_code: the framework's layer code (kernels per layer) */
	int loss;         /* work_loss: the loss's code (the fused layer code's head) */
	bool loss_fp32;   /* autocast: cross_entropy runs its log-softmax in fp32 */
	int moe_dispatcher; /* work_moe_dispatcher: what moves the tokens with ep > 1 */
	unsigned recompute_modules; /* WORK_RC_* under selective recomputation
				     * (0 = core_attn): what the layer does not keep */
	bool fp8_delayed; /* fp8 with delayed scaling: the fused layer's output
			   * projection keeps a quantized copy of its input
			   * (memory.c proj_in_bytes) */
	int softmax_fused_max_seq; /* unfused attention: Megatron's fused
				    * scale-mask-softmax takes key lengths up to
				    * this, 0 = every shape (work_softmax_fused) */
	bool cp_allgather; /* context parallelism with the K/V all-gathered,
			    * PyTorch's context_parallel (work/layer.c attn_ring) */
	double moe_capacity; /* moe_dispatcher = gshard: the capacity factor (0: no token
			      * dropped, the busiest expert's count, moe_imbalance) */
	/* LoRA (work_lora_apply): the base weights frozen and rank-r adapters on
	 * the targeted linears (WORK_LORA_* bits); 0 = every weight trains */
	int lora_rank;
	unsigned lora_targets;
	bool lora_dropout;      /* the adapters' input dropout */
	bool train_embeddings;  /* ... the output layer trains in full beside them */
	bool cp_alltoall; /* context parallelism by DeepSpeed-Ulysses' all-to-alls:
			   * each rank attends the whole sequence with 1/cp of
			   * the heads (work/layer.c attn_ulysses) */
	bool distribute_saved; /* full recomputation keeps 1/tp of each layer's
				* input, all-gathered over TP before its
				* recomputed forward (work_saved_gather) */
} work_shard;

/* LoRA's target linears: plan_train.lora_mask's bits ([train] lora_targets). */
enum {
	WORK_LORA_NONE = 0,
	WORK_LORA_Q = 1 << 0,
	WORK_LORA_K = 1 << 1,
	WORK_LORA_V = 1 << 2,
	WORK_LORA_O = 1 << 3,
	WORK_LORA_GATE = 1 << 4,
	WORK_LORA_UP = 1 << 5,
	WORK_LORA_DOWN = 1 << 6
};

/* The loss's implementation (plan's [framework] loss, same order): which
 * passes the head's cross-entropy makes over the T x V/t logits, see
 * work_head_forward. */
typedef enum {
	WORK_LOSS_VOCAB_PARALLEL = 0,
	WORK_LOSS_UPCAST_SHIFT,
	WORK_LOSS_SHIFT,
	WORK_LOSS_UPCAST,
	WORK_LOSS_CHUNKED,
	WORK_LOSS_CHUNKED_16BIT,
	WORK_LOSS_16BIT,
	WORK_LOSS_FUSED_XENT,
	WORK_LOSS_SHARDED /* nanotron's sharded cross-entropy: vocab-parallel passes */
} work_loss;

/* The MoE token dispatcher with ep > 1 ([parallel] moe_dispatcher): FUSED,
 * the tokens' all-to-alls around one permutation and its inverse (podsim's
 * first model, close to DeepEP's flex dispatcher, which permutes inside its
 * kernels and carries the probabilities with the tokens), or ALLTOALL,
 * Megatron-Core's MoEAlltoAllTokenDispatcher, which also gathers the token
 * counts, sends the probabilities in an all-to-all of their own and sorts the
 * received chunks by local expert (layer.c, ep_counts). GSHARD is another
 * MoE layer, whatever ep: DeepSpeed-MoE's MOELayer (Megatron-DeepSpeed's
 * experts), GShard's dense einsum dispatch and combine over fixed-capacity
 * slots, duplicate tokens dropped over TP (layer.c "DeepSpeed-MoE"). */
typedef enum { WORK_MOE_FUSED = 0, WORK_MOE_ALLTOALL, WORK_MOE_GSHARD } work_moe_dispatcher;

typedef enum { WORK_ITEM_KERNEL = 0, WORK_ITEM_COMM } work_item_kind;
typedef enum { WORK_KERNEL_GEMM = 0, WORK_KERNEL_ATTN, WORK_KERNEL_MEM } work_kernel;
/* Communication inside a layer: collectives on the TP group, and the ring
 * attention's send/receive of a K/V block to the next rank of the CP group. */
typedef enum {
	WORK_COMM_ALLREDUCE = 0,
	WORK_COMM_ALLGATHER,
	WORK_COMM_REDUCESCATTER,
	WORK_COMM_CP_RING,
	WORK_COMM_EP_ALLTOALL, /* MoE dispatch/combine on the EP group; comm_bytes =
				* what one rank sends (nccl-tests' all-to-all size) */
	WORK_COMM_EP_ALLGATHER, /* the MoE dispatcher's token counts gathered over the
				 * EP group; comm_bytes = the gathered buffer */
	WORK_COMM_CP_ALLGATHER, /* every CP rank's K/V gathered (cp_allgather);
				 * comm_bytes = the gathered buffer */
	WORK_COMM_CP_ALLTOALL   /* Ulysses' exchange of heads for tokens over the
				 * CP group (cp_alltoall), blocking; comm_bytes =
				 * the rank's tensor (nccl-tests' all-to-all size) */
} work_comm;

/* Whether a layer collective is context parallelism's K/V exchange, which
 * runs beside the attention steps (a ring transfer or the all-gather). */
static inline bool work_comm_on_cp(work_comm c)
{
	return c == WORK_COMM_CP_RING || c == WORK_COMM_CP_ALLGATHER;
}

/* Whether a layer collective runs on the CP group (the exchange above, or
 * Ulysses' all-to-alls, which block the stream as a TP collective does). */
static inline bool work_comm_cp_group(work_comm c)
{
	return work_comm_on_cp(c) || c == WORK_COMM_CP_ALLTOALL;
}

/* Whether a layer collective runs on the EP group (else TP or CP). */
static inline bool work_comm_on_ep(work_comm c)
{
	return c == WORK_COMM_EP_ALLTOALL || c == WORK_COMM_EP_ALLGATHER;
}

/* One step of a layer's program on one TP rank. */
typedef struct work_item {
	work_item_kind kind;
	char name[24];     /* "qkv", "attn", "proj", "fc1", "act", "fc2", "ln1", "tp_ar", ... */
	work_kernel kernel;
	double m, n, k;    /* GEMM dims, 0 for non-GEMMs */
	double batch;      /* GEMMs of that shape in one grouped kernel (0 = 1) */
	int streams;       /* a grouped GEMM run as `batch` GEMMs over this many
			    * streams (0 = one batched kernel): rounds of
			    * `streams` concurrent GEMMs (layer.c, moe_gemm) */
	double flops;      /* tensor FLOPs */
	double bytes;      /* HBM bytes read + written */
	work_comm comm;    /* for WORK_ITEM_COMM */
	double comm_bytes; /* full buffer size of the collective (per message for CP) */
	int cp_step;       /* ring attention: k-th K/V block transfer (comm items,
			    * k >= 1), or attention step k (kernel items, k >= 1
			    * needs transfer k); 0 elsewhere */
	/* Fused attention kernels (WORK_KERNEL_ATTN): the backward pass or the
	 * forward, the implementation, and qhd = query tokens x query width of
	 * the rank (heads x head_dim), the size hw_flash_time's ramp scales
	 * with. `flops` keeps the papers' count (the full s x s matrix, backward
	 * twice the forward). */
	bool attn_bwd;
	hw_flash_impl attn_impl;
	double attn_qhd;
	double attn_exps; /* the score elements whose exponential the softmax takes, in the
			   * papers' count (the full s x s; plan halves it as the FLOPs) */
	/* Kernels this item stands for (0 = 1): an eager framework's run of
	 * small kernels ("attn_prep": six for the cu_seqlens of varlen
	 * attention) is one item of their summed bytes; each launch costs the
	 * host a framework operation (plan_kernel_time, plan/cost.c). */
	int launches;
	/* Its kernels are launched from C++ (PyTorch's autograd engine:
	 * AccumulateGrad's adds), not by the framework's Python: each launch
	 * costs the host the launch alone, no framework operation
	 * (plan_item_framework_s). */
	bool native;
	/* A TP collective issued asynchronously that runs beside the next item,
	 * a GEMM, the item after that waiting for both (nanotron's async TP
	 * linears; plan/cost.c, plan_tp_beside). */
	bool beside;
} work_item;

/* A layer's items: about 24 without CP (about 40 for the eager codes),
 * plus 2 per ring-attention step. */
#define WORK_MAX_CP 64
#define WORK_MAX_ITEMS (48 + 2 * WORK_MAX_CP)

/* Forward and backward programs of one transformer layer on one TP rank.
 * With context parallelism (cp > 1, flash attention) every token-local kernel
 * works on the rank's s/cp tokens, and the attention core becomes ring
 * attention (Liu et al. 2023; Megatron-Core/TransformerEngine's P2P context
 * parallelism): step k = 0..cp-1 attends the local queries to the K/V block
 * that started on rank r - k, 1/cp of the work of full-sequence attention
 * each (causal masks with the load-balanced (zigzag) split keep the steps equal).
 * Before step k the block arrives from the previous rank: transfer k (k >= 1)
 * of 2*b*(s/cp)*kv*e bytes (K and V) is issued as soon as transfer k - 1
 * ended, so it overlaps step k - 1's compute; the backward passes K/V and
 * their gradients (twice the bytes) and does twice the FLOPs per step.
 * Megatron TP: column-parallel QKV and fc1, row-parallel proj and fc2; without
 * SP one all-reduce after proj and one after fc2 in forward, and one after each
 * of the two column-parallel input gradients in backward; with SP each
 * all-reduce becomes an all-gather before the column-parallel GEMM and a
 * reduce-scatter after the row-parallel GEMM. Backward GEMMs cost twice the
 * forward (input and weight gradients). Return the number of items. */
/* Whether the unfused attention core's softmax runs as Megatron's fused
 * kernel for this shard (work/layer.c attn_unfused derives the rule). */
bool work_softmax_fused(const work_model *m, const work_shard *sh);

int work_layer_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
int work_layer_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
/* The same for a layer of either kind (work_layer_is_moe). An MoE layer keeps
 * the attention block and replaces the MLP (Megatron-Core MoE, expert TP 1,
 * SP required with tp > 1, so a rank routes its Tn = T/t tokens):
 *   ln2, [shared experts: tp_ag, fc1, act, fc2, tp_rs, on T tokens / t],
 *   router GEMM [Tn, h] x [h, E], top-k (fp32 scores), permute (copy k*Tn rows),
 *   all-to-all dispatch of k*Tn*h*e*imbalance bytes over the EP group,
 *   grouped expert GEMMs: E/ep experts, each fc1 [R/(E/ep), h] x [h, fc1] and
 *   fc2 [.., f] x [f, h], R = k*Tn*imbalance tokens on the busiest rank,
 *   activation, all-to-all combine (same size), unpermute and weighted sum,
 *   resid2. Backward mirrors it (each all-to-all once more, GEMMs twice). */
int work_layer_forward_at(const work_model *m, const work_shard *sh, int layer,
			  work_item out[WORK_MAX_ITEMS]);
int work_layer_backward_at(const work_model *m, const work_shard *sh, int layer,
			   work_item out[WORK_MAX_ITEMS]);
/* A program of n items under LoRA (lora.c, where it is derived): in the
 * backward the frozen linears' weight (and bias) gradients dropped and the
 * targeted ones' adapter backward in their place, in the forward each
 * targeted linear's adapter after it; the items unchanged without LoRA.
 * Returns the new count (at most WORK_MAX_ITEMS). */
int work_lora_apply(const work_model *m, const work_shard *sh, bool backward, work_item *v,
		    int n);
/* Embedding lookup (first stage) and logits + loss (last stage), forward and
 * backward; the output GEMM is vocab-parallel over TP. */
int work_embed_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
int work_embed_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
int work_head_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
int work_head_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
/* One multi-token prediction module (mtp.c; m->mtp_layers of them follow
 * the head on the last stage), forward and backward: the shifted tokens'
 * embedding, the two norms and eh_proj, one layer of the last layer's kind,
 * and its own final norm, logits and loss (the head's items). 0 items when
 * the model has none. */
int work_mtp_forward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
int work_mtp_backward(const work_model *m, const work_shard *sh, work_item out[WORK_MAX_ITEMS]);
/* The module's own pieces before its layer, forward or (backward) their
 * backward: the shifted tokens' embedding and its TP reduction
 * (work_mtp_embed), the two norms, the concatenation and eh_proj with its
 * TP gathers (work_mtp_proj). work_mtp_forward is embed, proj, the layer,
 * the head; work_mtp_backward the head's, the layer's, proj's and embed's
 * backwards. plan_build places the pieces itself under Megatron-Core's
 * combined 1F1B (the module as one more layer of the chunk). */
int work_mtp_embed(const work_model *m, const work_shard *sh, bool backward,
		   work_item out[WORK_MAX_ITEMS]);
int work_mtp_proj(const work_model *m, const work_shard *sh, bool backward,
		  work_item out[WORK_MAX_ITEMS]);

typedef enum { WORK_RECOMPUTE_NONE = 0, WORK_RECOMPUTE_SELECTIVE, WORK_RECOMPUTE_FULL } work_recompute;

/* What selective recomputation re-runs: Megatron-Core's recompute_modules
 * (megatron/core/transformer/transformer_config.py:560-580 at
 * NVIDIA/Megatron-LM d98e8a64; default ["core_attn"]), the ones podsim
 * models, as a mask ([parallel] recompute_modules; 0 = the default):
 *   core_attn    the attention core (and CP's ring transfers)
 *   mla_up_proj  MLA's up projections with their latent norms and the
 *                latents' all-gathers, and the RoPE/concatenation
 *                (multi_latent_attention.py:957-961, CheckpointWithoutOutput
 *                of qkv_up_proj_and_rope_apply): Q, K, V are not kept
 *   mlp          a dense layer's MLP (transformer_layer.py:537-539: not an
 *                MoE layer's), between its norm and its residual
 *   moe_act      the experts' activation (acte): its output is not kept. */
enum {
	WORK_RC_CORE_ATTN = 1u,
	WORK_RC_MLA_UP_PROJ = 2u,
	WORK_RC_MLP = 4u,
	WORK_RC_MOE_ACT = 8u,
	WORK_RC_NOTHING = 16u /* no module: selective re-runs nothing (the
			       * framework's code leaves its core attention
			       * unwrapped, plan_shard) */
};
/* Parse a comma-separated list of those names into *out (an empty list is
 * the default, core_attn); SIM_ECONF with the first unknown name in bad. */
int work_recompute_parse(const char *text, unsigned *out, char *bad, size_t len);
/* The items of layer `layer`'s forward program f[0..n) that selective
 * recomputation with `modules` re-runs before the layer's backward, in
 * order, into out; returns their count. */
/* The all-gather of a fully recomputed layer's saved input before its
 * recomputed forward where the shard keeps 1/tp of it (distribute_saved):
 * one TP collective item into out, 1; 0 (nothing) otherwise. */
int work_saved_gather(const work_model *m, const work_shard *sh, work_item *out);
int work_recompute_items(const work_model *m, int layer, const work_item *f, int n,
			 unsigned modules, work_item out[WORK_MAX_ITEMS]);

/* Activation bytes one layer keeps for backward, per micro-batch, on one rank
 * (Korthikanti et al. 2022, table 2, 16-bit activations, s = seq, b = micro
 * batch, h = hidden, a = heads, t = tp):
 *   none, no SP:     s*b*h*(10 + 24/t + 5*a*s/(h*t))
 *   none, SP:        s*b*h*(34/t + 5*a*s/(h*t))
 *   selective, no SP: s*b*h*(10 + 24/t)
 *   selective, SP:   s*b*h*34/t
 *   full:            2*s*b*h (the layer input only; /t with SP)
 * For SwiGLU and GQA the 34 is rebuilt from the tensor sizes (see memory.c). */
double work_activation_bytes(const work_model *m, const work_shard *sh, work_recompute rc);
/* The same for layer `layer` (MoE layers keep k routed copies of the MLP
 * tensors per token, see memory.c). */
double work_activation_bytes_at(const work_model *m, const work_shard *sh, int layer,
				work_recompute rc);

/* What a model's code keeps for its backward besides Korthikanti's fused
 * count (memory.c, "eager and compiled code"): the Megatron/Transformer
 * Engine layers keep the tensors of work_activation_bytes (FUSED); eager
 * PyTorch code (Hugging Face modeling files, torchtune, lit-gpt) keeps every
 * linear layer's input, both SwiGLU branches and their product, the
 * normalisation's inputs (upcast to fp32 by most RMSNorm codes) and, with
 * repeat_kv, K and V at the query width (EAGER); torch.compile's partitioner
 * keeps about the fused set, the two norm inputs beside their outputs and
 * SwiGLU's gate and up but not the product (COMPILED); nanotron's Llama code
 * keeps the eager set with its Triton norms, flash-attn's softmax LSE and,
 * without GQA, the packed Q, K, V copy whole (NANOTRON, memory.c
 * "nanotron"; the norm, expand_kv and attn_out_copy fields do not apply). */
typedef enum {
	WORK_SAVED_FUSED = 0,
	WORK_SAVED_EAGER,
	WORK_SAVED_COMPILED,
	WORK_SAVED_NANOTRON
} work_saved_kind;
/* What one eager normalisation keeps per hidden element (bytes, e = the
 * activation element size): FUSED the input (a layer-norm kernel: e);
 * PLAIN its input and the normalised tensor in 16 bits (2e); UPCAST_INPUT
 * an fp32 copy of the input and the normalised tensor in 16 bits (4 + e:
 * Hugging Face's LlamaRMSNorm, torchtune's RMSNorm); UPCAST the fp32 input
 * and the fp32 normalised tensor (8: litgpt's RMSNorm since 2024). */
typedef enum {
	WORK_SAVE_NORM_FUSED = 0,
	WORK_SAVE_NORM_PLAIN,
	WORK_SAVE_NORM_UPCAST_INPUT,
	WORK_SAVE_NORM_UPCAST
} work_norm_saved;

typedef struct work_saved {
	work_saved_kind kind;
	work_norm_saved norm;
	bool expand_kv;      /* GQA K and V repeated to every query head (repeat_kv) */
	bool attn_out_copy;  /* the attention output copied (transpose + contiguous)
			      * before the output projection, both kept */
	bool fp32_residual;  /* autocast over fp32 parameters: the residual stream
			      * and the norms run in fp32 and every linear layer
			      * keeps its own 16-bit cast of its input */
	bool dropout;        /* dropout on both residual branches (GPT-2's code) */
} work_saved;

/* Bytes layer `layer` keeps for its backward per micro-batch on one rank
 * under code `sv` (NULL or FUSED: work_activation_bytes_at). Full
 * recomputation keeps the layer input, e*s*b*h (4*s*b*h with an fp32
 * residual stream), /t with SP. Derivations in memory.c. */
double work_saved_bytes_at(const work_model *m, const work_shard *sh, int layer,
			   work_recompute rc, const work_saved *sv);
/* Bytes one MTP module keeps for its backward per micro-batch on one rank:
 * its layer's (work_saved_bytes_at of the last layer) and its own tensors
 * (mtp.c); 0 without MTP. */
double work_mtp_saved_bytes(const work_model *m, const work_shard *sh, work_recompute rc,
			    const work_saved *sv);
/* Parameter tensors of layer `layer` on one rank (what a framework that
 * accumulates gradients tensor by tensor launches a kernel for): QKV and the
 * output projection, fc1 and fc2 (gate and up fused), or for an MoE layer
 * the router and two per local expert (experts / ep) plus the shared
 * experts' two; two norm weights (and two biases with layernorm); with biases
 * one per linear. Embedding: 1 (+1 learned positions); output: 1 when untied,
 * plus the final norm's 1 (2 with layernorm). */
int work_layer_param_tensors(const work_model *m, const work_shard *sh, int layer);
int work_ends_param_tensors(const work_model *m, bool first, bool last);
/* Of those, the 2-D ones (weight matrices: the linears' and routed
 * experts'; the embedding, learned positions and an untied output layer);
 * the rest are 1-D (norms, biases). */
int work_layer_mat_tensors(const work_model *m, const work_shard *sh, int layer);
int work_ends_mat_tensors(const work_model *m, bool first, bool last);

/* Bytes of the activation sent between pipeline stages per micro-batch:
 * s*b*h*dtype (divided by t with SP). */
/* Bytes per stored activation element: the compute dtype's, at least 2
 * (fp8 activations are kept in 16 bits). */
double work_act_elem_bytes(const work_shard *sh);
double work_p2p_bytes(const work_model *m, const work_shard *sh);

/* The unfused attention's raw scores [b x a/t, s, s] in the activation
 * dtype, what Megatron-Core's local DotProductAttention writes QK^T into
 * through its global memory buffer (memory.c); 0 under flash attention. */
double work_scores_buffer_bytes(const work_model *m, const work_shard *sh);

#endif
