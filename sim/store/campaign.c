/* campaign.c - storing a campaign (`podsim train`): the step as a run and
 * the campaign's rows (tables of schema 8, STORE_CAMPAIGN_DDL in
 * store_int.h), in one transaction. Columns are named beside their values
 * below, so the INSERT cannot go out of step with them. */
#include "store_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct col {
	const char *name;
	double v;
} col;

/* Real columns of a campaigns row. */
static size_t real_cols(const campaign_result *c, col *out)
{
	const campaign_input *in = &c->in;
	col x[] = {
		{"steps", in->steps},
		{"step_time_s", in->step_s},
		{"tokens", in->steps * in->tokens_per_step},
		{"failure_rate_per_h", 3600 * in->rate_s},
		{"checkpoint_bytes", in->ckpt_bytes},
		{"write_s", in->write_s},
		{"read_s", in->read_s},
		{"checkpoint_stop_s", in->block_s},
		{"checkpoint_persist_s", in->persist_s},
		{"interval_steps", in->interval_steps},
		{"restart_s", in->restart_s},
		{"requeue_s", in->requeue_s},
		{"start_s", in->start_s},
		{"spare_swap_s", in->spare_swap_s},
		{"repair_s", in->repair_s},
		{"ideal_days", c->ideal_days},
		{"expected_days", c->expected_days},
		{"days_p10", c->days.p10},
		{"days_p50", c->days.p50},
		{"days_p90", c->days.p90},
		{"days_mean", c->days.mean},
		{"interruptions_p10", c->interruptions.p10},
		{"interruptions_p50", c->interruptions.p50},
		{"interruptions_p90", c->interruptions.p90},
		{"interruptions_mean", c->interruptions.mean},
		{"goodput_p10", c->goodput.p10},
		{"goodput_p50", c->goodput.p50},
		{"goodput_p90", c->goodput.p90},
		{"goodput_mean", c->goodput.mean},
		{"checkpoint_h_mean", c->ckpt_h.mean},
		{"restart_h_mean", c->restart_h.mean},
		{"recomputed_h_mean", c->lost_h.mean},
		{"energy_mwh_mean", c->energy_mwh.mean},
		{"cost_musd_mean", c->cost_musd.mean},
		{"tco2_mean", c->tco2.mean},
		{"spares_used", c->spares_used},
	};
	memcpy(out, x, sizeof x);
	return sizeof x / sizeof x[0];
}

#define INT_COLS                                                                               \
	"run_id, created_utc, reliability, checkpoint_mode, interval_auto, gpus, nodes, nics, " \
	"spares, warmup_steps, draws, seed"
#define NINT 12

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static int put_campaign(store *s, int64_t run_id, const campaign_result *c, int64_t *id,
			sim_diag *diag)
{
	const campaign_input *in = &c->in;
	col rc_[64];
	size_t n = real_cols(c, rc_);
	char sql[4096];
	size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO campaigns (" INT_COLS);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s", rc_[i].name);
	len += (size_t)snprintf(sql + len, sizeof sql - len, ") VALUES (?");
	for (size_t i = 1; i < n + NINT; i++)
		len += (size_t)snprintf(sql + len, sizeof sql - len, ", ?");
	snprintf(sql + len, sizeof sql - len, ")");
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	char created[32];
	store_utc_now(created);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, created, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, in->reliability, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, in->async ? "async" : "sync", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, in->interval_auto);
	sqlite3_bind_int(st, 6, in->gpus);
	sqlite3_bind_int(st, 7, in->nodes);
	sqlite3_bind_int(st, 8, in->nics);
	sqlite3_bind_int(st, 9, in->spares);
	sqlite3_bind_int(st, 10, in->warmup_steps);
	sqlite3_bind_int(st, 11, in->draws);
	sqlite3_bind_int64(st, 12, (int64_t)in->seed);
	for (size_t i = 0; i < n; i++)
		bind_real(st, (int)(NINT + 1 + i), rc_[i].v);
	int rc = store_step_done(s, st, diag, "cannot store campaign");
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

static int put_causes(store *s, int64_t id, const campaign_result *c, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "INSERT INTO campaign_causes (campaign_id, idx, name, category, per, "
			  "replaces_node, interruptions_ref, units, rate_per_h, interruptions_mean) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			  &st, diag))
		return SIM_EDB;
	int rc = SIM_OK;
	for (int i = 0; rc == SIM_OK && i < c->in.ncauses; i++) {
		const campaign_cause *x = &c->in.cause[i];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_text(st, 3, x->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, x->category, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, x->per, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 6, x->replace);
		bind_real(st, 7, x->count);
		bind_real(st, 8, x->units);
		bind_real(st, 9, 3600 * x->rate_s);
		bind_real(st, 10, c->cause_mean[i]);
		rc = store_step_done(s, st, diag, "cannot store campaign cause");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_put_campaign(store *s, const char *scenario_text, const exec_result *r,
		       const campaign_result *c, int64_t *run_id, int64_t *campaign_id,
		       sim_diag *diag)
{
	*run_id = *campaign_id = 0;
	if (r->nclasses < 0 || r->nclasses > EXEC_MAX_CLASSES || r->nlinks < 0 ||
	    r->nlinks > EXEC_MAX_LINKS || c->in.ncauses < 0 || c->in.ncauses > CAMPAIGN_MAX_CAUSES)
		return SIM_EINVAL;
	int64_t rid = 0, cid = 0;
	int rc = store_exec_sql(s, "BEGIN IMMEDIATE", diag, "cannot lock the database");
	if (rc == SIM_OK)
		rc = store_run_rows(s, 0, 0, scenario_text, r, &rid, diag);
	if (rc == SIM_OK)
		rc = put_campaign(s, rid, c, &cid, diag);
	if (rc == SIM_OK)
		rc = put_causes(s, cid, c, diag);
	if (rc == SIM_OK)
		rc = store_exec_sql(s, "COMMIT", diag, "cannot store campaign");
	if (rc != SIM_OK) {
		store_rollback(s);
		return rc;
	}
	*run_id = rid;
	*campaign_id = cid;
	return SIM_OK;
}
