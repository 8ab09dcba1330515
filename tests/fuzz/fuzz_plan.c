/* fuzz_plan.c - libFuzzer target that goes past the loaders: a scenario is
 * built into its task graph and replayed.
 *
 * Each input is configuration text appended to "include = scenarios/
 * quickstart.ini" (so its keys override a scenario that runs: GPT 1.7B on two
 * DGX A100), loaded with plan_scenario_load_string from the source root, and,
 * when it loads and its plan passes the checks, run by exec_run: plan_build
 * (task graph, memory, collectives on the flow model or alpha-beta) and the
 * replay. The sizes are bounded before the build so one input stays within
 * libFuzzer's timeout: at most 64 nodes, and micro-batches x model chunks x
 * layers at most 20,000 (the graph's tasks grow with that product; the
 * quickstart has 32 x 1 x 24). Past the bounds the input is only loaded.
 *
 * What must hold: no crash, no sanitizer report, and a run either succeeds
 * with a finite, positive step or fails with a status (SIM_ERANGE past the
 * clock carries its message); a failure of those is an abort, which the fuzzer
 * and the corpus replay report.
 *
 * Built with -fsanitize=fuzzer,address,undefined under clang (option `fuzz`);
 * tests/fuzz/replay.c drives it over tests/fuzz/corpus/plan as an ordinary
 * test under any compiler.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_NODES 64
#define FUZZ_MAX_WORK 20000.0 /* micro-batches x chunks x layers */

static const char fuzz_base[] = "include = scenarios/quickstart.ini\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(sizeof fuzz_base + size);
	sim_diag *diag = sim_diag_new();
	if (!text || !diag) {
		free(text);
		sim_diag_free(diag);
		return 0;
	}
	memcpy(text, fuzz_base, sizeof fuzz_base - 1);
	if (size)
		memcpy(text + sizeof fuzz_base - 1, data, size);
	text[sizeof fuzz_base - 1 + size] = '\0';
	plan_scenario *s = NULL;
	if (plan_scenario_load_string(text, "<fuzz>", ".", diag, &s) == SIM_OK && s) {
		double work = (double)plan_microbatches(&s->plan) * s->plan.vpp * s->model.layers;
		if (s->cluster.nodes <= FUZZ_MAX_NODES && work <= FUZZ_MAX_WORK) {
			exec_result *r = malloc(sizeof *r);
			if (r) {
				int rc = exec_run(s, r);
				if (rc == SIM_OK && !(isfinite(r->step_s) && r->step_s > 0))
					abort(); /* a stored wrong answer */
				if (rc == SIM_ERANGE && !r->error[0])
					abort(); /* past the clock without saying why */
				free(r);
			}
		}
		plan_scenario_free(s);
	}
	free(text);
	sim_diag_free(diag);
	return 0;
}
