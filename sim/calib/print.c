/* print.c - the fit of calib.h as text, JSON and a calibration .ini.
 * Numbers are printed at fixed precision so that the same data give the same
 * bytes (tests/cli/calibrate.sh compares them with goldens). Efficiencies are
 * fractions; launch_overhead is shown in us; times in us. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WRAP 96 /* comment lines of the .ini stay well under CONF_MAX_LINE */

/* Fixed-precision value without a negative zero. */
static double clean(double x, double unit)
{
	return fabs(x) < 0.5 * unit ? 0.0 : x;
}

static void fmt_value(char *buf, size_t len, const calib_param *p, double x)
{
	if (p->kind == CALIB_P_LAUNCH || p->kind == CALIB_P_GEMM_TILE)
		snprintf(buf, len, "%.3f us", x * 1e6);
	else if (p->kind == CALIB_P_ATTN_RAMP)
		snprintf(buf, len, "%.1f", x);
	else
		snprintf(buf, len, "%.4f", x);
}

static void fmt_shape(char *buf, size_t len, const calib_row *r)
{
	if (r->kind == CALIB_ROW_GEMM)
		snprintf(buf, len, "gemm %s %.0fx%.0fx%.0f", hw_dtype_name(r->dtype), r->m, r->n,
		         r->k);
	else if (r->kind == CALIB_ROW_ATTN)
		snprintf(buf, len, "attn %s d%.0f s%.0f %s", hw_flash_name(r->attn.impl),
		         r->attn.head_dim, r->attn.seq_q, r->attn_both ? "fwd+bwd" : "fwd");
	else
		snprintf(buf, len, "hbm_copy %.0f B", r->bytes);
}

static double rel(double t, double m)
{
	return clean(100.0 * (t - m) / m, 0.01);
}

void calib_print_text(FILE *out, const calib_fit *f, const char *data)
{
	fprintf(out,
	        "calibration of %s from %s: %zu rows used, %zu of other GPUs or kinds ignored\n",
	        f->gpu, data, f->nrows, f->nignored);
	fprintf(out, "\n%-24s %12s %12s %12s\n", "parameter", "start", "fitted", "std.err");
	for (size_t j = 0; j < f->nparams; j++) {
		const calib_param *p = &f->params[j];
		char a[32], b[32], c[32] = "n/a";
		fmt_value(a, sizeof a, p, p->start);
		fmt_value(b, sizeof b, p, p->value);
		if (p->has_se)
			fmt_value(c, sizeof c, p, p->se);
		if (p->bounded)
			snprintf(c, sizeof c, "sweep max");
		if (p->derived)
			snprintf(c, sizeof c, p->tied ? "= fwd" : "fa2 ratio");
		fprintf(out, "%-24s %12s %12s %12s\n", p->key, a, b, c);
	}
	if (f->dropped[0])
		fprintf(out, "not identifiable from these rows (left as they are): %s\n",
		        f->dropped);
	const char *names[CALIB_MAX_PARAMS];
	for (size_t j = 0; j < f->nfitted; j++)
		names[j] = f->params[j].key;
	sim_buf b;
	sim_buf_init(&b);
	calib_text_correlated(&b, "", names, f->has_corr ? f->corr : NULL, f->nfitted);
	if (b.len > 0 && !b.oom)
		fputs(b.data, out);
	sim_buf_free(&b);
	fprintf(out, "\n%-10s %5s  %-30s %12s %12s %12s %8s %8s\n", "row", "line", "kernel",
	        "measured_us", "before_us", "after_us", "before", "after");
	for (size_t i = 0; i < f->nrows; i++) {
		const calib_row *r = &f->rows[i];
		char shape[64];
		fmt_shape(shape, sizeof shape, r);
		fprintf(out, "%-10s %5d  %-30s %12.2f %12.2f %12.2f %+7.2f%% %+7.2f%%\n", r->id,
		        r->line, shape, r->measured_s * 1e6, r->before_s * 1e6, r->after_s * 1e6,
		        rel(r->before_s, r->measured_s), rel(r->after_s, r->measured_s));
	}
	if (f->nfitted == 0)
		fprintf(out, "\nMAPE before %.2f %%, after %.2f %%; %zu parameters\n",
		        100 * f->mape_before, clean(100 * f->mape_after, 0.01), f->nparams);
	else
		fprintf(out,
		        "\nMAPE before %.2f %%, after %.2f %%; %zu parameters, %d degrees of "
		        "freedom%s\n",
		        100 * f->mape_before, clean(100 * f->mape_after, 0.01), f->nparams, f->dof,
		        f->dof == 0 ? " (an exact solve: no standard errors)" : "");
	if (f->nfitted == 0)
		fprintf(out, "no least-squares fit: every parameter is a sweep maximum (best measured "
		             "/ peak)\n");
	else
		fprintf(out,
		        "GSL multifit_nlinear trust region (Levenberg-Marquardt): %zu iterations, %s%s%s\n",
		        f->iterations, f->converged ? "converged" : "NOT converged",
		        !f->converged && f->stop ? ": " : "", !f->converged && f->stop ? f->stop : "");
	for (size_t j = 0; j < f->nparams; j++)
		if (f->params[j].bounded)
			fprintf(out,
			        "%s: the best of a sweep of shapes (MAMF) bounds every shape: best / "
			        "peak\n",
			        f->params[j].key);
}

/* A JSON number or null (calib.h). */
void calib_json_num(FILE *out, const char *key, double x, bool comma)
{
	if (isfinite(x))
		fprintf(out, "\"%s\": %.6g%s", key, x, comma ? ", " : "");
	else
		fprintf(out, "\"%s\": null%s", key, comma ? ", " : "");
}

void calib_json_correlated(FILE *out, const char *const *names, const double *corr, size_t n)
{
	fprintf(out, "\"correlated\": [");
	for (size_t j = 0, m = 0; j < n && corr; j++)
		for (size_t k = j + 1; k < n; k++) {
			double r = corr[j * n + k];
			if (!(fabs(r) >= CALIB_CORR))
				continue;
			fprintf(out, "%s{\"a\": \"%s\", \"b\": \"%s\", ", m++ ? ", " : "", names[j],
			        names[k]);
			calib_json_num(out, "r", r, false);
			fputc('}', out);
		}
	fprintf(out, "], ");
}

void calib_text_correlated(sim_buf *b, const char *pre, const char *const *names,
                           const double *corr, size_t n)
{
	for (size_t j = 0; j < n && corr; j++)
		for (size_t k = j + 1; k < n; k++) {
			double r = corr[j * n + k];
			if (fabs(r) >= CALIB_CORR)
				sim_buf_printf(
				        b, "%s%s and %s correlated %+.2f: rows cannot part them\n",
				        pre, names[j], names[k], r);
		}
}

void calib_print_json(FILE *out, const calib_fit *f, const char *data)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_json_string(&b, data);
	fprintf(out, "{\"gpu\": \"%s\", \"data\": %s, \"rows_used\": %zu, \"rows_ignored\": %zu,\n",
	        f->gpu, b.oom ? "null" : b.data, f->nrows, f->nignored);
	sim_buf_free(&b);
	fprintf(out, " \"params\": [");
	for (size_t j = 0; j < f->nparams; j++) {
		const calib_param *p = &f->params[j];
		fprintf(out, "%s\n  {\"key\": \"%s\", ", j ? "," : "", p->key);
		calib_json_num(out, "start", p->start, true);
		calib_json_num(out, "value", p->value, true);
		calib_json_num(out, "stderr", p->has_se ? p->se : NAN, false);
		fputc('}', out);
	}
	fprintf(out, "],\n ");
	const char *keys[CALIB_MAX_PARAMS];
	for (size_t j = 0; j < f->nfitted; j++)
		keys[j] = f->params[j].key;
	calib_json_correlated(out, keys, f->has_corr ? f->corr : NULL, f->nfitted);
	fprintf(out, "\n \"rows\": [");
	for (size_t i = 0; i < f->nrows; i++) {
		const calib_row *r = &f->rows[i];
		fprintf(out, "%s\n  {\"id\": \"%s\", \"line\": %d, ", i ? "," : "", r->id, r->line);
		calib_json_num(out, "measured_s", r->measured_s, true);
		calib_json_num(out, "before_s", r->before_s, true);
		calib_json_num(out, "after_s", r->after_s, true);
		calib_json_num(out, "residual", (r->after_s - r->measured_s) / r->measured_s,
		               false);
		fputc('}', out);
	}
	fprintf(out, "],\n ");
	calib_json_num(out, "mape_before", f->mape_before, true);
	calib_json_num(out, "mape_after", f->mape_after, true);
	fprintf(out, "\"dof\": %d, \"iterations\": %zu, \"converged\": %s}\n", f->dof,
	        f->iterations, f->converged ? "true" : "false");
}

/* "; <prefix>" followed by items, wrapped into comment lines (calib.h). */
void calib_ini_list(FILE *out, const char *prefix, const char *const *items, size_t n)
{
	size_t col = (size_t)fprintf(out, "; %s", prefix);
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(items[i]) + 2;
		if (col + w > WRAP) {
			fprintf(out, "\n;  ");
			col = 3;
		}
		col += (size_t)fprintf(out, " %s%s", items[i], i + 1 < n ? "," : "");
	}
	fputc('\n', out);
}

static void residual_lines(FILE *out, const calib_fit *f)
{
	size_t n = f->nrows;
	char(*txt)[48] = calloc(n ? n : 1, sizeof *txt);
	const char **items = calloc(n ? n : 1, sizeof *items);
	if (txt && items) {
		for (size_t i = 0; i < n; i++) {
			const calib_row *r = &f->rows[i];
			snprintf(txt[i], sizeof txt[i], "%s %+.2f %%", r->id,
			         rel(r->after_s, r->measured_s));
			items[i] = txt[i];
		}
		calib_ini_list(out, "residuals after the fit:", items, n);
	}
	free(txt);
	free(items);
}

void calib_print_ini(FILE *out, const calib_fit *f, const char *data)
{
	fprintf(out, "; %s.ini - calibration of %s, written by\n", f->gpu, f->gpu);
	fprintf(out, ";     podsim calibrate %s --gpu %s --out FILE\n", data, f->gpu);
	fprintf(out,
	        "; (tools/calibrate-all regenerates the shipped ones). Include it after the GPU\n");
	fprintf(out, "; file for the fitted values to override the file's (paths from the\n");
	fprintf(out, "; including file's folder):\n");
	fprintf(out, ";     include = .../topologies/gpus/%s.ini\n", f->gpu);
	fprintf(out, ";     include = .../topologies/calib/%s.ini\n", f->gpu);
	const char **ids = calloc(f->nrows ? f->nrows : 1, sizeof *ids);
	if (ids) {
		for (size_t i = 0; i < f->nrows; i++)
			ids[i] = f->rows[i].id;
		char prefix[160];
		snprintf(prefix, sizeof prefix, "data: %s, %zu rows:", data, f->nrows);
		calib_ini_list(out, prefix, ids, f->nrows);
	}
	free(ids);
	if (f->nfitted == 0) {
		fprintf(out, "; no least-squares fit: every parameter is a sweep maximum (best / "
		             "peak)\n");
	} else {
		fprintf(out, "; fit: GSL multifit_nlinear trust region (Levenberg-Marquardt) on "
		             "relative time\n");
		fprintf(out,
		        ";      residuals, logistic bounds; %zu fitted, %d degrees of "
		        "freedom%s\n",
		        f->nfitted, f->dof, f->dof == 0 ? " (an exact solve)" : "");
	}
	fprintf(out, "; MAPE before %.2f %%, after %.2f %%\n", 100 * f->mape_before,
	        clean(100 * f->mape_after, 0.01));
	residual_lines(out, f);
	if (f->dropped[0])
		fprintf(out, "; not identifiable from these rows, not written: %s\n", f->dropped);
	fprintf(out, "\n[gpu]\n");
	for (size_t j = 0; j < f->nparams; j++) {
		const calib_param *p = &f->params[j];
		char a[32], b[32], c[32] = "n/a";
		fmt_value(a, sizeof a, p, p->start);
		fmt_value(b, sizeof b, p, p->value);
		if (p->has_se)
			fmt_value(c, sizeof c, p, p->se);
		if (p->bounded)
			fprintf(out, "; start %s; the sweep maximum (MAMF rows): best / peak\n%s = %s\n",
			        a, p->key, b);
		else if (p->derived && p->tied)
			fprintf(out, "; not fitted: the rows time forward + backward together only; "
			             "the forward's value\n%s = %s\n",
			        p->key, b);
		else if (p->derived)
			fprintf(out, "; not fitted: no backward rows; the forward's value times "
			             "FlashAttention-2's backward / forward ratio\n%s = %s\n",
			        p->key, b);
		else
			fprintf(out, "; start %s, standard error %s\n%s = %s\n", a, c, p->key, b);
	}
}
