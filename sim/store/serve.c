/* serve.c - serving runs in the run database (store.h store_put_serve):
 * the tables of schema version 9, self-contained (one migration that only
 * creates them), so training runs and their digest are untouched.
 *
 *   serve_runs     one row per `podsim serve` run: identity, the resolved
 *                  scenario text and its hash, seed, plan, the headline
 *                  throughput, goodput, scheduler and KV-cache figures.
 *   serve_latency  one row per (run, metric) for ttft, tpot and e2e: mean,
 *                  p50, p90, p99 and max in seconds.
 * Written in one transaction per run (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on
 * error), values bound to prepared statements.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char store_serve_ddl[] =
	"CREATE TABLE serve_runs ("
	" id INTEGER PRIMARY KEY,"
	" created_utc TEXT NOT NULL,"
	" podsim_version TEXT NOT NULL,"
	" scenario_name TEXT NOT NULL,"
	" scenario_hash TEXT NOT NULL,"
	" scenario_text TEXT NOT NULL,"
	" seed INTEGER NOT NULL,"
	" plan TEXT, model TEXT, gpu TEXT, gpus INTEGER,"
	" requests INTEGER, completed INTEGER, prompt_tokens INTEGER, output_tokens INTEGER,"
	" makespan_s REAL, requests_per_s REAL, output_tokens_per_s REAL,"
	" output_tokens_per_s_per_gpu REAL, goodput_requests_per_s REAL, slo_met REAL,"
	" slo_ttft_s REAL, slo_tpot_s REAL, iterations INTEGER, preemptions INTEGER,"
	" batch_mean REAL, queue_mean REAL, kv_mean REAL, kv_peak REAL, kv_blocks INTEGER,"
	" weights_bytes REAL, kv_bytes REAL);"
	"CREATE TABLE serve_latency ("
	" run_id INTEGER NOT NULL REFERENCES serve_runs(id),"
	" metric TEXT NOT NULL,"
	" mean_s REAL, p50_s REAL, p90_s REAL, p99_s REAL, max_s REAL,"
	" PRIMARY KEY (run_id, metric));";

static int put_head(store *s, const char *text, const store_serve_run *r, int64_t *id,
		    sim_diag *diag)
{
	static const char sql[] =
		"INSERT INTO serve_runs (created_utc, podsim_version, scenario_name, scenario_hash,"
		" scenario_text, seed, plan, model, gpu, gpus, requests, completed, prompt_tokens,"
		" output_tokens, makespan_s, requests_per_s, output_tokens_per_s,"
		" output_tokens_per_s_per_gpu, goodput_requests_per_s, slo_met, slo_ttft_s,"
		" slo_tpot_s, iterations, preemptions, batch_mean, queue_mean, kv_mean, kv_peak,"
		" kv_blocks, weights_bytes, kv_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot store the serving run");
	int i = store_bind_scenario(st, r->name, text, r->seed);
	sqlite3_bind_text(st, i++, r->plan, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, r->model, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, r->gpu, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, i++, r->gpus);
	const int64_t ints[] = {r->requests, r->completed, r->prompt_tokens, r->output_tokens};
	for (size_t k = 0; k < 4; k++)
		sqlite3_bind_int64(st, i++, ints[k]);
	const double reals[] = {r->makespan_s,  r->req_per_s,  r->out_tok_per_s,
				r->out_tok_per_s_gpu, r->goodput_req_per_s, r->slo_met,
				r->slo_ttft_s, r->slo_tpot_s};
	for (size_t k = 0; k < 8; k++)
		sqlite3_bind_double(st, i++, reals[k]);
	sqlite3_bind_int64(st, i++, r->iterations);
	sqlite3_bind_int64(st, i++, r->preemptions);
	const double occ[] = {r->batch_mean, r->queue_mean, r->kv_mean, r->kv_peak};
	for (size_t k = 0; k < 4; k++)
		sqlite3_bind_double(st, i++, occ[k]);
	sqlite3_bind_int64(st, i++, r->kv_blocks);
	sqlite3_bind_double(st, i++, r->weights_bytes);
	sqlite3_bind_double(st, i++, r->kv_bytes);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, diag, "cannot store the serving run");
	*id = sqlite3_last_insert_rowid(s->db);
	return SIM_OK;
}

int store_put_serve(store *s, const char *scenario_text, const store_serve_run *r, int64_t *id,
		    sim_diag *diag)
{
	*id = 0;
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot lock the database");
	int64_t rid = 0;
	if (put_head(s, scenario_text, r, &rid, diag) != SIM_OK)
		return SIM_EDB;
	static const char sql[] = "INSERT INTO serve_latency (run_id, metric, mean_s, p50_s, p90_s,"
				  " p99_s, max_s) VALUES (?, ?, ?, ?, ?, ?, ?)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot store the serving run");
	static const char *const names[3] = {"ttft", "tpot", "e2e"};
	for (int k = 0; k < 3; k++) {
		sqlite3_bind_int64(st, 1, rid);
		sqlite3_bind_text(st, 2, names[k], -1, SQLITE_STATIC);
		for (int j = 0; j < 5; j++)
			sqlite3_bind_double(st, 3 + j, r->latency[k][j]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return store_fail(s, diag, "cannot store the serving run");
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot store the serving run");
	*id = rid;
	return SIM_OK;
}

int store_list_serve(store *s, FILE *out, int limit, sim_diag *diag)
{
	static const char sql[] =
		"SELECT r.id, r.created_utc, r.scenario_name, r.gpus, r.requests_per_s,"
		" r.output_tokens_per_s_per_gpu, t.p90_s, p.p90_s, r.plan FROM serve_runs r"
		" LEFT JOIN serve_latency t ON t.run_id = r.id AND t.metric = 'ttft'"
		" LEFT JOIN serve_latency p ON p.run_id = r.id AND p.metric = 'tpot'"
		" ORDER BY r.id DESC LIMIT ?";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sim_diag_error(diag, s->path, 0, "cannot list serving runs: %s", sqlite3_errmsg(s->db));
		return SIM_EDB;
	}
	sqlite3_bind_int64(st, 1, limit > 0 ? limit : -1);
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++ == 0)
			fprintf(out, "\nserving runs\n%5s  %-20s  %-28s %5s %10s %12s %10s %10s  %s\n", "id",
				"created", "scenario", "GPUs", "req/s", "tok/s/GPU", "TTFT p90",
				"TPOT p90", "plan");
		const unsigned char *name = sqlite3_column_text(st, 2), *plan = sqlite3_column_text(st, 8);
		const unsigned char *when = sqlite3_column_text(st, 1);
		fprintf(out, "%5lld  %-20s  %-28.28s %5d %10.3f %12.1f %7.1f ms %7.2f ms  %s\n",
			(long long)sqlite3_column_int64(st, 0), when ? (const char *)when : "",
			name ? (const char *)name : "", sqlite3_column_int(st, 3),
			sqlite3_column_double(st, 4), sqlite3_column_double(st, 5),
			1e3 * sqlite3_column_double(st, 6), 1e3 * sqlite3_column_double(st, 7),
			plan ? (const char *)plan : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sim_diag_error(diag, s->path, 0, "cannot list serving runs: %s", sqlite3_errmsg(s->db));
		return SIM_EDB;
	}
	return SIM_OK;
}

/* Copy the four strings into one block *strings and point r at them. */
static int own_strings(sqlite3_stmt *st, store_serve_run *r, char **strings)
{
	const int cols[4] = {0, 1, 2, 3};
	size_t len[4], total = 0;
	for (int k = 0; k < 4; k++) {
		const unsigned char *t = sqlite3_column_text(st, cols[k]);
		len[k] = t ? strlen((const char *)t) : 0;
		total += len[k] + 1;
	}
	char *p = malloc(total);
	if (!p)
		return SIM_ENOMEM;
	*strings = p;
	const char **dst[4] = {&r->name, &r->plan, &r->model, &r->gpu};
	for (int k = 0; k < 4; k++) {
		const unsigned char *t = sqlite3_column_text(st, cols[k]);
		memcpy(p, t ? (const char *)t : "", len[k]);
		p[len[k]] = 0;
		*dst[k] = p;
		p += len[k] + 1;
	}
	return SIM_OK;
}

static int get_serve_head(store *s, int64_t id, store_serve_run *r, char **strings, char **text,
			  sim_diag *diag)
{
	static const char sql[] =
		"SELECT scenario_name, plan, model, gpu, scenario_text, seed, gpus, requests,"
		" completed, prompt_tokens, output_tokens, iterations, preemptions, kv_blocks,"
		" makespan_s, requests_per_s, output_tokens_per_s, output_tokens_per_s_per_gpu,"
		" goodput_requests_per_s, slo_met, slo_ttft_s, slo_tpot_s, batch_mean, queue_mean,"
		" kv_mean, kv_peak, weights_bytes, kv_bytes FROM serve_runs WHERE id = ?";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot read the serving run");
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st), rc = SIM_OK;
	if (step == SQLITE_DONE)
		rc = SIM_ENOTFOUND;
	else if (step != SQLITE_ROW)
		rc = store_fail(s, diag, "cannot read the serving run");
	if (rc == SIM_OK)
		rc = own_strings(st, r, strings);
	if (rc == SIM_OK) {
		const unsigned char *t = sqlite3_column_text(st, 4);
		size_t n = t ? strlen((const char *)t) + 1 : 1;
		*text = malloc(n);
		if (!*text)
			rc = SIM_ENOMEM;
		else
			memcpy(*text, t ? (const char *)t : "", n);
	}
	if (rc == SIM_OK) {
		r->seed = (uint64_t)sqlite3_column_int64(st, 5);
		r->gpus = sqlite3_column_int(st, 6);
		int64_t *ints[] = {&r->requests, &r->completed, &r->prompt_tokens,
				   &r->output_tokens, &r->iterations, &r->preemptions, &r->kv_blocks};
		for (int k = 0; k < 7; k++)
			*ints[k] = sqlite3_column_int64(st, 7 + k);
		double *reals[] = {&r->makespan_s, &r->req_per_s, &r->out_tok_per_s,
				   &r->out_tok_per_s_gpu, &r->goodput_req_per_s, &r->slo_met,
				   &r->slo_ttft_s, &r->slo_tpot_s, &r->batch_mean, &r->queue_mean,
				   &r->kv_mean, &r->kv_peak, &r->weights_bytes, &r->kv_bytes};
		for (int k = 0; k < 14; k++)
			*reals[k] = sqlite3_column_double(st, 14 + k);
	}
	sqlite3_finalize(st);
	return rc;
}

static int get_serve_latency(store *s, int64_t id, store_serve_run *r, sim_diag *diag)
{
	static const char sql[] = "SELECT metric, mean_s, p50_s, p90_s, p99_s, max_s FROM"
				  " serve_latency WHERE run_id = ?";
	static const char *const names[3] = {"ttft", "tpot", "e2e"};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, diag, "cannot read the serving run");
	sqlite3_bind_int64(st, 1, id);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *m = sqlite3_column_text(st, 0);
		for (int k = 0; m && k < 3; k++)
			if (!strcmp((const char *)m, names[k]))
				for (int j = 0; j < 5; j++)
					r->latency[k][j] = sqlite3_column_double(st, 1 + j);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? SIM_OK : store_fail(s, diag, "cannot read the serving run");
}

int store_get_serve(store *s, int64_t id, store_serve_run *r, char **strings, char **text,
		    sim_diag *diag)
{
	memset(r, 0, sizeof *r);
	*strings = *text = NULL;
	int rc = SIM_OK;
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_fail(s, diag, "cannot read the database");
	if (rc == SIM_OK)
		rc = get_serve_head(s, id, r, strings, text, diag);
	if (rc == SIM_OK)
		rc = get_serve_latency(s, id, r, diag);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (rc != SIM_OK) {
		free(*strings);
		free(*text);
		*strings = *text = NULL;
	}
	return rc;
}
