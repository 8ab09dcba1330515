#!/usr/bin/env bash
# explain-buckets.sh PODSIM - `podsim explain` section 5 prints the gradient
# buckets the task graph reduces (plan_grad_buckets, plan/buckets.c): its list
# is compared with the DP tasks of stage 0 in the Chrome trace of the same
# scenario (`podsim run --trace`), on the quickstart (tp 2, pp 2, dp 4, m = 8,
# 12 layers a stage, Megatron-Core's profile, ZeRO-0 all-reduces inside one
# node):
#  - plain: vpp 1 without overlap: one bucket, after the whole backward;
#  - interleaved: vpp 2 with overlap_grad_reduce: chunk 1 (layers 6-11) one
#    bucket, chunk 0 split at the 40M-parameter bucket after the tensor that
#    fills it (a layer 31,872,384 a rank, test_plan's
#    test_grad_buckets_by_tensor): layer 5 and layer 4's fc2, the rest of 4
#    and layer 3's fc2 and fc1, the rest of 3 and layer 2 to its qkv, the
#    rest of 2, layer 1 and layer 0's fc2, the rest of 0 with the embedding:
#    5 buckets, lowest layers 4, 3, 2, 0, 0; each chunk's launched after its
#    aligned backward step (14 and 16 of 16).
# For each bucket: the same count and order, its lowest layer (the task's
# layer), its bytes (the trace's per-port bytes are the ring's 2(n-1)/n of
# them, n = 4), its time (the replay's duration, within 0.1 %: one node, no
# NIC sharing), and its start not before the end of the backward step explain
# names (micro-batch and chunk of the stage's k-th backward step in the trace).
set -u
podsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() { # NAME ARGS...
	local name=$1
	shift
	"$podsim" explain scenarios/quickstart.ini "$@" >"$tmp/$name.txt" 2>/dev/null ||
		{ echo "explain $name failed"; fail=1; return; }
	"$podsim" run scenarios/quickstart.ini --no-db --trace "$tmp/$name.json" "$@" \
		>/dev/null 2>&1 || { echo "run $name failed"; fail=1; return; }
	python3 - "$tmp/$name.txt" "$tmp/$name.json" "$name" <<'EOF' || fail=1
import json, re, sys
text, trace, name = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
ev = trace["traceEvents"] if isinstance(trace, dict) else trace
UNIT = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
head = re.search(r"^  buckets +(\d+) all-reduces? ", text, re.M)
rows = re.findall(r"^ +\d+  layers (\d+)(?:-\d+)? +chunk (\d+)  ([\d.]+) (\w+) +"
                  r"(aligned, after backward step (\d+) of (\d+)|after the stage's whole "
                  r"backward|when layer \d+'s last backward ends)[^:]*: ([\d.]+) (\w+)$",
                  text, re.M)
dp = sorted((e for e in ev if e.get("pid") == 0 and e.get("cat") == "dp"
             and e["args"]["layer"] >= 0), key=lambda e: e["ts"])
bwd = sorted((e for e in ev if e.get("pid") == 0 and e.get("cat") == "bwd"),
             key=lambda e: e["ts"])
lpc = 6 if name == "interleaved" else 12  # layers a chunk
steps = []  # (mb, chunk, end in us) per backward step, in order
for e in bwd:
    layer = e["args"]["layer"]  # -1: the embedding's backward, chunk 0's on stage 0
    key = (e["args"]["mb"], layer // lpc if layer >= 0 else 0)
    if not steps or steps[-1][:2] != list(key):
        steps.append([key[0], key[1], 0.0])
    steps[-1][2] = max(steps[-1][2], e["ts"] + e["dur"])
bad = []
if not head or int(head.group(1)) != len(rows):
    bad.append("explain's count and its lines differ")
if len(rows) != len(dp):
    bad.append(f"explain lists {len(rows)} buckets, the graph has {len(dp)}")
for r, e in zip(rows, dp):
    low, chunk, size, unit, launch, step, nsteps, t, tu = r
    size = float(size) * UNIT[unit]
    got = e["args"]["scaleup_bytes"] + e["args"]["nic_bytes"]
    if int(low) != e["args"]["layer"]:
        bad.append(f"bucket from layer {low}: the graph's task holds layer {e['args']['layer']}")
    if abs(got - 1.5 * size) > 1e-5 * got:
        bad.append(f"bucket from layer {low}: {size:.6g} B, the graph moves {got:.6g} B per port")
    if abs(float(t) * TIME[tu] - e["dur"] * 1e-6) > 1e-3 * e["dur"] * 1e-6:
        bad.append(f"bucket from layer {low}: {t} {tu}, the graph's task {e['dur']} us")
    k = int(step) - 1 if step else len(steps) - 1
    # on stage 0 a chunk goes after its own last micro-batch's backward (mb 7)
    if step and (int(nsteps) != len(steps) or steps[k][:2] != [7, int(chunk)]):
        bad.append(f"bucket from layer {low}: step {step} of {nsteps} is not its chunk's last")
    if e["ts"] < steps[k][2] - 1e-3:
        bad.append(f"bucket from layer {low} starts at {e['ts']} us, before step {k + 1} ends")
want = {"plain": [("0", "0", "")], "interleaved": [("6", "1", "14"), ("4", "0", "16"),
                                                    ("3", "0", "16"), ("2", "0", "16"),
                                                    ("0", "0", "16"), ("0", "0", "16")]}[name]
if [(r[0], r[1], r[5]) for r in rows] != want:
    bad.append(f"buckets {[(r[0], r[1], r[5]) for r in rows]}, want {want}")
for b in bad:
    print(f"explain-buckets {name}: {b}")
sys.exit(1 if bad else 0)
EOF
}

check plain
check interleaved --set parallel.vpp=2 --set parallel.overlap_grad_reduce=true
exit $fail
