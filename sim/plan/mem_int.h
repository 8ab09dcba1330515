/* mem_int.h - internals shared by the memory walk's files (not part of
 * plan.h): the stage's terms, sized once by memsize.c (mem_size_stage) and
 * walked over the schedule by memwalk.c (plan_memory_peak and the rest). */
#ifndef PODSIM_PLAN_MEM_INT_H
#define PODSIM_PLAN_MEM_INT_H

#include "plan.h"

/* Everything the walk needs about one stage, sized once (mem_size_stage). */
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
	double secondary; /* ZeRO++ hpZ's secondary shard (memsize.c size_weights) */
	/* forward and backward */
	double gathered, cache;
	double gather_flat; /* ZeRO-3: the largest gather's flat buffers
	                     * (mem_gather_flat_width an element; memsize.c) */
	/* per chunk and micro-batch */
	double *act;     /* kept per chunk (activations + K/V + mask) */
	double *gc;      /* gradients a chunk's first backward leaves */
	double *g16;     /* 16-bit gradients each backward of a chunk leaves until
	                  * it ends (backward_grads) */
	double kv, mask; /* of those, per micro-batch (stage) */
	double loss_fwd, loss_kept, loss_bwd, loss_held;
	double work;       /* a recomputed layer's working set */
	double bwd_grads;  /* a layer's activation gradients in its backward */
	bool bwd_cp;       /* ... which are CP attention's buffers (memsize.c) */
	double fwd_work;   /* CP's buffers in a layer's attention forward */
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

/* Size every term of the stage (mw's fields; the walk adds them up). The
 * caller zeroes *w and gives it w->s, w->stage and the per-chunk arrays act,
 * gc and g16 (vpp each). */
void mem_size_stage(const plan_scenario *s, int stage, mw *w);
/* Whether ZeRO-3 holds the head but not the embedding as the backward
 * starts (torchtitan's and DeepSpeed's ends; memsize.c root_gathered), with
 * the ends' gathered elements (plan_zero3_ends) in ends. */
bool mem_embedding_released(const plan_scenario *s, int stage, double ends[2]);
/* Bytes an element of a ZeRO-3 gather's flat buffers: DeepSpeed's or
 * FSDP2's 16-bit one, qwZ's int8 one and its scales (memsize.c). */
double mem_gather_flat_width(const plan_scenario *s);
/* ZeRO-3's layers gathered at the peak (memsize.c). */
int mem_gathered_layers(const plan_scenario *s, int stage);

#endif
