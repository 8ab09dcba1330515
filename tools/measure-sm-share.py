#!/usr/bin/env python3
"""measure-sm-share.py - how much GEMMs slow down beside a kernel that holds n
of the GPU's SMs for its whole run, the way DeepEP's dispatch and combine hold
moe_deepep_num_sms of them (podsim: hw_sm_share, plan_ep_share; the model
says the GEMMs progress at (sm - n) / sm of their rate while it runs).

The holder is one block per SM: `--threads` threads and `--smem-kib` KiB of
dynamic shared memory (DeepEP's internode dispatch block: 16 warps, 128 KiB,
csrc/kernels/internode.cu:357, :1007-1009 at deepseek-ai/DeepEP e02e4d2),
spinning on clock64() for a given number of cycles. On a second stream K
bf16 GEMMs (torch.matmul) run back to back, K chosen so that they take about
`--target-ms` alone. Per shape and n:
  alone    the K GEMMs' time between two CUDA events, no holder;
  beside   the holder launched first on its stream and lasting `--cover`
           times the GEMMs' time alone, the GEMMs after a 10 us sleep on
           theirs (so the holder is resident when they start);
  D        the time from the GEMMs' start to the holder's end (events on the
           two streams), capped at `beside`;
  model    podsim's hw_overlap_share(n / sm, alone, D): D + (alone - D r)
           with r = (sm - n) / sm, or alone / r when the GEMMs end first.
Each time is the median of `--reps` repetitions. Rows are CSV on stdout
(and in --out). Not run in CI: it needs a CUDA GPU, PyTorch and CuPy.
"""
import argparse
import csv
import statistics
import sys

import cupy
import torch

SRC = r"""
extern "C" __global__ void hold(long long cycles)
{
	extern __shared__ char smem[];
	long long t0 = clock64();
	while (clock64() - t0 < cycles) {
	}
	if (threadIdx.x == 0 && cycles < 0)
		smem[0] = 1; /* keeps the shared memory allocated */
}
"""


def model(share, c, d):
    """hw_overlap_share (sim/hw/kernel.c)."""
    r = 1.0 - share
    if d <= 0 or r >= 1:
        return c
    if c <= d * r:
        return c / r
    return d + (c - d * r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sms", default="0,8,20,32,66")
    ap.add_argument("--shapes", default="8192x8192x8192,4096x4096x7168,4096x7168x2048,2048x2048x7168")
    ap.add_argument("--smem-kib", type=int, default=128)
    ap.add_argument("--threads", type=int, default=512)
    ap.add_argument("--covers", default="3,0.5")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--target-ms", type=float, default=8.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    prop = torch.cuda.get_device_properties(torch.cuda.current_device())
    sm = prop.multi_processor_count
    kern = cupy.RawKernel(SRC, "hold")
    smem = args.smem_kib * 1024
    kern.max_dynamic_shared_size_bytes = smem
    s_hold, s_gemm = torch.cuda.Stream(), torch.cuda.Stream()
    ext = cupy.cuda.ExternalStream(s_hold.cuda_stream)

    def launch_hold(n, cycles):
        with ext:
            kern((n,), (args.threads,), (cupy.int64(cycles),), shared_mem=smem)

    # the SM clock clock64() counts, under load (one block, 20 ms)
    h0, h1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    hz = []
    for _ in range(3):
        cycles = 40_000_000
        h0.record(s_hold)
        launch_hold(1, cycles)
        h1.record(s_hold)
        torch.cuda.synchronize()
        hz.append(cycles / (h0.elapsed_time(h1) * 1e-3))
    hz = statistics.median(hz)

    rows = []
    info = "%s, %d SMs, clock64 at %.0f MHz, holder %d threads %d KiB, torch %s" % (
        prop.name, sm, hz / 1e6, args.threads, args.smem_kib, torch.__version__)
    print("# " + info, flush=True)
    for shape in args.shapes.split(","):
        m, n_, k = (int(x) for x in shape.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n_, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n_, device="cuda", dtype=torch.bfloat16)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def gemms(count):
            with torch.cuda.stream(s_gemm):
                for _ in range(count):
                    torch.matmul(a, b, out=c)

        gemms(5)
        torch.cuda.synchronize()
        e0.record(s_gemm)
        gemms(10)
        e1.record(s_gemm)
        torch.cuda.synchronize()
        one = e0.elapsed_time(e1) / 10
        count = max(1, round(args.target_ms / one))

        def alone_ms():
            e0.record(s_gemm)
            gemms(count)
            e1.record(s_gemm)
            torch.cuda.synchronize()
            return e0.elapsed_time(e1)

        alone = statistics.median(alone_ms() for _ in range(args.reps))
        for nsm in (int(x) for x in args.sms.split(",")):
            for cover in (float(x) for x in args.covers.split(",")):
                if nsm == 0 and cover != float(args.covers.split(",")[0]):
                    continue
                ts, ds = [], []
                for _ in range(args.reps):
                    cycles = int(cover * alone * 1e-3 * hz)
                    if nsm > 0:
                        launch_hold(nsm, cycles)
                        h1.record(s_hold)
                    with torch.cuda.stream(s_gemm):
                        torch.cuda._sleep(int(10e-6 * hz))
                    e0.record(s_gemm)
                    gemms(count)
                    e1.record(s_gemm)
                    torch.cuda.synchronize()
                    t = e0.elapsed_time(e1)
                    ts.append(t)
                    ds.append(min(t, max(0.0, e0.elapsed_time(h1))) if nsm > 0 else 0.0)
                t, d = statistics.median(ts), statistics.median(ds)
                pred = model(nsm / sm, alone, d)
                row = {"shape": shape, "gemms": count, "sms_held": nsm, "cover": cover,
                       "alone_ms": "%.4f" % alone, "beside_ms": "%.4f" % t,
                       "held_ms": "%.4f" % d, "ratio": "%.4f" % (t / alone),
                       "model_ms": "%.4f" % pred, "model_ratio": "%.4f" % (pred / alone)}
                rows.append(row)
                print(",".join(str(v) for v in row.values()), flush=True)
        del a, b, c
    if args.out:
        with open(args.out, "w", newline="") as f:
            f.write("# " + info + "\n")
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
