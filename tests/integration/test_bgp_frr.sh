#!/usr/bin/env bash
# tests/integration/test_bgp_frr.sh: interop with FRR 8.4 (issue 21): the
# whole router (rtrmgr with mgmt, rib, fwd and bgp in namespaces), FRR's
# bgpd + zebra in the client namespace as an eBGP neighbour (AS 65002) and
# a second FRR in the server namespace as an iBGP neighbour (AS 65001),
# over fwd's host path; tern configured through mgmt only. What
# test_bgp_routes.sh does with BIRD: sessions Established on both sides;
# routes both ways with the attributes each side expects (the client's
# 198.18.60.0/24 with MED 60 and community 65002:60 in rib, the FIB and at
# the server with both kept and tern as next hop; the server's
# 198.18.70.0/24 at the client with AS path 65001 65100, tern's address as
# next hop and no MED); traffic both ways; withdrawals both ways; FRR's
# `clear bgp soft in` (a ROUTE-REFRESH, which tern does not act on yet)
# keeps the session; FRR stopped with SIGSTOP: tern's hold timer (3 s)
# expires and says so, SIGCONT and the session comes back; kill -9
# tern-bgp: FRR as graceful restart helper keeps tern's routes stale, a
# ping through tern loses nothing, the new tern-bgp re-syncs and FRR's
# routes are fresh again.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary bgp-frr
	exit 0
fi
frr_dir=${FRR_DIR:-/usr/lib/frr}
if [[ ! -x $frr_dir/bgpd || ! -x $frr_dir/zebra ]] || ! command -v vtysh >/dev/null ||
    ! id frr >/dev/null 2>&1; then
	nok "frr installed (scripts/deps.sh installs it)"
	check_summary bgp-frr
	exit 1
fi
py=$(command -v /usr/bin/python3 || command -v python3)
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "bf$$"
tmp=$(mktemp -d /tmp/tern-bf.XXXXXX)
chmod 755 "$tmp"
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
pids=()     # everything we started but rtrmgr, by pid
declare -A bgpd # WHO -> bgpd's pid
cleanup() {
	local p i f
	if ((fail > 0)); then
		for f in "$tmp/run/bgp.log" "$tmp/frr-c/bgpd.log" "$tmp/frr-s/bgpd.log"; do
			[[ -f $f ]] && { echo "--- $f"; tail -n 25 "$f"; }
		done
	fi
	# a stopped bgpd takes no TERM; bgpd before its zebra
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
		for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	# zebra installs routes through kernel nexthop objects: none may
	# outlive it (the namespaces go too, but not if another holds them)
	for ns in "$NS_CLIENT" "$NS_SERVER"; do
		ip -n "$ns" nexthop flush >/dev/null 2>&1
	done
	router_stop; netns_cleanup; rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_topo_create || { echo "topology failed"; exit 1; }
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib, fwd and bgp running" router_wait_running 30

C=$NETNS_CLIENT_IP S=$NETNS_SERVER_IP
# ---- FRR ----
# Each instance has its own directory for config, pid files, zebra's
# socket and the vty sockets (vtysh --vty_socket); its daemons run as user
# frr, so the directory is frr's. bgpd + zebra as FRR runs: zebra tracks
# the next hops (without it bgpd takes none as reachable) and installs the
# best routes in the namespace's kernel.
frr_conf() { # WHO ROUTER_ID AS PEER PEER_AS then BODY on stdin
	local d=$tmp/frr-$1
	mkdir -p "$d"
	cat >"$d/zebra.conf" <<CONF
hostname frr-$1
log file $d/zebra.log informational
CONF
	# the neighbour and graceful restart debugs say what FRR made of
	# tern's OPEN (printed below); no route-map delay, so that no
	# ROUTE-REFRESH goes out but the one asked for
	{
		cat <<CONF
hostname frr-$1
log file $d/bgpd.log debugging
debug bgp neighbor-events
debug bgp graceful-restart
bgp route-map delay-timer 0
CONF
		cat
		cat <<CONF
router bgp $3
 bgp router-id $2
 no bgp network import-check
 neighbor $4 remote-as $5
 neighbor $4 timers connect 2
 neighbor $4 advertisement-interval 0
CONF
	} >"$d/bgpd.conf"
	chown -R frr:frr "$d"
	chmod 755 "$d"
}
. "$root/tests/lib/frr.sh"
vconf() { # WHO AS CMD...: in router bgp AS, address-family ipv4 unicast
	vt "$1" "configure terminal" "router bgp $2" "address-family ipv4 unicast" "${@:3}" >/dev/null
}
# a path's field at WHO: fpath WHO PREFIX EXPR (p = the first path)
fpath() {
	vt "$1" "show bgp ipv4 unicast $2 json" | jget "(lambda p: $3)(j['paths'][0])"
}

# the client (AS 65002) announces 198.18.60.0/24, MED 60, community
# 65002:60; route maps both ways (FRR's RFC 8212 default too)
frr_conf c "$C" 65002 "$NETNS_RTR_C_IP" 65001 <<CONF
route-map SET60 permit 10
 set metric 60
 set community 65002:60
!
route-map ALL permit 10
!
CONF
cat >>"$tmp/frr-c/bgpd.conf" <<CONF
 address-family ipv4 unicast
  network 198.18.60.0/24 route-map SET60
  neighbor $NETNS_RTR_C_IP route-map ALL in
  neighbor $NETNS_RTR_C_IP route-map ALL out
 exit-address-family
CONF
# the server (AS 65001, iBGP) announces 198.18.70.0/24 from AS 65100
# behind it, MED 70, community 65001:70
frr_conf s "$S" 65001 "$NETNS_RTR_S_IP" 65001 <<CONF
route-map SET70 permit 10
 set as-path prepend 65100
 set metric 70
 set community 65001:70
!
CONF
cat >>"$tmp/frr-s/bgpd.conf" <<CONF
 address-family ipv4 unicast
  network 198.18.70.0/24 route-map SET70
 exit-address-family
CONF
nsx "$NS_CLIENT" ip addr add 198.18.60.1/32 dev lo
nsx "$NS_SERVER" ip addr add 198.18.70.1/32 dev lo
check "FRR started in the client namespace" start_frr c "$NS_CLIENT"
check "FRR started in the server namespace" start_frr s "$NS_SERVER"
frr_up() { vt "$1" "show bgp ipv4 unicast summary json" | jget "j['as']" >/dev/null; }
check "both bgpds answer vtysh" wait_until 10 eval 'frr_up c && frr_up s'
reach60() { nsx "$NS_SERVER" ping -c 1 -W 1 198.18.60.1 >/dev/null 2>&1; }
reach70() { nsx "$NS_CLIENT" ping -c 1 -W 1 198.18.70.1 >/dev/null 2>&1; }
check "before BGP: no way from the server to 198.18.60.1" sh -c "! ip netns exec $NS_SERVER ping -c 1 -W 1 198.18.60.1 >/dev/null 2>&1"

# ---- tern, through mgmt only ----
out=$(rsh configure "set protocols bgp local-as 65001" \
	"set protocols bgp router-id 198.18.1.1" \
	"set policy-options policy-statement ALL then accept" \
	"set protocols bgp neighbor $C remote-as 65002" \
	"set protocols bgp neighbor $C import ALL" \
	"set protocols bgp neighbor $C export ALL" \
	"set protocols bgp neighbor $C hold-time 3" \
	"set protocols bgp neighbor $C graceful-restart" \
	"set protocols bgp neighbor $S remote-as 65001" \
	"set protocols bgp neighbor $S next-hop-self" \
	"set protocols bgp neighbor $S graceful-restart" \
	commit exit 2>&1)
check "bgp config committed" grep -q "commit complete" <<<"$out"

est() { [[ $(rsh "show bgp summary" 2>/dev/null | grep -c Established) == 2 ]]; }
check "tern: both sessions Established" wait_until 40 est
frr_est() { [[ $(fnbr c "$NETNS_RTR_C_IP" "n['bgpState']") == Established &&
    $(fnbr s "$NETNS_RTR_S_IP" "n['bgpState']") == Established ]]; }
check "FRR: both sessions Established" wait_until 10 frr_est
est || { rsh "show bgp summary"; tail -n 20 "$tmp/run/bgp.log" "$tmp/frr-c/bgpd.log"; }
out=$(fnbr c "$NETNS_RTR_C_IP" "[n['bgpTimerHoldTimeMsecs'], n['neighborCapabilities'].get('gracefulRestart', ''), n['neighborCapabilities'].get('routeRefresh', '')]")
check "FRR: hold time 3 s, graceful restart and route refresh both ways ($out)" \
    grep -q '3000, "advertisedAndReceived", "advertisedAndReceived' <<<"$out"
# FRR sends the server's route back to tern, where it came from (FRR
# leaves loops to the receiver unless sender-as-path-loop-detection is
# on): 65002 65001 65100 has our AS, so received but not accepted
one_each() { local o; o=$(rsh "show bgp summary" 2>/dev/null)
	grep -q "^$C .*Established .* 2/1/1$" <<<"$o" && grep -q "^$S .*Established .* 1/1/1$" <<<"$o"; }
check "tern summary: client 2 received (1 a loop), 1 accepted, 1 advertised; server 1/1/1" wait_until 10 one_each
one_each || { rsh "show bgp summary"; vt c "show bgp ipv4 unicast neighbors $NETNS_RTR_C_IP advertised-routes"; }
check "tern summary header: 3 paths, 2 prefixes with a best path" \
	sh -c "TERN_RUNDIR=$ROUTER_RUNDIR timeout 20 $ROUTER_BIN/ternsh -c 'show bgp summary' | grep -q 'local AS 65001: 3 paths, 2 prefixes with a best path'"

# the client's route: rib, FIB, traffic; passed on to the server as iBGP
# expects (MED and community kept, LOCAL_PREF, tern as next hop)
# show route: prefix, source, distance/metric, next hop, ifindex, state
rt_line() { rsh "show route $1" 2>/dev/null | awk -v p="$1" '$1 == p && $2 == "bgp"'; }
route_via() { rt_line "$1" | awk -v nh="$2" '$4 == nh { f = 1 } END { exit !f }'; }
in_fib_via() { rsh "show fib $1" 2>/dev/null | grep -q "$2"; }
check "rib: 198.18.60.0/24 from bgp via the client" wait_until 20 route_via 198.18.60.0/24 "$C"
out=$(rsh "show route 198.18.60.0/24")
check "rib: source bgp, distance 170" grep -qi "bgp.*170\|170.*bgp" <<<"$out"
check "fwd: the FIB points 198.18.60.0/24 to the client" wait_until 10 in_fib_via 198.18.60.0/24 "$C"
check "ping from the server reaches 198.18.60.1 behind the client" wait_until 10 reach60
s60() { fpath s 198.18.60.0/24 "[p['aspath']['string'], p.get('metric'), p['community']['string'], p.get('locPrf'), p['nexthops'][0]['ip'], p['valid']]"; }
want60="['65002', 60, '65002:60', 100, '$NETNS_RTR_S_IP', true]"
want60=${want60//\'/\"}
check "the server hears 198.18.60.0/24: AS path 65002, MED 60, community 65002:60, local-pref 100, next hop tern" \
    wait_until 10 eval '[[ $(s60) == "$want60" ]]'
echo "     (server: $(s60))"

# the server's route: rib, FIB, traffic; at the client as eBGP expects
check "rib: 198.18.70.0/24 from bgp via the server" wait_until 20 route_via 198.18.70.0/24 "$S"
check "fwd: the FIB points 198.18.70.0/24 to the server" wait_until 10 in_fib_via 198.18.70.0/24 "$S"
c70() { fpath c 198.18.70.0/24 "[p['aspath']['string'], p.get('metric'), p['community']['string'], p['nexthops'][0]['ip'], p['valid']]"; }
want70="['65001 65100', null, '65001:70', '$NETNS_RTR_C_IP', true]"
want70=${want70//\'/\"}
check "the client hears 198.18.70.0/24: AS path 65001 65100, no MED (RFC 4271 5.1.4), community 65001:70, next hop tern" \
    wait_until 10 eval '[[ $(c70) == "$want70" ]]'
echo "     (client: $(c70))"
check "... and the client does not hear its own route back" sh -c "! timeout 10 vtysh --vty_socket $tmp/frr-c -d bgpd -c 'show bgp ipv4 unicast neighbors $NETNS_RTR_C_IP routes' | grep -q 198.18.60.0"
check "ping from the client reaches 198.18.70.1 behind the server" wait_until 10 reach70

# ---- withdrawals both ways ----
vconf c 65002 "no network 198.18.60.0/24"
gone() { [[ -z $(rt_line "$1") ]]; }
check "the client withdraws 198.18.60.0/24: gone from rib" wait_until 10 gone 198.18.60.0/24
check "... from the FIB" wait_until 10 eval '! in_fib_via 198.18.60.0/24 "$C"'
check "... and from the server (tern withdrew it)" wait_until 10 eval '! fpath s 198.18.60.0/24 "1" >/dev/null'
check "... and traffic stops" sh -c "! ip netns exec $NS_SERVER ping -c 1 -W 1 198.18.60.1 >/dev/null 2>&1"
vconf c 65002 "network 198.18.60.0/24 route-map SET60"
check "announced again: rib and FIB" wait_until 10 in_fib_via 198.18.60.0/24 "$C"
check "... traffic too" wait_until 10 reach60
vconf s 65001 "no network 198.18.70.0/24"
check "the server withdraws 198.18.70.0/24: gone from rib" wait_until 10 gone 198.18.70.0/24
check "... and tern withdraws it from the client" wait_until 10 eval '! fpath c 198.18.70.0/24 "1" >/dev/null'
vconf s 65001 "network 198.18.70.0/24 route-map SET70"
check "announced again: the client hears it again" wait_until 10 eval '[[ $(c70) == "$want70" ]]'

# ---- FRR's soft reset inbound: a ROUTE-REFRESH to tern ----
# tern announces the route refresh capability but does not act on the
# message yet (docs/bgp.md): the session must stay; whether tern sends
# its routes again is printed, not checked
flaps() { rsh "show bgp neighbor $1" | sed -n 's/.*, \([0-9]*\) flaps*.*/\1/p'; }
flaps0=$(flaps "$C")
rr0=$(fnbr c "$NETNS_RTR_C_IP" "n['messageStats']['routeRefreshSent']")
upd0=$(fnbr c "$NETNS_RTR_C_IP" "n['messageStats']['updatesRecv']")
vt c "clear bgp ipv4 unicast $NETNS_RTR_C_IP soft in" >/dev/null
rr_sent() { [[ $(fnbr c "$NETNS_RTR_C_IP" "n['messageStats']['routeRefreshSent']") -gt ${rr0:-0} ]]; }
wait_until 5 rr_sent
rr1=$(fnbr c "$NETNS_RTR_C_IP" "n['messageStats']['routeRefreshSent']")
check "FRR sent a ROUTE-REFRESH (clear bgp soft in: sent ${rr0:-?} -> ${rr1:-?})" test "${rr1:-0}" -gt "${rr0:-0}"
sleep 2
check "... tern keeps the session (flaps ${flaps0:-?} -> $(flaps "$C"))" test -n "$flaps0" -a "$(flaps "$C")" = "$flaps0"
check "... FRR too" eval '[[ $(fnbr c "$NETNS_RTR_C_IP" "n[\"bgpState\"]") == Established ]]'
check "... and both keep the routes" eval '[[ $(c70) == "$want70" ]] && route_via 198.18.60.0/24 "$C"'
more_upd() { [[ $(fnbr c "$NETNS_RTR_C_IP" "n['messageStats']['updatesRecv']") -gt ${upd0:-0} ]]; }
check "... tern answered the ROUTE-REFRESH with its routes (RFC 2918; UPDATEs from tern ${upd0:-?} -> more)" wait_until 5 more_upd

# ---- hold timer: FRR's bgpd stopped ----
kill -STOP "${bgpd[c]}"
c_up() { rsh "show bgp neighbor $C" 2>/dev/null | grep -q "state Established"; }
check "bgpd stopped: tern's session goes down within the hold time" wait_until 6 eval '! c_up'
out=$(rsh "show bgp neighbor $C")
check "... last error: 4/0 Hold Timer Expired ($(sed -n 's/.*last error: //p' <<<"$out"))" \
    grep -qi "last error: sent NOTIFICATION 4/0 (hold timer expired)" <<<"$out"
check "... its route leaves rib" wait_until 5 gone 198.18.60.0/24
kill -CONT "${bgpd[c]}"
check "SIGCONT: the session is Established again" wait_until 30 est
check "... FRR says so too" wait_until 10 frr_est
check "... and the route is back in the FIB" wait_until 10 in_fib_via 198.18.60.0/24 "$C"
check "... the client hears 198.18.70.0/24 again" wait_until 10 eval '[[ $(c70) == "$want70" ]]'

# ---- kill -9 tern-bgp: FRR as graceful restart helper ----
bpid=$(router_pid bgp)
check "bgp's pid known" test -n "$bpid"
# (-O: each lost echo says so; an async command ignores SIGINT, so no
# summary: it ends with TERM and the lines are counted)
ip netns exec "$NS_SERVER" ping -O -i 0.05 -W 1 -w 100 198.18.60.1 >"$tmp/ping.out" 2>&1 &
ping_pid=$!
pids+=("$ping_pid")
sleep 1
kill -9 "$bpid"
stale_logged() { grep -q "source bgp went away: [1-9][0-9]* routes stale" "$tmp/run/rib.log"; }
check "rib keeps tern-bgp's routes as stale" wait_until 5 stale_logged
c_stale() { [[ $(fpath c 198.18.70.0/24 "p.get('stale', False)") == true ]]; }
s_stale() { [[ $(fpath s 198.18.60.0/24 "p.get('stale', False)") == true ]]; }
check "the client's FRR keeps 198.18.70.0/24 from tern, stale" wait_until 5 c_stale
c_stale || vt c "show bgp ipv4 unicast 198.18.70.0/24" "show bgp neighbors $NETNS_RTR_C_IP graceful-restart"
check "the server's FRR keeps 198.18.60.0/24 from tern, stale" wait_until 5 s_stale
new_bgp() { local p; p=$(router_pid bgp); [[ -n $p && $p != "$bpid" ]]; }
check "rtrmgr started a new tern-bgp" wait_until 20 new_bgp
check "sessions Established again (tern)" wait_until 40 est
check "... and FRR" wait_until 10 frr_est
stale() { rt_line "$1" | grep -q " stale$"; }
fresh() { route_via 198.18.60.0/24 "$C" && ! stale 198.18.60.0/24 && route_via 198.18.70.0/24 "$S" && ! stale 198.18.70.0/24; }
check "rib: the routes are fresh again (End-of-RIB from FRR, resync done)" wait_until 30 fresh
c_fresh() { [[ $(fpath c 198.18.70.0/24 "[p.get('stale', False), p['aspath']['string'], p['nexthops'][0]['ip']]") == "[false, \"65001 65100\", \"$NETNS_RTR_C_IP\"]" ]]; }
check "the client's FRR has 198.18.70.0/24 fresh from the new tern-bgp" wait_until 20 c_fresh
check "the server's FRR has 198.18.60.0/24 fresh" wait_until 10 eval '[[ $(fpath s 198.18.60.0/24 "p.get(\"stale\", False)") == false ]]'
# what FRR read in the new tern-bgp's graceful restart capability: the
# Restart State bit set (RFC 4724 4.1)
check "FRR saw the R bit in the new tern-bgp's OPEN ($(grep -o "$NETNS_RTR_C_IP Peer has.*" "$tmp/frr-c/bgpd.log" | tail -n 1))" \
	sh -c "grep -o '$NETNS_RTR_C_IP Peer has.*' '$tmp/frr-c/bgpd.log' | tail -n 1 | grep -q 'Peer has restarted'"
sleep 0.5
kill "$ping_pid" 2>/dev/null; wait "$ping_pid" 2>/dev/null
got=$(grep -c "bytes from" "$tmp/ping.out")
lost=$(grep -c "no answer yet" "$tmp/ping.out")
check "no ping lost across the restart ($got answered, $lost lost)" test "$got" -gt 20 -a "$lost" = 0
check "tern-bgp's log has no error" sh -c "! grep -i 'error\|fatal' $tmp/run/bgp.log"
grep -i 'error\|fatal' "$tmp/run/bgp.log" | head -5
check "FRR's bgpds are alive" eval 'kill -0 ${bgpd[c]} && kill -0 ${bgpd[s]}'

# ---- RFC 8538: graceful restart through a NOTIFICATION ----
# The client's FRR as restarting speaker too (IPv4 unicast listed) with
# its N bit (FRR's default), and its `clear` sent as a plain Cease/
# Administrative Reset (no hard-administrative-reset): tern keeps its
# routes stale through it. With the Hard Reset (FRR's default) they go.
vt c "configure terminal" "router bgp 65002" "bgp graceful-restart" \
	"no bgp hard-administrative-reset" >/dev/null
vt c "clear bgp ipv4 unicast $NETNS_RTR_C_IP" >/dev/null
caps_n() { rsh "show bgp neighbor $C" | grep -q "graceful-restart-notification"; }
check "RFC 8538: tern sees the client's N bit (capabilities list graceful-restart-notification)" wait_until 30 caps_n
check "... the session is Established" wait_until 30 est
check "... FRR read tern's N bit ($(grep -o "$NETNS_RTR_C_IP Peer has.*" "$tmp/frr-c/bgpd.log" | tail -n 1))" \
	sh -c "grep -o '$NETNS_RTR_C_IP Peer has.*' '$tmp/frr-c/bgpd.log' | tail -n 1 | grep -qi 'N-bit set: yes'"
check "... 198.18.60.0/24 fresh in the FIB via the client" wait_until 20 eval 'in_fib_via 198.18.60.0/24 "$C" && ! stale 198.18.60.0/24'
kept0=$(grep -c "neighbor $C: graceful restart: .* paths kept stale" "$tmp/run/bgp.log")
ip netns exec "$NS_SERVER" ping -O -i 0.05 -W 1 -w 100 198.18.60.1 >"$tmp/ping2.out" 2>&1 &
ping_pid=$!
pids+=("$ping_pid")
sleep 1
vt c "clear bgp ipv4 unicast $NETNS_RTR_C_IP" >/dev/null
kept() { [[ $(grep -c "neighbor $C: graceful restart: .* paths kept stale" "$tmp/run/bgp.log") -gt ${kept0:-0} ]]; }
check "a Cease/Administrative Reset from FRR: tern keeps the client's paths stale (RFC 8538)" wait_until 10 kept
out=$(rsh "show bgp neighbor $C")
check "... its last error is the NOTIFICATION received, 6/4 ($(sed -n 's/.*last error: //p' <<<"$out"))" \
	grep -q "last error: received NOTIFICATION 6/4" <<<"$out"
check "... back: Established, 198.18.60.0/24 fresh again (FRR's End-of-RIB)" wait_until 30 eval 'est && route_via 198.18.60.0/24 "$C" && ! stale 198.18.60.0/24'
sleep 0.5
kill "$ping_pid" 2>/dev/null; wait "$ping_pid" 2>/dev/null
got=$(grep -c "bytes from" "$tmp/ping2.out")
lost=$(grep -c "no answer yet" "$tmp/ping2.out")
check "... no ping lost through it ($got answered, $lost lost)" test "$got" -gt 20 -a "$lost" = 0
# FRR's default: its clear is a Hard Reset, the Administrative Reset inside
vt c "configure terminal" "router bgp 65002" "bgp hard-administrative-reset" >/dev/null
kept1=$(grep -c "neighbor $C: graceful restart: .* paths kept stale" "$tmp/run/bgp.log")
vt c "clear bgp ipv4 unicast $NETNS_RTR_C_IP" >/dev/null
hard() { rsh "show bgp neighbor $C" | grep -q "last error: received NOTIFICATION Hard Reset 6/9 of 6/4"; }
check "a Hard Reset from FRR: tern says so (received NOTIFICATION Hard Reset 6/9 of 6/4)" wait_until 10 hard
check "... and keeps nothing stale (the paths are removed)" test "$(grep -c "neighbor $C: graceful restart: .* paths kept stale" "$tmp/run/bgp.log")" = "$kept1"
check "... back: Established, the route in rib again" wait_until 30 eval 'est && route_via 198.18.60.0/24 "$C"'
# tern's own clear (Administrative Reset) goes as a Hard Reset: FRR drops
# tern's routes instead of keeping them stale
hr0=$(grep -c "Hard Reset" "$tmp/frr-c/bgpd.log")
rsh "clear bgp neighbor $C" >/dev/null 2>&1
frr_hard() { [[ $(grep -c "Hard Reset" "$tmp/frr-c/bgpd.log") -gt ${hr0:-0} ]]; }
check "tern's clear bgp neighbor: FRR logs a Hard Reset received" wait_until 10 frr_hard
grep "Hard Reset" "$tmp/frr-c/bgpd.log" | tail -n 1 | sed 's/^/     /'
check "... back: Established" wait_until 30 est

check_summary bgp-frr
