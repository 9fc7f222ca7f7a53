/* tests/unit/rib/test_fib.c: FIB download: exact delta sequences, acks, water marks, take-back, re-push after fwd restart, resync after rib restart. */
#include "rib_test.h"

static struct rec *
rec_new(void)
{
	struct rec *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	return (r);
}

static void
expect_flush(struct rib *rib, struct rec *r, long n, const char *const *want)
{
	rec_reset(r);
	assert_int_equal(rib_fib_flush(rib), n);
	rec_expect(r, want);
}

static void
test_fib_delta_sequence(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();
	struct rib_fib_stats st;

	(void)state;
	script_run(rib,
	    (const char *const[]){"if 2 up", "if 3 up",
		"add static 198.18.1.0/24 198.18.0.1%2", NULL});
	/* no callback yet: nothing is emitted and nothing is lost */
	assert_int_equal(rib_fib_flush(rib), 0);
	rib_fib_set_cb(rib, rec_cb, r);
	expect_flush(rib, r, 1,
	    (const char *const[]){"add 198.18.1.0/24 198.18.0.1%2", NULL});
	assert_int_equal(r->seq[0], 1);
	expect_flush(rib, r, 0, (const char *const[]){NULL});

	script_run(rib,
	    (const char *const[]){"add static 198.18.1.0/24 198.18.1.1%3",
		NULL});
	expect_flush(rib, r, 1,
	    (const char *const[]){"replace 198.18.1.0/24 198.18.1.1%3", NULL});
	assert_int_equal(r->seq[0], 2);

	script_run(rib,
	    (const char *const[]){"add static 198.18.1.0/24 blackhole", NULL});
	expect_flush(rib, r, 1,
	    (const char *const[]){"replace 198.18.1.0/24 blackhole", NULL});
	script_run(rib,
	    (const char *const[]){"add static 198.18.1.0/24 reject", NULL});
	expect_flush(rib, r, 1,
	    (const char *const[]){"replace 198.18.1.0/24 reject", NULL});

	script_run(rib,
	    (const char *const[]){"del static 198.18.1.0/24", NULL});
	expect_flush(rib, r, 1,
	    (const char *const[]){"delete 198.18.1.0/24", NULL});
	assert_int_equal(r->seq[0], 5);

	/* changes between flushes merge: only the last state goes out */
	script_run(rib,
	    (const char *const[]){"add static 198.18.2.0/24 198.18.0.1%2",
		"add static 198.18.2.0/24 198.18.0.2%2",
		"add static 198.18.2.0/24 198.18.0.3%2 198.18.1.3%3",
		"add static 198.18.3.0/24 198.18.0.1%2",
		"del static 198.18.3.0/24", NULL});
	expect_flush(rib, r, 1,
	    (const char *const[]){"add 198.18.2.0/24 198.18.0.3%2 198.18.1.3%3",
		NULL});
	/* a change that comes back to what was sent sends nothing */
	script_run(rib,
	    (const char *const[]){"add static 198.18.2.0/24 198.18.0.9%2",
		"add static 198.18.2.0/24 198.18.0.3%2 198.18.1.3%3", NULL});
	expect_flush(rib, r, 0, (const char *const[]){NULL});
	rib_fib_stats(rib, &st);
	assert_int_equal(st.seq_sent, 6);
	assert_int_equal(st.batches, 6);
	assert_int_equal(st.deltas, 6);
	rib_free(rib);
	free(r);
}

static void
test_fib_ack_bookkeeping(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();
	struct rib_fib_stats st;
	struct rib_mem_stats ms;
	char buf[256];

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	script_run(rib,
	    (const char *const[]){"if 2 up",
		"add static 198.18.1.0/24 198.18.0.1%2", NULL});
	assert_int_equal(rib_fib_flush(rib), 1);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.inflight, 1);
	assert_int_equal(st.want, 1);
	assert_int_equal(st.acked, 0);
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.1.0/24", buf,
				sizeof(buf)),
	    "none");
	assert_int_equal(rib_fib_ack(rib, 2), -ERANGE); /* never sent */
	assert_int_equal(rib_fib_ack(rib, 1), 0);
	assert_int_equal(rib_fib_ack(rib, 1), 0); /* again: no-op */
	assert_int_equal(rib_fib_ack(rib, 0), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.acked, 1);
	assert_int_equal(st.seq_acked, 1);
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.1.0/24", buf,
				sizeof(buf)),
	    "198.18.0.1%2");

	/* change then delete, two batches in flight: fwd still holds v1 */
	script_run(rib,
	    (const char *const[]){"add static 198.18.1.0/24 198.18.0.2%2",
		NULL});
	assert_int_equal(rib_fib_flush(rib), 1);
	script_run(rib,
	    (const char *const[]){"del static 198.18.1.0/24", NULL});
	assert_int_equal(rib_fib_flush(rib), 1);
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.1.0/24", buf,
				sizeof(buf)),
	    "198.18.0.1%2");
	assert_string_equal(fib_state(rib, RIB_FIB_WANT, "198.18.1.0/24", buf,
				sizeof(buf)),
	    "none");
	assert_int_equal(rib_fib_ack(rib, 2), 0);
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.1.0/24", buf,
				sizeof(buf)),
	    "198.18.0.2%2");
	rib_mem_stats(rib, &ms);
	assert_int_equal(ms.prefixes, 1); /* kept: fwd holds it */
	assert_int_equal(rib_fib_ack(rib, 3), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.acked, 0);
	assert_int_equal(st.inflight, 0);
	rib_mem_stats(rib, &ms);
	assert_int_equal(ms.prefixes, 0); /* gone once fwd dropped it */
	assert_int_equal(ms.routes, 0);
	rib_free(rib);
	free(r);
}

static void
add_n(struct rib *rib, unsigned base, unsigned n, const char *nh)
{
	struct rib_route_upd *u = calloc(n, sizeof(*u));
	struct rib_nexthop h = NH(nh);

	for (unsigned i = 0; i < n; i++) {
		u[i].pfx.addr = lc_ip4_from_host(
		    0xc6120000u + ((base + i) << 8));
		u[i].pfx.len = 24;
		u[i].distance = -1;
		u[i].n_nh = 1;
		u[i].nh = &h;
	}
	assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, u, n, NULL), 0);
	free(u);
}

static void
test_fib_batches_and_water_marks(void **state)
{
	struct rib_conf c;
	struct rib *rib;
	struct rec *r = rec_new();
	struct rib_fib_stats st;

	(void)state;
	rib_conf_default(&c);
	c.fib_batch_max = 4;
	c.fib_high_water = 10;
	c.fib_low_water = 4;
	assert_non_null(rib = rib_new(&c));
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_if_set(rib, 2, true), 0);
	add_n(rib, 1, 30, "198.18.0.1%2");

	assert_int_equal(rib_fib_flush(rib), 10); /* 4 + 4 + 2 */
	assert_int_equal(r->nbatch, 3);
	assert_int_equal(r->bsize[0], 4);
	assert_int_equal(r->bsize[1], 4);
	assert_int_equal(r->bsize[2], 2);
	assert_int_equal(r->seq[2], 3);
	rib_fib_stats(rib, &st);
	assert_true(st.blocked);
	assert_int_equal(st.inflight, 10);
	assert_int_equal(st.queued, 20);
	assert_int_equal(rib_fib_flush(rib), 0);  /* at high water */
	assert_int_equal(rib_fib_ack(rib, 1), 0); /* 6 > low */
	assert_int_equal(rib_fib_flush(rib), 0);
	assert_int_equal(rib_fib_ack(rib, 2), 0); /* 2 <= low */
	rib_fib_stats(rib, &st);
	assert_false(st.blocked);
	assert_int_equal(rib_fib_flush(rib), 8); /* up to high again */
	rib_fib_stats(rib, &st);
	assert_int_equal(st.inflight, 10);
	assert_true(st.blocked);
	assert_int_equal(rib_fib_ack(rib, st.seq_sent), 0);
	assert_int_equal(rib_fib_flush(rib), 10);
	rib_fib_stats(rib, &st);
	assert_int_equal(rib_fib_ack(rib, st.seq_sent), 0);
	assert_int_equal(rib_fib_flush(rib), 2);
	rib_fib_stats(rib, &st);
	assert_int_equal(rib_fib_ack(rib, st.seq_sent), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.deltas, 30); /* each prefix exactly once */
	assert_int_equal(st.acked, 30);
	assert_int_equal(st.queued, 0);
	assert_int_equal(r->n, 30);
	for (unsigned i = 0; i < r->n; i++)
		assert_int_equal(strncmp(r->line[i], "add ", 4), 0);
	rib_free(rib);
	free(r);
}

static void
test_fib_default_batch_size(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_if_set(rib, 2, true), 0);
	add_n(rib, 0, 3000, "198.18.0.1%2");
	assert_int_equal(rib_fib_flush(rib), 3000);
	assert_int_equal(r->nbatch, 3);
	assert_int_equal(r->bsize[0], RIB_FIB_BATCH_DEFAULT);
	assert_int_equal(r->bsize[2], 3000 - 2 * RIB_FIB_BATCH_DEFAULT);
	assert_int_equal(r->seq[0], 1);
	assert_int_equal(r->seq[2], 3);
	rib_free(rib);
	free(r);
}

static void
test_fib_callback_refuses(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();
	struct rib_fib_stats st;

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_if_set(rib, 2, true), 0);
	add_n(rib, 0, 5, "198.18.0.1%2");
	r->fail = -EAGAIN;
	assert_int_equal(rib_fib_flush(rib), -EAGAIN);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.seq_sent, 0);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.queued, 5);
	r->fail = 0;
	assert_int_equal(rib_fib_flush(rib), 5);
	assert_int_equal(r->nbatch, 1);
	assert_int_equal(r->seq[0], 1);
	for (unsigned i = 0; i < r->n; i++)
		assert_int_equal(strncmp(r->line[i], "add ", 4), 0);
	rib_free(rib);
	free(r);
}

/* fwd restarted empty: everything wanted goes out again as adds */
static void
test_fib_repush(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();
	struct rib_fib_stats st;

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	script_run(rib,
	    (const char *const[]){"if 2 up", "add connected 198.18.0.0/24 %2",
		"add static 198.18.1.0/24 198.18.0.1",
		"add static 198.18.2.0/24 blackhole", NULL});
	assert_int_equal(rib_fib_flush(rib), 3);
	assert_int_equal(rib_fib_ack(rib, 1), 0);
	script_run(rib,
	    (const char *const[]){"add static 198.18.1.0/24 198.18.0.2", NULL});
	assert_int_equal(rib_fib_flush(rib), 1); /* seq 2 in flight */

	assert_int_equal(rib_fib_repush(rib), 3);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.acked, 0);
	assert_int_equal(st.queued, 3);
	assert_int_equal(rib_fib_ack(rib, 2), 0); /* late, old fwd: no-op */
	rib_fib_stats(rib, &st);
	assert_int_equal(st.acked, 0);
	expect_flush(rib, r, 3,
	    (const char *const[]){"add 198.18.0.0/24 0.0.0.0%2",
		"add 198.18.1.0/24 198.18.0.2%2", "add 198.18.2.0/24 blackhole",
		NULL});
	assert_int_equal(r->seq[0], 3);
	assert_int_equal(rib_fib_ack(rib, 3), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.acked, 3);
	rib_free(rib);
	free(r);
}

/* rib restarted while fwd kept its FIB: push only what differs */
static void
test_fib_rib_restart(void **state)
{
	static const struct rib_nexthop x = {{0}, 2};
	struct rib_nexthop a = NH("198.18.0.1%2"), b = NH("198.18.0.2%2");
	struct rib_nexthop w = NH("198.18.0.4%2");
	struct rib_fib_delta held[] = {
	    {P("198.18.0.0/24"), RIB_FIB_ADD, RIB_RT_UNICAST, 1, &x},
	    {P("198.18.1.0/24"), RIB_FIB_ADD, RIB_RT_UNICAST, 1, &a},
	    {P("198.18.2.0/24"), RIB_FIB_ADD, RIB_RT_UNICAST, 1, &b},
	    {P("198.18.3.0/24"), RIB_FIB_ADD, RIB_RT_UNICAST, 1, &a},
	    {P("198.18.4.0/24"), RIB_FIB_ADD, RIB_RT_UNICAST, 1, &w},
	    {P("198.18.6.0/24"), RIB_FIB_ADD, RIB_RT_BLACKHOLE, 0, NULL},
	};
	struct rib *rib = rib_new(NULL);
	struct rec *r = rec_new();
	struct rib_fib_stats st;
	struct lc_err err;
	char buf[256];

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_fib_sync_begin(rib), 0);
	assert_int_equal(rib_fib_sync_load(rib, held, 6, &err), 0);
	rib_fib_stats(rib, &st);
	assert_true(st.syncing);
	assert_int_equal(st.acked, 6);
	/* re-learn: connected from fwd, statics from mgmt */
	script_run(rib,
	    (const char *const[]){"if 2 up", "add connected 198.18.0.0/24 %2",
		"add static 198.18.1.0/24 198.18.0.1",	 /* same, recursive */
		"add static 198.18.2.0/24 198.18.0.2%2", /* same, direct */
		"add static 198.18.4.0/24 198.18.0.5%2", /* changed */
		"add static 198.18.5.0/24 198.18.0.1%2", /* new */
		"add static 198.18.6.0/24 blackhole",	 /* same */
		NULL});
	/* 198.18.3.0/24 is not re-learned */
	assert_int_equal(rib_fib_flush(rib), 0); /* held back */
	assert_int_equal(r->calls, 0);
	assert_int_equal(rib_fib_sync_end(rib), 3);
	expect_flush(rib, r, 3,
	    (const char *const[]){"add 198.18.5.0/24 198.18.0.1%2",
		"delete 198.18.3.0/24", "replace 198.18.4.0/24 198.18.0.5%2",
		NULL});
	assert_int_equal(r->nbatch, 1);
	rib_fib_stats(rib, &st);
	assert_int_equal(rib_fib_ack(rib, st.seq_sent), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.acked, 6);
	assert_int_equal(st.want, 6);
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.4.0/24", buf,
				sizeof(buf)),
	    "198.18.0.5%2");
	assert_string_equal(fib_state(rib, RIB_FIB_ACKED, "198.18.3.0/24", buf,
				sizeof(buf)),
	    "none");

	/* load outside a resync, and bad entries, are refused */
	assert_int_equal(rib_fib_sync_load(rib, held, 1, &err), -EINVAL);
	assert_int_equal(rib_fib_sync_begin(rib), 0);
	held[0].pfx.len = 16; /* 198.18.0.0/16 fine; host bits next */
	held[1].pfx.len = 8;
	assert_int_equal(rib_fib_sync_load(rib, held, 2, &err), -EINVAL);
	assert_int_equal(err.index, 1);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.acked, 0); /* nothing loaded */
	rib_free(rib);
	free(r);
}

/* fwd holds a wider ECMP set than this rib allows: that is a difference */
static void
test_fib_restart_wider_ecmp(void **state)
{
	struct rib_nexthop h[3] = {NH("198.18.0.1%2"), NH("198.18.0.2%2"),
	    NH("198.18.0.3%2")};
	struct rib_fib_delta held = {P("198.18.9.0/24"), RIB_FIB_ADD,
	    RIB_RT_UNICAST, 3, h};
	struct rib_conf c;
	struct rib *rib;
	struct rec *r = rec_new();

	(void)state;
	rib_conf_default(&c);
	c.ecmp_width = 2;
	assert_non_null(rib = rib_new(&c));
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_fib_sync_begin(rib), 0);
	assert_int_equal(rib_fib_sync_load(rib, &held, 1, NULL), 0);
	script_run(rib,
	    (const char *const[]){"if 2 up",
		"add static 198.18.9.0/24 198.18.0.1%2 198.18.0.2%2 198.18.0.3%2",
		NULL});
	assert_int_equal(rib_fib_sync_end(rib), 1);
	expect_flush(rib, r, 1,
	    (const char
		    *const[]){"replace 198.18.9.0/24 198.18.0.1%2 198.18.0.2%2",
		NULL});
	rib_free(rib);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fib_delta_sequence),
	    cmocka_unit_test(test_fib_ack_bookkeeping),
	    cmocka_unit_test(test_fib_batches_and_water_marks),
	    cmocka_unit_test(test_fib_default_batch_size),
	    cmocka_unit_test(test_fib_callback_refuses),
	    cmocka_unit_test(test_fib_repush),
	    cmocka_unit_test(test_fib_rib_restart),
	    cmocka_unit_test(test_fib_restart_wider_ecmp),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
