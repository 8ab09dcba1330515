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

/* One reading: the lower-case text holds `key` (a leading '=': is it; a
 * leading '^': starts with it) -> the schema's `name`. */
typedef struct reading {
	const char *key, *name;
} reading;

/* The first reading of r[0 .. n-1] that col's lower-case text matches. */
static const char *read_as(const char *col, const reading *r, size_t n)
{
	char s[64];
	lower(col, s, sizeof s);
	for (size_t i = 0; i < n; i++) {
		const char *k = r[i].key;
		bool hit = k[0] == '=' ? !strcmp(s, k + 1)
		           : k[0] == '^' ? !strncmp(s, k + 1, strlen(k + 1))
		                         : strstr(s, k) != NULL;
		if (hit)
			return r[i].name;
	}
	return NULL;
}

#define READ_AS(col, table) read_as(col, table, sizeof table / sizeof table[0])

const char *valid_precision_name(const char *col)
{
	/* Lightning's "16-mixed" and "16-true" are fp16, "32-true" fp32 */
	static const reading r[] = {
	        {"bf16", "bf16"},  {"bfloat16", "bf16"}, {"fp8", "fp8"},   {"float8", "fp8"},
	        {"tf32", "tf32"},  {"fp16", "fp16"},     {"float16", "fp16"}, {"half", "fp16"},
	        {"^16", "fp16"},   {"fp32", "fp32"},     {"float32", "fp32"}, {"^32", "fp32"}};
	return READ_AS(col, r);
}

const char *valid_optimizer_name(const char *col)
{
	static const reading r[] = {{"paged", "paged-adamw"}, {"8bit", "adam8bit"},
	                            {"8-bit", "adam8bit"},    {"8 bit", "adam8bit"},
	                            {"cpu", "adam-cpu"},      {"adamw", "adamw"},
	                            {"adam", "adam"}};
	return READ_AS(col, r);
}

const char *valid_memory_kind(const char *col)
{
	static const reading r[] = {{"=oom", "oom"},          {"out of memory", "oom"},
	                            {"out-of-memory", "oom"}, {"alloc", "allocated"},
	                            {"reserv", "reserved"},   {"smi", "nvidia-smi"},
	                            {"unknown", "unknown"}};
	return READ_AS(col, r);
}

const char *valid_fabric_name(const char *col)
{
	static const reading r[] = {
	        {"efa", "efa"},           {"roce", "roce-fat-tree"}, {"rail", "rail-optimized"},
	        {"omni", "omni-path"},    {"infiniband", "ib-fat-tree"}, {"^ib", "ib-fat-tree"},
	        {" ib", "ib-fat-tree"},   {"hdr", "ib-fat-tree"},    {"ndr", "ib-fat-tree"},
	        {"unknown", "unknown"}};
	return READ_AS(col, r);
}

const char *valid_recompute_name(const char *col)
{
	static const reading r[] = {
	        {"selective", "selective"}, {"full", "full"},  {"=yes", "full"}, {"=true", "full"},
	        {"=on", "full"},            {"=1", "full"},    {"=none", "none"}, {"=no", "none"},
	        {"=false", "none"},         {"=off", "none"},  {"=0", "none"}};
	return READ_AS(col, r);
}

const char *valid_offload_name(const char *col)
{
	static const reading r[] = {{"nvme", "nvme"},  {"cpu", "cpu"},     {"host", "cpu"},
	                            {"=none", "none"}, {"=no", "none"},    {"=false", "none"},
	                            {"=0", "none"}};
	return READ_AS(col, r);
}

const char *valid_flag_name(const char *col)
{
	static const reading r[] = {{"=1", "1"},  {"=true", "1"},  {"=yes", "1"}, {"=on", "1"},
	                            {"=0", "0"},  {"=false", "0"}, {"=no", "0"},  {"=off", "0"}};
	return READ_AS(col, r);
}

/* What a memory row trains: "LoRA", "QLoRA", "lora (r=16)" -> lora;
 * "full", "All" -> all. */
const char *valid_trainable_name(const char *col)
{
	static const reading r[] = {{"lora", "lora"}, {"all", "all"}, {"full", "all"}};
	return READ_AS(col, r);
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
