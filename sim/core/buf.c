/* buf.c - FNV-1a hashing and a growable string buffer.
 *
 * The buffer never fails loudly: when memory runs out it sets b->oom, keeps
 * what it had and ignores further appends, so a caller builds a whole
 * document and checks b->oom once at the end. Invariant: once anything has
 * been appended (even zero bytes), data is non-NULL and data[len] == '\0';
 * right after sim_buf_init, data is NULL (so that the owner of an empty
 * buffer can take data and free it). Capacity doubles from 256 bytes. */
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64-bit: offset basis 14695981039346656037, prime 2^40 + 2^8 + 0xb3
 * (http://www.isthe.com/chongo/tech/comp/fnv/). */
uint64_t sim_hash64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void sim_hash_hex(uint64_t h, char out[17])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 15; i >= 0; i--, h >>= 4)
		out[i] = digits[h & 0xf];
	out[16] = '\0';
}

void sim_buf_init(sim_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void sim_buf_free(sim_buf *b)
{
	free(b->data);
	sim_buf_init(b);
}

/* Room for extra more bytes plus the terminator; false (and oom) if none. */
static bool reserve(sim_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (extra < b->cap - b->len) /* cap > len always holds once allocated */
		return true;
	if (extra > SIZE_MAX / 2 - b->len) {
		b->oom = true;
		return false;
	}
	size_t need = b->len + extra + 1, cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	if (!b->data)
		d[0] = '\0';
	b->data = d;
	b->cap = cap;
	return true;
}

void sim_buf_append(sim_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sim_buf_printf(sim_buf *b, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0 && reserve(b, (size_t)n)) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

/* RFC 8259 string: quote and backslash escaped, \n \r \t by name, other
 * control characters below 0x20 as \u00XX; well-formed UTF-8 passes through,
 * any other byte >= 0x80 (or a C1 control) becomes U+FFFD, so the output is
 * valid UTF-8 whatever a database held. A NULL string is written as null. */
void sim_buf_json_string(sim_buf *b, const char *s)
{
	if (!s) {
		sim_buf_append(b, "null", 4);
		return;
	}
	sim_buf_append(b, "\"", 1);
	for (const char *run = s;; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x80) {
			size_t len = sim_text_char(s);
			if (len) {
				s += len - 1;
				continue;
			}
			sim_buf_append(b, run, (size_t)(s - run));
			sim_buf_append(b, "\\ufffd", 6);
			run = s + 1;
			continue;
		}
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		sim_buf_append(b, run, (size_t)(s - run)); /* the plain bytes before */
		run = s + 1;
		if (c == '\0')
			break;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			sim_buf_append(b, e, 2);
		} else if (c == '\n') {
			sim_buf_append(b, "\\n", 2);
		} else if (c == '\r') {
			sim_buf_append(b, "\\r", 2);
		} else if (c == '\t') {
			sim_buf_append(b, "\\t", 2);
		} else {
			sim_buf_printf(b, "\\u%04x", c);
		}
	}
	sim_buf_append(b, "\"", 1);
}
