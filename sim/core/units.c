/* units.c - numbers with units, converted to SI base units (see core.h).
 *
 * Every accepted unit symbol is listed in one table, with its kind and its
 * factor to the SI base unit (bytes, bytes/s, s, FLOP/s, Hz, W), so what is
 * accepted can be read off in one place:
 *   size       B kB MB GB TB PB EB, KiB MiB GiB TiB PiB          (bytes only)
 *   bandwidth  the sizes followed by /s (bytes per second), and bits per
 *              second: b/s, bit/s, bps with k M G T P (value / 8)
 *   time       ps ns us µs ms s min h
 *   compute    FLOP/s and FLOPS with k M G T P E
 *   frequency  Hz kHz MHz GHz THz
 *   power      W kW MW
 * 'b' is a bit and 'B' a byte: "200 Gb/s" = 25e9 B/s = "25 GB/s". Bit counts
 * (Mb, Gbit) are in the table too, only to be refused where a size is expected
 * with a hint to write bytes. A unit is required wherever a kind other than
 * SIM_UNIT_NONE is asked for: a bare "200" is an error, never 200 B/s.
 */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BITS SIM_UNIT_COUNT /* pseudo-kind of bit counts, which no kind accepts */

typedef struct unit_def {
	const char *sym;
	sim_unit kind;
	double factor;   /* value in this unit * factor = SI value */
	const char *alt; /* for bit counts: the byte units to write instead */
} unit_def;

#define K1 1024.0
#define K2 (K1 * K1)
#define K3 (K2 * K1)
#define K4 (K3 * K1)
#define K5 (K4 * K1)
/* Decimal prefixes k..P (and E) and binary Ki..Pi over one base symbol. */
#define DEC(b, k, f)                                                                    \
	{"k" b, k, 1e3 * (f), NULL}, {"M" b, k, 1e6 * (f), NULL}, {"G" b, k, 1e9 * (f), NULL}, \
		{"T" b, k, 1e12 * (f), NULL}, {"P" b, k, 1e15 * (f), NULL}
#define BIN(b, k, f)                                                                     \
	{"Ki" b, k, K1 *(f), NULL}, {"Mi" b, k, K2 *(f), NULL}, {"Gi" b, k, K3 *(f), NULL}, \
		{"Ti" b, k, K4 *(f), NULL}, {"Pi" b, k, K5 *(f), NULL}

static const unit_def unit_table[] = {
	{"B", SIM_UNIT_BYTES, 1, NULL},
	DEC("B", SIM_UNIT_BYTES, 1),
	{"EB", SIM_UNIT_BYTES, 1e18, NULL},
	BIN("B", SIM_UNIT_BYTES, 1),
	{"B/s", SIM_UNIT_BANDWIDTH, 1, NULL},
	DEC("B/s", SIM_UNIT_BANDWIDTH, 1),
	BIN("B/s", SIM_UNIT_BANDWIDTH, 1),
	{"b/s", SIM_UNIT_BANDWIDTH, 0.125, NULL},
	DEC("b/s", SIM_UNIT_BANDWIDTH, 0.125),
	{"bit/s", SIM_UNIT_BANDWIDTH, 0.125, NULL},
	DEC("bit/s", SIM_UNIT_BANDWIDTH, 0.125),
	{"bps", SIM_UNIT_BANDWIDTH, 0.125, NULL},
	DEC("bps", SIM_UNIT_BANDWIDTH, 0.125),
	{"ps", SIM_UNIT_TIME, 1e-12, NULL},
	{"ns", SIM_UNIT_TIME, 1e-9, NULL},
	{"us", SIM_UNIT_TIME, 1e-6, NULL},
	{"\xC2\xB5s", SIM_UNIT_TIME, 1e-6, NULL}, /* U+00B5 micro sign */
	{"\xCE\xBCs", SIM_UNIT_TIME, 1e-6, NULL}, /* U+03BC greek mu */
	{"ms", SIM_UNIT_TIME, 1e-3, NULL},
	{"s", SIM_UNIT_TIME, 1, NULL},
	{"min", SIM_UNIT_TIME, 60, NULL},
	{"h", SIM_UNIT_TIME, 3600, NULL},
	{"FLOP/s", SIM_UNIT_FLOPS, 1, NULL},
	DEC("FLOP/s", SIM_UNIT_FLOPS, 1),
	{"EFLOP/s", SIM_UNIT_FLOPS, 1e18, NULL},
	{"FLOPS", SIM_UNIT_FLOPS, 1, NULL},
	DEC("FLOPS", SIM_UNIT_FLOPS, 1),
	{"EFLOPS", SIM_UNIT_FLOPS, 1e18, NULL},
	{"Hz", SIM_UNIT_FREQ, 1, NULL},
	{"kHz", SIM_UNIT_FREQ, 1e3, NULL},
	{"MHz", SIM_UNIT_FREQ, 1e6, NULL},
	{"GHz", SIM_UNIT_FREQ, 1e9, NULL},
	{"THz", SIM_UNIT_FREQ, 1e12, NULL},
	{"W", SIM_UNIT_POWER, 1, NULL},
	{"kW", SIM_UNIT_POWER, 1e3, NULL},
	{"MW", SIM_UNIT_POWER, 1e6, NULL},
	{"b", BITS, 0.125, "'B'"},
	{"bit", BITS, 0.125, "'B'"},
	{"kb", BITS, 125, "'kB' or 'KiB'"},
	{"kbit", BITS, 125, "'kB' or 'KiB'"},
	{"Mb", BITS, 125e3, "'MB' or 'MiB'"},
	{"Mbit", BITS, 125e3, "'MB' or 'MiB'"},
	{"Gb", BITS, 125e6, "'GB' or 'GiB'"},
	{"Gbit", BITS, 125e6, "'GB' or 'GiB'"},
	{"Tb", BITS, 125e9, "'TB' or 'TiB'"},
	{"Tbit", BITS, 125e9, "'TB' or 'TiB'"},
};
#define NUNITS (sizeof unit_table / sizeof unit_table[0])

/* Indexed by sim_unit, plus BITS at the end. */
static const char *const kind_names[SIM_UNIT_COUNT] = {
	"number", "bytes", "bandwidth", "time", "FLOP/s", "frequency", "power"};
static const char *const kind_phrase[SIM_UNIT_COUNT + 1] = {
	"a plain number", "a size",	  "a bandwidth", "a time",
	"a compute rate", "a frequency", "a power",	  "a number of bits"};
static const char *const example[SIM_UNIT_COUNT] = {
	"'8'", "'80 GiB'", "'25 GB/s'", "'1.5 us'", "'312 TFLOP/s'", "'1410 MHz'", "'400 W'"};
static const char *const missing_hint[SIM_UNIT_COUNT] = {
	"", "'80 GiB' or '40 GB'", "'200 Gb/s' or '25 GB/s'", "'1.5 us' or '130 ns'",
	"'312 TFLOP/s'", "'1410 MHz'", "'400 W' or '6.5 kW'"};

const char *sim_unit_name(sim_unit unit)
{
	return (unsigned)unit < SIM_UNIT_COUNT ? kind_names[unit] : "?";
}

static const unit_def *find_unit(const char *sym)
{
	for (size_t i = 0; i < NUNITS; i++)
		if (!strcmp(unit_table[i].sym, sym))
			return &unit_table[i];
	return NULL;
}

/* Length of a decimal number at s: [+-] (d+[.d*] | .d+) [(e|E)[+-]d+]; 0 if
 * there is none. Hex, "inf" and "nan", which strtod would take, are refused. */
static size_t scan_number(const char *s)
{
	size_t i = 0, digits = 0;
	if (s[i] == '+' || s[i] == '-')
		i++;
	for (; s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (s[j] >= '0' && s[j] <= '9') {
			while (s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	return i;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static size_t word_len(const char *s)
{
	size_t n = 0;
	while (s[n] && !is_space(s[n]))
		n++;
	return n;
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	if (err && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return SIM_ECONF;
}

static void offer(const char *c, const char *best[2], int *n)
{
	if (*n < 2 && (*n == 0 || strcmp(best[0], c)))
		best[(*n)++] = c;
}

/* Up to two symbols of `kind` an unknown unit may have meant. First the
 * likely slips: "ps" for "/s" ('GBps' -> 'GB/s') and a wrong case, where both
 * readings are offered when bits and bytes differ only in case ('mb/s' ->
 * 'MB/s' or 'Mb/s', 'GBps' -> ... or 'Gbps'). Failing those, the symbol at the
 * smallest edit distance (at most 1, or 2 for longer symbols), nearest in
 * length ('KiBs' -> 'KiB/s'). Returns how many were found. */
static int suggest(const char *sym, sim_unit kind, const char *best[2])
{
	size_t len = strlen(sym);
	int n = 0;
	char slash[64];
	if (len > 2 && len < sizeof slash && !strcmp(sym + len - 2, "ps")) {
		snprintf(slash, sizeof slash, "%.*s/s", (int)(len - 2), sym);
		const unit_def *u = find_unit(slash);
		if (u && u->kind == kind)
			offer(u->sym, best, &n);
	}
	for (size_t i = 0; i < NUNITS; i++)
		if (unit_table[i].kind == kind && !strcasecmp(sym, unit_table[i].sym))
			offer(unit_table[i].sym, best, &n);
	if (n)
		return n;
	int limit = len > 3 ? 2 : 1, best_score = (limit + 1) * 16;
	for (size_t i = 0; i < NUNITS; i++) {
		const char *c = unit_table[i].sym;
		if (unit_table[i].kind != kind)
			continue;
		int d = sim_levenshtein(sym, c);
		size_t dl = len > strlen(c) ? len - strlen(c) : strlen(c) - len;
		int score = d * 16 + (dl > 15 ? 15 : (int)dl);
		if (d > limit || score > best_score)
			continue;
		if (score < best_score)
			n = 0;
		best_score = score;
		offer(c, best, &n);
	}
	return n;
}

/* The error for a unit symbol that is not one of `unit`'s. */
static int bad_unit(const char *sym, sim_unit unit, char *err, size_t len)
{
	const unit_def *u = find_unit(sym);
	if (unit == SIM_UNIT_NONE)
		return fail(err, len, "unexpected unit '%s': expected a plain number", sym);
	if (u && u->kind == BITS && unit == SIM_UNIT_BYTES)
		return fail(err, len, "'%s' is in bits; sizes are in bytes: write %s", sym, u->alt);
	if (u)
		return fail(err, len, "'%s' is %s, expected %s such as %s", sym, kind_phrase[u->kind],
			    kind_phrase[unit], example[unit]);
	const char *best[2] = {NULL, NULL};
	int n = suggest(sym, unit, best);
	if (n == 2)
		return fail(err, len, "unknown unit '%s': did you mean '%s' or '%s'?", sym, best[0],
			    best[1]);
	if (n == 1)
		return fail(err, len, "unknown unit '%s': did you mean '%s'?", sym, best[0]);
	return fail(err, len, "unknown unit '%s': expected %s such as %s", sym, kind_phrase[unit],
		    example[unit]);
}

/* Checks on the number itself; on success *v is its value, *end follows it. */
static int parse_number(const char *s, sim_unit unit, double *v, const char **end, char *err,
			size_t len)
{
	const char *w = s + (*s == '+' || *s == '-');
	if (!strncasecmp(w, "nan", 3) || !strncasecmp(w, "inf", 3))
		return fail(err, len, "'%.*s' is not a finite number", (int)word_len(s), s);
	size_t n = scan_number(s);
	if (!n)
		return fail(err, len, "expected %s such as %s, got '%s'", kind_phrase[unit],
			    example[unit], s);
	if (s[n] && strchr(".,0123456789", s[n])) {
		size_t m = n;
		while (s[m] && strchr(".,0123456789eE+-", s[m]) != NULL)
			m++;
		return fail(err, len, "malformed number '%.*s'", (int)m, s);
	}
	char num[64];
	if (n >= sizeof num)
		return fail(err, len, "number '%.*s' is too long", (int)n, s);
	memcpy(num, s, n);
	num[n] = '\0';
	*v = strtod(num, NULL);
	*end = s + n;
	if (!isfinite(*v))
		return fail(err, len, "'%s' is too large", num);
	return SIM_OK;
}

int sim_unit_parse(const char *text, sim_unit unit, double *out, char *err, size_t errlen)
{
	if ((unsigned)unit >= SIM_UNIT_COUNT)
		return fail(err, errlen, "internal error: bad unit kind %d", (int)unit);
	char buf[256];
	while (is_space(*text))
		text++;
	size_t tlen = strlen(text);
	while (tlen && is_space(text[tlen - 1]))
		tlen--;
	if (tlen >= sizeof buf)
		return fail(err, errlen, "value is longer than %zu bytes", sizeof buf - 1);
	memcpy(buf, text, tlen);
	buf[tlen] = '\0';
	if (!tlen)
		return fail(err, errlen, "empty value: expected %s such as %s", kind_phrase[unit],
			    example[unit]);
	double v = 0;
	const char *p = buf;
	if (parse_number(buf, unit, &v, &p, err, errlen) != SIM_OK)
		return SIM_ECONF;
	while (is_space(*p))
		p++;
	char sym[64];
	size_t slen = word_len(p);
	if (slen >= sizeof sym)
		return fail(err, errlen, "unknown unit '%.*s'", (int)slen, p);
	memcpy(sym, p, slen);
	sym[slen] = '\0';
	if (p[slen])
		return fail(err, errlen, "unexpected text '%s' after '%.*s'", p + slen + 1,
			    (int)(p + slen - buf), buf);
	double f = 1;
	if (slen) {
		const unit_def *u = find_unit(sym);
		if (!u || u->kind != unit)
			return bad_unit(sym, unit, err, errlen);
		f = u->factor;
	} else if (unit != SIM_UNIT_NONE) {
		return fail(err, errlen, "missing unit: write %s", missing_hint[unit]);
	}
	if (v < 0)
		return fail(err, errlen, "%s cannot be negative, got '%s'", kind_phrase[unit], buf);
	if (!isfinite(v * f))
		return fail(err, errlen, "'%s' is too large", buf);
	*out = v * f + 0.0; /* + 0.0 turns -0 into 0 */
	return SIM_OK;
}

/* --------------------------------------------------------------- format -- */

typedef struct prefix {
	const char *p;
	double f;
} prefix;

/* value / f printed with up to 6 significant digits and the unit; returns
 * whether the text reads back as the value (to 1e-12 relative). */
static bool fmt_one(double value, double f, const char *pfx, const char *base, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%.6g %s%s", value / f, pfx, base);
	double back = strtod(buf, NULL) * f;
	return fabs(back - value) <= 1e-12 * fabs(value);
}

/* The largest prefix not above |value| (the smallest if none is). */
static const prefix *pick(double value, const prefix *tab, size_t n)
{
	const prefix *best = &tab[0];
	for (size_t i = 0; i < n; i++)
		if (fabs(value) >= tab[i].f)
			best = &tab[i];
	return best;
}

void sim_unit_format(double value, sim_unit unit, char *buf, size_t len)
{
	static const prefix dec[] = {{"", 1},	 {"k", 1e3},   {"M", 1e6}, {"G", 1e9},
				     {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
	static const prefix bin[] = {{"", 1},	 {"Ki", K1}, {"Mi", K2},
				     {"Gi", K3}, {"Ti", K4}, {"Pi", K5}};
	static const prefix tim[] = {{"p", 1e-12}, {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"", 1}};
	static const char *const base[SIM_UNIT_COUNT] = {"", "B", "B/s", "s", "FLOP/s", "Hz", "W"};
	if (!len)
		return;
	if ((unsigned)unit >= SIM_UNIT_COUNT || unit == SIM_UNIT_NONE || !isfinite(value) ||
	    value == 0) {
		snprintf(buf, len, "%.6g%s%s", value,
			 (unsigned)unit < SIM_UNIT_COUNT && unit ? " " : "",
			 (unsigned)unit < SIM_UNIT_COUNT ? base[unit] : "");
		return;
	}
	const prefix *d = unit == SIM_UNIT_TIME ? pick(value, tim, 5) : pick(value, dec, 7);
	bool dec_exact = fmt_one(value, d->f, d->p, base[unit], buf, len);
	if (unit != SIM_UNIT_BYTES && unit != SIM_UNIT_BANDWIDTH)
		return;
	/* Sizes and rates may read better in binary prefixes: 80 GiB, not 85.8993 GB. */
	char alt[64];
	const prefix *b = pick(value, bin, 6);
	bool bin_exact = fmt_one(value, b->f, b->p, base[unit], alt, sizeof alt);
	if (bin_exact && (!dec_exact || strlen(alt) < strlen(buf)))
		snprintf(buf, len, "%s", alt);
}
