/* test_units.c - units (bits vs bytes above all), diagnostics and edit
 * distance. Error texts are pinned: they are what users read. */
#include "../../sim/core/core.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double parse(const char *s, sim_unit u)
{
	double v = -1;
	char err[256];
	return sim_unit_parse(s, u, &v, err, sizeof err) == SIM_OK ? v : -1;
}

static void check_err(const char *s, sim_unit u, const char *want)
{
	double v = 42;
	char err[256] = "";
	CHECK_INT(sim_unit_parse(s, u, &v, err, sizeof err), SIM_ECONF);
	CHECK_STR(err, want);
	CHECK_NEAR(v, 42, 0); /* untouched on error */
}

static void test_parse(void)
{
	/* Bits vs bytes: 200 Gb/s = 200e9 bit/s / 8 = 25e9 B/s = 25 GB/s. */
	CHECK_NEAR(parse("200 Gb/s", SIM_UNIT_BANDWIDTH), 25e9, 1e-12);
	CHECK_NEAR(parse("200 Gbit/s", SIM_UNIT_BANDWIDTH), 25e9, 1e-12);
	CHECK_NEAR(parse("400 Gbps", SIM_UNIT_BANDWIDTH), 50e9, 1e-12);
	CHECK_NEAR(parse("25 GB/s", SIM_UNIT_BANDWIDTH), 25e9, 1e-12);
	CHECK_NEAR(parse("100 Mb/s", SIM_UNIT_BANDWIDTH), 12.5e6, 1e-12);
	CHECK_NEAR(parse("100 MB/s", SIM_UNIT_BANDWIDTH), 100e6, 1e-12);
	CHECK_NEAR(parse("1 GiB/s", SIM_UNIT_BANDWIDTH), 1073741824.0, 1e-12);
	CHECK_NEAR(parse("2 TB/s", SIM_UNIT_BANDWIDTH), 2e12, 1e-12);
	CHECK_NEAR(parse("80 GiB", SIM_UNIT_BYTES), 80.0 * 1073741824.0, 1e-12);
	CHECK_NEAR(parse("40 GB", SIM_UNIT_BYTES), 40e9, 1e-12);
	CHECK_NEAR(parse("40GB", SIM_UNIT_BYTES), 40e9, 1e-12);
	CHECK_NEAR(parse("40 MB", SIM_UNIT_BYTES), 40e6, 1e-12);
	CHECK_NEAR(parse("512 KiB", SIM_UNIT_BYTES), 512.0 * 1024, 1e-12);
	CHECK_NEAR(parse("3 kB", SIM_UNIT_BYTES), 3000, 1e-12);
	CHECK_NEAR(parse("1.5 us", SIM_UNIT_TIME), 1.5e-6, 1e-12);
	CHECK_NEAR(parse("1.5 \xC2\xB5s", SIM_UNIT_TIME), 1.5e-6, 1e-12);
	CHECK_NEAR(parse(" 130 ns ", SIM_UNIT_TIME), 130e-9, 1e-12);
	CHECK_NEAR(parse("\t2 min", SIM_UNIT_TIME), 120, 1e-12);
	CHECK_NEAR(parse("250 ps", SIM_UNIT_TIME), 250e-12, 1e-12);
	CHECK_NEAR(parse("312 TFLOP/s", SIM_UNIT_FLOPS), 312e12, 1e-12);
	CHECK_NEAR(parse("989 TFLOPS", SIM_UNIT_FLOPS), 989e12, 1e-12);
	CHECK_NEAR(parse("0 FLOP/s", SIM_UNIT_FLOPS), 0, 0);
	CHECK_NEAR(parse("1410 MHz", SIM_UNIT_FREQ), 1.41e9, 1e-12);
	CHECK_NEAR(parse("400 W", SIM_UNIT_POWER), 400, 1e-12);
	CHECK_NEAR(parse("6.5 kW", SIM_UNIT_POWER), 6500, 1e-12);
	CHECK_NEAR(parse("1e3 W", SIM_UNIT_POWER), 1000, 1e-12);
	CHECK_NEAR(parse(".5 W", SIM_UNIT_POWER), 0.5, 1e-12);
	CHECK_NEAR(parse("+5 W", SIM_UNIT_POWER), 5, 1e-12);
	CHECK_NEAR(parse("8", SIM_UNIT_NONE), 8, 0);
	CHECK_NEAR(parse("0.25", SIM_UNIT_NONE), 0.25, 0);
	double v = 1;
	CHECK_INT(sim_unit_parse("-0 B", SIM_UNIT_BYTES, &v, NULL, 0), SIM_OK);
	CHECK(v == 0 && !signbit(v));
}

static void test_errors(void)
{
	check_err("200", SIM_UNIT_BANDWIDTH, "missing unit: write '200 Gb/s' or '25 GB/s'");
	check_err("80", SIM_UNIT_BYTES, "missing unit: write '80 GiB' or '40 GB'");
	check_err("4", SIM_UNIT_TIME, "missing unit: write '1.5 us' or '130 ns'");
	check_err("200 GB", SIM_UNIT_BANDWIDTH,
		  "'GB' is a size, expected a bandwidth such as '25 GB/s'");
	check_err("25 GB/s", SIM_UNIT_BYTES, "'GB/s' is a bandwidth, expected a size such as '80 GiB'");
	check_err("5 s", SIM_UNIT_BYTES, "'s' is a time, expected a size such as '80 GiB'");
	check_err("200 Gb", SIM_UNIT_BANDWIDTH,
		  "'Gb' is a number of bits, expected a bandwidth such as '25 GB/s'");
	/* Sizes are bytes: a bit count is refused, with the byte units to write. */
	check_err("80 Gb", SIM_UNIT_BYTES, "'Gb' is in bits; sizes are in bytes: write 'GB' or 'GiB'");
	check_err("40 Mb", SIM_UNIT_BYTES, "'Mb' is in bits; sizes are in bytes: write 'MB' or 'MiB'");
	check_err("5 parsecs", SIM_UNIT_TIME, "unknown unit 'parsecs': expected a time such as '1.5 us'");
	check_err("3 GBps", SIM_UNIT_BANDWIDTH, "unknown unit 'GBps': did you mean 'GB/s' or 'Gbps'?");
	check_err("3 mb/s", SIM_UNIT_BANDWIDTH, "unknown unit 'mb/s': did you mean 'MB/s' or 'Mb/s'?");
	check_err("3 KB", SIM_UNIT_BYTES, "unknown unit 'KB': did you mean 'kB'?");
	check_err("3 Mhz", SIM_UNIT_FREQ, "unknown unit 'Mhz': did you mean 'MHz'?");
	check_err("3 KiBs", SIM_UNIT_BANDWIDTH, "unknown unit 'KiBs': did you mean 'KiB/s'?");
	check_err("3 Gbits/s", SIM_UNIT_BANDWIDTH, "unknown unit 'Gbits/s': did you mean 'Gbit/s'?");
	check_err("nan GiB", SIM_UNIT_BYTES, "'nan' is not a finite number");
	check_err("-inf s", SIM_UNIT_TIME, "'-inf' is not a finite number");
	check_err("-2 TB/s", SIM_UNIT_BANDWIDTH, "a bandwidth cannot be negative, got '-2 TB/s'");
	check_err("-1", SIM_UNIT_NONE, "a plain number cannot be negative, got '-1'");
	check_err("", SIM_UNIT_TIME, "empty value: expected a time such as '1.5 us'");
	check_err("   ", SIM_UNIT_BANDWIDTH, "empty value: expected a bandwidth such as '25 GB/s'");
	check_err("x", SIM_UNIT_TIME, "expected a time such as '1.5 us', got 'x'");
	check_err("fast", SIM_UNIT_NONE, "expected a plain number such as '8', got 'fast'");
	check_err("8 GB", SIM_UNIT_NONE, "unexpected unit 'GB': expected a plain number");
	check_err("25 GB/s x", SIM_UNIT_BANDWIDTH, "unexpected text 'x' after '25 GB/s'");
	check_err("1.5.3 us", SIM_UNIT_TIME, "malformed number '1.5.3'");
	check_err("1,000 GB", SIM_UNIT_BYTES, "malformed number '1,000'");
	check_err("1e400 B", SIM_UNIT_BYTES, "'1e400' is too large");
	check_err("1e300 PB", SIM_UNIT_BYTES, "'1e300 PB' is too large");
}

static void check_fmt(double v, sim_unit u, const char *want)
{
	char buf[48];
	sim_unit_format(v, u, buf, sizeof buf);
	CHECK_STR(buf, want);
}

static void test_format(void)
{
	check_fmt(80.0 * 1073741824.0, SIM_UNIT_BYTES, "80 GiB"); /* binary when exact */
	check_fmt(40e9, SIM_UNIT_BYTES, "40 GB");
	check_fmt(1024, SIM_UNIT_BYTES, "1 KiB");
	check_fmt(0, SIM_UNIT_BYTES, "0 B");
	check_fmt(25e9, SIM_UNIT_BANDWIDTH, "25 GB/s");
	check_fmt(1.5e-6, SIM_UNIT_TIME, "1.5 us");
	check_fmt(130e-9, SIM_UNIT_TIME, "130 ns");
	check_fmt(2.5, SIM_UNIT_TIME, "2.5 s");
	check_fmt(312e12, SIM_UNIT_FLOPS, "312 TFLOP/s");
	check_fmt(1.41e9, SIM_UNIT_FREQ, "1.41 GHz");
	check_fmt(6500, SIM_UNIT_POWER, "6.5 kW");
	check_fmt(8, SIM_UNIT_NONE, "8");
	/* Round trip: the formatted text parses back to the value. */
	const double vals[] = {85899345920.0, 40e9, 1.5e-6, 3e-12, 12345.678};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		char buf[48];
		sim_unit_format(vals[i], SIM_UNIT_BYTES, buf, sizeof buf);
		CHECK_NEAR(parse(buf, SIM_UNIT_BYTES), vals[i], 1e-5);
	}
	CHECK_STR(sim_unit_name(SIM_UNIT_BYTES), "bytes");
	CHECK_STR(sim_unit_name(SIM_UNIT_BANDWIDTH), "bandwidth");
	CHECK_STR(sim_unit_name(SIM_UNIT_TIME), "time");
}

static void test_diag(void)
{
	sim_diag *d = sim_diag_new();
	sim_diag_error(d, "a.ini", 3, "bad %s", "thing");
	sim_diag_note(d, "a.ini", 3, "did you mean '%s'?", "tp");
	sim_diag_error(d, "b.ini", 0, "cannot open");
	sim_diag_warning(d, NULL, 0, "careful");
	sim_diag_error(d, NULL, 7, "no path, so no line");
	CHECK_INT(sim_diag_error_count(d), 3);
	CHECK_INT(sim_diag_count(d), 5);
	CHECK_STR(sim_diag_text(d, 0), "a.ini:3: error: bad thing");
	CHECK_STR(sim_diag_text(d, 1), "a.ini:3: note: did you mean 'tp'?");
	CHECK_STR(sim_diag_text(d, 2), "b.ini: error: cannot open");
	CHECK_STR(sim_diag_text(d, 3), "warning: careful");
	CHECK_STR(sim_diag_text(d, 4), "error: no path, so no line");
	CHECK_STR(sim_diag_text(d, 5), ""); /* past the end */
	char long_msg[3000];
	memset(long_msg, 'x', sizeof long_msg - 1);
	long_msg[sizeof long_msg - 1] = '\0';
	sim_diag_error(d, "c.ini", 1, "%s", long_msg); /* not truncated */
	CHECK_INT(strlen(sim_diag_text(d, 5)), strlen("c.ini:1: error: ") + sizeof long_msg - 1);
	FILE *f = tmpfile();
	sim_diag_print(d, f);
	CHECK_INT(ftell(f), 26 + 34 + 26 + 17 + 27 + 16 + 2999 + 1);
	fclose(f);
	sim_diag_clear(d);
	CHECK_INT(sim_diag_error_count(d), 0);
	CHECK_INT(sim_diag_count(d), 0);
	sim_diag_free(d);
	sim_diag_free(NULL);
}

static void test_levenshtein(void)
{
	CHECK_INT(sim_levenshtein("", ""), 0);
	CHECK_INT(sim_levenshtein("abc", ""), 3);
	CHECK_INT(sim_levenshtein("", "abc"), 3);
	CHECK_INT(sim_levenshtein("micro_bach", "micro_batch"), 1);
	CHECK_INT(sim_levenshtein("paralel", "parallel"), 1);
	CHECK_INT(sim_levenshtein("kitten", "sitting"), 3);
	CHECK_INT(sim_levenshtein("flaw", "lawn"), 2);
	CHECK_INT(sim_levenshtein("tp", "pp"), 1);
	char a[201], b[201]; /* longer than the stack row */
	memset(a, 'a', 200);
	memset(b, 'a', 200);
	a[200] = b[200] = '\0';
	b[100] = 'b';
	CHECK_INT(sim_levenshtein(a, b), 1);
	b[199] = '\0';
	CHECK_INT(sim_levenshtein(a, b), 2);
}

int main(void)
{
	test_parse();
	test_errors();
	test_format();
	test_diag();
	test_levenshtein();
	return check_done();
}
