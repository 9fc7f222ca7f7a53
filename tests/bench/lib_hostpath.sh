#!/usr/bin/env bash
# tests/bench/lib_hostpath.sh: shell steps of bench-hostpath on the topology
# of tests/lib/netns.sh (made by lib_router.sh topo SUFFIX).
#
#   lib_hostpath.sh kernel on|off SUFFIX   the router namespace's kernel owns
#                                          rc0 and rs0 (addresses,
#                                          ip_forward=1: the peer) or not
#                                          (tern-fwd's state); first removes
#                                          what a tern-fwd that did not exit
#                                          cleanly left (its TAPs, the tc
#                                          drop on the ports), saying so
#   lib_hostpath.sh taps SUFFIX SECS       waits until h-rc0 and h-rs0 hold
#                                          the router's addresses
#   lib_hostpath.sh offloads on|off SUFFIX the hosts' eth0: GSO, TSO, GRO
#                                          and checksum offloads on (as a
#                                          Linux host sends by default) or
#                                          off (as netns.sh leaves them);
#                                          bench-tcp
# Exit 0 on success.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/netns.sh"

# tern-fwd removes its TAPs and tc drops when it exits cleanly; after a
# SIGKILL they stay (on purpose: docs/hostpath.md), and the kernel router
# would then see none of rc0's frames (the drop) and hold the addresses
# twice (the TAPs).
leftovers() {
	local d left=
	for d in "h-$NETNS_RTR_C_IF" "h-$NETNS_RTR_S_IF"; do
		if ip -n "$NS_ROUTER" link show "$d" >/dev/null 2>&1; then
			ip -n "$NS_ROUTER" link del "$d" && left="$left $d"
		fi
	done
	for d in "$NETNS_RTR_C_IF" "$NETNS_RTR_S_IF"; do
		if tc -n "$NS_ROUTER" filter show dev "$d" ingress 2>/dev/null | grep -q bpf; then
			tc -n "$NS_ROUTER" qdisc del dev "$d" clsact && left="$left tc-drop-on-$d"
		fi
	done
	[[ -z $left ]] || echo "# lib_hostpath: removed what tern-fwd left:$left"
}

has_addr() {
	ip -n "$NS_ROUTER" -o -4 addr show dev "$1" 2>/dev/null | grep -q "inet $2/24 "
}

case ${1:-} in
kernel)
	[[ $# -eq 3 ]] || { echo "usage: $0 kernel on|off SUFFIX" >&2; exit 2; }
	netns_init "$3"
	leftovers
	netns_router_kernel "$2"
	;;
taps)
	[[ $# -eq 3 ]] || { echo "usage: $0 taps SUFFIX SECS" >&2; exit 2; }
	netns_init "$2"
	end=$((SECONDS + $3))
	until has_addr "h-$NETNS_RTR_C_IF" "$NETNS_RTR_C_IP" &&
	    has_addr "h-$NETNS_RTR_S_IF" "$NETNS_RTR_S_IP"; do
		((SECONDS < end)) || exit 1
		sleep 0.05
	done
	;;
offloads)
	[[ $# -eq 3 ]] || { echo "usage: $0 offloads on|off SUFFIX" >&2; exit 2; }
	netns_init "$3"
	for ns in "$NS_CLIENT" "$NS_SERVER"; do
		for f in tx gso tso gro; do
			ip netns exec "$ns" ethtool -K "$NETNS_HOST_IF" "$f" "$2" >/dev/null 2>&1 || true
		done
	done
	;;
*)
	echo "usage: $0 kernel on|off SUFFIX | taps SUFFIX SECS | offloads on|off SUFFIX" >&2
	exit 2
	;;
esac
