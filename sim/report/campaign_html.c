/* campaign_html.c - a training campaign's page (`podsim train --html`):
 * headline figures, one campaign's timeline (training, failures, restarts;
 * the whole campaign and its first two days), where the time went, and the
 * goodput's distribution over the Monte Carlo's campaigns. Inline SVG and
 * CSS, no script; deterministic; well-formed XML. */
#include "report_int.h"

#include <math.h>

#define W 1000.0 /* drawing width, px */

static const char *const ev_color[] = {"#4a8", "#c22", "#e90"};

/* The timeline's events within [t0, t1) seconds, scaled to the width. */
static void timeline(FILE *out, const campaign_event *ev, size_t n, double t0, double t1,
		     const char *title)
{
	double k = W / (t1 - t0), h = 28;
	fprintf(out, "<h2>%s</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		     "height=\"%.0f\">\n",
		title, W + 20, h + 34);
	for (size_t i = 0; i < n; i++) {
		const campaign_event *e = &ev[i];
		double a = fmax(e->start_s, t0), b = fmin(e->start_s + e->dur_s, t1);
		if (e->kind == CAMPAIGN_EV_FAILURE) {
			if (e->start_s < t0 || e->start_s >= t1)
				continue;
			fprintf(out, "<line x1=\"%.2f\" y1=\"2\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"%s\" "
				     "stroke-width=\"0.6\"/>\n",
				10 + k * (a - t0), 10 + k * (a - t0), h + 6, ev_color[e->kind]);
		} else if (b > a) {
			fprintf(out, "<rect x=\"%.2f\" y=\"6\" width=\"%.3f\" height=\"%.0f\" "
				     "fill=\"%s\"/>\n",
				10 + k * (a - t0), fmax(k * (b - a), 0.3), h - 4, ev_color[e->kind]);
		}
	}
	double span = (t1 - t0) / 86400;
	for (int i = 0; i <= 10; i++)
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g</text>\n",
			10 + W * i / 10, h + 24, t0 / 86400 + span * i / 10);
	fputs("</svg>\n<p class=\"note\">days; green: training (with its checkpoints), red: a "
	      "failure, orange: a restart.</p>\n",
	      out);
}

static void where(FILE *out, const campaign_result *c)
{
	double work = c->work_s / 3600, ck = c->ckpt_h.mean, rs = c->restart_h.mean,
	       lost = c->lost_h.mean, all = work + ck + rs + lost;
	const struct {
		const char *name, *color;
		double h;
	} part[] = {{"useful work", "#4a8", work},
		    {"checkpoints", "#68c", ck},
		    {"restarts", "#e90", rs},
		    {"recomputed work", "#c22", lost}};
	fputs("<h2>Where the time goes (mean campaign)</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
	      "width=\"1020\" height=\"40\">\n",
	      out);
	double x = 10;
	for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
		double w = all > 0 ? W * part[i].h / all : 0;
		fprintf(out, "<rect x=\"%.2f\" y=\"4\" width=\"%.2f\" height=\"30\" fill=\"%s\"/>\n", x,
			w, part[i].color);
		x += w;
	}
	fputs("</svg>\n<table>\n<tr><th class=\"l\">part</th><th>hours</th><th>share</th></tr>\n", out);
	for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
		fprintf(out, "<tr><td class=\"l\" style=\"color:%s\">%s</td><td>%.1f</td><td>%.2f %%</td>"
			     "</tr>\n",
			part[i].color, part[i].name, part[i].h, all > 0 ? 100 * part[i].h / all : 0);
	fputs("</table>\n", out);
}

static void histogram(FILE *out, const campaign_result *c)
{
	int most = 1;
	for (int i = 0; i < CAMPAIGN_HIST_BINS; i++)
		most = c->hist[i] > most ? c->hist[i] : most;
	double bw = W / CAMPAIGN_HIST_BINS, h = 140;
	fprintf(out, "<h2>Goodput over %d campaigns</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		     "width=\"1020\" height=\"%.0f\">\n",
		c->in.draws, h + 30);
	for (int i = 0; i < CAMPAIGN_HIST_BINS; i++) {
		double y = h * c->hist[i] / most;
		fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#68c\">"
			     "<title>%d</title></rect>\n",
			10 + i * bw, 4 + h - y, bw - 1, y, c->hist[i]);
	}
	for (int i = 0; i <= 4; i++)
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.2f %%</text>\n",
			10 + W * i / 4, h + 22,
			100 * (c->hist_lo + (c->hist_hi - c->hist_lo) * i / 4));
	fputs("</svg>\n", out);
}

static void headline(FILE *out, const campaign_result *c)
{
	const campaign_input *in = &c->in;
	fputs("<table>\n<tr><th class=\"l\"></th><th>p10</th><th>p50</th><th>p90</th><th>mean</th>"
	      "</tr>\n",
	      out);
	const struct {
		const char *name;
		const campaign_stats *s;
		double k;
	} row[] = {{"days to train", &c->days, 1},
		   {"interruptions", &c->interruptions, 1},
		   {"goodput (%)", &c->goodput, 100},
		   {"energy (MWh)", &c->energy_mwh, 1}};
	for (size_t i = 0; i < sizeof row / sizeof row[0]; i++)
		fprintf(out, "<tr><td class=\"l\">%s</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
			     "<td>%.2f</td></tr>\n",
			row[i].name, row[i].k * row[i].s->p10, row[i].k * row[i].s->p50,
			row[i].k * row[i].s->p90, row[i].k * row[i].s->mean);
	fputs("</table>\n", out);
	fprintf(out, "<p class=\"note\">%.0f steps of %.3f s on %d GPUs; job MTBF %.2f h; a "
		     "checkpoint every %.0f steps (%s, training stops %.3g s); restart %.0f s; "
		     "without failures %.2f days.</p>\n",
		in->steps, in->step_s, in->gpus, in->rate_s > 0 ? 1 / (3600 * in->rate_s) : INFINITY,
		in->interval_steps, in->async ? "async" : "sync", in->block_s, in->restart_s,
		c->ideal_days);
}

void report_campaign_html(FILE *out, const exec_result *r, const campaign_result *c,
			  const campaign_event *ev, size_t n)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n<title>podsim train: ", out);
	report_esc(out, r->scenario);
	fputs("</title>\n<style>\nbody{font-family:system-ui,Helvetica,Arial,sans-serif;"
	      "margin:24px auto;max-width:1100px;color:#222;padding:0 12px}\n"
	      "h2{font-size:1.15em;border-bottom:1px solid #ddd}.note{color:#666;font-size:.9em}\n"
	      "table{border-collapse:collapse;font-size:.9em}td,th{padding:3px 8px;text-align:right}"
	      "th{border-bottom:1px solid #ccc}td.l,th.l{text-align:left}\n"
	      "svg text{font-size:11px;fill:#333}\n</style>\n</head>\n<body>\n<h1>podsim train: ",
	      out);
	report_esc(out, r->scenario);
	fputs("</h1>\n<p class=\"note\">", out);
	report_esc(out, r->plan);
	fputs("</p>\n", out);
	headline(out, c);
	double end = n > 0 ? ev[n - 1].start_s + ev[n - 1].dur_s : 0;
	if (end > 0) {
		timeline(out, ev, n, 0, end, "One campaign (the first draw)");
		timeline(out, ev, n, 0, fmin(end, 2 * 86400.0), "Its first two days");
	}
	where(out, c);
	histogram(out, c);
	fputs("<p class=\"note\">Generated by podsim " PODSIM_VERSION ".</p>\n</body>\n</html>\n", out);
}

typedef struct job {
	const exec_result *r;
	const campaign_result *c;
	const campaign_event *ev;
	size_t n;
} job;

static int fill(FILE *f, void *ctx)
{
	const job *j = ctx;
	report_campaign_html(f, j->r, j->c, j->ev, j->n);
	return SIM_OK;
}

int report_campaign_html_file(const char *path, const exec_result *r, const campaign_result *c,
			      const campaign_event *ev, size_t n)
{
	job j = {r, c, ev, n};
	return sim_write_atomic(path, fill, &j);
}
