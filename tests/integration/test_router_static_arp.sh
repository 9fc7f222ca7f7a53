#!/usr/bin/env bash
# tests/integration/test_router_static_arp.sh: static ARP entries from the
# configuration, through the whole router (rtrmgr, mgmt, rib, fwd in
# namespaces). The server answers no ARP request, so fwd reaches it only
# with a static entry: committed, it carries traffic and `show neighbors`
# says static; a bad entry is refused and changes nothing; a fwd killed
# with -9 comes back with the entry; deleted, the server is unreachable
# again.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary router-static-arp
	exit 0
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "sa$$"
tmp=$(mktemp -d /tmp/tern-sa.XXXXXX)
chmod 755 "$tmp"
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
cleanup() { router_stop; netns_cleanup; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_topo_create || { echo "topology failed"; exit 1; }
# The server answers no ARP request (arp_ignore 8) and sends none: it knows
# the router's MAC from a permanent entry. fwd can learn its MAC from
# nothing it receives.
nsx "$NS_SERVER" sysctl -qw net.ipv4.conf.all.arp_ignore=8
nsx "$NS_SERVER" sysctl -qw "net.ipv4.conf.$NETNS_HOST_IF.arp_ignore=8"
nsx "$NS_SERVER" ip neigh replace "$NETNS_RTR_S_IP" lladdr "$NETNS_RTR_S_MAC" \
    dev "$NETNS_HOST_IF" nud permanent
# a MAC with letters: the config takes it in upper case, shows it in lower
NETNS_SERVER_MAC=02:74:ab:cd:02:02
nsx "$NS_SERVER" ip link set "$NETNS_HOST_IF" address "$NETNS_SERVER_MAC"
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib and fwd running" router_wait_running 30

wait_until() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done; }
reach() { nsx "$NS_CLIENT" ping -c 1 -W 1 "$NETNS_SERVER_IP" >/dev/null 2>&1; }
unreached() { ! nsx "$NS_CLIENT" ping -c 2 -i 0.2 -W 1 "$NETNS_SERVER_IP" >/dev/null 2>&1; }
static_entry() {
	rsh "show neighbors" 2>/dev/null | grep -i "^$NETNS_SERVER_IP .*$NETNS_SERVER_MAC" | grep -q static
}
no_static() { ! rsh "show neighbors" 2>/dev/null | grep -q static; }

# 1. without a static entry fwd cannot resolve the server
rtr() { nsx "$NS_CLIENT" ping -c 1 -W 1 "$NETNS_RTR_C_IP" >/dev/null 2>&1; }
check "the router answers the client" wait_until 10 rtr
check "no static entry, no ARP answer: the server is not reached" unreached

# 2. the static entry committed: the server is reached at once
out=$(rsh configure "set interfaces server arp $NETNS_SERVER_IP mac ${NETNS_SERVER_MAC^^}" commit exit 2>&1)
check "commit of a static ARP entry" grep -q "commit complete" <<<"$out"
check "show neighbors: the entry is static, with the configured MAC" wait_until 5 static_entry
check "traffic reaches the server" wait_until 5 reach
out=$(rsh "show configuration interfaces server")
check "the config holds the entry, the MAC in lower case" \
    grep -q "arp $NETNS_SERVER_IP mac $NETNS_SERVER_MAC;" <<<"$out"
out=$(rsh "show neighbors | json")
check "show neighbors | json says static" python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
ns = d['neighbors'] if isinstance(d, dict) else d
assert any(n.get('state') == 'static' for n in ns), ns" <<<"$out"

# 3. bad entries: refused with a message, nothing changes anywhere
conf_before=$(rsh "show configuration")
neigh_before=$(rsh "show neighbors" | grep static)
out=$(rsh configure "set interfaces server arp 198.18.9.9 mac 02:74:00:00:09:09" commit 2>&1); rc=$?
check "an entry off the interface's subnets: commit refused" test $rc -ne 0
check "  ... the error names the entry" grep -q "arp 198.18.9.9" <<<"$out"
out=$(rsh configure "set interfaces server arp 198.18.2.9 mac 01:00:5e:00:00:09" 2>&1); rc=$?
check "a multicast MAC: set refused" test $rc -ne 0
check "  ... the error names the MAC" grep -q "01:00:5e:00:00:09" <<<"$out"
out=$(rsh configure "set interfaces server arp $NETNS_RTR_S_IP mac 02:74:00:00:09:09" commit 2>&1); rc=$?
check "the router's own address: commit refused" test $rc -ne 0
check "running config unchanged" test "$(rsh 'show configuration')" = "$conf_before"
check "fwd's static entries unchanged" test "$(rsh 'show neighbors' | grep static)" = "$neigh_before"
check "traffic still reaches the server" reach

# 4. kill -9 fwd: it comes back with the committed entry (mgmt resyncs it)
pid=$(router_pid fwd); kill -9 "$pid"
sleep 0.2
check "forwarding back after kill -9 fwd" wait_until 15 reach
check "the static entry is back in the new fwd" wait_until 5 static_entry
check "a new tern-fwd process" test "$(router_pid fwd)" != "$pid"

# 5. deleted: the entry goes, and with it the way to the server
out=$(rsh configure "delete interfaces server arp $NETNS_SERVER_IP" commit exit 2>&1)
check "delete of the entry committed" grep -q "commit complete" <<<"$out"
check "no static entry left in fwd" wait_until 5 no_static
check "the server is unreachable again" unreached

check_summary router-static-arp
