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

/* Extra views of the replayed timeline (any may be NULL / 0):
 *  trace: Chrome trace event format that Perfetto and chrome://tracing open:
 *         one process per rank class, one thread per stream, one complete
 *         event ("ph":"X") per task with its kind, layer, micro-batch and
 *         bytes; times in microseconds.
 *  gantt: a text chart of each rank class's compute stream over the step,
 *         gantt_width columns wide, like the textbook pipeline figures. */
typedef struct exec_views {
	FILE *trace;
	FILE *gantt;
	int gantt_width;
} exec_views;

int exec_run_views(const plan_scenario *s, exec_result *r, const exec_views *v);
int exec_replay_views(const plan_graph *g, const net_cluster *c, exec_result *r,
		      const exec_views *v);

#endif
