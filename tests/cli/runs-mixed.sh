#!/usr/bin/env bash
# runs-mixed.sh PODSIM - a stored run on a mixed cluster gives the live run's
# memory verdict, basis and figures (issue 22): Llama 2 70B on 30 DGX H100 +
# 2 DGX A100 40GB without recomputation (the A100 nodes hold stages 0 and 1;
# tests/cli/verdicts.sh derives the plans):
#   micro_batch 2                out of memory on the A100 (stage 0 needs
#                                39.9 GiB of 39.5 GiB), the H100s fit;
#   micro_batch 1, 5120 tokens   tight on the A100, the H100s fit.
# For each: `runs show` prints the same "mixed GPU types" section and the
# same memory section (every GPU's line, the plan's verdict with its basis,
# each class's verdict with its A100 figure) as `podsim run`; `runs show
# --json` gives the same "memory" and "mixed_gpus" objects as `run --json`;
# the runs list gives the same verdict; and so does the run after `runs
# merge` into another database. A schema-9 database (this one with
# migration 9 -> 10's columns dropped; needs the sqlite3 shell) migrates,
# and its runs say that the A100's figures were not kept: out of memory on
# other_gpu as stored, the tight plan "fits" on the H100 with its verdict
# on the A100 unknown ("fits?" in the list).
#
# `runs show` prints all of the run's text, its energy section included, and
# its JSON's "energy_per_step", also from another folder: the stored text
# keeps the A100's keys as an [other_gpu] section (plan_scenario_text), where
# [cluster] other_gpu's path is relative to the scenario's folder, unknown at
# show time. So does the scenario --print-config prints, run from elsewhere.
# A run stored before the section was kept (its text without it) still gets
# its energy section from elsewhere (plan_scenario_load_stored: every node
# the main GPU's type, so every GPU at the main GPU's TDP), and its
# HTML page says why it has no Gantt chart (a new one replays: it has one).
set -u
podsim=$1
case $podsim in /*) ;; *) podsim=$PWD/$podsim ;; esac
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mx=scenarios/llama2-70b-h100-a100.ini

# the text sections: "mixed GPU types" up to its blank line, and "memory per
# GPU" up to the blank line after its classes
sections() {
	sed -n -e '/^mixed GPU types$/,/^$/p' -e '/^memory per GPU/,/^links\|^$/p' "$1"
}
# the JSON's "memory", "mixed_gpus" and "energy_per_step" objects, one per line
objects() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
[print(json.dumps(d[k], sort_keys=True)) for k in ("memory", "mixed_gpus", "energy_per_step")]' "$1"
}
# the energy section, up to its blank line or the end
energy() {
	sed -n '/^energy per step/,/^$/p' "$1"
}

n=0
for plan in "oom|out of memory|OOM|--set parallel.micro_batch=2" \
	"tight|tight|tight|--set parallel.micro_batch=1 --set model.seq_len=5120"; do
	IFS='|' read -r name want list sets <<<"$plan"
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$podsim" run "$mx" --set parallel.recompute=none $sets --db "$tmp/a.db" \
		>"$tmp/$name.live" 2>/dev/null || { echo "$name: run failed"; fail=1; continue; }
	# shellcheck disable=SC2086
	"$podsim" run "$mx" --set parallel.recompute=none $sets --no-db --json \
		>"$tmp/$name.livejson" 2>/dev/null || { echo "$name: run --json failed"; fail=1; }
	"$podsim" runs show "$n" --db "$tmp/a.db" >"$tmp/$name.show" 2>/dev/null ||
		{ echo "$name: runs show failed"; fail=1; }
	"$podsim" runs show "$n" --db "$tmp/a.db" --json >"$tmp/$name.showjson" 2>/dev/null ||
		{ echo "$name: runs show --json failed"; fail=1; }
	(cd "$tmp" && "$podsim" runs show "$n" --db a.db) >"$tmp/$name.away" 2>/dev/null ||
		{ echo "$name: runs show from another folder failed"; fail=1; }
	energy "$tmp/$name.live" >"$tmp/$name.le"
	grep -q '^  GPU power       240 x 700 W + 16 x 400 W' "$tmp/$name.le" ||
		{ echo "$name: the live run has no energy section"; fail=1; }
	for w in show away; do
		energy "$tmp/$name.$w" | diff "$tmp/$name.le" - >"$tmp/$name.ediff" ||
			{ echo "$name: runs show ($w) energy differs from the run's:"; cat "$tmp/$name.ediff"; fail=1; }
		cmp -s "$tmp/$name.live" "$tmp/$name.$w" ||
			{ echo "$name: runs show ($w) prints other than the run"; fail=1; }
	done
	sections "$tmp/$name.live" >"$tmp/$name.l"
	sections "$tmp/$name.show" >"$tmp/$name.s"
	grep -q "^  verdict           $want (on a100-sxm4-40g, the worst of the GPU types" \
		"$tmp/$name.l" || { echo "$name: the live run's verdict is not '$want' on the A100"; fail=1; }
	grep -q '^  on a100-sxm4-40g  stage 0: ' "$tmp/$name.l" ||
		{ echo "$name: the live run has no A100 line"; fail=1; }
	diff "$tmp/$name.l" "$tmp/$name.s" >"$tmp/$name.diff" ||
		{ echo "$name: runs show differs from the run:"; cat "$tmp/$name.diff"; fail=1; }
	objects "$tmp/$name.livejson" >"$tmp/$name.lj" 2>/dev/null || { echo "$name: bad JSON"; fail=1; }
	objects "$tmp/$name.showjson" >"$tmp/$name.sj" 2>/dev/null || { echo "$name: bad stored JSON"; fail=1; }
	[ -s "$tmp/$name.lj" ] && cmp -s "$tmp/$name.lj" "$tmp/$name.sj" ||
		{ echo "$name: runs show --json memory/mixed_gpus/energy_per_step differ from the run's"; fail=1; }
	grep -q "\"verdict\": \"$want\", \"verdict_on\": \"a100-sxm4-40g\"" "$tmp/$name.sj" ||
		{ echo "$name: stored JSON verdict is not '$want' on the A100"; fail=1; }
	# the list's memory column (the 8th field)
	got=$("$podsim" runs --db "$tmp/a.db" | awk -v id="$n" '$1 == id { print $8 }')
	[ "$got" = "$list" ] || { echo "$name: runs list says '$got', want '$list'"; fail=1; }
done

# the printed configuration carries the A100 too: run from another folder
"$podsim" run "$mx" --set parallel.recompute=none --set parallel.micro_batch=2 --print-config \
	>"$tmp/pc.ini" 2>/dev/null || { echo "print-config failed"; fail=1; }
grep -q '^\[other_gpu\]$' "$tmp/pc.ini" || { echo "print-config: no [other_gpu] section"; fail=1; }
(cd "$tmp" && "$podsim" run pc.ini --no-db) >"$tmp/pc.live" 2>/dev/null ||
	{ echo "print-config: its run failed"; fail=1; }
sed 's/^run 1$/not stored/' "$tmp/oom.live" | cmp -s - "$tmp/pc.live" ||
	{ echo "print-config: its run differs from the scenario's"; fail=1; }

# its HTML page from another folder replays the stored text: a Gantt chart
(cd "$tmp" && "$podsim" runs show 1 --db a.db --html new.html) >/dev/null 2>"$tmp/new.err" ||
	{ echo "html: runs show --html failed"; fail=1; }
grep -q "no Gantt chart" "$tmp/new.err" && { echo "html: $(cat "$tmp/new.err")"; fail=1; }

# a run stored before the [other_gpu] section was kept
cp "$tmp/a.db" "$tmp/old.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1])
t=c.execute("SELECT scenario_text FROM runs WHERE id = 1").fetchone()[0]
i=t.index("\n[other_gpu]\n"); c.execute("UPDATE runs SET scenario_text = ? WHERE id = 1", (t[:i+1],))
c.commit()' "$tmp/old.db" || { echo "old: cannot drop the [other_gpu] section"; fail=1; }
(cd "$tmp" && "$podsim" runs show 1 --db old.db --html old.html) >"$tmp/old.show" 2>"$tmp/old.err" ||
	{ echo "old: runs show failed"; fail=1; }
# (its energy counts every GPU at the main GPU's TDP and every node at the
# main node's power: the other ones were not stored; the rest of the section
# as the run's, whose A100 nodes are at dgx-a100-40g's [node] power)
energy "$tmp/old.show" | grep -q '^  GPU power       256 x 700 W = 179.2 kW' ||
	{ echo "old: its GPU power is not the main GPU's:"; energy "$tmp/old.show"; fail=1; }
energy "$tmp/old.show" | grep -q '^  node overhead   32 x 4600 W = 147.2 kW' ||
	{ echo "old: its node overhead is not the main node's:"; energy "$tmp/old.show"; fail=1; }
grep -q '^  node overhead   30 x 4600 W + 2 x 3300 W = 144.6 kW' "$tmp/oom.le" ||
	{ echo "live: the A100 nodes are not at their own power:"; cat "$tmp/oom.le"; fail=1; }
energy "$tmp/old.show" | grep -v 'GPU power\|node overhead\|facility power\|energy  \|CO2\|Llama 2' |
	cmp -s <(grep -v 'GPU power\|node overhead\|facility power\|energy  \|CO2\|Llama 2' "$tmp/oom.le") - ||
	{ echo "old: energy differs from the run's beyond the GPU power"; fail=1; }
grep -q "no Gantt chart: the run was stored before podsim kept \[cluster\] other_gpu's keys" \
	"$tmp/old.err" || { echo "old: the HTML note does not say why: $(cat "$tmp/old.err")"; fail=1; }

# runs merge keeps it all
"$podsim" runs merge "$tmp/m.db" "$tmp/a.db" >/dev/null 2>&1 || { echo "runs merge failed"; fail=1; }
"$podsim" runs show 1 --db "$tmp/m.db" 2>/dev/null | sections /dev/stdin >"$tmp/merged.s"
cmp -s "$tmp/oom.l" "$tmp/merged.s" || { echo "merged: runs show differs from the run"; fail=1; }
[ "$("$podsim" runs digest --db "$tmp/m.db")" = "$("$podsim" runs digest --db "$tmp/a.db")" ] ||
	{ echo "merged: digest differs"; fail=1; }

if command -v sqlite3 >/dev/null; then
	cp "$tmp/a.db" "$tmp/v9.db"
	{
		for c in mem_verdict mem_basis mixed_nodes mixed_cluster_nodes mixed_gpu mixed_dp \
			mixed_replicas mixed_kinds mixed_base_s mixed_step_s mixed_replica mixed_stage \
			mixed_stage_s mixed_stage_base_s mixed_mem_capacity_bytes mixed_mem_peak_bytes \
			mixed_mem_needed_bytes mixed_mem_stage mixed_mem_verdict; do
			echo "ALTER TABLE runs DROP COLUMN $c;"
		done
		for c in mem_other mem_other_total_bytes mem_other_needed_bytes mem_other_verdict; do
			echo "ALTER TABLE run_classes DROP COLUMN $c;"
		done
		echo "ALTER TABLE runs DROP COLUMN layout;" # schema 11's
		echo "ALTER TABLE run_classes DROP COLUMN mem_logged_bytes;" # schema 12's
		echo "PRAGMA user_version = 9;"
	} | sqlite3 "$tmp/v9.db" || { echo "v9: cannot build the schema-9 database"; fail=1; }
	"$podsim" runs show 1 --db "$tmp/v9.db" >"$tmp/v9.1" 2>&1 || { echo "v9: show 1 failed"; fail=1; }
	"$podsim" runs show 2 --db "$tmp/v9.db" >"$tmp/v9.2" 2>&1 || { echo "v9: show 2 failed"; fail=1; }
	[ "$(sqlite3 "$tmp/v9.db" 'PRAGMA user_version')" = 12 ] || { echo "v9: not migrated"; fail=1; }
	grep -q "^  verdict           out of memory (on other_gpu; stored before schema 10, without \[cluster\] other_gpu's figures)" \
		"$tmp/v9.1" || { echo "v9: run 1 does not say what was not kept"; fail=1; }
	grep -q "^  verdict           fits (on h100-sxm5-80g; stored before schema 10, without \[cluster\] other_gpu's figures: its verdict there unknown)" \
		"$tmp/v9.2" || { echo "v9: run 2 does not say what was not kept"; fail=1; }
	"$podsim" runs --db "$tmp/v9.db" | awk '$1 == 1 || $1 == 2 { printf "%s ", $8 }' >"$tmp/v9.list"
	[ "$(cat "$tmp/v9.list")" = "fits? OOM " ] || { echo "v9: list says $(cat "$tmp/v9.list")"; fail=1; }
fi
exit $fail
