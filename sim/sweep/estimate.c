/* estimate.c - the closed-form pre-screen of one plan: the same kernels and
 * collectives the task graph would hold, summed instead of replayed.
 *
 * Per micro-batch, stage s costs
 *   t_s = L_s x (fwd + bwd + recompute) + [embedding on stage 0]
 *         + [logits and loss on stage pp-1]
 * where each term sums its kernels at the GPU's calibrated efficiencies
 * (hw_gemm_time, hw_kernel_time, hw_mem_time: the roofline with gemm_eff and
 * hbm_eff) and its blocking TP collectives (net_collective, alpha-beta).
 * With m micro-batches, the bottleneck T = max t_s and the sum S = sum t_s,
 * a 1F1B or GPipe pipeline takes
 *   pipe = m T + (S - T) / vpp
 * (equal stages: (m + (p-1)/vpp) T, the bubble fraction (p-1)/(vpp m + p - 1)
 * of Narayanan et al. 2021). Added to it:
 *   PP: 2 (p-1) point-to-point activations (fill and drain; steady-state
 *       transfers hide behind compute);
 *   DP: the gradient all-reduce (ZeRO-1/2: reduce-scatter + parameter
 *       all-gather) of the largest stage's gradients on the dp group; with
 *       overlap_grad_reduce only what outlasts the last micro-batch's backward
 *       (at least the last bucket); ZeRO-3: per layer and micro-batch two
 *       all-gathers and a reduce-scatter, exposed where they outlast compute;
 *   optimizer: Adam touching 30 bytes per local parameter (as plan/build.c).
 */
#include "sweep_int.h"

#include <string.h>

typedef struct prog {
	double comp_s, tp_s;
} prog;

static double kernel_time(const plan_scenario *s, hw_dtype t, const work_item *it)
{
	switch (it->kernel) {
	case WORK_KERNEL_GEMM:
		return hw_gemm_time(&s->gpu, t, it->m, it->n, it->k, 1.0);
	case WORK_KERNEL_ATTN:
		return hw_kernel_time(&s->gpu, t, it->flops, it->bytes);
	default:
		return hw_mem_time(&s->gpu, it->bytes);
	}
}

static net_coll coll_of(work_comm c)
{
	return c == WORK_COMM_ALLGATHER       ? NET_ALLGATHER
	       : c == WORK_COMM_REDUCESCATTER ? NET_REDUCESCATTER
	                                      : NET_ALLREDUCE;
}

static double coll_time(const plan_scenario *s, net_coll c, const net_group *g, double bytes)
{
	net_cost cost;
	if (g->size <= 1 && c != NET_P2P)
		return 0;
	return net_collective(&s->cluster, c, g, bytes, &cost) == SIM_OK ? cost.time_s : 0;
}

/* Sum a program; only_attn keeps the attention core (selective recompute). */
static void sum_items(const plan_scenario *s, const work_shard *sh, const net_group *tp,
                      const work_item *it, int n, bool only_attn, prog *p)
{
	for (int i = 0; i < n; i++) {
		if (it[i].kind == WORK_ITEM_COMM) {
			if (!only_attn && it[i].comm != WORK_COMM_CP_RING)
				p->tp_s += coll_time(s, coll_of(it[i].comm), tp, it[i].comm_bytes);
		} else if (!only_attn || !strncmp(it[i].name, "attn", 4)) {
			p->comp_s += kernel_time(s, sh->dtype, &it[i]);
		}
	}
}

/* One micro-batch's layer: forward, backward and its recomputation. */
static void layer_cost(const plan_scenario *s, const work_shard *sh, const net_group *tp, prog *f,
                       prog *b)
{
	work_item it[WORK_MAX_ITEMS];
	int n = work_layer_forward(&s->model, sh, it);
	sum_items(s, sh, tp, it, n, false, f);
	if (s->plan.recompute == WORK_RECOMPUTE_FULL)
		sum_items(s, sh, tp, it, n, false, b);
	else if (s->plan.recompute == WORK_RECOMPUTE_SELECTIVE)
		sum_items(s, sh, tp, it, n, true, b);
	n = work_layer_backward(&s->model, sh, it);
	sum_items(s, sh, tp, it, n, false, b);
}

/* Embedding (first) and logits + loss (last stage), forward and backward. */
static void ends_cost(const plan_scenario *s, const work_shard *sh, const net_group *tp,
                      prog *first, prog *last)
{
	work_item it[WORK_MAX_ITEMS];
	sum_items(s, sh, tp, it, work_embed_forward(&s->model, sh, it), false, first);
	sum_items(s, sh, tp, it, work_embed_backward(&s->model, sh, it), false, first);
	sum_items(s, sh, tp, it, work_head_forward(&s->model, sh, it), false, last);
	sum_items(s, sh, tp, it, work_head_backward(&s->model, sh, it), false, last);
}

/* Exposed DP time; grad and weight bytes are one rank's full (unsharded)
 * local gradients and 16-bit weights. */
static double dp_exposed(const plan_scenario *s, const net_group *dp, double grad_bytes,
                         double weight_bytes, double layer_bwd_s, double compute_s, int layers)
{
	const plan_spec *p = &s->plan;
	if (dp->size <= 1)
		return 0;
	int m = plan_microbatches(p);
	if (p->zero >= 3) {
		double lw = layers > 0 ? weight_bytes / layers : weight_bytes;
		double lg = layers > 0 ? grad_bytes / layers : grad_bytes;
		double comm = (double)m * layers *
		              (2 * coll_time(s, NET_ALLGATHER, dp, lw) +
		               coll_time(s, NET_REDUCESCATTER, dp, lg));
		return comm > compute_s ? comm - compute_s : 0;
	}
	double reduce =
	        coll_time(s, p->zero >= 1 ? NET_REDUCESCATTER : NET_ALLREDUCE, dp, grad_bytes);
	double gather = p->zero >= 1 ? coll_time(s, NET_ALLGATHER, dp, weight_bytes) : 0;
	if (p->overlap_grad_reduce) {
		double frac = grad_bytes > p->bucket_bytes ? p->bucket_bytes / grad_bytes : 1;
		double hidden = reduce - layer_bwd_s * layers;
		reduce = hidden > reduce * frac ? hidden : reduce * frac;
	}
	return reduce + gather;
}

void sweep_estimate_plan(const plan_scenario *s, sweep_estimate *e)
{
	const plan_spec *p = &s->plan;
	int cp = p->cp > 1 ? p->cp : 1, m = plan_microbatches(p), pp = p->pp;
	work_shard sh = plan_shard(s);
	plan_groups grp;
	plan_make_groups(s, &grp);
	net_group tp = grp.tp, dp = grp.dp, pair = grp.pp;
	prog f = {0, 0}, b = {0, 0}, first = {0, 0}, last = {0, 0};
	layer_cost(s, &sh, &tp, &f, &b);
	ends_cost(s, &sh, &tp, &first, &last);
	memset(e, 0, sizeof *e);
	double T = 0, S = 0, grad = 0, weight = 0, optim = 0;
	int worst = 0;
	for (int st = 0; st < pp; st++) {
		int L = plan_stage_layers(s, st);
		prog x = {L * (f.comp_s + b.comp_s), L * (f.tp_s + b.tp_s)};
		if (st == 0)
			x.comp_s += first.comp_s, x.tp_s += first.tp_s;
		if (st == pp - 1)
			x.comp_s += last.comp_s, x.tp_s += last.tp_s;
		double t = x.comp_s + x.tp_s;
		S += t;
		if (t > T) {
			T = t;
			worst = L;
			e->compute_s = m * x.comp_s;
			e->tp_s = m * x.tp_s;
		}
		double mem[PLAN_MEM_COUNT], total = 0;
		plan_memory(s, st, mem);
		for (int k = 0; k < PLAN_MEM_COUNT; k++)
			total += mem[k];
		e->mem_peak_bytes = total > e->mem_peak_bytes ? total : e->mem_peak_bytes;
		double shards = (double)p->dp * cp;
		double g = mem[PLAN_MEM_GRADIENTS] * (p->zero >= 2 ? shards : 1);
		double w = mem[PLAN_MEM_WEIGHTS] * (p->zero >= 3 ? shards : 1);
		double local = mem[PLAN_MEM_OPTIMIZER] / (s->dtype == HW_FP32 ? 8.0 : 12.0);
		grad = g > grad ? g : grad;
		weight = w > weight ? w : weight;
		optim = local > optim ? local : optim;
	}
	double vpp = p->vpp > 0 ? p->vpp : 1;
	e->bubble_s = (S - T) / vpp;
	double pipe = m * T + e->bubble_s;
	if (pp > 1)
		e->pp_s = 2.0 * (pp - 1) *
		          coll_time(s, NET_P2P, &pair, work_p2p_bytes(&s->model, &sh));
	e->dp_s = dp_exposed(s, &dp, grad, weight, b.comp_s + b.tp_s, e->compute_s, worst);
	e->optimizer_s = hw_mem_time(&s->gpu, optim * 30.0);
	e->step_s = pipe + e->pp_s + e->dp_s + e->optimizer_s;
}
