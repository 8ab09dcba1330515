#!/usr/bin/env bash
# sustain.sh PODSIM - `podsim calibrate --sustain`: the fit of a GPU type's
# tensor_sustain on its measured training steps, on a coarse grid to stay
# fast (H100 16-bit rows, 0.6 to 1 in steps of 0.1: 5 points): it prints a
# value on the grid, every source with before / after / left-out figures and
# a mean, the fit is no worse than the GPU file's value over the same rows,
# --out writes the [gpu] key atomically, and bad arguments exit 2 writing
# nothing.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=tests/cases/calibration.csv
out=$("$podsim" calibrate "$csv" --sustain --gpu h100-sxm5-80g --range 0.6,1 --step 0.1 \
	--out "$tmp/s.ini" 2>"$tmp/err") || { echo "fit failed"; cat "$tmp/err"; fail=1; }
echo "$out"
v=$(echo "$out" | sed -n 's/^h100-sxm5-80g: tensor_sustain = \([0-9.]*\) (.*/\1/p')
case "$v" in 0.600 | 0.700 | 0.800 | 0.900 | 1.000) ;; *) echo "value '$v' not on the grid"; fail=1 ;; esac
echo "$out" | grep -q '^  Megatron-Core README ' || { echo "no per-source line"; fail=1; }
mean=$(echo "$out" | sed -n 's/.*MAPE \([0-9.]*\)% before, \([0-9.]*\)% after, \([0-9.]*\)% left out/\1 \2 \3/p')
set -- $mean
awk -v b="${1:-0}" -v a="${2:-9}" 'BEGIN { exit !(a + 0 <= b + 0) }' || { echo "fit worse than the file: $mean"; fail=1; }
grep -q "^tensor_sustain = $v$" "$tmp/s.ini" || { echo "ini not written"; fail=1; }
grep -q '^;   Megatron-Core README' "$tmp/s.ini" || { echo "ini lacks the table"; fail=1; }
for bad in "--sustain" "--sustain --gpu a/b" "--sustain --gpu h100-sxm5-80g --range 1,0.5" \
	"--sustain --gpu h100-sxm5-80g --step 0" "--sustain --gpu h100-sxm5-80g --range 0.1,1 --step 0.001"; do
	# shellcheck disable=SC2086
	"$podsim" calibrate "$csv" $bad --out "$tmp/bad.ini" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || { echo "'$bad' exited $rc, want 2"; fail=1; }
	[ ! -e "$tmp/bad.ini" ] || { echo "'$bad' wrote a file"; fail=1; }
done
exit $fail
