/* compare.c - `podsim compare ID ID ...`: stored runs side by side, the
 * settings that differ, and one line naming the biggest difference in the
 * step's breakdown and the settings behind it ("run 7 spends 2.1 s less in
 * pipeline bubbles than run 3: parallel.vpp 3 vs 1").
 *
 * Settings are compared by their effective values: each run's stored
 * resolved scenario text, with every key it does not set filled in with the
 * key table's default (the same tables the loader reads: [scenario], [model],
 * [gpu], [node], [cluster], [parallel], [train], [framework]), so a key one
 * run sets and the other leaves at its default (vpp = 5 against vpp's
 * default 1) is a difference, printed with "(default)".
 *
 * Breakdown figures are per category on the worst rank class (the largest
 * time of that category over the pipeline stages), as `podsim run` reports
 * them per stage. The explanation is read off one class per run instead,
 * the one that sets its step (exec_step_diff): its categories sum to the
 * step, so the slower run's terms add up to the difference of the steps,
 * which the worst-per-category figures need not (a pipeline's first stage
 * holds its bubble, its last stage the extra compute); the sweep's "loses"
 * lines are the same figures. `sweep:N` stands for every run of sweep N,
 * fastest first. */
#include "cli/cli.h"
#include "report/report.h"
#include "store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT   2
#define MAX_RUNS     16
#define MAX_SETTINGS 1024

static const char usage[] =
        "usage: podsim compare ID ID ... [--db PATH]\n"
        "\n"
        "Print stored runs side by side: headline metrics (with each run's error band\n"
        "and implausibility flag) and the step's breakdown (worst pipeline stage per\n"
        "category), each with its difference from the first run, the plans, the\n"
        "settings whose effective values differ (keys a run leaves unset compared at\n"
        "their defaults), and the biggest difference explained: the slower run's step\n"
        "minus the faster's, split over the breakdown of the stage that sets each step\n"
        "(the one idling least), the largest term named, as podsim sweep's \"loses\"\n"
        "lines do. An ID is a run id or sweep:N (every run of sweep N, fastest first).\n"
        "\n"
        "options:\n"
        "  --db PATH    run database (default: $PODSIM_DB, else podsim.db)\n"
        "  -h, --help   this help\n"
        "\n"
        "exit status: 0 ok, 1 database error, 2 bad input (unknown run)\n";

typedef struct setting {
	char key[96];
	char value[128];
	bool def; /* not in the scenario text: the key table's default */
} setting;

typedef struct run_view {
	int64_t id;
	exec_result r;
	double cat_s[EXEC_CAT_COUNT]; /* worst class per category */
	setting *set;
	size_t nset;
} run_view;

/* "[section]" and "key = value" lines of a resolved scenario into settings. */
static size_t parse_settings(const char *text, setting *out, size_t cap)
{
	char section[64] = "";
	size_t n = 0;
	for (const char *p = text; p && *p && n < cap;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		if (len > 2 && p[0] == '[')
			snprintf(section, sizeof section, "%.*s", (int)(len - 2), p + 1);
		else if (eq) {
			size_t kl = (size_t)(eq - p);
			while (kl && p[kl - 1] == ' ')
				kl--;
			const char *v = eq + 1;
			while (*v == ' ')
				v++;
			snprintf(out[n].key, sizeof out[n].key, "%s.%.*s", section, (int)kl, p);
			snprintf(out[n].value, sizeof out[n].value, "%.*s", (int)(p + len - v), v);
			n++;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static const setting *find_setting(const run_view *v, const char *key)
{
	for (size_t i = 0; i < v->nset; i++)
		if (!strcmp(v->set[i].key, key))
			return &v->set[i];
	return NULL;
}

static const char *setting_of(const run_view *v, const char *key)
{
	const setting *x = find_setting(v, key);
	return x ? x->value : "-";
}

/* Every key of the loader's tables that the scenario text does not set,
 * with its default (keys without one are required: always in the text). */
static size_t fill_defaults(run_view *v, size_t cap)
{
	static const struct {
		const char *section;
		const conf_key *keys;
		const size_t *n;
	} tables[] = {
		{"scenario", plan_scenario_keys, &plan_scenario_nkeys},
		{"model", work_model_keys, &work_model_nkeys},
		{"gpu", hw_gpu_keys, &hw_gpu_nkeys},
		{"node", net_node_keys, &net_node_nkeys},
		{"cluster", net_cluster_keys, &net_cluster_nkeys},
		{"parallel", plan_spec_keys, &plan_spec_nkeys},
		{"train", plan_train_keys, &plan_train_nkeys},
		{"framework", plan_framework_keys, &plan_framework_nkeys},
	};
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		for (size_t k = 0; k < *tables[t].n && v->nset < cap; k++) {
			const conf_key *key = &tables[t].keys[k];
			char name[96];
			snprintf(name, sizeof name, "%s.%s", tables[t].section, key->name);
			if (!key->def || find_setting(v, name))
				continue;
			setting *x = &v->set[v->nset++];
			snprintf(x->key, sizeof x->key, "%s", name);
			snprintf(x->value, sizeof x->value, "%s", key->def);
			x->def = true;
		}
	return v->nset;
}

static int load_run(store *db, int64_t id, run_view *v, sim_diag *d)
{
	char *text = NULL;
	v->id = id;
	int rc = store_get_run(db, id, &v->r, &text, d);
	if (rc != SIM_OK)
		return rc;
	for (int k = 0; k < v->r.nclasses; k++)
		for (int c = 0; c < EXEC_CAT_COUNT; c++)
			if (v->r.classes[k].time_s[c] > v->cat_s[c])
				v->cat_s[c] = v->r.classes[k].time_s[c];
	v->set = calloc(MAX_SETTINGS, sizeof *v->set);
	v->nset = v->set ? parse_settings(text, v->set, MAX_SETTINGS) : 0;
	if (v->set)
		fill_defaults(v, MAX_SETTINGS);
	free(text);
	return v->set ? SIM_OK : SIM_ENOMEM;
}

/* IDs from the arguments: run ids and sweep:N. 0 or exit status. */
static int collect_ids(store *db, const char *const *args, int n, int64_t *ids, size_t *nids,
                       sim_diag *d)
{
	*nids = 0;
	for (int i = 0; i < n; i++) {
		bool sweep = !strncmp(args[i], "sweep:", 6);
		char *end;
		long long x = strtoll(args[i] + (sweep ? 6 : 0), &end, 10);
		if (*end || x <= 0) {
			fprintf(stderr, "podsim compare: error: not a run id or sweep:N: %s\n",
			        args[i]);
			return EXIT_INPUT;
		}
		if (!sweep) {
			if (*nids == MAX_RUNS)
				break;
			ids[(*nids)++] = x;
			continue;
		}
		size_t got;
		if (store_sweep_runs(db, x, ids + *nids, MAX_RUNS - *nids, &got, d) != SIM_OK)
			return 1;
		if (got == 0) {
			fprintf(stderr, "podsim compare: error: no runs in sweep %lld\n", x);
			return EXIT_INPUT;
		}
		*nids += got < MAX_RUNS - *nids ? got : MAX_RUNS - *nids;
	}
	if (*nids < 2) {
		fprintf(stderr, "podsim compare: error: give at least two runs\n");
		return EXIT_INPUT;
	}
	return 0;
}

/* ---------------------------------------------------------------- output -- */

/* One metric row: the value of each run and, after the first, its change. */
static void metric(const char *name, const double *x, size_t n, const char *fmt)
{
	printf("%-24s", name);
	for (size_t i = 0; i < n; i++) {
		char cell[96], val[32];
		snprintf(val, sizeof val, fmt, x[i]);
		if (i == 0 || x[i] == x[0])
			snprintf(cell, sizeof cell, "%s", val);
		else {
			char d[32];
			snprintf(d, sizeof d, fmt, x[i] - x[0]);
			snprintf(cell, sizeof cell, "%s (%s%s)", val, x[i] > x[0] ? "+" : "", d);
		}
		printf(" %24s", cell);
	}
	putchar('\n');
}

static void print_table(const run_view *v, size_t n)
{
	double x[MAX_RUNS];
	printf("%-24s", "run");
	for (size_t i = 0; i < n; i++)
		printf(" %24lld", (long long)v[i].id);
	putchar('\n');
#define METRIC(name, expr, fmt)                                                                    \
	do {                                                                                       \
		for (size_t i = 0; i < n; i++)                                                     \
			x[i] = (expr);                                                             \
		metric(name, x, n, fmt);                                                           \
	} while (0)
	METRIC("GPUs", v[i].r.gpus, "%.0f");
	METRIC("step (s)", v[i].r.step_s, "%.4f");
	printf("%-24s", "likely (s)"); /* the error band each run was stored with */
	for (size_t i = 0; i < n; i++) {
		char band[64];
		report_range_text(v[i].r.band_lo_s, v[i].r.band_hi_s, "", band, sizeof band);
		printf(" %24s", *band ? band : "-");
	}
	putchar('\n');
	bool spread = false; /* the step's spread, where any run was stored with one */
	for (size_t i = 0; i < n; i++)
		spread = spread || report_has_spread(&v[i].r);
	for (int q = 0; spread && q < 2; q++) {
		printf("%-24s", q ? "step p95 (s)" : "step p50 (s)");
		for (size_t i = 0; i < n; i++) {
			const exec_step_spread *sp = &v[i].r.spread;
			char cell[32] = "-";
			if (report_has_spread(&v[i].r))
				snprintf(cell, sizeof cell, "%.4f", q ? sp->p95_s : sp->p50_s);
			printf(" %24s", cell);
		}
		putchar('\n');
	}
	METRIC("tokens/s", v[i].r.tokens_per_s, "%.0f");
	METRIC("MFU (%)", 100 * v[i].r.mfu, "%.2f");
	printf("%-24s", "implausible");
	for (size_t i = 0; i < n; i++)
		printf(" %24s", v[i].r.implausible ? "yes" : "no");
	putchar('\n');
	METRIC("bubble (%)", 100 * v[i].r.bubble_fraction, "%.2f");
	METRIC("memory peak (GiB)", v[i].r.mem_peak_bytes / 1073741824.0, "%.2f");
	for (int c = 0; c < EXEC_CAT_COUNT; c++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any = any || v[i].cat_s[c] > 0;
		if (!any)
			continue;
		char name[40];
		snprintf(name, sizeof name, "%s (s)", exec_cat_name((exec_cat)c));
		METRIC(name, v[i].cat_s[c], "%.4f");
	}
#undef METRIC
	printf("\nplans:\n");
	for (size_t i = 0; i < n; i++)
		printf("  run %lld: %s\n", (long long)v[i].id, v[i].r.plan);
}

/* Whether key is among the settings of runs before i (printed already). */
static bool seen_before(const run_view *v, size_t i, const char *key)
{
	for (size_t j = 0; j < i; j++)
		if (find_setting(&v[j], key))
			return true;
	return false;
}

/* Settings whose effective values differ between the runs: every key of
 * any run, in the first run's order, then the others' new keys; a default
 * is marked. */
static void print_setting_diffs(const run_view *v, size_t n)
{
	bool header = false;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].nset; k++) {
			const char *key = v[i].set[k].key;
			if (seen_before(v, i, key))
				continue;
			bool differs = false;
			for (size_t j = 0; j < n; j++)
				differs = differs || strcmp(setting_of(&v[j], key), v[i].set[k].value);
			if (!differs)
				continue;
			if (!header)
				printf("\nsettings that differ (effective values, defaults included):\n");
			header = true;
			printf("  %-30s", key);
			for (size_t j = 0; j < n; j++) {
				const setting *x = find_setting(&v[j], key);
				printf(" %s%s%s", j ? "| " : "", x ? x->value : "-",
				       x && x->def ? " (default)" : "");
			}
			putchar('\n');
		}
}

/* "run B spends X s less in C than run A: key vb vs va" for the fastest run
 * against the first (or the slowest, when the first is the fastest). */
static void explain(const run_view *v, size_t n)
{
	size_t fast = 0, slow = 0;
	for (size_t i = 1; i < n; i++) {
		fast = v[i].r.step_s < v[fast].r.step_s ? i : fast;
		slow = v[i].r.step_s > v[slow].r.step_s ? i : slow;
	}
	size_t a = fast == 0 ? slow : 0, b = fast;
	if (a == b) {
		printf("\nthe runs take the same time\n");
		return;
	}
	/* a's step minus b's, on the class that sets each (the sweep's "loses"
	 * lines use the same): the term that makes a lose */
	exec_step_diff diff;
	exec_step_diff_of(&v[a].r, &v[b].r, &diff);
	if (diff.largest < 0) {
		printf("\nrun %lld is faster than run %lld, but no category of the classes that "
		       "set their steps differs\n",
		       (long long)v[b].id, (long long)v[a].id);
		return;
	}
	exec_cat best = (exec_cat)diff.largest;
	printf("\nrun %lld spends %.3g s less %s than run %lld", (long long)v[b].id,
	       diff.cat_s[best], cli_cat_words(best), (long long)v[a].id);
	const char *const *keys = cli_cat_settings(best);
	int shown = 0;
	for (int i = 0; keys[i] && shown < 2; i++) {
		const char *x = setting_of(&v[b], keys[i]), *y = setting_of(&v[a], keys[i]);
		if (strcmp(x, y))
			printf("%s %s %s vs %s", shown++ ? "," : ":", keys[i], x, y);
	}
	char text[512];
	cli_step_diff_text(&diff, text, sizeof text);
	printf("\n  run %lld's step minus run %lld's (%s against %s, the stages that set them): %s\n",
	       (long long)v[a].id, (long long)v[b].id, v[a].r.classes[diff.class_a].name,
	       v[b].r.classes[diff.class_b].name, text);
}

int cli_compare(int argc, char **argv)
{
	const char *db_path = NULL, *args[MAX_RUNS * 4];
	int nargs = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
			db_path = argv[++i];
		} else if (argv[i][0] == '-' || nargs == MAX_RUNS * 4) {
			fprintf(stderr, "podsim compare: error: unexpected argument: %s\n\n%s",
			        argv[i], usage);
			return EXIT_INPUT;
		} else {
			args[nargs++] = argv[i];
		}
	}
	db_path = cli_db_path(db_path);
	if (!cli_db_ok(db_path))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	store *db = NULL;
	run_view *v = calloc(MAX_RUNS, sizeof *v);
	int64_t ids[MAX_RUNS];
	size_t n = 0;
	int rc = !d || !v ? 1 : store_open(db_path, &db, d) != SIM_OK ? 1 : 0;
	if (rc == 0)
		rc = collect_ids(db, args, nargs, ids, &n, d);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int e = load_run(db, ids[i], &v[i], d);
		if (e == SIM_ENOTFOUND)
			fprintf(stderr, "podsim compare: error: no run %lld in %s\n",
			        (long long)ids[i], db_path);
		rc = e == SIM_OK ? 0 : e == SIM_ENOTFOUND ? EXIT_INPUT : 1;
	}
	if (d)
		sim_diag_print(d, stderr);
	if (rc == 0) {
		print_table(v, n);
		print_setting_diffs(v, n);
		explain(v, n);
	}
	for (size_t i = 0; v && i < MAX_RUNS; i++)
		free(v[i].set);
	free(v);
	store_close(db);
	sim_diag_free(d);
	return rc;
}

/* ----------------------------------------------------------- runs merge -- */

static const char usage_merge[] =
        "usage: podsim runs merge OUT.db IN.db...\n"
        "\n"
        "Copy every run of the IN databases (with their breakdown, memory and link\n"
        "rows and their sweeps) into OUT under new ids, in one transaction. The shards\n"
        "of one sweep ('podsim sweep --shard I/N', e.g. one per SLURM array task)\n"
        "become one sweep again, its runs in the unsharded order: merging all N shards\n"
        "gives the 'runs digest' of the same sweep run without --shard. Serving runs\n"
        "('podsim serve') follow with their latency rows. Inputs must\n"
        "have this podsim's schema version (open an older one once with 'podsim runs\n"
        "--db FILE' to migrate it).\n"
        "\n"
        "exit status: 0 ok, 1 database error, 2 bad input\n";

int cli_runs_merge(int argc, char **argv)
{
	const char *files[MAX_SETTINGS];
	int n = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_merge, stdout);
			return 0;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "podsim runs merge: error: unknown option: %s\n", argv[i]);
			return EXIT_INPUT;
		}
		if (n == MAX_SETTINGS) {
			fprintf(stderr, "podsim runs merge: error: more than %d files\n",
			        MAX_SETTINGS);
			return EXIT_INPUT;
		}
		files[n++] = argv[i];
	}
	if (n < 2) {
		fprintf(stderr, "podsim runs merge: error: expected OUT.db IN.db...\n%s",
		        usage_merge);
		return EXIT_INPUT;
	}
	if (!cli_db_ok(files[0]))
		return EXIT_INPUT;
	sim_diag *d = sim_diag_new();
	store *db = NULL;
	int64_t runs = 0, sweeps = 0, serve = 0;
	int rc = d ? store_open(files[0], &db, d) : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = store_merge(db, files + 1, (size_t)(n - 1), &runs, &sweeps, &serve, d);
	if (d)
		sim_diag_print(d, stderr);
	if (rc == SIM_OK && serve > 0)
		printf("merged %lld runs, %lld sweeps and %lld serving runs from %d databases into "
		       "%s\n",
		       (long long)runs, (long long)sweeps, (long long)serve, n - 1, files[0]);
	else if (rc == SIM_OK)
		printf("merged %lld runs and %lld sweeps from %d databases into %s\n",
		       (long long)runs, (long long)sweeps, n - 1, files[0]);
	store_close(db);
	sim_diag_free(d);
	return rc == SIM_OK ? 0 : 1;
}
