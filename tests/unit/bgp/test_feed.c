/* tests/unit/bgp/test_feed.c: bench-bgp's feeder routes (tests/lib/bgpfeed.c): every prefix of the set comes out of the pre-encoded UPDATEs exactly once, through tern's parser, with its set's attributes (AS paths of 2-8 ASes, the feeder's AS first for eBGP, LOCAL_PREF only for iBGP), prefixes packed many per UPDATE; the multi-peer layout gives each set one shortest path; a churn UPDATE carries one prefix with the new next hop. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "tests/lib/bgpfeed.h"

#define N    20000
#define SETS 300

static uint8_t scratch[BGP_ASPATH_SCRATCH];

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

static uint64_t
key(uint32_t addr, unsigned len)
{
	return ((uint64_t)addr << 8 | len);
}

/* The index of prefix addr/len in f's set (binary search in sorted). */
static size_t
find(const uint64_t *sorted, const uint32_t *idx, size_t n, uint64_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sorted[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	assert_true(lo < n && sorted[lo] == k);
	return (idx[lo]);
}

/* Encodes f for session c and parses it all back: each prefix once, with
 * the canonical attributes of its set. */
static void
roundtrip(struct tt_feed *f, const struct bgp_codec *c)
{
	uint64_t *sorted = malloc(f->ps.n * sizeof(*sorted));
	uint32_t *idx = malloc(f->ps.n * sizeof(*idx));
	uint8_t *seen = calloc(f->ps.n, 1);
	uint64_t *tmp = malloc(f->ps.n * 2 * sizeof(*tmp));
	uint8_t c1[BGP_ATTR_CANON_MAX], c2[BGP_ATTR_CANON_MAX], abuf[256];
	size_t o = 0, msgs = 0, got = 0;

	assert_non_null(sorted);
	assert_non_null(idx);
	assert_non_null(seen);
	assert_non_null(tmp);
	for (size_t i = 0; i < f->ps.n; i++) {
		tmp[2 * i] = key(f->ps.p[i].addr, f->ps.p[i].len);
		tmp[2 * i + 1] = i;
	}
	qsort(tmp, f->ps.n, 2 * sizeof(*tmp), cmp_u64);
	for (size_t i = 0; i < f->ps.n; i++) {
		sorted[i] = tmp[2 * i];
		idx[i] = (uint32_t)tmp[2 * i + 1];
	}
	assert_int_equal(tt_feed_encode(f, c), 0);
	while (o < f->len) {
		struct bgp_update u;
		struct bgp_err err;
		struct bgp_attrs want;
		struct bgp_nlri_iter it;
		struct lc_prefix4 p;
		uint8_t type;
		int len = bgp_msg_check_hdr(f->msgs + o, f->len - o, &type,
		    &err);
		int set = -1, k1, k2;
		unsigned n = 0;

		assert_true(len >= BGP_UPD_MIN && len <= BGP_MAX_LEN);
		assert_int_equal(type, BGP_UPDATE);
		assert_int_equal(bgp_update_parse(f->msgs + o, (size_t)len, c,
				     scratch, &u, &err),
		    0);
		assert_int_equal(u.a.outcome, BGP_OUT_OK);
		assert_int_equal(u.n_unreach, 0);
		assert_int_equal(u.n_reach, 1);
		assert_int_equal(ntohl(u.a.nexthop.s_addr), f->c.nexthop);
		bgp_nlri_iter_init(&it, &u.reach[0]);
		while (bgp_nlri_next4(&it, &p) == 1) {
			size_t i = find(sorted, idx, f->ps.n,
			    key(ntohl(p.addr.s_addr), p.len));

			assert_int_equal(seen[i]++, 0);
			if (set < 0)
				set = (int)f->set_of[i];
			/* one set per UPDATE */
			assert_int_equal(f->set_of[i], (uint32_t)set);
			n++;
		}
		assert_true(n > 0);
		got += n;
		/* the attributes are the set's */
		k1 = bgp_attr_canon(&u.a, BGP_AF_IPV4, c1, sizeof(c1));
		assert_int_equal(tt_feed_attrs(f, (unsigned)set, f->c.nexthop,
				     abuf, sizeof(abuf), &want),
		    0);
		k2 = bgp_attr_canon(&want, BGP_AF_IPV4, c2, sizeof(c2));
		if (c->ebgp) /* LOCAL_PREF is never sent, never made */
			assert_false(
			    u.a.present & BGP_ABIT(BGP_ATTR_LOCAL_PREF));
		else
			assert_int_equal(u.a.local_pref, 100);
		assert_int_equal(k1, k2);
		assert_memory_equal(c1, c2, (size_t)k1);
		{
			unsigned pl = bgp_aspath_count(u.a.aspath,
			    u.a.aspath_len);

			assert_true(
			    pl >= TT_FEED_PATH_MIN && pl <= TT_FEED_PATH_MAX);
			assert_int_equal(pl,
			    tt_feed_path_len(f, (unsigned)set, f->c.index));
			if (c->ebgp)
				assert_int_equal(bgp_aspath_first(u.a.aspath,
						     u.a.aspath_len),
				    f->c.as);
		}
		o += (size_t)len;
		msgs++;
	}
	assert_int_equal(o, f->len);
	assert_int_equal(msgs, f->nmsgs);
	assert_int_equal(got, f->ps.n);
	for (size_t i = 0; i < f->ps.n; i++)
		assert_int_equal(seen[i], 1);
	/* packed: far fewer UPDATEs than prefixes (a message holds
	 * about 900 /24s), at most one partial message per set */
	assert_true(msgs <= f->ps.n / 900 + SETS);
	free(sorted);
	free(idx);
	free(seen);
	free(tmp);
}

static void
conf(struct tt_feed_conf *c, bool ebgp, unsigned peers, unsigned index)
{
	memset(c, 0, sizeof(*c));
	c->n = N;
	c->seed = TT_PFX_SEED;
	c->nsets = SETS;
	c->attr_seed = TT_FEED_SEED;
	c->as = 65002 + index;
	c->ebgp = ebgp;
	c->nexthop = 0xc6120102u + index; /* 198.18.1.2 + index */
	c->peers = peers;
	c->index = index;
}

static void
test_ibgp(void **state)
{
	static const struct bgp_codec ci = {true, false,
	    BGP_AF_BIT(BGP_AF_IPV4), 0};
	struct tt_feed_conf c;
	struct tt_feed f;

	(void)state;
	conf(&c, false, 1, 0);
	assert_int_equal(tt_feed_init(&f, &c), 0);
	roundtrip(&f, &ci);
	tt_feed_fini(&f);
}

static void
test_ebgp_4peers(void **state)
{
	for (unsigned k = 0; k < 4; k++) {
		struct bgp_codec ce = {true, true, BGP_AF_BIT(BGP_AF_IPV4),
		    65002 + k};
		struct tt_feed_conf c;
		struct tt_feed f;

		(void)state;
		conf(&c, true, 4, k);
		assert_int_equal(tt_feed_init(&f, &c), 0);
		roundtrip(&f, &ce);
		tt_feed_fini(&f);
	}
}

/* A 2-octet session: AS4_PATH carries the 4-octet ASes, and the path
 * parses back whole. */
static void
test_2octet(void **state)
{
	static const struct bgp_codec c2 = {false, true,
	    BGP_AF_BIT(BGP_AF_IPV4), 65002};
	struct tt_feed_conf c;
	struct tt_feed f;

	(void)state;
	conf(&c, true, 1, 0);
	assert_int_equal(tt_feed_init(&f, &c), 0);
	roundtrip(&f, &c2);
	tt_feed_fini(&f);
}

/* Every set has one shortest path among the peers, and tt_feed_best names
 * its feeder; the sets (and so the prefixes) are won by every feeder. */
static void
test_best(void **state)
{
	struct tt_feed_conf c;
	struct tt_feed f[4];
	size_t won[4] = {0};

	(void)state;
	for (unsigned k = 0; k < 4; k++) {
		conf(&c, true, 4, k);
		assert_int_equal(tt_feed_init(&f[k], &c), 0);
	}
	for (unsigned s = 0; s < SETS; s++) {
		unsigned best = tt_feed_best(&f[0], s), bl;

		bl = tt_feed_path_len(&f[0], s, best);
		for (unsigned k = 0; k < 4; k++) {
			unsigned l = tt_feed_path_len(&f[k], s, k);

			assert_int_equal(l, tt_feed_path_len(&f[0], s, k));
			assert_true(l >= 2 && l <= 8);
			if (k != best)
				assert_true(l > bl);
			/* the same sets for every feeder */
			assert_memory_equal(f[k].sets[s].as, f[0].sets[s].as,
			    sizeof(f[0].sets[s].as));
		}
		won[best] += f[0].sets[s].prefixes;
	}
	for (unsigned k = 0; k < 4; k++) {
		assert_true(won[k] > N / 10);
		tt_feed_fini(&f[k]);
	}
}

/* The sets: a few thousand by default, skewed, origins, MEDs and
 * communities mixed. */
static void
test_sets(void **state)
{
	struct tt_feed_conf c;
	struct tt_feed f;
	unsigned med = 0, comm = 0, igp = 0, inc = 0, used = 0;
	uint32_t maxp = 0;

	(void)state;
	conf(&c, true, 1, 0);
	c.nsets = TT_FEED_SETS;
	c.n = 200000;
	assert_int_equal(tt_feed_init(&f, &c), 0);
	for (unsigned s = 0; s < c.nsets; s++) {
		const struct tt_feed_set *t = &f.sets[s];

		med += t->has_med;
		comm += t->ncomm > 0;
		igp += t->origin == BGP_ORIGIN_IGP;
		inc += t->origin == BGP_ORIGIN_INCOMPLETE;
		used += t->prefixes > 0;
		maxp = t->prefixes > maxp ? t->prefixes : maxp;
		assert_int_equal(f.set_first[s + 1] - f.set_first[s],
		    t->prefixes);
	}
	assert_true(med > c.nsets / 5 && med < c.nsets / 2);
	assert_true(comm > c.nsets / 2 && comm < c.nsets * 3 / 4);
	assert_true(igp > c.nsets * 3 / 4 && inc > c.nsets / 20);
	assert_true(used > c.nsets * 9 / 10);
	assert_true(maxp > 20 * c.n / c.nsets); /* skewed */
	tt_feed_fini(&f);
	assert_int_equal(tt_feed_init(&f, &(struct tt_feed_conf){0}), -EINVAL);
	conf(&c, true, 8, 0);
	assert_int_equal(tt_feed_init(&f, &c), -EINVAL);
}

static void
test_one(void **state)
{
	static const struct bgp_codec ce = {true, true, BGP_AF_BIT(BGP_AF_IPV4),
	    65002};
	static struct bgp_upd_builder b;
	struct tt_feed_conf c;
	struct tt_feed f;
	struct bgp_update u;
	struct bgp_err err;
	struct bgp_nlri_iter it;
	struct lc_prefix4 p;
	const uint8_t *m;
	int len;

	(void)state;
	conf(&c, true, 1, 0);
	assert_int_equal(tt_feed_init(&f, &c), 0);
	bgp_upd_init(&b, &ce, BGP_AF_IPV4);
	for (size_t i = 0; i < 1000; i += 7) {
		len = tt_feed_one(&f, &b, i, 0xc61201c8u, &m);
		assert_true(len > BGP_UPD_MIN);
		assert_int_equal(bgp_update_parse(m, (size_t)len, &ce, scratch,
				     &u, &err),
		    0);
		assert_int_equal(ntohl(u.a.nexthop.s_addr), 0xc61201c8u);
		bgp_nlri_iter_init(&it, &u.reach[0]);
		assert_int_equal(bgp_nlri_next4(&it, &p), 1);
		assert_int_equal(ntohl(p.addr.s_addr), f.ps.p[i].addr);
		assert_int_equal(p.len, f.ps.p[i].len);
		assert_int_equal(bgp_nlri_next4(&it, &p), 0);
	}
	assert_int_equal(tt_feed_one(&f, &b, f.ps.n, 1, &m), -EINVAL);
	tt_feed_fini(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ibgp),
	    cmocka_unit_test(test_ebgp_4peers),
	    cmocka_unit_test(test_2octet),
	    cmocka_unit_test(test_best),
	    cmocka_unit_test(test_sets),
	    cmocka_unit_test(test_one),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
