/* fabric_print.c - the fabric calibration (valid.h) as text, JSON and a
 * cluster include file. Fixed precision, so the same data give the same
 * bytes (tests/cli/calibrate.sh compares them with goldens). Times in the
 * tables in ms; latencies in us; bandwidths in GB/s. */
#include "../calib/calib.h"
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double clean(double x, double unit)
{
	return fabs(x) < 0.5 * unit ? 0.0 : x;
}

void valid_fab_format(char *buf, size_t len, valid_fab_kind k, double x)
{
	sim_unit u = valid_fab_unit(k);
	if (u == SIM_UNIT_BANDWIDTH)
		snprintf(buf, len, "%.3f GB/s", x / 1e9);
	else if (u == SIM_UNIT_TIME)
		snprintf(buf, len, "%.3f us", clean(x * 1e6, 0.001));
	else
		snprintf(buf, len, "%.4f", clean(x, 1e-4));
}

/* How well the rows determine the parameters. A parameter is weakly
 * determined when its standard error is at least a third of its value (its
 * 95 % interval, +-1.96 se, then spans more than a factor of four, or
 * reaches zero); two are correlated when |r| >= CALIB_CORR, 0.9 (the fit can trade one
 * for the other at almost no cost in chi^2: "latency and congestion trade",
 * fabric.c). Each kind names the measurements that would pin it down: the
 * term of the EFA model it is (sim/net/coll.c, "The EFA model") dominates
 * a collective's time there. */
#define FAB_WEAK_REL 0.333

static const char *pin_hint(valid_fab_kind k)
{
	switch (k) {
	case VALID_FP_INTRA_EFF:
		return "large all-gathers or reduce-scatters inside one node";
	case VALID_FP_NVLS:
		return "a large all-reduce inside one node";
	case VALID_FP_NET_LAT:
	case VALID_FP_MSG:
		return "small messages across nodes (nccl-tests -b 8 -e 8M on 2+ nodes)";
	case VALID_FP_RAIL:
		return "the fastest runs of large messages on 2 nodes";
	default: /* congestion, its exponent, the sync delay */
		return "medians with 5th-95th percentiles at more node counts";
	}
}

static bool weak(const valid_fab_param *p)
{
	return p->has_se && p->se > 0 && p->se >= FAB_WEAK_REL * fabs(p->value);
}

/* The text of the determination note (text output and the .ini header):
 * "" when every parameter is determined and no pair correlated. */
static void determination(const valid_fab_fit *f, sim_buf *b, const char *pre)
{
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		if (!weak(p))
			continue;
		char v[32], e[32], r[32] = "";
		valid_fab_format(v, sizeof v, p->kind, p->value);
		valid_fab_format(e, sizeof e, p->kind, p->se);
		if (p->se < 10 * fabs(p->value)) /* else at its bound: no share */
			snprintf(r, sizeof r, " (%.0f %%)", 100 * p->se / fabs(p->value));
		sim_buf_printf(b, "%s[%s] %s %s +- %s%s: %s\n", pre, valid_fab_section(p->kind),
		               valid_fab_key(p->kind), v, e, r, pin_hint(p->kind));
	}
	const char *names[VALID_FP_COUNT];
	for (size_t j = 0; j < f->nparams; j++)
		names[j] = valid_fab_key(f->params[j].kind);
	calib_text_correlated(b, pre, names, f->has_corr ? f->corr : NULL, f->nparams);
}

/* The determination note under `header` (a printf format taking CALIB_CORR),
 * its lines prefixed by pre; nothing when every parameter is determined. */
static void print_determination(FILE *out, const valid_fab_fit *f, const char *header,
                                const char *pre)
{
	sim_buf d;
	sim_buf_init(&d);
	determination(f, &d, pre);
	if (d.len > 0 && !d.oom) {
		fprintf(out, header, CALIB_CORR);
		fputs(d.data, out);
	}
	sim_buf_free(&d);
}

static double rel(double t, double m)
{
	return clean(100.0 * (t - m) / m, 0.01);
}

static const char *coll_name(net_coll c)
{
	return net_coll_name(c);
}

static void pct(char *buf, size_t len, double t, double m)
{
	if (isfinite(t) && m > 0)
		snprintf(buf, len, "%+.1f%%", clean(100.0 * (t - m) / m, 0.05));
	else
		snprintf(buf, len, "-");
}

/* The text output's parameter table: the fitted values with their standard
 * errors, the held, the left out, and what the rows leave open. */
/* The parameters pinned `how` as "title\n  [section] key = value, ...\n";
 * nothing when there are none. */
static void pinned_line(FILE *out, const valid_fab_fit *f, valid_fab_pin how, const char *title)
{
	int m = 0;
	for (int k = 0; k < VALID_FP_COUNT; k++)
		if (f->pin[k] == how) {
			char v[32];
			valid_fab_format(v, sizeof v, (valid_fab_kind)k, f->pin_value[k]);
			fprintf(out, "%s%s[%s] %s = %s", m ? "" : title, m ? ", " : "\n  ",
			        valid_fab_section((valid_fab_kind)k), valid_fab_key((valid_fab_kind)k), v);
			m++;
		}
	if (m)
		fputc('\n', out);
}

static void print_params(FILE *out, const valid_fab_fit *f)
{
	fprintf(out, "\n%-28s %13s %13s %13s\n", "parameter", "start", "fitted", "std.err");
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		char name[48], a[32], b[32], c[32] = "n/a";
		snprintf(name, sizeof name, "[%s] %s", valid_fab_section(p->kind),
		         valid_fab_key(p->kind));
		valid_fab_format(a, sizeof a, p->kind, p->start);
		valid_fab_format(b, sizeof b, p->kind, p->value);
		if (p->has_se)
			valid_fab_format(c, sizeof c, p->kind, p->se);
		fprintf(out, "%-28s %13s %13s %13s\n", name, a, b, c);
	}
	for (int k = 0; k < VALID_FP_COUNT; k++)
		if (f->pin[k] == VALID_PIN_HELD) {
			char v[32];
			valid_fab_format(v, sizeof v, (valid_fab_kind)k, f->pin_value[k]);
			fprintf(out, "held, not fitted (--hold): [%s] %s = %s\n",
			        valid_fab_section((valid_fab_kind)k),
			        valid_fab_key((valid_fab_kind)k), v);
		}
	pinned_line(out, f, VALID_PIN_BOUND,
	            "at a bound of its range, not fitted (the rows drive it there; the others "
	            "fitted again):");
	pinned_line(out, f, VALID_PIN_NO_SPREAD,
	            "no row gives its fastest runs (5th-95th percentiles): the uncongested "
	            "fabric, not fitted:");
	if (f->dropped[0])
		fprintf(out,
		        "not identifiable from these rows (the cluster file's values kept): %s\n",
		        f->dropped);
	if (f->idle[0])
		fprintf(out,
		        "no row depends on it at the fitted values (the cluster file's value "
		        "kept): "
		        "%s\n",
		        f->idle);
	print_determination(out, f,
	                    "weakly determined (standard error over a third of the value; what "
	                    "would pin it down),\nand parameters that trade against each other "
	                    "(|correlation| >= %.1f):\n",
	                    "  ");
}

void valid_fab_print_text(FILE *out, const valid_fab_fit *f, const char *data)
{
	fprintf(out, "fabric calibration of %s (%s) from %s:\n", f->cluster.name, f->cluster_path,
	        data);
	fprintf(out, "%zu rows used (%zu with 5th-95th percentiles), %zu ignored\n", f->nrows,
	        f->nfast, f->nignored);
	if (f->nrepeat_groups > 0)
		fprintf(out, "repeated runs: %zu runs of %zu measurements merged, each into its median "
		        "and, from %d runs on, its 5th-95th percentiles\n",
		        f->nrepeat_rows, f->nrepeat_groups, VALID_FAB_SPREAD_RUNS);
	print_params(out, f);
	fprintf(out, "\n%-20s %5s  %-14s %5s %11s %10s %10s %8s %8s %8s %10s %8s\n", "row", "line",
	        "collective", "nodes", "measured_ms", "before_ms", "after_ms", "before", "after",
	        "loo", "fastest_ms", "uncong.");
	for (size_t i = 0; i < f->nrows; i++) {
		const valid_fab_row *r = &f->rows[i];
		char b[16], a[16], l[16], k[16], fast[16];
		pct(b, sizeof b, r->before_s, r->median_s);
		pct(a, sizeof a, r->after_s, r->median_s);
		pct(l, sizeof l, r->loo_s, r->median_s);
		pct(k, sizeof k, r->fast_after_s, r->fast_s);
		if (r->fast_s > 0)
			snprintf(fast, sizeof fast, "%.3f", r->fast_s * 1e3);
		else
			snprintf(fast, sizeof fast, "-");
		fprintf(out, "%-20s %5d  %-14s %5d %11.3f %10.3f %10.3f %8s %8s %8s %10s %8s\n",
		        r->id, r->line, coll_name(r->coll), r->nodes, r->median_s * 1e3,
		        r->before_s * 1e3, r->after_s * 1e3, b, a, l, fast, k);
	}
	fprintf(out, "\nleave one node count out (the fit without a node count's rows predicts "
	             "their medians):\n");
	fprintf(out, "%6s %6s %8s\n", "nodes", "rows", "MAPE");
	for (int i = 0; i < f->nnodes; i++) {
		int n = 0;
		for (size_t r = 0; r < f->nrows; r++)
			n += f->rows[r].nodes == f->nodes[i];
		if (isfinite(f->loo_mape[i]))
			fprintf(out, "%6d %6d %6.1f %%\n", f->nodes[i], n, 100 * f->loo_mape[i]);
		else
			fprintf(out, "%6d %6d %8s\n", f->nodes[i], n, "n/a");
	}
	if (isfinite(f->loo_all))
		fprintf(out, "%6s %6zu %6.1f %%\n", "all", f->nrows, 100 * f->loo_all);
	else
		fprintf(out, "%6s %6zu %8s (a node count whose rows alone fit the parameters)\n",
		        "all", f->nrows, "n/a");
	if (f->nspread > 0) {
		fprintf(out,
		        "\nmeasured spread ([cluster] spread: the 5th and 95th percentile time "
		        "over the median):\n");
		fprintf(out, "%6s %6s %6s\n", "nodes", "lo", "hi");
		for (int i = 0; i < f->nspread; i++)
			fprintf(out, "%6d %6.2f %6.2f\n", f->spread[i].nodes, f->spread[i].lo,
			        f->spread[i].hi);
	}
	bool excess = false;
	for (int i = 0; i < f->nnodes; i++)
		excess |= f->excess_rows[i] > 0;
	if (excess) {
		fprintf(out, "\nwhat the medians add to the fastest runs, per node count: E, one "
		             "per-call wait common\nto the collectives (relative least squares), "
		             "the median it misses most, and the fit's\nmedian - uncongested time "
		             "(same weights):\n");
		fprintf(out, "%6s %6s %10s %8s %10s\n", "nodes", "rows", "common_ms", "worst",
		        "fitted_ms");
		for (int i = 0; i < f->nnodes; i++) {
			if (f->excess_rows[i] == 0)
				continue;
			char w[16];
			snprintf(w, sizeof w, "%+.1f%%", clean(100 * f->excess_worst[i], 0.05));
			fprintf(out, "%6d %6d %10.3f %8s %10.3f\n", f->nodes[i], f->excess_rows[i],
			        f->excess_s[i] * 1e3, w, f->excess_fit_s[i] * 1e3);
		}
	}
	fprintf(out, "\nMAPE of the medians before %.1f %%, after %.1f %%", 100 * f->mape_before,
	        100 * f->mape_after);
	if (f->nfast > 0)
		fprintf(out, "; fastest runs uncongested (kappa = 1, no sync delay): %.1f %%", 100 * f->mape_fast);
	fprintf(out,
	        "\n%zu parameters fitted, %d degrees of freedom; GSL multifit_nlinear trust "
	        "region (Levenberg-Marquardt), best of 4 starts: %zu iterations, %s%s%s\n",
	        f->nfitted, f->dof, f->iterations, f->converged ? "converged" : "NOT converged",
	        !f->converged && f->stop ? ": " : "", !f->converged && f->stop ? f->stop : "");
}

static void json_str(FILE *out, const char *key, const char *s, bool comma)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_json_string(&b, s);
	fprintf(out, "\"%s\": %s%s", key, b.oom ? "null" : b.data, comma ? ", " : "");
	sim_buf_free(&b);
}

/* A JSON list `name` of the parameters pinned as `how`, with their values:
 * the held ones (--hold) or those the fit left at a bound. */
static void json_pinned(FILE *out, const char *name, const valid_fab_fit *f, valid_fab_pin how)
{
	fprintf(out, ",\n \"%s\": [", name);
	for (int k = 0, m = 0; k < VALID_FP_COUNT; k++)
		if (f->pin[k] == how) {
			fprintf(out, "%s{", m++ ? ", " : "");
			json_str(out, "section", valid_fab_section((valid_fab_kind)k), true);
			json_str(out, "key", valid_fab_key((valid_fab_kind)k), true);
			calib_json_num(out, "value", f->pin_value[k], false);
			fputc('}', out);
		}
	fputc(']', out);
}

void valid_fab_print_json(FILE *out, const valid_fab_fit *f, const char *data)
{
	fputc('{', out);
	json_str(out, "cluster", f->cluster.name, true);
	json_str(out, "cluster_file", f->cluster_path, true);
	json_str(out, "data", data, true);
	fprintf(out, "\"rows_used\": %zu, \"rows_with_percentiles\": %zu, \"rows_ignored\": %zu,\n",
	        f->nrows, f->nfast, f->nignored);
	fprintf(out, " \"repeated_runs\": %zu, \"repeated_measurements\": %zu,\n", f->nrepeat_rows,
	        f->nrepeat_groups);
	fprintf(out, " \"params\": [");
	for (size_t j = 0; j < f->nparams; j++) {
		const valid_fab_param *p = &f->params[j];
		fprintf(out, "%s\n  {", j ? "," : "");
		json_str(out, "section", valid_fab_section(p->kind), true);
		json_str(out, "key", valid_fab_key(p->kind), true);
		calib_json_num(out, "start", p->start, true);
		calib_json_num(out, "value", p->value, true);
		calib_json_num(out, "stderr", p->has_se ? p->se : NAN, true);
		fprintf(out, "\"weak\": %s", weak(p) ? "true" : "false");
		fputc('}', out);
	}
	fputc(']', out);
	json_pinned(out, "held", f, VALID_PIN_HELD);
	json_pinned(out, "at_bound", f, VALID_PIN_BOUND);
	json_pinned(out, "uncongested", f, VALID_PIN_NO_SPREAD);
	fprintf(out, ",\n ");
	const char *keys[VALID_FP_COUNT];
	for (size_t j = 0; j < f->nparams; j++)
		keys[j] = valid_fab_key(f->params[j].kind);
	calib_json_correlated(out, keys, f->has_corr ? f->corr : NULL, f->nparams);
	fprintf(out, "\n \"rows\": [");
	for (size_t i = 0; i < f->nrows; i++) {
		const valid_fab_row *r = &f->rows[i];
		fprintf(out, "%s\n  {", i ? "," : "");
		json_str(out, "id", r->id, true);
		fprintf(out, "\"line\": %d, \"collective\": \"%s\", \"gpus\": %d, \"nodes\": %d, ",
		        r->line, coll_name(r->coll), r->gpus, r->nodes);
		fprintf(out, "\"bytes\": %.0f, ", r->bytes); /* exact: a message size */
		calib_json_num(out, "measured_s", r->median_s, true);
		calib_json_num(out, "before_s", r->before_s, true);
		calib_json_num(out, "after_s", r->after_s, true);
		calib_json_num(out, "loo_s", r->loo_s, true);
		calib_json_num(out, "fastest_s", r->fast_s > 0 ? r->fast_s : NAN, true);
		calib_json_num(out, "fastest_pred_s", r->fast_after_s, false);
		fputc('}', out);
	}
	fprintf(out, "],\n \"leave_one_node_count_out\": [");
	for (int i = 0; i < f->nnodes; i++) {
		fprintf(out, "%s{\"nodes\": %d, ", i ? ", " : "", f->nodes[i]);
		calib_json_num(out, "mape", f->loo_mape[i], false);
		fputc('}', out);
	}
	fprintf(out, "],\n ");
	calib_json_num(out, "loo_mape", f->loo_all, true);
	fprintf(out, "\"spread\": [");
	for (int i = 0; i < f->nspread; i++)
		fprintf(out, "%s{\"nodes\": %d, \"lo\": %.6g, \"hi\": %.6g}", i ? ", " : "",
		        f->spread[i].nodes, f->spread[i].lo, f->spread[i].hi);
	fprintf(out, "],\n \"excess\": [");
	for (int i = 0, k = 0; i < f->nnodes; i++) {
		if (f->excess_rows[i] == 0)
			continue;
		fprintf(out, "%s{\"nodes\": %d, \"rows\": %d, ", k++ ? ", " : "", f->nodes[i],
		        f->excess_rows[i]);
		calib_json_num(out, "common_s", f->excess_s[i], true);
		calib_json_num(out, "worst", f->excess_worst[i], true);
		calib_json_num(out, "fitted_s", f->excess_fit_s[i], false);
		fputc('}', out);
	}
	fprintf(out, "],\n ");
	calib_json_num(out, "mape_before", f->mape_before, true);
	calib_json_num(out, "mape_after", f->mape_after, true);
	calib_json_num(out, "mape_fastest", f->nfast ? f->mape_fast : NAN, true);
	fprintf(out, "\"dof\": %d, \"iterations\": %zu, \"converged\": %s}\n", f->dof,
	        f->iterations, f->converged ? "true" : "false");
}

/* Wrap n formatted items (48 bytes each) after prefix. */
static void wrap_items(FILE *out, const char *prefix, char (*txt)[48], size_t n)
{
	const char **items = calloc(n ? n : 1, sizeof *items);
	if (!items)
		return;
	for (size_t i = 0; i < n; i++)
		items[i] = txt[i];
	calib_ini_list(out, prefix, items, n);
	free(items);
}

/* The command line that wrote the file, its words wrapped so that no line
 * passes the ini reader's limit however many data files it names. */
static void print_command(FILE *out, const char *data, const char *cluster)
{
	enum { WIDTH = 120 };
	size_t col = (size_t)fprintf(out, ";     podsim calibrate");
	for (const char *w = data; *w;) {
		size_t n = strcspn(w, " ");
		if (n) {
			if (col + 1 + n > WIDTH)
				col = (size_t)fprintf(out, "\n;         ");
			col += (size_t)fprintf(out, " %.*s", (int)n, w);
		}
		w += n + (w[n] == ' ');
	}
	if (col + strlen(" --fabric  --out FILE") + strlen(cluster) > WIDTH)
		fprintf(out, "\n;        ");
	fprintf(out, " --fabric %s --out FILE\n", cluster);
}

static void ini_header(FILE *out, const valid_fab_fit *f, const char *data, const char *name)
{
	fprintf(out, "; %s - the fabric of %s fitted to its own collectives, written by\n", name,
	        f->cluster.name);
	print_command(out, data, f->cluster_path);
	fprintf(out,
	        "; (tools/calibrate-all regenerates the shipped one). The cluster file includes "
	        "it\n; after its node file, so its [node] and [cluster] keys override theirs.\n");
	size_t n = f->nrows;
	char(*txt)[48] = calloc(n + VALID_FAB_MAX_NODES + 1, sizeof *txt);
	if (!txt)
		return;
	for (size_t i = 0; i < n; i++)
		snprintf(txt[i], sizeof txt[i], "%s", f->rows[i].id);
	char prefix[160];
	snprintf(prefix, sizeof prefix, "data: %zu rows (%zu with 5th-95th percentiles%s):", n,
	         f->nfast, f->nrepeat_groups ? "; repeated runs merged" : "");
	wrap_items(out, prefix, txt, n);
	fprintf(out, "; fit: GSL multifit_nlinear trust region (Levenberg-Marquardt), best of 4 "
	             "starts, on\n;      relative residuals of the medians and, uncongested, of "
	             "the fastest runs;\n");
	fprintf(out, ";      %zu fitted, %d degrees of freedom, %s%s%s\n", f->nfitted, f->dof,
	        f->converged ? "converged" : "NOT converged", !f->converged && f->stop ? ": " : "",
	        !f->converged && f->stop ? f->stop : "");
	fprintf(out, "; MAPE of the medians before %.1f %%, after %.1f %%", 100 * f->mape_before,
	        100 * f->mape_after);
	if (f->nfast)
		fprintf(out, "; fastest runs uncongested (kappa = 1, no sync delay): %.1f %%", 100 * f->mape_fast);
	fputc('\n', out);
	for (int i = 0; i < f->nnodes; i++) {
		if (isfinite(f->loo_mape[i]))
			snprintf(txt[i], sizeof txt[i], "%d: %.1f %%", f->nodes[i],
			         100 * f->loo_mape[i]);
		else
			snprintf(txt[i], sizeof txt[i], "%d: n/a", f->nodes[i]);
	}
	if (isfinite(f->loo_all))
		snprintf(txt[f->nnodes], sizeof txt[0], "all %.1f %%", 100 * f->loo_all);
	else
		snprintf(txt[f->nnodes], sizeof txt[0], "all n/a");
	wrap_items(out,
	           "leave one node count out, MAPE of the medians predicted without their "
	           "node count:",
	           txt, (size_t)f->nnodes + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(txt[i], sizeof txt[i], "%s %+.1f %%", f->rows[i].id,
		         rel(f->rows[i].after_s, f->rows[i].median_s));
	wrap_items(out, "residuals of the medians after the fit:", txt, n);
	free(txt);
	if (f->dropped[0])
		fprintf(out, "; not identifiable from these rows, not written: %s\n", f->dropped);
	if (f->idle[0])
		fprintf(out, "; no row depends on it at the fitted values, not written: %s\n",
		        f->idle);
	print_determination(out, f,
	                    "; weakly determined by these rows (standard error over a third of "
	                    "the value), and\n; what would pin it down; pairs that trade "
	                    "(|correlation| >= %.1f):\n",
	                    ";   ");
}

/* [cluster] fit_weak: the weakly determined keys (weak), for explain to
 * name beside the step's network part; nothing when there are none.
 * Whether [cluster] is open after it. */
static bool print_fit_weak(FILE *out, const valid_fab_fit *f, bool opened)
{
	bool any = false;
	for (size_t j = 0; j < f->nparams; j++) {
		if (!weak(&f->params[j]))
			continue;
		if (!any) {
			fprintf(out, "%s; the fitted keys these rows leave weakly determined (the note "
			             "above)\nfit_weak =",
			        opened ? "" : "\n[cluster]\n");
			any = true;
		}
		fprintf(out, " %s", valid_fab_key(f->params[j].kind));
	}
	if (any)
		fputc('\n', out);
	return opened || any;
}

/* Off EFA: the closed forms, which the fit used. The flow model routes
 * each flow (hash ECMP on RoCE and Ethernet) and would add its own
 * collisions to the congestion the fit measured, which holds the real
 * fabric's; on EFA's sprayed, non-blocking fabric both give the same
 * times (valid/fabric.c). */
static void print_network(FILE *out, const valid_fab_fit *f, bool opened)
{
	if (f->cluster.fabric == NET_FABRIC_EFA)
		return;
	fprintf(out,
	        "%s; collectives by the closed forms, as fitted: the flow model would count its\n"
	        "; own ECMP collisions on top of the congestion these rows measured\n"
	        "network = alpha-beta\n",
	        opened ? "" : "\n[cluster]\n");
}

void valid_fab_print_ini(FILE *out, const valid_fab_fit *f, const char *data, const char *name)
{
	ini_header(out, f, data, name);
	for (int sec = 0; sec < 2; sec++) {
		const char *section = sec ? "cluster" : "node";
		bool opened = false;
		for (size_t j = 0; j < f->nparams; j++) {
			const valid_fab_param *p = &f->params[j];
			if (strcmp(valid_fab_section(p->kind), section))
				continue;
			if (!opened)
				fprintf(out, "\n[%s]\n", section);
			opened = true;
			char a[32], b[32], c[32] = "n/a";
			valid_fab_format(a, sizeof a, p->kind, p->start);
			valid_fab_format(b, sizeof b, p->kind, p->value);
			if (p->has_se)
				valid_fab_format(c, sizeof c, p->kind, p->se);
			fprintf(out, "; start %s, standard error %s\n%s = %s\n", a, c,
			        valid_fab_key(p->kind), b);
		}
		for (int k = 0; k < VALID_FP_COUNT; k++) {
			if (f->pin[k] == VALID_PIN_NONE ||
			    strcmp(valid_fab_section((valid_fab_kind)k), section))
				continue;
			if (!opened)
				fprintf(out, "\n[%s]\n", section);
			opened = true;
			char v[32];
			valid_fab_format(v, sizeof v, (valid_fab_kind)k, f->pin_value[k]);
			fprintf(out, "; %s\n%s = %s\n",
			        f->pin[k] == VALID_PIN_HELD ? "held, not fitted (--hold)"
			        : f->pin[k] == VALID_PIN_BOUND
			                ? "at a bound of its range, not fitted (the rows drive it there)"
			                : "no row gives its fastest runs: the uncongested fabric's, not "
			                  "fitted",
			        valid_fab_key((valid_fab_kind)k), v);
		}
		if (sec == 1 && f->nspread > 0) {
			if (!opened)
				fprintf(out, "\n[cluster]\n");
			fprintf(out, "; measured spread: per node count the 5th and 95th "
			             "percentile time "
			             "over the median\n; (geometric mean over the node count's "
			             "rows), for "
			             "a step-time band\nspread =");
			for (int i = 0; i < f->nspread; i++)
				fprintf(out, " %d:%.2f-%.2f", f->spread[i].nodes, f->spread[i].lo,
				        f->spread[i].hi);
			fputc('\n', out);
			opened = true;
		}
		if (sec == 1)
			print_network(out, f, print_fit_weak(out, f, opened));
	}
}
