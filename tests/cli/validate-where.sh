#!/usr/bin/env bash
# validate-where.sh PODSIM - `podsim validate --where COL=VALUE[&COL!=VALUE...]`
# keeps exactly the rows whose columns match (all terms, != negating),
# counted here from the CSV itself; a term that is no COLUMN=VALUE of the
# file, or more than four terms, is a file:1 error with exit status 2 and
# nothing on stdout. Run from the source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=tests/cases/calibration.csv
check() { # WHERE: the rows validate keeps against the CSV's own count
	local where=$1 want got
	want=$(python3 - "$csv" "$where" <<'PY'
import csv, sys
terms = []
for t in sys.argv[2].split("&"):
    neg = "!=" in t
    col, val = t.split("!=" if neg else "=", 1)
    terms.append((col, val, neg))
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(all((r[c] == v) != n for c, v, n in terms) for r in rows))
PY
)
	"$podsim" validate "$csv" --where "$where" --json >"$tmp/out.json" 2>"$tmp/err" ||
		{ echo "--where '$where' failed"; cat "$tmp/err"; fail=1; return; }
	got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$tmp/out.json")
	[ "$got" = "$want" ] || { echo "--where '$where': $got rows, the CSV has $want"; fail=1; }
	[ "$want" -gt 0 ] || { echo "--where '$where' selects no row: a weak check"; fail=1; }
}
check "tp=8"
check "gpu=h100-sxm5-80g&tp!=1"
check "gpu=a100-sxm4-80g&tp=4&pp=1"
for bad in "nosuch=1" "tp" "a=1&b=2&c=3&d=4&e=5"; do
	"$podsim" validate "$csv" --where "$bad" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "--where '$bad': exit $rc, want 2"; fail=1; }
	[ -s "$tmp/out" ] && { echo "--where '$bad': output on stdout"; fail=1; }
	grep -qF "$csv:1: error: --where $bad: expected COLUMN=VALUE" "$tmp/err" ||
		{ echo "--where '$bad': no file:1 error"; cat "$tmp/err"; fail=1; }
done
# A case longer than the text table's 48-character column keeps its GPUs and
# plan whole and shortens the model's name (the column's cut printed "dp3"
# for V0027's dp 32; S0001's name is cut at "single-nod" where the case is
# built, which the JSON shows too)
"$podsim" validate "$csv" --where "id=V0027" --rows >"$tmp/v.txt" 2>&1
grep -q '^V0027              GPT 18.4B .. 256xa100-sxm4-80g tp8 pp1 dp32  ' "$tmp/v.txt" ||
	{ echo "V0027's case not 'GPT 18.4B .. 256xa100-sxm4-80g tp8 pp1 dp32'"; cat "$tmp/v.txt"; fail=1; }
"$podsim" validate "$csv" --where "id=S0001" --rows >"$tmp/s.txt" 2>&1
grep -q '^S0001              GPT h1024 l24 .. 2xa100-sxm4-80g tp1 pp2 dp1  ' "$tmp/s.txt" ||
	{ echo "S0001's case not 'GPT h1024 l24 .. 2xa100-sxm4-80g tp1 pp2 dp1'"; cat "$tmp/s.txt"; fail=1; }
"$podsim" validate "$csv" --where "id=D01" --rows >"$tmp/d.txt" 2>&1
grep -q '^D01                GPT 1.7B 48xh100-sxm5-80g tp1 pp1 dp48   ' "$tmp/d.txt" ||
	{ echo "D01's case, short, not whole"; cat "$tmp/d.txt"; fail=1; }
# A rank group's first choice: the row predicted fastest, its measurement
# over the group's fastest measured, less 1, recomputed here from the rows
# the JSON prints (the 18.4B group's 15 rows), and counted in the source's
# summary against VALID_PICK_WITHIN (10 %)
"$podsim" validate "$csv" --where "model=GPT 18.4B (vTrain)" --json >"$tmp/p.json" 2>/dev/null
python3 - "$tmp/p.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in j["rows"] if r["status"] == "ok"]
pick = min(rows, key=lambda r: r["predicted_iter_s"])  # the first of ties, as file order
gap = pick["measured_iter_s"] / min(r["measured_iter_s"] for r in rows) - 1
g = j["summary"]["rank_groups"]
ok = len(g) == 1 and g[0]["rows"] == len(rows) == 15 and abs(g[0]["first_choice_gap"] - gap) < 1e-9
src = [s for s in j["summary"]["groups"] if s["first_choice_groups"]]
ok = ok and len(src) == 1 and src[0]["first_choice_within"] == (1 if gap <= 0.10 else 0)
if not ok:
    print("first choice: gap", gap, "JSON", g, [(s["name"], s["first_choice_groups"], s["first_choice_within"]) for s in src])
sys.exit(0 if ok else 1)
PY
exit $fail
