#!/usr/bin/env bash
# tests/integration/test_hostpath.sh: tern-fwd's host path (issue 20,
# docs/hostpath.md) with the real tern-fwd and tern-mgmt in the namespaces
# of tests/lib/netns.sh: a TAP per port in the router ns (h-rc0, h-rs0) with
# the port's MAC, MTU, carrier and addresses and the kernel's connected
# routes; TCP and UDP to and from the router namespace's own sockets
# through fwd's ports; the kernel's ping through the host path while fwd
# still answers pings of its addresses; an eBGP session between BIRD 2 in
# the router ns and BIRD 2 in the client ns carrying 1,000 routes; kill -9
# of fwd: the TAPs stay, the next fwd adopts them (one per port), a TCP
# connection to the router and the BGP session survive; host path off and
# on for one interface through ternsh (`interfaces NAME host-path
# disable|enable`) and through fwd's IPC (fwdctl); the host-path counters
# count; a clean exit removes the TAPs and the tc drop. FWD_BACKEND=af_xdp
# runs it over AF_XDP ports (test_hostpath_xdp.sh); default af_packet.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
# shellcheck source=../lib/check.sh
. "$root/tests/lib/check.sh"
backend=${FWD_BACKEND:-af_packet}
case $backend in
af_packet) bk_ipc=afpacket want_bk=afpacket ;;
af_xdp) bk_ipc=xdp want_bk="xdp-(copy|zerocopy|generic)(/run)?" ;;
*) echo "FWD_BACKEND: af_packet or af_xdp, not '$backend'"; exit 2 ;;
esac
name=hostpath-$backend

if [[ $(id -u) != 0 ]] || ! ip netns list >/dev/null 2>&1 ||
    ! command -v python3 >/dev/null || ! command -v ping >/dev/null; then
	echo "test_hostpath: needs root, ip netns, python3 and ping: skipped"
	check_summary "$name"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-hp.XXXXXX)
run=$tmp/run
fwd_pid='' mgmt_pid=''
pids=() # everything else we start (echo servers, BIRDs, clients), by PID
# shellcheck source=../lib/netns.sh
. "$root/tests/lib/netns.sh"
netns_init "hp$$"
cleanup() {
	local p l
	if ((fail > 0)); then
		for l in fwd mgmt bird-r bird-c; do
			echo "--- last lines of $l's log"
			tail -n 20 "$tmp/$l.log" 2>/dev/null
		done
	fi
	# (bash would report each job killed here)
	exec 2>/dev/null
	# mgmt by SIGTERM first: it reaps its commit store's child, which a
	# kill -9 would leave to init (a zombie in our process group where
	# init does not reap at once)
	if [[ -n $mgmt_pid ]] && kill "$mgmt_pid" 2>/dev/null; then
		for _ in $(seq 60); do # until it is a zombie (ours to reap) or gone
			[[ $(ps -o stat= -p "$mgmt_pid") == @(Z*|) ]] && break
			sleep 0.05
		done
	fi
	for p in $fwd_pid $mgmt_pid "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "$tmp"/bird-*.pid; do
		[[ -f $p ]] && kill -9 "$(cat "$p")" 2>/dev/null
	done
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
echo_py=$root/tests/lib/echo.py
ctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
tsh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }
R=$NS_ROUTER C=$NS_CLIENT S=$NS_SERVER

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init hp$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; nok "namespaces"; check_summary "$name"; exit 1; }

start_fwd() {
	ip netns exec "$R" "$bin/tern-fwd" --rundir "$run" --log-level info \
		>>"$tmp/fwd.log" 2>&1 &
	fwd_pid=$!
	wait_until 10 ctl interfaces >/dev/null 2>&1 ||
		{ echo "tern-fwd did not start"; tail "$tmp/fwd.log"; return 1; }
}
# an echo server in namespace NS: PROTO ADDR PORT
serve() {
	local ns=$1 proto=$2 addr=$3 port=$4 ready=$tmp/ready.$1.$2.$4
	ip netns exec "$ns" python3 "$echo_py" serve "$proto" "$addr" "$port" \
		"$ready" >>"$tmp/echo.log" 2>&1 &
	pids+=($!)
	wait_until 5 test -e "$ready"
}
# NS PROTO ADDR PORT TEXT: the echo came back
echoed() {
	local out
	out=$(ip netns exec "$1" timeout 10 python3 "$echo_py" send "$2" "$3" "$4" "$5" 3 2>&1)
	[[ $out == "$5" ]] || { echo "     ($1 -> $3:$4/$2: $out)"; return 1; }
}
# the kernel's host interface: "MAC MTU FLAGS"
tap() {
	ip -n "$R" -o link show "$1" 2>/dev/null |
		sed -n 's/^[0-9]*: [^:]*: <\([^>]*\)> mtu \([0-9]*\) .* link\/ether \([0-9a-f:]*\) .*/\3 \2 \1/p'
}
taps_of() { ip -n "$R" -o link show 2>/dev/null | grep -c ": $1[:@]"; }
host_taps() { ip -n "$R" -d -o link show 2>/dev/null | grep -c "alias tern-fwd host path of "; }
# "UP DOWN" packets of PORT's host path (fwdctl interfaces)
host_ctr() {
	ctl interfaces | sed -n "s/^$1 .* host h-$1 up \([0-9]*\)\/[0-9]* down \([0-9]*\)\/.*/\1 \2/p"
}
icmp_in_echos() {
	ip netns exec "$R" awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 } else print $c }' /proc/net/snmp
}

# ---- tern-fwd and tern-mgmt; the interfaces committed as an operator would
start_fwd || exit 1
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
wait_until 10 test -S "$run/mgmt.sock" || { echo "tern-mgmt did not start"; exit 1; }
out=$(tsh -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces c0 port-backend $backend" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set interfaces s0 port-backend $backend" \
	-c commit)
check "commit: two interfaces on $backend" has "$out" "commit complete"
out=$(tsh -c "show interfaces")
check "show interfaces: c0 (rc0) on $backend" grep -qE "^c0 \(device rc0, .*backend $want_bk\$" <<<"$out"
check "show interfaces: s0 (rs0) on $backend" grep -qE "^s0 \(device rs0, .*backend $want_bk\$" <<<"$out"

# ---- (a) the TAPs mirror the ports
have_taps() { [[ -n $(tap h-rc0) && -n $(tap h-rs0) ]]; }
check "TAPs h-rc0 and h-rs0 in the router ns" wait_until 5 have_taps
for p in "rc0 $NETNS_RTR_C_MAC $NETNS_RTR_C_IP 198.18.1.0/24" "rs0 $NETNS_RTR_S_MAC $NETNS_RTR_S_IP 198.18.2.0/24"; do
	read -r port mac ip net <<<"$p"
	t=$(tap "h-$port")
	check "h-$port has $port's MAC ($t)" test "${t%% *}" = "$mac"
	check "h-$port: MTU 1500, up, carrier" grep -qE "^[^ ]+ 1500 .*LOWER_UP" <<<"$t"
	check "h-$port has $ip/24" has "$(ip -n "$R" -o -4 addr show dev "h-$port")" "inet $ip/24 "
	check "h-$port: the kernel's connected route" \
		has "$(ip -n "$R" route show dev "h-$port")" "^$net proto kernel scope link src $ip"
	check "$port itself has no address" test -z "$(ip -n "$R" -o -4 addr show dev "$port")"
	check "$port: tc ingress drop (the kernel stays off the port)" \
		has "$(tc -n "$R" filter show dev "$port" ingress 2>&1)" "bpf"
	check "h-$port: alias names the port" \
		has "$(ip -n "$R" -d -o link show "h-$port")" "alias tern-fwd host path of $port"
	check "fwdctl interfaces: $port's host path h-$port" has "$(ctl interfaces)" "^$port .* host h-$port up "
done
out=$(tsh -c configure -c "set interfaces c0 mtu 1400" -c commit)
mtu_is() { [[ $(tap h-rc0 | cut -d' ' -f2) == "$1" ]]; }
check "mtu 1400 committed: h-rc0's MTU follows" wait_until 3 mtu_is 1400
out=$(tsh -c configure -c "delete interfaces c0 mtu" -c commit)
check "mtu deleted: h-rc0 back to 1500" wait_until 3 mtu_is 1500
ip -n "$R" link set "$NETNS_RTR_C_IF" down
no_carrier() { tap h-rc0 | grep -q NO-CARRIER; }
carrier() { tap h-rc0 | grep -q LOWER_UP; }
check "rc0 down: h-rc0 loses its carrier" wait_until 3 no_carrier
ip -n "$R" link set "$NETNS_RTR_C_IF" up
check "rc0 up: h-rc0 has its carrier again" wait_until 3 carrier

# ---- (b)-(e) TCP, UDP and ICMP of the router namespace's kernel
serve "$R" tcp 0.0.0.0 7001 && serve "$R" udp 0.0.0.0 7002 &&
	serve "$C" tcp "$NETNS_CLIENT_IP" 7003 && serve "$C" udp "$NETNS_CLIENT_IP" 7004 ||
	nok "echo servers started"
check "TCP client ns -> router ns at $NETNS_RTR_C_IP" echoed "$C" tcp "$NETNS_RTR_C_IP" 7001 hello-tcp
check "TCP server ns -> router ns at $NETNS_RTR_S_IP" echoed "$S" tcp "$NETNS_RTR_S_IP" 7001 hello-rs0
check "TCP server ns -> the client-side address (up h-rs0)" echoed "$S" tcp "$NETNS_RTR_C_IP" 7001 far-side
check "TCP router ns -> client ns" echoed "$R" tcp "$NETNS_CLIENT_IP" 7003 from-router
check "the kernel resolved the client by ARP through the host path" \
	grep -qi "^$NETNS_CLIENT_IP lladdr $NETNS_CLIENT_MAC" <<<"$(ip -n "$R" neigh show dev h-rc0)"
check "UDP client ns -> router ns" echoed "$C" udp "$NETNS_RTR_C_IP" 7002 hello-udp
check "UDP router ns -> client ns" echoed "$R" udp "$NETNS_CLIENT_IP" 7004 udp-from-router
out=$(ip netns exec "$R" timeout 10 ping -c 3 -i 0.2 -W 2 "$NETNS_CLIENT_IP" 2>&1)
check "the kernel pings the client through the host path" has "$out" " 0% packet loss"
e0=$(icmp_in_echos)
out=$(ip netns exec "$C" timeout 10 ping -c 3 -i 0.2 -W 2 "$NETNS_RTR_C_IP" 2>&1)
check "the client pings the router's address" has "$out" " 0% packet loss"
check "... answered by fwd, not the kernel (InEchos $e0 -> $(icmp_in_echos))" test "$(icmp_in_echos)" = "$e0"

# ---- (b') bulk TCP both ways through the host path: 8 MB echoed intact,
# with the up path merging segments (fwd/fwd_host_gro.c)
coalesced() { ctl interfaces | sed -n 's/^rc0 .* coalesced \([0-9]*\)\/.*/\1/p'; }
co0=$(coalesced)
out=$(ip netns exec "$C" timeout 40 python3 "$echo_py" bulk "$NETNS_RTR_C_IP" 7001 8000000 30 2>&1)
check "bulk TCP: 8 MB to the router ns and back ($out)" has "$out" "echoed intact"
co1=$(coalesced)
check "... segments went up merged (coalesced ${co0:-?} -> ${co1:-?})" \
	test "${co1:-0}" -gt "${co0:-0}"

# ---- (i) the counters count
read -r up1 down1 <<<"$(host_ctr rc0)"
check "rc0 host path counted up ${up1:-?} and down ${down1:-?} packets" \
	test "${up1:-0}" -gt 0 -a "${down1:-0}" -gt 0

# ---- (f) eBGP between BIRD 2 in the router ns and BIRD 2 in the client ns
bird_conf() { # ME PEER MY_AS PEER_AS ROUTES WHO
	cat <<CONF
log "$tmp/bird-$6.log" all;
router id $1;
protocol device { scan time 1; }
CONF
	if (($5 > 0)); then
		echo "protocol static blackholes { ipv4;"
		for ((i = 0; i < $5; i++)); do
			echo "  route 198.19.$((i / 4)).$((i % 4 * 64))/26 blackhole;"
		done
		echo "}"
	fi
	cat <<CONF
protocol bgp peer {
	local $1 as $3;
	neighbor $2 as $4;
	hold time 9; keepalive time 3;
	debug { states, events };
	# BIRD shuts a direct session down when the link goes; the TAP loses
	# its carrier while no fwd has it open: without this, a kill -9 of fwd
	# would reset the session (which then comes back by itself, as the
	# host-path off/on below shows) instead of waiting within its hold time
	check link no;
	connect delay time 1; connect retry time 5; error wait time 1, 5;
	ipv4 { import $([[ $5 -gt 0 ]] && echo none || echo all); export $([[ $5 -gt 0 ]] && echo all || echo none); };
}
CONF
}
start_bird() { # NS WHO
	ip netns exec "$1" bird -f -c "$tmp/bird-$2.conf" -s "$tmp/bird-$2.ctl" \
		-P "$tmp/bird-$2.pid" >>"$tmp/bird-$2.out" 2>&1 &
	pids+=($!)
}
bgp_state() { timeout 5 birdc -s "$tmp/bird-r.ctl" show protocols peer 2>/dev/null | awk '$1 == "peer" { print $6 }'; }
bgp_since() { timeout 5 birdc -s "$tmp/bird-r.ctl" show protocols peer 2>/dev/null | awk '$1 == "peer" { print $5 }'; }
established() { [[ $(bgp_state) == Established ]]; }
# "N of N routes for N networks in table master4"
routes() { timeout 5 birdc -s "$tmp/bird-r.ctl" show route count 2>/dev/null | sed -n 's/^\([0-9]*\) of .* table master4$/\1/p'; }
routes_1000() { [[ $(routes) == 1000 ]]; }
if command -v bird >/dev/null && command -v birdc >/dev/null; then
	bird_conf "$NETNS_RTR_C_IP" "$NETNS_CLIENT_IP" 65001 65002 0 r >"$tmp/bird-r.conf"
	bird_conf "$NETNS_CLIENT_IP" "$NETNS_RTR_C_IP" 65002 65001 1000 c >"$tmp/bird-c.conf"
	start_bird "$R" r
	start_bird "$C" c
	t0=$SECONDS
	check "BGP session Established through the host path" wait_until 30 established
	check "1,000 routes arrived in the router's BIRD ($(routes) after $((SECONDS - t0)) s)" wait_until 20 routes_1000
	have_bird=1
else
	nok "bird2 installed (scripts/deps.sh installs it)"
	have_bird=
fi
out=$(ip netns exec "$C" timeout 10 ping -c 2 -i 0.2 -W 2 "$NETNS_RTR_C_IP" 2>&1)
read -r up2 down2 <<<"$(host_ctr rc0)"
check "counters grew (up $up1 -> ${up2:-?}, down $down1 -> ${down2:-?})" \
	test "${up2:-0}" -gt "${up1:-0}" -a "${down2:-0}" -gt "${down1:-0}"

# ---- (h) kill -9 of fwd: the TAPs stay; the next fwd adopts them
ip netns exec "$C" timeout 60 python3 "$echo_py" hold "$NETNS_RTR_C_IP" 7001 "$tmp/go" 50 \
	>"$tmp/hold.out" 2>&1 &
hold_pid=$!
pids+=("$hold_pid")
sleep 0.5
since0=$([[ -n $have_bird ]] && bgp_since)
kill -9 "$fwd_pid"; wait "$fwd_pid" 2>/dev/null; fwd_pid=
check "fwd killed: h-rc0 and h-rs0 stay" test "$(host_taps)" = 2
check "... with their addresses" has "$(ip -n "$R" -o -4 addr show dev h-rc0)" "inet $NETNS_RTR_C_IP/24 "
check "... and the tc drop stays on rc0" has "$(tc -n "$R" filter show dev rc0 ingress 2>&1)" "bpf"
out=$(ip netns exec "$C" timeout 5 ping -c 1 -W 1 "$NETNS_RTR_C_IP" 2>&1)
check "... nobody answers $NETNS_RTR_C_IP meanwhile (the kernel stays off rc0)" has "$out" "100% packet loss"
t0=$(date +%s%N)
start_fwd || exit 1
adopted() { ctl interfaces | grep -q "^rc0 .* host h-rc0 " && ctl interfaces | grep -q "^rs0 .* host h-rs0 "; }
check "restarted fwd has the host paths again (mgmt re-pushed)" wait_until 10 adopted
echo "     (after $((($(date +%s%N) - t0) / 1000000)) ms)"
check "exactly one h-rc0" test "$(taps_of h-rc0)" = 1
check "exactly one h-rs0" test "$(taps_of h-rs0)" = 1
check "two host-path TAPs in all ($(host_taps))" test "$(host_taps)" = 2
sleep 1 # leftovers are removed after the first full interface set
check "... still two a second later" test "$(host_taps)" = 2
touch "$tmp/go"
wait "$hold_pid"
check "a TCP connection to the router survived kill -9 of fwd ($(cat "$tmp/hold.out"))" \
	grep -q "both echoed" "$tmp/hold.out"
if [[ -n $have_bird ]]; then
	t0=$SECONDS
	check "BGP Established again by itself" wait_until 30 established
	check "... with the 1,000 routes ($(routes))" wait_until 20 routes_1000
	since1=$(bgp_since)
	# (BIRD prints the start of the session as wall time from its
	# monotonic clock: the two can differ by a millisecond or so as the
	# clocks drift; a new session would have started seconds later)
	same_since() {
		local a b
		a=$(date -d "$1" +%s%3N 2>/dev/null) b=$(date -d "$2" +%s%3N 2>/dev/null)
		[[ -n $a && -n $b ]] && (( (a > b ? a - b : b - a) < 100 ))
	}
	check "... the same session: it waited within its hold time (up since $since0, now $since1)" \
		same_since "$since0" "$since1"
fi
check "TCP to the router after the restart" echoed "$C" tcp "$NETNS_RTR_C_IP" 7001 after-restart
read -r up3 down3 <<<"$(host_ctr rc0)"
check "the new fwd counts its host path (up ${up3:-?}, down ${down3:-?})" \
	test "${up3:-0}" -gt 0 -a "${down3:-0}" -gt 0

# ---- (g) host-path disable and enable for one interface, as an operator
out=$(tsh -c "show interfaces c0")
check "show interfaces: c0's host path h-rc0" has "$out" "^  host path: enabled, host interface h-rc0$"
check "show interfaces: c0's host path counters" grep -qE "^  host path: up [1-9][0-9]* packets .*down [1-9][0-9]* packets" <<<"$out"
out=$(tsh -c configure -c "set interfaces c0 host-path disable" -c commit)
check "commit: c0 host-path disable" has "$out" "commit complete"
no_tap() { [[ -z $(tap h-rc0) ]]; }
check "h-rc0 is gone" wait_until 3 no_tap
check "h-rs0 stays" test -n "$(tap h-rs0)"
check "fwdctl interfaces: rc0 host off" has "$(ctl interfaces)" "^rc0 .* host off"
check "show interfaces: c0 host path disabled" has "$(tsh -c "show interfaces c0")" "^  host path: disabled$"
out=$(ip netns exec "$C" timeout 10 python3 "$echo_py" send tcp "$NETNS_RTR_C_IP" 7001 x 3 2>&1)
check "TCP to $NETNS_RTR_C_IP refused by fwd ($out)" has "$out" "refused"
out=$(ip netns exec "$C" timeout 10 ping -c 2 -i 0.2 -W 2 "$NETNS_RTR_C_IP" 2>&1)
check "... while fwd still answers its pings" has "$out" " 0% packet loss"
check "TCP through rs0 still reaches the router" echoed "$S" tcp "$NETNS_RTR_S_IP" 7001 rs0-still
out=$(tsh -c configure -c "set interfaces c0 host-path enable" -c commit)
check "commit: c0 host-path enable" has "$out" "commit complete"
check "h-rc0 is back" wait_until 3 have_taps
check "... with its address" has "$(ip -n "$R" -o -4 addr show dev h-rc0)" "inet $NETNS_RTR_C_IP/24 "
check "TCP to $NETNS_RTR_C_IP works again" wait_until 5 echoed "$C" tcp "$NETNS_RTR_C_IP" 7001 back-again
# the same through fwd's API (IF_CONFIG host_path), as rib or a test would
check "fwdctl if rc0 ... host-path off: accepted" ctl if "$NETNS_RTR_C_IF" "$NETNS_RTR_C_IP/24" host-path off backend "$bk_ipc"
check "... h-rc0 is gone" wait_until 3 no_tap
check "fwdctl if rc0 ... host-path on: accepted" ctl if "$NETNS_RTR_C_IF" "$NETNS_RTR_C_IP/24" host-path on backend "$bk_ipc"
check "... h-rc0 is back" wait_until 3 have_taps
check "... TCP works" wait_until 5 echoed "$C" tcp "$NETNS_RTR_C_IP" 7001 back-again2
if [[ -n $have_bird ]]; then
	check "BGP Established again after host-path on" wait_until 40 established
	check "... with the 1,000 routes" wait_until 20 routes_1000
fi

# ---- a clean exit removes the TAPs and the tc drop
kill "$fwd_pid"
timeout 10 bash -c "while kill -0 $fwd_pid 2>/dev/null; do sleep 0.05; done"
wait "$fwd_pid"; rc=$?; fwd_pid=
check "SIGTERM: fwd exits 0" test "$rc" = 0
check "... and removes its TAPs" test "$(host_taps)" = 0
check "... and the tc drop on rc0" bash -c "! tc -n '$R' filter show dev rc0 ingress 2>&1 | grep -q bpf"
check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"

check_summary "$name"
