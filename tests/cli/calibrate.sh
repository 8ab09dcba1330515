#!/usr/bin/env bash
# calibrate.sh PODSIM - `podsim calibrate`: regenerating the shipped
# calibrations gives the same files (golden), the printed fit is the golden
# below, bad input exits 2 with path:line, and --out writes nothing on error.
# Run from the source root.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- golden: tools/calibrate-all into a temporary folder --------------------
PODSIM=$podsim tools/calibrate-all "$tmp/calib" || { echo "calibrate-all failed"; fail=1; }
for f in topologies/calib/*.ini; do
	cmp -s "$f" "$tmp/calib/$(basename "$f")" ||
		{ echo "regenerated $(basename "$f") differs:"; diff "$f" "$tmp/calib/$(basename "$f")"; fail=1; }
done

# --- the GPU files carry the fitted attention values (scenarios include the
# GPU file, not the calibration): each attn_ key of <gpu>-attention.ini equals
# the GPU file's, and the files of GPUs with the same SMs and clock repeat them.
for pair in h100-sxm5-80g:h100-sxm5-80g h100-sxm5-80g:h200-sxm-141g h100-sxm5-80g:h800-sxm5-80g \
	a100-sxm4-80g:a100-sxm4-80g a100-sxm4-80g:a100-sxm4-40g; do
	cal=topologies/calib/${pair%%:*}-attention.ini gpu=topologies/gpus/${pair##*:}.ini
	want=$(grep '^attn_' "$cal" | sort) got=$(grep '^attn_' "$gpu" | sort)
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		{ echo "$gpu: attention values differ from $cal"; diff <(echo "$want") <(echo "$got"); fail=1; }
done

# --- golden text output: Q01 (bf16 GEMM, 271.2 TFLOP/s) is a MAMF sweep
# maximum, so gemm_efficiency_bf16 = 271.2 / 312 = 0.8692 (no fit; Q01 itself,
# not a whole number of waves under the model's tiles, comes out 2.26 % slow);
# hbm_efficiency is the exact solve of Q17 (1 GiB read at 1.8 TB/s = 596.52 us).
"$podsim" calibrate tests/cases/microbench.csv --gpu a100-sxm4-80g --data . >"$tmp/a100.txt" ||
	{ echo "calibrate a100 failed"; fail=1; }
cat >"$tmp/want.txt" <<'END'
calibration of a100-sxm4-80g from tests/cases/microbench.csv: 2 rows used, 3621 of other GPUs or kinds ignored

parameter                       start       fitted      std.err
hbm_efficiency                 0.8700       0.8887          n/a
gemm_efficiency_bf16           0.8690       0.8692    sweep max

row         line  kernel                          measured_us    before_us     after_us   before    after
Q01            2  gemm bf16 1024x10240x5120            395.92       404.98       404.87   +2.29%   +2.26%
Q17           26  hbm_copy 1073741824 B                596.52       609.29       596.52   +2.14%   +0.00%

MAPE before 2.21 %, after 1.13 %; 2 parameters, 0 degrees of freedom (an exact solve: no standard errors)
GSL multifit_nlinear trust region (Levenberg-Marquardt): 4 iterations, converged
gemm_efficiency_bf16: the best of a sweep of shapes (MAMF) bounds every shape: best / peak
END
diff "$tmp/want.txt" "$tmp/a100.txt" || { echo "calibrate a100: output differs from the golden"; fail=1; }
"$podsim" calibrate tests/cases/microbench.csv --gpu a100-sxm4-80g --data . --json >"$tmp/a.json" ||
	{ echo "--json failed"; fail=1; }
grep -qF '"key": "hbm_efficiency"' "$tmp/a.json" || { echo "--json: no hbm_efficiency"; fail=1; }
if command -v python3 >/dev/null; then
	python3 -m json.tool "$tmp/a.json" >/dev/null || { echo "--json: not valid JSON"; fail=1; }
fi

# --- bad input: exit 2, the message, nothing written --------------------------
# expect ARGS... : exit 2, stderr holds $want, no $tmp/out.ini
expect() {
	"$podsim" calibrate "$@" --data . --out "$tmp/out.ini" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc -eq 2 ] || { echo "calibrate $*: exit $rc, want 2"; fail=1; }
	grep -qF -- "$want" "$tmp/e" || { echo "calibrate $*: want '$want', got:"; cat "$tmp/e"; fail=1; }
	[ ! -e "$tmp/out.ini" ] && [ ! -e "$tmp/out.ini.tmp" ] || { echo "calibrate $*: wrote a file"; fail=1; }
}
printf 'id,kind,gpu,dtype,m,n,k,bytes,time_us,measured_value,measured_unit\nA,gemm,t4,fp16,8,abc,8,,5,,\n' >"$tmp/bad.csv"
want="$tmp/bad.csv:2: error: column 'n'" expect "$tmp/bad.csv" --gpu t4
want="podsim calibrate: error: unknown GPU 'no-such-gpu'" expect tests/cases/microbench.csv --gpu no-such-gpu
want="error: no gemm, hbm_copy or attention rows for gpu 't4'" expect tests/cases/microbench.csv --gpu t4
want="--gpu NAME is required" expect tests/cases/microbench.csv
want="$tmp/none.csv" expect "$tmp/none.csv" --gpu t4
"$podsim" calibrate --help | grep -q '^usage: podsim calibrate' || { echo "--help"; fail=1; }
exit $fail
