/* json.c - the JSON form of a step's result: one object on one line, keys as
 * documented in report.h and README.md ("JSON output").
 *
 * Output is reproducible: numbers are printed with %.9g, so equal results give
 * equal text; non-finite numbers print as null (JSON has no NaN or infinity);
 * wall_s is left out on purpose because it changes from run to run. Strings go
 * through sim_buf_json_string. Times are seconds, sizes bytes, bandwidths B/s.
 */
#include "report.h"

#include <math.h>

/* "key":value for a double; null when not finite. */
static void num(sim_buf *b, const char *key, double v, bool comma)
{
	sim_buf_printf(b, "\"%s\":", key);
	if (isfinite(v))
		sim_buf_printf(b, "%.9g", v);
	else
		sim_buf_append(b, "null", 4);
	if (comma)
		sim_buf_append(b, ",", 1);
}

static void str(sim_buf *b, const char *key, const char *v, bool comma)
{
	sim_buf_printf(b, "\"%s\":", key);
	sim_buf_json_string(b, v);
	if (comma)
		sim_buf_append(b, ",", 1);
}

/* "key":"v", or "key":null when v is empty; always followed by a comma. */
static void str_or_null(sim_buf *b, const char *key, const char *v)
{
	if (*v)
		str(b, key, v, true);
	else
		sim_buf_printf(b, "\"%s\":null,", key);
}

static void u64(sim_buf *b, const char *key, uint64_t v, bool comma)
{
	sim_buf_printf(b, "\"%s\":%llu%s", key, (unsigned long long)v, comma ? "," : "");
}

static void boolean(sim_buf *b, const char *key, bool v, bool comma)
{
	sim_buf_printf(b, "\"%s\":%s%s", key, v ? "true" : "false", comma ? "," : "");
}

static void breakdown(sim_buf *b, const exec_result *r)
{
	sim_buf_append(b, "\"breakdown\":[", 13);
	for (int i = 0; i < r->nclasses; i++) {
		const exec_class *c = &r->classes[i];
		sim_buf_append(b, i ? ",{" : "{", i ? 2 : 1);
		str(b, "name", c->name, true);
		sim_buf_printf(b, "\"ranks\":%d,", c->ranks);
		for (int k = 0; k < EXEC_CAT_COUNT; k++)
			num(b, exec_cat_name((exec_cat)k), c->time_s[k], k + 1 < EXEC_CAT_COUNT);
		sim_buf_append(b, "}", 1);
	}
	sim_buf_append(b, "],", 2);
}

static void memory(sim_buf *b, const exec_result *r)
{
	sim_buf_append(b, "\"memory\":{", 10);
	num(b, "capacity_bytes", r->mem_capacity_bytes, true);
	num(b, "peak_bytes", r->mem_peak_bytes, true);
	int worst = exec_mem_worst(r);
	/* the verdict's basis: the most loaded class's allocated + runtime */
	num(b, "allocated_plus_runtime_bytes",
	    worst >= 0 ? exec_class_needed(&r->classes[worst]) : 0, true);
	/* the plan's verdict, the worst over the GPU types it runs on and the
	 * offload tiers, and where it is decided (exec_mem_basis_of): the
	 * GPU's name (the figures above, or mixed_gpus.memory's), "host
	 * memory" or "NVMe"; the headroom on that GPU */
	boolean(b, "oom", r->oom, true);
	str(b, "verdict", plan_verdict_name(exec_mem_verdict(r)), true);
	exec_mem_basis on = exec_mem_basis_of(r);
	str(b, "verdict_on",
	    on == EXEC_MEM_ON_HOST   ? "host memory"
	    : on == EXEC_MEM_ON_NVME ? "NVMe"
	    : on == EXEC_MEM_ON_GPU  ? r->gpu
	    : r->mixed.nodes > 0     ? r->mixed.gpu
	                             : "other_gpu",
	    true);
	if (r->mixed.unstored) /* stored before schema 10 (store_get_run) */
		boolean(b, "other_gpu_stored", false, true);
	num(b, "headroom_bytes", exec_mem_headroom(r), true);
	num(b, "host_bytes_per_node", r->host_bytes, true);
	num(b, "host_capacity_bytes", r->host_capacity_bytes, true);
	num(b, "nvme_bytes_per_node", r->nvme_bytes, true);
	num(b, "nvme_capacity_bytes", r->nvme_capacity_bytes, true);
	sim_buf_append(b, "\"classes\":[", 11);
	for (int i = 0; i < r->nclasses; i++) {
		const exec_class *c = &r->classes[i];
		sim_buf_append(b, i ? ",{" : "{", i ? 2 : 1);
		str(b, "name", c->name, true);
		for (int m = 0; m < PLAN_MEM_COUNT; m++)
			num(b, plan_mem_name((plan_mem)m), c->mem_bytes[m], true);
		num(b, "allocated", exec_class_allocated(c), true);
		/* null where the framework's log reads the step's peak */
		num(b, "logged_allocated", c->mem_logged_bytes > 0 ? c->mem_logged_bytes : NAN,
		    true);
		num(b, "reserved", exec_class_reserved(c), true);
		num(b, "allocated_plus_runtime", exec_class_needed(c), true);
		num(b, "total", c->mem_total_bytes, true);
		str(b, "verdict", plan_verdict_name(exec_class_verdict(c, r->mem_capacity_bytes)), true);
		if (c->mem_other) { /* only with a rank on other_gpu's nodes */
			sim_buf_append(b, "\"other_gpu\":{", 13);
			num(b, "total", c->mem_other_total_bytes, true);
			num(b, "allocated_plus_runtime", c->mem_other_needed_bytes, true);
			num(b, "capacity_bytes", r->mixed.mem_capacity_bytes, true);
			str(b, "verdict", plan_verdict_name(c->mem_other_verdict), false);
			sim_buf_append(b, "},", 2);
		}
		boolean(b, "oom", c->oom, false);
		sim_buf_append(b, "}", 1);
	}
	sim_buf_append(b, "]},", 3);
}

static void links(sim_buf *b, const exec_result *r)
{
	sim_buf_append(b, "\"links\":[", 9);
	for (int i = 0; i < r->nlinks; i++) {
		const exec_link *l = &r->links[i];
		sim_buf_append(b, i ? ",{" : "{", i ? 2 : 1);
		str(b, "name", l->name, true);
		str(b, "kind", l->kind, true);
		sim_buf_printf(b, "\"count\":%d,", l->count);
		num(b, "capacity_Bps", l->Bps, true);
		num(b, "bytes", l->bytes, true);
		num(b, "busy_s", l->busy_s, true);
		num(b, "util", l->util, true);
		num(b, "saturated_s", l->saturated_s, true);
		str(b, "traffic", l->traffic, false);
		sim_buf_append(b, "}", 1);
	}
	sim_buf_append(b, "],", 2);
}

/* The shared fabric uplinks (exec_uplinks), only where they slowed a
 * transfer: other runs print as before. Per category (exec_cat_name keys)
 * the time the class's transfers lost, and the most seconds of any class
 * with the uplinks not shared. */
static void uplinks(sim_buf *b, const exec_result *r)
{
	const exec_uplinks *u = &r->uplinks;
	if (!exec_uplinks_slowed(u))
		return;
	sim_buf_append(b, "\"shared_uplinks\":{", 18);
	num(b, "oversubscription", u->oversub, true);
	num(b, "step_unshared_s", u->free_step_s, true);
	str(b, "class", u->rank < r->nclasses ? r->classes[u->rank].name : "", true);
	const char *keys[2] = {"lost_s", "unshared_most_s"};
	const double *v[2] = {u->lost_s, u->free_most_s};
	for (int k = 0; k < 2; k++) {
		sim_buf_printf(b, "\"%s\":{", keys[k]);
		for (int c = 0; c < EXEC_CAT_COUNT; c++)
			num(b, exec_cat_name((exec_cat)c), v[k][c], c + 1 < EXEC_CAT_COUNT);
		sim_buf_append(b, k ? "}" : "},", k ? 1 : 2);
	}
	sim_buf_append(b, "},", 2);
}

void report_json_buf(sim_buf *b, const exec_result *r, int64_t run_id)
{
	if (run_id > 0)
		sim_buf_printf(b, "{\"run_id\":%lld,", (long long)run_id);
	else
		sim_buf_append(b, "{\"run_id\":null,", 15);
	str(b, "scenario", r->scenario, true);
	str(b, "model", r->model, true);
	str(b, "gpu", r->gpu, true);
	str(b, "cluster", r->cluster, true);
	str(b, "plan", r->plan, true);
	str(b, "layout", r->layout, true);
	u64(b, "seed", r->seed, true);
	sim_buf_printf(b, "\"gpus\":%d,", r->gpus);
	num(b, "step_time_s", r->step_s, true);
	if (report_has_band(r))
		sim_buf_printf(b, "\"step_band_s\":[%.9g,%.9g],", r->band_lo_s, r->band_hi_s);
	else
		sim_buf_printf(b, "\"step_band_s\":null,");
	str_or_null(b, "band_from", r->band_from);
	if (report_has_spread(r)) { /* only where sampled: other runs print as before */
		const exec_step_spread *sp = &r->spread;
		sim_buf_append(b, "\"step_spread\":{", 15);
		num(b, "p05_s", sp->p05_s, true);
		num(b, "p10_s", sp->p10_s, true);
		num(b, "p50_s", sp->p50_s, true);
		num(b, "p90_s", sp->p90_s, true);
		num(b, "p95_s", sp->p95_s, true);
		sim_buf_printf(b, "\"p95_ci_s\":[%.9g,%.9g],", sp->p95_lo_s, sp->p95_hi_s);
		sim_buf_printf(b, "\"samples\":%d,", sp->samples);
		u64(b, "seed", sp->seed, true);
		num(b, "correlation", sp->corr, true);
		sim_buf_printf(b, "\"varying_tasks\":%d},", sp->varying);
	}
	if (r->mixed.nodes > 0) { /* only with mixed nodes: other runs print as before */
		const exec_mixed *m = &r->mixed;
		sim_buf_append(b, "\"mixed_gpus\":{", 14);
		str(b, "other_gpu", m->gpu, true);
		sim_buf_printf(b, "\"nodes\":%d,\"replicas\":%d,\"replayed\":%d,", m->nodes,
			       m->replicas, m->kinds);
		num(b, "step_alike_s", m->base_s, true);
		num(b, "step_s", m->step_s, true);
		sim_buf_printf(b, "\"slowest_replica\":%d,\"slowest_stage\":%d,", m->replica,
			       m->stage);
		num(b, "stage_compute_s", m->stage_s, true);
		num(b, "stage_compute_alike_s", m->stage_base_s, true);
		sim_buf_printf(b, "\"memory\":{\"stage\":%d,", m->mem_stage);
		num(b, "peak_bytes", m->mem_peak_bytes, true);
		num(b, "allocated_plus_runtime_bytes", m->mem_needed_bytes, true);
		num(b, "capacity_bytes", m->mem_capacity_bytes, true);
		str(b, "verdict", plan_verdict_name(m->mem_verdict), false);
		sim_buf_append(b, "}},", 3);
	}
	num(b, "tokens_per_s", r->tokens_per_s, true);
	num(b, "model_flops", r->model_flops, true);
	num(b, "hardware_flops", r->hardware_flops, true);
	num(b, "mfu", r->mfu, true);
	num(b, "hfu", r->hfu, true);
	num(b, "tflops_per_gpu", r->tflops_per_gpu, true);
	num(b, "bubble_fraction", r->bubble_fraction, true);
	boolean(b, "implausible", r->implausible, true);
	str_or_null(b, "implausible_reason", r->implausible ? r->implausible_why : "");
	breakdown(b, r);
	memory(b, r);
	links(b, r);
	uplinks(b, r);
	sim_buf_append(b, "\"sim\":{", 7);
	u64(b, "tasks", r->tasks, true);
	u64(b, "events", r->events, false);
	sim_buf_append(b, "}}\n", 3);
}

void report_json(FILE *out, const exec_result *r, int64_t run_id)
{
	sim_buf b;
	sim_buf_init(&b);
	report_json_buf(&b, r, run_id);
	if (b.oom)
		fputs("{\"error\":\"out of memory\"}\n", out);
	else if (b.data)
		fwrite(b.data, 1, b.len, out);
	sim_buf_free(&b);
}
