/* layer_int.h - the work module's internal layer-program helpers, shared by
 * layer.c (the fused programs) and nanotron.c (nanotron's eager Llama layer).
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
	bool comm, sp, flash;
	bool gqa;        /* fewer KV heads than query heads */
	hw_flash_impl impl;
	int cp;         /* context-parallel ranks (1 = none); s is the local share */
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

/* nanotron.c: the programs of nanotron's eager Llama code (work.h,
 * WORK_LAYER_NANOTRON); each returns the item count. */
int wl_nanotron_forward(const work_model *m, const dims *d, work_item *out);
int wl_nanotron_backward(const work_model *m, const dims *d, work_item *out);
int wl_nanotron_embed_forward(const dims *d, work_item *out);
int wl_nanotron_embed_backward(const dims *d, work_item *out);
int wl_nanotron_head_forward(const dims *d, work_item *out);
int wl_nanotron_head_backward(const dims *d, work_item *out);

#endif
