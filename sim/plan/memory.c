/* memory.c - per-rank HBM budget of a plan, by category. */
#include "plan.h"

#include <math.h>
#include <stdlib.h>

const char *plan_mem_name(plan_mem m)
{
	static const char *const names[PLAN_MEM_COUNT] = {
		"weights", "gradients", "optimizer_states", "activations", "buffers", "fragmentation"};
	return (unsigned)m < PLAN_MEM_COUNT ? names[m] : "?";
}

/* Parameters held by one rank of `stage`: the return value is the TP-split part,
 * *experts the routed experts' part (split over EP, expert TP 1). Layer weights
 * are split over TP (norms and biases too, a small overcount avoided by nobody's
 * plan); the first stage holds the input embedding, the last the output layer
 * and, when the embedding is tied and pp > 1, a copy of the word embedding
 * (Megatron keeps one on each end and all-reduces their gradients). */
static double stage_params(const plan_scenario *s, int stage, double *experts)
{
	const work_model *m = &s->model;
	int pp = s->plan.pp, n = plan_stage_layers(s, stage);
	double p = 0, e = 0;
	for (int l = 0; l < n; l++) {
		int g = plan_global_layer(s, stage, l);
		double x = work_params_layer_experts(m, g);
		p += work_params_layer_at(m, g) - x;
		e += x;
	}
	if (stage == 0)
		p += work_params_embedding(m);
	if (stage == pp - 1) {
		p += work_params_output(m);
		if (!m->untied_embeddings && pp > 1)
			p += (double)m->vocab * m->hidden;
	}
	*experts = e / (s->plan.ep > 1 ? s->plan.ep : 1); /* whole experts over ep */
	return p / s->plan.tp;
}

/* Activation bytes the stage holds at its peak over the step, from the
 * schedule itself (plan_schedule_order): a chunk's forward of a micro-batch
 * keeps act_c bytes until its backward (with ZB-H1 until its weight pass W,
 * which still reads the layer inputs) frees them; the peak is the largest
 * running sum. This reproduces the textbook counts (GPipe: all m micro-batches;
 * 1F1B: pp - stage; interleaved: (pp - stage - 1) * 2 + (vpp - 1) * pp + 1
 * chunk-steps, Narayanan et al. 2021) and gives ZB-H1's pp on every stage.
 * act_c is per chunk: uneven layouts and MoE layers differ. Returns -1 on OOM. */
/* The walk's result in closed form where it is known (equal chunks, GPipe,
 * 1F1B or interleaved 1F1B), checked against the walk in test_plan: the sweep
 * pre-screen calls plan_memory for every plan, and the walk is O(m * vpp). */
double plan_peak_closed(const plan_spec *p, int stage, double act)
{
	int m = plan_microbatches(p);
	if (p->schedule == PLAN_SCHED_GPIPE)
		return act * m * p->vpp;
	long steps = p->vpp > 1 ? (long)(p->pp - stage - 1) * 2 + (long)(p->vpp - 1) * p->pp + 1
				: p->pp - stage;
	if (steps > (long)m * p->vpp)
		steps = (long)m * p->vpp;
	return act * (double)steps;
}

double plan_peak_walk(const plan_spec *p, int stage, const double *act_c)
{
	int m = plan_microbatches(p), n = plan_schedule_steps(p->schedule, m, p->vpp);
	plan_op *ops = malloc((size_t)n * sizeof *ops);
	if (!ops)
		return -1;
	plan_schedule_order(p->schedule, p->pp, m, p->vpp, stage, ops);
	bool zb = p->schedule == PLAN_SCHED_ZB_H1;
	double cur = 0, peak = 0;
	for (int i = 0; i < n; i++) {
		double a = act_c[ops[i].chunk];
		if (!ops[i].backward)
			cur += a;
		else if (ops[i].weight || !zb)
			cur -= a;
		peak = cur > peak ? cur : peak;
	}
	free(ops);
	return peak;
}

static double schedule_peak(const plan_scenario *s, int stage, const double *act_c)
{
	const plan_spec *p = &s->plan;
	bool equal = true;
	for (int c = 1; c < p->vpp; c++)
		equal = equal && act_c[c] == act_c[0];
	if (equal && p->schedule != PLAN_SCHED_ZB_H1)
		return plan_peak_closed(p, stage, act_c[0]);
	return plan_peak_walk(p, stage, act_c);
}

work_shard plan_shard(const plan_scenario *s)
{
	int cp = s->plan.cp > 1 ? s->plan.cp : 1;
	work_shard sh = {.tp = s->plan.tp,
			 .sp = s->plan.sequence_parallel,
			 .micro_batch = s->plan.micro_batch,
			 .seq = s->model.seq_len / cp,
			 .dtype = s->dtype,
			 .flash = s->flash,
			 .cp = cp,
			 .ep = s->plan.ep > 1 ? s->plan.ep : 1,
			 .flash_impl = (hw_flash_impl)s->fw.flash_impl,
			 .layer_code = s->fw.layer_kernels};
	return sh;
}

/* Activation bytes at the stage's peak: the kept tensors of every layer for
 * every micro-batch in flight; with full recomputation also the working set of
 * the one layer being recomputed; on the last stage the fp32 logits of one
 * micro-batch (s*b*V/t*4 bytes) for the softmax cross-entropy. */
static double stage_activations(const plan_scenario *s, int stage)
{
	work_shard sh = plan_shard(s);
	work_recompute rc = s->plan.recompute;
	/* Per chunk the kept bytes of its layers, and the largest full working
	 * set of a layer for the one being recomputed. */
	double act_c[s->plan.vpp], work = 0;
	for (int c = 0, local = 0; c < s->plan.vpp; c++) {
		int n = plan_chunk_layers(s, stage, c, NULL);
		act_c[c] = 0;
		for (int l = 0; l < n; l++, local++) {
			int g = plan_global_layer(s, stage, local);
			act_c[c] += work_activation_bytes_at(&s->model, &sh, g, rc);
			double w = work_activation_bytes_at(&s->model, &sh, g, WORK_RECOMPUTE_NONE);
			work = w > work ? w : work;
		}
	}
	double a = schedule_peak(s, stage, act_c);
	if (a < 0) /* out of memory for the walk: the closed form of 1F1B */
		a = act_c[0] * s->plan.vpp * (s->plan.pp - stage);
	if (rc == WORK_RECOMPUTE_FULL)
		a += work;
	if (stage == s->plan.pp - 1)
		a += (double)sh.seq * sh.micro_batch * s->model.vocab / sh.tp * 4.0;
	return a;
}

/* Mixed-precision Adam (Rajbhandari et al. 2020): 16-bit weights (2 bytes),
 * gradients (2, or 4 when accumulated in fp32 as Megatron does), and fp32
 * master weights, momentum and variance (12). ZeRO-1 shards the 12 over DP,
 * ZeRO-2 the gradients too, ZeRO-3 the weights too. fp32 training needs no
 * master copy: 4 + 4 + 8. Buffers: two gradient buckets in flight and the
 * pipeline send/receive buffers (assumed). Fragmentation: 5% of the rest
 * (assumed allowance for the caching allocator). */
/* Inference (prefill of the global batch): the weights (all of them, or with
 * offload_params the two layers being streamed); no gradients or optimizer
 * states; activations are the working set of the one layer running plus the
 * KV cache the prefill leaves for generation: 2 (K, V) x kv width / tp x seq x
 * micro-batch x the stage's layers x micro-batches, in 16 bits. */
static void inference_memory(const plan_scenario *s, int stage, double bytes[PLAN_MEM_COUNT])
{
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	work_shard sh = plan_shard(s);
	double w = s->dtype == HW_FP32 || s->dtype == HW_TF32 ? 4.0 : 2.0;
	int layers = plan_stage_layers(s, stage);
	if (p->offload_params != PLAN_OFFLOAD_NONE)
		bytes[PLAN_MEM_WEIGHTS] = 2.0 * work_params_layer(m) / p->tp * w;
	bytes[PLAN_MEM_GRADIENTS] = bytes[PLAN_MEM_OPTIMIZER] = 0;
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double kv = (g >= p->tp ? g / p->tp : 1.0) * hd;
	double e = w < 4.0 ? 2.0 : 4.0;
	double cache = 2.0 * kv * sh.seq * sh.micro_batch * e * layers * plan_microbatches(p);
	bytes[PLAN_MEM_ACTIVATIONS] =
		work_activation_bytes(m, &sh, WORK_RECOMPUTE_NONE) + cache;
	bytes[PLAN_MEM_BUFFERS] = p->pp > 1 ? 4.0 * work_p2p_bytes(m, &sh) : 0.0;
}

/* Ranks that share a rank's parameters: all of dp x cp (dpg), the ZeRO shard
 * group among them (shards; dpg unless hybrid sharding), and the ranks holding
 * the same experts (eshards): plan_group_sizes. */
static void shard_counts(const plan_scenario *s, double *dpg, double *shards, double *eshards)
{
	int a, b, c;
	plan_group_sizes(&s->plan, &a, &b, &c);
	*dpg = a, *shards = b, *eshards = c;
}

void plan_memory(const plan_scenario *s, int stage, double bytes[PLAN_MEM_COUNT])
{
	const plan_spec *p = &s->plan;
	double experts, params = stage_params(s, stage, &experts);
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	double w = fp32 ? 4.0 : 2.0;
	double g = (fp32 || p->fp32_grads) ? 4.0 : 2.0;
	double o = fp32 ? 8.0 : 12.0;
	work_shard sh = plan_shard(s);
	double dpg, shards, eshards;
	shard_counts(s, &dpg, &shards, &eshards);

	bytes[PLAN_MEM_WEIGHTS] = params * w / (p->zero >= 3 ? shards : 1) + experts * w;
	bool gshard = plan_grads_sharded(s); /* ZeRO-2 accumulating at the boundary holds all */
	bytes[PLAN_MEM_GRADIENTS] =
		params * g / (gshard ? shards : 1) + experts * g / (gshard ? eshards : 1);
	bytes[PLAN_MEM_OPTIMIZER] =
		params * o / (p->zero >= 1 ? shards : 1) + experts * o / (p->zero >= 1 ? eshards : 1);
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE) { /* states, master and fp32 */
		bytes[PLAN_MEM_OPTIMIZER] = 0;            /* gradients on the host: the */
		bytes[PLAN_MEM_GRADIENTS] = 0;            /* GPU keeps its buckets only */
	}
	if (p->offload_params != PLAN_OFFLOAD_NONE) /* only the gathered layers stay */
		bytes[PLAN_MEM_WEIGHTS] = 0;
	bytes[PLAN_MEM_ACTIVATIONS] = stage_activations(s, stage);
	/* ZeRO-3 holds two gathered layers (the running one and the prefetched). */
	double gathered = p->zero >= 3 && shards > 1
				  ? 2.0 * work_params_layer(&s->model) / p->tp * w
				  : 0.0;
	bytes[PLAN_MEM_BUFFERS] =
		gathered + ((dpg > 1 || eshards > 1) && p->zero < 3 ? 2.0 * fmin(plan_bucket_bytes(s), (params + experts) * g) : 0.0) +
		(p->pp > 1 ? 4.0 * work_p2p_bytes(&s->model, &sh) : 0.0);
	if (s->inference)
		inference_memory(s, stage, bytes);
	double sum = 0;
	for (int i = 0; i < PLAN_MEM_FRAGMENTATION; i++)
		sum += bytes[i];
	bytes[PLAN_MEM_FRAGMENTATION] = 0.05 * sum;
}

double plan_local_params(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	double experts, params = stage_params(s, stage, &experts), dpg, shards, eshards;
	shard_counts(s, &dpg, &shards, &eshards);
	return p->zero >= 1 ? params / shards + experts / eshards : params + experts;
}

void plan_offload_memory(const plan_scenario *s, int stage, double *host, double *nvme)
{
	const plan_spec *p = &s->plan;
	int g = s->cluster.node.gpus;
	double local = plan_local_params(s, stage);
	double states = local * (s->dtype == HW_FP32 ? 8.0 : 12.0), grads = local * 4.0;
	double experts, params = stage_params(s, stage, &experts), dpg, shards, eshards;
	shard_counts(s, &dpg, &shards, &eshards);
	double weights = (params / shards + experts) * 2.0;
	*host = *nvme = 0;
	if (p->offload_optimizer == PLAN_OFFLOAD_CPU)
		*host += g * (states + grads);
	else if (p->offload_optimizer == PLAN_OFFLOAD_NVME)
		*host += g * grads, *nvme += g * states;
	if (p->offload_params == PLAN_OFFLOAD_CPU)
		*host += g * weights;
	else if (p->offload_params == PLAN_OFFLOAD_NVME)
		*nvme += g * weights;
}
