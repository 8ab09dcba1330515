/* label.c - the plan string of a scenario (plan_label, plan.h): one line that
 * names every axis of the plan that changes the prediction, in a fixed order,
 * so that two runs with different plans never print the same string and the
 * same plan always prints the same one (the runs table's `plan` column, the
 * reports, sweep and compare output).
 *
 * Tokens, in this order (always present unless marked "when set"):
 *   FRAMEWORK          [framework] name ("megatron-core")
 *   tpT                tensor parallelism
 *   sp                 sequence parallelism (when set)
 *   cpC ppP vppV dpD epE
 *   mbM gbG            micro-batch and global batch (sequences)
 *   gpipe|1f1b|zb-h1|zbv|looped-bfs|dualpipev schedule (1f1b with vpp > 1 is interleaved 1F1B)
 *   recompute=none|selective|full [recompute_modules=mla_up_proj,mlp: not the default]
 *                      [recompute_layers=N, :spread when so: full recompute of N
 *                      layers per chunk (when set)]
 *   zeroZ              ZeRO stage (1 = distributed optimizer)
 *   vp-group=N         the interleaved schedule's micro-batch groups
 *                      (plan_vp_group; when not pp)
 *   shardS             hybrid sharding group (when shard_size > 0)
 *   hpzH qwz qgz       ZeRO++: hpZ's secondary group (when zero_hpz > 1),
 *                      int8 gathers (when zero_quantized_weights), int4
 *                      gradient all-to-alls (when zero_quantized_gradients)
 *   opt-offload=cpu|nvme, param-offload=cpu|nvme   (when set)
 *   grad-overlap       overlap_grad_reduce (when set)
 *   param-overlap      overlap_param_gather (when set)
 *   tp-overlap         tp_comm_overlap (when set)
 *   a2a-overlap        moe_a2a_overlap (when set; wgrad-delay: and
 *                      delay_wgrad_compute)
 *   order=O            placement (when not tp-cp-dp-pp)
 *   a2a-dispatcher     moe_dispatcher = alltoall with ep > 1 (when set)
 *   gshard             an MoE model's layer is DeepSpeed-MoE's (moe_dispatcher
 *                      = gshard, Megatron-DeepSpeed's default)
 *   unfused            attention = unfused (when set)
 *   PRECISION          train.precision ("bf16")
 *   inference          mode = inference (when set)
 * Second-order knobs (bucket size, p2p mode, explicit stage layouts, the
 * framework's mechanisms) are not in the string; they are in the stored
 * scenario text, which `podsim compare` diffs. */
#include "plan.h"

#include <stdarg.h>
#include <string.h>

typedef struct label {
	char *buf;
	size_t len, used;
} label;

static void add(label *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(label *l, const char *fmt, ...)
{
	if (l->used + 1 >= l->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->used, l->len - l->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->used += (size_t)n < l->len - l->used ? (size_t)n : l->len - l->used - 1;
}

void plan_label(const plan_scenario *s, char *buf, size_t len)
{
	static const char *const sched[] = {"gpipe", "1f1b", "zb-h1", "zbv", "looped-bfs", "dualpipev"};
	static const char *const rc[] = {"none", "selective", "full"};
	static const char *const off[] = {"none", "cpu", "nvme"};
	const plan_spec *p = &s->plan;
	label l = {buf, len, 0};
	if (!len)
		return;
	buf[0] = '\0';
	add(&l, "%s tp%d%s cp%d pp%d vpp%d dp%d ep%d mb%d gb%d %s recompute=%s zero%d",
	    s->fw.name[0] ? s->fw.name : "-", p->tp, p->sequence_parallel ? " sp" : "", p->cp,
	    p->pp, p->vpp, p->dp, p->ep, p->micro_batch, p->global_batch,
	    (unsigned)p->schedule < 6 ? sched[p->schedule] : "?",
	    (unsigned)p->recompute < 3 ? rc[p->recompute] : "?", p->zero);
	unsigned rm = p->recompute_mask;
	if (p->recompute == WORK_RECOMPUTE_SELECTIVE && rm && rm != WORK_RC_CORE_ATTN) {
		static const char *const mod[] = {"core_attn", "mla_up_proj", "mlp", "moe_act"};
		add(&l, " recompute_modules=");
		for (int i = 0, n = 0; i < 4; i++)
			if (rm & (1u << i))
				add(&l, "%s%s", n++ ? "," : "", mod[i]);
	}
	if (plan_recompute_partial(p))
		add(&l, " recompute_layers=%d%s", p->recompute_layers,
		    p->recompute_method == PLAN_RC_SPREAD ? ":spread" : "");
	if (p->vpp > 1 && plan_vp_group(p) != p->pp)
		add(&l, " vp-group=%d", plan_vp_group(p));
	if (p->shard_size > 0)
		add(&l, " shard%d", p->shard_size);
	if (p->zero_hpz > 1)
		add(&l, " hpz%d", p->zero_hpz);
	if (p->zero_qw)
		add(&l, " qwz");
	if (p->zero_qg)
		add(&l, " qgz");
	if (p->offload_optimizer != PLAN_OFFLOAD_NONE && (unsigned)p->offload_optimizer < 3)
		add(&l, " opt-offload=%s", off[p->offload_optimizer]);
	if (p->offload_params != PLAN_OFFLOAD_NONE && (unsigned)p->offload_params < 3)
		add(&l, " param-offload=%s", off[p->offload_params]);
	if (p->overlap_grad_reduce)
		add(&l, " grad-overlap");
	if (p->overlap_param_gather)
		add(&l, " param-overlap");
	if (p->tp_comm_overlap)
		add(&l, " tp-overlap");
	if (p->moe_a2a_overlap)
		add(&l, " a2a-overlap%s", p->delay_wgrad ? " wgrad-delay" : "");
	if (p->order[0] && strcmp(p->order, "tp-cp-dp-pp"))
		add(&l, " order=%s", p->order);
	if (p->ep > 1 && p->moe_dispatcher == WORK_MOE_ALLTOALL)
		add(&l, " a2a-dispatcher");
	if (s->model.moe_experts > 0 && p->moe_dispatcher == WORK_MOE_GSHARD)
		add(&l, " gshard");
	if (!s->flash)
		add(&l, " unfused");
	add(&l, " %s", hw_dtype_name(s->dtype));
	if (s->inference)
		add(&l, " inference");
}
