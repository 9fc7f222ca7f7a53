#!/usr/bin/env bash
# Runs every benchmark in full and collects the BENCH lines into
# build/bench/report.txt and build/bench/bench.jsonl.
set -u
out=build/bench
mkdir -p "$out"
: >"$out/bench.jsonl"
for b in "$@"; do
	name=${b##*/bench-}
	echo "=== bench: $name"
	"$b" | tee "$out/$name.txt"
	grep '^BENCH ' "$out/$name.txt" | sed 's/^BENCH //' >>"$out/bench.jsonl"
done
cat "$out"/*.txt >"$out/report.txt"
echo "bench: report in $out/report.txt, figures in $out/bench.jsonl"
