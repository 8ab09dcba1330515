#!/usr/bin/env python3
"""measure-sm-share.py - how much GEMMs slow down beside a kernel that holds n
of the GPU's SMs for its whole run, the way DeepEP's dispatch and combine hold
moe_deepep_num_sms of them (podsim: hw_sm_share, hw_gemm_time_held,
plan_ep_share).

    tools/measure-sm-share.py OUT.csv

The holder is one block per SM: 512 threads (16 warps, as DeepEP's internode
dispatch block, csrc/kernels/internode.cu:357 at deepseek-ai/DeepEP e02e4d2)
and 220 KiB of dynamic shared memory, so that no other block shares its SM,
spinning on clock64() for a given number of cycles. On a second stream q bf16
GEMMs (torch.matmul) run back to back, q chosen so that they take about 8 ms
alone, each between two CUDA events. Per shape, SMs held n and cover (the
holder's length over the GEMMs' time alone):
  per_gemm_alone_us  a GEMM's time, no holder (median);
  in_us, n_in        the GEMMs that ended before the holder did: median time
                     and count;
  after_us, n_after  those that started after it ended;
  total_ms           the q GEMMs' time (median of 3 repetitions).
The holder is launched first, the GEMMs after a 10 us sleep on their stream
(so the holder is resident when they start). Not run in CI: it needs a CUDA
GPU, PyTorch and CuPy (tools/measured/sm-share-h200-run3.csv is its output on
an H200; run1 and run2 are an earlier variant's, which timed the q GEMMs
together: their columns are named in their first lines).
"""
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
SMEM = 220 * 1024
SHAPES = ("2048x2048x7168", "4096x1536x7168", "4096x7168x2048", "8192x8192x8192")
CASES = ((0, 3), (20, 0.5), (20, 1), (20, 3), (20, 6), (8, 3), (32, 3))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/dev/stdout"
    prop = torch.cuda.get_device_properties(0)
    kern = cupy.RawKernel(SRC, "hold")
    kern.max_dynamic_shared_size_bytes = SMEM
    s_hold, s_gemm = torch.cuda.Stream(), torch.cuda.Stream()
    ext = cupy.cuda.ExternalStream(s_hold.cuda_stream)

    def event():
        return torch.cuda.Event(enable_timing=True)

    def hold(n, cycles):
        with ext:
            kern((n,), (512,), (cupy.int64(cycles),), shared_mem=SMEM)

    h0, h1 = event(), event()
    hz = []
    for _ in range(3):  # the SM clock clock64() counts
        h0.record(s_hold)
        hold(1, 40_000_000)
        h1.record(s_hold)
        torch.cuda.synchronize()
        hz.append(40e6 / (h0.elapsed_time(h1) * 1e-3))
    hz = statistics.median(hz)
    rows = ["# %s, %d SMs, clock64 at %.0f MHz, torch %s" % (
        prop.name, prop.multi_processor_count, hz / 1e6, torch.__version__),
        "shape,sms,cover,per_gemm_alone_us,in_us,n_in,after_us,n_after,total_ms"]
    for shape in SHAPES:
        m, n, k = (int(v) for v in shape.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)

        def run(q, nsm, cycles):
            ev = [event() for _ in range(q + 1)]
            if nsm:
                hold(nsm, cycles)
                h1.record(s_hold)
            with torch.cuda.stream(s_gemm):
                torch.cuda._sleep(int(1e-5 * hz))
                ev[0].record(s_gemm)
                for i in range(q):
                    torch.matmul(a, b, out=c)
                    ev[i + 1].record(s_gemm)
            torch.cuda.synchronize()
            each = [ev[i].elapsed_time(ev[i + 1]) for i in range(q)]
            start = [ev[0].elapsed_time(ev[i]) for i in range(q)]
            end = ev[0].elapsed_time(h1) if nsm else -1.0
            return each, start, end, ev[0].elapsed_time(ev[q])

        run(5, 0, 0)
        q = max(4, round(8 / statistics.median(run(10, 0, 0)[0])))
        alone = statistics.median(x for _ in range(3) for x in run(q, 0, 0)[0])
        for nsm, cover in CASES:
            inside, after, total = [], [], []
            for _ in range(3):
                each, start, end, t = run(q, nsm, int(cover * q * alone * 1e-3 * hz))
                total.append(t)
                for i in range(q):
                    if nsm and start[i] + each[i] <= end:
                        inside.append(each[i])
                    elif not nsm or start[i] >= end:
                        after.append(each[i])
            med = (lambda v: statistics.median(v) * 1e3 if v else -1.0)
            line = "%s,%d,%g,%.2f,%.2f,%d,%.2f,%d,%.4f" % (
                shape, nsm, cover, alone * 1e3, med(inside), len(inside), med(after),
                len(after), statistics.median(total))
            print(line, flush=True)
            rows.append(line)
        del a, b, c
    with open(out, "w") as f:
        f.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
