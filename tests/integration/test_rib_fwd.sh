#!/usr/bin/env bash
# tests/integration/test_rib_fwd.sh: the real tern-rib with the real tern-fwd
# (one afpacket port on a veth in a namespace): connected route from fwd's
# interface, protocol routes into fwd's FIB, kill -9 of rib while fwd keeps
# its FIB (the new rib re-learns and fwd sweeps only what is gone), kill -9
# of fwd (rib pushes the whole FIB to the new, empty fwd), protocol
# disconnect with a grace period. The rib client is built from the C below;
# fwd is configured and inspected with tests/integration/fwdctl.c.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done; }

if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for a network namespace"
	echo "0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d /tmp/rib-fwd.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
ns=tern-ribfwd$$
fwd= rib=
cleanup() {
	[[ -n $rib ]] && kill -9 "$rib" 2>/dev/null && wait "$rib" 2>/dev/null
	[[ -n $fwd ]] && kill -9 "$fwd" 2>/dev/null && wait "$fwd" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
fctl() { timeout 10 "$tools/fwdctl" "$run" "$@"; }
rctl() { timeout 10 "$tools/ribctl" "$run" "$@"; }
fib_count() { fctl fib 2>/dev/null | awk '$1 == "total" { print $2 }'; }
fib_has() { [[ $(fib_count) == "$1" ]]; }
rib_synced() { rctl status 2>/dev/null | grep -q "pending 0 resyncing 0 fwd 1"; }
fwd_log() { grep -c "$1" "$tmp/fwd.log" 2>/dev/null; }

ip netns add "$ns" && ip -n "$ns" link add d0 type veth peer name d1 &&
	ip -n "$ns" link set d0 up && ip -n "$ns" link set d1 up ||
	{ echo "namespace failed"; echo "0 passed, 1 failed"; exit 1; }
start_fwd() {
	ip netns exec "$ns" "$bindir/tern-fwd" --rundir "$run" --log-level info \
		2>>"$tmp/fwd.log" &
	fwd=$!
	wait_for 5 test -S "$run/fwd.sock" && fctl if d0 198.18.0.1/16 >/dev/null
}
start_rib() {
	"$bindir/tern-rib" --rundir "$run" --hold-ms=${1:-300} --log-level info \
		2>>"$tmp/rib.log" &
	rib=$!
	wait_for 5 test -S "$run/rib.sock"
}

check "tern-fwd up with d0 198.18.0.1/16" start_fwd
check "tern-rib up" start_rib
check "rib in sync with fwd" wait_for 5 rib_synced
base=$(fib_count)
check "fwd holds rib's connected 198.18.0.0/16" bash -c \
	"'$tools/fwdctl' '$run' fib 198.18.0.0/16 | grep -q 'via 0.0.0.0'"
check "1000 protocol routes accepted" rctl add 0 1000
check "fwd holds them ($base + 1000)" wait_for 5 fib_has $((base + 1000))
check "a route goes to fwd with its resolved gateway and interface" bash -c \
	"'$tools/fwdctl' '$run' fib 198.19.0.16/28 | grep -q 'via 198.18.1.2 if '"

# rib dies; fwd keeps forwarding with what it has
kill -9 "$rib"; wait "$rib" 2>/dev/null; rib=
sleep 0.2
check "kill -9 rib: fwd keeps its $((base + 1000)) routes" fib_has $((base + 1000))
sw0=$(fwd_log "resync done")
start_rib 1500
rctl add 0 999 >/dev/null	# the protocol re-learns all but one
check "new rib: resync with fwd ends" wait_for 8 rib_synced
check "fwd swept exactly the route nobody re-learned" \
	bash -c "grep 'resync done' '$tmp/fwd.log' | tail -1 | grep -q ': 1 routes swept'"
check "fwd holds $((base + 999)) routes" fib_has $((base + 999))
check "the gone route is gone from fwd" bash -c \
	"! '$tools/fwdctl' '$run' fib 198.19.62.112/28 | grep -q via"

# fwd dies and comes back empty: rib pushes everything again
kill -9 "$fwd"; wait "$fwd" 2>/dev/null; fwd=
t0=$(date +%s%N)
start_fwd
check "fwd restarted: rib pushes the whole FIB again" wait_for 8 fib_has $((base + 999))
ms=$((($(date +%s%N) - t0) / 1000000))
echo "     (fwd exec -> $((base + 999)) routes back in fwd: $ms ms)"
check "rib in sync with the new fwd" wait_for 5 rib_synced

# a protocol with a 500 ms grace goes away: stale, still in fwd, then swept
"$tools/ribctl" "$run" hold 1000 1100 500 >"$tmp/hold.out" 2>&1 &
hold=$!
check "a second protocol batch lands in fwd" wait_for 5 fib_has $((base + 1099))
kill -9 "$hold"; wait "$hold" 2>/dev/null
gone() { [[ $(rctl count bgp) == "1099 1099" ]]; }
check "its routes are stale in rib, still in fwd" bash -c \
	"sleep 0.1; [[ \$('$tools/ribctl' '$run' count bgp) == '1099 1099' ]] && \
	[[ \$('$tools/fwdctl' '$run' fib | awk '\$1 == \"total\" { print \$2 }') == $((base + 1099)) ]]"
check "swept after the grace: fwd back to $base routes" wait_for 5 fib_has "$base"

kill -TERM "$rib"; wait "$rib"; rc=$?; rib=
check "tern-rib SIGTERM: exit 0 (got $rc)" test $rc = 0
check "no error in rib's log" bash -c "! grep -q ': err' '$tmp/rib.log'"
kill -TERM "$fwd"; wait "$fwd" 2>/dev/null; fwd=
((fail > 0)) && tail -40 "$tmp/rib.log" "$tmp/fwd.log"
echo "$pass passed, $fail failed"
((fail == 0))
