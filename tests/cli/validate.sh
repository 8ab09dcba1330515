#!/usr/bin/env bash
# validate.sh PODSIM CSV - the validation gate: the overall MAPE of the case
# file must stay under its threshold in tests/cases/max-mape.txt.
set -u
podsim=$1 csv=$2
max=$(awk -v f="$(basename "$csv")" '$1 == f { print $2 }' tests/cases/max-mape.txt)
[ -n "$max" ] || { echo "no threshold for $csv in tests/cases/max-mape.txt"; exit 1; }
"$podsim" validate "$csv" --max-mape "$max" --data . | tail -n 12
