#!/usr/bin/env bash
# spread.sh PODSIM - the step's spread on the EFA cluster (README "The step's
# spread"): run prints it, JSON and the database keep it, seeds reproduce it,
# 0 samples or no spread key print what a cluster without one prints; a
# sweep on a real case marks risky plans (text, JSON, HTML), and a sweep
# without a spread shows none of it.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=scenarios/llama3-8b-efa.ini
bad() { echo "$1"; fail=1; }

# run: the two lines, the band widened, 100 samples by default, seed 1
out=$("$podsim" run "$s" --no-db 2>/dev/null) || bad "a) run failed"
echo "$out" | grep -Eq '^  step spread +p5 [0-9.]+ m?s, median [0-9.]+ m?s, p95 [0-9.]+ m?s \(\+[0-9.]+% over the step\)$' ||
	bad "a) no step spread line"
echo "$out" | grep -Eq '^  spread from +measured collective spread, 100 sampled steps \(p95 within [0-9.]+-[0-9.]+ m?s at 95% confidence\), seed 1, correlation 0.5 \(podsim explain\)$' ||
	bad "a) no spread from line"
echo "$out" | grep -q "widened x0.9[0-9]*-1.[0-9]* by the step's spread" || bad "a) band not widened"
# 0 samples and an empty spread key print the same report, without a spread
off=$("$podsim" run "$s" --no-db --spread-samples 0 2>/dev/null)
none=$("$podsim" run "$s" --no-db --set cluster.spread= 2>/dev/null)
[ -n "$off" ] && [ "$off" = "$none" ] || bad "b) --spread-samples 0 differs from no spread"
echo "$off" | grep -q "spread" && bad "b) a spread without samples"
echo "$off" | grep -q "widened" && bad "b) band widened without samples"
# JSON: quantiles in order, reproducible, another seed moves them
j1=$("$podsim" run "$s" --no-db --json --spread-samples 40 2>/dev/null)
j2=$("$podsim" run "$s" --no-db --json --spread-samples 40 2>/dev/null)
j3=$("$podsim" run "$s" --no-db --json --spread-samples 40 --set scenario.seed=2 2>/dev/null)
[ "$j1" = "$j2" ] || bad "c) the same seed gives another JSON"
sp() { echo "$1" | grep -o '"step_spread":{[^}]*}'; }
[ "$(sp "$j1")" != "$(sp "$j3")" ] || bad "c) another seed gives the same spread"
q=$(sp "$j1" | sed 's/.*"p05_s":\([^,]*\),"p10_s":[^,]*,"p50_s":\([^,]*\),"p90_s":[^,]*,"p95_s":\([^,]*\),.*/\1 \2 \3/')
awk -v q="$q" 'BEGIN { split(q, a, " "); exit !(a[1] > 0 && a[1] <= a[2] && a[2] <= a[3]) }' ||
	bad "c) quantiles out of order: $q"
echo "$j1" | grep -q '"samples":40,"seed":1,"correlation":0.5,"varying_tasks":[1-9]' ||
	bad "c) sampling not in the JSON"
echo "$off" | grep -q step_spread && bad "c) step_spread without samples"
# the database: runs show prints the run as run did
"$podsim" run "$s" --db "$tmp/r.db" --spread-samples 20 >"$tmp/run.txt" 2>/dev/null || bad "d) run --db"
"$podsim" runs show 1 --db "$tmp/r.db" >"$tmp/show.txt" 2>/dev/null || bad "d) runs show"
cmp -s "$tmp/run.txt" "$tmp/show.txt" || bad "d) runs show differs from run"
grep -q "20 sampled steps" "$tmp/show.txt" || bad "d) stored spread lost"
"$podsim" run "$s" --db "$tmp/r.db" --spread-samples 0 >/dev/null 2>&1 || bad "d) run 2"
"$podsim" compare 1 2 --db "$tmp/r.db" >"$tmp/cmp.txt" 2>/dev/null || bad "d) compare"
grep -Eq '^step p95 \(s\) +[0-9.]+ +-$' "$tmp/cmp.txt" || bad "d) compare without the p95 row"
"$podsim" runs show 1 --db "$tmp/r.db" --html "$tmp/run.html" >/dev/null 2>&1 || bad "d) --html"
grep -q 'step p5 to p95, median ' "$tmp/run.html" || bad "d) no spread card in the HTML page"

# sweep on a real case: Llama 3 8B on 32 p5 nodes, 512 sequences a step,
# with and without a pipeline; without one the whole gradient reduction
# across 32 nodes comes after the backward and its tail is long: tp 4 pp 1
# (the better median) is risky against tp 2 pp 2 (p95 2.94 s, at least
# 2.90, against 2.75, at most 2.85). Since the fabric lost its congestion
# (2026-11-30) the reductions are shorter and 64 nodes with tp 1-2 and pp
# 1 or 4, this test's case before, marks none: the pp 1 plan wins whole.
sw=(sweep "$s" --no-db --set cluster.nodes=32 --set parallel.dp=256 --set parallel.global_batch=512
	--vary parallel.tp=2,4 --vary parallel.pp=1,2 --vary parallel.recompute=selective)
"$podsim" "${sw[@]}" >"$tmp/sw.txt" 2>/dev/null || bad "e) sweep failed"
grep -q ' p50 (s)     p95 (s) ' "$tmp/sw.txt" || bad "e) no p50/p95 columns"
grep -Eq '^~ = risky: rank [0-9]+.s p95 [0-9.]+ s \(at least [0-9.]+\) is above rank [0-9]+.s' "$tmp/sw.txt" ||
	bad "e) no risky plan"
risky=$(grep -E '^ +[0-9]+ .*~ .* pp=1 ' "$tmp/sw.txt" | wc -l)
[ "$risky" -ge 1 ] || bad "e) no pp=1 plan marked"
grep -E '^ +[0-9]+ .*~ .* pp=2 ' "$tmp/sw.txt" && bad "e) a pp=2 plan marked"
"$podsim" "${sw[@]}" --json --html "$tmp/sw.html" >"$tmp/sw.json" 2>/dev/null || bad "f) sweep --json"
grep -q '"risky":true,"risky_reason":"p95 ' "$tmp/sw.json" || bad "f) no risky plan in JSON"
grep -q '"risky":false,"risky_reason":null' "$tmp/sw.json" || bad "f) every plan risky in JSON"
grep -q 'stroke="#f28e2b"' "$tmp/sw.html" || bad "f) no risky whisker in HTML"
grep -q '<th>p95 (s)</th>' "$tmp/sw.html" || bad "f) no p95 column in HTML"
grep -q '<li>rank [0-9]*: p95 ' "$tmp/sw.html" || bad "f) no risky reason in HTML"
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/sw.html" || bad "f) HTML not well-formed"
fi
# h) [cluster] fit_weak (the shipped p5 fit: net_latency msg_overhead congestion):
# explain names it in its spread section, and in section 7 where the TP
# group spans nodes (tp 16 on 8-GPU nodes; 32 K/V heads, as nanotron splits
# whole heads) but not where it stays inside one
n=scenarios/llama3-8b-efa-nanotron.ini
"$podsim" explain $n --set model.kv_heads=32 --set parallel.tp=16 --set parallel.dp=8 >"$tmp/x16.txt" 2>/dev/null ||
	bad "h) explain tp 16"
grep -q '^  fit          the fabric.s calibration leaves net_latency msg_overhead weakly' \
	"$tmp/x16.txt" || bad "h) no fit line in the spread section"
grep -q 'across nodes on a fabric whose calibration leaves net_latency msg_overhead' "$tmp/x16.txt" ||
	bad "h) no fit note beside tp 16's collectives"
"$podsim" explain $n >"$tmp/x8.txt" 2>/dev/null || bad "h) explain tp 8"
grep -q 'across nodes on a fabric whose calibration' "$tmp/x8.txt" &&
	bad "h) fit note beside tp 8's collectives, inside one node"
# a sweep without a spread: none of it
"$podsim" sweep scenarios/sweep-quickstart.ini --no-db --json >"$tmp/q.json" 2>/dev/null
grep -q 'step_spread\|risky' "$tmp/q.json" && bad "g) spread keys without a spread"
"$podsim" sweep scenarios/sweep-quickstart.ini --no-db >"$tmp/q.txt" 2>/dev/null
grep -q 'p95\|risky' "$tmp/q.txt" && bad "g) spread columns without a spread"
# the sweep's legend names the base cluster's fit_weak (s is on the shipped
# p5 fit), and a cluster without a fit has none
grep -q "^fit = the base scenario's cluster was calibrated on rows that leave net_latency msg_overhead weakly" \
	"$tmp/sw.txt" || bad "h) no fit legend in the EFA sweep"
grep -q '^fit = ' "$tmp/q.txt" && bad "h) a fit legend without a fit"
exit $fail
