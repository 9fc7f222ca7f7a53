#!/usr/bin/env bash
# tests/integration/test_shell_complete.sh: `ternsh --complete LINE` (the
# words tern-mgmt's completion offers for LINE's last word, placeholders left
# out) and the bash completion built on it (etc/bash-completion/ternsh),
# against a real tern-mgmt: command words, live values (an interface of the
# candidate config), quiet failure when mgmt is not there, and the bash
# function completing `ternsh -c 'show ro` and ternsh's own options.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
tmp=$(mktemp -d /tmp/tern-compl.XXXXXX)
run=$tmp/run
mgmt=
cleanup() {
	[[ -n $mgmt ]] && kill -9 "$mgmt" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM
comp() { TERN_RUNDIR=$run timeout 10 "$bin/ternsh" --complete "$1"; }
words() { comp "$1" | tr '\n' ' '; }

"$bin/tern-mgmt" --store="$tmp/store" --rundir "$run" >"$tmp/mgmt.log" 2>&1 &
mgmt=$!
check "tern-mgmt up" wait_until 10 test -S "$run/mgmt.sock"
check "'sh' -> show ($(words sh))" has " $(words sh)" " show "
check "'show ro' -> route ($(words 'show ro'))" test "$(comp 'show ro')" = route
w=$(words 'show ')
check "'show ' -> the show commands (route, interfaces, ...)" bash -c "grep -q ' route ' <<<' $w' && grep -q ' interfaces ' <<<' $w'"
out=$(TERN_RUNDIR=$run timeout 10 "$bin/ternsh" -c configure -c "set interfaces up0 device lo" -c "set interfaces up0 address 198.18.99.1/24" -c commit 2>&1)
check "an interface committed" has "$out" "commit complete"
check "live values: 'show interfaces u' -> up0 ($(words 'show interfaces u'))" test "$(comp 'show interfaces u')" = up0
check "a placeholder only ('ping ') is not a word: nothing" test -z "$(comp 'ping ')"
check "an unknown command: nothing, exit 0" bash -c "[[ -z \$(TERN_RUNDIR='$run' '$bin/ternsh' --complete 'frobnicate x') ]]"

# bash completion
bc=$root/etc/bash-completion/ternsh
bcomp() { # WORDS... : COMPREPLY, one per line
	TERN_RUNDIR=$run PATH=$bin:$PATH bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ternsh; printf "%s\n" "${COMPREPLY[@]}"' _ "$bc" "$@"
}
check "bash: ternsh -c 'show ro<Tab> -> 'show route '" test "$(bcomp ternsh -c "'show ro")" = "show route "
check "bash: ternsh -c 'show interfaces u<Tab> -> 'show interfaces up0 '" test "$(bcomp ternsh -c "'show interfaces u")" = "show interfaces up0 "
check "bash: ternsh --ru<Tab> -> --rundir" test "$(bcomp ternsh --ru)" = --rundir
check "bash: ternsh --rundir <Tab> -> directories" has "$(cd "$tmp" && bcomp ternsh --rundir r)" "^run"

kill -9 "$mgmt"; wait "$mgmt" 2>/dev/null; mgmt=
out=$(TERN_RUNDIR=$run timeout 10 "$bin/ternsh" --complete 'show ro' 2>&1); rc=$?
check "mgmt gone: exit 1 ($rc), nothing printed" test "$rc" = 1 -a -z "$out"
check "bash: mgmt gone: no words, no noise" test -z "$(bcomp ternsh -c "'show ro" 2>&1)"
check_summary shell-complete
