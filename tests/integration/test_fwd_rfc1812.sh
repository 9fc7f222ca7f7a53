#!/usr/bin/env bash
# tests/integration/test_fwd_rfc1812.sh: RFC 1812 checks of the real tern-fwd
# in namespaces (tests/lib/netns.sh), with hand-made datagrams on raw sockets
# (tests/lib/rawip.py) and the interfaces committed through tern-mgmt as in
# test_fwd_netns.sh (issue 23):
# - martian sources (5.3.7) are not forwarded, and counted (martian_src).
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

check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
