#!/usr/bin/env bash
# tests/integration/test_fwd_link.sh: tern-fwd follows its devices by link
# events (rtnetlink), not by polling: link down/up and an MTU change are seen
# within 100 ms; the device deleted under its feet leaves the interface
# configured and "absent" within 100 ms, and re-created under the same name
# (a new ifindex) it is attached again and forwards (tern-rib sees its
# connected route go, and come back on the new ifindex); a MAC change reaches
# what the router answers ARP with; a rename away and back; and after a
# kill -9 of fwd while a device is missing, tern-mgmt's full set still
# configures the others (the missing one waits, absent). Interfaces are
# committed through tern-mgmt as tern runs them. FWD_BACKEND=af_xdp runs it on
# fwd's AF_XDP ports (test_fwd_link_xdp.sh); default af_packet.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
backend=${FWD_BACKEND:-af_packet}
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
hase() { grep -qE -- "$2" <<<"$1"; } # has, with an extended regex

if [[ $(id -u) != 0 ]] || ! command -v ping >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_link: needs root, ip netns and ping: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-fwdlink.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid= rib_pid=
# shellcheck source=../lib/netns.sh
source "$root/tests/lib/netns.sh"
netns_init "fl$$"
cleanup() {
	[[ -n $fwd_pid ]] && kill -9 "$fwd_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	[[ -n $rib_pid ]] && kill -9 "$rib_pid" 2>/dev/null
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
ctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
cping() { timeout 10 ip netns exec "$NS_CLIENT" ping "$@" 2>&1; }
sh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init fl$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; echo "0 passed, 1 failed"; exit 1; }

start_fwd() {
	ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --log-level info \
		>>"$tmp/fwd.log" 2>&1 &
	fwd_pid=$!
	local end=$((SECONDS + 10))
	until ctl interfaces >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-fwd did not start"; tail "$tmp/fwd.log"; return 1; }
		sleep 0.02
	done
}

# Poll fwd until its line for rs0 matches $1 (an ERE), for at most $2 ms:
# prints the milliseconds it took from $3 (a now_ms), or "timeout".
wait_rs0() {
	local want=$1 max=$2 t0=$3 line
	while :; do
		line=$(ctl interfaces | grep '^rs0 ')
		if grep -qE -- "$want" <<<"$line"; then
			echo $(( $(now_ms) - t0 ))
			return 0
		fi
		(( $(now_ms) - t0 > max )) && { echo timeout; return 1; }
		sleep 0.005
	done
}

# rs0 and the server's eth0 again, as netns_topo_create makes them, and up.
recreate_rs0() {
	ip -n "$NS_ROUTER" link add "$NETNS_RTR_S_IF" type veth \
		peer name "$NETNS_HOST_IF" netns "$NS_SERVER" || return 1
	nsx "$NS_ROUTER" ip link set "$NETNS_RTR_S_IF" address "$NETNS_RTR_S_MAC"
	netns_offloads_off "$NS_ROUTER" "$NETNS_RTR_S_IF"
	_netns_host "$NS_SERVER" "$NETNS_SERVER_MAC" "$NETNS_SERVER_IP" \
		"$NETNS_RTR_S_IP" || return 1
}

start_fwd || exit 1
"$bin/tern-rib" --rundir "$run" --log-level info >>"$tmp/rib.log" 2>&1 &
rib_pid=$!
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
end=$((SECONDS + 10))
until [[ -S $run/mgmt.sock ]]; do
	((SECONDS < end)) || { echo "tern-mgmt did not start"; tail "$tmp/mgmt.log"; exit 1; }
	sleep 0.05
done
out=$(sh -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set interfaces c0 port-backend $backend" \
	-c "set interfaces s0 port-backend $backend" \
	-c commit)
check "commit ($backend)" hase "$out" "commit complete"
old_ifx=$(ctl interfaces | sed -n 's/^rs0 ifindex \([0-9]*\) .*/\1/p')
check "rs0 attached, up" hase "$(ctl interfaces | grep '^rs0 ')" "^rs0 ifindex $old_ifx link up mtu 1500 198.18.2.1/24"
check "client pings server through fwd" hase "$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")" " 0% packet loss"

# link down and up, MTU: seen within 100 ms (the poll this replaces took up
# to 500)
t0=$(now_ms); nsx "$NS_ROUTER" ip link set rs0 down
ms=$(wait_rs0 "link down" 1000 "$t0")
check "link down seen in $ms ms (<= 100)" test "$ms" != timeout -a "${ms/timeout/9999}" -le 100
t0=$(now_ms); nsx "$NS_ROUTER" ip link set rs0 up
ms=$(wait_rs0 "link up" 1000 "$t0")
check "link up seen in $ms ms (<= 100)" test "${ms/timeout/9999}" -le 100
t0=$(now_ms); nsx "$NS_ROUTER" ip link set rs0 mtu 1400
ms=$(wait_rs0 "mtu 1400" 1000 "$t0")
check "device MTU 1400 seen in $ms ms (<= 100)" test "${ms/timeout/9999}" -le 100
nsx "$NS_ROUTER" ip link set rs0 mtu 1500
wait_rs0 "mtu 1500" 1000 "$(now_ms)" >/dev/null
check "forwarding after link down/up" hase "$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")" " 0% packet loss"

# the device deleted: absent (kept configured) within 100 ms; rib-facing
# state: no connected route on it
# (from the moment the device is gone: `ip link del` returns; the deletion
# itself takes tens of ms, the kernel waiting for its readers)
t0=$(now_ms); nsx "$NS_ROUTER" ip link del rs0; t1=$(now_ms)
ms=$(wait_rs0 "ifindex 0 link absent" 1000 "$t1")
check "device deleted ($((t1 - t0)) ms to delete): rs0 absent $ms ms after (<= 100)" test "${ms/timeout/9999}" -le 100
check "... its address kept in the config" hase "$(ctl interfaces | grep '^rs0 ')" "198.18.2.1/24"
check "... its connected route gone" bash -c "! grep -q '^198.18.2.0/24' <<<\"\$(timeout 10 '$tools/fwdctl' '$run' fib)\""
check "... rc0 untouched" hase "$(ctl interfaces | grep '^rc0 ')" "link up"
out=$(sh -c "show interfaces")
check "show interfaces: s0 absent" hase "$out" "^s0 \(device rs0, ifindex 0\): link absent"
check "fwd logged it" grep -q "rs0: the device was deleted" "$tmp/fwd.log"
out=$(sh -c "show route 198.18.2.0/24")
check "rib: no connected route on it" hase "$out" "^0 routes"

# re-created under the same name: attached again (a new ifindex), forwarding
t0=$(now_ms)
recreate_rs0 || nok "re-create rs0"
t1=$(now_ms); nsx "$NS_ROUTER" ip link set rs0 up
new_ifx=$(nsx "$NS_ROUTER" cat /sys/class/net/rs0/ifindex)
ms=$(wait_rs0 "^rs0 ifindex $new_ifx link up" 1000 "$t1")
check "device re-created (ifindex $old_ifx -> $new_ifx): up and attached in $ms ms after 'link set up' (<= 100; $((t1 - t0)) ms to create it)" \
	test "${ms/timeout/9999}" -le 100
check "... its connected route on the new ifindex" hase "$(ctl fib)" "198.18.2.0/24 via 0.0.0.0 if $new_ifx"
out=$(sh -c "show route 198.18.2.0/24")
check "rib: the connected route is back, on ifindex $new_ifx" hase "$out" "^198.18.2.0/24 +connected .* $new_ifx +best"
out=$(cping -c 3 -i 0.2 -W 2 "$NETNS_SERVER_IP")
check "client pings server through the new device" hase "$out" " 0% packet loss"
# (what to look at when it does not: fwd's view and its drops)
has "$out" " 0% packet loss" || { echo "$out"; ctl interfaces; ctl drops | grep -v " 0$"; ctl neigh; }

# the MAC changed: what the router answers ARP with follows
nsx "$NS_ROUTER" ip link set rs0 address 02:74:00:00:02:99
wait_rs0 "link up" 1000 "$(now_ms)" >/dev/null
nsx "$NS_SERVER" ip neigh flush dev "$NETNS_HOST_IF"
timeout 10 ip netns exec "$NS_SERVER" ping -c 2 -i 0.2 -W 2 "$NETNS_RTR_S_IP" >/dev/null 2>&1
check "MAC changed: the server resolves the router to the new MAC" \
	hase "$(nsx "$NS_SERVER" ip neigh show "$NETNS_RTR_S_IP")" "02:74:00:00:02:99"
check "... and forwarding goes on" hase "$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")" " 0% packet loss"
nsx "$NS_ROUTER" ip link set rs0 address "$NETNS_RTR_S_MAC"

# renamed away (absent) and back (attached)
nsx "$NS_ROUTER" ip link set rs0 down
nsx "$NS_ROUTER" ip link set rs0 name rsx
check "renamed away: absent" test "$(wait_rs0 "link absent" 1000 "$(now_ms)")" != timeout
nsx "$NS_ROUTER" ip link set rsx name rs0
nsx "$NS_ROUTER" ip link set rs0 up
check "renamed back: attached, up" test "$(wait_rs0 "^rs0 ifindex $new_ifx link up" 1000 "$(now_ms)")" != timeout
check "... forwarding" hase "$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")" " 0% packet loss"

# fwd killed while rs0 is missing: mgmt's full set on reconnect configures
# rc0 and keeps s0 absent (it used to be refused whole); rs0 back: attached
nsx "$NS_ROUTER" ip link del rs0
kill -9 "$fwd_pid"; wait "$fwd_pid" 2>/dev/null; fwd_pid=
start_fwd || exit 1
end=$((SECONDS + 15))
until hase "$(ctl interfaces | grep '^rc0 ')" "link up" || ((SECONDS >= end)); do sleep 0.05; done
check "fwd restarted with rs0 missing: rc0 configured by mgmt's full set" hase "$(ctl interfaces | grep '^rc0 ')" "link up mtu 1500 198.18.1.1/24"
check "... rs0 kept, absent" hase "$(ctl interfaces | grep '^rs0 ')" "ifindex 0 link absent"
check "client pings the router's near address" hase "$(cping -c 2 -i 0.2 -W 2 "$NETNS_RTR_C_IP")" " 0% packet loss"
recreate_rs0 || nok "re-create rs0"
nsx "$NS_ROUTER" ip link set rs0 up
check "rs0 back: attached" test "$(wait_rs0 "link up" 1000 "$(now_ms)")" != timeout
check "client pings server through fwd" hase "$(cping -c 3 -i 0.2 -W 2 "$NETNS_SERVER_IP")" " 0% packet loss"

# a new interface on a device that does not exist is still refused
out=$(sh -c configure -c "set interfaces x0 device nosuchdev7" -c commit)
check "a new interface on no device: commit refused" hase "$out" "no such network device"
check "fwd kept running" kill -0 "$fwd_pid"

check_summary "fwd-link-$backend"
