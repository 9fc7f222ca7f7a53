/* tests/unit/rib/test_input.c: bad input gets a clear error naming the bad entry, and changes nothing. */
#include "rib_test.h"

/* the whole observable state as text */
struct snap {
	char *text;
	size_t len, cap;
};

static void
snap_add(struct snap *s, const char *line)
{
	size_t n = strlen(line);

	if (s->len + n + 2 > s->cap) {
		s->cap = (s->len + n + 2) * 2;
		s->text = realloc(s->text, s->cap);
	}
	memcpy(s->text + s->len, line, n);
	s->len += n;
	s->text[s->len++] = '\n';
	s->text[s->len] = 0;
}

static int
snap_route(void *arg, const struct rib_route_info *ri)
{
	char line[512], nh[256], res[256];

	hops_str(ri->nh, ri->n_nh, nh, sizeof(nh));
	hops_str(ri->res, ri->n_res, res, sizeof(res));
	snprintf(line, sizeof(line), "%s %s t%u d%u m%u f%x [%s] [%s]",
	    lc_prefix4_ntoa(&ri->pfx), ri->src_name, ri->type, ri->distance,
	    ri->metric, ri->flags, nh, res);
	snap_add(arg, line);
	return (0);
}

static int
snap_fib(void *arg, const struct rib_fib_delta *d)
{
	char line[512];

	delta_str(d, line, sizeof(line));
	snap_add(arg, line);
	return (0);
}

static char *
snapshot(struct rib *rib)
{
	struct snap s = {NULL, 0, 0};
	struct rib_query q = {.match = RIB_MATCH_ALL, .sorted = true};
	struct rib_fib_stats fs;
	struct rib_mem_stats ms;
	struct rib_source_info si;
	char line[256];

	snap_add(&s, "routes:");
	assert_true(rib_route_walk(rib, &q, snap_route, &s, NULL) >= 0);
	snap_add(&s, "want:");
	rib_fib_walk(rib, RIB_FIB_WANT, snap_fib, &s);
	snap_add(&s, "acked:");
	rib_fib_walk(rib, RIB_FIB_ACKED, snap_fib, &s);
	rib_fib_stats(rib, &fs);
	rib_mem_stats(rib, &ms);
	snprintf(line, sizeof(line),
	    "fib %lu %lu %zu %zu %zu %zu; mem %zu %zu "
	    "%zu %zu %zu",
	    (unsigned long)fs.seq_sent, (unsigned long)fs.seq_acked,
	    fs.inflight, fs.queued, fs.want, fs.acked, ms.prefixes, ms.routes,
	    ms.nexthops, ms.groups, ms.fibgroups);
	snap_add(&s, line);
	for (unsigned id = 1; id < RIB_SOURCE_MAX; id++)
		if (rib_source_info(rib, id, &si) == 0) {
			snprintf(line, sizeof(line), "src %u %s %u %zu %zu %zu",
			    id, si.name, si.distance, si.routes, si.active,
			    si.inactive);
			snap_add(&s, line);
		}
	return (s.text);
}

struct bad {
	const char *name;
	unsigned src;
	int code;
	long index;
	const char *msg;	  /* a part of the message */
	struct rib_route_upd bad; /* appended after the good entries */
};

static const struct rib_nexthop nh_ok = {{0}, 2};
static const struct rib_nexthop nh_gw_if[1] = {{{0x010012c6}, 2}};
static const struct rib_nexthop nh_zero = {{0}, 0};
static const struct rib_nexthop nh_lo = {{0x0100007f}, 0};
static const struct rib_nexthop nh_mc = {{0x010000e0}, 0};
static const struct rib_nexthop nh_bc = {{0xffffffff}, 0};
static const struct rib_nexthop nh_gw = {{0x090012c6}, 0};
static struct rib_nexthop nh_many[RIB_NH_MAX + 1];

#define PFX(a, b, c, d, l)                                                    \
	{                                                                     \
		{htonl(                                                       \
		    ((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))}, \
		    l                                                         \
	}

static void
test_bad_batches_change_nothing(void **state)
{
	const struct bad bads[] = {
	    {"host bits", RIB_SRC_STATIC, -EINVAL, 3, "host bits set",
		{PFX(198, 18, 7, 1, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_ok}},
	    {"host bits on delete", RIB_SRC_STATIC, -EINVAL, 3,
		"198.18.7.1/24 has host bits set",
		{PFX(198, 18, 7, 1, 24), RIB_OP_DELETE, 0, -1, 0, 0, NULL}},
	    {"/33", RIB_SRC_STATIC, -EINVAL, 3, "prefix length 33 > 32",
		{PFX(198, 18, 7, 0, 33), RIB_OP_ADD, 0, -1, 0, 1, &nh_ok}},
	    {"0.0.0.0 without interface", RIB_SRC_STATIC, -EINVAL, 3,
		"next hop 0.0.0.0 without interface",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_zero}},
	    {"loopback next hop", RIB_SRC_STATIC, -EINVAL, 3,
		"invalid next-hop address 127.0.0.1",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_lo}},
	    {"multicast next hop", RIB_SRC_STATIC, -EINVAL, 3,
		"invalid next-hop address 224.0.0.1",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_mc}},
	    {"broadcast next hop", RIB_SRC_STATIC, -EINVAL, 3,
		"invalid next-hop address 255.255.255.255",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_bc}},
	    {"no next hop", RIB_SRC_STATIC, -EINVAL, 3, "no next hop",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 0, NULL}},
	    {"too many next hops", RIB_SRC_STATIC, -EINVAL, 3,
		"65 next hops > 64",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, RIB_NH_MAX + 1,
		    nh_many}},
	    {"blackhole with next hops", RIB_SRC_STATIC, -EINVAL, 3,
		"blackhole/reject route with next hops",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, RIB_RT_BLACKHOLE, -1, 0, 1,
		    &nh_ok}},
	    {"bad type", RIB_SRC_STATIC, -EINVAL, 3, "bad type 7",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 7, -1, 0, 1, &nh_ok}},
	    {"bad op", RIB_SRC_STATIC, -EINVAL, 3, "bad op 9",
		{PFX(198, 18, 7, 0, 24), 9, 0, -1, 0, 1, &nh_ok}},
	    {"distance 256", RIB_SRC_STATIC, -EINVAL, 3,
		"distance 256 out of 0..255",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, 256, 0, 1, &nh_ok}},
	    /* entry 1 (a recursive next hop) is already bad for connected */
	    {"connected without interface", RIB_SRC_CONNECTED, -EINVAL, 1,
		"connected route without interface",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_gw}},
	    {"replace of a missing route", RIB_SRC_STATIC, -ENOENT, 3,
		"replace of 198.18.99.0/24: no such route",
		{PFX(198, 18, 99, 0, 24), RIB_OP_REPLACE, 0, -1, 0, 1, &nh_ok}},
	    {"unknown source", 77, -ENOENT, -1, "unknown source 77",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_ok}},
	    {"source 0", 0, -ENOENT, -1, "unknown source 0",
		{PFX(198, 18, 7, 0, 24), RIB_OP_ADD, 0, -1, 0, 1, &nh_ok}},
	};
	struct rib *rib = rib_new(NULL);
	struct rec *r = calloc(1, sizeof(*r));
	struct rib_route_upd u[4];
	char *before, *after;

	(void)state;
	for (unsigned i = 0; i <= RIB_NH_MAX; i++)
		nh_many[i] = (struct rib_nexthop){lc_ip4_from_host(
						      0xc6120001u + i),
		    2};
	rib_fib_set_cb(rib, rec_cb, r);
	script_run(rib,
	    (const char *const[]){"if 2 up", "add connected 198.18.0.0/24 %2",
		"add static 198.18.1.0/24 198.18.0.1",
		"add static 198.18.2.0/24 198.18.0.2%2",
		"add static 198.18.3.0/24 blackhole", NULL});
	assert_int_equal(rib_fib_flush(rib), 4);
	assert_int_equal(rib_fib_ack(rib, 1), 0);
	before = snapshot(rib);

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct lc_err err;
		int rv;

		print_message("case: %s\n", bads[i].name);
		/* good entries first: a new route (recursive, so it would
		 * create a next hop), a replace, a delete */
		memset(u, 0, sizeof(u));
		u[0] = (struct rib_route_upd){PFX(198, 18, 5, 0, 24),
		    RIB_OP_ADD, 0, -1, 0, 1, nh_gw_if};
		u[1] = (struct rib_route_upd){PFX(198, 18, 2, 0, 24),
		    RIB_OP_REPLACE, 0, 5, 7, 1, &nh_gw};
		u[2] = (struct rib_route_upd){PFX(198, 18, 1, 0, 24),
		    RIB_OP_DELETE, 0, 0, 0, 0, NULL};
		u[3] = bads[i].bad;
		memset(&err, 0, sizeof(err));
		rv = rib_route_batch(rib, bads[i].src, u, 4, &err);
		assert_int_equal(rv, bads[i].code);
		assert_int_equal(err.code, bads[i].code);
		if (err.index != bads[i].index)
			fail_msg("index %ld: %s", err.index, err.msg);
		if (strstr(err.msg, bads[i].msg) == NULL)
			fail_msg("message '%s' lacks '%s'", err.msg,
			    bads[i].msg);
		after = snapshot(rib);
		assert_string_equal(after, before);
		free(after);
		rec_reset(r);
		assert_int_equal(rib_fib_flush(rib), 0);
	}

	/* oversized batch: refused before looking at it */
	{
		struct rib_route_upd *big = calloc(RIB_BATCH_MAX + 1,
		    sizeof(*big));
		struct lc_err err;

		assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, big,
				     RIB_BATCH_MAX + 1, &err),
		    -E2BIG);
		assert_non_null(
		    strstr(err.msg, "batch of 65537 routes > 65536"));
		free(big);
	}
	/* a NULL err is fine */
	assert_int_equal(rib_route_batch(rib, 99, u, 1, NULL), -ENOENT);
	after = snapshot(rib);
	assert_string_equal(after, before);
	free(after);

	/* the same good entries alone do apply */
	assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, u, 3, NULL), 0);
	after = snapshot(rib);
	assert_string_not_equal(after, before);
	free(after);
	rec_reset(r);
	assert_int_equal(rib_fib_flush(rib), 3);
	rec_expect(r,
	    (const char *const[]){"add 198.18.5.0/24 198.18.0.1%2",
		"delete 198.18.1.0/24", "replace 198.18.2.0/24 198.18.0.9%2",
		NULL});
	free(before);
	rib_free(rib);
	free(r);
}

static void
test_bad_other_calls(void **state)
{
	struct rib_conf c;
	struct rib *rib;
	struct rib_query q;
	struct lc_err err;

	(void)state;
	rib_conf_default(&c);
	c.ecmp_width = 0;
	assert_null(rib_new(&c));
	rib_conf_default(&c);
	c.fib_low_water = c.fib_high_water;
	assert_null(rib_new(&c));
	rib_conf_default(&c);
	c.recursion_max = RIB_RECURSION_MAX + 1;
	assert_null(rib_new(&c));
	assert_non_null(rib = rib_new(NULL));
	memset(&q, 0, sizeof(q));
	q.match = RIB_MATCH_EXACT;
	q.pfx = (struct lc_prefix4)PFX(198, 18, 1, 1, 24);
	assert_int_equal(rib_route_walk(rib, &q, snap_route, NULL, &err),
	    -EINVAL);
	assert_non_null(strstr(err.msg, "invalid prefix 198.18.1.1/24"));
	q.match = RIB_MATCH_ALL;
	q.src = 50;
	assert_int_equal(rib_route_walk(rib, &q, snap_route, NULL, &err),
	    -ENOENT);
	assert_int_equal(rib_if_set(rib, RIB_IFINDEX_MAX + 1, true), -EINVAL);
	rib_free(rib);
	rib_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_batches_change_nothing),
	    cmocka_unit_test(test_bad_other_calls),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
