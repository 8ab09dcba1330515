#!/usr/bin/env bash
# eager.sh PODSIM - eager training micro-batches measured on one H200
# (tests/cases/eager-h200.csv, from tools/measured/h200-training: Hugging Face
# transformers' Llama on torch 2.11, Llama 3.2 1B's and Llama 3 8B's shapes
# and their tensor-parallel shards, no collectives). Each row is a one-GPU
# scenario of the hf-transformers profile with the row's shape and one
# micro-batch; podsim's time is `explain`'s "max(GPU, host)" of section 7.
# Tolerances, per row:
#  - GPU-bound rows (podsim's GPU time above its host time): within 6 % (all
#    within 3.1 %: the H200's measured tensor_sustain sets their GEMMs);
#  - host-bound rows: between -40 % and +10 % (-10 to -35 %): podsim's HF
#    Llama issues 1912 kernels per micro-batch of the 1B shape where torch
#    2.11 issued 2099-2244, and run 1's machine issued them at 36-48 us each
#    where the pooled figure is 34.6 (README in tools/measured/h200-training).
#    The check below pins the 1B shape's host time to 1912 x (4 + 30.6) us,
#    so a change of the kernel count or op_overhead shows here first.
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
include = $root/topologies/frameworks/hf-transformers.ini
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
while IFS=, read -r id model l h a g dh f v tp s mb ms rest; do
	[ "$id" = id ] && continue
	o=$("$podsim" explain "$tmp/s.ini" --set model.layers="$l" --set model.hidden="$h" \
		--set model.heads="$a" --set model.kv_heads="$g" --set model.head_dim="$dh" \
		--set model.ffn="$f" --set model.vocab="$v" --set model.seq_len="$s" \
		--set parallel.micro_batch="$mb" --set parallel.global_batch="$mb" 2>&1) ||
		{ echo "$id: explain failed"; echo "$o"; fail=1; continue; }
	pred=$(echo "$o" | grep -o 'max(GPU, host): [0-9.]* [mu]*s' | cut -d' ' -f3- | to_ms)
	gpu=$(echo "$o" | grep -o 'kernels in [0-9.]* [mu]*s' | cut -d' ' -f3- | to_ms)
	host=$(echo "$o" | grep -o '= [0-9.]* [mu]*s to issue' | cut -d' ' -f2,3 | to_ms)
	[ -n "$pred" ] && [ -n "$gpu" ] && [ -n "$host" ] ||
		{ echo "$id: no micro-batch cost in explain"; fail=1; continue; }
	err=$(awk -v p="$pred" -v m="$ms" 'BEGIN { printf "%.1f", (p / m - 1) * 100 }')
	bound=$(awk -v g="$gpu" -v h="$host" 'BEGIN { print (g > h) ? "gpu" : "host" }')
	printf '%s %-18s tp%s s%-5s mb%s measured %8.2f ms podsim %8.2f ms %+6.1f %% (%s-bound)\n' \
		"$id" "$model" "$tp" "$s" "$mb" "$ms" "$pred" "$err" "$bound"
	if [ "$bound" = gpu ]; then
		awk -v e="$err" 'BEGIN { exit !(e >= -6 && e <= 6) }' ||
			{ echo "$id: GPU-bound row off by $err %, want within 6 %"; fail=1; }
	else
		awk -v e="$err" 'BEGIN { exit !(e >= -40 && e <= 10) }' ||
			{ echo "$id: host-bound row off by $err %, want -40 to +10 %"; fail=1; }
	fi
	# the 1B shape's host time: 1912 kernels x (launch 4 us + op_overhead 30.6 us)
	if [ "$l" = 16 ]; then
		awk -v h="$host" 'BEGIN { exit !(h > 66.15 && h < 66.16) }' ||
			{ echo "$id: host time $host ms, want 1912 x 34.6 us = 66.155 ms"; fail=1; }
	fi
	n=$((n + 1))
	sum=$(awk -v a="$sum" -v e="$err" 'BEGIN { print a + (e < 0 ? -e : e) }')
done <tests/cases/eager-h200.csv
[ "$n" = 27 ] || { echo "$n rows checked, want 27"; fail=1; }
mape=$(awk -v a="$sum" -v n="$n" 'BEGIN { printf "%.1f", a / n }')
echo "eager-h200: $n rows, MAPE $mape %"
# the source's gate: 12.4 % measured at this commit (27.5 % with op_overhead 20 us
# and the H100 fit's sustain 0.73)
awk -v m="$mape" 'BEGIN { exit !(m <= 14) }' || { echo "MAPE $mape % above 14 %"; fail=1; }
exit $fail
