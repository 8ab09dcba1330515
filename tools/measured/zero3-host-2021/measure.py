"""Host time of DeepSpeed ZeRO-3's per-rank loops as released in 2021
(podsim framework keys zero3_gather_rank_op and zero3_rank_op of
topologies/frameworks/deepspeed-2021.ini; README.md beside this file).

DeepSpeed 0.3.13-0.5.x (microsoft/DeepSpeed 112ebff6e, 2021-04-08, between
v0.3.13 and v0.3.16) gathers every partitioned parameter with
_allgather_param (deepspeed/runtime/zero/partition_parameters.py:610-650): a
torch.zeros of the full size, torch.cuda.synchronize(), then per rank a
narrow view of it appended to a list (with a get_rank call per rank), the
own shard copied in, and torch.distributed.all_gather(list, ...). PyTorch's
ProcessGroupNCCL::allgather with a list of outputs gathers into a new flat
tensor and copies it back into the list, one copy_ per rank (PyTorch 1.13.1
torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2065-2117; the same design
since 1.x). Gradients go through _reduce_scatter_gradient
(partition_parameters.py:750-784): per rank a narrow of the flat gradient
(or a zeros and a copy for the padded last rank), then reduce_scatter with
a list of inputs, which ProcessGroupNCCL copies into one flat tensor, one
copy_ per rank (ProcessGroupNCCL.cpp:2159-2215).

The bodies below are that code on tiny CPU tensors with the collective left
out, and with the C++ per-rank copy_ loop run from Python (one copy_ call per
rank): the dispatcher's and Python's cost, not the CUDA launch that each copy
adds on a GPU (podsim adds its launch_overhead per copy).

Usage: /usr/bin/python3 measure.py > host.csv   (torch 1.13.1, Debian python3-torch)
"""
import os
import sys
import time

import torch
import torch.distributed as dist


def allgather_param_host(shard, world, group=None):
    # partition_parameters.py:612-650 at 112ebff6e, all_gather left out
    partition_size = shard.numel()
    flat_tensor = torch.zeros(partition_size * world, dtype=shard.dtype).view(-1)
    partitions = []
    for i in range(world):
        partitions.append(flat_tensor.narrow(0, partition_size * i, partition_size))
        if i == dist.get_rank(group=group):
            partitions[i].data.copy_(shard.data, non_blocking=True)
    return partitions


def nccl_copies(outs, flat):
    # ProcessGroupNCCL.cpp:2111-2118 (allgather) and :2210-2216
    # (reduce_scatter): one copy_ per rank between the list and the flat
    # tensor, here called from Python
    for j in range(len(outs)):
        outs[j].copy_(flat[j], True)


def reduce_scatter_gradient_host(grad, numel, world):
    # partition_parameters.py:754-784 at 112ebff6e, reduce_scatter left out
    partition_size = (numel + world - 1) // world
    input_list = []
    for i in range(world):
        start = i * partition_size
        end = start + partition_size
        if start < numel and end <= numel:
            inp = grad.view(-1).narrow(0, start, partition_size)
        else:
            inp = torch.zeros(partition_size, dtype=grad.dtype)
            if start < numel:
                elements = numel - start
                inp.narrow(0, 0, elements).copy_(grad.view(-1).narrow(0, start, elements))
        input_list.append(inp)
    return input_list


def best_of(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    torch.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("gloo", rank=0, world_size=1)
    print("loop,world,seconds,per_rank_us")
    for world in (64, 256, 1024, 2048):
        shard = torch.zeros(4, dtype=torch.float16)
        t = best_of(lambda: allgather_param_host(shard, world), 7)
        print(f"gather_python,{world},{t:.6f},{t / world * 1e6:.3f}")
        parts = allgather_param_host(shard, world)
        flat = torch.zeros(world, 4, dtype=torch.float16)
        t = best_of(lambda: nccl_copies(parts, flat), 7)
        print(f"nccl_copies,{world},{t:.6f},{t / world * 1e6:.3f}")
        grad = torch.zeros(4 * world, dtype=torch.float16)
        t = best_of(lambda: reduce_scatter_gradient_host(grad, grad.numel(), world), 7)
        print(f"reduce_python,{world},{t:.6f},{t / world * 1e6:.3f}")
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
