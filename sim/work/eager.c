/* eager.c - what eager PyTorch model code launches, the pieces the eager
 * layer codes share (mpt.c, fms.c, hf_llama.c; work.h, work_layer_code).
 *
 * Every PyTorch operation is one kernel that reads its inputs and writes its
 * output once (TensorIterator); a view (view, transpose, split, chunk,
 * unsqueeze, a slice) launches nothing. Autograd runs each operation's
 * derivative from tools/autograd/derivatives.yaml (PyTorch 2.1-2.2, the
 * releases these codes ran on): at a tensor used twice it adds the two
 * gradients (one add), a broadcast operand's gradient is reduced to its shape
 * (one reduction). Symbols as layer.c: T tokens, Tn tokens in the norm and
 * residual regions (T/t with SP), h hidden, qd query width, kv K (or V)
 * width, f MLP inner size per rank, dh head size, e = 2 bytes (bf16). Bytes
 * are read + written; per-token tensors ([Tn, 1]: a norm's mean and rsqrt)
 * are counted as launches, their bytes (under 0.1 % of a [Tn, h] tensor's)
 * not.
 *
 * The fp32 RMSNorm (WL_NORM_FP32_RMS), as Hugging Face's LlamaRMSNorm and
 * FMS's LayerNormParameterized(use_high_precision_pow=True) write it: x.to(
 * float32), pow(2), mean(-1), + eps, rsqrt, x * r, .to(input dtype), weight *
 * y. Forward per element of [Tn, h]: cast e + 4, pow 8, mean 4, mul 8, cast
 * 4 + e, weight mul 2e = 28 + 4e (36 B), 8 launches (+ eps and rsqrt on the
 * per-token tensor). Backward, in reverse:
 *   weight * y    grad * weight 2e, grad * y 3e and its sum over tokens e
 *                 (the weight's gradient): 6e, 3 launches
 *   .to(e)        the gradient cast to fp32: e + 4, 1
 *   x * r         grad * r 8; grad * x 12 summed over h to r's shape 4: 24, 3
 *   rsqrt, + eps  -0.5 * grad * r^3 on [Tn, 1]: 3 launches
 *   mean          grad expanded / h, written at [Tn, h]: 4, 1
 *   pow(2)        grad * (2 * x.pow(1)): the copy pow(1) makes 8, the scalar
 *                 product 8, the product 12: 28, 3
 *   (fork)        the two gradients of the fp32 x added: 12, 1
 *   .to(float32)  the gradient cast back: 4 + e, 1
 * = 76 + 8e (92 B) over 16 launches, against the fused kernel's 2e and 4e.
 *
 * The layer-norm kernel (WL_NORM_KERNEL: torch.nn.functional.layer_norm on
 * 16-bit input, llm-foundry's LPLayerNorm): forward read x, write y, 2e (the
 * per-token mean and rstd aside), 1 launch; backward the input gradient
 * kernel (reads dy and x, writes dx: 3e) and the gamma/beta reduction (reads
 * dy and x: 2e): 5e over 2 launches (LayerNormBackwardKernelImplInternal in
 * aten/src/ATen/native/cuda/layer_norm_kernel.cu).
 *
 * Linear layers: F.linear on a 3-D input is one GEMM (addmm; a bias rides
 * in cuBLASLt's epilogue); backward the dgrad and wgrad GEMMs, plus with a
 * bias its gradient grad.sum(0): e T n read, 1 launch. Codes that keep q, k,
 * v (or gate and up) as separate nn.Linear run them as GEMMs of the same
 * total FLOPs as the fused QKV (fc1), and autograd adds their input
 * gradients: one add of 3e T h per extra linear.
 *
 * Residual add x + y: 3e Tn h, 1 launch; its backward is the identity, and
 * at the fork where x also feeds the next norm autograd adds the two
 * gradients: 3e Tn h, 1 launch. */
#include "layer_int.h"

#include <stdio.h>

void wl_kern(prog *p, const char *name, double bytes, int launches)
{
	wl_mem(p, name, bytes);
	p->v[p->n - 1].launches = launches;
}

void wl_lin_fwd(prog *p, const dims *d, const char *name, double n, double k)
{
	wl_gemm_b(p, d, name, d->T, n, k, 1.0);
}

void wl_lin_bwd(prog *p, const work_model *m, const dims *d, const char *name, double n, double k)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%s_dgrad", name);
	wl_gemm_b(p, d, buf, d->T, k, n, 1.0);
	snprintf(buf, sizeof buf, "%s_wgrad", name);
	wl_gemm_b(p, d, buf, k, n, d->T, 1.0);
	if (m->bias) {
		snprintf(buf, sizeof buf, "%s_bgrad", name);
		wl_kern(p, buf, d->e * d->T * n, 1);
	}
}

void wl_eager_norm(prog *p, const dims *d, const char *name, wl_norm_code c, bool backward)
{
	double x = d->Tn * d->h, e = d->e;
	if (c == WL_NORM_FP32_RMS)
		wl_kern(p, name, (backward ? 76.0 + 8.0 * e : 28.0 + 4.0 * e) * x,
		        backward ? 16 : 8);
	else
		wl_kern(p, name, (backward ? 5.0 : 2.0) * e * x, backward ? 2 : 1);
}

void wl_eager_add(prog *p, const dims *d, const char *name)
{
	wl_kern(p, name, 3.0 * d->e * d->Tn * d->h, 1);
}

/* K and V at the query width: repeat_kv's expand + reshape (HF), FMS's
 * expand + flatten, llm-foundry's repeat_kv_for_gqa: a copy each, reading kv
 * and writing qd columns (2 launches); backward the expand's gradient summed
 * back, reading qd and writing kv (2 launches). */
void wl_eager_expand_kv(prog *p, const dims *d, bool backward)
{
	if (d->gqa)
		wl_kern(p, "expand_kv", 2.0 * d->e * d->T * (d->kv + d->qd), 2);
	(void)backward; /* the same bytes and launches either way */
}

/* SwiGLU as act(gate(x)) * up(x): the gate GEMM, SiLU (read f, write f),
 * the up GEMM, the product (read 2f, write f): 5e T f over 2 launches
 * between the GEMMs (Python evaluates the left operand first). Otherwise
 * the single fc1 GEMM and the activation (read f, write f). */
void wl_eager_mlp_fwd(prog *p, const work_model *m, const dims *d)
{
	double ef = d->e * d->T * d->f;
	if (m->act == WORK_ACT_SWIGLU) {
		wl_lin_fwd(p, d, "gate", d->f, d->h);
		wl_kern(p, "silu", 2.0 * ef, 1);
		wl_lin_fwd(p, d, "up", d->f, d->h);
		wl_kern(p, "glu_mul", 3.0 * ef, 1);
	} else {
		wl_lin_fwd(p, d, "fc1", d->f, d->h);
		wl_kern(p, "act", 2.0 * ef, 1);
	}
}

/* Backward, after the down projection's: the product's two gradients (grad *
 * up, grad * silu: 3e T f each, 2 launches), up's GEMMs, SiLU's backward
 * (reads grad and input, writes: 3e T f), gate's GEMMs, the two input
 * gradients added (3e T h). Otherwise the activation's backward (3e T f)
 * and fc1's GEMMs. */
void wl_eager_mlp_bwd(prog *p, const work_model *m, const dims *d)
{
	double ef = d->e * d->T * d->f;
	if (m->act == WORK_ACT_SWIGLU) {
		wl_kern(p, "glu_mul", 6.0 * ef, 2);
		wl_lin_bwd(p, m, d, "up", d->f, d->h);
		wl_kern(p, "silu", 3.0 * ef, 1);
		wl_lin_bwd(p, m, d, "gate", d->f, d->h);
		wl_kern(p, "mlp_in_add", 3.0 * d->e * d->T * d->h, 1);
	} else {
		wl_kern(p, "act", 3.0 * ef, 1);
		wl_lin_bwd(p, m, d, "fc1", d->f, d->h);
	}
}

wl_norm_code wl_llama_norm(const work_model *m)
{
	return m->norm == WORK_NORM_RMSNORM ? WL_NORM_FP32_RMS : WL_NORM_KERNEL;
}

static void rope(prog *p, const dims *d, const wl_rope *r, bool backward)
{
	double qk = d->T * (d->qd + d->kv);
	if (backward)
		wl_kern(p, "rope", r->bwd * qk, r->bwd_n);
	else
		wl_kern(p, "rope", r->fwd * qk + r->table * d->T * d->dh, r->fwd_n + r->table_n);
}

/* The Llama-structured layer forward (fms.c, hf_llama.c cite each step):
 * TP collectives where the fused program has them. */
int wl_llama_forward(const work_model *m, const dims *d, const wl_rope *r, bool out_copy,
                     const wl_llama_extra *x, work_item *out)
{
	prog p = {out, 0};
	wl_norm_code nc = wl_llama_norm(m);
	wl_eager_norm(&p, d, "ln1", nc, false);
	wl_comm_gather(&p, d, "tp_ag1");
	wl_lin_fwd(&p, d, "q", d->qd, d->h);
	wl_lin_fwd(&p, d, "k", d->kv, d->h);
	wl_lin_fwd(&p, d, "v", d->kv, d->h);
	rope(&p, d, r, false);
	if (!x || !x->no_expand_kv)
		wl_eager_expand_kv(&p, d, false);
	wl_attn_core(&p, d, false);
	if (x && x->attn_fwd_n > 0)
		wl_kern(&p, "attn_aux", x->attn_fwd, x->attn_fwd_n);
	if (out_copy && !d->flash)
		wl_kern(&p, "attn_out_copy", 2.0 * d->e * d->T * d->qd, 1);
	wl_lin_fwd(&p, d, "o", d->h, d->qd);
	wl_comm_reduce(&p, d, "tp_ar1", "tp_rs1");
	wl_eager_add(&p, d, "resid1");
	if (!m->parallel_residual) /* a parallel block normalises once */
		wl_eager_norm(&p, d, "ln2", nc, false);
	wl_comm_gather(&p, d, "tp_ag2");
	wl_eager_mlp_fwd(&p, m, d);
	wl_lin_fwd(&p, d, "down", d->h, d->f);
	wl_comm_reduce(&p, d, "tp_ar2", "tp_rs2");
	wl_eager_add(&p, d, "resid2");
	return p.n;
}

/* Backward in autograd's order (the latest operation first): the MLP branch,
 * ln2 and the fork's add, o, the attention core, the expand's sums, RoPE,
 * v, k and q (created last to first) and their three input gradients added
 * (two adds), ln1 and the fork's add. The input gradients' collective
 * follows their adds. */
int wl_llama_backward(const work_model *m, const dims *d, const wl_rope *r,
                      const wl_llama_extra *x, work_item *out)
{
	prog p = {out, 0};
	wl_norm_code nc = wl_llama_norm(m);
	wl_comm_gather(&p, d, "tp_ag2");
	wl_lin_bwd(&p, m, d, "down", d->h, d->f);
	wl_eager_mlp_bwd(&p, m, d);
	wl_comm_reduce(&p, d, "tp_ar2", "tp_rs2");
	if (!m->parallel_residual)
		wl_eager_norm(&p, d, "ln2", nc, true);
	wl_eager_add(&p, d, "fork2");
	wl_comm_gather(&p, d, "tp_ag1");
	wl_lin_bwd(&p, m, d, "o", d->h, d->qd);
	wl_attn_core(&p, d, true);
	if (x && x->attn_bwd_n > 0)
		wl_kern(&p, "attn_aux", x->attn_bwd, x->attn_bwd_n);
	if (!x || !x->no_expand_kv)
		wl_eager_expand_kv(&p, d, true);
	rope(&p, d, r, true);
	wl_lin_bwd(&p, m, d, "v", d->kv, d->h);
	wl_lin_bwd(&p, m, d, "k", d->kv, d->h);
	wl_lin_bwd(&p, m, d, "q", d->qd, d->h);
	wl_kern(&p, "qkv_in_add", 2.0 * 3.0 * d->e * d->T * d->h, 2);
	wl_comm_reduce(&p, d, "tp_ar1", "tp_rs1");
	wl_eager_norm(&p, d, "ln1", nc, true);
	wl_eager_add(&p, d, "fork1");
	if (x && x->grads > 0)
		wl_kern(&p, "accum_grad", 3.0 * d->e * x->grad_params, x->grads);
	return p.n;
}
