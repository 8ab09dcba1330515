/* exec.h - replay of a plan's task graph on the event engine, and the metrics
 * of the step.
 *
 * Semantics (CUDA-stream-like): each rank class has PLAN_STREAM_COUNT streams;
 * tasks on one stream run one at a time in the order they were added to the
 * graph; a task starts when its stream is free and every predecessor has ended,
 * and runs for its duration. The compute stream's idle gaps are attributed to
 * what it waited on (see exec.c for the rules), so that per rank class the
 * categories of exec_result sum to the step time.
 */
#ifndef PODSIM_EXEC_H
#define PODSIM_EXEC_H

#include "../plan/plan.h"
#include "result.h"

/* Replay g and fill the per-class times, step time and link loads of *r.
 * SIM_OK or SIM_ENOMEM; SIM_EINVAL if the graph has a cycle (a plan bug). */
int exec_replay(const plan_graph *g, const net_cluster *c, exec_result *r);

/* Whole run: build the graph of s, replay it, and fill every field of *r
 * (identity, headline metrics, memory, links). */
int exec_run(const plan_scenario *s, exec_result *r);

/* The same, also writing the replayed timeline to `trace` (if non-NULL) in the
 * Chrome trace event format that Perfetto and chrome://tracing open: one
 * process per rank class, one thread per stream, one complete event ("ph":"X")
 * per task with its kind, layer, micro-batch and bytes; times in microseconds. */
int exec_run_traced(const plan_scenario *s, exec_result *r, FILE *trace);
int exec_replay_traced(const plan_graph *g, const net_cluster *c, exec_result *r, FILE *trace);

#endif
