#!/usr/bin/env bash
# sustain.sh PODSIM - `podsim calibrate --sustain`: the fit of a GPU type's
# tensor_sustain on its measured training steps, on a coarse grid to stay
# fast (H100 16-bit rows, the GPU file's value +- 0.1 in steps of 0.1: 3
# points, the file's among them): it prints a value on the grid, every source
# with before / after / left-out figures and a mean, the fit is no worse than
# the GPU file's value over the same rows,
# --out writes the [gpu] key atomically, and bad arguments exit 2 writing
# nothing.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=tests/cases/calibration.csv
v0=$(sed -n 's/^tensor_sustain = //p' topologies/gpus/h100-sxm5-80g.ini)
lo=$(awk -v v="$v0" 'BEGIN { printf "%.3f", v - 0.1 }')
hi=$(awk -v v="$v0" 'BEGIN { x = v + 0.1; if (x > 1) x = 1; printf "%.3f", x }')
out=$("$podsim" calibrate "$csv" --sustain --gpu h100-sxm5-80g --range "$lo,$hi" --step 0.1 \
	--out "$tmp/s.ini" 2>"$tmp/err") || { echo "fit failed"; cat "$tmp/err"; fail=1; }
echo "$out"
v=$(echo "$out" | sed -n 's/^h100-sxm5-80g: tensor_sustain = \([0-9.]*\) (.*/\1/p')
awk -v v="$v" -v lo="$lo" 'BEGIN { k = (v - lo) / 0.1; exit !(v != "" && k > -1e-6 &&
	(k - int(k + 0.5)) ^ 2 < 1e-9) }' || { echo "value '$v' not on the grid from $lo"; fail=1; }
echo "$out" | grep -q '^  Megatron-Core README ' || { echo "no per-source line"; fail=1; }
mean=$(echo "$out" | sed -n 's/.*MAPE \([0-9.]*\)% before, \([0-9.]*\)% after, \([0-9.]*\)% left out/\1 \2 \3/p')
set -- $mean
awk -v b="${1:-0}" -v a="${2:-9}" 'BEGIN { exit !(a + 0 <= b + 0) }' || { echo "fit worse than the file: $mean"; fail=1; }
grep -q "^tensor_sustain = $v$" "$tmp/s.ini" || { echo "ini not written"; fail=1; }
grep -q '^;   Megatron-Core README' "$tmp/s.ini" || { echo "ini lacks the table"; fail=1; }
for bad in "--sustain" "--sustain --gpu a/b" "--sustain --gpu h100-sxm5-80g --range 1,0.5" \
	"--sustain --gpu h100-sxm5-80g --step 0" "--sustain --gpu h100-sxm5-80g --range 0.1,1 --step 0.001" \
	"--sustain --gpu h100-sxm5-80g --skip-source NeMo --skip-source MosaicML"; do
	# shellcheck disable=SC2086
	"$podsim" calibrate "$csv" $bad --out "$tmp/bad.ini" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || { echo "'$bad' exited $rc, want 2"; fail=1; }
	[ ! -e "$tmp/bad.ini" ] || { echo "'$bad' wrote a file"; fail=1; }
done
exit $fail
