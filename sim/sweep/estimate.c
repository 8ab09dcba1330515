/* estimate.c - the closed-form pre-screen of one plan: the same kernels and
 * collectives the task graph would hold (plan/build.c), summed instead of
 * replayed.
 *
 * Layer programs come from work_layer_forward_at / work_layer_backward_at for
 * each layer kind the model has (dense, and MoE from moe_dense_layers on,
 * each with full or sliding-window attention: work_layer_windowed), so
 * a stage's time counts its own mix of kinds (plan_global_layer). Per
 * micro-batch, stage s costs
 *   t_s = sum over its layers of (fwd + bwd + recompute)
 *         + [embedding on stage 0] + [logits and loss on stage pp-1]
 * where each term sums its kernels at the GPU's calibrated efficiencies
 * (hw_gemm_time with the grouped GEMM's batch, hw_kernel_time, hw_mem_time)
 * and its blocking collectives on the groups of plan_make_groups: TP
 * all-reduce / all-gather / reduce-scatter on tp, the MoE all-to-alls on ep
 * (alpha-beta, net_collective). CP ring transfers (point-to-point on cp)
 * overlap the attention steps before the one they feed: step k waits for
 * transfer k, the transfers run back to back (sum_items' ring clock). With m micro-batches, the bottleneck T = max t_s and
 * the sum S = sum t_s, a 1F1B or GPipe pipeline takes
 *   pipe = m T + (S - T) / vpp
 * (equal stages: (m + (p-1)/vpp) T, the bubble fraction (p-1)/(vpp m + p - 1)
 * of Narayanan et al. 2021). ZB-H1 (Qi et al. 2024) moves the weight-gradient
 * GEMMs W out of the critical path: its bubble is (p-1)(F + B - W) instead of
 * (p-1)(F + B + W), i.e. (S - T) - 2 (W_S - W_T) with W_S, W_T the W time of
 * all stages and of the bottleneck. That is the fallback: a training
 * pipeline is walked at the stage level (pipewalk.c, walk_wanted), each
 * virtual stage's F, B (and W) with the graph's edges between them, its
 * span standing for m T and the bubble (the transfers' fixed costs below
 * stay pp). Added to it:
 *   PP: 2 (p-1) point-to-point activations (fill and drain; steady-state
 *       transfers hide behind compute);
 *   DP: ZeRO-0/1/2 reduce the graph's buckets (plan_grad_buckets: sizes and
 *       launch points, after a layer's last backward, at a chunk's aligned
 *       step, or at the end) one after the other on the DP stream (dp_tail:
 *       reduce-scatter on the shard group or all-reduce, an all-reduce of
 *       the shard on the replica group with hybrid sharding, experts over
 *       expert DP), against the compute the schedule still runs after each
 *       launch, slowed by the interference while they run beside it; per
 *       stage what outlasts its backward less what the stages below it
 *       still run, the worst stage's; then ZeRO-1/2's parameter all-gather
 *       of the largest stage, or under overlap_param_gather its buckets'
 *       gathers from the step start, each waited for by its layers' first
 *       forward: per stage the forward's delay max(0, max_b (G_b - a_b))
 *       (G_b when bucket b's gather ends, a_b when the forward would reach
 *       it) plus the interference on the compute beside them, the worst
 *       stage's (pgather_stage); ZeRO-3 (estz3.c): per layer
 *       and micro-batch two all-gathers and a reduce-scatter at the wire's
 *       bytes with its casts (plan_zero3_wire_bytes, _cast_bytes; with hybrid
 *       sharding and the shard's replica all-reduce, every micro-batch or
 *       the last: hsdp_grad_reduce; under accumulate_unsharded only the
 *       last micro-batch reduces; under zero3_reduce = bucket DeepSpeed's
 *       buckets, plan_zero3_bucket_list, each at its size, the last exposed after each
 *       micro-batch's backward), exposed where they outlast compute, each
 *       chain's first gather and each backward's last reduction exposed,
 *       the compute beside the hidden ones slowed by the interference (per
 *       pass the larger of the chain's excess and that slowdown), and
 *       the host's work at each layer's gathers (plan_zero3_gather_host_s;
 *       under zero3_sync with the GPU idle, in both passes);
 *   optimizer: plan_optimizer_time on the GPU (as plan/grads.c); offloaded (offload_optimizer) the CPU step of the
 *       node's GPUs at the host DRAM rate (30 bytes per parameter; from NVMe
 *       at least 24 bytes per parameter at the NVMe rate) plus the PCIe
 *       copies of the gradients down and the 16-bit weights up; after a
 *       ZeRO-1/2 gather, a framework's per-rank loops (plan_zero_gather_host,
 *       the slowest stage's): the GPU's copies, or the host's part where it
 *       outlasts the exposed reduction, the step and the gather; a
 *       framework's per-tensor loops around the step (plan_step_loops)
 *       where the host's outlast the exposed reduction and the step, and
 *       before the per-rank loops.
 * The framework's per-micro-batch costs (plan.h, plan_mb_cost) enter as the
 * simulation charges them: an item standing for several kernels pays each
 * launch (plan_kernel_time); with comm_host_op every collective costs one
 * more launch + op_overhead; a collective issued beside the next GEMM
 * (work_item.beside) exposes only max(0, c - g); the gradient accumulation
 * task (plan_grad_accum_item) is part of every micro-batch's stage time; with
 * pp > 1 each micro-batch's forward and backward transfer adds the
 * framework's handshakes and host operations (plan_p2p_overhead) on the
 * critical path (pp_s), and with p2p_serial one data transfer more per
 * micro-batch (the gradient sent after the activation received, not beside
 * it); zero_one_bucket reduces ZeRO-1/2 gradients after the
 * backward, unoverlapped, and zero_grad_op = all-reduce reduces them with an
 * all-reduce. Kernels between blocking collectives take max(GPU, host) per
 * run, as in the simulation.
 * offload_params: ZeRO-Infinity's copies before each gather and after each
 * reduction (estz3.c), ZeRO-Inference's streamed weights
 * (sweep_z3_stream_exposed). Not modelled here (the simulation does):
 * uneven per-rank MoE routing beyond the work module's imbalance factor.
 */
#include "sweep_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct prog {
	double comp_s;  /* kernels */
	double block_s; /* blocking collectives: TP */
	double ep_s;    /* the EP collectives: MoE all-to-alls (blocking unless
			 * moe_a2a_overlap: prog_time) */
	double ring_s;  /* CP ring transfers (overlap attention) */
	double ringx_s; /* ... what the attention steps wait for them */
	double attn_s;  /* the attention kernels the ring overlaps */
	double w_s;     /* weight-gradient GEMMs (ZB-H1's W) */
	double bwd_s;   /* backward with recomputation: kernels and blocking */
	double gpu_s;   /* the kernels' GPU time alone (no host), and the least time
	                 * of the TP collectives that block the stream between them */
	double bgpu_s;  /* its backward part, recomputation included */
	double wgpu_s;  /* its weight-gradient GEMMs */
} prog;

/* The compute's slowdown beside collective c of `bytes` on group g: the
 * GPU's interference scaled by the channels g's communicator runs it on
 * (plan_coll_scale), as the replay charges it. */
double sweep_coll_intf(const plan_scenario *s, net_coll c, const net_group *g, double bytes)
{
	return s->gpu.interference * plan_coll_scale(s, c, g, bytes);
}

/* A collective's time (0 for a group of one rank or a failed costing) and,
 * with algo, the algorithm NCCL picks for it (ring where none ran). */
static double coll_time_algo(const plan_scenario *s, net_coll c, const net_group *g, double bytes,
			     net_algo *algo)
{
	net_cost cost;
	bool ok = g->size > 1 && net_collective(&s->cluster, c, g, bytes, &cost) == SIM_OK;
	if (algo)
		*algo = ok ? cost.algo : NET_ALGO_RING;
	return ok ? cost.time_s : 0;
}

double sweep_coll_time(const plan_scenario *s, net_coll c, const net_group *g, double bytes)
{
	return coll_time_algo(s, c, g, bytes, NULL);
}

/* The pipeline's hops of `bytes` (plan_pp_pair, as pipe.c times each send):
 * their mean time, and in *slow the slowest hop's group (a hop across a
 * node boundary where some are and some are not: the steady state's
 * per-micro-batch terms wait for it). Two kinds of hop at most, inside a
 * node and across one (plan_pp_cross), so two timings whatever pp is. */
static double pp_hops(const plan_scenario *s, double bytes, net_group *slow)
{
	int pp = s->plan.pp, cross, inside;
	int ncross = plan_pp_cross(s, &cross, &inside);
	double t_cross = 0, t_in = 0;
	net_group h;
	if (inside >= 0) {
		plan_pp_pair(s, inside, inside + 1, &h);
		t_in = sweep_coll_time(s, NET_P2P, &h, bytes);
		*slow = h;
	}
	if (cross >= 0) {
		plan_pp_pair(s, cross, cross + 1, slow);
		t_cross = sweep_coll_time(s, NET_P2P, slow, bytes);
	}
	return (ncross * t_cross + (pp - 1 - ncross) * t_in) / (pp - 1);
}

/* A weight-gradient GEMM (ZB-H1's W; as plan/chain.c split_weight_grads). */
static bool is_wgrad(const work_item *it)
{
	size_t len = strlen(it->name);
	return it->kind == WORK_ITEM_KERNEL && len > 6 && !strcmp(it->name + len - 6, "_wgrad") &&
	       strncmp(it->name, "attn", 4) != 0;
}

/* A run of kernels ends: the chain's task, max(GPU, host), and, while a
 * CP ring is under way, the chain's clock with it (sum_items). */
static void end_run(prog *p, double *run_g, double *run_h, bool ring_on, double *clock)
{
	double t = fmax(*run_g, *run_h);
	p->comp_s += t;
	*clock += ring_on ? t : 0;
	*run_g = *run_h = 0;
}

/* A collective beside a GEMM (sum_items): item i's collective of time t
 * with the GEMM o items away (plan_tp_overlap). The framework's async
 * linears, or tp_comm_overlap as plan_build (lengthened by one of the
 * GEMM's chunks, the GEMM on the SMs a pipeline's margin leaves), run it
 * while the GEMM runs, and the GEMM at 1 - interference while an NCCL one
 * does (exec's replay): a pair of c and g takes max(c, g + i c), what it
 * adds to the GEMM max(c - g, i c); a userbuffer exchange takes no SMs from
 * it (plan_ub_kind): max(c - g, 0). Returns what the pair adds beyond the
 * GEMM. */
static double beside_gemm(const plan_scenario *s, const work_shard *sh, const work_item *it,
                          int n, int i, int o, const net_group *cg, net_algo algo, double t)
{
	const hw_gpu *gpu = &s->gpu;
	double gk = plan_ub_gemm_time(s, sh->dtype, it, n, i + o);
	if (!plan_tp_beside(s, it, n, i)) { /* chunked: one chunk longer */
		gk -= gpu->framework_s;
		t += plan_ub_chunk(s, it, n, i, gk);
	} else {
		/* the GEMM's task as plan_build makes it (chain.c
		 * append_kernel): max(GPU, host), the host its
		 * launches and framework operations and, issued
		 * after the collective under comm_host_op, the
		 * collective's own (chain.carry); its framework time
		 * is the host's, not beside the collective on the GPU
		 * (nanotron's fc1 chunk: 71.9 us of GPU, counted 102.5
		 * beside the all-gather; 1.0 % under the replay's step
		 * on its EFA scenario) */
		const work_item *k = &it[i + o];
		int nk = k->launches > 1 ? k->launches : 1;
		double fk = plan_item_framework_s(gpu, k);
		double host = nk * (gpu->launch_s + fk) +
		              (o > 0 && s->fw.comm_host_op ? hw_overhead(gpu) : 0);
		gk = fmax(gk - nk * fk, host);
	}
	bool quiet = plan_ub_kind(s, it, n, i) != PLAN_UB_NONE;
	double i_c = gpu->interference * plan_comm_scale(s, cg, algo);
	return fmax(t - gk, quiet ? 0 : i_c * t);
}

/* sum_items' running state: the run of kernels since the last blocking
 * collective (its GPU and host time, end_run), and the CP ring as
 * plan/emit.c links it (link_deps): transfer k (cp_step
 * k) is issued before attention step k - 1, the first after the task
 * before it, each later one as soon as the one before it has arrived
 * (the ring forwards the block it received); attention step k waits
 * for transfer k. From the first transfer's issue, the chain's clock
 * (its tasks since, and its waits) and each transfer's arrival: step k
 * waits max(0, arrival_k - clock). Only the steps before k hide
 * transfer k, not all the layer's attention (cp 2: transfer 1 beside
 * step 0 alone). As chain.c cuts the chain's tasks, a transfer ends
 * the run before it and an attention step k >= 1 starts one. The
 * all-gather's first step (cp_step 1 without a ring transfer) is the
 * gather's (sum_items). */
typedef struct {
	double run_g, run_h, clock;
	double arrive[WORK_MAX_CP + 1]; /* by cp_step: 1 .. cp */
	bool ring_on;
} sum_run;

/* Item i, a collective, into p: its time on its group (beside a GEMM what
 * the pair adds), the run it ends, the ring's clock, the bound's share. */
static void sum_comm(const plan_scenario *s, const work_shard *sh, const plan_groups *g,
                     const work_item *it, int n, int i, prog *p, sum_run *r)
{
	const hw_gpu *gpu = &s->gpu;
	bool ring = work_comm_on_cp(it[i].comm);
	bool cpg = work_comm_cp_group(it[i].comm); /* Ulysses' too */
	bool ep = work_comm_on_ep(it[i].comm);
	const net_group *cg = cpg ? &g->cp : ep ? &g->ep : &g->tp;
	net_algo algo;
	double t = coll_time_algo(s, plan_comm_coll(it[i].comm), cg, it[i].comm_bytes, &algo);
	/* a collective beside a GEMM: what the pair adds to it */
	int o = plan_tp_overlap(s, it, n, i);
	if (o != 0)
		t = beside_gemm(s, sh, it, n, i, o, cg, algo, t);
	/* a blocking collective ends the run, and so does a ring
	 * transfer (chain.c: the step after it a task of its own) */
	end_run(p, &r->run_g, &r->run_h, r->ring_on, &r->clock);
	if (s->fw.comm_host_op && !ring)
		r->run_h += hw_overhead(gpu);
	*(ring ? &p->ring_s : ep ? &p->ep_s : &p->block_s) += t;
	int k = it[i].cp_step;
	if (ring && k >= 1 && k <= WORK_MAX_CP) {
		bool after = r->ring_on && k > 1 && r->arrive[k - 1] >= 0;
		if (!after && (!r->ring_on || k <= 1)) { /* a new ring */
			r->ring_on = true;
			r->clock = 0;
			for (int j = 0; j <= WORK_MAX_CP; j++)
				r->arrive[j] = -1;
		}
		r->arrive[k] = (after ? r->arrive[k - 1] : r->clock) + t;
	} else if (r->ring_on && !ring) {
		r->clock += t; /* a blocking collective on the chain */
	}
	/* the bound's share (bound_of): a TP collective between two
	 * kernels of the program, not overlapped, holds the stream for
	 * at least the time its data takes through every link the GPU
	 * has: each rank must send (AR, RS) or receive (AG) (n-1)/n of
	 * the buffer, in-switch reduction (NVLS) or not */
	const net_node *nd = &s->cluster.node;
	double links = nd->intra_Bps + nd->pcie_Bps;
	if (!cpg && !ep && o == 0 && !s->plan.tp_comm_overlap && i + 1 < n &&
	    it[i + 1].kind == WORK_ITEM_KERNEL && g->tp.size > 1 && links > 0)
		p->gpu_s += (g->tp.size - 1.0) / g->tp.size * it[i].comm_bytes / links;
}

/* Item i, a kernel, into p: its GPU and host time into the run (one of its
 * own beside an overlapped collective), a ring step's wait for its
 * transfer; the attention before the CP all-gather's first wait into
 * *step0 (where not NULL). */
static void sum_kernel(const plan_scenario *s, const work_shard *sh, const work_item *it, int n,
                       int i, prog *p, sum_run *r, double *step0)
{
	const hw_gpu *gpu = &s->gpu;
	bool attn = !strncmp(it[i].name, "attn", 4);
	double t = plan_ub_gemm_time(s, sh->dtype, it, n, i);
	int nk = it[i].launches > 1 ? it[i].launches : 1;
	double fs = plan_item_framework_s(gpu, &it[i]);
	bool alone = (i >= 1 && plan_tp_overlap(s, it, n, i - 1) == 1) ||
	             (i + 1 < n && plan_tp_overlap(s, it, n, i + 1) == -1);
	int k = it[i].cp_step;
	if ((alone && r->run_g > 0) || (k > 0 && (r->run_g > 0 || r->run_h > 0)))
		end_run(p, &r->run_g, &r->run_h, r->ring_on, &r->clock); /* the kernels before it */
	if (r->ring_on && attn && k >= 1 && k <= WORK_MAX_CP && r->arrive[k] > r->clock) {
		p->ringx_s += r->arrive[k] - r->clock;
		r->clock = r->arrive[k];
	}
	r->run_g += t - nk * fs;
	/* the GPU part of the task plan_build emits (its `g`) */
	double gk = fmax(0, t - nk * fs);
	p->gpu_s += gk;
	p->wgpu_s += is_wgrad(&it[i]) ? gk : 0;
	r->run_h += nk * (gpu->launch_s + fs);
	if (step0)
		*step0 += t;
	else
		p->attn_s += attn ? t : 0;
	p->w_s += is_wgrad(&it[i]) ? t : 0;
	if (alone) /* its own run ends with it */
		end_run(p, &r->run_g, &r->run_h, r->ring_on, &r->clock);
}

/* Sum a program (for selective recomputation, the items it re-runs:
 * work_recompute_items). Kernels between two blocking
 * collectives form a run that takes max(GPU, host), as plan_build's chains:
 * each kernel costs the GPU its time less the framework's per-op part, and
 * the host its launches and that part (with comm_host_op a collective adds
 * one host operation to the run after it). A GEMM beside an overlapped
 * collective is a run of its own and the kernels after it start another
 * (chain.c append_kernel's `alone`: the kernels after the pair wait for the
 * collective too). */
static void sum_items(const plan_scenario *s, const work_shard *sh, const plan_groups *g,
                      const work_item *it, int n, prog *p)
{
	sum_run r = {0};
	/* context parallelism's all-gather (work/layer.c attn_ring,
	 * cp_allgather) runs beside the first step's attention only, the
	 * steps before the first that waits for it (cp_step 1): its excess
	 * over them is exposed; the ring's transfers beside the later steps */
	double gath = 0, step0 = 0;
	bool waited = false;
	for (int i = 0; i < n; i++) {
		bool attn = !strncmp(it[i].name, "attn", 4);
		if (it[i].kind == WORK_ITEM_COMM && it[i].comm == WORK_COMM_CP_ALLGATHER) {
			gath += sweep_coll_time(s, NET_ALLGATHER, &g->cp, it[i].comm_bytes);
			continue;
		}
		waited |= attn && it[i].cp_step == 1;
		if (it[i].kind == WORK_ITEM_COMM)
			sum_comm(s, sh, g, it, n, i, p, &r);
		else
			sum_kernel(s, sh, it, n, i, p, &r, attn && gath > 0 && !waited ? &step0 : NULL);
	}
	end_run(p, &r.run_g, &r.run_h, r.ring_on, &r.clock);
	p->block_s += gath > 0 ? fmax(gath - step0, s->gpu.interference * fmin(gath, step0)) : 0;
}

/* One micro-batch of layer `layer`: forward, backward and recomputation
 * (none when !recomp: a layer full recomputation leaves out, recompute_layers);
 * the forward alone with fwd_only (a frozen layer: chain.c skips its
 * backward) and in inference, as plan_build runs it (pipe.c skips the
 * backward ops). */
static void layer_cost(const plan_scenario *s, const work_shard *sh, const plan_groups *g,
                       int layer, bool recomp, bool fwd_only, prog *x)
{
	work_item it[WORK_MAX_ITEMS];
	int n = work_layer_forward_at(&s->model, sh, layer, it);
	sum_items(s, sh, g, it, n, x);
	if (s->inference || fwd_only)
		return;
	double fwd = x->comp_s + x->block_s + x->ep_s, fwd_g = x->gpu_s;
	if (recomp && s->plan.recompute == WORK_RECOMPUTE_FULL) {
		work_item ag; /* the saved input's gather first (chain.c) */
		if (work_saved_gather(&s->model, sh, &ag))
			sum_items(s, sh, g, &ag, 1, x);
		sum_items(s, sh, g, it, plan_recompute_items(s, it, n), x);
	}
	else if (recomp && s->plan.recompute == WORK_RECOMPUTE_SELECTIVE) {
		work_item rc[WORK_MAX_ITEMS]; /* what plan_build re-runs */
		int nr = work_recompute_items(&s->model, layer, it, n, sh->recompute_modules, rc);
		sum_items(s, sh, g, rc, nr, x);
	}
	n = work_layer_backward_at(&s->model, sh, layer, it);
	if (plan_sched_zb(s->plan.schedule)) {
		/* zero bubble: B and W as plan_build splits them (chain.c
		 * split_weight_grads), each its own program, so that a TP
		 * collective the framework issues beside a weight-gradient GEMM
		 * pairs, as in the graph, with what B runs after it (ZB-H1 under
		 * the ideal profile, tp 2: 3.8 -> 0.4 % of the step under) */
		work_item w[WORK_MAX_ITEMS];
		int nb = 0, nw = 0;
		for (int i = 0; i < n; i++) {
			if (is_wgrad(&it[i]))
				w[nw++] = it[i];
			else
				it[nb++] = it[i];
		}
		sum_items(s, sh, g, it, nb, x);
		sum_items(s, sh, g, w, nw, x);
	} else {
		sum_items(s, sh, g, it, n, x);
	}
	x->bwd_s += x->comp_s + x->block_s + x->ep_s - fwd;
	x->bgpu_s += x->gpu_s - fwd_g;
}

/* The gradient accumulation item (plan_grad_accum_item) as plan_build
 * issues it, a run of its own after the backward's last collective: its
 * kernels' GPU time (*gpu) against the host's launches and framework ops,
 * max(GPU, host) as sum_items times every run (the sum of the two was
 * charged before: DeepSpeed's BF16_Optimizer accumulation, host-bound at
 * 584 launches, counted 48 ms a micro-batch where the replay takes 40). */
static double accum_time(const plan_scenario *s, const work_item *acc, double *gpu)
{
	double host, t = plan_item_task_s(&s->gpu, plan_shard(s).dtype, acc, gpu, &host);
	*gpu = fmax(0, *gpu); /* as plan_build */
	return t;
}

/* Time of a program: kernels, blocking collectives, the ring beyond the
 * attention it overlaps, the MoE all-to-alls. Under moe_a2a_overlap (plan/
 * combined.c, build_emit_pair) a steady step runs one micro-batch's all-to-alls beside
 * another's compute, each slowed by the share i of the SMs the all-to-alls
 * take while both run (DeepEP's, plan_ep_share, else NCCL's interference):
 * per micro-batch max(C + i min(C, A), A) for compute C and all-to-alls A,
 * the warm-up and cool-down's unoverlapped steps left out (an estimate; the
 * bound below does not use it). */
static double prog_time(const plan_scenario *s, const prog *x)
{
	double c = x->comp_s, a = x->ep_s, i = plan_ep_share(s);
	double ca = s->plan.moe_a2a_overlap ? fmax(c + i * fmin(c, a), a) : c + a;
	/* the ring beside the attention: the steps' waits for it, or the
	 * attention slowed by the GPU's interference while it runs (its
	 * send/receive channels not modelled: the whole interference, as
	 * chain.c comm_seg) */
	double ri = s->gpu.interference * fmin(x->ring_s, x->attn_s);
	return ca + x->block_s + (x->ring_s > 0 ? fmax(x->ringx_s, ri) : 0);
}

static void prog_add(prog *a, const prog *b, double k)
{
	a->comp_s += k * b->comp_s;
	a->block_s += k * b->block_s;
	a->ep_s += k * b->ep_s;
	a->ring_s += k * b->ring_s;
	a->ringx_s += k * b->ringx_s;
	a->attn_s += k * b->attn_s;
	a->w_s += k * b->w_s;
	a->bwd_s += k * b->bwd_s;
	a->gpu_s += k * b->gpu_s;
	a->bgpu_s += k * b->bgpu_s;
	a->wgpu_s += k * b->wgpu_s;
}

/* Embedding (first) and logits + loss (last stage), forward and backward. */
static void ends_cost(const plan_scenario *s, const work_shard *sh, const plan_groups *g,
                      prog *first, prog *last)
{
	work_item it[WORK_MAX_ITEMS];
	sum_items(s, sh, g, it, work_embed_forward(&s->model, sh, it), first);
	/* the embedding's backward: none in inference, none when it is frozen
	 * with the layers (chain.c) */
	if (!s->inference && s->train.frozen_layers <= 0) {
		double f0 = first->gpu_s, t0 = first->comp_s + first->block_s + first->ep_s;
		sum_items(s, sh, g, it, work_embed_backward(&s->model, sh, it), first);
		first->bgpu_s += first->gpu_s - f0;
		first->bwd_s += first->comp_s + first->block_s + first->ep_s - t0;
	}
	sum_items(s, sh, g, it, work_head_forward(&s->model, sh, it), last);
	for (int k = 0; k < s->model.mtp_layers; k++) /* MTP modules (work/mtp.c) */
		sum_items(s, sh, g, it, work_mtp_forward(&s->model, sh, it), last);
	if (s->inference) /* the forwards alone (pipe.c) */
		return;
	double f1 = last->gpu_s, t1 = last->comp_s + last->block_s + last->ep_s;
	sum_items(s, sh, g, it, work_head_backward(&s->model, sh, it), last);
	for (int k = 0; k < s->model.mtp_layers; k++) {
		sum_items(s, sh, g, it, work_mtp_backward(&s->model, sh, it), last);
		/* what plan_build re-runs of the module (make_mtp_prog): under
		 * full recomputation eh_proj's part and the layer, under
		 * selective the layer's recompute_modules */
		work_item lf[WORK_MAX_ITEMS], rc[WORK_MAX_ITEMS];
		int gl = s->model.layers - 1, nl = work_layer_forward_at(&s->model, sh, gl, lf);
		if (s->plan.recompute == WORK_RECOMPUTE_FULL && !plan_recompute_partial(&s->plan)) {
			sum_items(s, sh, g, it, work_mtp_proj(&s->model, sh, false, it), last);
			sum_items(s, sh, g, lf, nl, last);
		} else if (s->plan.recompute == WORK_RECOMPUTE_SELECTIVE) {
			int nr = work_recompute_items(&s->model, gl, lf, nl, sh->recompute_modules, rc);
			sum_items(s, sh, g, rc, nr, last);
		}
	}
	last->bgpu_s += last->gpu_s - f1;
	last->bwd_s += last->comp_s + last->block_s + last->ep_s - t1;
}

/* ZeRO-1/2's gather of stage st's updated parameters after the optimizer
 * step, as plan_build issues it (grads.c, plan_zero_gather_bytes). */
static double param_gather_s(const plan_scenario *s, const plan_groups *g, int st)
{
	double dense, experts;
	plan_zero_gather_bytes(s, st, g->edp.size, &dense, &experts);
	return sweep_coll_time(s, NET_ALLGATHER, &g->shard, dense) +
	       (experts > 0 ? sweep_coll_time(s, NET_ALLGATHER, &g->edp, experts) : 0);
}

/* Exposed DP time; grad bytes are one rank's full (unsharded) local
 * gradients. fwd_l and bwd_l: one layer's forward and backward
 * (recomputation included) per micro-batch. bucket_tail: ZeRO-0/1/2's
 * buckets past the backward (dp_tail, the worst stage's), or -1 to count
 * the whole reduction. pgather: ZeRO-1/2's parameter all-gather under
 * overlap_param_gather (pgather_stage, the worst stage's), or -1 for the
 * whole gather after the optimizer step, gather_s (param_gather_s, the
 * worst stage's). */
static double dp_exposed(const plan_scenario *s, const plan_groups *g, double grad_bytes,
                         double gather_s, double bucket_tail, double pgather, double fwd_l,
                         double bwd_l, int layers)
{
	const plan_spec *p = &s->plan;
	const net_group *dp = &g->dp;
	if (dp->size <= 1)
		return 0;
	if (p->zero >= 3)
		return sweep_z3_exposed(s, g, fwd_l, bwd_l, layers, plan_microbatches(p));
	double reduce, gather = 0;
	if (p->zero >= 1) { /* shard group, then the shard across replicas */
		int z = g->shard.size > 1 ? g->shard.size : 1;
		net_coll op = s->fw.zero_grad_op == PLAN_GRAD_OP_ALL_REDUCE ? NET_ALLREDUCE
		                                                             : NET_REDUCESCATTER;
		reduce = sweep_coll_time(s, op, &g->shard, grad_bytes) +
		         sweep_coll_time(s, NET_ALLREDUCE, &g->replica, grad_bytes / z);
		gather = pgather >= 0 ? pgather : gather_s;
	} else {
		reduce = sweep_coll_time(s, NET_ALLREDUCE, dp, grad_bytes);
	}
	/* the buckets' reduction (dp_tail, as the graph's buckets, also with
	 * the optimizer offloaded: reduced, then copied out), else the whole
	 * reduction exposed */
	return (bucket_tail >= 0 ? bucket_tail : reduce) + gather;
}

/* The optimizer step of `local` parameters per rank (see the file comment). */
static double optimizer_time(const plan_scenario *s, int stage, double local)
{
	const plan_spec *p = &s->plan;
	if (p->offload_optimizer == PLAN_OFFLOAD_NONE)
		return plan_optimizer_time(s, stage, local);
	const net_node *nd = &s->cluster.node;
	double node = local * nd->gpus;
	double t = nd->host_mem_Bps > 0 ? node * 30.0 / (nd->host_mem_Bps * nd->host_mem_eff) : 0;
	if (p->offload_optimizer == PLAN_OFFLOAD_NVME && nd->nvme_Bps > 0)
		t = fmax(t, node * 24.0 / nd->nvme_Bps);
	double gbytes = plan_grad_bytes(s);
	double wbytes = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	double pcie = nd->pcie_Bps * nd->pcie_eff;
	return t + (pcie > 0 ? local * (gbytes + wbytes) / pcie : 0);
}

/* The per-micro-batch programs of the model's layer kinds, as plan_build
 * makes them: [0] dense (the leading dense layers of an MoE model), [1] MoE,
 * [2] and [3] the same with a sliding window (work_layer_windowed); has[]
 * says which the model holds. Under partial full recomputation
 * (recompute_layers) plain[] are the same without their recomputation, for
 * the layers it leaves out. */
typedef struct kinds {
	prog kind[4], plain[4];
	prog frozen[4]; /* the forward alone: a layer of the frozen prefix */
	bool has[4];
} kinds;

static int kind_of(const work_model *m, int layer)
{
	return work_layer_is_moe(m, layer) + 2 * work_layer_windowed(m, layer);
}

static void make_kinds(const plan_scenario *s, const work_shard *sh, const plan_groups *g, kinds *k)
{
	const work_model *m = &s->model;
	memset(k, 0, sizeof *k);
	for (int l = 0; l < m->layers; l++) {
		int i = kind_of(m, l);
		if (k->has[i])
			continue;
		layer_cost(s, sh, g, l, true, false, &k->kind[i]), k->has[i] = true;
		k->plain[i] = k->kind[i];
		if (plan_recompute_partial(&s->plan)) {
			memset(&k->plain[i], 0, sizeof k->plain[i]);
			layer_cost(s, sh, g, l, false, false, &k->plain[i]);
		}
	}
	/* train.frozen_layers: the prefix's forwards alone (chain.c skips
	 * their backward; their kind's first frozen layer stands for all) */
	for (int l = 0; l < m->layers && plan_layer_frozen(s, l); l++) {
		int i = kind_of(m, l);
		if (k->frozen[i].comp_s <= 0)
			layer_cost(s, sh, g, l, false, true, &k->frozen[i]);
	}
}

/* FSDP1's flat-gradient assembly after each trained layer's backward
 * (plan_build's fsdp_unit flat_s), per layer; none without a backward. */
static double flat_grad_s(const plan_scenario *s)
{
	return s->inference ? 0
	                    : plan_fsdp_flat_grad_s(s, work_params_layer(&s->model) / s->plan.tp);
}

/* Stage st's per-micro-batch program. */
static prog stage_prog(const plan_scenario *s, const kinds *k, const prog *first, const prog *last,
                       int st, int *layers)
{
	prog x = {0};
	int L = plan_stage_layers(s, st), n[4] = {0, 0, 0, 0}, np[4] = {0, 0, 0, 0};
	int nf[4] = {0, 0, 0, 0};
	for (int c = 0, i = 0; c < s->plan.vpp; c++) {
		int nl = plan_chunk_layers(s, st, c, NULL);
		for (int l = 0; l < nl; l++, i++) {
			int g = plan_global_layer(s, st, i), kd = kind_of(&s->model, g);
			if (plan_layer_frozen(s, g))
				nf[kd]++;
			else if (plan_layer_recomputed(&s->plan, nl, l) ||
			         s->plan.recompute != WORK_RECOMPUTE_FULL)
				n[kd]++;
			else
				np[kd]++;
		}
	}
	for (int i = 0; i < 4; i++) {
		if (n[i] > 0)
			prog_add(&x, &k->kind[i], n[i]);
		if (np[i] > 0)
			prog_add(&x, &k->plain[i], np[i]);
		if (nf[i] > 0)
			prog_add(&x, &k->frozen[i], nf[i]);
	}
	if (st == 0)
		prog_add(&x, first, 1);
	if (st == plan_last_rank(&s->plan))
		prog_add(&x, last, 1);
	work_item acc; /* the framework's gradient accumulation, per micro-batch */
	if (plan_grad_accum_item(s, st, -1, &acc)) {
		double g, t = accum_time(s, &acc, &g);
		x.comp_s += t;
		x.bwd_s += t;
		x.gpu_s += g;
		x.bgpu_s += g;
	}
	double flat = flat_grad_s(s);
	if (flat > 0) {
		x.comp_s += L * flat;
		x.bwd_s += L * flat;
		x.gpu_s += L * fmax(0, flat - s->gpu.framework_s);
		x.bgpu_s += L * fmax(0, flat - s->gpu.framework_s);
	}
	*layers = L;
	return x;
}

/* One model chunk of stage st per micro-batch: its forward and backward
 * time (recomputation in the backward, the embedding on the first virtual
 * stage, logits and loss on the last), and per stage-local layer of the
 * chunk the backward time of its layers below it (bwd_below, indexed by
 * local layer: what runs after that layer's backward within the chunk's). */
static void chunk_times(const plan_scenario *s, const kinds *k, const prog *first,
                        const prog *last, int st, int c, double *fwd, double *bwd,
                        double *bwd_below, double *wgt)
{
	const plan_spec *p = &s->plan;
	int l0, nl = plan_chunk_layers(s, st, c, &l0);
	int v = plan_vstage(p, st, c);
	bool v0 = v == 0, vl = v == p->pp * p->vpp - 1;
	double emb = v0 ? first->bwd_s : 0;
	if (wgt) /* of the backward, its weight-gradient GEMMs (a W pass) */
		*wgt = (v0 ? first->w_s : 0) + (vl ? last->w_s : 0);
	*fwd = (v0 ? prog_time(s, first) - first->bwd_s : 0) +
	       (vl ? prog_time(s, last) - last->bwd_s : 0);
	/* the framework's gradient accumulation after the chunk's backward
	 * (plan_grad_accum_item, as stage_prog) runs after every layer's too */
	work_item acc;
	double ag, ac = plan_grad_accum_item(s, st, c, &acc) ? accum_time(s, &acc, &ag) : 0;
	*bwd = emb + ac + (vl ? last->bwd_s : 0);
	double below = emb + ac; /* the embedding's backward runs after every layer's */
	for (int l = 0; l < nl; l++) {
		int g = plan_global_layer(s, st, l0 + l), kd = kind_of(&s->model, g);
		bool full = plan_layer_recomputed(p, nl, l) || p->recompute != WORK_RECOMPUTE_FULL;
		const prog *x = plan_layer_frozen(s, g) ? &k->frozen[kd]
		                : full                  ? &k->kind[kd]
		                                        : &k->plain[kd];
		double b = x->bwd_s, f = prog_time(s, x) - b;
		*fwd += f;
		*bwd += b;
		if (wgt)
			*wgt += x->w_s;
		if (bwd_below)
			bwd_below[l0 + l] = below;
		below += b;
	}
}

/* The DP stream running nb collectives of time cost[i], each launched at
 * launch[i] (<= 0: times count back from the end of the backward, 0), after
 * a stream busy until e0: returns its end and in *busy its time before 0.
 * The compute beside a collective runs at 1 - i (the GPU's interference;
 * exec's replay charges the loss to the collective's group), so the
 * backward ends i B later, B the stream's time before its end, and a
 * collective launched at -r_j i B_j later, B_j the stream's time before
 * -r_j: a first pass with the listed launches gives B_j (in pre[], nb of
 * scratch), a second runs the stream with the launches moved (*busy is the
 * second's). */
static double stream_end(const double *launch, const double *cost, double *pre, int nb,
                         double e0, double i_f, double *busy)
{
	double e = e0;
	for (int j = 0; j < nb; j++)
		pre[j] = 0;
	for (int i = 0; i < nb; i++) {
		double st = fmax(e, launch[i]);
		e = st + cost[i];
		for (int j = i + 1; j < nb; j++)
			pre[j] += fmax(0, fmin(e, fmin(launch[j], 0)) - st);
	}
	e = e0;
	*busy = 0;
	for (int i = 0; i < nb; i++) {
		double st = fmax(e, launch[i] + i_f * pre[i]);
		e = st + cost[i];
		*busy += fmax(0, fmin(e, 0) - st);
	}
	return e;
}

/* The gradient reduction of stage st under ZeRO-0/1/2, as plan_build emits
 * it: the buckets of plan_grad_buckets (bk, nb: their sizes and launch points) run
 * one after the other on the DP stream, each the collective of its dense
 * bytes over the shard group (reduce-scatter, or all-reduce as zero_grad_op
 * or without ZeRO says), the shard's all-reduce over its replicas with
 * hybrid sharding, and its expert bytes over the expert-DP group, on the
 * wire's bytes (grad_compression). Times count back from the end of the
 * stage's last backward step (0): a bucket launched after its lowest
 * layer's last backward starts at minus what the schedule still runs after
 * it, its chunk's layers below it and every op after that chunk's last
 * backward in plan_schedule_order (forwards and backwards at their chunk's
 * cost, bubbles left out: an upper bound on what it waits); one launched
 * at its chunk's aligned step (PLAN_LAUNCH_CHUNK) at minus the ops after
 * that backward step; one at the end at 0. The DP stream runs them in
 * order:
 *   start_i = max(end_{i-1}, -rem_i), end_i = start_i + c_i,
 * and the stage's reduction outlasts its backward by max(0, end_last).
 * ZeRO-2 reducing every micro-batch (plan_grad_reduce_microbatch) reduces
 * the m - 1 earlier micro-batches' buckets too: without overlap each waits
 * before the next step, all exposed ((m - 1) sum c_i); with it they run
 * under the compute that follows and only their excess over it, (m - 1)
 * max(0, sum c_i - t_mb) for the stage's time per micro-batch t_mb, delays
 * the stream at the last backward's start. The compute the buckets run
 * beside (the part of each before the end, and the earlier micro-batches'
 * under overlap) is slowed by the GPU's interference, as in the replay,
 * which charges that loss to DP: interference x that time is added. Returns
 * that tail, *slack (if
 * not NULL) the stage's backward of the last micro-batch through its first
 * chunk (what the stages below it still run after it), or -1 (out of
 * memory). */
/* The shard group's collective times of the last few sizes (a stage's
 * buckets and their calls repeat a layer's few sizes): each looked up before
 * it is timed. */
#define CALL_MEMO 8
typedef struct call_memo {
	double bytes[CALL_MEMO], time[CALL_MEMO];
	int n, next;
} call_memo;

static double memo_time(const plan_scenario *s, net_coll op, const net_group *g, double bytes,
			call_memo *m)
{
	for (int i = 0; i < m->n; i++)
		if (m->bytes[i] == bytes)
			return m->time[i];
	double t = sweep_coll_time(s, op, g, bytes);
	m->bytes[m->next] = bytes, m->time[m->next] = t;
	m->next = (m->next + 1) % CALL_MEMO;
	m->n += m->n < CALL_MEMO;
	return t;
}

/* One ZeRO-0..2 bucket's collectives (dp_tail), as plan_grad_bucket_time
 * times them but through the memo: over the shard group its dense bytes (d,
 * on the wire x wire) in one call or its calls in a NCCL group, then the
 * shard over its replicas; the experts (x) over expert DP; and the casts
 * around a narrower wire (buckets.c flush_bucket). */
static double bucket_cost(const plan_scenario *s, const plan_groups *g, net_coll op,
			  const plan_grad_bucket *k, double wire, call_memo *memo)
{
	double dense = k->dense_bytes, expert = k->expert_bytes;
	double gbytes = plan_grad_bytes(s), d = dense * wire, x = expert * wire, c = 0;
	if (g->dp.size > 1 && d > 0) {
		for (int i = 0; i < (k->ncalls > 0 ? k->ncalls : 1); i++) /* its calls */
			c += memo_time(s, op, &g->shard, k->ncalls > 0 ? k->calls[i] * wire : d,
				       memo);
		c += plan_call_group_wait(&s->cluster, &g->shard, k->calls, k->ncalls, wire);
		if (g->replica.size > 1)
			c += sweep_coll_time(s, NET_ALLREDUCE, &g->replica, d / g->shard.size);
		c += 2 * plan_grad_cast_time(s, dense / gbytes);
	}
	if (g->edp.size > 1 && x > 0)
		c += sweep_coll_time(s, op, &g->edp, x) + 2 * plan_grad_cast_time(s, expert / gbytes);
	return c;
}

/* Stage st's data-parallel tail: how long its gradient buckets' stream runs
 * past the end of its last backward (t_mb one micro-batch's compute), at
 * least as long as the compute they slow beside them delays that end (*slow,
 * i B); *slack its chunk 0's backward; -1 out of memory. */
static double dp_tail(const plan_scenario *s, const plan_groups *g, const kinds *k,
                      const prog *first, const prog *last, int st, double t_mb, double *slack,
                      double *slow, const plan_grad_bucket *bk, int nb, call_memo *memo)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), vpp = p->vpp > 0 ? p->vpp : 1;
	int L = plan_stage_layers(s, st);
	int n = plan_schedule_steps(p->schedule, m, vpp);
	plan_op *order = malloc((size_t)n * sizeof *order);
	double *below = malloc((size_t)(L > 0 ? L : 1) * sizeof *below);
	double *cf = malloc((size_t)vpp * 3 * sizeof *cf), *cb = NULL, *rem_chunk = NULL;
	double tail = -1;
	*slow = 0;
	if (!order || !below || !cf)
		goto out;
	cb = cf + vpp;
	rem_chunk = cf + 2 * vpp; /* the compute after each chunk's last backward op */
	for (int c = 0; c < vpp; c++) {
		chunk_times(s, k, first, last, st, c, &cf[c], &cb[c], below, NULL);
		rem_chunk[c] = -1;
	}
	if (slack)
		*slack = cb[0];
	/* the compute after each op, from the back: after each chunk's last
	 * backward op, and after each backward step (the chunk launches) */
	int nbwd = 0; /* without interleaving the last op is chunk 0's backward */
	if (vpp > 1)
		plan_schedule_order(p->schedule, p->pp, m, vpp, plan_vp_group(p),
				    plan_warm_extra(p), st, order);
	else
		n = 0, rem_chunk[0] = 0;
	double suffix = 0;
	for (int i = 0; i < n; i++)
		nbwd += order[i].backward && !order[i].weight;
	double *step_rem = malloc((size_t)(nbwd > 0 ? nbwd : 1) * sizeof *step_rem);
	if (!step_rem)
		goto out;
	for (int i = n - 1, b = nbwd - 1; i >= 0; i--) {
		const plan_op *o = &order[i];
		if (o->backward && rem_chunk[o->chunk] < 0)
			rem_chunk[o->chunk] = suffix;
		if (o->backward && !o->weight)
			step_rem[b--] = suffix;
		/* ZB-H1's W: its time is counted with its B (an estimate) */
		suffix += o->backward ? (o->weight ? 0 : cb[o->chunk]) : cf[o->chunk];
	}
	/* the collectives: over the shard group the dense bytes, then the
	 * shard over its replicas; the experts over expert DP */
	double gbytes = plan_grad_bytes(s);
	double wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	net_coll op = p->zero >= 1 && s->fw.zero_grad_op == PLAN_GRAD_OP_REDUCE_SCATTER
	                      ? NET_REDUCESCATTER
	                      : NET_ALLREDUCE;
	double sum = 0;
	double *rem = malloc((size_t)(nb > 0 ? 3 * nb : 1) * sizeof *rem); /* launch, cost, scratch */
	if (!rem) {
		free(step_rem);
		goto out;
	}
	for (int i = 0; i < nb; i++) {
		double c = bucket_cost(s, g, op, &bk[i], wire, memo);
		double r = 0;
		if (bk[i].launch == PLAN_LAUNCH_CHUNK && bk[i].step >= 0 && bk[i].step < nbwd)
			r = step_rem[bk[i].step];
		else if (bk[i].launch == PLAN_LAUNCH_LAYER && bk[i].layer >= 0)
			r = fmax(0, rem_chunk[bk[i].chunk]) + below[bk[i].layer];
		rem[i] = -r; /* its launch */
		rem[nb + i] = c;
		sum += c;
	}
	bool mbr = plan_grad_reduce_microbatch(s) && m > 1;
	double e0 = -INFINITY; /* the stream's end so far */
	if (mbr && p->overlap_grad_reduce) { /* the earlier buckets' backlog */
		double bwd = 0;
		for (int c = 0; c < vpp; c++)
			bwd += cb[c];
		e0 = -bwd + (m - 1) * fmax(0, sum - t_mb);
	}
	double i = sweep_coll_intf(s, op, &g->shard, nb > 0 ? bk[0].dense_bytes * wire : 0);
	double busy, e = stream_end(rem, rem + nb, rem + 2 * nb, nb, e0, i, &busy);
	if (mbr && p->overlap_grad_reduce)
		busy += (m - 1) * fmin(sum, t_mb);
	if (mbr && !p->overlap_grad_reduce) /* each waited for before the next step */
		e += (m - 1) * sum;
	tail = fmax(0, fmax(e, i * busy));
	*slow = i * busy;
	free(step_rem), free(rem);
out:
	free(order), free(below), free(cf);
	return tail;
}

/* overlap_param_gather's lead: when each model chunk first runs a forward,
 * counted from the step start. lead[v] (v = c pp + st, virtual stage v is
 * chunk c of stage st) gets its forward per micro-batch F_v (chunk_times),
 * lead[pp vpp + v] the time micro-batch 0 reaches it through the virtual
 * stages before it, each a forward and one hop (hop: the activation's
 * transfer with its TP all-gather),
 *   P_v = sum_{u < v} (F_u + hop),
 * waits and bubbles left out (an early start, if anything). lead holds
 * 2 pp vpp + 1. */
static void pgather_lead(const plan_scenario *s, const kinds *k, const prog *first,
                         const prog *last, double hop, double *lead)
{
	int pp = s->plan.pp, vpp = s->plan.vpp > 0 ? s->plan.vpp : 1, V = pp * vpp;
	double *P = lead + V;
	for (int st = 0; st < pp; st++)
		for (int c = 0; c < vpp; c++) {
			double b;
			chunk_times(s, k, first, last, st, c, &lead[plan_vstage(&s->plan, st, c)], &b,
			            NULL, NULL);
		}
	P[0] = 0;
	for (int v = 0; v < V; v++)
		P[v + 1] = P[v] + lead[v] + hop;
}

/* overlap_param_gather on stage st (plan/buckets.c build_emit_param_gather):
 * the buckets of plan_grad_buckets (bk, nb), in forward order b = 1..n (their
 * lowest layer first), are all-gathered back to back on the DP stream from
 * the step start, each c_b (its dense 16-bit parameters over the shard
 * group, its experts over expert DP), so gather b ends at
 *   G_b = c_1 + ... + c_b;
 * the stage's first forward of a layer (micro-batch 0 of its chunk) waits
 * for its bucket's gather, and nothing else does. Chunk c of the stage first
 * runs at
 *   A_c = max(P_{c pp + st}, P_st + N sum_{c' < c} F_{c' pp + st})
 * (pgather_lead): once micro-batch 0 has reached it, and after the stage's
 * own ops before it, which in interleaved 1F1B's warm-up are the forwards
 * of micro-batches 0..N-1 through each chunk below (N = plan_vp_group, pp
 * by default: forward step k runs chunk k / N of micro-batch k % N while
 * k < N vpp, all of them warm-up as m >= N: plan_schedule_order). Without waits the compute reaches bucket
 * b's lowest layer at a_b: its chunk's A_c plus the chunk's forward up to
 * that layer (and the embedding's on the first virtual stage, after the
 * first bucket's wait: the chain's first task waits for its first layer's
 * bucket). The compute stream runs in order, so with waits it reaches that
 * layer at
 *   r_b = max(r_{b-1} + (a_b - a_{b-1}), G_b),   r_1 = max(a_1, G_1),
 * whose solution is r_b = a_b + max(0, max_{j<=b} (G_j - a_j)): the stage's
 * forward ends late by
 *   D = max(0, max_b (G_b - a_b)),
 * which the rest of the step keeps (no slack after micro-batch 0's first
 * forward absorbs it in this estimate). Besides, the compute that runs while
 * the gathers do is slowed by the GPU's interference i (exec's replay, which
 * charges the loss to DP): the stream is busy until G_n and the stage
 * computes from A_0 on except while it waits, so the gathers run beside
 * max(0, G_n - A_0 - D) of compute and the stage exposes
 *   X = D + i max(0, G_n - A_0 - D).
 * A forward that only started at G_n would expose all of it (G_n, as the
 * gather after the optimizer step without the overlap); one whose compute
 * covers every gather (a_b >= G_b) only the interference. Returns X. */
static double pgather_stage(const plan_scenario *s, const plan_groups *g, const kinds *k,
                            const prog *first, int st, const double *lead,
                            const plan_grad_bucket *bk, int nb)
{
	const plan_spec *p = &s->plan;
	int pp = p->pp, vpp = p->vpp > 0 ? p->vpp : 1;
	const double *P = lead + pp * vpp;
	double wb = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype) / plan_grad_bytes(s);
	double G = 0, D = 0, own = P[st]; /* own: after the chunks below's warm-up forwards */
	int b = nb - 1;                   /* the next bucket in forward order */
	/* each layer kind's forward; a model of one kind needs no lookup */
	double f[4] = {0, 0, 0, 0};
	int kinds_held = 0, only = 0;
	for (int i = 0; i < 4; i++)
		if (k->has[i])
			f[i] = prog_time(s, &k->kind[i]) - k->kind[i].bwd_s, kinds_held++, only = i;
	/* most buckets are the bucket size: time a size once */
	double last_d = -1, last_x = -1, cd = 0, cx = 0;
	for (int c = 0, l = 0; c < vpp; c++) {
		double a = fmax(P[plan_vstage(p, st, c)], own);
		int nl = plan_chunk_layers(s, st, c, NULL);
		for (int j = 0; j < nl; j++, l++) {
			while (b >= 0 && bk[b].layer == l) { /* bucket b opens: its gather
							       * (several where buckets
							       * closed inside layer l) */
				double d = bk[b].dense_bytes * wb, x = bk[b].expert_bytes * wb;
				if (d != last_d) { /* coll_time: 0 on a one-rank group */
					last_d = d;
					cd = d > 0 ? sweep_coll_time(s, NET_ALLGATHER, &g->shard, d) : 0;
				}
				if (x != last_x) {
					last_x = x;
					cx = x > 0 ? sweep_coll_time(s, NET_ALLGATHER, &g->edp, x) : 0;
				}
				G += cd + cx;
				D = fmax(D, G - a);
				b--;
			}
			if (st == 0 && c == 0 && j == 0) /* the embedding, after the first wait */
				a += prog_time(s, first) - first->bwd_s;
			int kd = kinds_held > 1 ? kind_of(&s->model, plan_global_layer(s, st, l)) : only;
			a += f[kd];
		}
		own += plan_vp_group(p) * lead[plan_vstage(p, st, c)];
	}
	return D + sweep_coll_intf(s, NET_ALLGATHER, &g->shard, nb > 0 ? bk[0].dense_bytes * wb : 0) *
	               fmax(0, G - P[st] - D);
}

/* A lower bound on the simulated step through stage k (bound_s in
 * sweep.h), from the GPU time of the kernels plan_build gives the stage's
 * compute stream: per micro-batch F_k (forward) and B_k (backward with its
 * recomputation), W_k of B_k the weight-gradient GEMMs. The stream runs its
 * tasks one at a time and nothing in the replay shortens a task (overlap
 * and host-bound runs only lengthen them), so stage k is busy m (F_k + B_k).
 * A TP collective that the stream waits for between two kernels adds its
 * data over the GPU's links (sum_items). Its first task, micro-batch 0's
 * forward through its first model chunk,
 * waits for that micro-batch's forward through the first chunk of stages
 * 0..k-1; after its last task, micro-batch m-1's backward through its first
 * chunk, the input gradient still crosses the first chunks of stages
 * k-1..0 before the step ends:
 *   step >= sum_{s<k} Fc_s + m (F_k + B_k) + sum_{s<k} (Bc_s - Wc_s)
 * with Fc, Bc, Wc the first chunk's (the whole stage without interleaving;
 * with it, the chunk's layers at the cheapest layer kind's cost, the
 * embedding left out) and only the activation-gradient part B - W needed
 * upstream. ZB-H1 may run W's after the last backward: no suffix there.
 * Nothing exposed (communication, the rest of the bubble, the optimizer)
 * is counted: it is a bound, not an estimate. */
static double bound_of(const plan_spec *p, int m, const prog *x, double pre_f, double pre_b)
{
	double busy = m * x->gpu_s;
	/* delay_wgrad_compute also runs a deferred weight gradient after the
	 * last backward's send (plan/chain.c append_backward): the upstream
	 * stages' backward may run beside it, so no suffix either */
	bool tail_w = plan_sched_zb(p->schedule) || (p->moe_a2a_overlap && p->delay_wgrad);
	return pre_f + busy + (tail_w ? 0 : pre_b);
}

/* The first chunk's forward and activation-gradient GPU time on stage st
 * (bound_of's Fc and Bc - Wc); x is the stage's whole program. */
static void first_chunk(const plan_scenario *s, const kinds *k, const prog *x, int st, double *fc,
                        double *bc)
{
	if (s->plan.vpp <= 1) {
		*fc = x->gpu_s - x->bgpu_s;
		*bc = x->bgpu_s - x->wgpu_s;
		return;
	}
	int first_local;
	int n = plan_chunk_layers(s, st, 0, &first_local);
	double f = INFINITY, b = INFINITY;
	for (int i = 0; i < 4; i++)
		if (k->has[i]) {
			const prog *d = &k->kind[i], *e = &k->plain[i];
			f = fmin(f, fmin(d->gpu_s - d->bgpu_s, e->gpu_s - e->bgpu_s));
			b = fmin(b, fmin(d->bgpu_s - d->wgpu_s, e->bgpu_s - e->wgpu_s));
		}
	*fc = n > 0 && isfinite(f) ? n * f : 0;
	*bc = n > 0 && isfinite(b) ? n * b : 0;
}

/* What the stages' loop of sweep_estimate_plan gathers: the slowest
 * stage's program time T (its weight passes W_T, layers worst) and the sum
 * over stages S (W_S); the largest DP bytes, ZeRO-1/2's parameter gather
 * after the step (gather, param_gather_s) and local parameters (optim, on
 * stage ost); the framework's loops; the bound's running sums pre_f, pre_b;
 * the ZeRO-0/1/2 reduction tail and the parameter gather's exposure (-1:
 * not estimated). */
typedef struct stage_sum {
	double T, S, W_T, W_S, grad, gather, optim, chost, cgpu, loops;
	double pre_f, pre_b, bound, dp_tail_s, below, pg;
	double *F, *B, *W; /* each virtual stage's forward, backward (its input
	                    * gradients under zero bubble) and weight passes, for
	                    * the walk (or NULL) */
	double *tl, *slow;  /* each stage's dp_tail and the slowdown in it */
	double *pre, *post; /* ZeRO-3's per chain on the DP stream (sweep_walk_in) */
	int ost, worst;
} stage_sum;

/* What every stage's terms need: the layer kinds, the two ends' programs,
 * the groups, the bucket array (cap), the parameter gather's lead. */
typedef struct est_in {
	const kinds *k;
	const prog *first, *last;
	const plan_groups *grp;
	plan_grad_bucket *bk;
	int cap, m;
	bool buckets;
	const double *lead;
	call_memo *memo;
} est_in;

/* Stage st's terms into a (and the slowest stage's compute and TP time
 * into e). */
static void add_stage(const plan_scenario *s, const est_in *in, int st, stage_sum *a,
                      sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	int L;
	prog x = stage_prog(s, in->k, in->first, in->last, st, &L);
	double t = prog_time(s, &x);
	bool zb = plan_sched_zb(p->schedule);
	if (a->F && p->vpp <= 1) {
		a->F[st] = t - x.bwd_s, a->B[st] = x.bwd_s - (zb ? x.w_s : 0);
		a->W[st] = zb ? x.w_s : 0;
	} else if (a->F) { /* each chunk its virtual stage's, as the bubble's */
		double flat = flat_grad_s(s);
		for (int c = 0; c < p->vpp; c++) {
			int v = plan_vstage(p, st, c);
			chunk_times(s, in->k, in->first, in->last, st, c, &a->F[v], &a->B[v], NULL,
			            &a->W[v]);
			a->B[v] += plan_chunk_layers(s, st, c, NULL) * flat - (zb ? a->W[v] : 0);
			a->W[v] = zb ? a->W[v] : 0;
		}
	}
	int nb = in->bk ? plan_grad_buckets(s, st, in->bk, in->cap) : SIM_ENOMEM;
	if (in->buckets && a->dp_tail_s >= 0) {
		double sl = 0, tl = -1, slow = 0;
		if (nb >= 0)
			tl = dp_tail(s, in->grp, in->k, in->first, in->last, st, t, &sl, &slow, in->bk,
			             nb, in->memo);
		if (tl >= 0) /* then the norm gradients' TP sync, on the same stream */
			tl += plan_norm_sync_time(s, in->grp, st);
		a->dp_tail_s = tl < 0 ? -1 : fmax(a->dp_tail_s, tl - a->below);
		a->below += sl;
		if (a->tl)
			a->tl[st] = tl, a->slow[st] = slow;
	}
	if (a->pg >= 0 && nb < 0)
		a->pg = -1;
	else if (a->pg >= 0 && L > 0)
		a->pg = fmax(a->pg, pgather_stage(s, in->grp, in->k, in->first, st, in->lead, in->bk, nb));
	else if (a->pg >= 0)
		a->pg = fmax(a->pg, param_gather_s(s, in->grp, st));
	a->bound = fmax(a->bound, bound_of(p, in->m, &x, a->pre_f, a->pre_b));
	double fc, bc;
	first_chunk(s, in->k, &x, st, &fc, &bc);
	a->pre_f += fc;
	a->pre_b += bc;
	a->S += t;
	a->W_S += x.w_s;
	if (t > a->T) {
		a->T = t;
		a->W_T = x.w_s;
		a->worst = L;
		e->compute_s = in->m * x.comp_s;
		e->tp_s = in->m * (t - x.comp_s);
	}
	double g = plan_dp_grad_bytes(s, st);
	double local = plan_local_params(s, st);
	a->grad = g > a->grad ? g : a->grad;
	if ((p->zero == 1 || p->zero == 2) && in->grp->shard.size > 1)
		a->gather = fmax(a->gather, param_gather_s(s, in->grp, st));
	if (local > a->optim)
		a->optim = local, a->ost = st;
	a->loops = fmax(a->loops, plan_step_loops(s, st, NULL));
	if (s->fw.zero_gather_rank_op_s > 0) { /* the framework's per-rank loops */
		double h, gg;
		plan_zero_gather_host(s, st, &h, &gg, NULL, NULL);
		a->chost = fmax(a->chost, h), a->cgpu = fmax(a->cgpu, gg);
	}
}

/* The pipeline's transfers: each of the 2 (pp - 1) hops of the fill and
 * drain (hop: the transfer and its TP all-gather) and every micro-batch's
 * fixed p2p cost on the slowest hop; p2p_serial: each steady step's
 * gradient send follows the activation received instead of running beside
 * it, one more transfer per step; nanotron's lm_head before the last stage
 * (plan_layout_tail): every micro-batch's logits go out of its stage and
 * their gradient back (plan_p2p_stage_bytes), beyond the hidden states'
 * hop (the estimate only: the bound keeps the hidden states' hop). */
static double pipe_transfers(const plan_scenario *s, int m, double hop, const net_group *slow,
                             double p2p)
{
	const plan_spec *p = &s->plan;
	int pp = p->pp;
	if (pp <= 1)
		return 0;
	/* in inference the forward's sends alone (pipe.c) */
	double dirs = s->inference ? 1.0 : 2.0;
	double t = dirs * (pp - 1) * hop + m * plan_p2p_overhead(s, slow, false) +
	           (s->inference ? 0 : m * plan_p2p_overhead(s, slow, true));
	if (s->fw.p2p_serial && p->vpp <= 1 && plan_p2p_sync(p) && !s->inference)
		t += m * sweep_coll_time(s, NET_P2P, slow, p2p);
	int tail[3];
	if (plan_layout_tail(p, s->model.layers, tail) && tail[0] < pp - 1)
		for (int j = tail[0]; j < pp - 1; j++) {
			double gl, lb = plan_p2p_stage_bytes(s, j, false, &gl);
			net_group h;
			plan_pp_pair(s, j, j + 1, &h);
			if (lb > p2p)
				t += dirs * m *
				     (sweep_coll_time(s, NET_P2P, &h, lb) - sweep_coll_time(s, NET_P2P, &h, p2p));
		}
	return t;
}

/* Whether the pipeline is walked (pipewalk.c) rather than closed: every
 * pipeline. The closed form, m T + (S - T) / vpp, leaves out what the
 * graph's edges make the busiest stage wait for: under a synchronous
 * schedule the rendezvous of each transfer (its input arrives only once
 * the stage has posted the receive, a send ends before its next op
 * starts), under an asynchronous one each chunk's own virtual stage, under
 * zero bubble the B and W ops apart; in inference, the forwards' alone
 * (the quickstart's model at tp 4, pp 2: 4.0 % under the simulated step
 * closed, each micro-batch's transfer exposed beside the stage's forward).
 * The closed form stays the walk's fallback. What the walk gained on each
 * schedule: README, "Searching plans" (the pre-screen's audit against the
 * simulation). */
static bool walk_wanted(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	return p->pp > 1;
}

/* One transfer out of `stage` as pipe.c pp_send times it (its bytes on its
 * hop, the framework's overhead) and the receiver's TP all-gather of a
 * scattered one (append_p2p_gather). */
static double stage_send(const plan_scenario *s, const net_group *tp, int stage, int to,
                         bool backward)
{
	net_group hop;
	plan_pp_pair(s, stage, to, &hop);
	double gather, bytes = plan_p2p_stage_bytes(s, stage, backward, &gather);
	return sweep_coll_time(s, NET_P2P, &hop, bytes) + plan_p2p_overhead(s, &hop, backward) +
	       (gather > 0 ? sweep_coll_time(s, NET_ALLGATHER, tp, gather) : 0);
}

/* The walk's span: each stage's forward and backward of a micro-batch
 * (F, B: add_stage's stage_prog, its layers, the ends, the accumulation)
 * and its sends. */
static double walk_span(const plan_scenario *s, const plan_groups *g, const stage_sum *a,
                        double *ends)
{
	const plan_spec *p = &s->plan;
	int V = p->pp * (p->vpp > 1 ? p->vpp : 1);
	double *x = malloc(2 * (size_t)V * sizeof *x), span = -1;
	if (!x)
		return -1;
	double *xf = x, *xb = x + V;
	for (int v = 0; v < V; v++) { /* (a V's turn on its rank: none) */
		int st = plan_vstage_rank(p, v, NULL);
		int up = v < V - 1 ? plan_vstage_rank(p, v + 1, NULL) : st;
		int down = v > 0 ? plan_vstage_rank(p, v - 1, NULL) : st;
		xf[v] = up != st ? stage_send(s, &g->tp, st, up, false) : 0;
		xb[v] = down != st ? stage_send(s, &g->tp, st, down, true) : 0;
	}
	sweep_walk_in in = {a->F, a->B, a->W, xf, xb, a->tl ? a->slow : NULL, a->pre, a->post};
	span = sweep_pipe_walk(s, &in, ends);
	free(x);
	return span;
}

/* The optimizer's share of the step past the exposed reduction dp: the
 * step's kernels (step), the per-tensor loops around it (plan_step_loops:
 * from the backward's end, the kernels no earlier than loops - step, so
 * where the host outlasts the reduction and the step) and the per-rank
 * gather loops after those, beside the reduction, the step and the gather,
 * and the GPU's copies after both the loops and the gather
 * (plan_zero_gather_host; build_emit_optimizer's copy task waits for the
 * two): the copies' time past whichever ends later (they were taken
 * beside the host's excess instead, max(copies, excess): nanotron's Llama
 * 3 8B at dp 128, ZeRO-1, one sequence a micro-batch, the loops 368 ms
 * past the backward against 311 of reduction, step and gather, 32 ms of
 * copies after them: 2.3 % under the simulated step). */
static double step_with_loops(double step, double loops, double chost, double cgpu, double dp)
{
	double o = step;
	if (loops > 0)
		o += fmax(0, loops - step - dp);
	if (chost > 0 || cgpu > 0)
		o += fmax(0, loops + chost - (dp + o)) + cgpu;
	return o;
}

/* ZeRO-3 / FSDP gathering and reducing every micro-batch beside a pipeline
 * (sweep_estimate_one): its layers' exposed time added to each chunk's passes and
 * each chain's first gather and last reduction on the DP stream, walked with
 * the passes (walk_span over a copy of the stages' sums `a`); what that adds
 * to the step's span `span`, the parts into *zp; -1 where the walk is not
 * taken (sweep_z3_split's zp->walk) or out of memory. */
static double z3_walked(const plan_scenario *s, const plan_groups *grp, const stage_sum *a,
                        double fwd_l, double bwd_l, int m, double span, sweep_z3_parts *zp)
{
	const plan_spec *p = &s->plan;
	int pp = p->pp, vpp_i = p->vpp > 0 ? p->vpp : 1, V = pp * vpp_i;
	sweep_z3_split(s, grp, fwd_l, bwd_l, a->worst, m, zp);
	double *zb = zp->walk ? malloc(4 * (size_t)V * sizeof *zb) : NULL;
	if (!zb)
		return -1;
	stage_sum az = *a;
	az.F = zb, az.B = zb + V, az.pre = zb + 2 * V, az.post = zb + 3 * V;
	for (int st = 0; st < pp; st++)
		for (int c = 0; c < vpp_i; c++) {
			int v = plan_vstage(p, st, c), nl = plan_chunk_layers(s, st, c, NULL);
			az.F[v] = a->F[v] + nl * zp->layer_f;
			az.B[v] = a->B[v] + nl * zp->layer_b;
			az.pre[v] = nl > 0 ? zp->chunk_f : 0;
			az.post[v] = nl > 0 ? zp->chunk_b - zp->chunk_f : 0;
		}
	double sz = walk_span(s, grp, &az, NULL);
	free(zb);
	return sz > 0 ? fmax(0, sz - span) : -1;
}

/* What sweep_estimate_one's stage loop (est_stages) leaves for the step's
 * terms: the stages' sums (a; its arrays in fb), the pipeline hop and its
 * slowest group, the per-rank bytes of a send. */
typedef struct {
	stage_sum a;
	double *fb;
	double hop, p2p;
	net_group slow;
	int V;
} est_sums;

/* Every stage's terms into r->a (and e), each stage on its own GPU type's
 * view (o, on_o: sweep_estimate_plan); r->fb is the caller's to free. */
static void est_stages(const plan_scenario *s, const plan_scenario *o, const bool *on_o,
                       const work_shard *sh, const plan_groups *grp, const kinds *k,
                       const prog *first, const prog *last, est_sums *r, sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), pp = p->pp;
	/* ZeRO-0/1/2: the latest stage's reduction past stage 0's last
	 * backward, each stage's dp_tail less the backward of the last
	 * micro-batch through the stages below it, which runs after its own
	 * (its slack; with interleaving their first chunks) */
	bool buckets = p->zero < 3 && !s->inference;
	stage_sum *a = &r->a;
	int V = r->V = pp * (p->vpp > 1 ? p->vpp : 1);
	double *fb = r->fb = walk_wanted(s) ? malloc((3 * (size_t)V + 3 * (size_t)pp) * sizeof *fb)
	                                    : NULL;
	if (fb)
		a->F = fb, a->B = fb + V, a->W = fb + 2 * V;
	/* one chunk a stage: its buckets go out beside its last backward (the
	 * walk's last op; interleaved, beside several chunks' last ones: the
	 * closed form's tails, below) */
	if (fb && buckets && p->vpp <= 1) /* (the stages' ends: fb + 3 V + 2 pp) */
		a->tl = fb + 3 * V, a->slow = fb + 3 * V + pp;
	a->dp_tail_s = buckets ? 0 : -1;
	call_memo memo = {{0}, {0}, 0, 0}; /* the stages' buckets and calls are alike */
	double gather;
	r->p2p = plan_p2p_bytes(s, &gather); /* per rank; TP all-gather after */
	r->hop = 0; /* one pipeline hop: the transfer and its TP all-gather */
	r->slow = grp->pp; /* the slowest hop (pp_hops) */
	if (pp > 1)
		r->hop = pp_hops(s, r->p2p, &r->slow) +
		         (gather > 0 ? sweep_coll_time(s, NET_ALLGATHER, &grp->tp, gather) : 0.0);
	/* overlap_param_gather (ZeRO-1/2 training, as plan_build): the worst
	 * stage's pgather_stage (a late stage delays the stages after it as
	 * much), pg; a stage without layers gathers after its optimizer step, as
	 * the graph does, all of it exposed. -1: not on, or out of memory (the
	 * whole gather is counted) */
	bool pgon = p->overlap_param_gather && !s->inference && (p->zero == 1 || p->zero == 2) &&
	            grp->dp.size > 1;
	int vpp_i = p->vpp > 0 ? p->vpp : 1, cap = plan_grad_bucket_cap(s);
	a->pg = pgon ? 0 : -1;
	double *lead = pgon ? malloc((size_t)(2 * pp * vpp_i + 1) * sizeof *lead) : NULL;
	plan_grad_bucket *bk = buckets || pgon ? malloc((size_t)cap * sizeof *bk) : NULL;
	if (lead)
		pgather_lead(s, k, first, last, r->hop, lead);
	else
		a->pg = -1;
	est_in in = {k, first, last, grp, bk, cap, m, buckets, lead, &memo};
	/* the other GPU type's stages on its view (sweep_estimate_plan) */
	kinds ko;
	prog fo = {0}, lo = {0};
	call_memo memo_o = {{0}, {0}, 0, 0};
	est_in in_o = in;
	if (o) {
		make_kinds(o, sh, grp, &ko);
		ends_cost(o, sh, grp, &fo, &lo);
		in_o.k = &ko, in_o.first = &fo, in_o.last = &lo, in_o.memo = &memo_o;
	}
	for (int st = 0; st < pp; st++) {
		bool other = o && on_o[st];
		add_stage(other ? o : s, other ? &in_o : &in, st, a, e);
	}
	free(lead), free(bk);
}

/* The pipeline's span: m T and the bubble in closed form, or the walk's
 * span (which holds the bubble and the transfers) with each stage's
 * buckets past its last backward; ZeRO-3 gathering every micro-batch
 * walked with it (*wz: what it adds, -1 where not walked; its parts in
 * zp). Returns the pipeline's compute part; e's bubble_s and pp_s set. */
static double est_pipe(const plan_scenario *s, const plan_groups *grp, est_sums *r, double fwd_l,
                       double bwd_l, double *wz, sweep_z3_parts *zp, sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), pp = p->pp;
	stage_sum *a = &r->a;
	double vpp = p->vpp > 0 ? p->vpp : 1, fill = a->S - a->T;
	if (plan_sched_zb(p->schedule))
		fill = fmax(0, fill - 2 * (a->W_S - a->W_T));
	e->bubble_s = fill / vpp;
	/* a looped schedule (interleaved, looped BFS) with fewer micro-batches
	 * than stages (torch pipelining's rounds allow it): a rank ends its m
	 * forwards of chunk c after m t_f, while chunk c + 1's first input left
	 * it p t_f before its return; it waits (p - m) t_f at each of the v - 1
	 * chunk turns, and (p - m) t_b in the backward: (v - 1)(p - m) T / v */
	if (vpp > 1 && m < pp && !plan_sched_v(p->schedule))
		e->bubble_s += (vpp - 1) * (pp - m) * a->T / vpp;
	double pipe = m * a->T + e->bubble_s;
	e->pp_s = pipe_transfers(s, m, r->hop, &r->slow, r->p2p);
	double *ends = r->fb ? r->fb + 3 * r->V + 2 * pp : NULL;
	double span = r->fb ? walk_span(s, grp, a, ends) : -1;
	/* ZeRO-3 / FSDP gathering and reducing every micro-batch beside a
	 * pipeline: its layers' exposed time in each pass, and each chain's
	 * first gather and its backward's last reduction on the DP stream,
	 * walked with the passes (pipewalk.c), what they add to the span wz;
	 * added to the span whole they counted twice what the simulation hides
	 * beside the passes and in a lighter stage's waits (the ideal profile
	 * at pp 2, one sequence a micro-batch: 3.7 % over the simulated step) */
	*wz = span > 0 && p->zero >= 3 && !s->inference && grp->dp.size > 1
	              ? z3_walked(s, grp, a, fwd_l, bwd_l, m, span, zp)
	              : -1;
	if (span > 0) { /* the walk's span holds the bubble and the transfers */
		pipe = fmax(m * a->T, span - e->pp_s);
		e->pp_s = span - pipe;
		e->bubble_s = pipe - m * a->T;
		/* each stage's buckets past its last backward, which the walk ran
		 * slowed beside them (a.slow): the step's end is the latest of
		 * them (the upper stages' slowdown delays the lower stages' last
		 * backwards: nanotron at pp 2, 1.9 % under the replay without) */
		if (a->tl && a->dp_tail_s >= 0) {
			double tail = 0;
			for (int st = 0; st < pp; st++)
				tail = fmax(tail, ends[st] + fmax(0, a->tl[st] - a->slow[st]) - span);
			a->dp_tail_s = tail;
		}
	}
	return pipe;
}

/* The step's data-parallel and optimizer terms into e (wz, zp: est_pipe's
 * ZeRO-3 walk). */
static void est_dp_optimizer(const plan_scenario *s, const plan_groups *grp, const stage_sum *a,
                             double fwd_l, double bwd_l, double wz, const sweep_z3_parts *zp,
                             sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p);
	/* inference: no gradients, no optimizer (plan_build stops after the
	 * forwards); ZeRO-Inference's weights streamed from the host instead
	 * (offload_params: sweep_z3_stream_exposed); ZeRO-3 walked with the
	 * pipeline: what the walk added, and the stages' ends and step terms */
	e->dp_s = wz >= 0         ? wz + m * zp->mb + zp->step
	          : !s->inference ? dp_exposed(s, grp, a->grad, a->gather, a->dp_tail_s, a->pg,
	                                       fwd_l, bwd_l, a->worst)
	          : p->offload_params != PLAN_OFFLOAD_NONE
	                  ? sweep_z3_stream_exposed(s, grp, fwd_l, a->worst, m)
	                  : 0;
	/* tied embeddings under a pipeline: the first and last stages'
	 * all-reduce of the word embedding's gradient after both backwards
	 * (grads.c build_emit_embedding_sync), behind the first stage's
	 * reduction on its DP stream, the step's last: exposed whole (the
	 * quickstart at pp 2: 19.7 ms, the estimate 2.0 -> 0.4 % under); under
	 * ZeRO-3 the graph syncs it alike, after the last backward's
	 * reductions on the DP stream, exposed: with the reductions all after
	 * the last backward (plan_zero3_pp_gathered: torchtitan) counted here
	 * (tp 1, pp 2: 1.9 % under without). Where ZeRO-3 gathers and reduces
	 * every micro-batch (the ideal profile) the simulation exposes it too
	 * (Looped BFS, pp 2, 3 chunks: 19.7 ms after stage 0's last reductions),
	 * counted since those per-micro-batch terms are walked with the
	 * pipeline (wz; until 2026-11-30 they were added to the span whole and
	 * the sync left out as a compensation: that plan -1.3 -> +1.1 %) */
	if (!s->inference && (p->zero < 3 || plan_zero3_pp_gathered(s) || wz >= 0))
		e->dp_s += plan_embedding_sync_time(s, grp, plan_grad_bytes(s));
	e->optimizer_s = s->inference ? 0
	                               : step_with_loops(optimizer_time(s, a->ost, a->optim), a->loops,
	                                                 a->chost, a->cgpu, e->dp_s);
}

void sweep_estimate_one(const plan_scenario *s, const plan_scenario *o, const bool *on_o,
                        sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	work_shard sh = plan_shard(s);
	plan_groups grp;
	plan_make_groups(s, &grp);
	kinds k;
	make_kinds(s, &sh, &grp, &k);
	prog first = {0}, last = {0};
	ends_cost(s, &sh, &grp, &first, &last);
	memset(e, 0, sizeof *e);
	est_sums r;
	memset(&r, 0, sizeof r);
	est_stages(s, o, on_o, &sh, &grp, &k, &first, &last, &r, e);
	plan_mem_fit fit;
	plan_memory_fit(s, &fit);
	e->mem_peak_bytes = fit.peak;
	e->mem_verdict = fit.verdict;
	e->mem_oom = fit.where;
	e->mem_share = sweep_mem_share(s, &fit);
	/* (fwd_l, bwd_l: the dense full-attention kind's layer, zero for a
	 * model without one, as before windows; under ZeRO-3 of an MoE model
	 * its MoE layer's, whose unit dp_exposed sizes) */
	int kd = k.has[1] && p->zero >= 3 ? 1 : 0;
	double bwd_l = k.kind[kd].bwd_s, fwd_l = prog_time(s, &k.kind[kd]) - bwd_l;
	sweep_z3_parts zp = {0};
	double wz;
	double pipe = est_pipe(s, &grp, &r, fwd_l, bwd_l, &wz, &zp, e);
	free(r.fb);
	est_dp_optimizer(s, &grp, &r.a, fwd_l, bwd_l, wz, &zp, e);
	e->step_s = pipe + e->pp_s + e->dp_s + e->optimizer_s;
	/* a hair under: the simulation sums the same durations in integer
	 * picoseconds, rounded per task */
	e->bound_s = r.a.bound * (1 - 1e-9);
}
