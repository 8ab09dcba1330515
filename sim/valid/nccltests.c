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
 *       header at :756-760).
 * A data line gives one row: bytes = size (the full buffer, as podsim counts
 * it), the out-of-place time as the measured median (nccl-tests averages
 * its iterations; no percentiles). Lines starting with '#' and blank lines
 * are skipped; any other line that is not a data line is an error.
 */
#include "valid_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE  4096
#define MAX_HOSTS 4096

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

/* A data line: size, count, 3 words, out-of-place time in us. */
static bool data_line(const char *line, double *bytes, double *time_us)
{
	char w[3][64];
	long long size, count;
	double t;
	int n = sscanf(line, "%lld %lld %63s %63s %63s %lf", &size, &count, w[0], w[1], w[2], &t);
	if (n != 6 || size < 0 || count < 0)
		return false;
	*bytes = (double)size;
	*time_us = t;
	return true;
}

typedef struct pending {
	int line;
	double bytes, us;
} pending;

int valid_fab_rows_nccl_tests(const char *path, valid_fab_fit *f, sim_diag *diag)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		sim_diag_error(diag, path, 0, "cannot read: %s", strerror(errno));
		return SIM_EIO;
	}
	hosts h = {calloc(MAX_HOSTS, sizeof *h.name), 0};
	pending *rows = NULL;
	int nrows = 0, cap = 0, ranks = 0, lineno = 0, rc = h.name ? SIM_OK : SIM_ENOMEM;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	net_coll coll = coll_of(base);
	char line[MAX_LINE];
	while (rc == SIM_OK && fgets(line, sizeof line, in)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			sim_diag_error(diag, path, lineno, "line longer than %d bytes",
			               MAX_LINE - 2);
			rc = SIM_ECONF;
			break;
		}
		const char *p = line + strspn(line, " \t");
		char host[64];
		int rank;
		if (!strncmp(p, "# Collective test starting:", 27)) {
			net_coll c = coll_of(p);
			if (c != NET_COLL_COUNT)
				coll = c;
		} else if (sscanf(p, "# Rank %d Group %*d Pid %*d on %63s", &rank, host) == 2) {
			ranks++;
			rc = host_seen(&h, host);
		} else if (*p == '#' || *p == '\n' || *p == '\r' || !*p) {
			continue;
		} else {
			double bytes, us;
			if (!data_line(p, &bytes, &us) || !(us > 0)) {
				int len = (int)strcspn(p, "\r\n");
				sim_diag_error(
				        diag, path, lineno,
				        "not an nccl-tests result line (size count type redop root "
				        "time ...): %.*s",
				        len < 40 ? len : 40, p);
				rc = SIM_ECONF;
				break;
			}
			if (nrows == cap) {
				cap = cap ? 2 * cap : 64;
				pending *q = realloc(rows, (size_t)cap * sizeof *q);
				if (!q) {
					rc = SIM_ENOMEM;
					break;
				}
				rows = q;
			}
			rows[nrows++] = (pending){lineno, bytes, us};
		}
	}
	fclose(in);
	if (rc == SIM_OK && coll == NET_COLL_COUNT) {
		sim_diag_error(
		        diag, path, 0,
		        "no all_reduce, all_gather or reduce_scatter in its '# Collective test "
		        "starting' line or its name");
		rc = SIM_ECONF;
	} else if (rc == SIM_OK && (ranks < 2 || nrows == 0)) {
		sim_diag_error(
		        diag, path, 0,
		        "not nccl-tests output of 2 or more ranks: %d '#  Rank' lines, %d result "
		        "lines",
		        ranks, nrows);
		rc = SIM_ECONF;
	} else if (rc == SIM_ERANGE) {
		sim_diag_error(diag, path, 0, "more than %d hosts", MAX_HOSTS);
		rc = SIM_ECONF;
	}
	int G = f->cluster.node.gpus;
	if (rc == SIM_OK && (ranks > h.n * G || ranks <= (h.n - 1) * G)) {
		sim_diag_error(
		        diag, path, 0,
		        "%d ranks on %d hosts do not fill the hosts' GPUs in order (%d per node "
		        "in the cluster file)",
		        ranks, h.n, G);
		rc = SIM_ECONF;
	}
	for (int i = 0; i < nrows && rc == SIM_OK; i++) {
		if (rows[i].bytes < 1) {
			f->nignored++; /* a zero-byte call times only the launch */
			continue;
		}
		valid_fab_row r = {0};
		snprintf(r.id, sizeof r.id, "%.20s:%d", base, rows[i].line);
		snprintf(r.path, sizeof r.path, "%s", path);
		r.line = rows[i].line;
		r.coll = coll;
		r.gpus = ranks;
		r.nodes = h.n;
		r.bytes = rows[i].bytes;
		r.median_s = rows[i].us * 1e-6;
		rc = valid_fab_add(f, &r);
	}
	free(rows);
	free(h.name);
	return rc;
}
