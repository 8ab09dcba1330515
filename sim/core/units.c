/* units.c - numbers with units, converted to SI base units (see core.h).
 *
 * A unit is [prefix]base. Prefixes: k K M G T P (powers of 1000) and Ki Mi Gi
 * Ti Pi (powers of 1024). Bases per kind:
 *   bytes      B
 *   bandwidth  B/s, Bps (bytes per second); b/s, bit/s, bps (bits: value / 8)
 *   time       ps ns us (or µs) ms s min h (no prefixes)
 *   FLOP rate  FLOP/s, FLOPS
 *   frequency  Hz
 *   power      W
 * A bare number is accepted only for SIM_UNIT_NONE, so "200" can never be read
 * as 200 bytes/s when the writer meant 200 Gb/s.
 */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SIM_UNIT_COUNT] = {
	"plain number", "size", "bandwidth", "time", "FLOP rate", "frequency", "power"};
static const char *const examples[SIM_UNIT_COUNT] = {
	"", "'80 GiB' or '40 GB'", "'200 Gb/s' or '25 GB/s'", "'1.5 us' or '130 ns'",
	"'312 TFLOP/s'", "'1410 MHz'", "'400 W'"};

const char *sim_unit_name(sim_unit unit)
{
	return (unsigned)unit < SIM_UNIT_COUNT ? kind_names[unit] : "?";
}

/* Strip a prefix from u; returns the remaining base and the factor. */
static const char *prefix(const char *u, double *f)
{
	static const struct {
		const char *p;
		double f;
	} tab[] = {{"Ki", 1024.0},
		   {"Mi", 1048576.0},
		   {"Gi", 1073741824.0},
		   {"Ti", 1099511627776.0},
		   {"Pi", 1125899906842624.0},
		   {"k", 1e3},
		   {"K", 1e3},
		   {"M", 1e6},
		   {"G", 1e9},
		   {"T", 1e12},
		   {"P", 1e15}};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		size_t n = strlen(tab[i].p);
		if (!strncmp(u, tab[i].p, n) && u[n]) {
			*f = tab[i].f;
			return u + n;
		}
	}
	*f = 1.0;
	return u;
}

static bool is_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* Factor converting a value in unit u to SI for `kind`, or 0 if u is not a
 * unit of that kind. */
static double factor(const char *u, sim_unit kind)
{
	static const char *const byte_rate[] = {"B/s", "Bps", "byte/s", NULL};
	static const char *const bit_rate[] = {"b/s", "bit/s", "bps", NULL};
	static const char *const flop[] = {"FLOP/s", "FLOPS", "flop/s", NULL};
	static const struct {
		const char *u;
		double s;
	} times[] = {{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6},
		     {"ms", 1e-3},  {"s", 1.0},   {"min", 60.0}, {"h", 3600.0}};
	double f;
	const char *base = prefix(u, &f);
	switch (kind) {
	case SIM_UNIT_BYTES:
		return !strcmp(base, "B") ? f : 0;
	case SIM_UNIT_BANDWIDTH:
		return is_any(base, byte_rate) ? f : is_any(base, bit_rate) ? f / 8.0 : 0;
	case SIM_UNIT_TIME:
		for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
			if (!strcmp(u, times[i].u))
				return times[i].s;
		return 0;
	case SIM_UNIT_FLOPS:
		return is_any(base, flop) ? f : 0;
	case SIM_UNIT_FREQ:
		return !strcmp(base, "Hz") ? f : 0;
	case SIM_UNIT_POWER:
		return !strcmp(base, "W") ? f : 0;
	default:
		return 0;
	}
}

static int fail(char *err, size_t len, const char *fmt, const char *a, const char *b)
{
	snprintf(err, len, fmt, a, b);
	return SIM_ECONF;
}

int sim_unit_parse(const char *text, sim_unit unit, double *out, char *err, size_t errlen)
{
	while (*text == ' ' || *text == '\t')
		text++;
	if (!*text)
		return fail(err, errlen, "empty value%s%s", "", "");
	char *end;
	double v = strtod(text, &end);
	if (end == text)
		return fail(err, errlen, "expected a number, got '%s'%s", text, "");
	if (!isfinite(v))
		return fail(err, errlen, "'%s' is not a finite number%s", text, "");
	if (v < 0)
		return fail(err, errlen, "'%s' is negative%s", text, "");
	while (*end == ' ' || *end == '\t')
		end++;
	char u[32];
	size_t n = strlen(end);
	while (n > 0 && (end[n - 1] == ' ' || end[n - 1] == '\t'))
		n--;
	if (n >= sizeof u)
		return fail(err, errlen, "unknown unit '%s'%s", end, "");
	memcpy(u, end, n);
	u[n] = '\0';
	if (unit == SIM_UNIT_NONE) {
		if (n)
			return fail(err, errlen, "expected a plain number, got '%s'%s", text, "");
		*out = v;
		return SIM_OK;
	}
	if (!n)
		return fail(err, errlen, "missing unit: write %s%s", examples[unit], "");
	double f = factor(u, unit);
	if (f > 0) {
		*out = v * f;
		return isfinite(*out) ? SIM_OK : fail(err, errlen, "'%s' is too large%s", text, "");
	}
	if (unit == SIM_UNIT_BYTES && factor(u, SIM_UNIT_BANDWIDTH) == 0 && u[n - 1] == 'b')
		return fail(err, errlen, "'%s' is in bits; sizes are in bytes (B), e.g. %s", u,
			    examples[unit]);
	for (int k = 1; k < SIM_UNIT_COUNT; k++)
		if (factor(u, (sim_unit)k) > 0) {
			snprintf(err, errlen, "'%s' is a %s, expected a %s such as %s", u,
				 kind_names[k], kind_names[unit], examples[unit]);
			return SIM_ECONF;
		}
	snprintf(err, errlen, "unknown unit '%s' for a %s (e.g. %s)", u, kind_names[unit],
		 examples[unit]);
	return SIM_ECONF;
}

void sim_unit_format(double value, sim_unit unit, char *buf, size_t len)
{
	static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	static const char *const dec[] = {"", "k", "M", "G", "T", "P"};
	static const char *const tim[] = {"ps", "ns", "us", "ms", "s"};
	static const char *const base[SIM_UNIT_COUNT] = {"", "B", "B/s", "s", "FLOP/s", "Hz", "W"};
	int i = 0;
	if (unit == SIM_UNIT_BYTES) {
		while (i < 5 && fabs(value) >= 1024.0) {
			value /= 1024.0;
			i++;
		}
		snprintf(buf, len, "%.4g %s", value, bin[i]);
	} else if (unit == SIM_UNIT_TIME) {
		value *= 1e12;
		while (i < 4 && fabs(value) >= 1000.0) {
			value /= 1000.0;
			i++;
		}
		snprintf(buf, len, "%.4g %s", value, tim[i]);
	} else if (unit == SIM_UNIT_NONE || (unsigned)unit >= SIM_UNIT_COUNT) {
		snprintf(buf, len, "%.6g", value);
	} else {
		while (i < 5 && fabs(value) >= 1000.0) {
			value /= 1000.0;
			i++;
		}
		snprintf(buf, len, "%.4g %s%s", value, dec[i], base[unit]);
	}
}
