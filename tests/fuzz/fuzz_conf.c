/* fuzz_conf.c - libFuzzer target over the configuration loader.
 *
 * Each input is taken as the text of one .ini file. It goes through
 * conf_load_string (includes resolve from a directory that does not exist, so
 * every include fails cleanly), then, if it loads, through conf_resolved_text
 * and conf_read with a key table that covers every conf_type. The same text is
 * then loaded as a whole scenario by plan_scenario_load_string with base dir
 * "." (run from the source root: includes may open real shipped files, which
 * is read-only), which reads every section and runs the plan checks.
 *
 * Built with -fsanitize=fuzzer,address,undefined under clang (option `fuzz`);
 * tests/fuzz/replay.c drives the same function over the checked-in corpus as
 * an ordinary test under any compiler.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_cfg {
	int layers;
	double ratio;
	double bw;
	double hbm;
	double latency;
	bool flag;
	int schedule;
	char name[CONF_STR_MAX];
} fuzz_cfg;

static const char *const fuzz_schedules[] = {"1f1b", "gpipe", "interleaved", NULL};

#define K(f) offsetof(fuzz_cfg, f)
static const conf_key fuzz_keys[] = {
	{"layers", CONF_INT, SIM_UNIT_NONE, 1, 1000, "12", NULL, K(layers), "int"},
	{"ratio", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0.5", NULL, K(ratio), "real"},
	{"bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 0, 1e15, "25 GB/s", NULL, K(bw), "bandwidth"},
	{"hbm", CONF_QTY, SIM_UNIT_BYTES, 1, 1e15, NULL, NULL, K(hbm), "bytes, required"},
	{"latency", CONF_QTY, SIM_UNIT_TIME, 0, 1, "130 ns", NULL, K(latency), "time"},
	{"flag", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, K(flag), "bool"},
	{"schedule", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "1f1b", fuzz_schedules, K(schedule), "enum"},
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, "x", NULL, K(name), "string"},
};
#undef K
static const size_t fuzz_nkeys = sizeof fuzz_keys / sizeof fuzz_keys[0];

/* The sections the key table is tried on: a made-up one, shipped ones (whose
 * real keys then count as unknown, exercising did-you-mean) and the first
 * section of the document itself. */
static const char *const fuzz_sections[] = {"fuzz", "parallel", "gpu", "model", NULL};

static void fuzz_read_doc(const conf_doc *doc, sim_diag *diag)
{
	char *text = conf_resolved_text(doc);
	free(text);

	fuzz_cfg cfg;
	for (size_t i = 0; fuzz_sections[i]; i++) {
		memset(&cfg, 0, sizeof cfg);
		(void)conf_read(doc, fuzz_sections[i], fuzz_keys, fuzz_nkeys, &cfg, i % 2 == 0, diag);
	}
	size_t nsec = conf_section_count(doc);
	for (size_t s = 0; s < nsec && s < 4; s++) {
		const char *sec = conf_section_name(doc, s);
		memset(&cfg, 0, sizeof cfg);
		(void)conf_read(doc, sec, fuzz_keys, fuzz_nkeys, &cfg, false, diag);
		size_t nkey = conf_key_count(doc, s);
		for (size_t k = 0; k < nkey; k++) {
			conf_loc loc;
			(void)conf_get(doc, sec, conf_key_name(doc, s, k), &loc);
		}
	}
	static const char *const known[] = {"scenario", "model", "gpu", "cluster", "parallel",
					    "train", NULL};
	(void)conf_check_sections(doc, known, diag);
	for (size_t i = 0; i < sim_diag_count(diag); i++)
		(void)sim_diag_text(diag, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sim_diag *diag = sim_diag_new();
	if (!diag)
		return 0;

	conf_doc *doc = NULL;
	if (conf_load_string((const char *)data, size, "<fuzz>", "tests/fuzz/nonexistent", diag,
			     &doc) == SIM_OK && doc) {
		fuzz_read_doc(doc, diag);
		conf_free(doc);
	}
	sim_diag_clear(diag);

	/* plan_scenario_load_string takes NUL-terminated text. */
	char *text = malloc(size + 1);
	if (text) {
		if (size)
			memcpy(text, data, size);
		text[size] = '\0';
		plan_scenario *sc = NULL;
		if (plan_scenario_load_string(text, "<fuzz>", ".", diag, &sc) == SIM_OK && sc)
			plan_scenario_free(sc);
		free(text);
	}
	sim_diag_free(diag);
	return 0;
}
