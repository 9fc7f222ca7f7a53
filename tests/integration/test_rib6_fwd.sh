#!/usr/bin/env bash
# tests/integration/test_rib6_fwd.sh: IPv6 routes in the real tern-rib with
# the real tern-fwd (whose FibAck says ipv6_ok): an IPv6 connected route
# from a client (fwd reports no IPv6 address), IPv6 protocol routes as
# messages and packed, recursive resolution, show route of both families
# and the longest match, withdraw; rib sends fwd the IPv6 entries (fwd's
# FIB6 holds them, none held back), is not stuck (pending 0) and IPv4 keeps
# flowing to fwd, also after a kill -9 of fwd (the FIB6 pushed again).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for a network namespace"
	echo "0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d /tmp/rib6-fwd.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
ns=tern-rib6fwd$$
fwd= rib=
# only the pids this test started
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
fib6_count() { fctl fib6 2>/dev/null | awk '$1 == "total" { print $2 }'; }
fib6_has() { [[ $(fib6_count) == "$1" ]]; }
rib_synced() { rctl status 2>/dev/null | grep -q "pending 0 resyncing 0 fwd 1"; }
rib_routes() { rctl status 2>/dev/null | awk '{ print $2 }'; }
n6() { rctl show 6 | grep -c "^2001:2:"; }

ip netns add "$ns" && ip -n "$ns" link add d0 type veth peer name d1 &&
	ip -n "$ns" link set d0 up && ip -n "$ns" link set d1 up ||
	{ echo "namespace failed"; echo "0 passed, 1 failed"; exit 1; }
start_fwd() {
	ip netns exec "$ns" "$bindir/tern-fwd" --rundir "$run" --log-level info \
		2>>"$tmp/fwd.log" &
	fwd=$!
	wait_until 5 test -S "$run/fwd.sock" && fctl if d0 198.18.0.1/16 >/dev/null
}
check "tern-fwd up with d0 198.18.0.1/16" start_fwd
"$bindir/tern-rib" --rundir "$run" --hold-ms=300 --log-level info \
	2>>"$tmp/rib.log" &
rib=$!
check "tern-rib up" wait_until 5 test -S "$run/rib.sock"
check "rib in sync with fwd" wait_until 5 rib_synced
base=$(fib_count)

check "an IPv4 connected route from a client is refused" bash -c \
	"! '$tools/ribctl' '$run' conn 198.18.9.0/24 d0 2>&1 | grep -q accepted"
check "... saying why" bash -c \
	"'$tools/ribctl' '$run' conn 198.18.9.0/24 d0 2>&1 | grep -q 'IPv4 connected routes come from tern-fwd'"
check "IPv6 connected 2001:2::/64 on d0 from a client" rctl conn 2001:2::/64 d0
check "100 IPv6 protocol routes accepted" rctl add6 0 100
check "100 more, packed" rctl add6 100 200 packed
check "show route 6: 201 IPv6 routes" test "$(n6)" = 201
check "the connected one is attached on d0" bash -c \
	"'$tools/ribctl' '$run' show 6 | grep -q '^2001:2::/64 connected best 1 via ::%[1-9][0-9]* -> ::%[1-9]'"
check "a protocol route resolves recursively through it" bash -c \
	"'$tools/ribctl' '$run' show 6 | grep -q '^2001:2:0:5::/64 bgp best 1 via 2001:2::5%0 -> 2001:2::5%[1-9]'"
check "a packed one too" bash -c \
	"'$tools/ribctl' '$run' show 6 | grep -q '^2001:2:0:c8::/64 bgp best 1 via 2001:2::c8%0 -> 2001:2::c8%[1-9]'"
check "longest match of 2001:2:0:5::1 is 2001:2:0:5::/64" bash -c \
	"'$tools/ribctl' '$run' show 2001:2:0:5::1 | grep -q '^2001:2:0:5::/64 bgp'"
check "show route of both families: IPv4 first, then IPv6" bash -c \
	"'$tools/ribctl' '$run' show | awk 'NR == 1 && /^198\\.18\\.0\\.0\\/16/ { a = 1 } END { exit !a }' && \
	 [[ \$('$tools/ribctl' '$run' show | grep -c '^2001:2:') == 201 ]]"
check "rib counts them: $((base + 201)) routes wanted" wait_until 3 \
	bash -c "[[ \$('$tools/ribctl' '$run' status | awk '{ print \$2 }') == $((base + 201)) ]]"
check "rib is not stuck on them (pending 0)" wait_until 3 rib_synced
check "fwd's IPv4 FIB still $base" fib_has "$base"
check "fwd's FIB6 holds the 201 IPv6 routes" wait_until 5 fib6_has 201
check "rib holds none back (held6 0)" bash -c \
	"'$tools/ribctl' '$run' status | grep -q ' held6 0$'"
check "a recursive one resolved in fwd: via 2001:2::5 on d0" bash -c \
	"'$tools/fwdctl' '$run' lookup6 2001:2:0:5::1 | grep -q '^2001:2:0:5::/64 via 2001:2::5 if [1-9]'"
check "fwd failed no FIB entry" bash -c "! grep -q 'could not apply' '$tmp/rib.log'"
check "IPv4 still flows: 10 routes into fwd" rctl add 0 10
check "fwd holds $((base + 10))" wait_until 5 fib_has $((base + 10))
check "withdraw 50 IPv6 routes" rctl del6 0 50
check "show route 6: 151 left" test "$(n6)" = 151
check "... and in fwd's FIB6" wait_until 5 fib6_has 151
check "2001:2:0:5::1 now matches nothing (no default)" bash -c \
	"! '$tools/ribctl' '$run' show 2001:2:0:5::1 | grep -q ."

kill -9 "$fwd"; wait "$fwd" 2>/dev/null; fwd=
check "fwd restarted" start_fwd
check "rib pushes the IPv4 FIB again: $((base + 10))" wait_until 8 fib_has $((base + 10))
check "rib in sync with the new fwd" wait_until 5 rib_synced
check "IPv6 routes still in rib: 151" test "$(n6)" = 151
check "... pushed to the new fwd's FIB6: 151" wait_until 5 fib6_has 151
check "... none held back: held6 0" bash -c \
	"'$tools/ribctl' '$run' status | grep -q ' held6 0$'"

kill -TERM "$rib"; wait "$rib"; rc=$?; rib=
check "tern-rib SIGTERM: exit 0 (got $rc)" test $rc = 0
check "no error in rib's log" bash -c "! grep -q ': err' '$tmp/rib.log'"
kill -TERM "$fwd"; wait "$fwd" 2>/dev/null; fwd=
((fail > 0)) && tail -n 40 "$tmp/rib.log" "$tmp/fwd.log"
check_summary test_rib6_fwd
