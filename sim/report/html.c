/* html.c - the report of one simulated step as one self-contained HTML page.
 *
 * Inline CSS and SVG only: no script, no web font, no network request, so the
 * file opens the same anywhere and can be mailed or archived. Sections:
 * headline figures; a Gantt chart of each rank class's compute stream (from an
 * exec_timeline; idle time hatched: pipeline bubble or waiting on
 * communication); the step breakdown as one stacked bar per rank class; memory
 * per GPU by category against HBM capacity; the link classes as bars of mean
 * utilisation.
 *
 * Size is bounded for large cases: at most HTML_MAX_ROWS rank classes are
 * drawn (the first and last HTML_EDGE_ROWS otherwise), and in the Gantt chart
 * consecutive tasks less than HTML_MERGE_PX pixels apart become one box
 * when they have one kind and one micro-batch, or when the box so far is
 * narrower than two pixels (then drawn in its majority kind), so a row holds
 * at most about HTML_W / 2 boxes plus one per idle gap;
 * the page says when either happened. The output depends only on its
 * inputs (deterministic), and is well-formed XML (void elements self-closed),
 * so xmllint can check it.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HTML_MAX_ROWS  32  /* rank classes drawn in full up to this */
#define HTML_EDGE_ROWS 16  /* classes kept at each end beyond it */
#define HTML_W         960 /* plot width in pixels, excluding labels */
#define HTML_LABEL     80  /* left margin for row labels */
#define HTML_ROW       20  /* row height */
#define HTML_MERGE_PX  1.0 /* same-kind tasks closer than this merge */

static const char *const cat_color[EXEC_CAT_COUNT] = {"#4e79a7", "#59a14f", "#f28e2b", "#edc948",
                                                      "#b07aa1", "#e15759", "#76b7b2", "#d9d4cf",
                                                      "#9c755f", "#bbbbbb"};
static const char *const mem_color[PLAN_MEM_COUNT] = {"#4e79a7", "#f28e2b", "#59a14f",
                                                      "#e15759", "#76b7b2", "#bab0ac",
                                                      "#9c755f"};
/* Compute-stream task kinds, PLAN_TASK_FWD .. PLAN_TASK_OPTIM. */
enum { HTML_KINDS = PLAN_TASK_OPTIM + 1 };
static const char *const kind_name[HTML_KINDS] = {"forward", "backward", "recompute",
                                                  "weight gradients", "optimizer"};
static const char *const kind_color[HTML_KINDS] = {"#4e79a7", "#f28e2b", "#e15759", "#edc948",
                                                   "#59a14f"};

/* Also keeps the page well-formed XML whatever a database held: a control
 * character or a byte that is not UTF-8 text becomes U+FFFD. */
void report_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t len = c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f
				     ? sim_text_char(s)
				     : 1;
		if (!len) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			continue;
		}
		if (len > 1) {
			fwrite(s, 1, len, out);
			s += len - 1;
			continue;
		}
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/* Bytes in the largest binary unit not above them, one decimal ("17.8 GiB"). */
static void fmt_bytes(double v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	while (isfinite(v) && fabs(v) >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* A non-negative count with thousands separators: "242,667". */
static void fmt_count(double v, char *buf, size_t len)
{
	char d[32];
	snprintf(d, sizeof d, "%.0f", v >= 0 && v < 1e18 ? v : 0);
	size_t n = strlen(d), o = 0;
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

static void fmt_time(double s, char *buf, size_t len)
{
	sim_unit_format(s, SIM_UNIT_TIME, buf, len);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* Whether rank class i of n is drawn (see file comment). */
static bool row_shown(int n, int i)
{
	return n <= HTML_MAX_ROWS || i < HTML_EDGE_ROWS || i >= n - HTML_EDGE_ROWS;
}

static int rows_drawn(int n)
{
	return n <= HTML_MAX_ROWS ? n : 2 * HTML_EDGE_ROWS;
}

static void elided_note(FILE *out, int n)
{
	if (n > HTML_MAX_ROWS)
		fprintf(out,
		        "<p class=\"note\">%d rank classes: the first %d and the last %d are "
		        "drawn, "
		        "stages %d to %d are left out.</p>\n",
		        n, HTML_EDGE_ROWS, HTML_EDGE_ROWS, HTML_EDGE_ROWS, n - HTML_EDGE_ROWS - 1);
}

static const char style[] =
        "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
        "margin:24px auto;max-width:1100px;color:#222;padding:0 12px}\n"
        "h1{font-size:1.5em;margin-bottom:4px}h2{font-size:1.15em;margin-top:28px;"
        "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
        ".id{color:#555;margin:2px 0}.note{color:#666;font-size:.9em}\n"
        ".cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}\n"
        ".card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:120px}\n"
        ".card .v{font-size:1.35em;font-weight:600}.card .k{color:#666;font-size:.85em}\n"
        ".oom{color:#c00;font-weight:600}\n"
        "table{border-collapse:collapse;font-size:.9em}td,th{padding:3px 8px;text-align:right}"
        "th{border-bottom:1px solid #ccc}td.l,th.l{text-align:left}\n"
        ".bar{display:inline-block;vertical-align:middle;margin-right:6px;width:240px;"
        "height:12px;background:#eee;border-radius:2px}"
        ".bar div{height:12px;background:#e15759;border-radius:2px}\n"
        ".legend span{display:inline-block;margin-right:14px;font-size:.85em}"
        ".legend i{display:inline-block;width:11px;height:11px;margin-right:4px;"
        "vertical-align:-1px;border:1px solid #999}\n"
        "svg text{font-size:11px;fill:#333}svg .in{fill:#fff;font-size:10px}\n";

static void head(FILE *out, const exec_result *r)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n"
	      "<head>\n<meta charset=\"utf-8\"/>\n<title>podsim: ",
	      out);
	report_esc(out, r->scenario);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>podsim: ", style);
	report_esc(out, r->scenario);
	fputs("</h1>\n<p class=\"id\">", out);
	const char *keys[] = {"model", "gpu", "cluster", "plan"};
	const char *vals[] = {r->model, r->gpu, r->cluster, r->plan};
	for (int i = 0; i < 4; i++) {
		fprintf(out, "%s%s <b>", i ? " &#183; " : "", keys[i]);
		report_esc(out, vals[i]);
		fputs("</b>", out);
	}
	fprintf(out, " &#183; %d GPUs &#183; seed %llu</p>\n", r->gpus,
	        (unsigned long long)r->seed);
}

static void card(FILE *out, const char *value, const char *key)
{
	fprintf(out,
	        "<div class=\"card\"><div class=\"v\">%s</div><div class=\"k\">%s</div></div>\n",
	        value, key);
}

static void headline(FILE *out, const exec_result *r)
{
	char b[64], c[64];
	fputs("<div class=\"cards\">\n", out);
	fmt_time(r->step_s, b, sizeof b);
	card(out, b, "step time");
	if (report_has_band(r)) {
		char band[96], key[EXEC_NAME_MAX + 64];
		report_band_text(r, band, sizeof band);
		snprintf(key, sizeof key, "error band, from the validation cell %s", r->band_from);
		fputs("<div class=\"card\"><div class=\"v\">", out);
		report_esc(out, band);
		fputs("</div><div class=\"k\">", out);
		report_esc(out, key);
		fputs("</div></div>\n", out);
	}
	if (report_has_spread(r)) {
		char q[160], key[192];
		fmt_time(r->spread.p05_s, b, sizeof b);
		fmt_time(r->spread.p95_s, c, sizeof c);
		snprintf(q, sizeof q, "%s to %s", b, c);
		fmt_time(r->spread.p50_s, b, sizeof b);
		snprintf(key, sizeof key,
		         "step p5 to p95, median %s: %d replays with the collectives' measured spread, "
		         "seed %llu, correlation %.2g", b, r->spread.samples,
		         (unsigned long long)r->spread.seed, r->spread.corr);
		card(out, q, key);
	}
	if (r->mixed.nodes > 0) { /* nodes of another GPU type (exec_mixed) */
		const exec_mixed *x = &r->mixed;
		char q[96], key[4 * EXEC_NAME_MAX + 256];
		fmt_time(x->base_s, b, sizeof b);
		snprintf(q, sizeof q, "%+.1f%%", x->base_s > 0 ? 100 * (x->step_s / x->base_s - 1) : 0.0);
		fmt_bytes(x->mem_peak_bytes, c, sizeof c);
		snprintf(key, sizeof key,
		         "the step with %d of %d nodes %s, against %s with every node %s; slowest "
		         "replica %d, stage %d; memory on %s: %s, %s",
		         x->nodes, x->cluster_nodes, x->gpu, b, r->gpu, x->replica, x->stage, x->gpu,
		         c, plan_verdict_name(x->mem_verdict));
		fputs("<div class=\"card\"><div class=\"v\">", out);
		report_esc(out, q);
		fputs("</div><div class=\"k\">", out);
		report_esc(out, key);
		fputs("</div></div>\n", out);
	}
	fmt_count(r->tokens_per_s, b, sizeof b);
	card(out, b, "tokens/s");
	snprintf(b, sizeof b, "%s%.1f%%%s", r->implausible ? "<span class=\"oom\">" : "",
	         100.0 * r->mfu, r->implausible ? " !</span>" : "");
	card(out, b, "MFU");
	snprintf(b, sizeof b, "%.1f%%", 100.0 * r->hfu);
	card(out, b, "HFU");
	snprintf(b, sizeof b, "%.1f", r->tflops_per_gpu);
	card(out, b, "TFLOP/s per GPU");
	snprintf(b, sizeof b, "%.1f%%", 100.0 * r->bubble_fraction);
	card(out, b, "bubble fraction");
	fmt_bytes(r->mem_peak_bytes, b, sizeof b);
	fmt_bytes(r->mem_capacity_bytes, c, sizeof c);
	char m[200];
	plan_verdict mv = exec_mem_verdict(r); /* the plan's, as the memory section says */
	snprintf(m, sizeof m, "%s%s / %s%s", mv != PLAN_VERDICT_FITS ? "<span class=\"oom\">" : "",
	         b, c,
	         mv == PLAN_VERDICT_OOM     ? " OOM</span>"
	         : mv == PLAN_VERDICT_TIGHT ? " tight</span>"
	                                    : "");
	card(out, m, "peak memory per GPU / HBM");
	fmt_count((double)r->tasks, b, sizeof b);
	card(out, b, "tasks simulated");
	fputs("</div>\n", out);
	if (r->implausible) {
		fputs("<p class=\"note\"><b class=\"oom\">Implausible:</b> ", out);
		report_esc(out, r->implausible_why);
		fputs(" (topologies/mfu-best.csv).</p>\n", out);
	}
}

static void legend_item(FILE *out, const char *color, const char *name, bool hatched)
{
	fprintf(out, "<span><i style=\"background:%s\"></i>%s</span>",
	        hatched ? "repeating-linear-gradient(45deg,#d9d4cf 0 2px,#fff 2px 5px)" : color,
	        name);
}

/* ------------------------------------------------------------------ Gantt -- */

/* One box being grown from consecutive tasks on one row. A box narrower than
 * two pixels absorbs the next task whatever its kind; it is drawn in the kind
 * that covers most of its time. */
typedef struct box {
	double x0, x1; /* pixels */
	double t0, t1; /* seconds */
	double kind_s[HTML_KINDS];
	int mb, tasks;
} box;

static int box_kind(const box *b, bool *mixed)
{
	int k = 0, used = 0;
	for (int i = 0; i < HTML_KINDS; i++) {
		used += b->kind_s[i] > 0;
		if (b->kind_s[i] > b->kind_s[k])
			k = i;
	}
	*mixed = used > 1;
	return k;
}

static void box_emit(FILE *out, const box *b, double y)
{
	char t0[32], t1[32];
	bool mixed;
	int kind = box_kind(b, &mixed);
	fmt_time(b->t0, t0, sizeof t0);
	fmt_time(b->t1, t1, sizeof t1);
	double w = b->x1 - b->x0 > 0.5 ? b->x1 - b->x0 : 0.5;
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\">",
	        HTML_LABEL + b->x0, y, w, HTML_ROW - 4, kind_color[kind]);
	fprintf(out, "<title>%s%s", kind_name[kind], mixed ? " (mostly)" : "");
	if (b->mb >= 0)
		fprintf(out, " micro-batch %d", b->mb);
	else if (b->tasks > 1 && kind != PLAN_TASK_OPTIM)
		fputs(" (several micro-batches)", out);
	fprintf(out, ", %s to %s, %d task%s</title></rect>\n", t0, t1, b->tasks,
	        b->tasks == 1 ? "" : "s");
	if (b->mb >= 0 && w >= 14 && kind <= PLAN_TASK_BWD)
		fprintf(out,
		        "<text class=\"in\" x=\"%.1f\" y=\"%.1f\" "
		        "text-anchor=\"middle\">%d</text>\n",
		        HTML_LABEL + (b->x0 + b->x1) / 2, y + HTML_ROW - 8, b->mb);
}

/* Whether task s (at pixels x0..) joins box b (see file comment). */
static bool joins(const box *b, const exec_span *s, double x0)
{
	if (x0 - b->x1 >= HTML_MERGE_PX)
		return false;
	if (b->x1 - b->x0 < 2 * HTML_MERGE_PX)
		return true;
	bool mixed;
	return box_kind(b, &mixed) == s->kind && !mixed && b->mb == s->mb;
}

/* Draw the boxes of one row; returns the boxes drawn. */
static size_t gantt_row(FILE *out, const exec_timeline *tl, size_t from, size_t to, double step,
                        double y)
{
	double scale = HTML_W / step;
	box b = {0};
	bool open = false;
	size_t drawn = 0;
	for (size_t i = from; i < to; i++) {
		const exec_span *s = &tl->spans[i];
		if (s->kind >= HTML_KINDS)
			continue;
		double x0 = s->start_s * scale, x1 = (s->start_s + s->dur_s) * scale;
		if (open && joins(&b, s, x0)) {
			b.x1 = x1 > b.x1 ? x1 : b.x1;
			b.t1 = s->start_s + s->dur_s;
			b.kind_s[s->kind] += s->dur_s;
			b.mb = b.mb == s->mb ? b.mb : -1;
			b.tasks++;
			continue;
		}
		if (open)
			box_emit(out, &b, y), drawn++;
		b = (box){.x0 = x0,
		          .x1 = x1,
		          .t0 = s->start_s,
		          .t1 = s->start_s + s->dur_s,
		          .mb = s->mb,
		          .tasks = 1};
		b.kind_s[s->kind] = s->dur_s;
		open = true;
	}
	if (open)
		box_emit(out, &b, y), drawn++;
	return drawn;
}

/* Tick spacing: 1, 2 or 5 x 10^k giving at most 10 ticks over `span`. */
static double tick_step(double span)
{
	double raw = span / 10, p = pow(10, floor(log10(raw)));
	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void axis(FILE *out, double step, double y)
{
	double dt = tick_step(step);
	for (int i = 0; i * dt <= step * (1 + 1e-9); i++) {
		double x = HTML_LABEL + i * dt / step * HTML_W;
		char t[32];
		fmt_time(i * dt, t, sizeof t);
		fprintf(out,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		        x, y, x, y + 4, x, y + 15, t);
	}
}

static void gantt(FILE *out, const exec_result *r, const exec_timeline *tl, const char *note)
{
	fputs("<h2>Pipeline schedule</h2>\n", out);
	if (!tl || r->step_s <= 0) {
		fprintf(out, "<p class=\"note\">No Gantt chart: %s</p>\n",
		        note ? note : "the timeline is not available.");
		return;
	}
	int n = r->nclasses, rows = rows_drawn(n);
	int h = rows * HTML_ROW + 30;
	fputs("<p class=\"note\">Compute stream of one GPU per rank class over the step; "
	      "hatched: the stream is idle (pipeline bubble, or waiting on communication). "
	      "Hover a box for its times.</p>\n<p class=\"legend\">",
	      out);
	for (int k = 0; k < HTML_KINDS; k++)
		legend_item(out, kind_color[k], kind_name[k], false);
	legend_item(out, NULL, "idle", true);
	fprintf(out,
	        "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "role=\"img\" aria-label=\"pipeline schedule\">\n"
	        "<defs><pattern id=\"idle\" width=\"6\" height=\"6\" "
	        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	        "<rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
	        "<rect width=\"2.5\" height=\"6\" fill=\"#d9d4cf\"/></pattern></defs>\n",
	        HTML_LABEL + HTML_W + 20, h);
	size_t i = 0, drawn = 0, tasks = 0;
	int row = 0;
	for (int k = 0; k < n; k++) {
		size_t from = i;
		while (i < tl->n && tl->spans[i].rank == k)
			i++;
		if (!row_shown(n, k))
			continue;
		double y = row * HTML_ROW + 2;
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", HTML_LABEL - 6,
		        y + HTML_ROW - 8);
		report_esc(out, r->classes[k].name);
		fprintf(out,
		        "</text>\n<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
		        "fill=\"url(#idle)\"/>\n",
		        HTML_LABEL, y, HTML_W, HTML_ROW - 4);
		drawn += gantt_row(out, tl, from, i, r->step_s, y);
		tasks += i - from;
		row++;
	}
	axis(out, r->step_s, rows * HTML_ROW + 2);
	fputs("</svg>\n", out);
	elided_note(out, n);
	if (drawn < tasks)
		fprintf(out,
		        "<p class=\"note\">%zu compute tasks drawn as %zu boxes: consecutive tasks "
		        "of one micro-batch and kind less than %.0f pixel apart are merged, and "
		        "boxes narrower than two pixels absorb their neighbours (drawn in the "
		        "majority kind).</p>\n",
		        tasks, drawn, HTML_MERGE_PX);
}

/* -------------------------------------------------------------- breakdown -- */

/* One horizontal stacked bar: values scaled by px_per_unit; colors/names per
 * part; a <title> per segment. */
static void stacked(FILE *out, double y, const double *v, int nv, const char *const *color,
                    const char *const *name, double px_per_unit, double total, bool bytes)
{
	double x = HTML_LABEL;
	for (int c = 0; c < nv; c++) {
		if (v[c] <= 0)
			continue;
		double w = v[c] * px_per_unit;
		char a[32];
		if (bytes)
			fmt_bytes(v[c], a, sizeof a);
		else
			fmt_time(v[c], a, sizeof a);
		fprintf(out,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
		        "<title>%s: %s (%.1f%%)</title></rect>\n",
		        x, y, w, HTML_ROW - 4, color[c], name[c], a, pct(v[c], total));
		x += w;
	}
}

static void row_label(FILE *out, const exec_class *c, double y)
{
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", HTML_LABEL - 6,
	        y + HTML_ROW - 8);
	report_esc(out, c->name);
	fputs("</text>\n", out);
}

static void breakdown(FILE *out, const exec_result *r)
{
	const char *names[EXEC_CAT_COUNT];
	bool used[EXEC_CAT_COUNT] = {false};
	for (int c = 0; c < EXEC_CAT_COUNT; c++) {
		names[c] = exec_cat_name((exec_cat)c);
		for (int k = 0; k < r->nclasses; k++)
			used[c] = used[c] || r->classes[k].time_s[c] > 0;
	}
	fputs("<h2>Step breakdown per rank class</h2>\n<p class=\"legend\">", out);
	for (int c = 0; c < EXEC_CAT_COUNT; c++)
		if (used[c])
			legend_item(out, cat_color[c], names[c], false);
	int n = r->nclasses, rows = rows_drawn(n);
	fprintf(out,
	        "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "role=\"img\" aria-label=\"step breakdown\">\n",
	        HTML_LABEL + HTML_W + 20, rows * HTML_ROW + 30);
	double scale = r->step_s > 0 ? HTML_W / r->step_s : 0;
	int row = 0;
	for (int k = 0; k < n; k++) {
		if (!row_shown(n, k))
			continue;
		double y = row++ * HTML_ROW + 2;
		row_label(out, &r->classes[k], y);
		stacked(out, y, r->classes[k].time_s, EXEC_CAT_COUNT, cat_color, names, scale,
		        r->step_s, false);
	}
	if (r->step_s > 0)
		axis(out, r->step_s, rows * HTML_ROW + 2);
	fputs("</svg>\n", out);
	elided_note(out, n);
}

/* ----------------------------------------------------------------- memory -- */

/* The verdict in the text report's words (verdict.c): the GPU's line, on a
 * mixed cluster each GPU type's and the plan's, marked when not "fits";
 * then with more than one class each class's verdict. */
static void verdict(FILE *out, const exec_result *r)
{
	report_mem_lines l;
	report_mem_verdict(r, &l);
	for (int i = 0; i < l.n; i++) {
		bool plan = !strcmp(l.label[i], "verdict"), bad = strstr(l.text[i], "OOM") ||
		                                                   strstr(l.text[i], "tight");
		fputs("<p>", out);
		if (plan) {
			fprintf(out, "Verdict: <b%s>", l.verdict != PLAN_VERDICT_FITS ? " class=\"oom\"" : "");
			report_esc(out, plan_verdict_name(l.verdict));
			fputs("</b>", out);
			/* the sentence after the verdict's name: its basis */
			size_t n = strlen(plan_verdict_name(l.verdict));
			report_esc(out, strlen(l.text[i]) > n ? l.text[i] + n : "");
		} else {
			if (l.label[i][0]) {
				report_esc(out, l.label[i]);
				fputs(": ", out);
			}
			fprintf(out, "%s", bad ? "<span class=\"oom\">" : "");
			report_esc(out, l.text[i]);
			fprintf(out, "%s", bad ? "</span>" : "");
		}
		fputs("</p>\n", out);
	}
	if (r->nclasses <= 1)
		return;
	fputs("<table><tr><th class=\"l\">class</th><th>device</th><th class=\"l\">verdict</th>"
	      "</tr>\n",
	      out);
	for (int k = 0; k < r->nclasses; k++) {
		if (!row_shown(r->nclasses, k))
			continue;
		const exec_class *c = &r->classes[k];
		char b[32], v[REPORT_MEM_TEXT];
		fmt_bytes(c->mem_total_bytes, b, sizeof b);
		report_class_verdict(r, c, v, sizeof v);
		bool bad = exec_class_verdict(c, r->mem_capacity_bytes) != PLAN_VERDICT_FITS;
		fputs("<tr><td class=\"l\">", out);
		report_esc(out, c->name);
		fprintf(out, "</td><td>%s</td><td class=\"l\">%s", b, bad ? "<span class=\"oom\">" : "");
		report_esc(out, v);
		fprintf(out, "%s</td></tr>\n", bad ? "</span>" : "");
	}
	fputs("</table>\n", out);
}

static void memory(FILE *out, const exec_result *r)
{
	const char *names[PLAN_MEM_COUNT];
	for (int m = 0; m < PLAN_MEM_COUNT; m++)
		names[m] = plan_mem_name((plan_mem)m);
	char cap[32];
	fmt_bytes(r->mem_capacity_bytes, cap, sizeof cap);
	fputs("<h2>Memory per GPU</h2>\n", out);
	verdict(out, r);
	fputs("<p class=\"legend\">", out);
	for (int m = 0; m < PLAN_MEM_COUNT; m++)
		legend_item(out, mem_color[m], names[m], false);
	int n = r->nclasses, rows = rows_drawn(n);
	double top = r->mem_capacity_bytes > r->mem_peak_bytes ? r->mem_capacity_bytes
	                                                       : r->mem_peak_bytes;
	double scale = top > 0 ? HTML_W / (1.05 * top) : 0;
	double xc = HTML_LABEL + r->mem_capacity_bytes * scale;
	fprintf(out,
	        "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "role=\"img\" aria-label=\"memory per GPU\">\n",
	        HTML_LABEL + HTML_W + 20, rows * HTML_ROW + 30);
	int row = 0;
	for (int k = 0; k < n; k++) {
		if (!row_shown(n, k))
			continue;
		double y = row++ * HTML_ROW + 2;
		row_label(out, &r->classes[k], y);
		stacked(out, y, r->classes[k].mem_bytes, PLAN_MEM_COUNT, mem_color, names, scale,
		        r->classes[k].mem_total_bytes, true);
	}
	fprintf(out,
	        "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" "
	        "stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
	        "HBM %s</text>\n</svg>\n",
	        xc, xc, rows * HTML_ROW + 4, xc, rows * HTML_ROW + 18, cap);
	elided_note(out, n);
}

/* Allocated memory over the step on the most loaded class (tl->mem_*), on
 * the Gantt chart's time scale, against the capacity and the class's device
 * total. */
static void memory_curve(FILE *out, const exec_result *r, const exec_timeline *tl)
{
	if (!tl || tl->mem_n < 2 || r->step_s <= 0 || tl->mem_rank >= r->nclasses)
		return;
	const exec_class *c = &r->classes[tl->mem_rank];
	const int H = 160;
	double top = r->mem_capacity_bytes > c->mem_total_bytes ? r->mem_capacity_bytes
	                                                        : c->mem_total_bytes;
	double xs = HTML_W / r->step_s, ys = top > 0 ? H / (1.05 * top) : 0;
	char cap[32], dev[32];
	fmt_bytes(r->mem_capacity_bytes, cap, sizeof cap);
	fmt_bytes(c->mem_total_bytes, dev, sizeof dev);
	fputs("<h3>Memory over the step, ", out);
	report_esc(out, c->name);
	fprintf(out,
	        "</h3>\n<p class=\"note\">Allocated bytes as the schedule runs (each forward and "
	        "backward rising to its peak and back); the dashed lines are the capacity and the "
	        "device total at the peak (allocated + the allocator's cache + runtime)%s</p>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "role=\"img\" aria-label=\"memory over the step\">\n<polyline fill=\"none\" "
	        "stroke=\"#e15759\" stroke-width=\"1.5\" points=\"",
	        c->mem_logged_bytes > 0
	                ? "; the dotted one is what the framework's own log reads as its max "
	                  "allocated, which it resets after the forward and backward: the "
	                  "optimizer phase's peak"
	                : "",
	        HTML_LABEL + HTML_W + 20, H + 30);
	for (size_t i = 0; i < tl->mem_n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", HTML_LABEL + tl->mem_t[i] * xs,
		        H + 2 - tl->mem_b[i] * ys);
	double yc = H + 2 - r->mem_capacity_bytes * ys, yd = H + 2 - c->mem_total_bytes * ys;
	fprintf(out,
	        "\"/>\n<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" "
	        "stroke-dasharray=\"4 3\"/>\n<text x=\"%d\" y=\"%.1f\">HBM %s</text>\n"
	        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
	        "stroke-dasharray=\"2 3\"/>\n<text x=\"%d\" y=\"%.1f\">device %s</text>\n",
	        HTML_LABEL, yc, HTML_LABEL + HTML_W, yc, 2, yc + 4, cap, HTML_LABEL, yd,
	        HTML_LABEL + HTML_W, yd, 2, yd + 4, dev);
	if (c->mem_logged_bytes > 0) {
		/* what the framework's own log reads ([framework] logged_peak:
		 * max allocated after its counters' reset past the backward, the
		 * optimizer phase's peak), as the text report's `logged` line */
		char lg[32];
		double yl = H + 2 - c->mem_logged_bytes * ys;
		fmt_bytes(c->mem_logged_bytes, lg, sizeof lg);
		fprintf(out,
		        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#4e79a7\" "
		        "stroke-dasharray=\"1 3\"/>\n<text x=\"%d\" y=\"%.1f\">logged %s</text>\n",
		        HTML_LABEL, yl, HTML_LABEL + HTML_W, yl, 2, yl + 4, lg);
	}
	if (c->mem_other && r->mixed.nodes > 0) {
		/* the class also runs on other_gpu's nodes: the same allocated
		 * bytes against that GPU's capacity (the verdict's, when lower) */
		double yo = H + 2 - r->mixed.mem_capacity_bytes * ys;
		fmt_bytes(r->mixed.mem_capacity_bytes, cap, sizeof cap);
		fprintf(out,
		        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" "
		        "stroke-dasharray=\"8 3\"/>\n<text x=\"%d\" y=\"%.1f\">HBM ",
		        HTML_LABEL, yo, HTML_LABEL + HTML_W, yo, 2, yo + 4);
		report_esc(out, r->mixed.gpu);
		fprintf(out, " %s</text>\n", cap);
	}
	axis(out, r->step_s, H + 2);
	fputs("</svg>\n", out);
}

/* ------------------------------------------------------------------ links -- */

static void links(FILE *out, const exec_result *r)
{
	int n = r->nlinks < EXEC_MAX_LINKS ? r->nlinks : EXEC_MAX_LINKS;
	fputs("<h2>Links</h2>\n", out);
	if (n == 0) {
		fputs("<p>No inter-GPU traffic.</p>\n", out);
		return;
	}
	fputs("<p class=\"note\">Per link class, the most loaded rank class's traffic per link; "
	      "the bar is the mean utilisation over the step.</p>\n<table>\n"
	      "<tr><th class=\"l\">link</th><th class=\"l\">kind</th><th>count</th>"
	      "<th>capacity</th><th>carried</th><th>busy</th><th>saturated</th>"
	      "<th class=\"l\">by</th><th class=\"l\">utilisation</th></tr>\n",
	      out);
	for (int i = 0; i < n; i++) {
		const exec_link *l = &r->links[i];
		char bw[32], by[32], busy[32], sat[32];
		sim_unit_format(l->Bps, SIM_UNIT_BANDWIDTH, bw, sizeof bw);
		fmt_bytes(l->bytes, by, sizeof by);
		fmt_time(l->busy_s, busy, sizeof busy);
		fmt_time(l->saturated_s, sat, sizeof sat);
		double u = 100.0 * (l->util < 1 ? l->util : 1);
		fputs("<tr><td class=\"l\">", out);
		report_esc(out, l->name);
		fputs("</td><td class=\"l\">", out);
		report_esc(out, l->kind);
		fprintf(out,
		        "</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		        "<td class=\"l\">%s</td><td class=\"l\"><div class=\"bar\"><div "
		        "style=\"width:%.1f%%\"></div></div>"
		        "%.1f%%</td></tr>\n",
		        l->count, bw, by, busy, sat, l->bytes > 0 && l->traffic[0] ? l->traffic : "-",
		        u, 100.0 * l->util);
	}
	fputs("</table>\n", out);
}

void report_html(FILE *out, const exec_result *r, int64_t run_id, const exec_timeline *tl,
                 const char *note)
{
	head(out, r);
	headline(out, r);
	gantt(out, r, tl, note);
	breakdown(out, r);
	memory(out, r);
	memory_curve(out, r, tl);
	links(out, r);
	fputs("<p class=\"note\">Generated by podsim " PODSIM_VERSION, out);
	if (run_id > 0)
		fprintf(out, ", run %lld", (long long)run_id);
	fputs(".</p>\n</body>\n</html>\n", out);
}

typedef struct html_job {
	const exec_result *r;
	int64_t run_id;
	const exec_timeline *tl;
	const char *note;
} html_job;

static int html_fill(FILE *f, void *ctx)
{
	const html_job *j = ctx;
	report_html(f, j->r, j->run_id, j->tl, j->note);
	return SIM_OK;
}

int report_html_file(const char *path, const exec_result *r, int64_t run_id,
                     const exec_timeline *tl, const char *note)
{
	html_job j = {r, run_id, tl, note};
	return sim_write_atomic(path, html_fill, &j);
}

/* Replays the stored resolved scenario text. The stored figures stay what the
 * page shows; the regenerated timeline is used only when its step time equals
 * the stored one to 1e-9 relative, i.e. when this podsim reproduces the run. */
int report_html_timeline(const char *scenario_text, const exec_result *stored, exec_timeline *tl,
                         const char **why)
{
	*why = NULL;
	memset(tl, 0, sizeof *tl);
	if (!scenario_text || !*scenario_text) {
		*why = "the run was stored without its scenario text.";
		return SIM_ENOTFOUND;
	}
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	exec_result *r = malloc(sizeof *r);
	bool alike = false;
	int rc = d && r ? plan_scenario_load_stored(scenario_text, d, &s, &alike) : SIM_ENOMEM;
	if (rc == SIM_OK && alike) {
		*why = "the run was stored before podsim kept [cluster] other_gpu's keys with "
		       "it, so that GPU type's figures are not known here.";
		rc = SIM_ENOTFOUND;
	} else if (rc == SIM_OK) {
		exec_views v = {NULL, NULL, 0, tl, NULL, true}; /* the timeline only */
		rc = exec_run_views(s, r, &v);
	}
	if (rc == SIM_OK && fabs(r->step_s - stored->step_s) > 1e-9 * stored->step_s) {
		*why = "this podsim no longer reproduces the stored step time, so the stored "
		       "run's timeline cannot be redrawn.";
		exec_timeline_free(tl);
		rc = SIM_ERANGE;
	} else if (rc != SIM_OK && !*why) {
		*why = "the stored scenario no longer loads or runs in this podsim.";
		exec_timeline_free(tl);
	}
	plan_scenario_free(s);
	sim_diag_free(d);
	free(r);
	return rc;
}
