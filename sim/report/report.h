/* report.h - turning a step's result into text for people and JSON for programs.
 *
 * The JSON object's keys are stable and documented in README.md ("JSON output"):
 *   run_id, scenario, model, gpu, cluster, plan, seed, gpus, step_time_s,
 *   step_band_s ([lo, hi] or null: the likely range of the measured step),
 *   band_from (the validation cell it came from, or null), step_spread
 *   (only on runs whose cluster has a measured collective spread: p05_s,
 *   p10_s, p50_s, p90_s, p95_s, p95_ci_s, samples, seed, correlation,
 *   varying_tasks),
 *   tokens_per_s,
 *   model_flops, hardware_flops, mfu, hfu, tflops_per_gpu, bubble_fraction,
 *   implausible (MFU above the best published), implausible_reason (or null),
 *   breakdown (array of rank classes, each with name, ranks and
 *   one key per exec_cat_name giving seconds), memory (capacity_bytes,
 *   peak_bytes, oom, verdict and verdict_on: the plan's memory verdict and
 *   where it is decided, exec_mem_verdict; and per class the bytes per
 *   plan_mem_name, its verdict, other_gpu's figures), links (array:
 *   name, kind, count, capacity_Bps, bytes, busy_s, util, saturated_s), sim (tasks,
 *   events). Numbers are printed with %.9g so that equal results print equal text.
 */
#ifndef PODSIM_REPORT_H
#define PODSIM_REPORT_H

#include "../campaign/campaign.h"
#include "../exec/exec.h"

/* Whether r carries an error band (finite, positive bounds). */
bool report_has_band(const exec_result *r);
/* The band of r as "likely 6.8-8.0 s" (three significant digits of the
 * upper end, in the unit the step time prints in), or "" without one. */
void report_band_text(const exec_result *r, char *buf, size_t len);
/* Whether r carries a step spread (exec_result.spread sampled), and its
 * quantiles as "p5 12.61 s, median 12.71 s, p95 13.02 s (+3.3% over the
 * step)" (four significant digits of p95, the step's unit), or "". */
bool report_has_spread(const exec_result *r);
void report_spread_text(const exec_result *r, char *buf, size_t len);
/* The same for any range of seconds [lo, hi] scaled by `scale` (1 for the
 * step; 1/86400 for days, with unit "days"): "6.8-8.0" plus " unit". */
void report_range_text(double lo, double hi, const char *unit, char *buf, size_t len);

/* Text into HTML/XML with &, <, >, " escaped and bytes that are not valid
 * UTF-8 or are control characters replaced (html.c); every page's text goes
 * through it (run, sweep, campaign and serving pages). */
void report_esc(FILE *out, const char *s);

/* Human-readable report. run_id <= 0 means "not stored". With more than 16
 * rank classes the breakdown shows the first 4 and the last 4. */
void report_text(FILE *out, const exec_result *r, int64_t run_id);

/* The JSON object as one line plus newline. run_id <= 0 prints null. */
void report_json(FILE *out, const exec_result *r, int64_t run_id);
/* Same into a buffer (for the database and tests). */
void report_json_buf(sim_buf *b, const exec_result *r, int64_t run_id);

/* One self-contained HTML page (inline CSS and SVG, no script, no network):
 * headline figures, a Gantt chart of each rank class's compute stream from tl
 * (NULL: no chart, and `note` says why), the breakdown as a stacked bar per
 * rank class, memory per category against HBM capacity, and the link classes
 * as utilisation bars. More than 32 rank classes draw the first and last 16.
 * Deterministic; well-formed XML. run_id <= 0 means "not stored". */
void report_html(FILE *out, const exec_result *r, int64_t run_id, const exec_timeline *tl,
		 const char *note);
/* The same into `path`, atomically (path.tmp, then rename): SIM_OK, SIM_EIO
 * or SIM_ENOMEM; on failure nothing is left at path.tmp. */
int report_html_file(const char *path, const exec_result *r, int64_t run_id,
		     const exec_timeline *tl, const char *note);
/* For `runs show --html`: replay a stored run's resolved scenario text to get
 * its timeline into *tl (free with exec_timeline_free). Succeeds only when the
 * replay reproduces stored->step_s; otherwise *tl is empty, *why says why (a
 * static sentence for the page) and a negative code is returned. */
int report_html_timeline(const char *scenario_text, const exec_result *stored,
			 exec_timeline *tl, const char **why);

/* One simulated plan of a sweep, for its HTML page. */
#define REPORT_WHY_MAX 512
typedef struct report_sweep_point {
	char label[256]; /* the plan's settings */
	double step_s, est_s, mfu, tokens_per_s, cost_usd;
	double band_lo_s, band_hi_s; /* error band (NaN: none) */
	double p50_s, p95_s;         /* the step's spread (NaN: none) */
	char risky_why[REPORT_WHY_MAX]; /* why the plan is risky (sweep_risky), or "" */
	int gpus;
	bool pareto, implausible;
} report_sweep_point;

/* The sweep's page (sweep_html.c): ranked plans as bars of simulated step time
 * with the pre-screen estimate marked (the best 64) and, where sampled, a
 * whisker from the step's median to its 95th percentile, step time against
 * GPU-seconds per step with the Pareto front joined, and the table (p50 and
 * p95 columns and the risky marks with their reasons when any plan has a
 * spread); points in rank order. The _file variant writes path atomically (path.tmp, rename). */
void report_sweep_html(FILE *out, const char *title, const report_sweep_point *p, size_t n,
		       double tau);
int report_sweep_html_file(const char *path, const char *title, const report_sweep_point *p,
			   size_t n, double tau);

/* A training campaign's page (campaign_html.c, `podsim train --html`):
 * headline quantiles, the timeline ev[0..n) of one campaign
 * (campaign_timeline) whole and over its first two days, where the mean
 * campaign's time goes, and the goodput's histogram. Deterministic;
 * well-formed XML. The _file form writes atomically (SIM_OK, SIM_EIO,
 * SIM_ENOMEM). */
void report_campaign_html(FILE *out, const exec_result *r, const campaign_result *c,
			  const campaign_event *ev, size_t n);
int report_campaign_html_file(const char *path, const exec_result *r, const campaign_result *c,
			      const campaign_event *ev, size_t n);

#endif
