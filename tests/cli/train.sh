#!/usr/bin/env bash
# train.sh PODSIM - podsim train (sim/campaign): the same seed gives the same
# JSON and database rows; another seed another answer; the campaign and its
# causes are stored with their step; the answers of the teaching scenario
# "how often to checkpoint" (scenarios/teaching/checkpoint-interval.ini) hold.
set -u
podsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "$1"; fail=1; }
T=scenarios/teaching/checkpoint-interval.ini
# a small, fast campaign: 200 draws
t() { "$podsim" train "$T" --draws 200 "$@" 2>/dev/null; }
num() { grep -o "\"$1\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
lt() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }' ||
		bad "want '$1' < '$2': $3"
}

# a) determinism: two databases, byte-identical JSON and equal digests
ids='s/"\(run_id\|campaign_id\)":[0-9]*/"\1":N/g'
t --json --db "$tmp/a.db" | sed "$ids" >"$tmp/a.json" || bad "a) train failed"
t --json --db "$tmp/b.db" | sed "$ids" >"$tmp/b.json" || bad "a) train failed"
cmp -s "$tmp/a.json" "$tmp/b.json" || bad "a) JSON differs between runs of one seed"
da=$("$podsim" runs digest --db "$tmp/a.db") db=$("$podsim" runs digest --db "$tmp/b.db")
[ -n "$da" ] && [ "$da" = "$db" ] || bad "a) digests differ: $da vs $db"
t --json --no-db --seed 2 | sed "$ids" >"$tmp/c.json"
cmp -s "$tmp/a.json" "$tmp/c.json" && bad "a) --seed 2 gave the same answer"

# b) stored: one campaign row for its run, 18 causes
[ "$(sqlite3 "$tmp/a.db" 'SELECT count(*) FROM campaigns c JOIN runs r ON r.id = c.run_id')" = 1 ] ||
	bad "b) no campaign row joined to its run"
[ "$(sqlite3 "$tmp/a.db" 'SELECT count(*) FROM campaign_causes')" = 18 ] || bad "b) causes not stored"
p50=$(sqlite3 "$tmp/a.db" 'SELECT days_p50 FROM campaigns')
j50=$(grep -o '"days":{"p10":[0-9.e+]*,"p50":[0-9.e+]*' "$tmp/a.json" | sed 's/.*"p50"://')
awk -v a="$p50" -v b="$j50" 'BEGIN { d = a - b; exit !(b > 0 && d * d < 1e-16 * b * b) }' ||
	bad "b) stored p50 $p50 != printed $j50"

# c) how often to checkpoint: Young/Daly's interval ("auto", 19 min of work)
# beats 10 min and 40 min in the closed-form expected days, and 2 min and
# 3 h in the Monte Carlo's median; async and hot spares shorten the campaign.
auto=$(t --json --no-db | num expected_days)
lt "$auto" "$(t --json --no-db --set campaign.checkpoint_interval=10min | num expected_days)" "auto vs 10 min"
lt "$auto" "$(t --json --no-db --set campaign.checkpoint_interval=40min | num expected_days)" "auto vs 40 min"
med() { t --json --no-db "$@" | grep -o '"days":{"p10":[0-9.e+]*,"p50":[0-9.e+]*' | sed 's/.*"p50"://'; }
m=$(med)
lt "$m" "$(med --set campaign.checkpoint_interval=2min)" "auto vs every 2 min"
lt "$m" "$(med --set campaign.checkpoint_interval=3h)" "auto vs every 3 h"
lt "$(med --set campaign.checkpoint=async)" "$m" "async checkpoints"
lt "$(med --set campaign.spares=16)" "$m" "hot spares"
# the auto interval is Young's sqrt(2 C M) to the nearest step
t --json --no-db >"$tmp/t.json"
k=$(num interval_steps <"$tmp/t.json") c=$(num checkpoint_stop_s <"$tmp/t.json")
m=$(num mtbf_h <"$tmp/t.json") s=$(grep -o '"campaign":{.*' "$tmp/t.json" | num step_time_s)
awk -v k="$k" -v c="$c" -v m="$m" -v s="$s" \
	'BEGIN { y = sqrt(2 * c * m * 3600) / s; exit !(k > 10 && (k - y) ^ 2 <= 0.25) }' ||
	bad "c) auto interval $k steps, want sqrt(2 x $c s x $m h) / $s s"

# e) explain derives the job's rate cause by cause: on the table's own
# cluster it is the table's 419 interruptions / 1,296 h = 0.323302 per hour,
# and the Young/Daly line holds the interval podsim train uses
"$podsim" explain "$T" >"$tmp/x.txt" 2>/dev/null || bad "e) explain failed"
grep -q '^10\. Campaign' "$tmp/x.txt" || bad "e) explain has no campaign section"
grep -q 'l = sum = 0.323302 per hour' "$tmp/x.txt" || bad "e) job rate not 419 / 1296 h"
grep -q "interval     auto: $k steps" "$tmp/x.txt" || bad "e) explain's interval differs from train's $k"

# f) sweep ranks the simulated plans by expected days with failures: the
# row of the scenario's own plan shows podsim train's closed form
"$podsim" sweep "$T" --vary cluster.nodes=1024,2048 --top 2 --no-db >"$tmp/s.txt" 2>/dev/null ||
	bad "f) sweep failed"
row=$(sed -n '/^ranked by expected days/,$p' "$tmp/s.txt" | grep 'nodes=2048')
want=$(t --json --no-db | num expected_days)
echo "$row" | awk -v w="$want" '{ exit !($8 - w < 0.006 && w - $8 < 0.006) }' ||
	bad "f) sweep's expected days '$row', want $want"
n=$("$podsim" sweep "$T" --vary cluster.nodes=1024,2048 --top 2 --no-db --json 2>/dev/null |
	python3 -c 'import json, sys; print(sum("campaign_expected_days" in p for p in json.load(sys.stdin)["plans"]))')
[ "$n" = 2 ] || bad "f) sweep --json: $n plans with campaign_expected_days (well-formed JSON), want 2"

# g) --html: a well-formed page with the timeline and the histogram; a page
# in a missing folder is bad input found before any work (exit 2, as every
# command's outputs), and nothing is left behind
t --no-db --html "$tmp/c.html" >/dev/null || bad "g) train --html failed"
if command -v xmllint >/dev/null; then xmllint --noout "$tmp/c.html" || bad "g) page not well-formed"; fi
for w in "One campaign (the first draw)" "Goodput over 200 campaigns" "Where the time goes"; do
	grep -qF "$w" "$tmp/c.html" || bad "g) page lacks '$w'"
done
t --no-db --html "$tmp/nodir/c.html" >/dev/null
[ $? = 2 ] || bad "g) --html in a missing folder: want exit 2"
[ -e "$tmp/nodir" ] && bad "g) something was left behind"

# h) stragglers (exec_stragglers): a listed slow node slows the step (the
# JSON's factor above 1 and no more than the node's 1.25: only the stages on
# it compute slower), the closed form is printed beside it, and a node number
# past the cluster is a file:line error at the key (exit 2, nothing stored)
sf=$(t --json --no-db --set campaign.slow_nodes=3 | num straggler_factor)
awk -v f="$sf" 'BEGIN { exit !(f > 1.0001 && f <= 1.25) }' || bad "h) slow node 3: factor '$sf'"
t --json --no-db --set campaign.straggler_sigma=0.02 | grep -q '"straggler_analytic_factor":1.0' ||
	bad "h) no closed form beside the simulated factor"
"$podsim" train "$T" --draws 10 --set campaign.slow_nodes=3,99999 --db "$tmp/h.db" 2>"$tmp/h.err" >/dev/null
[ $? = 2 ] || bad "h) slow_nodes past the cluster: want exit 2"
grep -q "slow_nodes = '3,99999'" "$tmp/h.err" || bad "h) no error naming slow_nodes: $(cat "$tmp/h.err")"
[ -e "$tmp/h.db" ] && bad "h) a database was written"

# i) the shipped campaign on rented p5 nodes (scenarios/llama2-70b-efa-campaign.ini:
# 2 % jitter on 512 GPUs): its stragglers cost more than nothing and less
# than the closed form, which makes the whole step wait for the slowest GPU
"$podsim" train scenarios/llama2-70b-efa-campaign.ini --draws 20 --no-db --json >"$tmp/i.json" 2>/dev/null ||
	bad "i) the EFA campaign failed"
sf=$(num straggler_factor <"$tmp/i.json") sa=$(num straggler_analytic_factor <"$tmp/i.json")
awk -v f="$sf" -v a="$sa" 'BEGIN { exit !(f > 1.001 && f < a) }' ||
	bad "i) straggler factor '$sf' not in (1, closed form '$sa')"

# j) the fabric's spread (campaign_setup): on that cluster the step is
# replayed with sampled collective times and the campaign's step is their
# mean, the simulated step x stragglers x the fabric factor, which lies
# between the sampled 5th and 95th percentiles over the step (skewed above
# the median on EFA: above 1); with --spread-samples 0 the factor is 1
fj=$(num fabric_spread_factor <"$tmp/i.json") fn=$(num fabric_spread_samples <"$tmp/i.json")
sed 's/.*"campaign"://' "$tmp/i.json" >"$tmp/ic.json"
st=$(num step_time_s <"$tmp/ic.json") ss=$(num simulated_step_s <"$tmp/ic.json")
p05=$(num p05_s <"$tmp/i.json") p95=$(num p95_s <"$tmp/i.json") sts=$(num step_time_s <"$tmp/i.json")
awk -v f="$fj" -v n="$fn" -v st="$st" -v ss="$ss" -v sf="$sf" -v lo="$p05" -v hi="$p95" -v s="$sts" \
	'BEGIN { d = st / (ss * sf * f) - 1; exit !(n == 100 && f > 1 && f * s > lo && f * s < hi &&
	         d * d < 1e-12) }' ||
	bad "j) fabric factor '$fj' of $fn samples, step $st = $ss x $sf x $fj? (p05 $p05, p95 $p95, step $sts)"
"$podsim" train scenarios/llama2-70b-efa-campaign.ini --draws 20 --no-db --json --spread-samples 0 \
	>"$tmp/j.json" 2>/dev/null || bad "j) --spread-samples 0 failed"
grep -q '"fabric_spread_factor":1,"fabric_spread_samples":0,' "$tmp/j.json" ||
	bad "j) --spread-samples 0: $(grep -o '"fabric_spread[^,]*,[^,]*' "$tmp/j.json")"

# d) usage errors: exit 2, nothing stored
for a in "--draws 0" "--tokens -1" "--seed x" "--bogus" "--spread-samples x"; do
	# shellcheck disable=SC2086
	"$podsim" train "$T" $a --db "$tmp/u.db" >/dev/null 2>&1
	[ $? = 2 ] || bad "d) train $a: want exit 2"
done
[ -e "$tmp/u.db" ] && bad "d) a database was written"
exit $fail
