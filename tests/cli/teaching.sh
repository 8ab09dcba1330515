#!/usr/bin/env bash
# teaching.sh PODSIM - every scenario under scenarios/teaching runs (--no-db,
# exit 0); every top-level one starts with its question; every 'podsim run',
# 'podsim explain', 'podsim coll' and 'podsim kernel' command its header lists
# runs; each figure a lesson's header states is checked against a fresh run
# (within 3 %; shares within 3-10 %), and each
# scenario's answer, as its header states it, is pinned by a comparison of
# two or more runs (orderings and ratios, not exact figures, so that model
# refinements do not break the lesson unless they reverse it).
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=scenarios/teaching

while IFS= read -r f; do
	"$podsim" run "$f" --no-db >/dev/null 2>"$tmp/err" || { echo "$f: exit $?"; cat "$tmp/err"; fail=1; }
done < <(find "$T" -name '*.ini' | sort)
n=$(find "$T" -maxdepth 1 -name '*.ini' | wc -l)
[ "$n" -ge 7 ] || { echo "expected at least 7 teaching scenarios, found $n"; fail=1; }
for f in "$T"/*.ini; do
	head -1 "$f" | grep -q '^; Question: ' || { echo "$f: does not start with '; Question:'"; fail=1; }
	grep -q '^;   podsim ' "$f" || { echo "$f: lists no command to run"; fail=1; }
done

# The commands the headers list (those writing files skipped; validate is
# covered by its own test).
while IFS= read -r line; do
	cmd=${line#;   podsim }
	case "$cmd" in *--html*|validate*) continue ;; esac
	# shellcheck disable=SC2086
	"$podsim" $cmd >/dev/null 2>"$tmp/err" || { echo "failed: podsim $cmd"; cat "$tmp/err"; fail=1; }
done < <(grep -h '^;   podsim \(run\|explain\|coll\|kernel\) ' "$T"/*.ini)

# j FILE ARGS... -> the run's JSON on one line
j() { "$podsim" run "$@" --no-db --json 2>/dev/null; }
# num KEY: the first value of "KEY": in the JSON on stdin
num() { grep -o "\"$1\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
# lt A B WHY: A < B
lt() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }' ||
		{ echo "want '$1' < '$2': $3"; fail=1; }
}

# near A B TOL WHY: |A / B - 1| <= TOL (a header's figure against a fresh run)
near() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" -v t="$3" \
		'BEGIN { r = a / b - 1; if (r < 0) r = -r; exit !(r <= t) }' ||
		{ echo "want '$1' within $3 of '$2': $4"; fail=1; }
}
# kj ARGS...: podsim kernel's JSON
kj() { "$podsim" kernel "$@" --json 2>/dev/null; }
str() { grep -o "\"$1\":\"[^\"]*\"" | head -1 | cut -d'"' -f4; }
GiB=1073741824

# The lessons' figures and claims in words, each against a fresh run (the
# header states it; 3 % leaves room for small model refinements, a changed
# lesson must change its header).
# memory-precision: "fp32 ... multiplies run on the CUDA cores ... about 14x
# longer (66.1 s against 4.72 s) ... TF32 ... about 1.9x (9.0 s)"
sb=$(j $T/memory-precision.ini | num step_time_s)
s32=$(j $T/memory-precision.ini --set train.precision=fp32 | num step_time_s)
st32=$(j $T/memory-precision.ini --set train.precision=tf32 | num step_time_s)
near "$sb" 4.92 0.03 "memory-precision bf16 step"
near "$s32" 69.2 0.03 "memory-precision fp32 step"
near "$st32" 9.39 0.03 "memory-precision tf32 step"
near "$(awk -v a="$s32" -v b="$sb" 'BEGIN { print a / b }')" 14 0.05 "fp32 about 14x bf16"
near "$(awk -v a="$st32" -v b="$sb" 'BEGIN { print a / b }')" 1.9 0.05 "tf32 about 1.9x bf16"
# ... the CUDA cores: an fp32 GEMM runs at most at the fp32 vector peak
# (19.5 TFLOP/s), a tf32 one above it (the tensor cores)
f32=$(kj --gpu a100-sxm4-40g gemm 4096 4096 4096 fp32 | num tflops)
t32=$(kj --gpu a100-sxm4-40g gemm 4096 4096 4096 tf32 | num tflops)
lt "$f32" 19.5 "fp32 GEMM on the CUDA cores (<= 19.5 TFLOP/s)"
lt 19.5 "$t32" "tf32 GEMM on the tensor cores (> 19.5 TFLOP/s)"
# ... "SGD with momentum keeps 4 B + 4 B = 8 B; 8-bit Adam ... 6.03 B"
"$podsim" explain $T/memory-precision.ini --set train.optimizer=sgd 2>/dev/null |
	grep -q 'optimizer states .* x 8 B (fp32 master, momentum)' ||
	{ echo "memory-precision: SGD with momentum should keep 8 B"; fail=1; }
"$podsim" explain $T/memory-precision.ini --set train.optimizer=adam-8bit 2>/dev/null |
	grep -q 'optimizer states .* x 6.031 B (fp32 master, 8-bit m, v)' ||
	{ echo "memory-precision: 8-bit Adam should keep 6.03 B"; fail=1; }
# zero-stages: "149.7, 47.4, 34.4, 22.3 GiB"; steps "7.81, 8.60, 14.4, 12.5 s"
# with dp "1.97, 2.95, 8.85, 6.89"
zm=(149.7 47.4 34.4 22.3)
zs=(7.81 8.60 14.4 12.5)
zd=(1.97 2.95 8.85 6.89)
for z in 0 1 2 3; do
	r=$(j $T/zero-stages.ini --set parallel.zero=$z)
	near "$(echo "$r" | num peak_bytes)" "$(awk -v g="${zm[$z]}" -v u=$GiB 'BEGIN { print g * u }')" 0.03 "ZeRO-$z memory"
	near "$(echo "$r" | num step_time_s)" "${zs[$z]}" 0.03 "ZeRO-$z step"
	near "$(echo "$r" | num dp)" "${zd[$z]}" 0.03 "ZeRO-$z dp"
done
# ... in words: DeepSpeed's ZeRO-1 (all-reduce + all-gather) moves 6 B per
# 4 B of ZeRO-0's all-reduce; a reduce-scatter moves the same bytes (2 + 2);
# with fp32 gradients the all-reduce moves 8 B and ZeRO-1 6 B (3/4)
RS="--set framework.zero_grad_op=reduce-scatter"
d0=$(j $T/zero-stages.ini | num dp)
d1=$(j $T/zero-stages.ini --set parallel.zero=1 | num dp)
# shellcheck disable=SC2086
d1rs=$(j $T/zero-stages.ini --set parallel.zero=1 $RS | num dp)
F32W="--set parallel.fp32_grads=true --set framework.grad_wire_dtype=grads"
# shellcheck disable=SC2086
d0f=$(j $T/zero-stages.ini $F32W | num dp)
# shellcheck disable=SC2086
d1f=$(j $T/zero-stages.ini --set parallel.zero=1 $F32W $RS | num dp)
# DeepSpeed's own wire (grad_wire_dtype = params): fp32 gradients sent as a
# bf16 copy, the same 4 B as d0 plus the cast and copy back (12 B of HBM
# per value, 6.74e9 x 12 B = 81 GB at the A100 40GB's HBM rate, hw_mem_time:
# 0.06 s more, dp 2.03)
d0c=$(j $T/zero-stages.ini --set parallel.fp32_grads=true | num dp)
near "$d0c" 2.03 0.03 "fp32 gradients on DeepSpeed's bf16 wire: ZeRO-0 dp"
lt "$d0" "$d0c" "the casts around DeepSpeed's bf16 wire cost something"
near "$(awk -v a="$d1" -v b="$d0" 'BEGIN { print a / b }')" 1.5 0.05 "DeepSpeed ZeRO-1 dp = 6/4 of ZeRO-0"
near "$d1rs" "$d0" 0.05 "ZeRO-1 with a reduce-scatter: the same bytes as the all-reduce"
near "$d0f" 3.93 0.03 "fp32 gradients: ZeRO-0 dp"
near "$(awk -v a="$d1f" -v b="$d0f" 'BEGIN { print a / b }')" 0.75 0.05 "fp32 gradients: ZeRO-1 dp = 6/8 of ZeRO-0"
# roofline-gemm: "7.3 us, latency-bound, 37 TFLOP/s"; h = 4096 "compute-bound
# at 253 TFLOP/s (512 tiles in 5 waves)"; h = 1024 "140 TFLOP/s: 128 tiles
# take 2 waves"; MFU "2.5 %, 15.4 %, 38.4 %" (the header's, podsim's own: the
# small models' host cost per kernel is op_overhead's measured default)
k1=$(kj --gpu a100-sxm4-40g gemm 512 1024 256)
[ "$(echo "$k1" | str bound)" = latency ] || { echo "roofline: h = 256 GEMM should be latency-bound"; fail=1; }
near "$(echo "$k1" | num time_s)" 7.3e-6 0.03 "roofline: h = 256 GEMM time"
k4=$(kj --gpu a100-sxm4-40g gemm 512 16384 4096)
[ "$(echo "$k4" | str bound)" = compute ] || { echo "roofline: h = 4096 GEMM should be compute-bound"; fail=1; }
near "$(echo "$k4" | num tflops)" 253 0.03 "roofline: h = 4096 TFLOP/s"
[ "$(echo "$k4" | num waves)" = 5 ] || { echo "roofline: h = 4096 GEMM in 5 waves"; fail=1; }
k2=$(kj --gpu a100-sxm4-40g gemm 512 4096 1024)
near "$(echo "$k2" | num tflops)" 140 0.03 "roofline: h = 1024 TFLOP/s"
[ "$(echo "$k2" | num waves)" = 2 ] || { echo "roofline: h = 1024 GEMM in 2 waves"; fail=1; }
near "$(j $T/roofline-gemm.ini --set model.hidden=256 --set model.heads=4 | num mfu)" 0.025 0.03 "roofline MFU h=256"
near "$(j $T/roofline-gemm.ini | num mfu)" 0.154 0.03 "roofline MFU h=1024"
near "$(j $T/roofline-gemm.ini --set model.hidden=4096 --set model.heads=32 | num mfu)" 0.384 0.03 "roofline MFU h=4096"

# alvis-nodes: "A100 0.30 s, V100 0.693 s, A40 0.696 s, T4 0.87 s ... 1.7%,
# 1.2%, 6%, 11%"
ai=0
for f in $T/alvis-nodes.ini $T/variants/alvis-nodes-v100.ini $T/variants/alvis-nodes-a40.ini \
	$T/variants/alvis-nodes-t4.ini; do
	want=(0.30 0.693 0.696 0.87)
	share=(0.017 0.012 0.061 0.115)
	r=$(j "$f")
	st=$(echo "$r" | num step_time_s)
	near "$st" "${want[$ai]}" 0.03 "$f step"
	near "$(awk -v d="$(echo "$r" | num dp)" -v s="$st" 'BEGIN { print d / s }')" "${share[$ai]}" 0.1 "$f dp share"
	ai=$((ai + 1))
done
# pcie-p2p: "4.27 s (dp 16 %), 7.40 s (dp 51 %), 3.23 s on the DGX H100 (dp 3 %)";
# "3.12 s there against 3.57 s" of compute
NP="--set node.pcie_p2p=false --set node.intra_efficiency=0.59"
pp=$(j $T/pcie-p2p.ini)
# shellcheck disable=SC2086
pn=$(j $T/pcie-p2p.ini $NP)
pd=$(j $T/variants/pcie-p2p-dgx.ini)
near "$(echo "$pp" | num step_time_s)" 4.27 0.03 "pcie-p2p with P2P"
near "$(echo "$pn" | num step_time_s)" 7.40 0.03 "pcie-p2p without P2P"
near "$(echo "$pd" | num step_time_s)" 3.23 0.03 "pcie-p2p DGX H100"
near "$(echo "$pp" | num compute)" 3.57 0.03 "pcie-p2p PCIe compute"
near "$(echo "$pd" | num compute)" 3.12 0.03 "pcie-p2p DGX compute"
# pipeline-bubbles: "about 41%, 28%, 36% and 42%", uneven "about 32%"
PB=$T/pipeline-bubbles.ini
near "$(j $PB | num bubble_fraction)" 0.41 0.03 "bubble m = 8"
near "$(j $PB --set parallel.global_batch=64 | num bubble_fraction)" 0.28 0.03 "bubble m = 32"
near "$(j $PB --set parallel.vpp=2 | num bubble_fraction)" 0.36 0.03 "bubble vpp 2"
near "$(j $PB --set parallel.schedule=gpipe | num bubble_fraction)" 0.42 0.03 "bubble gpipe"
near "$(j $PB --set parallel.first_stage_layers=6 --set parallel.last_stage_layers=4 | num bubble_fraction)" 0.32 0.03 "bubble uneven"
# ring-allreduce: busbw 220 GB/s in a node, 12 GB/s across; steps 0.57, 0.49,
# 0.31 s with dp 2 %, 42 %, 74 %; GPU-seconds 2.3 and 9.9
RA=$T/ring-allreduce.ini
cb() { "$podsim" coll --topology topologies/alvis-a100.ini --gpus "$1" allreduce 1GiB | awk '/^ +[0-9]/ { print $4 }'; }
near "$(cb 4)" 220 0.03 "ring busbw 4 GPUs"
near "$(cb 32)" 12 0.03 "ring busbw 32 GPUs"
r1=$(j $RA)
r2=$(j $RA --set cluster.nodes=2 --set parallel.dp=8)
r8=$(j $RA --set cluster.nodes=8 --set parallel.dp=32)
near "$(echo "$r1" | num step_time_s)" 0.57 0.03 "ring 1 node"
near "$(echo "$r2" | num step_time_s)" 0.49 0.03 "ring 2 nodes"
near "$(echo "$r8" | num step_time_s)" 0.31 0.03 "ring 8 nodes"
near "$(awk -v d="$(echo "$r2" | num dp)" -v s="$(echo "$r2" | num step_time_s)" 'BEGIN { print d / s }')" 0.42 0.05 "ring 2 nodes dp share"
near "$(awk -v d="$(echo "$r8" | num dp)" -v s="$(echo "$r8" | num step_time_s)" 'BEGIN { print d / s }')" 0.74 0.05 "ring 8 nodes dp share"
near "$(awk -v s="$(echo "$r8" | num step_time_s)" 'BEGIN { print 32 * s }')" 9.9 0.03 "GPU-seconds on 8 nodes"
# ... "0.23 s to 0.058 and 0.0075 s" with fp8 and 1-bit gradients
near "$(echo "$r8" | num dp)" 0.23 0.03 "ring 8 nodes dp"
near "$(j $RA --set cluster.nodes=8 --set parallel.dp=32 --set train.grad_compression=fp8 | num dp)" 0.058 0.03 "fp8 gradients dp"
near "$(j $RA --set cluster.nodes=8 --set parallel.dp=32 --set train.grad_compression=1bit | num dp)" 0.0075 0.03 "1-bit Adam dp"
# tp-nodes: "4.15, 10.4 (83 % TP), 5.30, 1.93 and 8.82 s"
TN=$T/tp-nodes.ini
near "$(j $TN | num step_time_s)" 4.15 0.03 "tp-nodes tp 4"
t8r=$(j $TN --set parallel.tp=8 --set parallel.dp=1)
near "$(echo "$t8r" | num step_time_s)" 10.4 0.03 "tp-nodes tp 8"
near "$(awk -v d="$(echo "$t8r" | num tp)" -v s="$(echo "$t8r" | num step_time_s)" 'BEGIN { print d / s }')" 0.83 0.03 "tp 8: TP share"
near "$(j $TN --set parallel.tp=2 --set parallel.dp=4 | num step_time_s)" 5.30 0.03 "tp-nodes tp 2"
near "$(j $TN --set parallel.tp=4 --set parallel.dp=1 --set parallel.pp=2 | num step_time_s)" 1.93 0.03 "tp-nodes pp 2"
near "$(j $TN --set parallel.order=dp-tp-cp-pp | num step_time_s)" 8.82 0.03 "tp-nodes across"

# memory-precision: 18 B/param does not fit a 40 GB A100; 16-bit gradients and
# ZeRO-1 each lower the peak.
m0=$(j $T/memory-precision.ini | num peak_bytes)
m16=$(j $T/memory-precision.ini --set parallel.fp32_grads=false | num peak_bytes)
mz1=$(j $T/memory-precision.ini --set parallel.zero=1 | num peak_bytes)
j $T/memory-precision.ini | grep -q '"oom":true' || { echo "memory-precision: baseline should not fit"; fail=1; }
lt "$m16" "$m0" "bf16 gradients save memory"
lt "$mz1" "$m16" "ZeRO-1 saves more than 16-bit gradients"
# roofline-gemm: MFU grows with the hidden size (GEMMs leave the memory-bound side).
r1=$(j $T/roofline-gemm.ini --set model.hidden=256 --set model.heads=4 | num mfu)
r2=$(j $T/roofline-gemm.ini | num mfu)
r3=$(j $T/roofline-gemm.ini --set model.hidden=4096 --set model.heads=32 | num mfu)
lt "$r1" "$r2" "MFU h=256 < h=1024"
lt "$r2" "$r3" "MFU h=1024 < h=4096"
# ring-allreduce: leaving the node multiplies the exposed DP time (> 5x).
d4=$(j $T/ring-allreduce.ini | num dp)
d8=$(j $T/ring-allreduce.ini --set cluster.nodes=2 --set parallel.dp=8 | num dp)
lt "$(awk -v a="$d4" 'BEGIN { print 5 * a }')" "$d8" "exposed dp 4 GPUs x 5 < 8 GPUs"
# pipeline-bubbles: more micro-batches and interleaving shrink the bubble.
b0=$(j $T/pipeline-bubbles.ini | num bubble_fraction)
bm=$(j $T/pipeline-bubbles.ini --set parallel.global_batch=64 | num bubble_fraction)
bv=$(j $T/pipeline-bubbles.ini --set parallel.vpp=2 | num bubble_fraction)
lt "$bm" "$b0" "m = 32 bubble < m = 8"
lt "$bv" "$b0" "vpp 2 bubble < vpp 1"
# zero-stages: memory falls with every stage; ZeRO-3 costs step time.
p=""
for z in 0 1 2 3; do
	q=$(j $T/zero-stages.ini --set parallel.zero=$z | num peak_bytes)
	[ -n "$p" ] && lt "$q" "$p" "ZeRO-$z below ZeRO-$((z - 1))"
	p=$q
done
s1=$(j $T/zero-stages.ini --set parallel.zero=1 | num step_time_s)
s3=$(j $T/zero-stages.ini --set parallel.zero=3 | num step_time_s)
lt "$s1" "$s3" "ZeRO-3 step longer than ZeRO-1"
# ... and offloading the optimizer to the CPU lowers ZeRO-2's peak further
# while the step pays the offload stall.
off="--set parallel.zero=2 --set parallel.offload_optimizer=cpu --set node.host_mem_bw=204.8GB/s"
# shellcheck disable=SC2086
po=$(j $T/zero-stages.ini $off | num peak_bytes)
p2=$(j $T/zero-stages.ini --set parallel.zero=2 | num peak_bytes)
lt "$po" "$p2" "offloaded optimizer lowers the GPU peak"
# shellcheck disable=SC2086
so=$(j $T/zero-stages.ini $off | num offload)
lt 0 "$so" "offload stall > 0"
# tp-nodes: TP across nodes (tp 8 on 4-GPU nodes) is the slowest plan.
t4=$(j $T/tp-nodes.ini | num step_time_s)
t8=$(j $T/tp-nodes.ini --set parallel.tp=8 --set parallel.dp=1 | num step_time_s)
lt "$t4" "$t8" "tp 4 inside a node faster than tp 8 across nodes"
ta=$(j $T/tp-nodes.ini --set parallel.order=dp-tp-cp-pp | num step_time_s)
lt "$t4" "$ta" "tp 4 inside a node faster than tp 4 placed across nodes"
# alvis-nodes: A100 < V100 < A40 < T4 in step time.
a=$(j $T/alvis-nodes.ini | num step_time_s)
v=$(j $T/variants/alvis-nodes-v100.ini | num step_time_s)
f=$(j $T/variants/alvis-nodes-a40.ini | num step_time_s)
t=$(j $T/variants/alvis-nodes-t4.ini | num step_time_s)
lt "$a" "$v" "A100 faster than V100"
lt "$v" "$f" "V100 faster than A40"
lt "$f" "$t" "A40 faster than T4"
# pcie-p2p: DGX H100 < PCIe box with P2P < without (the uplinks shared by 4
# GPUs cut busbw to under a fifth: the exposed dp time at least triples).
p=$(j $T/pcie-p2p.ini | num step_time_s)
np=$(j $T/pcie-p2p.ini --set node.pcie_p2p=false --set node.intra_efficiency=0.59 | num step_time_s)
dg=$(j $T/variants/pcie-p2p-dgx.ini | num step_time_s)
dp_p=$(j $T/pcie-p2p.ini | num dp)
dp_np=$(j $T/pcie-p2p.ini --set node.pcie_p2p=false --set node.intra_efficiency=0.59 | num dp)
lt "$dg" "$p" "DGX H100 faster than the PCIe box"
lt "$p" "$np" "P2P faster than through host memory"
lt "$(awk -v a="$dp_p" 'BEGIN { print 3 * a }')" "$dp_np" "no P2P: exposed dp at least 3x"
exit $fail
