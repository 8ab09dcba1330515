/* buf.c - FNV-1a hashing and a growable string buffer that records OOM
 * instead of failing (callers check b->oom once at the end). */
#include "core.h"

#include <stdlib.h>
#include <string.h>

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
	snprintf(out, 17, "%016llx", (unsigned long long)h);
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

static bool reserve(sim_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void sim_buf_append(sim_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
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

void sim_buf_json_string(sim_buf *b, const char *s)
{
	sim_buf_append(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			sim_buf_append(b, e, 2);
		} else if (c == '\n') {
			sim_buf_append(b, "\\n", 2);
		} else if (c == '\r') {
			sim_buf_append(b, "\\r", 2);
		} else if (c == '\t') {
			sim_buf_append(b, "\\t", 2);
		} else if (c < 0x20) {
			sim_buf_printf(b, "\\u%04x", c);
		} else {
			sim_buf_append(b, (const char *)&c, 1);
		}
	}
	sim_buf_append(b, "\"", 1);
}
