#!/usr/bin/env bash
# tests/integration/test_router_ipv6.sh: IPv6 through the whole router
# (rtrmgr, mgmt, rib, fwd in namespaces), configured with ternsh as an
# operator would (issue 22, "Done when"): the client host has no IPv6
# config at all and autoconfigures from tern's Router Advertisements
# (SLAAC address, default route via tern's link-local); the server host is
# static; they ping each other through tern on both port backends, a
# static IPv6 route carries traffic, traceroute6 shows tern, Neighbour
# Discovery resolves both hosts (no static neighbours anywhere), the
# entries age to STALE and are confirmed again by traffic, and show route /
# fib / neighbors / interfaces give both families, inet6 filter and JSON.
# IPv4 addresses of the topology are taken off the hosts: IPv6 only.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]] || ! command -v python3 >/dev/null; then
	echo "skip: needs root for network namespaces, and python3"
	check_summary router-ipv6
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "r6$$"
tmp=$(mktemp -d /tmp/tern-r6.XXXXXX)
chmod 755 "$tmp"
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
cleanup() { router_stop; netns_cleanup; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

C_NET=2001:2:0:501
S_NET=2001:2:0:502
FAR=2001:2:0:5ff::1 # behind the server, by a static route
S_IP=$S_NET::2

netns_topo_create || { echo "topology failed"; exit 1; }
for ns in "$NS_CLIENT" "$NS_SERVER"; do
	nsx "$ns" ip -4 addr flush dev "$NETNS_HOST_IF"
	nsx "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	nsx "$ns" sysctl -qw net.ipv6.conf.$NETNS_HOST_IF.disable_ipv6=0
	nsx "$ns" sysctl -qw net.ipv6.conf.$NETNS_HOST_IF.accept_dad=0
done
# the client: nothing but SLAAC (accept_ra and autoconf are the defaults)
nsx "$NS_CLIENT" sysctl -qw net.ipv6.conf.$NETNS_HOST_IF.accept_ra=1
nsx "$NS_CLIENT" sysctl -qw net.ipv6.conf.$NETNS_HOST_IF.autoconf=1
# the server: a static address, a route to the client's prefix via tern
nsx "$NS_SERVER" ip -6 addr add "$S_IP/64" dev "$NETNS_HOST_IF"
nsx "$NS_SERVER" ip -6 addr add "$FAR/128" dev lo
nsx "$NS_SERVER" ip -6 route add "$C_NET::/64" via "$S_NET::1"
nsx "$NS_SERVER" ip -6 route add 2001:2:0:5ff::/64 dev lo 2>/dev/null

router_boot_config() {
	cat <<CONF
system { host-name tern-v6; }
interfaces {
	client {
		device $NETNS_RTR_C_IF;
		address $NETNS_RTR_C_IP/24;
		inet6 { address $C_NET::1/64; }
		router-advertisement { prefix $C_NET::/64; max-interval 4; lifetime 60; }
	}
	server {
		device $NETNS_RTR_S_IF;
		address $NETNS_RTR_S_IP/24;
		inet6 { address $S_NET::1/64; }
	}
}
protocols { static { route 2001:2:0:5ff::/64 { next-hop $S_IP; } } }
CONF
}
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib and fwd running" router_wait_running 30

# ---- SLAAC from tern's RAs ----------------------------------------------
slaac() { nsx "$NS_CLIENT" ip -6 addr show dev "$NETNS_HOST_IF" scope global | grep -o "$C_NET:[0-9a-f:]*/64" | head -n 1; }
has_slaac() { [[ -n $(slaac) ]]; }
check "the client autoconfigures an address in $C_NET::/64 from tern's RA" wait_until 20 has_slaac
c_ip=$(slaac); c_ip=${c_ip%/64}
defrt() { nsx "$NS_CLIENT" ip -6 route show default | grep -q "via fe80::.* dev $NETNS_HOST_IF proto ra"; }
check "and a default route via tern's link-local (proto ra): $(nsx "$NS_CLIENT" ip -6 route show default | head -n 1)" wait_until 10 defrt
out=$(rsh "show interfaces client")
check "show interfaces: client's inet6 address in use" grep -q "$C_NET::1/64" <<<"$out"
check "show interfaces: a link-local address" grep -qi "fe80::" <<<"$out"

# ---- traffic, both backends ------------------------------------------------
ping6_ok() { nsx "$1" ping -6 -c 1 -W 1 "$2" >/dev/null 2>&1; }
for backend in afpacket xdp; do
	if [[ $backend == xdp ]]; then
		out=$(rsh configure "set fwd port-backend af_xdp" commit exit 2>&1)
		check "xdp: commit of the backend" grep -q "commit complete" <<<"$out"
		bk() { rsh "show interfaces client" | grep -q "backend xdp"; }
		check "xdp: the ports moved to AF_XDP" wait_until 20 bk
	fi
	check "$backend: client pings tern's client address" wait_until 15 ping6_ok "$NS_CLIENT" "$C_NET::1"
	check "$backend: client pings the server through tern" wait_until 15 ping6_ok "$NS_CLIENT" "$S_IP"
	check "$backend: server pings the client's SLAAC address" wait_until 10 ping6_ok "$NS_SERVER" "$c_ip"
	check "$backend: client reaches $FAR by the static route" wait_until 10 ping6_ok "$NS_CLIENT" "$FAR"
	loss=$(nsx "$NS_CLIENT" ping -6 -c 50 -i 0.02 -W 1 "$S_IP" 2>/dev/null | grep -o '[0-9.]*% packet loss')
	check "$backend: 50 pings, none lost ($loss)" test "$loss" = "0% packet loss"
done

# ---- traceroute6 -------------------------------------------------------------
if command -v traceroute6 >/dev/null || command -v traceroute >/dev/null; then
	tr=$(command -v traceroute6 || echo "$(command -v traceroute) -6")
	out=$(nsx "$NS_CLIENT" timeout 20 $tr -n -q 1 -w 1 -m 4 "$FAR" 2>&1)
	check "traceroute6: tern's client address is the first hop" grep -qE "^ *1 +$C_NET::1 " <<<"$out"
	check "traceroute6: then the destination" grep -qE "^ *2 +$FAR " <<<"$out"
else
	out=$(nsx "$NS_CLIENT" ping -6 -c 1 -t 1 -W 2 "$FAR" 2>&1)
	check "hop limit 1: Time exceeded from tern" grep -qi "from $C_NET::1.*time exceeded" <<<"$out"
fi

# ---- Neighbour Discovery ---------------------------------------------------
nstate() { # address -> state in `show neighbors inet6 | json`
	rsh "show neighbors inet6 | json" 2>/dev/null | python3 -c "
import json, sys
for n in json.load(sys.stdin).get('neighbors', []):
    if n.get('address') == '$1':
        print(n.get('state', '?').lower()); break"
}
out=$(rsh "show neighbors inet6")
check "show neighbors inet6: the server resolved by NDP" grep -qiE "^$S_IP +$NETNS_SERVER_MAC " <<<"$out"
check "show neighbors inet6: the client's SLAAC address" grep -qiE "^$c_ip +$NETNS_CLIENT_MAC " <<<"$out"
check "show neighbors inet6 has no IPv4 entry" bash -c "! grep -q '^198\.' <<<'$out'"
nage() { # address -> age_ms in `show neighbors inet6 | json`
	rsh "show neighbors inet6 | json" 2>/dev/null | python3 -c "
import json, sys
for n in json.load(sys.stdin).get('neighbors', []):
    if n.get('address') == '$1':
        print(n.get('age_ms', -1)); break"
}
# tern-fwd cannot see which neighbours the fast path sends to (nothing per
# packet), so an entry traffic has used is confirmed again when
# ReachableTime (15-45 s, RFC 4861 6.3.2) runs out: REACHABLE -> STALE ->
# DELAY -> PROBE (a unicast NS) -> REACHABLE, its age starting again
a0=$(nage "$S_IP")
check "the server's entry is REACHABLE, confirmed ${a0:-?} ms ago" test "$(nstate "$S_IP")" = reachable
prev=$a0
reconfirmed() { local a; a=$(nage "$S_IP"); [[ -n $a && $a -ge 0 ]] || return 1; if ((a < prev)); then return 0; fi; prev=$a; return 1; }
check "idle, it ages and NDP confirms it again within 60 s (its age starts again)" wait_until 60 reconfirmed
check "the entry never left the cache meanwhile ($(nstate "$S_IP"))" bash -c "[[ '$(nstate "$S_IP")' =~ ^(reachable|stale|delay|probe)\$ ]]"
# learned from its own solicitation (STALE, RFC 4861 7.2.3), then, as every
# STALE entry in tern-fwd (the fast path may send on it), confirmed
learned() { [[ $(nstate "fe80::74:ff:fe00:202") =~ ^(stale|delay|probe|reachable)$ ]]; }
check "the server's link-local, learned from its own solicitation, is in the cache ($(nstate "fe80::74:ff:fe00:202"))" learned
a1=$(nage "fe80::74:ff:fe00:202")
check "and its age is since it was learned (${a1:-?} ms, under 5 min)" test "${a1:-999999999}" -lt 300000
check "traffic flows" ping6_ok "$NS_CLIENT" "$S_IP"

# ---- show, both families ----------------------------------------------------
out=$(rsh "show route")
check "show route: IPv4 routes" grep -q "^198\.18\.1\.0/24" <<<"$out"
check "show route: IPv6 connected" grep -q "^$C_NET::/64" <<<"$out"
check "show route: IPv6 static" grep -q "^2001:2:0:5ff::/64" <<<"$out"
out=$(rsh "show route inet6")
check "show route inet6: no IPv4 route" bash -c "! grep -q '^198\.' <<<'$out'"
out=$(rsh "show fib inet6")
check "show fib inet6: the static route in fwd's FIB" grep -q "2001:2:0:5ff::/64" <<<"$out"
check "show fib inet6: the connected subnets" grep -q "$S_NET::/64" <<<"$out"
for c in "show route inet6" "show fib inet6" "show neighbors inet6" "show interfaces"; do
	out=$(rsh "$c | json")
	check "$c | json is valid JSON" python3 -c "import json,sys; json.loads(sys.stdin.read())" <<<"$out"
done

# ---- a bad IPv6 line changes nothing ------------------------------------------
conf_before=$(rsh "show configuration")
out=$(rsh configure "set protocols static route 2001:2:0:5fe::/64 next-hop 2001:2::1::2" commit 2>&1)
check "a malformed next hop is refused with its reason ($(head -n 1 <<<"$out"))" grep -qi "2001:2::1::2" <<<"$out"
check "the running config is unchanged" test "$(rsh 'show configuration')" = "$conf_before"

# ---- the route withdrawn: fwd answers no route ------------------------------
out=$(rsh configure "delete protocols static route 2001:2:0:5ff::/64" commit exit 2>&1)
check "the static route deleted" grep -q "commit complete" <<<"$out"
gone() { ! rsh "show fib inet6" | grep -q "2001:2:0:5ff::/64"; }
check "gone from fwd's FIB" wait_until 10 gone
out=$(nsx "$NS_CLIENT" ping -6 -c 1 -W 2 "$FAR" 2>&1)
check "a ping to it gets Destination Unreachable (no route) from tern" grep -qi "from $C_NET::1.*unreachable" <<<"$out"

if ((fail > 0)); then
	echo "---- rtrmgr"; tail -n 30 "$tmp/state/rtrmgr.out"
	for f in "$tmp/run"/*.log; do echo "---- $f"; tail -n 20 "$f"; done
fi
check_summary router-ipv6
