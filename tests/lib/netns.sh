# tests/lib/netns.sh: shared network-namespace topology for fwd's integration tests and benchmarks.
#
# Source it from bash, then:
#   netns_init [SUFFIX]     names: $NS_CLIENT $NS_ROUTER $NS_SERVER (suffix
#                           defaults to the shell's PID, so copies can run
#                           side by side)
#   netns_topo_create       client --veth-- router --veth-- server
#   netns_cleanup           deletes the namespaces (and so the veths); safe to
#                           call twice; use it in `trap netns_cleanup EXIT`
#   netns_hosts_napi [on|off]  the hosts' eth0 take XDP frames (GRO on)
#   netns_gro_napi NS IFC   veth NAPI from GRO on IFC, UDP-merging GRO off
#   netns_router_kernel on|off  let the router namespace's kernel forward
#                           (addresses + ip_forward=1), the peer of bench-forward
#   nsx NS CMD...           run CMD in namespace NS
#
# The topology (addresses from 198.18.0.0/15 only):
#   client ns: $NETNS_HOST_IF (MAC $NETNS_CLIENT_MAC) $NETNS_CLIENT_IP/24,
#              default via $NETNS_RTR_C_IP
#   router ns: $NETNS_RTR_C_IF (MAC $NETNS_RTR_C_MAC) facing the client,
#              $NETNS_RTR_S_IF (MAC $NETNS_RTR_S_MAC) facing the server;
#              up, NO addresses, ip_forward=0, IPv6 off, GRO/GSO/TSO and
#              checksum offloads off: tern-fwd owns these ports and answers
#              ARP and ICMP for $NETNS_RTR_C_IP and $NETNS_RTR_S_IP itself.
#   server ns: $NETNS_HOST_IF (MAC $NETNS_SERVER_MAC) $NETNS_SERVER_IP/24,
#              default via $NETNS_RTR_S_IP
# Hosts' veths have tx checksum offload off so frames carry real checksums.

NETNS_HOST_IF=eth0
NETNS_RTR_C_IF=rc0
NETNS_RTR_S_IF=rs0
NETNS_CLIENT_IP=198.18.1.2
NETNS_RTR_C_IP=198.18.1.1
NETNS_SERVER_IP=198.18.2.2
NETNS_RTR_S_IP=198.18.2.1
NETNS_CLIENT_NET=198.18.1.0/24
NETNS_SERVER_NET=198.18.2.0/24
NETNS_CLIENT_MAC=02:74:00:00:01:02
NETNS_RTR_C_MAC=02:74:00:00:01:01
NETNS_SERVER_MAC=02:74:00:00:02:02
NETNS_RTR_S_MAC=02:74:00:00:02:01

netns_init() {
	NETNS_SUFFIX=${1:-$$}
	NS_CLIENT=tern-c-$NETNS_SUFFIX
	NS_ROUTER=tern-r-$NETNS_SUFFIX
	NS_SERVER=tern-s-$NETNS_SUFFIX
	NETNS_CREATED=
}

nsx() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# Offloads off on one interface in a namespace (features a veth lacks are
# skipped; ethtool errors are not fatal).
netns_offloads_off() {
	local ns=$1 ifc=$2 f
	for f in gro gso tso tx rx lro; do
		nsx "$ns" ethtool -K "$ifc" "$f" off >/dev/null 2>&1 || true
	done
}

# veth NAPI from GRO on NS's IFC (veth takes XDP frames from its peer only
# on a queue with NAPI: an XDP program or GRO), with the two GRO paths that
# merge forwarded or unclaimed UDP (UDP GRO forwarding, fraglist GRO) off, so
# that every UDP frame arrives as sent. 0 or 1.
netns_gro_napi() {
	local ns=$1 ifc=$2 k
	nsx "$ns" ethtool -K "$ifc" rx-udp-gro-forwarding off >/dev/null 2>&1 || true
	nsx "$ns" ethtool -K "$ifc" rx-gro-list off >/dev/null 2>&1 || true
	nsx "$ns" ethtool -K "$ifc" gro on >/dev/null 2>&1 || return 1
	k=$(nsx "$ns" ethtool -k "$ifc") || return 1
	grep -q '^generic-receive-offload: on' <<<"$k" || return 1
	if grep -q '^rx-udp-gro-forwarding: on' <<<"$k" ||
	    grep -q '^rx-gro-list: on' <<<"$k"; then
		echo "netns.sh: $ifc in $ns would merge UDP (GRO forwarding)" >&2
		return 1
	fi
}

# on (the default): the hosts' eth0 queues run NAPI (netns_gro_napi), so
# that they take XDP frames (tern-fwd --xdp-tx=run sends XDP frames); frames
# to a local TCP socket may be merged, as on any host with GRO. off: GRO off
# again, as netns_topo_create leaves them. 0 or 1.
netns_hosts_napi() {
	local ns
	for ns in "$NS_CLIENT" "$NS_SERVER"; do
		if [ "${1:-on}" = off ]; then
			nsx "$ns" ethtool -K "$NETNS_HOST_IF" gro off \
			    >/dev/null 2>&1 || return 1
		else
			netns_gro_napi "$ns" "$NETNS_HOST_IF" || return 1
		fi
	done
}

_netns_host() {
	local ns=$1 mac=$2 ip=$3 gw=$4
	nsx "$ns" ip link set lo up
	nsx "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	nsx "$ns" ip link set "$NETNS_HOST_IF" address "$mac"
	nsx "$ns" ip addr add "$ip/24" dev "$NETNS_HOST_IF"
	nsx "$ns" ip link set "$NETNS_HOST_IF" up
	nsx "$ns" ip route add default via "$gw"
	netns_offloads_off "$ns" "$NETNS_HOST_IF"
}

netns_topo_create() {
	[ -n "$NS_ROUTER" ] || netns_init
	ip netns add "$NS_CLIENT" || return 1
	NETNS_CREATED=1
	ip netns add "$NS_ROUTER" || return 1
	ip netns add "$NS_SERVER" || return 1
	# Created inside the router namespace: no name clash in the root one.
	ip -n "$NS_ROUTER" link add "$NETNS_RTR_C_IF" type veth \
	    peer name "$NETNS_HOST_IF" netns "$NS_CLIENT" || return 1
	ip -n "$NS_ROUTER" link add "$NETNS_RTR_S_IF" type veth \
	    peer name "$NETNS_HOST_IF" netns "$NS_SERVER" || return 1
	nsx "$NS_ROUTER" sysctl -qw net.ipv4.ip_forward=0
	nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	nsx "$NS_ROUTER" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	nsx "$NS_ROUTER" ip link set lo up
	nsx "$NS_ROUTER" ip link set "$NETNS_RTR_C_IF" address "$NETNS_RTR_C_MAC"
	nsx "$NS_ROUTER" ip link set "$NETNS_RTR_S_IF" address "$NETNS_RTR_S_MAC"
	nsx "$NS_ROUTER" ip link set "$NETNS_RTR_C_IF" up
	nsx "$NS_ROUTER" ip link set "$NETNS_RTR_S_IF" up
	netns_offloads_off "$NS_ROUTER" "$NETNS_RTR_C_IF"
	netns_offloads_off "$NS_ROUTER" "$NETNS_RTR_S_IF"
	_netns_host "$NS_CLIENT" "$NETNS_CLIENT_MAC" "$NETNS_CLIENT_IP" \
	    "$NETNS_RTR_C_IP" || return 1
	_netns_host "$NS_SERVER" "$NETNS_SERVER_MAC" "$NETNS_SERVER_IP" \
	    "$NETNS_RTR_S_IP" || return 1
}

# The Linux kernel as the router (peer for benchmarks); off restores the
# state tern-fwd expects.
netns_router_kernel() {
	if [ "$1" = on ]; then
		nsx "$NS_ROUTER" ip addr add "$NETNS_RTR_C_IP/24" dev "$NETNS_RTR_C_IF"
		nsx "$NS_ROUTER" ip addr add "$NETNS_RTR_S_IP/24" dev "$NETNS_RTR_S_IF"
		nsx "$NS_ROUTER" sysctl -qw net.ipv4.ip_forward=1
	else
		nsx "$NS_ROUTER" sysctl -qw net.ipv4.ip_forward=0
		nsx "$NS_ROUTER" ip addr flush dev "$NETNS_RTR_C_IF"
		nsx "$NS_ROUTER" ip addr flush dev "$NETNS_RTR_S_IF"
		# Hosts must learn tern's answers afresh.
		nsx "$NS_CLIENT" ip neigh flush dev "$NETNS_HOST_IF" 2>/dev/null
		nsx "$NS_SERVER" ip neigh flush dev "$NETNS_HOST_IF" 2>/dev/null
	fi
}

netns_cleanup() {
	local ns
	[ -n "$NS_ROUTER" ] || return 0
	for ns in "$NS_CLIENT" "$NS_ROUTER" "$NS_SERVER"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	NETNS_CREATED=
}

# Run as a script: `netns.sh create SUFFIX` / `netns.sh cleanup SUFFIX` /
# `netns.sh hosts-napi SUFFIX [on|off]` (used by C tests and benchmarks that
# cannot source a shell file).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	cmd=${1:-}
	netns_init "${2:-$$}"
	case "$cmd" in
	create) netns_topo_create || { netns_cleanup; exit 1; } ;;
	cleanup) netns_cleanup ;;
	hosts-napi) netns_hosts_napi "${3:-on}" ;;
	*) echo "usage: $0 create|cleanup|hosts-napi SUFFIX [on|off]" >&2
	   exit 2 ;;
	esac
fi
