#!/usr/bin/env bash
# tests/integration/test_router_config.sh: configuration through the whole
# router (rtrmgr, mgmt, rib, fwd in namespaces): a committed static route
# reaches rib and fwd and carries traffic; a commit that fwd refuses rolls
# back and changes nothing anywhere; commit confirmed that is not confirmed
# really takes the route out of rib and fwd again; rollback 1 brings it back;
# the fwd block applies at run time (worker threads on AF_PACKET and AF_XDP,
# the default port backend, the ICMP rate) and reject routes answer ICMP.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary router-config
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "rc$$"
tmp=$(mktemp -d /tmp/tern-rc.XXXXXX)
chmod 755 "$tmp"
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
cleanup() {
	[[ -n ${hold_pid:-} ]] && kill "$hold_pid" 2>/dev/null
	router_stop; netns_cleanup; rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_topo_create || { echo "topology failed"; exit 1; }
# a "minute" of commit confirmed lasts 1 s here
export TERN_MGMT_MINUTE_MS=1000
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib and fwd running" router_wait_running 30

# an address behind the server, reached through a static route
nsx "$NS_SERVER" ip addr add 198.19.77.1/32 dev "$NETNS_HOST_IF"
reach77() { nsx "$NS_CLIENT" ping -c 1 -W 1 198.19.77.1 >/dev/null 2>&1; }
wait_until() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done; }
in_fib() { rsh "show fib $1" 2>/dev/null | grep -q "^$1 "; }
not_in_fib() { ! in_fib "$1"; }

check "boot route 198.19.0.0/16 in the FIB" wait_until 10 in_fib 198.19.0.0/16
check "traffic follows it" wait_until 10 reach77

# 1. a new route committed reaches rib and fwd
out=$(rsh configure "set protocols static route 198.19.77.0/24 next-hop $NETNS_SERVER_IP" commit exit 2>&1)
check "commit of a new route" grep -q "commit complete" <<<"$out"
check "the route is in rib" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show route 198.19.77.0/24' | grep -q best"
check "the route is in fwd" wait_until 5 in_fib 198.19.77.0/24

# 2. fwd refuses an interface on a device it does not have
fib_before=$(rsh "show fib")
conf_before=$(rsh "show configuration")
out=$(rsh configure "set interfaces ghost device nosuchdev0" "set interfaces ghost address 198.18.99.1/24" commit 2>&1); rc=$?
check "commit refused by fwd fails" test $rc -ne 0
check "the error names fwd and the device" grep -q "tern-fwd.*nosuchdev0" <<<"$out"
check "running config unchanged" test "$(rsh 'show configuration')" = "$conf_before"
check "FIB unchanged" test "$(rsh 'show fib')" = "$fib_before"
check "interfaces in fwd unchanged" sh -c "! TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -q nosuchdev0"

# 3. commit confirmed, not confirmed: the deletion is undone in rib and fwd
# (traffic keeps flowing meanwhile through the covering /16)
out=$(rsh configure "delete protocols static route 198.19.77.0/24" "commit confirmed 2" exit 2>&1)
check "commit confirmed accepted" grep -q "rolled back in 2 minutes" <<<"$out"
check "route gone from fwd while pending" wait_until 5 not_in_fib 198.19.77.0/24
check "after expiry the route is back in fwd" wait_until 10 in_fib 198.19.77.0/24
check "and back in rib" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show route 198.19.77.0/24' | grep -q best"
check "and carries traffic" wait_until 10 reach77

# 4. rollback 1 in a candidate, committed
n_before=$(rsh "show system commit" | awk '/ kept \(rollback/ { print $1 }')
out=$(rsh configure "delete protocols static route 198.19.77.0/24" commit exit 2>&1)
check "route deleted" wait_until 5 not_in_fib 198.19.77.0/24
out=$(rsh configure "rollback 1" commit exit 2>&1)
check "rollback 1 committed" grep -q "commit complete" <<<"$out"
check "route back in fwd after rollback" wait_until 5 in_fib 198.19.77.0/24
check "history grew by 2 commits" test "$(rsh 'show system commit' | awk '/ kept \(rollback/ { print $1 }')" -eq $((n_before + 2))

# 5. operational commands answered by the components, text and JSON
out=$(rsh "show route summary")
check "show route summary counts static routes" grep -q "^static  *[0-9]" <<<"$out"
check "show route summary counts connected routes" grep -q "^connected  *2 " <<<"$out"
out=$(rsh "show interfaces")
check "show interfaces lists the client port by its name" grep -q "^client (device $NETNS_RTR_C_IF, " <<<"$out"
check "show interfaces lists the server port by its name" grep -q "^server (device $NETNS_RTR_S_IF, " <<<"$out"
check "show interfaces has counters" grep -q "rx [0-9]* packets" <<<"$out"
out=$(rsh "show neighbors")
check "show neighbors has the server's MAC" grep -qi "$NETNS_SERVER_MAC" <<<"$out"
check "show neighbors names its interface" grep -qiE "^$NETNS_SERVER_IP +$NETNS_SERVER_MAC server " <<<"$out"
# the age counts up from the last confirmation (it once was the time to the
# next probe, counting down); a reply in between starts it again
age_of() {
	rsh "show neighbors | json" | python3 -c "
import json, sys
print([n['age_ms'] for n in json.load(sys.stdin)['neighbors'] if n['address'] == '$NETNS_SERVER_IP'][0])"
}
a1=$(age_of); sleep 1.5; a2=$(age_of)
check "show neighbors: the age counts up ($a1 -> $a2 ms)" test "${a2:-0}" -ge $((${a1:-0} + 1000)) -o "${a2:-99999}" -lt 1500
out=$(rsh "show interfaces server")
check "show interfaces NAME takes the tern name" grep -q "^server (device $NETNS_RTR_S_IF, " <<<"$out"
check "  ... and shows that interface only" bash -c "! grep -q '^client ' <<<'$out'"
out=$(rsh "show ipc")
check "show ipc: mgmt's connections" grep -q "to tern-fwd *up" <<<"$out"
check "show ipc: rib's counters" grep -q "^tern-rib (generation" <<<"$out"
check "show ipc: fwd's counters" grep -q "^tern-fwd (generation" <<<"$out"
for c in "show route" "show route summary" "show interfaces" "show fib" "show neighbors" "show processes" "show ipc" "show configuration"; do
	out=$(rsh "$c | json")
	check "$c | json is valid JSON" python3 -c "import json,sys; json.loads(sys.stdin.read())" <<<"$out"
done
out=$(rsh "show route 300.1.1.1" 2>&1)
check "show route with a bad argument says what was expected" grep -q "expected a.b.c.d/len" <<<"$out"

# 6. 200 next hops at once: every one resolved (fwd's ARP output holds 64
# frames; it used to resolve 64 a second and give up on the rest)
for i in $(seq 10 209); do echo "address add 198.18.2.$i/32 dev $NETNS_HOST_IF"; done >"$tmp/addrs"
nsx "$NS_SERVER" ip -batch "$tmp/addrs"
{ echo "protocols { static {"
  for i in $(seq 10 209); do echo "route 198.20.$i.0/24 { next-hop 198.18.2.$i; }"; done
  echo "} }"; } >"$tmp/many.conf"
chmod 644 "$tmp/many.conf"
out=$(rsh configure "load merge $tmp/many.conf" commit exit 2>&1)
check "200 routes via 200 next hops committed" grep -q "commit complete" <<<"$out"
reachable() { [[ $(rsh "show neighbors" 2>/dev/null | grep -c "reachable") -ge 201 ]]; }
check "all 200 next hops resolved within 3 s" wait_until 3 reachable
echo "     ($(rsh 'show neighbors' | grep -c reachable) neighbours reachable)"

# 7. rib settings from the config are applied at run time
nh_count() { rsh "show fib 198.21.0.0/16" 2>/dev/null | grep -c "198.18.2.1[01] "; }
out=$(rsh configure "set protocols static route 198.21.0.0/16 next-hop 198.18.2.10" \
	"set protocols static route 198.21.0.0/16 next-hop 198.18.2.11" commit exit 2>&1)
check "ECMP route with 2 next hops committed" grep -q "commit complete" <<<"$out"
two() { [[ $(nh_count) == 2 ]]; }
one() { [[ $(nh_count) == 1 ]]; }
check "default ECMP width: 2 next hops in fwd" wait_until 5 two
out=$(rsh configure "set rib ecmp-width 1" "set rib distance static 250" commit exit 2>&1)
check "rib settings committed" grep -q "commit complete" <<<"$out"
check "without a 'not applied' note" test -z "$(grep 'not apply' <<<"$out")"
check "ECMP width 1: one next hop in fwd" wait_until 5 one
((fail > 0)) && rsh "show fib 198.21.0.0/16" "show route 198.21.0.0/16"
check "static distance 250 in rib" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show route summary' | grep -q '^static .* 250 '"
out=$(rsh configure "delete rib" commit exit 2>&1)
check "back to the defaults: 2 next hops" wait_until 5 two

# 8. the fwd block at run time: worker threads, port backend, ICMP rate
fwd_pid=$(router_pid fwd)
threads() { ls "/proc/$fwd_pid/task" 2>/dev/null | wc -l; }
t0=$(threads)
out=$(rsh configure "set fwd workers 2" commit exit 2>&1)
check "fwd workers 2 committed" grep -q "commit complete" <<<"$out"
check "no 'not applied' note" test -z "$(grep 'not apply' <<<"$out")"
check "tern-fwd has one more thread ($t0 -> $(threads))" test "$(threads)" -eq $((t0 + 1))
check "same tern-fwd process" test "$(router_pid fwd)" = "$fwd_pid"
check "traffic flows with 2 workers" wait_until 5 reach77
out=$(rsh configure "delete fwd workers" commit exit 2>&1)
check "workers back to the start value" test "$(threads)" -eq "$t0"
out=$(rsh configure "set fwd port-backend af_xdp" commit exit 2>&1)
check "default port backend af_xdp committed" grep -q "commit complete" <<<"$out"
check "interfaces on AF_XDP" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -c 'backend xdp' | grep -qx 2"
check "traffic flows on AF_XDP" wait_until 5 reach77
# veth has one queue: two AF_XDP workers cannot bind; refused, nothing changes
out=$(rsh configure "set fwd workers 2" commit exit 2>&1)
check "workers 2 on one-queue AF_XDP ports refused" grep -q "device queue" <<<"$out"
check "refused commit left the threads alone" test "$(threads)" -eq "$t0"
check "and the running config" sh -c "! TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show configuration' | grep -q 'workers 2'"
# both in one commit: workers 2 and the ports back to AF_PACKET (fwd moves
# the ports first, then adds the worker); commit check agrees with commit
out=$(rsh configure "set fwd workers 2" "set fwd port-backend af_packet" "commit check" discard exit 2>&1)
check "one commit, workers 2 + af_packet: commit check succeeds" grep -q "configuration check succeeds" <<<"$out"
check "commit check changed nothing" test "$(threads)" -eq "$t0"
out=$(rsh configure "set fwd workers 2" "set fwd port-backend af_packet" commit exit 2>&1)
check "one commit, workers 2 + af_packet: committed" grep -q "commit complete" <<<"$out"
check "two workers ($(threads) threads)" test "$(threads)" -eq $((t0 + 1))
check "interfaces on AF_PACKET" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -c 'backend afpacket\$' | grep -qx 2"
check "traffic flows, 2 workers on AF_PACKET" wait_until 5 reach77
# the reverse in one commit: one worker and AF_XDP (the worker goes first)
out=$(rsh configure "delete fwd workers" "set fwd port-backend af_xdp" "commit check" discard exit 2>&1)
check "one commit, 1 worker + af_xdp: commit check succeeds" grep -q "configuration check succeeds" <<<"$out"
out=$(rsh configure "delete fwd workers" "set fwd port-backend af_xdp" commit exit 2>&1)
check "one commit, 1 worker + af_xdp: committed" grep -q "commit complete" <<<"$out"
check "one worker again" test "$(threads)" -eq "$t0"
check "interfaces on AF_XDP again" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -c 'backend xdp' | grep -qx 2"
check "traffic flows on AF_XDP, one worker" wait_until 5 reach77
# combinations that cannot work are refused whole: workers 2 on one-queue
# AF_XDP ports, with another setting (one SET_CONFIG) or with an interface
# change (settings and interfaces in one IF_CONFIG)
out=$(rsh configure "set fwd workers 2" "set fwd icmp-rate-limit 5" "commit check" discard exit 2>&1)
check "workers 2 + a setting on one-queue AF_XDP: commit check refuses" grep -q "device queue" <<<"$out"
out=$(rsh configure "set fwd workers 2" "set interfaces client mtu 1400" commit 2>&1)
check "workers 2 + an AF_XDP interface's mtu: commit refused" grep -q "device queue" <<<"$out"
check "nothing changed: one worker" test "$(threads)" -eq "$t0"
check "nothing changed: mtu" sh -c "! TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -q 'mtu 1400'"
check "traffic still flows" wait_until 5 reach77
# two queues per veth: two AF_XDP workers, each on its own queue
nsx "$NS_ROUTER" ethtool -L "$NETNS_RTR_C_IF" rx 2 tx 2 >/dev/null 2>&1
nsx "$NS_ROUTER" ethtool -L "$NETNS_RTR_S_IF" rx 2 tx 2 >/dev/null 2>&1
out=$(rsh configure "set fwd workers 2" commit exit 2>&1)
check "two-queue veths: workers 2 on AF_XDP committed" grep -q "commit complete" <<<"$out"
check "tern-fwd has one more thread" test "$(threads)" -eq $((t0 + 1))
check "interfaces still on AF_XDP" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -c 'backend xdp' | grep -qx 2"
check "traffic flows with 2 AF_XDP workers" wait_until 5 reach77
out=$(rsh configure "delete fwd workers" commit exit 2>&1)
check "and with 1 again" wait_until 5 reach77
nsx "$NS_ROUTER" ethtool -L "$NETNS_RTR_C_IF" rx 1 tx 1 >/dev/null 2>&1
nsx "$NS_ROUTER" ethtool -L "$NETNS_RTR_S_IF" rx 1 tx 1 >/dev/null 2>&1
out=$(rsh configure "set fwd port-backend af_packet" commit exit 2>&1)
check "interfaces back on AF_PACKET" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -c 'backend afpacket\$' | grep -qx 2"
check "traffic flows on AF_PACKET again" wait_until 5 reach77
# the default, auto: AF_XDP where each worker gets a device queue, else
# AF_PACKET; a worker change that the queues cannot serve moves the ports
# both interfaces' show line matches: ifs_on PATTERN
ifs_on() { TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -cE "backend $1\$" | grep -qx 2; }
out=$(rsh configure "delete fwd port-backend" commit exit 2>&1)
check "port-backend auto (the default) committed" grep -q "commit complete" <<<"$out"
check "auto: one worker, one queue: AF_XDP" ifs_on 'xdp-[a-z]+(/run)? \(auto\)'
check "traffic flows on auto's AF_XDP" wait_until 5 reach77
out=$(rsh configure "set fwd workers 2" commit exit 2>&1)
check "auto: workers 2 on one-queue veths committed (not refused)" grep -q "commit complete" <<<"$out"
check "auto: tern-fwd has one more thread" test "$(threads)" -eq $((t0 + 1))
check "auto: two workers, one queue: AF_PACKET" ifs_on 'afpacket \(auto\)'
check "traffic flows on auto's AF_PACKET" wait_until 5 reach77
out=$(rsh configure "delete fwd workers" commit exit 2>&1)
check "auto: one worker again: AF_XDP again" ifs_on 'xdp-[a-z]+(/run)? \(auto\)'
check "traffic flows on AF_XDP again" wait_until 5 reach77
# auto falls back: the client side's XDP slot held by a BPF link (xdphold),
# so AF_XDP cannot attach there; that interface goes AF_PACKET, the other
# AF_XDP, traffic flows
out=$(rsh configure "set fwd port-backend af_packet" commit exit 2>&1)
check "AF_PACKET again (XDP program detached)" ifs_on afpacket
ip netns exec "$NS_ROUTER" "$root/build/tests/tools/xdphold" "$NETNS_RTR_C_IF" >"$tmp/xdphold.out" 2>&1 &
hold_pid=$!
check "xdphold holds $NETNS_RTR_C_IF's XDP slot" wait_until 5 grep -q held "$tmp/xdphold.out"
out=$(rsh configure "delete fwd port-backend" commit exit 2>&1)
check "auto with the XDP slot taken: committed" grep -q "commit complete" <<<"$out"
check "auto fell back to AF_PACKET on $NETNS_RTR_C_IF" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -qE '^client \(device $NETNS_RTR_C_IF, .*backend afpacket \(auto\)\$'"
check "and kept AF_XDP on $NETNS_RTR_S_IF" sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show interfaces' | grep -qE '^server \(device $NETNS_RTR_S_IF, .*backend xdp-[a-z]+(/run)? \(auto\)\$'"
check "traffic flows, one port of each" wait_until 5 reach77
kill "$hold_pid" 2>/dev/null; wait "$hold_pid" 2>/dev/null
# a reject route answers with host unreachable; icmp-rate-limit 0 silences it
out=$(rsh configure "set protocols static route 198.22.0.0/16 reject" commit exit 2>&1)
check "reject route committed" grep -q "commit complete" <<<"$out"
check "fwd holds it as reject" wait_until 5 sh -c "TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show fib 198.22.0.0/16' | grep -q '^198.22.0.0/16 .*reject'"
unreach() { nsx "$NS_CLIENT" ping -c 1 -W 1 198.22.1.1 2>&1 | grep -q "Destination Host Unreachable"; }
silent() { ! nsx "$NS_CLIENT" ping -c 1 -W 1 198.22.1.1 2>&1 | grep -q "Unreachable"; }
check "ping into it: host unreachable from the router" unreach
out=$(rsh configure "set fwd icmp-rate-limit 0" commit exit 2>&1)
check "icmp-rate-limit 0 committed" grep -q "commit complete" <<<"$out"
check "no ICMP error any more" silent
out=$(rsh configure "delete fwd" commit exit 2>&1)
check "fwd block deleted" grep -q "commit complete" <<<"$out"
check "ICMP errors again (the start value)" unreach
out=$(rsh configure "delete protocols static route 198.22.0.0/16" commit exit 2>&1)
check "reject route gone from fwd" wait_until 5 sh -c "! TERN_RUNDIR=$tmp/run $ROUTER_BIN/ternsh -c 'show fib 198.22.0.0/16' | grep -q reject"

check_summary router-config
