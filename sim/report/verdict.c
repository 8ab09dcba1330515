/* verdict.c - the memory verdict in words, the same sentences for the text
 * report and the HTML page (exec_mem_verdict and its basis,
 * exec_mem_basis_of: the verdict plan_memory_fit gives and the sweep prunes
 * on).
 *
 * Lines, in order: the scenario's GPU (its most loaded class); with nodes
 * of [cluster] other_gpu, that GPU (its worst stage); then the plan's
 * verdict where one GPU line does not say it alone (a mixed cluster, whose
 * verdict is the worst of the GPU types the plan runs on, or offloaded
 * states past host DRAM or NVMe). Out of memory is stated on its own basis,
 * allocated + runtime over the capacity (the allocator's cache in the
 * device total gives way first); tight and fits on the device total. A
 * run stored before schema 10 on a mixed cluster (exec_mixed.unstored)
 * has no other_gpu line: its verdict line says what was not kept. */
#include "report_int.h"

#include <math.h>
#include <string.h>

void report_bytes_text(double v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	double x = v;
	while (isfinite(x) && fabs(x) >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f", x);
	size_t n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, ".0"))
		buf[n - 2] = '\0';
	n = strlen(buf);
	snprintf(buf + n, len > n ? len - n : 0, " %s", units[u]);
}

/* One GPU's verdict: "peak D of C: fits (F free)", "... tight (F free,
 * under 10%)", "OOM: allocated + runtime N over the capacity C by X",
 * after "WHERE: " when `where` is given ("stage 0"). */
static void gpu_line(plan_verdict v, double device, double needed, double capacity,
                     const char *where, char *buf, size_t len)
{
	char d[32], c[32], f[32], w[EXEC_NAME_MAX + 4] = "";
	report_bytes_text(device, d, sizeof d);
	report_bytes_text(capacity, c, sizeof c);
	if (where)
		snprintf(w, sizeof w, "%s: ", where);
	if (v == PLAN_VERDICT_OOM) {
		report_bytes_text(needed, d, sizeof d);
		report_bytes_text(needed - capacity, f, sizeof f);
		snprintf(buf, len, "%sOOM: allocated + runtime %s over the capacity %s by %s", w, d, c,
		         f);
		return;
	}
	report_bytes_text(capacity - device, f, sizeof f);
	snprintf(buf, len, "%speak %s of %s: %s (%s free%s)", w, d, c, plan_verdict_name(v), f,
	         v == PLAN_VERDICT_TIGHT ? ", under 10%" : "");
}

static void put(report_mem_lines *l, const char *label, const char *text)
{
	if (l->n >= REPORT_MEM_LINES)
		return;
	snprintf(l->label[l->n], sizeof l->label[l->n], "%s", label);
	snprintf(l->text[l->n], sizeof l->text[l->n], "%s", text);
	l->n++;
}

void report_mem_verdict(const exec_result *r, report_mem_lines *l)
{
	memset(l, 0, sizeof *l);
	plan_verdict v = exec_mem_verdict(r);
	exec_mem_basis on = exec_mem_basis_of(r);
	l->verdict = v;
	int worst = exec_mem_worst(r);
	const exec_class *c = worst >= 0 ? &r->classes[worst] : NULL;
	plan_verdict g = c ? exec_class_gpu_verdict(c, r->mem_capacity_bytes) : PLAN_VERDICT_FITS;
	char t[REPORT_MEM_TEXT], lab[EXEC_NAME_MAX + 8], h[32], cap[32], st[32];
	const exec_mixed *m = &r->mixed;
	bool mixed = m->nodes > 0 && m->mem_stage >= 0;
	gpu_line(g, r->mem_peak_bytes, c ? exec_class_needed(c) : 0, r->mem_capacity_bytes,
	         mixed && c ? c->name : NULL, t, sizeof t);
	snprintf(lab, sizeof lab, "on %s", r->gpu);
	put(l, mixed ? lab : "", t);
	if (mixed) {
		snprintf(st, sizeof st, "stage %d", m->mem_stage);
		gpu_line(m->mem_verdict, m->mem_peak_bytes, m->mem_needed_bytes,
		         m->mem_capacity_bytes, st, t, sizeof t);
		snprintf(lab, sizeof lab, "on %s", m->gpu);
		put(l, lab, t);
	}
	/* the plan's verdict, where the lines above do not say it alone */
	if (on == EXEC_MEM_ON_HOST || on == EXEC_MEM_ON_NVME) {
		bool host = on == EXEC_MEM_ON_HOST;
		report_bytes_text(host ? r->host_bytes : r->nvme_bytes, h, sizeof h);
		report_bytes_text(host ? r->host_capacity_bytes : r->nvme_capacity_bytes, cap,
		                  sizeof cap);
		snprintf(t, sizeof t, "out of memory: the offloaded states per node, %s, overflow the "
		                      "node's %s, %s", h, host ? "host memory" : "NVMe", cap);
		put(l, "verdict", t);
	} else if (m->unstored) {
		/* stored before schema 10: other_gpu's figures were not kept */
		snprintf(t, sizeof t, "%s (on %s; stored before schema 10, without [cluster] "
		                      "other_gpu's figures%s)",
		         plan_verdict_name(v), on == EXEC_MEM_ON_OTHER ? "other_gpu" : r->gpu,
		         on == EXEC_MEM_ON_OTHER ? "" : ": its verdict there unknown");
		put(l, "verdict", t);
	} else if (mixed || on == EXEC_MEM_ON_OTHER) {
		snprintf(t, sizeof t, "%s (on %s, the worst of the GPU types the plan runs on)",
		         plan_verdict_name(v),
		         on == EXEC_MEM_ON_OTHER ? (mixed ? m->gpu : "[cluster] other_gpu") : r->gpu);
		put(l, "verdict", t);
	}
}

void report_class_verdict(const exec_result *r, const exec_class *c, char *buf, size_t len)
{
	plan_verdict v = exec_class_verdict(c, r->mem_capacity_bytes);
	const char *name = v == PLAN_VERDICT_OOM ? "OOM" : plan_verdict_name(v);
	if (!c->mem_other || v <= exec_class_gpu_verdict(c, r->mem_capacity_bytes)) {
		snprintf(buf, len, "%s", name);
		return;
	}
	/* decided on other_gpu: its figure beside the verdict */
	char a[32], b[32];
	const exec_mixed *m = &r->mixed;
	report_bytes_text(v == PLAN_VERDICT_OOM ? c->mem_other_needed_bytes
	                                        : c->mem_other_total_bytes,
	                  a, sizeof a);
	report_bytes_text(m->mem_capacity_bytes, b, sizeof b);
	snprintf(buf, len, "%s on %s (%s %s of %s)", name, m->gpu,
	         v == PLAN_VERDICT_OOM ? "allocated + runtime" : "peak", a, b);
}
