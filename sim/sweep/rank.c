/* rank.c - comparing rankings, the Pareto front of a sweep, plans whose
 * median is good but whose tail is not (sweep_risky), and the plan nearest
 * to fitting when none does, and which memory a plan's verdict rests on
 * (sweep_mem_basis_of). */
#include "../valid/valid.h"
#include "sweep_int.h"

#include <math.h>
#include <string.h>

double sweep_kendall_tau(const double *x, const double *y, size_t n)
{
	return valid_kendall_tau(x, y, n);
}

/* i dominates j when it is no worse on every axis and better on one. */
static bool dominates(const double *a, const double *b, const double *c, size_t i, size_t j)
{
	bool le = a[i] <= a[j] && b[i] <= b[j] && c[i] <= c[j];
	bool lt = a[i] < a[j] || b[i] < b[j] || c[i] < c[j];
	return le && lt;
}

void sweep_pareto(const double *a, const double *b, const double *c, size_t n, bool *front)
{
	for (size_t j = 0; j < n; j++) {
		front[j] = true;
		for (size_t i = 0; i < n && front[j]; i++)
			if (i != j && dominates(a, b, c, i, j))
				front[j] = false;
	}
}

void sweep_risky(const double *p50, const double *p95, const double *p95_lo,
		 const double *p95_hi, size_t n, long *vs)
{
	for (size_t i = 0; i < n; i++) {
		vs[i] = -1;
		for (size_t j = 0; j < n; j++) {
			if (j == i || !(p50[j] >= p50[i]) || !(p95_hi[j] < p95_lo[i]))
				continue;
			if (vs[i] < 0 || p95[j] < p95[vs[i]])
				vs[i] = (long)j;
		}
	}
}

bool sweep_nearest_no_fit(const sweep_screen_result *r, uint64_t *idx)
{
	bool found = false;
	for (uint64_t i = 0; i < r->nplans; i++) {
		const sweep_plan *p = &r->plans[i];
		if (p->status != SWEEP_NO_FIT)
			continue;
		if (!found || p->est.mem_share < r->plans[*idx].est.mem_share)
			*idx = i;
		found = true;
	}
	return found;
}

int sweep_nearest_of(const sweep_space *sp, const sweep_screen_result *r, const char *path,
                     const char *const *sets, size_t nsets, sim_diag *diag, sweep_nearest *out)
{
	memset(out, 0, sizeof *out);
	uint64_t i = 0;
	if (r->fitting > 0 || !sweep_nearest_no_fit(r, &i))
		return SIM_OK;
	plan_scenario *s;
	int rc = sweep_plan_load(sp, &r->plans[i], path, sets, nsets, diag, &s);
	if (rc != SIM_OK)
		return rc;
	plan_mem_fit f;
	plan_memory_fit(s, &f);
	out->has = true;
	out->plan = &r->plans[i];
	sweep_mem_basis_of(s, &f, &out->basis);
	/* the GPU's cuts do not move offloaded states (explain_memory says so) */
	if (out->basis.stage >= 0) {
		out->ncuts = plan_memory_cuts(s, out->cut, 5);
		rc = sweep_fit_remedy(s, &out->fix);
	}
	plan_scenario_free(s);
	return rc;
}

void sweep_mem_basis_of(const plan_scenario *s, const plan_mem_fit *f, sweep_mem_basis *out)
{
	sweep_mem_basis gpu = {"GPU", f->stage, f->needed, s->gpu.hbm_bytes, f->peak};
	sweep_mem_basis other = {"other_gpu", f->other_stage, f->other_needed, f->other_capacity,
	                         f->other_peak};
	bool has_other = f->other_stage >= 0 && f->other_capacity > 0;
	switch (f->where) {
	case PLAN_OOM_HOST:
		*out = (sweep_mem_basis){"host memory", -1, f->host, f->host_capacity, 0};
		return;
	case PLAN_OOM_NVME:
		*out = (sweep_mem_basis){"NVMe", -1, f->nvme, f->nvme_capacity, 0};
		return;
	case PLAN_OOM_OTHER_GPU:
		*out = other;
		return;
	default: /* the GPU, or the fuller of the two types */
		*out = has_other && !(gpu.capacity > 0 && gpu.need / gpu.capacity >=
		                                                  other.need / other.capacity)
		               ? other
		               : gpu;
	}
}

double sweep_mem_share(const plan_scenario *s, const plan_mem_fit *f)
{
	sweep_mem_basis b;
	sweep_mem_basis_of(s, f, &b);
	return b.capacity > 0 ? b.need / b.capacity : b.stage < 0 ? HUGE_VAL : 0;
}
