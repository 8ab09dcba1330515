/* valid_int.h - internals shared by the files of the valid module. */
#ifndef PODSIM_VALID_INT_H
#define PODSIM_VALID_INT_H

#include "valid.h"

/* Predict one calibration.csv row (a training run) into v (id already set). */
void valid_training_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v);
/* The scenario text of a training row with includes under datadir; SIM_ECONF with
 * the reason in why when the row cannot be simulated. */
int valid_row_scenario(const cases_csv *c, size_t row, const char *datadir, sim_buf *out,
		       char *why, size_t why_len);
/* Predict one microbench.csv row into v (id already set). */
void valid_micro_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v);
/* Fill the summary of r from its rows. */
void valid_summarize(valid_report *r);

#endif
