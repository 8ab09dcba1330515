/* check.c - see check.h. The counters live in this translation unit of each
 * test executable only; tests are single-threaded programs. */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int checks_run;
static int checks_failed;

static bool record(bool ok)
{
	checks_run++;
	if (!ok)
		checks_failed++;
	return ok;
}

bool check_true(bool ok, const char *expr, const char *file, int line)
{
	if (!ok)
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
	return record(ok);
}

bool check_near(double got, double want, double rel, const char *expr, const char *file, int line)
{
	double tol = want == 0 ? rel : rel * fabs(want);
	bool ok = isfinite(got) && fabs(got - want) <= tol;
	if (!ok)
		fprintf(stderr, "%s:%d: check failed: %s = %.12g, want %.12g (rel tol %g)\n", file,
			line, expr, got, want, rel);
	return record(ok);
}

bool check_int(long long got, long long want, const char *expr, const char *file, int line)
{
	bool ok = got == want;
	if (!ok)
		fprintf(stderr, "%s:%d: check failed: %s = %lld, want %lld\n", file, line, expr, got,
			want);
	return record(ok);
}

bool check_str(const char *got, const char *want, const char *expr, const char *file, int line)
{
	bool ok = got && want && strcmp(got, want) == 0;
	if (!ok)
		fprintf(stderr, "%s:%d: check failed: %s = \"%s\", want \"%s\"\n", file, line, expr,
			got ? got : "(null)", want ? want : "(null)");
	return record(ok);
}

int check_done(void)
{
	printf("%d checks, %d failed\n", checks_run, checks_failed);
	return checks_failed ? 1 : 0;
}
