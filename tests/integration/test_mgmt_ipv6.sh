#!/usr/bin/env bash
# tests/integration/test_mgmt_ipv6.sh: IPv6 through tern-mgmt (issue 22,
# point 6) with the real tern-mgmt, tern-rib and tern-fwd (a veth port in a
# namespace of its own): a commit of an interface's IPv6 addresses,
# link-local and router advertisements and of IPv6 static routes reaches
# rib; show route inet6 shows them with the best path, a static route
# resolves recursively through the connected IPv6 route (from fwd's
# Interface.addrs6 once fwd reports them, else given by a client, as
# test_rib6_fwd.sh does), a link-local next hop with its interface; every
# bad line the issue names is refused with its message and changes
# nothing; rollback removes them; show fib/neighbors/interfaces take the
# family filters. Addresses: 2001:2:0:300::/56 and 198.19.63.0/24 only.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
	echo "skip: needs root for a network namespace"
	check_summary test_mgmt_ipv6
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-mgmt6.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
ns=t6ct-$$
fwd= rib= mgmt=
# only the pids this test started
cleanup() {
	local p
	for p in $mgmt $rib $fwd; do
		kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	ip netns del "$ns" 2>/dev/null
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

tools=$root/build/tests/tools
rctl() { timeout 10 "$tools/ribctl" "$run" "$@"; }
tsh() {
	local a=()
	for c in "$@"; do a+=(-c "$c"); done
	TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "${a[@]}" 2>&1
}
hase() { grep -qE -- "$2" <<<"$1"; }  # has, with an extended regex
hasnt() { ! grep -qE -- "$2" <<<"$1"; }
rib_synced() { rctl status 2>/dev/null | grep -q "pending 0 resyncing 0 fwd 1"; }
conf() { tsh "show configuration"; }
r6() { tsh "show route inet6"; }

ip netns add "$ns" && ip -n "$ns" link add t6a type veth peer name t6b &&
	ip -n "$ns" link set t6a up && ip -n "$ns" link set t6b up ||
	{ echo "namespace failed"; echo "0 passed, 1 failed"; exit 1; }
ip netns exec "$ns" "$bin/tern-fwd" --rundir "$run" --log-level info \
	2>>"$tmp/fwd.log" &
fwd=$!
check "tern-fwd up" wait_until 5 test -S "$run/fwd.sock"
"$bin/tern-rib" --rundir "$run" --log-level info 2>>"$tmp/rib.log" &
rib=$!
check "tern-rib up" wait_until 5 test -S "$run/rib.sock"
"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >>"$tmp/mgmt.log" 2>&1 &
mgmt=$!
check "tern-mgmt up" wait_until 10 bash -c "[[ -S $run/mgmt.sock ]] && TERN_RUNDIR=$run timeout 2 '$bin/ternsh' -c 'show version' >/dev/null 2>&1"

# 0. IPv4 first (what rollback goes back to)
out=$(tsh configure \
	"set interfaces veth1 device t6a" \
	"set interfaces veth1 address 198.19.63.1/24" \
	"set protocols static route 198.19.63.128/25 next-hop 198.19.63.2" \
	commit exit)
check "commit of the IPv4 interface and route" has "$out" "commit complete"
v4conf=$(conf)

# 1. a commit of IPv6 addresses and static routes (written as the user
# might: upper case, zeros; stored and shown in RFC 5952 form)
out=$(tsh configure \
	"set interfaces veth1 inet6 address 2001:2:0:300:0:0:0:1/64" \
	"set interfaces veth1 link-local FE80::1" \
	"set interfaces veth1 router-advertisement prefix 2001:2:0:300::/64" \
	"set interfaces veth1 router-advertisement mtu 1400" \
	"set interfaces veth1 router-advertisement lifetime 1800" \
	"set protocols static route 2001:2:0:310::/60 next-hop 2001:2:0:300::2" \
	"set protocols static route 2001:2:0:320::/60 next-hop fe80::2" \
	"set protocols static route 2001:2:0:320::/60 interface veth1" \
	"set protocols static route 2001:2:0:330::/64 reject" \
	commit exit)
check "commit of IPv6 addresses and routes" has "$out" "commit complete"
((fail > 0)) && echo "$out" | tail -5
out=$(conf)
check "stored canonically: 2001:2:0:300::1/64" has "$out" "address 2001:2:0:300::1/64;"
check "  ... link-local fe80::1" has "$out" "link-local fe80::1;"
check "  ... the link-local next hop with its interface" has "$out" "next-hop fe80::2;"
check "rib in sync with fwd" wait_until 5 rib_synced

# 2. the connected IPv6 route: from fwd (Interface.addrs6) when it
# reports it, else from a client
if ! wait_until 3 bash -c "'$tools/ribctl' '$run' show 6 | grep -q '^2001:2:0:300::/64 connected'"; then
	echo "     (tern-fwd does not report Interface.addrs6 yet: the connected route from ribctl)"
	out=$(rctl show 6)
	check "the recursive static is not active before its connected route" \
		hase "$out" "^2001:2:0:310::/60 static best 0 via 2001:2:0:300::2%0 ->$"
	((fail > 0)) && echo "$out"
	check "connected 2001:2:0:300::/64 on t6a" rctl conn 2001:2:0:300::/64 t6a
fi
# the same /64 as a static route (next hop fe80::3 on veth1): connected
# (distance 0) is the best path
out=$(tsh configure \
	"set protocols static route 2001:2:0:300::/64 next-hop fe80::3" \
	"set protocols static route 2001:2:0:300::/64 interface veth1" \
	commit exit)
check "commit of a static /64 beside the connected one" has "$out" "commit complete"
out=$(r6)
check "show route inet6: the static /60 via 2001:2:0:300::2, best" hase "$out" \
	"^2001:2:0:310::/60 +static +1/0 +2001:2:0:300::2 +- +best"
check "  ... the link-local next hop on its interface, best" hase "$out" \
	"^2001:2:0:320::/60 +static +1/0 +fe80::2 +[1-9][0-9]* +best"
check "  ... the reject route" hase "$out" "^2001:2:0:330::/64 +static +1/0 +reject"
check "  ... best path: the connected /64 (distance 0) over the static one" hase "$out" \
	"^2001:2:0:300::/64 +connected +0/0 +:: +[1-9][0-9]* +best"
check "  ... and the static /64 is not best" hase "$out" \
	"^2001:2:0:300::/64 +static +1/0 +fe80::3 +[1-9][0-9]* +active"
check "  ... no IPv4 route in inet6" hasnt "$out" "^198\\.19"
check "recursive resolution through the connected route" bash -c \
	"'$tools/ribctl' '$run' show 6 | grep -q '^2001:2:0:310::/60 static best 1 via 2001:2:0:300::2%0 -> 2001:2:0:300::2%[1-9]'"
out=$(tsh "show route")
check "show route: both families, IPv4 first" test "$(grep -E '^(198\.19\.63\.128/25|2001:2:0:310::/60) ' <<<"$out" | cut -c1-5 | tr '\n' ' ')" = "198.1 2001: "
out=$(tsh "show route 2001:2:0:310::77")
check "show route ADDRESS: the longest match" hase "$out" "^2001:2:0:310::/60 "
out=$(tsh "show route 2001:2:0:300::/56 longer")
check "show route PREFIX longer: the routes under it" hase "$out" "^5 routes"
out=$(tsh "show route inet")
check "show route inet: no IPv6" hasnt "$out" "^2001:"
check "  ... the IPv4 route" hase "$out" "^198\.19\.63\.128/25 "
out=$(tsh "show route | json")
out6=$(tsh "show route 2001:2:0:310::/60 | json")
check "show route | json: the recursive route resolved on t6a" hase "$(tr -d ' \n' <<<"$out6")" '"resolved":\[\{"address":"2001:2:0:300::2","ifindex":[1-9][0-9]*\}\]'
check "show route | json: an IPv6 route with its family" hase "$(tr -d ' \n' <<<"$out")" '"prefix":"2001:2:0:310::/60","family":"inet6"'

# 3. each bad line refused with its message, nothing changed
before=$(conf)
r6before=$(r6)

bad() { # bad WHAT MESSAGE-REGEX COMMAND...
	local what=$1 msg=$2 out rc
	shift 2
	out=$(tsh configure "$@" commit); rc=$?
	check "refused: $what (exit 1)" test "$rc" = 1
	check "  ... says: $msg" hase "$out" "$msg"
}
bad "2001:2::1::2" "invalid next-hop '2001:2::1::2': more than one ::" \
	"set protocols static route 2001:2:0:340::/64 next-hop 2001:2::1::2"
bad "/129" "invalid route '2001:2:0:340::/129': prefix length /129 is over 128" \
	"set protocols static route 2001:2:0:340::/129 reject"
bad "host bits set" "invalid route '2001:2:0:340::1/64': host bits set: did you mean 2001:2:0:340::/64\\?" \
	"set protocols static route 2001:2:0:340::1/64 reject"
bad "fe80::1 without an interface" "next-hop fe80::1 is link-local: it needs its interface \\(next-hop fe80::1 interface NAME\\)" \
	"set protocols static route 2001:2:0:340::/64 next-hop fe80::1"
bad "an IPv6 next hop for an IPv4 route" "static route 198.19.63.0/26: next-hop 2001:2:0:300::2 is an IPv6 address, the route is IPv4" \
	"set protocols static route 198.19.63.0/26 next-hop 2001:2:0:300::2"
bad "an IPv4 next hop for an IPv6 route" "static route 2001:2:0:340::/64: next-hop 198.19.63.2 is an IPv4 address, the route is IPv6" \
	"set protocols static route 2001:2:0:340::/64 next-hop 198.19.63.2"
bad "a link-local address as a global one" "inet6 address fe80::9/64 is link-local: write it as link-local fe80::9" \
	"set interfaces veth1 inet6 address fe80::9/64"
bad "a global address as the link-local" "link-local 2001:2:0:300::9 is not a link-local address" \
	"set interfaces veth1 link-local 2001:2:0:300::9"
check "the running config is unchanged" test "$(conf)" = "$before"
check "rib's IPv6 routes are unchanged" test "$(r6)" = "$r6before"

# 4. show fib, neighbors, interfaces take the family filters
out=$(tsh "show fib inet6"); rc=$?
check "show fib inet6 answers (exit 0)" test "$rc" = 0
check "  ... with no IPv4 route" hasnt "$out" "^198\\.19"
out=$(tsh "show fib")
check "show fib: the IPv4 FIB too" has "$out" "^198.19.63.0/24 "
out=$(tsh "show neighbors inet6"); rc=$?
check "show neighbors inet6 answers (exit 0)" test "$rc" = 0
out=$(tsh "show interfaces veth1 inet")
check "show interfaces veth1 inet: its IPv4 address" has "$out" "address 198.19.63.1/24"
out=$(tsh "show interfaces veth1 | json"); rc=$?
check "show interfaces | json: IPv6 keys" has "$out" '"addresses6":\['
out=$(tsh "show fib 2001:2::1::")
check "show fib: a bad IPv6 address is named" has "$out" "show fib: 2001:2::1::: more than one ::"

# 4b. a file in Junos' one-line form: a link-local next hop and its
# interface in one statement
printf 'protocols static route 2001:2:0:3f0::/60 next-hop fe80::4 interface veth1;\n' >"$tmp/one.conf"
chmod 644 "$tmp/one.conf"
out=$(tsh configure "load merge $tmp/one.conf" commit exit)
check "load merge of 'next-hop fe80::4 interface veth1;', commit" has "$out" "commit complete"
check "  ... the route is in rib via fe80::4 on t6a, best" hase "$(r6)" \
	"^2001:2:0:3f0::/60 +static +1/0 +fe80::4 +[1-9][0-9]* +best"

# 5. rollback removes them
out=$(tsh configure "rollback 3" commit exit)
check "rollback 3 (to the IPv4 commit), commit" has "$out" "commit complete"
check "the IPv6 statics are gone from rib" wait_until 5 bash -c \
	"! '$tools/ribctl' '$run' show 6 | grep -q ' static '"
check "  ... the config is the IPv4 one again" test "$(conf)" = "$v4conf"
out=$(tsh "show route inet6")
check "show route inet6: no static route left" hasnt "$out" " static "
out=$(tsh "show route inet")
check "  ... the IPv4 static is still there" hase "$out" "^198\.19\.63\.128/25 +static"

kill -TERM "$mgmt"; wait "$mgmt" 2>/dev/null; mgmt=
check "no error in rib's log" bash -c "! grep -q ': err' '$tmp/rib.log'"
((fail > 0)) && echo "$(r6)" && tail -n 20 "$tmp/mgmt.log" "$tmp/rib.log"
check_summary test_mgmt_ipv6
