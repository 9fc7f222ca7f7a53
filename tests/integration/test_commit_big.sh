#!/usr/bin/env bash
# tests/integration/test_commit_big.sh: commits of more static routes than
# one RouteBatch holds (65,536; issue 24, point 4), through the whole router
# in namespaces: 101,000 and 250,000 routes committed in one go reach rib
# and fwd's FIB; a commit whose last part tern-rib refuses (a next hop only
# rib refuses) fails with rib's reason and leaves the config, rib and the
# FIB as they were (nothing of it went to fwd); kill -9 of tern-rib, then of
# tern-mgmt, while a commit's parts go ends, after the restart and resync,
# in the old config or the new one everywhere, never a mix; a policy-options
# of 2M prefix-list entries (over one frame) reaches tern-bgp in parts, at
# a commit and after tern-bgp's restart.
#
# Routes come from 198.18.0.0/15 only (tests/TESTING.md): every prefix of
# 198.19.0.0/16 and 198.18.16.0/20-198.18.128.0/17 longer than its block,
# /32s first, which is 250,000 at most here (300,000 and 1M are measured by
# bench-config --big-commits with the standard prefix set).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary commit-big
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "cb$$"
tmp=$(mktemp -d /tmp/tern-cb.XXXXXX)
chmod 755 "$tmp"
bin=${TERN_BIN:-$root/build/bin}
tools=${TERN_TOOLS:-$root/build/tests/tools}
router_init "$tmp/run" "$tmp/state" "$bin"
run=$tmp/run
cleanup() {
	[[ -n ${sh_pid:-} ]] && kill "$sh_pid" 2>/dev/null
	router_stop; netns_cleanup; rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

N1=${BIG_N1:-101000}
N2=${BIG_N2:-250000}

# gen N NH [BAD]: N static routes via NH (BAD: 198.19.255.255/32, the last
# in the commit's order, via 240.0.0.1, a class E address mgmt's validation
# lets through and tern-rib refuses)
gen() {
	python3 - "$@" <<'PY'
import sys
n, nh = int(sys.argv[1]), sys.argv[2]
bad = len(sys.argv) > 3
blocks = [(0xc6130000, 16), (0xc6128000, 17), (0xc6124000, 18),
          (0xc6122000, 19), (0xc6121000, 20)]
out = ["protocols { static {"]
k = 0
for base, bl in blocks:
    for l in range(32, bl, -1):
        for a in range(base, base + (1 << (32 - bl)), 1 << (32 - l)):
            if k == n:
                break
            p = "%d.%d.%d.%d/%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255, l)
            h = "240.0.0.1" if bad and p == "198.19.255.255/32" else nh
            out.append("route %s { next-hop %s; }" % (p, h))
            k += 1
if k != n:
    sys.exit("only %d prefixes" % k)
out.append("} }")
print("\n".join(out))
PY
}

# ternsh with room for a big commit (the store writes it all)
bsh() {
	local a=()
	for c in "$@"; do a+=(-c "$c"); done
	TERN_RUNDIR=$run timeout 180 "$bin/ternsh" --timeout 150000 "${a[@]}"
}
rctl() { timeout 10 "$tools/ribctl" "$run" "$@"; }
rib_static() { rctl source static 2>/dev/null | awk '{ print $2 }'; }
rib_sent() { rctl status 2>/dev/null | awk '{ print $10 }'; }
fib_total() { timeout 10 "$tools/fwdctl" "$run" fib 255.255.255.255/32 2>/dev/null | awk '/^total/ { print $2 }'; }
conf_routes() { bsh "show configuration protocols static | match route | count" 2>/dev/null | awk '/^Count:/ { print $2 }'; }
fib_nh() { timeout 10 "$tools/fwdctl" "$run" fib "$1" 2>/dev/null | awk -v p="$1" '$1 == p { print $3 }'; }
is_rib() { [[ $(rib_static) == "$1" ]]; }
is_fib() { [[ $(fib_total) == "$1" ]]; }
settled() { is_rib "$1" && is_fib "$2" && rctl status 2>/dev/null | grep -q "pending 0 resyncing 0 fwd 1"; }

netns_topo_create || { echo "topology failed"; exit 1; }
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib and fwd running" router_wait_running 30
check "the boot route is in rib" wait_until 20 is_rib 1
wait_until 10 settled 1 "$(fib_total)"
fib0=$(fib_total)
echo "     (fwd holds $fib0 routes with the boot config)"

gen "$N1" "$NETNS_SERVER_IP" >"$tmp/a.conf"
gen "$N1" 198.18.2.3 bad >"$tmp/bad.conf"
gen "$N2" "$NETNS_SERVER_IP" >"$tmp/b.conf"
chmod 644 "$tmp"/*.conf

# 1. N1 routes in one commit
t0=$(date +%s.%N)
out=$(bsh configure "load merge $tmp/a.conf" commit exit 2>&1)
t1=$(date +%s.%N)
check "a commit of $N1 static routes completes" grep -q "commit complete" <<<"$out"
((fail > 0)) && echo "$out" | head -5
check "  ... and they are all in rib" wait_until 30 is_rib $((N1 + 1))
check "  ... and in fwd's FIB" wait_until 60 is_fib $((fib0 + N1))
echo "     (load merge + commit: $(awk "BEGIN { print $t1 - $t0 }") s)"
check "  ... the last of them via the server" test "$(fib_nh 198.19.255.255/32)" = "$NETNS_SERVER_IP"
check "  ... and it is running" test "$(conf_routes)" = $((N1 + 1))

# 2. the same N1 routes changed, the last part refused by rib: nothing of
# it anywhere (rib sent fwd nothing: its FIB sequence did not move)
sent0=$(rib_sent)
conf0=$(bsh "show configuration" | md5sum)
out=$(bsh configure "load merge $tmp/bad.conf" commit 2>&1)
check "a commit whose last part rib refuses fails" grep -q "commit failed" <<<"$out"
check "  ... with rib's reason, the route and the whole" grep -q \
    "tern-rib refused its part: part 12 of the transaction: .*198.19.255.255/32: invalid next-hop address 240.0.0.1 (a transaction of $N1 routes in 13 parts: none of it applied)" <<<"$out"
((fail > 0)) && echo "$out" | tail -3
sleep 0.5
check "  ... the running config is unchanged" test "$(bsh 'show configuration' | md5sum)" = "$conf0"
check "  ... rib holds what it held" is_rib $((N1 + 1))
check "  ... rib sent fwd nothing" test "$(rib_sent)" = "$sent0"
check "  ... fwd's FIB is unchanged" is_fib $((fib0 + N1))
check "  ... the first route still via the server" test "$(fib_nh 198.19.0.0/32)" = "$NETNS_SERVER_IP"

# 3. N1 deletions in one commit, then N2 routes in one commit
out=$(bsh configure "delete protocols static" \
	"set protocols static route 198.19.0.0/16 next-hop $NETNS_SERVER_IP" commit exit 2>&1)
check "a commit of $N1 deletions completes" grep -q "commit complete" <<<"$out"
check "  ... rib is back to the boot route" wait_until 30 is_rib 1
check "  ... and so is fwd" wait_until 60 is_fib "$fib0"
t0=$(date +%s.%N)
out=$(bsh configure "load merge $tmp/b.conf" commit exit 2>&1)
t1=$(date +%s.%N)
check "a commit of $N2 static routes completes" grep -q "commit complete" <<<"$out"
((fail > 0)) && echo "$out" | head -5
check "  ... and they are all in rib" wait_until 30 is_rib $((N2 + 1))
check "  ... and in fwd's FIB" wait_until 90 is_fib $((fib0 + N2))
echo "     (load merge + commit: $(awk "BEGIN { print $t1 - $t0 }") s)"

# kill_midway COMPONENT: commits the deletion of the N2 routes and kills
# COMPONENT with SIGKILL as soon as rib has its first part; then checks
# that config, rib and fwd all hold the old config or all the new one
kill_midway() {
	local comp=$1 pid n0 out st rt ft
	pid=$(router_pid "$comp")
	n0=$(grep -c "part 0 (" "$run/rib.log")
	bsh configure "delete protocols static" \
	    "set protocols static route 198.19.0.0/16 next-hop $NETNS_SERVER_IP" \
	    commit exit >"$tmp/kill.out" 2>&1 &
	sh_pid=$!
	# polled tightly: the parts of 250,000 routes take some 100 ms
	local end=$((SECONDS + 30))
	while (( $(grep -c "part 0 (" "$run/rib.log") == n0 && SECONDS < end )); do
		sleep 0.002
	done
	kill -KILL "$pid"
	echo "     (tern-$comp $pid killed after rib logged the first part)"
	wait "$sh_pid"
	sh_pid=
	check "tern-$comp is back" router_wait_running 30
	# the state mgmt says: its running config's routes
	wait_until 60 eval '[[ -n $(conf_routes) ]]'
	st=$(conf_routes)
	echo "     (shell: $(grep -E 'commit|lost' "$tmp/kill.out" | head -1); config: $st routes)"
	check "  ... the config is the old or the new one" test "$st" = $((N2 + 1)) -o "$st" = 1
	if [[ $st == 1 ]]; then rt=1 ft=$fib0; else rt=$((N2 + 1)) ft=$((fib0 + N2)); fi
	check "  ... rib and fwd hold the same ($rt, $ft)" wait_until 90 settled "$rt" "$ft"
	((fail > 0)) && echo "     (rib $(rib_static), fwd $(fib_total))"
	return 0
}

# 4. kill -9 of tern-rib while a commit's parts go
kill_midway rib
# back to N2 routes if the deletion went through
if [[ $(rib_static) == 1 ]]; then
	bsh configure "load merge $tmp/b.conf" commit exit >/dev/null 2>&1
	wait_until 90 settled $((N2 + 1)) $((fib0 + N2))
fi
# 5. kill -9 of tern-mgmt while a commit's parts go
kill_midway mgmt

# 6. tern-bgp's part is the whole policy-options: 8 prefix lists of 250,000
# entries (2M, about 18 MB: over one 16 MiB frame) go in parts of 262,144;
# tern-bgp joins them at the last; a restarted tern-bgp gets them again
python3 - "$N2" >"$tmp/pl.conf" <<'PY'
import sys
n = int(sys.argv[1])
blocks = [(0xc6130000, 16), (0xc6128000, 17), (0xc6124000, 18),
          (0xc6122000, 19), (0xc6121000, 20)]
pfx = []
for base, bl in blocks:
    for l in range(32, bl, -1):
        for a in range(base, base + (1 << (32 - bl)), 1 << (32 - l)):
            if len(pfx) < n:
                pfx.append("%d.%d.%d.%d/%d;" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255, l))
out = ["policy-options {"]
for i in range(8):
    out.append("prefix-list BIG%d {" % i)
    out.extend(pfx)
    out.append("}")
out.append("}")
print("\n".join(out))
PY
chmod 644 "$tmp/pl.conf"
bgp_parts() { grep -c "prefix-list entries in 7 parts before the last" "$run/bgp.log"; }
b0=$(bgp_parts)
t0=$(date +%s.%N)
out=$(bsh configure "load merge $tmp/pl.conf" commit exit 2>&1)
t1=$(date +%s.%N)
check "a commit of 8 prefix lists of $N2 entries completes" grep -q "commit complete" <<<"$out"
((fail > 0)) && echo "$out" | tail -3
echo "     (load merge + commit: $(awk "BEGIN { print $t1 - $t0 }") s)"
check "  ... tern-bgp took them in 8 parts" test "$(bgp_parts)" = $((b0 + 1))
bpid=$(router_pid bgp)
kill -KILL "$bpid"
check "a restarted tern-bgp gets them again, in parts" wait_until 60 eval '[[ $(bgp_parts) == $((b0 + 2)) ]]'
check "  ... with no resync error in mgmt's log" bash -c "! grep -q 'resync of tern-bgp' '$run/mgmt.log'"

check_summary commit-big
