/* waive.c - a profile's missing-feature rules set aside for a measured row
 * (valid_int.h: valid_rule_waivers, valid_printed_waivers), training and
 * memory rows alike (runs.c, memrows.c). */
#include "valid_int.h"

#include <string.h>

/* A measured row using a feature its profile says the framework does not
 * offer (a schedule, a ZeRO stage, a kind of parallelism, offloading,
 * hybrid sharding, an overlapped reduction: plan/framework.c, "does not
 * run it (rule R)"): the run happened, so the framework the reader took
 * for it (from the source's name, stacks.csv, or the row's framework
 * column) is not the one that ran it, or its profile is too strict there.
 * As the uneven split above, the rule is set aside for the row, its
 * [framework] key opened in `out` and said, and the row predicted with the
 * rest of the profile; every error of `d` must be such a rule (false
 * otherwise: the row keeps the loader's reason). Not set aside: a
 * framework's constraints on a plan it does run, which its code asserts
 * and no run of it passed (nanotron's 1F1B with fewer than pp - 1
 * micro-batches, runs_few_microbatches; whole K/V heads per TP rank;
 * Megatron-LM's interleaving with micro-batches no multiple of pp,
 * runs_vp_group; DeepSpeed's ZeRO-2/3 beside its pipeline engine,
 * runs_zero_with_pp), what the profile's code cannot build (layer_kernels:
 * an eager layer code with experts). A row's "selective" under a profile
 * whose selective means whole layers never reaches the rule: the reader
 * reads it so (selective_is_layers). */
bool valid_rule_waivers(const sim_diag *d, sim_buf *out, char *assumed, size_t alen)
{
	/* `with`: a key opened beside the rule. A framework without a ZeRO
	 * stage has none beside a pipeline either (runs_zero_with_pp <=
	 * runs_zero: Megatron-LM of 2021, 0 and 0): the row's stage ran, with
	 * its pipeline */
	static const struct {
		const char *rule, *open, *with;
	} open[] = {
	        {"runs_schedules", NULL, NULL}, /* every schedule: plan_framework_all_schedules */
	        {"runs_zero", "3", "runs_zero_with_pp = 3"},
	        {"runs_tp", "true", NULL},
	        {"runs_sequence_parallel", "true", NULL},
	        {"runs_cp", "true", NULL},
	        {"runs_ep", "true", NULL},
	        {"runs_offload_optimizer", "true", NULL},
	        {"runs_offload_params", "true", NULL},
	        {"runs_hybrid_shard", "true", NULL},
	        {"runs_overlap_grad_reduce", "true", NULL},
	        {"runs_overlap_grad_reduce_with_pp", "true", NULL},
	        {"runs_selective_recompute", "true", NULL},
	};
	sim_buf keys;
	sim_buf_init(&keys);
	char said[1024] = "";
	bool ok = true;
	for (size_t i = 0; ok && i < sim_diag_count(d); i++) {
		const char *t = sim_diag_text(d, i), *e = strstr(t, "error: ");
		if (!e)
			continue;
		const char *r = strstr(e, "does not run it (rule ");
		size_t k = 0;
		if (r) {
			r += strlen("does not run it (rule ");
			for (; k < sizeof open / sizeof open[0]; k++)
				if (!strncmp(r, open[k].rule, strlen(open[k].rule)) &&
				    r[strlen(open[k].rule)] == ')')
					break;
		}
		ok = r && k < sizeof open / sizeof open[0];
		if (!ok || (keys.data && strstr(keys.data, open[k].rule)))
			continue; /* a rule met twice */
		char all[160];
		if (!open[k].open)
			plan_framework_all_schedules(all, sizeof all);
		sim_buf_printf(&keys, "%s = %s\n", open[k].rule, open[k].open ? open[k].open : all);
		if (open[k].with)
			sim_buf_printf(&keys, "%s\n", open[k].with);
		/* the refused feature: the message's text before ": framework" */
		const char *what = e + 7, *f = strstr(what, ": framework '");
		valid_assume(
		        said, sizeof said,
		        "the profile's rule %s set aside: %.*s ran (a measured run), which the "
		        "profile says its framework does not run",
		        open[k].rule, f ? (int)(f - what) : 0, what);
	}
	ok = ok && keys.len > 0 && !keys.oom;
	if (ok) {
		/* into the row's [framework] section where it has one (a section
		 * may be opened once), else a new one at the end */
		const char *h = out->data ? strstr(out->data, "\n[framework]\n") : NULL;
		if (!h) {
			sim_buf_printf(out, "[framework]\n%s", keys.data);
		} else {
			size_t at = (size_t)(h - out->data) + strlen("\n[framework]\n");
			sim_buf rest;
			sim_buf_init(&rest);
			sim_buf_append(&rest, out->data + at, out->len - at);
			out->len = at;
			out->data[at] = '\0';
			sim_buf_append(out, keys.data, keys.len);
			sim_buf_append(out, rest.data ? rest.data : "", rest.len);
			out->oom = out->oom || rest.oom;
			sim_buf_free(&rest);
		}
		valid_assume(assumed, alen, "%s", said);
	}
	sim_buf_free(&keys);
	return ok;
}

void valid_printed_waivers(const sim_buf *probe, const char *datadir, sim_buf *text, char *assumed,
                           size_t alen)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	if (d && !probe->oom &&
	    plan_scenario_load_string(probe->data, "<case>", datadir, d, &s) != SIM_OK)
		valid_rule_waivers(d, text, assumed, alen);
	plan_scenario_free(s);
	sim_diag_free(d);
}
