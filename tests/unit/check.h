/* check.h - a tiny test harness. CHECK(expr) and CHECK_NEAR(a, b, rel) print the
 * expression, the values and file:line on failure and count it; check_done()
 * prints "N checks, N failed" and returns the exit status. */
#ifndef PODSIM_CHECK_H
#define PODSIM_CHECK_H

#include <stdbool.h>

bool check_true(bool ok, const char *expr, const char *file, int line);
bool check_near(double got, double want, double rel, const char *expr, const char *file, int line);
bool check_int(long long got, long long want, const char *expr, const char *file, int line);
bool check_str(const char *got, const char *want, const char *expr, const char *file, int line);
int check_done(void);

#define CHECK(e) check_true((e), #e, __FILE__, __LINE__)
/* |got - want| <= rel * |want| (or <= rel when want == 0) */
#define CHECK_NEAR(got, want, rel) check_near((got), (want), (rel), #got, __FILE__, __LINE__)
#define CHECK_INT(got, want) check_int((long long)(got), (long long)(want), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) check_str((got), (want), #got, __FILE__, __LINE__)

#endif
