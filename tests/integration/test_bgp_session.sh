#!/usr/bin/env bash
# tests/integration/test_bgp_session.sh: tern-bgp's sessions (issue 21,
# docs/bgp.md) against BIRD 2 (Debian bird2) over a veth pair between two
# namespaces: tern-bgp in one (the kernel owns the link: this is a test of
# the BGP sessions, not of the host path), BIRD in the other. Established
# with the capabilities, keepalives within a short hold time, BIRD's
# routes arriving as UPDATEs, a peer AS mismatch answered with OPEN error
# 2/2, BIRD disabled and enabled (Cease, then back by the retry), clear,
# BIRD killed (hold timer expiry), passive, TCP MD5 matching and not,
# deconfiguration (Cease to BIRD). Skipped without BIRD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/build/bin
tools=$root/build/tests/tools
. "$root/tests/lib/check.sh"
name=bgp-session
if ! command -v bird >/dev/null || ! command -v birdc >/dev/null; then
	echo "skipped: no bird (Debian bird2)"
	echo "$name: 0 passed, 0 failed"
	exit 0
fi
[[ $(id -u) == 0 ]] || { echo "skipped: needs root"; echo "$name: 0 passed, 0 failed"; exit 0; }

sfx=$$
T=tern-bt-$sfx # tern-bgp's namespace
P=tern-bp-$sfx # BIRD's
TA=198.18.5.1
PA=198.18.5.2
tmp=$(mktemp -d /tmp/tern-bgp.XXXXXX)
run=$tmp/run
mkdir -p "$run"
pids=()
bgp_pid=

cleanup() {
	local p
	[[ -n ${guard:-} ]] && pkill -P "$guard" 2>/dev/null
	for p in "${pids[@]}" $bgp_pid; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}" $bgp_pid; do wait "$p" 2>/dev/null; done
	ip netns del "$T" 2>/dev/null
	ip netns del "$P" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# the whole test in 180 s at most
( sleep 180 && { echo "FAIL $name: timed out"; kill -TERM $$; } ) 2>/dev/null &
guard=$!
pids+=($guard)

ip netns add "$T" && ip netns add "$P" || { echo "FAIL namespaces"; exit 1; }
ip link add bt0 netns "$T" type veth peer name bp0 netns "$P"
ip -n "$T" addr add $TA/24 dev bt0
ip -n "$P" addr add $PA/24 dev bp0
ip -n "$T" link set lo up
ip -n "$P" link set lo up
ip -n "$T" link set bt0 up
ip -n "$P" link set bp0 up

bird_conf() { # PEER_AS_SEEN_BY_BIRD EXTRA
	cat >"$tmp/bird.conf" <<CONF
log "$tmp/bird.log" all;
router id $PA;
protocol device { scan time 1; }
protocol static nets { ipv4; route 198.19.1.0/24 blackhole; route 198.19.2.0/24 blackhole; route 198.19.3.0/24 blackhole; }
protocol bgp tern {
	local $PA as 65002;
	neighbor $TA as $1;
	hold time 3; keepalive time 1;
	connect delay time 1; connect retry time 2; error wait time 1, 3;
	$2
	ipv4 { import all; export all; };
}
CONF
}
start_bird() {
	ip netns exec "$P" bird -f -c "$tmp/bird.conf" -s "$tmp/bird.ctl" \
		-P "$tmp/bird.pid" >>"$tmp/bird.out" 2>&1 &
	bird_pid=$!
	pids+=($bird_pid)
	wait_until 5 test -S "$tmp/bird.ctl"
}
birdc_() { timeout 5 birdc -s "$tmp/bird.ctl" "$@" 2>/dev/null; }
bird_state() { birdc_ show protocols tern | awk '$1 == "tern" { print $6 }'; }
bird_est() { [[ $(bird_state) == Established ]]; }
bird_not_est() { ! bird_est; }
ctl() { "$tools/bgpctl" "$run" "$@"; }
nb() { ctl neighbors $PA; }
field() { nb | sed -n "s/.* $1 \([^ ]*\) .*/\1/p"; }
state_is() { nb | grep -q "^$PA as [0-9]* $1 "; }

ip netns exec "$T" "$bin/tern-bgp" --rundir "$run" --log-level debug >>"$tmp/bgp.log" 2>&1 &
bgp_pid=$!
wait_until 5 test -S "$run/bgp.sock" || { echo "FAIL tern-bgp did not start"; cat "$tmp/bgp.log"; exit 1; }

# ---- a session with BIRD
bird_conf 65001 ""
start_bird
check "config: local-as 65001, neighbor $PA as 65002" ctl config 65001 $TA $PA,65002,hold=3,retry=1
check "Established with BIRD" ctl wait $PA Established 15
check "... on BIRD's side too" wait_until 5 bird_est
out=$(nb)
check "capabilities as4, mp-ipv4-unicast, route-refresh ($out)" has "$out" "caps as4,mp-ipv4-unicast,route-refresh"
check "hold time 3 negotiated, keepalive 1" has "$out" "hold 3 keepalive 1 "
check "the identifier is BIRD's router id" has "$out" " id $PA "
updates() { nb | sed -n 's/.* updates \([0-9]*\)\/.*/\1/p'; }
updated() { (($(updates) >= 1)); }
check "BIRD's routes came as UPDATEs" wait_until 5 updated
pfx() { nb | sed -n 's/.* prefixes \([0-9]*\/[0-9]*\) .*/\1/p'; }
pfx_is() { [[ $(pfx) == "$1" ]]; }
check "BIRD's 3 routes in the Adj-RIB-In, none accepted without an import policy (RFC 8212) ($(pfx))" wait_until 5 pfx_is 3/0
birdc_ disable nets >/dev/null
check "BIRD withdraws them: 0 prefixes" wait_until 5 pfx_is 0/0
birdc_ enable nets >/dev/null
check "... and announces them again: 3" wait_until 5 pfx_is 3/0
sleep 4.5
check "still Established after 1.5 hold times (keepalives both ways)" state_is Established
check "... and on BIRD's side" bird_est
check "bgp.sock answers a neighbour it does not have with an error" bash -c "! '$tools/bgpctl' '$run' neighbors 198.18.5.9 2>/dev/null"

# ---- BIRD disables the session, then enables it
birdc_ disable tern >/dev/null
check "BIRD disabled: we leave Established" wait_until 5 bash -c "! '$tools/bgpctl' '$run' neighbors $PA | grep -q Established"
check "... told by a Cease NOTIFICATION ($(field error))" has "$(nb)" 'error "received NOTIFICATION 6/'
birdc_ enable tern >/dev/null
check "BIRD enabled: Established again (our retry)" ctl wait $PA Established 15
check "one flap counted" has "$(nb)" " flaps 1 "

# ---- clear
ctl clear $PA
check "clear: the session went down and came back" ctl wait $PA Established 15
check "... BIRD saw an administrative reset" grep -q "Received: Administrative reset" "$tmp/bird.log"

# ---- BIRD stopped (SIGSTOP: its socket stays open, it says nothing): the
# hold timer expires; then killed
kill -STOP "$bird_pid"
check "BIRD stopped: the hold timer (3 s) takes the session down" wait_until 6 bash -c "! '$tools/bgpctl' '$run' neighbors $PA | grep -q Established"
check "... last error: hold timer expired ($(field error))" has "$(nb)" "4/0 (Hold Timer Expired)"
kill -9 "$bird_pid"
kill -CONT "$bird_pid" 2>/dev/null
wait "$bird_pid" 2>/dev/null
check "... and we keep trying to connect (Active or Connect)" wait_until 3 bash -c "'$tools/bgpctl' '$run' neighbors $PA | grep -qE ' (Active|Connect) '"
check "... the last error stays the hold timer's, not the refused connects" has "$(nb)" "4/0 (Hold Timer Expired)"

# ---- a wrong AS: OPEN error 2/2
bird_conf 65009 ""
start_bird
check "BIRD expects AS 65009: no session" bash -c "sleep 3; ! '$tools/bgpctl' '$run' neighbors $PA | grep -q Established"
check "... it told us bad peer AS (2/2) ($(field error))" has "$(nb)" "NOTIFICATION 2/2"
kill "$bird_pid"; wait "$bird_pid" 2>/dev/null

# ---- passive: BIRD connects to us; TCP MD5 both sides
bird_conf 65001 'password "tern-md5-key";'
start_bird
check "passive with MD5 key: config" ctl config 65001 $TA $PA,65002,hold=3,passive,md5=tern-md5-key
check "passive + MD5: Established (BIRD connected to us)" ctl wait $PA Established 20
check "... on our port 179 ($(nb | sed -n 's/.* ports \([0-9/]*\) .*/\1/p'))" has "$(nb)" " ports 179/"
kill "$bird_pid"; wait "$bird_pid" 2>/dev/null
bird_conf 65001 'password "another-key";'
start_bird
ctl config 65001 $TA $PA,65002,hold=3,passive,md5=tern-md5-key
check "MD5 keys differ: never Established" bash -c "sleep 4; ! '$tools/bgpctl' '$run' neighbors $PA | grep -q Established"
check "... BIRD's side neither" bird_not_est

# ---- bad config: refused, nothing changed
out=$(ctl config 65001 $TA $PA,0 2>&1)
check "a neighbour without remote-as is refused ($out)" has "$out" "no remote-as"
out=$(ctl config 65001 $TA $PA,65002,hold=2 2>&1)
check "hold time 2 is refused" has "$out" "hold-time 2"
out=$(ctl config 65001 $TA $PA,65002,import=IN 2>&1)
check "an import policy that is not defined is refused" has "$out" "import IN: no such policy-statement"
check "... the neighbour is still configured" has "$(nb)" "^$PA as 65002 "

# ---- deconfigured: BIRD hears a Cease
kill "$bird_pid"; wait "$bird_pid" 2>/dev/null
bird_conf 65001 ""
start_bird
ctl config 65001 $TA $PA,65002,hold=3,retry=1
check "Established again without MD5" ctl wait $PA Established 15
ctl off
check "block deleted: BIRD leaves Established" wait_until 5 bird_not_est
check "... by a Cease (BIRD's log)" grep -qE "Received: (Administrative shutdown|Peer de-configured)" "$tmp/bird.log"
check "no neighbours left" test -z "$(ctl neighbors)"

kill "$bgp_pid"
wait "$bgp_pid"
rc=$?
bgp_pid=
check "tern-bgp exits cleanly on SIGTERM (rc $rc)" test "$rc" -eq 0
check "tern-bgp's log has no error" bash -c "! grep -E '\\[err\\]|ERROR|error:' '$tmp/bgp.log'"
[[ $fail -eq 0 ]] || { echo "--- bgp.log"; tail -40 "$tmp/bgp.log"; echo "--- bird.log"; tail -30 "$tmp/bird.log"; }
pkill -P "$guard" 2>/dev/null; kill "$guard" 2>/dev/null
check_summary "$name"
