/* tests/unit/rtrmgr/test_policy.c: the restart policy arithmetic: backoff
 * schedule and the N-failures-in-T window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rtrmgr/rtm_int.h"

static void
test_backoff_schedule(void **state)
{
	static const uint64_t want[] = {0, 100, 200, 400, 800, 1600, 3200, 6400,
	    12800, 25600, 30000, 30000};

	(void)state;
	for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		assert_int_equal(rtm_backoff_delay_ms(100, 30000, k), want[k]);
	/* no overflow however long the streak */
	assert_int_equal(rtm_backoff_delay_ms(100, 30000, 1000000), 30000);
	assert_int_equal(rtm_backoff_delay_ms(0xffffffffu, 0xffffffffu, 70),
	    0xffffffffu);
	/* a cap below the start wins */
	assert_int_equal(rtm_backoff_delay_ms(500, 300, 1), 300);
	/* not a power of two */
	assert_int_equal(rtm_backoff_delay_ms(30, 1000, 3), 120);
	assert_int_equal(rtm_backoff_delay_ms(30, 1000, 7), 1000);
}

static void
test_failwin_trips(void **state)
{
	struct rtm_failwin w;

	(void)state;
	rtm_failwin_reset(&w);
	/* 5 failures in 60 s: the 5th within the window trips */
	assert_false(rtm_failwin_add(&w, 1000, 5, 60000));
	assert_false(rtm_failwin_add(&w, 2000, 5, 60000));
	assert_false(rtm_failwin_add(&w, 3000, 5, 60000));
	assert_false(rtm_failwin_add(&w, 4000, 5, 60000));
	assert_true(rtm_failwin_add(&w, 61000, 5, 60000)); /* inclusive */
	assert_int_equal(rtm_failwin_count(&w, 61000, 60000), 5);
}

static void
test_failwin_spread(void **state)
{
	struct rtm_failwin w;

	(void)state;
	rtm_failwin_reset(&w);
	/* one failure every 20 s with 3 in 30 s: never trips */
	for (uint64_t t = 0; t < 20 * 20000; t += 20000)
		assert_false(rtm_failwin_add(&w, t, 3, 30000));
	/* two quick ones after a slow one do trip */
	assert_false(rtm_failwin_add(&w, 500000, 3, 30000));
	assert_false(rtm_failwin_add(&w, 500001, 3, 30000));
	assert_true(rtm_failwin_add(&w, 500002, 3, 30000));
	/* just outside the window */
	rtm_failwin_reset(&w);
	assert_false(rtm_failwin_add(&w, 0, 2, 1000));
	assert_false(rtm_failwin_add(&w, 1001, 2, 1000));
	assert_true(rtm_failwin_add(&w, 1002, 2, 1000));
	assert_int_equal(rtm_failwin_count(&w, 1002, 1000), 2);
	assert_int_equal(rtm_failwin_count(&w, 5000, 1000), 0);
}

static void
test_failwin_limits(void **state)
{
	struct rtm_failwin w;

	(void)state;
	rtm_failwin_reset(&w);
	/* limit 0: never */
	for (int i = 0; i < 100; i++)
		assert_false(rtm_failwin_add(&w, 0, 0, 1000));
	/* limit 1: the first failure */
	rtm_failwin_reset(&w);
	assert_true(rtm_failwin_add(&w, 7, 1, 0));
	/* above the ring size: clamped, still trips */
	rtm_failwin_reset(&w);
	for (int i = 0; i < RTM_FAILWIN_MAX - 1; i++)
		assert_false(rtm_failwin_add(&w, (uint64_t)i, 1000, 100000));
	assert_true(rtm_failwin_add(&w, 100, 1000, 100000));
	/* reset forgets */
	rtm_failwin_reset(&w);
	assert_int_equal(rtm_failwin_count(&w, 100, 100000), 0);
	assert_false(rtm_failwin_add(&w, 100, 2, 100000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backoff_schedule),
	    cmocka_unit_test(test_failwin_trips),
	    cmocka_unit_test(test_failwin_spread),
	    cmocka_unit_test(test_failwin_limits),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
