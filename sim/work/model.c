/* model.c - the [model] section, parameter counts and model FLOPs.
 *
 * Shape symbols: l layers, h hidden, a heads, g kv_heads, d = h/a head size
 * (or head_dim; then the Q and output-projection widths are a*d, not h),
 * f ffn, V vocab, s seq_len. Parameters are counted as in work.h; the biases
 * (bias = true) are those of Megatron's GPT: QKV (h + 2gd), output projection
 * (h), fc1 (f, or 2f for SwiGLU's fused gate+up), fc2 (h).
 *
 * GPT check (f = 4h, g = a, learned positions, tied output, biases, layernorm):
 *   layer     = 4h^2 + 4h (attention) + 8h^2 + 5h (MLP) + 4h (two norms)
 *             = 12h^2 + 13h
 *   total     = l(12h^2 + 13h) + (V + s)h + 2h (final norm)
 * which is Megatron's P = 12lh^2 (1 + 13/12h + (V + s)/12lh) plus the final
 * layernorm's 2h that the paper leaves out.
 *
 * Model FLOPs. A dense matmul with P weights costs 2P FLOPs per token forward
 * and 4P backward (input and weight gradients): 6P per token. The weights that
 * take part in matmuls are the layers' (no norms, no biases) and, for the
 * logits, the h x V output matrix (tied or not); the input embedding is a
 * lookup and costs nothing. Per layer the matmul weights are
 *   Pm = h*h + 2*h*g*d + h*h + (2 or 3)*h*f     (Q, K+V, out, MLP)
 * Attention adds, per layer and per token, 2*s*h (QK^T) + 2*s*h (scores x V)
 * forward, tripled for forward+backward: 12*s*h. The causal mask is not
 * discounted (the papers do not either). So, per token,
 *   F/token = 6*l*Pm + 12*l*s*h + 6*V*h
 * (the logits GEMM counts 6*V*h per token). For GPT, Pm = 12h^2, and with
 * T = B*s tokens
 *   F = T (72 l h^2 + 12 l s h + 6 V h)
 *     = 72 B s l h^2 (1 + s/6h + V/12lh)
 * which is Narayanan et al. 2021's eq. (3) written with the 72 of the MFU form.
 * With head_dim, the attention terms use a*d for h. An MoE layer counts, per
 * token, the router (h*E) and the top-k plus shared experts' MLP weights: the
 * FLOPs a token causes, not the parameters that exist (DeepSpeed-MoE's and
 * Megatron's "active parameters" MFU convention).
 *
 * MLA (Multi-head Latent Attention, DeepSeek-V2 sec. 2.1; Megatron-Core's
 * MLASelfAttention, megatron/core/transformer/multi_latent_attention.py at
 * NVIDIA/Megatron-LM d98e8a64: linear_q_down_proj h -> q_r, q_layernorm,
 * linear_q_up_proj q_r -> a*(dn + dr) (:537-570; linear_q_proj h -> a*(dn +
 * dr) when q_lora_rank is None, :510), linear_kv_down_proj h -> k_r + dr
 * (:584-601), kv_layernorm, linear_kv_up_proj k_r -> a*(dn + dv) (:604-615),
 * linear_proj a*dv -> h; q_r = q_lora_rank, k_r = kv_lora_rank, dn =
 * qk_nope_head_dim, dr = qk_rope_head_dim, dv = v_head_dim). Attention
 * weights (matmul):
 *   Pa = h q_r + q_r a (dn + dr)   (or h a (dn + dr) without q_r)
 *      + h (k_r + dr) + k_r a (dn + dv) + a dv h
 * plus the two latent norms' q_r + k_r weights (x2 with layernorm). For
 * DeepSeek-V3 (h 7168, a 128, q_r 1536, k_r 512, dn 128, dr 64, dv 128):
 * 11,010,048 + 37,748,736 + 4,128,768 + 16,777,216 + 117,440,512 =
 * 187,105,280 matmul weights, + 2,048 norm weights. The attention core's
 * per-token FLOPs become 6 s a (dn + dr + dv): QK^T over the q/k width, P V
 * over dv (12 s a d when both are d). Megatron's own count
 * (megatron/training/training.py:1079-1130 at d98e8a64) has the same terms
 * with the causal /2; podsim keeps the papers' undiscounted form.
 * MTP (multi-token prediction, mtp_layers = D): each module adds a layer of
 * the last layer's kind, the projection eh_proj 2h -> h and a second logits
 * GEMM with the shared output matrix, per token 6 (Pl + 2h^2 + V h) + the
 * layer's attention term, as Megatron's count does (training.py:1288-1303).
 */
#include "work.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(work_act) == sizeof(int), "conf stores enums as int");
_Static_assert(sizeof(work_norm) == sizeof(int), "conf stores enums as int");

static const char *const act_names[] = {"gelu", "swiglu", NULL};
static const char *const norm_names[] = {"layernorm", "rmsnorm", NULL};

#define MAXDIM 1e7 /* generous upper bound on every dimension */
#define KEY_INT(nm, lo, def, field, help) \
	{nm, CONF_INT, SIM_UNIT_NONE, lo, MAXDIM, def, NULL, offsetof(work_model, field), help}
#define KEY_BOOL(nm, def, field, help) \
	{nm, CONF_BOOL, SIM_UNIT_NONE, 0, 0, def, NULL, offsetof(work_model, field), help}

const conf_key work_model_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(work_model, name),
	 "model name, e.g. gpt3-175b"},
	{"source", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(work_model, source),
	 "where the shape comes from (paper, table)"},
	{"aliases", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL, offsetof(work_model, aliases),
	 "other names sources give the model, comma-separated (the case reader's)"},
	KEY_INT("layers", 1, NULL, layers, "transformer layers"),
	KEY_INT("hidden", 1, NULL, hidden, "hidden size h"),
	KEY_INT("heads", 1, NULL, heads, "attention (query) heads a; h % a == 0"),
	KEY_INT("kv_heads", 0, "0", kv_heads, "key/value heads for GQA (0 = heads)"),
	KEY_INT("ffn", 0, "0", ffn, "MLP inner size f (0 = 4*hidden)"),
	KEY_INT("vocab", 1, NULL, vocab, "vocabulary size V"),
	KEY_INT("seq_len", 1, NULL, seq_len, "sequence length s"),
	{"activation", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "gelu", act_names,
	 offsetof(work_model, act), "MLP activation: gelu (h->f->h) or swiglu (gate+up, h->2f)"},
	{"norm", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "layernorm", norm_names,
	 offsetof(work_model, norm), "normalisation: layernorm (2h params) or rmsnorm (h)"},
	KEY_BOOL("learned_pos", "false", learned_pos, "learned position embeddings (s*h params)"),
	KEY_BOOL("untied_embeddings", "false", untied_embeddings,
		 "separate output layer instead of the tied input embedding"),
	KEY_BOOL("bias", "true", bias, "linear layers carry biases"),
	KEY_BOOL("parallel_residual", "false", parallel_residual,
		 "attention and MLP in parallel on one shared norm (GPT-J, Phi): its memory, "
		 "parameters and one norm pass; the TP collectives stay the sequential block's"),
	KEY_INT("head_dim", 0, "0", head_dim, "attention head size (0 = hidden / heads)"),
	KEY_INT("window", 0, "0", window,
		"sliding-window attention: tokens a query attends back (0 = full causal)"),
	KEY_INT("window_skip", 0, "0", window_skip,
		"with window: every N-th layer keeps full attention (0 = all windowed)"),
	KEY_INT("moe_experts", 0, "0", moe_experts, "routed experts per MoE layer (0 = dense model)"),
	KEY_INT("moe_topk", 0, "0", moe_topk, "routed experts per token"),
	KEY_INT("moe_shared_experts", 0, "0", moe_shared_experts,
		"always-active experts per MoE layer (inner size ffn each)"),
	KEY_INT("moe_dense_layers", 0, "0", moe_dense_layers,
		"leading layers with a dense MLP instead of experts"),
	KEY_INT("moe_layer_interval", 0, "1", moe_interval,
		"of the layers from moe_dense_layers on, every N-th is MoE (1-based: N, 2N, ...), "
		"the others dense (Megatron-DeepSpeed --expert-interval; 1 = every layer)"),
	KEY_INT("dense_ffn", 0, "0", dense_ffn, "MLP inner size of those dense layers (0 = ffn)"),
	{"moe_imbalance", CONF_REAL, SIM_UNIT_NONE, 1, 64, "1", NULL,
	 offsetof(work_model, moe_imbalance),
	 "tokens on the busiest expert rank over the mean (1 = balanced routing)"},
	KEY_INT("q_lora_rank", 0, "0", q_lora_rank,
		"MLA: query latent size (0 = queries projected from hidden)"),
	KEY_INT("kv_lora_rank", 0, "0", kv_lora_rank,
		"MLA: key/value latent size (0 = not MLA)"),
	KEY_INT("qk_nope_head_dim", 0, "0", qk_nope_head_dim,
		"MLA: per-head q/k size without RoPE"),
	KEY_INT("qk_rope_head_dim", 0, "0", qk_rope_head_dim,
		"MLA: per-head q/k size with RoPE (the key's shared by all heads)"),
	KEY_INT("v_head_dim", 0, "0", v_head_dim, "MLA: per-head value size"),
	KEY_INT("mtp_layers", 0, "0", mtp_layers,
		"multi-token prediction modules on the last stage (0 = none)"),
	{"qkv_modules", CONF_INT, SIM_UNIT_NONE, 0, 3, "0", NULL, offsetof(work_model, qkv_modules),
	 "linear modules of Q, K, V in the model's code: 1 fused (GPT-2 c_attn), 2 (q, kv), "
	 "3 apart (Llama q/k/v_proj); 0 = by activation (gelu 1, swiglu 3)"},
};
const size_t work_model_nkeys = sizeof work_model_keys / sizeof work_model_keys[0];

/* Report an error at key `key` of [model]. */
static void model_error(const conf_doc *doc, sim_diag *diag, const char *key, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));
static void model_error(const conf_doc *doc, sim_diag *diag, const char *key, const char *fmt,
			...)
{
	conf_loc loc = conf_key_loc(doc, "model", key);
	va_list ap;
	va_start(ap, fmt);
	sim_diag_vadd(diag, SIM_DIAG_ERROR, loc.path, loc.line, fmt, ap);
	va_end(ap);
}

/* Of two keys involved in one error, the one the user's own file (or a --set)
 * gives, so that the message points where they typed; else `b`. */
static const char *user_key(const conf_doc *doc, const char *a, const char *b)
{
	const char *keys[2] = {b, a}, *root = conf_root_path(doc);
	for (int i = 0; i < 2; i++) {
		conf_loc loc = conf_key_loc(doc, "model", keys[i]);
		if (loc.path && (!strcmp(loc.path, root) || loc.line == 0) &&
		    conf_get(doc, "model", keys[i], NULL))
			return keys[i];
	}
	return b;
}

/* MLA's keys: all or none (q_lora_rank may stay 0), no head_dim beside
 * them, no GQA (every head has its own K and V from the latent). */
static int mla_check(const conf_doc *doc, const work_model *m, sim_diag *diag)
{
	static const char *const keys[] = {"qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};
	const int val[] = {m->qk_nope_head_dim, m->qk_rope_head_dim, m->v_head_dim};
	if (!work_model_is_mla(m)) {
		if (m->q_lora_rank > 0) {
			model_error(doc, diag, "q_lora_rank",
				    "q_lora_rank needs kv_lora_rank > 0 (MLA's key/value latent)");
			return 1;
		}
		for (int i = 0; i < 3; i++)
			if (val[i] > 0) {
				model_error(doc, diag, keys[i],
					    "%s needs kv_lora_rank > 0 (MLA's key/value latent)",
					    keys[i]);
				return 1;
			}
		return 0;
	}
	int bad = 0;
	for (int i = 0; i < 3; i++)
		if (val[i] == 0) {
			model_error(doc, diag, "kv_lora_rank",
				    "kv_lora_rank = %d (MLA) needs %s > 0", m->kv_lora_rank, keys[i]);
			bad++;
		}
	if (m->head_dim > 0) {
		model_error(doc, diag, "head_dim",
			    "head_dim is set by MLA's qk_nope_head_dim + qk_rope_head_dim (q/k) and "
			    "v_head_dim; leave it unset");
		bad++;
	}
	if (m->kv_heads != m->heads) {
		model_error(doc, diag, "kv_heads",
			    "MLA (kv_lora_rank > 0) gives every head its own K and V: kv_heads (%d) "
			    "must equal heads (%d)",
			    m->kv_heads, m->heads);
		bad++;
	}
	return bad;
}

/* Checks that involve several keys, after the defaults are resolved. */
static int model_check(const conf_doc *doc, const work_model *m, sim_diag *diag)
{
	int bad = mla_check(doc, m, diag);
	if (m->head_dim == 0 && !work_model_is_mla(m) && m->hidden % m->heads != 0) {
		model_error(doc, diag, "heads",
			    "hidden (%d) is not a multiple of heads (%d); set head_dim if the "
			    "model's heads are not hidden/heads wide",
			    m->hidden, m->heads);
		bad++;
	}
	if (m->heads % m->kv_heads != 0) {
		model_error(doc, diag, user_key(doc, "heads", "kv_heads"),
			    "heads (%d) is not a multiple of kv_heads (%d)", m->heads,
			    m->kv_heads);
		bad++;
	}
	if ((m->moe_experts > 0) != (m->moe_topk > 0) || m->moe_topk > m->moe_experts) {
		model_error(doc, diag, m->moe_topk > 0 ? "moe_topk" : "moe_experts",
			    "moe_experts = %d, moe_topk = %d: an MoE model needs 1 <= moe_topk <= "
			    "moe_experts (both 0 for a dense model)",
			    m->moe_experts, m->moe_topk);
		bad++;
	}
	if (m->moe_experts == 0 && (m->moe_shared_experts > 0 || m->moe_dense_layers > 0)) {
		model_error(doc, diag,
			    m->moe_shared_experts > 0 ? "moe_shared_experts" : "moe_dense_layers",
			    "moe_shared_experts and moe_dense_layers need moe_experts > 0");
		bad++;
	}
	if (m->moe_experts > 0 && m->moe_dense_layers <= m->layers && work_moe_layers(m) == 0) {
		model_error(doc, diag, "moe_layer_interval",
			    "moe_layer_interval = %d leaves no MoE layer among the %d layers from "
			    "moe_dense_layers = %d on",
			    m->moe_interval, m->layers - m->moe_dense_layers, m->moe_dense_layers);
		bad++;
	}
	if (m->moe_dense_layers > m->layers) {
		model_error(doc, diag, "moe_dense_layers",
			    "moe_dense_layers = %d exceeds the %d layers", m->moe_dense_layers,
			    m->layers);
		bad++;
	}
	return bad ? SIM_ECONF : SIM_OK;
}

int work_model_from_conf(const conf_doc *doc, work_model *out, sim_diag *diag)
{
	work_model m = {0};
	int rc = conf_read(doc, "model", work_model_keys, work_model_nkeys, &m, false, diag);
	if (rc != SIM_OK)
		return rc;
	if (m.kv_heads == 0)
		m.kv_heads = m.heads;
	if (m.ffn == 0)
		m.ffn = 4 * m.hidden;
	if (m.dense_ffn == 0)
		m.dense_ffn = m.ffn;
	rc = model_check(doc, &m, diag); /* sees head_dim = 0 when it was not set */
	if (rc != SIM_OK)
		return rc;
	if (work_model_is_mla(&m))
		m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
	if (m.head_dim == 0)
		m.head_dim = m.hidden / m.heads;
	*out = m;
	return SIM_OK;
}

/* Head size d, with the default applied for structs built in code. */
static double head_size(const work_model *m)
{
	return m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
}

/* Width of the K (or V) projection: g heads of size d. */
static double kv_dim(const work_model *m)
{
	int g = m->kv_heads > 0 ? m->kv_heads : m->heads;
	return g * head_size(m);
}

/* Width of the queries (and of the output projection's input): a heads of d. */
static double q_dim(const work_model *m)
{
	return m->heads * head_size(m);
}

/* MLP inner size, with the ffn = 0 default applied for structs built in code. */
static double ffn_dim(const work_model *m)
{
	return m->ffn > 0 ? m->ffn : 4.0 * m->hidden;
}

bool work_layer_is_moe(const work_model *m, int layer)
{
	int n = m->moe_interval > 1 ? m->moe_interval : 1;
	return m->moe_experts > 0 && layer >= m->moe_dense_layers &&
	       (layer - m->moe_dense_layers) % n == n - 1;
}

int work_moe_layers(const work_model *m)
{
	int n = 0;
	for (int l = 0; l < m->layers; l++)
		n += work_layer_is_moe(m, l);
	return n;
}

bool work_layer_windowed(const work_model *m, int layer)
{
	if (m->window <= 0)
		return false;
	return m->window_skip <= 0 || (layer + 1) % m->window_skip != 0;
}

/* One MLP of inner size f: weights and (with bias) biases. */
static double mlp_params(const work_model *m, double f, bool with_bias)
{
	double h = m->hidden, fc1 = m->act == WORK_ACT_SWIGLU ? 2.0 * f : f;
	double p = (m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0) * h * f;
	return p + (with_bias && m->bias ? fc1 + h : 0.0);
}

/* MLA's matmul weights (Pa in the header) and its latent norms' weights. */
static double mla_matmul_params(const work_model *m)
{
	double h = m->hidden, a = m->heads, qr = m->q_lora_rank, kr = m->kv_lora_rank;
	double dn = m->qk_nope_head_dim, dr = m->qk_rope_head_dim, dv = m->v_head_dim;
	double q = qr > 0 ? h * qr + qr * a * (dn + dr) : h * a * (dn + dr);
	return q + h * (kr + dr) + kr * a * (dn + dv) + a * dv * h;
}

static double mla_norm_params(const work_model *m)
{
	double w = m->norm == WORK_NORM_RMSNORM ? 1.0 : 2.0;
	return w * ((double)m->q_lora_rank + m->kv_lora_rank);
}

/* Attention block weights (Q, K+V, out) and biases; MLA: its projections,
 * latent norms and (with bias) the output projection's bias (Megatron-Core
 * builds the down and up projections with bias=False). */
static double attn_params(const work_model *m, bool with_bias)
{
	if (work_model_is_mla(m))
		return mla_matmul_params(m) +
		       (with_bias ? mla_norm_params(m) + (m->bias ? m->hidden : 0.0) : 0.0);
	double h = m->hidden, q = q_dim(m), kv = kv_dim(m);
	double p = h * q + 2.0 * h * kv + q * h;
	return p + (with_bias && m->bias ? q + 2.0 * kv + h : 0.0);
}

/* Inner size of a dense layer's MLP (the leading dense layers of an MoE model
 * use dense_ffn). */
static double dense_ffn_dim(const work_model *m)
{
	return m->moe_experts > 0 && m->dense_ffn > 0 ? m->dense_ffn : ffn_dim(m);
}

static double norm_params(const work_model *m)
{
	return m->norm == WORK_NORM_RMSNORM ? m->hidden : 2.0 * m->hidden;
}

/* A parallel block (GPT-J, Phi; Lit-GPT's Block with parallel_residual and
 * shared_attention_norm, phi-1_5's config: lit_gpt/model.py:157-161,
 * config.py:25, 1004 at Lightning-AI/litgpt 8641822b) normalises once:
 * n = norm_1(x); x = x + attn(n) + mlp(n). */
int work_layer_norms(const work_model *m)
{
	return m->parallel_residual ? 1 : 2;
}

/* Weights of one dense layer that take part in matmuls (Pm above). */
static double layer_matmul_params(const work_model *m)
{
	return attn_params(m, false) + mlp_params(m, ffn_dim(m), false);
}

double work_params_layer(const work_model *m)
{
	return attn_params(m, true) + mlp_params(m, ffn_dim(m), true) +
	       work_layer_norms(m) * norm_params(m);
}

/* Module lists, per the model code (weights only; h hidden, q = a d and
 * kv = a_kv d the query and key/value widths, f the MLP's inner size):
 *   Hugging Face, named as peft's table of each architecture's linear
 *   modules lists them (huggingface/peft 5d602fdb
 *   src/peft/utils/constants.py:336-352): llama, mistral, mixtral, qwen2
 *   q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj (7);
 *   gpt2 c_attn (Q, K, V fused) and c_proj, a name its attention output
 *   and its MLP's down projection share, beside the MLP's c_fc (4);
 *   gpt_neox, bloom, falcon query_key_value and dense_4h_to_h, beside
 *   dense and dense_h_to_4h (4); opt and gptj three apart (q, k, v_proj,
 *   out_proj, fc1/fc_in, fc2/fc_out: 6, qkv_modules = 3 in the model file).
 *   (transformers itself is not mirrored here: its snapshot is over the
 *   fetch limit.) q h x q, k and v h x kv each (fused: one h x (q + 2 kv);
 *   two: q, and h x 2 kv), o q x h; gated gate and up h x f each, down
 *   f x h; else fc h x f, proj f x h.
 *   Megatron (legacy and Megatron-DeepSpeed's ParallelTransformerLayer):
 *   query_key_value h x (q + 2 kv), dense q x h, dense_h_to_4h h x f (2f
 *   gated: gate and up in one), dense_4h_to_h f x h.
 *   MLA (DeepSeek's code and Megatron-Core's alike): q_a h x qr and q_b
 *   qr x a(dn + dr) (or q_proj h x a(dn + dr) without a q latent),
 *   kv_a h x (kr + dr), kv_b kr x a(dn + dv), o a dv x h; then the MLP. */
int work_layer_linears(const work_model *m, bool fused, double *w)
{
	double h = m->hidden, q = q_dim(m), kv = kv_dim(m), f = ffn_dim(m);
	bool gated = m->act == WORK_ACT_SWIGLU;
	int n = 0;
	if (work_model_is_mla(m)) {
		double a = m->heads, qr = m->q_lora_rank, kr = m->kv_lora_rank;
		double dn = m->qk_nope_head_dim, dr = m->qk_rope_head_dim, dv = m->v_head_dim;
		if (qr > 0)
			w[n++] = h * qr, w[n++] = qr * a * (dn + dr);
		else
			w[n++] = h * a * (dn + dr);
		w[n++] = h * (kr + dr);
		w[n++] = kr * a * (dn + dv);
		w[n++] = a * dv * h;
	} else {
		int nq = fused ? 1 : m->qkv_modules > 0 ? m->qkv_modules : gated ? 3 : 1;
		if (nq == 1)
			w[n++] = h * (q + 2 * kv);
		else if (nq == 2)
			w[n++] = h * q, w[n++] = 2 * h * kv;
		else
			w[n++] = h * q, w[n++] = h * kv, w[n++] = h * kv;
		w[n++] = q * h;
	}
	if (gated && !fused)
		w[n++] = h * f, w[n++] = h * f;
	else
		w[n++] = (gated ? 2 : 1) * h * f;
	w[n++] = f * h;
	return n;
}

double work_params_layer_experts(const work_model *m, int layer)
{
	return work_layer_is_moe(m, layer) ? m->moe_experts * mlp_params(m, ffn_dim(m), true) : 0.0;
}

/* An MoE layer: attention, norms, the router (h x E), the shared experts and
 * the routed experts. */
double work_params_layer_at(const work_model *m, int layer)
{
	double base = attn_params(m, true) + work_layer_norms(m) * norm_params(m);
	if (!work_layer_is_moe(m, layer))
		return base + mlp_params(m, dense_ffn_dim(m), true);
	double router = (double)m->hidden * m->moe_experts;
	return base + router + m->moe_shared_experts * mlp_params(m, ffn_dim(m), true) +
	       work_params_layer_experts(m, layer);
}

/* Matmul weights one token meets in layer `layer` (router, top-k and shared
 * experts in an MoE layer). */
static double layer_active_matmul_params(const work_model *m, int layer)
{
	if (!work_layer_is_moe(m, layer))
		return attn_params(m, false) + mlp_params(m, dense_ffn_dim(m), false);
	double experts = m->moe_topk + m->moe_shared_experts;
	return attn_params(m, false) + (double)m->hidden * m->moe_experts +
	       experts * mlp_params(m, ffn_dim(m), false);
}

double work_params_embedding(const work_model *m)
{
	double p = (double)m->vocab * m->hidden;
	if (m->learned_pos)
		p += (double)m->seq_len * m->hidden;
	return p;
}

double work_params_output(const work_model *m)
{
	double p = norm_params(m);
	if (m->untied_embeddings)
		p += (double)m->vocab * m->hidden;
	return p + work_params_mtp(m) - work_params_mtp_experts(m);
}

/* One MTP module's own weights besides its layer (multi_token_prediction.py
 * at d98e8a64: enorm and hnorm over h, eh_proj 2h -> h without bias
 * (:1172-1186), the final_layernorm over h). */
static double mtp_module_params(const work_model *m)
{
	double h = m->hidden;
	return 3.0 * norm_params(m) + 2.0 * h * h;
}

double work_params_mtp(const work_model *m)
{
	if (m->mtp_layers <= 0)
		return 0;
	return m->mtp_layers * (mtp_module_params(m) + work_params_layer_at(m, m->layers - 1));
}

double work_params_mtp_experts(const work_model *m)
{
	return m->mtp_layers > 0 ? m->mtp_layers * work_params_layer_experts(m, m->layers - 1) : 0;
}

/* What TP keeps whole on every rank (NVIDIA/Megatron-LM d98e8a64):
 *  - the norms: Megatron-Core's layer specs build input_layernorm and
 *    pre_mlp_layernorm over the whole hidden size (TE's LayerNormLinear
 *    keeps layer_norm_weight of in_features, the unsplit input width:
 *    TransformerEngine d0067d0d pytorch/module/layernorm_linear.py:1449-1459;
 *    the local spec's FusedLayerNorm / WrappedTorchNorm, core/models/gpt/
 *    gpt_layer_specs.py:68-75), and the final norm the same;
 *  - row-parallel biases: RowParallelLinear splits its input, and its bias is
 *    Parameter(torch.empty(self.output_size)) on every rank, reduced over TP
 *    ("allreduce", core/tensor_parallel/layers.py:1482-1498); TE's Linear
 *    with parallel_mode "row" divides in_features only (d0067d0d module/
 *    linear.py:1622-1625) and sizes its bias by out_features (:1705-1706).
 *    Those are the attention output projection's and fc2's (a shared
 *    expert's fc2 each; routed experts are EP's); column-parallel biases
 *    (QKV, fc1) are split with their outputs (layers.py:1112-1118);
 *  - learned positions: LanguageModelEmbedding's position_embeddings is a
 *    plain torch.nn.Embedding(max_sequence_length, hidden) (core/models/
 *    common/embeddings/language_model_embedding.py:71), the word embedding a
 *    VocabParallelEmbedding (:59), built on the first stage only (and with
 *    MTP on its stage: gpt_model.py:173-174).
 * GPT-style 64M CI model (h 512, biases, LayerNorm): 2 x 1024 + 2 x 512 =
 * 3,072 replicated of a layer's 3,152,384. */
double work_params_layer_replicated(const work_model *m, int layer)
{
	double fc2 = work_layer_is_moe(m, layer) ? m->moe_shared_experts : 1.0;
	return work_layer_norms(m) * norm_params(m) + (m->bias ? (1.0 + fc2) * m->hidden : 0.0);
}

double work_params_embedding_replicated(const work_model *m)
{
	return m->learned_pos ? (double)m->seq_len * m->hidden : 0.0;
}

/* The final norm; each MTP module's three norms (enorm, hnorm, its final
 * norm: mtp_module_params) and its layer's replicated part. */
double work_params_output_replicated(const work_model *m)
{
	double mtp = 3.0 * norm_params(m) + work_params_layer_replicated(m, m->layers - 1);
	return norm_params(m) + (m->mtp_layers > 0 ? m->mtp_layers * mtp : 0.0);
}

double work_params_tp_local(double total, double replicated, int tp)
{
	return tp > 1 ? (total - replicated) / tp + replicated : total;
}

double work_params_total(const work_model *m)
{
	if (m->moe_experts == 0)
		return m->layers * work_params_layer(m) + work_params_embedding(m) +
		       work_params_output(m) + work_params_mtp_experts(m);
	double p = work_params_embedding(m) + work_params_output(m) + work_params_mtp_experts(m);
	for (int l = 0; l < m->layers; l++)
		p += work_params_layer_at(m, l);
	return p;
}

double work_params_active(const work_model *m)
{
	double p = work_params_total(m);
	if (m->moe_experts <= 0 || m->moe_topk >= m->moe_experts)
		return p;
	double idle = 1.0 - (double)m->moe_topk / m->moe_experts, experts = work_params_mtp_experts(m);
	for (int l = 0; l < m->layers; l++)
		experts += work_params_layer_experts(m, l);
	return p - experts * idle;
}

/* Per-token attention-core FLOPs of one layer, forward + backward: 6 s a
 * (d_qk + d_v), 12 s a d for MHA. */
static double attn_core_flops(const work_model *m)
{
	double dv = work_model_is_mla(m) ? m->v_head_dim : head_size(m);
	return 6.0 * m->seq_len * m->heads * (head_size(m) + dv);
}

double work_model_flops(const work_model *m, double tokens)
{
	double l = m->layers, h = m->hidden, V = m->vocab;
	double matmul = l * layer_matmul_params(m);
	if (m->moe_experts > 0) {
		matmul = 0;
		for (int i = 0; i < m->layers; i++)
			matmul += layer_active_matmul_params(m, i);
	}
	double per_token = 6.0 * matmul + l * attn_core_flops(m) + 6.0 * V * h;
	if (m->mtp_layers > 0) {
		int last = m->layers - 1;
		double mm = m->moe_experts > 0 ? layer_active_matmul_params(m, last)
					       : layer_matmul_params(m);
		per_token += m->mtp_layers * (6.0 * (mm + 2.0 * h * h + V * h) + attn_core_flops(m));
	}
	return per_token * tokens;
}
