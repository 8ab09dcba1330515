/* cli.h - internal header of the cli folder (not a module API): the commands
 * that live in their own file, called from main.c's dispatch. Each takes the
 * arguments after the command name and returns the process exit status
 * (0 ok, 1 runtime failure, 2 bad input). */
#ifndef PODSIM_CLI_H
#define PODSIM_CLI_H

#include <stdbool.h>
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bad usage of a command: "podsim CMD: error: MSG[: ARG]" on stderr (CMD NULL
 * for podsim itself), then the usage text when given; returns exit status 2
 * (main.c). Every command reports its argument errors through it. */
int cli_usage_error(const char *cmd, const char *usage, const char *msg, const char *arg);

/* The data folder of shipped tables (bands, MFU ceilings, GPU files for
 * validate): $PODSIM_DATA, else the source tree podsim was built from. */
const char *cli_datadir(void);
/* Check the output files named on the command line before any work (NULL
 * entries skipped): print "PATH: error: WHY" for each that cannot be one
 * (a directory, a missing folder) and return false if any. */
bool cli_outputs_ok(const char *const *paths, size_t n);
/* What every command does after its own parse, in this order: a non-zero
 * parse status rc (bad arguments, already reported) is the exit status;
 * with --help (help) the usage goes to stdout and the status is 0; output
 * files that cannot be written (cli_outputs_ok on the n paths) give 2.
 * Returns that exit status, or -1 when the command goes on. */
int cli_parsed(int rc, bool help, const char *usage, const char *const *paths, size_t n);
/* A word that no option took, in the parse loop of a command with one
 * positional argument: NULL after storing it in *slot, else the message
 * that refuses it, "unknown option" for a word starting with '-' (not "-"
 * alone) or `taken` when *slot is set; the command reports it with a. */
const char *cli_one_arg(const char *a, const char **slot, const char *taken);
/* Write path all or nothing through fill (sim_write_atomic); when that
 * fails, "podsim CMD: error: cannot write PATH: WHY" (errno) on stderr.
 * Returns sim_write_atomic's status. */
int cli_write_file(const char *cmd, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);
/* Check a run database path before any work (store_path_refused): print
 * "PATH: error: cannot open database: WHY" and return false when refused. */
bool cli_db_ok(const char *path);
/* The run database: --db when given (flag non-NULL), else $PODSIM_DB, else
 * podsim.db (STORE_DEFAULT_PATH). */
const char *cli_db_path(const char *flag);
/* Print diag's messages on stderr and clear them; were any errors? */
struct sim_diag;
bool cli_flush_diag(struct sim_diag *d);
/* A JSON document built in b on stdout (an error object instead when b ran
 * out of memory); frees b. */
struct sim_buf;
void cli_put_json(struct sim_buf *b);
/* --spread-samples N (run, sweep, explain): 0 <= N <= EXEC_SPREAD_MAX into
 * *out, 0; -1 when text is not such a count (the caller reports
 * CLI_SAMPLES_MSG). */
int cli_parse_samples(const char *text, long *out);
#define CLI_SAMPLES_MSG "--spread-samples takes a count from 0 to 100000"

/* What a step exposes of its communication, the most of any rank class
 * (exec_cat_most) per group of cats[0..n) with some, in that order:
 * "dp 0.81 s, tp 3.73 s" with each_s, else "dp 0.81, tp 3.73 s"; "none"
 * without any (explain's section 9, the sweep's risky lines). */
void cli_exposed_text(const exec_result *r, const exec_cat *cats, size_t n, bool each_s,
                      char *buf, size_t len);

/* A step difference term by term (exec_step_diff), as the sweep's "loses"
 * lines and compare's explanation print it: "+0.0590 s: tp +0.0440,
 * compute +0.0200, dp -0.0070", the terms largest first (the first, when
 * positive, the one that makes the slower step lose), each to the table's
 * 0.1 ms; terms that print as zero are left out. */
void cli_step_diff_text(const exec_step_diff *d, char *buf, size_t len);
/* A breakdown category in words after "spends X s less" ("waiting on
 * data-parallel communication"), and the settings that move it, most direct
 * first, NULL-terminated (compare's explanation, explain --against). */
const char *cli_cat_words(exec_cat c);
const char *const *cli_cat_settings(exec_cat c);

/* Read the tables a prediction is judged against (valid_refs_load) from
 * cli_datadir(); diagnostics on stderr. Returns 0 or an exit status. */
struct valid_refs;
int cli_load_refs(struct valid_refs **out);

/* The energy and CO2 lines (energy.c): `title`, then each term of *e with
 * its source; gpu names the GPU type, node_src where the node power is set;
 * opts: the inputs came from estimate's options, not [cluster] keys. */
#include <stdbool.h>
#include <stdio.h>
struct sweep_energy;
void cli_energy_print(FILE *f, const char *title, const struct sweep_energy *e, const char *gpu,
		      const char *node_src, bool opts);
/* The same terms as a JSON object `"energy_per_step":{...}` member (no
 * leading comma) appended to b: each term's value and its source. */
struct sim_buf;
void cli_energy_json(struct sim_buf *b, const struct sweep_energy *e, const char *gpu,
		     const char *node_src);

/* What makes a plan fit (sweep_fit_remedy, remedy.c): two "  fits with"
 * lines, or the one that says nothing of the split does; the JSON member
 * `"fit_with":{...}` (no leading comma) appended to b. */
struct sweep_remedy;
void cli_remedy_print(FILE *f, const struct sweep_remedy *r);
void cli_remedy_json(struct sim_buf *b, const struct sweep_remedy *r);

/* podsim estimate: back-of-the-envelope memory, GPU-count and compute figures
 * (estimate.c). */
int cli_estimate(int argc, char **argv);

/* podsim explain: each headline number's formula, values plugged in, and the
 * simulated figure next to it (explain.c). */
int cli_explain(int argc, char **argv);

/* podsim sweep: explore, pre-screen, simulate and rank plans (sweep.c). */
int cli_sweep(int argc, char **argv);

/* podsim compare: stored runs side by side (compare.c). */
int cli_compare(int argc, char **argv);
/* podsim runs merge OUT IN...: combine run databases, e.g. sweep shards (compare.c). */
int cli_runs_merge(int argc, char **argv);

/* podsim calibrate: fit a GPU's efficiencies to measured kernels (calibrate.c). */
int cli_calibrate(int argc, char **argv);

/* podsim topo: the link graph of a cluster file (topo.c). */
int cli_topo(int argc, char **argv);

/* podsim coll: one collective, flow model vs alpha-beta (coll.c). */
int cli_coll(int argc, char **argv);

/* Load a cluster file (with --set overrides) and build its link graph;
 * diagnostics on stderr. Returns an exit status (topo.c). */
struct topo_graph;
int cli_topo_load(const char *path, const char *const *sets, int nsets, struct topo_graph **out);

/* podsim calibrate --framework: fit a software stack's per-op host overhead
 * to measured training steps (framework.c). */
int cli_calibrate_framework(int argc, char **argv);
/* `podsim calibrate CASES.csv --sustain --gpu NAME`: sustain.c. */
int cli_calibrate_sustain(int argc, char **argv);

/* podsim calibrate --fabric: fit a cluster's EFA fabric to its own
 * collective benchmarks (fabric.c). */
int cli_calibrate_fabric(int argc, char **argv);

/* podsim train: a training campaign with failures, checkpoints and
 * restarts on top of one simulated step (train.c). */
int cli_train(int argc, char **argv);
/* podsim serve: a serving scenario's request stream (serve.c); also `podsim
 * run` on a file with a [serve] section. */
int cli_serve(int argc, char **argv);
/* `podsim runs show` of serving run `id` (serve.c): its text or JSON as
 * `podsim serve` printed it. SIM_OK, SIM_ENOTFOUND, SIM_EDB, SIM_ENOMEM. */
int cli_show_serve(store *db, int64_t id, bool json, sim_diag *d);
/* podsim explain on a serving scenario: serve_explain (serve.c). */
int cli_serve_explain(int argc, char **argv);

/* podsim kernel: one kernel's time on a GPU type (kernel.c). */
int cli_kernel(int argc, char **argv);

#endif
