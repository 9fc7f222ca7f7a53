/* tests/unit/rib/test_source.c: route sources: defaults, registration, distance changes, disconnect (stale, grace, sweep), deletion, summary counts. */
#include "rib_test.h"

static void
test_source_defaults_and_add(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_source_conf c = {"bgp", -1, 120000};
	struct rib_source_info si;
	struct lc_err err;
	unsigned id = 0, n;

	(void)state;
	assert_int_equal(rib_source_find(rib, "connected"), RIB_SRC_CONNECTED);
	assert_int_equal(rib_source_find(rib, "static"), RIB_SRC_STATIC);
	assert_int_equal(rib_source_info(rib, RIB_SRC_CONNECTED, &si), 0);
	assert_string_equal(si.name, "connected");
	assert_int_equal(si.distance, 0);
	assert_int_equal(rib_source_info(rib, RIB_SRC_STATIC, &si), 0);
	assert_int_equal(si.distance, 1);

	assert_int_equal(rib_source_add(rib, &c, &id, &err), 0);
	assert_int_equal(id, 3);
	assert_int_equal(rib_source_info(rib, id, &si), 0);
	assert_int_equal(si.distance, RIB_DISTANCE_PROTO);
	assert_int_equal(si.grace_ms, 120000);
	assert_int_equal(rib_source_find(rib, "bgp"), 3);
	assert_int_equal(rib_source_add(rib, &c, &id, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "exists"));

	c.name = "bad name";
	assert_int_equal(rib_source_add(rib, &c, &id, &err), -EINVAL);
	c.name = "";
	assert_int_equal(rib_source_add(rib, &c, &id, &err), -EINVAL);
	c.name = "ospf";
	c.distance = 256;
	assert_int_equal(rib_source_add(rib, &c, &id, &err), -EINVAL);
	assert_int_equal(rib_source_find(rib, "ospf"), -ENOENT);
	assert_int_equal(rib_source_info(rib, 77, &si), -ENOENT);
	assert_int_equal(rib_source_info(rib, 0, &si), -ENOENT);

	/* every id in use: -ENOSPC */
	for (n = 0;; n++) {
		char name[16];
		struct rib_source_conf cc = {name, 50, 0};
		int rv;

		snprintf(name, sizeof(name), "p%u", n);
		if ((rv = rib_source_add(rib, &cc, NULL, &err)) != 0) {
			assert_int_equal(rv, -ENOSPC);
			break;
		}
	}
	assert_int_equal(n, RIB_SOURCE_MAX - 1 - 3);
	rib_free(rib);
}

/* source disconnect: stale routes keep forwarding through the grace
 * period; re-added ones are fresh; sweep removes the rest */
static void
test_source_stale_sweep(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rec *r = calloc(1, sizeof(*r));
	struct rib_source_info si;
	char buf[128];
	int bgp;

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	script_run(rib,
	    (const char *const[]){"if 2 up", "src bgp 20",
		"add bgp 198.18.1.0/24 198.18.0.1%2",
		"add bgp 198.18.2.0/24 198.18.0.1%2",
		"add bgp 198.18.3.0/24 198.18.0.1%2",
		"add static 198.18.3.0/24 d=200 198.18.0.9%2", NULL});
	assert_int_equal(rib_fib_flush(rib), 3);
	assert_int_equal(rib_fib_ack(rib, 1), 0);
	bgp = rib_source_find(rib, "bgp");

	assert_int_equal(rib_source_stale(rib, (unsigned)bgp), 3);
	assert_int_equal(rib_source_info(rib, (unsigned)bgp, &si), 0);
	assert_true(si.stale);
	assert_int_equal(si.stale_routes, 3);
	assert_int_equal(si.active, 3);
	/* nothing changes in the FIB while stale */
	rec_reset(r);
	assert_int_equal(rib_fib_flush(rib), 0);
	script_run(rib,
	    (const char *const[]){"state bgp 198.18.1.0/24 active usable stale",
		"want 198.18.1.0/24 198.18.0.1%2",
		/* the source comes back and re-learns one route */
		"add bgp 198.18.1.0/24 198.18.0.1%2",
		"state bgp 198.18.1.0/24 active usable", NULL});
	assert_int_equal(rib_fib_flush(rib), 0); /* same: no delta */
	assert_int_equal(rib_source_info(rib, (unsigned)bgp, &si), 0);
	assert_int_equal(si.stale_routes, 2);

	/* grace period over */
	assert_int_equal(rib_source_sweep(rib, (unsigned)bgp), 2);
	assert_int_equal(rib_fib_flush(rib), 2);
	rec_expect(r,
	    (const char *const[]){"delete 198.18.2.0/24",
		"replace 198.18.3.0/24 198.18.0.9%2", NULL});
	assert_int_equal(rib_source_info(rib, (unsigned)bgp, &si), 0);
	assert_false(si.stale);
	assert_int_equal(si.routes, 1);
	assert_int_equal(si.stale_routes, 0);
	assert_string_equal(route_state(rib, (unsigned)bgp, "198.18.2.0/24",
				buf, sizeof(buf)),
	    "absent");
	assert_int_equal(rib_source_sweep(rib, (unsigned)bgp), 0);
	assert_int_equal(rib_source_stale(rib, 99), -ENOENT);
	assert_int_equal(rib_source_sweep(rib, 99), -ENOENT);

	/* static can be re-learned the same way (mgmt reload) */
	assert_int_equal(rib_source_stale(rib, RIB_SRC_STATIC), 1);
	assert_int_equal(rib_source_sweep(rib, RIB_SRC_STATIC), 1);
	rib_free(rib);
	free(r);
}

static void
test_source_del_and_distance(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_source_info si;
	struct rib_route_upd u;
	struct rib_nexthop h = NH("198.18.0.1%2");
	struct lc_err err;
	int ospf;

	(void)state;
	script_run(rib,
	    (const char *const[]){"if 2 up", "if 3 up", "src ospf 110",
		"add ospf 198.18.1.0/24 198.18.0.1%2",
		"add ospf 198.18.2.0/24 198.18.0.1%2",
		"add static 198.18.1.0/24 d=120 198.18.1.1%3",
		"want 198.18.1.0/24 198.18.0.1%2", NULL});
	ospf = rib_source_find(rib, "ospf");
	/* the source's distance moves its routes (not per-route ones) */
	assert_int_equal(rib_source_set(rib, (unsigned)ospf, 130, 5000, &err),
	    0);
	script_run(rib,
	    (const char *const[]){"want 198.18.1.0/24 198.18.1.1%3", NULL});
	assert_int_equal(rib_source_set(rib, RIB_SRC_STATIC, 200, 0, &err), 0);
	script_run(rib,
	    (const char *const[]){"want 198.18.1.0/24 198.18.1.1%3", NULL});
	assert_int_equal(rib_source_info(rib, (unsigned)ospf, &si), 0);
	assert_int_equal(si.grace_ms, 5000);
	assert_int_equal(si.distance, 130);
	assert_int_equal(si.routes, 2);
	assert_int_equal(si.active, 1);
	assert_int_equal(rib_source_set(rib, (unsigned)ospf, 300, 0, &err),
	    -EINVAL);
	assert_int_equal(rib_source_set(rib, 99, 1, 0, &err), -ENOENT);

	assert_int_equal(rib_source_del(rib, RIB_SRC_STATIC, &err), -EPERM);
	assert_int_equal(rib_source_del(rib, (unsigned)ospf, &err), 0);
	assert_int_equal(rib_source_find(rib, "ospf"), -ENOENT);
	script_run(rib,
	    (const char *const[]){"want 198.18.1.0/24 198.18.1.1%3",
		"want 198.18.2.0/24 none", NULL});
	memset(&u, 0, sizeof(u));
	u.pfx = P("198.18.9.0/24");
	u.distance = -1;
	u.n_nh = 1;
	u.nh = &h;
	assert_int_equal(rib_route_batch(rib, (unsigned)ospf, &u, 1, &err),
	    -ENOENT);
	assert_int_equal(err.index, -1);
	assert_non_null(strstr(err.msg, "unknown source"));
	assert_int_equal(rib_source_del(rib, (unsigned)ospf, &err), -ENOENT);
	rib_free(rib);
}

static void
test_source_summary(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_source_info si;

	(void)state;
	script_run(rib,
	    (const char *const[]){"if 2 up", "src bgp 20",
		"add connected 198.18.0.0/24 %2",
		"add bgp 198.18.1.0/24 198.18.0.1",
		"add bgp 198.18.2.0/24 198.19.9.9", /* unresolvable */
		"add bgp 198.18.3.0/24 198.18.0.1",
		"add static 198.18.3.0/24 198.18.0.7%2", /* wins */
		NULL});
	assert_int_equal(rib_source_info(rib, 3, &si), 0);
	assert_int_equal(si.routes, 3);
	assert_int_equal(si.active, 1);
	assert_int_equal(si.inactive, 1);
	assert_int_equal(rib_source_info(rib, RIB_SRC_STATIC, &si), 0);
	assert_int_equal(si.routes, 1);
	assert_int_equal(si.active, 1);
	assert_int_equal(rib_source_info(rib, RIB_SRC_CONNECTED, &si), 0);
	assert_int_equal(si.routes, 1);
	assert_int_equal(si.active, 1);
	assert_int_equal(rib_if_set(rib, 2, false), 0);
	assert_int_equal(rib_source_info(rib, 3, &si), 0);
	assert_int_equal(si.active, 0);
	assert_int_equal(si.inactive, 3);
	assert_int_equal(rib_source_info(rib, RIB_SRC_CONNECTED, &si), 0);
	assert_int_equal(si.active, 0);
	assert_int_equal(si.inactive, 1);
	rib_free(rib);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_source_defaults_and_add),
	    cmocka_unit_test(test_source_stale_sweep),
	    cmocka_unit_test(test_source_del_and_distance),
	    cmocka_unit_test(test_source_summary),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
