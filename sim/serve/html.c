/* html.c - a serving run as one self-contained HTML page (inline SVG and
 * CSS, no scripts): the headline numbers, the CDFs of TTFT, TPOT and
 * end-to-end latency, and the throughput-latency curve (serve_html).
 *
 * The curve reruns the scenario as a Poisson stream at f x its rate, f =
 * 0.25 x sqrt(2)^i (a stream that is not Poisson uses the run's achieved
 * requests/s as its rate), until the throughput grows by less than 3 % from
 * one point to the next (the replicas are saturated) or 16 points: each
 * point is a whole simulation of the scenario's requests, plotted as output
 * tokens/s against mean TPOT and p90 TTFT. Past the capacity throughput
 * stops growing while the queue, and TTFT, climb: the knee of the curve.
 */
#include "serve_int.h"
#include "../report/report.h"

#include <math.h>

#define W 560.0
#define H 300.0
#define PAD 50.0

/* An SVG plot frame with axis labels and the x and y maxima written at the ends. */
static void frame(FILE *f, const char *title, const char *xl, const char *yl, double xmax,
		  double ymax)
{
	fprintf(f, "<figure><figcaption>%s</figcaption><svg width='%.0f' height='%.0f'>", title,
		W + PAD, H + PAD);
	fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' class='ax'/>", PAD, H, W + PAD, H);
	fprintf(f, "<line x1='%.0f' y1='0' x2='%.0f' y2='%.0f' class='ax'/>", PAD, PAD, H);
	fprintf(f, "<text x='%.0f' y='%.0f'>0</text><text x='%.0f' y='%.0f' text-anchor='end'>%.4g</text>",
		PAD, H + 15, W + PAD, H + 15, xmax);
	fprintf(f, "<text x='%.0f' y='12' text-anchor='end'>%.4g</text>", PAD - 4, ymax);
	fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>%s</text>", PAD + W / 2, H + 35, xl);
	fprintf(f, "<text x='12' y='%.0f' transform='rotate(-90 12 %.0f)' text-anchor='middle'>%s</text>",
		H / 2, H / 2, yl);
}

static void polyline(FILE *f, const double *x, const double *y, int n, double xmax, double ymax,
		     const char *cls)
{
	fprintf(f, "<polyline class='%s' points='", cls);
	for (int i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", PAD + W * (xmax > 0 ? x[i] / xmax : 0),
			H - H * (ymax > 0 ? y[i] / ymax : 0));
	fputs("'/>", f);
}

static void cdfs(FILE *f, const serve_result *r)
{
	static const char *const names[3] = {"time to first token", "time per output token",
					     "end-to-end latency"};
	static const char *const cls[3] = {"a", "b", "c"};
	double q[101];
	for (int i = 0; i <= 100; i++)
		q[i] = i / 100.0;
	for (int k = 0; k < 3; k++) {
		double xmax = 1e3 * r->cdf[k][100], x[101];
		for (int i = 0; i <= 100; i++)
			x[i] = 1e3 * r->cdf[k][i];
		char title[96];
		snprintf(title, sizeof title, "CDF of the %s", names[k]);
		frame(f, title, "ms", "share of requests", xmax, 1);
		polyline(f, x, q, 101, xmax, 1, cls[k]);
		fputs("</svg></figure>\n", f);
	}
}

#define NPOINTS 16

static int curve(FILE *f, const serve_scenario *s0, const serve_result *r0)
{
	double fac[NPOINTS];
	double base = s0->arrivals == SERVE_POISSON || s0->arrivals == SERVE_GAMMA ? s0->rate
										   : r0->req_per_s;
	double tps[NPOINTS], tpot[NPOINTS], ttft[NPOINTS];
	serve_scenario s = *s0; /* a copy that only changes the stream */
	s.arrivals = s0->arrivals == SERVE_GAMMA ? SERVE_GAMMA : SERVE_POISSON;
	s.trace_t = NULL;
	if (s0->arrivals == SERVE_TRACE) /* the trace's lengths, drawn as fixed means */
		s.prompt_tokens = (int)(r0->prompt_tokens / (r0->requests > 0 ? r0->requests : 1)),
		s.output_tokens = (int)(r0->output_tokens / (r0->requests > 0 ? r0->requests : 1));
	double xmax = 0, ymax = 0, zmax = 0;
	int n = 0;
	for (int i = 0; i < NPOINTS; i++, n++) {
		serve_result r;
		fac[i] = 0.25 * pow(sqrt(2.0), i);
		if (i >= 4 && tps[i - 1] < 1.03 * tps[i - 2])
			break;
		s.rate = fac[i] * (base > 0 ? base : 1);
		if (serve_run(&s, &r, NULL) != SIM_OK)
			return SIM_ENOMEM;
		tps[i] = r.out_tok_per_s;
		tpot[i] = 1e3 * r.tpot.mean;
		ttft[i] = 1e3 * r.ttft.p90;
		xmax = fmax(xmax, tps[i]);
		ymax = fmax(ymax, tpot[i]);
		zmax = fmax(zmax, ttft[i]);
	}
	frame(f, "throughput against latency: the stream at rising rates",
	      "output tokens/s", "mean TPOT, ms", xmax, ymax);
	polyline(f, tps, tpot, n, xmax, ymax, "b");
	fputs("</svg></figure>\n", f);
	frame(f, "throughput against p90 time to first token", "output tokens/s", "p90 TTFT, ms",
	      xmax, zmax);
	polyline(f, tps, ttft, n, xmax, zmax, "a");
	fputs("</svg></figure>\n<table><tr><th>rate (req/s)</th><th>output tokens/s</th>"
	      "<th>mean TPOT (ms)</th><th>p90 TTFT (ms)</th></tr>\n",
	      f);
	for (int i = 0; i < n; i++)
		fprintf(f, "<tr><td>%.3g</td><td>%.1f</td><td>%.2f</td><td>%.1f</td></tr>\n",
			fac[i] * base, tps[i], tpot[i], ttft[i]);
	fputs("</table>\n", f);
	return SIM_OK;
}

int serve_html(FILE *f, const serve_scenario *s, const serve_result *r)
{
	fputs("<!DOCTYPE html><html><head><meta charset='utf-8'><title>podsim serve ", f);
	report_esc(f, r->name);
	fputs("</title><style>body{font:14px sans-serif;margin:2em;max-width:1200px}"
	      "figure{display:inline-block;margin:1em}text{font-size:11px}.ax{stroke:#444}"
	      "polyline{fill:none;stroke-width:2}.a{stroke:#c0392b}.b{stroke:#2471a3}"
	      ".c{stroke:#1e8449}td,th{padding:2px 10px;text-align:right}</style></head><body>\n<h1>",
	      f);
	report_esc(f, r->name);
	fputs("</h1>\n<p>", f);
	report_esc(f, r->label);
	fputs("; ", f);
	report_esc(f, r->model);
	fprintf(f, " on %d x ", r->gpus);
	report_esc(f, r->gpu);
	fputs("</p>\n<table>", f);
	const serve_stat *st[3] = {&r->ttft, &r->tpot, &r->e2e};
	static const char *const nm[3] = {"TTFT", "TPOT", "E2E"};
	fputs("<tr><th></th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n", f);
	for (int k = 0; k < 3; k++)
		fprintf(f, "<tr><th>%s (ms)</th><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
			   "<td>%.2f</td></tr>\n",
			nm[k], 1e3 * st[k]->mean, 1e3 * st[k]->p50, 1e3 * st[k]->p90, 1e3 * st[k]->p99,
			1e3 * st[k]->max);
	fprintf(f, "</table>\n<p>%lld requests in %.2f s: %.3f requests/s, %.1f output tokens/s "
		   "(%.1f per GPU); goodput %.3f requests/s (%.1f %% within TTFT %.0f ms and TPOT "
		   "%.0f ms); mean batch %.1f, KV cache %.1f %% in use on average (peak %.1f %%), "
		   "%lld preemptions.</p>\n",
		(long long)r->requests, r->makespan_s, r->req_per_s, r->out_tok_per_s,
		r->out_tok_per_s_gpu, r->goodput_req_per_s, 100 * r->slo_met, 1e3 * r->slo_ttft_s,
		1e3 * r->slo_tpot_s, r->batch_mean, 100 * r->kv_mean, 100 * r->kv_peak,
		(long long)r->preemptions);
	cdfs(f, r);
	int rc = curve(f, s, r);
	fputs("</body></html>\n", f);
	return rc;
}
