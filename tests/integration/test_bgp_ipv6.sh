#!/usr/bin/env bash
# tests/integration/test_bgp_ipv6.sh: IPv6 unicast (RFC 4760, 2545) in
# tern-bgp against FRR 8.4 (issue 21; docs/bgp.md "IPv6 unicast"): tern-bgp
# and tern-rib in one namespace, an FRR (bgpd + zebra) in each of two
# others, over veth pairs the kernel owns (a test of BGP, not of fwd's
# IPv6 data path), every session on IPv4 transport carrying IPv6 NLRI, as
# FRR and BIRD labs do. A (AS 65002) announces two IPv6 prefixes with MED
# and a community; B (AS 65003) one. Checked: Established with AFI 2
# negotiated on both sides; A's prefixes in tern-bgp with their attributes
# and next hop, and in tern-rib; passed on to B with tern's local-address6
# as next hop and AS path 65001 65002; B's at A likewise; a withdrawal
# leaves tern-bgp, tern-rib and B; a route refresh from B (clear soft in)
# keeps the session; an IPv4-only neighbour config has no IPv6 at all.
# With BIRD 2 as C (AS 65004, same shape): its prefix in tern-bgp and
# tern-rib with its global next hop, A's at BIRD with tern's local-address6,
# AS path and community, BIRD's withdrawal reaching FRR A.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
tools=$root/build/tests/tools
. "$root/tests/lib/check.sh"
name=bgp-ipv6
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary $name
	exit 0
fi
frr_dir=${FRR_DIR:-/usr/lib/frr}
if [[ ! -x $frr_dir/bgpd || ! -x $frr_dir/zebra ]] || ! command -v vtysh >/dev/null ||
    ! id frr >/dev/null 2>&1; then
	nok "frr installed (scripts/deps.sh installs it)"
	check_summary $name
	exit 1
fi
py=$(command -v /usr/bin/python3 || command -v python3)

sfx=$$
T=t6bg-t-$sfx A=t6bg-a-$sfx B=t6bg-b-$sfx C=t6bg-c-$sfx
TA=198.19.64.1 AA=198.19.64.2 # tern - A, 198.19.64.0/28
TB=198.19.64.17 BB=198.19.64.18 # tern - B, 198.19.64.16/28
TA6=2001:2:0:401::1 AA6=2001:2:0:401::2
TB6=2001:2:0:402::1 BB6=2001:2:0:402::2
TC=198.19.64.33 CC=198.19.64.34 # tern - C (BIRD 2), 198.19.64.32/28
TC6=2001:2:0:403::1 CC6=2001:2:0:403::2
PC1=2001:2:0:4c0::/64
PA1=2001:2:0:4a0::/64 PA2=2001:2:0:4a1::/64 PB1=2001:2:0:4b0::/64
tmp=$(mktemp -d /tmp/tern-t6bg.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
mkdir -p "$run"
pids=()
declare -A bgpd
cleanup() {
	local p i f
	if ((fail > 0)); then
		echo "--- ribctl show 6"; "$tools/ribctl" "$run" show 6 2>&1 | head -20
		grep -h "rib" "$tmp/bgp.log" | tail -n 10
		for f in "$tmp/rib.log" "$tmp/bgp.log" "$tmp/frr-a/bgpd.log" "$tmp/frr-b/bgpd.log"; do
			[[ -f $f ]] && { echo "--- $f"; tail -n ${TAIL:-30} "$f"; }
		done
	fi
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
		for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for ns in "$A" "$B"; do ip -n "$ns" nexthop flush >/dev/null 2>&1; done
	ip netns del "$T" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	ip netns del "$C" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# the whole test in 150 s at most
( sleep 150 && { echo "FAIL $name: timed out"; kill -TERM $$; } ) 2>/dev/null &
pids+=($!)

ip netns add "$T" && ip netns add "$A" && ip netns add "$B" && ip netns add "$C" ||
	{ echo "FAIL namespaces"; exit 1; }
ip link add ta0 netns "$T" type veth peer name at0 netns "$A"
ip link add tb0 netns "$T" type veth peer name bt0 netns "$B"
ip link add tc0 netns "$T" type veth peer name ct0 netns "$C"
for ns in "$T" "$A" "$B" "$C"; do
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1
done
ip -n "$T" addr add $TA/28 dev ta0
ip -n "$T" addr add $TB/28 dev tb0
ip -n "$T" addr add $TA6/64 dev ta0 nodad
ip -n "$T" addr add $TB6/64 dev tb0 nodad
ip -n "$A" addr add $AA/28 dev at0
ip -n "$A" addr add $AA6/64 dev at0 nodad
ip -n "$B" addr add $BB/28 dev bt0
ip -n "$B" addr add $BB6/64 dev bt0 nodad
ip -n "$T" addr add $TC/28 dev tc0
ip -n "$T" addr add $TC6/64 dev tc0 nodad
ip -n "$C" addr add $CC/28 dev ct0
ip -n "$C" addr add $CC6/64 dev ct0 nodad
for l in "$T ta0" "$T tb0" "$T tc0" "$A at0" "$B bt0" "$C ct0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done

# ---- FRR: bgpd + zebra per instance (zebra tracks next hops: without it
# bgpd takes none as reachable), each with its own directory
frr_conf() { # WHO ROUTER_ID AS PEER PEER_AS, then the AF blocks on stdin
	local d=$tmp/frr-$1
	mkdir -p "$d"
	cat >"$d/zebra.conf" <<CONF
hostname frr-$1
log file $d/zebra.log informational
CONF
	{
		cat <<CONF
hostname frr-$1
log file $d/bgpd.log debugging
debug bgp neighbor-events
debug bgp updates in
bgp route-map delay-timer 0
route-map ALL permit 10
!
route-map SET60 permit 10
 set metric 60
 set community 65002:60
!
router bgp $3
 bgp router-id $2
 no bgp network import-check
 no bgp default ipv4-unicast
 neighbor $4 remote-as $5
 neighbor $4 timers 1 3
 neighbor $4 timers connect 2
 neighbor $4 advertisement-interval 0
 address-family ipv4 unicast
  neighbor $4 activate
  neighbor $4 route-map ALL in
  neighbor $4 route-map ALL out
 exit-address-family
CONF
		cat
	} >"$d/bgpd.conf"
	chown -R frr:frr "$d"
	chmod 755 "$d"
}
. "$root/tests/lib/frr.sh"

frr_conf a $AA 65002 $TA 65001 <<CONF
 address-family ipv6 unicast
  network $PA1 route-map SET60
  network $PA2
  neighbor $TA activate
  neighbor $TA route-map ALL in
  neighbor $TA route-map ALL out
 exit-address-family
CONF
frr_conf b $BB 65003 $TB 65001 <<CONF
 address-family ipv6 unicast
  network $PB1
  neighbor $TB activate
  neighbor $TB route-map ALL in
  neighbor $TB route-map ALL out
 exit-address-family
CONF
check "FRR A started" start_frr a "$A"
check "FRR B started" start_frr b "$B"

# ---- BIRD 2 as C (AS 65004): IPv4 session with an ipv4 and an ipv6
# channel, without extended next hop; BIRD takes its interface's global
# IPv6 address as next hop
have_bird=false
if command -v bird >/dev/null && command -v birdc >/dev/null; then
	have_bird=true
	cat >"$tmp/bird.conf" <<CONF
log "$tmp/bird.log" all;
router id $CC;
protocol device { scan time 1; }
protocol direct { ipv6; interface "ct0"; }
protocol static s6 { ipv6; route $PC1 blackhole; }
protocol bgp tern {
	local $CC as 65004;
	neighbor $TC as 65001;
	hold time 3; keepalive time 1;
	connect delay time 1; connect retry time 2; error wait time 1, 3;
	ipv4 { import all; export none; };
	ipv6 { import all; export where proto = "s6"; };
}
CONF
	ip netns exec "$C" bird -f -c "$tmp/bird.conf" -s "$tmp/bird.ctl" \
		-P "$tmp/bird.pid" >>"$tmp/bird.out" 2>&1 &
	pids+=($!)
	check "BIRD C started" wait_until 5 test -S "$tmp/bird.ctl"
fi
birdc_() { timeout 5 birdc -s "$tmp/bird.ctl" "$@" 2>/dev/null; }
NC="$CC,65004,hold=3,retry=1,import=ALL,export=ALL,v6,nh6=$TC6"

# ---- tern-bgp and tern-rib
ip netns exec "$T" "$bin/tern-rib" --rundir "$run" >>"$tmp/rib.log" 2>&1 &
pids+=($!)
wait_until 5 test -S "$run/rib.sock" || { echo "FAIL tern-rib did not start"; cat "$tmp/rib.log"; exit 1; }
ip netns exec "$T" "$bin/tern-bgp" --rundir "$run" --log-level debug >>"$tmp/bgp.log" 2>&1 &
pids+=($!)
wait_until 5 test -S "$run/bgp.sock" || { echo "FAIL tern-bgp did not start"; cat "$tmp/bgp.log"; exit 1; }
ctl() { "$tools/bgpctl" "$run" "$@"; }
rib6() { "$tools/ribctl" "$run" show 6 2>/dev/null; }

check "config: A and B with IPv4 and IPv6 unicast, local-address6 each" \
	ctl config 65001 198.19.64.1 "$AA,65002,hold=3,retry=1,import=ALL,export=ALL,v6,nh6=$TA6" \
	"$BB,65003,hold=3,retry=1,import=ALL,export=ALL,v6,nh6=$TB6" $NC
check "a local-address6 that is link-local is refused" \
	bash -c "! '$tools/bgpctl' '$run' config 65001 198.19.64.1 '$AA,65002,v6,nh6=fe80::1' 2>/dev/null"
check "tern: A Established" ctl wait $AA Established 20
check "tern: B Established" ctl wait $BB Established 20
nb() { ctl neighbors "$1"; }
out=$(nb $AA)
check "A: families 3/3 (IPv4 and IPv6 unicast negotiated) ($out)" has "$out" "families 3/3 "
check "A: its OPEN had mp-ipv6-unicast" has "$out" "mp-ipv6-unicast"
out=$(fnbr a $TA "n['neighborCapabilities']['multiprotocolExtensions']['ipv6Unicast']")
check "FRR A: IPv6 unicast advertised and received ($out)" grep -q "advertisedAndReceived" <<<"$out"
out=$(fnbr b $TB "n['neighborCapabilities']['multiprotocolExtensions']['ipv6Unicast']")
check "FRR B: IPv6 unicast advertised and received ($out)" grep -q "advertisedAndReceived" <<<"$out"

# ---- A's prefixes in tern-bgp and tern-rib
p6() { nb "$1" | sed -n 's/.* prefixes6 \([0-9]*\/[0-9]*\/[0-9]*\) .*/\1/p'; }
p6_is() { [[ $(p6 "$1") == "$2" ]]; }
# received: A's 2, and B's (and C's) that FRR sends back (it leaves loops
# to the receiver): not accepted, our AS is in their path
if $have_bird; then want=4/2/2 after=3/1/2; else want=3/2/1 after=2/1/1; fi
check "A: IPv6 prefixes received/accepted/advertised $want" wait_until 10 p6_is $AA $want
r=$(ctl routes6 $PA1)
check "$PA1 in tern-bgp: best from A, next hop A's global ($r)" has "$r" "^$PA1 best from $AA nh $AA6"
check "... AS path 65002, MED 60, community 65002:60" has "$r" 'path "65002" med 60 lp 100 comm 65002:60 '
r=$(ctl routes6 $PA2)
check "$PA2 in tern-bgp, FRR's MED 0, no community ($r)" has "$r" "^$PA2 best from $AA nh $AA6[, ].*med 0 .*comm - "
# without tern-fwd rib has no connected routes (it learns interfaces from
# fwd) and cannot resolve the next hops: the routes are there, unresolved
inrib() { rib6 | grep -q "^$1 bgp best [01] via $2%0 "; }
check "$PA1 in tern-rib from bgp via $AA6" wait_until 5 inrib $PA1 $AA6
check "$PA2 in tern-rib" wait_until 5 inrib $PA2 $AA6
check "$PB1 in tern-rib via $BB6" wait_until 5 inrib $PB1 $BB6

# ---- passed on: at B with tern's IPv6 next hop, and B's at A
fpath() { # WHO PREFIX EXPR (p: the first path)
	vt "$1" "show bgp ipv6 unicast $2 json" | jget "(lambda p: $3)(j['paths'][0])"
}
atb() { [[ -n $(fpath b $PA1 "p['aspath']['string']") ]]; }
check "FRR B has $PA1" wait_until 10 atb
out=$(fpath b $PA1 "[p['aspath']['string'], p['nexthops'][0]['ip']]")
check "... AS path 65001 65002, next hop tern's local-address6 $TB6 ($out)" has "$out" "\"65001 65002\", \"$TB6\""
out=$(fpath b $PA1 "p.get('metric', 'none')")
check "... no MED across AS borders (RFC 4271 5.1.4) ($out)" has "$out" "none"
out=$(fpath b $PA1 "p['community']['string']")
check "... community 65002:60 kept ($out)" has "$out" "65002:60"
ata() { [[ -n $(fpath a $PB1 "p['aspath']['string']") ]]; }
check "FRR A has $PB1" wait_until 10 ata
out=$(fpath a $PB1 "[p['aspath']['string'], p['nexthops'][0]['ip']]")
check "... AS path 65001 65003, next hop $TA6 ($out)" has "$out" "\"65001 65003\", \"$TA6\""
out=$(fpath a $PB1 "p['valid']")
check "... valid at A (zebra resolves the next hop)" has "$out" "true"

# ---- withdrawal
vt a "configure terminal" "router bgp 65002" "address-family ipv6 unicast" "no network $PA2" >/dev/null
gone_bgp() { [[ -z $(ctl routes6 $PA2) ]]; }
check "A withdraws $PA2: gone from tern-bgp" wait_until 10 gone_bgp
gone_rib() { ! rib6 | grep -q "^$PA2 "; }
check "... and from tern-rib" wait_until 5 gone_rib
gone_b() { [[ -z $(fpath b $PA2 "p['aspath']['string']") ]]; }
check "... and from FRR B" wait_until 10 gone_b
check "... $PA1 stays in tern-rib" inrib $PA1 $AA6
check "A: $after now ($(p6 $AA))" p6_is $AA $after

# ---- route refresh for IPv6 (RFC 2918) from B: no reset
before=$(vt b "show bgp neighbors $TB json" | jget "j['$TB']['messageStats']['updatesRecv']")
vt b "clear bgp ipv6 unicast $TB soft in" >/dev/null
moreupd() { local n; n=$(vt b "show bgp neighbors $TB json" | jget "j['$TB']['messageStats']['updatesRecv']"); ((n > before)); }
check "B's ROUTE-REFRESH for IPv6 answered with the routes again" wait_until 10 moreupd
check "... the session stays (no flap)" has "$(nb $BB)" " flaps 0 "

# ---- clear: the session reset and back, both families again
ctl clear $BB >/dev/null 2>&1 || true
check "clear (hard): B back Established" ctl wait $BB Established 20
check "... B's prefix back in tern-rib" wait_until 10 inrib $PB1 $BB6

# ---- an IPv4-only neighbour: no IPv6 negotiated, its IPv6 routes go
check "config: B IPv4 unicast only" ctl config 65001 198.19.64.1 \
	"$AA,65002,hold=3,retry=1,import=ALL,export=ALL,v6,nh6=$TA6" \
	"$BB,65003,hold=3,retry=1,import=ALL,export=ALL" $NC
check "B: Established again" ctl wait $BB Established 20
v4only() { has "$(nb $BB)" "families 1/1 "; }
check "B: families 1/1 (no IPv6 in our OPEN)" wait_until 10 v4only
gone_pb() { ! rib6 | grep -q "^$PB1 "; }
check "B's IPv6 prefix left tern-rib" wait_until 10 gone_pb
out=$(fnbr b $TB "n['neighborCapabilities']['multiprotocolExtensions']['ipv6Unicast']")
check "FRR B: IPv6 unicast only advertised now ($out)" grep -qv "advertisedAndReceived" <<<"$out"
check "A still Established, no flap" has "$(nb $AA)" "Established .* flaps 0 "

# ---- A IPv6 only (family inet6 unicast alone): no IPv4 unicast at all
check "config: A IPv6 unicast only" ctl config 65001 198.19.64.1 \
	"$AA,65002,hold=3,retry=1,import=ALL,export=ALL,v6only,nh6=$TA6" \
	"$BB,65003,hold=3,retry=1,import=ALL,export=ALL" $NC
v6only() { has "$(nb $AA)" "Established .* families 2/2 "; }
check "A: Established again with families 2/2" wait_until 20 v6only
out=$(fnbr a $TA "n['neighborCapabilities']['multiprotocolExtensions']")
check "FRR A: IPv6 unicast both ways, IPv4 unicast advertised only ($out)" \
	grep -q '"ipv4Unicast": {"advertised": true}, "ipv6Unicast": {"advertisedAndReceived": true}' <<<"$out"
check "... $PA1 back in tern-rib" wait_until 10 inrib $PA1 $AA6

# ---- BIRD 2
if $have_bird; then
	check "tern: BIRD C Established" ctl wait $CC Established 20
	check "C: families 3/3" has "$(nb $CC)" "families 3/3 "
	fromc() { has "$(ctl routes6 $PC1)" "^$PC1 best from $CC nh $CC6"; }
	check "BIRD's $PC1 in tern-bgp with BIRD's global next hop" wait_until 10 fromc
	fromc || ctl routes6 $PC1
	check "... and in tern-rib via $CC6" wait_until 5 inrib $PC1 $CC6
	bird_has() { birdc_ show route $PA1 all | grep -q "BGP.next_hop: $TC6"; }
	check "BIRD has $PA1 with tern's local-address6 $TC6 as next hop" wait_until 10 bird_has
	out=$(birdc_ show route $PA1 all)
	bird_has || echo "$out"
	check "... AS path 65001 65002 at BIRD" grep -q "BGP.as_path: 65001 65002" <<<"$out"
	check "... community (65002,60) at BIRD" grep -q "BGP.community: (65002,60)" <<<"$out"
	birdc_ disable s6 >/dev/null
	gone_c() { [[ -z $(ctl routes6 $PC1) ]]; }
	check "BIRD withdraws $PC1: gone from tern-bgp" wait_until 10 gone_c
	at_a() { vt a "show bgp ipv6 unicast $PC1" | grep -q 65004; }
	check "... and from FRR A" wait_until 10 eval '! at_a'
else
	echo "skipped: BIRD 2 part (no bird)"
fi

check_summary $name
