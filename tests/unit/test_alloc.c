/* test_alloc.c - the caching allocator's share of reserved memory
 * (plan/memwalk.c counters(): reserved = allocated x (1 +
 * allocator_overhead)), derived from measured pairs of peak allocated and
 * peak reserved memory, and the alternative that was tried and left out.
 *
 * PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp, torch
 * 2.6.0, Debian's pytorch 2.6.0+dfsg source: L57-75, L121-128, L2063-2075,
 * L2540-2557) rounds a request to 512 B, serves requests up to 1 MiB from
 * 2 MiB segments and 1-10 MiB ones from 20 MiB segments, rounds larger
 * segments to 2 MiB, splits a cached block for a smaller request when more
 * than 1 MiB would remain, and keeps freed blocks for later requests of the
 * same stream. A tensor allocated once at start-up therefore costs at most
 * its 2 MiB rounding; reserved - allocated is the cached blocks that the
 * requests alive at the peak could not reuse. A model in which that gap is a
 * share of the peak's transient part (activations, logits, gradients that
 * come and go, temporaries) and the persistent part costs nothing was fitted
 * to the same pairs (tools/allocator-pairs, docs/allocator-overhead.md): it
 * predicts the held-out measurements no better than a flat share of the
 * allocated bytes, so the flat share stays, each stack with its own value
 * where its pairs were measured. */
#include "../../sim/plan/plan.h"
#include "check.h"
#include "scen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB  1073741824.0
#define MAXP 40

typedef struct pair {
	int file;                      /* 0 steps.csv, 1 the micro-batch files */
	double alloc, resv, transient; /* GiB; transient: podsim's */
} pair;

/* Column `name` of a CSV header line, or -1. */
static int col(const char *hdr, const char *name)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", hdr);
	int i = 0;
	for (char *t = strtok(buf, ",\n"); t; t = strtok(NULL, ",\n"), i++)
		if (!strcmp(t, name))
			return i;
	return -1;
}

/* Field i of a CSV line (no quoting in these files) into out. */
static void field(const char *line, int i, char *out, size_t len)
{
	const char *p = line;
	for (int k = 0; k < i && p; k++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	size_t n = p ? strcspn(p, ",\n") : 0;
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p ? p : "");
}

/* The walk's static terms: allocated once, never freed (memwalk.c
 * static_terms). Everything else at the peak is the moment's. */
static bool is_static(const char *name)
{
	static const char *const s[] = {"weights",
	                                "trained weights",
	                                "frozen layers' weights",
	                                "frozen base weights",
	                                "quantisation state",
	                                "optimizer states",
	                                "gradient buffer",
	                                "DDP bucket copy",
	                                "gradient buckets",
	                                "pipeline buffers",
	                                "workspaces",
	                                "PyTorch workspaces",
	                                "TP-overlap workspace",
	                                "attention scores buffer",
	                                "SP gather buffers"};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		if (!strcmp(name, s[i]))
			return true;
	return false;
}

/* The measured stack (hf-transformers-torch2.11, pure bf16, one H200) with
 * `train` added to its [train] section and the sections of `more`. */
static plan_scenario *h200(const char *model, const char *train, const char *more)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "include = models/%s.ini\n"
	         "include = topologies/efa-h200-cluster.ini\n"
	         "include = topologies/frameworks/hf-transformers-torch2.11.ini\n"
	         "[scenario]\nname = t\n[cluster]\nnodes = 1\n[node]\ngpus = 1\n"
	         "[train]\nprecision = bf16\npolicy = pure\nclip_grad = false\n%s%s",
	         model, train, more);
	return scen_load(text);
}

/* podsim's transient part of stage 0's peak, GiB: the allocated bytes less
 * the static terms (and less the gradients when `grads_persist`). */
static double transient(const plan_scenario *s, bool grads_persist)
{
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	double t = p.allocated;
	for (int i = 0; i < p.nterms; i++)
		if (p.term[i].cat < PLAN_MEM_FRAGMENTATION &&
		    (is_static(p.term[i].name) ||
		     (grads_persist && !strcmp(p.term[i].name, "gradients"))))
			t -= p.term[i].bytes;
	return t / GIB;
}

/* steps.csv: whole steps (forward with the loss, backward, AdamW, zero_grad
 * with set_to_none), so the gradients come and go. */
static int read_steps(pair *p, int n)
{
	FILE *f = fopen("tools/measured/h200-training/steps.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return n;
	char hdr[512], line[512], m[64], seq[16], mb[16], impl[16], a[32], r[32];
	if (!fgets(hdr, sizeof hdr, f)) {
		fclose(f);
		return n;
	}
	int cm = col(hdr, "model"), cs = col(hdr, "seq"), cb = col(hdr, "mb"),
	    ci = col(hdr, "optimizer_impl"), ca = col(hdr, "peak_alloc_gib"),
	    cr = col(hdr, "peak_reserved_gib");
	while (fgets(line, sizeof line, f) && n < MAXP) {
		field(line, cm, m, sizeof m);
		field(line, cs, seq, sizeof seq);
		field(line, cb, mb, sizeof mb);
		field(line, ci, impl, sizeof impl);
		field(line, ca, a, sizeof a);
		field(line, cr, r, sizeof r);
		char more[512];
		snprintf(more, sizeof more,
		         "[model]\nuntied_embeddings = true\nseq_len = %s\n[parallel]\ntp = 1\n"
		         "pp = 1\ndp = 1\nmicro_batch = %s\nglobal_batch = %s\n[framework]\n"
		         "optimizer_impl = %s\n",
		         seq, mb, mb, !strcmp(impl, "fused") ? "torch-fused" : "foreach");
		plan_scenario *s =
		        h200(strncmp(m, "llama3.2", 8) ? "llama3-8b" : "llama3.2-1b", "", more);
		if (!s)
			continue;
		p[n++] = (pair){0, atof(a), atof(r), transient(s, false)};
		plan_scenario_free(s);
	}
	fclose(f);
	return n;
}

/* The memory columns of microbatch.csv / microbatch-8b.csv for a row of
 * tests/cases/eager-h200.csv (model, tp_shard, seq, mb); false if absent. */
static bool mb_memory(const char *model, const char *tp, const char *seq, const char *mb,
                      double *alloc, double *resv)
{
	const char *files[] = {"tools/measured/h200-training/microbatch.csv",
	                       "tools/measured/h200-training/microbatch-8b.csv"};
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(files[k], "r");
		CHECK(f != NULL);
		if (!f)
			return false;
		char hdr[512], line[512], v[5][64];
		bool ok = fgets(hdr, sizeof hdr, f) != NULL;
		int c[6] = {col(hdr, "model"),
		            col(hdr, "tp_shard"),
		            col(hdr, "seq"),
		            col(hdr, "mb"),
		            col(hdr, "peak_alloc_gib"),
		            col(hdr, "peak_reserved_gib")};
		while (ok && fgets(line, sizeof line, f)) {
			for (int i = 0; i < 4; i++)
				field(line, c[i], v[i], sizeof v[i]);
			if (strcmp(v[0], model) || strcmp(v[1], tp) || strcmp(v[2], seq) ||
			    strcmp(v[3], mb))
				continue;
			field(line, c[4], v[4], sizeof v[4]);
			*alloc = atof(v[4]);
			field(line, c[5], v[4], sizeof v[4]);
			*resv = atof(v[4]);
			fclose(f);
			return true;
		}
		fclose(f);
	}
	return false;
}

/* The micro-batch rows (eager-h200.csv's shapes, the measured files'
 * memory): one micro-batch with .grad accumulating and never freed, so the
 * gradients are persistent there; podsim's scenario is two micro-batches of
 * a plain SGD (no states), whose second forward holds the first's
 * gradients. The sequence-64 rows are left out: their reserved is the
 * earlier rows' peak (the script resets the peak counters, not the cache). */
static int read_microbatches(pair *p, int n)
{
	FILE *f = fopen("tests/cases/eager-h200.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return n;
	char hdr[512], line[512];
	if (!fgets(hdr, sizeof hdr, f)) {
		fclose(f);
		return n;
	}
	const char *keys[] = {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"};
	while (fgets(line, sizeof line, f) && n < MAXP) {
		char model[64], tp[16], seq[16], mb[16], v[32], more[1024];
		field(line, col(hdr, "model"), model, sizeof model);
		field(line, col(hdr, "tp_shard"), tp, sizeof tp);
		field(line, col(hdr, "seq"), seq, sizeof seq);
		field(line, col(hdr, "mb"), mb, sizeof mb);
		double a, r;
		if (!strcmp(seq, "64") || !mb_memory(model, tp, seq, mb, &a, &r))
			continue;
		int len = snprintf(more, sizeof more,
		                   "[model]\nuntied_embeddings = true\nseq_len = %s\n", seq);
		for (int k = 0; k < 7; k++) {
			field(line, col(hdr, keys[k]), v, sizeof v);
			len += snprintf(more + len, sizeof more - (size_t)len, "%s = %s\n", keys[k],
			                v);
		}
		snprintf(
		        more + len, sizeof more - (size_t)len,
		        "[parallel]\ntp = 1\npp = 1\ndp = 1\nmicro_batch = %s\nglobal_batch = %d\n",
		        mb, 2 * atoi(mb));
		plan_scenario *s = h200("llama3.2-1b", "optimizer = sgd-plain\n", more);
		if (!s)
			continue;
		p[n++] = (pair){1, a, r, transient(s, true)};
		plan_scenario_free(s);
	}
	fclose(f);
	return n;
}

/* Ratio of sums of (reserved - allocated) to the model's base (allocated:
 * flat; podsim's transient part: transient) over the pairs of `file` (-1:
 * all). */
static double fit(const pair *p, int n, int file, bool flat)
{
	double g = 0, b = 0;
	for (int i = 0; i < n; i++)
		if (file < 0 || p[i].file == file) {
			g += p[i].resv - p[i].alloc;
			b += flat ? p[i].alloc : p[i].transient;
		}
	return g / b;
}

/* MAPE of reserved over the pairs of `file`, predicted from their measured
 * allocated with share k. */
static double mape(const pair *p, int n, int file, bool flat, double k)
{
	double e = 0;
	int c = 0;
	for (int i = 0; i < n; i++)
		if (p[i].file == file) {
			double pred = p[i].alloc + k * (flat ? p[i].alloc : p[i].transient);
			e += fabs(pred / p[i].resv - 1);
			c++;
		}
	return c ? e / c : 0;
}

/* The 29 pairs of the measured stack (6 steps, 23 micro-batches):
 *   sum(reserved - allocated) / sum(allocated) = 33.70 / 756.25 = 0.0446,
 *   steps.csv alone 0.0430, the micro-batch files alone 0.0453,
 * the profile's allocator_overhead (0.045). Fitted on one file, predicting
 * the other's reserved from its measured allocated (ratio of sums; MAPE):
 *   flat       steps -> micro-batches 2.7 %, micro-batches -> steps 3.1 %
 *   transient  steps -> micro-batches 3.4 %, micro-batches -> steps 3.8 %
 *   (k = 0.093 and 0.062 of podsim's transient part)
 * The transient share is no better in either direction: its worst pair is the
 * 8B fused step, 74 % persistent (weights, AdamW's m and v allocated at the
 * first step, after the first micro-batch's activations were freed), whose
 * measured gap (4.1 GiB, +6.8 %) the transient share puts at 1.0-1.5 GiB. */
static void test_h200_pairs(void)
{
	pair p[MAXP];
	int n = read_microbatches(p, read_steps(p, 0));
	CHECK_INT(n, 29);
	double all = fit(p, n, -1, true), s0 = fit(p, n, 0, true), s1 = fit(p, n, 1, true);
	CHECK_NEAR(all, 33.702 / 756.248, 1e-9);
	CHECK_NEAR(s0, 0.0430, 0.002);
	CHECK_NEAR(s1, 0.0453, 0.002);
	plan_scenario *s = h200("llama3-8b", "",
	                        "[parallel]\ntp = 1\npp = 1\ndp = 1\nmicro_batch = 1\n"
	                        "global_batch = 1\n");
	if (s) {
		/* rounded to 3 decimals (CHECK_NEAR's tolerance is relative) */
		CHECK_NEAR(s->fw.allocator_overhead, all, 0.012);
		plan_scenario_free(s);
	}
	double f01 = mape(p, n, 1, true, s0), f10 = mape(p, n, 0, true, s1);
	double t0 = fit(p, n, 0, false), t1 = fit(p, n, 1, false);
	double t01 = mape(p, n, 1, false, t0), t10 = mape(p, n, 0, false, t1);
	printf("flat: steps %.4f micro-batches %.4f (all %.4f); held out: %.1f %%, %.1f %%\n", s0,
	       s1, all, 100 * f01, 100 * f10);
	printf("transient: steps %.4f micro-batches %.4f; held out: %.1f %%, %.1f %%\n", t0, t1,
	       100 * t01, 100 * t10);
	CHECK(f01 < 0.04 && f10 < 0.04);
	CHECK(t01 >= f01 && t10 >= f10);
}

/* The 8B steps of steps.csv with the measured stack's profile: reserved =
 * allocated x 1.045 (podsim's allocated: fused 60.76 GiB, the forward's end;
 * foreach 74.96, the optimizer step) = 63.49 and 78.33 GiB against the
 * measured 64.78 and 78.04 (-2.0 %, +0.4 %); with the hf-transformers
 * default, 0.177: 71.5 and 88.2 (+10 %, +13 %), the overshoot this profile's
 * value removes. */
static void test_h200_8b_steps(void)
{
	const char *impl[] = {"torch-fused", "foreach"};
	double measured[] = {64.783, 78.043};
	for (int i = 0; i < 2; i++) {
		char more[512];
		snprintf(more, sizeof more,
		         "[model]\nuntied_embeddings = true\nseq_len = 2048\n[parallel]\ntp = 1\n"
		         "pp = 1\ndp = 1\nmicro_batch = 1\nglobal_batch = 1\n[framework]\n"
		         "optimizer_impl = %s\n",
		         impl[i]);
		plan_scenario *s = h200("llama3-8b", "", more);
		if (!s)
			return;
		plan_mem_peak pk;
		plan_memory_peak(s, 0, &pk);
		CHECK_NEAR(pk.reserved, pk.allocated * 1.045, 1e-9);
		CHECK_NEAR(pk.reserved / GIB, measured[i], 0.03);
		s->fw.allocator_overhead = 0.177;
		plan_memory_peak(s, 0, &pk);
		CHECK(pk.reserved / GIB / measured[i] - 1 > 0.09);
		plan_scenario_free(s);
	}
}

/* The default (hf-transformers.ini and every profile that does not set
 * it): fsdp_qlora's two pairs, benchmarks_03_2024.md:50 (05ed9f2a), Llama 2
 * 7B LoRA under FSDP, reserved / allocated 10.24 / 8.28 and 10.22 / 9.16 GiB:
 * (0.2367 + 0.1157) / 2 = 0.176. Their reserved is the same at context 512
 * and 2048 while allocated grows 0.88 GiB: the reserved peak is not the
 * step's allocated peak, and no share of it, flat or transient, follows
 * both (transient: 1.24 and 0.39 of podsim's transient part). */
static void test_default(void)
{
	plan_scenario *s = scen_load("include = models/llama3-8b.ini\n"
	                             "include = topologies/efa-h200-cluster.ini\n"
	                             "include = topologies/frameworks/hf-transformers.ini\n"
	                             "[scenario]\nname = t\n[cluster]\nnodes = 1\n"
	                             "[node]\ngpus = 1\n[parallel]\ntp = 1\npp = 1\ndp = 1\n"
	                             "micro_batch = 1\nglobal_batch = 1\n");
	if (!s)
		return;
	CHECK_NEAR(s->fw.allocator_overhead, (10.24 / 8.28 + 10.22 / 9.16) / 2 - 1, 0.005);
	plan_scenario_free(s);
}

int main(void)
{
	test_h200_pairs();
	test_h200_8b_steps();
	test_default();
	return check_done();
}
