# tests/lib/check.sh: the assertions of tern's shell integration tests.
#   check "what" CMD...   runs CMD: ok or FAIL with what
#   has "$text" REGEX     grep -q REGEX in text (for check)
#   check_summary NAME    prints "NAME: N passed, N failed"; returns 1 on failure
#   wait_until SECS CMD...  runs CMD every 0.1 s until it succeeds: 1 after SECS
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
has() { grep -q -- "$2" <<<"$1"; }
check_summary() { echo "$1: $pass passed, $fail failed"; ((fail == 0)); }

wait_until() { # SECS CMD...
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}
