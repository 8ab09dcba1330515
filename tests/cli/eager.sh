#!/usr/bin/env bash
# eager.sh PODSIM - eager training micro-batches measured on one H200
# (tests/cases/eager-h200.csv, from tools/measured/h200-training: Hugging Face
# transformers' Llama on torch 2.11, Llama 3.2 1B's and Llama 3 8B's shapes
# and their tensor-parallel shards, no collectives). Each row is a one-GPU
# scenario of the hf-transformers-torch2.11 profile (the stack measured:
# layer code hf-llama5, counted from kernels-layer.txt) with the row's shape
# and one micro-batch; podsim's time is `explain`'s "max(GPU, host)" of
# section 7. Tolerances, per row (before -> after the torch 2.11 profile; the
# hf-transformers profile of transformers 4.36 issues 1912 kernels, this one
# 2244 as measured):
#  - GPU-bound rows (podsim's GPU time above its host time): within 9 %
#    (13 rows, -3.1..+1.5 % -> 12 rows, -0.2..+8.3 %): the gradients' adds
#    into .grad move 3 bytes a parameter per micro-batch, 48 GB for the 8B
#    shape (E26 -1.8 -> +5.4 %); E02 (+8.3 %), whose host time is 86 % of its
#    GPU time, pays the host's lead at the start of each run of kernels on
#    top (its GPU time alone is +2 % of the measured);
#  - host-bound rows: between -30 % and +10 % (14 rows, -35.1..-9.8 % -> 15
#    rows, -24.0..+5.1 %): run 1's machine issued kernels at 36-48 us each
#    where the pooled figure is 34.6 (README in tools/measured/h200-training).
# The check below pins the 1B shape's host time to 2244 x (4 + 30.6) us, so a
# change of the kernel count or op_overhead shows here first; the rows'
# measured kernel counts (the kernels column) must lie within 8 % of
# podsim's (2099-2244 against 2244: 0..+6.9 %; what podsim does not model:
# the shards' and sequence 64's other choices of SDPA kernels), and the 1-
# and 2-layer models of kernels.csv (204 and 340, podsim the same) within 1 %.
# Run from the source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(pwd)
cat >"$tmp/s.ini" <<EOF
include = $root/models/llama3.2-1b.ini
include = $root/topologies/efa-h200-cluster.ini
include = $root/topologies/frameworks/hf-transformers-torch2.11.ini
[scenario]
name = eager-h200
[model]
untied_embeddings = true
[parallel]
tp = 1
pp = 1
dp = 1
[train]
precision = bf16
[cluster]
nodes = 1
[node]
gpus = 1
EOF
# ms from "12.3 ms" / "456 us" / "1.2 s"
to_ms() { awk '{ v = $1; if ($2 == "us") v /= 1000; else if ($2 == "s") v *= 1000; printf "%.4f", v }'; }
n=0
sum=0
nkern=0
while IFS=, read -r id model l h a g dh f v tp s mb ms msmin kern rest; do
	[ "$id" = id ] && continue
	o=$("$podsim" explain "$tmp/s.ini" --set model.layers="$l" --set model.hidden="$h" \
		--set model.heads="$a" --set model.kv_heads="$g" --set model.head_dim="$dh" \
		--set model.ffn="$f" --set model.vocab="$v" --set model.seq_len="$s" \
		--set parallel.micro_batch="$mb" --set parallel.global_batch="$mb" 2>&1) ||
		{ echo "$id: explain failed"; echo "$o"; fail=1; continue; }
	pred=$(echo "$o" | grep -o 'max(GPU, host): [0-9.]* [mu]*s' | cut -d' ' -f3- | to_ms)
	gpu=$(echo "$o" | grep -o 'kernels in [0-9.]* [mu]*s' | cut -d' ' -f3- | to_ms)
	host=$(echo "$o" | grep -o '= [0-9.]* [mu]*s to issue' | cut -d' ' -f2,3 | to_ms)
	nk=$(echo "$o" | grep -o 'issued *[0-9]* kernel' | awk '{ print $2 }')
	[ -n "$pred" ] && [ -n "$gpu" ] && [ -n "$host" ] ||
		{ echo "$id: no micro-batch cost in explain"; fail=1; continue; }
	err=$(awk -v p="$pred" -v m="$ms" 'BEGIN { printf "%.1f", (p / m - 1) * 100 }')
	bound=$(awk -v g="$gpu" -v h="$host" 'BEGIN { print (g > h) ? "gpu" : "host" }')
	printf '%s %-18s tp%s s%-5s mb%s measured %8.2f ms podsim %8.2f ms %+6.1f %% (%s-bound)\n' \
		"$id" "$model" "$tp" "$s" "$mb" "$ms" "$pred" "$err" "$bound"
	if [ "$bound" = gpu ]; then
		awk -v e="$err" 'BEGIN { exit !(e >= -9 && e <= 9) }' ||
			{ echo "$id: GPU-bound row off by $err %, want within 9 %"; fail=1; }
	else
		awk -v e="$err" 'BEGIN { exit !(e >= -30 && e <= 10) }' ||
			{ echo "$id: host-bound row off by $err %, want -30 to +10 %"; fail=1; }
	fi
	# the 1B shape's host time: 2244 kernels x (launch 4 us + op_overhead 30.6 us)
	if [ "$l" = 16 ]; then
		awk -v h="$host" 'BEGIN { exit !(h > 77.64 && h < 77.65) }' ||
			{ echo "$id: host time $host ms, want 2244 x 34.6 us = 77.6424 ms"; fail=1; }
	fi
	if [ -n "$kern" ]; then
		ke=$(awk -v p="$nk" -v m="$kern" 'BEGIN { printf "%.1f", (p / m - 1) * 100 }')
		echo "$id kernels per micro-batch: measured $kern podsim $nk ($ke %)"
		awk -v e="$ke" 'BEGIN { exit !(e >= -8 && e <= 8) }' ||
			{ echo "$id: $nk kernels, measured $kern: want within 8 %"; fail=1; }
		nkern=$((nkern + 1))
	fi
	n=$((n + 1))
	sum=$(awk -v a="$sum" -v e="$err" 'BEGIN { print a + (e < 0 ? -e : e) }')
done <tests/cases/eager-h200.csv
[ "$n" = 27 ] || { echo "$n rows checked, want 27"; fail=1; }
[ "$nkern" = 8 ] || { echo "$nkern kernel counts checked, want 8"; fail=1; }
# the 1- and 2-layer models of tools/measured/h200-training/kernels.csv (the
# 1B shape at tp 1, sequence 2048): forward + backward kernels within 1 %
while IFS=, read -r l tp s mb kf kb; do
	[ "$l" = layers ] && continue
	nk=$("$podsim" explain "$tmp/s.ini" --set model.layers="$l" --set model.seq_len="$s" \
		--set parallel.micro_batch="$mb" --set parallel.global_batch="$mb" 2>&1 |
		grep -o 'issued *[0-9]* kernel' | awk '{ print $2 }')
	want=$((kf + kb))
	echo "kernels.csv $l layers: measured $kf + $kb = $want, podsim $nk"
	awk -v p="$nk" -v m="$want" 'BEGIN { exit !(p != "" && p / m >= 0.99 && p / m <= 1.01) }' ||
		{ echo "$l layers: $nk kernels, want $want within 1 %"; fail=1; }
done <tools/measured/h200-training/kernels.csv
mape=$(awk -v a="$sum" -v n="$n" 'BEGIN { printf "%.1f", a / n }')
echo "eager-h200: $n rows, MAPE $mape %"
# the source's gate: 6.7 % with the torch 2.11 profile (12.4 % with the
# transformers 4.36 profile, hf-transformers; 27.5 % with op_overhead 20 us
# and the H100 fit's sustain 0.73)
awk -v m="$mape" 'BEGIN { exit !(m <= 8) }' || { echo "MAPE $mape % above 8 %"; fail=1; }
exit $fail
