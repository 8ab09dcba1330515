/* rows.c - measured kernels of one GPU from a case CSV (calib.h), and the
 * model time of each row. Units: seconds, bytes, FLOPs.
 *
 *   gemm:     time = time_us * 1e-6, else 2 m n k / (measured_value * 1e12)
 *             with measured_unit TFLOP/s; predicted hw_gemm_time(m, n, k, 1).
 *   hbm_copy: bytes = the bytes column (total moved, read + write), else
 *             1 GiB as valid/micro.c assumes for bandwidth-only rows; time =
 *             time_us * 1e-6, else bytes / measured_value (GB/s or TB/s);
 *             predicted hw_mem_time(bytes).
 */
#include "calib.h"

#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return cases_csv_get(c, row, cases_csv_col(c, col));
}

static int measured_time(const cases_csv *c, size_t i, double work, const char *const *units,
                         const double *scale, double *out, sim_diag *diag);

double calib_predict(const hw_gpu *g, const calib_row *r)
{
	if (r->kind == CALIB_ROW_GEMM)
		return hw_gemm_time(g, r->dtype, r->m, r->n, r->k, 1);
	if (r->kind == CALIB_ROW_ATTN) {
		hw_attn a = r->attn;
		double t = hw_attn_time(g, r->dtype, &a);
		a.backward = true;
		return r->attn_both ? t + hw_attn_time(g, r->dtype, &a) : t;
	}
	return hw_mem_time(g, r->bytes);
}

/* An attention row (see calib.h): fitted only when causal, head dim 128 and
 * a fused implementation; *use says whether it is. */
static int attn_row(const cases_csv *c, size_t i, calib_row *r, bool *use, sim_diag *diag)
{
	static const char *const units[] = {"TFLOP/s", NULL};
	static const double scale[] = {1e12};
	const char *path = cases_csv_path(c), *metric = get(c, i, "measured_metric");
	int line = cases_csv_line(c, i);
	*use = false;
	if (hw_dtype_parse(get(c, i, "dtype"), &r->dtype) != SIM_OK) {
		sim_diag_error(diag, path, line, "column 'dtype': unknown dtype '%s'",
		               get(c, i, "dtype"));
		return SIM_ECONF;
	}
	double b, s, d;
	int rc = cases_get_real(c, i, "m", 0, &b, diag);
	rc = rc ? rc : cases_get_real(c, i, "n", 0, &s, diag);
	rc = rc ? rc : cases_get_real(c, i, "k", 0, &d, diag);
	if (rc != SIM_OK)
		return rc;
	if (!(b >= 1 && s >= 1 && d >= 1) || strncmp(metric, "attn_tflops_fwd", 15)) {
		sim_diag_error(diag, path, line,
		               "row %s: attention needs m (batch), n (sequence), k (head dim) >= 1 "
		               "and a measured_metric attn_tflops_fwd[_bwd][_causal]",
		               get(c, i, "id"));
		return SIM_ECONF;
	}
	bool causal = strstr(metric, "_causal") != NULL;
	r->attn_both = strstr(metric, "_bwd") != NULL;
	double heads = 2048.0 / d;
	hw_flash_impl impl = HW_FLASH_FA2;
	bool fused = hw_flash_parse(get(c, i, "algo"), &impl) == SIM_OK;
	r->attn = (hw_attn){b, heads, heads, s, s, d, causal, fused, false, impl};
	double f = 4.0 * b * s * s * heads * d * (causal ? 0.5 : 1.0) * (r->attn_both ? 3.5 : 1.0);
	rc = measured_time(c, i, f, units, scale, &r->measured_s, diag);
	*use = rc == SIM_OK && fused && causal && d == 128;
	return rc;
}

/* The measured time from time_us or from a rate in measured_value: `work` is
 * FLOPs or bytes; units maps the accepted measured_unit names to their scale. */
static int measured_time(const cases_csv *c, size_t i, double work, const char *const *units,
                         const double *scale, double *out, sim_diag *diag)
{
	double us = 0, v = 0;
	int rc = cases_get_real(c, i, "time_us", 0, &us, diag);
	if (rc == SIM_OK && us > 0) {
		*out = us * 1e-6;
		return SIM_OK;
	}
	if (rc == SIM_OK)
		rc = cases_get_real(c, i, "measured_value", 0, &v, diag);
	if (rc != SIM_OK)
		return rc;
	const char *unit = get(c, i, "measured_unit");
	for (int u = 0; units[u]; u++)
		if (!strcmp(unit, units[u]) && v > 0) {
			*out = work / (v * scale[u]);
			return SIM_OK;
		}
	sim_diag_error(diag, cases_csv_path(c), cases_csv_line(c, i),
	               "row %s: needs time_us > 0 or a positive measured_value in %s",
	               get(c, i, "id"), units[1] ? "GB/s or TB/s" : units[0]);
	return SIM_ECONF;
}

static int gemm_row(const cases_csv *c, size_t i, calib_row *r, sim_diag *diag)
{
	static const char *const units[] = {"TFLOP/s", NULL};
	static const double scale[] = {1e12};
	const char *path = cases_csv_path(c);
	int line = cases_csv_line(c, i);
	if (hw_dtype_parse(get(c, i, "dtype"), &r->dtype) != SIM_OK) {
		sim_diag_error(diag, path, line, "column 'dtype': unknown dtype '%s'",
		               get(c, i, "dtype"));
		return SIM_ECONF;
	}
	int rc = cases_get_real(c, i, "m", 0, &r->m, diag);
	rc = rc ? rc : cases_get_real(c, i, "n", 0, &r->n, diag);
	rc = rc ? rc : cases_get_real(c, i, "k", 0, &r->k, diag);
	if (rc != SIM_OK)
		return rc;
	if (!(r->m >= 1 && r->n >= 1 && r->k >= 1)) {
		sim_diag_error(diag, path, line, "row %s: a GEMM needs m, n and k >= 1",
		               get(c, i, "id"));
		return SIM_ECONF;
	}
	r->bound = !strcmp(get(c, i, "measured_metric"), "max_achievable_matmul_tflops");
	return measured_time(c, i, 2.0 * r->m * r->n * r->k, units, scale, &r->measured_s, diag);
}

static int hbm_row(const cases_csv *c, size_t i, calib_row *r, sim_diag *diag)
{
	static const char *const units[] = {"GB/s", "TB/s", NULL};
	static const double scale[] = {1e9, 1e12};
	int rc = cases_get_real(c, i, "bytes", GIB, &r->bytes, diag);
	if (rc != SIM_OK)
		return rc;
	if (!(r->bytes > 0)) {
		sim_diag_error(diag, cases_csv_path(c), cases_csv_line(c, i),
		               "row %s: bytes must be > 0", get(c, i, "id"));
		return SIM_ECONF;
	}
	return measured_time(c, i, r->bytes, units, scale, &r->measured_s, diag);
}

static const char *const required[] = {
        "id",      "kind",           "gpu",           "dtype", "m", "n", "k", "bytes",
        "time_us", "measured_value", "measured_unit", NULL};

int calib_rows_from_csv(const cases_csv *c, const char *gpu, calib_fit *fit, sim_diag *diag)
{
	memset(fit, 0, sizeof *fit);
	snprintf(fit->gpu, sizeof fit->gpu, "%s", gpu);
	if (cases_csv_require(c, required, diag) > 0)
		return SIM_ECONF;
	size_t n = cases_csv_rows(c);
	fit->rows = calloc(n ? n : 1, sizeof *fit->rows);
	if (!fit->rows)
		return SIM_ENOMEM;
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const char *kind = get(c, i, "kind");
		bool gemm = !strcmp(kind, "gemm"), hbm = !strcmp(kind, "hbm_copy");
		bool attn = !strcmp(kind, "attention");
		if (strcmp(get(c, i, "gpu"), gpu) || (!gemm && !hbm && !attn)) {
			fit->nignored++;
			continue;
		}
		calib_row *r = &fit->rows[fit->nrows];
		memset(r, 0, sizeof *r);
		snprintf(r->id, sizeof r->id, "%s", get(c, i, "id"));
		r->line = cases_csv_line(c, i);
		r->kind = gemm ? CALIB_ROW_GEMM : hbm ? CALIB_ROW_HBM : CALIB_ROW_ATTN;
		bool use = true;
		int rc = gemm  ? gemm_row(c, i, r, diag)
		         : hbm ? hbm_row(c, i, r, diag)
		               : attn_row(c, i, r, &use, diag);
		if (rc != SIM_OK)
			bad++;
		else if (!use)
			fit->nignored++;
		else
			fit->nrows++;
	}
	if (bad)
		return SIM_ECONF;
	if (fit->nrows == 0) {
		sim_diag_error(diag, cases_csv_path(c), 0,
		               "no gemm, hbm_copy or attention rows for gpu '%s'",
		               gpu);
		return SIM_ECONF;
	}
	return SIM_OK;
}

void calib_fit_free(calib_fit *fit)
{
	if (!fit)
		return;
	free(fit->rows);
	fit->rows = NULL;
	fit->nrows = 0;
}
