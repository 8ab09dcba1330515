/* estimate.c - `podsim estimate`: the quick back-of-the-envelope figures of the
 * course notes (shared/notes), each printed with its formula and the numbers
 * plugged in. No simulation: this is what one works out on paper before
 * writing a scenario for `podsim run`.
 *
 * Figures (P = parameters, D = training tokens, b = bytes per value):
 *   weights            P x b, b = 4 (fp32), 2 (fp16/bf16), 1 (int8), 0.5 (int4)
 *   inference GPUs     ceil(weights / GPU memory)
 *   KV cache           2 (K and V) x layers x kv_heads x head_dim x seq x batch x b
 *   training, rule     6 x P x b (the notes' "~6x inference" multiplier: optimizer
 *                      states, gradients, activations and buffers lumped together)
 *   training, Adam     mixed precision: 2 (16-bit weights) + 2 (16-bit gradients)
 *                      + 12 (fp32 master weights, momentum m, variance v) = 16 B/param,
 *                      18 B/param with fp32 gradients; activations excluded
 *   compute            C = 6 x P x D FLOPs (2 forward + 4 backward per parameter
 *                      and token); with a model file also work_model_flops
 *   Chinchilla         D = 20 x P tokens (the default D)
 *   time to train      C / (gpus x peak x MFU); GPU-hours = C / (peak x MFU) / 3600
 *   energy, CO2        (GPU power + node overhead) x PUE x hours, x grid intensity
 *                      (sweep_energy_terms; GPU power = --power, else the TDP)
 *   years              8,760 h (365 days); the course notes' GPU-years are 360-day
 *                      years of 8,640 h, named where they are quoted
 *
 * JSON keys (--json; SI units: bytes, FLOPs, FLOP/s, seconds; null = not known
 * from the inputs given):
 *   model, gpu                 names or null
 *   precision                  training/inference dtype name ("bf16")
 *   bytes_per_param            storage bytes of that dtype
 *   params                     P
 *   params_embedding, params_layers, params_output  breakdown (null without a model)
 *   gpu_memory_bytes           GPU memory used for the counts (80 GB default)
 *   gpu_memory_default         true when no --gpu was given
 *   weights_bytes              {"fp32", "fp16", "int8", "int4"}
 *   inference_gpus             {"fp32", "fp16", "int8", "int4"}
 *   kv_seq, kv_batch           sequence length and batch of the KV cache figure
 *   kv_cache_bytes             KV cache (null without a model)
 *   inference_total_bytes, inference_total_gpus  weights at precision + KV cache
 *   train_rule_bytes, train_rule_gpus            6 x P x bytes_per_param
 *   train_adam_bytes, train_adam_gpus            16 x P
 *   train_adam_fp32_grads_bytes, train_adam_fp32_grads_gpus  18 x P
 *   tokens, tokens_given       D, and whether --tokens gave it
 *   tokens_chinchilla          20 x P
 *   flops_6pd                  6 x P x D
 *   model_flops_per_token, model_flops  work_model_flops (null without a model)
 *   mfu, peak_flops            MFU and dense peak of the precision (null without --gpu)
 *   gpus                       --gpus (null if absent)
 *   gpu_hours, train_seconds, train_days  (null when peak or gpus are unknown)
 *   energy_mwh, co2_t          (GPU power + node power) x PUE x hours, x intensity
 *   energy_gpu_tdp_mwh         the GPUs alone at TDP, PUE 1 (Llama 2's convention)
 *   gpu_power_w, node_power_w, gpus_per_node, pue, grid_intensity  the inputs
 *
 * Called from main.c's dispatch; the only output is stdout/stderr.
 */
#include "cli.h"

#include "net/net.h"
#include "sweep/sweep.h"
#include "work/work.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EST_EXIT_INPUT 2
#define EST_DEFAULT_MEM 80e9 /* bytes: an 80 GB GPU when no --gpu is given */
#define EST_DEFAULT_SEQ 4096
#define EST_DEFAULT_MFU 0.4
#define EST_CHINCHILLA 20.0    /* tokens per parameter (Hoffmann et al. 2022) */
#define EST_RULE_MULT 6.0      /* training ~ 6 x inference memory (course notes) */
#define EST_ADAM_BYTES 16.0    /* 2 + 2 + 12 */
#define EST_ADAM32_BYTES 18.0  /* 2 + 4 + 12 */

static const char usage_estimate[] =
	"usage: podsim estimate (--model MODEL.ini | --params N) [options]\n"
	"\n"
	"Back-of-the-envelope figures from the course notes, each with its formula:\n"
	"parameters, weights at fp32/fp16/int8/int4 and the GPUs they need, the KV\n"
	"cache, training memory (the ~6x rule and mixed-precision Adam at 16 or 18\n"
	"bytes/param), compute C = 6 x P x D, Chinchilla D = 20 x P, and time to train.\n"
	"No simulation: use 'podsim run' for a step of a real plan.\n"
	"\n"
	"options:\n"
	"  --model FILE       model shape (e.g. models/llama2-70b.ini)\n"
	"  --params N         parameter count instead of a model (e.g. 70e9)\n"
	"  --gpu FILE         GPU type (e.g. topologies/gpus/h100-sxm5-80g.ini): memory\n"
	"                     and peak FLOP/s; without it 80 GB and no time to train\n"
	"  --tokens D         training tokens (default Chinchilla: 20 x P)\n"
	"  --mfu X            model FLOPs utilisation, 0 < X <= 1 (default 0.4)\n"
	"  --gpus N           GPUs training, for the time to train\n"
	"  --seq S            sequence length of the KV cache (default: the model's\n"
	"                     seq_len, else 4096)\n"
	"  --batch B          sequences in the KV cache (default 1)\n"
	"  --precision T      fp32, tf32, fp16, bf16, fp8 (default bf16): bytes of\n"
	"                     the KV cache and the ~6x rule, and the peak used\n"
	"  --power W          measured average power per GPU in watts (default: TDP)\n"
	"  --node-power W     power per node besides the GPUs, watts (default 0)\n"
	"  --gpus-per-node N  GPUs per node for the node overhead (default 8)\n"
	"  --pue X            data-centre PUE, >= 1 (default 1)\n"
	"  --grid-intensity X kg CO2e per kWh (default 0.423, Llama 2's implied)\n"
	"  --json             print one JSON object (keys in sim/cli/estimate.c)\n"
	"  -h, --help         this help\n"
	"\n"
	"exit status: 0 ok, 1 out of memory, 2 bad input\n";

typedef struct est_opts {
	const char *model_path, *gpu_path, *precision;
	double params, tokens, mfu;
	long gpus, seq, batch;
	double power_w, node_w, pue, grid;
	long per_node;
	bool node_set, grid_set;
	bool json, help;
} est_opts;

/* Every figure, computed once and printed as text or JSON. */
typedef struct est {
	bool have_model, have_gpu;
	work_model m;
	hw_gpu g;
	hw_dtype dtype;
	double b;                          /* bytes per value at the precision */
	double P, p_embed, p_layer, p_layers, p_output;
	double mem;                        /* GPU memory for the counts */
	double weights[4], inf_gpus[4];    /* fp32, fp16, int8, int4 */
	long seq, batch;
	double head_dim, kv_bytes, inf_total, inf_total_gpus;
	double rule_bytes, rule_gpus, adam, adam_gpus, adam32, adam32_gpus;
	double D, D_chin;
	bool D_given;
	double C, mf_token, mf_total;
	double mfu, peak;
	long gpus;
	double gpu_hours, seconds;
	bool have_energy;
	sweep_energy en;
	long per_node;
} est;

static const char *const q_names[4] = {"fp32", "fp16", "int8", "int4"};
static const char *const q_labels[4] = {"fp32", "fp16/bf16", "int8", "int4"};
static const double q_bytes[4] = {4, 2, 1, 0.5};

static int est_bad(const char *msg, const char *arg)
{
	fprintf(stderr, "podsim: error: estimate: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "podsim: note: 'podsim estimate --help' lists the options\n");
	return EST_EXIT_INPUT;
}

static bool parse_real(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || !(v > 0))
		return false;
	*out = v;
	return true;
}

/* A count from 1 to 2^31 - 1: strtol saturates at LONG_MAX with ERANGE,
 * which was taken as the count (--gpus 99999999999999999999 clamped). */
static bool parse_count(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v <= 0 || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

/* Options taking a value: "--opt VALUE" or "--opt=VALUE". */
static const char *const value_opts[] = {"--model", "--params", "--gpu",   "--tokens",
					 "--mfu",   "--gpus",   "--seq",   "--batch",
					 "--precision", "--power", "--node-power", "--gpus-per-node",
					 "--pue", "--grid-intensity", NULL};

static int set_value(est_opts *o, const char *name, const char *v)
{
	bool ok = true;
	if (!strcmp(name, "--model"))
		o->model_path = v;
	else if (!strcmp(name, "--gpu"))
		o->gpu_path = v;
	else if (!strcmp(name, "--precision"))
		o->precision = v;
	else if (!strcmp(name, "--params"))
		ok = parse_real(v, &o->params);
	else if (!strcmp(name, "--tokens"))
		ok = parse_real(v, &o->tokens);
	else if (!strcmp(name, "--mfu"))
		ok = parse_real(v, &o->mfu) && o->mfu <= 1;
	else if (!strcmp(name, "--gpus"))
		ok = parse_count(v, &o->gpus);
	else if (!strcmp(name, "--seq"))
		ok = parse_count(v, &o->seq);
	else if (!strcmp(name, "--batch"))
		ok = parse_count(v, &o->batch);
	else if (!strcmp(name, "--power"))
		ok = parse_real(v, &o->power_w);
	else if (!strcmp(name, "--node-power"))
		ok = (o->node_set = true) && (!strcmp(v, "0") || parse_real(v, &o->node_w));
	else if (!strcmp(name, "--gpus-per-node"))
		ok = parse_count(v, &o->per_node);
	else if (!strcmp(name, "--pue"))
		ok = parse_real(v, &o->pue) && o->pue >= 1;
	else if (!strcmp(name, "--grid-intensity"))
		ok = (o->grid_set = true) && (!strcmp(v, "0") || parse_real(v, &o->grid));
	if (ok)
		return 0;
	char msg[96];
	snprintf(msg, sizeof msg, "%s takes %s", name,
		 !strcmp(name, "--mfu")   ? "a fraction in (0, 1]"
		 : !strcmp(name, "--pue") ? "a number >= 1"
		 : !strcmp(name, "--power") || !strcmp(name, "--node-power") ||
				 !strcmp(name, "--grid-intensity")
			 ? "a non-negative number"
		 : !strcmp(name, "--params") || !strcmp(name, "--tokens")
			 ? "a positive number (e.g. 7e9)"
			 : "an integer from 1 to 2^31 - 1");
	return est_bad(msg, v);
}

static int parse_opts(int argc, char **argv, est_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
			continue;
		}
		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		const char *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		const char *name = NULL;
		for (int k = 0; value_opts[k]; k++)
			if (strlen(value_opts[k]) == n && !strncmp(a, value_opts[k], n))
				name = value_opts[k];
		if (!name)
			return est_bad(a[0] == '-' ? "unknown option" : "unexpected argument", a);
		const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v)
			return est_bad("option needs a value", a);
		int rc = set_value(o, name, v);
		if (rc)
			return rc;
	}
	return 0;
}

/* Load a .ini file and fill a model or GPU from it with the module's reader;
 * diagnostics to stderr. Returns 0, or the exit status. */
typedef int (*est_reader)(const conf_doc *doc, void *out, sim_diag *diag);

static int read_model(const conf_doc *doc, void *out, sim_diag *diag)
{
	return work_model_from_conf(doc, out, diag);
}

static int read_gpu(const conf_doc *doc, void *out, sim_diag *diag)
{
	return hw_gpu_from_conf(doc, out, diag);
}

static int load_ini(const char *path, est_reader read, void *out)
{
	sim_diag *d = sim_diag_new();
	if (!d)
		return 1;
	conf_doc *doc = NULL;
	int rc = conf_load(path, d, &doc);
	if (rc == SIM_OK)
		rc = read(doc, out, d);
	sim_diag_print(d, stderr);
	conf_free(doc);
	sim_diag_free(d);
	return rc == SIM_OK ? 0 : rc == SIM_ENOMEM ? 1 : EST_EXIT_INPUT;
}

static int load_model(const char *path, work_model *m)
{
	return load_ini(path, read_model, m);
}

static int load_gpu(const char *path, hw_gpu *g)
{
	return load_ini(path, read_gpu, g);
}

/* GPUs holding `bytes` at `mem` each; the small slack keeps exact multiples
 * (160 GB on 80 GB GPUs) from rounding up through floating-point error. */
static double gpus_for(double bytes, double mem)
{
	double n = ceil(bytes / mem * (1 - 1e-12));
	return n < 1 ? 1 : n;
}

static void compute_memory(est *e)
{
	for (int i = 0; i < 4; i++) {
		e->weights[i] = e->P * q_bytes[i];
		e->inf_gpus[i] = gpus_for(e->weights[i], e->mem);
	}
	if (e->have_model) {
		e->head_dim = (double)(e->m.hidden / e->m.heads);
		e->kv_bytes = 2.0 * e->m.layers * e->m.kv_heads * e->head_dim * (double)e->seq *
			      (double)e->batch * e->b;
	}
	e->inf_total = e->P * e->b + e->kv_bytes;
	e->inf_total_gpus = gpus_for(e->inf_total, e->mem);
	e->rule_bytes = EST_RULE_MULT * e->P * e->b;
	e->rule_gpus = gpus_for(e->rule_bytes, e->mem);
	e->adam = EST_ADAM_BYTES * e->P;
	e->adam_gpus = gpus_for(e->adam, e->mem);
	e->adam32 = EST_ADAM32_BYTES * e->P;
	e->adam32_gpus = gpus_for(e->adam32, e->mem);
}

static void compute_flops(est *e, const est_opts *o)
{
	e->D_chin = EST_CHINCHILLA * e->P;
	e->D_given = o->tokens > 0;
	e->D = e->D_given ? o->tokens : e->D_chin;
	e->C = 6.0 * e->P * e->D;
	if (e->have_model) {
		e->mf_token = work_model_flops(&e->m, 1.0);
		e->mf_total = work_model_flops(&e->m, e->D);
	}
	e->mfu = o->mfu > 0 ? o->mfu : EST_DEFAULT_MFU;
	e->gpus = o->gpus;
	if (e->peak > 0) {
		e->gpu_hours = e->C / (e->peak * e->mfu) / 3600.0;
		if (e->gpus > 0)
			e->seconds = e->C / ((double)e->gpus * e->peak * e->mfu);
	}
	/* Energy over the whole run: with --gpus, that many GPUs on whole nodes
	 * for the time to train; else one GPU (and its share of a node) for the
	 * GPU-hours, the same total. */
	if (e->peak > 0 && e->have_gpu) {
		net_cluster c;
		memset(&c, 0, sizeof c);
		e->per_node = o->per_node > 0 ? o->per_node : 8;
		c.node.power_w = o->node_w;
		c.pue = o->pue > 0 ? o->pue : 1;
		c.grid_kg_per_kwh = o->grid_set ? o->grid : 0.423;
		c.gpu_power_w = o->power_w;
		bool whole = e->gpus > 0;
		double gpus = whole ? (double)e->gpus : 1.0;
		double nodes = whole ? ceil(gpus / (double)e->per_node) : 1.0 / (double)e->per_node;
		sweep_energy_terms(&e->g, &c, gpus, nodes,
				   whole ? e->seconds / 3600.0 : e->gpu_hours, &e->en);
		e->have_energy = true;
	}
}

/* Inputs -> figures. Returns 0 or the exit status (messages printed). */
static int est_compute(const est_opts *o, est *e)
{
	memset(e, 0, sizeof *e);
	if (!o->model_path == !(o->params > 0))
		return est_bad("give exactly one of --model FILE and --params N", NULL);
	if (hw_dtype_parse(o->precision ? o->precision : "bf16", &e->dtype) != SIM_OK ||
	    e->dtype == HW_FP64 || e->dtype == HW_INT8 || e->dtype == HW_INT4)
		return est_bad("--precision takes fp32, tf32, fp16, bf16 or fp8", o->precision);
	e->b = hw_dtype_bytes(e->dtype);
	int rc = 0;
	if (o->model_path && (rc = load_model(o->model_path, &e->m)) != 0)
		return rc;
	e->have_model = o->model_path != NULL;
	if (o->gpu_path && (rc = load_gpu(o->gpu_path, &e->g)) != 0)
		return rc;
	e->have_gpu = o->gpu_path != NULL;
	if (e->have_gpu) {
		e->peak = hw_peak(&e->g, e->dtype);
		if (!(e->peak > 0)) {
			fprintf(stderr, "%s: error: --precision %s: %s has no %s path (its '%s' key is 0)\n",
				o->gpu_path, hw_dtype_name(e->dtype), e->g.name,
				hw_dtype_name(e->dtype), hw_dtype_name(e->dtype));
			return EST_EXIT_INPUT;
		}
	}
	e->mem = e->have_gpu ? e->g.hbm_bytes : EST_DEFAULT_MEM;
	if (e->have_model) {
		e->p_embed = work_params_embedding(&e->m);
		/* The (last) layer's parameters: an MoE layer's with its experts. */
		e->p_layer = work_params_layer_at(&e->m, e->m.layers - 1);
		e->p_layers = 0;
		for (int l = 0; l < e->m.layers; l++)
			e->p_layers += work_params_layer_at(&e->m, l);
		e->p_output = work_params_output(&e->m);
		e->P = work_params_total(&e->m);
	} else {
		e->P = o->params;
	}
	e->seq = o->seq > 0 ? o->seq : e->have_model ? e->m.seq_len : EST_DEFAULT_SEQ;
	e->batch = o->batch > 0 ? o->batch : 1;
	compute_memory(e);
	compute_flops(e, o);
	return 0;
}

/* ------------------------------------------------------------------ text -- */

/* An integral count with thousands separators: 6,738,415,616. */
static void fmt_count(double v, char *buf, size_t len)
{
	char digits[32];
	snprintf(digits, sizeof digits, "%.0f", v);
	size_t n = strlen(digits), o = 0;
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0 && digits[0] != '-')
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* Shorthand for sim_unit_format of bytes into a caller's buffer. */
static const char *fmt_bytes(double v, char *buf)
{
	sim_unit_format(v, SIM_UNIT_BYTES, buf, 32);
	return buf;
}

static void text_params(FILE *f, const est *e, const est_opts *o)
{
	char a[32], b[32], c[32], t[32];
	fprintf(f, "1. parameters\n");
	fmt_count(e->P, t, sizeof t);
	if (!e->have_model) {
		fprintf(f, "  P = %s (%.3g, given with --params)\n\n", t, e->P);
		return;
	}
	const work_model *m = &e->m;
	fprintf(f, "  model %s (%s): %d layers, hidden %d, %d heads (%d KV), ffn %d, vocab %d\n",
		m->name, o->model_path, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn,
		m->vocab);
	fmt_count(e->p_embed, a, sizeof a);
	fprintf(f, "  embedding      V x h%s = %s\n", m->learned_pos ? " + seq x h" : "", a);
	fmt_count(e->p_layer, b, sizeof b);
	fmt_count(e->p_layers, c, sizeof c);
	if (m->moe_experts > 0 && work_moe_layers(m) < m->layers)
		fprintf(f, "  layers         %d dense + %d MoE layers (%s each) = %s\n",
			m->layers - work_moe_layers(m), work_moe_layers(m), b, c);
	else
		fprintf(f, "  layers         %d x %s per layer = %s\n", m->layers, b, c);
	if (m->moe_experts > 0) {
		char x[48];
		fmt_count(work_params_layer_experts(m, m->layers - 1) / m->moe_experts, x, sizeof x);
		fprintf(f, "  experts        %d routed (%d per token) + %d shared per MoE layer, %s each\n",
			m->moe_experts, m->moe_topk, m->moe_shared_experts, x);
	}
	fmt_count(e->p_output, a, sizeof a);
	fprintf(f, "  output         %s = %s\n",
		m->untied_embeddings ? "untied V x h + final norm" : "final norm (output tied)", a);
	fprintf(f, "  total          P = %s (%.3g)\n\n", t, e->P);
}

static void text_inference(FILE *f, const est *e)
{
	char a[32], b[32];
	fprintf(f, "2. inference memory (weights = P x bytes/param; GPUs = ceil(weights / %s%s))\n",
		fmt_bytes(e->mem, b), e->have_gpu ? "" : ", default; give --gpu");
	for (int i = 0; i < 4; i++)
		fprintf(f, "  %-10s P x %-3g B = %-12s GPUs = %.0f\n", q_labels[i], q_bytes[i],
			fmt_bytes(e->weights[i], a), e->inf_gpus[i]);
	if (!e->have_model) {
		fprintf(f, "  KV cache: needs the model's shape (--model)\n\n");
		return;
	}
	const work_model *m = &e->m;
	fprintf(f, "  KV cache = 2 (K and V) x layers x kv_heads x head_dim x seq x batch x bytes\n"
		   "           = 2 x %d x %d x %.0f x %ld x %ld x %g B = %s\n",
		m->layers, m->kv_heads, e->head_dim, e->seq, e->batch, e->b,
		fmt_bytes(e->kv_bytes, a));
	fprintf(f, "           (%s per token)\n",
		fmt_bytes(e->kv_bytes / ((double)e->seq * (double)e->batch), a));
	fprintf(f, "  weights (%s) + KV cache = %s, GPUs = %.0f\n\n", hw_dtype_name(e->dtype),
		fmt_bytes(e->inf_total, a), e->inf_total_gpus);
}

static void text_training(FILE *f, const est *e)
{
	char a[32];
	fprintf(f, "3. training memory (weights, gradients, optimizer; activations excluded)\n");
	fprintf(f, "  rule of thumb: 6 x inference = 6 x P x %g B (%s) = %s, GPUs = %.0f\n", e->b,
		hw_dtype_name(e->dtype), fmt_bytes(e->rule_bytes, a), e->rule_gpus);
	fprintf(f, "  mixed-precision Adam: 2 (16-bit weights) + 2 (16-bit grads) + 12 (fp32 master,\n"
		   "    m, v) = 16 B/param: 16 x P = %s, GPUs = %.0f\n",
		fmt_bytes(e->adam, a), e->adam_gpus);
	fprintf(f, "  with fp32 gradients: 2 + 4 + 12 = 18 B/param: 18 x P = %s, GPUs = %.0f\n",
		fmt_bytes(e->adam32, a), e->adam32_gpus);
	fprintf(f, "  GPU counts assume the states are fully sharded (ZeRO-3/FSDP) and leave out\n"
		   "  activations, which grow with micro-batch x seq x layers: see 'podsim run'.\n\n");
}

static void text_time(FILE *f, const est *e)
{
	char a[32];
	if (!(e->peak > 0)) {
		fprintf(f, "  time to train: give --gpu for the peak FLOP/s (and --gpus N)\n");
		return;
	}
	sim_unit_format(e->peak, SIM_UNIT_FLOPS, a, sizeof a);
	fprintf(f, "  GPU-hours = C / (peak x MFU) / 3600 = %.3g / (%s x %g) / 3600\n"
		   "            = %.3g GPU-hours (%.3g GPU-years of 8,760 h)\n",
		e->C, a, e->mfu, e->gpu_hours, e->gpu_hours / (24 * 365.0));
	if (e->gpus > 0)
		fprintf(f, "  time to train = C / (gpus x peak x MFU) = %.3g / (%ld x %s x %g)\n"
			   "                = %.3g s = %.1f days (%.0f hours)\n",
			e->C, e->gpus, a, e->mfu, e->seconds, e->seconds / 86400.0,
			e->seconds / 3600.0);
	else
		fprintf(f, "  time to train: give --gpus N\n");
}

static void text_compute(FILE *f, const est *e)
{
	fprintf(f, "4. compute\n");
	fprintf(f, "  Chinchilla-optimal D = 20 x P = %.3g tokens\n", e->D_chin);
	fprintf(f, "  tokens D = %.3g (%s)\n", e->D,
		e->D_given ? "--tokens" : "Chinchilla default");
	fprintf(f, "  C = 6 x P x D = 6 x %.3g x %.3g = %.3g FLOPs\n", e->P, e->D, e->C);
	if (e->have_model)
		fprintf(f, "  model FLOPs per token (work_model_flops: 6 x matmul params incl. logits\n"
			   "    + 12 x layers x seq_len x hidden for attention) = %.3g;\n"
			   "    x D = %.3g FLOPs (%.2f x 6PD)\n",
			e->mf_token, e->mf_total, e->mf_total / e->C);
	text_time(f, e);
	fprintf(f, "  for scale (course notes): Llama 2 took 21.3 (7B), 42.6 (13B) and 199 (70B)\n"
		   "  GPU-years on 2048 A100s, 2e+12 tokens; the notes' years are 360 days (8,640 h:\n"
		   "  184,320 GPU-hours / 8,640 = 21.3), podsim's 365 (8,760 h: 21.0)\n\n");
	if (e->have_energy) {
		char node[96];
		snprintf(node, sizeof node, "--node-power, a node of %ld GPUs%s", e->per_node,
			 e->en.nodes < 1 ? ", its share" : "");
		cli_energy_print(f,
				 e->gpus > 0 ? "  energy and CO2 of the training run (each term and "
					       "its source)"
					     : "  energy and CO2 over the GPU-hours (one GPU and its "
					       "share of a node)",
				 &e->en, e->g.name, node, true);
		fprintf(f, "\n");
	}
}

static void text_peak(FILE *f, const est *e, const est_opts *o)
{
	char a[32], b[32];
	if (!e->have_gpu)
		return;
	sim_unit_format(e->peak, SIM_UNIT_FLOPS, a, sizeof a);
	fprintf(f, "5. GPU %s (%s)\n", e->g.name, o->gpu_path);
	fprintf(f, "  peak = hw_peak(%s) = %s dense, key '%s' of the [gpu] section%s\n",
		hw_dtype_name(e->dtype), a, hw_dtype_name(e->dtype),
		e->dtype == HW_FP32 ? " (vector, not tensor-core)" : "");
	fprintf(f, "  memory = %s (key 'hbm')\n", fmt_bytes(e->g.hbm_bytes, b));
	if (e->g.source[0])
		fprintf(f, "  source: %s\n", e->g.source);
}

static void print_text(FILE *f, const est *e, const est_opts *o)
{
	fprintf(f, "podsim estimate: rules of thumb from the course notes, not a simulation\n\n");
	text_params(f, e, o);
	text_inference(f, e);
	text_training(f, e);
	text_compute(f, e);
	text_peak(f, e, o);
}

/* ------------------------------------------------------------------ json -- */

static void json_num(FILE *f, const char *key, double v, bool known, bool last)
{
	if (known)
		fprintf(f, "  \"%s\": %.17g%s\n", key, v, last ? "" : ",");
	else
		fprintf(f, "  \"%s\": null%s\n", key, last ? "" : ",");
}

static void json_str(FILE *f, const char *key, const char *s)
{
	sim_buf b;
	sim_buf_init(&b);
	if (s)
		sim_buf_json_string(&b, s);
	fprintf(f, "  \"%s\": %s,\n", key, s && !b.oom && b.data ? b.data : "null");
	sim_buf_free(&b);
}

static void json_quad(FILE *f, const char *key, const double v[4])
{
	fprintf(f, "  \"%s\": {", key);
	for (int i = 0; i < 4; i++)
		fprintf(f, "\"%s\": %.17g%s", q_names[i], v[i], i < 3 ? ", " : "},\n");
}

static void print_json(FILE *f, const est *e)
{
	bool mod = e->have_model, pk = e->peak > 0;
	fprintf(f, "{\n");
	json_str(f, "model", mod ? e->m.name : NULL);
	json_str(f, "gpu", e->have_gpu ? e->g.name : NULL);
	json_str(f, "precision", hw_dtype_name(e->dtype));
	json_num(f, "bytes_per_param", e->b, true, false);
	json_num(f, "params", e->P, true, false);
	json_num(f, "params_embedding", e->p_embed, mod, false);
	json_num(f, "params_layers", e->p_layers, mod, false);
	json_num(f, "params_output", e->p_output, mod, false);
	json_num(f, "gpu_memory_bytes", e->mem, true, false);
	fprintf(f, "  \"gpu_memory_default\": %s,\n", e->have_gpu ? "false" : "true");
	json_quad(f, "weights_bytes", e->weights);
	json_quad(f, "inference_gpus", e->inf_gpus);
	json_num(f, "kv_seq", (double)e->seq, true, false);
	json_num(f, "kv_batch", (double)e->batch, true, false);
	json_num(f, "kv_cache_bytes", e->kv_bytes, mod, false);
	json_num(f, "inference_total_bytes", e->inf_total, true, false);
	json_num(f, "inference_total_gpus", e->inf_total_gpus, true, false);
	json_num(f, "train_rule_bytes", e->rule_bytes, true, false);
	json_num(f, "train_rule_gpus", e->rule_gpus, true, false);
	json_num(f, "train_adam_bytes", e->adam, true, false);
	json_num(f, "train_adam_gpus", e->adam_gpus, true, false);
	json_num(f, "train_adam_fp32_grads_bytes", e->adam32, true, false);
	json_num(f, "train_adam_fp32_grads_gpus", e->adam32_gpus, true, false);
	json_num(f, "tokens", e->D, true, false);
	fprintf(f, "  \"tokens_given\": %s,\n", e->D_given ? "true" : "false");
	json_num(f, "tokens_chinchilla", e->D_chin, true, false);
	json_num(f, "flops_6pd", e->C, true, false);
	json_num(f, "model_flops_per_token", e->mf_token, mod, false);
	json_num(f, "model_flops", e->mf_total, mod, false);
	json_num(f, "mfu", e->mfu, true, false);
	json_num(f, "peak_flops", e->peak, pk, false);
	json_num(f, "gpus", (double)e->gpus, e->gpus > 0, false);
	json_num(f, "gpu_hours", e->gpu_hours, pk, false);
	json_num(f, "train_seconds", e->seconds, pk && e->gpus > 0, false);
	json_num(f, "train_days", e->seconds / 86400.0, pk && e->gpus > 0, false);
	bool en = e->have_energy;
	json_num(f, "energy_mwh", e->en.mwh, en, false);
	json_num(f, "co2_t", e->en.tco2, en, false);
	json_num(f, "energy_gpu_tdp_mwh", e->en.gpu_tdp_mwh, en, false);
	json_num(f, "gpu_power_w", e->en.gpu_w, en, false);
	json_num(f, "node_power_w", e->en.node_w, en, false);
	json_num(f, "gpus_per_node", (double)e->per_node, en, false);
	json_num(f, "pue", e->en.pue, en, false);
	json_num(f, "grid_intensity", e->en.kg_per_kwh, en, true);
	fprintf(f, "}\n");
}

int cli_estimate(int argc, char **argv)
{
	est_opts o = {0};
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.help) {
		fputs(usage_estimate, stdout);
		return 0;
	}
	est *e = malloc(sizeof *e);
	if (!e) {
		fprintf(stderr, "podsim: error: %s\n", sim_strerror(SIM_ENOMEM));
		return 1;
	}
	rc = est_compute(&o, e);
	if (rc == 0 && o.json)
		print_json(stdout, e);
	else if (rc == 0)
		print_text(stdout, e, &o);
	free(e);
	return rc;
}
