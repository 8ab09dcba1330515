/* engine.c - the discrete-event engine: a pending set ordered by (time,
 * priority, sequence), popped in order while simulated time advances.
 *
 * Ids and pending events. An event's id is its sequence number + 1 (never
 * 0, never reused). Whether it is still pending is one bit in a bitmap
 * indexed by sequence number, in pages of PAGE_EVENTS bits that are freed
 * once every event of the page ran or was cancelled (a count per page), so
 * memory follows the span of sequence numbers still pending, not the run's
 * length. The events pending at once were scheduled close together, so the
 * bits a run reads sit in a few pages that stay in cache, where a record
 * per event slot (payload, generation) cost a cache miss for every event
 * run at a million pending events.
 * The payload (fn, ctx, arg) travels in the queue entry with the key (48
 * bytes; with SIM_PLAIN_MALLOC a pointer to its own malloc, freed when the
 * event runs or its cancelled entry is dropped, so ASan and valgrind see
 * each one). Scheduling allocates nothing once the buckets have grown.
 *
 * The queue: a radix heap on time with a binary heap for the front. The key
 * order is lexicographic on (at, priority, seq); seq is a counter assigned
 * at scheduling, so no two keys are equal: the order is strict and total,
 * and the order of simultaneous events is reproducible.
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
 * sets last to its smallest time m (each bucket keeps its minimum as
 * entries arrive) and re-files its entries: those at m go to the front, the
 * others differ from m below bit p (they agreed with the old last above p,
 * and so does m) and go to lower buckets. Entries of a
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
 * Cancel is lazy: it clears the event's pending bit and leaves the entry
 * queued; an entry whose bit is clear is stale and is dropped when it
 * reaches the front's top. So cancel is O(1) and no entry's position needs
 * tracking while buckets are re-filed; a cancelled entry holds its 48 bytes
 * until its time comes (exec's retimes cancel at most one entry per change
 * of a task's rate).
 */
#include "core.h"

#include <stdlib.h>

#if defined(SIM_PLAIN_MALLOC) && SIM_PLAIN_MALLOC
#define PLAIN_MALLOC 1
#else
#define PLAIN_MALLOC 0
#endif

#define PAGE_SHIFT 15u
#define PAGE_EVENTS (1u << PAGE_SHIFT) /* pending bits per page */
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
#if PLAIN_MALLOC
	event *ev;
#else
	event ev;
#endif
} qnode;

typedef struct bucket {
	qnode *v;
	size_t n, cap;
	sim_time min; /* the smallest time in v (valid while n > 0) */
} bucket;

struct sim_engine {
	qnode *front;
	size_t nfront, front_cap;
	bucket b[BUCKETS];
	uint64_t full; /* bit p: bucket p not empty */
	sim_time last;
	size_t pending; /* events scheduled and neither run nor cancelled */
	uint64_t **page; /* pending bits by seq >> PAGE_SHIFT, NULL: none */
	uint32_t *page_n; /* pending events per page */
	size_t npages;
	sim_time now;
	uint64_t seq, run;
};

sim_engine *sim_engine_new(void)
{
	return calloc(1, sizeof(sim_engine));
}

static void drop_payload(qnode *n)
{
#if PLAIN_MALLOC
	free(n->ev);
	n->ev = NULL;
#else
	(void)n;
#endif
}

void sim_engine_free(sim_engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nfront; i++)
		drop_payload(&e->front[i]);
	for (int p = 0; p < BUCKETS; p++) {
		for (size_t i = 0; i < e->b[p].n; i++)
			drop_payload(&e->b[p].v[i]);
		free(e->b[p].v);
	}
	for (size_t i = 0; i < e->npages; i++)
		free(e->page[i]);
	free(e->page);
	free(e->page_n);
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
	if (b->n == 0 || n.at < b->min)
		b->min = n.at;
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
	sim_time m = b->min; /* kept by bucket_push: one pass, not two */
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

/* --------------------------------------------------------- pending bits -- */

static inline bool is_pending(const sim_engine *e, uint64_t seq)
{
	size_t pg = seq >> PAGE_SHIFT;
	return pg < e->npages && e->page[pg] &&
	       (e->page[pg][(seq & (PAGE_EVENTS - 1)) >> 6] >> (seq & 63) & 1);
}

/* Mark seq (the next sequence number) pending. False: no memory. */
static bool set_pending(sim_engine *e, uint64_t seq)
{
	size_t pg = seq >> PAGE_SHIFT;
	if (pg >= e->npages) {
		size_t n = e->npages ? 2 * e->npages : 64;
		uint64_t **p = realloc(e->page, n * sizeof *p);
		if (!p)
			return false;
		e->page = p;
		uint32_t *c = realloc(e->page_n, n * sizeof *c);
		if (!c)
			return false;
		e->page_n = c;
		for (size_t i = e->npages; i < n; i++)
			e->page[i] = NULL, e->page_n[i] = 0;
		e->npages = n;
	}
	if (!e->page[pg] && !(e->page[pg] = calloc(PAGE_EVENTS / 64, sizeof(uint64_t))))
		return false;
	e->page[pg][(seq & (PAGE_EVENTS - 1)) >> 6] |= 1ull << (seq & 63);
	e->page_n[pg]++;
	return true;
}

/* seq ran or was cancelled: clear its bit; free its page when the page's
 * events are all done and no later event can land in it. */
static void clear_pending(sim_engine *e, uint64_t seq)
{
	size_t pg = seq >> PAGE_SHIFT;
	e->page[pg][(seq & (PAGE_EVENTS - 1)) >> 6] &= ~(1ull << (seq & 63));
	e->pending--;
	if (--e->page_n[pg] == 0 && pg != e->seq >> PAGE_SHIFT) {
		free(e->page[pg]);
		e->page[pg] = NULL;
	}
}

/* ----------------------------------------------------------------- API --- */

sim_event_id sim_engine_schedule(sim_engine *e, sim_time at, int priority, sim_event_fn fn,
				 void *ctx, uint64_t arg)
{
	if (at < e->now || !fn || e->seq == UINT64_MAX)
		return 0;
	qnode n = {.at = at, .seq = e->seq, .priority = priority};
#if PLAIN_MALLOC
	if (!(n.ev = malloc(sizeof *n.ev)))
		return 0;
	*n.ev = (event){fn, ctx, arg};
#else
	n.ev = (event){fn, ctx, arg};
#endif
	if (!set_pending(e, n.seq)) {
		drop_payload(&n);
		return 0;
	}
	e->pending++;
	if (!enqueue(e, n)) {
		clear_pending(e, n.seq);
		drop_payload(&n);
		return 0;
	}
	/* The page left behind may be done already (its events all ran). */
	size_t pg = e->seq >> PAGE_SHIFT;
	e->seq++;
	if ((e->seq >> PAGE_SHIFT) != pg && e->page_n[pg] == 0) {
		free(e->page[pg]);
		e->page[pg] = NULL;
	}
	return n.seq + 1;
}

int sim_engine_cancel(sim_engine *e, sim_event_id id)
{
	if (id == 0 || !is_pending(e, id - 1))
		return SIM_ENOTFOUND; /* ran, cancelled, or never issued */
	clear_pending(e, id - 1); /* its queue entry is now stale */
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
		qnode *top = &e->front[0];
		if (!is_pending(e, top->seq)) { /* cancelled: drop */
			drop_payload(top);
			front_pop(e);
			continue;
		}
		if (top->at > until)
			break;
		e->now = top->at;
#if PLAIN_MALLOC
		event x = *top->ev;
#else
		event x = top->ev;
#endif
		/* Release before the call: the callback may schedule, and
		 * cancelling the running event's own id is ENOTFOUND. */
		clear_pending(e, top->seq);
		drop_payload(top);
		front_pop(e);
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
