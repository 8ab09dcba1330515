/* store_int.h - internals of the store module shared by store.c (open,
 * write, read, digest) and merge.c (store_merge). Other modules use
 * store.h. */
#ifndef PODSIM_STORE_INT_H
#define PODSIM_STORE_INT_H

#include "store.h"

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *path;
};

/* Helpers of store.c shared with campaign.c: SQL without values, ROLLBACK
 * if a transaction is open, a prepared statement, a step that returns no
 * rows (then reset for reuse). Errors go to diag as "path: error: what". */
int store_exec_sql(store *s, const char *sql, sim_diag *diag, const char *what);
void store_rollback(store *s);
int store_prepare(store *s, const char *sql, sqlite3_stmt **st, sim_diag *diag);
int store_step_done(store *s, sqlite3_stmt *st, sim_diag *diag, const char *what);
/* An error in diag ("path: error: what: SQLite's message"), then ROLLBACK
 * if a transaction is open; returns SIM_EDB. */
int store_fail(store *s, sim_diag *diag, const char *what);
/* A REAL column, NaN where it is NULL (a figure the run did not have). */
double store_col_double(sqlite3_stmt *st, int i);
/* The time now as the rows' created_utc ("2026-11-28T10:00:00Z"). */
void store_utc_now(char created[32]);
/* Bind the scenario columns every stored run starts with, parameters 1-6
 * of its INSERT: created_utc (now), podsim_version, scenario_name,
 * scenario_hash (of text), scenario_text, seed; returns the next index, 7.
 * name and text must outlive the statement's step. */
int store_bind_scenario(sqlite3_stmt *st, const char *name, const char *text, uint64_t seed);
/* A run's rows (runs, run_classes, run_memory, run_links) inside the
 * caller's transaction; *id = the new run's id. */
int store_run_rows(store *s, int64_t sweep_id, int64_t sweep_rank, const char *scenario_text,
		   const exec_result *r, int64_t *id, sim_diag *diag);

/* Migration 7 -> 8: the campaign tables (campaign.c's columns). */
#define STORE_CAMPAIGN_DDL                                                                   \
	"CREATE TABLE campaigns ("                                                           \
	" id INTEGER PRIMARY KEY,"                                                           \
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                    \
	" created_utc TEXT NOT NULL,"                                                        \
	" reliability TEXT, checkpoint_mode TEXT, interval_auto INTEGER,"                    \
	" gpus INTEGER, nodes INTEGER, nics INTEGER, spares INTEGER, warmup_steps INTEGER,"  \
	" draws INTEGER, seed INTEGER,"                                                      \
	" steps REAL, step_time_s REAL, tokens REAL, failure_rate_per_h REAL,"               \
	" checkpoint_bytes REAL, write_s REAL, read_s REAL, checkpoint_stop_s REAL,"         \
	" checkpoint_persist_s REAL, interval_steps REAL, restart_s REAL, requeue_s REAL,"   \
	" start_s REAL, spare_swap_s REAL, repair_s REAL, ideal_days REAL,"                  \
	" expected_days REAL, days_p10 REAL, days_p50 REAL, days_p90 REAL, days_mean REAL,"  \
	" interruptions_p10 REAL, interruptions_p50 REAL, interruptions_p90 REAL,"           \
	" interruptions_mean REAL, goodput_p10 REAL, goodput_p50 REAL, goodput_p90 REAL,"    \
	" goodput_mean REAL, checkpoint_h_mean REAL, restart_h_mean REAL,"                   \
	" recomputed_h_mean REAL, energy_mwh_mean REAL, cost_musd_mean REAL,"                \
	" tco2_mean REAL, spares_used REAL);"                                                \
	"CREATE INDEX campaigns_run ON campaigns(run_id);"                                   \
	"CREATE TABLE campaign_causes ("                                                     \
	" campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"          \
	" idx INTEGER NOT NULL, name TEXT NOT NULL, category TEXT, per TEXT,"                \
	" replaces_node INTEGER, interruptions_ref REAL, units REAL, rate_per_h REAL,"       \
	" interruptions_mean REAL,"                                                         \
	" PRIMARY KEY (campaign_id, idx));"

/* Schema version 10 (mixed.c): the plan-wide memory verdict and its
 * basis, and other_gpu's figures, written after the run's rows
 * (store_put_mixed) and read after its classes (store_get_mixed). */
int store_put_mixed(store *s, int64_t id, const exec_result *r, sim_diag *diag);
int store_get_mixed(store *s, int64_t id, exec_result *r, sim_diag *diag);
/* Does a stored scenario text set [cluster] other_gpu? (Asked of rows
 * stored before version 10, which kept no other_gpu figures.) */
bool store_names_other_gpu(const char *text);

/* Migration 9 -> 10: mixed.c's columns. */
#define STORE_MIXED_DDL                                                                      \
	"ALTER TABLE runs ADD COLUMN mem_verdict TEXT;"                                      \
	"ALTER TABLE runs ADD COLUMN mem_basis TEXT;"                                        \
	"ALTER TABLE runs ADD COLUMN mixed_nodes INTEGER;"                                   \
	"ALTER TABLE runs ADD COLUMN mixed_cluster_nodes INTEGER;"                           \
	"ALTER TABLE runs ADD COLUMN mixed_gpu TEXT;"                                        \
	"ALTER TABLE runs ADD COLUMN mixed_dp INTEGER;"                                      \
	"ALTER TABLE runs ADD COLUMN mixed_replicas INTEGER;"                                \
	"ALTER TABLE runs ADD COLUMN mixed_kinds INTEGER;"                                   \
	"ALTER TABLE runs ADD COLUMN mixed_base_s REAL;"                                     \
	"ALTER TABLE runs ADD COLUMN mixed_step_s REAL;"                                     \
	"ALTER TABLE runs ADD COLUMN mixed_replica INTEGER;"                                 \
	"ALTER TABLE runs ADD COLUMN mixed_stage INTEGER;"                                   \
	"ALTER TABLE runs ADD COLUMN mixed_stage_s REAL;"                                    \
	"ALTER TABLE runs ADD COLUMN mixed_stage_base_s REAL;"                               \
	"ALTER TABLE runs ADD COLUMN mixed_mem_capacity_bytes REAL;"                         \
	"ALTER TABLE runs ADD COLUMN mixed_mem_peak_bytes REAL;"                             \
	"ALTER TABLE runs ADD COLUMN mixed_mem_needed_bytes REAL;"                           \
	"ALTER TABLE runs ADD COLUMN mixed_mem_stage INTEGER;"                               \
	"ALTER TABLE runs ADD COLUMN mixed_mem_verdict TEXT;"                                \
	"ALTER TABLE run_classes ADD COLUMN mem_other INTEGER;"                              \
	"ALTER TABLE run_classes ADD COLUMN mem_other_total_bytes REAL;"                     \
	"ALTER TABLE run_classes ADD COLUMN mem_other_needed_bytes REAL;"                    \
	"ALTER TABLE run_classes ADD COLUMN mem_other_verdict TEXT;"

/* Schema version 9's DDL: the serving tables (serve.c). */
extern const char store_serve_ddl[];

#endif
