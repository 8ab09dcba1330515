/* refs.c - what a prediction is judged against before anyone believes it:
 * the error band of its nearest validation cell (band.c) and the best MFU
 * anyone has published on its GPU generation (topologies/mfu-best.csv, each
 * row cited). valid_refs_apply writes both into an exec_result: `podsim run`
 * and `podsim sweep` call it after the simulation, so reports, JSON and the
 * run database carry the band and the implausibility flag.
 *
 * The MFU table's precision classes: "16-bit" (bf16 and fp16: MFU against
 * the 16-bit dense peak) and "fp8" (against the fp8 dense peak, as podsim's
 * MFU of an fp8 run is). A generation or precision without a row is not
 * judged. Inference runs (mode = inference) get neither: the residuals and
 * the published figures are of training steps. */
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct mfu_row {
	char generation[16], precision[16];
	double mfu;
	char gpu[64], model[96], source[256];
	int gpus;
} mfu_row;

struct valid_refs {
	valid_bands *bands; /* NULL when the data folder has no band table */
	size_t nmfu;
	mfu_row *mfu;
};

static int load_mfu(const char *path, valid_refs *r, sim_diag *diag)
{
	static const char *const need[] = {"generation", "precision", "mfu",    "gpu",
	                                   "gpus",       "model",     "source", NULL};
	cases_csv *c;
	int rc = cases_csv_read(path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	size_t n = cases_csv_rows(c);
	r->mfu = calloc(n ? n : 1, sizeof *r->mfu);
	int bad = r->mfu ? cases_csv_require(c, need, diag) : -1;
	for (size_t i = 0; bad == 0 && i < n; i++) {
		mfu_row *m = &r->mfu[r->nmfu++];
		long gpus = 0;
		snprintf(m->generation, sizeof m->generation, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "generation")));
		snprintf(m->precision, sizeof m->precision, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "precision")));
		snprintf(m->gpu, sizeof m->gpu, "%s", cases_csv_get(c, i, cases_csv_col(c, "gpu")));
		snprintf(m->model, sizeof m->model, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "model")));
		snprintf(m->source, sizeof m->source, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "source")));
		bad += cases_get_real(c, i, "mfu", NAN, &m->mfu, diag) != SIM_OK;
		bad += cases_get_int(c, i, "gpus", 0, &gpus, diag) != SIM_OK;
		m->gpus = (int)gpus;
		if (!bad && !(m->mfu > 0 && m->mfu < 1)) {
			sim_diag_error(diag, path, cases_csv_line(c, i),
			               "column 'mfu': expected a fraction in (0, 1), got '%s'",
			               cases_csv_get(c, i, cases_csv_col(c, "mfu")));
			bad++;
		}
		if (!bad && strcmp(m->precision, "16-bit") && strcmp(m->precision, "fp8")) {
			sim_diag_error(diag, path, cases_csv_line(c, i),
			               "column 'precision': expected 16-bit or fp8, got '%s'",
			               m->precision);
			bad++;
		}
	}
	cases_csv_free(c);
	return bad < 0 ? SIM_ENOMEM : bad ? SIM_ECONF : SIM_OK;
}

int valid_refs_load(const char *datadir, valid_refs **out, sim_diag *diag)
{
	*out = NULL;
	valid_refs *r = calloc(1, sizeof *r);
	if (!r)
		return SIM_ENOMEM;
	char path[4096];
	int rc = SIM_OK;
	snprintf(path, sizeof path, "%s/%s", datadir, VALID_BANDS_FILE);
	if (access(path, F_OK) == 0)
		rc = valid_bands_load(path, &r->bands, diag);
	snprintf(path, sizeof path, "%s/%s", datadir, VALID_MFU_FILE);
	if (rc == SIM_OK && access(path, F_OK) == 0)
		rc = load_mfu(path, r, diag);
	if (rc != SIM_OK) {
		valid_refs_free(r);
		return rc;
	}
	*out = r;
	return SIM_OK;
}

void valid_refs_free(valid_refs *r)
{
	if (!r)
		return;
	valid_bands_free(r->bands);
	free(r->mfu);
	free(r);
}

bool valid_refs_band(const valid_refs *r, const char *gpu, const char *framework, int gpus,
                     valid_band *out)
{
	return valid_band_find(r ? r->bands : NULL, gpu, framework, gpus, out);
}

/* The precision class of a dtype in the MFU table, or NULL. */
static const char *precision_class(hw_dtype t)
{
	const char *n = hw_dtype_name(t);
	return !strcmp(n, "bf16") || !strcmp(n, "fp16") ? "16-bit"
	       : !strcmp(n, "fp8")                      ? "fp8"
	                                                : NULL;
}

bool valid_refs_mfu(const valid_refs *r, const char *gpu, hw_dtype dtype, double *mfu, char *why,
                    size_t len)
{
	const char *gen = valid_gpu_generation(gpu), *prec = precision_class(dtype);
	for (size_t i = 0; r && prec && i < r->nmfu; i++) {
		const mfu_row *m = &r->mfu[i];
		if (strcmp(m->generation, gen) || strcmp(m->precision, prec))
			continue;
		*mfu = m->mfu;
		snprintf(why, len, "%.1f%% on %s in %s: %s, %s on %d GPUs", 100 * m->mfu, gen, prec,
		         m->source, m->model, m->gpus);
		return true;
	}
	return false;
}

void valid_band_describe(const valid_band *b, char *buf, size_t len)
{
	char scale[32];
	if (!strcmp(b->scale, "*"))
		snprintf(scale, sizeof scale, "any scale");
	else
		snprintf(scale, sizeof scale, "%s GPUs", b->scale);
	snprintf(buf, len, "%s, %s, %s: %d rows, %d source%s",
	         strcmp(b->generation, "*") ? b->generation : "any GPU",
	         strcmp(b->framework, "*") ? b->framework : "any framework", scale, b->rows,
	         b->sources, b->sources == 1 ? "" : "s");
}

/* The band and the step's spread (exec_step_spread) are two ratios of a
 * measured step to the prediction: the band's, q10 and q90 of measured /
 * predicted over the validation rows (podsim's model error, on fabrics
 * whose run-to-run spread the rows average away), and the spread's, p10
 * and p90 of the sampled step over the deterministic one (the fabric's
 * variability, which the rows do not hold). They compose by multiplying
 * the ratios at the same levels, q10 x p10 and q90 x p90: the quantiles of
 * the product when the two move together (comonotone), the widest band
 * the two can give at these levels; were they independent, ln ratios
 * would add in quadrature and the band come out narrower. The spread only
 * widens: a sampled p10 above the step (every draw slow) keeps the lower
 * end, a p90 below it the upper. A compute-bound step (its collectives
 * hidden, p10 = p90 = the step) keeps the band as it was. */
void valid_spread_widening(const exec_result *r, double *lo, double *hi)
{
	*lo = *hi = 1;
	const exec_step_spread *sp = &r->spread;
	if (sp->samples < 1 || !(r->step_s > 0) || !isfinite(sp->p10_s) || !isfinite(sp->p90_s))
		return;
	*lo = fmin(1.0, sp->p10_s / r->step_s);
	*hi = fmax(1.0, sp->p90_s / r->step_s);
}

void valid_refs_apply(const valid_refs *refs, const plan_scenario *s, exec_result *r)
{
	r->band_lo_s = r->band_hi_s = NAN;
	r->band_from[0] = '\0';
	r->implausible = false;
	r->implausible_why[0] = '\0';
	if (!refs || s->inference)
		return;
	valid_band b;
	if (valid_refs_band(refs, s->gpu.name, s->fw.name, s->cluster.gpus, &b)) {
		double lo = 1, hi = 1;
		valid_spread_widening(r, &lo, &hi);
		r->band_lo_s = r->step_s * b.lo * lo;
		r->band_hi_s = r->step_s * b.hi * hi;
		valid_band_describe(&b, r->band_from, sizeof r->band_from);
		if (lo < 0.9995 || hi > 1.0005) { /* said when it shows at three decimals */
			size_t n = strlen(r->band_from);
			snprintf(r->band_from + n, sizeof r->band_from - n,
				 ", widened x%.3f-%.3f by the step's spread", lo, hi);
		}
	}
	double best;
	char why[192];
	if (valid_refs_mfu(refs, s->gpu.name, s->dtype, &best, why, sizeof why) && r->mfu > best) {
		r->implausible = true;
		snprintf(r->implausible_why, sizeof r->implausible_why,
		         "MFU %.1f%% is above the best published, %s", 100 * r->mfu, why);
	}
}
