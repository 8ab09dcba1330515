#!/usr/bin/env bash
# input.sh PODSIM - inputs that could hang podsim or exhaust its memory are
# refused at once with exit 2 (sim/core/input.c): a FIFO as a scenario, an
# include, a case file or a sweep file (each would block in open or read
# forever), and files past the size caps (16 MiB for configuration, 256 MiB
# for case files; sparse, so the test writes nothing). Each call runs under a
# timeout: a hang fails the test instead of stalling the suite.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_TEXT CMD...: exit 2 within 10 s, WANT_TEXT on stderr, no stdout
expect() {
	local name=$1 want=$2
	shift 2
	timeout 10 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 124 ] && { echo "$name: hung (killed after 10 s)"; fail=1; return; }
	[ $rc -eq 2 ] || { echo "$name: exit $rc, want 2"; cat "$tmp/err"; fail=1; }
	grep -qF -- "$want" "$tmp/err" || { echo "$name: missing '$want' in:"; cat "$tmp/err"; fail=1; }
	[ ! -s "$tmp/out" ] || { echo "$name: printed to stdout"; fail=1; }
}

mkfifo "$tmp/fifo"
expect "run FIFO" "cannot open: a FIFO, not a regular file" "$podsim" run "$tmp/fifo" --no-db
printf 'include = fifo\n' >"$tmp/inc.ini"
expect "include FIFO" "inc.ini:1: error: cannot open include 'fifo': a FIFO" \
	"$podsim" run "$tmp/inc.ini" --no-db
expect "validate FIFO" "cannot open: a FIFO" "$podsim" validate "$tmp/fifo"
expect "sweep FIFO" "cannot open: a FIFO" "$podsim" sweep "$tmp/fifo" --no-db
printf '[sweep]\nscenario = %s\n' "$tmp/fifo" >"$tmp/sw.ini"
expect "sweep scenario FIFO" "[sweep] scenario: cannot open" "$podsim" sweep "$tmp/sw.ini" --no-db
expect "nccl-tests FIFO" "cannot read: a FIFO" \
	"$podsim" calibrate "$tmp/fifo" --fabric topologies/efa-h100-cluster.ini
expect "gates FIFO" "cannot read: a FIFO" \
	"$podsim" validate tests/cases/memory.csv --gates "$tmp/fifo"

# size caps, checked before reading (sparse files: nothing is written)
truncate -s 17M "$tmp/big.ini"
expect "17 MiB scenario" "larger than 16 MiB, not a configuration file" \
	"$podsim" run "$tmp/big.ini" --no-db
truncate -s 257M "$tmp/big.csv"
expect "257 MiB case file" "larger than 256 MiB, not a case file" "$podsim" validate "$tmp/big.csv"
exit $fail
