/* fit.c - whether a plan fits: the memory verdict of the whole plan, the
 * one `podsim run` reports (exec/run.c, exec/mixed.c) and `podsim sweep`
 * prunes on (sweep/estimate.c), so that the two cannot drift apart.
 *
 * A plan is out of memory when any of these is:
 *  - a stage on the scenario's GPU (plan_memory_totals' verdict; the worst
 *    stage is the one with the largest device total, the first of equals,
 *    as the reports show it: an out-of-memory stage's device total exceeds
 *    the capacity, which no other verdict's reaches, so it is the worst);
 *  - on nodes of another GPU type ([cluster] other_gpu, other_nodes), a
 *    stage with a rank on such a node, against that GPU's capacity (the
 *    bytes a rank keeps do not depend on the GPU; the capacity does);
 *  - the offloaded states per node against the host DRAM or NVMe of the
 *    nodes the stage's ranks sit on (plan_offload_memory; on a mixed
 *    cluster the other type's nodes hold their own, plan_other_view).
 * Otherwise it is tight when either GPU type's worst stage is, else it
 * fits: the plan runs on both, so its verdict is the worst of theirs, and
 * every report states that one with its basis (which GPU, which stage). */
#include "plan.h"

#include <math.h>
#include <string.h>

/* Whether a rank of `stage` sits on a node of the other type (`other`) or
 * of the scenario's own (a mixed cluster's stage may lie on both, or on one
 * type's alone). */
static bool stage_on(const plan_scenario *s, int stage, bool other)
{
	const plan_spec *p = &s->plan;
	if (stage < 0 || stage >= p->pp)
		return false;
	if (s->nother <= 0)
		return !other;
	int st[PLAN_DIMS];
	plan_strides(p, st);
	int64_t ranks = (int64_t)p->tp * (p->cp > 1 ? p->cp : 1) * p->dp * p->pp;
	int gpn = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	for (int64_t r = 0; r < ranks; r++) {
		int64_t node = r / gpn;
		bool on_other = node < s->other_len && s->other_node[node];
		if (on_other == other && (r / st[PLAN_DIM_PP]) % p->pp == stage)
			return true;
	}
	return false;
}

bool plan_stage_on_other(const plan_scenario *s, int stage)
{
	return stage_on(s, stage, true);
}

bool plan_memory_other(const plan_scenario *s, int stage, bool full, plan_mem_peak *out)
{
	if (!plan_stage_on_other(s, stage))
		return false;
	plan_scenario o; /* the other nodes' GPU and links, host memory and NVMe included */
	plan_other_view(s, &o);
	if (full)
		plan_memory_peak(&o, stage, out);
	else
		plan_memory_totals(&o, stage, out);
	return true;
}

/* The share of `capacity` a verdict's basis takes: the device total (at
 * most the capacity short of out of memory, the allocator's cache giving
 * way first). */
static double fill(double device, double capacity)
{
	return capacity > 0 ? device / capacity : 0;
}

bool plan_fit_by_other(plan_verdict gpu, double gpu_device, double gpu_capacity,
                       plan_verdict other, double other_device, double other_capacity)
{
	if (other != gpu)
		return other > gpu;
	return gpu != PLAN_VERDICT_OOM &&
	       fill(other_device, other_capacity) > fill(gpu_device, gpu_capacity);
}

/* The scenario's GPU: the stage with the largest device total. */
static void main_gpu(const plan_scenario *s, plan_mem_fit *f)
{
	f->stage = -1;
	for (int k = 0; k < s->plan.pp; k++) {
		plan_mem_peak p;
		plan_memory_totals(s, k, &p);
		if (f->stage < 0 || p.device > f->peak) {
			f->stage = k;
			f->peak = p.device;
			f->needed = p.allocated + p.bytes[PLAN_MEM_RUNTIME];
			f->gpu_verdict = p.verdict;
		}
	}
}

/* other_gpu: the worst verdict of the stages its nodes hold, then the
 * largest device total. */
static void other_gpu(const plan_scenario *s, plan_mem_fit *f)
{
	f->other_stage = -1;
	if (s->nother <= 0)
		return;
	f->other_capacity = s->other_gpu.hbm_bytes;
	for (int k = 0; k < s->plan.pp; k++) {
		plan_mem_peak p;
		if (!plan_memory_other(s, k, false, &p))
			continue;
		if (f->other_stage < 0 || p.verdict > f->other_verdict ||
		    (p.verdict == f->other_verdict && p.device > f->other_peak)) {
			f->other_stage = k;
			f->other_verdict = p.verdict;
			f->other_peak = p.device;
			f->other_needed = p.allocated + p.bytes[PLAN_MEM_RUNTIME];
		}
	}
}

/* Keep (bytes, capacity) in (*b, *cap) when it is the fullest so far (its
 * share of the capacity above *r; none, 0 bytes, takes the first). */
static void fullest(double bytes, double capacity, double *b, double *cap, double *r)
{
	double share = capacity > 0 ? bytes / capacity : bytes > 0 ? HUGE_VAL : 0;
	if (share > *r)
		*b = bytes, *cap = capacity, *r = share;
}

void plan_memory_fit(const plan_scenario *s, plan_mem_fit *f)
{
	memset(f, 0, sizeof *f);
	main_gpu(s, f);
	other_gpu(s, f);
	/* offloaded states per node against the host DRAM and NVMe of the
	 * nodes the stage's ranks sit on: the scenario's own, and on a mixed
	 * cluster the other type's (their node file's, plan_other_view) */
	const net_node *nd = &s->cluster.node;
	plan_scenario o;
	if (s->nother > 0)
		plan_other_view(s, &o);
	f->host_capacity = nd->host_mem_bytes, f->nvme_capacity = nd->nvme_bytes;
	double hr = -1, nr = -1; /* the fullest node's share of its capacity */
	for (int k = 0; k < s->plan.pp; k++) {
		double host, nvme;
		if (stage_on(s, k, false)) {
			plan_offload_memory(s, k, &host, &nvme);
			fullest(host, nd->host_mem_bytes, &f->host, &f->host_capacity, &hr);
			fullest(nvme, nd->nvme_bytes, &f->nvme, &f->nvme_capacity, &nr);
		}
		if (s->nother > 0 && stage_on(s, k, true)) { /* (o is set) */
			plan_offload_memory(&o, k, &host, &nvme);
			fullest(host, o.cluster.node.host_mem_bytes, &f->host, &f->host_capacity, &hr);
			fullest(nvme, o.cluster.node.nvme_bytes, &f->nvme, &f->nvme_capacity, &nr);
		}
	}
	f->where = f->gpu_verdict == PLAN_VERDICT_OOM     ? PLAN_OOM_GPU
	           : f->other_verdict == PLAN_VERDICT_OOM ? PLAN_OOM_OTHER_GPU
	           : f->host > f->host_capacity           ? PLAN_OOM_HOST
	           : f->nvme > f->nvme_capacity           ? PLAN_OOM_NVME
	                                                  : PLAN_OOM_NONE;
	f->by_other = f->other_stage >= 0 &&
	              plan_fit_by_other(f->gpu_verdict, f->peak, s->gpu.hbm_bytes, f->other_verdict,
	                                f->other_peak, f->other_capacity);
	f->verdict = f->where != PLAN_OOM_NONE ? PLAN_VERDICT_OOM
	             : f->by_other             ? f->other_verdict
	                                       : f->gpu_verdict;
}

const char *plan_oom_text(plan_oom w)
{
	static const char *const text[] = {
	        "fits",
	        "does not fit in GPU memory (allocated + runtime > HBM)",
	        "does not fit in the memory of [cluster] other_gpu (allocated + runtime > its HBM)",
	        "offloaded states do not fit in the node's host memory",
	        "offloaded states do not fit on the node's NVMe",
	};
	return (unsigned)w < sizeof text / sizeof text[0] ? text[w] : "?";
}
