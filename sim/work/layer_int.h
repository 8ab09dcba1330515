/* layer_int.h - the work module's internal layer-program helpers, shared by
 * layer.c (the fused programs), nanotron.c (nanotron's eager Llama layer)
 * and the eager codes (eager.c, mpt.c, fms.c, hf_llama.c).
 * Not part of the module's public interface (work.h). */
#ifndef PODSIM_WORK_LAYER_INT_H
#define PODSIM_WORK_LAYER_INT_H

#include "work.h"

/* Per-rank sizes of one layer, shared by the programs below. */
typedef struct dims {
	double b, s, T; /* micro-batch, sequence, tokens */
	double Tn;      /* tokens in the norm/residual regions on this rank */
	double h, t, e; /* e: bytes of a stored activation element */
	double eg;      /* bytes of a GEMM operand (1 for fp8) */
	double qkv_n;   /* per-rank width of the fused QKV output */
	double kv;      /* per-rank K (or V) width */
	double f;       /* per-rank MLP inner size */
	double fc1_n;   /* per-rank fc1 output width (2f for SwiGLU) */
	double V;       /* per-rank vocabulary slice */
	double ah, dh;  /* query heads per rank, head dimension */
	double qd;      /* query width per rank, ah * dh (h/t unless head_dim is set) */
	double kw, vw;  /* per-rank K and V widths at the attention core (kv, or
			 * MLA's ah * (dn + dr) and ah * dv) */
	double ow;      /* attention output = proj input width per rank (qd, or
			 * MLA's ah * dv) */
	/* MLA (work_model_is_mla): latent sizes q_r, k_r, RoPE key width dr,
	 * per-head no-RoPE q/k width dn and value width dv */
	bool mla;
	double qr, kr, dr, dn, dv;
	bool comm, sp, flash;
	bool softmax_fused; /* unfused core: Megatron's fused softmax takes the
			     * shape (else PyTorch's ops; work_softmax_fused) */
	bool gqa;        /* fewer KV heads than query heads */
	hw_flash_impl impl;
	int cp;         /* context-parallel ranks (1 = none); s is the local share */
	bool cp_ag;     /* ... K/V all-gathered (work_shard.cp_allgather) */
	bool cp_a2a;    /* ... Ulysses' all-to-alls (work_shard.cp_alltoall) */
	double window;  /* sliding window of this layer's attention (0 = full) */
} dims;

/* A program being written into the caller's array. */
typedef struct prog {
	work_item *v;
	int n;
} prog;

/* Sizes of a layer on one rank (make_dims in layer.c), and of layer `layer`
 * (its own MLP inner size when it is a dense layer of an MoE model). */
dims wl_dims(const work_model *m, const work_shard *sh);
dims wl_layer_dims(const work_model *m, const work_shard *sh, int layer);
/* Append an item (zeroed, named) and return it. */
work_item *wl_push(prog *p, work_item_kind kind, const char *name);
/* `batch` GEMMs [m, k] x [k, n] in one kernel; a memory-bound kernel of
 * `bytes`; a TP collective of `bytes` (only when tp > 1). */
void wl_gemm_b(prog *p, const dims *d, const char *name, double m, double n, double k,
	       double batch);
void wl_mem(prog *p, const char *name, double bytes);
void wl_comm(prog *p, const dims *d, const char *name, work_comm c, double bytes);
/* The attention core, forward or backward: ring steps under CP, the fused
 * kernel, or the unfused path (layer.c). */
void wl_attn_core(prog *p, const dims *d, bool backward);
/* A norm's bytes, read x and write y: 2 e Tn h. */
double wl_norm_bytes(const dims *d);

/* The TP collectives of the fused placement (layer.c): after a row-parallel
 * GEMM (forward) or a column-parallel input gradient (backward) the
 * all-reduce, or with SP the reduce-scatter; with SP the all-gather before a
 * column-parallel GEMM (forward) or a row-parallel one (backward). */
void wl_comm_reduce(prog *p, const dims *d, const char *ar, const char *rs);
void wl_comm_gather(prog *p, const dims *d, const char *name);

/* eager.c: what eager PyTorch code launches, shared by mpt.c, fms.c and
 * hf_llama.c (derivations there). */
/* A run of `launches` memory-bound kernels moving `bytes` in all. */
void wl_kern(prog *p, const char *name, double bytes, int launches);
/* A GEMM [m, k] x [k, n] forward, and its dgrad and wgrad (+ the bias
 * gradient's reduction when the model has biases). */
void wl_lin_fwd(prog *p, const dims *d, const char *name, double n, double k);
void wl_lin_bwd(prog *p, const work_model *m, const dims *d, const char *name, double n,
		double k);
/* The normalisation an eager code runs on Tn x h: torch's layer-norm kernel
 * (KERNEL: llm-foundry's low-precision LayerNorm, any layer-norm model), or
 * the fp32 RMSNorm of Llama codes written in PyTorch ops (FP32_RMS). */
typedef enum { WL_NORM_KERNEL = 0, WL_NORM_FP32_RMS } wl_norm_code;
void wl_eager_norm(prog *p, const dims *d, const char *name, wl_norm_code c, bool backward);
/* x + y on Tn x h (a residual add, or the gradients met at a fork). */
void wl_eager_add(prog *p, const dims *d, const char *name);
/* GQA's K and V repeated to the query width (forward: copies; backward:
 * the sums back), nothing for MHA. */
void wl_eager_expand_kv(prog *p, const dims *d, bool backward);
/* The MLP between its collectives: gate and up as two GEMMs, SiLU and the
 * product apart (SwiGLU), or one GEMM and the activation's kernel. */
void wl_eager_mlp_fwd(prog *p, const work_model *m, const dims *d);
void wl_eager_mlp_bwd(prog *p, const work_model *m, const dims *d);
/* A Llama code's RoPE on Q and K: bytes per element of q and k and the
 * launches, forward and backward, and the position table it gathers each
 * forward (bytes per token and head-dim element, launches). */
typedef struct wl_rope {
	double fwd, bwd;
	int fwd_n, bwd_n;
	double table;
	int table_n;
} wl_rope;
/* What a newer stack launches beyond the layer's operations (hf_llama.c,
 * hf-llama5; NULL: nothing): the attention backend's auxiliary kernels
 * (memsets, dO.O, dQ's conversion, GQA's head reductions) beside its one
 * kernel, forward and backward (launches and bytes); K and V passed to
 * attention as they are (no repeat_kv copies); and the backward's adds of
 * each parameter tensor's gradient into its .grad (AccumulateGrad), grads
 * launches of 3e per parameter. */
typedef struct wl_llama_extra {
	int attn_fwd_n, attn_bwd_n;
	double attn_fwd, attn_bwd;
	bool no_expand_kv;
	int grads;
	double grad_params;
} wl_llama_extra;
/* The Llama-structured layer (fms.c, hf_llama.c): norm, q/k/v linears, RoPE,
 * [expanded K/V], attention, [the output's copy under unfused attention when
 * out_copy], o, residual, norm, MLP, residual. */
int wl_llama_forward(const work_model *m, const dims *d, const wl_rope *r, bool out_copy,
		     const struct wl_llama_extra *x, work_item *out);
int wl_llama_backward(const work_model *m, const dims *d, const wl_rope *r,
		      const struct wl_llama_extra *x, work_item *out);
/* The norm a code runs on this model (FP32_RMS for an RMSNorm model in a
 * Llama code, else the kernel). */
wl_norm_code wl_llama_norm(const work_model *m);

/* layer.c's kernels that moe.c runs too: a GEMM of the training dtype, its
 * backward's dgrad and wgrad (and of `batch` GEMMs alike), an fp8 recipe's
 * cast of `elems` elements (nothing off fp8), and the TP-split MLP between
 * its collectives, forward and backward, its GEMMs named fc1 and fc2. */
void wl_gemm(prog *p, const dims *d, const char *name, double m, double n, double k);
void wl_gemm_dgrad(prog *p, const dims *d, const char *name, double m, double n, double k);
void wl_gemm_wgrad(prog *p, const dims *d, const char *name, double m, double n, double k);
void wl_gemm_dgrad_b(prog *p, const dims *d, const char *name, double m, double n, double k,
                     double batch);
void wl_gemm_wgrad_b(prog *p, const dims *d, const char *name, double m, double n, double k,
                     double batch);
void wl_fp8_cast(prog *p, const dims *d, const char *name, double elems);
void wl_mlp_forward(prog *p, const work_model *m, const dims *d, const char *fc1,
                    const char *fc2);
void wl_mlp_backward(prog *p, const work_model *m, const dims *d, const char *fc1,
                     const char *fc2);

/* moe.c: the MoE block of a layer in place of its MLP (Megatron-Core's
 * router, dispatch, experts and combine), and DeepSpeed-MoE's GShard
 * layer, forward and backward. */
void wl_moe_forward(prog *p, const work_model *m, const work_shard *sh, const dims *d);
void wl_moe_backward(prog *p, const work_model *m, const work_shard *sh, const dims *d);
void wl_gshard_forward(prog *p, const work_model *m, const work_shard *sh, const dims *d);
void wl_gshard_backward(prog *p, const work_model *m, const work_shard *sh, const dims *d);

/* mpt.c, fms.c, hf_llama.c: the programs of those codes (work.h). */
int wl_mpt_forward(const work_model *m, const dims *d, work_item *out);
int wl_mpt_backward(const work_model *m, const dims *d, work_item *out);
int wl_fms_forward(const work_model *m, const dims *d, work_item *out);
int wl_fms_backward(const work_model *m, const dims *d, work_item *out);
int wl_hf_llama_forward(const work_model *m, const dims *d, work_item *out);
int wl_hf_llama_backward(const work_model *m, const dims *d, work_item *out);
int wl_hf_llama5_forward(const work_model *m, const dims *d, work_item *out);
int wl_hf_llama5_backward(const work_model *m, const dims *d, work_item *out);

/* nanotron.c: the programs of nanotron's eager Llama code (work.h,
 * WORK_LAYER_NANOTRON); each returns the item count. */
int wl_nanotron_forward(const work_model *m, const dims *d, work_item *out);
int wl_nanotron_backward(const work_model *m, const dims *d, work_item *out);
int wl_nanotron_embed_forward(const dims *d, work_item *out);
int wl_nanotron_embed_backward(const dims *d, work_item *out);
int wl_nanotron_head_forward(const dims *d, work_item *out);
int wl_nanotron_head_backward(const dims *d, work_item *out);

#endif
