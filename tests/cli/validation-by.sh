#!/usr/bin/env bash
# validation-by.sh - tools/validation-by on a hand-made case file and its
# validate JSON (no simulation).
# 1. Grouping: rows A1..A4 (tp 2) have errors -0.10, -0.10, +0.10, +0.10 and
#    B1 (tp 4) +0.05: tp 2 gives MAPE 10.0 %, mean +0.0 %, spread 10.0 %.
# 2. The 1F1B fit: A1..A4 are exact 1F1B steps of a replica of N = 64
#    sequences on p = 4 stages, c = 0.1 s per sequence, o = 0.02 s per
#    micro-batch, D = 0.5 s, T(b) = (64/b + 3)(0.1 b + 0.02) + D:
#      b = 1: 67 x 0.12 + 0.5 = 8.54    b = 2: 35 x 0.22 + 0.5 = 8.2
#      b = 4: 19 x 0.42 + 0.5 = 8.48    b = 8: 11 x 0.82 + 0.5 = 9.52
#    the fit returns them (c 100.0 ms, o 20.0 ms, D 0.50 s, residual 0.0 %)
#    unflagged. Raising b = 2 to 8.2 x 1.1 = 9.02 makes T(b) non-convex
#    (9.02 > the chord 8.54 + (8.48 - 8.54)/3), which no member with
#    c, o, D >= 0 (a convex function of b) reaches: flagged.
# 3. --log2: micro_batch by power-of-two range puts A2 (b = 2, -0.10) and B1
#    (b = 2, +0.05) in [2, 4): 2 rows, MAPE 7.5 %, mean -2.5 %; A3 (b = 4,
#    +0.10) alone in [4, 8). A column not in --by, or one holding text,
#    exits 2.
# 4. The step by layer count (--layer-fit): L1..L5 (one set: same width, GPUs
#    and plan, no pipeline, dp 1, micro-batch 1, so m = global_batch) are
#    exact steps T = m (a + b l) + c + d l with a = 10 ms, b = 3 ms, c = 2 ms,
#    d = 0.4 ms; podsim's are the same with a = 5 ms:
#      l 12, m 2: 2 x 46 + 2 + 4.8 = 98.8 ms (podsim 88.8)
#      l 12, m 4: 4 x 46 + 6.8 = 190.8 (170.8);  l 24, m 2: 2 x 82 + 11.6 = 175.6
#      (165.6);  l 24, m 4: 339.6 (319.6);  l 16, m 8: 8 x 58 + 8.4 = 472.4 (432.4)
#    the fit returns both (10.00 3.00 2.00 0.40, residual 0.0 %; 5.00 ...)
#    and the source's medians a x2.00, b x1.00. A set of one layer count is
#    not fitted (M1, M2).
set -u
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cols=id,model,gpus,gpu,tp,pp,dp,cp,ep,vpp,global_batch,seq_len,recompute,zero,precision,micro_batch
row() { echo "$1,M,64,g,$2,4,16,1,1,1,1024,2048,full,0,bf16,$3"; }
{ echo "$cols"; row A1 2 1; row A2 2 2; row A3 2 4; row A4 2 8; row B1 4 2; } >"$tmp/c.csv"
js() { # id measured predicted
	python3 -c 'import sys; m,p=float(sys.argv[2]),float(sys.argv[3]); print("{\"id\": \"%s\", \"group\": \"S\", \"measured_iter_s\": %r, \"predicted_iter_s\": %r, \"error\": %r}" % (sys.argv[1], m, p, p/m-1))' "$@"
}
doc() { # measured T(2)
	echo '{"rows": ['
	js A1 8.54 7.686; echo ,; js A2 "$1" "$(python3 -c "print($1*0.9)")"; echo ,
	js A3 8.48 9.328; echo ,; js A4 9.52 10.472; echo ,; js B1 8 8.4
	echo '], "summary": {}}'
}
doc 8.2 >"$tmp/ok.json"
tools/validation-by "$tmp/c.csv" --json "$tmp/ok.json" --pipeline-fit >"$tmp/ok.txt" 2>&1 || fail=1
grep -q '^  2  *4  *10.0%  *+0.0%  .*10.0%  ' "$tmp/ok.txt" ||
	{ echo "tp 2 group: expected 4 rows, MAPE 10.0 %, mean +0.0 %, spread 10.0 %"; fail=1; }
grep -q '^  4  *1  *5.0%  *+5.0%' "$tmp/ok.txt" || { echo "tp 4 group: expected MAPE 5.0 %"; fail=1; }
grep -q '1,2,4,8  *100.0 ms  *20.0 ms  *0.50 s  *0.0%  ' "$tmp/ok.txt" ||
	{ echo "exact 1F1B steps: expected c 100.0 ms, o 20.0 ms, D 0.50 s, 0.0 %, unflagged"; fail=1; }
doc 9.02 >"$tmp/bad.json"
tools/validation-by "$tmp/c.csv" --json "$tmp/bad.json" --pipeline-fit >"$tmp/bad.txt" 2>&1 || fail=1
grep -q '1,2,4,8  .*%  *\* ' "$tmp/bad.txt" || { echo "a non-convex set is not flagged"; fail=1; }
tools/validation-by "$tmp/c.csv" --json "$tmp/ok.json" --by nosuch >/dev/null 2>&1
[ $? -eq 2 ] || { echo "an unknown column: expected exit 2"; fail=1; }
tools/validation-by "$tmp/c.csv" --json "$tmp/ok.json" --by micro_batch --log2 micro_batch \
	>"$tmp/log2.txt" 2>&1 || fail=1
grep -q '^  2-4  *2  *7.5%  *-2.5%' "$tmp/log2.txt" ||
	{ echo "--log2: expected [2, 4) with 2 rows, MAPE 7.5 %, mean -2.5 %"; fail=1; }
grep -q '^  4-8  *1  *10.0%  *+10.0%' "$tmp/log2.txt" ||
	{ echo "--log2: expected [4, 8) with 1 row, +10.0 %"; fail=1; }
tools/validation-by "$tmp/c.csv" --json "$tmp/ok.json" --by tp --log2 micro_batch >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--log2 of a column not in --by: expected exit 2"; fail=1; }
tools/validation-by "$tmp/c.csv" --json "$tmp/ok.json" --by recompute --log2 recompute >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--log2 of a text column: expected exit 2"; fail=1; }
lcols=id,model,hidden,heads,kv_heads,ffn,vocab,gpus,gpu,tp,pp,dp,cp,ep,vpp,global_batch,seq_len,recompute,zero,precision,micro_batch,layers
lrow() { echo "$1,M,1024,16,16,4096,50257,8,g,8,1,1,1,1,1,$2,1024,full,0,fp16,1,$3"; }
{ echo "$lcols"; lrow L1 2 12; lrow L2 4 12; lrow L3 2 24; lrow L4 4 24; lrow L5 8 16
  echo "M1,M,2048,16,16,8192,50257,8,g,8,1,1,1,1,1,2,1024,full,0,fp16,1,12"
  echo "M2,M,2048,16,16,8192,50257,8,g,8,1,1,1,1,1,4,1024,full,0,fp16,1,12"; } >"$tmp/l.csv"
{ echo '{"rows": ['
  js L1 0.0988 0.0888; echo ,; js L2 0.1908 0.1708; echo ,; js L3 0.1756 0.1656; echo ,
  js L4 0.3396 0.3196; echo ,; js L5 0.4724 0.4324; echo ,; js M1 0.1 0.1; echo ,; js M2 0.2 0.2
  echo '], "summary": {}}'; } >"$tmp/l.json"
tools/validation-by "$tmp/l.csv" --json "$tmp/l.json" --layer-fit >"$tmp/l.txt" 2>&1 || fail=1
grep -q 'h 1024 tp 8 pp 1 dp 1 mb 1  *5  *10.00  *3.00  *2.00  *0.40  *0.0%  *5.00  *3.00  *2.00  *0.40  *0.0%' \
	"$tmp/l.txt" || { echo "--layer-fit: expected a 10 / 5 ms, b 3, c 2, d 0.4, exact"; fail=1; }
grep -q '^S: 1 sets, measured / podsim median a x2.00 .*b x1.00' "$tmp/l.txt" ||
	{ echo "--layer-fit: expected one set, a x2.00, b x1.00"; fail=1; }
grep -q 'h 2048' "$tmp/l.txt" && { echo "--layer-fit: a set of one layer count was fitted"; fail=1; }
[ $fail -eq 0 ] || { cat "$tmp/ok.txt" "$tmp/bad.txt" "$tmp/log2.txt" "$tmp/l.txt"; }
exit $fail
