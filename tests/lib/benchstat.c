/* tests/lib/benchstat.c: medians, ranges and BENCH lines for the benchmarks. */
#include "tests/lib/benchstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 64
static char lines[MAX_LINES][512];
static int nlines;

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

void
tt_series_add(struct tt_series *s, double v)
{
	if (s->n < TT_SERIES_MAX)
		s->v[s->n++] = v;
}

double
tt_series_med(const struct tt_series *s)
{
	double t[TT_SERIES_MAX];

	if (s->n == 0)
		return (0);
	memcpy(t, s->v, sizeof(double) * (size_t)s->n);
	qsort(t, (size_t)s->n, sizeof(double), cmp_d);
	return (s->n % 2 ? t[s->n / 2] : (t[s->n / 2 - 1] + t[s->n / 2]) / 2);
}

double
tt_series_min(const struct tt_series *s)
{
	double m = s->n ? s->v[0] : 0;

	for (int i = 1; i < s->n; i++)
		m = s->v[i] < m ? s->v[i] : m;
	return (m);
}

double
tt_series_max(const struct tt_series *s)
{
	double m = s->n ? s->v[0] : 0;

	for (int i = 1; i < s->n; i++)
		m = s->v[i] > m ? s->v[i] : m;
	return (m);
}

void
tt_bench_report(const char *bench, const char *cas, const char *metric,
    const char *unit, const struct tt_series *ours, const char *peer,
    const struct tt_series *theirs, bool higher)
{
	double m = tt_series_med(ours), lo = tt_series_min(ours),
	       hi = tt_series_max(ours), p = 0;
	bool hp = peer != NULL && theirs != NULL && theirs->n > 0;
	char *l;

	printf("  %-26s %-14s ours %11.4g [%.4g-%.4g]", cas, metric, m, lo, hi);
	if (hp) {
		p = tt_series_med(theirs);
		printf("  %-13s %11.4g [%.4g-%.4g]  ratio %.3f", peer, p,
		    tt_series_min(theirs), tt_series_max(theirs),
		    p != 0 ? m / p : 0);
	}
	printf("\n");
	if (nlines == MAX_LINES)
		return;
	l = lines[nlines++];
	if (hp)
		snprintf(l, 512,
		    "BENCH {\"bench\":\"%s\",\"case\":\"%s\",\"metric\":\"%s\","
		    "\"unit\":\"%s\",\"value\":%.6g,\"min\":%.6g,\"max\":%.6g,"
		    "\"peer\":\"%s\",\"peer_value\":%.6g,\"ratio\":%.4f,"
		    "\"better\":\"%s\"}",
		    bench, cas, metric, unit, m, lo, hi, peer, p,
		    p != 0 ? m / p : 0, higher ? "higher" : "lower");
	else
		snprintf(l, 512,
		    "BENCH {\"bench\":\"%s\",\"case\":\"%s\",\"metric\":\"%s\","
		    "\"unit\":\"%s\",\"value\":%.6g,\"min\":%.6g,\"max\":%.6g,"
		    "\"better\":\"%s\"}",
		    bench, cas, metric, unit, m, lo, hi,
		    higher ? "higher" : "lower");
}

void
tt_bench_flush(void)
{
	for (int i = 0; i < nlines; i++)
		printf("%s\n", lines[i]);
	nlines = 0;
}
