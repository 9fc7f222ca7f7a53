/* tests/unit/bgp/test_rib6.c: tern-bgp's IPv6 unicast routes (bgp_rib6.c): IPv6 sets parsed from MP_REACH_NLRI with a global and a global + link-local next hop (RFC 2545) and their global next hop, best path by the IPv4 table's rules (local-pref, AS path, peer address), withdraw to the next best and to nothing, rib told only when the next hop changes, a policy-refused path kept and re-imported, graceful restart's stale paths, a peer's flush, a rib restart, the walk and the counts; and the End-of-RIB of AFI 2 both ways. */
#include "bgp_test.h"
#include "bgp/bgp_rib6.h"

#define A(a, b, c, d) htonl((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct bgp_intern *t;
static struct bgp_rib *r4;
static struct bgp_rib6 *r;

/* 2001:2:0:4NN::X as an address */
static struct lc_ip6
ip6(unsigned nn, unsigned x)
{
	struct lc_ip6 a = {{0x20, 0x01, 0, 2, 0, 0, 0x04, (uint8_t)nn}};

	a.b[14] = (uint8_t)(x >> 8);
	a.b[15] = (uint8_t)x;
	return (a);
}

static struct lc_prefix6
pfx(unsigned nn)
{
	struct lc_prefix6 p = {ip6(nn, 0), 64};

	return (p);
}

/* An IPv6 set parsed from an UPDATE of the wire: MP_REACH_NLRI with next
 * hop nh (and link-local ll when ll_x), ORIGIN IGP, AS_PATH of n ASes from
 * 65002, LOCAL_PREF lp (0: none) */
static struct bgp_aset *
mk6(struct lc_ip6 nh, unsigned ll_x, uint32_t lp, unsigned n)
{
	uint8_t msg[512], mp[64], path[2 + 4 * 8], canon[BGP_ATTR_CANON_MAX];
	size_t o = 0, a0, ml = 0;
	uint8_t origin = 0;
	int k;

	mp[ml++] = 0;
	mp[ml++] = 2; /* AFI 2 */
	mp[ml++] = 1; /* SAFI 1 */
	mp[ml++] = ll_x ? 32 : 16;
	memcpy(mp + ml, nh.b, 16);
	ml += 16;
	if (ll_x) {
		uint8_t ll[16] = {0xfe, 0x80};

		ll[15] = (uint8_t)ll_x;
		memcpy(mp + ml, ll, 16);
		ml += 16;
	}
	mp[ml++] = 0;  /* reserved */
	mp[ml++] = 64; /* 2001:2:0:4ff::/64 */
	memcpy(mp + ml, (uint8_t[]){0x20, 0x01, 0, 2, 0, 0, 0x04, 0xff}, 8);
	ml += 8;
	path[0] = BGP_AS_SEQUENCE;
	path[1] = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		bgp_put32(path + 2 + 4 * i, 65002 + i);
	memset(msg, 0xff, 16);
	msg[18] = BGP_UPDATE;
	o = 19;
	bgp_put16(msg + o, 0); /* no withdrawn routes */
	o += 4;
	a0 = o;
	o = attr(msg, o, OPT, BGP_ATTR_MP_REACH, mp, ml);
	o = attr(msg, o, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(msg, o, WK, BGP_ATTR_AS_PATH, path, 2 + 4 * n);
	if (lp) {
		uint8_t v[4];

		bgp_put32(v, lp);
		o = attr(msg, o, WK, BGP_ATTR_LOCAL_PREF, v, 4);
	}
	bgp_put16(msg + a0 - 2, (uint16_t)(o - a0));
	bgp_put16(msg + 16, (uint16_t)o);
	{
		struct bgp_update u;
		struct bgp_err err;

		assert_int_equal(bgp_update_parse(msg, o, &C4, NULL, &u, &err),
		    0);
		assert_int_equal(u.a.outcome, BGP_OUT_OK);
		assert_int_equal(u.n_reach, 1);
		assert_int_equal(u.reach[0].af, BGP_AF_IPV6);
		assert_int_equal(u.reach[0].nh_len, ll_x ? 32 : 16);
		u.a.mp_reach = u.reach[0];
		k = bgp_attr_canon(&u.a, BGP_AF_IPV6, canon, sizeof(canon));
	}
	assert_true(k > 0);
	return (bgp_intern_get(t, canon, (size_t)k));
}

static struct {
	unsigned calls, withdrawn;
	struct lc_prefix6 pfx;
	struct lc_ip6 nh;
	int fail;
} em;

static int
emit(void *arg, const struct bgp_dest6 *d, const struct lc_ip6 *nh)
{
	(void)arg;
	if (em.fail)
		return (-1);
	em.calls++;
	em.pfx = d->pfx;
	if (nh == NULL)
		em.withdrawn++;
	else
		em.nh = *nh;
	return (0);
}

static unsigned notified;

static void
note(void *arg, const struct bgp_dest6 *d)
{
	(void)arg;
	(void)d;
	notified++;
}

static size_t
drain(void)
{
	memset(&em, 0, sizeof(em));
	return (bgp_rib6_drain(r, SIZE_MAX, emit, NULL));
}

/* peers as test_rib.c's: 1 eBGP 65002 at .2, 2 eBGP 65003 at .3, 3 iBGP */
static int
setup(void **state)
{
	struct bgp_rib_peer p;

	(void)state;
	t = bgp_intern_new();
	r4 = bgp_rib_new(t);
	r = bgp_rib6_new(r4, t);
	bgp_rib_set_local_as(r4, 65001);
	p = (struct bgp_rib_peer){A(198, 19, 64, 2), A(198, 19, 64, 2), 65002,
	    true};
	bgp_rib_peer_set(r4, 1, &p);
	p = (struct bgp_rib_peer){A(198, 19, 64, 3), A(198, 19, 64, 3), 65003,
	    true};
	bgp_rib_peer_set(r4, 2, &p);
	p = (struct bgp_rib_peer){A(198, 19, 64, 4), A(198, 19, 64, 1), 65001,
	    false};
	bgp_rib_peer_set(r4, 3, &p);
	bgp_rib6_set_notify(r, note, NULL);
	notified = 0;
	return (0);
}

static int
teardown(void **state)
{
	struct bgp_intern_stats st;

	(void)state;
	bgp_rib6_free(r);
	bgp_rib_free(r4);
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 0); /* every reference dropped */
	bgp_intern_free(t);
	return (0);
}

static void
test_nexthops(void **state)
{
	struct bgp_aset *g = mk6(ip6(1, 2), 0, 0, 1),
			*gl = mk6(ip6(1, 2), 7, 0, 1);
	struct lc_ip6 nh, want = ip6(1, 2);
	struct lc_prefix6 p = pfx(0xa0);

	(void)state;
	assert_ptr_not_equal(g, gl); /* the link-local one is kept apart */
	assert_int_equal(bgp_aset_nh6(g, &nh), 0);
	assert_memory_equal(nh.b, want.b, 16);
	assert_int_equal(bgp_aset_nh6(gl, &nh), 0);
	assert_memory_equal(nh.b, want.b, 16); /* the global one is used */
	/* a set without MP_REACH_NLRI has none */
	{
		uint8_t canon[64];
		struct bgp_attrs a = {.present = BGP_ABIT(BGP_ATTR_ORIGIN) |
			BGP_ABIT(BGP_ATTR_AS_PATH) |
			BGP_ABIT(BGP_ATTR_NEXT_HOP)};
		struct bgp_aset *v4;
		int k;

		a.nexthop.s_addr = A(198, 19, 64, 2);
		k = bgp_attr_canon(&a, BGP_AF_IPV4, canon, sizeof(canon));
		v4 = bgp_intern_get(t, canon, (size_t)k);
		assert_int_equal(bgp_aset_nh6(v4, &nh), -EINVAL);
		bgp_aset_unref(t, v4);
	}
	/* installed through the global next hop */
	assert_int_equal(bgp_rib6_update(r, 1, &p, gl, gl, 0), 1);
	assert_int_equal(drain(), 1);
	assert_int_equal(em.calls, 1);
	assert_memory_equal(em.nh.b, want.b, 16);
	assert_memory_equal(&em.pfx, &p, sizeof(p));
	assert_int_equal(notified, 1);
	/* the same next hop with other attributes: rib is not told again */
	assert_int_equal(bgp_rib6_update(r, 1, &p, g, g, 0), 0);
	assert_int_equal(drain(), 1);
	assert_int_equal(em.calls, 0);
	assert_int_equal(notified, 2);
	assert_int_equal(bgp_rib6_update(r, 1, &p, g, g, 0), 0);
	assert_int_equal(bgp_rib6_pending(r), 0); /* nothing changed */
	drain();
	assert_int_equal(bgp_rib6_withdraw(r, 1, &p), 1);
	assert_int_equal(bgp_rib6_withdraw(r, 1, &p), 0);
	drain();
	assert_int_equal(em.withdrawn, 1);
	assert_null(bgp_rib6_find(r, &p));
	bgp_aset_unref(t, g);
	bgp_aset_unref(t, gl);
}

/* Peers a and b announce sa and sb for one prefix: the winner's peer. */
static unsigned
duel(unsigned a, struct bgp_aset *sa, unsigned b, struct bgp_aset *sb,
    uint8_t *why)
{
	struct lc_prefix6 p = pfx(0xa1);
	const struct bgp_dest6 *d;
	const struct bgp_path6 *best;
	unsigned w;

	assert_int_equal(bgp_rib6_update(r, a, &p, sa, sa, 0), 1);
	assert_int_equal(bgp_rib6_update(r, b, &p, sb, sb, 0), 1);
	drain();
	assert_int_equal(em.calls, 1);
	d = bgp_rib6_find(r, &p);
	assert_non_null(d);
	assert_int_equal(d->npaths, 2);
	best = bgp_rib6_best(d);
	assert_non_null(best);
	w = best->peer;
	for (unsigned k = 0; k < 2; k++)
		if (d->paths[k].peer != w)
			*why = d->paths[k].why;
	assert_int_equal(bgp_rib6_peer_flush(r, a, false), 1);
	assert_int_equal(bgp_rib6_peer_flush(r, b, false), 1);
	drain();
	assert_int_equal(em.withdrawn, 1);
	return (w);
}

static void
test_rules(void **state)
{
	struct bgp_aset *s1 = mk6(ip6(1, 2), 0, 0, 1),
			*s3 = mk6(ip6(2, 3), 0, 0, 3),
			*lp = mk6(ip6(3, 4), 0, 200, 3);
	uint8_t why = 0;

	(void)state;
	/* the shorter AS path */
	assert_int_equal(duel(2, s3, 1, s1, &why), 1);
	assert_int_equal(why, BGP_WHY_ASPATH);
	/* a higher LOCAL_PREF beats it (iBGP path) */
	assert_int_equal(duel(1, s1, 3, lp, &why), 3);
	assert_int_equal(why, BGP_WHY_LOCAL_PREF);
	/* all equal: eBGP over iBGP, then the lower router id */
	assert_int_equal(duel(3, s1, 1, s1, &why), 1);
	assert_int_equal(why, BGP_WHY_EBGP);
	assert_int_equal(duel(2, s1, 1, s1, &why), 1);
	assert_int_equal(why, BGP_WHY_ROUTER_ID);
	bgp_aset_unref(t, s1);
	bgp_aset_unref(t, s3);
	bgp_aset_unref(t, lp);
}

static void
test_withdraw_next_best(void **state)
{
	struct bgp_aset *s1 = mk6(ip6(1, 2), 0, 0, 1),
			*s2 = mk6(ip6(2, 3), 0, 0, 2);
	struct lc_prefix6 p = pfx(0xa2);
	struct lc_ip6 n2 = ip6(2, 3);

	(void)state;
	bgp_rib6_update(r, 1, &p, s1, s1, 0);
	bgp_rib6_update(r, 2, &p, s2, s2, 0);
	drain();
	assert_int_equal(bgp_rib6_withdraw(r, 1, &p), 1);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.withdrawn, 0);
	assert_memory_equal(em.nh.b, n2.b, 16); /* the other took over */
	/* a failing emit keeps the prefix on the list */
	assert_int_equal(bgp_rib6_withdraw(r, 2, &p), 1);
	em.fail = 1;
	assert_int_equal(bgp_rib6_drain(r, SIZE_MAX, emit, NULL), 0);
	assert_int_equal(bgp_rib6_pending(r), 1);
	drain();
	assert_int_equal(em.withdrawn, 1);
	assert_null(bgp_rib6_find(r, &p));
	bgp_aset_unref(t, s1);
	bgp_aset_unref(t, s2);
}

static struct bgp_aset *accept_with;

static struct bgp_aset *
reimp(void *arg, const struct lc_prefix6 *p, struct bgp_aset *in, uint8_t *why)
{
	(void)arg;
	(void)p;
	(void)in;
	*why = BGP_WHY_POLICY;
	return (accept_with ? bgp_aset_ref(accept_with) : NULL);
}

static void
test_policy_gr_counts(void **state)
{
	struct bgp_aset *s1 = mk6(ip6(1, 2), 0, 0, 1);
	struct lc_prefix6 p[3] = {pfx(0xb0), pfx(0xb1), pfx(0xb2)};
	struct bgp_rib6_stats st;
	size_t all, imp;
	uint64_t cur = 0;
	unsigned seen = 0;

	(void)state;
	/* refused by policy: kept, not used */
	assert_int_equal(bgp_rib6_update(r, 1, &p[0], s1, NULL, BGP_WHY_POLICY),
	    1);
	bgp_rib6_update(r, 1, &p[1], s1, s1, 0);
	bgp_rib6_update(r, 1, &p[2], s1, s1, 0);
	drain();
	assert_int_equal(em.calls, 2);
	bgp_rib6_peer_counts(r, 1, &all, &imp);
	assert_int_equal(all, 3);
	assert_int_equal(imp, 2);
	assert_null(bgp_rib6_best(bgp_rib6_find(r, &p[0])));
	assert_int_equal(bgp_rib6_find(r, &p[0])->paths[0].why, BGP_WHY_POLICY);
	/* a new policy takes all */
	accept_with = s1;
	assert_int_equal(bgp_rib6_reimport(r, 1, reimp, NULL), 1);
	drain();
	assert_int_equal(em.calls, 1);
	bgp_rib6_peer_counts(r, 1, &all, &imp);
	assert_int_equal(imp, 3);
	/* and one that refuses all */
	accept_with = NULL;
	assert_int_equal(bgp_rib6_reimport(r, 1, reimp, NULL), 3);
	drain();
	assert_int_equal(em.withdrawn, 3);
	accept_with = s1;
	assert_int_equal(bgp_rib6_reimport(r, 1, reimp, NULL), 3);
	drain();
	/* the walk sees each prefix once */
	while (bgp_rib6_next(r, &cur) != NULL)
		seen++;
	assert_int_equal(seen, 3);
	/* graceful restart: all stale, one announced again, the rest swept */
	assert_int_equal(bgp_rib6_peer_stale(r, 1), 3);
	assert_int_equal(bgp_rib6_peer_stale_count(r, 1), 3);
	bgp_rib6_update(r, 1, &p[1], s1, s1, 0);
	assert_int_equal(bgp_rib6_peer_stale_count(r, 1), 2);
	assert_int_equal(bgp_rib6_peer_flush(r, 1, true), 2);
	drain();
	assert_int_equal(em.withdrawn, 2);
	bgp_rib6_stats(r, &st);
	assert_int_equal(st.dests, 1);
	assert_int_equal(st.paths, 1);
	assert_int_equal(st.best, 1);
	/* rib restarted: what it had is sent again */
	bgp_rib6_resend_all(r);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(bgp_rib6_peer_flush(r, 1, false), 1);
	drain();
	bgp_rib6_stats(r, &st);
	assert_int_equal(st.dests + st.paths + st.best, 0);
	bgp_aset_unref(t, s1);
}

/* Many prefixes: the hash grows, every prefix stays found. */
static void
test_many(void **state)
{
	struct bgp_aset *s1 = mk6(ip6(1, 2), 0, 0, 1);
	enum { N = 5000 };

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		struct lc_prefix6 p = {ip6(i >> 8, 0), 64};

		p.addr.b[5] = (uint8_t)i;
		assert_int_equal(bgp_rib6_update(r, 1, &p, s1, s1, 0), 1);
	}
	assert_int_equal(drain(), N);
	assert_int_equal(em.calls, N);
	for (unsigned i = 0; i < N; i++) {
		struct lc_prefix6 p = {ip6(i >> 8, 0), 64};

		p.addr.b[5] = (uint8_t)i;
		assert_non_null(bgp_rib6_find(r, &p));
	}
	assert_int_equal(bgp_rib6_peer_flush(r, 1, false), N);
	assert_int_equal(drain(), N);
	assert_int_equal(em.withdrawn, N);
	bgp_aset_unref(t, s1);
}

/* End-of-RIB for IPv6 unicast: an UPDATE with only an empty
 * MP_UNREACH_NLRI of AFI 2 (RFC 4724 2), both ways; not for a session
 * without IPv6. */
static void
test_eor6(void **state)
{
	uint8_t m[64];
	struct bgp_update u;
	struct bgp_err err;
	struct bgp_codec v4only = C4;
	int n = bgp_eor_encode(m, sizeof(m), BGP_AF_IPV6);

	(void)state;
	assert_int_equal(n, 19 + 4 + 3 + 3);
	assert_int_equal(m[23], OPT);
	assert_int_equal(m[24], BGP_ATTR_MP_UNREACH);
	assert_int_equal(bgp_update_parse(m, (size_t)n, &C4, NULL, &u, &err),
	    0);
	assert_int_equal(u.eor, BGP_AF_IPV6);
	v4only.afs = BGP_AF_BIT(BGP_AF_IPV4);
	assert_int_equal(bgp_update_parse(m, (size_t)n, &v4only, NULL, &u,
			     &err),
	    0);
	assert_int_not_equal(u.eor, BGP_AF_IPV6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_nexthops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdraw_next_best, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_policy_gr_counts, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	    cmocka_unit_test(test_eor6),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
