/* loose.c - case columns written as sources write them (valid_int.h): a
 * precision, an optimizer or a memory counter spelled loosely ("BF16",
 * "bf16-mixed", "AdamW 8-bit", "max_memory_allocated") read as the schema's
 * name (tests/cases/README.md, memory-README.md), so that a row an
 * independent set writes its own way is predicted, not skipped or misread.
 * Each returns the schema's name, or NULL where the text names none of
 * them (the caller then keeps the text, and its loader names the error). */
#include "valid_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void lower(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s && n + 1 < len; s++)
		out[n++] = (char)tolower((unsigned char)*s);
	out[n] = 0;
}

const char *valid_precision_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "bf16") || strstr(s, "bfloat16"))
		return "bf16";
	if (strstr(s, "fp8") || strstr(s, "float8"))
		return "fp8";
	if (strstr(s, "tf32"))
		return "tf32";
	/* Lightning's "16-mixed" and "16-true" are fp16; "32-true" fp32 */
	if (strstr(s, "fp16") || strstr(s, "float16") || strstr(s, "half") || !strncmp(s, "16", 2))
		return "fp16";
	if (strstr(s, "fp32") || strstr(s, "float32") || !strncmp(s, "32", 2))
		return "fp32";
	return NULL;
}

const char *valid_optimizer_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "paged"))
		return "paged-adamw";
	if (strstr(s, "8bit") || strstr(s, "8-bit") || strstr(s, "8 bit"))
		return "adam8bit";
	if (strstr(s, "cpu"))
		return "adam-cpu";
	if (strstr(s, "adamw"))
		return "adamw";
	if (strstr(s, "adam"))
		return "adam";
	return NULL;
}

const char *valid_memory_kind(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (!strcmp(s, "oom") || strstr(s, "out of memory") || strstr(s, "out-of-memory"))
		return "oom";
	if (strstr(s, "alloc"))
		return "allocated";
	if (strstr(s, "reserv"))
		return "reserved";
	if (strstr(s, "smi"))
		return "nvidia-smi";
	if (strstr(s, "unknown"))
		return "unknown";
	return NULL;
}
