/* explain_int.h - internals of `podsim explain` shared by its files (not a
 * module API; cli.h declares the command): the number formats and the
 * wrapped "why" line every section prints with, and one function per
 * section, called in order by cli_explain (explain.c). Each section prints
 * to o, computing nothing that plan, exec or valid do not already give. */
#ifndef PODSIM_CLI_EXPLAIN_INT_H
#define PODSIM_CLI_EXPLAIN_INT_H

#include "cli.h"

#include "exec/exec.h"
#include "valid/valid.h"

#include <stddef.h>
#include <stdio.h>

#define EXPLAIN_MAX_STAGES  8  /* per-stage lists print at most this many */
#define EXPLAIN_MAX_BUCKETS 8  /* section 5 lists these buckets and the last */
#define EXPLAIN_COLS        96 /* "why" lines wrap here */

/* Formats into buf (len bytes), returning buf: an integer-valued count
 * grouped by thousands ("1,678,000"); bytes with one decimal in binary
 * units ("17.8 GiB"); a value in unit u (sim_unit_format). */
const char *explain_cnt(double v, char *buf, size_t len);
const char *explain_gib(double v, char *buf, size_t len);
const char *explain_unit(double v, sim_unit u, char *buf, size_t len);
/* "  why          TEXT" with TEXT wrapped at EXPLAIN_COLS columns under itself. */
void explain_why(FILE *o, const char *text);

/* The sections, in the order cli_explain prints them (numbers as printed). */
void explain_params(FILE *o, const work_model *m);                          /* 1, model.c */
void explain_vocab(FILE *o, const plan_scenario *s);                        /* 1, model.c */
void explain_flops(FILE *o, const plan_scenario *s, const exec_result *r);  /* 2, model.c */
void explain_memory(FILE *o, const plan_scenario *s, const exec_result *r); /* 3, mem.c */
void explain_bubble(FILE *o, const plan_scenario *s, const exec_result *r); /* 4, step.c */
void explain_dp(FILE *o, const plan_scenario *s, const exec_result *r);     /* 5, dp.c */
void explain_band(FILE *o, const plan_scenario *s, const exec_result *r,
                  const valid_refs *refs);                                     /* 6, spread.c */
void explain_mb_cost(FILE *o, const plan_scenario *s, const exec_result *r);   /* 7, step.c */
void explain_optimizer(FILE *o, const plan_scenario *s, const exec_result *r); /* 8, step.c */
/* With cp > 1, after the numbered sections and the mixed nodes' (cp.c). */
void explain_cp(FILE *o, int number, const plan_scenario *s, const exec_result *r);
void explain_spread(FILE *o, const plan_scenario *s, const exec_result *r);    /* 9, spread.c */
void explain_mixed(FILE *o, const plan_scenario *s, const exec_result *r);     /* 10, spread.c */
/* --kernels: one layer's kernels, numbered `number` (kernels.c). */
void explain_kernels(FILE *o, int number, const plan_scenario *s);

/* --against: best (the best of a space: the --vary dimensions, or
 * parallel.tp, pp and micro_batch = auto) or a plan "KEY=V[,KEY=V...]";
 * the space and the search's result once searched (against.c). */
#define EXPLAIN_MAX_VARY 8
struct sweep_space;
struct sweep_pick;
typedef struct explain_against {
	const char *spec; /* NULL: no section */
	bool best;
	const char *vary[EXPLAIN_MAX_VARY];
	size_t nvary;
	struct sweep_space *sp;
	struct sweep_pick *pick;
} explain_against;
/* Search the other plan for scenario s (loaded from path with sets) before
 * anything is printed: SIM_OK; SIM_ECONF for a bad --against or --vary or
 * a named plan that does not run (the error printed); others from the
 * search. Free with explain_against_free, also on error. */
int explain_against_search(explain_against *a, const char *path, const char *const *sets,
                           size_t nsets, const plan_scenario *s);
/* The last section, numbered `number`: what makes this plan (simulated as
 * r) lose to the other plan, or the other lose to it. */
void explain_against_print(FILE *o, int number, const explain_against *a, const exec_result *r);
void explain_against_free(explain_against *a);

#endif
