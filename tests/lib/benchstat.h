/* tests/lib/benchstat.h: a benchmark's rounds (median, range) and its BENCH lines (BENCHMARKS.md). */
#ifndef TT_BENCHSTAT_H
#define TT_BENCHSTAT_H

#include <stdbool.h>

#define TT_SERIES_MAX 15 /* rounds kept per figure */

/* One figure's value in each round. */
struct tt_series {
	double v[TT_SERIES_MAX];
	int n;
};

/* Keeps v (the first TT_SERIES_MAX only). */
void tt_series_add(struct tt_series *, double v);
/* Median (mean of the middle two for an even count); 0 when empty. */
double tt_series_med(const struct tt_series *);
double tt_series_min(const struct tt_series *);
double tt_series_max(const struct tt_series *);

/*
 * Prints the human row of one figure now ("case metric ours med [min-max]
 * peer med [min-max] ratio r") and keeps its BENCH json line ("bench":
 * bench, the peer's fields when theirs has values) for tt_bench_flush.
 */
void tt_bench_report(const char *bench, const char *cas, const char *metric,
    const char *unit, const struct tt_series *ours, const char *peer,
    const struct tt_series *theirs, bool higher);
/* Prints the BENCH lines kept so far and forgets them. */
void tt_bench_flush(void);

#endif /* TT_BENCHSTAT_H */
