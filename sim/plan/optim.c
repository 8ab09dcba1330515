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
 *           FusedAdam as Megatron-Core runs it, torch.optim.AdamW(fused=True),
 *           DeepSpeed's FusedAdam): read p, g, m, v, write p, m, v:
 *           2p + g + 4s (28 B for fp32 master and states).
 *   foreach torch.optim's default on CUDA (_multi_tensor_adam,
 *           torch/optim/adam.py): one _foreach_ kernel per pass, each reading
 *           its inputs and writing its output: decoupled weight decay
 *           p *= 1 - lr wd (2p), m.lerp_(g) (2s + g), v *= beta2 (2s),
 *           v.addcmul_(g, g) (2s + 2g), d = sqrt(v) (2s), d /= bc2 (2s),
 *           d += eps (2s), p.addcdiv_(m, d) (2p + 2s):
 *           4p + 14s + 3g (84 B for fp32).
 *   single  the same passes parameter by parameter (_single_tensor_adam,
 *           foreach=False): the bytes of foreach, but 8 kernel launches per
 *           parameter tensor, each costing the host its launch and the
 *           framework's per-op overhead; the step takes the longer of the
 *           GPU's bytes and the host's launches (as a run of kernels in
 *           plan_build), host-bound for many small tensors.
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
 * next all-gather). Every framework's default recipe clips the gradient norm
 * (Megatron --clip-grad 1.0, HF Trainer max_grad_norm 1.0, DeepSpeed and
 * FSDP configs of the cases): the norm reads each gradient once (g). The
 * rescale when the norm exceeds the threshold is not charged (assumed
 * rare once training settles).
 *
 * fp8 training (Transformer Engine) quantizes each weight once per step, at
 * the first micro-batch, row-wise and column-wise, and reuses the cast over
 * the step's other micro-batches (TE d0067d0d, pytorch/module/linear.py:
 * 476-484, update_workspace only when is_first_microbatch): read 2, write
 * 1 + 1 per parameter the rank holds (its TP shard, before ZeRO's
 * sharding), charged here with the step.
 */
#include "plan.h"

/* Kernel passes per parameter tensor in _single_tensor_adam's loop (the
 * passes listed above). */
#define SINGLE_TENSOR_PASSES 8.0

/* Parameter tensors per layer on one rank: the linear weights (q, k, v and
 * the output projection as separate modules in eager model code, fc1, fc2
 * and the gate for SwiGLU), two norms, and a bias per linear where the
 * model has them. */
static double tensors_per_layer(const work_model *m)
{
	double lin = 4.0 + (m->act == WORK_ACT_SWIGLU ? 3.0 : 2.0);
	return lin * (m->bias ? 2.0 : 1.0) + 2.0;
}

double plan_optimizer_bytes(const plan_scenario *s)
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
		step = s->fw.optimizer_impl == PLAN_OPTIM_FUSED ? 2.0 * p + g + 4.0 * st
								 : 4.0 * p + 14.0 * st + 3.0 * g;
		break;
	}
	double casts = 0;
	if (pol == PLAN_POLICY_MIXED) {
		double w, gr, o, paged;
		plan_param_bytes(s, &w, &gr, &o, &paged);
		casts = (gr < 4.0 ? gr + 4.0 : 0.0) + 4.0 + w;
	}
	return step + casts + g; /* + the gradient norm's read */
}

double plan_optimizer_time(const plan_scenario *s, int stage, double local)
{
	plan_budget b;
	plan_stage_budget(s, stage, &b);
	double all = b.dense + b.experts;
	double trained = all > 0 ? local * b.train / all : local;
	double t = hw_mem_time(&s->gpu, trained * plan_optimizer_bytes(s));
	if (s->dtype == HW_FP8)
		t += hw_mem_time(&s->gpu, 4.0 * all);
	bool per_tensor = s->fw.optimizer_impl == PLAN_OPTIM_SINGLE &&
			  (s->train.optimizer == PLAN_ADAM || s->train.optimizer == PLAN_ADAM_PAGED);
	if (per_tensor) { /* LoRA: an A and a B matrix per adapted module */
		double tensors = s->train.lora_rank > 0
					 ? 2.0 * __builtin_popcount(s->train.lora_mask)
					 : tensors_per_layer(&s->model);
		double host = b.layers * tensors * SINGLE_TENSOR_PASSES *
			      (s->gpu.launch_s + s->gpu.framework_s);
		t = host > t ? host : t;
	}
	return t;
}
