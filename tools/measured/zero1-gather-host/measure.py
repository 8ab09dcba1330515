"""Host time of nanotron's ZeRO-1 parameter all-gather after each optimizer
step (podsim framework key zero_gather_rank_op of
topologies/frameworks/nanotron.ini; README.md beside this file).

nanotron at 0e0a27ea83cfe1ba61332a00383bb8307dd9e13d gathers the updated
parameters with ZeroDistributedOptimizer._all_gather_params
(src/nanotron/optim/zero.py:214-250): for every parameter and every DP rank
it slices the flat parameter at that rank's offsets (numpy integers from
_partition_parameters, zero.py:173-187) into the output lists, and passes
them to nanotron's own all_gather_coalesced (src/nanotron/distributed.py:
153-218). That checks every (parameter, rank) tensor's device and dtype
(:189-193), transposes the lists to [rank][parameter] (:196-199), flattens
the inputs and, per rank, the outputs (torch._utils._flatten_dense_tensors,
:201-204), calls torch.distributed.all_gather on the flat buffers (:206), and
then (update_output, :208-214) unflattens each rank's gathered buffer
against its list and copies every piece back with copy_, one call per
(rank, parameter).

The function below does the same on tiny CPU tensors with the collective
left out: Python's and PyTorch's dispatcher's cost, not the CUDA launch
that each copy_ and each rank's flatten add on a GPU (podsim adds the GPU's
launch_overhead for those).

Usage: /usr/bin/python3 measure.py > host.csv   (torch 1.13.1, Debian python3-torch)
"""
import sys
import time

import numpy as np
import torch
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def partition(numels, world):
    # zero.py:173-187: each parameter split over the DP ranks, the last
    # ranks one element shorter; offsets are numpy integers
    offsets = []
    for numel in numels:
        per = (numel - 1) // world + 1
        sizes = np.full(shape=(world,), fill_value=per)
        rem = per * world - numel
        if rem > 0:
            sizes[-rem:] -= 1
        ends = np.cumsum(sizes)
        starts = np.concatenate([[0], ends[:-1]])
        offsets.append({r: (starts[r], ends[r]) for r in range(world) if starts[r] < ends[r]})
    return offsets


def gather_params_host(params, offsets, world, rank=0):
    # zero.py:225-250: the output and input lists
    outs = [
        [p[slice(*off[r])] if r in off else torch.empty(0, dtype=p.dtype) for r in range(world)]
        for p, off in zip(params, offsets)
    ]
    ins = [p[slice(*off[rank])] if rank in off else torch.empty(0, dtype=p.dtype)
           for p, off in zip(params, offsets)]
    # distributed.py:175-218, dist.all_gather left out
    device, dtype = ins[0].device, ins[0].dtype
    for t in ins:
        assert device == t.device
        assert dtype == t.dtype
    for lst in outs:
        assert len(lst) == world
        for t in lst:
            assert device == t.device
            assert dtype == t.dtype
    by_rank = [[lst[r] for lst in outs] for r in range(world)]
    flat_in = _flatten_dense_tensors(ins)
    flat_out = [_flatten_dense_tensors(lst) for lst in by_rank]
    for lst, flat in zip(by_rank, flat_out):
        for orig, piece in zip(lst, _unflatten_dense_tensors(flat, lst)):
            orig.copy_(piece)
    return flat_in


def times(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return sorted(out)


def main():
    torch.set_num_threads(1)
    print("world,tensors,best_s,median_s,best_us,median_us")
    for tensors in (16, 98, 196):
        for world in (8, 32, 128, 512):
            # 4 elements per rank: the copies move nothing
            numels = [4 * world] * tensors
            params = [torch.zeros(n, dtype=torch.bfloat16) for n in numels]
            offsets = partition(numels, world)
            t = times(lambda: gather_params_host(params, offsets, world), 9)
            n = world * tensors / 1e6
            print(f"{world},{tensors},{t[0]:.6f},{t[4]:.6f},{t[0] / n:.3f},{t[4] / n:.3f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
