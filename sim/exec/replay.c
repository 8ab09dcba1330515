/* replay.c - replaying a task graph on the event engine.
 *
 * Stream semantics: every (rank, stream) pair is a FIFO of its tasks in graph
 * order. A task starts when it is at the head of its FIFO, its stream is idle and
 * all predecessors have ended; its end is an engine event at start + dur.
 *
 * Attribution of the compute stream's time (so that categories sum to the step):
 *  - busy time goes to compute (forward, backward, recompute) or optimizer;
 *  - an idle gap [free, start] before a compute task is charged to the
 *    predecessor that ended last (the blocker). If the blocker is a pipeline
 *    transfer, the part of the gap while the transfer was in flight is exposed
 *    PP communication and the part before it started is bubble (the neighbour
 *    was still computing). If it is a TP or DP collective, the whole gap is that
 *    group's exposed communication, except that when the collective itself
 *    waited for a pipeline transfer (the receiver's all-gather of a
 *    scatter-gather p2p) only its own run is, and the gap before it started
 *    goes to the transfer by the pipeline rule. Otherwise it is bubble;
 *  - after the rank's last compute task: time until its own DP tasks end is
 *    exposed DP, the rest until the step ends is bubble (pp > 1) or other.
 *
 * Interference: while a collective (TP, DP, PP, CP or EP stream: NCCL kernels
 * on SMs; not the copy-engine offload stream) runs on a rank, its compute task
 * progresses at 1 - interference x k (the GPU type's share of SMs 16 NCCL
 * channels take, hw.h, times the collective's plan_graph.sm_scale k, its
 * communicator's channels over 16; several running: the largest k,
 * comm_scale). Where the EP stream's tasks are DeepEP's kernels (plan_graph
 * ep_deep: plan_ep_deepep) those hold their own SMs beside any NCCL
 * collective's: the compute then runs at
 *     1 - min(0.9, [NCCL running] interference x k + [DeepEP running] d)
 * with d the task's own loss beside them (1 - plan_graph.deep_rate: its
 * GEMMs' waves on the SMs left, hw_gemm_time_held) or, where unset, the
 * SMs' share ep_share
 * (the SMs the two take add up; several NCCL collectives at once are charged
 * one interference, at the largest k). The running compute
 * task's remaining work is updated and its end rescheduled whenever the
 * rank's count of running collectives of either kind changes. The time it
 * loses is charged to the group of the collective that started last (exposed
 * communication hidden inside a longer compute task).
 */
#include "exec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct replay {
	const plan_graph *g;
	sim_engine *eng;
	uint32_t *pred_first, *pred; /* CSR of predecessors */
	uint32_t *succ_first, *succ; /* CSR of successors */
	uint32_t *pending;           /* unfinished predecessors */
	sim_time *start, *end;
	uint32_t *q_first, *q, *q_pos; /* per (rank, stream) FIFO */
	bool *busy;
	sim_time *free_since; /* per rank: compute stream idle since */
	double *cat;          /* per rank x EXEC_CAT_COUNT, seconds */
	uint64_t done;
	/* interference, per rank: the running compute task, the time its work
	 * left (left[]) was last settled, and the collectives running */
	uint32_t *running;
	sim_time *since;
	int *comms, *deep; /* ... NCCL's and DeepEP's (ep_share) */
	uint8_t *last_comm; /* plan_task_kind of the last collective started */
	/* NIC sharing, per rank: the running transfers that use the NICs (at most
	 * one per stream, and the pipeline transfers landing on them), per
	 * transfer its progress as of tsince, its end event and work left (ps at
	 * its own rate) */
	double nic_cap;    /* bytes/s one NIC achieves (0: no sharing) */
	uint32_t *nic_run; /* ranks x PLAN_STREAM_COUNT, UINT32_MAX = none */
	/* ranks x IN_SLOTS: the pipeline transfers landing on the rank's NICs
	 * from its neighbours (pp_peer), UINT32_MAX = none */
	uint32_t *in_run;
	/* per rank x direction (POOL_TX, POOL_RX): the NIC share of the
	 * transfers sending (receiving) through its NICs */
	double *nic_rate;
	sim_time *tsince; /* per transfer: its progress settled as of then */
	/* Uplink sharing (oversubscribed fabrics): bytes/s one fabric uplink
	 * achieves (0: not shared, the NICs bound), per rank and direction (as
	 * nic_rate) the uplink share of its transfers that climb to the spines
	 * (the downlinks' receiving), and per rank x exec_cat
	 * the seconds its transfers lost to the uplink share beyond their NIC
	 * share; up_off: a replay with the uplinks not shared (the reference
	 * exec_replay_views compares against) */
	double up_cap;
	double *up_rate;
	double *up_lost;
	bool up_off;
	/* The fabric units whose leaf uplinks the classes' transfers share
	 * (plan_graph.up_unit; without it each class its own): per class its
	 * first and last unit (cu[2 k], cu[2 k + 1]), per unit the classes
	 * under it (um[um_first[u] .. um_first[u + 1] - 1]); up_rate is per
	 * unit and direction. Scratch: a unit's pool (maxm classes' pools), a
	 * change's affected transfers and their old rates. */
	int nunit, maxm, *cu, *um_first, *um;
	uint32_t *scr_pool, *scr_aff;
	double *scr_old;
	/* tasks whose rate changes while they run (compute under interference,
	 * transfers sharing NICs): their end event and work left (ps at full
	 * rate) as of their last settling */
	sim_event_id *ev;
	double *left;
	/* SIM_ERANGE when a task's end would pass the clock's horizon (a
	 * stretched task: retime), SIM_ENOMEM when the engine could not take
	 * an event; err_task is the task */
	int err;
	uint32_t err_task;
} replay;

/* Does task t slow the compute beside it (a collective's kernels on SMs)?
 * Not the compute or copy-engine offload streams, nor a quiet collective
 * (plan_graph.quiet: tp_comm_overlap's userbuffer exchanges). */
static bool interferes(const plan_graph *g, uint32_t t)
{
	uint8_t stream = g->tasks[t].stream;
	return stream != PLAN_STREAM_COMPUTE && stream != PLAN_STREAM_OFFLOAD &&
	       !(g->quiet && g->quiet[t]);
}

static double interference(const plan_graph *g, int rank)
{
	return g->rank_interference ? g->rank_interference[rank] : g->interference;
}

static double ep_share(const plan_graph *g, int rank)
{
	return g->rank_ep_share ? g->rank_ep_share[rank] : g->ep_share;
}

/* Is task t one of DeepEP's kernels (counted in deep[], not comms[])? */
static bool is_deep(const plan_graph *g, const plan_task *t)
{
	return t->stream == PLAN_STREAM_EP && g->ep_deep;
}

/* The running compute task's share lost beside DeepEP's kernels: its own
 * (plan_graph.deep_rate: its GEMMs' waves on the SMs left), else ep_share. */
static double deep_lost(const replay *r, int rank)
{
	uint32_t t = r->running[rank];
	const float *d = r->g->deep_rate;
	return t != UINT32_MAX && d && d[t] > 0 ? 1.0 - d[t] : ep_share(r->g, rank);
}

/* The SM share of the rank's running NCCL collectives as a multiple of
 * the interference: the largest of their plan_graph.sm_scale (one running
 * per stream; several at once are charged the largest one, as before). */
static double comm_scale(const replay *r, int rank)
{
	const plan_graph *g = r->g;
	if (!g->sm_scale)
		return 1.0;
	double s = 0;
	for (int st = 0; st < PLAN_STREAM_COUNT; st++) {
		size_t q = (size_t)rank * PLAN_STREAM_COUNT + (size_t)st;
		if (!r->busy[q] || st == PLAN_STREAM_COMPUTE)
			continue;
		uint32_t t = r->q[r->q_pos[q] - 1];
		if (interferes(g, t) && !is_deep(g, &g->tasks[t]) && g->sm_scale[t] > s)
			s = g->sm_scale[t];
	}
	return s;
}

static double rate(const replay *r, int rank)
{
	double lost = (r->comms[rank] > 0 ? interference(r->g, rank) * comm_scale(r, rank) : 0.0) +
		      (r->deep[rank] > 0 ? deep_lost(r, rank) : 0.0);
	return 1.0 - (lost < 0.9 ? lost : 0.9);
}

static void on_end(sim_engine *eng, void *ctx, uint64_t arg);
static exec_cat comm_cat(uint8_t kind);

/* Task t ran at `rate` since `since`: take that progress off its work left. */
static void settle(replay *r, uint32_t t, double rate, sim_time since, sim_time now)
{
	r->left[t] -= rate * (double)(now - since);
	if (r->left[t] < 0)
		r->left[t] = 0;
}

/* (Re)schedule task t's end for its work left at `rate` from now. */
static void retime(replay *r, uint32_t t, double rate, sim_time now)
{
	if (r->ev[t])
		sim_engine_cancel(r->eng, r->ev[t]);
	r->ev[t] = 0;
	/* checked in double: the end must stay below the horizon (no wrap) */
	double d = r->left[t] / rate + 0.5;
	if (r->err)
		return;
	if (!(d < (double)(SIM_TIME_HORIZON - now))) {
		r->err = SIM_ERANGE, r->err_task = t;
		return;
	}
	r->ev[t] = sim_engine_schedule(r->eng, now + (sim_time)d, 0, on_end, r, t);
	if (!r->ev[t])
		r->err = SIM_ENOMEM, r->err_task = t;
}

/* The rank's count of collectives (DeepEP's kernels: deep) is about to
 * change by `delta` as the collective of queue q starts (busy) or ends:
 * settle the running compute task's progress at the old rate and
 * reschedule its end at the new one. */
static void comm_change(replay *r, int rank, bool deep, int delta, size_t q, bool busy)
{
	sim_time now = sim_engine_now(r->eng);
	uint32_t t = r->running[rank];
	bool on = t != UINT32_MAX && (deep ? ep_share(r->g, rank) : interference(r->g, rank)) > 0;
	if (on) {
		settle(r, t, rate(r, rank), r->since[rank], now);
		r->since[rank] = now;
	}
	(deep ? r->deep : r->comms)[rank] += delta;
	r->busy[q] = busy;
	if (on)
		retime(r, t, rate(r, rank), now);
}

static size_t qidx(const plan_task *t)
{
	return (size_t)t->rank * PLAN_STREAM_COUNT + t->stream;
}

/* NIC demand of a transfer on its own: the bytes it puts through each NIC
 * over its duration (it was costed with the NIC to itself). */
static double nic_demand(const plan_task *t)
{
	return t->dur > 0 && t->nic_bytes > 0 ? t->nic_bytes / sim_time_to_s(t->dur) : 0;
}

/* Uplink demand of a transfer on its own: the bytes it puts on the busiest
 * fabric uplink (net_cost.fabric_bytes) over its duration. */
static double up_demand(const plan_task *t)
{
	return t->dur > 0 && t->uplink_bytes > 0 ? t->uplink_bytes / sim_time_to_s(t->dur) : 0;
}

/* Does task t share the rank's NICs or uplinks while it runs? */
static bool shares(const replay *r, const plan_task *t)
{
	return t->stream != PLAN_STREAM_COMPUTE &&
	       ((r->nic_cap > 0 && nic_demand(t) > 0) || (r->up_cap > 0 && up_demand(t) > 0));
}

/* A pipeline transfer's receiver. The graph's rank classes are the
 * pipeline's stages (plan_graph_new(pp, ...)): a forward send (activations)
 * lands on the next stage, a backward one (gradients) on the previous, the
 * last stage's forward on stage 0 and stage 0's backward on the last with
 * model chunks (interleaved: virtual stage v + 1 is stage (v + 1) % pp).
 * The rank class it lands on, *slot its place among that class's incoming
 * transfers (in_run); -1 for any other task. */
#define IN_SLOTS 2
static int pp_peer(const replay *r, const plan_task *t, int *slot)
{
	*slot = t->stream == PLAN_STREAM_PP_FWD ? 0 : 1;
	return plan_task_pp_peer(t, r->g->ranks);
}

/* The transfers on rank k's NICs (and leaf uplinks) in one direction,
 * which are full duplex: sending (POOL_TX), its own running ones, one per
 * stream; receiving (POOL_RX), its own collectives (their rings and trees
 * receive what they send) and the pipeline transfers landing on it, not its
 * own pipeline sends. How many. */
#define POOL_MAX (PLAN_STREAM_COUNT + IN_SLOTS)
enum { POOL_TX = 0, POOL_RX = 1 };
static int pool(const replay *r, int k, int dir, uint32_t *out)
{
	int n = 0;
	const uint32_t *run = r->nic_run + (size_t)k * PLAN_STREAM_COUNT;
	const uint32_t *in = r->in_run + (size_t)k * IN_SLOTS;
	for (int i = 0; i < PLAN_STREAM_COUNT; i++)
		if (run[i] != UINT32_MAX &&
		    (dir == POOL_TX || r->g->tasks[run[i]].kind != PLAN_TASK_PP))
			out[n++] = run[i];
	for (int i = 0; i < IN_SLOTS && dir == POOL_RX; i++)
		if (in[i] != UINT32_MAX)
			out[n++] = in[i];
	return n;
}

/* Rank a's share of resource `rate` (nic_rate; up_rate: unit a's) in
 * direction dir. */
static double share(const double *rate, int a, int dir)
{
	return rate[(size_t)a * 2 + (size_t)dir];
}

/* The transfers on unit u's uplinks in direction dir: those in the pools
 * of every class under it (pool); out holds maxm x POOL_MAX. How many. */
static int pool_up(const replay *r, int u, int dir, uint32_t *out)
{
	int n = 0;
	for (int i = r->um_first[u]; i < r->um_first[u + 1]; i++)
		n += pool(r, r->um[i], dir, out + n);
	return n;
}

/* The progress rate of running transfer t: the smaller NIC share of the
 * pools it is in (*base) (a collective: its rank's, both directions; a
 * pipeline send: its rank's sending side and its receiver's receiving
 * side), then the smaller uplink share of those pools where t climbs to
 * the spines. */
static double xfer_rate(const replay *r, uint32_t t, double *base)
{
	const plan_task *x = &r->g->tasks[t];
	int slot, b = pp_peer(r, x, &slot), rx = b >= 0 ? b : x->rank;
	double nic = share(r->nic_rate, x->rank, POOL_TX);
	double n2 = share(r->nic_rate, rx, POOL_RX);
	nic = n2 < nic ? n2 : nic;
	double v = nic;
	if (r->up_cap > 0 && up_demand(x) > 0) { /* each unit its sides sit under */
		int ks[2] = {x->rank, rx}, ds[2] = {POOL_TX, POOL_RX};
		for (int p = 0; p < 2; p++)
			for (int u = r->cu[2 * ks[p]]; u <= r->cu[2 * ks[p] + 1]; u++) {
				double w = share(r->up_rate, u, ds[p]);
				v = w < v ? w : v;
			}
	}
	if (base)
		*base = nic;
	return v;
}

/* The fluid share of one resource in direction dir (a rank class's NICs,
 * or with `up` a unit's leaf uplinks) among the m transfers on it (on[]):
 * while their demands sum past its capacity `cap` (or past the largest
 * demand, which one transfer alone may have been costed at), each
 * progresses at cap / sum; else at its own rate. */
static double fluid_share(const replay *r, const uint32_t *on, int m, double cap, bool up)
{
	double sum = 0, top = 0;
	int n = 0;
	for (int i = 0; i < m; i++) {
		const plan_task *x = &r->g->tasks[on[i]];
		double d = up ? up_demand(x) : nic_demand(x);
		sum += d, n += d > 0;
		top = d > top ? d : top;
	}
	cap = cap > top ? cap : top;
	return sum > cap && n > 1 ? cap / sum : 1.0;
}

/* Append the m transfers of on[] not yet in aff[0 .. na - 1]; the new na. */
static int add_unique(uint32_t *aff, int na, const uint32_t *on, int m)
{
	for (int i = 0; i < m; i++) {
		bool seen = false;
		for (int j = 0; j < na && !seen; j++)
			seen = aff[j] == on[i];
		if (!seen)
			aff[na++] = on[i];
	}
	return na;
}

/* Transfers that run at once share the NICs of the rank class they run on
 * and, on an oversubscribed fabric, its leaf uplinks, each as a fluid
 * (fluid_share); a pipeline transfer also those of the class it lands on
 * (pp_peer): a stage's gradient sent back during the previous stage's
 * backward comes in through that stage's NICs (and leaf downlinks) while its
 * data-parallel buckets go out through them. A transfer progresses at the
 * smallest of its shares (xfer_rate). When transfer t starts or ends, settle
 * the progress of every transfer on the pools t uses (its rank's, and its
 * receiver's) at its old rate (counting what the uplink share took beyond
 * the NIC share: a transfer at x < its NIC share n for dt would have done
 * the same work in dt x / n, so it lost dt (1 - x / n)), update the pools
 * by t (add or remove), and reschedule the ends whose rate changed.
 *
 * Why a second resource. A rank class's transfers are costed one at a time,
 * each with every copy of its own group running (net.h, sim/topo): on a fat
 * tree with oversubscription o the closed forms run a transfer between nodes
 * at 1/o of the NIC rate, so a DP all-reduce alone already fills the leaf's
 * uplinks (its uplink demand fabric_bytes / dur = o x its NIC demand, about
 * an uplink's rate) while it uses only 1/o of its NICs. A pipeline send
 * beside it adds as much again: the NIC fluid sees 2/o of a NIC (no
 * sharing for o >= 2), the uplinks twice their rate, so both run at half
 * speed. With up_cap = the rate of one uplink (NIC rate x nic_efficiency,
 * the links fabric.c builds) and demands per busiest uplink, the uplink
 * fluid is the NIC fluid of a node whose N NICs share N/o uplinks. On a
 * non-blocking fabric (o = 1) a leaf has as many uplinks as NICs below it:
 * the NIC share bounds every set of transfers, and up_cap stays 0 (the
 * flow model's busiest uplink also holds one collective's own ECMP
 * collisions, which two collectives' hashes would not line up).
 *
 * The NICs and uplinks are full duplex: each rank has a sending and a
 * receiving pool of each (pool). A collective's ring or tree sends and
 * receives alike, in both of its rank's; a pipeline transfer sends in its
 * rank's sending pool and receives in its receiver's receiving pool, so a
 * stage's activation going out and the next stage's gradient coming in do
 * not meet, while a gradient coming in and the stage's own all-reduce do. */
static void nic_change(replay *r, uint32_t t, bool add)
{
	sim_time now = sim_engine_now(r->eng);
	const plan_task *x = &r->g->tasks[t];
	int slot = 0, peer = pp_peer(r, x, &slot);
	/* the pools t is in: its rank's sending side, and the receiving side
	 * of its receiver (a pipeline send) or of its rank (a collective) */
	int pk[2] = {x->rank, peer >= 0 ? peer : x->rank}, pd[2] = {POOL_TX, POOL_RX};
	uint32_t *aff = r->scr_aff, on[POOL_MAX];
	double *old = r->scr_old;
	int na = 0;
	for (int p = 0; p < 2; p++) {
		na = add_unique(aff, na, on, pool(r, pk[p], pd[p], on));
		for (int u = r->cu[2 * pk[p]]; r->up_cap > 0 && u <= r->cu[2 * pk[p] + 1]; u++)
			na = add_unique(aff, na, r->scr_pool, pool_up(r, u, pd[p], r->scr_pool));
	}
	for (int i = 0; i < na; i++) {
		uint32_t u = aff[i];
		double base, v = xfer_rate(r, u, &base);
		double dt = sim_time_to_s(now - r->tsince[u]);
		settle(r, u, v, r->tsince[u], now);
		r->tsince[u] = now;
		old[i] = v;
		const plan_task *y = &r->g->tasks[u];
		if (v < base)
			r->up_lost[(size_t)y->rank * EXEC_CAT_COUNT + comm_cat(y->kind)] +=
			        dt * (1 - v / base);
	}
	r->nic_run[(size_t)x->rank * PLAN_STREAM_COUNT + x->stream] = add ? t : UINT32_MAX;
	if (peer >= 0)
		r->in_run[(size_t)peer * IN_SLOTS + slot] = add ? t : UINT32_MAX;
	if (add)
		r->tsince[t] = now;
	for (int p = 0; p < 2; p++) {
		size_t q = (size_t)pk[p] * 2 + (size_t)pd[p];
		r->nic_rate[q] = fluid_share(r, on, pool(r, pk[p], pd[p], on), r->nic_cap, false);
		for (int u = r->cu[2 * pk[p]]; r->up_cap > 0 && u <= r->cu[2 * pk[p] + 1]; u++)
			r->up_rate[(size_t)u * 2 + (size_t)pd[p]] = fluid_share(
			        r, r->scr_pool, pool_up(r, u, pd[p], r->scr_pool), r->up_cap, true);
	}
	for (int i = 0; i < na; i++) {
		double v = xfer_rate(r, aff[i], NULL);
		if (aff[i] != t && v != old[i])
			retime(r, aff[i], v, now);
	}
	if (add)
		retime(r, t, xfer_rate(r, t, NULL), now);
}

/* Counting sort of edges into CSR form keyed by `key` (0 = from, 1 = to). */
static int csr(const plan_graph *g, bool by_to, uint32_t **first, uint32_t **list)
{
	*first = calloc(g->ntasks + 1, sizeof **first);
	*list = malloc((g->nedges ? g->nedges : 1) * sizeof **list);
	if (!*first || !*list)
		return SIM_ENOMEM;
	for (size_t i = 0; i < g->nedges; i++)
		(*first)[(by_to ? g->edges[i].to : g->edges[i].from) + 1]++;
	for (size_t i = 0; i < g->ntasks; i++)
		(*first)[i + 1] += (*first)[i];
	uint32_t *fill = malloc((g->ntasks + 1) * sizeof *fill);
	if (!fill)
		return SIM_ENOMEM;
	memcpy(fill, *first, (g->ntasks + 1) * sizeof *fill);
	for (size_t i = 0; i < g->nedges; i++) {
		uint32_t k = by_to ? g->edges[i].to : g->edges[i].from;
		(*list)[fill[k]++] = by_to ? g->edges[i].from : g->edges[i].to;
	}
	free(fill);
	return SIM_OK;
}

static int queues(replay *r)
{
	const plan_graph *g = r->g;
	size_t nq = (size_t)g->ranks * PLAN_STREAM_COUNT;
	r->q_first = calloc(nq + 1, sizeof *r->q_first);
	r->q = malloc((g->ntasks ? g->ntasks : 1) * sizeof *r->q);
	r->q_pos = calloc(nq, sizeof *r->q_pos);
	r->busy = calloc(nq, sizeof *r->busy);
	if (!r->q_first || !r->q || !r->q_pos || !r->busy)
		return SIM_ENOMEM;
	for (size_t i = 0; i < g->ntasks; i++)
		r->q_first[qidx(&g->tasks[i]) + 1]++;
	for (size_t i = 0; i < nq; i++)
		r->q_first[i + 1] += r->q_first[i];
	for (size_t i = 0; i < nq; i++)
		r->q_pos[i] = r->q_first[i];
	for (size_t i = 0; i < g->ntasks; i++) /* q_pos doubles as the fill cursor */
		r->q[r->q_pos[qidx(&g->tasks[i])]++] = (uint32_t)i;
	for (size_t i = 0; i < nq; i++)
		r->q_pos[i] = r->q_first[i];
	return SIM_OK;
}

static exec_cat comm_cat(uint8_t kind)
{
	switch (kind) {
	case PLAN_TASK_TP:
		return EXEC_CAT_TP;
	case PLAN_TASK_DP:
		return EXEC_CAT_DP;
	case PLAN_TASK_PP:
		return EXEC_CAT_PP;
	case PLAN_TASK_CP:
		return EXEC_CAT_CP;
	case PLAN_TASK_EP:
		return EXEC_CAT_EP;
	case PLAN_TASK_OFFLOAD:
		return EXEC_CAT_OFFLOAD;
	case PLAN_TASK_OPTIM: /* the host's loops after a ZeRO gather (plan_zero_gather_host) */
		return EXEC_CAT_OPTIMIZER;
	default:
		return EXEC_CAT_BUBBLE;
	}
}

/* The predecessor of t that ended last, or UINT32_MAX. */
static uint32_t last_pred(const replay *r, uint32_t t)
{
	uint32_t blocker = UINT32_MAX;
	for (uint32_t i = r->pred_first[t]; i < r->pred_first[t + 1]; i++)
		if (blocker == UINT32_MAX || r->end[r->pred[i]] > r->end[blocker])
			blocker = r->pred[i];
	return blocker;
}

/* Charge the compute stream's idle gap before task t (see file comment). */
static void charge_gap(replay *r, uint32_t t, sim_time now)
{
	int rank = r->g->tasks[t].rank;
	sim_time from = r->free_since[rank];
	if (now <= from)
		return;
	uint32_t blocker = last_pred(r, t);
	double *c = r->cat + (size_t)rank * EXEC_CAT_COUNT;
	if (blocker == UINT32_MAX) {
		c[EXEC_CAT_BUBBLE] += sim_time_to_s(now - from);
		return;
	}
	exec_cat k = comm_cat(r->g->tasks[blocker].kind);
	/* A collective that itself waited for a pipeline transfer (the
	 * receiver's all-gather of a scatter-gather p2p): its own run is its
	 * group's, the wait before it the transfer's (exposed pp, then bubble). */
	uint32_t up = k != EXEC_CAT_PP && k != EXEC_CAT_BUBBLE ? last_pred(r, blocker) : UINT32_MAX;
	if (up != UINT32_MAX && r->g->tasks[up].kind == PLAN_TASK_PP && r->start[blocker] > from &&
	    r->end[up] >= r->start[blocker]) {
		c[k] += sim_time_to_s(now - r->start[blocker]);
		now = r->start[blocker];
		blocker = up;
		k = EXEC_CAT_PP;
	}
	double gap = sim_time_to_s(now - from);
	if (k == EXEC_CAT_PP) {
		sim_time s = r->start[blocker] > from ? r->start[blocker] : from;
		double exposed = sim_time_to_s(now - s);
		c[EXEC_CAT_PP] += exposed;
		c[EXEC_CAT_BUBBLE] += gap - exposed;
	} else {
		c[k] += gap;
	}
}

static void try_start(replay *r, size_t q)
{
	if (r->busy[q] || r->q_pos[q] == r->q_first[q + 1])
		return;
	uint32_t t = r->q[r->q_pos[q]];
	if (r->pending[t] > 0)
		return;
	sim_time now = sim_engine_now(r->eng);
	const plan_task *task = &r->g->tasks[t];
	if (task->stream == PLAN_STREAM_COMPUTE)
		charge_gap(r, t, now);
	r->q_pos[q]++;
	r->start[t] = now;
	int rank = task->rank;
	if (interferes(r->g, t)) {
		r->last_comm[rank] = task->kind;
		comm_change(r, rank, is_deep(r->g, task), +1, q, true);
	} else {
		r->busy[q] = true;
	}
	r->left[t] = (double)task->dur;
	if (task->stream == PLAN_STREAM_COMPUTE) {
		r->running[rank] = t;
		r->since[rank] = now;
		retime(r, t, rate(r, rank), now);
	} else if (shares(r, task)) {
		nic_change(r, t, true); /* scheduled by the NIC and uplink shares */
	} else {
		retime(r, t, 1.0, now);
	}
}

static void on_end(sim_engine *eng, void *ctx, uint64_t arg)
{
	replay *r = ctx;
	uint32_t t = (uint32_t)arg;
	const plan_task *task = &r->g->tasks[t];
	sim_time now = sim_engine_now(eng);
	r->end[t] = now;
	r->done++;
	size_t q = qidx(task);
	if (task->stream == PLAN_STREAM_COMPUTE) {
		r->busy[q] = false;
		double *c = r->cat + (size_t)task->rank * EXEC_CAT_COUNT;
		sim_time took = now - r->start[t], lost = took > task->dur ? took - task->dur : 0;
		c[task->kind == PLAN_TASK_OPTIM ? EXEC_CAT_OPTIMIZER : EXEC_CAT_COMPUTE] +=
			sim_time_to_s(took - lost);
		c[comm_cat(r->last_comm[task->rank])] += sim_time_to_s(lost);
		r->free_since[task->rank] = now;
		r->running[task->rank] = UINT32_MAX;
	} else if (interferes(r->g, t)) {
		comm_change(r, task->rank, is_deep(r->g, task), -1, q, false);
	} else {
		r->busy[q] = false;
	}
	if (shares(r, task))
		nic_change(r, t, false);
	for (uint32_t i = r->succ_first[t]; i < r->succ_first[t + 1]; i++) {
		uint32_t s = r->succ[i];
		if (--r->pending[s] == 0)
			try_start(r, qidx(&r->g->tasks[s]));
	}
	try_start(r, q);
}

/* The per-run state at time 0: a fresh engine, nothing started, every task
 * waiting for its predecessors, every FIFO at its head. */
static int reset(replay *r)
{
	const plan_graph *g = r->g;
	size_t n = g->ntasks ? g->ntasks : 1, nr = (size_t)g->ranks;
	size_t nq = nr * PLAN_STREAM_COUNT;
	sim_engine_free(r->eng);
	r->eng = sim_engine_new();
	if (!r->eng)
		return SIM_ENOMEM;
	r->done = 0;
	r->err = 0;
	memset(r->start, 0, n * sizeof *r->start);
	memset(r->end, 0, n * sizeof *r->end);
	memset(r->ev, 0, n * sizeof *r->ev);
	memset(r->left, 0, n * sizeof *r->left);
	memset(r->free_since, 0, nr * sizeof *r->free_since);
	memset(r->cat, 0, nr * EXEC_CAT_COUNT * sizeof *r->cat);
	memset(r->since, 0, nr * sizeof *r->since);
	memset(r->comms, 0, nr * sizeof *r->comms);
	memset(r->deep, 0, nr * sizeof *r->deep);
	memset(r->tsince, 0, n * sizeof *r->tsince);
	for (size_t i = 0; i < nr * IN_SLOTS; i++)
		r->in_run[i] = UINT32_MAX;
	memset(r->up_lost, 0, nr * EXEC_CAT_COUNT * sizeof *r->up_lost);
	memset(r->busy, 0, nq * sizeof *r->busy);
	for (size_t i = 0; i < nq; i++) {
		r->nic_run[i] = UINT32_MAX;
		r->q_pos[i] = r->q_first[i];
	}
	for (size_t u = 0; u < (size_t)r->nunit; u++)
		r->up_rate[2 * u] = r->up_rate[2 * u + 1] = 1.0;
	for (size_t i = 0; i < nr; i++) {
		r->nic_rate[2 * i] = r->nic_rate[2 * i + 1] = 1.0;
		r->running[i] = UINT32_MAX;
		r->last_comm[i] = PLAN_TASK_DP;
	}
	for (size_t i = 0; i < g->ntasks; i++)
		r->pending[i] = r->pred_first[i + 1] - r->pred_first[i];
	return SIM_OK;
}

/* The units (replay.cu, um): plan_graph.up_unit's, else each class its own;
 * up_rate and the scratch sized by them. */
static int setup_units(replay *r, const plan_graph *g)
{
	size_t nr = (size_t)g->ranks;
	r->cu = malloc(2 * nr * sizeof *r->cu);
	if (!r->cu)
		return SIM_ENOMEM;
	r->nunit = 0;
	int maxu = 1;
	for (size_t k = 0; k < nr; k++) {
		int a = g->up_unit ? g->up_unit[2 * k] : (int)k;
		int b = g->up_unit ? g->up_unit[2 * k + 1] : (int)k;
		r->cu[2 * k] = a, r->cu[2 * k + 1] = b;
		r->nunit = b + 1 > r->nunit ? b + 1 : r->nunit;
		maxu = b - a + 1 > maxu ? b - a + 1 : maxu;
	}
	r->um_first = calloc((size_t)r->nunit + 1, sizeof *r->um_first);
	if (!r->um_first)
		return SIM_ENOMEM;
	size_t total = 0;
	for (size_t k = 0; k < nr; k++)
		for (int u = r->cu[2 * k]; u <= r->cu[2 * k + 1]; u++)
			r->um_first[u + 1]++, total++;
	r->maxm = 1;
	for (int u = 0; u < r->nunit; u++) {
		int m = r->um_first[u + 1];
		r->maxm = m > r->maxm ? m : r->maxm;
		r->um_first[u + 1] += r->um_first[u];
	}
	r->um = malloc((total ? total : 1) * sizeof *r->um);
	int *fill = malloc(((size_t)r->nunit + 1) * sizeof *fill);
	if (!r->um || !fill) {
		free(fill);
		return SIM_ENOMEM;
	}
	memcpy(fill, r->um_first, (size_t)r->nunit * sizeof *fill);
	for (size_t k = 0; k < nr; k++)
		for (int u = r->cu[2 * k]; u <= r->cu[2 * k + 1]; u++)
			r->um[fill[u]++] = (int)k;
	free(fill);
	size_t pm = (size_t)r->maxm * POOL_MAX, na = 2 * (POOL_MAX + (size_t)maxu * pm);
	r->up_rate = malloc(2 * (size_t)r->nunit * sizeof *r->up_rate);
	r->scr_pool = malloc(pm * sizeof *r->scr_pool);
	r->scr_aff = malloc(na * sizeof *r->scr_aff);
	r->scr_old = malloc(na * sizeof *r->scr_old);
	return r->up_rate && r->scr_pool && r->scr_aff && r->scr_old ? SIM_OK : SIM_ENOMEM;
}

static int setup(replay *r, const plan_graph *g)
{
	memset(r, 0, sizeof *r);
	r->g = g;
	size_t n = g->ntasks ? g->ntasks : 1;
	r->pending = calloc(n, sizeof *r->pending);
	r->start = calloc(n, sizeof *r->start);
	r->end = calloc(n, sizeof *r->end);
	r->free_since = calloc((size_t)g->ranks, sizeof *r->free_since);
	r->cat = calloc((size_t)g->ranks * EXEC_CAT_COUNT, sizeof *r->cat);
	size_t nr = (size_t)g->ranks;
	r->running = malloc(nr * sizeof *r->running);
	r->since = calloc(nr, sizeof *r->since);
	r->comms = calloc(nr, sizeof *r->comms);
	r->deep = calloc(nr, sizeof *r->deep);
	r->last_comm = calloc(nr, sizeof *r->last_comm);
	r->nic_run = malloc(nr * PLAN_STREAM_COUNT * sizeof *r->nic_run);
	r->nic_rate = malloc(2 * nr * sizeof *r->nic_rate);
	r->in_run = malloc(nr * IN_SLOTS * sizeof *r->in_run);
	r->tsince = calloc(n, sizeof *r->tsince);
	r->up_lost = calloc(nr * EXEC_CAT_COUNT, sizeof *r->up_lost);
	if (setup_units(r, g) != SIM_OK)
		return SIM_ENOMEM;
	r->ev = calloc(n, sizeof *r->ev);
	r->left = calloc(n, sizeof *r->left);
	if (!r->pending || !r->start || !r->end || !r->free_since || !r->cat || !r->running ||
	    !r->since || !r->comms || !r->deep || !r->last_comm || !r->nic_run || !r->nic_rate ||
	    !r->in_run || !r->tsince || !r->up_rate || !r->up_lost || !r->ev || !r->left)
		return SIM_ENOMEM;
	if (csr(g, true, &r->pred_first, &r->pred) != SIM_OK ||
	    csr(g, false, &r->succ_first, &r->succ) != SIM_OK || queues(r) != SIM_OK)
		return SIM_ENOMEM;
	return reset(r);
}

static void teardown(replay *r)
{
	sim_engine_free(r->eng);
	free(r->pred_first), free(r->pred), free(r->succ_first), free(r->succ);
	free(r->pending), free(r->start), free(r->end);
	free(r->q_first), free(r->q), free(r->q_pos), free(r->busy);
	free(r->free_since), free(r->cat);
	free(r->running), free(r->since), free(r->comms), free(r->deep);
	free(r->last_comm);
	free(r->nic_run), free(r->in_run), free(r->nic_rate), free(r->tsince), free(r->ev),
	        free(r->left);
	free(r->up_rate), free(r->up_lost);
	free(r->cu), free(r->um_first), free(r->um);
	free(r->scr_pool), free(r->scr_aff), free(r->scr_old);
}

/* After the last compute task the rank waits on its gradient reduction (DP),
 * with offloading on the PCIe copies and the CPU optimizer step (offload):
 * the tail's tasks on those streams, taken in the order they end, are each
 * charged from the previous one's end (or the last compute task) to their own
 * end; what is left until the step ends is bubble (pipelines) or other.
 *
 * One pass per rank: a stream's FIFO runs one task at a time (try_start
 * starts the head only while the stream is idle, on_end frees it), so its
 * tasks' ends are non-decreasing in FIFO order. The order of the tail is then
 * a merge of the two FIFOs, each skipped to its first task ending after the
 * last compute task; on equal ends the DP stream's task, and within a stream
 * the earlier one, comes first, and a task ending where the previous charged
 * one ended adds nothing (it is skipped, as "ends after the cursor" reads).
 * O(tasks on the two streams) per rank instead of O(k^2). */
static void charge_tail(replay *r, sim_time step)
{
	const plan_graph *g = r->g;
	for (int rank = 0; rank < g->ranks; rank++) {
		sim_time cursor = r->free_since[rank];
		double *c = r->cat + (size_t)rank * EXEC_CAT_COUNT;
		size_t qd = (size_t)rank * PLAN_STREAM_COUNT + PLAN_STREAM_DP;
		size_t qo = (size_t)rank * PLAN_STREAM_COUNT + PLAN_STREAM_OFFLOAD;
		uint32_t i = r->q_first[qd], ie = r->q_first[qd + 1];
		uint32_t j = r->q_first[qo], je = r->q_first[qo + 1];
		for (;;) { /* the next tail task to end, on either stream */
			while (i < ie && r->end[r->q[i]] <= cursor)
				i++;
			while (j < je && r->end[r->q[j]] <= cursor)
				j++;
			uint32_t next;
			if (i < ie && (j == je || r->end[r->q[i]] <= r->end[r->q[j]]))
				next = r->q[i++];
			else if (j < je)
				next = r->q[j++];
			else
				break;
			c[comm_cat(g->tasks[next].kind)] += sim_time_to_s(r->end[next] - cursor);
			cursor = r->end[next];
		}
		c[g->ranks > 1 ? EXEC_CAT_BUBBLE : EXEC_CAT_OTHER] += sim_time_to_s(step - cursor);
	}
}

/* A link class under network = flow (plan_netlinks): the busiest link's
 * name, bytes and time at >= 95 % of capacity from the flow model. */
static void flow_link(const plan_netlinks *n, net_link_kind k, double step_s, exec_link *l)
{
	if (n->name[k][0])
		snprintf(l->name, sizeof l->name, "%s", n->name[k]);
	l->bytes = n->bytes[k];
	l->busy_s = n->busy_s[k] < step_s ? n->busy_s[k] : step_s;
	l->saturated_s = n->sat_s[k] < step_s ? n->sat_s[k] : step_s;
	l->util = step_s > 0 && l->Bps > 0 ? l->bytes / (l->Bps * step_s) : 0;
}

/* The bytes a task puts on one link of link class `kind` (the scale-up
 * link, a NIC, its share of a PCIe switch's NICs, a fabric link under
 * oversubscription). */
static double class_bytes(const plan_task *k, net_link_kind kind, double nic_to_pcie, double oversub)
{
	return kind == NET_LINK_SCALEUP ? k->scaleup_bytes
	       : kind == NET_LINK_NIC   ? k->nic_bytes
	       : kind == NET_LINK_PCIE  ? k->nic_bytes * nic_to_pcie
	                                : k->nic_bytes * oversub;
}

/* Per rank class, the bytes each task kind puts on the scale-up links
 * (su) and on the NICs (nic), and their totals: one pass over the tasks.
 * Each rank's sums add its tasks in task order, as a scan per rank did. */
typedef struct traffic {
	double *su, *nic;         /* ranks x PLAN_TASK_KIND_COUNT */
	double *su_tot, *nic_tot; /* per rank */
} traffic;

static int traffic_sum(const plan_graph *g, traffic *tr)
{
	size_t nr = (size_t)g->ranks, nk = PLAN_TASK_KIND_COUNT;
	tr->su = calloc(nr * nk + 1, sizeof *tr->su);
	tr->nic = calloc(nr * nk + 1, sizeof *tr->nic);
	tr->su_tot = calloc(nr + 1, sizeof *tr->su_tot);
	tr->nic_tot = calloc(nr + 1, sizeof *tr->nic_tot);
	if (!tr->su || !tr->nic || !tr->su_tot || !tr->nic_tot)
		return SIM_ENOMEM;
	for (size_t t = 0; t < g->ntasks; t++) {
		const plan_task *k = &g->tasks[t];
		size_t j = (size_t)k->rank * nk + k->kind;
		tr->su[j] += k->scaleup_bytes;
		tr->su_tot[k->rank] += k->scaleup_bytes;
		tr->nic[j] += k->nic_bytes;
		tr->nic_tot[k->rank] += k->nic_bytes;
	}
	return SIM_OK;
}

static void traffic_free(traffic *tr)
{
	free(tr->su), free(tr->nic), free(tr->su_tot), free(tr->nic_tot);
}

/* The group (tp, cp, ep, dp, pp) whose collectives put the most bytes on
 * link class `kind`, over the rank class that loads it most. */
static void link_traffic(const plan_graph *g, const traffic *tr, net_link_kind kind, char *out,
			 size_t len)
{
	bool su = kind == NET_LINK_SCALEUP;
	double best = 0;
	out[0] = '\0';
	for (int rank = 0; rank < g->ranks; rank++) {
		const double *by = (su ? tr->su : tr->nic) + (size_t)rank * PLAN_TASK_KIND_COUNT;
		double total = (su ? tr->su_tot : tr->nic_tot)[rank];
		if (!(total > best))
			continue;
		best = total;
		int top = -1;
		for (int q = 0; q < PLAN_TASK_KIND_COUNT; q++)
			if (by[q] > 0 && (top < 0 || by[q] > by[top]))
				top = q;
		snprintf(out, len, "%s", top >= 0 ? exec_cat_name(comm_cat((uint8_t)top)) : "");
	}
}

/* One offload link row (after the network's): the busiest rank class's
 * load on offload link `what` (plan_offload_load). The GPU's PCIe link to
 * the host joins the network's class of that link where it has one (the
 * alpha-beta model's "gpu -> host"). */
static void offload_link(const plan_graph *g, int what, const char *name, const char *kind,
			 int count, double cap, exec_result *res)
{
	exec_link best = {0};
	for (int rank = 0; g->offload && rank < g->ranks; rank++) {
		const plan_offload_load *o = &g->offload[rank];
		if (o->bytes[what] > best.bytes) {
			best.bytes = o->bytes[what];
			best.busy_s = fmin(o->busy_s[what], res->step_s);
			best.saturated_s = fmin(o->sat_s[what], res->step_s);
		}
	}
	if (!(best.bytes > 0))
		return;
	exec_link *l = NULL;
	for (int i = 0; what == PLAN_OFF_HOST && i < res->nlinks; i++)
		if (!strcmp(res->links[i].kind, "pcie") && strstr(res->links[i].name, "-> host"))
			l = &res->links[i];
	if (l) {
		l->bytes += best.bytes;
		l->busy_s = fmin(l->busy_s + best.busy_s, res->step_s);
		l->saturated_s = fmin(l->saturated_s + best.saturated_s, res->step_s);
		if (best.bytes >= l->bytes - best.bytes)
			snprintf(l->traffic, sizeof l->traffic, "offload");
	} else if (res->nlinks < EXEC_MAX_LINKS) {
		l = &res->links[res->nlinks++];
		*l = best;
		snprintf(l->name, sizeof l->name, "%s", name);
		snprintf(l->kind, sizeof l->kind, "%s", kind);
		snprintf(l->traffic, sizeof l->traffic, "offload");
		l->count = count;
		l->Bps = cap;
	} else {
		return;
	}
	l->util = res->step_s > 0 && l->Bps > 0 ? l->bytes / (l->Bps * res->step_s) : 0;
}

/* The offload tiers' links: each GPU's PCIe link to the host, each node's
 * host memory and NVMe (copies and the CPU optimizer step; not routed by
 * the flow model). */
static void offload_links(const replay *r, const net_cluster *c, exec_result *res)
{
	const net_node *n = &c->node;
	offload_link(r->g, PLAN_OFF_HOST, "node0/gpu0 -> host", "pcie", c->gpus, n->pcie_Bps, res);
	offload_link(r->g, PLAN_OFF_DRAM, "node0/host memory", "host-mem", c->nodes, n->host_mem_Bps,
		     res);
	offload_link(r->g, PLAN_OFF_NVME, "node0/nvme", "nvme", c->nodes, n->nvme_Bps, res);
}

/* Link loads of one link class under alpha-beta: per rank class, the bytes
 * its tasks put on one link, the time they kept it busy and the time at
 * >= 95 % of capacity, in one pass over the tasks (acc: 3 x ranks, zeroed);
 * the most loaded rank class's figures go into l. */
static void class_load(const replay *r, const net_cluster *c, net_link_kind kind, double step_s,
		       double *acc, exec_link *l)
{
	const plan_graph *g = r->g;
	size_t nr = (size_t)g->ranks;
	double *bytes = acc, *busy = acc + nr, *sat = acc + 2 * nr;
	double nic_to_pcie = c->node.nics > 0 ? (double)c->node.nics / c->node.gpus : 0;
	double oversub = c->nodes > 1 ? c->oversubscription : 0;
	for (size_t t = 0; t < g->ntasks; t++) {
		const plan_task *k = &g->tasks[t];
		double b = class_bytes(k, kind, nic_to_pcie, oversub);
		if (b <= 0)
			continue;
		double d = sim_time_to_s(k->dur);
		bytes[k->rank] += b;
		busy[k->rank] += d;
		if (d > 0 && b / d >= 0.95 * l->Bps)
			sat[k->rank] += d;
	}
	for (size_t rank = 0; rank < nr; rank++)
		if (bytes[rank] > l->bytes) {
			l->bytes = bytes[rank];
			l->busy_s = busy[rank] < step_s ? busy[rank] : step_s;
			l->saturated_s = sat[rank] < step_s ? sat[rank] : step_s;
		}
}

/* Link loads: per link class, the most loaded rank class's bytes per link, the
 * time its tasks kept the link busy, and the time at >= 95% of capacity.
 * O(tasks) per link class, whatever the number of rank classes. */
static int link_stats(const replay *r, const net_cluster *c, exec_result *res)
{
	net_link_class lc[NET_LINK_KIND_COUNT];
	int n = net_link_classes(c, lc);
	size_t nr = (size_t)r->g->ranks;
	traffic tr = {0};
	double *acc = malloc((3 * nr + 1) * sizeof *acc);
	int rc = acc ? traffic_sum(r->g, &tr) : SIM_ENOMEM;
	res->nlinks = 0;
	for (int i = 0; rc == SIM_OK && i < n && res->nlinks < EXEC_MAX_LINKS; i++) {
		exec_link *l = &res->links[res->nlinks++];
		memset(l, 0, sizeof *l);
		snprintf(l->name, sizeof l->name, "%s", lc[i].name);
		snprintf(l->kind, sizeof l->kind, "%s", lc[i].kind_name);
		l->count = lc[i].count;
		l->Bps = lc[i].Bps;
		link_traffic(r->g, &tr, lc[i].kind, l->traffic, sizeof l->traffic);
		if (r->g->net.on) { /* network = flow: the flow model's loads */
			flow_link(&r->g->net, lc[i].kind, res->step_s, l);
			continue;
		}
		memset(acc, 0, 3 * nr * sizeof *acc);
		class_load(r, c, lc[i].kind, res->step_s, acc, l);
		l->util = res->step_s > 0 && l->Bps > 0 ? l->bytes / (l->Bps * res->step_s) : 0;
	}
	if (rc == SIM_OK)
		offload_links(r, c, res);
	traffic_free(&tr);
	free(acc);
	return rc;
}

/* The tasks of each rank class in task order: rank k's are
 * list[first[k] .. first[k + 1]) (a counting sort, O(tasks)). */
static int by_rank(const plan_graph *g, uint32_t **first, uint32_t **list)
{
	size_t nr = (size_t)g->ranks;
	*first = calloc(nr + 1, sizeof **first);
	*list = malloc((g->ntasks ? g->ntasks : 1) * sizeof **list);
	uint32_t *fill = malloc((nr + 1) * sizeof *fill);
	if (!*first || !*list || !fill) {
		free(*first), free(*list), free(fill);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < g->ntasks; i++)
		(*first)[g->tasks[i].rank + 1]++;
	for (size_t k = 0; k < nr; k++)
		(*first)[k + 1] += (*first)[k];
	memcpy(fill, *first, (nr + 1) * sizeof *fill);
	for (size_t i = 0; i < g->ntasks; i++)
		(*list)[fill[g->tasks[i].rank]++] = (uint32_t)i;
	free(fill);
	return SIM_OK;
}

typedef struct cpoint {
	sim_time t;
	double d0, d1; /* changes of the two series */
} cpoint;

static int by_time(const void *a, const void *b)
{
	sim_time x = ((const cpoint *)a)->t, y = ((const cpoint *)b)->t;
	return x < y ? -1 : x > y;
}

/* Counter tracks of one rank class (Chrome "C" events): memory held (static
 * bytes plus a forward's activations from its first task's start until its
 * backward's, or W's, last task ends), and the scale-up and NIC bandwidth its
 * running transfers use (each transfer's bytes / duration while it runs). */
static int write_counters(const replay *r, FILE *f, int rank, const uint32_t *tasks, size_t n,
			  bool zb)
{
	const plan_graph *g = r->g;
	cpoint *mem = malloc((2 * n + 1) * sizeof *mem), *bw = malloc((2 * n + 1) * sizeof *bw);
	if (!mem || !bw) {
		free(mem), free(bw);
		return SIM_ENOMEM;
	}
	size_t nm = 0, nb = 0;
	double act = g->mem_act_op ? g->mem_act_op[rank] : 0;
	size_t q = (size_t)rank * PLAN_STREAM_COUNT + PLAN_STREAM_COMPUTE;
	if (g->mem_static) /* a plan's graph (synthetic graphs have no memory) */
		mem[nm++] = (cpoint){0, g->mem_static[rank], 0};
	else
		q = SIZE_MAX;
	int prev_kind = -1, prev_mb = -1;
	uint32_t prev = UINT32_MAX;
	uint8_t frees = zb ? PLAN_TASK_WGRAD : PLAN_TASK_BWD;
	for (uint32_t i = q != SIZE_MAX ? r->q_first[q] : 1; q != SIZE_MAX && i <= r->q_first[q + 1];
	     i++) {
		uint32_t t = i < r->q_first[q + 1] ? r->q[i] : UINT32_MAX;
		int kind = t != UINT32_MAX ? g->tasks[t].kind : -1, mb = t != UINT32_MAX ? g->tasks[t].mb : -1;
		bool new_op = kind != prev_kind || mb != prev_mb;
		if (new_op && prev != UINT32_MAX && prev_kind == frees && prev_mb >= 0)
			mem[nm++] = (cpoint){r->end[prev], -act, 0};
		if (new_op && kind == PLAN_TASK_FWD && mb >= 0)
			mem[nm++] = (cpoint){r->start[t], act, 0};
		prev = t, prev_kind = kind, prev_mb = mb;
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t i = tasks[k];
		const plan_task *t = &g->tasks[i];
		double d = sim_time_to_s(r->end[i] - r->start[i]);
		if (d <= 0 || (t->scaleup_bytes <= 0 && t->nic_bytes <= 0))
			continue;
		bw[nb++] = (cpoint){r->start[i], t->scaleup_bytes / d, t->nic_bytes / d};
		bw[nb++] = (cpoint){r->end[i], -t->scaleup_bytes / d, -t->nic_bytes / d};
	}
	qsort(mem, nm, sizeof *mem, by_time);
	qsort(bw, nb, sizeof *bw, by_time);
	double v0 = 0, v1 = 0;
	for (size_t i = 0; i < nm; i++) {
		v0 += mem[i].d0;
		if (i + 1 < nm && mem[i + 1].t == mem[i].t)
			continue;
		fprintf(f, ",\n{\"ph\":\"C\",\"pid\":%d,\"name\":\"memory GiB\",\"ts\":%.6f,"
			   "\"args\":{\"HBM\":%.6g}}", rank, (double)mem[i].t * 1e-6, v0 / 1073741824.0);
	}
	v0 = 0;
	for (size_t i = 0; i < nb; i++) {
		v0 += bw[i].d0, v1 += bw[i].d1;
		if (i + 1 < nb && bw[i + 1].t == bw[i].t)
			continue;
		fprintf(f, ",\n{\"ph\":\"C\",\"pid\":%d,\"name\":\"link GB/s\",\"ts\":%.6f,"
			   "\"args\":{\"scale-up\":%.6g,\"NIC\":%.6g}}", rank, (double)bw[i].t * 1e-6,
			fabs(v0) < 1e-3 ? 0 : v0 * 1e-9, fabs(v1) < 1e-3 ? 0 : v1 * 1e-9);
	}
	free(mem), free(bw);
	return SIM_OK;
}

/* Chrome trace event format: metadata names processes (rank classes) and
 * threads (streams); each task is a complete event; counter tracks per rank
 * class for memory and link bandwidth (write_counters). Written in task order,
 * so the file is the same for the same graph. */
static int write_trace(const replay *r, const exec_result *res, FILE *f)
{
	static const char *const streams[PLAN_STREAM_COUNT] = {"compute", "tp", "dp", "pp send fwd",
								"pp send bwd", "cp", "ep", "offload"};
	const plan_graph *g = r->g;
	fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
	const char *sep = "";
	for (int k = 0; k < g->ranks; k++) {
		fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":"
			   "\"%s (%d GPUs)\"}}", sep, k, k < res->nclasses ? res->classes[k].name : "rank",
			g->rank_gpus);
		sep = ",\n";
		for (int st = 0; st < PLAN_STREAM_COUNT; st++)
			fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
				   "\"args\":{\"name\":\"%s\"}}", k, st, streams[st]);
	}
	for (size_t i = 0; i < g->ntasks; i++) {
		const plan_task *t = &g->tasks[i];
		char name[48];
		int layer = t->kind == PLAN_TASK_PP ? -1 : t->layer; /* (a PP task's: its peer) */
		if (layer >= 0 && t->mb >= 0)
			snprintf(name, sizeof name, "%s mb%d L%d", plan_task_kind_short(t->kind), t->mb, layer);
		else if (t->mb >= 0)
			snprintf(name, sizeof name, "%s mb%d", plan_task_kind_short(t->kind), t->mb);
		else
			snprintf(name, sizeof name, "%s", plan_task_kind_short(t->kind));
		fprintf(f, "%s{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f,"
			   "\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"layer\":%d,\"mb\":%d,"
			   "\"scaleup_bytes\":%.9g,\"nic_bytes\":%.9g}}",
			sep, t->rank, t->stream, (double)r->start[i] * 1e-6, (double)(r->end[i] - r->start[i]) * 1e-6, name,
			plan_task_kind_short(t->kind), layer, (int)t->mb, (double)t->scaleup_bytes,
			(double)t->nic_bytes);
		sep = ",\n";
	}
	uint32_t *first, *list;
	if (by_rank(g, &first, &list) != SIM_OK)
		return SIM_ENOMEM;
	bool zb = false;
	for (size_t i = 0; i < g->ntasks; i++)
		zb = zb || g->tasks[i].kind == PLAN_TASK_WGRAD;
	int rc = SIM_OK;
	for (int k = 0; k < g->ranks && rc == SIM_OK; k++)
		rc = write_counters(r, f, k, list + first[k], first[k + 1] - first[k], zb);
	free(first), free(list);
	fprintf(f, "\n]}\n");
	return rc;
}

/* Text Gantt chart: per rank class one row of `w` columns over the step; a
 * column shows the compute-stream task kind that covers most of its time:
 * forward as the micro-batch's last digit (or F), backward as a letter A-J for
 * micro-batch 0-9 (or B), r recompute, o optimizer, '.' idle. */
static int write_gantt(const replay *r, const exec_result *res, FILE *f, int w)
{
	const plan_graph *g = r->g;
	sim_time step = sim_time_from_s(res->step_s);
	if (w < 10 || step <= 0)
		return SIM_OK;
	int m = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].mb + 1 > m)
			m = g->tasks[i].mb + 1;
	bool digits = m <= 10;
	enum { NK = PLAN_TASK_OPTIM + 1 }; /* the compute kinds: fwd .. optimizer */
	double *cover = calloc((size_t)w * NK, sizeof *cover);
	char *row = malloc((size_t)w + 1), *mbch = malloc((size_t)w * NK);
	if (!cover || !row || !mbch) {
		free(cover), free(row), free(mbch);
		return SIM_ENOMEM;
	}
	double col = (double)step / w;
	fprintf(f, "\npipeline schedule (compute streams, %d columns of %.4g ms)\n", w, col * 1e-9);
	for (int k = 0; k < g->ranks; k++) {
		memset(cover, 0, (size_t)w * NK * sizeof *cover);
		size_t cq = (size_t)k * PLAN_STREAM_COUNT + PLAN_STREAM_COMPUTE;
		for (uint32_t x = r->q_first[cq]; x < r->q_first[cq + 1]; x++) {
			uint32_t i = r->q[x]; /* the rank's compute tasks, in task order */
			const plan_task *t = &g->tasks[i];
			if (t->kind > PLAN_TASK_OPTIM)
				continue;
			double a = (double)r->start[i], b = (double)r->end[i];
			for (int j = (int)(a / col); j < w && j * col < b; j++) {
				double lo = j * col > a ? j * col : a, hi = (j + 1) * col < b ? (j + 1) * col : b;
				cover[j * NK + t->kind] += hi - lo;
				mbch[j * NK + t->kind] = (char)(t->mb % 10);
			}
		}
		for (int j = 0; j < w; j++) {
			int best = -1;
			double most = 0.25 * col; /* mostly idle columns stay '.' */
			for (int q = 0; q < NK; q++)
				if (cover[j * NK + q] > most)
					most = cover[j * NK + q], best = q;
			char mb = mbch[j * NK + (best < 0 ? 0 : best)];
			row[j] = best < 0 ? '.' : best == PLAN_TASK_FWD ? (digits ? (char)('0' + mb) : 'F')
				 : best == PLAN_TASK_BWD ? (digits ? (char)('A' + mb) : 'B')
				 : best == PLAN_TASK_RECOMP ? 'r'
				 : best == PLAN_TASK_WGRAD ? 'w' : 'o';
		}
		row[w] = '\0';
		fprintf(f, "  %-9.9s |%s|\n", k < res->nclasses ? res->classes[k].name : "rank", row);
	}
	fprintf(f, "  legend: %s, r recompute, w weight gradients (zero bubble), o optimizer, . idle\n",
		digits ? "0-9 forward of micro-batch 0-9, A-J its backward" : "F forward, B backward");
	free(cover), free(row), free(mbch);
	return SIM_OK;
}

/* The compute-stream tasks, rank by rank in FIFO (= start) order. */
static int record_timeline(const replay *r, exec_timeline *tl)
{
	const plan_graph *g = r->g;
	size_t n = 0;
	for (int k = 0; k < g->ranks; k++) {
		size_t q = (size_t)k * PLAN_STREAM_COUNT + PLAN_STREAM_COMPUTE;
		n += r->q_first[q + 1] - r->q_first[q];
	}
	tl->n = 0;
	tl->spans = malloc((n ? n : 1) * sizeof *tl->spans);
	if (!tl->spans)
		return SIM_ENOMEM;
	for (int k = 0; k < g->ranks; k++) {
		size_t q = (size_t)k * PLAN_STREAM_COUNT + PLAN_STREAM_COMPUTE;
		for (uint32_t i = r->q_first[q]; i < r->q_first[q + 1]; i++) {
			const plan_task *t = &g->tasks[r->q[i]];
			tl->spans[tl->n++] = (exec_span){sim_time_to_s(r->start[r->q[i]]),
							 sim_time_to_s(r->end[r->q[i]] - r->start[r->q[i]]), t->rank, t->mb,
							 t->layer, t->kind};
		}
	}
	return SIM_OK;
}

void exec_timeline_free(exec_timeline *t)
{
	if (!t)
		return;
	free(t->spans);
	free(t->mem_t);
	free(t->mem_b);
	t->spans = NULL;
	t->mem_t = t->mem_b = NULL;
	t->n = t->mem_n = 0;
}

int exec_replay(const plan_graph *g, const net_cluster *c, exec_result *res)
{
	return exec_replay_views(g, c, res, NULL);
}

/* Run the replay r was set up (or reset) for, on c; *step = the last task's
 * end. */
static int run(replay *r, const net_cluster *c, sim_time *step)
{
	const plan_graph *g = r->g;
	r->nic_cap = c && c->nodes > 1 && c->node.nics > 0 ? c->node.nic_Bps * c->node.nic_eff : 0;
	/* the uplinks: the fabric's links run at the NIC rate (topo/fabric.c) */
	r->up_cap = r->nic_cap > 0 && !r->up_off && c->oversubscription > 1 && net_fabric_uplinks(c)
			    ? r->nic_cap
			    : 0;
	for (size_t q = 0; q < (size_t)g->ranks * PLAN_STREAM_COUNT; q++)
		try_start(r, q);
	sim_engine_run(r->eng, SIM_TIME_MAX);
	*step = 0;
	if (r->err)
		return r->err;
	if (r->done != g->ntasks)
		return SIM_EINVAL; /* a cycle or an unreachable task: a plan bug */
	for (size_t i = 0; i < g->ntasks; i++)
		if (r->end[i] > *step)
			*step = r->end[i];
	return SIM_OK;
}

struct exec_replayer {
	replay r;
	bool ran; /* reset before the next run */
};

int exec_replayer_new(const plan_graph *g, exec_replayer **out)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return SIM_ENOMEM;
	int rc = setup(&(*out)->r, g);
	if (rc != SIM_OK) {
		exec_replayer_free(*out);
		*out = NULL;
	}
	return rc;
}

int exec_replayer_run(exec_replayer *x, const net_cluster *c, sim_time *step)
{
	int rc = x->ran ? reset(&x->r) : SIM_OK;
	x->ran = true;
	return rc == SIM_OK ? run(&x->r, c, step) : rc;
}

void exec_replayer_free(exec_replayer *x)
{
	if (!x)
		return;
	teardown(&x->r);
	free(x);
}

/* The shared uplinks' cost (exec_uplinks), after r's replay on c ended at
 * `step` and its categories were charged: the rank class whose transfers
 * lost most to the uplink share, and, where any did, the step and the most
 * seconds per category (over the classes exec_result keeps) replayed again
 * with the uplinks not shared (each transfer at its NIC share alone: the
 * replay before the uplinks were modelled). Resets r. */
static int uplink_reference(replay *r, const net_cluster *c, exec_result *res)
{
	exec_uplinks *u = &res->uplinks;
	memset(u, 0, sizeof *u);
	if (!(r->up_cap > 0))
		return SIM_OK;
	u->oversub = c->oversubscription;
	double most = 0;
	for (int k = 0; k < r->g->ranks; k++) {
		const double *l = r->up_lost + (size_t)k * EXEC_CAT_COUNT;
		double sum = 0;
		for (int j = 0; j < EXEC_CAT_COUNT; j++)
			sum += l[j];
		if (sum > most) {
			most = sum;
			u->rank = k;
			memcpy(u->lost_s, l, sizeof u->lost_s);
		}
	}
	if (!(most > 0))
		return SIM_OK;
	sim_time free_step;
	int rc = reset(r);
	r->up_off = true;
	if (rc == SIM_OK)
		rc = run(r, c, &free_step);
	r->up_off = false;
	if (rc != SIM_OK)
		return rc;
	charge_tail(r, free_step);
	u->free_step_s = sim_time_to_s(free_step);
	for (int k = 0; k < r->g->ranks && k < EXEC_MAX_CLASSES; k++) {
		const double *cat = r->cat + (size_t)k * EXEC_CAT_COUNT;
		for (int j = 0; j < EXEC_CAT_COUNT; j++)
			u->free_most_s[j] = fmax(u->free_most_s[j], cat[j]);
	}
	return SIM_OK;
}

int exec_replay_views(const plan_graph *g, const net_cluster *c, exec_result *res,
		      const exec_views *v)
{
	replay r;
	sim_time step;
	int rc = setup(&r, g);
	if (rc == SIM_OK)
		rc = run(&r, c, &step);
	if (rc == SIM_ERANGE) {
		const plan_task *t = &g->tasks[r.err_task];
		snprintf(res->error, sizeof res->error,
			 "the step runs past the simulator's clock (int64 picoseconds: at most %.0f "
			 "days a step) at a task of stage %d slowed by sharing; its time comes from %s",
			 sim_time_to_s(SIM_TIME_HORIZON) / 86400, (int)t->rank,
			 plan_task_inputs(t->kind));
	}
	if (rc == SIM_OK) {
		charge_tail(&r, step);
		res->step_s = sim_time_to_s(step);
		res->nclasses = g->ranks < EXEC_MAX_CLASSES ? g->ranks : EXEC_MAX_CLASSES;
		for (int k = 0; k < res->nclasses; k++) {
			exec_class *cl = &res->classes[k];
			snprintf(cl->name, sizeof cl->name, "stage %d", k);
			cl->ranks = g->rank_gpus;
			memcpy(cl->time_s, r.cat + (size_t)k * EXEC_CAT_COUNT, sizeof cl->time_s);
		}
		res->tasks = g->ntasks;
		res->events = sim_engine_events_run(r.eng);
		rc = link_stats(&r, c, res);
		if (rc == SIM_OK && v && v->trace)
			rc = write_trace(&r, res, v->trace);
		if (rc == SIM_OK && v && v->gantt)
			rc = write_gantt(&r, res, v->gantt, v->gantt_width);
		if (rc == SIM_OK && v && v->timeline)
			rc = record_timeline(&r, v->timeline);
		memset(&res->uplinks, 0, sizeof res->uplinks);
		if (rc == SIM_OK && !(v && v->skip_unshared))
			rc = uplink_reference(&r, c, res);
	}
	teardown(&r);
	return rc;
}
