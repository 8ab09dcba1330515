/* build.c - generating one training step's task graph from a plan.
 *
 * Per pipeline stage (one representative rank each) the compute stream runs the
 * schedule's order of micro-batch forwards and backwards (plan_schedule_order).
 * A forward is the chain: [embedding] layer_1 .. layer_L [logits+loss]; a
 * backward the reverse, each layer preceded by its recomputed forward under full
 * recomputation (of the layers recompute_layers names: plan_layer_recomputed). Inside a layer, consecutive kernels merge into one compute
 * task and every TP collective is a task on the TP stream that the next compute
 * task waits for (Megatron's TP collectives are blocking). Pipeline transfers are
 * tasks on the sender's PP streams (1/tp of the activation per rank with
 * scatter-gather, plan_p2p_bytes); the receiver's first task of that
 * micro-batch waits for them (with scatter-gather that task is the TP
 * all-gather of the slices). Synchronous p2p (plan_p2p_sync) also makes the
 * sender's next step wait for the transfer and the transfer wait for the
 * receiver's step before the consuming one (build_emit_schedule, build_link_stages).
 * After the last backward, gradients are reduced
 * over DP in buckets (in backward order; each bucket waits for the last
 * micro-batch's backward of its layers when overlap_grad_reduce is on, for the
 * whole backward otherwise), then the optimizer runs; with ZeRO-1 the buckets
 * are reduce-scattered and the updated parameters all-gathered afterwards, or
 * with overlap_param_gather per bucket at the step start under the forward
 * (build_emit_param_gather). With tp_comm_overlap a sequence-parallel collective
 * and its GEMM run side by side (plan_tp_overlap).
 *
 * The builder's files (their internals shared in build_int.h):
 *   build.c     this: plan_build, the builder's set-up, and the one place a
 *               collective, a DP task or an offload copy is timed and added
 *   chain.c     a stage's chains: layer programs -> segs (append_items), the
 *               zero-bubble split, MTP modules, delay_wgrad_compute's order
 *   emit.c      a cursor placing a chain's segs in the graph (build_emit_to),
 *               ZeRO-3 / FSDP gathers and reduce-scatters
 *   combined.c  moe_a2a_overlap: Megatron-Core's combined 1F1B, two cursors
 *               cut at the all-to-alls (build_emit_pair)
 *   pipe.c      the schedule's order per stage, the sends, the links between
 *               stages, synchronous p2p
 *   grads.c     trained parameters, gradient accumulation, the optimizer
 *               step, tied embeddings, sequence parallelism's norm sync
 *   buckets.c   the ZeRO-0..2 DP buckets (by layer or by tensor, one call
 *               or one per tensor), overlap_param_gather
 *   cost.c      the closed forms the sweep's pre-screen shares (kernel times,
 *               tp_comm_overlap pairs, p2p, DeepEP) and plan_microbatch_cost
 */
#include "build_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one place a collective is timed: net's alpha-beta closed forms, or with
 * [cluster] network = flow the flow model on the link graph (netflow.c), on
 * the group's size and stride (plan_make_groups). */
int build_comm_cost(const builder *b, net_coll coll, const net_group *grp, double bytes,
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
 * `time_s` (build_comm_cost's) that the fabric's variability scales: all of
 * it across nodes (net/spread.c: the measured ratios are of whole calls),
 * none inside a node or without a spread. */
double build_comm_net_s(const builder *b, const net_group *grp, double time_s)
{
	return b->s->cluster.nspread >= 1 && grp->nodes > 1 && time_s > 0 ? time_s : 0;
}

/* Add task t, net_s seconds of whose duration vary with the fabric (its
 * group spanning `nodes` nodes): plan_graph_add, then plan_graph_set_net
 * when net_s > 0. UINT32_MAX on OOM. */
uint32_t build_add_net(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps,
		       double net_s, int nodes)
{
	uint32_t id = plan_graph_add(g, t, deps, ndeps);
	double d = sim_time_to_s(t->dur);
	if (id != UINT32_MAX && net_s > 0 && d > 0 &&
	    plan_graph_set_net(g, id, net_s / d, nodes) != SIM_OK)
		return UINT32_MAX;
	return id;
}

double plan_comm_scale(const plan_scenario *s, const net_group *g, net_algo a)
{
	double n = net_tune_channels(&s->cluster, g, a);
	return n > 0 ? n / 16 : 1;
}

double plan_coll_scale(const plan_scenario *s, net_coll c, const net_group *g, double bytes)
{
	net_cost cost;
	if (g->size <= 1 || net_collective(&s->cluster, c, g, bytes, &cost) != SIM_OK)
		return 1;
	return plan_comm_scale(s, g, cost.algo);
}

/* Per-NIC bytes when every GPU of a node sends `per_rank` bytes off the node. */
float build_nic_share(const net_cluster *c, double per_rank)
{
	return (float)(per_rank * c->node.gpus / (c->node.nics > 0 ? c->node.nics : 1));
}

/* A host <-> GPU copy of `bytes` on the rank's offload stream: PCIe at the
 * node's achievable rate; from NVMe also limited by the node's NVMe bandwidth
 * shared by its GPUs. */
double plan_host_copy_s(const plan_scenario *s, double bytes, bool nvme)
{
	const net_node *nd = &s->cluster.node;
	double t = nd->pcie_Bps * nd->pcie_eff > 0 ? bytes / (nd->pcie_Bps * nd->pcie_eff) : 0;
	if (nvme && nd->nvme_Bps > 0)
		t = fmax(t, bytes * nd->gpus / nd->nvme_Bps);
	return t;
}

uint32_t build_add_copy(builder *b, int stage, double bytes, bool nvme, const uint32_t *deps,
			uint32_t ndeps, int16_t layer)
{
	const net_node *nd = &b->s->cluster.node;
	double t = plan_host_copy_s(b->s, bytes, nvme);
	plan_task x = {sim_time_from_s(t), stage, PLAN_STREAM_OFFLOAD, PLAN_TASK_OFFLOAD, layer, -1,
		       0, 0, 0};
	if (plan_graph_offload(b->g, stage, PLAN_OFF_HOST, bytes, t, nd->pcie_Bps) != SIM_OK ||
	    (nvme && plan_graph_offload(b->g, stage, PLAN_OFF_NVME, bytes * nd->gpus, t,
					nd->nvme_Bps) != SIM_OK))
		return UINT32_MAX;
	return plan_graph_add(b->g, &x, deps, ndeps);
}

/* A data-parallel-stream collective, its time plus adj seconds (at least 0). */
static uint32_t add_dp_adj(builder *b, const net_group *grp, int stage, net_coll coll,
			   double bytes, double adj, const uint32_t *deps, uint32_t ndeps,
			   int16_t layer)
{
	net_cost cost;
	if (build_comm_cost(b, coll, grp, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	cost.time_s = fmax(0, cost.time_s + adj);
	plan_task t = {sim_time_from_s(cost.time_s), stage, PLAN_STREAM_DP, PLAN_TASK_DP, layer, -1,
		       (float)cost.intra_bytes, build_nic_share(&b->s->cluster, cost.inter_bytes),
		       (float)cost.fabric_bytes};
	uint32_t id = build_add_net(b->g, &t, deps, ndeps,
				    build_comm_net_s(b, grp, cost.time_s), grp->nodes);
	double k = plan_comm_scale(b->s, grp, cost.algo);
	if (id != UINT32_MAX && k != 1 && plan_graph_set_scale(b->g, id, k) != SIM_OK)
		return UINT32_MAX;
	return id;
}

uint32_t build_add_dp_on(builder *b, const net_group *grp, int stage, net_coll coll,
			 double bytes, const uint32_t *deps, uint32_t ndeps, int16_t layer)
{
	return add_dp_adj(b, grp, stage, coll, bytes, 0, deps, ndeps, layer);
}

/* The calls run one after the other (a NCCL group runs them in order on the
 * communicator's stream) and wait for the slowest node once
 * (plan_call_group_wait): the first call that moves bytes keeps its wait,
 * every later one gives its own back. */
uint32_t build_add_call_group(builder *b, const net_group *grp, int stage, net_coll coll,
			      const double *bytes, int n, double scale, uint32_t dep,
			      int16_t layer)
{
	const net_cluster *c = &b->s->cluster;
	uint32_t id = dep;
	bool waited = false;
	for (int i = 0; i < n && id != UINT32_MAX; i++) {
		double x = bytes[i] * scale;
		double adj = -plan_call_wait_back(c, grp, x, &waited);
		id = add_dp_adj(b, grp, stage, coll, x, adj, &id, 1, layer);
	}
	return id;
}

/* DP task ids a stage keeps for its optimizer step: ZeRO-3's two per layer
 * and two more, or two per gradient bucket (plan_grad_bucket_cap). */
static size_t dp_slots(const plan_scenario *s, int lps)
{
	size_t z = (size_t)(2 * lps + 2), k = 2 * (size_t)plan_grad_bucket_cap(s);
	return z > k ? z : k;
}

static int build_all(builder *b, pipe_ids *ids, uint32_t *layer_end, uint32_t *dp_ids, int lps)
{
	int pp = b->s->plan.pp;
	int *ndp = calloc((size_t)pp, sizeof *ndp);
	size_t cap = dp_slots(b->s, lps);
	double *shard = calloc((size_t)pp * cap, sizeof *shard);
	int rc = ndp && shard ? SIM_OK : SIM_ENOMEM;
	const plan_spec *p = &b->s->plan;
	bool pgather = p->overlap_param_gather && !b->s->inference && (p->zero == 1 || p->zero == 2);
	uint32_t *pg = pgather ? malloc((size_t)lps * sizeof *pg) : NULL;
	if (pgather && !pg)
		rc = SIM_ENOMEM;
	for (int st = 0; st < pp && rc == SIM_OK; st++) {
		build_stage_chains(b, st);
		if (pgather && plan_stage_layers(b->s, st) > 0) {
			rc = build_emit_param_gather(b, st, pg);
			b->pgather = pg;
		}
		/* ZeRO-3's per-layer reductions land where the buckets' would */
		b->zdone = dp_ids + (size_t)st * cap, b->zshard = shard + (size_t)st * cap;
		b->nzdone = 0, b->zcap = 2 * lps + 2;
		build_fsdp_ends(b, st, &b->fsdp);
		if (rc == SIM_OK)
			rc = build_chains_oom(b)
				     ? SIM_ENOMEM
				     : build_emit_schedule(b, st, ids, layer_end + st * lps);
		ndp[st] = b->nzdone;
		b->pgather = NULL;
	}
	b->zdone = NULL, b->zshard = NULL;
	free(pg);
	if (rc == SIM_OK)
		rc = build_link_stages(b, ids);
	if (b->s->inference) { /* no gradients, no optimizer */
		free(ndp);
		free(shard);
		return rc;
	}
	for (int st = 0; st < pp && rc == SIM_OK && p->zero < 3; st++) {
		ndp[st] = build_emit_grad_buckets(b, st, ids->last_bwd[st], layer_end + st * lps,
						  ids->sync_at + (size_t)st * (size_t)b->vpp,
						  dp_ids + st * cap, shard + st * cap);
		if (ndp[st] < 0)
			rc = SIM_ENOMEM;
	}
	if (rc == SIM_OK)
		rc = build_emit_norm_sync(b, ids);
	if (rc == SIM_OK)
		rc = build_emit_embedding_sync(b, ids);
	for (int st = 0; st < pp && rc == SIM_OK; st++)
		rc = build_emit_optimizer(b, st, ids, dp_ids + st * cap, shard + st * cap,
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

/* The graph's figures beside its tasks: the GPU's interference and DeepEP's
 * share, per stage the static memory and one operation's activations, the
 * step's tokens and model FLOPs. */
static void graph_totals(const plan_scenario *s, plan_graph *g)
{
	const plan_spec *p = &s->plan;
	g->interference = s->gpu.interference;
	g->ep_deep = plan_ep_deepep(s);
	g->ep_share = plan_ep_share(s);
	g->mem_static = malloc((size_t)p->pp * sizeof(double));
	g->mem_act_op = malloc((size_t)p->pp * sizeof(double));
	for (int st = 0; st < p->pp && g->mem_static && g->mem_act_op; st++) {
		double mem[PLAN_MEM_COUNT];
		plan_memory(s, st, mem);
		g->mem_static[st] = mem[PLAN_MEM_WEIGHTS] + mem[PLAN_MEM_GRADIENTS] +
				    mem[PLAN_MEM_OPTIMIZER] + mem[PLAN_MEM_BUFFERS];
		work_shard sh = plan_shard(s);
		int n = plan_stage_layers(s, st);
		int gl = n > 0 ? plan_global_layer(s, st, n - 1) : 0;
		double per_layer = n > 0 ? work_activation_bytes_at(&s->model, &sh, gl, p->recompute)
					 : 0.0;
		g->mem_act_op[st] = per_layer * n / p->vpp;
		if (n > 0 && plan_recompute_partial(p)) {
			/* the layers full recomputation leaves out keep everything */
			double all = work_activation_bytes_at(&s->model, &sh, gl,
							      WORK_RECOMPUTE_NONE);
			int kept = 0;
			for (int c = 0; c < p->vpp; c++) {
				int nl = plan_chunk_layers(s, st, c, NULL);
				for (int l = 0; l < nl; l++)
					kept += !plan_layer_recomputed(p, nl, l);
			}
			g->mem_act_op[st] = (per_layer * (n - kept) + all * kept) / p->vpp;
		}
	}
	g->tokens = (double)p->global_batch * s->model.seq_len;
	work_model fm = plan_flops_model(s);
	g->model_flops = work_model_flops(&fm, g->tokens);
	if (s->inference) /* the forward third of 2P + 4P per token */
		g->model_flops /= 3.0;
	if (s->train.frozen_layers > 0 && !s->inference) {
		/* the frozen prefix runs its forward only: of its layers'
		 * share F_N (6 x matmul params + attention, per token) the
		 * backward's two thirds are not needed, so MFU counts the
		 * FLOPs this training needs */
		work_model a = fm, z = fm;
		a.layers = s->train.frozen_layers, z.layers = 0;
		double fn = work_model_flops(&a, g->tokens) - work_model_flops(&z, g->tokens);
		g->model_flops -= fn * 2.0 / 3.0;
	}
	g->model_flops += plan_lora_flops_change(s, g->tokens); /* 0 without LoRA */
}

int build_init(builder *b, const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	plan_groups grp;
	*b = (builder){0};
	b->s = s;
	b->m = plan_microbatches(p);
	b->sh = plan_shard(s);
	plan_make_groups(s, &grp);
	b->tp = grp.tp, b->cp = grp.cp, b->dp = grp.dp, b->ep = grp.ep, b->edp = grp.edp;
	b->shard = grp.shard, b->replica = grp.replica, b->embed = grp.embed, b->hpz = grp.hpz;
	b->qlocal = grp.qlocal, b->qglobal = grp.qglobal;
	b->vpp = p->vpp;
	b->vstages = p->pp * p->vpp;
	b->zb = plan_sched_zb(p->schedule);
	b->ovl = p->moe_a2a_overlap && !s->inference;
	b->delay = b->ovl && p->delay_wgrad;
	/* the compute tasks' rates beside DeepEP's kernels: only where
	 * compute runs beside them (combined 1F1B) */
	b->held = b->ovl && plan_ep_deepep(s) ? p->deepep_sms : 0;
	b->share = plan_ep_share(s);
	return build_chains_open(b);
}

/* The memory-bound work around a unit's collectives over `shards` ranks,
 * for `gather` elements gathered and `grad` reduced: the casts to and from
 * the wire and FSDP1's passes before the reduce-scatter (pre_s, pass_s),
 * the shard's cast before the gather (cast_s), its cast back and
 * accumulation after the reduction (post_s). */
static void unit_passes(const plan_scenario *s, double shards, double gather, double grad,
			fsdp_unit *u)
{
	double n = shards > 0 ? shards : 1;
	u->pre_s = plan_zero3_cast_s(s, grad, false);
	u->pass_s = plan_fsdp_reduce_s(s, grad);
	u->cast_s = plan_fsdp_gather_cast_s(s, gather / n);
	for (int later = 0; later < 2; later++)
		u->post_s[later] = plan_fsdp_post_reduce_s(s, grad / n, later) +
				   plan_zero3_cast_s(s, grad / n, true);
}

/* ZeRO-3's unit of global layer g (plan_zero3_layer): its gathered and
 * reduced bytes, the memory-bound passes and casts around them (FSDP1's
 * passes, the casts to and from the wire, fsdp_casts), over the shard
 * group and, for the routed experts under ep > 1, over the expert-DP
 * group. */
static void fsdp_unit_init(const plan_scenario *s, const builder *b, int g, double wbytes,
			   double gbytes, fsdp_unit *u)
{
	double unit, sep;
	u->pieces = plan_zero3_layer(s, g, &unit, &sep, u->gather_frac, u->grad_frac);
	if (b->edp.size <= 1) /* each rank holds its experts whole: nothing to move */
		sep = 0;
	u->param_bytes = unit * wbytes, u->grad_bytes = unit * gbytes;
	u->sep_param_bytes = sep * wbytes, u->sep_grad_bytes = sep * gbytes;
	unit_passes(s, b->shard.size, unit, unit, u);
	u->flat_s = plan_fsdp_flat_grad_s(s, unit + sep);
	fsdp_unit x; /* the experts' passes over the expert-DP group */
	unit_passes(s, b->edp.size, sep, sep, &x);
	u->sep_pre_s = x.pre_s + x.pass_s;
	u->sep_cast_s = x.cast_s;
	for (int later = 0; later < 2; later++)
		u->sep_post_s[later] = x.post_s[later];
	u->tensors = b->s->fw.zero3_reduce == PLAN_ZERO3_REDUCE_BUCKET
			     ? build_zero3_layer_tensors(s, g)
			     : 0;
	u->gather_host_s = plan_zero3_gather_host_s(s, g);
	plan_qgz_layer_tensors(s, g, &u->mats, &u->vecs);
}

/* An end's unit (plan_zero3_ends): `gather` parameters all-gathered in
 * one call, `grad` of them reduced, with the same casts and FSDP1 passes
 * as a layer's unit (the root is a FlatParameter too); the host's
 * per-rank loops of DeepSpeed 2021 (gather_host_s) are left to the layers:
 * an end is one or two tensors against a layer's nine or more. */
static void fsdp_end_init(const plan_scenario *s, const builder *b, double gather, double grad,
			  double wbytes, double gbytes, fsdp_unit *u)
{
	memset(u, 0, sizeof *u);
	u->pieces = 1;
	u->gather_frac[0] = u->grad_frac[0] = 1;
	u->param_bytes = gather * wbytes, u->grad_bytes = grad * gbytes;
	unit_passes(s, b->shard.size, gather, grad, u);
	u->flat_s = plan_fsdp_flat_grad_s(s, grad);
}

/* The ends' units of `stage` into f (f->nends 0 where ZeRO-3 is off or
 * streams inference weights), and the layers its reuse window holds. */
void build_fsdp_ends(const builder *b, int stage, fsdp_state *f)
{
	const plan_scenario *s = b->s;
	double ga[2], gr[2];
	f->nends = f->on && !s->inference ? plan_zero3_ends(s, stage, ga, gr) : 0;
	f->held = f->on ? plan_zero3_reuse_layers(s, stage) : 0;
	double wbytes = plan_zero3_gather_width(s);
	for (int i = 0; i < f->nends; i++)
		fsdp_end_init(s, b, ga[i], gr[i], wbytes, plan_grad_bytes(s), &f->end[i]);
}

const fsdp_unit *build_fsdp_unit(const builder *b, const fsdp_state *f, int stage, int layer)
{
	int g = plan_global_layer(b->s, stage, layer);
	return &f->unit[g >= 0 && work_layer_is_moe(&b->s->model, g)];
}

int plan_build(const plan_scenario *s, plan_graph **out)
{
	return plan_build_why(s, out, NULL, 0);
}

/* ZeRO-3 / FSDP's state for the build (or ZeRO-Inference's weight streaming):
 * the units of a dense and an MoE layer, DeepSpeed's reduce buckets, the
 * host's work at the gathers; gather holds lps slots (fsdp_state). */
static void fsdp_setup(const plan_scenario *s, builder *b, int lmax, int lps)
{
	const plan_spec *p = &s->plan;
	int cp = p->cp > 1 ? p->cp : 1;
	double wbytes = plan_zero3_gather_width(s);
	double gbytes = plan_grad_bytes(s); /* 4 with fp32_grads or fp32/tf32 */
	bool stream = s->inference && p->offload_params != PLAN_OFFLOAD_NONE;
	b->fsdp = (fsdp_state){
		.on = stream || (!s->inference && p->zero >= 3 && p->dp * cp > 1),
		.dir = 1,
		.rs_last = UINT32_MAX,
		.layers = lmax,
		.gather = malloc((size_t)(lps + 2) * 2 * sizeof(uint32_t)),
		.wire = plan_zero3_wire_bytes(s) / gbytes,
		.kept = plan_zero3_pp_gathered(s),
		.pend = malloc((size_t)(lps + 2) * sizeof(int16_t))};
	if (b->fsdp.gather) { /* the ends' two slots; then the copy-outs' */
		b->fsdp.end_gather = b->fsdp.gather + lps;
		b->fsdp.copied = b->fsdp.gather + lps + 2;
		b->fsdp.end_copied = b->fsdp.copied + lps;
		for (int i = 0; i < lps + 2; i++)
			b->fsdp.copied[i] = UINT32_MAX;
	}
	/* a dense layer's unit and an MoE layer's (the model's first of each) */
	int rep[2] = {-1, -1};
	for (int l = 0; l < s->model.layers; l++) {
		int k = work_layer_is_moe(&s->model, l);
		rep[k] = rep[k] < 0 ? l : rep[k];
	}
	for (int k = 0; k < 2; k++)
		fsdp_unit_init(s, b, rep[k] < 0 ? 0 : rep[k], wbytes, gbytes, &b->fsdp.unit[k]);
	if (b->fsdp.on && !s->inference && s->fw.zero3_reduce == PLAN_ZERO3_REDUCE_BUCKET) {
		/* DeepSpeed's IPG buckets (emit.c ipg_add): a layer's
		 * gradient as one tensor per gathered module (its grad share),
		 * plus its norms and biases, which work counts beside its four
		 * linears (QKV, output, fc1, fc2) */
		b->fsdp.bucket = true;
		b->fsdp.bucket_bytes = plan_bucket_bytes(s);
		b->fsdp.gbytes = gbytes;
		b->fsdp.tensor_host_s = plan_zero3_reduce_rank_s(s) * b->shard.size;
	}
	/* the host's work at each layer's gathers, and DeepSpeed 2021's device
	 * syncs around them (emit.c zero3_entry) */
	if (b->fsdp.on && !s->inference) {
		b->fsdp.host_gathers =
		        b->fsdp.unit[0].gather_host_s > 0 || b->fsdp.unit[1].gather_host_s > 0;
		b->fsdp.sync = s->fw.zero3_sync;
	}
}

bool plan_up_units(const plan_scenario *s, int st, int *first, int *last)
{
	const plan_spec *p = &s->plan;
	const net_cluster *c = &s->cluster;
	int stride[PLAN_DIMS], cp = p->cp > 1 ? p->cp : 1;
	long long R = (long long)p->tp * cp * p->dp;
	plan_strides(p, stride);
	/* a node spanning fat-tree leaves of its own (net_leaf_nodes 0): its
	 * own unit */
	int g = c->node.gpus, per = net_leaf_nodes(c) > 0 ? net_leaf_nodes(c) : 1;
	bool leaves = net_leaf_nodes(c) > 0 || c->fabric == NET_FABRIC_FAT_TREE ||
	              c->fabric == NET_FABRIC_EFA;
	if (!(c->oversubscription > 1) || !net_fabric_uplinks(c) || c->other_gpu[0] ||
	    stride[PLAN_DIM_PP] != R || g < 1 || !leaves)
		return false;
	long long n0 = st * R / g, n1 = ((st + 1) * R - 1) / g;
	*first = (int)(n0 / per);
	*last = (int)(n1 / per);
	return true;
}

/* plan_graph.up_unit of every stage, where plan_up_units gives them and two
 * stages share a unit (else left NULL: nothing changes). */
static int set_up_units(const plan_scenario *s, plan_graph *g)
{
	int pp = s->plan.pp, a, b, prev = -1;
	bool shared = false;
	for (int st = 0; st < pp; st++) {
		if (!plan_up_units(s, st, &a, &b))
			return SIM_OK;
		shared |= a <= prev;
		prev = b;
	}
	if (!shared)
		return SIM_OK;
	g->up_unit = malloc(2 * (size_t)pp * sizeof *g->up_unit);
	if (!g->up_unit)
		return SIM_ENOMEM;
	for (int st = 0; st < pp; st++)
		plan_up_units(s, st, &g->up_unit[2 * st], &g->up_unit[2 * st + 1]);
	return SIM_OK;
}

int plan_build_why(const plan_scenario *s, plan_graph **out, char *why, size_t len)
{
	const plan_spec *p = &s->plan;
	builder b;
	int comm_err = SIM_OK;
	bool chains = build_init(&b, s) == SIM_OK;
	b.comm_err = &comm_err;
	int cp = p->cp > 1 ? p->cp : 1;
	b.g = plan_graph_new(p->pp, p->tp * cp * p->dp);
	int lmax = plan_max_stage_layers(s), lps = lmax > 0 ? lmax : 1;
	fsdp_setup(s, &b, lmax, lps);
	size_t pm = (size_t)b.vstages * (size_t)b.m;
	pipe_ids ids = {calloc(pm, 4), calloc(pm, 4), calloc(pm, 4), calloc(pm, 4),
			calloc(pm, 4), calloc(pm, 4), calloc((size_t)p->pp, 4),
			malloc((size_t)p->pp * 4), malloc((size_t)p->pp * 4), malloc(pm * 4),
			malloc((size_t)b.vstages * 4)};
	uint32_t *layer_end = calloc((size_t)p->pp * (size_t)lps, 4);
	uint32_t *dp_ids = calloc((size_t)p->pp * dp_slots(s, lps), 4);
	int rc = plan_netflow_open(s, &b.flow) == SIM_OK ? SIM_ENOMEM : SIM_EINVAL;
	if (rc == SIM_ENOMEM && b.g && chains && b.fsdp.gather && b.fsdp.pend && ids.first_f &&
	    ids.first_b && ids.send_f && ids.send_b && ids.pred_f && ids.pred_b && ids.last_bwd &&
	    ids.emb_sync && ids.norm_sync && ids.next_f && ids.sync_at && layer_end && dp_ids) {
		for (size_t i = 0; i < pm; i++)
			ids.next_f[i] = UINT32_MAX;
		for (int i = 0; i < b.vstages; i++)
			ids.sync_at[i] = UINT32_MAX;
		for (int i = 0; i < p->pp; i++)
			ids.emb_sync[i] = ids.norm_sync[i] = UINT32_MAX;
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
	if (rc == SIM_OK)
		rc = set_up_units(s, b.g);
	plan_netflow_close(b.flow);
	if (b.g)
		graph_totals(s, b.g);
	free(ids.first_f), free(ids.first_b), free(ids.send_f), free(ids.send_b);
	free(ids.pred_f), free(ids.pred_b), free(ids.next_f), free(ids.sync_at);
	free(ids.last_bwd), free(ids.emb_sync), free(ids.norm_sync), free(layer_end), free(dp_ids);
	build_chains_close(&b);
	free(b.fsdp.gather);
	free(b.fsdp.pend);
	if (rc != SIM_OK) {
		plan_graph_free(b.g);
		return rc;
	}
	*out = b.g;
	return SIM_OK;
}
