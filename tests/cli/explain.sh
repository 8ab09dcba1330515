#!/usr/bin/env bash
# explain.sh PODSIM - `podsim explain` on every tests/golden/*.ini must print
# tests/golden/explain/CASE.txt exactly (regenerate after an intended change with
# PODSIM_UPDATE_EXPECTED=1 tests/cli/explain.sh build/podsim, from the source
# root, and review the diff). A line "; explain: ARGS" in CASE.ini adds
# arguments (e.g. --spread-samples). A few figures are also checked against hand
# derivations, so that a wrong golden cannot be blessed unnoticed.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for c in tests/golden/*.ini; do
	name=$(basename "$c" .ini)
	want=tests/golden/explain/$name.txt
	args=$(sed -n 's/^; explain: //p' "$c") # optional line: explain's own arguments
	# shellcheck disable=SC2086
	"$podsim" explain "$c" $args >"$tmp/$name.txt" 2>"$tmp/$name.err" ||
		{ echo "explain $c failed:"; cat "$tmp/$name.err"; fail=1; continue; }
	if [ "${PODSIM_UPDATE_EXPECTED:-}" = 1 ]; then
		cp "$tmp/$name.txt" "$want"
	elif ! diff -u "$want" "$tmp/$name.txt"; then
		echo "explain output of $c differs from $want"
		fail=1
	fi
done

# Hand derivations on the quickstart (Megatron 1.7B: h = 2304, l = 24,
# V = 51200, s = 2048, GELU f = 4h, biases, LayerNorm, learned positions;
# tp 2, pp 2, dp 4, micro_batch 4, global_batch 128):
#   attention 4h^2 = 21,233,664; MLP 8h^2 = 42,467,328; biases 4h + (f + h)
#   = 20,736 and norms 2 x 2h = 9,216: per layer 63,730,944;
#   embedding (V + s) h = 122,683,392; output (tied) final norm 2h = 4,608;
#   P = 24 x 63,730,944 + 122,683,392 + 4,608 = 1,652,230,656.
#   m = 128 / (4 x 4) = 8; textbook bubble (2-1)/(8+2-1) = 1/9 = 11.1%.
#   Korthikanti without the score term (flash): s b h (10 + 24/t)
#   = 2048 x 4 x 2304 x 22 = 415,236,096 B = 396.0 MiB.
q=$tmp/quickstart.txt
for want in "per layer    63,730,944" "= 1,652,230,656 (1.65e+09)" "= 8 micro-batches" \
	"(2 - 1)/(8 + 2 - 1) = 11.1%" "podsim's per-layer figure: 396.0 MiB" \
	"2 x 3/4 x 1.7 GiB"; do
	grep -qF -- "$want" "$q" || { echo "quickstart: missing '$want'"; fail=1; }
done

"$podsim" explain --help | grep -q '^usage: podsim explain' || { echo "explain --help"; fail=1; }
"$podsim" explain >/dev/null 2>&1; [ $? -eq 2 ] || { echo "explain without a file: want 2"; fail=1; }
"$podsim" explain tests/golden/quickstart.ini --set parallel.tpp=2 >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] || { echo "explain with a bad key: want 2"; fail=1; }
grep -q "unknown key 'tpp'" "$tmp/bad.err" || { echo "explain bad key message"; fail=1; }
exit $fail
