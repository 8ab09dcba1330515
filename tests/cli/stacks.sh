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
"$podsim" validate "$tmp/rows.csv" --data . >"$tmp/out.txt" 2>&1
grep -q '^validation of .*: 6 rows, 6 simulated, 0 skipped$' "$tmp/out.txt" ||
	{ echo "not every row simulated:"; cat "$tmp/out.txt"; fail=1; }
# the ZeRO-3 row stays in its source's group (the label of the Megatron rows),
# with the README row of 2021
grep -q '^Megatron-LM  *3  *3  *0 ' "$tmp/out.txt" ||
	{ echo "the Megatron source's group:"; cat "$tmp/out.txt"; fail=1; }
# a row an earlier row shadows is an error at its line, before any row runs:
# the catch-all of any source up to 2022 moved ahead of 2021's (the slip
# that until 2026-12-02 gave a 2021 source naming no framework Megatron-LM
# of 2022)
mkdir -p "$tmp/data"
cp -r topologies "$tmp/data/topologies"
ln -s "$PWD/models" "$tmp/data/models"
st="$tmp/data/topologies/frameworks/stacks.csv"
late=$(grep -n '^,,,2022,megatron-lm,' "$st" | cut -d: -f1)
early=$(grep -n '^,,,2021,megatron-lm-2021,' "$st" | cut -d: -f1)
{ head -n $((early - 1)) "$st"; sed -n "${late}p" "$st"; sed -n "${early},$((late - 1))p" "$st"
  tail -n +$((late + 1)) "$st"; } >"$tmp/stacks.csv" && mv "$tmp/stacks.csv" "$st"
if "$podsim" validate "$tmp/rows.csv" --data "$tmp/data" >"$tmp/shadow.txt" 2>&1; then
	echo "a shadowed stacks.csv row is not an error"; fail=1
fi
grep -q "stacks.csv:$((early + 1)): error: this row never applies: line $early (match '', profile megatron-lm)" "$tmp/shadow.txt" ||
	{ echo "the shadowed row's error:"; cat "$tmp/shadow.txt"; fail=1; }
# the same in recipes.csv: the Playbook's catch-all line moved ahead of its
# 8B's, whose model pattern it matches too
cp topologies/frameworks/stacks.csv "$st"
rc="$tmp/data/topologies/frameworks/recipes.csv"
l8=$(grep -n '^Ultra-Scale|ultrascale,"{layers=32' "$rc" | cut -d: -f1)
lall=$(grep -n '^Ultra-Scale|ultrascale,,' "$rc" | cut -d: -f1)
{ head -n $((l8 - 1)) "$rc"; sed -n "${lall}p" "$rc"; sed -n "${l8},$((lall - 1))p" "$rc"
  tail -n +$((lall + 1)) "$rc"; } >"$tmp/recipes.csv" && mv "$tmp/recipes.csv" "$rc"
if "$podsim" validate "$tmp/rows.csv" --data "$tmp/data" >"$tmp/shadow2.txt" 2>&1; then
	echo "a shadowed recipes.csv line is not an error"; fail=1
fi
grep -q "recipes.csv:$((l8 + 1)): error: this line never applies: line $l8 (match 'Ultra-Scale|ultrascale', model '')" "$tmp/shadow2.txt" ||
	{ echo "the shadowed recipe line's error:"; cat "$tmp/shadow2.txt"; fail=1; }
exit $fail
