/* engine.c - the discrete-event engine: a pending set ordered by (time,
 * priority, sequence), popped in order while simulated time advances.
 *
 * Layout. An event has a slot number. Per slot the engine keeps one 32-byte
 * record in slabs of SLAB_EVENTS records whose addresses never move: the
 * payload (fn, ctx, arg; with SIM_PLAIN_MALLOC a pointer to its own malloc,
 * freed when the event runs or is cancelled, so ASan and valgrind see each
 * one) and a word that is the sequence number of the event pending in the
 * slot, or, with FREE_BIT set, the next free slot. Free slots form a singly
 * linked list through that word, so after warm-up scheduling allocates
 * nothing. Running an event reads and releases one record: one cache line,
 * where a separate metadata array would be a second miss per event at a
 * million pending events.
 *
 * Ids. An id is (seq mod 2^32) << 32 | (slot + 1): never 0, and it matches
 * its slot only while that slot holds the event with that sequence number,
 * so an id whose event ran or was cancelled (the slot free, or holding a
 * later event) answers SIM_ENOTFOUND. (A slot reused by an event 2^32
 * schedulings later could alias a stale id: accepted.)
 *
 * The queue: a radix heap on time with a binary heap for the front. The key
 * order is lexicographic on (at, priority, seq); seq is a counter assigned
 * at scheduling, so no two keys are equal: the order is strict and total,
 * and the order of simultaneous events is reproducible. Queue entries hold
 * the key and the slot (24 bytes), so ordering never reads the payloads.
 * `last` is a time, never larger than the smallest time still queued in
 * the buckets:
 *   - the front, front[0..nfront): a binary heap on the whole key, holding
 *     every entry with at <= last (Invariant H: for i > 0,
 *     key(front[(i-1)/2]) < key(front[i]); by transitivity front[0] is its
 *     minimum);
 *   - bucket p (0 <= p < 64) holds entries with at > last whose highest bit
 *     that differs from last is bit p (Invariant B). Two times in bucket p
 *     agree with last above bit p and have bit p set where last has it
 *     clear, so every time in bucket p is below every time in bucket q > p,
 *     and every bucket's times exceed last, hence every front time.
 * So the front's minimum is the queue's minimum whenever the front is not
 * empty. When it is empty, refill() takes the lowest non-empty bucket p,
 * sets last to its smallest time m and re-files its entries: those at m go
 * to the front, the others differ from m below bit p (they agreed with the
 * old last above p, and so does m) and go to lower buckets. Entries of a
 * bucket q > p keep Invariant B: m agrees with the old last on bits >= p + 1,
 * hence on bit q and above. Every re-filing moves an entry to a lower
 * bucket, so an entry moves at most 64 times, and in practice about as
 * often as the bits of its delay; the buckets are scanned and appended in
 * order, so at a million pending events the work streams through memory
 * instead of chasing a binary heap's 20 levels through cache misses (the
 * structure of Ahuja, Mehlhorn, Orlin and Tarjan's radix heap, 1990, on
 * 64-bit times, with the same-time entries ordered by the full key).
 * Scheduling at a time <= last (run() can move last past now when it
 * refills and then stops at `until`) puts the entry in the front: still
 * ordered, the invariants hold.
 *
 * Cancel is lazy: it releases the slot at once and leaves the entry
 * queued; an entry whose seq is not its slot's is stale and is dropped when
 * it reaches the front's top. So cancel is O(1) and no
 * entry's position needs tracking while buckets are re-filed.
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
#define FREE_BIT (1ull << 63)          /* a free slot's word: FREE_BIT | next */
#define MAX_SLOTS (UINT32_MAX - SLAB_EVENTS)
#define BUCKETS 64

typedef struct event {
	sim_event_fn fn;
	void *ctx;
	uint64_t arg;
} event;

typedef struct qnode {
	sim_time at;
	uint64_t seq;
	int priority;
	uint32_t slot;
} qnode;

typedef struct slot_rec {
#if PLAIN_MALLOC
	event *ev;
#else
	event ev;
#endif
	uint64_t word; /* the pending event's seq, or FREE_BIT | next free slot */
} slot_rec;

typedef struct bucket {
	qnode *v;
	size_t n, cap;
} bucket;

struct sim_engine {
	qnode *front;
	size_t nfront, front_cap;
	bucket b[BUCKETS];
	uint64_t full; /* bit p: bucket p not empty */
	sim_time last;
	size_t pending; /* events scheduled and neither run nor cancelled */
	slot_rec **slabs;
	size_t nslabs, slabs_cap;
	uint32_t nslots, free_head;
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
	for (uint32_t s = 0; s < e->nslots; s++)
		if (!(e->slabs[s >> SLAB_SHIFT][s & (SLAB_EVENTS - 1)].word & FREE_BIT))
			free(e->slabs[s >> SLAB_SHIFT][s & (SLAB_EVENTS - 1)].ev);
#endif
	for (size_t i = 0; i < e->nslabs; i++)
		free(e->slabs[i]);
	free(e->slabs);
	for (int p = 0; p < BUCKETS; p++)
		free(e->b[p].v);
	free(e->front);
	free(e);
}

/* ------------------------------------------------------------ the front -- */

static inline bool before(const qnode *a, const qnode *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->priority != b->priority)
		return a->priority < b->priority;
	return a->seq < b->seq;
}

/* Push n onto the front (sift up: H may fail only between the new node and
 * its parent; moving the parent down keeps the parent's other subtree
 * valid). The caller made room. */
static void front_push(sim_engine *e, qnode n)
{
	size_t i = e->nfront++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&n, &e->front[p]))
			break;
		e->front[i] = e->front[p];
		i = p;
	}
	e->front[i] = n;
}

/* Remove the front's top (the last node sifts down from the root: H may fail
 * only between it and its children; taking the smaller child up restores H
 * there). */
static void front_pop(sim_engine *e)
{
	qnode n = e->front[--e->nfront];
	size_t len = e->nfront, i = 0;
	if (len == 0)
		return;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= len)
			break;
		if (c + 1 < len && before(&e->front[c + 1], &e->front[c]))
			c++;
		if (!before(&e->front[c], &n))
			break;
		e->front[i] = e->front[c];
		i = c;
	}
	e->front[i] = n;
}

static bool front_room(sim_engine *e, size_t more)
{
	if (e->nfront + more <= e->front_cap)
		return true;
	size_t cap = e->front_cap ? e->front_cap : 1024;
	while (cap < e->nfront + more)
		cap *= 2;
	qnode *f = realloc(e->front, cap * sizeof *f);
	if (!f)
		return false;
	e->front = f;
	e->front_cap = cap;
	return true;
}

/* ----------------------------------------------------------- the buckets -- */

static inline int bucket_of(sim_time at, sim_time last)
{
	return 63 - __builtin_clzll((uint64_t)at ^ (uint64_t)last);
}

static bool bucket_push(sim_engine *e, int p, qnode n)
{
	bucket *b = &e->b[p];
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		qnode *v = realloc(b->v, cap * sizeof *v);
		if (!v)
			return false;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = n;
	e->full |= 1ull << p;
	return true;
}

/* Queue n (front or bucket by Invariant B). */
static bool enqueue(sim_engine *e, qnode n)
{
	if (n.at <= e->last)
		return front_room(e, 1) ? (front_push(e, n), true) : false;
	return bucket_push(e, bucket_of(n.at, e->last), n);
}

/* The front is empty: re-file the lowest bucket (header comment). False when
 * nothing is queued. Running out of memory half-way would lose events:
 * SIM_PANIC. */
static bool refill(sim_engine *e)
{
	if (!e->full)
		return false;
	int p = __builtin_ctzll(e->full);
	bucket *b = &e->b[p];
	sim_time m = b->v[0].at;
	for (size_t k = 1; k < b->n; k++)
		m = b->v[k].at < m ? b->v[k].at : m;
	e->last = m;
	if (!front_room(e, b->n))
		SIM_PANIC("event engine out of memory");
	for (size_t k = 0; k < b->n; k++) {
		qnode n = b->v[k];
		if (n.at == m)
			front_push(e, n);
		else if (!bucket_push(e, bucket_of(n.at, m), n))
			SIM_PANIC("event engine out of memory");
	}
	b->n = 0;
	e->full &= ~(1ull << p);
	return true;
}

/* ---------------------------------------------------------------- slots -- */

static inline slot_rec *rec(const sim_engine *e, uint32_t slot)
{
	return &e->slabs[slot >> SLAB_SHIFT][slot & (SLAB_EVENTS - 1)];
}

static inline event *payload(slot_rec *r)
{
#if PLAIN_MALLOC
	return r->ev;
#else
	return &r->ev;
#endif
}

/* Room for one more slot (a new slab every SLAB_EVENTS slots). */
static bool grow_slots(sim_engine *e)
{
	if (e->nslots >= MAX_SLOTS)
		return false;
	if ((e->nslots & (SLAB_EVENTS - 1)) == 0) {
		if (e->nslabs == e->slabs_cap) {
			size_t cap = e->slabs_cap ? 2 * e->slabs_cap : 16;
			slot_rec **s = realloc(e->slabs, cap * sizeof *s);
			if (!s)
				return false;
			e->slabs = s;
			e->slabs_cap = cap;
		}
		slot_rec *slab = malloc(SLAB_EVENTS * sizeof *slab);
		if (!slab)
			return false;
		e->slabs[e->nslabs++] = slab;
	}
	return true;
}

/* A free slot with its payload storage, or NO_SLOT when memory runs out. */
static uint32_t alloc_slot(sim_engine *e)
{
	uint32_t s = e->free_head;
	if (s != NO_SLOT) {
		e->free_head = (uint32_t)rec(e, s)->word;
	} else {
		if (!grow_slots(e))
			return NO_SLOT;
		s = e->nslots++;
	}
#if PLAIN_MALLOC
	rec(e, s)->ev = malloc(sizeof(event));
	if (!rec(e, s)->ev) {
		rec(e, s)->word = FREE_BIT | e->free_head;
		e->free_head = s;
		return NO_SLOT;
	}
#endif
	return s;
}

/* Release a slot whose event ran or was cancelled: stale ids and queue
 * entries stop matching. */
static inline void free_slot(sim_engine *e, uint32_t slot)
{
	slot_rec *r = rec(e, slot);
#if PLAIN_MALLOC
	free(r->ev);
	r->ev = NULL;
#endif
	r->word = FREE_BIT | e->free_head;
	e->free_head = slot;
	e->pending--;
}

/* ----------------------------------------------------------------- API --- */

sim_event_id sim_engine_schedule(sim_engine *e, sim_time at, int priority, sim_event_fn fn,
				 void *ctx, uint64_t arg)
{
	if (at < e->now || !fn || e->seq >= FREE_BIT)
		return 0;
	uint32_t slot = alloc_slot(e);
	if (slot == NO_SLOT)
		return 0;
	slot_rec *r = rec(e, slot);
	r->word = e->seq;
	e->pending++;
	if (!enqueue(e, (qnode){at, e->seq, priority, slot})) {
		free_slot(e, slot);
		return 0;
	}
	*payload(r) = (event){fn, ctx, arg};
	return (e->seq++ << 32) | ((uint64_t)slot + 1);
}

int sim_engine_cancel(sim_engine *e, sim_event_id id)
{
	uint64_t s = id & 0xffffffffu;
	if (s == 0 || s > e->nslots)
		return SIM_ENOTFOUND;
	uint32_t slot = (uint32_t)(s - 1);
	uint64_t w = rec(e, slot)->word;
	if ((w & FREE_BIT) || (w & 0xffffffffu) != id >> 32)
		return SIM_ENOTFOUND; /* ran, cancelled, or never issued */
	free_slot(e, slot); /* its queue entry is now stale */
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
	for (;;) {
		if (e->nfront == 0 && !refill(e))
			break;
		qnode top = e->front[0];
		slot_rec *r = rec(e, top.slot);
		if (r->word != top.seq) { /* cancelled: drop */
			front_pop(e);
			continue;
		}
		if (top.at > until)
			break;
		front_pop(e);
		/* The next event's record is a cache miss at a million pending
		 * events: start loading it while this one runs. */
		if (e->nfront > 0)
			__builtin_prefetch(rec(e, e->front[0].slot));
		e->now = top.at;
		event x = *payload(r);
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
	return e->pending;
}

uint64_t sim_engine_events_run(const sim_engine *e)
{
	return e->run;
}
