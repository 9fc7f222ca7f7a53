#!/usr/bin/env bash
# tests/integration/test_run_demo.sh: `make run` / `make stop`
# (scripts/run-demo.sh) under names of its own: start succeeds and boots the
# demo config; what a run committed survives `make stop` but the next start
# boots the demo again (the commits set aside), and KEEP=1 boots the last
# commit instead (issue 23). On the running demo, the shell's answers from
# real components: the FIB listed in prefix order, | except making the count
# say what it kept, an interface or a FIB prefix that is not there named.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/check.sh"
if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for network namespaces"
	check_summary run-demo
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-rd.XXXXXX)
chmod 755 "$tmp"
export TERN_DEMO_SUFFIX=rd$$ TERN_DEMO_RUNDIR=$tmp/run TERN_DEMO_STATE=$tmp/state
demo() { timeout 120 "$root/scripts/run-demo.sh" "$@" </dev/null 2>&1; }
cleanup() { demo stop >/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
sh_() { TERN_RUNDIR=$tmp/run timeout 20 "$root/build/bin/ternsh" "$@" 2>&1; }
host_name() { sh_ -c "show configuration system host-name" | awk '/host-name/ { print $2 }' | tr -d ';'; }
running() { [[ $(sh_ -c "show processes" | awk '$3 == "running"' | wc -l) -ge 4 ]]; }

out=$(demo start); rc=$?
check "start: exit 0" test $rc = 0
check "start: boots the demo config" has "$out" "^booting the demo config$"
check "the demo's host name" test "$(host_name)" = tern-test
wait_until 20 running

# answers from the real components
fib=$(sh_ -c "show fib")
body=$(sed '1d;$d' <<<"$fib" | awk '$1 ~ /\// { print $1 }')
check "show fib: routes listed" test "$(wc -l <<<"$body")" -ge 3
check "show fib: in prefix order" test "$body" = "$(tr '/' '.' <<<"$body" |
    sort -t. -k1,1n -k2,2n -k3,3n -k4,4n -k5,5n | sed 's/\.\([0-9]*\)$/\/\1/')"
out=$(sh_ -c "show fib 198.51.100.0/24"); rc=$?
check "show fib of a missing prefix: exit 1" test $rc = 1
check "  ... names it" has "$out" "show fib 198.51.100.0/24: no such route in the FIB"
check "  ... without a header" bash -c "! grep -q '^Prefix' <<<'$out'"
out=$(sh_ -c "show interfaces eth9")
check "show interfaces eth9: names it" has "$out" "no interface eth9 (configured: client, server)"
all=$(sh_ -c "show route" | tail -1)
out=$(sh_ -c "show route | except static")
check "show route | except: the header stays" has "$out" "^Prefix"
check "  ... no static route" bash -c "! grep -q ' static ' <<<'$out'"
check "  ... the count says what is shown" has "$(tail -1 <<<"$out")" "^[0-9]* of $all$"
out=$(sh_ -c "show route | display set")
check "show route | display set: refused, saying why" has "$out" "is for show configuration"
out=$(sh_ -c "sh ro")
check "sh ro is show route" has "$out" "198.19.0.0/16"

# a commit, then stop and start: the demo again, the commit set aside
sh_ -c configure -c "set system host-name changed" -c commit -c exit >/dev/null
check "committed" test "$(host_name)" = changed
out=$(demo stop)
check "stop says the commits stay" has "$out" "commits stay in $tmp/state/config"
out=$(demo start); rc=$?
check "second start: exit 0" test $rc = 0
check "  ... boots the demo config again" test "$(host_name)" = tern-test
check "  ... says where the previous commits went" has "$out" "commits are in $tmp/state/config.prev"
sh_ -c configure -c "set system host-name kept" -c commit -c exit >/dev/null
demo stop >/dev/null
out=$(KEEP=1 demo start); rc=$?
check "KEEP=1 start: exit 0" test $rc = 0
check "  ... says it boots the last commit" has "$out" "booting the last commit of the previous run"
check "  ... and does" test "$(host_name)" = kept
check_summary run-demo
