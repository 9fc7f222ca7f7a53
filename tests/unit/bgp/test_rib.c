/* tests/unit/bgp/test_rib.c: tern-bgp's routes (bgp_rib.c): each best path rule of RFC 4271 9.1.2.2 deciding alone, multipath, withdraw to the next best and to nothing, a policy-refused path kept and re-imported, graceful restart's stale paths, a peer going down, the changed list coalescing changes, resend after a rib restart, and 1M prefixes with the bytes they take. */
#include <time.h>

#include "bgp_test.h"
#include "bgp/bgp_rib.h"

#define A(a, b, c, d) htonl((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct bgp_intern *t;
static struct bgp_rib *r;

/* A set: local-pref (0: absent), origin, MED (~0u: absent), next hop, the
 * AS path as a sequence of n ASes. */
static struct bgp_aset *
mk(uint32_t lp, uint8_t origin, uint32_t med, uint32_t nh, unsigned n, ...)
{
	uint8_t path[2 + 4 * 16], canon[BGP_ATTR_CANON_MAX];
	struct bgp_attrs a;
	struct bgp_aset *s;
	va_list ap;
	int k;

	memset(&a, 0, sizeof(a));
	a.present = BGP_ABIT(BGP_ATTR_ORIGIN) | BGP_ABIT(BGP_ATTR_AS_PATH) |
	    BGP_ABIT(BGP_ATTR_NEXT_HOP);
	a.origin = origin;
	path[0] = BGP_AS_SEQUENCE;
	path[1] = (uint8_t)n;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		bgp_put32(path + 2 + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	a.aspath = path;
	a.aspath_len = (uint16_t)(n ? 2 + 4 * n : 0);
	a.nexthop.s_addr = nh;
	if (lp) {
		a.present |= BGP_ABIT(BGP_ATTR_LOCAL_PREF);
		a.local_pref = lp;
	}
	if (med != ~0u) {
		a.present |= BGP_ABIT(BGP_ATTR_MED);
		a.med = med;
	}
	k = bgp_attr_canon(&a, BGP_AF_IPV4, canon, sizeof(canon));
	assert_true(k > 0);
	s = bgp_intern_get(t, canon, (size_t)k);
	assert_non_null(s);
	return (s);
}

/* emit recorder */
static struct {
	unsigned calls;
	uint32_t addr;
	uint8_t len;
	unsigned n;
	uint32_t nh[BGP_RIB_MP_MAX];
	int fail;
} em;

static int
emit(void *arg, const struct bgp_dest *d, uint32_t nhid, const uint32_t *nh,
    unsigned n)
{
	(void)arg;
	assert_true((nhid == 0) == (n == 0));
	if (em.fail)
		return (-1);
	em.calls++;
	em.addr = d->addr;
	em.len = d->len;
	em.n = n;
	memcpy(em.nh, nh, n * sizeof(*nh));
	return (0);
}

static size_t
drain(void)
{
	memset(&em, 0, sizeof(em));
	return (bgp_rib_drain(r, SIZE_MAX, emit, NULL));
}

/* peers: 1 eBGP AS 65002 at .2 id .2, 2 eBGP AS 65003 at .3 id .3, 3 iBGP
 * at .4 id .1 (lowest id), 4 eBGP AS 65002 at .5 id .5 */
static int
setup(void **state)
{
	struct bgp_rib_peer p;

	(void)state;
	t = bgp_intern_new();
	r = bgp_rib_new(t);
	bgp_rib_set_local_as(r, 65001);
	p = (struct bgp_rib_peer){A(198, 18, 0, 2), A(198, 18, 9, 2), 65002,
	    true};
	bgp_rib_peer_set(r, 1, &p);
	p = (struct bgp_rib_peer){A(198, 18, 0, 3), A(198, 18, 9, 3), 65003,
	    true};
	bgp_rib_peer_set(r, 2, &p);
	p = (struct bgp_rib_peer){A(198, 18, 0, 4), A(198, 18, 9, 1), 65001,
	    false};
	bgp_rib_peer_set(r, 3, &p);
	p = (struct bgp_rib_peer){A(198, 18, 0, 5), A(198, 18, 9, 5), 65002,
	    true};
	bgp_rib_peer_set(r, 4, &p);
	return (0);
}

static int
teardown(void **state)
{
	struct bgp_intern_stats st;

	(void)state;
	bgp_rib_free(r);
	/* every reference the rib took was dropped: only ours are left, and
	 * the tests drop theirs */
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 0);
	bgp_intern_free(t);
	return (0);
}

#define PFX A(198, 19, 1, 0), 24

/* The best path's next hop after peers a and b announced sa and sb; the
 * loser's why in *why. */
static uint32_t
duel(unsigned a, struct bgp_aset *sa, unsigned b, struct bgp_aset *sb,
    uint8_t *why)
{
	const struct bgp_dest *d;
	uint32_t nh;

	assert_int_equal(bgp_rib_update(r, a, PFX, sa, sa, 0), 1);
	assert_int_equal(bgp_rib_update(r, b, PFX, sb, sb, 0), 1);
	drain();
	assert_int_equal(em.n, 1);
	nh = em.nh[0];
	d = bgp_rib_find(r, PFX);
	assert_non_null(d);
	*why = 0;
	for (uint32_t pi = d->paths; pi != 0; pi = bgp_rib_path(r, pi)->next)
		if (!(bgp_rib_path(r, pi)->flags & BGP_PATH_BEST))
			*why = bgp_rib_path(r, pi)->why;
	bgp_rib_withdraw(r, a, PFX);
	bgp_rib_withdraw(r, b, PFX);
	drain();
	assert_int_equal(em.n, 0);
	assert_null(bgp_rib_find(r, PFX));
	bgp_aset_unref(t, sa);
	bgp_aset_unref(t, sb);
	return (nh);
}

static void
test_rules(void **state)
{
	uint32_t n2 = A(198, 18, 0, 2), n3 = A(198, 18, 0, 3),
		 n4 = A(198, 18, 0, 4), n5 = A(198, 18, 0, 5);
	uint8_t why;

	(void)state;
	/* local-pref beats a shorter path */
	assert_int_equal(duel(1, mk(100, 0, ~0u, n2, 1, 65002), 2,
			     mk(200, 0, ~0u, n3, 3, 65003, 1, 2), &why),
	    n3);
	assert_int_equal(why, BGP_WHY_LOCAL_PREF);
	/* absent local-pref is 100 */
	assert_int_equal(duel(1, mk(0, 0, ~0u, n2, 1, 65002), 2,
			     mk(101, 0, ~0u, n3, 2, 65003, 7), &why),
	    n3);
	/* AS path length */
	assert_int_equal(duel(1, mk(0, 2, 9, n2, 1, 65002), 2,
			     mk(0, 0, 0, n3, 2, 65003, 7), &why),
	    n2);
	assert_int_equal(why, BGP_WHY_ASPATH);
	/* origin */
	assert_int_equal(duel(1, mk(0, 2, 0, n2, 1, 65002), 2,
			     mk(0, 1, 50, n3, 1, 65003), &why),
	    n3);
	assert_int_equal(why, BGP_WHY_ORIGIN);
	/* MED among the same neighbouring AS (peers 1 and 4: 65002) */
	assert_int_equal(duel(1, mk(0, 0, 20, n2, 1, 65002), 4,
			     mk(0, 0, 10, n5, 1, 65002), &why),
	    n5);
	assert_int_equal(why, BGP_WHY_MED);
	/* a missing MED is the lowest */
	assert_int_equal(duel(1, mk(0, 0, ~0u, n2, 1, 65002), 4,
			     mk(0, 0, 10, n5, 1, 65002), &why),
	    n2);
	/* ... and MEDs of different ASes are not compared: router id */
	assert_int_equal(duel(1, mk(0, 0, 20, n2, 1, 65002), 2,
			     mk(0, 0, 10, n3, 1, 65003), &why),
	    n2);
	assert_int_equal(why, BGP_WHY_ROUTER_ID);
	/* eBGP over iBGP (the iBGP peer has the lowest router id) */
	assert_int_equal(duel(3, mk(0, 0, ~0u, n4, 1, 65009), 2,
			     mk(0, 0, ~0u, n3, 1, 65009), &why),
	    n3);
	assert_int_equal(why, BGP_WHY_EBGP);
}

static void
test_multipath(void **state)
{
	uint32_t n2 = A(198, 18, 0, 2), n3 = A(198, 18, 0, 3),
		 n5 = A(198, 18, 0, 5);
	struct bgp_aset *a = mk(0, 0, ~0u, n2, 2, 65002, 9),
			*b = mk(0, 0, ~0u, n5, 2, 65002, 8),
			*c = mk(0, 0, ~0u, n3, 2, 65003, 9);

	(void)state;
	bgp_rib_set_multipath(r, 8);
	bgp_rib_update(r, 1, PFX, a, a, 0);
	bgp_rib_update(r, 4, PFX, b, b, 0);
	bgp_rib_update(r, 2, PFX, c, c, 0);
	drain();
	/* the two from AS 65002, sorted; not the one from 65003 */
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.n, 2);
	assert_int_equal(em.nh[0], n2);
	assert_int_equal(em.nh[1], n5);
	/* off again: one, and rib hears of it */
	bgp_rib_set_multipath(r, 1);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.n, 1);
	assert_int_equal(em.nh[0], n2);
	bgp_rib_peer_flush(r, 1, false);
	bgp_rib_peer_flush(r, 2, false);
	bgp_rib_peer_flush(r, 4, false);
	drain();
	assert_int_equal(em.n, 0);
	bgp_aset_unref(t, a);
	bgp_aset_unref(t, b);
	bgp_aset_unref(t, c);
}

static void
test_withdraw_and_coalesce(void **state)
{
	uint32_t n2 = A(198, 18, 0, 2), n3 = A(198, 18, 0, 3);
	struct bgp_aset *a = mk(0, 0, ~0u, n2, 1, 65002),
			*b = mk(0, 0, ~0u, n3, 2, 65003, 1),
			*a2 = mk(0, 0, 5, n2, 1, 65002);
	struct bgp_rib_stats st;

	(void)state;
	/* announced, changed, changed back in one turn: one route out */
	bgp_rib_update(r, 1, PFX, a, a, 0);
	bgp_rib_update(r, 1, PFX, a2, a2, 0);
	bgp_rib_update(r, 1, PFX, a, a, 0);
	assert_int_equal(bgp_rib_pending(r), 1);
	assert_int_equal(drain(), 1);
	assert_int_equal(em.calls, 1);
	/* an attribute change that keeps the next hop: nothing for rib */
	bgp_rib_update(r, 1, PFX, a2, a2, 0);
	drain();
	assert_int_equal(em.calls, 0);
	/* a worse path arrives: nothing for rib either */
	bgp_rib_update(r, 2, PFX, b, b, 0);
	drain();
	assert_int_equal(em.calls, 0);
	/* the best withdrawn: the next best */
	assert_int_equal(bgp_rib_withdraw(r, 1, PFX), 1);
	assert_int_equal(bgp_rib_withdraw(r, 1, PFX), 0);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.nh[0], n3);
	/* rib restarted: everything again, then nothing more */
	bgp_rib_resend_all(r);
	drain();
	assert_int_equal(em.calls, 1);
	drain();
	assert_int_equal(em.calls, 0);
	/* an emit that fails keeps the prefix on the list */
	bgp_rib_withdraw(r, 2, PFX);
	em.fail = 1;
	assert_int_equal(bgp_rib_drain(r, SIZE_MAX, emit, NULL), 0);
	assert_int_equal(bgp_rib_pending(r), 1);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.n, 0);
	bgp_rib_stats(r, &st);
	assert_int_equal(st.dests, 0);
	assert_int_equal(st.paths, 0);
	assert_int_equal(st.best, 0);
	bgp_aset_unref(t, a);
	bgp_aset_unref(t, b);
	bgp_aset_unref(t, a2);
}

static struct bgp_aset *
import_all(void *arg, uint32_t addr, uint8_t len, struct bgp_aset *in,
    uint8_t *why)
{
	(void)arg;
	(void)addr;
	(void)len;
	(void)why;
	return (bgp_aset_ref(in));
}

static struct bgp_aset *
import_none(void *arg, uint32_t addr, uint8_t len, struct bgp_aset *in,
    uint8_t *why)
{
	(void)arg;
	(void)addr;
	(void)len;
	(void)in;
	*why = BGP_WHY_POLICY;
	return (NULL);
}

static void
test_policy_and_gr(void **state)
{
	uint32_t n2 = A(198, 18, 0, 2);
	struct bgp_aset *a = mk(0, 0, ~0u, n2, 1, 65002);
	size_t all, imp;

	(void)state;
	/* refused by policy: kept, not used */
	bgp_rib_update(r, 1, PFX, a, NULL, BGP_WHY_POLICY);
	bgp_rib_update(r, 1, A(198, 19, 2, 0), 24, a, NULL, BGP_WHY_POLICY);
	drain();
	assert_int_equal(em.calls, 0);
	bgp_rib_peer_counts(r, 1, &all, &imp);
	assert_int_equal(all, 2);
	assert_int_equal(imp, 0);
	assert_int_equal(bgp_rib_path(r, bgp_rib_find(r, PFX)->paths)->why,
	    BGP_WHY_POLICY);
	/* a new policy accepts them without the neighbour sending again */
	assert_int_equal(bgp_rib_reimport(r, 1, import_all, NULL), 2);
	assert_int_equal(bgp_rib_reimport(r, 1, import_all, NULL), 0);
	assert_int_equal(drain(), 2);
	bgp_rib_peer_counts(r, 1, &all, &imp);
	assert_int_equal(imp, 2);
	/* graceful restart: stale, one announced again, the rest swept */
	assert_int_equal(bgp_rib_peer_stale(r, 1), 2);
	assert_int_equal(bgp_rib_peer_stale_count(r, 1), 2);
	assert_int_equal(bgp_rib_peer_stale(r, 1), 2); /* again: still 2 */
	assert_int_equal(bgp_rib_peer_stale_count(r, 1), 2);
	bgp_rib_update(r, 1, PFX, a, a, 0);
	assert_int_equal(bgp_rib_peer_stale_count(r, 1), 1);
	drain();
	assert_int_equal(em.calls, 0); /* still the same route for rib */
	assert_int_equal(bgp_rib_peer_flush(r, 1, true), 1);
	assert_int_equal(bgp_rib_peer_stale_count(r, 1), 0);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.addr, A(198, 19, 2, 0));
	assert_int_equal(em.n, 0);
	/* and a policy that refuses all withdraws it from rib */
	assert_int_equal(bgp_rib_reimport(r, 1, import_none, NULL), 1);
	drain();
	assert_int_equal(em.n, 0);
	assert_int_equal(bgp_rib_peer_flush(r, 1, false), 1);
	bgp_aset_unref(t, a);
}

/* Next hops as rib resolves them: an unreachable one is not used, the IGP
 * cost decides after eBGP over iBGP, and only a change that matters marks
 * prefixes again. */
static void
test_nexthops(void **state)
{
	uint32_t n2 = A(198, 18, 0, 2), n3 = A(198, 18, 0, 3);
	struct bgp_aset *a = mk(0, 0, ~0u, n2, 1, 65002),
			*b = mk(0, 0, ~0u, n3, 1, 65003);
	uint32_t got[8], cost;
	const struct bgp_dest *d;
	uint8_t why = 0;

	(void)state;
	/* peers 1 (id .2) and 2 (id .3): the router id decides */
	assert_int_equal(bgp_rib_update(r, 1, PFX, a, a, 0), 1);
	assert_int_equal(bgp_rib_update(r, 2, PFX, b, b, 0), 1);
	drain();
	assert_int_equal(em.nh[0], n2);
	/* both next hops to be asked of rib, once each */
	assert_int_equal(bgp_rib_nh_take(r, got, 8), 2);
	assert_int_equal(bgp_rib_nh_take(r, got, 8), 0);
	assert_int_equal(bgp_rib_nh_get(r, n2, &cost), BGP_NH_UNKNOWN);
	/* rib confirms them reachable at cost 0: nothing to choose again */
	assert_int_equal(bgp_rib_nh_set(r, n2, BGP_NH_REACHABLE, 0), 0);
	assert_int_equal(bgp_rib_nh_set(r, n3, BGP_NH_REACHABLE, 0), 0);
	assert_int_equal(drain(), 0);
	/* .2 unreachable: .3 takes over, .2's path says why */
	assert_int_equal(bgp_rib_nh_set(r, n2, BGP_NH_UNREACHABLE, 0), 1);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.n, 1);
	assert_int_equal(em.nh[0], n3);
	d = bgp_rib_find(r, PFX);
	for (uint32_t pi = d->paths; pi != 0; pi = bgp_rib_path(r, pi)->next)
		if (!(bgp_rib_path(r, pi)->flags & BGP_PATH_BEST))
			why = bgp_rib_path(r, pi)->why;
	assert_int_equal(why, BGP_WHY_NH_UNREACH);
	assert_string_equal(bgp_rib_why_str(why), "next hop unreachable");
	/* both unreachable: no route at all */
	assert_int_equal(bgp_rib_nh_set(r, n3, BGP_NH_UNREACHABLE, 0), 1);
	drain();
	assert_int_equal(em.calls, 1);
	assert_int_equal(em.n, 0);
	/* back, .3 closer (IGP cost 5 vs 10): the cost beats the router id */
	assert_int_equal(bgp_rib_nh_set(r, n2, BGP_NH_REACHABLE, 10), 1);
	assert_int_equal(bgp_rib_nh_set(r, n3, BGP_NH_REACHABLE, 5), 1);
	drain();
	assert_int_equal(em.nh[0], n3);
	d = bgp_rib_find(r, PFX);
	for (uint32_t pi = d->paths; pi != 0; pi = bgp_rib_path(r, pi)->next)
		if (!(bgp_rib_path(r, pi)->flags & BGP_PATH_BEST))
			why = bgp_rib_path(r, pi)->why;
	assert_int_equal(why, BGP_WHY_IGP_COST);
	/* multipath counts the cost in: unequal, one next hop; equal, two
	 * (same neighbouring AS needed: peer 4, AS 65002 like peer 1) */
	bgp_rib_set_multipath(r, 4);
	drain();
	assert_int_equal(em.calls, 0);
	/* after a reconnect to rib every next hop is asked again */
	bgp_rib_nh_rewatch(r);
	assert_int_equal(bgp_rib_nh_take(r, got, 8), 2);
	bgp_rib_set_multipath(r, 1);
	bgp_rib_withdraw(r, 1, PFX);
	bgp_rib_withdraw(r, 2, PFX);
	drain();
	bgp_aset_unref(t, a);
	bgp_aset_unref(t, b);
}

/* 1M prefixes from one peer, then the same from a second with a worse
 * path: time and bytes per path printed, the counts checked. */
static void
test_million(void **state)
{
	enum { N = 1000000, SETS = 4000 };
	struct bgp_aset **s = calloc(SETS, sizeof(*s)),
			**s2 = calloc(SETS, sizeof(*s2));
	struct bgp_rib_stats st;
	struct timespec t0, t1;
	double ns;

	(void)state;
	for (unsigned i = 0; i < SETS; i++)
		s[i] = mk(0, 0, i % 7, A(198, 18, 0, 2 + i % 2), 3, 65002,
		    100 + i, 7);
	for (unsigned i = 0; i < SETS; i++)
		s2[i] = mk(0, 0, i % 7, A(198, 18, 0, 3), 4, 65003, 100 + i, 8,
		    9);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(bgp_rib_update(r, 1,
				     htonl(0x40000000u + (i << 8)), 24,
				     s[i % SETS], s[i % SETS], 0),
		    1);
	assert_int_equal(drain(), N);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		 (double)(t1.tv_nsec - t0.tv_nsec)) /
	    N;
	bgp_rib_stats(r, &st);
	assert_int_equal(st.dests, N);
	assert_int_equal(st.paths, N);
	assert_int_equal(st.best, N);
	assert_int_equal(st.nhsets, 2);
	printf("# 1M prefixes: %.0f ns each (update + best path), %.1f bytes "
	       "per path\n",
	    ns, (double)st.bytes / N);
	for (uint32_t i = 0; i < N; i++)
		bgp_rib_update(r, 2, htonl(0x40000000u + (i << 8)), 24,
		    s2[i % SETS], s2[i % SETS], 0);
	/* peer 2's paths are longer: nothing changes for rib */
	drain();
	assert_int_equal(em.calls, 0);
	bgp_rib_stats(r, &st);
	assert_int_equal(st.paths, 2 * N);
	printf("# 2M paths: %.1f bytes per path\n",
	    (double)st.bytes / (2.0 * N));
	/* peer 1 down: peer 2's paths win; rib hears of the half whose
	 * next hop changes (.2 -> .3) */
	assert_int_equal(bgp_rib_peer_flush(r, 1, false), N);
	assert_int_equal(drain(), N);
	assert_int_equal(em.calls, N / 2);
	assert_int_equal(em.nh[0], A(198, 18, 0, 3));
	assert_int_equal(bgp_rib_peer_flush(r, 2, false), N);
	drain();
	assert_int_equal(em.calls, N);
	assert_int_equal(em.n, 0);
	bgp_rib_stats(r, &st);
	assert_int_equal(st.dests, 0);
	assert_int_equal(st.best, 0);
	for (unsigned i = 0; i < SETS; i++) {
		bgp_aset_unref(t, s[i]);
		bgp_aset_unref(t, s2[i]);
	}
	free(s);
	free(s2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multipath, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdraw_and_coalesce, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_policy_and_gr, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_nexthops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_million, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
