/* test_core.c - time, overflow helpers, arena, event engine, hashing, buffers,
 * random numbers. */
#include "../../sim/core/core.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void test_time(void)
{
	CHECK_INT(sim_time_from_s(1.0), SIM_PS_PER_S);
	CHECK_INT(sim_time_from_s(1.5e-6), 1500000); /* 1.5 us = 1.5e6 ps */
	CHECK_INT(sim_time_from_s(-1.0), 0);
	CHECK_INT(sim_time_from_s(0.0 / 0.0), 0);
	CHECK_INT(sim_time_from_s(1e300), SIM_TIME_MAX);
	CHECK_NEAR(sim_time_to_s(2500000000000LL), 2.5, 1e-15);
	int64_t r;
	CHECK(sim_mul_i64(1 << 20, 1 << 20, &r) && r == (int64_t)1 << 40);
	CHECK(!sim_mul_i64(INT64_MAX / 2, 3, &r));
	CHECK(!sim_add_i64(INT64_MAX, 1, &r));
}

static void test_arena(void)
{
	sim_arena *a = sim_arena_new();
	for (int i = 0; i < 10000; i++) {
		char *p = sim_arena_alloc(a, (size_t)(i % 97) + 1);
		CHECK(p && ((uintptr_t)p % 16) == 0 && p[0] == 0);
	}
	char *big = sim_arena_alloc(a, 1 << 20);
	CHECK(big != NULL);
	CHECK_STR(sim_arena_strdup(a, "nvlink"), "nvlink");
	CHECK_STR(sim_arena_printf(a, "%s-%d", "gpu", 7), "gpu-7");
	CHECK(sim_arena_used(a) > (1 << 20));
	sim_arena_free(a);
}

typedef struct trace {
	uint64_t seen[64];
	sim_time at[64];
	int n;
} trace;

static void record(sim_engine *e, void *ctx, uint64_t arg)
{
	trace *t = ctx;
	t->at[t->n] = sim_engine_now(e);
	t->seen[t->n++] = arg;
}

static void chain(sim_engine *e, void *ctx, uint64_t arg)
{
	record(e, ctx, arg);
	if (arg < 5)
		sim_engine_schedule(e, sim_engine_now(e) + 10, 0, chain, ctx, arg + 1);
}

static void test_engine_order(void)
{
	sim_engine *e = sim_engine_new();
	trace t = {0};
	/* Same time: priority first, then scheduling order. */
	sim_engine_schedule(e, 100, 1, record, &t, 1);
	sim_engine_schedule(e, 100, 0, record, &t, 2);
	sim_engine_schedule(e, 50, 5, record, &t, 3);
	sim_engine_schedule(e, 100, 1, record, &t, 4);
	sim_event_id c = sim_engine_schedule(e, 70, 0, record, &t, 5);
	CHECK_INT(sim_engine_cancel(e, c), SIM_OK);
	CHECK_INT(sim_engine_cancel(e, c), SIM_ENOTFOUND);
	CHECK_INT(sim_engine_schedule(e, 200, 0, record, &t, 6) != 0, 1);
	CHECK_INT(sim_engine_run(e, 150), 4); /* stops before t = 200 */
	CHECK_INT(sim_engine_pending(e), 1);
	uint64_t want[] = {3, 2, 1, 4};
	for (int i = 0; i < 4; i++)
		CHECK_INT(t.seen[i], want[i]);
	CHECK_INT(sim_engine_now(e), 100);
	CHECK_INT(sim_engine_schedule(e, 10, 0, record, &t, 7), 0); /* in the past */
	sim_engine_run(e, SIM_TIME_MAX);
	CHECK_INT(t.seen[4], 6);
	/* Events scheduled from callbacks. */
	t.n = 0;
	sim_event_id old = sim_engine_schedule(e, 300, 0, chain, &t, 0);
	sim_engine_run(e, SIM_TIME_MAX);
	CHECK_INT(t.n, 6);
	CHECK_INT(t.at[5], 350);
	CHECK_INT(sim_engine_cancel(e, old), SIM_ENOTFOUND); /* already ran; slot reused */
	CHECK_INT(sim_engine_events_run(e), 11);
	sim_engine_free(e);
}

typedef struct rnd_state {
	sim_time last;
	uint64_t last_seq;
	int bad, n;
} rnd_state;

static void check_order(sim_engine *e, void *ctx, uint64_t arg)
{
	rnd_state *s = ctx;
	sim_time now = sim_engine_now(e);
	/* arg = scheduling order; equal times must come in that order */
	if (now < s->last || (now == s->last && arg < s->last_seq))
		s->bad++;
	s->last = now;
	s->last_seq = arg;
	s->n++;
}

/* 100k events at random times with many ties, a tenth cancelled: every event
 * that runs comes in (time, sequence) order and the count matches. */
static void test_engine_random(void)
{
	sim_engine *e = sim_engine_new();
	sim_rng *r = sim_rng_new(42);
	rnd_state s = {0};
	int n = 100000, cancelled = 0;
	sim_event_id *ids = malloc(sizeof *ids * (size_t)n);
	for (int i = 0; i < n; i++)
		ids[i] = sim_engine_schedule(e, (sim_time)(sim_rng_uniform(r) * 1000), 0,
					     check_order, &s, (uint64_t)i);
	for (int i = 0; i < n; i += 10)
		cancelled += sim_engine_cancel(e, ids[i]) == SIM_OK;
	sim_engine_run(e, SIM_TIME_MAX);
	CHECK_INT(s.bad, 0);
	CHECK_INT(s.n, n - cancelled);
	CHECK_INT(cancelled, n / 10);
	free(ids);
	sim_rng_free(r);
	sim_engine_free(e);
}

static void test_hash_buf_rng(void)
{
	char hex[17];
	sim_hash_hex(sim_hash64("", 0), hex);
	CHECK_STR(hex, "cbf29ce484222325");
	sim_hash_hex(sim_hash64("a", 1), hex);
	CHECK_STR(hex, "af63dc4c8601ec8c");
	sim_buf b;
	sim_buf_init(&b);
	sim_buf_json_string(&b, "a\"b\\c\nd\x01");
	CHECK_STR(b.data, "\"a\\\"b\\\\c\\nd\\u0001\"");
	sim_buf_printf(&b, "%d", 42);
	CHECK(!b.oom && b.len == strlen(b.data));
	sim_buf_free(&b);
	sim_rng *x = sim_rng_new(7), *y = sim_rng_new(7);
	for (int i = 0; i < 100; i++)
		CHECK(sim_rng_uniform(x) == sim_rng_uniform(y));
	sim_rng_free(x);
	sim_rng_free(y);
	CHECK_INT(sim_levenshtein("micro_bach", "micro_batch"), 1);
	CHECK_INT(sim_levenshtein("", "abc"), 3);
	CHECK_INT(sim_levenshtein("kitten", "sitting"), 3);
}

int main(void)
{
	test_time();
	test_arena();
	test_engine_order();
	test_engine_random();
	test_hash_buf_rng();
	return check_done();
}
