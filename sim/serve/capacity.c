/* capacity.c - capacity planning (`podsim serve FILE --capacity`): for each
 * serving plan of a space (the Cartesian product of --vary SECTION.KEY=A,B
 * dimensions over the scenario), the highest Poisson rate at which the
 * scenario's SLO holds, and what a million output tokens cost there.
 *
 * A rate meets the SLO when at least `slo_target` of the run's requests have
 * TTFT <= slo_ttft and TPOT <= slo_tpot (serve.h). Past a replica's capacity
 * the queue, and with it TTFT, grows for as long as requests keep coming, so
 * the share falls with the rate; the search brackets the highest passing
 * rate by doubling from 1 request/s (halving when 1 fails, down to 1/64) and
 * then bisects the bracket SERVE_BISECT times (to 1/128 of it). Each probe
 * is one full simulation of the scenario's `requests`.
 * Plans are ranked by the GPU-hours a million output tokens take at that
 * rate (GPUs / output tokens/s, x [cluster] gpu_hour_price when set: USD);
 * plans the loader refuses (a tp that does not divide the heads, a KV cache
 * that cannot hold a request) are listed with the loader's reason.
 * A dimension `topology=FILE,...` swaps the scenario's cluster include for
 * each file (sweep_topology_text, as `podsim sweep` does): GPU type, node
 * and fabric vary together; serve.replicas = 0 fills each cluster.
 */
#include "serve_int.h"
#include "sweep/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SERVE_BISECT 7
#define MAX_DIMS 8
#define MAX_VALUES 32
#define MAX_SETS 256 /* --set overrides and dimensions of one plan */

typedef struct plan_row {
	char sets[512];
	char label[CONF_STR_MAX];
	char why[256];
	int gpus;
	double rate, out_tps, gpu_h_per_mtok, usd_per_mtok, share;
	serve_stat ttft, tpot;
} plan_row;

/* Whether rate r meets the SLO; *res gets the run. */
static bool probe(serve_scenario *s, double r, double target, serve_result *res, bool *err)
{
	s->arrivals = SERVE_POISSON;
	s->rate = r;
	if (serve_run(s, res, NULL) != SIM_OK) {
		*err = true;
		return false;
	}
	return res->slo_met >= target;
}

static void search(serve_scenario *s, double target, plan_row *row)
{
	serve_result res, best = {0};
	bool err = false;
	double lo = 0, hi = 0, r = 1;
	if (probe(s, r, target, &res, &err)) {
		best = res;
		for (lo = r; !err && lo < 65536;) {
			if (!probe(s, 2 * lo, target, &res, &err)) {
				hi = 2 * lo;
				break;
			}
			lo *= 2;
			best = res;
		}
	} else {
		for (hi = r; !err && hi > 1.0 / 64;) {
			if (probe(s, hi / 2, target, &res, &err)) {
				lo = hi / 2;
				best = res;
				break;
			}
			hi /= 2;
		}
	}
	for (int i = 0; !err && lo > 0 && hi > 0 && i < SERVE_BISECT; i++) {
		double mid = 0.5 * (lo + hi);
		if (probe(s, mid, target, &res, &err)) {
			lo = mid;
			best = res;
		} else {
			hi = mid;
		}
	}
	if (err || lo <= 0) {
		snprintf(row->why, sizeof row->why, "%s",
			 err ? "out of memory" : "no rate from 1/64 request/s up meets the SLO");
		return;
	}
	row->rate = lo;
	row->out_tps = best.out_tok_per_s;
	row->share = best.slo_met;
	row->ttft = best.ttft;
	row->tpot = best.tpot;
	row->gpu_h_per_mtok = row->out_tps > 0 ? row->gpus / row->out_tps / 3600 * 1e6 : INFINITY;
	row->usd_per_mtok = s->cluster.gpu_hour_usd > 0
				    ? row->gpu_h_per_mtok * s->cluster.gpu_hour_usd
				    : NAN;
}

static int cmp_rows(const void *a, const void *b)
{
	const plan_row *x = a, *y = b;
	bool xs = x->why[0] != 0, ys = y->why[0] != 0;
	if (xs != ys)
		return xs ? 1 : -1;
	if (xs)
		return 0;
	return x->gpu_h_per_mtok < y->gpu_h_per_mtok ? -1 : x->gpu_h_per_mtok > y->gpu_h_per_mtok;
}

/* Split "section.key=a,b,c" into its prefix "section.key" and values. */
static int parse_dim(const char *text, char *key, size_t klen, char vals[][64], int *n)
{
	const char *eq = strchr(text, '=');
	if (!eq || eq == text || (size_t)(eq - text) >= klen)
		return SIM_ECONF;
	snprintf(key, klen, "%.*s", (int)(eq - text), text);
	*n = 0;
	for (const char *p = eq + 1; *p;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= 64 || *n >= MAX_VALUES)
			return SIM_ECONF;
		snprintf(vals[(*n)++], 64, "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	return *n > 0 ? SIM_OK : SIM_ECONF;
}

/* Load one plan (the scenario with its overrides) and search its rate; a
 * plan the loader refuses keeps the loader's first message. */
static int load_plan(const char *path, const char *const *sets, size_t n, sim_diag *pd,
		     serve_scenario **s)
{
	const char *topo = NULL, *rest[MAX_SETS];
	size_t m = 0;
	for (size_t i = 0; i < n && m < MAX_SETS; i++) {
		if (!strncmp(sets[i], "topology=", 9))
			topo = sets[i] + 9;
		else
			rest[m++] = sets[i];
	}
	if (!topo)
		return serve_scenario_load(path, sets, n, pd, s);
	char *text, dir[4096];
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1,
		 slash ? path : ".");
	int rc = sweep_topology_text(path, topo, rest, m, pd, &text);
	if (rc == SIM_OK) {
		rc = serve_scenario_load_string(text, path, dir, pd, s);
		free(text);
	}
	return rc;
}

static void run_plan(const char *path, const char *const *sets, size_t n, double target,
		     plan_row *row)
{
	sim_diag *pd = sim_diag_new();
	serve_scenario *s = NULL;
	int rc = pd ? load_plan(path, sets, n, pd, &s) : SIM_ENOMEM;
	if (rc == SIM_OK) {
		row->gpus = s->replicas * s->tp * s->pp;
		serve_result tmp;
		bool topo = false; /* the GPU type in the label when clusters vary */
		for (size_t i = 0; i < n; i++)
			topo = topo || !strncmp(sets[i], "topology=", 9);
		if (serve_run(s, &tmp, NULL) == SIM_OK)
			snprintf(row->label, sizeof row->label, "%.40s%s%.80s", topo ? tmp.gpu : "",
				 topo ? " " : "", tmp.label);
		search(s, target, row);
	} else {
		snprintf(row->why, sizeof row->why, "%s",
			 pd && sim_diag_count(pd) ? sim_diag_text(pd, 0) : "cannot load");
	}
	serve_scenario_free(s);
	sim_diag_free(pd);
}

static void print_rows(FILE *out, const plan_row *rows, size_t plans, double target)
{
	fprintf(out, "capacity: the highest Poisson rate with >= %.0f %% of requests within the SLO, "
		     "ranked by GPU-hours per million output tokens\n\n",
		100 * target);
	fprintf(out, "%4s  %-44s %5s %10s %12s %10s %10s %9s  %s\n", "rank", "plan", "GPUs",
		"req/s", "out tok/s", "GPU-h/Mtok", "USD/Mtok", "TTFT p90", "overrides");
	for (size_t p = 0; p < plans; p++) {
		const plan_row *r = &rows[p];
		if (r->why[0]) {
			fprintf(out, "   -  %-44s  not run: %s  [%s]\n", r->label[0] ? r->label : "-", r->why,
				r->sets);
			continue;
		}
		char usd[32] = "-";
		if (r->usd_per_mtok == r->usd_per_mtok)
			snprintf(usd, sizeof usd, "%.3f", r->usd_per_mtok);
		fprintf(out, "%4zu  %-44s %5d %10.3f %12.1f %10.3f %10s %7.0f ms  %s\n", p + 1, r->label,
			r->gpus, r->rate, r->out_tps, r->gpu_h_per_mtok, usd, 1e3 * r->ttft.p90, r->sets);
	}
}

int serve_capacity(const char *path, const char *const *sets, size_t nsets,
		   const char *const *vary, size_t nvary, double target, FILE *out, sim_diag *d)
{
	if (nvary > MAX_DIMS) {
		sim_diag_error(d, NULL, 0, "at most %d --vary dimensions", MAX_DIMS);
		return SIM_ECONF;
	}
	char keys[MAX_DIMS][64], vals[MAX_DIMS][MAX_VALUES][64];
	int nv[MAX_DIMS];
	size_t plans = 1;
	for (size_t i = 0; i < nvary; i++) {
		if (parse_dim(vary[i], keys[i], sizeof keys[i], vals[i], &nv[i]) != SIM_OK) {
			sim_diag_error(d, NULL, 0,
				       "--vary '%s': expected SECTION.KEY=VALUE[,VALUE...] (at most %d "
				       "values of 63 characters)",
				       vary[i], MAX_VALUES);
			return SIM_ECONF;
		}
		plans *= (size_t)nv[i];
		for (int j = 0; !strcmp(keys[i], "topology") && j < nv[i]; j++) {
			FILE *f = fopen(vals[i][j], "r"); /* a typo is bad input, not a plan */
			if (!f) {
				sim_diag_error(d, NULL, 0, "--vary topology: cannot open %s", vals[i][j]);
				return SIM_ECONF;
			}
			fclose(f);
		}
	}
	if (plans > 4096) {
		sim_diag_error(d, NULL, 0, "%zu plans: at most 4096", plans);
		return SIM_ECONF;
	}
	plan_row *rows = calloc(plans, sizeof *rows);
	const char **all = malloc((nsets + nvary) * sizeof *all + 1);
	char (*own)[128] = malloc((nvary + 1) * sizeof *own);
	if (!rows || !all || !own) {
		free(rows);
		free(all);
		free(own);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < nsets; i++)
		all[i] = sets[i];
	for (size_t p = 0; p < plans; p++) {
		size_t idx = p, len = 0;
		plan_row *row = &rows[p];
		for (size_t i = nvary; i-- > 0;) { /* the last dimension varies fastest */
			int v = (int)(idx % (size_t)nv[i]);
			idx /= (size_t)nv[i];
			snprintf(own[i], sizeof own[i], "%s=%s", keys[i], vals[i][v]);
			all[nsets + i] = own[i];
		}
		for (size_t i = 0; i < nvary; i++)
			len += (size_t)snprintf(row->sets + len, sizeof row->sets - len, "%s%s",
						i ? " " : "", own[i]);
		run_plan(path, all, nsets + nvary, target, row);
	}
	qsort(rows, plans, sizeof *rows, cmp_rows);
	print_rows(out, rows, plans, target);
	free(rows);
	free(all);
	free(own);
	return SIM_OK;
}
