#!/usr/bin/env bash
# usage.sh PODSIM - every command has --help, unknown commands and options are
# usage errors with status 2.
set -u
podsim=$1
fail=0
for c in "" run runs keys validate; do
	# shellcheck disable=SC2086
	out=$("$podsim" $c --help) || { echo "podsim $c --help failed"; fail=1; }
	echo "$out" | grep -q '^usage: podsim' || { echo "podsim $c --help: no usage line"; fail=1; }
done
"$podsim" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown command: want 2"; fail=1; }
"$podsim" run --frob x.ini >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown option: want 2"; fail=1; }
"$podsim" run >/dev/null 2>&1; [ $? -eq 2 ] || { echo "missing file: want 2"; fail=1; }
"$podsim" --version | grep -q '^podsim [0-9]' || { echo "--version"; fail=1; }
exit $fail
