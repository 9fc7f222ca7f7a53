#!/usr/bin/env bash
# tests/integration/test_fwd_nd.sh: IPv6 Neighbour Discovery of the real
# tern-fwd (fwd_nd, docs/ipv6.md) against Linux hosts in namespaces, no
# static neighbour on either side: tern's addresses in use after DAD; h1
# autoconfigures from tern's Router Advertisements (a SLAAC address in the
# prefix, the default route via tern's link-local, the link MTU from the
# MTU option); h2 resolves tern by NDP and tern resolves the hosts (their
# entries REACHABLE with their MACs); with no traffic, tern's entry ages
# (REACHABLE -> DELAY/PROBE) and is confirmed again by a unicast NS
# (REACHABLE); an address of tern's that h2 already has is refused by DAD
# (duplicate, logged); RAs turned off, and tern-fwd stopping, send a final
# RA that takes h1's default route away at once; a malformed NS (hop
# limit 64) is refused and counted; the interfaces switched to AF_XDP in
# place resolve and advertise again (T6ND_XDP=0: AF_PACKET only).
# Namespaces t6nd-*, addresses from 2001:2:0:200::/56 only.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"
. "$root/tests/lib/netns6.sh"

if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1 ||
	! command -v ping >/dev/null; then
	echo "test_fwd_nd: needs root, ip netns and ping: skipped"
	check_summary test_fwd_nd
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-fwdnd.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
h1=t6nd-h1-$$ r=t6nd-r-$$ h2=t6nd-h2-$$
fwd=
cleanup() {
	[[ -n $fwd ]] && kill -9 "$fwd" 2>/dev/null
	wait 2>/dev/null
	for n in "$h1" "$r" "$h2"; do ip netns del "$n" 2>/dev/null; done
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
fctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
nsx() { local n=$1; shift; timeout 20 ip netns exec "$n" "$@"; }

# 2001:2:0:210::/64 h1 (SLAAC) - r1 (::1) tern r2 (::1) - h2 (::2) 2001:2:0:220::/64
P1=2001:2:0:210 P2=2001:2:0:220
H1MAC=02:6e:00:00:01:02 R1MAC=02:6e:00:00:01:01
H2MAC=02:6e:00:00:02:02 R2MAC=02:6e:00:00:02:01
R1LL=fe80::6e:ff:fe00:101 # EUI-64 of R1MAC
topo() {
	t6_topo "$h1" "$r" "$h2" $R1MAC $R2MAC $H1MAC $H2MAC || return 1
	local n
	for n in "$h1" "$h2"; do
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.forwarding=0
	done
	# h1 takes RAs (SLAAC, default route, MTU); h2 is static
	ip netns exec "$h1" sysctl -qw net.ipv6.conf.default.accept_ra=1
	ip netns exec "$h1" sysctl -qw net.ipv6.conf.default.autoconf=1
	ip netns exec "$h1" sysctl -qw net.ipv6.conf.eth0.accept_ra=1
	ip netns exec "$h1" sysctl -qw net.ipv6.conf.eth0.autoconf=1
	ip netns exec "$h2" sysctl -qw net.ipv6.conf.eth0.accept_ra=0
	ip -n "$h2" addr add $P2::2/64 dev eth0 nodad
	for n in "$h1" "$h2"; do
		ip -n "$n" link set eth0 up
	done
	ip -n "$h2" -6 route add default via $P2::1 dev eth0
}
check "namespaces t6nd-*: h1 takes RAs, h2 static, no static neighbours" topo

ip netns exec "$r" "$bin/tern-fwd" --rundir "$run" --log-level info \
	>>"$tmp/fwd.log" 2>&1 &
fwd=$!
check "tern-fwd up" wait_until 10 test -S "$run/fwd.sock"

export BK=afpacket
r1cfg() { fctl if r1 $P1::1/64 ra "$1" ra-mtu 1400 ra-interval 10 backend $BK >/dev/null; }
check "r1 with RAs (MTU 1400), r2 plain" bash -c \
	"'$tools/fwdctl' '$run' if r1 $P1::1/64 ra on ra-mtu 1400 ra-interval 10 >/dev/null &&
	 '$tools/fwdctl' '$run' if r2 $P2::1/64 >/dev/null"
ifline() { fctl interfaces | grep "^$1 "; }
check "tern's addresses in use once DAD passed (global, EUI-64 link-local)" \
	wait_until 5 bash -c \
	"'$tools/fwdctl' '$run' interfaces | grep '^r1 ' | grep -q ' $P1::1/64 .*ll $R1LL' &&
	 '$tools/fwdctl' '$run' interfaces | grep '^r2 ' | grep -q ' $P2::1/64 '"
check "r1 reports its RAs on" has "$(ifline r1)" " ra on"

# h1 from tern's RA
h1addr() { ip -n "$h1" -6 addr show dev eth0 scope global | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }'; }
check "h1 autoconfigured an address in $P1::/64 (SLAAC)" wait_until 15 \
	bash -c "ip -n '$h1' -6 addr show dev eth0 scope global | grep -q 'inet6 $P1:'"
H1A=$(h1addr)
check "h1's default route: via tern's link-local, from an RA" wait_until 5 \
	bash -c "ip -n '$h1' -6 route show default | grep -q 'via $R1LL .*proto ra'"
check "h1's link MTU 1400 from the RA's MTU option" wait_until 5 bash -c \
	"[[ \$(ip netns exec '$h1' sysctl -n net.ipv6.conf.eth0.mtu) == 1400 ]]"

# resolution both ways
check "h2 pings tern's $P2::1 (h2 resolves tern by NDP)" wait_until 5 \
	nsx "$h2" ping -6 -c 1 -W 1 $P2::1
check "h2 has tern's MAC for $P2::1" has \
	"$(ip -n "$h2" -6 neigh show $P2::1)" "lladdr $R2MAC"
check "h1 ($H1A) pings h2 through tern (tern resolves both)" wait_until 5 \
	nsx "$h1" ping -6 -c 1 -W 1 -I "$H1A" $P2::2
check "h1 has tern's link-local with R1's MAC (its router)" has \
	"$(ip -n "$h1" -6 neigh show $R1LL)" "lladdr $R1MAC.*router"
n6() { fctl neigh6 | grep "^$1 "; }
# learned from h2's NS (STALE, DELAY: the fast path sends on it), then
# confirmed by a unicast NS
check "tern: h2 with its MAC, confirmed (REACHABLE)" wait_until 8 bash -c \
	"'$tools/fwdctl' '$run' neigh6 | grep '^$P2::2 ' | grep -q 'state reachable mac $H2MAC'"
check "tern: h1's SLAAC address with h1's MAC" has "$(n6 "$H1A")" \
	"mac $H1MAC"

# aging with no traffic: ReachableTime (15..45 s) passes, the entry in use
# goes DELAY, after 5 s PROBE (a unicast NS), and h2's answer makes it
# REACHABLE again
seen=
age_watch() {
	local st end=$((SECONDS + 60))
	while ((SECONDS < end)); do
		st=$(n6 $P2::2 | awk '{ print $5 }')
		[[ $st != "${seen##* }" ]] && seen="$seen $st"
		# PROBE lasts as long as h2 takes to answer (under a ms):
		# DELAY then REACHABLE is that answer to the unicast NS
		[[ $seen == *" delay"*" reachable" || $seen == *" probe"*" reachable" ]] && return 0
		sleep 0.2
	done
	return 1
}
check "tern's entry for h2 ages and is confirmed again" age_watch
echo "     states seen:$seen"

# a Neighbor Solicitation for tern's address with hop limit 64 (7.1.1: must
# be 255) from h1: refused, counted by reason (QUERY_DROPS nd_hop_limit)
ns_bad() { # IFACE SRCADDR TARGET HLIM
	nsx "$h1" python3 - "$@" <<'PY'
import socket, struct, sys
ifc, src, tgt, hl = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifc, 0))
me = s.getsockname()[4][:6]
a_src = socket.inet_pton(socket.AF_INET6, src)
a_tgt = socket.inet_pton(socket.AF_INET6, tgt)
a_dst = bytes.fromhex("ff0200000000000000000001ff") + a_tgt[13:]
icmp = struct.pack("!BBHI", 135, 0, 0, 0) + a_tgt + bytes([1, 1]) + me
ph = a_src + a_dst + struct.pack("!I3xB", len(icmp), 58)
t = sum(struct.unpack("!%dH" % ((len(ph) + len(icmp)) // 2), ph + icmp))
while t >> 16:
	t = (t & 0xffff) + (t >> 16)
icmp = icmp[:2] + struct.pack("!H", ~t & 0xffff) + icmp[4:]
ip = struct.pack("!IHBB", 6 << 28, len(icmp), 58, hl) + a_src + a_dst
s.send(b"\x33\x33" + a_dst[12:] + me + b"\x86\xdd" + ip + icmp)
PY
}
ndrop() { fctl drops | awk -v r="$1" '$1 == r { print $2 }'; }
before=$(ndrop nd_hop_limit)
check "an NS with hop limit 64 sent from h1" ns_bad eth0 "$H1A" $P1::1 64
check "... refused and counted (nd_hop_limit $before -> more)" wait_until 3 \
	bash -c "[[ \$('$tools/fwdctl' '$run' drops | awk '\$1 == \"nd_hop_limit\" { print \$2 }') -gt ${before:-0} ]]"
before=$(ndrop nd_hop_limit)
check "the same NS with hop limit 255: taken, not counted" bash -c \
	"$(declare -f nsx ns_bad); h1='$h1'; ns_bad eth0 '$H1A' $P1::1 255 && sleep 0.5 &&
	 [[ \$('$tools/fwdctl' '$run' drops | awk '\$1 == \"nd_hop_limit\" { print \$2 }') == ${before:-0} ]]"

# the same on AF_XDP ports (the interfaces switched in place: re-attached,
# ND starts again on them): multicast NS/RS/RA reach the AF_XDP sockets
if [[ ${T6ND_XDP:-1} == 1 ]]; then
	BK=xdp
	check "xdp: r1 and r2 switched to AF_XDP" bash -c \
		"'$tools/fwdctl' '$run' if r1 $P1::1/64 ra on ra-mtu 1400 ra-interval 10 backend xdp >/dev/null &&
		 '$tools/fwdctl' '$run' if r2 $P2::1/64 backend xdp >/dev/null"
	check "xdp: tern's addresses in use again after DAD" wait_until 5 bash -c \
		"'$tools/fwdctl' '$run' interfaces | grep '^r1 ' | grep -q ' $P1::1/64 .*ll $R1LL' &&
		 '$tools/fwdctl' '$run' interfaces | grep '^r2 ' | grep -q ' $P2::1/64 '"
	check "xdp: h1 pings h2 through tern (tern resolves both again)" \
		wait_until 8 nsx "$h1" ping -6 -c 1 -W 1 -I "$H1A" $P2::2
	check "xdp: tern has h2 again, with its MAC" wait_until 8 bash -c \
		"'$tools/fwdctl' '$run' neigh6 | grep '^$P2::2 ' | grep -q 'mac $H2MAC'"
	check "xdp: h1 still routes via tern's link-local (RAs on AF_XDP)" \
		wait_until 5 bash -c "ip -n '$h1' -6 route show default | grep -q 'via $R1LL'"
fi

# DAD: h2 has $P2::2 already
check "r2 given $P2::2 too (h2's)" bash -c \
	"'$tools/fwdctl' '$run' if r2 $P2::1/64 $P2::2/64 backend \$BK >/dev/null"
check "tern refuses it: duplicate (DAD)" wait_until 5 bash -c \
	"'$tools/fwdctl' '$run' interfaces | grep '^r2 ' | grep -q 'duplicate $P2::2'"
check "... logged with the interface and h2's MAC" wait_until 3 grep -q \
	"r2: IPv6 address $P2::2/64 is in use by another node ($H2MAC): refused" \
	"$tmp/fwd.log"
check "... and $P2::1 still in use, h2 still reachable" bash -c \
	"'$tools/fwdctl' '$run' interfaces | grep '^r2 ' | grep -q ' $P2::1/64' &&
	 ip netns exec '$h2' ping -6 -c 1 -W 1 $P2::1 >/dev/null"

# the final RA: RAs off, then on again and tern-fwd stopping
check "RAs off on r1" r1cfg off
check "h1 drops its default route at once (final RA, lifetime 0)" \
	wait_until 3 bash -c "! ip -n '$h1' -6 route show default | grep -q 'via $R1LL'"
check "RAs on again" r1cfg on
check "... h1's default route back (an RA at once)" wait_until 5 bash -c \
	"ip -n '$h1' -6 route show default | grep -q 'via $R1LL'"
kill -TERM "$fwd"
wait "$fwd"
rc=$?
fwd=
check "tern-fwd SIGTERM: exit 0 (got $rc)" test $rc = 0
check "h1 drops its default route when tern-fwd stops (final RA)" \
	wait_until 3 bash -c "! ip -n '$h1' -6 route show default | grep -q 'via $R1LL'"
check "no error in fwd's log" bash -c "! grep -qi ': err' '$tmp/fwd.log'"
((fail > 0)) && tail -n 40 "$tmp/fwd.log"
check_summary test_fwd_nd
