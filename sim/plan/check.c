/* check.c - is the plan executable on this model and cluster? Every failed
 * condition is reported at the [parallel] key it involves, all at once. */
#include "plan.h"
#include "../topo/topo.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void err_at(const plan_scenario *s, sim_diag *diag, const char *section, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void err_at(const plan_scenario *s, sim_diag *diag, const char *section, const char *key,
		   const char *fmt, ...)
{
	conf_loc loc = conf_key_loc(s->doc, section, key);
	va_list ap;
	va_start(ap, fmt);
	sim_diag_vadd(diag, SIM_DIAG_ERROR, loc.path, loc.line, fmt, ap);
	va_end(ap);
}

/* Of several keys involved in one error, the one the user's own file sets
 * (so the message points where they typed), else the first. */
static const char *user_key(const plan_scenario *s, const char *const *keys, size_t n)
{
	const char *root = conf_root_path(s->doc);
	for (size_t i = n; i-- > 0;) {
		conf_loc loc = conf_key_loc(s->doc, "parallel", keys[i]);
		if (loc.path && (!strcmp(loc.path, root) || loc.line == 0) &&
		    conf_get(s->doc, "parallel", keys[i], NULL))
			return keys[i];
	}
	return keys[0];
}

/* nanotron's balancing (plan.h, plan_layout): the blocks embedding, L
 * layers, final norm, lm_head, fp32 cast, loss, with costs 0, cost_layer,
 * 0, cost_head, 0, 0, assigned in order to stage k while their cumulative
 * cost has not passed total (k + 1) / pp; the block that passes it is the
 * stage's last (nanotron models/base.py:216-236 at 0e0a27ea). Writes the
 * layers per stage to out (when not NULL) and the stages of the lm_head, the
 * fp32 cast and the loss to tail; NULL, or why not. */
static const char *cost_split(const plan_spec *p, int layers, int *out, int tail[3])
{
	int pp = p->pp, k = 0, last = -1;
	double total = (double)layers * p->cost_layer + p->cost_head, cum = 0;
	if (out)
		for (int v = 0; v < pp; v++)
			out[v] = 0;
	/* blocks: 0 embedding, 1..L layers, L+1 norm, L+2 lm_head, L+3 cast,
	 * L+4 loss */
	for (int b = 0; b < layers + 5; b++) { /* k <= pp - 1: the last threshold is the total */
		last = k;
		cum += b >= 1 && b <= layers ? p->cost_layer : b == layers + 2 ? p->cost_head : 0;
		if (b >= 1 && b <= layers && out)
			out[k]++;
		if (b >= layers + 2) /* the lm_head, the fp32 cast, the loss */
			tail[b - layers - 2] = k;
		if (cum > total * ((double)(k + 1) / (double)pp))
			k++;
	}
	if (last < pp - 1)
		return "the cost balancing leaves a stage without a block";
	return NULL;
}

/* Whether plan_layout splits p by the cost rule: the framework's rule, no
 * interleaving, a pipeline, the block costs known and no layout key set. */
static bool cost_rule(const plan_spec *p)
{
	return p->uneven == PLAN_UNEVEN_COST && p->vpp == 1 && p->pp > 1 && p->cost_layer > 0 &&
	       p->first_stage_layers <= 0 && p->last_stage_layers <= 0 &&
	       !p->embedding_in_split && !p->loss_in_split;
}

bool plan_layout_tail(const plan_spec *p, int layers, int tail[3])
{
	tail[0] = tail[1] = tail[2] = -1;
	if (!cost_rule(p) || cost_split(p, layers, NULL, tail)) {
		tail[0] = tail[1] = tail[2] = -1;
		return false;
	}
	return true;
}

const char *plan_layout(const plan_spec *p, int layers, int *out)
{
	int64_t V = (int64_t)p->pp * p->vpp;
	if (V > 1048576)
		return "too many virtual stages";
	int first = p->first_stage_layers, last = p->last_stage_layers;
	if (first > 0 || last > 0) {
		int64_t mid = V - (first > 0) - (last > 0), rest = (int64_t)layers - first - last;
		if (V == 1 || (first > 0 && last > 0 && V < 2))
			return "first_stage_layers/last_stage_layers need pp*vpp > 1";
		if (rest < 0)
			return "first_stage_layers + last_stage_layers exceed the layers";
		if (mid > 0 && rest < mid)
			return "the other stages would hold no layers";
		if ((mid == 0 && rest != 0) || (mid > 0 && rest % mid != 0))
			return "the other stages cannot split the remaining layers evenly";
		for (int64_t v = 0; v < V; v++)
			out[v] = mid > 0 ? (int)(rest / mid) : 0;
		if (first > 0)
			out[0] = first;
		if (last > 0)
			out[V - 1] = last;
		return NULL;
	}
	if (cost_rule(p)) {
		int tail[3];
		return cost_split(p, layers, out, tail);
	}
	int64_t units = (int64_t)layers + p->embedding_in_split + p->loss_in_split;
	if ((units % V != 0 || units / V < 1) && p->uneven != PLAN_UNEVEN_ERROR &&
	    !p->embedding_in_split && !p->loss_in_split && V > 1) {
		int64_t mtp = p->mtp_units > 0 ? p->mtp_units : 0;
		int64_t u = (int64_t)layers + 2 + mtp, q = u / V, r = u % V;
		if (q < 1)
			return "fewer layers than virtual stages";
		for (int64_t v = 0; v < V; v++)
			out[v] = (int)(q + (v >= 1 && v <= r ? 1 : 0));
		out[0] -= 1;
		out[V - 1] -= (int)(1 + mtp);
		if (out[V - 1] < 0)
			return "the MTP modules and the loss outnumber the last stage's units";
		return NULL;
	}
	if (units % V != 0 || units / V < 1)
		return "no even split";
	for (int64_t v = 0; v < V; v++)
		out[v] = (int)(units / V);
	out[0] -= p->embedding_in_split;
	out[V - 1] -= p->loss_in_split;
	if (out[0] < 0 || out[V - 1] < 0)
		return "an end stage would hold fewer than zero layers";
	return NULL;
}

/* Megatron refuses uneven pipelines unless the first/last stage sizes (or the
 * embedding/loss accounting) are given; so do we, with the way out named. */
static int check_layout(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int64_t V = (int64_t)p->pp * p->vpp;
	int *tmp = malloc((size_t)V * sizeof *tmp);
	if (!tmp)
		return 0; /* plan_build reports the OOM */
	const char *why = plan_layout(p, s->model.layers, tmp);
	free(tmp);
	if (!why)
		return 0;
	static const char *const keys[] = {"pp", "vpp", "first_stage_layers", "last_stage_layers",
					   "embedding_in_split", "loss_in_split"};
	bool cost = cost_rule(p);
	err_at(s, diag, "parallel", user_key(s, keys, 6),
	       "pp*vpp = %d*%d virtual stages, %d layers: %s%s; %s",
	       p->pp, p->vpp, s->model.layers, why,
	       p->uneven == PLAN_UNEVEN_ERROR ? " (the framework splits only evenly: "
						"uneven_split = error)"
					      : "",
	       cost ? "use fewer pipeline stages (the framework balances the stages by their blocks' "
		      "costs, uneven_split = cost, and has no layout option)"
		    : "set first_stage_layers / last_stage_layers, or embedding_in_split / "
		      "loss_in_split");
	return 1;
}

static int check_sizes(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	int64_t prod = p->tp, tmp;
	bool ok = sim_mul_i64(prod, p->pp, &tmp) && sim_mul_i64(tmp, p->dp, &tmp) &&
		  sim_mul_i64(tmp, p->cp, &prod);
	if (!ok || prod != s->cluster.gpus) {
		char got[32];
		if (ok)
			snprintf(got, sizeof got, "%lld", (long long)prod);
		else
			snprintf(got, sizeof got, "more than 2^63");
		/* the dp that would fill the cluster, when the rest divides it */
		char hint[96] = "";
		int64_t rest = (int64_t)p->tp * p->pp * p->cp;
		if (ok && rest > 0 && s->cluster.gpus % rest == 0)
			snprintf(hint, sizeof hint, ": dp = %lld would fill them",
			         (long long)(s->cluster.gpus / rest));
		static const char *const dims[] = {"tp", "pp", "dp", "cp"};
		err_at(s, diag, "parallel", user_key(s, dims, 4),
		       "tp*pp*dp*cp = %d*%d*%d*%d = %s, but the cluster has %d GPUs (%d nodes x %d)%s",
		       p->tp, p->pp, p->dp, p->cp, got, s->cluster.gpus, s->cluster.nodes,
		       s->cluster.node.gpus, hint);
		errors++;
	}
	if (s->model.heads % p->tp != 0) {
		err_at(s, diag, "parallel", "tp", "tp = %d does not divide the model's %d heads",
		       p->tp, s->model.heads);
		errors++;
	} else if (s->model.kv_heads % p->tp != 0 && p->tp % s->model.kv_heads != 0) {
		err_at(s, diag, "parallel", "tp",
		       "tp = %d and the model's %d kv_heads: one must divide the other", p->tp,
		       s->model.kv_heads);
		errors++;
	}
	errors += check_layout(s, diag);
	int64_t per_step = (int64_t)p->micro_batch * p->dp;
	if (p->global_batch % per_step != 0) {
		err_at(s, diag, "parallel", "global_batch",
		       "global_batch = %d is not a multiple of micro_batch*dp = %d*%d = %lld",
		       p->global_batch, p->micro_batch, p->dp, (long long)per_step);
		errors++;
	}
	return errors;
}

/* Expert parallelism (Megatron-Core MoE with expert TP 1): the ep ranks of an
 * expert group are consecutive ranks of a stage's tp*cp*dp, which ep must
 * divide; the experts must split evenly; TP needs SP (Megatron refuses MoE
 * with TP and no SP). */
static int check_moe(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	const work_model *m = &s->model;
	int errors = 0;
	if (m->moe_experts == 0) {
		if (p->ep > 1) {
			err_at(s, diag, "parallel", "ep",
			       "ep = %d: expert parallelism needs an MoE model (model.moe_experts > 0)",
			       p->ep);
			errors++;
		}
		return errors;
	}
	int64_t stage_ranks = (int64_t)p->tp * p->cp * p->dp;
	if (m->moe_experts % p->ep != 0 || stage_ranks % p->ep != 0) {
		err_at(s, diag, "parallel", "ep",
		       "ep = %d must divide the %d experts and tp*cp*dp = %lld", p->ep,
		       m->moe_experts, (long long)stage_ranks);
		errors++;
	}
	/* Megatron-Core refuses MoE under TP without SP; DeepSpeed-MoE (gshard)
	 * runs it, dropping the TP ranks' duplicate tokens (D = microsoft/
	 * DeepSpeed 38327e07 deepspeed/moe/sharded_moe.py:614-626; it drops
	 * whenever the TP group has more than one rank, under SP too, and
	 * Megatron-DeepSpeed does not refuse SP with MoE) */
	static const char *const sp_keys[] = {"tp", "sequence_parallel"};
	if (p->tp > 1 && !p->sequence_parallel && p->moe_dispatcher != WORK_MOE_GSHARD) {
		err_at(s, diag, "parallel", user_key(s, sp_keys, 2),
		       "MoE with tp = %d needs sequence_parallel = true (as Megatron-Core)", p->tp);
		errors++;
	}
	/* ZeRO-3 gathers and reduces an MoE layer's experts with the layer, or
	 * under ep > 1 over the expert-DP group (plan_zero3_layer); DeepSpeed's
	 * IPG buckets hold one group's gradients: its MoE layers are refused
	 * under ZeRO-3 (engine.py:1675 at 38327e07) */
	if (p->zero >= 3 && p->ep > 1 && s->fw.zero3_reduce == PLAN_ZERO3_REDUCE_BUCKET) {
		err_at(s, diag, "parallel", "ep",
		       "zero = 3 with ep = %d under zero3_reduce = bucket (DeepSpeed's IPG buckets) "
		       "is not simulated: DeepSpeed refuses its MoE layers under ZeRO-3",
		       p->ep);
		errors++;
	}
	return errors;
}

/* moe_deepep_num_sms under the fused (DeepEP) dispatcher: even (DeepEP's
 * Buffer.set_num_sms asserts it, deep_ep/buffer.py:156 at deepseek-ai/DeepEP
 * e02e4d2; its kernels run num_sms / 2 channels of two blocks), and fewer
 * than the GPU's SMs (plan_ep_share). */
static int check_deepep(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	if (!plan_ep_deepep(s))
		return 0;
	if (p->deepep_sms % 2 != 0) {
		err_at(s, diag, "parallel", "moe_deepep_num_sms",
		       "moe_deepep_num_sms = %d must be even (DeepEP runs its kernels as channels of "
		       "two SMs)",
		       p->deepep_sms);
		return 1;
	}
	if (p->deepep_sms >= s->gpu.sm_count) {
		err_at(s, diag, "parallel", "moe_deepep_num_sms",
		       "moe_deepep_num_sms = %d leaves none of the %s's %d SMs to the compute beside "
		       "its kernels",
		       p->deepep_sms, s->gpu.name, s->gpu.sm_count);
		return 1;
	}
	return 0;
}

/* moe_a2a_overlap and delay_wgrad_compute: Megatron-Core's constraints
 * (TransformerConfig.__post_init__, megatron/core/transformer/
 * transformer_config.py:3002-3077 at NVIDIA/Megatron-LM d98e8a64; the same
 * asserts in core_v0.14.0): expert parallelism (ep > 1; podsim also needs an
 * MoE model), the alltoall or flex dispatcher (podsim's alltoall and fused
 * both qualify), no full recomputation, a bf16 or fp16 model (fp8 recipes run
 * over bf16), with pp > 1 a virtual pipeline (the combined path exists only in
 * the interleaved schedule and without pipelining, schedules.py:778 and
 * 1485), and delay_wgrad_compute only with the overlap. schedule = 1f1b
 * because those are 1F1B's two paths. */
static int check_a2a_overlap(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	if (p->delay_wgrad && !p->moe_a2a_overlap) {
		err_at(s, diag, "parallel", "delay_wgrad_compute",
		       "delay_wgrad_compute needs moe_a2a_overlap = true (as Megatron-Core)");
		errors++;
	}
	if (!p->moe_a2a_overlap)
		return errors;
	if (s->model.moe_experts == 0 || p->ep <= 1) {
		err_at(s, diag, "parallel", "moe_a2a_overlap",
		       "moe_a2a_overlap needs expert parallelism: an MoE model with ep > 1 (here %s, "
		       "ep = %d)",
		       s->model.moe_experts == 0 ? "a dense model" : "an MoE model", p->ep);
		errors++;
	}
	if (p->schedule != PLAN_SCHED_1F1B) {
		err_at(s, diag, "parallel", "moe_a2a_overlap",
		       "moe_a2a_overlap needs schedule = 1f1b (Megatron-Core combines the forward and "
		       "backward of 1F1B's steady steps)");
		errors++;
	} else if (p->pp > 1 && p->vpp <= 1) {
		static const char *const keys[] = {"moe_a2a_overlap", "pp", "vpp"};
		err_at(s, diag, "parallel", user_key(s, keys, 3),
		       "moe_a2a_overlap with pp = %d needs vpp > 1 (Megatron-Core runs it in the "
		       "interleaved schedule only)",
		       p->pp);
		errors++;
	}
	if (p->recompute == WORK_RECOMPUTE_FULL) {
		static const char *const keys[] = {"moe_a2a_overlap", "recompute"};
		err_at(s, diag, "parallel", user_key(s, keys, 2),
		       "moe_a2a_overlap does not run with recompute = full (as Megatron-Core)");
		errors++;
	}
	if (s->dtype == HW_FP32 || s->dtype == HW_TF32) {
		err_at(s, diag, "parallel", "moe_a2a_overlap",
		       "moe_a2a_overlap needs a bf16 or fp16 model (fp8 runs over bf16), not %s",
		       s->dtype == HW_FP32 ? "fp32" : "tf32");
		errors++;
	}
	return errors;
}

/* ZeRO-Offload needs a ZeRO stage (DeepSpeed's rule); parameter offload needs
 * ZeRO-3; the CPU step needs the node's DRAM bandwidth and NVMe its drives. */
static int check_offload(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	const net_node *nd = &s->cluster.node;
	int errors = 0;
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE && s->inference) {
		err_at(s, diag, "parallel", "offload_optimizer",
		       "offload_optimizer: inference has no optimizer (offload_params streams weights)");
		errors++;
	}
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE && p->zero < 1) {
		err_at(s, diag, "parallel", "offload_optimizer",
		       "offload_optimizer needs zero >= 1 (ZeRO-Offload partitions the states)");
		errors++;
	}
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE && !(nd->host_mem_Bps > 0)) {
		err_at(s, diag, "parallel", "offload_optimizer",
		       "offload_optimizer runs Adam on the CPU: node '%s' has no host_mem_bw", nd->name);
		errors++;
	}
	if (p->offload_params != PLAN_OFFLOAD_NONE && p->zero < 3 && !s->inference) {
		err_at(s, diag, "parallel", "offload_params",
		       "offload_params needs zero = 3 (ZeRO-Infinity streams partitioned parameters)");
		errors++;
	}
	bool nvme = p->offload_optimizer == PLAN_OFFLOAD_NVME || p->offload_params == PLAN_OFFLOAD_NVME;
	if (nvme && !(nd->nvme_Bps > 0 && nd->nvme_bytes > 0)) {
		err_at(s, diag, "parallel",
		       p->offload_optimizer == PLAN_OFFLOAD_NVME ? "offload_optimizer" : "offload_params",
		       "offloading to NVMe: node '%s' needs nvme and nvme_bw", nd->name);
		errors++;
	}
	return errors;
}

/* Context parallelism: its rank count, the load-balanced split, flash. */
static int check_context_parallel(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	bool ulysses = s->fw.cp_comm == PLAN_CP_ALLTOALL;
	if (p->cp > WORK_MAX_CP) {
		err_at(s, diag, "parallel", "cp", "cp = %d: at most %d context-parallel ranks are supported",
		       p->cp, WORK_MAX_CP);
		errors++;
	} else if (p->cp > 1 && ulysses) {
		/* Ulysses splits the sequence and then the TP rank's heads */
		int heads = s->model.heads / (p->tp > 0 ? p->tp : 1);
		if (s->model.seq_len % p->cp != 0 || heads % p->cp != 0) {
			err_at(s, diag, "parallel", "cp",
			       "cp = %d: DeepSpeed-Ulysses needs seq_len (%d) and the heads of a TP "
			       "rank (%d) to be multiples of cp (megatron/model/transformer.py:618 at "
			       "Megatron-DeepSpeed f4157bea)",
			       p->cp, s->model.seq_len, heads);
			errors++;
		}
	} else if (p->cp > 1 && s->model.seq_len % (2 * p->cp) != 0) {
		err_at(s, diag, "parallel", "cp",
		       "cp = %d: the load-balanced split needs seq_len (%d) to be a multiple of 2*cp",
		       p->cp, s->model.seq_len);
		errors++;
	}
	if (p->cp > 1 && !s->flash && !ulysses) {
		err_at(s, diag, "parallel", "cp",
		       "context parallelism runs ring attention on fused kernels: set train.attention = flash");
		errors++;
	}
	return errors;
}

/* torch pipelining's rounds (plan_vp_group, PLAN_VP_TORCH): its
 * ScheduleInterleaved1F1B runs m micro-batches in r = max(1, m // pp)
 * rounds of equal size and raises a ValueError where m is no multiple of r
 * (torch 2.14.1 distributed/pipelining/schedules.py:3193-3200); it has no
 * knob for the round's size, so a vp_group other than its m / r is no plan
 * it runs. */
static int check_vp_rounds(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p), r = m / p->pp > 1 ? m / p->pp : 1;
	if (m % r != 0) {
		err_at(s, diag, "parallel", "vpp",
		       "interleaved 1F1B under torch pipelining (framework %s) runs the %d "
		       "micro-batches per step in max(1, m // pp) = %d rounds of equal size: %d is "
		       "no multiple of %d",
		       s->fw.name, m, r, m, r);
		return 1;
	}
	if (p->vp_group > 0 && p->vp_group != m / r) {
		err_at(s, diag, "parallel", "vp_group",
		       "vp_group = %d: torch pipelining (framework %s) sizes its rounds itself, m / "
		       "max(1, m // pp) = %d / %d = %d micro-batches each (leave vp_group at 0)",
		       p->vp_group, s->fw.name, m, r, m / r);
		return 1;
	}
	return 0;
}

/* The interleaved schedule's micro-batch groups (plan_vp_group): pp of
 * them, needing m a multiple of pp, before Megatron-Core's groups; with
 * them N in [pp, m] and a last group of 0 or at least pp micro-batches
 * (schedules.py:1160-1180 at d98e8a64, ValueError and RuntimeError);
 * torch pipelining's rounds their own rule (check_vp_rounds). */
static int check_vp_groups(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	bool grouped = p->vpp > 1 && !plan_sched_v(p->schedule) &&
	               p->schedule != PLAN_SCHED_LOOPED_BFS &&
	               p->global_batch % ((int64_t)p->micro_batch * p->dp) == 0;
	if (grouped && p->vp_groups && p->vp_rule == PLAN_VP_TORCH) {
		errors += check_vp_rounds(s, diag);
	} else if (grouped) {
		int m = plan_microbatches(p), n = plan_vp_group(p);
		if (n == p->pp && m < p->pp && s->fw.vp_group) {
			/* no group fits: each holds pp to m micro-batches */
			err_at(s, diag, "parallel", p->vp_group > 0 ? "vp_group" : "vpp",
			       "interleaved 1F1B needs at least pp = %d micro-batches per step (%d): "
			       "each group of the schedule holds pp to all of them (Megatron-Core's "
			       "rule)",
			       p->pp, m);
			errors++;
		} else if (n == p->pp && m % p->pp != 0) {
			char why[96] = "";
			if (!s->fw.vp_group)
				snprintf(why, sizeof why, " under this framework (runs_vp_group = false)");
			else if (m > p->pp)
				snprintf(why, sizeof why,
				         " in groups of vp_group = %d (0 takes the smallest group that "
				         "fits)",
				         n);
			err_at(s, diag, "parallel", p->vp_group > 0 ? "vp_group" : "vpp",
			       "interleaved 1F1B needs the micro-batches per step (%d) to be a multiple "
			       "of pp = %d%s",
			       m, p->pp, why);
			errors++;
		} else if (n < p->pp || n > m) {
			err_at(s, diag, "parallel", "vp_group",
			       "vp_group = %d: a group of the interleaved schedule holds pp = %d to all "
			       "%d micro-batches (Megatron-Core's rule)",
			       n, p->pp, m);
			errors++;
		} else if (m % n != 0 && m % n < p->pp) {
			err_at(s, diag, "parallel", "vp_group",
			       "vp_group = %d leaves %d micro-batch%s in the last group, fewer than pp = "
			       "%d (Megatron-Core refuses it: the pipeline would stall on it)",
			       n, m % n, m % n == 1 ? "" : "es", p->pp);
			errors++;
		}
	}
	return errors;
}

/* Interleaving and the pipeline schedules. */
static int check_pipeline(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	if (p->vpp > 1 && p->pp == 1) {
		err_at(s, diag, "parallel", "vpp", "vpp > 1 interleaves pipeline stages: it needs pp > 1");
		errors++;
	}
	/* (under torch pipelining the reductions wait for the chunk's last
	 * backward anyway: plan_zero3_pp_gathered) */
	if (plan_sched_zb(p->schedule) && p->zero >= 3 && !plan_zero3_pp_gathered(s)) {
		err_at(s, diag, "parallel", "schedule",
		       "schedule = %s with zero = 3 is not simulated (FSDP's per-layer reduce-scatter "
		       "would wait for the deferred weight passes)",
		       p->schedule == PLAN_SCHED_ZBV ? "zbv"
		       : p->schedule == PLAN_SCHED_DUALPIPEV ? "dualpipev"
							     : "zb-h1");
		errors++;
	}
	if (plan_sched_v(p->schedule) && p->vpp != 2) {
		err_at(s, diag, "parallel", "vpp",
		       "schedule = %s runs exactly 2 chunks per rank (vpp = 2), a V: rank r holds "
		       "virtual stages r and 2 pp - 1 - r (torch's %s)",
		       p->schedule == PLAN_SCHED_ZBV ? "zbv" : "dualpipev",
		       p->schedule == PLAN_SCHED_ZBV ? "ScheduleZBVZeroBubble" : "ScheduleDualPipeV");
		errors++;
	} else if (p->schedule == PLAN_SCHED_DUALPIPEV && p->pp > 1 &&
	           p->global_batch % ((int64_t)p->micro_batch * p->dp) == 0 &&
	           plan_microbatches(p) < 2 * p->pp) {
		err_at(s, diag, "parallel", "global_batch",
		       "schedule = dualpipev needs at least as many micro-batches per step as "
		       "virtual stages, 2 pp = %d (%d): torch's ScheduleDualPipeV raises a "
		       "ValueError with fewer",
		       2 * p->pp, plan_microbatches(p));
		errors++;
	} else if (p->schedule == PLAN_SCHED_ZBV && p->pp > 1 &&
	           p->global_batch % ((int64_t)p->micro_batch * p->dp) == 0 &&
	           plan_microbatches(p) < 2 * p->pp - 1) {
		err_at(s, diag, "parallel", "global_batch",
		       "schedule = zbv needs at least 2 pp - 1 = %d micro-batches per step (%d): its "
		       "warm-up runs that many forwards on the first rank (torch's "
		       "ScheduleZBVZeroBubble fails its schedule check with fewer)",
		       2 * p->pp - 1, plan_microbatches(p));
		errors++;
	}
	if (p->vpp <= 1 && p->schedule == PLAN_SCHED_LOOPED_BFS) {
		err_at(s, diag, "parallel", "schedule",
		       "schedule = looped-bfs needs vpp >= 2 chunks a rank (torchtitan runs its "
		       "multi-stage schedules with two or more, distributed/pipeline_parallel.py:"
		       "244-257 at b5bcd76c; with one it is GPipe with the backwards reversed: "
		       "schedule = gpipe)");
		errors++;
	}
	if (p->vpp > 1 && p->schedule == PLAN_SCHED_GPIPE) {
		err_at(s, diag, "parallel", "vpp",
		       "vpp > 1 needs schedule = 1f1b (interleaved 1F1B), zb-h1 (interleaved zero "
		       "bubble), zbv, dualpipev or looped-bfs (breadth-first GPipe)");
		errors++;
	}
	if (p->vpp > 1 && p->p2p == PLAN_P2P_SYNC) {
		err_at(s, diag, "parallel", "p2p",
		       "p2p = sync is not simulated with vpp > 1 (interleaved 1F1B batches each step's "
		       "sends and receives; one rendezvous per transfer would deadlock): use auto or async");
		errors++;
	}
	return errors + check_vp_groups(s, diag);
}

/* The communication overlaps and what they need. */
static int check_overlap(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	/* Transformer Engine's userbuffers overlap works on the sequence-parallel
	 * all-gathers and reduce-scatters (Megatron-LM refuses --tp-comm-overlap
	 * without --sequence-parallel). */
	if (p->tp_comm_overlap && !p->sequence_parallel) {
		err_at(s, diag, "parallel", "tp_comm_overlap",
		       "tp_comm_overlap needs sequence_parallel = true (Transformer Engine overlaps the "
		       "sequence-parallel all-gathers and reduce-scatters with their GEMMs)");
		errors++;
	}
	/* --overlap-param-gather needs the distributed optimizer; ZeRO-3 gathers
	 * every layer before its use anyway. */
	if (p->overlap_param_gather && p->zero != 1 && p->zero != 2) {
		err_at(s, diag, "parallel", "overlap_param_gather",
		       "overlap_param_gather needs zero = 1 or 2 (the distributed optimizer's "
		       "parameter all-gather), not zero = %d",
		       p->zero);
		errors++;
	}
	return errors;
}

/* Recomputation: recompute_layers and recompute_modules. */
static int check_recompute(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	/* Megatron-Core refuses recompute_num_layers under selective
	 * (transformer_config.py:1926-1932 at d98e8a64); without recomputation
	 * it has no meaning */
	if (p->recompute_layers > 0 && p->recompute != WORK_RECOMPUTE_FULL) {
		static const char *const keys[] = {"recompute_layers", "recompute"};
		err_at(s, diag, "parallel", user_key(s, keys, 2),
		       "recompute_layers = %d counts the layers recompute = full re-runs: it needs "
		       "recompute = full, not %s",
		       p->recompute_layers,
		       p->recompute == WORK_RECOMPUTE_SELECTIVE ? "selective" : "none");
		errors++;
	}
	char bad[64];
	unsigned rcm = 0;
	if (work_recompute_parse(p->recompute_modules, &rcm, bad, sizeof bad) != SIM_OK) {
		err_at(s, diag, "parallel", "recompute_modules",
		       "recompute_modules: '%s' is not one of core_attn, mla_up_proj, mlp, moe_act "
		       "(Megatron-Core's layernorm, moe and shared_experts are not modelled)",
		       bad);
		errors++;
	} else if ((rcm & WORK_RC_MLA_UP_PROJ) && !work_model_is_mla(&s->model)) {
		err_at(s, diag, "parallel", "recompute_modules",
		       "recompute_modules: mla_up_proj needs an MLA model ([model] kv_lora_rank > 0)");
		errors++;
	}
	return errors;
}

/* The rank order and the ZeRO shard group. */
static int check_order_shards(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	int order[PLAN_DIMS];
	if (plan_order_parse(p->order, order) != SIM_OK) {
		err_at(s, diag, "parallel", "order",
		       "order = '%s': expected the four of tp, cp, dp, pp joined by '-', innermost "
		       "first (e.g. tp-cp-dp-pp)",
		       p->order);
		errors++;
	}
	int64_t dpg = (int64_t)p->dp * p->cp;
	if (p->shard_size > 0 && p->zero < 1) {
		err_at(s, diag, "parallel", "shard_size",
		       "shard_size = %d shards ZeRO states: it needs zero >= 1", p->shard_size);
		errors++;
	} else if (p->shard_size > 0 && dpg % p->shard_size != 0) {
		err_at(s, diag, "parallel", "shard_size", "shard_size = %d must divide dp*cp = %d*%d = %lld",
		       p->shard_size, p->dp, p->cp, (long long)dpg);
		errors++;
	}
	/* ZeRO++ (DeepSpeed's partition_parameters.py builds the secondary
	 * group from consecutive ranks of the data-parallel group, and both
	 * options act on ZeRO-3's parameter gathers only) */
	int64_t shard = p->shard_size > 0 ? p->shard_size : dpg;
	if (p->zero_hpz > 1 && p->zero < 3) {
		err_at(s, diag, "parallel", "zero_hpz",
		       "zero_hpz = %d partitions ZeRO-3's parameters: it needs zero = 3", p->zero_hpz);
		errors++;
	} else if (p->zero_hpz > 1 && shard % p->zero_hpz != 0) {
		err_at(s, diag, "parallel", "zero_hpz",
		       "zero_hpz = %d must divide the ZeRO shard group (%lld ranks)", p->zero_hpz,
		       (long long)shard);
		errors++;
	}
	/* qgZ's all-to-alls take the whole world as the data-parallel group,
	 * a node's device_count ranks inside (coalesced_collectives.py:35-37) */
	if (p->zero_qg && (p->zero < 3 || p->tp > 1 || p->pp > 1 || p->cp > 1 ||
			   (p->shard_size > 0 && p->shard_size < dpg))) {
		err_at(s, diag, "parallel", "zero_quantized_gradients",
		       "zero_quantized_gradients reduces ZeRO-3's gradients over all the ranks: it "
		       "needs zero = 3 without tp, pp, cp or shard_size");
		errors++;
	}
	if (p->zero_qw && p->zero < 3) {
		err_at(s, diag, "parallel", "zero_quantized_weights",
		       "zero_quantized_weights quantises ZeRO-3's parameter gathers: it needs zero = 3");
		errors++;
	}
	return errors;
}

/* Features whose schedules are not generated yet are refused, not faked. */
static int check_supported(const plan_scenario *s, sim_diag *diag)
{
	int errors = 0;
	errors += check_context_parallel(s, diag);
	errors += check_pipeline(s, diag);
	errors += check_moe(s, diag);
	errors += check_a2a_overlap(s, diag);
	errors += check_deepep(s, diag);
	errors += check_offload(s, diag);
	errors += check_overlap(s, diag);
	errors += check_recompute(s, diag);
	errors += check_order_shards(s, diag);
	if (hw_peak(&s->gpu, s->dtype) <= 0) {
		err_at(s, diag, "train", "precision", "GPU '%s' has no %s tensor path", s->gpu.name,
		       hw_dtype_name(s->dtype));
		errors++;
	}
	return errors;
}

/* Refuse up front what would exhaust memory or patience. Since one rank per
 * pipeline stage is replayed, whatever the GPU count, a step has about
 * micro-batches x layers x (tasks per layer and micro-batch) tasks; at ~100
 * bytes per task with its edges and replay state, PLAN_MAX_TASKS keeps a run
 * under ~1 GB. Pipeline stages are rank classes and are capped too. */
#define PLAN_MAX_TASKS 1e7
#define PLAN_MAX_STAGES 256

/* Tasks per layer and micro-batch, an upper estimate from counted graphs
 * (podsim run's "simulated N tasks" over micro-batches x layers, on the
 * quickstart and Mixtral scenarios): a dense layer's forward, recompute and
 * backward kernels merged between TP collectives, plus transfers: <= 16 (15.7
 * with full recomputation). Context parallelism adds cp ring steps and cp
 * K/V transfers to each attention pass, once more when recomputed (measured
 * 24.6 at cp 4, 48.3 at cp 8 with full recomputation: 16 + 2cp(1 + r)). An
 * MoE layer adds the dispatch/combine all-to-alls and grouped GEMMs (+8, +12
 * recomputed: measured 19.5 and 27.5). ZB-H1's W passes add ~1 (+2); ZeRO-3's
 * gathers and reduce-scatters ~3 (+4), parameter offload's copies ~3 more (+4). */
static double tasks_per_layer(const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	bool rc = p->recompute != WORK_RECOMPUTE_NONE;
	double per = 16.0;
	if (p->cp > 1)
		per += 2.0 * p->cp * (rc ? 2 : 1);
	if (s->model.moe_experts > 0)
		per += p->recompute == WORK_RECOMPUTE_FULL ? 12.0 : 8.0;
	if (plan_sched_zb(p->schedule))
		per += 2.0;
	if (p->zero >= 3)
		per += p->offload_params != PLAN_OFFLOAD_NONE ? 8.0 : 4.0;
	return per;
}

static int check_limits(const plan_scenario *s, sim_diag *diag)
{
	const plan_spec *p = &s->plan;
	int errors = 0;
	if (p->pp > PLAN_MAX_STAGES) {
		err_at(s, diag, "parallel", "pp", "pp = %d: at most %d pipeline stages are supported",
		       p->pp, PLAN_MAX_STAGES);
		errors++;
	}
	double m = (double)p->global_batch / ((double)p->micro_batch * p->dp);
	double per = tasks_per_layer(s), tasks = m * s->model.layers * per;
	if (tasks > PLAN_MAX_TASKS) {
		err_at(s, diag, "parallel", "global_batch",
		       "this step would replay about %.3g tasks (%.0f micro-batches x %d layers x "
		       "%.0f per layer), more than the %.0e podsim allows; raise micro_batch or dp, or lower "
		       "global_batch (step time scales linearly with the micro-batch count)",
		       tasks, m, s->model.layers, per, PLAN_MAX_TASKS);
		errors++;
	}
	/* The flow model needs the fabric's graph, which topo builds with up
	 * to four switch tiers. */
	int max_nodes = topo_fabric_max_nodes(&s->cluster);
	if (net_uses_flow(&s->cluster) && s->cluster.nodes > max_nodes) {
		err_at(s, diag, "cluster", "network",
		       "network = flow: %d nodes of %d NICs need a fabric of more than four switch "
		       "tiers, and podsim builds at most four (%d nodes); use network = alpha-beta",
		       s->cluster.nodes, s->cluster.node.nics, max_nodes);
		errors++;
	}
	/* ... and holds every GPU: refused past TOPO_MAX_GPUS before anything
	 * is allocated (a torus or a single switch has no tier limit). */
	int64_t gpus = (int64_t)s->cluster.nodes * s->cluster.node.gpus;
	if (net_uses_flow(&s->cluster) && gpus > TOPO_MAX_GPUS) {
		err_at(s, diag, "cluster", "network",
		       "network = flow: %d nodes x %d GPUs = %lld GPUs: the flow model's link "
		       "graph is built for at most %d GPUs (about 650 bytes each, twice that with "
		       "routes and flows); use network = alpha-beta, or set cluster.nodes to %d or fewer",
		       s->cluster.nodes, s->cluster.node.gpus, (long long)gpus, TOPO_MAX_GPUS,
		       TOPO_MAX_GPUS / s->cluster.node.gpus);
		errors++;
	}
	return errors;
}

/* train.frozen_layers (plan_layer_frozen): what it is modelled for. The
 * frozen prefix's backward is skipped whole (nothing before it trains, so
 * autograd records no graph there), which needs the input embedding frozen
 * with it, so an untied one; the first pipeline chunk keeps a layer that
 * trains (its backward chain is never empty); dense layers, no LoRA (which
 * freezes the base its own way), no ZeRO-3 or offload (their per-layer and
 * host paths do not know frozen layers yet), training only. */
static int check_frozen(const plan_scenario *s, sim_diag *diag)
{
	const plan_train *t = &s->train;
	if (t->frozen_layers <= 0)
		return 0;
	const char *why = NULL;
	if (s->inference)
		why = "frozen_layers is for training (inference trains nothing)";
	else if (t->lora_rank > 0)
		why = "frozen_layers and LoRA: LoRA freezes the whole base already";
	else if (!s->model.untied_embeddings)
		why = "frozen_layers freezes the input embedding with the layers: a tied embedding "
		      "trains through the output layer (set [model] untied_embeddings = true)";
	else if (s->model.moe_experts > 0)
		why = "frozen_layers is modelled for dense models (no moe_experts)";
	else if (s->plan.zero >= 3 || s->plan.offload_optimizer != PLAN_OFFLOAD_NONE ||
		 s->plan.offload_params != PLAN_OFFLOAD_NONE)
		why = "frozen_layers is modelled with zero 0-2 and no offload";
	if (!why)
		return 0;
	err_at(s, diag, "train", "frozen_layers", "%s", why);
	return 1;
}

int plan_check_layout(const plan_scenario *s, sim_diag *diag)
{
	int errors = 0, most = 0;
	/* Megatron-Core: recompute_num_layers "must be between 1 and
	 * num_layers_per_pipeline_rank" (transformer_config.py:1919-1925 at
	 * d98e8a64), the layers of the block it checkpoints, a model chunk */
	for (int v = 0; v < s->plan.pp * s->plan.vpp; v++)
		most = s->vlayers[v] > most ? s->vlayers[v] : most;
	if (s->plan.recompute_layers > most) {
		err_at(s, diag, "parallel", "recompute_layers",
		       "recompute_layers = %d: a pipeline chunk holds at most %d layers (0 = all "
		       "of them)",
		       s->plan.recompute_layers, most);
		errors++;
	}
	int first = plan_chunk_layers(s, 0, 0, NULL);
	if (s->train.frozen_layers > 0 && s->train.frozen_layers >= first) {
		err_at(s, diag, "train", "frozen_layers",
		       "frozen_layers = %d: the first pipeline chunk holds %d layers, at least one "
		       "of them must train",
		       s->train.frozen_layers, first);
		errors++;
	}
	return errors ? SIM_ECONF : SIM_OK;
}

/* The [train] memory keys that need each other: a frozen base and trained
 * embeddings exist only under LoRA; stepping each parameter in its backward
 * leaves nothing to accumulate over micro-batches (torchtune refuses
 * optimizer_in_bwd with gradient accumulation); an offloaded optimizer steps
 * on the host, where paged and 8-bit states do not apply. */
static int check_train(const plan_scenario *s, sim_diag *diag)
{
	const plan_train *t = &s->train;
	int errors = 0;
	if (t->base_weights != PLAN_BASE_AUTO && t->lora_rank == 0) {
		err_at(s, diag, "train", "base_weights",
		       "base_weights sets the frozen base of LoRA: it needs lora_rank > 0");
		errors++;
	}
	if (t->train_embeddings && t->lora_rank == 0) {
		err_at(s, diag, "train", "train_embeddings",
		       "train_embeddings trains the embedding beside LoRA adapters: it needs "
		       "lora_rank > 0 (without LoRA every parameter trains)");
		errors++;
	}
	if (t->optimizer_in_backward && !s->inference &&
	    s->plan.global_batch % ((int64_t)s->plan.micro_batch * s->plan.dp) == 0 &&
	    plan_microbatches(&s->plan) > 1) {
		err_at(s, diag, "train", "optimizer_in_backward",
		       "optimizer_in_backward steps each parameter during its backward: it cannot "
		       "accumulate %d micro-batches (global_batch = micro_batch x dp)",
		       plan_microbatches(&s->plan));
		errors++;
	}
	if (t->grad_compression != PLAN_GC_NONE &&
	    (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE || s->plan.zero >= 3 ||
	     (t->grad_compression == PLAN_GC_1BIT &&
	      (s->plan.zero > 0 || t->optimizer != PLAN_ADAM || t->lora_rank > 0)))) {
		err_at(s, diag, "train", "grad_compression",
		       t->grad_compression == PLAN_GC_1BIT
			       ? "grad_compression = 1bit is 1-bit Adam: it needs optimizer = adam, "
				 "zero = 0, no offload and no LoRA"
			       : "grad_compression = fp8 compresses the data-parallel gradient "
				 "reduction of zero 0-2 without offload");
		errors++;
	}
	errors += check_frozen(s, diag);
	if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE && t->optimizer != PLAN_ADAM &&
	    t->optimizer != PLAN_SGD) {
		err_at(s, diag, "train", "optimizer",
		       "an offloaded optimizer runs CPU Adam: optimizer = adam (8-bit and paged "
		       "states are GPU-side)");
		errors++;
	}
	return errors;
}

int plan_check(const plan_scenario *s, sim_diag *diag)
{
	int errors = check_sizes(s, diag) + check_supported(s, diag) + check_train(s, diag);
	errors += plan_check_framework(s, diag);
	if (!errors)
		errors = check_limits(s, diag);
	return errors ? SIM_ECONF : SIM_OK;
}

int plan_microbatches(const plan_spec *p)
{
	return p->global_batch / (p->micro_batch * p->dp);
}

int plan_chunk_layers(const plan_scenario *s, int stage, int chunk, int *first_local)
{
	int first = 0;
	for (int c = 0; c < chunk; c++)
		first += s->vlayers[plan_vstage(&s->plan, stage, c)];
	if (first_local)
		*first_local = first;
	return s->vlayers[plan_vstage(&s->plan, stage, chunk)];
}

int plan_vstage_rank(const plan_spec *p, int v, int *chunk)
{
	int pp = p->pp > 0 ? p->pp : 1, c = v / pp, st = v % pp;
	if (plan_sched_v(p->schedule) && c == 1)
		st = pp - 1 - st;
	if (chunk)
		*chunk = c;
	return st;
}

int plan_last_rank(const plan_spec *p)
{
	int vpp = p->vpp > 0 ? p->vpp : 1;
	return plan_vstage_rank(p, p->pp * vpp - 1, NULL);
}

/* Spread (plan_rc_method): the j-th layer (1-based) is recomputed when
 * j N / n reaches the next integer, floor(j N / n) > floor((j - 1) N / n):
 * N = n / x gives layers x, 2x, ... (fms-fsdp 7746dac's every_xth_item,
 * torchtitan's selective_ac_option); N of the n in all (floor(n N / n)). */
bool plan_layer_recomputed(const plan_spec *p, int n, int l)
{
	if (p->recompute != WORK_RECOMPUTE_FULL)
		return false;
	long N = p->recompute_layers;
	if (N <= 0 || N >= n)
		return true;
	if (p->recompute_method == PLAN_RC_BLOCK)
		return l < N;
	long j = (long)l + 1;
	return j * N / n > (j - 1) * N / n;
}

bool plan_recompute_partial(const plan_spec *p)
{
	return p->recompute == WORK_RECOMPUTE_FULL && p->recompute_layers > 0;
}

int plan_global_layer(const plan_scenario *s, int stage, int local)
{
	int before = 0;
	for (int c = 0; c < s->plan.vpp; c++) {
		int v = plan_vstage(&s->plan, stage, c), n = s->vlayers[v];
		if (local < n) {
			for (int u = 0; u < v; u++)
				before += s->vlayers[u];
			return before + local;
		}
		local -= n;
	}
	return -1;
}

int plan_stage_layers(const plan_scenario *s, int stage)
{
	int n = 0;
	for (int c = 0; c < s->plan.vpp; c++)
		n += s->vlayers[plan_vstage(&s->plan, stage, c)];
	return n;
}

int plan_max_stage_layers(const plan_scenario *s)
{
	int mx = 0;
	for (int st = 0; st < s->plan.pp; st++) {
		int n = plan_stage_layers(s, st);
		mx = n > mx ? n : mx;
	}
	return mx;
}

bool plan_layout_assumption(const plan_scenario *s, char *buf, size_t len)
{
	const plan_spec *p = &s->plan;
	int64_t V = (int64_t)p->pp * p->vpp;
	int tail[3];
	plan_layout_tail(p, s->model.layers, tail);
	int head = tail[0];
	if (V <= 1 || p->first_stage_layers > 0 || p->last_stage_layers > 0 ||
	    p->embedding_in_split || p->loss_in_split || (s->model.layers % V == 0 && head < 0))
		return false;
	/* runs of equal counts: "7, 8 x 14, 7" */
	size_t n = head >= 0
		? (size_t)snprintf(buf, len, "pipeline split by the framework's compute costs (a "
				   "layer %.4g M, the lm_head %.4g M, as nanotron balances them): "
				   "layers per stage ",
				   p->cost_layer / 1e6, p->cost_head / 1e6)
		: (size_t)snprintf(buf, len, "uneven pipeline split by the framework's rule "
				   "(%s count as one layer each): layers per virtual stage ",
				   p->mtp_units > 0 ? "embedding, loss and MTP modules"
						    : "embedding and loss");
	for (int64_t v = 0; v < V && n < len;) {
		int64_t w = v;
		while (w + 1 < V && s->vlayers[w + 1] == s->vlayers[v])
			w++;
		if (w > v)
			n += (size_t)snprintf(buf + n, len - n, "%s%d x %lld", v ? ", " : "",
					      s->vlayers[v], (long long)(w - v + 1));
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%d", v ? ", " : "", s->vlayers[v]);
		v = w + 1;
	}
	if (head >= 0 && head < p->pp - 1 && n < len)
		snprintf(buf + n, len - n, "; nanotron puts the lm_head on stage %d, the fp32 "
			 "cast on %d and the loss on %d, sending the logits between them: their "
			 "transfers are timed so, their compute runs on the last stage",
			 head, tail[1], tail[2]);
	return true;
}
