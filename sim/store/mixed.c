/* mixed.c - what schema version 10 adds to a stored run: the plan-wide
 * memory verdict with its basis, and the figures of a cluster with nodes of
 * another GPU type ([cluster] other_gpu: exec_mixed, and per rank class its
 * mem_other* fields), so that `runs show`, the runs list and `runs merge`
 * give the verdict, basis and figures of the live run. Called by store.c
 * inside the transaction that writes or reads the run's other rows.
 *
 * Columns (migration 9 -> 10, STORE_MIXED_DDL):
 *   runs.mem_verdict, mem_basis   exec_mem_verdict ("fits", "tight", "out
 *     of memory") and exec_mem_basis_of ("gpu", "other_gpu", "host",
 *     "nvme") at the time of the run: the list prints them without
 *     loading the classes; `runs show` recomputes both from the stored
 *     figures (the same functions, so the same answer).
 *   runs.mixed_*   exec_mixed field by field; mixed_nodes 0 without nodes
 *     of another type (the rest NULL), NULL in rows stored before.
 *   run_classes.mem_other, mem_other_total_bytes, mem_other_needed_bytes,
 *     mem_other_verdict   a class's figures on other_gpu (mem_other 0
 *     without a rank there, NULL in rows stored before).
 * A row stored before version 10 whose scenario text names other_gpu reads
 * back with exec_mixed.unstored set and nodes 0: the reports say that the
 * other GPU's figures were not kept.
 */
#include "store_int.h"

#include <string.h>

static const char *const basis_names[] = {"gpu", "other_gpu", "host", "nvme"};

static plan_verdict verdict_of(const unsigned char *t)
{
	for (int v = PLAN_VERDICT_FITS; v <= PLAN_VERDICT_OOM; v++)
		if (t && !strcmp((const char *)t, plan_verdict_name((plan_verdict)v)))
			return (plan_verdict)v;
	return PLAN_VERDICT_FITS;
}

/* A line "other_gpu = X", X not empty (the key is [cluster]'s alone). */
bool store_names_other_gpu(const char *text)
{
	const char *p = text;
	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "other_gpu", 9)) {
			const char *q = p + 9;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=') {
				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				if (*q && *q != '\n' && *q != ';' && *q != '#')
					return true;
			}
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static int put_head(store *s, int64_t id, const exec_result *r, sim_diag *diag)
{
	static const char sql[] =
		"UPDATE runs SET mem_verdict = ?, mem_basis = ?, mixed_nodes = ?,"
		" mixed_cluster_nodes = ?, mixed_gpu = ?, mixed_dp = ?, mixed_replicas = ?,"
		" mixed_kinds = ?, mixed_base_s = ?, mixed_step_s = ?, mixed_replica = ?,"
		" mixed_stage = ?, mixed_stage_s = ?, mixed_stage_base_s = ?,"
		" mixed_mem_capacity_bytes = ?, mixed_mem_peak_bytes = ?,"
		" mixed_mem_needed_bytes = ?, mixed_mem_stage = ?, mixed_mem_verdict = ?"
		" WHERE id = ?";
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	const exec_mixed *m = &r->mixed;
	bool on = m->nodes > 0;
	sqlite3_bind_text(st, 1, plan_verdict_name(exec_mem_verdict(r)), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, basis_names[exec_mem_basis_of(r)], -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, on ? m->nodes : 0);
	if (on) { /* else NULLs */
		sqlite3_bind_int(st, 4, m->cluster_nodes);
		sqlite3_bind_text(st, 5, m->gpu, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, m->dp);
		sqlite3_bind_int(st, 7, m->replicas);
		sqlite3_bind_int(st, 8, m->kinds);
		sqlite3_bind_double(st, 9, m->base_s);
		sqlite3_bind_double(st, 10, m->step_s);
		sqlite3_bind_int(st, 11, m->replica);
		sqlite3_bind_int(st, 12, m->stage);
		const double d[] = {m->stage_s, m->stage_base_s, m->mem_capacity_bytes,
				    m->mem_peak_bytes, m->mem_needed_bytes};
		for (int k = 0; k < 5; k++)
			sqlite3_bind_double(st, 13 + k, d[k]);
		sqlite3_bind_int(st, 18, m->mem_stage);
		sqlite3_bind_text(st, 19, plan_verdict_name(m->mem_verdict), -1, SQLITE_STATIC);
	}
	sqlite3_bind_int64(st, 20, id);
	int rc = store_step_done(s, st, diag, "cannot store the memory verdict");
	sqlite3_finalize(st);
	return rc;
}

static int put_classes(store *s, int64_t id, const exec_result *r, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "UPDATE run_classes SET mem_other = ?, mem_other_total_bytes = ?,"
			  " mem_other_needed_bytes = ?, mem_other_verdict = ?"
			  " WHERE run_id = ? AND idx = ?",
			  &st, diag))
		return SIM_EDB;
	int rc = SIM_OK;
	for (int i = 0; rc == SIM_OK && i < r->nclasses; i++) {
		const exec_class *c = &r->classes[i];
		sqlite3_bind_int(st, 1, c->mem_other);
		if (c->mem_other) {
			sqlite3_bind_double(st, 2, c->mem_other_total_bytes);
			sqlite3_bind_double(st, 3, c->mem_other_needed_bytes);
			sqlite3_bind_text(st, 4, plan_verdict_name(c->mem_other_verdict), -1,
					  SQLITE_STATIC);
		}
		sqlite3_bind_int64(st, 5, id);
		sqlite3_bind_int(st, 6, i);
		rc = store_step_done(s, st, diag, "cannot store a class's other_gpu figures");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_put_mixed(store *s, int64_t id, const exec_result *r, sim_diag *diag)
{
	int rc = put_head(s, id, r, diag);
	return rc == SIM_OK ? put_classes(s, id, r, diag) : rc;
}

static int get_head(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	static const char sql[] =
		"SELECT mixed_nodes, mixed_cluster_nodes, mixed_gpu, mixed_dp, mixed_replicas,"
		" mixed_kinds, mixed_base_s, mixed_step_s, mixed_replica, mixed_stage,"
		" mixed_stage_s, mixed_stage_base_s, mixed_mem_capacity_bytes,"
		" mixed_mem_peak_bytes, mixed_mem_needed_bytes, mixed_mem_stage,"
		" mixed_mem_verdict, scenario_text FROM runs WHERE id = ?";
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	exec_mixed *m = &r->mixed;
	memset(m, 0, sizeof *m);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL) {
		m->unstored = store_names_other_gpu((const char *)sqlite3_column_text(st, 17));
	} else if (rc == SQLITE_ROW && sqlite3_column_int(st, 0) > 0) {
		m->nodes = sqlite3_column_int(st, 0);
		m->cluster_nodes = sqlite3_column_int(st, 1);
		const unsigned char *g = sqlite3_column_text(st, 2);
		snprintf(m->gpu, sizeof m->gpu, "%s", g ? (const char *)g : "");
		m->dp = sqlite3_column_int(st, 3);
		m->replicas = sqlite3_column_int(st, 4);
		m->kinds = sqlite3_column_int(st, 5);
		m->base_s = store_col_double(st, 6);
		m->step_s = store_col_double(st, 7);
		m->replica = sqlite3_column_int(st, 8);
		m->stage = sqlite3_column_int(st, 9);
		m->stage_s = store_col_double(st, 10);
		m->stage_base_s = store_col_double(st, 11);
		m->mem_capacity_bytes = store_col_double(st, 12);
		m->mem_peak_bytes = store_col_double(st, 13);
		m->mem_needed_bytes = store_col_double(st, 14);
		m->mem_stage = sqlite3_column_int(st, 15);
		m->mem_verdict = verdict_of(sqlite3_column_text(st, 16));
	}
	int err = rc == SQLITE_ROW ? SIM_OK
		  : rc == SQLITE_DONE ? SIM_ENOTFOUND
				      : store_fail(s, diag, "cannot read the run's other_gpu figures");
	sqlite3_finalize(st);
	return err;
}

static int get_classes(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT idx, mem_other, mem_other_total_bytes, mem_other_needed_bytes,"
			  " mem_other_verdict FROM run_classes WHERE run_id = ? ORDER BY idx",
			  &st, diag))
		return SIM_EDB;
	sqlite3_bind_int64(st, 1, id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 0);
		if (i < 0 || i >= r->nclasses || !sqlite3_column_int(st, 1))
			continue; /* get_classes in store.c has checked the indices */
		exec_class *c = &r->classes[i];
		c->mem_other = true;
		c->mem_other_total_bytes = store_col_double(st, 2);
		c->mem_other_needed_bytes = store_col_double(st, 3);
		c->mem_other_verdict = verdict_of(sqlite3_column_text(st, 4));
	}
	int err = rc == SQLITE_DONE ? SIM_OK
				    : store_fail(s, diag, "cannot read the classes' other_gpu figures");
	sqlite3_finalize(st);
	return err;
}

int store_get_mixed(store *s, int64_t id, exec_result *r, sim_diag *diag)
{
	int rc = get_head(s, id, r, diag);
	return rc == SIM_OK ? get_classes(s, id, r, diag) : rc;
}
