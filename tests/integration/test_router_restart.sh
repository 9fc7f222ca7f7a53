#!/usr/bin/env bash
# tests/integration/test_router_restart.sh: the whole router under
# tern-rtrmgr in network namespaces, with a steady stream of pings from the
# client to the server counted at the sender's summary: kill -9 of rib and of
# mgmt loses nothing and changes no route; kill -9 of fwd comes back; a
# component that crashes at start-up backs off and is shown failed;
# `restart rib` from ternsh loses nothing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	echo "router-restart: 0 passed, 0 failed"
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "rr$$"
tmp=$(mktemp -d /tmp/tern-rr.XXXXXX)
chmod 755 "$tmp"	# the components run as nobody
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
cleanup() { router_stop; netns_cleanup; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_topo_create || { echo "topology failed"; exit 1; }
printf '#!/bin/sh\necho "crashing at start-up on purpose" >&2\nexit 3\n' >"$tmp/crash.sh"
chmod 755 "$tmp/crash.sh"
router_start "backoff-initial 50ms; backoff-max 200ms; failure-limit 3; failure-window 30s;
component crasher { binary $tmp/crash.sh; privileges user; }" || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib and fwd running" router_wait_running 30

cping() { nsx "$NS_CLIENT" ping "$@" "$NETNS_SERVER_IP"; }
reach() { cping -c 1 -W 1 >/dev/null 2>&1; }
wait_reach() { local end=$((SECONDS + $1)); until reach; do ((SECONDS < end)) || return 1; sleep 0.1; done; }
check "client reaches server through tern-fwd" wait_reach 10

# received / transmitted of a ping run's summary
loss_of() { awk '/packets transmitted/ { print $1 - $4 }' "$1"; }

fib_before=$(rsh "show fib" 2>&1)
check "show fib answers" grep -q "198.18.2.0/24" <<<"$fib_before"
check "the static route went mgmt -> rib -> fwd" grep -q "198.19.0.0/16 *198.18.2.2" <<<"$fib_before"
check "show route: the static route is best in rib" sh -c "TERN_RUNDIR=$tmp/run timeout 5 $ROUTER_BIN/ternsh -c 'show route 198.19.0.0/16' | grep -q best"

# 1. kill -9 rib under traffic: nothing lost, FIB identical
cping -i 0.01 -c 300 -q >"$tmp/p1" 2>&1 &
ping_pid=$!
sleep 0.5
pid=$(router_pid rib); kill -9 "$pid"
wait "$ping_pid"
check "kill -9 rib: 0 packets lost (lost $(loss_of "$tmp/p1"))" test "$(loss_of "$tmp/p1")" = 0
check "rib back with a new pid" sh -c "sleep 2; [ -n \"\$(TERN_RUNDIR=$tmp/run timeout 5 $ROUTER_BIN/ternsh -c 'show processes' | awk '\$1==\"rib\" && \$3==\"running\" && \$2!=\"$pid\"')\" ]"
sleep 1
fib_after=$(rsh 'show fib' 2>&1)
check "FIB identical after the rib restart" test "$fib_after" = "$fib_before"
[[ $fib_after == "$fib_before" ]] || diff <(echo "$fib_before") <(echo "$fib_after")

# 2. kill -9 mgmt under traffic: nothing lost, running config intact
conf_before=$(rsh "show configuration")
cping -i 0.01 -c 300 -q >"$tmp/p2" 2>&1 &
ping_pid=$!
sleep 0.5
pid=$(router_pid mgmt); kill -9 "$pid"
wait "$ping_pid"
check "kill -9 mgmt: 0 packets lost (lost $(loss_of "$tmp/p2"))" test "$(loss_of "$tmp/p2")" = 0
end=$((SECONDS + 10)); until rsh "show version" >/dev/null 2>&1 || ((SECONDS > end)); do sleep 0.1; done
check "running config intact after mgmt restart" test "$(rsh 'show configuration')" = "$conf_before"
check "FIB unchanged after the mgmt restart" test "$(rsh 'show fib' 2>&1)" = "$fib_before"

# 3. kill -9 fwd: forwarding comes back, FIB complete again
pid=$(router_pid fwd); t0=$(date +%s%N); kill -9 "$pid"
sleep 0.2
check "forwarding back after kill -9 fwd" wait_reach 15
echo "     (forwarding back $(( ($(date +%s%N) - t0) / 1000000 )) ms after the kill)"
end=$((SECONDS + 10)); until [[ $(rsh 'show fib' 2>&1) == "$fib_before" ]] || ((SECONDS > end)); do sleep 0.2; done
check "FIB complete again after the fwd restart" test "$(rsh 'show fib' 2>&1)" = "$fib_before"
out=$(rsh "show processes")
check "show processes: fwd's last instance was killed by signal 9" grep -q "^fwd .*killed by signal 9" <<<"$out"
out=$(rsh "show processes | json")
check "show processes | json: fwd's last_exit -9, signal 9" python3 -c "
import json, sys
f = [p for p in json.loads(sys.stdin.read())['processes'] if p['component'] == 'fwd'][0]
assert f['last_exit'] == -9 and f['last_end']['signal'] == 9, f
assert 'killed by signal 9' in f['last_end']['reason'], f" <<<"$out"

# 4. restart rib from the shell under traffic
gen_before=$(rsh "show processes" | awk '$1 == "rib" { print $6 }')
cping -i 0.01 -c 300 -q >"$tmp/p4" 2>&1 &
ping_pid=$!
sleep 0.5
rsh "restart rib" >"$tmp/r4" 2>&1
wait "$ping_pid"
check "restart rib from ternsh answered" grep -q "^rib: " "$tmp/r4"
check "restart rib: 0 packets lost (lost $(loss_of "$tmp/p4"))" test "$(loss_of "$tmp/p4")" = 0
sleep 1
gen_after=$(rsh "show processes" | awk '$1 == "rib" { print $6 }')
check "rib has a new generation ($gen_before -> $gen_after)" test "$gen_after" -gt "$gen_before"

# 5. stop and start from the shell: a stopped rib stays stopped, fwd keeps
# forwarding with the FIB it has, start brings rib back
out=$(rsh "stop rib" 2>&1)
check "stop rib answered" grep -q "^rib: " <<<"$out"
sleep 1
check "rib shown stopped" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show processes' | grep -q '^rib .*stopped'"
check "fwd forwards with rib stopped" reach
out=$(rsh "start rib" 2>&1)
check "start rib answered" grep -q "^rib: " <<<"$out"
check "rib running again" router_wait_running 15

# 6. the component that crashes at start-up: backoff, then failed
end=$((SECONDS + 15))
until rsh "show processes" | grep -q "^crasher .*failed" || ((SECONDS > end)); do sleep 0.2; done
out=$(rsh "show processes")
check "crashing component shown failed" grep -q "^crasher .*failed" <<<"$out"
check "others still running" test "$(awk '$3 == "running"' <<<"$out" | wc -l)" -ge 3

check_summary router-restart
