"""Host time of Composer's DecoupledAdamW step, tensor by tensor (podsim
framework key optimizer_op_overhead of topologies/frameworks/llm-foundry.ini;
README.md beside this file).

composer/optim/decoupled_weight_decay.py at v0.16.4 (the Composer that
llm-foundry v0.3.0 installs, setup.py:50), step() (:265-340) under
torch.no_grad: per parameter, skip it without a gradient, append it and its
gradient, look up its state (exp_avg, exp_avg_sq, the step count: a 0-dim
tensor on the parameter's device), add 1 to the count, append; then adamw()
(:215-262): per parameter, read the count back with .item(), the weight
decay only when weight_decay != 0 (0.0 in the MPT pretraining yamls), the
bias corrections in Python, exp_avg.mul_().add_(), exp_avg_sq.mul_()
.addcmul_(), denom = (exp_avg_sq.sqrt() / c).add_(eps), param.addcdiv_().

The functions below do the same on tiny CPU tensors: Python's and PyTorch's
dispatcher's cost, not the CUDA launch that each of the 9 kernels (the
count's increment and the 8 passes) adds on a GPU, nor the wait the .item()
adds there (podsim charges the GPU's launch_overhead per kernel and models
the wait: sim/plan/optim.c).

Usage: /usr/bin/python3 measure.py > host.csv   (torch 1.13.1, Debian python3-torch)
"""
import math
import sys
import time

import torch


def step(params, state, lr=6e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0,
         initial_lr=6e-4):
    # decoupled_weight_decay.py:280-323 (one param group, amsgrad off)
    params_with_grad, grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], [], []
    beta1, beta2 = betas
    for p in params:
        if p.grad is None or not p.requires_grad:
            continue
        params_with_grad.append(p)
        grads.append(p.grad)
        st = state[p]
        exp_avgs.append(st['exp_avg'])
        exp_avg_sqs.append(st['exp_avg_sq'])
        st['step'] += 1
        state_steps.append(st['step'])
    # adamw(), :237-262
    for i, param in enumerate(params_with_grad):
        grad = grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_n = state_steps[i].item()
        if weight_decay != 0:
            decay_factor = (lr / initial_lr) if initial_lr else 1.0
            param.mul_(1 - decay_factor * weight_decay)
        bias_correction1 = 1 - beta1 ** step_n
        bias_correction2 = 1 - beta2 ** step_n
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(eps)
        step_size = lr / bias_correction1
        param.addcdiv_(exp_avg, denom, value=-step_size)


def make(n):
    params, state = [], {}
    for _ in range(n):
        p = torch.nn.Parameter(torch.zeros(4))
        p.grad = torch.full((4,), 1e-3)
        params.append(p)
        state[p] = {'step': torch.zeros((), dtype=torch.float),
                    'exp_avg': torch.zeros(4), 'exp_avg_sq': torch.zeros(4)}
    return params, state


def main():
    torch.set_num_threads(1)
    print("tensors,best_s,median_s,best_us_per_tensor,median_us_per_tensor")
    for n in (16, 48, 144, 336, 672):
        params, state = make(n)
        with torch.no_grad():
            for _ in range(3):
                step(params, state)
            times = []
            for _ in range(15):
                t0 = time.perf_counter()
                step(params, state)
                times.append(time.perf_counter() - t0)
        times.sort()
        best, med = times[0], times[len(times) // 2]
        print(f"{n},{best:.6f},{med:.6f},{1e6 * best / n:.3f},{1e6 * med / n:.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
