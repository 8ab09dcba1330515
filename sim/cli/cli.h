/* cli.h - internal header of the cli folder (not a module API): the commands
 * that live in their own file, called from main.c's dispatch. Each takes the
 * arguments after the command name and returns the process exit status
 * (0 ok, 1 runtime failure, 2 bad input). */
#ifndef PODSIM_CLI_H
#define PODSIM_CLI_H

/* podsim estimate: back-of-the-envelope memory, GPU-count and compute figures
 * (estimate.c). */
int cli_estimate(int argc, char **argv);

#endif
