#!/usr/bin/env bash
# teaching-doc.sh PODSIM - every exercise answer of docs/teaching.md: inside
# its fenced blocks, each line starting 'podsim ' is run (with PODSIM for
# podsim) and must exit 0, and each '# expect: TEXT' line below it must be
# found verbatim in that command's output. At least 14 commands are expected,
# so that a block format change cannot silently skip them.
set -u
podsim=$1
doc=docs/teaching.md
fail=0
ran=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
in_block=0
have=0
while IFS= read -r line; do
	case "$line" in
	'```'*)
		in_block=$((1 - in_block))
		have=0
		continue
		;;
	esac
	[ "$in_block" = 1 ] || continue
	case "$line" in
	'podsim '*)
		cmd=${line#podsim }
		# shellcheck disable=SC2086
		if "$podsim" $cmd >"$out" 2>/dev/null; then
			have=1
		else
			echo "failed: podsim $cmd"
			fail=1
			have=0
		fi
		ran=$((ran + 1))
		;;
	'# expect: '*)
		want=${line#\# expect: }
		[ "$have" = 1 ] && grep -qF -- "$want" "$out" ||
			{ echo "podsim $cmd: missing '$want'"; fail=1; }
		;;
	esac
done <"$doc"
[ "$ran" -ge 14 ] || { echo "$doc: only $ran commands found"; fail=1; }
exit $fail
