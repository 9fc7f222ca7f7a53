/* libcommon/lc_page.c: a page of keys in order (lc_page.h). */
#include <stdlib.h>

#include "lc_page.h"

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* Puts the k-th smallest of v[0..n) at v[k], smaller ones before it. */
static void
u64_select(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 16) {
		size_t m = lo + (hi - lo) / 2, i = lo, j = hi - 1;
		uint64_t a = v[lo], b = v[m], c = v[hi - 1], p, t;

		p = a < b ? (b < c ? b : (a < c ? c : a)) :
			    (a < c ? a : (b < c ? c : b));
		for (;;) { /* Hoare: [lo, j] <= p <= [j + 1, hi) */
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		if (k <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
	qsort(v + lo, hi - lo, sizeof(*v), u64_cmp);
}

void
lc_page_u64(uint64_t *v, size_t n, size_t off, size_t limit, size_t *lo,
    size_t *hi)
{
	size_t l = off < n ? off : n, h = n - l > limit ? l + limit : n;

	if (l > 0 && l < n)
		u64_select(v, n, l);
	if (h > l && h < n)
		u64_select(v + l, n - l, h - l);
	if (h > l)
		qsort(v + l, h - l, sizeof(*v), u64_cmp);
	*lo = l;
	*hi = h;
}
