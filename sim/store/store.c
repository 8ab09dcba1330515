/* store.c - the SQLite run database (see store.h for the contract).
 *
 * Connection settings: WAL journal (readers never block the writer, and a
 * killed process loses at most the run it was writing), busy timeout 5 s (two
 * podsim processes writing one file wait for each other instead of failing),
 * foreign keys on. Every run is written inside BEGIN IMMEDIATE ... COMMIT, with
 * ROLLBACK on any error, so a run is either all there or not at all. Values are
 * always bound to prepared statements; no SQL text is built from values.
 *
 * Schema version 12 (PRAGMA user_version = 12). A database with a newer version
 * is refused; an empty one (user_version 0, no tables) is migrated by running
 * migrations[v] for v = user_version .. STORE_SCHEMA_VERSION - 1 in one
 * transaction; a version-0 file that already holds tables is not ours and is
 * refused. The DDL of version 1:
 *
 *   runs        one row per stored run: identity, the resolved scenario text and
 *               its 16-hex-digit sim_hash64, podsim version, seed, status, the
 *               headline metrics of exec_result, simulation size.
 *   run_classes one row per rank class (idx = position in exec_result.classes):
 *               name, ranks, seconds per exec_cat (one REAL column each, named
 *               by exec_cat_name), memory total and OOM flag.
 *   run_memory  one row per (class, plan_mem category): peak bytes.
 *   run_links   one row per link class (idx = position in exec_result.links).
 * Version 2 adds (migration 1 -> 2, also run on version-1 files):
 *   sweeps      one row per `podsim sweep`: its space as text and plan counts.
 *   runs.sweep_id  the sweep a run belongs to (NULL for `podsim run`).
 * The digest skips sweep_id (an id) and hashes the sweeps rows without their
 * id and timestamp, so databases without sweeps keep their version-1 digest.
 * Version 3 adds (migration 2 -> 3):
 *   runs.host_bytes, host_capacity_bytes, nvme_bytes, nvme_capacity_bytes
 *     offloaded states per node and the node's capacities (NULL in rows
 *     stored before: read back as NaN, reported as no offloading).
 * Version 4 adds (migration 3 -> 4), for sharded sweeps and `runs merge`:
 *   runs.sweep_rank  the run's place in its sweep's pre-screen order (1 =
 *     best estimate; NULL outside sweeps): merged shards keep the order of
 *     an unsharded sweep.
 *   sweeps.shard     "I/N" for `podsim sweep --shard I/N` (NULL unsharded);
 *     a merge of some shards writes "I,J/N", of all N shards NULL.
 * Version 5 adds (migration 4 -> 5):
 *   run_links.traffic  the group whose collectives load the link class most
 *     ("tp", "dp", "pp", "cp", "ep"; NULL in rows stored before).
 * Version 6 adds (migration 5 -> 6), the prediction judged against the
 * validation data (valid_refs_apply):
 *   runs.step_band_lo_s, step_band_hi_s  the likely range of the measured
 *     step (NULL without a band, and in rows stored before: read as NaN);
 *   runs.band_from  the validation cell the band came from (NULL: none);
 *   runs.implausible, implausible_reason  MFU above the best published for
 *     the GPU generation (NULL in rows stored before: read as not flagged).
 * Version 7 adds (migration 6 -> 7), the step's spread on a cluster with a
 * measured collective spread (exec_step_spread; NULL without one, and in
 * rows stored before: read as no spread):
 *   runs.step_p05_s, step_p10_s, step_p50_s, step_p90_s, step_p95_s
 *     quantiles of the sampled step time, step_p95_lo_s, step_p95_hi_s the
 *     p95's confidence interval;
 *   runs.spread_samples, spread_seed, spread_correlation, spread_varying
 *     how they were sampled (replays, RNG seed, the share of a call's
 *     slowdown common to the step, the collectives that varied).
 * Version 8 adds (migration 7 -> 8), campaigns (`podsim train`, sim/campaign;
 * the DDL and its columns in campaign.c):
 *   campaigns        one row per campaign: its run (the step), inputs
 *     (steps, checkpoint, restart, failure rate) and the Monte Carlo's
 *     quantiles;
 *   campaign_causes  one row per failure cause: its scaling and the mean
 *     interruptions per campaign.
 * Version 9 adds (migration 8 -> 9) the serving tables serve_runs and
 * serve_latency (serve.c, store_put_serve); nothing else changes.
 * Version 10 adds (migration 9 -> 10; mixed.c describes the columns):
 *   runs.mem_verdict, mem_basis  the plan-wide memory verdict and where it
 *     is decided (NULL in rows stored before: the list falls back to the
 *     stored OOM flag and the scenario GPU's peak);
 *   runs.mixed_*  the [cluster] other_gpu figures (exec_mixed);
 *   run_classes.mem_other*  each class's figures on other_gpu.
 * Version 11 adds (migration 10 -> 11) runs.layout, the pipeline's layers
 * per stage where the framework's rule set them (exec_result.layout; NULL
 * for an even or explicit split and in rows stored before).
 * Version 12 adds (migration 11 -> 12) run_classes.mem_logged_bytes, the
 * allocated peak the framework's own log reads where it resets PyTorch's
 * peak counters past the backward (nanotron: exec_class.mem_logged_bytes; 0
 * where the log reads the step's peak, NULL in rows stored before).
 *
 * Doubles are REAL columns and round-trip exactly (SQLite stores IEEE doubles;
 * NaN is stored as NULL and read back as NaN). uint64 values (seed, tasks,
 * events) are stored as the int64 with the same bits.
 */
#include "store_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

_Static_assert(EXEC_CAT_COUNT == 10, "run_classes has one column per exec_cat");
_Static_assert(PLAN_MEM_COUNT == 7, "run_memory holds one row per plan_mem category; new ones need no schema change");

/* migrations[v] takes a database from user_version v to v + 1. */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" created_utc TEXT NOT NULL,"
	" podsim_version TEXT NOT NULL,"
	" scenario_name TEXT NOT NULL,"
	" scenario_hash TEXT NOT NULL,"
	" scenario_text TEXT NOT NULL,"
	" seed INTEGER NOT NULL,"
	" status TEXT NOT NULL,"
	" model TEXT, gpu TEXT, cluster TEXT, plan TEXT,"
	" gpus INTEGER,"
	" step_time_s REAL, tokens_per_step REAL, tokens_per_s REAL,"
	" model_flops REAL, hardware_flops REAL, peak_flops REAL,"
	" mfu REAL, hfu REAL, tflops_per_gpu REAL, bubble_fraction REAL,"
	" mem_capacity_bytes REAL, mem_peak_bytes REAL, oom INTEGER,"
	" tasks INTEGER, events INTEGER);"
	"CREATE TABLE run_classes ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" ranks INTEGER,"
	" compute REAL, optimizer REAL, tp REAL, cp REAL, ep REAL, dp REAL, pp REAL,"
	" bubble REAL, offload REAL, other REAL,"
	" mem_total_bytes REAL, oom INTEGER,"
	" PRIMARY KEY (run_id, idx));"
	"CREATE TABLE run_memory ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" class_idx INTEGER NOT NULL,"
	" category TEXT NOT NULL,"
	" bytes REAL,"
	" PRIMARY KEY (run_id, class_idx, category));"
	"CREATE TABLE run_links ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL, kind TEXT NOT NULL,"
	" count INTEGER, capacity_Bps REAL, bytes REAL, busy_s REAL, util REAL,"
	" saturated_s REAL,"
	" PRIMARY KEY (run_id, idx));"
	"CREATE INDEX runs_scenario ON runs(scenario_hash);",
	"CREATE TABLE sweeps ("
	" id INTEGER PRIMARY KEY,"
	" created_utc TEXT NOT NULL,"
	" podsim_version TEXT NOT NULL,"
	" spec TEXT NOT NULL,"
	" plans INTEGER, valid INTEGER, fitting INTEGER, simulated INTEGER);"
	"ALTER TABLE runs ADD COLUMN sweep_id INTEGER REFERENCES sweeps(id);"
	"CREATE INDEX runs_sweep ON runs(sweep_id);",
	"ALTER TABLE runs ADD COLUMN host_bytes REAL;"
	"ALTER TABLE runs ADD COLUMN host_capacity_bytes REAL;"
	"ALTER TABLE runs ADD COLUMN nvme_bytes REAL;"
	"ALTER TABLE runs ADD COLUMN nvme_capacity_bytes REAL;",
	"ALTER TABLE runs ADD COLUMN sweep_rank INTEGER;"
	"ALTER TABLE sweeps ADD COLUMN shard TEXT;",
	"ALTER TABLE run_links ADD COLUMN traffic TEXT;",
	"ALTER TABLE runs ADD COLUMN step_band_lo_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_band_hi_s REAL;"
	"ALTER TABLE runs ADD COLUMN band_from TEXT;"
	"ALTER TABLE runs ADD COLUMN implausible INTEGER;"
	"ALTER TABLE runs ADD COLUMN implausible_reason TEXT;",
	"ALTER TABLE runs ADD COLUMN step_p05_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p10_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p50_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p90_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p95_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p95_lo_s REAL;"
	"ALTER TABLE runs ADD COLUMN step_p95_hi_s REAL;"
	"ALTER TABLE runs ADD COLUMN spread_samples INTEGER;"
	"ALTER TABLE runs ADD COLUMN spread_seed INTEGER;"
	"ALTER TABLE runs ADD COLUMN spread_correlation REAL;"
	"ALTER TABLE runs ADD COLUMN spread_varying INTEGER;",
	STORE_CAMPAIGN_DDL,
	store_serve_ddl,
	STORE_MIXED_DDL,
	/* 10 -> 11: the pipeline's layers per stage where the framework's rule
	 * set them (exec_result.layout; NULL: an even or explicit split, or a
	 * run stored before) */
	"ALTER TABLE runs ADD COLUMN layout TEXT;",
	/* 11 -> 12: what the framework's own log reads as its allocated peak
	 * where it resets the counters past the backward (exec_class.
	 * mem_logged_bytes; 0 where it logs the step's, NULL before) */
	"ALTER TABLE run_classes ADD COLUMN mem_logged_bytes REAL;"};

/* ------------------------------------------------------------ helpers ---- */

static int db_error(store *s, sim_diag *diag, const char *what)
{
	sim_diag_error(diag, s->path, 0, "%s: %s", what, sqlite3_errmsg(s->db));
	return SIM_EDB;
}

void store_utc_now(char created[32])
{
	time_t now = time(NULL);
	struct tm tm;
	if (!gmtime_r(&now, &tm) || !strftime(created, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(created, 32, "unknown");
}

int store_bind_scenario(sqlite3_stmt *st, const char *name, const char *text, uint64_t seed)
{
	char created[32], hash[17];
	store_utc_now(created);
	sim_hash_hex(sim_hash64(text, strlen(text)), hash);
	sqlite3_bind_text(st, 1, created, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, PODSIM_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)seed);
	return 7;
}

int store_fail(store *s, sim_diag *diag, const char *what)
{
	int rc = db_error(s, diag, what);
	store_rollback(s);
	return rc;
}

/* Run SQL without values (pragmas, transaction control, DDL). */
int store_exec_sql(store *s, const char *sql, sim_diag *diag, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return SIM_OK;
	sim_diag_error(diag, s->path, 0, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
	sqlite3_free(msg);
	return SIM_EDB;
}

void store_rollback(store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_prepare(store *s, const char *sql, sqlite3_stmt **st, sim_diag *diag)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK)
		return SIM_OK;
	*st = NULL;
	return db_error(s, diag, "cannot prepare statement");
}

/* Step a statement that returns no rows, then reset it for reuse. */
int store_step_done(store *s, sqlite3_stmt *st, sim_diag *diag, const char *what)
{
	int rc = sqlite3_step(st);
	int err = rc == SQLITE_DONE ? SIM_OK : db_error(s, diag, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return err;
}

/* A single integer from a query without parameters (e.g. a pragma). */
static int query_int(store *s, const char *sql, int64_t *out, sim_diag *diag, const char *what)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(s, diag, what);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	int err = rc == SQLITE_ROW ? SIM_OK : db_error(s, diag, what);
	sqlite3_finalize(st);
	return err;
}

double store_col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/* -------------------------------------------------------------- open ---- */

static int refuse_newer(store *s, int64_t version, sim_diag *diag)
{
	sim_diag_error(diag, s->path, 0,
		       "database schema version %lld is newer than this podsim supports (%d)",
		       (long long)version, STORE_SCHEMA_VERSION);
	return SIM_EDB;
}

/* Bring the schema to STORE_SCHEMA_VERSION inside one write transaction (the
 * version is read again under the lock: another process may have just done
 * it). */
static int migrate(store *s, sim_diag *diag)
{
	int rc = store_exec_sql(s, "BEGIN IMMEDIATE", diag, "cannot lock the database");
	int64_t version = 0, tables = 0;
	if (rc == SIM_OK)
		rc = query_int(s, "PRAGMA user_version", &version, diag, "cannot read schema");
	if (rc == SIM_OK && version == 0)
		rc = query_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
			       &tables, diag, "cannot read schema");
	if (rc == SIM_OK && version == 0 && tables > 0) {
		sim_diag_error(diag, s->path, 0,
			       "not a podsim database (it has tables but no schema version)");
		rc = SIM_EDB;
	}
	if (rc == SIM_OK && version > STORE_SCHEMA_VERSION) /* a newer podsim was first */
		rc = refuse_newer(s, version, diag);
	for (int64_t v = version; rc == SIM_OK && v < STORE_SCHEMA_VERSION; v++) {
		if (!migrations[v])
			SIM_PANIC("no migration from schema version %lld", (long long)v);
		rc = store_exec_sql(s, migrations[v], diag, "cannot create the schema");
	}
	if (rc == SIM_OK && version < STORE_SCHEMA_VERSION) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
		rc = store_exec_sql(s, sql, diag, "cannot set the schema version");
	}
	if (rc == SIM_OK)
		rc = store_exec_sql(s, "COMMIT", diag, "cannot create the schema");
	if (rc != SIM_OK)
		store_rollback(s);
	return rc;
}

/* End setup's read transaction (after any message: ROLLBACK resets the
 * connection's error); returns rc. */
static int end_read(store *s, int rc)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Check the file is a SQLite database of a version we know, set the
 * connection up and migrate it. */
static int setup(store *s, sim_diag *diag)
{
	int64_t version = 0;
	sqlite3_busy_timeout(s->db, 5000);
	sqlite3_extended_result_codes(s->db, 1);
	/* The version and the tables are read in one read transaction, one
	 * snapshot: read apart, a podsim creating the database in between (its
	 * migration commits tables and version together) would show a version
	 * of 0 beside its tables, "not a podsim database". */
	sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);
	sim_diag *quiet = sim_diag_new();
	int rc = quiet ? query_int(s, "PRAGMA user_version", &version, quiet, "") : SIM_ENOMEM;
	sim_diag_free(quiet);
	if (rc != SIM_OK && (sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB) {
		sim_diag_error(diag, s->path, 0, "not a SQLite database");
		return end_read(s, SIM_EDB);
	}
	if (rc != SIM_OK)
		return end_read(s, db_error(s, diag, "cannot read the database"));
	if (version > STORE_SCHEMA_VERSION || version < 0)
		return end_read(s, refuse_newer(s, version, diag));
	/* A foreign application's database is refused before anything in it
	 * changes (the WAL switch below rewrites its header): tables but no
	 * schema version, or a schema version without podsim's runs table. */
	int64_t tables = 0, runs = 0;
	quiet = sim_diag_new();
	rc = quiet ? query_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &tables,
			       quiet, "")
		   : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = query_int(s,
			       "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
			       "name = 'runs'",
			       &runs, quiet, "");
	sim_diag_free(quiet);
	if (rc != SIM_OK)
		return end_read(s, db_error(s, diag, "cannot read the database"));
	end_read(s, SIM_OK);
	if ((version == 0 && tables > 0) || (version > 0 && runs == 0)) {
		sim_diag_error(diag, s->path, 0,
			       version == 0 ? "not a podsim database (it has tables but no schema "
					      "version)"
					    : "not a podsim database (schema version %lld but no runs "
					      "table)",
			       (long long)version);
		return SIM_EDB;
	}
	/* WAL may be refused on read-only media; writes then fail with a message. */
	sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	if (store_exec_sql(s, "PRAGMA foreign_keys = ON", diag, "cannot configure the database"))
		return SIM_EDB;
	return version < STORE_SCHEMA_VERSION ? migrate(s, diag) : SIM_OK;
}

const char *store_path_refused(const char *path)
{
	/* SQLite reads "" as a private temporary database and ":memory:" as
	 * one in memory, both lost at exit; a device or FIFO would get a
	 * -journal beside it (/dev/null-journal): only a regular file or a new
	 * name is a run database. */
	struct stat st;
	if (!*path)
		return "an empty database path (SQLite would store into a temporary database, "
		       "lost at exit)";
	if (!strcmp(path, ":memory:"))
		return "an in-memory database is lost at exit";
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? "a directory, not a database file"
					   : "not a regular file (a device, FIFO or socket)";
	char why[160]; /* a new file: its folder must exist (sim_out_check) */
	if (stat(path, &st) != 0 && sim_out_check(path, why, sizeof why) != SIM_OK)
		return "its folder does not exist (or is not a folder)";
	return NULL;
}

int store_open(const char *path, store **out, sim_diag *diag)
{
	*out = NULL;
	store *s = calloc(1, sizeof *s);
	size_t n = strlen(path) + 1;
	char *p = malloc(n);
	if (!s || !p) {
		free(s);
		free(p);
		return SIM_ENOMEM;
	}
	memcpy(p, path, n);
	s->path = p;
	const char *why = store_path_refused(path);
	if (why) {
		sim_diag_error(diag, *path ? path : "''", 0, "cannot open database: %s", why);
		store_close(s);
		return SIM_EDB;
	}
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		sim_diag_error(diag, path, 0, "cannot open database: %s",
			       s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return SIM_EDB;
	}
	if (setup(s, diag) != SIM_OK) {
		store_close(s);
		return SIM_EDB;
	}
	*out = s;
	return SIM_OK;
}

void store_close(store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

/* ------------------------------------------------------------- write ---- */

/* The step's spread from parameter i on: NULLs without one (version 7).
 * Returns the next parameter. */
static int bind_spread(sqlite3_stmt *st, int i, const exec_step_spread *sp)
{
	bool on = sp->samples > 0;
	const double q[] = {sp->p05_s, sp->p10_s, sp->p50_s, sp->p90_s, sp->p95_s, sp->p95_lo_s,
			    sp->p95_hi_s};
	for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
		if (on)
			sqlite3_bind_double(st, i++, q[k]);
		else
			sqlite3_bind_null(st, i++);
	if (!on) {
		for (int k = 0; k < 4; k++)
			sqlite3_bind_null(st, i++);
		return i;
	}
	sqlite3_bind_int(st, i++, sp->samples);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)sp->seed);
	sqlite3_bind_double(st, i++, sp->corr);
	sqlite3_bind_int(st, i++, sp->varying);
	return i;
}

/* The spread of a row from column i on (NULL samples: none). */
static void col_spread(sqlite3_stmt *st, int i, exec_step_spread *sp)
{
	memset(sp, 0, sizeof *sp);
	if (sqlite3_column_type(st, i + 7) == SQLITE_NULL)
		return;
	double *q[] = {&sp->p05_s, &sp->p10_s, &sp->p50_s,   &sp->p90_s,
		       &sp->p95_s, &sp->p95_lo_s, &sp->p95_hi_s};
	for (int k = 0; k < 7; k++)
		*q[k] = store_col_double(st, i + k);
	sp->samples = sqlite3_column_int(st, i + 7);
	sp->seed = (uint64_t)sqlite3_column_int64(st, i + 8);
	sp->corr = store_col_double(st, i + 9);
	sp->varying = sqlite3_column_int(st, i + 10);
}

static int put_head(store *s, const char *text, const exec_result *r, int64_t sweep_id,
		    int64_t rank, sim_diag *diag)
{
	static const char sql[] =
		"INSERT INTO runs (created_utc, podsim_version, scenario_name, scenario_hash,"
		" scenario_text, seed, status, model, gpu, cluster, plan, gpus, step_time_s,"
		" tokens_per_step, tokens_per_s, model_flops, hardware_flops, peak_flops, mfu,"
		" hfu, tflops_per_gpu, bubble_fraction, mem_capacity_bytes, mem_peak_bytes,"
		" oom, tasks, events, sweep_id, host_bytes, host_capacity_bytes, nvme_bytes,"
		" nvme_capacity_bytes, sweep_rank, step_band_lo_s, step_band_hi_s, band_from,"
		" implausible, implausible_reason, step_p05_s, step_p10_s, step_p50_s, step_p90_s,"
		" step_p95_s, step_p95_lo_s, step_p95_hi_s, spread_samples, spread_seed,"
		" spread_correlation, spread_varying, layout)"
		" VALUES (?, ?, ?, ?, ?, ?, 'ok', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	int i = store_bind_scenario(st, r->scenario, text, r->seed);
	sqlite3_bind_text(st, i++, r->model, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, r->gpu, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, r->cluster, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, r->plan, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, i++, r->gpus);
	const double d[] = {r->step_s,		r->tokens_per_step, r->tokens_per_s,
			    r->model_flops,	r->hardware_flops,  r->peak_flops,
			    r->mfu,		r->hfu,		    r->tflops_per_gpu,
			    r->bubble_fraction, r->mem_capacity_bytes, r->mem_peak_bytes};
	for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
		sqlite3_bind_double(st, i++, d[k]);
	sqlite3_bind_int(st, i++, r->oom);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)r->tasks);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)r->events);
	if (sweep_id > 0)
		sqlite3_bind_int64(st, i++, sweep_id);
	else
		sqlite3_bind_null(st, i++);
	const double o[] = {r->host_bytes, r->host_capacity_bytes, r->nvme_bytes,
			    r->nvme_capacity_bytes};
	for (size_t k = 0; k < sizeof o / sizeof o[0]; k++)
		sqlite3_bind_double(st, i++, o[k]);
	if (rank > 0)
		sqlite3_bind_int64(st, i++, rank);
	else
		sqlite3_bind_null(st, i++);
	sqlite3_bind_double(st, i++, r->band_lo_s); /* NaN binds as NULL */
	sqlite3_bind_double(st, i++, r->band_hi_s);
	if (r->band_from[0])
		sqlite3_bind_text(st, i++, r->band_from, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i++);
	sqlite3_bind_int(st, i++, r->implausible);
	if (r->implausible)
		sqlite3_bind_text(st, i++, r->implausible_why, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i++);
	i = bind_spread(st, i, &r->spread);
	if (r->layout[0])
		sqlite3_bind_text(st, i, r->layout, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
	int rc = store_step_done(s, st, diag, "cannot store run");
	sqlite3_finalize(st);
	return rc;
}

static int put_class(store *s, sqlite3_stmt *cls, sqlite3_stmt *mem, int64_t id, int idx,
		     const exec_class *c, sim_diag *diag)
{
	int i = 1;
	sqlite3_bind_int64(cls, i++, id);
	sqlite3_bind_int(cls, i++, idx);
	sqlite3_bind_text(cls, i++, c->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(cls, i++, c->ranks);
	for (int k = 0; k < EXEC_CAT_COUNT; k++)
		sqlite3_bind_double(cls, i++, c->time_s[k]);
	sqlite3_bind_double(cls, i++, c->mem_total_bytes);
	sqlite3_bind_int(cls, i++, c->oom);
	sqlite3_bind_double(cls, i++, c->mem_logged_bytes);
	if (store_step_done(s, cls, diag, "cannot store rank class"))
		return SIM_EDB;
	for (int m = 0; m < PLAN_MEM_COUNT; m++) {
		sqlite3_bind_int64(mem, 1, id);
		sqlite3_bind_int(mem, 2, idx);
		sqlite3_bind_text(mem, 3, plan_mem_name((plan_mem)m), -1, SQLITE_STATIC);
		sqlite3_bind_double(mem, 4, c->mem_bytes[m]);
		if (store_step_done(s, mem, diag, "cannot store memory"))
			return SIM_EDB;
	}
	return SIM_OK;
}

static int put_link(store *s, sqlite3_stmt *st, int64_t id, int idx, const exec_link *l,
		    sim_diag *diag)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, idx);
	sqlite3_bind_text(st, 3, l->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, l->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, l->count);
	sqlite3_bind_double(st, 6, l->Bps);
	sqlite3_bind_double(st, 7, l->bytes);
	sqlite3_bind_double(st, 8, l->busy_s);
	sqlite3_bind_double(st, 9, l->util);
	sqlite3_bind_double(st, 10, l->saturated_s);
	sqlite3_bind_text(st, 11, l->traffic, -1, SQLITE_STATIC);
	return store_step_done(s, st, diag, "cannot store link");
}

static int put_detail(store *s, const exec_result *r, int64_t id, sim_diag *diag)
{
	sqlite3_stmt *cls = NULL, *mem = NULL, *lnk = NULL;
	int rc = store_prepare(s,
			 "INSERT INTO run_classes (run_id, idx, name, ranks, compute, optimizer,"
			 " tp, cp, ep, dp, pp, bubble, offload, other, mem_total_bytes, oom,"
			 " mem_logged_bytes)"
			 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 &cls, diag);
	if (rc == SIM_OK)
		rc = store_prepare(s,
			     "INSERT INTO run_memory (run_id, class_idx, category, bytes)"
			     " VALUES (?, ?, ?, ?)",
			     &mem, diag);
	if (rc == SIM_OK)
		rc = store_prepare(s,
			     "INSERT INTO run_links (run_id, idx, name, kind, count, capacity_Bps,"
			     " bytes, busy_s, util, saturated_s, traffic)"
			     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     &lnk, diag);
	for (int i = 0; rc == SIM_OK && i < r->nclasses; i++)
		rc = put_class(s, cls, mem, id, i, &r->classes[i], diag);
	for (int i = 0; rc == SIM_OK && i < r->nlinks; i++)
		rc = put_link(s, lnk, id, i, &r->links[i], diag);
	sqlite3_finalize(cls);
	sqlite3_finalize(mem);
	sqlite3_finalize(lnk);
	return rc;
}

int store_run_rows(store *s, int64_t sweep_id, int64_t sweep_rank, const char *scenario_text,
		   const exec_result *r, int64_t *id, sim_diag *diag)
{
	int rc = put_head(s, scenario_text ? scenario_text : "", r, sweep_id, sweep_rank, diag);
	*id = sqlite3_last_insert_rowid(s->db);
	if (rc == SIM_OK)
		rc = put_detail(s, r, *id, diag);
	return rc == SIM_OK ? store_put_mixed(s, *id, r, diag) : rc;
}

int store_put_run(store *s, const char *scenario_text, const exec_result *r, int64_t *run_id,
		  sim_diag *diag)
{
	return store_put_sweep_run(s, 0, 0, scenario_text, r, run_id, diag);
}

int store_put_sweep_run(store *s, int64_t sweep_id, int64_t sweep_rank, const char *scenario_text,
			const exec_result *r, int64_t *run_id, sim_diag *diag)
{
	*run_id = 0;
	if (r->nclasses < 0 || r->nclasses > EXEC_MAX_CLASSES || r->nlinks < 0 ||
	    r->nlinks > EXEC_MAX_LINKS)
		return SIM_EINVAL;
	int rc = store_exec_sql(s, "BEGIN IMMEDIATE", diag, "cannot lock the database");
	int64_t id = 0;
	if (rc == SIM_OK)
		rc = store_run_rows(s, sweep_id, sweep_rank, scenario_text, r, &id, diag);
	if (rc == SIM_OK)
		rc = store_exec_sql(s, "COMMIT", diag, "cannot store run");
	if (rc != SIM_OK) {
		store_rollback(s);
		return rc;
	}
	*run_id = id;
	return SIM_OK;
}

/* -------------------------------------------------------------- read ---- */

static int get_head(store *s, int64_t id, exec_result *r, char **text, sim_diag *diag)
{
	static const char sql[] =
		"SELECT scenario_name, model, gpu, cluster, plan, seed, gpus, step_time_s,"
		" tokens_per_step, tokens_per_s, model_flops, hardware_flops, peak_flops, mfu,"
		" hfu, tflops_per_gpu, bubble_fraction, mem_capacity_bytes, mem_peak_bytes,"
		" oom, tasks, events, scenario_text, host_bytes, host_capacity_bytes,"
		" nvme_bytes, nvme_capacity_bytes, step_band_lo_s, step_band_hi_s, band_from,"
		" implausible, implausible_reason, step_p05_s, step_p10_s, step_p50_s, step_p90_s,"
		" step_p95_s, step_p95_lo_s, step_p95_hi_s, spread_samples, spread_seed,"
		" spread_correlation, spread_varying, layout FROM runs WHERE id = ?";
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		int err = rc == SQLITE_DONE ? SIM_ENOTFOUND : db_error(s, diag, "cannot read run");
		sqlite3_finalize(st);
		return err;
	}
	col_text(st, 0, r->scenario, sizeof r->scenario);
	col_text(st, 1, r->model, sizeof r->model);
	col_text(st, 2, r->gpu, sizeof r->gpu);
	col_text(st, 3, r->cluster, sizeof r->cluster);
	col_text(st, 4, r->plan, sizeof r->plan);
	r->seed = (uint64_t)sqlite3_column_int64(st, 5);
	r->gpus = sqlite3_column_int(st, 6);
	double *d[] = {&r->step_s,	    &r->tokens_per_step,    &r->tokens_per_s,
		       &r->model_flops,	    &r->hardware_flops,	    &r->peak_flops,
		       &r->mfu,		    &r->hfu,		    &r->tflops_per_gpu,
		       &r->bubble_fraction, &r->mem_capacity_bytes, &r->mem_peak_bytes};
	for (int k = 0; k < (int)(sizeof d / sizeof d[0]); k++)
		*d[k] = store_col_double(st, 7 + k);
	r->oom = sqlite3_column_int(st, 19) != 0;
	r->tasks = (uint64_t)sqlite3_column_int64(st, 20);
	r->events = (uint64_t)sqlite3_column_int64(st, 21);
	double *o[] = {&r->host_bytes, &r->host_capacity_bytes, &r->nvme_bytes,
		       &r->nvme_capacity_bytes};
	for (int k = 0; k < 4; k++)
		*o[k] = store_col_double(st, 23 + k);
	r->band_lo_s = store_col_double(st, 27);
	r->band_hi_s = store_col_double(st, 28);
	col_text(st, 29, r->band_from, sizeof r->band_from);
	r->implausible = sqlite3_column_int(st, 30) != 0;
	col_text(st, 31, r->implausible_why, sizeof r->implausible_why);
	col_spread(st, 32, &r->spread);
	col_text(st, 43, r->layout, sizeof r->layout);
	int err = SIM_OK;
	if (text) {
		const char *t = (const char *)sqlite3_column_text(st, 22);
		size_t n = t ? strlen(t) + 1 : 1;
		*text = malloc(n);
		if (*text)
			memcpy(*text, t ? t : "", n);
		else
			err = SIM_ENOMEM;
	}
	sqlite3_finalize(st);
	return err;
}

/* Rows whose idx does not fit exec_result mean a damaged database. */
static int bad_row(store *s, sim_diag *diag, const char *table)
{
	sim_diag_error(diag, s->path, 0, "damaged database: bad index in %s", table);
	return SIM_EDB;
}

static int get_classes(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
		    "SELECT idx, name, ranks, compute, optimizer, tp, cp, ep, dp, pp, bubble,"
		    " offload, other, mem_total_bytes, oom, mem_logged_bytes FROM run_classes"
		    " WHERE run_id = ?"
		    " ORDER BY idx",
		    &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc = SQLITE_DONE, err = SIM_OK;
	while (err == SIM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 0);
		if (i != r->nclasses || i >= EXEC_MAX_CLASSES) {
			err = bad_row(s, diag, "run_classes");
			break;
		}
		exec_class *c = &r->classes[r->nclasses++];
		col_text(st, 1, c->name, sizeof c->name);
		c->ranks = sqlite3_column_int(st, 2);
		for (int k = 0; k < EXEC_CAT_COUNT; k++)
			c->time_s[k] = store_col_double(st, 3 + k);
		c->mem_total_bytes = store_col_double(st, 13);
		c->oom = sqlite3_column_int(st, 14) != 0;
		c->mem_logged_bytes = store_col_double(st, 15); /* NaN before schema 12 */
	}
	if (err == SIM_OK && rc != SQLITE_DONE)
		err = db_error(s, diag, "cannot read rank classes");
	sqlite3_finalize(st);
	return err;
}

static int mem_index(const char *name)
{
	for (int m = 0; m < PLAN_MEM_COUNT; m++)
		if (!strcmp(name, plan_mem_name((plan_mem)m)))
			return m;
	return -1;
}

static int get_memory(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT class_idx, category, bytes FROM run_memory WHERE run_id = ?", &st,
		    diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc = SQLITE_DONE, err = SIM_OK;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 0);
		const char *cat = (const char *)sqlite3_column_text(st, 1);
		int m = cat ? mem_index(cat) : -1;
		if (i < 0 || i >= r->nclasses || m < 0) {
			err = bad_row(s, diag, "run_memory");
			break;
		}
		r->classes[i].mem_bytes[m] = store_col_double(st, 2);
	}
	if (err == SIM_OK && rc != SQLITE_DONE)
		err = db_error(s, diag, "cannot read memory");
	sqlite3_finalize(st);
	return err;
}

static int get_links(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
		    "SELECT idx, name, kind, count, capacity_Bps, bytes, busy_s, util,"
		    " saturated_s, traffic FROM run_links WHERE run_id = ? ORDER BY idx",
		    &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc = SQLITE_DONE, err = SIM_OK;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 0);
		if (i != r->nlinks || i >= EXEC_MAX_LINKS) {
			err = bad_row(s, diag, "run_links");
			break;
		}
		exec_link *l = &r->links[r->nlinks++];
		col_text(st, 1, l->name, sizeof l->name);
		col_text(st, 2, l->kind, sizeof l->kind);
		l->count = sqlite3_column_int(st, 3);
		l->Bps = store_col_double(st, 4);
		l->bytes = store_col_double(st, 5);
		l->busy_s = store_col_double(st, 6);
		l->util = store_col_double(st, 7);
		l->saturated_s = store_col_double(st, 8);
		col_text(st, 9, l->traffic, sizeof l->traffic);
	}
	if (err == SIM_OK && rc != SQLITE_DONE)
		err = db_error(s, diag, "cannot read links");
	sqlite3_finalize(st);
	return err;
}

int store_get_run(store *s, int64_t run_id, exec_result *r, char **text, sim_diag *diag)
{
	memset(r, 0, sizeof *r);
	if (text)
		*text = NULL;
	/* One read transaction: a consistent snapshot even while others write. */
	int rc = store_exec_sql(s, "BEGIN", diag, "cannot read the database");
	if (rc == SIM_OK)
		rc = get_head(s, run_id, r, text, diag);
	if (rc == SIM_OK)
		rc = get_classes(s, run_id, r, diag);
	if (rc == SIM_OK)
		rc = get_memory(s, run_id, r, diag);
	if (rc == SIM_OK)
		rc = get_links(s, run_id, r, diag);
	if (rc == SIM_OK)
		rc = store_get_mixed(s, run_id, r, diag);
	store_rollback(s); /* read-only: ending it either way is the same */
	if (rc != SIM_OK && text) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* -------------------------------------------------------------- list ---- */

/* "lo-hi" with three significant digits of hi (report_range_text's rule;
 * store is not below report), or "-". */
static void band_cell(double lo, double hi, char *buf, size_t len)
{
	if (!(isfinite(lo) && isfinite(hi) && hi > 0)) {
		snprintf(buf, len, "-");
		return;
	}
	int dec = 2 - (int)floor(log10(hi));
	dec = dec < 0 ? 0 : dec > 9 ? 9 : dec;
	snprintf(buf, len, "%.*f-%.*f", dec, lo, dec, hi);
}

/* An integer column, or "-" when NULL. */
static void int_cell(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)sqlite3_column_int64(st, i));
}

static void list_row(FILE *out, sqlite3_stmt *st, int wid, int wname)
{
	const char *created = (const char *)sqlite3_column_text(st, 1);
	const char *name = (const char *)sqlite3_column_text(st, 2);
	const char *plan = (const char *)sqlite3_column_text(st, 11);
	char band[48], sweep[24], rank[24], mfu[16];
	band_cell(store_col_double(st, 7), store_col_double(st, 8), band, sizeof band);
	int_cell(st, 9, sweep, sizeof sweep);
	int_cell(st, 10, rank, sizeof rank);
	snprintf(mfu, sizeof mfu, "%.1f%%%s", 100.0 * store_col_double(st, 5),
		 sqlite3_column_int(st, 12) ? "!" : "");
	/* the run's verdict (exec_mem_verdict) as stored since version 10;
	 * before, out of memory as stored, else tight when the most loaded
	 * class's device total leaves under 10 % of the capacity
	 * (plan_mem_verdict), with "?" after tight or fits on a mixed cluster
	 * (other_gpu's figures were not kept: it could be worse) */
	const char *v = (const char *)sqlite3_column_text(st, 15);
	char mem[16];
	if (v)
		snprintf(mem, sizeof mem, "%s",
			 !strcmp(v, plan_verdict_name(PLAN_VERDICT_OOM)) ? "OOM" : v);
	else
		snprintf(mem, sizeof mem, "%s%s",
			 sqlite3_column_int(st, 6) ? "OOM"
			 : store_col_double(st, 13) > (1.0 - PLAN_TIGHT_HEADROOM) * store_col_double(st, 14)
				 ? "tight"
				 : "fits",
			 !sqlite3_column_int(st, 6) &&
				 store_names_other_gpu((const char *)sqlite3_column_text(st, 16))
			     ? "?"
			     : "");
	fprintf(out, "%*lld  %-20s  %-*s  %6d  %12.6f  %-13s  %7s  %-6s  %5s  %5s  %s\n", wid,
		(long long)sqlite3_column_int64(st, 0), created ? created : "", wname,
		name ? name : "", sqlite3_column_int(st, 3), store_col_double(st, 4), band, mfu,
		mem, sweep, rank, plan ? plan : "");
}

int store_list_runs(store *s, FILE *out, int limit, sim_diag *diag)
{
	static const char widths[] =
		"SELECT max(length(id)), max(length(scenario_name)) FROM"
		" (SELECT id, scenario_name FROM runs ORDER BY id DESC LIMIT ?)";
	static const char rows[] =
		"SELECT id, created_utc, scenario_name, gpus, step_time_s, mfu, oom,"
		" step_band_lo_s, step_band_hi_s, sweep_id, sweep_rank, plan, implausible,"
		" mem_peak_bytes, mem_capacity_bytes, mem_verdict,"
		" CASE WHEN mem_verdict IS NULL THEN scenario_text END"
		" FROM runs ORDER BY id DESC LIMIT ?";
	sqlite3_stmt *st;
	int err = store_exec_sql(s, "BEGIN", diag, "cannot read the database");
	if (err == SIM_OK)
		err = store_prepare(s, widths, &st, diag);
	if (err != SIM_OK) {
		store_rollback(s);
		return err;
	}
	sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
	int wid = 2, wname = 8;
	if (sqlite3_step(st) == SQLITE_ROW) {
		wid = sqlite3_column_int(st, 0) > wid ? sqlite3_column_int(st, 0) : wid;
		wname = sqlite3_column_int(st, 1) > wname ? sqlite3_column_int(st, 1) : wname;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, rows, &st, diag)) {
		store_rollback(s);
		return SIM_EDB;
	}
	sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
	fprintf(out, "%*s  %-20s  %-*s  %6s  %12s  %-13s  %7s  %-6s  %5s  %5s  %s\n", wid, "id",
		"created (UTC)", wname, "scenario", "gpus", "step (s)", "likely (s)", "MFU", "memory",
		"sweep", "rank", "plan");
	int rc = SQLITE_DONE, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		list_row(out, st, wid, wname);
		n++;
	}
	err = rc == SQLITE_DONE ? SIM_OK : db_error(s, diag, "cannot list runs");
	if (err == SIM_OK && n == 0)
		fprintf(out, "(no runs in %s)\n", s->path);
	sqlite3_finalize(st);
	store_rollback(s);
	return err;
}

/* ------------------------------------------------------------ digest ---- */

static void put_u64(sim_buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	sim_buf_append(b, (const char *)le, 8);
}

/* Serialise one column as a type tag and its value, little-endian. */
static void put_value(sim_buf *b, sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i);
	char tag = (char)('0' + type);
	sim_buf_append(b, &tag, 1);
	if (type == SQLITE_INTEGER) {
		put_u64(b, (uint64_t)sqlite3_column_int64(st, i));
	} else if (type == SQLITE_FLOAT) {
		double d = sqlite3_column_double(st, i);
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		put_u64(b, bits);
	} else if (type != SQLITE_NULL) {
		const char *p = sqlite3_column_blob(st, i);
		size_t n = (size_t)sqlite3_column_bytes(st, i);
		put_u64(b, n);
		if (n)
			sim_buf_append(b, p, n);
	}
}

/* Columns left out of the digest: row ids and the wall-clock timestamp. */
static bool digest_skips(const char *col)
{
	return !strcmp(col, "id") || !strcmp(col, "run_id") || !strcmp(col, "created_utc") ||
	       !strcmp(col, "sweep_id") || !strcmp(col, "campaign_id");
}

/* Fold every row of one query into *h: h = FNV(h || row). Column names are
 * hashed too, so a schema change changes the digest. */
static int digest_table(store *s, const char *sql, uint64_t *h, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	sim_buf b;
	sim_buf_init(&b);
	int rc = SQLITE_DONE, ncol = sqlite3_column_count(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b.len = 0;
		put_u64(&b, *h);
		for (int i = 0; i < ncol; i++) {
			const char *name = sqlite3_column_name(st, i);
			if (digest_skips(name))
				continue;
			sim_buf_append(&b, name, strlen(name) + 1);
			put_value(&b, st, i);
		}
		if (b.oom)
			break;
		*h = sim_hash64(b.data, b.len);
	}
	int err = b.oom ? SIM_ENOMEM : rc == SQLITE_DONE ? SIM_OK : db_error(s, diag, "cannot read");
	sim_buf_free(&b);
	sqlite3_finalize(st);
	return err;
}

int store_digest(store *s, uint64_t *out, sim_diag *diag)
{
	/* Rows in run order, then by position within the run: independent of the
	 * ids themselves, so two databases with the same runs agree. */
	static const char *const tables[] = {
		"SELECT * FROM runs ORDER BY id",
		"SELECT * FROM run_classes ORDER BY run_id, idx",
		"SELECT * FROM run_memory ORDER BY run_id, class_idx, category",
		"SELECT * FROM run_links ORDER BY run_id, idx",
		"SELECT * FROM sweeps ORDER BY id",
		"SELECT * FROM campaigns ORDER BY id",
		"SELECT * FROM campaign_causes ORDER BY campaign_id, idx",
		"SELECT * FROM serve_runs ORDER BY id",
		"SELECT * FROM serve_latency ORDER BY run_id, metric",
	};
	uint64_t h = sim_hash64("podsim-store", 12);
	int rc = store_exec_sql(s, "BEGIN", diag, "cannot read the database");
	for (size_t i = 0; rc == SIM_OK && i < sizeof tables / sizeof tables[0]; i++)
		rc = digest_table(s, tables[i], &h, diag);
	store_rollback(s);
	*out = h;
	return rc;
}

/* ------------------------------------------------------------- sweeps ---- */

int store_put_sweep(store *s, const char *spec, const store_sweep_counts *n, int64_t *sweep_id,
		    sim_diag *diag)
{
	static const char sql[] = "INSERT INTO sweeps (created_utc, podsim_version, spec, plans,"
				  " valid, fitting, simulated, shard) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	*sweep_id = 0;
	char created[32];
	store_utc_now(created);
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	sqlite3_bind_text(st, 1, created, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, PODSIM_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, spec ? spec : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, n->plans);
	sqlite3_bind_int64(st, 5, n->valid);
	sqlite3_bind_int64(st, 6, n->fitting);
	sqlite3_bind_int64(st, 7, n->simulated);
	char shard[32];
	snprintf(shard, sizeof shard, "%d/%d", n->shard, n->nshards);
	if (n->nshards > 0)
		sqlite3_bind_text(st, 8, shard, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 8);
	int rc = store_step_done(s, st, diag, "cannot store sweep");
	sqlite3_finalize(st);
	if (rc == SIM_OK)
		*sweep_id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int store_sweep_runs(store *s, int64_t sweep_id, int64_t *ids, size_t cap, size_t *n,
		     sim_diag *diag)
{
	sqlite3_stmt *st;
	*n = 0;
	if (store_prepare(s, "SELECT id FROM runs WHERE sweep_id = ? ORDER BY step_time_s, id", &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, sweep_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n < cap)
			ids[*n] = sqlite3_column_int64(st, 0);
		(*n)++;
	}
	int err = rc == SQLITE_DONE ? SIM_OK : db_error(s, diag, "cannot read sweep runs");
	sqlite3_finalize(st);
	return err;
}

int store_set_sweep_simulated(store *s, int64_t sweep_id, int64_t simulated, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "UPDATE sweeps SET simulated = ? WHERE id = ?", &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, simulated);
	sqlite3_bind_int64(st, 2, sweep_id);
	int rc = store_step_done(s, st, diag, "cannot update sweep");
	sqlite3_finalize(st);
	return rc;
}
