#!/usr/bin/env bash
# sweep-scale.sh PODSIM - sweeps at scale, end to end from the source root:
#  1. --shard I/N: shards 0/2 and 1/2 merged with `podsim runs merge` give
#     the database digest of the unsharded sweep (same runs, same order);
#     the merged sweep is one row again; bad --shard and merge input exit 2/1.
#  2. Ctrl-C: SIGINT while plans are simulated stops after the run in flight,
#     keeps the finished runs stored, says how many, exits 130.
#  3. topology=A.ini,B.ini: the best plan on the swapped topology is exactly
#     `podsim run` of the scenario with that cluster include.
#  4. MPI: `mpirun -n 2 podsim sweep` prints what the serial sweep prints and
#     stores the same digest (skipped, with a message, without mpirun or
#     when podsim was built without MPI).
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=scenarios/sweep-quickstart.ini # 288 plans, 216 fit, top 16 simulated

# --- 1. shards + merge == unsharded --------------------------------------------
"$podsim" sweep "$s" --db "$tmp/u.db" >"$tmp/u.txt" 2>&1 || { echo "unsharded sweep failed"; fail=1; }
"$podsim" sweep "$s" --shard 0/2 --db "$tmp/s0.db" >"$tmp/s0.txt" 2>&1 || { echo "shard 0/2 failed"; fail=1; }
"$podsim" sweep "$s" --shard 1/2 --db "$tmp/s1.db" >"$tmp/s1.txt" 2>&1 || { echo "shard 1/2 failed"; fail=1; }
# Places 0, 2, ..., 14 of the pre-screen order go to shard 0: 8 runs each.
grep -q '^sweep 1: shard 0/2: 288 plans, 216 valid, 216 fit in memory, 8 simulated$' "$tmp/s0.txt" ||
	{ echo "shard 0/2: $(head -1 "$tmp/s0.txt")"; fail=1; }
# Shards given in either order.
out=$("$podsim" runs merge "$tmp/m.db" "$tmp/s1.db" "$tmp/s0.db") || { echo "merge failed"; fail=1; }
[ "$out" = "merged 16 runs and 1 sweeps from 2 databases into $tmp/m.db" ] || { echo "merge said: $out"; fail=1; }
du=$("$podsim" runs digest --db "$tmp/u.db") dm=$("$podsim" runs digest --db "$tmp/m.db")
d0=$("$podsim" runs digest --db "$tmp/s0.db")
[ -n "$du" ] && [ "$du" = "$dm" ] || { echo "merged digest $dm != unsharded $du"; fail=1; }
[ "$du" != "$d0" ] || { echo "a shard alone has the whole sweep's digest"; fail=1; }
# The merged database is a normal one: compare sweep:1 lists its 16 runs.
"$podsim" compare sweep:1 --db "$tmp/m.db" >"$tmp/c.txt" 2>&1 || { echo "compare merged failed"; fail=1; }
# Merging one shard into a database that holds the other, then the rest, is
# the same as merging both at once.
"$podsim" runs merge "$tmp/p.db" "$tmp/s0.db" >/dev/null && "$podsim" runs merge "$tmp/p.db" "$tmp/s1.db" >/dev/null ||
	{ echo "merge in two steps failed"; fail=1; }
n=$("$podsim" runs --db "$tmp/p.db" --limit 0 | grep -c quickstart)
[ "$n" = 16 ] || { echo "two-step merge: $n runs, want 16"; fail=1; }
# Bad input.
for bad in 2/2 -1/2 1 1/0 a/b 0/5000; do
	"$podsim" sweep "$s" --shard "$bad" --no-db >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || { echo "--shard $bad: want 2, got $rc"; fail=1; }
done
err=$("$podsim" runs merge "$tmp/x.db" "$tmp/none.db" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "none.db: error: cannot open database" ||
	{ echo "merge missing input: rc $rc: $err"; fail=1; }
err=$("$podsim" runs merge "$tmp/m.db" "$tmp/m.db" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "m.db: error: is the output database" ||
	{ echo "merge into itself: rc $rc: $err"; fail=1; }
"$podsim" runs merge "$tmp/only.db" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "merge without inputs: want 2, got $rc"; fail=1; }

# --- 2. Ctrl-C ----------------------------------------------------------------------
# 24 GPT-3 175B plans on 1,024 GPUs (16 fit in memory), about 0.1 s each: signal as soon as the
# first run is stored; the sweep ends after the run in flight.
"$podsim" sweep scenarios/gpt3-175b-selene.ini --vary parallel.micro_batch=1,2 \
	--vary parallel.recompute=auto --vary parallel.vpp=1,2,3,4 --top 24 --db "$tmp/i.db" \
	>"$tmp/i.out" 2>"$tmp/i.err" &
pid=$!
for _ in $(seq 1 500); do
	n=$("$podsim" runs --db "$tmp/i.db" 2>/dev/null | grep -c gpt3)
	[ "${n:-0}" -ge 1 ] && break
	sleep 0.01
done
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 130 ] || { echo "SIGINT: want exit 130, got $rc"; cat "$tmp/i.err"; fail=1; }
# 16 of the 24 plans are simulated (8 do not fit: the sweep's pruned
# count); the sweep stops well before all 16.
done_n=$(sed -n 's/^podsim sweep: interrupted: \([0-9]*\) of 16 plans simulated and stored$/\1/p' "$tmp/i.err")
stored=$("$podsim" runs --db "$tmp/i.db" --limit 0 | grep -c gpt3)
[ -n "$done_n" ] && [ "$done_n" = "$stored" ] && [ "$stored" -ge 1 ] && [ "$stored" -lt 16 ] ||
	{ echo "SIGINT: said '$done_n', stored $stored"; cat "$tmp/i.err"; fail=1; }

# --- 2b. SIGTERM (SLURM's time limit) and SIGHUP stop the same way -----------------
# exit 128 + the signal, the summary names it, and the sweep record's
# simulated count is what was stored, not every planned run (issue 15)
for sig in TERM HUP; do
	db="$tmp/$sig.db"
	"$podsim" sweep scenarios/gpt3-175b-selene.ini --vary parallel.micro_batch=1,2 \
		--vary parallel.recompute=auto --vary parallel.vpp=1,2,3,4 --top 24 --db "$db" \
		>/dev/null 2>"$tmp/$sig.err" &
	pid=$!
	for _ in $(seq 1 500); do
		n=$("$podsim" runs --db "$db" 2>/dev/null | grep -c gpt3)
		[ "${n:-0}" -ge 1 ] && break
		sleep 0.01
	done
	kill -$sig $pid
	wait $pid; rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc -eq $want ] || { echo "SIG$sig: want exit $want, got $rc"; cat "$tmp/$sig.err"; fail=1; }
	said=$(sed -n "s/^podsim sweep: interrupted by SIG$sig: \([0-9]*\) of 16 plans simulated and stored\$/\1/p" \
		"$tmp/$sig.err")
	stored=$("$podsim" runs --db "$db" --limit 0 | grep -c gpt3)
	recorded=$(sqlite3 "$db" "SELECT simulated FROM sweeps" 2>/dev/null || echo "$stored")
	[ -n "$said" ] && [ "$said" = "$stored" ] && [ "$recorded" = "$stored" ] && [ "$stored" -lt 16 ] ||
		{ echo "SIG$sig: said '$said', stored $stored, recorded $recorded"; cat "$tmp/$sig.err"; fail=1; }
done

# --- 3. topology as a dimension ----------------------------------------------------
# The quickstart (GPT 1.7B, gb 128, mb 4) on its 2 DGX A100 (16 GPUs) and on a
# DGX H100 SuperPOD unit (32 x 8 = 256 GPUs; dp derived per topology). The
# sweep's best H100 plan must be exactly `podsim run` of the scenario with its
# cluster include replaced.
"$podsim" sweep scenarios/quickstart.ini --vary topology=topologies/tiny-2node.ini,topologies/dgx-h100-superpod.ini \
	--vary parallel.tp=1,2,4,8 --vary parallel.pp=1,2 --top 16 --json --no-db >"$tmp/t.json" 2>"$tmp/t.err" ||
	{ echo "topology sweep failed"; cat "$tmp/t.err"; fail=1; }
grep -q '"plans_total":16,' "$tmp/t.json" || { echo "topology sweep: not 16 plans"; fail=1; }
grep -q '"topology":"topologies/tiny-2node.ini"' "$tmp/t.json" || { echo "no A100 plan"; fail=1; }
h100=$(grep -o '{"rank":[0-9]*,[^}]*"topology":"topologies/dgx-h100-superpod.ini"[^}]*}[^}]*' "$tmp/t.json" | head -1)
set -- $(echo "$h100" | grep -o '"parallel\.[a-z]*":"[0-9]*"' | tr -d '"' | tr ':' '=' | sed 's/^/--set /')
want=$(echo "$h100" | grep -o '"step_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
sed -e "s|^include = ../models/|include = $PWD/models/|" \
	-e "s|^include = ../topologies/tiny-2node.ini|include = $PWD/topologies/dgx-h100-superpod.ini|" \
	scenarios/quickstart.ini >"$tmp/h100.ini"
got=$("$podsim" run "$tmp/h100.ini" "$@" --json --no-db 2>/dev/null | grep -o '"step_time_s":[0-9.e+-]*' | cut -d: -f2)
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "H100 plan ($*): sweep $want, run $got"; fail=1; }
set -- "$podsim"
# The same in a sweep file, topology files relative to it.
ln -s "$PWD/topologies" "$tmp/topos"
printf '[sweep]\nscenario = %s/scenarios/quickstart.ini\ntopology = topos/tiny-2node.ini, topos/dgx-h100-superpod.ini\ntp = 1,2,4,8\npp = 1,2\ntop = 16\n' \
	"$PWD" >"$tmp/hw.ini"
"$podsim" sweep "$tmp/hw.ini" --json --no-db >"$tmp/hw.json" 2>"$tmp/hw.err" || { echo "topology sweep file failed"; cat "$tmp/hw.err"; fail=1; }
a=$(grep -o '"step_s":[0-9.e+-]*' "$tmp/t.json" | head -1) b=$(grep -o '"step_s":[0-9.e+-]*' "$tmp/hw.json" | head -1)
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "sweep file topology: best $b, --vary $a"; fail=1; }
err=$("$podsim" sweep scenarios/quickstart.ini --vary topology=topologies/nope.ini --no-db 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$err" = "podsim sweep: error: --vary topology=topologies/nope.ini: topology topologies/nope.ini: cannot read the file: No such file or directory" ] ||
	{ echo "bad topology: rc $rc: $err"; fail=1; }

# --- 4. MPI ---------------------------------------------------------------------------
if ! command -v mpirun >/dev/null; then
	echo "MPI test skipped: no mpirun"
elif ! "$podsim" sweep --help | grep -q '^MPI: built in'; then
	echo "MPI test skipped: podsim built without MPI (meson -Dmpi=enabled)"
else
	# OpenMPI's own allocations outlive MPI_Finalize: no leak check under ASan.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		mpirun --allow-run-as-root --oversubscribe -n 2 "$podsim" sweep "$s" --db "$tmp/mpi.db" \
		>"$tmp/mpi.txt" 2>"$tmp/mpi.err" || { echo "mpirun sweep failed"; cat "$tmp/mpi.err"; fail=1; }
	dp=$("$podsim" runs digest --db "$tmp/mpi.db")
	[ "$dp" = "$du" ] || { echo "MPI digest $dp != serial $du"; fail=1; }
	# Same table as the serial sweep (the pre-screen rate aside).
	grep -v '^podsim: stored' "$tmp/u.txt" | sed 's/[0-9]* plans\/s//' >"$tmp/u2.txt"
	sed 's/[0-9]* plans\/s//' "$tmp/mpi.txt" >"$tmp/mpi2.txt"
	cmp -s "$tmp/u2.txt" "$tmp/mpi2.txt" || { echo "MPI output differs:"; diff "$tmp/u2.txt" "$tmp/mpi2.txt" | head; fail=1; }
fi
exit $fail
