/* named.c - the open cells of a case row that its own text names, read
 * before either reader runs (valid_int.h: valid_fill_named,
 * valid_named_assume): sequence parallelism, the fabric, the
 * precision, the micro-batch, the ZeRO stage, a collective's message
 * size and kind (the nccl-tests binary its text names) and a memory row's
 * counter (and the recomputation numbers.c reads,
 * valid_recompute_named), each written into its cell so that the readers
 * see a published value, and said on the row. */
#include "valid_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row's `col` cell lower-cased into low (len bytes); false where the file
 * has no such column. */
static bool cell_lower(const cases_csv *c, size_t row, const char *col, char *low, size_t len)
{
	int k = cases_csv_col(c, col);
	if (k < 0)
		return false;
	valid_lower(cases_csv_get(c, row, k), low, len);
	return true;
}

/* Sequence parallelism a training row's note names where its cell is
 * open: Megatron's flag ("--sequence-parallel", NeMo's and Megatron-
 * Bridge's sequence_parallel key) on or negated, or Transformer Engine's
 * TP overlap ("--tp-comm-overlap", tp_comm_overlap), which Megatron-LM runs
 * only with it: `assert args.sequence_parallel == True, 'Tensor parallel
 * communication/GEMM overlap can happen only when sequence parallelism is
 * enabled'` (megatron/training/arguments.py:1441-1442 at d98e8a64). 1, 0,
 * or -1 where it names neither; the phrase into phrase[]. A row of tp 1
 * has nothing to split (-1). */
int valid_sp_named(const cases_csv *c, size_t row, char *phrase, size_t len)
{
	int t = cases_csv_col(c, "tp");
	char low[4096];
	if (t < 0 || atol(cases_csv_get(c, row, t)) <= 1 ||
	    !cell_lower(c, row, "note", low, sizeof low))
		return -1;
	static const struct {
		const char *name;
		bool overlap; /* TP overlap: implies SP, its negation says nothing */
	} names[] = {{"--sequence-parallel", false},
	             {"sequence_parallel", false},
	             {"--tp-comm-overlap", true},
	             {"tp_comm_overlap", true}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n = strlen(names[i].name);
		for (const char *p = strstr(low, names[i].name); p; p = strstr(p + 1, names[i].name)) {
			/* a key stands alone ("no_sequence_parallel" is another) */
			if (p > low && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue;
			bool off = valid_negated(low, p, n);
			if (off && names[i].overlap)
				continue;
			snprintf(phrase, len, "%.*s", (int)n, p);
			return off ? 0 : 1;
		}
	}
	return -1;
}

/* The fabric an open fabric cell's row names as a word of its note, else
 * its source: RoCE, EFA, InfiniBand (its generations' names, "IB"),
 * Omni-Path; the schema's name (valid_loose's readings), or NULL where
 * neither names one, or the first that names any names several; the word
 * into word[]. */
const char *valid_fabric_named(const cases_csv *c, size_t row, char *word, size_t len)
{
	static const struct {
		const char *word, *fabric;
	} words[] = {{"roce", "roce-fat-tree"},      {"rocev2", "roce-fat-tree"},
	             {"efa", "efa"},                 {"infiniband", "ib-fat-tree"},
	             {"ib", "ib-fat-tree"},          {"hdr", "ib-fat-tree"},
	             {"ndr", "ib-fat-tree"},         {"edr", "ib-fat-tree"},
	             {"omni-path", "omni-path"},     {"omnipath", "omni-path"}};
	static const char *const cols[] = {"note", "source"};
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		char low[4096];
		if (!cell_lower(c, row, cols[i], low, sizeof low))
			continue;
		const char *found = NULL;
		for (char *p = low; *p;) {
			size_t n = 0;
			while (isalnum((unsigned char)p[n]) || p[n] == '-')
				n++;
			for (size_t w = 0; n && w < sizeof words / sizeof words[0]; w++)
				if (strlen(words[w].word) == n && !strncmp(p, words[w].word, n)) {
					if (found && strcmp(found, words[w].fabric))
						return NULL; /* several */
					if (!found)
						snprintf(word, len, "%.*s", (int)n, p);
					found = words[w].fabric;
				}
			p += n ? n : 1;
		}
		if (found)
			return found;
	}
	return NULL;
}

/* The micro-batches a replica accumulates per step that a note (lower
 * case) states: "2 micro-batches per step", "64 gradient-accumulation
 * micro-batches", gradient_accumulation_steps 4, "grad accum 4"; 0 where
 * none; the phrase into phrase[]. */
static long accumulation_named(const char *low, char *phrase, size_t len)
{
	static const char *const before[] = {"gradient_accumulation_steps", "gradient accumulation steps",
	                                     "gradient accumulation", "grad accumulation", "grad accum",
	                                     "gradient_accumulation"};
	for (size_t i = 0; i < sizeof before / sizeof before[0]; i++)
		for (const char *p = strstr(low, before[i]); p; p = strstr(p + 1, before[i])) {
			const char *q = p + strlen(before[i]);
			q += strspn(q, " =:");
			char *e;
			long m = strtol(q, &e, 10);
			if (e == q || m < 1 || isalnum((unsigned char)*e))
				continue;
			snprintf(phrase, len, "%.*s", (int)(e - p), p);
			return m;
		}
	static const char *const after[] = {" micro-batches per step",
	                                    " gradient-accumulation micro-batches",
	                                    " accumulation micro-batches"};
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++)
		for (const char *p = strstr(low, after[i]); p; p = strstr(p + 1, after[i])) {
			const char *q = p;
			while (q > low && isdigit((unsigned char)q[-1]))
				q--;
			long m = q < p ? atol(q) : 0;
			if (m < 1)
				continue;
			snprintf(phrase, len, "%.*s", (int)(p + strlen(after[i]) - q), q);
			return m;
		}
	return 0;
}

/* The count of sequences a note (lower case) gives after one of keys[]
 * standing alone (not inside another key: "train_micro_batch_size_per_gpu"
 * holds "micro_batch_size"): "--global-batch-size 512", "micro_batch_size:
 * 4", "global batch of 1,024" (its thousands separators read); not one
 * followed by more of a word or a decimal, nor one in tokens ("4M tokens",
 * "4 million tokens", "4 k"); 1 to max, the key and count into phrase[];
 * 0 where none. */
static long keyed_count(const char *low, const char *const *keys, size_t nkeys, long max,
                        char *phrase, size_t len)
{
	static const char *const not_seqs[] = {"tok", "million", "thousand", "billion",
	                                       "k ", "m ", "k,", "m,", "b "};
	for (size_t i = 0; i < nkeys; i++)
		for (const char *p = strstr(low, keys[i]); p; p = strstr(p + 1, keys[i])) {
			if (p > low && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue;
			const char *q = p + strlen(keys[i]);
			q += strspn(q, " =:");
			if (!strncmp(q, "of ", 3))
				q += 3;
			long v = 0;
			const char *e = q;
			while (v <= max && (isdigit((unsigned char)*e) ||
			                    (*e == ',' && e > q && isdigit((unsigned char)e[1]) &&
			                     isdigit((unsigned char)e[2]) && isdigit((unsigned char)e[3]) &&
			                     !isdigit((unsigned char)e[4])))) {
				if (*e != ',')
					v = v * 10 + (*e - '0');
				e++;
			}
			const char *w = e + strspn(e, " ");
			bool tokens = (*w == 'k' || *w == 'm' || *w == 'b') && !w[1];
			for (size_t t = 0; t < sizeof not_seqs / sizeof not_seqs[0]; t++)
				tokens = tokens || !strncmp(w, not_seqs[t], strlen(not_seqs[t]));
			if (e == q || v < 1 || v > max || isalnum((unsigned char)*e) || *e == '.' || tokens)
				continue;
			snprintf(phrase, len, "%.*s", (int)(e - p), p);
			return v;
		}
	return 0;
}

/* The micro-batch an open micro_batch cell's note states per GPU:
 * Megatron's and NeMo's flag or key ("--micro-batch-size 4",
 * micro_batch_size: 4, "micro batch 8", "MBS 2"), Hugging Face's and
 * DeepSpeed's per-device keys (per_device_train_batch_size,
 * train_micro_batch_size_per_gpu), or a batch "per GPU" / "per device"
 * ("batch 4 per GPU"); 0 where it states none (a bare "batch N" may be the
 * global one: not read). The phrase into phrase[]. */
long valid_micro_batch_named(const cases_csv *c, size_t row, char *phrase, size_t len)
{
	char low[4096];
	if (!cell_lower(c, row, "note", low, sizeof low))
		return 0;
	static const char *const keys[] = {"--micro-batch-size", "train_micro_batch_size_per_gpu",
	                                   "micro_batch_size_per_gpu",
	                                   "per_device_train_batch_size", "micro_batch_size",
	                                   "micro-batch size", "micro batch size", "micro-batch",
	                                   "micro batch", "mbs"};
	long v = keyed_count(low, keys, sizeof keys / sizeof keys[0], 100000, phrase, len);
	if (v > 0)
		return v;
	/* "batch N per GPU" */
	for (const char *p = strstr(low, "batch "); p; p = strstr(p + 1, "batch ")) {
		char *e;
		v = strtol(p + 6, &e, 10);
		if (e == p + 6 || v < 1 || v > 100000)
			continue;
		if (strncmp(e, " per gpu", 8) && strncmp(e, " per device", 11) &&
		    strncmp(e, "/gpu", 4))
			continue;
		if (p >= low + 7 && !strncmp(p - 7, "global ", 7))
			continue;
		size_t tail = !strncmp(e, " per gpu", 8) ? 8 : !strncmp(e, "/gpu", 4) ? 4 : 11;
		snprintf(phrase, len, "%.*s", (int)(e + tail - p), p);
		return v;
	}
	/* the micro-batches a replica accumulates per step, m: the micro-batch
	 * is the global batch over dp m where that is whole */
	int g = cases_csv_col(c, "global_batch"), d = cases_csv_col(c, "dp");
	long gb = g >= 0 ? atol(cases_csv_get(c, row, g)) : 0;
	long dp = d >= 0 ? atol(cases_csv_get(c, row, d)) : 0;
	long m = gb > 0 && dp > 0 ? accumulation_named(low, phrase, len) : 0;
	return m > 0 && gb % (dp * m) == 0 ? gb / (dp * m) : 0;
}

long valid_global_batch_named(const cases_csv *c, size_t row, char *phrase, size_t len)
{
	char low[4096];
	if (!cell_lower(c, row, "note", low, sizeof low))
		return 0;
	static const char *const keys[] = {"--global-batch-size", "global_batch_size",
	                                   "global batch size", "global batch", "gbs"};
	long v = keyed_count(low, keys, sizeof keys / sizeof keys[0], 100000000, phrase, len);
	if (v > 0)
		return v;
	/* the micro-batches a replica accumulates, m, times its micro-batch and
	 * the replicas, both given: global = micro_batch x dp x m */
	int mc = cases_csv_col(c, "micro_batch"), d = cases_csv_col(c, "dp");
	long mb = mc >= 0 ? atol(cases_csv_get(c, row, mc)) : 0;
	long dp = d >= 0 ? atol(cases_csv_get(c, row, d)) : 0;
	long m = mb > 0 && dp > 0 ? accumulation_named(low, phrase, len) : 0;
	return m > 0 ? mb * dp * m : 0;
}

/* The precision an open precision cell's note names: its first 16-, 8- or
 * 32-bit type ("bf16 inferred", "fp16 assumed", "bf16 PURE (no fp32 master
 * params)", "FP8 with bf16 weights") that does not name what is kept
 * apart from the training's type ("fp32 master weights", "fp32 gradient
 * accumulation", "bf16 all-reduce") or an operation's ("softmax in
 * fp32"); NULL where it names none. */
const char *valid_precision_named(const cases_csv *c, size_t row, char *word, size_t len)
{
	char low[4096];
	if (!cell_lower(c, row, "note", low, sizeof low))
		return NULL;
	static const struct {
		const char *word, *precision;
	} types[] = {{"bf16", "bf16"},         {"bfloat16", "bf16"}, {"fp16", "fp16"},
	             {"float16", "fp16"},      {"fp8", "fp8"},       {"fp32", "fp32"},
	             {"float32", "fp32"}};
	static const char *const apart[] = {"master", "main",      "optimizer", "states",
	                                    "grad",   "accum",     "param",     "weight",
	                                    "reduc",  "all-reduce", "comm",     "cast"};
	for (char *p = low; *p;) {
		size_t n = 0;
		while (isalnum((unsigned char)p[n]))
			n++;
		for (size_t t = 0; n && t < sizeof types / sizeof types[0]; t++) {
			if (strlen(types[t].word) != n || strncmp(p, types[t].word, n))
				continue;
			/* the next word (after a blank, '-' or '_') */
			const char *q = p + n;
			q += strspn(q, " -_");
			bool kept_apart = false;
			for (size_t a = 0; a < sizeof apart / sizeof apart[0]; a++)
				kept_apart = kept_apart || !strncmp(q, apart[a], strlen(apart[a]));
			/* "softmax in fp32", "--attention-softmax-in-fp32", "cast to
			 * fp32": an operation's type, not the training's */
			static const char *const op[] = {"in", "to", "into"};
			for (size_t o = 0; o < sizeof op / sizeof op[0]; o++) {
				size_t m = strlen(op[o]);
				kept_apart = kept_apart ||
				             (p >= low + m + 1 && strchr(" -_", p[-1]) &&
				              !strncmp(p - 1 - m, op[o], m) &&
				              (p - 1 - m == low || !isalnum((unsigned char)p[-2 - m])));
			}
			if (kept_apart)
				break;
			snprintf(word, len, "%.*s", (int)n, p);
			return types[t].precision;
		}
		p += n ? n : 1;
	}
	return NULL;
}

/* A size with its byte unit at text[i..] ("256MB", "1 GiB", "256 MB"),
 * quotes around it skipped: the token's length, 0 where none (a bytes
 * cell's reading must give a positive number). */
static size_t size_token(const char *text, size_t i, char *tok, size_t len)
{
	size_t n = i, u;
	while (isdigit((unsigned char)text[n]) || text[n] == '.')
		n++;
	if (n == i)
		return 0;
	u = n + (text[n] == ' ');
	size_t e = u;
	while (isalpha((unsigned char)text[e]))
		e++;
	char cell[32];
	if (e == u || e - i >= len)
		return 0;
	snprintf(tok, len, "%.*s", (int)(e - i), text + i);
	return valid_cell_reading("bytes", tok, cell, sizeof cell) && atof(cell) > 0 ? e - i : 0;
}

const char *valid_bytes_named(const cases_csv *c, size_t row, char *word, size_t len)
{
	int k = cases_csv_col(c, "note");
	if (k < 0)
		return NULL;
	const char *note = cases_csv_get(c, row, k);
	char low[4096];
	valid_lower(note, low, sizeof low);
	for (const char *p = strstr(low, "message"); p; p = strstr(p + 1, "message")) {
		size_t at = (size_t)(p - low);
		/* after: "message '256MB'", "message size 1 GiB", "messages of
		 * 256 MB", up to the clause's end */
		size_t i = at + 7;
		for (size_t n = 0; low[i] && !strchr(";,()", low[i]) && n < 24; i++, n++)
			if (isdigit((unsigned char)low[i]))
				break;
		if (isdigit((unsigned char)low[i]) && size_token(note, i, word, len))
			return word;
		/* before: "a 256MB message", "1 GiB messages" */
		size_t b = at;
		while (b > 0 && strchr(" '\"", low[b - 1]))
			b--;
		while (b > 0 && (isalnum((unsigned char)low[b - 1]) || low[b - 1] == '.' ||
		                 (low[b - 1] == ' ' && b > 1 && isdigit((unsigned char)low[b - 2]))))
			b--;
		if (size_token(note, b, word, len))
			return word;
	}
	return NULL;
}

const char *valid_memory_kind_named(const cases_csv *c, size_t row, char *word, size_t len)
{
	/* the counters as sources name them: PyTorch's caching allocator's
	 * (torch.cuda.max_memory_allocated / _reserved and memory_stats' keys,
	 * torchtune's "active" bytes, nanotron's log labels "Mem Alloc" / "Mem
	 * Res", helpers.py:609-610), the device's (nvidia-smi, NVML); which
	 * counter each is, the cell's own reading of it (valid_loose) */
	static const char *const names[] = {
	        "max_memory_allocated", "memory_allocated", "allocated_bytes", "max-allocated",
	        "memory allocated",     "mem alloc",        "active_bytes",    "max_memory_reserved",
	        "memory_reserved",      "reserved_bytes",   "memory reserved", "reserved memory",
	        "peak reserved",        "mem res",          "nvidia-smi",      "nvml"};
	static const char *const cols[] = {"note", "source"};
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		char low[4096];
		if (!cell_lower(c, row, cols[i], low, sizeof low))
			continue;
		const char *first = NULL;
		size_t fn = 0;
		for (size_t w = 0; w < sizeof names / sizeof names[0]; w++) {
			size_t n = strlen(names[w]);
			for (const char *p = strstr(low, names[w]); p; p = strstr(p + 1, names[w])) {
				/* one of a list of alternatives ("allocated, reserved or
				 * nvidia-smi": not stated) or negated names none */
				bool alt = (p - low >= 3 && !strncmp(p - 3, "or ", 3)) ||
				           !strncmp(p + n, " or ", 4) || valid_negated(low, p, n);
				if (!alt && (!first || p < first))
					first = p, fn = n;
			}
		}
		if (first) {
			snprintf(word, len, "%.*s", (int)fn, first);
			return valid_loose("memory_kind", word);
		}
	}
	return NULL;
}

int valid_zero_note_named(const cases_csv *c, size_t row, char *phrase, size_t len)
{
	/* the phrases that name a stage, which valid_zero_named reads as the
	 * framework column's (a digit 0-3 after the first four) */
	static const struct {
		const char *name;
		bool digit;
	} names[] = {
	        {"zero stage ", true},         {"zero_stage", true},        {"zero-", true},
	        {"zero", true},                {"full_shard", false},       {"shard_grad_op", false},
	        {"no_shard", false},           {"distributed optimizer", false},
	        {"distributed-optimizer", false}, {"distributed_optimizer", false},
	        {"dist-opt", false},           {"zero++", false},           {"zero-offload", false},
	        {"zero-infinity", false},      {"gemini", false},
	};
	char low[4096];
	if (!cell_lower(c, row, "note", low, sizeof low))
		return -1;
	/* FSDP's hybrid sharding has a shard group the cell's text carries
	 * (valid_hybrid_shard_text): not a stage alone */
	if (strstr(low, "hybrid_shard") || strstr(low, "hsdp"))
		return -1;
	const char *first = NULL;
	size_t fn = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n = strlen(names[i].name);
		for (const char *p = strstr(low, names[i].name); p; p = strstr(p + 1, names[i].name)) {
			if (p > low && isalnum((unsigned char)p[-1]))
				continue;
			size_t m = n;
			if (names[i].digit) { /* "ZeRO-3", "zero3", "zero_stage=2", "zero stage 1" */
				m += strspn(p + m, " =:");
				if (p[m] < '0' || p[m] > '3' || isalnum((unsigned char)p[m + 1]))
					continue;
				m++;
			} else if (isalnum((unsigned char)p[m]))
				continue;
			if (valid_negated(low, p, m) || (first && p >= first))
				continue;
			first = p, fn = m;
		}
	}
	if (!first)
		return -1;
	snprintf(phrase, len, "%.*s", (int)fn, first);
	return valid_zero_named(phrase);
}

/* A collective microbenchmark's open kind: the collective whose
 * nccl-tests binary the row's note or source names (NVIDIA/nccl-tests
 * src/: all_reduce_perf, all_gather_perf, reduce_scatter_perf,
 * alltoall_perf, broadcast_perf; its MPI build keeps the names), one
 * collective only: a text naming two names none. The binary's name into
 * word; NULL where none. Collectives named in prose ("all-reduce") are not
 * read: notes name others beside the row's own (the EFA all-gather rows'
 * notes name the 1-node all-reduce). Binaries podsim has no kind for
 * (reduce_perf, gather_perf, scatter_perf, sendrecv_perf) name none. */
static const char *kind_named(const cases_csv *c, size_t row, char *word, size_t len)
{
	static const struct {
		const char *bin, *kind;
	} bins[] = {{"all_reduce_perf", "allreduce"},
	            {"all_gather_perf", "allgather"},
	            {"reduce_scatter_perf", "reducescatter"},
	            {"alltoall_perf", "alltoall"},
	            {"broadcast_perf", "broadcast"}};
	static const char *const cols[] = {"note", "source"};
	const char *kind = NULL;
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		char low[4096];
		if (!cell_lower(c, row, cols[i], low, sizeof low))
			continue;
		for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++)
			for (const char *p = strstr(low, bins[b].bin); p; p = strstr(p + 1, bins[b].bin)) {
				const char *e = p + strlen(bins[b].bin);
				if ((p > low && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
				    (isalnum((unsigned char)*e) || (*e == '_' && strncmp(e, "_mpi", 4))))
					continue;
				if (kind && strcmp(kind, bins[b].kind))
					return NULL; /* two collectives */
				kind = bins[b].kind;
				snprintf(word, len, "%s", bins[b].bin);
			}
	}
	return kind;
}

/* The open cells a row's text names, written before either reader runs
 * (valid_loose_numbers_assume says each): its recomputation
 * (valid_recompute_named: full or none), micro-batch
 * (valid_micro_batch_named), sequence parallelism (valid_sp_named) and
 * fabric (valid_fabric_named), a collective's message size
 * (valid_bytes_named), a memory row's counter (valid_memory_kind_named),
 * a collective microbenchmark's kind (kind_named), the ZeRO stage
 * (valid_zero_note_named), the global batch (valid_global_batch_named).
 * Each reading gives the cell's text, or NULL where the row names none. */
typedef const char *(*named_cell)(const cases_csv *c, size_t row, char *buf, size_t len);

static const char *named_recompute(const cases_csv *c, size_t row, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	const char *where;
	char phrase[64];
	int on = valid_recompute_named(c, row, &where, phrase, sizeof phrase);
	return on < 0 ? NULL : on ? "full" : "none";
}

/* A count a reading gave (-1 or 0: none) as the cell's text, or NULL;
 * `from` the least count a cell holds (0 for a ZeRO stage, 1 a batch). */
static const char *count_cell(long v, long from, char *buf, size_t len)
{
	if (v < from)
		return NULL;
	snprintf(buf, len, "%ld", v);
	return buf;
}

static const char *named_micro_batch(const cases_csv *c, size_t row, char *buf, size_t len)
{
	char phrase[48];
	return count_cell(valid_micro_batch_named(c, row, phrase, sizeof phrase), 1, buf, len);
}

static const char *named_sp(const cases_csv *c, size_t row, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	char phrase[32];
	int on = valid_sp_named(c, row, phrase, sizeof phrase);
	return on < 0 ? NULL : on ? "1" : "0";
}

static const char *named_fabric(const cases_csv *c, size_t row, char *buf, size_t len)
{
	return valid_fabric_named(c, row, buf, len);
}

static const char *named_precision(const cases_csv *c, size_t row, char *buf, size_t len)
{
	return valid_precision_named(c, row, buf, len);
}

static const char *named_bytes(const cases_csv *c, size_t row, char *buf, size_t len)
{
	char w[32];
	return valid_bytes_named(c, row, w, sizeof w) && valid_cell_reading("bytes", w, buf, len)
	               ? buf
	               : NULL;
}

/* A word a reading gave as the cell's text (copied into buf), or NULL. */
static const char *word_cell(const char *v, char *buf, size_t len)
{
	if (!v)
		return NULL;
	snprintf(buf, len, "%s", v);
	return buf;
}

static const char *named_memory_kind(const cases_csv *c, size_t row, char *buf, size_t len)
{
	char w[32];
	return word_cell(valid_memory_kind_named(c, row, w, sizeof w), buf, len);
}

static const char *named_kind(const cases_csv *c, size_t row, char *buf, size_t len)
{
	char w[32];
	return word_cell(kind_named(c, row, w, sizeof w), buf, len);
}

/* An open zero cell: the stage the note names, where a memory row's
 * framework column names none (the memory reader reads that first,
 * valid_zero_named) */
static const char *named_zero(const cases_csv *c, size_t row, char *buf, size_t len)
{
	int f = cases_csv_col(c, "framework");
	if (f >= 0 && valid_zero_named(cases_csv_get(c, row, f)) >= 0)
		return NULL;
	char w[48];
	return count_cell(valid_zero_note_named(c, row, w, sizeof w), 0, buf, len);
}

static const char *named_global_batch(const cases_csv *c, size_t row, char *buf, size_t len)
{
	char phrase[64];
	return count_cell(valid_global_batch_named(c, row, phrase, sizeof phrase), 1, buf, len);
}

static int fill_named(cases_csv *c, const char *col, named_cell named)
{
	int k = cases_csv_col(c, col);
	for (size_t row = 0; k >= 0 && row < cases_csv_rows(c); row++) {
		char buf[32];
		const char *v = *cases_csv_get(c, row, k) ? NULL : named(c, row, buf, sizeof buf);
		int rc = v ? cases_csv_set(c, row, k, v) : SIM_OK;
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

int valid_fill_named(cases_csv *c)
{
	int rc = fill_named(c, "recompute", named_recompute);
	rc = rc != SIM_OK ? rc : fill_named(c, "sequence_parallel", named_sp);
	rc = rc != SIM_OK ? rc : fill_named(c, "fabric", named_fabric);
	rc = rc != SIM_OK ? rc : fill_named(c, "precision", named_precision);
	rc = rc != SIM_OK ? rc : fill_named(c, "bytes", named_bytes);
	rc = rc != SIM_OK ? rc : fill_named(c, "memory_kind", named_memory_kind);
	rc = rc != SIM_OK ? rc : fill_named(c, "kind", named_kind);
	rc = rc != SIM_OK ? rc : fill_named(c, "zero", named_zero);
	rc = rc != SIM_OK ? rc : fill_named(c, "micro_batch", named_micro_batch);
	return rc != SIM_OK ? rc : fill_named(c, "global_batch", named_global_batch);
}

/* The value valid_fill_named wrote into row's cell of col (the cell empty
 * as written, filled now), or NULL. */
static const char *filled(const cases_csv *c, size_t row, const char *col)
{
	int k = cases_csv_col(c, col);
	return k >= 0 && !*cases_csv_written(c, row, k) && *cases_csv_get(c, row, k)
	               ? cases_csv_get(c, row, k)
	               : NULL;
}

/* `how` where the phrase a batch was read from is the accumulation's
 * (accumulation_named), else "". */
static const char *accumulated(const char *phrase, const char *how)
{
	return strstr(phrase, "accum") || strstr(phrase, "per step") ? how : "";
}

void valid_named_assume(const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	char w[48];
	const char *v;
	if ((v = filled(c, row, "precision")) && valid_precision_named(c, row, w, sizeof w))
		valid_assume(assumed, alen, "precision %s (not published: the note says '%s')", v, w);
	if ((v = filled(c, row, "micro_batch")) && valid_micro_batch_named(c, row, w, sizeof w) > 0)
		valid_assume(assumed, alen, "micro_batch %s (not published: the note says '%s'%s)", v,
		             w, accumulated(w, ": global_batch / (dp x the micro-batches)"));
	if ((v = filled(c, row, "zero")) && valid_zero_note_named(c, row, w, sizeof w) >= 0)
		valid_assume(assumed, alen, "zero %s (not published: the note says '%s')", v, w);
	if ((v = filled(c, row, "memory_kind")) && valid_memory_kind_named(c, row, w, sizeof w))
		valid_assume(assumed, alen, "memory_kind %s (not published: the text names '%s')", v,
		             w);
	if ((v = filled(c, row, "kind")) && kind_named(c, row, w, sizeof w))
		valid_assume(assumed, alen, "kind %s (not published: the text names nccl-tests' %s)", v,
		             w);
	if ((v = filled(c, row, "bytes")) && valid_bytes_named(c, row, w, sizeof w))
		valid_assume(assumed, alen, "bytes %s (not published: the note says '%s')", v, w);
	if ((v = filled(c, row, "global_batch")) && valid_global_batch_named(c, row, w, sizeof w) > 0)
		valid_assume(assumed, alen, "global_batch %s (not published: the note says '%s'%s)", v,
		             w, accumulated(w, ": micro_batch x dp x the micro-batches"));
	if ((v = filled(c, row, "fabric")) && valid_fabric_named(c, row, w, sizeof w))
		valid_assume(assumed, alen, "fabric %s (not published: the text names '%s')", v, w);
	if ((v = filled(c, row, "sequence_parallel")) && valid_sp_named(c, row, w, sizeof w) >= 0)
		valid_assume(assumed, alen, "sequence_parallel %s (not published: the note says '%s'%s)",
		             v, w,
		             strstr(w, "comm")   ? ", which Megatron-LM runs only with it"
		             : !strcmp(v, "0") ? ", negated"
		                               : "");
}
