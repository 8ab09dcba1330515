/* valid.c - `podsim validate` on a serving case file (tests/cases/serving.csv,
 * schema in tests/cases/README.md): each row becomes a serving scenario, the
 * scenario runs, and the row's metric is compared with the measurement.
 *
 * A row's scenario: the shipped node file for its GPU (which includes the
 * GPU file), one node with the row's GPU count, the engine profile named by
 * the `engine` column (topologies/serving/), the model's shape from the row
 * (GELU rows get LayerNorm and a 4h MLP as written, SwiGLU rows RMSNorm),
 * the context long enough for the row's prompt and output, and the request
 * stream the measurement used:
 *  - output_tokens_per_s_per_gpu / output_tokens_per_s: an offline batch of
 *    batch_size requests (static: one batch at t = 0, as gptSessionBenchmark;
 *    continuous: `concurrency` clients in a closed loop), every request the
 *    row's prompt and output length; the prediction is output tokens over
 *    the run's span (per GPU when the metric says so);
 *  - ttft / ttft_mean: one request (or the row's concurrency), the mean
 *    time to first token in ms; itl_mean the mean TPOT in ms.
 * No constant is set per row: every row runs the same engine profile and GPU
 * files as a user's scenario would.
 */
#include "serve_int.h"
#include "cases/cases.h"
#include "valid/valid.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return cases_csv_get(c, row, cases_csv_col(c, col));
}

bool serve_cases_is_serving(const char *path)
{
	FILE *f = NULL; /* a regular file only: a FIFO or a device must not block here */
	if (sim_input_open(path, SIM_INPUT_MAX, &f, NULL) != 0 || !f)
		return false;
	char line[4096];
	bool yes = fgets(line, sizeof line, f) && strstr(line, "batching") && strstr(line, "engine");
	fclose(f);
	return yes;
}

static const char *node_of(const char *gpu)
{
	static const struct {
		const char *gpu, *node;
	} map[] = {{"h100-sxm5-80g", "dgx-h100"},     {"a100-sxm4-80g", "dgx-a100-80g"},
		   {"a100-sxm4-40g", "dgx-a100-40g"}, {"h800-sxm5-80g", "hgx-h800"},
		   {"h200-sxm-141g", "hgx-h200"},
		   {"b200", "dgx-b200"}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(gpu, map[i].gpu))
			return map[i].node;
	return NULL;
}

static const char *engine_of(const char *engine)
{
	if (!strcmp(engine, "TensorRT-LLM")) /* the rows' tables are v0.5/v0.6 */
		return "trtllm-0.6";
	if (!strcmp(engine, "PyTorch-graphs")) /* tools/measure-serving.py */
		return "torch-graphs";
	if (!strcmp(engine, "vLLM"))
		return "vllm";
	return NULL;
}

/* The row's scenario text into b, or the reason it cannot be built. */
static const char *row_text(const cases_csv *c, size_t i, const char *dir, sim_buf *b)
{
	const char *node = node_of(get(c, i, "gpu")), *eng = engine_of(get(c, i, "engine"));
	if (!node)
		return "no node file for this gpu";
	if (!eng)
		return "no engine profile for this engine";
	long gpus = atol(get(c, i, "gpus")), tp = atol(get(c, i, "tp")), pp = atol(get(c, i, "pp"));
	long in = atol(get(c, i, "input_tokens")), out = atol(get(c, i, "output_tokens"));
	long batch = atol(get(c, i, "batch_size")), conc = atol(get(c, i, "concurrency"));
	long h = atol(get(c, i, "hidden"));
	if (gpus < 1 || tp < 1 || in < 1 || out < 1 || h < 1)
		return "gpus, tp, input_tokens, output_tokens or hidden missing";
	if (pp < 1)
		pp = 1;
	bool swiglu = !strcmp(get(c, i, "activation"), "swiglu");
	bool stat = !strcmp(get(c, i, "batching"), "static");
	const char *metric = get(c, i, "measured_metric");
	bool ttft = !strncmp(metric, "ttft", 4) || !strcmp(metric, "itl_mean");
	long n = stat ? (batch > 0 ? batch : 1) : (conc > 0 ? conc : 1);
	long seq = in + out > 2048 ? in + out : 2048;
	sim_buf_printf(b, "include = %s/topologies/nodes/%s.ini\n", dir, node);
	sim_buf_printf(b, "include = %s/topologies/serving/%s.ini\n", dir, eng);
	sim_buf_printf(b, "[scenario]\nname = %s\n", get(c, i, "id"));
	sim_buf_printf(b, "[model]\nname = %s\n", get(c, i, "model"));
	const char *keys[] = {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab"};
	for (size_t k = 0; k < 6; k++)
		sim_buf_printf(b, "%s = %s\n", keys[k], get(c, i, keys[k]));
	sim_buf_printf(b, "seq_len = %ld\nactivation = %s\nnorm = %s\nuntied_embeddings = true\n",
		       seq, swiglu ? "swiglu" : "gelu", swiglu ? "rmsnorm" : "layernorm");
	sim_buf_printf(b, "[node]\ngpus = %ld\n[cluster]\nname = %s-x1\nnodes = 1\n",
		       gpus * pp > 8 ? 8 : gpus, node);
	const char *prec = get(c, i, "precision"), *kv = get(c, i, "kv_precision");
	sim_buf_printf(b, "[serve]\ntp = %ld\npp = %ld\nreplicas = %ld\nweights = %s\n", tp, pp,
		       gpus / (tp * pp) > 0 ? gpus / (tp * pp) : 1, prec);
	if (*kv)
		sim_buf_printf(b, "kv_cache = %s\n", kv);
	sim_buf_printf(b, "batching = %s\nmax_batch = %ld\nrequests = %ld\n",
		       stat ? "static" : "continuous", n, stat || ttft ? n : 4 * n);
	sim_buf_printf(b, "arrivals = %s\nconcurrency = %ld\n", stat ? "offline" : "closed", n);
	sim_buf_printf(b, "prompt_tokens = %ld\noutput_tokens = %ld\nmax_tokens = %ld\n", in, out,
		       in * n > 8192 ? in * n : 8192);
	return NULL;
}

typedef struct vrow {
	char id[32], metric[48], gpu[48], group[64];
	char said[256]; /* numbers written loosely, as read (valid_loose_numbers_assume) */
	double measured, predicted, err;
	const char *skip;
} vrow;

static double predict(const serve_result *r, const char *metric)
{
	if (!strcmp(metric, "output_tokens_per_s_per_gpu"))
		return r->out_tok_per_s_gpu;
	if (!strcmp(metric, "output_tokens_per_s"))
		return r->out_tok_per_s;
	if (!strncmp(metric, "ttft", 4))
		return 1e3 * r->ttft.mean;
	if (!strcmp(metric, "itl_mean"))
		return 1e3 * r->tpot.mean;
	return NAN;
}

static void run_row(const cases_csv *c, size_t i, const char *dir, vrow *v, sim_diag *d)
{
	sim_buf b;
	sim_buf_init(&b);
	v->skip = row_text(c, i, dir, &b);
	if (v->skip || b.oom) {
		sim_buf_free(&b);
		v->skip = v->skip ? v->skip : "out of memory";
		return;
	}
	sim_diag *rd = sim_diag_new();
	serve_scenario *s = NULL;
	serve_result r;
	int rc = rd ? serve_scenario_load_string(b.data, v->id, dir, rd, &s) : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = serve_run(s, &r, rd);
	if (rc == SIM_OK) {
		v->predicted = predict(&r, v->metric);
		v->err = v->predicted / v->measured - 1;
	} else {
		v->skip = "the scenario does not load (podsim validate --scenario ID)";
		if (rd && sim_diag_count(rd) > 0)
			sim_diag_note(d, cases_csv_path(c), cases_csv_line(c, i), "%s: %s", v->id,
				      sim_diag_text(rd, 0));
	}
	serve_scenario_free(s);
	sim_diag_free(rd);
	sim_buf_free(&b);
}

/* Per group: the MAPE and the mean signed error of its rows. */
static void print_groups(FILE *out, const vrow *v, size_t n, bool by_gpu)
{
	char seen[64][112];
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].skip)
			continue;
		char key[112];
		snprintf(key, sizeof key, "%s | %s", v[i].group, by_gpu ? v[i].gpu : v[i].metric);
		bool found = false;
		for (size_t k = 0; k < ns && !found; k++)
			found = !strcmp(seen[k], key);
		if (!found && ns < 64)
			snprintf(seen[ns++], sizeof seen[0], "%s", key);
	}
	for (size_t k = 0; k < ns; k++) {
		double ae = 0, se = 0;
		int m = 0;
		for (size_t i = 0; i < n; i++) {
			char key[112];
			if (v[i].skip)
				continue;
			snprintf(key, sizeof key, "%s | %s", v[i].group, by_gpu ? v[i].gpu : v[i].metric);
			if (strcmp(key, seen[k]))
				continue;
			ae += fabs(v[i].err);
			se += v[i].err;
			m++;
		}
		fprintf(out, "  %-64s %3d rows  MAPE %6.1f %%  mean signed %+6.1f %%\n", seen[k], m,
			100 * ae / m, 100 * se / m);
	}
}

/* --scenario ID: the row's generated scenario text. */
static int print_scenario(const cases_csv *c, const char *id, const char *datadir, FILE *out,
			  sim_diag *d)
{
	for (size_t i = 0; i < cases_csv_rows(c); i++) {
		if (strcmp(get(c, i, "id"), id))
			continue;
		sim_buf b;
		sim_buf_init(&b);
		const char *why = row_text(c, i, datadir, &b);
		if (why)
			sim_diag_error(d, cases_csv_path(c), cases_csv_line(c, i), "%s: %s", id, why);
		else
			fputs(b.data ? b.data : "", out);
		sim_buf_free(&b);
		return why ? SIM_ECONF : SIM_OK;
	}
	sim_diag_error(d, cases_csv_path(c), 0, "no row with id '%s'", id);
	return SIM_ECONF;
}

static void print_json(FILE *out, const vrow *v, size_t nv, double sum, size_t ok)
{
	fprintf(out, "{\"rows\":[");
	for (size_t i = 0; i < nv; i++)
		fprintf(out, "%s{\"id\":\"%s\",\"metric\":\"%s\",\"measured\":%.6g,%s%.6g}", i ? "," : "",
			v[i].id, v[i].metric, v[i].measured,
			v[i].skip ? "\"skipped\":true,\"predicted\":" : "\"predicted\":",
			v[i].skip ? 0.0 : v[i].predicted);
	fprintf(out, "],\"mape\":%.6g,\"rows_compared\":%zu}\n", ok ? sum / (double)ok : 0.0, ok);
}

/* The rows (all, or those off by more than 15 %), then MAPE and mean signed
 * error per source and metric and per source and GPU. */
static void print_text(FILE *out, const vrow *v, size_t nv, bool all_rows, double sum, size_t ok)
{
	fprintf(out, "%-5s %-28s %-22s %12s %12s %8s\n", "id", "metric", "gpu", "measured",
		"predicted", "error");
	for (size_t i = 0; i < nv; i++) {
		if (v[i].skip) {
			fprintf(out, "%-5s skipped: %s\n", v[i].id, v[i].skip);
			continue;
		}
		if (!all_rows && fabs(v[i].err) <= 0.15)
			continue;
		fprintf(out, "%-5s %-28s %-22s %12.1f %12.1f %+7.1f%%\n", v[i].id, v[i].metric,
			v[i].gpu, v[i].measured, v[i].predicted, 100 * v[i].err);
		if (*v[i].said)
			fprintf(out, "      %s\n", v[i].said);
	}
	fprintf(out, "\nper source and metric\n");
	print_groups(out, v, nv, false);
	fprintf(out, "per source and GPU\n");
	print_groups(out, v, nv, true);
	fprintf(out, "all %zu rows compared: MAPE %.1f %%\n", ok, ok ? 100 * sum / (double)ok : 0.0);
}

int serve_validate(const char *csv, const char *datadir, const char *only, const char *scenario,
		   bool json, bool all_rows, double *mape_out, FILE *out, sim_diag *d)
{
	static const char *const cols[] = {"id", "source", "engine", "gpu", "gpus", "tp",
					   "precision", "batching", "input_tokens", "output_tokens",
					   "measured_metric", "measured_value", NULL};
	/* includes absolute, so a printed scenario runs from any folder */
	char abs[4096];
	if (realpath(datadir, abs))
		datadir = abs;
	cases_csv *c = NULL;
	int rc = valid_case_read(csv, &c, d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? rc : SIM_ECONF;
	/* numbers as sources write them ("1,024", "2K", "n/a") read, every
	 * numeric field checked, as podsim validate's other readers do */
	if (cases_csv_require(c, cols, d) > 0 || (rc = valid_case_numbers(c, d)) != SIM_OK) {
		cases_csv_free(c);
		return rc == SIM_ENOMEM ? rc : SIM_ECONF;
	}
	size_t n = cases_csv_rows(c);
	if (scenario) {
		rc = print_scenario(c, scenario, datadir, out, d);
		cases_csv_free(c);
		return rc;
	}
	vrow *v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		cases_csv_free(c);
		return SIM_ENOMEM;
	}
	size_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		const char *id = get(c, i, "id");
		if (only && strncmp(id, only, strlen(only)))
			continue;
		vrow *r = &v[nv++];
		snprintf(r->id, sizeof r->id, "%s", id);
		snprintf(r->metric, sizeof r->metric, "%s", get(c, i, "measured_metric"));
		snprintf(r->gpu, sizeof r->gpu, "%s %s", get(c, i, "gpu"), get(c, i, "precision"));
		valid_loose_numbers_assume(c, i, r->said, sizeof r->said);
		const char *src = get(c, i, "source");
		snprintf(r->group, sizeof r->group, "%.*s", (int)strcspn(src, " "), src);
		if (cases_get_real(c, i, "measured_value", NAN, &r->measured, d) != SIM_OK ||
		    !(r->measured > 0)) {
			r->skip = "no measured value";
			continue;
		}
		run_row(c, i, datadir, r, d);
	}
	double sum = 0;
	size_t ok = 0;
	for (size_t i = 0; i < nv; i++)
		if (!v[i].skip) {
			sum += fabs(v[i].err);
			ok++;
		}
	if (mape_out)
		*mape_out = ok ? sum / (double)ok : NAN;
	if (json)
		print_json(out, v, nv, sum, ok);
	else
		print_text(out, v, nv, all_rows, sum, ok);
	free(v);
	cases_csv_free(c);
	return SIM_OK;
}
