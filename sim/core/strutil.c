/* strutil.c - edit distance for "did you mean" notes (conf keys, sections,
 * units, enum values). Byte-wise: names in podsim files are ASCII. */
#include "core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Levenshtein distance (insertions, deletions, substitutions each cost 1) with
 * one rolling row: row[j] = distance between the first i bytes of a and the
 * first j bytes of b. O(|a|·|b|) time, O(|b|) space; short strings stay on the
 * stack. Returns INT_MAX only if memory for a very long b cannot be had. */
int sim_levenshtein(const char *a, const char *b)
{
	size_t n = strlen(b);
	int stack[64];
	int *row = n < 64 ? stack : malloc((n + 1) * sizeof *row);
	if (!row)
		return INT_MAX;
	for (size_t j = 0; j <= n; j++)
		row[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		int diag = row[0]; /* row[j - 1] of the previous i */
		row[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int sub = diag + (a[i - 1] != b[j - 1]);
			int del = row[j] + 1, ins = row[j - 1] + 1;
			diag = row[j];
			int best = sub < del ? sub : del;
			row[j] = best < ins ? best : ins;
		}
	}
	int d = row[n];
	if (row != stack)
		free(row);
	return d;
}

/* Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF) without control characters other than tab: C0 (below 0x20),
 * DEL (0x7f) and C1 (U+0080..U+009F) are refused, since XML 1.0 (the HTML
 * pages are XHTML) forbids most of them even escaped and they garble a
 * terminal. Returns the byte offset of the first bad sequence, or n. */
size_t sim_text_check(const char *text, size_t n, const char **why)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				*why = "a control character";
				return i;
			}
			i++;
			continue;
		}
		size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
			     : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!len || i + len > n) {
			*why = "invalid UTF-8";
			return i;
		}
		unsigned cp = c & (0xffu >> (len + 1));
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80) {
				*why = "invalid UTF-8";
				return i;
			}
			cp = cp << 6 | (s[i + k] & 0x3fu);
		}
		static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			*why = "invalid UTF-8";
			return i;
		}
		if (cp <= 0x9f) { /* C1 controls */
			*why = "a control character";
			return i;
		}
		i += len;
	}
	return n;
}

size_t sim_text_char(const char *s)
{
	unsigned c = (unsigned char)*s;
	size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
		     : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	const char *why;
	if (!len || strnlen(s, len) < len)
		return 0;
	return sim_text_check(s, len, &why) == len ? len : 0;
}
