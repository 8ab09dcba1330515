/* numbers.c - numeric case columns written as sources write them
 * (valid_int.h, valid_loose_numbers): a count with its thousands separators
 * ("1,024"), with its noun ("512 GPUs") or its column's name ("TP=8"), a
 * value with its unit ("1.25 s", "400 Gb/s", "256MB"), marked approximate
 * ("~1.2") or with a footnote ("3.41*"), a ZeRO stage by name ("ZeRO-1",
 * "FULL_SHARD"), an interleaving without its depth ("interleaved"), a field
 * left "n/a", a measurement that is a run out of memory ("OOM"), a remark in
 * parentheses after it, a decimal comma in a semicolon-separated file. Each
 * such field is rewritten in the loaded file to the schema's number
 * (cases_csv_set), or to empty where the schema's empty means the same
 * ("Empty = unknown or not applicable", tests/cases/README.md), before the
 * numbers are checked; the reader says each reading on its row
 * (valid_loose_numbers_assume). A field no reading matches stays as written
 * and is the error it was: "ten" in a count, "24.5" layers, "1e300" GPUs
 * (issue 15: bad input is an error with its line, not a skipped row). */
#include "valid_int.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The numeric columns of the schemas, in the order valid.c's number checks
 * report them: what each holds (a count of at least 1, an integer, a real)
 * and a value's unit where the column has one, with how many SI units
 * (seconds, bytes, bytes/s) the column's unit is. */
static const valid_numcol numcols[] = {
        {"layers", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"hidden", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"heads", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"kv_heads", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"ffn", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"vocab", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"seq_len", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"moe_experts", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"moe_topk", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"global_batch", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"micro_batch", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"gpus", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"nodes", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"gpus_per_node", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"nics_per_node", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"nic_gbps", VALID_NUM_REAL, SIM_UNIT_BANDWIDTH, 1.25e8},
        {"tp", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"pp", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"dp", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"cp", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"ep", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"vpp", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"zero", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"m", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"n", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"k", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        {"bytes", VALID_NUM_REAL, SIM_UNIT_BYTES, 1},
        {"time_us", VALID_NUM_REAL, SIM_UNIT_TIME, 1e-6},
        {"busbw_GBps", VALID_NUM_REAL, SIM_UNIT_BANDWIDTH, 1e9},
        {"measured_iter_s", VALID_NUM_REAL, SIM_UNIT_TIME, 1},
        {"measured_value", VALID_NUM_REAL, SIM_UNIT_NONE, 1},
        {"busbw_p05_GBps", VALID_NUM_REAL, SIM_UNIT_BANDWIDTH, 1e9},
        {"busbw_p95_GBps", VALID_NUM_REAL, SIM_UNIT_BANDWIDTH, 1e9},
        {"measured_peak_gib", VALID_NUM_REAL, SIM_UNIT_BYTES, 1073741824.0},
        {"lora_rank", VALID_NUM_INT, SIM_UNIT_NONE, 1},
        /* serving.csv (sim/serve/valid.c) */
        {"batch_size", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"concurrency", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"input_tokens", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
        {"output_tokens", VALID_NUM_COUNT, SIM_UNIT_NONE, 1},
};

const valid_numcol *valid_numeric_cols(size_t *n)
{
	*n = sizeof numcols / sizeof numcols[0];
	return numcols;
}

#define NCOLS (sizeof numcols / sizeof numcols[0])

/* The text lower-cased, without ' ', '-', '_' and '.' (a name's spellings
 * alike: "ZeRO-1", "zero 1", "ZeRO_1" are "zero1"). */
static void bare(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s && n + 1 < len; s++)
		if (!strchr(" -_.", *s))
			out[n++] = (char)tolower((unsigned char)*s);
	out[n] = 0;
}

static bool one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* "n/a", "-", "?", "unknown": the schema's empty. */
static bool open_text(const char *t)
{
	static const char *const open[] = {
	        "n/a", "na",   "-",          "\u2013",    "\u2014",       "?", "unknown",
	        "nr",  "n.r.", "not stated", "not given", "not reported",
	        /* the framework's choice, not said: open, its default */
	        "auto", "automatic", NULL};
	char s[32];
	valid_lower(t, s, sizeof s);
	return one_of(s, open);
}

/* A ZeRO stage by name: DeepSpeed's stages, FSDP's sharding strategies,
 * Megatron's distributed optimizer (stage 1), the ZeRO paper's P_os,
 * P_os+g, P_os+g+p; -1 if the text names none. FSDP's HYBRID_SHARD (and
 * "HSDP") is ZeRO-3 inside a node with replicas across, _HYBRID_SHARD_ZERO2
 * the same at stage 2: the stage here, the node's shard group beside it
 * (valid_hybrid_shard_text, runs.c and memrows.c). */
static int zero_stage(const char *t)
{
	char s[48];
	bare(t, s, sizeof s);
	static const struct {
		const char *name;
		int stage;
	} names[] = {
	        {"zero0", 0},
	        {"zero1", 1},
	        {"zero2", 2},
	        {"zero3", 3},
	        {"zerostage0", 0},
	        {"zerostage1", 1},
	        {"zerostage2", 2},
	        {"zerostage3", 3},
	        {"stage0", 0},
	        {"stage1", 1},
	        {"stage2", 2},
	        {"stage3", 3},
	        {"z0", 0},
	        {"z1", 1},
	        {"z2", 2},
	        {"z3", 3},
	        {"none", 0},
	        {"no", 0},
	        {"off", 0},
	        {"false", 0},
	        {"ddp", 0},
	        {"noshard", 0},
	        {"distributedoptimizer", 1},
	        {"distopt", 1},
	        {"pos", 1},
	        {"pos+g", 2},
	        {"pos+g+p", 3},
	        {"shardgradop", 2},
	        {"fullshard", 3},
	        {"fsdp", 3},
	        {"hybridshard", 3},
	        {"hybridshardzero2", 2},
	        {"fsdphybridshard", 3},
	        {"hsdp", 3},
	        {"zero++", 3}, /* ZeRO++: ZeRO-3 with hpZ, qwZ, qgZ (valid_zeropp_text) */
	        {"zeropp", 3},
	        {"zero3++", 3},
	        {"zerostage3++", 3},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name))
			return names[i].stage;
	return -1;
}

/* zero_stage of a stage written with a remark in parentheses: the name
 * before them ("ZeRO-1 (distributed optimizer)"), else the one inside
 * ("DDP (ZeRO-0)" reads as DDP, "sharded (ZeRO-3)" as ZeRO-3). */
static int zero_stage_remarked(const char *t)
{
	int z = zero_stage(t);
	const char *o = strchr(t, '('), *c = o ? strchr(o, ')') : NULL;
	if (z >= 0 || !o || !c)
		return z;
	char part[48];
	snprintf(part, sizeof part, "%.*s", (int)(o - t < 47 ? o - t : 47), t);
	z = zero_stage(part);
	if (z < 0) {
		snprintf(part, sizeof part, "%.*s", (int)(c - o - 1 < 47 ? c - o - 1 : 47), o + 1);
		z = zero_stage(part);
	}
	return z;
}

/* An InfiniBand generation's port rate in Gb/s, as a NIC column may name
 * it ("HDR", "NDR 400", "HDR100": the rate after the name where one
 * follows): FDR 56, EDR 100, HDR 200, NDR 400, XDR 800 (the IBTA's
 * 4x link rates); -1 for anything else. */
static int ib_generation(const char *t)
{
	char s[32];
	bare(t, s, sizeof s);
	const char *p = s;
	if (!strncmp(p, "infiniband", 10))
		p += 10;
	else if (!strncmp(p, "ib", 2))
		p += 2;
	static const struct {
		const char *name;
		int gbps;
	} gen[] = {{"fdr", 56}, {"edr", 100}, {"hdr", 200}, {"ndr", 400}, {"xdr", 800}};
	for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
		if (!strncmp(p, gen[i].name, 3)) {
			const char *r = p + 3, *tail = r + strspn(r, "0123456789");
			bool nd = tail > r;
			bool ok = !*tail || (nd && (!strcmp(tail, "g") || !strcmp(tail, "gbps") ||
			                            !strcmp(tail, "gb/s") || !strcmp(tail, "gbit/s")));
			return ok && (!nd || atoi(r) > 0) ? (nd ? atoi(r) : gen[i].gbps) : -1;
		}
	return -1;
}

/* vpp: an interleaved schedule whose depth the text does not give is the
 * schema's empty; a plain 1F1B is 1. -1: neither. */
static int vpp_reading(const char *t)
{
	static const char *const open[] = {"interleaved", "yes", "true", "on", NULL};
	static const char *const one[] = {"no",   "false",          "off", "none",
	                                  "1f1b", "noninterleaved", NULL};
	char s[32];
	bare(t, s, sizeof s);
	return one_of(s, open) ? 0 : one_of(s, one) ? 1 : -1;
}

/* The text without an approximation's mark before it ("~", U+2248,
 * "approx.", "about", "ca.") and a footnote's after it ("*", U+2020,
 * U+2021), spaces trimmed, into out. */
static void strip_marks(const char *t, char *out, size_t len)
{
	static const char *const before[] = {
	        "~", "\u2248", "approximately", "approx.", "approx", "about", "circa", "ca.", NULL};
	static const char *const after[] = {"*", "\u2020", "\u2021", NULL};
	while (isspace((unsigned char)*t))
		t++;
	for (const char *const *b = before; *b; b++)
		if (!strncasecmp(t, *b, strlen(*b))) {
			t += strlen(*b);
			break;
		}
	while (isspace((unsigned char)*t))
		t++;
	snprintf(out, len, "%s", t);
	size_t n = strlen(out);
	for (bool cut = true; cut;) {
		cut = false;
		while (n && isspace((unsigned char)out[n - 1]))
			out[--n] = 0;
		for (const char *const *a = after; *a; a++) {
			size_t k = strlen(*a);
			if (n >= k && !strcmp(out + n - k, *a)) {
				out[n -= k] = 0;
				cut = true;
			}
		}
	}
}

/* A leading number with its thousands separators (',', '_' or ' ' before
 * each group of three digits: "1,024", "16 384"; in a column of whole
 * numbers, `whole`, or before a decimal point) into *v; the rest of the
 * text after it, spaces skipped, in *rest. False if the text does not start
 * with a number, or its separators are not thousands'. */
bool valid_lead_number(const char *t, bool whole, double *v, const char **rest)
{
	char num[64];
	size_t n = 0;
	const char *p = t;
	int seps = 0, run = 0; /* separators seen; digits since the last one */
	for (; isdigit((unsigned char)*p) ||
	       (*p && strchr(",_ ", *p) && run && isdigit((unsigned char)p[1]));
	     p++) {
		if (!isdigit((unsigned char)*p)) {
			if (seps ? run != 3 : run > 3)
				return false;
			seps++;
			run = 0;
		} else if (n + 1 < sizeof num) {
			num[n++] = *p;
			run++;
		} else
			return false;
	}
	if (!n || (seps && run != 3))
		return false;
	/* "2,177" in a time is 2.177 in half the world: separators only in a
	 * whole number's column, or before a decimal point ("1,234.5") */
	if (seps && !whole && *p != '.')
		return false;
	if (*p == '.' && isdigit((unsigned char)p[1]) && n + 2 < sizeof num)
		for (num[n++] = *p++; isdigit((unsigned char)*p) && n + 1 < sizeof num;)
			num[n++] = *p++;
	if ((*p == 'e' || *p == 'E') && n + 3 < sizeof num) {
		const char *e =
		        p + ((p[1] == '+' || p[1] == '-') ? 2 : 1); /* p[1]: at most the NUL */
		if (isdigit((unsigned char)*e))
			while (p < e || (isdigit((unsigned char)*p) && n + 1 < sizeof num))
				num[n++] = *p++;
	}
	num[n] = 0;
	char *end;
	*v = strtod(num, &end);
	while (isspace((unsigned char)*p))
		p++;
	*rest = p;
	return !*end && isfinite(*v);
}

/* A unit written as sources write it, in sim_unit_parse's spelling:
 * "Gbps" Gb/s, "GBps" GB/s, "sec" s, "\u00b5s" us, "minutes" min. */
static void spell(const char *u, char *out, size_t len)
{
	static const struct {
		const char *from, *to;
	} alias[] = {
	        {"Gbps", "Gb/s"},   {"gbps", "Gb/s"},     {"Mbps", "Mb/s"},  {"GBps", "GB/s"},
	        {"GB/sec", "GB/s"}, {"sec", "s"},         {"secs", "s"},     {"second", "s"},
	        {"seconds", "s"},   {"msec", "ms"},       {"\u00b5s", "us"}, {"\u03bcs", "us"},
	        {"usec", "us"},     {"GiB/sec", "GiB/s"}, {"minute", "min"}, {"minutes", "min"},
	};
	snprintf(out, len, "%s", u);
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (!strcmp(u, alias[i].from))
			snprintf(out, len, "%s", alias[i].to);
}

double valid_unit_si(const char *unit, sim_unit kind)
{
	char spelled[32], text[48], err[160];
	double s;
	spell(unit, spelled, sizeof spelled);
	snprintf(text, sizeof text, "1 %s", spelled);
	return sim_unit_parse(text, kind, &s, err, sizeof err) == SIM_OK ? s : 0;
}

double valid_unit_seconds(const char *unit)
{
	return valid_unit_si(unit, SIM_UNIT_TIME);
}

/* A unit as spell() reads it; a NIC's bare "G" or "GbE" its line rate in
 * Gb/s; a memory peak's "GB" the schema's GiB. */
static void unit_spelling(const valid_numcol *nc, const char *u, char *out, size_t len)
{
	spell(u, out, len);
	/* memory-README.md: "GB is converted to GiB only where the source
	 * clearly means 10^9 bytes; otherwise the printed number is kept" */
	static const char *const dec[] = {"kB", "MB", "GB", "TB"}, *const bin[] = {"KiB", "MiB",
	                                                                           "GiB", "TiB"};
	for (size_t i = 0; !strcmp(nc->col, "measured_peak_gib") && i < 4; i++)
		if (!strcasecmp(u, dec[i]))
			snprintf(out, len, "%s", bin[i]);
	if (!strcmp(nc->col, "nic_gbps") && (!strcasecmp(u, "G") || !strcasecmp(u, "Gb") ||
	                                     !strcasecmp(u, "GbE") || !strcasecmp(u, "Gbit")))
		snprintf(out, len, "Gb/s");
}

/* bytes: nccl-tests' sizes ("256M", "256MB", "1G": its parsesize takes
 * K, M, G as powers of 1024, nccl-tests src/common.cu) and the binary
 * prefixes; the case files write a message of '256MB' as 2^28 bytes
 * (efa-collectives.csv's notes). */
static bool bytes_size(double x, const char *u, double *v)
{
	static const char *const prefix = "KMGT";
	if (!*u || strlen(u) > 3)
		return false;
	const char *k = strchr(prefix, toupper((unsigned char)u[0]));
	if (!k)
		return false;
	const char *tail = u + 1;
	if (*tail == 'i')
		tail++;
	if (*tail && strcmp(tail, "B"))
		return false;
	*v = x * pow(1024, (double)(k - prefix + 1));
	return true;
}

/* A count's noun after it: "512 GPUs" in gpus, "64 nodes" in nodes,
 * "4 NICs" in nics_per_node (the noun, singular, is part of the column's
 * name), "4096 tokens" in seq_len, "1536 sequences" (or seqs) in
 * global_batch, a parallel degree's "8-way" and a pipeline's "2 stages";
 * and a sequence length's "4K" (K = 1024: a "4K context" is 4,096 tokens). */
static bool count_suffix(const valid_numcol *nc, double x, const char *u, double *v)
{
	char w[32];
	valid_lower(*u == '-' ? u + 1 : u, w, sizeof w);
	size_t n = strlen(w);
	if (!strcmp(nc->col, "seq_len") && (!strcmp(w, "k") || !strcmp(w, "k tokens"))) {
		*v = x * 1024;
		return true;
	}
	static const struct {
		const char *col, *noun;
	} nouns[] = {{"seq_len", "token"},       {"global_batch", "sequence"},
	             {"global_batch", "sample"}, {"global_batch", "seq"},
	             {"micro_batch", "sequence"}, {"micro_batch", "sample"},
	             {"micro_batch", "seq"},     {"kv_heads", "head"},
	             {"moe_topk", "expert"},     {"pp", "stage"},
	             {"tp", "way"},              {"pp", "way"},
	             {"dp", "way"},              {"cp", "way"},
	             {"ep", "way"},              {"dp", "replica"}};
	if (n > 1 && w[n - 1] == 's')
		w[--n] = 0;
	for (size_t i = 0; n && i < sizeof nouns / sizeof nouns[0]; i++)
		if (!strcmp(nc->col, nouns[i].col) && !strcmp(w, nouns[i].noun)) {
			*v = x;
			return true;
		}
	for (size_t i = 0; i < n; i++)
		if (!isalpha((unsigned char)w[i]))
			return false;
	*v = x;
	return n >= 3 && strstr(nc->col, w) != NULL;
}

/* The column's name before the number: "TP=8", "tp 8", "PP4". */
static const char *after_name(const valid_numcol *nc, const char *t)
{
	/* the column's short name ("tp 8", "pp=2") or the names sources give
	 * it ("r=64", "rank 16" for a LoRA rank; "MBS 4", "GBS 512") */
	static const struct {
		const char *col, *name;
	} alias[] = {{"lora_rank", "rank"},      {"lora_rank", "r"},        {"micro_batch", "mbs"},
	             {"micro_batch", "mb"},      {"global_batch", "gbs"},   {"global_batch", "gb"},
	             {"vpp", "v"}};
	const char *names[8] = {strlen(nc->col) <= 3 ? nc->col : NULL};
	size_t n = 1;
	for (size_t i = 0; i < sizeof alias / sizeof alias[0] && n < 8; i++)
		if (!strcmp(alias[i].col, nc->col))
			names[n++] = alias[i].name;
	for (size_t i = 0; i < n; i++) {
		size_t k = names[i] ? strlen(names[i]) : 0;
		if (!k || strncasecmp(t, names[i], k))
			continue;
		const char *p = t + k;
		while (*p == ' ' || *p == '=' || *p == ':')
			p++;
		if (isdigit((unsigned char)*p))
			return p;
	}
	return t;
}

/* The readings of field text t of column nc that are words, not numbers:
 * a run that died out of memory (no peak or step), an open cell, a ZeRO
 * stage by its remark, an interleaving with or without its depth, an
 * InfiniBand generation's rate; true with the schema's number (or "" for
 * open) in out. */
static bool word_reading(const valid_numcol *nc, const char *t, char *out, size_t len)
{
	if (valid_oom_text(t) &&
	    (!strcmp(nc->col, "measured_peak_gib") || !strcmp(nc->col, "measured_iter_s") ||
	     !strcmp(nc->col, "measured_value"))) {
		snprintf(out, len, "%s", ""); /* no peak or step: the run died */
		return true;
	}
	if (open_text(t)) {
		/* vpp's empty is an interleaving of unknown depth: a vpp "not
		 * applicable" is no interleaving, 1 */
		char l[16];
		valid_lower(t, l, sizeof l);
		bool na = strcmp(l, "?") && strcmp(l, "unknown") && strncmp(l, "not ", 4) &&
		          strncmp(l, "auto", 4);
		snprintf(out, len, "%s", !strcmp(nc->col, "vpp") && na ? "1" : "");
		return true;
	}
	int named = !strcmp(nc->col, "zero") ? zero_stage_remarked(t) : -1;
	if (named >= 0) {
		snprintf(out, len, "%d", named);
		return true;
	}
	named = !strcmp(nc->col, "vpp") ? vpp_reading(t) : -1;
	if (named >= 0) {
		snprintf(out, len, "%s", named ? "1" : "");
		return true;
	}
	named = !strcmp(nc->col, "nic_gbps") ? ib_generation(t) : -1;
	if (named > 0) {
		snprintf(out, len, "%d", named);
		return true;
	}
	/* "interleaved (2)", "interleaved, 4 chunks": the depth it gives */
	if (!strcmp(nc->col, "vpp") && strstr(t, "nterleav")) {
		const char *d = t + strcspn(t, "0123456789");
		if (*d && atoi(d) >= 1) {
			snprintf(out, len, "%d", atoi(d));
			return true;
		}
	}
	return false;
}

/* The reading of field text t of column nc into out: true with the
 * schema's number (or "" for open) when the text is not a plain number but
 * one of the forms above names one; false otherwise. `unit` is the row's
 * measured_unit (measured_value may repeat it: "1.25 s" with unit s). */
static bool reading(const valid_numcol *nc, const char *t, const char *unit, char sep, char *out,
                    size_t len)
{
	char *end;
	double v = strtod(t, &end);
	if (!*t || (end != t && !*end && isfinite(v)))
		return false; /* a plain number (or an error strtod's check names) */
	if (word_reading(nc, t, out, len))
		return true;
	char s[96];
	strip_marks(t, s, sizeof s);
	/* a semicolon-separated file is a spreadsheet's export where the
	 * decimal mark is a comma: "2,177" is 2.177 there (one comma, digits
	 * on both sides) */
	char *comma = strchr(s, ',');
	if (sep == ';' && comma && comma > s && isdigit((unsigned char)comma[-1]) &&
	    isdigit((unsigned char)comma[1]) && !strchr(comma + 1, ','))
		*comma = '.';
	const char *u, *p = after_name(nc, s);
	double x;
	/* bytes: a whole number, not an int (beyond 2^31); a memory peak in
	 * MiB or MB ("51,200 MiB") too: its decimal-comma reading, 51.2 MiB,
	 * is no training run's peak */
	char lowu[96];
	valid_lower(s, lowu, sizeof lowu);
	bool whole = nc->kind != VALID_NUM_REAL || !strcmp(nc->col, "bytes") ||
	             (!strcmp(nc->col, "measured_peak_gib") && strstr(lowu, "mb")) ||
	             (!strcmp(nc->col, "measured_peak_gib") && strstr(lowu, "mib"));
	if (!valid_lead_number(p, whole, &x, &u))
		return false;
	/* a remark in parentheses after the value: "1 (distributed optimizer)",
	 * "2.177 s (mean of 10)" */
	char rest[64];
	snprintf(rest, sizeof rest, "%s", u);
	size_t rn = strlen(rest);
	char *open = strchr(rest, '(');
	if (open && rn && rest[rn - 1] == ')') {
		for (*open = 0; open > rest && isspace((unsigned char)open[-1]);)
			*--open = 0;
		u = rest;
	}
	bool ok = !*u;
	v = x;
	/* a time per iteration or step ("2.2 s/it", "2200 ms/step"): the time */
	char per_it[32];
	if (!ok && nc->unit == SIM_UNIT_TIME) {
		snprintf(per_it, sizeof per_it, "%s", u);
		char *slash = strchr(per_it, '/');
		static const char *const per[] = {"it", "iter", "iteration", "step", "batch", NULL};
		for (const char *const *q = per; slash && *q; q++)
			if (!strcasecmp(slash + 1, *q)) {
				for (*slash = 0; slash > per_it && slash[-1] == ' ';)
					*--slash = 0;
				u = per_it;
				break;
			}
	}
	if (!ok && nc->unit != SIM_UNIT_NONE) {
		char spelled[32], text[160], err[160];
		unit_spelling(nc, u, spelled, sizeof spelled);
		snprintf(text, sizeof text, "%.17g %s", x, spelled);
		double si;
		if (!strcmp(nc->col, "bytes") && bytes_size(x, u, &v))
			ok = true;
		else if (sim_unit_parse(text, nc->unit, &si, err, sizeof err) == SIM_OK) {
			v = si / nc->per;
			ok = true;
		}
	} else if (!ok && !strcmp(nc->col, "measured_value"))
		ok = *unit && !strcasecmp(u, unit);
	else if (!ok)
		ok = count_suffix(nc, x, u, &v);
	if (!ok || !isfinite(v) || v < 0)
		return false;
	snprintf(out, len, "%.10g", v);
	return true;
}

bool valid_zeropp_text(const char *t)
{
	char s[48];
	bare(t, s, sizeof s);
	return zero_stage(t) == 3 && (strstr(s, "++") || strstr(s, "zeropp"));
}

bool valid_hybrid_shard_text(const char *t)
{
	char s[128];
	bare(t, s, sizeof s);
	return strstr(s, "hybridshard") || strstr(s, "hsdp");
}

int valid_zero_named(const char *t)
{
	char s[128];
	bare(t, s, sizeof s);
	/* a stage by number: "ZeRO-3", "ZeRO stage 2", "zero2", "stage 3" */
	static const char *const lead[] = {"zerostage", "zero", "stage"};
	for (size_t i = 0; i < sizeof lead / sizeof lead[0]; i++)
		for (const char *p = strstr(s, lead[i]); p; p = strstr(p + 1, lead[i])) {
			char d = p[strlen(lead[i])];
			if (d >= '0' && d <= '3' && !isdigit((unsigned char)p[strlen(lead[i]) + 1]))
				return d - '0';
		}
	/* by name: ZeRO++, DeepSpeed's offload tutorials' stages, FSDP's
	 * strategies (NO_SHARD and SHARD_GRAD_OP before the other shards),
	 * Megatron's distributed optimizer */
	static const struct {
		const char *name;
		int stage;
	} names[] = {{"zero++", 3},      {"zeropp", 3},      {"zerooffload", 2},
	             {"zeroinfinity", 3}, {"noshard", 0},     {"shardgradop", 2},
	             {"fullshard", 3},    {"hybridshard", 3}, {"hsdp", 3},
	             {"distributedoptimizer", 1}, {"distopt", 1},
	             /* ColossalAI's Gemini shards parameters, gradients and
	              * states in chunks, its ZeRO-3 (colossalai/zero/gemini) */
	             {"gemini", 3}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strstr(s, names[i].name))
			return names[i].stage;
	return -1;
}

/* Whether the phrase at p of the lower-cased text s is negated: "no",
 * "without", "disabled" just before it, a false or an off just after. */
bool valid_negated(const char *s, const char *p, size_t n)
{
	static const char *const before[] = {"no ", "without ", "w/o ", "disabled ", "disable "};
	static const char *const after[] = {"=false", "= false", ": false", ": no", " off", "=0",
	                                    " disabled", ": off", "=off", " none"};
	for (size_t k = 0; k < sizeof before / sizeof before[0]; k++) {
		size_t b = strlen(before[k]);
		if (p >= s + b && !strncmp(p - b, before[k], b))
			return true;
	}
	for (size_t k = 0; k < sizeof after / sizeof after[0]; k++)
		if (!strncmp(p + n, after[k], strlen(after[k])))
			return true;
	return false;
}

/* torchtitan's --activation_checkpoint.mode (job_config.py:651-652 at
 * pytorch/torchtitan 238fa9953, before the dataclass registry: "selective",
 * "full", "memory_budget" or "none"): 1 full, 0 none, -1 the others (which
 * layers or ops: not said) or no such key; the phrase into phrase[]. */
static int titan_mode(const char *t, const char *s, char *phrase, size_t len)
{
	static const char *const keys[] = {"activation_checkpoint.mode", "activation-checkpoint.mode"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const char *k = strstr(s, keys[i]);
		if (!k)
			continue;
		const char *v = k + strlen(keys[i]);
		v += strspn(v, " =:\"'");
		int on = !strncmp(v, "full", 4) ? 1 : !strncmp(v, "none", 4) ? 0 : -1;
		/* the key and its value, a closing quote too */
		if (on >= 0)
			snprintf(phrase, len, "%.*s", (int)(v - k) + 4 + (v[4] == '"' || v[4] == '\''),
			         t + (k - s));
		return on;
	}
	return -1;
}

/* "AC" as a word in capitals (torchtune's and torchtitan's tables: "AC",
 * "full AC", "no AC"; "SAC", selective, is another word), its offset in t or
 * -1. */
static long ac_word(const char *t)
{
	for (const char *p = strstr(t, "AC"); p; p = strstr(p + 1, "AC"))
		if ((p == t || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[2]))
			return p - t;
	return -1;
}

int valid_checkpointing_named(const char *t, char *phrase, size_t len)
{
	char s[1024];
	valid_lower(t, s, sizeof s);
	/* DeepSpeed's pipeline checkpoints every interval-th layer: 0 none */
	const char *iv = strstr(s, "activation_checkpoint_interval");
	if (iv) {
		const char *d = iv + strlen("activation_checkpoint_interval");
		while (*d == ' ' || *d == '=' || *d == ':')
			d++;
		if (isdigit((unsigned char)*d)) {
			snprintf(phrase, len, "%.*s", (int)(strspn(d, "0123456789") + (size_t)(d - iv)),
			         t + (iv - s));
			return atoi(d) > 0;
		}
	}
	if (strstr(s, "activation_checkpoint.mode") || strstr(s, "activation-checkpoint.mode"))
		return titan_mode(t, s, phrase, len);
	static const char *const on[] = {"gradient checkpointing",       "gradient_checkpointing",
	                                 "activation checkpointing",     "activation_checkpointing",
	                                 "activation recomputation",     "checkpoint-activations",
	                                 "checkpoint_activations",       "recompute-activations",
	                                 "recompute-granularity full",   "recompute_granularity=full",
	                                 "recompute_granularity: full", "recompute_granularity full"};
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		const char *p = strstr(s, on[i]);
		if (!p)
			continue;
		if (p >= s + 10 && !strncmp(p - 10, "selective ", 10))
			return -1; /* which modules: not said */
		snprintf(phrase, len, "%.*s", (int)strlen(on[i]), t + (p - s));
		return !valid_negated(s, p, strlen(on[i]));
	}
	long ac = strlen(t) < sizeof s ? ac_word(t) : -1;
	if (ac < 0)
		return -1;
	if (ac >= 10 && !strncmp(s + ac - 10, "selective ", 10))
		return -1;
	snprintf(phrase, len, "AC");
	return !valid_negated(s, s + ac, 2);
}

bool valid_oom_text(const char *t)
{
	char s[64];
	valid_lower(t, s, sizeof s);
	return strstr(s, "oom") || strstr(s, "out of memory") || strstr(s, "out-of-memory");
}

bool valid_oom_marked(const cases_csv *c, size_t row, const char *col)
{
	const char *k = cases_csv_get(c, row, cases_csv_col(c, "memory_kind"));
	const char *note = cases_csv_get(c, row, cases_csv_col(c, "note"));
	/* a note's "OOM" in capitals: free text may name BLOOM, whose lower case
	 * holds "oom", where a measurement's field does not */
	return !strcmp(valid_loose("memory_kind", k), "oom") ||
	       valid_oom_text(cases_csv_written(c, row, cases_csv_col(c, col))) ||
	       strstr(note, "OOM") || strstr(note, "out of memory") ||
	       strstr(note, "Out of memory") || strstr(note, "out-of-memory");
}

/* Cell (row, col) set to the whole number n. */
static int set_whole(cases_csv *c, size_t row, int col, double n)
{
	char out[32];
	snprintf(out, sizeof out, "%.0f", n);
	return cases_csv_set(c, row, col, out);
}

/* A training or memory row whose GPU count is open but whose dp is printed:
 * the GPUs its degrees fill, tp pp dp cp (an open degree 1), written into
 * the cell (valid_loose_numbers_assume says so). */
static int fill_gpus(cases_csv *c)
{
	int g = cases_csv_col(c, "gpus"), d = cases_csv_col(c, "dp");
	if (g < 0 || d < 0 || cases_csv_col(c, "kind") >= 0)
		return SIM_OK;
	static const char *const deg[] = {"tp", "pp", "dp", "cp"};
	for (size_t row = 0; row < cases_csv_rows(c); row++) {
		if (*cases_csv_get(c, row, g) || !*cases_csv_get(c, row, d))
			continue;
		double n = 1;
		for (int i = 0; i < 4; i++) {
			int k = cases_csv_col(c, deg[i]);
			const char *v = k >= 0 ? cases_csv_get(c, row, k) : "";
			double x = *v ? atof(v) : 1;
			n = x >= 1 && x == floor(x) ? n * x : -1e18;
		}
		int rc = n >= 1 && n <= INT_MAX ? set_whole(c, row, g, n) : SIM_OK;
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

/* A global batch written in tokens ("16M tokens", "1572864 tokens"): the
 * sequences of the row's seq_len it holds, where a count of them is whole,
 * the suffix binary (M = 2^20: "16M tokens" of 8,192 are 2,048 sequences,
 * Llama 3's; batches and sequence lengths are powers of two, so where both
 * readings are whole, "1536K tokens" of 4,096, the binary one, 384 and not
 * 375) or, where only that is whole, decimal (M = 10^6). A count with a
 * suffix that neither makes whole is a rounded figure ("3.2M tokens" of
 * 2,048, GPT-3's 1,536 sequences, 3.15M): its decimal reading to the
 * nearest sequence (1,563), said (token_sequences), which the reader
 * then rounds to whole micro-batches per replica (runs.c valid_row_batch); a
 * count without a suffix that is not whole is left to the number check,
 * which names it. */
/* The sequences of seq tokens a batch written in tokens holds (w, a cell
 * with "token"; -1 where it is none): the binary reading of its suffix
 * where whole, else the decimal one where whole, else (a suffix's rounded
 * figure) the decimal one to the nearest sequence, *rounded set. */
static double token_sequences(const char *w, double seq, bool *rounded)
{
	char low[64];
	valid_lower(w, low, sizeof low);
	char *end;
	double x = strtod(low, &end);
	*rounded = false;
	if (!strstr(low, "token") || !(seq >= 1) || end == low || !(x > 0))
		return -1;
	while (*end == ' ')
		end++;
	static const char suffix[] = "kmg"; /* 10^3 or 2^10 to the 1st-3rd */
	const char *k = *end ? strchr(suffix, *end) : NULL;
	int e = k ? (int)(k - suffix) + 1 : 0;
	double cand[2] = {x * pow(1024.0, e), x * pow(1e3, e)};
	for (int i = 0; i < (e ? 2 : 1); i++) {
		double n = cand[i] / seq;
		if (n >= 1 && fabs(n - round(n)) < 1e-6 && n < INT_MAX)
			return round(n);
	}
	if (!e || !(cand[1] / seq >= 0.5) || !(cand[1] / seq < INT_MAX))
		return -1;
	*rounded = true;
	return round(cand[1] / seq);
}

static int token_batches(cases_csv *c)
{
	int g = cases_csv_col(c, "global_batch"), sc = cases_csv_col(c, "seq_len");
	if (g < 0 || sc < 0)
		return SIM_OK;
	for (size_t row = 0; row < cases_csv_rows(c); row++) {
		bool rounded;
		double seqs = token_sequences(cases_csv_get(c, row, g),
		                              atof(cases_csv_get(c, row, sc)), &rounded);
		int rc = seqs > 0 ? set_whole(c, row, g, seqs) : SIM_OK;
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

/* "N x TYPE" in the gpus column at row (x the count, `low` what follows
 * the x, lower case): N GPUs, and TYPE as written into an open gpu
 * column; a TYPE that does not start with a letter is left as it is. */
static int gpus_of_type(cases_csv *c, size_t row, int g, double x, const char *low)
{
	while (*low == ' ')
		low++;
	if (!isalpha((unsigned char)*low) || !strncmp(low, "gpu", 3) || x > INT_MAX)
		return SIM_OK;
	const char *w = cases_csv_get(c, row, g);
	char name[64];
	snprintf(name, sizeof name, "%s", w + strlen(w) - strlen(low)); /* its own case */
	int gc = cases_csv_col(c, "gpu");
	int rc = set_whole(c, row, g, x);
	if (rc == SIM_OK && gc >= 0 && !*cases_csv_get(c, row, gc))
		rc = cases_csv_set(c, row, gc, name);
	return rc;
}

/* A GPU count written as nodes ("96 nodes", "96 nodes x 8", "96 nodes of 8
 * GPUs") or as a product ("96 x 8", "96 x 8 GPUs"), in a training or memory row: the
 * nodes times the GPUs a node, the product's second factor, else the row's
 * gpus_per_node, else 8 (every shipped node's box but the NVL72 rack's, as
 * the training reader assumes and says); written into the cell, which
 * valid_loose_numbers_assume says. */
static int node_gpus(cases_csv *c)
{
	int g = cases_csv_col(c, "gpus"), pn = cases_csv_col(c, "gpus_per_node");
	bool micro = cases_csv_col(c, "kind") >= 0; /* a microbenchmark's: "64 H100" alone */
	if (g < 0)
		return SIM_OK;
	for (size_t row = 0; row < cases_csv_rows(c); row++) {
		char low[64];
		valid_lower(cases_csv_get(c, row, g), low, sizeof low);
		char *end;
		double x = strtod(low, &end), y = 0;
		if (end == low || !(x >= 1) || x != floor(x))
			continue;
		while (*end == ' ')
			end++;
		if (micro) {
			int rc = isalpha((unsigned char)*end) && strncmp(end, "node", 4)
			                 ? gpus_of_type(c, row, g, x, end)
			                 : SIM_OK;
			if (rc != SIM_OK)
				return rc;
			continue;
		}
		bool nodes = !strncmp(end, "node", 4);
		if (nodes)
			end += strcspn(end, " x*");
		while (*end == ' ')
			end++;
		int by = *end == 'x' || *end == '*' ? 1 : nodes && !strncmp(end, "of ", 3) ? 3 : 0;
		if (by) {
			char *e2;
			y = strtod(end + by, &e2);
			if (e2 == end + by && !nodes) {
				/* "2x A100", "8 x H100 80GB": that many GPUs of the type
				 * named, the name the gpu column's where it is open */
				int rc = gpus_of_type(c, row, g, x, end + by);
				if (rc != SIM_OK)
					return rc;
				continue;
			}
			while (*e2 == ' ')
				e2++;
			if (e2 == end + by || (*e2 && strncmp(e2, "gpu", 3)))
				continue;
		} else if (nodes && !*end) {
			double per = pn >= 0 ? atof(cases_csv_get(c, row, pn)) : 0;
			y = per >= 1 ? per : 8;
		} else {
			/* "768 H100": that many of the GPU named */
			int rc = nodes ? SIM_OK : gpus_of_type(c, row, g, x, end);
			if (rc != SIM_OK)
				return rc;
			continue;
		}
		if (!(y >= 1) || y != floor(y) || x * y > INT_MAX)
			continue;
		int rc = set_whole(c, row, g, x * y);
		/* "96 x 4": the GPUs a node too, where the row leaves them open */
		if (rc == SIM_OK && by && pn >= 0 && !*cases_csv_get(c, row, pn))
			rc = set_whole(c, row, pn, y);
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

/* A NIC count with its rate ("8 x 400G", "8x NDR", "4x HDR", "8x"): the
 * count, and the rate into an open nic_gbps (its own reading: a unit, or
 * an InfiniBand generation). */
static int nic_cells(cases_csv *c)
{
	int nc = cases_csv_col(c, "nics_per_node"), gc = cases_csv_col(c, "nic_gbps");
	const valid_numcol *gbps = NULL;
	for (size_t i = 0; i < NCOLS; i++)
		if (!strcmp(numcols[i].col, "nic_gbps"))
			gbps = &numcols[i];
	if (nc < 0)
		return SIM_OK;
	for (size_t row = 0; row < cases_csv_rows(c); row++) {
		const char *t = cases_csv_get(c, row, nc);
		char *end;
		double x = strtod(t, &end);
		if (end == t || !(x >= 1) || x != floor(x) || x > INT_MAX)
			continue;
		while (*end == ' ')
			end++;
		if (*end != 'x' && *end != 'X' && *end != '*')
			continue;
		const char *rate = end + 1;
		while (*rate == ' ')
			rate++;
		char out[64] = "";
		if (*rate && gc >= 0 && !*cases_csv_get(c, row, gc) && gbps) {
			char r[48];
			snprintf(r, sizeof r, "%s", rate);
			if (!reading(gbps, r, "", ',', out, sizeof out)) { /* a unit or "NDR" */
				char *e2;
				double v = strtod(r, &e2);
				if (e2 == r || *e2 || !(v > 0))
					continue; /* not a rate: left for the error */
				snprintf(out, sizeof out, "%.10g", v);
			}
		}
		int rc = set_whole(c, row, nc, x);
		if (rc == SIM_OK && *out)
			rc = cases_csv_set(c, row, gc, out);
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

/* A utilization the note states as "MFU 41.82%", "HFU: 0.64" (lower case
 * in low[], `name` standing alone): its fraction (a value over 1 is a
 * percentage), -1 where none. */
static double util_named(const char *low, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(low, name); p; p = strstr(p + 1, name)) {
		if ((p > low && isalnum((unsigned char)p[-1])) || isalnum((unsigned char)p[n]))
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == ':' || *q == '=')
			q++;
		char *end;
		double v = strtod(q, &end);
		if (end == q || !(v > 0))
			continue;
		return *end == '%' || v > 1 ? v / 100 : v;
	}
	return -1;
}

/* The recomputation a note's model and hardware FLOPs utilizations give
 * (MosaicML's and the PyTorch blog's tables print both, as Korthikanti et
 * al. 2022 define them: HFU counts the FLOPs the hardware ran, the
 * recomputed ones too, MFU the model's 6 N D): a full recomputation runs
 * every layer's forward again, 2 of each layer's 6 FLOPs per parameter and
 * token (its attention alike), so HFU / MFU = 4/3, a little under where
 * the output layer, never recomputed, weighs; none, HFU = MFU. Read within
 * the two figures' rounding (0.04 and 0.02: "MFU 0.34; HFU 0.45" is 1.32);
 * a ratio between (some layers, or Megatron's selective recomputation of
 * attention only) names no cell value: -1. */
static int recompute_from_util(const char *note, char *phrase, size_t len)
{
	char low[4096];
	valid_lower(note, low, sizeof low);
	double m = util_named(low, "mfu"), h = util_named(low, "hfu");
	if (!(m > 0) || !(h > 0))
		return -1;
	double r = h / m;
	int on = fabs(r - 4.0 / 3) <= 0.04 ? 1 : fabs(r - 1) <= 0.02 ? 0 : -1;
	if (on >= 0)
		snprintf(phrase, len, "MFU %.4g%%, HFU %.4g%%: HFU / MFU %.3g", 100 * m, 100 * h, r);
	return on;
}

/* The recomputation an open recompute cell's row names in its framework
 * column or else its note (valid_checkpointing_named), else the note's HFU
 * over its MFU (recompute_from_util): 1 full, 0 none, -1 neither; which
 * said it into *where, the phrase into phrase[]. */
int valid_recompute_named(const cases_csv *c, size_t row, const char **where, char *phrase,
                          size_t len)
{
	static const char *const cols[] = {"framework", "note"};
	static const char *const said[] = {"framework column", "note"};
	for (size_t i = 0; i < 2; i++) {
		int k = cases_csv_col(c, cols[i]);
		int on = k >= 0 ? valid_checkpointing_named(cases_csv_get(c, row, k), phrase, len) : -1;
		if (on >= 0) {
			*where = said[i];
			return on;
		}
	}
	int k = cases_csv_col(c, "note");
	int on = k >= 0 ? recompute_from_util(cases_csv_get(c, row, k), phrase, len) : -1;
	if (on >= 0)
		*where = "note's utilization";
	return on;
}


bool valid_cell_reading(const char *col, const char *text, char *out, size_t len)
{
	char *end;
	double v = strtod(text, &end);
	if (*text && end != text && !*end && isfinite(v)) {
		snprintf(out, len, "%s", text);
		return true;
	}
	for (size_t i = 0; i < NCOLS; i++)
		if (!strcmp(numcols[i].col, col))
			return reading(&numcols[i], text, "", ',', out, len);
	return false;
}

int valid_loose_numbers(cases_csv *c)
{
	int mu = cases_csv_col(c, "measured_unit");
	for (size_t i = 0; i < NCOLS; i++) {
		int col = cases_csv_col(c, numcols[i].col);
		if (col < 0)
			continue;
		for (size_t row = 0; row < cases_csv_rows(c); row++) {
			char out[64];
			if (!reading(&numcols[i], cases_csv_get(c, row, col),
			             cases_csv_get(c, row, mu), cases_csv_sep(c), out, sizeof out))
				continue;
			int rc = cases_csv_set(c, row, col, out);
			if (rc != SIM_OK)
				return rc;
		}
	}
	int rc = token_batches(c);
	rc = rc != SIM_OK ? rc : node_gpus(c);
	rc = rc != SIM_OK ? rc : nic_cells(c);
	rc = rc != SIM_OK ? rc : valid_fill_named(c);
	return rc != SIM_OK ? rc : fill_gpus(c);
}

/* Whether a batch written in tokens was read as a rounded figure
 * (token_sequences, on the cell as written and the row's seq_len). */
static bool token_batch_rounded(const char *w, double seq)
{
	bool rounded;
	return token_sequences(w, seq, &rounded) > 0 && rounded;
}

/* Whether a written cell says tokens. */
static bool tokens_written(const char *w)
{
	char low[64];
	valid_lower(w, low, sizeof low);
	return strstr(low, "token") != NULL;
}

void valid_loose_numbers_assume(const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	/* a recomputation the row's text named (named_recompute) */
	int rk = cases_csv_col(c, "recompute");
	if (rk >= 0 && !*cases_csv_written(c, row, rk) && *cases_csv_get(c, row, rk)) {
		const char *where;
		char phrase[64];
		int on = valid_recompute_named(c, row, &where, phrase, sizeof phrase);
		bool util = on >= 0 && strstr(where, "utilization");
		if (on >= 0)
			valid_assume(assumed, alen, "recompute %s (not published: the %s says '%s'%s)",
			             on ? "full" : "none", where, phrase,
			             util ? (on ? ", every layer's forward twice" : ", nothing run twice")
			             : on || strstr(phrase, ".mode") ? ""
			                                            : ", negated");
	}
	valid_named_assume(c, row, assumed, alen);
	for (size_t i = 0; i < NCOLS; i++) {
		int col = cases_csv_col(c, numcols[i].col);
		const char *w = cases_csv_written(c, row, col), *v = cases_csv_get(c, row, col);
		if (col < 0 || !strcmp(w, v))
			continue;
		if (*v && !*w &&
		    (!strcmp(numcols[i].col, "seq_len") || !strcmp(numcols[i].col, "tp") ||
		     !strcmp(numcols[i].col, "pp") || !strcmp(numcols[i].col, "micro_batch") ||
		     !strcmp(numcols[i].col, "zero") || !strcmp(numcols[i].col, "bytes") ||
		     !strcmp(numcols[i].col, "global_batch")))
			continue; /* valid_token_seq_len's, valid_open_layout's: the reader
			           * says them (runs.c); named_micro_batch's, named_zero's,
			           * named_bytes', named_global_batch's, above
			           * (valid_named_assume) */
		if (*v && !*w && !strcmp(numcols[i].col, "gpus"))
			valid_assume(assumed, alen, "gpus %s (not published: tp pp dp cp)", v);
		else if (*v && !*w && !strcmp(numcols[i].col, "gpus_per_node"))
			valid_assume(assumed, alen,
			             "gpus_per_node %s (not published: the gpus column's GPUs a node)", v);
		else if (*v && !*w && !strcmp(numcols[i].col, "nic_gbps"))
			valid_assume(assumed, alen,
			             "nic_gbps %s (not published: the nics_per_node column's rate)", v);
		else if (*v && !strcmp(numcols[i].col, "global_batch") && tokens_written(w))
			valid_assume(assumed, alen, "global_batch '%.24s' read as %s sequences of seq_len%s",
			             w, v,
			             token_batch_rounded(w, atof(cases_csv_get(c, row,
			                                                      cases_csv_col(c, "seq_len"))))
			                     ? " (a rounded figure: neither its binary nor its decimal "
			                       "reading is whole sequences; the decimal one, to the "
			                       "nearest)"
			                     : "");
		else if (*v)
			valid_assume(assumed, alen, "%s '%.24s' read as %s", numcols[i].col, w, v);
		else if (valid_oom_text(w))
			valid_assume(assumed, alen, "%s '%.24s' read as a run out of memory",
			             numcols[i].col, w);
		else
			valid_assume(assumed, alen, "%s '%.24s' read as open", numcols[i].col, w);
	}
}
