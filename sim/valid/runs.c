/* runs.c - a measured training run (a calibration.csv row) as a podsim scenario.
 *
 * The row's columns become configuration text that includes shipped data:
 *   include = topologies/nodes/<template>.ini  (chosen by node_intra and gpu)
 *   include = topologies/gpus/<gpu>.ini        (the row's GPU type)
 * then [model], [node] (gpus_per_node, nics_per_node, nic_gbps), [cluster]
 * (nodes = gpus / gpus_per_node), [parallel] and [train] from the row. The text
 * goes through the same loader and plan checks as a user's file, so a row that
 * needs a feature podsim does not simulate yet is skipped with the loader's
 * own message as the reason.
 *
 * Conventions for columns the schema leaves open (all stated in the reasons or
 * in README.md): activation = gelu when ffn == 4*hidden, else swiglu with
 * rmsnorm and untied embeddings (Llama-style); empty micro_batch: the fastest
 * that fits (tuned_micro_batch); empty recompute = none and empty zero = 0,
 * unless the plan then does not fit: the fastest combination that fits
 * (tuned_plan); empty vpp = 1 when pp == 1; a rule of the profile that the
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

/* What the reader settles for a row's open plan columns by simulating the
 * row (tuned_plan): the micro-batch (0: the row's column, else 1), the
 * recomputation (NULL: the row's column, else none), the ZeRO stage
 * (-1: the row's column, else 0) and sequence parallelism (false: the
 * row's column, else the framework's default). */
typedef struct {
	long mb;
	const char *recompute;
	int zero;
	bool sp;      /* sequence_parallel = true where the column is open */
	bool sp_open; /* ... and the search ranked it (the sentence's) */
	bool for_speed; /* the defaults fitted: ranked for speed with the micro-batch */
	bool capped;    /* a micro-batch above the tuned one did not fit */
	long above;     /* tuned_micro_batch tries only micro-batches above this */
	bool partial; /* recompute full of the fewest layers a chunk that fit */
	int rc_layers; /* ... found: recompute_layers (0: all) */
	bool fast;     /* ranked on the closed-form network (alpha-beta) */
} row_tune;

const char *valid_node_template(const char *intra, const char *gpu)
{
	if (!strcmp(intra, "nvswitch-gen2"))
		return strstr(gpu, "a800")  ? "hgx-a800"
		       : strstr(gpu, "40g") ? "dgx-a100-40g"
		                            : "dgx-a100-80g";
	if (!strcmp(intra, "nvswitch-gen3"))
		return strstr(gpu, "h800")   ? "hgx-h800"
		       : strstr(gpu, "h200") ? "hgx-h200"
		                             : "dgx-h100";
	/* PCIe boxes of 8 GPUs on two switches: H100 PCIe on Gen5, A100 PCIe on
	 * Gen4 (the row's gpu file sets the GPU) */
	if (!strcmp(intra, "pcie-gen5") && !strcmp(gpu, "h100-pcie"))
		return "pcie-8x-h100";
	if (!strcmp(intra, "pcie-gen4") && strstr(gpu, "a100-pcie"))
		return "pcie-8x-a100";
	/* the consumer cards' box (4 on one Gen4 root each), Alvis's A40 and T4
	 * nodes (topologies/nodes/) */
	if (!strcmp(intra, "pcie-gen4") && strstr(gpu, "rtx-"))
		return "pcie-4x4090";
	if (!strcmp(intra, "pcie-gen4") && !strcmp(gpu, "a40"))
		return "alvis-a40";
	if (!strcmp(intra, "pcie-gen4") && !strcmp(gpu, "l40s"))
		return "pcie-8x-l40s";
	if (!strcmp(intra, "pcie-gen3") && !strcmp(gpu, "t4"))
		return "alvis-t4";
	if (!strcmp(intra, "nvlink-hcm"))
		return "dgx1-v100";
	if (!strcmp(intra, "nvswitch-gen4"))
		return strstr(gpu, "gb200") ? "gb200-nvl72" : "dgx-b200";
	return NULL;
}

/* The 4-GPU baseboard of an 8-GPU node template, for a row of 4 GPUs a
 * node: HGX A100 4-GPU and HGX H100 4-GPU connect their GPUs pairwise by
 * NVLink, without an NVSwitch (so without NVLS), and have a NIC per GPU as
 * the DGX has (topologies/nodes/hgx-*-4gpu*.ini, each assumption there);
 * NULL for templates without such a board (and for gpn other than 4). */
const char *valid_board4(const char *tmpl, long gpn)
{
	if (gpn != 4 || !tmpl)
		return NULL;
	return !strcmp(tmpl, "dgx-a100-40g")   ? "hgx-a100-4gpu-40g"
	       : !strcmp(tmpl, "dgx-a100-80g") ? "hgx-a100-4gpu-80g"
	       : !strcmp(tmpl, "dgx-h100")     ? "hgx-h100-4gpu"
	                                       : NULL;
}

const char *valid_default_node(const char *gpu)
{
	const char *intra = valid_default_intra(gpu);
	return intra ? valid_node_template(intra, gpu) : NULL;
}

static const char *fabric_name(const char *f)
{
	return !strcmp(f, "rail-optimized") ? "rail-optimized" : "fat-tree";
}

const char *valid_efa_cluster(const char *gpu)
{
	return !strcmp(gpu, "h100-sxm5-80g")   ? VALID_EFA_CLUSTER
	       : !strcmp(gpu, "h200-sxm-141g") ? "efa-h200-cluster.ini"
	       : !strcmp(gpu, "b200")          ? "efa-b200-cluster.ini"
	                                       : NULL;
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
static const char *plan_col(const cases_csv *c, size_t row, const valid_recipe *rec,
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
static bool load_profile(const valid_options *opt, const char *profile, plan_framework *fw)
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
	return profile && load_profile(opt, profile, &pf) ? plan_zero_default(&pf, (int)pp, dp_cp)
	                                                   : 0;
}

void valid_open_zero(sim_buf *b, const valid_options *opt, const char *profile, long pp,
                     long dp_cp, char *assumed, size_t alen)
{
	plan_framework pf;
	if (!profile || !load_profile(opt, profile, &pf) || pf.zero_default <= 0) {
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

/* [section] key `key` of <datadir>/<dir>/<name>.ini as the loader reads it
 * (its includes, later values over earlier ones, its spacing) into out; ""
 * where the file or the key is not. */
static const char *ini_key(const char *datadir, const char *dir, const char *name,
                           const char *section, const char *key, char *out, size_t len)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s/%s.ini", datadir ? datadir : ".", dir, name);
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	const char *v = d && conf_load(path, d, &doc) == SIM_OK ? conf_get(doc, section, key, NULL)
	                                                         : NULL;
	snprintf(out, len, "%s", v ? v : "");
	conf_free(doc);
	sim_diag_free(d);
	return out;
}

/* [model] key `key` of models/<name>.ini (ini_key). */
static const char *file_key(const char *datadir, const char *name, const char *key, char *out,
                            size_t len)
{
	return ini_key(datadir, "models", name, "model", key, out, len);
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

/* [node] key `key` of topologies/nodes/<tmpl>.ini as a number (a board's
 * own value over its DGX's); 0 where the file or the key is not. */
static double node_key(const char *datadir, const char *tmpl, const char *key)
{
	char v[64];
	return atof(ini_key(datadir, "topologies/nodes", tmpl, "node", key, v, sizeof v));
}

long valid_nics_per_gpu(const char *datadir, const char *tmpl, long gpn, char *said, size_t len)
{
	double tg = gpn > 0 ? node_key(datadir, tmpl, "gpus") : 0;
	double tn = tg > (double)gpn ? node_key(datadir, tmpl, "nics") : 0;
	if (tn <= 0)
		return 0;
	long n = (long)(tn * (double)gpn / tg + 0.5);
	n = n < 1 ? 1 : n;
	snprintf(said, len, "nics_per_node %ld (not published: the %s node's %.0f NICs for %.0f GPUs, "
	                    "kept per GPU)", n, tmpl, tn, tg);
	return n;
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
	return load_profile(opt, profile, &fw) && fw.selective_means_layers;
}

/* The data-parallel degree of a row: its dp column, or where the source
 * printed only the GPU count and the model-parallel degrees (MLPerf's and
 * NeMo's tables, most papers), the one that fills the GPUs,
 *   dp = gpus / (tp pp cp)   (the schema's tp pp dp cp = gpus);
 * 0 when neither gives one (the loader then names the mismatch). */
static long row_dp(const cases_csv *c, size_t row)
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
static int filled_degree(const cases_csv *c, size_t row, long *fill)
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

/* The [parallel] keys of the row's open plan columns: the plan keys' own
 * defaults (recompute none, no sequence parallelism unless the framework's
 * default runs it, sp_default: plan_derive says so) said, the ZeRO stage
 * the framework runs by default (valid_open_zero), dp from the GPUs,
 * sequence parallelism for MoE under TP (the experts: the row's column or
 * its model file's), and the offload with its ZeRO stage. */
static void put_open_plan(sim_buf *b, const cases_csv *c, size_t row, bool layers, long dp,
                          long experts, bool gshard, bool sp_default,
                          const valid_options *opt, const char *profile,
                          const valid_recipe *rec, const row_tune *tune, char *assumed,
                          size_t alen)
{
	char rsp[16];
	const char *off = get(c, row, "offload");
	bool cpu = !strcmp(off, "cpu"), nvme = !strcmp(off, "nvme");
	long tp = atol(get(c, row, "tp"));
	bool moe_tp = experts > 1 && tp > 1 && !*get(c, row, "sequence_parallel");
	bool tuned_sp = tune->sp && !moe_tp;
	/* the stage an open zero column takes: the framework's default */
	long ppz = atol(plan_col(c, row, rec, "pp", rsp, sizeof rsp)),
	     cpz = *get(c, row, "cp") ? atol(get(c, row, "cp")) : open_cp(c, row);
	ppz = ppz > 0 ? ppz : 1, cpz = cpz > 0 ? cpz : 1;
	if (tune->zero >= 0 || tune->recompute || tuned_sp) {
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
		         oz ? valid_open_zero_stage(opt, profile, ppz, dp * cpz) : 0);
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
	if (!*get(c, row, "zero") && !cpu && !nvme && tune->zero < 0 &&
	    !*valid_recipe_value(rec, "zero", rsp, sizeof rsp))
		valid_open_zero(b, opt, profile, ppz, dp * cpz, assumed, alen);
	if (!*get(c, row, "recompute") && !layers && !tune->recompute &&
	    !*valid_recipe_value(rec, "recompute", rsp, sizeof rsp))
		valid_assume(assumed, alen, "recompute none (not published)");
	if (!*get(c, row, "sequence_parallel") && tp > 1 && experts <= 1 && !tuned_sp &&
	    !sp_default && !*valid_recipe_value(rec, "sequence_parallel", rsp, sizeof rsp))
		valid_assume(assumed, alen, "sequence_parallel 0 (not published)");
	/* open tp and pp: 1, the plan keys' defaults (row_dp divides the GPUs
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
	int fk = filled_degree(c, row, &fill);
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
static long row_global_batch(const cases_csv *c, size_t row, const valid_recipe *rec)
{
	char v[32];
	const char *g = get(c, row, "global_batch");
	return atol(*g ? g : valid_recipe_value(rec, "global_batch", v, sizeof v));
}

/* How row_batch settled the global batch. */
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
static long row_batch(const cases_csv *c, size_t row, const valid_recipe *rec, long mb, int *how)
{
	long gb = row_global_batch(c, row, rec), dp = row_dp(c, row);
	char rv[32];
	const char *col = plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	long m = *col && atol(col) > 0 ? atol(col) : mb > 0 ? mb : 1;
	*how = BATCH_AS_PUBLISHED;
	if (dp <= 0)
		return gb;
	if (gb <= 0) {
		/* one micro-batch per replica; with a pipeline pp of them, the
		 * fewest that fill it and that every framework's schedule runs
		 * (Megatron's interleaved 1F1B needs at least pp) */
		long pp = atol(plan_col(c, row, rec, "pp", rv, sizeof rv));
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

/* The vpp of a pipelined row that leaves it open (default_vpp): 1 under a
 * framework without the interleaved schedule; said and returned. `nl` the
 * model's layers, `mb` the tuned micro-batch (0: none). */
static long put_open_vpp(sim_buf *b, const cases_csv *c, size_t row, const valid_options *opt,
                         const char *profile, const valid_recipe *rec, long nl, long mtp,
                         long pp, long dp, long mb, char *assumed, size_t alen)
{
	/* the micro-batch the row runs: its column (or recipe), the tuned one,
	 * else 1 */
	char rv[32];
	const char *col = plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	long run_mb = *col ? atol(col) : mb > 0 ? mb : 1;
	int how;
	long m = run_mb > 0 && dp > 0 ? row_batch(c, row, rec, mb, &how) / (run_mb * dp) : 0;
	/* a framework without an interleaved schedule (DeepSpeed's
	 * pipeline engine, nanotron, FSDP stacks) ran plain 1F1B */
	plan_framework fw;
	bool fw_ok = load_profile(opt, profile, &fw);
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
	if (pp <= 1 || layers <= 0 || layers % chunks == 0 || !load_profile(opt, profile, &fw) ||
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

/* valid_open_heads' count and width; 0 where none divides. */
static long open_heads(long hidden, long kv, long *width)
{
	static const long widths[] = {128, 64};
	for (size_t i = 0; i < 2; i++)
		if (hidden > 0 && hidden % widths[i] == 0 && (kv <= 0 || (hidden / widths[i]) % kv == 0)) {
			*width = widths[i];
			return hidden / widths[i];
		}
	/* K/V heads wider than either allows (DeepSeek-V3's 128 of 7,168):
	 * as many query heads as they */
	if (kv > 0 && hidden > 0 && hidden % kv == 0) {
		*width = hidden / kv;
		return kv;
	}
	return 0;
}

void valid_open_heads(sim_buf *b, long hidden, long kv, char *assumed, size_t alen)
{
	long width, na = open_heads(hidden, kv, &width);
	if (na <= 0)
		return;
	sim_buf_printf(b, "heads = %ld\n", na);
	valid_assume(assumed, alen, "heads %ld (not published: heads %ld wide)", na, width);
}

void valid_open_shape_said(bool kv_open, bool ffn_open, char *assumed, size_t alen)
{
	if (kv_open)
		valid_assume(assumed, alen, "kv_heads = heads (not published: multi-head attention)");
	if (ffn_open)
		valid_assume(assumed, alen, "ffn 4 x hidden (not published: the GPT layer's)");
}

long valid_open_seq_len(const char *model, bool swiglu, const char **why)
{
	static const struct {
		const char *name;
		long seq;
		const char *why;
	} named[] = {
	        {"llama 3", 8192, "Llama 3's context"}, {"llama-3", 8192, "Llama 3's context"},
	        {"llama3", 8192, "Llama 3's context"},  {"llama 2", 4096, "Llama 2's context"},
	        {"llama-2", 4096, "Llama 2's context"}, {"llama2", 4096, "Llama 2's context"},
	        {"codellama", 4096, "Llama 2's context"},
	};
	char low[256];
	valid_lower(model ? model : "", low, sizeof low);
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		size_t n = strlen(named[i].name);
		/* the version as a number of its own: "CodeLlama-34B" is no Llama 3 */
		for (const char *p = strstr(low, named[i].name); p; p = strstr(p + 1, named[i].name))
			if (!isdigit((unsigned char)p[n])) {
				*why = named[i].why;
				return named[i].seq;
			}
	}
	*why = swiglu ? "Llama 2's context, for SwiGLU layers" : "GPT-3's context";
	return swiglu ? 4096 : 2048;
}

void valid_open_vocab(sim_buf *b, bool swiglu, char *assumed, size_t alen)
{
	sim_buf_printf(b, "vocab = %d\n", swiglu ? 32000 : 50257);
	valid_assume(assumed, alen,
	             swiglu ? "vocab 32000 (not published: Llama 2's, for SwiGLU layers)"
	                    : "vocab 50257 (not published: GPT-2's BPE, as Megatron-LM's "
	                      "GPT examples)");
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

/* A training row measured on an EFA instance that no shipped EFA cluster is
 * (A100 on p4d or p4de): its own node (GPU, NVLink, the node template of
 * its node_intra) with its EFA NICs, on the EFA model (fabric = efa:
 * NCCL's own choice, as aws-ofi-nccl has no tuner tables for these
 * instances; no NVLS or SHARP across nodes), as an unfitted cluster: the
 * per-step latency and message cost of its plugin platform's fitted cluster
 * (valid_efa_unfitted), uncongested at the node file's NIC efficiency, as
 * micro.c runs such collective rows. Open NIC columns of an A100 row take
 * p4d's: 4 EFA devices, one per PCIe switch of two GPUs (aws/aws-ofi-nccl
 * 2daf7d30 topology/p4d-24xl-topo.xml, p4de-24xl-topo.xml), at 100 Gb/s
 * each (AWS's 400 Gb/s per p4d instance; not in the project's references).
 * NULL, or why the row cannot run. */
static const char *row_efa_other(const cases_csv *c, size_t row, const valid_options *opt,
                                 const char *gpu, valid_efa_unfit *u, char *assumed, size_t alen)
{
	double nics = atof(get(c, row, "nics_per_node")), gbps = atof(get(c, row, "nic_gbps"));
	if (!strncmp(gpu, "a100-sxm4", 9) && nics <= 0 && gbps <= 0) {
		nics = 4, gbps = 100;
		valid_assume(assumed, alen, "4 EFA of 100 Gb/s per node (not published: p4d's, "
		             "aws-ofi-nccl's topology file and AWS's 400 Gb/s)");
	}
	if (nics <= 0 || gbps <= 0)
		return "an EFA row of an instance no shipped EFA cluster is (topologies/efa-*-"
		       "cluster.ini: h100-sxm5-80g, h200-sxm-141g, b200) needs nics_per_node and "
		       "nic_gbps";
	if (!opt || valid_efa_unfitted(opt, gpu, nics, gbps, u) != SIM_OK)
		return "a shipped EFA cluster does not load";
	char said[300];
	valid_efa_unfit_said(said, sizeof said, gpu, u, 0);
	valid_assume(assumed, alen, "%s", said);
	return NULL;
}

/* The integer after `key` in `text` (spaces, '=' or ':' between), or 0; a
 * key inside a longer name (a letter, digit or '_' before it: MLA's
 * "kv_lora_rank 512" is no "rank") does not count. */
static long int_after(const char *text, const char *key)
{
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *q = p + strlen(key);
		while (*q == ' ' || *q == '=' || *q == ':')
			q++;
		if (isdigit((unsigned char)*q))
			return atol(q);
	}
	return 0;
}

/* Whether the lower-case text names LoRA ("LoRA", "QLoRA", "--lora_r",
 * MLPerf's "llama2_70b_lora"), not a part of another word (a letter or digit
 * before it, but QLoRA's q) nor MLA's "q_lora_rank" and "kv_lora_rank" ('_'
 * before it and "_rank" after); *qlora when it is QLoRA. */
static bool lora_word(const char *low, bool *qlora)
{
	for (const char *p = strstr(low, "lora"); p; p = strstr(p + 1, "lora")) {
		bool q = p > low && p[-1] == 'q';
		const char *b = q ? p - 1 : p;
		char before = b > low ? b[-1] : ' ';
		if (isalnum((unsigned char)before) || (before == '_' && !strncmp(p + 4, "_rank", 5)))
			continue;
		*qlora = *qlora || q;
		return true;
	}
	return false;
}

/* A row that fine-tunes with LoRA: the training schema has no LoRA columns,
 * so the word "lora" in its model, source or note says it ("llama2_70b_lora",
 * "Llama 2 70B LoRA"), and [train] lora_rank makes the step train the
 * adapters alone (no weight gradients of the frozen base, the optimizer over
 * the adapters). The rank from the note ("rank 16", "r=16", "lora_r 16"),
 * else the documented default, said:
 *   MLPerf's llama2_70b_lora: rank 16 on the fused qkv and the output
 *   projection with dropout 0.1 ("lora rank is a fixed to 16 in closed
 *   submission", mlcommons/training aa344c7f llama2_70b_lora/scripts/
 *   train.py:40-43, run_llama_70B_scrolls_r16.sh --lora_target_modules
 *   "qkv_proj,o_proj");
 *   otherwise PEFT's LoraConfig: r = 8 on a Llama's q_proj and v_proj,
 *   no dropout (huggingface/peft 5d602fdbf src/peft/tuners/lora/config.py:
 *   613, src/peft/utils/constants.py:85; lora_dropout defaults to 0.0).
 * "qlora" keeps the base in 4-bit NF4 with double quantisation, as the QLoRA
 * paper trains (Dettmers et al. 2023), said. */
static void put_lora(sim_buf *b, const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	char all[1536], low[1536];
	snprintf(all, sizeof all, "%s | %s | %s", get(c, row, "model"), get(c, row, "source"),
	         get(c, row, "note"));
	valid_lower(all, low, sizeof low);
	bool qlora = false;
	if (!lora_word(low, &qlora))
		return;
	static const struct {
		long rank;
		const char *targets, *on, *dropout, *whose;
	} def[] = {{8, "q,v", "q and v", "false", "PEFT's default"},
	           {16, "attention", "q, k, v and o", "true",
	            "MLPerf's llama2_70b_lora, fixed in the closed division"}};
	int d = strstr(low, "mlperf") || strstr(low, "llama2_70b_lora");
	static const char *const keys[] = {"lora rank", "lora_rank", "lora_r", "rank", "r="};
	long r = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && r <= 0; i++)
		r = int_after(low, keys[i]);
	sim_buf_printf(b, "lora_rank = %ld\nlora_targets = %s\nlora_dropout = %s\n",
	               r > 0 ? r : def[d].rank, def[d].targets, def[d].dropout);
	valid_assume(assumed, alen, "LoRA of rank %ld%s on %s (not published: %s)",
	             r > 0 ? r : def[d].rank, r > 0 ? " (the note's)" : "", def[d].on, def[d].whose);
	if (qlora) {
		sim_buf_printf(b, "base_weights = nf4-dq\n");
		valid_assume(assumed, alen, "QLoRA: the base in NF4 with double quantisation");
	}
}

/* Text of row `row`; `mb` > 0 stands for an empty micro_batch column (the
 * tuned choice of tuned_micro_batch), 0 leaves it to the column. */
/* The row's hardware: its GPU file (valid_gpu_alias), the node template of
 * its node_intra (open: the GPU's baseboard, valid_default_intra) and its
 * GPUs per node (open: 8, every template's box but the NVL72 rack), each
 * default said; NULL, or why the row has none. */
static const char *row_hardware(const cases_csv *c, size_t row, const char **gpu_out,
                                const char **tmpl_out, long *gpn_out, char *assumed, size_t alen,
                                char *why, size_t whylen)
{
	const char *gpu = get(c, row, "gpu"), *intra = get(c, row, "node_intra");
	const char *alias;
	valid_loose_assume(c, row, assumed, alen);
	if (!*gpu) { /* the GPU the row's note, source or model names */
		char said[240];
		gpu = valid_gpu_named(c, row, said, sizeof said);
		if (!gpu) {
			snprintf(why, whylen, "%s", said);
			return why;
		}
		valid_assume(assumed, alen, "%s", said);
	}
	gpu = valid_gpu_alias(gpu, &alias);
	if (alias)
		valid_assume(assumed, alen, "%s", alias);
	if (!*intra && valid_default_intra(gpu)) {
		intra = valid_default_intra(gpu);
		valid_assume(assumed, alen, "node_intra %s (not published: the %s baseboard)", intra,
		             gpu);
	}
	const char *tmpl = valid_node_template(intra, gpu);
	/* a node named as sources name it ("NVSwitch", "DGX A100", "HGX",
	 * "NVLink", "PCIe"): the GPU's own baseboard where the name agrees
	 * with it (a PCIe name only for a PCIe card and back), said */
	const char *base = valid_default_intra(gpu);
	if (!tmpl && *intra && base) {
		char low[64];
		valid_lower(intra, low, sizeof low);
		bool pcie_name = strstr(low, "pcie") != NULL, pcie_base = !strncmp(base, "pcie", 4);
		bool known = strstr(low, "nvswitch") || strstr(low, "dgx") || strstr(low, "hgx") ||
		             strstr(low, "nvlink") || strstr(low, "sxm") || pcie_name;
		if (known && pcie_name == pcie_base && valid_node_template(base, gpu)) {
			valid_assume(assumed, alen, "node_intra '%.40s' read as %s (the %s baseboard)",
			             intra, base, gpu);
			tmpl = valid_node_template(base, gpu);
		}
	}
	if (!tmpl) {
		snprintf(why, whylen, "no node template for node_intra '%s' with %s (shipped: DGX-1 "
		         "V100, DGX A100, DGX/HGX H100, H200, H800, DGX B200, GB200 NVL72, 8 x H100 "
		         "PCIe Gen5, 8 x A100 PCIe Gen4)", intra, gpu);
		return why;
	}
	long gpn = atol(get(c, row, "gpus_per_node"));
	/* every node template but the NVL72 rack's is a box of 8 */
	if (!*get(c, row, "gpus_per_node") && strcmp(tmpl, "gb200-nvl72")) {
		gpn = 8;
		valid_assume(assumed, alen, "gpus_per_node 8 (not published: the %s node's)", tmpl);
	}
	/* 4 SXM GPUs a node: the 4-GPU board, not the 8-GPU box cut in half */
	const char *board = valid_board4(tmpl, gpn);
	if (board) {
		valid_assume(assumed, alen,
		             "4 GPUs a node: the %s board (NVLink between every pair, no NVSwitch; "
		             "a NIC per GPU unless the row says)",
		             board);
		tmpl = board;
	}
	*gpu_out = gpu;
	*tmpl_out = tmpl;
	*gpn_out = gpn;
	return NULL;
}

/* The row's framework profile and attention path: its framework column
 * (a profile's name, or what the name stands for: valid_framework_profile),
 * else the stack table's row for its source (stacks.csv), else
 * megatron-core; said. `name` holds a resolved name; NULL, or why not. */
static const char *row_stack(const cases_csv *c, size_t row, const valid_options *opt,
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

bool valid_swiglu(const char *model, const char *profile, long hidden, long ffn,
		  char *assumed, size_t alen)
{
	if (ffn <= 0 || ffn != 4 * hidden)
		return ffn > 0;
	/* A Llama-family model whose ffn happens to be 4 x hidden is SwiGLU all
	 * the same (nanotron's scaling benchmark 1B: hidden 2048, ffn 8192,
	 * scripts/scaling_benchmarks.py:306 at huggingface/nanotron 0e0a27ea):
	 * its name says so, or nanotron's layer code, whose only model is Llama
	 * (nanotron.ini) */
	bool nanotron = !strcmp(profile, "nanotron");
	if (!nanotron && !valid_llama_family(model))
		return false;
	valid_assume(assumed, alen, "SwiGLU, RMSNorm, no biases (%s), ffn 4 x hidden "
	             "notwithstanding", nanotron ? "nanotron's Llama code" : "a Llama-family model");
	return true;
}

bool valid_nanotron_tied(const char *profile, bool swiglu, long ffn, char *assumed, size_t alen)
{
	
/* "model < 4B": scripts/scaling_benchmarks.py:78 at 0e0a27ea, its 1B
	 * and 3B */
	if (strcmp(profile, "nanotron") || !swiglu || ffn <= 0 || ffn >= 10000)
		return false;
	valid_assume(assumed, alen, "tied embeddings (nanotron's scaling benchmark ties them "
	             "below an ffn of 10,000)");
	return true;
}

static const char *row_text(const cases_csv *c, size_t row, const char *incdir,
			    const valid_options *opt, const row_tune *tune, sim_buf *b, char *assumed,
			    size_t alen, char *why, size_t whylen)
{
	long mb = tune->mb;
	const char *gpu, *tmpl;
	long gpn;
	const char *hw = row_hardware(c, row, &gpu, &tmpl, &gpn, assumed, alen, why, whylen);
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
	long pp = atol(get(c, row, "pp")), dp = row_dp(c, row);
	/* open architecture columns (neither the row nor its recipe gives
	 * them): from the model's file (valid_model_file, as memory rows take
	 * them), its activation, norm and embeddings too; without one, a
	 * missing layers, hidden, heads, vocab or seq_len is the loader's
	 * error and kv_heads and ffn get the GPT defaults */
	static const char *const arch[] = {"layers", "hidden", "heads", "kv_heads",
	                                   "ffn",    "vocab",  "seq_len"};
	char open_cols[96] = "", mname[64] = "", msrc[200] = "", rv[32];
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
	                 valid_model_file(get(c, row, "model"), opt->datadir, mname, sizeof mname,
	                                  msrc, sizeof msrc);
	if (from_file)
		valid_assume(assumed, alen, "%s from models/%s.ini (%s)", open_cols, mname,
		             *msrc ? msrc : "no source given");
	if (gpus <= 0)
		return "gpus missing (and dp open: the parallel degrees do not give it)";
	if (gpn <= 0 || (hidden <= 0 && !from_file))
		return gpn <= 0 ? "gpus_per_node missing" : "hidden missing (and no model file named)";
	const char *profile, *attention;
	char fwname[64];
	const char *stk = row_stack(c, row, opt, &profile, &attention, fwname, sizeof fwname, assumed,
	                            alen);
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
		const char *no = row_efa_other(c, row, opt, gpu, &other, assumed, alen);
		if (no) {
			snprintf(why, whylen, "%s", no);
			return why;
		}
	}
	if (efa)
		sim_buf_printf(b, "include = %stopologies/%s\n", incdir, efa);
	else
		sim_buf_printf(b,
		               "include = %stopologies/nodes/%s.ini\ninclude = %stopologies/gpus/%s.ini\n",
		               incdir, tmpl, incdir, gpu);
	sim_buf_printf(b, "include = %stopologies/frameworks/%s.ini\n", incdir, profile);
	if (from_file) /* first: the row's own columns override it */
		sim_buf_printf(b, "include = %smodels/%s.ini\n", incdir, mname);
	sim_buf_printf(b, "[scenario]\nname = %s\n", get(c, row, "id"));
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
	char iv[32];
	long experts = atol(get(c, row, "moe_experts"));
	if (!*get(c, row, "moe_experts") && from_file)
		experts = atol(file_key(opt->datadir, mname, "moe_experts", iv, sizeof iv));
	/* an MoE row's open top-k: Megatron-Core's router default, 2
	 * (TransformerConfig.moe_router_topk, megatron/core/transformer/
	 * transformer_config.py:760 at d98e8a64), unless the model's file says */
	if (experts > 1 && !*get(c, row, "moe_topk") &&
	    !(from_file && *file_key(opt->datadir, mname, "moe_topk", iv, sizeof iv)) &&
	    !*valid_recipe_value(rec, "model.moe_topk", iv, sizeof iv)) {
		sim_buf_printf(b, "moe_topk = 2\n");
		valid_assume(assumed, alen, "moe_topk 2 (not published: Megatron-Core's router default)");
	}
	bool gshard = experts > 1 && profile_gshard(opt, profile);
	if (gshard && !(from_file && *file_key(opt->datadir, mname, "moe_layer_interval", iv,
	                                       sizeof iv))) {
		sim_buf_printf(b, "moe_layer_interval = 2\n");
		valid_assume(assumed, alen,
		             "experts in every second layer (not published: Megatron-DeepSpeed's "
		             "--expert-interval default)");
	}
	/* an open head count: heads 128 wide (GPT-3 175B's, Llama's, BLOOM's, most
	 * of Megatron-LM SC21's table), 64 wide where hidden is no multiple of 128 */
	if (!*valid_arch_value(c, row, rec, "heads", rv, sizeof rv) && !from_file)
		valid_open_heads(b, hidden,
		                 atol(valid_arch_value(c, row, rec, "kv_heads", rv, sizeof rv)), assumed,
		                 alen);
	if (!from_file) {
		valid_open_shape_said(!*valid_arch_value(c, row, rec, "kv_heads", rv, sizeof rv), !ffn,
		                      assumed, alen);
		put_open_vocab_seq(b, c, row, rec, swiglu, assumed, alen);
	}
	/* A note's "head_dim N" gives heads narrower or wider than hidden/heads. */
	const char *hd = strstr(get(c, row, "note"), "head_dim ");
	if (hd && atoi(hd + 9) > 0)
		sim_buf_printf(b, "head_dim = %d\n", atoi(hd + 9));
	if (!from_file)
		sim_buf_printf(b, "activation = %s\nnorm = %s\nuntied_embeddings = %s\n",
		               swiglu ? "swiglu" : "gelu", swiglu ? "rmsnorm" : "layernorm",
		               untied ? "true" : "false");
	valid_put_recipe(b, mod, rec, "model.", assumed, alen);
	/* The SwiGLU families (Llama, Mistral, DeepSeek) carry no linear
	 * biases; [model] bias defaults to Megatron's GPT (true), so say it
	 * unless the recipe gave the model's own (GPT-OSS's). */
	if (swiglu && !from_file && !strstr(b->data + mod, "\nbias ="))
		sim_buf_printf(b, "bias = false\n");
	sim_buf_printf(b, "[node]\ngpus = %ld\n", gpus < gpn ? gpus : gpn);
	if (efa)
		valid_assume(assumed, alen,
		             "EFA: the shipped %s (its node's EFA NICs and the aws-ofi-nccl tuner of "
		             "its instance%s)%s",
		             efa, !strcmp(efa, VALID_EFA_CLUSTER) ? ", the fabric fitted to "
		                                                    "efa-collectives.csv" : "",
		             *get(c, row, "nics_per_node") || *get(c, row, "nic_gbps")
		                     ? "; the row's NIC columns not used" : "");
	if (other.instance)
		valid_efa_unfit_keys(b, &other, false);
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
	if (inter && !efa && !other.instance && !*get(c, row, "nics_per_node") &&
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
	long scaled = !inter && !efa && !other.instance && !*get(c, row, "nics_per_node") &&
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
	if (!*get(c, row, "fabric") && !efa && !other.instance && gpus > gpn)
		valid_assume(assumed, alen,
		             "fabric open: a non-blocking fat tree of the row's NICs (not published)");
	else if (!valid_loose_named("fabric", get(c, row, "fabric")))
		valid_assume(assumed, alen,
		             "fabric '%.24s' not in the schema: a non-blocking fat tree of the "
		             "row's NICs",
		             get(c, row, "fabric"));
	sim_buf_printf(b, "[cluster]\nname = %s\nnodes = %ld\nfabric = %s\n", get(c, row, "id"),
		       gpus < gpn ? 1 : (gpus + gpn - 1) / gpn,
		       on_efa ? "efa" : fabric_name(get(c, row, "fabric")));
	if (other.instance)
		valid_efa_unfit_keys(b, &other, true);
	if (opt)
		sim_buf_printf(b, "network = %s\n",
		               tune->fast                       ? "alpha-beta"
		               : opt->network == NET_MODEL_FLOW ? "flow"
		               : opt->network == NET_MODEL_AUTO ? "auto"
		                                                : "alpha-beta");
	size_t par = b->len;
	sim_buf_printf(b, "[parallel]\n");
	static const char *const same[] = {"tp", "pp", "dp", "cp", "ep", "vpp", "global_batch",
					   "micro_batch", "sequence_parallel", "zero", "recompute"};
	bool layers = !strcmp(get(c, row, "recompute"), "selective") &&
	              selective_is_layers(opt, profile);
	int how;
	long batch = row_batch(c, row, rec, mb, &how);
	long pub_mb = atol(plan_col(c, row, rec, "micro_batch", rv, sizeof rv));
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		if ((!layers || strcmp(same[i], "recompute")) &&
		    (how == BATCH_AS_PUBLISHED || strcmp(same[i], "global_batch")))
			put(b, c, row, same[i], same[i]);
	if (how != BATCH_AS_PUBLISHED)
		sim_buf_printf(b, "global_batch = %ld\n", batch);
	if (how == BATCH_ROUNDED)
		valid_assume(assumed, alen,
		             "global_batch %ld (published %ld, no multiple of dp %ld x micro_batch "
		             "%ld: the nearest batch of whole micro-batches per replica, as the "
		             "framework runs it)",
		             batch, row_global_batch(c, row, rec), dp,
		             pub_mb > 0 ? pub_mb : mb > 0 ? mb : 1);
	else if (how == BATCH_OPEN_PP)
		valid_assume(assumed, alen,
		             "global_batch %ld (not published: pp micro-batches per replica, the "
		             "fewest that fill the pipeline)",
		             batch);
	else if (how == BATCH_OPEN)
		valid_assume(assumed, alen,
		             "global_batch %ld (not published: one micro-batch per replica, no "
		             "gradient accumulation)",
		             batch);
	/* the layers: the row's (its recipe's), else its model file's */
	const char *nlv = valid_arch_value(c, row, rec, "layers", rv, sizeof rv);
	long nlayers = *nlv ? atol(nlv) : from_file ? file_layers(opt->datadir, mname) : 0;
	if (layers)
		layer_checkpointing(b, c, row, nlayers, assumed, alen);
	/* the framework's default for an open sequence_parallel at tp > 1
	 * (read only then: row_text runs for every candidate of tuned_plan) */
	plan_framework pf;
	bool sp_default = !*get(c, row, "sequence_parallel") && atol(get(c, row, "tp")) > 1 &&
	                  load_profile(opt, profile, &pf) && pf.sp && pf.sp_default;
	put_open_plan(b, c, row, layers, dp, experts, gshard, sp_default, opt, profile, rec, tune,
	              assumed, alen);
	if (!*plan_col(c, row, rec, "micro_batch", rv, sizeof rv)) {
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
			             mb, dp > 0 ? batch / dp : 0);
		} else
			valid_assume(assumed, alen, "micro_batch 1 (not published)");
	}
	long vpp = atol(plan_col(c, row, rec, "vpp", rv, sizeof rv));
	/* the model's MTP modules: the row's (its recipe's) or its model file's */
	const char *mtv = valid_arch_value(c, row, rec, "mtp_layers", rv, sizeof rv);
	long mtp = *mtv ? atol(mtv)
	                : from_file ? atol(file_key(opt->datadir, mname, "mtp_layers", rv, sizeof rv))
	                            : 0;
	if (!*plan_col(c, row, rec, "vpp", rv, sizeof rv) && pp > 1)
		vpp = put_open_vpp(b, c, row, opt, profile, rec, nlayers, mtp, pp, dp, mb, assumed,
		                   alen);
	/* A note naming Megatron's --overlap-param-gather (or --overlap-grad-reduce):
	 * Megatron accepts the first only together with the second, so the
	 * source's DP gradient reduction overlapped the backward. */
	const char *note = get(c, row, "note");
	if (strstr(note, "--overlap-param-gather") || strstr(note, "--overlap-grad-reduce"))
		sim_buf_printf(b, "overlap_grad_reduce = true\n");
	/* ... and with the distributed optimizer its parameter all-gather under
	 * the next forward; --tp-comm-overlap (Transformer Engine userbuffers)
	 * only where the row runs sequence parallelism, which it needs. */
	int zero = tune->zero >= 0 ? tune->zero : atoi(get(c, row, "zero"));
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
	valid_put_recipe(b, par, rec, "", assumed, alen);
	put_uneven_default(b, opt, profile, nlayers, pp, vpp, assumed, alen);
	if (opt && opt->framework_set)
		sim_buf_printf(b, "[framework]\nop_overhead = %.9g us\n", opt->framework_s * 1e6);
	if (opt && opt->sustain_set) /* the row's precision's key */
		sim_buf_printf(b, "[gpu]\ntensor_sustain%s = %.9g\n",
			       !strcmp(get(c, row, "precision"), "fp8") ? "_fp8" : "", opt->sustain);
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
	put_lora(b, c, row, assumed, alen);
	valid_put_recipe(b, trn, rec, "train.", assumed, alen);
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

/* Whether the plan fits: the verdict `podsim run` reports and the sweep
 * prunes on (plan_memory_fit: the most loaded stage within the GPU's memory,
 * which holds exactly when every stage is, since a stage out of memory has a
 * device total above the capacity and one within it none; the stages on
 * [cluster] other_gpu's nodes; offloaded states within host DRAM and NVMe). */
static bool fits(const plan_scenario *s)
{
	plan_mem_fit f;
	plan_memory_fit(s, &f);
	return f.where == PLAN_OOM_NONE;
}

/* The row's scenario under `t`, loaded as the prediction loads it (a
 * missing feature's rule set aside, valid_rule_waivers): NULL where it
 * cannot be. */
static plan_scenario *tuned_load(const cases_csv *c, size_t row, const valid_options *opt,
                                 const row_tune *t)
{
	sim_buf b;
	sim_buf_init(&b);
	char assumed[1024] = "", whyb[256];
	const char *why = row_text(c, row, "", opt, t, &b, assumed, sizeof assumed, whyb, sizeof whyb);
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	if (!why && !b.oom && d &&
	    plan_scenario_load_string(b.data, "<tuning>", opt->datadir, d, &s) != SIM_OK) {
		s = NULL;
		if (valid_rule_waivers(d, &b, assumed, sizeof assumed) && !b.oom) {
			sim_diag_clear(d);
			if (plan_scenario_load_string(b.data, "<tuning>", opt->datadir, d, &s) != SIM_OK)
				s = NULL;
		}
	}
	sim_diag_free(d);
	sim_buf_free(&b);
	return s;
}

/* The row's framework profile (row_stack, load_profile) into *fw; false
 * where it has none or it does not load. tuned_plan reads what the
 * framework runs from it: selective recomputation (runs_selective_recompute;
 * Megatron-LM's arrived in 2022) and its ZeRO stages (runs_zero, and
 * runs_zero_with_pp under a pipeline). */
static bool row_framework(const cases_csv *c, size_t row, const valid_options *opt,
                          plan_framework *fw)
{
	const char *profile, *attention;
	char name[64], scratch[1024] = "";
	return !row_stack(c, row, opt, &profile, &attention, name, sizeof name, scratch,
	                  sizeof scratch) &&
	       load_profile(opt, profile, fw);
}

/* Whether the row fits under `t`. */
static bool tuned_fits(const cases_csv *c, size_t row, const valid_options *opt,
                       const row_tune *t)
{
	plan_scenario *s = tuned_load(c, row, opt, t);
	bool ok = s && fits(s);
	plan_scenario_free(s);
	return ok;
}

/* The step of the row under `t` where it loads, fits and simulates, else
 * a negative time: -2 where it loads but does not fit. `r` is the
 * caller's result buffer. Under t->partial
 * (recompute full), first the fewest layers of each chunk whose
 * recomputation makes it fit, by bisection (memory falls as more layers
 * recompute: Megatron-LM's --recompute-method block --recompute-num-layers
 * N, from bbab79f869, as the cuts `podsim explain` prints find them);
 * t->rc_layers 0 where only all of them fit. */
static double tuned_step(const cases_csv *c, size_t row, const valid_options *opt, row_tune *t,
                         exec_result *r)
{
	t->rc_layers = 0;
	plan_scenario *s = tuned_load(c, row, opt, t);
	if (!s || !fits(s)) {
		bool oom = s != NULL;
		plan_scenario_free(s);
		return oom ? -2 : -1;
	}
	if (t->partial) {
		int lo = 1, hi = 0, first; /* hi: the most layers a chunk holds (all) */
		for (int st = 0; st < s->plan.pp; st++)
			for (int ch = 0; ch < (s->plan.vpp > 1 ? s->plan.vpp : 1); ch++) {
				int n = plan_chunk_layers(s, st, ch, &first);
				hi = n > hi ? n : hi;
			}
		int all = hi;
		while (lo < hi) {
			row_tune m = *t;
			m.rc_layers = lo + (hi - lo) / 2;
			if (tuned_fits(c, row, opt, &m))
				hi = m.rc_layers;
			else
				lo = m.rc_layers + 1;
		}
		row_tune m = *t;
		m.rc_layers = lo;
		plan_scenario *p = lo < all ? tuned_load(c, row, opt, &m) : NULL;
		if (p && fits(p)) {
			plan_scenario_free(s);
			s = p;
			t->rc_layers = lo;
		} else
			plan_scenario_free(p);
	}
	double step = exec_run(s, r) == SIM_OK ? r->step_s : -1;
	plan_scenario_free(s);
	return step;
}

/* An empty micro_batch column. Benchmark tables publish the plan their
 * authors tuned (the Megatron-LM README's table names tp, pp, dp and the
 * batch, not the micro-batch), and the micro-batch is the knob tuned last:
 * a larger one runs larger GEMMs and hides more of the data-parallel
 * reduction behind the last micro-batch's backward, a smaller one shrinks a
 * pipeline's bubble. So `t` gets the divisor of the row's sequences per
 * replica (global_batch / dp) whose simulated step is the shortest among
 * those that fit in memory, ties to the smaller, and its time per sequence
 * is returned; a negative time, and t->mb 0, when none of them runs (the
 * row then reports micro_batch 1's reason). Where the batch is open or no
 * multiple of dp (row_batch: each micro-batch then runs a batch of its
 * own), the candidates are 1, 2, 4 ... 64: with the batch published, those
 * whose rounded batch is within 10 % of it (1 always), ranked by the time
 * per sequence. */
static double tuned_micro_batch(const cases_csv *c, size_t row, const valid_options *opt,
                                row_tune *t, exec_result *r)
{
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	long dp = row_dp(c, row), gb = row_global_batch(c, row, rec);
	bool own = gb <= 0 || (dp > 0 && gb % dp); /* a batch per micro-batch */
	long per = own ? 64 : dp > 0 ? gb / dp : 0, best = 0, failed = 0;
	double best_s = -1;
	for (long mb = 1; mb <= per && mb <= 64; mb = own ? 2 * mb : mb + 1) {
		int how;
		long batch = row_batch(c, row, rec, mb, &how);
		if ((!own && per % mb) || batch <= 0 || mb <= t->above ||
		    (own && gb > 0 && mb > 1 && fabs((double)(batch - gb)) > 0.1 * (double)gb))
			continue;
		row_tune m = *t;
		m.mb = mb;
		double step = tuned_step(c, row, opt, &m, r);
		double cost = step >= 0 ? step / (double)batch : step;
		if (step < 0)
			failed = mb;
		if (step == -2)
			break; /* out of memory: a larger micro-batch holds more */
		if (step >= 0 && (!best || cost < best_s)) {
			best = mb;
			best_s = cost;
			t->rc_layers = m.rc_layers;
		}
	}
	t->mb = best;
	t->capped = failed > best;
	return best_s;
}

/* The open plan columns a simulation settles: the micro-batch (above),
 * and the ZeRO stage and recomputation where the row and its recipe leave
 * them open and their defaults (zero 0, recompute none) leave the plan out
 * of memory. The run completed, so it fitted; a framework's users reach
 * for the distributed optimizer or ZeRO and for recomputation when a plan
 * does not fit, and tune for speed: so the fastest combination that fits
 * of the ZeRO stages the framework runs (runs_zero, with a pipeline
 * runs_zero_with_pp; a stage past them, its rule set aside and said, only
 * where none of them fits)
 * and none, selective (where the framework runs it: Megatron-LM from
 * 2022, runs_selective_recompute) or full recomputation (there also of the
 * fewest layers a chunk that fit, tuned_step), each with its micro-batch
 * tuned where open, ranked on the closed-form network (as the sweep's
 * pre-screen ranks plans: a flow simulation of a 4,096-GPU MoE plan takes
 * a minute, its closed forms milliseconds) and the row then simulated on
 * its own; sequence parallelism, where open at tp > 1 and the framework
 * runs it (runs_sequence_parallel) but its default does not, among them.
 * Where nothing fits, the defaults: the row is predicted and its verdict
 * says out of memory. Where the defaults fit, the defaults, unless the
 * micro-batch is open, there is no pipeline and memory capped it (a
 * larger one did not fit: def.capped): then the same search, the others
 * only at larger micro-batches, against the defaults at theirs, by time
 * per sequence (a tuned ZeRO-3 benchmark recomputes to run fewer, larger
 * micro-batches, each of which gathers the weights again: OPT-style rows
 * 3x faster than at micro-batch 1). A row offloading to the CPU or NVMe
 * keeps its ZeRO rule (put_open_plan). */
static row_tune tuned_plan(const cases_csv *c, size_t row, const valid_options *opt)
{
	static const char *const rcs[] = {NULL, "selective", "full"};
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	char rv[32];
	const char *off = get(c, row, "offload");
	bool open_rc = !*plan_col(c, row, rec, "recompute", rv, sizeof rv);
	bool open_zero = !*plan_col(c, row, rec, "zero", rv, sizeof rv) &&
	                 (!*off || !strcmp(off, "none"));
	bool open_mb = !*plan_col(c, row, rec, "micro_batch", rv, sizeof rv);
	bool open_sp = !*plan_col(c, row, rec, "sequence_parallel", rv, sizeof rv) &&
	               atol(get(c, row, "tp")) > 1;
	row_tune def = {.zero = -1}, best = def;
	exec_result *r = malloc(sizeof *r);
	if (!r)
		return def;
	double best_s = -1;
	if (open_mb)
		best_s = tuned_micro_batch(c, row, opt, &def, r);
	else if (open_rc || open_zero || open_sp)
		best_s = tuned_fits(c, row, opt, &def) ? 0 : -1;
	/* sequence parallelism where the framework runs it and neither its
	 * default nor MoE's rule (put_open_plan) has turned it on already */
	if (open_sp) {
		plan_scenario *s0 = tuned_load(c, row, opt, &def);
		open_sp = s0 && !s0->plan.sequence_parallel && s0->fw.sp &&
		          s0->model.moe_experts <= 1;
		plan_scenario_free(s0);
	}
	/* where the defaults fit, the others only without a pipeline, where
	 * memory, not speed, capped the micro-batch, and only for larger
	 * micro-batches: what they cost is repaid only by a micro-batch the
	 * defaults cannot fit, whose fixed costs (ZeRO-3's gathers, the
	 * data-parallel waits, the host's) are paid fewer times; a pipeline's
	 * micro-batch also sets its bubble, and pipelined benchmarks run small
	 * ones (NVIDIA's tables 1-2) */
	bool plain = best_s >= 0;
	if ((plain && !(open_mb && def.capped && atol(get(c, row, "pp")) <= 1)) ||
	    (!open_rc && !open_zero && !open_sp)) {
		free(r);
		return def;
	}
	if (plain) /* ranked again with the recomputations, on the same network */
		best_s = -1;
	plan_framework fw;
	bool have_fw = row_framework(c, row, opt, &fw);
	bool selective = open_rc && have_fw && fw.selective_recompute;
	/* the ZeRO stages the framework runs first; past them (its rule set
	 * aside, said) only where none of them fits */
	int zmax = !open_zero ? 0
	           : !have_fw ? 3
	           : atoi(get(c, row, "pp")) > 1 ? fw.zero_max_pp
	                                          : fw.zero_max;
	/* the defaults' stage: the framework's for an open column
	 * (valid_open_zero: FSDP's FULL_SHARD), else 0 */
	int dz = 0;
	if (open_zero) {
		plan_scenario *s0 = tuned_load(c, row, opt, &def);
		dz = s0 ? s0->plan.zero : 0;
		plan_scenario_free(s0);
	}
	for (int sp = 0; sp <= (open_sp ? 1 : 0); sp++)
		for (int z = 0; z <= (open_zero ? 3 : 0); z++)
			for (size_t i = 0; i < (open_rc ? sizeof rcs / sizeof rcs[0] : 1); i++) {
				if (z == dz && i == 0 && !sp && !plain)
					continue; /* the defaults, tried above */
				if (z > zmax && best_s >= 0)
					break; /* a stage the framework runs fits */
				if (rcs[i] && !strcmp(rcs[i], "selective") && !selective)
					continue; /* not offered (a row stating it sets the rule aside) */
				/* full recomputation of only as many layers as it takes
				 * where the framework has that option (from 2022, with
				 * selective: Megatron-LM bbab79f869) */
				row_tune t = {.recompute = rcs[i],
				              .zero = open_zero ? z : -1,
				              .sp = sp,
				              .sp_open = open_sp,
			              .for_speed = plain,
			              .above = plain ? def.mb : 0,
				              .partial = selective && rcs[i] && !strcmp(rcs[i], "full"),
				              .fast = true};
				double step;
				if (plain && z == dz && i == 0 && !sp) {
					/* the defaults at their micro-batch, on this network */
					int how;
					t.mb = def.mb;
					step = tuned_step(c, row, opt, &t, r);
					if (step >= 0)
						step /= (double)row_batch(c, row, rec, t.mb, &how);
				} else
					step = open_mb ? tuned_micro_batch(c, row, opt, &t, r)
					               : tuned_step(c, row, opt, &t, r);
				if (step >= 0 && (best_s < 0 || step < best_s)) {
					best = t;
					best_s = step;
				}
			}
	free(r);
	best.fast = false; /* the row itself on its own network */
	return best;
}

/* Whether a training row leaves its layout open, tp, pp and dp alike,
 * neither the row as written nor its recipe giving one. */
static bool layout_open(const cases_csv *c, size_t row, const valid_options *opt)
{
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	static const char *const deg[] = {"tp", "pp", "dp"};
	for (int i = 0; i < 3; i++) {
		char rv[32];
		int k = cases_csv_col(c, deg[i]);
		if (k >= 0 && (*cases_csv_written(c, row, k) || *cases_csv_get(c, row, k)))
			return false;
		if (*valid_recipe_value(rec, deg[i], rv, sizeof rv))
			return false;
	}
	return true;
}

int valid_open_layout(cases_csv *c, size_t row, const valid_options *opt)
{
	int kt = cases_csv_col(c, "tp"), kp = cases_csv_col(c, "pp");
	if (kt < 0 || kp < 0 || cases_csv_col(c, "kind") >= 0)
		return SIM_OK;
	/* the degrees the row's recipe line gives where the row leaves them
	 * open (a run script's, recipes.csv): into the cells, as published,
	 * so that every reading of them (dp = gpus / (tp pp cp)) agrees */
	const valid_recipe *rec = valid_row_recipe(opt, c, row);
	int k2[2] = {kt, kp};
	static const char *const deg[] = {"tp", "pp"};
	for (int i = 0; i < 2; i++) {
		char rv[32];
		if (*cases_csv_written(c, row, k2[i]) || *cases_csv_get(c, row, k2[i]) ||
		    !*valid_recipe_value(rec, deg[i], rv, sizeof rv))
			continue;
		int rc = cases_csv_set(c, row, k2[i], rv);
		if (rc != SIM_OK)
			return rc;
	}
	/* one of tp and pp open beside the other and a published dp: the
	 * degree that fills the GPUs, as an open dp is (put_open_plan says it) */
	long fill = 0;
	int open_k = filled_degree(c, row, &fill);
	if (open_k >= 0) {
		char f[24];
		snprintf(f, sizeof f, "%ld", fill);
		return cases_csv_set(c, row, open_k, f);
	}
	if (!layout_open(c, row, opt))
		return SIM_OK;
	valid_row *v = calloc(1, sizeof *v);
	if (!v)
		return SIM_ENOMEM;
	/* the documented default first: tp 1, pp 1 (put_open_plan says so) */
	valid_training_row(c, row, opt, v);
	bool runs = v->status == VALID_OK && strcmp(v->verdict, "oom");
	long gpus = atol(get(c, row, "gpus")), gpn = atol(get(c, row, "gpus_per_node"));
	long cp = atol(get(c, row, "cp"));
	gpn = gpn > 0 ? gpn : 8; /* row_hardware's default node */
	cp = cp > 0 ? cp : 1;
	double best = INFINITY;
	long bt = 0, bp = 0;
	/* tp inside a node (NVLink), pp in powers of two that fill the GPUs:
	 * NVIDIA's, DeepSpeed's and the papers' layouts; the row's builder and
	 * the plan check refuse the rest (heads, layers, batch) */
	for (long tp = 1; !runs && tp <= 8 && tp <= gpn; tp *= 2)
		for (long pp = 1; pp <= 64; pp *= 2) {
			if ((tp == 1 && pp == 1) || gpus % (tp * pp * cp) != 0)
				continue;
			char t[24], p[24];
			snprintf(t, sizeof t, "%ld", tp);
			snprintf(p, sizeof p, "%ld", pp);
			int rc = cases_csv_set(c, row, kt, t);
			rc = rc != SIM_OK ? rc : cases_csv_set(c, row, kp, p);
			if (rc != SIM_OK) {
				free(v);
				return rc;
			}
			memset(v, 0, sizeof *v);
			valid_training_row(c, row, opt, v);
			if (v->status == VALID_OK && strcmp(v->verdict, "oom") && v->predicted < best)
				best = v->predicted, bt = tp, bp = pp;
		}
	free(v);
	char t[24] = "", p[24] = "";
	if (bt > 0) {
		snprintf(t, sizeof t, "%ld", bt);
		snprintf(p, sizeof p, "%ld", bp);
	}
	int rc = cases_csv_set(c, row, kt, t); /* none runs: open again, as before */
	return rc != SIM_OK ? rc : cases_csv_set(c, row, kp, p);
}

void valid_training_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v)
{
	/* open tp and pp run as 1 (put_open_plan says so) */
	const char *tpc = get(c, row, "tp"), *ppc = get(c, row, "pp");
	snprintf(v->what, sizeof v->what, "%.40s %sx%s tp%s pp%s dp%ld", get(c, row, "model"),
		 get(c, row, "gpus"), get(c, row, "gpu"), *tpc ? tpc : "1", *ppc ? ppc : "1",
		 row_dp(c, row));
	snprintf(v->rank_key, sizeof v->rank_key, "%.60s|%s|%s", get(c, row, "model"),
		 get(c, row, "gpus"), get(c, row, "gpu"));
	/* the source's group: the stack table's label, else the source itself */
	const char *source = get(c, row, "source");
	valid_ran ran = {atoi(get(c, row, "zero")), atoi(get(c, row, "tp"))};
	const valid_stack *st = opt->stacks ? valid_stack_find(opt->stacks, source, ran) : NULL;
	if (st && *st->label && *st->match)
		snprintf(v->group, sizeof v->group, "%s", st->label);
	else if (*source)
		valid_source_key(source, v->group, sizeof v->group);
	v->measured = atof(get(c, row, "measured_iter_s"));
	/* no step time but a printed throughput: converted once the scenario
	 * is loaded (valid_measured_from_metric) */
	bool from_metric = v->measured <= 0 && valid_metric_gives_time(c, row);
	/* a plan that ran out of memory ("OOM" for its step): its verdict only */
	v->oom_run = v->measured <= 0 && !from_metric && valid_oom_marked(c, row, "measured_iter_s");
	if (v->measured <= 0 && !from_metric && !v->oom_run) {
		v->status = VALID_SKIPPED;
		snprintf(v->reason, sizeof v->reason, "no measured_iter_s%s",
		         *get(c, row, "measured_metric")
		                 ? " (its measured_metric gives none: tokens_per_s[_per_gpu], "
		                   "samples_per_s, tflops_per_gpu, a 16-bit row's mfu or hfu, or a "
		                   "step time in a unit of time)"
		                 : "");
		return;
	}
	sim_buf b;
	sim_buf_init(&b);
	char whyb[256];
	row_tune t = tuned_plan(c, row, opt);
	const char *why = row_text(c, row, "", opt, &t, &b, v->assumed, sizeof v->assumed, whyb,
				   sizeof whyb);
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
	row_tune t = tuned_plan(c, row, opt);
	const char *reason = row_text(c, row, dir, opt, &t, &text, assumed,
				      sizeof assumed, whyb, sizeof whyb);
	if (reason) {
		snprintf(why, why_len, "%s", reason);
		sim_buf_free(&text);
		return SIM_ECONF;
	}
	/* the profile's rules the prediction sets aside, found by loading the
	 * row as valid_training_row does */
	sim_buf probe;
	sim_buf_init(&probe);
	row_text(c, row, "", opt, &t, &probe, (char[1024]){""}, 1024, whyb, sizeof whyb);
	valid_printed_waivers(&probe, opt->datadir, &text, assumed, sizeof assumed);
	sim_buf_free(&probe);
	valid_put_assumed(out, assumed);
	sim_buf_printf(out, "%s", text.data ? text.data : "");
	bool oom = text.oom || out->oom;
	sim_buf_free(&text);
	return oom ? SIM_ENOMEM : SIM_OK;
}
