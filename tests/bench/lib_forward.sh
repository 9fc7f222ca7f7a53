#!/usr/bin/env bash
# tests/bench/lib_forward.sh: shell steps of bench-forward on the topology of
# tests/lib/netns.sh (made by lib_router.sh topo SUFFIX).
#
#   lib_forward.sh kernel on|off SUFFIX   the router namespace's kernel
#                                         forwards (peer) or not (tern-fwd)
#   lib_forward.sh napi SUFFIX            the router's rc0 veth queue runs
#                                         NAPI, so that XDP frames sent by
#                                         the client's eth0 (the XDP
#                                         generator) are taken, not dropped
#   lib_forward.sh napi-off SUFFIX        GRO off again on rc0 (as tern-fwd
#                                         and netns.sh leave it)
#   lib_forward.sh hosts6 SUFFIX          the IPv6 cases' hosts: IPv6 on
#                                         their eth0, the client
#                                         2001:2:0:f1::2/64, the server
#                                         2001:2:0:f2::2-254/64 (every next
#                                         hop: they answer ND), no DAD
#   lib_forward.sh kernel6 on|off SUFFIX  the router namespace's kernel
#                                         forwards IPv6 (2001:2:0:f1::1/64
#                                         on rc0, 2001:2:0:f2::1/64 on rs0,
#                                         net.ipv6.conf.all.forwarding=1)
#                                         or has no IPv6 at all (as
#                                         netns.sh leaves it, for tern-fwd)
# Exit 0 on success.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/netns.sh"

# veth takes frames from its peer's ndo_xdp_xmit only when its queue has
# NAPI, which it has while an XDP program is attached (tern-fwd's AF_XDP
# backend) or while GRO is on. Otherwise: GRO on, and the two GRO paths
# that merge forwarded UDP (UDP GRO forwarding, fraglist GRO) off, so that
# every UDP frame reaches the kernel's forwarding or an AF_PACKET socket as
# sent (UDP frames are merged only by those two features or for a local
# socket that asked for it with UDP_GRO). tern-fwd turns GRO off on its
# ports when it opens them: run this after the router's set-up.
forward_napi() {
	if nsx "$NS_ROUTER" ip link show "$NETNS_RTR_C_IF" | grep -q 'prog/xdp'; then
		return 0
	fi
	netns_gro_napi "$NS_ROUTER" "$NETNS_RTR_C_IF"
}

# IPv6 on the hosts (netns.sh turns it off everywhere).
forward_hosts6() {
	local i
	for ns in "$NS_CLIENT" "$NS_SERVER"; do
		nsx "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		    net.ipv6.conf.default.disable_ipv6=0 \
		    "net.ipv6.conf.$NETNS_HOST_IF.disable_ipv6=0" \
		    "net.ipv6.conf.$NETNS_HOST_IF.accept_ra=0" || return 1
	done
	nsx "$NS_CLIENT" ip -6 addr add 2001:2:0:f1::2/64 dev "$NETNS_HOST_IF" nodad || return 1
	nsx "$NS_CLIENT" ip -6 route add default via 2001:2:0:f1::1 || return 1
	{
		for i in $(seq 2 254); do
			printf 'addr add 2001:2:0:f2::%x/64 dev %s nodad\n' "$i" "$NETNS_HOST_IF"
		done
		echo "route add default via 2001:2:0:f2::1"
	} | ip -6 -n "$NS_SERVER" -batch - || return 1
}

# The router namespace's kernel as the IPv6 router, or no IPv6 there.
forward_kernel6() {
	local ifc
	if [ "$1" = on ]; then
		nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 || return 1
		for ifc in "$NETNS_RTR_C_IF" "$NETNS_RTR_S_IF"; do
			nsx "$NS_ROUTER" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=0" \
			    "net.ipv6.conf.$ifc.accept_ra=0" || return 1
		done
		nsx "$NS_ROUTER" ip -6 addr add 2001:2:0:f1::1/64 dev "$NETNS_RTR_C_IF" nodad || return 1
		nsx "$NS_ROUTER" ip -6 addr add 2001:2:0:f2::1/64 dev "$NETNS_RTR_S_IF" nodad || return 1
		nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1
	else
		nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.all.forwarding=0
		for ifc in "$NETNS_RTR_C_IF" "$NETNS_RTR_S_IF"; do
			nsx "$NS_ROUTER" ip -6 addr flush dev "$ifc" 2>/dev/null
			nsx "$NS_ROUTER" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
		done
		nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		# the hosts learn the next router's answers afresh
		nsx "$NS_CLIENT" ip -6 neigh flush dev "$NETNS_HOST_IF" 2>/dev/null
		nsx "$NS_SERVER" ip -6 neigh flush dev "$NETNS_HOST_IF" 2>/dev/null
		true
	fi
}

case ${1:-} in
hosts6)
	[[ $# -eq 2 ]] || { echo "usage: $0 hosts6 SUFFIX" >&2; exit 2; }
	netns_init "$2"
	forward_hosts6
	;;
kernel6)
	[[ $# -eq 3 ]] || { echo "usage: $0 kernel6 on|off SUFFIX" >&2; exit 2; }
	netns_init "$3"
	forward_kernel6 "$2"
	;;
kernel)
	[[ $# -eq 3 ]] || { echo "usage: $0 kernel on|off SUFFIX" >&2; exit 2; }
	netns_init "$3"
	netns_router_kernel "$2"
	;;
napi)
	[[ $# -eq 2 ]] || { echo "usage: $0 napi SUFFIX" >&2; exit 2; }
	netns_init "$2"
	forward_napi
	;;
napi-off)
	[[ $# -eq 2 ]] || { echo "usage: $0 napi-off SUFFIX" >&2; exit 2; }
	netns_init "$2"
	nsx "$NS_ROUTER" ethtool -K "$NETNS_RTR_C_IF" gro off >/dev/null 2>&1
	;;
*)
	echo "usage: $0 kernel|kernel6 on|off SUFFIX | napi|napi-off|hosts6 SUFFIX" >&2
	exit 2
	;;
esac
