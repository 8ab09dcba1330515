/* explain_cp.c - the context-parallelism section of `podsim explain`
 * (explain.c prints it after the numbered sections, with cp > 1): the K/V
 * exchange of one layer as plan_cp_exchange lays it out and times each
 * transfer alone (alpha-beta) beside the attention step it overlaps, the
 * closed form's exposed time of the step, and the replay's. */
#include "explain_int.h"

#include <math.h>

void explain_cp(FILE *o, int number, const plan_scenario *s, const exec_result *r)
{
	plan_cp_cost c;
	if (plan_cp_exchange(s, &c) != SIM_OK)
		return;
	char a[48], text[900];
	int m = plan_microbatches(&s->plan), layers = plan_stage_layers(s, 0);
	fprintf(o, "\n%d. Context parallelism: cp = %d, K and V exchanged by %s ([framework] cp_comm)\n",
	        number, c.cp, c.allgather ? "all-gather" : "ring");
	fprintf(o, "  tokens       s / cp = %d / %d = %d a rank; its K and V, a block of %s\n",
	        s->model.seq_len, c.cp, s->model.seq_len / c.cp, explain_gib(c.block_bytes, a, sizeof a));
	for (int pass = 0; pass < 2; pass++) {
		const char *name = pass ? "backward" : "forward ";
		if (c.allgather && c.xfers[pass] > 0)
			fprintf(o,
			        "  %s     %d all-gather of cp blocks, %.4g ms, then %d transfers of the "
			        "fp32 K/V gradient\n"
			        "               (2 blocks), %.4g ms,\n",
			        name, c.gathers[pass], 1e3 * c.gather_s[pass], c.xfers[pass],
			        1e3 * c.xfer_s[pass]);
		else if (c.allgather)
			fprintf(o, "  %s     %d all-gather of cp blocks, %.4g ms,\n", name,
			        c.gathers[pass], 1e3 * c.gather_s[pass]);
		else
			fprintf(o, "  %s     %d transfer%s of %s, %.4g ms,\n", name, c.xfers[pass],
			        c.xfers[pass] == 1 ? "" : "s",
			        pass ? "K, V and their gradients (2 blocks)" : "a block",
			        1e3 * c.xfer_s[pass]);
		fprintf(o,
		        "               beside attention steps of %.4g ms: exposed, each transfer x "
		        "beside its step a,\n"
		        "               sum max(x - a, i min(x, a)) = %.4g ms a layer (i = %.3g, the "
		        "GPU's interference)\n",
		        1e3 * c.beside_s[pass], 1e3 * c.exposed_s[pass], s->gpu.interference);
	}
	double step = (c.exposed_s[0] + c.exposed_s[1]) * layers * m;
	fprintf(o, "  per step     (forward + backward) x %d layers x %d micro-batches = %.4g s\n",
	        layers, m, step);
	fprintf(o, "  simulated    exposed CP on stage 0: %.4g s (%.1f%% of the step)\n",
	        r->classes[0].time_s[EXEC_CAT_CP],
	        r->step_s > 0 ? 100 * r->classes[0].time_s[EXEC_CAT_CP] / r->step_s : 0);
	snprintf(text, sizeof text,
	         "%s A transfer costs the step its excess over the attention beside it or, "
	         "hidden, the attention's slowdown while it runs (its SMs: the GPU's "
	         "interference), whichever is larger. The replay also shares the NICs and links "
	         "with the step's other traffic and, on a flow network, times each transfer on "
	         "its routes.",
	         c.allgather
	                 ? "PyTorch's context_parallel gathers every rank's K and V once, beside "
	                   "the first step only, where a ring passes a block beside each step: "
	                   "the same bytes, less to hide them behind; the backward gathers "
	                   "again and passes the K/V gradient round the ring in fp32."
	                 : "Ring attention (Megatron-Core's p2p): each rank attends to its own "
	                   "block while the next arrives from the previous rank, so a transfer "
	                   "costs only what it takes beyond the step beside it.");
	explain_why(o, text);
}
