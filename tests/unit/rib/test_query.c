/* tests/unit/rib/test_query.c: show-route queries: exact, longest match, longer prefixes, by source, active only, sorted, early stop. */
#include "rib_test.h"

struct lines {
	char l[64][160];
	unsigned n;
	unsigned stop_after; /* 0: never */
};

static int
collect(void *arg, const struct rib_route_info *ri)
{
	struct lines *c = arg;
	char res[256];

	hops_str(ri->res, ri->n_res, res, sizeof(res));
	if (c->n < 64)
		snprintf(c->l[c->n++], sizeof(c->l[0]), "%s %s d%u m%u%s%s %s",
		    lc_prefix4_ntoa(&ri->pfx), ri->src_name, ri->distance,
		    ri->metric, (ri->flags & RIB_RI_ACTIVE) ? " *" : "",
		    (ri->flags & RIB_RI_USABLE) ? "" : " unusable", res);
	if (c->stop_after && c->n == c->stop_after)
		return (42);
	return (0);
}

static void
expect(struct rib *rib, const struct rib_query *q, const char *const *want)
{
	struct lines c;
	long n;
	unsigned nw = 0;

	memset(&c, 0, sizeof(c));
	n = rib_route_walk(rib, q, collect, &c, NULL);
	while (want[nw] != NULL)
		nw++;
	if (n != (long)nw || c.n != nw) {
		for (unsigned i = 0; i < c.n; i++)
			print_message("  got: %s\n", c.l[i]);
		fail_msg("walk returned %ld, %u lines, want %u", n, c.n, nw);
	}
	for (unsigned i = 0; i < nw; i++)
		assert_string_equal(c.l[i], want[i]);
}

static struct rib *
setup(void)
{
	struct rib *rib = rib_new(NULL);

	script_run(rib,
	    (const char *const[]){"if 2 up", "src bgp 20",
		"add connected 198.18.0.0/24 %2",
		"add static 198.18.0.0/16 198.18.0.1",
		"add bgp 198.18.0.0/16 m=3 198.18.0.2",
		"add bgp 198.18.4.0/22 198.18.0.3",
		"add bgp 198.18.5.0/24 198.18.0.4",
		"add bgp 198.18.5.128/25 198.19.1.1", /* unusable */
		"add static 198.19.0.0/16 blackhole", NULL});
	return (rib);
}

static void
test_query_exact_longest(void **state)
{
	struct rib *rib = setup();
	struct rib_query q;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.match = RIB_MATCH_EXACT;
	q.pfx = P("198.18.0.0/16");
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 static d1 m0 * 198.18.0.1%2",
		"198.18.0.0/16 bgp d20 m3 198.18.0.2%2", NULL});
	q.active_only = true;
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 static d1 m0 * 198.18.0.1%2",
		NULL});
	q.active_only = false;
	q.src = 3;
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 bgp d20 m3 198.18.0.2%2",
		NULL});
	q.src = 0;
	q.pfx = P("198.18.6.0/24");
	expect(rib, &q, (const char *const[]){NULL});

	q.match = RIB_MATCH_LONGEST;
	q.addr = IP("198.18.5.200");
	expect(rib, &q,
	    (const char *const[]){"198.18.5.128/25 bgp d20 m0 unusable ",
		NULL});
	q.addr = IP("198.18.5.1");
	expect(rib, &q,
	    (const char *const[]){"198.18.5.0/24 bgp d20 m0 * 198.18.0.4%2",
		NULL});
	q.addr = IP("198.18.7.1");
	expect(rib, &q,
	    (const char *const[]){"198.18.4.0/22 bgp d20 m0 * 198.18.0.3%2",
		NULL});
	q.addr = IP("198.18.200.1");
	q.active_only = true;
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 static d1 m0 * 198.18.0.1%2",
		NULL});
	q.addr = IP("198.20.0.1");
	expect(rib, &q, (const char *const[]){NULL});
	rib_free(rib);
}

static void
test_query_longer_sorted(void **state)
{
	struct rib *rib = setup();
	struct rib_query q;
	struct lines c;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.match = RIB_MATCH_LONGER;
	q.pfx = P("198.18.4.0/22");
	q.sorted = true;
	expect(rib, &q,
	    (const char *const[]){"198.18.4.0/22 bgp d20 m0 * 198.18.0.3%2",
		"198.18.5.0/24 bgp d20 m0 * 198.18.0.4%2",
		"198.18.5.128/25 bgp d20 m0 unusable ", NULL});
	q.active_only = true;
	expect(rib, &q,
	    (const char *const[]){"198.18.4.0/22 bgp d20 m0 * 198.18.0.3%2",
		"198.18.5.0/24 bgp d20 m0 * 198.18.0.4%2", NULL});
	q.active_only = false;
	q.match = RIB_MATCH_ALL;
	q.src = RIB_SRC_STATIC;
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 static d1 m0 * 198.18.0.1%2",
		"198.19.0.0/16 static d1 m0 * ", NULL});
	q.src = 0;
	expect(rib, &q,
	    (const char *const[]){"198.18.0.0/16 static d1 m0 * 198.18.0.1%2",
		"198.18.0.0/16 bgp d20 m3 198.18.0.2%2",
		"198.18.0.0/24 connected d0 m0 * 0.0.0.0%2",
		"198.18.4.0/22 bgp d20 m0 * 198.18.0.3%2",
		"198.18.5.0/24 bgp d20 m0 * 198.18.0.4%2",
		"198.18.5.128/25 bgp d20 m0 unusable ",
		"198.19.0.0/16 static d1 m0 * ", NULL});
	/* unsorted: same set */
	q.sorted = false;
	memset(&c, 0, sizeof(c));
	assert_int_equal(rib_route_walk(rib, &q, collect, &c, NULL), 7);
	/* the callback stops the walk */
	memset(&c, 0, sizeof(c));
	c.stop_after = 2;
	assert_int_equal(rib_route_walk(rib, &q, collect, &c, NULL), 42);
	assert_int_equal(c.n, 2);
	q.sorted = true;
	memset(&c, 0, sizeof(c));
	c.stop_after = 3;
	assert_int_equal(rib_route_walk(rib, &q, collect, &c, NULL), 42);
	rib_free(rib);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_query_exact_longest),
	    cmocka_unit_test(test_query_longer_sorted),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
