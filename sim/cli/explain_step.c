/* explain_step.c - sections 4, 7 and 8 of `podsim explain` (explain.c): the
 * pipeline bubble, what a micro-batch costs beyond its tokens
 * (plan_microbatch_cost) and the optimizer step (plan_optimizer_cost). */
#include "explain_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- bubble -- */

static void bubble_why(FILE *o, const plan_scenario *s, const exec_result *r)
{
	int lo = 0, hi = 0;
	for (int k = 1; k < r->nclasses; k++) {
		lo = exec_class_busy(&r->classes[k]) < exec_class_busy(&r->classes[lo]) ? k : lo;
		hi = exec_class_busy(&r->classes[k]) > exec_class_busy(&r->classes[hi]) ? k : hi;
	}
	char a[32], b[32], t[512];
	snprintf(
	        t, sizeof t,
	        "%s; here busy time per stage runs from %s (%s) to %s (%s): the faster stages "
	        "wait for the slowest, and that wait is bubble, while transfers in flight count "
	        "as exposed pp instead.",
	        plan_sched_zb(s->plan.schedule)
	                ? "ZB-H1 runs weight-gradient passes inside 1F1B's bubble, so the textbook "
	                  "1F1B figure is an upper bound"
	                : "the textbook assumes p equal stages and free transfers",
	        explain_unit(exec_class_busy(&r->classes[lo]), SIM_UNIT_TIME, a, sizeof a),
	        r->classes[lo].name,
	        explain_unit(exec_class_busy(&r->classes[hi]), SIM_UNIT_TIME, b, sizeof b),
	        r->classes[hi].name);
	explain_why(o, t);
}

void explain_bubble(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int m = plan_microbatches(p);
	fprintf(o, "\n4. Pipeline bubble\n");
	fprintf(o,
	        "  m            global_batch / (micro_batch x dp) = %d / (%d x %d) = %d "
	        "micro-batches\n",
	        p->global_batch, p->micro_batch, p->dp, m);
	double tb = (double)(p->pp - 1) / (m + p->pp - 1);
	fprintf(o, "  textbook     (p - 1)/(m + p - 1) = (%d - 1)/(%d + %d - 1) = %.1f%%", p->pp, m,
	        p->pp, 100.0 * tb);
	if (plan_sched_v(p->schedule)) {
		bool zbv = p->schedule == PLAN_SCHED_ZBV;
		fprintf(o,
		        "\n  %-12s a V of 2 chunks a rank (torch's %s): rank r holds virtual stages r "
		        "and 2p - 1 = %d - r, so rank 0 holds the embedding and the loss and rank "
		        "p - 1 turns from chunk 0 to chunk 1 without a send; %d forwards before the "
		        "first backward on every rank, then %s",
		        zbv ? "zbv" : "dualpipev", zbv ? "ScheduleZBVZeroBubble" : "ScheduleDualPipeV",
		        2 * p->pp - 1, plan_schedule_warm(p->schedule, p->pp, m, p->vpp, p->pp, 0, 0),
		        zbv ? "the backwards' input passes (B) and weight passes (W) in torch's order, "
		              "the last ranks' cool-down W held to the end"
		            : "in DeepSeek's DualPipe order each chunk's forward beside the other "
		              "chunk's whole backward, one after the other (torch runs the pair in "
		              "sequence), the last backwards split into input (B) and weight (W) "
		              "passes");
	} else if (p->schedule == PLAN_SCHED_LOOPED_BFS) {
		tb /= p->vpp;
		fprintf(o,
		        ", / v = %d: %.1f%% with m >= p\n  looped bfs   breadth first (torch's "
		        "ScheduleLoopedBFS): every micro-batch's forward through chunk 0, then chunk "
		        "1, ..., then the backwards from the last chunk down, each chunk's last "
		        "micro-batch first: all m x v = %d chunk activations live at the turn, as "
		        "GPipe's",
		        p->vpp, 100.0 * tb, m * p->vpp);
	} else if (p->vpp > 1) {
		tb /= p->vpp;
		fprintf(o, ", / v = %d (interleaved): %.1f%%", p->vpp, 100.0 * tb);
		/* the warm-up: (p - 1 - stage) x hop + (v - 1) x N, hop 2 under
		 * interleaved 1F1B and 1 under the zero bubble, at most m x v */
		bool zb = p->schedule == PLAN_SCHED_ZB_H1;
		int n = plan_vp_group(p), hop = zb ? 1 : 2, full = (p->pp - 1) * hop + (p->vpp - 1) * n;
		int warm = plan_schedule_warm(p->schedule, p->pp, m, p->vpp, n, 0, 0);
		char cap[48] = "";
		if (warm < full)
			snprintf(cap, sizeof cap, ", at most m x v: %d", warm);
		if (zb)
			fprintf(o,
			        "\n  zero bubble  interleaved (torch pipelining's ZB1P), the micro-batches "
			        "in groups of N = %d: warm-up (p - 1 - stage) + (v - 1) x N = %d%s "
			        "forwards on stage 0, one step a stage where interleaved 1F1B takes two; "
			        "each backward B followed by the weight pass W of the backward `stage` "
			        "before it",
			        n, full, cap);
		else if (n != p->pp)
			fprintf(o,
			        "\n  groups       the micro-batches run through the chunks in groups of N = "
			        "%d, not p%s; warm-up (p - 1 - stage) x 2 + (v - 1) x N = %d%s forwards "
			        "on stage 0",
			        n,
			        p->vp_group > 0 ? " (vp_group)"
			        : p->vp_rule == PLAN_VP_TORCH
			                ? " (torch pipelining's rounds: N = m / max(1, m // p))"
			                : " (vp_group 0: m is no multiple of p, the smallest "
			                  "group Megatron-Core accepts, p <= N <= m with m mod "
			                  "N = 0 or >= p)",
			        full, cap);
	}
	fprintf(o, "\n  simulated    %.1f%% of the step (worst stage); per stage:",
	        100.0 * r->bubble_fraction);
	for (int k = 0; k < r->nclasses; k++) {
		if (k == EXPLAIN_MAX_STAGES && r->nclasses > EXPLAIN_MAX_STAGES + 1) {
			fprintf(o, " ... %d more", r->nclasses - EXPLAIN_MAX_STAGES);
			break;
		}
		fprintf(o, " %.1f%%",
		        r->step_s > 0 ? 100.0 * r->classes[k].time_s[EXEC_CAT_BUBBLE] / r->step_s
		                      : 0);
	}
	fputc('\n', o);
	if (p->pp == 1)
		explain_why(
		        o,
		        "no pipeline (p = 1): neither has a bubble; the compute stream's idle time is "
		        "exposed communication.");
	else
		bubble_why(o, s, r);
}

/* ------------------------------------------ per-micro-batch fixed cost -- */

/* The stage whose compute stream is busiest (the one the pipeline runs at). */
static int busiest_stage(const exec_result *r)
{
	int k = 0;
	for (int i = 1; i < r->nclasses; i++)
		if (exec_class_busy(&r->classes[i]) > exec_class_busy(&r->classes[k]))
			k = i;
	return k;
}

static void fixed_why(FILE *o, const plan_mb_cost *c, double share)
{
	struct {
		const char *what;
		double v;
	} t[] = {{"the collectives' latency", c->coll_latency_s},
	         {"host dispatch the GPU waits for", c->host_exposed_s},
	         {"gradient accumulation", c->accum_s},
	         {"the pipeline transfers' handshakes and latency", c->p2p_fixed_s + c->p2p_latency_s}};
	int k = 0;
	for (int i = 1; i < 4; i++)
		k = t[i].v > t[k].v ? i : k;
	char text[512];
	snprintf(text, sizeof text,
	         "these terms do not shrink with the micro-batch's tokens: a plan of many "
	         "micro-batches pays them m times, here %.1f%% of the step, most of it %s. "
	         "Fewer, larger micro-batches, or fewer and cheaper collectives per layer "
	         "(a smaller tp, inside a node), shrink it.",
	         100 * share, c->fixed_s > 0 ? t[k].what : "nothing");
	explain_why(o, text);
}

/* The stage's MoE all-to-alls (every task on its EP stream, as built) and
 * how much of them the step hid: exposed is the EP category of the stage's
 * breakdown (the compute stream waiting for them, and the interference
 * charged to them); under moe_a2a_overlap also the same plan's step with the
 * overlap off (a shallow copy of the scenario with the two keys cleared). */
static void a2a_overlap(FILE *o, const plan_scenario *s, const exec_result *r, int st)
{
	const plan_spec *p = &s->plan;
	plan_graph *g = NULL;
	if (p->ep <= 1 || s->model.moe_experts == 0 || plan_build(s, &g) != SIM_OK)
		return;
	double ep = plan_graph_stream_s(g, st, PLAN_STREAM_EP), deep = plan_graph_deep_rate(g, st);
	plan_graph_free(g);
	double exposed = r->classes[st].time_s[EXEC_CAT_EP], hid = fmax(0, ep - exposed);
	char a[32], b[32], c[32];
	fprintf(o,
	        "  all-to-all   ep = %d: %s a step on this stage's EP stream; exposed %s (the\n"
	        "               compute stream waiting, and the interference charged to them):\n"
	        "               hidden %s (%.0f%%)\n",
	        p->ep, explain_unit(ep, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(exposed, SIM_UNIT_TIME, b, sizeof b),
	        explain_unit(hid, SIM_UNIT_TIME, c, sizeof c), ep > 0 ? 100 * hid / ep : 0.0);
	if (!p->moe_a2a_overlap) {
		fprintf(o, "               moe_a2a_overlap off: each blocks its micro-batch's next "
		           "compute\n");
		return;
	}
	if (plan_ep_deepep(s))
		fprintf(o,
		        "               DeepEP's dispatch and combine hold %d of the %d SMs while they run\n"
		        "               (moe_deepep_num_sms): the other micro-batch's compute beside them\n"
		        "               runs at %.3f of its rate on this stage (its GEMMs' tile waves on the\n"
		        "               %d SMs left, other kernels at %d/%d; beside NCCL's collectives 1 - %.3g)\n",
		        p->deepep_sms, s->gpu.sm_count, deep > 0 ? deep : 1 - plan_ep_share(s),
		        s->gpu.sm_count - p->deepep_sms, s->gpu.sm_count - p->deepep_sms,
		        s->gpu.sm_count, s->gpu.interference);
	plan_scenario *t = malloc(sizeof *t);
	exec_result *r0 = malloc(sizeof *r0);
	if (t && r0) {
		*t = *s;
		t->plan.moe_a2a_overlap = t->plan.delay_wgrad = false;
		if (exec_run(t, r0) == SIM_OK)
			fprintf(o,
			        "               moe_a2a_overlap%s (combined 1F1B):\n"
			        "               the step is %s, %s without it\n",
			        p->delay_wgrad ? " + delay_wgrad_compute" : "",
			        explain_unit(r->step_s, SIM_UNIT_TIME, a, sizeof a),
			        explain_unit(r0->step_s, SIM_UNIT_TIME, b, sizeof b));
	}
	free(t);
	free(r0);
}

/* The micro-batch's collectives: their latency, the per-call wait across
 * nodes, those that run beside a GEMM. */
static void mb_coll_lines(FILE *o, const plan_scenario *s, const plan_mb_cost *mc)
{
	const plan_spec *p = &s->plan;
	char a[32], b[32], d[32], e[32];
	plan_groups g;
	plan_make_groups(s, &g);
	fprintf(o,
	        "  collectives  %d (tp = %d: %d per node, %d node%s%s), latency (each one's time\n"
	        "               at 1 B) %s of their %s (alpha-beta)\n",
	        mc->collectives, p->tp, g.tp.per_node, g.tp.nodes, g.tp.nodes == 1 ? "" : "s",
	        p->ep > 1 ? "; and ep's all-to-alls" : "",
	        explain_unit(mc->coll_latency_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(mc->coll_s, SIM_UNIT_TIME, b, sizeof b));
	double wait = net_sync_delay(&s->cluster, &g.tp, 1);
	if (wait > 0 && p->ep <= 1)
		fprintf(o,
		        "               of it each call's wait for the slowest of its %d nodes,\n"
		        "               D(%d) = %s, whatever its size: %s (net_sync_delay)\n",
		        g.tp.nodes, g.tp.nodes, explain_unit(wait, SIM_UNIT_TIME, d, sizeof d),
		        explain_unit(wait * mc->collectives, SIM_UNIT_TIME, e, sizeof e));
	if (g.tp.nodes > 1 && s->cluster.fit_weak[0] &&
	    (strstr(s->cluster.fit_weak, "net_latency") || strstr(s->cluster.fit_weak, "msg_overhead")))
		fprintf(o,
		        "               across nodes on a fabric whose calibration leaves %s\n"
		        "               weakly determined ([cluster] fit_weak): this latency is the\n"
		        "               step's least certain term\n",
		        s->cluster.fit_weak);
	if (mc->beside > 0)
		fprintf(o,
		        "               %d of them (%s) run beside a GEMM and block only what it\n"
		        "               cannot hide (tp_dgrad_async = %s: the input gradient's beside "
		        "the wgrad;\n"
		        "               tp_comm_overlap %s)\n",
		        mc->beside, explain_unit(mc->beside_s, SIM_UNIT_TIME, a, sizeof a),
		        plan_dgrad_async_name(s->fw.dgrad_async),
		        p->tp_comm_overlap ? "on" : "off");
}

/* The gradients' accumulation between micro-batches and the pipeline's
 * fixed cost per micro-batch on stage st. */
static void mb_accum_pipe_lines(FILE *o, const plan_scenario *s, const plan_mb_cost *mc, int st)
{
	const plan_spec *p = &s->plan;
	char a[32], b[32];
	work_item acc;
	if (plan_grad_accum_item(s, st, -1, &acc))
		fprintf(o,
		        "  accumulate   grad_accum = %s: %s moved to add the gradients into "
		        "%s accumulators,\n%s"
		        "               %d launches%s: %s\n",
		        plan_grad_accum_name(s->fw.grad_accum),
		        explain_gib(acc.bytes, a, sizeof a), p->fp32_grads ? "fp32" : "16-bit",
		        s->fw.grad_accum != PLAN_ACCUM_AUTOGRAD ? ""
		        : acc.native ? "               param.grad, from the second micro-batch: (m-1)/m "
		                       "of an add;\n"
		                     : "               a cast and an add of each 16-bit gradient;\n",
		        acc.launches, acc.native ? " from autograd's C++, no framework operation" : "",
		        explain_unit(mc->accum_s, SIM_UNIT_TIME, b, sizeof b));
	else
		fprintf(o, "  accumulate   fused into the weight-gradient GEMMs: 0\n");
	if (p->pp > 1)
		fprintf(o,
		        "  pipeline     per tensor %d handshake%s and %d host operations, %d "
		        "forward tensor%s:\n"
		        "               %s, and the transfers' own latency (each one's time at 1 B)\n"
		        "               %s (one forward and one backward transfer)\n",
		        s->fw.p2p_handshakes, s->fw.p2p_handshakes == 1 ? "" : "s",
		        s->fw.p2p_host_ops, s->fw.p2p_fwd_tensors,
		        s->fw.p2p_fwd_tensors == 1 ? "" : "s",
		        explain_unit(mc->p2p_fixed_s, SIM_UNIT_TIME, a, sizeof a),
		        explain_unit(mc->p2p_latency_s, SIM_UNIT_TIME, b, sizeof b));
	if (p->pp > 1) { /* the hops (plan_pp_pair), as the sends are timed */
		net_group in, out;
		plan_pp_pair(s, st, st > 0 ? st - 1 : st, &in);
		plan_pp_pair(s, st, st + 1 < p->pp ? st + 1 : st, &out);
		fprintf(o,
		        "               %d of the pipeline's %d hops cross nodes, %d of stage %d's "
		        "(each send on its own hop)\n",
		        plan_pp_cross(s, NULL, NULL), p->pp - 1,
		        (st > 0 && in.nodes > 1) + (st + 1 < p->pp && out.nodes > 1), st);
	}
	else
		fprintf(o, "  pipeline     none (pp = 1)\n");
}

void explain_mb_cost(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const plan_spec *p = &s->plan;
	int st = busiest_stage(r), m = plan_microbatches(p);
	plan_mb_cost c;
	fprintf(o, "\n7. What a micro-batch costs beyond its tokens (stage %d, the busiest)\n", st);
	if (s->inference) {
		fprintf(o, "  none         inference: forward passes only\n");
		return;
	}
	if (plan_microbatch_cost(s, st, &c) != SIM_OK)
		return;
	char a[32], b[32], d[32], e[32], f[32], h[32];
	double op = s->gpu.launch_s + s->gpu.framework_s;
	int host_ops = c.kernels + (s->fw.comm_host_op ? c.collectives : 0);
	fprintf(o,
	        "  issued       %d kernel launches (layer code %s) and %d collectives per\n"
	        "               micro-batch of %d x %d tokens\n",
	        c.kernels, work_layer_code_name(s->fw.layer_kernels), c.collectives, p->micro_batch,
	        s->model.seq_len / (p->cp > 1 ? p->cp : 1));
	fprintf(o,
	        "  host         %d operations%s x (launch %s + op_overhead %s)\n"
	        "               = %s to issue; the GPU runs the kernels in %s; each run of\n"
	        "               kernels between two collectives takes max(GPU, host): %s,\n"
	        "               so the host adds %s\n",
	        host_ops, s->fw.comm_host_op ? " (kernels and collectives)" : "",
	        explain_unit(s->gpu.launch_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(s->gpu.framework_s, SIM_UNIT_TIME, b, sizeof b),
	        explain_unit(host_ops * op, SIM_UNIT_TIME, d, sizeof d),
	        explain_unit(c.gpu_s, SIM_UNIT_TIME, e, sizeof e),
	        explain_unit(c.compute_s, SIM_UNIT_TIME, f, sizeof f),
	        explain_unit(c.host_exposed_s, SIM_UNIT_TIME, h, sizeof h));
	mb_coll_lines(o, s, &c);
	a2a_overlap(o, s, r, st);
	mb_accum_pipe_lines(o, s, &c, st);
	double all = m * c.fixed_s, share = r->step_s > 0 ? all / r->step_s : 0;
	char g2[32];
	fprintf(o,
	        "  fixed        latency + host + accumulate + pipeline\n"
	        "               = %s + %s + %s + %s = %s per micro-batch;\n"
	        "               x m = %d: %s of the %s step (%.1f%%)\n",
	        explain_unit(c.coll_latency_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(c.host_exposed_s, SIM_UNIT_TIME, b, sizeof b),
	        explain_unit(c.accum_s, SIM_UNIT_TIME, d, sizeof d),
	        explain_unit(c.p2p_fixed_s + c.p2p_latency_s, SIM_UNIT_TIME, e, sizeof e),
	        explain_unit(c.fixed_s, SIM_UNIT_TIME, f, sizeof f), m,
	        explain_unit(all, SIM_UNIT_TIME, h, sizeof h),
	        explain_unit(r->step_s, SIM_UNIT_TIME, g2, sizeof g2), 100 * share);
	fixed_why(o, &c, share);
}

/* ------------------------------------------------------------- optimizer -- */

/* 8. The optimizer step of stage 0 on the GPU (plan_optimizer_cost,
 * plan/optim.c): bytes per trained parameter, the kernels and the fraction
 * of the copy rate they stream at, the time, and the simulated optimizer
 * time of the stage. */
/* The host's side of a tensor-by-tensor optimizer step (plan/optim.c):
 * its launches, the FSDP1 shard's tensors, the .item() syncs. */
static void optimizer_host_lines(FILE *o, const plan_scenario *s, double host, double tensors)
{
	char a[48], bb[48];
	if (host > 0)
		fprintf(o,
		        "  host         %d layers x %.4g tensors x 8 launches x (launch + "
		        "optimizer_op_overhead %s) = %s%s\n",
		        plan_stage_layers(s, 0), tensors,
		        explain_unit(s->gpu.launch_s + s->fw.optimizer_op_overhead_s, SIM_UNIT_TIME, a,
		                     sizeof a),
		        explain_unit(host, SIM_UNIT_TIME, bb, sizeof bb),
		        s->fw.flat_params ? " (a tensor: an FSDP unit's flat parameter)" : "");
	if (host > 0 && plan_optimizer_in_shard(s))
		fprintf(o, "               tensors: the busiest rank's, %.4g per layer its FSDP1 flat shard "
		           "meets\n               (use_orig_params: the others' grad is None; "
		           "params_in_shard)\n",
		        tensors);
	if (host > 0 && s->fw.optimizer_item_sync)
		fprintf(o,
		        "  sync         optimizer_item_sync: each tensor's .item() waits for the "
		        "previous tensor's kernels; per tensor max(9 h, h + g + 7 max(h, g)) "
		        "with h the launch and op_overhead, g a pass's GPU time, plus one step "
		        "count increment h per tensor (plan/optim.c)\n");
}

/* The framework's per-tensor loops around the step and ZeRO's per-rank
 * gather loops (plan/grads.c). */
static void optimizer_loop_lines(FILE *o, const plan_scenario *s)
{
	char a[48], bb[48], cc[48], n[48];
	int ln;
	double loops = plan_step_loops(s, 0, &ln);
	if (loops > 0)
		fprintf(o,
		        "  loops        the framework's per-tensor loops (plan/grads.c): host %d tensors x "
		        "%d operations x (step_tensor_op %s + launch %s) = %s from the end of the "
		        "backward; the step's kernels end no earlier\n",
		        ln, s->fw.step_tensor_ops,
		        explain_unit(s->fw.step_tensor_op_s, SIM_UNIT_TIME, a, sizeof a),
		        explain_unit(s->gpu.launch_s, SIM_UNIT_TIME, bb, sizeof bb),
		        explain_unit(loops, SIM_UNIT_TIME, cc, sizeof cc));
	double gh, gg;
	int gn, gr;
	if (plan_zero_gather_host(s, 0, &gh, &gg, &gn, &gr) > 0)
		fprintf(o,
		        "  gather       ZeRO-%d's parameter all-gather through the framework's per-rank "
		        "loops (plan/grads.c):\n"
		        "               host %d ranks x (%d tensors x (zero_gather_rank_op %s + launch "
		        "%s) + 2 launches) = %s,\n"
		        "               from the end of the backward%s, beside the GPU's reduction, "
		        "step and gather;\n"
		        "               then the GPU's 3 copies of the stage's parameters = %s\n",
		        s->plan.zero, gr, gn,
		        explain_unit(s->fw.zero_gather_rank_op_s, SIM_UNIT_TIME, a, sizeof a),
		        explain_unit(s->gpu.launch_s, SIM_UNIT_TIME, bb, sizeof bb),
		        explain_unit(gh, SIM_UNIT_TIME, cc, sizeof cc), loops > 0 ? " and the loops" : "",
		        explain_unit(gg, SIM_UNIT_TIME, n, sizeof n));
}

void explain_optimizer(FILE *o, const plan_scenario *s, const exec_result *r)
{
	fprintf(o, "\n8. Optimizer step (stage 0)\n");
	if (s->inference) {
		fprintf(o, "  none         inference: no gradients, no step\n");
		return;
	}
	if (s->plan.offload_optimizer != PLAN_OFFLOAD_NONE) {
		fprintf(o, "  offloaded    offload_optimizer: the step runs on the host's CPU "
		           "(CPU Adam), not as GPU kernels\n");
		return;
	}
	double local = plan_local_params(s, 0);
	double trained = plan_optimizer_trained(s, 0, local);
	plan_optim_cost c;
	plan_optimizer_cost(s, &c);
	double copy = s->gpu.hbm_Bps * s->gpu.hbm_eff;
	double t = plan_optimizer_time(s, 0, local);
	char a[48], bb[48], cc[48], n[48];
	fprintf(o,
	        "  trained      %s parameters stepped by one rank of stage 0 (after ZeRO's "
	        "sharding)\n",
	        explain_cnt(trained, n, sizeof n));
	if (c.clip_bytes > 0)
		fprintf(o, "  bytes        update %.4g B + casts %.4g B per parameter (the gradient norm: "
		           "below)\n",
		        c.step_bytes, c.cast_bytes);
	else
		fprintf(o,
		        "  bytes        update %.4g B + gradient norm %.4g B%s + casts %.4g B per "
		        "parameter\n",
		        c.step_bytes, c.norm_bytes, s->train.clip_grad ? "" : " (clip_grad = false)",
		        c.cast_bytes);
	plan_budget bg;
	plan_stage_budget(s, 0, &bg);
	if (c.clip_bytes > 0)
		fprintf(o,
		        "  clipping     clip_scope = replica: the norm and the rescale, %.4g B per "
		        "parameter of the rank's whole gradient (%s, before ZeRO's sharding), at "
		        "the copy rate\n",
		        c.clip_bytes, explain_cnt(bg.train, n, sizeof n));
	fprintf(o, "  kernels      %s\n", c.impl);
	fprintf(o,
	        "  rate         copy rate hbm_bw x hbm_efficiency = %s x %.3g = %s; the update at "
	        "%.3g of it (%s), the norm at %.3g, the casts at 1\n",
	        explain_unit(s->gpu.hbm_Bps, SIM_UNIT_BANDWIDTH, a, sizeof a), s->gpu.hbm_eff,
	        explain_unit(copy, SIM_UNIT_BANDWIDTH, bb, sizeof bb), c.stream,
	        explain_unit(copy * c.stream, SIM_UNIT_BANDWIDTH, cc, sizeof cc), c.norm_stream);
	explain_why(o, c.why);
	double upd = copy > 0 ? trained * c.step_bytes / (copy * c.stream) : 0;
	double nrm = copy > 0 ? trained * c.norm_bytes / (copy * c.norm_stream) : 0;
	double cst = copy > 0 ? trained * c.cast_bytes / copy : 0;
	double clp = copy > 0 ? bg.train * c.clip_bytes / copy : 0;
	fprintf(o, "  time         update %s + norm %s + casts %s",
	        explain_unit(upd, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(nrm + clp, SIM_UNIT_TIME, bb, sizeof bb),
	        explain_unit(cst, SIM_UNIT_TIME, cc, sizeof cc));
	fprintf(o, " + launch and host %s", explain_unit(hw_overhead(&s->gpu), SIM_UNIT_TIME, n, sizeof n));
	if (s->dtype == HW_FP8)
		fprintf(o, " + fp8 weight casts");
	double tensors, host = plan_optimizer_host_time(s, 0, &tensors);
	if (host > 0 && s->fw.optimizer_item_sync)
		fprintf(o, ", taking turns with the host (below)");
	else if (host > 0 && host >= t)
		fprintf(o, ", shorter than the host's launches (below)");
	fprintf(o, " = %s\n", explain_unit(t, SIM_UNIT_TIME, a, sizeof a));
	optimizer_host_lines(o, s, host, tensors);
	optimizer_loop_lines(o, s);
	if (r->nclasses > 0)
		fprintf(o,
		        "  simulated    optimizer time on stage 0's compute stream: %s (%.1f%% of the "
		        "step)\n",
		        explain_unit(r->classes[0].time_s[EXEC_CAT_OPTIMIZER], SIM_UNIT_TIME, a,
		                     sizeof a),
		        r->step_s > 0 ? 100.0 * r->classes[0].time_s[EXEC_CAT_OPTIMIZER] / r->step_s
		                      : 0.0);
}
