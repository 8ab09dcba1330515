/* merge.c - store_merge (`podsim runs merge OUT IN...`): copy the runs of
 * other run databases, e.g. the shards of `podsim sweep --shard I/N` written
 * by a SLURM job array, into one.
 *
 * Every row is copied column by column by name (sqlite3_column_value ->
 * sqlite3_bind_value, so values keep their exact type and bits) except the
 * row ids, which the output assigns; runs.sweep_id and the child tables'
 * run_id are rewritten to the new ids. Inputs are opened read-only and must
 * have exactly STORE_SCHEMA_VERSION, so their columns are the output's.
 *
 * Order (what makes the digest of merged shards equal the unsharded one):
 * inputs in the order given, runs by id; the first run of a sweep group
 * writes the group's sweeps row and then all the group's runs, from every
 * input, by (sweep_rank, input, id) - the order an unsharded sweep inserts
 * them. Sweeps without runs come last, then the serving runs (serve_runs
 * and their serve_latency rows), inputs in order, by id. One write transaction: a failed merge
 * leaves the output as it was. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SHARDS 4096

typedef struct m_in {
	const char *path;
	sqlite3 *db;
} m_in;

/* One sweeps row of an input, and the group (output sweeps row) it joins. */
typedef struct m_sweep {
	size_t in;
	int64_t id, plans, valid, fitting, simulated;
	char *spec, *version;
	int nshards; /* 0 = unsharded */
	bool *has;   /* has[i]: shard i is in this row */
	size_t group;
} m_sweep;

typedef struct m_group {
	size_t first; /* the m_sweep whose row is copied */
	int nshards;
	bool *has;
	int64_t simulated, new_id;
	bool done;
} m_group;

typedef struct m_run {
	size_t in;
	int64_t id, rank;
	size_t group; /* SIZE_MAX: not in a sweep */
} m_run;

typedef struct merge {
	store *out;
	sim_diag *diag;
	m_in *in;
	size_t nin;
	m_sweep *sw;
	size_t nsw;
	m_group *gr;
	size_t ngr;
	m_run *runs;
	size_t nruns;
	int64_t written_runs, written_sweeps, written_serve;
} merge;

/* A column value written instead of the input's. */
typedef struct col_set {
	const char *name;
	bool null;
	int64_t i;
	const char *text; /* used when non-NULL */
} col_set;

static int in_error(merge *m, size_t i, const char *what)
{
	sim_diag_error(m->diag, m->in[i].path, 0, "%s: %s", what, sqlite3_errmsg(m->in[i].db));
	return SIM_EDB;
}

static int out_error(merge *m, const char *what)
{
	sim_diag_error(m->diag, m->out->path, 0, "%s: %s", what, sqlite3_errmsg(m->out->db));
	return SIM_EDB;
}

static char *dup_text(const unsigned char *t)
{
	const char *s = t ? (const char *)t : "";
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* ------------------------------------------------------------ inputs ---- */

static int open_input(merge *m, size_t i)
{
	m_in *in = &m->in[i];
	if (sqlite3_open_v2(in->path, &in->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return in_error(m, i, "cannot open database");
	sqlite3_busy_timeout(in->db, 5000);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(in->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return in_error(m, i, "not a podsim database");
	int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (v != STORE_SCHEMA_VERSION) {
		sim_diag_error(m->diag, in->path, 0,
		               "schema version %lld, this podsim merges version %d only%s",
		               (long long)v, STORE_SCHEMA_VERSION,
		               v > 0 && v < STORE_SCHEMA_VERSION
		                       ? " (run 'podsim runs --db FILE' once to migrate it)"
		                       : "");
		return SIM_EDB;
	}
	const char *a = sqlite3_db_filename(in->db, "main"),
	           *b = sqlite3_db_filename(m->out->db, "main");
	if (a && b && *a && !strcmp(a, b)) {
		sim_diag_error(m->diag, in->path, 0, "is the output database");
		return SIM_EDB;
	}
	return SIM_OK;
}

/* "I,J,.../N" into w->nshards and w->has; false if malformed. */
static bool parse_shard(const char *t, m_sweep *w)
{
	const char *slash = strchr(t, '/');
	char *end;
	long n = slash ? strtol(slash + 1, &end, 10) : 0;
	if (!slash || *end || n < 1 || n > MAX_SHARDS)
		return false;
	w->nshards = (int)n;
	w->has = calloc((size_t)n, sizeof *w->has);
	if (!w->has)
		return false;
	for (const char *p = t; p < slash; p = end + (*end == ',')) {
		long i = strtol(p, &end, 10);
		if (end == p || i < 0 || i >= n || (*end != ',' && *end != '/'))
			return false;
		w->has[i] = true;
	}
	return true;
}

static int load_sweeps(merge *m, size_t i)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(m->in[i].db,
	                       "SELECT id, spec, podsim_version, plans, valid, fitting, simulated,"
	                       " shard FROM sweeps ORDER BY id",
	                       -1, &st, NULL) != SQLITE_OK)
		return in_error(m, i, "cannot read sweeps");
	int rc = SIM_OK, step;
	while (rc == SIM_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		m_sweep *g = realloc(m->sw, (m->nsw + 1) * sizeof *g);
		if (!g) {
			rc = SIM_ENOMEM;
			break;
		}
		m->sw = g;
		m_sweep *w = memset(&m->sw[m->nsw++], 0, sizeof *w);
		w->in = i;
		w->id = sqlite3_column_int64(st, 0);
		w->spec = dup_text(sqlite3_column_text(st, 1));
		w->version = dup_text(sqlite3_column_text(st, 2));
		w->plans = sqlite3_column_int64(st, 3);
		w->valid = sqlite3_column_int64(st, 4);
		w->fitting = sqlite3_column_int64(st, 5);
		w->simulated = sqlite3_column_int64(st, 6);
		const unsigned char *shard = sqlite3_column_text(st, 7);
		if (!w->spec || !w->version)
			rc = SIM_ENOMEM;
		else if (shard && !parse_shard((const char *)shard, w)) {
			sim_diag_error(m->diag, m->in[i].path, 0, "sweep %lld: bad shard '%s'",
			               (long long)w->id, (const char *)shard);
			rc = SIM_EDB;
		}
	}
	if (rc == SIM_OK && step != SQLITE_DONE)
		rc = in_error(m, i, "cannot read sweeps");
	sqlite3_finalize(st);
	return rc;
}

/* Same sweep, other shards: same space, counts, version and N, no shard in
 * both. */
static bool joins(const m_group *g, const m_sweep *first, const m_sweep *w)
{
	if (!w->nshards || g->nshards != w->nshards || strcmp(first->spec, w->spec) ||
	    strcmp(first->version, w->version) || first->plans != w->plans ||
	    first->valid != w->valid || first->fitting != w->fitting)
		return false;
	for (int i = 0; i < w->nshards; i++)
		if (w->has[i] && g->has[i])
			return false;
	return true;
}

static int group_sweeps(merge *m)
{
	m->gr = calloc(m->nsw ? m->nsw : 1, sizeof *m->gr);
	if (!m->gr)
		return SIM_ENOMEM;
	for (size_t k = 0; k < m->nsw; k++) {
		m_sweep *w = &m->sw[k];
		size_t g = 0;
		while (g < m->ngr && !joins(&m->gr[g], &m->sw[m->gr[g].first], w))
			g++;
		if (g == m->ngr) {
			m->gr[m->ngr++] = (m_group){.first = k, .nshards = w->nshards};
			if (w->nshards &&
			    !(m->gr[g].has = calloc((size_t)w->nshards, sizeof(bool))))
				return SIM_ENOMEM;
		}
		w->group = g;
		m->gr[g].simulated += w->simulated;
		for (int i = 0; i < w->nshards; i++)
			m->gr[g].has[i] = m->gr[g].has[i] || w->has[i];
	}
	return SIM_OK;
}

static size_t group_of(const merge *m, size_t in, int64_t sweep_id)
{
	for (size_t k = 0; k < m->nsw; k++)
		if (m->sw[k].in == in && m->sw[k].id == sweep_id)
			return m->sw[k].group;
	return SIZE_MAX;
}

static int load_runs(merge *m, size_t i)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(m->in[i].db, "SELECT id, sweep_id, sweep_rank FROM runs ORDER BY id",
	                       -1, &st, NULL) != SQLITE_OK)
		return in_error(m, i, "cannot read runs");
	int rc = SIM_OK, step;
	while (rc == SIM_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		m_run *r = realloc(m->runs, (m->nruns + 1) * sizeof *r);
		if (!r) {
			rc = SIM_ENOMEM;
			break;
		}
		m->runs = r;
		bool in_sweep = sqlite3_column_type(st, 1) != SQLITE_NULL;
		m->runs[m->nruns++] =
		        (m_run){i, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
		                in_sweep ? group_of(m, i, sqlite3_column_int64(st, 1)) : SIZE_MAX};
	}
	if (rc == SIM_OK && step != SQLITE_DONE)
		rc = in_error(m, i, "cannot read runs");
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------- copy ---- */

static bool plain_name(const char *s)
{
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* INSERT INTO table (every column of sel but id) VALUES (?, ...). */
static int prepare_insert(merge *m, const char *table, sqlite3_stmt *sel, sqlite3_stmt **ins)
{
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_printf(&b, "INSERT INTO main.%s (", table);
	int n = 0;
	for (int c = 0; c < sqlite3_column_count(sel); c++) {
		const char *name = sqlite3_column_name(sel, c);
		if (!strcmp(name, "id"))
			continue;
		if (!plain_name(name))
			SIM_PANIC("column name '%s'", name);
		sim_buf_printf(&b, "%s\"%s\"", n++ ? ", " : "", name);
	}
	sim_buf_printf(&b, ") VALUES (");
	for (int c = 0; c < n; c++)
		sim_buf_printf(&b, "%s?", c ? ", " : "");
	sim_buf_printf(&b, ")");
	int rc = b.oom ? SIM_ENOMEM
	         : sqlite3_prepare_v2(m->out->db, b.data, -1, ins, NULL) == SQLITE_OK
	                 ? SIM_OK
	                 : out_error(m, "cannot prepare the copy");
	sim_buf_free(&b);
	return rc;
}

static void bind_column(sqlite3_stmt *ins, int j, sqlite3_stmt *sel, int c, const col_set *sets,
                        size_t nsets)
{
	const char *name = sqlite3_column_name(sel, c);
	for (size_t k = 0; k < nsets; k++) {
		if (strcmp(sets[k].name, name))
			continue;
		if (sets[k].null)
			sqlite3_bind_null(ins, j);
		else if (sets[k].text)
			sqlite3_bind_text(ins, j, sets[k].text, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(ins, j, sets[k].i);
		return;
	}
	sqlite3_bind_value(ins, j, sqlite3_column_value(sel, c));
}

/* Copy the rows of `table` where where_col = id from input i, with sets. */
static int copy_rows(merge *m, size_t i, const char *table, const char *where_col, int64_t id,
                     const col_set *sets, size_t nsets)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE %s = ? ORDER BY rowid", table, where_col);
	sqlite3_stmt *sel, *ins = NULL;
	if (sqlite3_prepare_v2(m->in[i].db, sql, -1, &sel, NULL) != SQLITE_OK)
		return in_error(m, i, "cannot read");
	sqlite3_bind_int64(sel, 1, id);
	int rc = prepare_insert(m, table, sel, &ins), step = SQLITE_DONE;
	while (rc == SIM_OK && (step = sqlite3_step(sel)) == SQLITE_ROW) {
		int j = 1;
		for (int c = 0; c < sqlite3_column_count(sel); c++)
			if (strcmp(sqlite3_column_name(sel, c), "id"))
				bind_column(ins, j++, sel, c, sets, nsets);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = out_error(m, "cannot copy a row");
		sqlite3_reset(ins);
	}
	if (rc == SIM_OK && step != SQLITE_DONE)
		rc = in_error(m, i, "cannot read");
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	return rc;
}

static int copy_run(merge *m, const m_run *r)
{
	int64_t sweep = r->group == SIZE_MAX ? 0 : m->gr[r->group].new_id;
	col_set head = {"sweep_id", sweep == 0, sweep, NULL};
	int rc = copy_rows(m, r->in, "runs", "id", r->id, &head, 1);
	int64_t id = sqlite3_last_insert_rowid(m->out->db);
	col_set child = {"run_id", false, id, NULL};
	static const char *const tables[] = {"run_classes", "run_memory", "run_links"};
	for (size_t t = 0; rc == SIM_OK && t < 3; t++)
		rc = copy_rows(m, r->in, tables[t], "run_id", r->id, &child, 1);
	m->written_runs += rc == SIM_OK;
	return rc;
}

/* The group's sweeps row: the first member's, simulated summed, the shards
 * it now holds ("I,J/N", NULL when all N). */
static int copy_sweep(merge *m, m_group *g)
{
	const m_sweep *w = &m->sw[g->first];
	sim_buf b;
	sim_buf_init(&b);
	int have = 0;
	for (int i = 0; i < g->nshards; i++)
		if (g->has[i])
			sim_buf_printf(&b, "%s%d", have++ ? "," : "", i);
	sim_buf_printf(&b, "/%d", g->nshards);
	if (b.oom) {
		sim_buf_free(&b);
		return SIM_ENOMEM;
	}
	col_set sets[2] = {{"simulated", false, g->simulated, NULL},
	                   {"shard", have == g->nshards, 0, b.data}};
	int rc = copy_rows(m, w->in, "sweeps", "id", w->id, sets, 2);
	sim_buf_free(&b);
	g->new_id = sqlite3_last_insert_rowid(m->out->db);
	g->done = true;
	m->written_sweeps += rc == SIM_OK;
	return rc;
}

static int by_rank(const void *a, const void *b)
{
	const m_run *x = *(const m_run *const *)a, *y = *(const m_run *const *)b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->in != y->in)
		return x->in < y->in ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int copy_group(merge *m, size_t g)
{
	int rc = copy_sweep(m, &m->gr[g]);
	const m_run **list = malloc((m->nruns ? m->nruns : 1) * sizeof *list);
	size_t n = 0;
	if (!list)
		return SIM_ENOMEM;
	for (size_t k = 0; k < m->nruns; k++)
		if (m->runs[k].group == g)
			list[n++] = &m->runs[k];
	qsort(list, n, sizeof *list, by_rank);
	for (size_t k = 0; rc == SIM_OK && k < n; k++)
		rc = copy_run(m, list[k]);
	free(list);
	return rc;
}

/* Serving runs (serve_runs, serve_latency: serve.c) of input i, by id. */
static int copy_serve(merge *m, size_t i)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(m->in[i].db, "SELECT id FROM serve_runs ORDER BY id", -1, &st,
	                       NULL) != SQLITE_OK)
		return in_error(m, i, "cannot read serving runs");
	int rc = SIM_OK, step;
	while (rc == SIM_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		rc = copy_rows(m, i, "serve_runs", "id", id, NULL, 0);
		col_set child = {"run_id", false, sqlite3_last_insert_rowid(m->out->db), NULL};
		if (rc == SIM_OK)
			rc = copy_rows(m, i, "serve_latency", "run_id", id, &child, 1);
		m->written_serve += rc == SIM_OK;
	}
	if (rc == SIM_OK && step != SQLITE_DONE)
		rc = in_error(m, i, "cannot read serving runs");
	sqlite3_finalize(st);
	return rc;
}

static int copy_all(merge *m)
{
	int rc = SIM_OK;
	for (size_t k = 0; rc == SIM_OK && k < m->nruns; k++) {
		const m_run *r = &m->runs[k];
		if (r->group == SIZE_MAX)
			rc = copy_run(m, r);
		else if (!m->gr[r->group].done)
			rc = copy_group(m, r->group);
	}
	for (size_t g = 0; rc == SIM_OK && g < m->ngr; g++)
		if (!m->gr[g].done)
			rc = copy_sweep(m, &m->gr[g]);
	for (size_t i = 0; rc == SIM_OK && i < m->nin; i++)
		rc = copy_serve(m, i);
	return rc;
}

static void merge_free(merge *m)
{
	for (size_t i = 0; i < m->nin; i++)
		sqlite3_close(m->in[i].db);
	for (size_t k = 0; k < m->nsw; k++) {
		free(m->sw[k].spec);
		free(m->sw[k].version);
		free(m->sw[k].has);
	}
	for (size_t g = 0; g < m->ngr; g++)
		free(m->gr[g].has);
	free(m->in);
	free(m->sw);
	free(m->gr);
	free(m->runs);
}

int store_merge(store *s, const char *const *in, size_t n, int64_t *runs, int64_t *sweeps,
                int64_t *serve_runs, sim_diag *diag)
{
	merge m = {.out = s, .diag = diag, .nin = n};
	*runs = *sweeps = *serve_runs = 0;
	m.in = calloc(n ? n : 1, sizeof *m.in);
	int rc = m.in ? SIM_OK : SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < n; i++) {
		m.in[i].path = in[i];
		rc = open_input(&m, i);
	}
	for (size_t i = 0; rc == SIM_OK && i < n; i++)
		rc = load_sweeps(&m, i);
	if (rc == SIM_OK)
		rc = group_sweeps(&m);
	for (size_t i = 0; rc == SIM_OK && i < n; i++)
		rc = load_runs(&m, i);
	if (rc == SIM_OK && sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		rc = out_error(&m, "cannot lock the database");
	else if (rc == SIM_OK) {
		rc = copy_all(&m);
		if (rc == SIM_OK && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			rc = out_error(&m, "cannot commit the merge");
		if (rc != SIM_OK && !sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	if (rc == SIM_OK) {
		*runs = m.written_runs;
		*sweeps = m.written_sweeps;
		*serve_runs = m.written_serve;
	}
	merge_free(&m);
	return rc;
}
