#!/usr/bin/env bash
# exact.sh PODSIM - the sweep's exact search (sim/sweep/exact.c) end to end:
#  a) the lower bound is admissible: on spaces with pipelines, interleaving,
#     ZB-H1, ZeRO, recomputation, TP overlap, MoE experts (and their
#     all-to-all overlap), parameter offload
#     and the overlapped parameter gather, no simulated
#     plan's step is under its pre-screen bound_s (estimate.c, bound_of);
#  b) the default search finds the best plan an exhaustive simulation finds
#     (--top past the space's size), simulating fewer plans, and says exact;
#  c) --max-sims smaller than its second round: marked not proven, with the
#     number of plans left out; --top: marked approximate;
#  d) bad --max-sims: exit 2.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 484 plans fit; the pre-screen's best 32 leave 16 whose bound is under their best
text=(scenarios/quickstart.ini --vary parallel.tp=auto --vary parallel.pp=auto
	--vary parallel.micro_batch=auto --vary parallel.zero=0,1
	--vary parallel.overlap_grad_reduce=auto --vary parallel.schedule=auto --no-db)
space=("${text[@]}" --json)

# --- a) admissible bounds ------------------------------------------------------
check_bounds() { # file label
	python3 - "$1" "$2" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = [(p["plan"], p["prescreen"]["bound_s"], p["step_s"]) for p in d["plans"]
       if not p["prescreen"]["bound_s"] <= p["step_s"]]
if not d["plans"] or bad:
    print("a) %s: %d plans, bound above the simulated step: %s" % (sys.argv[2], len(d["plans"]), bad[:3]))
    sys.exit(1)
PY
}
"$podsim" sweep "${space[@]}" --top 1000 >"$tmp/all.json" 2>/dev/null || { echo "exhaustive sweep failed"; fail=1; }
check_bounds "$tmp/all.json" quickstart
"$podsim" sweep scenarios/quickstart.ini --vary parallel.tp=1,2 --vary parallel.pp=2,4 \
	--vary parallel.vpp=auto --vary parallel.micro_batch=1,4 --vary parallel.sequence_parallel=auto \
	--top 1000 --no-db --json >"$tmp/v.json" 2>/dev/null || { echo "vpp sweep failed"; fail=1; }
check_bounds "$tmp/v.json" "quickstart interleaved"
"$podsim" sweep scenarios/quickstart.ini --vary parallel.tp=1,2 --vary parallel.pp=1,2,4 \
	--vary parallel.micro_batch=1,4 --vary parallel.zero=0,1,3 --vary parallel.recompute=auto \
	--vary parallel.tp_comm_overlap=auto --top 1000 --no-db --json >"$tmp/z.json" 2>/dev/null ||
	{ echo "zero sweep failed"; fail=1; }
check_bounds "$tmp/z.json" "quickstart zero/recompute"
"$podsim" sweep scenarios/mixtral-8x7b-h100.ini --vary parallel.tp=1,2 --vary parallel.pp=1,2,4 --vary parallel.vpp=1,2 \
	--vary parallel.ep=2,8 --top 1000 --no-db --json >"$tmp/moe.json" 2>/dev/null ||
	{ echo "MoE sweep failed"; fail=1; }
check_bounds "$tmp/moe.json" mixtral
# Megatron-Core's combined 1F1B (moe_a2a_overlap) with deferred weight
# gradients: the bound keeps no suffix after the last backward (bound_of)
"$podsim" sweep scenarios/mixtral-8x7b-h100.ini --set model.layers=8 --set parallel.vpp=2 \
	--set parallel.moe_a2a_overlap=true --set parallel.delay_wgrad_compute=true \
	--vary parallel.tp=1,2 --vary parallel.pp=1,2,4 --vary parallel.vpp=1,2 --vary parallel.ep=2,8 \
	--vary parallel.micro_batch=1,2 --top 1000 --no-db --json >"$tmp/a2a.json" 2>/dev/null ||
	{ echo "MoE a2a overlap sweep failed"; fail=1; }
check_bounds "$tmp/a2a.json" "mixtral a2a overlap"
# ZeRO-3 with its parameters offloaded to the CPU, and the parameter
# all-gather under the next forward (the bound counts neither)
"$podsim" sweep scenarios/llama2-13b-zero-offload.ini --vary parallel.zero=1,3 \
	--vary parallel.offload_params=auto --vary parallel.overlap_param_gather=auto \
	--vary parallel.micro_batch=1,2 --top 1000 --no-db --json >"$tmp/off.json" 2>/dev/null ||
	{ echo "offload sweep failed"; fail=1; }
check_bounds "$tmp/off.json" "llama2-13b offload"

# --- b) exact = exhaustive ---------------------------------------------------------
"$podsim" sweep "${space[@]}" >"$tmp/exact.json" 2>/dev/null || { echo "exact sweep failed"; fail=1; }
python3 - "$tmp/all.json" "$tmp/exact.json" <<'PY' || fail=1
import json, sys
a, e = (json.load(open(f)) for f in sys.argv[1:])
best_a, best_e = a["plans"][0], e["plans"][0]
s = e["search"]
ok = (best_a["plan"] == best_e["plan"] and best_a["step_s"] == best_e["step_s"]
      and s["exact"] and s["proven"] and s["first_round"] == 32 and s["left_out"] == 0
      and 32 < e["simulated"] < a["simulated"] == a["fitting"])
if not ok:
    print("b) exact %s %s (%d simulated, %s) vs exhaustive %s %s (%d)" % (
        best_e["plan"], best_e["step_s"], e["simulated"], s, best_a["plan"], best_a["step_s"],
        a["simulated"]))
    sys.exit(1)
PY

# --- c) capped, and --top ------------------------------------------------------------
"$podsim" sweep "${space[@]}" --max-sims 1 >"$tmp/cap.json" 2>/dev/null || { echo "capped sweep failed"; fail=1; }
want=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(e["simulated"] - 33)' "$tmp/exact.json")
grep -q "\"search\":{\"exact\":true,\"proven\":false,\"first_round\":32,\"threshold_s\":[0-9.e+-]*,\"left_out\":$want}" "$tmp/cap.json" ||
	{ echo "c) capped: $(grep -o '"search":{[^}]*}' "$tmp/cap.json"), want left_out $want"; fail=1; }
"$podsim" sweep "${text[@]}" --max-sims 1 2>/dev/null | grep -q "^search: not proven: $want plans whose lower bound is under" ||
	{ echo "c) no 'not proven' line"; fail=1; }
"$podsim" sweep "${space[@]}" --top 4 2>/dev/null | grep -q '"search":{"exact":false,"proven":false,"first_round":4,"threshold_s":null,"left_out":0}' ||
	{ echo "c) --top not marked approximate"; fail=1; }

# --- d) bad input --------------------------------------------------------------------
for v in 0 -3 x; do
	"$podsim" sweep scenarios/quickstart.ini --max-sims "$v" --no-db >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "d) --max-sims $v: not exit 2"; fail=1; }
done
exit $fail
