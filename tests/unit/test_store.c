/* test_store.c - the SQLite run database: exact round trip of a synthetic
 * result (3 rank classes, 2 links), listing, digests, schema-version checks,
 * files that are not databases, missing ids, unwritable and full media, two
 * processes writing one file at once, and a writer killed mid-stream.
 *
 * Every database lives in a fresh mkdtemp directory under /tmp, removed at the
 * end. Processes are forked where a test needs a second writer, a resource
 * limit or a SIGKILL.
 */
#include "../../sim/store/store.h"
#include "check.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char scenario_text[] =
	"[scenario]\nname = synthetic \"quoted\"\n[parallel]\ntp = 2\npp = 3\n";

/* A result with awkward doubles (thirds, tiny, huge, integral beyond 2^53,
 * infinity), a seed above INT64_MAX and 3 classes / 2 links. */
static void make_result(exec_result *r, double tweak)
{
	memset(r, 0, sizeof *r);
	snprintf(r->scenario, sizeof r->scenario, "synthetic \"quoted\"");
	snprintf(r->model, sizeof r->model, "gpt-test 1.3B");
	snprintf(r->gpu, sizeof r->gpu, "A100-SXM4-80GB");
	snprintf(r->cluster, sizeof r->cluster, "two-nodes");
	snprintf(r->plan, sizeof r->plan, "tp2 pp3 dp1 mb1 gb12 1f1b none bf16");
	snprintf(r->layout, sizeof r->layout, "uneven pipeline split: layers per virtual stage 7, 8, 7");
	r->seed = 0xfedcba9876543210ULL;
	r->gpus = 6;
	r->step_s = 1.0 / 3.0 + tweak;
	r->tokens_per_step = 24576;
	r->tokens_per_s = 24576 / r->step_s;
	r->model_flops = 9.007199254740993e15;
	r->hardware_flops = 1.2e16 / 7.0;
	r->peak_flops = 312e12;
	r->mfu = 0.1 + 0.2;
	r->hfu = 0.4123456789012345;
	r->tflops_per_gpu = 128.75;
	r->bubble_fraction = 1e-300;
	r->mem_capacity_bytes = 85899345920.0;
	r->mem_peak_bytes = 1.7976931348623157e308;
	r->oom = true;
	r->nclasses = 3;
	for (int i = 0; i < 3; i++) {
		exec_class *c = &r->classes[i];
		snprintf(c->name, sizeof c->name, "stage %d", i);
		c->ranks = 2;
		for (int k = 0; k < EXEC_CAT_COUNT; k++)
			c->time_s[k] = (k + 1) * (i + 1) / 97.0;
		for (int m = 0; m < PLAN_MEM_COUNT; m++)
			c->mem_bytes[m] = (m + 1) * 1e9 / (i + 3.0);
		c->mem_total_bytes = 21e9 / (i + 3.0);
		c->mem_logged_bytes = i == 2 ? 7e9 / 3.0 : 0; /* a framework's log (schema 12) */
		c->oom = i == 1;
	}
	r->classes[2].time_s[EXEC_CAT_OFFLOAD] = INFINITY;
	r->nlinks = 2;
	snprintf(r->links[0].name, sizeof r->links[0].name, "gpu0 nvlink port");
	snprintf(r->links[0].kind, sizeof r->links[0].kind, "nvlink");
	snprintf(r->links[1].name, sizeof r->links[1].name, "node0 nic0");
	snprintf(r->links[1].kind, sizeof r->links[1].kind, "ib");
	for (int l = 0; l < 2; l++) {
		r->links[l].count = 8 * (l + 1);
		r->links[l].Bps = l ? 25e9 : 300e9;
		r->links[l].bytes = 1e10 / (l + 3);
		r->links[l].busy_s = 0.01 * (l + 1) / 3;
		r->links[l].util = 0.5 / (l + 7);
		r->links[l].saturated_s = l * 1e-4;
	}
	r->tasks = 0x8000000000000001ULL;
	r->events = 123456789;
	/* the error band and the flag round-trip (a NaN band as NULL: below) */
	r->band_lo_s = r->step_s * 1.1017;
	r->band_hi_s = r->step_s * 1.4893;
	snprintf(r->band_from, sizeof r->band_from, "hopper, megatron-core, 513+ GPUs: 6 rows");
	r->implausible = true;
	snprintf(r->implausible_why, sizeof r->implausible_why, "MFU 30.0%% is above the best");
	/* the step's spread round-trips (none as NULLs: below) */
	r->spread = (exec_step_spread){100,
				       0xfedcba9876543210ULL,
				       0.5,
				       r->step_s * 0.97,
				       r->step_s * 0.98,
				       r->step_s * 1.01,
				       r->step_s * 1.07,
				       r->step_s * 1.1234567890123,
				       r->step_s * 1.09,
				       r->step_s * 1.2,
				       411,
				       0 /* mean_s: not stored, the campaign's alone */};
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static void check_same(const exec_result *a, const exec_result *b)
{
	CHECK_STR(a->scenario, b->scenario);
	CHECK_STR(a->model, b->model);
	CHECK_STR(a->gpu, b->gpu);
	CHECK_STR(a->cluster, b->cluster);
	CHECK_STR(a->plan, b->plan);
	CHECK_STR(a->layout, b->layout);
	CHECK(a->seed == b->seed);
	CHECK_INT(a->gpus, b->gpus);
	CHECK(same_double(a->step_s, b->step_s));
	CHECK(same_double(a->tokens_per_s, b->tokens_per_s));
	CHECK(same_double(a->hardware_flops, b->hardware_flops));
	CHECK(same_double(a->mfu, b->mfu));
	CHECK(same_double(a->mem_peak_bytes, b->mem_peak_bytes));
	CHECK(same_double(a->bubble_fraction, b->bubble_fraction));
	CHECK_INT(a->nclasses, b->nclasses);
	CHECK_INT(a->nlinks, b->nlinks);
	CHECK(a->tasks == b->tasks && a->events == b->events);
	CHECK(same_double(a->classes[2].time_s[EXEC_CAT_OFFLOAD],
			  b->classes[2].time_s[EXEC_CAT_OFFLOAD]));
	CHECK(same_double(a->classes[1].mem_bytes[PLAN_MEM_ACTIVATIONS],
			  b->classes[1].mem_bytes[PLAN_MEM_ACTIVATIONS]));
	CHECK(same_double(a->classes[2].mem_logged_bytes, b->classes[2].mem_logged_bytes));
	CHECK_STR(a->links[1].kind, b->links[1].kind);
	CHECK(same_double(a->band_lo_s, b->band_lo_s) && same_double(a->band_hi_s, b->band_hi_s));
	CHECK_STR(a->band_from, b->band_from);
	CHECK_INT(a->implausible, b->implausible);
	CHECK_STR(a->implausible_why, b->implausible_why);
	CHECK_INT(a->spread.samples, b->spread.samples);
	CHECK(a->spread.seed == b->spread.seed);
	CHECK(same_double(a->spread.p95_s, b->spread.p95_s));
	/* And every byte, padding included: both were zeroed before filling. */
	CHECK(memcmp(a, b, sizeof *a) == 0);
}

static char tmpdir[64];

static const char *path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
	return buf;
}

static store *open_ok(const char *path)
{
	sim_diag *d = sim_diag_new();
	store *s = NULL;
	int rc = store_open(path, &s, d);
	CHECK_INT(rc, SIM_OK);
	if (rc != SIM_OK)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	return s;
}

static int64_t put(store *s, const exec_result *r)
{
	sim_diag *d = sim_diag_new();
	int64_t id = 0;
	int rc = store_put_run(s, scenario_text, r, &id, d);
	if (rc != SIM_OK)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	return rc == SIM_OK ? id : -1;
}

/* One integer from plain SQL on a separate connection. */
static long long sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;
	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
}

static void test_roundtrip(void)
{
	char path[128];
	path_in(path, sizeof path, "roundtrip.db");
	static exec_result r, back;
	make_result(&r, 0);
	store *s = open_ok(path);
	if (!s)
		return;
	int64_t id = put(s, &r);
	CHECK_INT(id, 1);
	CHECK_INT(put(s, &r), 2);
	char *text = NULL;
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_get_run(s, id, &back, &text, d), SIM_OK);
	check_same(&r, &back);
	CHECK_STR(text, scenario_text);
	free(text);
	CHECK_INT(store_get_run(s, 99, &back, &text, d), SIM_ENOTFOUND);
	CHECK(text == NULL);
	/* no band (NaN: NULL in the database) and no flag read back as such */
	static exec_result plain;
	make_result(&plain, 0);
	plain.band_lo_s = plain.band_hi_s = NAN;
	plain.band_from[0] = plain.implausible_why[0] = '\0';
	plain.implausible = false;
	memset(&plain.spread, 0, sizeof plain.spread);
	plain.layout[0] = '\0';
	int64_t pid = put(s, &plain);
	CHECK_INT(store_get_run(s, pid, &back, NULL, d), SIM_OK);
	CHECK_INT(back.spread.samples, 0);
	CHECK(back.spread.p95_s == 0 && back.spread.seed == 0);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM runs WHERE step_p95_s IS NULL"), 1);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM runs WHERE layout IS NULL"), 1);
	CHECK_STR(back.layout, "");
	CHECK(isnan(back.band_lo_s) && isnan(back.band_hi_s));
	CHECK_STR(back.band_from, "");
	CHECK(!back.implausible);
	sql_exec(path, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 3");
	CHECK_INT(sim_diag_error_count(d), 0);
	sim_diag_free(d);
	store_close(s);

	CHECK_INT(sql_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes"), 6);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_memory"), 6 * PLAN_MEM_COUNT);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_links"), 4);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM runs WHERE status = 'ok'"
				" AND podsim_version = '" PODSIM_VERSION "'"), 2);
	char hash[17], sql[128];
	sim_hash_hex(sim_hash64(scenario_text, strlen(scenario_text)), hash);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE scenario_hash = '%s'", hash);
	CHECK_INT(sql_int(path, sql), 2);
	/* Deleting a run cascades to its detail rows. */
	sql_exec(path, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 2");
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes"), 3);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_links"), 2);
}

/* A plan on a mixed cluster ([cluster] other_gpu): nodes of another GPU
 * type hold stages 0 and 1. Its figures there, per class and for the worst
 * stage, round-trip exactly (check_same's memcmp), and so do the plan-wide
 * verdict and its basis: the scenario's GPU fits every class (21e9 / 3 of
 * 85.9e9 at most), other_gpu's stage 1 is tight (0.95 of its capacity), so
 * the plan is tight on other_gpu (exec_mem_verdict, exec_mem_basis_of),
 * stored as such for the list. */
/* make_result's figures made consistent: no class out of memory, the peak
 * the most loaded class's device total (7 GB of 85.9 GB: fits). */
static void make_fitting(exec_result *r)
{
	make_result(r, 0);
	r->oom = false;
	for (int i = 0; i < r->nclasses; i++)
		r->classes[i].oom = false;
	r->mem_peak_bytes = r->classes[exec_mem_worst(r)].mem_total_bytes;
}

static void make_mixed(exec_result *r)
{
	make_fitting(r);
	exec_mixed *m = &r->mixed;
	m->nodes = 2;
	m->cluster_nodes = 32;
	snprintf(m->gpu, sizeof m->gpu, "a100-sxm4-40g");
	m->dp = 8;
	m->replicas = 2;
	m->kinds = 3;
	m->base_s = r->step_s / 2.1;
	m->step_s = r->step_s;
	m->replica = 4;
	m->stage = 1;
	m->stage_s = 1.0 / 7.0;
	m->stage_base_s = 1.0 / 17.0;
	m->mem_capacity_bytes = 42406903808.0;
	m->mem_peak_bytes = 0.95 * m->mem_capacity_bytes;
	m->mem_needed_bytes = 0.9 * m->mem_capacity_bytes;
	m->mem_stage = 1;
	m->mem_verdict = PLAN_VERDICT_TIGHT;
	for (int i = 0; i < 2; i++) {
		exec_class *c = &r->classes[i];
		c->mem_other = true;
		c->mem_other_total_bytes = (i ? 0.95 : 0.5) * m->mem_capacity_bytes;
		c->mem_other_needed_bytes = (i ? 0.9 : 0.45) * m->mem_capacity_bytes;
		c->mem_other_verdict = i ? PLAN_VERDICT_TIGHT : PLAN_VERDICT_FITS;
	}
}

/* One text value from plain SQL on a separate connection ("" if none). */
static void sql_text(const char *path, const char *sql, char *out, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

/* The runs list's rows as one string (the caller frees it). */
static char *list_text(store *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_list_runs(s, f, 0, d), SIM_OK);
	fclose(f);
	sim_diag_free(d);
	return out;
}

static void test_mixed(void)
{
	char path[128], v[64];
	path_in(path, sizeof path, "mixed.db");
	static exec_result r, back;
	make_mixed(&r);
	CHECK_INT(exec_mem_verdict(&r), PLAN_VERDICT_TIGHT);
	CHECK_INT(exec_mem_basis_of(&r), EXEC_MEM_ON_OTHER);
	store *s = open_ok(path);
	if (!s)
		return;
	int64_t id = put(s, &r);
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_get_run(s, id, &back, NULL, d), SIM_OK);
	check_same(&r, &back);
	CHECK(!back.mixed.unstored);
	CHECK_INT(exec_mem_verdict(&back), PLAN_VERDICT_TIGHT);
	CHECK_INT(exec_mem_basis_of(&back), EXEC_MEM_ON_OTHER);
	CHECK_INT(exec_class_verdict(&back.classes[1], back.mem_capacity_bytes), PLAN_VERDICT_TIGHT);
	/* a plain run stores mixed_nodes 0 and no class figures */
	static exec_result plain;
	make_fitting(&plain);
	int64_t pid = put(s, &plain);
	CHECK_INT(store_get_run(s, pid, &back, NULL, d), SIM_OK);
	check_same(&plain, &back);
	CHECK(!back.mixed.unstored);
	char *out = list_text(s);
	char *row = out ? strstr(out, "\n 1  ") : NULL;
	CHECK(row && strstr(row, " tight "));
	free(out);
	CHECK_INT(sim_diag_error_count(d), 0);
	sim_diag_free(d);
	store_close(s);
	sql_text(path, "SELECT mem_verdict || ',' || mem_basis FROM runs WHERE id = 1", v, sizeof v);
	CHECK_STR(v, "tight,other_gpu");
	sql_text(path, "SELECT mem_verdict || ',' || mem_basis FROM runs WHERE id = 2", v, sizeof v);
	CHECK_STR(v, "fits,gpu");
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes WHERE mem_other = 1"), 2);
	CHECK_INT(sql_int(path, "SELECT mixed_nodes FROM runs WHERE id = 2"), 0);
}

/* A schema-9 database (what podsim stored before version 10: the same
 * tables without migration 9 -> 10's columns, 10 -> 11's layout and 11 ->
 * 12's logged peak, made here by dropping them and setting user_version 9)
 * opens and migrates through all three; its runs read back without a layout
 * or a logged peak (NaN: not stored); its mixed run reads back
 * with other_gpu's figures marked as not kept (exec_mixed.unstored), the
 * stored OOM flag still out of memory on other_gpu; a fitting one says
 * "fits?" in the list; a run written after the migration keeps them. */
static void test_migrate9(void)
{
	static const char *const cols[][2] = {
		{"runs", "mem_verdict"}, {"runs", "mem_basis"}, {"runs", "mixed_nodes"},
		{"runs", "mixed_cluster_nodes"}, {"runs", "mixed_gpu"}, {"runs", "mixed_dp"},
		{"runs", "mixed_replicas"}, {"runs", "mixed_kinds"}, {"runs", "mixed_base_s"},
		{"runs", "mixed_step_s"}, {"runs", "mixed_replica"}, {"runs", "mixed_stage"},
		{"runs", "mixed_stage_s"}, {"runs", "mixed_stage_base_s"},
		{"runs", "mixed_mem_capacity_bytes"}, {"runs", "mixed_mem_peak_bytes"},
		{"runs", "mixed_mem_needed_bytes"}, {"runs", "mixed_mem_stage"},
		{"runs", "mixed_mem_verdict"}, {"run_classes", "mem_other"},
		{"run_classes", "mem_other_total_bytes"}, {"run_classes", "mem_other_needed_bytes"},
		{"run_classes", "mem_other_verdict"}, {"runs", "layout"},
		{"run_classes", "mem_logged_bytes"}};
	static const char mixed_text[] = "[cluster]\nname = c\nother_gpu = a100.ini\n";
	char path[128], sql[128];
	path_in(path, sizeof path, "v9.db");
	static exec_result r, back;
	store *s = open_ok(path);
	if (!s)
		return;
	sim_diag *d = sim_diag_new();
	int64_t id;
	make_mixed(&r);
	r.oom = true; /* stored out of memory (on other_gpu: the GPU fits) */
	CHECK_INT(store_put_run(s, mixed_text, &r, &id, d), SIM_OK);
	make_mixed(&r);
	CHECK_INT(store_put_run(s, mixed_text, &r, &id, d), SIM_OK);
	make_fitting(&r);
	CHECK_INT(store_put_run(s, scenario_text, &r, &id, d), SIM_OK);
	store_close(s);
	for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
		snprintf(sql, sizeof sql, "ALTER TABLE %s DROP COLUMN %s", cols[k][0], cols[k][1]);
		sql_exec(path, sql);
	}
	sql_exec(path, "PRAGMA user_version = 9");

	s = open_ok(path); /* migrates */
	if (!s)
		return;
	CHECK_INT(sql_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	CHECK_INT(store_get_run(s, 1, &back, NULL, d), SIM_OK);
	CHECK_STR(back.layout, "");
	CHECK(isnan(back.classes[0].mem_logged_bytes));
	CHECK(back.mixed.unstored && back.mixed.nodes == 0 && !back.classes[1].mem_other);
	CHECK_INT(exec_mem_verdict(&back), PLAN_VERDICT_OOM);
	CHECK_INT(exec_mem_basis_of(&back), EXEC_MEM_ON_OTHER);
	CHECK_INT(store_get_run(s, 2, &back, NULL, d), SIM_OK);
	CHECK(back.mixed.unstored);
	CHECK_INT(exec_mem_verdict(&back), PLAN_VERDICT_FITS); /* the GPU's: all it can say */
	CHECK_INT(store_get_run(s, 3, &back, NULL, d), SIM_OK);
	CHECK(!back.mixed.unstored);
	char *out = list_text(s);
	char *r3 = out ? strstr(out, "\n 3  ") : NULL, *r2 = out ? strstr(out, "\n 2  ") : NULL,
	     *r1 = out ? strstr(out, "\n 1  ") : NULL;
	CHECK(r3 && r2 && r1 && r3 < r2 && r2 < r1);
	CHECK(r3 && r2 && strstr(r3, " fits ") && strstr(r3, " fits ") < r2);
	CHECK(r2 && strstr(r2, " fits? "));
	CHECK(r1 && strstr(r1, " OOM "));
	free(out);
	/* written after the migration: kept */
	make_mixed(&r);
	CHECK_INT(store_put_run(s, mixed_text, &r, &id, d), SIM_OK);
	CHECK_INT(store_get_run(s, id, &back, NULL, d), SIM_OK);
	check_same(&r, &back);
	CHECK_INT(sim_diag_error_count(d), 0);
	sim_diag_free(d);
	store_close(s);
}

static void test_wal(void)
{
	char path[128];
	store *s = open_ok(path_in(path, sizeof path, "wal.db"));
	store_close(s);
	sqlite3 *db;
	sqlite3_stmt *st;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The list's memory column is the run's verdict (exec_mem_verdict, stored
 * with the run): OOM as stored, else tight when the most loaded class's
 * device total leaves under 10 % of the capacity (0.95 of it), fits at 0.9
 * of it (plan_mem_verdict: tight only above 90 %). */
static void test_list_tight(void)
{
	char path[128], *out = NULL;
	size_t len = 0;
	static exec_result r;
	make_result(&r, 0);
	store *s = open_ok(path_in(path, sizeof path, "tight.db"));
	if (!s)
		return;
	r.oom = false;
	r.classes[1].oom = false;
	r.mem_peak_bytes = r.classes[0].mem_total_bytes = 0.9 * r.mem_capacity_bytes;
	snprintf(r.scenario, sizeof r.scenario, "ninety");
	put(s, &r);
	r.mem_peak_bytes = r.classes[0].mem_total_bytes = 0.95 * r.mem_capacity_bytes;
	snprintf(r.scenario, sizeof r.scenario, "ninetyfive");
	put(s, &r);
	FILE *f = open_memstream(&out, &len);
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_list_runs(s, f, 0, d), SIM_OK);
	fputc('\0', f);
	fflush(f);
	char *first = strstr(out, "\n 1  "), *second = strstr(out, "\n 2  ");
	CHECK(first && strstr(first, "ninety ") && strstr(first, " fits "));
	CHECK(second && first && second < first && strstr(second, "ninetyfive") &&
	      strstr(second, " tight "));
	fclose(f);
	free(out);
	sim_diag_free(d);
	store_close(s);
}

static void test_list(void)
{
	char path[128], *out = NULL;
	size_t len = 0;
	static exec_result r;
	make_result(&r, 0);
	store *s = open_ok(path_in(path, sizeof path, "list.db"));
	if (!s)
		return;
	FILE *f = open_memstream(&out, &len);
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_list_runs(s, f, 0, d), SIM_OK);
	fflush(f);
	CHECK(strstr(out, "(no runs in ") != NULL);
	put(s, &r);
	r.oom = false;
	r.mem_peak_bytes = 0.5 * r.mem_capacity_bytes; /* fits: half the capacity */
	snprintf(r.scenario, sizeof r.scenario, "second");
	put(s, &r);
	rewind(f);
	CHECK_INT(store_list_runs(s, f, 0, d), SIM_OK);
	fputc('\0', f);
	fflush(f);
	CHECK(strncmp(out, "id  created (UTC)", 17) == 0);
	char *second = strstr(out, "\n 2  "), *first = strstr(out, "\n 1  ");
	CHECK(second && first && second < first); /* newest first */
	CHECK(first && strstr(first, "synthetic \"quoted\"") && strstr(first, "OOM"));
	CHECK(second && strstr(second, "second") && strstr(second, "fits"));
	CHECK(strstr(out, "30.0%!") != NULL); /* implausible */
	CHECK(strstr(out, "  0.367-0.496  ") != NULL); /* 1/3 s x [1.1017, 1.4893] */
	/* Two runs of one sweep: sweep id 1, ranks 2 and 1, each with its plan. */
	int64_t sw = 0, id = 0;
	store_sweep_counts cnt = {4, 2, 2, 2, 0, 0};
	CHECK_INT(store_put_sweep(s, "parallel.tp=1,2\n", &cnt, &sw, d), SIM_OK);
	snprintf(r.plan, sizeof r.plan, "megatron-core tp1 cp1 pp3 vpp1 dp2 ep1 mb1 gb12");
	CHECK_INT(store_put_sweep_run(s, sw, 2, scenario_text, &r, &id, d), SIM_OK);
	snprintf(r.plan, sizeof r.plan, "megatron-core tp2 cp1 pp3 vpp1 dp1 ep1 mb1 gb12");
	CHECK_INT(store_put_sweep_run(s, sw, 1, scenario_text, &r, &id, d), SIM_OK);
	rewind(f);
	CHECK_INT(store_list_runs(s, f, 0, d), SIM_OK);
	fputc('\0', f);
	fflush(f);
	char *r3 = strstr(out, "\n 3  "), *r4 = strstr(out, "\n 4  ");
	CHECK(r3 && strstr(r3, "      1      2  megatron-core tp1 cp1 pp3 vpp1 dp2 ep1 mb1 gb12\n"));
	CHECK(r4 && strstr(r4, "      1      1  megatron-core tp2 cp1 pp3 vpp1 dp1 ep1 mb1 gb12\n"));
	CHECK(first && strstr(first, "      -      -  tp2 pp3 dp1 mb1 gb12 1f1b none bf16\n"));
	rewind(f);
	CHECK_INT(store_list_runs(s, f, 1, d), SIM_OK);
	fputc('\0', f);
	fflush(f);
	CHECK(strstr(out, "second") && !strstr(out, "quoted"));
	fclose(f);
	free(out);
	sim_diag_free(d);
	store_close(s);
}

static uint64_t digest_of(const char *path, int nruns, double tweak)
{
	static exec_result r;
	store *s = open_ok(path);
	uint64_t h = 0;
	if (!s)
		return 0;
	for (int i = 0; i < nruns; i++) {
		make_result(&r, i == nruns - 1 ? tweak : 0);
		put(s, &r);
	}
	sim_diag *d = sim_diag_new();
	CHECK_INT(store_digest(s, &h, d), SIM_OK);
	sim_diag_free(d);
	store_close(s);
	return h;
}

static void test_digest(void)
{
	char a[128], b[128], c[128], e[128];
	uint64_t ha = digest_of(path_in(a, sizeof a, "digest-a.db"), 2, 0);
	sleep(1); /* a different created_utc must not matter */
	uint64_t hb = digest_of(path_in(b, sizeof b, "digest-b.db"), 2, 0);
	uint64_t hc = digest_of(path_in(c, sizeof c, "digest-c.db"), 2, 1e-15);
	uint64_t he = digest_of(path_in(e, sizeof e, "digest-e.db"), 0, 0);
	CHECK(ha == hb);
	CHECK(ha != hc);
	CHECK(ha != he);
	/* The same runs under other ids (one deleted before) give the same digest. */
	char p[128];
	path_in(p, sizeof p, "digest-ids.db");
	digest_of(p, 1, 0);
	sql_exec(p, "PRAGMA foreign_keys = ON; DELETE FROM runs");
	CHECK(digest_of(p, 2, 0) == ha);
}

/* store_open must fail with exactly this message. */
static void check_refused(const char *path, const char *want)
{
	sim_diag *d = sim_diag_new();
	store *s = (store *)1;
	CHECK_INT(store_open(path, &s, d), SIM_EDB);
	CHECK(s == NULL);
	CHECK_INT(sim_diag_error_count(d), 1);
	if (sim_diag_count(d))
		CHECK_STR(sim_diag_text(d, 0), want);
	sim_diag_free(d);
}

static void test_versions(void)
{
	char path[128], want[256];
	path_in(path, sizeof path, "newer.db");
	char sql[96];
	snprintf(sql, sizeof sql, "CREATE TABLE t (x); PRAGMA user_version = %d",
		 STORE_SCHEMA_VERSION + 1);
	sql_exec(path, sql);
	snprintf(want, sizeof want,
		 "%s: error: database schema version %d is newer than this podsim supports (%d)",
		 path, STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
	check_refused(path, want);
	CHECK_INT(sql_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION + 1); /* left alone */

	path_in(path, sizeof path, "foreign.db");
	sql_exec(path, "CREATE TABLE runs (x)");
	snprintf(want, sizeof want,
		 "%s: error: not a podsim database (it has tables but no schema version)", path);
	check_refused(path, want);

	/* An empty version-0 file (e.g. made by 'sqlite3 FILE vacuum') is migrated. */
	path_in(path, sizeof path, "empty.db");
	sql_exec(path, "VACUUM");
	store_close(open_ok(path));
	CHECK_INT(sql_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);

	path_in(path, sizeof path, "text.db");
	FILE *f = fopen(path, "w");
	for (int i = 0; f && i < 100; i++)
		fputs("this is a text file, not a database\n", f);
	if (f)
		fclose(f);
	snprintf(want, sizeof want, "%s: error: not a SQLite database", path);
	check_refused(path, want);
}

/* Unwritable places: a read-only file system (works as root too), a missing
 * directory and, when not root, a read-only file. Errors, never a crash. */
static void test_unwritable(void)
{
	sim_diag *d = sim_diag_new();
	store *s = NULL;
	CHECK_INT(store_open("/proc/podsim-test.db", &s, d), SIM_EDB);
	CHECK_INT(store_open("/nonexistent-dir/x/podsim.db", &s, d), SIM_EDB);
	CHECK_INT(sim_diag_error_count(d), 2);
	CHECK(strstr(sim_diag_text(d, 1), "/nonexistent-dir/x/podsim.db: error: cannot open"));
	sim_diag_clear(d);
	if (geteuid() != 0) {
		static exec_result r;
		char path[128];
		make_result(&r, 0);
		path_in(path, sizeof path, "readonly.db");
		store_close(open_ok(path));
		chmod(path, 0444);
		int rc = store_open(path, &s, d);
		int64_t id = 0;
		if (rc == SIM_OK) {
			rc = store_put_run(s, scenario_text, &r, &id, d);
			store_close(s);
		}
		CHECK_INT(rc, SIM_EDB);
		CHECK(sim_diag_error_count(d) >= 1);
	}
	sim_diag_free(d);
}

/* A full disk, simulated with RLIMIT_FSIZE in a child: the write fails with a
 * database error, the child exits normally, and the file keeps its runs. */
static void test_full(void)
{
	char path[128];
	static exec_result r;
	make_result(&r, 0);
	path_in(path, sizeof path, "full.db");
	store *s = open_ok(path);
	if (!s)
		return;
	put(s, &r);
	store_close(s);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {256 * 1024, 256 * 1024};
		setrlimit(RLIMIT_FSIZE, &lim);
		size_t n = 4 << 20;
		char *big = malloc(n + 1);
		memset(big, 'x', n);
		big[n] = '\0';
		sim_diag *d = sim_diag_new();
		store *c;
		int64_t id = 0;
		int rc = store_open(path, &c, d);
		if (rc == SIM_OK) {
			rc = store_put_run(c, big, &r, &id, d);
			store_close(c);
		}
		int ok = rc == SIM_EDB && sim_diag_error_count(d) >= 1;
		sim_diag_free(d);
		free(big);
		_exit(ok ? 0 : 1);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM runs"), 1);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes"), 3);
	sqlite3 *db;
	sqlite3_stmt *st;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Child body: open path (creating it if first) and store n runs; with fd >= 0,
 * report each committed id on it. Exit status 0 when all went in. */
static _Noreturn void writer(const char *path, int n, int fd)
{
	static exec_result r;
	make_result(&r, 0);
	sim_diag *d = sim_diag_new();
	store *s;
	int bad = store_open(path, &s, d) != SIM_OK;
	for (int i = 0; !bad && (n < 0 || i < n); i++) {
		int64_t id;
		r.step_s = i;
		bad = store_put_run(s, scenario_text, &r, &id, d) != SIM_OK;
		if (!bad && fd >= 0 && write(fd, &id, sizeof id) != (ssize_t)sizeof id)
			bad = 1;
	}
	if (bad)
		sim_diag_print(d, stderr);
	if (!bad)
		store_close(s);
	sim_diag_free(d);
	_exit(bad);
}

static void test_concurrent(void)
{
	char path[128];
	path_in(path, sizeof path, "concurrent.db");
	fflush(NULL);
	pid_t pids[2];
	for (int i = 0; i < 2; i++)
		if ((pids[i] = fork()) == 0)
			writer(path, 50, -1);
	for (int i = 0; i < 2; i++) {
		int status = -1;
		waitpid(pids[i], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK_INT(sql_int(path, "SELECT count(*) FROM runs"), 100);
	CHECK_INT(sql_int(path, "SELECT count(DISTINCT id) FROM runs"), 100);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes"), 300);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_memory"), 300 * PLAN_MEM_COUNT);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_links"), 200);
}

/* A writer killed with SIGKILL leaves every run it had committed, whole. */
static void test_killed(void)
{
	char path[128];
	int fds[2];
	path_in(path, sizeof path, "killed.db");
	CHECK(pipe(fds) == 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		writer(path, -1, fds[1]);
	}
	close(fds[1]);
	int64_t ids[20], got = 0;
	while (got < 20 && read(fds[0], &ids[got], sizeof ids[0]) == (ssize_t)sizeof ids[0])
		got++;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fds[0]);
	CHECK_INT(got, 20);
	store *s = open_ok(path);
	if (!s)
		return;
	static exec_result back;
	sim_diag *d = sim_diag_new();
	for (int i = 0; i < got; i++) {
		CHECK_INT(store_get_run(s, ids[i], &back, NULL, d), SIM_OK);
		CHECK_INT(back.nclasses, 3);
		CHECK_INT(back.nlinks, 2);
	}
	sim_diag_free(d);
	store_close(s);
	long long runs = sql_int(path, "SELECT count(*) FROM runs");
	CHECK(runs >= 20);
	CHECK_INT(sql_int(path, "SELECT count(*) FROM run_classes"), 3 * runs);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/podsim-store-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_wal();
	test_list();
	test_list_tight();
	test_mixed();
	test_migrate9();
	test_digest();
	test_versions();
	test_unwritable();
	test_full();
	test_concurrent();
	test_killed();
	cleanup();
	return check_done();
}
