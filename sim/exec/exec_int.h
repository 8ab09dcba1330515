/* exec_int.h - internals shared by the files of sim/exec. */
#ifndef PODSIM_EXEC_INT_H
#define PODSIM_EXEC_INT_H

#include "exec.h"

/* A replay of g set up once (predecessor lists, stream FIFOs) and run as
 * often as wanted, for the sampled replays of the step's spread
 * (spread.c): each run replays g on c as exec_replay does, reading the
 * tasks' durations from g->tasks at that moment, and gives only the step
 * time (the last task's end): no breakdown, links or views. SIM_OK,
 * SIM_ENOMEM or SIM_EINVAL (a cycle). g must outlive the replayer. */
typedef struct exec_replayer exec_replayer;
int exec_replayer_new(const plan_graph *g, exec_replayer **out);
int exec_replayer_run(exec_replayer *x, const net_cluster *c, sim_time *step);
void exec_replayer_free(exec_replayer *x);

#endif
