/* loose.c - case columns written as sources write them (valid_int.h,
 * valid_loose): a precision, optimizer, memory counter, fabric,
 * recomputation, offload, flag, flash attention, trainable set or
 * microbenchmark kind spelled loosely ("BF16", "bf16-mixed", "AdamW 8-bit",
 * "max_memory_allocated", "RoCE", "Full", "True", "LoRA", "all_reduce")
 * read as the schema's value (tests/cases/README.md, memory-README.md),
 * each by a table of readings, so that a row an independent set writes its
 * own way is predicted, not skipped or misread. A text no reading matches
 * stays as written, and its loader names the error. */
#include "valid_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

void valid_lower(const char *s, char *out, size_t len)
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

/* Lightning's "16-mixed" and "16-true" are fp16, "32-true" fp32; "mixed"
 * or "AMP" without its 16-bit type is open (the GPU's default, said) */
static const reading precision[] = {
        {"bf16", "bf16"},   {"bfloat16", "bf16"}, {"fp8", "fp8"},      {"float8", "fp8"},
        {"tf32", "tf32"},   {"fp16", "fp16"},     {"float16", "fp16"}, {"half", "fp16"},
        {"^16", "fp16"},    {"fp32", "fp32"},     {"float32", "fp32"}, {"^32", "fp32"},
        {"mixed", ""},      {"=amp", ""},         {"^amp ", ""}};
/* bitsandbytes' paged 8-bit AdamW before its paged 32-bit one; optimizers
 * the schema does not name (SGD, Adafactor, Lion, LAMB) by their names,
 * which memrows.c runs as the states they keep */
static const reading optimizer[] = {
        {"paged_adamw_8bit", "paged-adam8bit"}, {"paged-adamw-8bit", "paged-adam8bit"},
        {"paged adamw 8", "paged-adam8bit"},    {"paged_adam_8bit", "paged-adam8bit"},
        {"paged", "paged-adamw"},               {"8bit", "adam8bit"},
        {"8-bit", "adam8bit"},                  {"8 bit", "adam8bit"},
        {"cpu", "adam-cpu"},                    {"adamw", "adamw"},
        {"lamb", "lamb"},                       {"adam", "adam"},
        {"adafactor", "adafactor"},             {"lion", "lion"},
        {"sgd", "sgd"}};
/* nanotron's benchmark log writes max_memory_allocated and
 * max_memory_reserved as "Mem Alloc" and "Mem Res" (src/nanotron/helpers.py:
 * 609-610 at 0e0a27ea); torchtune's "Peak Memory Active" is
 * active_bytes.all.peak, filed as allocated (memory-README.md) */
static const reading memory_kind[] = {
        {"oom", "oom"},         {"out of memory", "oom"}, {"out-of-memory", "oom"},
        {"alloc", "allocated"}, {"reserv", "reserved"},   {"mem res", "reserved"},
        {"mem_res", "reserved"}, {"memres", "reserved"},  {"active", "allocated"},
        {"smi", "nvidia-smi"},  {"nvml", "nvidia-smi"},  {"unknown", "unknown"}};
static const reading fabric[] = {
        {"efa", "efa"},         {"roce", "roce-fat-tree"},     {"rail", "rail-optimized"},
        {"omni", "omni-path"},  {"infiniband", "ib-fat-tree"}, {"^ib", "ib-fat-tree"},
        {" ib", "ib-fat-tree"}, {"hdr", "ib-fat-tree"},        {"ndr", "ib-fat-tree"},
        {"unknown", "unknown"}};
/* Hugging Face's gradient checkpointing and Megatron's uniform and block
 * methods recompute whole layers: full */
static const reading recompute[] = {
        {"selective", "selective"}, {"full", "full"}, {"checkpoint", "full"},
        {"uniform", "full"},        {"block", "full"}, {"=yes", "full"}, {"=true", "full"},
        {"=on", "full"},            {"=1", "full"},   {"=none", "none"}, {"=no", "none"},
        {"=false", "none"},         {"=off", "none"}, {"=0", "none"}};
static const reading offload[] = {
        {"nvme", "nvme"}, {"cpu", "cpu"},    {"host", "cpu"}, {"zero-offload", "cpu"},
        {"zero offload", "cpu"}, {"=none", "none"},
        {"=no", "none"},  {"=false", "none"}, {"=0", "none"}};
static const reading flag[] = {
        {"=1", "1"}, {"=true", "1"},  {"=yes", "1"}, {"=on", "1"},  {"=enabled", "1"},
        {"=y", "1"}, {"=0", "0"},     {"=false", "0"}, {"=no", "0"}, {"=off", "0"},
        {"=disabled", "0"}, {"=n", "0"}};
/* flash_attention: "No", "false", "0", "none", "unfused", "eager" (Hugging
 * Face's attn_implementation of two matmuls and a softmax) -> no */
static const reading flash[] = {
        {"=yes", "yes"}, {"=true", "yes"}, {"=1", "yes"},  {"=no", "no"},   {"=false", "no"},
        {"=0", "no"},    {"=none", "no"},  {"unfused", "no"}, {"eager", "no"}};
static const reading trainable[] = {{"lora", "lora"}, {"all", "all"}, {"full", "all"}};
/* a microbenchmark's kind, matched without '_', '-', ' ' and a trailing
 * "perf" ("all_reduce", "AllGather", "reduce_scatter_perf", "sendrecv") */
static const reading kind[] = {
        {"=allreduce", "allreduce"},   {"=allgather", "allgather"},
        {"=reducescatter", "reducescatter"}, {"=alltoall", "alltoall"},
        {"=broadcast", "broadcast"},   {"=p2p", "p2p"},
        {"=sendrecv", "p2p"},          {"=gemm", "gemm"},
        {"=matmul", "gemm"},           {"=hbmcopy", "hbm_copy"},
        {"=attention", "attention"}};

#define N(t) (sizeof t / sizeof t[0])

/* The columns read loosely: each one's readings, and whether its text is
 * matched bare (without separators and a trailing "perf"). */
static const struct {
	const char *col;
	const reading *r;
	size_t n;
	bool bare;
} loose_cols[] = {
        {"precision", precision, N(precision), false},
        {"optimizer", optimizer, N(optimizer), false},
        {"memory_kind", memory_kind, N(memory_kind), false},
        {"fabric", fabric, N(fabric), false},
        {"recompute", recompute, N(recompute), false},
        {"offload", offload, N(offload), false},
        {"sequence_parallel", flag, N(flag), false},
        {"flash_attention", flash, N(flash), false},
        {"trainable", trainable, N(trainable), false},
        {"kind", kind, N(kind), true},
};

/* The first reading of r[0 .. n-1] that v's lower-case text matches. */
static const char *read_as(const char *v, const reading *r, size_t n, bool bare)
{
	char s[64];
	valid_lower(v, s, sizeof s);
	if (bare) {
		size_t m = 0;
		for (size_t i = 0; s[i]; i++)
			if (s[i] != '_' && s[i] != '-' && s[i] != ' ')
				s[m++] = s[i];
		s[m] = 0;
		if (m > 4 && !strcmp(s + m - 4, "perf"))
			s[m - 4] = 0;
	}
	/* the text without a remark in parentheses at its end ("yes (SP)",
	 * "true (with --sequence-parallel)"), for the whole-text readings */
	char w[64];
	snprintf(w, sizeof w, "%s", s);
	char *o = strrchr(w, '('), *e = o ? strchr(o, ')') : NULL;
	if (o && e && !e[1] && o > w)
		for (*o = 0; o > w && o[-1] == ' ';)
			*--o = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = r[i].key;
		bool hit = k[0] == '=' ? !strcmp(s, k + 1) || !strcmp(w, k + 1)
		           : k[0] == '^' ? !strncmp(s, k + 1, strlen(k + 1))
		                         : strstr(s, k) != NULL;
		if (hit)
			return r[i].name;
	}
	return NULL;
}

const char *valid_loose(const char *col, const char *v)
{
	if (!v || !*v)
		return v;
	for (size_t i = 0; i < N(loose_cols); i++)
		if (!strcmp(col, loose_cols[i].col)) {
			const char *n = read_as(v, loose_cols[i].r, loose_cols[i].n, loose_cols[i].bare);
			return n ? n : v;
		}
	return v;
}

bool valid_loose_named(const char *col, const char *v)
{
	for (size_t i = 0; i < N(loose_cols); i++)
		if (!strcmp(col, loose_cols[i].col)) {
			for (size_t k = 0; k < loose_cols[i].n; k++)
				if (!strcmp(v, loose_cols[i].r[k].name))
					return true;
			return !*v;
		}
	return true;
}

void valid_loose_assume(const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	for (size_t i = 0; i < N(loose_cols); i++) {
		int k = cases_csv_col(c, loose_cols[i].col);
		const char *v = k >= 0 ? cases_csv_get(c, row, k) : "";
		const char *n = valid_loose(loose_cols[i].col, v);
		if (*v && strcmp(n, v))
			valid_assume(assumed, alen, "%s '%.24s' read as %s", loose_cols[i].col, v,
			             *n ? n : "open");
	}
	valid_loose_numbers_assume(c, row, assumed, alen);
}

/* The schemas' columns (tests/cases/README.md, memory-README.md and the
 * serving schema), and header names as frameworks, configs and papers
 * write them -> the schema's: a header matches after lower-casing, with
 * spaces and '-' as '_'. Only names whose meaning and unit are the
 * column's: "step_time_s", not "step_time_ms". */
static const char *const schema_cols[] = {
        "id", "source", "model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab",
        "seq_len", "moe_experts", "moe_topk", "global_batch", "micro_batch", "gpus", "gpu",
        "gpus_per_node", "node_intra", "nics_per_node", "nic_gbps", "fabric", "tp", "pp", "dp",
        "cp", "ep", "vpp", "sequence_parallel", "zero", "offload", "recompute", "precision",
        "measured_iter_s", "measured_metric", "measured_value", "measured_unit", "flops_formula",
        "confidence", "note", "framework", "params_b", "optimizer", "flash_attention",
        "lora_rank", "trainable", "measured_peak_gib", "memory_kind", "kind", "nodes", "dtype",
        "algo", "m", "n", "k", "bytes", "time_us", "busbw_GBps", "busbw_p05_GBps",
        "busbw_p95_GBps", "engine", "activation", "kv_precision", "batching", "batch_size",
        "concurrency", "input_tokens", "output_tokens"};
static const struct {
	const char *alias, *col;
} header_alias[] = {
        {"num_gpus", "gpus"}, {"n_gpus", "gpus"}, {"gpu_count", "gpus"}, {"total_gpus", "gpus"},
        {"world_size", "gpus"}, {"gpu_type", "gpu"}, {"gpu_model", "gpu"},
        {"num_nodes", "nodes"}, {"n_nodes", "nodes"}, {"gpus_per_host", "gpus_per_node"},
        {"tensor_parallel", "tp"}, {"tensor_parallel_size", "tp"}, {"tp_size", "tp"},
        {"tensor_model_parallel_size", "tp"}, {"pipeline_parallel", "pp"},
        {"pipeline_parallel_size", "pp"}, {"pp_size", "pp"},
        {"pipeline_model_parallel_size", "pp"}, {"data_parallel", "dp"},
        {"data_parallel_size", "dp"}, {"dp_size", "dp"}, {"context_parallel_size", "cp"},
        {"cp_size", "cp"}, {"expert_parallel_size", "ep"}, {"expert_model_parallel_size", "ep"},
        {"ep_size", "ep"}, {"virtual_pipeline_model_parallel_size", "vpp"},
        {"global_batch_size", "global_batch"}, {"gbs", "global_batch"},
        {"micro_batch_size", "micro_batch"}, {"mbs", "micro_batch"},
        {"seq_length", "seq_len"}, {"sequence_length", "seq_len"}, {"seqlen", "seq_len"},
        {"max_seq_len", "seq_len"}, {"num_layers", "layers"}, {"n_layers", "layers"},
        {"num_hidden_layers", "layers"}, {"hidden_size", "hidden"}, {"d_model", "hidden"},
        {"num_heads", "heads"}, {"num_attention_heads", "heads"}, {"n_heads", "heads"},
        {"num_kv_heads", "kv_heads"}, {"num_key_value_heads", "kv_heads"},
        {"num_query_groups", "kv_heads"}, {"ffn_hidden_size", "ffn"},
        {"intermediate_size", "ffn"}, {"vocab_size", "vocab"}, {"num_experts", "moe_experts"},
        {"moe_router_topk", "moe_topk"}, {"zero_stage", "zero"},
        {"activation_checkpointing", "recompute"}, {"recompute_granularity", "recompute"},
        {"step_time_s", "measured_iter_s"}, {"iter_time_s", "measured_iter_s"},
        {"iteration_time_s", "measured_iter_s"}, {"time_per_step_s", "measured_iter_s"},
        {"seconds_per_iteration", "measured_iter_s"}, {"peak_memory_gib", "measured_peak_gib"},
        {"peak_gib", "measured_peak_gib"}, {"busbw", "busbw_GBps"},
        {"busbw_gbps", "busbw_GBps"}};

/* The schema's name of header h, or NULL. */
static const char *header_name(const char *h)
{
	char n[64];
	valid_lower(h, n, sizeof n);
	for (char *p = n; *p; p++)
		if (*p == ' ' || *p == '-')
			*p = '_';
	for (size_t i = 0; i < sizeof schema_cols / sizeof schema_cols[0]; i++)
		if (!strcasecmp(n, schema_cols[i]))
			return schema_cols[i];
	for (size_t i = 0; i < sizeof header_alias / sizeof header_alias[0]; i++)
		if (!strcmp(n, header_alias[i].alias))
			return header_alias[i].col;
	return NULL;
}

int valid_case_read(const char *path, cases_csv **out, sim_diag *diag)
{
	int rc = cases_csv_read(path, out, diag);
	cases_csv *c = *out;
	for (int i = 0; rc == SIM_OK && cases_csv_header(c, i); i++) {
		const char *h = cases_csv_header(c, i);
		const char *name = header_name(h);
		if (!name || !strcmp(name, h) || cases_csv_col(c, name) >= 0)
			continue;
		sim_diag_warning(diag, path, 1, "column '%s' read as '%s'", h, name);
		rc = cases_csv_rename_col(c, i, name);
	}
	return rc;
}
