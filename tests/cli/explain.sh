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
# Megatron-Core's micro-batch groups (pipeline-gantt-groups: 7 micro-batches
# on pp 2, vpp 2): 7 % 2 = 1 refuses the default groups of pp, 3 leaves 1 <
# pp, 4 leaves 3 >= pp: N = 4; warm-up on stage 0 (2 - 1 - 0) x 2 + (2 - 1)
# x 4 = 6
grep -qF "groups of N = 4, not p (vp_group 0" "$tmp/pipeline-gantt-groups.txt" &&
	grep -qF "(v - 1) x N = 6 forwards on stage 0" "$tmp/pipeline-gantt-groups.txt" ||
	{ echo "explain: the interleaved schedule's micro-batch groups (N = 4, warm-up 6) not stated"; fail=1; }
# torch pipelining's rounds (pipeline-gantt-rounds: torchtitan, 3 micro-batches
# on pp 4, vpp 2): max(1, 3 // 4) = 1 round of 3, fewer than pp; warm-up on
# stage 0 (4 - 1 - 0) x 2 + (2 - 1) x 3 = 9, at most m x v = 3 x 2 = 6
grep -qF "groups of N = 3, not p (torch pipelining's rounds" "$tmp/pipeline-gantt-rounds.txt" &&
	grep -qF "(v - 1) x N = 9, at most m x v: 6 forwards on stage 0" "$tmp/pipeline-gantt-rounds.txt" ||
	{ echo "explain: torch pipelining's rounds (N = 3, warm-up 9 capped at 6) not stated"; fail=1; }
# torch pipelining's interleaved zero bubble (pipeline-gantt-izb: torchtitan,
# 8 micro-batches on pp 4, vpp 2, 2 rounds of 4): warm-up on stage 0
# (4 - 1 - 0) + (2 - 1) x 4 = 7, one step a stage
grep -qF "zero bubble  interleaved (torch pipelining's ZB1P), the micro-batches in groups of N = 4: warm-up (p - 1 - stage) + (v - 1) x N = 7 forwards" "$tmp/pipeline-gantt-izb.txt" ||
	{ echo "explain: the interleaved zero bubble's warm-up (7) not stated"; fail=1; }
# ZBV (pipeline-gantt-zbv: torchtitan, pp 4): rank r holds virtual stages r
# and 2p - 1 - r = 7 - r; 2p = 8 forwards before the first backward
grep -qF "rank r holds virtual stages r and 2p - 1 = 7 - r" "$tmp/pipeline-gantt-zbv.txt" &&
	grep -qF "8 forwards before the first backward on every rank" "$tmp/pipeline-gantt-zbv.txt" ||
	{ echo "explain: ZBV's V and warm-up (8) not stated"; fail=1; }
# ZeRO-3 under torchtitan's pipeline (pp-fsdp-torchtitan: quickstart's tp 2,
# pp 2, dp 4): stage 0 per TP rank holds 12 layers of 6 h^2 + 9.5 h =
# 31,872,384 (the linears and column-parallel biases halved, the
# row-parallel biases and norms whole), the word embedding V/2 x h =
# 58,982,400 and the positions s x h = 4,718,592: 446,169,600 params, kept
# gathered at 2 B (892,339,200 B = 851.0 MiB), gradients unsharded at 4 B
# (1.7 GiB)
t=$tmp/pp-fsdp-torchtitan.txt
grep -qF "446.2 M params x 4 B from each chunk's first backward (unsharded while accumulating: torch pipelining reduces them after the chunk's last backward)" "$t" &&
	grep -qF "gathered weights        851.0 MiB  ZeRO-3 under torch pipelining keeps every layer of the stage unsharded" "$t" &&
	grep -qF "ZeRO-3 under torch pipelining (framework zero3_pp_gathered)" "$t" ||
	{ echo "explain: ZeRO-3 under torch pipelining (kept gathers, unsharded gradients) not stated"; fail=1; }
q=$tmp/quickstart.txt
for want in "per layer    63,730,944" "= 1,652,230,656 (1.65e+09)" "= 8 micro-batches" \
	"(2 - 1)/(8 + 2 - 1) = 11.1%" "podsim's per-layer figure: 396.0 MiB" \
	"2 x 3/4 x 1.7 GiB"; do
	grep -qF -- "$want" "$q" || { echo "quickstart: missing '$want'"; fail=1; }
done

# Memory (section 3): the quickstart's peak is named with its moment and every
# live term; quickstart at tp 1, pp 2, dp 8, micro_batch 32 needs more than
# 80 GB: out of memory, and the cuts come sorted with recompute = full first
# (it drops 31 of 32 layer inputs' worth of the kept activations).
for want in "  peak at      " "kept activations" "allocated    " "reserved     " \
	"device       " ": fits, "; do
	grep -qF -- "$want" "$q" || { echo "quickstart memory: missing '$want'"; fail=1; }
done
"$podsim" explain tests/golden/quickstart.ini --set parallel.micro_batch=32 \
	--set parallel.global_batch=256 --set parallel.tp=1 --set parallel.dp=8 >"$tmp/oom.txt" ||
	{ echo "explain of an out-of-memory plan failed"; fail=1; }
grep -q "OUT OF MEMORY" "$tmp/oom.txt" || { echo "oom: no verdict"; fail=1; }
# the verdict's own basis beside the device view: allocated + runtime, and by
# how much it passes the capacity (their difference)
awk '/^  device .*OUT OF MEMORY, allocated \+ runtime/ {
	cap = $(NF - 15); need = $(NF - 7); over = $(NF - 1)
	if ($(NF - 14) != "GiB:" || $(NF - 6) != "GiB" || $NF != "GiB") exit 1
	if (need - cap - over > 0.051 || cap + over - need > 0.051) exit 1; found = 1 }
	END { exit !found }' "$tmp/oom.txt" ||
	{ echo "oom: the device line does not give allocated + runtime over the capacity"; fail=1; }
grep -A1 "cut first" "$tmp/oom.txt" | grep -q "recompute = full .* (fits)" ||
	{ echo "oom: recompute = full is not the first cut"; fail=1; }
# Section 7 on nanotron-efa-tp8-pp2 (Llama 3 8B: l = 32, h = 4096, 32 heads,
# 8 KV heads (GQA), f = 14336, V = 128256 untied; tp 8 with SP in a node,
# pp 2 across the 2 nodes, b = 1, m = 4). nanotron balances the stages by its
# block costs (plan_layout, uneven_split = cost): a layer 4 x 32 x 128 x 4096
# + 3 x 14336 x 4096 = 243,269,632, the lm_head 128,256 x 4096 = 525,336,576,
# in all 8,309,964,800; 18 layers (4,378,853,376) pass half of it, so stage 0
# holds the embedding and 18 layers, stage 1 14 and the head. The busiest
# stage is stage 0.
# Kernel launches (sim/work/nanotron.c), GQA, t > 2 (two gathered-shard GEMMs):
#   layer forward  ln1 1 + qkv local 1 + rest 2 + layout 3 + kv_pack 2 + rope 2
#                  + prep 6 + attn 1 + proj 1 + resid 1 + ln2 1 + fc1 1 + 2
#                  + act 2 + fc2 1 + resid 1 = 28
#   layer backward fc2 1 + 2 + 1 + act 4 + fc1 2 + ln2 2 + add 1 + proj 4
#                  + attn 1 + kv 1 + rope 2 + layout 1 + qkv 2 + ln1 2 + add 1 = 27
#   embedding      forward mask 6 + lookup 1 + product 2 = 9, its reduce-scatter;
#                  backward its all-gather, product 1 + scatter-add 1 = 2
#   18 x (28 + 27) + 9 + 2 = 1001 launches; collectives 18 x (4 + 6) + 2
#   = 182; host (1001 + 182) x (4 + 30.6) us = 40.9318 ms (op_overhead's default).
# Accumulation: 18 layers x 6 tensors + the embedding = 109 launches.
# Pipeline: per tensor 21 host operations x 34.6 us = 726.6 us; 3 tensors (2
# forward, 1 backward) = 2.1798 ms plus 7 latency-bound p2p messages across
# nodes (2 handshakes per tensor and the [b, s] mask): 2.1798 ms + 7 x (~37 us
# + D) (the EFA fit's net_latency 23.2 us + msg_overhead 4.2 us, unstretched:
# no congestion since 2026-11-30, plus NCCL's p2p base: topologies/calib/
# efa-h100.ini; ~46 us with the congested fit, kappa(2) = 1.09, ~59 us with
# the fit before NCCL's table chose on EFA), D = sync_delay x 1^exp, the
# wait for the later of the two nodes every call across nodes pays whatever
# its size (net_sync_delay; since 2026-11-29, before then scaled by the bytes).
# Beside them the data transfers' own latency, a forward and a backward one,
# each its time at 1 B: 2 x (30-45 us + D) (since 2026-11-30 in the sum).
n=$tmp/nanotron-efa-tp8-pp2.txt
for want in "7. What a micro-batch costs beyond its tokens (stage 0, the busiest)" \
	"1001 kernel launches (layer code nanotron) and 182 collectives" \
	"1183 operations (kernels and collectives)" "= 40.9318 ms" "109 launches" \
	"per tensor 2 handshakes and 21 host operations, 2 forward tensors"; do
	grep -qF -- "$want" "$n" || { echo "nanotron: missing '$want'"; fail=1; }
done
p2p=$(sed -n "s/^ *\([0-9.]*\) ms, and the transfers' own latency.*/\1/p" "$n")
lat=$(sed -n 's/^ *\([0-9.]*\) us (one forward and one backward transfer)/\1/p' "$n")
D=$(sed -n 's/^sync_delay = \([0-9.]*\) us$/\1/p' topologies/calib/efa-h100.ini)
awk -v x="$p2p" -v d="$D" 'BEGIN { d /= 1000; exit !(d > 0.1 && x > 2.1798 + 7 * (0.030 + d) && x < 2.1798 + 7 * (0.045 + d)) }' ||
	{ echo "nanotron: pipeline overhead $p2p ms not 2.1798 ms + 7 x (30-45 us + $D us)"; fail=1; }
awk -v x="$lat" -v d="$D" 'BEGIN { exit !(d > 100 && x > 2 * (30 + d) && x < 2 * (45 + d)) }' ||
	{ echo "nanotron: the transfers' latency $lat us not 2 x (30-45 us + $D us)"; fail=1; }

# Inference follows the mode: forward FLOPs (2P, 4 l s (ad)), no gradient
# reduction even with dp replicas, no negative memory term.
"$podsim" explain scenarios/gpt3-175b-zero-inference.ini --set parallel.dp=2 \
	--set parallel.global_batch=8 --set node.gpus=2 >"$tmp/inf" 2>&1 || { echo "explain inference"; fail=1; }
for want in "Model FLOPs (inference: the forward only" "2P alone" "4 x l x s x (ad)" \
	"inference: no gradients, so no reduction"; do
	grep -qF -- "$want" "$tmp/inf" || { echo "explain inference: missing '$want'"; fail=1; }
done
grep -qE "6 x l x|6P alone|\+ -[0-9]|  S +P_rank" "$tmp/inf" && { echo "explain inference: training terms"; fail=1; }

# Offload shows on the links: ZeRO-Inference streams every layer's fp16
# weights over the GPU's PCIe link once per micro-batch, 96 x 1,812,099,072 x
# 2 B = 347.9e9 B = 324.0 GiB; ZeRO-Infinity also loads the node's host
# memory (CPU Adam, 30 B per parameter) and NVMe.
"$podsim" run scenarios/gpt3-175b-zero-inference.ini --no-db 2>/dev/null |
	grep -qE '^  node0/gpu0 -> host +pcie +1 +31.5 GB/s +324 GiB .* offload$' ||
	{ echo "zero-inference: the weight stream should load the PCIe link"; fail=1; }
"$podsim" run scenarios/gpt3-175b-zero-infinity.ini --no-db >"$tmp/zi" 2>/dev/null
for k in "host-mem" "nvme" "pcie"; do
	grep -qE "^  [^ ]+( [^ ]+)* +$k +[0-9]+ .* offload$" "$tmp/zi" ||
		{ echo "zero-infinity: no offload bytes on the $k link"; fail=1; }
done

# Frozen layers (train.frozen_layers): Llama 3 8B with its first 16 of 32
# layers frozen: the frozen weights are a memory line of their own, 16 x
# 218,112,000 + the embedding's 525,336,576 = 4.015 G params at 2 B, the
# optimizer holds the other 4.015 G, and the FLOPs section takes two thirds
# of half the layers' and attention's share out of F.
"$podsim" explain tests/golden/llama3-8b-1node.ini --set train.frozen_layers=16 >"$tmp/fz" 2>&1
grep -q "frozen layers' weights    7.5 GiB  4.015 G params x 2 B (the first 16 layers" "$tmp/fz" &&
	grep -q "optimizer states          5.6 GiB  4.015 G trained params" "$tmp/fz" &&
	grep -q "^  frozen       the first 16 layers and the embedding run forward only" "$tmp/fz" ||
	{ echo "explain with frozen layers:"; cat "$tmp/fz"; fail=1; }
# ... and the data-parallel traffic follows what trains: ZeRO-1 over 8 GPUs on
# NVSwitch moves 7/8 of the fp32 gradients (4 B) reduce-scattered and of the
# bf16 parameters (2 B) all-gathered per GPU: 6 x 7/8 x 8,030,261,248 =
# 42.16 GB, with 16 layers frozen 6 x 7/8 x 4,015,132,672 = 21.08 GB.
for n in 0 16; do
	"$podsim" run tests/golden/llama3-8b-1node.ini --no-db --json --set train.frozen_layers=$n \
		2>/dev/null | grep -o '"bytes":[0-9.e+]*' | head -n 1 | cut -d: -f2 >"$tmp/dp$n"
done
awk -v a="$(cat "$tmp/dp0")" -v f="$(cat "$tmp/dp16")" 'BEGIN {
	exit !(a > 0 && f > 0 && (a / (6 * 0.875 * 8030261248) - 1)^2 < 1e-6 &&
	       (f / (6 * 0.875 * 4015132672) - 1)^2 < 1e-6) }' ||
	{ echo "frozen layers' DP bytes: $(cat "$tmp/dp0") -> $(cat "$tmp/dp16")"; fail=1; }
# Under LoRA only the adapters train: rank 16 on the seven linears of each of
# the 32 layers is 16 x (2 x (4096 + 4096) + 2 x (4096 + 1024) + 3 x (4096 +
# 14336)) = 1,310,720 parameters a layer, 41,943,040 in all (the frozen base
# and embeddings reduce nothing): 6 x 7/8 x 41,943,040 = 220,200,960 B.
"$podsim" run tests/golden/llama3-8b-1node.ini --no-db --json --set train.lora_rank=16 \
	2>/dev/null | grep -o '"bytes":[0-9.e+]*' | head -n 1 | cut -d: -f2 >"$tmp/dplora"
awk -v l="$(cat "$tmp/dplora")" 'BEGIN { exit !(l > 0 && (l / (6 * 0.875 * 41943040) - 1)^2 < 1e-6) }' ||
	{ echo "LoRA's DP bytes: $(cat "$tmp/dplora"), want 220200960"; fail=1; }
"$podsim" explain tests/golden/llama3-8b-1node.ini --set train.lora_rank=16 2>/dev/null |
	grep -q '^  S            P_rank (trained) x 4 B = 160.0 MiB' ||
	{ echo "explain: LoRA's reduced bytes"; fail=1; }
# Section 5's textbook ring runs over the plan's data-parallel group, whose
# stride follows [parallel] order (plan/groups.c): the quickstart (tp 2, pp 2,
# dp 4 on two 8-GPU nodes) has dp at stride tp = 2 under tp-cp-dp-pp (4 ranks
# on one node), 1 under dp-tp-cp-pp, and tp x pp = 4 under tp-pp-cp-dp (2 per
# node, 2 nodes: the ring crosses the NICs).
for w in "tp-cp-dp-pp:stride 2: 4 per node, 1 node)" "dp-tp-cp-pp:stride 1: 4 per node, 1 node)" \
	"tp-pp-cp-dp:stride 4: 2 per node, 2 nodes)"; do
	"$podsim" explain tests/golden/quickstart.ini --set parallel.order="${w%%:*}" 2>/dev/null |
		grep '^  S  ' | grep -qF "${w#*:}" || { echo "explain: DP ring group under ${w%%:*}"; fail=1; }
done
# The wire and the buffer (plan_grad_bytes, plan_grad_wire_bytes): fp8
# compression sends 1 B per value in the buckets, but the tied embedding's
# sync goes uncompressed at the buffer's 4 B (as the graph sends it); tf32
# keeps 4 B gradients even with fp32_grads = false; a bf16 wire under an fp32
# buffer (grad_wire_dtype = params, DeepSpeed's) sends 2 B and names its casts,
# 2 (4 + 2) = 12 B of HBM per value.
q="$("$podsim" explain tests/golden/quickstart.ini --set train.grad_compression=fp8 2>/dev/null)"
echo "$q" | grep -q '^  S            P_rank x 1 B' || { echo "explain: fp8 wire bytes"; fail=1; }
echo "$q" | grep -q '^  tied emb.    + V h / t x 4 B' || { echo "explain: tied sync bytes"; fail=1; }
"$podsim" explain tests/golden/quickstart.ini --set train.precision=tf32 \
	--set parallel.fp32_grads=false 2>/dev/null | grep -q '^  S            P_rank x 4 B' ||
	{ echo "explain: tf32 gradients are 4 B"; fail=1; }
q="$("$podsim" explain tests/golden/quickstart.ini --set framework.grad_wire_dtype=params 2>/dev/null)"
echo "$q" | grep -q '^  S            P_rank x 2 B' || { echo "explain: bf16 wire"; fail=1; }
echo "$q" | grep -q '^  wire         2 B per value' || { echo "explain: wire line"; fail=1; }
echo "$q" | grep -q '12 B of HBM traffic per value$' || { echo "explain: wire casts"; fail=1; }
echo "$q" | grep -q '^  tied emb.    + V h / t x 4 B' || { echo "explain: tied sync, fp32"; fail=1; }

# --kernels: one layer's kernels. vTrain's S0869 (GPT h 2048, 16 heads, tp 2,
# 8 x 1024 tokens, fp16, unfused attention as Megatron-DeepSpeed ran it):
# the backward's dV = P^T dO and dK = dS^T Q are b x heads/tp = 8 x 8 = 64
# batched [1024, 1024] x [1024, 128] GEMMs, "1024x128x1024 x64" (the sum over
# each matrix's own keys; they were one [1024, 65536] x [65536, 128] GEMM, 8
# output tiles: 987 us where these take 99); each pass's rows add up to its
# total, and a GEMM's rate is 2 m n k / its time.
"$podsim" validate tests/cases/calibration.csv --only S0869 --scenario S0869 >"$tmp/s0869.ini" ||
	{ echo "validate --scenario S0869"; fail=1; }
q="$("$podsim" explain "$tmp/s0869.ini" --kernels --spread-samples 0 2>/dev/null)"
echo "$q" | grep -q '^[0-9]*\. Kernels of one layer (layer 0, one micro-batch of 8 x 1024 tokens on a tp = 2 rank, fp16; layer code fused)$' ||
	{ echo "explain --kernels: no section"; fail=1; }
[ "$(echo "$q" | grep -cE '^  bwd  attn_(av|qk)_wgrad +gemm +1024x128x1024 x64 ')" = 2 ] ||
	{ echo "explain --kernels: attention's dV and dK not batched"; fail=1; }
for pass in fwd bwd; do
	name=forward; [ $pass = bwd ] && name=backward
	echo "$q" | awk -v p="$pass" -v n="$name" '
		$1 == p && $3 != "comm" { sum += substr($0, 64, 10) } # the GPU us column
		$1 == n { tot = $2 }
		END { exit !(tot > 0 && sum > 0.999 * tot && sum < 1.001 * tot) }' ||
		{ echo "explain --kernels: $pass rows do not add up to the $name total"; fail=1; }
done
echo "$q" | awk '$1 == "fwd" && $2 == "qkv" { split($4, d, "x"); r = 2 * d[1] * d[2] * d[3] / ($5 * 1e-6) / 1e12
	exit !($6 > 0 && r > 0.999 * $6 && r < 1.001 * $6) }' ||
	{ echo "explain --kernels: qkv's rate is not 2 m n k / time"; fail=1; }

# Under tp_comm_overlap a GEMM beside a pipelined reduce-scatter runs on the
# SMs Transformer Engine's 16-SM margin leaves (the forward proj), as the
# replay times it; a GEMM beside a ring exchange keeps every SM (qkv).
gt() { echo "$1" | awk -v k="$2" '$1 == "fwd" && $2 == k { print substr($0, 64, 10) + 0 }'; }
a="$("$podsim" explain scenarios/llama2-70b-h100.ini --kernels --spread-samples 0 2>/dev/null)"
b="$("$podsim" explain scenarios/llama2-70b-h100.ini --kernels --spread-samples 0 \
	--set parallel.tp_comm_overlap=true 2>/dev/null)"
awk -v a="$(gt "$a" proj)" -v b="$(gt "$b" proj)" -v c="$(gt "$a" qkv)" -v d="$(gt "$b" qkv)" \
	'BEGIN { exit !(a > 0 && b > a && c > 0 && c == d) }' ||
	{ echo "explain --kernels: the userbuffer margin's GEMM times"; fail=1; }

# A fused attention row's "exp N%": its softmax's exponentials (hw/attn.c) over
# its time. llama3-8b-1node (Llama 3 8B, s 8192, tp 1, H100 SXM: 132 SMs at
# 1.83 GHz, 16 per clock per SM = 3.86496e12/s, at the step's clock 0.73):
# forward 8192^2 x 32 heads / 2 (causal) = 1073741824 exponentials,
# 1073741824 / 3.86496e12 / 0.73 = 380.6 us of the row's GPU us.
a="$("$podsim" explain scenarios/llama3-8b-1node.ini --kernels --spread-samples 0 2>/dev/null)"
echo "$a" | awk '$1 == "fwd" && $2 == "attn" { us = substr($0, 64, 10) + 0; e = $NF; sub(/%/, "", e)
	want = 100 * 1073741824 / 3.86496e12 / 0.73 / (us * 1e-6)
	ok = us > 0 && e - want < 0.51 && want - e < 0.51 } END { exit !ok }' ||
	{ echo "explain --kernels: the attention row's exponentials' share"; fail=1; }

"$podsim" explain --help | grep -q '^usage: podsim explain' || { echo "explain --help"; fail=1; }
# A TP group across two EFA nodes: each of its collectives waits for the later
# node, D(2) = sync_delay x 1^exp whatever its size (net_sync_delay), so the
# micro-batch's TP collectives wait D x their count: Llama 3 8B with MHA
# (nanotron splits whole K/V heads) on TP 16.
"$podsim" explain scenarios/llama3-8b-efa-nanotron.ini --set model.kv_heads=32 \
	--set parallel.tp=16 --set parallel.dp=8 >"$tmp/tp16.txt" 2>&1 ||
	{ echo "explain tp16 on EFA failed"; fail=1; }
D=$(sed -n 's/^sync_delay = \([0-9.]*\) us$/\1/p' topologies/calib/efa-h100.ini)
n=$(sed -n 's/^  collectives  \([0-9]*\) (tp = 16: 8 per node, 2 nodes).*/\1/p' "$tmp/tp16.txt")
got=$(sed -n 's/^ *D(2) = \([0-9.]*\) us, whatever its size: \([0-9.]*\) ms (net_sync_delay)$/\1 \2/p' "$tmp/tp16.txt")
awk -v d="$D" -v n="$n" -v g="${got% *}" -v t="${got#* }" 'BEGIN { exit !(n > 0 && d > 100 &&
	g > 0.9999 * d && g < 1.0001 * d && t > 0.9999 * n * d / 1000 && t < 1.0001 * n * d / 1000) }' ||
	{ echo "explain tp16: D(2) and its sum '$got' for $n collectives, want $D us each"; fail=1; }
# Section 8 under nanotron's ZeRO-1: the per-rank loops after the parameter
# gather (plan_zero_gather_host): Llama 3 8B at tp 1 on 16 ranks, 195 tensors,
# 16 x (195 x (10.7 + 4) + 2 x 4) us = 45.992 ms (test_microbatch derives it)
"$podsim" explain tests/golden/nanotron-efa-tp8-pp2.ini --set parallel.tp=1 --set parallel.pp=1 \
	--set parallel.dp=16 --set parallel.global_batch=16 --set parallel.zero=1 2>&1 |
	grep -qF "host 16 ranks x (195 tensors x (zero_gather_rank_op 10.7 us + launch 4 us) + 2 launches) = 45.992 ms," ||
	{ echo "explain: nanotron's ZeRO-1 gather loops"; fail=1; }
"$podsim" explain >/dev/null 2>&1; [ $? -eq 2 ] || { echo "explain without a file: want 2"; fail=1; }
"$podsim" explain tests/golden/quickstart.ini --set parallel.tpp=2 >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] || { echo "explain with a bad key: want 2"; fail=1; }
grep -q "unknown key 'tpp'" "$tmp/bad.err" || { echo "explain bad key message"; fail=1; }
exit $fail
