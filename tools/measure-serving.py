#!/usr/bin/env python3
"""measure-serving.py - time the iterations of a serving engine on this
machine's GPU with PyTorch and write rows in the schema of
tests/cases/serving.csv, for `podsim validate`:

    tools/measure-serving.py --gpu h200-sxm-141g > tests/cases/serving-h200.csv
    podsim validate tests/cases/serving-h200.csv

--gpu is podsim's name of the GPU type (topologies/gpus/NAME.ini). Not run in CI.

The model is Llama 2 7B's shape (32 layers, hidden 4096, 32 heads, SwiGLU
ffn 11008, vocabulary 32000) with random bf16 weights on one GPU (timing does
not depend on the values). Each layer: RMSNorm, the fused QKV GEMM, attention
through torch's scaled_dot_product_attention over a contiguous KV cache, the
output GEMM, a residual add, RMSNorm, the fused gate/up GEMM, SiLU x up, the
down GEMM, a residual add (no rotary embedding: an element-wise pass podsim
counts, left out here). The last position's logits [b, 4096] x [4096, 32000].
Every step is captured once in a CUDA graph and replayed --iters times
between two CUDA events (engine "PyTorch-graphs": the engine profile
topologies/serving/torch-graphs.ini says what that runtime does):
  - itl_mean: one decode step of b requests at context 640 (a static batch of
    512 prompt and 256 output tokens decodes at contexts 513..767; the step is
    linear in the context, so its mean is the step at 640);
  - ttft: the prefill of one prompt (512 or 2048 tokens) and its first token.
Clocks, power limits and other processes change the numbers: the note column
holds the device name and torch version.
"""
import argparse
import csv
import sys

COLS = ("id,source,engine,model,layers,hidden,heads,kv_heads,ffn,vocab,activation,gpu,gpus,"
        "node_intra,tp,pp,precision,kv_precision,batching,batch_size,concurrency,input_tokens,"
        "output_tokens,measured_metric,measured_value,measured_unit,confidence,note").split(",")
L, H, A, G, FF, V = 32, 4096, 32, 32, 11008, 32000
D = H // A


def build(torch):
    dev, dt = "cuda", torch.bfloat16
    g = torch.Generator(device=dev).manual_seed(0)

    def w(*shape):
        return torch.randn(*shape, device=dev, dtype=dt, generator=g) * 0.02

    layers = [dict(n1=torch.ones(H, device=dev, dtype=dt), n2=torch.ones(H, device=dev, dtype=dt),
                   qkv=w(H, (A + 2 * G) * D), o=w(A * D, H), gu=w(H, 2 * FF), dn=w(FF, H))
              for _ in range(L)]
    return layers, w(H, V)


def rms(torch, x, wt):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(x.dtype) * wt


def layer_fwd(torch, F, p, x, kc, vc, start, causal):
    """x [b, s, H]; kc, vc [b, G, T, D]; writes positions start..start+s-1
    and attends over 0..start+s-1."""
    b, s, _ = x.shape
    y = rms(torch, x, p["n1"]) @ p["qkv"]
    q, k, v = y.split([A * D, G * D, G * D], dim=-1)
    q = q.view(b, s, A, D).transpose(1, 2)
    kc[:, :, start:start + s] = k.view(b, s, G, D).transpose(1, 2)
    vc[:, :, start:start + s] = v.view(b, s, G, D).transpose(1, 2)
    o = F.scaled_dot_product_attention(q, kc[:, :, :start + s], vc[:, :, :start + s],
                                       is_causal=causal)
    x = x + o.transpose(1, 2).reshape(b, s, A * D) @ p["o"]
    gu = rms(torch, x, p["n2"]) @ p["gu"]
    gate, up = gu.split([FF, FF], dim=-1)
    return x + (F.silu(gate) * up) @ p["dn"]


def graph_time_ms(torch, fn, iters):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    gr = torch.cuda.CUDAGraph()
    with torch.cuda.graph(gr):
        fn()
    for _ in range(3):
        gr.replay()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        gr.replay()
    b.record()
    torch.cuda.synchronize()
    del gr
    return a.elapsed_time(b) / iters


def decode_ms(torch, F, layers, head, batch, ctx, iters):
    dev, dt = "cuda", torch.bfloat16
    kcs = [torch.zeros(batch, G, ctx, D, device=dev, dtype=dt) for _ in range(L)]
    vcs = [torch.zeros(batch, G, ctx, D, device=dev, dtype=dt) for _ in range(L)]
    x0 = torch.randn(batch, 1, H, device=dev, dtype=dt)

    def step():
        x = x0
        for p, kc, vc in zip(layers, kcs, vcs):
            x = layer_fwd(torch, F, p, x, kc, vc, ctx - 1, False)
        return x[:, -1] @ head

    t = graph_time_ms(torch, step, iters)
    del kcs, vcs
    torch.cuda.empty_cache()
    return t


def prefill_ms(torch, F, layers, head, tokens, iters):
    dev, dt = "cuda", torch.bfloat16
    kcs = [torch.zeros(1, G, tokens, D, device=dev, dtype=dt) for _ in range(L)]
    vcs = [torch.zeros(1, G, tokens, D, device=dev, dtype=dt) for _ in range(L)]
    x0 = torch.randn(1, tokens, H, device=dev, dtype=dt)

    def step():
        x = x0
        for p, kc, vc in zip(layers, kcs, vcs):
            x = layer_fwd(torch, F, p, x, kc, vc, 0, True)
        return x[:, -1] @ head

    t = graph_time_ms(torch, step, iters)
    del kcs, vcs
    torch.cuda.empty_cache()
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", required=True, help="podsim GPU type, e.g. h200-sxm-141g")
    ap.add_argument("--node-intra", default="nvswitch-gen3")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--batches", default="1,16,64,128")
    ap.add_argument("--prompts", default="512,2048")
    ap.add_argument("--prefix", default="M")
    ap.add_argument("--from-raw", metavar="FILE",
                    help="write the rows of a raw run's output instead of measuring: lines "
                         "'dev NAME TORCH', 'itl BATCH MS', 'ttft TOKENS MS' (what this "
                         "file's functions print when run with a bare driver on a device)")
    args = ap.parse_args()
    if args.from_raw:
        raw = [ln.split() for ln in open(args.from_raw) if ln.strip()]
        dev = next(r for r in raw if r[0] == "dev")
        name, version = " ".join(dev[1:-1]), dev[-1]
    else:
        import torch
        import torch.nn.functional as F
        torch.backends.cuda.matmul.allow_tf32 = False
        layers, head = build(torch)
        name, version = torch.cuda.get_device_name(0), torch.__version__
    note = f"measured by tools/measure-serving.py on {name} with torch {version}"
    src = "tools/measure-serving.py (this repository), CUDA graphs, random bf16 weights"
    out = csv.DictWriter(sys.stdout, fieldnames=COLS, lineterminator="\n")
    out.writeheader()
    n = 0

    def row(metric, value, batch, inp, outp, what):
        nonlocal n
        n += 1
        out.writerow(dict(id=f"{args.prefix}{n:02d}", source=src, engine="PyTorch-graphs",
                          model="Llama 2 7B shape", layers=L, hidden=H, heads=A, kv_heads=G,
                          ffn=FF, vocab=V, activation="swiglu", gpu=args.gpu, gpus=1,
                          node_intra=args.node_intra, tp=1, pp=1, precision="bf16",
                          kv_precision="bf16", batching="static", batch_size=batch,
                          concurrency="", input_tokens=inp, output_tokens=outp,
                          measured_metric=metric, measured_value=f"{value:.4f}",
                          measured_unit="ms", confidence="exact", note=f"{what}; {note}"))
        sys.stdout.flush()

    if args.from_raw:
        for r in raw:
            if r[0] == "itl":
                row("itl_mean", float(r[2]), int(r[1]), 512, 256,
                    f"one decode step of {r[1]} requests at context 640")
            elif r[0] == "ttft":
                row("ttft", float(r[2]), 1, int(r[1]), 1,
                    f"prefill of {r[1]} tokens and the first token")
        return
    for b in [int(x) for x in args.batches.split(",")]:
        t = decode_ms(torch, F, layers, head, b, 640, args.iters)
        row("itl_mean", t, b, 512, 256, f"one decode step of {b} requests at context 640")
    for p in [int(x) for x in args.prompts.split(",")]:
        t = prefill_ms(torch, F, layers, head, p, max(5, args.iters // 5))
        row("ttft", t, 1, p, 1, f"prefill of {p} tokens and the first token")


if __name__ == "__main__":
    main()
