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

case ${1:-} in
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
	echo "usage: $0 kernel on|off SUFFIX | napi|napi-off SUFFIX" >&2
	exit 2
	;;
esac
