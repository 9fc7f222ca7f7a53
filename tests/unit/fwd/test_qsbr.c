/* tests/unit/fwd/test_qsbr.c: the reclamation rule of fwd_qsbr. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fwd/fwd_qsbr.h"

static void
test_registration(void **state)
{
	struct fwd_qsbr *q;
	struct fwd_qsbr_thread *t[4];

	(void)state;
	assert_null(fwd_qsbr_new(FWD_QSBR_MAX_READERS + 1));
	assert_int_equal(errno, EINVAL);
	q = fwd_qsbr_new(3);
	assert_non_null(q);
	for (int i = 0; i < 3; i++) {
		t[i] = fwd_qsbr_register(q);
		assert_non_null(t[i]);
	}
	assert_int_equal(fwd_qsbr_readers(q), 3);
	assert_null(fwd_qsbr_register(q));
	assert_int_equal(errno, ENOSPC);
	fwd_qsbr_unregister(t[1]);
	assert_int_equal(fwd_qsbr_readers(q), 2);
	t[3] = fwd_qsbr_register(q);
	assert_non_null(t[3]);
	fwd_qsbr_unregister(t[0]);
	fwd_qsbr_unregister(t[2]);
	fwd_qsbr_unregister(t[3]);
	assert_int_equal(fwd_qsbr_readers(q), 0);
	fwd_qsbr_free(q);
}

static void
test_rule(void **state)
{
	struct fwd_qsbr *q = fwd_qsbr_new(0);
	struct fwd_qsbr_thread *a, *b;
	uint64_t tok, tok2;

	(void)state;
	assert_non_null(q);
	/* no reader: a grace period ends at once */
	assert_true(fwd_qsbr_check(q, fwd_qsbr_start(q)));
	a = fwd_qsbr_register(q);
	b = fwd_qsbr_register(q);
	tok = fwd_qsbr_start(q);
	/* both readers may still hold references */
	assert_false(fwd_qsbr_check(q, tok));
	fwd_qsbr_quiescent(a);
	assert_false(fwd_qsbr_check(q, tok));
	fwd_qsbr_quiescent(b);
	assert_true(fwd_qsbr_check(q, tok));
	/* a quiescent point before the unpublish does not count */
	fwd_qsbr_quiescent(a);
	fwd_qsbr_quiescent(b);
	tok2 = fwd_qsbr_start(q);
	assert_false(fwd_qsbr_check(q, tok2));
	assert_true(fwd_qsbr_check(q, tok)); /* older tokens stay done */
	/* an offline reader does not hold anything up */
	fwd_qsbr_offline(a);
	fwd_qsbr_quiescent(b);
	assert_true(fwd_qsbr_check(q, tok2));
	/* back online: it counts again for later tokens */
	fwd_qsbr_online(a);
	tok = fwd_qsbr_start(q);
	fwd_qsbr_quiescent(b);
	assert_false(fwd_qsbr_check(q, tok));
	assert_int_equal(fwd_qsbr_wait(q, tok, 5000000), -ETIMEDOUT);
	fwd_qsbr_quiescent(a);
	assert_int_equal(fwd_qsbr_wait(q, tok, 5000000), 0);
	/* unregistering a stuck reader releases the writer */
	tok = fwd_qsbr_start(q);
	assert_false(fwd_qsbr_check(q, tok));
	fwd_qsbr_unregister(a);
	fwd_qsbr_unregister(b);
	assert_true(fwd_qsbr_check(q, tok));
	fwd_qsbr_free(q);
}

/*
 * Threads: the writer swaps a shared pointer to a new object, waits for the
 * grace period, then poisons the old object and reuses it. Readers take the
 * pointer, check the object several times while holding it (with a pause
 * in between), then pass a quiescent point. A writer that poisoned too early
 * (the grace period ending before a reader let go) is seen as DEAD.
 */
#define OBJ_LIVE 0x4c495645u
#define OBJ_DEAD 0xdeadu
#define NOBJ	 8

struct obj {
	volatile uint32_t magic;
	volatile uint32_t gen;
};

struct shared {
	struct fwd_qsbr *q;
	struct obj *cur;
	int stop, started;
	unsigned long reads, bad;
};

static void *
reader(void *arg)
{
	struct shared *s = arg;
	struct fwd_qsbr_thread *t = fwd_qsbr_register(s->q);
	unsigned long n = 0;

	if (t == NULL)
		return ((void *)1);
	__atomic_add_fetch(&s->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct obj *o = __atomic_load_n(&s->cur, __ATOMIC_ACQUIRE);

		for (int k = 0; k < 4; k++) {
			if (o->magic != OBJ_LIVE)
				__atomic_add_fetch(&s->bad, 1,
				    __ATOMIC_RELAXED);
			for (volatile int spin = 0; spin < 50; spin++)
				;
		}
		n++;
		fwd_qsbr_quiescent(t);
		if ((n & 1023) == 0) { /* sometimes sleep, as workers do */
			fwd_qsbr_offline(t);
			sched_yield();
			fwd_qsbr_online(t);
		}
	}
	__atomic_add_fetch(&s->reads, n, __ATOMIC_RELAXED);
	fwd_qsbr_unregister(t);
	return (NULL);
}

static void
test_threads(void **state)
{
	struct shared s = {0};
	struct obj objs[NOBJ];
	pthread_t th[2];
	unsigned next = 1;

	(void)state;
	s.q = fwd_qsbr_new(4);
	assert_non_null(s.q);
	for (int i = 0; i < NOBJ; i++)
		objs[i].magic = OBJ_DEAD;
	objs[0].magic = OBJ_LIVE;
	s.cur = &objs[0];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, &s), 0);
	/* both readers registered and reading (on a loaded machine they
	 * could otherwise start after the writer is done) */
	while (__atomic_load_n(&s.started, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	for (int round = 0; round < 20000; round++) {
		struct obj *old = s.cur, *nw = &objs[next];

		next = (next + 1) % NOBJ;
		nw->gen = (uint32_t)round;
		nw->magic = OBJ_LIVE;
		__atomic_store_n(&s.cur, nw, __ATOMIC_RELEASE);
		/* unpublished: reuse only after the grace period */
		assert_int_equal(fwd_qsbr_wait(s.q, fwd_qsbr_start(s.q),
				     2000000000u),
		    0);
		old->magic = OBJ_DEAD;
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		void *rv;

		pthread_join(th[i], &rv);
		assert_null(rv);
	}
	if (s.bad != 0)
		fail_msg("%lu reads of %lu saw a reclaimed object", s.bad,
		    s.reads);
	assert_true(s.reads > 0);
	fwd_qsbr_free(s.q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registration),
	    cmocka_unit_test(test_rule),
	    cmocka_unit_test(test_threads),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
