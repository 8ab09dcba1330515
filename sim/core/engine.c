/* engine.c - the discrete-event engine.
 *
 * Events live in slabs of SLAB_EVENTS and are addressed by slot number; a free
 * list of slots recycles them, so scheduling does not call malloc per event
 * (with SIM_PLAIN_MALLOC each slab holds a single event, so every event is its
 * own allocation and ASan sees an access past it). The pending set is an array
 * binary heap of slot numbers ordered by the key (time, priority, seq):
 *   heap invariant: key(heap[i]) <= key(heap[2i+1]) and key(heap[2i+2]);
 *   seq is a counter assigned at scheduling, so no two keys are equal and the
 *   order of simultaneous events is the order they were scheduled in.
 * Each event records its heap position, so cancel removes it in O(log n): the
 * last heap element moves into the hole and sifts up or down. An id is
 * (generation << 32 | slot + 1); the generation changes whenever a slot is
 * reused, so a stale id is recognised.
 */
#include "core.h"

#include <stdlib.h>

#ifdef SIM_PLAIN_MALLOC
#define SLAB_EVENTS 1u
#else
#define SLAB_EVENTS 4096u
#endif

typedef struct event {
	sim_time at;
	int priority;
	uint64_t seq;
	sim_event_fn fn;
	void *ctx;
	uint64_t arg;
	uint32_t heap_pos; /* UINT32_MAX when not pending */
	uint32_t gen;
	uint32_t next_free;
} event;

struct sim_engine {
	event **slabs;
	size_t nslabs, slab_cap;
	uint32_t free_head; /* UINT32_MAX = none */
	uint32_t nslots;
	uint32_t *heap;
	size_t heap_len, heap_cap;
	sim_time now;
	uint64_t seq, run;
};

static event *ev(const sim_engine *e, uint32_t slot)
{
	return &e->slabs[slot / SLAB_EVENTS][slot % SLAB_EVENTS];
}

sim_engine *sim_engine_new(void)
{
	sim_engine *e = calloc(1, sizeof *e);
	if (e)
		e->free_head = UINT32_MAX;
	return e;
}

void sim_engine_free(sim_engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nslabs; i++)
		free(e->slabs[i]);
	free(e->slabs);
	free(e->heap);
	free(e);
}

static bool before(const event *a, const event *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->priority != b->priority)
		return a->priority < b->priority;
	return a->seq < b->seq;
}

static void place(sim_engine *e, size_t i, uint32_t slot)
{
	e->heap[i] = slot;
	ev(e, slot)->heap_pos = (uint32_t)i;
}

static void sift_up(sim_engine *e, size_t i)
{
	uint32_t slot = e->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(ev(e, slot), ev(e, e->heap[p])))
			break;
		place(e, i, e->heap[p]);
		i = p;
	}
	place(e, i, slot);
}

static void sift_down(sim_engine *e, size_t i)
{
	uint32_t slot = e->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= e->heap_len)
			break;
		if (c + 1 < e->heap_len && before(ev(e, e->heap[c + 1]), ev(e, e->heap[c])))
			c++;
		if (!before(ev(e, e->heap[c]), ev(e, slot)))
			break;
		place(e, i, e->heap[c]);
		i = c;
	}
	place(e, i, slot);
}

static uint32_t alloc_slot(sim_engine *e)
{
	if (e->free_head != UINT32_MAX) {
		uint32_t s = e->free_head;
		e->free_head = ev(e, s)->next_free;
		return s;
	}
	if (e->nslots % SLAB_EVENTS == 0) {
		if (e->nslots >= UINT32_MAX - SLAB_EVENTS)
			return UINT32_MAX;
		if (e->nslabs == e->slab_cap) {
			size_t cap = e->slab_cap ? 2 * e->slab_cap : 16;
			event **s = realloc(e->slabs, cap * sizeof *s);
			if (!s)
				return UINT32_MAX;
			e->slabs = s;
			e->slab_cap = cap;
		}
		event *slab = calloc(SLAB_EVENTS, sizeof *slab);
		if (!slab)
			return UINT32_MAX;
		e->slabs[e->nslabs++] = slab;
	}
	return e->nslots++;
}

static void free_slot(sim_engine *e, uint32_t slot)
{
	event *x = ev(e, slot);
	x->heap_pos = UINT32_MAX;
	x->gen++;
	x->next_free = e->free_head;
	e->free_head = slot;
}

sim_event_id sim_engine_schedule(sim_engine *e, sim_time at, int priority, sim_event_fn fn,
				 void *ctx, uint64_t arg)
{
	if (at < e->now || !fn)
		return 0;
	if (e->heap_len == e->heap_cap) {
		size_t cap = e->heap_cap ? 2 * e->heap_cap : 1024;
		uint32_t *h = realloc(e->heap, cap * sizeof *h);
		if (!h)
			return 0;
		e->heap = h;
		e->heap_cap = cap;
	}
	uint32_t slot = alloc_slot(e);
	if (slot == UINT32_MAX)
		return 0;
	event *x = ev(e, slot);
	x->at = at;
	x->priority = priority;
	x->seq = e->seq++;
	x->fn = fn;
	x->ctx = ctx;
	x->arg = arg;
	e->heap_len++;
	place(e, e->heap_len - 1, slot);
	sift_up(e, e->heap_len - 1);
	return ((uint64_t)x->gen << 32) | ((uint64_t)slot + 1);
}

static void remove_at(sim_engine *e, size_t i)
{
	uint32_t last = e->heap[--e->heap_len];
	if (i == e->heap_len)
		return;
	place(e, i, last);
	if (i > 0 && before(ev(e, last), ev(e, e->heap[(i - 1) / 2])))
		sift_up(e, i);
	else
		sift_down(e, i);
}

int sim_engine_cancel(sim_engine *e, sim_event_id id)
{
	uint64_t s = id & 0xffffffffu;
	if (s == 0 || s > e->nslots)
		return SIM_ENOTFOUND;
	uint32_t slot = (uint32_t)(s - 1);
	event *x = ev(e, slot);
	if (x->gen != (uint32_t)(id >> 32) || x->heap_pos == UINT32_MAX)
		return SIM_ENOTFOUND;
	remove_at(e, x->heap_pos);
	free_slot(e, slot);
	return SIM_OK;
}

sim_time sim_engine_now(const sim_engine *e)
{
	return e->now;
}

uint64_t sim_engine_run(sim_engine *e, sim_time until)
{
	uint64_t n = 0;
	while (e->heap_len > 0) {
		uint32_t slot = e->heap[0];
		event *x = ev(e, slot);
		if (x->at > until)
			break;
		remove_at(e, 0);
		e->now = x->at;
		sim_event_fn fn = x->fn;
		void *ctx = x->ctx;
		uint64_t arg = x->arg;
		free_slot(e, slot); /* before the call: the callback may schedule */
		fn(e, ctx, arg);
		n++;
		e->run++;
	}
	return n;
}

size_t sim_engine_pending(const sim_engine *e)
{
	return e->heap_len;
}

uint64_t sim_engine_events_run(const sim_engine *e)
{
	return e->run;
}
