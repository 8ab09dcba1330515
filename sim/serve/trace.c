/* trace.c - a request trace for `arrivals = trace`: a CSV file (cases'
 * RFC 4180 reader) with the columns arrival_s, prompt_tokens and
 * output_tokens, one request per row, in time order. Every bad row is an
 * error at its line: a time that is negative or earlier than the row
 * before, lengths below 1 or past the model's context. */
#include "serve_int.h"
#include "cases/cases.h"

#include <stdlib.h>
#include <string.h>

/* The trace's path: as written when absolute, else from the folder of the
 * scenario file that set the key. */
static void trace_path(const serve_scenario *s, char *buf, size_t len)
{
	conf_loc loc = conf_key_loc(s->doc, "serve", "trace");
	const char *slash = loc.path ? strrchr(loc.path, '/') : NULL;
	if (s->trace_path[0] == '/' || !slash || loc.line == 0)
		snprintf(buf, len, "%s", s->trace_path);
	else
		snprintf(buf, len, "%.*s/%s", (int)(slash - loc.path), loc.path, s->trace_path);
}

int serve_trace_load(serve_scenario *s, sim_diag *d)
{
	static const char *const cols[] = {"arrival_s", "prompt_tokens", "output_tokens", NULL};
	char path[4096];
	trace_path(s, path, sizeof path);
	cases_csv *c = NULL;
	int rc = cases_csv_read(path, &c, d);
	if (rc == SIM_EIO) {
		conf_loc loc = conf_key_loc(s->doc, "serve", "trace");
		sim_diag_error(d, loc.path, loc.line, "cannot read the trace file '%s'", path);
	}
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? rc : SIM_ECONF;
	size_t n = cases_csv_rows(c);
	if (cases_csv_require(c, cols, d) > 0 || n == 0) {
		if (n == 0)
			sim_diag_error(d, path, 1, "the trace has no requests");
		cases_csv_free(c);
		return SIM_ECONF;
	}
	s->trace_t = calloc(n, sizeof *s->trace_t);
	s->trace_in = calloc(n, sizeof *s->trace_in);
	s->trace_out = calloc(n, sizeof *s->trace_out);
	if (!s->trace_t || !s->trace_in || !s->trace_out) {
		cases_csv_free(c);
		return SIM_ENOMEM;
	}
	int bad = sim_diag_error_count(d);
	for (size_t i = 0; i < n; i++) {
		double t;
		long in, out;
		int line = cases_csv_line(c, i);
		if (cases_get_real(c, i, "arrival_s", -1, &t, d) != SIM_OK ||
		    cases_get_int(c, i, "prompt_tokens", 0, &in, d) != SIM_OK ||
		    cases_get_int(c, i, "output_tokens", 0, &out, d) != SIM_OK)
			continue;
		if (t < 0)
			sim_diag_error(d, path, line, "arrival_s = %g: expected a time >= 0", t);
		else if (i > 0 && t < s->trace_t[i - 1])
			sim_diag_error(d, path, line,
				       "arrival_s = %g is earlier than the row before (%g): the trace "
				       "must be in time order",
				       t, s->trace_t[i - 1]);
		if (in < 1 || out < 1)
			sim_diag_error(d, path, line, "prompt and output need at least 1 token");
		else if (in + out > s->model.seq_len)
			sim_diag_error(d, path, line,
				       "%ld prompt + %ld output tokens are past the model's context of %d",
				       in, out, s->model.seq_len);
		s->trace_t[i] = t;
		s->trace_in[i] = (int)(in > 0 && in < 1 << 30 ? in : 1);
		s->trace_out[i] = (int)(out > 0 && out < 1 << 30 ? out : 1);
	}
	cases_csv_free(c);
	s->requests = (int)n;
	return sim_diag_error_count(d) > bad ? SIM_ECONF : SIM_OK;
}
