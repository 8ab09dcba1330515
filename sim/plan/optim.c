/* optim.c - the optimizer step on the GPU, as the framework runs it.
 *
 * Adam's step is memory-bound: each pass over the parameters reads and writes
 * whole tensors at HBM bandwidth (hw_mem_time), so its time is the bytes its
 * kernels move per trained parameter times the rank's trained parameters
 * (after ZeRO's sharding), plus the host's launches where the framework
 * steps one tensor at a time. Per parameter, with p the bytes of the
 * parameter the optimizer updates (the fp32 master under the mixed policy,
 * the parameter itself under amp or pure), s the bytes of one Adam state
 * (4 fp32, 2 pure 16-bit, ~1 for 8-bit states with their absmax) and g the
 * bytes of the gradient it reads (fp32 main gradients under mixed and amp,
 * 16-bit under pure):
 *
 *   fused   one kernel per chunk of tensors (apex/Transformer Engine
 *           FusedAdam as Megatron-Core runs it, DeepSpeed's FusedAdam; and
 *           torch.optim.AdamW(fused=True), torch-fused): read p, g, m, v,
 *           write p, m, v: 2p + g + 4s (28 B for fp32 master and states).
 *   foreach torch.optim's default on CUDA (_multi_tensor_adam,
 *           torch/optim/adam.py): one _foreach_ kernel per pass, each reading
 *           its inputs and writing its output: decoupled weight decay
 *           p *= 1 - lr wd (2p), m.lerp_(g) (2s + g), v *= beta2 (2s),
 *           v.addcmul_(g, g) (2s + 2g), d = sqrt(v) (2s), d /= bc2 (2s),
 *           d += eps (2s), p.addcdiv_(m, d) (2p + 2s):
 *           4p + 14s + 3g (84 B for fp32; torch 2.6.0
 *           torch/optim/adamw.py:609-675, the passes of _multi_tensor_adamw).
 *   single  the same passes parameter by parameter (_single_tensor_adam,
 *           foreach=False): the bytes of foreach, but 8 kernel launches per
 *           parameter tensor, each costing the host its launch and
 *           optimizer_op_overhead (below); the step takes the longer of the
 *           GPU's bytes and the host's launches (as a run of kernels in
 *           plan_build), host-bound for many small tensors. Composer's
 *           DecoupledAdamW (llm-foundry's optimizer) is such a loop, its
 *           passes p *= 1 - wd (skipped at weight_decay 0, as the MPT
 *           pretraining yamls set), m *= beta1, m += (1 - beta1) g, v *=
 *           beta2, v += g g, sqrt, divide, add eps, p.addcdiv_: 2p + 16s +
 *           3g = 84 B for fp32, the same bytes (composer/optim/
 *           decoupled_weight_decay.py:237-264 at v0.16.4). Its tensors are
 *           the optimizer's parameters: with flat_params (FSDP1's
 *           FlatParameters) one per wrapped unit, a layer, not the layer's
 *           weights. Its step count lives on the GPU (state['step'] =
 *           torch.zeros((), device=p.device), :306-307; += 1 per tensor,
 *           :322) and the loop reads it back per tensor (step =
 *           state_steps[i].item(), :241): a device-to-host copy that waits
 *           for every kernel queued before it ([framework]
 *           optimizer_item_sync). torch's own single-tensor Adam keeps the
 *           count on the CPU (torch.tensor(0.) unless capturable or fused,
 *           torch/optim/adam.py:212-216, Debian python3-torch 1.13.1+dfsg-4):
 *           no wait there (lightning-ddp.ini). With the wait, host and GPU
 *           take turns: a tensor's n = 8 passes, each costing the host h =
 *           launch + optimizer_op_overhead and the GPU g (the tensor's update bytes at
 *           the copy rate over n, the passes taken as equal), issued at h,
 *           2h, ... nh, run first-in first-out, the last ending at
 *             h + g + (n - 1) max(h, g)
 *           (the GPU busy from h on when g >= h, else each kernel done
 *           before the next is issued); then the next tensor's .item() costs
 *           the host one more operation h and returns when the queue is
 *           empty, so a tensor takes
 *             T = max((n + 1) h, h + g + (n - 1) max(h, g)),
 *           the step N T for its N tensors, after the N increments (N h on
 *           the host) and the norm's and casts' kernels. Against the
 *           overlapped max(N n h, N n g) this is about 2 N h more: for a
 *           flat-parameter step (N a stage's layers) a few milliseconds.
 *   8-bit Adam (bitsandbytes) is one fused kernel whatever the impl:
 *   2p + g + 4s with s = 1 + 4/256; SGD without momentum reads p and g and
 *   writes p: 2p + g; with momentum it also reads and writes the buffer
 *   (buf = mu buf + g, p -= lr buf, fused): 2p + g + 2s; Adafactor reads
 *   g twice (the row and column means of g^2, then the update; its factors
 *   are negligible) and reads and writes p: 2p + 2g.
 *
 * Around the step, under the mixed policy: 16-bit gradients are cast to the
 * fp32 main gradients first (read 2, write 4: Megatron's
 * _copy_model_grads_to_main_grads, distrib_optimizer.py, Megatron-LM
 * d98e8a64; FSDP's cast of the reduced shard to the parameter dtype;
 * DeepSpeed's fp32 gradient partition, the step_fp32_grads memory term), and
 * the updated master is cast back to the 16-bit weights (read 4, write 2:
 * _copy_main_params_to_model_params; FSDP casts the fp32 shard before the
 * next all-gather). Under the framework's param_master (FSDP's MixedPrecision,
 * memory.c) neither is part of the step: the reduced shard is cast in the
 * backward's post-backward hook, and the 16-bit copy of each unit's shard
 * is made for each all-gather (flat_param.py:637-654, torch 1.13.1; not
 * modelled), so the step charges no casts. Every framework's default recipe clips the gradient norm
 * (Megatron --clip-grad 1.0, HF Trainer max_grad_norm 1.0, DeepSpeed and
 * FSDP configs of the cases): the norm reads each gradient once (g). The
 * rescale when the norm exceeds the threshold is not charged (assumed
 * rare once training settles).
 *
 * The gradient norm (below) is charged only with `[train] clip_grad` (the
 * default: every framework's recipe clips; the measured steps of
 * tools/measured/h200-training/steps.csv did not).
 *
 * [framework] clip_scope = replica: nanotron's clip_grad_norm (src/nanotron/
 * optim/clip_grads.py:46-94 at 0e0a27ea) takes the norm of every fp32
 * gradient buffer of the gradient accumulator, one vector_norm per tensor,
 * over the rank's whole gradient (ZeRO-1 keeps the buffers of every
 * parameter and all-reduces the whole buffer, trainer.py:510-519,
 * gradient_accumulator.py:128-155), and then multiplies every buffer by the
 * clamped coefficient with mul_, whatever the norm (no host branch,
 * clip_grads.py:76-94): read g, then read and write g, per parameter the
 * rank holds before sharding, 3 g at the copy rate (per-tensor kernels, a
 * full grid each). The per-tensor host loops: plan_step_loops (grads.c).
 *
 * Achieved bandwidth. The bytes above move at a fraction `stream` of the
 * GPU's copy rate (hbm_bw x hbm_efficiency, which reproduces a plain copy:
 * 4.23 TB/s measured on the H200, membw.csv, against 4800 x 0.88 = 4224 GB/s),
 * because the update kernels are not copies:
 *
 *   multi_tensor_apply. torch's _foreach_ kernels, its fused Adam(W), and
 *   apex's, Transformer Engine's and DeepSpeed's FusedAdam all launch the same
 *   way: one thread block of 512 threads per chunk of 65536 elements of one
 *   tensor, at most 320 blocks (and 30-110 tensors) per launch, a new launch
 *   for the next 320 chunks, each thread handling ILP = 4 elements of every
 *   list per iteration. Sources: torch 2.6.0 (the Debian source package
 *   pytorch_2.6.0+dfsg; the measured torch 2.11 is not at hand)
 *   aten/src/ATen/native/cuda/MultiTensorApply.cuh:13-20 (kILP 4, kChunkSize
 *   65536, kBlockSize 512, depth_to_max_blocks 320), :217-298 (the launch
 *   loop), :31-39 (4-element vector loads); Transformer Engine d0067d0d
 *   transformer_engine/common/multi_tensor/multi_tensor_apply.cuh:18-19, 67-116
 *   and multi_tensor/adam.cu:18-19 (BLOCK_SIZE 512, ILP 4), with chunk 2048 x
 *   32 from pytorch/optimizers/multi_tensor_apply.py:34; apex 6424da3b
 *   csrc/multi_tensor_apply.cuh:13-14, csrc/multi_tensor_adam.cu:13-14,
 *   apex/multi_tensor_apply/__init__.py:3; DeepSpeed edaa7221
 *   csrc/adam/multi_tensor_apply.cuh:25-26, csrc/adam/multi_tensor_adam.cu:
 *   23-24, deepspeed/ops/adam/fused_adam.py:13. A launch therefore holds at
 *   most 320 x 512 = 163,840 threads, 61 % of an H100/H200's 132 x 2048
 *   resident threads, and ends before the next one starts: fewer loads in
 *   flight than a copy kernel's full grid, and a drain per launch (1.5 G
 *   parameters take at least 72 launches). These kernels stream at
 *       OPTIM_STREAM_MTA = 0.741 of the copy rate,
 *   measured on torch.optim.AdamW(foreach=True), pure bf16, one H200 (torch
 *   2.11; tools/measured/h200-training/steps.csv): the Llama 3.2 1B shape's
 *   1,498,482,688 parameters x 42 B in 19.936 and 20.264 ms (two rows, mean
 *   20.100 ms): 3.131 TB/s = 0.741 x 4224 GB/s. Left out, the Llama 3 8B
 *   shape (8,030,261,248 x 42 B): predicted 107.8 ms, measured 105.491
 *   (+2.1 %, 0.757 of the copy rate).
 *
 *   torch's own fused kernel (AdamW(fused=True), PLAN_OPTIM_TORCH_FUSED) is a
 *   multi_tensor_apply kernel over 4 lists whose scalars are doubles: lr,
 *   betas, weight decay and eps are `const double&` (fused_adam_utils.cuh:
 *   26-37, 110-121), so the weight decay, both moment updates and the eps
 *   add run in fp64 with a float<->double conversion of each operand
 *   (:58-76; the bias corrections per block, :129-137). fp64 arithmetic and
 *   conversions to and from 64-bit types issue at a fraction of the fp32
 *   rate, on the SMs whose threads hold the loads; the measured kernel
 *   streams at
 *       OPTIM_STREAM_TORCH_FUSED = 0.577 of the copy rate:
 *   the 1B shape x 14 B in 8.490 and 8.734 ms (mean 8.612): 2.436 TB/s.
 *   Left out, the 8B shape: predicted 46.2 ms, measured 43.991 (+4.9 %,
 *   0.605). How much of that gap is the fp64 work and how much the grid is
 *   not measured apart (no fp32 or other-GPU row), so the fraction is taken
 *   whole, for the bytes, on every GPU.
 *
 *   apex's, Transformer Engine's and DeepSpeed's FusedAdam (PLAN_OPTIM_FUSED:
 *   Megatron-Core's, DeepSpeed's) compute in float: MATH_T = float and float
 *   scalars (TE adam.cu:27, 294-301; apex multi_tensor_adam.cu:21; DeepSpeed
 *   multi_tensor_adam.cu:31), element-wise loads 4 per thread and list (TE
 *   adam.cu:329-348): the foreach kernels' launch structure and arithmetic
 *   class, not torch-fused's, so they take OPTIM_STREAM_MTA (not measured on
 *   these kernels themselves).
 *
 *   Why a launch falls short, and so where the fractions hold: a kernel
 *   keeps about (threads) x (lists read) x ILP x (element bytes) in flight
 *   to HBM, and HBM delivers its rate only with enough bytes in flight
 *   (Little's law: rate x latency). A full-grid copy has every thread of
 *   every SM loading; a multi_tensor_apply launch at most 61 % of them, and
 *   a foreach pass reads only 1-3 lists. Hence:
 *
 *   fp32 data (the mixed policy's master weights, states and main
 *   gradients; amp): not measured, and a 4-byte element puts twice the
 *   bytes of a 16-bit one in flight with the same launch, so the 16-bit
 *   fractions do not carry over: fp32 steps stay at the copy rate (as
 *   before these measurements). Checked against the measured steps whose
 *   optimizer is the largest share, vTrain's single-node rows
 *   (Megatron-DeepSpeed's apex FusedAdam over fp32 master and states; their
 *   op_overhead is fitted on them): charging fp32 steps OPTIM_STREAM_MTA
 *   moves that source's mean signed error from +2.5 to +3.2 % (MAPE 7.9 to
 *   8.1 %), away from the measurements; the other sources by 0.3 points or
 *   less. The fractions apply to 16-bit steps (the
 *   pure policy: parameters, gradients and states in bf16 or fp16), where
 *   they were measured.
 *
 *   The gradient norm (torch's clip_grad_norm_ through _foreach_norm;
 *   Megatron's multi_tensor_l2norm, TE multi_tensor/l2norm.cu) is a
 *   multi_tensor_apply kernel too: OPTIM_STREAM_MTA over 16-bit gradients
 *   wherever the step is multi-tensor. The per-tensor loop (single: torch
 *   1.x's ordinary elementwise kernels, a full grid each), 8-bit Adam
 *   (bitsandbytes' own kernel), Adafactor (per-tensor ops) and the mixed
 *   policy's casts (per-tensor copies) are not multi_tensor_apply kernels:
 *   the copy rate (not measured).
 *
 * fp8 training (Transformer Engine) quantizes each weight once per step, at
 * the first micro-batch, row-wise and column-wise, and reuses the cast over
 * the step's other micro-batches (TE d0067d0d, pytorch/module/linear.py:
 * 476-484, update_workspace only when is_first_microbatch): read 2, write
 * 1 + 1 per parameter the rank holds (its TP shard, before ZeRO's
 * sharding), charged here with the step.
 */
#include "plan.h"

#include <math.h>

/* Fractions of the copy rate (derived in the header comment). */
#define OPTIM_STREAM_MTA         0.741 /* multi_tensor_apply, float math */
#define OPTIM_STREAM_TORCH_FUSED 0.577 /* torch's fused Adam(W), fp64 scalars */

/* Kernel passes per parameter tensor in _single_tensor_adam's loop (the
 * passes listed above). Each costs the host launch_overhead +
 * [framework] optimizer_op_overhead, not the model code's op_overhead: the
 * loop's operations are bare in-place and elementwise tensor calls under
 * torch.no_grad, no module, hook or autograd recording around them. On the
 * H200 host that gave op_overhead (run 1 of tools/measured/h200-training,
 * 39.3 us per kernel of the model's forward and backward, 34.6 pooled with
 * run 2), ops.csv times such calls on CUDA tensors, the launch included:
 * add_ 12.94 us, add and mul 16.91 and 17.30 (out of place). A
 * DecoupledAdamW tensor issues 10 host operations: 7 in place (the count's
 * increment, mul_, add_, mul_, addcmul_, add_, addcdiv_) at add_'s, 2 out of
 * place (sqrt, the division) at their mean, and the .item() taken as an
 * in-place call: (8 x 12.94 + 2 x 17.1) / 10 = 13.77 us, 0.350 of the same
 * run's 39.3; scaled to the pooled 34.6, 12.1 us, less the 4 us launch: 8.1
 * us (the key's default). The same loop on tiny CPU tensors on this
 * project's VM (tools/measured/composer-adamw-host) takes 27-67 us per
 * tensor over five runs: 3-7 us an operation before CUDA's dispatch and
 * launch. */
#define SINGLE_TENSOR_PASSES 8.0

/* The layer's parameter tensors on one rank, in the order a pre-norm block
 * registers them (MPT's blocks.py: norm_1, attention, norm_2, FFN): the
 * first norm, q, k, v and the output projection (separate modules in eager
 * model code), the second norm, the gate (SwiGLU), the up and the down
 * projection, each linear followed by its bias where the model has them;
 * elements per tensor into `sz` (at least 16 entries), the count returned. */
static int layer_tensor_sizes(const work_model *m, double *sz)
{
	double h = m->hidden, d = m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
	double q = m->heads * d, kv = (m->kv_heads > 0 ? m->kv_heads : m->heads) * d, f = m->ffn;
	bool glu = m->act == WORK_ACT_SWIGLU;
	/* elements of each weight and its bias, with the norms as weights
	 * without one: norm 1, q, k, v, o, norm 2, [gate,] up, down */
	const double w[9][2] = {{h, 0},     {h * q, q}, {h * kv, kv}, {h * kv, kv}, {q * h, h},
				{h, 0},     {h * f, f}, {h * f, f},   {f * h, h}};
	int n = 0;
	for (int i = 0; i < 9; i++) {
		if (i == 6 && !glu)
			continue; /* the gate: SwiGLU's alone */
		sz[n++] = w[i][0];
		if (m->bias && w[i][1] > 0)
			sz[n++] = w[i][1];
	}
	return n;
}

static double tensors_per_layer(const work_model *m)
{
	double sz[16];
	return layer_tensor_sizes(m, sz);
}

/* FSDP1 with use_orig_params = True flattens a unit's tensors end to end
 * into one FlatParameter and gives each of its w ranks an equal slice,
 * ceil(N / w) elements of the N (the last padded); after the backward a
 * parameter outside a rank's slice gets grad = None (torch 2.6.0
 * distributed/fsdp/_flat_param.py:2184-2185, _use_sharded_grad_views;
 * Debian python3-torch 2.6.0+dfsg-7), so an optimizer that skips None
 * gradients (Composer's DecoupledAdamW, decoupled_weight_decay.py:295-296
 * at v0.16.4) steps on each rank only the tensors its slice meets: every
 * tensor once, plus once more for each slice boundary falling inside it.
 * The step ends with the busiest rank's, so this is the most tensors any
 * of the w slices meets, counted exactly over the layer's layout
 * (layer_tensor_sizes). O01's MPT-1b layer (h 2048, GELU, biases: 14
 * tensors, 50.3 M elements) on 8 ranks: 6.29 M per slice; slice 2 holds
 * the end of v, its bias, the output projection and its bias, the second
 * norm and the start of the up projection: 6 of the 14. */
static double busiest_slice_tensors(const work_model *m, int w)
{
	double sz[16], total = 0;
	int n = layer_tensor_sizes(m, sz);
	for (int i = 0; i < n; i++)
		total += sz[i];
	if (w <= 1 || total <= 0)
		return n;
	/* A slice meets 1 + the tensor boundaries strictly inside it (one on
	 * its first element starts it and adds nothing); the boundaries rise,
	 * so each slice's are a run: O(tensors) whatever the ranks. */
	double len = ceil(total / w), at = 0, slice = -1;
	int most = 1, run = 0;
	for (int i = 0; i + 1 < n; i++) {
		at += sz[i];
		double q = at / len, r = floor(q);
		if (q == r)
			continue;
		run = r == slice ? run + 1 : 1;
		slice = r;
		most = 1 + run > most ? 1 + run : most;
	}
	return most;
}

/* What runs the update, its stream fraction and where that comes from;
 * `narrow`: the step's data are 16-bit (the pure policy). */
static void step_kernels(const plan_scenario *s, bool narrow, plan_optim_cost *c)
{
	int impl = s->fw.optimizer_impl;
	bool multi = impl != PLAN_OPTIM_SINGLE;
	c->stream = 1.0;
	c->norm_stream = multi && narrow ? OPTIM_STREAM_MTA : 1.0;
	switch (s->train.optimizer) {
	case PLAN_ADAM_8BIT:
	case PLAN_ADAM_PAGED_8BIT:
		c->impl = "bitsandbytes' 8-bit Adam kernel";
		c->why = "its own elementwise kernel over the whole grid: the copy rate (not measured)";
		return;
	case PLAN_ADAFACTOR:
		c->impl = "Adafactor's per-tensor operations";
		c->why = "ordinary elementwise kernels: the copy rate (not measured)";
		return;
	default:
		break;
	}
	if (!narrow && multi) {
		c->impl = impl == PLAN_OPTIM_TORCH_FUSED ? "torch.optim's fused kernel over fp32 data"
			  : impl == PLAN_OPTIM_FOREACH   ? "torch's _foreach_ kernels over fp32 data"
							 : "a fused Adam kernel over fp32 data";
		c->why = "the 16-bit steps' measured fractions do not carry over (twice the bytes "
			 "in flight per load): the copy rate, not measured";
		return;
	}
	switch (impl) {
	case PLAN_OPTIM_TORCH_FUSED:
		c->stream = OPTIM_STREAM_TORCH_FUSED;
		c->impl = "torch.optim's fused kernel (multi_tensor_apply, fp64 scalars)";
		c->why = "measured: AdamW(fused=True), pure bf16, Llama 3.2 1B shape on an H200 "
			 "(tools/measured/h200-training/steps.csv; 8B shape left out: +4.9 %)";
		break;
	case PLAN_OPTIM_FOREACH:
		c->stream = OPTIM_STREAM_MTA;
		c->impl = "torch's _foreach_ kernels, 8 passes (multi_tensor_apply)";
		c->why = "measured: AdamW(foreach=True), pure bf16, Llama 3.2 1B shape on an H200 "
			 "(tools/measured/h200-training/steps.csv; 8B shape left out: +2.1 %)";
		break;
	case PLAN_OPTIM_SINGLE:
		c->impl = "one tensor at a time, ordinary elementwise kernels";
		c->why = "full grids: the copy rate";
		break;
	default:
		c->stream = OPTIM_STREAM_MTA;
		c->impl = "FusedAdam of apex, Transformer Engine or DeepSpeed (multi_tensor_apply, "
			  "float math)";
		c->why = "the launch structure and arithmetic of torch's foreach kernels: their "
			 "measured rate (these kernels not measured)";
		break;
	}
}

void plan_optimizer_cost(const plan_scenario *s, plan_optim_cost *c)
{
	bool fp32 = s->dtype == HW_FP32 || s->dtype == HW_TF32;
	int pol = fp32 ? PLAN_POLICY_AMP : s->train.policy;
	double p = pol == PLAN_POLICY_PURE ? 2.0 : 4.0;
	double g = pol == PLAN_POLICY_PURE ? 2.0 : 4.0;
	double st = pol == PLAN_POLICY_PURE ? 2.0 : 4.0;
	double step;
	switch (s->train.optimizer) {
	case PLAN_ADAM_8BIT:
	case PLAN_ADAM_PAGED_8BIT:
		step = 2.0 * p + g + 4.0 * (1.0 + 4.0 / 256.0);
		break;
	case PLAN_SGD:
		step = 2.0 * p + g;
		break;
	case PLAN_SGD_MOMENTUM:
		step = 2.0 * p + g + 2.0 * st;
		break;
	case PLAN_ADAFACTOR:
		step = 2.0 * p + 2.0 * g;
		break;
	default:
		step = s->fw.optimizer_impl == PLAN_OPTIM_FUSED ||
				       s->fw.optimizer_impl == PLAN_OPTIM_TORCH_FUSED
			       ? 2.0 * p + g + 4.0 * st
			       : 4.0 * p + 14.0 * st + 3.0 * g;
		break;
	}
	double casts = 0;
	if (pol == PLAN_POLICY_MIXED && !s->fw.param_master) {
		double w, gr, o, paged;
		plan_param_bytes(s, &w, &gr, &o, &paged);
		casts = (gr < 4.0 ? gr + 4.0 : 0.0) + 4.0 + w;
	}
	c->step_bytes = step;
	bool replica = s->fw.clip_scope == PLAN_CLIP_REPLICA;
	c->norm_bytes = s->train.clip_grad && !replica ? g : 0.0;
	/* the fp32 gradients whole: read for the norm, read and written by the
	 * rescale (header) */
	c->clip_bytes = s->train.clip_grad && replica ? 3.0 * plan_grad_bytes(s) : 0.0;
	c->cast_bytes = casts;
	step_kernels(s, pol == PLAN_POLICY_PURE, c);
}

double plan_optimizer_bytes(const plan_scenario *s)
{
	plan_optim_cost c;
	plan_optimizer_cost(s, &c);
	return c.step_bytes + c.norm_bytes + c.cast_bytes + c.clip_bytes;
}

/* The ranks a unit's flat parameter is sliced over where the optimizer
 * steps only the tensors a rank's slice meets (plan_optimizer_in_shard),
 * else 0. */
static int in_shard_ranks(const plan_scenario *s)
{
	int dpg, shard, edp;
	plan_group_sizes(&s->plan, &dpg, &shard, &edp);
	bool on = s->fw.params_in_shard && !s->fw.flat_params && s->train.lora_rank <= 0 &&
		  s->plan.zero >= 2 && shard > 1;
	return on ? shard : 0;
}

bool plan_optimizer_in_shard(const plan_scenario *s)
{
	return in_shard_ranks(s) > 0;
}

double plan_optimizer_host_time(const plan_scenario *s, int stage, double *tensors)
{
	*tensors = 0;
	bool per_tensor = s->fw.optimizer_impl == PLAN_OPTIM_SINGLE &&
			  (s->train.optimizer == PLAN_ADAM || s->train.optimizer == PLAN_ADAM_PAGED);
	if (!per_tensor)
		return 0;
	/* LoRA: an A and a B matrix per adapted module; one flat parameter per
	 * layer (FSDP unit) with flat_params */
	int shard = in_shard_ranks(s);
	*tensors = s->fw.flat_params          ? 1.0
		   : s->train.lora_rank > 0 ? 2.0 * __builtin_popcount(s->train.lora_mask)
		   : shard > 0              ? busiest_slice_tensors(&s->model, shard)
					    : tensors_per_layer(&s->model);
	return plan_stage_layers(s, stage) * *tensors * SINGLE_TENSOR_PASSES *
	       (s->gpu.launch_s + s->fw.optimizer_op_overhead_s);
}

/* Of local parameters, the share b's stage trains. */
static double trained_share(const plan_budget *b, double local)
{
	double all = b->dense + b->experts;
	return all > 0 ? local * b->train / all : local;
}

double plan_optimizer_trained(const plan_scenario *s, int stage, double local)
{
	plan_budget b;
	plan_stage_budget(s, stage, &b);
	return trained_share(&b, local);
}

double plan_optimizer_time(const plan_scenario *s, int stage, double local)
{
	plan_budget b;
	plan_stage_budget(s, stage, &b);
	double all = b.dense + b.experts;
	double trained = trained_share(&b, local);
	plan_optim_cost c;
	plan_optimizer_cost(s, &c);
	/* bytes at the copy rate that take the kernels' time */
	double eff = c.step_bytes / c.stream + c.norm_bytes / c.norm_stream + c.cast_bytes;
	/* clip_scope = replica: over the rank's whole gradient, b.train before
	 * ZeRO's sharding */
	double t = hw_mem_time(&s->gpu, trained * eff + b.train * c.clip_bytes);
	if (s->dtype == HW_FP8)
		t += hw_mem_time(&s->gpu, 4.0 * all);
	double tensors, host = plan_optimizer_host_time(s, stage, &tensors);
	if (host > 0 && s->fw.optimizer_item_sync) {
		/* host and GPU take turns, tensor by tensor (header) */
		double n = plan_stage_layers(s, stage) * tensors, h = host / (n * SINGLE_TENSOR_PASSES);
		double upd = hw_mem_time(&s->gpu, trained * c.step_bytes / c.stream) -
		             hw_overhead(&s->gpu);
		double g = n > 0 ? upd / (n * SINGLE_TENSOR_PASSES) : 0;
		double chain = h + g + (SINGLE_TENSOR_PASSES - 1.0) * (h > g ? h : g);
		double per = (SINGLE_TENSOR_PASSES + 1.0) * h > chain ? (SINGLE_TENSOR_PASSES + 1.0) * h
		                                                       : chain;
		return n * h + n * per + (t - upd);
	}
	return host > t ? host : t;
}
