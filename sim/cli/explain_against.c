/* explain_against.c - `podsim explain --against`: the last section, what
 * makes this plan lose to another one, or another one lose to it.
 *
 * The other plan is either named (--against tp=4,micro_batch=2: keys of
 * [parallel] or SECTION.KEY, one value each, dp derived from the GPUs when
 * tp, pp or cp change and dp is not given, as a sweep derives it) or the
 * best of a space (--against best: parallel.tp, pp and micro_batch = auto,
 * or the --vary dimensions), found by the sweep's exact search
 * (sweep_pick_best). The two steps are then split term by term on the
 * stage that sets each (exec_step_diff, the sweep's "loses" lines and
 * compare's explanation): the slower step minus the faster, per breakdown
 * category; the categories of a stage sum to its step, so the terms sum to
 * the difference. The largest positive term is the one the slower plan
 * loses on; the settings that move it (cli_cat_settings) are named.
 * When this plan is the best of the space, the runner-up is explained
 * against it. */
#include "explain_int.h"

#include "sweep/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AGAINST_FIRST 16  /* the search's first round */
#define AGAINST_SIMS  200 /* plans simulated at most */

/* "tp=4,micro_batch=2" into the space: one dimension per assignment, a
 * bare key taken as [parallel]'s. SIM_OK or SIM_ECONF (diag). */
static int add_plan(sweep_space *sp, const char *spec, sim_diag *d)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", spec);
	int rc = SIM_OK;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && rc == SIM_OK;
	     t = strtok_r(NULL, ",", &save)) {
		char one[SWEEP_SET_MAX + 16];
		const char *eq = strchr(t, '=');
		if (!eq || eq == t) {
			sim_diag_error(d, "podsim explain", 0,
			               "--against %s: expected best or KEY=VALUE[,KEY=VALUE...] "
			               "(e.g. tp=4,micro_batch=2), not '%s'",
			               spec, t);
			return SIM_ECONF;
		}
		bool bare = memchr(t, '.', (size_t)(eq - t)) == NULL;
		snprintf(one, sizeof one, "%s%s", bare ? "parallel." : "", t);
		rc = sweep_space_add_as(sp, one, "--against", "podsim explain", d);
	}
	return rc;
}

/* The space to compare against; SIM_OK or SIM_ECONF (diag). */
static int build_space(const explain_against *a, const plan_scenario *s, sweep_space *sp,
                       sim_diag *d)
{
	static const char *const best_dims[] = {"parallel.tp=auto", "parallel.pp=auto",
	                                        "parallel.micro_batch=auto"};
	int rc = SIM_OK;
	if (!a->best)
		rc = add_plan(sp, a->spec, d);
	else if (a->nvary > 0)
		for (size_t i = 0; i < a->nvary && rc == SIM_OK; i++)
			rc = sweep_space_add_as(sp, a->vary[i], "--vary", "podsim explain", d);
	else
		for (size_t i = 0; i < sizeof best_dims / sizeof best_dims[0] && rc == SIM_OK; i++)
			rc = sweep_space_add_as(sp, best_dims[i], "--against best", "podsim explain", d);
	return rc == SIM_OK ? sweep_space_resolve(sp, s, d) : rc;
}

/* "parallel.tp 1,2,4,8, parallel.pp 1,2 (...)" / the named plan: the
 * values of each dimension, the first and last of more than 8. */
static void space_title(const explain_against *a, const sweep_space *sp, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	if (!a->best) {
		snprintf(buf, len, "%s", a->spec);
		return;
	}
	for (size_t i = 0; i < sweep_space_ndims(sp) && used < len; i++) {
		size_t n = sweep_space_nvalues(sp, i);
		used += (size_t)snprintf(buf + used, len - used, "%s%s ", i ? "; " : "",
		                         sweep_space_key(sp, i));
		for (size_t j = 0; j < n && used < len; j++) {
			if (n > 8 && j > 0 && j < n - 1)
				continue;
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			                         j == 0 ? "" : n > 8 ? ".." : ",",
			                         sweep_space_value(sp, i, j));
		}
		if (n > 8 && used < len)
			used += (size_t)snprintf(buf + used, len - used, " (%zu values)", n);
	}
}

/* "--set parallel.tp=4 --set parallel.dp=32" for plan p. */
static void sets_text(const sweep_space *sp, const sweep_plan *p, char *buf, size_t len)
{
	char sets[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	size_t n = sweep_plan_sets(sp, p, sets), used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s--set %s", i ? " " : "", sets[i]);
}

/* The explanation of slow against fast (names as printed). */
static void print_diff(FILE *o, const exec_result *slow, const char *slow_name,
                       const exec_result *fast, const char *fast_name)
{
	exec_step_diff d;
	exec_step_diff_of(slow, fast, &d);
	char text[512];
	cli_step_diff_text(&d, text, sizeof text);
	fprintf(o, "  terms        %s minus %s: %s\n", slow_name, fast_name, text);
	if (d.largest < 0) {
		fprintf(o, "  loses on     no category of the stages that set the steps is larger "
		           "(the steps differ by their rounding)\n");
		return;
	}
	exec_cat c = (exec_cat)d.largest;
	fprintf(o, "  loses on     %s: %+.4f s more %s (%s against %s: the stages that set the "
	           "steps)\n",
	        exec_cat_name(c), d.cat_s[c], cli_cat_words(c), slow->classes[d.class_a].name,
	        fast->classes[d.class_b].name);
	char why[1024];
	size_t used = (size_t)snprintf(why, sizeof why,
	                               "Each step is split over the breakdown of the stage that "
	                               "sets it (the one idling least); a stage's categories sum "
	                               "to its step, so the terms add up to the difference. "
	                               "Settings that move %s:",
	                               exec_cat_name(c));
	const char *const *keys = cli_cat_settings(c);
	for (int i = 0; keys[i] && used < sizeof why; i++)
		used += (size_t)snprintf(why + used, sizeof why - used, "%s %s", i ? "," : "",
		                         keys[i]);
	if (!keys[0] && used < sizeof why)
		snprintf(why + used, sizeof why - used, " none of the plan's keys alone");
	else if (used < sizeof why)
		snprintf(why + used, sizeof why - used, ".");
	explain_why(o, why);
}

static void print_plan(FILE *o, const char *tag, const exec_result *r, const exec_result *ref)
{
	fprintf(o, "  %-12s %s: %.4f s", tag, r->plan, r->step_s);
	if (ref && ref != r)
		fprintf(o, ", %+.4f s (%+.1f%%)", r->step_s - ref->step_s,
		        100 * (r->step_s / ref->step_s - 1));
	fputc('\n', o);
}

/* The search line: counts, the rounds, whether the best is proven. */
static void print_search(FILE *o, const explain_against *a, const sweep_pick *p)
{
	const sweep_screen_result *sr = &p->sr;
	fprintf(o, "  search       %llu plan%s, %llu valid, %llu fit%s in memory; %zu simulated",
	        (unsigned long long)sr->nplans, sr->nplans == 1 ? "" : "s",
	        (unsigned long long)sr->valid, (unsigned long long)sr->fitting,
	        sr->fitting == 1 ? "s" : "", p->simulated);
	if (a->best)
		fprintf(o, ": the pre-screen's best %d, then those whose lower bound is under the best "
		           "step%s",
		        AGAINST_FIRST, p->left ? "" : " (exact: none left faster)");
	if (p->left)
		fprintf(o, "; %zu more under the bound not simulated (at most %d are)", p->left,
		        AGAINST_SIMS);
	if (p->past_clock)
		fprintf(o, "; %zu left out, past the clock", p->past_clock);
	fputc('\n', o);
}

/* "podsim explain: --against: 12/40 plans simulated" on a terminal. */
static void progress(size_t done, size_t planned, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "\rpodsim explain: --against: %zu/%zu plans simulated%s", done, planned,
	        done == planned ? "\n" : "");
	fflush(stderr);
}

int explain_against_search(explain_against *a, const char *path, const char *const *sets,
                           size_t nsets, const plan_scenario *s)
{
	sim_diag *d = sim_diag_new();
	a->sp = sweep_space_new();
	a->pick = calloc(1, sizeof *a->pick);
	int rc = d && a->sp && a->pick ? build_space(a, s, a->sp, d) : SIM_ENOMEM;
	sweep_pick_in in = {path,
	                    sets,
	                    nsets,
	                    a->best ? AGAINST_FIRST : 1,
	                    a->best ? AGAINST_SIMS : 1,
	                    isatty(fileno(stderr)) ? progress : NULL,
	                    NULL};
	if (rc == SIM_OK)
		rc = sweep_pick_best(a->sp, s, &in, a->pick, d);
	if (d)
		sim_diag_print(d, stderr);
	sim_diag_free(d);
	if (rc == SIM_OK && !a->best && !a->pick->best) {
		const sweep_screen_result *sr = &a->pick->sr;
		fprintf(stderr, "podsim explain: error: --against %s: the plan does not run: %s\n",
		        a->spec, sr->nreasons > 0 ? sr->examples[0] : "it was left out");
		rc = SIM_ECONF;
	}
	return rc;
}

void explain_against_print(FILE *o, int number, const explain_against *a, const exec_result *r)
{
	const sweep_pick *p = a->pick;
	char title[512];
	space_title(a, a->sp, title, sizeof title);
	fprintf(o, "\n%d. Against %s%s%s\n", number, a->best ? "the best plan of " : "", title,
	        a->best ? "" : " (named by --against)");
	print_search(o, a, p);
	if (!p->best) {
		fprintf(o, "  best         none: no plan of the space fits in memory and simulates "
		           "(first reason: %s)\n",
		        p->sr.nreasons > 0 ? p->sr.examples[0] : "nothing was simulated");
		return;
	}
	bool self = !strcmp(p->r->plan, r->plan);
	const exec_result *other = self ? p->r2 : p->r;
	const sweep_plan *other_plan = self ? p->second : p->best;
	const char *tag = a->best ? (self ? "runner-up" : "best") : "other";
	if (self)
		fprintf(o, "  best         this plan: no plan of the space simulates faster\n");
	if (!other) {
		fprintf(o, "  %-12s none: it is the only plan of the space that fits\n", tag);
		return;
	}
	char how[1024];
	sets_text(a->sp, other_plan, how, sizeof how);
	print_plan(o, tag, other, NULL);
	fprintf(o, "  %-12s %s\n", "", how);
	print_plan(o, "this plan", r, other);
	if (r->step_s > other->step_s)
		print_diff(o, r, "this plan", other, tag);
	else
		print_diff(o, other, tag, r, "this plan");
}

void explain_against_free(explain_against *a)
{
	if (a->pick)
		sweep_pick_free(a->pick);
	free(a->pick);
	sweep_space_free(a->sp);
	a->pick = NULL;
	a->sp = NULL;
}
