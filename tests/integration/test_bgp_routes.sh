#!/usr/bin/env bash
# tests/integration/test_bgp_routes.sh: BGP routes through the whole router
# (rtrmgr with mgmt, rib, fwd and bgp in namespaces): BIRD 2 in the client
# and in the server namespace, each an iBGP neighbour of tern over fwd's
# host path, both announce 198.18.50.0/24; the server's path is shorter, so
# tern's best path, rib and fwd's FIB point to the server and a ping from
# the client reaches 198.18.50.1 behind it. The server's route withdrawn:
# the client's becomes best. kill -9 tern-bgp: rib keeps the routes for
# the graceful restart time (traffic flows), the new tern-bgp learns them
# again and the stale ones are swept only after End-of-RIB. Then show bgp
# route, received-routes and advertised-routes against what BIRD sent.
# Then tern as the graceful restart helper (RFC 4724 4.2): kill -9 the
# server's BIRD: its path kept stale and used (no ping lost), BIRD started
# again with its forwarding state (-R): the stale path goes at its
# End-of-RIB; killed again and not started: the path goes once its restart
# time (8 s) is over, the client's takes over. Last, multipath: the server
# back and a second iBGP BIRD beside it (198.18.2.3) with the same path:
# `multipath 2` installs both next hops in rib and the FIB; a blackhole for
# the second's address makes its next hop unreachable in rib, and its path
# unused; `multipath 1` one again, no session reset.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary bgp-routes
	exit 0
fi
if ! command -v bird >/dev/null || ! command -v birdc >/dev/null; then
	nok "bird2 installed (scripts/deps.sh installs it)"
	check_summary bgp-routes
	exit 1
fi
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"
netns_init "br$$"
tmp=$(mktemp -d /tmp/tern-br.XXXXXX)
chmod 755 "$tmp"
router_init "$tmp/run" "$tmp/state" "${TERN_BIN:-$root/build/bin}"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	router_stop; netns_cleanup; rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_topo_create || { echo "topology failed"; exit 1; }
router_start || { echo "router did not start"; cat "$tmp/state/rtrmgr.out"; exit 1; }
check "mgmt, rib, fwd and bgp running" router_wait_running 30

# BIRD: WHO ME PEER PREPEND AS (65001: iBGP with tern)
bird_conf() {
	cat <<CONF
log "$tmp/bird-$1.log" all;
router id $2;
protocol device { scan time 1; }
protocol static net50 { ipv4; route 198.18.50.0/24 blackhole; }
protocol bgp tern {
	local $2 as $5;
	neighbor $3 as 65001;
	strict bind yes;
	hold time 9; keepalive time 3;
	check link no;
	connect delay time 1; connect retry time 2; error wait time 1, 5;
	graceful restart on;
	graceful restart time 8;
	ipv4 {
		import all;
		next hop self;
		export filter { if net = 198.18.50.0/24 then { bgp_path.prepend(65100); $4 accept; } reject; };
	};
}
CONF
}
start_bird() { # NS WHO [-R: graceful restart recovery, forwarding kept]
	ip netns exec "$1" bird ${3:-} -f -c "$tmp/bird-$2.conf" -s "$tmp/bird-$2.ctl" \
		-P "$tmp/bird-$2.pid" >>"$tmp/bird-$2.out" 2>&1 &
	pids+=($!)
}
# AS 65100 behind both (not ours: a path with 65001 in it is a loop); the
# client's path two ASes longer
bird_conf c "$NETNS_CLIENT_IP" "$NETNS_RTR_C_IP" "bgp_path.prepend(65100); bgp_path.prepend(65100);" 65002 >"$tmp/bird-c.conf"
bird_conf s "$NETNS_SERVER_IP" "$NETNS_RTR_S_IP" "" 65001 >"$tmp/bird-s.conf"
nsx "$NS_SERVER" ip addr add 198.18.50.1/32 dev lo
start_bird "$NS_CLIENT" c
start_bird "$NS_SERVER" s

out=$(rsh configure "set protocols bgp local-as 65001" \
	"set protocols bgp router-id 198.18.1.1" \
	"set policy-options policy-statement ALL then accept" \
	"set protocols bgp neighbor $NETNS_CLIENT_IP remote-as 65002" \
	"set protocols bgp neighbor $NETNS_CLIENT_IP import ALL" \
	"set protocols bgp neighbor $NETNS_CLIENT_IP export ALL" \
	"set protocols bgp neighbor $NETNS_SERVER_IP remote-as 65001" \
	"set protocols bgp neighbor $NETNS_SERVER_IP graceful-restart" \
	"set protocols bgp neighbor $NETNS_CLIENT_IP graceful-restart" \
	commit exit 2>&1)
check "bgp config committed" grep -q "commit complete" <<<"$out"

est() { [[ $(rsh "show bgp summary" 2>/dev/null | grep -c Established) == 2 ]]; }
check "both sessions Established" wait_until 40 est
one_each() { [[ $(rsh "show bgp summary" | grep -c 'Established .* 1/1/[0-9]*$') == 2 ]]; }
check "summary: each neighbour 1 prefix received, 1 accepted" wait_until 10 one_each
route_via() { rsh "show route 198.18.50.0/24" 2>/dev/null | grep -q "$1"; }
in_fib_via() { rsh "show fib 198.18.50.0/24" 2>/dev/null | grep -q "$1"; }
check "rib: 198.18.50.0/24 from bgp via the server" wait_until 20 route_via "$NETNS_SERVER_IP"
route_via "$NETNS_SERVER_IP" || { rsh "show route" "show bgp neighbor"; tail -n 20 "$tmp/run/bgp.log" "$tmp/run/rib.log"; }
out=$(rsh "show route 198.18.50.0/24")
check "rib: source bgp, distance 170" grep -qi "bgp.*170\|170.*bgp" <<<"$out"
check "fwd: the FIB points to the server" wait_until 10 in_fib_via "$NETNS_SERVER_IP"
# tern advertises the server's route (iBGP) to the client (eBGP, export
# ALL): our AS prepended, our address as next hop, End-of-RIB after it
bc() { timeout 5 birdc -s "$tmp/bird-c.ctl" "$@" 2>/dev/null; }
adv_ok() { bc show route 198.18.50.0/24 protocol tern all | grep -q "BGP.as_path: 65001 65100$"; }
check "the client hears 198.18.50.0/24 from tern with AS path 65001 65100" wait_until 10 adv_ok
check "... next hop tern's address" sh -c "timeout 5 birdc -s $tmp/bird-c.ctl show route 198.18.50.0/24 protocol tern all | grep -q 'BGP.next_hop: $NETNS_RTR_C_IP'"
check "... and not back to the server (iBGP to iBGP)" sh -c "! timeout 5 birdc -s $tmp/bird-s.ctl show route protocol tern | grep -q 198.18.50.0/24"
reach50() { nsx "$NS_CLIENT" ping -c 1 -W 1 198.18.50.1 >/dev/null 2>&1; }
check "ping from the client reaches 198.18.50.1 behind the server" wait_until 10 reach50

# the server withdraws: the client's longer path is best now
timeout 5 birdc -s "$tmp/bird-s.ctl" disable net50 >/dev/null
check "withdrawn: rib follows the client's path" wait_until 20 route_via "$NETNS_CLIENT_IP"
check "... and so does the FIB" wait_until 10 in_fib_via "$NETNS_CLIENT_IP"
timeout 5 birdc -s "$tmp/bird-s.ctl" enable net50 >/dev/null
check "announced again: the server's path again" wait_until 20 in_fib_via "$NETNS_SERVER_IP"
check "... traffic too" wait_until 10 reach50

# an import policy on the client's session (local-preference 200 beats the
# shorter path) applies at commit, without a reset: the flap count stays
flaps() { rsh "show bgp neighbor $NETNS_CLIENT_IP" | sed -n 's/.*, \([0-9]*\) flaps.*/\1/p'; }
flaps0=$(flaps)
out=$(rsh configure "set policy-options prefix-list N50 198.18.50.0/24" \
	"set policy-options policy-statement PREF term t1 from prefix-list N50" \
	"set policy-options policy-statement PREF term t1 then local-preference 200" \
	"set policy-options policy-statement PREF term t1 then accept" \
	"set policy-options policy-statement PREF then accept" \
	"set protocols bgp neighbor $NETNS_CLIENT_IP import PREF" commit exit 2>&1)
check "import policy committed" grep -q "commit complete" <<<"$out"
check "the client's path wins on local-preference" wait_until 10 in_fib_via "$NETNS_CLIENT_IP"
check "... without a session reset (flaps ${flaps0:-?} -> $(flaps))" test -n "$flaps0" -a "$(flaps)" = "$flaps0"
out=$(rsh configure "set policy-options policy-statement PREF term t1 then local-preference 50" commit exit 2>&1)
check "a changed policy alone applies too" wait_until 10 in_fib_via "$NETNS_SERVER_IP"
out=$(rsh configure "set protocols bgp neighbor $NETNS_CLIENT_IP import ALL" "delete policy-options policy-statement PREF" "delete policy-options prefix-list N50" commit exit 2>&1)
check "policy removed" grep -q "commit complete" <<<"$out"
check "... the server's path stays best" wait_until 10 in_fib_via "$NETNS_SERVER_IP"
check "... still no reset" test "$(flaps)" = "$flaps0"

# clear soft: tern sends its routes again and asks the client for its own
# (ROUTE-REFRESH, RFC 2918), no reset
upd_in() { rsh "show bgp neighbor $NETNS_CLIENT_IP" | sed -n 's/.*messages: in [0-9]* (\([0-9]*\) updates).*/\1/p'; }
bird_imp() { bc show protocols all tern | awk '/Import updates:/ { print $3; exit }'; }
u0=$(upd_in); i0=$(bird_imp)
out=$(rsh "clear bgp neighbor $NETNS_CLIENT_IP soft" 2>&1)
check "clear bgp neighbor soft: accepted" test $? = 0
more_in() { [[ $(upd_in) -gt ${u0:-0} ]]; }
more_bird() { [[ $(bird_imp) -gt ${i0:-0} ]]; }
check "... the client sent its routes again (updates in ${u0:-?} -> more)" wait_until 10 more_in
check "... tern sent its routes again (BIRD's import updates ${i0:-?} -> more)" wait_until 10 more_bird
check "... without a reset" test "$(flaps)" = "$flaps0"

# kill -9 tern-bgp: rib keeps its routes (grace), traffic flows; the new
# tern-bgp learns them again
bpid=$(router_pid bgp)
check "bgp's pid known" test -n "$bpid"
# (-O: each lost echo says so; an async command ignores SIGINT, so no
# summary: it ends with TERM and the lines are counted)
ip netns exec "$NS_CLIENT" ping -O -i 0.05 -W 1 -w 120 198.18.50.1 >"$tmp/ping.out" 2>&1 &
ping_pid=$!
pids+=("$ping_pid")
sleep 1
kill -9 "$bpid"
# (the stale time can be shorter than a show: rib's log says it)
stale_logged() { grep -q "source bgp went away: [1-9][0-9]* routes stale for 120000 ms" "$tmp/run/rib.log"; }
check "rib keeps tern-bgp's routes as stale for the restart time" wait_until 5 stale_logged
sleep 0.2
check "BIRD (graceful restart helper) keeps tern's route meanwhile" adv_ok
adv_ok || { bc show route 198.18.50.0/24 all; bc show protocols all tern | head -30; tail -n 15 "$tmp/bird-c.log"; }
stale() { rsh "show route 198.18.50.0/24" 2>/dev/null | grep -qi "stale"; }
new_bgp() { local p; p=$(router_pid bgp); [[ -n $p && $p != "$bpid" ]]; }
check "rtrmgr started a new tern-bgp" wait_until 20 new_bgp
check "sessions Established again" wait_until 40 est
fresh() { route_via "$NETNS_SERVER_IP" && ! stale; }
check "the route is fresh again (End-of-RIB, resync done)" wait_until 30 fresh
check "the client hears it from the new tern-bgp" wait_until 10 adv_ok
sleep 0.5
kill "$ping_pid" 2>/dev/null; wait "$ping_pid" 2>/dev/null
got=$(grep -c "bytes from" "$tmp/ping.out")
lost=$(grep -c "no answer yet" "$tmp/ping.out")
check "no ping lost across the restart ($got answered, $lost lost)" test "$got" -gt 20 -a "$lost" = 0
check "tern-bgp's log has no error" sh -c "! grep -i 'error\|fatal' $tmp/run/bgp.log"

# show bgp route / received-routes / advertised-routes (QUERY_ROUTES): the
# server's path best, the client's with why it lost; what each neighbour
# sent as received; what the client is sent (our AS in front)
two_paths() { rsh "show bgp route 198.18.50.0/24" 2>/dev/null | grep -q "^198.18.50.0/24: 2 paths"; }
check "show bgp route 198.18.50.0/24: two paths" wait_until 10 two_paths
out=$(rsh "show bgp route 198.18.50.0/24" 2>&1)
check "... the server's is best (marked *)" grep -q "^  \* $NETNS_SERVER_IP (AS 65001, iBGP, .*): best$" <<<"$out"
check "... the client's lost on a longer AS path" grep -q "^  + $NETNS_CLIENT_IP (AS 65002, eBGP, .*): not best: longer AS path$" <<<"$out"
check "... with its attributes" grep -q "AS path 65002 65100 65100 65100, origin IGP" <<<"$out"
grep -q "longer AS path" <<<"$out" || printf '%s\n' "$out"
out=$(rsh "show bgp route 198.18.50.1" 2>&1)
check "show bgp route 198.18.50.1: the longest match" grep -q "^198.18.50.0/24 (longest match for 198.18.50.1): 2 paths" <<<"$out"
out=$(rsh "show bgp route" 2>&1)
check "show bgp route: a table, 1 prefix, 2 paths" grep -q "^1 prefix, 2 paths$" <<<"$out"
check "... the best line" grep -q "^\*  198.18.50.0/24 *$NETNS_SERVER_IP .*65100 i$" <<<"$out"
nbest() {
	rsh "show bgp route 198.18.50.0/24 | json" | python3 -c "
import json, sys
r = json.load(sys.stdin)['routes'][0]
print(len(r['paths']), sum(p['best'] for p in r['paths']), r['paths'][1]['why'])"
}
check "... JSON: 2 paths, 1 best, the other's why" test "$(nbest 2>&1)" = "2 1 longer AS path"
out=$(rsh "show bgp neighbor $NETNS_CLIENT_IP advertised-routes" 2>&1)
check "advertised-routes to the client: AS path 65001 65100, next hop ours" grep -q "^   198.18.50.0/24 *$NETNS_RTR_C_IP .*65001 65100 i$" <<<"$out"
grep -q "65001 65100 i" <<<"$out" || printf '%s\n' "$out"
out=$(rsh "show bgp neighbor $NETNS_SERVER_IP advertised-routes" 2>&1)
check "... none to the server (its own path, iBGP)" grep -q "^no BGP routes advertised to $NETNS_SERVER_IP$" <<<"$out"
out=$(rsh "show bgp neighbor $NETNS_CLIENT_IP received-routes" 2>&1)
check "received-routes from the client: as received, imported" grep -q "^+  198.18.50.0/24 *$NETNS_CLIENT_IP .*65002 65100 65100 65100 i$" <<<"$out"
out=$(rsh "show bgp neighbor $NETNS_SERVER_IP received-routes 198.18.50.0/24" 2>&1)
check "received-routes from the server: imported, best" grep -q "^198.18.50.0/24: imported, best$" <<<"$out"

# tern helps the server's BIRD restart (RFC 4724 4.2)
spid=$(cat "$tmp/bird-s.pid" 2>/dev/null)
check "the server's BIRD pid known" test -n "$spid"
nbr_s() { rsh "show bgp neighbor $NETNS_SERVER_IP" 2>/dev/null; }
out=$(nbr_s)
check "show bgp neighbor: the server's restart time 8 s, none helped yet" grep -q "graceful restart: its restart time 8 s, forwarding state .*; 0 restarts helped" <<<"$out"
grep -q "restart time 8 s" <<<"$out" || printf '%s\n' "$out"
ip netns exec "$NS_CLIENT" ping -O -i 0.05 -W 1 -w 120 198.18.50.1 >"$tmp/ping2.out" 2>&1 &
ping_pid=$!
pids+=("$ping_pid")
sleep 0.5
kill -9 "$spid"
helping() { nbr_s | grep -q "graceful restart: helping: 1 stale path kept, [0-9]* s left"; }
check "the server's BIRD killed: tern helps (1 stale path kept)" wait_until 5 helping
helping || nbr_s
stale_path() { rsh "show bgp route 198.18.50.0/24" 2>/dev/null | grep -q "^  \* $NETNS_SERVER_IP .*: best, stale (graceful restart)$"; }
check "... the stale path is still best" stale_path
stale_path || rsh "show bgp route 198.18.50.0/24"
check "... and the FIB still points to the server" in_fib_via "$NETNS_SERVER_IP"
check "tern-bgp logged the kept paths" grep -q "neighbor $NETNS_SERVER_IP: graceful restart: 1 paths kept stale for up to 8 s" "$tmp/run/bgp.log"
start_bird "$NS_SERVER" s -R
check "BIRD back (-R): the session Established again" wait_until 20 est
eor_swept() { grep -q "neighbor $NETNS_SERVER_IP: graceful restart: End-of-RIB received: 0 stale paths removed (of 1 kept)" "$tmp/run/bgp.log"; }
check "... its End-of-RIB ends the helping, its path announced again (0 stale removed)" wait_until 20 eor_swept
eor_swept || grep "graceful restart" "$tmp/run/bgp.log"
fresh_s() { rsh "show bgp route 198.18.50.0/24" 2>/dev/null | grep -q "^  \* $NETNS_SERVER_IP .*: best$"; }
check "... the server's path is best and fresh" wait_until 10 fresh_s
out=$(nbr_s)
check "... show bgp neighbor: forwarding state kept, 1 restart helped" grep -q "graceful restart: its restart time 8 s, forwarding state kept; 1 restart helped" <<<"$out"
grep -q "1 restart helped" <<<"$out" || printf '%s\n' "$out"
sleep 0.5
kill "$ping_pid" 2>/dev/null; wait "$ping_pid" 2>/dev/null
got=$(grep -c "bytes from" "$tmp/ping2.out")
lost=$(grep -c "no answer yet" "$tmp/ping2.out")
check "no ping lost while the server's BIRD restarted ($got answered, $lost lost)" test "$got" -gt 20 -a "$lost" = 0
# killed again, not back: the stale path goes after its restart time
spid=$(cat "$tmp/bird-s.pid" 2>/dev/null)
t0=$(date +%s.%N)
kill -9 "$spid"
check "killed again: helping" wait_until 5 helping
check "... after its restart time the client's path is best" wait_until 15 in_fib_via "$NETNS_CLIENT_IP"
t1=$(date +%s.%N)
in_fib_via "$NETNS_CLIENT_IP" || { rsh "show bgp route 198.18.50.0/24"; rsh "show route 198.18.50.0/24"; rsh "show fib 198.18.50.0/24"; rsh "show bgp summary"; }
gone_logged() { grep -q "neighbor $NETNS_SERVER_IP: graceful restart: not back within its restart time: 1 stale paths removed" "$tmp/run/bgp.log"; }
check "... logged as not back within its restart time" gone_logged
took=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
check "... not before the 8 s restart time (${took} s)" python3 -c "import sys; sys.exit(0 if $t1 - $t0 >= 7.9 else 1)"
check "tern-bgp's log has no error (helper part)" sh -c "! grep -i 'error\|fatal' $tmp/run/bgp.log"

# multipath: two iBGP neighbours in AS 65001 with equal paths
S2_IP=198.18.2.3
nsx "$NS_SERVER" ip addr add "$S2_IP/24" dev "$NETNS_HOST_IF"
bird_conf s2 "$S2_IP" "$NETNS_RTR_S_IP" "" 65001 >"$tmp/bird-s2.conf"
start_bird "$NS_SERVER" s
start_bird "$NS_SERVER" s2
out=$(rsh configure "set protocols bgp neighbor $S2_IP remote-as 65001" \
	"set protocols bgp neighbor $S2_IP graceful-restart" commit exit 2>&1)
check "a second server neighbour committed" grep -q "commit complete" <<<"$out"
est3() { [[ $(rsh "show bgp summary" 2>/dev/null | grep -c Established) == 3 ]]; }
check "three sessions Established" wait_until 40 est3
two_s() { rsh "show bgp route 198.18.50.0/24" 2>/dev/null | grep -q "^198.18.50.0/24: 3 paths"; }
check "198.18.50.0/24: 3 paths" wait_until 10 two_s
fib_nhs() { rsh "show fib 198.18.50.0/24" 2>/dev/null | grep -c "198.18.2.[23] "; }
check "without multipath: one next hop in the FIB" test "$(fib_nhs)" = 1
fl0=$(rsh "show bgp neighbor $NETNS_SERVER_IP" | sed -n 's/.*, \([0-9]*\) flaps.*/\1/p')
out=$(rsh configure "set protocols bgp multipath 2" commit exit 2>&1)
check "multipath 2 committed" grep -q "commit complete" <<<"$out"
mp2() { [[ $(fib_nhs) == 2 ]]; }
mp1() { [[ $(fib_nhs) == 1 ]]; }
check "... the FIB holds both servers as next hops" wait_until 10 mp2
mp2 || { rsh "show fib 198.18.50.0/24"; rsh "show route 198.18.50.0/24"; }
out=$(rsh "show route 198.18.50.0/24" 2>&1)
both_in() { grep -q "$1" <<<"$out" && grep -q "$2" <<<"$out"; }
check "... rib too" both_in "$NETNS_SERVER_IP" "$S2_IP"
out=$(rsh "show bgp route 198.18.50.0/24" 2>&1)
check "... show bgp route marks one best, one multipath" both_in "^  \* .*: best$" "^  = .*: multipath, not best: "
grep -q "multipath" <<<"$out" || printf '%s\n' "$out"
# next-hop tracking: a blackhole for 198.18.2.3 in rib makes that next hop
# unreachable: its path is not used (quickly back: the session itself runs
# to that address)
out=$(rsh configure "set protocols static route $S2_IP/32 blackhole" commit exit 2>&1)
check "a blackhole for the second server's address committed" grep -q "commit complete" <<<"$out"
unreach() { rsh "show bgp route 198.18.50.0/24" 2>/dev/null | grep -q "^  + $S2_IP .*: not best: next hop unreachable$"; }
check "... its path: not best: next hop unreachable (rib's next-hop tracking)" wait_until 5 unreach
unreach || rsh "show bgp route 198.18.50.0/24"
check "... the FIB keeps only the first server" wait_until 5 mp1
out=$(rsh configure "delete protocols static route $S2_IP/32" commit exit 2>&1)
check "... blackhole deleted: both next hops again" wait_until 5 mp2
out=$(rsh configure "set protocols bgp multipath 1" commit exit 2>&1)
check "multipath 1: one next hop again" wait_until 10 mp1
fl1=$(rsh "show bgp neighbor $NETNS_SERVER_IP" | sed -n 's/.*, \([0-9]*\) flaps.*/\1/p')
check "... no session reset (flaps ${fl0:-?} -> ${fl1:-?})" test -n "$fl0" -a "$fl1" = "$fl0"
out=$(rsh configure "set protocols bgp multipath 65" 2>&1)
check "multipath 65 refused" grep -qi "1..64\|range" <<<"$out"

check_summary bgp-routes
