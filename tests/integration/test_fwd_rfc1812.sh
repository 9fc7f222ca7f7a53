#!/usr/bin/env bash
# tests/integration/test_fwd_rfc1812.sh: RFC 1812 checks of the real tern-fwd
# in namespaces (tests/lib/netns.sh), with hand-made datagrams on raw sockets
# (tests/lib/rawip.py) and the interfaces committed through tern-mgmt as in
# test_fwd_netns.sh (issue 23, points 12-14):
# - martian sources (5.3.7) are not forwarded, and counted (martian_src);
# - IP options (5.3.13): Record Route and Timestamp get the outgoing
#   interface's address, a malformed option gets Parameter Problem with its
#   pointer (ip_options), `ping -R` shows the router both ways;
# - an interface with no configured mtu takes its device's (1400 here), so a
#   1450-byte datagram is fragmented or answered with frag-needed instead of
#   vanishing; an mtu above the device's is refused at commit; a device whose
#   MTU changes is followed.
# FWD_BACKEND=af_xdp runs it over fwd's AF_XDP ports
# (test_fwd_rfc1812_xdp.sh); default af_packet.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
pass=0; fail=0
backend=${FWD_BACKEND:-af_packet}
case $backend in
af_packet | af_xdp) ;;
*) echo "FWD_BACKEND: af_packet or af_xdp, not '$backend'"; exit 2 ;;
esac
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
has() { grep -q -- "$2" <<<"$1"; }
hasnt() { ! grep -q -- "$2" <<<"$1"; }

if [[ $(id -u) != 0 ]] || ! command -v ping >/dev/null || ! command -v python3 >/dev/null ||
	! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_rfc1812: needs root, ip netns, ping and python3: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-rfc1812.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid=
bg_pids=()
# shellcheck source=../lib/netns.sh
source "$root/tests/lib/netns.sh"
netns_init "r$$"
cleanup() {
	local p
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null; done
	[[ -n $fwd_pid ]] && kill -9 "$fwd_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
raw=$root/tests/lib/rawip.py
ctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
tsh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }
cping() { timeout 10 ip netns exec "$NS_CLIENT" ping "$@" 2>&1; }
drop() { ctl drops | sed -n "s/^$1 //p"; }
# until "$@" succeeds, at most $1 s
wait_until() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done
}
# A sniffer (rawip.py sniff|icmp ...) in namespace NS, in the background,
# writing to FILE; returns once its socket is open.
sniff_bg() {
	local ns=$1 out=$2; shift 2
	rm -f "$out.ready"
	ip netns exec "$ns" timeout 20 python3 "$raw" "$@" "$out.ready" >"$out" 2>&1 &
	bg_pids+=($!)
	wait_until 5 test -e "$out.ready"
}
csend() { timeout 5 ip netns exec "$NS_CLIENT" python3 "$raw" send "$NETNS_HOST_IF" \
	"$NETNS_RTR_C_MAC" "$@"; }

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init r$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; echo "0 passed, 1 failed"; exit 1; }
# the server's link has an MTU of 1400, at both ends, before fwd starts
ip -n "$NS_ROUTER" link set "$NETNS_RTR_S_IF" mtu 1400
ip -n "$NS_SERVER" link set "$NETNS_HOST_IF" mtu 1400

ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --log-level info \
	>>"$tmp/fwd.log" 2>&1 &
fwd_pid=$!
wait_until 10 ctl interfaces >/dev/null 2>&1 || { echo "tern-fwd did not start"; exit 1; }
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
wait_until 10 test -S "$run/mgmt.sock" || { echo "tern-mgmt did not start"; exit 1; }

out=$(tsh -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set interfaces c0 port-backend $backend" \
	-c "set interfaces s0 port-backend $backend" \
	-c commit)
check "commit through tern-mgmt ($backend)" has "$out" "commit complete"
ifs=$(ctl interfaces)
check "no mtu configured: s0 takes its device's, 1400" has "$ifs" "rs0 ifindex [0-9]* link up mtu 1400 "
check "no mtu configured: c0 takes its device's, 1500" has "$ifs" "rc0 ifindex [0-9]* link up mtu 1500 "
out=$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")
check "client pings server through fwd" has "$out" " 0% packet loss"

# ---- 12: martian sources ----
sniff_bg "$NS_SERVER" "$tmp/s12" sniff "$NETNS_HOST_IF" 40012 3
m0=$(drop martian_src)
for src in 127.0.0.1 0.0.0.0 224.0.0.1 255.255.255.255 240.0.0.1; do
	csend "$src" "$NETNS_SERVER_IP" 40012 "martian-$src"
done
csend "$NETNS_CLIENT_IP" "$NETNS_SERVER_IP" 40012 control
wait "${bg_pids[-1]}"
s12=$(cat "$tmp/s12")
check "a datagram from the client's address arrives, TTL 63" \
	grep -q "src=$NETNS_CLIENT_IP dst=$NETNS_SERVER_IP ttl=63 .* text=control" <<<"$s12"
for src in 127.0.0.1 0.0.0.0 224.0.0.1 255.255.255.255 240.0.0.1; do
	check "from $src: not forwarded" hasnt "$s12" "text=martian-$src\$"
done
check "martian sources counted: martian_src +5" test "$(drop martian_src)" = $((m0 + 5))

# ---- 13: IP options ----
sniff_bg "$NS_SERVER" "$tmp/s13" sniff "$NETNS_HOST_IF" 40013 3
sniff_bg "$NS_CLIENT" "$tmp/c13" icmp "$NETNS_HOST_IF" 3
o0=$(drop ip_options)
# Record Route, room for 3; Timestamp with addresses (flag 1), room for 1;
# Record Route with its pointer at 3 (malformed: octet 22)
csend "$NETNS_CLIENT_IP" "$NETNS_SERVER_IP" 40013 rr --opts 070f04000000000000000000000000
csend "$NETNS_CLIENT_IP" "$NETNS_SERVER_IP" 40013 ts --opts 440c05010000000000000000
csend "$NETNS_CLIENT_IP" "$NETNS_SERVER_IP" 40013 bad --opts 07070300000000
now_ms=$(($(date -u +%s%3N) % 86400000))
wait "${bg_pids[-2]}" "${bg_pids[-1]}"
s13=$(cat "$tmp/s13") c13=$(cat "$tmp/c13")
check "Record Route: the router's outgoing address in, pointer 8, checksum right" \
	grep -q "ttl=63 ihl=9 sum=ok opts=070f08c6120201000000000000000000 text=rr" <<<"$s13"
check "Timestamp (flag 1): address and time in, pointer 13" \
	grep -q "ttl=63 ihl=8 sum=ok opts=440c0d01c6120201[0-9a-f]\{8\} text=ts" <<<"$s13"
ts=$(sed -n 's/.*opts=440c0d01c6120201\([0-9a-f]\{8\}\) text=ts.*/\1/p' <<<"$s13")
d=$(( ${ts:+0x$ts} - now_ms )); d=${d#-}
check "... the time is now, in ms since midnight UT (off by $d ms)" test -n "$ts" -a "$d" -lt 60000
check "a malformed option: not forwarded" hasnt "$s13" "text=bad"
check "... Parameter Problem from the router, pointer 22" \
	grep -q "from=$NETNS_RTR_C_IP type=12 code=0 ptr=22 mtu=[0-9]* qsrc=$NETNS_CLIENT_IP qdst=$NETNS_SERVER_IP" <<<"$c13"
check "... counted: ip_options +1" test "$(drop ip_options)" = $((o0 + 1))
out=$(cping -c 1 -W 2 -R "$NETNS_SERVER_IP")
rr=$(sed -n '/^RR:/,/^$/p' <<<"$out")
check "ping -R: the router recorded out to the server ($NETNS_RTR_S_IP)" has "$rr" "$NETNS_RTR_S_IP"
check "ping -R: ... and back to the client ($NETNS_RTR_C_IP)" has "$rr" "$NETNS_RTR_C_IP"

# (last: on an fwd that does not take the device's MTU, the oversize frames
# stop the AF_PACKET port's TX ring, and what follows would fail for that)
# ---- 14: the device's MTU ----
# 1450 bytes without DF first (the client has learnt no path MTU yet): fwd
# fragments them for the 1400-byte link; the server's 1450-byte replies come
# back as its own fragments
ip netns exec "$NS_CLIENT" ip route flush cache
frag0=$(drop mtu_frag)
out=$(cping -c 3 -i 0.3 -W 2 -M dont -s 1422 "$NETNS_SERVER_IP")
check "1450 bytes without DF over the 1400 link: fragmented, answered" has "$out" " 0% packet loss"
check "... counted mtu_frag" test "$(drop mtu_frag)" -gt "$frag0"
out=$(cping -c 2 -i 0.3 -W 2 -M do -s 1422 "$NETNS_SERVER_IP")
check "1450 bytes with DF: frag-needed, mtu 1400" grep -qE "mtu ?= ?1400" <<<"$out"
check "nothing refused by a device (tx_mtu, tx_refused 0)" \
	test "$(drop tx_mtu) $(drop tx_refused)" = "0 0"
out=$(tsh -c configure -c "set interfaces s0 mtu 1450" -c commit)
check "mtu 1450 on a 1400 device: commit refused" has "$out" "rs0: mtu 1450 is above the device's MTU 1400"
check "... nothing changed" has "$(ctl interfaces)" "rs0 ifindex [0-9]* link up mtu 1400 "
out=$(tsh -c configure -c "set interfaces s0 mtu 1300" -c commit)
check "mtu 1300 (below the device's): committed" has "$out" "commit complete"
check "... in use" has "$(ctl interfaces)" "rs0 ifindex [0-9]* link up mtu 1300 "
out=$(tsh -c configure -c "delete interfaces s0 mtu" -c commit)
check "mtu deleted: committed" has "$out" "commit complete"
check "... the device's again" has "$(ctl interfaces)" "rs0 ifindex [0-9]* link up mtu 1400 "
ip -n "$NS_SERVER" link set "$NETNS_HOST_IF" mtu 1380
ip -n "$NS_ROUTER" link set "$NETNS_RTR_S_IF" mtu 1380
mtu_is() { has "$(ctl interfaces)" "rs0 ifindex [0-9]* link up mtu $1 "; }
check "the device's MTU lowered to 1380: followed" wait_until 3 mtu_is 1380
ip netns exec "$NS_CLIENT" ip route flush cache
out=$(cping -c 2 -i 0.3 -W 2 -M dont -s 1422 "$NETNS_SERVER_IP")
check "... 1450 bytes still get through (fragmented for 1380)" has "$out" " 0% packet loss"

check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
