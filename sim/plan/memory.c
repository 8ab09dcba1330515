/* memory.c - per-rank HBM budget of a plan, by category. */
#include "plan.h"

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

/* Layers' worth of micro-batch activations a stage holds at its peak. GPipe
 * keeps all m micro-batches of its layers. 1F1B keeps its warm-up forwards plus
 * one in flight, each over a chunk of layers / vpp layers: pp - stage
 * micro-batches without interleaving, (pp - stage - 1) * 2 + (vpp - 1) * pp + 1
 * chunk-steps with it (at most m * vpp). ZB-H1 holds `stage` weight passes
 * back, each keeping its micro-batch: pp on every stage. */
static double inflight_layers(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), layers = plan_stage_layers(s, stage);
	if (p->schedule == PLAN_SCHED_GPIPE)
		return (double)layers * m;
	int steps = p->vpp > 1 ? (p->pp - stage - 1) * 2 + (p->vpp - 1) * p->pp + 1 : p->pp - stage;
	if (p->schedule == PLAN_SCHED_ZB_H1) /* plus `stage` held weight passes */
		steps = p->pp;
	if (steps > m * p->vpp)
		steps = m * p->vpp;
	return (double)layers / p->vpp * steps;
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
			 .ep = s->plan.ep > 1 ? s->plan.ep : 1};
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
	/* The mean over the stage's layers (they differ only in MoE models), and
	 * the largest full working set for the recomputed layer. */
	int n = plan_stage_layers(s, stage);
	double sum = 0, work = 0;
	for (int l = 0; l < n; l++) {
		int g = plan_global_layer(s, stage, l);
		sum += work_activation_bytes_at(&s->model, &sh, g, rc);
		double w = work_activation_bytes_at(&s->model, &sh, g, WORK_RECOMPUTE_NONE);
		work = w > work ? w : work;
	}
	double a = n > 0 ? sum / n * inflight_layers(s, stage) : 0.0;
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
void plan_memory(const plan_scenario *s, int stage, double bytes[PLAN_MEM_COUNT])
{
	const plan_spec *p = &s->plan;
	double experts, params = stage_params(s, stage, &experts);
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	double w = fp32 ? 4.0 : 2.0;
	double g = (fp32 || p->fp32_grads) ? 4.0 : 2.0;
	double o = fp32 ? 8.0 : 12.0;
	work_shard sh = plan_shard(s);
	double shards = (double)p->dp * (p->cp > 1 ? p->cp : 1); /* ranks sharing parameters */
	double eshards = shards * p->tp / (p->ep > 1 ? p->ep : 1); /* ... sharing experts */

	bytes[PLAN_MEM_WEIGHTS] = params * w / (p->zero >= 3 ? shards : 1) + experts * w;
	bytes[PLAN_MEM_GRADIENTS] =
		params * g / (p->zero >= 2 ? shards : 1) + experts * g / (p->zero >= 2 ? eshards : 1);
	bytes[PLAN_MEM_OPTIMIZER] =
		params * o / (p->zero >= 1 ? shards : 1) + experts * o / (p->zero >= 1 ? eshards : 1);
	bytes[PLAN_MEM_ACTIVATIONS] = stage_activations(s, stage);
	/* ZeRO-3 holds two gathered layers (the running one and the prefetched). */
	double gathered = p->zero >= 3 && shards > 1
				  ? 2.0 * work_params_layer(&s->model) / p->tp * w
				  : 0.0;
	bytes[PLAN_MEM_BUFFERS] =
		gathered + ((shards > 1 || eshards > 1) && p->zero < 3 ? 2.0 * p->bucket_bytes : 0.0) +
		(p->pp > 1 ? 4.0 * work_p2p_bytes(&s->model, &sh) : 0.0);
	double sum = 0;
	for (int i = 0; i < PLAN_MEM_FRAGMENTATION; i++)
		sum += bytes[i];
	bytes[PLAN_MEM_FRAGMENTATION] = 0.05 * sum;
}
