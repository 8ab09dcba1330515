#!/usr/bin/env bash
# determinism.sh PODSIM - the same scenario and seed give byte-identical JSON
# and identical database rows (digest over every column except ids and
# timestamps), run twice into two fresh databases and twice into one.
set -u
podsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=scenarios/quickstart.ini
fail=0
"$podsim" run "$s" --json --db "$tmp/a.db" | sed 's/"run_id":[0-9]*/"run_id":N/' >"$tmp/a.json" || fail=1
"$podsim" run "$s" --json --db "$tmp/b.db" | sed 's/"run_id":[0-9]*/"run_id":N/' >"$tmp/b.json" || fail=1
cmp "$tmp/a.json" "$tmp/b.json" || { echo "JSON differs between runs"; fail=1; }
da=$("$podsim" runs digest --db "$tmp/a.db") || fail=1
db=$("$podsim" runs digest --db "$tmp/b.db") || fail=1
[ -n "$da" ] && [ "$da" = "$db" ] || { echo "database digests differ: $da vs $db"; fail=1; }
# The same run stored twice in one database: both rows hold identical figures.
"$podsim" run "$s" --json --db "$tmp/a.db" >/dev/null || fail=1
n=$("$podsim" runs --db "$tmp/a.db" | grep -c quickstart)
[ "$n" = 2 ] || { echo "expected 2 stored runs, found $n"; fail=1; }
"$podsim" runs show 1 --json --db "$tmp/a.db" | sed 's/"run_id":[0-9]*/"run_id":N/' >"$tmp/1.json"
"$podsim" runs show 2 --json --db "$tmp/a.db" | sed 's/"run_id":[0-9]*/"run_id":N/' >"$tmp/2.json"
cmp "$tmp/1.json" "$tmp/2.json" || { echo "stored runs differ"; fail=1; }
cmp "$tmp/1.json" "$tmp/a.json" || { echo "runs show differs from run --json"; fail=1; }
exit $fail
