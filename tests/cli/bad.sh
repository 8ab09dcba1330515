#!/usr/bin/env bash
# bad.sh PODSIM CASE.ini - a bad scenario must give exit status 2, exactly the
# messages of tests/bad/CASE.err on stderr, nothing on stdout, and no database.
# A first line "; args: ..." in CASE.ini adds command-line arguments.
set -u
podsim=$1 case=$2
expected=${case%.ini}.err
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=$(sed -n '1s/^; args: //p' "$case")
# shellcheck disable=SC2086
"$podsim" run "$case" $args --db "$tmp/runs.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
fail=0
if [ $rc -ne 2 ]; then echo "exit status $rc, want 2"; fail=1; fi
if [ -s "$tmp/out" ]; then echo "unexpected stdout:"; cat "$tmp/out"; fail=1; fi
if [ -e "$tmp/runs.db" ]; then echo "a database was written"; fail=1; fi
if ! diff -u "$expected" "$tmp/err"; then echo "stderr differs from $expected"; fail=1; fi
exit $fail
