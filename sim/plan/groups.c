/* groups.c - where a plan's communication groups sit on the cluster.
 *
 * Placement (the [parallel] `order` key, innermost first, default
 * tp-cp-dp-pp as Megatron): the global rank is a mixed-radix number whose
 * digits are the tp, cp, dp and pp ranks in that order, so a dimension's
 * stride is the product of the sizes listed before it. With the default,
 * TP groups are consecutive ranks (inside a node), CP ranks are tp apart, DP
 * ranks tp*cp apart and pipeline neighbours tp*cp*dp apart; order = dp-tp-cp-pp
 * spreads each TP group over dp-strided ranks (across nodes when dp*tp > the
 * node's GPUs), which is what "TP across nodes" costs.
 *
 * Gradients are reduced over the dp*cp ranks holding the same parameters; with
 * hybrid sharding (shard_size = k < dp*cp) the ZeRO shard group is the first k
 * of them and the replica group the dp*cp/k ranks holding the same shard.
 * ZeRO++'s hpZ group is the first zero_hpz ranks of the shard group (a
 * node's GPUs when the DP stride is 1: DeepSpeed's
 * _create_zero_param_parallel_group, utils/groups.py:650-677 at
 * microsoft/DeepSpeed 38327e07, takes consecutive ranks, at most all).
 * Experts (expert TP 1) take ep consecutive ranks; the expert-data-parallel
 * group is the tp*cp*dp/ep ranks ep apart.
 */
#include "plan.h"

#include <string.h>

static const char *const dim_names[PLAN_DIMS] = {"tp", "cp", "dp", "pp"};

int plan_order_parse(const char *text, int order[PLAN_DIMS])
{
	int seen = 0, n = 0;
	const char *p = text;
	while (*p && n < PLAN_DIMS) {
		int d = -1;
		for (int i = 0; i < PLAN_DIMS; i++)
			if (!strncmp(p, dim_names[i], 2))
				d = i;
		if (d < 0 || (seen & (1 << d)))
			return SIM_ECONF;
		seen |= 1 << d;
		order[n++] = d;
		p += 2;
		if (*p == '-')
			p++;
		else if (*p)
			return SIM_ECONF;
	}
	return n == PLAN_DIMS && !*p ? SIM_OK : SIM_ECONF;
}

void plan_strides(const plan_spec *p, int stride[PLAN_DIMS])
{
	int order[PLAN_DIMS] = {PLAN_DIM_TP, PLAN_DIM_CP, PLAN_DIM_DP, PLAN_DIM_PP};
	if (plan_order_parse(p->order, order) != SIM_OK) /* checked at load; default */
		for (int i = 0; i < PLAN_DIMS; i++)
			order[i] = i;
	int size[PLAN_DIMS] = {p->tp, p->cp > 1 ? p->cp : 1, p->dp, p->pp};
	int s = 1;
	for (int i = 0; i < PLAN_DIMS; i++) {
		stride[order[i]] = s;
		s *= size[order[i]];
	}
}

void plan_group_sizes(const plan_spec *p, int *dpg, int *shard, int *edp)
{
	int cp = p->cp > 1 ? p->cp : 1, ep = p->ep > 1 ? p->ep : 1;
	*dpg = p->dp * cp;
	*shard = p->shard_size > 0 && p->shard_size < *dpg ? p->shard_size : *dpg;
	*edp = p->tp * cp * p->dp / ep;
}

void plan_pp_pair(const plan_scenario *s, int from, int to, net_group *out)
{
	const net_cluster *c = &s->cluster;
	int st[PLAN_DIMS];
	plan_strides(&s->plan, st);
	int64_t gpn = c->node.gpus > 0 ? c->node.gpus : 1;
	int64_t a = (int64_t)from * st[PLAN_DIM_PP], b = (int64_t)to * st[PLAN_DIM_PP];
	int64_t dist = a > b ? a - b : b - a;
	if (dist < 1)
		dist = 1;
	/* across a node boundary the pair is two nodes' (a distance below the
	 * node's GPUs would put both on one in net_group_make) */
	if (a / gpn != b / gpn && dist < gpn)
		dist = gpn;
	net_group_make(c, 2, dist > INT32_MAX ? INT32_MAX : (int)dist, out);
}

int plan_pp_cross(const plan_scenario *s, int *cross, int *inside)
{
	int n = 0, fc = -1, fi = -1;
	for (int k = 0; k + 1 < s->plan.pp; k++) {
		net_group h;
		plan_pp_pair(s, k, k + 1, &h);
		if (h.nodes > 1 && n++ == 0)
			fc = k;
		else if (h.nodes <= 1 && fi < 0)
			fi = k;
	}
	if (cross)
		*cross = fc;
	if (inside)
		*inside = fi;
	return n;
}

void plan_make_ep_group(const plan_scenario *s, net_group *ep)
{
	net_group_make(&s->cluster, s->plan.ep > 1 ? s->plan.ep : 1, 1, ep);
}

void plan_make_groups(const plan_scenario *s, plan_groups *g)
{
	const plan_spec *p = &s->plan;
	const net_cluster *c = &s->cluster;
	int st[PLAN_DIMS];
	plan_strides(p, st);
	int cp = p->cp > 1 ? p->cp : 1, ep = p->ep > 1 ? p->ep : 1;
	int dpg, shard, edp; /* ranks holding the same parameters, shards, experts */
	plan_group_sizes(p, &dpg, &shard, &edp);
	int dstride = cp > 1 && st[PLAN_DIM_CP] < st[PLAN_DIM_DP] ? st[PLAN_DIM_CP] : st[PLAN_DIM_DP];
	net_group_make(c, p->tp, st[PLAN_DIM_TP], &g->tp);
	net_group_make(c, cp, st[PLAN_DIM_CP], &g->cp);
	net_group_make(c, dpg, dstride, &g->dp);
	net_group_make(c, shard, dstride, &g->shard);
	net_group_make(c, dpg / shard, dstride * shard, &g->replica);
	net_group_make(c, p->zero_hpz > shard ? shard : p->zero_hpz > 1 ? p->zero_hpz : 1, dstride,
		       &g->hpz);
	/* qgZ: a node's ranks and one rank a node, where it applies (the
	 * gradient group over more than one node; the whole world, plan_check) */
	int gpn = c->node.gpus > 0 ? c->node.gpus : 1, l = dpg < gpn ? dpg : gpn;
	bool qg = p->zero_qg && g->dp.nodes > 1;
	net_group_make(c, qg ? l : 1, 1, &g->qlocal);
	net_group_make(c, qg ? dpg / l : 1, l, &g->qglobal);
	plan_make_ep_group(s, &g->ep);
	net_group_make(c, edp, ep, &g->edp);
	net_group_make(c, 2, st[PLAN_DIM_PP], &g->pp);
	net_group_make(c, 2, (p->pp - 1) * st[PLAN_DIM_PP], &g->embed);
}
