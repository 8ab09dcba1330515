/* arena.c - bump allocation in chunks, freed all at once (configuration,
 * topology and task graphs: many small objects with one lifetime).
 *
 * Invariants: every pointer handed out is 16-byte aligned (chunk data starts
 * on a 16-byte boundary and every size is rounded up to 16) and zeroed.
 * Small requests are carved from the head chunk, a fresh ARENA_CHUNK-byte
 * chunk replacing it when full. A request above ARENA_BIG gets a chunk of its
 * own, linked behind the head, so the head's free space is not abandoned.
 * sim_arena_used counts the bytes handed out (after rounding), not the bytes
 * reserved. */
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK ((size_t)64 * 1024) /* data bytes of an ordinary chunk */
#define ARENA_BIG (ARENA_CHUNK / 4)     /* larger requests get their own chunk */

typedef struct chunk {
	struct chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
} chunk;

struct sim_arena {
	chunk *head; /* the chunk small requests come from */
	size_t total;
};

sim_arena *sim_arena_new(void)
{
	return calloc(1, sizeof(sim_arena));
}

void sim_arena_free(sim_arena *a)
{
	if (!a)
		return;
	for (chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

static chunk *new_chunk(size_t size)
{
	chunk *c = aligned_alloc(16, sizeof(chunk) + size);
	if (c) {
		c->used = 0;
		c->size = size;
	}
	return c;
}

void *sim_arena_alloc(sim_arena *a, size_t size)
{
	if (size > SIZE_MAX - sizeof(chunk) - 16)
		return NULL;
	size = size ? (size + 15) & ~(size_t)15 : 16;
	chunk *c = a->head;
	if (size > ARENA_BIG) {
		c = new_chunk(size);
		if (!c)
			return NULL;
		if (a->head) { /* behind the head: its free space stays in use */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
		}
	} else if (!c || c->size - c->used < size) {
		c = new_chunk(ARENA_CHUNK);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	a->total += size;
	memset(p, 0, size);
	return p;
}

char *sim_arena_strdup(sim_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = sim_arena_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

char *sim_arena_printf(sim_arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? sim_arena_alloc(a, (size_t)n + 1) : NULL;
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

size_t sim_arena_used(const sim_arena *a)
{
	return a->total;
}
