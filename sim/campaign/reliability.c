/* reliability.c - failure rates per component from a table of interruptions
 * per root cause over a reference run (topologies/reliability/, read by
 * sim/cases' RFC 4180 reader), scaled to a job's component counts.
 *
 * A cause counted N times over a window of T seconds on a reference cluster
 * of U components of its kind (`per`: gpu, node or nic) fails each component
 * at N / (U T) per second, independently; a job with u such components then
 * sees it at u N / (U T). A job's rate is the sum over causes (independent
 * Poisson processes add), and its MTBF the reciprocal. The scaling is linear
 * in the component count: it holds while failures are independent per part,
 * which is the assumption of the model, not a measured fact at other scales.
 */
#include "campaign.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const cols[] = {"component", "category", "interruptions", "per", "replace",
				   NULL};

static double ref_units(const campaign_ref *ref, const char *per)
{
	return !strcmp(per, "gpu") ? ref->gpus : !strcmp(per, "node") ? ref->nodes : ref->nics;
}

static double job_units(const campaign_input *in, const char *per)
{
	return !strcmp(per, "gpu") ? in->gpus : !strcmp(per, "node") ? in->nodes : in->nics;
}

static int read_row(const cases_csv *c, size_t row, const campaign_ref *ref, campaign_input *in,
		    sim_diag *diag)
{
	const char *path = cases_csv_path(c);
	int line = cases_csv_line(c, row);
	campaign_cause *x = &in->cause[in->ncauses];
	memset(x, 0, sizeof *x);
	snprintf(x->name, sizeof x->name, "%s", cases_csv_get(c, row, cases_csv_col(c, "component")));
	snprintf(x->category, sizeof x->category, "%s",
		 cases_csv_get(c, row, cases_csv_col(c, "category")));
	const char *per = cases_csv_get(c, row, cases_csv_col(c, "per"));
	const char *rep = cases_csv_get(c, row, cases_csv_col(c, "replace"));
	int rc = SIM_OK;
	if (cases_get_real(c, row, "interruptions", NAN, &x->count, diag) != SIM_OK)
		return SIM_ECONF;
	if (!(x->count >= 0)) {
		sim_diag_error(diag, path, line,
			       "column 'interruptions': a count of failures must be 0 or more, got '%s'",
			       cases_csv_get(c, row, cases_csv_col(c, "interruptions")));
		rc = SIM_ECONF;
	}
	if (strcmp(per, "gpu") && strcmp(per, "node") && strcmp(per, "nic")) {
		sim_diag_error(diag, path, line, "column 'per': expected gpu, node or nic, got '%s'",
			       per);
		rc = SIM_ECONF;
	}
	if (strcmp(rep, "yes") && strcmp(rep, "no")) {
		sim_diag_error(diag, path, line, "column 'replace': expected yes or no, got '%s'", rep);
		rc = SIM_ECONF;
	}
	if (rc != SIM_OK)
		return rc;
	snprintf(x->per, sizeof x->per, "%s", per);
	x->replace = !strcmp(rep, "yes");
	double u = ref_units(ref, per);
	x->ref_units = u;
	x->units = job_units(in, per);
	x->rate_s = u > 0 ? ref->scale * x->count / (u * ref->window_s) * x->units : 0;
	in->rate_s += x->rate_s;
	in->ncauses++;
	return SIM_OK;
}

int campaign_read_causes(const char *path, const campaign_ref *ref, campaign_input *in,
			 sim_diag *diag)
{
	cases_csv *c;
	int rc = cases_csv_read(path, &c, diag);
	if (rc == SIM_EIO)
		sim_diag_error(diag, path, 0, "cannot read the reliability table");
	if (rc != SIM_OK)
		return rc;
	in->ncauses = 0;
	in->rate_s = 0;
	in->window_s = ref->window_s;
	in->rate_scale = ref->scale;
	if (cases_csv_require(c, cols, diag) > 0) {
		cases_csv_free(c);
		return SIM_ECONF;
	}
	size_t n = cases_csv_rows(c);
	if (n > CAMPAIGN_MAX_CAUSES) {
		sim_diag_error(diag, path, 0, "%zu causes: at most %d", n, CAMPAIGN_MAX_CAUSES);
		rc = SIM_ECONF;
	}
	for (size_t i = 0; n <= CAMPAIGN_MAX_CAUSES && i < n; i++)
		if (read_row(c, i, ref, in, diag) != SIM_OK)
			rc = SIM_ECONF;
	cases_csv_free(c);
	return rc;
}
