#!/usr/bin/env bash
# tests/integration/test_fwd_traffic.sh: what tern-fwd does with real traffic
# in namespaces (tests/lib/netns.sh; interfaces committed with ternsh through
# tern-mgmt, routes pushed like rib by tests/integration/fwdctl.c):
# - traceroute from the client shows the router, then the server; a
#   traceroute to the router's far address ends at the router;
# - ARP resolves the server, refreshes it while it answers, and forgets it
#   once it stops answering (tern-fwd --arp-reachable-ms=1000);
# - with the standard 1M-prefix table loaded (routes alternately via the
#   client and the server), UDP to 200 sampled addresses arrives at the host
#   the longest match names (found by a scan of the set, not by fwd) and
#   never at the other;
# - malformed frames (short, bad checksum, bad length, bad IHL, bad version,
#   TTL 0 and 1) are dropped, each counted under its reason, and fwd keeps
#   forwarding.
# On the default port backend (auto: AF_XDP on these veths);
# FWD_BACKEND=af_packet on TPACKET_V2 (test_fwd_traffic_afp.sh).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"
if [[ $(id -u) != 0 ]] || ! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_traffic: needs root and ip netns: skipped"
	check_summary fwd-traffic
	exit 0
fi
for t in traceroute python3 ping; do
	command -v $t >/dev/null || { echo "test_fwd_traffic: no $t (make deps installs it)"; check "$t installed" false; check_summary fwd-traffic; exit 1; }
done

tmp=$(mktemp -d /tmp/tern-fwdtr.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid=
. "$root/tests/lib/netns.sh"
netns_init "ft$$"
cleanup() {
	[[ -n $fwd_pid ]] && kill -9 "$fwd_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	[[ -n ${sn1:-} ]] && kill "$sn1" "$sn2" 2>/dev/null
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

ctl() { timeout 60 "$root/build/tests/tools/fwdctl" "$run" "$@"; }
cns() { timeout 20 ip netns exec "$NS_CLIENT" "$@"; }
wait_until() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done; }

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init ft$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; check "namespaces" false; check_summary fwd-traffic; exit 1; }

ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" --log-level info \
	--arp-reachable-ms=1000 >>"$tmp/fwd.log" 2>&1 &
fwd_pid=$!
check "tern-fwd answers IPC" wait_until 10 ctl interfaces
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
check "tern-mgmt up" wait_until 10 test -S "$run/mgmt.sock"
out=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set fwd port-backend ${FWD_BACKEND:-auto}" \
	-c commit -c exit 2>&1)
check "interfaces committed" has "$out" "commit complete"
up2() { [[ $(ctl interfaces | grep -c 'link up') == 2 ]]; }
check "both ports up in fwd" wait_until 10 up2
bk=$(TERN_RUNDIR=$run timeout 20 "$bin/ternsh" -c "show interfaces" | grep -oE 'backend [a-z/-]+' | head -1)
echo "     (ports on ${bk:-unknown backend})"

# 1. traceroute shows the router
ping1() { cns ping -c 1 -W 1 "$NETNS_SERVER_IP" >/dev/null 2>&1; }
check "client reaches the server" wait_until 10 ping1
out=$(cns traceroute -n -q 1 -w 2 -m 5 "$NETNS_SERVER_IP" 2>&1)
check "traceroute: hop 1 is the router ($NETNS_RTR_C_IP)" grep -qE "^ *1 +$NETNS_RTR_C_IP " <<<"$out"
check "traceroute: hop 2 is the server" grep -qE "^ *2 +$NETNS_SERVER_IP " <<<"$out"
check "traceroute: no hop 3" bash -c "! grep -qE '^ *3 ' <<<'$out'"
((fail > 0)) && echo "$out"
out=$(cns traceroute -n -q 1 -w 2 -m 3 "$NETNS_RTR_S_IP" 2>&1)
check "traceroute to the router's far address ends there at hop 1" \
    grep -qE "^ *1 +$NETNS_RTR_S_IP " <<<"$out"

# 2. ARP resolves, is refreshed while the server answers, expires when not
srv_state() { ctl neigh | awk -v a="$NETNS_SERVER_IP" '$1 == a { print $5 }'; }
check "ARP resolved the server (reachable)" test "$(srv_state)" = 2
sleep 4	# 4 reachable times with no traffic: probed, answered
st=$(srv_state)
check "still known after 4 s of silence while it answers (state ${st:-gone})" test -n "$st"
nsx "$NS_SERVER" sysctl -qw net.ipv4.conf.all.arp_ignore=8
nsx "$NS_SERVER" sysctl -qw "net.ipv4.conf.$NETNS_HOST_IF.arp_ignore=8"
t0=$SECONDS
gone() { [[ -z $(srv_state) ]]; }
check "forgotten once it stops answering" wait_until 12 gone
echo "     (gone $((SECONDS - t0)) s after the server went silent)"
check "then the server is unreachable" bash -c "! ip netns exec $NS_CLIENT ping -c 2 -i 0.3 -W 1 $NETNS_SERVER_IP >/dev/null 2>&1"
nsx "$NS_SERVER" sysctl -qw net.ipv4.conf.all.arp_ignore=0
nsx "$NS_SERVER" sysctl -qw "net.ipv4.conf.$NETNS_HOST_IF.arp_ignore=0"
check "answering again: resolved again" wait_until 10 ping1

# 3. 1M routes: traffic to a sample reaches the host the longest match names
ctl load-set 1000000 "$NETNS_CLIENT_IP,$NETNS_SERVER_IP" 200 >"$tmp/load" 2>&1
head -1 "$tmp/load" | sed 's/^/     (/; s/$/)/'
check "1M routes loaded, none refused" grep -q "^loaded 1000000 routes: applied 1000000 failed 0" "$tmp/load"
tail -n +2 "$tmp/load" >"$tmp/samples"
check "200 sampled addresses" test "$(wc -l <"$tmp/samples")" = 200
check "both gateways among them" test "$(awk '{ print $2 }' "$tmp/samples" | sort -u | wc -l)" = 2
both() { [[ $(ctl neigh | grep -cE "^($NETNS_CLIENT_IP|$NETNS_SERVER_IP) .* state 2") == 2 ]]; }
check "both gateways resolved" wait_until 10 both
cat >"$tmp/sniff.py" <<'PY'
import socket, struct, sys, time
ifname, out, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((ifname, 0))
s.settimeout(0.1)
open(out + ".ready", "w").close()
seen, end = set(), time.time() + secs
while time.time() < end:
    try:
        d, a = s.recvfrom(4096)
    except socket.timeout:
        continue
    if a[2] == socket.PACKET_OUTGOING or len(d) < 42 or d[23] != 17:
        continue
    ihl = (d[14] & 15) * 4
    if struct.unpack("!H", d[14 + ihl + 2:14 + ihl + 4])[0] == 9:
        seen.add(socket.inet_ntoa(d[30:34]))
open(out, "w").write("".join(a + "\n" for a in sorted(seen)))
PY
cat >"$tmp/send.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for line in open(sys.argv[1]):
    for _ in range(2):
        s.sendto(b"tern", (line.split()[0], 9))
    time.sleep(0.002)
PY
ip netns exec "$NS_CLIENT" timeout 20 python3 "$tmp/sniff.py" "$NETNS_HOST_IF" "$tmp/at_client" 4 &
sn1=$!
ip netns exec "$NS_SERVER" timeout 20 python3 "$tmp/sniff.py" "$NETNS_HOST_IF" "$tmp/at_server" 4 &
sn2=$!
wait_until 5 test -f "$tmp/at_client.ready" -a -f "$tmp/at_server.ready"
cns python3 "$tmp/send.py" "$tmp/samples"
wait "$sn1" "$sn2"
touch "$tmp/at_client" "$tmp/at_server"
right=0 wrong=0 lost=0
while read -r a gw; do
	if [[ $gw == "$NETNS_CLIENT_IP" ]]; then want=at_client other=at_server; else want=at_server other=at_client; fi
	if grep -qx "$a" "$tmp/$want"; then right=$((right + 1)); else lost=$((lost + 1)); fi
	grep -qx "$a" "$tmp/$other" && wrong=$((wrong + 1))
done <"$tmp/samples"
echo "     ($right of 200 at the right host, $wrong at the wrong one, $lost missing)"
check "every sampled address reached the host of its longest match" test "$right" = 200
check "none reached the other host" test "$wrong" = 0
out=$(ctl lookup "$(head -1 "$tmp/samples" | cut -d' ' -f1)")
check "fwd's own lookup agrees for the first sample" grep -q "via $(head -1 "$tmp/samples" | cut -d' ' -f2) " <<<"$out"

# 4. malformed frames: dropped, counted by reason; fwd keeps forwarding
cat >"$tmp/bad.py" <<'PY'
import socket, struct, sys
ifname, dmac, smac = sys.argv[1], sys.argv[2], sys.argv[3]
mac = lambda m: bytes(int(x, 16) for x in m.split(":"))
eth = mac(dmac) + mac(smac) + b"\x08\x00"
src, dst = socket.inet_aton("198.18.1.2"), socket.inet_aton("198.18.2.2")
def cksum(h):
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def ip(ttl=64, ver=4, ihl=5, tot=None, bad=False, body=b"\0" * 26):
    h = struct.pack("!BBHHHBBH4s4s", ver << 4 | ihl, 0, tot or 20 + len(body),
                    7, 0, ttl, 17, 0, src, dst)
    c = cksum(h) ^ (0x5555 if bad else 0)
    return h[:10] + struct.pack("!H", c) + h[12:] + body
cases = {"short": eth + b"\x45\x00", "ip_cksum": eth + ip(bad=True),
         "ip_len": eth + ip(tot=1400), "ip_ihl": eth + ip(ihl=4),
         "ip_version": eth + ip(ver=6), "ttl0": eth + ip(ttl=0),
         "ttl1": eth + ip(ttl=1)}
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
for name, f in cases.items():
    for _ in range(5):
        s.send(f)
PY
declare -A d0
while read -r r n; do d0[$r]=$n; done < <(ctl drops)
cns python3 "$tmp/bad.py" "$NETNS_HOST_IF" "$NETNS_RTR_C_MAC" "$NETNS_CLIENT_MAC"
sleep 0.5
declare -A d1
while read -r r n; do d1[$r]=$n; done < <(ctl drops)
for r in short ip_cksum ip_len ip_ihl ip_version; do
	check "5 frames of kind $r dropped and counted as $r (+$(( ${d1[$r]:-0} - ${d0[$r]:-0} )))" \
	    test "$(( ${d1[$r]:-0} - ${d0[$r]:-0} ))" = 5
done
check "TTL 0 and TTL 1: 10 counted as ttl_expired (+$(( ${d1[ttl_expired]:-0} - ${d0[ttl_expired]:-0} )))" \
    test "$(( ${d1[ttl_expired]:-0} - ${d0[ttl_expired]:-0} ))" = 10
check "none of them forwarded" test "$(( ${d1[forwarded]:-0} - ${d0[forwarded]:-0} ))" -le 0
check "fwd still running" kill -0 "$fwd_pid"
check "and still forwarding" ping1
check "fwd log has no error" bash -c "! grep -E ' (err|crit):' '$tmp/fwd.log'"

check_summary fwd-traffic
