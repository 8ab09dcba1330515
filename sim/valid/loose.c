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

const char *valid_fabric_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "efa"))
		return "efa";
	if (strstr(s, "roce"))
		return "roce-fat-tree";
	if (strstr(s, "rail"))
		return "rail-optimized";
	if (strstr(s, "omni"))
		return "omni-path";
	if (strstr(s, "infiniband") || !strncmp(s, "ib", 2) || strstr(s, " ib") || strstr(s, "hdr") ||
	    strstr(s, "ndr"))
		return "ib-fat-tree";
	if (strstr(s, "unknown"))
		return "unknown";
	return NULL;
}

const char *valid_recompute_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "selective"))
		return "selective";
	if (strstr(s, "full") || !strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on") ||
	    !strcmp(s, "1"))
		return "full";
	if (!strcmp(s, "none") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") ||
	    !strcmp(s, "0"))
		return "none";
	return NULL;
}

const char *valid_offload_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "nvme"))
		return "nvme";
	if (strstr(s, "cpu") || strstr(s, "host"))
		return "cpu";
	if (!strcmp(s, "none") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0"))
		return "none";
	return NULL;
}

const char *valid_flag_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		return "1";
	if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		return "0";
	return NULL;
}

/* A microbenchmark's kind as nccl-tests and papers name it ("all_reduce",
 * "AllGather", "reduce_scatter_perf", "all-to-all", "sendrecv", "matmul"). */
const char *valid_kind_name(const char *col)
{
	char s[64];
	size_t n = 0;
	for (const char *p = col; *p && n + 1 < sizeof s; p++)
		if (*p != '_' && *p != '-' && *p != ' ')
			s[n++] = (char)tolower((unsigned char)*p);
	s[n] = 0;
	if (n > 4 && !strcmp(s + n - 4, "perf"))
		s[n - 4] = 0;
	static const struct {
		const char *bare, *kind;
	} k[] = {{"allreduce", "allreduce"},         {"allgather", "allgather"},
	         {"reducescatter", "reducescatter"}, {"alltoall", "alltoall"},
	         {"broadcast", "broadcast"},         {"p2p", "p2p"},
	         {"sendrecv", "p2p"},                {"gemm", "gemm"},
	         {"matmul", "gemm"},                 {"hbmcopy", "hbm_copy"},
	         {"attention", "attention"}};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (!strcmp(s, k[i].bare))
			return k[i].kind;
	return NULL;
}

/* What a memory row trains: "LoRA", "QLoRA", "lora (r=16)" -> lora;
 * "full", "All" -> all. */
const char *valid_trainable_name(const char *col)
{
	char s[64];
	lower(col, s, sizeof s);
	if (strstr(s, "lora"))
		return "lora";
	if (strstr(s, "all") || strstr(s, "full"))
		return "all";
	return NULL;
}

/* The columns read loosely, and each one's reader. */
static const struct {
	const char *col;
	const char *(*name)(const char *);
} loose_cols[] = {
        {"precision", valid_precision_name}, {"optimizer", valid_optimizer_name},
        {"memory_kind", valid_memory_kind},  {"fabric", valid_fabric_name},
        {"recompute", valid_recompute_name}, {"offload", valid_offload_name},
        {"sequence_parallel", valid_flag_name}, {"kind", valid_kind_name},
        {"trainable", valid_trainable_name},
};

const char *valid_loose(const char *col, const char *v)
{
	if (!v || !*v)
		return v;
	for (size_t i = 0; i < sizeof loose_cols / sizeof loose_cols[0]; i++)
		if (!strcmp(col, loose_cols[i].col)) {
			const char *n = loose_cols[i].name(v);
			return n ? n : v;
		}
	return v;
}

void valid_loose_assume(const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	for (size_t i = 0; i < sizeof loose_cols / sizeof loose_cols[0]; i++) {
		int k = cases_csv_col(c, loose_cols[i].col);
		const char *v = k >= 0 ? cases_csv_get(c, row, k) : "";
		const char *n = valid_loose(loose_cols[i].col, v);
		if (*v && strcmp(n, v))
			valid_assume(assumed, alen, "%s '%.24s' read as %s", loose_cols[i].col, v, n);
	}
}
