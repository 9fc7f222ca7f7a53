#!/usr/bin/env bash
# tests/integration/test_rib_daemon.sh: the real tern-rib binary: options,
# sockets in a temp rundir, runs without tern-fwd and without tern-mgmt (the
# hold timer), refuses a second instance on the same rundir, clean SIGTERM;
# then under tern-rtrmgr with the lifecycle STATUS health check: ready,
# kill -9 -> generation 2, stopped with rtrmgr. (The FIB, resync and query
# behaviour over IPC is in tests/unit/rib/test_daemon.c.)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done; }

tmp=$(mktemp -d /tmp/rib-daemon.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
rib= rtm=
cleanup() {
	local p
	[[ -n $rib ]] && kill -9 "$rib" 2>/dev/null
	[[ -n $rtm ]] && kill -9 "$rtm" 2>/dev/null
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- options ----
check "--help says what works" bash -c "'$bindir/tern-rib' --help | grep -q 'downloads the FIB'"
timeout 5 "$bindir/tern-rib" --hold-ms=x >/dev/null 2>&1; rc=$?
check "a bad option exits 2 (got $rc)" test $rc = 2

# ---- alone: no fwd, no mgmt ----
timeout 20 "$bindir/tern-rib" --rundir "$run" --hold-ms=200 2>"$tmp/rib.log" &
rib=$!
socks() { [[ -S $run/rib.sock && -S $run/rib-ro.sock ]]; }
check "serves rib.sock and rib-ro.sock" wait_for 5 socks
held() { grep -q "no static resync from mgmt in 200 ms" "$tmp/rib.log"; }
check "no mgmt: the hold timer lets it go on" wait_for 5 held
timeout 5 "$bindir/tern-rib" --rundir "$run" 2>"$tmp/rib2.log"; rc=$?
check "a second tern-rib on the same rundir is refused (rc $rc)" test $rc != 0
check "the first one still runs and keeps its socket" bash -c "kill -0 $rib && test -S '$run/rib.sock'"
t0=$(date +%s%N)
kill -TERM "$rib"; wait "$rib"; rc=$?; rib=
ms=$((($(date +%s%N) - t0) / 1000000))
check "SIGTERM: exits 0 (got $rc) in $ms ms" test $rc = 0 -a $ms -lt 3000
check "SIGTERM: sockets removed" bash -c "! test -e '$run/rib.sock'"
check "no error logged" bash -c "! grep -q ': err' '$tmp/rib.log'"

# ---- under rtrmgr ----
rm -rf "$run"
cat >"$tmp/rtrmgr.conf" <<EOF
health-check ipc;
health-interval 200ms;
health-timeout 150ms;
backoff-initial 50ms;
stop-grace 3s;
component rib {
	binary $bindir/tern-rib;
	args "--hold-ms=300";
}
EOF
[[ $(id -u) == 0 ]] && sed -i '1i user nobody;' "$tmp/rtrmgr.conf"
"$bindir/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$run" 2>>"$tmp/log" &
rtm=$!
nlog() { grep -c "$1" "$tmp/log" 2>/dev/null; }
st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state" 2>/dev/null; }
running1() { [[ $(nlog "rib: running (pid .* generation 1)") -ge 1 ]]; }
check "rtrmgr: rib ready through lifecycle STATUS" wait_for 5 running1
p1=$(st_pid rib)
kill -9 "$p1" 2>/dev/null
running2() { [[ $(nlog "rib: running (pid .* generation 2)") -ge 1 ]]; }
check "kill -9 rib: back as generation 2" wait_for 5 running2
p2=$(st_pid rib)
check "kill -9 rib: new pid" test -n "$p2" -a "$p2" != "$p1"
sleep 0.5
check "rib passes its health checks" test "$(nlog 'health check')" = 0
kill -TERM "$rtm"; wait "$rtm"; rc=$?; rtm=
check "SIGTERM rtrmgr: exits 0 (got $rc)" test $rc = 0
check "SIGTERM rtrmgr: rib gone" bash -c "! kill -0 $p2 2>/dev/null || grep -q ') Z ' /proc/$p2/stat"

((fail > 0)) && cat "$tmp/rib.log" "$tmp/log"
echo "$pass passed, $fail failed"
((fail == 0))
