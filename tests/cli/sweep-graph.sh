#!/usr/bin/env bash
# sweep-graph.sh PODSIM - a sweep under network = flow shares one link graph
# per cluster among its plans (topo_graphs, plan_scenario.graphs); each plan
# must still print and store exactly what `podsim run` gives the same plan
# alone, which builds its own graph. The space crosses the clusters a sweep
# can change (the topology dimension, cluster.nodes) with plans that share
# one (tp, pp), and plans of one cluster are simulated out of order (the
# pre-screen's), so a graph is reused after another cluster's; for every
# stored run, `runs show ID` (text and JSON, the run id aside) equals the
# run of its settings byte for byte.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=scenarios/quickstart.ini

# The quickstart with its cluster include swapped, as the topology
# dimension does, for the runs one by one.
for t in tiny-2node dgx-h100-superpod; do
	sed -e "s|^include = ../models/|include = $PWD/models/|" \
		-e "s|^include = ../topologies/tiny-2node.ini|include = $PWD/topologies/$t.ini|" \
		"$q" >"$tmp/$t.ini"
done

"$podsim" sweep "$q" --set cluster.network=flow \
	--vary topology=topologies/tiny-2node.ini,topologies/dgx-h100-superpod.ini \
	--vary cluster.nodes=2,4 --vary parallel.tp=2,4 --vary parallel.pp=1,2 --top 16 \
	--db "$tmp/s.db" --json >"$tmp/s.json" 2>"$tmp/s.err" ||
	{ echo "sweep failed"; cat "$tmp/s.err"; exit 1; }
grep -q '"simulated":16' "$tmp/s.json" || { echo "want 16 plans simulated"; head -c 400 "$tmp/s.json"; fail=1; }

n=0
while read -r entry; do
	id=$(echo "$entry" | sed -n 's/.*"run_id":\([0-9]*\),.*/\1/p')
	topo=$(echo "$entry" | sed -n 's|.*"topology":"topologies/\([a-z0-9-]*\)\.ini".*|\1|p')
	sets=()
	for kv in $(echo "$entry" | grep -o '"[a-z_]*\.[a-z_]*":"[0-9]*"' | tr -d '"'); do
		sets+=(--set "${kv/:/=}")
	done
	"$podsim" run "$tmp/$topo.ini" --set cluster.network=flow "${sets[@]}" --no-db \
		>"$tmp/run.txt" 2>/dev/null || { echo "run $topo ${sets[*]} failed"; fail=1; }
	"$podsim" run "$tmp/$topo.ini" --set cluster.network=flow "${sets[@]}" --no-db --json \
		2>/dev/null >"$tmp/run.json"
	# the stored run's id where the run alone says it was not stored
	"$podsim" runs show "$id" --db "$tmp/s.db" 2>/dev/null | sed "s/^run $id\$/not stored/" \
		>"$tmp/show.txt"
	"$podsim" runs show "$id" --db "$tmp/s.db" --json 2>/dev/null |
		sed 's/^{"run_id":[0-9]*,/{"run_id":null,/' >"$tmp/show.json"
	cmp -s "$tmp/run.txt" "$tmp/show.txt" ||
		{ echo "run $id ($topo ${sets[*]}): sweep's text differs from podsim run's"; diff "$tmp/run.txt" "$tmp/show.txt" | head -5; fail=1; }
	cmp -s "$tmp/run.json" "$tmp/show.json" ||
		{ echo "run $id ($topo ${sets[*]}): sweep's JSON differs from podsim run's"; fail=1; }
	grep -q 'flow network' "$tmp/show.txt" || { echo "run $id: not on the flow network"; fail=1; }
	n=$((n + 1))
done < <(grep -o '"run_id":[0-9]*,"index":[0-9]*,"settings":{[^}]*}' "$tmp/s.json")
[ "$n" = 16 ] || { echo "compared $n runs, want 16"; fail=1; }
exit $fail
