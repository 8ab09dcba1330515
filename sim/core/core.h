/* core.h - the bottom layer of podsim: simulated time, error codes, diagnostics,
 * arenas, units, the discrete-event engine and seeded random numbers.
 *
 * Everything above includes this header; it includes nothing of podsim. There is
 * no mutable global state: every object is created, passed and freed explicitly,
 * so two simulations can live in one process (and one test).
 */
#ifndef PODSIM_CORE_H
#define PODSIM_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PODSIM_VERSION "0.1.0"

/* ---------------------------------------------------------------- time ---- */

/* Simulated time in integer picoseconds: exact, deterministic, and 2^63 ps is
 * about 106 days, far beyond one training step. Convert to seconds only at the
 * edges (reports, model formulas). */
typedef int64_t sim_time;

#define SIM_PS_PER_S 1000000000000LL
#define SIM_TIME_MAX INT64_MAX
/* The most simulated time one replay may span: half the clock, so that a
 * task's end (its start plus a duration below this) cannot overflow. Past it
 * is bad input (a rate of 1 FLOP/s, a link of 1 B/s), reported as SIM_ERANGE
 * naming the task, never a wrapped sum. Months-long campaigns are counted
 * in double seconds above the step, not on this clock. */
#define SIM_TIME_HORIZON (SIM_TIME_MAX / 2)

/* Seconds -> picoseconds, rounded to nearest; negative and NaN inputs give 0,
 * values past SIM_TIME_MAX saturate. */
sim_time sim_time_from_s(double seconds);
double sim_time_to_s(sim_time t);
/* a + b for non-negative times, saturating at SIM_TIME_MAX (then past
 * SIM_TIME_HORIZON, which the caller reports). */
sim_time sim_time_add_sat(sim_time a, sim_time b);

/* ---------------------------------------------------------------- errors -- */

enum sim_err {
	SIM_OK = 0,
	SIM_ENOMEM = -1,   /* allocation failed */
	SIM_EINVAL = -2,   /* bad argument from the program (a bug) */
	SIM_EIO = -3,      /* file could not be read or written */
	SIM_ECONF = -4,    /* bad user input: diagnostics say where */
	SIM_EPLAN = -5,    /* the plan cannot run on this model and cluster */
	SIM_EDB = -6,      /* database error */
	SIM_ERANGE = -7,   /* value out of range / overflow */
	SIM_ENOTFOUND = -8 /* no such item (run id, key, file) */
};

const char *sim_strerror(int err);

/* For states that cannot happen unless podsim has a bug. Prints
 * "podsim: internal error at file:line: ..." and aborts. */
_Noreturn void sim_panic(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define SIM_PANIC(...) sim_panic(__FILE__, __LINE__, __VA_ARGS__)

/* Overflow-checked arithmetic on sizes and counts: return false on overflow. */
bool sim_mul_i64(int64_t a, int64_t b, int64_t *out);
bool sim_add_i64(int64_t a, int64_t b, int64_t *out);

/* ----------------------------------------------------------- diagnostics -- */

/* A list of messages about user input, kept in the order they were reported so
 * that several errors can be shown at once. Printed as
 *     path:line: error: message         (line > 0)
 *     path: error: message              (line == 0)
 *     error: message                    (path == NULL)
 * and likewise with "note:" and "warning:". */
typedef struct sim_diag sim_diag;

typedef enum { SIM_DIAG_ERROR, SIM_DIAG_WARNING, SIM_DIAG_NOTE } sim_diag_level;

sim_diag *sim_diag_new(void);
void sim_diag_free(sim_diag *d);
void sim_diag_add(sim_diag *d, sim_diag_level level, const char *path, int line,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void sim_diag_vadd(sim_diag *d, sim_diag_level level, const char *path, int line,
		   const char *fmt, va_list ap);
#define sim_diag_error(d, path, line, ...) sim_diag_add((d), SIM_DIAG_ERROR, (path), (line), __VA_ARGS__)
#define sim_diag_note(d, path, line, ...) sim_diag_add((d), SIM_DIAG_NOTE, (path), (line), __VA_ARGS__)
#define sim_diag_warning(d, path, line, ...) sim_diag_add((d), SIM_DIAG_WARNING, (path), (line), __VA_ARGS__)
int sim_diag_error_count(const sim_diag *d);
size_t sim_diag_count(const sim_diag *d);
/* The i-th message, formatted as it prints (without the newline). */
const char *sim_diag_text(const sim_diag *d, size_t i);
void sim_diag_print(const sim_diag *d, FILE *out);
void sim_diag_clear(sim_diag *d);
/* from's messages added to d in their order, its uncounted errors counted
 * (the diagnostics of work done apart, merged in the work's order). */
void sim_diag_append(sim_diag *d, const sim_diag *from);

/* ---------------------------------------------------------------- arena --- */

/* Bump allocator for objects that live as long as one run (configuration,
 * topology, task graphs): many allocations, one free. Returns NULL on OOM.
 * Memory is zeroed and aligned to 16 bytes. */
typedef struct sim_arena sim_arena;

sim_arena *sim_arena_new(void);
void sim_arena_free(sim_arena *a);
void *sim_arena_alloc(sim_arena *a, size_t size);
char *sim_arena_strdup(sim_arena *a, const char *s);
char *sim_arena_printf(sim_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t sim_arena_used(const sim_arena *a);

/* ---------------------------------------------------------------- units --- */

/* Every physical value in a podsim file carries a unit, and the parser converts
 * it to SI base units: bytes, bytes/s, seconds, FLOP/s, Hz, W. Bits vs bytes:
 * "b" is a bit and "B" a byte, so "200 Gb/s" = 25e9 B/s and "25 GB/s" = 25e9 B/s.
 * Decimal prefixes k M G T P (powers of 1000) and binary Ki Mi Gi Ti Pi (powers
 * of 1024). A bare number where a unit is required is an error. */
typedef enum {
	SIM_UNIT_NONE = 0,  /* plain number, no unit allowed */
	SIM_UNIT_BYTES,     /* B, kB, MB, GB, TB, KiB, MiB, GiB, TiB */
	SIM_UNIT_BANDWIDTH, /* B/s forms (GB/s, GiB/s) or bit forms (Gb/s, Gbit/s) -> bytes/s */
	SIM_UNIT_TIME,      /* ps, ns, us, ms, s, min, h -> seconds */
	SIM_UNIT_FLOPS,     /* FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s -> FLOP/s */
	SIM_UNIT_FREQ,      /* Hz, kHz, MHz, GHz -> Hz */
	SIM_UNIT_POWER,     /* W, kW, MW -> W */
	SIM_UNIT_COUNT
} sim_unit;

/* Parse "number unit" (space optional, e.g. "200 Gb/s", "1.5us", "80 GiB").
 * On success stores the SI value and returns SIM_OK; otherwise returns SIM_ECONF
 * and writes a one-line reason (e.g. "missing unit: write '200 Gb/s' or
 * '25 GB/s'") into err. Rejects NaN, infinities and negative values. */
int sim_unit_parse(const char *text, sim_unit unit, double *out, char *err, size_t errlen);
/* The unit's name for help text: "bytes", "bandwidth", ... */
const char *sim_unit_name(sim_unit unit);
/* Format a SI value back with a readable prefix: "25 GB/s", "1.5 us", "80 GiB". */
void sim_unit_format(double value, sim_unit unit, char *buf, size_t len);

/* ------------------------------------------------------------ event core -- */

/* The discrete-event engine: events run in the order of (time, priority,
 * sequence), kept in a radix heap on time whose front (the entries at the
 * earliest time) is a binary heap on the whole key (engine.c). The sequence
 * number is assigned at scheduling and makes every key unique, so the order
 * of simultaneous events is reproducible. Lower priority values run first at
 * equal time. An event's payload travels in its queue entry and its pending
 * state is one bit, so scheduling does not call malloc per event (build
 * option -Dplain_malloc=true routes each event through malloc for
 * ASan/valgrind). Ids are sequence numbers + 1, never reused. */
typedef struct sim_engine sim_engine;
typedef uint64_t sim_event_id; /* 0 is never a valid id */
typedef void (*sim_event_fn)(sim_engine *eng, void *ctx, uint64_t arg);

sim_engine *sim_engine_new(void);
void sim_engine_free(sim_engine *eng);
/* Schedule fn(eng, ctx, arg) at absolute time `at` (>= now). Returns the event's
 * id, or 0 on OOM or if at < now. */
sim_event_id sim_engine_schedule(sim_engine *eng, sim_time at, int priority,
				 sim_event_fn fn, void *ctx, uint64_t arg);
/* Remove a pending event. Returns SIM_OK, or SIM_ENOTFOUND if it already ran or
 * was cancelled. O(1) (its queue entry is dropped when it comes up). */
int sim_engine_cancel(sim_engine *eng, sim_event_id id);
sim_time sim_engine_now(const sim_engine *eng);
/* Run events in order until none are left or the next is later than `until`.
 * Returns the number of events run. */
uint64_t sim_engine_run(sim_engine *eng, sim_time until);
size_t sim_engine_pending(const sim_engine *eng);
uint64_t sim_engine_events_run(const sim_engine *eng);

/* ------------------------------------------------------------------ rng --- */

/* Seeded random numbers (GSL mt19937). The only source of randomness. */
typedef struct sim_rng sim_rng;
sim_rng *sim_rng_new(uint64_t seed);
void sim_rng_free(sim_rng *r);
double sim_rng_uniform(sim_rng *r);         /* [0, 1) */
double sim_rng_normal(sim_rng *r, double sigma);

/* ------------------------------------------------------ work on the cores -- */

/* Work on the machine's cores (par.c): fn(ctx, i, worker) for every i in
 * [0, n), on `threads` workers (0 .. threads - 1; the caller is worker 0),
 * in no set order: fn writes only i's or its worker's results. */
#define SIM_PAR_MAX 64
int sim_threads_default(void); /* the CPUs it may use, 1 .. SIM_PAR_MAX */
void sim_parallel(size_t n, int threads, void (*fn)(void *ctx, size_t i, int worker), void *ctx);

/* ---------------------------------------------------------- output files -- */

/* Output files (atomic.c). A regular or new PATH is written all or nothing:
 * into a unique temporary file made by mkstemp in PATH's directory (never
 * following a symlink planted there), fsync'ed, then renamed over PATH; on any
 * failure it is removed and PATH is left as it was. An existing PATH that is a
 * device or a FIFO (/dev/null, /dev/full, a pipe) is written in place, its
 * errors (ENOSPC) reported; "-" is standard output; directories and sockets
 * are refused. On SIM_EIO errno says why (strerror for the message). */
typedef struct sim_out sim_out;

/* Check before the work that PATH can take an output: not empty, not a
 * directory or socket, and a new file's directory exists. SIM_OK, or SIM_EIO
 * with a one-line reason in why (for "PATH: error: WHY"). */
int sim_out_check(const char *path, char *why, size_t len);
/* Open PATH for writing; write through sim_out_file, then sim_out_close. */
int sim_out_open(const char *path, sim_out **out);
FILE *sim_out_file(sim_out *o);
/* Finish: with rc == SIM_OK commit (flush, fsync, rename), else discard.
 * Returns rc, or SIM_EIO when the commit failed; frees o (NULL is a no-op). */
int sim_out_close(sim_out *o, int rc);
/* Open, fill(f, ctx), close: returns fill's error, SIM_EIO or SIM_ENOMEM. */
int sim_write_atomic(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);

/* ----------------------------------------------------------- input files -- */

/* Reading inputs (input.c) so that none can hang or exhaust memory: only a
 * regular file is read (opened non-blocking, so a FIFO without a writer does
 * not block; FIFOs, devices such as /dev/zero, sockets and directories are
 * refused), of at most max_bytes (checked before reading and while reading).
 * Both return 0 or an errno value for sim_input_strerror: ESPIPE a FIFO,
 * ENODEV a device, ENOTSOCK a socket, EISDIR, EFBIG past max_bytes, or the
 * open's own errno. id (may be NULL) gets the file's device and inode. */
typedef struct sim_file_id {
	uint64_t dev, ino;
} sim_file_id;
#define SIM_INPUT_MAX ((size_t)256 << 20) /* 256 MiB: case files, logs */
int sim_input_open(const char *path, size_t max_bytes, FILE **out, sim_file_id *id);
/* The whole file as malloc'd, NUL-terminated text (free it). */
int sim_input_read(const char *path, size_t max_bytes, char **text, size_t *len, sim_file_id *id);
const char *sim_input_strerror(int err);

/* --------------------------------------------------------------- strings -- */

/* Text a user may name things with: well-formed UTF-8 without control
 * characters (tab allowed). Returns the offset of the first bad byte (why:
 * "invalid UTF-8" or "a control character"), or n when all is well. Input
 * readers reject such text at file:line, so no writer (JSON, XHTML, the
 * terminal) ever sees it. */
size_t sim_text_check(const char *text, size_t n, const char **why);
/* Length (1-4) of the character at s (NUL-terminated) when it is such text,
 * else 0: writers replace what a crafted database may still hold. */
size_t sim_text_char(const char *s);

/* Edit distance (for "did you mean" notes). */
int sim_levenshtein(const char *a, const char *b);
/* 64-bit FNV-1a hash, and its 16-digit hex form, for scenario hashes. */
uint64_t sim_hash64(const void *data, size_t len);
void sim_hash_hex(uint64_t h, char out[17]);

/* Growable string buffer (for JSON, resolved configuration text). */
typedef struct sim_buf {
	char *data;
	size_t len, cap;
	bool oom;
} sim_buf;
void sim_buf_init(sim_buf *b);
void sim_buf_free(sim_buf *b);
void sim_buf_append(sim_buf *b, const char *s, size_t n);
void sim_buf_printf(sim_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal with quotes and escapes. */
void sim_buf_json_string(sim_buf *b, const char *s);

#endif
