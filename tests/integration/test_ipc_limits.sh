#!/usr/bin/env bash
# tests/integration/test_ipc_limits.sh: issue 24, points 5 and 6, on the real
# daemons under tern-rtrmgr with `ulimit -n 1024` (systemd's default).
# 5: 1,100 connections to mgmt.sock: mgmt stays idle (CPU from /proc/PID/stat
# over 3 s; before the limits it spun at 87% in failing accept4), a client of
# mgmt-ro.sock and an admin client of another uid are served during the
# flood, a refused one is told why at once, and root is served again when it
# ends. 6: eight connections to rib.sock and eight to rib-ro.sock announce
# 16 MiB frames and stall one byte short: rib's RSS stays within its
# receive budget (before: +128 MB) and every one is closed after the frame
# timeout (10 s); connections that never say hello are closed after 5 s.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
tools=${TERN_TOOLS:-$root/build/tests/tools}
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/ipc-limits.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
mkdir "$tmp/store"
user=nobody
[[ $(id -u) == 0 ]] && chown "$user" "$tmp/store"
rtm= flood= slow_rw= slow_ro= mute=
cleanup() {
	local p
	for p in $flood $slow_rw $slow_ro $mute; do kill -9 "$p" 2>/dev/null; done
	[[ -n $rtm ]] && kill -9 "$rtm" 2>/dev/null
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state" 2>/dev/null; }
nlog() { grep -c "$1" "$tmp/log" 2>/dev/null; }
# utime + stime of PID in clock ticks
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
# waits (at most $2 s) for the line "connected" in file $1
wait_connected() { wait_until "$2" grep -q "^connected" "$1"; }
status() { timeout 10 "$tools/ipcflood" status "$run" "$@"; }

cat >"$tmp/rtrmgr.conf" <<EOF
user $user;
health-check ipc;
health-interval 500ms;
health-timeout 400ms;
stop-grace 3s;
component mgmt {
	binary $bindir/tern-mgmt;
	args "--store=$tmp/store";
}
component rib {
	binary $bindir/tern-rib;
	args "--hold-ms=300";
}
EOF
(ulimit -n 1024 && exec "$bindir/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$run" 2>>"$tmp/log") &
rtm=$!
running() { [[ $(nlog "mgmt: running") -ge 1 && $(nlog "rib: running") -ge 1 ]]; }
check "mgmt and rib running under rtrmgr" wait_until 10 running
mgmt=$(st_pid mgmt)
rib=$(st_pid rib)
check "mgmt's fd limit is 1024" grep -q "^Max open files *1024 " "/proc/$mgmt/limits"

# ---- 5: 1,100 connections to mgmt.sock -----------------------------------
"$tools/ipcflood" hold "$run/mgmt.sock" 1100 hello >"$tmp/flood.out" 2>&1 &
flood=$!
check "the flood's 1,100 connections are made" wait_connected "$tmp/flood.out" 30
sleep 0.5
t0=$(cpu_ticks "$mgmt")
sleep 3
t1=$(cpu_ticks "$mgmt")
hz=$(getconf CLK_TCK)
pct=$(((t1 - t0) * 100 / (3 * hz)))
check "flood held: mgmt's CPU over 3 s is ${pct}% (< 10%)" test "$pct" -lt 10
out=$(status mgmt ro 2>&1)
check "flood held: a client of mgmt-ro.sock is served ($out)" test $? = 0 -a -z "$out"
t=$(date +%s%N)
out=$(status mgmt 2>&1)
ms=$((($(date +%s%N) - t) / 1000000))
check "flood held: root's next admin connection is refused with the reason in $ms ms ($out)" \
    bash -c "[[ '$out' == *'too many connections from uid 0'* && $ms -lt 3000 ]]"
if [[ $(id -u) == 0 ]]; then
	out=$(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
	    timeout 10 "$tools/ipcflood" status "$run" mgmt 2>&1)
	check "flood held: an admin client of another uid ($user) is served ($out)" test $? = 0 -a -z "$out"
fi
out=$(TERN_RUNDIR=$run timeout 10 "$bindir/ternsh" -c "show version" 2>&1)
check "flood held: ternsh as root hears why ($out)" has "$out" "too many connections"
counters=$(status mgmt ro counters)
shed=$(awk '$1 == "shed_uid_max" { print $2 }' <<<"$counters")
check "mgmt's STATUS counts the refused connections (shed_uid_max $shed)" test "${shed:-0}" -ge 1000
kill "$flood"; wait "$flood" 2>/dev/null; flood=
served() { TERN_RUNDIR=$run timeout 10 "$bindir/ternsh" -c "show version" >/dev/null 2>&1; }
check "flood gone: ternsh as root is served again" wait_until 5 served
check "mgmt still runs, same pid" test "$(st_pid mgmt)" = "$mgmt"

# ---- 6: stalled 16 MiB frames on rib.sock and rib-ro.sock ----------------
rss0=$(rss_kb "$rib")
"$tools/ipcflood" slow "$run/rib.sock" 8 16777216 15 >"$tmp/slow_rw.out" 2>&1 &
slow_rw=$!
"$tools/ipcflood" slow "$run/rib-ro.sock" 8 16777216 15 >"$tmp/slow_ro.out" 2>&1 &
slow_ro=$!
"$tools/ipcflood" hold "$run/rib-ro.sock" 10 8 >"$tmp/mute.out" 2>&1 &
mute=$!
both_sent() { grep -q "^connected 8/8" "$tmp/slow_rw.out" && grep -q "^connected 8/8" "$tmp/slow_ro.out"; }
check "16 stalled frames sent" wait_until 20 both_sent
sleep 1
rss1=$(rss_kb "$rib")
grow=$(((rss1 - rss0) / 1024))
check "rib's RSS grew by $grow MB (<= 72: the 64 MiB budget of rib.sock, nothing for rib-ro.sock)" test "$grow" -le 72
wait "$mute"; mute=
out=$(cat "$tmp/mute.out")
check "10 connections without hello closed after ~5 s ($(tail -1 <<<"$out"))" \
    bash -c "grep -q '^closed 10/10, the last after [4-6][0-9][0-9][0-9] ms: TIMEOUT: no hello' <<<'$out'"
wait "$slow_rw"; slow_rw=
wait "$slow_ro"; slow_ro=
out=$(tail -1 "$tmp/slow_rw.out")
check "rib.sock: all 8 stalled frames closed after ~10 s ($out)" \
    bash -c "grep -Eq '^closed 8/8, the last after (9[0-9]{3}|1[0-2][0-9]{3}) ms: TIMEOUT: frame not complete' <<<'$out'"
out=$(tail -1 "$tmp/slow_ro.out")
check "rib-ro.sock: all 8 closed after ~10 s ($out)" \
    bash -c "grep -Eq '^closed 8/8, the last after (9[0-9]{3}|1[0-2][0-9]{3}) ms: TIMEOUT: frame not complete' <<<'$out'"
counters=$(status rib ro counters)
c() { awk -v n="$1" '$1 == n { print $2 }' <<<"$counters"; }
check "rib counts them: frame_timeouts $(c frame_timeouts) >= 16, rx_budget_refused $(c rx_budget_refused) >= 4, hello_timeouts $(c hello_timeouts) >= 10" \
    test "$(c frame_timeouts)" -ge 16 -a "$(c rx_budget_refused)" -ge 4 -a "$(c hello_timeouts)" -ge 10
check "rib still serves rib.sock" status rib
out=$(TERN_RUNDIR=$run timeout 10 "$bindir/ternsh" -c "show ipc" 2>&1)
check "show ipc: mgmt's own refusals" has "$out" "server limits *refused: conn_max 0 uid_max 10[0-9][0-9] "
check "show ipc: rib's, from its STATUS" has "$out" "^tern-rib .* rx_budget_refused 4"
check "rib still runs, same pid" test "$(st_pid rib)" = "$rib"
check "no component restarted" test "$(nlog 'generation 2')" = 0

kill -TERM "$rtm"; wait "$rtm"; rc=$?; rtm=
check "SIGTERM: rtrmgr exits 0 (got $rc)" test $rc = 0
((fail > 0)) && cat "$tmp/log"
check_summary ipc-limits
