/* test_verdict.c - the sweep prunes on the run's memory verdict (issue 22:
 * "the sweep's pruning follows the same verdict"). For shipped scenarios
 * under several framework profiles, each with a small grid of plans, the
 * pre-screen's verdict and peak (sweep_screen: plan_memory_fit over
 * plan_memory_totals) must equal what `podsim run --set ...` reports for
 * the same plan (plan_scenario_load with the plan's overrides, exec_run:
 * exec_mem_verdict, mem_peak_bytes and oom, which text, JSON and explain
 * print): a plan pruned as not fitting is out of memory in the run, a kept
 * plan fits or is tight as the run says, with the same peak; and the
 * verdict is the plan's, the worst over the GPU types it runs on, with the
 * same basis in plan_memory_fit and the run (exec_mem_basis_of). The grids
 * cross what recent memory terms depend on: the checkpoint after the step
 * (hf-trainer-fsdp's checkpoint_shards, its peak in the QLoRA case),
 * partial full recomputation (recompute_layers), FSDP's fp32 param_master,
 * offloading, ZeRO stages, pipeline stages, keys that reload the scenario
 * (model.seq_len), the driver-reported capacity of each GPU file; and the
 * two verdicts the sweep once missed: a plan out of memory only on the A100
 * 40 GB nodes of a mixed cluster ([cluster] other_gpu), and offloaded
 * states past the node's host DRAM, both called out of memory by the run
 * and ranked as fitting by the sweep. Runs from the source root (meson's
 * workdir); the scenarios are written to temporary files that include the
 * shipped ones by absolute path. */
#include "check.h"
#include "exec/exec.h"
#include "sweep/sweep.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct vcase {
	const char *incl[3]; /* files included, relative to the source root */
	const char *keys;    /* keys after the includes */
	const char *vary[4];
} vcase;

/* What the grids reach over every case (so that the test cannot pass on
 * grids that all fit): plans by the run's verdict, by where the sweep finds
 * them out of memory, and plans whose peak is the checkpoint after the
 * step. */
static int seen[3], seen_oom[PLAN_OOM_NVME + 1], seen_save;
/* plans whose verdict other_gpu decides, by verdict, with the scenario's
 * GPU's verdict better (so that a report of the GPU alone would be wrong) */
static int seen_other[3];

/* plan_memory_fit's basis as exec_mem_basis_of names it. */
static exec_mem_basis fit_basis(const plan_mem_fit *f)
{
	switch (f->where) {
	case PLAN_OOM_GPU:
		return EXEC_MEM_ON_GPU;
	case PLAN_OOM_OTHER_GPU:
		return EXEC_MEM_ON_OTHER;
	case PLAN_OOM_HOST:
		return EXEC_MEM_ON_HOST;
	case PLAN_OOM_NVME:
		return EXEC_MEM_ON_NVME;
	default:
		return f->by_other ? EXEC_MEM_ON_OTHER : EXEC_MEM_ON_GPU;
	}
}

/* The case's scenario as a temporary file; false after a failed CHECK. */
static bool write_case(const vcase *c, char path[PATH_MAX])
{
	char root[PATH_MAX];
	if (!CHECK(getcwd(root, sizeof root) != NULL))
		return false;
	snprintf(path, PATH_MAX, "/tmp/podsim-verdict-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!CHECK(f != NULL))
		return false;
	for (int i = 0; i < 3 && c->incl[i]; i++)
		fprintf(f, "include = %s/%s\n", root, c->incl[i]);
	fprintf(f, "%s", c->keys ? c->keys : "");
	return CHECK(fclose(f) == 0);
}

static plan_scenario *load(const char *path, const char *const *sets, size_t n)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	int rc = plan_scenario_load(path, sets, n, d, &s);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	CHECK_INT(rc, SIM_OK);
	return rc == SIM_OK ? s : NULL;
}

/* Plan i of the screen against its run: what `podsim run PATH --set ...`
 * loads and reports. */
static void compare_plan(const vcase *c, const char *path, const sweep_space *sp,
                         const sweep_plan *p, exec_result *r)
{
	char own[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	const char *sets[SWEEP_MAX_DIMS + 1];
	size_t n = sweep_plan_sets(sp, p, own);
	for (size_t i = 0; i < n; i++)
		sets[i] = own[i];
	plan_scenario *s = load(path, sets, n);
	if (!s || !CHECK_INT(exec_run(s, r), SIM_OK)) {
		plan_scenario_free(s);
		return;
	}
	plan_verdict v = exec_mem_verdict(r);
	seen[v]++;
	seen_oom[p->est.mem_oom]++;
	plan_mem_peak pk;
	plan_memory_peak(s, exec_mem_worst(r), &pk);
	seen_save += !strncmp(pk.moment, "saving a checkpoint", 19);
	/* the plan's verdict and its basis: plan_memory_fit's (the sweep's)
	 * and the run's (exec_mem_verdict, exec_mem_basis_of: what the
	 * reports print); a class is out of memory exactly when its verdict
	 * says so, and the run is out of memory when a class or an offload
	 * tier is */
	plan_mem_fit f;
	plan_memory_fit(s, &f);
	exec_mem_basis on = exec_mem_basis_of(r);
	if (on == EXEC_MEM_ON_OTHER && f.gpu_verdict < v)
		seen_other[v]++;
	bool ok = CHECK_INT(p->status == SWEEP_NO_FIT, r->oom);
	ok &= CHECK_INT(p->est.mem_verdict, v);
	ok &= CHECK_INT(f.verdict, v);
	ok &= CHECK_INT(on, fit_basis(&f));
	ok &= CHECK_NEAR(p->est.mem_peak_bytes, r->mem_peak_bytes, 1e-12);
	bool class_oom = false;
	for (int i = 0; i < r->nclasses; i++) {
		const exec_class *k = &r->classes[i];
		plan_verdict cv = exec_class_verdict(k, r->mem_capacity_bytes);
		ok &= CHECK_INT(k->oom, cv == PLAN_VERDICT_OOM);
		ok &= CHECK(cv <= v);
		class_oom = class_oom || k->oom;
	}
	ok &= CHECK(class_oom == (f.where == PLAN_OOM_GPU || f.where == PLAN_OOM_OTHER_GPU));
	if (!ok) {
		fprintf(stderr, "  %s, plan %llu:", c->incl[c->incl[1] ? 1 : 0],
		        (unsigned long long)p->index);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s", own[i]);
		fprintf(stderr, ": sweep %s%s %.6g B, run %s%s %.6g B\n",
		        plan_verdict_name(p->est.mem_verdict),
		        p->status == SWEEP_NO_FIT ? " (pruned)" : "", p->est.mem_peak_bytes,
		        plan_verdict_name(v), r->oom ? " (oom)" : "", r->mem_peak_bytes);
	}
	plan_scenario_free(s);
}

static void run_case(const vcase *c, exec_result *r)
{
	char path[PATH_MAX];
	if (!write_case(c, path))
		return;
	plan_scenario *base = load(path, NULL, 0);
	sweep_space *sp = sweep_space_new();
	sim_diag *d = sim_diag_new();
	for (int k = 0; k < 4 && c->vary[k]; k++)
		CHECK_INT(sweep_space_add(sp, c->vary[k], "podsim sweep", 0, d), SIM_OK);
	sim_diag_print(d, stderr);
	sweep_screen_result sr;
	int checked = 0;
	if (base && CHECK_INT(sweep_screen(sp, base, path, NULL, 0, &sr), SIM_OK)) {
		for (uint64_t i = 0; i < sr.nplans; i++)
			if (sr.plans[i].status != SWEEP_INVALID) {
				compare_plan(c, path, sp, &sr.plans[i], r);
				checked++;
			}
		sweep_screen_free(&sr);
	}
	if (!CHECK(checked > 0))
		fprintf(stderr, "  no valid plan in %s\n", c->incl[c->incl[1] ? 1 : 0]);
	sim_diag_free(d);
	sweep_space_free(sp);
	plan_scenario_free(base);
	unlink(path);
}

#define FW(name) "topologies/frameworks/" name ".ini"
#define L8B      "scenarios/llama3-8b-1node.ini"

/* Llama 3 8B on one DGX H100 (79.1 GiB reported): out of memory without
 * recomputation at 8k tokens under Megatron-Core, tight or fitting with it
 * (explain's cuts); NeMo's profile over the same plans with pipelines;
 * PyTorch FSDP (fp32 parameters as their own master) and the Hugging Face
 * Trainer on FSDP1 with CPU offload; Llama 2 7B QLoRA under the Trainer at
 * 512 tokens, where the checkpoint after the step is the peak
 * (test_memory's test_checkpoint), and 4k; DeepSpeed ZeRO-3 with and
 * without the optimizer on the CPU, and ZeRO-2's offloaded states on nodes
 * of 200 GB of host DRAM (13 G params x 16 B = 194 GiB per node: out of
 * memory there); nanotron's Llama 1B from micro-batch 4 to 32; fms-fsdp's
 * spread recomputation of some blocks on A100 80 GB (79.25 GiB reported);
 * Llama 2 70B on H100 nodes with two A100 40 GB nodes holding stages 0
 * and 1, where micro-batch 2 without recomputation fits on the H100s and
 * not on the A100s; at 5120 tokens and micro-batch 1 the A100s are tight
 * (36.7 of 39.5 GiB) and the H100s fit: the plan is tight, on the A100, and
 * at 4096 tokens it fits both, the A100 the fuller (the basis). */
static const vcase cases[] = {
        {{L8B}, NULL,
         {"parallel.tp=1,2,4", "parallel.micro_batch=1,2", "parallel.recompute=none,selective,full"}},
        {{FW("nemo"), L8B}, NULL,
         {"parallel.tp=1,2", "parallel.pp=1,2", "parallel.micro_batch=1,2",
          "parallel.recompute=none,full"}},
        {{FW("pytorch-fsdp"), L8B}, "[parallel]\nzero = 3\noverlap_grad_reduce = false\n",
         {"parallel.micro_batch=1,2,4", "parallel.recompute=none,full"}},
        {{FW("hf-trainer-fsdp"), L8B},
         "[parallel]\nzero = 3\noverlap_grad_reduce = false\noffload_params = cpu\n"
         "offload_optimizer = cpu\nglobal_batch = 32\n",
         {"parallel.micro_batch=1,2,4", "parallel.recompute=none,full"}},
        {{FW("hf-trainer-fsdp"), "models/llama2-7b.ini", "topologies/nodes/dgx-a100-80g.ini"},
         "[scenario]\nname = t\n[node]\ngpus = 2\n[cluster]\nname = c\nnodes = 1\n"
         "[parallel]\ndp = 2\nzero = 3\nglobal_batch = 16\nrecompute = full\n"
         "offload_params = cpu\noffload_optimizer = cpu\n[train]\npolicy = pure\n"
         "lora_rank = 8\nlora_targets = all\nbase_weights = nf4-dq\n",
         {"model.seq_len=512,4096", "parallel.micro_batch=2,8"}},
        {{"scenarios/llama2-13b-zero-offload.ini"}, "[parallel]\nzero = 3\n",
         {"parallel.offload_optimizer=none,cpu", "parallel.micro_batch=1,2,4",
          "parallel.recompute=none,full"}},
        {{"scenarios/llama2-13b-zero-offload.ini"}, "[node]\nhost_memory = 200 GB\n",
         {"parallel.offload_optimizer=none,cpu"}},
        {{"scenarios/llama-1b-nanotron-memory.ini"}, "[parallel]\nglobal_batch = 256\n",
         {"parallel.micro_batch=4,8,16,32", "parallel.zero=0,1"}},
        {{"tests/golden/llama2-13b-fms-half.ini"},
         "[cluster]\nnodes = 2\n[parallel]\ndp = 16\nglobal_batch = 64\n",
         {"parallel.recompute_layers=0,10,20,30", "parallel.micro_batch=1,2,4"}},
        {{"scenarios/llama2-70b-h100-a100.ini"}, "[parallel]\nrecompute = none\n",
         {"model.seq_len=4096,5120", "parallel.micro_batch=1,2"}},
};

/* A mixed cluster's other nodes keep their own host DRAM: Llama 2 70B on
 * H100 nodes (2 TB each, dgx-h100.ini) with stages 0 and 1 on two A100 40 GB
 * nodes, ZeRO-1's optimizer states on the CPU: 8 ranks x (12 B of states +
 * 4 B of fp32 gradient) x their shard, 32.4 GiB a node, fit every node of
 * the shipped mixed cluster (the A100 node's 1 TB the fullest share, the
 * capacity reported), and overflow the test fixture's A100 nodes of 16 GB
 * (tests/topologies/dgx-a100-40g-small-host.ini): out of memory in host
 * memory, their 16 GB reported, in the run and the sweep alike (run_case);
 * until 2026-11-30 every stage was held to the main node's DRAM and both
 * called the plan fitting. */
static void test_other_host(exec_result *r)
{
	char root[PATH_MAX], keys[PATH_MAX + 128];
	if (!CHECK(getcwd(root, sizeof root) != NULL))
		return;
	snprintf(keys, sizeof keys,
	         "[parallel]\nzero = 1\noffload_optimizer = cpu\n[cluster]\nother_gpu = "
	         "%s/tests/topologies/dgx-a100-40g-small-host.ini\n",
	         root);
	const vcase small = {{"scenarios/llama2-70b-h100-a100.ini"}, keys,
	                     {"parallel.offload_optimizer=none,cpu"}};
	const vcase shipped = {{"scenarios/llama2-70b-h100-a100.ini"},
	                       "[parallel]\nzero = 1\noffload_optimizer = cpu\n", {NULL}};
	const vcase *both[2] = {&shipped, &small};
	for (int k = 0; k < 2; k++) {
		char path[PATH_MAX];
		if (!write_case(both[k], path))
			return;
		plan_scenario *s = load(path, NULL, 0);
		if (s) {
			plan_mem_fit f;
			plan_memory_fit(s, &f);
			CHECK_NEAR(f.host, 32.4 * 1073741824.0, 0.05 * 1073741824.0);
			CHECK_INT(f.where, k ? PLAN_OOM_HOST : PLAN_OOM_NONE);
			CHECK_NEAR(f.host_capacity, k ? 16e9 : s->other_net.host_mem_bytes, 1);
			CHECK(f.host_capacity < s->cluster.node.host_mem_bytes);
			if (CHECK_INT(exec_run(s, r), SIM_OK)) {
				CHECK_INT(r->oom, k == 1);
				CHECK_INT(exec_mem_basis_of(r), k ? EXEC_MEM_ON_HOST : EXEC_MEM_ON_OTHER);
				CHECK_NEAR(r->host_capacity_bytes, f.host_capacity, 1);
			}
		}
		plan_scenario_free(s);
		unlink(path);
	}
	run_case(&small, r);
}

int main(void)
{
	exec_result *r = calloc(1, sizeof *r);
	if (!CHECK(r != NULL))
		return check_done();
	test_other_host(r);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i], r);
	fprintf(stderr, "plans compared: %d fit, %d tight, %d out of memory\n",
	        seen[PLAN_VERDICT_FITS], seen[PLAN_VERDICT_TIGHT], seen[PLAN_VERDICT_OOM]);
	fprintf(stderr, "pruned: %d on the GPU, %d on other_gpu, %d in host memory; %d peaks "
	        "at the checkpoint\n", seen_oom[PLAN_OOM_GPU], seen_oom[PLAN_OOM_OTHER_GPU],
	        seen_oom[PLAN_OOM_HOST], seen_save);
	fprintf(stderr, "decided on other_gpu, worse than on the GPU: %d tight, %d out of memory\n",
	        seen_other[PLAN_VERDICT_TIGHT], seen_other[PLAN_VERDICT_OOM]);
	CHECK(seen_other[PLAN_VERDICT_TIGHT] > 0 && seen_other[PLAN_VERDICT_OOM] > 0);
	/* the grids reach every verdict, each place a plan runs out of memory
	 * but NVMe, and the checkpoint's peak */
	CHECK(seen[PLAN_VERDICT_FITS] > 0 && seen[PLAN_VERDICT_TIGHT] > 0 &&
	      seen[PLAN_VERDICT_OOM] > 0);
	CHECK(seen_oom[PLAN_OOM_GPU] > 0 && seen_oom[PLAN_OOM_OTHER_GPU] > 0 &&
	      seen_oom[PLAN_OOM_HOST] > 0 && seen_save > 0);
	free(r);
	return check_done();
}
