#!/usr/bin/env bash
# db.sh PODSIM - the run database under concurrency, crashes, old and new
# schemas, a read-only file and a full disk (issue 9):
#  a) 4 processes writing runs (and sweeps) into one database at once lose no
#     row: every `podsim run` that exited 0 is a row, counted;
#  b) a `podsim sweep` killed with SIGKILL after its first runs are stored
#     leaves a database that opens, passes PRAGMA integrity_check and holds
#     every run it had finished, each complete (its rank classes, memory and
#     link rows; readable with `podsim runs show`);
#  c) a version-1 database (built with sqlite3 from the version-1 DDL in
#     sim/store/store.c) is migrated, keeping its run; a newer version is
#     refused with a clear message and left untouched;
#  d) a read-only database file, a database in a read-only directory and a
#     full disk (ulimit -f) give an error and exit status 1, not a crash, and
#     leave the database as it was;
#  e) paths that are no run database (issue 15): --db '' (SQLite's private
#     temporary database: the run was "stored in " nowhere) is bad input,
#     exit 2, before the run; a foreign application's database (tables but no
#     podsim schema version, or a user_version without a runs table) is
#     refused with its header still in rollback-journal mode (not switched to
#     WAL first) and no -wal file beside it; a crafted database whose names
#     hold bytes that are not UTF-8 and control characters still gives valid
#     UTF-8 JSON and a well-formed XHTML page from `runs show`.
# Needs the sqlite3 command-line shell (tools/setup installs it).
set -u
podsim=$1
if ! command -v sqlite3 >/dev/null; then
	echo "db.sh: sqlite3 is not installed (tools/setup installs it)"
	exit 77
fi
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
q() { sqlite3 "$1" "$2"; }
run() { "$podsim" run scenarios/quickstart.ini --db "$@" >/dev/null 2>"$tmp/run.err"; }

# --- a) concurrent writers ------------------------------------------------
# Four shells each store 10 runs; four sweeps store 6 runs each (--top 6), all
# at once. Every run that exited 0 must be a row: 4*10 + 4*6 = 64 runs and 4
# sweeps. WAL + a 5 s busy timeout make the writers wait for each other.
db=$tmp/concurrent.db
for w in 1 2 3 4; do
	(
		ok=0
		for i in $(seq 10); do
			"$podsim" run scenarios/quickstart.ini --db "$db" --set scenario.seed=$((w * 100 + i)) \
				>/dev/null 2>>"$tmp/conc.err" && ok=$((ok + 1))
		done
		echo $ok >"$tmp/ok.$w"
	) &
	("$podsim" sweep scenarios/sweep-quickstart.ini --top 6 --db "$db" >/dev/null \
		2>>"$tmp/conc.err" && echo 6 >"$tmp/sweep.$w") &
done
wait
stored=$(cat "$tmp"/ok.* "$tmp"/sweep.* 2>/dev/null | awk '{s += $1} END {print s + 0}')
rows=$(q "$db" "SELECT count(*) FROM runs")
sweeps=$(q "$db" "SELECT count(*) FROM sweeps")
[ "$stored" -eq 64 ] || { bad "a) only $stored of 64 runs exited 0:"; cat "$tmp/conc.err"; }
[ "$rows" = "$stored" ] || bad "a) $stored runs stored, $rows rows"
[ "$sweeps" = 4 ] || bad "a) $sweeps sweeps rows, want 4"
seeds=$(q "$db" "SELECT count(DISTINCT seed) FROM runs WHERE sweep_id IS NULL")
[ "$seeds" = 40 ] || bad "a) $seeds distinct seeds of plain runs, want 40"
[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || bad "a) integrity_check"

# --- b) SIGKILL in the middle of a sweep ------------------------------------
# A sweep simulating 1,300 plans (a wide quickstart space, --top past its
# size) takes several seconds even on a fast machine; kill it once 5 runs are
# stored (the poll waits up to 10 s for them, for a loaded machine). Runs are written one transaction each, so the survivors are
# complete: at least one rank class, six memory rows per class
# (PLAN_MEM_COUNT categories) and its link rows.
db=$tmp/killed.db
"$podsim" sweep scenarios/quickstart.ini --vary parallel.tp=auto --vary parallel.pp=auto \
	--vary parallel.micro_batch=auto --vary parallel.zero=0,1 --vary parallel.vpp=auto \
	--vary parallel.overlap_grad_reduce=auto --vary parallel.schedule=auto --top 100000 \
	--db "$db" >/dev/null 2>&1 &
pid=$!
before=0
for _ in $(seq 1000); do
	before=$(q "$db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${before:-0}" -ge 5 ] && break
	sleep 0.01
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
status=$?
[ $status -eq 137 ] || bad "b) the sweep was not killed mid-way (status $status): make it longer"
[ "${before:-0}" -ge 5 ] || bad "b) fewer than 5 runs stored before the kill"
[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || bad "b) integrity_check after SIGKILL"
after=$(q "$db" "SELECT count(*) FROM runs")
[ "$after" -ge "$before" ] || bad "b) $before runs seen before the kill, $after after"
partial=$(q "$db" "SELECT count(*) FROM runs r WHERE
	(SELECT count(*) FROM run_classes c WHERE c.run_id = r.id) = 0
	OR (SELECT count(*) FROM run_memory m WHERE m.run_id = r.id) !=
	   7 * (SELECT count(*) FROM run_classes c WHERE c.run_id = r.id)
	OR NOT EXISTS (SELECT 1 FROM run_links l WHERE l.run_id = r.id)")
[ "$partial" = 0 ] || bad "b) $partial stored runs are incomplete"
"$podsim" runs --db "$db" >"$tmp/list" 2>&1 || bad "b) podsim runs fails after SIGKILL"
for id in $(q "$db" "SELECT id FROM runs"); do
	"$podsim" runs show "$id" --db "$db" >/dev/null 2>&1 || bad "b) runs show $id fails"
done
run "$db" || bad "b) cannot store a run after SIGKILL: $(cat "$tmp/run.err")"
[ "$(q "$db" "SELECT count(*) FROM runs")" -eq $((after + 1)) ] || bad "b) the new run is missing"

# --- c) older and newer schema versions -------------------------------------
# The version-1 DDL is migrations[0] of store.c: the C string literals from
# the array's opening brace to the first one that ends with '",'.
ddl=$(sed -n '/^static const char \*const migrations/,/",$/p' "$root/sim/store/store.c" |
	sed -n 's/^[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' | tr -d '\n')
case $ddl in
"CREATE TABLE runs ("*"CREATE INDEX runs_scenario ON runs(scenario_hash);") ;;
*) bad "c) could not extract the version-1 DDL from sim/store/store.c: $ddl" ;;
esac
version=$(sed -n 's/^#define STORE_SCHEMA_VERSION \([0-9]*\)$/\1/p' "$root/sim/store/store.h")
[ -n "$version" ] || bad "c) no STORE_SCHEMA_VERSION in sim/store/store.h"
db=$tmp/v1.db
q "$db" "$ddl PRAGMA user_version = 1;
	INSERT INTO runs (created_utc, podsim_version, scenario_name, scenario_hash, scenario_text,
	 seed, status, model, gpu, cluster, plan, gpus, step_time_s, mfu, oom, tasks, events)
	VALUES ('2026-01-01T00:00:00Z', '0.1.0', 'old-run', '0123456789abcdef', '[scenario]',
	 7, 'ok', 'm', 'g', 'c', 'tp1 pp1 dp1', 8, 1.5, 0.5, 0, 10, 10);"
"$podsim" runs --db "$db" >"$tmp/v1.out" 2>"$tmp/v1.err" || bad "c) podsim runs on a v1 database: $(cat "$tmp/v1.err")"
grep -q old-run "$tmp/v1.out" || bad "c) the version-1 run is not listed after migration"
[ "$(q "$db" "PRAGMA user_version")" = "$version" ] || bad "c) user_version $(q "$db" "PRAGMA user_version") after migration, want $version"
run "$db" || bad "c) cannot store a run in a migrated database: $(cat "$tmp/run.err")"
[ "$(q "$db" "SELECT count(*) FROM runs")" = 2 ] || bad "c) want 2 runs after migration and a new run"
[ "$(q "$db" "SELECT count(*) FROM sweeps")" = 0 ] || bad "c) the sweeps table is missing"

db=$tmp/v99.db
q "$db" "CREATE TABLE future (x); PRAGMA user_version = 99;"
run "$db"
rc=$?
[ $rc -eq 1 ] || bad "c) a newer database: exit status $rc, want 1"
want="$db: error: database schema version 99 is newer than this podsim supports ($version)"
[ "$(cat "$tmp/run.err")" = "$want" ] || bad "c) newer database message: $(cat "$tmp/run.err")"
[ "$(q "$db" "PRAGMA user_version")" = 99 ] || bad "c) the newer database was changed"

echo "not a database, just text" >"$tmp/text.db"
run "$tmp/text.db"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/run.err")" = "$tmp/text.db: error: not a SQLite database" ] ||
	bad "c) a text file as database: status $rc: $(cat "$tmp/run.err")"

# --- d) read-only file, read-only directory, full disk -----------------------
# Root ignores permission bits, so as root the podsim runs as nobody.
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
chmod 755 "$tmp"
mkdir "$tmp/ro"
db=$tmp/ro/runs.db
run "$db" || bad "d) setup: $(cat "$tmp/run.err")"
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
sum=$(cksum <"$db")
chmod 444 "$db"
chmod 555 "$tmp/ro"
as_user "$podsim" run scenarios/quickstart.ini --db "$db" >/dev/null 2>"$tmp/ro.err"
rc=$?
[ $rc -eq 1 ] || bad "d) read-only database: exit status $rc, want 1"
grep -q "^$db: error: " "$tmp/ro.err" || bad "d) read-only database message: $(cat "$tmp/ro.err")"
[ "$(cksum <"$db")" = "$sum" ] || bad "d) the read-only database changed"
as_user "$podsim" run scenarios/quickstart.ini --db "$tmp/ro/new.db" >/dev/null 2>"$tmp/ro.err"
rc=$?
[ $rc -eq 1 ] || bad "d) database in a read-only directory: exit status $rc, want 1"
grep -q "^$tmp/ro/new.db: error: " "$tmp/ro.err" || bad "d) read-only directory message: $(cat "$tmp/ro.err")"
chmod 755 "$tmp/ro"
chmod 644 "$db"

# Full disk: a file size limit of 128 KiB (SIGXFSZ ignored, so writes fail with
# EFBIG as on a full disk). A fresh database (~61 KiB with the campaign tables of
# schema 9; its WAL holds the schema pages as well) fits; a run about the 15th does not.
db=$tmp/full.db
(
	trap '' XFSZ
	ulimit -f 128
	for i in $(seq 60); do
		"$podsim" run scenarios/quickstart.ini --db "$db" --set scenario.seed=$i \
			>/dev/null 2>"$tmp/full.err" || exit $?
	done
	exit 0
)
rc=$?
[ $rc -eq 1 ] || bad "d) full disk: exit status $rc, want 1"
grep -q "^$db: error: " "$tmp/full.err" || bad "d) full disk message: $(cat "$tmp/full.err")"
[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || bad "d) integrity_check after a full disk"
n=$(q "$db" "SELECT count(*) FROM runs")
[ "$n" -ge 1 ] && [ "$n" -lt 60 ] || bad "d) $n runs stored under a 128 KiB limit"

# --- e) no run database -----------------------------------------------------
"$podsim" run scenarios/quickstart.ini --db '' >"$tmp/e.out" 2>"$tmp/e.err"
rc=$?
[ $rc -eq 2 ] || bad "e) --db '': exit $rc, want 2"
grep -qF "'': error: cannot open database: an empty database path" "$tmp/e.err" ||
	bad "e) --db '' message: $(cat "$tmp/e.err")"
[ ! -s "$tmp/e.out" ] || bad "e) --db '' printed a report"
# journal mode in the header: bytes 18 and 19 are 1 (rollback) or 2 (WAL)
mode() { od -An -tu1 -j18 -N2 "$1" | tr -s ' ' | sed 's/^ //'; }
for v in 0 5; do
	f="$tmp/foreign$v.db"
	sqlite3 "$f" "CREATE TABLE notes(x); INSERT INTO notes VALUES (1); PRAGMA user_version = $v;"
	before=$(md5sum <"$f")
	"$podsim" runs --db "$f" >/dev/null 2>"$tmp/f.err"
	rc=$?
	[ $rc -eq 1 ] || bad "e) foreign database (user_version $v): exit $rc, want 1"
	grep -q "^$f: error: not a podsim database" "$tmp/f.err" ||
		bad "e) foreign database message: $(cat "$tmp/f.err")"
	[ "$(mode "$f")" = "1 1" ] || bad "e) foreign database switched to WAL: header $(mode "$f")"
	[ ! -e "$f-wal" ] || bad "e) foreign database got a -wal file"
	[ "$(md5sum <"$f")" = "$before" ] || bad "e) foreign database (user_version $v) changed"
done

# a crafted database: names with Latin-1, an escape and a NUL-free C0 byte
c="$tmp/crafted.db"
"$podsim" run scenarios/quickstart.ini --db "$c" >/dev/null 2>&1 || bad "e) crafted: first run"
sqlite3 "$c" "UPDATE runs SET scenario_name = CAST(X'636166e9201b5b33316d01' AS TEXT),
	model = CAST(X'c0af' AS TEXT)"
"$podsim" runs show 1 --db "$c" --json --html "$tmp/crafted.html" >"$tmp/crafted.json" 2>/dev/null ||
	bad "e) crafted: runs show failed"
python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' \
	"$tmp/crafted.json" 2>/dev/null || bad "e) crafted: the JSON is not valid UTF-8 JSON"
python3 -c '
import sys, xml.dom.minidom as m
m.parseString(open(sys.argv[1], "rb").read())' "$tmp/crafted.html" 2>/dev/null ||
	bad "e) crafted: the HTML page is not well-formed XML"

exit $fail
