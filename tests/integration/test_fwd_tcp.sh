#!/usr/bin/env bash
# tests/integration/test_fwd_tcp.sh: bulk TCP through tern-fwd (issue 27;
# docs/fwd.md "Offloads"), on both port backends:
# - hosts' offloads off (as on a real wire): one steady 6 s iperf3 stream
#   loses nothing in fwd: no frame dropped on either port (rx_drops,
#   rx_ring_full, tx_drops stay 0; the rings are sized for it);
# and from hosts whose veths keep the offloads a Linux host has by default:
# - tx checksum offload on (TSO/GSO off): the frames come with the TCP
#   checksum left to the device (CHECKSUM_PARTIAL); fwd fills it in, the
#   transfer completes, the server counts no checksum error, and the port's
#   csum_filled counter moves;
# - everything on (TSO, GSO, GRO, checksums): on AF_XDP the transfer
#   completes (with an XDP program on the router's veth the kernel segments
#   on the host's side); on AF_PACKET the host's TSO sends 64 KB
#   super-frames, which fwd drops and counts in rx_oversize (it says what
#   it requires: a sender's TSO/GSO off, or AF_XDP), never forwards cut
#   short.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"
if [[ $(id -u) != 0 ]] || ! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_tcp: needs root and ip netns: skipped"
	check_summary fwd-tcp
	exit 0
fi
for t in iperf3 ethtool nstat; do
	command -v $t >/dev/null || { echo "test_fwd_tcp: no $t (make deps installs it)"; check "$t installed" false; check_summary fwd-tcp; exit 1; }
done

tmp=$(mktemp -d /tmp/tern-fwdtcp.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid= srv_pid=
. "$root/tests/lib/netns.sh"
netns_init "fo$$"
cleanup() {
	[[ -n $srv_pid ]] && kill "$srv_pid" 2>/dev/null
	[[ -n $fwd_pid ]] && kill -9 "$fwd_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

ctl() { timeout 60 "$root/build/tests/tools/fwdctl" "$run" "$@"; }
wait_until() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done; }
sh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init fo$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; check "namespaces" false; check_summary fwd-tcp; exit 1; }

ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --log-level info \
	>>"$tmp/fwd.log" 2>&1 &
fwd_pid=$!
check "tern-fwd answers IPC" wait_until 10 ctl interfaces
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
check "tern-mgmt up" wait_until 10 test -S "$run/mgmt.sock"
out=$(sh -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set fwd port-backend af_xdp" -c commit -c exit)
check "interfaces committed" has "$out" "commit complete"

# A host's offloads: tx checksum only, or all of them (a Linux host's
# default on veth).
host_offloads() {
	local ns f
	for ns in "$NS_CLIENT" "$NS_SERVER"; do
		netns_offloads_off "$ns" "$NETNS_HOST_IF"
		case $1 in
		csum) nsx "$ns" ethtool -K "$NETNS_HOST_IF" tx on >/dev/null 2>&1 ;;
		all) for f in tx rx sg tso gso gro; do
			nsx "$ns" ethtool -K "$NETNS_HOST_IF" "$f" on >/dev/null 2>&1
		done ;;
		esac
	done
}
# a counter of the client-facing port (fwdctl interfaces)
port_ctr() { ctl interfaces | awk -v k="$1" '$1 == "c0" || $1 == "'"$NETNS_RTR_C_IF"'" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# every drop counter of both ports, summed
drops_sum() { ctl interfaces | awk '{ for (i = 1; i < NF; i++) if ($i == "rx_drops" || $i == "rx_ring_full" || $i == "tx_drops") n += $(i + 1) } END { print n + 0 }'; }
csum_errors() { nsx "$NS_SERVER" nstat -az TcpInCsumErrors | awk '$1 == "TcpInCsumErrors" { print $2 }'; }
# 16 MB from the client to the server; prints the bytes the server got
transfer() {
	local got
	nsx "$NS_SERVER" timeout 25 iperf3 -s -1 -B "$NETNS_SERVER_IP" >/dev/null 2>&1 &
	srv_pid=$!
	sleep 0.3
	got=$(nsx "$NS_CLIENT" timeout 15 iperf3 -c "$NETNS_SERVER_IP" -n 16M -J \
		--connect-timeout 3000 2>/dev/null |
		python3 -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
	echo "${got:-0}"
}

for backend in af_xdp af_packet; do
	out=$(sh -c configure -c "set fwd port-backend $backend" -c commit -c exit)
	check "$backend: committed" grep -qE "commit complete|no changes" <<<"$out"
	onb() { [[ $(sh -c "show interfaces" | grep -c "backend ${backend/_/-}") -ge 1 || $(sh -c "show interfaces" | grep -ci "$backend") -ge 1 ]]; }
	up2() { [[ $(ctl interfaces | grep -c 'link up') == 2 ]]; }
	check "$backend: both ports up" wait_until 15 up2
	echo "     ($(sh -c 'show interfaces' | grep -oE 'backend [a-z/_-]+' | head -1))"
	ping1() { nsx "$NS_CLIENT" ping -c 1 -W 1 "$NETNS_SERVER_IP" >/dev/null 2>&1; }
	check "$backend: client reaches the server" wait_until 15 ping1

	# offloads off: a steady single stream loses no frame in fwd
	host_offloads off
	c0=$(drops_sum)
	nsx "$NS_SERVER" timeout 25 iperf3 -s -1 -B "$NETNS_SERVER_IP" >/dev/null 2>&1 &
	srv_pid=$!
	sleep 0.3
	nsx "$NS_CLIENT" timeout 20 iperf3 -c "$NETNS_SERVER_IP" -t 6 -J \
		--connect-timeout 3000 >"$tmp/steady.json" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
	c1=$(drops_sum)
	rate=$(python3 -c 'import json,sys
try: d=json.load(open(sys.argv[1]))["end"]; print("%.2f Gbit/s, %d retransmits" % (d["sum_received"]["bits_per_second"] / 1e9, d["sum_sent"]["retransmits"]))
except Exception: print("no result")' "$tmp/steady.json")
	echo "     ($backend, offloads off, 1 stream 6 s: $rate; fwd's drops (rx_drops rx_ring_full tx_drops of both ports) $c0 -> $c1)"
	check "$backend, offloads off: the stream ran" grep -q 'Gbit/s' <<<"$rate"
	check "$backend, offloads off: a steady stream loses no frame in fwd" test "$c1" = "$c0"

	# tx checksum offload on: fwd fills the checksums in
	host_offloads csum
	f0=$(port_ctr csum_filled) e0=$(csum_errors)
	got=$(transfer)
	f1=$(port_ctr csum_filled) e1=$(csum_errors)
	echo "     ($backend, tx csum offload on: $got bytes received, csum_filled ${f0:-?} -> ${f1:-?}, server TcpInCsumErrors ${e0:-?} -> ${e1:-?})"
	check "$backend, tx csum on: 16 MB arrive" test "${got:-0}" -ge 12000000
	check "$backend, tx csum on: fwd filled the checksums (csum_filled moved)" test "${f1:-0}" -gt "${f0:-0}"
	check "$backend, tx csum on: the server saw no bad TCP checksum" test "${e1:-1}" = "${e0:-0}"

	# every offload on
	host_offloads all
	o0=$(port_ctr rx_oversize)
	got=$(transfer)
	o1=$(port_ctr rx_oversize)
	echo "     ($backend, all offloads on: $got bytes received, rx_oversize ${o0:-?} -> ${o1:-?})"
	if [[ $backend == af_xdp ]]; then
		check "af_xdp, offloads on: 16 MB arrive" test "${got:-0}" -ge 12000000
		check "af_xdp, offloads on: no super-frame reached fwd" test "${o1:-1}" = "${o0:-0}"
	else
		check "af_packet, offloads on: the host's TSO super-frames are dropped and counted (rx_oversize)" test "${o1:-0}" -gt "${o0:-0}"
		d=$(ctl drops | awk '$1 == "rx_oversize" { print $2 }')
		check "af_packet, offloads on: fwd's drops list them (rx_oversize ${d:-none})" test "${d:-0}" -gt 0
		check "af_packet, offloads on: nothing forwarded cut short (the transfer does not complete)" test "${got:-0}" -lt 12000000
	fi
	host_offloads off
done
check "tern-fwd still running" kill -0 "$fwd_pid"
check_summary fwd-tcp
