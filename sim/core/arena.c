/* arena.c - bump allocation in chunks, freed all at once. Each chunk starts
 * with its header; allocations are 16-byte aligned and zeroed. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (64 * 1024)

typedef struct chunk {
	struct chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
} chunk;

struct sim_arena {
	chunk *head;
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

void *sim_arena_alloc(sim_arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
		c = malloc(sizeof(chunk) + cap);
		if (!c)
			return NULL;
		c->size = cap;
		c->used = 0;
		if (size > ARENA_CHUNK / 4 && a->head) { /* big block: keep the open chunk */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
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
