#!/usr/bin/env bash
# tests/integration/test_rtrmgr_adopt.sh: tern-rtrmgr as a process: kill -9 of
# rtrmgr leaves the components running and a new rtrmgr re-adopts the same
# pids (and still restarts a crashed one); SIGTERM stops them in reverse order.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}/tern-rtrmgr
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/rtm-adopt.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
rtm_pids=()
cleanup() {
	local p
	for p in "${rtm_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	# the components, by the pids rtrmgr recorded
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	for p in "${seen_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
seen_pids=()
trap cleanup EXIT

cat >"$tmp/comp.sh" <<'EOF'
#!/bin/sh
trap 'echo "$TERN_COMPONENT" >> "$TERN_RUNDIR/../order"; exit 0' TERM
while :; do sleep 0.05; done
EOF
chmod 755 "$tmp/comp.sh"
cat >"$tmp/rtrmgr.conf" <<EOF
backoff-initial 50ms;
backoff-max 1s;
stop-grace 2s;
component mgmt { binary $tmp/comp.sh; privileges root; }
component rib { binary $tmp/comp.sh; privileges root; }
component fwd { binary $tmp/comp.sh; privileges root; }
EOF

# pid and generation of a component, from the state file
st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state" 2>/dev/null; }
st_gen() { awk -v n="$1" '$1 == "comp" && $2 == n { print $3 }' "$run/rtrmgr.state" 2>/dev/null; }
all_up() { local c p; for c in mgmt rib fwd; do p=$(st_pid $c); [[ -n $p && $p != 0 ]] || return 1; done; }
wait_for() { # seconds, command...
	local end=$((SECONDS + $1)); shift
	until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done
}
# running, and not a zombie (adopted children are reaped by init, later)
alive() { local s; s=$(sed -n 's/.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null); [[ -n $s && $s != Z ]]; }
start_rtrmgr() {
	timeout --kill-after=5 30 "$bin" -c "$tmp/rtrmgr.conf" --rundir "$run" \
	    --foreground 2>>"$tmp/rtrmgr.log" &
	rtm_pids+=($!)
	rtm=$!
}

# 1. boot
start_rtrmgr
check "boot: all three components up" wait_for 5 all_up
if ((fail > 0)); then
	cat "$tmp/rtrmgr.log"; echo "$pass passed, $fail failed"; exit 1
fi
declare -A pid0
for c in mgmt rib fwd; do pid0[$c]=$(st_pid $c); seen_pids+=("${pid0[$c]}"); done

# 2. kill -9 of rtrmgr: the components keep running
# (timeout runs rtrmgr as its child: kill rtrmgr itself, not timeout)
rpid=$(pgrep -P "$rtm" -x tern-rtrmgr || echo "$rtm")
kill -9 "$rpid"
wait "$rtm" 2>/dev/null
sleep 0.2
check "kill -9 rtrmgr: mgmt still running" alive "${pid0[mgmt]}"
check "kill -9 rtrmgr: rib still running" alive "${pid0[rib]}"
check "kill -9 rtrmgr: fwd still running" alive "${pid0[fwd]}"

# 3. a new rtrmgr re-adopts the same pids and generations
start_rtrmgr
adopted() { [[ $(grep -c "adopted pid" "$tmp/rtrmgr.log") -ge 3 ]]; }
check "new rtrmgr: adopted all three (log)" wait_for 5 adopted
sleep 0.2
for c in mgmt rib fwd; do
	check "new rtrmgr: $c keeps pid ${pid0[$c]} generation 1" \
	    test "$(st_pid $c)" = "${pid0[$c]}" -a "$(st_gen $c)" = 1
done

# 4. a later crash of an adopted component is noticed and restarted
kill -9 "${pid0[rib]}"
rib_back() { local p; p=$(st_pid rib); [[ -n $p && $p != 0 && $p != "${pid0[rib]}" ]]; }
check "crash of adopted rib: restarted with a new pid" wait_for 5 rib_back
check "crash of adopted rib: generation 2" test "$(st_gen rib)" = 2
seen_pids+=("$(st_pid rib)")
check "crash of adopted rib: mgmt and fwd untouched" \
    test "$(st_pid mgmt)" = "${pid0[mgmt]}" -a "$(st_pid fwd)" = "${pid0[fwd]}"

# 5. SIGTERM: everything stops, in reverse order, and rtrmgr exits 0
rib1=$(st_pid rib)
rpid=$(pgrep -P "$rtm" -x tern-rtrmgr || echo "$rtm")
kill -TERM "$rpid"
wait "$rtm"
rc=$?
check "SIGTERM: rtrmgr exits 0 (got $rc)" test "$rc" = 0
gone=1
for p in "${pid0[mgmt]}" "$rib1" "${pid0[fwd]}"; do alive "$p" && gone=0; done
check "SIGTERM: all components gone" test $gone = 1
check "SIGTERM: stopped in reverse order (fwd rib mgmt)" \
    test "$(tr '\n' ' ' <"$tmp/order" 2>/dev/null)" = "fwd rib mgmt "
check "SIGTERM: state file records no live pid" \
    test -z "$(awk '$1 == "comp" && $4 != 0' "$run/rtrmgr.state")"

# 6. a second rtrmgr on a held rundir is refused
start_rtrmgr
check "lock: first rtrmgr up again" wait_for 5 all_up
timeout 10 "$bin" -c "$tmp/rtrmgr.conf" --rundir "$run" 2>"$tmp/second.log"
rc=$?
check "lock: second rtrmgr exits 1 (got $rc)" test "$rc" = 1
check "lock: it says who holds the rundir" \
    grep -q "in use by another tern-rtrmgr (pid $(pgrep -P "$rtm" -x tern-rtrmgr || echo "$rtm"))" "$tmp/second.log"
rpid=$(pgrep -P "$rtm" -x tern-rtrmgr || echo "$rtm")
kill -INT "$rpid"
wait "$rtm"
rc=$?
check "SIGINT: orderly stop, exit 0 (got $rc)" test "$rc" = 0

if ((fail > 0)); then
	echo "--- rtrmgr log:"; cat "$tmp/rtrmgr.log"
fi
check_summary rtrmgr-adopt
