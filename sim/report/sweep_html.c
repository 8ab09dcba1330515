/* sweep_html.c - the HTML page of a sweep (`podsim sweep --html`): the ranked
 * plans as bars of simulated step time with the pre-screen estimate marked
 * (and, on a cluster with a measured collective spread, a whisker from the
 * step's median to its 95th percentile, orange for a risky plan), and a
 * scatter of step time against GPU-seconds per step (GPUs x step, what a step
 * costs at any price per GPU-hour) with the Pareto front drawn, then the
 * table. Inline SVG and CSS, no script; well-formed XML; deterministic. A
 * sweep without a spread draws exactly what it drew before. */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 900.0
#define LEFT 380.0
#define ROW 16.0
#define MAX_BARS 64

static bool has_spread(const report_sweep_point *q)
{
	return isfinite(q->p50_s) && isfinite(q->p95_s);
}

static bool any_spread(const report_sweep_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (has_spread(&p[i]))
			return true;
	return false;
}

/* The median-to-p95 whisker of bar i at height y. */
static void whisker(FILE *out, const report_sweep_point *q, double scale, double y)
{
	if (!has_spread(q))
		return;
	const char *c = q->risky_why[0] ? "#f28e2b" : "#222";
	double x0 = LEFT + q->p50_s * scale, x1 = LEFT + q->p95_s * scale, ym = y + ROW / 2;
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		     "stroke-width=\"1.5\"><title>median %.4g s, p95 %.4g s%s</title></line>\n",
		x0, x1, ym, ym, c, q->p50_s, q->p95_s, q->risky_why[0] ? " (risky)" : "");
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		     "stroke-width=\"1.5\"/>\n",
		x1, x1, y + 3, y + ROW - 3, c);
}

static void bars(FILE *out, const report_sweep_point *p, size_t n)
{
	size_t shown = n < MAX_BARS ? n : MAX_BARS;
	double mx = 0;
	for (size_t i = 0; i < shown; i++)
		mx = fmax(mx, fmax(p[i].step_s, p[i].est_s));
	for (size_t i = 0; i < shown; i++)
		if (has_spread(&p[i]))
			mx = fmax(mx, p[i].p95_s);
	double scale = mx > 0 ? (W - LEFT - 60) / mx : 0, h = ROW * (double)shown + 30;
	fprintf(out, "<h2>Ranked plans</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		     "height=\"%.0f\">\n", W, h);
	for (size_t i = 0; i < shown; i++) {
		double y = 10 + ROW * (double)i;
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%zu. ", LEFT - 6, y + 11,
			i + 1);
		char label[64];
		snprintf(label, sizeof label, "%.60s", p[i].label);
		report_esc(out, label);
		fprintf(out, "</text>\n<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
			     "fill=\"%s\"><title>",
			LEFT, y + 2, p[i].step_s * scale, ROW - 4, p[i].pareto ? "#e15759" : "#4e79a7");
		report_esc(out, p[i].label);
		fprintf(out, ": %.4g s simulated, %.4g s pre-screen</title></rect>\n", p[i].step_s,
			p[i].est_s);
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
			     "stroke-width=\"2\"/>\n",
			LEFT + p[i].est_s * scale, LEFT + p[i].est_s * scale, y + 1, y + ROW - 1);
		whisker(out, &p[i], scale, y);
		double right = has_spread(&p[i]) ? fmax(p[i].step_s, p[i].p95_s) : p[i].step_s;
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.3g s</text>\n",
			LEFT + right * scale + 4, y + 11, p[i].step_s);
	}
	fputs("</svg>\n<p class=\"note\">Bars: simulated step time (red: on the Pareto front); "
	      "black tick: the closed-form pre-screen's estimate.", out);
	if (any_spread(p, shown))
		fputs(" Whisker: the step's median to its 95th percentile over replays with sampled "
		      "collective times (orange: risky, below).", out);
	if (shown < n)
		fprintf(out, " The best %zu of %zu plans are drawn.", shown, n);
	fputs("</p>\n", out);
}

/* Step time (y) against GPU-seconds per step (x), the Pareto front joined. */
static void scatter(FILE *out, const report_sweep_point *p, size_t n)
{
	double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
	for (size_t i = 0; i < n; i++) {
		double x = p[i].gpus * p[i].step_s;
		x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, p[i].step_s), y1 = fmax(y1, p[i].step_s);
	}
	if (n == 0 || !(x1 > 0))
		return;
	double H = 360, L = 70, B = 40, pw = W - L - 20, ph = H - B - 20;
	double dx = x1 > x0 ? x1 - x0 : x1, dy = y1 > y0 ? y1 - y0 : y1;
	x0 -= 0.05 * dx, x1 += 0.05 * dx, y0 -= 0.05 * dy, y1 += 0.05 * dy;
	fprintf(out, "<h2>Step time against cost</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		     "width=\"%.0f\" height=\"%.0f\">\n", W, H);
	fprintf(out, "<rect x=\"%.0f\" y=\"20\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		     "stroke=\"#999\"/>\n", L, pw, ph);
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">GPU-seconds per step "
		     "(GPUs x step time; %.4g to %.4g)</text>\n", L + pw / 2, H - 8, x0, x1);
	fprintf(out, "<text x=\"12\" y=\"%.0f\" transform=\"rotate(-90 12 %.0f)\" "
		     "text-anchor=\"middle\">step time (%.3g to %.3g s)</text>\n",
		20 + ph / 2, 20 + ph / 2, y0, y1);
#define PX(v) (L + ((v) - x0) / (x1 - x0) * pw)
#define PY(v) (20 + ph - ((v) - y0) / (y1 - y0) * ph)
	/* the front, in order of cost */
	size_t *front = malloc(n * sizeof *front), nf = 0;
	for (size_t i = 0; front && i < n; i++)
		if (p[i].pareto)
			front[nf++] = i;
	for (size_t a = 0; front && a < nf; a++)
		for (size_t b = a + 1; b < nf; b++)
			if (p[front[b]].gpus * p[front[b]].step_s < p[front[a]].gpus * p[front[a]].step_s) {
				size_t t = front[a];
				front[a] = front[b], front[b] = t;
			}
	if (nf > 1) {
		fputs("<polyline fill=\"none\" stroke=\"#e15759\" stroke-width=\"1.5\" points=\"", out);
		for (size_t a = 0; a < nf; a++)
			fprintf(out, "%s%.1f,%.1f", a ? " " : "", PX(p[front[a]].gpus * p[front[a]].step_s),
				PY(p[front[a]].step_s));
		fputs("\"/>\n", out);
	}
	free(front);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>%zu. ",
			PX(p[i].gpus * p[i].step_s), PY(p[i].step_s), p[i].pareto ? "5" : "3.5",
			p[i].pareto ? "#e15759" : "#4e79a7", i + 1);
		report_esc(out, p[i].label);
		fprintf(out, ": %.4g s, %d GPUs</title></circle>\n", p[i].step_s, p[i].gpus);
	}
#undef PX
#undef PY
	fputs("</svg>\n<p class=\"note\">Red: the Pareto front (no other plan is both faster and "
	      "cheaper); hover a point for its plan.</p>\n", out);
}

/* The p50 and p95 cells of row q (a sweep with a spread). */
static void spread_cells(FILE *out, const report_sweep_point *q)
{
	if (!has_spread(q)) {
		fputs("<td>-</td><td>-</td>", out);
		return;
	}
	fprintf(out, "<td>%.4f</td><td>%.4f%s</td>", q->p50_s, q->p95_s,
		q->risky_why[0] ? " <b style=\"color:#d4700a\">~</b>" : "");
}

/* Each risky plan's reason, under the table. */
static void risky_notes(FILE *out, const report_sweep_point *p, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!p[i].risky_why[0])
			continue;
		if (!any)
			fputs("<p class=\"note\"><b style=\"color:#d4700a\">~</b> risky: a plan whose median "
			      "step is no better has a clearly better 95th percentile.</p>\n<ul "
			      "class=\"note\">\n", out);
		any = true;
		fprintf(out, "<li>rank %zu: ", i + 1);
		report_esc(out, p[i].risky_why);
		fputs("</li>\n", out);
	}
	if (any)
		fputs("</ul>\n", out);
}

static void table(FILE *out, const report_sweep_point *p, size_t n)
{
	bool flagged = false, spread = any_spread(p, n);
	fputs("<h2>Plans</h2>\n<table>\n<tr><th>rank</th><th>step (s)</th><th>likely (s)</th>",
	      out);
	if (spread)
		fputs("<th>p50 (s)</th><th>p95 (s)</th>", out);
	fputs("<th>pre-screen (s)</th><th>MFU</th><th>tokens/s</th><th>GPUs</th><th>$/step</th>"
	      "<th>P</th><th class=\"l\">plan</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		char band[64];
		report_range_text(p[i].band_lo_s, p[i].band_hi_s, "", band, sizeof band);
		flagged = flagged || p[i].implausible;
		fprintf(out, "<tr><td>%zu</td><td>%.4f</td><td>%s</td>", i + 1, p[i].step_s,
			*band ? band : "-");
		if (spread)
			spread_cells(out, &p[i]);
		fprintf(out, "<td>%.4f</td><td>%.1f%%%s</td>"
			     "<td>%.0f</td><td>%d</td><td>%.4f</td><td>%s</td><td class=\"l\">",
			p[i].est_s, 100 * p[i].mfu,
			p[i].implausible ? " <b class=\"oom\">!</b>" : "", p[i].tokens_per_s,
			p[i].gpus, p[i].cost_usd, p[i].pareto ? "*" : "");
		report_esc(out, p[i].label);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	fputs("<p class=\"note\">likely: the measured step's likely range, from the validation "
	      "residuals of the plan's nearest sources (podsim explain).", out);
	if (flagged)
		fputs(" !: implausible, MFU above the best published for the GPU generation "
		      "(topologies/mfu-best.csv).", out);
	if (spread)
		fputs(" p50, p95: the step's median and 95th percentile over replays with the "
		      "collectives' times drawn from the cluster's measured spread.", out);
	fputs("</p>\n", out);
	risky_notes(out, p, n);
}

void report_sweep_html(FILE *out, const char *title, const report_sweep_point *p, size_t n,
		       double tau)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n<title>podsim sweep: ", out);
	report_esc(out, title);
	fputs("</title>\n<style>\nbody{font-family:system-ui,Helvetica,Arial,sans-serif;"
	      "margin:24px auto;max-width:1100px;color:#222;padding:0 12px}\n"
	      "h2{font-size:1.15em;border-bottom:1px solid #ddd}.note{color:#666;font-size:.9em}\n"
	      ".oom{color:#c00;font-weight:600}\n"
	      "table{border-collapse:collapse;font-size:.9em}td,th{padding:3px 8px;text-align:right}"
	      "th{border-bottom:1px solid #ccc}td.l,th.l{text-align:left}\n"
	      "svg text{font-size:11px;fill:#333}\n</style>\n</head>\n<body>\n<h1>podsim sweep: ",
	      out);
	report_esc(out, title);
	fprintf(out, "</h1>\n<p class=\"note\">%zu plans simulated; Kendall's tau between the "
		     "pre-screen's order and the simulated one: %.3f.</p>\n", n, tau);
	bars(out, p, n);
	scatter(out, p, n);
	table(out, p, n);
	fputs("<p class=\"note\">Generated by podsim " PODSIM_VERSION ".</p>\n</body>\n</html>\n", out);
}

typedef struct sweep_job {
	const char *title;
	const report_sweep_point *p;
	size_t n;
	double tau;
} sweep_job;

static int sweep_fill(FILE *f, void *ctx)
{
	const sweep_job *j = ctx;
	report_sweep_html(f, j->title, j->p, j->n, j->tau);
	return SIM_OK;
}

int report_sweep_html_file(const char *path, const char *title, const report_sweep_point *p,
			   size_t n, double tau)
{
	sweep_job j = {title, p, n, tau};
	return sim_write_atomic(path, sweep_fill, &j);
}
