#!/usr/bin/env python3
"""measure-training.py - measure, on this machine's GPU with PyTorch, what a
training micro-batch of eager PyTorch costs beyond its FLOPs, and write one
CSV per section into --out (a directory):

    tools/measure-training.py --out DIR

Not run in CI; tools/measured/ holds what it wrote on an H200 (its README says
where podsim uses each file). Sections, each written as soon as it is done:

  (stdout)     the GPU, driver, CPU, torch and transformers versions.
  ops.csv      the host cost of single eager operations: each op is called
               --op-calls times while the GPU sleeps behind one long kernel
               (torch.cuda._sleep), so the launches queue and the host time per
               call is the host's alone (Python, the dispatcher, autograd's
               graph recording, the CUDA launch); fwd+bwd rows run a forward
               op and its backward through autograd.
  kernels.csv  the CUDA kernels one forward and one backward of Hugging Face
               transformers' LlamaForCausalLM (eager, SDPA attention, bf16,
               loss from labels) launch, counted with torch.profiler, for 1
               and 2 layers: the difference is one decoder layer's kernels,
               the rest the embedding, final norm, head and loss.
  microbatch.csv  the time of one micro-batch (forward with the loss, then
               backward, gradients accumulating as in gradient accumulation)
               of Llama 3.2 1B's shape (16 layers, hidden 2048, 32 heads, 8
               KV heads of 64, ffn 8192, vocabulary 128256, untied) and of
               the shard one tensor-parallel rank computes at tp 2, 4, 8
               (heads, KV heads, ffn and vocabulary divided by tp, hidden
               whole: no collectives, the rank's kernels alone), at sequence
               2048 and micro-batch 1, 2, 4, 8: wall time (CUDA events), the
               host's time to issue it (until backward() returns), and the
               peak memory allocated and reserved. Plus a host-bound row
               (sequence 64) whose time is the host's.
  membw.csv    memory-bound kernels (copy, add, SiLU x up, the eager fp32
               RMSNorm) at 64-512 MiB: achieved bandwidth (bytes read and
               written by the kernel's own arithmetic over its time).
  gemm.csv     bf16 GEMMs of training shapes: Llama 3 8B's and 70B's QKV,
               output, gate/up and down projections at tp 1, 2, 4, 8, at
               2048, 8192 and 16384 tokens, forward (F.linear: x [T, k] by
               W [n, k] transposed) and the weight gradient (dY^T X: [n, T] by
               [T, k]); the SM clock after each (NVML).
  hostsplit.csv  the host's time to issue the forward and the backward apart
               (sequence 64: the GPU waits for the host), and their kernels:
               the host cost per kernel of each pass.
  microbatch-8b.csv  as microbatch.csv for Llama 3 8B's shape (32 layers,
               hidden 4096, 32 heads, 8 KV heads of 128, ffn 14336): tp 8 and
               4 shards at sequence 4096, the whole model at 2048 and 4096.
  steps.csv    whole steps of one micro-batch in pure bf16 with AdamW (foreach
               and fused): step and optimizer time, peak memory.
  clock2.csv   a bf16 8192^3 GEMM timed one by one after 15 s idle (the
               burst), then an fp8 one repeated for --sustain-s seconds.
  alloc.csv    the cuBLAS workspace a stream's first GEMM allocates (torch.mm,
               and F.linear with a bias through cublasLt), on the default and
               two new streams; AdamW's temporaries during step().
  mix.csv      the 8192^3 bf16 GEMM alone, then beside back-to-back 1 GiB
               copies on a second stream, then alone again: does other work
               on the chip lower its clock?
  sustain.csv  one 8192^3 bf16 GEMM repeated for --sustain-s seconds: its
               rate, the SM clock, power and temperature per window, the
               burst against the sustained clock of this chip.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def wr(path, rows, header):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


def nvml_handle():
    try:
        import pynvml
        pynvml.nvmlInit()
        return pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
    except Exception as e:  # noqa: BLE001 - clocks are a note, not a must
        print("nvml unavailable:", e, flush=True)
        return None, None


def clocks(nv, h):
    if nv is None:
        return ("", "", "")
    try:
        sm = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)
        pw = nv.nvmlDeviceGetPowerUsage(h) / 1000.0
        t = nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)
        return (sm, round(pw, 1), t)
    except Exception:  # noqa: BLE001
        return ("", "", "")


def env(torch, out):
    lines = []
    for cmd in (["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,"
                 "power.limit", "--format=csv"], ["lscpu"]):
        try:
            lines.append(subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout)
        except Exception as e:  # noqa: BLE001
            lines.append(f"{cmd[0]}: {e}\n")
    try:
        import transformers
        tv = transformers.__version__
    except Exception as e:  # noqa: BLE001
        tv = f"unavailable ({e})"
    lines.append(f"python {sys.version.split()[0]} torch {torch.__version__} "
                 f"cuda {torch.version.cuda} transformers {tv}\n")
    p = torch.cuda.get_device_properties(0)
    lines.append(f"device {p.name} sms {p.multi_processor_count} mem {p.total_memory}\n")
    print("".join(lines), flush=True)


def ops(torch, out, calls):
    import torch.nn.functional as F
    dev = "cuda"
    a = torch.randn(1024, device=dev)
    b = torch.randn(1024, device=dev)
    m = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    w = torch.randn(64, 64, device=dev, dtype=torch.bfloat16, requires_grad=True)
    x = torch.randn(8, 64, device=dev, dtype=torch.bfloat16, requires_grad=True)
    t2 = torch.randn(64, 16, device=dev, dtype=torch.bfloat16)

    def fb_linear():
        F.linear(x, w).sum().backward()

    def fb_silu():
        F.silu(x).sum().backward()

    cases = [
        ("add", "a + b", lambda: a + b, 1),
        ("add_", "a.add_(b)", lambda: a.add_(b), 1),
        ("mul", "a * b", lambda: a * b, 1),
        ("silu", "F.silu(a)", lambda: F.silu(a), 1),
        ("matmul", "m @ m (64^3 bf16)", lambda: m @ m, 1),
        ("contiguous", "t.t().contiguous()", lambda: t2.t().contiguous(), 1),
        ("cat", "torch.cat((a, b))", lambda: torch.cat((a, b)), 1),
        ("linear_fwd_grad", "F.linear(x, w) with requires_grad (autograd records)",
         lambda: F.linear(x, w), 1),
        ("linear_fwd_bwd", "F.linear(x, w).sum().backward()", fb_linear, 0),
        ("silu_fwd_bwd", "F.silu(x).sum().backward()", fb_silu, 0),
    ]
    rows = []
    from torch.profiler import profile, ProfilerActivity
    for name, what, fn, _ in cases:
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        # kernels one call launches, counted by the profiler
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        nk = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        # stay under the launch queue's depth (about 1,000 entries) so that
        # no call waits for the GPU
        n_calls = max(20, min(calls, 600 // max(nk, 1)))
        per = []
        for _rep in range(5):
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU spin at ~2 GHz
            t0 = time.perf_counter()
            for _ in range(n_calls):
                fn()
            per.append((time.perf_counter() - t0) / n_calls * 1e6)
            torch.cuda.synchronize()
        rows.append((name, '"' + what + '"', nk, n_calls, round(statistics.median(per), 2),
                     round(min(per), 2)))
        print("op", rows[-1], flush=True)
    wr(os.path.join(out, "ops.csv"), rows,
       ("op", "what", "kernels_per_call", "calls", "host_us_per_call_median", "host_us_per_call_min"))


SHAPES = {"llama3.2-1b-shape": (2048, 8192, 32, 8, 64, 128256),
          "llama3-8b-shape": (4096, 14336, 32, 8, 128, 128256)}


def llama(torch, layers, tp, shape="llama3.2-1b-shape"):
    from transformers import LlamaConfig, LlamaForCausalLM
    hd, ff, a, g, dh, vocab = SHAPES[shape]
    kw = dict(hidden_size=hd, intermediate_size=ff // tp, num_hidden_layers=layers,
              num_attention_heads=a // tp, num_key_value_heads=max(1, g // tp), head_dim=dh,
              vocab_size=vocab // tp, max_position_embeddings=8192,
              tie_word_embeddings=False, use_cache=False)
    try:
        cfg = LlamaConfig(attn_implementation="sdpa", **kw)
    except TypeError:
        cfg = LlamaConfig(**kw)
        cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    model.to(torch.bfloat16)
    model.train()
    return model


def mb_call(model, ids):
    out = model(input_ids=ids, labels=ids, use_cache=False)
    out.loss.backward()


def time_microbatch(torch, model, ids, iters):
    """Two micro-batches to warm up, then `iters` timed one by one: the wall
    time of each (CUDA events, ms) and the host's time to issue it (until
    backward() returns, ms); the peak memory counters are reset before the
    timed ones."""
    for _ in range(2):
        mb_call(model, ids)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    walls, hosts = [], []
    for _ in range(iters):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        e0.record()
        mb_call(model, ids)
        hosts.append((time.perf_counter() - t0) * 1e3)
        e1.record()
        torch.cuda.synchronize()
        walls.append(e0.elapsed_time(e1))
    return walls, hosts


def count_kernels(torch, model, ids):
    from torch.profiler import profile, ProfilerActivity
    cuda = torch.autograd.DeviceType.CUDA
    for _ in range(2):
        mb_call(model, ids)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as pf:
        out = model(input_ids=ids, labels=ids, use_cache=False)
        torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as pb:
        out.loss.backward()
        torch.cuda.synchronize()
    f = [e.name for e in pf.events() if e.device_type == cuda]
    b = [e.name for e in pb.events() if e.device_type == cuda]
    return f, b


def kernels(torch, out):
    rows = []
    names = {}
    ids = torch.randint(0, 1000, (1, 2048), device="cuda")
    for nl in (1, 2):
        model = llama(torch, nl, 1)
        f, b = count_kernels(torch, model, ids)
        rows.append((nl, 1, 2048, 1, len(f), len(b)))
        names[nl] = (f, b)
        print("kernels", rows[-1], flush=True)
        del model
        torch.cuda.empty_cache()
    wr(os.path.join(out, "kernels.csv"), rows,
       ("layers", "tp_shard", "seq", "mb", "fwd_kernels", "bwd_kernels"))
    from collections import Counter
    with open(os.path.join(out, "kernels-layer.txt"), "w") as fo:
        for ph, i in (("forward", 0), ("backward", 1)):
            d = Counter(names[2][i]) - Counter(names[1][i])
            fo.write(f"# one decoder layer's {ph} kernels (2 layers minus 1), "
                     f"{sum(d.values())} launches\n")
            for k, v in sorted(d.items(), key=lambda kv: -kv[1]):
                fo.write(f"{v} {k}\n")
            fo.write(f"# the rest of the {ph} (the 1-layer model minus one layer)\n")
            r = Counter(names[1][i]) - d
            for k, v in sorted(r.items(), key=lambda kv: -kv[1]):
                fo.write(f"{v} {k}\n")


def microbatches(torch, out, iters):
    rows = []
    path = os.path.join(out, "microbatch.csv")
    hdr = ("model", "layers", "tp_shard", "seq", "mb", "wall_ms_median", "wall_ms_min",
           "host_ms_median", "peak_alloc_gib", "peak_reserved_gib", "kernels_per_mb")
    cuda = torch.autograd.DeviceType.CUDA
    for tp in (1, 2, 4, 8):
        model = llama(torch, 16, tp)
        model.zero_grad(set_to_none=True)
        plan = [(2048, mb) for mb in (1, 2, 4, 8)] + [(64, 1)]
        for seq, mb in plan:
            ids = torch.randint(0, 1000, (mb, seq), device="cuda")
            walls, hosts = time_microbatch(torch, model, ids, iters)
            pa = torch.cuda.max_memory_allocated() / 2**30
            pr = torch.cuda.max_memory_reserved() / 2**30
            nk = ""
            if mb == 1:
                from torch.profiler import profile, ProfilerActivity
                with profile(activities=[ProfilerActivity.CUDA]) as p:
                    mb_call(model, ids)
                    torch.cuda.synchronize()
                nk = sum(1 for e in p.events() if e.device_type == cuda)
            rows.append(("llama3.2-1b-shape", 16, tp, seq, mb,
                         round(statistics.median(walls), 3), round(min(walls), 3),
                         round(statistics.median(hosts), 3), round(pa, 3), round(pr, 3), nk))
            print("mb", rows[-1], flush=True)
            wr(path, rows, hdr)
        del model
        torch.cuda.empty_cache()


def hostsplit(torch, out, iters):
    """The host's time to issue the forward (with the loss) and the backward
    apart, at sequence 64 where the GPU waits for the host, and the kernels
    each launches: the host cost per kernel of each pass. The GPU is drained
    between the two, so neither waits for it."""
    from torch.profiler import profile, ProfilerActivity
    cuda = torch.autograd.DeviceType.CUDA
    rows = []
    for shape, layers, tp in (("llama3.2-1b-shape", 16, 1), ("llama3.2-1b-shape", 16, 8),
                              ("llama3-8b-shape", 32, 8)):
        model = llama(torch, layers, tp, shape)
        ids = torch.randint(0, 1000, (1, 64), device="cuda")
        for _ in range(3):
            mb_call(model, ids)
        torch.cuda.synchronize()
        fw, bw = [], []
        for _ in range(iters):
            t0 = time.perf_counter()
            o = model(input_ids=ids, labels=ids, use_cache=False)
            fw.append((time.perf_counter() - t0) * 1e3)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            o.loss.backward()
            bw.append((time.perf_counter() - t0) * 1e3)
            torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as pf:
            o = model(input_ids=ids, labels=ids, use_cache=False)
            torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as pb:
            o.loss.backward()
            torch.cuda.synchronize()
        kf = sum(1 for e in pf.events() if e.device_type == cuda)
        kb = sum(1 for e in pb.events() if e.device_type == cuda)
        rows.append((shape, layers, tp, 64, 1, round(statistics.median(fw), 3), kf,
                     round(statistics.median(bw), 3), kb,
                     round(statistics.median(fw) / kf * 1e3, 2),
                     round(statistics.median(bw) / kb * 1e3, 2)))
        print("hostsplit", rows[-1], flush=True)
        wr(os.path.join(out, "hostsplit.csv"), rows,
           ("model", "layers", "tp_shard", "seq", "mb", "fwd_host_ms", "fwd_kernels",
            "bwd_host_ms", "bwd_kernels", "fwd_us_per_kernel", "bwd_us_per_kernel"))
        del model
        torch.cuda.empty_cache()


def predict(torch, out, iters):
    """Llama 3 8B's shape (32 layers) at tp 8 and tp 4 shards and whole, the
    same measurement as microbatch.csv: rows podsim predicts, not fits."""
    rows = []
    path = os.path.join(out, "microbatch-8b.csv")
    hdr = ("model", "layers", "tp_shard", "seq", "mb", "wall_ms_median", "wall_ms_min",
           "host_ms_median", "peak_alloc_gib", "peak_reserved_gib")
    for tp, plan in ((8, ((4096, 1), (4096, 2), (4096, 4))), (4, ((4096, 1), (4096, 2))),
                     (1, ((2048, 1), (4096, 1)))):
        model = llama(torch, 32, tp, "llama3-8b-shape")
        model.zero_grad(set_to_none=True)
        for seq, mb in plan:
            ids = torch.randint(0, 1000, (mb, seq), device="cuda")
            walls, hosts = time_microbatch(torch, model, ids, iters)
            rows.append(("llama3-8b-shape", 32, tp, seq, mb, round(statistics.median(walls), 3),
                         round(min(walls), 3), round(statistics.median(hosts), 3),
                         round(torch.cuda.max_memory_allocated() / 2**30, 3),
                         round(torch.cuda.max_memory_reserved() / 2**30, 3)))
            print("8b", rows[-1], flush=True)
            wr(path, rows, hdr)
        del model
        torch.cuda.empty_cache()


def train_steps(torch, out, iters):
    """Whole training steps of one micro-batch, pure bf16 (the model's
    parameters, gradients and AdamW's states in bf16, no fp32 master, as
    torchtune's recipes): the optimizer step's time alone (CUDA events around
    opt.step()) and the peak memory allocated and reserved over the step, for
    AdamW's foreach and fused implementations."""
    rows = []
    path = os.path.join(out, "steps.csv")
    hdr = ("model", "layers", "seq", "mb", "optimizer_impl", "step_ms_median", "opt_ms_median",
           "peak_alloc_gib", "peak_reserved_gib", "params")
    for shape, layers, plan in (("llama3.2-1b-shape", 16, ((2048, 1), (2048, 4))),
                                ("llama3-8b-shape", 32, ((2048, 1),))):
        for impl in ("fused", "foreach"):
            try:
                rows.extend(step_rows(torch, shape, layers, plan, impl, iters, rows, path, hdr))
            except torch.OutOfMemoryError as e:
                print("step", shape, impl, "out of memory:", str(e)[:200], flush=True)
                rows.append((shape, layers, "", "", impl, "oom", "", "", "", ""))
                wr(path, rows, hdr)
            torch.cuda.empty_cache()


def step_rows(torch, shape, layers, plan, impl, iters, done, path, hdr):
    """train_steps' rows of one model and AdamW implementation."""
    model = llama(torch, layers, 1, shape)
    npar = sum(p.numel() for p in model.parameters())
    kw = {"foreach": True} if impl == "foreach" else {"fused": True}
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, **kw)
    rows = []
    for seq, mb in plan:
        ids = torch.randint(0, 1000, (mb, seq), device="cuda")
        for _ in range(2):
            mb_call(model, ids)
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        st, ot = [], []
        for _ in range(iters):
            e0, e1, e2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
            torch.cuda.synchronize()
            e0.record()
            mb_call(model, ids)
            e1.record()
            opt.step()
            e2.record()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            st.append(e0.elapsed_time(e2))
            ot.append(e1.elapsed_time(e2))
        rows.append((shape, layers, seq, mb, impl, round(statistics.median(st), 3),
                     round(statistics.median(ot), 3),
                     round(torch.cuda.max_memory_allocated() / 2**30, 3),
                     round(torch.cuda.max_memory_reserved() / 2**30, 3), npar))
        print("step", rows[-1], flush=True)
        wr(path, done + rows, hdr)
    return rows


def clock2(torch, out, seconds, nv, h):
    """The burst after an idle GPU and the sustained rate under fp8: a bf16
    8192^3 GEMM timed one by one after 15 s idle (the first 40), then an fp8
    (e4m3, per-tensor scales, torch._scaled_mm) 8192^3 GEMM repeated for
    `seconds`, as sustain.csv."""
    n = 8192
    fl = 2.0 * n ** 3
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    time.sleep(15)
    rows = []
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(40)]
    for e0, e1 in ev:
        e0.record()
        torch.mm(a, b, out=c)
        e1.record()
    torch.cuda.synchronize()
    for i, (e0, e1) in enumerate(ev):
        t = e0.elapsed_time(e1) * 1e3
        rows.append(("bf16_cold", i, round(t, 1), round(fl / t / 1e6, 1)) + clocks(nv, h))
    print("cold bf16", rows[1], rows[10], rows[-1], flush=True)
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def mm8():
        return torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

    mm8()
    torch.cuda.synchronize()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    t_start = time.perf_counter()
    i = 0
    while time.perf_counter() - t_start < seconds:
        e0.record()
        for _ in range(300):
            mm8()
        e1.record()
        torch.cuda.synchronize()
        t = e0.elapsed_time(e1) / 300 * 1e3
        rows.append(("fp8_sustained", i, round(t, 1), round(fl / t / 1e6, 1)) + clocks(nv, h))
        i += 1
    print("fp8 first", rows[40], "last", rows[-1], flush=True)
    wr(os.path.join(out, "clock2.csv"), rows,
       ("what", "index", "gemm_us", "tflops", "sm_mhz", "power_w", "temp_c"))


def alloc(torch, out):
    """What PyTorch's caching allocator holds beyond the tensors: the cuBLAS
    workspace a stream's first GEMM allocates (plain cublas through
    torch.mm and cublasLt through F.linear with a bias), again on a second
    and a third stream; and AdamW's temporaries during step() (foreach and
    fused) over 64 bf16 parameters of 4 Mi elements (512 MiB): peak
    allocated during the step less allocated before it."""
    import torch.nn.functional as F
    rows = []
    mib = 2.0 ** 20
    env = os.environ.get("CUBLAS_WORKSPACE_CONFIG", "")
    torch.cuda.synchronize()
    x = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(256, device="cuda", dtype=torch.bfloat16)
    keep = []

    def delta(fn, what):
        torch.cuda.synchronize()
        a0 = torch.cuda.memory_allocated()
        r0 = torch.cuda.memory_reserved()
        y = fn()
        torch.cuda.synchronize()
        keep.append(y)
        a1 = torch.cuda.memory_allocated() - y.numel() * y.element_size()
        rows.append((what, round((a1 - a0) / mib, 3),
                     round((torch.cuda.memory_reserved() - r0) / mib, 3), env))
        print("alloc", rows[-1], flush=True)

    delta(lambda: x @ w, "mm default stream (first GEMM)")
    delta(lambda: x @ w, "mm default stream (second GEMM)")
    delta(lambda: F.linear(x, w, bias), "linear+bias default stream")
    for k in (1, 2):
        st = torch.cuda.Stream()
        with torch.cuda.stream(st):
            delta(lambda: x @ w, f"mm new stream {k}")
            delta(lambda: F.linear(x, w, bias), f"linear+bias new stream {k}")
    del keep[:]
    for impl in ("foreach", "fused"):
        ps = [torch.nn.Parameter(torch.randn(4 * 2 ** 20, device="cuda",
                                             dtype=torch.bfloat16)) for _ in range(64)]
        for p_ in ps:
            p_.grad = torch.randn_like(p_)
        kw = {"foreach": True} if impl == "foreach" else {"fused": True}
        opt = torch.optim.AdamW(ps, lr=1e-5, **kw)
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        a0 = torch.cuda.memory_allocated()
        opt.step()
        torch.cuda.synchronize()
        rows.append((f"AdamW {impl} step temporaries over 512 MiB of bf16 params",
                     round((torch.cuda.max_memory_allocated() - a0) / mib, 3), "", env))
        print("alloc", rows[-1], flush=True)
        del ps, opt
        torch.cuda.empty_cache()
    wr(os.path.join(out, "alloc.csv"), rows,
       ("what", "allocated_mib", "reserved_mib", "CUBLAS_WORKSPACE_CONFIG"))


def mix(torch, out, seconds, nv, h):
    """Does other work on the chip lower the GEMM's clock? An 8192^3 bf16 GEMM
    repeated on one stream for `seconds` while a second stream copies 1 GiB
    back to back (HBM-bound, on some of the SMs), then the GEMM alone again:
    its rate, the SM clock and the power per window."""
    n = 8192
    fl = 2.0 * n ** 3
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    src = torch.empty(2 ** 30, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    sa, sb = torch.cuda.Stream(), torch.cuda.Stream()
    rows = []
    for what, copies in (("gemm_alone", False), ("gemm_with_copies", True),
                         ("gemm_alone_after", False)):
        t_start = time.perf_counter()
        i = 0
        while time.perf_counter() - t_start < seconds:
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            if copies:
                with torch.cuda.stream(sb):
                    for _ in range(300):
                        dst.copy_(src)
            with torch.cuda.stream(sa):
                e0.record(sa)
                for _ in range(100):
                    torch.mm(a, b, out=c)
                e1.record(sa)
            e1.synchronize()
            t = e0.elapsed_time(e1) / 100 * 1e3
            rows.append((what, i, round(t, 1), round(fl / t / 1e6, 1)) + clocks(nv, h))
            torch.cuda.synchronize()
            i += 1
        print("mix", what, rows[-1], flush=True)
    wr(os.path.join(out, "mix.csv"), rows,
       ("what", "index", "gemm_us", "tflops", "sm_mhz", "power_w", "temp_c"))


def bench(torch, fn, min_s=0.15, min_iters=5):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    fn()
    e1.record()
    torch.cuda.synchronize()
    one = max(e0.elapsed_time(e1) / 1e3, 1e-6)
    n = max(min_iters, int(min_s / one))
    e0.record()
    for _ in range(n):
        fn()
    e1.record()
    torch.cuda.synchronize()
    return e0.elapsed_time(e1) / n * 1e3  # us


def membw(torch, out):
    import torch.nn.functional as F
    rows = []
    for mib in (64, 512):
        n = mib * 2**20 // 2  # bf16 elements
        x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        z = torch.empty_like(x)
        h = 2048
        x2 = x.view(-1, h)
        wt = torch.ones(h, device="cuda", dtype=torch.bfloat16)

        def rms():
            v = x2.float()
            r = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-5)
            return wt * r.to(torch.bfloat16)

        e = 2 * n
        cases = [("copy", lambda: z.copy_(x), 2 * e, 1),
                 ("add", lambda: torch.add(x, y, out=z), 3 * e, 1),
                 ("silu_mul", lambda: F.silu(x) * y, 4 * e + e, 2),
                 ("rmsnorm_eager_fp32", rms, None, None)]
        for name, fn, by, nk in cases:
            t = bench(torch, fn)
            gbs = "" if by is None else round(by / (t * 1e-6) / 1e9, 1)
            rows.append((name, mib, round(t, 2), by if by else "", nk if nk else "", gbs))
            print("membw", rows[-1], flush=True)
        del x, y, z
        torch.cuda.empty_cache()
    wr(os.path.join(out, "membw.csv"), rows,
       ("kernel", "tensor_mib", "time_us", "bytes_moved", "kernels", "GBps"))


def gemms(torch, out, nv, h):
    import torch.nn.functional as F
    models = {"llama3-8b": (4096, 14336, 32, 8, 128), "llama3-70b": (8192, 28672, 64, 8, 128)}
    rows = []
    path = os.path.join(out, "gemm.csv")
    hdr = ("model", "tp", "gemm", "pass", "m", "n", "k", "time_us", "tflops", "sm_mhz")
    for mname, (hd, ff, a, g, dh) in models.items():
        for tp in (1, 2, 4, 8):
            shapes = {"qkv": ((a + 2 * g) * dh // tp, hd), "o": (hd, a * dh // tp),
                      "fc1": (2 * ff // tp, hd), "fc2": (hd, ff // tp)}
            for T in (2048, 8192, 16384):
                for gname, (n, k) in shapes.items():
                    x = torch.randn(T, k, device="cuda", dtype=torch.bfloat16)
                    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
                    t = bench(torch, lambda: F.linear(x, w))
                    fl = 2.0 * T * n * k
                    rows.append((mname, tp, gname, "fwd", T, n, k, round(t, 2),
                                 round(fl / t / 1e6, 1), clocks(nv, h)[0]))
                    if T != 8192:
                        dy = torch.randn(T, n, device="cuda", dtype=torch.bfloat16)
                        t = bench(torch, lambda: dy.t().mm(x))
                        rows.append((mname, tp, gname, "wgrad", n, k, T, round(t, 2),
                                     round(fl / t / 1e6, 1), clocks(nv, h)[0]))
                        del dy
                    del x, w
            print("gemm", mname, tp, rows[-1], flush=True)
            wr(path, rows, hdr)
    torch.cuda.empty_cache()


def sustain(torch, out, seconds, nv, h):
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    fl = 2.0 * n ** 3
    rows = []
    t_start = time.perf_counter()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    while time.perf_counter() - t_start < seconds:
        e0.record()
        for _ in range(200):
            torch.mm(a, b, out=c)
        e1.record()
        torch.cuda.synchronize()
        t = e0.elapsed_time(e1) / 200 * 1e3
        rows.append((round(time.perf_counter() - t_start, 2), round(t, 1),
                     round(fl / t / 1e6, 1)) + clocks(nv, h))
    print("sustain first", rows[0], "last", rows[-1], flush=True)
    wr(os.path.join(out, "sustain.csv"), rows,
       ("t_s", "gemm_us", "tflops", "sm_mhz", "power_w", "temp_c"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--op-calls", type=int, default=300)
    ap.add_argument("--sustain-s", type=float, default=40.0)
    ap.add_argument("--only", default="env,ops,kernels,microbatch,membw,gemm,sustain,hostsplit,"
                    "predict,steps,clock2,alloc,mix")
    o = ap.parse_args()
    import torch
    os.makedirs(o.out, exist_ok=True)
    nv, h = nvml_handle()
    steps = {"env": lambda: env(torch, o.out), "ops": lambda: ops(torch, o.out, o.op_calls),
             "kernels": lambda: kernels(torch, o.out),
             "microbatch": lambda: microbatches(torch, o.out, o.iters),
             "membw": lambda: membw(torch, o.out), "gemm": lambda: gemms(torch, o.out, nv, h),
             "sustain": lambda: sustain(torch, o.out, o.sustain_s, nv, h),
             "hostsplit": lambda: hostsplit(torch, o.out, o.iters),
             "predict": lambda: predict(torch, o.out, o.iters),
             "steps": lambda: train_steps(torch, o.out, o.iters),
             "clock2": lambda: clock2(torch, o.out, o.sustain_s, nv, h),
             "alloc": lambda: alloc(torch, o.out),
             "mix": lambda: mix(torch, o.out, o.sustain_s, nv, h)}
    for name in o.only.split(","):
        t0 = time.perf_counter()
        try:
            steps[name]()
        except Exception as e:  # noqa: BLE001 - one section's failure keeps the others
            import traceback
            traceback.print_exc()
            print(f"section {name} failed: {e}", flush=True)
        print(f"section {name}: {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
