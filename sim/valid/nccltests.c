/* nccltests.c - podsim calibrate --fabric rows from nccl-tests output (valid.h).
 *
 * nccl-tests (NVIDIA/nccl-tests, version 2.19.6 at a0b82b2) prints, per run:
 *   "# Collective test starting: all_reduce_perf"              (src/util.cu:624;
 *       older versions lack it: then the file's name tells the collective)
 *   "#  Rank  3 Group  0 Pid  12 on  host-a device  3 [...] NVIDIA H100 ..."
 *       one line per rank (src/util.cu:687): ranks = these lines, nodes = the
 *       distinct host names after "on"
 *   data lines: size count type redop root, then time (us) algbw busbw
 *       #wrong out of place and the same in place (src/util.cu:457 and the
 *       header at :756-760). Releases before the root column (2.10 and
 *       older: "size count type redop time algbw busbw error ...") put the
 *       time one word earlier: the header line "# size count ... time ..."
 *       gives the out-of-place time's column where the file has one; the
 *       current layout otherwise.
 *   NCCL's own log lines, where the run set NCCL_DEBUG and the file holds
 *   its stderr ("host:pid:tid [dev] NCCL INFO ...", "... NCCL WARN ...").
 * A data line gives one row: bytes = size (the full buffer, as podsim counts
 * it), the out-of-place time as the measured median (nccl-tests averages
 * its iterations; no percentiles). Lines starting with '#' and blank lines
 * are skipped, as are NCCL's log lines; any other line that is not a data
 * line is an error.
 */
#include "valid_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE  4096
#define MAX_HOSTS 4096
#define MAX_WORDS 32
/* The out-of-place time's word in a data line of the current layout. */
#define TIME_COL 5

typedef struct hosts {
	char (*name)[64];
	int n;
} hosts;

static int host_seen(hosts *h, const char *name)
{
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return SIM_OK;
	if (h->n == MAX_HOSTS)
		return SIM_ERANGE;
	snprintf(h->name[h->n++], sizeof h->name[0], "%s", name);
	return SIM_OK;
}

/* The collective named in text (program name or file name). */
static net_coll coll_of(const char *text)
{
	return strstr(text, "all_reduce")       ? NET_ALLREDUCE
	       : strstr(text, "all_gather")     ? NET_ALLGATHER
	       : strstr(text, "reduce_scatter") ? NET_REDUCESCATTER
	                                        : NET_COLL_COUNT;
}

/* The whitespace-separated words of line into w (at most MAX_WORDS, each
 * cut at 63 bytes); how many. */
static int words(const char *line, char (*w)[64])
{
	int n = 0;
	for (const char *p = line; n < MAX_WORDS;) {
		p += strspn(p, " \t\r\n");
		size_t len = strcspn(p, " \t\r\n");
		if (!len)
			break;
		snprintf(w[n++], sizeof w[0], "%.*s", (int)(len < 63 ? len : 63), p);
		p += len;
	}
	return n;
}

/* A whole word that is a number (strtod's), into *x. */
static bool number(const char *w, double *x)
{
	char *end;
	errno = 0;
	*x = strtod(w, &end);
	return end != w && !*end && errno == 0 && isfinite(*x);
}

/* A data line: size, count, then the out-of-place time in us at word col. */
static bool data_line(const char *line, int col, double *bytes, double *time_us)
{
	char w[MAX_WORDS][64];
	int n = words(line, w);
	double size, count;
	if (n <= col || !number(w[0], &size) || !number(w[1], &count) || size < 0 || count < 0 ||
	    size != floor(size) || !number(w[col], time_us))
		return false;
	*bytes = size;
	return true;
}

/* The column header, "# size count type redop [root] time algbw busbw ...":
 * the out-of-place time's word in the data lines, or -1 for another line. */
static int time_column(const char *line)
{
	char w[MAX_WORDS][64];
	int n = words(line + 1, w);
	if (n < 3 || strcmp(w[0], "size") || strcmp(w[1], "count"))
		return -1;
	for (int i = 2; i < n; i++)
		if (!strcmp(w[i], "time"))
			return i;
	return -1;
}

/* NCCL's own log line (NCCL_DEBUG=INFO or WARN in the run's stderr). */
static bool nccl_log(const char *line)
{
	return strstr(line, " NCCL INFO ") || strstr(line, " NCCL WARN ") ||
	       strstr(line, " NCCL INFO\n") || strstr(line, " NCCL WARN\n");
}

typedef struct pending {
	int line;
	double bytes, us;
} pending;

/* What one file holds. */
typedef struct parsed {
	net_coll coll;
	int time_col; /* the out-of-place time's word (time_column) */
	int ranks;
	hosts h;
	pending *rows;
	int nrows, cap;
} parsed;

static int add_pending(parsed *o, int line, double bytes, double us)
{
	if (o->nrows == o->cap) {
		int cap = o->cap ? 2 * o->cap : 64;
		pending *q = realloc(o->rows, (size_t)cap * sizeof *q);
		if (!q)
			return SIM_ENOMEM;
		o->rows = q;
		o->cap = cap;
	}
	o->rows[o->nrows++] = (pending){line, bytes, us};
	return SIM_OK;
}

/* One line of the file (header comment). */
static int parse_line(const char *path, int lineno, const char *line, parsed *o, sim_diag *diag)
{
	const char *p = line + strspn(line, " \t");
	char host[64];
	int rank;
	if (!strncmp(p, "# Collective test starting:", 27)) {
		net_coll c = coll_of(p);
		if (c != NET_COLL_COUNT)
			o->coll = c;
		return SIM_OK;
	}
	if (sscanf(p, "# Rank %d Group %*d Pid %*d on %63s", &rank, host) == 2) {
		o->ranks++;
		return host_seen(&o->h, host);
	}
	if (*p == '#') {
		int col = time_column(p);
		if (col > 0)
			o->time_col = col;
		return SIM_OK;
	}
	if (*p == '\n' || *p == '\r' || !*p || nccl_log(p))
		return SIM_OK;
	double bytes, us;
	if (!data_line(p, o->time_col, &bytes, &us) || !(us > 0)) {
		int len = (int)strcspn(p, "\r\n");
		sim_diag_error(
		        diag, path, lineno,
		        "not an nccl-tests result line (size count type redop root time ...): "
		        "%.*s",
		        len < 40 ? len : 40, p);
		return SIM_ECONF;
	}
	return add_pending(o, lineno, bytes, us);
}

/* Read the file into o; SIM_OK or an error reported in diag. */
static int read_file(const char *path, parsed *o, sim_diag *diag)
{
	FILE *in;
	int err = sim_input_open(path, SIM_INPUT_MAX, &in, NULL);
	if (err) {
		sim_diag_error(diag, path, 0, "cannot read: %s", sim_input_strerror(err));
		return SIM_EIO;
	}
	char line[MAX_LINE];
	int lineno = 0, rc = SIM_OK;
	while (rc == SIM_OK && fgets(line, sizeof line, in)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			sim_diag_error(diag, path, lineno, "line longer than %d bytes",
			               MAX_LINE - 2);
			rc = SIM_ECONF;
		} else {
			rc = parse_line(path, lineno, line, o, diag);
		}
	}
	fclose(in);
	if (rc == SIM_ERANGE) {
		sim_diag_error(diag, path, 0, "more than %d hosts", MAX_HOSTS);
		rc = SIM_ECONF;
	}
	return rc;
}

/* The file's rank layout against the cluster's nodes; SIM_OK or SIM_ECONF. */
static int check_layout(const char *path, const parsed *o, int G, sim_diag *diag)
{
	if (o->coll == NET_COLL_COUNT) {
		sim_diag_error(
		        diag, path, 0,
		        "no all_reduce, all_gather or reduce_scatter in its '# Collective test "
		        "starting' line or its name");
		return SIM_ECONF;
	}
	if (o->ranks < 2 || o->nrows == 0) {
		sim_diag_error(
		        diag, path, 0,
		        "not nccl-tests output of 2 or more ranks: %d '#  Rank' lines, %d result "
		        "lines",
		        o->ranks, o->nrows);
		return SIM_ECONF;
	}
	if (o->ranks > o->h.n * G || o->ranks <= (o->h.n - 1) * G) {
		sim_diag_error(
		        diag, path, 0,
		        "%d ranks on %d hosts do not fill the hosts' GPUs in order (%d per node "
		        "in the cluster file)",
		        o->ranks, o->h.n, G);
		return SIM_ECONF;
	}
	return SIM_OK;
}

int valid_fab_rows_nccl_tests(const char *path, valid_fab_fit *f, sim_diag *diag)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	parsed o = {coll_of(base), TIME_COL, 0, {calloc(MAX_HOSTS, sizeof *o.h.name), 0}, NULL, 0, 0};
	int rc = o.h.name ? read_file(path, &o, diag) : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = check_layout(path, &o, f->cluster.node.gpus, diag);
	for (int i = 0; i < o.nrows && rc == SIM_OK; i++) {
		if (o.rows[i].bytes < 1) {
			f->nignored++; /* a zero-byte call times only the launch */
			continue;
		}
		valid_fab_row r = {0};
		snprintf(r.id, sizeof r.id, "%.20s:%d", base, o.rows[i].line);
		snprintf(r.path, sizeof r.path, "%s", path);
		r.line = o.rows[i].line;
		r.coll = o.coll;
		r.gpus = o.ranks;
		r.nodes = o.h.n;
		r.bytes = o.rows[i].bytes;
		r.median_s = o.rows[i].us * 1e-6;
		rc = valid_fab_add(f, &r);
	}
	free(o.rows);
	free(o.h.name);
	return rc;
}
