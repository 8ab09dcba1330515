/* graph.c - the task-graph container and the pipeline schedule orders. */
#include "plan.h"

#include <stdlib.h>

plan_graph *plan_graph_new(int ranks, int rank_gpus)
{
	plan_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->ranks = ranks;
	g->rank_gpus = rank_gpus;
	return g;
}

int plan_graph_offload(plan_graph *g, int rank, int link, double bytes, double dur_s,
		       double cap_Bps)
{
	if (!g->offload && !(g->offload = calloc((size_t)g->ranks, sizeof *g->offload)))
		return SIM_ENOMEM;
	if (rank < 0 || rank >= g->ranks || link < 0 || link >= PLAN_OFF_COUNT || !(bytes > 0))
		return SIM_OK;
	plan_offload_load *o = &g->offload[rank];
	o->bytes[link] += bytes;
	o->busy_s[link] += dur_s;
	if (dur_s > 0 && cap_Bps > 0 && bytes / dur_s >= 0.95 * cap_Bps)
		o->sat_s[link] += dur_s;
	return SIM_OK;
}

void plan_graph_free(plan_graph *g)
{
	if (!g)
		return;
	free(g->tasks);
	free(g->edges);
	free(g->mem_static);
	free(g->mem_act_op);
	free(g->net_frac);
	free(g->net_nodes);
	free(g->deep_rate);
	free(g->quiet);
	free(g->sm_scale);
	free(g->offload);
	free(g->up_unit);
	free(g);
}

int plan_graph_edge(plan_graph *g, uint32_t from, uint32_t to)
{
	if (g->nedges == g->ecap) {
		size_t cap = g->ecap ? 2 * g->ecap : 1024;
		plan_edge *e = realloc(g->edges, cap * sizeof *e);
		if (!e)
			return SIM_ENOMEM;
		g->edges = e;
		g->ecap = cap;
	}
	g->edges[g->nedges].from = from;
	g->edges[g->nedges].to = to;
	g->nedges++;
	return SIM_OK;
}

uint32_t plan_graph_add(plan_graph *g, const plan_task *t, const uint32_t *deps, uint32_t ndeps)
{
	if (g->ntasks >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (g->ntasks == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 1024;
		plan_task *n = realloc(g->tasks, cap * sizeof *n);
		if (!n)
			return UINT32_MAX;
		g->tasks = n;
		if (g->net_frac) { /* the per-task spread arrays keep the tasks' capacity */
			float *f = realloc(g->net_frac, cap * sizeof *f);
			if (f)
				g->net_frac = f;
			uint16_t *m = f ? realloc(g->net_nodes, cap * sizeof *m) : NULL;
			if (!m)
				return UINT32_MAX;
			g->net_nodes = m;
		}
		if (g->deep_rate) {
			float *d = realloc(g->deep_rate, cap * sizeof *d);
			if (!d)
				return UINT32_MAX;
			g->deep_rate = d;
		}
		if (g->quiet) {
			uint8_t *q = realloc(g->quiet, cap * sizeof *q);
			if (!q)
				return UINT32_MAX;
			g->quiet = q;
		}
		if (g->sm_scale) {
			float *q = realloc(g->sm_scale, cap * sizeof *q);
			if (!q)
				return UINT32_MAX;
			g->sm_scale = q;
		}
		g->cap = cap;
	}
	uint32_t id = (uint32_t)g->ntasks;
	g->tasks[id] = *t;
	g->dur_total = sim_time_add_sat(g->dur_total, t->dur > 0 ? t->dur : 0);
	if (id == 0 || t->dur > g->tasks[g->longest].dur)
		g->longest = id;
	if (g->net_frac)
		g->net_frac[id] = 0, g->net_nodes[id] = 0;
	if (g->deep_rate)
		g->deep_rate[id] = 0;
	if (g->quiet)
		g->quiet[id] = 0;
	if (g->sm_scale)
		g->sm_scale[id] = 1;
	g->ntasks++;
	for (uint32_t i = 0; i < ndeps; i++)
		if (deps[i] != UINT32_MAX && plan_graph_edge(g, deps[i], id) != SIM_OK)
			return UINT32_MAX;
	return id;
}

const char *plan_task_inputs(uint8_t kind)
{
	switch (kind) {
	case PLAN_TASK_FWD:
	case PLAN_TASK_BWD:
	case PLAN_TASK_RECOMP:
	case PLAN_TASK_WGRAD:
		return "the kernels' FLOPs and bytes ([model] shape and seq_len, [parallel] "
		       "micro_batch) at the GPU's peaks ([gpu] FLOP/s, HBM bandwidth, overheads)";
	case PLAN_TASK_OPTIM:
		return "the optimizer's memory traffic at the GPU's HBM bandwidth ([gpu])";
	case PLAN_TASK_OFFLOAD:
		return "host copies and the CPU optimizer ([node] PCIe, host memory and NVMe "
		       "bandwidths)";
	default:
		return "a collective's bytes over its group's links ([node] and [cluster] "
		       "bandwidths and latencies, collective overheads)";
	}
}

static const char *task_kind_name(uint8_t kind)
{
	static const char *const names[PLAN_TASK_KIND_COUNT] = {
		"forward compute", "backward compute", "recompute", "weight-gradient compute",
		"optimizer", "TP collective", "DP gradient reduction", "pipeline transfer",
		"context-parallel transfer", "expert all-to-all", "offload"};
	return kind < PLAN_TASK_KIND_COUNT ? names[kind] : "task";
}

int plan_graph_horizon(const plan_graph *g, char *why, size_t len)
{
	if (g->dur_total < SIM_TIME_HORIZON)
		return SIM_OK;
	if (why && len) {
		const plan_task *t = &g->tasks[g->longest];
		char at[64] = "";
		if (t->layer >= 0 && t->kind != PLAN_TASK_PP) /* (a PP task's: its peer) */
			snprintf(at, sizeof at, ", layer %d", t->layer);
		snprintf(why, len,
			 "the step's tasks add up to %s%.3g days, past the simulator's clock (at "
			 "most %.0f days a step in int64 picoseconds): the longest, a %s task on "
			 "stage %d%s, lasts %s%.3g s; its time comes from %s",
			 g->dur_total >= SIM_TIME_MAX ? "at least " : "",
			 sim_time_to_s(g->dur_total) / 86400, sim_time_to_s(SIM_TIME_HORIZON) / 86400,
			 task_kind_name(t->kind), (int)t->rank, at,
			 t->dur >= SIM_TIME_MAX ? "at least " : "", sim_time_to_s(t->dur),
			 plan_task_inputs(t->kind));
	}
	return SIM_ERANGE;
}

const char *plan_task_kind_short(uint8_t kind)
{
	static const char *const names[PLAN_TASK_KIND_COUNT] = {
		"fwd", "bwd", "recompute", "wgrad", "optimizer", "tp", "dp", "pp", "cp", "ep",
		"offload"};
	return kind < PLAN_TASK_KIND_COUNT ? names[kind] : "?";
}

size_t plan_graph_varying(const plan_graph *g, plan_varying *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; g->net_frac && i < g->ntasks; i++) {
		if (!(g->net_frac[i] > 0))
			continue;
		const plan_task *t = &g->tasks[i];
		size_t k = 0;
		while (k < n && !(out[k].kind == t->kind && out[k].nodes == g->net_nodes[i]))
			k++;
		if (k == n && n == cap)
			continue;
		if (k == n)
			out[n++] = (plan_varying){t->kind, g->net_nodes[i], 0, 0, 0};
		double d = sim_time_to_s(t->dur);
		out[k].tasks++;
		out[k].dur_s += d;
		out[k].net_s += d * g->net_frac[i];
	}
	return n;
}

double plan_graph_stream_s(const plan_graph *g, int rank, int stream)
{
	double s = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].rank == rank && g->tasks[i].stream == stream)
			s += sim_time_to_s(g->tasks[i].dur);
	return s;
}

double plan_graph_deep_rate(const plan_graph *g, int rank)
{
	double full = 0, slowed = 0; /* at full rate, at the rate beside DeepEP */
	for (size_t i = 0; g->deep_rate && i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		if (t->rank == rank && t->stream == PLAN_STREAM_COMPUTE && g->deep_rate[i] > 0)
			full += sim_time_to_s(t->dur), slowed += sim_time_to_s(t->dur) / g->deep_rate[i];
	}
	return slowed > 0 ? full / slowed : 0;
}

int plan_graph_set_net(plan_graph *g, uint32_t id, double frac, int nodes)
{
	if (id >= g->ntasks)
		return SIM_EINVAL;
	if (!g->net_frac) {
		g->net_frac = calloc(g->cap, sizeof *g->net_frac);
		g->net_nodes = calloc(g->cap, sizeof *g->net_nodes);
		if (!g->net_frac || !g->net_nodes) {
			free(g->net_frac), free(g->net_nodes);
			g->net_frac = NULL, g->net_nodes = NULL;
			return SIM_ENOMEM;
		}
	}
	g->net_frac[id] = (float)(frac > 0 ? (frac < 1 ? frac : 1) : 0);
	g->net_nodes[id] = (uint16_t)(nodes < 1 ? 0 : nodes < UINT16_MAX ? nodes : UINT16_MAX);
	return SIM_OK;
}

int plan_graph_set_deep(plan_graph *g, uint32_t id, double rate)
{
	if (id >= g->ntasks)
		return SIM_EINVAL;
	if (!g->deep_rate && !(g->deep_rate = calloc(g->cap, sizeof *g->deep_rate)))
		return SIM_ENOMEM;
	g->deep_rate[id] = (float)(rate > 0 ? (rate < 1 ? rate : 1) : 0);
	return SIM_OK;
}

int plan_graph_set_quiet(plan_graph *g, uint32_t id)
{
	if (id >= g->ntasks)
		return SIM_EINVAL;
	if (!g->quiet && !(g->quiet = calloc(g->cap, sizeof *g->quiet)))
		return SIM_ENOMEM;
	g->quiet[id] = 1;
	return SIM_OK;
}

int plan_graph_set_scale(plan_graph *g, uint32_t id, double scale)
{
	if (id >= g->ntasks)
		return SIM_EINVAL;
	if (!g->sm_scale) {
		if (!(g->sm_scale = malloc(g->cap * sizeof *g->sm_scale)))
			return SIM_ENOMEM;
		for (size_t i = 0; i < g->cap; i++)
			g->sm_scale[i] = 1;
	}
	g->sm_scale[id] = (float)(scale > 0 ? scale : 0);
	return SIM_OK;
}

/* Megatron's micro-batch and chunk of the k-th forward (or backward) step,
 * its schedule table (get_schedule_table, schedules.py:989-1020 at
 * d98e8a64): the m micro-batches in groups of n contiguous ones, each group
 * run through chunk 0, then chunk 1, ...; the group that reaches m (its
 * first micro-batch L = ((m - 1) / n) n) takes the r = m - L left. With
 * n = p and m a multiple of p: chunk (k / p) % vpp of micro-batch
 * (k / (p vpp)) p + k % p, the schedule before the groups. */
static plan_op interleaved_op(int k, int n, int m, int vpp, bool backward)
{
	if (vpp <= 1) /* one chunk: op k is micro-batch k (the general case's
		       * result, without its divisions) */
		return (plan_op){backward, k, 0, false};
	int last = m > 0 ? (m - 1) / n * n : 0, mb, chunk;
	if (k < last * vpp) {
		int in_group = k % (n * vpp);
		chunk = in_group / n;
		mb = (k / (n * vpp)) * n + in_group % n;
	} else {
		int r = m - last, j = k - last * vpp;
		chunk = j / r;
		mb = last + j % r;
	}
	plan_op op = {backward, mb, backward ? vpp - 1 - chunk : chunk, false};
	return op;
}

/* interleaved_op's steps k = 0, 1, 2, ... in turn, without its divisions
 * (a schedule's order is asked for every plan of a sweep): the group g,
 * chunk c and place r in the group of the next step, then the last group's
 * (from micro-batch `last`, r = m - last of them). */
typedef struct ilv_steps {
	int n, m, vpp, last, g, c, r;
	bool tail;
} ilv_steps;

static void ilv_init(ilv_steps *it, int n, int m, int vpp)
{
	*it = (ilv_steps){n, m, vpp, m > 0 ? (m - 1) / n * n : 0, 0, 0, 0, false};
	it->tail = it->last == 0;
}

static plan_op ilv_next(ilv_steps *it, bool backward)
{
	int mb = it->tail ? it->last + it->r : it->g * it->n + it->r, chunk = it->c;
	int size = it->tail ? it->m - it->last : it->n;
	if (++it->r == size) {
		it->r = 0;
		if (++it->c == it->vpp && !it->tail) {
			it->c = 0;
			it->tail = ++it->g * it->n == it->last;
		}
	}
	return (plan_op){backward, mb, backward ? it->vpp - 1 - chunk : chunk, false};
}

int plan_vp_group(const plan_spec *p)
{
	int m = plan_microbatches(p);
	if (p->vpp <= 1 || p->pp <= 0 || plan_sched_v(p->schedule) ||
	    p->schedule == PLAN_SCHED_LOOPED_BFS)
		return p->pp; /* (the V's and Looped BFS's orders have no groups) */
	if (p->vp_group > 0)
		return p->vp_group;
	if (p->vp_groups && p->vp_rule == PLAN_VP_TORCH) {
		/* torch pipelining: r = max(1, m // pp) rounds of m / r (torch
		 * 2.14.1 distributed/pipelining/schedules.py:3193-3200); pp where
		 * m is no multiple of r, which plan_check refuses */
		int r = m / p->pp > 1 ? m / p->pp : 1;
		return m % r == 0 ? m / r : p->pp;
	}
	if (!p->vp_groups || m % p->pp == 0)
		return p->pp;
	for (int n = p->pp + 1; n <= m; n++)
		if (m % n == 0 || m % n >= p->pp)
			return n;
	return p->pp; /* m < pp: plan_check refuses it */
}

int plan_schedule_steps(plan_schedule sched, int m, int vpp)
{
	return (plan_sched_zb(sched) ? 3 : 2) * m * vpp;
}

/* Writes out[n] while n < cap: the first cap ops of the order. */
#define EMIT(op)                                                                                   \
	do {                                                                                       \
		if (n >= cap)                                                                      \
			return n;                                                                  \
		out[n++] = (op);                                                                   \
	} while (0)

/* ZB-H1 follows the b-th backward B of stage s with the weight pass W of
 * backward b - s: stage s holds s weight passes back (the last stage p - 1), so
 * that its B of the next micro-batch, which the upstream stage waits for, is
 * not queued behind a W; each held W keeps its micro-batch's activations, s
 * more than 1F1B's p - s, so no stage exceeds the first stage's p, the 1F1B
 * peak (Qi et al. 2024, figure 3). The held passes run last, oldest first. */
int plan_warm_extra(const plan_spec *p)
{
	return p->moe_a2a_overlap ? 1 : 0;
}

int plan_schedule_warm(plan_schedule sched, int p, int m, int vpp, int group, int extra, int stage)
{
	if (plan_sched_v(sched)) /* 2 (p - r) - 1 + 2 r + 1 forwards before the
				  * first backward (zbv_order); 2 (p - r - 1) +
				  * 2 (r + 1) (dualpipev_order) */
		return 2 * p < m * vpp ? 2 * p : m * vpp;
	/* interleaved: two steps a stage away from the last (Megatron's
	 * get_schedule_table, torch's Interleaved1F1B); one under torch's
	 * interleaved zero bubble (_get_warmup_ops with multiply_factor 1, torch
	 * 2.14.1 distributed/pipelining/schedules.py:3130-3146, 3332-3339) */
	int hop = sched == PLAN_SCHED_ZB_H1 ? 1 : 2;
	int warm = (vpp > 1 ? (p - stage - 1) * hop + (vpp - 1) * group : p - 1 - stage) + extra;
	return warm < m * vpp ? warm : m * vpp;
}

/* ZBV (torch 2.14.1 distributed/pipelining/schedules.py:3457-3600,
 * ScheduleZBVZeroBubble._calculate_single_rank_operations), rank r of p with
 * chunk 0 (virtual stage r) and chunk 1 (2p - 1 - r), each backward split
 * into B (torch's I) and W: 2 (p - r) - 1 forwards of chunk 0; r pairs of a
 * chunk-1 and a chunk-0 forward; p - r steps of a chunk-1 forward, B and W;
 * then while chunk 1 trails chunk 0 or forwards remain, a chunk-0 forward
 * (while any is left), B and W of chunk 0, a chunk-1 forward, B and W of
 * chunk 1; then r pairs of a chunk-0 and a chunk-1 B; p - r steps of a
 * chunk-0 B and the W of chunk 0's oldest held backward; the Ws left, chunk
 * 1's, then chunk 0's, oldest first. Each chunk's micro-batches in order;
 * m >= 2p - 1 (torch's warm-up takes that many: plan_check). */
static int zbv_order(int p, int m, int r, int cap, plan_op *out)
{
	int n = 0, f0 = 0, f1 = 0, b0 = 0, b1 = 0;
#define ZF(c, mb) EMIT(((plan_op){false, (mb), (c), false}))
#define ZB(c, mb) EMIT(((plan_op){true, (mb), (c), false}))
#define ZW(c, mb) EMIT(((plan_op){true, (mb), (c), true}))
	for (int i = 0; i < 2 * (p - r) - 1; i++)
		ZF(0, f0++);
	for (int i = 0; i < r; i++) {
		ZF(1, f1++);
		ZF(0, f0++);
	}
	for (int i = 0; i < p - r; i++) {
		ZF(1, f1++);
		ZB(1, b1);
		ZW(1, b1++);
	}
	while (f1 < f0 || f0 < m) {
		if (f0 < m)
			ZF(0, f0++);
		ZB(0, b0);
		ZW(0, b0++);
		ZF(1, f1++);
		ZB(1, b1);
		ZW(1, b1++);
	}
	int w0 = b0, w1 = b1;
	for (int i = 0; i < r; i++) {
		ZB(0, b0++);
		ZB(1, b1++);
	}
	for (int i = 0; i < p - r; i++) {
		ZB(0, b0++);
		ZW(0, w0++);
	}
	while (w1 < b1)
		ZW(1, w1++);
	while (w0 < b0)
		ZW(0, w0++);
#undef ZF
#undef ZB
#undef ZW
	return n;
}

/* DualPipeV (torch 2.14.1 distributed/pipelining/schedules.py:3729-3866,
 * ScheduleDualPipeV._calculate_single_rank_operations), rank r of p with
 * chunk 0 (virtual stage r) and chunk 1 (2p - 1 - r) as ZBV. torch's
 * actions: F, I (a backward's input pass, B here, its W queued), W (the
 * oldest queued one, if any), FULL_BACKWARD (B and its W at once) and
 * OVERLAP_F_B (a forward and a whole backward, which torch's runtime runs
 * one after the other, :2890-2894). Steps: 2 (p - r - 1) F0; r + 1 of F0 F1;
 * p - r - 1 of I1 W F1; m - 2p + r + 1 of F0+B1 F1+B0 (on the last rank the
 * first F0 and B1 not overlapped); p - r - 1 of B1 F1+B0; r + 1 of B1 B0,
 * whole until the middle one (on odd ranks from B1, on even from B0) and
 * split after; p - r - 1 of W B0 (split); r + 1 W. Each chunk's forwards and
 * backwards in micro-batch order; m >= 2p (torch raises a ValueError with
 * fewer: plan_check). */
#define DPV_Q 4096 /* at most about 2 p weight passes wait at once */
typedef struct dpv {
	int f[2], b[2];    /* the next forward and backward of each chunk */
	int qc[DPV_Q], qm[DPV_Q]; /* the queued weight passes (chunk, micro-batch) */
	int qh, qt;
} dpv;

static int dualpipev_order(int p, int m, int r, int cap, plan_op *out)
{
	int n = 0;
	static const dpv zero;
	dpv d = zero;
	bool zb = false;
#define DF(c) EMIT(((plan_op){false, d.f[c]++, (c), false}))
#define DB(c) EMIT(((plan_op){true, d.b[c], (c), false}))
#define DW(c, mb) EMIT(((plan_op){true, (mb), (c), true}))
#define FULL(c) do { DB(c); DW((c), d.b[c]); d.b[c]++; } while (0)
#define SPLIT(c)                                                                                  \
	do {                                                                                       \
		DB(c);                                                                             \
		d.qc[d.qt % DPV_Q] = (c), d.qm[d.qt % DPV_Q] = d.b[c]++, d.qt++;                   \
	} while (0)
#define PEND()                                                                                     \
	do {                                                                                       \
		if (d.qh < d.qt) {                                                                 \
			DW(d.qc[d.qh % DPV_Q], d.qm[d.qh % DPV_Q]);                                \
			d.qh++;                                                                    \
		}                                                                                  \
	} while (0)
#define BACK(c) do { if (zb) SPLIT(c); else FULL(c); } while (0)
	for (int i = 0; i < 2 * (p - r - 1); i++)
		DF(0);
	for (int i = 0; i < r + 1; i++) {
		DF(0);
		DF(1);
	}
	for (int i = 0; i < p - r - 1; i++) {
		SPLIT(1);
		PEND();
		DF(1);
	}
	for (int i = 0; i < m - 2 * p + r + 1; i++) {
		DF(0); /* (on the last rank the first pair not overlapped: the same order) */
		FULL(1);
		DF(1);
		FULL(0);
	}
	for (int i = 0; i < p - r - 1; i++) {
		FULL(1);
		DF(1);
		FULL(0);
	}
	for (int i = 0, half = (r + 1) / 2; i < r + 1; i++) {
		if (i == half && r % 2 == 1)
			zb = true;
		BACK(1);
		if (i == half && r % 2 == 0)
			zb = true;
		BACK(0);
	}
	for (int i = 0; i < p - r - 1; i++) {
		PEND();
		BACK(0);
	}
	for (int i = 0; i < r + 1; i++)
		PEND();
	while (d.qh < d.qt) /* (none left: torch's counts balance) */
		PEND();
#undef DF
#undef DB
#undef DW
#undef FULL
#undef SPLIT
#undef PEND
#undef BACK
	return n;
}

int plan_schedule_head(plan_schedule sched, int p, int m, int vpp, int group, int extra,
		       int stage, int cap, plan_op *out)
{
	if (sched == PLAN_SCHED_ZBV)
		return zbv_order(p, m, stage, cap, out);
	if (sched == PLAN_SCHED_DUALPIPEV)
		return dualpipev_order(p, m, stage, cap, out);
	if (vpp <= 1 || group <= 0)
		group = p; /* the groups only order interleaved chunks */
	int n = 0, total = m * vpp;
	if (sched == PLAN_SCHED_GPIPE) {
		for (int i = 0; i < m; i++)
			EMIT(((plan_op){false, i, 0, false}));
		for (int i = 0; i < m; i++)
			EMIT(((plan_op){true, i, 0, false}));
		return n;
	}
	if (sched == PLAN_SCHED_LOOPED_BFS) { /* torch's _calculate_single_rank_operations */
		for (int c = 0; c < vpp; c++)
			for (int i = 0; i < m; i++)
				EMIT(((plan_op){false, i, c, false}));
		for (int c = vpp - 1; c >= 0; c--)
			for (int i = m - 1; i >= 0; i--)
				EMIT(((plan_op){true, i, c, false}));
		return n;
	}
	int warm = plan_schedule_warm(sched, p, m, vpp, group, extra, stage);
	int f = 0, b = 0;
	plan_op w_op; /* the interleaved op of index b is a pure function of b */
	ilv_steps fs, bs;
	ilv_init(&fs, group, m, vpp);
	ilv_init(&bs, group, m, vpp);
	for (; f < warm; f++)
		EMIT(ilv_next(&fs, false));
	while (f < total || b < total) {
		if (f < total) {
			EMIT(ilv_next(&fs, false));
			f++;
		}
		EMIT(ilv_next(&bs, true));
		if (sched == PLAN_SCHED_ZB_H1 && b - stage >= 0) {
			w_op = interleaved_op(b - stage, group, m, vpp, true);
			w_op.weight = true;
			EMIT(w_op);
		}
		b++;
	}
	/* ZB-H1: the weight passes still held run last, oldest first. */
	for (int w = total - stage; sched == PLAN_SCHED_ZB_H1 && w < total; w++) {
		if (w < 0)
			continue;
		w_op = interleaved_op(w, group, m, vpp, true);
		w_op.weight = true;
		EMIT(w_op);
	}
	return n;
}

#undef EMIT

void plan_schedule_order(plan_schedule sched, int p, int m, int vpp, int group, int extra,
			 int stage, plan_op *out)
{
	plan_schedule_head(sched, p, m, vpp, group, extra, stage,
			   plan_schedule_steps(sched, m, vpp), out);
}
