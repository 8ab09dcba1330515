#!/usr/bin/env bash
# validate.sh PODSIM CSV - the validation gate: the overall MAPE of the case
# file must stay under its threshold in tests/cases/max-mape.txt. For the
# training runs (calibration.csv) the same validation also regenerates the
# error-band table (--bands-out), which must equal the shipped
# topologies/bands.csv: after a change of the timing model, regenerate it with
# tools/update-bands (then the goldens with tools/update-goldens).
set -u
podsim=$1 csv=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
max=$(awk -v f="$(basename "$csv")" '$1 == f { print $2 }' tests/cases/max-mape.txt)
[ -n "$max" ] || { echo "no threshold for $csv in tests/cases/max-mape.txt"; exit 1; }
bands=()
[ "$(basename "$csv")" = calibration.csv ] && bands=(--bands-out "$tmp/bands.csv")
"$podsim" validate "$csv" --max-mape "$max" --data . "${bands[@]}" >"$tmp/out.txt" || fail=1
tail -n 12 "$tmp/out.txt"
if [ ${#bands[@]} -gt 0 ] && ! cmp -s topologies/bands.csv "$tmp/bands.csv"; then
	echo "regenerated topologies/bands.csv differs (run tools/update-bands):"
	diff topologies/bands.csv "$tmp/bands.csv"
	fail=1
fi
exit $fail
