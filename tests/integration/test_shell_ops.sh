#!/usr/bin/env bash
# tests/integration/test_shell_ops.sh: the router's operational commands
# (issue 23, point 11) on a whole router under tern-rtrmgr in namespaces
# (tests/lib/router.sh), through `ternsh -c`: ping from the router through
# tern-fwd's ports (fwd's counters move, the far namespace sees the echo
# requests from the interface's address, source and interface options, a
# host two hops away, ^C ends it with the summary, bad arguments), traceroute
# to a host two hops away (both hops shown), clear interfaces statistics
# (show interfaces restarts from zero, fwd's raw counters do not, another
# shell and a restarted mgmt see the baseline), show log [COMPONENT] [lines
# N], monitor log (live lines, ^C), show system (text and | json: every
# component's pid, uptime, version and memory).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]] || ! command -v python3 >/dev/null; then
	echo "skip: needs root for network namespaces, and python3"
	echo "shell-ops: 0 passed, 0 failed"
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "so$$"
NS_FAR=tern-f-so$$
FAR_IP=198.19.1.2 FAR_GW=198.19.1.1
tmp=$(mktemp -d /tmp/tern-so.XXXXXX)
chmod 755 "$tmp" # the components run as nobody
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
pids=()
cleanup() {
	local p
	((fail > 0)) && for l in mgmt fwd; do
		echo "--- last lines of $l.log"
		tail -n 15 "$tmp/run/$l.log" 2>/dev/null
	done
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	router_stop
	ip netns del "$NS_FAR" 2>/dev/null
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
tools=$root/build/tests/tools
sh_() { TERN_RUNDIR=$tmp/run timeout 30 "$ROUTER_BIN/ternsh" "$@" 2>&1; }

netns_topo_create || { echo "topology failed"; exit 1; }
# a host two hops away: far -- server (a Linux router) -- tern
ip netns add "$NS_FAR" || exit 1
ip -n "$NS_SERVER" link add eth1 type veth peer name eth0 netns "$NS_FAR"
nsx "$NS_SERVER" ip addr add "$FAR_GW/24" dev eth1
nsx "$NS_SERVER" ip link set eth1 up
nsx "$NS_SERVER" sysctl -qw net.ipv4.ip_forward=1
nsx "$NS_SERVER" sysctl -qw net.ipv4.icmp_ratelimit=0
nsx "$NS_FAR" ip link set lo up
nsx "$NS_FAR" ip addr add "$FAR_IP/24" dev eth0
nsx "$NS_FAR" ip link set eth0 up
nsx "$NS_FAR" ip route add default via "$FAR_GW"

router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib, fwd and bgp running" router_wait_running 30
fib_has() { rsh "show fib" 2>/dev/null | grep -q "198.19.0.0/16"; }
check "the static route to the far network is in fwd" wait_until 15 fib_has

# ICMP echo requests a namespace's kernel sees in SECS: "src dst" lines
sniff() { # NS SECS OUT
	local ready=$tmp/ready.$1
	rm -f "$ready"
	nsx "$1" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(0.2)
open(sys.argv[2], "w").close()
end = time.time() + float(sys.argv[1])
while time.time() < end:
    try:
        b = s.recv(65535)
    except socket.timeout:
        continue
    h = (b[0] & 15) * 4
    if b[h] == 8:
        print(socket.inet_ntoa(b[12:16]), socket.inet_ntoa(b[16:20]), flush=True)
' "$2" "$ready" >"$3" 2>&1 &
	pids+=($!)
	wait_until 5 test -e "$ready"
}
# interface NAME's counter C (show interfaces NAME | json)
ifctr() {
	rsh "show interfaces $1 | json" 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["interfaces"][0]["counters"][sys.argv[1]])' "$2"
}
# fwd's raw counter of device DEV: fwdctl's "tx N/..." is not parsed;
# QUERY_INTERFACES through fwdctl's json
rawtx() {
	timeout 5 "$tools/fwdctl" "$tmp/run" interfaces 2>/dev/null |
		sed -n "s/^$1 .* tx \([0-9]*\)[ /].*/\1/p" | head -1
}

# ---- ping: through tern-fwd's port, from the egress interface's address
tx0=$(ifctr server tx_packets)
sniff "$NS_SERVER" 8 "$tmp/sniff1"
out=$(sh_ -c "ping $NETNS_SERVER_IP count 3")
echo "$out" | sed 's/^/     | /'
check "ping: header names the source and the interface" \
	has "$out" "^PING $NETNS_SERVER_IP ($NETNS_SERVER_IP): 56 data bytes, from $NETNS_RTR_S_IP via server"
check "ping: 3 replies with seq, ttl and time" \
	test "$(grep -c "^64 bytes from $NETNS_SERVER_IP: icmp_seq=[0-2] ttl=64 time=" <<<"$out")" = 3
check "ping: summary 3 sent, 3 received, 0% loss" \
	has "$out" "^3 packets transmitted, 3 packets received, 0% packet loss"
check "ping: round-trip line" has "$out" "^round-trip min/avg/max/stddev = "
tx1=$(ifctr server tx_packets)
check "ping: fwd's tx counter of server moved by >= 3 ($tx0 -> $tx1)" \
	test "$((tx1 - tx0))" -ge 3
wait_until 8 test "$(grep -c . "$tmp/sniff1")" -ge 3
check "ping: the server's kernel saw 3 echo requests from $NETNS_RTR_S_IP" \
	test "$(grep -c "^$NETNS_RTR_S_IP $NETNS_SERVER_IP\$" "$tmp/sniff1")" -ge 3

sniff "$NS_CLIENT" 6 "$tmp/sniff2"
out=$(sh_ -c "ping $NETNS_CLIENT_IP count 2 interface client size 100 ttl 5")
check "ping interface client: from $NETNS_RTR_C_IP via client, 2 of 2" \
	sh -c "grep -q 'from $NETNS_RTR_C_IP via client' <<'E'
$out
E
grep -q '^2 packets transmitted, 2 packets received' <<'E'
$out
E"
check "ping size 100: 108-byte replies" has "$out" "^108 bytes from $NETNS_CLIENT_IP"
wait_until 6 grep -q "^$NETNS_RTR_C_IP $NETNS_CLIENT_IP\$" "$tmp/sniff2"
check "ping interface client: the client saw them from $NETNS_RTR_C_IP" \
	grep -q "^$NETNS_RTR_C_IP $NETNS_CLIENT_IP\$" "$tmp/sniff2"

sniff "$NS_SERVER" 6 "$tmp/sniff3"
out=$(sh_ -c "ping $NETNS_SERVER_IP count 2 source $NETNS_RTR_C_IP")
check "ping source $NETNS_RTR_C_IP: 2 of 2" has "$out" "^2 packets transmitted, 2 packets received"
wait_until 6 grep -q "^$NETNS_RTR_C_IP $NETNS_SERVER_IP\$" "$tmp/sniff3"
check "ping source: the server saw the requests from $NETNS_RTR_C_IP" \
	grep -q "^$NETNS_RTR_C_IP $NETNS_SERVER_IP\$" "$tmp/sniff3"

sniff "$NS_FAR" 6 "$tmp/sniff4"
out=$(sh_ -c "ping $FAR_IP count 2")
check "ping a host two hops away: 2 of 2, ttl 63" \
	sh -c "grep -q '^2 packets transmitted, 2 packets received' <<'E'
$out
E
grep -q 'from $FAR_IP: icmp_seq=0 ttl=63' <<'E'
$out
E"
wait_until 6 grep -q "^$NETNS_RTR_S_IP $FAR_IP\$" "$tmp/sniff4"
check "ping two hops: the far host saw them from $NETNS_RTR_S_IP" \
	grep -q "^$NETNS_RTR_S_IP $FAR_IP\$" "$tmp/sniff4"

out=$(sh_ -c "ping $NETNS_RTR_C_IP count 1")
check "ping the router's own address: answered" has "$out" "^1 packets transmitted, 1 packets received"

# ^C: the summary of what was sent so far, then the shell exits 0. One
# SIGINT, as a terminal's ^C: timeout without --foreground sends it twice
# (to the child, then to its process group), which is a second ^C
t0=$SECONDS
TERN_RUNDIR=$tmp/run timeout --foreground 30 "$ROUTER_BIN/ternsh" -c "ping $NETNS_SERVER_IP count 100" >"$tmp/ping-int" 2>&1 &
ppid=$!
pids+=($ppid)
sleep 2.5
kill -INT "$ppid"
wait "$ppid"
rc=$?
out=$(cat "$tmp/ping-int")
n=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$out")
check "ping count 100, ^C after 2.5 s: summary with 2..4 sent (${n:-none}), exit 0 ($rc), in $((SECONDS - t0)) s" \
	test -n "$n" -a "${n:-0}" -ge 2 -a "${n:-0}" -le 4 -a "$rc" = 0
check "ping: the session takes commands again after ^C" sh -c "TERN_RUNDIR=$tmp/run timeout 10 $ROUTER_BIN/ternsh -c 'show version' >/dev/null"

# bad arguments: clear errors, nothing sent
bad() { # WORDS REGEX
	local o
	o=$(sh_ -c "$1")
	[[ $? -ne 0 ]] && grep -qE -- "$2" <<<"$o" || { echo "     ($1: $o)"; return 1; }
}
check "ping without an address" bad "ping" "ping: expected an IPv4 address, got 'nothing'"
check "ping a name" bad "ping host.example" "expected an IPv4 address, got 'host.example'"
check "ping count 0" bad "ping $NETNS_SERVER_IP count 0" "count expects a number 1..100000, got '0'"
check "ping ttl 256" bad "ping $NETNS_SERVER_IP ttl 256" "ttl expects a number 1..255"
check "ping count without a value" bad "ping $NETNS_SERVER_IP count" "'count' expects a value"
check "ping an unknown option" bad "ping $NETNS_SERVER_IP flood 1" "unexpected 'flood' \(expected count, source, interface, size or ttl\)"
check "ping source not ours" bad "ping $NETNS_SERVER_IP source 198.18.9.9" "source 198.18.9.9 is not an address of an interface"
check "ping interface unknown" bad "ping $NETNS_SERVER_IP interface nosuch" "no interface 'nosuch'"
check "ping source and interface" bad "ping $NETNS_SERVER_IP source $NETNS_RTR_S_IP interface server" "give source or interface, once"
check "ping without a route" bad "ping 198.18.200.1" "no route to 198.18.200.1"
check "ping out the wrong interface" bad "ping $NETNS_SERVER_IP interface client" "routed out rs0, not rc0"
check "ping over the MTU" bad "ping $NETNS_SERVER_IP size 2000" "over the MTU 1500 of rs0"
check "ping | json refused" bad "ping $NETNS_SERVER_IP | json" "no JSON output"

# ---- traceroute to a host two hops away
out=$(sh_ -c "traceroute $FAR_IP")
echo "$out" | sed 's/^/     | /'
check "traceroute: header" has "$out" "^traceroute to $FAR_IP ($FAR_IP) from $NETNS_RTR_S_IP via server, 30 hops max, 52 byte packets"
check "traceroute: hop 1 is the server with 3 times" grep -qE "^ 1  $NETNS_SERVER_IP( +[0-9.]+ ms){3}\$" <<<"$out"
check "traceroute: hop 2 is the far host, and the last" \
	sh -c "grep -qE '^ 2  $FAR_IP( +[0-9.]+ ms){3}\$' <<'E'
$out
E
[ \$(grep -c '^ *[0-9]' <<'E'
$out
E
) = 2 ]"
check "traceroute ttl 1: one hop" sh -c "[ \"\$(TERN_RUNDIR=$tmp/run timeout 20 $ROUTER_BIN/ternsh -c 'traceroute $FAR_IP ttl 1' | grep -c '^ *[0-9]')\" = 1 ]"
check "traceroute wait 0" bad "traceroute $FAR_IP wait 0" "wait expects a number 1..60"

# ---- clear interfaces statistics: a baseline in fwd
before=$(ifctr server tx_packets)
raw0=$(rawtx rs0)
out=$(sh_ -c "clear interfaces statistics server")
check "clear interfaces statistics server: one cleared" has "$out" "statistics of 1 interface cleared"
after=$(ifctr server tx_packets)
check "show interfaces server: tx from zero ($before -> $after)" test "$after" -lt 3 -a "$before" -ge 3
out=$(rsh "show interfaces server")
check "show interfaces: 'statistics last cleared N s ago'" has "$out" "statistics last cleared [0-9]* s ago"
client_tx=$(ifctr client tx_packets)
check "the client interface kept its counters ($client_tx)" test "$client_tx" -ge 2
raw1=$(rawtx rs0)
check "fwd's raw counters go on (fwdctl rs0 tx $raw0 -> $raw1)" test -n "$raw0" -a "${raw1:-0}" -ge "${raw0:-1}"
sh_ -c "ping $NETNS_SERVER_IP count 2" >/dev/null
after2=$(ifctr server tx_packets)
check "counts again from the baseline ($after -> $after2)" test "$after2" -ge $((after + 2))
pid=$(router_pid mgmt)
rsh "restart mgmt" >/dev/null 2>&1
wait_until 15 sh -c "[ -n \"\$(TERN_RUNDIR=$tmp/run timeout 5 $ROUTER_BIN/ternsh -c 'show processes' | awk '\$1==\"mgmt\" && \$3==\"running\" && \$2!=\"$pid\"')\" ]"
wait_until 10 rsh "show version" >/dev/null 2>&1
after3=$(ifctr server tx_packets)
check "after a restart of mgmt the baseline stays (tx $after3)" test "${after3:-999}" -lt $((before))
check "clear interfaces statistics nosuch" bad "clear interfaces statistics nosuch" "no interface 'nosuch'"
out=$(sh_ -c "clear interfaces statistics")
check "clear interfaces statistics: both" has "$out" "statistics of 2 interfaces cleared"

# ---- show log, monitor log
out=$(sh_ -c "show log fwd lines 5")
check "show log fwd lines 5: 5 lines of tern-fwd" test "$(grep -c 'tern-fwd\[' <<<"$out")" = 5
out=$(sh_ -c "show log lines 400");
check "show log: every component, marked" sh -c "grep -q '^mgmt  *.*tern-mgmt\[' <<'E'
$out
E
grep -q '^fwd  *.*tern-fwd\[' <<'E'
$out
E"
check "show log: in time order" python3 -c '
import sys
st = [l.split()[1] for l in sys.stdin if len(l.split()) > 1 and l.split()[1][:2] == "20"]
sys.exit(0 if st == sorted(st) and len(st) > 10 else 1)' <<<"$out"
out=$(sh_ -c "show log mgmt | json")
check "show log | json" python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["lines"] and d["lines"][0]["component"] == "mgmt" else 1)' <<<"$out"
check "show log nosuch" bad "show log nosuch" "nosuch.log: No such file or directory"
check "show log lines 0" bad "show log fwd lines 0" "lines expects a number 1..10000"
check "show log Bad/name" bad "show log ../etc" "is not a component name"

TERN_RUNDIR=$tmp/run timeout --foreground 30 "$ROUTER_BIN/ternsh" -c "monitor log mgmt" >"$tmp/mon" 2>&1 &
mpid=$!
pids+=($mpid)
wait_until 5 grep -q "^monitoring .*/mgmt.log" "$tmp/mon"
rsh "show version" >/dev/null # mgmt logs the session it opens
check "monitor log mgmt: a new line shows up live" wait_until 5 grep -q "session [0-9]* opened by" "$tmp/mon"
kill -INT "$mpid"
wait "$mpid"
check "monitor log: ^C ends it, exit 0 ($?)" test "$?" = 0

# ---- show system
out=$(sh_ -c "show system")
echo "$out" | sed 's/^/     | /'
check "show system: host name and version" sh -c "grep -q '^Hostname: tern-test' <<'E'
$out
E
grep -q '^Version: tern ' <<'E'
$out
E"
check "show system: router uptime from tern-rtrmgr" has "$out" "^Router up: [0-9:]* (tern-rtrmgr, pid [0-9]*)"
for c in mgmt rib fwd bgp; do
	check "show system: $c running with a version and its RSS" \
		grep -qE "^$c +[0-9]+ running +[0-9:]+ +[0-9.]+ +[0-9]+ +[0-9]+\$" <<<"$out"
done
out=$(sh_ -c "show system | json")
check "show system | json: pids, versions, rss_kb of the four" python3 -c '
import json, sys
d = json.load(sys.stdin)
c = {x["component"]: x for x in d["components"]}
ok = all(c[n]["pid"] > 0 and c[n]["rss_kb"] > 0 and c[n]["version"] and
         c[n]["state"] == "running" for n in ("mgmt", "rib", "fwd", "bgp"))
ok = ok and d["hostname"] == "tern-test" and d["router_uptime_ms"] > 0
sys.exit(0 if ok else 1)' <<<"$out"
check "show system extra" bad "show system foo" "unexpected 'foo'"

check_summary shell-ops
