#!/usr/bin/env bash
# tests/integration/test_rtrmgr_fdstore.sh: tern-rtrmgr's fd store (issue 26,
# docs/rtrmgr.md "State that outlives a component"): a component's memfd
# survives its kill -9 and a planned restart, bad records are refused and
# change nothing, a state that crashes its component twice in a row is
# discarded, a component removed by a reload loses its state, and under
# systemd the fds go to systemd's fd store and come back to a new rtrmgr.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
tools=${TERN_TOOLS:-$root/build/tests/tools}
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/rtm-fds.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
rtm_pids=()
lis=
cleanup() {
	local p
	for p in "${rtm_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	[[ -n $lis ]] && kill "$lis" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

probe=$tools/fdprobe
conf() { # the components' lines
	cat <<EOF
backoff-initial 50ms;
backoff-max 200ms;
failure-limit 50;
stop-grace 2s;
$*
EOF
}
comp() { echo "component $1 { binary $probe; args \"$2\" \"$tmp/$1.out\"; privileges root; }"; }
conf "$(comp keep run) $(comp loopy crash) $(comp bad bad)" >"$tmp/rtrmgr.conf"

st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state" 2>/dev/null; }
last() { tail -n 1 "$tmp/$1.out" 2>/dev/null; }
# the last "gen=" line of a start (not the "waiting" one)
start_line() { grep -v waiting "$tmp/$1.out" 2>/dev/null | grep '^gen=' | tail -n 1; }
waiting_gen() { grep -q "^gen=$2 waiting" "$tmp/$1.out" 2>/dev/null; }
start_rtrmgr() { # [env...]
	env "$@" timeout --kill-after=5 60 "$bindir/tern-rtrmgr" -c "$tmp/rtrmgr.conf" \
	    --rundir "$run" --foreground 2>>"$tmp/rtrmgr.log" &
	rtm_pids+=($!)
	rtm=$!
}
rtm_pid() { pgrep -P "$rtm" -x tern-rtrmgr || echo "$rtm"; }
bail() { cat "$tmp/rtrmgr.log"; for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; check_summary rtrmgr-fdstore; exit 1; }

# ---- 1. a first start: nothing kept; each keeps its counter --------------
start_rtrmgr
check "keep: first instance starts with an empty store" wait_until 5 waiting_gen keep 1
check "keep: its line says store=yes handed=0 counter=1" \
    test "$(start_line keep)" = "gen=1 store=yes handed=0 counter=1"
((fail > 0)) && bail

# ---- 2. kill -9: the next instance gets the same memfd -------------------
kill -9 "$(st_pid keep)"
check "kill -9: generation 2 comes up" wait_until 5 waiting_gen keep 2
check "kill -9: it got the counter back (handed=1 counter=2)" \
    test "$(start_line keep)" = "gen=2 store=yes handed=1 counter=2"
check "rtrmgr logged the handover" grep -q "keep: handed its kept state (1 fds)" "$tmp/rtrmgr.log"

# ---- 3. a planned restart keeps it too ------------------------------------
out=$("$tools/ipccall" "$run" rtrmgr restart keep 2>&1)
check "restart keep: accepted ($out)" has "$out" "^OK"
check "restart: generation 3 up" wait_until 5 waiting_gen keep 3
check "restart: counter=3 from the same memfd" \
    test "$(start_line keep)" = "gen=3 store=yes handed=1 counter=3"

# ---- 4. bad records: refused, answered, nothing changed -------------------
check "bad: its run ended" wait_until 5 waiting_gen bad 1
b=$tmp/bad.out
check "unknown record refused" grep -qx "unknown: err unknown record 'bogus'" "$b"
check "put without an fd refused" grep -qx "put-no-fd: err put without an fd" "$b"
check "del with an fd refused" grep -qx "del-with-fd: err an fd where none belongs" "$b"
check "a bad name refused" grep -qx "bad-name: err bad name (only A-Z a-z 0-9 . _ -)" "$b"
check "two fds in one record refused" grep -qx "two-fds: err more than one fd, or cut short" "$b"
check "an 'fd' record from a component refused" grep -qx "fd-record: err not a request" "$b"
check "del of a name not kept refused" grep -qx "del-absent: err no nothere" "$b"
check "a record over 128 bytes refused" grep -qx "too-long: err more than one fd, or cut short" "$b"
check "the store takes 63 more (64 in all)" grep -qx "filled: 63 ok" "$b"
check "the 65th is refused: full" grep -qx "onemore: the store refused: full (64 fds)" "$b"
check "rtrmgr logged the refusals" grep -q "bad: state channel: refused: unknown record 'bogus'" "$tmp/rtrmgr.log"
kill -9 "$(st_pid bad)"
check "bad: generation 2 up" wait_until 5 waiting_gen bad 2
check "bad: it got exactly what was kept: 63 fds (64 - extra01), counter=2" \
    test "$(start_line bad)" = "gen=2 store=yes handed=63 counter=2"
n=$(ls "/proc/$(st_pid bad)/fd" | wc -l)
check "bad: none of the refused fds leaked into it ($n fds open; <= 63 + 3 std + channel + memfd)" \
    test "$n" -le 68

# ---- 5. a state that crashes its component: discarded after two ----------
check "loopy: first instance up (no state)" wait_until 5 waiting_gen loopy 1
kill -9 "$(st_pid loopy)"
# gen 2 and 3 start from the counter and abort; gen 4 starts without it
check "loopy: after two crashes with the state, an instance starts without it" \
    wait_until 10 waiting_gen loopy 4
check "loopy: generations 2 and 3 had been handed it" \
    test "$(grep -c 'handed=1' "$tmp/loopy.out")" = 2
check "loopy: generation 4 got nothing (handed=0 counter=1)" \
    test "$(start_line loopy)" = "gen=4 store=yes handed=0 counter=1"
check "rtrmgr said why" grep -q "loopy: its kept state (1 fds) discarded: it crashed twice in a row after starting from it" "$tmp/rtrmgr.log"

# ---- 6. a reload that removes a component discards its state --------------
conf "$(comp keep run) $(comp loopy crash)" >"$tmp/rtrmgr.conf"
kill -HUP "$(rtm_pid)"
check "reload: bad is removed" wait_until 5 grep -q "bad: stopped and removed" "$tmp/rtrmgr.log"
check "reload: its state discarded, said so" grep -q "bad: its kept state (63 fds) discarded: no longer in the config" "$tmp/rtrmgr.log"
conf "$(comp keep run) $(comp loopy crash) $(comp bad bad)" >"$tmp/rtrmgr.conf"
kill -HUP "$(rtm_pid)"
check "reload: bad back, from nothing (handed=0 counter=1)" \
    wait_until 5 bash -c "grep -v waiting '$tmp/bad.out' | grep '^gen=' | tail -n 1 | grep -q 'handed=0 counter=1\$'"
conf "$(comp keep run) $(comp loopy crash)" >"$tmp/rtrmgr.conf"
kill -HUP "$(rtm_pid)"
wait_until 5 grep -q "no longer in the config" "$tmp/rtrmgr.log"

# ---- 7. an orderly shutdown, then a start: a fresh boot ---------------------
kill -TERM "$(rtm_pid)"
wait "$rtm" 2>/dev/null
start_rtrmgr
check "after an orderly shutdown keep starts from nothing" \
    wait_until 5 bash -c "grep '^gen=' '$tmp/keep.out' | grep -v waiting | tail -n 1 | grep -q 'handed=0 counter=1\$'"
kill -TERM "$(rtm_pid)"
wait "$rtm" 2>/dev/null

# ---- 8. under systemd: FDSTORE=1 out, LISTEN_FDS back ------------------------
run=$tmp/run2
# A stand-in for systemd's notify socket that keeps every fd it is given
# (their names in the log, the fds open in this process).
cat >"$tmp/fdstore.py" <<'EOF'
import os, socket, sys
path, log = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
kept = []
out = open(log, "a", buffering=1)
while True:
    msg, fds, flags, addr = socket.recv_fds(s, 4096, 16)
    m = msg.decode(errors="replace").replace("\n", "|")
    kinds = [os.readlink("/proc/self/fd/%d" % f) for f in fds]
    kept += fds
    out.write("%s fds=%d %s %s\n" % (m, len(fds), " ".join(kinds),
              " ".join("/proc/%d/fd/%d" % (os.getpid(), f) for f in fds)))
EOF
notes=$tmp/notify.log
: >"$notes"
python3 "$tmp/fdstore.py" "$tmp/notify.sock" "$notes" &
lis=$!
wait_until 5 test -S "$tmp/notify.sock" || bail
conf "$(comp keep run)" >"$tmp/rtrmgr.conf"
: >"$tmp/keep.out"
start_rtrmgr NOTIFY_SOCKET="$tmp/notify.sock"
check "systemd: keep up" wait_until 5 waiting_gen keep 1
check "systemd: the counter went to the fd store as keep/counter (a memfd)" \
    wait_until 5 grep -q "^FDSTORE=1|FDNAME=keep/counter fds=1 /memfd:fdprobe" "$notes"
# rtrmgr and keep die at once: only systemd's copy is left
kill -9 "$(rtm_pid)" "$(st_pid keep)"
wait "$rtm" 2>/dev/null
sleep 0.2
fdpath=$(grep -m1 "FDNAME=keep/counter" "$notes" | awk '{ print $NF }')
# a new rtrmgr as systemd would start it: the kept fd as 3, LISTEN_* naming
# it FDNAME
start_from_systemd() {
	exec 7<>"$fdpath"
	timeout --kill-after=5 30 bash -c 'exec 3<&7 7<&-; export LISTEN_PID=$$; exec "$@"' _ \
	    env LISTEN_FDS=1 LISTEN_FDNAMES="$1" NOTIFY_SOCKET="$tmp/notify.sock" \
	    "$bindir/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$run" --foreground 2>>"$tmp/rtrmgr.log" &
	rtm_pids+=($!)
	rtm=$!
	exec 7<&-
}
start_from_systemd keep/counter
check "systemd: a new rtrmgr takes the fd back" \
    wait_until 5 grep -q "1 state fds back from systemd's fd store" "$tmp/rtrmgr.log"
check "systemd: keep starts from it (handed=1 counter=2)" \
    wait_until 5 bash -c "grep '^gen=' '$tmp/keep.out' | grep -v waiting | tail -n 1 | grep -q 'handed=1 counter=2\$'"
# a name of no component: closed, and out of systemd's store
kill -9 "$(rtm_pid)" "$(st_pid keep)"
wait "$rtm" 2>/dev/null
start_from_systemd gone/counter
check "systemd: an fd of no component is closed, said" \
    wait_until 5 grep -q "fd gone/counter from systemd: no component of that name keeps it: closed" "$tmp/rtrmgr.log"
check "systemd: and removed from its store" \
    wait_until 5 grep -q "^FDSTOREREMOVE=1|FDNAME=gone/counter fds=0" "$notes"
kill -TERM "$(rtm_pid)"
wait "$rtm" 2>/dev/null
check "systemd: an orderly shutdown removes keep/counter from its store" \
    grep -q "^FDSTOREREMOVE=1|FDNAME=keep/counter fds=0" "$notes"
((fail > 0)) && bail
check_summary rtrmgr-fdstore
