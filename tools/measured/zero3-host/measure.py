"""Host time of DeepSpeed ZeRO-3's per-rank Python loops (podsim framework key
zero3_rank_op; README.md beside this file).

DeepSpeed 0.16.5 (microsoft/DeepSpeed 38327e07f6cd39b63418f60cedd1651b0be3e7c3)
reduces each gradient bucket with reduce_scatter_coalesced
(deepspeed/runtime/comm/coalesced_collectives.py:158-218). Before its one
reduce-scatter it slices every tensor of the bucket into world_sz views
(:170-175), and unless the bucket is one tensor divisible by world_sz it
interleaves them, one list append per (rank, tensor) and a torch.empty per
padded slice (:184-197), into one torch.cat (:199); torch.chunk makes world_sz
views (:202). The body below is that code with the collective left out
(host time only), run on tiny CPU tensors so that the copies cost nothing.

Usage: /usr/bin/python3 measure.py > host.csv   (torch 1.13.1, Debian python3-torch)
"""
import math
import sys
import time

import torch


def reduce_scatter_coalesced_host(tensors, world_sz, this_rank=0):
    # coalesced_collectives.py:166-218 without _torch_reduce_scatter_fn
    partition_lst_for_each_tensor = [None] * len(tensors)
    for tensor_idx, tensor in enumerate(tensors):
        flattened_tensor = tensor.view(-1)
        chunk_sz = math.ceil(tensor.numel() / world_sz)
        partition_lst_for_each_tensor[tensor_idx] = [
            flattened_tensor[rank * chunk_sz:rank * chunk_sz + chunk_sz] for rank in range(0, world_sz)
        ]
    padded_partition_sz_for_each_tensor = tuple(math.ceil(t.numel() / world_sz) for t in tensors)
    if len(tensors) == 1 and tensors[0].numel() % world_sz == 0:
        tensor_partition_flat_buffer = tensors[0].view(-1)
    else:
        tensor_partitions_lst_with_padding = []
        for rank in range(world_sz):
            for tensor_idx in range(len(tensors)):
                tensor_chunk = partition_lst_for_each_tensor[tensor_idx][rank]
                tensor_partitions_lst_with_padding.append(tensor_chunk)
                padding_sz = padded_partition_sz_for_each_tensor[tensor_idx] - tensor_chunk.numel()
                if padding_sz > 0:
                    tensor_partitions_lst_with_padding.append(
                        torch.empty(padding_sz, dtype=tensor_chunk.dtype, device=tensor_chunk.device))
        tensor_partition_flat_buffer = torch.cat(tensor_partitions_lst_with_padding)
    tensor_partition_flat_buffer.div_(world_sz)
    tensor_partition_buffer_for_each_rank = torch.chunk(tensor_partition_flat_buffer, world_sz)
    output_lst = [None] * len(tensors)
    offset = 0
    for tensor_idx in range(len(tensors)):
        output_lst[tensor_idx] = tensor_partition_buffer_for_each_rank[this_rank].narrow(
            0, offset, partition_lst_for_each_tensor[tensor_idx][this_rank].numel())
        offset += padded_partition_sz_for_each_tensor[tensor_idx]
    return output_lst


def best_of(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    torch.set_num_threads(1)
    print("world,tensors,padded,seconds,per_rank_tensor_us")
    for world in (64, 256, 1024, 2048):
        for ntens in (1, 2, 4, 8, 16):
            for padded in (False, True):
                if ntens == 1 and not padded:
                    pass  # the divisible single tensor: slices only
                numel = 4 * world + (1 if padded else 0)
                ts = [torch.zeros(numel, dtype=torch.bfloat16) for _ in range(ntens)]
                t = best_of(lambda: reduce_scatter_coalesced_host(ts, world), 7)
                print(f"{world},{ntens},{int(padded)},{t:.6f},{t / (world * ntens) * 1e6:.3f}")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
