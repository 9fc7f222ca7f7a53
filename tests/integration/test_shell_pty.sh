#!/usr/bin/env bash
# tests/integration/test_shell_pty.sh: ternsh on a real terminal (tmux):
# Tab completes commands and config paths from tern-mgmt, '?' lists what may
# come next with help, the prompt follows the mode, and history recalls lines
# (also across sessions, from the history file); a command after an idle spell
# longer than the timeout is answered; a restart of mgmt under the shell is
# survived (reconnect, one line saying so, the candidate back). Issue 23: a placeholder is help,
# never inserted; values complete from the configuration; unique prefixes;
# '?' after '|'; the --More-- pager (| no-more, never under -c); "exit "
# leaves the shell with status 0; monitor log streams to the terminal
# until Ctrl-C.
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

start_mgmt() {
	"$bin/tern-mgmt" --store "$tmp/store" >>"$tmp/mgmt.log" 2>&1 &
	mgmt_pid=$!
	for _ in $(seq 1 100); do
		[[ -S $TERN_RUNDIR/mgmt.sock ]] &&
		    timeout 2 "$bin/ternsh" -c "show version" >/dev/null 2>&1 && break
		sleep 0.05
	done
}
start_mgmt

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
# ARGS: ternsh's options
start_shell() {
	tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
	    "env TERN_RUNDIR=$TERN_RUNDIR TERNSH_HISTORY=$TERNSH_HISTORY HOME=$tmp $bin/ternsh $*"
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

# idle for longer than the shell's timeout, then a command: answered, not
# reported as failed (its deadline counted from the loop's last turn)
tmux -S "$sock" kill-server 2>/dev/null
sock=$tmp/tmux2.sock # a new server: the old one may still be going away
start_shell --timeout 500
see "@tern> *$"
sleep 1
keys C-u "show system commit" Enter
check "after idling past the timeout a command is answered" see "commits kept"
check "  ... and not reported as a TIMEOUT" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q TIMEOUT"

# mgmt restarts under the shell while it holds a candidate: the shell
# reconnects, says so, gets its candidate back (issue 24), and carries on
keys "configure" Enter
see "@tern# *$"
keys "set system host-name kept-one" Enter
prompt_back "@tern# *$"
kill "$mgmt_pid"; wait "$mgmt_pid" 2>/dev/null
start_mgmt
keys "show | compare" Enter
check "mgmt restarted: the shell says it reconnected" see "tern-mgmt restarted: reconnected in session [0-9]"
check "  ... with its candidate" see "reconnected.*with the candidate of session [0-9]* (its uncommitted changes are kept)"
check "  ... as it was" see "^+ *host-name kept-one;"
check "  ... still at the configuration prompt" prompt_back "@tern# *$"
check "  ... never 'no session'" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q 'no session'"
keys "exit discard" Enter
check "  ... and the next command works" prompt_back "@tern> *$"

# a streaming command on the terminal: monitor log shows lines as they are
# written, Ctrl-C ends it and the prompt comes back (issue 23 point 11)
echo "2026-12-03T00:00:00.000Z demo[1]: info: before" >"$TERN_RUNDIR/demo.log"
keys "monitor log demo" Enter
check "monitor log: following the file" see "^monitoring .*/demo.log (^C to stop)"
echo "2026-12-03T00:00:01.000Z demo[1]: info: written-while-monitoring" >>"$TERN_RUNDIR/demo.log"
check "  ... a line written meanwhile shows up" see "written-while-monitoring"
check "  ... not what was there before" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q 'info: before'"
keys C-c
check "  ... Ctrl-C ends it: the prompt is back" prompt_back "@tern> *$"
keys "show log demo lines 1" Enter
check "  ... and the shell carries on (show log)" see "^2026-12-03T00:00:01.000Z demo.*written-while-monitoring"
keys "ping 198.18.2.2" Enter
check "ping without tern-fwd: the reason" see "error: ping: tern-fwd is not running"

# issue 23: values complete from live data and a placeholder is help, never
# inserted; unique prefixes; pipes after '|'; the pager; exit with a blank
tmux -S "$sock" kill-server 2>/dev/null
sock=$tmp/tmux3.sock
{
	echo configure
	echo "set interfaces eth0 device veth0"
	echo "set interfaces eth0 address 198.18.0.1/24"
	# a configuration longer than the terminal, for the pager
	for i in $(seq 0 59); do echo "set protocols static route 198.19.$i.0/24 next-hop 198.18.0.2"; done
	echo commit
	echo exit
} | "$bin/ternsh" >"$tmp/setup.out" 2>&1
start_shell
see "@tern> *$"
keys "show interfaces " Tab
check "Tab completes a configured interface" see "> show interfaces eth0 *$"
keys C-u "restart " Tab
check "Tab with only a placeholder shows it as help" see "COMPONENT  restart a component"
check "  ... and inserts nothing" see "> restart *$"
check "  ... never the placeholder" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q 'restart COMPONENT'"
keys C-u "show route | " "?"
check "? after '|' lists the pipe stages" see "no-more  do not page the output"
keys C-u "sh ver" Enter
check "a unique prefix runs the command (sh ver)" see "tern 0.1.0"
keys "conf" Enter
see "@tern# *$"
keys "set protocols static route 198.21.0.0/16 interface " Tab
check "a route's interface completes from the configured ones" see "interface eth0 *$"
keys C-u "exit discard" Enter
prompt_back "@tern> *$"
keys "show configuration" Enter
check "output longer than the terminal pages: --More--" see "^--More--"
keys Enter
check "  ... Enter shows one more line" prompt_back "^--More--"
keys q
check "  ... q ends it: back at the prompt" prompt_back "@tern> *$"
check "  ... without the rest" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q '198.19.59.0/24'"
keys "show configuration" Enter
see "^--More--"
keys " "
check "  ... space shows the next page (here the rest)" see "198.19.59.0/24"
check "  ... and the prompt comes back" prompt_back "@tern> *$"
keys "show configuration | no-more" Enter
check "| no-more: everything at once" see "198.19.59.0/24"
check "  ... no --More--" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q -- '--More--'"
tmux -S "$sock" kill-server 2>/dev/null

# ternsh -c on a terminal never pages
sock=$tmp/tmux4.sock
tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
    "env TERN_RUNDIR=$TERN_RUNDIR $bin/ternsh -c 'show configuration'; sleep 30"
check "ternsh -c on a terminal: no pager" see "198.19.59.0/24"
check "  ... no --More--" bash -c "! tmux -S '$sock' capture-pane -p -t t | grep -q -- '--More--'"
tmux -S "$sock" kill-server 2>/dev/null

# "exit " (a blank after it) leaves the shell, with status 0 after a
# command that failed (make run ended with 'make: *** Error 1')
sock=$tmp/tmux5.sock
tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
    "env TERN_RUNDIR=$TERN_RUNDIR TERNSH_HISTORY=$TERNSH_HISTORY HOME=$tmp $bin/ternsh; echo rc=\$? >$tmp/rc; sleep 30"
see "@tern> *$"
keys "frobnicate" Enter
check "a command fails" see "unknown command 'frobnicate'"
keys "exit " Enter
check "'exit ' leaves the shell" wait_until 5 test -s "$tmp/rc"
check "  ... with status 0" grep -q "^rc=0$" "$tmp/rc"
((fail > 0)) && { echo "--- last screen:"; screen; }
check_summary shell-pty
