/* explain.c - `podsim explain SCENARIO.ini`: how each headline number of a run
 * is obtained, as the formula with the scenario's values plugged in, next to
 * what the simulated step gives, with a line on where and why they differ.
 *
 * Sections (symbols: l layers, h hidden, a heads, g KV heads, d head size,
 * f MLP inner size, V vocabulary, s sequence, b micro-batch, t = tp, p = pp,
 * m micro-batches, v = vpp, n = DP group size):
 *  1. parameters per component (work.h's counts: attention h(ad) + 2h(gd) +
 *     (ad)h, MLP 2hf or 3hf with SwiGLU, norms and biases, embedding, output);
 *  2. model FLOPs per token, 6 x matmul weights + 6Vh logits + 12 l s (ad)
 *     attention (Narayanan et al. 2021), per step and the MFU; the sustained
 *     clock the kernels run at (hw.h tensor_sustain) or the assumption;
 *  3. memory per GPU of the most loaded stage (on the GPU type the plan's
 *     verdict is decided on: [cluster] other_gpu's worst stage when it is):
 *     2 + 4 + 12 bytes per parameter (sharded by ZeRO), Korthikanti et al.
 *     2022's activation terms times the micro-batches in flight, buffers and
 *     fragmentation (plan_memory); the plan's verdict, the worst of its GPU
 *     types and offload tiers, and the cuts;
 *  4. the textbook bubble (p-1)/(m+p-1), divided by v when interleaved, next to
 *     the simulated bubble fraction;
 *  5. the ring all-reduce of one stage's gradients, lat + 2(n-1)/n S/busbw
 *     (net.h), next to the gradient buckets the graph reduces
 *     (plan_grad_buckets: layers, chunk, bytes, launch, alpha-beta time) and
 *     the simulated exposed DP time;
 *  6. the error band: the validation cell nearest the scenario (valid.h,
 *     valid_band_find: GPU generation, framework, scale), its sources and
 *     residual quantiles, the widening rule when it applied, the band times
 *     the step (widened by the step's spread where there is one); and the
 *     MFU against the best published for the GPU;
 *  7. what a micro-batch costs beyond its tokens on the busiest stage
 *     (plan_microbatch_cost): kernels and collectives issued, the host time
 *     to issue them against the GPU time, the collectives' latency, the
 *     gradient accumulation, the pipeline transfers' overhead; their sum
 *     times m, against the step;
 *  8. the optimizer step of stage 0 (plan_optimizer_cost): bytes per trained
 *     parameter (update, gradient norm, casts), the kernels and the fraction
 *     of the copy rate they stream at, the time, next to the simulated
 *     optimizer time;
 *  9. on a cluster with a measured collective spread (a calibrated fabric): the step's
 *     spread (exec/spread.c): the data, the split log-normal, the step's
 *     collectives that vary per group and node count, the correlation
 *     assumption, the sampled quantiles, the two limits (fully correlated,
 *     independent) and what the step exposes;
 * 10. with nodes of another GPU type ([cluster] other_gpu): how the slowest
 *     replica's step comes about (exec/mixed.c);
 * 11. (10 without them) with a [campaign] section: its set-up
 *     (campaign_explain).
 * Last, with --against: what makes the plan lose to the best plan of a
 *     space or to a named plan, term by term (explain_against.c; the other
 *     plan is searched before anything is printed, so a bad --against
 *     prints nothing but its error).
 * This file holds the command (arguments, the run, the section order), the
 * number formats the sections share (explain_int.h) and section 11; the
 * others live by topic: 1-2 explain_model.c, 3 explain_mem.c, 4, 7 and 8
 * explain_step.c, 5 explain_dp.c, 6, 9 and 10 explain_spread.c.
 * Deterministic (no wall time), so it is tested against golden files
 * (tests/golden/explain/). Exit 0, 1 if the simulation fails, 2 on bad input.
 */
#include "explain_int.h"

#include "campaign/campaign.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPLAIN_EXIT_INPUT 2
#define EXPLAIN_MAX_SETS   256

static const char usage_explain[] =
        "usage: podsim explain SCENARIO.ini [--set SECTION.KEY=VALUE ...]\n"
        "\n"
        "Simulate one step of the scenario (nothing is stored) and explain each headline\n"
        "number: the formula, the values plugged in and the result, next to what the\n"
        "simulation gives: parameter count per component, FLOPs per token and MFU,\n"
        "memory per category (weights, gradients, optimizer, Korthikanti activations),\n"
        "the textbook pipeline bubble (p-1)/(m+p-1) and the ring all-reduce time of\n"
        "the DP gradients, with where and why they differ; the error band; what a\n"
        "micro-batch costs beyond its tokens (collective latency, host dispatch the GPU\n"
        "waits for, gradient accumulation, pipeline handshakes), times the micro-batches;\n"
        "on a cluster with a measured collective spread (podsim calibrate --fabric), the\n"
        "step's spread and its limits.\n"
        "\n"
        "options:\n"
        "  --set SECTION.KEY=VALUE  override a key (repeatable)\n"
        "  --spread-samples N       sampled replays of the step's spread (default 100)\n"
        "  --kernels                a section listing one layer's kernels, forward and\n"
        "                           backward: shape, GPU time, rate against the peak\n"
        "  --against best|PLAN      a last section: what makes this plan lose to another\n"
        "                           (or the other lose to it), term by term on the stage\n"
        "                           that sets each step. best: the fastest plan of\n"
        "                           parallel.tp, pp and micro_batch (auto) or of the --vary\n"
        "                           dimensions, found by the sweep's exact search; PLAN:\n"
        "                           KEY=VALUE[,KEY=VALUE...], [parallel] keys or\n"
        "                           SECTION.KEY (tp=4,micro_batch=2; dp derived from the\n"
        "                           GPUs when tp, pp or cp change and dp is not given)\n"
        "  --vary SECTION.KEY=V1,V2,...|auto  a dimension of --against best's space\n"
        "                           (repeatable; as podsim sweep --vary)\n"
        "  -h, --help               this help\n";

/* ------------------------------------------------------------- formats -- */

/* An integer-valued count grouped by thousands: "1,678,000". */
const char *explain_cnt(double v, char *buf, size_t len)
{
	char d[40];
	snprintf(d, sizeof d, "%.0f", fabs(v));
	size_t n = strlen(d), o = 0;
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Bytes with one decimal in binary units: "17.8 GiB". */
const char *explain_gib(double v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	while (fabs(v) >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

/* "  why          TEXT" with TEXT wrapped at EXPLAIN_COLS columns under itself. */
void explain_why(FILE *o, const char *text)
{
	const int indent = 15;
	fputs("  why          ", o);
	int col = indent;
	while (*text) {
		size_t w = strcspn(text, " ");
		if (col > indent && col + 1 + (int)w > EXPLAIN_COLS) {
			fprintf(o, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', o);
			col++;
		}
		fwrite(text, 1, w, o);
		col += (int)w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', o);
}

const char *explain_unit(double v, sim_unit u, char *buf, size_t len)
{
	sim_unit_format(v, u, buf, len);
	return buf;
}

/* ------------------------------------------------------------------ main -- */

/* 10 (11 after the mixed nodes'): with a [campaign] section the campaign's
 * set-up (campaign_explain), numbered *number, which it then advances.
 * Its input errors are the user's: printed, exit status 2. */
static int campaign_section(FILE *o, const plan_scenario *s, const exec_result *r, int *number)
{
	if (!conf_has_section(s->doc, "campaign"))
		return SIM_OK;
	sim_diag *d = sim_diag_new();
	campaign_input *in = malloc(sizeof *in);
	int rc = d && in ? campaign_setup(s, r, NULL, in, d) : SIM_ENOMEM;
	if (rc == SIM_OK)
		campaign_explain(o, in, (*number)++);
	if (d)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	free(in);
	return rc;
}

/* Is argv[i] an option that takes a value? */
static bool takes_value(const char *a)
{
	return !strcmp(a, "--set") || !strcmp(a, "--spread-samples") || !strcmp(a, "--against") ||
	       !strcmp(a, "--vary");
}

static int parse(int argc, char **argv, const char **file, const char **sets, size_t *nsets,
                 bool *help, long *samples, explain_against *ag, bool *kernels)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			*help = true;
		else if (!strcmp(argv[i], "--kernels"))
			*kernels = true;
		else if (!strcmp(argv[i], "--against") && i + 1 < argc) {
			ag->spec = argv[++i];
			ag->best = !strcmp(ag->spec, "best");
		} else if (!strcmp(argv[i], "--vary") && i + 1 < argc) {
			if (ag->nvary == EXPLAIN_MAX_VARY)
				return cli_usage_error("explain", usage_explain,
				                       "--vary: at most 8 dimensions", argv[i + 1]);
			ag->vary[ag->nvary++] = argv[++i];
		}
		else if (!strcmp(argv[i], "--set") && i + 1 < argc && *nsets < EXPLAIN_MAX_SETS)
			sets[(*nsets)++] = argv[++i];
		else if (!strcmp(argv[i], "--spread-samples") && i + 1 < argc) {
			if (cli_parse_samples(argv[++i], samples) != 0)
				return cli_usage_error("explain", usage_explain, CLI_SAMPLES_MSG,
				                       argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "podsim explain: error: %s: %s\n\n%s",
			        takes_value(argv[i]) ? "option needs a value"
			                : "unknown option",
			        argv[i], usage_explain);
			return EXPLAIN_EXIT_INPUT;
		} else if (!*file)
			*file = argv[i];
		else {
			fprintf(stderr, "podsim explain: error: takes one scenario file\n\n%s",
			        usage_explain);
			return EXPLAIN_EXIT_INPUT;
		}
	}
	return 0;
}

/* The report itself, section by section, of a simulated plan (cli_explain). */
static int print_sections(const char *file, const plan_scenario *s, const exec_result *r,
                          const valid_refs *refs, bool kernels, const explain_against *ag)
{
	printf("podsim explain: %s (%s)\n  %s on %d x %s (%s), plan %s\n", r->scenario, file,
	       r->model, r->gpus, r->gpu, r->cluster, r->plan);
	if (*r->layout)
		printf("  layout: %s\n", r->layout);
	printf("  Each figure: the formula, the scenario's values, the result; then what "
	       "the simulated step gives.\n");
	char sp[200];
	if (plan_sp_assumption(s, sp, sizeof sp))
		printf("  assumed: %s\n", sp);
	if (plan_zero_assumption(s, sp, sizeof sp))
		printf("  assumed: %s\n", sp);
	explain_params(stdout, &s->model);
	explain_vocab(stdout, s);
	explain_flops(stdout, s, r);
	explain_memory(stdout, s, r);
	explain_bubble(stdout, s, r);
	explain_dp(stdout, s, r);
	explain_band(stdout, s, r, refs);
	explain_mb_cost(stdout, s, r);
	explain_optimizer(stdout, s, r);
	explain_spread(stdout, s, r);
	explain_mixed(stdout, s, r);
	/* the sections after 9 are numbered as they are printed: 10 the mixed
	 * nodes' (only with them), context parallelism's (cp > 1), then the
	 * campaign, then --against */
	int n = r->mixed.nodes > 0 ? 11 : 10;
	if (s->plan.cp > 1)
		explain_cp(stdout, n++, s, r);
	int rc = campaign_section(stdout, s, r, &n);
	if (rc == SIM_OK && kernels)
		explain_kernels(stdout, n++, s);
	if (rc == SIM_OK && ag->spec)
		explain_against_print(stdout, n, ag, r);
	return rc;
}

int cli_explain(int argc, char **argv)
{
	const char *file = NULL, *sets[EXPLAIN_MAX_SETS];
	size_t nsets = 0;
	bool help = false;
	long samples = EXEC_SPREAD_SAMPLES;
	explain_against ag = {NULL, false, {NULL}, 0, NULL, NULL};
	bool kernels = false;
	int rc = parse(argc, argv, &file, sets, &nsets, &help, &samples, &ag, &kernels);
	if (rc || help) {
		if (help)
			fputs(usage_explain, stdout);
		return rc;
	}
	if (ag.nvary > 0 && !ag.best) {
		fprintf(stderr, "podsim explain: error: --vary gives the space of --against best\n\n%s",
		        usage_explain);
		return EXPLAIN_EXIT_INPUT;
	}
	if (!file) {
		fprintf(stderr, "podsim explain: error: takes one scenario file\n\n%s",
		        usage_explain);
		return EXPLAIN_EXIT_INPUT;
	}
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	rc = plan_scenario_load(file, sets, nsets, d, &s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc != SIM_OK)
		return rc == SIM_ENOMEM ? 1 : EXPLAIN_EXIT_INPUT;
	valid_refs *refs = NULL;
	if ((rc = cli_load_refs(&refs)) != 0) {
		plan_scenario_free(s);
		return rc;
	}
	/* the other plan first: a bad --against stops before any output */
	if (ag.spec && (rc = explain_against_search(&ag, file, sets, nsets, s)) != SIM_OK) {
		explain_against_free(&ag);
		valid_refs_free(refs);
		plan_scenario_free(s);
		return rc == SIM_ECONF ? EXPLAIN_EXIT_INPUT : 1;
	}
	exec_result *r = malloc(sizeof *r);
	exec_spread_opts sp = {(int)samples, s->seed, -1, 0};
	exec_views v = {NULL, NULL, 0, NULL, &sp, false};
	rc = r ? exec_run_views(s, r, &v) : SIM_ENOMEM;
	if (rc == SIM_OK)
		valid_refs_apply(refs, s, r); /* the band as run prints it */
	if (rc == SIM_OK)
		rc = print_sections(file, s, r, refs, kernels, &ag);
	else if (rc == SIM_ERANGE && r) /* bad input: the clock */
		fprintf(stderr, "%s: error: %s\n", file, r->error);
	else
		fprintf(stderr, "podsim explain: error: %s\n", sim_strerror(rc));
	free(r);
	explain_against_free(&ag);
	valid_refs_free(refs);
	plan_scenario_free(s);
	return rc == SIM_OK                                           ? 0
	       : rc == SIM_ECONF || rc == SIM_EIO || rc == SIM_ERANGE ? EXPLAIN_EXIT_INPUT
	                                                              : 1;
}
