# tests/lib/netns6.sh: the three namespaces of the IPv6 tests of tern-fwd
# (test_fwd_ipv6.sh, test_fwd_nd.sh): hosts H1 and H2, each joined by a veth
# to the router namespace R (r1 <-> H1's eth0, r2 <-> H2's eth0), with the
# given MACs; the router's kernel without IPv6 (tern-fwd answers there),
# its veths' offloads off and up; the hosts' lo up, their eth0 with TX
# checksum offload off and left down (addresses and sysctls first).
#   t6_topo H1 R H2 R1MAC R2MAC H1MAC H2MAC   0, or 1 if a namespace or
#                                             veth could not be made
t6_topo() {
	local h1=$1 r=$2 h2=$3 ifc f n
	ip netns add "$h1" && ip netns add "$r" && ip netns add "$h2" || return 1
	ip -n "$r" link add r1 type veth peer name eth0 netns "$h1" || return 1
	ip -n "$r" link add r2 type veth peer name eth0 netns "$h2" || return 1
	ip -n "$r" link set r1 address "$4"
	ip -n "$r" link set r2 address "$5"
	ip -n "$h1" link set eth0 address "$6"
	ip -n "$h2" link set eth0 address "$7"
	ip netns exec "$r" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$r" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	for ifc in r1 r2; do
		for f in gro gso tso tx rx; do
			ip netns exec "$r" ethtool -K $ifc $f off >/dev/null 2>&1
		done
		ip -n "$r" link set $ifc up
	done
	for n in "$h1" "$h2"; do
		ip -n "$n" link set lo up
		ip netns exec "$n" ethtool -K eth0 tx off >/dev/null 2>&1
	done
}
