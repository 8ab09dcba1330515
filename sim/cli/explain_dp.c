/* explain_dp.c - section 5 of `podsim explain` (explain.c): the textbook
 * ring all-reduce of stage 0's gradients next to the buckets the graph
 * reduces (plan_grad_buckets) and the simulated exposed DP time. */
#include "explain_int.h"

#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- DP ring -- */

/* Are the buckets reduce-scattered (plan_grad_coll)? */
static bool grad_rs(const plan_scenario *s)
{
	return plan_grad_coll(s) == NET_REDUCESCATTER;
}

/* A stage's gradient buckets as plan_build reduces them (plan_grad_buckets,
 * plan/grads.c): a malloc'ed list of *n, NULL when none or out of memory. */
static plan_grad_bucket *stage_buckets(const plan_scenario *s, int stage, int *n)
{
	int cap = plan_grad_bucket_cap(s);
	plan_grad_bucket *k = malloc((size_t)cap * sizeof *k);
	*n = k ? plan_grad_buckets(s, stage, k, cap) : 0;
	if (*n <= 0) {
		free(k);
		*n = 0;
		return NULL;
	}
	return k;
}

/* When bucket k starts, in words. */
static const char *bucket_launch(const plan_grad_bucket *k, int nbwd, char *buf, size_t len)
{
	const char *end = k->at_end ? " (at the end)" : "";
	if (k->launch == PLAN_LAUNCH_LAYER)
		snprintf(buf, len, "when layer %d's last backward ends%s", k->layer, end);
	else if (k->launch == PLAN_LAUNCH_CHUNK)
		snprintf(buf, len, "aligned, after backward step %d of %d%s", k->step + 1, nbwd,
		         end);
	else
		snprintf(buf, len, "after the stage's whole backward");
	return buf;
}

/* The buckets of stage 0, one line each (the first EXPLAIN_MAX_BUCKETS and
 * the last), and per later stage how many and how many wait for the
 * whole backward. Returns stage 0's DP work. */
static double bucket_lines(FILE *o, const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	plan_groups g;
	plan_make_groups(s, &g);
	/* wire bytes per gradient byte (grad_compression), as grads.c */
	double gbytes = plan_grad_bytes(s);
	double wire = plan_grad_wire_bytes(s, gbytes) / gbytes;
	int n, nbwd = plan_microbatches(p) * p->vpp, end = 0;
	plan_grad_bucket *k = stage_buckets(s, 0, &n);
	double total = 0;
	char a[32], b[32], c[64], d[32];
	for (int i = 0; i < n; i++)
		end += k[i].at_end;
	fprintf(o,
	        "  buckets      %d %s%s (plan_grad_buckets, the graph's), %d at the end of "
	        "the backward%s\n",
	        n, grad_rs(s) ? "reduce-scatter" : "all-reduce", n == 1 ? "" : "s", end,
	        grad_rs(s) ? " (ZeRO: half the ring's traffic)" : "");
	for (int i = 0; i < n; i++) {
		double t = plan_grad_bucket_time(s, &g, &k[i]);
		total += t;
		if (i == EXPLAIN_MAX_BUCKETS && i < n - 1)
			fprintf(o, "               ... %d more\n", n - 1 - EXPLAIN_MAX_BUCKETS);
		if (i >= EXPLAIN_MAX_BUCKETS && i < n - 1)
			continue;
		if (k[i].layer < 0)
			snprintf(b, sizeof b, "none");
		else if (k[i].layer == k[i].last)
			snprintf(b, sizeof b, "%d", k[i].layer);
		else
			snprintf(b, sizeof b, "%d-%d", k[i].layer, k[i].last);
		char calls[32] = "";
		if (k[i].ncalls > 1)
			snprintf(calls, sizeof calls, " in %d calls", k[i].ncalls);
		fprintf(o, "               %2d  layers %-6s chunk %d  %-11s %s: %s%s\n", i + 1, b,
		        k[i].chunk,
		        explain_unit((k[i].dense_bytes + k[i].expert_bytes) * wire, SIM_UNIT_BYTES,
		                     a, sizeof a),
		        bucket_launch(&k[i], nbwd, c, sizeof c),
		        explain_unit(t, SIM_UNIT_TIME, d, sizeof d), calls);
	}
	free(k);
	fprintf(o, "               in all: %s\n", explain_unit(total, SIM_UNIT_TIME, a, sizeof a));
	/* later stages: runs of equal (buckets, at the end) */
	for (int st = 1, lo = 1, pn = -1, pe = -1; st <= p->pp; st++) {
		int m = -1, e = -1;
		if (st < p->pp) {
			plan_grad_bucket *q = stage_buckets(s, st, &m);
			e = 0;
			for (int i = 0; i < m; i++)
				e += q[i].at_end;
			free(q);
		}
		if (st > 1 && (m != pn || e != pe)) {
			if (lo == st - 1)
				snprintf(b, sizeof b, "stage %d", lo);
			else
				snprintf(b, sizeof b, "stages %d-%d", lo, st - 1);
			fprintf(o,
			        "               %s: %d bucket%s, %d at the end of the backward\n",
			        b, pn, pn == 1 ? "" : "s", pe);
			lo = st;
		}
		pn = m, pe = e;
	}
	return total;
}

/* ZeRO-3's all-gathers per layer and pass of the model's first layer
 * (plan_zero3_layer: a persistent module has none; an MoE model's other
 * kind in zero3_moe_why) and where their split comes from. */
static int zero3_gathers(const plan_scenario *s)
{
	double ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES], u, x;
	int n = plan_zero3_layer(s, 0, &u, &x, ga, gr), k = 0;
	for (int i = 0; i < n; i++)
		k += ga[i] > 0;
	return k;
}

static const char *zero3_split_words(const plan_scenario *s)
{
	switch (s->fw.zero3_modules) {
	case PLAN_ZERO3_HF:
		return "one per linear module of the model's Hugging Face code, at its size";
	case PLAN_ZERO3_MEGATRON:
		return "one per linear module of Megatron's layer, at its size";
	default:
		return "of equal size";
	}
}

/* An MoE layer's unit under ZeRO-3 (plan_zero3_layer): its routed experts
 * with the layer (ep = 1) or on their own over the expert-DP group. */
static void zero3_moe_why(FILE *o, const plan_scenario *s)
{
	int g = -1;
	for (int l = 0; l < s->model.layers && g < 0; l++)
		g = work_layer_is_moe(&s->model, l) ? l : -1;
	if (g < 0)
		return;
	double unit, sep, ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES];
	int n = plan_zero3_layer(s, g, &unit, &sep, ga, gr);
	plan_groups grp;
	plan_make_groups(s, &grp);
	char z[512], a[32], b[32];
	if (sep > 0)
		snprintf(z, sizeof z,
		         "An MoE layer is two units: %s parameters per rank (attention, norms, router, "
		         "shared experts) over the shard group in %d gather%s, and its routed experts "
		         "(%d per rank), %s parameters, gathered and reduce-scattered over the %d-rank "
		         "expert-data-parallel group.",
		         explain_cnt(unit, a, sizeof a), n, n == 1 ? "" : "s",
		         s->model.moe_experts / s->plan.ep, explain_cnt(sep, b, sizeof b),
		         grp.edp.size);
	else
		snprintf(z, sizeof z,
		         "An MoE layer is one unit of %s parameters per rank, its %d routed experts "
		         "included (ep = 1), in %d gather%s over the shard group.",
		         explain_cnt(unit, a, sizeof a), s->model.moe_experts, n, n == 1 ? "" : "s");
	explain_why(o, z);
}

/* The host's work at ZeRO-3's gathers (zero3_gather_rank_op,
 * zero3_rank_copies) and DeepSpeed 2021's device syncs (zero3_sync). */
static void zero3_host_why(FILE *o, const plan_scenario *s)
{
	zero3_moe_why(o, s);
	double h = plan_zero3_gather_host_s(s, 0); /* the first layer's */
	if (!(h > 0) && !s->fw.zero3_sync)
		return;
	char a[32], z[768];
	snprintf(z, sizeof z,
	         "Issuing each layer's gathers costs the host %s per pass (zero3_gather_rank_op: "
	         "a view per rank and gathered tensor%s). %s",
	         explain_unit(h, SIM_UNIT_TIME, a, sizeof a),
	         s->fw.zero3_rank_copies ? ", and a copy kernel per rank: PyTorch's list "
	                                   "collectives (zero3_rank_copies)"
	                                 : "",
	         s->fw.zero3_sync
	                 ? "The host synchronises the device before issuing them (zero3_sync, "
	                   "DeepSpeed before 2021-10): that work, what the gradient hooks still "
	                   "owe and the last reduction run with the GPU idle, at every layer of "
	                   "every pass."
	                 : "It is hidden only behind the GPU work the host has queued ahead.");
	explain_why(o, z);
}

/* zero3_why's ends (plan_zero3_root): what moves the embedding and the
 * head, with their gathered bytes on the first and last stage. */
static void zero3_ends_why(FILE *o, const plan_scenario *s)
{
	double ga[2], gr[2], gb[2], gl[2];
	int last = plan_last_rank(&s->plan);
	int n0 = plan_zero3_ends(s, 0, ga, gr), nl = plan_zero3_ends(s, last, gb, gl);
	double w = plan_zero3_gather_width(s);
	char e[32], h[32], z[800];
	explain_unit(ga[0] * w, SIM_UNIT_BYTES, e, sizeof e);
	explain_unit((nl == 1 && last != 0 ? gb[0] : gb[1]) * w, SIM_UNIT_BYTES, h, sizeof h);
	switch (n0 + nl > 0 ? s->fw.zero3_root : PLAN_ZERO3_ROOT_NONE) {
	case PLAN_ZERO3_ROOT_FLAT:
		snprintf(z, sizeof z,
		         "The ends (framework zero3_root = flat): the root unit, the embedding, final "
		         "norm and output layer that no layer's unit holds (%s on stage 0), is "
		         "gathered as each micro-batch's forward starts, before anything else runs, "
		         "kept through its backward and reduce-scattered after it.",
		         e);
		break;
	case PLAN_ZERO3_ROOT_UNITS:
		snprintf(z, sizeof z,
		         n0 == 1 && last == 0
		                 ? "The ends (framework zero3_root = units): the tied embedding, final "
		                   "norm and output layer are one unit (%s), gathered before the "
		                   "embedding's forward, kept through the backward and reduce-scattered "
		                   "after the embedding's.%.0s"
		         : plan_zero3_pp_gathered(s)
		                 ? "The ends (framework zero3_root = units): the embedding (%s) and the "
		                   "final norm with the output layer (%s) are units of their own, "
		                   "gathered once, in the step's first forward through them, and kept "
		                   "as the layers are; each reduce-scattered after its chunk's last "
		                   "backward."
		                 : "The ends (framework zero3_root = units): the embedding is a unit of "
		                   "its own (%s), gathered before its forward and again before its "
		                   "backward; the final norm and output layer another (%s), gathered "
		                   "while the last layer runs and kept to its backward; each "
		                   "reduce-scattered after its backward.",
		         e, h);
		break;
	case PLAN_ZERO3_ROOT_MODULES:
		snprintf(z, sizeof z,
		         "The ends (framework zero3_root = modules): the embedding (%s) and the head "
		         "(%s%s) are gathered before their forward as every module; the embedding "
		         "again before its backward, the head kept to it, its next use within the "
		         "reuse distance; their gradients go to the buckets.",
		         e, h,
		         s->model.untied_embeddings
		                 ? ""
		                 : ", a tied embedding's weight gathered again for the output layer");
		break;
	case PLAN_ZERO3_ROOT_STEP:
		snprintf(z, sizeof z,
		         "The ends (framework zero3_root = step, Megatron-FSDP's modules outside its "
		         "units): the embedding (%s) and the head (%s) are gathered in the step's first "
		         "forward through them and kept to its end; their gradients are "
		         "reduce-scattered after their backward in every micro-batch.",
		         e, n0 == 1 && last == 0 ? "with it: tied, one" : h);
		break;
	default:
		snprintf(z, sizeof z, "%s",
		         "The ends stay gathered (framework zero3_root = none): the embedding and "
		         "output layer move no bytes per micro-batch.");
	}
	explain_why(o, z);
}

/* The bytes of stage 0's hpZ secondary shard at its peak (memwalk.c's
 * term of that name), 0 when it has none. */
static double hpz_shard_bytes(const plan_scenario *s)
{
	plan_mem_peak *pk = malloc(sizeof *pk);
	double bytes = 0;
	if (!pk)
		return 0;
	plan_memory_peak(s, 0, pk);
	for (int i = 0; i < pk->nterms; i++)
		if (!strcmp(pk->term[i].name, "hpZ secondary shard"))
			bytes = pk->term[i].bytes;
	free(pk);
	return bytes;
}

/* ZeRO++'s hpZ and qwZ (emit.c unit_gather): where the gathers run and
 * what they carry. */
static void zero3_zeropp_why(FILE *o, const plan_scenario *s)
{
	const plan_spec *p = &s->plan;
	if (p->zero_hpz <= 1 && !p->zero_qw && !p->zero_qg)
		return;
	plan_groups g;
	plan_make_groups(s, &g);
	char h[400] = "", q[400] = "", r[760] = "", f[240] = "", a[32], z[1580];
	if (p->zero_hpz > 1)
		snprintf(h, sizeof h,
		         "ZeRO++ hpZ (zero_hpz = %d): each parameter's first gather of the step (the "
		         "first micro-batch's forward) runs over the %d-rank shard group on %d "
		         "node%s; every later one (its backward, the later micro-batches) draws from "
		         "a secondary shard held over %d ranks on %d node%s, %s a rank until the "
		         "optimizer step (section 3). ",
		         p->zero_hpz, g.shard.size, g.shard.nodes, g.shard.nodes == 1 ? "" : "s",
		         g.hpz.size, g.hpz.nodes, g.hpz.nodes == 1 ? "" : "s",
		         explain_unit(hpz_shard_bytes(s), SIM_UNIT_BYTES, a, sizeof a));
	if (p->zero_qw)
		snprintf(q, sizeof q,
		         "ZeRO++ qwZ (zero_quantized_weights): each gather moves int8 values (1 B "
		         "against %.0f B an element) and, in a second call, an fp32 scale per %.0f "
		         "elements, between a quantisation of the shard and a dequantisation of the "
		         "gathered tensor on the DP stream.",
		         plan_zero3_gather_width(s), PLAN_QW_GROUP);
	double share = plan_qgz_quant_share(s);
	if (p->zero_qg && g.qglobal.size > 1 && !(share > 0))
		snprintf(f, sizeof f,
		         " But 2 x %d ranks divide none of a layer's matrices: DeepSpeed "
		         "reduce-scatters each alone, unquantised, with a warning, and qgZ only "
		         "splits the buckets.",
		         p->dp);
	else if (p->zero_qg && g.qglobal.size > 1 && share < 1)
		snprintf(f, sizeof f,
		         " Only %.0f %% of a layer's matrices have elements that 2 x %d ranks divide; "
		         "DeepSpeed reduce-scatters the others one by one, unquantised, with a "
		         "warning.",
		         100 * share, p->dp);
	if (p->zero_qg && g.qglobal.size > 1)
		snprintf(r, sizeof r,
		         " ZeRO++ qgZ (zero_quantized_gradients): each bucket's 2-D gradient tensors are "
		         "reduced one by one, quantised to int4, exchanged all-to-all inside the node "
		         "(%d ranks), reduced and requantised, then exchanged all-to-all across the %d "
		         "nodes and dequantised: 4 calls and 3 kernels a tensor, a quarter of the "
		         "16-bit bytes inside the node and 1/%d of that across; its norms and biases "
		         "are reduce-scattered one by one.%s",
		         g.qlocal.size, g.qglobal.size, g.qlocal.size, f);
	else if (p->zero_qg)
		snprintf(r, sizeof r, "%s",
		         " ZeRO++ qgZ (zero_quantized_gradients) is set but the data-parallel group "
		         "is one node: DeepSpeed then reduce-scatters as without it.");
	snprintf(z, sizeof z, "%s%s%s", h, q, r);
	explain_why(o, z);
}

/* zero3_why's paragraph on the copy of each gathered unit out of the
 * gather's flat buffer ([framework] zero3_gather_copy): where it runs and
 * what one layer's costs. */
static void zero3_copy_why(FILE *o, const plan_scenario *s)
{
	int mode = s->fw.zero3_gather_copy;
	if (mode == PLAN_GATHER_COPY_NONE)
		return;
	double unit, sep, ga[PLAN_ZERO3_MAX_PIECES], gr[PLAN_ZERO3_MAX_PIECES];
	plan_zero3_layer(s, 0, &unit, &sep, ga, gr);
	char a[32], z[600];
	snprintf(z, sizeof z,
	         "Each gather lands in a flat buffer and its parameters are then copied out of it "
	         "(framework zero3_gather_copy = %s), every element read and written once: %s a "
	         "layer and gather%s, %s.",
	         mode == PLAN_GATHER_COPY_DP ? "gather-stream" : "compute-stream",
	         explain_unit(plan_zero3_gather_copy_s(s, unit + sep), SIM_UNIT_TIME, a, sizeof a),
	         plan_zero3_pp_gathered(s) ? " (once a step here: the layers stay gathered)" : "",
	         mode == PLAN_GATHER_COPY_DP
	                 ? "on the DP stream after the gather (DeepSpeed's torch.cat in the "
	                   "handle's wait): hidden as far as the gathers are"
	                 : "on the compute stream before the layer runs (FSDP2's copy-out in "
	                   "wait_for_unshard): exposed, unless the compute stream waits for a "
	                   "gather anyway");
	explain_why(o, z);
}

/* dp_why under ZeRO-3: its gathers, and DeepSpeed's buckets where it has
 * them. */
static void zero3_why(FILE *o, const plan_scenario *s)
{
	char a[32], b1[32], b2[32], b3[32], z[1024];
	double mx, last, host;
	int nb = plan_zero3_buckets(s, 0, &mx, &last, &host);
	if (nb > 0)
		snprintf(z, sizeof z,
		         "ZeRO-3 gathers each layer's weights before its forward and backward "
		         "(%d gathers per layer and pass, %s); its gradients go into buckets of %s "
		         "(framework zero3_reduce = bucket, DeepSpeed's IPG buckets), each "
		         "reduce-scattered%s when the next tensor would overflow it: %d per "
		         "micro-batch, the largest %s, the last (%s, with the embedding and "
		         "output layer) after the backward, exposed. The host slices each "
		         "bucket's tensors once per rank (zero3_rank_op): %s per micro-batch, "
		         "hidden only behind the GPU work it has queued ahead.",
		         zero3_gathers(s), zero3_split_words(s),
		         explain_unit(plan_bucket_bytes(s), SIM_UNIT_BYTES, b1, sizeof b1),
		         s->fw.zero3_reduce_calls == PLAN_ZERO3_CALLS_TENSOR
		                 ? " one call per tensor (zero3_reduce_calls = tensor)"
		                 : "",
		         nb,
		         explain_unit(mx, SIM_UNIT_BYTES, b2, sizeof b2),
		         explain_unit(last, SIM_UNIT_BYTES, b3, sizeof b3),
		         explain_unit(host, SIM_UNIT_TIME, a, sizeof a));
	else if (plan_zero3_pp_gathered(s))
		snprintf(z, sizeof z, "%s",
		         "ZeRO-3 under torch pipelining (framework zero3_pp_gathered): each layer's "
		         "weights are gathered once, in the step's first forward through it, and "
		         "stay gathered to the step's end; its gradients accumulate unsharded and "
		         "each chunk's are reduce-scattered once, after its last backward (REDUCE_GRAD), "
		         "so that reduction is exposed but for what the other stages still compute; "
		         "the optimizer step waits for it.");
	else
		snprintf(z, sizeof z, "%s",
		         "ZeRO-3 gathers each layer's weights before its forward and backward and "
		         "reduce-scatters its gradients after its backward (with hybrid sharding, "
		         "then all-reduces the shard over its replicas), overlapped with compute: "
		         "only the waits are exposed, and the optimizer step, which waits for the "
		         "last layer's reduction; there is no single all-reduce to compare.");
	explain_why(o, z);
	zero3_copy_why(o, s);
	zero3_zeropp_why(o, s);
	zero3_ends_why(o, s);
	zero3_host_why(o, s);
}

static void dp_why(FILE *o, const plan_scenario *s, double ring, double buckets_s, double exposed)
{
	const plan_spec *p = &s->plan;
	char t[1200], a[32];
	if (p->zero >= 3) {
		zero3_why(o, s);
		return;
	}
	/* how stage 0's first bucket starts (all alike but a chunk's launch
	 * point, which leaves no bucket of stage 0 at the end) */
	int n;
	plan_grad_bucket *k = stage_buckets(s, 0, &n);
	plan_bucket_launch launch = n > 0 ? k[0].launch : PLAN_LAUNCH_END;
	int calls = 0;
	for (int i = 0; i < n; i++)
		calls += k[i].ncalls;
	free(k);
	char per[160] = "";
	if (calls > 0)
		snprintf(per, sizeof per,
		         "; %d calls in all, one all-reduce per parameter tensor, a bucket's in one "
		         "NCCL group that waits for its slowest node once (grad_bucket_calls)",
		         calls);
	snprintf(t, sizeof t,
	         "the textbook time is one ring over the whole gradient; podsim sends buckets "
	         "(each pays the latency and the fixed overhead%s)%s, %s: %s of DP work in all. Only "
	         "what is "
	         "left after the stage's last compute task, or what stalls a later one, is "
	         "exposed: %.0f%% of that work, %.0f%% of the one-ring time.%s",
	         per, p->zero >= 1 ? (grad_rs(s) ? " as reduce-scatters, then the optimizer's all-gather"
	                                    : " as all-reduces (each rank keeps its slice), then "
	                                      "the optimizer's all-gather")
	                      : "",
	         launch == PLAN_LAUNCH_CHUNK
	                 ? "each chunk's together at Megatron-Core's aligned launch point "
	                   "(pipeline rank backward steps after the chunk's last micro-batch), so "
	                   "they overlap the later chunks' backward"
	         : launch == PLAN_LAUNCH_LAYER
	                 ? "each issued when its layers' last backward ends, so they "
	                   "overlap the rest of the backward"
	         : p->zero >= 1 && s->fw.zero_one_bucket
	                 ? "one collective issued after the stage's whole backward "
	                   "(the framework's zero_one_bucket)"
	                 : "issued after the stage's whole backward (overlap_grad_reduce "
	                   "= false)",
	         explain_unit(buckets_s, SIM_UNIT_TIME, a, sizeof a),
	         buckets_s > 0 ? 100.0 * exposed / buckets_s : 0,
	         ring > 0 ? 100.0 * exposed / ring : 0,
	         s->nother > 0 && s->other_links
	                 ? " These times are on the main node type's links; a group with "
	                   "ranks on [cluster] other_gpu's nodes runs at their slowest hop "
	                   "(section 10)."
	                 : "");
	explain_why(o, t);
}

/* On an oversubscribed fabric where different groups' transfers slowed
 * each other on a rank class's leaf uplinks (exec_uplinks): the rule and
 * what it cost. */
static void uplinks_why(FILE *o, const exec_result *r)
{
	const exec_uplinks *u = &r->uplinks;
	if (!exec_uplinks_slowed(u) || r->nclasses < 1)
		return;
	char t[768], by[256] = "", a[32], b[32], c[32];
	double lost = 0;
	size_t used = 0;
	for (int k = 0; k < EXEC_CAT_COUNT && used < sizeof by; k++) {
		lost += u->lost_s[k];
		if (!(u->lost_s[k] > 0))
			continue;
		explain_unit(u->lost_s[k], SIM_UNIT_TIME, a, sizeof a);
		used += (size_t)snprintf(by + used, sizeof by - used, "%s%s %s", used ? ", " : "",
		                         exec_cat_name((exec_cat)k), a);
	}
	double dp = exec_cat_most(r, EXEC_CAT_DP) - u->free_most_s[EXEC_CAT_DP];
	snprintf(t, sizeof t,
	         "the fabric is oversubscribed %.3g:1, so a leaf has 1/%.3g as many uplinks as "
	         "NICs below it, and transfers of different groups that run at once on one rank "
	         "class share them: each runs at the smaller of its NIC share and the uplinks' "
	         "rate over the sum of their uplink demands (exec/replay.c). %s's transfers lost "
	         "%s to it (%s); the step is %s longer than with the uplinks not shared, and the "
	         "most exposed DP of any rank class %s longer.",
	         u->oversub, u->oversub,
	         u->rank < r->nclasses ? r->classes[u->rank].name : "a rank class",
	         explain_unit(lost, SIM_UNIT_TIME, a, sizeof a), by,
	         explain_unit(r->step_s - u->free_step_s, SIM_UNIT_TIME, b, sizeof b),
	         explain_unit(dp, SIM_UNIT_TIME, c, sizeof c));
	explain_why(o, t);
}

/* No reduction to explain: inference, or one data-parallel rank (true). */
static bool dp_none(FILE *o, const plan_scenario *s, const exec_result *r, int n)
{
	if (s->inference) {
		fprintf(o,
		        "  none         inference: no gradients, so no reduction; the dp = %d "
		        "replicas\n"
		        "               run their sequences independently; simulated exposed DP on "
		        "stage 0: %.4g s\n",
		        s->plan.dp, r->classes[0].time_s[EXEC_CAT_DP]);
		return true;
	}
	if (n == 1) {
		fprintf(o,
		        "  none         dp x cp = 1: no gradient reduction; simulated exposed DP "
		        "on "
		        "stage 0: %.4g s\n",
		        r->classes[0].time_s[EXEC_CAT_DP]);
		return true;
	}
	return false;
}

/* The gradients' dtype and, where it differs, their width on the wire:
 * gbuf bytes per value in the buffer, gb on the wire. */
static void dp_dtype_lines(FILE *o, const plan_scenario *s, double gbuf, double gb)
{
	const plan_spec *p = &s->plan;
	if (gbuf == 4 && !p->fp32_grads)
		fprintf(o, "  dtype        fp32 gradients (%s trains fp32 parameters: fp32_grads = false "
		        "narrows nothing)\n",
		        hw_dtype_name(s->dtype));
	else if (conf_get(s->doc, "parallel", "fp32_grads", NULL))
		fprintf(o, "  dtype        %s gradients ([parallel] fp32_grads = %s, the scenario's)\n",
		        gbuf == 4 ? "fp32" : "16-bit", p->fp32_grads ? "true" : "false");
	else
		fprintf(o,
		        "  dtype        %s gradients (%s: grad_dtype = %s, the framework's rule)\n",
		        gbuf == 4 ? "fp32" : "16-bit", hw_dtype_name(s->dtype),
		        plan_grad_dtype_name(s->fw.grad_dtype));
	double cast = p->zero >= 3 ? 0 : plan_grad_cast_bytes(s);
	/* ZeRO-3's wire (plan_zero3_wire_bytes: plan_grad_wire_bytes of the
	 * buffer, as gb) and the casts around its reduce-scatters */
	double c0 = plan_zero3_cast_bytes(s, false), c1 = plan_zero3_cast_bytes(s, true);
	if (p->zero >= 3 && gb < gbuf)
		fprintf(o,
		        "  wire         %.0f B per value (grad_wire_dtype = params): ZeRO-3 "
		        "reduce-scatters param.grad\n"
		        "               in the training dtype; the %.0f B buffer holds only the "
		        "reduced shard\n",
		        gb, gbuf);
	if (c0 > 0 || c1 > 0)
		fprintf(o,
		        "  wire         %.0f B per value: each unit's gradient cast to it before "
		        "its reduce-scatter\n"
		        "               (%.0f B of HBM traffic per value), the reduced shard cast "
		        "to the kept dtype (%.0f B per shard value)\n",
		        gb, c0, c1);
	if (cast > 0)
		fprintf(o,
		        "  wire         %.0f B per value (grad_wire_dtype = params): each bucket cast to "
		        "it\n"
		        "               before its collective and copied back after, %.0f B of HBM "
		        "traffic per value\n",
		        gb, cast);
}

/* What runs after the buckets: the tied embedding's sync and sequence
 * parallelism's norm gradients; returns their time. */
static double dp_after_buckets(FILE *o, const plan_scenario *s, const plan_groups *g,
                               double gbuf)
{
	const plan_spec *p = &s->plan;
	char a[32];
	double t = 0;
	/* the tied embedding's sync sends the buffer's bytes, uncompressed and
	 * uncast (plan_grad_bytes; build_emit_embedding_sync) */
	double tied = p->zero >= 3 ? 0 : plan_embedding_sync_time(s, g, gbuf);
	if (tied > 0) {
		fprintf(o,
		        "  tied emb.    + V h / t x %.0f B all-reduced between the first and last "
		        "stage "
		        "(after both backwards): %s\n",
		        gbuf, explain_unit(tied, SIM_UNIT_TIME, a, sizeof a));
		t += tied;
	}
	/* sequence parallelism's norm gradients over TP (build_emit_norm_sync) */
	double norms = plan_norm_sync_time(s, g, 0);
	if (norms > 0) {
		double *calls = malloc(PLAN_NORM_SYNC_MAX * sizeof *calls);
		int nc = calls ? plan_norm_sync_calls(s, 0, calls, PLAN_NORM_SYNC_MAX) : 0;
		free(calls);
		fprintf(o,
		        "  SP norms     + the norms' gradients all-reduced over tp = %d after the "
		        "buckets, %d call%s (%s): %s\n",
		        p->tp, nc, nc == 1 ? "" : "s",
		        s->fw.sp_norm_sync == PLAN_NORM_SYNC_FLAT
		                ? "flattened, sp_norm_sync"
		                : "one per norm tensor in a NCCL group, sp_norm_sync",
		        explain_unit(norms, SIM_UNIT_TIME, a, sizeof a));
		t += norms;
	}
	return t;
}

/* The SMs the reductions take from the backward beside them (replay.c;
 * plan_comm_scale: the channels the communicator runs the first bucket's
 * algorithm on over the 16 the GPU's interference stands for; ZeRO-3: a
 * layer's gather). */
static void dp_sms_line(FILE *o, const plan_scenario *s, const plan_groups *g,
                        const plan_budget *bg, double gbuf, double gb)
{
	const plan_spec *p = &s->plan;
	char a[32];
	int nbk = 0;
	plan_grad_bucket *bk = p->zero >= 3 ? NULL : stage_buckets(s, 0, &nbk);
	net_coll bop = p->zero >= 3 ? NET_ALLGATHER : plan_grad_coll(s);
	/* a bucket's buffer bytes on the wire (gb / gbuf: the wire's width);
	 * ZeRO-3: one layer's weights as the layers compute with them (wg) */
	double bb = nbk > 0 ? bk[0].dense_bytes * gb / gbuf
			    : bg->dense * bg->wg / (bg->layers > 0 ? bg->layers : 1);
	free(bk);
	net_cost bc;
	if (g->shard.size > 1 && net_collective(&s->cluster, bop, &g->shard, bb, &bc) == SIM_OK) {
		double ch = net_tune_channels(&s->cluster, &g->shard, bc.algo);
		fprintf(o,
		        "  SMs          NCCL runs one %s of %s here by %s on %.0f channels (its\n"
		        "               search, %d rank%s per node), one thread block each: the compute "
		        "beside it\n"
		        "               runs at 1 - %.3g x %.0f/16 = %.3f of its rate ([gpu] "
		        "interference: the SMs\n"
		        "               of 16 channels, 16/%d)\n",
		        net_coll_name(bop), explain_unit(bb, SIM_UNIT_BYTES, a, sizeof a),
		        net_algo_name(bc.algo), ch, g->shard.per_node, g->shard.per_node == 1 ? "" : "s",
		        s->gpu.interference, ch, 1 - s->gpu.interference * ch / 16.0,
		        s->gpu.sm_count);
	}
}

void explain_dp(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int cp = p->cp > 1 ? p->cp : 1, n = p->dp * cp;
	fprintf(o, "\n5. Data-parallel gradient all-reduce (stage 0)\n");
	if (dp_none(o, s, r, n))
		return;
	/* bytes per value in the buffer (plan_grad_bytes: 4 with fp32_grads or
	 * fp32/tf32 training) and on the buckets' wire: the buffer's width, the
	 * framework's narrower wire dtype (grad_wire_dtype) or compressed
	 * (train.grad_compression: fp8 1 B, 1-bit Adam 1/8 B) */
	double gbuf = plan_grad_bytes(s), gb = plan_grad_wire_bytes(s, gbuf);
	/* P_rank: what one rank of stage 0 holds before ZeRO's sharding, the
	 * routed experts aside (the stage budget's dense: plan_chunk_params);
	 * only trained parameters are reduced: LoRA's adapters, the layers
	 * above frozen_layers (the stage budget's train) */
	bool part = s->train.lora_rank > 0 || s->train.frozen_layers > 0;
	plan_budget bg;
	plan_stage_budget(s, 0, &bg);
	double S = (part ? bg.train : bg.dense) * gb;
	/* the plan's data-parallel group (plan/groups.c: its stride follows
	 * [parallel] order), the one the graph's buckets use */
	plan_groups g;
	plan_make_groups(s, &g);
	net_group grp = g.dp;
	net_cost c;
	char a[32], b[32], d[32], e[32];
	net_cluster ring_only = s->cluster; /* the ring, whatever the tuner would pick */
	ring_only.algo = NET_ALGO_RING;
	if (net_collective(&ring_only, NET_ALLREDUCE, &grp, S, &c) != SIM_OK)
		return;
	double bw = c.busbw_Bps * net_proto_bw(c.proto);
	double ring = c.latency_s + 2.0 * (n - 1) / n * S / bw;
	fprintf(o,
	        "  S            P_rank%s x %.4g B = %s over n = dp x cp = %d ranks (stride %d: "
	        "%d per "
	        "node, %d node%s)\n",
	        part ? " (trained)" : "", gb, explain_gib(S, a, sizeof a), n, grp.stride,
	        grp.per_node, grp.nodes, grp.nodes == 1 ? "" : "s");
	dp_dtype_lines(o, s, gbuf, gb);
	fprintf(o, "  ring         lat + 2(n-1)/n x S / busbw = %s + 2 x %d/%d x %s / %s = %s\n",
	        explain_unit(c.latency_s, SIM_UNIT_TIME, a, sizeof a), n - 1, n,
	        explain_gib(S, b, sizeof b), explain_unit(bw, SIM_UNIT_BANDWIDTH, d, sizeof d),
	        explain_unit(ring, SIM_UNIT_TIME, e, sizeof e));
	double local = net_ring_local_time(&ring_only, NET_ALLREDUCE, &grp, S);
	if (local > 0)
		fprintf(o,
		        "               busbw includes the ring's local step, S / (n x ring_local_bw) "
		        "= %s\n"
		        "               (one send per loop is a copy inside the GPU; net/coll.c)\n",
		        explain_unit(local, SIM_UNIT_TIME, a, sizeof a));
	fprintf(o,
	        "               busbw: the group's %s bandwidth x %.2f (NCCL protocol);\n"
	        "               with the fixed overhead per collective: %s\n",
	        grp.nodes > 1 ? "NIC share of" : "scale-up", net_proto_bw(c.proto),
	        explain_unit(c.time_s, SIM_UNIT_TIME, a, sizeof a));
	double bt = p->zero >= 3 ? 0 : bucket_lines(o, s);
	bt += dp_after_buckets(o, s, &g, gbuf);
	dp_sms_line(o, s, &g, &bg, gbuf, gb);
	double exposed = r->classes[0].time_s[EXEC_CAT_DP];
	fprintf(o, "  simulated    exposed DP on stage 0: %s (%.1f%% of the step)\n",
	        explain_unit(exposed, SIM_UNIT_TIME, a, sizeof a),
	        r->step_s > 0 ? 100.0 * exposed / r->step_s : 0);
	dp_why(o, s, ring, bt, exposed);
	uplinks_why(o, r);
}
