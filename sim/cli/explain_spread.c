/* explain_spread.c - sections 6, 9 and 10 of `podsim explain` (explain.c):
 * the error band (valid.h), the step's spread on a fabric with a measured
 * collective spread (exec/spread.c), and a cluster of two GPU types
 * (exec/mixed.c). */
#include "explain_int.h"

#include <math.h>

/* ------------------------------------------------------------ error band -- */

void explain_band(FILE *o, const plan_scenario *s, const exec_result *r, const valid_refs *refs)
{
	static const char *const level_name[] = {"",
	                                         "generation, framework and scale",
	                                         "generation and framework",
	                                         "generation and scale",
	                                         "generation",
	                                         "every source"};
	char a[48], text[128];
	fprintf(o, "\n6. Error band: how far a measured step is likely to be from this one\n");
	fprintf(o, "  nearest      GPU generation %s (%s), framework %s, %d GPUs (bucket %s)\n",
	        valid_gpu_generation(s->gpu.name), s->gpu.name, s->fw.name, s->cluster.gpus,
	        valid_scale_bucket(s->cluster.gpus));
	valid_band b;
	if (s->inference) {
		fprintf(o, "  band         none: the validation cases are training steps\n");
	} else if (!valid_refs_band(refs, s->gpu.name, s->fw.name, s->cluster.gpus, &b)) {
		fprintf(o, "  band         none: no band table in the data folder (%s)\n",
		        VALID_BANDS_FILE);
	} else {
		valid_band_describe(&b, text, sizeof text);
		fprintf(o, "  cell         %s (level %d of 5: same %s), n_eff %.2f\n", text,
		        b.level, level_name[b.level], b.n_eff);
		fprintf(o, "  sources      %s\n", b.names);
		fprintf(o,
		        "  residuals    measured / predicted, each source weighing once: q10 %.4f, "
		        "median %.4f, q90 %.4f (min %.4f, max %.4f)\n",
		        b.q10, b.median, b.q90, b.min, b.max);
		if (b.widened)
			fprintf(o,
			        "  widened      n_eff %.2f < 9 rows: [q10, q90] widened to hold every "
			        "residual and the t prediction interval: [%.4f, %.4f]\n",
			        b.n_eff, b.lo, b.hi);
		else
			fprintf(o, "  band         [q10, q90] = [%.4f, %.4f]\n", b.lo, b.hi);
		char lo[48], hi[48];
		fprintf(o, "  step         %s x [%.4f, %.4f] = %s to %s\n",
		        explain_unit(r->step_s, SIM_UNIT_TIME, a, sizeof a), b.lo, b.hi,
		        explain_unit(r->step_s * b.lo, SIM_UNIT_TIME, lo, sizeof lo),
		        explain_unit(r->step_s * b.hi, SIM_UNIT_TIME, hi, sizeof hi));
		double wl, wh;
		valid_spread_widening(r, &wl, &wh);
		if (r->spread.samples > 0)
			fprintf(o,
			        "  spread       x [%.4f, %.4f], the step's p10 and p90 over the step "
			        "(section 7; never narrower): %s to %s\n",
			        wl, wh, explain_unit(r->band_lo_s, SIM_UNIT_TIME, lo, sizeof lo),
			        explain_unit(r->band_hi_s, SIM_UNIT_TIME, hi, sizeof hi));
	}
	double best;
	char why[192];
	if (s->inference)
		fprintf(o,
		        "  MFU ceiling  not judged: the published figures are of training steps\n");
	else if (valid_refs_mfu(refs, s->gpu.name, s->dtype, &best, why, sizeof why))
		fprintf(o, "  MFU ceiling  best published %s\n  verdict      MFU %.1f%% %s\n", why,
		        100 * r->mfu, r->mfu > best ? "is above it: implausible" : "is within it");
	else
		fprintf(o, "  MFU ceiling  none for %s in %s (%s)\n",
		        valid_gpu_generation(s->gpu.name), hw_dtype_name(s->dtype), VALID_MFU_FILE);
}

/* ----------------------------------------------------------- step spread -- */

#define EXPLAIN_MAX_VGROUPS 32 /* (kind, node count) pairs listed at most */

static void spread_quantiles(FILE *o, const char *label, const exec_step_spread *q, double step)
{
	char a[48], b[48], c[48];
	fprintf(o, "  %-12s p5 %s, median %s, p95 %s (%+.1f%% over the step)\n", label,
	        explain_unit(q->p05_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(q->p50_s, SIM_UNIT_TIME, b, sizeof b),
	        explain_unit(q->p95_s, SIM_UNIT_TIME, c, sizeof c),
	        step > 0 ? 100 * (q->p95_s / step - 1) : 0);
}

void explain_spread(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const net_cluster *c = &s->cluster;
	if (c->nspread < 1 || r->spread.samples < 1)
		return;
	fprintf(o, "\n9. Step spread: how the step varies with the fabric's measured collective "
	           "spread\n");
	fprintf(o,
	        "  data         [cluster] spread, per node count the 5th and 95th percentile "
	        "collective time over the median: %s\n",
	        c->spread_text);
	if (c->fit_weak[0])
		fprintf(o,
		        "  fit          the fabric's calibration leaves %s weakly determined ([cluster] "
		        "fit_weak; standard error over a third of the value): the network part "
		        "below rests on them, most the small calls' latency\n",
		        c->fit_weak);
	fprintf(o, "  model        per call across nodes a slowdown r of its whole time T (the "
	           "measured ratios are of whole calls): r T; r split log-normal, median 1, ln r = "
	           "s_lo z below the median and s_hi z above, s = |ln ratio| / 1.645\n");
	plan_graph *g = NULL;
	if (plan_build(s, &g) != SIM_OK)
		return;
	plan_varying v[EXPLAIN_MAX_VGROUPS];
	size_t nv = plan_graph_varying(g, v, EXPLAIN_MAX_VGROUPS);
	for (size_t k = 0; k < nv; k++) {
		net_spread sp;
		double sl = 0, sh = 0;
		bool on = net_spread_at(c, v[k].nodes, &sp);
		if (on)
			net_spread_sigmas(&sp, &sl, &sh);
		char a[48];
		fprintf(o,
		        "  %-12s %s across %d nodes: %zu calls, %s in all, %.1f%% of it network; "
		        "spread %.3f-%.3f (s_lo %.3f, s_hi %.3f)\n",
		        k ? "" : "varying", plan_task_kind_short(v[k].kind), v[k].nodes, v[k].tasks,
		        explain_unit(v[k].dur_s, SIM_UNIT_TIME, a, sizeof a),
		        v[k].dur_s > 0 ? 100 * v[k].net_s / v[k].dur_s : 0, on ? sp.lo : 1,
		        on ? sp.hi : 1, sl, sh);
	}
	if (nv == 0)
		fprintf(o, "  varying      none: no collective of the step crosses nodes\n");
	fprintf(o,
	        "  correlation  rho = %.2g ([cluster] spread_correlation; assumed: the data "
	        "give one collective at a time): z = sqrt(rho) z_step + sqrt(1 - rho) z_call\n",
	        r->spread.corr);
	char a[48], b[48];
	fprintf(o,
	        "  sampled      %d replays of the step, seed %llu; p95 within %s to %s at 95%% "
	        "confidence\n",
	        r->spread.samples, (unsigned long long)r->spread.seed,
	        explain_unit(r->spread.p95_lo_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(r->spread.p95_hi_s, SIM_UNIT_TIME, b, sizeof b));
	spread_quantiles(o, "step", &r->spread, r->step_s);
	exec_step_spread lim;
	for (int k = 0; k < 2 && nv > 0; k++) {
		exec_spread_opts opt = {r->spread.samples, r->spread.seed, k ? 0.0 : 1.0, 0};
		if (exec_spread(g, c, r->step_s, &opt, &lim) == SIM_OK)
			spread_quantiles(o, k ? "independent" : "correlated", &lim, r->step_s);
	}
	plan_graph_free(g);
	char ex[160], text[1024];
	static const exec_cat cats[] = {EXEC_CAT_DP, EXEC_CAT_PP, EXEC_CAT_CP, EXEC_CAT_EP,
	                                EXEC_CAT_TP};
	cli_exposed_text(r, cats, sizeof cats / sizeof cats[0], true, ex, sizeof ex);
	snprintf(text, sizeof text,
	         "the step varies where it waits on collectives across nodes; it exposes %s of "
	         "communication (the most of any stage, of %s), and only the groups listed "
	         "above vary. A hidden collective matters only when a draw outlasts the compute "
	         "hiding it. Fully correlated (rho = 1), every call draws the same quantile: a "
	         "step that were one exposed collective would have its measured quantiles. "
	         "Independent (rho = 0), the calls' slowdowns average out over the step "
	         "toward the spread's mean (above its median of 1 at every shipped node "
	         "count), a narrower spread; where a few exposed calls on parallel paths "
	         "decide the step (pipeline stages, buckets), their maximum can reach further "
	         "than the correlated limit.",
	         ex, explain_unit(r->step_s, SIM_UNIT_TIME, a, sizeof a));
	explain_why(o, text);
}

/* ----------------------------------------------------------------- mixed -- */

/* A node's scale-up rate and NIC total per GPU, for the links line. */
static void links_of(const net_node *n, char *out, size_t cap)
{
	char a[48], b[48];
	snprintf(out, cap, "%s per GPU on %s, NICs %s per GPU",
	         explain_unit(n->intra_Bps * n->intra_eff, SIM_UNIT_BANDWIDTH, a, sizeof a),
	         n->intra == NET_INTRA_PCIE ? "PCIe" : "NVLink",
	         explain_unit(n->nics * n->nic_Bps * n->nic_eff / (n->gpus > 0 ? n->gpus : 1),
	                      SIM_UNIT_BANDWIDTH, b, sizeof b));
}

/* Section 10's links line: with other_gpu's own node (a node file), what
 * each group runs at (net/mixed.c, exec/straggle.c). */
static void explain_mixed_links(FILE *o, const plan_scenario *s)
{
	if (!s->other_links) {
		fprintf(o, "  links        every node's are %s's ([cluster] other_gpu names a GPU "
		           "file)\n",
		        s->cluster.node.name);
		return;
	}
	net_node w;
	net_node_slowest(&s->cluster.node, &s->other_net, &w);
	char a[160], b[160], c[160];
	links_of(&s->cluster.node, a, sizeof a);
	links_of(&s->other_net, b, sizeof b);
	links_of(&w, c, sizeof c);
	fprintf(o,
	        "  links        %s: %s; %s: %s. A group wholly on one type runs at its links (the "
	        "graph built again on %s's, task for task); a group over both (a data-parallel "
	        "group with a rank on either, a pipeline send between them, a stage over both) "
	        "at its slowest hop, NCCL's ring and tree: %s\n",
	        s->cluster.node.name, a, s->other_net.name, b, s->other_net.name, c);
}

/* 10. With nodes of another GPU type ([cluster] other_gpu, other_nodes): how
 * the step of exec_result.mixed comes about (exec/mixed.c derives it). */
void explain_mixed(FILE *o, const plan_scenario *s, const exec_result *r)
{
	const exec_mixed *m = &r->mixed;
	if (m->nodes <= 0)
		return;
	char a[48], b[48], text[1200];
	fprintf(o, "\n10. Mixed GPU types: %s on %d of %d nodes (other_nodes = %s), %s elsewhere\n",
	        m->gpu, m->nodes, m->cluster_nodes, s->cluster.other_nodes, r->gpu);
	fprintf(o,
	        "  instances    a stage of a replica (its tp x cp ranks in lockstep, EP groups "
	        "joined) is all %s, all %s, or both (each task the slower of the two); "
	        "global rank r sits on node r / %d\n",
	        r->gpu, m->gpu, s->cluster.node.gpus);
	fprintf(o,
	        "  tasks        the task graph built again on %s, task for task: slowest stage "
	        "%d of replica %d, compute and optimizer tasks %s (%s on %s, x %.3f)\n",
	        m->gpu, m->stage, m->replica, explain_unit(m->stage_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(m->stage_base_s, SIM_UNIT_TIME, b, sizeof b), r->gpu,
	        m->stage_base_s > 0 ? m->stage_s / m->stage_base_s : 0.0);
	explain_mixed_links(o, s);
	fprintf(o,
	        "  interference %.3g of a compute task's rate beside a collective on %s, %.3g on "
	        "%s ([gpu] interference)\n",
	        s->other_gpu.interference, m->gpu, s->gpu.interference, r->gpu);
	fprintf(o,
	        "  step         max over replicas of each replica's replay = replica %d's %s; "
	        "%s with every node %s (%+.1f%%); %d of %d replicas hold a mixed node, %d "
	        "replays (equal replicas once)\n",
	        m->replica, explain_unit(m->step_s, SIM_UNIT_TIME, a, sizeof a),
	        explain_unit(m->base_s, SIM_UNIT_TIME, b, sizeof b), r->gpu,
	        m->base_s > 0 ? 100 * (m->step_s / m->base_s - 1) : 0.0, m->replicas, m->dp,
	        m->kinds);
	/* out of memory on allocated + runtime, as section 3's device line */
	char v[160];
	if (m->mem_verdict == PLAN_VERDICT_OOM) {
		char n[48], d[48];
		snprintf(v, sizeof v,
		         "OUT OF MEMORY, allocated + runtime %s over the capacity by %s",
		         explain_gib(m->mem_needed_bytes, n, sizeof n),
		         explain_gib(m->mem_needed_bytes - m->mem_capacity_bytes, d, sizeof d));
	} else {
		snprintf(v, sizeof v, "%s", plan_verdict_name(m->mem_verdict));
	}
	fprintf(o,
	        "  memory       on %s: device %s of %s, %s (stage %d, the worst it holds); on "
	        "%s: section 3\n",
	        m->gpu, explain_gib(m->mem_peak_bytes, a, sizeof a),
	        explain_gib(m->mem_capacity_bytes, b, sizeof b), v, m->mem_stage, r->gpu);
	snprintf(text, sizeof text,
	         "the data-parallel replicas meet at the gradient reduction, which waits for the "
	         "last replica's buckets, so the step is the slowest replica's; inside a replica "
	         "the mixed stage delays the micro-batches behind it through the schedule, which "
	         "the replica's replay gives. %s. The energy lines count each GPU at its own "
	         "TDP and %s.",
	         s->other_links ? "Approximated: the replay's NIC and uplink sharing use the main "
	                          "node type's NIC rate"
	                        : "Approximated: collectives and copies keep the main node type's "
	                          "NVLink, NICs and fabric (name a node file in [cluster] "
	                          "other_gpu for its own)",
	         s->other_links ? "each node at its own [node] power"
	                        : "every node at the main node's [node] power");
	explain_why(o, text);
}
