#!/usr/bin/env bash
# usage.sh PODSIM - every command has --help, unknown commands and options are
# usage errors with status 2.
set -u
podsim=$1
fail=0
for c in "" run runs keys validate estimate train; do
	# shellcheck disable=SC2086
	out=$("$podsim" $c --help) || { echo "podsim $c --help failed"; fail=1; }
	echo "$out" | grep -q '^usage: podsim' || { echo "podsim $c --help: no usage line"; fail=1; }
done
"$podsim" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown command: want 2"; fail=1; }
"$podsim" run --frob x.ini >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown option: want 2"; fail=1; }
"$podsim" run >/dev/null 2>&1; [ $? -eq 2 ] || { echo "missing file: want 2"; fail=1; }
"$podsim" --version | grep -q '^podsim [0-9]' || { echo "--version"; fail=1; }
# validate: a CSV without the case columns is bad input (status 2, file:line).
tmp=$(mktemp -d)
printf 'id,foo\nX1,2\n' >"$tmp/bad.csv"
err=$("$podsim" validate "$tmp/bad.csv" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "validate bad csv: want 2, got $rc"; fail=1; }
echo "$err" | grep -q "bad.csv:1: error: not a case file" || { echo "validate bad csv: $err"; fail=1; }
printf 'id,kind,gpu,gpus,measured_value\nX1,gemm,a100-sxm4-80g,1\n' >"$tmp/short.csv"
err=$("$podsim" validate "$tmp/short.csv" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "validate short row: want 2, got $rc"; fail=1; }
echo "$err" | grep -q "short.csv:2: error: row has 4 fields, the header has 5" || { echo "validate short row: $err"; fail=1; }
# run --trace writes a complete Chrome trace, or nothing at all.
"$podsim" run scenarios/quickstart.ini --no-db --trace "$tmp/q.json" >/dev/null 2>&1 || { echo "--trace failed"; fail=1; }
head -c 40 "$tmp/q.json" | grep -q '^{"displayTimeUnit":"ms","traceEvents":\[' || { echo "--trace: bad header"; fail=1; }
tail -c 3 "$tmp/q.json" | grep -q ']}' || { echo "--trace: unterminated"; fail=1; }
[ ! -e "$tmp/q.json.tmp" ] || { echo "--trace left a temporary file"; fail=1; }
# Counter tracks: stage 0's memory rises from its lowest, the static bytes (weights,
# gradients, states, buffers: 7.65 GiB for the quickstart) with each forward
# and returns to them when the last backward ends; its peak stays under the
# report's peak (which adds fragmentation and the working set); NIC traffic
# shows up as bandwidth.
mem=$(grep -o '"pid":0,"name":"memory GiB","ts":[0-9.]*,"args":{"HBM":[0-9.e+]*' "$tmp/q.json" |
	sed 's/.*"HBM"://')
first=$(echo "$mem" | sort -g | head -1) last=$(echo "$mem" | tail -1)
max=$(echo "$mem" | sort -g | tail -1)
peak=$("$podsim" run scenarios/quickstart.ini --no-db --json | grep -o '"peak_bytes":[0-9.e+]*' | cut -d: -f2)
awk -v a="$first" -v b="$last" -v m="$max" -v p="$peak" 'BEGIN {
	exit !(a == b && a > 7 && a < 8.5 && m > a && m * 1073741824 < p) }' ||
	{ echo "--trace memory counter: first $first last $last max $max peak $peak"; fail=1; }
grep -q '"name":"link GB/s"' "$tmp/q.json" || { echo "--trace: no link counters"; fail=1; }
"$podsim" run scenarios/quickstart.ini --no-db --trace "$tmp/no/such/dir/q.json" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--trace to a missing folder (bad input): want status 2"; fail=1; }
[ ! -e "$tmp/no" ] || { echo "--trace created folders"; fail=1; }
rm -rf "$tmp"
exit $fail
