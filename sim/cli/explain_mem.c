/* explain_mem.c - section 3 of `podsim explain` (explain.c): the most loaded
 * stage's memory peak as plan_memory_peak walks it, Korthikanti et al.'s
 * per-layer activations, the device line and verdict on each GPU type, and
 * the cuts (plan_memory_cuts) and the fastest combination of them that fits
 * (sweep_fit_remedy). */
#include "explain_int.h"
#include "sweep/sweep.h"

#include <math.h>

/* Korthikanti et al. 2022, table 2: the formula of the plan's case and its
 * value per layer and micro-batch (16-bit activations). */
static double korthikanti(const plan_scenario *s, work_recompute rc, char *f, size_t len)
{
	work_shard sh = plan_shard(s);
	double sv = sh.seq, b = sh.micro_batch, h = s->model.hidden, a = s->model.heads, t = sh.tp;
	double sbh = sv * b * h, att = 5.0 * a * sv / (h * t);
	switch (rc) {
	case WORK_RECOMPUTE_FULL:
		if (sh.sp)
			snprintf(f, len, "2 s b h / t = 2 x %.0f x %.0f x %.0f / %.0f", sv, b, h,
			         t);
		else
			snprintf(f, len, "2 s b h = 2 x %.0f x %.0f x %.0f", sv, b, h);
		return 2.0 * sbh / (sh.sp ? t : 1);
	case WORK_RECOMPUTE_SELECTIVE:
		if (sh.sp) {
			snprintf(f, len, "s b h x 34/t = %.0f x %.0f x %.0f x 34/%.0f", sv, b, h,
			         t);
			return sbh * 34 / t;
		}
		snprintf(f, len, "s b h (10 + 24/t) = %.0f x %.0f x %.0f x (10 + 24/%.0f)", sv, b,
		         h, t);
		return sbh * (10 + 24 / t);
	default:
		if (sh.sp) {
			snprintf(f, len,
			         "s b h (34/t + 5as/(ht)) = %.0f x %.0f x %.0f x (34/%.0f + %.4g)",
			         sv, b, h, t, att);
			return sbh * (34 / t + att);
		}
		snprintf(
		        f, len,
		        "s b h (10 + 24/t + 5as/(ht)) = %.0f x %.0f x %.0f x (10 + 24/%.0f + %.4g)",
		        sv, b, h, t, att);
		return sbh * (10 + 24 / t + att);
	}
}

/* The per-layer activation count under the scenario's model code, one
 * micro-batch: Korthikanti's formula for the fused layers, podsim's figure
 * beside it; the eager or compiled count otherwise (work_saved_bytes_at). */
static void per_layer_kind(FILE *o, const plan_scenario *s, int stage);

/* The per-layer count, and under recompute_layers the split: recomputed
 * layers keep their input, the others what they save. */
static void per_layer(FILE *o, const plan_scenario *s, int stage)
{
	per_layer_kind(o, s, stage);
	if (!plan_recompute_partial(&s->plan))
		return;
	work_shard sh = plan_shard(s);
	work_saved sv = plan_saved(s);
	double in = 0, all = 0;
	int r = 0, n = 0;
	for (int c = 0; c < s->plan.vpp; c++) {
		int l0, nl = plan_chunk_layers(s, stage, c, &l0);
		for (int l = 0; l < nl; l++, n++) {
			int g = plan_global_layer(s, stage, l0 + l);
			if (plan_layer_recomputed(&s->plan, nl, l))
				r++, in += work_saved_bytes_at(&s->model, &sh, g,
				                               WORK_RECOMPUTE_FULL, &sv);
			else
				all += work_saved_bytes_at(&s->model, &sh, g, WORK_RECOMPUTE_NONE,
				                           &sv);
		}
	}
	char a[32], b[32], c[32];
	fprintf(o,
	        "  recompute    %d of %d layers recomputed (recompute_layers = %d per chunk, %s): "
	        "their inputs %s,\n               the other %d whole: %s; %s per micro-batch\n",
	        r, n, s->plan.recompute_layers,
	        s->plan.recompute_method == PLAN_RC_SPREAD ? "spread" : "block",
	        explain_gib(in, a, sizeof a), n - r, explain_gib(all, b, sizeof b),
	        explain_gib(in + all, c, sizeof c));
}

static void per_layer_kind(FILE *o, const plan_scenario *s, int stage)
{
	char f[200], a[32];
	work_shard sh = plan_shard(s);
	work_saved sv = plan_saved(s);
	int n = plan_stage_layers(s, stage);
	/* (under recompute_layers a layer's whole count; per_layer splits) */
	work_recompute rc =
	        plan_recompute_partial(&s->plan) ? WORK_RECOMPUTE_NONE : s->plan.recompute;
	double sum = 0;
	for (int l = 0; l < n; l++)
		sum += work_saved_bytes_at(&s->model, &sh, plan_global_layer(s, stage, l), rc, &sv);
	double per = n > 0 ? sum / n : 0;
	if (sv.kind == WORK_SAVED_FUSED) {
		double text = korthikanti(s, rc, f, sizeof f);
		fprintf(o,
		        "  per layer    Korthikanti et al. 2022, one micro-batch (s = %.0f per rank):\n"
		        "                 %s = %s\n",
		        (double)sh.seq, f, explain_gib(text, a, sizeof a));
		if (s->flash && rc == WORK_RECOMPUTE_NONE)
			fprintf(o, "               flash attention keeps no s x s scores: drop the "
			           "5as/(ht) term\n");
		if (fabs(per - text) > 1e-3 * text)
			fprintf(o, "               podsim's per-layer figure: %s%s\n",
			        explain_gib(per, a, sizeof a),
			        s->model.act == WORK_ACT_SWIGLU ||
			                        s->model.kv_heads != s->model.heads ||
			                        s->model.moe_experts > 0
			                ? " (the 34 rebuilt from SwiGLU/GQA/MoE tensor sizes)"
			                : "");
		return;
	}
	if (sv.kind == WORK_SAVED_NANOTRON) {
		fprintf(o,
		        "  per layer    nanotron's Llama code, one micro-batch: %s (the norms' "
		        "inputs, every linear input, Q, the packed K/V copy, the attention "
		        "output and LSE, SwiGLU's three tensors; work/memory.c)\n",
		        explain_gib(per, a, sizeof a));
		return;
	}
	fprintf(o,
	        "  per layer    %s code, one micro-batch: %s (every linear input, both "
	        "SwiGLU branches, the norms' copies; work/memory.c)\n",
	        sv.kind == WORK_SAVED_EAGER ? "eager" : "compiled", explain_gib(per, a, sizeof a));
}

/* The device line of a peak: its device total against the capacity and the
 * verdict; out of memory on its own basis, allocated + runtime over the
 * capacity (plan_mem_verdict: the allocator's cache in the device figure
 * gives way first). */
static void device_line(FILE *o, const char *label, const plan_mem_peak *p)
{
	char a[48], b[48], c[48];
	fprintf(o, "  %-12s %s (+ runtime: what nvidia-smi shows) of %s: ", label,
	        explain_gib(p->device, a, sizeof a), explain_gib(p->capacity, b, sizeof b));
	double need = p->allocated + p->bytes[PLAN_MEM_RUNTIME];
	if (p->verdict == PLAN_VERDICT_OOM)
		fprintf(o, "OUT OF MEMORY, allocated + runtime %s over the capacity by %s\n",
		        explain_gib(need, a, sizeof a),
		        explain_gib(need - p->capacity, c, sizeof c));
	else
		fprintf(o, "%s, %s free\n", plan_verdict_name(p->verdict),
		        explain_gib(p->capacity - p->device, c, sizeof c));
}

/* The plan's verdict where the device line does not say it alone (the run's
 * exec_mem_verdict and basis, as `podsim run` prints them): with nodes of
 * other_gpu the other GPU type's worst stage and the worst of the two;
 * offloaded states past the node's host DRAM or NVMe. */
static void plan_verdict_lines(FILE *o, const plan_scenario *s, const exec_result *r, bool on_other,
                               int k)
{
	const exec_mixed *m = &r->mixed;
	exec_mem_basis on = exec_mem_basis_of(r);
	plan_verdict v = exec_mem_verdict(r);
	char a[48], b[48];
	if (m->nodes > 0 && m->mem_stage >= 0) {
		/* the GPU type section 3 does not walk: its most loaded stage */
		plan_mem_peak q;
		int j = on_other ? exec_mem_worst(r) : m->mem_stage;
		j = j > 0 ? j : 0;
		if (on_other)
			plan_memory_totals(s, j, &q);
		else
			plan_memory_other(s, j, false, &q);
		char label[2 * EXEC_NAME_MAX];
		snprintf(label, sizeof label, "on %s, stage %d: device", on_other ? r->gpu : m->gpu,
		         j);
		device_line(o, label, &q);
		fprintf(o,
		        "  verdict      %s (on %s, stage %d: the worst of the GPU types the plan "
		        "runs on; section 10)\n",
		        v == PLAN_VERDICT_OOM ? "OUT OF MEMORY" : plan_verdict_name(v),
		        on_other ? m->gpu : r->gpu, on_other ? m->mem_stage : k);
	} else if (on == EXEC_MEM_ON_HOST || on == EXEC_MEM_ON_NVME) {
		bool host = on == EXEC_MEM_ON_HOST;
		fprintf(o,
		        "  verdict      OUT OF MEMORY: the offloaded states per node, %s, overflow "
		        "the node's %s, %s\n",
		        explain_gib(host ? r->host_bytes : r->nvme_bytes, a, sizeof a),
		        host ? "host memory" : "NVMe",
		        explain_gib(host ? r->host_capacity_bytes : r->nvme_capacity_bytes, b,
		                    sizeof b));
	}
}

/* The cuts (plan_memory_cuts), and at the checkpoint after the step which
 * of the changes cannot move that moment (plan_memory_cuts_idle). */
static void cuts(FILE *o, const plan_scenario *s, const plan_mem_peak *p)
{
	plan_mem_cut cut[5], idle[5];
	int n = plan_memory_cuts(s, cut, 5);
	int ni = p->checkpoint ? plan_memory_cuts_idle(s, idle, 5) : 0;
	char a[48], b[48], text[1200];
	if (n == 0 && !p->checkpoint) {
		explain_why(
		        o,
		        "none of recompute = full, a higher ZeRO stage, a smaller micro-batch or "
		        "optimizer offloading applies to this plan: it needs more GPUs or a "
		        "smaller model");
		return;
	}
	if (n > 0) {
		fprintf(o,
		        "  cut first    (each change alone: what it saves of the most loaded "
		        "stage's demand, allocated x %.3g + runtime, and the device after)\n",
		        1 + s->fw.allocator_overhead);
		for (int i = 0; i < n; i++)
			fprintf(o, "    %-44s -%-10s %s -> %s (%s)\n", cut[i].what,
			        explain_gib(cut[i].saved, a, sizeof a), cut[i].term,
			        explain_gib(cut[i].device, b, sizeof b),
			        plan_verdict_name(cut[i].verdict));
	}
	sweep_remedy fix;
	if (sweep_fit_remedy(s, &fix) == SIM_OK && (fix.found || n > 0))
		cli_remedy_print(o, &fix);
	if (!p->checkpoint)
		return;
	/* the checkpoint's own bytes: the shard copies and the gathered root
	 * beside the static terms (memwalk.c save_moment) */
	size_t len = (size_t)snprintf(
	        text, sizeof text,
	        "the peak is the checkpoint after the step: the state dict's copy of every "
	        "parameter's shard and the gathered root beside the static terms. "
	        "checkpoint_offload (accelerate's FULL_STATE_DICT: offload_to_cpu, rank0_only) "
	        "leaves one unit gathered instead of the copies; a higher ZeRO stage and the "
	        "optimizer on the CPU shrink the static terms beside them; recomputation and the "
	        "micro-batch act only on the step before it, whose reserved the save keeps, and "
	        "the parameters' CPU offload leaves the copies on the GPU.");
	if (ni > 0 && len < sizeof text) {
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        " Of the changes that apply, these cannot change that "
		                        "moment here:");
		for (int i = 0; i < ni && len < sizeof text; i++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s %s",
			                        i ? "," : "", idle[i].what);
		if (len < sizeof text)
			snprintf(text + len, sizeof text - len, ".");
	}
	explain_why(o, text);
}

/* Section 3: the most loaded stage's peak, found by walking its schedule
 * (plan_memory_peak) on the GPU the plan's verdict is decided on (the
 * run's basis: other_gpu's worst stage where it decides): the moment,
 * every term alive then with its formula, the counters against capacity
 * and the verdict; the other GPU type's device line and the plan's verdict
 * where they differ; where it does not fit or is tight, the changes that
 * cut most (plan_memory_cuts), and at the checkpoint after the step what
 * acts on it. */
void explain_memory(FILE *o, const plan_scenario *s, const exec_result *r)
{
	int k = exec_mem_worst(r);
	k = k > 0 ? k : 0;
	plan_mem_peak p;
	bool on_other = exec_mem_basis_of(r) == EXEC_MEM_ON_OTHER && r->mixed.nodes > 0 &&
	                r->mixed.mem_stage >= 0;
	if (on_other) {
		k = r->mixed.mem_stage;
		plan_memory_other(s, k, true, &p);
	} else {
		plan_memory_peak(s, k, &p);
	}
	char a[48];
	if (on_other)
		fprintf(o,
		        "\n3. Memory per GPU, stage %d on %s ([cluster] other_gpu: the worst "
		        "stage its nodes hold, where the plan's verdict is decided)\n",
		        k, r->mixed.gpu);
	else
		fprintf(o, "\n3. Memory per GPU, stage %d (the most loaded of %d)\n", k,
		        r->nclasses);
	fprintf(o, "  peak at      %s\n", p.moment);
	for (int m = 0; m < PLAN_MEM_COUNT; m++) {
		bool head = true;
		for (int i = 0; i < p.nterms; i++) {
			const plan_mem_term *t = &p.term[i];
			if (t->cat != (plan_mem)m)
				continue;
			fprintf(o, "  %-16s %-22s %10s  %s\n",
			        head ? plan_mem_name((plan_mem)m) : "", t->name,
			        explain_gib(t->bytes, a, sizeof a), t->formula);
			head = false;
		}
	}
	per_layer(o, s, k);
	fprintf(o, "  allocated    %s (PyTorch's max_memory_allocated)\n",
	        explain_gib(p.allocated, a, sizeof a));
	fprintf(o, "  reserved     %s (+ the allocator's cache: max_memory_reserved)\n",
	        explain_gib(p.reserved, a, sizeof a));
	if (s->fw.logged_peak == PLAN_LOGGED_AFTER_PIPELINE && !s->inference)
		fprintf(o, "  logged       %s (this stage's max_memory_allocated in %s's own log, which "
		           "resets the peak counters after the forward and backward: the "
		           "optimizer phase's, logged_peak; its max_memory_reserved is the "
		           "step's)\n",
		        explain_gib(plan_memory_after_pipeline(s, k), a, sizeof a), s->fw.name);
	device_line(o, "device", &p);
	plan_verdict_lines(o, s, r, on_other, k);
	if (exec_mem_verdict(r) == PLAN_VERDICT_FITS && p.verdict == PLAN_VERDICT_FITS)
		return;
	exec_mem_basis on = exec_mem_basis_of(r);
	if (p.verdict == PLAN_VERDICT_FITS && (on == EXEC_MEM_ON_HOST || on == EXEC_MEM_ON_NVME)) {
		explain_why(
		        o,
		        "the GPU fits: the offloaded states of a node's ranks overflow its tier, which "
		        "the GPU's cuts (recomputation, the micro-batch, a higher ZeRO stage) do not "
		        "move; more nodes for the same states, or the other offload tier, do");
		return;
	}
	cuts(o, s, &p);
}
