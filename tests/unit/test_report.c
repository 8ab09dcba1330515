/* test_report.c - the text and JSON reports of a synthetic result.
 *
 * JSON: one line; braces and brackets balance outside strings; no raw control
 * characters inside strings; every documented top-level key exactly once and
 * in order, nested keys once per class/link; escapes; %.9g numbers; null for
 * non-finite numbers and a missing run id; no wall time.
 * Text: the key lines, only non-zero breakdown columns, eliding many classes,
 * and a golden comparison with tests/unit/expected_report.txt.
 *
 * The golden file is the text report of golden_result() with run id 12. After
 * an intended change of the format, regenerate it from the source root with
 *     PODSIM_UPDATE_EXPECTED=1 build/tests/test_report
 * and review the diff.
 */
#include "../../sim/report/report.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPECTED_PATH "tests/unit/expected_report.txt"

/* A GPT-3-like result: 4 stages of tp8 x dp8 on 256 GPUs, 2 link classes. */
static void golden_result(exec_result *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->scenario, sizeof r->scenario, "gpt3-175b-synthetic");
	snprintf(r->model, sizeof r->model, "GPT-3 175B");
	snprintf(r->gpu, sizeof r->gpu, "A100-SXM4-80GB");
	snprintf(r->cluster, sizeof r->cluster, "selene-32");
	snprintf(r->plan, sizeof r->plan, "tp8 pp4 dp8 mb1 gb512 1f1b full fp16");
	r->seed = 1;
	r->gpus = 256;
	r->step_s = 20.5;
	r->tokens_per_step = 512.0 * 2048;
	r->tokens_per_s = r->tokens_per_step / r->step_s;
	r->model_flops = 6 * 175e9 * r->tokens_per_step;
	r->hardware_flops = r->model_flops * 4 / 3;
	r->peak_flops = 312e12;
	r->mfu = r->model_flops / (r->step_s * r->gpus * r->peak_flops);
	r->hfu = r->mfu * 4 / 3;
	r->tflops_per_gpu = r->model_flops / r->step_s / r->gpus / 1e12;
	r->bubble_fraction = 1.5 / 20.5;
	r->mem_capacity_bytes = 80.0 * (1 << 30);
	r->nclasses = 4;
	for (int i = 0; i < 4; i++) {
		exec_class *c = &r->classes[i];
		snprintf(c->name, sizeof c->name, "stage %d", i);
		c->ranks = 64;
		c->time_s[EXEC_CAT_COMPUTE] = 16.0 + 0.25 * (i == 3);
		c->time_s[EXEC_CAT_OPTIMIZER] = 0.125;
		c->time_s[EXEC_CAT_TP] = 1.5;
		c->time_s[EXEC_CAT_DP] = 0.375 * (i == 0);
		c->time_s[EXEC_CAT_PP] = 0.0625 * i;
		c->time_s[EXEC_CAT_BUBBLE] = 1.5 - 0.25 * (i == 3);
		double used = 0;
		for (int k = 0; k < EXEC_CAT_COUNT; k++)
			used += c->time_s[k];
		c->time_s[EXEC_CAT_OTHER] = r->step_s - used;
		double gib = 1 << 30;
		c->mem_bytes[PLAN_MEM_WEIGHTS] = 10.2 * gib;
		c->mem_bytes[PLAN_MEM_GRADIENTS] = 10.2 * gib;
		c->mem_bytes[PLAN_MEM_OPTIMIZER] = 61.2 * gib / 8;
		c->mem_bytes[PLAN_MEM_ACTIVATIONS] = (4 - i) * 12.0 * gib;
		c->mem_bytes[PLAN_MEM_BUFFERS] = 0.5 * gib;
		double t = 0;
		for (int m = 0; m < PLAN_MEM_FRAGMENTATION; m++)
			t += c->mem_bytes[m];
		c->mem_bytes[PLAN_MEM_FRAGMENTATION] = 0.05 * t;
		c->mem_bytes[PLAN_MEM_RUNTIME] = 4 * gib;
		c->mem_total_bytes = 1.05 * t + 4 * gib;
		c->oom = exec_class_verdict(c, r->mem_capacity_bytes) == PLAN_VERDICT_OOM;
		if (c->mem_total_bytes > r->mem_peak_bytes)
			r->mem_peak_bytes = c->mem_total_bytes;
		r->oom = r->oom || c->oom;
	}
	r->nlinks = 2;
	exec_link *nv = &r->links[0], *ib = &r->links[1];
	snprintf(nv->name, sizeof nv->name, "node0 gpu0 nvswitch port");
	snprintf(nv->kind, sizeof nv->kind, "nvlink");
	nv->count = 256;
	nv->Bps = 300e9;
	nv->bytes = 1.6e12;
	nv->busy_s = 6.0;
	nv->util = nv->bytes / (nv->Bps * r->step_s);
	snprintf(ib->name, sizeof ib->name, "node0 nic0");
	snprintf(ib->kind, sizeof ib->kind, "ib");
	ib->count = 256;
	ib->Bps = 25e9;
	ib->bytes = 4.4e11;
	ib->busy_s = 18.0;
	ib->util = ib->bytes / (ib->Bps * r->step_s);
	ib->saturated_s = 17.25;
	snprintf(ib->traffic, sizeof ib->traffic, "dp");
	snprintf(nv->traffic, sizeof nv->traffic, "tp");
	r->tasks = 98765;
	r->events = 197530;
	r->wall_s = 0.123; /* must not show anywhere */
}

static char *text_of(const exec_result *r, int64_t id)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	report_text(f, r, id);
	fclose(f);
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Walk the JSON text: balanced {} [] outside strings, no raw control bytes in
 * strings, and the keys of the top-level object (depth 1) appended to keys,
 * separated by spaces. Returns whether the structure is sound. */
static bool scan_json(const char *j, char *keys, size_t cap)
{
	int depth = 0;
	bool in_str = false, expect_key = false;
	const char *start = NULL;
	keys[0] = '\0';
	for (const char *p = j; *p; p++) {
		if (in_str) {
			if ((unsigned char)*p < 0x20)
				return false;
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"') {
				in_str = false;
				if (start && depth == 1 && p[1] == ':' &&
				    strlen(keys) + (size_t)(p - start) + 2 < cap)
					strncat(strncat(keys, start, (size_t)(p - start)), " ", 2);
				start = NULL;
			}
			continue;
		}
		if (*p == '"') {
			in_str = true;
			start = expect_key ? p + 1 : NULL;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth < 0)
				return false;
		}
		expect_key = *p == '{' || *p == ',';
	}
	return depth == 0 && !in_str;
}

static void test_json(void)
{
	static exec_result r;
	golden_result(&r);
	snprintf(r.classes[1].name, sizeof r.classes[1].name, "odd \"name\"\\\n\x01");
	r.hfu = NAN;
	r.links[1].util = INFINITY;
	sim_buf b;
	sim_buf_init(&b);
	report_json_buf(&b, &r, 12);
	CHECK(!b.oom && b.len > 2);
	const char *j = b.data;
	CHECK(j[0] == '{' && j[b.len - 2] == '}' && j[b.len - 1] == '\n');
	CHECK_INT(count(j, "\n"), 1);
	char keys[1024];
	CHECK(scan_json(j, keys, sizeof keys));
	CHECK_STR(keys, "run_id scenario model gpu cluster plan layout seed gpus step_time_s "
			"step_band_s band_from tokens_per_s model_flops hardware_flops mfu hfu "
			"tflops_per_gpu bubble_fraction implausible implausible_reason breakdown "
			"memory links sim ");
	static const char *const per_class[] = {
		"\"ranks\":", "\"compute\":", "\"optimizer\":", "\"tp\":", "\"cp\":",
		"\"ep\":", "\"dp\":", "\"pp\":", "\"bubble\":", "\"offload\":", "\"other\":",
		"\"weights\":", "\"gradients\":", "\"optimizer_states\":", "\"activations\":",
		"\"buffers\":", "\"fragmentation\":", "\"total\":"};
	for (size_t i = 0; i < sizeof per_class / sizeof per_class[0]; i++)
		CHECK_INT(count(j, per_class[i]), 4);
	static const char *const per_link[] = {"\"kind\":", "\"count\":", "\"capacity_Bps\":",
					       "\"bytes\":", "\"busy_s\":", "\"util\":",
					       "\"saturated_s\":"};
	for (size_t i = 0; i < sizeof per_link / sizeof per_link[0]; i++)
		CHECK_INT(count(j, per_link[i]), 2);
	CHECK_INT(count(j, "\"oom\":"), 5);
	CHECK_INT(count(j, "\"name\":"), 10); /* 4 + 4 classes, 2 links */
	CHECK(strstr(j, "\"memory\":{\"capacity_bytes\":8.58993459e+10,") != NULL);
	CHECK(strstr(j, "\"sim\":{\"tasks\":98765,\"events\":197530}}") != NULL);
	CHECK(strstr(j, "\"name\":\"odd \\\"name\\\"\\\\\\n\\u0001\"") != NULL);
	CHECK(strstr(j, "\"run_id\":12,") != NULL);
	CHECK(strstr(j, "\"hfu\":null,") != NULL);
	CHECK(strstr(j, "\"util\":null,") != NULL);
	CHECK(strstr(j, "\"bubble_fraction\":0.0731707317,") != NULL); /* %.9g */
	CHECK(strstr(j, "\"seed\":1,\"gpus\":256,") != NULL);
	CHECK(strstr(j, "\"oom\":true") != NULL);
	/* the verdict's basis, stage 0's allocated + runtime: (76.55 + 4) x 2^30 B
	 * (test_text), at the top and in its class */
	CHECK(strstr(j, "\"allocated_plus_runtime_bytes\":8.64899039e+10,") != NULL);
	CHECK(strstr(j, "\"allocated_plus_runtime\":8.64899039e+10,") != NULL);
	CHECK(strstr(j, "wall") == NULL);
	b.len = 0;
	report_json_buf(&b, &r, 0);
	CHECK(strncmp(b.data, "{\"run_id\":null,\"scenario\":", 26) == 0);
	sim_buf_free(&b);
	/* report_json writes the same bytes. */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	report_json(f, &r, 0);
	fclose(f);
	sim_buf_init(&b);
	report_json_buf(&b, &r, 0);
	CHECK_STR(out, b.data);
	free(out);
	sim_buf_free(&b);
}

static void test_text(void)
{
	static exec_result r;
	golden_result(&r);
	char *t = text_of(&r, 12);
	CHECK(strstr(t, "podsim: gpt3-175b-synthetic\n") == t);
	CHECK(strstr(t, "  step time         20.5 s\n") != NULL);
	CHECK(strstr(t, "  MFU               ") != NULL);
	CHECK(strstr(t, "  bubble fraction   7.3%\n") != NULL);
	/* stage 0 allocates 10.2 + 10.2 + 7.65 + 48 + 0.5 = 76.55 GiB, with 4 GiB
	 * of runtime 80.55 GiB: past 80 GiB by 0.55 GiB = 563.2 MiB (the verdict's
	 * basis; the device total with the allocator's cache is 84.4 GiB) */
	CHECK(strstr(t, "OOM: allocated + runtime 80.5 GiB over the capacity 80 GiB by 563.2 "
	                "MiB\n") != NULL);
	CHECK(strstr(t, "        compute") != NULL);
	CHECK(strstr(t, "     cp") == NULL && strstr(t, "offload") == NULL);
	CHECK(strstr(t, "\nrun 12\n") != NULL);
	CHECK(strstr(t, "0.123") == NULL);
	/* the InfiniBand class is the more loaded: listed first */
	char *ib = strstr(t, "node0 nic0"), *nv = strstr(t, "node0 gpu0 nvswitch port nvlink");
	CHECK(ib && nv && ib < nv);
	free(t);

	/* 8 GiB of activations per micro-batch: 60.6 GiB allocated, x 1.05 + 4 GiB =
	 * 67.6 GiB on the device, 12.4 GiB free: fits; 9.5 GiB: 73.9 GiB, under
	 * 10 % of 80 GiB free: tight */
	r.oom = false;
	for (int i = 0; i < 4; i++)
		r.classes[i].mem_bytes[PLAN_MEM_ACTIVATIONS] = (4 - i) * 8.0 * (1 << 30);
	r.classes[0].mem_total_bytes = r.mem_peak_bytes = (60.55 * 1.05 + 4) * (1 << 30);
	r.nlinks = 0;
	t = text_of(&r, 0);
	CHECK(strstr(t, "peak 67.6 GiB of 80 GiB: fits (12.4 GiB free)\n") != NULL);
	free(t);
	r.classes[0].mem_bytes[PLAN_MEM_ACTIVATIONS] = 4 * 9.5 * (1 << 30);
	r.classes[0].mem_total_bytes = r.mem_peak_bytes = (66.55 * 1.05 + 4) * (1 << 30);
	t = text_of(&r, 0);
	CHECK(strstr(t, "of 80 GiB: tight (") != NULL);
	CHECK(strstr(t, "links: no inter-GPU traffic\n") != NULL);
	CHECK(strstr(t, "\nnot stored\n") != NULL);
	free(t);

	/* 20 classes: 4 first, "... 12 more", 4 last, in both tables. */
	r.nclasses = 20;
	for (int i = 4; i < 20; i++) {
		r.classes[i] = r.classes[i % 4];
		snprintf(r.classes[i].name, sizeof r.classes[i].name, "stage %d", i);
	}
	t = text_of(&r, 3);
	CHECK_INT(count(t, "... 12 more\n"), 2);
	CHECK(strstr(t, "stage 3 ") && strstr(t, "stage 16 ") && !strstr(t, "stage 4 ") &&
	      !strstr(t, "stage 15 "));
	free(t);
}

static void test_golden(void)
{
	static exec_result r;
	golden_result(&r);
	char *t = text_of(&r, 12);
	if (getenv("PODSIM_UPDATE_EXPECTED")) {
		FILE *f = fopen(EXPECTED_PATH, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(t, f);
			fclose(f);
		}
		printf("wrote %s\n", EXPECTED_PATH);
	}
	FILE *f = fopen(EXPECTED_PATH, "r");
	CHECK(f != NULL);
	char want[8192] = "";
	size_t n = f ? fread(want, 1, sizeof want - 1, f) : 0;
	want[n] = '\0';
	if (f)
		fclose(f);
	if (!CHECK_STR(t, want))
		fprintf(stderr, "golden text differs; see the header of %s\n", __FILE__);
	free(t);
}

/* The error band and the implausibility flag in the text and the JSON: the
 * band's three significant digits of its upper end in the step's unit,
 * null JSON values without them, [lo, hi] with %.9g with them. */
static void test_band(void)
{
	static exec_result r;
	golden_result(&r);
	r.band_lo_s = r.band_hi_s = NAN;
	char *t = text_of(&r, 0);
	CHECK(strstr(t, "  step time         20.5 s\n") != NULL);
	CHECK(strstr(t, "error band") == NULL && strstr(t, "implausible") == NULL);
	free(t);
	sim_buf b;
	sim_buf_init(&b);
	report_json_buf(&b, &r, 0);
	CHECK(strstr(b.data, "\"step_band_s\":null,\"band_from\":null,") != NULL);
	CHECK(strstr(b.data, "\"implausible\":false,\"implausible_reason\":null,") != NULL);
	sim_buf_free(&b);

	r.band_lo_s = 22.5852; /* 20.5 x 1.1017 */
	r.band_hi_s = 30.5307; /* 20.5 x 1.4893 */
	snprintf(r.band_from, sizeof r.band_from, "hopper, megatron-core, 513+ GPUs: 6 rows, 1 source");
	r.implausible = true;
	snprintf(r.implausible_why, sizeof r.implausible_why, "MFU 60.3%% is above the best");
	t = text_of(&r, 0);
	CHECK(strstr(t, "  step time         20.5 s, likely 22.6-30.5 s\n") != NULL);
	CHECK(strstr(t, "  error band from   hopper, megatron-core, 513+ GPUs: 6 rows, 1 source") !=
	      NULL);
	CHECK(strstr(t, "  implausible       MFU 60.3% is above the best\n") != NULL);
	free(t);
	sim_buf_init(&b);
	report_json_buf(&b, &r, 0);
	CHECK(strstr(b.data, "\"step_band_s\":[22.5852,30.5307],\"band_from\":\"hopper, ") != NULL);
	CHECK(strstr(b.data, "\"implausible\":true,\"implausible_reason\":\"MFU 60.3% is") != NULL);
	sim_buf_free(&b);

	char buf[64];
	r.step_s = 0.0123, r.band_lo_s = 0.0111, r.band_hi_s = 0.0245;
	report_band_text(&r, buf, sizeof buf);
	CHECK_STR(buf, "likely 11.1-24.5 ms");
	report_range_text(980.4, 1104.2, "days", buf, sizeof buf);
	CHECK_STR(buf, "980-1104 days");
	report_range_text(NAN, 2, "s", buf, sizeof buf);
	CHECK_STR(buf, "");
}

int main(void)
{
	test_band();
	test_json();
	test_text();
	test_golden();
	return check_done();
}
