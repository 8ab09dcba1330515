/* acc.c - a sparse per-link accumulator (topo_int.h).
 *
 * A collective on a large fabric touches few of its links: the data-parallel
 * reduce-scatter of a 65,536-GPU step (8 rings of 512 ranks, one per rail)
 * crosses 24,896 of the graph's 868,352 links (3 %). The accumulator keeps
 * two dense arrays over all links (bytes and saturated time), allocated
 * once by its owner, and the list of links written since the last clear;
 * every link off the list is 0.
 * Clearing zeroes the listed links only and a scan walks the list, so each
 * costs what the run touched; the owner (topo_coll_ctx) keeps one, the
 * loads of the algorithm a call simulates.
 *
 * Order. A scan of every link in increasing order and a walk of the sorted
 * list visit the nonzero links in the same order; the links they differ in
 * hold 0 and add nothing to a sum (x + 0 = x) nor beat a running maximum
 * that starts at 0, so sums and "the first link with the most" come out
 * bit-identical (group.c's classify, coll.c's hot link).
 */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

int topo_acc_init(topo_acc *a, int nlinks)
{
	size_t n = (size_t)(nlinks > 0 ? nlinks : 0) + 1;
	*a = (topo_acc){calloc(n, sizeof(double)),
	                calloc(n, sizeof(double)),
	                malloc(n * sizeof(int)),
	                calloc(n, 1),
	                0,
	                nlinks};
	if (!a->bytes || !a->sat || !a->list || !a->on) {
		topo_acc_free(a);
		return SIM_ENOMEM;
	}
	return SIM_OK;
}

void topo_acc_free(topo_acc *a)
{
	free(a->bytes);
	free(a->sat);
	free(a->list);
	free(a->on);
	memset(a, 0, sizeof *a);
}

void topo_acc_clear(topo_acc *a)
{
	for (int i = 0; i < a->n; i++) {
		int l = a->list[i];
		a->bytes[l] = 0;
		a->sat[l] = 0;
		a->on[l] = 0;
	}
	a->n = 0;
}

/* LSD radix sort of the list, 8 bits a pass over the digits link ids
 * need (3 passes up to 16 M links): O(n) where a comparison sort's
 * O(n log n) showed in the profile of a 131,072-GPU step. The list holds
 * distinct ids, so stability does not matter for the result; it is what
 * makes the passes compose. */
void topo_acc_sort(topo_acc *a)
{
	if (a->n < 2)
		return;
	int *tmp = malloc((size_t)a->n * sizeof *tmp);
	if (!tmp) { /* the same order, slower */
		for (int i = 1; i < a->n; i++) {
			int v = a->list[i], j = i;
			for (; j > 0 && a->list[j - 1] > v; j--)
				a->list[j] = a->list[j - 1];
			a->list[j] = v;
		}
		return;
	}
	int *src = a->list, *dst = tmp;
	for (int shift = 0; shift < 32 && (a->nlinks - 1) >> shift; shift += 8) {
		int at[257] = {0};
		for (int i = 0; i < a->n; i++)
			at[((unsigned)src[i] >> shift & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			at[d + 1] += at[d];
		for (int i = 0; i < a->n; i++)
			dst[at[(unsigned)src[i] >> shift & 255]++] = src[i];
		int *t = src;
		src = dst;
		dst = t;
	}
	if (src != a->list)
		memcpy(a->list, src, (size_t)a->n * sizeof *src);
	free(tmp);
}
