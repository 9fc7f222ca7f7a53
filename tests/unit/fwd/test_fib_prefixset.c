/* tests/unit/fwd/test_fib_prefixset.c: the standard prefix set generator (tests/lib/prefixset) that bench-fib and others use. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fwd/fwd_fib.h"
#include "tests/lib/prefixset.h"

#define N 100000

static uint64_t
digest(const struct tt_prefixset *ps)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t k = 0; k < ps->n; k++) {
		h = (h ^ ps->p[k].addr) * 1099511628211ull;
		h = (h ^ ps->p[k].len) * 1099511628211ull;
		h = (h ^ ps->p[k].nh) * 1099511628211ull;
	}
	return (h);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

static void
test_standard(void **state)
{
	struct tt_prefixset a, b, c;
	size_t cnt[33] = {0};
	uint64_t *keys;
	double sum = 0;

	(void)state;
	assert_int_equal(tt_prefixset_gen(&a, N, TT_PFX_SEED, 0), 0);
	assert_int_equal(tt_prefixset_gen(&b, N, TT_PFX_SEED, 0), 0);
	assert_int_equal(tt_prefixset_gen(&c, N, TT_PFX_SEED + 1, 0), 0);
	assert_int_equal(a.n, N);
	/* same seed, same set; another seed, another set */
	assert_true(digest(&a) == digest(&b));
	assert_true(digest(&a) != digest(&c));
	keys = malloc(a.n * sizeof(*keys));
	assert_non_null(keys);
	for (size_t k = 0; k < a.n; k++) {
		const struct tt_prefix *p = &a.p[k];

		assert_true(p->len >= 8 && p->len <= 24);
		assert_int_equal(p->addr &
			~(p->len ? ~0u << (32 - p->len) : 0u),
		    0);
		assert_false(tt_prefix_is_bogon(p->addr, p->len));
		assert_true(p->nh < TT_PFX_NNH);
		cnt[p->len]++;
		sum += p->len;
		keys[k] = (uint64_t)p->addr << 8 | p->len;
	}
	/* all distinct */
	qsort(keys, a.n, sizeof(*keys), cmp_u64);
	for (size_t k = 1; k < a.n; k++)
		assert_true(keys[k] != keys[k - 1]);
	/* the length mix of BENCHMARKS.md (counts are exact) */
	/* /24 takes the rest (61.2%, rounding of the others aside) */
	assert_true(cnt[24] >= 61160 && cnt[24] <= 61180);
	assert_int_equal(cnt[22], 12600);
	assert_int_equal(cnt[23], 10400);
	assert_int_equal(cnt[21], 5050);
	assert_int_equal(cnt[20], 4350);
	assert_int_equal(cnt[19], 2450);
	assert_int_equal(cnt[16], 1360);
	assert_int_equal(cnt[18], 1350);
	assert_int_equal(cnt[17], 790);
	assert_in_range(cnt[8] + cnt[9] + cnt[10] + cnt[11] + cnt[12] +
		cnt[13] + cnt[14] + cnt[15],
	    475, 485);
	assert_true(cnt[8] < cnt[12] && cnt[12] < cnt[15]);
	assert_true(sum / (double)a.n > 22.8 && sum / (double)a.n < 23.0);
	/* about half nested */
	assert_true(a.nested > N * 45 / 100 && a.nested < N * 55 / 100);
	free(keys);
	tt_prefixset_free(&a);
	tt_prefixset_free(&b);
	tt_prefixset_free(&c);
	assert_int_equal(tt_prefixset_gen(&a, 0, 1, 0), -EINVAL);
	assert_int_equal(tt_prefixset_gen(&a, 10, 1, 0x80), -EINVAL);
}

static void
test_long(void **state)
{
	struct tt_prefixset a;
	size_t nlong = 0;

	(void)state;
	assert_int_equal(tt_prefixset_gen(&a, N, TT_PFX_SEED, TT_PFX_LONG), 0);
	assert_int_equal(a.n, N + N / 20);
	for (size_t k = 0; k < a.n; k++)
		if (a.p[k].len > 24) {
			assert_true(a.p[k].len <= 32);
			assert_false(
			    tt_prefix_is_bogon(a.p[k].addr, a.p[k].len));
			nlong++;
		}
	assert_int_equal(nlong, N / 20);
	assert_int_equal(a.nlong, N / 20);
	tt_prefixset_free(&a);
}

static void
test_streams_and_text(void **state)
{
	struct tt_prefixset a;
	struct fwd_fib_conf fc = {.max_nh = TT_PFX_FIB_NNH};
	struct fwd_fib *f = fwd_fib_new(&fc);
	uint32_t *s = malloc(65536 * sizeof(*s)), hot[128];
	size_t nhot = 0, nomatch = 0;
	char *buf = NULL;
	size_t blen = 0;
	FILE *mf;

	(void)state;
	assert_non_null(f);
	assert_non_null(s);
	assert_int_equal(tt_prefixset_gen(&a, 20000, TT_PFX_SEED, 0), 0);
	tt_prefixset_fib_nh(&a);
	for (size_t k = 0; k < a.n; k++)
		assert_int_equal(fwd_fib_add(f, a.p[k].addr, a.p[k].len,
				     a.p[k].nh),
		    0);
	/* match: every address is under a table prefix */
	assert_int_equal(tt_addrs_gen(&a, TT_ADDR_MATCH, s, 65536, 5), 0);
	for (size_t k = 0; k < 65536; k++)
		assert_int_not_equal(fwd_fib_lookup(f, s[k]), FWD_FIB_NH_NONE);
	/* uniform: most of the space is not routed by 20k prefixes */
	assert_int_equal(tt_addrs_gen(&a, TT_ADDR_UNIFORM, s, 65536, 5), 0);
	for (size_t k = 0; k < 65536; k++)
		nomatch += fwd_fib_lookup(f, s[k]) == FWD_FIB_NH_NONE;
	assert_true(nomatch > 1000);
	/* hot128: at most 128 distinct addresses, all routed */
	assert_int_equal(tt_addrs_gen(&a, TT_ADDR_HOT128, s, 65536, 5), 0);
	for (size_t k = 0; k < 65536; k++) {
		size_t j;

		assert_int_not_equal(fwd_fib_lookup(f, s[k]), FWD_FIB_NH_NONE);
		for (j = 0; j < nhot && hot[j] != s[k]; j++)
			;
		if (j == nhot) {
			assert_true(nhot < 128);
			hot[nhot++] = s[k];
		}
	}
	assert_true(nhot > 100);
	assert_int_equal(tt_addrs_gen(NULL, TT_ADDR_MATCH, s, 1, 5), -EINVAL);
	/* the text form reads back as the same set */
	mf = open_memstream(&buf, &blen);
	assert_non_null(mf);
	assert_int_equal(tt_prefixset_write(&a, mf), 0);
	fclose(mf);
	{
		const char *p = buf;

		for (size_t k = 0; k < a.n; k++) {
			unsigned b0, b1, b2, b3, len, nh;
			int used;

			assert_int_equal(sscanf(p, "%u.%u.%u.%u/%u %u\n%n", &b0,
					     &b1, &b2, &b3, &len, &nh, &used),
			    6);
			assert_int_equal((b0 << 24 | b1 << 16 | b2 << 8 | b3),
			    a.p[k].addr);
			assert_int_equal(len, a.p[k].len);
			assert_int_equal(nh, a.p[k].nh);
			p += used;
		}
		assert_int_equal(*p, '\0');
	}
	free(buf);
	free(s);
	fwd_fib_free(f);
	tt_prefixset_free(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_standard),
	    cmocka_unit_test(test_long),
	    cmocka_unit_test(test_streams_and_text),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
