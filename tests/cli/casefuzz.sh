#!/usr/bin/env bash
# casefuzz.sh PODSIM - synthetic case rows in every schema of tests/cases
# (tools/casefuzz, a small fixed seed) through podsim validate, from the
# source root: no crash, every row predicted but those no real system could
# have run (the named plan checks and framework rules), every prediction
# finite and no faster than the model's FLOPs at the GPUs' dense peak, every
# open dp / micro_batch / vpp / global batch named as an assumption, every
# memory row with its verdict.
set -u
podsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tools/casefuzz gen "$tmp" --seed 7 --random 12 --efa 12 >/dev/null || exit 1
python3 tools/casefuzz check "$tmp" --podsim "$podsim" \
	--files train-fw.csv,memory.csv,micro.csv,efa.csv >"$tmp/out.txt"
rc=$?
grep -v ' impossible: ' "$tmp/out.txt"
exit $rc
