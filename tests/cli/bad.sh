#!/usr/bin/env bash
# bad.sh PODSIM CASE.ini - a bad scenario must give exit status 2, exactly the
# messages of tests/bad/CASE.err on stderr, nothing on stdout, and no database.
# A first line "; args: ..." in CASE.ini adds command-line arguments; a first
# line "; command: ..." runs that podsim command line instead of `run CASE`
# (sweep, validate, calibrate, topo, coll: the case names its own input files),
# with PODSIM_DB pointing at the database that must not appear.
set -u
podsim=$1 case=$2
expected=${case%.ini}.err
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=$(sed -n '1s/^; args: //p' "$case")
command=$(sed -n '1s/^; command: //p' "$case")
if [ -n "$command" ]; then
	# shellcheck disable=SC2086
	PODSIM_DB="$tmp/runs.db" "$podsim" $command >"$tmp/out" 2>"$tmp/err"
else
	# shellcheck disable=SC2086
	"$podsim" run "$case" $args --db "$tmp/runs.db" >"$tmp/out" 2>"$tmp/err"
fi
rc=$?
fail=0
if [ $rc -ne 2 ]; then echo "exit status $rc, want 2"; fail=1; fi
if [ -s "$tmp/out" ]; then echo "unexpected stdout:"; cat "$tmp/out"; fail=1; fi
if [ -e "$tmp/runs.db" ]; then echo "a database was written"; fail=1; fi
if ! diff -u "$expected" "$tmp/err"; then echo "stderr differs from $expected"; fail=1; fi
exit $fail
