/* runs.c - a measured training run (a calibration.csv row) as a podsim scenario.
 *
 * The row's columns become configuration text that includes shipped data:
 *   include = topologies/nodes/<template>.ini  (chosen by node_intra and gpu)
 *   include = topologies/gpus/<gpu>.ini        (the row's GPU type)
 * then [model], [node] (gpus_per_node, nics_per_node, nic_gbps), [cluster]
 * (nodes = gpus / gpus_per_node), [parallel] and [train] from the row. The text
 * goes through the same loader and plan checks as a user's file, so a row that
 * needs a feature podsim does not simulate yet is skipped with the loader's
 * own message as the reason. The node a row runs on is node.c's
 * (valid_row_hardware); the plan columns it leaves open that only a run can
 * settle, tune.c's (valid_tuned_plan, valid_open_layout).
 *
 * Conventions for columns the schema leaves open (all stated in the reasons or
 * in README.md): activation = gelu when ffn == 4*hidden, else swiglu with
 * rmsnorm and untied embeddings (Llama-style); empty micro_batch: the fastest
 * that fits (tune.c's tuned_micro_batch); empty recompute = none and empty zero = 0,
 * unless the plan then does not fit: the fastest combination that fits
 * (valid_tuned_plan); empty vpp = 1 when pp == 1; a rule of the profile that the
 * framework lacks a feature the row used is set aside (valid_rule_waivers);
 * a note naming Megatron's
 * --overlap-param-gather or --overlap-grad-reduce sets overlap_grad_reduce
 * (Megatron refuses the first without the second), --overlap-param-gather
 * also overlap_param_gather with zero 1 or 2, and --tp-comm-overlap
 * tp_comm_overlap with sequence parallelism. Attention: flash, except for
 * rows whose source is vTrain, whose ground truth ran Megatron-DeepSpeed's
 * unfused attention (vTrain's profiles and its memory model keep the s x s
 * softmax tensors; assumption stated in README "Validation"). Every source ran
 * eager PyTorch: the framework key op_overhead's measured host cost per op
 * (plan/framework.c), overlapped with the GPU as plan/chain.c models it.
 */
#include "valid_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *fabric_name(const char *f)
{
	return !strcmp(f, "rail-optimized") ? "rail-optimized" : "fat-tree";
}

/* A column's value as the reader takes it: written loosely, the schema's
 * (valid_loose: "BF16" is bf16, "RoCE" roce-fat-tree). */
static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

/* Append "key = value" when the row's column is not empty. */
static void put(sim_buf *b, const cases_csv *c, size_t row, const char *key, const char *col)
{
	const char *v = get(c, row, col);
	if (*v)
		sim_buf_printf(b, "%s = %s\n", key, v);
}

/* A plan column of the row, else its recipe line's value (recipes.c): what
 * the source's run set, published in its table or in its scripts. */
const char *valid_plan_col(const cases_csv *c, size_t row, const valid_recipe *rec,
                           const char *col, char *buf, size_t len)
{
	const char *v = get(c, row, col);
	return *v ? v : valid_recipe_value(rec, col, buf, len);
}

/* Append one assumption to the row's list (valid_int.h). */
void valid_assume(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n && n + 2 < len)
		n += (size_t)snprintf(buf + n, len - n, "; ");
	va_list ap;
	va_start(ap, fmt);
	if (n < len)
		vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

void valid_plan_assumptions(const plan_scenario *s, char *buf, size_t len)
{
	char t[256];
	if (plan_layout_assumption(s, t, sizeof t))
		valid_assume(buf, len, "%s", t);
	if (plan_vocab_assumption(s, t, sizeof t))
		valid_assume(buf, len, "%s", t);
	if (plan_vp_group_assumption(s, t, sizeof t))
		valid_assume(buf, len, "%s", t);
	if (plan_sp_assumption(s, t, sizeof t))
		valid_assume(buf, len, "%s", t);
	if (plan_zero_assumption(s, t, sizeof t))
		valid_assume(buf, len, "%s", t);
}

/* The assumptions as comments, one per line (valid_int.h). */
void valid_put_assumed(sim_buf *out, const char *assumed)
{
	for (const char *p = assumed; *p;) {
		size_t n = strcspn(p, ";");
		sim_buf_printf(out, "; assumed: %.*s\n", (int)n, p);
		p += n;
		while (*p == ';' || *p == ' ')
			p++;
	}
}

/* The interleaving depth of a row that ran an interleaved schedule of unknown
 * depth: NVIDIA's published recipes (the NeMo and Megatron-Bridge rows of
 * calibration.csv: GPT-3 175B pp 8 vpp 6, Llama 3.1 405B pp 8 vpp 8, Llama 2
 * 70B pp 4 vpp 20, Llama 3 70B pp 4 vpp 5) hold 1 to 4 layers per model
 * chunk, 2 in the median; so the default is the largest vpp that divides
 * each stage's layers into chunks of at least 2 and keeps the micro-batch
 * count a multiple of pp (Megatron's interleaving rule). A stage whose layer
 * count has no such divisor (a prime: 92 layers on pp 4 hold 23, 112 on
 * pp 16 hold 7) still ran interleaved: one layer per chunk, the low end of
 * the recipes' range (Megatron's --num-layers-per-virtual-pipeline-stage 1;
 * the split must be even, so 23 layers admit only vpp 1 or 23). Without an
 * interleaving the micro-batch count allows, 1.
 * Layers that do not split evenly over pp (126 on 16, 70 on 12), under a
 * framework that splits them with the embedding and the loss counted as a
 * layer each (`uneven`: [framework] uneven_split = end-stages, plan_layout),
 * interleave the same way over those L + 2 units when they divide: the
 * Llama 3.1 405B recipe's pp 8 vpp 8 holds (126 + 2) / 64 = 2 units per
 * chunk; 126 layers on 16 stages get vpp 4, 70 on 12 vpp 3. The
 * multi-token-prediction modules count as a unit each too, as plan_layout
 * places them beside the loss (`mtp`): DeepSeek-V3's 61 layers and one MTP
 * module on pp 8 are 64 units, vpp 4 of 2 units a chunk, Megatron-Bridge's
 * H100 layout Et|(tt|)*30mL (scripts/performance/run_script.py:71 at
 * 9a5e7986, recipes.csv). */
static long default_vpp(long layers, long mtp, long pp, long microbatches, bool uneven)
{
	if (pp > 1 && layers % pp && uneven && (layers + 2 + mtp) % pp == 0)
		layers += 2 + mtp;
	if (pp <= 1 || layers % pp)
		return 1;
	long per = layers / pp, best = 1;
	for (long v = 2; v <= per / 2; v++)
		if (per % v == 0 && per / v >= 2 && microbatches % pp == 0)
			best = v;
	if (best == 1 && per >= 2 && microbatches % pp == 0)
		best = per;
	return best;
}

/* topologies/frameworks/<profile>.ini loaded with its includes, or NULL. */
static conf_doc *profile_doc(const valid_options *opt, const char *profile)
{
	if (!opt || !opt->datadir)
		return NULL;
	char path[1200];
	snprintf(path, sizeof path, "%s/topologies/frameworks/%s.ini", opt->datadir, profile);
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	if (!d || conf_load(path, d, &doc) != SIM_OK) {
		conf_free(doc);
		doc = NULL;
	}
	sim_diag_free(d);
	return doc;
}

/* The framework profile as plan reads it (its includes and the keys'
 * defaults); false when it does not load (the scenario's loader then names
 * the error). */
bool valid_load_profile(const valid_options *opt, const char *profile, plan_framework *fw)
{
	conf_doc *doc = profile_doc(opt, profile);
	sim_diag *d = sim_diag_new();
	bool ok = doc && d && plan_framework_from_conf(doc, fw, d) == SIM_OK;
	conf_free(doc);
	sim_diag_free(d);
	return ok;
}

int valid_open_zero_stage(const valid_options *opt, const char *profile, long pp, long dp_cp)
{
	plan_framework pf;
	return profile && valid_load_profile(opt, profile, &pf) ? plan_zero_default(&pf, (int)pp, dp_cp)
	                                                   : 0;
}

void valid_open_zero(sim_buf *b, const valid_options *opt, const char *profile, long pp,
                     long dp_cp, char *assumed, size_t alen)
{
	plan_framework pf;
	if (!profile || !valid_load_profile(opt, profile, &pf) || pf.zero_default <= 0) {
		valid_assume(assumed, alen, "zero 0 (not published)");
		return;
	}
	char t[160];
	int z = plan_zero_default_text(&pf, (int)pp, dp_cp, t, sizeof t);
	sim_buf_printf(b, "zero = %d\n", z);
	valid_assume(assumed, alen, "zero %d (not published: %s)", z, t);
}

/* Whether the profile's MoE layer is DeepSpeed-MoE's ([parallel]
 * moe_dispatcher = gshard: megatron-deepspeed.ini and the profiles that
 * include it; work/layer.c "DeepSpeed-MoE"). */
static bool profile_gshard(const valid_options *opt, const char *profile)
{
	conf_doc *doc = profile_doc(opt, profile);
	const char *v = doc ? conf_get(doc, "parallel", "moe_dispatcher", NULL) : NULL;
	bool gshard = v && !strcmp(v, "gshard");
	conf_free(doc);
	return gshard;
}

/* [model] key `key` of models/<name>.ini (valid_ini_key). */
static const char *file_key(const char *datadir, const char *name, const char *key, char *out,
                            size_t len)
{
	return valid_ini_key(datadir, "models", name, "model", key, out, len);
}

const char *valid_model_file_key(const char *datadir, const char *model, const char *key,
                                 char *out, size_t len)
{
	char name[64], src[8];
	*out = 0;
	if (valid_model_file(model, datadir, name, sizeof name, src, sizeof src))
		file_key(datadir, name, key, out, len);
	return out;
}

/* The layers of models/<name>.ini (0 where it does not say). */
static long file_layers(const char *datadir, const char *name)
{
	char v[32];
	return atol(file_key(datadir, name, "layers", v, sizeof v));
}

/* A SwiGLU (Llama-family) row whose model ties its output layer to the
 * word embedding (Llama 3.2 1B and 3B: tie_word_embeddings): its model
 * file says so where the row's name names one (untied_embeddings = false,
 * models/llama3.2-1b.ini), else its note ("tied embeddings"); said. The
 * family's default is untied (Llama 2 and 3, Mistral). */
static bool row_tied(const cases_csv *c, size_t row, const valid_options *opt, char *assumed,
                     size_t alen)
{
	char mname[64], msrc[200], v[16];
	const char *note = get(c, row, "note");
	if (opt && valid_model_file(get(c, row, "model"), opt->datadir, mname, sizeof mname, msrc,
	                            sizeof msrc)) {
		bool tied = !strcmp(file_key(opt->datadir, mname, "untied_embeddings", v, sizeof v),
		                    "false");
		if (tied)
			valid_assume(assumed, alen, "tied embeddings (models/%s.ini)", mname);
		return tied;
	}
	const char *t = strstr(note, "tied embeddings");
	if (t && !(t >= note + 2 && !strncmp(t - 2, "un", 2))) {
		valid_assume(assumed, alen, "tied embeddings (the row's note)");
		return true;
	}
	return false;
}

/* Whether the framework profile's own "selective" checkpointing is whole
 * layers, not Megatron's per-module recomputation: its [framework]
 * selective_means_layers (fms-fsdp.ini). A profile that merely has no
 * selective recomputation (Megatron-LM before 2022) reads a row's
 * "selective" as the row says; its rule is then set aside (valid_rule_waivers). */
static bool selective_is_layers(const valid_options *opt, const char *profile)
{
	plan_framework fw;
	return valid_load_profile(opt, profile, &fw) && fw.selective_means_layers;
}

/* The data-parallel degree of a row: its dp column, or where the source
 * printed only the GPU count and the model-parallel degrees (MLPerf's and
 * NeMo's tables, most papers), the one that fills the GPUs,
 *   dp = gpus / (tp pp cp)   (the schema's tp pp dp cp = gpus);
 * 0 when neither gives one (the loader then names the mismatch). */
long valid_row_dp(const cases_csv *c, size_t row)
{
	const char *col = cases_csv_get(c, row, cases_csv_col(c, "dp"));
	if (*col)
		return atol(col);
	long gpus = atol(cases_csv_get(c, row, cases_csv_col(c, "gpus")));
	long mp = 1;
	static const char *const deg[] = {"tp", "pp", "cp"};
	for (int i = 0; i < 3; i++) {
		int k = cases_csv_col(c, deg[i]);
		const char *v = k >= 0 ? cases_csv_get(c, row, k) : "";
		mp *= *v && atol(v) > 0 ? atol(v) : 1;
	}
	return gpus > 0 && gpus % mp == 0 ? gpus / mp : 0;
}

/* A figure "NAME 0.59" of the note (the first), or -1. */
static double note_figure(const char *note, const char *name)
{
	const char *p = strstr(note, name);
	return p ? atof(p + strlen(name)) : -1;
}

/* The layer checkpointing of a row whose "selective" is whole layers
 * (selective_is_layers): fms-fsdp checkpoints every x-th block
 * (every_xth_item; fms-fsdp.ini), a fraction p = 1/x of the layers, which
 * re-run their forward: 2P of the 6P per token a layer's parameters cost,
 * so the row's published hardware and model FLOPs utilisation give
 *   HFU / MFU = (6 + 2p) / 6,   p = 3 (HFU / MFU - 1)
 * (the embedding and output layer, 1 % of a 13B model's FLOPs, left out).
 * Two-digit figures are rounded by up to 0.005 each, so p lies in
 * [3 ((H - .005) / (M + .005) - 1), 3 ((H + .005) / (M - .005) - 1)]; x is
 * the integer whose 1/x lies there, the nearest to 1/p (P03: 0.59 / 0.51,
 * p = 0.47 in 0.41-0.53, x = 2; P04: 0.40 / 0.35, p = 0.43 in 0.34-0.52,
 * x = 2; 1/3 lies outside both). Without both figures, or no such x, the
 * framework's default x = 1 (every block). Writes the keys and the
 * assumption. */
static void layer_checkpointing(sim_buf *b, const cases_csv *c, size_t row, long nlayers,
                                char *assumed, size_t alen)
{
	const char *note = get(c, row, "note");
	double m = note_figure(note, "MFU "), h = note_figure(note, "HFU ");
	long x = 1;
	char why[160] = "x = 1, the profile's default (fms-fsdp's every_xth_item): every block";
	if (m > 0.005 && h > 0) {
		double p = 3.0 * (h / m - 1.0), lo = 3.0 * ((h - 0.005) / (m + 0.005) - 1.0),
		       hi = 3.0 * ((h + 0.005) / (m - 0.005) - 1.0);
		long k = p > 0 ? lround(1.0 / p) : 0;
		if (k >= 1 && 1.0 / (double)k >= lo && 1.0 / (double)k <= hi) {
			x = k;
			snprintf(why, sizeof why,
			         "x = %ld: p = 3 (HFU/MFU - 1) = 3 (%.2f/%.2f - 1) = %.2f, %.2f-%.2f "
			         "with their rounding, holds 1/%ld",
			         x, h, m, p, lo, hi, x);
		} else
			snprintf(why, sizeof why,
			         "x = 1: p = 3 (HFU/MFU - 1) = %.2f is no 1/x, the profile's default", p);
	}
	long pp = atol(get(c, row, "pp")), vpp = atol(get(c, row, "vpp"));
	long chunk = nlayers / ((pp > 0 ? pp : 1) * (vpp > 0 ? vpp : 1));
	long n = x > 1 && chunk / x > 0 ? chunk / x : chunk;
	sim_buf_printf(b, "recompute = full\n");
	if (n < chunk)
		sim_buf_printf(b, "recompute_layers = %ld\nrecompute_method = spread\n", n);
	valid_assume(assumed, alen,
	             "recompute 'selective' is the profile's layer checkpointing "
	             "(selective_means_layers): full recompute of %ld of %ld layers per "
	             "chunk, every x-th",
	             n, chunk);
	valid_assume(assumed, alen, "%s", why);
}

/* An open cp beside published tp, pp and dp that leave GPUs over: the
 * context parallelism that fills them (tp pp dp cp = gpus); 0 where the
 * column is written or nothing is left over (with tp or pp open too the
 * GPUs left over are theirs as much as cp's: the loader names the
 * mismatch). */
static long open_cp(const cases_csv *c, size_t row)
{
	long gpus = atol(get(c, row, "gpus")), tpv = atol(get(c, row, "tp")),
	     ppv = atol(get(c, row, "pp")), dpv = atol(get(c, row, "dp"));
	tpv = tpv > 0 ? tpv : 1, ppv = ppv > 0 ? ppv : 1;
	if (!*get(c, row, "cp") && *get(c, row, "tp") && *get(c, row, "pp") && dpv > 0 &&
	    gpus % (tpv * ppv * dpv) == 0 && gpus / (tpv * ppv * dpv) > 1)
		return gpus / (tpv * ppv * dpv);
	return 0;
}

/* The column (tp's or pp's) a row leaves open beside the other degree and
 * a written dp, and into *fill the degree that fills its GPUs, gpus / (the
 * other dp cp), where that is whole; -1 otherwise. The other degree counts
 * whether written or filled by a recipe line, the open one's cell is the
 * filled value's once filled (so the reader says it again). */
int valid_filled_degree(const cases_csv *c, size_t row, long *fill)
{
	int kt = cases_csv_col(c, "tp"), kp = cases_csv_col(c, "pp"), kd = cases_csv_col(c, "dp");
	if (kt < 0 || kp < 0 || kd < 0 || !*cases_csv_written(c, row, kd))
		return -1;
	bool ot = !*cases_csv_written(c, row, kt), op = !*cases_csv_written(c, row, kp);
	int k = ot && !op ? kt : op && !ot ? kp : -1;
	int other = k == kt ? kp : kt;
	long gpus = atol(get(c, row, "gpus")), cp = atol(get(c, row, "cp")),
	     o = atol(cases_csv_get(c, row, other)), dp = atol(cases_csv_get(c, row, kd));
	cp = cp > 0 ? cp : 1;
	if (k < 0 || gpus <= 0 || o <= 0 || dp <= 0 || gpus % (o * dp * cp) != 0)
		return -1;
	const char *now = cases_csv_get(c, row, k);
	if (*now && atol(now) != gpus / (o * dp * cp))
		return -1; /* a recipe's or another reading's */
	*fill = gpus / (o * dp * cp);
	return k;
}

/* The plan columns valid_tuned_plan settled (sequence parallelism, the ZeRO
 * stage, the recomputation and its layers) written into the row's
 * [parallel] section, and the sentence that says what was open, the
 * defaults tried first and the choices ranked. */
static void put_tuned(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                      const char *profile, const valid_tune *tune, bool tuned_sp, bool moe_tp,
                      long ppz, long dp_cp, char *assumed, size_t alen)
{
	char what[96] = "";
	if (tuned_sp) {
		sim_buf_printf(b, "sequence_parallel = true\n");
		snprintf(what, sizeof what, "sequence_parallel 1");
	}
	if (tune->zero >= 0) {
		sim_buf_printf(b, "zero = %d\n", tune->zero);
		snprintf(what + strlen(what), sizeof what - strlen(what), "%szero %d",
		         *what ? ", " : "", tune->zero);
	}
	if (tune->recompute) {
		sim_buf_printf(b, "recompute = %s\n", tune->recompute);
		snprintf(what + strlen(what), sizeof what - strlen(what), "%srecompute %s",
		         *what ? ", " : "", tune->recompute);
	}
	if (tune->rc_layers > 0) {
		sim_buf_printf(b, "recompute_layers = %d\n", tune->rc_layers);
		snprintf(what + strlen(what), sizeof what - strlen(what),
		         " of %d layer%s a chunk", tune->rc_layers,
		         tune->rc_layers == 1 ? "" : "s");
	}
	/* what was open, for the sentence: the defaults it tried first
	 * and the choices it ranked */
	bool oz = !*get(c, row, "zero"), orc = !*get(c, row, "recompute"),
	     osp = tune->sp_open && !moe_tp;
	char with[96] = "", of[128] = "", z0[16];
	snprintf(z0, sizeof z0, "zero %d",
	         oz ? valid_open_zero_stage(opt, profile, ppz, dp_cp) : 0);
	const char *dflt[] = {osp ? "sequence_parallel 0" : NULL, oz ? z0 : NULL,
	                      orc ? "recompute none" : NULL};
	const char *kinds[] = {osp ? "sequence parallelism" : NULL,
	                       oz ? "ZeRO stages" : NULL, orc ? "recomputations" : NULL};
	for (int k = 0; k < 3; k++) {
		if (dflt[k])
			snprintf(with + strlen(with), sizeof with - strlen(with), "%s%s",
			         *with ? " and " : "", dflt[k]);
		if (kinds[k])
			snprintf(of + strlen(of), sizeof of - strlen(of), "%s%s",
			         *of ? " and " : "", kinds[k]);
	}
	if (tune->for_speed)
		valid_assume(assumed, alen,
		             "%s (not published: of the %s the framework runs, the fastest "
		             "that fits with the micro-batch tuned at each, as a tuned "
		             "benchmark ran)",
		             what, of);
	else
		valid_assume(assumed, alen,
		             "%s (not published: the run completed, so it fitted; with %s it "
		             "does not, and this is the fastest that fits of the %s the "
		             "framework runs)",
		             what, with, of);
}

/* A row offloading to the CPU or NVMe (ZeRO-Offload, ZeRO-Infinity) and a
 * zero cell naming ZeRO++: the [parallel] keys DeepSpeed's documentation
 * runs them with, said. */
static void put_offload(sim_buf *b, const cases_csv *c, size_t row, long dp, char *assumed,
                        size_t alen)
{
	const char *off = get(c, row, "offload");
	bool cpu = !strcmp(off, "cpu"), nvme = !strcmp(off, "nvme");
	/* offload: ZeRO-Offload (cpu: the optimizer states and their step on
	 * the host) or ZeRO-Infinity (nvme: the states on NVMe, and under
	 * ZeRO-3 the parameters too, as the ZeRO-Infinity paper runs it); the
	 * schema does not say which tensors, so the documented default is said */
	if (cpu || nvme) {
		/* an open ZeRO stage: the lowest DeepSpeed offloads at, as its
		 * documentation configures it: ZeRO-Offload's tutorial runs stage 2
		 * (docs/_tutorials/zero-offload.md:46), NVMe offloading "is available
		 * only with ZeRO stage 3" (docs/_pages/config-json.md:688; both at
		 * deepspeedai/DeepSpeed edaa72212) */
		int zero = atoi(get(c, row, "zero"));
		if (!*get(c, row, "zero")) {
			zero = nvme ? 3 : 2;
			sim_buf_printf(b, "zero = %d\n", zero);
			valid_assume(assumed, alen,
			             "zero %d (not published: DeepSpeed's stage for offload to %s)",
			             zero, off);
		}
		bool params = nvme && zero >= 3;
		sim_buf_printf(b, "offload_optimizer = %s\n", off);
		if (params)
			sim_buf_printf(b, "offload_params = nvme\n");
		valid_assume(assumed, alen,
		             "offload %s: the optimizer states and step on the %s%s", off,
		             cpu ? "CPU (ZeRO-Offload); parameters on the GPU" : "NVMe",
		             params ? ", the ZeRO-3 parameters on NVMe too (ZeRO-Infinity)"
		             : nvme ? "; parameters on the GPU" : "");
	}
	/* ZeRO++ (a zero cell "ZeRO++", read as stage 3): the three options
	 * as DeepSpeed's tutorial turns them on, hpZ's group the node's GPUs
	 * ("ideal is number of ranks (gpus) per node",
	 * docs/_tutorials/zeropp.md:27-29, 41-43 at microsoft/DeepSpeed
	 * 38327e07), at most the data-parallel ranks */
	if (valid_zeropp_text(cases_csv_written(c, row, cases_csv_col(c, "zero")))) {
		long gpn = atol(get(c, row, "gpus_per_node"));
		gpn = gpn > 0 ? gpn : 8;
		gpn = dp > 0 && dp < gpn ? dp : gpn;
		sim_buf_printf(b, "zero_hpz = %ld\nzero_quantized_weights = true\n"
		                  "zero_quantized_gradients = true\n", gpn);
		valid_assume(assumed, alen,
		             "ZeRO++ read as hpZ over %ld GPUs (a node's), qwZ and qgZ: DeepSpeed's "
		             "tutorial configuration", gpn);
	}
}

/* The [parallel] keys of the row's open plan columns: the plan keys' own
 * defaults (recompute none, no sequence parallelism unless the framework's
 * default runs it, sp_default: plan_derive says so) said, the ZeRO stage
 * the framework runs by default (valid_open_zero), dp from the GPUs,
 * sequence parallelism for MoE under TP (the experts: the row's column or
 * its model file's), and the offload with its ZeRO stage. */
static void put_open_plan(sim_buf *b, const cases_csv *c, size_t row, bool layers, long dp,
                          long experts, bool gshard, bool sp_default,
                          const valid_options *opt, const char *profile,
                          const valid_recipe *rec, const valid_tune *tune, char *assumed,
                          size_t alen)
{
	char rsp[16];
	const char *off = get(c, row, "offload");
	bool cpu = !strcmp(off, "cpu"), nvme = !strcmp(off, "nvme");
	long tp = atol(get(c, row, "tp"));
	bool moe_tp = experts > 1 && tp > 1 && !*get(c, row, "sequence_parallel");
	bool tuned_sp = tune->sp && !moe_tp;
	/* the stage an open zero column takes: the framework's default */
	long ppz = atol(valid_plan_col(c, row, rec, "pp", rsp, sizeof rsp)),
	     cpz = *get(c, row, "cp") ? atol(get(c, row, "cp")) : open_cp(c, row);
	ppz = ppz > 0 ? ppz : 1, cpz = cpz > 0 ? cpz : 1;
	if (tune->zero >= 0 || tune->recompute || tuned_sp)
		put_tuned(b, c, row, opt, profile, tune, tuned_sp, moe_tp, ppz, dp * cpz, assumed,
		          alen);
	if (!*get(c, row, "zero") && !cpu && !nvme && tune->zero < 0 &&
	    !*valid_recipe_value(rec, "zero", rsp, sizeof rsp))
		valid_open_zero(b, opt, profile, ppz, dp * cpz, assumed, alen);
	if (!*get(c, row, "recompute") && !layers && !tune->recompute &&
	    !*valid_recipe_value(rec, "recompute", rsp, sizeof rsp))
		valid_assume(assumed, alen, "recompute none (not published)");
	if (!*get(c, row, "sequence_parallel") && tp > 1 && experts <= 1 && !tuned_sp &&
	    !sp_default && !*valid_recipe_value(rec, "sequence_parallel", rsp, sizeof rsp))
		valid_assume(assumed, alen, "sequence_parallel 0 (not published)");
	/* open tp and pp: 1, the plan keys' defaults (valid_row_dp divides the GPUs
	 * by them so), said */
	static const char *const deg[] = {"tp", "pp"};
	for (int i = 0; i < 2; i++)
		if (!*get(c, row, deg[i]) && !*valid_recipe_value(rec, deg[i], rsp, sizeof rsp))
			valid_assume(assumed, alen, "%s 1 (not published)", deg[i]);
	/* a layout valid_open_layout searched (its cells filled, their text
	 * as written empty) */
	int kt = cases_csv_col(c, "tp"), kp = cases_csv_col(c, "pp");
	bool from_rec = *valid_recipe_value(rec, "tp", rsp, sizeof rsp) ||
	                *valid_recipe_value(rec, "pp", rsp, sizeof rsp);
	long fill;
	int fk = valid_filled_degree(c, row, &fill);
	if (fk >= 0 && !from_rec)
		valid_assume(assumed, alen, "%s %ld (not published: gpus / (%s dp cp))",
		             fk == kt ? "tp" : "pp", fill, fk == kt ? "pp" : "tp");
	for (int i = 0; i < 2 && from_rec; i++) { /* valid_open_layout's from the recipe */
		int k = i ? kp : kt;
		if (k >= 0 && !*cases_csv_written(c, row, k) && *cases_csv_get(c, row, k))
			valid_assume(assumed, alen, "%s = %s (recipes.csv line %d)", deg[i],
			             cases_csv_get(c, row, k), rec->line);
	}
	if (!from_rec && fk < 0 && kt >= 0 && !*cases_csv_written(c, row, kt) && *get(c, row, "tp"))
		valid_assume(assumed, alen,
		             "tp %s, pp %s (not published; at tp 1, pp 1 it does not run or fit: "
		             "of tp 1-8 inside a node and pp 1-64 filling the GPUs, the fastest "
		             "layout that fits, as a tuned benchmark ran)",
		             get(c, row, "tp"), get(c, row, "pp"));
	if (!*get(c, row, "dp") && dp > 0) {
		sim_buf_printf(b, "dp = %ld\n", dp);
		valid_assume(assumed, alen, "dp %ld (not published: gpus / (tp pp cp))", dp);
	}
	/* an open cp that fills the GPUs left over, as dp above */
	long cp = open_cp(c, row);
	if (cp > 0) {
		sim_buf_printf(b, "cp = %ld\n", cp);
		valid_assume(assumed, alen, "cp %ld (not published: gpus / (tp pp dp))", cp);
	}
	/* An MoE row with TP whose sequence-parallel column is open ran it:
	 * Megatron-Core refuses to train an MoE layer under TP without it
	 * (megatron/core/transformer/moe/moe_layer.py:636-640 at d98e8a64,
	 * ValueError), as the plan checks do (plan/check.c). DeepSpeed-MoE's
	 * layer (gshard) runs without it, dropping the TP ranks' duplicate
	 * tokens: the profile's default, false, said. */
	if (moe_tp && gshard)
		valid_assume(assumed, alen,
		             "sequence_parallel 0 (not published: DeepSpeed-MoE under tp %ld drops "
		             "the TP ranks' duplicate tokens instead)",
		             tp);
	else if (moe_tp) {
		sim_buf_printf(b, "sequence_parallel = true\n");
		valid_assume(assumed, alen,
		             "sequence_parallel 1 (not published: MoE under tp %ld runs it, as "
		             "Megatron-Core requires)", tp);
	}
	put_offload(b, c, row, dp, assumed, alen);
	long gpn = atol(get(c, row, "gpus_per_node"));
	valid_shard_node(b, cases_csv_written(c, row, cases_csv_col(c, "zero")), gpn > 0 ? gpn : 8,
	                 dp * cpz, assumed, alen);
}

/* FSDP's hybrid sharding named by a row ("HYBRID_SHARD", "HSDP": the
 * stage is read, valid_hybrid_shard_text): the shard group is a node's GPUs
 * and the replicas are across nodes ("shard in the node, replicate across",
 * torch/distributed/fsdp/api.py:55-58 of PyTorch 2.14.1, as
 * topologies/frameworks/pytorch-fsdp.ini cites; without a process group
 * FSDP builds its intra-node group from the GPUs a node has), so
 * shard_size = the node's GPUs where the dp x cp ranks span more than one
 * node; within one node it is FULL_SHARD's group. Written and said. */
void valid_shard_node(sim_buf *b, const char *text, long gpn, long dp_cp, char *assumed,
                      size_t alen)
{
	if (!valid_hybrid_shard_text(text) || gpn <= 0 || dp_cp <= gpn)
		return;
	sim_buf_printf(b, "shard_size = %ld\n", gpn);
	valid_assume(assumed, alen,
	             "shard_size %ld ('%.32s': FSDP's hybrid sharding shards over a node's "
	             "GPUs and replicates across the %ld nodes' groups)",
	             gpn, text, dp_cp / gpn);
}

/* The row's global batch, else its recipe line's (the benchmark's step),
 * else 0. */
long valid_row_global_batch(const cases_csv *c, size_t row, const valid_recipe *rec)
{
	char v[32];
	const char *g = get(c, row, "global_batch");
	return atol(*g ? g : valid_recipe_value(rec, "global_batch", v, sizeof v));
}

/* How valid_row_batch settled the global batch. */
enum { BATCH_AS_PUBLISHED, BATCH_ROUNDED, BATCH_OPEN, BATCH_OPEN_PP };

/* The global batch the row runs: its column's or its recipe's. Frameworks
 * run a whole number of micro-batches per data-parallel replica (Megatron
 * asserts global_batch % (micro_batch x dp) == 0; DeepSpeed and metaseq
 * take a batch per GPU), so a published batch that is no multiple of dp x
 * the micro-batch was rounded by its authors ("2M tokens" on 124
 * replicas): the nearest multiple, at least one, where that is within
 * 10 % of it and the batch holds a sequence a replica. Where neither gives a
 * batch (a throughput printed without one), one micro-batch per replica,
 * no accumulation. The micro-batch: the column's, else `mb` (the tuned
 * one, tuned_micro_batch), else 1. *how says which. */
long valid_row_batch(const cases_csv *c, size_t row, const valid_recipe *rec, long mb, int *how)
{
	long gb = valid_row_global_batch(c, row, rec), dp = valid_row_dp(c, row);
	char rv[32];
	const char *col = valid_plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	long m = *col && atol(col) > 0 ? atol(col) : mb > 0 ? mb : 1;
	*how = BATCH_AS_PUBLISHED;
	if (dp <= 0)
		return gb;
	if (gb <= 0) {
		/* one micro-batch per replica; with a pipeline pp of them, the
		 * fewest that fill it and that every framework's schedule runs
		 * (Megatron's interleaved 1F1B needs at least pp) */
		long pp = atol(valid_plan_col(c, row, rec, "pp", rv, sizeof rv));
		*how = pp > 1 ? BATCH_OPEN_PP : BATCH_OPEN;
		return m * dp * (pp > 1 ? pp : 1);
	}
	long unit = m * dp;
	long k = (gb + unit / 2) / unit, near = (k > 0 ? k : 1) * unit;
	/* a batch below one sequence a replica, or 10 % off the nearest, is no
	 * rounded figure but another plan than the row's degrees say: left as
	 * published, for the loader to name the mismatch */
	if (gb % unit == 0 || gb < dp || labs(near - gb) > gb / 10)
		return gb;
	*how = BATCH_ROUNDED;
	return near;
}

/* The micro-batches a step the row runs per replica: its batch over dp x
 * the micro-batch it runs (its column or its recipe's, the tuned `mb`,
 * else 1); 0 where dp is open. */
static long row_microbatches(const cases_csv *c, size_t row, const valid_recipe *rec, long dp,
                             long mb)
{
	char rv[32];
	const char *col = valid_plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	long run_mb = *col ? atol(col) : mb > 0 ? mb : 1;
	int how;
	return run_mb > 0 && dp > 0 ? valid_row_batch(c, row, rec, mb, &how) / (run_mb * dp) : 0;
}

/* The vpp of a pipelined row that leaves it open (default_vpp): 1 under a
 * framework without the interleaved schedule; said and returned. `nl` the
 * model's layers, `mb` the tuned micro-batch (0: none). */
static long put_open_vpp(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                         const char *profile, const valid_recipe *rec, long nl, long mtp,
                         long pp, long dp, long mb, char *assumed, size_t alen)
{
	long m = row_microbatches(c, row, rec, dp, mb);
	/* a framework without an interleaved schedule (DeepSpeed's
	 * pipeline engine, nanotron, FSDP stacks) ran plain 1F1B */
	plan_framework fw;
	bool fw_ok = valid_load_profile(opt, profile, &fw);
	bool interleaves = !fw_ok || (fw.sched_mask & PLAN_FW_INTERLEAVED);
	long v = interleaves ? default_vpp(nl, mtp, pp, m,
	                                   fw_ok && fw.uneven == PLAN_UNEVEN_END_STAGES)
	                     : 1;
	sim_buf_printf(b, "vpp = %ld\n", v);
	if (interleaves)
		valid_assume(assumed, alen,
		             "vpp %ld (interleaved, depth not published: chunks of >= 2 "
		             "layers as NVIDIA's recipes, or of 1 where the stage's count "
		             "is prime)",
		             v);
	else
		valid_assume(assumed, alen,
		             "vpp 1 (not published; framework %s runs no interleaved "
		             "schedule: runs_schedules = %s)",
		             profile, fw.schedules);
	return v;
}

/* A measured run whose layers do not split evenly over its pp x vpp model
 * chunks, under a profile whose framework splits only evenly (uneven_split
 * = error: Megatron-LM before Megatron-Core's pipeline-split options, the
 * FSDP stacks): the run happened, so its split was uneven in some way the
 * source does not print. It is taken as Megatron-Core's documented rule,
 * the embedding and the loss counted as one layer each (uneven_split =
 * end-stages, plan_layout; BLOOM's 70 layers on 12 stages under
 * Megatron-DeepSpeed's partition by type, 5 + 6 x 10 + 5), said on the row,
 * rather than skipping the row (issue 14: every measured row predicted).
 * The row's layout columns or its recipe's, where given, stay the source's. */
static void put_uneven_default(sim_buf *b, const valid_options *opt, const char *profile,
                               long layers, long pp, long vpp, char *assumed, size_t alen)
{
	plan_framework fw;
	long chunks = pp * (vpp > 0 ? vpp : 1);
	static const char *const layout[] = {"\nfirst_stage_layers =", "\nlast_stage_layers =",
	                                     "\nembedding_in_split =", "\nloss_in_split ="};
	for (size_t i = 0; i < sizeof layout / sizeof layout[0]; i++)
		if (strstr(b->data, layout[i]))
			return;
	if (pp <= 1 || layers <= 0 || layers % chunks == 0 || !valid_load_profile(opt, profile, &fw) ||
	    fw.uneven != PLAN_UNEVEN_ERROR)
		return;
	sim_buf_printf(b, "[framework]\nuneven_split = end-stages\n");
	valid_assume(assumed, alen,
	             "%ld layers on %ld model chunks: an uneven split, which framework %s does "
	             "not make (uneven_split = error); the run was measured, so its split is "
	             "taken as the embedding and the loss counting as one layer each "
	             "(uneven_split = end-stages)",
	             layers, chunks, profile);
}

/* The open vocabulary and sequence length of a row that neither a recipe
 * nor a model file gives (a paper that prints a model's layers, hidden size
 * and heads only): the run had both, so the row gets the documented
 * defaults of its model family, said, instead of being skipped.
 *  - GPT-family layers (GELU): GPT-2's BPE, 50,257 tokens, which
 *    Megatron-LM's GPT-3 example trains with (--vocab-file gpt2-vocab.json,
 *    examples/gpt3/train_gpt3_175b_distributed.sh:17, 62 at NVIDIA/Megatron-LM
 *    d98e8a64) as DeepSpeed's and Megatron-DeepSpeed's GPT examples do; the
 *    framework pads it (vocab_multiple).
 *  - SwiGLU (Llama-family) layers: Llama and Llama 2's SentencePiece
 *    vocabulary, 32,000 (Touvron et al. 2023), which Mistral keeps.
 *  - seq_len: the context of the family the model's name or layers are
 *    (valid_open_seq_len): a Llama 3 (8,192, Meta's Llama 3 model card) or
 *    Llama 2 named (4,096, Touvron et al. 2023), other SwiGLU layers Llama
 *    2's as their vocabulary is, GPT-family layers GPT-3's 2,048 (Brown et
 *    al. 2020), the same example's --seq-length 2048 (:32). */
/* Whether a row leaves architecture column `col` open: neither the row as
 * written nor its recipe gives it. valid_token_seq_len fills an open
 * seq_len before the row is read, so the cell alone does not say. */
static bool arch_open(const cases_csv *c, size_t row, const valid_recipe *rec, const char *col)
{
	char rv[32], key[32];
	int k = cases_csv_col(c, col);
	snprintf(key, sizeof key, "model.%s", col);
	return !*valid_arch_value(c, row, rec, col, rv, sizeof rv) ||
	       (k >= 0 && !*cases_csv_written(c, row, k) && !*valid_recipe_value(rec, key, rv, sizeof rv));
}

int valid_token_seq_len(cases_csv *c, const valid_options *opt)
{
	int g = cases_csv_col(c, "global_batch"), sc = cases_csv_col(c, "seq_len");
	if (g < 0 || sc < 0)
		return SIM_OK;
	for (size_t row = 0; row < cases_csv_rows(c); row++) {
		char low[64], v[32] = "";
		valid_lower(cases_csv_get(c, row, g), low, sizeof low);
		if (*cases_csv_get(c, row, sc) || !strstr(low, "token"))
			continue;
		const valid_recipe *rec = valid_row_recipe(opt, c, row);
		if (!*valid_recipe_value(rec, "model.seq_len", v, sizeof v) && opt)
			valid_model_file_key(opt->datadir, get(c, row, "model"), "seq_len", v, sizeof v);
		const char *why; /* put_open_vocab_seq's, by the model's name */
		if (!*v)
			snprintf(v, sizeof v, "%ld",
			         valid_open_seq_len(get(c, row, "model"),
			                            valid_llama_family(get(c, row, "model")), &why));
		int rc = cases_csv_set(c, row, sc, v);
		if (rc != SIM_OK)
			return rc;
	}
	return SIM_OK;
}

static void put_open_vocab_seq(sim_buf *b, const cases_csv *c, size_t row,
                               const valid_recipe *rec, bool swiglu, char *assumed, size_t alen)
{
	char rv[32];
	if (!*valid_arch_value(c, row, rec, "vocab", rv, sizeof rv))
		valid_open_vocab(b, swiglu, assumed, alen);
	if (arch_open(c, row, rec, "seq_len")) {
		const char *why;
		long seq = valid_open_seq_len(get(c, row, "model"), swiglu, &why);
		if (*get(c, row, "seq_len")) /* valid_token_seq_len's, put already */
			seq = atol(get(c, row, "seq_len"));
		else
			sim_buf_printf(b, "seq_len = %ld\n", seq);
		valid_assume(assumed, alen, "seq_len %ld (not published: %s)", seq, why);
	}
}

/* The row's framework profile and attention path: its framework column
 * (a profile's name, or what the name stands for: valid_framework_profile),
 * else the stack table's row for its source (stacks.csv), else
 * megatron-core; said. `name` holds a resolved name; NULL, or why not. */
const char *valid_row_stack(const cases_csv *c, size_t row, const valid_options *opt,
                            const char **profile_out, const char **attention_out, char *name,
                            size_t nlen, char *assumed, size_t alen)
{
	/* the software stack: the row's framework column, else the table */
	const char *source = get(c, row, "source");
	const char *fwcol = cases_csv_col(c, "framework") >= 0 ? get(c, row, "framework") : "";
	valid_ran ran = {atoi(get(c, row, "zero")), atoi(get(c, row, "tp"))};
	const valid_stack *st = opt && opt->stacks ? valid_stack_find(opt->stacks, source, ran) : NULL;
	const char *profile = *fwcol ? fwcol : st ? st->profile : "megatron-core";
	const char *attention = !*fwcol && st && *st->attention ? st->attention : "";
	/* a framework column that is no profile's file name: the profile its
	 * name stands for (valid_framework_profile), with that stack's
	 * attention */
	const valid_stack *fst = NULL;
	const char *how =
	        *fwcol && opt ? valid_framework_profile(opt, fwcol, source, ran, name, nlen, &fst) : "";
	/* a stack podsim has no profile for (JAX's MaxText or PAXML, HF
	 * Accelerate): the run happened, so it is predicted with the stack its
	 * source's date gives, else the documented default, said, rather than
	 * skipped (issue 14: every measured row predicted) */
	if (!how) {
		profile = st ? st->profile : "megatron-core";
		attention = st && *st->attention ? st->attention : "";
		valid_assume(assumed, alen,
		             "framework '%.60s' has no profile (topologies/frameworks/) and no "
		             "stacks.csv row names it: run as %s, %s",
		             fwcol, profile,
		             st ? "the stack its source gives" : "the documented default");
		fwcol = "";
		how = "";
	}
	if (*how && strcmp(how, "its profile")) {
		profile = name;
		attention = fst && *fst->attention ? fst->attention : "";
		valid_assume(assumed, alen, "framework '%s' as profile %s%s%s (%s%s%.0d)", fwcol,
		             profile, *attention ? ", attention " : "", attention, how,
		             fst ? " line " : "", fst ? fst->line : 0);
	}
	if (strchr(profile, '/'))
		return "framework: expected a profile name of topologies/frameworks/";
	if (!*fwcol)
		valid_assume(assumed, alen, "framework %s%s%s (stacks.csv line %d)", profile,
		             *attention ? ", attention " : "", attention, st ? st->line : 0);
	*profile_out = profile;
	*attention_out = attention;
	return NULL;
}

/* What the row's [model] section is built from: its recipe line, framework
 * profile, the model's file (mname, where from_file) and the layer kind
 * (valid_swiglu, tied or not); put_model sets the routed experts (the
 * row's column, else the file's) and whether the profile's MoE layer is
 * DeepSpeed-MoE's (experts in every second layer). */
typedef struct {
	const valid_recipe *rec;
	const char *profile, *mname;
	bool from_file, swiglu, untied;
	long hidden, ffn;
	long experts; /* out */
	bool gshard;  /* out */
} row_model;

/* The row's [model] section: its architecture columns, each open one from
 * the model's file, its recipe line or the documented default, said. */
static void put_model(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                      row_model *m, char *assumed, size_t alen)
{
	size_t mod = b->len;
	sim_buf_printf(b, "[model]\nname = %s\n", get(c, row, "id"));
	put(b, c, row, "layers", "layers");
	put(b, c, row, "hidden", "hidden");
	put(b, c, row, "heads", "heads");
	put(b, c, row, "kv_heads", "kv_heads");
	put(b, c, row, "ffn", "ffn");
	put(b, c, row, "vocab", "vocab");
	put(b, c, row, "seq_len", "seq_len");
	put(b, c, row, "moe_experts", "moe_experts");
	put(b, c, row, "moe_topk", "moe_topk");
	/* DeepSpeed-MoE's models put experts in every second layer:
	 * Megatron-DeepSpeed's --expert-interval defaults to 2 (f4157bea
	 * megatron/arguments.py:614-615), unless the model's file says */
	/* the experts: the row's column, or the model file's where it is open */
	char iv[32], rv[32];
	m->experts = atol(get(c, row, "moe_experts"));
	if (!*get(c, row, "moe_experts") && m->from_file)
		m->experts = atol(file_key(opt->datadir, m->mname, "moe_experts", iv, sizeof iv));
	/* an MoE row's open top-k: Megatron-Core's router default, 2
	 * (TransformerConfig.moe_router_topk, megatron/core/transformer/
	 * transformer_config.py:760 at d98e8a64), unless the model's file says */
	if (m->experts > 1 && !*get(c, row, "moe_topk") &&
	    !(m->from_file && *file_key(opt->datadir, m->mname, "moe_topk", iv, sizeof iv)) &&
	    !*valid_recipe_value(m->rec, "model.moe_topk", iv, sizeof iv)) {
		sim_buf_printf(b, "moe_topk = 2\n");
		valid_assume(assumed, alen, "moe_topk 2 (not published: Megatron-Core's router default)");
	}
	m->gshard = m->experts > 1 && profile_gshard(opt, m->profile);
	if (m->gshard && !(m->from_file && *file_key(opt->datadir, m->mname, "moe_layer_interval", iv,
	                                       sizeof iv))) {
		sim_buf_printf(b, "moe_layer_interval = 2\n");
		valid_assume(assumed, alen,
		             "experts in every second layer (not published: Megatron-DeepSpeed's "
		             "--expert-interval default)");
	}
	/* an open head count: heads 128 wide (GPT-3 175B's, Llama's, BLOOM's, most
	 * of Megatron-LM SC21's table), 64 wide where hidden is no multiple of 128 */
	if (!*valid_arch_value(c, row, m->rec, "heads", rv, sizeof rv) && !m->from_file)
		valid_open_heads(b, m->hidden,
		                 atol(valid_arch_value(c, row, m->rec, "kv_heads", rv, sizeof rv)),
		                 assumed, alen);
	if (!m->from_file) {
		valid_open_shape_said(!*valid_arch_value(c, row, m->rec, "kv_heads", rv, sizeof rv),
		                      !m->ffn, assumed, alen);
		put_open_vocab_seq(b, c, row, m->rec, m->swiglu, assumed, alen);
	}
	/* A note's "head_dim N" gives heads narrower or wider than hidden/heads. */
	const char *hd = strstr(get(c, row, "note"), "head_dim ");
	if (hd && atoi(hd + 9) > 0)
		sim_buf_printf(b, "head_dim = %d\n", atoi(hd + 9));
	if (!m->from_file)
		sim_buf_printf(b, "activation = %s\nnorm = %s\nuntied_embeddings = %s\n",
		               m->swiglu ? "swiglu" : "gelu", m->swiglu ? "rmsnorm" : "layernorm",
		               m->untied ? "true" : "false");
	valid_put_recipe(b, mod, m->rec, "model.", assumed, alen);
	/* The SwiGLU families (Llama, Mistral, DeepSeek) carry no linear
	 * biases; [model] bias defaults to Megatron's GPT (true), so say it
	 * unless the recipe gave the model's own (GPT-OSS's). */
	if (m->swiglu && !m->from_file && !strstr(b->data + mod, "\nbias ="))
		sim_buf_printf(b, "bias = false\n");
}

/* The row's [node] section: the GPUs of a node and its NICs (the shipped EFA
 * cluster's, an unfitted EFA instance's, or the row's columns: a rate above
 * any NIC's the node's total, a RoCE fabric's hash-routed NICs, a note's
 * "N Gb/s inter-node", a box's NICs per GPU for fewer GPUs), and the
 * fabric's sentence where the schema does not name it; each default said. */
static void put_node(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                     const char *tmpl, long gpus, long gpn, const char *efa,
                     const valid_efa_unfit *other, char *assumed, size_t alen)
{
	sim_buf_printf(b, "[node]\ngpus = %ld\n", gpus < gpn ? gpus : gpn);
	if (efa)
		valid_assume(assumed, alen,
		             "EFA: the shipped %s (its node's EFA NICs and the aws-ofi-nccl tuner of "
		             "its instance%s)%s",
		             efa, !strcmp(efa, VALID_EFA_CLUSTER) ? ", the fabric fitted to "
		                                                    "efa-collectives.csv" : "",
		             *get(c, row, "nics_per_node") || *get(c, row, "nic_gbps")
		                     ? "; the row's NIC columns not used" : "");
	if (other->instance)
		valid_efa_unfit_keys(b, other, false);
	else if (!efa) {
		put(b, c, row, "nics", "nics_per_node");
		/* a rate above any NIC's (XDR InfiniBand and ConnectX-8: 800 Gb/s)
		 * beside several NICs is the node's total ("3.2 Tbps" of 8 NICs):
		 * each NIC its share, said */
		double nic = atof(get(c, row, "nic_gbps")), nn = atof(get(c, row, "nics_per_node"));
		if (nic > VALID_NIC_MAX_GBPS && nn > 1) {
			sim_buf_printf(b, "nic_bw = %.6g Gb/s\n", nic / nn);
			valid_assume(assumed, alen,
			             "nic_gbps %.6g read as the node's (above any NIC's %d Gb/s): %.0f "
			             "NICs of %.6g Gb/s",
			             nic, VALID_NIC_MAX_GBPS, nn, nic / nn);
		} else if (*get(c, row, "nic_gbps"))
			sim_buf_printf(b, "nic_bw = %s Gb/s\n", get(c, row, "nic_gbps"));
		/* a RoCE fabric: its NICs route by hash ECMP (topo), not d-mod-k */
		if (!strcmp(get(c, row, "fabric"), "roce-fat-tree"))
			sim_buf_printf(b, "nic_kind = roce\n");
	}
	/* "N Gb/s inter-node" in the note with no NIC columns: a node's
	 * inter-node bandwidth, read as the node's total over one NIC per GPU
	 * (the usual meaning of a node's inter-node bandwidth; the note says
	 * whether the source left per node or per GPU open) */
	const char *inter = strstr(get(c, row, "note"), " Gb/s inter-node");
	if (inter && !efa && !other->instance && !*get(c, row, "nics_per_node") &&
	    !*get(c, row, "nic_gbps")) {
		const char *q = inter;
		while (q > get(c, row, "note") && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9')))
			q--;
		double gbps = atof(q);
		long n = gpus < gpn ? gpus : gpn;
		if (gbps > 0 && n > 0) {
			sim_buf_printf(b, "nics = %ld\nnic_bw = %.6g Gb/s\n", n, gbps / (double)n);
			valid_assume(assumed, alen,
			             "%.6g Gb/s inter-node read as per node (%ld NICs of "
			             "%.6g Gb/s)",
			             gbps, n, gbps / (double)n);
		}
	}
	/* Fewer GPUs a node than the template's box, across nodes, the NICs
	 * open: the template's NICs per GPU, not all its NICs for fewer GPUs
	 * (4 H200 a node get 4 of the HGX's 8 NICs), said */
	char said[200];
	long scaled = !inter && !efa && !other->instance && !*get(c, row, "nics_per_node") &&
	                              gpus > gpn
	                      ? valid_nics_per_gpu(opt ? opt->datadir : NULL, tmpl, gpn, said,
	                                           sizeof said)
	                      : 0;
	if (scaled > 0) {
		sim_buf_printf(b, "nics = %ld\n", scaled);
		valid_assume(assumed, alen, "%s", said);
	}
	/* a fabric the schema does not name (HPE Slingshot, "Ethernet"): the
	 * fat tree of the row's NICs, said */
	if (!*get(c, row, "fabric") && !efa && !other->instance && gpus > gpn)
		valid_assume(assumed, alen,
		             "fabric open: a non-blocking fat tree of the row's NICs (not published)");
	else if (!valid_loose_named("fabric", get(c, row, "fabric")))
		valid_assume(assumed, alen,
		             "fabric '%.24s' not in the schema: a non-blocking fat tree of the "
		             "row's NICs",
		             get(c, row, "fabric"));
}

/* The architecture columns neither the row nor its recipe gives, from the
 * model's file (valid_model_file, as memory rows take them), its
 * activation, norm and embeddings too: true where the row's model names
 * one (its name in mname), said. Without one, a missing layers, hidden,
 * heads, vocab or seq_len is the loader's error and kv_heads and ffn get
 * the GPT defaults. */
static bool open_arch(const cases_csv *c, size_t row, const valid_options *opt,
                      const valid_recipe *rec, char *mname, size_t mlen, char *assumed,
                      size_t alen)
{
	static const char *const arch[] = {"layers", "hidden", "heads", "kv_heads",
	                                   "ffn",    "vocab",  "seq_len"};
	char open_cols[96] = "", msrc[200] = "";
	for (size_t i = 0; i < sizeof arch / sizeof arch[0]; i++)
		if (arch_open(c, row, rec, arch[i]))
			snprintf(open_cols + strlen(open_cols), sizeof open_cols - strlen(open_cols),
			         "%s%s", *open_cols ? ", " : "", arch[i]);
	/* an open expert count of a row that routes (its top-k, or expert
	 * parallelism, given): an MoE model's, open like the shape; a dense
	 * row leaves it blank */
	if (arch_open(c, row, rec, "moe_experts") &&
	    (*get(c, row, "moe_topk") || atol(get(c, row, "ep")) > 1))
		snprintf(open_cols + strlen(open_cols), sizeof open_cols - strlen(open_cols),
		         "%smoe_experts", *open_cols ? ", " : "");
	bool from_file = *open_cols && opt &&
	                 valid_model_file(get(c, row, "model"), opt->datadir, mname, mlen, msrc,
	                                  sizeof msrc);
	if (from_file)
		valid_assume(assumed, alen, "%s from models/%s.ini (%s)", open_cols, mname,
		             *msrc ? msrc : "no source given");
	return from_file;
}

/* The [parallel] columns the row gives as they are (recompute but where
 * `layers` reads a selective cell as checkpointed layers), and the global
 * batch as the framework runs it (valid_row_batch: the published one, or
 * rounded to whole micro-batches, or the open cell's default, said);
 * returns the batch, its kind in *how. */
static long put_plan_cols(sim_buf *b, const cases_csv *c, size_t row, const valid_recipe *rec,
                          long mb, long dp, bool layers, int *how, char *assumed, size_t alen)
{
	static const char *const same[] = {"tp", "pp", "dp", "cp", "ep", "vpp", "global_batch",
					   "micro_batch", "sequence_parallel", "zero", "recompute"};
	char rv[32];
	long batch = valid_row_batch(c, row, rec, mb, how);
	long pub_mb = atol(valid_plan_col(c, row, rec, "micro_batch", rv, sizeof rv));
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		if ((!layers || strcmp(same[i], "recompute")) &&
		    (*how == BATCH_AS_PUBLISHED || strcmp(same[i], "global_batch")))
			put(b, c, row, same[i], same[i]);
	if (*how != BATCH_AS_PUBLISHED)
		sim_buf_printf(b, "global_batch = %ld\n", batch);
	if (*how == BATCH_ROUNDED)
		valid_assume(assumed, alen,
		             "global_batch %ld (published %ld, no multiple of dp %ld x micro_batch "
		             "%ld: the nearest batch of whole micro-batches per replica, as the "
		             "framework runs it)",
		             batch, valid_row_global_batch(c, row, rec), dp,
		             pub_mb > 0 ? pub_mb : mb > 0 ? mb : 1);
	else if (*how == BATCH_OPEN_PP)
		valid_assume(assumed, alen,
		             "global_batch %ld (not published: pp micro-batches per replica, the "
		             "fewest that fill the pipeline)",
		             batch);
	else if (*how == BATCH_OPEN)
		valid_assume(assumed, alen,
		             "global_batch %ld (not published: one micro-batch per replica, no "
		             "gradient accumulation)",
		             batch);
	return batch;
}

/* An open micro_batch cell: the tuned choice `mb` (the fastest per sequence
 * that fits; of the divisors of the `per_replica` sequences where the
 * batch is the published one), else 1, said. */
static void put_open_mb(sim_buf *b, long mb, int how, long per_replica, char *assumed,
                        size_t alen)
{
	if (mb > 0 && how != BATCH_AS_PUBLISHED) {
		sim_buf_printf(b, "micro_batch = %ld\n", mb);
		valid_assume(assumed, alen,
		             "micro_batch %ld (not published: of 1, 2, 4 ... 64, the fastest per "
		             "sequence that fits, as a tuned benchmark ran)",
		             mb);
	} else if (mb > 0) {
		sim_buf_printf(b, "micro_batch = %ld\n", mb);
		valid_assume(assumed, alen,
		             "micro_batch %ld (not published: the fastest that "
		             "fits of the divisors of the %ld sequences per replica, as a "
		             "tuned benchmark ran)",
		             mb, per_replica);
	} else
		valid_assume(assumed, alen, "micro_batch 1 (not published)");
}

/* A recipe line's vpp (the row's cell open) where the row's own batch leaves
 * fewer micro-batches a step than the pp an interleaved schedule needs
 * (Megatron-Core's rule, plan/check.c; torch pipelining's rounds run
 * fewer, vp_group_rule = torch-rounds; the line's run had its own batch):
 * no interleaving, the one schedule such a run has, said; else the line's
 * vpp (written with its other keys), returned as it is. */
static long recipe_vpp_fits(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                            const char *profile, const valid_recipe *rec, long pp, long dp,
                            long mb, long vpp, char *assumed, size_t alen)
{
	plan_framework fw;
	if (valid_load_profile(opt, profile, &fw) && fw.vp_rule == PLAN_VP_TORCH)
		return vpp;
	long m = row_microbatches(c, row, rec, dp, mb);
	if (vpp <= 1 || m <= 0 || m >= pp)
		return vpp;
	sim_buf_printf(b, "vpp = 1\n");
	valid_assume(assumed, alen,
	             "vpp 1 (the recipe's vpp %ld is its own run's: this row's %ld micro-batches a "
	             "step are fewer than pp = %ld, which an interleaved schedule needs)",
	             vpp, m, pp);
	return 1;
}

/* The [parallel] flags a row's note names (`zero`: the row's ZeRO stage). */
static void put_note_flags(sim_buf *b, const cases_csv *c, size_t row, int zero)
{
	/* A note naming Megatron's --overlap-param-gather (or --overlap-grad-reduce):
	 * Megatron accepts the first only together with the second, so the
	 * source's DP gradient reduction overlapped the backward. */
	const char *note = get(c, row, "note");
	if (strstr(note, "--overlap-param-gather") || strstr(note, "--overlap-grad-reduce"))
		sim_buf_printf(b, "overlap_grad_reduce = true\n");
	/* ... and with the distributed optimizer its parameter all-gather under
	 * the next forward; --tp-comm-overlap (Transformer Engine userbuffers)
	 * only where the row runs sequence parallelism, which it needs. */
	if (strstr(note, "--overlap-param-gather") && zero >= 1 && zero <= 2)
		sim_buf_printf(b, "overlap_param_gather = true\n");
	if (strstr(note, "--tp-comm-overlap") && !strcmp(get(c, row, "sequence_parallel"), "1"))
		sim_buf_printf(b, "tp_comm_overlap = true\n");
	/* A note naming Composer's FSDP mixed_precision PURE: gradients reduced in
	 * the training dtype (reduce_dtype = param_dtype, composer/trainer/
	 * mosaic_fsdp_utils.py:91-94 at mosaicml/composer v0.16.4), where its
	 * DEFAULT reduces them in fp32 (:87-90, llm-foundry.ini's grad_dtype = fp32). */
	if (strstr(note, " PURE"))
		sim_buf_printf(b, "fp32_grads = false\n");
	/* The README's `layout:` note clause names Megatron's pipeline-split flags. */
	if (strstr(note, "account_for_embedding/loss_in_pipeline_split"))
		sim_buf_printf(b, "embedding_in_split = true\nloss_in_split = true\n");
}

/* The row's [train] section: its precision (an open one the recipe's where
 * its line sets one, else the GPU's, said), attention, LoRA and the
 * recipe's train.* keys. */
static void put_train(sim_buf *b, const cases_csv *c, size_t row, const valid_recipe *rec,
                      const char *gpu, const char *attention, char *assumed, size_t alen)
{
	size_t trn = b->len;
	sim_buf_printf(b, "[train]\n");
	put(b, c, row, "precision", "precision");
	char rp[16];
	/* an open precision: the recipe's where its line sets one (written
	 * below with the line's other train.* keys, said), else the GPU's */
	if (!*get(c, row, "precision") && !*valid_recipe_value(rec, "train.precision", rp, sizeof rp)) {
		const char *p = valid_default_precision(gpu);
		sim_buf_printf(b, "precision = %s\n", p);
		valid_assume(assumed, alen, "precision %s (not published)", p);
	}
	if (*attention)
		sim_buf_printf(b, "attention = %s\n", attention);
	valid_put_lora(b, c, row, assumed, alen);
	valid_put_recipe(b, trn, rec, "train.", assumed, alen);
}

/* The row's includes: the shipped EFA cluster, else the node template and
 * the GPU; the framework's profile; the model's file where open columns
 * come from it (mname, else NULL). */
static void put_includes(sim_buf *b, const char *incdir, const char *efa, const char *tmpl,
                         const char *gpu, const char *profile, const char *mname)
{
	if (efa)
		sim_buf_printf(b, "include = %stopologies/%s\n", incdir, efa);
	else
		sim_buf_printf(b,
		               "include = %stopologies/nodes/%s.ini\ninclude = %stopologies/gpus/%s.ini\n",
		               incdir, tmpl, incdir, gpu);
	sim_buf_printf(b, "include = %stopologies/frameworks/%s.ini\n", incdir, profile);
	if (mname) /* first: the row's own columns override it */
		sim_buf_printf(b, "include = %smodels/%s.ini\n", incdir, mname);
}

/* The row's [cluster] section: its nodes and fabric, an unfitted EFA
 * instance's keys, and the network model (`fast`: the closed forms, for
 * the tuning's candidates). */
static void put_cluster(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                        bool fast, long gpus, long gpn, bool on_efa, const valid_efa_unfit *other)
{
	sim_buf_printf(b, "[cluster]\nname = %s\nnodes = %ld\nfabric = %s\n", get(c, row, "id"),
		       gpus < gpn ? 1 : (gpus + gpn - 1) / gpn,
		       on_efa ? "efa" : fabric_name(get(c, row, "fabric")));
	if (other->instance)
		valid_efa_unfit_keys(b, other, true);
	if (opt)
		sim_buf_printf(b, "network = %s\n",
		               fast                             ? "alpha-beta"
		               : opt->network == NET_MODEL_FLOW ? "flow"
		               : opt->network == NET_MODEL_AUTO ? "auto"
		                                                : "alpha-beta");
}

/* validate's --framework / --sustain overrides of the fitted constants. */
static void put_overrides(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt)
{
	if (opt && opt->framework_set)
		sim_buf_printf(b, "[framework]\nop_overhead = %.9g us\n", opt->framework_s * 1e6);
	if (opt && opt->sustain_set) /* the row's precision's key */
		sim_buf_printf(b, "[gpu]\ntensor_sustain%s = %.9g\n",
			       !strcmp(get(c, row, "precision"), "fp8") ? "_fp8" : "", opt->sustain);
}

/* Text of row `row`; `mb` > 0 stands for an empty micro_batch column (the
 * tuned choice of tuned_micro_batch), 0 leaves it to the column. */
const char *valid_row_text(const cases_csv *c, size_t row, const char *incdir,
                           const valid_options *opt, const valid_tune *tune, sim_buf *b,
                           char *assumed, size_t alen, char *why, size_t whylen)
{
	long mb = tune->mb;
	const char *gpu, *tmpl;
	long gpn;
	const char *hw = valid_row_hardware(c, row, &gpu, &tmpl, &gpn, assumed, alen, why, whylen);
	if (hw)
		return hw;
	const char *off = get(c, row, "offload");
	bool cpu = !strcmp(off, "cpu"), nvme = !strcmp(off, "nvme");
	if (*off && strcmp(off, "none") && !cpu && !nvme)
		return "offload: expected none, cpu or nvme";
	long gpus = atol(get(c, row, "gpus"));
	/* The row's recipe line (recipes.c, valid_row_recipe: by its source and
	 * its model's name or shape); its model.* keys stand for the
	 * architecture columns the row leaves open. */
	char av[2][32];
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	long hidden = atol(valid_arch_value(c, row, rec, "hidden", av[0], sizeof av[0]));
	long ffn = atol(valid_arch_value(c, row, rec, "ffn", av[1], sizeof av[1]));
	long pp = atol(get(c, row, "pp")), dp = valid_row_dp(c, row);
	char mname[64] = "", rv[32];
	bool from_file = open_arch(c, row, opt, rec, mname, sizeof mname, assumed, alen);
	if (gpus <= 0)
		return "gpus missing (and dp open: the parallel degrees do not give it)";
	if (gpn <= 0 || (hidden <= 0 && !from_file))
		return gpn <= 0 ? "gpus_per_node missing" : "hidden missing (and no model file named)";
	const char *profile, *attention;
	char fwname[64];
	const char *stk = valid_row_stack(c, row, opt, &profile, &attention, fwname,
	                                  sizeof fwname, assumed, alen);
	if (stk)
		return stk;
	bool swiglu = valid_swiglu(get(c, row, "model"), profile, hidden, ffn, assumed, alen);
	bool untied = swiglu && !valid_nanotron_tied(profile, swiglu, ffn, assumed, alen);
	if (untied && !from_file)
		untied = !row_tied(c, row, opt, assumed, alen);
	bool on_efa = !strcmp(get(c, row, "fabric"), "efa");
	const char *efa = on_efa ? valid_efa_cluster(gpu) : NULL;
	valid_efa_unfit other = {0};
	if (on_efa && !efa) {
		const char *no = valid_row_efa_other(c, row, opt, gpu, &other, assumed, alen);
		if (no) {
			snprintf(why, whylen, "%s", no);
			return why;
		}
	}
	put_includes(b, incdir, efa, tmpl, gpu, profile, from_file ? mname : NULL);
	sim_buf_printf(b, "[scenario]\nname = %s\n", get(c, row, "id"));
	row_model m = {.rec = rec, .profile = profile, .mname = mname, .from_file = from_file,
	               .swiglu = swiglu, .untied = untied, .hidden = hidden, .ffn = ffn};
	put_model(b, c, row, opt, &m, assumed, alen);
	long experts = m.experts;
	bool gshard = m.gshard;
	put_node(b, c, row, opt, tmpl, gpus, gpn, efa, &other, assumed, alen);
	put_cluster(b, c, row, opt, tune->fast, gpus, gpn, on_efa, &other);
	size_t par = b->len;
	sim_buf_printf(b, "[parallel]\n");
	bool layers = !strcmp(get(c, row, "recompute"), "selective") &&
	              selective_is_layers(opt, profile);
	int how;
	long batch = put_plan_cols(b, c, row, rec, mb, dp, layers, &how, assumed, alen);
	/* the layers: the row's (its recipe's), else its model file's */
	const char *nlv = valid_arch_value(c, row, rec, "layers", rv, sizeof rv);
	long nlayers = *nlv ? atol(nlv) : from_file ? file_layers(opt->datadir, mname) : 0;
	if (layers)
		layer_checkpointing(b, c, row, nlayers, assumed, alen);
	/* the framework's default for an open sequence_parallel at tp > 1
	 * (read only then: valid_row_text runs for every candidate of valid_tuned_plan) */
	plan_framework pf;
	bool sp_default = !*get(c, row, "sequence_parallel") && atol(get(c, row, "tp")) > 1 &&
	                  valid_load_profile(opt, profile, &pf) && pf.sp && pf.sp_default;
	put_open_plan(b, c, row, layers, dp, experts, gshard, sp_default, opt, profile, rec, tune,
	              assumed, alen);
	if (!*valid_plan_col(c, row, rec, "micro_batch", rv, sizeof rv))
		put_open_mb(b, mb, how, dp > 0 ? batch / dp : 0, assumed, alen);
	long vpp = atol(valid_plan_col(c, row, rec, "vpp", rv, sizeof rv));
	/* the model's MTP modules: the row's (its recipe's) or its model file's */
	const char *mtv = valid_arch_value(c, row, rec, "mtp_layers", rv, sizeof rv);
	long mtp = *mtv ? atol(mtv)
	                : from_file ? atol(file_key(opt->datadir, mname, "mtp_layers", rv, sizeof rv))
	                            : 0;
	if (!*valid_plan_col(c, row, rec, "vpp", rv, sizeof rv) && pp > 1)
		vpp = put_open_vpp(b, c, row, opt, profile, rec, nlayers, mtp, pp, dp, mb, assumed,
		                   alen);
	else if (!*get(c, row, "vpp") && pp > 1)
		vpp = recipe_vpp_fits(b, c, row, opt, profile, rec, pp, dp, mb, vpp, assumed, alen);
	put_note_flags(b, c, row, tune->zero >= 0 ? tune->zero : atoi(get(c, row, "zero")));
	valid_put_recipe(b, par, rec, "", assumed, alen);
	put_uneven_default(b, opt, profile, nlayers, pp, vpp, assumed, alen);
	put_overrides(b, c, row, opt);
	put_train(b, c, row, rec, gpu, attention, assumed, alen);
	return NULL;
}

/* The first error message without its "name:line: error: " prefix. */
static void first_error(const sim_diag *d, char *out, size_t len)
{
	for (size_t i = 0; i < sim_diag_count(d); i++) {
		const char *t = sim_diag_text(d, i);
		const char *e = strstr(t, "error: ");
		if (e) {
			snprintf(out, len, "%s", e + 7);
			return;
		}
	}
	snprintf(out, len, "not simulated");
}

/* A training row's labels: what it is (its model, GPUs and plan; open tp
 * and pp run as 1, put_open_plan says so), the rank group it is ranked
 * in, and its source's group (the stack table's label, else the source
 * itself). */
static void row_labels(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	const char *tpc = get(c, row, "tp"), *ppc = get(c, row, "pp");
	snprintf(v->what, sizeof v->what, "%.40s %sx%s tp%s pp%s dp%ld", get(c, row, "model"),
		 get(c, row, "gpus"), get(c, row, "gpu"), *tpc ? tpc : "1", *ppc ? ppc : "1",
		 valid_row_dp(c, row));
	snprintf(v->rank_key, sizeof v->rank_key, "%.60s|%s|%s", get(c, row, "model"),
		 get(c, row, "gpus"), get(c, row, "gpu"));
	const char *source = get(c, row, "source");
	valid_ran ran = {atoi(get(c, row, "zero")), atoi(get(c, row, "tp"))};
	const valid_stack *st = opt->stacks ? valid_stack_find(opt->stacks, source, ran) : NULL;
	if (st && *st->label && *st->match)
		snprintf(v->group, sizeof v->group, "%s", st->label);
	else if (*source)
		valid_source_key(source, v->group, sizeof v->group);
}

/* A row with no step time and no throughput that gives one: skipped, and
 * why. */
static void unmeasured(const cases_csv *c, size_t row, valid_row *v)
{
	v->status = VALID_SKIPPED;
	const char *run = valid_metric_skip_why(c, row);
	snprintf(v->reason, sizeof v->reason, "no measured_iter_s%s%s%s",
	         run ? " (" : "", run ? run : "",
	         run                                ? ")"
	         : *get(c, row, "measured_metric") ? " (its measured_metric gives none: "
	                                             "tokens_per_s[_per_gpu], samples_per_s, "
	                                             "tflops_per_gpu, a 16-bit row's mfu or "
	                                             "hfu, a step's time, or a run's over "
	                                             "the steps its note states)"
	                                           : "");
}

/* The row's outcome from its run (rc, r; the loader's first error in d):
 * its prediction and error, a run that ran out of memory's verdict alone,
 * or why it was skipped. */
static void outcome(valid_row *v, int rc, const plan_scenario *s, const exec_result *r,
                    const sim_diag *d)
{
	if (rc == SIM_OK && v->oom_run) {
		v->status = VALID_OK;
		v->predicted = NAN; /* no step to compare: the verdict is the check */
		v->error = NAN;
	} else if (rc == SIM_OK) {
		v->status = VALID_OK;
		snprintf(v->gpu, sizeof v->gpu, "%s", s->gpu.name);
		snprintf(v->framework, sizeof v->framework, "%s", s->fw.name);
		v->gpus = s->cluster.gpus;
		v->predicted = r->step_s;
		v->error = (v->predicted - v->measured) / v->measured;
	} else {
		v->status = VALID_SKIPPED;
		if (rc == SIM_ERANGE && r) { /* the clock; cut to the reason's size */
			size_t n = strnlen(r->error, sizeof v->reason - 1);
			memcpy(v->reason, r->error, n);
			v->reason[n] = '\0';
		} else
			first_error(d, v->reason, sizeof v->reason);
	}
}

void valid_training_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	row_labels(c, row, opt, v);
	v->measured = atof(get(c, row, "measured_iter_s"));
	/* no step time but a printed throughput: converted once the scenario
	 * is loaded (valid_measured_from_metric) */
	bool from_metric = v->measured <= 0 && valid_metric_gives_time(c, row);
	/* a plan that ran out of memory ("OOM" for its step): its verdict only */
	v->oom_run = v->measured <= 0 && !from_metric && valid_oom_marked(c, row, "measured_iter_s");
	if (v->measured <= 0 && !from_metric && !v->oom_run) {
		unmeasured(c, row, v);
		return;
	}
	sim_buf b;
	sim_buf_init(&b);
	char whyb[256];
	valid_tune t = valid_tuned_plan(c, row, opt);
	const char *why = valid_row_text(c, row, "", opt, &t, &b, v->assumed, sizeof v->assumed,
	                                 whyb, sizeof whyb);
	if (why || b.oom) {
		v->status = VALID_SKIPPED;
		snprintf(v->reason, sizeof v->reason, "%s", why ? why : "out of memory");
		sim_buf_free(&b);
		return;
	}
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	char name[64];
	snprintf(name, sizeof name, "<case %s>", v->id);
	exec_result *r = malloc(sizeof *r);
	int rc = r ? plan_scenario_load_string(b.data, name, opt->datadir, d, &s) : SIM_ENOMEM;
	if (rc != SIM_OK && r && valid_rule_waivers(d, &b, v->assumed, sizeof v->assumed)) {
		sim_diag_clear(d);
		rc = b.oom ? SIM_ENOMEM : plan_scenario_load_string(b.data, name, opt->datadir, d, &s);
	}
	if (rc == SIM_OK) {
		valid_plan_assumptions(s, v->assumed, sizeof v->assumed);
		/* the plan's memory verdict beside the time: a measured row that
		 * podsim calls out of memory is a memory-model miss to look at */
		plan_mem_fit f;
		plan_memory_fit(s, &f);
		snprintf(v->verdict, sizeof v->verdict, "%s", valid_verdict_name(f.verdict));
		if (!v->oom_run)
			rc = exec_run(s, r);
		/* after the step: an HFU counts its hardware FLOPs */
		bool stepped = !v->oom_run && rc == SIM_OK && r->model_flops > 0;
		if (from_metric)
			v->measured = valid_measured_from_metric(
			        c, row, s, stepped ? r->hardware_flops / r->model_flops : 0, v->assumed,
			        sizeof v->assumed);
	}
	outcome(v, rc, s, r, d);
	free(r);
	plan_scenario_free(s);
	sim_diag_free(d);
	sim_buf_free(&b);
}

int valid_row_scenario(const cases_csv *c, size_t row, const valid_options *opt, sim_buf *out,
		       char *why, size_t why_len)
{
	char dir[1024], assumed[1024] = "";
	snprintf(dir, sizeof dir, "%s/", opt->datadir);
	sim_buf text;
	sim_buf_init(&text);
	char whyb[256];
	valid_tune t = valid_tuned_plan(c, row, opt);
	const char *reason = valid_row_text(c, row, dir, opt, &t, &text, assumed, sizeof assumed,
	                                    whyb, sizeof whyb);
	if (reason) {
		snprintf(why, why_len, "%s", reason);
		sim_buf_free(&text);
		return SIM_ECONF;
	}
	/* the profile's rules the prediction sets aside, found by loading the
	 * row as valid_training_row does */
	sim_buf probe;
	sim_buf_init(&probe);
	valid_row_text(c, row, "", opt, &t, &probe, (char[1024]){""}, 1024, whyb, sizeof whyb);
	valid_printed_waivers(&probe, opt->datadir, &text, assumed, sizeof assumed);
	sim_buf_free(&probe);
	valid_put_assumed(out, assumed);
	sim_buf_printf(out, "%s", text.data ? text.data : "");
	bool oom = text.oom || out->oom;
	sim_buf_free(&text);
	return oom ? SIM_ENOMEM : SIM_OK;
}
