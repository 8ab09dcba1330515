/* sweep.c - `podsim sweep`: enumerate a space of plans, prune the invalid
 * and the ones that do not fit, pre-screen the rest in closed form, simulate
 * the best K, and print them ranked with cost, energy and the Pareto front
 * (the sweep module does the work; this file parses the options and drives
 * the rounds, the signals and the store; sweep_sim.c simulates a round's
 * plans, sweep_out.c prints). */
#include "sweep/sweep.h"
#include "campaign/campaign.h"
#include "cli/cli.h"
#include "cli/sweep_out.h"
#include "cli/sweep_run.h"
#include "store/store.h"
#include "topo/topo.h"
#include "report/report.h"
#include "valid/valid.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_INPUT  2
/* a sweep stopped by signal S exits 128 + S, as a shell reports it */
#define MAX_SHARDS  4096

static const char usage[] =
        "usage: podsim sweep FILE [options]\n"
        "\n"
        "Explore parallelism plans: every plan of the space is checked, pruned when it\n"
        "does not fit in GPU memory, timed by a closed-form pre-screen, and the best K\n"
        "are simulated and stored under one sweep id. FILE is a scenario (the space\n"
        "comes from --vary) or a sweep file with a [sweep] section:\n"
        "    [sweep]\n"
        "    scenario = quickstart.ini   ; relative to the sweep file\n"
        "    tp = auto                   ; one key per dimension (podsim keys, [sweep])\n"
        "    micro_batch = 1,2,4\n"
        "When tp, pp, cp, nodes or the topology vary and dp does not, dp = GPUs /\n"
        "(tp*pp*cp). 'topology=A.ini,B.ini' (--vary, or 'topology =' in [sweep],\n"
        "relative to the sweep file) swaps the scenario's cluster include for each file,\n"
        "keeping its model and plan: one sweep compares DGX A100, DGX H100, PCIe boxes.\n"
        "\n"
        "options:\n"
        "  --vary SECTION.KEY=V1,V2,...  a dimension (repeatable); V = auto enumerates\n"
        "                           tp, pp, cp, ep, vpp, micro_batch, zero, order,\n"
        "                           shard_size, enums and booleans\n"
        "  --set SECTION.KEY=VALUE  override a key of the base scenario (repeatable)\n"
        "  --top K                  simulate the pre-screen's best K and stop: fast, but\n"
        "                           the closed form may rank the best plan past K\n"
        "                           (default: the exact search below)\n"
        "  --max-sims N             the exact search's cap on plans simulated after the\n"
        "                           first 32 (default 2000); past it the answer is\n"
        "                           marked not proven\n"
        "  --shard I/N              simulate only the plans at places j of the pre-screen\n"
        "                           order with j % N == I (0 <= I < N), e.g. for SLURM\n"
        "                           job arrays, each shard with its own --db; combine\n"
        "                           them with 'podsim runs merge OUT.db IN.db...'\n"
        "  --train-tokens D         time, GPU-hours, energy, cost and CO2 to train on\n"
        "                           D tokens (e.g. 2e12) with the best plan;\n"
        "                           'chinchilla' = 20 x parameters; with a [campaign]\n"
        "                           section the simulated plans are also ranked by\n"
        "                           expected days with failures (podsim train)\n"
        "  --json                   one JSON object: plans (each with loses: its step\n"
        "                           minus rank 1's per category), pruned (counts by\n"
        "                           reason), pruned_examples, prescreen_plans_per_s\n"
        "  --html FILE              a page with the ranked plans, step time against cost\n"
        "                           and the Pareto front (inline SVG, no script)\n"
        "  --spread-samples N       on a cluster with a measured collective spread ([cluster]\n"
        "                           spread, EFA): replay each simulated plan N times with\n"
        "                           sampled collective times for its median and 95th\n"
        "                           percentile, and mark risky plans (default 100, as run;\n"
        "                           0 = off)\n"
        "  --threads N              simulate N plans at once (default: the cores it may use,\n"
        "                           at most 8; 1 under mpirun); the table, the runs stored\n"
        "                           and their order are the same for any N\n"
        "  --db PATH                run database (default: $PODSIM_DB, else podsim.db)\n"
        "  --no-db                  do not store the runs\n"
        "  -h, --help               this help\n"
        "\n"
        "Without --top (or a sweep file's top), the search is exact: the pre-screen's\n"
        "best 32 are simulated, then every other plan whose lower bound (the GPU time\n"
        "of its busiest path's kernels, which no simulation undercuts) is under the\n"
        "best of them; no plan left out can be faster within the model.\n"
        "\n"
        "Below the table, each plan after the first says why it loses to rank 1: its\n"
        "step minus rank 1's, split over the breakdown of the stage that sets each\n"
        "step (the one idling least), largest term first (JSON: loses); podsim compare\n"
        "on the two stored runs explains them with the same figures.\n"
        "\n"
        "Energy per step = PUE x step x (GPUs x TDP x busy + nodes x node power), busy =\n"
        "the compute streams' utilisation; cost = GPU-hours x [cluster] gpu_hour_price.\n"
        "\n"
        "Ctrl-C (SIGINT), SIGTERM (a batch time limit) or SIGHUP stops after the plan\n"
        "being simulated; the finished runs stay stored and the sweep records them\n"
        "(exit status 128 + the signal: 130 for Ctrl-C, 143 for SIGTERM). Built with\n"
        "MPI, 'mpirun -n N podsim sweep ...' spreads the pre-screen and the simulations\n"
        "over N ranks; rank 0 prints and stores.\n"
        "\n"
        "exit status: 0 ok, 1 runtime error, 2 bad input\n";

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("sweep", NULL, msg, arg);
}

static int parse_shard(const char *t, sweep_opts *o)
{
	char *end;
	long i = strtol(t, &end, 10), n = 0;
	if (end != t && *end == '/') {
		const char *q = end + 1;
		n = strtol(q, &end, 10);
		if (end == q || *end)
			n = 0;
	}
	if (n < 1 || n > MAX_SHARDS || i < 0 || i >= n)
		return 1;
	o->shard = (int)i;
	o->nshards = (int)n;
	return 0;
}

static int parse_opts(int argc, char **argv, sweep_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool val = !strcmp(a, "--vary") || !strcmp(a, "--set") || !strcmp(a, "--top") ||
		           !strcmp(a, "--db") || !strcmp(a, "--train-tokens") ||
		           !strcmp(a, "--shard") || !strcmp(a, "--html") ||
		           !strcmp(a, "--spread-samples") || !strcmp(a, "--max-sims") ||
		           !strcmp(a, "--threads");
		if (val && i + 1 >= argc)
			return bad("option needs a value", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--no-db"))
			o->no_db = true;
		else if (!strcmp(a, "--vary") && o->nvary < MAX_ARGS)
			o->vary[o->nvary++] = argv[++i];
		else if (!strcmp(a, "--set") && o->nsets < MAX_ARGS)
			o->sets[o->nsets++] = argv[++i];
		else if (!strcmp(a, "--db"))
			o->db = argv[++i];
		else if (!strcmp(a, "--train-tokens"))
			o->train = argv[++i];
		else if (!strcmp(a, "--html"))
			o->html = argv[++i];
		else if (!strcmp(a, "--shard")) {
			if (parse_shard(argv[++i], o))
				return bad("--shard takes I/N with 0 <= I < N <= 4096", argv[i]);
		} else if (!strcmp(a, "--spread-samples")) {
			if (cli_parse_samples(argv[++i], &o->spread_samples) != 0)
				return bad(CLI_SAMPLES_MSG, argv[i]);
		} else if (!strcmp(a, "--max-sims")) {
			char *end;
			o->max_sims = strtol(argv[++i], &end, 10);
			if (*end || o->max_sims < 1 || o->max_sims > 10000000)
				return bad("--max-sims takes a count from 1 to 10000000", argv[i]);
		} else if (!strcmp(a, "--threads")) {
			char *end;
			o->threads = strtol(argv[++i], &end, 10);
			if (*end || o->threads < 1 || o->threads > SIM_PAR_MAX)
				return bad("--threads takes a count from 1 to 64", argv[i]);
		} else if (!strcmp(a, "--top")) {
			char *end;
			o->top = strtol(argv[++i], &end, 10);
			if (*end || o->top < 1 || o->top > 100000)
				return bad("--top takes a count from 1 to 100000", argv[i]);
		} else if (val)
			return bad("too many --vary or --set options", NULL);
		else if (a[0] == '-' && a[1])
			return bad("unknown option", a);
		else if (o->file)
			return bad("sweep takes one file", a);
		else
			o->file = a;
	}
	return 0;
}

static const char *db_path(const sweep_opts *o)
{
	return cli_db_path(o->db);
}

/* Tokens to train on: a number, or chinchilla = 20 x parameters (Hoffmann et
 * al. 2022). <= 0 when the text is neither. */
static double train_tokens(const char *text, const plan_scenario *s)
{
	if (!strcmp(text, "chinchilla"))
		return 20.0 * work_params_total(&s->model);
	char *end;
	double d = strtod(text, &end);
	return *end || !isfinite(d) ? -1 : d;
}

/* ------------------------------------------------------------ simulation -- */

static int by_step(const void *a, const void *b)
{
	const sim_row *x = a, *y = b;
	if (x->r->step_s != y->r->step_s)
		return x->r->step_s < y->r->step_s ? -1 : 1;
	return x->plan->index < y->plan->index ? -1 : x->plan->index > y->plan->index;
}

/* Kendall's tau between the pre-screen's and the simulation's step times. */
static double rank_tau(const sim_row *rows, size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
	double tau = NAN;
	if (x && y) {
		for (size_t i = 0; i < n; i++) {
			x[i] = rows[i].plan->est.step_s;
			y[i] = rows[i].r->step_s;
		}
		tau = sweep_kendall_tau(x, y, n);
	}
	free(x);
	free(y);
	return tau;
}

static void mark_pareto(sim_row *rows, size_t n)
{
	double *a = malloc((n ? n : 1) * 3 * sizeof *a);
	bool *f = malloc((n ? n : 1) * sizeof *f);
	if (a && f) {
		for (size_t i = 0; i < n; i++) {
			a[i] = rows[i].r->step_s;
			a[n + i] = rows[i].r->gpus;
			a[2 * n + i] = rows[i].cost.cost_usd;
		}
		sweep_pareto(a, a + n, a + 2 * n, n, f);
		for (size_t i = 0; i < n; i++)
			rows[i].pareto = f[i];
	}
	free(a);
	free(f);
}

/* Risky plans (sweep_risky) among the rows with a spread. */
static void mark_risky(sim_row *rows, size_t n)
{
	double *q = malloc((n ? n : 1) * 4 * sizeof *q);
	long *vs = malloc((n ? n : 1) * sizeof *vs);
	for (size_t i = 0; i < n; i++)
		rows[i].risky_vs = -1;
	if (q && vs) {
		for (size_t i = 0; i < n; i++) {
			const exec_step_spread *sp = &rows[i].r->spread;
			bool on = report_has_spread(rows[i].r);
			q[i] = on ? sp->p50_s : NAN;
			q[n + i] = on ? sp->p95_s : NAN;
			q[2 * n + i] = on ? sp->p95_lo_s : NAN;
			q[3 * n + i] = on ? sp->p95_hi_s : NAN;
		}
		sweep_risky(q, q + n, q + 2 * n, q + 3 * n, n, vs);
		for (size_t i = 0; i < n; i++)
			rows[i].risky_vs = vs[i];
	}
	free(q);
	free(vs);
}

/* Each plan after the first against the best, term by term (exec_step_diff). */
static void mark_loses(sim_row *rows, size_t n)
{
	if (n > 0)
		memset(&rows[0].loses, 0, sizeof rows[0].loses);
	for (size_t i = 1; i < n; i++)
		exec_step_diff_of(rows[i].r, rows[0].r, &rows[i].loses);
}

/* ------------------------------------------------------------------ main -- */

/* Set by the stop handler (SIGINT, and SIGTERM and SIGHUP: SLURM's time
 * limit sends SIGTERM, a closed terminal SIGHUP) to the signal's number
 * while plans are simulated, read between runs. A handler reaches only
 * static storage, so this is the file's one mutable variable; sweep_sim.c
 * reads it through sweep_run.stop (and under MPI makes it the ranks'
 * maximum, as the rounds here do). */
static volatile sig_atomic_t interrupted;

static void on_stop(int sig)
{
	interrupted = sig;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

/* The base scenario. Its own plan need not be valid when the space varies
 * keys: every plan of the space is checked on its own (screen.c), so a
 * base whose tp a framework refuses, or whose dp another split derives,
 * still sweeps (one note names its error); a base that does not read, or
 * whose plan's error no dimension varies away, fails as before. */
static int load_base(sweep_run *w)
{
	sim_diag *own = sim_diag_new();
	if (!own)
		return SIM_ENOMEM;
	int rc = plan_scenario_load(w->scenario, w->o.sets, w->o.nsets, own, &w->base);
	if (rc == SIM_ECONF && sweep_space_ndims(w->sp) > 0) {
		sim_diag *quiet = sim_diag_new();
		int ru = quiet ? plan_scenario_load_unchecked(w->scenario, w->o.sets, w->o.nsets,
		                                              quiet, &w->base)
		               : SIM_ENOMEM;
		if (ru == SIM_OK && sim_diag_count(quiet) == 0 && sim_diag_count(own) > 0) {
			const char *t = sim_diag_text(own, 0), *e = strstr(t, "error: ");
			sim_diag_note(w->d, w->o.file, 0,
			              "the base scenario's own plan is not valid (%s); each plan of "
			              "the space is checked on its own",
			              e ? e + 7 : t);
			sim_diag_clear(own);
			rc = SIM_OK;
		} else if (ru == SIM_OK) {
			plan_scenario_free(w->base);
			w->base = NULL;
		}
		sim_diag_free(quiet);
	}
	sim_diag_print(own, stderr); /* the base's errors, before the rest */
	sim_diag_free(own);
	return rc;
}

/* Read the file, the --vary flags and the base scenario. 0 or exit status. */
static int setup(sweep_run *w)
{
	bool is_sweep = false;
	int rc = sweep_file_load(w->o.file, w->sp, &w->f, &is_sweep, w->d);
	w->scenario = is_sweep ? w->f.scenario : w->o.file;
	for (size_t i = 0; rc == SIM_OK && i < w->o.nvary; i++)
		rc = sweep_space_add(w->sp, w->o.vary[i], "podsim sweep", 0, w->d);
	if (rc == SIM_OK)
		rc = load_base(w);
	if (rc == SIM_OK)
		rc = sweep_space_resolve(w->sp, w->base, w->d);
	if (cli_flush_diag(w->d) || rc != SIM_OK) {
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	uint64_t size = sweep_space_size(w->sp);
	if (size > SWEEP_MAX_PLANS) {
		char dims[512] = "";
		size_t used = 0;
		for (size_t i = 0; i < sweep_space_ndims(w->sp) && used < sizeof dims; i++)
			used += (size_t)snprintf(dims + used, sizeof dims - used, "%s%s %zu",
			                         i ? " x " : "", sweep_space_key(w->sp, i),
			                         sweep_space_nvalues(w->sp, i));
		fprintf(stderr,
		        "%s: error: the sweep space holds %s%.4g plans (%s), more than the %llu a "
		        "sweep enumerates (its pre-screen keeps every plan in memory, about %zu "
		        "bytes each): narrow a dimension or sweep the space in slices\n",
		        w->o.file, size == UINT64_MAX ? "more than " : "", (double)size, dims,
		        (unsigned long long)SWEEP_MAX_PLANS, sizeof(sweep_plan));
		return EXIT_INPUT;
	}
	if (w->o.train && train_tokens(w->o.train, w->base) <= 0)
		return bad("--train-tokens takes a token count or 'chinchilla'", w->o.train);
	return cli_load_refs(&w->refs);
}

static int open_db(sweep_run *w)
{
	if (w->o.no_db || w->par.rank != 0)
		return 0;
	char *spec = sweep_space_text(w->sp);
	store_sweep_counts c = {(int64_t)w->sr.nplans, (int64_t)w->sr.valid, (int64_t)w->sr.fitting,
	                        (int64_t)w->mine,      w->o.shard,           w->o.nshards};
	int rc = spec ? store_open(db_path(&w->o), &w->db, w->d) : SIM_ENOMEM;
	if (rc == SIM_OK)
		rc = store_put_sweep(w->db, spec, &c, &w->sweep_id, w->d);
	free(spec);
	cli_flush_diag(w->d);
	return rc == SIM_OK ? 0 : 1;
}

/* Move the simulated rows to the front, keeping their order (every row's
 * result pointer stays in the array, once). */
static void compact(sweep_run *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->mine; i++)
		if (w->rows[i].done) {
			sim_row t = w->rows[n];
			w->rows[n++] = w->rows[i];
			w->rows[i] = t;
		}
	w->n = n;
}

/* Room for n rows (zeroed past the old end). 0 or 1 (out of memory). */
static int grow_rows(sweep_run *w, size_t n)
{
	if (n <= w->cap)
		return 0;
	sim_row *t = realloc(w->rows, n * sizeof *t);
	if (!t)
		return 1;
	memset(t + w->cap, 0, (n - w->cap) * sizeof *t);
	w->rows = t;
	w->cap = n;
	return 0;
}

/* Rows for plans idx[0..k) at places base+1.. of the search order: with
 * shards, place j belongs to shard j % N. The exact search's rows are all
 * simulated (each shard needs the whole first round's best step), only this
 * shard's stored; with --top, only this shard's are kept at all. */
static int add_rows(sweep_run *w, const uint64_t *idx, size_t k, size_t base)
{
	size_t N = (size_t)(w->o.nshards ? w->o.nshards : 1);
	if (grow_rows(w, w->mine + k))
		return 1;
	for (size_t j = 0; j < k; j++) {
		bool own = (base + j) % N == (size_t)w->o.shard;
		if (!own && !w->search.exact)
			continue;
		sim_row *row = &w->rows[w->mine++];
		row->plan = &w->sr.plans[idx[j]];
		row->rank = (int64_t)(base + j) + 1;
		row->own = own;
	}
	return 0;
}

/* The first round: the pre-screen's best K (--top, the sweep file's top, or
 * 32 for the exact search). */
static int pick_rows(sweep_run *w)
{
	size_t K = (size_t)(w->o.top ? w->o.top : w->f.top ? w->f.top : 32);
	uint64_t *best = malloc(K * sizeof *best);
	if (!best)
		return 1;
	size_t k = sweep_best(&w->sr, K, best);
	int rc = add_rows(w, best, k, 0);
	free(best);
	w->search.first = w->mine;
	return rc;
}

/* The exact search's second round (exact.c): every plan whose lower bound is
 * under the first round's best step, up to --max-sims of them. */
static int second_round(sweep_run *w)
{
	double best = INFINITY;
	for (size_t i = 0; i < w->mine; i++)
		if (w->rows[i].state > 0 && w->rows[i].r && w->rows[i].r->step_s < best)
			best = w->rows[i].r->step_s;
	w->search.threshold = sweep_par_min(&w->par, best);
	uint64_t *done = malloc((w->mine ? w->mine : 1) * sizeof *done), *cand = NULL;
	if (!done)
		return SIM_ENOMEM;
	for (size_t i = 0; i < w->mine; i++)
		done[i] = w->rows[i].plan->index;
	size_t n = 0;
	int rc = isfinite(w->search.threshold)
	                 ? sweep_exact_candidates(&w->sr, done, w->mine, w->search.threshold, &cand, &n)
	                 : SIM_OK;
	free(done);
	if (rc != SIM_OK)
		return rc;
	size_t cap = (size_t)(w->o.max_sims ? w->o.max_sims : 2000), k = n < cap ? n : cap;
	w->search.left = n - k;
	size_t from = w->mine;
	if (add_rows(w, cand, k, w->search.first)) {
		free(cand);
		return SIM_ENOMEM;
	}
	free(cand);
	if (k > 0 && !w->o.json)
		fprintf(stderr, "podsim sweep: exact search: %zu more plans have a lower bound under "
		        "the best step so far (%.4f s)%s\n", k, w->search.threshold,
		        w->search.left ? ", capped by --max-sims" : "");
	rc = sweep_sim_range(w, from, w->mine);
	w->search.proven = rc == SIM_OK && !interrupted && w->search.left == 0;
	return rc;
}

static int simulate_best(sweep_run *w)
{
	w->search.exact = !w->o.top && !w->f.top;
	if (pick_rows(w))
		return 1;
	/* The pre-screen's best already past the clock: bad input, refused
	 * before anything is stored (the estimate is in double seconds). */
	if (w->mine > 0 && w->rows[0].plan->est.step_s >= sim_time_to_s(SIM_TIME_HORIZON)) {
		char set[512];
		cli_sweep_settings(w->sp, w->rows[0].plan, set, sizeof set);
		fprintf(stderr,
		        "%s: error: the best plan's estimated step (%s) lasts %.3g s, past the "
		        "simulator's clock (at most %.0f days a step in int64 picoseconds): check "
		        "the GPU's peaks, the links' bandwidths and the model's size\n",
		        w->o.file, set, w->rows[0].plan->est.step_s,
		        sim_time_to_s(SIM_TIME_HORIZON) / 86400);
		return EXIT_INPUT;
	}
	if (open_db(w))
		return 1;
	struct sigaction sa, old[NSTOP];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++) /* one stop at a time */
		sigaddset(&sa.sa_mask, stop_signals[i]);
	interrupted = 0;
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
	int rc = sweep_sim_range(w, 0, w->mine);
	interrupted = sweep_par_max(&w->par, interrupted);
	if (rc == SIM_OK && w->search.exact && !interrupted)
		rc = second_round(w);
	compact(w);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	w->stopped = interrupted;
	if (cli_flush_diag(w->d) || rc != SIM_OK) {
		fprintf(stderr, "podsim sweep: error: %s\n", sim_strerror(rc));
		return 1;
	}
	/* the record's count: interrupted, plans left out, or a second round */
	if ((w->stopped || w->search.exact || w->n < w->mine) && w->db)
		store_set_sweep_simulated(w->db, w->sweep_id, (int64_t)w->n, w->d);
	if (w->n > 0) /* qsort wants a non-null array even when empty */
		qsort(w->rows, w->n, sizeof *w->rows, by_step);
	mark_pareto(w->rows, w->n);
	mark_risky(w->rows, w->n);
	mark_loses(w->rows, w->n);
	return 0;
}

/* Train-to-D figures of the best plan (its scenario loaded again). */
static int train(sweep_run *w, sweep_train *t)
{
	plan_scenario *s;
	if (sweep_plan_load(w->sp, w->rows[0].plan, w->scenario, w->o.sets, w->o.nsets, w->d, &s) !=
	    SIM_OK)
		return 1;
	sweep_train_cost(s, w->rows[0].r, &w->rows[0].cost, train_tokens(w->o.train, s), t);
	if (!w->o.json)
		cli_sweep_print_train(t, s, w->rows[0].r);
	plan_scenario_free(s);
	return 0;
}

/* With a [campaign] section in the scenario: the simulated plans ranked by
 * the days their campaign is expected to take with failures, checkpoints
 * and restarts (campaign_expected_wall, Daly's closed form: no Monte Carlo
 * per plan; spares and async roll-backs left out), since a plan on more GPUs
 * fails more often. Tokens: --train-tokens, else [campaign]. Returns an exit
 * status (2: the campaign's input is bad). */
typedef struct days_row {
	size_t i;
	double days, ideal, goodput, mtbf_h;
} days_row;

static int by_days(const void *a, const void *b)
{
	const days_row *x = a, *y = b;
	return x->days < y->days ? -1 : x->days > y->days ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

static int rank_days(sweep_run *w)
{
	if (!conf_has_section(w->base->doc, "campaign") || w->n == 0)
		return 0;
	days_row *d = calloc(w->n, sizeof *d);
	campaign_input *in = malloc(sizeof *in);
	int rc = d && in ? SIM_OK : SIM_ENOMEM;
	for (size_t i = 0; rc == SIM_OK && i < w->n; i++) {
		plan_scenario *s;
		rc = sweep_plan_load(w->sp, w->rows[i].plan, w->scenario, w->o.sets, w->o.nsets, w->d,
				     &s);
		if (rc != SIM_OK)
			break;
		campaign_opts co = {w->o.train ? train_tokens(w->o.train, s) : -1, -1, -1, -1};
		rc = campaign_setup(s, w->rows[i].r, &co, in, w->d);
		plan_scenario_free(s);
		if (rc != SIM_OK)
			break;
		double e = campaign_expected_wall(in);
		d[i] = (days_row){i, e / 86400, in->steps * in->step_s / 86400,
				  in->steps * in->step_s / e,
				  in->rate_s > 0 ? 1 / (3600 * in->rate_s) : INFINITY};
		w->rows[i].has_days = true;
		w->rows[i].days = e / 86400;
	}
	sim_diag_print(w->d, stderr);
	sim_diag_clear(w->d);
	if (rc != SIM_OK) {
		free(d);
		free(in);
		return rc == SIM_ENOMEM ? 1 : EXIT_INPUT;
	}
	qsort(d, w->n, sizeof *d, by_days);
	if (w->o.json) {
		free(d);
		free(in);
		return 0;
	}
	printf("\nranked by expected days to train with failures ([campaign]; closed form, "
	       "podsim train for the distribution):\n");
	printf("%4s %9s %6s %10s %9s %8s %10s %10s  %s\n", "rank", "step rank", "GPUs", "step (s)",
	       "MTBF (h)", "goodput", "no fail.", "expected", "plan");
	for (size_t k = 0; k < w->n; k++) {
		const sim_row *row = &w->rows[d[k].i];
		char set[512];
		cli_sweep_settings(w->sp, row->plan, set, sizeof set);
		printf("%4zu %9zu %6d %10.4f %9.2f %7.1f%% %10.2f %10.2f  %s\n", k + 1, d[k].i + 1,
		       row->r->gpus, row->r->step_s, d[k].mtbf_h, 100 * d[k].goodput, d[k].ideal,
		       d[k].days, set);
	}
	free(d);
	free(in);
	return 0;
}

static int run_sweep(sweep_run *w)
{
	int rc = setup(w);
	if (rc)
		return rc;
	if (sweep_screen_par(&w->par, w->sp, w->base, w->scenario, w->o.sets, w->o.nsets, &w->sr) !=
	    SIM_OK)
		return 1;
	if ((rc = simulate_best(w)) || w->par.rank != 0)
		return rc;
	if (w->stopped) {
		fprintf(stderr, "podsim sweep: interrupted%s: %zu of %zu plans simulated%s\n",
		        w->stopped == SIGTERM  ? " by SIGTERM"
		        : w->stopped == SIGHUP ? " by SIGHUP"
		                               : "",
		        w->n, w->mine, w->db ? " and stored" : "");
		if (w->sweep_id > 0)
			fprintf(stderr, "podsim: stored as sweep %lld in %s\n",
			        (long long)w->sweep_id, db_path(&w->o));
		return 128 + w->stopped;
	}
	double tau = rank_tau(w->rows, w->n);
	sweep_nearest nf;
	if (sweep_nearest_of(w->sp, &w->sr, w->scenario, w->o.sets, w->o.nsets, w->d, &nf) != SIM_OK)
		return 1;
	sweep_train t;
	bool want_train = w->o.train && w->n > 0;
	if (!w->o.json)
		cli_sweep_print_text(w->sp, &w->sr, w->rows, w->n, tau, w->sweep_id, w->o.shard,
		           w->o.nshards, &w->search, &nf, w->base ? w->base->cluster.fit_weak : "");
	if (want_train && train(w, &t))
		return 1;
	if ((rc = rank_days(w)))
		return rc;
	if (w->o.json)
		cli_sweep_print_json(w->sp, &w->sr, w->rows, w->n, tau, w->sweep_id, want_train ? &t : NULL,
		           &w->search, &nf);
	if (w->o.html && cli_sweep_html(w->o.html, w->o.file, w->sp, w->rows, w->n, tau))
		return 1;
	fflush(stdout); /* the report before the note, where both go to one file */
	if (w->sweep_id > 0)
		fprintf(stderr, "podsim: stored as sweep %lld in %s\n", (long long)w->sweep_id,
		        db_path(&w->o));
	if (w->n == 0 && w->mine > 0 && w->past_clock == w->mine) {
		fprintf(stderr, "podsim sweep: error: every plan runs past the simulator's clock "
		                "(warnings above)\n");
		return EXIT_INPUT;
	}
	if (w->sr.valid == 0 || w->sr.fitting == 0) {
		fprintf(stderr, "podsim sweep: %s\n",
		        w->sr.valid == 0 ? "no plan of the sweep is valid (the reasons above)"
		                         : "no plan fits in memory (the nearest and its cuts above)");
		return 1;
	}
	return w->n > 0 || w->search.first == 0 || w->o.nshards > 1
	               ? 0
	               : (fprintf(stderr, "podsim sweep: no plan fits\n"), 1);
}

int cli_sweep(int argc, char **argv)
{
	sweep_run w;
	memset(&w, 0, sizeof w);
	w.stop = &interrupted;
	w.o.spread_samples = -1;
	int rc = parse_opts(argc, argv, &w.o);
	if (rc)
		return rc;
	if (w.o.help) {
		fputs(usage, stdout);
		printf("MPI: %s\n", sweep_par_built() ? "built in" : "not built in (meson -Dmpi)");
		return 0;
	}
	if (!w.o.file)
		return bad("sweep takes a scenario or sweep file", NULL);
	if (!cli_outputs_ok(&w.o.html, 1) || (!w.o.no_db && !cli_db_ok(db_path(&w.o))))
		return 2;
	if (sweep_par_init(&w.par) != SIM_OK) {
		fprintf(stderr, "podsim sweep: error: cannot start MPI\n");
		return 1;
	}
	w.sp = sweep_space_new();
	w.d = sim_diag_new();
	rc = w.sp && w.d && topo_graphs_new(&w.graphs) == SIM_OK ? run_sweep(&w) : 1;
	for (size_t i = 0; i < w.cap; i++)
		free(w.rows[i].r);
	free(w.rows);
	sweep_screen_free(&w.sr);
	plan_scenario_free(w.base);
	valid_refs_free(w.refs);
	store_close(w.db);
	sweep_space_free(w.sp);
	sim_diag_free(w.d);
	topo_graphs_free(w.graphs);
	sweep_par_end(&w.par);
	return rc;
}
