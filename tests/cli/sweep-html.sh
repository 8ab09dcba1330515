#!/usr/bin/env bash
# sweep-html.sh PODSIM - `podsim sweep --html`: a well-formed page (xmllint
# when installed; balanced svg tags otherwise) with one bar and one point per
# simulated plan, the Pareto plans marked, the step times of the JSON output,
# written atomically (a path in a missing folder exits 2 and leaves nothing).
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=scenarios/sweep-quickstart.ini
"$podsim" sweep "$s" --no-db --json --html "$tmp/s.html" >"$tmp/s.json" 2>/dev/null ||
	{ echo "sweep --html failed"; fail=1; }
n=$(grep -o '"rank":' "$tmp/s.json" | wc -l)
[ "$n" -gt 1 ] || { echo "no plans in the JSON"; fail=1; }
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/s.html" || { echo "not well-formed"; fail=1; }
else
	[ "$(grep -c '<svg' "$tmp/s.html")" = "$(grep -c '</svg>' "$tmp/s.html")" ] || fail=1
fi
[ "$(grep -c '<circle' "$tmp/s.html")" = "$n" ] || { echo "want $n points"; fail=1; }
[ "$(grep -c '<rect x="380' "$tmp/s.html")" = "$n" ] || { echo "want $n bars"; fail=1; }
grep -q 'fill="#e15759"' "$tmp/s.html" || { echo "no Pareto plan marked"; fail=1; }
best=$(grep -o '"rank":1,[^}]*}[^}]*}' "$tmp/s.json" | grep -o '"step_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
grep -q "<td>1</td><td>$(printf '%.4f' "$best")</td>" "$tmp/s.html" ||
	{ echo "best step $best not in the table"; fail=1; }
"$podsim" sweep "$s" --no-db --html "$tmp/no/such/dir/s.html" >/dev/null 2>&1
[ $? = 2 ] || { echo "--html in a missing folder (bad input, before the sweep): want exit 2"; fail=1; }
[ ! -e "$tmp/no" ] || { echo "created folders"; fail=1; }
exit $fail
