/* tests/unit/libcommon/test_ring.c: ring capacity checks, full/empty,
 * wrap-around, partial bursts, and a two-thread SPSC order test. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "libcommon/lc_ring.h"

#define P(x) ((void *)(uintptr_t)(x))
#define U(p) ((uintptr_t)(p))

static void
test_new_bad(void **state)
{
	(void)state;
	errno = 0;
	assert_null(lc_ring_new(0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(lc_ring_new(3));
	assert_int_equal(errno, EINVAL);
	assert_null(lc_ring_new(1000));
	assert_null(lc_ring_new(0x80000001U));
	assert_null(lc_ring_new(0xffffffffU));
	lc_ring_free(NULL);
}

static void
test_full_empty(void **state)
{
	struct lc_ring *r = lc_ring_new(8);
	void *o = P(0x1234);

	(void)state;
	assert_non_null(r);
	assert_int_equal(lc_ring_capacity(r), 8);
	assert_int_equal(lc_ring_count(r), 0);
	assert_int_equal(lc_ring_dequeue(r, &o), -EAGAIN);
	assert_ptr_equal(o, P(0x1234)); /* unchanged */
	for (uintptr_t i = 1; i <= 8; i++)
		assert_int_equal(lc_ring_enqueue(r, P(i)), 0);
	assert_int_equal(lc_ring_count(r), 8); /* the full capacity is usable */
	assert_int_equal(lc_ring_free_count(r), 0);
	assert_int_equal(lc_ring_enqueue(r, P(9)), -ENOBUFS);
	assert_int_equal(lc_ring_count(r), 8);
	for (uintptr_t i = 1; i <= 8; i++) {
		assert_int_equal(lc_ring_dequeue(r, &o), 0);
		assert_int_equal(U(o), i);
	}
	assert_int_equal(lc_ring_dequeue(r, &o), -EAGAIN);
	assert_int_equal(lc_ring_count(r), 0);
	lc_ring_free(r);

	/* capacity 1 */
	r = lc_ring_new(1);
	assert_int_equal(lc_ring_enqueue(r, P(5)), 0);
	assert_int_equal(lc_ring_enqueue(r, P(6)), -ENOBUFS);
	assert_int_equal(lc_ring_dequeue(r, &o), 0);
	assert_int_equal(U(o), 5);
	lc_ring_free(r);
}

static void
test_wrap_and_bursts(void **state)
{
	struct lc_ring *r = lc_ring_new(16);
	void *in[32], *out[32];
	uintptr_t next_in = 0, next_out = 0;

	(void)state;
	/* many laps around the 16 slots with odd burst sizes */
	for (int round = 0; round < 1000; round++) {
		unsigned want = 1 + (unsigned)(round * 7) % 20, n, m;
		unsigned before = lc_ring_count(r);

		for (unsigned i = 0; i < want; i++)
			in[i] = P(next_in + i);
		n = lc_ring_enqueue_burst(r, in, want);
		/* partial when it does not fit: exactly the free room */
		assert_int_equal(n, want < 16 - before ? want : 16 - before);
		next_in += n;
		assert_int_equal(lc_ring_count(r), before + n);

		m = lc_ring_dequeue_burst(r, out,
		    1 + (unsigned)(round * 5) % 13);
		for (unsigned i = 0; i < m; i++)
			assert_int_equal(U(out[i]), next_out + i);
		next_out += m;
	}
	/* drain: a burst larger than what is queued returns the count */
	unsigned left = lc_ring_count(r);
	assert_int_equal(lc_ring_dequeue_burst(r, out, 32), left);
	for (unsigned i = 0; i < left; i++)
		assert_int_equal(U(out[i]), next_out + i);
	assert_int_equal(lc_ring_dequeue_burst(r, out, 32), 0);
	assert_int_equal(lc_ring_enqueue_burst(r, in, 0), 0);
	assert_true(next_in > 16 * 100); /* really wrapped many times */
	lc_ring_free(r);
}

/* The free-running counters wrap at 2^32 without losing items. */
static void
test_counter_wrap(void **state)
{
	struct lc_ring *r = lc_ring_new(4);
	void *o;

	(void)state;
	atomic_store(&r->head, 0xfffffffeU);
	atomic_store(&r->tail, 0xfffffffeU);
	r->tail_cache = r->head_cache = 0xfffffffeU;
	for (uintptr_t i = 0; i < 4; i++)
		assert_int_equal(lc_ring_enqueue(r, P(i + 100)), 0);
	assert_int_equal(lc_ring_enqueue(r, P(0)), -ENOBUFS);
	assert_int_equal(lc_ring_count(r), 4);
	for (uintptr_t i = 0; i < 4; i++) {
		assert_int_equal(lc_ring_dequeue(r, &o), 0);
		assert_int_equal(U(o), i + 100);
	}
	assert_int_equal(lc_ring_count(r), 0);
	lc_ring_free(r);
}

#define SPSC_ITEMS 1000000U

static void *
producer(void *arg)
{
	struct lc_ring *r = arg;
	void *batch[32];
	uintptr_t next = 1;

	while (next <= SPSC_ITEMS) {
		unsigned n = (unsigned)(next % 32) + 1, k;

		if (next + n - 1 > SPSC_ITEMS)
			n = (unsigned)(SPSC_ITEMS - next + 1);
		for (unsigned i = 0; i < n; i++)
			batch[i] = P(next + i);
		k = lc_ring_enqueue_burst(r, batch, n);
		next += k; /* only the first k were taken */
		if (k == 0)
			sched_yield();
	}
	return (NULL);
}

/* Two threads move 1M items through a small ring; the consumer sees them all,
 * in order. */
static void
test_spsc_threads(void **state)
{
	struct lc_ring *r = lc_ring_new(256);
	pthread_t t;
	void *out[64];
	uintptr_t expect = 1;
	unsigned long empty = 0;

	(void)state;
	assert_non_null(r);
	assert_int_equal(pthread_create(&t, NULL, producer, r), 0);
	while (expect <= SPSC_ITEMS) {
		unsigned n = lc_ring_dequeue_burst(r, out,
		    (unsigned)(expect % 64) + 1);

		if (n == 0) {
			empty++;
			sched_yield();
			continue;
		}
		for (unsigned i = 0; i < n; i++) {
			if (U(out[i]) != expect)
				fail_msg("got %lu, expected %lu",
				    (unsigned long)U(out[i]),
				    (unsigned long)expect);
			expect++;
		}
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(lc_ring_count(r), 0);
	assert_int_equal(lc_ring_dequeue(r, &out[0]), -EAGAIN);
	lc_ring_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_bad),
	    cmocka_unit_test(test_full_empty),
	    cmocka_unit_test(test_wrap_and_bursts),
	    cmocka_unit_test(test_counter_wrap),
	    cmocka_unit_test(test_spsc_threads),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
