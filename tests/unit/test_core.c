/* test_core.c - unit tests of the core layer: time conversions, error codes
 * and overflow helpers, the arena, the event engine (ordering, ties,
 * cancellation, callbacks, run(until), a seeded randomized run against a
 * sorted reference), hashing, the string buffer and the RNG. */
#include "../../sim/core/core.h"
#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ----------------------------------------------------------------- time -- */

static void test_time(void)
{
	CHECK_INT(sim_time_from_s(1.0), SIM_PS_PER_S);
	CHECK_INT(sim_time_from_s(1e-12), 1);
	CHECK_INT(sim_time_from_s(0.4e-12), 0); /* rounds to nearest */
	CHECK_INT(sim_time_from_s(0.6e-12), 1);
	CHECK_INT(sim_time_from_s(1.5e-6), 1500000); /* 1.5 us */
	CHECK_INT(sim_time_from_s(2.5e-9), 2500);    /* 2.5 ns */
	CHECK_INT(sim_time_from_s(0.25), 250000000000LL);
	/* 9.2e6 s = 9.2e18 ps is exact in double and still below 2^63. */
	CHECK_INT(sim_time_from_s(9.2e6), 9200000000000000000LL);
	CHECK_INT(sim_time_from_s(1e7), SIM_TIME_MAX); /* past ~106 days */
	CHECK_INT(sim_time_from_s(1e300), SIM_TIME_MAX);
	CHECK_INT(sim_time_from_s(INFINITY), SIM_TIME_MAX);
	CHECK_INT(sim_time_from_s(0.0), 0);
	CHECK_INT(sim_time_from_s(-0.0), 0);
	CHECK_INT(sim_time_from_s(-1.0), 0);
	CHECK_INT(sim_time_from_s(-INFINITY), 0);
	CHECK_INT(sim_time_from_s(NAN), 0);
	/* saturating sums: past the clock stays at SIM_TIME_MAX, never wraps */
	CHECK_INT(sim_time_add_sat(2, 3), 5);
	CHECK_INT(sim_time_add_sat(SIM_TIME_MAX, 1), SIM_TIME_MAX);
	CHECK_INT(sim_time_add_sat(SIM_TIME_HORIZON + 1, SIM_TIME_HORIZON + 1), SIM_TIME_MAX);
	CHECK_INT(sim_time_add_sat(SIM_TIME_HORIZON, SIM_TIME_HORIZON), SIM_TIME_MAX - 1);
	CHECK(sim_time_to_s(2500000000000LL) == 2.5);
	CHECK(sim_time_to_s(0) == 0.0);
	CHECK_NEAR(sim_time_to_s(1), 1e-12, 1e-15);
	CHECK_INT(sim_time_from_s(sim_time_to_s(123456789)), 123456789);
}

static void test_err(void)
{
	int64_t r = 0;
	CHECK(sim_mul_i64(1 << 20, 1 << 20, &r) && r == (int64_t)1 << 40);
	CHECK(sim_mul_i64(-1, INT64_MAX, &r) && r == -INT64_MAX);
	CHECK(sim_mul_i64(INT64_MIN, 1, &r) && r == INT64_MIN);
	CHECK(!sim_mul_i64(INT64_MAX / 2, 3, &r));
	CHECK(!sim_mul_i64(INT64_MIN, -1, &r));
	CHECK(!sim_mul_i64((int64_t)1 << 32, (int64_t)1 << 31, &r)); /* 2^63 */
	CHECK(sim_mul_i64((int64_t)1 << 32, -((int64_t)1 << 31), &r) && r == INT64_MIN);
	CHECK(sim_add_i64(INT64_MAX, INT64_MIN, &r) && r == -1);
	CHECK(sim_add_i64(INT64_MAX - 1, 1, &r) && r == INT64_MAX);
	CHECK(!sim_add_i64(INT64_MAX, 1, &r));
	CHECK(!sim_add_i64(INT64_MIN, -1, &r));
	CHECK_STR(sim_strerror(SIM_OK), "success");
	CHECK_STR(sim_strerror(SIM_ENOTFOUND), "not found");
	CHECK_STR(sim_strerror(SIM_ENOMEM), "out of memory");
	CHECK_STR(sim_strerror(42), "unknown error");
}

/* ---------------------------------------------------------------- arena -- */

static void test_arena(void)
{
	sim_arena *a = sim_arena_new();
	CHECK_INT(sim_arena_used(a), 0);
	CHECK(sim_arena_alloc(a, 1) != NULL);
	CHECK_INT(sim_arena_used(a), 16); /* rounded up to the alignment */
	CHECK(sim_arena_alloc(a, 17) != NULL);
	CHECK_INT(sim_arena_used(a), 48);
	CHECK(sim_arena_alloc(a, 0) != NULL);
	CHECK_INT(sim_arena_used(a), 64);
	/* Many allocations across many chunks: aligned, zeroed, disjoint (each
	 * block is filled with its own byte and checked at the end). */
	enum { N = 20000 };
	unsigned char **p = malloc(N * sizeof *p);
	int bad_align = 0, bad_zero = 0, bad_fill = 0;
	for (int i = 0; i < N; i++) {
		size_t n = (size_t)(i * 37 % 301) + 1;
		if (i % 1000 == 999)
			n = 100000; /* large: its own chunk */
		p[i] = sim_arena_alloc(a, n);
		bad_align += ((uintptr_t)p[i] % 16) != 0;
		for (size_t k = 0; k < n; k++)
			bad_zero += p[i][k] != 0;
		memset(p[i], i & 0xff, n);
	}
	for (int i = 0; i < N; i++) {
		size_t n = (size_t)(i * 37 % 301) + 1;
		if (i % 1000 == 999)
			n = 100000;
		for (size_t k = 0; k < n; k++)
			bad_fill += p[i][k] != (unsigned char)(i & 0xff);
	}
	CHECK_INT(bad_align, 0);
	CHECK_INT(bad_zero, 0);
	CHECK_INT(bad_fill, 0);
	CHECK(sim_arena_used(a) > (size_t)20 * 100000);
	free(p);
	char *big = sim_arena_alloc(a, (size_t)1 << 20);
	CHECK(big != NULL && big[0] == 0 && big[((size_t)1 << 20) - 1] == 0);
	CHECK(sim_arena_alloc(a, SIZE_MAX - 8) == NULL); /* size overflow, not a wrap */
	const char *src = "nvlink";
	char *dup = sim_arena_strdup(a, src);
	CHECK_STR(dup, "nvlink");
	CHECK(dup != src && ((uintptr_t)dup % 16) == 0);
	CHECK_STR(sim_arena_strdup(a, ""), "");
	CHECK_STR(sim_arena_printf(a, "%s-%d", "gpu", 7), "gpu-7");
	sim_arena_free(a);
	sim_arena_free(NULL);
}

/* ------------------------------------------------------ engine: basics -- */

typedef struct trace {
	uint64_t seen[64];
	sim_time at[64];
	int n;
	sim_event_id self, victim; /* for the cancel-from-callback case */
	int self_rc, victim_rc;
} trace;

static void record(sim_engine *e, void *ctx, uint64_t arg)
{
	trace *t = ctx;
	if (t->n < 64) {
		t->at[t->n] = sim_engine_now(e);
		t->seen[t->n++] = arg;
	}
}

static void test_engine_ties(void)
{
	sim_engine *e = sim_engine_new();
	trace t = {0};
	CHECK_INT(sim_engine_now(e), 0);
	/* Time first; at equal time lower priority; then scheduling order. */
	sim_engine_schedule(e, 100, 1, record, &t, 1);
	sim_engine_schedule(e, 100, 0, record, &t, 2);
	sim_engine_schedule(e, 50, 5, record, &t, 3);
	sim_engine_schedule(e, 100, 1, record, &t, 4);
	sim_engine_schedule(e, 100, -3, record, &t, 5);
	sim_engine_schedule(e, 100, 1, record, &t, 6);
	sim_engine_schedule(e, 0, 0, record, &t, 7);
	CHECK_INT(sim_engine_pending(e), 7);
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 7);
	static const uint64_t want[] = {7, 3, 5, 2, 1, 4, 6};
	for (int i = 0; i < 7; i++)
		CHECK_INT(t.seen[i], want[i]);
	CHECK_INT(t.at[0], 0);
	CHECK_INT(t.at[1], 50);
	CHECK_INT(t.at[6], 100);
	CHECK_INT(sim_engine_now(e), 100);
	CHECK_INT(sim_engine_pending(e), 0);
	CHECK_INT(sim_engine_events_run(e), 7);
	/* In the past: refused. At now: fine. No function: refused. */
	CHECK_INT(sim_engine_schedule(e, 99, 0, record, &t, 8), 0);
	CHECK(sim_engine_schedule(e, 100, 0, record, &t, 9) != 0);
	CHECK_INT(sim_engine_schedule(e, 200, 0, NULL, &t, 10), 0);
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 1);
	CHECK_INT(t.seen[7], 9);
	sim_engine_free(e);
}

static void test_engine_cancel(void)
{
	sim_engine *e = sim_engine_new();
	trace t = {0};
	sim_event_id a = sim_engine_schedule(e, 10, 0, record, &t, 1);
	sim_event_id b = sim_engine_schedule(e, 20, 0, record, &t, 2);
	sim_event_id c = sim_engine_schedule(e, 30, 0, record, &t, 3);
	CHECK(a != 0 && b != 0 && c != 0 && a != b && b != c);
	CHECK_INT(sim_engine_cancel(e, b), SIM_OK); /* pending, in the middle */
	CHECK_INT(sim_engine_pending(e), 2);
	CHECK_INT(sim_engine_cancel(e, b), SIM_ENOTFOUND); /* twice */
	/* The freed slot is reused; the old id must not reach the new event. */
	sim_event_id d = sim_engine_schedule(e, 25, 0, record, &t, 4);
	CHECK(d != b);
	CHECK_INT(sim_engine_cancel(e, b), SIM_ENOTFOUND);
	CHECK_INT(sim_engine_cancel(e, 0), SIM_ENOTFOUND);
	CHECK_INT(sim_engine_cancel(e, 12345), SIM_ENOTFOUND); /* never issued */
	CHECK_INT(sim_engine_cancel(e, ((uint64_t)7 << 32) | 1), SIM_ENOTFOUND);
	CHECK_INT(sim_engine_run(e, 10), 1); /* runs a only */
	CHECK_INT(sim_engine_cancel(e, a), SIM_ENOTFOUND); /* already ran */
	CHECK_INT(sim_engine_cancel(e, c), SIM_OK);        /* the root's sibling */
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 1);
	CHECK_INT(t.n, 2);
	CHECK_INT(t.seen[0], 1);
	CHECK_INT(t.seen[1], 4);
	CHECK_INT(sim_engine_cancel(e, d), SIM_ENOTFOUND);
	/* Cancel the only event, then the engine is empty. */
	sim_event_id f = sim_engine_schedule(e, 40, 0, record, &t, 5);
	CHECK_INT(sim_engine_cancel(e, f), SIM_OK);
	CHECK_INT(sim_engine_pending(e), 0);
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 0);
	CHECK_INT(sim_engine_events_run(e), 2);
	sim_engine_free(e);
}

/* Schedules a chain of follow-ups 10 ps apart, one at the same time with a
 * lower priority (runs before the pending arg-100 event), cancels a victim
 * and tries to cancel itself. */
static void chain(sim_engine *e, void *ctx, uint64_t arg)
{
	trace *t = ctx;
	record(e, ctx, arg);
	if (arg == 0) {
		t->self_rc = sim_engine_cancel(e, t->self);
		t->victim_rc = sim_engine_cancel(e, t->victim);
		sim_engine_schedule(e, sim_engine_now(e), -1, record, ctx, 50);
	}
	if (arg < 5)
		sim_engine_schedule(e, sim_engine_now(e) + 10, 0, chain, ctx, arg + 1);
}

static void test_engine_callbacks(void)
{
	sim_engine *e = sim_engine_new();
	trace t = {0};
	t.self = sim_engine_schedule(e, 300, 0, chain, &t, 0);
	sim_engine_schedule(e, 300, 0, record, &t, 100);
	t.victim = sim_engine_schedule(e, 320, 0, record, &t, 200);
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 8); /* 6 chain + 50 + 100 */
	CHECK_INT(t.self_rc, SIM_ENOTFOUND); /* a running event is no longer pending */
	CHECK_INT(t.victim_rc, SIM_OK);
	static const uint64_t want[] = {0, 50, 100, 1, 2, 3, 4, 5};
	static const sim_time want_at[] = {300, 300, 300, 310, 320, 330, 340, 350};
	for (int i = 0; i < 8; i++) {
		CHECK_INT(t.seen[i], want[i]);
		CHECK_INT(t.at[i], want_at[i]);
	}
	CHECK_INT(sim_engine_now(e), 350);
	sim_engine_free(e);
}

static void test_engine_until(void)
{
	sim_engine *e = sim_engine_new();
	trace t = {0};
	for (uint64_t i = 1; i <= 5; i++)
		sim_engine_schedule(e, (sim_time)i * 100, 0, record, &t, i);
	CHECK_INT(sim_engine_run(e, 50), 0); /* nothing due: now stays */
	CHECK_INT(sim_engine_now(e), 0);
	CHECK_INT(sim_engine_run(e, 300), 3); /* until is inclusive */
	CHECK_INT(sim_engine_now(e), 300);
	CHECK_INT(sim_engine_pending(e), 2);
	CHECK_INT(sim_engine_run(e, 399), 0);
	CHECK_INT(sim_engine_schedule(e, 250, 0, record, &t, 9), 0); /* before now */
	CHECK(sim_engine_schedule(e, 350, 0, record, &t, 6) != 0);
	CHECK_INT(sim_engine_run(e, SIM_TIME_MAX), 3);
	static const uint64_t want[] = {1, 2, 3, 6, 4, 5};
	for (int i = 0; i < 6; i++)
		CHECK_INT(t.seen[i], want[i]);
	CHECK_INT(sim_engine_events_run(e), 6);
	sim_engine_free(e);
}

/* -------------------------------------------- engine: randomized check -- */

typedef struct rkey {
	sim_time at;
	int prio;
	uint64_t seq; /* scheduling order */
} rkey;

typedef struct rlog {
	uint64_t *order; /* seq of each event run, in run order */
	size_t n;
} rlog;

static int rkey_cmp(const void *pa, const void *pb)
{
	const rkey *a = pa, *b = pb;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void log_run(sim_engine *e, void *ctx, uint64_t arg)
{
	(void)e;
	rlog *l = ctx;
	l->order[l->n++] = arg;
}

/* Schedule n events at random times >= base (few distinct times and
 * priorities, so ties are common), recording each key in ref[seq]. */
static void schedule_random(sim_engine *e, sim_rng *r, rlog *l, rkey *ref, sim_event_id *ids,
			    uint64_t first, uint64_t n, sim_time base)
{
	for (uint64_t s = first; s < first + n; s++) {
		ref[s].at = base + (sim_time)(sim_rng_uniform(r) * 5000);
		ref[s].prio = (int)(sim_rng_uniform(r) * 4) - 1;
		ref[s].seq = s;
		ids[s] = sim_engine_schedule(e, ref[s].at, ref[s].prio, log_run, l, s);
	}
}

/* Sort the events [lo, hi) of ref that were not cancelled and check they
 * match the run order from position *pos on. Returns mismatches. */
static int compare_ref(const rkey *ref, const bool *gone, uint64_t lo, uint64_t hi,
		       sim_time until, const rlog *l, size_t *pos)
{
	rkey *want = malloc((hi - lo) * sizeof *want);
	size_t m = 0;
	for (uint64_t s = lo; s < hi; s++)
		if (!gone[s] && ref[s].at <= until)
			want[m++] = ref[s];
	qsort(want, m, sizeof *want, rkey_cmp);
	int bad = 0;
	for (size_t i = 0; i < m; i++)
		bad += *pos + i >= l->n || l->order[*pos + i] != want[i].seq;
	*pos += m;
	free(want);
	return bad;
}

/* 100k events with random keys; a tenth cancelled at random; run to the
 * middle of the time range, add 20k more (now <= t), cancel some of those,
 * run to the end. Both phases must match a qsort of the surviving keys. */
static void test_engine_random(void)
{
	enum { N1 = 100000, N2 = 20000, N = N1 + N2 };
	sim_engine *e = sim_engine_new();
	sim_rng *r = sim_rng_new(20240611);
	rkey *ref = malloc(N * sizeof *ref);
	sim_event_id *ids = malloc(N * sizeof *ids);
	bool *gone = calloc(N, sizeof *gone);
	rlog l = {malloc(N * sizeof(uint64_t)), 0};
	schedule_random(e, r, &l, ref, ids, 0, N1, 0);
	int cancelled = 0, twice = 0;
	for (int k = 0; k < N1 / 10; k++) {
		uint64_t s = (uint64_t)(sim_rng_uniform(r) * N1);
		int rc = sim_engine_cancel(e, ids[s]);
		cancelled += rc == SIM_OK;
		twice += rc == SIM_ENOTFOUND; /* picked the same event again */
		CHECK(rc == (gone[s] ? SIM_ENOTFOUND : SIM_OK));
		gone[s] = true;
	}
	CHECK_INT(cancelled + twice, N1 / 10);
	CHECK_INT(sim_engine_pending(e), N1 - cancelled);
	size_t pos = 0;
	uint64_t ran = sim_engine_run(e, 2500);
	CHECK_INT(compare_ref(ref, gone, 0, N1, 2500, &l, &pos), 0);
	CHECK_INT(ran, pos);
	for (uint64_t s = 0; s < N1; s++) /* those that ran are gone too */
		gone[s] = gone[s] || ref[s].at <= 2500;
	schedule_random(e, r, &l, ref, ids, N1, N2, sim_engine_now(e));
	for (uint64_t s = N1; s < N; s += 7)
		gone[s] = sim_engine_cancel(e, ids[s]) == SIM_OK;
	sim_engine_run(e, SIM_TIME_MAX);
	CHECK_INT(compare_ref(ref, gone, 0, N, SIM_TIME_MAX, &l, &pos), 0);
	CHECK_INT(l.n, pos);
	CHECK_INT(sim_engine_pending(e), 0);
	free(l.order);
	free(gone);
	free(ids);
	free(ref);
	sim_rng_free(r);
	sim_engine_free(e);
}

/* A hold model against a reference: P events pending; each, when it runs,
 * must be the smallest (at, priority, scheduling order) of the reference's
 * pending set (a linear scan); it schedules one more at now + a delay drawn
 * over 0 .. 2^45 ps (same time, nearby, far: every bucket of the radix
 * queue, engine.c), and a fifth of the time cancels a random pending event
 * and reschedules it elsewhere (exec's retime pattern: stale entries). */
enum { HOLD_P = 300, HOLD_STEPS = 30000 };

typedef struct hold_ref {
	sim_rng *r;
	rkey key[HOLD_P];
	sim_event_id id[HOLD_P];
	uint64_t seq, steps;
	int bad;
} hold_ref;

static void hold_run(sim_engine *e, void *ctx, uint64_t arg);

static sim_time hold_delay(sim_rng *r)
{
	double u = sim_rng_uniform(r);
	if (u < 0.2)
		return 0;
	int bits = (int)(sim_rng_uniform(r) * 46);
	return (sim_time)(sim_rng_uniform(r) * (double)(1ull << bits));
}

static void hold_put(sim_engine *e, hold_ref *h, int k)
{
	h->key[k].at = sim_engine_now(e) + hold_delay(h->r);
	h->key[k].prio = (int)(sim_rng_uniform(h->r) * 3) - 1;
	h->key[k].seq = h->seq++;
	h->id[k] = sim_engine_schedule(e, h->key[k].at, h->key[k].prio, hold_run, h, (uint64_t)k);
}

static void hold_run(sim_engine *e, void *ctx, uint64_t arg)
{
	hold_ref *h = ctx;
	int k = (int)arg, min = 0;
	for (int i = 1; i < HOLD_P; i++)
		if (rkey_cmp(&h->key[i], &h->key[min]) < 0)
			min = i;
	h->bad += min != k || h->key[k].at != sim_engine_now(e);
	h->key[k].at = SIM_TIME_MAX; /* ran */
	if (++h->steps >= HOLD_STEPS)
		return;
	hold_put(e, h, k);
	if (sim_rng_uniform(h->r) < 0.2) {
		int v = (int)(sim_rng_uniform(h->r) * HOLD_P);
		if (v != k && h->key[v].at != SIM_TIME_MAX) {
			h->bad += sim_engine_cancel(e, h->id[v]) != SIM_OK;
			hold_put(e, h, v);
		}
	}
}

static void test_engine_hold(void)
{
	sim_engine *e = sim_engine_new();
	hold_ref *h = calloc(1, sizeof *h);
	h->r = sim_rng_new(7);
	for (int k = 0; k < HOLD_P; k++)
		hold_put(e, h, k);
	sim_engine_run(e, SIM_TIME_MAX);
	CHECK_INT(h->bad, 0);
	CHECK_INT(h->steps, HOLD_STEPS + HOLD_P - 1);
	CHECK_INT(sim_engine_pending(e), 0);
	sim_rng_free(h->r);
	free(h);
	sim_engine_free(e);
}

/* ------------------------------------------------- hash, buffer, rng ---- */

static void test_hash(void)
{
	char hex[17];
	sim_hash_hex(sim_hash64("", 0), hex);
	CHECK_STR(hex, "cbf29ce484222325");
	sim_hash_hex(sim_hash64("a", 1), hex);
	CHECK_STR(hex, "af63dc4c8601ec8c");
	sim_hash_hex(sim_hash64("foobar", 6), hex); /* FNV reference test vector */
	CHECK_STR(hex, "85944171f73967e8");
	sim_hash_hex(0, hex);
	CHECK_STR(hex, "0000000000000000");
	sim_hash_hex(0xABCull, hex);
	CHECK_STR(hex, "0000000000000abc");
	sim_hash_hex(UINT64_MAX, hex);
	CHECK_STR(hex, "ffffffffffffffff");
}

/* sim_text_check: RFC 3629 UTF-8, no control characters but tab. */
static void test_text(void)
{
	const char *why = NULL;
	CHECK_INT(sim_text_check("caf\xc3\xa9\t\xe2\x82\xac \xf0\x9f\x98\x80", 14, &why), 14);
	CHECK_INT(sim_text_check("ab\x01", 3, &why), 2);
	CHECK_STR(why, "a control character");
	CHECK_INT(sim_text_check("a\x7f", 2, &why), 1);          /* DEL */
	CHECK_INT(sim_text_check("a\xc2\x85", 3, &why), 1);      /* C1: NEL */
	CHECK_INT(sim_text_check("a\xe9t\xe9", 4, &why), 1);     /* Latin-1 */
	CHECK_STR(why, "invalid UTF-8");
	CHECK_INT(sim_text_check("\xc0\xaf", 2, &why), 0);        /* overlong '/' */
	CHECK_INT(sim_text_check("\xe0\x80\xaf", 3, &why), 0);    /* overlong, 3 bytes */
	CHECK_INT(sim_text_check("\xed\xa0\x80", 3, &why), 0);    /* surrogate U+D800 */
	CHECK_INT(sim_text_check("\xf4\x90\x80\x80", 4, &why), 0); /* past U+10FFFF */
	CHECK_INT(sim_text_check("ab\xe2\x82", 4, &why), 2);      /* truncated */
	CHECK_INT((int)sim_text_char("\xe2\x82\xac"), 3);
	CHECK_INT((int)sim_text_char("\xe2\x82"), 0);
	CHECK_INT((int)sim_text_char("\n"), 0);
}

static void test_buf(void)
{
	sim_buf b;
	sim_buf_init(&b);
	CHECK(b.data == NULL && b.len == 0 && !b.oom);
	sim_buf_append(&b, "", 0); /* even an empty append leaves a C string */
	CHECK_STR(b.data, "");
	sim_buf_json_string(&b, "a\"b\\c\nd\re\tf\x01g\x1fh");
	CHECK_STR(b.data, "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001fh\"");
	sim_buf_free(&b);
	CHECK(b.data == NULL && b.len == 0);
	sim_buf_json_string(&b, "");
	sim_buf_json_string(&b, NULL);
	sim_buf_json_string(&b, "caf\xc3\xa9 \x7f/"); /* UTF-8, DEL and / pass */
	CHECK_STR(b.data, "\"\"null\"caf\xc3\xa9 \x7f/\"");
	sim_buf_free(&b);
	/* bytes that are not UTF-8 become U+FFFD: a lone continuation byte, a
	 * Latin-1 e-acute, an overlong '/', a surrogate, a truncated sequence */
	sim_buf_json_string(&b, "a\x80" "b\xe9" "c\xc0\xaf" "d\xed\xa0\x80" "e\xe2\x82");
	CHECK_STR(b.data, "\"a\\ufffdb\\ufffdc\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffde\\ufffd\\ufffd\"");
	sim_buf_free(&b);
	/* Growth: 10k appends through several reallocations. */
	for (int i = 0; i < 10000; i++)
		sim_buf_printf(&b, "%d,", i % 10);
	CHECK(!b.oom);
	CHECK_INT(b.len, 20000);
	CHECK_INT(strlen(b.data), 20000);
	CHECK(b.cap > b.len);
	CHECK(strncmp(b.data + 19990, "5,6,7,8,9,", 10) == 0);
	sim_buf_free(&b);
}

static void test_rng(void)
{
	sim_rng *x = sim_rng_new(7), *y = sim_rng_new(7), *z = sim_rng_new(8);
	int same = 0, differ = 0, in_range = 0;
	for (int i = 0; i < 1000; i++) {
		double u = sim_rng_uniform(x);
		same += u == sim_rng_uniform(y);
		differ += u != sim_rng_uniform(z);
		in_range += u >= 0 && u < 1;
	}
	CHECK_INT(same, 1000);
	CHECK(differ > 990);
	CHECK_INT(in_range, 1000);
	for (int i = 0; i < 100; i++)
		same += sim_rng_normal(x, 2.0) == sim_rng_normal(y, 2.0);
	CHECK_INT(same, 1100);
	/* Sample moments of 1e5 normals, sigma 2: the mean's standard error is
	 * 2/sqrt(1e5) = 0.0063, so |mean| < 0.04 is > 6 standard errors. */
	double sum = 0, sq = 0;
	for (int i = 0; i < 100000; i++) {
		double v = sim_rng_normal(z, 2.0);
		sum += v;
		sq += v * v;
	}
	CHECK(fabs(sum / 1e5) < 0.04);
	CHECK_NEAR(sqrt(sq / 1e5), 2.0, 0.02);
	sim_rng_free(x);
	sim_rng_free(y);
	sim_rng_free(z);
	sim_rng_free(NULL);
}

static void test_levenshtein(void)
{
	CHECK_INT(sim_levenshtein("micro_bach", "micro_batch"), 1);
	CHECK_INT(sim_levenshtein("", "abc"), 3);
	CHECK_INT(sim_levenshtein("kitten", "sitting"), 3);
}

static int fill_ok(FILE *f, void *ctx)
{
	fprintf(f, "%s", (const char *)ctx);
	return SIM_OK;
}

static int fill_fail(FILE *f, void *ctx)
{
	fprintf(f, "half");
	(void)ctx;
	return SIM_EIO;
}

/* sim_write_atomic: a good write replaces the file whole; a failing one (the
 * writer's error, or a folder that does not exist) leaves the old file and
 * no PATH.tmp behind. */
static void test_atomic(void)
{
	char dir[] = "/tmp/podsim-atomic-XXXXXX", path[64], tmp[72], buf[16] = "";
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof path, "%s/out.txt", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	CHECK_INT(sim_write_atomic(path, fill_ok, "first"), SIM_OK);
	CHECK_INT(sim_write_atomic(path, fill_fail, NULL), SIM_EIO);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(buf, sizeof buf, f) != NULL);
		fclose(f);
	}
	CHECK_STR(buf, "first");
	CHECK(fopen(tmp, "r") == NULL);
	char bad[96];
	snprintf(bad, sizeof bad, "%s/no/such/out.txt", dir);
	CHECK_INT(sim_write_atomic(bad, fill_ok, "x"), SIM_EIO);
	CHECK_INT(errno, ENOENT);
	/* the old fixed temporary name, planted as a symlink, is not followed */
	char victim[80];
	snprintf(victim, sizeof victim, "%s/victim", dir);
	CHECK_INT(sim_write_atomic(victim, fill_ok, "victim"), SIM_OK);
	CHECK_INT(symlink(victim, tmp), 0);
	CHECK_INT(sim_write_atomic(path, fill_ok, "second"), SIM_OK);
	f = fopen(victim, "r");
	if (f) {
		CHECK(fgets(buf, sizeof buf, f) != NULL);
		fclose(f);
	}
	CHECK_STR(buf, "victim");
	/* a directory is refused with EISDIR, a device written in place */
	CHECK_INT(sim_write_atomic(dir, fill_ok, "x"), SIM_EIO);
	CHECK_INT(errno, EISDIR);
	CHECK_INT(sim_write_atomic("/dev/null", fill_ok, "x"), SIM_OK);
	struct stat st;
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	/* ENOSPC from a full device is reported, not swallowed */
	if (access("/dev/full", W_OK) == 0) {
		CHECK_INT(sim_write_atomic("/dev/full", fill_ok, "x"), SIM_EIO);
		CHECK_INT(errno, ENOSPC);
	}
	char why[128];
	CHECK_INT(sim_out_check("", why, sizeof why), SIM_EIO);
	CHECK_INT(sim_out_check("-", why, sizeof why), SIM_OK);
	remove(tmp);
	remove(victim);
	remove(path);
	rmdir(dir);
}

int main(void)
{
	test_atomic();
	test_time();
	test_err();
	test_arena();
	test_engine_ties();
	test_engine_cancel();
	test_engine_callbacks();
	test_engine_until();
	test_engine_random();
	test_engine_hold();
	test_hash();
	test_buf();
	test_text();
	test_rng();
	test_levenshtein();
	return check_done();
}
