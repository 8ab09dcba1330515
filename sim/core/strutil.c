/* strutil.c - edit distance for "did you mean" notes. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* Levenshtein distance with two rolling rows: d[j] = distance between the
 * first i characters of a and the first j of b. */
int sim_levenshtein(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (n > 255 || strlen(a) > 255)
		return 255;
	int prev[256], cur[256];
	for (size_t j = 0; j <= n; j++)
		prev[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (n + 1) * sizeof *prev);
	}
	return prev[n];
}
