#!/usr/bin/env bash
# framework.sh PODSIM - `podsim calibrate --framework` on a small slice of the
# vTrain single-node rows (S0001-S0009, 0.2 B-parameter GPT on 8 A100s, host
# bound): the fit must lower the slice's MAPE below what the eager-PyTorch
# profile (op_overhead's default per op) gives, land inside the search range, check held-out
# rows, and write a profile atomically; bad arguments exit 2 and write nothing.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=tests/cases/calibration.csv
out=$("$podsim" calibrate "$csv" --framework t --only S000 --check-only S001 --range 0,200 \
	--out "$tmp/t.ini" 2>"$tmp/err") || { echo "fit failed"; cat "$tmp/err"; fail=1; }
echo "$out"
x=$(echo "$out" | sed -n 's/.*op_overhead = \([0-9.]*\) us/\1/p')
fit=$(echo "$out" | sed -n 's/.*fit rows *[0-9]* *MAPE *\([0-9.]*\) %.*/\1/p')
before=$(echo "$out" | sed -n 's/.*current profiles: \([0-9.]*\) %.*/\1/p')
awk -v x="$x" 'BEGIN { exit !(x > 0 && x < 200) }' || { echo "fitted value $x out of range"; fail=1; }
awk -v a="$fit" -v b="$before" 'BEGIN { exit !(a + 0 < b + 0) }' ||
	{ echo "fit MAPE $fit not below $before"; fail=1; }
echo "$out" | grep -q "held-out rows" || { echo "no held-out line"; fail=1; }
grep -q "^op_overhead = $x us$" "$tmp/t.ini" || { echo "profile not written"; fail=1; }
[ ! -e "$tmp/t.ini.tmp" ] || { echo "temporary file left"; fail=1; }
for bad in "--framework" "--framework a/b" "--framework t --range 5,1" "--framework t --only ZZZ"; do
	# shellcheck disable=SC2086
	"$podsim" calibrate "$csv" $bad --out "$tmp/bad.ini" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || { echo "'$bad' exited $rc, want 2"; fail=1; }
	[ ! -e "$tmp/bad.ini" ] || { echo "'$bad' wrote a file"; fail=1; }
done
exit $fail
