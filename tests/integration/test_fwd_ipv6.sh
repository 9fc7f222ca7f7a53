#!/usr/bin/env bash
# tests/integration/test_fwd_ipv6.sh: IPv6 through the real tern-fwd, with the
# real tern-rib sending it an IPv6 route, on both port backends (AF_PACKET,
# then AF_XDP): two hosts with only IPv6 (static addresses and routes) in
# namespaces on either side of the router's: ping6 through tern and to its
# addresses, a route from rib (FibBatch IPv6, FibAck ipv6_ok) used, hop
# limit expiry -> Time Exceeded (traceroute6 shows tern), a 1500-byte ping
# toward the 1400-MTU link -> Packet Too Big 1400 and the host's path MTU
# follows, 1 MiB over TCP intact, malformed frames dropped and counted by
# reason while forwarding goes on, IPv6 multicast accepted (ALLMULTI).
#
# Neighbour Discovery: each side knows the other statically first (the
# hosts have tern's MACs as permanent neighbours, tern has the hosts' as
# static IPv6 neighbours, StaticNeighbour.addr6); tern's addresses are in
# use once its DAD passed; at the end the h2 side drops its static entries
# and ND resolves both ways (test_fwd_nd.sh tests ND itself). Namespaces
# t6dp-*, addresses from 2001:2:0:100::/56 only.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1 ||
	! command -v python3 >/dev/null || ! command -v ping >/dev/null; then
	echo "test_fwd_ipv6: needs root, ip netns, ping and python3: skipped"
	check_summary test_fwd_ipv6
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-fwd6.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
h1=t6dp-h1-$$ r=t6dp-r-$$ h2=t6dp-h2-$$
fwd= rib=
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
	[[ -n $rib ]] && kill -9 "$rib" 2>/dev/null
	[[ -n $fwd ]] && kill -9 "$fwd" 2>/dev/null
	wait 2>/dev/null
	for n in "$h1" "$r" "$h2"; do ip netns del "$n" 2>/dev/null; done
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
raw=$root/tests/lib/raw6.py
fctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
rctl() { timeout 10 "$tools/ribctl" "$run" "$@"; }
nsx() { local n=$1; shift; timeout 20 ip netns exec "$n" "$@"; }
drop() { fctl drops | awk -v r="$1" '$1 == r { print $2 }'; }

# 2001:2:0:110::/64 h1 (::2) - r1 (::1) tern r2 (::1) - h2 (::2) 2001:2:0:120::/64
# (MTU 1400); h2 also holds 2001:2:0:1f0::1, routed by rib via h2
P1=2001:2:0:110 P2=2001:2:0:120 FAR=2001:2:0:1f0::1
H1MAC=02:6d:00:00:01:02 R1MAC=02:6d:00:00:01:01
H2MAC=02:6d:00:00:02:02 R2MAC=02:6d:00:00:02:01
topo() {
	ip netns add "$h1" && ip netns add "$r" && ip netns add "$h2" || return 1
	ip -n "$r" link add r1 type veth peer name eth0 netns "$h1" || return 1
	ip -n "$r" link add r2 type veth peer name eth0 netns "$h2" || return 1
	ip -n "$r" link set r1 address $R1MAC
	ip -n "$r" link set r2 address $R2MAC
	ip -n "$r" link set r2 mtu 1400
	ip -n "$h2" link set eth0 mtu 1400
	# the router's kernel has no IPv6 of its own: tern-fwd answers
	ip netns exec "$r" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$r" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	local n ifc
	for n in "$h1" "$h2"; do
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_ra=0
		ip netns exec "$n" sysctl -qw net.ipv6.conf.eth0.accept_ra=0
	done
	for ifc in r1 r2; do
		for f in gro gso tso tx rx; do
			ip netns exec "$r" ethtool -K $ifc $f off >/dev/null 2>&1
		done
		ip -n "$r" link set $ifc up
	done
	ip -n "$h1" link set eth0 address $H1MAC
	ip -n "$h2" link set eth0 address $H2MAC
	ip -n "$h1" addr add $P1::2/64 dev eth0 nodad
	ip -n "$h2" addr add $P2::2/64 dev eth0 nodad
	ip -n "$h2" addr add $FAR/64 dev lo nodad
	for n in "$h1" "$h2"; do
		ip netns exec "$n" ethtool -K eth0 tx off >/dev/null 2>&1
		ip -n "$n" link set eth0 up
	done
	ip -n "$h1" -6 route add default via $P1::1 dev eth0
	ip -n "$h2" -6 route add default via $P2::1 dev eth0
	# tern's MACs, statically (no ND in this branch's tern-fwd)
	ip -n "$h1" -6 neigh add $P1::1 lladdr $R1MAC dev eth0 nud permanent
	ip -n "$h2" -6 neigh add $P2::1 lladdr $R2MAC dev eth0 nud permanent
}
check "namespaces t6dp-* with only IPv6 on the hosts" topo

ip netns exec "$r" "$bin/tern-fwd" --rundir "$run" --log-level info \
	>>"$tmp/fwd.log" 2>&1 &
fwd=$!
check "tern-fwd up" wait_until 10 test -S "$run/fwd.sock"
"$bin/tern-rib" --rundir "$run" --hold-ms=300 --log-level info \
	>>"$tmp/rib.log" 2>&1 &
rib=$!
check "tern-rib up" wait_until 10 test -S "$run/rib.sock"

# the interfaces on backend $1 (afpacket, xdp)
ifs() {
	fctl if r1 $P1::1/64 neigh6 $P1::2 $H1MAC backend "$1" >/dev/null &&
		fctl if r2 $P2::1/64 neigh6 $P2::2 $H2MAC backend "$1" >/dev/null
}
rib_synced() { rctl status 2>/dev/null | grep -q "pending 0 resyncing 0 fwd 1"; }
fib6_has() { fctl lookup6 "$1" | grep -q "^$2"; }
ping1() { nsx "$h1" ping -6 -c 1 -W 2 "$@" >/dev/null 2>&1; }

for bk in ${T6_BACKENDS:-afpacket xdp}; do
	check "$bk: interfaces r1, r2 with IPv6 addresses and neighbours" ifs $bk
	# in use once DAD passed (RetransTimer, 1 s: fwd_nd)
	check "$bk: fwd shows them in use" wait_until 5 bash -c \
		"'$tools/fwdctl' '$run' interfaces | grep -q '^r1 .* $P1::1/64' &&
		 '$tools/fwdctl' '$run' interfaces | grep -q '^r2 .* $P2::1/64'"
	check "$bk: the devices take all multicast (ALLMULTI, for ND)" bash -c \
		"ip -n '$r' -d link show r1 | grep -q 'allmulti [1-9]' &&
		 ip -n '$r' -d link show r2 | grep -q 'allmulti [1-9]'"
	check "$bk: the /128s and connected /64s in the FIB6" wait_until 5 bash -c \
		"'$tools/fwdctl' '$run' fib6 $P1::1/128 | grep -q '^$P1::1/128' &&
		 '$tools/fwdctl' '$run' fib6 $P2::/64 | grep -q '^$P2::/64'"
	check "$bk: h1 pings tern's near address" wait_until 5 ping1 $P1::1
	check "$bk: h1 pings tern's far address" ping1 $P2::1
	check "$bk: h1 pings h2 through tern" wait_until 5 ping1 $P2::2
	((fail > 0)) && { fctl drops | grep -v ' 0$'; fctl fib6; fctl interfaces
		ip -n "$r" -s link show r1; ip -n "$r" -s link show r2; ip -n "$h2" -s link show eth0; }
	if [[ -z ${rib_done:-} ]]; then
		rib_done=1
		check "rib in sync with fwd (fwd says ipv6_ok)" wait_until 5 rib_synced
		check "rib: $P2::/64 connected on r2" rctl conn $P2::/64 r2
		check "rib: $FAR/64 via h2" rctl route6 ${FAR%1}/64 $P2::2
		check "rib holds no IPv6 back (held6 0)" wait_until 5 bash -c \
			"'$tools/ribctl' '$run' status | grep -q ' held6 0$'"
	fi
	check "$bk: fwd has rib's route ${FAR%1}/64 via h2" wait_until 5 \
		fib6_has $FAR "${FAR%1}/64 via $P2::2"
	check "$bk: h1 pings $FAR through rib's route" wait_until 5 ping1 $FAR

	# hop limit
	out=$(nsx "$h1" ping -6 -c 1 -W 2 -t 1 $P2::2 2>&1)
	check "$bk: hop limit 1 through tern: Time Exceeded from $P1::1" \
		has "$out" "From $P1::1.*Time exceeded"
	if command -v traceroute6 >/dev/null; then
		out=$(nsx "$h1" traceroute6 -n -q 1 -w 2 -m 3 $P2::2 2>&1)
		check "$bk: traceroute6 shows tern then h2" bash -c \
			"grep -q '^ 1  $P1::1 ' <<<'$out' && grep -q '^ 2  $P2::2 ' <<<'$out'"
	fi

	# Packet Too Big
	nsx "$h1" ip -6 route flush cache >/dev/null 2>&1
	out=$(nsx "$h1" ping -6 -c 1 -W 2 -s 1452 -M do $P2::2 2>&1)
	check "$bk: 1500-byte ping toward the 1400 MTU: Packet Too Big 1400" \
		has "$out" "From $P1::1.*[Pp]acket too big.*mtu=1400"
	check "$bk: h1's path MTU to h2 follows: 1400" bash -c \
		"ip -n '$h1' -6 route get $P2::2 | grep -q 'mtu 1400'"
	check "$bk: a 1400-byte ping goes through" ping1 -s 1352 -M do $P2::2

	# 1 MiB over TCP
	rm -f "$tmp/ready"
	nsx "$h2" python3 "$raw" tcp-recv 5001 "$tmp/ready" >"$tmp/recv" 2>&1 &
	bg+=($!)
	wait_until 5 test -e "$tmp/ready"
	sent=$(nsx "$h1" python3 "$raw" tcp-send $P2::2 5001 1048576 2>&1)
	wait_until 5 test -s "$tmp/recv"
	check "$bk: 1 MiB over TCP arrives intact ($sent)" bash -c \
		"[[ '$sent' == 1048576\ * && '$sent' == \"\$(cat '$tmp/recv')\" ]]"

	# malformed frames: dropped and counted by reason
	for k in version:ip6_version plen:ip6_len short:ip6_short \
		hbh_late:ip6_hbh_not_first ext_past:ip6_ext_hdr; do
		kind=${k%%:*} reason=${k#*:}
		before=$(drop "$reason")
		nsx "$h1" python3 "$raw" send eth0 $R1MAC $P1::2 $P2::2 "$kind"
		check "$bk: a frame with $kind is dropped as $reason" wait_until 3 \
			bash -c "[[ \$('$tools/fwdctl' '$run' drops | awk '\$1 == \"$reason\" { print \$2 }') -gt ${before:-0} ]]"
	done
	before=$(drop ip6_link_local)
	nsx "$h1" python3 "$raw" send eth0 $R1MAC $P1::2 fe80::99 good
	check "$bk: to a link-local not ours: dropped as ip6_link_local" \
		wait_until 3 bash -c "[[ \$('$tools/fwdctl' '$run' drops | awk '\$1 == \"ip6_link_local\" { print \$2 }') -gt ${before:-0} ]]"
	before=$(drop ip6_martian)
	nsx "$h1" python3 "$raw" send eth0 $R1MAC $P1::2 ::ffff:198.19.61.1 good
	check "$bk: to an IPv4-mapped address: dropped as ip6_martian" \
		wait_until 3 bash -c "[[ \$('$tools/fwdctl' '$run' drops | awk '\$1 == \"ip6_martian\" { print \$2 }') -gt ${before:-0} ]]"
	check "$bk: forwarding goes on after them" ping1 $P2::2
done

# Neighbour Discovery instead of the static entries on the h2 side: r2
# without its static neighbour, h2 without its permanent entry for tern
nd_learnt() {
	ip -n "$h2" -6 neigh show $P2::1 dev eth0 | grep -qi "lladdr $R2MAC .*\(REACHABLE\|STALE\|DELAY\)"
}
check "nd: r2 without its static neighbour" \
	fctl if r2 $P2::1/64 backend afpacket
check "nd: h2 forgets tern's MAC" bash -c \
	"ip -n '$h2' -6 neigh del $P2::1 dev eth0 && ! ip -n '$h2' -6 neigh show $P2::1 | grep -q lladdr"
check "nd: the host route to h2 is gone with the static entry" bash -c \
	"! '$tools/fwdctl' '$run' fib6 $P2::2/128 | grep -q '^$P2::2/128'"
check "nd: h1 pings h2 through tern, each side resolving the other" \
	wait_until 10 ping1 $P2::2
check "nd: h2 learnt tern's MAC from its Neighbor Advertisement" nd_learnt
check "nd: tern resolved h2: its /128 by ND" bash -c \
	"'$tools/fwdctl' '$run' fib6 $P2::2/128 | grep -q '^$P2::2/128 via $P2::2'"
check "nd: 1 MiB more over TCP" bash -c "
	rm -f '$tmp/ready'
	ip netns exec '$h2' timeout 20 python3 '$raw' tcp-recv 5002 '$tmp/ready' >'$tmp/recv2' 2>&1 &
	for i in \$(seq 50); do [[ -e '$tmp/ready' ]] && break; sleep 0.1; done
	s=\$(ip netns exec '$h1' timeout 20 python3 '$raw' tcp-send $P2::2 5002 1048576)
	wait
	[[ \$s == 1048576\ * && \$s == \$(cat '$tmp/recv2') ]]"

kill -TERM "$rib"; wait "$rib" 2>/dev/null; rib=
kill -TERM "$fwd"; wait "$fwd"; rc=$?; fwd=
check "tern-fwd SIGTERM: exit 0 (got $rc)" test $rc = 0
check "no error in fwd's log" bash -c "! grep -qi ': err' '$tmp/fwd.log'"
((fail > 0)) && tail -n 30 "$tmp/fwd.log" "$tmp/rib.log"
check_summary test_fwd_ipv6
