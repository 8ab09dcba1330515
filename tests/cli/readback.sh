#!/usr/bin/env bash
# readback.sh PODSIM - tools/readback: the case rows with one column left
# open, where the reader takes it from the row's text (the note, source or
# model: a framework, GPU, fabric, precision, sequence parallelism or
# micro-batch), read back what the text meant: no WRONG read (a value
# other than the row's own that moves the prediction) on memory.csv's rows
# and a sample of calibration.csv's; and every memory row's framework,
# GPU and precision read back its own peak but for the three PEFT rows
# whose GPU no text names (the figures README quotes). Run from the
# source root.
set -u
podsim=$1
fail=0
# (memory_kind: the counter the note names, "max_memory_allocated",
# "peak reserved", "like nvidia-smi"; the device's view before; a row
# "As the previous row" of a row that says so too follows the chain: the
# framework's and precision's last row, 95 before)
out=$(tools/readback tests/cases/memory.csv --podsim "$podsim" \
	--cols framework,gpu,precision,micro_batch,memory_kind) || { echo "memory.csv: $out" | tail -5; fail=1; }
echo "$out" | grep -q '^framework  *0  *96  *0$' &&
	echo "$out" | grep -q '^gpu  *3  *93  *0$' &&
	echo "$out" | grep -q '^precision  *0  *96  *0$' &&
	echo "$out" | grep -q '^micro_batch  *0  *86  *10$' &&
	echo "$out" | grep -q '^memory_kind  *0  *96  *0$' ||
	{ echo "memory.csv read-back figures moved:"; echo "$out"; fail=1; }
# the collectives' open gpu: the H100 their note names (p5), each its own
# prediction (was skipped: "an EFA row of another instance needs ...")
# ... their open message size the note's "message '256MB'" (was the 1 GiB
# default), their open bus bandwidth the measured_value its
# measured_metric names (was skipped: "neither time nor bus bandwidth")
out=$(tools/readback tests/cases/efa-collectives.csv --podsim "$podsim" --cols gpu,bytes,busbw_GBps) &&
	echo "$out" | grep -q '^gpu  *0  *21  *0$' &&
	echo "$out" | grep -q '^bytes  *0  *21  *0$' &&
	echo "$out" | grep -q '^busbw_GBps  *0  *21  *0$' ||
	{ echo "efa-collectives.csv read-back:"; echo "$out"; fail=1; }
out=$(tools/readback tests/cases/calibration.csv --podsim "$podsim" --sample 40 \
	--cols gpu,fabric,precision,sequence_parallel) || { echo "calibration.csv: $out" | tail -5; fail=1; }
exit $fail
