/* memory.c - what one rank holds, term by term: parameters per stage and
 * chunk, bytes per parameter under the precision policy, optimizer and
 * fine-tuning method, the loss's logit tensors, and the offload tiers. The
 * peak over the step (which terms are alive together) is memwalk.c's.
 *
 * Bytes per parameter (per rank; ZeRO divides each by the shard group):
 *   policy  weights   gradients              optimizer (Adam)
 *   mixed   2         4 fp32_grads, else 2   4 fp32 master + 8 fp32 m, v = 12
 *   amp     4         4                      8 (the fp32 weights are the master)
 *   pure    2         2                      4 (m, v in 16 bits: zeros_like(p))
 * (fp32 or tf32 training: 4 + 4 + 8.) Under mixed with the framework's
 * param_master (FSDP's MixedPrecision) the parameter is its own master:
 *   mixed, param_master   4   4                  8 (m, v; no separate master)
 * = 16 bytes whatever fp32_grads (that sets the reduce dtype only): FSDP
 * keeps the sharded FlatParameter in the dtype it was built in (fp32) and
 * makes the 16-bit copy only for the all-gather, freed once the unit is
 * gathered ("After fwd/bwd, it is freed and we only hold on to the full
 * precision shard": Debian python3-torch 1.13.1+dfsg-4 torch/distributed/
 * fsdp/fully_sharded_data_parallel.py:1925-1939, flat_param.py:637-654
 * _use_low_precision_shard, 766-775 post_unshard frees it; 2.6.0+dfsg-7
 * _flat_param.py:1240-1250, 1316-1330, 1496-1519), and casts the reduced
 * gradient shard back to the parameter's dtype for the optimizer
 * (1.13.1 fully_sharded_data_parallel.py:3300, 3334-3335, 3357-3381
 * _cast_grad_to_param_dtype; 2.6.0 _runtime_utils.py:1020-1045). FSDP2
 * alike: the sharded DTensor keeps orig_dtype, the all-gather input is cast
 * to param_dtype and the reduced gradient back to orig_dtype (2.14.1+dfsg-1
 * _fully_shard/_fsdp_param.py:802-814, 1118; _fsdp_collectives.py:696). The
 * gathered layers stay 16-bit (plan_budget.wg). Mixed is Megatron's (16-bit weights,
 * fp32 main_grad and main params: 18 bytes, 6 + 12/d with the distributed
 * optimizer, megatron/training/theoretical_memory_usage.py:293-296) and
 * DeepSpeed's fp16 (2 + 2 + 12, the ZeRO paper's 16); amp is torch autocast
 * over fp32 parameters (Lightning precision 16-mixed, FSDP without a
 * MixedPrecision policy); pure is torchtune's, lit-gpt's bf16-true,
 * fsdp_qlora's: torch AdamW creates its states with zeros_like(p) in the
 * parameter's dtype (torch/optim/adamw.py, PyTorch 1.13.1, 147-149).
 * The optimizer: 8-bit Adam keeps two uint8 states and an fp32 absmax per
 * block of 256 (bitsandbytes optim/optimizer.py:495-529): 2 + 2 * 4/256 =
 * 2.03125 bytes, plus the fp32 master under mixed; paged Adam keeps its
 * states in CUDA unified memory, outside PyTorch's allocator (functional.py
 * cget_managed_ptr): counted under runtime, not allocated; SGD none;
 * SGD with momentum one buffer (torch/optim/sgd.py momentum_buffer,
 * zeros_like(p): 4 B, 2 B under pure), so 4 + 4 = 8 B under mixed;
 * Adafactor (transformers optimization.py, beta1 = None by default: no first
 * moment) the factored second moment, plan_adafactor_state_bytes.
 * LoRA: the adapters r (in + out) per target linear train (with the
 * embedding and output layer under train_embeddings); the base weights are
 * frozen: no gradients or states, stored per base_weights: NF4 0.5 byte plus
 * an fp32 absmax per 64 (0.5625), double-quantised 0.5 + 1/64 + 4/(64 * 256)
 * (bitsandbytes nn/modules.py:213-231, functional.py:918-941), GPTQ int4
 * 0.5 + (2-byte scale + 4-bit zero) / 128 = 0.51953, int8 1. Only the
 * layers' linear weights are quantised; embeddings, norms and the output
 * layer stay in 16 bits (fp32 with quant_rest_fp32: PEFT's
 * prepare_model_for_kbit_training, src/peft/utils/other.py:204-209).
 */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *plan_mem_name(plan_mem m)
{
	static const char *const names[PLAN_MEM_COUNT] = {
	        "weights", "gradients",     "optimizer_states", "activations",
	        "buffers", "fragmentation", "runtime"};
	return (unsigned)m < PLAN_MEM_COUNT ? names[m] : "?";
}

const char *plan_verdict_name(plan_verdict v)
{
	static const char *const names[] = {"fits", "tight", "out of memory"};
	return (unsigned)v < 3 ? names[v] : "?";
}

int plan_chunk_kinds(const plan_scenario *s, int stage, int chunk, int count[2], int rep[2])
{
	int v = plan_vstage(&s->plan, stage, chunk), g0 = 0, n = s->vlayers[v];
	for (int u = 0; u < v; u++)
		g0 += s->vlayers[u];
	/* each kind's count and its first layer (work_layer_is_moe) */
	count[0] = count[1] = 0;
	rep[0] = rep[1] = -1;
	for (int g = g0; g < g0 + n; g++) {
		int k = work_layer_is_moe(&s->model, g);
		if (count[k]++ == 0)
			rep[k] = g;
	}
	return n;
}

/* Parameters of the stage's chunk c on one rank: the TP-split part (*dense),
 * the routed experts over EP (*experts), and of the dense part the layers'
 * linear weights (*linear, what quantisation and LoRA apply to). Chunk 0 of
 * stage 0 holds the input embedding, the last chunk of the last stage the
 * output layer and, when tied with pp > 1, a copy of the word embedding
 * (Megatron keeps one on each end and all-reduces their gradients). */
void plan_chunk_params(const plan_scenario *s, int stage, int chunk, double *dense, double *experts,
                       double *linear)
{
	const work_model *m = &s->model;
	int pp = s->plan.pp, count[2], rep[2];
	plan_chunk_kinds(s, stage, chunk, count, rep);
	double p = 0, e = 0, lin = 0, small = plan_layer_small_params(m);
	for (int k = 0; k < 2; k++) {
		if (!count[k])
			continue;
		double x = work_params_layer_experts(m, rep[k]);
		double all = work_params_layer_at(m, rep[k]) - x;
		p += count[k] * plan_rank_layer(s, rep[k]);
		e += count[k] * x;
		lin += count[k] * (all - small);
	}
	if (stage == 0 && chunk == 0)
		p += plan_rank_embedding(s);
	if (plan_vstage(&s->plan, stage, chunk) == pp * s->plan.vpp - 1) {
		p += plan_rank_output(s); /* with the MTP modules but their experts */
		e += work_params_mtp_experts(m);
		/* the tied copy is the word embedding alone: the positions stay on
		 * the first stage (gpt_model.py:173-174; language_module.py:
		 * 281-288 zeroes the copy, d98e8a64) */
		if (!m->untied_embeddings && pp > 1 && stage != 0)
			p += (double)m->vocab * m->hidden / s->plan.tp;
	}
	*dense = p;
	*linear = lin / s->plan.tp;
	*experts = e / (s->plan.ep > 1 ? s->plan.ep : 1); /* whole experts over ep */
}

/* A layer's parameters that are not linear weights: its norms (2h, or 4h
 * for layer norm with biases) and biases (h + 2gd + h + f + h per layer of
 * a GPT-style model). */
double plan_layer_small_params(const work_model *m)
{
	double h = m->hidden, hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double g = m->kv_heads > 0 ? m->kv_heads : m->heads, f = m->ffn > 0 ? m->ffn : 4.0 * h;
	double norms = 2 * (m->norm == WORK_NORM_RMSNORM ? h : 2 * h);
	double bias = m->bias ? m->heads * hd + 2 * g * hd + h +
	                                (m->act == WORK_ACT_SWIGLU ? 2 * f : f) + h
	                      : 0;
	return norms + bias;
}

double plan_rank_layer(const plan_scenario *s, int g)
{
	const work_model *m = &s->model;
	return work_params_tp_local(work_params_layer_at(m, g) - work_params_layer_experts(m, g),
	                            work_params_layer_replicated(m, g), s->plan.tp);
}

double plan_rank_embedding(const plan_scenario *s)
{
	const work_model *m = &s->model;
	return work_params_tp_local(work_params_embedding(m), work_params_embedding_replicated(m),
	                            s->plan.tp);
}

double plan_rank_output(const plan_scenario *s)
{
	const work_model *m = &s->model;
	return work_params_tp_local(work_params_output(m), work_params_output_replicated(m),
	                            s->plan.tp);
}

/* A layer's norms and biases on one TP rank (plan_layer_small_params; the
 * norms and row-parallel biases whole). */
static double small_rank(const plan_scenario *s, int g)
{
	return work_params_tp_local(plan_layer_small_params(&s->model),
	                            work_params_layer_replicated(&s->model, g), s->plan.tp);
}

/* The chunk's layers' norms and biases on one TP rank. */
static double chunk_small(const plan_scenario *s, int stage, int chunk)
{
	int count[2], rep[2];
	plan_chunk_kinds(s, stage, chunk, count, rep);
	double x = 0;
	for (int k = 0; k < 2; k++)
		x += count[k] ? count[k] * small_rank(s, rep[k]) : 0;
	return x;
}

/* Stage totals of plan_chunk_params. */
static double stage_params(const plan_scenario *s, int stage, double *experts)
{
	double p = 0, e = 0;
	for (int c = 0; c < s->plan.vpp; c++) {
		double d, x, l;
		plan_chunk_params(s, stage, c, &d, &x, &l);
		p += d;
		e += x;
	}
	*experts = e;
	return p;
}

/* LoRA adapter parameters of one layer (r (in + out) per target linear,
 * split over TP like the layer). */
double plan_lora_layer_params(const plan_scenario *s)
{
	const work_model *m = &s->model;
	unsigned k = s->train.lora_mask;
	double r = s->train.lora_rank, h = m->hidden;
	double hd = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
	double q = m->heads * hd, kv = (m->kv_heads > 0 ? m->kv_heads : m->heads) * hd;
	double f = m->ffn > 0 ? m->ffn : 4.0 * h;
	bool swiglu = m->act == WORK_ACT_SWIGLU;
	double p = 0;
	p += (k & WORK_LORA_Q) ? r * (h + q) : 0;
	p += (k & WORK_LORA_K) ? r * (h + kv) : 0;
	p += (k & WORK_LORA_V) ? r * (h + kv) : 0;
	p += (k & WORK_LORA_O) ? r * (q + h) : 0;
	p += (k & WORK_LORA_GATE) && swiglu ? r * (h + f) : 0;
	p += (k & WORK_LORA_UP) ? r * (h + f) : 0;
	p += (k & WORK_LORA_DOWN) ? r * (f + h) : 0;
	return r > 0 ? p / s->plan.tp : 0;
}

double plan_lora_flops_change(const plan_scenario *s, double tokens)
{
	if (s->train.lora_rank <= 0 || s->inference)
		return 0;
	/* F is linear in the sequence's attention: F(s) = W + A(s), A(2s) =
	 * 2 A(s), so the weights' part W = 2 F(s) - F(2s) (6 per matmul
	 * weight a token meets, the output layer's included) */
	work_model fm = plan_flops_model(s), twice = fm;
	twice.seq_len *= 2;
	double w = 2.0 * work_model_flops(&fm, 1.0) - work_model_flops(&twice, 1.0);
	double logits = 6.0 * (double)fm.vocab * fm.hidden;
	double frozen = s->train.train_embeddings ? w - logits : w;
	double adapters = 6.0 * plan_lora_layer_params(s) * s->plan.tp * fm.layers;
	return (adapters - frozen / 3.0) * tokens;
}

/* Adafactor (Shazeer and Stern 2018, "Adafactor: Adaptive Learning Rates
 * with Sublinear Memory Cost", Algorithm 4; beta1 = 0, no first moment)
 * keeps for an [in, out] weight a row vector R (in) and a column vector C
 * (out) of the squared gradients, fp32: 4 (in + out) bytes for in x out
 * parameters. A layer's matrices: q and o [h, h], k and v [h, kv] (kv =
 * kv_heads x head_dim), and two (three with SwiGLU) MLP matrices [h, f];
 * the average over their parameters. Vectors (norms, biases) keep a full
 * second moment (4 B each), under 0.1 % of a transformer's parameters:
 * ignored. Llama 2 7B (h 4096, f 11008, SwiGLU): 4 x 78,080 / 202,375,168
 * = 0.0015 B per parameter. */
double plan_adafactor_state_bytes(const plan_scenario *s)
{
	const work_model *m = &s->model;
	double h = m->hidden;
	double d = m->head_dim > 0 ? m->head_dim : h / m->heads;
	double kv = (m->kv_heads > 0 ? m->kv_heads : m->heads) * d;
	double f = m->ffn > 0 ? m->ffn : 4.0 * h;
	double nmlp = m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0;
	double params = 2.0 * h * h + 2.0 * h * kv + nmlp * h * f;
	double vec = 2.0 * (h + h) + 2.0 * (h + kv) + nmlp * (h + f);
	return 4.0 * vec / params;
}

/* Gradient compression on the data-parallel wire: fp8 sends 1 byte per
 * value (MS-AMP's fp8 all-reduce); 1-bit Adam (Tang et al. 2021, "1-bit
 * Adam: Communication Efficient Large-Scale Training with Adam's Convergence
 * Speed") sends the sign of each momentum value, 1 bit, and a scale per
 * chunk (negligible) in a compressed all-reduce of the same two phases as a
 * ring's, after a full-precision warm-up that is not modelled: 1/8 byte,
 * 32x less than fp32 gradients. */
double plan_grad_wire_bytes(const plan_scenario *s, double g)
{
	switch (s->train.grad_compression) {
	case PLAN_GC_FP8:
		return 1.0;
	case PLAN_GC_1BIT:
		return 1.0 / 8.0;
	default:
		break;
	}
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	return s->fw.grad_wire == PLAN_WIRE_PARAMS && !fp32 && g > 2.0 ? 2.0 : g;
}

double plan_grad_cast_bytes(const plan_scenario *s)
{
	if (s->train.grad_compression != PLAN_GC_NONE)
		return 0;
	double g = plan_grad_bytes(s), w = plan_grad_wire_bytes(s, g);
	return w < g ? 2.0 * (g + w) : 0;
}

double plan_grad_cast_time(const plan_scenario *s, double values)
{
	double b = plan_grad_cast_bytes(s) / 2;
	return b > 0 && values > 0 ? hw_mem_time(&s->gpu, values * b) : 0;
}

/* Bytes per parameter under the scenario's policy, optimizer and dtype
 * (table above). *opt excludes paged states (*paged: bytes per parameter in
 * unified memory). */
void plan_param_bytes(const plan_scenario *s, double *w, double *g, double *opt, double *paged)
{
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	int pol = fp32 ? PLAN_POLICY_AMP : s->train.policy;
	double st16 = pol == PLAN_POLICY_PURE ? 4.0 : 8.0; /* Adam's m and v */
	bool own = pol == PLAN_POLICY_MIXED && s->fw.param_master; /* the parameter is the master */
	double master = pol == PLAN_POLICY_MIXED && !own ? 4.0 : 0.0;
	*w = pol == PLAN_POLICY_AMP || own ? 4.0 : 2.0;
	*g = pol == PLAN_POLICY_AMP || own || (pol == PLAN_POLICY_MIXED && s->plan.fp32_grads) ? 4.0
	                                                                                     : 2.0;
	double st = st16;
	switch (s->train.optimizer) {
	case PLAN_ADAM_8BIT:
	case PLAN_ADAM_PAGED_8BIT:
		st = 2.0 + 2.0 * 4.0 / 256.0;
		break;
	case PLAN_SGD:
		st = 0;
		break;
	case PLAN_SGD_MOMENTUM:
		st = st16 / 2.0;
		break;
	case PLAN_ADAFACTOR:
		st = plan_adafactor_state_bytes(s);
		break;
	default:
		break;
	}
	bool is_paged =
	        s->train.optimizer == PLAN_ADAM_PAGED || s->train.optimizer == PLAN_ADAM_PAGED_8BIT;
	/* 1-bit Adam's error feedback: a worker error per parameter and a
	 * server error per 1/n chunk, fp32 (Tang et al. 2021, algorithm 1) */
	if (s->train.grad_compression == PLAN_GC_1BIT) {
		double n = (double)s->plan.dp * (s->plan.cp > 1 ? s->plan.cp : 1);
		st += 4.0 + 4.0 / n;
	}
	*opt = master + (is_paged ? 0 : st);
	*paged = is_paged ? st : 0;
}

/* Bytes of a trained parameter as the layers compute with it (ZeRO-3's
 * gathered copy): the stored bytes, but 16 bits where param_master keeps
 * fp32 parameters and gathers them in the MixedPrecision param_dtype. */
double plan_param_gather_bytes(const plan_scenario *s)
{
	double w, g, o, paged;
	plan_param_bytes(s, &w, &g, &o, &paged);
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	return !fp32 && s->train.policy == PLAN_POLICY_MIXED && s->fw.param_master ? 2.0 : w;
}

/* The largest tensor one rank's optimizer steps, in elements (plan.h). With
 * flat_params (FSDP1, use_orig_params = False) the optimizer's tensors are
 * the FlatParameters, one per wrapped unit: each transformer block, and the
 * root with the embedding, output layer and final norm; each rank holds its
 * 1/shards of every one. Otherwise the model's own tensors on a TP rank:
 * the largest of a layer's linear weights (h x f for the MLP, h x q for the
 * attention's query and output projections, eager code's separate modules),
 * the embedding and the output layer (V x h, vocab-parallel over TP), or
 * under LoRA the largest adapter matrix (r x max(in, out)) unless the
 * embeddings train; under ZeRO-3 a shard of it (FSDP2 shards every
 * parameter on dim 0). Routed experts are counted as a dense MLP of inner
 * size ffn on the rank (an approximation: no profile steps MoE experts one
 * tensor at a time). */
double plan_step_tensor_max(const plan_scenario *s, int stage)
{
	const work_model *m = &s->model;
	const plan_spec *p = &s->plan;
	int dpg, shard, edp;
	plan_group_sizes(p, &dpg, &shard, &edp);
	bool wshard = p->zero >= 3 || (p->zero == 2 && s->fw.zero2_param_shards);
	double shards = wshard && shard > 1 ? shard : 1;
	bool first = stage == 0, last = stage == plan_last_rank(p);
	double root = (first ? plan_rank_embedding(s) : 0) + (last ? plan_rank_output(s) : 0);
	if (last && !first && !m->untied_embeddings)
		root += (double)m->vocab * m->hidden / p->tp;
	if (s->fw.flat_params) {
		plan_budget b;
		plan_stage_budget(s, stage, &b);
		return (b.layer_max > root ? b.layer_max : root) / shards;
	}
	double h = m->hidden, hd = m->head_dim > 0 ? m->head_dim : h / m->heads;
	double f = m->ffn > m->dense_ffn ? m->ffn : m->dense_ffn;
	f = f > 0 ? f : 4.0 * h;
	double q = m->heads * hd, lin = (h * f > h * q ? h * f : h * q) / p->tp;
	double emb = first ? (double)m->vocab * h / p->tp : 0;
	if (last && (m->untied_embeddings || p->pp > 1))
		emb = (double)m->vocab * h / p->tp;
	double big = lin > emb ? lin : emb;
	if (plan_optimizer_in_shard(s)) {
		/* FSDP1 with use_orig_params: the rank steps each tensor's piece
		 * in its slice of the unit's flat parameter (optim.c), at most
		 * the slice: the largest piece is a layer's largest tensor cut
		 * to the layer's slice, or the root's (the embedding) to its */
		plan_budget b;
		plan_stage_budget(s, stage, &b);
		double n = shard, lp = lin < b.layer_max / n ? lin : b.layer_max / n;
		double rp = emb < root / n ? emb : root / n;
		return lp > rp ? lp : rp;
	}
	if (s->train.lora_rank > 0) {
		double r = s->train.lora_rank, in = f > q ? f : q;
		big = s->train.train_embeddings && emb > 0 ? emb : r * (in > h ? in : h) / p->tp;
	}
	return big / shards;
}

/* Bytes per frozen base parameter (linear weights; base_weights). */
double plan_base_bytes(const plan_scenario *s, double w)
{
	switch (s->train.base_weights) {
	case PLAN_BASE_16BIT:
		return 2.0;
	case PLAN_BASE_FP32:
		return 4.0;
	case PLAN_BASE_NF4:
		return 0.5 + 4.0 / 64.0;
	case PLAN_BASE_NF4_DQ:
		return 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0);
	case PLAN_BASE_INT4:
		return 0.5 + 2.5 / 128.0;
	case PLAN_BASE_INT8:
		return 1.0;
	default:
		return w;
	}
}

bool plan_base_quantized(const plan_scenario *s)
{
	return s->train.base_weights >= PLAN_BASE_NF4;
}

/* The stage's parameter budget (memwalk.c and the reports): what one rank
 * holds before sharding, what trains and what is frozen. With LoRA the
 * adapters train (with the embedding and output layer under
 * train_embeddings); the rest is the frozen base, its layers' linear
 * weights stored per base_weights and the other parameters in 16 bits (or
 * fp32, quant_rest_fp32) when the linear ones are quantised, else like them. */
void plan_stage_budget(const plan_scenario *s, int stage, plan_budget *b)
{
	memset(b, 0, sizeof *b);
	const work_model *m = &s->model;
	plan_param_bytes(s, &b->w, &b->g, &b->o, &b->paged);
	b->wg = plan_param_gather_bytes(s);
	b->layers = plan_stage_layers(s, stage);
	double emb = 0;
	for (int c = 0; c < s->plan.vpp; c++) {
		double d, x, lin;
		plan_chunk_params(s, stage, c, &d, &x, &lin);
		b->dense += d, b->experts += x, b->linear += lin;
		emb += d - lin - chunk_small(s, stage, c);
	}
	b->train = b->dense + b->experts;
	if (s->train.lora_rank > 0) {
		b->adapters = b->layers * plan_lora_layer_params(s);
		double trained = s->train.train_embeddings ? emb : 0;
		b->train = b->adapters + trained;
		b->frozen = b->dense + b->experts - trained;
		double base = plan_base_bytes(s, b->w);
		double rest = !plan_base_quantized(s) ? base : s->fw.quant_rest_fp32 ? 4.0 : 2.0;
		double qlin = b->linear + b->experts;
		b->frozen_bytes = qlin * base + (b->frozen - qlin) * rest;
		b->base_bytes = base;
		/* bitsandbytes keeps a 4-bit weight's statistics in a QuantState
		 * beside the tensor (Params4bit.quant_state, the absmax per block of
		 * 64, with double quantisation their 8-bit codes and an fp32 absmax
		 * per 256 of them): bitsandbytes 0.44.1 (263af70b) nn/modules.py:
		 * 210-231, 295-308. FSDP flattens, shards and offloads parameters
		 * and syncs parameters and buffers only; the QuantState is neither:
		 * Params4bit.to moves it to the GPU with the tensor (modules.py:
		 * 328-347, QuantState.to in place, functional.py:788-794), as FSDP's
		 * module.to(device_id) does before it moves only the FlatParameters
		 * back to the CPU under CPUOffload (Debian python3-torch
		 * 1.13.1+dfsg-4, torch/distributed/fsdp/
		 * fully_sharded_data_parallel.py:1411-1424), and Linear4bit
		 * recovers it from its module, "the quant state got lost when the
		 * parameter got converted. This happens for example for fsdp"
		 * (modules.py:350-364); fsdp_qlora quantises on every rank's GPU for
		 * it: "FSDP only syncs parameters and buffers, so the quant_state
		 * isn't copied" (AnswerDotAI/fsdp_qlora 05ed9f2a train.py:234-246).
		 * DeepSpeed ZeRO-3 likewise partitions and offloads param.data only
		 * (v0.14.0 ce78a632 runtime/zero/partition_parameters.py:277-287,
		 * 1483-1552), with no case for Params4bit.
		 * So every rank holds all of it, whatever the sharding and offload:
		 * the base's bytes beyond the packed 0.5 B per weight. */
		if (s->train.base_weights == PLAN_BASE_NF4 ||
		    s->train.base_weights == PLAN_BASE_NF4_DQ)
			b->quant_state = qlin * (base - 0.5);
	}
	for (int c = 0; c < s->plan.vpp && s->train.frozen_layers > 0; c++)
		b->frozen += plan_chunk_frozen(s, stage, c);
	if (s->train.frozen_layers > 0) {
		b->train -= b->frozen;
		b->frozen_bytes = b->frozen * b->w;
		b->base_bytes = b->w;
		b->quant_state = 0;
	}
	for (int c = 0; c < s->plan.vpp; c++) {
		int count[2], rep[2];
		plan_chunk_kinds(s, stage, c, count, rep);
		for (int k = 0; k < 2; k++) {
			double x = count[k] ? plan_rank_layer(s, rep[k]) +
			                              work_params_layer_experts(m, rep[k]) / s->plan.tp
			                    : 0;
			b->layer_max = x > b->layer_max ? x : b->layer_max;
		}
	}
}

bool plan_layer_frozen(const plan_scenario *s, int g)
{
	return g < s->train.frozen_layers;
}

/* Frozen layers (train.frozen_layers = N): the first N transformer layers
 * and the input embedding keep their weights (at the policy's weight bytes)
 * and get no gradients, no optimizer states and no fp32 master: per TP rank
 * the layers' params / tp, and the embedding's V h / tp on virtual stage 0. */
double plan_chunk_frozen(const plan_scenario *s, int stage, int chunk)
{
	if (s->train.frozen_layers <= 0)
		return 0;
	int l0, n = plan_chunk_layers(s, stage, chunk, &l0);
	double fz = 0;
	for (int l = 0; l < n; l++) {
		int g = plan_global_layer(s, stage, l0 + l);
		if (plan_layer_frozen(s, g))
			fz += plan_rank_layer(s, g) +
			      work_params_layer_experts(&s->model, g) / s->plan.tp;
	}
	if (chunk * s->plan.pp + stage == 0)
		fz += plan_rank_embedding(s);
	return fz;
}

/* Trainable parameters of chunk c (plan_stage_budget's split per chunk). */
double plan_chunk_train(const plan_scenario *s, int stage, int c)
{
	double d, x, lin;
	plan_chunk_params(s, stage, c, &d, &x, &lin);
	if (s->train.lora_rank <= 0)
		return d + x - plan_chunk_frozen(s, stage, c);
	int n = plan_chunk_layers(s, stage, c, NULL);
	double emb = d - lin - chunk_small(s, stage, c);
	return n * plan_lora_layer_params(s) + (s->train.train_embeddings ? emb : 0);
}

/* The activation peak of `stage` in chunk-steps: the walk of
 * plan_schedule_order (a forward keeps, a backward, or W under ZB-H1, frees)
 * and its closed form for equal chunks (textbook counts: GPipe all m; 1F1B
 * pp - stage; interleaved (pp - stage - 1) * 2 + (vpp - 1) * N + 1, N the
 * micro-batch group, pp by default (plan_vp_group), each at most m * vpp;
 * Narayanan et al. 2021). memwalk.c walks the whole state;
 * these two remain the activation-only view that the tests and explain
 * state. */
double plan_peak_closed(const plan_spec *p, int stage, double act)
{
	int m = plan_microbatches(p);
	if (plan_sched_all_fwd(p->schedule))
		return act * m * p->vpp;
	long steps = p->vpp > 1 ? (long)(p->pp - stage - 1) * 2 +
	                                  (long)(p->vpp - 1) * plan_vp_group(p) + 1
	                        : p->pp - stage;
	if (steps > (long)m * p->vpp)
		steps = (long)m * p->vpp;
	return act * (double)steps;
}

double plan_peak_walk(const plan_spec *p, int stage, const double *act_c)
{
	int m = plan_microbatches(p), n = plan_schedule_steps(p->schedule, m, p->vpp);
	plan_op *ops = malloc((size_t)n * sizeof *ops);
	if (!ops)
		return -1;
	plan_schedule_order(p->schedule, p->pp, m, p->vpp, plan_vp_group(p), plan_warm_extra(p),
			    stage, ops);
	bool zb = plan_sched_zb(p->schedule);
	double cur = 0, peak = 0;
	for (int i = 0; i < n; i++) {
		double a = act_c[ops[i].chunk];
		if (!ops[i].backward)
			cur += a;
		else if (ops[i].weight || !zb)
			cur -= a;
		peak = cur > peak ? cur : peak;
	}
	free(ops);
	return peak;
}

work_shard plan_shard(const plan_scenario *s)
{
	int cp = s->plan.cp > 1 ? s->plan.cp : 1;
	work_shard sh = {.tp = s->plan.tp,
			 .sp = s->plan.sequence_parallel,
			 .micro_batch = s->plan.micro_batch,
			 .seq = s->model.seq_len / cp,
			 .dtype = s->dtype,
			 .flash = s->flash,
			 .cp = cp,
			 .cp_allgather = cp > 1 && s->fw.cp_comm == PLAN_CP_ALLGATHER,
			 .cp_alltoall = cp > 1 && s->fw.cp_comm == PLAN_CP_ALLTOALL,
			 .ep = s->plan.ep > 1 ? s->plan.ep : 1,
			 .moe_dispatcher = s->plan.moe_dispatcher,
			 .moe_capacity = s->plan.moe_capacity,
			 .recompute_modules = s->plan.recompute_mask,
			 .fp8_delayed = s->train.fp8_recipe == PLAN_FP8_DELAYED,
			 .flash_impl = (hw_flash_impl)s->fw.flash_impl,
			 .softmax_fused_max_seq = s->fw.softmax_fused_max_seq,
			 .layer_code = s->fw.layer_kernels,
			 .loss = s->train.chunked_loss ? WORK_LOSS_CHUNKED : s->fw.loss,
			 .loss_fp32 = (s->train.policy == PLAN_POLICY_AMP || s->train.autocast) &&
				      s->fw.saved_tensors != WORK_SAVED_FUSED,
			 .lora_rank = s->inference ? 0 : s->train.lora_rank,
			 .lora_targets = s->train.lora_mask,
			 .lora_dropout = s->train.lora_dropout,
			 .train_embeddings = s->train.train_embeddings};
	/* what a fully recomputed layer keeps: Megatron refuses
	 * distribute_saved_activations with SP (transformer_config.py:1934-1938
	 * at d98e8a64), where the input is split already */
	sh.distribute_saved = s->fw.distribute_saved && sh.tp > 1 && !sh.sp;
	/* a framework whose selective recomputation wraps only the unfused
	 * core re-runs none of it under flash attention or Ulysses
	 * ([framework] selective_core_attn = unfused) */
	if (s->fw.selective_attn == PLAN_SEL_ATTN_UNFUSED && (sh.flash || sh.cp_alltoall)) {
		unsigned k = sh.recompute_modules ? sh.recompute_modules : WORK_RC_CORE_ATTN;
		k &= ~(unsigned)WORK_RC_CORE_ATTN;
		sh.recompute_modules = k ? k : WORK_RC_NOTHING;
	}
	return sh;
}

/* The model code's saved-tensor description (work_saved) for the scenario:
 * the framework's, compiled under [train] compile, with an fp32 residual
 * stream under the amp policy. */
work_saved plan_saved(const plan_scenario *s)
{
	work_saved sv = {.kind = (work_saved_kind)s->fw.saved_tensors,
	                 .norm = (work_norm_saved)s->fw.norm_saved,
	                 .expand_kv = s->fw.expand_kv,
	                 .attn_out_copy = s->fw.attn_out_copy,
	                 .dropout = s->fw.dropout,
	                 .fp32_residual = s->train.policy == PLAN_POLICY_AMP &&
	                                  s->fw.saved_tensors != WORK_SAVED_FUSED};
	if (s->train.compile && sv.kind == WORK_SAVED_EAGER)
		sv.kind = WORK_SAVED_COMPILED;
	return sv;
}

/* The loss's logit tensors per token and vocabulary entry on one rank, at
 * four moments: the loss forward's peak (*fwd), what stays until the loss
 * backward (*kept), the loss backward's peak (*bwd), and what the training
 * loop holds through the layers' backward and the step (*held: the model's
 * returned logits, when holds_outputs). e is the logits' element size, l the
 * log-softmax's (4 under autocast, whose cross_entropy runs in fp32, else
 * e). Per implementation, without and (+) with the held logits:
 *   vocab-parallel  Megatron: the 16-bit logits and their fp32 copy, which
 *                   exp, the division and the backward overwrite in place
 *                   (core/tensor_parallel/cross_entropy.py:25, 61-77, 88,
 *                   181): fwd e + 4, kept 4, bwd 4 + e; the loss is returned,
 *                   not the logits; all / t
 *   upcast-shift    HF Llama (transformers <= 4.44, modeling_llama.py,
 *                   yarn's copy 1363-1377): logits.float() (the 16-bit ones
 *                   freed), the shifted contiguous copy and the saved
 *                   log-softmax: fwd 12, kept 4, bwd 12 (+ the gradient of
 *                   the log-softmax output and of its input); + 4 (the fp32
 *                   logits returned)
 *   shift           HF GPT-2 style (no upcast): logits e, shifted copy e,
 *                   log-softmax l (its fp32 input cast a transient 4 under
 *                   autocast): fwd 2e + l (+ 4), kept l, bwd 3l; + e
 *   upcast          cross_entropy(logits.float()), the logits deleted before
 *                   the backward (torchtune's recipes, torchtitan
 *                   components/loss.py:57-58): fwd e + 8, kept 4, bwd 12; + e
 *   chunked         torchtune's CEWithChunkedOutputLoss compiled: the 16-bit
 *                   logit chunks, each upcast inside the fused loss kernel
 *                   (ce_chunked_output_loss.py:35-42): e throughout; + 0
 *   chunked-16bit   lit-gpt 2023 chunked_cross_entropy (utils.py:238-262):
 *                   16-bit chunks, their 16-bit log-softmax: fwd 2e, kept e,
 *                   bwd 2e; + e (the list of chunks)
 *   16-bit          cross_entropy on the 16-bit logits: fwd 2e, kept e,
 *                   bwd 3e; + e
 *   fused-xent      flash-attn's CrossEntropyLoss (llm-foundry's default
 *                   loss_fn, modeling_mpt.py:981-987 at 5e85bd62): one
 *                   Triton kernel saves the 16-bit logits themselves
 *                   (flash-attn v2.4.2 ops/triton/cross_entropy.py:225) and
 *                   its backward writes their gradient (:238): fwd e, kept
 *                   e, bwd 2e; + 0 (the held logits are the saved ones)
 *   sharded         nanotron (0e0a27ea; LL models/llama.py, TF parallel/
 *                   tensor_parallel/functional.py): cast_to_fp32 makes the
 *                   fp32 copy (LL:874-880, 909; e + 4 while both live; the
 *                   16-bit logits die when forward_with_hidden_states
 *                   returns, LL:907-911), then _ShardedCrossEntropy
 *                   subtracts the row maximum out of place (TF:43: a second
 *                   fp32 tensor beside the cast one, which the caller's
 *                   sharded_logits still holds: 8), exp and the division
 *                   run in place on it (TF:73-82) and it is saved as the
 *                   softmax (TF:85): kept 4; the backward works in place
 *                   (TF:94-105), then the cast's backward writes the
 *                   16-bit gradient: 4 + e. fwd max(e + 4, 8), kept 4,
 *                   bwd 4 + e; the loss is returned, not the logits; all / t */
void plan_loss_bytes(const plan_scenario *s, double *fwd, double *kept, double *bwd, double *held)
{
	double e = hw_dtype_bytes(s->dtype) < 2 ? 2.0 : hw_dtype_bytes(s->dtype);
	bool amp = (s->train.policy == PLAN_POLICY_AMP || s->train.autocast) &&
	           s->fw.saved_tensors != WORK_SAVED_FUSED;
	double l = amp ? 4.0 : e, t = s->plan.tp, logits = 0;
	int loss = s->train.chunked_loss ? PLAN_LOSS_CHUNKED : s->fw.loss;
	switch (loss) {
	case PLAN_LOSS_UPCAST_SHIFT:
		*fwd = 12, *kept = 4, *bwd = 12, logits = 4;
		break;
	case PLAN_LOSS_SHIFT:
		*fwd = 2 * e + l + (amp ? 4 : 0), *kept = l, *bwd = 3 * l, logits = e;
		break;
	case PLAN_LOSS_UPCAST:
		*fwd = e + 8, *kept = 4, *bwd = 12, logits = e;
		break;
	case PLAN_LOSS_CHUNKED:
		*fwd = *kept = *bwd = e;
		break;
	case PLAN_LOSS_CHUNKED_16BIT:
		*fwd = *bwd = 2 * e, *kept = e, logits = e;
		break;
	case PLAN_LOSS_16BIT:
		*fwd = 2 * e, *kept = e, *bwd = 3 * e, logits = e;
		break;
	case PLAN_LOSS_FUSED_XENT:
		*fwd = *kept = e, *bwd = 2 * e;
		break;
	case PLAN_LOSS_SHARDED:
		*fwd = fmax(e + 4, 8) / t, *kept = 4 / t, *bwd = (4 + e) / t, *held = 0;
		return;
	default: /* vocab-parallel */
		*fwd = (e + 4) / t, *kept = 4 / t, *bwd = (4 + e) / t, *held = 0;
		return;
	}
	*held = s->fw.holds_outputs ? logits : 0;
	*kept += *held, *bwd += *held;
	/* with TP the frameworks that run it split the output layer and its
	 * loss over the vocabulary too (ATorch's Megatron-style layers) */
	double split = s->plan.tp > 1 ? t : 1;
	*fwd /= split, *kept /= split, *bwd /= split, *held /= split;
}

/* Ranks that share a rank's parameters: all of dp x cp (dpg), the ZeRO shard
 * group among them (shards; dpg unless hybrid sharding), and the ranks holding
 * the same experts (eshards): plan_group_sizes. */
static void shard_counts(const plan_scenario *s, double *dpg, double *shards, double *eshards)
{
	int a, b, c;
	plan_group_sizes(&s->plan, &a, &b, &c);
	*dpg = a, *shards = b, *eshards = c;
}

double plan_local_params(const plan_scenario *s, int stage)
{
	const plan_spec *p = &s->plan;
	double experts, params = stage_params(s, stage, &experts), dpg, shards, eshards;
	shard_counts(s, &dpg, &shards, &eshards);
	return p->zero >= 1 ? params / shards + experts / eshards : params + experts;
}

/* What the sweep pre-screen's data-parallel time reduces per rank: the
 * gradient bytes of the memory model before the peak walk (2 or 4-byte
 * gradients, times the shard group when ZeRO divided them), kept as they
 * were so that step times do not move with the memory model. */
double plan_dp_grad_bytes(const plan_scenario *s, int stage)
{
	double experts, params = stage_params(s, stage, &experts);
	/* Only trained parameters have gradients to reduce: LoRA's adapters
	 * (and the embeddings with train_embeddings), or the layers above
	 * frozen_layers. */
	double tdense = params, texp = experts;
	if (s->train.lora_rank > 0 || s->train.frozen_layers > 0) {
		plan_budget bg; /* its train: the stage's trained parameters */
		plan_stage_budget(s, stage, &bg);
		texp = s->train.lora_rank > 0 ? 0 : experts;
		tdense = bg.train - texp;
	}
	/* the rank's whole local bytes, sharded or not (a reduce-scatter over
	 * the shard group starts from them): not the shard times the dp x cp
	 * ranks, which count the replicas of hybrid sharding too */
	double g = plan_grad_bytes(s);
	return tdense * g + texp * g;
}

void plan_offload_memory(const plan_scenario *s, int stage, double *host, double *nvme)
{
	const plan_spec *p = &s->plan;
	int g = s->cluster.node.gpus;
	plan_budget b;
	plan_stage_budget(s, stage, &b);
	/* a rank's parameters (its shard under ZeRO) and, of them, the trained
	 * ones (plan_optimizer_trained: under LoRA the adapters and trained
	 * embeddings, above frozen_layers the rest) */
	double local = plan_local_params(s, stage), all = b.dense + b.experts;
	double share = all > 0 ? local / all : 0;
	double trained = plan_optimizer_trained(s, stage, local);
	/* the optimizer's bytes per trained parameter under the policy and
	 * optimizer (plan_param_bytes: fp32 master and Adam's m and v, 12 B
	 * under mixed precision; 8-bit states, SGD, pure 16-bit less; paged
	 * states live in unified memory, not counted here) and an fp32 gradient
	 * (DeepSpeed's offload copies the reduced gradients to the host in fp32) */
	double states = trained * b.o, grads = trained * 4.0;
	/* the shard's parameters: the trained ones at the policy's bytes, the
	 * frozen base at its own (a 4-bit base packed at 0.5 B per weight; its
	 * quantisation statistics stay on the GPU: plan_stage_budget) */
	double weights = trained * b.w + share * (b.frozen_bytes - b.quant_state);
	*host = *nvme = 0;
	if (p->offload_optimizer == PLAN_OFFLOAD_CPU)
		*host += g * (states + grads);
	else if (p->offload_optimizer == PLAN_OFFLOAD_NVME)
		*host += g * grads, *nvme += g * states;
	if (p->offload_params == PLAN_OFFLOAD_CPU)
		*host += g * weights;
	else if (p->offload_params == PLAN_OFFLOAD_NVME)
		*nvme += g * weights;
}
