/* test_offload.c - ZeRO-Offload and ZeRO-Infinity: where the bytes go, how
 * long the CPU step takes, which plans are refused. The quickstart scenario:
 * GPT 1.7B, 2 DGX A100 nodes (8 GPUs each, host DRAM 2 x 204.8 GB/s at the
 * assumed 0.5 efficiency), tp 2, pp 2, dp 4, 8 micro-batches. */
#include "../../sim/exec/exec.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

/* The quickstart (pp 2) under a framework that runs ZeRO-2/3 with a pipeline
 * and parameter offloading (DeepSpeed's rules refuse ZeRO-2/3 with pp > 1;
 * these tests are about the offload mechanisms, not the rules). */
static plan_scenario *load(const char *const *set, size_t n, sim_diag *d)
{
	const char *all[8] = {"framework.runs_zero_with_pp=3", "framework.runs_offload_params=true"};
	size_t k = 2;
	for (size_t i = 0; i < n && k < 8; i++)
		all[k++] = set[i];
	plan_scenario *s = NULL;
	plan_scenario_load("scenarios/quickstart.ini", all, k, d, &s);
	return s;
}

static int count(const plan_graph *g, int rank, plan_task_kind k, double *longest)
{
	int n = 0;
	*longest = 0;
	for (size_t i = 0; i < g->ntasks; i++)
		if (g->tasks[i].rank == rank && g->tasks[i].kind == k) {
			n++;
			double t = sim_time_to_s(g->tasks[i].dur);
			*longest = t > *longest ? t : *longest;
		}
	return n;
}

/* ZeRO-2 + optimizer on the CPU: the HBM keeps no optimizer states; the host
 * holds, per node, 8 GPUs x the rank's shard P_l x (12 bytes of fp32 states +
 * 4 of fp32 gradients); the CPU Adam step of the node's 8 shards moves 30
 * bytes per parameter at 409.6 GB/s x 0.5:
 *   t = 8 P_l x 30 / 204.8e9. */
static void test_cpu_adam(void)
{
	const char *set[] = {"parallel.zero=2", "parallel.offload_optimizer=cpu"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = load(set, 2, d);
	CHECK(s != NULL);
	if (!s) {
		sim_diag_free(d);
		return;
	}
	double mem[PLAN_MEM_COUNT], host, nvme;
	plan_memory(s, 0, mem);
	CHECK_NEAR(mem[PLAN_MEM_OPTIMIZER], 0, 0);
	double local = plan_local_params(s, 0);
	plan_offload_memory(s, 0, &host, &nvme);
	CHECK_NEAR(host, 8 * local * 16.0, 1e-12);
	CHECK_NEAR(nvme, 0, 0);
	plan_graph *g = NULL;
	CHECK_INT(plan_build(s, &g), SIM_OK);
	if (g) {
		double longest;
		CHECK(count(g, 0, PLAN_TASK_OFFLOAD, &longest) >= 3);
		CHECK_NEAR(longest, 8 * local * 30.0 / 204.8e9, 1e-11);
		CHECK_INT(count(g, 0, PLAN_TASK_OPTIM, &longest), 0); /* no GPU step */
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* The same under LoRA (rank 16 on every linear layer, a 16-bit frozen base):
 * only the adapters train, so the host holds their states and gradients
 * alone, 8 GPUs x T x 16 bytes with T = plan_optimizer_trained's share of the
 * rank's parameters (the adapters over what the stage holds), and the CPU
 * step moves 8 T x 30 bytes; before, the full shard's states were counted
 * and stepped (a 70B QLoRA run with FSDP's CPU offload needed 1.1 TiB of
 * host memory and its step took minutes). With the parameters offloaded too
 * (ZeRO-3) the host also holds the shard's weights: the adapters at 2 bytes
 * and the frozen base's share at its 16-bit bytes. */
static void test_cpu_adam_lora(void)
{
	const char *set[] = {"parallel.zero=3", "parallel.offload_optimizer=cpu",
			     "parallel.offload_params=cpu", "train.lora_rank=16"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = load(set, 4, d);
	CHECK(s != NULL);
	if (!s) {
		sim_diag_free(d);
		return;
	}
	double host, nvme, local = plan_local_params(s, 0);
	double t = plan_optimizer_trained(s, 0, local);
	plan_budget b;
	plan_stage_budget(s, 0, &b);
	CHECK(t > 0 && t < local / 50); /* adapters: well under 2 % */
	plan_offload_memory(s, 0, &host, &nvme);
	double share = local / (b.dense + b.experts);
	CHECK_NEAR(host, 8 * (t * 16.0 + t * 2.0 + share * b.frozen_bytes), 1e-12);
	CHECK(host < 8 * local * 16.0 / 5);
	plan_graph *g = NULL;
	CHECK_INT(plan_build(s, &g), SIM_OK);
	if (g) {
		double longest;
		count(g, 0, PLAN_TASK_OFFLOAD, &longest);
		/* the longest offload task is a layer's shard fetch, not the step */
		double adam = 8 * t * 30.0 / 204.8e9;
		int found = 0;
		for (size_t i = 0; i < g->ntasks; i++)
			found += g->tasks[i].rank == 0 && g->tasks[i].kind == PLAN_TASK_OFFLOAD &&
				 fabs(sim_time_to_s(g->tasks[i].dur) - adam) < 1e-11;
		CHECK(found >= 1);
	}
	plan_graph_free(g);
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* ZeRO-3 with parameters and optimizer on the CPU: per micro-batch and layer
 * a shard fetch before the forward's and the backward's all-gather and a
 * gradient-shard copy after the reduce-scatter (3 x 12 layers x 8
 * micro-batches), plus the optimizer's gradient copy, CPU step and weight copy:
 * 291 offload tasks on each stage; and the stage's end (zero3_root = step:
 * the embedding on stage 0, the head on stage 1) fetched for its one gather
 * a step and its gradient shard copied after each micro-batch's
 * reduce-scatter, 1 + 8. The HBM keeps no weights or states. */
static void test_infinity(void)
{
	const char *set[] = {"parallel.zero=3", "parallel.offload_params=cpu",
			     "parallel.offload_optimizer=cpu"};
	sim_diag *d = sim_diag_new();
	plan_scenario *s = load(set, 3, d);
	CHECK(s != NULL);
	if (s) {
		plan_graph *g = NULL;
		CHECK_INT(plan_build(s, &g), SIM_OK);
		double longest;
		if (g) {
			CHECK_INT(count(g, 0, PLAN_TASK_OFFLOAD, &longest), 291 + 1 + 8);
			CHECK_INT(count(g, 1, PLAN_TASK_OFFLOAD, &longest), 291 + 1 + 8);
		}
		double mem[PLAN_MEM_COUNT];
		plan_memory(s, 0, mem);
		CHECK_NEAR(mem[PLAN_MEM_WEIGHTS] + mem[PLAN_MEM_OPTIMIZER], 0, 0);
		plan_graph_free(g);
	}
	plan_scenario_free(s);
	sim_diag_free(d);
}

/* DeepSpeed's rules: offloading the optimizer needs ZeRO >= 1, the parameters
 * ZeRO-3; NVMe needs drives with a known bandwidth. */
static void test_refused(void)
{
	const char *z0[] = {"parallel.zero=0", "parallel.offload_optimizer=cpu"};
	const char *z2[] = {"parallel.zero=2", "parallel.offload_params=cpu"};
	const char *nv[] = {"parallel.zero=2", "parallel.offload_optimizer=nvme", "node.nvme_bw=0 B/s"};
	sim_diag *d = sim_diag_new();
	CHECK(load(z0, 2, d) == NULL);
	CHECK(load(z2, 2, d) == NULL);
	CHECK(load(nv, 3, d) == NULL);
	CHECK_INT(sim_diag_error_count(d), 3);
	sim_diag_free(d);
}

/* Inference (prefill) of Llama 3 8B on one DGX H100 (tp 1, dp 8, 64 sequences
 * of 8192 tokens: 8 micro-batches of 1 per GPU, 32 layers):
 *  - forward tasks only: no backward, optimizer or DP task; model FLOPs are
 *    the forward third of training's 6P per token (2P);
 *  - ZeRO-Inference (offload_params = cpu) streams every layer's weights over
 *    PCIe per micro-batch: t_f = params_layer x 2 B / (63 GB/s x 0.8); the
 *    copies run back to back on the offload stream with the compute of the
 *    previous layer beside them, so the step lies between the copies alone
 *    (8 x 32 x t_f) and the slower of copies and compute per layer, 8 x 32 x
 *    max(t_f, t_layer), plus per micro-batch (each starts its own chain of
 *    copies) an unhidden first copy and the compute after the last copy (the
 *    last layer, embedding and head): at most 2 (t_f + t_layer). (With the
 *    H100's sustained tensor rate a layer's compute, 9.5 ms, outlasts its
 *    copy, 8.65 ms.) */
static void test_inference(void)
{
	const char *inf[] = {"train.mode=inference"};
	const char *str[] = {"train.mode=inference", "parallel.offload_params=cpu",
			     "framework.runs_offload_params=true"};
	const char *trn[] = {"parallel.zero=0"};
	sim_diag *d = sim_diag_new();
	plan_scenario *a = NULL, *b = NULL, *t = NULL;
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", inf, 1, d, &a), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", str, 3, d, &b), SIM_OK);
	CHECK_INT(plan_scenario_load("scenarios/llama3-8b-1node.ini", trn, 1, d, &t), SIM_OK);
	if (a && b && t) {
		plan_graph *ga = NULL, *gt = NULL;
		CHECK_INT(plan_build(a, &ga), SIM_OK);
		CHECK_INT(plan_build(t, &gt), SIM_OK);
		double x;
		if (ga && gt) {
			CHECK_INT(count(ga, 0, PLAN_TASK_BWD, &x) + count(ga, 0, PLAN_TASK_OPTIM, &x) +
					  count(ga, 0, PLAN_TASK_DP, &x),
				  0);
			CHECK_INT(count(ga, 0, PLAN_TASK_FWD, &x), count(gt, 0, PLAN_TASK_FWD, &x));
			CHECK_NEAR(ga->model_flops, gt->model_flops / 3, 1e-12);
		}
		plan_graph_free(ga);
		plan_graph_free(gt);
		exec_result *ra = calloc(1, sizeof *ra), *rb = calloc(1, sizeof *rb);
		CHECK_INT(exec_run(a, ra), SIM_OK);
		CHECK_INT(exec_run(b, rb), SIM_OK);
		double tf = work_params_layer(&b->model) * 2.0 / (63e9 * 0.8);
		double lc = ra->step_s / (8 * 32); /* one layer's compute per micro-batch */
		CHECK(rb->step_s >= 8 * 32 * tf);
		CHECK(rb->step_s <= 8 * 32 * fmax(tf, lc) + 8 * 2 * (lc + tf));
		CHECK(rb->classes[0].time_s[EXEC_CAT_OFFLOAD] > 0);
		free(ra);
		free(rb);
	}
	plan_scenario_free(a);
	plan_scenario_free(b);
	plan_scenario_free(t);
	sim_diag_free(d);
}

int main(void)
{
	test_inference();
	test_cpu_adam();
	test_cpu_adam_lora();
	test_infinity();
	test_refused();
	return check_done();
}
