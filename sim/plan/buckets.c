/* buckets.c - the ZeRO-0..2 data-parallel gradient buckets: where they
 * close in the backward (the bucket walk), when each is launched, what each
 * costs and the graph's tasks that reduce them; overlap_param_gather's
 * gathers over the same buckets. The trained parameters per layer are
 * grads.c's (build_layer_trained).
 */
#include "build_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Megatron-Core's interleaved schedule with --overlap-grad-reduce launches
 * a chunk's gradient buckets together, not as the backward fills them:
 * align_grad_reduce (on by default, training/config/common_config.py:80 at
 * d98e8a64) installs each chunk's start_grad_sync as grad_sync_func
 * (training/training.py:4346-4359), the backward runs with grad sync off
 * (the chunk's no_sync, so the buckets' ready hooks launch nothing,
 * core/distributed/param_and_grad_buffer.py:863-885), and after its k-th
 * backward step a rank launches the chunk whose last micro-batch was its
 * step k - pipeline rank, aligning the launches across the pipeline
 * (pipeline_parallel/schedules.py:1438-1456); what is left, after the
 * schedule (:2065-2069). build_emit_schedule (pipe.c) records those points
 * in pipe_ids.sync_at. Not under ZeRO's zero_one_bucket, GPipe or ZB-H1. */
bool build_chunk_sync(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	return s->fw.first_stage_buckets && p->vpp > 1 && p->overlap_grad_reduce &&
	       p->schedule == PLAN_SCHED_1F1B && !s->inference &&
	       !(p->zero >= 1 && s->fw.zero_one_bucket);
}

/* Megatron-Core wraps each model chunk in its own DistributedDataParallel
 * whose buffers hold the chunk's parameters and gradients in the same
 * buckets: the gradient reduce-scatters and the parameter all-gathers of
 * --overlap-param-gather use one bucket set (the forward pre-hook waits for
 * the all-gather of its parameters' bucket group,
 * core/distributed/distributed_data_parallel.py:517-550 at d98e8a64).
 * Buckets never span chunks, and only the first pipeline stage's first
 * chunk splits at bucket_size: a chunk after the first is wrapped with
 * disable_bucketing and every chunk of a later pipeline rank with no
 * bucket size (training/training.py:2504-2515; DDP's own rule,
 * distributed_data_parallel.py:160-171), so each is one bucket. Without
 * --overlap-grad-reduce no chunk splits (training.py:2179-2194, bucket_size
 * None; --overlap-param-gather requires the overlap, arguments.py:1024-1029).
 * [framework] first_stage_buckets says a framework does this; its chunks'
 * buckets are then cut at chunk boundaries. This is the bucket size of
 * chunk `chunk` of `stage` (1e300: one bucket). */
static double chunk_bucket_bytes(const plan_scenario *s, int stage, int chunk)
{
	bool one = plan_one_bucket(s, stage) || (chunk > 0 && s->fw.first_stage_buckets);
	return one ? 1e300 : plan_bucket_bytes(s);
}

/* Buckets by tensor. A framework's reducer fills its buckets with whole
 * parameter tensors in the order the backward finishes their gradients and
 * closes a bucket after the tensor that brings it to its size: torch DDP's
 * compute_bucket_assignment_by_size adds a tensor, then closes the bucket
 * once its bytes reach the limit (PyTorch 1.13.1
 * torch/csrc/distributed/c10d/reducer.cpp:2007-2027, Debian
 * pytorch_1.13.1+dfsg), the limits being 1 MiB for the first bucket
 * (dist._DEFAULT_FIRST_BUCKET_BYTES) and bucket_cap_mb MiB for the rest
 * (torch/nn/parallel/distributed.py:646, 723; rebuilt in the gradients'
 * ready order after the first step, reducer.cpp:1690-1712); Megatron-Core
 * the same, walking its parameters in backprop order
 * (core/distributed/param_and_grad_buffer.py:980-993 at d98e8a64; its
 * distributed optimizer's layout, optimizer/distrib_optimizer.py:552-577).
 * A layer larger than the bucket is then several buckets, each its own
 * collective: [framework] grad_bucket_split = tensor, the default. With
 * layer a bucket closes only at a layer's end, podsim's coarser
 * approximation before (a layer of Llama 3 8B on tp 8, 27M parameters, one
 * bucket of nanotron's 13.1M instead of torch's two). A bucket that closes
 * inside a layer is launched when the layer's backward ends (torch and
 * Megatron launch it when its last tensor's gradient is ready, part of the
 * layer earlier). DeepSpeed's ZeRO-1/2 buckets close before the tensor that
 * would overflow them; podsim closes them after it, as the others.
 *
 * A dense layer's tensors in backward order: the MLP's linears last to
 * first (work_layer_linears, fused as Megatron's and nanotron's layer code
 * fuses QKV and gate/up, apart for the Hugging Face Llama code), the first
 * half of its small tensors (the second norm, the MLP's biases), the
 * attention's linears last to first, the rest (the first norm); the
 * linears at w / tp per rank, the small tensors sharing what
 * plan_rank_layer leaves (norms whole, biases of either kind: each a
 * separate tensor, as work_layer_param_tensors counts them). A MoE layer,
 * a LoRA-trained layer and a frozen one stay one piece (its dense and its
 * expert parameters). The output layer (and the MTP experts) is the first
 * piece of the last stage, the embedding the last of stage 0.
 *
 * grad_bucket_calls = tensor sends each tensor of a bucket as its own
 * collective (plan_grad_bucket.calls): nanotron's fp32 DDP hook calls
 * dist.all_reduce_coalesced over the bucket's per-parameter fp32 buffers
 * (optim/gradient_accumulator.py:366-372 at 0e0a27ea), which
 * ProcessGroupNCCL runs as one ncclAllReduce per tensor inside one NCCL
 * group (allreduce_coalesced -> allreduce_impl -> collective(), whose
 * fn runs per tensor between ncclGroupStart and ncclGroupEnd,
 * ProcessGroupNCCL.cpp:1521-1620, 1813-1876 of 1.13.1; the benchmark ran
 * torch 2.1, assumed the same per tensor). Each call pays its own latency
 * and, on EFA, its own wait for the slowest node (net_sync_delay: each
 * ncclAllReduce is a ring or tree of its own that every rank enters). */
#define BUCKET_PIECES 32 /* a layer's pieces: WORK_MAX_LINEARS + small + embedding */

/* grad_bucket_split is the framework's bucket layout at every ZeRO stage
 * with buckets (Megatron-Core's DDP and distributed optimizer alike); the
 * first bucket's size and the calls per tensor are torch DDP's and its hook's,
 * ZeRO-0 only (nanotron's ZeRO-1 all-reduces its contiguous fp32 buffer
 * once, trainer.py:510-519). */
static bool split_tensors(const plan_scenario *s)
{
	return s->fw.grad_bucket_split == PLAN_BUCKET_SPLIT_TENSOR;
}

static bool calls_tensors(const plan_scenario *s)
{
	return s->plan.zero == 0 && s->fw.grad_bucket_calls == PLAN_BUCKET_CALLS_TENSOR;
}

/* torch DDP's first bucket (grad_bucket_first, ZeRO-0), parameters; 0: none. */
static double first_bucket(const plan_scenario *s)
{
	return s->plan.zero == 0 ? s->fw.grad_bucket_first : 0;
}

static bool by_tensor(const plan_scenario *s)
{
	return split_tensors(s) || calls_tensors(s);
}

/* The small tensors of a dense layer: its norms' weights (and LayerNorm's
 * biases) and, with bias, one bias per linear. */
static int small_tensors(const work_model *m, int nlin)
{
	int norms = work_layer_norms(m) * (m->norm == WORK_NORM_LAYERNORM ? 2 : 1);
	return norms + (m->bias ? nlin : 0);
}

/* Global layer g's pieces per rank in backward order (above): their dense
 * and expert parameters in d[], x[]; how many. One piece (the whole layer)
 * unless tensors. */
static int layer_pieces(const plan_scenario *s, int g, bool tensors, double *d, double *x)
{
	const work_model *m = &s->model;
	double dense, experts;
	build_layer_trained(s, g, &dense, &experts);
	if (!tensors || s->train.lora_rank > 0 || work_layer_is_moe(m, g) || !(dense > 0)) {
		d[0] = dense, x[0] = experts;
		return 1;
	}
	double w[WORK_MAX_LINEARS];
	bool fused = s->fw.layer_kernels != WORK_LAYER_HF_LLAMA &&
	             s->fw.layer_kernels != WORK_LAYER_HF_LLAMA5;
	int nl = work_layer_linears(m, fused, w), tp = s->plan.tp > 1 ? s->plan.tp : 1;
	int na = nl - (m->act == WORK_ACT_SWIGLU && !fused ? 3 : 2);
	int ns = small_tensors(m, nl), n = 0;
	double lin = 0;
	for (int i = 0; i < nl; i++)
		lin += w[i] / tp;
	double small = fmax(0, dense - lin) / (ns > 0 ? ns : 1);
	for (int i = nl - 1; i >= na; i--) /* the MLP's linears */
		d[n] = w[i] / tp, x[n++] = 0;
	for (int i = 0; i < (ns + 1) / 2; i++)
		d[n] = small, x[n++] = 0;
	for (int i = na - 1; i >= 0; i--) /* the attention's */
		d[n] = w[i] / tp, x[n++] = 0;
	for (int i = (ns + 1) / 2; i < ns; i++)
		d[n] = small, x[n++] = 0;
	if (ns == 0 && dense > lin) /* what work_layer_linears leaves */
		d[n - 1] += dense - lin;
	return n;
}

int plan_grad_bucket_cap(const plan_scenario *s)
{
	int l = plan_max_stage_layers(s);
	return by_tensor(s) ? (l > 0 ? l : 1) * BUCKET_PIECES + 2 : l + 1;
}

/* The gradient buckets of a stage in backward order (last layer first), as
 * the DP reduction closes them: on the last stage the output layer's
 * gradients (and the MTP modules' experts) open the first; each trained
 * layer adds its dense and expert gradients, the lowest trained layer the
 * embedding's on stage 0 (frozen layers below it have none); a bucket
 * closes when the two together reach its chunk's size (chunk_bucket_bytes;
 * the first bucket at grad_bucket_first's), at the lowest trained layer,
 * and under first_stage_buckets at each chunk's first layer; at a layer's
 * end, or after any tensor with grad_bucket_split = tensor (above). The
 * walk's bytes are gbytes per trained parameter. */
typedef struct bucket_walk {
	const plan_scenario *s;
	int stage, l, lo;       /* the next layer down, the lowest trained one */
	int chunk, chunk_lo;    /* the model chunk holding l, its first local layer */
	double gbytes;
	double embed;           /* stage 0's embedding parameters, or 0 */
	bool first;             /* no bucket closed yet */
	bool head;              /* the pieces are the output layer's, before any layer */
	int cur, np, ip;        /* the layer the pieces are of, how many, the next */
	double pd[BUCKET_PIECES], px[BUCKET_PIECES];
	plan_grad_bucket open;  /* the open bucket */
} bucket_walk;

/* Into the model chunk holding stage-local layer l (the walk goes down). */
static void walk_chunk(bucket_walk *w, int l)
{
	while (l < w->chunk_lo && w->chunk > 0)
		plan_chunk_layers(w->s, w->stage, --w->chunk, &w->chunk_lo);
}

static void bucket_walk_init(bucket_walk *w, const plan_scenario *s, int stage, double gbytes)
{
	bool out = stage == plan_last_rank(&s->plan) && build_output_trained(s);
	int top = plan_stage_layers(s, stage) - 1;
	*w = (bucket_walk){.s = s,
			   .stage = stage,
			   .l = top,
			   .lo = build_first_trained(s, stage),
			   .chunk = s->plan.vpp,
			   .chunk_lo = INT32_MAX,
			   .gbytes = gbytes,
			   .embed = stage == 0 && build_embedding_trained(s) ? plan_rank_embedding(s) : 0,
			   .first = true,
			   .cur = top,
			   .open = {.layer = -1, .last = -1}};
	/* the output layer: the first piece (on a stage without layers, what
	 * the walk keeps for plan_grad_buckets) */
	double od = out ? plan_rank_output(s) : 0, ox = out ? build_mtp_experts(s) : 0;
	if (top < 0) {
		w->open.dense_bytes = od * gbytes, w->open.expert_bytes = ox * gbytes;
	} else if (od + ox > 0) {
		walk_chunk(w, top);
		w->pd[0] = od, w->px[0] = ox, w->np = 1, w->head = true;
	}
}

/* A piece (d dense, x expert parameters of the walk's layer) into the open
 * bucket, and its call where grad_bucket_calls = tensor. */
static void bucket_add(bucket_walk *w, double d, double x)
{
	plan_grad_bucket *k = &w->open;
	k->dense_bytes += d * w->gbytes;
	k->expert_bytes += x * w->gbytes;
	if (k->last < 0)
		k->last = w->cur;
	k->layer = w->cur;
	if (!calls_tensors(w->s) || !(d > 0))
		return;
	if (k->ncalls < PLAN_BUCKET_CALLS)
		k->calls[k->ncalls++] = d * w->gbytes;
	else
		k->calls[PLAN_BUCKET_CALLS - 1] += d * w->gbytes;
}

/* The next bucket (its layers, chunk, bytes and calls; the launch left to
 * the caller); false after the last. */
static bool bucket_next(bucket_walk *w, plan_grad_bucket *k)
{
	for (;;) {
		if (w->ip == w->np) { /* the next layer's pieces */
			if (w->l < w->lo)
				return false;
			walk_chunk(w, w->l);
			w->cur = w->l--;
			w->head = false;
			w->np = layer_pieces(w->s, plan_global_layer(w->s, w->stage, w->cur),
					     by_tensor(w->s), w->pd, w->px);
			if (w->cur == w->lo && w->embed > 0) {
				if (by_tensor(w->s))
					w->pd[w->np] = w->embed, w->px[w->np++] = 0;
				else
					w->pd[w->np - 1] += w->embed;
			}
			w->ip = 0;
		}
		bucket_add(w, w->pd[w->ip], w->px[w->ip]);
		w->ip++;
		bool end = w->ip == w->np && !w->head; /* a layer's end */
		bool lowest = end && w->cur == w->lo;
		bool cut = end && w->cur == w->chunk_lo && w->s->fw.first_stage_buckets;
		if (!end && !split_tensors(w->s))
			continue;
		double size = chunk_bucket_bytes(w->s, w->stage, w->chunk);
		if (w->first && first_bucket(w->s) > 0 && size < 1e300)
			size = fmin(size, first_bucket(w->s) * w->gbytes);
		if (w->open.dense_bytes + w->open.expert_bytes < size && !lowest && !cut)
			continue;
		*k = w->open;
		k->chunk = w->chunk;
		w->open = (plan_grad_bucket){.layer = -1, .last = -1};
		w->first = false;
		return true;
	}
}

double plan_grad_bytes(const plan_scenario *s)
{
	return (s->plan.fp32_grads || s->dtype == HW_FP32 || s->dtype == HW_TF32) ? 4.0 : 2.0;
}

net_coll plan_grad_coll(const plan_scenario *s)
{
	return s->plan.zero >= 1 && s->fw.zero_grad_op == PLAN_GRAD_OP_REDUCE_SCATTER
		       ? NET_REDUCESCATTER
		       : NET_ALLREDUCE;
}

double plan_call_wait_back(const net_cluster *c, const net_group *g, double x, bool *waited)
{
	double back = *waited ? net_sync_delay(c, g, x) : 0;
	*waited = *waited || x > 0;
	return back;
}

double plan_call_group_wait(const net_cluster *c, const net_group *g,
			    const double *bytes, int n, double scale)
{
	/* each call that sends bytes is timed with its own wait, D(m) whatever
	 * its size: all but the first give theirs back (as build_add_call_group) */
	double back = 0;
	bool waited = false;
	for (int i = 0; i < n; i++)
		back -= plan_call_wait_back(c, g, bytes[i] * scale, &waited);
	return back;
}

/* flush_bucket's collectives (below), each timed alone with net_collective
 * (what `podsim explain` lists; the graph's tasks take build_comm_cost's
 * time, the flow model's under network = flow), and the casts around them
 * where the wire is narrower than the buffer. */
double plan_grad_bucket_time(const plan_scenario *s, const plan_groups *g,
			     const plan_grad_bucket *k)
{
	double gbytes = plan_grad_bytes(s), wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	double t = 0, dense = k->dense_bytes * wire, experts = k->expert_bytes * wire;
	net_coll coll = plan_grad_coll(s);
	net_cost c;
	if (g->dp.size > 1 && dense > 0) {
		for (int i = 0; i < (k->ncalls > 0 ? k->ncalls : 1); i++)
			if (net_collective(&s->cluster, coll, &g->shard,
					   k->ncalls > 0 ? k->calls[i] * wire : dense, &c) == SIM_OK)
				t += c.time_s;
		t += plan_call_group_wait(&s->cluster, &g->shard, k->calls, k->ncalls, wire);
		if (g->replica.size > 1 &&
		    net_collective(&s->cluster, NET_ALLREDUCE, &g->replica, dense / g->shard.size,
				   &c) == SIM_OK)
			t += c.time_s;
	}
	if (g->edp.size > 1 && experts > 0 &&
	    net_collective(&s->cluster, coll, &g->edp, experts, &c) == SIM_OK)
		t += c.time_s;
	/* the casts around a narrower wire (flush_bucket's cast_pass) */
	if (g->dp.size > 1)
		t += 2 * plan_grad_cast_time(s, k->dense_bytes / gbytes);
	if (g->edp.size > 1)
		t += 2 * plan_grad_cast_time(s, k->expert_bytes / gbytes);
	return t;
}

/* A memory-bound pass of `sec` seconds on the DP stream after dep (the
 * casts around a narrower wire, plan_grad_cast_bytes); dep itself when
 * there is none. UINT32_MAX on OOM. */
static uint32_t cast_pass(builder *b, int stage, double sec, uint32_t dep, int16_t at)
{
	if (!(sec > 0) || dep == UINT32_MAX)
		return dep;
	plan_task t = {sim_time_from_s(sec), stage, PLAN_STREAM_DP, PLAN_TASK_DP, at, -1, 0, 0, 0};
	return plan_graph_add(b->g, &t, &dep, 1);
}

/* One bucket: the dense bytes reduced in the shard group (the whole dp x cp
 * group unless hybrid sharding), then all-reduced over the shard's replicas
 * when there are some; the expert bytes over the expert-DP group: bucket k's
 * bytes x wire on the wire, its dense part in its calls (one collective
 * each, in order) or in one; cast and cast_e the seconds of each of the two
 * kernels around a part's collectives (one before, tensor.to(
 * communication_data_type), one after, tensor.copy_; DeepSpeed 38327e07
 * engine.py:2491-2513: (g + w) bytes per value each, plan_grad_cast_time),
 * 0 when the wire is the buffer. Appends the last task of each reduction (what the
 * optimizer waits for) and the shard a rank keeps. Returns false on OOM. */
static bool flush_bucket(builder *b, int stage, net_coll coll, const plan_grad_bucket *k,
			 double wire, double cast, double cast_e, uint32_t dep, int16_t at,
			 uint32_t *out, double *shard_bytes, int *n)
{
	double acc = k->dense_bytes * wire, acc_e = k->expert_bytes * wire;
	if (b->dp.size > 1 && acc > 0) {
		uint32_t pre = cast_pass(b, stage, cast, dep, at), id = pre;
		/* one collective, or one per tensor in a NCCL group */
		if (pre != UINT32_MAX)
			id = k->ncalls > 0 ? build_add_call_group(b, &b->shard, stage, coll, k->calls,
								  k->ncalls, wire, pre, at)
					   : build_add_dp_on(b, &b->shard, stage, coll, acc, &pre, 1, at);
		if (id != UINT32_MAX && b->replica.size > 1)
			id = build_add_dp_on(b, &b->replica, stage, NET_ALLREDUCE,
					     acc / b->shard.size, &id, 1, at);
		id = cast_pass(b, stage, cast, id, at);
		if (id == UINT32_MAX)
			return false;
		shard_bytes[*n] = acc / b->shard.size;
		out[(*n)++] = id;
	}
	if (b->edp.size > 1 && acc_e > 0) {
		uint32_t pre = cast_pass(b, stage, cast_e, dep, at);
		uint32_t id = pre == UINT32_MAX ? pre
						: build_add_dp_on(b, &b->edp, stage, coll, acc_e, &pre, 1, at);
		id = cast_pass(b, stage, cast_e, id, at);
		if (id == UINT32_MAX)
			return false;
		shard_bytes[*n] = acc_e / b->edp.size;
		out[(*n)++] = id;
	}
	return true;
}

/* The backward step after which each chunk's buckets go out under
 * build_chunk_sync (Megatron-Core's aligned launch, above): after its k-th
 * backward step (0-based, in plan_schedule_order) a rank launches the chunk
 * whose last micro-batch was its step k - stage; a chunk whose last
 * micro-batch is among the stage's last `stage` backward steps has no such
 * step and goes after the schedule (-1). step[c] for c < vpp; all -1 when
 * there is no chunk sync. SIM_OK or SIM_ENOMEM. */
int build_chunk_launch(const plan_scenario *s, int stage, int *step)
{
	const plan_spec *p = &s->plan;
	for (int c = 0; c < p->vpp; c++)
		step[c] = -1;
	if (!build_chunk_sync(s))
		return SIM_OK;
	int m = plan_microbatches(p), n = plan_schedule_steps(p->schedule, m, p->vpp), nb = 0;
	plan_op *order = malloc((size_t)n * sizeof *order);
	if (!order)
		return SIM_ENOMEM;
	plan_schedule_order(p->schedule, p->pp, m, p->vpp, plan_vp_group(p), plan_warm_extra(p),
			    stage, order);
	for (int i = 0; i < n; i++)
		nb += order[i].backward && !order[i].weight;
	for (int i = 0, k = 0; i < n; i++) {
		if (!order[i].backward || order[i].weight)
			continue;
		if (order[i].mb == m - 1 && k + stage < nb)
			step[order[i].chunk] = k + stage;
		k++;
	}
	free(order);
	return SIM_OK;
}

/* The buckets of build_emit_grad_buckets, each with its launch: after its
 * lowest layer's last backward under overlap_grad_reduce (plan_one_bucket
 * aside: a rank after the first without interleaving reduces its one bucket
 * after its backward, pipeline_parallel/schedules.py:2454-2480 at d98e8a64),
 * at its chunk's aligned launch point under build_chunk_sync (or after the
 * backward where the chunk has none), else after the whole backward. */
int plan_grad_buckets(const plan_scenario *s, int stage, plan_grad_bucket *out, int cap)
{
	const plan_spec *p = &s->plan;
	if (s->inference || p->zero >= 3)
		return 0; /* ZeRO-3 reduce-scatters per layer inside the backward chain */
	double gbytes = plan_grad_bytes(s);
	int *step = malloc((size_t)p->vpp * sizeof *step);
	if (!step || build_chunk_launch(s, stage, step) != SIM_OK) {
		free(step);
		return SIM_ENOMEM;
	}
	bool overlap = p->overlap_grad_reduce && !plan_one_bucket(s, stage);
	bool csync = build_chunk_sync(s);
	bucket_walk w;
	bucket_walk_init(&w, s, stage, gbytes);
	int n = 0;
	int nbwd = plan_microbatches(p) * p->vpp; /* backward steps (1F1B, chunk sync) */
	plan_grad_bucket b;
	while (n < cap && bucket_next(&w, &b)) {
		plan_grad_bucket *k = &out[n++];
		*k = b;
		k->launch = PLAN_LAUNCH_END, k->step = -1, k->at_end = true;
		if (csync && step[k->chunk] >= 0)
			k->launch = PLAN_LAUNCH_CHUNK, k->step = step[k->chunk],
			k->at_end = step[k->chunk] == nbwd - 1;
		else if (overlap && !csync)
			k->launch = PLAN_LAUNCH_LAYER, k->at_end = k->layer == w.lo;
	}
	/* a stage holding only the embedding or the output layer */
	if (plan_stage_layers(s, stage) == 0 && n < cap)
		out[n++] = (plan_grad_bucket){-1, -1, 0, w.open.dense_bytes + w.embed * gbytes, 0,
					      PLAN_LAUNCH_END, -1, true, 0, {0}};
	free(step);
	return n;
}

/* Gradient buckets in backward order (last layer first): the dense gradients
 * over the dp x cp ranks, an MoE layer's expert gradients over the ranks that
 * hold the same experts (edp = tp*cp*dp/ep); a bucket closes when the two
 * together reach bucket_size (plan_grad_buckets, which explain prints).
 * Returns the number of DP task ids written to out (at most 2 x
 * plan_grad_bucket_cap), or -1 on OOM. */
int build_emit_grad_buckets(builder *b, int stage, uint32_t last_bwd,
			    const uint32_t *layer_end, const uint32_t *sync_at, uint32_t *out,
			    double *shard_bytes)
{
	const plan_scenario *s = b->s;
	const plan_spec *p = &s->plan;
	if ((b->dp.size == 1 && b->edp.size == 1) || p->zero >= 3)
		return 0;
	double gbytes = plan_grad_bytes(s);
	/* bytes on the wire per byte of gradient (grad_compression, or the
	 * framework's narrower wire dtype); the buckets close on the gradients'
	 * own bytes */
	double wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	net_coll coll = plan_grad_coll(s);
	int cap = plan_grad_bucket_cap(s), n = 0;
	plan_grad_bucket *k = malloc((size_t)cap * sizeof *k);
	int nb = k ? plan_grad_buckets(s, stage, k, cap) : SIM_ENOMEM;
	/* Each bucket waits for its launch (plan_grad_buckets): its lowest
	 * layer's last backward, its chunk's launch point (pipe_ids.sync_at),
	 * or the stage's last backward task, last_bwd, which with synchronous
	 * p2p includes the last gradient send. ZeRO-2's per-micro-batch
	 * reductions (sync_at NULL) launch a chunk's buckets as overlap says. */
	bool overlap = p->overlap_grad_reduce && !plan_one_bucket(s, stage);
	for (int i = 0; i < nb && n >= 0; i++) {
		uint32_t dep = last_bwd;
		if (k[i].launch == PLAN_LAUNCH_CHUNK && sync_at)
			dep = sync_at[k[i].chunk] != UINT32_MAX ? sync_at[k[i].chunk] : last_bwd;
		else if (k[i].launch == PLAN_LAUNCH_LAYER ||
			 (k[i].launch == PLAN_LAUNCH_CHUNK && overlap))
			dep = layer_end[k[i].layer];
		if (!flush_bucket(b, stage, coll, &k[i], wire,
				  plan_grad_cast_time(s, k[i].dense_bytes / gbytes),
				  plan_grad_cast_time(s, k[i].expert_bytes / gbytes), dep,
				  (int16_t)k[i].layer, out, shard_bytes, &n))
			n = -1;
	}
	free(k);
	return nb < 0 ? -1 : n;
}

/* overlap_param_gather (Megatron-Core --overlap-param-gather with the
 * distributed optimizer): after the optimizer step each bucket group's
 * updated parameter shards are all-gathered asynchronously, the first at
 * once and each later one dispatched when the one before is waited for
 * (next_param_gather_bucket_group, core/distributed/
 * distributed_data_parallel.py:369-380 at d98e8a64), and a module's forward
 * pre-hook waits only for the gather of its parameters' bucket group
 * (:517-550), so the gathers run under the next step's forward. The buckets
 * are the gradient buckets (the same buffers: chunk_bucket_bytes, made in
 * backward order, so the first layers share the last bucket; one per chunk
 * after the first stage's first chunk). In a steady-state step this is
 * modelled as every bucket's gather issued at the step start on the DP
 * stream in forward order (first layers first; the stream runs them back to
 * back, as the one-bucket prefetch does once compute lags behind), and each
 * layer's first forward of the step (micro-batch 0 of its chunk) waiting for
 * its bucket's: only what the compute before a bucket's first use cannot hide
 * is exposed. Bytes per bucket: its 16-bit parameters, the dense part over
 * the shard group, the experts over the expert-DP group (as the gradients).
 * pg[l] gets, per stage-local layer, the bucket's last gather (the DP stream
 * runs a bucket's two gathers in order). Returns SIM_OK or SIM_ENOMEM. */
int build_emit_param_gather(builder *b, int stage, uint32_t *pg)
{
	const plan_scenario *s = b->s;
	int layers = plan_stage_layers(s, stage);
	double gbytes = plan_grad_bytes(s);
	double wbytes = hw_dtype_bytes(s->dtype == HW_FP8 ? HW_BF16 : s->dtype);
	/* the gradients' buckets, as build_emit_grad_buckets closes them
	 * (chunk_bucket_bytes, grad_bucket_split), in backward order */
	int cap = plan_grad_bucket_cap(s), nb = 0;
	plan_grad_bucket *bk = malloc((size_t)cap * sizeof *bk);
	if (!bk)
		return SIM_ENOMEM;
	bucket_walk w;
	bucket_walk_init(&w, s, stage, gbytes);
	while (nb < cap && bucket_next(&w, &bk[nb]))
		nb++;
	for (int k = 0; k < layers; k++) /* the frozen prefix: nothing to gather */
		pg[k] = UINT32_MAX;
	/* gathers in forward order, the last bucket first; a layer waits for
	 * the last gather holding any of its parameters (a bucket that closed
	 * inside it holds its later ones), the stream running them in order */
	int rc = SIM_OK;
	for (int i = nb - 1; i >= 0 && rc == SIM_OK; i--) {
		double dense = bk[i].dense_bytes / gbytes, experts = bk[i].expert_bytes / gbytes;
		uint32_t id = UINT32_MAX;
		bool want = false;
		if (b->shard.size > 1 && dense > 0)
			want = true, id = build_add_dp_on(b, &b->shard, stage, NET_ALLGATHER,
							  dense * wbytes, NULL, 0, -1);
		if (b->edp.size > 1 && experts > 0 && (!want || id != UINT32_MAX))
			want = true, id = build_add_dp_on(b, &b->edp, stage, NET_ALLGATHER,
							  experts * wbytes, NULL, 0, -1);
		if (want && id == UINT32_MAX)
			rc = SIM_ENOMEM;
		for (int k = bk[i].layer; k >= 0 && k <= bk[i].last && k < layers; k++)
			pg[k] = id;
	}
	free(bk);
	return rc;
}
