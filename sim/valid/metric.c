/* metric.c - podsim validate: the step time a training row's printed
 * throughput stands for, where its measured_iter_s column is open (valid_int.h,
 * valid_measured_from_metric). */
#include "valid_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

/* A row whose source printed a throughput, not the step time, and whose
 * measured_iter_s column is open: the step time the throughput stands for,
 * as the schema's curators derive it (tests/cases/README.md: `derived`
 * rows, "iter = ..." in the note), from the row's scenario (its global
 * batch B, sequence length s, GPUs n and model shape, the open ones at
 * their documented defaults):
 *   tokens_per_s_per_gpu  T = B s / (value n)
 *   tokens_per_s          T = B s / value            (the whole job's)
 *   samples_per_s         T = B / value              (sequences; per GPU
 *                         where it says so: B / (value n))
 *   steps per second      T = 1 / value              (tqdm's "it/s",
 *                         "iterations/min": the rate's period / value)
 *   pflops                T = F / (value 1e15), the job's petaFLOP/s
 *   (a rate's period is its unit's: "tokens/min" is per 60 s)
 *   tflops_per_gpu        T = F / (value 1e12 n), F the source's formula
 *                         (tests/cases/README.md, flops_formula):
 *     megatron-sc21  F = 96 B s l h^2 (1 + s / 6h + V / 16 l h)
 *     megatron-mfu   F = 72 B s l h^2 (1 + s / 6h + V / 12 l h)
 *     6nd            F = 6 N B s
 *     mosaic         F = 3 B s (2 N + 4 l h s) (llm-foundry's flops_per_batch,
 *                    models/mpt/modeling_mpt.py:1588-1617 at mosaicml/
 *                    llm-foundry 8c8dd48f7: 2 N a token, 2 x 2 l h s^2 of
 *                    attention a sequence, the backward twice the forward)
 *     other, open    podsim's own model FLOPs (work_model_flops, its MFU's
 *                    numerator), assumed and said on the row: the source
 *                    printed a rate without saying what it counted
 *     N, in 6nd and mosaic, llm-foundry's n_active_params: the parameters a
 *     token meets (work_params_active, routed experts at top-k of E) less an
 *     untied input embedding, a lookup (mpt_param_count.py
 *     mpt_get_active_params); a source whose 6ND counted otherwise differs
 *     by the embedding's share, said on the row
 *   mfu (a fraction, or % in measured_unit) with any formula, on a 16-bit
 *                 row: T = F / (mfu x P n), P the GPU's dense 16-bit tensor
 *                 peak (hw_peak; the H100's 989.4 TFLOP/s, as the
 *                 Megatron-Core README's rows are derived)
 *   hfu (the same, hardware FLOPs: the recomputation counted too, as
 *                 Korthikanti et al. 2022 define it, section 6.2) on a
 *                 16-bit row: T = F r / (hfu x P n), r the simulated
 *                 step's hardware over model FLOPs (exec_result: the
 *                 plan's recomputation, 4/3 and a little under full
 *                 recomputation), r = 1 under megatron-sc21, whose 96
 *                 counts the full recomputation already (72 x 4/3)
 *   a step time (a metric naming an iteration or step, or none, in a time
 *   or a time per iteration or step: "ms", "s/it", "sec/step"; vTrain's
 *   iteration_time in ms; not MLPerf's time_to_train): T = value x unit
 *   a run's time (a metric naming a training, total, wall-clock or run
 *                 time, in a unit of time: MLPerf's time_to_train) where
 *                 the note states how much training it covered (run_amount:
 *                 "3,000 steps", "train_iters 500", "1.5M samples", "300B
 *                 tokens"): T = value x unit / steps, steps = the note's, or
 *                 its samples / B, or its tokens / (B s); without one the
 *                 row is skipped, saying so (valid_metric_skip_why)
 * A metric the row names otherwise is read by its unit: tokens/s per GPU,
 * tokens/s, samples (sequences) per second, TFLOP/s per GPU; TFLOP/s that
 * do not say per GPU or per job ("TFLOPS") are per GPU where the value is
 * within the GPU's dense peak in the row's precision (no GPU runs above it)
 * and the job's otherwise, said; per GPU wherever the metric or the unit
 * says so ("throughput per GPU" in tokens/s). Where the unit column is
 * open, a unit in parentheses at the end of the metric is its unit
 * (Megatron's log line "elapsed time per iteration (ms)"), else the metric
 * itself where it is one ("tokens/sec", "TFLOPs/GPU", "seconds per
 * iteration"), else its last word where that is a time ("step_time_ms").
 * V the model's vocabulary (unpadded). An fp8 row's MFU is left out: whether
 * the source divided by the fp8 or the 16-bit peak is not in the row. */
enum metric {
	METRIC_NONE,
	METRIC_TOK_GPU,
	METRIC_TOK,
	METRIC_SAMPLES,
	METRIC_SAMPLES_GPU,
	METRIC_STEPS, /* steps (iterations) per unit of time: tqdm's it/s */
	METRIC_PFLOPS, /* the job's petaFLOP/s (per GPU where it says so) */
	METRIC_TFLOPS,
	METRIC_TFLOPS_ANY, /* per GPU or the job's, by the value against the peak */
	METRIC_MFU,
	METRIC_HFU,
	METRIC_TIME,
	METRIC_RUN /* a whole run's time over the steps its note states */
};

/* A unit in lower case without spaces into u (len bytes); its length. */
static size_t squash(const char *unit, char *u, size_t len)
{
	char t[128];
	size_t n = 0;
	valid_lower(unit, t, sizeof t);
	for (const char *p = t; *p && n + 1 < len; p++)
		if (*p != ' ')
			u[n++] = *p;
	u[n] = 0;
	return n;
}

/* The measured unit, lower case without spaces: seconds per unit when it is a
 * time or a time per iteration or step, else 0. */
static double unit_seconds(const char *unit)
{
	char u[128];
	size_t n = squash(unit, u, sizeof u);
	static const char *const per[] = {"/iteration", "/iter", "/it", "/step", "periteration",
	                                  "perstep", NULL};
	for (const char *const *q = per; *q; q++) {
		size_t k = strlen(*q);
		if (n > k && !strcmp(u + n - k, *q)) {
			u[n -= k] = 0;
			break;
		}
	}
	return valid_unit_seconds(u);
}

/* The seconds of a rate's period, its unit lower case without spaces
 * ("tokens/s/gpu", "samples/min", "stepspersecond", "it/s": 1, 60, 1, 1),
 * a "/gpu" or "per gpu" after it set aside; 0 where the unit is no rate
 * per unit of time. */
static double rate_period(const char *u)
{
	char t[128];
	snprintf(t, sizeof t, "%s", u);
	static const char *const gpu[] = {"/gpu", "pergpu", "/device", "perdevice"};
	for (size_t i = 0; i < sizeof gpu / sizeof gpu[0]; i++) {
		size_t n = strlen(t), k = strlen(gpu[i]);
		if (n > k && !strcmp(t + n - k, gpu[i]))
			t[n - k] = 0;
	}
	const char *slash = strrchr(t, '/'), *per = NULL;
	for (const char *p = strstr(t, "per"); p; p = strstr(p + 1, "per"))
		per = p;
	const char *rest = slash && (!per || slash > per) ? slash + 1 : per ? per + 3 : NULL;
	return rest && *rest ? valid_unit_seconds(rest) : 0;
}

/* A throughput by its unit, lower case without spaces ("tokens/s/GPU",
 * "TFLOP/s per GPU", "samples/s", "it/s", "steps per second", "PFLOP/s"). */
static enum metric unit_metric(const char *unit)
{
	char u[128];
	squash(unit, u, sizeof u);
	bool gpu = strstr(u, "gpu") != NULL || strstr(u, "device") != NULL;
	if (strstr(u, "tok"))
		return gpu ? METRIC_TOK_GPU : METRIC_TOK;
	if (strstr(u, "sample") || strstr(u, "seq"))
		return gpu ? METRIC_SAMPLES_GPU : METRIC_SAMPLES;
	/* steps per unit of time ("it/s", "optimizer steps per sec"; a rate
	 * of steps is not a step's time, METRIC_TIME) */
	if ((!strncmp(u, "it/", 3) || strstr(u, "iter") || strstr(u, "step")) && rate_period(u) > 0)
		return METRIC_STEPS;
	if (strstr(u, "pflop") || strstr(u, "petaflop"))
		return METRIC_PFLOPS;
	if (strstr(u, "tflop") || strstr(u, "teraflop"))
		return gpu ? METRIC_TFLOPS : METRIC_TFLOPS_ANY;
	return METRIC_NONE;
}

/* The row's unit: its measured_unit, or where that is open the text in the
 * metric's last parentheses ("elapsed time per iteration (ms)"), else the
 * metric itself where it is a unit ("tokens/sec", "TFLOPs/GPU", "seconds
 * per iteration"), else its last word where that is a time ("step_time_ms"),
 * into u. */
static const char *row_unit(const char *metric, const char *unit, char *u, size_t len)
{
	const char *o = strrchr(metric, '('), *c = o ? strchr(o, ')') : NULL;
	if (*unit)
		return unit;
	if (o && c) {
		snprintf(u, len, "%.*s", (int)(c - o - 1), o + 1);
		return u;
	}
	if (unit_seconds(metric) > 0 || unit_metric(metric) != METRIC_NONE)
		return metric;
	const char *w = metric + strlen(metric);
	while (w > metric && w[-1] != '_' && w[-1] != ' ')
		w--;
	return unit_seconds(w) > 0 ? w : unit;
}

/* The source's FLOPs per step by its formula column into *F, and the formula
 * in words into how (len bytes): Megatron's two, 96 (sc21) or 72 (mfu)
 * B s l h^2 (1 + s/6h + V/c l h), c 16 or 12; 6nd; mosaic; else (other, open)
 * podsim's model FLOPs (the how says it is assumed). */
static void formula_flops(const char *f, const plan_scenario *s, double *F, char *how, size_t len)
{
	double B = s->plan.global_batch, sq = s->model.seq_len, l = s->model.layers;
	double h = s->model.hidden, V = s->vocab_model;
	bool sc21 = !strcmp(f, "megatron-sc21");
	work_model m = plan_flops_model(s);
	double N = work_params_active(&m) - (m.untied_embeddings ? (double)m.vocab * m.hidden : 0.0);
	if (sc21 || !strcmp(f, "megatron-mfu")) {
		*F = (sc21 ? 96 : 72) * B * sq * l * h * h *
		     (1 + sq / (6 * h) + V / ((sc21 ? 16 : 12) * l * h));
		snprintf(how, len, sc21 ? "96 B s l h^2 (1 + s/6h + V/16lh)"
		                        : "72 B s l h^2 (1 + s/6h + V/12lh)");
		return;
	}
	if (!strcmp(f, "6nd")) {
		*F = 6 * N * B * sq;
		snprintf(how, len, "6 N B s, N %.4g (active, no input embedding)", N);
		return;
	}
	if (!strcmp(f, "mosaic")) {
		*F = 3 * B * sq * (2 * N + 4 * l * h * sq);
		snprintf(how, len, "3 B s (2N + 4 l h s), N %.4g", N);
		return;
	}
	*F = work_model_flops(&m, B * sq);
	snprintf(how, len, "podsim's model FLOPs %.4g (flops_formula %s: assumed)", *F,
	         *f ? f : "not given");
}

/* A metric that names the step's time (vTrain's "iteration_time", "step_time",
 * "iter_s", or none), not a run's (MLPerf's "time_to_train", an epoch's, a
 * total), whose unit is a time. */
static bool step_named(const char *metric)
{
	char m[64];
	valid_lower(metric, m, sizeof m);
	return (!*m || strstr(m, "iter") || strstr(m, "step")) && !strstr(m, "train") &&
	       !strstr(m, "epoch") && !strstr(m, "total");
}

/* A metric that names a whole run's time: MLPerf's "time_to_train", a
 * "training time", "total time", "wall clock", a "run time" (not a step's:
 * step_named). */
static bool run_named(const char *metric)
{
	char m[64];
	valid_lower(metric, m, sizeof m);
	return *m && !step_named(metric) &&
	       (strstr(m, "train") || strstr(m, "total") || strstr(m, "wall") || strstr(m, "run"));
}

enum amount { AMOUNT_NONE, AMOUNT_STEPS, AMOUNT_SAMPLES, AMOUNT_TOKENS };

/* A word or key and the kind of count it names (amount_word, run_amount). */
typedef struct {
	const char *name;
	enum amount kind;
} amount_name;

/* The kind a word (lower case) counts: steps ("steps", "iterations",
 * "iters"), samples ("samples", "sequences") or tokens; its length into *n. */
static enum amount amount_word(const char *w, size_t *n)
{
	static const amount_name words[] = {
	        {"steps", AMOUNT_STEPS},       {"step", AMOUNT_STEPS},   {"iterations", AMOUNT_STEPS},
	        {"iteration", AMOUNT_STEPS},   {"iters", AMOUNT_STEPS},  {"samples", AMOUNT_SAMPLES},
	        {"sequences", AMOUNT_SAMPLES}, {"tokens", AMOUNT_TOKENS}};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t k = strlen(words[i].name);
		if (!strncmp(w, words[i].name, k) && !isalnum((unsigned char)w[k]) && w[k] != '_') {
			*n = k;
			return words[i].kind;
		}
	}
	return AMOUNT_NONE;
}

/* A count as notes write it at p: a number with its thousands separators
 * (valid_lead_number), then a multiplier ("k", "M", "B", "T", "thousand",
 * "million", "billion", "trillion"); its value (0: none) and the text after
 * it, spaces skipped, into *end. */
static double count_at(const char *p, const char **end)
{
	double v;
	const char *q;
	if (!valid_lead_number(p, true, &v, &q))
		return 0;
	static const struct {
		const char *word;
		double mult;
	} mult[] = {{"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12},
	            {"k", 1e3},        {"m", 1e6},       {"b", 1e9},       {"t", 1e12}};
	for (size_t i = 0; i < sizeof mult / sizeof mult[0]; i++) {
		size_t k = strlen(mult[i].word);
		if (!strncmp(q, mult[i].word, k) && !isalpha((unsigned char)q[k])) {
			v *= mult[i].mult;
			q += k + strspn(q + k, " ");
			break;
		}
	}
	*end = q;
	return v;
}

/* How much training a run's time covered, as its note states it: a count
 * and its kind ("3,000 steps", "500 iterations", "1.5M samples", "300B
 * tokens", or a key before it: "train_iters 500", "train_samples:
 * 1536000", "steps: 3000"), the phrase into phrase[]; 0 where it states
 * none. Not a batch ("global batch 1,536 samples", "4M tokens per step"),
 * and none in a note that counts epochs ("2 epochs of 1.2M samples": which
 * count covers the run is not sure). */
static double run_amount(const char *note, enum amount *kind, char *phrase, size_t len)
{
	char low[512];
	valid_lower(note, low, sizeof low);
	*kind = AMOUNT_NONE;
	if (strstr(low, "epoch"))
		return 0;
	static const amount_name keys[] = {
	        {"train_iters", AMOUNT_STEPS},     {"train-iters", AMOUNT_STEPS},
	        {"train_steps", AMOUNT_STEPS},     {"max_steps", AMOUNT_STEPS},
	        {"steps", AMOUNT_STEPS},           {"iterations", AMOUNT_STEPS},
	        {"train_samples", AMOUNT_SAMPLES}, {"train-samples", AMOUNT_SAMPLES},
	        {"train_tokens", AMOUNT_TOKENS}};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		for (const char *p = strstr(low, keys[i].name); p; p = strstr(p + 1, keys[i].name)) {
			if (p > low && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue;
			const char *q = p + strlen(keys[i].name), *e;
			q += strspn(q, " =:");
			double v = isdigit((unsigned char)*q) ? count_at(q, &e) : 0;
			if (v >= 1) {
				*kind = keys[i].kind;
				snprintf(phrase, len, "%.*s", (int)(e - p), p);
				return v;
			}
		}
	for (const char *p = low; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > low && (isalnum((unsigned char)p[-1]) ||
		                                                p[-1] == '.' || p[-1] == ',')))
			continue;
		const char *e;
		size_t n;
		double v = count_at(p, &e);
		enum amount k = v >= 1 ? amount_word(e, &n) : AMOUNT_NONE;
		if (k == AMOUNT_NONE)
			continue;
		const char *after = e + n, *back = p - (p - low > 24 ? 24 : p - low);
		char before[32];
		snprintf(before, sizeof before, "%.*s", (int)(p - back), back);
		if (strstr(before, "batch") || !strncmp(after, " per ", 5) || *after == '/')
			continue;
		*kind = k;
		snprintf(phrase, len, "%.*s", (int)(after - p), p);
		return v;
	}
	*kind = AMOUNT_NONE;
	return 0;
}

/* A utilization metric by its name, lower case without spaces,
 * underscores or hyphens and without a "(%)" ("MFU", "mfu (%)",
 * "model_flops_utilization", "Model FLOPs Utilization", "HFU",
 * "hardware FLOPs utilisation"): METRIC_MFU, METRIC_HFU or METRIC_NONE. */
static enum metric util_metric(const char *metric)
{
	char t[64], u[64];
	size_t n = 0;
	valid_lower(metric, t, sizeof t);
	for (const char *p = t; *p && *p != '(' && n + 1 < sizeof u; p++)
		if (*p != ' ' && *p != '_' && *p != '-')
			u[n++] = *p;
	u[n] = 0;
	static const struct {
		const char *name;
		enum metric kind;
	} names[] = {{"mfu", METRIC_MFU},
	             {"modelflopsutilization", METRIC_MFU},
	             {"modelfloputilization", METRIC_MFU},
	             {"modelflopsutilisation", METRIC_MFU},
	             {"hfu", METRIC_HFU},
	             {"hardwareflopsutilization", METRIC_HFU},
	             {"hardwarefloputilization", METRIC_HFU},
	             {"hardwareflopsutilisation", METRIC_HFU}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(u, names[i].name))
			return names[i].kind;
	return METRIC_NONE;
}

/* A utilization's value as a fraction: a percentage where the unit says
 * so ("%", "percent", "pct") or the metric ends in "(%)", or where the
 * value is above 1, which no fraction of a peak is (said into *pct). */
static double util_fraction(const char *metric, const char *unit, double v, bool *pct)
{
	char u[48];
	squash(unit, u, sizeof u);
	bool said = !strcmp(u, "%") || !strcmp(u, "percent") || !strcmp(u, "pct") ||
	            strstr(metric, "(%)") != NULL;
	*pct = !said && v > 1;
	return said || v > 1 ? v / 100 : v;
}

static enum metric metric_kind(const cases_csv *c, size_t row)
{
	const char *m = get(c, row, "measured_metric");
	const char *prec = get(c, row, "precision");
	bool sixteen = !*prec || !strcmp(prec, "bf16") || !strcmp(prec, "fp16");
	if (atof(get(c, row, "measured_value")) <= 0)
		return METRIC_NONE;
	char ub[48];
	const char *u = row_unit(m, get(c, row, "measured_unit"), ub, sizeof ub);
	enum metric util = util_metric(m);
	/* per GPU where the metric or the unit says so ("throughput per GPU"
	 * in tokens/s) */
	char both[112];
	snprintf(both, sizeof both, "%s %s", u == m ? "" : m, u);
	enum amount amt;
	char ph[96];
	return !strcmp(m, "tokens_per_s_per_gpu")     ? METRIC_TOK_GPU
	       : !strcmp(m, "tokens_per_s")           ? METRIC_TOK
	       : !strcmp(m, "samples_per_s")          ? METRIC_SAMPLES
	       : !strcmp(m, "tflops_per_gpu")         ? METRIC_TFLOPS
	       : util != METRIC_NONE && sixteen       ? util
	       : util != METRIC_NONE                  ? METRIC_NONE
	       : step_named(m) && unit_seconds(u) > 0 ? METRIC_TIME
	       : run_named(m) && unit_seconds(u) > 0 && run_amount(get(c, row, "note"), &amt, ph,
	                                                          sizeof ph) > 0
	               ? METRIC_RUN
	       : unit_metric(both) != METRIC_NONE ? unit_metric(both)
	                                          : unit_metric(u);
}

/* The step an MFU or HFU stands for: the model FLOPs F (Fs, its formula)
 * over the utilization (a fraction, or a percentage where the unit says %:
 * *pct) of the dense 16-bit peak of every GPU; an HFU's hardware FLOPs the
 * formula's where it counts the recomputation (megatron-sc21), else the
 * simulated step's hardware / model ratio. Its derivation into how. */
static double util_step(const cases_csv *c, size_t row, const plan_scenario *s, double hw_ratio,
                        double F, const char *Fs, bool *pct, char *how, size_t hlen)
{
	bool hfu = metric_kind(c, row) == METRIC_HFU;
	double v = atof(get(c, row, "measured_value")), n = s->cluster.gpus;
	double u = util_fraction(get(c, row, "measured_metric"), get(c, row, "measured_unit"), v,
	                         pct);
	double peak = hw_peak(&s->gpu, s->dtype == HW_FP16 ? HW_FP16 : HW_BF16);
	bool counted = !hfu || !strcmp(get(c, row, "flops_formula"), "megatron-sc21");
	double ratio = counted ? 1 : hw_ratio;
	if (!hfu)
		snprintf(how, hlen, "%s / (mfu x dense 16-bit peak x gpus)", Fs);
	else if (counted)
		snprintf(how, hlen,
		         "%s / (hfu x dense 16-bit peak x gpus), the formula counting the "
		         "recomputation",
		         Fs);
	else
		snprintf(how, hlen,
		         "%s x %.4g (the simulated step's hardware / model FLOPs) / (hfu x "
		         "dense 16-bit peak x gpus)",
		         Fs, ratio);
	return u > 0 && peak > 0 && ratio > 0 ? F * ratio / (u * peak * n) : 0;
}

/* The step a whole run's time stands for: over the steps the note states,
 * or its samples / B, or its tokens / (B s) (run_amount). Its derivation
 * into how. */
static double run_step(const cases_csv *c, size_t row, double B, double sq, char *how,
                       size_t hlen)
{
	char ub[48], ph[96];
	double v = atof(get(c, row, "measured_value"));
	const char *u = row_unit(get(c, row, "measured_metric"), get(c, row, "measured_unit"), ub,
	                         sizeof ub);
	enum amount k;
	double a = run_amount(get(c, row, "note"), &k, ph, sizeof ph);
	double steps = k == AMOUNT_STEPS ? a : k == AMOUNT_SAMPLES ? a / B : a / (B * sq);
	snprintf(how, hlen,
	         "measured_value %.6g %s, the run's time, over %.6g steps%s (the note's '%s')", v,
	         u, steps,
	         k == AMOUNT_SAMPLES ? " = samples / B" : k == AMOUNT_TOKENS ? " = tokens / (B s)" : "",
	         ph);
	return steps > 0 ? v * unit_seconds(u) / steps : 0;
}

double valid_measured_from_metric(const cases_csv *c, size_t row, const plan_scenario *s,
                                  double hw_ratio, char *assumed, size_t alen)
{
	double v = atof(get(c, row, "measured_value")), n = s->cluster.gpus;
	double B = s->plan.global_batch, sq = s->model.seq_len;
	double F = 0;
	char Fs[128];
	formula_flops(get(c, row, "flops_formula"), s, &F, Fs, sizeof Fs);
	double t = 0;
	char how[224] = "";
	bool pct = false; /* a utilization above 1 read as a percentage */
	/* a rate's period: its unit's ("tokens/min": 60 s), else a second */
	char rb[48], uq[128];
	squash(row_unit(get(c, row, "measured_metric"), get(c, row, "measured_unit"), rb, sizeof rb),
	       uq, sizeof uq);
	double per = rate_period(uq) > 0 ? rate_period(uq) : 1;
	char pers[24] = "";
	if (per != 1)
		snprintf(pers, sizeof pers, " x %.6g s", per);
	switch (metric_kind(c, row)) {
	case METRIC_TOK_GPU:
		t = B * sq * per / (v * n);
		snprintf(how, sizeof how, "B s%s / (tokens_per_s_per_gpu x gpus)", pers);
		break;
	case METRIC_TOK:
		t = B * sq * per / v;
		snprintf(how, sizeof how, "B s%s / tokens_per_s", pers);
		break;
	case METRIC_SAMPLES:
		t = B * per / v;
		snprintf(how, sizeof how, "B%s / samples_per_s", pers);
		break;
	case METRIC_SAMPLES_GPU:
		t = B * per / (v * n);
		snprintf(how, sizeof how, "B%s / (samples_per_s per GPU x gpus)", pers);
		break;
	case METRIC_STEPS:
		t = per / v;
		snprintf(how, sizeof how, "%.6g s / measured_value %.6g steps", per, v);
		break;
	case METRIC_PFLOPS: {
		/* per GPU where the metric or the unit says so, as unit_metric
		 * reads a TFLOP/s ("pflops_per_gpu" in PFLOP/s) */
		char mq[128];
		squash(get(c, row, "measured_metric"), mq, sizeof mq);
		bool per_gpu = strstr(uq, "gpu") || strstr(uq, "device") || strstr(mq, "gpu") ||
		               strstr(mq, "device");
		t = F / (v * 1e15 * (per_gpu ? n : 1));
		snprintf(how, sizeof how, "%s / (pflops%s)", Fs, per_gpu ? " x gpus" : ", the job's");
		break;
	}
	case METRIC_TFLOPS:
		t = F / (v * 1e12 * n);
		snprintf(how, sizeof how, "%s / (tflops_per_gpu x gpus)", Fs);
		break;
	case METRIC_TFLOPS_ANY: {
		/* within one GPU's dense peak of the row's precision: per GPU */
		double peak = hw_peak(&s->gpu, s->dtype);
		bool per_gpu = peak > 0 && v * 1e12 <= peak;
		t = F / (v * 1e12 * (per_gpu ? n : 1));
		snprintf(how, sizeof how, "%s / (%s), TFLOP/s read as %s", Fs,
		         per_gpu ? "tflops x gpus" : "tflops", per_gpu
		                 ? "per GPU (within its dense peak)"
		                 : "the job's (above one GPU's dense peak)");
		break;
	}
	case METRIC_MFU:
	case METRIC_HFU:
		t = util_step(c, row, s, hw_ratio, F, Fs, &pct, how, sizeof how);
		break;
	case METRIC_TIME: {
		char ub[48];
		const char *u = row_unit(get(c, row, "measured_metric"),
		                         get(c, row, "measured_unit"), ub, sizeof ub);
		t = v * unit_seconds(u);
		snprintf(how, sizeof how, "measured_value %.6g %s, the step time", v, u);
		break;
	}
	case METRIC_RUN:
		t = run_step(c, row, B, sq, how, sizeof how);
		break;
	case METRIC_NONE:
		break;
	}
	if (pct)
		valid_assume(assumed, alen,
		             "measured_value %.6g read as %.6g %% (no fraction of a peak is above 1)",
		             v, v);
	valid_assume(assumed, alen, "measured_iter_s %.6g s (not given: %s)", t, how);
	return t;
}

const char *valid_metric_skip_why(const cases_csv *c, size_t row)
{
	const char *m = get(c, row, "measured_metric");
	char ub[48];
	const char *u = row_unit(m, get(c, row, "measured_unit"), ub, sizeof ub);
	if (metric_kind(c, row) == METRIC_NONE && run_named(m) && unit_seconds(u) > 0)
		return "its measured_metric is a whole run's time, and the note states no steps, "
		       "samples or tokens it covered to divide it by (beside epochs, none is sure)";
	return NULL;
}

bool valid_metric_gives_time(const cases_csv *c, size_t row)
{
	return metric_kind(c, row) != METRIC_NONE;
}
