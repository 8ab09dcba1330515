/* memrows.c - a measured memory peak (a memory.csv row) as a podsim
 * scenario, and its prediction: the peak of the row's rank (the last
 * pipeline stage when the note says the last rank measured it, else rank 0's
 * stage 0) in the counter the row's memory_kind names: allocated (torch
 * max_memory_allocated, active_bytes), reserved (max_memory_reserved), or
 * the device (nvidia-smi; also for memory_kind unknown: the Qwen README's
 * full-parameter cells are totals over GPUs, a monitor's view, so its
 * numbers are read as device memory). Where the row's framework resets the
 * peak counters after the forward and backward of the steps it logs
 * ([framework] logged_peak = after-pipeline: nanotron), its allocated peak
 * is the optimizer phase's (plan_memory_after_pipeline); its reserved peak
 * stays the step's (the cached segments survive the reset).
 *
 * The row's columns give the model, GPUs, plan, precision, optimizer, ZeRO
 * stage, recomputation, attention path and LoRA rank; its software stack is
 * a framework profile (topologies/frameworks/stacks.csv, rows keyed by the
 * source and the row's framework column: valid_stack_find), and what the
 * source ran beyond the columns comes from its note, by the phrase table
 * below (every phrase with the keys it sets; `podsim validate FILE
 * --scenario ID` prints the result). The GPU column's names map to GPU files
 * (gpu_map); a form factor the source left open is an assumption printed
 * with the row, as are architecture columns a row leaves open, taken from
 * the model's file under models/ (valid_model_file). */
#include "valid_int.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A column's value as the reader takes it (valid_loose: "BF16" is bf16,
 * "AdamW 8-bit" adam8bit, "max_memory_allocated" allocated, "out-of-memory"
 * oom, "False" no). */
static const char *get(const cases_csv *c, size_t row, const char *col)
{
	int k = cases_csv_col(c, col);
	return k < 0 ? "" : valid_loose(col, cases_csv_get(c, row, k));
}

/* The case file's GPU names -> GPU files and node templates. */
static const struct {
	const char *name, *file, *node, *assumed;
} gpu_map[] = {
        {"a100-sxm4-40g", "a100-sxm4-40g", "dgx-a100-40g", NULL},
        {"a100-sxm4-80g", "a100-sxm4-80g", "dgx-a100-80g", NULL},
        {"a100-40g", "a100-sxm4-40g", "dgx-a100-40g", "A100 40 GB form factor not stated: SXM4"},
        {"a100-80g", "a100-sxm4-80g", "dgx-a100-80g", "A100 80 GB form factor not stated: SXM4"},
        {"h100-sxm5-80g", "h100-sxm5-80g", "dgx-h100", NULL},
        {"h100-80g", "h100-sxm5-80g", "dgx-h100", "H100 80 GB form factor not stated: SXM5"},
        /* the training schema's names (tests/cases/README.md) of GPUs a
         * memory source may name too: PCIe cards in their 8-GPU boxes,
         * H200 and H800 in their HGX nodes */
        {"a100-pcie", "a100-pcie", "pcie-8x-a100", NULL},
        {"a100-pcie-40g", "a100-pcie-40g", "pcie-8x-a100", NULL},
        {"h100-pcie", "h100-pcie", "pcie-8x-h100", NULL},
        {"h200-sxm-141g", "h200-sxm-141g", "hgx-h200", NULL},
        {"h800-sxm5-80g", "h800-sxm5-80g", "hgx-h800", NULL},
        {"a800-sxm4-80g", "a800-sxm4-80g", "hgx-a800", NULL},
        {"rtx3090-24g", "rtx-3090", "pcie-4x4090", NULL},
        {"rtx4090-24g", "rtx-4090", "pcie-4x4090", NULL},
        {"unknown-40g", "a100-pcie-40g", "dgx-a100-40g", "a 40 GB GPU not named: A100 PCIe 40 GB"},
        {"unknown-24g", "rtx-4090", "pcie-4x4090", "a 24 GB GPU not named: RTX 4090"},
        {"unknown", "a100-sxm4-80g", "dgx-a100-80g", "GPU not named: A100 80 GB"},
};

/* What a row's note says it ran, as podsim keys: when `phrase` occurs in the
 * note (case-sensitive) and `unless` does not, `set` ("section.key = value";
 * several separated by ';') applies. The first rule per key wins. */
static const struct {
	const char *phrase, *unless, *set;
} note_rules[] = {
        /* the model's shape beyond the columns */
        {"untied", NULL, "model.untied_embeddings = true"},
        {"tied embeddings", NULL, "model.untied_embeddings = false"},
        {"learned absolute positions", NULL, "model.learned_pos = true"},
        {"GPT2LMHeadModel", NULL, "model.learned_pos = true"},
        {"RMSNorm", NULL, "model.norm = rmsnorm"},
        /* Lit-GPT's phi-1_5: parallel attention and MLP on a shared norm
         * (lit_gpt/config.py:25, 1004 at Lightning-AI/litgpt 8641822b) */
        {"parallel attn+MLP", NULL, "model.parallel_residual = true"},
        /* Megatron-Core's local layers (LocalSpecProvider, core/models/
         * backends.py:99-131 at d98e8a64): Megatron's own linear layers
         * (PyTorch GEMMs, no Transformer Engine workspace: the local tests'
         * golden mem-allocated-bytes are the same on H100 and A100, the TE
         * tests' 28 MiB apart) and the unfused attention's QK^T buffer */
        {"--transformer-impl local", NULL,
         "framework.scores_buffer = true; framework.workspace = 0 B"},
        /* the plan */
        {"no sequence parallel", NULL, "parallel.sequence_parallel = false"},
        {"sequence parallel", "o sequence parallel", "parallel.sequence_parallel = true"},
        {"interleaved 1F1B", NULL, "parallel.schedule = 1f1b"},
        {"--fp8-param-gather", NULL, ""},
        {"with TP comm overlap", NULL, "parallel.tp_comm_overlap = true"},
        {"tensorwise current scaling", NULL, "train.fp8_recipe = tensorwise"},
        /* compilation, the loss, the optimizer step (torchtune's ladder) */
        {"torch.compile", "no compile", "train.compile = true"},
        {"compile;", "no compile", "train.compile = true"},
        {"compile on", NULL, "train.compile = true"},
        {"chunked CE", NULL, "train.chunked_loss = true"},
        {"CEWithChunkedOutputLoss", NULL, "train.chunked_loss = true"},
        {"optimizer_in_bwd=True", NULL, "train.optimizer_in_backward = true"},
        {"optimizer in backward", NULL, "train.optimizer_in_backward = true"},
        {"enable_activation_offloading=True", NULL, "train.activation_offload = true"},
        {"activation offloading;", NULL, "train.activation_offload = true"},
        /* precision */
        {"bf16 autocast", NULL, "train.policy = amp"},
        {"native AMP", NULL, "train.policy = amp"},
        {"fp16 with dynamic loss scale", NULL, "train.policy = mixed; parallel.fp32_grads = false"},
        {"DeepSpeed fp16", NULL, "train.policy = mixed; parallel.fp32_grads = false"},
        {"passes DeepSpeed ZeRO-2 config", NULL, "train.autocast = false"},
        {"mixed_precision 'no'", NULL, "train.policy = pure"}, /* bf16 weights, no autocast */
        /* LoRA: targets, quantised base, trained embeddings */
        {"on query and value", NULL, "train.lora_targets = q,v"},
        {"q_proj v_proj output_proj and the MLP", NULL, "train.lora_targets = q,v,o,mlp"},
        {"c_attn c_proj w1 w2", NULL, "train.lora_targets = all"},
        {"q k v up down gate", NULL, "train.lora_targets = q,k,v,gate,up,down"},
        {"all linear layers", NULL, "train.lora_targets = all"},
        {"q_proj k_proj v_proj o_proj", NULL, "train.lora_targets = attention"},
        {"double quant", NULL, "train.base_weights = nf4-dq"},
        {"nested", NULL, "train.base_weights = nf4-dq"},
        {"bnb.nf4-dq", NULL, "train.base_weights = nf4-dq"},
        /* fsdp_qlora builds bitsandbytes' Linear4bit itself without
         * compress_statistics (AnswerDotAI/fsdp_qlora 05ed9f2a
         * train.py:615-616, 153-179), whose default is True (bitsandbytes
         * 0.43.0 nn/modules.py:358): double quantisation */
        {"bitsandbytes 4-bit NF4 (bf16 compute/storage", NULL, "train.base_weights = nf4-dq"},
        {"NF4", NULL, "train.base_weights = nf4"},
        {"GPTQ int4", NULL, "train.base_weights = int4"},
        {"modules_to_save=['wte','lm_head']", NULL, "train.train_embeddings = true"},
        /* offloading */
        {"fsdp_offload_params=false", NULL,
         "parallel.offload_params = none; parallel.offload_optimizer = none"},
        {"with FSDP CPU offload", NULL,
         "parallel.offload_params = cpu; parallel.offload_optimizer = cpu"},
        {"fsdp_offload_params=true", NULL,
         "parallel.offload_params = cpu; parallel.offload_optimizer = cpu"},
        {"offload_parameters and offload_optimizer", NULL, "parallel.offload_params = cpu"},
        {"placement_policy auto", NULL, "parallel.offload_params = cpu"},
        {"--opt_gpu_margin_rat 0.9", NULL, "framework.offload_fill = 0.9"},
        /* TRL's SFTTrainer (the HF Trainer) returns the loss, not the outputs */
        {"SFTTrainer", NULL, "framework.holds_outputs = false"},
        /* the model code's loss: GPT-2 and Qwen do not upcast the logits */
        {"HF GPT2", NULL, "framework.loss = shift"},
        {"Qwen-", NULL, "framework.loss = shift"},
};

/* Whether row r is one of v[0 .. n-1]. */
static bool in_chain(const size_t *v, int n, size_t r)
{
	for (int i = 0; i < n; i++)
		if (v[i] == r)
			return true;
	return false;
}

/* The row a row's note says it is as: "As the previous row" the row
 * before it, "As MA10" the row of that id; -1 where its note says neither
 * or names no row of the file. */
static long as_row(const cases_csv *c, size_t row)
{
	const char *note = get(c, row, "note");
	const char *asid = strstr(note, "As M");
	if (strstr(note, "As the previous row"))
		return row > 0 ? (long)row - 1 : -1;
	if (!asid)
		return -1;
	char id[16];
	snprintf(id, sizeof id, "%.*s", (int)strcspn(asid + 3, " ,;"), asid + 3);
	for (size_t i = 0; i < cases_csv_rows(c); i++)
		if (!strcmp(get(c, i, "id"), id))
			return (long)i;
	return -1;
}

/* Keys the note rules set, one line each; a later rule for a key already
 * set (in `seen`, ";key;key;") is ignored, as is a rule whose `set` is empty. */
static void note_keys(const char *note, sim_buf *sect[4], char *seen, size_t seen_len)
{
	static const char *const names[4] = {"model.", "parallel.", "train.", "framework."};
	for (size_t i = 0; i < sizeof note_rules / sizeof note_rules[0]; i++) {
		if (!strstr(note, note_rules[i].phrase) ||
		    (note_rules[i].unless && strstr(note, note_rules[i].unless)))
			continue;
		for (const char *p = note_rules[i].set; *p;) {
			size_t n = strcspn(p, ";");
			char kv[128], key[64];
			snprintf(kv, sizeof kv, "%.*s", (int)n, p);
			p += n;
			while (*p == ';' || *p == ' ')
				p++;
			size_t k = strcspn(kv, " =");
			snprintf(key, sizeof key, ";%.*s;", (int)k, kv);
			if (strstr(seen, key))
				continue;
			if (strlen(seen) + strlen(key) < seen_len)
				strcat(seen, key + 1);
			for (int s = 0; s < 4; s++)
				if (!strncmp(kv, names[s], strlen(names[s])))
					sim_buf_printf(sect[s], "%s\n", kv + strlen(names[s]));
		}
	}
}

/* The row's framework profile: a stacks.csv row for its source and
 * framework, else a profile named by the framework column (its text before
 * " (+"), else the profile the column's name stands for
 * (valid_framework_profile: "Nanotron", "PyTorch FSDP"; *how says how, else
 * ""), else the default. The name is written to name[len] (returned). */
static const char *row_profile(const cases_csv *c, size_t row, const valid_options *opt,
                               const valid_stack **st, const char **how, char *name, size_t len)
{
	const char *fw = get(c, row, "framework"), *src = get(c, row, "source");
	int named = *get(c, row, "zero") ? -1 : valid_zero_named(fw);
	valid_ran ran = {named >= 0 ? named : atoi(get(c, row, "zero")), atoi(get(c, row, "tp"))};
	*how = "";
	*st = opt->stacks ? valid_stack_find_fw(opt->stacks, src, fw, ran) : NULL;
	if (*st && *(*st)->match)
		return (*st)->profile;
	size_t n = strcspn(fw, " (+");
	snprintf(name, len, "%.*s", (int)(n < 63 ? n : 63), fw);
	const valid_stack *fst = NULL;
	char res[64];
	const char *h = *name ? valid_framework_profile(opt, name, src, ran, res, sizeof res, &fst)
	                      : NULL;
	if (h && !strcmp(h, "its profile"))
		return name;
	h = *fw ? valid_framework_profile(opt, fw, src, ran, res, sizeof res, &fst) : NULL;
	if (h) {
		if (fst)
			*st = fst;
		*how = h;
		snprintf(name, len, "%s", res);
	} else if (*fw) { /* no profile and no stack names it: as runs.c's valid_row_stack */
		*how = *st ? "no profile or stacks.csv row names it: the stack its source gives"
		           : "no profile or stacks.csv row names it: the documented default";
		snprintf(name, len, "%s", *st ? (*st)->profile : "megatron-core");
	}
	return *name && !strchr(name, '/') ? name : "megatron-core";
}

/* The architecture columns a row may leave open. */
static const char *const arch_cols[] = {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab"};

/* The name without its '-' separators ("llama-2-7b" -> "llama27b"). */
static void squeeze(const char *in, char *out, size_t len)
{
	size_t n = 0;
	for (; *in && n + 1 < len; in++)
		if (*in != '-')
			out[n++] = *in;
	out[n] = 0;
}

/* A model name as hubs publish it, to the architecture's: the organisation's
 * prefix ("meta-llama-3-70b") and the release tags that leave the
 * architecture as it is ("-hf" weights, "-instruct" and "-chat" fine-tunes,
 * "-base") dropped, in place. */
static void strip_release_tags(char *name)
{
	static const char *const prefix[] = {"meta-"};
	static const char *const tag[] = {"-hf", "-instruct", "-chat", "-base"};
	for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++) {
		size_t k = strlen(prefix[i]);
		if (!strncmp(name, prefix[i], k) && name[k])
			memmove(name, name + k, strlen(name + k) + 1);
	}
	for (bool cut = true; cut;) {
		cut = false;
		size_t n = strlen(name);
		for (size_t i = 0; i < sizeof tag / sizeof tag[0]; i++) {
			size_t k = strlen(tag[i]);
			if (n > k && !strcmp(name + n - k, tag[i])) {
				name[n - k] = 0;
				cut = true;
				break;
			}
		}
	}
}

/* Whether models/<base>.ini's own `aliases = ...` line (comma-separated,
 * written as sources write the names) holds `want` (a squeezed name as
 * model_file_loose makes it), each alias lower-cased with spaces as '-',
 * its release tags dropped and squeezed alike. */
static bool alias_of(const char *dir, const char *base, const char *want)
{
	char path[1200], *text = NULL;
	size_t len;
	snprintf(path, sizeof path, "%s/%s.ini", dir, base);
	if (sim_input_read(path, 1 << 16, &text, &len, NULL) != 0)
		return false;
	const char *k = strstr(text, "\naliases = ");
	bool hit = false;
	for (const char *p = k ? k + 11 : ""; *p && *p != '\n' && *p != '\r' && !hit;) {
		size_t n = strcspn(p, ",\r\n");
		char one[64] = "", sq[64];
		size_t m = 0;
		for (size_t i = 0; i < n && m + 1 < sizeof one; i++)
			if (m || p[i] != ' ')
				one[m++] = p[i] == ' ' ? '-' : (char)tolower((unsigned char)p[i]);
		while (m && one[m - 1] == '-')
			m--;
		one[m] = 0;
		strip_release_tags(one);
		squeeze(one, sq, sizeof sq);
		hit = *sq && !strcmp(sq, want);
		p += n + (p[n] == ',');
	}
	free(text);
	return hit;
}

/* The model file whose name, or one of its aliases (alias_of), equals
 * `name` but for '-' separators: a source's "Llama 2 7B" is
 * models/llama2-7b.ini, "Llama 3.2 1B" llama3.2-1b.ini, "MT-NLG 530B"
 * megatron-529.6b.ini. On a match (the least such file name, so the choice does
 * not depend on the directory's order) name gets the file's base name. */
static bool model_file_loose(const char *datadir, char *name, size_t nlen)
{
	char dir[1024], want[64], best[64] = "";
	snprintf(dir, sizeof dir, "%s/models", datadir ? datadir : ".");
	squeeze(name, want, sizeof want);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		char base[64], sq[64];
		if (n < 5 || n - 4 >= sizeof base || strcmp(e->d_name + n - 4, ".ini"))
			continue;
		snprintf(base, sizeof base, "%.*s", (int)(n - 4), e->d_name);
		squeeze(base, sq, sizeof sq);
		if ((!strcmp(sq, want) || alias_of(dir, base, want)) &&
		    (!*best || strcmp(base, best) < 0))
			snprintf(best, sizeof best, "%s", base);
	}
	closedir(d);
	if (!*best || strlen(best) >= nlen)
		return false;
	snprintf(name, nlen, "%s", best);
	return true;
}

/* A row leaving an architecture column open takes it from the model's file,
 * models/<name>.ini, <name> the row's model column lower-cased with spaces as
 * '-' ("Qwen-14B" -> qwen-14b), its hub prefix and release tags dropped
 * (strip_release_tags: "Meta-Llama-3-70B-Instruct" -> llama-3-70b, then
 * llama3-70b by model_file_loose): its cited config (the file's source key),
 * printed as an assumption. True when the file exists; *src gets its source. */
static bool model_file_exact(const char *m, const char *datadir, char *name, size_t nlen,
                             char *src, size_t slen)
{
	size_t n = 0;
	for (; *m && n + 1 < nlen; m++) {
		unsigned char ch = (unsigned char)*m;
		if (!isalnum(ch) && ch != '.' && ch != '-' && ch != ' ')
			return false;
		name[n++] = ch == ' ' ? '-' : (char)tolower(ch);
	}
	name[n] = 0;
	if (!n || *m)
		return false;
	strip_release_tags(name);
	char path[1024], *text = NULL;
	size_t len;
	snprintf(path, sizeof path, "%s/models/%s.ini", datadir ? datadir : ".", name);
	if (sim_input_read(path, 1 << 16, &text, &len, NULL) != 0) {
		if (!model_file_loose(datadir, name, nlen))
			return false;
		snprintf(path, sizeof path, "%s/models/%s.ini", datadir ? datadir : ".", name);
		if (sim_input_read(path, 1 << 16, &text, &len, NULL) != 0)
			return false;
	}
	*src = 0;
	const char *k = strstr(text, "\nsource = ");
	if (k) {
		k += 10;
		snprintf(src, slen, "%.*s", (int)strcspn(k, "\r\n"), k);
	}
	free(text);
	return true;
}

/* A name with remarks around the model's: a hub path's last part
 * ("meta-llama/Llama-2-7b-hf"), its brackets dropped and their words kept
 * ("GPT 3.6B (vTrain)" is models/gpt-3.6b-vtrain.ini), then without
 * trailing words while a digit (the size, the version) is left
 * ("DeepSeekV3 dropless (25.09)" is DeepSeekV3, models/deepseek-v3.ini;
 * "GPT-OSS-120B (26.02)" gpt-oss-120b.ini). Each try is an exact one
 * (model_file_exact), so a remark never matches a file a shorter name
 * would not. */
bool valid_model_file(const char *m, const char *datadir, char *name, size_t nlen, char *src,
                      size_t slen)
{
	if (model_file_exact(m, datadir, name, nlen, src, slen))
		return true;
	const char *slash = strrchr(m, '/');
	char t[128];
	size_t n = 0;
	for (const char *p = slash ? slash + 1 : m; *p && n + 1 < sizeof t; p++) {
		char ch = strchr("()[],;", *p) ? ' ' : *p;
		if (!(ch == ' ' && (!n || t[n - 1] == ' ')))
			t[n++] = ch;
	}
	while (n && t[n - 1] == ' ')
		n--;
	t[n] = 0;
	/* a remark's word that no file name holds ("~0.35B", "GPT-3's") is
	 * dropped, the words around it kept: "GPT h1024 l24 (~0.35B; vTrain
	 * single-node)" is models/gpt-h1024-l24-vtrain.ini */
	char kept[128] = "";
	for (const char *w = t; *w;) { /* its words (no strtok: rows run on threads) */
		size_t wn = strcspn(w, " ");
		bool plain = wn > 0;
		for (size_t q = 0; q < wn; q++)
			plain = plain && (isalnum((unsigned char)w[q]) || w[q] == '.' || w[q] == '-');
		if (plain)
			snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%.*s",
			         *kept ? " " : "", (int)wn, w);
		w += wn + (w[wn] == ' ');
	}
	snprintf(t, sizeof t, "%s", kept);
	for (;;) {
		if (strcmp(t, m) && strpbrk(t, "0123456789") &&
		    model_file_exact(t, datadir, name, nlen, src, slen))
			return true;
		char *sp = strrchr(t, ' ');
		if (!sp)
			return false;
		*sp = 0;
	}
}

/* Tied or untied embeddings from the row's params_b, where the columns and
 * the notes leave it open: the two counts differ by exactly the output
 * layer, V h, so the nearer one is the model's when params_b is precise
 * enough to tell (half a unit of its last digit under V h / 2) and agrees
 * with the dimensions (the nearer count within 3 %). The count:
 *   l (2 h^2 + 2 h g d + (3 or 2) h f + 2 h) + V h (tied) [+ V h untied],
 * with d = h / a and g the K/V heads; biases and the final norm are left
 * out (under 0.1 % of any row's count). 1 untied, 0 tied, -1 open. On the
 * visible rows (memory.csv) it agrees with every note and model file that
 * says which (GPT-2's and Llama 3.2's tied, Llama 2's, Qwen's, Mistral's,
 * Yi's and phi-1.5's untied), each nearer count within 1 %. */
static int untied_from_params(const cases_csv *c, size_t row, double *tied_b, double *untied_b)
{
	const char *pb = get(c, row, "params_b");
	double p = atof(pb) * 1e9, l = atof(get(c, row, "layers")), h = atof(get(c, row, "hidden")),
	       a = atof(get(c, row, "heads")), f = atof(get(c, row, "ffn")),
	       V = atof(get(c, row, "vocab"));
	double g = *get(c, row, "kv_heads") ? atof(get(c, row, "kv_heads")) : a;
	if (!(p > 0 && l > 0 && h > 0 && a > 0 && f > 0 && V > 0))
		return -1;
	const char *dot = strchr(pb, '.');
	double unit = pow(10.0, -(double)(dot ? strspn(dot + 1, "0123456789") : 0)) * 1e9;
	double per = 2 * h * h + 2 * h * g * (h / a) + (f != 4 * h ? 3 : 2) * h * f + 2 * h;
	double tied = l * per + V * h, untied = tied + V * h;
	*tied_b = tied / 1e9;
	*untied_b = untied / 1e9;
	bool un = fabs(untied - p) < fabs(tied - p);
	if (unit / 2 >= V * h / 2 || fabs((un ? untied : tied) - p) > 0.03 * p)
		return -1;
	return un;
}

/* The plan keys' defaults an open column of a memory row takes, said (an
 * open ZeRO stage where the [parallel] keys are written: valid_open_zero;
 * a recomputation the row's text names fills its cell before,
 * valid_recompute_named). */
static void mem_open_assumed(const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	if (!*get(c, row, "recompute"))
		valid_assume(assumed, alen, "recompute none (not published)");
	const char *fa = get(c, row, "flash_attention");
	if (strcmp(fa, "yes") && strcmp(fa, "no"))
		valid_assume(assumed, alen, "flash attention (%s)", *fa ? fa : "not published");
}

/* A memory row's ZeRO stage: its zero cell, else the stage its framework
 * column names ("DeepSpeed ZeRO-3"), else beside a CPU optimizer
 * ZeRO-Offload's (2; 3 where the note's rules offload the parameters too,
 * popt the note's [parallel] keys), else the framework's default; then a
 * hybrid sharding the zero cell or the framework column names; each said. */
static void mem_zero(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                     const char *profile, long pp, long dp, long cp, long gpus, const char *popt,
                     char *assumed, size_t alen)
{
	if (*get(c, row, "zero"))
		sim_buf_printf(b, "zero = %s\n", get(c, row, "zero"));
	else if (valid_zero_named(get(c, row, "framework")) >= 0) {
		/* the stage the framework column names ("DeepSpeed ZeRO-3") */
		int z = valid_zero_named(get(c, row, "framework"));
		sim_buf_printf(b, "zero = %d\n", z);
		valid_assume(assumed, alen, "zero %d (not published: the framework column '%s' names it)",
		             z, get(c, row, "framework"));
	} else if (!strcmp(get(c, row, "optimizer"), "adam-cpu") &&
	           valid_open_zero_stage(opt, profile, pp, dp * cp) < 1) {
		/* a CPU optimizer under an open stage: ZeRO-Offload's, whose
		 * tutorial runs stage 2 (as the training reader, runs.c); with the
		 * parameters offloaded too (the note's rules) stage 3, the only
		 * one that streams partitioned parameters (plan/check.c) */
		bool params = popt && strstr(popt, "offload_params");
		sim_buf_printf(b, "zero = %d\n", params ? 3 : 2);
		valid_assume(assumed, alen,
		             params ? "zero 3 (not published: the stage that offloads parameters)"
		                    : "zero 2 (not published: DeepSpeed's stage for offload to cpu)");
	} else /* the framework's default stage (FSDP's FULL_SHARD), said */
		valid_open_zero(b, opt, profile, pp, dp * cp, assumed, alen);
	/* hybrid sharding named in the zero cell or the framework column */
	valid_shard_node(b,
	                 valid_hybrid_shard_text(cases_csv_written(c, row, cases_csv_col(c, "zero")))
	                         ? cases_csv_written(c, row, cases_csv_col(c, "zero"))
	                         : get(c, row, "framework"),
	                 gpus < 8 ? gpus : 8, dp * cp, assumed, alen);
}

/* A memory row's optimizer column (loose.c's readings) as its [train]
 * optimizer key, with what an optimizer the schema does not name keeps,
 * said. */
static void mem_optimizer(sim_buf *b, const char *o, char *assumed, size_t alen)
{
	/* the optimizer column's readings (loose.c) as [train] optimizer keys,
	 * with what an optimizer the schema does not name keeps */
	static const struct {
		const char *name, *key, *said;
	} optims[] = {
	        {"adam", NULL, NULL},
	        {"adamw", NULL, NULL},
	        {"adam-cpu", NULL, NULL},
	        {"adam8bit", "adam-8bit", NULL},
	        {"paged-adamw", "paged-adam", NULL},
	        {"paged-adam8bit", "paged-adam-8bit", NULL},
	        {"sgd", "sgd-momentum", NULL}, /* torch.optim.SGD, its momentum buffer */
	        {"adafactor", "adafactor", NULL},
	        /* Lion (Chen et al. 2023): one moment per parameter */
	        {"lion", "sgd-momentum", "optimizer lion: one moment per parameter, as SGD's momentum"},
	        /* LAMB (You et al. 2020): Adam's two moments */
	        {"lamb", NULL, "optimizer lamb: Adam's two moments"},
	};
	size_t oi = 0, no = sizeof optims / sizeof optims[0];
	while (oi < no && strcmp(o, optims[oi].name))
		oi++;
	if (oi < no && optims[oi].key)
		sim_buf_printf(b, "optimizer = %s\n", optims[oi].key);
	if (oi < no && optims[oi].said)
		valid_assume(assumed, alen, "%s", optims[oi].said);
	else if (oi == no && *o)
		valid_assume(assumed, alen, "optimizer '%.24s' not modelled: Adam's states", o);
}

/* The layer kind of a memory row without a model file, from its columns (a
 * SwiGLU ffn is not 4 h): activation and biases, the norm and the
 * embeddings where the note's [model] rules `ms` do not set them (tied or
 * untied by params_b where it tells, else nanotron's benchmark rule, else
 * the kind's), said. */
static void mem_layer_kind(sim_buf *b, const cases_csv *c, size_t row, const char *ms,
                           const char *profile, bool swiglu, long ffn, char *assumed, size_t alen)
{
	sim_buf_printf(b, "activation = %s\nbias = %s\n", swiglu ? "swiglu" : "gelu",
	               swiglu ? "false" : "true");
	if (!strstr(ms, "norm ="))
		sim_buf_printf(b, "norm = %s\n", swiglu ? "rmsnorm" : "layernorm");
	if (!strstr(ms, "untied_embeddings")) {
		double tb = 0, ub = 0;
		int un = untied_from_params(c, row, &tb, &ub);
		if (un >= 0 && un != swiglu)
			valid_assume(assumed, alen,
			             "%s embeddings: params_b %s is nearer the %s count "
			             "%.4g B than the %s %.4g B",
			             un ? "untied" : "tied", get(c, row, "params_b"),
			             un ? "untied" : "tied", un ? ub : tb, un ? "tied" : "untied",
			             un ? tb : ub);
		/* params_b silent: nanotron's scaling benchmark's rule */
		if (un < 0 && valid_nanotron_tied(profile, swiglu, ffn, assumed, alen))
			un = 0;
		sim_buf_printf(b, "untied_embeddings = %s\n",
		               (un >= 0 ? un : swiglu) ? "true" : "false");
	}
}

/* The interleaving depth a note states ("(2 chunks per rank)"), at least
 * 1; 0 where it states none. */
static long note_chunks(const char *note)
{
	const char *q = strstr(note, "chunks per rank)");
	if (!q)
		return 0;
	while (q > note && q[-1] != '(')
		q--;
	return atol(q) > 0 ? atol(q) : 1;
}

/* The row's note rules into sp (valid_memory_text's [model], [parallel],
 * [train] and [framework] keys): a note that reads "As the previous row"
 * or "As MA10" inherits that row's rules for the keys its own do not set,
 * and that row's from the row its note names, and so on, each row of the
 * chain once (one that comes back stops there), said. Returns the
 * interleaving depth the row's note states, else the chain's first, else 1. */
static long mem_note_rules(const cases_csv *c, size_t row, sim_buf *sp[4], char *assumed,
                           size_t alen)
{
	long own = note_chunks(get(c, row, "note")), vpp = own ? own : 1;
	char seen[1024] = ";";
	note_keys(get(c, row, "note"), sp, seen, sizeof seen);
	size_t chain[16] = {row}; /* chain[0] the row itself */
	long base;
	for (int hops = 1; hops < 16 && (base = as_row(c, chain[hops - 1])) >= 0 &&
	                   !in_chain(chain, hops, (size_t)base);
	     hops++) {
		chain[hops] = (size_t)base;
		const char *bn = get(c, (size_t)base, "note");
		note_keys(bn, sp, seen, sizeof seen);
		long v = note_chunks(bn);
		if (vpp == 1 && v)
			vpp = v;
		valid_assume(assumed, alen, "what the note leaves out as row %s",
		             get(c, (size_t)base, "id"));
	}
	return vpp;
}

/* A memory row's GPU file and node: its gpu column (or the GPU its note,
 * source or model names) as gpu_map lists it, else the GPU file a loose
 * name stands for, in that file's entry's node or the node training rows
 * run it on, each said; NULL, or why the row has none. */
static const char *mem_hardware(const cases_csv *c, size_t row, const char **file_out,
                                const char **node_out, char *assumed, size_t alen)
{
	const char *gpu = get(c, row, "gpu");
	valid_loose_assume(c, row, assumed, alen);
	if (!*gpu) { /* the GPU the row's note, source or model names */
		char said[240];
		if (!(gpu = valid_gpu_named(c, row, said, sizeof said)))
			return "gpu missing (no note, source or model names one, or several)";
		valid_assume(assumed, alen, "%s", said);
	}
	size_t gi = sizeof gpu_map / sizeof gpu_map[0];
	for (size_t i = 0; i < sizeof gpu_map / sizeof gpu_map[0]; i++)
		if (!strcmp(gpu, gpu_map[i].name))
			gi = i;
	/* a name as sources write it ("A100 80GB", "RTX 4090"): the GPU file it
	 * stands for (valid_gpu_alias), said, in that file's entry's node, or
	 * in the node training rows run it on (valid_default_node: an RTX 4090
	 * in the 4-card Gen4 box, a GH200 on an HGX H200 board) */
	const char *loose = NULL, *file = NULL, *node = NULL;
	if (gi < sizeof gpu_map / sizeof gpu_map[0]) {
		file = gpu_map[gi].file;
		node = gpu_map[gi].node;
	} else if ((file = valid_gpu_alias(gpu, &loose))) {
		/* a loose name, or a GPU file's own ("l40s", "a40", "t4") */
		for (size_t i = 0; i < sizeof gpu_map / sizeof gpu_map[0]; i++)
			if (!strcmp(file, gpu_map[i].name))
				gi = i;
		node = gi < sizeof gpu_map / sizeof gpu_map[0] ? gpu_map[gi].node
		                                               : valid_default_node(file);
	}
	if (!node)
		return "no GPU file for this gpu";
	if (loose)
		valid_assume(assumed, alen, "%s", loose);
	if (gi == sizeof gpu_map / sizeof gpu_map[0])
		valid_assume(assumed, alen, "node %s (not stated: the one training rows run %s on)",
		             node, file);
	if (gi < sizeof gpu_map / sizeof gpu_map[0] && gpu_map[gi].assumed)
		valid_assume(assumed, alen, "%s", gpu_map[gi].assumed);
	*file_out = file;
	*node_out = node;
	return NULL;
}

/* A memory row's parallel degrees, d4 = {tp, pp, dp, cp} as written (0
 * where open; cp 1): an open tp or pp the degree that fills the GPUs beside
 * the other and dp, else 1; an open cp beside tp, pp and dp that leave GPUs
 * over the one that fills them; an open dp the one that fills the GPUs;
 * each said. */
static void mem_degrees(const cases_csv *c, size_t row, long gpus, long d4[4], char *assumed,
                        size_t alen)
{
	long tp = d4[0], pp = d4[1], dp = d4[2], cp = d4[3];
	/* an open tp or pp: the degree that fills the GPUs beside the other
	 * and dp, else 1, the plan keys' default (the training reader's) */
	static const char *const deg[] = {"tp", "pp"};
	long *dv[] = {&tp, &pp};
	for (int i = 0; i < 2; i++) {
		if (*get(c, row, deg[i]))
			continue;
		long other = *dv[1 - i], d = other > 0 && dp > 0 && cp > 0 && gpus > 0 &&
		                                     gpus % (other * dp * cp) == 0
		                                 ? gpus / (other * dp * cp)
		                                 : 0;
		*dv[i] = d > 0 ? d : 1;
		if (d > 0)
			valid_assume(assumed, alen, "%s %ld (not published: gpus / (%s dp cp))", deg[i], d,
			             deg[1 - i]);
		else
			valid_assume(assumed, alen, "%s 1 (not published)", deg[i]);
	}
	/* an open cp beside given tp, pp and dp that leave GPUs over: the
	 * context-parallel degree that fills them (the only reading of the row
	 * that runs: Megatron derives dp from the other three, so a dp the
	 * source gives is what is left after cp), said */
	if (!*get(c, row, "cp") && *get(c, row, "tp") && *get(c, row, "pp") && *get(c, row, "dp") &&
	    tp > 0 && pp > 0 && dp > 0 && gpus > tp * pp * dp && gpus % (tp * pp * dp) == 0) {
		cp = gpus / (tp * pp * dp);
		valid_assume(assumed, alen, "cp %ld (not published: gpus / (tp pp dp))", cp);
	}
	/* an open dp: the degree that fills the GPUs (tp pp dp cp = gpus) */
	if (!*get(c, row, "dp") && tp > 0 && pp > 0 && cp > 0 && gpus % (tp * pp * cp) == 0) {
		dp = gpus / (tp * pp * cp);
		valid_assume(assumed, alen, "dp %ld (not published: gpus / (tp pp cp))", dp);
	}
	d4[0] = tp;
	d4[1] = pp;
	d4[2] = dp;
	d4[3] = cp;
}

/* What a memory row's shape takes from where: its model's file (mname)
 * for the columns it and its recipe leave open, or the GPT layer's
 * documented defaults for an open head count or vocabulary. */
typedef struct {
	char mname[64];
	bool from_file, def_heads, def_vocab, swiglu;
} mem_shape;

/* The open architecture columns: the source's recipe line
 * (valid_row_recipe: a benchmark's model by its name or shape), else the
 * model's file, or the row is skipped (why, returned). Without a model file,
 * the columns a GPT-style layer's documented defaults stand for (the
 * training reader's: heads 128 wide, multi-head attention, ffn 4 h, GPT-2's
 * or Llama 2's vocabulary), each said; the layers and the width are no
 * default's. */
static const char *mem_open_arch(const cases_csv *c, size_t row, const valid_options *opt,
                                 const valid_recipe *rec, mem_shape *sh, char *assumed,
                                 size_t alen)
{
	char open_cols[64] = "", msrc[200] = "", rv[32];
	for (size_t i = 0; i < sizeof arch_cols / sizeof arch_cols[0]; i++)
		if (!*valid_arch_value(c, row, rec, arch_cols[i], rv, sizeof rv))
			snprintf(open_cols + strlen(open_cols),
			         sizeof open_cols - strlen(open_cols), "%s%s",
			         *open_cols ? ", " : "", arch_cols[i]);
	sh->from_file = *open_cols != 0;
	if (sh->from_file && !valid_model_file(get(c, row, "model"), opt->datadir, sh->mname,
	                                       sizeof sh->mname, msrc, sizeof msrc)) {
		if (!*valid_arch_value(c, row, rec, "layers", rv, sizeof rv) ||
		    !*valid_arch_value(c, row, rec, "hidden", rv, sizeof rv)) {
			valid_assume(assumed, alen, "not given: %s", open_cols);
			return "architecture columns not given and no models/<model>.ini (a "
			       "memory row's layers and width are not guessed)";
		}
		sh->from_file = false;
		sh->def_heads = !*valid_arch_value(c, row, rec, "heads", rv, sizeof rv);
		sh->def_vocab = !*valid_arch_value(c, row, rec, "vocab", rv, sizeof rv);
	} else if (sh->from_file)
		valid_assume(assumed, alen, "%s from models/%s.ini (%s)", open_cols, sh->mname,
		             *msrc ? msrc : "no source given");
	return NULL;
}

/* The row's global batch: its column, the note's "minibatch N" per device,
 * else (open) one micro-batch per replica without a pipeline; with one, pp
 * micro-batches, the fewest that fill a 1F1B pipeline (the stage s holds
 * min(m, pp - s) micro-batches' activations, so more do not raise the
 * peak) and that every framework's 1F1B runs (nanotron asserts m >= pp - 1,
 * nanotron.ini); each default said. */
static long mem_global_batch(const cases_csv *c, size_t row, long mb, long dp, long pp,
                             char *assumed, size_t alen)
{
	long gb = *get(c, row, "global_batch") ? atol(get(c, row, "global_batch")) : 0;
	const char *mbs = strstr(get(c, row, "note"), "minibatch ");
	if (gb == 0 && mbs && atol(mbs + 10) > 0) {
		gb = atol(mbs + 10) * dp;
		valid_assume(assumed, alen, "global batch %ld (the note's minibatch per device)",
		             gb);
	}
	if (gb == 0) {
		gb = mb * dp * pp;
		if (pp > 1)
			valid_assume(assumed, alen,
			             "global batch %ld (not published: pp = %ld micro-batches per "
			             "replica fill the pipeline)",
			             gb, pp);
	}
	return gb;
}

/* An open sequence: the model file's, else its family's context (the
 * training reader's, valid_open_seq_len), said. */
static void mem_open_seq(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                         const valid_recipe *rec, bool swiglu, char *assumed, size_t alen)
{
	char sq[32] = "";
	bool open_seq = !*valid_arch_value(c, row, rec, "seq_len", sq, sizeof sq);
	if (open_seq &&
	    !*valid_model_file_key(opt->datadir, get(c, row, "model"), "seq_len", sq, sizeof sq)) {
		const char *why;
		long seq = valid_open_seq_len(get(c, row, "model"), swiglu, &why);
		sim_buf_printf(b, "seq_len = %ld\n", seq);
		valid_assume(assumed, alen, "seq_len %ld (not published: %s)", seq, why);
	} else if (open_seq) {
		sim_buf_printf(b, "seq_len = %s\n", sq);
		valid_assume(assumed, alen, "seq_len %s (not published: the model file's)", sq);
	}
}

/* An open micro-batch: 1, the plan key's default; under torchtune's
 * optimizer_in_backward (the note's rules, `train`: their [train] keys),
 * which steps every parameter in its backward and so cannot accumulate, a
 * replica's whole batch; said. */
static long mem_open_mb(const char *train, long mb, long gb, long pp, long dp, char *assumed,
                        size_t alen)
{
	bool inbwd = train && strstr(train, "optimizer_in_backward = true");
	if (inbwd && pp == 1 && dp > 0 && gb % dp == 0 && gb / dp > 1) {
		valid_assume(assumed, alen,
		             "micro_batch %ld (not published: optimizer_in_backward cannot "
		             "accumulate, so a replica's batch is one micro-batch)",
		             gb / dp);
		return gb / dp;
	}
	valid_assume(assumed, alen, "micro_batch 1 (not published)");
	return mb;
}

/* The row's [train] section: the precision as the schema names it (open:
 * the GPU's default), attention, the optimizer `o`, the adapters of a
 * LoRA row, the note's rules' keys (`rules`) and the recipe's. */
static void mem_train(sim_buf *b, const cases_csv *c, size_t row, const valid_recipe *rec,
                      const char *file, const char *o, const char *rules, char *assumed,
                      size_t alen)
{
	size_t trn = b->len;
	const char *pc = get(c, row, "precision");
	if (!*pc) {
		pc = valid_default_precision(file);
		valid_assume(assumed, alen, "precision %s (not published)", pc);
	}
	sim_buf_printf(b, "[train]\nprecision = %s\nattention = %s\n", pc,
	               !strcmp(get(c, row, "flash_attention"), "no") ? "unfused" : "flash");
	mem_optimizer(b, o, assumed, alen);
	/* an open trainable set beside a LoRA rank: the adapters */
	bool lora = !strcmp(get(c, row, "trainable"), "lora") ||
	            (!*get(c, row, "trainable") && atol(get(c, row, "lora_rank")) > 0);
	if (lora && !*get(c, row, "trainable"))
		valid_assume(assumed, alen, "trainable lora (not published: lora_rank %s)",
		             get(c, row, "lora_rank"));
	if (lora) {
		long r = atol(get(c, row, "lora_rank"));
		sim_buf_printf(b, "lora_rank = %ld\n", r > 0 ? r : 8);
		if (r <= 0) /* PEFT's LoraConfig r (huggingface/peft 5d602fdbf
			     * src/peft/tuners/lora/config.py:613) */
			valid_assume(assumed, alen, "lora_rank 8 (not published: PEFT's default)");
	}
	sim_buf_printf(b, "%s", rules ? rules : "");
	valid_put_recipe(b, trn, rec, "train.", assumed, alen);
}

/* The row's [model] section: its columns, an open sequence, head count and
 * vocabulary (sh: from its file or the documented defaults), the layer's
 * kind, the note's rules' [model] keys (ms) and the recipe's model.* keys. */
static void mem_model(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                      const valid_recipe *rec, const mem_shape *sh, const char *profile,
                      const char *ms, char *assumed, size_t alen)
{
	char rv[32];
	long hidden = atol(valid_arch_value(c, row, rec, "hidden", rv, sizeof rv));
	long ffn = atol(valid_arch_value(c, row, rec, "ffn", rv, sizeof rv));
	long vocab = atol(valid_arch_value(c, row, rec, "vocab", rv, sizeof rv));
	size_t mod = b->len; /* the [model] section's keys follow: valid_put_recipe */
	sim_buf_printf(b, "[scenario]\nname = %s\n[model]\nname = %s\n", get(c, row, "id"),
	               get(c, row, "id"));
	static const char *const dims[] = {"layers",   "hidden", "heads",
	                                   "kv_heads", "ffn",    "seq_len"};
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		if (*get(c, row, dims[i]))
			sim_buf_printf(b, "%s = %s\n", dims[i], get(c, row, dims[i]));
	mem_open_seq(b, c, row, opt, rec, sh->swiglu, assumed, alen);
	if (*get(c, row, "vocab"))
		sim_buf_printf(b, "vocab = %ld\n", vocab);
	if (sh->def_heads)
		valid_open_heads(b, hidden, atol(get(c, row, "kv_heads")), assumed, alen);
	if (!sh->from_file)
		valid_open_shape_said(!*valid_arch_value(c, row, rec, "kv_heads", rv, sizeof rv), !ffn,
		                      assumed, alen);
	if (sh->def_vocab)
		valid_open_vocab(b, sh->swiglu, assumed, alen);
	/* the shape's kind from the columns (a SwiGLU ffn is not 4h), or the file's */
	if (!sh->from_file)
		mem_layer_kind(b, c, row, ms ? ms : "", profile, sh->swiglu, ffn, assumed, alen);
	sim_buf_printf(b, "%s", ms ? ms : "");
	valid_put_recipe(b, mod, rec, "model.", assumed, alen);
}

/* The row's scenario text (includes under incdir); NULL, or why not. */
const char *valid_memory_text(const cases_csv *c, size_t row, const char *incdir,
                              const valid_options *opt, sim_buf *b, char *assumed, size_t alen,
                              int *stage)
{
	const char *file, *node;
	const char *hw = mem_hardware(c, row, &file, &node, assumed, alen);
	if (hw)
		return hw;
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	char rv[32];
	mem_shape sh = {.mname = ""};
	const char *no = mem_open_arch(c, row, opt, rec, &sh, assumed, alen);
	if (no)
		return no;
	long gpus = atol(get(c, row, "gpus"));
	long hidden = atol(valid_arch_value(c, row, rec, "hidden", rv, sizeof rv));
	long ffn = atol(valid_arch_value(c, row, rec, "ffn", rv, sizeof rv));
	long tp = atol(get(c, row, "tp"));
	long pp = atol(get(c, row, "pp")), dp = atol(get(c, row, "dp"));
	long mb = *get(c, row, "micro_batch") ? atol(get(c, row, "micro_batch")) : 1;
	long cp = *get(c, row, "cp") ? atol(get(c, row, "cp")) : 1;
	long d4[4] = {tp, pp, dp, cp};
	mem_degrees(c, row, gpus, d4, assumed, alen);
	tp = d4[0];
	pp = d4[1];
	dp = d4[2];
	cp = d4[3];
	mem_open_assumed(c, row, assumed, alen);
	if (gpus <= 0 || (hidden <= 0 && !sh.from_file) || tp <= 0 || pp <= 0 || dp <= 0 || mb <= 0 ||
	    cp <= 0)
		return "gpus, hidden, tp, pp, dp, cp or micro_batch missing";
	const char *note = get(c, row, "note");
	const valid_stack *st;
	const char *how;
	char pname[64];
	const char *profile = row_profile(c, row, opt, &st, &how, pname, sizeof pname);
	if (*how)
		valid_assume(assumed, alen, "framework '%s' as profile %s (%s)", get(c, row, "framework"),
		             profile, how);
	else
		valid_assume(assumed, alen, "framework %s%s", profile, st ? " (stacks.csv)" : "");
	valid_open_framework_said(c, row, opt, assumed, alen);
	sh.swiglu = valid_swiglu(get(c, row, "model"), profile, hidden, ffn, assumed, alen);
	/* the rank that measured it */
	*stage = strstr(note, "LAST rank") ? (int)pp - 1 : 0;
	long gb = mem_global_batch(c, row, mb, dp, pp, assumed, alen);
	sim_buf sect[4];
	sim_buf *sp[4] = {&sect[0], &sect[1], &sect[2], &sect[3]};
	for (int i = 0; i < 4; i++)
		sim_buf_init(&sect[i]);
	long vpp = mem_note_rules(c, row, sp, assumed, alen);
	sim_buf_printf(b,
	               "include = %stopologies/nodes/%s.ini\ninclude = %stopologies/gpus/%s.ini\n",
	               incdir, node, incdir, file);
	sim_buf_printf(b, "include = %stopologies/frameworks/%s.ini\n", incdir, profile);
	/* the model's file first: the row's own columns then override it */
	if (sh.from_file)
		sim_buf_printf(b, "include = %smodels/%s.ini\n", incdir, sh.mname);
	mem_model(b, c, row, opt, rec, &sh, profile, sect[0].data, assumed, alen);
	sim_buf_printf(b, "[node]\ngpus = %ld\n", gpus < 8 ? gpus : 8);
	sim_buf_printf(b, "[cluster]\nname = %s\nnodes = %ld\n", get(c, row, "id"),
	               gpus < 8 ? 1 : (gpus + 7) / 8);
	size_t par = b->len;
	if (!*get(c, row, "micro_batch"))
		mb = mem_open_mb(sect[2].data, mb, gb, pp, dp, assumed, alen);
	sim_buf_printf(b,
	               "[parallel]\ntp = %ld\npp = %ld\ndp = %ld\ncp = %ld\nmicro_batch = %ld\n"
	               "global_batch = %ld\n",
	               tp, pp, dp, cp, mb, gb);
	if (vpp > 1)
		sim_buf_printf(b, "vpp = %ld\n", vpp);
	mem_zero(b, c, row, opt, profile, pp, dp, cp, gpus, sect[1].data, assumed, alen);
	if (*get(c, row, "recompute"))
		sim_buf_printf(b, "recompute = %s\n", get(c, row, "recompute"));
	const char *o = get(c, row, "optimizer");
	if (!strcmp(o, "adam-cpu"))
		sim_buf_printf(b, "offload_optimizer = cpu\n");
	sim_buf_printf(b, "%s", sect[1].data ? sect[1].data : "");
	valid_put_recipe(b, par, rec, "", assumed, alen);
	sim_buf_printf(b, "[framework]\n%s", sect[3].data ? sect[3].data : "");
	mem_train(b, c, row, rec, file, o, sect[2].data, assumed, alen);
	bool oom = false;
	for (int i = 0; i < 4; i++) {
		oom = oom || sect[i].oom;
		sim_buf_free(&sect[i]);
	}
	return oom ? "out of memory" : NULL;
}

/* The counter a row's memory_kind names: the device's for nvidia-smi and
 * unknown, and for a label no reading knows, said (`assumed`). */
static double counter(const plan_mem_peak *p, const char *kind, const char **name,
                      char *assumed, size_t alen)
{
	if (!strcmp(kind, "allocated"))
		return *name = "allocated", p->allocated;
	if (!strcmp(kind, "reserved"))
		return *name = "reserved", p->reserved;
	if (!*kind)
		valid_assume(assumed, alen, "memory_kind open: unknown, the device's view");
	else if (strcmp(kind, "nvidia-smi") && strcmp(kind, "unknown"))
		valid_assume(assumed, alen,
		             "memory_kind '%.32s' not in the schema (allocated, reserved, "
		             "nvidia-smi, unknown, oom): read as unknown, the device's view",
		             kind);
	*name = "device";
	return p->device;
}

/* A memory row's labels: what it is, the rank group it is ranked in (its
 * model, GPUs and framework) and its source's group (the stack table's
 * label, else the source itself). */
static void mem_labels(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	snprintf(v->what, sizeof v->what, "%.32s %sx%s tp%s pp%s dp%s b%s", get(c, row, "model"),
	         get(c, row, "gpus"), get(c, row, "gpu"), get(c, row, "tp"), get(c, row, "pp"),
	         get(c, row, "dp"), get(c, row, "micro_batch"));
	snprintf(v->rank_key, sizeof v->rank_key, "%.60s|%s|%s", get(c, row, "model"),
	         get(c, row, "gpus"), get(c, row, "framework"));
	const valid_stack *st;
	const char *how;
	char pname[64];
	row_profile(c, row, opt, &st, &how, pname, sizeof pname);
	if (st && *st->label)
		snprintf(v->group, sizeof v->group, "%s", st->label);
	else
		valid_source_key(get(c, row, "source"), v->group, sizeof v->group);
}

/* The loaded row's prediction on stage `stage`: the counter its
 * memory_kind names (the framework's logged peak where it resets the
 * counters after the pipeline), or, for a run that ran out of memory, the
 * most loaded stage's need (allocated + runtime), which the verdict
 * compares with the capacity; the verdict, the error and the counter
 * said. */
static void mem_predicted(const cases_csv *c, size_t row, const plan_scenario *s, int stage,
                          valid_row *v)
{
	plan_mem_peak p;
	plan_memory_peak(s, stage, &p);
	const char *cn;
	plan_mem_fit f;
	plan_memory_fit(s, &f);
	snprintf(v->verdict, sizeof v->verdict, "%s", valid_verdict_name(f.verdict));
	if (v->oom_run) {
		stage = f.stage;
		v->predicted = f.needed / 1073741824.0;
		cn = "allocated + runtime";
	} else if (!strcmp(get(c, row, "memory_kind"), "allocated") &&
	           s->fw.logged_peak == PLAN_LOGGED_AFTER_PIPELINE) {
		/* the framework's log: the peak counters reset after the
		 * forward and backward ([framework] logged_peak) */
		v->predicted = plan_memory_after_pipeline(s, stage) / 1073741824.0;
		cn = "allocated after the pipeline (logged_peak)";
	} else
		v->predicted = counter(&p, get(c, row, "memory_kind"), &cn, v->assumed,
		                       sizeof v->assumed) / 1073741824.0;
	v->status = VALID_OK;
	v->error = v->oom_run ? NAN : (v->predicted - v->measured) / v->measured;
	valid_plan_assumptions(s, v->assumed, sizeof v->assumed);
	char ms[80];
	snprintf(ms, sizeof ms, "%s counter, stage %d", cn, stage);
	size_t n = strlen(v->assumed);
	if (n + 3 < sizeof v->assumed)
		snprintf(v->assumed + n, sizeof v->assumed - n, "%s%s", n ? "; " : "", ms);
}

void valid_memory_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	mem_labels(c, row, opt, v);
	v->measured = atof(get(c, row, "measured_peak_gib"));
	/* memory_kind oom marks a run that ran out of memory whatever number
	 * stands beside it (the memory in use when it failed, say): its verdict
	 * is what is compared, not the number */
	if (v->measured > 0 && !strcmp(valid_loose("memory_kind", get(c, row, "memory_kind")), "oom")) {
		valid_assume(v->assumed, sizeof v->assumed,
		             "measured_peak_gib %.6g beside memory_kind oom: a run that ran out of "
		             "memory, its number not compared",
		             v->measured);
		v->measured = 0;
	}
	v->oom_run = v->measured <= 0 && valid_oom_marked(c, row, "measured_peak_gib");
	if (v->measured <= 0 && !v->oom_run) {
		v->status = VALID_SKIPPED;
		snprintf(v->reason, sizeof v->reason,
		         "no measured_peak_gib (and no out-of-memory mark: memory_kind oom)");
		return;
	}
	sim_buf b;
	sim_buf_init(&b);
	int stage = 0;
	const char *why =
	        valid_memory_text(c, row, "", opt, &b, v->assumed, sizeof v->assumed, &stage);
	if (why || b.oom) {
		v->status = VALID_SKIPPED;
		snprintf(v->reason, sizeof v->reason, "%s", why ? why : "out of memory");
		sim_buf_free(&b);
		return;
	}
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	char name[64];
	snprintf(name, sizeof name, "<case %s>", v->id);
	int rc = plan_scenario_load_string(b.data, name, opt->datadir, d, &s);
	if (rc != SIM_OK && valid_rule_waivers(d, &b, v->assumed, sizeof v->assumed)) {
		sim_diag_clear(d); /* the run happened: a missing feature's rule set aside */
		rc = b.oom ? SIM_ENOMEM : plan_scenario_load_string(b.data, name, opt->datadir, d, &s);
	}
	if (rc == SIM_OK) {
		mem_predicted(c, row, s, stage, v);
	} else {
		v->status = VALID_SKIPPED;
		const char *t = sim_diag_count(d) ? sim_diag_text(d, 0) : "not loaded";
		const char *e = strstr(t, "error: ");
		snprintf(v->reason, sizeof v->reason, "%s", e ? e + 7 : t);
	}
	plan_scenario_free(s);
	sim_diag_free(d);
	sim_buf_free(&b);
}

int valid_memory_scenario(const cases_csv *c, size_t row, const valid_options *opt, sim_buf *out,
                          char *why, size_t why_len)
{
	char dir[1024], assumed[1024] = "";
	snprintf(dir, sizeof dir, "%s/", opt->datadir);
	sim_buf text;
	sim_buf_init(&text);
	int stage = 0;
	const char *reason =
	        valid_memory_text(c, row, dir, opt, &text, assumed, sizeof assumed, &stage);
	if (reason) {
		snprintf(why, why_len, "%s", reason);
		sim_buf_free(&text);
		return SIM_ECONF;
	}
	sim_buf probe; /* the rules its prediction sets aside (valid_rule_waivers) */
	sim_buf_init(&probe);
	valid_memory_text(c, row, "", opt, &probe, (char[1024]){""}, 1024, &stage);
	valid_printed_waivers(&probe, opt->datadir, &text, assumed, sizeof assumed);
	sim_buf_free(&probe);
	valid_put_assumed(out, assumed);
	sim_buf_printf(out, "; the measured rank: stage %d; counter: %s\n%s", stage,
	               get(c, row, "memory_kind"), text.data ? text.data : "");
	bool oom = text.oom || out->oom;
	sim_buf_free(&text);
	return oom ? SIM_ENOMEM : SIM_OK;
}
