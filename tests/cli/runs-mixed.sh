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
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mx=scenarios/llama2-70b-h100-a100.ini

# the text sections: "mixed GPU types" up to its blank line, and "memory per
# GPU" up to the blank line after its classes
sections() {
	sed -n -e '/^mixed GPU types$/,/^$/p' -e '/^memory per GPU/,/^links\|^$/p' "$1"
}
# the JSON's "memory" and "mixed_gpus" objects, one per line
objects() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
[print(json.dumps(d[k], sort_keys=True)) for k in ("memory", "mixed_gpus")]' "$1"
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
		{ echo "$name: runs show --json memory/mixed_gpus differ from the run's"; fail=1; }
	grep -q "\"verdict\": \"$want\", \"verdict_on\": \"a100-sxm4-40g\"" "$tmp/$name.sj" ||
		{ echo "$name: stored JSON verdict is not '$want' on the A100"; fail=1; }
	# the list's memory column (the 8th field)
	got=$("$podsim" runs --db "$tmp/a.db" | awk -v id="$n" '$1 == id { print $8 }')
	[ "$got" = "$list" ] || { echo "$name: runs list says '$got', want '$list'"; fail=1; }
done

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
		echo "PRAGMA user_version = 9;"
	} | sqlite3 "$tmp/v9.db" || { echo "v9: cannot build the schema-9 database"; fail=1; }
	"$podsim" runs show 1 --db "$tmp/v9.db" >"$tmp/v9.1" 2>&1 || { echo "v9: show 1 failed"; fail=1; }
	"$podsim" runs show 2 --db "$tmp/v9.db" >"$tmp/v9.2" 2>&1 || { echo "v9: show 2 failed"; fail=1; }
	[ "$(sqlite3 "$tmp/v9.db" 'PRAGMA user_version')" = 10 ] || { echo "v9: not migrated"; fail=1; }
	grep -q "^  verdict           out of memory (on other_gpu; stored before schema 10, without \[cluster\] other_gpu's figures)" \
		"$tmp/v9.1" || { echo "v9: run 1 does not say what was not kept"; fail=1; }
	grep -q "^  verdict           fits (on h100-sxm5-80g; stored before schema 10, without \[cluster\] other_gpu's figures: its verdict there unknown)" \
		"$tmp/v9.2" || { echo "v9: run 2 does not say what was not kept"; fail=1; }
	"$podsim" runs --db "$tmp/v9.db" | awk '$1 == 1 || $1 == 2 { printf "%s ", $8 }' >"$tmp/v9.list"
	[ "$(cat "$tmp/v9.list")" = "fits? OOM " ] || { echo "v9: list says $(cat "$tmp/v9.list")"; fail=1; }
fi
exit $fail
