#!/usr/bin/env bash
# stacks.sh PODSIM - the software stack a measured row ran
# (topologies/frameworks/stacks.csv), chosen by source, date and, for ZeRO-3
# rows, the stage (its zero_from column): a Megatron paper of 2021 ran
# Megatron-LM, but its ZeRO-3 rows ran DeepSpeed's ZeRO-3 of the time
# (Megatron-LM then sharded nothing), so they are predicted under
# deepspeed-2021, not skipped as plans Megatron-LM cannot run; a ZeRO paper
# of 2021 ran DeepSpeed of 2021, of 2023 today's profile; the Megatron-LM
# README's table of 2021 ran Megatron-LM of 2021 (its row in stacks.csv,
# Megatron-Core's table, holds from 2023); BLOOM ran Megatron-DeepSpeed
# before it had selective recomputation. Rows in
# calibration.csv's schema; the measured times are placeholders (the check
# is the profile each row gets, and that every row is simulated).
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -n 1 tests/cases/calibration.csv >"$tmp/rows.csv"
row() { # id source zero
	printf '%s,"%s",gpt-175b,96,12288,96,,49152,51200,2048,,,1536,1,768,a100-sxm4-80g,8,nvswitch-gen2,8,200,ib,1,1,768,,,,,%s,,full,fp16,40,,,,,high,\n' \
		"$1" "$2" "$3" >>"$tmp/rows.csv"
}
row Z1 "Narayanan et al. 2021, Megatron-LM SC21" 3
row Z2 "Narayanan et al. 2021, Megatron-LM SC21" 1
row Z3 "Rajbhandari et al. 2021, ZeRO-Infinity" 3
row Z4 "ZeRO++ 2023" 3
row Z5 "NVIDIA/Megatron-LM README weak-scaling figure (2021)" 1
row Z6 "BigScience BLOOM 176B (2022)" 1
row Z9 "MLPerf Training v2.1 (2022), NVIDIA" 1
row Z10 "MLPerf Training v3.1 (2023), NVIDIA" 1
# OPT's runs (2021-2022) ran metaseq: fairscale FSDP over Megatron's TP
# layers, no SP (named by the paper's title or the repository)
row Z12 "Zhang et al. 2022, OPT: Open Pre-trained Transformer Language Models" 3
row Z13 "facebookresearch/metaseq logbook (2022)" 3
# Z7: its ZeRO stage open, on tp 8 pp 8 dp 12
printf '%s,"%s",gpt-175b,96,12288,96,,49152,51200,2048,,,1536,1,768,a100-sxm4-80g,8,nvswitch-gen2,8,200,ib,8,8,12,,,,,,,full,fp16,40,,,,,high,\n' \
	Z7 "Narayanan et al. 2021, Megatron-LM SC21" >>"$tmp/rows.csv"
# Z8: SC21's 1T GPT (128 layers of 25,600, tp 8 pp 64 dp 6, 2 layers a
# stage), its ZeRO stage and recomputation open: ZeRO-0 with full
# recomputation fits, so it is ZeRO-0, though ZeRO-2 (which 2021's
# Megatron-LM did not have) would be 4 % faster; before 2026-12-02 the
# search took the fastest stage of any
printf '%s,"%s",GPT 1T,128,25600,160,,102400,51200,2048,,,3072,1,3072,a100-sxm4-80g,8,nvswitch-gen2,8,200,ib,8,64,6,,,1,,,,,fp16,100,,,,,high,\n' \
	Z8 "a Megatron-LM paper (2021)" >>"$tmp/rows.csv"
# Z14: Z8 as SC21 published it: the paper's run script sets what the row
# leaves open (recipes.csv: examples/sc21/run_table_1.sh, every layer
# recomputed), not the search; ZeRO-0, said
printf '%s,"%s",GPT 1T,128,25600,160,,102400,51200,2048,,,3072,1,3072,a100-sxm4-80g,8,nvswitch-gen2,8,200,ib,8,64,6,,,1,,,,,fp16,100,,,,,high,\n' \
	Z14 "Narayanan et al. 2021, Megatron-LM SC21" >>"$tmp/rows.csv"
# Z11: the same with ZeRO-1 stated: it ran, with its pipeline, so both the
# stage rule and the pipeline's are set aside (before 2026-12-02 the
# pipeline's stayed and the row was skipped)
printf '%s,"%s",GPT 1T,128,25600,160,,102400,51200,2048,,,3072,1,3072,a100-sxm4-80g,8,nvswitch-gen2,8,200,ib,8,64,6,,,1,,1,,full,fp16,100,,,,,high,\n' \
	Z11 "Narayanan et al. 2021, Megatron-LM SC21" >>"$tmp/rows.csv"
want() { # id profile
	"$podsim" validate "$tmp/rows.csv" --scenario "$1" --data . >"$tmp/$1.ini" 2>&1 ||
		{ echo "$1: --scenario failed"; cat "$tmp/$1.ini"; fail=1; return; }
	grep -q "^; assumed: framework $2[,( ]" "$tmp/$1.ini" &&
		grep -q "^include = ./topologies/frameworks/$2.ini$" "$tmp/$1.ini" ||
		{ echo "$1: not the $2 profile:"; grep '^; assumed: framework\|frameworks/' "$tmp/$1.ini"; fail=1; }
}
want Z1 deepspeed-2021
want Z2 megatron-lm-2021
want Z3 deepspeed-2021
want Z4 deepspeed
want Z5 megatron-lm-2021
want Z6 megatron-deepspeed-2022
want Z7 megatron-lm-2021
# MLPerf's GPT-3 from v2.1 (2022-11) ran NeMo Megatron on Megatron-LM's layers
# of the time, unfused; from 2023 NeMo on Megatron-Core and Transformer Engine
want Z9 megatron-lm
want Z10 nemo
want Z12 metaseq
want Z13 metaseq
# Megatron-LM of 2021 sharded nothing (its distributed optimizer came in
# 2022-02): an open stage is ZeRO-0, a stated ZeRO-1 ran and sets the rule
# aside, said
want Z8 megatron-lm-2021
want Z11 megatron-lm-2021
want Z14 megatron-lm-2021
grep -q '^; assumed: recompute = full (recipes.csv line ' "$tmp/Z14.ini" &&
	grep -q '^; assumed: zero 0 (not published)$' "$tmp/Z14.ini" ||
	{ echo "Z14: SC21's run script does not set the open recomputation:"; grep assumed "$tmp/Z14.ini"; fail=1; }
grep -q "^; assumed: the profile's rule runs_zero set aside: zero = 1" "$tmp/Z11.ini" &&
	grep -q '^runs_zero_with_pp = 3$' "$tmp/Z11.ini" ||
	{ echo "Z11: a stated ZeRO-1 with a pipeline under 2021's Megatron-LM:"; grep -i zero "$tmp/Z11.ini"; fail=1; }
grep -q '^zero = 0$' "$tmp/Z8.ini" ||
	{ echo "Z8: an open ZeRO stage is not the framework's that fits:"; grep -i zero "$tmp/Z8.ini"; fail=1; }
grep -q '^; assumed: zero 0 (not published)$' "$tmp/Z7.ini" ||
	{ echo "Z7: an open ZeRO stage of 2021's Megatron-LM is not 0:"; grep -i zero "$tmp/Z7.ini"; fail=1; }
grep -q "^; assumed: the profile's rule runs_zero set aside: zero = 1 (it runs ZeRO stages up to 0)" "$tmp/Z2.ini" ||
	{ echo "Z2: a stated ZeRO-1 under 2021's Megatron-LM is not said:"; grep -i zero "$tmp/Z2.ini"; fail=1; }
"$podsim" validate "$tmp/rows.csv" --data . >"$tmp/out.txt" 2>&1
grep -q '^validation of .*: 14 rows, 14 simulated, 0 skipped$' "$tmp/out.txt" ||
	{ echo "not every row simulated:"; cat "$tmp/out.txt"; fail=1; }
# the ZeRO-3 row stays in its source's group (the label of the Megatron rows),
# with the README row of 2021
grep -q '^Megatron-LM  *7  *7  *0 ' "$tmp/out.txt" ||
	{ echo "the Megatron source's group:"; cat "$tmp/out.txt"; fail=1; }
# a row an earlier row shadows is an error at its line, before any row runs
mkdir -p "$tmp/data"
cp -r topologies "$tmp/data/topologies"
ln -s "$PWD/models" "$tmp/data/models"
# shadowed TABLE EARLY LATE MESSAGE: TABLE's line matching ^LATE moved ahead
# of the one matching ^EARLY must fail validate with MESSAGE at the moved-down
# line (MESSAGE's %d: the moved-up line's number); the table is restored
shadowed() {
	local t="$tmp/data/topologies/frameworks/$1" early late
	early=$(grep -n "^$2" "$t" | cut -d: -f1)
	late=$(grep -n "^$3" "$t" | cut -d: -f1)
	{ head -n $((early - 1)) "$t"; sed -n "${late}p" "$t"; sed -n "${early},$((late - 1))p" "$t"
	  tail -n +$((late + 1)) "$t"; } >"$tmp/moved" && mv "$tmp/moved" "$t"
	if "$podsim" validate "$tmp/rows.csv" --data "$tmp/data" >"$tmp/shadow.txt" 2>&1; then
		echo "a shadowed $1 line is not an error"; fail=1
	fi
	# shellcheck disable=SC2059
	grep -qF "$1:$((early + 1)): error: $(printf "$4" "$early")" "$tmp/shadow.txt" ||
		{ echo "the shadowed $1 line's error:"; cat "$tmp/shadow.txt"; fail=1; }
	cp "topologies/frameworks/$1" "$t"
}
# the catch-all of any source up to 2022 ahead of 2021's (the slip that until
# 2026-12-02 gave a 2021 source naming no framework Megatron-LM of 2022)
shadowed stacks.csv ',,,2021,megatron-lm-2021,' ',,,2022,megatron-lm,' \
	"this row never applies: line %d (match '', profile megatron-lm)"
# the Playbook's catch-all recipe ahead of its 8B's, whose model it matches
shadowed recipes.csv 'Ultra-Scale|ultrascale,"{layers=32' 'Ultra-Scale|ultrascale,,' \
	"this line never applies: line %d (match 'Ultra-Scale|ultrascale', model '')"
exit $fail
