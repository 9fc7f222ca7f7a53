#!/usr/bin/env bash
# tests/integration/test_shell_pty.sh: ternsh on a real terminal (tmux):
# Tab completes commands and config paths from tern-mgmt, '?' lists what may
# come next with help, the prompt follows the mode, and history recalls lines
# (also across sessions, from the history file).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if ! command -v tmux >/dev/null; then
	echo "skip: tmux is not installed"
	check_summary shell-pty
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-pty.XXXXXX)
export TERN_RUNDIR=$tmp/run TERNSH_HISTORY=$tmp/history
sock=$tmp/tmux.sock
mgmt_pid=
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null
	[[ -n $mgmt_pid ]] && kill "$mgmt_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$bin/tern-mgmt" --store "$tmp/store" >"$tmp/mgmt.log" 2>&1 &
mgmt_pid=$!
for _ in $(seq 1 100); do [[ -S $TERN_RUNDIR/mgmt.sock ]] && break; sleep 0.05; done

screen() { tmux -S "$sock" capture-pane -p -t t; }
keys() { tmux -S "$sock" send-keys -t t "$@"; }
# waits until the screen matches REGEX (bounded)
see() {
	local end=$((SECONDS + 5))
	until screen | grep -q -- "$1"; do ((SECONDS < end)) || return 1; sleep 0.05; done
}
# waits until the last non-empty line matches REGEX: the shell is back at
# its prompt (bounded). Keys typed while a command runs can be lost when the
# line editor takes the terminal back.
prompt_back() {
	local end=$((SECONDS + 5))
	until screen | grep -v '^ *$' | tail -1 | grep -q -- "$1"; do
		((SECONDS < end)) || return 1
		sleep 0.05
	done
}
start_shell() {
	tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
	    "env TERN_RUNDIR=$TERN_RUNDIR TERNSH_HISTORY=$TERNSH_HISTORY HOME=$tmp $bin/ternsh"
}

start_shell
check "operational prompt" see "@tern> *$"
keys "conf" Tab
check "Tab completes a command" see "> configure$"
keys Enter
check "configuration prompt after configure" see "@tern# *$"
keys "set inter" Tab
check "Tab completes a config keyword" see "# set interfaces$"
keys "eth0 " "?"
check "? lists what may come next" see "Possible completions"
check "? shows help texts" see "device .*[A-Za-z]"
keys C-u "set interfaces eth0 device veth0" Enter
check "set done: the prompt is back" prompt_back "@tern# *$"
keys "set interfaces eth0 mt" Tab
check "Tab completes a leaf" see "set interfaces eth0 mtu$"
keys C-u "show | compare" Enter
check "show | compare shows the change" see "+ .*device veth0"
keys "exit discard" Enter
check "back to the operational prompt" see "Exiting configuration mode"
keys "show version" Enter
check "command output" see "tern 0.1.0"
keys Up
check "Up recalls the last line" see "> show version$"
keys C-u "exit" Enter
sleep 0.3
# libedit stores a blank as \040
check "history file written" grep -q 'show\(\\040\| \)version' "$TERNSH_HISTORY"

# a new shell reads the history back
tmux -S "$sock" kill-server 2>/dev/null
start_shell
see "@tern> *$"
keys Up
check "history survives the shell" see "> exit$\|> show version$"
((fail > 0)) && { echo "--- last screen:"; screen; }
check_summary shell-pty
