#!/usr/bin/env bash
# tests/integration/test_mgmt_persist.sh: issue 24 points 1, 8, 9 and 10
# through the real binaries: what a kill -9 (or a stop) of tern-mgmt must
# not lose, and files that must not block it. tern-mgmt runs as nobody in /
# (as under tern-rtrmgr) with a "minute" of 2 s (TERN_MGMT_MINUTE_MS);
# ternsh as root, scripts on a FIFO and a real terminal (tmux).
# 1. commit confirmed: killed within its minute, the next tern-mgmt rolls
#    back on time; killed and started after its deadline, it rolls back at
#    start (logged, "via rollback (confirm expired)"); a plain commit after
#    the restart confirms it.
# 8. the store: made 0750 by tern-mgmt, commits (and .gz) 0640, files and
#    directory left open by an older tern tightened at start.
# 9. a FIFO as the boot config, as a commit of the store, as a log, as the
#    shell's history; load merge of a FIFO, /dev/zero, a directory; save
#    onto a FIFO: refused at once, the loop answering meanwhile.
# 10. a shell in configuration mode across a kill -9 of tern-mgmt gets its
#    candidate back (on a terminal and as a script), the configure lock held
#    for it meanwhile; a restart by SIGTERM keeps it too; it is dropped when
#    its shell ends, or when the shell does not come back in time.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null ||
    ! id nobody >/dev/null 2>&1 || ! command -v tmux >/dev/null; then
	echo "skip: needs root, setpriv, tmux and the user nobody"
	check_summary mgmt-persist
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-persist.XXXXXX)
chmod 0755 "$tmp"
export TERN_RUNDIR=$tmp/run
state=$tmp/state
store=$state/store # made by tern-mgmt
mkdir -p "$state" "$TERN_RUNDIR"
chown nobody:nogroup "$state" "$TERN_RUNDIR"
chmod 0750 "$state" "$TERN_RUNDIR"
mgmt_pid= shell_pid=
sock=$tmp/tmux.sock
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null
	[[ -n $shell_pid ]] && kill "$shell_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# a script shell that ended (it stops at its first error) must not end
# the test with SIGPIPE
trap '' PIPE

minute_ms=2000
# tern-mgmt as nobody, in /, as tern-rtrmgr starts it (one process: $! is
# tern-mgmt's pid, the one killed)
start_mgmt() {
	(cd / && exec env TERN_MGMT_MINUTE_MS=$minute_ms setpriv \
	    --reuid=nobody --regid=nogroup --clear-groups \
	    "$bin/tern-mgmt" --store="$store" --rundir="$TERN_RUNDIR" \
	    --log-level info) >>"$tmp/mgmt.log" 2>&1 7>&- 8>&- &
	mgmt_pid=$!
	local end=$((SECONDS + 10))
	until [[ -S $TERN_RUNDIR/mgmt.sock ]] &&
	    timeout 2 "$bin/ternsh" -c 'show version' >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-mgmt did not start"; tail "$tmp/mgmt.log"; return 1; }
		sleep 0.05
	done
}
kill9_mgmt() { kill -9 "$mgmt_pid" 2>/dev/null; wait "$mgmt_pid" 2>/dev/null; mgmt_pid=; }
# SIGTERM, bounded: a tern-mgmt blocked in a file never sees it
stop_mgmt() {
	[[ -n $mgmt_pid ]] || return 0
	kill "$mgmt_pid" 2>/dev/null
	local end=$((SECONDS + 5))
	while kill -0 "$mgmt_pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.05; done
	kill -9 "$mgmt_pid" 2>/dev/null
	wait "$mgmt_pid" 2>/dev/null
	mgmt_pid=
}
sh_() { timeout 10 "$bin/ternsh" "$@" 2>&1; }
hostname_is() { sh_ -c "show configuration" | grep -q "host-name $1;"; }
hasnt() { ! grep -q -- "$2" <<<"$1"; }
# a ternsh kept open across restarts of mgmt, its lines fed through a FIFO
shell_open() {
	rm -f "$tmp/in"; mkfifo "$tmp/in"
	"$bin/ternsh" <"$tmp/in" >"$tmp/out" 2>&1 7>&- &
	shell_pid=$!
	exec 8>"$tmp/in"
}
shell_say() { printf '%s\n' "$@" >&8; sleep 0.4; }
shell_close() { exec 8>&-; wait "$shell_pid"; shell_pid=; }
mlog() { tail -n +"$1" "$tmp/mgmt.log"; }
logmark() { wc -l <"$tmp/mgmt.log"; }

: >"$tmp/mgmt.log"
start_mgmt || exit 1

# ---- point 8: the store is tern-mgmt's, not everyone's ----
check "the store made by tern-mgmt: 0750" test "$(stat -c %a "$store")" = 750
sh_ -c configure -c "set system host-name base" -c commit -c exit >/dev/null
sh_ -c configure -c "set rib ecmp-width 2" -c commit -c exit >/dev/null
check "a commit: 0640 (was 0644)" test "$(stat -c %a "$store/commit.2")" = 640
check "  ... an older one compressed: 0640 too" test "$(stat -c %a "$store/commit.1.gz")" = 640
check "  ... no file of the store readable by others" test -z "$(find "$store" -perm -o=r)"
stop_mgmt
chmod 0755 "$store"; chmod 0644 "$store/commit.2" "$store/commit.1.gz"
start_mgmt || exit 1
check "a store an older tern left open: 0750 again at start" test "$(stat -c %a "$store")" = 750
check "  ... its files 0640" test "$(stat -c %a "$store/commit.2"):$(stat -c %a "$store/commit.1.gz")" = 640:640
check "  ... and said so" grep -q "commit files were readable by everyone: now mode 0640" "$tmp/mgmt.log"
check "the candidates' directory: 0700" test "$(stat -c %a "$TERN_RUNDIR/mgmt-sessions")" = 700
check "tests/lib/router.sh makes the store 0750" grep -q 'install -d -m 0750 .*ROUTER_STATE/config' "$root/tests/lib/router.sh"

# ---- point 1: a pending commit confirmed survives tern-mgmt ----
# killed within its minute: the next tern-mgmt rolls back on time
m=$(logmark)
out=$(sh_ -c configure -c "set system host-name confirm-a" -c "commit confirmed 1" -c exit)
check "commit confirmed 1 ('minute' of 2 s)" has "$out" "rolled back in 1 minute"
t0=$SECONDS
kill9_mgmt
start_mgmt || exit 1
out=$(sh_ -c "show system commit")
check "killed within its minute: still pending after the restart" has "$out" "a commit confirmed is pending: rolled back at 20"
check "  ... logged as resumed" bash -c "tail -n +$m '$tmp/mgmt.log' | grep -q 'commit confirmed (commit [0-9]* by root, 1 minute) is still pending: rolled back at'"
check "  ... and rolled back when its time is up (was: never)" wait_until 8 hostname_is base
check "  ... not before" test $((SECONDS - t0)) -ge 1
out=$(sh_ -c "show system commit")
check "  ... recorded as the rollback of tern-mgmt" has "$out" "^0   20.* UTC by nobody via rollback (confirm expired), +1 -1 lines$"
check "  ... with why" has "$out" "^    commit confirmed was not confirmed within 1 minute$"
check "  ... nothing pending any more" hasnt "$out" "pending"

# killed, and started again after its deadline: rolled back at start
m=$(logmark)
sh_ -c configure -c "set system host-name confirm-b" -c "commit confirmed 1" -c exit >/dev/null
kill9_mgmt
sleep 2.5
start_mgmt || exit 1
check "started after the deadline: rolled back at start (was: kept for ever)" hostname_is base
check "  ... logged, saying tern-mgmt was not running" bash -c "tail -n +$m '$tmp/mgmt.log' | grep -q 'was not confirmed by .* (tern-mgmt was not running then): rolling back to commit'"
out=$(sh_ -c "show system commit")
check "  ... in the history as rollback (confirm expired)" has "$out" "^0   20.* UTC by nobody via rollback (confirm expired), +1 -1 lines$"
check "  ... after the commit confirmed" has "$out" "^1   20.* UTC by root via ternsh, commit confirmed 1 min, +1 -1 lines$"

# killed, then confirmed by a plain commit in the next tern-mgmt
sh_ -c configure -c "set system host-name confirm-c" -c "commit confirmed 1" -c exit >/dev/null
kill9_mgmt
start_mgmt || exit 1
out=$(sh_ -c configure -c commit -c exit)
check "a plain commit after the restart confirms it" has "$out" "commit complete"
sleep 2.5
check "  ... the change stays past its minute" hostname_is confirm-c
check "  ... nothing pending" hasnt "$(sh_ -c 'show system commit')" "pending"
stop_mgmt; start_mgmt || exit 1
check "  ... not even after another restart" hostname_is confirm-c

# ---- point 9: no file operation blocks tern-mgmt ----
mkfifo "$tmp/boot.fifo"
chmod 0644 "$tmp/boot.fifo"
# FILE: tern-mgmt with FILE as the boot config of an empty store, in a
# rundir of its own, bounded
boot_try() {
	(cd / && exec timeout -k 2 10 setpriv --reuid=nobody --regid=nogroup \
	    --clear-groups "$bin/tern-mgmt" --store="$state/boot-store" \
	    --rundir="$state/boot-run" --config="$1") >>"$tmp/mgmt.log" 2>&1
}
m=$(logmark)
boot_try "$tmp/boot.fifo"; rc=$?
check "a FIFO as the boot config: tern-mgmt stops at once (was: blocked in open)" test $rc != 124 -a $rc != 0
check "  ... saying why" bash -c "tail -n +$m '$tmp/mgmt.log' | grep -q 'boot.fifo: not a regular file'"
boot_try /dev/zero; rc=$?
check "/dev/zero as the boot config: refused" test $rc != 124 -a $rc != 0
boot_try "$tmp"; rc=$?
check "a directory as the boot config: refused" test $rc != 124 -a $rc != 0
# a FIFO as an older commit of the store
oldest=$(ls "$store" | sed -n 's/^commit\.\([0-9]*\)\.gz$/\1/p' | sort -n | head -1)
mv "$store/commit.$oldest.gz" "$tmp/keep.gz"
mkfifo "$store/commit.$oldest"; chown nobody:nogroup "$store/commit.$oldest"
n=$(ls "$store" | grep -c '^commit\.')
t0=$SECONDS
out=$(sh_ -c "show system commit"); rc=$?
check "a FIFO in the store: show system commit answers (was: the loop blocked)" test $rc = 0
check "  ... listing every commit" has "$out" "^$n commits kept"
out=$(sh_ -c configure -c "rollback $((n - 1))"); rc=$?
check "  ... rollback to it: refused" has "$out" "commit.$oldest: not a regular file"
check "  ... at once, the loop still answers" test $((SECONDS - t0)) -lt 8
check "  ... and so does the next command" test "$(sh_ -c 'show version')" = "tern 0.1.0"
rm -f "$store/commit.$oldest"; mv "$tmp/keep.gz" "$store/commit.$oldest.gz"
# a FIFO named like a component's log
mkfifo "$TERN_RUNDIR/evil.log"
echo "2026-12-03T00:00:00.000Z good[1]: info: a good line" >"$TERN_RUNDIR/good.log"
chmod 0644 "$TERN_RUNDIR/good.log"
out=$(sh_ -c "show log evil"); rc=$?
check "show log of a FIFO: refused at once (was: blocked)" has "$out" "evil.log: not a regular file"
out=$(sh_ -c "show log"); rc=$?
check "  ... show log of all passes it by" has "$out" "a good line"
rm -f "$TERN_RUNDIR/evil.log" "$TERN_RUNDIR/good.log"
# the shell's files: load of a FIFO, /dev/zero, a directory; save onto a
# FIFO; a FIFO as its history
out=$(sh_ -c configure -c "load merge $tmp/boot.fifo"); rc=$?
check "load merge FIFO: refused at once" has "$out" "error: load merge $tmp/boot.fifo: not a regular file"
out=$(sh_ -c configure -c "load merge /dev/zero"); rc=$?
check "load merge /dev/zero: refused" has "$out" "error: load merge /dev/zero: not a regular file"
out=$(sh_ -c configure -c "load replace $tmp"); rc=$?
check "load replace DIRECTORY: refused" has "$out" "error: load replace $tmp: is a directory"
out=$(sh_ -c configure -c "save $tmp/boot.fifo"); rc=$?
check "save onto a FIFO: refused" has "$out" "error: save $tmp/boot.fifo: not a regular file"
tmux -S "$sock" new-session -d -s h -x 150 -y 30 \
    "env TERN_RUNDIR=$TERN_RUNDIR TERNSH_HISTORY=$tmp/boot.fifo HOME=$tmp $bin/ternsh"
screen() { tmux -S "$sock" capture-pane -p -t "$1"; }
see() { # TARGET REGEX: bounded
	local end=$((SECONDS + 6))
	until screen "$1" | grep -q -- "$2"; do ((SECONDS < end)) || return 1; sleep 0.05; done
}
check "a FIFO as the shell's history: the prompt comes (was: blocked)" see h "@[^ ]*> *$"
check "  ... saying the history is not used" see h "history $tmp/boot.fifo is not a regular file: not used"
tmux -S "$sock" send-keys -t h "exit" Enter
sleep 0.3
tmux -S "$sock" kill-session -t h 2>/dev/null

# ---- point 10: the candidate comes back to its shell ----
# on a terminal, across kill -9
tmux -S "$sock" new-session -d -s t -x 150 -y 40 \
    "env TERN_RUNDIR=$TERN_RUNDIR TERNSH_HISTORY=$tmp/hist HOME=$tmp $bin/ternsh"
keys() { tmux -S "$sock" send-keys -t t "$@"; }
see t "@[^ ]*> *$"
for l in configure "set system host-name kept-on-tty" "set rib ecmp-width 3"; do
	keys "$l" Enter
	sleep 0.3
done
see t "@[^ ]*# *$"
kill9_mgmt
start_mgmt || exit 1
keys "show | compare" Enter
check "a terminal across kill -9: the shell says its candidate is back (was: lost)" see t "tern-mgmt restarted: reconnected in session [0-9]* with the candidate of session [0-9]* (its uncommitted changes are kept)"
check "  ... the candidate as it was" see t "^+ *host-name kept-on-tty;"
check "  ... both changes" see t "^+ *ecmp-width 3;"
check "  ... still in configuration mode" bash -c "tmux -S '$sock' capture-pane -p -t t | grep -v '^ *$' | tail -1 | grep -q '@[^ ]*# *$'"
keys "commit" Enter
check "  ... and commits" see t "commit complete"
check "  ... running has it" wait_until 5 hostname_is kept-on-tty
keys "exit" Enter
sleep 0.3
tmux -S "$sock" kill-session -t t 2>/dev/null
check "  ... nothing kept after exit" test -z "$(ls "$TERN_RUNDIR/mgmt-sessions")"

# a script on stdin across kill -9; the configure lock held for it
shell_open
shell_say configure "set system host-name kept-script"
kill9_mgmt
start_mgmt || exit 1
out=$(sh_ -c configure); rc=$?
check "meanwhile, another session may not configure" test $rc = 1
check "  ... told why and until when" has "$out" "being edited by root (session [0-9]*): its shell has not come back since tern-mgmt restarted: its candidate is kept for it until [0-9:]* UTC, or until that shell (pid $shell_pid) ends"
shell_say "show | compare" "set rib ecmp-width 5"
# a stop (SIGTERM: restart mgmt) keeps it too
stop_mgmt
start_mgmt || exit 1
shell_say "show | compare" "exit discard"
shell_close
out=$(cat "$tmp/out")
check "a script across kill -9 and a stop: its candidate back both times" test "$(grep -c 'with the candidate of session' <<<"$out")" = 2
check "  ... the edit before the kill" has "$out" "^+ *host-name kept-script;"
check "  ... and the one between" has "$out" "^+ *ecmp-width 5;"
check "  ... never 'no session'" hasnt "$out" "no session"
out=$(sh_ -c configure -c exit); rc=$?
check "  ... its exit frees the lock" test $rc = 0

# its shell ends while no tern-mgmt runs: dropped at start, the lock free
shell_open
shell_say configure "set system host-name orphan"
kill9_mgmt
shell_close
m=$(logmark)
start_mgmt || exit 1
out=$(sh_ -c configure -c exit); rc=$?
check "a candidate whose shell has ended: not kept, configure works" test $rc = 0
check "  ... logged" bash -c "tail -n +$m '$tmp/mgmt.log' | grep -q 'not kept: its shell (pid [0-9]*) has ended'"
check "  ... its journal gone" test -z "$(ls "$TERN_RUNDIR/mgmt-sessions")"

# its shell lives but does not come back in time (here 1.5 s; 1 hour by
# default): dropped, and told when it comes back
shell_open
shell_say configure "set system host-name too-late"
kill9_mgmt
m=$(logmark)
TERN_MGMT_ORPHAN_TTL_MS=1500 start_mgmt || exit 1
check "a shell that does not come back in time: the lock is freed" wait_until 6 bash -c "timeout 5 '$bin/ternsh' -c configure -c exit >/dev/null 2>&1"
check "  ... logged" bash -c "tail -n +$m '$tmp/mgmt.log' | grep -q 'its candidate is dropped, uncommitted changes lost: its shell did not come back within 1 s'"
shell_say "show | compare"
shell_close
out=$(cat "$tmp/out")
check "  ... the shell, back late, is told its candidate is lost" has "$out" "reconnected in session [0-9]*; the old session's candidate is lost"
check "  ... and when it was dropped" has "$out" "^notice: the candidate of your session before tern-mgmt restarted was dropped at [0-9:]* UTC"
check "  ... not committed" hasnt "$(sh_ -c 'show configuration')" "too-late"

stop_mgmt
check_summary mgmt-persist
