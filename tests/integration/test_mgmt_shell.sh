#!/usr/bin/env bash
# tests/integration/test_mgmt_shell.sh: tern-mgmt driven by ternsh over real
# IPC sockets: configure/set/delete/show/compare/commit/rollback/discard,
# errors that change nothing, the configure lock, read-only access, commit
# confirmed expiry (told to a connected shell, whose candidate is reset),
# save/load, persistence across a restart of mgmt (a shell open across it
# reconnects, with its candidate), and a kill -9 during commits that never leaves a broken config
# on disk.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/tern-mgmt.XXXXXX)
export TERN_RUNDIR=$tmp/run
store=$tmp/store
mgmt_pid=
start_mgmt() {
	# (7>&-: not the fifo of shell_open, or its ternsh never sees the end)
	"$bin/tern-mgmt" --store="$store" --log-level debug "$@" >>"$tmp/mgmt.log" 2>&1 7>&- &
	mgmt_pid=$!
	local end=$((SECONDS + 10))
	until [[ -S $TERN_RUNDIR/mgmt.sock ]] && sh -c "timeout 2 '$bin/ternsh' -c 'show version'" >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-mgmt did not start"; tail "$tmp/mgmt.log"; return 1; }
		sleep 0.05
	done
}
stop_mgmt() { [[ -n $mgmt_pid ]] && kill "$mgmt_pid" 2>/dev/null && wait "$mgmt_pid" 2>/dev/null; mgmt_pid=; }
shell_pid=
cleanup() {
	[[ -n $shell_pid ]] && kill "$shell_pid" 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
sh_() { timeout 20 "$bin/ternsh" "$@" 2>&1; }
# one ternsh kept open across other steps, its lines fed through a fifo
shell_open() {
	rm -f "$tmp/in"; mkfifo "$tmp/in"
	timeout 30 "$bin/ternsh" <"$tmp/in" >"$tmp/out" 2>&1 &
	shell_pid=$!
	exec 7>"$tmp/in"
}
shell_say() { printf '%s\n' "$@" >&7; sleep 0.3; }
shell_close() { exec 7>&-; wait "$shell_pid"; shell_pid=; }

start_mgmt || exit 1

# 1. operational basics
out=$(sh_ -c "show version"); rc=$?
check "show version" has "$out" "tern 0.1.0"
out=$(sh_ -c "frobnicate"); rc=$?
check "unknown command: exit 1" test $rc = 1
check "unknown command: says what was expected" has "$out" "unknown command 'frobnicate' in operational mode: expected one of: show, clear, monitor, ping, traceroute, configure, restart, stop, start"
out=$(sh_ -c "show nothing")
check "unknown show: lists the show commands" has "$out" "after 'show' expected one of: configuration, route"

# 1b. issue 23: unique prefixes, a pipe of show configuration elsewhere,
# a missing interface named
out=$(sh_ -c "sh ver"); rc=$?
check "a unique prefix: sh ver is show version" test "$rc:$out" = "0:tern 0.1.0"
out=$(sh_ -c "s ver"); rc=$?
check "an ambiguous prefix: exit 1" test $rc = 1
check "  ... names the choices" has "$out" "ambiguous command 's': 's' may be show, stop, start"
out=$(sh_ -c "show version | display set"); rc=$?
check "| display set on another command: refused" test $rc = 1
check "  ... saying where it belongs" has "$out" "'| display set' is for show configuration"
out=$(sh_ -c "show interfaces eth9"); rc=$?
check "show interfaces eth9: exit 1, named" test "$rc" = 1
check "  ... 'no interface eth9', not 'no interfaces'" has "$out" "no interface eth9 (no interface is configured)"

# 2. configure, set, compare, commit
out=$(sh_ -c configure \
	-c "set system host-name r1" \
	-c "set interfaces eth0 device veth0" \
	-c "set interfaces eth0 address 198.18.0.1/24" \
	-c "set protocols static route 198.19.0.0/16 next-hop 198.18.0.2" \
	-c "show | compare" -c commit -c exit); rc=$?
check "configure/set/commit: exit 0" test $rc = 0
check "compare shows the added route" has "$out" "+ *route 198.19.0.0/16"
check "commit complete" has "$out" "commit complete"
out=$(sh_ -c "show configuration")
check "running has the route" has "$out" "198.19.0.0/16"
check "running has the interface" has "$out" "address 198.18.0.1/24"
out=$(sh_ -c "show configuration | display set")
check "display set" has "$out" "set protocols static route 198.19.0.0/16 next-hop 198.18.0.2"
out=$(sh_ -c "show configuration | display set | count")
check "count pipe" has "$out" "Count: [0-9]* lines"
out=$(sh_ -c "show configuration | json")
check "json pipe gives the config as JSON" has "$out" '"198.19.0.0/16"'
check "json is valid JSON" sh -c "printf '%s' '$(printf '%s' "$out" | tr -d "'")' | python3 -m json.tool >/dev/null"
before=$(sh_ -c "show configuration")

# 3. errors change nothing
out=$(sh_ -c configure -c "set protocols static route 198.19.0.0/33 next-hop 198.18.0.2"); rc=$?
check "bad prefix: exit 1" test $rc = 1
check "bad prefix: message names the value" has "$out" "198.19.0.0/33"
out=$(sh_ -c configure -c "set interfaces eth0 mtu 99999"); rc=$?
check "mtu out of range: exit 1" test $rc = 1
check "mtu out of range: says the range" has "$out" "99999"
out=$(sh_ -c configure -c "set protocols static route 198.20.0.0/16 interface eth9" -c commit); rc=$?
check "reference to a missing interface: commit fails" test $rc = 1
check "reference error names eth9" has "$out" "eth9"
check "running unchanged after errors" test "$(sh_ -c 'show configuration')" = "$before"

# 4. discard, exit with changes, rollback
out=$(sh_ -c configure -c "set protocols static route 198.20.0.0/16 next-hop 198.18.0.3" -c exit); rc=$?
check "exit with uncommitted changes refused" has "$out" "uncommitted changes"
out=$(sh_ -c configure -c "set protocols static route 198.20.0.0/16 next-hop 198.18.0.3" -c discard -c "show | compare" -c exit); rc=$?
check "discard then exit works" test $rc = 0
check "commit 2" test "$(sh_ -c configure -c 'delete protocols static route 198.19.0.0/16' -c commit -c exit >/dev/null; echo $?)" = 0
check "route gone after delete" test -z "$(sh_ -c 'show configuration' | grep 198.19.0.0/16)"
out=$(sh_ -c configure -c "rollback 1" -c "show | compare" -c commit -c exit)
check "rollback 1 brings the route back" has "$(sh_ -c 'show configuration')" "198.19.0.0/16"
out=$(sh_ -c configure -c "rollback 49")
check "rollback past history: clear error" has "$out" "rollback"
out=$(sh_ -c "show system commit")
check "commit history counted (3 commits so far)" has "$out" "^3 commits kept"

# 5. the configure lock
coproc HOLD { "$bin/ternsh" 2>&1; }
hold_pid=$HOLD_PID # bash unsets HOLD_PID once the coproc has ended
echo "configure" >&"${HOLD[1]}"
sleep 0.5
out=$(sh_ -c configure); rc=$?
check "second configure is refused while locked" has "$out" "being edited by"
exec {HOLD[1]}>&-
wait "$hold_pid" 2>/dev/null
sleep 0.3
out=$(sh_ -c configure -c exit); rc=$?
check "lock released when the holder's connection ends" test $rc = 0

# 6. read-only access
chmod 0600 "$TERN_RUNDIR/mgmt.sock"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	chmod 0755 "$tmp" "$TERN_RUNDIR"; chmod 0666 "$TERN_RUNDIR/mgmt-ro.sock"
	out=$(timeout 10 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env TERN_RUNDIR="$TERN_RUNDIR" "$bin/ternsh" -c "show configuration" 2>&1); rc=$?
	check "read-only user can show" test $rc = 0
	out=$(timeout 10 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env TERN_RUNDIR="$TERN_RUNDIR" "$bin/ternsh" -c configure 2>&1); rc=$?
	check "read-only user cannot configure" has "$out" "read-only"
else
	echo "skip read-only checks: no nobody user or setpriv"
fi
chmod 0660 "$TERN_RUNDIR/mgmt.sock"

# 7. commit confirmed rolls back by itself (minutes shortened for the test)
stop_mgmt
TERN_MGMT_MINUTE_MS=300 start_mgmt || exit 1
out=$(sh_ -c configure -c "set protocols static route 198.18.128.0/17 next-hop 198.18.0.9" -c "commit confirmed 1" -c exit)
check "commit confirmed accepted" has "$out" "rolled back in 1 minute"
check "confirmed change is running" has "$(sh_ -c 'show configuration')" "198.18.128.0/17"
sleep 1
check "not confirmed: rolled back" test -z "$(sh_ -c 'show configuration' | grep 198.18.128.0/17)"
out=$(sh_ -c configure -c "set protocols static route 198.18.128.0/17 next-hop 198.18.0.9" -c "commit confirmed 1" -c commit -c exit)
sleep 1
check "confirmed in time: kept" has "$(sh_ -c 'show configuration')" "198.18.128.0/17"
# ... and a shell that stays connected is told, with its candidate reset:
# a plain commit does not apply the rolled-back change again
shell_open
shell_say configure "set system host-name confirmed-x" "commit confirmed 1"
sleep 0.8
shell_say "show | compare" commit exit
shell_close
out=$(cat "$tmp/out")
check "expiry: the session is told" has "$out" "^notice: commit confirmed was not confirmed within 1 minute: rolled back"
check "expiry: its candidate was reset" has "$out" "your candidate was reset to it"
check "expiry: a plain commit does not apply it again" test -z "$(sh_ -c 'show configuration' | grep confirmed-x)"

# 8. save and load
out=$(sh_ -c configure -c "save $tmp/saved.conf" -c exit)
check "save wrote the file" grep -q "198.18.128.0/17" "$tmp/saved.conf"
printf 'interfaces {\n  eth1 { device veth1; address 198.18.9.1/24 }\n' >"$tmp/broken.conf"
out=$(sh_ -c configure -c "load merge $tmp/broken.conf"); rc=$?
check "load of a broken file fails" test $rc = 1
check "load error names file:line:col" has "$out" "broken.conf:[0-9]*:[0-9]*"
out=$(sh_ -c configure -c "load replace $tmp/saved.conf" -c "show | compare" -c exit); rc=$?
check "load replace of the saved file: no difference" test $rc = 0

# 9. persistence: running survives a restart of mgmt
before=$(sh_ -c "show configuration")
shell_open
shell_say configure "set system host-name not-committed"
stop_mgmt; start_mgmt || exit 1
check "running config intact after restart" test "$(sh_ -c 'show configuration')" = "$before"
# ... and a shell open across it reconnects, says so on one line, gets its
# candidate back (issue 24: kept for it across the restart) and carries on
shell_say "show | compare" "exit discard" "show version" "show configuration | match host-name"
shell_close
out=$(cat "$tmp/out")
check "restart: the shell says it reconnected" has "$out" "^ternsh: tern-mgmt restarted: reconnected in session [0-9]"
check "restart: ... with its candidate" has "$out" "reconnected.*with the candidate of session [0-9]*"
check "restart: ... as it was" has "$out" "^+ *host-name not-committed;"
check "restart: the next command runs" has "$out" "tern 0.1.0"
check "restart: no 'no session' error" test -z "$(grep 'no session' "$tmp/out")"
check "restart: the candidate, discarded, was not committed" test -z "$(sh_ -c 'show configuration' | grep not-committed)"

# 10. kill -9 during commits: the store always loads
for i in $(seq 1 15); do
	sh_ -c configure -c "set protocols static route 198.18.$((100 + i)).0/24 next-hop 198.18.0.2" -c commit -c exit >/dev/null &
	sleep 0.0$((RANDOM % 9 + 1))
	kill -9 "$mgmt_pid" 2>/dev/null; wait "$mgmt_pid" 2>/dev/null; mgmt_pid=
	wait
	if ! start_mgmt; then nok "mgmt restarts after kill -9 number $i"; break; fi
done
out=$(sh_ -c "show configuration"); rc=$?
check "after 15 kills during commits the running config loads" test $rc = 0
check "and keeps what was committed before" has "$out" "198.18.128.0/17"
check "no temp files left in the store" test -z "$(ls "$store" | grep -v '^commit\.[0-9]*\(\.gz\)\?$')"

stop_mgmt
check_summary mgmt-shell
