/* result.c - figures read off a result (result.h), for report, store, sweep,
 * campaign and the cli: the categories' names (the JSON keys of a
 * breakdown), a class's memory counters and verdicts, its busy time, the
 * GPUs' busy share, the exposed communication, the class that sets the step
 * and two steps' difference term by term, and the run's memory verdict and
 * its basis. */
#include "exec.h"

#include <math.h>
#include <string.h>

const char *exec_cat_name(exec_cat c)
{
	static const char *const names[EXEC_CAT_COUNT] = {
		"compute", "optimizer", "tp", "cp", "ep", "dp", "pp", "bubble", "offload", "other"};
	return (unsigned)c < EXEC_CAT_COUNT ? names[c] : "?";
}

double exec_class_allocated(const exec_class *c)
{
	double a = 0;
	for (int m = 0; m < PLAN_MEM_FRAGMENTATION; m++)
		a += c->mem_bytes[m];
	return a;
}

double exec_class_reserved(const exec_class *c)
{
	return exec_class_allocated(c) + c->mem_bytes[PLAN_MEM_FRAGMENTATION];
}

double exec_class_needed(const exec_class *c)
{
	return exec_class_allocated(c) + c->mem_bytes[PLAN_MEM_RUNTIME];
}

plan_verdict exec_class_gpu_verdict(const exec_class *c, double capacity)
{
	return plan_mem_verdict(exec_class_allocated(c), c->mem_bytes[PLAN_MEM_RUNTIME],
				c->mem_total_bytes, capacity);
}

plan_verdict exec_class_verdict(const exec_class *c, double capacity)
{
	plan_verdict v = exec_class_gpu_verdict(c, capacity);
	if (c->mem_other && c->mem_other_verdict > v)
		v = c->mem_other_verdict;
	return c->oom ? PLAN_VERDICT_OOM : v;
}

double exec_class_busy(const exec_class *c)
{
	return c->time_s[EXEC_CAT_COMPUTE] + c->time_s[EXEC_CAT_OPTIMIZER];
}

double exec_busy_share(const exec_result *r)
{
	double busy = 0, ranks = 0;
	for (int k = 0; k < r->nclasses; k++) {
		busy += r->classes[k].ranks * exec_class_busy(&r->classes[k]);
		ranks += r->classes[k].ranks;
	}
	busy = ranks > 0 && r->step_s > 0 ? busy / (ranks * r->step_s) : 0;
	return busy > 1 ? 1 : busy;
}

double exec_cat_most(const exec_result *r, exec_cat c)
{
	double most = 0;
	for (int k = 0; k < r->nclasses; k++)
		most = r->classes[k].time_s[c] > most ? r->classes[k].time_s[c] : most;
	return most;
}

bool exec_uplinks_slowed(const exec_uplinks *u)
{
	for (int c = 0; u->oversub > 0 && c < EXEC_CAT_COUNT; c++)
		if (u->lost_s[c] > 0)
			return true;
	return false;
}

double exec_exposed_comm(const exec_result *r)
{
	double worst = 0;
	for (int k = 0; k < r->nclasses; k++) {
		const double *t = r->classes[k].time_s;
		double x = t[EXEC_CAT_TP] + t[EXEC_CAT_CP] + t[EXEC_CAT_EP] + t[EXEC_CAT_DP] +
			   t[EXEC_CAT_PP];
		worst = x > worst ? x : worst;
	}
	return worst;
}

static double class_idle(const exec_class *c)
{
	return c->time_s[EXEC_CAT_BUBBLE] + c->time_s[EXEC_CAT_OTHER];
}

/* Seconds that differ by less than the clock's tick (1 ps) are equal: a
 * class's figures are sums of exact picosecond intervals, each rounded to
 * seconds in double, so equal stages can differ by that rounding alone. */
#define TICK_S 1e-12

int exec_step_class(const exec_result *r)
{
	int k = -1;
	for (int i = 0; i < r->nclasses; i++) {
		const exec_class *c = &r->classes[i], *m = k >= 0 ? &r->classes[k] : NULL;
		double di = m ? class_idle(c) - class_idle(m) : 0;
		if (!m || di < -TICK_S ||
		    (di < TICK_S && exec_class_busy(c) - exec_class_busy(m) > TICK_S))
			k = i;
	}
	return k;
}

void exec_step_diff_of(const exec_result *a, const exec_result *b, exec_step_diff *d)
{
	memset(d, 0, sizeof *d);
	d->step_s = a->step_s - b->step_s;
	d->class_a = exec_step_class(a);
	d->class_b = exec_step_class(b);
	d->largest = -1;
	if (d->class_a < 0 || d->class_b < 0)
		return;
	const double *x = a->classes[d->class_a].time_s, *y = b->classes[d->class_b].time_s;
	for (int c = 0; c < EXEC_CAT_COUNT; c++) {
		d->cat_s[c] = x[c] - y[c];
		if (fabs(d->cat_s[c]) < TICK_S) /* rounding, not a difference */
			continue;
		int j = d->nterms++; /* insertion, largest first, earlier category on ties */
		while (j > 0 && d->cat_s[c] > d->cat_s[d->order[j - 1]]) {
			d->order[j] = d->order[j - 1];
			j--;
		}
		d->order[j] = (exec_cat)c;
	}
	if (d->nterms > 0 && d->cat_s[d->order[0]] > 0)
		d->largest = d->order[0];
}

int exec_mem_worst(const exec_result *r)
{
	int worst = -1;
	for (int i = 0; i < r->nclasses; i++)
		if (worst < 0 || r->classes[i].mem_total_bytes > r->classes[worst].mem_total_bytes)
			worst = i;
	return worst;
}

/* The most loaded class's verdict on the scenario's GPU (fits without
 * classes). */
static plan_verdict gpu_verdict(const exec_result *r)
{
	int worst = exec_mem_worst(r);
	return worst >= 0 ? exec_class_gpu_verdict(&r->classes[worst], r->mem_capacity_bytes)
	                  : PLAN_VERDICT_FITS;
}

static bool has_other(const exec_result *r)
{
	return r->mixed.nodes > 0 && r->mixed.mem_stage >= 0;
}

exec_mem_basis exec_mem_basis_of(const exec_result *r)
{
	plan_verdict g = gpu_verdict(r);
	const exec_mixed *m = &r->mixed;
	if (g == PLAN_VERDICT_OOM)
		return EXEC_MEM_ON_GPU;
	if (has_other(r) && m->mem_verdict == PLAN_VERDICT_OOM)
		return EXEC_MEM_ON_OTHER;
	if (r->host_bytes > r->host_capacity_bytes)
		return EXEC_MEM_ON_HOST;
	if (r->nvme_bytes > r->nvme_capacity_bytes)
		return EXEC_MEM_ON_NVME;
	if (r->oom) /* stored before schema 10: other_gpu's figures not kept */
		return EXEC_MEM_ON_OTHER;
	return has_other(r) && plan_fit_by_other(g, r->mem_peak_bytes, r->mem_capacity_bytes,
	                                         m->mem_verdict, m->mem_peak_bytes,
	                                         m->mem_capacity_bytes)
	               ? EXEC_MEM_ON_OTHER
	               : EXEC_MEM_ON_GPU;
}

plan_verdict exec_mem_verdict(const exec_result *r)
{
	if (r->oom)
		return PLAN_VERDICT_OOM;
	return exec_mem_basis_of(r) == EXEC_MEM_ON_OTHER ? r->mixed.mem_verdict : gpu_verdict(r);
}

double exec_mem_headroom(const exec_result *r)
{
	if (exec_mem_basis_of(r) == EXEC_MEM_ON_OTHER && has_other(r))
		return r->mixed.mem_capacity_bytes - r->mixed.mem_peak_bytes;
	return r->mem_capacity_bytes - r->mem_peak_bytes;
}
