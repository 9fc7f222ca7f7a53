#!/usr/bin/env bash
# `make bench`: runs every benchmark in full, collects their BENCH lines into
# build/bench/bench.jsonl, the human tables into build/bench/report.txt, and
# plots ours/peer for every figure that has a peer (build/bench/ratios.png).
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

# ours/peer per figure, "better" folded in so that > 1 is always better
python3 - "$out/bench.jsonl" >"$out/ratios.tsv" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        b = json.loads(line)
    except ValueError:
        continue
    r = b.get("ratio")
    if not r or "peer" not in b:
        continue
    if b.get("better") == "lower":
        r = 1.0 / r
    label = "%s %s %s vs %s" % (b["bench"], b["case"], b["metric"], b["peer"])
    print("%s\t%.4g" % (label, r))
PY
n=$(wc -l <"$out/ratios.tsv")
if ((n > 0)) && command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal png size 1400,$((200 + 22 * n)) noenhanced
set output "$out/ratios.png"
set datafile separator "\t"
set title "tern vs peer, same run (> 1: tern better)"
set style fill solid 0.6
set yrange [-1:$n]
set ytics nomirror font ",9"
set xlabel "ratio (better direction)"
set logscale x 2
set grid xtics
unset key
plot "$out/ratios.tsv" using (\$2):0:(1):(\$2):(\$0-0.4):(\$0+0.4):ytic(1) with boxxyerror, \
     "" using (1):0 with impulses lc rgb "black"
GP
	echo "bench: plot in $out/ratios.png"
fi
echo "bench: report in $out/report.txt, figures in $out/bench.jsonl"
