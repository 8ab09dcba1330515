#!/usr/bin/env bash
# topo.sh PODSIM - `podsim topo` and `podsim coll`: the summary of
# topologies/tiny-2node.ini against a golden text, DOT output, the flow model
# against alpha-beta on an uncongested node, and bad arguments (status 2).
# Run from the source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Golden: two DGX A100 (23 vertices each: 8 GPUs, NVSwitch, 4 PCIe switches,
# CPU, 8 NICs, NVMe) on one HDR leaf (16 NICs fit its 20 down ports).
# Diameter: GPU-PCIe-NIC-leaf-NIC-PCIe-GPU = 6. Bisection: node 0's 8 NICs of
# 200 Gb/s = 200 GB/s.
cat >"$tmp/want" <<'GOLD'
cluster tiny-2node: 2 nodes x 8 GPUs (dgx-a100-80g), 16 GPUs
vertices: 47
  gpu              16
  nvswitch          2
  pcie_switch       8
  cpu               2
  nic              16
  nvme              2
  leaf              1
links (directed): 148
  nvswitch         32
  pcie             84
  ib               32
diameter: 6 hops (GPU to GPU)
bisection bandwidth: 200 GB/s per direction
injection per GPU: scale-up 300 GB/s, network 25 GB/s
GOLD
"$podsim" topo topologies/tiny-2node.ini >"$tmp/got" 2>"$tmp/err" || { echo "topo failed"; cat "$tmp/err"; fail=1; }
diff -u "$tmp/want" "$tmp/got" || { echo "topo summary differs from the golden"; fail=1; }

# DOT: one vertex line per vertex and one edge per cable pair (148 / 2 = 74).
"$podsim" topo topologies/tiny-2node.ini --dot >"$tmp/dot" || { echo "--dot failed"; fail=1; }
head -1 "$tmp/dot" | grep -q '^graph "tiny-2node" {$' || { echo "--dot: bad header"; fail=1; }
[ "$(grep -c ' \[label=.*shape=' "$tmp/dot")" -eq 47 ] || { echo "--dot: want 47 vertices"; fail=1; }
[ "$(grep -c ' -- ' "$tmp/dot")" -eq 74 ] || { echo "--dot: want 74 edges"; fail=1; }
# Too large to draw: 128 nodes -> refused with the reason, status 2.
err=$("$podsim" topo topologies/selene-a100-80g.ini --dot 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "--dot on 128 nodes: want 2, got $rc"; fail=1; }
echo "$err" | grep -q "draws at most 512" || { echo "--dot refusal: $err"; fail=1; }
# Past four switch tiers: HDR radix 40 holds 40 zones x 20 pods x 20 leaves
# x 2 DGX A100 = 32,000 nodes (fabric.c); 32,001 are refused with that
# count, status 2, before anything is built.
err=$("$podsim" topo topologies/tiny-2node.ini --set cluster.nodes=32001 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || { echo "topo on 32001 HDR nodes: want 2, got $rc"; fail=1; }
echo "$err" | grep -q "hold at most 32000 and podsim builds no fifth" || { echo "5-tier refusal: $err"; fail=1; }

# coll on one uncongested NVSwitch node: flow model = alpha-beta. 1 GiB
# all-reduce on 8 GPUs: t = 2(n-1)/n S / (300 GB/s x 0.767) + 59 us of
# latency and overhead; busbw columns 4 and 9 agree.
"$podsim" coll --topology topologies/tiny-2node.ini --gpus 8 allreduce 1GiB >"$tmp/c" 2>"$tmp/err" ||
	{ echo "coll failed"; cat "$tmp/err"; fail=1; }
awk '!/^#/ { n++; if ($1 != 1073741824 || $4 != $9 || $4 < 220 || $4 > 231) bad = 1 }
     END { exit !(n == 1 && !bad) }' "$tmp/c" || { echo "coll row:"; cat "$tmp/c"; fail=1; }
grep -q 'most loaded link' "$tmp/c" || { echo "coll: no link footer"; fail=1; }
# Issue 14: on one DGX H100 both models pick NVLS for a 1 GiB all-reduce, as
# NCCL's tuner does, at 14/8 GiB / 480 GB/s + 25 us: busbw 477.0 GB/s
# (nccl-tests ~480); the ring alone gives 450 x 0.822 = 370.
"$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 8 allreduce 1GiB >"$tmp/c" ||
	{ echo "coll dgx-h100 failed"; fail=1; }
awk '!/^#/ { n++; if ($4 != $9 || $5 != "nvls" || $4 < 432 || $4 > 528) bad = 1 }
     END { exit !(n == 1 && !bad) }' "$tmp/c" || { echo "coll dgx-h100 NVLS row:"; cat "$tmp/c"; fail=1; }
# Issue 14: the flow model runs NCCL's pick whatever the fabric does to it.
# GPU 0 of 32 H800 nodes on a fat tree, 32 MiB all-reduce: NCCL's own
# table (net tune.c) picks tree/LL128 (1900.1 us in its model against the
# ring's LL128 2013.2; tests/unit/test_flow.c nccl_pick_contended), which
# the alpha-beta columns time at 1754 us; the tree's edges collide on the
# leaves' d-mod-k uplinks (the busiest, leaf1 -> spine0, carries 2.5 x 32
# MiB), so the flow model times that tree at 2168 us (the ring's flows
# would take 2045 us). Columns 5-6 and 10-11: both models' pair.
"$podsim" coll --topology topologies/h800-cluster.ini --gpus 32 --stride 8 allreduce 32MiB >"$tmp/c" ||
	{ echo "coll h800 failed"; fail=1; }
awk '!/^#/ { n++; if ($5 != "tree" || $6 != "LL128" || $10 != "tree" || $11 != "LL128" ||
                     $2 < 1.15 * $7) bad = 1 }
     END { exit !(n == 1 && !bad) }' "$tmp/c" || { echo "coll h800 tree row:"; cat "$tmp/c"; fail=1; }
grep -q 'most loaded link leaf1 -> spine0 (ib), 8.389e+07 B' "$tmp/c" ||
	{ echo "coll h800: want the tree's collision on leaf1 -> spine0:"; cat "$tmp/c"; fail=1; }
# --algo still forces one: the ring there, in both models.
"$podsim" coll --topology topologies/h800-cluster.ini --gpus 32 --stride 8 --algo ring allreduce 32MiB >"$tmp/c"
awk '!/^#/ { n++; if ($5 != "ring" || $10 != "ring" || $2 != $7) bad = 1 }
     END { exit !(n == 1 && !bad) }' "$tmp/c" || { echo "coll h800 --algo ring row:"; cat "$tmp/c"; fail=1; }
# A group of some of each node's GPUs across nodes: the header says that
# the alpha-beta columns give it k/G of the node's NICs and the flow model
# runs it alone (a DGX H100 group of 4 per node: 4/8); a group of whole
# nodes, or inside one node, has no such line.
"$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 32 --stride 2 allreduce 1GiB >"$tmp/c"
grep -q "^# the group holds 4 of each node's 8 GPUs: the alpha-beta model gives it 4/8 of the node's NICs" "$tmp/c" ||
	{ echo "coll --stride 2: no NIC-share line:"; cat "$tmp/c"; fail=1; }
for g in "--gpus 32" "--gpus 4"; do
	# shellcheck disable=SC2086
	"$podsim" coll --topology topologies/dgx-h100-superpod.ini $g allreduce 1GiB | grep -q "^# the group holds" &&
		{ echo "coll $g: a NIC-share line for a group of whole nodes or one node"; fail=1; }
done
# --sweep from 8 B doubling to 1 KiB: 8 rows (8, 16, ..., 1024).
n=$("$podsim" coll --topology topologies/tiny-2node.ini --gpus 16 allgather 1KiB --sweep | grep -vc '^#')
[ "$n" -eq 8 ] || { echo "--sweep: want 8 rows, got $n"; fail=1; }
# --json keys of the issue.
"$podsim" coll --topology topologies/tiny-2node.ini --gpus 16 p2p 1MiB --json >"$tmp/j" || { echo "--json failed"; fail=1; }
for k in time_s algbw_GBps busbw_GBps algorithm; do
	grep -q "\"$k\"" "$tmp/j" || { echo "--json: no $k"; fail=1; }
done
if command -v python3 >/dev/null; then
	python3 -m json.tool "$tmp/j" >/dev/null || { echo "--json: not valid JSON"; fail=1; }
fi
# the channels NCCL runs the call on (net_tune_channels, test_net derives
# them): on DGX H100 nodes with 400 Gb/s NICs a ring of one rank per node 4
# (1 of 48 GB/s, duplicated, doubled at connection), a ring inside a node
# 24 (6 of 60, duplicated, doubled), an NVLS all-reduce the NVLS graph's 16
for t in "32 --stride 8:4" "8 --algo ring:24" "8:16"; do
	# shellcheck disable=SC2086
	got=$("$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus ${t%%:*} allreduce 1GiB --json |
		sed -n 's/.*"nccl_channels": \([0-9]*\).*/\1/p')
	[ "$got" = "${t##*:}" ] || { echo "coll --gpus ${t%%:*}: nccl_channels '$got', want ${t##*:}"; fail=1; }
done

# [cluster] nccl_algo / nccl_proto (as NCCL_ALGO / NCCL_PROTO) force the
# algorithm and protocol of both models; on this uncongested 2-node cluster
# their times agree.
"$podsim" coll --topology topologies/tiny-2node.ini --gpus 16 allreduce 1MiB --json \
	--set cluster.nccl_algo=tree --set cluster.nccl_proto=simple >"$tmp/f" || { echo "forced algo failed"; fail=1; }
[ "$(grep -o '"algorithm": "tree", "protocol": "Simple"' "$tmp/f" | wc -l)" -eq 2 ] ||
	{ echo "nccl_algo=tree, nccl_proto=simple not used by both models:"; cat "$tmp/f"; fail=1; }
# nccl_algo = pat (NCCL's PAT: all-gather and reduce-scatter of one rank
# per node, net/coll.c) at 256 MiB on tiny-2node's 2 nodes, one GPU each,
# where auto runs the ring; --algo pat on an all-reduce is refused.
"$podsim" coll --topology topologies/tiny-2node.ini --gpus 2 --stride 8 allgather 256MiB --json \
	--set cluster.nccl_algo=pat >"$tmp/f" || { echo "forced pat failed"; fail=1; }
[ "$(grep -o '"algorithm": "pat", "protocol": "Simple"' "$tmp/f" | wc -l)" -eq 2 ] ||
	{ echo "nccl_algo=pat not used by both models:"; cat "$tmp/f"; fail=1; }
"$podsim" coll --topology topologies/tiny-2node.ini --gpus 2 --stride 8 allgather 256MiB --json >"$tmp/f"
[ "$(grep -o '"algorithm": "ring"' "$tmp/f" | wc -l)" -eq 2 ] ||
	{ echo "auto at 256 MiB, 2 nodes: want the ring in both models:"; cat "$tmp/f"; fail=1; }
if "$podsim" coll --topology topologies/tiny-2node.ini --gpus 2 --stride 8 --algo pat allreduce 1MiB \
	>/dev/null 2>"$tmp/e"; then
	echo "--algo pat allreduce: accepted"; fail=1
fi
grep -q 'does not apply' "$tmp/e" || { echo "--algo pat allreduce: no error"; cat "$tmp/e"; fail=1; }

# SHARP ([cluster] sharp, net/coll.c "SHARP"): 16 DGX H100 of the SuperPOD,
# a 1 GiB all-reduce of all 128 GPUs: auto runs NCCL's NVLS across nodes in
# both models (busbw min(480, ...) = 480 GB/s against the ring's 370) only
# with the key; one GPU per node (a data-parallel group under tp 8) runs
# CollNetChain (2 x 47 GB/s x 15/16 = 88 busbw against the ring's 47);
# collnetdirect is refused without it.
"$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 128 allreduce 1GiB --json \
	--set cluster.nodes=16 --set cluster.sharp=true >"$tmp/f" || { echo "sharp coll failed"; fail=1; }
[ "$(grep -o '"algorithm": "nvls", "protocol": "Simple"' "$tmp/f" | wc -l)" -eq 2 ] ||
	{ echo "sharp = true, 16 nodes: want nvls in both models:"; cat "$tmp/f"; fail=1; }
grep -q '"busbw_GBps": 475\.[0-9]*, "algorithm": "nvls"' "$tmp/f" ||
	{ echo "sharp = true, 16 nodes: want busbw 475 GB/s (480 less the latency):"; cat "$tmp/f"; fail=1; }
"$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 128 allreduce 1GiB --json \
	--set cluster.nodes=16 >"$tmp/f"
! grep -q '"algorithm": "nvls"\|collnet' "$tmp/f" || { echo "sharp off: nvls or collnet across nodes"; cat "$tmp/f"; fail=1; }
"$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 16 --stride 8 allreduce 1GiB --json \
	--set cluster.nodes=16 --set cluster.sharp=true >"$tmp/f"
[ "$(grep -o '"algorithm": "collnetchain", "protocol": "Simple"' "$tmp/f" | wc -l)" -eq 2 ] ||
	{ echo "sharp = true, 1 GPU per node: want collnetchain in both models:"; cat "$tmp/f"; fail=1; }
if "$podsim" coll --topology topologies/dgx-h100-superpod.ini --gpus 128 --algo collnetdirect \
	allreduce 1GiB --set cluster.nodes=16 >/dev/null 2>"$tmp/e"; then
	echo "--algo collnetdirect without sharp: accepted"; fail=1
fi
grep -q 'does not apply' "$tmp/e" || { echo "--algo collnetdirect without sharp: no error"; cat "$tmp/e"; fail=1; }

# ... and a step's collectives: quickstart with the tree forced differs from
# auto (ring), and the flow and alpha-beta models give the same step.
st() { "$podsim" run scenarios/quickstart.ini --no-db --json "$@" 2>/dev/null | grep -o '"step_time_s":[0-9.e+-]*'; }
a=$(st); tf=$(st --set cluster.nccl_algo=tree); ta=$(st --set cluster.nccl_algo=tree --set cluster.network=alpha-beta)
[ -n "$tf" ] && [ "$tf" != "$a" ] && [ "$tf" = "$ta" ] ||
	{ echo "nccl_algo=tree in a run: auto $a, flow $tf, alpha-beta $ta"; fail=1; }

# A node with two NICs per GPU (16 x 200 Gb/s) carries what one of 400 Gb/s
# per GPU does: the flow model spreads a GPU's traffic between nodes over the
# NICs beside it (its rails, as NCCL spreads its channels), as net's B_nic
# counts them; before, every flow took the GPU's first NIC and the flow
# model gave half the bandwidth (all-reduce 240 against 370 GB/s busbw).
for op in allreduce alltoall; do
	two=$("$podsim" coll --topology topologies/dgx-h100-superpod.ini --set node.nics=16 \
		--set node.nic_bw=200Gb/s --set cluster.fabric=fat-tree --gpus 32 $op 1GiB |
		awk '!/^#/ { print $2 }')
	one=$("$podsim" coll --topology topologies/dgx-h100-superpod.ini --set cluster.fabric=fat-tree \
		--gpus 32 $op 1GiB | awk '!/^#/ { print $2 }')
	awk -v a="$two" -v b="$one" 'BEGIN { exit !(a > 0 && a < 1.02 * b && a > 0.98 * b) }' ||
		{ echo "two NICs per GPU, $op: flow $two us against $one us with one of twice the rate"; fail=1; }
done

# EFA: a 64-node all-gather of 256 MiB gives the same row in both models
# (rails, per-step costs and congestion alike), and a step on the EFA cluster
# pays them: Llama 2 70B (tp 8, pp 4, dp 8) on 32 p5 nodes is slower than on
# the InfiniBand SuperPOD, in both network models (the median step: the
# step's spread is not sampled, spread.sh tests it).
"$podsim" coll --topology topologies/efa-h100-cluster.ini --gpus 512 allgather 256MiB >"$tmp/efa" ||
	{ echo "coll on EFA failed"; fail=1; }
# (the same within 1e-6 of the time: both count 7/8 of a ring's bytes over
# NVLink and 1/8 through the NICs across nodes, net/coll.c B_intra; when the
# closed form counted all of them over NVLink the two differed by 2.5e-4 here
# and by up to 10 % where the rails are faster than NVLink's bound)
awk 'function off(x, y) { return (x > y ? x - y : y - x) > 1e-6 * y }
	!/^#/ { n++; if (off($2, $7) || off($4, $9) || $5 != $10 || $6 != $11) bad = 1 }
	END { exit !(n == 1 && !bad) }' "$tmp/efa" ||
	{ echo "coll on EFA: flow and alpha-beta differ:"; cat "$tmp/efa"; fail=1; }
# The aws-ofi-nccl region tuner for 1 and 2 ranks per node (--stride 8 and 4
# on 8-GPU p5 nodes; net/efa.c, test_net's test_efa_layouts derives the
# points): both models run the region's pair. 32 MiB all-reduce on 16 nodes,
# 1 rank per node: the region says Ring/LL128, where NCCL's own tuner
# (ec2_instance = none) runs Tree/LL128; 256 MiB on 64 nodes, 2 per node:
# Tree/Simple; a 64 MiB reduce-scatter on 16 nodes, 1 per node: on the
# region's edge x = y + 22, ring/Simple. With ec2_instance = p5en (its
# tables for 1 rank per node, A :557-607): a 1 MiB all-gather or
# reduce-scatter on 16 nodes lies in PAT/Simple's region, 32 MiB in
# Ring/LL128's; both models run NCCL's PAT there (net/coll.c "PAT").
efa_pair() { # ARGS... -> "flow-algo flow-proto ab-algo ab-proto"
	"$podsim" coll --topology topologies/efa-h100-cluster.ini --json "$@" 2>&1 |
		sed 's/.*"algorithm": "\([a-z]*\)", "protocol": "\([A-Za-z0-9]*\)".*"algorithm": "\([a-z]*\)", "protocol": "\([A-Za-z0-9]*\)".*/\1 \2 \3 \4/'
}
for c in "ring LL128|--gpus 16 --stride 8 allreduce 32MiB" \
	"tree LL128|--gpus 16 --stride 8 allreduce 32MiB --set node.ec2_instance=none" \
	"tree Simple|--gpus 128 --stride 4 allreduce 256MiB" \
	"ring Simple|--gpus 16 --stride 8 reducescatter 64MiB" \
	"pat Simple|--gpus 16 --stride 8 allgather 1MiB --set node.ec2_instance=p5en" \
	"pat Simple|--gpus 16 --stride 8 reducescatter 1MiB --set node.ec2_instance=p5en" \
	"ring LL128|--gpus 16 --stride 8 allgather 32MiB --set node.ec2_instance=p5en"; do
	want=${c%%|*}
	# shellcheck disable=SC2086
	got=$(efa_pair ${c#*|})
	[ "$got" = "$want $want" ] || { echo "EFA region (${c#*|}): got '$got', want '$want' twice"; fail=1; }
done
# The header counts the nodes the strided ranks span: GPUs 0, 8, ..., 120 are
# GPU 0 of 16 nodes (it said "2 node(s) of 8", the contiguous count).
"$podsim" coll --topology topologies/efa-h100-cluster.ini --gpus 16 --stride 8 allreduce 32MiB |
	grep -q "^# podsim coll: all-reduce on 16 GPUs of efa-h100-cluster (16 node(s), 1 of each node's 8)" ||
	{ echo "coll --stride 8: header's node count"; fail=1; }

# The links table under network = flow counts every transfer's loads, the
# pipeline's too when the framework lengthens its sends (nanotron's p2p
# handshakes and host operations: time, not bytes): the NIC bytes of pp 2
# across 2 nodes (the sends alone: dp 1) are the same with and without that
# overhead (they missed the sends' loads
# while the tasks' durations did not match the flow model's answers).
nic_bytes() {
	"$podsim" run scenarios/llama3-8b-efa-nanotron.ini --set cluster.nodes=2 --set parallel.pp=2 \
		--set parallel.dp=1 --set parallel.global_batch=8 \
		"$@" --no-db --json 2>/dev/null | tr '{' '\n' | grep '"name":"n0/nic0 -> leaf0"' |
		grep -o '"bytes":[0-9.e+]*'
}
b1=$(nic_bytes)
b0=$(nic_bytes --set framework.p2p_host_ops=0 --set framework.p2p_handshakes=0)
[ -n "$b1" ] && [ "$b1" = "$b0" ] || { echo "links: NIC bytes depend on the p2p overhead ($b1 vs $b0)"; fail=1; }

for net in flow alpha-beta; do
	"$podsim" sweep scenarios/llama2-70b-h100.ini --no-db --set cluster.network=$net \
		--vary topology=topologies/dgx-h100-superpod.ini,topologies/efa-h100-cluster.ini \
		--spread-samples 0 >"$tmp/sw" 2>&1 ||
		{ echo "sweep over EFA failed:"; cat "$tmp/sw"; fail=1; }
	awk '$NF == "dp=8" && $(NF-1) ~ /superpod/ { ib = $3 } $NF == "dp=8" && $(NF-1) ~ /efa/ { efa = $3 }
	     END { exit !(ib > 0 && efa > ib) }' "$tmp/sw" || { echo "EFA step not slower ($net):"; cat "$tmp/sw"; fail=1; }
done

# A strided group on the flow network: Llama 2 70B with tp 4 and ZeRO-3 on
# 8 DGX H100, whose data-parallel (shard) groups hold local GPUs j and j + 4
# of each node. Each ring leaves a node from GPU j + 4 through GPU j's NIC,
# relayed over NVLink by GPU j (NCCL's PXN, sim/topo/route.c), never through
# the CPU, so no link of the report climbs to a CPU, and the step equals
# alpha-beta's (both NIC-bound: 2 NICs per group and node). Before PXN the
# relayed sends crossed the CPU twice: 'n0/pcie0 -> n0/cpu0 ... 98% busy'
# and a step of 133.0 s instead of 90.2 s.
for net in flow alpha-beta; do
	"$podsim" run scenarios/llama2-70b-h100.ini --no-db --set cluster.network=$net \
		--set cluster.nodes=8 --set parallel.tp=4 --set parallel.pp=1 --set parallel.dp=16 \
		--set parallel.micro_batch=1 --set parallel.zero=3 --set parallel.recompute=none \
		--set parallel.tp_comm_overlap=true >"$tmp/z3-$net" 2>&1 ||
		{ echo "tp 4 ZeRO-3 run ($net) failed:"; cat "$tmp/z3-$net"; fail=1; }
done
grep -q 'flow network' "$tmp/z3-flow" || { echo "tp 4 ZeRO-3: not on the flow network"; fail=1; }
! grep -q -- '-> n[0-9]*/cpu' "$tmp/z3-flow" || { echo "tp 4 ZeRO-3: a link to the CPU:"; cat "$tmp/z3-flow"; fail=1; }
[ "$(grep 'step time' "$tmp/z3-flow")" = "$(grep 'step time' "$tmp/z3-alpha-beta")" ] ||
	{ echo "tp 4 ZeRO-3: flow and alpha-beta steps differ:"; grep 'step time' "$tmp"/z3-*; fail=1; }

# Rail-only (topologies/dgx-h100-rail-only.ini: 32 DGX H100, 8 rails of one
# switch each, no spine; Wang et al. 2023). A data-parallel all-reduce of
# rank-aligned GPUs (--stride 8: GPU 0 of 64 nodes, two units, so rail 0 has
# 2 leaves and a spine) is a ring on rail 0 alone: every flow enters and
# leaves by NIC 0 and never crosses rails, so its links are the same leaf and
# spine ports as rail-optimized's and the row is identical (both models;
# alpha-beta sees no difference between the two fabrics). An all-to-all of
# the 256 GPUs of one unit crosses rails: rail-optimized joins them through
# the spines; rail-only relays over NVLink to the GPU on the destination's
# rail (PXN) and stays on that rail's one switch. At 1:1 both are NIC-bound:
# each NIC carries S/256 to each of 248 GPUs of other nodes, its own GPU's
# on rail-optimized and, by symmetry, its rail's share of its 8 GPUs' on
# rail-only; the extra NVLink hop (450 GB/s per GPU against the NIC's 47)
# never binds, so the rows are equal: 248/256 x 1 GiB / 47 GB/s = 22.13 ms
# plus latency. Rail-only is slower only where the relay's NVLink load binds
# (a node whose NVLink is near the NIC rate). At 3:1 the taper is the
# rail-optimized spines' (a rail leaf of 32 NICs gets ceil(32/3) = 11
# uplinks), and its cross-rail bytes, 32 GPUs x 217 peers on other rails and
# nodes x S/256 = 27.125 S = 29.1 GB, need >= 29.1 GB / (11 x 47 GB/s) =
# 56.3 ms; rail-only has no spine in one unit and keeps 22.16 ms.
r=topologies/dgx-h100-rail-only.ini
for f in rail-only rail-optimized; do
	"$podsim" coll --topology $r --set cluster.fabric=$f --set cluster.nodes=64 --gpus 64 \
		--stride 8 allreduce 1GiB | grep -v '^#' >"$tmp/dp-$f" || { echo "rail dp $f failed"; fail=1; }
	for o in 1 3; do
		"$podsim" coll --topology $r --set cluster.fabric=$f --set cluster.oversubscription=$o \
			--gpus 256 alltoall 1GiB | grep -v '^#' >"$tmp/a2a-$f-$o" ||
			{ echo "rail a2a $f $o failed"; fail=1; }
	done
done
[ -s "$tmp/dp-rail-only" ] && cmp -s "$tmp/dp-rail-only" "$tmp/dp-rail-optimized" ||
	{ echo "rail-only dp all-reduce differs:"; cat "$tmp"/dp-*; fail=1; }
[ -s "$tmp/a2a-rail-only-1" ] && cmp -s "$tmp/a2a-rail-only-1" "$tmp/a2a-rail-optimized-1" ||
	{ echo "rail-only all-to-all at 1:1 differs:"; cat "$tmp"/a2a-*-1; fail=1; }
awk '{ t[FILENAME ~ /only/] = $2 } END { exit !(t[1] > 22131 && t[1] < 22300 && t[0] >= 56300) }' \
	"$tmp/a2a-rail-only-3" "$tmp/a2a-rail-optimized-3" ||
	{ echo "rail-only all-to-all at 3:1:"; cat "$tmp"/a2a-*-3; fail=1; }
# ... and the alpha-beta model times the 1:1 all-to-all as the flow model
# does (columns 2 and 7: time in us): each rank's 248/256 of the buffer leaves
# through its own NIC share (net/coll.c; it once divided by the whole node's
# NICs, 8x too fast: 2.79 ms)
awk '{ exit !($2 == $7) }' "$tmp/a2a-rail-optimized-1" ||
	{ echo "all-to-all: the two models differ:"; cat "$tmp/a2a-rail-optimized-1"; fail=1; }
# One unit of rail-only has 8 leaves and no spine (rail-optimized: 8 + 4).
"$podsim" topo $r | grep -q '^  spine' && { echo "rail-only unit has spines"; fail=1; }
"$podsim" coll --topology $r --gpus 64 --stride 8 allreduce 1GiB >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--stride past the cluster: want 2"; fail=1; }

# The 2-GPU PCIe NVLink bridge (topologies/pcie-a100-nvlink-bridge.ini): the
# bisection is the bridge alone, 600 GB/s bidirectional / 2 = 300 GB/s per
# direction (hardware.csv gpu,NVIDIA A100 PCIe 40/80GB,nvlink_total); the
# path through the shared PCIe switch (31.5 GB/s) is not NCCL's. A 2-GPU ring
# all-reduce moves 2 (n - 1) / n = 1 x the buffer over it: 1 GiB at
# 300 GB/s x 0.792 = 4.519 ms, plus the ring's local step S / (2 x 515 GB/s)
# = 1.043 ms (ring_local_bw, assumed equal to DGX A100's; net/coll.c) and
# NCCL's latency (15.2 us): 5.577 ms, busbw 192.5 GB/s, in both models, over
# the nvlink link.
b=topologies/pcie-a100-nvlink-bridge.ini
"$podsim" topo $b | grep -q '^bisection bandwidth: 300 GB/s per direction$' ||
	{ echo "NVLink bridge bisection:"; "$podsim" topo $b; fail=1; }
"$podsim" coll --topology $b --gpus 2 allreduce 1GiB >"$tmp/bridge" 2>&1
awk '$1 == 1073741824 { ok = $2 > 5576 && $2 < 5578 && $4 > 192.4 && $4 < 192.6 && $6 == "Simple" &&
	$7 > 5576 && $7 < 5578 } END { exit !ok }' "$tmp/bridge" &&
	grep -q 'most loaded link n0/gpu0 -> n0/gpu1 (nvlink)' "$tmp/bridge" ||
	{ echo "NVLink bridge all-reduce:"; cat "$tmp/bridge"; fail=1; }

# Bad arguments: status 2.
t=topologies/tiny-2node.ini
expect2() {
	"$podsim" "$@" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "podsim $*: want 2, got $rc"; fail=1; }
}
expect2 topo
expect2 topo --frob $t
expect2 topo no-such-file.ini
expect2 coll
expect2 coll --topology $t --gpus 8 allreduce
expect2 coll --topology $t --gpus 8 frobnicate 1GiB
expect2 coll --topology $t --gpus 17 allreduce 1GiB
expect2 coll --topology $t --gpus 0 allreduce 1GiB
expect2 coll --topology $t --gpus 8 allreduce 1024
expect2 coll --topology $t --gpus 8 allreduce 1GiB --algo nvls
expect2 coll --topology $t --gpus 8 allgather 1GiB --algo tree
expect2 coll --topology $t --gpus 1 p2p 1GiB
expect2 validate tests/cases/microbench.csv --network frob
expect2 validate tests/cases/microbench.csv --network

# validate --network flow: on the DGX-1 V100 all-reduce rows (NVLink hybrid
# cube mesh) the flow model routes over the NVLink bricks the GPUs really
# have, where alpha-beta assumes every GPU's full NVLink bandwidth. On the
# 2-GPU rows its MAPE must beat alpha-beta's and stay under 5 % (measured:
# flow 0.6 %, alpha-beta 83.0 %).
mape() { "$podsim" validate tests/cases/microbench.csv --only LUT-V100-G2- "$@" |
	awk '$1 == "all" { sub("%", "", $5); print $5 }'; }
ab=$(mape --network alpha-beta) fl=$(mape --network flow)
awk -v a="$ab" -v f="$fl" 'BEGIN { exit !(a != "" && f != "" && f + 0 < 5 && f + 0 < a + 0) }' ||
	{ echo "validate --network flow: LUT-V100-G2 MAPE flow '$fl' vs alpha-beta '$ab'"; fail=1; }
# fabric = efa over nodes whose NICs are InfiniBand's (the quickstart's
# cluster): a warning at the fabric key, and the run goes on; an AWS node
# file (p5, nic_kind = efa) warns of nothing
"$podsim" run scenarios/quickstart.ini --no-db --set cluster.fabric=efa >/dev/null 2>"$tmp/efa.err" &&
	grep -q "warning: \[cluster\] fabric = efa with \[node\] nic_kind = ib" "$tmp/efa.err" ||
	{ echo "fabric = efa on InfiniBand NICs: no warning"; cat "$tmp/efa.err"; fail=1; }
"$podsim" run scenarios/llama3-8b-efa.ini --no-db 2>&1 >/dev/null | grep -q "warning" &&
	{ echo "fabric = efa on p5 nodes: a warning"; fail=1; }
"$podsim" topo --help | grep -q '^usage: podsim topo' || { echo "topo --help"; fail=1; }
"$podsim" coll --help | grep -q '^usage: podsim coll' || { echo "coll --help"; fail=1; }
exit $fail
