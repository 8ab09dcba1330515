#!/usr/bin/env bash
# output.sh PODSIM - output files (sim/core/atomic.c) never clobber what the
# user did not name: a device stays a device, a symlink planted at the old
# temporary name (PATH.tmp) or at any name beside the target is not followed,
# two writers of one path leave one complete file, a failed write (ENOSPC on
# /dev/full) is reported with exit 1, a FIFO is written in place and "-" is
# standard output; a replaced file keeps its permissions.
set -u
podsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scen=scenarios/quickstart.ini

# --- devices are written in place, not replaced by a regular file ------------
for dev in /dev/null /dev/full; do
	[ -c "$dev" ] || continue
	"$podsim" run $scen --no-db --html "$dev" --trace "$dev" >/dev/null 2>"$tmp/err"
	[ -c "$dev" ] || { echo "$dev is no longer a character device"; fail=1; }
	[ ! -e "$dev-journal" ] || { echo "$dev-journal appeared"; fail=1; }
done
"$podsim" run $scen --no-db --html /dev/null >/dev/null 2>"$tmp/err" ||
	{ echo "--html /dev/null failed:"; cat "$tmp/err"; fail=1; }
if [ -w /dev/full ]; then
	"$podsim" run $scen --no-db --trace /dev/full >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || { echo "--trace /dev/full: want exit 1, got $rc"; fail=1; }
	grep -qF "/dev/full: error: cannot write the trace: No space left on device" "$tmp/err" ||
		{ echo "--trace /dev/full: message:"; cat "$tmp/err"; fail=1; }
	[ ! -s "$tmp/out" ] || { echo "--trace /dev/full printed a report"; fail=1; }
fi

# --- symlinks planted beside the target are not followed ---------------------
root=$PWD
cd "$tmp" || exit 1
echo victim >victim
ln -s victim r.html.tmp
for i in 0 1 2 3 4 5 6 7; do ln -s victim ".podsim-AAAAA$i"; done
"$podsim" run "$root/$scen" --no-db --html r.html >/dev/null 2>err || { cat err; fail=1; }
[ "$(cat victim)" = victim ] || { echo "a planted symlink was followed"; fail=1; }
[ -f r.html ] && [ ! -L r.html ] && grep -q '</html>' r.html || { echo "r.html not written"; fail=1; }
# no temporary file is left behind
left=$(find . -name '.podsim-*' ! -type l | wc -l)
[ "$left" -eq 0 ] || { echo "temporary files left: $left"; fail=1; }

# --- a symlink at the target itself is replaced, its target untouched ----------
ln -s victim t.html
"$podsim" run "$root/$scen" --no-db --html t.html >/dev/null 2>err || { cat err; fail=1; }
[ "$(cat victim)" = victim ] || { echo "the target's symlink was followed"; fail=1; }
[ -f t.html ] && [ ! -L t.html ] || { echo "t.html is still a symlink"; fail=1; }

# --- a replaced file keeps its mode -------------------------------------------
chmod 600 r.html
"$podsim" run "$root/$scen" --no-db --html r.html >/dev/null 2>err || { cat err; fail=1; }
[ "$(stat -c %a r.html)" = 600 ] || { echo "mode of r.html: $(stat -c %a r.html), want 600"; fail=1; }

# --- two writers of one path: one complete file -------------------------------
for i in 1 2 3 4; do
	"$podsim" run "$root/$scen" --no-db --trace same.json >/dev/null 2>"err$i" &
done
wait
cat err1 err2 err3 err4 | grep -q error && { echo "concurrent writers failed"; cat err?; fail=1; }
python3 -c 'import json,sys; json.load(open("same.json"))' 2>/dev/null ||
	{ command -v python3 >/dev/null && { echo "same.json is not one complete JSON"; fail=1; }; }

# --- a FIFO is written in place ----------------------------------------------
mkfifo pipe
(timeout 30 cat pipe >from-pipe) &
timeout 30 "$podsim" run "$root/$scen" --no-db --trace pipe >/dev/null 2>err || { cat err; fail=1; }
wait
[ -p pipe ] || { echo "the FIFO was replaced"; fail=1; }
grep -q traceEvents from-pipe || { echo "nothing came through the FIFO"; fail=1; }

# --- "-" is standard output ----------------------------------------------------
"$podsim" run "$root/$scen" --no-db --json --trace - >out 2>err || { cat err; fail=1; }
grep -q traceEvents out || { echo "--trace - wrote nothing to stdout"; fail=1; }
[ ! -e ./- ] || { echo "--trace - created a file named '-'"; fail=1; }

# --- an empty name is bad input -------------------------------------------------
"$podsim" run "$root/$scen" --no-db --html '' >out 2>err
rc=$?
[ $rc -eq 2 ] || { echo "--html '': want exit 2, got $rc"; fail=1; }
grep -qF "'': error: an empty output file name" err || { echo "--html '': message:"; cat err; fail=1; }
exit $fail
