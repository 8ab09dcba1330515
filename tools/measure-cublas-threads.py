#!/usr/bin/env python3
"""measure-cublas-threads.py - which GEMMs give PyTorch's caching allocator a
cuBLAS workspace of its own: one per (thread, stream) or one per stream.

    tools/measure-cublas-threads.py --out DIR     # writes DIR/cublas-threads.csv

Each row is the growth of torch.cuda.memory_allocated() across one action,
less the tensors the action returns or leaves (outputs, .grad), in MiB:

  forward mm (main thread)      the first GEMM of the process, on the default
                                stream: the workspace alloc.csv measured.
  backward of it                autograd runs a CUDA backward on its own device
                                thread (the engine's worker), same stream: a
                                second workspace if the key is (handle, stream),
                                since each thread takes its own cuBLAS handle.
  second forward + backward     nothing new: both workspaces are kept.
  mm in a new Python thread     a third handle on the default stream.
  mm in that thread again       after the thread ended: its handle went back to
                                the pool, so a new thread may reuse it.
  forward+backward on a side stream  one for the forward (main thread, new
                                stream) and one for the backward (worker, new
                                stream).

Not run in CI; tools/measured/h200-training/cublas-threads.csv holds what it
wrote on an H200 (CUBLAS_WORKSPACE_CONFIG as the row says).
"""
import argparse
import os
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import torch
    mib = 2.0 ** 20
    env = os.environ.get("CUBLAS_WORKSPACE_CONFIG", "")
    print("torch", torch.__version__, torch.cuda.get_device_name(), "cfg", env, flush=True)
    n = 256
    dev = "cuda"
    rows = []

    def nbytes(ts):
        return sum(t.numel() * t.element_size() for t in ts if t is not None)

    def record(what, a0, left):
        torch.cuda.synchronize()
        d = (torch.cuda.memory_allocated() - a0 - nbytes(left)) / mib
        rows.append((what, round(d, 3), env, torch.__version__))
        print(rows[-1], flush=True)

    torch.cuda.synchronize()
    x = torch.randn(n, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(n, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
    torch.cuda.synchronize()

    a0 = torch.cuda.memory_allocated()
    y = x @ w
    record("forward mm (main thread default stream)", a0, [y])
    a0 = torch.cuda.memory_allocated() - nbytes([y])
    y.backward(torch.ones_like(y))
    del y
    record("backward of it (autograd worker default stream)", a0, [x.grad, w.grad])
    a0 = torch.cuda.memory_allocated()
    y = x @ w
    y.backward(torch.ones_like(y))
    del y
    record("second forward + backward (same threads and stream)", a0, [])

    box = []

    def th():
        box.append(x.detach() @ w.detach())
    for k in (1, 2):
        a0 = torch.cuda.memory_allocated()
        t = threading.Thread(target=th)
        t.start()
        t.join()
        record(f"mm in new Python thread {k} (default stream)", a0, [box[-1]])

    st = torch.cuda.Stream()
    a0 = torch.cuda.memory_allocated()
    with torch.cuda.stream(st):
        y = x @ w
    record("forward mm on a new stream (main thread)", a0, [y])
    a0 = torch.cuda.memory_allocated() - nbytes([y])
    with torch.cuda.stream(st):
        y.backward(torch.ones_like(y))
    del y
    torch.cuda.synchronize()
    record("backward of it (autograd worker new stream)", a0, [])

    with open(os.path.join(a.out, "cublas-threads.csv"), "w") as f:
        f.write("what,allocated_mib,CUBLAS_WORKSPACE_CONFIG,torch\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


if __name__ == "__main__":
    main()
