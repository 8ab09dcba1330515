#!/usr/bin/env bash
# bands.sh PODSIM - the error band and the implausibility flag end to end,
# from the source root:
#  a) the band is computed from the cases: the Megatron-Core rows of
#     calibration.csv alone give the shipped (hopper, megatron-core, 513+)
#     cell; with row D08's measured time doubled the cell widens, and a run
#     reading that table (PODSIM_DATA) prints a band with a higher top;
#  b) run text, JSON, the database (runs show, runs) and sweep JSON carry it;
#  c) a plan above its GPU's best published MFU is flagged implausible, one
#     below is not, and the table decides (a higher ceiling clears it);
#  d) without tables nothing is printed; a malformed table is a path:line
#     error (exit 2); inference runs get no band.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cal=tests/cases/calibration.csv
big=scenarios/llama3-405b-4d.ini # H100, megatron-core, 1024 GPUs: cell 513+
q=scenarios/quickstart.ini       # A100, 16 GPUs (ceiling 64.1 %)

field() { grep -o "\"$1\":[^,]*,[^],]*" | head -1; } # "step_band_s":[lo,hi

# --- a) the cases move the band ----------------------------------------------
mkdir -p "$tmp/a/topologies" "$tmp/b/topologies" "$tmp/empty"
{ head -n 1 "$cal"; grep '^D' "$cal"; } >"$tmp/d.csv"
sed 's/^\(D08,.*,bf16,\)8\.3993,/\116.7986,/' "$tmp/d.csv" >"$tmp/d2.csv"
cmp -s "$tmp/d.csv" "$tmp/d2.csv" && { echo "a) could not alter row D08"; fail=1; }
"$podsim" validate "$tmp/d.csv" --data . --bands-out "$tmp/a/topologies/bands.csv" >/dev/null ||
	{ echo "a) validate --bands-out failed"; fail=1; }
"$podsim" validate "$tmp/d2.csv" --data . --bands-out "$tmp/b/topologies/bands.csv" >/dev/null ||
	{ echo "a) validate --bands-out (altered) failed"; fail=1; }
cp topologies/mfu-best.csv "$tmp/a/topologies/"
cp topologies/mfu-best.csv "$tmp/b/topologies/"
cell() { grep '^hopper,megatron-core,513+,' "$1"; }
[ -n "$(cell "$tmp/a/topologies/bands.csv")" ] &&
	[ "$(cell "$tmp/a/topologies/bands.csv")" = "$(cell topologies/bands.csv)" ] ||
	{ echo "a) the D rows alone do not give the shipped cell:"; cell "$tmp/a/topologies/bands.csv"; cell topologies/bands.csv; fail=1; }
hi_a=$(cell "$tmp/a/topologies/bands.csv" | cut -d, -f13)
hi_b=$(cell "$tmp/b/topologies/bands.csv" | cut -d, -f13)
awk -v a="$hi_a" -v b="$hi_b" 'BEGIN { exit !(b > a * 1.2) }' ||
	{ echo "a) doubling D08's measured time did not widen the cell: hi $hi_a -> $hi_b"; fail=1; }
ja=$(PODSIM_DATA=$tmp/a "$podsim" run "$big" --no-db --json 2>/dev/null)
jb=$(PODSIM_DATA=$tmp/b "$podsim" run "$big" --no-db --json 2>/dev/null)
ba=$(echo "$ja" | field step_band_s | sed 's/.*,//') bb=$(echo "$jb" | field step_band_s | sed 's/.*,//')
awk -v a="$ba" -v b="$bb" 'BEGIN { exit !(a > 0 && b > a * 1.2) }' ||
	{ echo "a) the run's band did not move with the table: top $ba -> $bb"; fail=1; }
[ "$(echo "$ja" | grep -o '"step_time_s":[^,]*')" = "$(echo "$jb" | grep -o '"step_time_s":[^,]*')" ] ||
	{ echo "a) the table changed the simulated step"; fail=1; }

# --- b) text, JSON, database, sweep ----------------------------------------------
"$podsim" run "$big" --db "$tmp/r.db" >"$tmp/run.txt" 2>/dev/null || { echo "b) run failed"; fail=1; }
line=$(grep '^  step time ' "$tmp/run.txt")
echo "$line" | grep -Eq '^  step time +[0-9.]+ s, likely [0-9.]+-[0-9.]+ s$' ||
	{ echo "b) no band beside the step time: $line"; fail=1; }
grep -q '^  error band from   hopper, megatron-core, 513+ GPUs: 6 rows, 1 source' "$tmp/run.txt" ||
	{ echo "b) no band cell line"; fail=1; }
"$podsim" runs show 1 --db "$tmp/r.db" >"$tmp/show.txt" 2>/dev/null
cmp -s "$tmp/run.txt" "$tmp/show.txt" || { echo "b) runs show differs from run:"; diff "$tmp/run.txt" "$tmp/show.txt"; fail=1; }
"$podsim" runs --db "$tmp/r.db" >"$tmp/list.txt"
# (the list's memory column is the run's verdict: tight, 79 of 79.1 GiB)
grep -Eq ' [0-9.]+-[0-9.]+ +[0-9]+\.[0-9]%!? +tight +- +- +megatron-core tp8 sp cp2 pp8 vpp8 dp8 ' "$tmp/list.txt" ||
	{ echo "b) runs list:"; cat "$tmp/list.txt"; fail=1; }
j=$("$podsim" run "$big" --no-db --json 2>/dev/null)
echo "$j" | grep -Eq '"step_band_s":\[[0-9.e+-]+,[0-9.e+-]+\],"band_from":"hopper, megatron-core, 513\+ GPUs' ||
	{ echo "b) JSON band: $(echo "$j" | head -c 400)"; fail=1; }
"$podsim" sweep "$q" --vary parallel.tp=1,2 --vary parallel.pp=1 --no-db --json >"$tmp/sw.json" 2>/dev/null
grep -Eq '"rank":1,.*"step_band_s":\[[0-9.e+-]+,[0-9.e+-]+\],"implausible":(true|false),' "$tmp/sw.json" ||
	{ echo "b) sweep JSON: $(head -c 600 "$tmp/sw.json")"; fail=1; }

# --- c) implausible ---------------------------------------------------------------
# flagged exactly when the MFU exceeds the generation's ceiling (49.4 % hopper,
# 64.1 % ampere in 16-bit, topologies/mfu-best.csv); with a table of lower
# ceilings (30 %) the same runs are flagged, with the ceiling's source named.
# The ampere ceiling is case O07's measured MFU by podsim's own FLOP count:
# the row's scenario's MFU scaled by predicted over measured step
o07=$("$podsim" validate "$cal" --scenario O07 2>/dev/null >"$tmp/o07.ini" &&
	"$podsim" run "$tmp/o07.ini" --no-db --json 2>/dev/null)
o07_mfu=$(echo "$o07" | grep -o '"mfu":[0-9.e+-]*' | head -1 | cut -d: -f2)
o07_step=$(echo "$o07" | grep -o '"step_time_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
o07_meas=$(python3 -c 'import csv, sys
print(next(r["measured_iter_s"] for r in csv.DictReader(open(sys.argv[1])) if r["id"] == "O07"))' "$cal")
o07_ceil=$(sed -n 's/^ampere,16-bit,\([0-9.]*\),.*/\1/p' topologies/mfu-best.csv)
awk -v m="$o07_mfu" -v s="$o07_step" -v t="$o07_meas" -v c="$o07_ceil" \
	'BEGIN { x = m * s / t; exit !(m > 0 && t > 0 && x - c < 0.0015 && c - x < 0.0015) }' ||
	{ echo "c) ampere ceiling $o07_ceil is not O07's measured MFU ($o07_mfu x $o07_step / $o07_meas)"; fail=1; }
mfu_of() { grep -o '"mfu":[0-9.e+-]*' | head -1 | cut -d: -f2; }
flag_of() { grep -o '"implausible":[a-z]*' | head -1 | cut -d: -f2; }
jq_=$("$podsim" run "$q" --no-db --json 2>/dev/null)
for pair in "$j|0.494" "$jq_|0.641"; do
	js=${pair%|*} ceil=${pair##*|}
	m=$(echo "$js" | mfu_of) f=$(echo "$js" | flag_of)
	want=$(awk -v m="$m" -v c="$ceil" 'BEGIN { print (m > c) ? "true" : "false" }')
	[ -n "$m" ] && [ "$f" = "$want" ] || { echo "c) MFU $m against $ceil: implausible $f, want $want"; fail=1; }
done
mkdir -p "$tmp/c/topologies"
sed 's/^\(ampere,16-bit,\)0\.641,/\10.30,/; s/^\(hopper,16-bit,\)0\.494,/\10.30,/' topologies/mfu-best.csv \
	>"$tmp/c/topologies/mfu-best.csv"
PODSIM_DATA=$tmp/c "$podsim" run "$big" --no-db --json 2>/dev/null |
	grep -Eq '"implausible":true,"implausible_reason":"MFU [3-9][0-9]\.[0-9]% is above the best published, 30.0% on hopper in 16-bit: Megatron-Core' ||
	{ echo "c) 405B on H100 not flagged under a 30 % ceiling"; fail=1; }
PODSIM_DATA=$tmp/c "$podsim" run "$big" --no-db 2>/dev/null |
	grep -Eq '^  implausible       MFU [3-9][0-9]\.[0-9]% is above the best published, 30.0% on hopper' ||
	{ echo "c) no implausible line in the text"; fail=1; }
PODSIM_DATA=$tmp/c "$podsim" run "$q" --no-db --json 2>/dev/null |
	grep -Eq '"implausible":true,"implausible_reason":"MFU [3-9][0-9]\.[0-9]% is above the best published, 30.0% on ampere in 16-bit: MosaicML llm-foundry' ||
	{ echo "c) quickstart not flagged under a 30 % ceiling"; fail=1; }
sed 's/^ampere,16-bit,0\.641,/ampere,16-bit,0.70,/' topologies/mfu-best.csv >"$tmp/c/topologies/mfu-best.csv"
PODSIM_DATA=$tmp/c "$podsim" run "$q" --set parallel.tp=1 --set parallel.dp=8 --no-db --json 2>/dev/null |
	grep -q '"step_band_s":null,.*"implausible":false' ||
	{ echo "c) a 70 % ceiling still flags it, or a band without a table"; fail=1; }

# --- d) no tables, a bad table, inference ------------------------------------------
PODSIM_DATA=$tmp/empty "$podsim" run "$q" --no-db >"$tmp/none.txt" 2>/dev/null
grep -q 'likely\|error band\|implausible' "$tmp/none.txt" && { echo "d) band without a table"; fail=1; }
mkdir -p "$tmp/bad/topologies"
printf 'generation,framework\nhopper\n' >"$tmp/bad/topologies/bands.csv"
err=$(PODSIM_DATA=$tmp/bad "$podsim" run "$q" --no-db 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "d) bad table: want exit 2, got $rc"; fail=1; }
echo "$err" | grep -q "^$tmp/bad/topologies/bands.csv:2: error: " || { echo "d) bad table message: $err"; fail=1; }
"$podsim" run scenarios/gpt3-175b-zero-inference.ini --no-db --json 2>/dev/null |
	grep -q '"step_band_s":null,"band_from":null,' || { echo "d) inference has a band"; fail=1; }
"$podsim" validate "$tmp/d.csv" --data . --bands-out "$tmp/nodir/b.csv" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "d) --bands-out in a missing folder (bad input): want 2, got $rc"; fail=1; }
exit $fail
