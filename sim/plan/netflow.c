/* netflow.c - [cluster] network = flow: a plan's collectives timed by the
 * flow-level model (sim/topo) instead of net's alpha-beta closed forms.
 *
 * plan_build opens one plan_netflow: the cluster's link graph (built here,
 * or taken from the set of graphs a sweep shares among its plans,
 * plan_scenario.graphs: the same graph, built once per cluster) and a
 * topo_cache over the plan's tp*cp*dp*pp ranks, the run's own. Every
 * collective task asks plan_netflow_cost, which runs the collective of all
 * concurrent translates of its group on the graph once per distinct
 * (collective, size, stride, bytes) and answers the rest from the cache
 * (topo_group_cost).
 *
 * The link report. A plan_task carries only its duration and two per-link
 * byte counts, so each distinct answer is remembered with its per-class
 * link loads, keyed by what it wrote into the task (duration, scale-up and
 * NIC bytes: equal keys are equal costs). plan_netflow_report walks the
 * collective tasks, finds each one's answer (a binary search over the
 * answers sorted by key: O(log answers) per task, not a scan) and sums, per
 * rank class and link class, the busiest link's bytes and saturated time;
 * the rank class with the most bytes per link class is reported.
 */
#include "plan.h"

#include "../topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct answer {
	sim_time dur;
	float scaleup, nic;
	double bytes[NET_LINK_KIND_COUNT], sat_s[NET_LINK_KIND_COUNT];
	int link[NET_LINK_KIND_COUNT];
} answer;

struct plan_netflow {
	const plan_scenario *s;
	const topo_graph *g;
	topo_graph *own; /* g when built here, NULL when shared (s->graphs) */
	topo_cache *cache;
	answer *a;
	int na, cap;
	int fallbacks; /* collectives the flow model could not time */
};

int plan_netflow_open(const plan_scenario *s, plan_netflow **out)
{
	*out = NULL;
	if (!net_uses_flow(&s->cluster))
		return SIM_OK;
	const plan_spec *p = &s->plan;
	int64_t world = (int64_t)p->tp * (p->cp > 1 ? p->cp : 1) * p->dp * p->pp;
	plan_netflow *f = calloc(1, sizeof *f);
	if (!f)
		return SIM_ENOMEM;
	f->s = s;
	int rc = s->graphs ? topo_graphs_get(s->graphs, &s->cluster, &f->g)
			   : topo_build(&s->cluster, &f->own);
	if (!s->graphs)
		f->g = f->own;
	if (rc == SIM_OK)
		rc = topo_cache_new(f->g, (int)(world < s->cluster.gpus ? world : s->cluster.gpus),
				    &f->cache);
	if (rc != SIM_OK) {
		plan_netflow_close(f);
		return rc;
	}
	*out = f;
	return SIM_OK;
}

void plan_netflow_close(plan_netflow *f)
{
	if (!f)
		return;
	topo_cache_free(f->cache);
	topo_free(f->own);
	free(f->a);
	free(f);
}

void plan_netflow_stats(const plan_netflow *f, int *hits, int *misses)
{
	topo_cache_stats(f ? f->cache : NULL, hits, misses);
}

/* The key of a task costed by c with duration time_s: its duration, its
 * scale-up bytes and its NIC bytes as the builder writes them into the task
 * (build_nic_share's per-NIC share). */
static answer key_of(const plan_netflow *f, const net_cost *c, double time_s)
{
	const net_node *nd = &f->s->cluster.node;
	return (answer){.dur = sim_time_from_s(time_s),
	                .scaleup = (float)c->intra_bytes,
	                .nic = (float)(c->inter_bytes * nd->gpus / (nd->nics > 0 ? nd->nics : 1))};
}

/* The index of the answer with x's key, or -1. */
static int find_key(const plan_netflow *f, const answer *x)
{
	for (int i = 0; i < f->na; i++)
		if (f->a[i].dur == x->dur && f->a[i].scaleup == x->scaleup && f->a[i].nic == x->nic)
			return i;
	return -1;
}

/* Append x (out of memory: the report then misses its loads). */
static void add(plan_netflow *f, const answer *x)
{
	if (f->na == f->cap) {
		int cap = f->cap ? 2 * f->cap : 16;
		answer *p = realloc(f->a, (size_t)cap * sizeof *p);
		if (!p)
			return;
		f->a = p;
		f->cap = cap;
	}
	f->a[f->na++] = *x;
}

static void remember(plan_netflow *f, const net_cost *c, const topo_group_result *r)
{
	answer x = key_of(f, c, c->time_s);
	if (find_key(f, &x) >= 0)
		return;
	memcpy(x.bytes, r->bytes, sizeof x.bytes);
	memcpy(x.sat_s, r->sat_s, sizeof x.sat_s);
	memcpy(x.link, r->link, sizeof x.link);
	add(f, &x);
}

int plan_netflow_cost(plan_netflow *f, net_coll coll, const net_group *grp, int size,
		      int stride, double bytes, net_cost *out)
{
	const net_cluster *cl = &f->s->cluster;
	/* [cluster] nccl_algo: ring, tree, hier, nvls, nvlstree and pat are the flow model's
	 * own; a forced one that does not apply to this collective falls back
	 * to auto, as NCCL does. */
	topo_algo ta = topo_algo_from_net(cl->algo);
	topo_group_result r;
	int rc = topo_group_cost(f->cache, coll, size, stride, bytes, ta, &r);
	if (rc == SIM_EINVAL && ta != TOPO_ALGO_AUTO)
		rc = topo_group_cost(f->cache, coll, size, stride, bytes, TOPO_ALGO_AUTO, &r);
	if (rc != SIM_OK) {
		f->fallbacks++;
		return net_collective(cl, coll, grp, bytes, out);
	}
	const net_node *nd = &cl->node;
	*out = (net_cost){r.cost.time_s,
			  r.cost.latency_s,
			  r.cost.busbw_Bps,
			  r.cost.proto,
			  r.bytes[NET_LINK_SCALEUP],
			  r.bytes[NET_LINK_NIC] * (nd->nics > 0 ? nd->nics : 1) / nd->gpus,
			  topo_algo_to_net(r.cost.algo),
			  r.cost.sync_s,
			  r.bytes[NET_LINK_FABRIC]};
	if (size > 1 && bytes > 0)
		remember(f, out, &r);
	return SIM_OK;
}

void plan_netflow_alias(plan_netflow *f, const net_cost *c, double time_s)
{
	if (!f || time_s == c->time_s)
		return;
	answer k = key_of(f, c, c->time_s);
	int i = find_key(f, &k);
	if (i < 0)
		return;
	answer x = f->a[i];
	x.dur = sim_time_from_s(time_s);
	if (find_key(f, &x) < 0) /* not yet known under that duration */
		add(f, &x);
}

static bool is_comm(uint8_t kind)
{
	return kind == PLAN_TASK_TP || kind == PLAN_TASK_DP || kind == PLAN_TASK_PP ||
	       kind == PLAN_TASK_CP || kind == PLAN_TASK_EP;
}

/* Answers ordered by key (duration, scale-up bytes, NIC bytes); keys are
 * unique (remember), so a search finds the one a scan would. */
static int key_cmp(sim_time dur, float up, float nic, const answer *b)
{
	if (dur != b->dur)
		return dur < b->dur ? -1 : 1;
	if (up != b->scaleup)
		return up < b->scaleup ? -1 : 1;
	if (nic != b->nic)
		return nic < b->nic ? -1 : 1;
	return 0;
}

static int by_key(const void *x, const void *y)
{
	const answer *a = *(const answer *const *)x;
	return key_cmp(a->dur, a->scaleup, a->nic, *(const answer *const *)y);
}

/* The answer task t got, in the sorted index idx[0..n), or NULL. Keys that
 * do not compare (NaN) match nothing, as with ==. */
static const answer *find(const answer *const *idx, int n, const plan_task *t)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const answer *a = idx[mid];
		if (a->dur == t->dur && a->scaleup == t->scaleup_bytes && a->nic == t->nic_bytes)
			return a;
		if (key_cmp(t->dur, t->scaleup_bytes, t->nic_bytes, a) < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void plan_netflow_report(const plan_netflow *f, plan_graph *g)
{
	if (!f || !g)
		return;
	enum { K = NET_LINK_KIND_COUNT };
	size_t n = (size_t)g->ranks * K;
	double *by = calloc(n + 1, sizeof *by), *busy = calloc(n + 1, sizeof *busy),
	       *sat = calloc(n + 1, sizeof *sat), *top = calloc(n + 1, sizeof *top);
	int *link = malloc((n + 1) * sizeof *link);
	const answer **idx = malloc(((size_t)f->na + 1) * sizeof *idx);
	if (by && busy && sat && top && link && idx) {
		for (int i = 0; i < f->na; i++)
			idx[i] = &f->a[i];
		qsort(idx, (size_t)f->na, sizeof *idx, by_key);
		for (size_t i = 0; i < n; i++)
			link[i] = -1;
		for (size_t i = 0; i < g->ntasks; i++) {
			const plan_task *t = &g->tasks[i];
			const answer *a = is_comm(t->kind) ? find(idx, f->na, t) : NULL;
			for (int c = 0; a && c < K; c++) {
				size_t j = (size_t)t->rank * K + (size_t)c;
				if (a->bytes[c] <= 0)
					continue;
				if (a->bytes[c] > top[j]) { /* name the heaviest task's link */
					top[j] = a->bytes[c];
					link[j] = a->link[c];
				}
				by[j] += a->bytes[c];
				busy[j] += sim_time_to_s(t->dur);
				sat[j] += a->sat_s[c];
			}
		}
		memset(&g->net, 0, sizeof g->net);
		g->net.on = true;
		for (int c = 0; c < K; c++) {
			int best = -1;
			for (int k = 0; k < g->ranks; k++)
				if (by[(size_t)k * K + c] > 0 &&
				    (best < 0 || by[(size_t)k * K + c] > by[(size_t)best * K + c]))
					best = k;
			if (best < 0)
				continue;
			size_t j = (size_t)best * K + (size_t)c;
			g->net.bytes[c] = by[j];
			g->net.busy_s[c] = busy[j];
			g->net.sat_s[c] = sat[j];
			const topo_link *l = link[j] >= 0 ? topo_link_at(f->g, link[j]) : NULL;
			if (l) {
				char a[28], b[28];
				topo_vertex_name(f->g, l->src, a, sizeof a);
				topo_vertex_name(f->g, l->dst, b, sizeof b);
				snprintf(g->net.name[c], sizeof g->net.name[c], "%s -> %s", a, b);
			}
		}
	}
	free(by);
	free(busy);
	free(sat);
	free(top);
	free(link);
	free(idx);
}
