/* store.h - the SQLite run database.
 *
 * One file (default podsim.db in the working directory; --db PATH or the
 * PODSIM_DB environment variable override it). WAL journal, 5 s busy timeout,
 * schema version in PRAGMA user_version (a newer version than this podsim knows
 * is refused with a clear message; older ones are migrated). Every run is
 * written in one transaction, so a killed process leaves either the whole run
 * or nothing.
 *
 * Tables (see store.c for the DDL): runs (id, created_utc, podsim_version,
 * scenario_name, scenario_hash, scenario_text, seed, status, headline metrics),
 * run_classes (per rank class and category), run_memory (per
 * class and memory category), run_links (per link class); since version 2
 * sweeps (one row per `podsim sweep`) and runs.sweep_id; since version 4
 * runs.sweep_rank and sweeps.shard (sharded sweeps, store_merge); since
 * version 6 the error band and the implausibility flag (runs.step_band_lo_s,
 * step_band_hi_s, band_from, implausible, implausible_reason); since version
 * 7 the step's spread (runs.step_p05_s .. step_p95_s, step_p95_lo_s,
 * step_p95_hi_s, spread_samples, spread_seed, spread_correlation,
 * spread_varying; NULL without one); since version 8 campaigns and
 * campaign_causes (`podsim train`: store_put_campaign); since version 9
 * serving runs (serve_runs, serve_latency: sim/store/serve.c, written by
 * sim/serve); since version 10 the plan-wide memory verdict and its basis
 * (runs.mem_verdict, mem_basis) and the figures on [cluster] other_gpu
 * (runs.mixed_*, run_classes.mem_other*: sim/store/mixed.c), so a stored
 * mixed-cluster run shows the live run's verdict, basis and figures.
 */
#ifndef PODSIM_STORE_H
#define PODSIM_STORE_H

#include "../campaign/campaign.h"
#include "../exec/exec.h"

#define STORE_SCHEMA_VERSION 12
#define STORE_ENV "PODSIM_DB"
#define STORE_DEFAULT_PATH "podsim.db"

typedef struct store store;

/* NULL when path can be a run database, else why not: "" (SQLite's private
 * temporary database), ":memory:", a directory, device, FIFO or socket. The
 * commands check it before any work (bad input); store_open refuses them. */
const char *store_path_refused(const char *path);
/* Open (creating if needed) the database at path. Errors are reported to diag
 * as "path: error: ..." and return SIM_EDB. A foreign application's database
 * is refused before anything in it changes. */
int store_open(const char *path, store **out, sim_diag *diag);
void store_close(store *s);

/* Save a run: the resolved scenario text (hashed here), and the result. On
 * success *run_id is the new row id. One transaction. */
int store_put_run(store *s, const char *scenario_text, const exec_result *r, int64_t *run_id,
		  sim_diag *diag);

/* Save a campaign (`podsim train`): its step as a run (store_put_run's
 * rows) and the campaign's inputs, quantiles and causes, in one
 * transaction; *run_id and *campaign_id are the new ids. Not copied by
 * store_merge (campaigns stay in the database that ran them). */
int store_put_campaign(store *s, const char *scenario_text, const exec_result *r,
		       const campaign_result *c, int64_t *run_id, int64_t *campaign_id,
		       sim_diag *diag);

/* Save a run that belongs to sweep `sweep_id` at place `sweep_rank` of its
 * pre-screen order (1 = best estimate); 0, 0 = none (store_put_run). */
int store_put_sweep_run(store *s, int64_t sweep_id, int64_t sweep_rank, const char *scenario_text,
			const exec_result *r, int64_t *run_id, sim_diag *diag);

/* Plan counts of a sweep, stored with it; shard/nshards = I/N of a sharded
 * sweep (nshards 0 = unsharded). */
typedef struct store_sweep_counts {
	int64_t plans, valid, fitting, simulated;
	int shard, nshards;
} store_sweep_counts;

/* Record a sweep (its space as text, e.g. "parallel.tp=1,2,4\n...") and return
 * its id; its runs are then stored with store_put_sweep_run. */
int store_put_sweep(store *s, const char *spec, const store_sweep_counts *n, int64_t *sweep_id,
		    sim_diag *diag);

/* Set the simulated count of a sweep (a sweep stopped early). */
int store_set_sweep_simulated(store *s, int64_t sweep_id, int64_t simulated, sim_diag *diag);

/* The run ids of a sweep, fastest first: up to cap written to ids, *n = all. */
int store_sweep_runs(store *s, int64_t sweep_id, int64_t *ids, size_t cap, size_t *n,
		     sim_diag *diag);

/* Load a run back into *r (every field that store_put_run saved; wall_s = 0;
 * a run stored before version 10 on a mixed cluster with
 * r->mixed.unstored set)
 * and, if text is non-NULL, a malloc'd copy of its scenario text.
 * SIM_ENOTFOUND if there is no such id. */
int store_get_run(store *s, int64_t run_id, exec_result *r, char **text, sim_diag *diag);

/* Print a table of the most recent `limit` runs (0 = all), newest first:
 * id, created, scenario, gpus, step time, its likely range (error band),
 * MFU ("!" when implausible), the plan-wide memory verdict ("OOM", "tight",
 * "fits": exec_mem_verdict as stored; "?" after tight or fits for a run
 * stored before version 10 on a mixed cluster, whose other_gpu figures were
 * not kept),
 * sweep id and pre-screen rank ("-" outside
 * sweeps), plan string. */
int store_list_runs(store *s, FILE *out, int limit, sim_diag *diag);

/* A digest of every stored row except ids, timestamps and wall time, for the
 * determinism test: two databases holding the same runs have the same digest. */
int store_digest(store *s, uint64_t *out, sim_diag *diag);

/* Copy every run of the databases at in[0..n-1] (with their rank classes,
 * memory and link rows, and their sweeps) into s under new ids, in one
 * transaction. Each input must have exactly this podsim's schema version
 * (others are refused: open an older one once with this podsim to migrate
 * it). Shards of one sweep (sweeps rows with the same space, counts and N,
 * distinct I) become one sweeps row: simulated summed, shard NULL when all N
 * are there, else "I,J,.../N"; their runs are written in sweep_rank order,
 * so merging the N shards of a sweep gives the digest of the unsharded
 * sweep. Other runs keep their input order. Serving runs (serve_runs with
 * their serve_latency rows) follow, inputs in order, by id. *runs, *sweeps
 * and *serve_runs = rows written. SIM_OK, SIM_EDB (diag), SIM_ENOMEM. */
int store_merge(store *s, const char *const *in, size_t n, int64_t *runs, int64_t *sweeps,
		int64_t *serve_runs, sim_diag *diag);

/* A serving run as the store keeps it (plain data, filled by sim/serve):
 * latency[k] = {mean, p50, p90, p99, max} seconds of k = TTFT, TPOT, E2E. */
typedef struct store_serve_run {
	const char *name, *plan, *model, *gpu;
	uint64_t seed;
	int gpus;
	int64_t requests, completed, prompt_tokens, output_tokens, iterations, preemptions,
		kv_blocks;
	double makespan_s, req_per_s, out_tok_per_s, out_tok_per_s_gpu, goodput_req_per_s,
		slo_met, slo_ttft_s, slo_tpot_s, batch_mean, queue_mean, kv_mean, kv_peak,
		weights_bytes, kv_bytes;
	double latency[3][5];
} store_serve_run;

/* Save a serving run (tables serve_runs and serve_latency) in one
 * transaction; *id = its serve_runs id. SIM_OK or SIM_EDB (diag). */
int store_put_serve(store *s, const char *scenario_text, const store_serve_run *r, int64_t *id,
		    sim_diag *diag);
/* Read serving run `id` back: *r as stored, its four strings in one block
 * *strings and the resolved scenario text in *text (the caller frees both;
 * NULL on failure). SIM_OK, SIM_ENOTFOUND, SIM_EDB (diag), SIM_ENOMEM. */
int store_get_serve(store *s, int64_t id, store_serve_run *r, char **strings, char **text,
		    sim_diag *diag);
/* Print the most recent `limit` serving runs (0 = all), newest first, under
 * a heading, or nothing when there are none: id, created, scenario, GPUs,
 * requests/s, output tokens/s per GPU, TTFT p90, TPOT p90, plan. */
int store_list_serve(store *s, FILE *out, int limit, sim_diag *diag);

#endif
