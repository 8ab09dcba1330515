/* test_cases.c - the RFC 4180 case reader and Kendall's tau. */
#include "../../sim/valid/valid.h"
#include "check.h"

#include <math.h>
#include <string.h>

static cases_csv *parse(const char *text, sim_diag *d)
{
	cases_csv *c = NULL;
	cases_csv_parse(text, strlen(text), "t.csv", &c, d);
	return c;
}

static void test_quoting(void)
{
	sim_diag *d = sim_diag_new();
	/* Quoted commas, doubled quotes, a newline inside quotes, CRLF ends. */
	cases_csv *c = parse("id,source,x\r\nA,\"a, b\",1\r\nB,\"say \"\"hi\"\"\nthere\",2\r\nC,,3\n", d);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(cases_csv_rows(c), 3);
		CHECK_STR(cases_csv_get(c, 0, 1), "a, b");
		CHECK_STR(cases_csv_get(c, 1, 1), "say \"hi\"\nthere");
		CHECK_STR(cases_csv_get(c, 2, 1), "");
		CHECK_INT(cases_csv_line(c, 0), 2);
		CHECK_INT(cases_csv_line(c, 1), 3);
		CHECK_INT(cases_csv_line(c, 2), 5); /* row B spans lines 3-4 */
		long v;
		CHECK_INT(cases_get_int(c, 2, "x", 0, &v, d), SIM_OK);
		CHECK_INT(v, 3);
		CHECK_INT(cases_get_int(c, 0, "source", 0, &v, d), SIM_ECONF);
		CHECK_STR(sim_diag_text(d, 0), "t.csv:2: error: column 'source': expected an integer, got 'a, b'");
		static const char *const need[] = {"id", "gpu", NULL};
		CHECK_INT(cases_csv_require(c, need, d), 1);
		CHECK_STR(sim_diag_text(d, 1), "t.csv:1: error: missing column 'gpu'");
	}
	cases_csv_free(c);
	sim_diag_free(d);
}

static void test_errors(void)
{
	sim_diag *d = sim_diag_new();
	CHECK(parse("a,b\n1,2,3\n", d) == NULL);
	CHECK_STR(sim_diag_text(d, 0), "t.csv:2: error: row has 3 fields, the header has 2");
	sim_diag_clear(d);
	CHECK(parse("a,b\n1,\"open\n", d) == NULL);
	CHECK_STR(sim_diag_text(d, 0), "t.csv:2: error: unterminated quoted field");
	sim_diag_clear(d);
	CHECK(parse("", d) == NULL);
	CHECK_STR(sim_diag_text(d, 0), "t.csv: error: empty file: expected a header row");
	sim_diag_clear(d);
	cases_csv *c = NULL;
	CHECK_INT(cases_csv_parse("a\n\0\n", 4, "t.csv", &c, d), SIM_ECONF);
	CHECK(c == NULL);
	sim_diag_free(d);
}

/* Kendall's tau: identical order 1, reversed -1; one swapped pair out of
 * C(4,2) = 6 gives (5 - 1)/6. */
static void test_tau(void)
{
	double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, r[4] = {4, 3, 2, 1};
	double s[4] = {1, 3, 2, 4};
	CHECK_NEAR(valid_kendall_tau(x, y, 4), 1.0, 1e-12);
	CHECK_NEAR(valid_kendall_tau(x, r, 4), -1.0, 1e-12);
	CHECK_NEAR(valid_kendall_tau(x, s, 4), 4.0 / 6.0, 1e-12);
	double c[3] = {1, 1, 1};
	CHECK(isnan(valid_kendall_tau(c, c, 3)));
}

int main(void)
{
	test_quoting();
	test_errors();
	test_tau();
	return check_done();
}
