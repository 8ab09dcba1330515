#!/usr/bin/env bash
# uplinks.sh PODSIM - the shared fabric uplinks as a user sees them, on the
# golden case tests/golden/uplinks-fat-tree-2to1.ini (2:1 fat tree, a DP
# all-reduce beside a pipeline send; derivation: tests/unit/test_flow.c):
#  - run --json carries shared_uplinks: the step with the uplinks unshared
#    below the step by the time the send lost (lost_s.pp, about the send's
#    own 0.2 ms; JSON prints 9 digits: within 1e-8 s), the rank class stage 1
#    (the text lines: the golden case);
#  - explain's section 5 says why, with the same difference;
#  - at oversubscription 1 neither the JSON member nor the text section
#    appears (the NIC share bounds), and the step is shorter.
set -u
podsim=$1
case=tests/golden/uplinks-fat-tree-2to1.ini
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$podsim" run $case --no-db --json >"$tmp/o2.json" 2>/dev/null || { echo "run --json failed"; fail=1; }
"$podsim" run $case --no-db --json --set cluster.oversubscription=1 >"$tmp/o1.json" 2>/dev/null ||
	{ echo "run --json (o = 1) failed"; fail=1; }
"$podsim" run $case --no-db --set cluster.oversubscription=1 >"$tmp/o1.txt" 2>/dev/null
"$podsim" explain $case >"$tmp/explain.txt" 2>/dev/null || { echo "explain failed"; fail=1; }
python3 - "$tmp/o2.json" "$tmp/o1.json" <<'PY' || fail=1
import json, sys
o2, o1 = (json.load(open(f)) for f in sys.argv[1:3])
u = o2.get("shared_uplinks")
bad = []
if not u:
    bad.append("no shared_uplinks at 2:1")
else:
    d = o2["step_time_s"] - u["step_unshared_s"]
    if not (u["oversubscription"] == 2 and u["class"] == "stage 1"):
        bad.append("oversubscription or class: %r" % u)
    if not (1.5e-4 < d < 2.0e-4 and abs(u["lost_s"]["pp"] - d) < 1e-8):
        bad.append("step difference %g against the send's loss %g" % (d, u["lost_s"]["pp"]))
if "shared_uplinks" in o1:
    bad.append("shared_uplinks at 1:1")
if not o1["step_time_s"] < o2["step_time_s"]:
    bad.append("1:1 not faster than 2:1")
for b in bad:
    print("uplinks:", b)
sys.exit(1 if bad else 0)
PY
if grep -q "shared fabric uplinks" "$tmp/o1.txt"; then
	echo "text: shared fabric uplinks at 1:1"; fail=1
fi
if ! grep -q "oversubscribed 2:1" "$tmp/explain.txt" ||
	! tr '\n' ' ' <"$tmp/explain.txt" | tr -s ' ' | grep -q "the step is 174.661 us longer"; then
	echo "explain: section 5 does not give the shared uplinks' cost"; fail=1
fi
exit $fail
