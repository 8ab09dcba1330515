#!/usr/bin/env bash
# verdicts.sh PODSIM - every output gives the same memory verdict for the same
# plan (issue 22: "a fits / out-of-memory verdict a planner can bank on"):
# `podsim run` text (the GPU's line, or on a mixed cluster the plan's verdict
# line; each class), `--json` (memory.verdict and oom, each class), `--html`
# (the memory section and the headline card, each class), `podsim explain`
# (section 3) and `podsim sweep` (its memory column and free GiB, or the
# plan pruned as out of memory). Plans (Llama 3 8B on one DGX H100, tp 1,
# pp 2, dp 4; Llama 2 70B on 30 DGX H100 + 2 DGX A100 40GB without
# recomputation, whose A100 nodes hold stages 0 and 1):
#   fits           8B, recompute = full: 50.3 GiB of 79.1 GiB
#   tight          8B, recompute = none: stage 0 79.1 GiB (the allocator's
#                  cache capped by the device), stage 1 fits
#   out of memory  8B, recompute = none, micro_batch = 2: both stages
#   out of memory  70B, micro_batch = 2: the H100s fit (46.6 of 79.1 GiB),
#                  stage 0 on the A100 needs 39.9 GiB allocated + runtime of
#                  39.5 GiB, stage 1 tight there: the plan's verdict is the
#                  worst of the GPU types it runs on
#   tight          70B, micro_batch = 1 at 5120 tokens: 36.7 GiB of the
#                  A100's 39.5 GiB, the H100s fit
# and offloaded states past host DRAM (the GPU fits), and explain's cuts when
# the peak is the checkpoint after the step.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

l8=scenarios/llama3-8b-1node.ini
mx=scenarios/llama2-70b-h100-a100.ini
p8="--set parallel.pp=2 --set parallel.dp=4"

# name scenario want mb sets...
check() {
	local name=$1 scen=$2 want=$3 mb=$4
	shift 4
	local sets="$* --set parallel.micro_batch=$mb"
	# shellcheck disable=SC2086
	"$podsim" run "$scen" $sets --no-db --html "$tmp/$name.html" >"$tmp/$name.txt" 2>/dev/null ||
		{ echo "$name: run failed"; fail=1; return; }
	# shellcheck disable=SC2086
	"$podsim" run "$scen" $sets --no-db --json >"$tmp/$name.json" 2>/dev/null ||
		{ echo "$name: run --json failed"; fail=1; return; }
	# shellcheck disable=SC2086
	"$podsim" explain "$scen" $sets >"$tmp/$name.exp" 2>/dev/null ||
		{ echo "$name: explain failed"; fail=1; return; }
	# the sweep over this one plan (its micro_batch the varied key)
	# shellcheck disable=SC2086
	# (exit 1 when its one plan does not fit, checked below)
	"$podsim" sweep "$scen" $* --vary parallel.micro_batch=$mb --top 1 --no-db \
		>"$tmp/$name.sw" 2>/dev/null
	local swrc=$?
	[ $swrc -le 1 ] || { echo "$name: sweep failed ($swrc)"; fail=1; return; }

	# text: the plan's verdict line on a mixed cluster, else the GPU's line
	local txt
	txt=$(sed -n 's/^  verdict           \(fits\|tight\|out of memory\).*/\1/p' "$tmp/$name.txt")
	if [ -z "$txt" ]; then
		txt=$(sed -n -e 's/^  peak .*: \(fits\|tight\) (.*/\1/p' \
			-e 's/^  OOM: allocated + runtime .*/out of memory/p' "$tmp/$name.txt")
	fi
	# JSON: memory.verdict, memory.oom
	local mem js oom
	mem=$(grep -o '"memory":{"capacity_bytes".*' "$tmp/$name.json" | sed 's/"links":.*//')
	js=$(printf '%s' "$mem" | grep -o '"oom":[a-z]*,"verdict":"[a-z ]*"' | head -1 |
		sed 's/.*"verdict":"\([a-z ]*\)"/\1/')
	oom=$(printf '%s' "$mem" | grep -o '"oom":[a-z]*,"verdict"' | head -1 | cut -d: -f2 |
		cut -d, -f1)
	# HTML: the plan's verdict line on a mixed cluster, else the GPU's line;
	# the headline card's mark
	local ht card
	ht=$(sed -n 's/^<p>Verdict: <b[^>]*>\([a-z ]*\)<\/b>.*/\1/p' "$tmp/$name.html")
	if [ -z "$ht" ]; then
		ht=$(sed -n '/<h2>Memory per GPU<\/h2>/{n;p}' "$tmp/$name.html" |
			sed -n -e 's/.*: \(fits\|tight\) (.*/\1/p' -e 's/.*>OOM: allocated.*/out of memory/p')
	fi
	card=$(grep -o '[0-9.]* [KMG]iB / [0-9.]* [KMG]iB\( OOM\| tight\)\?</span>' "$tmp/$name.html" |
		head -1 | sed -n -e 's/.* OOM<.*/out of memory/p' -e 's/.* tight<.*/tight/p')
	[ -n "$card" ] || card=fits
	# explain: the plan's verdict line on a mixed cluster, else the device line
	local ex
	ex=$(sed -n 's/^  verdict      \(fits\|tight\|OUT OF MEMORY\) (on .*/\1/p' "$tmp/$name.exp")
	if [ -z "$ex" ]; then
		ex=$(sed -n -e 's/^  device .*: \(fits\|tight\), .* free$/\1/p' \
			-e 's/^  device .*: OUT OF MEMORY, .*/OUT OF MEMORY/p' "$tmp/$name.exp")
	fi
	[ "$ex" = "OUT OF MEMORY" ] && ex="out of memory"
	# sweep: pruned as out of memory, or the row's memory column
	local sw free=""
	if grep -q '^ *1  does not fit' "$tmp/$name.sw"; then
		sw="out of memory"
		[ $swrc -eq 1 ] && grep -q '^no plan fits in memory; the nearest: ' "$tmp/$name.sw" ||
			{ echo "$name: sweep of a plan that does not fit: exit $swrc, no nearest"; fail=1; }
	else
		[ $swrc -eq 0 ] || { echo "$name: sweep of a fitting plan exits $swrc"; fail=1; }
		sw=$(awk '$1 == "1" && NF > 10 { print $9; exit }' "$tmp/$name.sw")
		free=$(awk '$1 == "1" && NF > 10 { print $8; exit }' "$tmp/$name.sw")
	fi

	local all="text '$txt', json '$js', html '$ht', card '$card', explain '$ex', sweep '$sw'"
	for v in "$txt" "$js" "$ht" "$card" "$ex" "$sw"; do
		[ "$v" = "$want" ] || { echo "$name: want '$want' everywhere: $all"; fail=1; break; }
	done
	{ [ "$want" = "out of memory" ] && [ "$oom" = true ]; } ||
		{ [ "$want" != "out of memory" ] && [ "$oom" = false ]; } ||
		{ echo "$name: JSON oom $oom with verdict '$want'"; fail=1; }
	# the sweep's free GiB is the headroom of the verdict's GPU (JSON)
	if [ -n "$free" ]; then
		local hr
		hr=$(printf '%s' "$mem" | grep -o '"headroom_bytes":[0-9.e+-]*' | cut -d: -f2)
		awk -v f="$free" -v h="$hr" 'BEGIN { d = f - h / 1073741824; exit !(d < 0.051 && d > -0.051) }' ||
			{ echo "$name: sweep free $free GiB, JSON headroom $hr B"; fail=1; }
	fi

	# each class: text, JSON and HTML give the same verdict
	local tc jc hc
	tc=$(sed -n '/^  per class:/,/^$/p' "$tmp/$name.txt" | sed -n 's/^    stage [0-9]* *[0-9.]* [KMG]\?i\?B  \([a-zA-Z]*\).*/\1/p' |
		sed 's/^OOM$/out of memory/' | tr '\n' ',')
	jc=$(printf '%s' "$mem" | grep -o '"total":[0-9.e+-]*,"verdict":"[a-z ]*"' |
		sed 's/.*"verdict":"\([a-z ]*\)"/\1/' | tr '\n' ',')
	hc=$(grep -o '<tr><td class="l">stage [0-9]*</td><td>[^<]*</td><td class="l">\(<span class="oom">\)\?[A-Za-z]*' \
		"$tmp/$name.html" | sed 's/.*>\([A-Za-z]*\)$/\1/; s/^OOM$/out of memory/' | tr '\n' ',')
	[ -n "$jc" ] && [ "$tc" = "$jc" ] && [ "$hc" = "$jc" ] ||
		{ echo "$name: classes differ: text $tc json $jc html $hc"; fail=1; }
}

# shellcheck disable=SC2086
check fits "$l8" "fits" 1 $p8 --set parallel.recompute=full
# shellcheck disable=SC2086
check tight "$l8" "tight" 1 $p8 --set parallel.recompute=none
# shellcheck disable=SC2086
check oom "$l8" "out of memory" 2 $p8 --set parallel.recompute=none
check mixed-oom "$mx" "out of memory" 2 --set parallel.recompute=none
check mixed-tight "$mx" "tight" 1 --set parallel.recompute=none --set model.seq_len=5120

# on the mixed plans the text, JSON, HTML and explain name the A100 as the
# verdict's GPU, and the text gives the H100's line beside it
grep -q '^  verdict           out of memory (on a100-sxm4-40g, the worst of the GPU types' \
	"$tmp/mixed-oom.txt" || { echo "mixed-oom: text names no A100 basis"; fail=1; }
grep -q '^  on h100-sxm5-80g  stage 0: peak .*: fits (' "$tmp/mixed-oom.txt" ||
	{ echo "mixed-oom: text has no H100 line"; fail=1; }
grep -q '"verdict":"out of memory","verdict_on":"a100-sxm4-40g"' "$tmp/mixed-oom.json" ||
	{ echo "mixed-oom: JSON verdict_on is not the A100"; fail=1; }
grep -q '"verdict":"tight","verdict_on":"a100-sxm4-40g"' "$tmp/mixed-tight.json" ||
	{ echo "mixed-tight: JSON verdict_on is not the A100"; fail=1; }
grep -q '^3\. Memory per GPU, stage 0 on a100-sxm4-40g' "$tmp/mixed-oom.exp" ||
	{ echo "mixed-oom: explain does not walk the A100's stage"; fail=1; }
grep -q '(on a100-sxm4-40g, the worst of the GPU types' "$tmp/mixed-oom.html" ||
	{ echo "mixed-oom: HTML names no A100 basis"; fail=1; }

# Offloaded states past the node's host DRAM (Llama 2 13B, ZeRO-2 offload, on
# nodes of 200 GB: 13 G params x 16 B = 194 GiB per node): the GPU fits, the
# plan is out of memory in text, JSON and explain, on the host's basis
zo="scenarios/llama2-13b-zero-offload.ini --set node.host_memory=200GB"
# shellcheck disable=SC2086
"$podsim" run $zo --no-db >"$tmp/host.txt" 2>/dev/null || { echo "host: run failed"; fail=1; }
# shellcheck disable=SC2086
"$podsim" run $zo --no-db --json >"$tmp/host.json" 2>/dev/null || { echo "host: --json failed"; fail=1; }
# shellcheck disable=SC2086
"$podsim" explain $zo >"$tmp/host.exp" 2>/dev/null || { echo "host: explain failed"; fail=1; }
grep -q '^  peak .*: fits (' "$tmp/host.txt" && grep -q '^  verdict           out of memory: the offloaded states per node, .* overflow the node.s host memory' "$tmp/host.txt" ||
	{ echo "host: text has no GPU fits line and host verdict"; fail=1; }
grep -q '"oom":true,"verdict":"out of memory","verdict_on":"host memory"' "$tmp/host.json" ||
	{ echo "host: JSON verdict is not out of memory on the host"; fail=1; }
grep -q '^  verdict      OUT OF MEMORY: the offloaded states per node' "$tmp/host.exp" ||
	{ echo "host: explain has no host verdict"; fail=1; }

# The checkpoint after the step as the peak (hf-trainer-fsdp's
# checkpoint_shards; Llama 2 7B QLoRA at 512 tokens on 2 GPUs, test_memory's
# test_checkpoint) on a 5 GB GPU: tight, and explain's cuts are the one that
# acts on the save (checkpoint_offload), saying that the micro-batch cannot
# change it.
root=$(pwd)
cat >"$tmp/ckpt.ini" <<EOF
include = $root/topologies/frameworks/hf-trainer-fsdp.ini
include = $root/models/llama2-7b.ini
include = $root/topologies/nodes/dgx-a100-80g.ini
[scenario]
name = ckpt
[node]
gpus = 2
[cluster]
name = c
nodes = 1
[model]
seq_len = 512
[parallel]
dp = 2
zero = 3
micro_batch = 2
global_batch = 4
recompute = full
offload_params = cpu
offload_optimizer = cpu
[train]
policy = pure
lora_rank = 8
lora_targets = all
base_weights = nf4-dq
EOF
"$podsim" explain "$tmp/ckpt.ini" --set gpu.hbm=5GB >"$tmp/ckpt.exp" 2>/dev/null ||
	{ echo "checkpoint: explain failed"; fail=1; }
grep -q '^  peak at      saving a checkpoint after the step' "$tmp/ckpt.exp" ||
	{ echo "checkpoint: the peak is not the save"; fail=1; }
grep -q '^  device .*: tight, ' "$tmp/ckpt.exp" || { echo "checkpoint: not tight"; fail=1; }
grep -A1 '^  cut first' "$tmp/ckpt.exp" | grep -q 'checkpoint_offload = true (FULL_STATE_DICT) .* state-dict shards -> ' ||
	{ echo "checkpoint: no checkpoint_offload cut"; fail=1; }
tr -s ' \n' ' ' <"$tmp/ckpt.exp" | grep -q 'cannot change that moment here: micro_batch = 1' ||
	{ echo "checkpoint: the micro-batch is not said to leave the save alone"; fail=1; }
exit $fail
