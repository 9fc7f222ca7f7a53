#!/usr/bin/env bash
# tests/integration/test_rtrmgr_real.sh: tern-rtrmgr with the real tern-mgmt
# (skipped while tern-mgmt is a skeleton): started as the unprivileged user,
# found ready by the lifecycle STATUS health check over IPC, restarted with a
# new generation after kill -9 (and `show processes` then says so), re-adopted
# after kill -9 of rtrmgr, stopped cleanly on SIGTERM.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if "$bindir/tern-mgmt" --help | grep -q "skeleton only"; then
	echo "skip: tern-mgmt is still a skeleton"
	echo "0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/rtm-real.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
mkdir "$tmp/store"
user=nobody
[[ $(id -u) == 0 ]] && chown "$user" "$tmp/store"
rtm=
cleanup() {
	local p
	[[ -n $rtm ]] && kill -9 "$rtm" 2>/dev/null
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done; }
alive() { local s; s=$(sed -n 's/.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null); [[ -n $s && $s != Z ]]; }
st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state" 2>/dev/null; }
st_gen() { awk -v n="$1" '$1 == "comp" && $2 == n { print $3 }' "$run/rtrmgr.state" 2>/dev/null; }
nlog() { grep -c "$1" "$tmp/log" 2>/dev/null; }

cat >"$tmp/rtrmgr.conf" <<EOF
user $user;
health-check ipc;
health-interval 200ms;
health-timeout 150ms;
backoff-initial 50ms;
stop-grace 3s;
component mgmt {
	binary $bindir/tern-mgmt;
	args "--store=$tmp/store";
}
EOF
start() {
	"$bindir/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$run" 2>>"$tmp/log" &
	rtm=$!
}

start
running1() { [[ $(nlog "mgmt: running (pid .* generation 1)") -ge 1 ]]; }
check "mgmt ready through lifecycle STATUS over IPC" wait_for 5 running1
p1=$(st_pid mgmt)
check "mgmt socket served in the rundir" test -S "$run/mgmt.sock"
if [[ $(id -u) == 0 ]]; then
	check "mgmt runs as $user without capabilities" \
	    test "$(stat -c %U /proc/$p1)" = "$user" -a \
	    "$(awk '/^CapEff/ { print $2 }' /proc/$p1/status)" = 0000000000000000
fi

kill -9 "$p1"
running2() { [[ $(nlog "mgmt: running (pid .* generation 2)") -ge 1 ]]; }
check "kill -9 mgmt: back as generation 2, ready over IPC" wait_for 5 running2
p2=$(st_pid mgmt)
check "kill -9 mgmt: new pid" test -n "$p2" -a "$p2" != "$p1"
# show processes says why the last instance ended, once it is back
procs() { TERN_RUNDIR=$run timeout 5 "$bindir/ternsh" -c "show processes$1" 2>&1; }
killed_shown() { procs "" | grep -q "^mgmt .*generation 1 killed by signal 9"; }
check "show processes: mgmt's generation 1 was killed by signal 9" wait_for 5 killed_shown
check "show processes | json: last_exit -9, signal 9 and the reason" python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
m = [p for p in d['processes'] if p['component'] == 'mgmt'][0]
assert m['last_exit'] == -9 and m['last_end']['signal'] == 9, m
assert m['last_end']['generation'] == 1, m
assert 'killed by signal 9' in m['last_end']['reason'], m" <<<"$(procs ' | json')"

kill -9 "$rtm"; wait "$rtm" 2>/dev/null
start
adopted() { [[ $(nlog "mgmt: adopted pid $p2 generation 2") -ge 1 ]]; }
check "kill -9 rtrmgr: the new one adopts mgmt pid $p2" wait_for 5 adopted
check "kill -9 rtrmgr: mgmt never stopped" alive "$p2"
sleep 1	# health checks of the adopted mgmt go on succeeding
check "adopted mgmt passes its health checks" test "$(nlog 'health check')" = 0

kill -TERM "$rtm"; wait "$rtm"; rc=$?; rtm=
check "SIGTERM: rtrmgr exits 0 (got $rc)" test $rc = 0
check "SIGTERM: mgmt gone" bash -c "! kill -0 $p2 2>/dev/null || grep -q ') Z ' /proc/$p2/stat"

((fail > 0)) && cat "$tmp/log"
check_summary rtrmgr-real
