#!/usr/bin/env bash
# tests/integration/test_fwd_stack.sh: tern-mgmt, tern-rib and the real
# tern-fwd together (tests/lib/netns.sh topology): interfaces and a static
# route committed with ternsh reach fwd (mgmt -> fwd, mgmt -> rib -> fwd);
# kill -9 of fwd: both re-push and forwarding comes back by itself; kill -9 of
# rib: fwd keeps forwarding and the route survives rib's resync; deleting the
# route takes it out of fwd.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
has() { grep -q -- "$2" <<<"$1"; }

if [[ $(id -u) != 0 ]] || ! command -v ping >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "test_fwd_stack: needs root, ip netns and ping: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-fwdst.XXXXXX)
run=$tmp/run
fwd_pid= mgmt_pid= rib_pid=
# shellcheck source=../lib/netns.sh
source "$root/tests/lib/netns.sh"
netns_init "fs$$"
cleanup() {
	local p l
	if ((fail > 0)); then
		# what each daemon said, for the failure's cause
		for l in fwd rib mgmt; do
			echo "--- last lines of tern-$l's log"
			tail -n 25 "$tmp/$l.log" 2>/dev/null
		done
	fi
	for p in $fwd_pid $rib_pid $mgmt_pid; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
ctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
cping() { timeout 10 ip netns exec "$NS_CLIENT" ping "$@" 2>&1; }
tsh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }
# wait until a ping of $1 answers (up to 15 s); prints the ms it took
ping_back() {
	local t0 t1 end=$((SECONDS + 15))
	t0=$(date +%s%N)
	while ((SECONDS < end)); do
		if timeout 2 ip netns exec "$NS_CLIENT" ping -c 1 -W 0.2 "$1" >/dev/null 2>&1; then
			t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); return 0
		fi
	done
	return 1
}

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init fs$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; echo "0 passed, 1 failed"; exit 1; }
ip netns exec "$NS_SERVER" ip addr add 198.19.8.1/32 dev lo

start_fwd() {
	ip netns exec "$NS_ROUTER" "$bin/tern-fwd" --rundir "$run" >>"$tmp/fwd.log" 2>&1 &
	fwd_pid=$!
	local end=$((SECONDS + 10))
	until ctl interfaces >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-fwd did not start"; tail "$tmp/fwd.log"; return 1; }
		sleep 0.02
	done
}
start_rib() {
	"$bin/tern-rib" --rundir "$run" --hold-ms=300 >>"$tmp/rib.log" 2>&1 &
	rib_pid=$!
}

start_fwd || exit 1
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
start_rib
end=$((SECONDS + 10))
until [[ -S $run/mgmt.sock && -S $run/rib.sock ]]; do
	((SECONDS < end)) || { echo "tern-mgmt/tern-rib did not start"; exit 1; }
	sleep 0.05
done

out=$(tsh -c configure \
	-c "set interfaces c0 device $NETNS_RTR_C_IF" \
	-c "set interfaces c0 address $NETNS_RTR_C_IP/24" \
	-c "set interfaces s0 device $NETNS_RTR_S_IF" \
	-c "set interfaces s0 address $NETNS_RTR_S_IP/24" \
	-c "set protocols static route 198.19.8.0/24 next-hop $NETNS_SERVER_IP" \
	-c commit)
check "commit: interfaces and a static route" has "$out" "commit complete"
ms=$(ping_back 198.19.8.1)
check "static route mgmt -> rib -> fwd: ping over it (${ms:-no} ms)" test -n "$ms"
[[ -z $ms ]] && { echo "--- rib's view"; tsh -c "show route" -c "show interfaces"; }
s_ifx=$(ctl interfaces | sed -n 's/^rs0 ifindex \([0-9]*\) .*/\1/p')
check "fwd's FIB has it via the server" has "$(ctl fib 198.19.8.0/24)" "198.19.8.0/24 via $NETNS_SERVER_IP if $s_ifx"
out=$(cping -c 3 -i 0.2 -W 2 "$NETNS_SERVER_IP")
check "client pings server" has "$out" " 0% packet loss"

# fwd dies: mgmt re-sends the interfaces, rib re-pushes the FIB
kill -9 "$fwd_pid"; wait "$fwd_pid" 2>/dev/null; fwd_pid=
start_fwd || exit 1
ms=$(ping_back 198.19.8.1)
check "kill -9 fwd: forwarding over the static route back by itself (${ms:-no} ms after start)" test -n "$ms"
check "... the route is back in fwd" has "$(ctl fib 198.19.8.0/24)" "198.19.8.0/24 via"

# rib dies: fwd keeps forwarding; a new rib resyncs without a gap
kill -9 "$rib_pid"; wait "$rib_pid" 2>/dev/null; rib_pid=
out=$(cping -c 3 -i 0.2 -W 2 198.19.8.1)
check "rib dead: fwd still forwards" has "$out" " 0% packet loss"
start_rib
ip netns exec "$NS_CLIENT" ping -c 30 -i 0.05 -W 1 198.19.8.1 >"$tmp/ping_rib" 2>&1 &
ppid=$!
sleep 1.5
wait $ppid
check "rib restart: no loss while it resyncs" grep -q " 0% packet loss" "$tmp/ping_rib"
check "... the route is still in fwd" has "$(ctl fib 198.19.8.0/24)" "198.19.8.0/24 via"

out=$(tsh -c configure -c "delete protocols static route 198.19.8.0/24" -c commit)
check "delete the static route" has "$out" "commit complete"
sleep 0.3
out=$(ctl fib 198.19.8.0/24)
check "... gone from fwd" bash -c "! grep -q via <<<'$out'"
out=$(cping -c 1 -W 2 198.19.8.1)
check "... no route: unreachable" has "$out" "Unreachable"

echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
