/* build_int.h - internals shared by the files of the task-graph builder
 * (plan_build, plan_microbatch_cost); not part of plan.h.
 *
 * The builder turns a stage's layer programs into chains of segs (chain.c),
 * places a chain's segs in the graph with a cursor (emit.c; two cursors at
 * once under Megatron-Core's combined 1F1B, combined.c), in the pipeline
 * schedule's order with the sends between stages (pipe.c), then the
 * gradient reduction, parameter gathers and optimizer step (grads.c). The
 * tasks' collectives and copies are timed and added in one place (build.c);
 * the closed forms the sweep's pre-screen shares are in cost.c. A map of the
 * files heads build.c.
 */
#ifndef PODSIM_PLAN_BUILD_INT_H
#define PODSIM_PLAN_BUILD_INT_H

#include "plan.h"

/* One task of a chain before it is placed in the graph. */
typedef struct seg {
	sim_time dur;      /* max(gpu, cpu) for compute tasks */
	sim_time gpu, cpu; /* GPU time of its kernels; host time to issue them */
	uint8_t kind;  /* plan_task_kind */
	int16_t layer; /* -1 outside transformer layers */
	float scaleup, nic, uplink; /* plan_task's scaleup_bytes, nic_bytes, uplink_bytes */
	double flops;
	int cp_step;   /* CP transfer k (kind PLAN_TASK_CP), or a compute task that
			* must wait for transfer k (the ring-attention step k) */
	int ovl;       /* tp_comm_overlap: +1 a TP collective that starts with the next
			* compute task (all-gather before a GEMM), -1 one that starts
			* with the previous one (reduce-scatter after a GEMM); the
			* compute task after the pair waits for both (plan_tp_overlap) */
	int launches;  /* compute tasks: the kernels they stand for */
	sim_time lat;  /* collectives: their time at one byte, the latency (only
			* when builder.latency is set: plan_microbatch_cost) */
	double net_s;  /* a collective's seconds that vary with the fabric (build_add_net) */
	int net_nodes; /* ... the nodes its group spans */
	uint8_t a2a;   /* an MoE all-to-all: 1 the dispatch's (tokens, probabilities),
			* 2 the combine's, 0 anything else (build_emit_pair's cuts) */
	bool aside;    /* delay_wgrad_compute: a weight-gradient task the chain's next
			* link does not wait for (append_backward) */
	int16_t unit;  /* what build_emit_pair pairs as one layer (chain_cuts): the layer,
			* an MTP module (MTP_UNIT), or -1 */
	sim_time held; /* compute tasks under DeepEP (builder.held > 0): the GPU
			* time of its kernels beside DeepEP's (build_kernel_time_held) */
	bool quiet;    /* a tp_comm_overlap collective that takes no SMs from its
			* GEMM (plan_graph_set_quiet; plan_ub_kind) */
	float scale;   /* collectives: their SM share over the interference
			* (plan_comm_scale; 0 = 1) */
	uint8_t end;   /* ZeRO-3's ends (emit.c "The ends"): 1 the embedding's, 2 the
			* head's (MTP modules, final norm, output layer), 0 else */
} seg;

/* The unit of MTP module k's segs (seg.unit): past any stage-local layer. */
#define MTP_UNIT(k) ((int16_t)(INT16_MAX - (k)))

typedef struct chain {
	seg *v;
	int n, cap;
	bool oom;
	sim_time carry; /* host time of collectives issued since the last compute
			 * task, charged to the next one (append_items) */
	uint8_t ends;   /* the seg.end marks it holds, 1 << end */
} chain;

/* ZeRO-3's unit of one transformer layer of a kind (dense, MoE), sized per
 * rank (plan_zero3_layer): what the shard group gathers and reduces, and
 * the routed experts gathered and reduced on their own over the
 * expert-data-parallel group under ep > 1 (sep_*; 0 otherwise). */
typedef struct fsdp_unit {
	double param_bytes; /* one layer's full parameters (16-bit) */
	double grad_bytes;  /* one layer's full gradients */
	double sep_param_bytes, sep_grad_bytes;
	double pass_s;      /* FSDP1's passes over them before the reduce-scatter
			     * (plan_fsdp_reduce_bytes), 0 for none */
	double pre_s;       /* the cast of a layer's gradient to the wire dtype
			     * before its reduce-scatter (plan_zero3_cast_bytes) */
	double flat_s;      /* ... and their assembly on the compute stream
			     * (plan_fsdp_flat_grad_bytes), 0 for none */
	double cast_s;      /* the shard's cast before each all-gather
			     * (plan_fsdp_gather_cast_bytes), 0 for none */
	double post_s[2];   /* after each reduce-scatter: the first
			     * micro-batch's, a later one's
			     * (plan_fsdp_post_reduce_bytes) */
	double sep_pre_s, sep_cast_s, sep_post_s[2]; /* the same for the experts' */
	int pieces;         /* plan_zero3_layer: gather[i] and grad[i] its
			     * shares of the unit's parameters (all pieces,
			     * also without buckets: the gathers) */
	double gather_frac[PLAN_ZERO3_MAX_PIECES], grad_frac[PLAN_ZERO3_MAX_PIECES];
	double tensors;     /* its parameter tensors (zero3_reduce = bucket) */
	double gather_host_s; /* the host's work at its gathers, per pass
			       * (plan_zero3_gather_host_s; emit.c zero3_entry) */
	double mats, vecs;    /* its 2-D and 1-D tensors (qgZ: plan_qgz_layer_tensors) */
} fsdp_unit;

typedef struct fsdp_state {
	bool on;
	int dir;            /* +1 forward chain, -1 backward chain */
	bool secondary;     /* ZeRO++ hpZ: the chain's gathers draw from the
			     * secondary shard (emit.c unit_gather) */
	int layers;
	uint32_t *gather;   /* per layer: all-gather task id, or UINT32_MAX */
	uint32_t *copied;   /* per layer, then the ends (end_copied): the gather
			     * whose copy-out the compute stream ran last
			     * (zero3_gather_copy = compute-stream; emit.c
			     * copy_out) */
	uint32_t *end_copied;
	double wire;        /* bytes on the reduce-scatter's wire per gradient
			     * byte (plan_zero3_wire_bytes / plan_grad_bytes) */
	fsdp_unit unit[2];  /* a dense layer's, an MoE layer's (build_fsdp_unit) */
	/* zero3_reduce = bucket (DeepSpeed's IPG buckets, emit.c
	 * ipg_add): the bucket's bytes, a layer's gradient as `pieces`
	 * tensors (grad_frac) carrying `tensors` parameter tensors in all, the
	 * root unit's (embedding, output layer) added at the backward's end, the
	 * host time per tensor of a bucket's reduction (zero3_rank_op x shard
	 * ranks); and, per backward chain, the open bucket and the host time
	 * owed to the next compute task */
	bool bucket, ended; /* ended: the chain's last bucket was emitted */
	double bucket_bytes, gbytes; /* gbytes: per gradient element */
	double root_bytes, root_tensors, tensor_host_s;
	double ipg_bytes, ipg_fit, ipg_tensors; /* ipg_fit: bytes copied into the buffer */
	/* ZeRO++ qgZ: the open bucket's 2-D and 1-D tensors, and the root
	 * unit's (plan_qgz_layer_tensors, plan_qgz_end_tensors) */
	double ipg_mats, ipg_vecs, root_mats, root_vecs;
	sim_time carry, lead; /* lead: the host's run-ahead (emit.c host_exposed) */
	/* whether the host works at the layers' gathers (a unit's
	 * gather_host_s > 0) or synchronises the device before issuing them
	 * (zero3_sync); the last reduction on the DP stream, which that sync
	 * waits for too */
	bool host_gathers, sync;
	uint32_t rs_last;
	/* plan_zero3_pp_gathered: the gathers persist across a stage's ops
	 * (kept), and the layers whose reduction waits for the end of the
	 * backward chain that completes their gradients (pend, npend: stage-
	 * local layers, at most `layers`) */
	bool kept;
	int16_t *pend;      /* a layer, or -1 - p an end's piece p */
	int npend;
	/* the pending reductions wait for the chunk's last backward send too
	 * (torch's single-stage schedules: pipe.c) */
	bool defer;
	/* ZeRO-3's ends on the stage being built (plan_zero3_root,
	 * plan_zero3_ends; emit.c "The ends"): nends pieces (1: one unit,
	 * flat's root or torchtitan's tied one), their units, their gather
	 * task ids (end_gather: the two slots past gather's layers) */
	int nends;
	fsdp_unit end[2];
	uint32_t *end_gather;
	/* the stage's last layers DeepSpeed's reuse window keeps gathered from a
	 * forward to its backward (plan_zero3_reuse_layers; pipe.c op_begin) */
	int held;
} fsdp_state;

struct layer_prog;

typedef struct builder {
	const plan_scenario *s;
	int *comm_err; /* the first collective the network models could not time */
	plan_graph *g;
	work_shard sh;
	net_group tp, dp, cp, ep; /* the pipeline's hops: plan_pp_pair per send */
	net_group edp;           /* expert-data-parallel: ranks holding the same experts */
	net_group hpz;            /* ZeRO++ hpZ's secondary group (plan_groups) */
	net_group qlocal, qglobal; /* ZeRO++ qgZ's all-to-all groups (plan_groups) */
	net_group shard, replica; /* ZeRO shard group and its replicas (== dp, 1 rank
				   * unless hybrid sharding) */
	net_group embed;         /* first and last stage (tied embeddings) */
	chain *fwd, *bwd; /* per model chunk of the stage being built */
	chain *wgt;       /* zero-bubble: the weight-gradient passes W (bwd holds B) */
	bool zb;
	struct layer_prog *progs; /* five layer kinds' programs (dense, MoE; each
				   * with full or sliding-window attention; an
				   * MTP module) */
	int vpp, vstages; /* chunks per stage; virtual stages pp * vpp */
	int m;          /* micro-batches */
	fsdp_state fsdp; /* ZeRO-3 template (gather array shared, reset per chain) */
	const uint32_t *pgather; /* overlap_param_gather: per stage-local layer, the
				  * gather its next forward waits for, or NULL */
	bool ovl, delay;    /* moe_a2a_overlap (training), delay_wgrad_compute */
	int16_t unit;       /* the seg.unit of what append_items adds now, or -1:
			     * the layer's */
	int held;           /* SMs DeepEP's kernels hold (plan_ep_deepep), else 0 */
	double share;       /* ... their share of the SMs (plan_ep_share) */
	/* ZeRO-3 / FSDP, per stage being built: the last task of each layer's
	 * gradient reduction in the micro-batch that completes the gradients
	 * (fsdp_layer_grads), what the optimizer step waits for, and the
	 * gradient shard each leaves on the GPU (0: already copied to the
	 * host); at most zcap */
	uint32_t *zdone;
	double *zshard;
	int nzdone, zcap;
	plan_netflow *flow; /* [cluster] network = flow, else NULL */
	bool latency;       /* fill seg.lat (plan_microbatch_cost) */
} builder;

/* A chain being emitted, whole or in pieces (build_emit_to; under moe_a2a_overlap
 * two at once: build_emit_pair), with what the walk over its segs carries:
 * the chain's last link and the one before, tp_comm_overlap's pending joins,
 * the CP ring's transfers, the ZeRO-3 layer and overlap_param_gather's layer,
 * the first task, and the last task on the compute stream (tail: the last
 * link, or an aside weight gradient after it). */
typedef struct cursor {
	const chain *c;
	int i, stage, mb;
	uint32_t prev, before, first, tail;
	/* tp_comm_overlap (seg.ovl): the overlapped collective the link after the
	 * pair waits for, and how many links come before that one; held: a join
	 * a second pair displaced, for its GEMM */
	uint32_t join, held;
	int join_skip, cur, pcur;
	uint32_t ring[WORK_MAX_CP + 1]; /* CP transfer ids of the current ring, by
					 * step (cp_step up to cp: work/layer.c
					 * attn_ring's gathered backward) */
	uint32_t *layer_end;
	fsdp_state *f;
	const uint32_t *pgather;
	bool ends_done; /* flat's root reduced after this backward chain */
} cursor;

/* Cross-stage bookkeeping: per stage and micro-batch, the first forward and
 * backward task ids, the pipeline send task ids, and the last task of the
 * step the stage runs before that forward and backward (UINT32_MAX for its
 * first step): a synchronous transfer waits for it (the receiver's side of
 * the rendezvous). */
typedef struct pipe_ids {
	uint32_t *first_f, *first_b, *send_f, *send_b;
	uint32_t *pred_f, *pred_b;
	uint32_t *last_bwd; /* per stage: the last backward task */
	uint32_t *emb_sync; /* per stage: the tied-embedding gradient sync, or UINT32_MAX */
	uint32_t *norm_sync; /* per stage: the last call of the sequence-parallel norm
			      * gradients' sync (build_emit_norm_sync), or UINT32_MAX */
	uint32_t *next_f;   /* per backward step k: the k of the stage's next forward
			     * step, or UINT32_MAX (p2p_serial, build_link_stages) */
	uint32_t *sync_at;  /* per stage and chunk (stage * vpp + chunk), interleaved
			     * Megatron-Core only (plan_chunk_sync): the backward
			     * task after which the chunk's gradient buckets are
			     * launched, or UINT32_MAX (after the backward) */
} pipe_ids;

/* ------------------------------------ build.c: set-up and adding tasks -- */

/* The builder's set-up shared by plan_build and plan_microbatch_cost (the
 * groups, micro-batches, chunks, schedule flags, DeepEP's SMs) and its chains.
 * SIM_OK or SIM_ENOMEM; build_chains_close frees the chains either way. */
int build_init(builder *b, const plan_scenario *s);

/* A collective's cost on group grp: the one place one is timed (alpha-beta,
 * or the flow model under network = flow); the first failure is kept in
 * b->comm_err and the cost is then the caller's to zero. */
int build_comm_cost(const builder *b, net_coll coll, const net_group *grp, double bytes,
		    net_cost *out);
/* The seconds of a collective's time that the fabric's spread scales: the
 * whole call across nodes on a cluster with a measured spread, else 0. */
double build_comm_net_s(const builder *b, const net_group *grp, double time_s);
/* Add task t with net_s seconds varying with the fabric; UINT32_MAX on OOM. */
uint32_t build_add_net(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps,
		       double net_s, int nodes);
/* Per-NIC bytes when every GPU of a node sends `per_rank` bytes off it. */
float build_nic_share(const net_cluster *c, double per_rank);
/* A data-parallel collective of `bytes` on group grp on the DP stream. */
uint32_t build_add_dp_on(builder *b, const net_group *grp, int stage, net_coll coll,
			 double bytes, const uint32_t *deps, uint32_t ndeps, int16_t layer);
/* n collectives of bytes[i] x scale on grp in one NCCL group on the DP stream
 * after dep (plan_call_group_wait): the last task's id, UINT32_MAX on OOM. */
uint32_t build_add_call_group(builder *b, const net_group *grp, int stage, net_coll coll,
			      const double *bytes, int n, double scale, uint32_t dep,
			      int16_t layer);
/* A host <-> GPU copy on the offload stream (from NVMe when nvme). */
uint32_t build_add_copy(builder *b, int stage, double bytes, bool nvme, const uint32_t *deps,
			uint32_t ndeps, int16_t layer);

/* ------------------------------------------------ cost.c: closed forms -- */

/* Does item x's name end in `suffix`? */
bool build_named(const work_item *x, const char *suffix);
/* A kernel's time beside DeepEP's kernels holding `held` SMs (share `share`). */
double build_kernel_time_held(const hw_gpu *gpu, hw_dtype t, const work_item *it, int held,
			      double share);

/* ------------------------------------------------------ chain.c: chains -- */

/* The forward, backward and W chains of every model chunk of `stage` into
 * b->fwd, b->bwd, b->wgt (b->progs holds the layer kinds' programs). */
void build_stage_chains(builder *b, int stage);
/* Did a chain of the stage run out of memory? */
bool build_chains_oom(const builder *b);
/* Allocate b->fwd, b->bwd, b->wgt (b->vpp chains each) and b->progs.
 * SIM_OK or SIM_ENOMEM; build_chains_close frees them either way. */
int build_chains_open(builder *b);
void build_chains_close(builder *b);

/* ---------------------------------------------- emit.c: placing chains -- */

/* A cursor at the start of chain c for micro-batch mb on `stage`. */
void build_cursor_init(cursor *k, const builder *b, const chain *c, int stage, int mb,
		       uint32_t dep, uint32_t *layer_end, fsdp_state *f);
/* Emit the cursor's segs up to index `end`. SIM_OK or SIM_ENOMEM. */
int build_emit_to(builder *b, cursor *k, int end);

/* ----------------------------------------- combined.c: combined 1F1B -- */

/* One combined step of moe_a2a_overlap: forward cursor F and backward
 * cursor B in Megatron-Core's issue order. SIM_OK or SIM_ENOMEM. */
int build_emit_pair(builder *b, cursor *F, cursor *B);

/* ------------------------------------------------- pipe.c: the pipeline -- */

/* The stage's program in schedule order, with its sends. */
int build_emit_schedule(builder *b, int stage, pipe_ids *ids, uint32_t *layer_end);
/* The edges between the stages' sends and the steps that receive them. */
int build_link_stages(builder *b, const pipe_ids *ids);

/* ------------------------------- grads.c: gradients and the optimizer -- */

/* Global layer g's trained parameters per rank: its dense part and its
 * experts (nothing when frozen, LoRA's adapters alone under LoRA). */
void build_layer_trained(const plan_scenario *s, int g, double *dense, double *experts);
/* The MTP modules' routed experts per rank, on the last stage. */
double build_mtp_experts(const plan_scenario *s);
/* Do the output layer and the embedding train? */
bool build_output_trained(const plan_scenario *s);
bool build_embedding_trained(const plan_scenario *s);
/* The stage-local index of the stage's first trained layer (past a frozen
 * prefix). */
int build_first_trained(const plan_scenario *s, int stage);
/* The root unit's trained parameters on `stage` (embedding, output layer)
 * and their tensors (ZeRO-3's buckets, emit.c). */
double build_root_params(const plan_scenario *s, int stage, double *tensors);
/* ZeRO-3's buckets: global layer g's gradient tensors, its pieces'
 * (plan_zero3_layer) plus the norms and biases work counts beside its four
 * linears. */
double build_zero3_layer_tensors(const plan_scenario *s, int g);
/* The unit of stage-local layer `layer` of `stage` (fsdp_state.unit: the
 * MoE layer's where the model's layer is one). */
void build_fsdp_ends(const builder *b, int stage, fsdp_state *f);
int build_fsdp_reduce_after(builder *b, cursor *k, uint32_t end);
const fsdp_unit *build_fsdp_unit(const builder *b, const fsdp_state *f, int stage, int layer);
/* -------------------------------------- buckets.c: ZeRO-0..2 buckets -- */

/* The stage's gradient buckets; returns the DP task ids written to out (at
 * most plan_dp_slots' per stage), or -1 on OOM. sync_at: the stage's chunks'
 * launch points (pipe_ids.sync_at + stage * vpp) or NULL. */
int build_emit_grad_buckets(builder *b, int stage, uint32_t last_bwd, const uint32_t *layer_end,
			    const uint32_t *sync_at, uint32_t *out, double *shard_bytes);
/* Does the interleaved schedule launch each chunk's gradient buckets
 * together at a point of the schedule (Megatron-Core's aligned grad sync,
 * buckets.c)? Then build_emit_schedule fills pipe_ids.sync_at. */
bool build_chunk_sync(const plan_scenario *s);
/* Per chunk c < vpp of `stage`, the backward step (0-based, in schedule
 * order) after which build_chunk_sync launches its buckets, or -1 (after
 * the schedule; all -1 without chunk sync). SIM_OK or SIM_ENOMEM. */
int build_chunk_launch(const plan_scenario *s, int stage, int *step);
/* overlap_param_gather's gathers at the step start; pg[l] per stage-local
 * layer. SIM_OK or SIM_ENOMEM. */
int build_emit_param_gather(builder *b, int stage, uint32_t *pg);
/* ---------------------------------------------------- grads.c, again -- */

/* The stage's optimizer step (and ZeRO-1's parameter all-gather). */
int build_emit_optimizer(builder *b, int stage, pipe_ids *ids, const uint32_t *dp_ids,
			 const double *shard_bytes, int ndp);
/* Sequence parallelism: the norm gradients' all-reduce over TP per stage. */
int build_emit_norm_sync(builder *b, pipe_ids *ids);
/* Tied embeddings with pp > 1: their gradients' all-reduce. */
int build_emit_embedding_sync(builder *b, pipe_ids *ids);

#endif
