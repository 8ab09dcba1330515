/* mpt.c - the kernel programs of MosaicML llm-foundry's MPT model (work.h,
 * WORK_LAYER_MPT) as its benchmark table ran it.
 *
 * Source: mosaicml/llm-foundry at 5e85bd62 (2024-01-06, "new benchmarks",
 * the H100 tables' refresh; the A100 tables came from b2a43a14, 2023-10-19,
 * whose MPT block is the same sequence), file:line at 5e85bd62:
 * llmfoundry/models/layers/blocks.py (BL), attention.py (AT), ffn.py (FF),
 * norm.py (NO), llmfoundry/models/mpt/modeling_mpt.py (MM),
 * configuration_mpt.py (CF), scripts/train/benchmarking/submit_benchmarks.py
 * (SB). The benchmark sets attn_impl from --attn_impl, default triton
 * (SB:144, 305; sweep.sh passes none; the pretrain yamls say triton too),
 * norm_type low_precision_layernorm (SB:307), precision amp_bf16 with FSDP
 * mixed precision DEFAULT or PURE (bf16 parameters) and no torch.compile
 * (neither the yamls nor SB set compile_config); resid_pdrop and emb_pdrop
 * default to 0 (CF:50-51), so nn.Dropout(0) returns its input and launches
 * nothing; alibi and rope default off (blocks.py:30-32): learned positions.
 *
 * Forward layer (MPTBlock.forward, BL:116-155):
 *   ln1      LPLayerNorm (NO:21-53): under autocast x, weight and bias are
 *            cast to bf16 (already bf16: no kernel) and F.layer_norm runs in
 *            bf16 with autocast off: the layer-norm kernel, 2e Tn h, 1 launch
 *   qkv      Wqkv, one nn.Linear of the fused width (AT:559, 606): the fused
 *            QKV GEMM; split (AT:611-618) and the rearranges (AT:471-473)
 *            are views
 *   kv       GQA: repeat_kv_for_gqa (AT:71-85, 485-486): expand + reshape,
 *            a copy each (eager.c); the benchmark's MPT are MHA
 *   attn     triton_flash_attn_fn (AT:373-494) on the strided views, the
 *            fused core; its output's view (AT:492) copies nothing
 *   o        out_proj (AT:586, 693)
 *   resid1   x + resid_attn_dropout(b) (BL:141): the add, 3e Tn h
 *   ln2      as ln1 (BL:143-144)
 *   mlp      MPTMLP: down_proj(act(up_proj(x))) (FF:116-117), GELU exact
 *            (FF:23-26): up GEMM, GELU read f write f (2e T f, 1 launch),
 *            down GEMM; an MPTGLU model: eager.c's SwiGLU (FF:120)
 *   resid2   (BL:154)
 * Forward launches per layer (MHA, t = 1): 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 +
 * 1 + 1 = 10, four of them GEMMs: the fused program's count less its
 * norms' and residuals' fusions, whose bytes are the same or fewer (no
 * dropout mask).
 * Backward (autograd, latest first): down's dgrad, wgrad (+ bias gradients,
 * eager.c), GELU's backward 3e T f, up's GEMMs, ln2's two kernels 5e Tn h,
 * the fork's add 3e Tn h, out_proj's GEMMs, the core, split's backward: a
 * cat of dq, dk, dv into the fused gradient (read and write n columns: 2e
 * T n, 1 launch), Wqkv's GEMMs, ln1's two kernels, the fork's add: 17
 * launches (MHA, t = 1, no biases).
 *
 * The embedding (wte, wpe with learned positions: MM:519, 572) is the fused
 * lookup; the head is norm_f (MM:650, an LPLayerNorm), the logits GEMM
 * against the tied wte (MM:799) and the loss of [framework] loss. The
 * per-forward attention bias and its masked fill (MM:597-603, 403-420) and
 * the host synchronisation of attention_mask[:, 0].sum() (MM:491-492) are
 * not modelled. */
#include "layer_int.h"

static void mlp_fwd(prog *p, const work_model *m, const dims *d)
{
	if (m->act == WORK_ACT_SWIGLU) {
		wl_eager_mlp_fwd(p, m, d);
		return;
	}
	wl_lin_fwd(p, d, "up", d->f, d->h);
	wl_kern(p, "gelu", 2.0 * d->e * d->T * d->f, 1);
}

static void mlp_bwd(prog *p, const work_model *m, const dims *d)
{
	if (m->act == WORK_ACT_SWIGLU) {
		wl_eager_mlp_bwd(p, m, d);
		return;
	}
	wl_kern(p, "gelu", 3.0 * d->e * d->T * d->f, 1);
	wl_lin_bwd(p, m, d, "up", d->f, d->h);
}

int wl_mpt_forward(const work_model *m, const dims *d, work_item *out)
{
	prog p = {out, 0};
	wl_eager_norm(&p, d, "ln1", WL_NORM_KERNEL, false);
	wl_comm_gather(&p, d, "tp_ag1");
	wl_lin_fwd(&p, d, "qkv", d->qkv_n, d->h);
	wl_eager_expand_kv(&p, d, false);
	wl_attn_core(&p, d, false);
	wl_lin_fwd(&p, d, "o", d->h, d->qd);
	wl_comm_reduce(&p, d, "tp_ar1", "tp_rs1");
	wl_eager_add(&p, d, "resid1");
	wl_eager_norm(&p, d, "ln2", WL_NORM_KERNEL, false);
	wl_comm_gather(&p, d, "tp_ag2");
	mlp_fwd(&p, m, d);
	wl_lin_fwd(&p, d, "down", d->h, d->f);
	wl_comm_reduce(&p, d, "tp_ar2", "tp_rs2");
	wl_eager_add(&p, d, "resid2");
	return p.n;
}

int wl_mpt_backward(const work_model *m, const dims *d, work_item *out)
{
	prog p = {out, 0};
	wl_comm_gather(&p, d, "tp_ag2");
	wl_lin_bwd(&p, m, d, "down", d->h, d->f);
	mlp_bwd(&p, m, d);
	wl_comm_reduce(&p, d, "tp_ar2", "tp_rs2");
	wl_eager_norm(&p, d, "ln2", WL_NORM_KERNEL, true);
	wl_eager_add(&p, d, "fork2");
	wl_comm_gather(&p, d, "tp_ag1");
	wl_lin_bwd(&p, m, d, "o", d->h, d->qd);
	wl_attn_core(&p, d, true);
	wl_eager_expand_kv(&p, d, true);
	wl_kern(&p, "split", 2.0 * d->e * d->T * d->qkv_n, 1);
	wl_lin_bwd(&p, m, d, "qkv", d->qkv_n, d->h);
	wl_comm_reduce(&p, d, "tp_ar1", "tp_rs1");
	wl_eager_norm(&p, d, "ln1", WL_NORM_KERNEL, true);
	wl_eager_add(&p, d, "fork1");
	return p.n;
}
