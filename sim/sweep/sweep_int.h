/* sweep_int.h - internals of the sweep module shared by space.c (spaces,
 * sweep files), screen.c (pruning and the closed-form pre-screen), cost.c
 * and rank.c. Other modules use sweep.h. */
#ifndef PODSIM_SWEEP_INT_H
#define PODSIM_SWEEP_INT_H

#include "sweep.h"

/* One dimension: a key, its key-table entry and its values, as text and
 * parsed (integers, enum indices and booleans as doubles, quantities in SI). */
typedef struct sweep_dim {
	char key[SWEEP_KEY_MAX];     /* "parallel.tp" */
	char section[SWEEP_KEY_MAX]; /* "parallel" */
	const conf_key *k;
	bool is_auto;
	size_t n;
	char value[SWEEP_MAX_VALUES][SWEEP_VALUE_MAX];
	double num[SWEEP_MAX_VALUES];
} sweep_dim;

struct sweep_space {
	size_t ndims;
	bool dp_auto; /* parallel.dp=auto was given: dp is derived */
	sweep_dim dims[SWEEP_MAX_DIMS];
};

/* The key-table entry of SECTION.KEY, or NULL. */
const conf_key *sweep_find_key(const char *section, const char *key);
/* Parse text as a value of k: SIM_OK with *out, or SIM_ECONF with why in err. */
int sweep_parse_value(const conf_key *k, const char *text, double *out, char *err, size_t len);
/* Is dimension d a [parallel] key or cluster.nodes (applied to a copy)? */
bool sweep_dim_fast(const sweep_dim *d);

#endif
