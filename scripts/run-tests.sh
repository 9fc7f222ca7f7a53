#!/usr/bin/env bash
# Runs test programs one after the other, each bounded in time, shows their
# output (cmocka prints its own summary) and ends with "KIND: N passed, N failed".
# Usage: run-tests.sh KIND PROGRAM...
set -u
kind=$1; shift
pass=0; fail=0; failed=()
limit=${TEST_TIMEOUT:-300}
for t in "$@"; do
	args=()
	case $kind in
	bench-smoke) args=(--quick) ;;
	esac
	echo "=== $kind: $t"
	start=$(date +%s%N)
	timeout --kill-after=10 "$limit" "$t" "${args[@]}"
	rc=$?
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
