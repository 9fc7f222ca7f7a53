/* tests/unit/rib/test_select.c: table-driven best-path selection: distance, metric, ECMP, recursion, loops, interfaces, blackhole/reject. */
#include "rib_test.h"

struct scase {
	const char *name;
	unsigned ecmp;	    /* 0: default */
	unsigned recursion; /* 0: default */
	bool via_default;
	const char *steps[40];
};

static const struct scase cases[] = {
    {"distance: connected < static < protocol; per-route distance", 0, 0, false,
	{"if 2 up", "if 3 up", "src ospf 110",
	    "add ospf 198.18.10.0/24 m=5 198.18.1.1%3",
	    "want 198.18.10.0/24 198.18.1.1%3",
	    "add static 198.18.10.0/24 198.18.0.1%2",
	    "want 198.18.10.0/24 198.18.0.1%2",
	    "state static 198.18.10.0/24 active usable",
	    "state ospf 198.18.10.0/24 usable",
	    "add connected 198.18.10.0/24 %3", "want 198.18.10.0/24 0.0.0.0%3",
	    "state static 198.18.10.0/24 usable",
	    "del connected 198.18.10.0/24",
	    /* a floating static: distance 250 loses to ospf */
	    "add static 198.18.10.0/24 d=250 198.18.0.1%2",
	    "want 198.18.10.0/24 198.18.1.1%3", "del ospf 198.18.10.0/24",
	    "want 198.18.10.0/24 198.18.0.1%2", NULL}},
    {"metric breaks distance ties; equal best is ECMP across sources", 0, 0,
	false,
	{"if 2 up", "if 3 up", "src a 20", "src b 20",
	    "add a 198.18.20.0/24 m=10 198.18.0.1%2",
	    "add b 198.18.20.0/24 m=5 198.18.1.1%3",
	    "want 198.18.20.0/24 198.18.1.1%3", "state a 198.18.20.0/24 usable",
	    "add a 198.18.20.0/24 m=5 198.18.0.1%2",
	    "want 198.18.20.0/24 198.18.0.1%2 198.18.1.1%3",
	    "state a 198.18.20.0/24 active usable",
	    "state b 198.18.20.0/24 active usable",
	    /* same hop from both: deduplicated */
	    "add a 198.18.20.0/24 m=5 198.18.1.1%3",
	    "want 198.18.20.0/24 198.18.1.1%3", NULL}},
    {"ECMP width 8 of 10 (the lowest addresses)", 0, 0, false,
	{"if 2 up",
	    "add static 198.18.30.0/24 198.18.0.10%2 198.18.0.9%2 198.18.0.8%2"
	    " 198.18.0.7%2 198.18.0.6%2 198.18.0.5%2 198.18.0.4%2 198.18.0.3%2"
	    " 198.18.0.2%2 198.18.0.1%2",
	    "want 198.18.30.0/24 198.18.0.1%2 198.18.0.2%2 198.18.0.3%2"
	    " 198.18.0.4%2 198.18.0.5%2 198.18.0.6%2 198.18.0.7%2 198.18.0.8%2",
	    NULL}},
    {"ECMP width 2 caps a merge of sources", 2, 0, false,
	{"if 2 up", "src a 20", "src b 20",
	    "add a 198.18.31.0/24 198.18.0.3%2 198.18.0.4%2",
	    "add b 198.18.31.0/24 198.18.0.1%2 198.18.0.2%2",
	    "want 198.18.31.0/24 198.18.0.1%2 198.18.0.2%2",
	    "del b 198.18.31.0/24",
	    "want 198.18.31.0/24 198.18.0.3%2 198.18.0.4%2", NULL}},
    {"ECMP route stays usable with one hop down", 0, 0, false,
	{"if 2 up", "if 3 up",
	    "add static 198.18.32.0/24 198.18.0.1%2 198.18.1.1%3",
	    "want 198.18.32.0/24 198.18.0.1%2 198.18.1.1%3", "if 3 down",
	    "want 198.18.32.0/24 198.18.0.1%2", "if 2 down",
	    "want 198.18.32.0/24 none", "state static 198.18.32.0/24 inactive",
	    "if 3 up", "want 198.18.32.0/24 198.18.1.1%3", NULL}},
    {"recursion: chains of 1, 2 and 3 levels", 0, 0, false,
	{"if 2 up", "add connected 198.18.0.0/24 %2",
	    "add static 198.18.50.0/24 198.18.0.1",
	    "want 198.18.50.0/24 198.18.0.1%2",
	    "add static 198.18.60.0/24 198.18.50.7",
	    "want 198.18.60.0/24 198.18.0.1%2",
	    "add static 198.18.70.0/24 198.18.60.9",
	    "want 198.18.70.0/24 198.18.0.1%2",
	    /* the bottom moves: the whole chain follows */
	    "add static 198.18.50.0/24 198.18.0.2",
	    "want 198.18.70.0/24 198.18.0.2%2", "del static 198.18.50.0/24",
	    "want 198.18.60.0/24 none", "want 198.18.70.0/24 none",
	    "state static 198.18.70.0/24 inactive",
	    "add static 198.18.50.0/24 198.18.0.3",
	    "want 198.18.70.0/24 198.18.0.3%2", NULL}},
    {"recursion depth bounded (max 2: the third level is refused)", 0, 2, false,
	{"if 2 up", "add connected 198.18.0.0/24 %2",
	    "add static 198.18.50.0/24 198.18.0.1",
	    "add static 198.18.60.0/24 198.18.50.7",
	    "want 198.18.60.0/24 198.18.0.1%2",
	    "add static 198.18.70.0/24 198.18.60.9", "want 198.18.70.0/24 none",
	    "state static 198.18.70.0/24 inactive loop", NULL}},
    {"recursion through an ECMP route keeps all its hops", 0, 0, false,
	{"if 2 up", "if 3 up",
	    "add static 198.18.80.0/24 198.18.0.1%2 198.18.1.1%3",
	    "add static 198.18.81.0/24 198.18.80.5",
	    "want 198.18.81.0/24 198.18.0.1%2 198.18.1.1%3", NULL}},
    {"loops refused: mutual, self, and through a covering route", 0, 0, false,
	{"if 2 up", "add connected 198.18.0.0/24 %2",
	    "add static 198.19.1.0/24 198.19.2.1",
	    "add static 198.19.2.0/24 198.19.1.1", "want 198.19.1.0/24 none",
	    "want 198.19.2.0/24 none",
	    "state static 198.19.1.0/24 inactive loop",
	    "state static 198.19.2.0/24 inactive loop",
	    /* a covering route that resolves does not let the loop live */
	    "add static 198.19.0.0/16 198.18.0.1",
	    "want 198.19.0.0/16 198.18.0.1%2", "want 198.19.1.0/24 none",
	    "want 198.19.2.0/24 none",
	    /* a route via a gateway inside itself */
	    "add static 198.19.9.0/24 198.19.9.1", "want 198.19.9.0/24 none",
	    "state static 198.19.9.0/24 inactive loop",
	    /* breaking the loop with a direct route brings both back */
	    "add static 198.19.2.0/24 198.18.0.7%2",
	    "want 198.19.2.0/24 198.18.0.7%2",
	    "want 198.19.1.0/24 198.18.0.7%2", NULL}},
    {"mutual recursion with a worse direct way out: stable, loop refused", 0, 0,
	false,
	{"if 2 up", "src ospf 110", "add connected 198.18.0.0/24 %2",
	    "add static 198.19.0.0/16 198.18.0.1",
	    /* A: static via B (preferred) or ospf direct; B: via A */
	    "add ospf 198.19.20.0/24 198.18.0.5%2",
	    "add static 198.19.20.0/24 198.19.10.1",
	    "add static 198.19.10.0/24 198.19.20.1",
	    "want 198.19.20.0/24 198.18.0.5%2",
	    "want 198.19.10.0/24 198.18.0.5%2",
	    "state static 198.19.20.0/24 inactive loop",
	    "state ospf 198.19.20.0/24 active usable",
	    "state static 198.19.10.0/24 active usable",
	    /* without the way out nothing keeps the loop alive */
	    "del ospf 198.19.20.0/24", "want 198.19.20.0/24 none",
	    "want 198.19.10.0/24 none", "add ospf 198.19.20.0/24 198.18.0.5%2",
	    "want 198.19.20.0/24 198.18.0.5%2",
	    "want 198.19.10.0/24 198.18.0.5%2",
	    "state static 198.19.20.0/24 inactive loop", NULL}},
    {"the same, learned in the other order", 0, 0, false,
	{"if 2 up", "src ospf 110", "add connected 198.18.0.0/24 %2",
	    "add static 198.19.0.0/16 198.18.0.1",
	    "add static 198.19.10.0/24 198.19.20.1",
	    "add static 198.19.20.0/24 198.19.10.1",
	    "add ospf 198.19.20.0/24 198.18.0.5%2",
	    "want 198.19.20.0/24 198.18.0.5%2",
	    "want 198.19.10.0/24 198.18.0.5%2",
	    "state static 198.19.20.0/24 inactive loop", NULL}},
    {"unreachable next hop: kept inactive, active when covered", 0, 0, false,
	{"if 2 up", "add static 198.18.90.0/24 198.18.7.1",
	    "state static 198.18.90.0/24 inactive", "want 198.18.90.0/24 none",
	    "add connected 198.18.7.0/24 %2",
	    "state static 198.18.90.0/24 active usable",
	    "want 198.18.90.0/24 198.18.7.1%2",
	    /* a longer covering route takes over the resolution */
	    "add static 198.18.7.0/25 198.18.0.99%2",
	    "want 198.18.90.0/24 198.18.0.99%2", "del static 198.18.7.0/25",
	    "want 198.18.90.0/24 198.18.7.1%2", "del connected 198.18.7.0/24",
	    "state static 198.18.90.0/24 inactive", NULL}},
    {"no resolution via the default route unless configured", 0, 0, false,
	{"if 2 up", "add static 0.0.0.0/0 198.18.0.1%2",
	    "add static 198.18.91.0/24 198.19.200.1",
	    "want 198.18.91.0/24 none", NULL}},
    {"resolution via the default route when configured", 0, 0, true,
	{"if 2 up", "add static 0.0.0.0/0 198.18.0.1%2",
	    "add static 198.18.91.0/24 198.19.200.1",
	    "want 198.18.91.0/24 198.18.0.1%2", NULL}},
    {"blackhole and reject", 0, 0, false,
	{"if 2 up", "src ospf 110", "add static 198.18.100.0/24 blackhole",
	    "want 198.18.100.0/24 blackhole",
	    "state static 198.18.100.0/24 active usable",
	    "add static 198.18.100.0/24 reject", "want 198.18.100.0/24 reject",
	    "add static 198.18.100.0/24 d=200 blackhole",
	    "add ospf 198.18.100.0/24 198.18.0.1%2",
	    "want 198.18.100.0/24 198.18.0.1%2",
	    /* next hops never resolve through a blackhole */
	    "add static 198.18.101.0/24 blackhole",
	    "add static 198.18.102.0/24 198.18.101.1",
	    "want 198.18.102.0/24 none", NULL}},
    {"unknown interface is down; static via interface", 0, 0, false,
	{"add static 198.18.110.0/24 %9", "want 198.18.110.0/24 none",
	    "if 9 up", "want 198.18.110.0/24 0.0.0.0%9", NULL}},
};

static void
test_select_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rib_conf c;
		struct rib *rib;

		print_message("case: %s\n", cases[i].name);
		rib_conf_default(&c);
		if (cases[i].ecmp)
			c.ecmp_width = cases[i].ecmp;
		if (cases[i].recursion)
			c.recursion_max = cases[i].recursion;
		c.resolve_via_default = cases[i].via_default;
		assert_non_null(rib = rib_new(&c));
		script_run(rib, cases[i].steps);
		rib_free(rib);
	}
}

/* interface down: every dependent route changes in one batch; up: back */
static void
test_if_down_up_one_batch(void **state)
{
	static const char *const setup[] = {"if 2 up", "if 3 up",
	    "add connected 198.18.0.0/24 %2", "add connected 198.18.1.0/24 %3",
	    "add static 198.18.50.0/24 198.18.0.1",
	    "add static 198.18.60.0/24 198.18.50.9",
	    "add static 198.18.70.0/24 198.18.0.5%2",
	    "add static 198.18.71.0/24 198.18.1.5%3",
	    "add static 198.18.72.0/24 198.18.0.6%2 198.18.1.6%3", NULL};
	static const char *const down[] = {"delete 198.18.0.0/24",
	    "delete 198.18.50.0/24", "delete 198.18.60.0/24",
	    "delete 198.18.70.0/24", "replace 198.18.72.0/24 198.18.1.6%3",
	    NULL};
	static const char *const up[] = {"add 198.18.0.0/24 0.0.0.0%2",
	    "add 198.18.50.0/24 198.18.0.1%2",
	    "add 198.18.60.0/24 198.18.0.1%2",
	    "add 198.18.70.0/24 198.18.0.5%2",
	    "replace 198.18.72.0/24 198.18.0.6%2 198.18.1.6%3", NULL};
	struct rec *r = calloc(1, sizeof(*r));
	struct rib *rib = rib_new(NULL);
	char buf[128];

	(void)state;
	rib_fib_set_cb(rib, rec_cb, r);
	script_run(rib, setup);
	assert_int_equal(rib_fib_flush(rib), 7);
	assert_int_equal(rib_fib_ack(rib, r->seq[r->nbatch - 1]), 0);
	rec_reset(r);

	assert_int_equal(rib_if_set(rib, 2, false), 0);
	assert_int_equal(rib_fib_flush(rib), 5);
	assert_int_equal(r->nbatch, 1);
	rec_expect(r, down);
	assert_string_equal(route_state(rib, RIB_SRC_STATIC, "198.18.60.0/24",
				buf, sizeof(buf)),
	    "inactive");
	assert_int_equal(rib_fib_ack(rib, r->seq[0]), 0);
	rec_reset(r);

	assert_int_equal(rib_if_set(rib, 2, false), 0); /* no change */
	assert_int_equal(rib_fib_flush(rib), 0);
	assert_int_equal(rib_if_set(rib, 2, true), 0);
	assert_int_equal(rib_fib_flush(rib), 5);
	assert_int_equal(r->nbatch, 1);
	rec_expect(r, up);
	assert_int_equal(rib_if_set(rib, 0, true), -EINVAL);
	rib_free(rib);
	free(r);
}

/* next-hop tracking (tern-bgp's next hops): a watched address resolves
 * like a route's next hop, with the resolving route's metric, and follows
 * the table without any route using it */
static void
test_nh_watch(void **state)
{
	static const char *const setup[] = {"if 2 up",
	    "add connected 198.18.0.0/24 %2", NULL};
	static const char *const more[] =
	    {"add static 198.18.40.0/24 198.18.0.1 m=7", NULL};
	static const char *const less[] = {"del static 198.18.40.0/24", NULL};
	struct rib *rib = rib_new(NULL);
	struct rib_nh_state st;
	uint32_t on = rib_nh_watch(rib, 0xc6120005), /* 198.18.0.5 */
	    far = rib_nh_watch(rib, 0xc6122809),     /* 198.18.40.9 */
	    again = rib_nh_watch(rib, 0xc6120005);

	(void)state;
	assert_int_not_equal(on, 0);
	assert_int_equal(again, on); /* one next hop, two references */
	rib_nh_state(rib, on, &st);
	assert_false(st.reachable); /* an empty table */
	script_run(rib, setup);
	rib_nh_state(rib, on, &st);
	assert_true(st.reachable);
	assert_int_equal(st.metric, 0);
	assert_int_equal(st.via_addr, 0xc6120000);
	assert_int_equal(st.via_len, 24);
	rib_nh_state(rib, far, &st);
	assert_false(st.reachable);
	script_run(rib, more); /* recursive, through 198.18.0.1 */
	rib_nh_state(rib, far, &st);
	assert_true(st.reachable);
	assert_int_equal(st.metric, 7);
	assert_int_equal(st.via_len, 24);
	script_run(rib, less);
	rib_nh_state(rib, far, &st);
	assert_false(st.reachable);
	assert_int_equal(rib_if_set(rib, 2, false), 0);
	rib_nh_state(rib, on, &st);
	assert_false(st.reachable); /* its interface down */
	rib_nh_unwatch(rib, again);
	rib_nh_unwatch(rib, on);
	rib_nh_unwatch(rib, far);
	rib_nh_state(rib, on, &st); /* gone: a zero state, no crash */
	assert_false(st.reachable);
	rib_free(rib);
}

/* a big fan-out: 10k recursive routes over one next hop follow it */
static void
test_recursion_fanout(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_route_upd *u = calloc(10000, sizeof(*u));
	struct rib_nexthop gw = NH("198.19.255.1");
	struct rec *r = calloc(1, sizeof(*r));
	struct rib_fib_stats st;
	char buf[128];

	(void)state;
	script_run(rib,
	    (const char *const[]){"if 2 up", "add connected 198.19.255.0/24 %2",
		NULL});
	for (unsigned i = 0; i < 10000; i++) {
		u[i].pfx.addr = lc_ip4_from_host(0xc6120000u + (i << 2));
		u[i].pfx.len = 30;
		u[i].distance = -1;
		u[i].n_nh = 1;
		u[i].nh = &gw;
	}
	assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, u, 10000, NULL),
	    0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.want, 10001);
	assert_string_equal(fib_state(rib, RIB_FIB_WANT, "198.18.1.0/30", buf,
				sizeof(buf)),
	    "198.19.255.1%2");
	rib_fib_set_cb(rib, rec_cb, r);
	assert_int_equal(rib_fib_flush(rib), 10001);
	assert_int_equal(rib_fib_ack(rib, r->seq[r->nbatch - 1]), 0);
	assert_int_equal(rib_if_set(rib, 2, false), 0);
	rib_fib_stats(rib, &st);
	assert_int_equal(st.want, 0);
	assert_int_equal(st.queued, 10001);
	rib_free(rib);
	free(u);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_select_table),
	    cmocka_unit_test(test_if_down_up_one_batch),
	    cmocka_unit_test(test_recursion_fanout),
	    cmocka_unit_test(test_nh_watch),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
