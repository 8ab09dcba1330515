/* file.c - sweep files: one [sweep] section naming the base scenario and the
 * dimensions (format in sweep.h). Read through a conf key table, so unknown
 * keys get did-you-mean notes and every error has its file:line. */
#include "sweep_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dimensions a sweep file can name, in table order: key, SECTION.KEY it
 * sets, help. One list makes both tables below (their entries must be
 * constant expressions: an element of a const array is not one in C, which
 * clang refuses). */
#define SWEEP_DIMS(X)                                                                              \
	X(nodes, "cluster.nodes", "values of cluster.nodes, e.g. 2,4,8")                           \
	X(precision, "train.precision", "values of train.precision")                               \
	X(tp, "parallel.tp", "values of parallel.tp, or auto")                                     \
	X(pp, "parallel.pp", "values of parallel.pp, or auto")                                     \
	X(dp, "parallel.dp", "values of parallel.dp (default: derived, GPUs / (tp*pp*cp))")        \
	X(cp, "parallel.cp", "values of parallel.cp")                                              \
	X(vpp, "parallel.vpp", "values of parallel.vpp, or auto")                                  \
	X(micro_batch, "parallel.micro_batch", "values of parallel.micro_batch, or auto")          \
	X(global_batch, "parallel.global_batch", "values of parallel.global_batch")                \
	X(schedule, "parallel.schedule", "values of parallel.schedule, or auto")                   \
	X(recompute, "parallel.recompute", "values of parallel.recompute, or auto")                \
	X(sequence_parallel, "parallel.sequence_parallel",                                         \
	  "values of parallel.sequence_parallel, or auto")                                         \
	X(zero, "parallel.zero", "values of parallel.zero, or auto")                               \
	X(overlap_grad_reduce, "parallel.overlap_grad_reduce",                                     \
	  "values of parallel.overlap_grad_reduce, or auto")                                       \
	X(bucket_size, "parallel.bucket_size", "values of parallel.bucket_size")                   \
	X(topology, "topology",                                                                    \
	  "topology files replacing the scenario's cluster include, relative to this file (dp "    \
	  "derived per topology)")                                                                 \
	X(ep, "parallel.ep", "values of parallel.ep, or auto (divisors of the experts)")           \
	X(offload_optimizer, "parallel.offload_optimizer",                                         \
	  "values of parallel.offload_optimizer, or auto")                                         \
	X(order, "parallel.order", "values of parallel.order (tp-cp-dp-pp ...), or auto (all 24)") \
	X(shard_size, "parallel.shard_size", "values of parallel.shard_size, or auto")             \
	X(tp_comm_overlap, "parallel.tp_comm_overlap",                                             \
	  "values of parallel.tp_comm_overlap, or auto")                                           \
	X(overlap_param_gather, "parallel.overlap_param_gather",                                   \
	  "values of parallel.overlap_param_gather, or auto")                                      \
	X(offload_params, "parallel.offload_params", "values of parallel.offload_params, or auto") \
	X(moe_a2a_overlap, "parallel.moe_a2a_overlap",                                             \
	  "values of parallel.moe_a2a_overlap, or auto")                                           \
	X(delay_wgrad_compute, "parallel.delay_wgrad_compute",                                     \
	  "values of parallel.delay_wgrad_compute, or auto")                                       \
	X(recompute_layers, "parallel.recompute_layers",                                           \
	  "values of parallel.recompute_layers (layers per chunk recompute = full re-runs; 0 = "   \
	  "all)")                                                                                  \
	X(zero_hpz, "parallel.zero_hpz",                                                           \
	  "values of parallel.zero_hpz (ZeRO++ hpZ's secondary group; 1 = off)")                   \
	X(zero_quantized_weights, "parallel.zero_quantized_weights",                               \
	  "values of parallel.zero_quantized_weights, or auto")                                    \
	X(zero_quantized_gradients, "parallel.zero_quantized_gradients",                           \
	  "values of parallel.zero_quantized_gradients, or auto")

/* clang-format off */
enum sweep_dim_key {
#define X(key, target, help) DIM_##key,
	SWEEP_DIMS(X)
#undef X
	NDIMKEYS
};

static const char *const dim_keys[][2] = {
#define X(key, target, help) {#key, target},
	SWEEP_DIMS(X)
#undef X
};

typedef struct sweep_raw {
	char scenario[CONF_STR_MAX];
	int top;
	char dim[NDIMKEYS][CONF_STR_MAX];
} sweep_raw;

const conf_key sweep_keys[] = {
	{"scenario", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(sweep_raw, scenario),
	 "base scenario file, relative to the sweep file"},
	{"top", CONF_INT, SIM_UNIT_NONE, 0, 100000, "0", NULL, offsetof(sweep_raw, top),
	 "plans to simulate after the pre-screen (0 = --top or 32)"},
#define X(key, target, help)                                                                       \
	{#key, CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL,                                            \
	 offsetof(sweep_raw, dim) + DIM_##key * CONF_STR_MAX, help},
	SWEEP_DIMS(X)
#undef X
};
/* clang-format on */
const size_t sweep_nkeys = sizeof sweep_keys / sizeof sweep_keys[0];

_Static_assert(sizeof sweep_keys / sizeof sweep_keys[0] == NDIMKEYS + 2,
               "one [sweep] key per dimension key");

/* scenario relative to the sweep file's folder (absolute paths kept). */
static int resolve_path(const char *sweep_path, const char *rel, char *out, size_t len)
{
	const char *slash = strrchr(sweep_path, '/');
	int n = rel[0] == '/' || !slash
	                ? snprintf(out, len, "%s", rel)
	                : snprintf(out, len, "%.*s/%s", (int)(slash - sweep_path), sweep_path, rel);
	return n > 0 && (size_t)n < len ? SIM_OK : SIM_ECONF;
}

static int add_dims(const conf_doc *doc, const sweep_raw *raw, const char *path, sweep_space *sp,
                    sim_diag *diag)
{
	int rc = SIM_OK;
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	for (size_t i = 0; i < NDIMKEYS; i++) {
		if (!raw->dim[i][0])
			continue;
		char spec[SWEEP_KEY_MAX + CONF_STR_MAX + 2];
		snprintf(spec, sizeof spec, "%s=%s", dim_keys[i][1], raw->dim[i]);
		conf_loc loc = conf_key_loc(doc, "sweep", dim_keys[i][0]);
		if (sweep_space_add_in(sp, spec, dir, loc.path, loc.line, diag) != SIM_OK)
			rc = SIM_ECONF;
	}
	return rc;
}

int sweep_file_load(const char *path, sweep_space *sp, sweep_file *f, bool *is_sweep,
                    sim_diag *diag)
{
	static const char *const known[] = {"sweep", NULL};
	*is_sweep = false;
	memset(f, 0, sizeof *f);
	conf_doc *doc;
	int rc = conf_load(path, diag, &doc);
	if (rc != SIM_OK)
		return rc;
	if (!conf_has_section(doc, "sweep")) {
		conf_free(doc);
		return SIM_OK;
	}
	*is_sweep = true;
	sweep_raw *raw = calloc(1, sizeof *raw);
	if (!raw) {
		conf_free(doc);
		return SIM_ENOMEM;
	}
	if (conf_check_sections(doc, known, diag) > 0)
		rc = SIM_ECONF;
	if (conf_read(doc, "sweep", sweep_keys, sweep_nkeys, raw, false, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (rc == SIM_OK && resolve_path(path, raw->scenario, f->scenario, sizeof f->scenario)) {
		conf_loc loc = conf_key_loc(doc, "sweep", "scenario");
		sim_diag_error(diag, loc.path, loc.line, "[sweep] scenario: path too long");
		rc = SIM_ECONF;
	}
	if (rc == SIM_OK) {
		/* A missing base scenario is the sweep file's error, at its line. */
		FILE *probe;
		int err = sim_input_open(f->scenario, SIM_INPUT_MAX, &probe, NULL);
		if (err) {
			conf_loc loc = conf_key_loc(doc, "sweep", "scenario");
			sim_diag_error(diag, loc.path, loc.line,
			               "[sweep] scenario: cannot open '%s': %s", f->scenario,
			               sim_input_strerror(err));
			rc = SIM_ECONF;
		} else {
			fclose(probe);
		}
	}
	if (rc == SIM_OK) {
		f->top = raw->top;
		rc = add_dims(doc, raw, path, sp, diag);
	}
	free(raw);
	conf_free(doc);
	return rc;
}
