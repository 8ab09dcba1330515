/* explain_cp.c - the context-parallelism section of `podsim explain`
 * (explain.c prints it after the numbered sections, with cp > 1): the K/V
 * exchange of one layer as plan_cp_exchange lays it out and times each
 * transfer alone (alpha-beta) beside the attention step it overlaps, the
 * closed form's exposed time of the step, and the replay's. */
#include "explain_int.h"

#include <math.h>

/* DeepSpeed-Ulysses: blocking all-to-alls around an attention over the
 * whole sequence with 1/cp of the heads (work/layer.c attn_ulysses). */
static void explain_cp_a2a(FILE *o, const plan_scenario *s, const exec_result *r,
                           const plan_cp_cost *c, int layers, int m)
{
	int heads = s->model.heads / (s->plan.tp > 0 ? s->plan.tp : 1);
	fprintf(o, "  tokens       s / cp = %d / %d = %d a rank, traded for heads: each rank attends "
	        "all %d\n               tokens with %d / %d = %d heads\n",
	        s->model.seq_len, c->cp, s->model.seq_len / c->cp, s->model.seq_len, heads, c->cp,
	        heads / c->cp);
	fprintf(o, "  forward      %d all-to-alls (Q, K, V, then the output), %.4g ms\n", c->a2a[0],
	        1e3 * c->a2a_s[0]);
	fprintf(o, "  backward     %d all-to-alls (the output's gradient, then Q's, K's, V's), "
	        "%.4g ms\n", c->a2a[1], 1e3 * c->a2a_s[1]);
	/* full recomputation re-runs a layer's forward, its all-to-alls too */
	int rec = 0, first;
	for (int ch = 0; ch < (s->plan.vpp > 1 ? s->plan.vpp : 1); ch++) { /* stage 0 */
		int n = plan_chunk_layers(s, 0, ch, &first);
		for (int l = 0; l < n; l++)
			rec += plan_layer_recomputed(&s->plan, n, l);
	}
	double step = (c->exposed_s[0] * (layers + rec) + c->exposed_s[1] * layers) * m;
	fprintf(o, "  per step     blocking, each on the stream: (forward x (%d layers + %d "
	        "recomputed) + backward x %d layers)\n               x %d micro-batches = %.4g s\n",
	        layers, rec, layers, m, step);
	fprintf(o, "  simulated    exposed CP on stage 0: %.4g s (%.1f%% of the step)\n",
	        r->classes[0].time_s[EXEC_CAT_CP],
	        r->step_s > 0 ? 100 * r->classes[0].time_s[EXEC_CAT_CP] / r->step_s : 0);
	explain_why(o, "DeepSpeed-Ulysses trades each rank's tokens for heads before the "
	               "attention and back after it: four all-to-alls a pass, each moving "
	               "(cp-1)/cp of a rank's tensor over the CP group and blocking the stream, "
	               "nothing to hide them behind, where a ring passes K and V beside the "
	               "attention; its bytes per rank do not grow with cp.");
}

void explain_cp(FILE *o, int number, const plan_scenario *s, const exec_result *r)
{
	plan_cp_cost c;
	if (plan_cp_exchange(s, &c) != SIM_OK)
		return;
	char a[48], text[900];
	int m = plan_microbatches(&s->plan), layers = plan_stage_layers(s, 0);
	fprintf(o, "\n%d. Context parallelism: cp = %d, K and V exchanged by %s ([framework] cp_comm)\n",
	        number, c.cp, c.alltoall ? "all-to-all (Ulysses)" : c.allgather ? "all-gather" : "ring");
	if (c.alltoall) {
		explain_cp_a2a(o, s, r, &c, layers, m);
		return;
	}
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
