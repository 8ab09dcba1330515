#!/usr/bin/env python3
"""measure-kernels.py - time GEMMs, HBM copies and tiny kernels on this
machine's GPU with PyTorch and write rows in the schema of
tests/cases/microbench.csv, for `podsim calibrate`:

    tools/measure-kernels.py --gpu h100-sxm5-80g > mine.csv
    podsim calibrate mine.csv --gpu h100-sxm5-80g --out topologies/calib/mine.ini

--gpu is podsim's name of the GPU type (topologies/gpus/NAME.ini); the script
does not guess it from the device name. Not run in CI.

What is measured, and how:
  - each kernel runs `--warmup` times, then `--iters` times between two CUDA
    events; the row's time is the mean per call (back-to-back launches, so the
    host launch cost overlaps the GPU work except for kernels shorter than it);
  - gemm: torch.matmul of (m, k) x (k, n) in bf16 and fp16, and fp8 (e4m3,
    torch._scaled_mm) where the GPU and PyTorch support it;
  - hbm_copy: dst.copy_(src) of B bytes, which reads B and writes B: the row's
    `bytes` is 2 B, the total moved, as podsim calibrate expects;
  - tiny kernels (a 64^3 GEMM, a 4 KiB copy) are mostly launch cost: they let
    the fit estimate launch_overhead.
Clocks, power limits and other processes on the GPU change the numbers: note
them in the rows' `note` column with --note.
"""
import argparse
import csv
import sys

COLS = ("id,kind,gpu,gpus,nodes,gpus_per_node,node_intra,nics_per_node,nic_gbps,fabric,"
        "dtype,algo,m,n,k,bytes,time_us,busbw_GBps,measured_metric,measured_value,"
        "measured_unit,confidence,source,note").split(",")

GEMMS = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 8192, 8192), (1024, 10240, 5120),
         (16384, 1024, 4096), (128, 8192, 8192), (16, 8192, 8192), (1, 8192, 8192),
         (64, 64, 64)]
COPIES = [1 << 30, 256 << 20, 16 << 20, 4096]


def time_us(torch, fn, warmup, iters):
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / iters


def gemm_fn(torch, dtype, m, n, k):
    dev = "cuda"
    if dtype == "fp8":
        f8 = torch.float8_e4m3fn
        a = torch.randn(m, k, device=dev).to(f8)
        b = torch.randn(n, k, device=dev).to(f8).t()  # column-major, as _scaled_mm needs
        one = torch.ones((), device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
    t = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    a, b = torch.randn(m, k, device=dev, dtype=t), torch.randn(k, n, device=dev, dtype=t)
    return lambda: torch.matmul(a, b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", required=True, help="podsim GPU type name, e.g. h100-sxm5-80g")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--note", default="", help="free text for the note column (no commas)")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("measure-kernels: PyTorch is needed (pip install torch)")
    if not torch.cuda.is_available():
        sys.exit("measure-kernels: no CUDA GPU visible")
    dev = torch.cuda.get_device_name(0)
    source = f"tools/measure-kernels.py on {dev}; torch {torch.__version__}"
    note = f"mean of {args.iters} after {args.warmup} warmup; {args.note}".strip("; ")
    w = csv.DictWriter(sys.stdout, fieldnames=COLS, lineterminator="\n")
    w.writeheader()
    base = dict(gpu=args.gpu, gpus=1, nodes=1, confidence="exact", source=source, note=note)
    dtypes = ["bf16", "fp16"]
    if torch.cuda.get_device_capability(0) >= (8, 9) and hasattr(torch, "_scaled_mm"):
        dtypes.append("fp8")
    for dt in dtypes:
        for m, n, k in GEMMS:
            if dt == "fp8" and (m % 16 or n % 16 or k % 16):
                continue  # _scaled_mm needs multiples of 16
            try:
                us = time_us(torch, gemm_fn(torch, dt, m, n, k), args.warmup, args.iters)
            except (RuntimeError, TypeError) as e:  # unsupported shape or dtype here
                print(f"measure-kernels: skipped {dt} {m}x{n}x{k}: {e}", file=sys.stderr)
                continue
            w.writerow(dict(base, id=f"M-{dt}-{m}x{n}x{k}", kind="gemm", dtype=dt, m=m, n=n,
                            k=k, time_us=f"{us:.3f}", measured_metric="tflops",
                            measured_value=f"{2 * m * n * k / us / 1e6:.2f}",
                            measured_unit="TFLOP/s"))
    for size in COPIES:
        src = torch.empty(size, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        us = time_us(torch, lambda: dst.copy_(src), args.warmup, args.iters)
        w.writerow(dict(base, id=f"M-copy-{size}", kind="hbm_copy", algo="copy",
                        bytes=2 * size, time_us=f"{us:.3f}", measured_metric="hbm_copy_bw",
                        measured_value=f"{2 * size / us / 1e3:.1f}", measured_unit="GB/s"))


if __name__ == "__main__":
    main()
