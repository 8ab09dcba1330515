/* report.h - turning a step's result into text for people and JSON for programs.
 *
 * The JSON object's keys are stable and documented in README.md ("JSON output"):
 *   run_id, scenario, model, gpu, cluster, plan, seed, gpus, step_time_s,
 *   tokens_per_s, model_flops, hardware_flops, mfu, hfu, tflops_per_gpu,
 *   bubble_fraction, breakdown (array of rank classes, each with name, ranks and
 *   one key per exec_cat_name giving seconds), memory (capacity_bytes,
 *   peak_bytes, oom, and per class the bytes per plan_mem_name), links (array:
 *   name, kind, count, capacity_Bps, bytes, busy_s, util, saturated_s), sim (tasks,
 *   events). Numbers are printed with %.9g so that equal results print equal text.
 */
#ifndef PODSIM_REPORT_H
#define PODSIM_REPORT_H

#include "../exec/exec.h"

/* Human-readable report. run_id <= 0 means "not stored". With more than 16
 * rank classes the breakdown shows the first 4 and the last 4. */
void report_text(FILE *out, const exec_result *r, int64_t run_id);

/* The JSON object as one line plus newline. run_id <= 0 prints null. */
void report_json(FILE *out, const exec_result *r, int64_t run_id);
/* Same into a buffer (for the database and tests). */
void report_json_buf(sim_buf *b, const exec_result *r, int64_t run_id);

#endif
