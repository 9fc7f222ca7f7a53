/* tests/unit/rib/test_v6.c: IPv6 routes in the rib core: best path, ECMP, recursive and link-local next hops, withdraw, FIB download held until fwd takes IPv6, queries, and 1M IPv6 routes (load time, bytes per route). */
#include <time.h>
#include <unistd.h>

#include "rib_test.h"
#include "rib/rib_int.h"

/* Addresses: 2001:2::/48 only (RFC 5180), IPv4 from 198.18.0.0/15. */

#if defined(__SANITIZE_ADDRESS__)
#define SCALE6_N 200000
#else
#define SCALE6_N (getenv("RIB_SCALE_N") ? atoi(getenv("RIB_SCALE_N")) : 1000000)
#endif

static struct lc_prefix6
P6(const char *s) {
	struct lc_prefix6 p;

	if (lc_prefix6_parse(s, &p) != 0)
		fail_msg("bad IPv6 prefix in test: %s", s);
	return (p);
}

/* "2001:2::2%1" (ifindex 1), "2001:2::2" (recursive), "%3" (attached) */
static struct rib_nexthop
NH6(const char *s) {
	struct rib_nexthop h;
	const char *pct = strchr(s, '%');
	size_t n = pct ? (size_t)(pct - s) : strlen(s);
	char buf[64];

	memset(&h, 0, sizeof(h));
	h.family = AF_INET6;
	if (n > 0) {
		memcpy(buf, s, n);
		buf[n] = 0;
		if (lc_ip6_parse(buf, &h.addr6) != 0)
			fail_msg("bad IPv6 address in test: %s", buf);
	}
	if (pct)
		h.ifindex = (uint32_t)atoi(pct + 1);
	return (h);
}

static struct rib_route_upd
U6(const char *pfx, uint8_t op, int16_t distance, uint32_t metric,
    const struct rib_nexthop *nh, uint32_t n) {
	struct rib_route_upd u;

	memset(&u, 0, sizeof(u));
	u.family = AF_INET6;
	u.pfx6 = P6(pfx);
	u.op = op;
	u.distance = distance;
	u.metric = metric;
	u.n_nh = n;
	u.nh = nh;
	return (u);
}

static int
add6(struct rib *rib, unsigned src, const char *pfx, const char *hops,
    struct lc_err *err)
{
	struct rib_nexthop h[8];
	struct rib_route_upd u;
	char buf[256], *save = NULL, *t;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", hops);
	for (t = strtok_r(buf, " ", &save); t && n < 8;
	     t = strtok_r(NULL, " ", &save))
		h[n++] = NH6(t);
	u = U6(pfx, RIB_OP_ADD, -1, 0, h, n);
	{
		struct lc_err e2;
		int rv = rib_route_batch(rib, src, &u, 1, err ? err : &e2);

		if (rv != 0 && err == NULL)
			print_message("add6 %s: %s\n", pfx, e2.msg);
		return (rv);
	}
}

static void
del6(struct rib *rib, unsigned src, const char *pfx)
{
	struct rib_route_upd u = U6(pfx, RIB_OP_DELETE, -1, 0, NULL, 0);
	struct lc_err err;

	if (rib_route_batch(rib, src, &u, 1, &err) != 0)
		fail_msg("delete %s: %s", pfx, err.msg);
}

static void
hops6(const struct rib_nexthop *h, unsigned n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (unsigned i = 0; i < n && o < len; i++) {
		char a[LC_IP6_STRLEN];

		/* inet_ntop: RFC 5952 text (lc_ip6_str) */
		o += (size_t)snprintf(out + o, len - o, "%s%s%%%u",
		    i ? " " : "",
		    h[i].family == AF_INET6 ? lc_ip6_str(&h[i].addr6, a) :
					      lc_ip4_ntoa(h[i].addr),
		    h[i].ifindex);
	}
}

struct q6 {
	unsigned src; /* 0: the active one */
	int found;
	uint8_t flags;
	char res[512];
	char list[4096]; /* every route visited: "prefix src; " */
};

static int
q6_cb(void *arg, const struct rib_route_info *ri)
{
	struct q6 *q = arg;
	size_t o = strlen(q->list);

	snprintf(q->list + o, sizeof(q->list) - o, "%s %u; ",
	    ri->family == AF_INET6 ? lc_prefix6_ntoa(&ri->pfx6) :
				     lc_prefix4_ntoa(&ri->pfx),
	    ri->src);
	if (q->found || (q->src != 0 && ri->src != q->src) ||
	    (q->src == 0 && !(ri->flags & RIB_RI_ACTIVE)))
		return (0);
	q->found = 1;
	q->flags = ri->flags;
	hops6(ri->res, ri->n_res, q->res, sizeof(q->res));
	return (0);
}

/* the resolved hops of src's route at pfx ("absent", "unusable" or hops) */
static const char *
res6(struct rib *rib, unsigned src, const char *pfx, struct q6 *q)
{
	struct rib_query qq;

	memset(&qq, 0, sizeof(qq));
	memset(q, 0, sizeof(*q));
	qq.match = RIB_MATCH_EXACT;
	qq.family = AF_INET6;
	qq.pfx6 = P6(pfx);
	q->src = src;
	assert_true(rib_route_walk(rib, &qq, q6_cb, q, NULL) >= 0);
	if (!q->found)
		return ("absent");
	if (!(q->flags & RIB_RI_USABLE))
		return ("unusable");
	return (q->res);
}

static unsigned
proto(struct rib *rib, const char *name, int distance)
{
	struct rib_source_conf sc = {name, distance, 1000};
	unsigned id;

	assert_int_equal(rib_source_add(rib, &sc, &id, NULL), 0);
	return (id);
}

static void
test_v6_best_ecmp(void **state)
{
	struct rib *rib = rib_new(NULL);
	unsigned b1, b2;
	struct q6 q;

	(void)state;
	assert_non_null(rib);
	b1 = proto(rib, "bgp", 20);
	b2 = proto(rib, "bgp2", 20);
	assert_int_equal(rib_if_set(rib, 1, true), 0);
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2::/64", "%1",
			     NULL),
	    0);
	assert_string_equal(res6(rib, RIB_SRC_CONNECTED, "2001:2::/64", &q),
	    "::%1");
	/* static (distance 1) beats bgp (20) */
	assert_int_equal(add6(rib, b1, "2001:2:0:10::/60", "2001:2::3", NULL),
	    0);
	assert_string_equal(res6(rib, 0, "2001:2:0:10::/60", &q),
	    "2001:2::3%1");
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:10::/60",
			     "2001:2::2", NULL),
	    0);
	assert_string_equal(res6(rib, 0, "2001:2:0:10::/60", &q),
	    "2001:2::2%1");
	assert_true(q.list[0] != 0);
	/* ECMP: one route with two next hops */
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:20::/60",
			     "2001:2::5 2001:2::4", NULL),
	    0);
	assert_string_equal(res6(rib, 0, "2001:2:0:20::/60", &q),
	    "2001:2::4%1 2001:2::5%1");
	/* ECMP across two sources of the same distance and metric */
	assert_int_equal(add6(rib, b1, "2001:2:0:30::/60", "2001:2::6", NULL),
	    0);
	assert_int_equal(add6(rib, b2, "2001:2:0:30::/60", "2001:2::7", NULL),
	    0);
	{
		struct rib_fib_delta want;
		struct rib_query qq;

		(void)want;
		memset(&qq, 0, sizeof(qq));
		qq.match = RIB_MATCH_EXACT;
		qq.family = AF_INET6;
		qq.pfx6 = P6("2001:2:0:30::/60");
		memset(&q, 0, sizeof(q));
		q.src = 0;
		assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 2);
	}
	rib_free(rib);
}

static void
test_v6_recursive_linklocal(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct lc_err err;
	struct q6 q;

	(void)state;
	assert_non_null(rib);
	assert_int_equal(rib_if_set(rib, 1, true), 0);
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2::/64", "%1",
			     NULL),
	    0);
	/* two levels: /56 via 2001:2:0:1::9, inside /64 via 2001:2::2 */
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:100::/56",
			     "2001:2:0:1::9", NULL),
	    0);
	assert_string_equal(res6(rib, RIB_SRC_STATIC, "2001:2:0:100::/56", &q),
	    "unusable");
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:1::/64",
			     "2001:2::2", NULL),
	    0);
	assert_string_equal(res6(rib, 0, "2001:2:0:100::/56", &q),
	    "2001:2::2%1");
	/* a link-local next hop: direct on its interface, never looked up */
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:200::/56",
			     "fe80::1%2", NULL),
	    0);
	assert_string_equal(res6(rib, RIB_SRC_STATIC, "2001:2:0:200::/56", &q),
	    "unusable");
	assert_int_equal(rib_if_set(rib, 2, true), 0);
	rib_process(rib);
	assert_string_equal(res6(rib, 0, "2001:2:0:200::/56", &q), "fe80::1%2");
	/* and one recursing through it */
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:300::/56",
			     "2001:2:0:200::1", NULL),
	    0);
	assert_string_equal(res6(rib, 0, "2001:2:0:300::/56", &q), "fe80::1%2");
	assert_int_equal(rib_if_set(rib, 2, false), 0);
	rib_process(rib);
	assert_string_equal(res6(rib, RIB_SRC_STATIC, "2001:2:0:300::/56", &q),
	    "unusable");

	/* refused, clearly, and nothing changes */
	memset(&err, 0, sizeof(err));
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:400::/56",
			     "fe80::1", &err),
	    -EINVAL);
	assert_non_null(
	    strstr(err.msg, "link-local next hop without interface"));
	{
		struct rib_nexthop h = NH6("2001:2::2");
		struct rib_route_upd u = U6("2001:2:0:400::/56", RIB_OP_ADD, -1,
		    0, &h, 1);

		u.pfx6.addr.b[15] = 1;
		assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, &u, 1,
				     &err),
		    -EINVAL);
		assert_non_null(strstr(err.msg, "host bits"));
	}
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:400::/56",
			     "ff02::1%1", &err),
	    -EINVAL);
	assert_non_null(strstr(err.msg, "multicast"));
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:400::/56", "::1",
			     &err),
	    -EINVAL);
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:400::/56",
			     "::", &err),
	    -EINVAL);
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2:0:400::/56",
			     "2001:2::2", &err),
	    -EINVAL);
	{
		struct rib_nexthop v4 = NH("198.18.0.1");
		struct rib_route_upd u = U6("2001:2:0:400::/56", RIB_OP_ADD, -1,
		    0, &v4, 1);
		struct rib_nexthop v6 = NH6("2001:2::2");
		struct rib_route_upd u4;

		assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, &u, 1,
				     &err),
		    -EINVAL);
		assert_non_null(strstr(err.msg, "IPv4 next hop"));
		u.pfx6.len = 129;
		u.nh = &v6;
		assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, &u, 1,
				     &err),
		    -EINVAL);
		assert_non_null(strstr(err.msg, "> 128"));
		memset(&u4, 0, sizeof(u4));
		u4.pfx = P("198.18.4.0/24");
		u4.op = RIB_OP_ADD;
		u4.distance = -1;
		u4.n_nh = 1;
		u4.nh = &v6;
		assert_int_equal(rib_route_batch(rib, RIB_SRC_STATIC, &u4, 1,
				     &err),
		    -EINVAL);
		assert_non_null(strstr(err.msg, "IPv6 next hop"));
	}
	assert_string_equal(res6(rib, 0, "2001:2:0:400::/56", &q), "absent");
	rib_free(rib);
}

/* FIB deltas as text */
struct frec {
	unsigned n, batches;
	char line[64][160];
};

static int
frec_cb(void *arg, uint64_t seq, const struct rib_fib_delta *d, unsigned n)
{
	struct frec *r = arg;

	(void)seq;
	r->batches++;
	for (unsigned i = 0; i < n && r->n < 64; i++) {
		char h[512];

		hops6(d[i].nh, d[i].n_nh, h, sizeof(h));
		snprintf(r->line[r->n++], sizeof(r->line[0]), "%u %s %s",
		    d[i].op,
		    d[i].family == AF_INET6 ? lc_prefix6_ntoa(&d[i].pfx6) :
					      lc_prefix4_ntoa(&d[i].pfx),
		    h);
	}
	return (0);
}

static void
test_v6_withdraw_fib(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_fib_stats fs;
	struct frec r;
	unsigned b1;
	struct q6 q;

	(void)state;
	assert_non_null(rib);
	memset(&r, 0, sizeof(r));
	rib_fib_set_cb(rib, frec_cb, &r);
	b1 = proto(rib, "bgp", 20);
	assert_int_equal(rib_if_set(rib, 1, true), 0);
	script_run(rib,
	    (const char *const[]){"add connected 198.18.0.0/24 %1", NULL});
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2::/64", "%1",
			     NULL),
	    0);
	assert_int_equal(add6(rib, b1, "2001:2:0:10::/60", "2001:2::3", NULL),
	    0);
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:10::/60",
			     "2001:2::2", NULL),
	    0);
	/* fwd takes no IPv6 (the default): only the IPv4 route goes out */
	assert_int_equal(rib_fib_flush(rib), 1);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.line[0], "0 198.18.0.0/24 0.0.0.0%1");
	rib_fib_stats(rib, &fs);
	assert_int_equal(fs.want, 3);
	assert_int_equal(fs.want6, 2);
	assert_int_equal(fs.v6_held, 2);
	assert_int_equal(rib_fib_ack(rib, fs.seq_sent), 0);
	/* fwd says ipv6_ok: the IPv6 prefixes follow */
	rib_fib_set_v6(rib, true);
	assert_int_equal(rib_fib_flush(rib), 2);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.line[1], "0 2001:2::/64 ::%1");
	assert_string_equal(r.line[2], "0 2001:2:0:10::/60 2001:2::2%1");
	rib_fib_stats(rib, &fs);
	assert_int_equal(fs.v6_held, 0);
	assert_int_equal(rib_fib_ack(rib, fs.seq_sent), 0);
	rib_fib_stats(rib, &fs);
	assert_int_equal(fs.acked, 3);

	/* withdraw the static: bgp's takes over */
	del6(rib, RIB_SRC_STATIC, "2001:2:0:10::/60");
	assert_string_equal(res6(rib, 0, "2001:2:0:10::/60", &q),
	    "2001:2::3%1");
	assert_int_equal(rib_fib_flush(rib), 1);
	assert_string_equal(r.line[3], "1 2001:2:0:10::/60 2001:2::3%1");
	/* withdraw the connected /64: the bgp route no longer resolves */
	del6(rib, RIB_SRC_CONNECTED, "2001:2::/64");
	assert_string_equal(res6(rib, b1, "2001:2:0:10::/60", &q), "unusable");
	assert_int_equal(rib_fib_flush(rib), 2);
	assert_string_equal(r.line[4], "2 2001:2::/64 ");
	assert_string_equal(r.line[5], "2 2001:2:0:10::/60 ");
	del6(rib, b1, "2001:2:0:10::/60");
	assert_string_equal(res6(rib, 0, "2001:2:0:10::/60", &q), "absent");
	rib_fib_stats(rib, &fs);
	assert_int_equal(fs.want, 1);
	assert_int_equal(fs.want6, 0);
	assert_int_equal(rib_fib_ack(rib, fs.seq_sent), 0);
	{
		struct rib_mem_stats m;

		rib_mem_stats(rib, &m);
		assert_int_equal(m.prefixes, 1); /* the IPv6 dests are freed */
		assert_int_equal(rib->a6.inuse, 0);
	}
	rib_free(rib);
}

static void
test_v6_query(void **state)
{
	struct rib *rib = rib_new(NULL);
	struct rib_query qq;
	struct q6 q;

	(void)state;
	assert_non_null(rib);
	assert_int_equal(rib_if_set(rib, 1, true), 0);
	script_run(rib,
	    (const char *const[]){"add connected 198.18.0.0/24 %1",
		"add static 198.18.8.0/24 198.18.0.2", NULL});
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2::/64", "%1",
			     NULL),
	    0);
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:10::/60",
			     "2001:2::2", NULL),
	    0);
	assert_int_equal(add6(rib, RIB_SRC_STATIC, "2001:2:0:1::/64",
			     "2001:2::2", NULL),
	    0);
	memset(&qq, 0, sizeof(qq));
	qq.match = RIB_MATCH_ALL;
	qq.sorted = true;
	memset(&q, 0, sizeof(q));
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 5);
	assert_string_equal(q.list,
	    "198.18.0.0/24 1; 198.18.8.0/24 2; 2001:2::/64 1; "
	    "2001:2:0:1::/64 2; 2001:2:0:10::/60 2; ");
	qq.family = AF_INET;
	memset(&q, 0, sizeof(q));
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 2);
	qq.family = AF_INET6;
	memset(&q, 0, sizeof(q));
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 3);
	/* longest match of an address */
	qq.match = RIB_MATCH_LONGEST;
	assert_int_equal(lc_ip6_parse("2001:2:0:1::77", &qq.addr6), 0);
	memset(&q, 0, sizeof(q));
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 1);
	assert_string_equal(q.list, "2001:2:0:1::/64 2; ");
	/* longer: under 2001:2::/60 (2001:2:0:10::/60 is not) */
	qq.match = RIB_MATCH_LONGER;
	qq.pfx6 = P6("2001:2::/60");
	memset(&q, 0, sizeof(q));
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), 2);
	assert_string_equal(q.list, "2001:2::/64 1; 2001:2:0:1::/64 2; ");
	qq.pfx6 = P6("2001:2::/48");
	qq.pfx6.addr.b[15] = 1;
	assert_int_equal(rib_route_walk(rib, &qq, q6_cb, &q, NULL), -EINVAL);
	rib_free(rib);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* the machine is shared */
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

/*
 * 1M distinct IPv6 prefixes, all inside 2001:2::/48 (the only range tests
 * may use), so lengths /64 (10%), /80 (20%), /96 (20%), /112 (20%), /128
 * (30%): the rib's hash does not care about the length mix (fwd's FIB does).
 * 256 recursive next hops inside a connected /64, one source: the shape of
 * test_scale's IPv4 figure (68.5 B/route accounted).
 */
static void
test_v6_scale_1m(void **state)
{
	static const uint8_t lens[10] = {64, 80, 80, 96, 96, 112, 112, 128, 128,
	    128};
	size_t n = (size_t)SCALE6_N, chunk = RIB_BATCH_MAX;
	struct rib_route_upd *u = calloc(chunk, sizeof(*u));
	struct rib_nexthop gw[256];
	struct rib_mem_stats m0, m1;
	struct rib_fib_stats fs;
	struct rib *rib = rib_new(NULL);
	uint64_t seed = 22;
	double t0, t_add, t_del, bpr;
	char first[LC_PREFIX6_STRLEN], first_res[64];
	unsigned sid;
	struct q6 q;

	(void)state;
	assert_non_null(u);
	assert_non_null(rib);
	sid = proto(rib, "bgp", 20);
	assert_int_equal(rib_if_set(rib, 1, true), 0);
	assert_int_equal(add6(rib, RIB_SRC_CONNECTED, "2001:2::/64", "%1",
			     NULL),
	    0);
	for (unsigned i = 0; i < 256; i++) {
		gw[i] = NH6("2001:2::");
		gw[i].addr6.b[14] = 1;
		gw[i].addr6.b[15] = (uint8_t)i;
	}
	rib_mem_stats(rib, &m0);
	t0 = now_s();
	for (size_t done = 0; done < n;) {
		size_t k = n - done < chunk ? n - done : chunk;
		struct lc_err err;

		for (size_t j = 0; j < k; j++) {
			uint64_t x = rnd(&seed);
			uint8_t len = lens[x % 10];
			struct lc_ip6 a;

			/* distinct: /64s are 2001:2:0:ix::/64 (ix < 0xff00),
			 * the others 2001:2:0:ffXX:XXXX:... with the index
			 * in bytes 7..9 (kept at /80 and longer), random
			 * bits below */
			uint32_t ix = (uint32_t)(done + j) + 1;
			uint64_t r = rnd(&seed);

			memset(&a, 0, sizeof(a));
			a.b[0] = 0x20;
			a.b[1] = 0x01;
			a.b[3] = 0x02;
			if (len == 64 && ix >= 0xff00)
				len = 80;
			if (len == 64) {
				a.b[6] = (uint8_t)(ix >> 8);
				a.b[7] = (uint8_t)ix;
			} else {
				a.b[6] = 0xff;
				a.b[7] = (uint8_t)(ix >> 16);
				a.b[8] = (uint8_t)(ix >> 8);
				a.b[9] = (uint8_t)ix;
				for (unsigned b = 10; b < 16; b++)
					a.b[b] = (uint8_t)(r >> (8 * (b - 10)));
				a = rib_ip6_mask(&a, len, false);
			}
			memset(&u[j], 0, sizeof(u[j]));
			u[j].family = AF_INET6;
			u[j].pfx6.addr = a;
			u[j].pfx6.len = len;
			u[j].op = RIB_OP_ADD;
			u[j].distance = -1;
			u[j].n_nh = 1;
			u[j].nh = &gw[x >> 56];
		}
		if (rib_route_batch(rib, sid, u, k, &err) != 0)
			fail_msg("batch at %zu: %s", done, err.msg);
		if (done == 0) {
			lc_prefix6_str(&u[0].pfx6, first);
			hops6(u[0].nh, 1, first_res, sizeof(first_res));
			/* resolved on the connected interface */
			first_res[strlen(first_res) - 1] = '1';
		}
		done += k;
	}
	t_add = now_s() - t0;
	rib_mem_stats(rib, &m1);
	rib_fib_stats(rib, &fs);
	/* duplicates would be replaces: every prefix distinct */
	assert_int_equal(m1.routes, n + 1);
	assert_int_equal(m1.prefixes, n + 1);
	assert_int_equal(fs.want6, n + 1);
	assert_int_equal(fs.v6_held, n + 1);
	/* the first route added resolves through the connected /64 */
	assert_string_equal(res6(rib, sid, first, &q), first_res);
	bpr = (double)(m1.bytes - m0.bytes) / (double)n;
	printf("  IPv6 add: %.3f s = %.2f M routes/s (%zu routes)\n", t_add,
	    n / t_add / 1e6, n);
	printf("  IPv6 memory: accounted %.1f bytes/route (%zu bytes)\n", bpr,
	    m1.bytes - m0.bytes);
	t0 = now_s();
	for (size_t done = 0; done < n;) {
		/* delete in the order added: regenerate nothing, walk */
		size_t k = 0;
		struct lc_err err;

		for (uint32_t di = rib_ipool_next(&rib->dests, 0);
		     di != RIB_NIL && k < chunk;
		     di = rib_ipool_next(&rib->dests, di)) {
			const struct rib_dest *d = rib_dest(rib, di);

			if (d->routes == RIB_NIL ||
			    rib_route(rib, d->routes)->src != sid)
				continue;
			memset(&u[k], 0, sizeof(u[k]));
			u[k].family = AF_INET6;
			u[k].pfx6 = rib_dest_pfx6(rib, d);
			u[k].op = RIB_OP_DELETE;
			k++;
		}
		assert_true(k > 0);
		if (rib_route_batch(rib, sid, u, k, &err) != 0)
			fail_msg("delete: %s", err.msg);
		done += k;
	}
	t_del = now_s() - t0;
	rib_mem_stats(rib, &m1);
	assert_int_equal(m1.routes, 1);
	/* the dests wait in the FIB queue (no callback): one address each */
	assert_int_equal(rib->a6.inuse, m1.prefixes);
	printf("  IPv6 delete: %.3f s\n", t_del);
	printf("RIB6SCALE {\"routes\":%zu,\"add_s\":%.3f,\"routes_per_s\":%.0f,"
	       "\"bytes_per_route\":%.1f,\"sanitizer\":%d}\n",
	    n, t_add, n / t_add, bpr,
#if defined(__SANITIZE_ADDRESS__)
	    1
#else
	    0
#endif
	);
#if !defined(__SANITIZE_ADDRESS__)
	/* IPv4's 68.5 + the 16-byte address of each prefix, with room */
	assert_true(bpr <= 100.0);
#endif
	free(u);
	rib_free(rib);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v6_best_ecmp),
	    cmocka_unit_test(test_v6_recursive_linklocal),
	    cmocka_unit_test(test_v6_withdraw_fib),
	    cmocka_unit_test(test_v6_query),
	    cmocka_unit_test(test_v6_scale_1m),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
