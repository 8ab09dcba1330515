/* test_recompute.c - full recomputation of some layers ([parallel]
 * recompute_layers, recompute_method; plan_layer_recomputed): which layers,
 * the recomputed FLOPs and their time in the task graph, and the kept
 * activations and working set in the memory walk. Each figure is derived in
 * its comment. */
#include "check.h"
#include "scen.h"

#include "../../sim/exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A GPT-style model (GELU, LayerNorm: Korthikanti's layer, 34 s b h bytes
 * kept per layer with flash attention, 2 s b h under full recomputation) of
 * L = 8 layers on one A100, micro-batch 2 x 2048 tokens, one micro-batch;
 * a small vocabulary keeps the loss below a layer's backward (test_memory). */
#define GPT8                                                                                       \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 1\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nname = g\nlayers = 8\nhidden = 2048\nheads = 16\nffn = 8192\nvocab = 1024\n"    \
	"seq_len = 2048\nactivation = gelu\nnorm = layernorm\n"                                    \
	"[parallel]\nmicro_batch = 2\nglobal_batch = 2\n"

/* Which layers: block N = 3 of n = 8 is layers 0, 1, 2 (Megatron's first N
 * of the chunk); spread N = 4 of 8 is every second, 1-based 2, 4, 6, 8
 * (fms-fsdp 7746dac's every_xth_item = 2, torchtitan's "2"): 0-based 1, 3,
 * 5, 7; spread N = 3 of 8: floor(3j / 8) steps at j = 3, 6, 8 (0-based 2,
 * 5, 7); N = 0 and N >= n recompute all, recompute = selective none. */
static void test_which(void)
{
	plan_spec p = {.recompute = WORK_RECOMPUTE_FULL, .recompute_layers = 3};
	unsigned got = 0;
	for (int l = 0; l < 8; l++)
		got |= (unsigned)plan_layer_recomputed(&p, 8, l) << l;
	CHECK_INT(got, 0x07);
	p.recompute_method = PLAN_RC_SPREAD, p.recompute_layers = 4, got = 0;
	for (int l = 0; l < 8; l++)
		got |= (unsigned)plan_layer_recomputed(&p, 8, l) << l;
	CHECK_INT(got, 0xaa);
	p.recompute_layers = 3, got = 0;
	for (int l = 0; l < 8; l++)
		got |= (unsigned)plan_layer_recomputed(&p, 8, l) << l;
	CHECK_INT(got, (1u << 2) | (1u << 5) | (1u << 7));
	/* fms-fsdp's P03: 20 of 40, the odd 0-based layers, 20 in all */
	p.recompute_layers = 20;
	int n = 0;
	for (int l = 0; l < 40; l++)
		n += plan_layer_recomputed(&p, 40, l) ? (CHECK(l % 2 == 1), 1) : 0;
	CHECK_INT(n, 20);
	p.recompute_layers = 0;
	CHECK(plan_layer_recomputed(&p, 8, 0) && plan_layer_recomputed(&p, 8, 7));
	p.recompute_layers = 8;
	CHECK(plan_layer_recomputed(&p, 8, 0) && !plan_recompute_partial(&(plan_spec){0}));
	p.recompute = WORK_RECOMPUTE_SELECTIVE, p.recompute_layers = 0;
	CHECK(!plan_layer_recomputed(&p, 8, 0));
}

/* Sum of the graph's recompute tasks' durations (s) and the step's
 * hardware and model FLOPs. */
static void recompute_of(const char *text, double *t_s, double *hw, double *model)
{
	*t_s = *hw = *model = -1;
	plan_scenario *s = scen_load(text);
	plan_graph *g = NULL;
	if (s && plan_build(s, &g) == SIM_OK) {
		sim_time t = 0;
		for (size_t i = 0; i < g->ntasks; i++)
			if (g->tasks[i].kind == PLAN_TASK_RECOMP)
				t += g->tasks[i].dur;
		*t_s = sim_time_to_s(t);
		*hw = g->hardware_flops, *model = g->model_flops;
	}
	plan_graph_free(g);
	plan_scenario_free(s);
}

/* Time and FLOPs: a recomputed layer re-runs its forward, the same kernels
 * as under recompute = full, so with k of L identical layers recomputed the
 * recompute tasks take k/L of full recomputation's time and the step
 * executes k/L of its extra FLOPs. Those are the layers' forward: a third
 * of their 6 P_layer T + attention, F_layers / 3 (F_layers = model FLOPs
 * less those of the same model without layers: embedding and logits), so
 *   hardware - model = (k / L) F_layers / 3,
 * HFU / MFU = 1 + (k / L) F_layers / (3 F): the relation the case reader
 * inverts for fms-fsdp's rows (valid/runs.c layer_checkpointing). */
static void test_time(void)
{
	double tf, hf, mf, tk, hk, mk, t0, h0, m0;
	recompute_of(GPT8 "recompute = full\n", &tf, &hf, &mf);
	recompute_of(GPT8 "recompute = full\nrecompute_layers = 3\n", &tk, &hk, &mk);
	recompute_of(GPT8 "recompute = none\n", &t0, &h0, &m0);
	CHECK(tf > 0);
	CHECK_NEAR(tk, tf * 3.0 / 8.0, 1e-9);
	CHECK_NEAR(t0, 0, 0);
	CHECK_NEAR(h0, m0, 1e-12);
	CHECK_NEAR(hk - mk, (hf - mf) * 3.0 / 8.0, 1e-9);
	/* F_layers / 3 per recomputed layer: (6 x 12 h^2 (+ biases) T + attention)
	 * / 3 of the 8 layers, from work_model_flops with and without layers */
	plan_scenario *s = scen_load(GPT8 "recompute = full\n");
	if (s) {
		work_model z = s->model;
		z.layers = 0;
		double T = 2.0 * 2048, fl = work_model_flops(&s->model, T) - work_model_flops(&z, T);
		CHECK_NEAR(hk - mk, 3.0 / 8.0 * fl / 3.0, 1e-6);
		plan_scenario_free(s);
	}
	/* spread, the same count: the same time */
	recompute_of(GPT8 "recompute = full\nrecompute_layers = 3\nrecompute_method = spread\n", &tk,
	             &hk, &mk);
	CHECK_NEAR(tk, tf * 3.0 / 8.0, 1e-9);
}

/* The walk's terms at the peak of one micro-batch: the kept activations of
 * the chunk and the layer backward's working set; whether the peak's moment
 * is a backward through a layer that is not recomputed (1), one recomputing
 * its layer (2), or something else (0). */
static void peak_of(const char *text, double *kept, double *work, int *moment)
{
	*kept = *work = -1;
	*moment = -1;
	plan_scenario *s = scen_load(text);
	if (s) {
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		*kept = scen_term(&p, "kept activations");
		*work = scen_term(&p, "layer backward");
		*moment = strstr(p.moment, "backward of") == NULL    ? 0
		          : strstr(p.moment, " through a layer")     ? 1
		          : strstr(p.moment, " recomputing a layer") ? 2
		                                                     : 0;
		plan_scenario_free(s);
	}
}

/* Memory: s b h = 2048 x 2 x 2048 = 8,388,608 B-units per layer; a
 * recomputed layer keeps its 16-bit input, 2 s b h = 16 MiB, the others
 * Korthikanti's 34 s b h = 272 MiB (flash: no 5as/h term). With k = 3 of 8
 * recomputed: 3 x 16 + 5 x 272 = 1,408 MiB; all: 8 x 16 = 128 MiB; none:
 * 8 x 272 = 2,176 MiB. The backward's working set: under full recomputation
 * the last layer recomputes first, its 272 MiB on top of everything kept;
 * under block k < L the recomputed layers come after the five whole ones,
 * freed (5 x 272 > 272): none, the layer backward as without recomputation;
 * spread 4 of 8 recomputes the last layer first: 272 MiB again. Beside it
 * every layer's backward holds its activation gradients at the MLP, 2 e f
 * T = 2 x 2 x 8192 x 4096 B = 16 s b h (memwalk.c bwd_grads), and with a
 * vocabulary of 1024 the loss's 8 B x 1024 x T = 32 MiB stays under that,
 * so each plan peaks in its first backward. */
static void test_memory(void)
{
	const double sbh = 2048.0 * 2 * 2048, MiB = 1048576.0;
	double ka, wa, kk, wk, kn, wn, ks, ws;
	int ma, mk, mn, ms;
	peak_of(GPT8 "recompute = full\n", &ka, &wa, &ma);
	peak_of(GPT8 "recompute = full\nrecompute_layers = 3\n", &kk, &wk, &mk);
	peak_of(GPT8 "recompute = none\n", &kn, &wn, &mn);
	peak_of(GPT8 "recompute = full\nrecompute_layers = 4\nrecompute_method = spread\n", &ks, &ws,
	        &ms);
	CHECK_NEAR(2 * sbh, 16 * MiB, 1e-12);
	CHECK_NEAR(ka, 8 * 2 * sbh, 1e-9);
	CHECK_NEAR(kn, 8 * 34 * sbh, 1e-9);
	CHECK_NEAR(kk, (3 * 2 + 5 * 34) * sbh, 1e-9);
	CHECK_NEAR(ks, (4 * 2 + 4 * 34) * sbh, 1e-9);
	CHECK_NEAR(wn, 16 * sbh, 1e-9);      /* activation gradients, 2 e f T */
	CHECK_NEAR(wa - wn, 34 * sbh, 1e-9); /* + a recomputed layer's saved tensors */
	CHECK_NEAR(wk, wn, 1e-12);           /* block: recomputes after freeing */
	CHECK_NEAR(ws, wa, 1e-12);           /* spread: the last layer first */
	/* explain's moment says which: recomputing a layer only where the
	 * peak's layer is recomputed (all; spread's last layer), through a
	 * layer otherwise (none; block, whose whole layers hold the peak) */
	CHECK_INT(ma, 2);
	CHECK_INT(ms, 2);
	CHECK_INT(mn, 1);
	CHECK_INT(mk, 1);
}

/* The cut suggested for a plan that recomputes some layers is to recompute
 * all (recompute_layers = 0), not recompute = full again. */
static void test_cut(void)
{
	plan_scenario *s = scen_load(GPT8 "recompute = full\nrecompute_layers = 3\n");
	if (!s)
		return;
	plan_mem_cut c[4];
	int n = plan_memory_cuts(s, c, 4);
	bool all = false;
	for (int i = 0; i < n; i++)
		all = all || !strcmp(c[i].what, "recompute_layers = 0 (all)");
	CHECK(all);
	plan_scenario_free(s);
}

int main(void)
{
	test_which();
	test_time();
	test_memory();
	test_cut();
	return check_done();
}
