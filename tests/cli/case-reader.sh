#!/usr/bin/env bash
# case-reader.sh PODSIM - what `podsim validate` makes of training rows whose
# columns name hardware or options beyond the shipped case files, from the
# source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Rows the real systems ran are predicted, not skipped: an offload column
# (cpu: ZeRO-Offload, the optimizer states and their step on the host, with
# its assumption; slower than the same row without it), an 8 x A100 PCIe
# Gen4 box (topologies/nodes/pcie-8x-a100.ini); a node no template covers
# is skipped with its node_intra and GPU named.
{
	head -1 tests/cases/calibration.csv
	grep '^D01,' tests/cases/calibration.csv | sed 's/^D01,/XO0,/'
	grep '^D01,' tests/cases/calibration.csv | sed 's/^D01,/XO1,/; s/,none,,bf16,/,cpu,,bf16,/'
	grep '^D01,' tests/cases/calibration.csv |
		sed 's/^D01,/XP1,/; s/,h100-sxm5-80g,8,nvswitch-gen3,/,a100-pcie,8,pcie-gen4,/'
	grep '^D01,' tests/cases/calibration.csv |
		sed 's/^D01,/XV1,/; s/,h100-sxm5-80g,8,nvswitch-gen3,/,v100-sxm3-32g,16,nvswitch-gen1,/'
} >"$tmp/rows.csv"
"$podsim" validate "$tmp/rows.csv" --json >"$tmp/rows.json" 2>/dev/null
python3 - "$tmp/rows.json" <<'PY' || fail=1
import json, sys
r = {x["id"]: x for x in json.load(open(sys.argv[1]))["rows"]}
ok = True
def bad(msg):
    global ok
    print(msg); ok = False
if r["XO1"]["status"] != "ok" or "offload cpu: the optimizer states and step on the CPU" not in r["XO1"]["assumed"]:
    bad("offload row: %s" % r["XO1"])
elif not r["XO1"]["predicted_iter_s"] > r["XO0"]["predicted_iter_s"]:
    bad("offload row not slower: %s vs %s" % (r["XO1"]["predicted_iter_s"], r["XO0"]["predicted_iter_s"]))
if r["XP1"]["status"] != "ok":
    bad("A100 PCIe row: %s" % r["XP1"])
if r["XV1"]["status"] != "skipped" or "no node template for node_intra 'nvswitch-gen1' with v100-sxm3-32g" not in r["XV1"]["reason"]:
    bad("DGX-2 row: %s" % r["XV1"])
sys.exit(0 if ok else 1)
PY
"$podsim" validate "$tmp/rows.csv" --scenario XP1 2>/dev/null | grep -q '^include = .*topologies/nodes/pcie-8x-a100.ini$' ||
	{ echo "A100 PCIe row: not on pcie-8x-a100"; fail=1; }
# A row on a RoCE fabric runs RoCE NICs (hash ECMP in the flow model), one on
# InfiniBand the node's own (d-mod-k): MosaicML's O14 and Megatron-Core's D01.
"$podsim" validate tests/cases/calibration.csv --scenario O14 2>/dev/null | grep -qx 'nic_kind = roce' ||
	{ echo "O14 (roce-fat-tree): no nic_kind = roce"; fail=1; }
"$podsim" validate tests/cases/calibration.csv --scenario D01 2>/dev/null | grep -q '^nic_kind' &&
	{ echo "D01 (ib-fat-tree): a nic_kind written"; fail=1; }
# A training row measured on AWS EFA runs on the shipped EFA cluster of its
# GPU, as the collective rows do (p5: the fabric fitted to
# efa-collectives.csv), with the assumption said; its step is slower than
# the same row's on the InfiniBand fat tree (EFA's collectives are); an
# A100 row on EFA (p4d, p4de: no shipped cluster) runs on its own node and
# NICs as an unfitted EFA cluster, said (case-reader-open.sh XA).
{
	head -1 tests/cases/calibration.csv
	grep '^D02,' tests/cases/calibration.csv | sed 's/^D02,/XE0,/'
	grep '^D02,' tests/cases/calibration.csv | sed 's/^D02,/XE1,/; s/,ib-fat-tree,/,efa,/'
	grep '^D02,' tests/cases/calibration.csv |
		sed 's/^D02,/XE2,/; s/,ib-fat-tree,/,efa,/; s/,h100-sxm5-80g,8,nvswitch-gen3,/,a100-sxm4-80g,8,nvswitch-gen2,/'
} >"$tmp/efa.csv"
"$podsim" validate "$tmp/efa.csv" --json >"$tmp/efa.json" 2>/dev/null
python3 - "$tmp/efa.json" <<'PY' || fail=1
import json, sys
r = {x["id"]: x for x in json.load(open(sys.argv[1]))["rows"]}
ok = r["XE1"]["status"] == "ok" and "EFA: the shipped efa-h100-cluster.ini" in r["XE1"]["assumed"] \
    and r["XE1"]["predicted_iter_s"] > r["XE0"]["predicted_iter_s"] \
    and r["XE2"]["status"] == "ok" and "EFA on a100-sxm4-80g (8 x 400 Gb/s" in r["XE2"]["assumed"]
if not ok:
    print("EFA rows:", r["XE0"], r["XE1"], r["XE2"])
sys.exit(0 if ok else 1)
PY
"$podsim" validate "$tmp/efa.csv" --scenario XE1 2>/dev/null | grep -q '^include = .*topologies/efa-h100-cluster.ini$' ||
	{ echo "EFA row: not on efa-h100-cluster.ini"; fail=1; }
# Memory rows: where neither the note nor a model file says whether the
# embeddings are tied, params_b decides when it is precise enough (the two
# counts differ by the output layer, V h): Llama 3.2 3B's 3.213 B is the
# tied count, not the untied 3.607 B a SwiGLU row is given by default; a
# nominal "3" cannot tell them apart and leaves the default.
{
	head -1 tests/cases/memory.csv
	grep '^MC01,' tests/cases/memory.csv | sed 's/^MC01,/XT1,/; s/tied embeddings/shared weights/g'
	grep '^MC01,' tests/cases/memory.csv | sed 's/^MC01,/XT2,/; s/tied embeddings/shared weights/g; s/,3\.213,/,3,/'
} >"$tmp/tie.csv"
"$podsim" validate "$tmp/tie.csv" --scenario XT1 >"$tmp/xt1.ini" 2>/dev/null
grep -q '^untied_embeddings = false$' "$tmp/xt1.ini" &&
	grep -q "tied embeddings: params_b 3.213 is nearer the tied count 3.2.* B than the untied 3.6.* B" "$tmp/xt1.ini" ||
	{ echo "memory row: params_b does not tie the embeddings"; cat "$tmp/xt1.ini"; fail=1; }
"$podsim" validate "$tmp/tie.csv" --scenario XT2 2>/dev/null | grep -q '^untied_embeddings = true$' ||
	{ echo "memory row: a nominal params_b decided the tie"; fail=1; }
# Four SXM GPUs a node: the 4-GPU board (HGX A100 / H100 4-GPU: NVLink
# between every pair, no NVSwitch, a NIC per GPU), said, not the 8-GPU box
# cut in half; a collective row of 2 nodes of 4 times as `podsim coll` on two
# such nodes, not as one node of 8 (before 2026-12-02 the microbenchmark
# reader dropped gpus_per_node: the two were the same 2.14 ms).
{
	head -1 tests/cases/calibration.csv
	grep '^D01,' tests/cases/calibration.csv | sed 's/^D01,/XB4,/; s/,h100-sxm5-80g,8,nvswitch-gen3,/,h100-sxm5-80g,4,nvswitch-gen3,/'
} >"$tmp/board.csv"
"$podsim" validate "$tmp/board.csv" --scenario XB4 >"$tmp/xb4.ini" 2>/dev/null
grep -q '^include = .*topologies/nodes/hgx-h100-4gpu.ini$' "$tmp/xb4.ini" &&
	grep -q '; assumed: 4 GPUs a node: the hgx-h100-4gpu board' "$tmp/xb4.ini" ||
	{ echo "4-GPU H100 row: not on the 4-GPU board"; cat "$tmp/xb4.ini"; fail=1; }
# ... and on a node without a 4-GPU board (HGX H200), 4 GPUs a node across
# nodes keep the box's NICs per GPU (4 of its 8), said; the row's own NIC
# count stands where it gives one
{
	head -1 tests/cases/calibration.csv
	grep '^D01,' tests/cases/calibration.csv | sed 's/^D01,/XH4,/; s/,h100-sxm5-80g,8,nvswitch-gen3,8,/,h200-sxm-141g,4,nvswitch-gen3,,/'
	grep '^D01,' tests/cases/calibration.csv | sed 's/^D01,/XH8,/; s/,h100-sxm5-80g,8,nvswitch-gen3,8,/,h200-sxm-141g,4,nvswitch-gen3,8,/'
} >"$tmp/h200.csv"
"$podsim" validate "$tmp/h200.csv" --scenario XH4 >"$tmp/xh4.ini" 2>/dev/null
grep -qx 'nics = 4' "$tmp/xh4.ini" &&
	grep -q "; assumed: nics_per_node 4 (not published: the hgx-h200 node's 8 NICs for 8 GPUs, kept per GPU)" "$tmp/xh4.ini" ||
	{ echo "4 H200 a node: not 4 NICs"; cat "$tmp/xh4.ini"; fail=1; }
"$podsim" validate "$tmp/h200.csv" --scenario XH8 >"$tmp/xh8.ini" 2>/dev/null
grep -qx 'nics = 8' "$tmp/xh8.ini" && ! grep -q 'kept per GPU' "$tmp/xh8.ini" ||
	{ echo "4 H200 a node, 8 NICs stated: not the row's"; cat "$tmp/xh8.ini"; fail=1; }
{
	head -1 tests/cases/microbench.csv
	grep '^LUT-A100-G8-1024,' tests/cases/microbench.csv | sed 's/^LUT-A100-G8-1024,\(allreduce,a100-sxm4-80g,8,\)1,8,/XM8,\11,8,/'
	grep '^LUT-A100-G8-1024,' tests/cases/microbench.csv | sed 's/^LUT-A100-G8-1024,\(allreduce,a100-sxm4-80g,8,\)1,8,/XM4,\12,4,/'
} >"$tmp/m4.csv"
printf 'include = %s/topologies/nodes/hgx-a100-4gpu-80g.ini\n[cluster]\nname = two\nnodes = 2\nfabric = fat-tree\n' "$PWD" >"$tmp/two.ini"
coll_us=$("$podsim" coll --topology "$tmp/two.ini" --gpus 8 allreduce "$(cut -d, -f16 <<<"$(grep '^LUT-A100-G8-1024,' tests/cases/microbench.csv)")B" 2>/dev/null | awk '!/^#/ {print $2; exit}')
# ... the same row with gpus_per_node open reads 4 from its 8 GPUs on 2
# nodes, said (it ran 8 GPUs on one node of the template's box before)
grep '^LUT-A100-G8-1024,' tests/cases/microbench.csv | sed 's/^LUT-A100-G8-1024,\(allreduce,a100-sxm4-80g,8,\)1,8,/XMO,\12,,/' >>"$tmp/m4.csv"
# ... and on a node without a 4-GPU board (8 A100 PCIe cards), the row's 4 a
# node are kept: 2 nodes of the PCIe box with 4 cards each and 2 of its 4
# NICs (its NICs per GPU, said)
grep '^LUT-A100-G8-1024,' tests/cases/microbench.csv |
	sed 's/^LUT-A100-G8-1024,allreduce,a100-sxm4-80g,8,1,8,nvswitch-gen2,/XP4,allreduce,a100-pcie,8,2,4,pcie-gen4,/' >>"$tmp/m4.csv"
printf 'include = %s/topologies/nodes/pcie-8x-a100.ini\ninclude = %s/topologies/gpus/a100-pcie.ini\n[node]\ngpus = 4\nnics = 2\n[cluster]\nname = two\nnodes = 2\nfabric = fat-tree\n' "$PWD" "$PWD" >"$tmp/twop.ini"
collp_us=$("$podsim" coll --topology "$tmp/twop.ini" --gpus 8 allreduce 1073741824B 2>/dev/null | awk '!/^#/ {print $2; exit}')
"$podsim" validate "$tmp/m4.csv" --json >"$tmp/m4.json" 2>/dev/null
python3 - "$tmp/m4.json" "$coll_us" "$collp_us" <<'PY' || fail=1
import json, sys
r = {x["id"]: x for x in json.load(open(sys.argv[1]))["rows"]}
coll_s = float(sys.argv[2]) * 1e-6
m4, m8 = r["XM4"], r["XM8"]
ok = m4["status"] == "ok" and "the hgx-a100-4gpu-80g board" in m4["assumed"] \
    and abs(m4["predicted_iter_s"] / coll_s - 1) < 1e-4 and m4["predicted_iter_s"] > 1.5 * m8["predicted_iter_s"]
mo = r["XMO"]
ok = ok and mo["status"] == "ok" and mo["predicted_iter_s"] == m4["predicted_iter_s"] \
    and "gpus_per_node 4 (not published: 8 GPUs on 2 nodes)" in mo["assumed"]
p4 = r["XP4"]
ok = ok and p4["status"] == "ok" and abs(p4["predicted_iter_s"] / (float(sys.argv[3]) * 1e-6) - 1) < 1e-4 \
    and "nics_per_node 2 (not published: the pcie-8x-a100 node's 4 NICs for 8 GPUs, kept per GPU)" in p4["assumed"]
if not ok:
    print("2 nodes of 4:", m4, "coll", coll_s, "1 node of 8:", m8, "open:", mo, "PCIe:", p4, sys.argv[3])
sys.exit(0 if ok else 1)
PY
exit $fail
