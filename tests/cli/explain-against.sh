#!/usr/bin/env bash
# explain-against.sh PODSIM - `podsim explain --against`: what makes a plan
# lose to the best of a space, or to a named plan.
#
#  a) the best of the quickstart's tp x pp x micro_batch space (auto) is the
#     sweep's rank 1 over the same space (the same exact search:
#     sweep_pick_best), and its step is what `podsim run` gives with the
#     --set line printed under it;
#  b) the terms sum to the difference of the steps (each stage's
#     categories sum to its step, exec_step_diff; the line prints 4
#     decimals, so within 6 x 0.00005 s of rounding);
#  c) explained with the best plan's own settings, the plan is the best and
#     the runner-up is explained against it; the runner-up is the sweep's
#     rank 2;
#  d) a named plan (--against tp=1,pp=1,micro_batch=8: dp derived from the
#     16 GPUs) is that plan;
#  e) bad input stops before any output, exit 2: a plan that does not run
#     (tp 3 does not divide 16 GPUs), a key that does not exist, --vary
#     without --against best;
#  f) the sweep's pp = auto keeps a pipeline depth that splits the layers
#     only with the scenario's own interleaving and end-stage layouts
#     (Llama 3 405B: 126 layers on pp 16 with vpp 4 and one layer on the
#     first and last virtual stage);
#  g) the search's plans run on the cores (sweep_pick_best's simulate_all),
#     kept in search order: the whole explanation on one CPU (taskset) is
#     the same text as on all of them.
set -u
podsim=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=scenarios/quickstart.ini

# --- a) the best is the sweep's rank 1 ---------------------------------------
"$podsim" explain "$q" --against best >"$tmp/a.txt" 2>"$tmp/a.err" || { bad "a) explain"; cat "$tmp/a.err"; }
"$podsim" sweep "$q" --vary parallel.tp=auto --vary parallel.pp=auto \
	--vary parallel.micro_batch=auto --no-db --json >"$tmp/s.json" 2>/dev/null || bad "a) sweep"
best_sets=$(sed -n '/^  best /{n;p;}' "$tmp/a.txt" | sed 's/^ *//')
best_step=$(sed -n 's/^  best .*: \([0-9.]*\) s$/\1/p' "$tmp/a.txt")
[ -n "$best_sets" ] && [ -n "$best_step" ] || bad "a) no best plan in: $(cat "$tmp/a.txt" | tail -8)"
python3 - "$tmp/s.json" "$best_step" <<'PY' || bad "a) best is not the sweep's rank 1"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["plans"]
r1 = rows[0]["step_s"]
ok = abs(r1 - float(sys.argv[2])) < 5e-5
print("sweep rank 1 %.4f, explain best %s" % (r1, sys.argv[2])) if not ok else None
sys.exit(0 if ok else 1)
PY
# shellcheck disable=SC2086
run_step=$("$podsim" run "$q" $best_sets --no-db --json 2>/dev/null |
	python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["step_time_s"])')
[ "$run_step" = "$best_step" ] || bad "a) run with '$best_sets' gives $run_step, not $best_step"

# --- b) the terms sum to the difference --------------------------------------
python3 - "$tmp/a.txt" <<'PY' || bad "b) terms do not sum to the difference"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^  terms .*?: ([+-][0-9.]+) s: (.*)$", t, re.M)
diff = float(m.group(1))
terms = [float(x) for x in re.findall(r" [a-z]+ ([+-][0-9.]+)", " " + m.group(2))]
this = float(re.search(r"^  this plan .*: ([0-9.]+) s, ([+-][0-9.]+) s", t, re.M).group(2))
ok = abs(sum(terms) - diff) <= 6 * 0.00005 and abs(diff - this) <= 0.00005
print("terms", terms, "sum", sum(terms), "diff", diff, "this", this) if not ok else None
sys.exit(0 if ok else 1)
PY
grep -q '^  loses on     [a-z]*: +' "$tmp/a.txt" || bad "b) no term named"

# --- c) the best explained against the runner-up -----------------------------
# shellcheck disable=SC2086
"$podsim" explain "$q" $best_sets --against best >"$tmp/c.txt" 2>/dev/null || bad "c) explain"
grep -q '^  best         this plan: no plan of the space simulates faster' "$tmp/c.txt" ||
	bad "c) the best plan is not called the best"
up=$(sed -n 's/^  runner-up .*: \([0-9.]*\) s$/\1/p' "$tmp/c.txt")
python3 - "$tmp/s.json" "$up" <<'PY' || bad "c) runner-up is not the sweep's rank 2"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["plans"]
ok = sys.argv[2] != "" and abs(rows[1]["step_s"] - float(sys.argv[2])) < 5e-5
sys.exit(0 if ok else 1)
PY
grep -q '^  terms        runner-up minus this plan: +' "$tmp/c.txt" || bad "c) runner-up's terms"

# --- d) a named plan ---------------------------------------------------------
"$podsim" explain "$q" --against tp=1,pp=1,micro_batch=8 >"$tmp/d.txt" 2>/dev/null || bad "d) explain"
grep -q '^  other        megatron-core tp1 cp1 pp1 vpp1 dp16 ep1 mb8 ' "$tmp/d.txt" ||
	bad "d) not the named plan: $(grep '^  other' "$tmp/d.txt")"
grep -q -- '--set parallel.tp=1 --set parallel.pp=1 --set parallel.micro_batch=8 --set parallel.dp=16' \
	"$tmp/d.txt" || bad "d) sets"

# --- e) bad input: nothing printed, exit 2 -----------------------------------
expect_bad() { # args... ; message
	local msg=${*: -1}
	"$podsim" explain "$q" "${@:1:$#-1}" >"$tmp/e.out" 2>"$tmp/e.err"
	local rc=$?
	[ "$rc" = 2 ] || bad "e) ${*:1:$#-1}: exit $rc"
	[ -s "$tmp/e.out" ] && bad "e) ${*:1:$#-1}: printed output"
	grep -qF -- "$msg" "$tmp/e.err" || bad "e) ${*:1:$#-1}: $(cat "$tmp/e.err")"
}
expect_bad --against tp=3 "--against tp=3: the plan does not run: tp*pp*cp = 3*2*1 = 6 does not divide the 16 GPUs"
expect_bad --against tpp=2 "--against parallel.tpp=2: parallel.tpp: not a configuration key"
expect_bad --against 4 "expected best or KEY=VALUE"
expect_bad --vary parallel.tp=1,2 "--vary gives the space of --against best"

# --- f) pp = auto with the scenario's layout ----------------------------------
"$podsim" sweep scenarios/llama3-405b-16k-h100.ini --vary parallel.pp=auto --no-db --json \
	>"$tmp/f.json" 2>/dev/null
python3 - "$tmp/f.json" <<'PY' || bad "f) pp 16 missing from the 405B sweep's pp = auto"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["plans"]
sys.exit(0 if any(r["settings"].get("parallel.pp") == "16" for r in rows) else 1)
PY

# g) one CPU and all of them: the same answer
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
	"$podsim" explain scenarios/llama3-8b-efa-nanotron.ini --against best >"$tmp/g1.txt" 2>&1 &&
		taskset -c 0 "$podsim" explain scenarios/llama3-8b-efa-nanotron.ini --against best \
			>"$tmp/g2.txt" 2>&1 && grep -q 'loses' "$tmp/g1.txt" &&
		cmp -s "$tmp/g1.txt" "$tmp/g2.txt" || { bad "explain --against on 1 and all CPUs"; diff "$tmp/g1.txt" "$tmp/g2.txt" | head; }
fi

exit $fail
