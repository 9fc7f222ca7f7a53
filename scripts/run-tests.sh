#!/usr/bin/env bash
# Runs test programs one after the other, each bounded in time, shows their
# output (cmocka prints its own summary) and ends with "KIND: N passed, N failed".
# Usage: run-tests.sh KIND PROGRAM...
set -u
kind=$1; shift
pass=0; fail=0; failed=()
case $kind in
bench-smoke) limit=${TEST_TIMEOUT:-120} ;;
*) limit=${TEST_TIMEOUT:-300} ;;
esac
for t in "$@"; do
	args=()
	case $kind in
	bench-smoke) args=(--quick) ;;
	esac
	echo "=== $kind: $t"
	start=$(date +%s%N)
	# timeout runs the test in a process group of its own; whatever the
	# test leaves behind in it (a forked server) is killed afterwards so it
	# cannot hold our output open or disturb the next test.
	timeout --kill-after=10 "$limit" "$t" "${args[@]}" &
	pid=$!
	wait "$pid"
	rc=$?
	left=$(pgrep -a -g "$pid" 2>/dev/null)
	if kill -KILL -- "-$pid" 2>/dev/null; then
		echo "=== $kind: $t left processes behind (killed):"
		sed 's/^/===   /' <<<"$left"
	fi
	ms=$((($(date +%s%N) - start) / 1000000))
	if ((rc == 0)); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed+=("$t (exit $rc)")
		echo "=== $kind: FAILED $t (exit $rc)"
	fi
	echo "=== $kind: $t done in ${ms} ms"
done
for f in "${failed[@]}"; do echo "FAILED: $f"; done
echo "$kind: $pass passed, $fail failed"
((fail == 0))
