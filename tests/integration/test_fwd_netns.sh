#!/usr/bin/env bash
# tests/integration/test_fwd_netns.sh: the real tern-fwd in a router namespace
# between a client and a server namespace (tests/lib/netns.sh), configured the
# way tern runs it: interfaces committed with ternsh through a running
# tern-mgmt (which pushes them to fwd), a route pushed as rib would
# (FIB_BATCH, by tests/integration/fwdctl.c). Pings through fwd and to its
# addresses, unreachable without a route, drop counters; then kill -9 of fwd
# and a restart: forwarding is back once mgmt re-pushes the interfaces.
# FWD_BACKEND=af_xdp runs it all over fwd's AF_XDP ports (port-backend
# af_xdp; test_fwd_netns_xdp.sh does that); default af_packet. With af_xdp,
# FWD_XDP_TX=ring: tern-fwd --xdp-tx=ring (test_fwd_netns_xdp_ring.sh);
# FWD_XDP_TX=run: --xdp-tx=run with the hosts' eth0 taking XDP frames
# (test_fwd_netns_xdp_run.sh); default tern-fwd's own (auto), the hosts as
# netns.sh leaves them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
pass=0; fail=0
backend=${FWD_BACKEND:-af_packet}
case $backend in
af_packet) want_bk=afpacket ;;
af_xdp) want_bk="xdp-(copy|zerocopy|generic)" ;;
*) echo "FWD_BACKEND: af_packet or af_xdp, not '$backend'"; exit 2 ;;
esac
base_fwd_args=()
case ${FWD_XDP_TX:-auto}:$backend in
*:af_packet) ;;
auto:af_xdp) want_bk="$want_bk(/run)?" ;;
ring:af_xdp) base_fwd_args=(--xdp-tx=ring) ;;
run:af_xdp) want_bk="xdp-(copy|generic)/run"; base_fwd_args=(--xdp-tx=run) ;;
*) echo "FWD_XDP_TX: auto, ring or run"; exit 2 ;;
esac
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
has() { grep -q -- "$2" <<<"$1"; }

if [[ $(id -u) != 0 ]] || ! command -v ping >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_netns: needs root, ip netns and ping: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-fwdns.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid=
start_fwd_args=("${base_fwd_args[@]}")
# shellcheck source=../lib/netns.sh
source "$root/tests/lib/netns.sh"
netns_init "fi$$"
cleanup() {
	[[ -n $fwd_pid ]] && kill -9 "$fwd_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

# the test's IPC client of fwd (built by make: tests/integration/fwdctl.c)
tools=$root/build/tests/tools
ctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
cping() { timeout 10 ip netns exec "$NS_CLIENT" ping "$@" 2>&1; }

napi=
[[ ${FWD_XDP_TX:-auto} == run ]] && napi="&& netns_hosts_napi"
timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init fi$$; netns_topo_create $napi" ||
	{ echo "cannot create the namespaces"; echo "0 passed, 1 failed"; exit 1; }

start_fwd() {
	ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --log-level info \
		"${start_fwd_args[@]}" >>"$tmp/fwd.log" 2>&1 &
	fwd_pid=$!
	local end=$((SECONDS + 10))
	until ctl interfaces >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-fwd did not start"; tail "$tmp/fwd.log"; return 1; }
		sleep 0.02
	done
}

t0=$(date +%s%N)
start_fwd || exit 1
t1=$(date +%s%N)
ok "tern-fwd answers IPC $(( (t1 - t0) / 1000000 )) ms after exec"

"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
end=$((SECONDS + 10))
until [[ -S $run/mgmt.sock ]]; do
	((SECONDS < end)) || { echo "tern-mgmt did not start"; tail "$tmp/mgmt.log"; exit 1; }
	sleep 0.05
done

out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set interfaces c0 port-backend $backend" \
	-c "set interfaces s0 port-backend $backend" \
	-c commit 2>&1)
check "commit through tern-mgmt ($backend)" has "$out" "commit complete"
out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c "show interfaces" 2>&1)
check "show interfaces: c0 (rc0) on $backend ($(grep -oE 'backend [a-z-]+' <<<"$out" | head -1))" \
	grep -qE "^c0 \(device rc0, .*backend $want_bk\$" <<<"$out"
check "show interfaces: s0 (rs0) on $backend" grep -qE "^s0 \(device rs0, .*backend $want_bk\$" <<<"$out"
ifs=$(ctl interfaces)
check "fwd has rc0 up with its address" has "$ifs" "rc0 ifindex [0-9]* link up mtu 1500 198.18.1.1/24"
check "fwd has rs0 up with its address" has "$ifs" "rs0 ifindex [0-9]* link up mtu 1500 198.18.2.1/24"
s_ifx=$(sed -n 's/^rs0 ifindex \([0-9]*\) .*/\1/p' <<<"$ifs")
check "ifindex of rs0 is the Linux one" test "$s_ifx" = "$(ip netns exec "$NS_ROUTER" cat /sys/class/net/rs0/ifindex)"
check "connected routes in the FIB" has "$(ctl fib)" "198.18.2.0/24 via 0.0.0.0 if $s_ifx"

# a commit fwd refuses changes nothing
out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c configure \
	-c "set interfaces x0 device nosuchdev7" -c commit 2>&1)
check "a device that does not exist: commit refused" has "$out" "no such network device"
check "... and fwd unchanged" test "$(ctl interfaces | wc -l)" = 2

out=$(cping -c 3 -i 0.2 -W 2 "$NETNS_SERVER_IP")
check "client pings server through fwd" has "$out" " 0% packet loss"
out=$(cping -c 2 -i 0.2 -W 2 "$NETNS_RTR_C_IP")
check "client pings the router's near address" has "$out" " 0% packet loss"
out=$(cping -c 2 -i 0.2 -W 2 "$NETNS_RTR_S_IP")
check "client pings the router's far address" has "$out" " 0% packet loss"

# a route as rib pushes it: 198.19.7.0/24 via the server
ip netns exec "$NS_SERVER" ip addr add 198.19.7.1/32 dev lo
out=$(ctl route add 198.19.7.0/24 "$NETNS_SERVER_IP" "$s_ifx")
check "FIB_BATCH applied" has "$out" "applied 1 failed 0"
out=$(cping -c 2 -i 0.2 -W 2 198.19.7.1)
check "ping over the pushed route" has "$out" " 0% packet loss"
out=$(cping -c 1 -W 2 198.19.99.1)
check "no route: ICMP unreachable" has "$out" "Unreachable"
out=$(cping -c 1 -W 2 -t 1 "$NETNS_SERVER_IP")
check "TTL 1: time exceeded" has "$out" "Time to live exceeded"
drops=$(ctl drops)
check "drops counted: no_route" grep -q "^no_route [1-9]" <<<"$drops"
check "drops counted: ttl_expired" grep -q "^ttl_expired [1-9]" <<<"$drops"
check "neighbours resolved" has "$(ctl neigh)" "198.18.2.2 if $s_ifx state 2"

# kill -9 and restart: fwd comes back empty; mgmt re-pushes the
# interfaces on connect; rib (here: the test) re-pushes the route
kill -9 "$fwd_pid"; wait "$fwd_pid" 2>/dev/null; fwd_pid=
out=$(cping -c 1 -W 1 "$NETNS_SERVER_IP")
check "fwd dead: no forwarding" has "$out" "100% packet loss"
t0=$(date +%s%N)
start_fwd || exit 1
end=$((SECONDS + 15)); back=
while ((SECONDS < end)); do
	if timeout 2 ip netns exec "$NS_CLIENT" ping -c 1 -W 0.2 "$NETNS_SERVER_IP" >/dev/null 2>&1; then
		back=1; break
	fi
done
t1=$(date +%s%N)
check "forwarding back after restart (mgmt re-pushed): $(( (t1 - t0) / 1000000 )) ms" test -n "$back"
check "interfaces back" test "$(ctl interfaces | grep -c 'link up')" = 2
out=$(ctl fib 198.19.7.0/24)
check "route gone with the old fwd" bash -c "! grep -q 'via' <<<'$out'"
ctl route add 198.19.7.0/24 "$NETNS_SERVER_IP" "$s_ifx" >/dev/null
out=$(cping -c 2 -i 0.2 -W 2 198.19.7.1)
check "route re-pushed: ping over it" has "$out" " 0% packet loss"

# link state: the port's device goes down and up
ip netns exec "$NS_ROUTER" ip link set "$NETNS_RTR_S_IF" down
sleep 0.8
check "link down seen" has "$(ctl interfaces)" "rs0 ifindex $s_ifx link down"
out=$(cping -c 1 -W 1 "$NETNS_SERVER_IP")
check "link down: no forwarding" has "$out" "100% packet loss"
ip netns exec "$NS_ROUTER" ip link set "$NETNS_RTR_S_IF" up
sleep 0.8
check "link up seen" has "$(ctl interfaces)" "rs0 ifindex $s_ifx link up"
out=$(cping -c 2 -i 0.2 -W 2 "$NETNS_SERVER_IP")
check "link up: forwarding again" has "$out" " 0% packet loss"

# the backend changed at run time and back: the ports are reopened
other=af_xdp; other_bk="xdp-(copy|zerocopy|generic)(/run)?"
[[ $backend == af_xdp ]] && { other=af_packet; other_bk=afpacket; }
for step in "$other:$other_bk" "$backend:$want_bk"; do
	bk=${step%%:*} re=${step#*:}
	out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c configure \
		-c "set interfaces c0 port-backend $bk" \
		-c "set interfaces s0 port-backend $bk" -c commit 2>&1)
	check "backend switched to $bk" has "$out" "commit complete"
	out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c "show interfaces" 2>&1)
	check "... show interfaces says it" grep -qE "^s0 \(device rs0, .*backend $re\$" <<<"$out"
	out=$(cping -c 2 -i 0.2 -W 2 198.19.7.1)
	check "... ping over the route on $bk" has "$out" " 0% packet loss"
done

# SIGTERM: a clean exit; then two workers sharing the ports (fanout; with
# AF_XDP one queue each, and netns.sh's veths have one queue: af_packet only)
t0=$(date +%s%N)
kill "$fwd_pid"; timeout 5 bash -c "while kill -0 $fwd_pid 2>/dev/null; do sleep 0.01; done"
wait "$fwd_pid"; rc=$?; fwd_pid=
t1=$(date +%s%N)
check "SIGTERM: exit 0 ($(( (t1 - t0) / 1000000 )) ms)" test "$rc" = 0
start_fwd_args=("${base_fwd_args[@]}" --workers=2)
if [[ $backend == af_xdp ]]; then
	: >"$tmp/fwd2.log"
	ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --workers=2 \
		--log-level info >>"$tmp/fwd2.log" 2>&1 &
	fwd_pid=$!
	end=$((SECONDS + 10))
	until grep -q "queue" "$tmp/fwd2.log" 2>/dev/null; do
		((SECONDS < end)) || break
		sleep 0.05
	done
	check "2 workers on one-queue veths: refused with a clear error" \
		grep -q "rc0: AF_XDP binds a device queue per worker: 2 workers, 1 queue" "$tmp/fwd2.log"
	kill "$fwd_pid"; wait "$fwd_pid" 2>/dev/null; fwd_pid=
	check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"
	echo "$pass passed, $fail failed"
	[[ $fail == 0 ]]
	exit
fi
start_fwd || exit 1
end=$((SECONDS + 10))
until ctl interfaces 2>/dev/null | grep -q "rs0 .*link up"; do
	((SECONDS < end)) || break
	sleep 0.05
done
ctl route add 198.19.7.0/24 "$NETNS_SERVER_IP" "$s_ifx" >/dev/null
out=$(cping -c 5 -i 0.1 -W 2 "$NETNS_SERVER_IP")
check "2 workers: ping through" has "$out" " 0% packet loss"
out=$(cping -c 5 -i 0.1 -W 2 198.19.7.1)
check "2 workers: ping over the route" has "$out" " 0% packet loss"
out=$(cping -c 3 -i 0.1 -W 2 "$NETNS_RTR_S_IP")
check "2 workers: ping the router" has "$out" " 0% packet loss"
check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"

echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
