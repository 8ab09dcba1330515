/* recompute.c - what selective recomputation re-runs: Megatron-Core's
 * recompute_modules (work.h WORK_RC_*), read from [parallel]
 * recompute_modules by plan, and picked out of a layer's forward program
 * by the item names layer.c gives (plan/chain.c and sweep/estimate.c put
 * them before the layer's backward). What the modules leave unsaved is in
 * memory.c. */
#include "work.h"

#include <stdio.h>
#include <string.h>

static const conf_flag names[] = {{"core_attn", WORK_RC_CORE_ATTN},
				  {"mla_up_proj", WORK_RC_MLA_UP_PROJ},
				  {"mlp", WORK_RC_MLP},
				  {"moe_act", WORK_RC_MOE_ACT}};

int work_recompute_parse(const char *text, unsigned *out, char *bad, size_t len)
{
	return conf_flags_parse(text, names, sizeof names / sizeof names[0], out, bad, len);
}

static bool is(const work_item *it, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(it->name, *list))
			return true;
	return false;
}

/* layer.c's names: MLA's checkpointed function (the up projections with
 * their fused norms and gathers, the RoPE; not the RoPE key's gather, which
 * runs before it, multi_latent_attention.py:764-766), a dense MLP between
 * ln2 and resid2, the experts' activation. */
static const char *const mla_up[] = {"q_norm", "tp_ag_q", "q_up",  "kv_norm",
				     "tp_ag_kv", "kv_up", "rope", NULL};
static const char *const mlp[] = {"tp_ag2", "fc1", "act", "fc2_cast", "fc2", "tp_rs2", NULL};
static const char *const moe_act[] = {"acte", NULL};

int work_saved_gather(const work_model *m, const work_shard *sh, work_item *out)
{
	if (!sh->distribute_saved || sh->tp <= 1)
		return 0;
	/* Megatron's CheckpointFunction.backward: gather_split_1d_tensor of the
	 * saved input, [s, b, h] in the activations' dtype, over the TP group
	 * on the compute stream, before the forward is run again
	 * (core/tensor_parallel/random.py:645-650 at d98e8a64) */
	*out = (work_item){.kind = WORK_ITEM_COMM, .comm = WORK_COMM_ALLGATHER};
	snprintf(out->name, sizeof out->name, "ckpt_gather");
	out->comm_bytes = work_act_elem_bytes(sh) * sh->seq * sh->micro_batch * m->hidden;
	return 1;
}

int work_recompute_items(const work_model *m, int layer, const work_item *f, int n,
			 unsigned modules, work_item out[WORK_MAX_ITEMS])
{
	unsigned k = modules ? modules : WORK_RC_CORE_ATTN;
	bool moe = work_layer_is_moe(m, layer);
	int c = 0;
	for (int i = 0; i < n; i++) {
		const work_item *it = &f[i];
		bool core = (it->kind == WORK_ITEM_KERNEL && !strncmp(it->name, "attn", 4)) ||
			    (it->kind == WORK_ITEM_COMM && work_comm_on_cp(it->comm));
		bool take = ((k & WORK_RC_CORE_ATTN) && core) ||
			    ((k & WORK_RC_MLA_UP_PROJ) && is(it, mla_up)) ||
			    ((k & WORK_RC_MLP) && !moe && is(it, mlp)) ||
			    ((k & WORK_RC_MOE_ACT) && moe && is(it, moe_act));
		if (take)
			out[c++] = *it;
	}
	return c;
}
