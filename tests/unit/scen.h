/* scen.h - what the plan-level unit tests share: a scenario loaded from
 * configuration text or a file with --set assignments (diagnostics printed
 * and the load CHECKed), and a memory peak's term by name. */
#ifndef PODSIM_TEST_SCEN_H
#define PODSIM_TEST_SCEN_H

#include "../../sim/plan/plan.h"

/* The scenario of `text` (includes relative to the source root), or NULL
 * after a failed CHECK with the loader's diagnostics on stderr. */
plan_scenario *scen_load(const char *text);
/* The scenario file `path` with --set assignments (as podsim run loads
 * it), or NULL after a failed CHECK, diagnostics on stderr. */
plan_scenario *scen_file(const char *path, const char *const *sets, size_t n);
/* The bytes of the peak's terms named `name`, summed (0 when absent). */
double scen_term(const plan_mem_peak *p, const char *name);

#endif
