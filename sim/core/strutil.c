/* strutil.c - edit distance for "did you mean" notes (conf keys, sections,
 * units, enum values). Byte-wise: names in podsim files are ASCII. */
#include "core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Levenshtein distance (insertions, deletions, substitutions each cost 1) with
 * one rolling row: row[j] = distance between the first i bytes of a and the
 * first j bytes of b. O(|a|·|b|) time, O(|b|) space; short strings stay on the
 * stack. Returns INT_MAX only if memory for a very long b cannot be had. */
int sim_levenshtein(const char *a, const char *b)
{
	size_t n = strlen(b);
	int stack[64];
	int *row = n < 64 ? stack : malloc((n + 1) * sizeof *row);
	if (!row)
		return INT_MAX;
	for (size_t j = 0; j <= n; j++)
		row[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		int diag = row[0]; /* row[j - 1] of the previous i */
		row[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int sub = diag + (a[i - 1] != b[j - 1]);
			int del = row[j] + 1, ins = row[j - 1] + 1;
			diag = row[j];
			int best = sub < del ? sub : del;
			row[j] = best < ins ? best : ins;
		}
	}
	int d = row[n];
	if (row != stack)
		free(row);
	return d;
}
