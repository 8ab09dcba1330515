#!/usr/bin/env bash
# sweep-loses.sh PODSIM - why a plan loses to the sweep's best (exec_step_diff):
# each plan after the first gets its step minus rank 1's split over the
# breakdown of the stage that sets each step, in text and JSON, and
# `podsim compare` on the two stored runs prints the same split.
#
#  a) TP by construction: the quickstart at tp 2, pp 1, dp 8 with the
#     NVLink bandwidth at 300 and 75 GB/s. No kernel depends on it, so the
#     compute term is 0; the TP all-reduces (inside a node, blocking the
#     compute stream: exposed in full) slow most, so tp is the largest term.
#     Bound: a collective's time is t(B) = a + S g(B) with g non-increasing
#     and g(B/4) <= 4 g(B) (1/B, or 1/B beside the ring's local step as a
#     max or a sum), so t(B/4) - t(B) <= 3 S g(B) <= 3 t(B): the tp term is
#     at most 3 x rank 1's exposed tp.
#  b) bubble by construction: the quickstart at 32 sequences per step
#     (micro-batch 4), pp 1 (dp 8: one micro-batch, no pipeline, no bubble)
#     against pp 2 (dp 4: two micro-batches through two stages, 1F1B's
#     fill and drain): the bubble term is the largest. The two steps are
#     set by different stages (the one stage of pp 1, the last of pp 2).
#  c) the terms sum to the steps' difference: each stage's categories sum
#     to its step (the replay charges every moment of its compute stream to
#     one category), so the terms of any two stages sum to the difference
#     of the steps, whichever stage sets each; exactly up to the rounding
#     of seconds in double (about 1e-16 s per charged interval, test_exec),
#     here within 1e-8 s because the JSON prints 9 significant digits per
#     term (5e-10 s each on terms under 1 s).
#  d) compare on the two stored runs of b) names the same term and prints
#     the same split as the sweep's line.
set -u
podsim=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=scenarios/quickstart.ini

# --- a) NVLink at a quarter: tp loses ---------------------------------------
"$podsim" sweep "$q" --set parallel.pp=1 --set parallel.dp=8 \
	--vary node.intra_bw=300GB/s,75GB/s --no-db --json >"$tmp/a.json" 2>"$tmp/a.err" ||
	{ bad "a) sweep"; cat "$tmp/a.err"; }
loses() { # the loses object of plan $2 (rank) in $1
	grep -o "\"rank\":$2,.*" "$1" | grep -o '"loses":{[^{]*{[^}]*}[^}]*}' | head -1
}
num() { printf '%s' "$1" | grep -o "\"$2\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
grep -q '"rank":1,.*"node.intra_bw":"300GB/s".*"loses":null' "$tmp/a.json" ||
	bad "a) rank 1 is not 300 GB/s with loses null"
la=$(loses "$tmp/a.json" 2)
printf '%s' "$la" | grep -q '"largest":"tp"' || bad "a) largest is not tp: $la"
tp1=$("$podsim" run "$q" --set parallel.pp=1 --set parallel.dp=8 --no-db --json 2>/dev/null |
	grep -o '"breakdown":\[{[^}]*}' | grep -o '"tp":[0-9.e+-]*' | cut -d: -f2)
awk -v c="$(num "$la" compute)" -v t="$(num "$la" tp)" -v t1="$tp1" \
	'BEGIN { exit !(c == 0 && t > 0 && t1 > 0 && t <= 3 * t1) }' ||
	bad "a) want compute 0 and 0 < tp <= 3 x $tp1: $la"

# --- b) a pipeline of two micro-batches: bubble loses -------------------------
"$podsim" sweep "$q" --set parallel.global_batch=32 --vary parallel.pp=1,2 --db "$tmp/b.db" \
	>"$tmp/b.txt" 2>"$tmp/b.err" || { bad "b) sweep"; cat "$tmp/b.err"; }
"$podsim" sweep "$q" --set parallel.global_batch=32 --vary parallel.pp=1,2 --no-db --json \
	>"$tmp/b.json" 2>/dev/null || bad "b) sweep --json"
lb=$(loses "$tmp/b.json" 2)
printf '%s' "$lb" | grep -q '"class":"stage 1","best_class":"stage 0",' ||
	bad "b) want stage 1 of pp 2 against stage 0 of pp 1: $lb"
printf '%s' "$lb" | grep -q '"largest":"bubble"' || bad "b) largest is not bubble: $lb"
line=$(grep '^  rank 2: ' "$tmp/b.txt")
printf '%s' "$line" | grep -Eq '^  rank 2: \+[0-9.]+ s: bubble \+[0-9.]+, .*\(its stage 1\)$' ||
	bad "b) text line: $line"

# --- c) the terms sum to the step's difference --------------------------------
for f in "$tmp/a.json" "$tmp/b.json"; do
	l=$(loses "$f" 2)
	sum=0
	for c in compute optimizer tp cp ep dp pp bubble offload other; do
		sum=$(awk -v s="$sum" -v x="$(num "$l" "$c")" 'BEGIN { printf "%.12g", s + x }')
	done
	awk -v s="$sum" -v d="$(num "$l" step_s)" \
		'BEGIN { e = s - d; if (e < 0) e = -e; exit !(d > 0 && e <= 1e-8) }' ||
		bad "c) terms sum to $sum, the step's difference is $(num "$l" step_s): $l"
done

# --- d) compare on the two stored runs says the same ---------------------------
ids=$(awk '$1 ~ /^[12]$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$tmp/b.txt")
best=$(printf '%s\n' "$ids" | awk '$1 == 1 { print $2 }')
second=$(printf '%s\n' "$ids" | awk '$1 == 2 { print $2 }')
[ -n "$best" ] && [ -n "$second" ] || bad "d) no run ids in the sweep's table"
"$podsim" compare "$best" "$second" --db "$tmp/b.db" >"$tmp/c.txt" 2>&1 || bad "d) compare"
grep -Eq "^run $best spends [0-9.e-]+ s less in pipeline bubbles than run $second" "$tmp/c.txt" ||
	{ bad "d) compare does not name the bubble"; cat "$tmp/c.txt"; }
split=$(sed -n 's/^  run [0-9]*.s step minus run [0-9]*.s (.*, the stages that set them): //p' "$tmp/c.txt")
want=${line#  rank 2: }
want=${want% (its stage 1)} # the sweep names its stage apart, compare beside the runs
[ -n "$split" ] && [ "$split" = "$want" ] ||
	bad "d) compare's split '$split' differs from the sweep's '$want'"

[ $fail -eq 0 ] && echo "sweep-loses: ok"
exit $fail
