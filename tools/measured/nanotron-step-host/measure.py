"""Host time of nanotron's per-tensor loops around the optimizer step
(podsim framework keys step_tensor_ops and step_tensor_op of
topologies/frameworks/nanotron.ini; README.md beside this file).

nanotron at 0e0a27ea83cfe1ba61332a00383bb8307dd9e13d runs, after the
backward and the data-parallel gradient reduction of every step
(src/nanotron/trainer.py:528-568):

- clip_grad_norm (src/nanotron/optim/clip_grads.py:13-95; clip_grad 1.0 in
  the benchmark configuration): it lists the model's named parameters,
  asserts each requires grad, looks up each one's fp32 gradient buffer in
  the gradient accumulator (get_grad_buffer, optim/gradient_accumulator.py:
  279-281), takes one torch.linalg.vector_norm per buffer, stacks them, takes
  the norm of the stack, all-reduces it over the model-parallel group,
  derives the clamped coefficient, and multiplies every buffer by it with
  mul_: unconditionally (no host branch on the norm), one call per tensor;
- OptimizerFromGradientAccumulator.step (optim/
  optimizer_from_gradient_accumulator.py:49-52), after the wrapped
  optimizer's step: FP32GradientAccumulator.step (optim/
  gradient_accumulator.py:252-263) copies every fp32 master parameter (the
  rank's ZeRO slices) back into its bf16 parameter with copy_, one call per
  tensor.

The functions below do the same on tiny CPU tensors with the all-reduce
left out: Python's and PyTorch's dispatcher's cost, not the CUDA launch that
each vector_norm, mul_ and copy_ adds on a GPU (podsim adds the GPU's
launch_overhead for those: three per tensor).

Usage: /usr/bin/python3 measure.py > host.csv   (torch 1.13.1, Debian python3-torch)
"""
import sys
import time

import torch


class Param:
    """A parameter as the loops see it: nanotron's NanotronParameter answers
    requires_grad and is_tied (parallel/parameters.py)."""

    def __init__(self, t):
        self.t = t
        self.requires_grad = True
        self.is_tied = False


class Accumulator:
    """The lookups of FP32GradientAccumulator (gradient_accumulator.py)."""

    def __init__(self, names, numel):
        self.fp32_grad_buffers = {
            n: {"fp32_grad": torch.zeros(numel, dtype=torch.float)} for n in names
        }
        self.parameters = {
            n: {"fp32": torch.zeros(numel, dtype=torch.float),
                "half": torch.zeros(numel, dtype=torch.bfloat16)} for n in names
        }

    def get_grad_buffer(self, name):
        return self.fp32_grad_buffers[name]["fp32_grad"]

    def step(self):
        # gradient_accumulator.py:258-263
        for name in self.parameters.keys():
            fp32_param = self.parameters[name]["fp32"]
            half_param = self.parameters[name]["half"]
            half_param.copy_(fp32_param)


def clip_grad_norm(named_parameters, max_norm, acc, norm_type=2.0):
    # clip_grads.py:33-95, the all-reduce of the norm left out
    named_parameters = list(named_parameters)
    for _, p in named_parameters:
        assert p.requires_grad
    grads = [acc.get_grad_buffer(name) for name, p in named_parameters if not p.is_tied]
    total_norm = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(g.detach(), ord=norm_type, dtype=torch.float)
                     for g in grads]),
        ord=norm_type, dtype=torch.float).pow(norm_type)
    total_norm.pow_(1.0 / norm_type)
    clip_coef = max_norm / (total_norm + 1.0e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    devices = {acc.get_grad_buffer(name).device for name, param in named_parameters}
    device_to_clip_coef_clamped = {device: clip_coef_clamped.to(device) for device in devices}
    for name, param in named_parameters:
        acc.get_grad_buffer(name).detach().mul_(
            device_to_clip_coef_clamped[acc.get_grad_buffer(name).device])
    return total_norm


def times(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return sorted(out)


def main():
    torch.set_num_threads(1)
    print("tensors,best_s,median_s,best_us_per_tensor,median_us_per_tensor")
    for tensors in (16, 49, 98, 196, 392):
        names = [f"p{i}" for i in range(tensors)]
        acc = Accumulator(names, 4)  # 4 elements: the kernels move nothing
        named = [(n, Param(acc.parameters[n]["half"])) for n in names]

        def loops():
            clip_grad_norm(named, 1.0, acc)
            acc.step()

        t = times(loops, 15)
        print(f"{tensors},{t[0]:.6f},{t[7]:.6f},{t[0] / tensors * 1e6:.3f},"
              f"{t[7] / tensors * 1e6:.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
