/* remedy.c - the lines and the JSON member of sweep_fit_remedy, shared by
 * run, explain (section 3) and sweep (the nearest plan when none fits). */
#include "cli.h"
#include "core/core.h"
#include "explain_int.h"
#include "sweep/sweep.h"

#include <stdio.h>
#include <string.h>

void cli_remedy_print(FILE *f, const sweep_remedy *r)
{
	char a[48];
	if (!r->found) {
		fprintf(f,
		        "  fits with    nothing of the same split: no combination of a smaller "
		        "micro-batch,\n"
		        "               recomputation, a higher ZeRO stage, offload or sequence "
		        "parallelism gets\n"
		        "               it out of memory (%d tried); it needs more GPUs or a smaller "
		        "model\n",
		        r->tried);
		return;
	}
	fprintf(f, "  fits with    %s -> %s (%s), estimated step %+.1f %%\n", r->what,
	        explain_gib(r->device, a, sizeof a), plan_verdict_name(r->verdict),
	        100 * (r->est_s / r->plan_est_s - 1));
	fprintf(f,
	        "               (%.4g s against this plan's %.4g s: the fastest by the pre-screen of "
	        "%d plans\n"
	        "               changing the micro-batch, recomputation, ZeRO stage, offload or "
	        "sequence\n"
	        "               parallelism; podsim sweep varies the split of the GPUs)\n",
	        r->est_s, r->plan_est_s, r->tried);
	if (r->tight_found)
		fprintf(f,
		        "  tight with   %s -> %s (tight: under 10 %% headroom), estimated step "
		        "%+.1f %%\n",
		        r->tight_what, explain_gib(r->tight_device, a, sizeof a),
		        100 * (r->tight_est_s / r->plan_est_s - 1));
}

void cli_remedy_json(sim_buf *b, const sweep_remedy *r)
{
	char t[768], tight[320] = "";
	if (!r->found) {
		snprintf(t, sizeof t, "\"fit_with\":{\"found\":false,\"tried\":%d}", r->tried);
		sim_buf_append(b, t, strlen(t));
		return;
	}
	if (r->tight_found) /* the faster tight plan */
		snprintf(tight, sizeof tight,
		         ",\"tight\":{\"changes\":\"%s\",\"device_bytes\":%.17g,"
		         "\"est_step_s\":%.17g}",
		         r->tight_what, r->tight_device, r->tight_est_s);
	snprintf(t, sizeof t,
	         "\"fit_with\":{\"found\":true,\"changes\":\"%s\",\"verdict\":\"%s\","
	         "\"device_bytes\":%.17g,\"est_step_s\":%.17g,\"plan_est_step_s\":%.17g,"
	         "\"tried\":%d%s}",
	         r->what, plan_verdict_name(r->verdict), r->device, r->est_s, r->plan_est_s,
	         r->tried, tight);
	sim_buf_append(b, t, strlen(t));
}
