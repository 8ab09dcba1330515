/* lora.c - a layer's program under LoRA (work.h, work_lora_apply).
 *
 * LoRA (Hu et al. 2021) freezes the base weights and trains, beside each
 * targeted linear y = x W (W of [k, n] on this rank), a rank-r update
 * y += s B(A(dropout(x))), A of [k, r], B of [r, n]. What that does to the
 * step, on every layer code alike (the items keep their names: the fused
 * code's qkv / proj / fc1 / fc2, the eager codes' q, k, v, o, gate, up,
 * down, nanotron's and llm-foundry's own):
 *
 *   - No weight gradient of a frozen linear. Autograd computes no gradient
 *     for a parameter with requires_grad = False (PEFT freezes every base
 *     parameter, mark_only_lora_as_trainable, bias "none" by default:
 *     huggingface/peft 5d602fdbf src/peft/tuners/lora/model.py and
 *     tuners_utils.py; NeMo and Megatron-Bridge freeze the base module the
 *     same way), so the "<lin>_wgrad" GEMM and the "<lin>_bgrad" reduction
 *     go, and with them a third of the linear layers' backward FLOPs; the
 *     input gradient ("<lin>_dgrad") stays, the layers below need it. So go
 *     the router's, the routed and shared experts' and MLA's projections'
 *     weight gradients (frozen too, and given no adapters here: adapters
 *     on experts or on MLA's latent projections are not modelled), and the
 *     output layer's unless the embeddings train (train_embeddings).
 *   - The adapters. With r much smaller than k and n, [m, k] x [k, r] and
 *     [m, r] x [r, n] do 2 r FLOPs per element they read: at r = 64 and
 *     2-byte operands 64 FLOP/B, under the ridge point of every GPU podsim
 *     ships (A100 156, H100 330 FLOP/B of dense 16-bit peak over HBM), so
 *     they run at the memory's rate and are charged as memory-bound
 *     kernels of the bytes they move, one launch each. Forward, after the
 *     base GEMM: the dropout of x (if any: read x, write x' and its byte
 *     mask), A (read x'), B (write [m, n]), the scaling (read, write) and
 *     the add into y (read two, write one), as PEFT's forward writes them
 *     (result + lora_B(lora_A(dropout(x))) * scaling; layer.py Linear.
 *     forward): e (m k (1 + 2 drop) + 6 m n) bytes, 4 + drop launches.
 *     Backward, in place of the base's weight gradient: the scaling's
 *     gradient (read, write [m, n]), B's weight and input gradients (each
 *     reads the [m, n] gradient), A's weight gradient (reads x') and input
 *     gradient (writes [m, k]), the dropout's backward (read, mask, write)
 *     and the add of that gradient into the base's input gradient (read
 *     two, write one): e (4 m n + 5 m k + 2 drop m k) bytes, 6 + drop
 *     launches. The [m, r] tensors and the adapters' own weights are left
 *     out (r / k of the above, under 1/60 at r = 64 on any shipped model).
 *   - A fused linear carries the adapters of the projections it fuses that
 *     are targeted (qkv: q, k and v; a SwiGLU fc1: gate and up), their
 *     share of its n; a GELU MLP's fc1 is "up", its fc2 "down".
 * The optimizer over the adapters alone and the gradient reduction of the
 * adapters alone are plan's (grads.c, optim.c). Not charged: a quantised
 * base's dequantisation before each GEMM (QLoRA under bitsandbytes
 * dequantised the 4-bit weight to 16 bits per use until its fused
 * gemm_4bit op, bitsandbytes 95f9af30 autograd/_functions.py:300-360,
 * which releases a source ran is not in its row). */
#include "work.h"

#include <string.h>

/* The targeted share of linear `base`'s output width n on this rank, 0
 * for a linear without adapters; -1 where `base` is no linear's name. */
static double target_share(const work_model *m, const work_shard *sh, const char *base,
			   double n)
{
	unsigned t = sh->lora_targets;
	bool swiglu = m->act == WORK_ACT_SWIGLU;
	int tp = sh->tp > 0 ? sh->tp : 1;
	double dh = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	double q = m->heads * dh / tp, kv = (m->kv_heads > 0 ? m->kv_heads : m->heads) * dh / tp;
	static const struct {
		const char *name;
		unsigned bit;
	} one[] = {{"q", WORK_LORA_Q},	     {"k", WORK_LORA_K},       {"v", WORK_LORA_V},
		   {"o", WORK_LORA_O},	     {"proj", WORK_LORA_O},    {"gate", WORK_LORA_GATE},
		   {"up", WORK_LORA_UP},     {"down", WORK_LORA_DOWN}, {"fc2", WORK_LORA_DOWN},
		   {"fc2e", WORK_LORA_NONE}, {"fc1e", WORK_LORA_NONE}, {"router", WORK_LORA_NONE},
		   {"coef", WORK_LORA_NONE}, {"fc1s", WORK_LORA_NONE}, {"fc2s", WORK_LORA_NONE},
		   {"fc1r", WORK_LORA_NONE}, {"fc2r", WORK_LORA_NONE}, {"q_down", WORK_LORA_NONE},
		   {"q_up", WORK_LORA_NONE}, {"q_proj", WORK_LORA_NONE}, {"kv_down", WORK_LORA_NONE},
		   {"kv_up", WORK_LORA_NONE}, {"logits", WORK_LORA_NONE}};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (!strcmp(base, one[i].name))
			return (t & one[i].bit) ? 1.0 : 0.0;
	if (!strcmp(base, "qkv")) {
		double w = ((t & WORK_LORA_Q) ? q : 0) + ((t & WORK_LORA_K) ? kv : 0) +
			   ((t & WORK_LORA_V) ? kv : 0);
		return n > 0 ? w / (q + 2 * kv) : 0;
	}
	if (!strcmp(base, "fc1")) {
		if (!swiglu)
			return (t & WORK_LORA_UP) ? 1.0 : 0.0;
		return (((t & WORK_LORA_GATE) ? 0.5 : 0) + ((t & WORK_LORA_UP) ? 0.5 : 0));
	}
	return -1;
}

/* `name` without the suffix `suf` into base (false where it does not end so). */
static bool strip(const char *name, const char *suf, char *base, size_t len)
{
	size_t n = strlen(name), k = strlen(suf);
	if (n <= k || strcmp(name + n - k, suf) || n - k >= len)
		return false;
	memcpy(base, name, n - k);
	base[n - k] = 0;
	return true;
}

/* A memory-bound item of `bytes` and `launches` kernels. */
static work_item adapter(const char *base, const char *suf, double bytes, int launches)
{
	work_item it;
	memset(&it, 0, sizeof it);
	it.kind = WORK_ITEM_KERNEL;
	it.kernel = WORK_KERNEL_MEM;
	snprintf(it.name, sizeof it.name, "%.14s%s", base, suf);
	it.bytes = bytes;
	it.launches = launches;
	return it;
}

int work_lora_apply(const work_model *m, const work_shard *sh, bool backward, work_item *v, int n)
{
	if (sh->lora_rank <= 0 || n <= 0)
		return n;
	double e = sh->dtype == HW_FP32 ? 4.0 : 2.0; /* activations: 16-bit under fp8 too */
	int drop = sh->lora_dropout ? 1 : 0;
	work_item src[WORK_MAX_ITEMS];
	memcpy(src, v, (size_t)n * sizeof *v);
	int out = 0;
	for (int i = 0; i < n && out < WORK_MAX_ITEMS; i++) {
		const work_item *it = &src[i];
		char base[24];
		bool kern = it->kind == WORK_ITEM_KERNEL, gemm = kern && it->kernel == WORK_KERNEL_GEMM;
		if (backward && kern && strip(it->name, "_bgrad", base, sizeof base) &&
		    target_share(m, sh, base, 1) >= 0)
			continue; /* a frozen bias: no gradient */
		if (backward && gemm && strip(it->name, "_wgrad", base, sizeof base)) {
			/* a weight gradient: m = the input width k, n, k = tokens */
			double share = target_share(m, sh, base, it->n);
			if (share < 0 || (!strcmp(base, "logits") && sh->train_embeddings)) {
				v[out++] = *it; /* not a frozen linear's */
			} else if (share > 0) {
				double tok = it->k, kin = it->m, nout = it->n * share;
				v[out++] = adapter(base, "_lora_bwd",
						   e * (4 * tok * nout + (5 + 2 * drop) * tok * kin) +
							   drop * tok * kin,
						   6 + drop);
			}
			continue;
		}
		v[out++] = *it;
		double share = !backward && gemm ? target_share(m, sh, it->name, it->n) : 0;
		if (share > 0 && out < WORK_MAX_ITEMS) {
			/* a forward GEMM: m = tokens, n, k = the input width */
			double tok = it->m, kin = it->k, nout = it->n * share;
			v[out++] = adapter(it->name, "_lora",
					   e * (tok * kin * (1 + 2 * drop) + 6 * tok * nout) +
						   drop * tok * kin,
					   4 + drop);
		}
	}
	return out;
}
