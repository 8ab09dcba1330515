/* err.c - error codes, panics and overflow-checked integer arithmetic.
 * sim_panic is for states that only a podsim bug can reach: it flushes what
 * was printed so far, reports file:line and aborts (core dump, debugger). */
#include "core.h"

#include <stdlib.h>

const char *sim_strerror(int err)
{
	switch (err) {
	case SIM_OK:
		return "success";
	case SIM_ENOMEM:
		return "out of memory";
	case SIM_EINVAL:
		return "invalid argument (internal error)";
	case SIM_EIO:
		return "input/output error";
	case SIM_ECONF:
		return "bad input";
	case SIM_EPLAN:
		return "the plan cannot run on this model and cluster";
	case SIM_EDB:
		return "database error";
	case SIM_ERANGE:
		return "value out of range";
	case SIM_ENOTFOUND:
		return "not found";
	default:
		return "unknown error";
	}
}

void sim_panic(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "podsim: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* The GCC/Clang builtins compute the exact product/sum and report whether it
 * fits; *out receives the wrapped value on overflow, which callers ignore. */
bool sim_mul_i64(int64_t a, int64_t b, int64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

bool sim_add_i64(int64_t a, int64_t b, int64_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}
