#!/usr/bin/env bash
# teaching.sh PODSIM - every scenario under scenarios/teaching runs (--no-db,
# exit 0); every top-level one starts with its question; every 'podsim run',
# 'podsim explain' and 'podsim coll' command its header lists runs; and each
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
done < <(grep -h '^;   podsim \(run\|explain\|coll\) ' "$T"/*.ini)

# j FILE ARGS... -> the run's JSON on one line
j() { "$podsim" run "$@" --no-db --json 2>/dev/null; }
# num KEY: the first value of "KEY": in the JSON on stdin
num() { grep -o "\"$1\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
# lt A B WHY: A < B
lt() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }' ||
		{ echo "want '$1' < '$2': $3"; fail=1; }
}

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
