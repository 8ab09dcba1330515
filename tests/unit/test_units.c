/* test_units.c - units (bits vs bytes above all) and diagnostics. */
#include "../../sim/core/core.h"
#include "check.h"

static double parse(const char *s, sim_unit u)
{
	double v = -1;
	char err[256];
	return sim_unit_parse(s, u, &v, err, sizeof err) == SIM_OK ? v : -1;
}

static void check_err(const char *s, sim_unit u, const char *want)
{
	double v;
	char err[256] = "";
	CHECK_INT(sim_unit_parse(s, u, &v, err, sizeof err), SIM_ECONF);
	CHECK_STR(err, want);
}

static void test_parse(void)
{
	CHECK_NEAR(parse("200 Gb/s", SIM_UNIT_BANDWIDTH), 25e9, 1e-12); /* bits / 8 */
	CHECK_NEAR(parse("25 GB/s", SIM_UNIT_BANDWIDTH), 25e9, 1e-12);
	CHECK_NEAR(parse("400 Gbps", SIM_UNIT_BANDWIDTH), 50e9, 1e-12);
	CHECK_NEAR(parse("1 GiB/s", SIM_UNIT_BANDWIDTH), 1073741824.0, 1e-12);
	CHECK_NEAR(parse("80 GiB", SIM_UNIT_BYTES), 80.0 * 1073741824.0, 1e-12);
	CHECK_NEAR(parse("40GB", SIM_UNIT_BYTES), 40e9, 1e-12);
	CHECK_NEAR(parse("1.5 us", SIM_UNIT_TIME), 1.5e-6, 1e-12);
	CHECK_NEAR(parse(" 130 ns ", SIM_UNIT_TIME), 130e-9, 1e-12);
	CHECK_NEAR(parse("312 TFLOP/s", SIM_UNIT_FLOPS), 312e12, 1e-12);
	CHECK_NEAR(parse("1410 MHz", SIM_UNIT_FREQ), 1.41e9, 1e-12);
	CHECK_NEAR(parse("6.5 kW", SIM_UNIT_POWER), 6500, 1e-12);
	CHECK_NEAR(parse("0 FLOP/s", SIM_UNIT_FLOPS), 0, 0);
	CHECK_NEAR(parse("8", SIM_UNIT_NONE), 8, 0);
	check_err("200", SIM_UNIT_BANDWIDTH, "missing unit: write '200 Gb/s' or '25 GB/s'");
	check_err("200 GB", SIM_UNIT_BANDWIDTH,
		  "'GB' is a size, expected a bandwidth such as '200 Gb/s' or '25 GB/s'");
	check_err("80 Gb", SIM_UNIT_BYTES, "'Gb' is in bits; sizes are in bytes (B), e.g. '80 GiB' or '40 GB'");
	check_err("5 parsecs", SIM_UNIT_TIME, "unknown unit 'parsecs' for a time (e.g. '1.5 us' or '130 ns')");
	check_err("nan GiB", SIM_UNIT_BYTES, "'nan GiB' is not a finite number");
	check_err("-2 TB/s", SIM_UNIT_BANDWIDTH, "'-2 TB/s' is negative");
	check_err("", SIM_UNIT_TIME, "empty value");
	check_err("x", SIM_UNIT_TIME, "expected a number, got 'x'");
	check_err("8 GB", SIM_UNIT_NONE, "expected a plain number, got '8 GB'");
	char buf[32];
	sim_unit_format(80.0 * 1073741824.0, SIM_UNIT_BYTES, buf, sizeof buf);
	CHECK_STR(buf, "80 GiB");
	sim_unit_format(25e9, SIM_UNIT_BANDWIDTH, buf, sizeof buf);
	CHECK_STR(buf, "25 GB/s");
	sim_unit_format(1.5e-6, SIM_UNIT_TIME, buf, sizeof buf);
	CHECK_STR(buf, "1.5 us");
}

static void test_diag(void)
{
	sim_diag *d = sim_diag_new();
	sim_diag_error(d, "a.ini", 3, "bad %s", "thing");
	sim_diag_note(d, "a.ini", 3, "did you mean '%s'?", "tp");
	sim_diag_error(d, "b.ini", 0, "cannot open");
	sim_diag_warning(d, NULL, 0, "careful");
	CHECK_INT(sim_diag_error_count(d), 2);
	CHECK_INT(sim_diag_count(d), 4);
	CHECK_STR(sim_diag_text(d, 0), "a.ini:3: error: bad thing");
	CHECK_STR(sim_diag_text(d, 1), "a.ini:3: note: did you mean 'tp'?");
	CHECK_STR(sim_diag_text(d, 2), "b.ini: error: cannot open");
	CHECK_STR(sim_diag_text(d, 3), "warning: careful");
	sim_diag_clear(d);
	CHECK_INT(sim_diag_error_count(d), 0);
	sim_diag_free(d);
}

int main(void)
{
	test_parse();
	test_diag();
	return check_done();
}
