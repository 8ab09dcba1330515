/* metric.c - podsim validate: the step time a training row's printed
 * throughput stands for, where its measured_iter_s column is open (valid_int.h,
 * valid_measured_from_metric). */
#include "valid_int.h"

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
 *   samples_per_s         T = B / value              (sequences)
 *   tflops_per_gpu        T = F / (value 1e12 n), F the source's formula:
 *     megatron-sc21  F = 96 B s l h^2 (1 + s / 6h + V / 16 l h)
 *     megatron-mfu   F = 72 B s l h^2 (1 + s / 6h + V / 12 l h)
 *   mfu (a fraction, or % in measured_unit) with either formula, on a 16-bit
 *                 row: T = F / (mfu x P n), P the GPU's dense 16-bit tensor
 *                 peak (hw_peak; the H100's 989.4 TFLOP/s, as the
 *                 Megatron-Core README's rows are derived)
 * V the model's vocabulary (unpadded). An fp8 row's MFU is left out: whether
 * the source divided by the fp8 or the 16-bit peak is not in the row. */
enum metric {
	METRIC_NONE,
	METRIC_TOK_GPU,
	METRIC_TOK,
	METRIC_SAMPLES,
	METRIC_SC21,
	METRIC_MFU72,
	METRIC_MFU_SC21,
	METRIC_MFU_72
};

static enum metric metric_kind(const cases_csv *c, size_t row)
{
	const char *m = get(c, row, "measured_metric"), *f = get(c, row, "flops_formula");
	const char *prec = get(c, row, "precision");
	bool sixteen = !*prec || !strcmp(prec, "bf16") || !strcmp(prec, "fp16");
	if (atof(get(c, row, "measured_value")) <= 0)
		return METRIC_NONE;
	return !strcmp(m, "tokens_per_s_per_gpu")                                ? METRIC_TOK_GPU
	       : !strcmp(m, "tokens_per_s")                                      ? METRIC_TOK
	       : !strcmp(m, "samples_per_s")                                     ? METRIC_SAMPLES
	       : !strcmp(m, "tflops_per_gpu") && !strcmp(f, "megatron-sc21")     ? METRIC_SC21
	       : !strcmp(m, "tflops_per_gpu") && !strcmp(f, "megatron-mfu")      ? METRIC_MFU72
	       : !strcmp(m, "mfu") && !sixteen                                   ? METRIC_NONE
	       : !strcmp(m, "mfu") && !strcmp(f, "megatron-sc21")                ? METRIC_MFU_SC21
	       : !strcmp(m, "mfu") && !strcmp(f, "megatron-mfu")                 ? METRIC_MFU_72
	                                                                         : METRIC_NONE;
}

double valid_measured_from_metric(const cases_csv *c, size_t row, const plan_scenario *s,
                                   char *assumed, size_t alen)
{
	double v = atof(get(c, row, "measured_value")), n = s->cluster.gpus;
	double B = s->plan.global_batch, sq = s->model.seq_len, l = s->model.layers;
	double h = s->model.hidden, V = s->vocab_model;
	double t = 0;
	const char *how = "";
	switch (metric_kind(c, row)) {
	case METRIC_TOK_GPU: t = B * sq / (v * n), how = "B s / (tokens_per_s_per_gpu x gpus)"; break;
	case METRIC_TOK: t = B * sq / v, how = "B s / tokens_per_s"; break;
	case METRIC_SAMPLES: t = B / v, how = "B / samples_per_s"; break;
	case METRIC_SC21:
		t = 96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h)) / (v * 1e12 * n);
		how = "96 B s l h^2 (1 + s/6h + V/16lh) / (tflops_per_gpu x gpus)";
		break;
	case METRIC_MFU72:
		t = 72 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (12 * l * h)) / (v * 1e12 * n);
		how = "72 B s l h^2 (1 + s/6h + V/12lh) / (tflops_per_gpu x gpus)";
		break;
	case METRIC_MFU_SC21:
	case METRIC_MFU_72: {
		bool sc21 = metric_kind(c, row) == METRIC_MFU_SC21;
		double f = strchr(get(c, row, "measured_unit"), '%') ? v / 100 : v;
		double peak = hw_peak(&s->gpu, s->dtype == HW_FP16 ? HW_FP16 : HW_BF16);
		double F = (sc21 ? 96 : 72) * B * sq * l * h * h *
		           (1 + sq / (6 * h) + V / ((sc21 ? 16 : 12) * l * h));
		t = f > 0 && peak > 0 ? F / (f * peak * n) : 0;
		how = sc21 ? "96 B s l h^2 (1 + s/6h + V/16lh) / (mfu x dense 16-bit peak x gpus)"
		           : "72 B s l h^2 (1 + s/6h + V/12lh) / (mfu x dense 16-bit peak x gpus)";
		break;
	}
	case METRIC_NONE: break;
	}
	valid_assume(assumed, alen, "measured_iter_s %.6g s (not given: %s)", t, how);
	return t;
}

bool valid_metric_gives_time(const cases_csv *c, size_t row)
{
	return metric_kind(c, row) != METRIC_NONE;
}
