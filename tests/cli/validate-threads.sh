#!/usr/bin/env bash
# validate-threads.sh PODSIM - `podsim validate --threads N` predicts N rows
# at once: the report (every row's prediction, status, reason and
# assumptions, and the summary) is byte for byte that of --threads 1, for
# training rows (vTrain's multi-node rows and the Megatron-Core README's,
# whose open columns are read before the predictions), memory rows (whose
# open framework columns are) and microbenchmarks; a count out of 1..64 is
# bad input (exit 2). Run from the source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for spec in "calibration.csv --only V" "calibration.csv --only D" "memory.csv" "microbench.csv"; do
	set -- $spec
	f=$1
	shift
	"$podsim" validate tests/cases/$f "$@" --threads 1 --json >"$tmp/t1.json" 2>"$tmp/t1.err" ||
		{ echo "$spec --threads 1 failed"; cat "$tmp/t1.err"; fail=1; }
	"$podsim" validate tests/cases/$f "$@" --threads 3 --json >"$tmp/t3.json" 2>"$tmp/t3.err" ||
		{ echo "$spec --threads 3 failed"; cat "$tmp/t3.err"; fail=1; }
	[ -s "$tmp/t1.json" ] && cmp -s "$tmp/t1.json" "$tmp/t3.json" ||
		{ echo "$spec: --threads 1 and 3 differ"; fail=1; }
done
# the blanked memory rows read back through their source's stacks (the
# open framework cells written before the rows run in parallel)
python3 - "$tmp/mem.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open("tests/cases/memory.csv")))
out = []
for r in rows:
    out.append(dict(r))
    b = dict(r); b["id"] += "~fw"; b["framework"] = ""; out.append(b)
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader(); w.writerows(out)
PY
"$podsim" validate "$tmp/mem.csv" --threads 1 --json >"$tmp/m1.json" 2>/dev/null
"$podsim" validate "$tmp/mem.csv" --threads 4 --json >"$tmp/m4.json" 2>/dev/null
[ -s "$tmp/m1.json" ] && cmp -s "$tmp/m1.json" "$tmp/m4.json" ||
	{ echo "blanked framework columns: --threads 1 and 4 differ"; fail=1; }
err=$("$podsim" validate tests/cases/memory.csv --threads 0 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q -- "--threads takes a count from 1 to 64" ||
	{ echo "--threads 0: exit $rc, $err"; fail=1; }
exit $fail
