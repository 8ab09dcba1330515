/* engine.c - the discrete-event engine: a pending set ordered by (time,
 * priority, sequence), popped in order while simulated time advances.
 *
 * Layout. An event has a slot number. Per slot the engine keeps
 *   - its payload (fn, ctx, arg), in slabs of SLAB_EVENTS payloads whose
 *     addresses never move (with SIM_PLAIN_MALLOC every payload is its own
 *     malloc, freed when the event runs or is cancelled, so ASan and valgrind
 *     see each one), and
 *   - its metadata {pos, gen} in one compact array: pos is the event's index in
 *     the heap while it is pending (the link of the free list once it is not),
 *     gen counts how often the slot was released.
 * Free slots form a singly linked list through pos, so after warm-up
 * scheduling allocates nothing.
 *
 * Ids. An id is (gen << 32) | (slot + 1): never 0, and a slot's gen goes up
 * each time it is released (event run or cancelled), so an id whose event is
 * gone no longer matches and cancel answers SIM_ENOTFOUND. A slot is pending
 * exactly while its gen equals the gen of the id that scheduled it, so no
 * separate "pending" flag is needed. (gen wraps after 2^32 reuses of one
 * slot; a stale id that old could then alias: accepted.)
 *
 * The heap. heap[0..len) holds one node per pending event with its key
 * copied in (at, priority, seq) plus its slot, so comparisons read only the
 * heap array, not the payload slabs (cache friendly at 1e6 pending events).
 * The key order is lexicographic on (at, priority, seq); seq is a counter
 * assigned at scheduling, so no two keys are equal: the order is strict and
 * total, and the order of simultaneous events is reproducible.
 *   Invariant H: for every i > 0, key(heap[(i-1)/2]) < key(heap[i]).
 *   Invariant P: for every pending slot s, heap[meta[s].pos].slot == s.
 * By H and transitivity the root is smaller than every node below it, i.e.
 * heap[0] is the unique minimum: popping the root repeatedly yields events in
 * sorted key order. The operations keep H:
 *   - sift_up(i): H may fail only between i and its parent (the node at i is
 *     too small). Swapping it with the parent moves the violation one level
 *     up and leaves the parent's other subtree valid (the old parent was
 *     already smaller than it, the new one is smaller still). Stops at the
 *     root or when the parent is smaller: O(log n).
 *   - sift_down(i): H may fail only between i and its children (the node at i
 *     is too large). Swapping with the smaller child c makes c's new key the
 *     smallest of the three, so H holds at i and may fail only below c.
 *   - remove_at(i) (pop is i = 0, cancel is any i): the last node fills the
 *     hole. It came from another subtree, so it may be smaller than the new
 *     parent (sift up) or larger than a child (sift down), never both: if it
 *     is smaller than the parent it is smaller than the children too, since
 *     the parent already was.
 * Every move of a node rewrites meta[slot].pos, keeping P, so cancel finds
 * its event's heap index in O(1) and removes it in O(log n).
 */
#include "core.h"

#include <stdlib.h>

#if defined(SIM_PLAIN_MALLOC) && SIM_PLAIN_MALLOC
#define PLAIN_MALLOC 1
#else
#define PLAIN_MALLOC 0
#endif

#define SLAB_SHIFT 12u
#define SLAB_EVENTS (1u << SLAB_SHIFT) /* payloads per slab */
#define NO_SLOT UINT32_MAX             /* end of the free list */
#define MAX_SLOTS (UINT32_MAX - SLAB_EVENTS)

typedef struct event {
	sim_event_fn fn;
	void *ctx;
	uint64_t arg;
} event;

typedef struct hnode {
	sim_time at;
	uint64_t seq;
	int priority;
	uint32_t slot;
} hnode;

typedef struct slot_meta {
	uint32_t pos; /* heap index while pending; next free slot while free */
	uint32_t gen;
} slot_meta;

struct sim_engine {
	hnode *heap;
	size_t len, cap;
	slot_meta *meta;
	uint32_t nslots, meta_cap, free_head;
#if PLAIN_MALLOC
	event **events; /* one malloc per pending event, NULL otherwise */
#else
	event **slabs;
	size_t nslabs, slabs_cap;
#endif
	sim_time now;
	uint64_t seq, run;
};

sim_engine *sim_engine_new(void)
{
	sim_engine *e = calloc(1, sizeof *e);
	if (e)
		e->free_head = NO_SLOT;
	return e;
}

void sim_engine_free(sim_engine *e)
{
	if (!e)
		return;
#if PLAIN_MALLOC
	for (size_t i = 0; i < e->len; i++)
		free(e->events[e->heap[i].slot]);
	free(e->events);
#else
	for (size_t i = 0; i < e->nslabs; i++)
		free(e->slabs[i]);
	free(e->slabs);
#endif
	free(e->meta);
	free(e->heap);
	free(e);
}

/* ------------------------------------------------------------- the heap -- */

static inline bool before(const hnode *a, const hnode *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->priority != b->priority)
		return a->priority < b->priority;
	return a->seq < b->seq;
}

static inline void place(sim_engine *e, size_t i, hnode n)
{
	e->heap[i] = n;
	e->meta[n.slot].pos = (uint32_t)i;
}

static void sift_up(sim_engine *e, size_t i)
{
	hnode n = e->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&n, &e->heap[p]))
			break;
		place(e, i, e->heap[p]);
		i = p;
	}
	place(e, i, n);
}

static void sift_down(sim_engine *e, size_t i)
{
	hnode n = e->heap[i];
	size_t len = e->len;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= len)
			break;
		/* The grandchildren (4i+3 .. 4i+6) are the next level's loads:
		 * fetching them now hides part of the cache-miss latency that
		 * dominates large heaps (1.5x at 1e6 pending events). */
		size_t g = 4 * i + 3;
		if (g < len) {
			__builtin_prefetch(&e->heap[g]);
			__builtin_prefetch(&e->heap[g + 3 < len ? g + 3 : g]);
		}
		if (c + 1 < len && before(&e->heap[c + 1], &e->heap[c]))
			c++;
		if (!before(&e->heap[c], &n))
			break;
		place(e, i, e->heap[c]);
		i = c;
	}
	place(e, i, n);
}

/* Remove heap[i]; the caller releases its slot. */
static void remove_at(sim_engine *e, size_t i)
{
	hnode last = e->heap[--e->len];
	if (i == e->len)
		return;
	e->heap[i] = last;
	if (i > 0 && before(&last, &e->heap[(i - 1) / 2]))
		sift_up(e, i);
	else
		sift_down(e, i);
}

/* ---------------------------------------------------------------- slots -- */

static inline event *payload(const sim_engine *e, uint32_t slot)
{
#if PLAIN_MALLOC
	return e->events[slot];
#else
	return &e->slabs[slot >> SLAB_SHIFT][slot & (SLAB_EVENTS - 1)];
#endif
}

/* Room for one more slot's metadata (and, per mode, its payload storage). */
static bool grow_slots(sim_engine *e)
{
	if (e->nslots >= MAX_SLOTS)
		return false;
	if (e->nslots == e->meta_cap) {
		uint64_t want = e->meta_cap ? 2 * (uint64_t)e->meta_cap : SLAB_EVENTS;
		uint32_t cap = want > MAX_SLOTS ? MAX_SLOTS : (uint32_t)want;
		slot_meta *m = realloc(e->meta, cap * sizeof *m);
		if (!m)
			return false;
		e->meta = m;
#if PLAIN_MALLOC
		event **ev = realloc(e->events, cap * sizeof *ev);
		if (!ev)
			return false; /* meta grew but meta_cap did not: harmless */
		e->events = ev;
#endif
		e->meta_cap = cap;
	}
#if !PLAIN_MALLOC
	if ((e->nslots & (SLAB_EVENTS - 1)) == 0) {
		if (e->nslabs == e->slabs_cap) {
			size_t cap = e->slabs_cap ? 2 * e->slabs_cap : 16;
			event **s = realloc(e->slabs, cap * sizeof *s);
			if (!s)
				return false;
			e->slabs = s;
			e->slabs_cap = cap;
		}
		event *slab = malloc(SLAB_EVENTS * sizeof *slab);
		if (!slab)
			return false;
		e->slabs[e->nslabs++] = slab;
	}
#endif
	return true;
}

/* A free slot with its payload storage, or NO_SLOT when memory runs out. */
static uint32_t alloc_slot(sim_engine *e)
{
	uint32_t s = e->free_head;
	if (s != NO_SLOT) {
		e->free_head = e->meta[s].pos;
	} else {
		if (!grow_slots(e))
			return NO_SLOT;
		s = e->nslots++;
		e->meta[s].gen = 0;
	}
#if PLAIN_MALLOC
	e->events[s] = malloc(sizeof(event));
	if (!e->events[s]) {
		e->meta[s].pos = e->free_head;
		e->free_head = s;
		return NO_SLOT;
	}
#endif
	return s;
}

/* Release a slot whose event ran or was cancelled: stale ids stop matching. */
static inline void free_slot(sim_engine *e, uint32_t slot)
{
#if PLAIN_MALLOC
	free(e->events[slot]);
	e->events[slot] = NULL;
#endif
	e->meta[slot].gen++;
	e->meta[slot].pos = e->free_head;
	e->free_head = slot;
}

/* ----------------------------------------------------------------- API --- */

sim_event_id sim_engine_schedule(sim_engine *e, sim_time at, int priority, sim_event_fn fn,
				 void *ctx, uint64_t arg)
{
	if (at < e->now || !fn)
		return 0;
	if (e->len == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 1024;
		hnode *h = realloc(e->heap, cap * sizeof *h);
		if (!h)
			return 0;
		e->heap = h;
		e->cap = cap;
	}
	uint32_t slot = alloc_slot(e);
	if (slot == NO_SLOT)
		return 0;
	*payload(e, slot) = (event){fn, ctx, arg};
	e->heap[e->len] = (hnode){at, e->seq++, priority, slot};
	sift_up(e, e->len++);
	return ((uint64_t)e->meta[slot].gen << 32) | ((uint64_t)slot + 1);
}

int sim_engine_cancel(sim_engine *e, sim_event_id id)
{
	uint64_t s = id & 0xffffffffu;
	if (s == 0 || s > e->nslots)
		return SIM_ENOTFOUND;
	uint32_t slot = (uint32_t)(s - 1);
	if (e->meta[slot].gen != (uint32_t)(id >> 32))
		return SIM_ENOTFOUND; /* ran or cancelled: the slot was released */
	uint32_t pos = e->meta[slot].pos;
	if (pos >= e->len || e->heap[pos].slot != slot)
		return SIM_ENOTFOUND; /* an id never issued (a free slot's gen) */
	remove_at(e, pos);
	free_slot(e, slot);
	return SIM_OK;
}

sim_time sim_engine_now(const sim_engine *e)
{
	return e->now;
}

/* now becomes each event's time as it runs; it is left at the last event run
 * (not advanced to `until`), so a later schedule may still use any time from
 * there on. */
uint64_t sim_engine_run(sim_engine *e, sim_time until)
{
	uint64_t n = 0;
	while (e->len > 0 && e->heap[0].at <= until) {
		hnode top = e->heap[0];
		remove_at(e, 0);
		e->now = top.at;
		event x = *payload(e, top.slot);
		/* Release before the call: the callback may schedule (and reuse the
		 * slot), and cancelling the running event's own id is ENOTFOUND. */
		free_slot(e, top.slot);
		x.fn(e, x.ctx, x.arg);
		n++;
		e->run++;
	}
	return n;
}

size_t sim_engine_pending(const sim_engine *e)
{
	return e->len;
}

uint64_t sim_engine_events_run(const sim_engine *e)
{
	return e->run;
}
