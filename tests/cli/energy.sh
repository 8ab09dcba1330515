#!/usr/bin/env bash
# energy.sh PODSIM - run --json carries the energy terms the text prints, each
# with its source, and they add up: scenarios/quickstart.ini, 16 A100 at
# 400 W TDP on 2 nodes of 3,300 W ([node] power), PUE 1:
#   GPU 6.4 kW + nodes 6.6 kW = 13 kW facility; energy = 13 kW x step hours;
#   CO2 = energy x 0.423 kg/kWh; the GPUs alone at TDP = 6.4 kW x step hours.
# runs show --json gives the same member from the stored scenario. A mixed
# cluster's GPUs at their own TDPs (below).
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$podsim" run scenarios/quickstart.ini --db "$tmp/r.db" --json >"$tmp/run.json" 2>/dev/null ||
	{ echo "run --json failed"; fail=1; }
"$podsim" run scenarios/quickstart.ini --no-db >"$tmp/run.txt" 2>/dev/null
"$podsim" runs show 1 --db "$tmp/r.db" --json >"$tmp/show.json" 2>/dev/null ||
	{ echo "runs show --json failed"; fail=1; }
python3 - "$tmp/run.json" "$tmp/show.json" "$tmp/run.txt" <<'PY' || fail=1
import json, re, sys
run = json.load(open(sys.argv[1]))
show = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
e = run["energy_per_step"]
bad = []
def near(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)
h = run["step_time_s"] / 3600
checks = [
    (e["gpus"], 16), (e["gpu_power_w"], 400), (e["gpu_kw"], 6.4), (e["nodes"], 2),
    (e["node_overhead_w"], 3300), (e["node_kw"], 6.6), (e["pue"], 1),
    (e["facility_kw"], 13), (e["hours"], h), (e["energy_kwh"], 13 * h),
    (e["co2_kg"], 13 * h * 0.423), (e["gpus_at_tdp_pue1_kwh"], 6.4 * h),
]
for got, want in checks:
    if not near(got, want, 1e-6):
        bad.append(f"{got} != {want}")
if e["gpu_power_source"] != "TDP, a100-sxm4-80g [gpu] tdp" or e["node_overhead_source"] != "[node] power":
    bad.append("sources: " + e["gpu_power_source"] + " / " + e["node_overhead_source"])
if show.get("energy_per_step") != e:
    bad.append("runs show --json differs: %s" % show.get("energy_per_step"))
m = re.search(r"energy +13 kW x [0-9.e+-]+ h = ([0-9.]+) Wh", text)
if not m or not near(float(m.group(1)), 13 * h * 1e3, 1e-3):
    bad.append("text energy line: %s" % (m.group(0) if m else "missing"))
if bad:
    print("run --json energy:", *bad, sep="\n  ")
    sys.exit(1)
PY
# A cluster with nodes of another GPU type counts each GPU at its own TDP:
# the quickstart's 2 nodes of 8 A100 80GB (400 W) with node 1 holding H100
# SXM5 (700 W, topologies/gpus/h100-sxm5-80g.ini): 8 x 400 W + 8 x 700 W =
# 3.2 + 5.6 = 8.8 kW, in the text and the JSON (other_gpus 8 at 700 W), and
# Llama 2's figure from the same sum.
mix=(scenarios/quickstart.ini --set cluster.other_gpu=topologies/gpus/h100-sxm5-80g.ini
	--set cluster.other_nodes=1 --no-db)
"$podsim" run "${mix[@]}" >"$tmp/mix.txt" 2>/dev/null || { echo "mixed run failed"; fail=1; }
grep -q '^  GPU power       8 x 400 W + 8 x 700 W = 8.8 kW (TDP, a100-sxm4-80g \[gpu\] tdp; h100-sxm5-80g \[cluster\] other_gpu)$' \
	"$tmp/mix.txt" || { echo "mixed GPU power line:"; grep 'GPU power' "$tmp/mix.txt"; fail=1; }
"$podsim" run "${mix[@]}" --json 2>/dev/null | python3 -c '
import json, sys
e = json.load(sys.stdin)["energy_per_step"]
h = e["hours"]
ok = e["other_gpus"] == 8 and e["other_gpu_power_w"] == 700 and abs(e["gpu_kw"] - 8.8) < 1e-9 \
    and abs(e["gpus_at_tdp_pue1_kwh"] - 8.8 * h) < 1e-6 * 8.8 * h
sys.exit(0 if ok else 1)' || { echo "mixed energy JSON"; fail=1; }
exit $fail
