#!/usr/bin/env bash
# estimate.sh PODSIM - `podsim estimate` prints the course notes' rules of thumb
# with the right numbers. Run from the source root. Each expected figure is
# derived by hand in the comment above its check.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# want FILE TEXT WHY: FILE must contain the fixed string TEXT.
want() {
	grep -qF -- "$2" "$1" || { echo "missing '$2' ($3)"; fail=1; }
}

# --- a 7B model given by its parameter count -------------------------------
"$podsim" estimate --params 7e9 >"$tmp/7b" 2>"$tmp/7b.err"
rc=$?
[ $rc -eq 0 ] || { echo "estimate --params 7e9: exit $rc"; cat "$tmp/7b.err"; fail=1; }
# weights at bf16: 7e9 params x 2 bytes = 14e9 B = 14 GB; one 80 GB GPU.
want "$tmp/7b" "fp16/bf16  P x 2   B = 14 GB" "bf16 weights"
# fp32 4 B: 28 GB; int8 1 B: 7 GB; int4 0.5 B: 3.5 GB.
want "$tmp/7b" "P x 4   B = 28 GB" "fp32 weights"
want "$tmp/7b" "P x 1   B = 7 GB" "int8 weights"
want "$tmp/7b" "P x 0.5 B = 3.5 GB" "int4 weights"
# mixed-precision Adam: 2 + 2 + 12 = 16 B/param x 7e9 = 112e9 B = 112 GB,
# ceil(112 / 80) = 2 GPUs; with fp32 gradients 18 x 7e9 = 126 GB.
want "$tmp/7b" "16 x P = 112 GB, GPUs = 2" "16 bytes/param"
want "$tmp/7b" "18 x P = 126 GB, GPUs = 2" "18 bytes/param"
# rule of thumb: 6 x inference weights = 6 x 7e9 x 2 B = 84 GB -> 2 GPUs.
want "$tmp/7b" "= 84 GB, GPUs = 2" "6x rule"
# Chinchilla: D = 20 x P = 20 x 7e9 = 1.4e11 tokens (the default D).
want "$tmp/7b" "Chinchilla-optimal D = 20 x P = 1.4e+11 tokens" "Chinchilla"
# C = 6 x P x D = 6 x 7e9 x 1.4e11 = 42e9 x 1.4e11 = 5.88e21 FLOPs.
want "$tmp/7b" "= 5.88e+21 FLOPs" "6PD"

# --- Llama 2 7B from its model file -----------------------------------------
"$podsim" estimate --model models/llama2-7b.ini >"$tmp/l7" 2>"$tmp/l7.err" ||
	{ echo "estimate --model llama2-7b failed"; cat "$tmp/l7.err"; fail=1; }
# h = 4096, l = 32, V = 32000, ffn = 11008, untied, RMSNorm, no biases:
#   embedding V x h = 131,072,000; output V x h + final norm h = 131,076,096;
#   layer 4 h^2 (attention) + 3 h f (SwiGLU) + 2 h (norms) = 67,108,864 +
#   135,266,304 + 8,192 = 202,383,360, x 32 = 6,476,267,520;
#   total 6,738,415,616 = 6.74e9.
want "$tmp/l7" "P = 6,738,415,616 (6.74e+09)" "llama2-7b parameters"
want "$tmp/l7" "32 x 202,383,360 per layer" "llama2-7b layer"
# KV cache: 2 x 32 layers x 32 kv_heads x 128 head_dim x 4096 seq x 1 x 2 B
#   = 2^31 B = 2 GiB (512 KiB per token).
want "$tmp/l7" "= 2 x 32 x 32 x 128 x 4096 x 1 x 2 B = 2 GiB" "KV cache"

# --- JSON carries the same figures ------------------------------------------
"$podsim" estimate --params 7e9 --json >"$tmp/7b.json" || { echo "--json failed"; fail=1; }
want "$tmp/7b.json" '"train_adam_bytes": 112000000000' "json 16 B/param"
want "$tmp/7b.json" '"flops_6pd": 5.88e+21' "json 6PD"
want "$tmp/7b.json" '"kv_cache_bytes": null' "json null without a model"
if command -v python3 >/dev/null; then
	python3 -m json.tool "$tmp/7b.json" >/dev/null || { echo "--json: not valid JSON"; fail=1; }
fi

# --- time to train on H100s: 6PD / (gpus x 989.4 TFLOP/s x MFU) --------------
# 6 x 7e9 x 1.4e11 = 5.88e21 FLOPs / (8 x 989.4e12 x 0.5) = 1.486e6 s = 17.2 days.
"$podsim" estimate --params 7e9 --gpu topologies/gpus/h100-sxm5-80g.ini --gpus 8 --mfu 0.5 \
	>"$tmp/h100" 2>&1 || { echo "--gpu h100 failed"; cat "$tmp/h100"; fail=1; }
want "$tmp/h100" "= 1.49e+06 s = 17.2 days" "time to train"
want "$tmp/h100" "hw_peak(bf16) = 989.4 TFLOP/s" "peak"

# --- energy and CO2: Llama 2 7B on 2048 A100 (400 W TDP), 2e12 tokens ----------
# GPU-hours = 6 x 6.738e9 x 2e12 / (312e12 x 0.4) / 3600 = 1.80e5; the GPUs
# alone at TDP: 1.80e5 h x 0.4 kW = 71.99 MWh, x 0.423 kg/kWh = 30.45 t (the
# Llama 2 paper: 184,320 GPU-hours, 31.22 t). With 3300 W per 8-GPU node and
# PUE 1.1: (400 + 3300 / 8) W x 1.1 x 1.8e5 h = 160.9 MWh, 68.04 t, while
# Llama 2's convention stays at 71.99 MWh.
L7="--model models/llama2-7b.ini --gpu topologies/gpus/a100-sxm4-80g.ini --tokens 2e12"
# shellcheck disable=SC2086
"$podsim" estimate $L7 --gpus 2048 >"$tmp/e1" 2>&1 || { echo "energy run failed"; fail=1; }
want "$tmp/e1" "GPU power       2048 x 400 W = 819.2 kW (TDP, a100-sxm4-80g" "GPU power term"
want "$tmp/e1" "energy          819.2 kW x 87.88 h = 71.99 MWh" "energy term"
want "$tmp/e1" "= 30.45 t CO2e" "CO2 term"
want "$tmp/e1" "8,640 h" "the notes' 360-day years named"
# shellcheck disable=SC2086
"$podsim" estimate $L7 --node-power 3300 --pue 1.1 --json >"$tmp/e2.json" 2>&1 ||
	{ echo "energy json failed"; fail=1; }
e2=$(tr -d ' \n' <"$tmp/e2.json")
gh=$(echo "$e2" | grep -o '"gpu_hours":[0-9.e+]*' | cut -d: -f2)
mwh=$(echo "$e2" | grep -o '"energy_mwh":[0-9.e+]*' | cut -d: -f2)
tdp=$(echo "$e2" | grep -o '"energy_gpu_tdp_mwh":[0-9.e+]*' | cut -d: -f2)
awk -v g="$gh" -v m="$mwh" -v t="$tdp" 'BEGIN {
	e = g * (400 + 3300 / 8) * 1.1 / 1e6; f = g * 400 / 1e6
	exit !(m > 0.9999 * e && m < 1.0001 * e && t > 0.9999 * f && t < 1.0001 * f) }' ||
	{ echo "energy: $mwh MWh (GPU-TDP $tdp) from $gh GPU-hours"; fail=1; }
# shellcheck disable=SC2086
"$podsim" estimate $L7 --power 300 >"$tmp/e3" 2>&1 || { echo "--power failed"; fail=1; }
want "$tmp/e3" "1 x 300 W = 0.3 kW (measured average, --power; TDP 400 W)" "measured power"

# --- bad input: status 2, a message, nothing on stdout ------------------------
for args in "--bogus" "--params" "--params abc" "--params 7e9 --mfu 2" \
	"--params 7e9 --model models/llama2-7b.ini" "" "--model no-such.ini" \
	"--params 7e9 --gpu topologies/gpus/a100-sxm4-80g.ini --precision fp8" \
	"--params 7e9 --pue 0.5" "--params 7e9 --power -3"; do
	# shellcheck disable=SC2086
	"$podsim" estimate $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "estimate $args: exit $rc, want 2"; fail=1; }
	[ -s "$tmp/out" ] && { echo "estimate $args: unexpected stdout"; fail=1; }
	grep -q "error" "$tmp/err" || { echo "estimate $args: no error message"; fail=1; }
done

# --- help ---------------------------------------------------------------------
"$podsim" estimate --help >"$tmp/help" || { echo "estimate --help failed"; fail=1; }
want "$tmp/help" "usage: podsim estimate" "usage line"
exit $fail
