/* tests/unit/libcommon/test_huge.c: lc_huge_map: zeroed, writable, 2 MiB
 * aligned when asked, one readable page past the end; unmap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "libcommon/lc_huge.h"

static void
check_table(uint8_t *t, size_t len)
{
	for (size_t i = 0; i < len; i += 4096)
		assert_int_equal(t[i], 0);
	assert_int_equal(t[len - 1], 0);
	/* the page past the end reads (as zero) */
	assert_int_equal(t[len + 4095], 0);
	memset(t, 0xa5, len);
	assert_int_equal(t[len / 2], 0xa5);
}

static void
test_huge(void **state)
{
	size_t len = 6u << 20, ml = 0;
	void *base = NULL;
	uint8_t *t;

	(void)state;
	t = lc_huge_map(len, true, &ml, &base);
	assert_non_null(t);
	assert_int_equal((uintptr_t)t % LC_HUGE_PAGE, 0);
	assert_true(t >= (uint8_t *)base);
	assert_true(t + len + 4096 <= (uint8_t *)base + ml);
	check_table(t, len);
	lc_huge_unmap(base, ml);
}

static void
test_small(void **state)
{
	size_t len = 10000, ml = 0;
	void *base = NULL;
	uint8_t *t;

	(void)state;
	t = lc_huge_map(len, false, &ml, &base);
	assert_non_null(t);
	assert_ptr_equal(t, base);
	check_table(t, len);
	lc_huge_unmap(base, ml);
	lc_huge_unmap(NULL, 0); /* nothing mapped: a no-op */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_huge),
	    cmocka_unit_test(test_small),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
