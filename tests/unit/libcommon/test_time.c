/* tests/unit/libcommon/test_time.c: monotonic/real clocks and the per-thread
 * cached clock. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_time.h"

static void
test_clocks(void **state)
{
	uint64_t a, b, r;

	(void)state;
	a = lc_time_mono_ns();
	usleep(2000);
	b = lc_time_mono_ns();
	assert_true(b >= a + 2 * LC_NS_PER_MSEC);
	assert_true(b - a < 2 * LC_NS_PER_SEC);
	r = lc_time_real_ns();
	/* the real clock is the epoch clock, in ns */
	assert_true(r / LC_NS_PER_SEC + 2 >= (uint64_t)time(NULL));
	assert_true(r / LC_NS_PER_SEC <= (uint64_t)time(NULL));
}

static void
test_cached(void **state)
{
	uint64_t n0, n1;

	(void)state;
	n0 = lc_now_ns(); /* lazily read on first use */
	assert_true(n0 != 0);
	usleep(2000);
	assert_int_equal(lc_now_ns(), n0); /* no refresh, no change */
	lc_now_update();
	n1 = lc_now_ns();
	assert_true(n1 >= n0 + 2 * LC_NS_PER_MSEC);
	assert_true(n1 <= lc_time_mono_ns());
	lc_now_set(12345);
	assert_int_equal(lc_now_ns(), 12345);
	lc_now_update();
	assert_true(lc_now_ns() >= n1);
}

static void *
other_thread(void *arg)
{
	*(uint64_t *)arg = lc_now_ns();
	return (NULL);
}

/* Each thread (each loop) has its own cache. */
static void
test_per_thread(void **state)
{
	pthread_t t;
	uint64_t theirs = 0;

	(void)state;
	lc_now_set(42);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &theirs), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(theirs > 42); /* the other thread read the real clock */
	assert_int_equal(lc_now_ns(), 42); /* ours is untouched */
	lc_now_update();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clocks),
	    cmocka_unit_test(test_cached),
	    cmocka_unit_test(test_per_thread),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
