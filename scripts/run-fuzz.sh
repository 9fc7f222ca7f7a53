#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS on a scratch copy of its seed corpus
# (tests/fuzz/corpus/NAME), so the tree is never written. A crash fails.
# Usage: run-fuzz.sh SECONDS FUZZER...
set -u
secs=$1; shift
pass=0; fail=0
scratch=$(mktemp -d /tmp/tern-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for f in "$@"; do
	name=${f##*/fuzz-}
	mkdir -p "$scratch/$name"
	[[ -d tests/fuzz/corpus/$name ]] && cp -r tests/fuzz/corpus/$name/. "$scratch/$name/"
	echo "=== fuzz: $name for ${secs}s"
	if timeout --kill-after=10 $((secs + 60)) "$f" -max_total_time="$secs" \
	    -print_final_stats=1 -artifact_prefix="$scratch/" "$scratch/$name" \
	    >"$scratch/$name.log" 2>&1; then
		pass=$((pass + 1))
		grep -E '^stat::number_of_executed_units|^Done' "$scratch/$name.log" | tail -2
	else
		fail=$((fail + 1))
		tail -40 "$scratch/$name.log"
		echo "=== fuzz: FAILED $name"
	fi
done
echo "fuzz: $pass passed, $fail failed"
((fail == 0))
