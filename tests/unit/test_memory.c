/* test_memory.c - the memory model (plan/memory.c, plan/memwalk.c,
 * work/memory.c's eager counts): bytes per parameter per policy, LoRA and
 * QLoRA, the loss tensors, eager and compiled saved tensors, when gradients
 * and activations coexist, the counters and the verdict, and the cuts. Each
 * figure is derived in its comment. */
#include "check.h"
#include "scen.h"

#include "../../sim/exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Llama 2 7B on one A100 80 GB, one micro-batch of 4096 tokens; FW_ adds a
 * framework profile (includes come before the sections). */
#define LLAMA7B_BODY                                                                               \
	"include = models/llama2-7b.ini\ninclude = topologies/nodes/dgx-a100-80g.ini\n"            \
	"[scenario]\nname = t\n[node]\ngpus = 1\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 4096\n[parallel]\nmicro_batch = 1\n"
#define LLAMA7B   LLAMA7B_BODY "global_batch = 1\n"
#define FW_(name) "include = topologies/frameworks/" name ".ini\n" LLAMA7B_BODY

/* Bytes per parameter of the three policies with Adam (memory.c's table):
 * mixed 2 + 4 (fp32_grads) + 12 = 18, pure 2 + 2 + 4 = 8, amp 4 + 4 + 8 = 16;
 * 8-bit Adam keeps 2 x (1 + 4/256) = 2.03125 bytes of state; paged states
 * leave the allocator for unified memory. */
static void test_policies(void)
{
	const char *pol[] = {"mixed", "pure", "amp"};
	double want[] = {18, 8, 16};
	for (int i = 0; i < 3; i++) {
		char t[1024];
		snprintf(t, sizeof t, "%s[train]\npolicy = %s\n", LLAMA7B, pol[i]);
		plan_scenario *s = scen_load(t);
		if (!s)
			continue;
		double w, g, o, paged;
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(w + g + o, want[i], 1e-12);
		CHECK_NEAR(paged, 0, 0);
		plan_scenario_free(s);
	}
	plan_scenario *s = scen_load(LLAMA7B "[train]\npolicy = pure\noptimizer = adam-8bit\n");
	double w, g, o, paged;
	if (s) {
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(o, 2 + 8.0 / 256, 1e-12);
		plan_scenario_free(s);
	}
	s = scen_load(LLAMA7B "[train]\npolicy = pure\noptimizer = paged-adam\n");
	if (s) {
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(o, 0, 0);
		CHECK_NEAR(paged, 4, 1e-12);
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		CHECK(p.bytes[PLAN_MEM_RUNTIME] > 4 * work_params_total(&s->model) * 0.99);
		plan_scenario_free(s);
	}
}

/* The optimizer-side state per parameter under the mixed policy (the course
 * notes' figures): the fp32 master (4) plus Adam's m and v (8) = 12; SGD
 * with momentum 4 + 4 = 8; 8-bit Adam 4 + 2 x (1 + 4/256) = 6.03; plain SGD
 * 4; Adafactor 4 + the factored v: Llama 2 7B's layer matrices q, k, v, o
 * [4096, 4096] and gate, up, down [4096, 11008]: 4 x (8 x 8192 + 3 x 15104)
 * / (4 x 4096^2 + 3 x 4096 x 11008) = 4 x 78,080 / 202,375,168. The step's
 * bytes (fused, fp32_grads): SGD-momentum 2p + g + 2s = 20, + the master's
 * cast back (4 + 2) + the norm's read (4) = 30; Adafactor 2p + 2g = 16, + 10
 * = 26. LoRA r = 16 on all seven linears trains under 1 % of Llama 2 7B:
 * 32 x 16 x (4 x 8192 + 2 x 15104 + 15104) = 39,976,960 of 6.74e9 (0.59 %). */
static void test_optimizers(void)
{
	struct {
		const char *opt;
		double state, step;
	} c[] = {
	        {"adam", 12, 38},
	        {"sgd-momentum", 8, 30},
	        {"sgd", 8, 30}, /* the same: SGD with momentum, as the course teaches it */
	        {"adam-8bit", 4 + 2 + 8.0 / 256, 2 * 4 + 4 + 4 * (1 + 4.0 / 256) + 10},
	        {"adam8bit", 4 + 2 + 8.0 / 256, 2 * 4 + 4 + 4 * (1 + 4.0 / 256) + 10},
	        {"sgd-plain", 4, 22},
	        {"adafactor", 4 + 4.0 * 78080 / 202375168, 26},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char t[1024];
		snprintf(t, sizeof t, "%sfp32_grads = true\n[train]\noptimizer = %s\n", LLAMA7B,
			 c[i].opt);
		plan_scenario *s = scen_load(t);
		if (!s)
			continue;
		double w, g, o, paged;
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(o, c[i].state, 1e-12);
		CHECK_NEAR(plan_optimizer_bytes(s), c[i].step, 1e-12);
		plan_scenario_free(s);
	}
	/* 1-bit Adam adds its error feedback, a worker error per parameter and
	 * a server error per 1/n chunk in fp32: on one GPU 12 + 4 + 4 = 20 */
	plan_scenario *s = scen_load(LLAMA7B "fp32_grads = true\n[train]\ngrad_compression = 1bit\n");
	if (s) {
		double w, g, o, paged;
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(o, 20, 1e-12);
		CHECK_NEAR(plan_grad_wire_bytes(s, g), 0.125, 0);
		plan_scenario_free(s);
	}
	s = scen_load(LLAMA7B "[train]\nlora_rank = 16\n");
	if (s) {
		plan_budget b;
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.train, 32.0 * 16 * (4 * 8192 + 3 * 15104), 1e-12);
		CHECK(b.train < 0.01 * work_params_total(&s->model));
		plan_scenario_free(s);
	}
}

/* LoRA r = 8 on q and v of Llama 2 7B: r (h + h) per target and layer,
 * 8 x 8192 x 2 x 32 = 4,194,304 parameters train, the count lit-gpt prints
 * (memory.csv MB08's note). QLoRA NF4: the layers' linear weights at
 * 0.5 + 4/64 bytes, the embedding, output layer and norms at 2. */
static void test_lora(void)
{
	plan_scenario *s =
	        scen_load(LLAMA7B "[train]\npolicy = pure\nlora_rank = 8\nlora_targets = q,v\n"
	                     "base_weights = nf4\n");
	if (!s)
		return;
	plan_budget b;
	plan_stage_budget(s, 0, &b);
	CHECK_NEAR(b.train, 4194304, 1e-12);
	CHECK_NEAR(b.adapters, 4194304, 1e-12);
	const work_model *m = &s->model;
	double linear = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
	CHECK_NEAR(b.linear, linear, 1e-12);
	CHECK_NEAR(b.frozen, work_params_total(m), 1e-12);
	CHECK_NEAR(b.frozen_bytes, linear * 0.5625 + (work_params_total(m) - linear) * 2, 1e-12);
	plan_scenario_free(s);
	/* the LoRA(emb) variant trains the embedding and the output layer too
	 * (with the final norm's 4,096: the output layer's count includes it) */
	s = scen_load(LLAMA7B "[train]\nlora_rank = 8\nlora_targets = q,v\ntrain_embeddings = true\n");
	if (s) {
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.train, 4194304 + 2.0 * 32000 * 4096 + 4096, 1e-12);
		plan_scenario_free(s);
	}
}


/* QLoRA under FSDP (memory.c, memwalk.c): bitsandbytes' quantisation state
 * is not a parameter, so FSDP neither shards nor offloads it. Llama 2 7B
 * double-quantised: the linear weights L = 32 (4 x 4096^2 + 3 x 4096 x 11008)
 * = 6,476,005,376 keep 0.5 B packed (sharded over dp = 2, or on the CPU
 * with offload_params) and 1/64 + 4/(64 x 256) = 0.015869140625 B of absmax
 * on every rank: 102,767,589.4 B. The largest linear, an MLP projection
 * 4096 x 11008 (HF Llama's q, k and v are apart: 4096 x 4096 each), is
 * dequantised to 16 bits for its GEMMs: 90,177,536 B, at the peak in a
 * recomputed layer's backward (a chunked loss keeps the loss's below it). */
#define QLORA_FSDP                                                                                 \
	"include = topologies/frameworks/pytorch-fsdp.ini\ninclude = models/llama2-7b.ini\n"       \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 2048\n[parallel]\ndp = 2\nzero = 3\nmicro_batch = 1\n"                 \
	"global_batch = 2\nrecompute = full\n"
#define QLORA_TRAIN                                                                                \
	"[train]\npolicy = pure\nlora_rank = 8\nbase_weights = nf4-dq\nchunked_loss = true\n"
static void test_quant_state(void)
{
	plan_scenario *s = scen_load(QLORA_FSDP QLORA_TRAIN);
	if (!s)
		return;
	double L = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
	double qs = L * (1.0 / 64 + 4.0 / (64 * 256));
	plan_budget b;
	plan_stage_budget(s, 0, &b);
	CHECK_NEAR(b.quant_state, qs, 1e-12);
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK_NEAR(scen_term(&p, "quantisation state"), qs, 1e-12);
	CHECK_NEAR(scen_term(&p, "frozen base weights"), (b.frozen_bytes - qs) / 2, 1e-12);
	CHECK_NEAR(scen_term(&p, "dequantised weight"), 4096.0 * 11008 * 2, 1e-12);
	plan_scenario_free(s);
	/* offloaded: of the weights only the quantisation state stays */
	s = scen_load(QLORA_FSDP "offload_params = cpu\noffload_optimizer = cpu\n" QLORA_TRAIN);
	if (s) {
		plan_memory_peak(s, 0, &p);
		CHECK_NEAR(p.bytes[PLAN_MEM_WEIGHTS], qs, 1e-12);
		CHECK_NEAR(scen_term(&p, "frozen base weights"), 0, 0);
		plan_scenario_free(s);
	}
	/* a 16-bit base has no quantisation state and no dequantised copy */
	s = scen_load(QLORA_FSDP "[train]\npolicy = pure\nlora_rank = 8\n");
	if (s) {
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.quant_state, 0, 0);
		plan_memory_peak(s, 0, &p);
		CHECK_NEAR(scen_term(&p, "dequantised weight"), 0, 0);
		plan_scenario_free(s);
	}
}

/* Accumulation under accelerate (hf-trainer-fsdp): accelerate's accumulate()
 * runs every micro-batch but the last in FSDP.no_sync(), which keeps the
 * full gradients, on the GPU even with CPUOffload, until the syncing
 * backward. Llama 2 7B with LoRA r = 8 on every linear: per layer q, k, v, o
 * 4 x 8 (4096 + 4096) = 262,144 and gate, up, down 3 x 8 (4096 + 11008) =
 * 362,496, x 32 layers = 19,988,480 adapter parameters, 2 B each (pure):
 * 39,976,960 B unsharded at the second micro-batch's backward, over dp = 2
 * and offload_params = cpu alike. Plain FSDP (pytorch-fsdp: a
 * reduce-scatter every backward) keeps the shard, 19,988,480 B, and under
 * CPUOffload none; one micro-batch a step has nothing to accumulate. (The
 * checkpoint after the step is off: its moment, test_checkpoint, would be the
 * peak here.) */
#define NOSYNC_FSDP(fw, gb, off)                                                                   \
	"include = topologies/frameworks/" fw ".ini\ninclude = models/llama2-7b.ini\n"             \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 2048\n[parallel]\ndp = 2\nzero = 3\nmicro_batch = 1\n"                 \
	"global_batch = " gb "\nrecompute = full\noffload_params = " off                          \
	"\noffload_optimizer = " off "\n[train]\npolicy = pure\nlora_rank = 8\n"                   \
	"lora_targets = all\nbase_weights = nf4-dq\n[framework]\ncheckpoint_shards = false\n"
static void test_no_sync(void)
{
	const double A = 32 * (4 * 8 * 8192.0 + 3 * 8 * (4096.0 + 11008));
	CHECK_NEAR(A, 19988480, 0);
	static const struct {
		const char *text;
		double grads;
	} c[] = {
	        {NOSYNC_FSDP("hf-trainer-fsdp", "4", "cpu"), 2 * A},
	        {NOSYNC_FSDP("hf-trainer-fsdp", "4", "none"), 2 * A},
	        {NOSYNC_FSDP("pytorch-fsdp", "4", "none"), A},
	        {NOSYNC_FSDP("pytorch-fsdp", "4", "cpu"), 0},
	        {NOSYNC_FSDP("hf-trainer-fsdp", "2", "cpu"), 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		plan_scenario *s = scen_load(c[i].text);
		if (!s)
			continue;
		plan_budget b;
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.adapters, A, 0);
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		if (!CHECK_NEAR(scen_term(&p, "gradients"), c[i].grads, 1e-12))
			fprintf(stderr, "case %zu\n", i);
		plan_scenario_free(s);
	}
}

/* ZeRO-3 under torch pipelining (torchtitan, zero3_pp_gathered): each unit
 * stays gathered from the step's first forward to its end and the
 * gradients accumulate unsharded in fp32 (FSDP2's reduce_dtype) until the
 * stage's REDUCE_GRAD. Llama 2 7B on pp 2, dp 2, 2 micro-batches: stage 0
 * holds 16 layers of 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 =
 * 202,383,360 parameters and the embedding, 32000 x 4096 = 131,072,000:
 * 3,369,205,760. Gathered (16 bits): 6,738,411,520 B; gradients (fp32,
 * whole): 13,476,823,040 B. With the profile's key off, plain FSDP2: the
 * gradient shard, 6,738,411,520 B. */
#define PP_FSDP(extra)                                                                             \
	"include = topologies/frameworks/torchtitan.ini\ninclude = models/llama2-7b.ini\n"          \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 4\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 2048\n[parallel]\npp = 2\ndp = 2\nzero = 3\nmicro_batch = 1\n"        \
	"global_batch = 4\nrecompute = full\n[train]\nprecision = bf16\n" extra
static void test_pp_gathered(void)
{
	const double P = 16 * 202383360.0 + 131072000;
	plan_scenario *s = scen_load(PP_FSDP(""));
	if (s) {
		plan_budget b;
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.train, P, 0);
		CHECK(plan_zero3_pp_gathered(s));
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		CHECK_NEAR(scen_term(&p, "gathered weights"), 2 * P, 1e-12);
		CHECK_NEAR(scen_term(&p, "gradients"), 4 * P, 1e-12);
		plan_scenario_free(s);
	}
	s = scen_load(PP_FSDP("[framework]\nzero3_pp_gathered = false\n"));
	if (s) {
		CHECK(!plan_zero3_pp_gathered(s));
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		CHECK_NEAR(scen_term(&p, "gradients"), 2 * P, 1e-12);
		CHECK(scen_term(&p, "gathered weights") < P);
		plan_scenario_free(s);
	}
}

/* ZBV's V puts both ends on rank 0: Llama 2 7B (untied) on pp 2, vpp 2, 8
 * layers per virtual stage: rank 0 holds virtual stages 0 and 3, its 16
 * layers, the embedding (32000 x 4096 = 131,072,000), the output layer (as
 * many) and the final norm (4096); rank 1 virtual stages 1 and 2, 16 layers
 * alone. The loss's logits are rank 0's (its peak names them), none on rank
 * 1; under interleaved 1F1B the output layer and the loss are rank 1's. The
 * whole walk is the peak's moment (memwalk.c head_ops): the allocated peak
 * equals the largest op of plan_memory_curve on both ranks. */
#define ZBV_LLAMA(sched)                                                                           \
	"include = topologies/frameworks/torchtitan.ini\ninclude = models/llama2-7b.ini\n"          \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 4\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 2048\n[parallel]\npp = 2\nvpp = 2\ndp = 2\nzero = 1\n"              \
	"micro_batch = 1\nglobal_batch = 8\nrecompute = full\nschedule = " sched "\n"          \
	"[train]\nprecision = bf16\n"
static void test_zbv_ends(void)
{
	const double L = 16 * 202383360.0, E = 131072000;
	plan_scenario *s = scen_load(ZBV_LLAMA("zbv"));
	if (s) {
		plan_budget b0, b1;
		plan_stage_budget(s, 0, &b0);
		plan_stage_budget(s, 1, &b1);
		CHECK_NEAR(b0.train, L + 2 * E + 4096, 0);
		CHECK_NEAR(b1.train, L, 0);
		plan_mem_peak p0, p1;
		plan_memory_peak(s, 0, &p0);
		plan_memory_peak(s, 1, &p1);
		CHECK(scen_term(&p0, "loss logits") > 0);
		CHECK_NEAR(scen_term(&p1, "loss logits"), 0, 0);
		for (int st = 0; st < 2; st++) {
			int n = plan_schedule_steps(s->plan.schedule, 4, 2) + 1;
			double *a = malloc(3 * (size_t)n * sizeof *a), top = 0;
			if (a && CHECK_INT(plan_memory_curve(s, st, a, a + n, a + 2 * n, n), n))
				for (int i = 0; i < n; i++)
					top = a[n + i] > top ? a[n + i] : top;
			CHECK_NEAR((st ? &p1 : &p0)->allocated, top, 1e-9);
			free(a);
		}
		plan_scenario_free(s);
	}
	s = scen_load(ZBV_LLAMA("1f1b"));
	if (s) {
		plan_budget b0, b1;
		plan_stage_budget(s, 0, &b0);
		plan_stage_budget(s, 1, &b1);
		CHECK_NEAR(b0.train, L + E, 0);
		CHECK_NEAR(b1.train, L + E + 4096, 0);
		plan_scenario_free(s);
	}
}

/* The checkpoint of FSDP1's SHARDED_STATE_DICT (hf-trainer-fsdp's
 * checkpoint_shards; memwalk.c save_moment): after the step the GPU holds a
 * clone of every parameter's local shard and the gathered root unit beside
 * the static terms. Llama 2 7B QLoRA (r = 8 on every linear), dp = 2:
 * linear weights 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 at
 * 0.5 B packed = 3,238,002,688 B, the rest (embedding, output layer, norms)
 * 262,410,240 x 2 B = 524,820,480 B: 3,762,823,168 B of base without its
 * quantisation state, 1,881,411,584 B a shard, + the adapters' shard
 * 19,988,480 x 2 / 2 B: 1,901,400,064 B of copies. The root (embedding,
 * output layer, final norm) 262,148,096 x 2 B = 524,296,192 B. Under CPU
 * offload the static terms are the quantisation state and PyTorch's two
 * 32 MiB workspaces; without it also the shards themselves, the adapters'
 * 19,988,480 B and their Adam m, v 2 x 2 B x 19,988,480 / 2. At 512 tokens
 * the step peaks below both (its reserved under the save's allocated), so
 * reserved = allocated + what other streams cache: the step's two gathered
 * layers on the all-gather stream, 2 x 202,383,360 params (4 x 4096^2 +
 * 3 x 4096 x 11008 + 2 x 4096 norms) x 0.5 B = 202,383,360 B, and under
 * offload the pre-unshard stream's block, the larger of the root's shard
 * 524,296,192 / 2 = 262,148,096 B and two layers' 202,383,360 / 2 B; at
 * 8 x 4096 tokens the step's 8 GiB of layer inputs hold the peak and no copy
 * is counted; pytorch-fsdp saves none. At the step the copy stream's block
 * stands beside the overhead on allocated. */
#define CKPT(fw, seq, mb, gb, off)                                                                     \
	"include = topologies/frameworks/" fw ".ini\ninclude = models/llama2-7b.ini\n"             \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = " seq "\n[parallel]\ndp = 2\nzero = 3\nmicro_batch = " mb "\n"          \
	"global_batch = " gb "\nrecompute = full\noffload_params = " off                          \
	"\noffload_optimizer = " off "\n[train]\npolicy = pure\nlora_rank = 8\n"                   \
	"lora_targets = all\nbase_weights = nf4-dq\n"
static void test_checkpoint(void)
{
	const double A = 19988480, base = 3762823168.0, copies = base / 2 + A * 2 / 2,
	             root = 262148096.0 * 2, ws = 2 * 33554432.0, layer = 202383360.0,
	             idle = 2 * layer * 0.5, pool = root / 2;
	CHECK_NEAR(32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008) * 0.5 + 262410240.0 * 2, base, 0);
	static const struct {
		const char *text;
		bool save, offload;
	} c[] = {
	        {CKPT("hf-trainer-fsdp", "512", "2", "4", "cpu"), true, true},
	        {CKPT("hf-trainer-fsdp", "512", "2", "4", "none"), true, false},
	        {CKPT("hf-trainer-fsdp", "4096", "8", "16", "cpu"), false, true},
	        {CKPT("pytorch-fsdp", "512", "2", "4", "cpu"), false, true},
	};
	/* DeepSpeed's parameter offload has no such stream (its profile) */
	plan_scenario *ds = scen_load(CKPT("hf-trainer-deepspeed", "512", "2", "4", "cpu"));
	if (ds) {
		plan_mem_peak p;
		plan_memory_peak(ds, 0, &p);
		CHECK(!ds->fw.offload_copy_pool && !ds->fw.checkpoint_shards);
		CHECK_NEAR(scen_term(&p, "offload copy stream") + scen_term(&p, "state-dict shards"), 0,
		           0);
	}
	plan_scenario_free(ds);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		plan_scenario *s = scen_load(c[i].text);
		if (!s)
			continue;
		plan_budget b;
		plan_stage_budget(s, 0, &b);
		CHECK_NEAR(b.frozen_bytes - b.quant_state, base, 1e-12);
		CHECK_NEAR(b.layer_max, layer, 0);
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		bool ok = CHECK_NEAR(scen_term(&p, "state-dict shards"), c[i].save ? copies : 0, 1e-12);
		ok &= CHECK_NEAR(scen_term(&p, "gathered root"), c[i].save ? root : 0, 1e-12);
		ok &= CHECK((strncmp(p.moment, "saving a checkpoint", 19) == 0) == c[i].save);
		if (c[i].save) {
			double stat = b.quant_state + ws +
			              (c[i].offload ? 0 : base / 2 + A * 2 / 2 + A * 2 * 2 / 2);
			ok &= CHECK_NEAR(p.allocated, stat + copies + root, 1e-12);
			ok &= CHECK_NEAR(scen_term(&p, "idle all-gather blocks"), idle, 1e-12);
			ok &= CHECK_NEAR(scen_term(&p, "offload copy stream"), c[i].offload ? pool : 0,
			                 1e-12);
			ok &= CHECK_NEAR(p.reserved,
			                 p.allocated + idle + (c[i].offload ? pool : 0), 1e-12);
			ok &= CHECK(p.op == -1);
		} else { /* the step: the overhead on allocated beside the copy stream's block */
			ok &= CHECK(scen_term(&p, "kept activations") > 0);
			ok &= CHECK_NEAR(scen_term(&p, "offload copy stream"), pool, 1e-12);
			ok &= CHECK_NEAR(p.reserved, p.allocated * (1 + s->fw.allocator_overhead) + pool,
			                 1e-12);
		}
		if (!ok)
			fprintf(stderr, "case %zu: %s\n", i, p.moment);
		plan_scenario_free(s);
	}
}

/* Cuts at the checkpoint (memwalk.c cut_change, memsize.c): in
 * test_checkpoint's first case (512 tokens, micro-batch 2, CPU offload) the
 * peak is the save, whose allocated exceeds the step's reserved, so halving
 * the micro-batch cannot change it (plan_memory_cuts_idle); recompute is
 * full, ZeRO at 3 and the optimizer offloaded already. The one cut that acts
 * is accelerate's FULL_STATE_DICT through the CPU (checkpoint_offload): one
 * unit gathered, the largest layer's 202,383,360 params at 0.5 B packed =
 * 101,191,680 B, instead of the 1,901,400,064 B of shard copies; the root
 * stays gathered. If the save is still the peak after it, its allocated
 * falls by their difference; else the step is the peak, between the two. */
static void test_checkpoint_cut(void)
{
	const double A = 19988480, copies = 3762823168.0 / 2 + A * 2 / 2,
	             unit = 202383360.0 * 0.5, root = 262148096.0 * 2;
	plan_scenario *s = scen_load(CKPT("hf-trainer-fsdp", "512", "2", "4", "cpu"));
	if (!s)
		return;
	plan_mem_peak p, q;
	plan_memory_peak(s, 0, &p);
	CHECK(p.checkpoint);
	plan_mem_cut c[5], idle[5];
	int n = plan_memory_cuts(s, c, 5), ni = plan_memory_cuts_idle(s, idle, 5);
	CHECK_INT(n, 1);
	CHECK(n == 1 && !strcmp(c[0].what, "checkpoint_offload = true (FULL_STATE_DICT)"));
	CHECK_INT(ni, 1);
	CHECK(ni == 1 && !strncmp(idle[0].what, "micro_batch = 1", 15));
	plan_scenario x = *s;
	x.fw.checkpoint_offload = true;
	plan_memory_peak(&x, 0, &q);
	CHECK_NEAR(scen_term(&q, "state-dict shards"), 0, 0);
	if (q.checkpoint) {
		CHECK_NEAR(scen_term(&q, "state-dict unit"), unit, 1e-12);
		CHECK_NEAR(scen_term(&q, "gathered root"), root, 1e-12);
		CHECK_NEAR(p.allocated - q.allocated, copies - unit, 1e-12);
	} else { /* the step is the peak again: above the cut save, below the save */
		CHECK(q.allocated >= p.allocated - (copies - unit) - 1);
		CHECK(q.allocated < p.allocated);
	}
	/* one stage on one GPU type: the saving is its demand's */
	CHECK(n == 1 && c[0].saved > 0);
	CHECK_NEAR(n == 1 ? c[0].saved : 0, p.demand - q.demand, 1e-12);
	plan_scenario_free(s);
}

/* QLoRA under ZeRO-3 (quant_rest_fp32): a QLoRA script calls PEFT's
 * prepare_model_for_kbit_training, which casts every parameter that is not
 * Params4bit to fp32 (deepspeed.ini); TRL's SFTTrainer skips it for sharded
 * QLoRA (hf-trainer-deepspeed.ini, trl 58c08889 sft_trainer.py:189-208).
 * Llama 2 7B's unquantised parameters are the embedding and the output layer
 * 2 x 32,000 x 4,096 = 262,144,000 and the norms (2 per layer + the final)
 * 65 x 4,096 = 266,240: 262,410,240, at 4 B or 2 B. Sharded over dp = 2 the
 * frozen base differs by 262,410,240 x 2 / 2 B; the gathered head as the
 * backward starts, the output layer and the final norm (131,072,000 +
 * 4,096 = 131,076,096 parameters: DeepSpeed released the embedding after
 * its forward, zero3_root = modules), by 2 B each. */
#define QLORA_ZERO3(fw)                                                                            \
	"include = topologies/frameworks/" fw ".ini\ninclude = models/llama2-7b.ini\n"             \
	"include = topologies/nodes/dgx-a100-80g.ini\n"                                            \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 2048\n[parallel]\ndp = 2\nzero = 3\nmicro_batch = 1\n"                 \
	"global_batch = 2\nrecompute = full\n[train]\nlora_rank = 8\nlora_targets = all\n"         \
	"base_weights = nf4-dq\n"
static void test_quant_rest(void)
{
	plan_scenario *ds = scen_load(QLORA_ZERO3("deepspeed"));
	plan_scenario *trl = scen_load(QLORA_ZERO3("hf-trainer-deepspeed"));
	if (ds && trl) {
		CHECK(ds->fw.quant_rest_fp32 && !trl->fw.quant_rest_fp32);
		plan_budget bd, bt;
		plan_stage_budget(ds, 0, &bd);
		plan_stage_budget(trl, 0, &bt);
		double rest = 262410240.0;
		CHECK_NEAR(bt.frozen - bt.linear, rest, 0);
		CHECK_NEAR(bd.frozen_bytes - bt.frozen_bytes, rest * 2, 1e-12);
		plan_mem_peak pd, pt;
		plan_memory_peak(ds, 0, &pd);
		plan_memory_peak(trl, 0, &pt);
		CHECK_NEAR(scen_term(&pd, "frozen base weights") - scen_term(&pt, "frozen base weights"),
		           rest * 2 / 2, 1e-12);
		CHECK_NEAR(scen_term(&pd, "gathered weights") - scen_term(&pt, "gathered weights"),
		           131076096.0 * 2, 1e-12);
	}
	plan_scenario_free(ds);
	plan_scenario_free(trl);
}

/* The eager count of Hugging Face Llama code (work/memory.c): 2 x (4 + 2)h
 * for the upcasting RMSNorms, 2h attention input, q + 2 x repeated K, V
 * (6h), the attention output and its copy (4h), the MLP input (2h), four
 * SwiGLU tensors (8f): 26h + 8f bytes per token and layer, 194,560 for
 * Llama 2 7B. The compiled count for Llama 3.2 3B (h 3072, kv 1024, f 8192):
 * 16h + 4kv + 6f = 102,400. */
static void test_eager(void)
{
	work_model m = {.layers = 32,
	                .hidden = 4096,
	                .heads = 32,
	                .kv_heads = 32,
	                .ffn = 11008,
	                .vocab = 32000,
	                .seq_len = 1,
	                .act = WORK_ACT_SWIGLU,
	                .norm = WORK_NORM_RMSNORM};
	work_shard sh = {1, false, 1, 1, HW_BF16, true, 1, 1, HW_FLASH_FA2, WORK_LAYER_FUSED, WORK_LOSS_VOCAB_PARALLEL, false, WORK_MOE_FUSED, 0, false, 0, false, 0, 0, 0, false, false, false, false};
	work_saved hf = {WORK_SAVED_EAGER, WORK_SAVE_NORM_UPCAST_INPUT, true, true, false, false};
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_NONE, &hf), 26 * 4096 + 8 * 11008,
	           1e-12);
	/* full recomputation keeps the layer input, 2h (4h in fp32 under autocast) */
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_FULL, &hf), 2 * 4096, 1e-12);
	hf.fp32_residual = true;
	CHECK_NEAR(work_saved_bytes_at(&m, &sh, 0, WORK_RECOMPUTE_FULL, &hf), 4 * 4096, 1e-12);
	work_model l3 = {.layers = 28,
	                 .hidden = 3072,
	                 .heads = 24,
	                 .kv_heads = 8,
	                 .ffn = 8192,
	                 .vocab = 128256,
	                 .seq_len = 1,
	                 .act = WORK_ACT_SWIGLU,
	                 .norm = WORK_NORM_RMSNORM};
	work_saved cc = {
	        WORK_SAVED_COMPILED, WORK_SAVE_NORM_UPCAST_INPUT, true, true, false, false};
	CHECK_NEAR(work_saved_bytes_at(&l3, &sh, 0, WORK_RECOMPUTE_NONE, &cc), 102400, 1e-12);
	/* Phi-1.5 under Lit-GPT (LayerNorm kernels, fused QKV, K and V as wide
	 * as Q, the output copy, GELU; h = 2048, f = 8192, e = 2): a sequential
	 * block keeps 2 x 2h for its norms, 2h attention input, 2h MLP input,
	 * e (q + 2q) = 12,288, 2 e q = 8,192 and 2 e f = 32,768: 69,632 bytes per
	 * token and layer; its parallel block (one shared norm, the MLP reading
	 * the attention's input) drops the second norm's and the MLP input's 4h:
	 * 61,440. The fused count (34 s b h at t = 1: two norms' inputs 4h, QKV
	 * and MLP inputs 4h, dropout masks 2h and the rest) drops 4h the same. */
	work_model phi = {.layers = 24,
	                  .hidden = 2048,
	                  .heads = 32,
	                  .kv_heads = 32,
	                  .ffn = 8192,
	                  .vocab = 51200,
	                  .seq_len = 1,
	                  .act = WORK_ACT_GELU,
	                  .norm = WORK_NORM_LAYERNORM};
	work_saved lit = {WORK_SAVED_EAGER, WORK_SAVE_NORM_PLAIN, true, true, false, false};
	CHECK_NEAR(work_saved_bytes_at(&phi, &sh, 0, WORK_RECOMPUTE_NONE, &lit), 69632, 1e-12);
	double fused = work_activation_bytes(&phi, &sh, WORK_RECOMPUTE_NONE);
	phi.parallel_residual = true;
	CHECK_NEAR(work_saved_bytes_at(&phi, &sh, 0, WORK_RECOMPUTE_NONE, &lit), 61440, 1e-12);
	CHECK_NEAR(fused - work_activation_bytes(&phi, &sh, WORK_RECOMPUTE_NONE), 4 * 2048, 1e-12);
	/* one norm's parameters per layer: LayerNorm's 2h fewer */
	work_model seq = phi;
	seq.parallel_residual = false;
	CHECK_NEAR(work_params_layer(&seq) - work_params_layer(&phi), 2 * 2048, 1e-12);
	/* and one norm pass: the layer programs drop ln2, forward and backward */
	work_item it[WORK_MAX_ITEMS];
	int nf = work_layer_forward(&phi, &sh, it), ln2 = 0;
	for (int i = 0; i < nf; i++)
		ln2 += !strcmp(it[i].name, "ln2");
	int nb = work_layer_backward(&phi, &sh, it);
	for (int i = 0; i < nb; i++)
		ln2 += !strcmp(it[i].name, "ln2");
	CHECK_INT(ln2, 0);
	CHECK_INT(work_layer_forward(&seq, &sh, it), nf + 1);
	CHECK_INT(work_layer_backward(&seq, &sh, it), nb + 1);
}

/* The loss tensors per token and vocabulary entry: HF Llama's upcast-shift
 * keeps 4 (log-softmax) and peaks at 12 in both passes, + 4 when the loop
 * holds the fp32 logits; Megatron's vocab-parallel e + 4 in the forward. */
static void test_loss(void)
{
	plan_scenario *s = scen_load(FW_("pytorch-fsdp") "global_batch = 1\n");
	if (!s)
		return;
	double f, k, b, h;
	plan_loss_bytes(s, &f, &k, &b, &h);
	CHECK_NEAR(f, 12, 0);
	CHECK_NEAR(k, 4 + 4, 0); /* fsdp_qlora holds the output */
	CHECK_NEAR(b, 12 + 4, 0);
	CHECK_NEAR(h, 4, 0);
	plan_scenario_free(s);
	s = scen_load(LLAMA7B);
	if (s) {
		plan_loss_bytes(s, &f, &k, &b, &h);
		CHECK_NEAR(f, 6, 0);
		CHECK_NEAR(k, 4, 0);
		CHECK_NEAR(h, 0, 0);
		plan_scenario_free(s);
	}
}

/* When gradients and activations coexist. A single step of torchtune's
 * full fine-tune under full recomputation holds no layer inputs once its
 * backward ends, but its last layer's backward still holds that layer's
 * recomputed tensors (26h + 8f = 194,560 B per token) and activation
 * gradients (3 e f = 66,048 B per token) beside all the gradients: the peak
 * is there, 2 + 2 + 4 bytes per parameter and 4096 x 260,608 bytes of
 * activations, above the optimizer step's 8 bytes per parameter (MC04's
 * "states + 1.0 GiB", memory notes 1.2 C); a second micro-batch's forward
 * (global batch 2) meets the first one's gradients. */
static void test_phases(void)
{
	plan_scenario *s = scen_load(FW_("torchtune") "recompute = full\nglobal_batch = 1\n");
	if (!s)
		return;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK_INT(p.op, 1);
	CHECK(strstr(p.moment, "backward") != NULL);
	double P = work_params_total(&s->model);
	CHECK_NEAR(p.bytes[PLAN_MEM_WEIGHTS] + p.bytes[PLAN_MEM_GRADIENTS] +
	                   p.bytes[PLAN_MEM_OPTIMIZER],
	           8 * P, 1e-12);
	CHECK_NEAR(p.bytes[PLAN_MEM_ACTIVATIONS], 4096.0 * (194560 + 66048), 1e-12);
	plan_scenario_free(s);
	s = scen_load(FW_("torchtune") "recompute = full\nglobal_batch = 2\n");
	if (s) {
		plan_mem_peak q;
		plan_memory_peak(s, 0, &q);
		CHECK(q.op >= 0);
		CHECK(q.bytes[PLAN_MEM_GRADIENTS] > 0 && q.bytes[PLAN_MEM_ACTIVATIONS] > 0);
		plan_scenario_free(s);
	}
	/* Megatron's persistent fp32 buffer: gradients at every moment */
	s = scen_load(LLAMA7B);
	if (s) {
		plan_memory_peak(s, 0, &p);
		CHECK_NEAR(p.bytes[PLAN_MEM_GRADIENTS], 4 * P, 1e-12);
		plan_scenario_free(s);
	}
}

/* The counters and the verdict: reserved = allocated x 1.177 (capped by what
 * the device leaves), device = reserved + runtime; out of memory when the
 * allocated bytes and the runtime exceed the capacity, tight over 90 %. One
 * GPU has no NCCL; the verdicts of plan_mem_verdict by hand. */
static void test_verdict(void)
{
	plan_scenario *s = scen_load(LLAMA7B);
	if (!s)
		return;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK_NEAR(p.reserved, p.allocated * 1.177, 1e-9);
	CHECK_NEAR(p.device, p.reserved + p.bytes[PLAN_MEM_RUNTIME], 1e-12);
	CHECK_NEAR(p.bytes[PLAN_MEM_RUNTIME], s->fw.context_bytes, 1e-12);
	/* 7B x 18 B = 121 GB of model states: out of memory on 80 GB */
	CHECK_INT(p.verdict, PLAN_VERDICT_OOM);
	plan_scenario_free(s);
	CHECK_INT(plan_mem_verdict(50, 5, 70, 100), PLAN_VERDICT_FITS);
	CHECK_INT(plan_mem_verdict(70, 5, 91, 100), PLAN_VERDICT_TIGHT);
	CHECK_INT(plan_mem_verdict(96, 5, 101, 100), PLAN_VERDICT_OOM);
	CHECK_STR(plan_verdict_name(PLAN_VERDICT_TIGHT), "tight");
}

/* Where an out-of-memory plan can cut: Llama 2 7B pure bf16 without
 * recomputation at 4 micro-batches of 4096 tokens on 8 GPUs of 80 GB: each
 * candidate change saves device bytes, the largest first. */
static void test_cuts(void)
{
	plan_scenario *s = scen_load("include = models/llama2-7b.ini\n"
	                        "include = topologies/nodes/dgx-a100-80g.ini\n"
	                        "include = topologies/frameworks/torchtune.ini\n"
	                        "[scenario]\nname = t\n[cluster]\nname = c\nnodes = 1\n"
	                        "[model]\nseq_len = 4096\n[parallel]\ndp = 8\nmicro_batch = 4\n"
	                        "global_batch = 32\nzero = 0\n");
	if (!s)
		return;
	plan_mem_peak p;
	plan_memory_peak(s, 0, &p);
	CHECK_INT(p.verdict, PLAN_VERDICT_OOM);
	plan_mem_cut c[4];
	int n = plan_memory_cuts(s, c, 4);
	CHECK(n >= 3);
	for (int i = 0; i < n; i++) {
		CHECK(c[i].saved > 0);
		CHECK_NEAR(c[i].device, p.device - c[i].saved, 1e-9);
		if (i)
			CHECK(c[i - 1].saved >= c[i].saved);
	}
	CHECK(n > 0 && !strcmp(c[0].what, "recompute = full"));
	plan_scenario_free(s);
}

/* One plan of test_head: Llama 2 7B on one DGX A100 node, pp stages of dp
 * = 8 / pp, m micro-batches of one sequence, `extra` more [parallel] keys;
 * on every stage the walk's allocated peak (plan_memory_peak, which stops
 * after head_ops) must equal the largest of the whole walk's op peaks
 * (plan_memory_curve). Returns the stages checked. */
static int head_case(int pp, int m, const char *extra)
{
	char t[1024];
	snprintf(t, sizeof t,
	         "include = models/llama2-7b.ini\n"
	         "include = topologies/nodes/dgx-a100-80g.ini\n"
	         "include = topologies/frameworks/ideal.ini\n"
	         "[scenario]\nname = t\n[node]\ngpus = 8\n"
	         "[cluster]\nname = c\nnodes = 1\n[model]\nseq_len = 2048\n"
	         "[parallel]\npp = %d\ndp = %d\nmicro_batch = 1\nglobal_batch = %d\n%s",
	         pp, 8 / pp, m * (8 / pp), extra);
	plan_scenario *s = scen_load(t);
	if (!s) {
		CHECK(s != NULL);
		return 0;
	}
	int n = plan_schedule_steps(s->plan.schedule, m, s->plan.vpp) + 1, checked = 0;
	double *a = malloc(3 * (size_t)n * sizeof *a);
	for (int st = 0; a && st < pp; st++, checked++) {
		CHECK_INT(plan_memory_curve(s, st, a, a + n, a + 2 * n, n), n);
		double top = 0;
		for (int i = 0; i < n; i++)
			top = a[n + i] > top ? a[n + i] : top;
		plan_mem_peak p;
		plan_memory_peak(s, st, &p);
		CHECK_NEAR(p.allocated, top, 1e-9);
	}
	free(a);
	plan_scenario_free(s);
	return checked;
}

/* The walk stops after the ops that hold the peak (memwalk.c head_ops: the
 * warm-up, the gradients settling, one period of the steady state); its
 * allocated peak equals the largest of the whole walk's op peaks
 * (plan_memory_curve), over GPipe, 1F1B, interleaved (vpp 2 and 4), ZB-H1
 * and interleaved ZB-H1 (torch's ZB1P, vpp 2 and 4), pp 2 to 8, micro-batch counts from 1 to 8 pp, every stage; and
 * with Megatron-Core's micro-batch groups (plan_vp_group): micro-batches no
 * multiple of pp (the smallest group that fits) and explicit groups of 2
 * pp, whose warm-up holds more chunks. */
static void test_head(void)
{
	static const char *const sched[] = {"gpipe", "1f1b", "zb-h1"};
	int checked = 0;
	char x[128];
	for (int k = 0; k < 3; k++)
		for (int pp = 2; pp <= 8; pp *= 2)
			for (int vpp = 1; vpp <= 4; vpp *= 2)
				for (int mm = 0; mm < 4; mm++) {
					if (vpp > 1 && k == 0)
						continue; /* interleaved GPipe: no such
						           * schedule */
					int m = mm == 0 ? (vpp > 1 ? pp : 1) : pp << (mm - 1);
					snprintf(x, sizeof x, "vpp = %d\nschedule = %s\n", vpp, sched[k]);
					checked += head_case(pp, m, x);
				}
	CHECK(checked > 100);
	static const int grp[][4] = {/* pp, vpp, m, vp_group */
	                             {2, 2, 3, 0},  {2, 2, 7, 0},  {4, 2, 6, 0}, {4, 2, 10, 0},
	                             {4, 4, 13, 0}, {2, 2, 8, 4},  {4, 2, 16, 8}, {8, 2, 12, 0}};
	int grouped = 0;
	for (size_t g = 0; g < sizeof grp / sizeof grp[0]; g++) {
		snprintf(x, sizeof x, "vpp = %d\nvp_group = %d\n", grp[g][1], grp[g][3]);
		grouped += head_case(grp[g][0], grp[g][2], x);
	}
	CHECK_INT(grouped, 30);
}

/* The optimizer step's bytes per parameter (optim.c's derivation), fused
 * Adam (Megatron-Core's default profile), p = g = s = 4 under mixed:
 * 2p + g + 4s = 28; the casts: 16-bit gradients to fp32 (2 + 4) unless the
 * gradients are fp32 already, the master back to 16 bits (4 + 2); the norm
 * reads the fp32 gradient (4): 28 + 6 + 6 + 4 = 44, or 38 with fp32_grads.
 * foreach (torch's default): 4p + 14s + 3g = 84, + 6 + 6 + 4 = 100; over
 * FSDP's fp32 parameters (pytorch-fsdp.ini's param_master) the step casts
 * nothing (FSDP casts the reduced shard in the backward and each unit's
 * shard at its all-gather): 84 + 4 = 88. pure
 * 16-bit fused: p = g = s = 2: 4 + 2 + 8 = 14, no casts, norm 2: 16. SGD
 * under mixed: 2p + g = 12, + 16 = 28. On one GPU the step moves that many
 * bytes per parameter: hw_mem_time of all of them, at the copy rate over
 * fp32 data; the pure 16-bit step (no casts) at 0.741 of it, the measured
 * rate of 16-bit multi_tensor_apply kernels (optim.c). */
static void test_optimizer(void)
{
	struct {
		const char *text;
		double want, stream;
	} c[] = {
		{LLAMA7B "fp32_grads = false\n", 44, 1},
		{LLAMA7B "fp32_grads = true\n", 38, 1},
		{FW_("pytorch-fsdp") "global_batch = 1\nfp32_grads = false\n", 88, 1},
		{FW_("pytorch-fsdp") "global_batch = 1\nfp32_grads = false\n[framework]\n"
		                     "param_master = false\n",
		 100, 1},
		{LLAMA7B "[train]\npolicy = pure\n", 16, 0.741},
		{LLAMA7B "fp32_grads = false\n[train]\noptimizer = sgd-plain\n", 28, 1},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		plan_scenario *s = scen_load(c[i].text);
		if (!s)
			continue;
		CHECK_NEAR(plan_optimizer_bytes(s), c[i].want, 1e-12);
		double local = plan_local_params(s, 0);
		double eff = c[i].want / c[i].stream;
		CHECK_NEAR(plan_optimizer_time(s, 0, local), hw_mem_time(&s->gpu, local * eff),
			   1e-12);
		plan_scenario_free(s);
	}
	/* one tensor at a time (foreach=False): 8 launches per parameter
	 * tensor, 9 per SwiGLU layer without biases (q, k, v, o, gate, up,
	 * down, two norms), host-bound at launch + op_overhead per op on 32 layers */
	plan_scenario *s = scen_load(FW_("lightning-ddp") "global_batch = 1\n");
	if (s) {
		double host = 32 * 9 * 8 * (s->gpu.launch_s + s->gpu.framework_s);
		double gpu = hw_mem_time(&s->gpu, plan_local_params(s, 0) * plan_optimizer_bytes(s));
		CHECK_NEAR(plan_optimizer_time(s, 0, plan_local_params(s, 0)), fmax(host, gpu), 1e-12);
		plan_scenario_free(s);
	}
}

/* FSDP's MixedPrecision (param_master, pytorch-fsdp.ini; memory.c's table):
 * the sharded FlatParameter stays in the fp32 it was built in and is the
 * optimizer's master, its bf16 copy exists only for the all-gather, and the
 * reduced gradient shard is cast back to fp32: 4 + 4 + 8 (Adam m, v) = 16
 * B/param whatever fp32_grads (the reduce dtype). The mixed policy without
 * it keeps a 16-bit weight beside an fp32 master: 2 + 4 + 12 = 18 (fp32
 * gradients) or 2 + 2 + 12 = 16. amp (4 + 4 + 8) and pure (2 + 2 + 4) do
 * not read the key. Llama 2 7B (6,738,415,616 params) on 8 GPUs, ZeRO-3:
 * weights 6,738,415,616 x 4 / 8 = 3,369,207,808 B (x 2 / 8 without),
 * states x 8 / 8 = 6,738,415,616 B (x 12 / 8 without); the gathered layers
 * stay 16-bit either way (wg = 2). */
static void test_param_master(void)
{
	static const struct {
		const char *extra;
		double w, g, o, wg;
	} c[] = {
	        {"fp32_grads = true\n", 4, 4, 8, 2},
	        {"fp32_grads = false\n", 4, 4, 8, 2},
	        {"fp32_grads = true\n[framework]\nparam_master = false\n", 2, 4, 12, 2},
	        {"fp32_grads = false\n[framework]\nparam_master = false\n", 2, 2, 12, 2},
	        {"[train]\npolicy = amp\n", 4, 4, 8, 4},
	        {"[train]\npolicy = pure\n", 2, 2, 4, 2},
	};
	const double P = 6738415616.0;
	double weights[2] = {0, 0}, states[2] = {0, 0};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char t[2048];
		snprintf(t, sizeof t,
		         "include = topologies/frameworks/pytorch-fsdp.ini\n"
		         "include = models/llama2-7b.ini\n"
		         "include = topologies/nodes/dgx-a100-80g.ini\n"
		         "[scenario]\nname = t\n[cluster]\nname = c\nnodes = 1\n"
		         "[model]\nseq_len = 4096\n[parallel]\nmicro_batch = 1\n"
		         "global_batch = 8\ndp = 8\nzero = 3\n%s",
		         c[i].extra);
		plan_scenario *s = scen_load(t);
		if (!s)
			continue;
		double w, g, o, paged;
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(w, c[i].w, 0);
		CHECK_NEAR(g, c[i].g, 0);
		CHECK_NEAR(o, c[i].o, 0);
		CHECK_NEAR(plan_param_gather_bytes(s), c[i].wg, 0);
		if (i == 0 || i == 2) {
			plan_mem_peak p;
			plan_memory_peak(s, 0, &p);
			weights[i / 2] = scen_term(&p, "weights");
			states[i / 2] = scen_term(&p, "optimizer states");
			bool said = false;
			for (int k = 0; k < p.nterms; k++)
				said |= !strcmp(p.term[k].name, "weights") &&
				        strstr(p.term[k].formula, "the sharded parameter is the master");
			CHECK_INT(said, i == 0);
		}
		plan_scenario_free(s);
	}
	CHECK_NEAR(weights[0], P * 4 / 8, 1e-12);
	CHECK_NEAR(states[0], P * 8 / 8, 1e-12);
	CHECK_NEAR(weights[1], P * 2 / 8, 1e-12);
	CHECK_NEAR(states[1], P * 12 / 8, 1e-12);
}

/* The optimizer step tensor by tensor (optimizer_impl = single: Composer's
 * DecoupledAdamW under llm-foundry-torch1.13.ini, torch's foreach=False) holds the
 * temporaries of one tensor: `(exp_avg_sq.sqrt() / c).add_(eps)` keeps
 * sqrt(v) and the quotient, 2 x the tensor's elements x 4 B. MPT-30B (h 7168,
 * f 28672 = 4h, 48 layers, no biases, LayerNorm weight and bias) on 8 GPUs,
 * ZeRO-3: a block is 4h^2 + 2hf + 4h = 205,520,896 + 411,041,792 + 28,672 =
 * 616,591,360 parameters, its FlatParameter's shard (flat_params) 1/8 of it,
 * 77,073,920, larger than the root's (V h + 2h = 361,052,160 / 8): the step
 * holds 2 x 77,073,920 x 4 = 616,591,360 B beyond the fused step's none.
 * Without flat_params the largest tensor is the tied embedding, V h =
 * 361,037,824 (the MLP's h x f: 205,520,896), its dim-0 shard 45,129,728:
 * 361,037,824 B. foreach (2 lists, torch 1.13)
 * holds 2 x 4 B x all 3.75 G local elements instead. Its time: 48 flat
 * parameters x 8 passes x (launch + optimizer_op_overhead), 8 tensors a layer without
 * flat_params (4 attention and 2 MLP linears, 2 norms), with the profile's
 * per-tensor .item() turned off (then on, below). */
#define MPT30B                                                                                     \
	"include = topologies/frameworks/llm-foundry-torch1.13.ini\n"                              \
	"include = topologies/nodes/dgx-h100.ini\n"                                                \
	"include = topologies/gpus/h100-sxm5-80g.ini\n"                                            \
	"[scenario]\nname = t\n[model]\nname = mpt-30b\nlayers = 48\nhidden = 7168\nheads = 56\n"  \
	"kv_heads = 56\nffn = 28672\nvocab = 50368\nseq_len = 2048\nactivation = gelu\n"         \
	"norm = layernorm\nbias = false\n[node]\ngpus = 8\n[cluster]\nname = c\nnodes = 1\n"       \
	"[parallel]\ndp = 8\nzero = 3\nmicro_batch = 1\nglobal_batch = 8\nrecompute = full\n"

static double step_allocated(const char *text)
{
	plan_scenario *s = scen_load(text);
	if (!s)
		return -1;
	int n = plan_schedule_steps(s->plan.schedule, plan_microbatches(&s->plan), 1) + 1;
	double *a = calloc(3 * (size_t)n, sizeof *a);
	int got = plan_memory_curve(s, 0, a, a + n, a + 2 * n, n);
	double step = got > 0 ? a[n + got - 1] : -1; /* the optimizer step, last */
	free(a);
	plan_scenario_free(s);
	return step;
}

static void test_single_step(void)
{
	const double shard = 616591360.0 / 8, emb = 50368.0 * 7168 / 8;
	double fused = step_allocated(MPT30B "[framework]\noptimizer_impl = fused\n");
	double single = step_allocated(MPT30B);
	double unflat = step_allocated(MPT30B "[framework]\nflat_params = false\n");
	double fe = step_allocated(MPT30B "[framework]\noptimizer_impl = foreach\n");
	CHECK_NEAR(single - fused, 2 * shard * 4, 1e-9);
	CHECK_NEAR(unflat - fused, 2 * emb * 4, 1e-9);
	/* torch 2.1's use_orig_params (llm-foundry.ini, params_in_shard): the
	 * rank's piece of a tensor is its intersection with the rank's slice of
	 * the block, so the largest is the up projection (h f = 205,520,896) cut
	 * to the slice, 616,591,360 / 8: the flat shard again, above the
	 * embedding's 45,129,728 (the root's slice) */
	double orig = step_allocated(MPT30B "[framework]\nflat_params = false\n"
	                                    "params_in_shard = true\n");
	CHECK_NEAR(orig - fused, 2 * shard * 4, 1e-9);
	plan_scenario *s =
	        scen_load(MPT30B "[framework]\noptimizer_op_overhead = 1 ms\noptimizer_item_sync = false\n");
	if (s) {
		double local = plan_local_params(s, 0);
		CHECK_NEAR(fe - fused, 2 * local * 4, 1e-9);
		CHECK_NEAR(plan_step_tensor_max(s, 0), shard, 1e-12);
		/* 1 ms a launch: host-bound, 48 x 8 operations */
		double gpu = hw_mem_time(&s->gpu, local * plan_optimizer_bytes(s));
		double host = 48 * 8 * (s->gpu.launch_s + s->fw.optimizer_op_overhead_s);
		CHECK(host > gpu);
		CHECK_NEAR(plan_optimizer_time(s, 0, local), host, 1e-12);
		/* with llm-foundry's optimizer_item_sync (plan/optim.c): a pass
		 * g < h, so a tensor takes 9 h (8 launches and the .item()), and
		 * the 48 step-count increments 48 h more: 480 h, plus the norm's
		 * kernel (hw_mem_time of its 4 B per parameter) */
		s->fw.optimizer_item_sync = true;
		plan_optim_cost c;
		plan_optimizer_cost(s, &c);
		CHECK_NEAR(plan_optimizer_time(s, 0, local),
			   480 * (s->gpu.launch_s + s->fw.optimizer_op_overhead_s) +
				   hw_mem_time(&s->gpu, local * c.norm_bytes),
			   1e-9);
		plan_scenario_free(s);
	}
	s = scen_load(MPT30B "[framework]\noptimizer_op_overhead = 1 ms\nflat_params = false\n"
	                     "optimizer_item_sync = false\n");
	if (s) {
		CHECK_NEAR(plan_step_tensor_max(s, 0), emb, 1e-12);
		double host = 48 * 8 * 8 * (s->gpu.launch_s + s->fw.optimizer_op_overhead_s);
		CHECK_NEAR(plan_optimizer_time(s, 0, plan_local_params(s, 0)), host, 1e-12);
		plan_scenario_free(s);
	}
}

/* LoRA's model FLOPs (plan_lora_flops_change) on Llama 2 7B, rank 8 on q
 * and v, one sequence of 4096: the frozen linears' weight gradients, 2 of 6
 * per matmul weight and token, are not computed: 32 x (4 h^2 + 3 h f) +
 * V h = 6,607,077,376 matmul weights, 2 x that = 13,214,154,752 FLOPs a
 * token gone; the adapters' 6 x r (h + q + h + kv) x 32 = 6 x 8 x 16,384 x
 * 32 = 25,165,824 a token added. With the embeddings trained the output
 * layer's 2 V h = 262,144,000 stay. The executed FLOPs fall by about the
 * same (the GEMMs' weight gradients; the adapters run memory-bound). */
static void test_lora_flops(void)
{
	plan_scenario *a = scen_load(LLAMA7B);
	plan_scenario *l = scen_load(LLAMA7B "[train]\nlora_rank = 8\nlora_targets = q,v\n");
	plan_scenario *e = scen_load(LLAMA7B "[train]\nlora_rank = 8\nlora_targets = q,v\n"
					     "train_embeddings = true\n");
	plan_graph *ga = NULL, *gl = NULL, *ge = NULL;
	if (a && l && e && plan_build(a, &ga) == SIM_OK && plan_build(l, &gl) == SIM_OK &&
	    plan_build(e, &ge) == SIM_OK) {
		double T = 4096, h = 4096, f = 11008;
		double w = 32 * (4 * h * h + 3 * h * f) + 32000 * h; /* 6,607,077,376 */
		double d = T * (6 * 8 * 16384.0 * 32 - 2 * w);
		CHECK_NEAR(gl->model_flops - ga->model_flops, d, 1e-9);
		CHECK_NEAR(ge->model_flops - gl->model_flops, T * 2 * 32000 * h, 1e-9);
		double cut = ga->hardware_flops - gl->hardware_flops;
		CHECK(cut > 0.9 * 2 * w * T && cut < 1.05 * 2 * w * T);
	}
	plan_graph_free(ga);
	plan_graph_free(gl);
	plan_graph_free(ge);
	plan_scenario_free(a);
	plan_scenario_free(l);
	plan_scenario_free(e);
}

/* Frozen layers (train.frozen_layers = 8) on Llama 2 7B (h 4096, f 11008,
 * 32 layers, V 32000, untied): a layer holds 4 h^2 + 3 h f + 2 h (two
 * RMSNorms) = 67,108,864 + 135,266,304 + 8,192 = 202,383,360 parameters, the
 * embedding V h = 131,072,000. Frozen: 8 x 202,383,360 + 131,072,000 =
 * 1,750,138,880, kept at the policy's 2 B (mixed: no gradient, no fp32
 * master, no Adam state); the rest trains at 2 + 4 + 12 = 18 B. Peak memory
 * terms: weights 2 B x all, gradients 4 B x trained, optimizer 12 B x
 * trained. Activations: the frozen layers run without autograd and save
 * nothing, so the saved bytes fall by 8/32 of the layers' share. Compute: the
 * frozen layers' backward is gone; model FLOPs drop by two thirds of their
 * share F_8 = tokens x 8 x (6 x (4 h^2 + 3 h f) + 12 s h) and the step is
 * shorter. A tied model, LoRA beside it, or a frozen prefix filling the first
 * pipeline chunk are refused. */
static void test_frozen_layers(void)
{
	plan_scenario *a = scen_load(LLAMA7B "fp32_grads = true\n");
	plan_scenario *f = scen_load(LLAMA7B "fp32_grads = true\n[train]\nfrozen_layers = 8\n");
	if (!a || !f) {
		plan_scenario_free(a);
		plan_scenario_free(f);
		return;
	}
	double h = 4096, ff = 11008, layer = 4 * h * h + 3 * h * ff + 2 * h, emb = 32000 * h;
	CHECK_NEAR(work_params_layer_at(&f->model, 0), layer, 1e-12);
	double frozen = 8 * layer + emb, total = work_params_total(&f->model);
	plan_budget b;
	plan_stage_budget(f, 0, &b);
	CHECK_NEAR(b.frozen, frozen, 1e-12);
	CHECK_NEAR(b.train, total - frozen, 1e-12);
	CHECK_NEAR(b.frozen_bytes, 2 * frozen, 1e-12);
	plan_mem_peak pa, pf;
	plan_memory_peak(a, 0, &pa);
	plan_memory_peak(f, 0, &pf);
	CHECK_NEAR(pf.bytes[PLAN_MEM_WEIGHTS], 2 * total, 1e-9);
	CHECK_NEAR(pf.bytes[PLAN_MEM_GRADIENTS], 4 * (total - frozen), 1e-9);
	CHECK_NEAR(pf.bytes[PLAN_MEM_OPTIMIZER], 12 * (total - frozen), 1e-9);
	CHECK_NEAR(pa.bytes[PLAN_MEM_OPTIMIZER], 12 * total, 1e-9);
	CHECK(pf.bytes[PLAN_MEM_ACTIVATIONS] < pa.bytes[PLAN_MEM_ACTIVATIONS]);
	plan_graph *ga = NULL, *gf = NULL;
	CHECK_INT(plan_build(a, &ga), SIM_OK);
	CHECK_INT(plan_build(f, &gf), SIM_OK);
	if (ga && gf) {
		double tokens = 4096, fn = tokens * 8 * (6 * (4 * h * h + 3 * h * ff) + 12 * 4096 * h);
		CHECK_NEAR(gf->model_flops, ga->model_flops - fn * 2 / 3, 1e-12);
		/* executed: the frozen layers' backward (about 2x their forward) gone */
		double cut = ga->hardware_flops - gf->hardware_flops;
		CHECK(cut > 0.6 * fn && cut < 0.75 * fn);
	}
	plan_graph_free(ga);
	plan_graph_free(gf);
	exec_result ra, rf;
	CHECK_INT(exec_run(a, &ra), SIM_OK);
	CHECK_INT(exec_run(f, &rf), SIM_OK);
	CHECK(rf.step_s < ra.step_s * 0.9);
	plan_scenario_free(a);
	plan_scenario_free(f);
	static const char *const bad[] = {
		"[train]\nfrozen_layers = 8\nlora_rank = 8\n",
		"global_batch = 1\n[train]\nfrozen_layers = 8\n",
		"[train]\nfrozen_layers = 32\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char t[1024];
		/* the second: the same Llama with its embedding tied */
		snprintf(t, sizeof t, "%s%s",
			 i == 1 ? "include = models/llama2-7b.ini\n"
				  "include = topologies/nodes/dgx-a100-80g.ini\n[scenario]\nname = t\n"
				  "[node]\ngpus = 1\n[cluster]\nname = c\nnodes = 1\n[model]\n"
				  "seq_len = 4096\nuntied_embeddings = false\n[parallel]\nmicro_batch = 1\n"
				: LLAMA7B,
			 bad[i]);
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		CHECK_INT(plan_scenario_load_string(t, "<test>", ".", d, &s), SIM_ECONF);
		if (!CHECK(sim_diag_count(d) > 0 && strstr(sim_diag_text(d, 0), "frozen_layers") != NULL))
			for (size_t j = 0; j < sim_diag_count(d); j++)
				fprintf(stderr, "%s\n", sim_diag_text(d, j));
		plan_scenario_free(s);
		sim_diag_free(d);
	}
}

/* Llama 2 7B at tp 2 with SP on two GPUs; FW2_ adds a framework profile. */
#define TP2_BODY                                                                                   \
	"include = models/llama2-7b.ini\ninclude = topologies/nodes/dgx-h100.ini\n"                \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 4096\n[parallel]\ntp = 2\nsequence_parallel = true\n"                 \
	"micro_batch = 1\nglobal_batch = 1\n"
#define FW2_(name) "include = topologies/frameworks/" name ".ini\n" TP2_BODY

/* Under tp_comm_overlap Transformer Engine's userbuffer GEMMs allocate a
 * cuBLAS workspace of their own, 3 streams x 32 MiB (memwalk.c; TE d0067d0d
 * cpp_extensions/gemm.py:37-66), beside the plain 32 MiB one: the stage's
 * buffers and allocated peak grow by exactly 96 MiB = 100,663,296 B, a
 * static term, so the peak's moment and its other terms stay. torchtitan's
 * async TP is not TE's and adds none. */
static void test_tp_overlap_workspace(void)
{
	plan_scenario *a = scen_load(TP2_BODY);
	plan_scenario *o = scen_load(TP2_BODY "tp_comm_overlap = true\n");
	plan_scenario *t = scen_load(FW2_("torchtitan") "tp_comm_overlap = true\n");
	plan_scenario *tn = scen_load(FW2_("torchtitan"));
	if (a && o && t && tn) {
		plan_mem_peak pa, po, pt, ptn;
		plan_memory_peak(a, 0, &pa);
		plan_memory_peak(o, 0, &po);
		plan_memory_peak(t, 0, &pt);
		plan_memory_peak(tn, 0, &ptn);
		double ub = 96.0 * 1024 * 1024;
		CHECK_NEAR(o->fw.tp_overlap_workspace_bytes, ub, 0);
		CHECK_NEAR(po.bytes[PLAN_MEM_BUFFERS] - pa.bytes[PLAN_MEM_BUFFERS], ub, 1e-12);
		CHECK_NEAR(po.allocated - pa.allocated, ub, 1e-12);
		CHECK_NEAR(po.bytes[PLAN_MEM_ACTIVATIONS], pa.bytes[PLAN_MEM_ACTIVATIONS], 0);
		CHECK_INT(po.op, pa.op);
		CHECK_NEAR(pt.allocated, ptn.allocated, 0);
	}
	plan_scenario_free(a);
	plan_scenario_free(o);
	plan_scenario_free(t);
	plan_scenario_free(tn);
}

/* Megatron-LM's 64M CI model on 8 H100 at tp 1, pp 1, dp 8 with the
 * distributed optimizer: tests/functional_tests/test_cases/gpt/
 * gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files (d98e8a64;
 * tests/cases/memory.csv MA07). */
#define CI64M                                                                                      \
	"include = topologies/nodes/dgx-h100.ini\n"                                                \
	"[scenario]\nname = t\n[node]\ngpus = 8\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nname = m\nlayers = 12\nhidden = 512\nheads = 8\nkv_heads = 8\nffn = 2048\n"      \
	"seq_len = 1024\nvocab = 50304\nactivation = gelu\nbias = true\nnorm = layernorm\n"        \
	"untied_embeddings = false\nlearned_pos = true\n"                                          \
	"[parallel]\ndp = 8\nmicro_batch = 4\nglobal_batch = 32\nzero = 1\n"                       \
	"[train]\nprecision = bf16\nattention = unfused\n"

/* PyTorch's cuBLAS workspaces (memwalk.c): one per (thread, stream) running a
 * PyTorch GEMM, 2 in a training step (the forward's thread, autograd's
 * backward thread), 32 MiB each under the tests' CUBLAS_WORKSPACE_CONFIG=
 * :4096:8: a static term of 2 x 33,554,432 = 67,108,864 B beside
 * Transformer Engine's own 32 MiB, so the peak's moment stays.
 *
 * Measured: Megatron logs mem-allocated-bytes after every step (the golden
 * values of that test, h100: 581,489,664 B at each of 50 steps), what stays
 * between steps. The model's parameters: 12 layers x (QKV 512 x 1536 + 1536,
 * proj 512^2 + 512, fc1 512 x 2048 + 2048, fc2 2048 x 512 + 512, two
 * LayerNorms 2 x 1024) = 12 x 3,152,384, the tied embedding 50304 x 512, the
 * positions 1024 x 512 and the final LayerNorm 1024: P = 64,109,568. Bf16
 * weights 2P, fp32 main_grad 4P and the distributed optimizer's fp32 master
 * and Adam states 12P / 8 = 480,821,760 B; the three workspaces 100,663,296
 * B: 581,485,056 B, 4,608 B (0.001 %) under the log. With one workspace, as
 * before, 67,108,864 B (11.5 %) under. The non-TE eager profiles hold
 * PyTorch's two alone. */
static void test_torch_workspaces(void)
{
	plan_scenario *s = scen_load(CI64M);
	plan_scenario *n = scen_load(CI64M "[framework]\ntorch_workspaces = 0\n");
	plan_scenario *h = scen_load(FW_("hf-transformers") "global_batch = 1\n");
	double ws = 33554432.0;
	if (s && n) {
		plan_mem_peak p, q;
		plan_memory_peak(s, 0, &p);
		plan_memory_peak(n, 0, &q);
		CHECK_INT(s->fw.torch_workspaces, 2);
		CHECK_NEAR(scen_term(&p, "PyTorch workspaces"), 2 * ws, 0);
		CHECK_NEAR(scen_term(&p, "workspaces"), ws, 0);
		CHECK_NEAR(scen_term(&q, "PyTorch workspaces"), 0, 0);
		CHECK_NEAR(p.allocated - q.allocated, 2 * ws, 1e-6);
		CHECK_INT(p.op, q.op);
		double stays = scen_term(&p, "weights") + scen_term(&p, "gradient buffer") +
		               scen_term(&p, "optimizer states") + scen_term(&p, "workspaces") +
		               scen_term(&p, "PyTorch workspaces");
		CHECK_NEAR(work_params_total(&s->model), 64109568, 0);
		CHECK_NEAR(stays, 581485056, 1);
		CHECK_NEAR(stays / 581489664.0, 1, 1e-4);
	}
	if (h) {
		plan_mem_peak p;
		plan_memory_peak(h, 0, &p);
		CHECK_NEAR(scen_term(&p, "workspaces"), 0, 0);
		CHECK_NEAR(scen_term(&p, "PyTorch workspaces"), 2 * ws, 0);
	}
	plan_scenario_free(s);
	plan_scenario_free(n);
	plan_scenario_free(h);
}

/* What TP keeps whole (work_params_*_replicated): the 64M CI model at tp 4,
 * vocab padded to 50688 (128 x 4), as MA12 (gpt3_mcore_te_tp4_pp1_dist_
 * optimizer_overlap_grad_reduce_param_gather, d98e8a64). Per TP rank: the
 * word embedding 50688 x 512 / 4 = 6,488,064; the positions 1024 x 512 =
 * 524,288 whole; per layer QKV 512 x 1536 / 4 + 1536 / 4 = 196,992, proj
 * 512^2 / 4 = 65,536 + its bias 512 whole, fc1 512 x 2048 / 4 + 2048 / 4 =
 * 262,656, fc2 262,144 + its bias 512 whole, two LayerNorms 2 x 1024 whole:
 * 790,400, x 12 = 9,484,800; the final LayerNorm 1,024: 16,498,176, the
 * count Megatron's log implies (mem-allocated-bytes 299,728,384 B = 12 B x
 * P + TE's and PyTorch's workspaces 100,664,320 B + 1,085,952 B of the
 * distributed optimizer's padding; splitting everything, 16,076,544, left
 * 6.1 MB). At pp 2, tp 2 (vocab 50432) the last stage holds 6 layers of
 * 1,577,728, the final norm and the tied copy of the word embedding alone,
 * 50432 x 512 / 2 (no positions: the first stage's): 22,377,984; stage 0
 * 6 x 1,577,728 + 12,910,592 + 524,288 = 22,901,248. */
#define CI64M_TP(vocab, par)                                                                       \
	"include = topologies/nodes/dgx-h100.ini\n"                                                \
	"[scenario]\nname = t\n[node]\ngpus = 8\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nname = m\nlayers = 12\nhidden = 512\nheads = 8\nkv_heads = 8\nffn = 2048\n"      \
	"seq_len = 1024\nvocab = " vocab "\nactivation = gelu\nbias = true\nnorm = layernorm\n"     \
	"untied_embeddings = false\nlearned_pos = true\n[parallel]\n" par                          \
	"micro_batch = 4\nglobal_batch = 32\n[train]\nprecision = bf16\n"

static void test_tp_replicated(void)
{
	plan_scenario *a = scen_load(CI64M_TP("50688", "tp = 4\ndp = 2\nzero = 1\n"));
	plan_scenario *b = scen_load(CI64M_TP("50432", "tp = 2\npp = 2\ndp = 2\n"));
	if (a) {
		CHECK_NEAR(work_params_layer_replicated(&a->model, 0), 3072, 0);
		CHECK_NEAR(plan_rank_layer(a, 0), 790400, 0);
		CHECK_NEAR(plan_rank_embedding(a), 6488064 + 524288, 0);
		double d, x, lin;
		plan_chunk_params(a, 0, 0, &d, &x, &lin);
		CHECK_NEAR(d, 16498176, 0);
		CHECK_NEAR(x, 0, 0);
		/* the linear weights alone: 12 x 12 h^2 / 4 = 12 x 3,145,728 / 4 */
		CHECK_NEAR(lin, 12 * 3145728.0 / 4, 0);
		plan_budget bg;
		plan_stage_budget(a, 0, &bg);
		CHECK_NEAR(bg.dense, 16498176, 0);
		CHECK_NEAR(plan_local_params(a, 0), 16498176 / 2.0, 1e-6); /* ZeRO-1 over dp 2 */
	}
	if (b) {
		double d, x, lin;
		plan_chunk_params(b, 1, 0, &d, &x, &lin);
		CHECK_NEAR(d, 22377984, 0);
		plan_chunk_params(b, 0, 0, &d, &x, &lin);
		CHECK_NEAR(d, 22901248, 0);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
}

/* The data-parallel gradients' dtype by framework and precision
 * ([framework] grad_dtype, plan_grad_fp32; each profile cites its source):
 * Megatron-LM's LocalDDP and Megatron-Core's DDP keep the grad buffer in the
 * parameters' dtype unless gradients accumulate in fp32, which bf16 (and fp8,
 * trained with --bf16) forces: fp16 2 B, bf16 4 B; Megatron-DeepSpeed under
 * DeepSpeed's fp16 engine all-reduces the fp16 param.grad (2 B), under bf16
 * BF16_Optimizer accumulates in fp32 (4 B); DeepSpeed ZeRO, fms-fsdp and
 * ColossalAI keep the training dtype (2 B), but DeepSpeed without ZeRO under
 * bf16 accumulates in fp32 too (BF16_Optimizer, 4 B, sent as 2 B); nanotron's accumulate_grad_in_fp32,
 * Composer's DEFAULT and torchtitan's reduce_dtype are fp32 at any precision
 * (4 B). Llama 2 7B (6,738,415,616 parameters) on two H100s, dp 2, ZeRO-0, one
 * stage: the ZeRO-0 buckets all-reduce every gradient once, 6,738,415,616 x
 * 2 = 13,476,831,232 B or x 4 = 26,953,662,464 B; under the mixed policy
 * the gradient is 2 or 4 B per parameter in memory (2 + g + 12 with Adam),
 * except over FSDP's fp32 master (param_master: the gradient shard is cast
 * back to fp32, 4 B whatever the wire). A scenario's [parallel] fp32_grads
 * overrides the rule.
 * On the wire (plan_grad_wire_bytes of the buffer's plan_grad_bytes) each
 * value takes the buffer's bytes, except where the framework reduces a
 * narrower copy (grad_wire_dtype = params): Megatron-DeepSpeed under bf16
 * (BF16_Optimizer's fp32 buffer cast to communication_data_type bf16,
 * DeepSpeed 38327e07 engine.py:2491-2513) sends 2 B of a 4 B buffer, with
 * the cast (read 4, write 2) and the copy back (read 2, write 4), 12 B of
 * HBM traffic per value (plan_grad_cast_bytes); so does DeepSpeed with
 * fp32_grads = true. Megatron-Core with fp32_grads = false (its
 * --grad-reduce-in-bf16) keeps a bf16 buffer and sends it: 2 B, no cast;
 * nanotron reduces its fp32 accumulator as it is: 4 B. tf32 trains fp32
 * parameters: 4 B gradients, on the wire too, even with fp32_grads = false
 * (plan_grad_bytes' one rule). */
#define DP2_(name, prec, par)                                                                      \
	"include = topologies/frameworks/" name ".ini\n"                                           \
	"include = models/llama2-7b.ini\ninclude = topologies/nodes/dgx-h100.ini\n"            \
	"[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nseq_len = 4096\n[parallel]\ndp = 2\nmicro_batch = 1\nglobal_batch = 2\n" par     \
	"[train]\npolicy = mixed\nprecision = " prec "\n"
static void test_grad_dtype(void)
{
	static const struct {
		const char *text;
		bool fp32;    /* the gradients' dtype: fp32, else 16 bits */
		double g_mem; /* bytes per parameter of the gradient in memory */
		double wire;  /* bytes per value on the wire (0: the buffer's, 4 or 2) */
		double cast;  /* HBM bytes per value of the casts around the wire */
	} c[] = {
		{DP2_("megatron-core", "fp16", ""), false, 2, 0, 0},
		{DP2_("megatron-core", "bf16", ""), true, 4, 0, 0},
		{DP2_("megatron-core", "fp8", ""), true, 4, 0, 0},
		{DP2_("megatron-lm", "fp16", ""), false, 2, 0, 0},
		{DP2_("megatron-lm", "bf16", ""), true, 4, 0, 0},
		{DP2_("megatron-lm-2021", "fp16", ""), false, 2, 0, 0},
		{DP2_("megatron-deepspeed", "fp16", ""), false, 2, 0, 0},
		{DP2_("megatron-deepspeed", "bf16", ""), true, 4, 2, 12},
		{DP2_("deepspeed", "fp16", ""), false, 2, 0, 0},
		{DP2_("deepspeed", "bf16", ""), true, 4, 2, 12},
		{DP2_("deepspeed", "bf16", "zero = 1\n"), false, 2, 0, 0},
		{DP2_("deepspeed", "fp8", "zero = 2\n"), false, 2, 0, 0},
		{DP2_("nanotron", "bf16", ""), true, 4, 0, 0},
		{DP2_("fms-fsdp", "bf16", ""), false, 4, 0, 0},
		{DP2_("llm-foundry", "bf16", ""), true, 4, 0, 0},
		{DP2_("llm-foundry", "fp16", ""), true, 4, 0, 0},
		{DP2_("torchtitan", "fp16", ""), true, 4, 0, 0},
		/* the scenario's key wins over the rule, either way */
		{DP2_("megatron-lm", "fp16", "fp32_grads = true\n"), true, 4, 0, 0},
		{DP2_("megatron-core", "bf16", "fp32_grads = false\n"), false, 2, 0, 0},
		{DP2_("deepspeed", "bf16", "fp32_grads = true\n"), true, 4, 2, 12},
		{DP2_("megatron-deepspeed", "fp8", ""), true, 4, 2, 12},
		/* tf32: fp32 gradients whatever the key says */
		{DP2_("megatron-core", "tf32", ""), true, 4, 0, 0},
		{DP2_("megatron-deepspeed", "tf32", ""), true, 4, 0, 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		plan_scenario *s = scen_load(c[i].text);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK_INT(s->plan.fp32_grads, c[i].fp32);
		double gb = plan_grad_bytes(s);
		CHECK_NEAR(gb, c[i].fp32 ? 4 : 2, 0);
		CHECK_NEAR(plan_grad_wire_bytes(s, gb), c[i].wire > 0 ? c[i].wire : gb, 0);
		CHECK_NEAR(plan_grad_cast_bytes(s), c[i].cast, 0);
		CHECK_NEAR(work_params_total(&s->model), 6738415616.0, 0);
		plan_grad_bucket k[40];
		int n = plan_grad_buckets(s, 0, k, 40);
		double wire = 0;
		for (int j = 0; j < n; j++)
			wire += k[j].dense_bytes + k[j].expert_bytes;
		CHECK_NEAR(wire, c[i].fp32 ? 26953662464.0 : 13476831232.0, 1);
		double w, g, o, paged;
		plan_param_bytes(s, &w, &g, &o, &paged);
		CHECK_NEAR(g, c[i].g_mem, 0);
		plan_scenario_free(s);
	}
	/* tf32 with fp32_grads = false: the gradients are still fp32 */
	plan_scenario *t = scen_load(DP2_("megatron-core", "tf32", "fp32_grads = false\n"));
	CHECK(t != NULL);
	if (t) {
		CHECK_NEAR(plan_grad_bytes(t), 4, 0);
		CHECK_NEAR(plan_grad_wire_bytes(t, 4), 4, 0);
		plan_grad_bucket k[40];
		int n = plan_grad_buckets(t, 0, k, 40);
		double all = 0;
		for (int j = 0; j < n; j++)
			all += k[j].dense_bytes;
		CHECK_NEAR(all, 26953662464.0, 1);
		plan_scenario_free(t);
	}
}

/* Transformer Engine's workspace by compute capability (plan_workspace_bytes;
 * TE d0067d0d pytorch/cpp_extensions/gemm.py:40-56): megatron-core's
 * profile on an A100 (8.0) holds 4 MiB, on an H100 (9.0) 32 MiB, and 3 of
 * either under tp_comm_overlap (12 and 96 MiB). The same 64M plan on both:
 * the static terms differ by 28 MiB = 29,360,128 B, the measured difference
 * of that test's mem-allocated-bytes between DGX H100 and A100
 * (581,489,664 - 552,128,512 = 29,361,152 B, TE's extra 1 KiB on Hopper
 * aside). A GPU that states no compute capability keeps `workspace`. */
#define MCORE_64M(node, par)                                                                       \
	"include = topologies/frameworks/megatron-core.ini\n"                                      \
	"include = topologies/nodes/" node ".ini\n"                                                \
	"[scenario]\nname = t\n[node]\ngpus = 8\n[cluster]\nname = c\nnodes = 1\n"                 \
	"[model]\nname = m\nlayers = 12\nhidden = 512\nheads = 8\nkv_heads = 8\nffn = 2048\n"      \
	"seq_len = 1024\nvocab = 50304\nactivation = gelu\nbias = true\nnorm = layernorm\n"        \
	"untied_embeddings = false\nlearned_pos = true\n[parallel]\n" par                          \
	"micro_batch = 4\nglobal_batch = 32\n[train]\nprecision = bf16\nattention = unfused\n"

static void test_workspace_by_arch(void)
{
	plan_scenario *h = scen_load(MCORE_64M("dgx-h100", "dp = 8\nzero = 1\n"));
	plan_scenario *a = scen_load(MCORE_64M("dgx-a100-80g", "dp = 8\nzero = 1\n"));
	if (h && a) {
		CHECK_NEAR(h->gpu.compute_capability, 9.0, 0);
		CHECK_NEAR(a->gpu.compute_capability, 8.0, 0);
		plan_mem_peak ph, pa;
		plan_memory_peak(h, 0, &ph);
		plan_memory_peak(a, 0, &pa);
		CHECK_NEAR(scen_term(&ph, "workspaces"), 32.0 * 1048576, 0);
		CHECK_NEAR(scen_term(&pa, "workspaces"), 4.0 * 1048576, 0);
		CHECK_NEAR(scen_term(&ph, "PyTorch workspaces"), scen_term(&pa, "PyTorch workspaces"), 0);
		double sh = scen_term(&ph, "weights") + scen_term(&ph, "gradient buffer") +
		            scen_term(&ph, "optimizer states") + scen_term(&ph, "workspaces");
		double sa = scen_term(&pa, "weights") + scen_term(&pa, "gradient buffer") +
		            scen_term(&pa, "optimizer states") + scen_term(&pa, "workspaces");
		CHECK_NEAR(sh - sa, 29360128, 1e-9);
		hw_gpu g = a->gpu;
		g.compute_capability = 0; /* not stated: the profile's workspace */
		CHECK_NEAR(plan_workspace_bytes(&a->fw, &g, NULL), 32.0 * 1048576, 0);
		double ub;
		CHECK_NEAR(plan_workspace_bytes(&a->fw, &a->gpu, &ub), 4.0 * 1048576, 0);
		CHECK_NEAR(ub, 12.0 * 1048576, 0);
		CHECK_NEAR(plan_workspace_bytes(&h->fw, &h->gpu, &ub), 32.0 * 1048576, 0);
		CHECK_NEAR(ub, 96.0 * 1048576, 0);
	}
	plan_scenario_free(h);
	plan_scenario_free(a);
}

/* Megatron-Core's local layers (scores_buffer; work_scores_buffer_bytes):
 * QK^T's buffer of b a s^2 e / t stays between steps, 4 x 8 x 1024^2 x 2 =
 * 67,108,864 B for the 64M model at b 4, half at tp 2, none under flash
 * attention; a static term, so the peak's moment stays.
 * Measured: MA05 (gpt3_mcore_tp1_pp2, d98e8a64) logs mem-allocated-bytes
 * 948,653,056 B after every step on its last stage: 6 layers x 3,152,384 +
 * the final norm 1,024 + the tied word embedding 50304 x 512 = 44,670,976
 * params x 18 B (plain DDP: bf16 weights, fp32 main_grad, master, m, v) =
 * 804,077,568 B, PyTorch's two workspaces 67,108,864 B, no TE workspace,
 * the buffer 67,108,864 B: 938,295,296 B, 10,357,760 B (1.1 %) under the
 * log (plain DDP's rows all leave 7-14 MB unexplained: MA09, MA13). Without
 * the buffer and with TE's workspace, as before, 4.5 % under. */
static void test_scores_buffer(void)
{
	plan_scenario *l = scen_load(MCORE_64M("dgx-h100", "pp = 2\ndp = 4\nzero = 0\n") "[framework]\n"
	                        "scores_buffer = true\nworkspace = 0 B\n");
	plan_scenario *n = scen_load(MCORE_64M("dgx-h100", "pp = 2\ndp = 4\nzero = 0\n"));
	plan_scenario *t = scen_load(MCORE_64M("dgx-h100", "tp = 2\ndp = 4\nzero = 0\n") "[framework]\n"
	                        "scores_buffer = true\nworkspace = 0 B\n");
	if (l && n && t) {
		plan_mem_peak pl, pn, pt;
		plan_memory_peak(l, 1, &pl);
		plan_memory_peak(n, 1, &pn);
		plan_memory_peak(t, 0, &pt);
		CHECK_NEAR(scen_term(&pl, "attention scores buffer"), 67108864, 0);
		CHECK_NEAR(scen_term(&pn, "attention scores buffer"), 0, 0);
		CHECK_NEAR(scen_term(&pt, "attention scores buffer"), 33554432, 0);
		work_shard sh = plan_shard(l);
		sh.flash = true;
		CHECK_NEAR(work_scores_buffer_bytes(&l->model, &sh), 0, 0);
		CHECK_INT(pl.op, pn.op);
		CHECK_NEAR(pl.allocated - pn.allocated, 67108864 - 33554432, 1e-6);
		double stays = scen_term(&pl, "weights") + scen_term(&pl, "gradient buffer") +
		               scen_term(&pl, "optimizer states") + scen_term(&pl, "workspaces") +
		               scen_term(&pl, "PyTorch workspaces") + scen_term(&pl, "attention scores buffer");
		CHECK_NEAR(stays, 938295296, 1);
		CHECK_NEAR(stays / 948653056.0, 1, 0.012);
	}
	plan_scenario_free(l);
	plan_scenario_free(n);
	plan_scenario_free(t);
}

/* [train] fp8_recipe reaches the layer's saved tensors (plan_shard): delayed
 * scaling, Megatron-Core's default, keeps the output projection's 1-byte copy
 * of the attention output, q/t bytes a token more per layer: Llama 2 7B at
 * tp 2, 4096 tokens: 4096 / 2 x 4096 = 8 MiB per layer; tensorwise does not;
 * bf16 ignores the key. */
static void test_fp8_recipe(void)
{
	plan_scenario *d = scen_load(TP2_BODY "[train]\nprecision = fp8\n");
	plan_scenario *c = scen_load(TP2_BODY "[train]\nprecision = fp8\nfp8_recipe = tensorwise\n");
	if (d && c) {
		work_shard sd = plan_shard(d), sc = plan_shard(c);
		CHECK(sd.fp8_delayed && !sc.fp8_delayed);
		double ad = work_activation_bytes(&d->model, &sd, WORK_RECOMPUTE_NONE);
		double ac = work_activation_bytes(&c->model, &sc, WORK_RECOMPUTE_NONE);
		CHECK_NEAR(ad - ac, 4096.0 / 2 * 4096, 1e-12);
	}
	plan_scenario_free(d);
	plan_scenario_free(c);
}

/* Context parallelism's buffers in a layer's attention (memsize.c
 * size_cp_buffers). The quickstart's model (h 2304, 24 heads of 96, K/V
 * 24 heads, GELU ffn 9216) at 16,384 tokens, cp 4, tp 1, micro-batch 4:
 * T = 4 x 16384 / 4 = 16,384 tokens a rank, q = k = 2304 elements a token,
 * e = 2. Stage 0 of pp 2 holds no loss.
 *   ring (Megatron-Core, Transformer Engine's p2p): forward cp (2k + q) e
 *   + 4q = 55,296 + 9,216 = 64,512 B a token; backward e (2q + 10k) =
 *   55,296, above the MLP's activation gradients 2 e f = 36,864: the peak
 *   is the last warm-up forward's last attention, 64,512 T on top of what
 *   the backward's start holds with 55,296 T.
 *   all-gather (torchtitan): forward (cp + 1) 2k e + 4q + e q = 46,080 +
 *   9,216 + 4,608 = 59,904; backward 4 (q + 2k) + e (q + 2k) + (cp + 1)
 *   2k e + 16k = 27,648 + 13,824 + 46,080 + 36,864 = 124,416: the peak is
 *   a backward, its working set 124,416 T. */
static void test_cp_buffers(void)
{
	static const char *const fw[2] = {"", "include = topologies/frameworks/torchtitan.ini\n"};
	const double T = 16384, fwd[2] = {64512 * T, 59904 * T}, bwd[2] = {55296 * T, 124416 * T};
	for (int i = 0; i < 2; i++) {
		char text[512];
		snprintf(text, sizeof text,
		         "include = scenarios/quickstart.ini\n%s[model]\nseq_len = 16384\n"
		         "[parallel]\ncp = 4\ntp = 1\npp = 2\ndp = 2\n",
		         fw[i]);
		plan_scenario *s = scen_load(text);
		if (!s)
			continue;
		plan_mem_peak p;
		plan_memory_peak(s, 0, &p);
		if (i == 0) {
			CHECK(strstr(p.moment, "attention (CP buffers)") != NULL);
			CHECK_NEAR(scen_term(&p, "CP attention buffers"), fwd[i], 1e-12);
			CHECK_NEAR(scen_term(&p, "layer backward"), 0, 0);
		} else {
			CHECK(strstr(p.moment, "backward of micro-batch") != NULL);
			CHECK_NEAR(scen_term(&p, "layer backward"), bwd[i], 1e-12);
			CHECK_NEAR(scen_term(&p, "CP attention buffers"), 0, 0);
		}
		plan_scenario_free(s);
	}
}

int main(void)
{
	test_cp_buffers();
	test_policies();
	test_optimizers();
	test_optimizer();
	test_param_master();
	test_single_step();
	test_lora();
	test_quant_state();
	test_no_sync();
	test_pp_gathered();
	test_zbv_ends();
	test_checkpoint();
	test_checkpoint_cut();
	test_quant_rest();
	test_frozen_layers();
	test_lora_flops();
	test_eager();
	test_loss();
	test_phases();
	test_verdict();
	test_cuts();
	test_head();
	test_tp_overlap_workspace();
	test_torch_workspaces();
	test_fp8_recipe();
	test_tp_replicated();
	test_workspace_by_arch();
	test_scores_buffer();
	test_grad_dtype();
	return check_done();
}
