#!/usr/bin/env bash
# golden.sh PODSIM CASE.ini - the text report of CASE must equal
# tests/golden/expected/CASE.txt (regenerate with tools/update-goldens). A first
# line "; args: ..." in CASE.ini adds command-line arguments.
set -u
podsim=$1 case=$2
expected=tests/golden/expected/$(basename "$case" .ini).txt
err=$(mktemp)
trap 'rm -f "$err"' EXIT
args=$(sed -n '1s/^; args: //p' "$case") # optional first line: extra arguments
# shellcheck disable=SC2086
out=$("$podsim" run "$case" --no-db $args 2>"$err")
rc=$?
if [ $rc -ne 0 ]; then
	echo "podsim exited with $rc:"; cat "$err"; exit 1
fi
if ! diff -u "$expected" <(printf '%s\n' "$out"); then
	echo "golden output differs from $expected (tools/update-goldens regenerates it)"
	exit 1
fi
