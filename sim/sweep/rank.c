/* rank.c - comparing rankings and finding the Pareto front of a sweep. */
#include "../valid/valid.h"
#include "sweep_int.h"

double sweep_kendall_tau(const double *x, const double *y, size_t n)
{
	return valid_kendall_tau(x, y, n);
}

/* i dominates j when it is no worse on every axis and better on one. */
static bool dominates(const double *a, const double *b, const double *c, size_t i, size_t j)
{
	bool le = a[i] <= a[j] && b[i] <= b[j] && c[i] <= c[j];
	bool lt = a[i] < a[j] || b[i] < b[j] || c[i] < c[j];
	return le && lt;
}

void sweep_pareto(const double *a, const double *b, const double *c, size_t n, bool *front)
{
	for (size_t j = 0; j < n; j++) {
		front[j] = true;
		for (size_t i = 0; i < n && front[j]; i++)
			if (i != j && dominates(a, b, c, i, j))
				front[j] = false;
	}
}
