#!/usr/bin/env bash
# tests/integration/test_bench_compare.sh: the arithmetic of
# scripts/bench-compare.py (medians, min-max, B/A, slowdown in the metric's
# better direction, the verdict, peer ratios, keys) on fixed BENCH lines;
# builds and runs nothing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/bench-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# $1 file, $2 case, $3 metric, $4 value, $5 better, [$6 extra json fields]
line() {
	printf 'BENCH {"bench":"t","case":"%s","metric":"%s","unit":"u","value":%s,"min":0,"max":0%s,"better":"%s"}\n' \
	    "$2" "$3" "$4" "${6:-}" "$5" >>"$1"
}
# per round r (1-3): A's and B's figures of each case
a=(100 110 90) b=(50 55 45)
for r in 0 1 2; do
	A=$tmp/a$r B=$tmp/b$r
	echo "some table line, then a broken one" >>"$A"
	echo 'BENCH {"bench":' >>"$A"
	line "$A" slower_higher rate "${a[r]}" higher
	line "$B" slower_higher rate "${b[r]}" higher
	line "$A" slower_lower secs 10 lower
	line "$B" slower_lower secs 12 lower
	line "$A" faster_lower secs 20 lower
	line "$B" faster_lower secs 10 lower
	line "$A" exact instr 58.2 lower
	line "$B" exact instr 58.2 lower
	line "$A" overlap rate $((100 + 10 * r)) higher
	line "$B" overlap rate $((105 + 10 * r)) higher
	# two peers of one case: ours once, a ratio row per peer
	line "$A" peered rate 200 higher ',"peer":"p1","peer_value":100,"ratio":2'
	line "$A" peered rate 200 higher ',"peer":"p2","peer_value":400,"ratio":0.5'
	line "$B" peered rate 100 higher ',"peer":"p1","peer_value":100,"ratio":1'
	line "$B" peered rate 100 higher ',"peer":"p2","peer_value":400,"ratio":0.25'
	# a qualifier makes a figure of its own
	line "$A" variant rate 10 higher
	line "$B" variant rate 10 higher
	line "$A" variant rate 40 higher ',"variant":"burst"'
	line "$B" variant rate 20 higher ',"variant":"burst"'
	line "$A" only_a rate 1 higher
done

out=$("$root/scripts/bench-compare.py" report --a-log "$tmp/a0" \
    --a-log "$tmp/a1" --a-log "$tmp/a2" --b-log "$tmp/b0" --b-log "$tmp/b1" \
    --b-log "$tmp/b2" --a-label old --b-label new 2>&1)
rc=$?
check "report exits 0" test "$rc" -eq 0
echo "$out" | grep -v '^BENCH '

# the BENCH lines as "case[/variant] metric: field=value ..."
got=$(python3 -c '
import json, sys
for l in sys.stdin:
    if not l.startswith("BENCH "):
        continue
    j = json.loads(l[6:])
    c = j["case"] + ("/" + j["variant"] if "variant" in j else "")
    f = " ".join("%s=%s" % (k, ("%.6g" % j[k]) if isinstance(j[k], float)
                 else j[k]) for k in ("value", "min", "max", "peer_value",
                 "peer_min", "peer_max", "ratio", "slowdown", "verdict",
                 "rounds_a", "rounds_b", "bench", "of", "a", "b"))
    print("%s %s: %s" % (c, j["metric"], f))
' <<<"$out")
echo "$got"
row() { grep -F -- "$1" <<<"$got"; }
want() { # $1 what, $2 row prefix, $3... fields that row must have
	local r f what=$1
	r=$(row "$2") || { nok "$what (no row '$2')"; return; }
	shift 2
	for f in "$@"; do
		has " $r " " $f " || { nok "$what: '$f' not in: $r"; return; }
	done
	ok "$what"
}
want "higher is better, B lower: median, min-max of each side, B/A 0.5, slowdown 2" \
    "slower_higher rate:" value=50 min=45 max=55 peer_value=100 peer_min=90 \
    peer_max=110 ratio=0.5 slowdown=2 "verdict=B slower" rounds_a=3 rounds_b=3
want "lower is better, B higher: slowdown = B/A = 1.2" \
    "slower_lower secs:" ratio=1.2 slowdown=1.2 "verdict=B slower"
want "lower is better, B lower: slowdown 0.5, B faster" \
    "faster_lower secs:" ratio=0.5 slowdown=0.5 "verdict=B faster"
want "equal exact figures: same" "exact instr:" ratio=1 slowdown=1 verdict=same
want "overlapping ranges: noise" "overlap rate:" value=115 peer_value=110 \
    verdict=noise
want "two peers of one case: ours once" "peered rate:" value=100 \
    peer_value=200 slowdown=2
want "ratio to a peer is a figure of its own" "peered rate vs p1:" value=1 \
    peer_value=2 ratio=0.5 slowdown=2
want "ratio to the second peer" "peered rate vs p2:" value=0.25 \
    peer_value=0.5 slowdown=2
want "a qualifier (variant) keys a figure of its own" "variant/burst rate:" \
    value=20 peer_value=40 slowdown=2
want "the same case without the qualifier" "variant rate:" value=10 \
    verdict=same
want "BENCH lines name the comparison, the bench and both sides" \
    "slower_higher rate:" bench=compare of=t a=old b=new
check "a figure of one side only: in the table, not in the BENCH lines" \
    eval '! row "only_a" >/dev/null && has "$out" "only_a.*only in A"'
check "the broken BENCH line is ignored" has "$out" "slower_higher"
n=$(grep -c '^BENCH ' <<<"$out")
check "one BENCH line per figure on both sides (10)" test "$n" -eq 10

# the run command refuses what it cannot do before building anything
err=$("$root/scripts/bench-compare.py" run --a HEAD --build fast 2>&1)
check "BUILD other than release/debug refused" has "$err" "release or debug"
err=$("$root/scripts/bench-compare.py" run --a HEAD --rounds 2 2>&1)
check "fewer than 3 rounds refused" has "$err" "at least 3"
check_summary test_bench_compare
