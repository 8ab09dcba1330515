/* grads.c - what the step does with its gradients: the trained parameters
 * per layer, gradient accumulation's task, the DP buckets in backward order,
 * (the DP buckets: buckets.c), the optimizer step (on the GPU, or
 * ZeRO-Offload's on the CPU) and the tied embeddings' all-reduce.
 */
#include "build_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The trained parameters of global layer g per rank, what has gradients to
 * accumulate, reduce and gather back: the layer's dense part over tp and its
 * experts over ep (its norms and row-parallel biases whole on every TP rank:
 * plan_rank_layer); LoRA's adapters alone (plan_lora_layer_params, per TP
 * rank); nothing for a frozen layer (train.frozen_layers). */
void build_layer_trained(const plan_scenario *s, int g, double *dense, double *experts)
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
	*dense = plan_rank_layer(s, g);
	*experts = e / ep;
}

/* The MTP modules' routed experts per rank (whole experts over ep), which
 * the last stage holds with its output layer (work_params_output has the
 * rest of the modules). */
double build_mtp_experts(const plan_scenario *s)
{
	return work_params_mtp_experts(&s->model) / (s->plan.ep > 1 ? s->plan.ep : 1);
}

/* Do the embedding and the output layer train (not under LoRA unless
 * train_embeddings; the embedding not under frozen_layers)? */
bool build_output_trained(const plan_scenario *s)
{
	return s->train.lora_rank <= 0 || s->train.train_embeddings;
}

bool build_embedding_trained(const plan_scenario *s)
{
	return build_output_trained(s) && s->train.frozen_layers <= 0;
}

/* The root unit's trained parameters on `stage` (the embedding on the first
 * stage, the output layer and the MTP experts on the last: what ZeRO-3's
 * layer units leave out) and, in *tensors, their parameter tensors. */
double build_root_params(const plan_scenario *s, int stage, double *tensors)
{
	bool first = stage == 0, last = stage == plan_last_rank(&s->plan);
	double n = 0;
	if (first && build_embedding_trained(s))
		n += plan_rank_embedding(s);
	if (last && build_output_trained(s))
		n += plan_rank_output(s) + build_mtp_experts(s);
	*tensors = n > 0 ? work_ends_param_tensors(&s->model, first, last) : 0;
	return n;
}

/* The ends' parameters ZeRO-3 moves on `stage` (plan_zero3_root, emit.c
 * "The ends"): piece 0 the embedding (first stage), piece 1 the head (final
 * norm, output layer, MTP modules, and a pipeline's last stage's copy of a
 * tied embedding), each as gathered (all its parameters) and reduced (those
 * that train, build_root_params's). Under flat, and under units or step
 * where the weights are tied on one stage (torchtitan's one unit of the
 * three, fsdp.py:238-250 at b5bcd76c; Megatron-FSDP's shared parameter,
 * reduced by its root's post-backward), one unit: piece 0 holds both. Under modules
 * the head's gather takes a tied embedding again: DeepSpeed releases the
 * embedding after its forward and the output layer reads its weight.
 * Returns the pieces (0 without ends to move). */
int plan_zero3_ends(const plan_scenario *s, int stage, double gather[2], double grad[2])
{
	const work_model *m = &s->model;
	int mode = s->fw.zero3_root;
	bool first = stage == 0, last = stage == plan_last_rank(&s->plan);
	bool tied = !m->untied_embeddings;
	double tied_w = (double)m->vocab * m->hidden / s->plan.tp;
	gather[0] = gather[1] = grad[0] = grad[1] = 0;
	if (mode == PLAN_ZERO3_ROOT_NONE || s->plan.zero < 3 || s->inference)
		return 0;
	if (first) {
		gather[0] = plan_rank_embedding(s);
		grad[0] = build_embedding_trained(s) ? gather[0] : 0;
	}
	if (last) {
		double copy = tied && (!first || mode == PLAN_ZERO3_ROOT_MODULES) ? tied_w : 0;
		double own = plan_rank_output(s) + build_mtp_experts(s);
		gather[1] = own + copy;
		grad[1] = build_output_trained(s) ? own + (first ? 0 : copy) : 0;
	}
	bool per_end = mode == PLAN_ZERO3_ROOT_UNITS || mode == PLAN_ZERO3_ROOT_STEP;
	if (mode == PLAN_ZERO3_ROOT_FLAT || (per_end && tied && first && last)) {
		gather[0] += gather[1], grad[0] += grad[1];
		gather[1] = grad[1] = 0;
		return gather[0] > 0 ? 1 : 0;
	}
	return 2;
}

/* DeepSpeed releases a module's parameters after it unless the trace uses
 * them again within stage3_max_reuse_distance R elements, counted over the
 * modules from the next one on (partitioned_param_coordinator.py:524-554
 * at microsoft/DeepSpeed 38327e07). The trace runs a layer's forward, the
 * layers above, the head's forward and backward (its gathered elements H
 * each, plan_zero3_ends), the layers above backward, then the layer's: the
 * layer k below the last is kept when 2 k P + 2 H < R, P a layer's
 * elements: K = floor((R - 2 H) / 2 P) + 1 layers, the last among them,
 * while R > 2 H (whole layers counted: a layer partly inside the window is
 * gathered again here as a whole). Llama 2 7B: H = 131 M, P = 202 M, K =
 * 2; 70B: H = 262 M, P = 856 M, K = 1; GPT-3 175B (tied: H = 617 M > R /
 * 2): none. */
int plan_zero3_reuse_layers(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	double R = s->fw.reuse_distance;
	if (!(R > 0) || p->zero < 3 || p->pp > 1 || s->inference ||
	    p->offload_params != PLAN_OFFLOAD_NONE)
		return 0;
	plan_budget b;
	plan_stage_budget(s, stage, &b);
	double ga[2], gr[2], H = 0;
	int n = plan_zero3_ends(s, stage, ga, gr);
	H = n == 2 ? ga[1] : n == 1 ? ga[0] : 0;
	double room = (R - 2 * H) / 2;
	if (!(room > 0) || !(b.layer_max > 0))
		return 0;
	double k = floor(room / b.layer_max) + 1; /* with the last layer, k = 0 */
	return k < b.layers ? (int)k : b.layers;
}

int plan_zero3_pieces(const plan_scenario *s, double *gather, double *grad)
{
	const work_model *m = &s->model;
	int split = s->fw.zero3_modules;
	if (split == PLAN_ZERO3_EVEN) {
		int n = s->fw.zero3_gathers > 1 ? s->fw.zero3_gathers : 1;
		n = n < PLAN_ZERO3_MAX_PIECES ? n : PLAN_ZERO3_MAX_PIECES;
		for (int i = 0; i < n; i++)
			gather[i] = grad[i] = 1.0 / n;
		return n;
	}
	double w[WORK_MAX_LINEARS], P = work_params_layer(m), sum = 0;
	int n = work_layer_linears(m, split == PLAN_ZERO3_MEGATRON, w);
	int tp = s->plan.tp > 1 ? s->plan.tp : 1;
	for (int i = 0; i < n; i++) {
		grad[i] = w[i] / P;
		gather[i] = w[i] / tp > 1e5 ? grad[i] : 0; /* persistent when small */
		sum += grad[i];
	}
	grad[0] += 1 - sum; /* the norms and biases */
	return n;
}

int plan_zero3_layer(const plan_scenario *s, int g, double *unit, double *sep, double *gather,
		     double *grad)
{
	const work_model *m = &s->model;
	const plan_spec *p = &s->plan;
	int tp = p->tp > 1 ? p->tp : 1, ep = p->ep > 1 ? p->ep : 1;
	if (!work_layer_is_moe(m, g)) {
		*unit = work_params_layer(m) / tp, *sep = 0;
		return plan_zero3_pieces(s, gather, grad);
	}
	double x = work_params_layer_experts(m, g) / ep, d = plan_rank_layer(s, g);
	*sep = ep > 1 ? x : 0;
	*unit = d + (ep > 1 ? 0 : x);
	if (s->fw.zero3_modules == PLAN_ZERO3_EVEN)
		return plan_zero3_pieces(s, gather, grad); /* equal shares of the unit */
	/* the attention's linear modules at their sizes (work_layer_linears' list
	 * before the MLP's two or three), then the MoE block: router, shared
	 * experts and, with ep = 1, the routed experts, one leaf module */
	double w[WORK_MAX_LINEARS], sum = 0, small = plan_layer_small_params(m) / tp;
	bool fused = s->fw.zero3_modules == PLAN_ZERO3_MEGATRON;
	int nl = work_layer_linears(m, fused, w);
	int na = nl - (m->act == WORK_ACT_SWIGLU && !fused ? 3 : 2), n = 0;
	for (int i = 0; i < na; i++, n++) {
		grad[n] = w[i] / tp / *unit;
		gather[n] = w[i] / tp > 1e5 ? grad[n] : 0;
		sum += grad[n];
	}
	grad[n] = gather[n] = fmax(0, 1 - sum - small / *unit);
	sum += grad[n++];
	grad[0] += 1 - sum; /* the norms and biases */
	return n;
}

double build_zero3_layer_tensors(const plan_scenario *s, int g)
{
	work_shard sh = plan_shard(s);
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], u, x;
	int ng = plan_zero3_layer(s, g, &u, &x, ga, gr);
	int nt = plan_max_stage_layers(s) > 0 ? work_layer_param_tensors(&s->model, &sh, g) : 0;
	return ng + (nt > 4 ? nt - 4 : 0);
}

/* The closed form of emit.c's ipg_add / ipg_end over one micro-batch's
 * backward of `stage`: each trained layer's gradient as its pieces'
 * tensors (plan_zero3_pieces, last module first), then the root unit's; a
 * bucket is reduced when the next tensor would take it past
 * plan_bucket_bytes and it holds something, the last one after the
 * backward. *mid (may be NULL) gets the buckets reduced while layers'
 * backwards still follow: those closed by a tensor of a layer other than
 * the last trained one (emit.c adds a layer's gradients, and flushes, at
 * the end of its backward, so a bucket closed by the last layer's or the
 * root's is reduced at the backward's end, as the last one). */
static int zero3_walk(const plan_scenario *s, int stage, double *list, double *tlist, int cap,
		      double *max_bytes, double *last_bytes, double *host_s, int *mid)
{
	const plan_spec *p = &s->plan;
	*max_bytes = *last_bytes = *host_s = 0;
	if (mid)
		*mid = 0;
	if (p->zero < 3 || s->inference || s->fw.zero3_reduce != PLAN_ZERO3_REDUCE_BUCKET)
		return 0;
	plan_groups grp;
	plan_make_groups(s, &grp);
	if (p->dp * (p->cp > 1 ? p->cp : 1) <= 1)
		return 0;
	double gbytes = plan_grad_bytes(s); /* 4 with fp32_grads or fp32/tf32 */
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES];
	double B = plan_bucket_bytes(s), th = plan_zero3_reduce_rank_s(s) * grp.shard.size;
	double rt, root = build_root_params(s, stage, &rt) * gbytes;
	int nl = plan_stage_layers(s, stage), ft = build_first_trained(s, stage), n = 0;
	double open = 0, tens = 0;
	/* the trained layers last first, each its unit's pieces last first
	 * (plan_zero3_layer: an MoE layer's its own), then the root unit */
	for (int l = nl - 1; l >= ft - 1; l--) {
		double pb[PLAN_ZERO3_MAX_PIECES], t = rt;
		int np = 1;
		pb[0] = root;
		if (l >= ft) {
			int g = plan_global_layer(s, stage, l);
			double u, x;
			np = plan_zero3_layer(s, g, &u, &x, ga, gr);
			for (int k = 0; k < np; k++)
				pb[k] = u * gbytes * gr[np - 1 - k];
			t = build_zero3_layer_tensors(s, g) / np;
		}
		for (int k = 0; k < np; k++) {
			double bytes = pb[k];
			if (!(bytes > 0))
				continue;
			if (open > 0 && open + bytes > B) {
				if (list && n < cap)
					list[n] = open;
				if (tlist && n < cap)
					tlist[n] = tens;
				n++;
				if (mid && l > ft) /* the flush at layer l's end, l - 1 after it */
					*mid = n;
				*max_bytes = open > *max_bytes ? open : *max_bytes;
				*host_s += tens * th;
				open = tens = 0;
			}
			open += bytes;
			tens += t;
		}
	}
	if (open > 0) {
		if (list && n < cap)
			list[n] = open;
		if (tlist && n < cap)
			tlist[n] = tens;
		n++;
		*max_bytes = open > *max_bytes ? open : *max_bytes;
		*last_bytes = open;
		*host_s += tens * th;
	}
	return n;
}

/* DeepSpeed's ZeRO-3 host loops per shard rank. Its reductions slice every
 * gradient tensor once per rank (zero3_rank_op: reduce_scatter_coalesced's
 * Python since 2022-01; before, _reduce_scatter_gradient's narrow per rank,
 * microsoft/DeepSpeed 112ebff6e deepspeed/runtime/zero/partition_parameters.py:
 * 750-784); before 2021-10 its gathers viewed each parameter once per rank
 * (zero3_gather_rank_op: _allgather_param, :610-650). Those lists went to
 * PyTorch's list collectives, whose NCCL backend copies between the list
 * and one flat tensor, one copy_ per rank (PyTorch 1.13.1
 * torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2111-2118 all_gather,
 * 2210-2216 reduce_scatter): with zero3_rank_copies each rank's slice adds
 * a kernel launch ([gpu] launch_overhead). */
double plan_zero3_reduce_rank_s(const plan_scenario *s)
{
	return s->fw.zero3_rank_op_s + (s->fw.zero3_rank_copies ? s->gpu.launch_s : 0);
}

double plan_zero3_gather_rank_s(const plan_scenario *s)
{
	return s->fw.zero3_gather_rank_op_s + (s->fw.zero3_rank_copies ? s->gpu.launch_s : 0);
}

double plan_zero3_gather_host_s(const plan_scenario *s, int g)
{
	const plan_spec *p = &s->plan;
	if (p->zero < 3 || s->inference)
		return 0;
	plan_groups grp;
	plan_make_groups(s, &grp);
	if (grp.shard.size <= 1)
		return 0;
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], unit, sep;
	int ng = plan_zero3_layer(s, g, &unit, &sep, ga, gr), k = 0;
	for (int i = 0; i < ng; i++)
		k += ga[i] > 0;
	double ranks = k * grp.shard.size; /* the routed experts' unit over expert DP */
	if (sep > 0 && grp.edp.size > 1)
		ranks += grp.edp.size;
	return ranks * plan_zero3_gather_rank_s(s);
}

int plan_zero3_buckets(const plan_scenario *s, int stage, double *max_bytes,
		       double *last_bytes, double *host_s)
{
	return zero3_walk(s, stage, NULL, NULL, 0, max_bytes, last_bytes, host_s, NULL);
}

int plan_zero3_bucket_list(const plan_scenario *s, int stage, double *bytes, double *tensors,
			   int cap, int *mid)
{
	double mx, last, host;
	return zero3_walk(s, stage, bytes, tensors, cap, &mx, &last, &host, mid);
}

int plan_zero3_reduce_calls(const plan_scenario *s, double tensors)
{
	long k = lround(tensors);
	return s->fw.zero3_reduce_calls == PLAN_ZERO3_CALLS_TENSOR && k > 1
	               ? (int)(k < 100000 ? k : 100000)
	               : 1;
}

/* The parameters a rank of `stage` trains in `chunk` (-1: all its chunks)
 * into *params; returns their tensors (work_layer_param_tensors, the
 * embedding's and the output's on the ends). */
static int stage_trained(const plan_scenario *s, int stage, int chunk, double *params)
{
	const work_model *m = &s->model;
	const plan_spec *p = &s->plan;
	work_shard sh = plan_shard(s);
	int tensors = 0, vstages = p->pp * p->vpp;
	*params = 0;
	for (int c = 0; c < p->vpp; c++) {
		int l0, nl = plan_chunk_layers(s, stage, c, &l0), v = plan_vstage(p, stage, c);
		if (chunk >= 0 && c != chunk)
			continue;
		for (int l = 0; l < nl; l++) {
			int g = plan_global_layer(s, stage, l0 + l);
			double d, x;
			build_layer_trained(s, g, &d, &x);
			if (d + x <= 0)
				continue; /* no gradient */
			*params += d + x;
			tensors += work_layer_param_tensors(m, &sh, g);
		}
		tensors += work_ends_param_tensors(m, v == 0, v == vstages - 1);
		if (v == 0 && build_embedding_trained(s))
			*params += plan_rank_embedding(s);
		if (v == vstages - 1 && build_output_trained(s))
			*params += plan_rank_output(s) + build_mtp_experts(s);
	}
	return tensors;
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
 * micro-batch's tokens: a fixed cost per micro-batch. */
bool plan_grad_accum_item(const plan_scenario *s, int stage, int chunk, work_item *out)
{
	const plan_spec *p = &s->plan;
	bool autograd = s->fw.grad_accum == PLAN_ACCUM_AUTOGRAD;
	bool kernel = s->fw.grad_accum == PLAN_ACCUM_KERNEL ||
	              (s->fw.grad_accum == PLAN_ACCUM_KERNEL_FP16 && plan_grad_bytes(s) < 4);
	if ((!kernel && !autograd) || s->inference || (autograd && p->zero >= 2))
		return false;
	double params;
	int tensors = stage_trained(s, stage, chunk, &params);
	double e = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	double acc = plan_grad_bytes(s); /* the buffer: 4 with fp32_grads or fp32/tf32, else e */
	double per = e + 2.0 * acc;
	int launches = tensors > 0 ? tensors : 1;
	if (autograd && acc > e) { /* BF16_Optimizer: lp.grad.to(fp32), then add_ */
		per = e + acc + 3.0 * acc;
		launches *= 2;
	} else if (autograd) { /* AccumulateGrad from the second micro-batch */
		int nm = plan_microbatches(p);
		per = 3.0 * acc * (nm - 1) / (nm > 0 ? nm : 1);
	}
	*out = (work_item){.kind = WORK_ITEM_KERNEL, .kernel = WORK_KERNEL_MEM,
			   .bytes = params * per, .launches = launches,
			   .native = autograd && !(acc > e)};
	snprintf(out->name, sizeof out->name, "grad_accum");
	return params > 0 && per > 0;
}

/* The stage-local index of the stage's first layer that trains: 0, or past
 * the frozen prefix (train.frozen_layers; plan_check keeps it inside the
 * first chunk of stage 0, so it is a prefix of the local layers too). */
int build_first_trained(const plan_scenario *s, int stage)
{
	int layers = plan_stage_layers(s, stage), l = 0;
	while (l < layers && plan_layer_frozen(s, plan_global_layer(s, stage, l)))
		l++;
	return l;
}


/* ZeRO-Offload's step (Ren et al. 2021): each gradient bucket's shard is
 * copied to the host as its reduce-scatter ends (overlapping the rest of the
 * backward), then the CPU runs Adam for the node's GPUs at once, memory-bound
 * like the GPU step (30 bytes per parameter, see build_emit_optimizer) at the node's
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
	double gbytes = plan_grad_bytes(s);
	/* what no reduction below copies: with none, the whole local gradient
	 * at once; under ZeRO-3, whose reductions are per layer, the root
	 * unit's (embedding, output layer) after the backward, unless its
	 * ends are reduced as units of their own (zero3_root) */
	double rest = ndp == 0 ? local * gbytes : 0;
	if (ndp > 0 && s->plan.zero >= 3 && !b->fsdp.bucket) { /* buckets: the root's too */
		double layers = 0, ga[2], gr[2];
		for (int l = 0; l < plan_stage_layers(s, stage); l++) {
			const fsdp_unit *u = build_fsdp_unit(b, &b->fsdp, stage, l);
			layers += u->grad_bytes / b->shard.size + u->sep_grad_bytes / b->edp.size;
		}
		if (plan_zero3_ends(s, stage, ga, gr) > 0)
			layers += (gr[0] + gr[1]) * gbytes / b->shard.size;
		rest = fmax(0, local * gbytes - layers);
	}
	if (rest > 0)
		after[na++] = build_add_copy(b, stage, rest, false, deps, (uint32_t)nd, -1);
	for (int i = 0; i < ndp; i++) /* a shard already on the host (0 bytes) is waited for */
		after[na++] = shard_bytes[i] > 0 ? build_add_copy(b, stage, shard_bytes[i], false,
								  &dp_ids[i], 1, -1)
						 : dp_ids[i];
	double node_params = local * nd_->gpus;
	double t = node_params * 30.0 / (nd_->host_mem_Bps * nd_->host_mem_eff);
	if (nvme)
		t = fmax(t, node_params * 24.0 / nd_->nvme_Bps);
	plan_task adam = {sim_time_from_s(t), stage, PLAN_STREAM_OFFLOAD, PLAN_TASK_OFFLOAD, -1, -1,
			  0, 0, 0};
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
	return build_add_copy(b, stage, local * wbytes, false, &id, 1, -1);
}

/* ZeRO-1/2's parameter all-gather with per-rank loops ([framework]
 * zero_gather_rank_op). nanotron gathers the updated parameters after every
 * step with ZeroDistributedOptimizer._all_gather_params (src/nanotron/optim/
 * zero.py:214-250 at 0e0a27ea): it slices every parameter at every DP rank's
 * offsets into per-parameter output lists and calls its own
 * all_gather_coalesced (src/nanotron/distributed.py:153-218), which checks
 * each slice's device and dtype, transposes the lists to one per rank,
 * flattens each rank's list into a new buffer (_flatten_dense_tensors, one
 * cat kernel per rank), calls dist.all_gather on those buffers (PyTorch's
 * list API: one NCCL all-gather into a flat buffer of its own, then one copy
 * per rank into the list; ProcessGroupNCCL.cpp:2065-2117 of 1.13.1) and, in
 * update_output, unflattens each rank's buffer and copies every piece back
 * into its parameter with copy_, a Python call and a kernel per (rank,
 * tensor). The gathered slices are not the parameters in place, so the
 * copies are the update; the host's share per (rank, tensor) is the key
 * (tools/measured/zero1-gather-host: the loops on tiny CPU tensors), and
 * every copy_ and each rank's cat and list copy launches a kernel:
 *   host = ranks x (tensors x (zero_gather_rank_op + launch) + 2 launch)
 * The GPU moves the stage's updated parameters three times (the cat, the
 * list copy, the copy_ back), read and written:
 *   gpu = stream time of 3 x 2 x params x e bytes
 * The host runs the loops once it has issued the backward, the gradient
 * all-reduce, the clipping and the optimizer step, all asynchronous (no
 * host synchronisation in between: trainer.py:510-560), so while the GPU
 * still runs them: in the graph a host task of `host` seconds on the
 * stage's offload stream (the host's, beside the GPU's streams) from the
 * end of the stage's last backward task (the host is at least that far:
 * an eager backward is issued before it ends), after the loops of the
 * clipping and the master copy (plan_step_loops) where the framework has
 * them, and the GPU's copies, `gpu`
 * seconds on the compute stream, after both it and the gather. The step
 * ends at the later of the two: the host's part shows where it outlasts
 * the all-reduce, the step and the gather (build_emit_optimizer). The
 * return value, max(host, gpu), is what the loops take on their own. The
 * cats run before the gather in nanotron; their GPU time is counted with
 * the copies after it. */
double plan_zero_gather_host(const plan_scenario *s, int stage, double *host, double *gpu,
			     int *tensors, int *ranks)
{
	const plan_spec *p = &s->plan;
	double h = 0, g = 0, params = 0;
	int n = 0, r = 0;
	if (s->fw.zero_gather_rank_op_s > 0 && !s->inference && (p->zero == 1 || p->zero == 2) &&
	    !p->overlap_param_gather && p->offload_optimizer == PLAN_OFFLOAD_NONE) {
		plan_groups grp;
		plan_make_groups(s, &grp);
		if (grp.shard.size > 1)
			r = grp.shard.size, n = stage_trained(s, stage, -1, &params);
	}
	if (n > 0) {
		double e = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
		double launch = s->gpu.launch_s;
		h = r * (n * (s->fw.zero_gather_rank_op_s + launch) + 2.0 * launch);
		g = hw_mem_time(&s->gpu, 3.0 * 2.0 * params * e) - hw_overhead(&s->gpu);
	}
	r = n > 0 ? r : 0;
	if (host)
		*host = h;
	if (gpu)
		*gpu = g;
	if (tensors)
		*tensors = n;
	if (ranks)
		*ranks = r;
	return h > g ? h : g;
}

/* [framework] step_tensor_ops, step_tensor_op: a framework's own per-tensor
 * Python loops around the optimizer step. nanotron (0e0a27ea) runs, after
 * the backward and the gradient all-reduce are issued (trainer.py:528-568):
 * clip_grad_norm (optim/clip_grads.py:46-94), one torch.linalg.vector_norm
 * per fp32 gradient buffer, then one mul_ by the clamped coefficient per
 * buffer; the optimizer's step; and FP32GradientAccumulator.step
 * (optim/gradient_accumulator.py:252-263), one copy_ of every fp32 master
 * tensor into its bf16 parameter: 3 operations per parameter tensor of the
 * rank, each a Python call and a kernel launch. The host's share of each is
 * the key (tools/measured/nanotron-step-host: the loops on tiny CPU
 * tensors), the launch the GPU's:
 *   host = tensors x step_tensor_ops x (step_tensor_op + launch)
 * The few operations on the norm itself (the stack, the norm of the norms,
 * the coefficient: 8 launches and about 70 us of Python, measured) are left
 * out. The kernels' bytes are the step's (plan_optimizer_time: the norm and
 * rescale under clip_scope, the casts); the host issues them one by one, so
 * the step's kernels cannot end before the host's loops do. In the graph
 * (build_emit_optimizer) the loops are a host task on the stage's offload
 * stream from the end of its last backward, beside the GPU's reduction and
 * step: the step ends at the later of max(reduction, backward + host - step)
 * + step (the kernels as the host issues them) and the reduction's end +
 * step, which is where the host task and the step's task end; a framework
 * with ZeRO-1 gather loops runs those after (the same stream). */
double plan_step_loops(const plan_scenario *s, int stage, int *tensors)
{
	double params = 0;
	int n = 0;
	if (s->fw.step_tensor_ops > 0 && !s->inference &&
	    s->plan.offload_optimizer == PLAN_OFFLOAD_NONE)
		n = stage_trained(s, stage, -1, &params);
	if (tensors)
		*tensors = n;
	return n * s->fw.step_tensor_ops * (s->fw.step_tensor_op_s + s->gpu.launch_s);
}

/* Optimizer (and ZeRO-1 parameter all-gather) of one stage: the GPU step as
 * the framework runs it (plan_optimizer_time, optim.c: the fused or foreach
 * kernels' bytes per parameter with the fp32 casts and the gradient norm),
 * after the stage's backward and every gradient reduction: the buckets
 * (ZeRO-0/1/2) or ZeRO-3's per-layer reductions (fsdp_layer_grads, emit.c),
 * in dp_ids. With the optimizer offloaded the step runs on the CPU instead
 * (emit_cpu_adam). */
int build_emit_optimizer(builder *b, int stage, pipe_ids *ids, const uint32_t *dp_ids,
			 const double *shard_bytes, int ndp)
{
	const plan_scenario *s = b->s;
	const plan_spec *p = &s->plan;
	double local = plan_local_params(s, stage);
	uint32_t *deps = malloc((size_t)(ndp + 3) * sizeof *deps);
	if (!deps)
		return SIM_ENOMEM;
	int nd = 0;
	deps[nd++] = ids->last_bwd[stage];
	if (ids->emb_sync[stage] != UINT32_MAX)
		deps[nd++] = ids->emb_sync[stage];
	if (ids->norm_sync[stage] != UINT32_MAX)
		deps[nd++] = ids->norm_sync[stage];
	uint32_t opt;
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE) {
		/* the CPU steps, and the host sends back, the trained parameters
		 * only (a LoRA base and frozen layers have no update) */
		opt = emit_cpu_adam(b, stage, deps, nd, dp_ids, shard_bytes, ndp,
				    plan_optimizer_trained(s, stage, local));
	} else {
		for (int i = 0; i < ndp; i++)
			deps[nd++] = dp_ids[i];
		plan_task t = {sim_time_from_s(plan_optimizer_time(s, stage, local)), stage,
			       PLAN_STREAM_COMPUTE, PLAN_TASK_OPTIM, -1, -1, 0, 0, 0};
		opt = plan_graph_add(b->g, &t, deps, (uint32_t)nd);
		double loops = plan_step_loops(s, stage, NULL);
		if (opt != UINT32_MAX && loops > 0) { /* the host's loops (plan_step_loops) */
			plan_task h = {sim_time_from_s(loops), stage, PLAN_STREAM_OFFLOAD,
				       PLAN_TASK_OPTIM, -1, -1, 0, 0, 0};
			if (plan_graph_add(b->g, &h, &ids->last_bwd[stage], 1) == UINT32_MAX)
				opt = UINT32_MAX;
		}
	}
	free(deps);
	if (opt == UINT32_MAX)
		return SIM_ENOMEM;
	bool early = p->overlap_param_gather && plan_stage_layers(s, stage) > 0; /* at the
										 * step start */
	if ((p->zero == 1 || p->zero == 2) && b->shard.size > 1 && !early) {
		/* the dense parameters over the shard group, then the experts
		 * over the expert-DP group (plan_zero_gather_bytes), as
		 * build_emit_param_gather gathers them (the experts over the
		 * shard group were shard / edp times their bytes: Mixtral 8x7B at
		 * tp 2, ep 8, dp 16, 233 ms after the step, now 8 + 180) */
		double dense, experts;
		plan_zero_gather_bytes(s, stage, b->edp.size, &dense, &experts);
		uint32_t ag = build_add_dp_on(b, &b->shard, stage, NET_ALLGATHER, dense, &opt, 1, -1);
		if (ag != UINT32_MAX && experts > 0)
			ag = build_add_dp_on(b, &b->edp, stage, NET_ALLGATHER, experts, &ag, 1, -1);
		if (ag == UINT32_MAX)
			return SIM_ENOMEM;
		double host, gpu;
		if (plan_zero_gather_host(s, stage, &host, &gpu, NULL, NULL) > 0) {
			/* the framework's per-rank loops (plan_zero_gather_host): the
			 * host's part from the end of the backward, beside the GPU,
			 * then the copies after it and the gather */
			plan_task h = {sim_time_from_s(host), stage, PLAN_STREAM_OFFLOAD,
				       PLAN_TASK_OPTIM, -1, -1, 0, 0, 0};
			uint32_t cd[2] = {ag, plan_graph_add(b->g, &h, &ids->last_bwd[stage], 1)};
			plan_task c = {sim_time_from_s(gpu), stage, PLAN_STREAM_COMPUTE,
				       PLAN_TASK_OPTIM, -1, -1, 0, 0, 0};
			if (cd[1] == UINT32_MAX || plan_graph_add(b->g, &c, cd, 2) == UINT32_MAX)
				return SIM_ENOMEM;
		}
	}
	return SIM_OK;
}

void plan_zero_gather_bytes(const plan_scenario *s, int stage, int edp, double *dense,
                            double *experts)
{
	plan_budget bg;
	plan_stage_budget(s, stage, &bg);
	double all = bg.dense + bg.experts, upd = 1;
	if ((s->train.frozen_layers > 0 || s->train.lora_rank > 0) && all > 0)
		upd = bg.train / all;
	double wb = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype) * upd;
	bool split = edp > 1 && bg.experts > 0;
	*dense = (split ? bg.dense : all) * wb;
	*experts = split ? bg.experts * wb : 0;
}

bool plan_one_bucket(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	return (!p->overlap_grad_reduce && s->fw.one_bucket_no_overlap) ||
	       (p->pp > 1 && stage > 0 && s->fw.first_stage_buckets) ||
	       (p->zero >= 1 && s->fw.zero_one_bucket);
}

/* Sequence parallelism's norm gradients (plan.h, plan_norm_sync_calls). */
int plan_norm_sync_calls(const plan_scenario *s, int stage, double *calls, int cap)
{
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	if (s->inference || !p->sequence_parallel || p->tp <= 1 || cap < 1 ||
	    s->train.lora_rank > 0)
		return 0; /* under LoRA the norms do not train */
	int per = m->norm == WORK_NORM_LAYERNORM ? 2 : 1, tensors = 0;
	for (int l = 0; l < plan_stage_layers(s, stage); l++)
		if (!plan_layer_frozen(s, plan_global_layer(s, stage, l)))
			tensors += work_layer_norms(m) * per;
	if (stage == plan_last_rank(p) && build_output_trained(s))
		tensors += per; /* the final norm */
	double one = (double)m->hidden * plan_grad_bytes(s);
	if (tensors == 0)
		return 0;
	if (s->fw.sp_norm_sync == PLAN_NORM_SYNC_FLAT) {
		calls[0] = tensors * one;
		return 1;
	}
	int n = tensors < cap ? tensors : cap;
	for (int i = 0; i < n; i++)
		calls[i] = one;
	calls[n - 1] += (tensors - n) * one; /* beyond cap, into the last */
	return n;
}

double plan_norm_sync_time(const plan_scenario *s, const plan_groups *g, int stage)
{
	double *calls = malloc(PLAN_NORM_SYNC_MAX * sizeof *calls), t = 0, ti = 0;
	int n = calls ? plan_norm_sync_calls(s, stage, calls, PLAN_NORM_SYNC_MAX) : 0;
	net_cost c;
	for (int i = 0; i < n; i++) { /* the calls are alike: each size timed once */
		if (i == 0 || calls[i] != calls[i - 1])
			ti = net_collective(&s->cluster, NET_ALLREDUCE, &g->tp, calls[i], &c) == SIM_OK
				     ? c.time_s
				     : 0;
		t += ti;
	}
	t += plan_call_group_wait(&s->cluster, &g->tp, calls, n, 1);
	free(calls);
	return t;
}

/* The norm gradients' all-reduce over TP on each stage (plan_norm_sync_calls),
 * on the DP stream after the stage's last backward, so after its gradient
 * buckets (the stream runs its tasks in order), as one NCCL group
 * (build_add_call_group). The optimizer step waits for the last
 * (pipe_ids.norm_sync). */
int build_emit_norm_sync(builder *b, pipe_ids *ids)
{
	const plan_scenario *s = b->s;
	double *calls = malloc(PLAN_NORM_SYNC_MAX * sizeof *calls);
	if (!calls)
		return SIM_ENOMEM;
	int rc = SIM_OK;
	for (int st = 0; st < s->plan.pp && rc == SIM_OK; st++) {
		int n = plan_norm_sync_calls(s, st, calls, PLAN_NORM_SYNC_MAX);
		uint32_t id = n > 0 ? build_add_call_group(b, &b->tp, st, NET_ALLREDUCE, calls, n,
							   1, ids->last_bwd[st], -1)
				    : UINT32_MAX;
		if (n > 0 && id == UINT32_MAX)
			rc = SIM_ENOMEM;
		ids->norm_sync[st] = id;
	}
	free(calls);
	return rc;
}

/* Tied embeddings with pp > 1: the first and last stages each hold the word
 * embedding and all-reduce its gradient between them after the backward
 * (a 2-rank group, Megatron's embedding group). Both tasks wait for both
 * stages' backward, as a collective does. */
double plan_embedding_sync_time(const plan_scenario *s, const plan_groups *g,
				double value_bytes)
{
	if (s->plan.pp == 1 || s->model.untied_embeddings || plan_last_rank(&s->plan) == 0)
		return 0;
	double bytes = (double)s->model.vocab * s->model.hidden / s->plan.tp * value_bytes;
	net_cost c;
	return net_collective(&s->cluster, NET_ALLREDUCE, &g->embed, bytes, &c) == SIM_OK
		       ? c.time_s
		       : 0;
}

int build_emit_embedding_sync(builder *b, pipe_ids *ids)
{
	const plan_scenario *s = b->s;
	int pp = s->plan.pp;
	if (pp == 1 || s->model.untied_embeddings || plan_last_rank(&s->plan) == 0)
		return SIM_OK; /* (ZBV: both ends on rank 0, one parameter) */
	double gbytes = plan_grad_bytes(s);
	double bytes = (double)s->model.vocab * s->model.hidden / s->plan.tp * gbytes;
	net_cost cost;
	if (build_comm_cost(b, NET_ALLREDUCE, &b->embed, bytes, &cost) != SIM_OK)
		cost = (net_cost){0};
	double net_s = build_comm_net_s(b, &b->embed, cost.time_s);
	uint32_t deps[2] = {ids->last_bwd[0], ids->last_bwd[pp - 1]};
	int stages[2] = {0, pp - 1};
	for (int i = 0; i < 2; i++) {
		plan_task t = {sim_time_from_s(cost.time_s), stages[i], PLAN_STREAM_DP, PLAN_TASK_DP,
			       -1, -1, (float)cost.intra_bytes,
			       build_nic_share(&s->cluster, cost.inter_bytes),
			       (float)cost.fabric_bytes};

		uint32_t id = build_add_net(b->g, &t, deps, 2, net_s, b->embed.nodes);
		if (id == UINT32_MAX)
			return SIM_ENOMEM;
		ids->emb_sync[stages[i]] = id;
	}
	return SIM_OK;
}
