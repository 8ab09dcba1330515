#!/usr/bin/env bash
# sweep.sh PODSIM - `podsim sweep` and `podsim compare` end to end, from the
# source root: a tiny sweep finishes fast, its JSON has plans and pruned
# counts, its best plan is the best of the same plans run one by one with
# `podsim run --set`, its runs are stored under one sweep id, compare prints
# both runs and explains the difference, and bad input exits 2.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=scenarios/quickstart.ini

# --- a tiny sweep: tp 1, 2, 4, 8 on 16 GPUs with pp 2 (dp = 16 / (2 tp)) ----
# tp 8 x pp 2 = 16 leaves dp 1; all four are valid and fit, so --top 4
# simulates every plan.
start=$(date +%s%N)
"$podsim" sweep "$q" --vary parallel.tp=1,2,4,8 --top 4 --json --db "$tmp/s.db" \
	>"$tmp/s.json" 2>"$tmp/s.err"
rc=$?
end=$(date +%s%N)
[ $rc -eq 0 ] || { echo "sweep: exit $rc"; cat "$tmp/s.err"; fail=1; }
ms=$(((end - start) / 1000000))
[ "$ms" -lt 2000 ] || { echo "sweep took $ms ms (want < 2000)"; fail=1; }
grep -q '"plans":\[{"rank":1' "$tmp/s.json" || { echo "JSON has no plans"; fail=1; }
grep -q '"pruned":{' "$tmp/s.json" || { echo "JSON has no pruned"; fail=1; }
grep -q '"prescreen_plans_per_s":' "$tmp/s.json" || { echo "JSON has no rate"; fail=1; }
grep -q '"plans_total":4,"valid":4,"fitting":4,"simulated":4' "$tmp/s.json" ||
	{ echo "sweep counts differ: $(head -c 300 "$tmp/s.json")"; fail=1; }

# Sequence parallelism at tp 1 is its twin without it (nothing to scatter):
# of tp 1, 2 x SP true, false the twin is pruned, once, and not simulated.
"$podsim" sweep "$q" --vary parallel.tp=1,2 --vary parallel.sequence_parallel=true,false \
	--no-db >"$tmp/sp.txt" 2>&1 || { echo "SP sweep failed"; cat "$tmp/sp.txt"; fail=1; }
grep -q '^4 plans, 3 valid, 3 fit in memory, 3 simulated' "$tmp/sp.txt" &&
	grep -q '^ *1  sequence_parallel = true at tp = 1: the same plan as false' "$tmp/sp.txt" &&
	! grep -q 'tp=1 sequence_parallel=true' "$tmp/sp.txt" ||
	{ echo "SP sweep: the tp 1 twin not pruned:"; cat "$tmp/sp.txt"; fail=1; }
# Without false among the values it is the plan asked for, kept.
"$podsim" sweep "$q" --vary parallel.tp=1,2 --vary parallel.sequence_parallel=true \
	--no-db 2>&1 | grep -q '^2 plans, 2 valid' || { echo "SP sweep: lone true pruned"; fail=1; }

# Every simulated plan carries its memory verdict, the same as its run's.
[ "$(grep -o '"mem_verdict":"[a-z ]*"' "$tmp/s.json" | wc -l)" = 4 ] ||
	{ echo "sweep JSON: want a mem_verdict per plan"; fail=1; }
# With 22 GB of HBM the micro-batch 16 plan runs out of memory and is pruned
# for it; micro-batch 4, which a run calls tight, is kept and printed as tight.
"$podsim" sweep "$q" --vary parallel.micro_batch=4,16 --set gpu.hbm=22GB --top 2 --no-db \
	>"$tmp/m.txt" 2>"$tmp/m.err" || { echo "memory sweep failed"; cat "$tmp/m.err"; fail=1; }
grep -q "does not fit in GPU memory (allocated + runtime > HBM)" "$tmp/m.txt" ||
	{ echo "memory sweep: no out-of-memory pruning"; fail=1; }
grep -q " tight .* micro_batch=4$" "$tmp/m.txt" ||
	{ echo "memory sweep: micro_batch=4 not kept as tight"; fail=1; }
"$podsim" run "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB --no-db 2>/dev/null |
	grep -q "OOM: allocated + runtime" || { echo "run of the pruned plan is not out of memory"; fail=1; }
# When no plan fits, the sweep names the plan nearest to fitting (micro-batch
# 16 keeps fewer activations than 32), its need against the capacity as the
# run states them, and the same cuts `podsim explain` lists for that plan;
# it exits 1 with a line saying so. Before this, it printed an empty table,
# "Kendall tau ... nan" and exited 0.
"$podsim" sweep "$q" --vary parallel.micro_batch=16,32 --set gpu.hbm=16GB --no-db \
	>"$tmp/n.txt" 2>"$tmp/n.err"
[ $? -eq 1 ] || { echo "no-fit sweep: want exit 1"; fail=1; }
grep -q "no plan fits in memory (the nearest and its cuts above)" "$tmp/n.err" ||
	{ echo "no-fit sweep: no error line"; cat "$tmp/n.err"; fail=1; }
grep -q "nan" "$tmp/n.txt" && { echo "no-fit sweep prints nan"; fail=1; }
grep -q "^no plan fits in memory; the nearest: micro_batch=16$" "$tmp/n.txt" ||
	{ echo "no-fit sweep: nearest is not micro_batch=16"; cat "$tmp/n.txt"; fail=1; }
oom=$("$podsim" run "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB --no-db 2>/dev/null |
	sed -n 's/.*OOM: allocated + runtime \([0-9.]* GiB\) over the capacity \([0-9.]* GiB\).*/\1 \2/p')
need=${oom%% GiB *}; cap=${oom#* GiB }
grep -q "needs $need GiB (allocated + runtime) of the GPU's $cap, " "$tmp/n.txt" ||
	{ echo "no-fit sweep: need/capacity differ from the run's ($oom)"; fail=1; }
"$podsim" explain "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB 2>/dev/null |
	sed -n '/^  cut first/,/^$/p' | grep '^    [a-z]' >"$tmp/n.explain"
grep '^    [a-z]' "$tmp/n.txt" >"$tmp/n.cuts"
[ -s "$tmp/n.cuts" ] && cmp -s "$tmp/n.cuts" "$tmp/n.explain" ||
	{ echo "no-fit sweep: cuts differ from explain's"; diff "$tmp/n.cuts" "$tmp/n.explain"; fail=1; }
"$podsim" sweep "$q" --vary parallel.micro_batch=16,32 --set gpu.hbm=16GB --no-db --json 2>/dev/null |
	grep -q '"nearest_no_fit":{"index":0,"settings":{"parallel.micro_batch":"16"},"tier":"GPU","stage":0,' ||
	{ echo "no-fit sweep JSON: no nearest_no_fit"; fail=1; }
# ... and the fastest combination of those changes that fits
# (sweep_fit_remedy): the same lines in the sweep, in explain and after the
# run's report, and the same changes in the sweep's and the run's JSON.
"$podsim" explain "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB 2>/dev/null |
	sed -n '/^  fits with/,/^$/p' | grep -v '^$' >"$tmp/n.fixe"
"$podsim" run "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB --no-db 2>/dev/null |
	sed -n '/^  fits with/,/^$/p' | grep -v '^$' >"$tmp/n.fixr"
sed -n '/^  fits with/,$p' "$tmp/n.txt" >"$tmp/n.fixs"
grep -q '^  fits with    [a-z_]* = ' "$tmp/n.fixs" && cmp -s "$tmp/n.fixs" "$tmp/n.fixe" &&
	cmp -s "$tmp/n.fixs" "$tmp/n.fixr" ||
	{ echo "no-fit sweep: fits with differs from explain's or run's"; cat "$tmp/n.fixs" \
		"$tmp/n.fixe" "$tmp/n.fixr"; fail=1; }
fix=$(sed -n 's/^  fits with    \(.*\) -> .*/\1/p' "$tmp/n.fixs")
"$podsim" sweep "$q" --vary parallel.micro_batch=16,32 --set gpu.hbm=16GB --no-db --json 2>/dev/null |
	grep -q "\"fit_with\":{\"found\":true,\"changes\":\"$fix\"," &&
	"$podsim" run "$q" --set parallel.micro_batch=16 --set gpu.hbm=16GB --no-db --json 2>/dev/null |
	grep -q "\"fit_with\":{\"found\":true,\"changes\":\"$fix\"," ||
	{ echo "no-fit sweep / run JSON: fit_with is not '$fix'"; fail=1; }
# On the mixed cluster (30 DGX H100 + 2 DGX A100 40GB) zero = 0 runs out of
# memory on the A100s alone: the sweep prunes it for other_gpu, and the run
# and explain state the verdict's basis, allocated + runtime over the A100's
# capacity, which the JSON gives below the device total with the cache.
mx=scenarios/llama2-70b-h100-a100.ini
"$podsim" sweep "$mx" --vary parallel.zero=0,1 --top 2 --no-db 2>/dev/null |
	grep -q "1  does not fit in the memory of \[cluster\] other_gpu" ||
	{ echo "mixed sweep: zero = 0 not pruned for other_gpu"; fail=1; }
"$podsim" run "$mx" --set parallel.zero=0 --no-db 2>/dev/null |
	grep -q "OOM on a100-sxm4-40g (stage 0): allocated + runtime .* over the capacity .* by " ||
	{ echo "mixed run: no other_gpu OOM line on allocated + runtime"; fail=1; }
"$podsim" explain "$mx" --set parallel.zero=0 2>/dev/null |
	grep -q "^  memory       on a100-sxm4-40g: .*OUT OF MEMORY, allocated + runtime .* over the capacity by " ||
	{ echo "mixed explain: no other_gpu OOM line on allocated + runtime"; fail=1; }
mj=$("$podsim" run "$mx" --set parallel.zero=0 --no-db --json 2>/dev/null |
	grep -o '"mixed_gpus".*' | grep -o '"memory":{[^}]*}' | head -1)
num() { printf '%s' "$mj" | grep -o "\"$1\":[0-9.e+-]*" | cut -d: -f2; }
awk -v p="$(num peak_bytes)" -v n="$(num allocated_plus_runtime_bytes)" -v c="$(num capacity_bytes)" \
	'BEGIN { exit !(n > c && p > n) }' ||
	{ echo "mixed JSON: want peak > allocated + runtime > capacity: $mj"; fail=1; }

# The best plan is the fastest of the individual runs with the same --set.
best_step=$(grep -o '"rank":1,[^}]*}[^}]*' "$tmp/s.json" | grep -o '"step_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
best_tp=$(grep -o '"rank":1,[^}]*' "$tmp/s.json" | grep -o '"parallel.tp":"[0-9]*"' | grep -o '[0-9]*"$' | tr -d '"')
min_step="" min_tp=""
for tp in 1 2 4 8; do
	dp=$((16 / (2 * tp)))
	s=$("$podsim" run "$q" --set parallel.tp=$tp --set parallel.dp=$dp --json --no-db 2>/dev/null |
		grep -o '"step_time_s":[0-9.e+-]*' | cut -d: -f2)
	if [ -z "$min_step" ] || awk "BEGIN{exit !($s < $min_step)}"; then
		min_step=$s min_tp=$tp
	fi
done
[ -n "$best_step" ] && [ "$best_step" = "$min_step" ] ||
	{ echo "sweep best step $best_step != best single run $min_step"; fail=1; }
[ "$best_tp" = "$min_tp" ] || { echo "sweep best tp $best_tp != $min_tp"; fail=1; }

# Four runs stored, all under sweep 1.
n=$("$podsim" runs --db "$tmp/s.db" | grep -c quickstart)
[ "$n" = 4 ] || { echo "expected 4 stored runs, found $n"; fail=1; }
grep -q "stored as sweep 1" "$tmp/s.err" || { echo "no sweep id: $(cat "$tmp/s.err")"; fail=1; }

# --- compare: both runs, the differing setting, one explanation line ----------
"$podsim" compare 1 2 --db "$tmp/s.db" >"$tmp/c.txt" 2>&1 || { echo "compare failed"; cat "$tmp/c.txt"; fail=1; }
grep -q '^run  *1  *2$' "$tmp/c.txt" || { echo "compare: no run header"; cat "$tmp/c.txt"; fail=1; }
grep -q '^step (s)' "$tmp/c.txt" || { echo "compare: no step row"; fail=1; }
grep -q 'parallel.tp' "$tmp/c.txt" || { echo "compare: tp difference not shown"; fail=1; }
grep -Eq '^run [12] spends .* s (less|more) .* than run [12]: ' "$tmp/c.txt" ||
	{ echo "compare: no explanation"; cat "$tmp/c.txt"; fail=1; }
"$podsim" compare sweep:1 --db "$tmp/s.db" >"$tmp/c4.txt" 2>&1 || { echo "compare sweep:1 failed"; fail=1; }
grep -q '^run  *[0-9]  *[0-9]  *[0-9]  *[0-9]$' "$tmp/c4.txt" || { echo "compare sweep:1: not 4 runs"; fail=1; }
# Effective values: a key one run sets and the other leaves at its default
# (vpp, and a [framework] key) is a difference, the default marked.
"$podsim" run "$q" --db "$tmp/d.db" >/dev/null 2>&1
"$podsim" run "$q" --set parallel.vpp=2 --set framework.op_overhead=0us --db "$tmp/d.db" >/dev/null 2>&1
"$podsim" compare 1 2 --db "$tmp/d.db" >"$tmp/cd.txt" 2>&1 || { echo "compare defaults failed"; fail=1; }
grep -q '^  parallel.vpp  *1 (default) | 2$' "$tmp/cd.txt" ||
	{ echo "compare: vpp against its default not shown"; cat "$tmp/cd.txt"; fail=1; }
grep -q '^  framework.op_overhead  *30.6 us (default) | 0us$' "$tmp/cd.txt" ||
	{ echo "compare: framework default not shown"; cat "$tmp/cd.txt"; fail=1; }
grep -Eq '^likely \(s\) +[0-9.]+-[0-9.]+ +[0-9.]+-[0-9.]+$' "$tmp/cd.txt" ||
	{ echo "compare: no band row"; cat "$tmp/cd.txt"; fail=1; }
grep -q '^  run 2: megatron-core tp2 cp1 pp2 vpp2 ' "$tmp/cd.txt" ||
	{ echo "compare: plans not listed"; cat "$tmp/cd.txt"; fail=1; }
[ "$(grep -c '^  [a-z]*\.[a-z_]* ' "$tmp/cd.txt")" = 2 ] ||
	{ echo "compare: settings that do not differ are listed"; cat "$tmp/cd.txt"; fail=1; }
"$podsim" compare 1 99 --db "$tmp/s.db" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "compare unknown run: want 2, got $rc"; fail=1; }

# --- the same sweep twice gives the same database digest ----------------------
"$podsim" sweep "$q" --vary parallel.tp=1,2,4,8 --top 4 --db "$tmp/t.db" >/dev/null 2>&1
da=$("$podsim" runs digest --db "$tmp/s.db") db=$("$podsim" runs digest --db "$tmp/t.db")
[ "$da" = "$db" ] || { echo "sweep digests differ: $da vs $db"; fail=1; }

# --- the shipped demo sweep file ------------------------------------------------
"$podsim" sweep scenarios/sweep-quickstart.ini --no-db >"$tmp/demo.txt" 2>&1 ||
	{ echo "demo sweep failed"; cat "$tmp/demo.txt"; fail=1; }
grep -q '^288 plans, 216 valid' "$tmp/demo.txt" || { echo "demo sweep: $(head -1 "$tmp/demo.txt")"; fail=1; }
# Pruned plans print the first one's reason with its numbers, not '#'.
sed -n '/^pruned/,$p' "$tmp/demo.txt" >"$tmp/pruned.txt"
[ -s "$tmp/pruned.txt" ] || { echo "demo sweep: no pruned section"; fail=1; }
! grep -q '#' "$tmp/pruned.txt" || { echo "demo sweep: placeholders in pruned:"; cat "$tmp/pruned.txt"; fail=1; }
"$podsim" sweep "$q" --vary parallel.micro_batch=3,5 --vary parallel.tp=1,2 --no-db >"$tmp/mb.txt" 2>&1
grep -q '^         4  global_batch = 128 is not a multiple of micro_batch\*dp = 3\*8 = 24$' "$tmp/mb.txt" ||
	{ echo "pruned example:"; cat "$tmp/mb.txt"; fail=1; }

# --- bad input: status 2 and the message -----------------------------------------
err=$("$podsim" sweep "$q" --vary parallel.tp=1,x --no-db 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "bad --vary: want 2, got $rc"; fail=1; }
[ "$err" = "podsim sweep: error: --vary parallel.tp=1,x: parallel.tp: expected an integer, got 'x'" ] ||
	{ echo "bad --vary message: $err"; fail=1; }
"$podsim" sweep "$q" --vary parallel.nope=1 --no-db >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "unknown --vary key: want 2, got $rc"; fail=1; }
# the sweep file's dimensions Calculon also searches: the TP communication's
# overlap, the parameter gather's overlap and parameter offload (auto: every
# value; plan_check keeps the valid ones: the offload needs ZeRO-3; to NVMe
# on the DGX A100's drives, topologies/nodes/dgx-a100-80g.ini nvme_bw)
printf '[sweep]\nscenario = %s/scenarios/llama2-13b-zero-offload.ini\nzero = 1,3\ntp_comm_overlap = auto\noverlap_param_gather = auto\noffload_params = auto\n' \
	"$PWD" >"$tmp/axes.ini"
"$podsim" sweep "$tmp/axes.ini" --no-db --top 100 >"$tmp/axes.txt" 2>&1 ||
	{ echo "sweep file axes: exit $?"; cat "$tmp/axes.txt"; fail=1; }
for want in 'zero=1 tp_comm_overlap=false overlap_param_gather=true offload_params=none' \
	'zero=3 tp_comm_overlap=false overlap_param_gather=false offload_params=cpu' \
	'zero=3 tp_comm_overlap=false overlap_param_gather=false offload_params=none' \
	'zero=3 tp_comm_overlap=false overlap_param_gather=false offload_params=nvme'; do
	grep -q -- "$want\$" "$tmp/axes.txt" || { echo "sweep file axes: no plan '$want'"; fail=1; }
done
grep -q '^24 plans, 5 valid' "$tmp/axes.txt" || { echo "sweep file axes: want 24 plans, 5 valid"; fail=1; }
printf '[sweep]\nscenario = %s/%s\nmicro_bach = 2\n' "$PWD" "$q" >"$tmp/bad.ini"
err=$("$podsim" sweep "$tmp/bad.ini" --no-db 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "bad sweep file: want 2, got $rc"; fail=1; }
echo "$err" | grep -q "bad.ini:3: error: unknown key 'micro_bach' in \[sweep\]" ||
	{ echo "bad sweep file message: $err"; fail=1; }
# a base whose own plan the varied keys replace need not be valid itself:
# the quickstart (tp 2, pp 2) under DeepSpeed, which runs no tensor
# parallelism, swept at tp 1, pp 1 (dp derived: 16) over ZeRO 1-3 runs, with
# one note naming the base's error; varying nothing that fixes it, every
# plan is pruned with that reason (exit 1), not an input error (exit 2)
printf 'include = %s/%s\ninclude = %s/topologies/frameworks/deepspeed.ini\n' "$PWD" "$q" "$PWD" >"$tmp/ds.ini"
out=$("$podsim" sweep "$tmp/ds.ini" --no-db --vary parallel.tp=1 --vary parallel.pp=1 \
	--vary parallel.zero=1,2,3 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "invalid base: exit $rc, want 0"; fail=1; }
echo "$out" | grep -q "ds.ini: note: the base scenario's own plan is not valid (tensor parallelism: framework 'deepspeed' does not run it (rule runs_tp)); each plan of the space is checked on its own" ||
	{ echo "invalid base: no note"; fail=1; }
echo "$out" | grep -q '^3 plans, 3 valid, 3 fit in memory, 3 simulated' || { echo "invalid base: want 3 plans simulated"; fail=1; }
out=$("$podsim" sweep "$tmp/ds.ini" --no-db --vary parallel.zero=1,3 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "invalid base, nothing fixing it: exit $rc, want 1"; fail=1; }
echo "$out" | grep -q "tensor parallelism: framework 'deepspeed' does not run it (rule runs_tp)" ||
	{ echo "invalid base, nothing fixing it: no reason"; fail=1; }
# a topology dimension over a scenario that includes a whole scenario: the
# include that brings the cluster is named, not replaced (which dropped its
# model and plan: "missing section [scenario]")
printf 'include = %s/%s\n' "$PWD" "$q" >"$tmp/wrap.ini"
out=$("$podsim" sweep "$tmp/wrap.ini" --no-db --vary topology=topologies/tiny-2node.ini 2>&1)
echo "$out" | grep -q "topology: the cluster comes with '$PWD/$q', a whole scenario" ||
	{ echo "topology over a wrapper: $out"; fail=1; }
# plans simulated at once (--threads): the same table, JSON, messages and
# stored runs for 1 and 3 workers, in the same order (the EFA sweep's best
# 24, each plan's spread replayed; the quickstart sweep's exact search, two
# rounds); only the rates and the stored times differ. A count out of 1..64
# is bad input.
for f in sweep-efa-nanotron sweep-quickstart; do
	for t in 1 3; do
		"$podsim" sweep scenarios/$f.ini --threads $t --db "$tmp/t$t.db" \
			>"$tmp/t$t.txt" 2>"$tmp/t$t.err" || { echo "$f --threads $t failed"; fail=1; }
		"$podsim" sweep scenarios/$f.ini --threads $t --json --no-db 2>/dev/null |
			sed 's/"prescreen_[a-z_]*":[0-9.e+-]*//g' >"$tmp/t$t.json"
		sqlite3 "$tmp/t$t.db" "select * from runs order by id" | sed 's/20[0-9-]*T[0-9:]*Z//' >"$tmp/t$t.runs"
		rm -f "$tmp/t$t.db"
	done
	grep -q '^ *1 ' "$tmp/t1.txt" && [ -s "$tmp/t1.runs" ] &&
		cmp -s <(grep -v 'plans/s' "$tmp/t1.txt") <(grep -v 'plans/s' "$tmp/t3.txt") &&
		cmp -s <(sed "s|$tmp/t1.db|DB|" "$tmp/t1.err") <(sed "s|$tmp/t3.db|DB|" "$tmp/t3.err") &&
		cmp -s "$tmp/t1.json" "$tmp/t3.json" && cmp -s "$tmp/t1.runs" "$tmp/t3.runs" ||
		{ echo "$f: sweep --threads 1 and 3 differ"; diff "$tmp/t1.txt" "$tmp/t3.txt" | head; fail=1; }
done
# a tight first choice names the fastest plan that fits (text and JSON):
# the EFA sweep's rank 1 (tp 2, micro-batch 4) leaves 0.0 GiB, rank 2 fits
# (its best 8 by the pre-screen, no spread replays: quick under ASan)
"$podsim" sweep scenarios/sweep-efa-nanotron.ini --no-db --top 8 --spread-samples 0 \
	>"$tmp/tf.txt" 2>/dev/null
"$podsim" sweep scenarios/sweep-efa-nanotron.ini --no-db --top 8 --spread-samples 0 --json \
	2>/dev/null >"$tmp/tf.json"
python3 - "$tmp/tf.json" "$tmp/tf.txt" <<'PY' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
v = [p["mem_verdict"] for p in d["plans"]]
k = next(i for i, x in enumerate(v) if x != "tight") + 1
m = re.search(r"rank 1 is tight, and the fastest plan that fits is rank (\d+), \+([0-9.]+)%", txt)
ok = (v[0] == "tight" and d["fastest_fits_rank"] == k and m and int(m.group(1)) == k
      and abs(float(m.group(2)) - 100 * (d["plans"][k - 1]["step_s"] / d["plans"][0]["step_s"] - 1)) < 0.06)
if not ok:
    print("a tight rank 1 does not name the fastest plan that fits:", v[:5], d.get("fastest_fits_rank"), m and m.group(0))
sys.exit(0 if ok else 1)
PY
err=$("$podsim" sweep "$q" --threads 0 --no-db 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q -- "--threads takes a count from 1 to 64" ||
	{ echo "--threads 0: exit $rc, $err"; fail=1; }
"$podsim" sweep --help | grep -q '^usage: podsim sweep' || { echo "sweep --help"; fail=1; }
"$podsim" compare --help | grep -q '^usage: podsim compare' || { echo "compare --help"; fail=1; }
exit $fail
