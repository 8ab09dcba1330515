/* build.c - generating one training step's task graph from a plan.
 *
 * Per pipeline stage (one representative rank each) the compute stream runs the
 * schedule's order of micro-batch forwards and backwards (plan_schedule_order).
 * A forward is the chain: [embedding] layer_1 .. layer_L [logits+loss]; a
 * backward the reverse, each layer preceded by its recomputed forward under full
 * recomputation. Inside a layer, consecutive kernels merge into one compute
 * task and every TP collective is a task on the TP stream that the next compute
 * task waits for (Megatron's TP collectives are blocking). Pipeline transfers are
 * tasks on the sender's PP streams (1/tp of the activation per rank with
 * scatter-gather, plan_p2p_bytes); the receiver's first task of that
 * micro-batch waits for them (with scatter-gather that task is the TP
 * all-gather of the slices). Synchronous p2p (plan_p2p_sync) also makes the
 * sender's next step wait for the transfer and the transfer wait for the
 * receiver's step before the consuming one (emit_schedule, link_stages).
 * After the last backward, gradients are reduced
 * over DP in buckets (in backward order; each bucket waits for the last
 * micro-batch's backward of its layers when overlap_grad_reduce is on, for the
 * whole backward otherwise), then the optimizer runs; with ZeRO-1 the buckets
 * are reduce-scattered and the updated parameters all-gathered afterwards, or
 * with overlap_param_gather per bucket at the step start under the forward
 * (emit_param_gather). With tp_comm_overlap a sequence-parallel collective
 * and its GEMM run side by side (plan_tp_overlap).
 */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One task of a chain before it is placed in the graph. */
typedef struct seg {
	sim_time dur;      /* max(gpu, cpu) for compute tasks */
	sim_time gpu, cpu; /* GPU time of its kernels; host time to issue them */
	uint8_t kind;  /* plan_task_kind */
	int16_t layer; /* -1 outside transformer layers */
	float scaleup, nic;
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
	double net_s;  /* a collective's seconds that vary with the fabric (add_net) */
	int net_nodes; /* ... the nodes its group spans */
	uint8_t a2a;   /* an MoE all-to-all: 1 the dispatch's (tokens, probabilities),
			* 2 the combine's, 0 anything else (emit_pair's cuts) */
	bool aside;    /* delay_wgrad_compute: a weight-gradient task the chain's next
			* link does not wait for (append_backward) */
	int16_t unit;  /* what emit_pair pairs as one layer (chain_cuts): the layer,
			* an MTP module (MTP_UNIT), or -1 */
	sim_time held; /* compute tasks under DeepEP (builder.held > 0): the GPU
			* time of its kernels beside DeepEP's (kernel_time_held) */
} seg;

/* The unit of MTP module k's segs (seg.unit): past any stage-local layer. */
#define MTP_UNIT(k) ((int16_t)(INT16_MAX - (k)))

typedef struct chain {
	seg *v;
	int n, cap;
	bool oom;
	sim_time carry; /* host time of collectives issued since the last compute
			 * task, charged to the next one (append_items) */
} chain;

typedef struct fsdp_state {
	bool on;
	int dir;            /* +1 forward chain, -1 backward chain */
	int layers;
	uint32_t *gather;   /* per layer: all-gather task id, or UINT32_MAX */
	double param_bytes; /* one layer's full parameters (16-bit) */
	double grad_bytes;  /* one layer's full gradients */
	double pass_s;      /* FSDP1's passes over them before the reduce-scatter
			     * (plan_fsdp_reduce_bytes), 0 for none */
	double flat_s;      /* ... and their assembly on the compute stream
			     * (plan_fsdp_flat_grad_bytes), 0 for none */
} fsdp_state;

struct layer_prog;

typedef struct builder {
	const plan_scenario *s;
	int *comm_err; /* the first collective the network models could not time */
	plan_graph *g;
	work_shard sh;
	net_group tp, dp, pp, cp, ep;
	net_group edp;           /* expert-data-parallel: ranks holding the same experts */
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
	plan_netflow *flow; /* [cluster] network = flow, else NULL */
	bool latency;       /* fill seg.lat (plan_microbatch_cost) */
} builder;

static void chain_push(chain *c, seg x)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		seg *v = realloc(c->v, (size_t)cap * sizeof *v);
		if (!v) {
			c->oom = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = x;
}

net_coll plan_comm_coll(work_comm c)
{
	switch (c) {
	case WORK_COMM_CP_RING:
		return NET_P2P;
	case WORK_COMM_EP_ALLTOALL:
		return NET_ALLTOALL;
	case WORK_COMM_ALLGATHER:
	case WORK_COMM_EP_ALLGATHER:
		return NET_ALLGATHER;
	case WORK_COMM_REDUCESCATTER:
		return NET_REDUCESCATTER;
	default:
		return NET_ALLREDUCE;
	}
}

/* The one place a collective is timed: net's alpha-beta closed forms, or with
 * [cluster] network = flow the flow model on the link graph (netflow.c), on
 * the group's size and stride (plan_make_groups). */
static int comm_cost(const builder *b, net_coll coll, const net_group *grp, double bytes,
		     net_cost *out)
{
	int rc = !b->flow ? net_collective(&b->s->cluster, coll, grp, bytes, out)
			  : plan_netflow_cost(b->flow, coll, grp, grp->size, grp->stride, bytes, out);
	/* callers carry on with a zero cost; plan_build then fails the whole
	 * graph rather than return a step with a free collective in it */
	if (rc != SIM_OK && b->comm_err && *b->comm_err == SIM_OK)
		*b->comm_err = rc;
	return rc;
}

/* On a cluster with a measured spread, the seconds of a collective's time
 * `time_s` (comm_cost's) that the fabric's variability scales: the network
 * part N of net_network_time as a share of the alpha-beta time, applied to
 * time_s (the flow model's time of the same collective where it timed it;
 * the two agree on EFA's non-blocking fabric, test_flow). 0 elsewhere. */
static double comm_net_s(const builder *b, net_coll coll, const net_group *grp, double bytes,
			 double time_s)
{
	const net_cluster *c = &b->s->cluster;
	if (c->nspread < 1 || c->fabric != NET_FABRIC_EFA || grp->nodes <= 1 || !(time_s > 0))
		return 0;
	net_cost ab;
	if (net_collective(c, coll, grp, bytes, &ab) != SIM_OK || !(ab.time_s > 0))
		return 0;
	return net_network_time(c, coll, grp, bytes) / ab.time_s * time_s;
}

/* Add task t, net_s seconds of whose duration vary with the fabric (its
 * group spanning `nodes` nodes): plan_graph_add, then plan_graph_set_net
 * when net_s > 0. UINT32_MAX on OOM. */
static uint32_t add_net(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps,
			double net_s, int nodes)
{
	uint32_t id = plan_graph_add(g, t, deps, ndeps);
	double d = sim_time_to_s(t->dur);
	if (id != UINT32_MAX && net_s > 0 && d > 0 &&
	    plan_graph_set_net(g, id, net_s / d, nodes) != SIM_OK)
		return UINT32_MAX;
	return id;
}

/* Per-NIC bytes when every GPU of a node sends `per_rank` bytes off the node. */
static float nic_share(const net_cluster *c, double per_rank)
{
	return (float)(per_rank * c->node.gpus / (c->node.nics > 0 ? c->node.nics : 1));
}

static double kernel_time_one(const hw_gpu *gpu, hw_dtype t, const work_item *it);

/* An item standing for several kernels (work_item.launches) pays the
 * launch and the framework's host cost once per kernel. */
static double extra_launches(const hw_gpu *gpu, const work_item *it)
{
	return it->launches > 1 ? (it->launches - 1) * hw_overhead(gpu) : 0.0;
}

double plan_kernel_time(const hw_gpu *gpu, hw_dtype t, const work_item *it)
{
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

static double kernel_time_one(const hw_gpu *gpu, hw_dtype t, const work_item *it)
{
	switch (it->kernel) {
	case WORK_KERNEL_GEMM:
		return gemm_time(gpu, t, it);
	case WORK_KERNEL_ATTN: /* fp8 recipes keep attention in bf16 */
		/* the papers' FLOPs (full s x s, backward 2x) -> what the fused
		 * kernel executes: causal half, backward 2.5x the forward (hw/attn.c) */
		return hw_flash_time(gpu, t == HW_FP8 ? HW_BF16 : t, it->attn_impl, it->attn_bwd,
				     it->flops * 0.5 * (it->attn_bwd ? 1.25 : 1.0), it->attn_qhd,
				     it->bytes);
	default:
		return hw_mem_time(gpu, it->bytes);
	}
}

/* A kernel's time beside DeepEP's kernels, which hold `held` SMs, a share
 * `share` of them, for its whole run: a GEMM's tiles in waves on the SMs
 * left (hw_gemm_time_held; with work_item.streams each round's batched grid
 * so, as gemm_time), any other kernel (fused attention, memory-bound ops)
 * progressing at 1 - share, (t - overhead) / (1 - share) + overhead. */
static double kernel_time_held(const hw_gpu *gpu, hw_dtype t, const work_item *it, int held,
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
 * --tp-comm-overlap). Assumption, from our knowledge of TE and Megatron-Core
 * (no source at hand here): with sequence parallelism TE splits the
 * all-gather of the [s/t, b, h] input of a column-parallel GEMM (QKV, FC1;
 * backward: the output gradient before the row-parallel proj and FC2 dgrad)
 * and the reduce-scatter of a row-parallel GEMM's output (proj, FC2;
 * backward: the input gradient after the QKV and FC1 dgrad) into t chunks
 * exchanged over a ring of p2p copies, each chunk's GEMM running while the
 * next chunk moves. A t-step pipeline with GEMM chunks of g/t and transfers of
 * c/(t-1) (t-1 of them) takes
 *   g/t + (t-1) * max(g/t, c/(t-1)) = max(g, c + g/t)
 * (the first chunk computes before the ring has anything to send, or the last
 * after it is done). So the pair is modelled as the GEMM (g) and the
 * collective lengthened by one chunk (c + g/t) started together, the next
 * task waiting for both: max(g, c + g/t) instead of g + c. While the
 * collective runs the GEMM still slows by the GPU's interference (replay.c),
 * so with interference i the pair takes max(c', g + i*c'), c' = c + g/t.
 * Only a TP all-gather directly before a GEMM, or a reduce-scatter directly
 * after one, with a kernel before the pair and something after it in the same
 * program (so the pair never begins or ends a chain or a layer). Returns +1,
 * -1 (seg.ovl) or 0 for item i (plan.h: the sweep's pre-screen times the
 * same pairs). */
static bool named(const work_item *x, const char *suffix)
{
	size_t n = strlen(x->name), k = strlen(suffix);
	return n >= k && !strcmp(x->name + n - k, suffix);
}

/* The chunked pairs of tp_comm_overlap (the comment above), or 0. */
static int ub_overlap(const plan_scenario *s, const work_item *it, int n, int i)
{
	if (!s->plan.tp_comm_overlap)
		return 0;
	if (it[i].comm == WORK_COMM_ALLGATHER && i >= 1 && i + 2 < n &&
	    it[i - 1].kind == WORK_ITEM_KERNEL && is_gemm(&it[i + 1]))
		return 1;
	if (it[i].comm == WORK_COMM_REDUCESCATTER && i >= 2 && i + 1 < n &&
	    it[i - 2].kind == WORK_ITEM_KERNEL && is_gemm(&it[i - 1]))
		return -1;
	return 0;
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
	return i >= 1 && i + 1 < n && is_gemm(&it[i - 1]) && named(&it[i - 1], "_dgrad") &&
	       is_gemm(&it[i + 1]) && named(&it[i + 1], "_wgrad");
}

bool plan_tp_beside(const plan_scenario *s, const work_item *it, int n, int i)
{
	if (it[i].kind != WORK_ITEM_COMM || i + 1 >= n || !is_gemm(&it[i + 1]))
		return false;
	return it[i].beside || (ub_overlap(s, it, n, i) == 0 && dgrad_async(s, it, n, i));
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

/* Append a program of work items to chain c: kernels merge into the open compute
 * task of kind `kind`; each TP collective closes it and adds a TP task. With
 * tp_comm_overlap a GEMM overlapped with its collective is a compute task of
 * its own (plan_tp_overlap). */
static void append_items(builder *b, chain *c, const work_item *it, int n, uint8_t kind,
			 int16_t layer)
{
	bool open = false;
	int16_t unit = b->unit >= 0 ? b->unit : layer; /* seg.unit */
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_COMM) {
			bool ring = it[i].comm == WORK_COMM_CP_RING;
			bool ep = work_comm_on_ep(it[i].comm);
			const net_group *grp = ring ? &b->cp : ep ? &b->ep : &b->tp;
			net_cost cost;
			if (comm_cost(b, plan_comm_coll(it[i].comm), grp, it[i].comm_bytes, &cost) != SIM_OK)
				cost = (net_cost){0};
			uint8_t kind_c = ring ? PLAN_TASK_CP : ep ? PLAN_TASK_EP : PLAN_TASK_TP;
			double net_s = comm_net_s(b, plan_comm_coll(it[i].comm), grp, it[i].comm_bytes,
						  cost.time_s);
			int ovl = plan_tp_overlap(b->s, it, n, i);
			if (ovl != 0 && !plan_tp_beside(b->s, it, n, i)) { /* lengthened by one GEMM chunk: see plan_tp_overlap */
				const work_item *gm = &it[i + ovl];
				double gs = plan_kernel_time(&b->s->gpu, b->sh.dtype, gm) -
					    b->s->gpu.framework_s;
				cost.time_s += gs / b->tp.size;
			}
			seg x = {sim_time_from_s(cost.time_s), 0, 0, kind_c, layer, (float)cost.intra_bytes,
				 nic_share(&b->s->cluster, cost.inter_bytes), 0, it[i].cp_step, ovl, 0, 0,
				 net_s, grp->nodes, 0, false, unit, 0};
			if (ep && it[i].comm == WORK_COMM_EP_ALLTOALL)
				x.a2a = named(&it[i], "ep_combine") ? 2 : 1;
			net_cost one;
			if (b->latency && net_collective(&b->s->cluster, plan_comm_coll(it[i].comm), grp,
							 1.0, &one) == SIM_OK)
				x.lat = sim_time_from_s(one.time_s);
			chain_push(c, x);
			/* [framework] comm_host_op: the host issues the collective
			 * too, one framework operation charged to the compute task
			 * after it */
			if (b->s->fw.comm_host_op)
				c->carry = sim_time_add_sat(
					c->carry, sim_time_from_s(b->s->gpu.launch_s + b->s->gpu.framework_s));
			if (!ring) /* a TP collective blocks; a ring transfer overlaps */
				open = false;
			continue;
		}
		/* The host issues kernels asynchronously: each costs it the launch
		 * plus the framework's per-op overhead, while the GPU runs them back
		 * to back, so a run of kernels between two collectives takes
		 * max(GPU time, host time) (a CPU-bound run when kernels are tiny
		 * and the framework eager). hw's kernel times include launch and
		 * framework overhead as a serial cost; on the GPU side the launch
		 * stays (the gap between kernels), the framework part moves to the
		 * host. With no framework overhead this is the serial sum. */
		const hw_gpu *gpu = &b->s->gpu;
		double k = plan_kernel_time(gpu, b->sh.dtype, &it[i]);
		int nk = it[i].launches > 1 ? it[i].launches : 1; /* kernels it stands for */
		sim_time g = sim_time_from_s(k - nk * gpu->framework_s);
		sim_time gh = b->held > 0 ? sim_time_from_s(kernel_time_held(gpu, b->sh.dtype, &it[i],
									    b->held, b->share) -
							  nk * gpu->framework_s)
					  : g;
		sim_time h = sim_time_from_s(nk * (gpu->launch_s + gpu->framework_s));
		/* a GEMM beside an overlapped collective: a task of its own */
		bool alone = (i >= 1 && plan_tp_overlap(b->s, it, n, i - 1) == 1) ||
			     (i + 1 < n && plan_tp_overlap(b->s, it, n, i + 1) == -1);
		if (!open || alone || c->n == 0 || it[i].cp_step > 0) {
			seg x = {0, 0, 0, kind, layer, 0, 0, 0, it[i].cp_step, 0, 0, 0, 0, 0, 0, false,
				 unit, 0};
			chain_push(c, x);
			open = true;
			if (c->oom)
				return;
		}
		seg *x = &c->v[c->n - 1];
		if (x->kind == PLAN_TASK_CP) { /* the ring step is a new compute task */
			seg y = {0, 0, 0, kind, layer, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, unit, 0};
			chain_push(c, y);
			if (c->oom)
				return;
			x = &c->v[c->n - 1];
		}
		/* saturating: a duration past the clock is reported by
		 * plan_graph_add, not wrapped */
		x->gpu = sim_time_add_sat(x->gpu, g);
		x->held = sim_time_add_sat(x->held, gh);
		x->launches += nk;
		x->cpu = sim_time_add_sat(x->cpu, sim_time_add_sat(h, c->carry));
		c->carry = 0;
		x->dur = x->gpu > x->cpu ? x->gpu : x->cpu;
		x->flops += it[i].flops;
		if (alone) /* the kernels after the pair wait for the collective too */
			open = false;
	}
}

/* Zero-bubble split of a backward program: the weight-gradient GEMMs (W: named
 * "*_wgrad", except the attention core's, which are activation gradients) move
 * to w[], the rest (B) stays in order in it[]. Returns B's count. */
static int split_weight_grads(work_item *it, int n, work_item *w, int *nw)
{
	int nb = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(it[i].name);
		bool wgrad = it[i].kind == WORK_ITEM_KERNEL && len > 6 &&
			     !strcmp(it[i].name + len - 6, "_wgrad") &&
			     strncmp(it[i].name, "attn", 4) != 0;
		if (wgrad)
			w[(*nw)++] = it[i];
		else
			it[nb++] = it[i];
	}
	return nb;
}

/* Build the forward and backward chains of every model chunk of a stage.
 * Chunk c of stage st is virtual stage v = c * pp + st and holds the stage's
 * local layers first_c .. first_c + n_c - 1 (plan_chunk_layers: the layout may
 * be uneven); the embedding runs on virtual stage 0, logits and loss on the
 * last one. */
/* One layer kind's programs (dense, or MoE): forward, backward (B with the
 * zero-bubble split), weight passes W, and what selective recomputation
 * re-runs (work_recompute_items: by default the attention core, "attn"
 * (flash) or "attn_qk", "attn_softmax", ...; with CP the ring's transfers
 * too; [parallel] recompute_modules). */
typedef struct layer_prog {
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS], w[WORK_MAX_ITEMS], core[WORK_MAX_ITEMS];
	int nf, nb, nw, nc;
} layer_prog;

static void make_layer_prog(const builder *b, int layer, layer_prog *lp)
{
	const work_model *m = &b->s->model;
	lp->nf = work_layer_forward_at(m, &b->sh, layer, lp->f);
	lp->nb = work_layer_backward_at(m, &b->sh, layer, lp->b);
	lp->nw = lp->nc = 0;
	if (b->zb)
		lp->nb = split_weight_grads(lp->b, lp->nb, lp->w, &lp->nw);
	lp->nc = work_recompute_items(m, layer, lp->f, lp->nf, b->sh.recompute_modules, lp->core);
}

/* Append n items of src to a program of *n0 items (their sum fits: the
 * same items work_mtp_forward and work_mtp_backward hold). */
static void prog_cat(work_item *dst, int *n0, const work_item *src, int n)
{
	memcpy(dst + *n0, src, (size_t)n * sizeof *src);
	*n0 += n;
}

/* A multi-token prediction module (work/mtp.c) as the layer Megatron-Core
 * makes it, the last layer of the last chunk: f its norms, concatenation and
 * eh_proj and then its transformer layer (what full recomputation re-runs:
 * MultiTokenPredictionLayer.forward checkpoints _proj_and_transformer_layer,
 * not the embedding before it, megatron/core/transformer/
 * multi_token_prediction.py:1696-1736 at NVIDIA/Megatron-LM d98e8a64), b
 * their backward and the embedding's, core what selective recomputation
 * re-runs of the layer (its TransformerLayer has the model's config, so the
 * same recompute_modules). The embedding's forward goes before f
 * (stage_chains); the module's final norm, logits and loss are the head's
 * items, which Megatron-Core computes in the model's post-process
 * (GPTModel._postprocess, models/gpt/gpt_model.py:665-746 at d98e8a64,
 * :468-508 at 23e00ed096; the schedule's mtp_post_process node holds only
 * the module's final norm, multi_token_prediction.py:1433-1445,
 * models/common/fine_grained_callables.py:101-107: the norm is counted with
 * the logits here). */
static void make_mtp_prog(const builder *b, layer_prog *lp)
{
	const work_model *m = &b->s->model;
	int g = m->layers - 1;
	work_item x[WORK_MAX_ITEMS];
	lp->nf = lp->nb = lp->nw = 0;
	prog_cat(lp->f, &lp->nf, x, work_mtp_proj(m, &b->sh, false, x));
	int nl = work_layer_forward_at(m, &b->sh, g, x);
	prog_cat(lp->f, &lp->nf, x, nl);
	lp->nc = work_recompute_items(m, g, x, nl, b->sh.recompute_modules, lp->core);
	prog_cat(lp->b, &lp->nb, x, work_layer_backward_at(m, &b->sh, g, x));
	prog_cat(lp->b, &lp->nb, x, work_mtp_proj(m, &b->sh, true, x));
	prog_cat(lp->b, &lp->nb, x, work_mtp_embed(m, &b->sh, true, x));
	if (b->zb)
		lp->nb = split_weight_grads(lp->b, lp->nb, lp->w, &lp->nw);
}

/* The receiver's side of a scatter-gather pipeline transfer (plan_p2p_bytes):
 * the TP group all-gathers the slices its ranks received, a blocking TP
 * collective before the chain's first compute task. */
static void append_p2p_gather(builder *b, chain *c)
{
	double bytes;
	plan_p2p_bytes(b->s, &bytes);
	if (bytes <= 0)
		return;
	work_item ag = {.kind = WORK_ITEM_COMM, .comm = WORK_COMM_ALLGATHER, .comm_bytes = bytes};
	append_items(b, c, &ag, 1, PLAN_TASK_TP, -1);
}


/* The trained parameters of global layer g per rank, what has gradients to
 * accumulate, reduce and gather back: the layer's dense part over tp and its
 * experts over ep; LoRA's adapters alone (plan_lora_layer_params, per TP
 * rank); nothing for a frozen layer (train.frozen_layers). */
static void layer_trained(const plan_scenario *s, int g, double *dense, double *experts)
{
	const work_model *m = &s->model;
	const plan_spec *p = &s->plan;
	double e = work_params_layer_experts(m, g), ep = p->ep > 1 ? p->ep : 1;
	*dense = *experts = 0;
	if (plan_layer_frozen(s, g))
		return;
	if (s->train.lora_rank > 0) {
		*dense = plan_lora_layer_params(s);
		return;
	}
	*dense = (work_params_layer_at(m, g) - e) / p->tp;
	*experts = e / ep;
}

/* The MTP modules' routed experts per rank (whole experts over ep), which
 * the last stage holds with its output layer (work_params_output has the
 * rest of the modules). */
static double mtp_experts(const plan_scenario *s)
{
	return work_params_mtp_experts(&s->model) / (s->plan.ep > 1 ? s->plan.ep : 1);
}

/* Do the embedding and the output layer train (not under LoRA unless
 * train_embeddings; the embedding not under frozen_layers)? */
static bool output_trained(const plan_scenario *s)
{
	return s->train.lora_rank <= 0 || s->train.train_embeddings;
}

static bool embedding_trained(const plan_scenario *s)
{
	return output_trained(s) && s->train.frozen_layers <= 0;
}

/* [framework] grad_accum = kernel (nanotron's FP32GradientAccumulator,
 * optim/gradient_accumulator.py:204-221 at 0e0a27ea: after loss.backward()
 * every parameter's 16-bit gradient is added into its fp32 buffer,
 * fp32_grad.add_(half_param.grad), one kernel per parameter tensor; on the
 * step's last micro-batch under DDP the communication hook does the same add
 * bucket by bucket, helpers.py:419 and gradient_accumulator.py:341): after
 * every micro-batch's backward of a chunk, one memory-bound task reading the
 * gradient (e bytes) and reading and writing the accumulator (4 + 4 with
 * fp32_grads, else e + e) for each of the chunk's local parameters, one
 * launch per parameter tensor (work_layer_param_tensors). Independent of the
 * micro-batch's tokens: a fixed cost per micro-batch. It closes the chain
 * that completes the gradients (the backward, or W under ZB-H1); the DP
 * buckets, which wait for their layers' last task, may start before it. */
static void append_grad_accum(builder *b, chain *c, int stage, int chunk)
{
	work_item it;
	if (plan_grad_accum_item(b->s, stage, chunk, &it))
		append_items(b, c, &it, 1, b->zb ? PLAN_TASK_WGRAD : PLAN_TASK_BWD, -1);
}

bool plan_grad_accum_item(const plan_scenario *s, int stage, int chunk, work_item *out)
{
	const work_model *m = &s->model;
	const plan_spec *p = &s->plan;
	if (s->fw.grad_accum != PLAN_ACCUM_KERNEL || s->inference)
		return false;
	work_shard sh = plan_shard(s);
	double params = 0;
	int tensors = 0, vstages = p->pp * p->vpp;
	for (int c = 0, local = 0; c < p->vpp; c++) {
		int l0, nl = plan_chunk_layers(s, stage, c, &l0), v = c * p->pp + stage;
		local += nl;
		if (chunk >= 0 && c != chunk)
			continue;
		for (int l = 0; l < nl; l++) {
			int g = plan_global_layer(s, stage, l0 + l);
			double d, x;
			layer_trained(s, g, &d, &x);
			if (d + x <= 0)
				continue; /* no gradient to accumulate */
			params += d + x;
			tensors += work_layer_param_tensors(m, &sh, g);
		}
		tensors += work_ends_param_tensors(m, v == 0, v == vstages - 1);
		if (v == 0 && embedding_trained(s))
			params += work_params_embedding(m) / p->tp;
		if (v == vstages - 1 && output_trained(s))
			params += work_params_output(m) / p->tp + mtp_experts(s);
	}
	double e = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	double acc = p->fp32_grads ? 4.0 : e;
	*out = (work_item){.kind = WORK_ITEM_KERNEL, .kernel = WORK_KERNEL_MEM,
			   .bytes = params * (e + 2.0 * acc), .launches = tensors > 0 ? tensors : 1};
	snprintf(out->name, sizeof out->name, "grad_accum");
	return params > 0;
}

/* delay_wgrad_compute: the weight-gradient GEMMs Transformer Engine defers
 * (TransformerLayerNode.backward_dw runs the node's bwd_dw_callables:
 * the experts' grouped linears for the "mlp" node, the attention's QKV and
 * output projections and the shared experts for "pre_dispatch_computation",
 * megatron/core/models/gpt/fine_grained_callables.py:272 and
 * models/common/utils.py:379-421 at NVIDIA/Megatron-LM d98e8a64; a dense
 * layer's MLP, transformer/mlp.py:385). The router's GEMM is a plain
 * matmul with its gradient in the backward; the attention core has no
 * weights (split_weight_grads' rule). */
static bool deferred_wgrad(const work_item *x)
{
	return x->kind == WORK_ITEM_KERNEL && named(x, "_wgrad") && strncmp(x->name, "attn", 4) != 0 &&
	       strncmp(x->name, "router", 6) != 0;
}

/* Append items [lo, hi) of a backward program to c; with `w` (not NULL) the
 * deferred weight gradients among them go to w[] instead. */
static void append_part(builder *b, chain *c, const work_item *it, int lo, int hi, int16_t layer,
			work_item *w, int *nw)
{
	work_item x[WORK_MAX_ITEMS];
	int n = 0;
	for (int i = lo; i < hi; i++) {
		if (w && deferred_wgrad(&it[i]))
			w[(*nw)++] = it[i];
		else
			x[n++] = it[i];
	}
	append_items(b, c, x, n, PLAN_TASK_BWD, layer);
}

/* Deferred weight gradients as tasks the chain does not wait for (seg.aside). */
static void append_aside(builder *b, chain *c, const work_item *w, int nw, int16_t layer)
{
	int from = c->n;
	append_items(b, c, w, nw, PLAN_TASK_WGRAD, layer);
	for (int i = from; i < c->n; i++)
		c->v[i].aside = true;
}

/* One layer's backward under moe_a2a_overlap, in the order its pieces run
 * in Megatron-Core's combined 1F1B (TransformerLayerSchedulePlan.run, the
 * derivation before emit_pair): the combine's backward C (with what precedes
 * it: the residual and unpermutation gradients), the experts' backward M, the
 * dispatch's backward D, then the attention part A, the selectively
 * recomputed attention core at A's start (it recomputes inside the
 * attention's backward). With delay_wgrad_compute (b->delay) M's deferred
 * weight gradients W_m follow M as aside tasks, and A's, W_a, are held in
 * pend[] and placed after the next layer's gradient reaches its combine
 * (before that C, which waits only for the part before it: the backward_dw
 * of "pre_dispatch_computation" runs after the layer, models/common/
 * model_chunk_schedule_plan.py:298-301, and the combine's backward node
 * waits on the chunk's event, recorded by A's backward, not by backward_dw,
 * models/common/utils.py:323-358, pipeline_parallel/utils.py:323-345). A
 * layer without all-to-alls (dense) is all A. */
static void append_backward(builder *b, chain *c, const layer_prog *lp, int16_t id, bool sel,
			    work_item *pend, int *npend, int16_t pid)
{
	const work_item *it = lp->b;
	int n = lp->nb, cend = 0, dst = -1, dend = 0;
	for (int i = 0; i < n; i++) {
		if (it[i].kind != WORK_ITEM_COMM || it[i].comm != WORK_COMM_EP_ALLTOALL)
			continue;
		if (named(&it[i], "ep_combine"))
			cend = i + 1;
		else if (dst < 0 || dend == i)
			dst = dst < 0 ? i : dst, dend = i + 1;
	}
	if (dst < 0 || dst < cend)
		cend = dst = dend = 0; /* no dispatch after a combine: all A */
	work_item wm[WORK_MAX_ITEMS], wa[WORK_MAX_ITEMS];
	int nwm = 0, nwa = 0;
	work_item *dm = b->delay ? wm : NULL, *da = b->delay ? wa : NULL;
	append_part(b, c, it, 0, cend > 0 ? cend - 1 : 0, id, dm, &nwm);
	if (*npend > 0) /* W_a of the layer before in the backward (pid) */
		append_aside(b, c, pend, *npend, pid);
	*npend = 0;
	append_part(b, c, it, cend > 0 ? cend - 1 : 0, cend, id, dm, &nwm);
	append_part(b, c, it, cend, dst, id, dm, &nwm);
	append_aside(b, c, wm, nwm, id);
	append_part(b, c, it, dst, dend, id, NULL, NULL);
	if (sel)
		append_items(b, c, lp->core, lp->nc, PLAN_TASK_RECOMP, id);
	append_part(b, c, it, dend, n, id, da, &nwa);
	memcpy(pend, wa, (size_t)nwa * sizeof *wa);
	*npend = nwa;
}

/* One layer's backward (or an MTP module's, make_mtp_prog) into the chunk's
 * chains: under moe_a2a_overlap append_backward (pend, npend and *pl carry
 * the attention's held weight gradients and the layer they belong to), else
 * its recomputation, B, and W under the zero-bubble split. */
static void layer_backward(builder *b, chain *bk, chain *wt, const layer_prog *lp, int16_t id,
			   work_item *pend, int *npend, int16_t *pl)
{
	bool full = b->s->plan.recompute == WORK_RECOMPUTE_FULL;
	bool sel = b->s->plan.recompute == WORK_RECOMPUTE_SELECTIVE;
	if (b->ovl) {
		append_backward(b, bk, lp, id, sel, pend, npend, *pl);
		*pl = id;
		return;
	}
	if (full)
		append_items(b, bk, lp->f, lp->nf, PLAN_TASK_RECOMP, id);
	else if (sel)
		append_items(b, bk, lp->core, lp->nc, PLAN_TASK_RECOMP, id);
	append_items(b, bk, lp->b, lp->nb, PLAN_TASK_BWD, id);
	append_items(b, wt, lp->w, lp->nw, PLAN_TASK_WGRAD, id);
}

static void stage_chains(builder *b, int stage)
{
	const work_model *m = &b->s->model;
	int pp = b->s->plan.pp;
	work_item x[WORK_MAX_ITEMS], wg[WORK_MAX_ITEMS];
	/* [0] dense, [1] MoE, [2] and [3] the same with a sliding window
	 * (work_layer_windowed), [4] an MTP module (make_mtp_prog), made on
	 * first use */
	layer_prog *kinds = b->progs;
	bool made[5] = {false, false, false, false, false};
	int local = 0; /* stage-local index of the chunk's first layer */
	b->unit = -1;
	for (int c = 0; c < b->vpp; c++) {
		chain *fw = &b->fwd[c], *bk = &b->bwd[c];
		int v = c * pp + stage, l0, nl = plan_chunk_layers(b->s, stage, c, &l0);
		chain *wt = &b->wgt[c];
		fw->n = bk->n = wt->n = 0;
		fw->carry = bk->carry = wt->carry = 0;
		const layer_prog *lp[nl > 0 ? nl : 1];
		for (int l = 0; l < nl; l++) {
			int g = plan_global_layer(b->s, stage, local + l);
			int k = work_layer_is_moe(m, g) + 2 * work_layer_windowed(m, g);
			if (!made[k])
				make_layer_prog(b, g, &kinds[k]), made[k] = true;
			lp[l] = &kinds[k];
		}
		local += nl;
		bool last = v == b->vstages - 1;
		int nmtp = last && m->mtp_layers > 0 ? m->mtp_layers : 0;
		if (nmtp > 0 && !made[4])
			make_mtp_prog(b, &kinds[4]), made[4] = true;
		if (v > 0)
			append_p2p_gather(b, fw);
		if (v < b->vstages - 1)
			append_p2p_gather(b, bk);
		if (v == 0)
			append_items(b, fw, x, work_embed_forward(m, &b->sh, x), PLAN_TASK_FWD, -1);
		for (int l = 0; l < nl; l++)
			append_items(b, fw, lp[l]->f, lp[l]->nf, PLAN_TASK_FWD, (int16_t)(l0 + l));
		/* the MTP modules after the layers, each one more layer of the
		 * chunk (Megatron-Core's schedule plan appends model.mtp.layers
		 * to the decoder's, model_chunk_schedule_plan.py:417-423 at
		 * d98e8a64, :315-338 at core_v0.14.0 23e00ed096), so that
		 * emit_pair pairs it as a layer (seg.unit); then the logits and
		 * losses of the modules and of the model (the post-process,
		 * GPTModel._postprocess), whose backward runs first */
		for (int k = 0; k < nmtp; k++) {
			b->unit = MTP_UNIT(k);
			append_items(b, fw, x, work_mtp_embed(m, &b->sh, false, x), PLAN_TASK_FWD, -1);
			append_items(b, fw, kinds[4].f, kinds[4].nf, PLAN_TASK_FWD, -1);
			b->unit = -1;
		}
		for (int k = 0; last && k <= nmtp; k++)
			append_items(b, fw, x, work_head_forward(m, &b->sh, x), PLAN_TASK_FWD, -1);
		for (int k = 0; last && k <= nmtp; k++) {
			int nhw = 0, nh = work_head_backward(m, &b->sh, x);
			if (b->zb)
				nh = split_weight_grads(x, nh, wg, &nhw);
			append_items(b, bk, x, nh, PLAN_TASK_BWD, -1);
			append_items(b, wt, wg, nhw, PLAN_TASK_WGRAD, -1);
		}
		work_item pend[WORK_MAX_ITEMS]; /* append_backward's held W_a */
		int npend = 0;
		int16_t pl = -1, pu = -1; /* ... their layer and unit */
		for (int k = nmtp - 1; k >= 0; k--) {
			b->unit = pu = MTP_UNIT(k);
			layer_backward(b, bk, wt, &kinds[4], -1, pend, &npend, &pl);
			b->unit = -1;
		}
		for (int l = nl - 1; l >= 0; l--) {
			if (plan_layer_frozen(b->s, plan_global_layer(b->s, stage, l0 + l)))
				continue; /* frozen prefix: no backward (plan_layer_frozen) */
			layer_backward(b, bk, wt, lp[l], (int16_t)(l0 + l), pend, &npend, &pl);
			pu = -1;
		}
		if (npend > 0) { /* the chunk's last W_a, after its last layer */
			b->unit = pu;
			append_aside(b, bk, pend, npend, pl);
			b->unit = -1;
		}
		if (v == 0 && b->s->train.frozen_layers <= 0)
			append_items(b, bk, x, work_embed_backward(m, &b->sh, x), PLAN_TASK_BWD, -1);
		append_grad_accum(b, b->zb ? wt : bk, stage, c);
	}
}

static bool chains_oom(const builder *b)
{
	for (int c = 0; c < b->vpp; c++)
		if (b->fwd[c].oom || b->bwd[c].oom || b->wgt[c].oom)
			return true;
	return false;
}

static uint8_t seg_stream(uint8_t kind)
{
	return kind == PLAN_TASK_TP ? PLAN_STREAM_TP
	       : kind == PLAN_TASK_CP ? PLAN_STREAM_CP
	       : kind == PLAN_TASK_EP ? PLAN_STREAM_EP
				      : PLAN_STREAM_COMPUTE;
}

static uint32_t add_dp_on(builder *b, const net_group *grp, int stage, net_coll coll,
			  double bytes, const uint32_t *deps, uint32_t ndeps, int16_t layer);
static int emit_grad_buckets(builder *b, int stage, uint32_t last_bwd,
			     const uint32_t *layer_end, uint32_t *out, double *shard_bytes);


/* A host <-> GPU copy of `bytes` on the rank's offload stream: PCIe at the
 * node's achievable rate; from NVMe also limited by the node's NVMe bandwidth
 * shared by its GPUs. */
static uint32_t add_copy(builder *b, int stage, double bytes, bool nvme, const uint32_t *deps,
			 uint32_t ndeps, int16_t layer)
{
	const net_node *nd = &b->s->cluster.node;
	double t = bytes / (nd->pcie_Bps * nd->pcie_eff);
	if (nvme && nd->nvme_Bps > 0)
		t = fmax(t, bytes * nd->gpus / nd->nvme_Bps);
	plan_task x = {sim_time_from_s(t), stage, PLAN_STREAM_OFFLOAD, PLAN_TASK_OFFLOAD, layer, -1,
		       0, 0};
	if (plan_graph_offload(b->g, stage, PLAN_OFF_HOST, bytes, t, nd->pcie_Bps) != SIM_OK ||
	    (nvme && plan_graph_offload(b->g, stage, PLAN_OFF_NVME, bytes * nd->gpus, t,
					nd->nvme_Bps) != SIM_OK))
		return UINT32_MAX;
	return plan_graph_add(b->g, &x, deps, ndeps);
}

/* ZeRO-3 / FSDP with one unit per transformer layer: before a layer runs
 * (forward, or backward with its recomputation) its parameters are
 * all-gathered over DP; the gather of the next layer in chain order is issued
 * as soon as the current one starts computing (a prefetch window of one unit),
 * and after a layer's backward its gradients are reduce-scattered. Embedding
 * and output layer stay gathered in the root unit (not modelled as traffic).
 * ZeRO-Infinity (offload_params) first copies the rank's shard of the layer
 * from the host (or NVMe through the host) on the offload stream, and copies
 * each reduce-scattered gradient shard back. ZeRO-Inference (inference with
 * offload_params) streams each layer's whole TP shard from the host the same
 * way, the next layer's copy issued when a layer starts: a layer takes
 * max(compute, fetch) once the pipeline of copies is primed. */
double plan_fsdp_flat_grad_s(const plan_scenario *s, double params)
{
	double bytes = plan_fsdp_flat_grad_bytes(s);
	return bytes > 0 && params > 0 ? hw_mem_time(&s->gpu, params * bytes) : 0;
}

double plan_fsdp_reduce_s(const plan_scenario *s, double params)
{
	int kernels;
	double bytes = plan_fsdp_reduce_bytes(s, &kernels);
	if (!(bytes > 0) || !(params > 0))
		return 0;
	return hw_mem_time(&s->gpu, params * bytes) + (kernels - 1) * hw_overhead(&s->gpu);
}

static uint32_t fsdp_gather(builder *b, fsdp_state *f, int stage, int layer, uint32_t after)
{
	if (layer < 0 || layer >= f->layers)
		return UINT32_MAX;
	if (f->gather[layer] == UINT32_MAX && b->s->inference) { /* ZeRO-Inference */
		f->gather[layer] = add_copy(b, stage, f->param_bytes,
					    b->s->plan.offload_params == PLAN_OFFLOAD_NVME, &after, 1,
					    (int16_t)layer);
	} else if (f->gather[layer] == UINT32_MAX) {
		plan_offload off = b->s->plan.offload_params;
		if (off != PLAN_OFFLOAD_NONE)
			after = add_copy(b, stage, f->param_bytes / b->shard.size,
					 off == PLAN_OFFLOAD_NVME, &after, 1, (int16_t)layer);
		/* DeepSpeed fetches each module's parameters with its own
		 * coalesced all-gather ([framework] zero3_gathers: the layer's
		 * bytes in that many gathers back to back, each paying the ring's
		 * latency; the layer waits for the last) */
		int ng = b->s->fw.zero3_gathers > 1 ? b->s->fw.zero3_gathers : 1;
		uint32_t id = after;
		for (int k = 0; k < ng; k++) {
			id = add_dp_on(b, &b->shard, stage, NET_ALLGATHER, f->param_bytes / ng, &id, 1,
				       (int16_t)layer);
			if (id == UINT32_MAX)
				break; /* out of memory: plan_graph_add's failure */
		}
		f->gather[layer] = id;
	}
	return f->gather[layer];
}

/* A chain being emitted, whole or in pieces (emit_to; under moe_a2a_overlap
 * two at once: emit_pair), with what the walk over its segs carries:
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
	uint32_t ring[WORK_MAX_CP]; /* CP transfer ids of the current ring, by step */
	uint32_t *layer_end;
	fsdp_state *f;
	const uint32_t *pgather;
} cursor;

/* A cursor at the start of chain c for micro-batch mb on `stage`, its first
 * task depending on `dep`; layer_end (if non-NULL) gets, per layer, the id of
 * the layer's last task. */
static void cursor_init(cursor *k, const builder *b, const chain *c, int stage, int mb,
			uint32_t dep, uint32_t *layer_end, fsdp_state *f)
{
	memset(k, 0, sizeof *k);
	k->c = c, k->stage = stage, k->mb = mb;
	k->prev = k->before = dep;
	k->first = k->tail = k->join = k->held = UINT32_MAX;
	k->cur = k->pcur = -1;
	k->layer_end = layer_end, k->f = f, k->pgather = b->pgather;
}

/* Under DeepEP (builder.held) a compute task's rate beside its kernels:
 * its duration over max(its host time, its kernels' GPU time beside them)
 * (plan_graph.deep_rate). */
static int set_deep(builder *b, uint32_t id, const seg *x)
{
	if (b->held <= 0 || seg_stream(x->kind) != PLAN_STREAM_COMPUTE || x->held <= 0)
		return SIM_OK;
	sim_time h = x->held > x->cpu ? x->held : x->cpu;
	return plan_graph_set_deep(b->g, id, (double)x->dur / (double)h);
}

/* Emit the cursor's segs up to (not including) index `end`. SIM_OK or
 * SIM_ENOMEM. */
static int emit_to(builder *b, cursor *k, int end)
{
	const chain *c = k->c;
	fsdp_state *f = k->f;
	int stage = k->stage, mb = k->mb;
	for (; k->i < end; k->i++) {
		int i = k->i;
		const seg *x = &c->v[i];
		plan_task t = {x->dur, stage, seg_stream(x->kind), x->kind, x->layer, mb,
			       x->scaleup, x->nic};
		if (x->aside) { /* after the link before it; nothing waits for it */
			uint32_t id = plan_graph_add(b->g, &t, &k->prev, 1);
			if (id == UINT32_MAX || set_deep(b, id, x) != SIM_OK)
				return SIM_ENOMEM;
			if (k->first == UINT32_MAX)
				k->first = id;
			if (k->layer_end && x->layer >= 0)
				k->layer_end[x->layer] = id;
			b->g->hardware_flops += x->flops * b->g->rank_gpus;
			k->tail = id;
			continue;
		}
		uint32_t deps[5] = {k->prev, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
		if (f->on && x->layer >= 0 && x->layer != k->cur) {
			deps[1] = fsdp_gather(b, f, stage, x->layer, k->prev);
			fsdp_gather(b, f, stage, x->layer + f->dir, k->prev); /* prefetch */
			k->cur = x->layer;
		}
		/* overlap_param_gather: a layer's first forward of the step waits
		 * for its bucket's gather; the chain's first task (the embedding)
		 * for that of the chain's first layer */
		if (k->pgather && x->ovl == 0) {
			int l = x->layer;
			for (int j = i; i == 0 && l < 0 && j < c->n; j++)
				l = c->v[j].layer;
			if (l >= 0 && l != k->pcur)
				deps[3] = k->pgather[l], k->pcur = l;
		}
		bool xfer = x->kind == PLAN_TASK_CP;
		if (xfer && x->cp_step > 1) /* the ring forwards the block it received */
			deps[0] = k->ring[x->cp_step - 1];
		else if (!xfer && x->cp_step > 0)
			deps[1] = k->ring[x->cp_step];
		if (x->ovl < 0) /* starts with the GEMM before it */
			deps[0] = k->before;
		if (!xfer && x->ovl == 0 && k->join != UINT32_MAX && k->join_skip-- == 0)
			deps[2] = k->join, k->join = UINT32_MAX;
		if (!xfer && x->ovl == 0 && k->held != UINT32_MAX) /* the GEMM of a pair that
								    * followed a pair's GEMM */
			deps[4] = k->held, k->held = UINT32_MAX;
		uint32_t id = add_net(b->g, &t, deps, 5, x->net_s, x->net_nodes);
		if (id == UINT32_MAX || set_deep(b, id, x) != SIM_OK)
			return SIM_ENOMEM;
		if (k->first == UINT32_MAX)
			k->first = id;
		if (xfer) { /* runs beside the compute stream: not the chain's next link */
			k->ring[x->cp_step] = id;
			continue;
		}
		if (x->ovl != 0) { /* beside the GEMM: the link after the GEMM waits */
			if (k->join != UINT32_MAX && x->ovl > 0) /* a pair right after a pair's
								  * GEMM (nanotron's column
								  * backward: re-gather beside
								  * dgrad, reduce-scatter beside
								  * wgrad): its GEMM waits for
								  * the first collective */
				k->held = k->join;
			k->join = id;
			k->join_skip = x->ovl > 0; /* the all-gather's GEMM is the next link */
			continue;
		}
		if (k->layer_end && x->layer >= 0)
			k->layer_end[x->layer] = id;
		b->g->hardware_flops += x->flops * b->g->rank_gpus;
		k->before = k->prev;
		k->prev = k->tail = id;
		bool layer_done = i + 1 == c->n || c->v[i + 1].layer != x->layer;
		if (f->on && f->dir < 0 && x->layer >= 0 && layer_done) {
			if (f->flat_s > 0) { /* the flat gradient, on the compute stream */
				plan_task cat = {sim_time_from_s(f->flat_s), stage,
						 PLAN_STREAM_COMPUTE,
						 x->kind == PLAN_TASK_WGRAD ? PLAN_TASK_WGRAD
									    : PLAN_TASK_BWD,
						 x->layer, mb, 0, 0};
				id = plan_graph_add(b->g, &cat, &id, 1);
				if (id == UINT32_MAX)
					return SIM_ENOMEM;
				if (k->layer_end)
					k->layer_end[x->layer] = id;
				k->prev = k->tail = id;
			}
			uint32_t before_rs = id;
			if (f->pass_s > 0) { /* on the post-backward stream, before it */
				plan_task pass = {sim_time_from_s(f->pass_s), stage,
						  PLAN_STREAM_DP, PLAN_TASK_DP, x->layer, mb, 0, 0};
				before_rs = plan_graph_add(b->g, &pass, &id, 1);
				if (before_rs == UINT32_MAX)
					return SIM_ENOMEM;
			}
			uint32_t rs = add_dp_on(b, &b->shard, stage, NET_REDUCESCATTER, f->grad_bytes,
						&before_rs, 1, x->layer);
			if (rs == UINT32_MAX)
				return SIM_ENOMEM;
			/* hybrid sharding: after the last micro-batch the shard's
			 * gradients are all-reduced over its replicas */
			if (k->layer_end && b->replica.size > 1 &&
			    add_dp_on(b, &b->replica, stage, NET_ALLREDUCE,
				      f->grad_bytes / b->shard.size, &rs, 1, x->layer) == UINT32_MAX)
				return SIM_ENOMEM;
			if (b->s->plan.offload_params != PLAN_OFFLOAD_NONE &&
			    add_copy(b, stage, f->grad_bytes / b->shard.size, false, &rs, 1,
				     x->layer) == UINT32_MAX)
				return SIM_ENOMEM;
		}
	}
	return SIM_OK;
}

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
	uint32_t *next_f;   /* per backward step k: the k of the stage's next forward
			     * step, or UINT32_MAX (p2p_serial, link_stages) */
} pipe_ids;

double plan_p2p_bytes(const plan_scenario *s, double *gather)
{
	const plan_spec *p = &s->plan;
	work_shard sh = plan_shard(s);
	double bytes = work_p2p_bytes(&s->model, &sh); /* b*s*h*e, /t with SP */
	bool split = p->p2p_scatter_gather && p->tp > 1 && !p->sequence_parallel;
	*gather = split ? bytes : 0.0;
	return split ? bytes / p->tp : bytes;
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
	       (p->p2p == PLAN_P2P_AUTO && p->vpp <= 1 && p->schedule != PLAN_SCHED_ZB_H1);
}

static uint32_t pp_send(builder *b, int stage, int mb, bool backward, uint32_t after)
{
	double gather, bytes = plan_p2p_bytes(b->s, &gather);
	net_cost cost;
	if (comm_cost(b, NET_P2P, &b->pp, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	cost.time_s += plan_p2p_overhead(b->s, &b->pp, backward);
	plan_task t = {sim_time_from_s(cost.time_s), stage,
		       backward ? PLAN_STREAM_PP_BWD : PLAN_STREAM_PP_FWD, PLAN_TASK_PP, -1, mb,
		       (float)cost.intra_bytes, nic_share(&b->s->cluster, cost.inter_bytes)};
	return add_net(b->g, &t, &after, 1, comm_net_s(b, NET_P2P, &b->pp, bytes, cost.time_s),
		       b->pp.nodes);
}

/* moe_a2a_overlap: Megatron-Core's combined 1F1B ("EP A2A overlap",
 * overlap_moe_expert_parallel_comm). Sources, NVIDIA/Megatron-LM d98e8a64
 * (the same order at core_v0.14.0, 23e00ed096, 2025-10, the release
 * Megatron-Bridge 25.09 ran):
 *  - schedules.py:934-971 (get_pp_rank_microbatches): the interleaved
 *    schedule runs one more warm-up forward ("so that the forward and
 *    backward computations are independent in all 1f1b steps"), and
 *    schedules.py:1483-1509 turns each steady step into one
 *    combined_1f1b_schedule_for_interleaved_pipelining call with the
 *    forward of one virtual micro-batch and the backward of another;
 *    without a pipeline combined_1f1b.py:35-135 runs micro-batch 0's
 *    forward alone, then (forward i+1, backward i) pairs, then the last
 *    backward: the same as one extra warm-up forward (plan_warm_extra).
 *  - models/common/model_chunk_schedule_plan.py:499-630: a combined step
 *    runs the forward chunk's embedding, the backward chunk's output layer,
 *    then layer pairs (forward layer i with the backward's i-th layer from
 *    the end), then the backward's remaining layers, the forward's, the
 *    forward's output layer and loss, the backward's embedding.
 *  - model_chunk_schedule_plan.py:236-303 (TransformerLayerSchedulePlan.run),
 *    one layer pair, issued in this order:
 *        comm stream:  combine_b | dispatch_f -> dispatch_b | combine_f
 *        comp stream:  attn_f    | mlp_b -> mlp_dw_b -> mlp_f | attn_b -> attn_dw_b
 *    (attn = attention, norm, router, shared experts, dispatch preprocess:
 *    "pre_dispatch_computation", fine_grained_callables.py:20-130).
 *  - pipeline_parallel/utils.py:181-345 (ScheduleNode): each node waits on
 *    its micro-batch's chunk event before it runs on its stream and records
 *    it after: the nodes of one micro-batch run in their data order, the two
 *    micro-batches are joined only by each stream's issue order.
 * That is this graph: two cursors (emit_to) over the two chains, emitted in
 * that issue order so that each stream's FIFO (replay.c) holds it, each
 * chain's links waiting only for their own predecessor. The cuts per layer
 * (chain_cuts) are the all-to-alls: forward [.. dispatch) [dispatch ..
 * experts) [experts .. combine], backward [.. combine] [experts .. dispatch)
 * [dispatch ..]. So while one micro-batch's all-to-all runs on the EP stream
 * the other's compute runs, slowed by the GPU's interference (replay.c), and
 * a layer pair takes between max(compute, all-to-all) and their sum, the
 * dependency of each all-to-all on the compute before it deciding where
 * (test_plan derives a case). What runs after the forward's combine inside
 * Megatron's combine node (the unpermutation, the residual) is compute here,
 * at the head of the next forward piece (it waits for the combine either
 * way); the backward's before its combine too, at the end of the piece
 * before. The last chunk's multi-token prediction modules are layers of it
 * there (model_chunk_schedule_plan.py:417-423, TransformerLayerSchedulePlan
 * for a MultiTokenPredictionLayer, :30-52 and :112-176: its embedding,
 * norms and eh_proj before its attention in the pre-dispatch node), so a
 * module's all-to-alls pair with the other micro-batch's compute as a
 * layer's do (make_mtp_prog, seg.unit). Warm-up forwards and cool-down
 * backwards run alone; with delay_wgrad_compute a cool-down backward still
 * overlaps its dispatch with the experts' deferred weight gradients
 * (append_backward). */

/* Per layer of a chain, in chain order, the three seg indices where a
 * combined step switches to the other micro-batch (above; a layer without
 * all-to-alls: the forward's all before the first switch, the backward's
 * between the first and the second). */
typedef struct cuts {
	int k[3];
} cuts;

static void close_cuts(cuts *q, bool bwd, int start, int end)
{
	if (!bwd && q->k[0] < 0)
		q->k[0] = q->k[1] = q->k[2] = end;
	else if (!bwd && q->k[2] < 0)
		q->k[2] = end;
	if (bwd && q->k[0] < 0)
		q->k[0] = start;
	if (bwd && q->k[1] < 0)
		q->k[1] = q->k[2] = end;
}

/* The cuts of chain c's layers (out holds c->n); *lstart and *lend get the
 * index of the first layer's first seg and the index after the last seg of
 * any layer (c->n and lstart without layers). Returns the layers. */
static int chain_cuts(const chain *c, bool bwd, cuts *out, int *lstart, int *lend)
{
	int n = 0, cur = -1, start = 0, end = 0;
	*lstart = -1, *lend = -1;
	for (int i = 0; i < c->n; i++) {
		const seg *x = &c->v[i];
		if (x->unit >= 0)
			*lend = i + 1;
		if (x->aside || x->unit < 0)
			continue;
		if (x->unit != cur) {
			if (n > 0)
				close_cuts(&out[n - 1], bwd, start, end);
			out[n++] = (cuts){{-1, -1, -1}};
			cur = x->unit, start = i;
			if (*lstart < 0)
				*lstart = i;
		}
		end = i + 1;
		int *k = out[n - 1].k;
		if (x->a2a == 1 && bwd) {
			k[1] = k[1] < 0 ? i : k[1];
			k[2] = i + 1;
		} else if (x->a2a == 1) {
			k[0] = k[0] < 0 ? i : k[0];
			k[1] = i + 1;
		} else if (x->a2a == 2) {
			k[bwd ? 0 : 2] = i + 1;
		}
	}
	if (n > 0)
		close_cuts(&out[n - 1], bwd, start, end);
	if (*lstart < 0)
		*lstart = c->n;
	if (*lend < *lstart)
		*lend = *lstart;
	return n;
}

/* One combined step: forward cursor F and backward cursor B in Megatron's
 * issue order (the derivation above). SIM_OK or SIM_ENOMEM. */
static int emit_pair(builder *b, cursor *F, cursor *B)
{
	cuts *cf = malloc((size_t)(F->c->n + 1) * sizeof *cf);
	cuts *cb = malloc((size_t)(B->c->n + 1) * sizeof *cb);
	if (!cf || !cb) {
		free(cf), free(cb);
		return SIM_ENOMEM;
	}
	int fs, fe, bs, be;
	int lf = chain_cuts(F->c, false, cf, &fs, &fe), lb = chain_cuts(B->c, true, cb, &bs, &be);
	int n = lf < lb ? lf : lb;
	int rc = emit_to(b, F, fs); /* the forward's embedding first */
	for (int j = 0; j < n && rc == SIM_OK; j++)
		for (int q = 0; q < 3 && rc == SIM_OK; q++)
			if ((rc = emit_to(b, B, cb[j].k[q])) == SIM_OK)
				rc = emit_to(b, F, cf[j].k[q]);
	/* the backward's layers left, the forward's, then the forward's
	 * output layer and the backward's embedding */
	if (rc == SIM_OK)
		rc = emit_to(b, B, be);
	if (rc == SIM_OK)
		rc = emit_to(b, F, fe);
	if (rc == SIM_OK)
		rc = emit_to(b, F, F->c->n);
	if (rc == SIM_OK)
		rc = emit_to(b, B, B->c->n);
	free(cf), free(cb);
	return rc;
}

bool plan_ep_deepep(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	return s->model.moe_experts > 0 && p->ep > 1 && p->moe_dispatcher == WORK_MOE_FUSED;
}

double plan_ep_share(const plan_scenario *s)
{
	return plan_ep_deepep(s) ? hw_sm_share(&s->gpu, s->plan.deepep_sms) : s->gpu.interference;
}

/* What emit_schedule carries from one op to the next: synchronous p2p's
 * unwaited send, the last step's end, ZeRO-2's per-micro-batch reduction
 * (plan_grad_reduce_microbatch: the buckets of micro-batches before the last
 * go out after their own backward; not overlapped, the next step waits for
 * them: gate), the last backward step without a forward after it. */
typedef struct sched_state {
	bool sync, mbr;
	uint32_t prev, pending, gate;
	size_t last_b;
	int lmax;
	uint32_t *mb_end, *mb_ids;
	double *mb_shard;
} sched_state;

/* One op of the schedule being emitted. Not copied (cur points at f). */
typedef struct op_emit {
	plan_op op;
	size_t k; /* per-micro-batch ids' index: v * m + mb */
	bool grads, early;
	fsdp_state f;
	cursor cur;
} op_emit;

static void op_begin(builder *b, int stage, const plan_op *op, sched_state *st,
		     uint32_t *layer_end, op_emit *e)
{
	int m = b->m, v = op->chunk * b->s->plan.pp + stage;
	bool bwd = op->backward;
	e->op = *op;
	e->k = (size_t)v * (size_t)m + (size_t)op->mb;
	e->f = b->fsdp;
	e->f.dir = bwd ? -1 : 1;
	e->f.layers = plan_stage_layers(b->s, stage);
	for (int l = 0; e->f.on && l < e->f.layers; l++)
		e->f.gather[l] = UINT32_MAX;
	/* Gradients are complete after the last micro-batch's W (zero bubble)
	 * or backward: that is what the DP buckets wait for. */
	bool gstep = bwd && op->weight == b->zb; /* completes its gradients */
	e->grads = gstep && op->mb == m - 1;
	e->early = st->mbr && gstep && op->mb < m - 1; /* a micro-batch's own reduction */
	for (int l = 0; e->early && l < st->lmax; l++)
		st->mb_end[l] = UINT32_MAX;
	const chain *ch = op->weight ? &b->wgt[op->chunk] : bwd ? &b->bwd[op->chunk]
								 : &b->fwd[op->chunk];
	cursor_init(&e->cur, b, ch, stage, op->mb, UINT32_MAX,
		    e->grads ? layer_end : e->early ? st->mb_end : NULL, &e->f);
	if (bwd || op->mb != 0) /* only a chunk's first forward waits for the gathers */
		e->cur.pgather = NULL;
}

/* After an op's tasks: its edges to the steps around it, the per-micro-batch
 * ids, its gradient buckets (ZeRO-2 per micro-batch) and its send. */
static int op_end(builder *b, int stage, pipe_ids *ids, sched_state *st, const op_emit *e)
{
	uint32_t first = e->cur.first, last = e->cur.prev, tail = e->cur.tail;
	bool bwd = e->op.backward;
	int rc = SIM_OK;
	if (st->sync && st->pending != UINT32_MAX && first != UINT32_MAX) {
		if (plan_graph_edge(b->g, st->pending, first) != SIM_OK)
			rc = SIM_ENOMEM;
		st->pending = UINT32_MAX;
	}
	if (st->gate != UINT32_MAX && first != UINT32_MAX) {
		if (plan_graph_edge(b->g, st->gate, first) != SIM_OK)
			rc = SIM_ENOMEM;
		st->gate = UINT32_MAX;
	}
	if (e->early && tail != UINT32_MAX) {
		int n = emit_grad_buckets(b, stage, tail, st->mb_end, st->mb_ids, st->mb_shard);
		if (n < 0)
			rc = SIM_ENOMEM;
		else if (n > 0 && !b->s->plan.overlap_grad_reduce)
			st->gate = st->mb_ids[n - 1];
	}
	uint32_t before = st->prev;
	if (last != UINT32_MAX)
		st->prev = last;
	if (e->op.weight) {
		if (tail != UINT32_MAX)
			ids->last_bwd[stage] = tail;
		return rc;
	}
	size_t k = e->k;
	(bwd ? ids->first_b : ids->first_f)[k] = first;
	(bwd ? ids->pred_b : ids->pred_f)[k] = before;
	ids->next_f[k] = UINT32_MAX;
	if (bwd)
		st->last_b = k;
	else if (st->last_b != SIZE_MAX)
		ids->next_f[st->last_b] = (uint32_t)k, st->last_b = SIZE_MAX;
	if (bwd) /* with deferred weight gradients the last of them */
		ids->last_bwd[stage] = tail;
	int v = e->op.chunk * b->s->plan.pp + stage;
	if (bwd ? v > 0 : v < b->vstages - 1) { /* after the last link: not after
						  * a deferred weight gradient */
		uint32_t id = pp_send(b, stage, e->op.mb, bwd, last);
		if (id == UINT32_MAX)
			rc = SIM_ENOMEM;
		(bwd ? ids->send_b : ids->send_f)[k] = id;
		st->pending = id;
	}
	return rc;
}

/* The stage's compute-stream program in schedule order, with its sends.
 * Per-micro-batch ids are indexed by virtual stage: k = v * m + mb. With
 * synchronous p2p (plan_p2p_sync) a step's send blocks the stage's next step
 * (its first task waits for the send; after the last step, the gradient
 * reduction and the optimizer do, through last_bwd), and each step records
 * the last task of the step before it (pred_f, pred_b), which the transfer
 * feeding it waits for (link_stages). Under moe_a2a_overlap a forward
 * followed by a backward (1F1B's steady step) is one combined step
 * (emit_pair). */
static int emit_schedule(builder *b, int stage, pipe_ids *ids, uint32_t *layer_end)
{
	int pp = b->s->plan.pp, m = b->m;
	int lmax = plan_max_stage_layers(b->s), cap = 2 * (lmax > 0 ? lmax : 1) + 2;
	sched_state st = {plan_p2p_sync(&b->s->plan), plan_grad_reduce_microbatch(b->s),
			  UINT32_MAX, UINT32_MAX, UINT32_MAX, SIZE_MAX, lmax, NULL, NULL, NULL};
	int steps = plan_schedule_steps(b->s->plan.schedule, m, b->vpp);
	plan_op *order = malloc((size_t)steps * sizeof *order);
	op_emit *e = malloc(2 * sizeof *e);
	if (st.mbr) {
		st.mb_end = malloc((size_t)(lmax > 0 ? lmax : 1) * sizeof *st.mb_end);
		st.mb_ids = malloc((size_t)cap * sizeof *st.mb_ids);
		st.mb_shard = malloc((size_t)cap * sizeof *st.mb_shard);
	}
	int rc = SIM_OK;
	if (!order || !e || (st.mbr && (!st.mb_end || !st.mb_ids || !st.mb_shard)))
		rc = SIM_ENOMEM;
	else
		plan_schedule_order(b->s->plan.schedule, pp, m, b->vpp, plan_warm_extra(&b->s->plan),
				    stage, order);
	/* the steady steps' forwards: a forward after the warm-up followed by a
	 * backward (all forwards in the warm-up, as with m = 1 without a
	 * pipeline: none; Megatron-Core runs those steps alone) */
	int warm = plan_schedule_warm(pp, m, b->vpp, plan_warm_extra(&b->s->plan), stage);
	for (int i = 0; i < steps && rc == SIM_OK; i++) {
		if (b->s->inference && order[i].backward)
			continue; /* forward passes only */
		bool pair = b->ovl && i >= warm && !order[i].backward && i + 1 < steps &&
			    order[i + 1].backward && !order[i + 1].weight;
		op_begin(b, stage, &order[i], &st, layer_end, &e[0]);
		if (pair)
			op_begin(b, stage, &order[i + 1], &st, layer_end, &e[1]);
		rc = pair ? emit_pair(b, &e[0].cur, &e[1].cur) : emit_to(b, &e[0].cur, e[0].cur.c->n);
		if (rc == SIM_OK)
			rc = op_end(b, stage, ids, &st, &e[0]);
		if (rc == SIM_OK && pair)
			rc = op_end(b, stage, ids, &st, &e[1]), i++;
	}
	if (rc == SIM_OK && st.sync && st.pending != UINT32_MAX && !b->s->inference)
		ids->last_bwd[stage] = st.pending;
	free(order), free(e), free(st.mb_end), free(st.mb_ids), free(st.mb_shard);
	return rc;
}

static uint32_t add_dp_on(builder *b, const net_group *grp, int stage, net_coll coll,
			  double bytes, const uint32_t *deps, uint32_t ndeps, int16_t layer)
{
	net_cost cost;
	if (comm_cost(b, coll, grp, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	plan_task t = {sim_time_from_s(cost.time_s), stage, PLAN_STREAM_DP, PLAN_TASK_DP, layer, -1,
		       (float)cost.intra_bytes, nic_share(&b->s->cluster, cost.inter_bytes)};
	return add_net(b->g, &t, deps, ndeps, comm_net_s(b, coll, grp, bytes, cost.time_s),
		       grp->nodes);
}

/* The stage-local index of the stage's first layer that trains: 0, or past
 * the frozen prefix (train.frozen_layers; plan_check keeps it inside the
 * first chunk of stage 0, so it is a prefix of the local layers too). */
static int first_trained(const plan_scenario *s, int stage)
{
	int layers = plan_stage_layers(s, stage), l = 0;
	while (l < layers && plan_layer_frozen(s, plan_global_layer(s, stage, l)))
		l++;
	return l;
}

/* Gradient buckets in backward order (last layer first): the dense gradients
 * over the dp x cp ranks, an MoE layer's expert gradients over the ranks that
 * hold the same experts (edp = tp*cp*dp/ep); a bucket closes when the two
 * together reach bucket_size. Returns the number of DP task ids written to
 * out (at most 2 * layers + 2), or -1 on OOM. */
/* One bucket: the dense bytes reduced in the shard group (the whole dp x cp
 * group unless hybrid sharding), then all-reduced over the shard's replicas
 * when there are some; the expert bytes over the expert-DP group. Appends the
 * last task of each reduction (what the optimizer waits for) and the shard a
 * rank keeps. Returns false on OOM. */
static bool flush_bucket(builder *b, int stage, net_coll coll, double acc, double acc_e,
			 uint32_t dep, int16_t at, uint32_t *out, double *shard_bytes, int *n)
{
	if (b->dp.size > 1 && acc > 0) {
		uint32_t id = add_dp_on(b, &b->shard, stage, coll, acc, &dep, 1, at);
		if (id != UINT32_MAX && b->replica.size > 1)
			id = add_dp_on(b, &b->replica, stage, NET_ALLREDUCE, acc / b->shard.size, &id, 1,
				       at);
		if (id == UINT32_MAX)
			return false;
		shard_bytes[*n] = acc / b->shard.size;
		out[(*n)++] = id;
	}
	if (b->edp.size > 1 && acc_e > 0) {
		uint32_t id = add_dp_on(b, &b->edp, stage, coll, acc_e, &dep, 1, at);
		if (id == UINT32_MAX)
			return false;
		shard_bytes[*n] = acc_e / b->edp.size;
		out[(*n)++] = id;
	}
	return true;
}

static int emit_grad_buckets(builder *b, int stage, uint32_t last_bwd,
			     const uint32_t *layer_end, uint32_t *out, double *shard_bytes)
{
	const plan_scenario *s = b->s;
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	if ((b->dp.size == 1 && b->edp.size == 1) || p->zero >= 3)
		return 0; /* ZeRO-3 reduce-scatters per layer inside the backward chain */
	double gbytes = (p->fp32_grads || s->dtype == HW_FP32) ? 4.0 : 2.0;
	/* bytes on the wire per byte of gradient (train.grad_compression); the
	 * buckets close on the gradients' own bytes */
	double wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	net_coll coll = p->zero >= 1 && s->fw.zero_grad_op == PLAN_GRAD_OP_REDUCE_SCATTER
				? NET_REDUCESCATTER
				: NET_ALLREDUCE;
	int layers = plan_stage_layers(s, stage), n = 0;
	/* The framework's buckets (plan_bucket_bytes). Megatron-Core
	 * (core/distributed/distributed_data_parallel.py:160-171 at d98e8a64)
	 * turns bucketing off without overlap_grad_reduce and on pipeline
	 * ranks after the first, which launch their reduction at the end of
	 * their backward (pipeline_parallel/schedules.py:2454-2480): one bucket,
	 * after the stage's backward. */
	bool one = plan_one_bucket(s, stage);
	double bucket = one ? 1e300 : plan_bucket_bytes(s);
	bool overlap = p->overlap_grad_reduce && !one;
	double acc = 0, acc_e = 0; /* dense (over dp x cp) and expert (over edp) bytes */
	if (stage == p->pp - 1 && output_trained(s)) {
		acc += work_params_output(m) / p->tp * gbytes;
		acc_e += mtp_experts(s) * gbytes;
	}
	double embed = stage == 0 && embedding_trained(s)
			       ? work_params_embedding(m) / p->tp * gbytes
			       : 0;
	int lo = first_trained(s, stage); /* frozen layers below it: no gradients */
	for (int l = layers - 1; l >= lo; l--) {
		double d, x; /* the layer's trained dense and expert parameters */
		layer_trained(s, plan_global_layer(s, stage, l), &d, &x);
		acc += d * gbytes;
		acc_e += x * gbytes;
		if (l == lo)
			acc += embed;
		if (acc + acc_e < bucket && l > lo)
			continue;
		uint32_t dep = overlap ? layer_end[l] : last_bwd;
		if (!flush_bucket(b, stage, coll, acc * wire, acc_e * wire, dep, (int16_t)l, out,
				  shard_bytes, &n))
			return -1;
		acc = acc_e = 0;
	}
	/* a stage holding only the embedding or the output layer */
	if (layers == 0 && !flush_bucket(b, stage, coll, (acc + embed) * wire, 0, last_bwd, -1, out,
					 shard_bytes, &n))
		return -1;
	return n;
}

/* overlap_param_gather (Megatron-Core --overlap-param-gather with the
 * distributed optimizer). Assumption, from our knowledge of Megatron-Core (no
 * source at hand here): after the optimizer step each bucket's updated
 * parameter shards are all-gathered asynchronously, the first bucket's at
 * once and each later one from the forward pre-hook of the modules of the
 * bucket before, so the gathers run under the next step's forward and a
 * module's forward waits only for its own bucket's. The buckets are the
 * gradient buckets (emit_grad_buckets' boundaries, made in backward order,
 * so the first layers share the last bucket). In a steady-state step this is
 * modelled as every bucket's gather issued at the step start on the DP
 * stream in forward order (first layers first; the stream runs them back to
 * back, as the one-bucket prefetch does once compute lags behind), and each
 * layer's first forward of the step (micro-batch 0 of its chunk) waiting for
 * its bucket's: only what the compute before a bucket's first use cannot hide
 * is exposed. Bytes per bucket: its 16-bit parameters, the dense part over
 * the shard group, the experts over the expert-DP group (as the gradients).
 * pg[l] gets, per stage-local layer, the bucket's last gather (the DP stream
 * runs a bucket's two gathers in order). Returns SIM_OK or SIM_ENOMEM. */
static int emit_param_gather(builder *b, int stage, uint32_t *pg)
{
	const plan_scenario *s = b->s;
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	int layers = plan_stage_layers(s, stage);
	double gbytes = (p->fp32_grads || s->dtype == HW_FP32) ? 4.0 : 2.0;
	double wbytes = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	int *lo = malloc((size_t)(layers > 0 ? layers : 1) * sizeof *lo); /* per layer: its
									    * bucket's first layer */
	if (!lo)
		return SIM_ENOMEM;
	/* bucket boundaries exactly as emit_grad_buckets closes them */
	bool out = stage == p->pp - 1 && output_trained(s);
	double acc = out ? work_params_output(m) / p->tp * gbytes : 0;
	double acc_e = out ? mtp_experts(s) * gbytes : 0;
	int hi = layers - 1, lt = first_trained(s, stage);
	bool emb = stage == 0 && embedding_trained(s);
	for (int l = layers - 1; l >= lt; l--) {
		double d, x;
		layer_trained(s, plan_global_layer(s, stage, l), &d, &x);
		acc += d * gbytes;
		acc_e += x * gbytes;
		if (l == lt && emb)
			acc += work_params_embedding(m) / p->tp * gbytes;
		if (acc + acc_e < plan_bucket_bytes(s) && l > lt)
			continue;
		for (int k = l; k <= hi; k++)
			lo[k] = l;
		hi = l - 1;
		acc = acc_e = 0;
	}
	for (int k = 0; k < lt; k++) /* the frozen prefix: one bucket with nothing to gather */
		lo[k] = 0;
	/* gathers in forward order: bucket [l, hi] */
	int rc = SIM_OK;
	for (int l = 0; l < layers && rc == SIM_OK; l = hi + 1) {
		double dense = 0, experts = 0;
		for (hi = l; hi + 1 < layers && lo[hi + 1] == l; hi++)
			;
		for (int k = l; k <= hi; k++) {
			double d, x;
			layer_trained(s, plan_global_layer(s, stage, k), &d, &x);
			dense += d;
			experts += x;
		}
		if (l == 0 && emb)
			dense += work_params_embedding(m) / p->tp;
		if (hi == layers - 1 && out)
			dense += work_params_output(m) / p->tp, experts += mtp_experts(s);
		uint32_t id = UINT32_MAX;
		bool want = false;
		if (b->shard.size > 1 && dense > 0)
			want = true,
			id = add_dp_on(b, &b->shard, stage, NET_ALLGATHER, dense * wbytes, NULL, 0, -1);
		if (b->edp.size > 1 && experts > 0 && (!want || id != UINT32_MAX))
			want = true,
			id = add_dp_on(b, &b->edp, stage, NET_ALLGATHER, experts * wbytes, NULL, 0, -1);
		if (want && id == UINT32_MAX)
			rc = SIM_ENOMEM;
		for (int k = l; k <= hi; k++)
			pg[k] = id;
	}
	free(lo);
	return rc;
}

/* ZeRO-Offload's step (Ren et al. 2021): each gradient bucket's shard is
 * copied to the host as its reduce-scatter ends (overlapping the rest of the
 * backward), then the CPU runs Adam for the node's GPUs at once, memory-bound
 * like the GPU step (30 bytes per parameter, see emit_optimizer) at the node's
 * achievable DRAM bandwidth; ZeRO-Infinity with the states on NVMe also reads
 * and writes the 12 bytes of fp32 state per parameter, overlapped with the
 * CPU work (the step takes the longer of the two); the updated 16-bit shard is
 * copied back. Returns the last task's id or UINT32_MAX. */
static uint32_t emit_cpu_adam(builder *b, int stage, const uint32_t *deps, int nd,
			      const uint32_t *dp_ids, const double *shard_bytes, int ndp,
			      double local)
{
	const plan_scenario *s = b->s;
	const net_node *nd_ = &s->cluster.node;
	bool nvme = s->plan.offload_optimizer == PLAN_OFFLOAD_NVME;
	uint32_t *after = malloc((size_t)(ndp + nd + 1) * sizeof *after);
	if (!after)
		return UINT32_MAX;
	uint32_t na = 0;
	for (int i = 0; i < nd; i++)
		after[na++] = deps[i];
	double gbytes = (s->plan.fp32_grads || s->dtype == HW_FP32) ? 4.0 : 2.0;
	if (ndp == 0) /* no reduction: the whole local gradient at once */
		after[na] = add_copy(b, stage, local * gbytes, false, deps, (uint32_t)nd, -1), na++;
	for (int i = 0; i < ndp; i++)
		after[na++] = add_copy(b, stage, shard_bytes[i], false, &dp_ids[i], 1, -1);
	double node_params = local * nd_->gpus;
	double t = node_params * 30.0 / (nd_->host_mem_Bps * nd_->host_mem_eff);
	if (nvme)
		t = fmax(t, node_params * 24.0 / nd_->nvme_Bps);
	plan_task adam = {sim_time_from_s(t), stage, PLAN_STREAM_OFFLOAD, PLAN_TASK_OFFLOAD, -1, -1,
			  0, 0};
	if (plan_graph_offload(b->g, stage, PLAN_OFF_DRAM, node_params * 30.0, t,
			       nd_->host_mem_Bps) != SIM_OK ||
	    (nvme && plan_graph_offload(b->g, stage, PLAN_OFF_NVME, node_params * 24.0, t,
					nd_->nvme_Bps) != SIM_OK)) {
		free(after);
		return UINT32_MAX;
	}
	uint32_t id = plan_graph_add(b->g, &adam, after, na);
	free(after);
	if (id == UINT32_MAX)
		return id;
	double wbytes = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	return add_copy(b, stage, local * wbytes, false, &id, 1, -1);
}

/* Optimizer (and ZeRO-1 parameter all-gather) of one stage: the GPU step as
 * the framework runs it (plan_optimizer_time, optim.c: the fused or foreach
 * kernels' bytes per parameter with the fp32 casts and the gradient norm).
 * With the optimizer offloaded the step runs on the CPU instead
 * (emit_cpu_adam). */
static int emit_optimizer(builder *b, int stage, pipe_ids *ids, const uint32_t *dp_ids,
			  const double *shard_bytes, int ndp)
{
	const plan_scenario *s = b->s;
	const plan_spec *p = &s->plan;
	double local = plan_local_params(s, stage);
	uint32_t *deps = malloc((size_t)(ndp + 2) * sizeof *deps);
	if (!deps)
		return SIM_ENOMEM;
	int nd = 0;
	deps[nd++] = ids->last_bwd[stage];
	if (ids->emb_sync[stage] != UINT32_MAX)
		deps[nd++] = ids->emb_sync[stage];
	uint32_t opt;
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE) {
		opt = emit_cpu_adam(b, stage, deps, nd, dp_ids, shard_bytes, ndp, local);
	} else {
		for (int i = 0; i < ndp; i++)
			deps[nd++] = dp_ids[i];
		plan_task t = {sim_time_from_s(plan_optimizer_time(s, stage, local)), stage,
			       PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, -1, -1, 0, 0};
		opt = plan_graph_add(b->g, &t, deps, (uint32_t)nd);
	}
	free(deps);
	if (opt == UINT32_MAX)
		return SIM_ENOMEM;
	bool early = p->overlap_param_gather && plan_stage_layers(s, stage) > 0; /* at the
										 * step start */
	if ((p->zero == 1 || p->zero == 2) && b->shard.size > 1 && !early) {
		double upd = local; /* the updated parameters: frozen layers' and a
				     * LoRA base's are not */
		if (s->train.frozen_layers > 0 || s->train.lora_rank > 0) {
			plan_budget bg;
			plan_stage_budget(s, stage, &bg);
			double all = bg.dense + bg.experts;
			upd = all > 0 ? local * bg.train / all : local;
		}
		double wbytes =
			upd * b->shard.size * hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
		if (add_dp_on(b, &b->shard, stage, NET_ALLGATHER, wbytes, &opt, 1, -1) == UINT32_MAX)
			return SIM_ENOMEM;
	}
	return SIM_OK;
}

bool plan_one_bucket(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	return (!p->overlap_grad_reduce && s->fw.one_bucket_no_overlap) ||
	       (p->pp > 1 && stage > 0 && s->fw.first_stage_buckets) ||
	       (p->zero >= 1 && s->fw.zero_one_bucket);
}

/* Tied embeddings with pp > 1: the first and last stages each hold the word
 * embedding and all-reduce its gradient between them after the backward
 * (a 2-rank group, Megatron's embedding group). Both tasks wait for both
 * stages' backward, as a collective does. */
static int emit_embedding_sync(builder *b, pipe_ids *ids)
{
	const plan_scenario *s = b->s;
	int pp = s->plan.pp;
	if (pp == 1 || s->model.untied_embeddings)
		return SIM_OK;
	double gbytes = (s->plan.fp32_grads || s->dtype == HW_FP32) ? 4.0 : 2.0;
	double bytes = (double)s->model.vocab * s->model.hidden / s->plan.tp * gbytes;
	net_cost cost;
	if (comm_cost(b, NET_ALLREDUCE, &b->embed, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	double net_s = comm_net_s(b, NET_ALLREDUCE, &b->embed, bytes, cost.time_s);
	uint32_t deps[2] = {ids->last_bwd[0], ids->last_bwd[pp - 1]};
	int stages[2] = {0, pp - 1};
	for (int i = 0; i < 2; i++) {
		plan_task t = {sim_time_from_s(cost.time_s), stages[i], PLAN_STREAM_DP, PLAN_TASK_DP,
			       -1, -1, (float)cost.intra_bytes,
			       nic_share(&s->cluster, cost.inter_bytes)};

		uint32_t id = add_net(b->g, &t, deps, 2, net_s, b->embed.nodes);
		if (id == UINT32_MAX)
			return SIM_ENOMEM;
		ids->emb_sync[stages[i]] = id;
	}
	return SIM_OK;
}

/* Virtual stage v's micro-batch waits for v - 1's forward send and v + 1's
 * backward send (v - 1 of chunk c > 0 on stage 0 is the last stage's chunk
 * c - 1: the interleaved pipeline wraps around). */
static int link_stages(builder *b, const pipe_ids *ids)
{
	int m = b->m;
	bool sync = plan_p2p_sync(&b->s->plan);
	bool serial = sync && b->s->fw.p2p_serial && b->vpp == 1;
	for (int v = 0; v < b->vstages; v++)
		for (int mb = 0; mb < m; mb++) {
			size_t k = (size_t)v * (size_t)m + (size_t)mb;
			if (v > 0 && plan_graph_edge(b->g, ids->send_f[k - (size_t)m],
						     ids->first_f[k]) != SIM_OK)
				return SIM_ENOMEM;
			if (v < b->vstages - 1 && !b->s->inference &&
			    plan_graph_edge(b->g, ids->send_b[k + (size_t)m], ids->first_b[k]) != SIM_OK)
				return SIM_ENOMEM;
			/* rendezvous: the transfer starts once the receiver is done
			 * with the step before the one that consumes it */
			if (sync && v > 0 && ids->pred_f[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->pred_f[k], ids->send_f[k - (size_t)m]) != SIM_OK)
				return SIM_ENOMEM;
			if (sync && v < b->vstages - 1 && !b->s->inference &&
			    ids->pred_b[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->pred_b[k], ids->send_b[k + (size_t)m]) != SIM_OK)
				return SIM_ENOMEM;
			/* [framework] p2p_serial (nanotron's run_communication,
			 * parallel/pipeline_parallel/state.py:124-172 at 0e0a27ea:
			 * send activation, receive activation, send gradient, receive
			 * gradient, one blocking transfer at a time): the gradient a
			 * stage sends after its backward waits for the activation it
			 * receives for its next forward, where Megatron batches the
			 * two. Synchronous 1F1B without interleaving only. */
			if (serial && v > 0 && !b->s->inference && ids->next_f[k] != UINT32_MAX &&
			    plan_graph_edge(b->g, ids->send_f[ids->next_f[k] - (size_t)m],
					    ids->send_b[k]) != SIM_OK)
				return SIM_ENOMEM;
		}
	return SIM_OK;
}

static int build_all(builder *b, pipe_ids *ids, uint32_t *layer_end, uint32_t *dp_ids, int lps)
{
	int pp = b->s->plan.pp;
	int *ndp = calloc((size_t)pp, sizeof *ndp);
	double *shard = calloc((size_t)pp * (size_t)(2 * lps + 2), sizeof *shard);
	int rc = ndp && shard ? SIM_OK : SIM_ENOMEM;
	const plan_spec *p = &b->s->plan;
	bool pgather = p->overlap_param_gather && !b->s->inference && (p->zero == 1 || p->zero == 2);
	uint32_t *pg = pgather ? malloc((size_t)lps * sizeof *pg) : NULL;
	if (pgather && !pg)
		rc = SIM_ENOMEM;
	for (int st = 0; st < pp && rc == SIM_OK; st++) {
		stage_chains(b, st);
		if (pgather && plan_stage_layers(b->s, st) > 0) {
			rc = emit_param_gather(b, st, pg);
			b->pgather = pg;
		}
		if (rc == SIM_OK)
			rc = chains_oom(b) ? SIM_ENOMEM : emit_schedule(b, st, ids, layer_end + st * lps);
		b->pgather = NULL;
	}
	free(pg);
	if (rc == SIM_OK)
		rc = link_stages(b, ids);
	if (b->s->inference) { /* no gradients, no optimizer */
		free(ndp);
		free(shard);
		return rc;
	}
	for (int st = 0; st < pp && rc == SIM_OK; st++) {
		ndp[st] = emit_grad_buckets(b, st, ids->last_bwd[st], layer_end + st * lps,
					    dp_ids + st * (2 * lps + 2), shard + st * (2 * lps + 2));
		if (ndp[st] < 0)
			rc = SIM_ENOMEM;
	}
	if (rc == SIM_OK)
		rc = emit_embedding_sync(b, ids);
	for (int st = 0; st < pp && rc == SIM_OK; st++)
		rc = emit_optimizer(b, st, ids, dp_ids + st * (2 * lps + 2), shard + st * (2 * lps + 2),
				    ndp[st]);
	free(ndp);
	free(shard);
	return rc;
}

/* Past the clock (plan_graph_horizon): append this scenario's values of the
 * inputs that set the longest task's kind, so the message names them. */
static void horizon_values(const plan_scenario *s, const builder *b, uint8_t kind, char *why,
			   size_t len)
{
	size_t n = strlen(why);
	char v[3][32];
	const net_node *nd = &s->cluster.node;
	if (kind <= PLAN_TASK_OPTIM) {
		sim_unit_format(hw_peak(&s->gpu, b->sh.dtype), SIM_UNIT_FLOPS, v[0], sizeof v[0]);
		sim_unit_format(s->gpu.hbm_Bps, SIM_UNIT_BANDWIDTH, v[1], sizeof v[1]);
		snprintf(why + n, len - n, "; here [gpu] %s = %s, hbm_bw = %s, [model] seq_len = %d",
			 hw_dtype_name(b->sh.dtype), v[0], v[1], (int)s->model.seq_len);
	} else if (kind == PLAN_TASK_OFFLOAD) {
		sim_unit_format(nd->pcie_Bps, SIM_UNIT_BANDWIDTH, v[0], sizeof v[0]);
		snprintf(why + n, len - n, "; here [node] pcie_bw = %s", v[0]);
	} else {
		sim_unit_format(nd->intra_Bps, SIM_UNIT_BANDWIDTH, v[0], sizeof v[0]);
		sim_unit_format(nd->nic_Bps, SIM_UNIT_BANDWIDTH, v[1], sizeof v[1]);
		sim_unit_format(nd->coll_overhead_s, SIM_UNIT_TIME, v[2], sizeof v[2]);
		snprintf(why + n, len - n,
			 "; here [node] intra_bw = %s, nic_bw = %s, coll_overhead = %s", v[0], v[1],
			 v[2]);
	}
}

int plan_build(const plan_scenario *s, plan_graph **out)
{
	return plan_build_why(s, out, NULL, 0);
}

int plan_build_why(const plan_scenario *s, plan_graph **out, char *why, size_t len)
{
	const plan_spec *p = &s->plan;
	builder b = {0};
	int comm_err = SIM_OK;
	b.s = s;
	b.comm_err = &comm_err;
	b.m = plan_microbatches(p);
	int cp = p->cp > 1 ? p->cp : 1;
	b.sh = plan_shard(s);
	plan_groups grp;
	plan_make_groups(s, &grp);
	b.tp = grp.tp, b.cp = grp.cp, b.dp = grp.dp, b.ep = grp.ep, b.edp = grp.edp;
	b.pp = grp.pp, b.shard = grp.shard, b.replica = grp.replica, b.embed = grp.embed;
	b.g = plan_graph_new(p->pp, p->tp * cp * p->dp);
	int lmax = plan_max_stage_layers(s), lps = lmax > 0 ? lmax : 1;
	double wbytes = s->dtype == HW_FP32 || s->dtype == HW_TF32 ? 4.0 : 2.0;
	double gbytes = (p->fp32_grads || wbytes == 4.0) ? 4.0 : 2.0;
	double layer_params = work_params_layer(&s->model) / p->tp;
	bool stream = s->inference && p->offload_params != PLAN_OFFLOAD_NONE;
	b.fsdp = (fsdp_state){stream || (!s->inference && p->zero >= 3 && p->dp * cp > 1), 1, lmax,
			      malloc((size_t)lps * sizeof(uint32_t)), layer_params * wbytes,
			      layer_params * gbytes, plan_fsdp_reduce_s(s, layer_params),
			      plan_fsdp_flat_grad_s(s, layer_params)};
	b.vpp = p->vpp;
	b.vstages = p->pp * p->vpp;
	b.fwd = calloc((size_t)b.vpp, sizeof *b.fwd);
	b.bwd = calloc((size_t)b.vpp, sizeof *b.bwd);
	b.wgt = calloc((size_t)b.vpp, sizeof *b.wgt);
	b.progs = malloc(5 * sizeof *b.progs);
	b.zb = p->schedule == PLAN_SCHED_ZB_H1;
	b.ovl = p->moe_a2a_overlap && !s->inference;
	b.delay = b.ovl && p->delay_wgrad;
	/* the compute tasks' rates beside DeepEP's kernels: only where
	 * compute runs beside them (combined 1F1B) */
	b.held = b.ovl && plan_ep_deepep(s) ? p->deepep_sms : 0;
	b.share = plan_ep_share(s);
	size_t pm = (size_t)b.vstages * (size_t)b.m;
	pipe_ids ids = {calloc(pm, 4), calloc(pm, 4), calloc(pm, 4), calloc(pm, 4),
			calloc(pm, 4), calloc(pm, 4), calloc((size_t)p->pp, 4),
			malloc((size_t)p->pp * 4), malloc(pm * 4)};
	uint32_t *layer_end = calloc((size_t)p->pp * (size_t)lps, 4);
	uint32_t *dp_ids = calloc((size_t)p->pp * (size_t)(2 * lps + 2), 4);
	int rc = plan_netflow_open(s, &b.flow) == SIM_OK ? SIM_ENOMEM : SIM_EINVAL;
	if (rc == SIM_ENOMEM && b.g && b.fwd && b.bwd && b.wgt && b.progs && b.fsdp.gather && ids.first_f && ids.first_b && ids.send_f && ids.send_b && ids.pred_f && ids.pred_b && ids.last_bwd &&
	    ids.emb_sync && ids.next_f && layer_end && dp_ids) {
		for (size_t i = 0; i < pm; i++)
			ids.next_f[i] = UINT32_MAX;
		for (int i = 0; i < p->pp; i++)
			ids.emb_sync[i] = UINT32_MAX;
		rc = build_all(&b, &ids, layer_end, dp_ids, lps);
	}
	if (rc == SIM_OK && comm_err != SIM_OK) {
		rc = SIM_EINVAL;
		if (why && len > 0)
			snprintf(why, len, "a collective of the plan could not be timed by the "
					   "network model (%s)", sim_strerror(comm_err));
	}
	if (rc == SIM_OK && (rc = plan_graph_horizon(b.g, why, len)) == SIM_ERANGE && why)
		horizon_values(s, &b, b.g->tasks[b.g->longest].kind, why, len);
	if (rc == SIM_OK)
		plan_netflow_report(b.flow, b.g);
	plan_netflow_close(b.flow);
	if (b.g) {
		b.g->interference = s->gpu.interference;
		b.g->ep_deep = plan_ep_deepep(s);
		b.g->ep_share = plan_ep_share(s);
		b.g->mem_static = malloc((size_t)p->pp * sizeof(double));
		b.g->mem_act_op = malloc((size_t)p->pp * sizeof(double));
		for (int st = 0; st < p->pp && b.g->mem_static && b.g->mem_act_op; st++) {
			double mem[PLAN_MEM_COUNT];
			plan_memory(s, st, mem);
			b.g->mem_static[st] = mem[PLAN_MEM_WEIGHTS] + mem[PLAN_MEM_GRADIENTS] +
					      mem[PLAN_MEM_OPTIMIZER] + mem[PLAN_MEM_BUFFERS];
			work_shard sh = plan_shard(s);
			int n = plan_stage_layers(s, st);
			double per_layer = n > 0 ? work_activation_bytes_at(
							   &s->model, &sh, plan_global_layer(s, st, n - 1),
							   p->recompute)
						 : 0.0;
			b.g->mem_act_op[st] = per_layer * n / p->vpp;
		}
		b.g->tokens = (double)p->global_batch * s->model.seq_len;
		b.g->model_flops = work_model_flops(&s->model, b.g->tokens);
		if (s->inference) /* the forward third of 2P + 4P per token */
			b.g->model_flops /= 3.0;
		if (s->train.frozen_layers > 0 && !s->inference) {
			/* the frozen prefix runs its forward only: of its layers'
			 * share F_N (6 x matmul params + attention, per token) the
			 * backward's two thirds are not needed, so MFU counts the
			 * FLOPs this training needs */
			work_model a = s->model, z = s->model;
			a.layers = s->train.frozen_layers, z.layers = 0;
			double fn = work_model_flops(&a, b.g->tokens) - work_model_flops(&z, b.g->tokens);
			b.g->model_flops -= fn * 2.0 / 3.0;
		}
	}
	free(ids.first_f), free(ids.first_b), free(ids.send_f), free(ids.send_b);
	free(ids.pred_f), free(ids.pred_b), free(ids.next_f);
	free(ids.last_bwd), free(ids.emb_sync), free(layer_end), free(dp_ids);
	for (int c = 0; b.fwd && b.bwd && b.wgt && c < b.vpp; c++)
		free(b.fwd[c].v), free(b.bwd[c].v), free(b.wgt[c].v);
	free(b.fwd), free(b.bwd), free(b.wgt), free(b.progs), free(b.fsdp.gather);
	if (rc != SIM_OK) {
		plan_graph_free(b.g);
		return rc;
	}
	*out = b.g;
	return SIM_OK;
}

/* ------------------------------------------------ per-micro-batch cost -- */

/* Sum the stage's chains of one micro-batch (every chunk's forward, backward
 * with recomputation, and W) as plan_build makes them (stage_chains; the
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
	builder b = {0};
	b.s = s;
	b.m = plan_microbatches(p);
	b.sh = plan_shard(s);
	plan_groups grp;
	plan_make_groups(s, &grp);
	b.tp = grp.tp, b.cp = grp.cp, b.dp = grp.dp, b.ep = grp.ep, b.edp = grp.edp;
	b.pp = grp.pp, b.shard = grp.shard, b.replica = grp.replica, b.embed = grp.embed;
	b.vpp = p->vpp;
	b.vstages = p->pp * p->vpp;
	b.zb = p->schedule == PLAN_SCHED_ZB_H1;
	b.ovl = p->moe_a2a_overlap && !s->inference;
	b.delay = b.ovl && p->delay_wgrad;
	b.latency = true;
	b.held = b.ovl && plan_ep_deepep(s) ? p->deepep_sms : 0;
	b.share = plan_ep_share(s);
	b.fwd = calloc((size_t)b.vpp, sizeof *b.fwd);
	b.bwd = calloc((size_t)b.vpp, sizeof *b.bwd);
	b.wgt = calloc((size_t)b.vpp, sizeof *b.wgt);
	b.progs = malloc(5 * sizeof *b.progs);
	int rc = b.fwd && b.bwd && b.wgt && b.progs ? SIM_OK : SIM_ENOMEM;
	if (rc == SIM_OK) {
		stage_chains(&b, stage);
		rc = chains_oom(&b) ? SIM_ENOMEM : SIM_OK;
	}
	for (int c = 0; rc == SIM_OK && c < b.vpp; c++) {
		sum_chain(&b.fwd[c], out);
		if (!s->inference) {
			sum_chain(&b.bwd[c], out);
			sum_chain(&b.wgt[c], out);
		}
	}
	for (int c = 0; b.fwd && b.bwd && b.wgt && c < b.vpp; c++)
		free(b.fwd[c].v), free(b.bwd[c].v), free(b.wgt[c].v);
	free(b.fwd), free(b.bwd), free(b.wgt), free(b.progs);
	if (rc != SIM_OK)
		return rc;
	/* the accumulation tasks (one per chunk, each a compute task of its
	 * own) are reported apart from the layers' kernels */
	work_item acc;
	for (int c = 0; c < p->vpp && !s->inference; c++) {
		if (!plan_grad_accum_item(s, stage, c, &acc))
			continue;
		int nk = acc.launches > 1 ? acc.launches : 1;
		double g = plan_kernel_time(&s->gpu, b.sh.dtype, &acc) - nk * s->gpu.framework_s;
		double h = nk * (s->gpu.launch_s + s->gpu.framework_s);
		out->accum_s += fmax(g, h);
		out->kernels -= nk;
		out->gpu_s -= g;
		out->host_s -= h;
		out->compute_s -= fmax(g, h);
	}
	if (p->pp > 1 && !s->inference)
		out->p2p_fixed_s = plan_p2p_overhead(s, &grp.pp, false) +
				   plan_p2p_overhead(s, &grp.pp, true);
	out->host_exposed_s = fmax(0, out->compute_s - out->gpu_s);
	out->fixed_s = out->coll_latency_s + out->accum_s + out->p2p_fixed_s + out->host_exposed_s;
	return SIM_OK;
}
