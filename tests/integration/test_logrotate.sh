#!/usr/bin/env bash
# tests/integration/test_logrotate.sh: the shipped logrotate file
# (build/etc/tern.logrotate, made from etc/tern.logrotate.in) does what
# docs/rtrmgr.md says, on a real tern-rtrmgr: logrotate accepts it, rotates a
# component's log that rtrmgr keeps open (O_APPEND, copytruncate) with what
# was logged before in NAME.log.1, and the component goes on logging at the
# start of the truncated file (no hole, no lost line).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
if ! command -v logrotate >/dev/null || [[ $(id -u) != 0 ]]; then
	echo "test_logrotate: needs logrotate and root: skipped"
	echo "logrotate: 0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-logrot.XXXXXX)
chmod 755 "$tmp"
rtm=
cleanup() {
	[[ -n $rtm ]] && kill -TERM "$rtm" 2>/dev/null && wait "$rtm" 2>/dev/null
	pkill -KILL -f -- "--rundir $tmp/run" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

# the shipped file (make builds it), its path pointed at this test's rundir
sed "s|^/.*/tern/\*\.log {|$tmp/run/*.log {|" \
	"$root/build/etc/tern.logrotate" >"$tmp/rot.conf"
check "its logs' path pointed at the test's" grep -q "^$tmp/run/\*\.log {" "$tmp/rot.conf"
check "logrotate accepts build/etc/tern.logrotate" bash -c "logrotate -d -s '$tmp/state' '$tmp/rot.conf' >/dev/null 2>&1"

cat >"$tmp/rtrmgr.conf" <<CONF
rundir $tmp/run;
user nobody;
log-level info;
output file;
component rib { binary $bin/tern-rib; privileges user; }
CONF
"$bin/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$tmp/run" </dev/null >"$tmp/rtrmgr.out" 2>&1 &
rtm=$!
check "rib logs to run/rib.log" wait_until 10 grep -qs "tern-rib" "$tmp/run/rib.log"
before=$(wc -l <"$tmp/run/rib.log")
check "logrotate -f rotates it" bash -c "logrotate -f -s '$tmp/state' '$tmp/rot.conf'"
check "rib.log.1 holds the $before lines before" test "$(wc -l <"$tmp/run/rib.log.1")" = "$before"
check "rib.log truncated" test "$(wc -l <"$tmp/run/rib.log")" -lt "$before"
# rib logs again on the fd rtrmgr keeps: a protocol connects and goes
"$root/build/tests/tools/ribctl" "$tmp/run" add 0 10 >/dev/null 2>&1
check "rib goes on logging in rib.log" wait_until 10 grep -q "tern-rib" "$tmp/run/rib.log"
check "... at the start of the file (no hole of NULs)" bash -c "! grep -qaP '\\x00' '$tmp/run/rib.log'"
check "rib did not restart (the same fd)" test "$(grep -c 'rib: started' "$tmp/rtrmgr.out")" = 1
check_summary logrotate
