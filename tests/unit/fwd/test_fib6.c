/* tests/unit/fwd/test_fib6.c: the IPv6 FIB against a linear-scan reference. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fwd/fwd_fib6.h"
#include "tests/lib/prefixset6.h"

typedef tt_u128 u128;

#if defined(__SANITIZE_ADDRESS__)
#define SAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAN 1
#endif
#endif
#ifndef SAN
#define SAN 0
#endif

#define m128 tt_a6_mask
#define put  tt_a6_put
#define get  tt_a6_get

static uint64_t rng_state = 1;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

static u128
rnd128(void)
{
	return (((u128)rnd() << 64) | rnd());
}

/* ---- reference: routes in an array, longest match by a linear scan ---- */

struct route {
	u128 pfx;
	unsigned len, nh;
	bool in;
};

static unsigned
ref_lookup(const struct route *r, size_t n, u128 a)
{
	int best = -1;
	unsigned nh = FWD_FIB6_NH_NONE;

	for (size_t k = 0; k < n; k++)
		if (r[k].in && (int)r[k].len > best &&
		    ((a ^ r[k].pfx) & m128(r[k].len)) == 0) {
			best = (int)r[k].len;
			nh = r[k].nh;
		}
	return (nh);
}

static struct fwd_fib6 *
fib_make(unsigned max_nh, unsigned max_tbl8)
{
	struct fwd_fib6_conf c = {.max_nh = max_nh, .max_tbl8 = max_tbl8};
	struct fwd_fib6 *f = fwd_fib6_new(&c);

	assert_non_null(f);
	return (f);
}

/* every group freed once the (reader-less) grace periods end */
static void
fib_done(struct fwd_fib6 *f)
{
	fwd_fib6_clear(f);
	assert_int_equal(fwd_fib6_count(f), 0);
	assert_int_equal(fwd_fib6_tbl8_used(f), 0);
	assert_int_equal(fwd_fib6_reclaim(f), 0);
	fwd_fib6_free(f);
}

static int
add(struct fwd_fib6 *f, u128 pfx, unsigned len, unsigned nh)
{
	uint8_t a[16];

	put(pfx, a);
	return (fwd_fib6_add(f, a, len, nh));
}

static int
del(struct fwd_fib6 *f, u128 pfx, unsigned len)
{
	uint8_t a[16];

	put(pfx, a);
	return (fwd_fib6_del(f, a, len));
}

static unsigned
look(const struct fwd_fib6 *f, u128 addr)
{
	uint8_t a[16];
	uint16_t nh;
	unsigned v;

	put(addr, a);
	v = fwd_fib6_lookup(f, a);
	fwd_fib6_lookup_burst(f, a, &nh, 1);
	assert_int_equal(v, nh);
	return (v);
}

/* addresses near the routes: inside one (random host bits), or one off
 * either end of one */
static u128
probe_addr(const struct route *r, size_t n)
{
	const struct route *p = &r[rnd() % n];
	u128 a = p->pfx | (rnd128() & ~m128(p->len));

	switch (rnd() % 4) {
	case 0:
		return (p->pfx - 1);
	case 1:
		return (p->pfx | ~m128(p->len)) + 1;
	default:
		return (a);
	}
}

static void
check_all(const struct fwd_fib6 *f, const struct route *r, size_t n,
    unsigned probes)
{
	uint8_t buf[16 * 64];
	uint16_t nh[64];
	unsigned expect[64];

	for (unsigned i = 0; i < probes; i += 64) {
		for (unsigned j = 0; j < 64; j++) {
			u128 a = probe_addr(r, n);

			put(a, buf + 16 * j);
			expect[j] = ref_lookup(r, n, a);
		}
		fwd_fib6_lookup_burst(f, buf, nh, 64);
		for (unsigned j = 0; j < 64; j++) {
			unsigned s = fwd_fib6_lookup(f, buf + 16 * j);

			if (s != expect[j] || nh[j] != expect[j])
				fail_msg("probe %u: single %u burst %u "
					 "reference %u",
				    i + j, s, nh[j], expect[j]);
		}
	}
}

/* ---- tests ---- */

static void
test_errors(void **state)
{
	struct fwd_fib6_conf c = {.max_nh = 0};
	struct fwd_fib6 *f;
	uint8_t a[16] = {0x20, 0x01, 0x00, 0x02};
	unsigned nh = 0;

	(void)state;
	assert_null(fwd_fib6_new(&c));
	assert_int_equal(errno, EINVAL);
	c.max_nh = 0x10000;
	assert_null(fwd_fib6_new(&c));
	c.max_nh = 16;
	c.flags = 0x80;
	assert_null(fwd_fib6_new(&c));
	assert_null(fwd_fib6_new(NULL));
	f = fib_make(16, 0);
	assert_int_equal(fwd_fib6_add(f, a, 129, 1), -EINVAL);
	assert_int_equal(fwd_fib6_add(f, a, 32, 1), 0);
	assert_int_equal(fwd_fib6_add(f, a, 30, 1), -EINVAL); /* host bits */
	assert_int_equal(fwd_fib6_add(f, a, 48, 16), -EINVAL);
	assert_int_equal(fwd_fib6_del(f, a, 48), -ENOENT);
	assert_int_equal(fwd_fib6_del(f, a, 129), -EINVAL);
	assert_int_equal(fwd_fib6_get(f, a, 48, &nh), -ENOENT);
	assert_int_equal(fwd_fib6_get(f, a, 32, &nh), 0);
	assert_int_equal(nh, 1);
	assert_int_equal(fwd_fib6_count(f), 1);
	fib_done(f);
	/* NONE is never a next hop */
	f = fib_make(FWD_FIB6_MAX_NH, 0);
	assert_int_equal(fwd_fib6_add(f, a, 32, FWD_FIB6_NH_NONE), -EINVAL);
	assert_int_equal(fwd_fib6_add(f, a, 32, 0xfffe), 0);
	assert_int_equal(look(f, get(a)), 0xfffe);
	fib_done(f);
}

/* One chain of routes of every length 0..128 over one address, added and
 * deleted in random orders, replaced, re-added. */
static void
test_every_length(void **state)
{
	struct route r[129];
	struct fwd_fib6 *f = fib_make(1024, 0);
	u128 base = (u128)0x20010002u << 96 | rnd128() >> 32;

	(void)state;
	rng_state = 7;
	for (unsigned l = 0; l <= 128; l++)
		r[l] = (struct route){base & m128(l), l, l, false};
	for (int round = 0; round < 6; round++) {
		unsigned order[129];

		for (unsigned l = 0; l <= 128; l++)
			order[l] = l;
		for (unsigned l = 128; l > 0; l--) {
			unsigned j = (unsigned)(rnd() % (l + 1)), t = order[l];

			order[l] = order[j];
			order[j] = t;
		}
		for (unsigned k = 0; k <= 128; k++) {
			struct route *p = &r[order[k]];

			if (!p->in) {
				p->nh = (unsigned)(rnd() % 1000);
				assert_int_equal(add(f, p->pfx, p->len, p->nh),
				    0);
				p->in = true;
			} else if (rnd() % 3 == 0) {
				p->nh = (unsigned)(rnd() % 1000); /* replace */
				assert_int_equal(add(f, p->pfx, p->len, p->nh),
				    0);
			} else {
				assert_int_equal(del(f, p->pfx, p->len), 0);
				p->in = false;
			}
			/* every boundary of the chain */
			for (unsigned l = 0; l <= 128; l++) {
				u128 a = base ^
				    (l < 128 ? (u128)1 << (127 - l) : 0);

				assert_int_equal(look(f, a),
				    ref_lookup(r, 129, a));
			}
			assert_int_equal(look(f, base),
			    ref_lookup(r, 129, base));
		}
	}
	fib_done(f);
}

/* Random sets of every length over a small clustered space, random
 * add/replace/delete/re-add, checked against the reference. */
static void
test_lpm_random(void **state)
{
	enum { N = 1500 };
	struct route *r = calloc(N, sizeof(*r));

	(void)state;
	assert_non_null(r);
	for (int round = 0; round < 4; round++) {
		struct fwd_fib6 *f = fib_make(4096, 0);
		size_t in = 0;

		rng_state = 100 + (uint64_t)round;
		for (size_t k = 0; k < N; k++) {
			/* 2001:db8::/32-ish bits vary only in a few places so
			 * routes nest and share groups */
			u128 a = (u128)0x20010db8u << 96;
			unsigned len = (unsigned)(rnd() % 129);

			if (rnd() % 4 == 0)
				len = 48;
			a |= (rnd128() & ((u128)0xff << 80)) |
			    (rnd128() & ((u128)0x3 << 62)) |
			    (rnd128() & 0xffff);
			if (round == 3)
				a = rnd128(); /* anywhere at all */
			r[k] = (struct route){a & m128(len), len, 0, false};
		}
		for (int op = 0; op < 6 * N; op++) {
			size_t k = rnd() % N;
			int rv;

			if (!r[k].in) {
				r[k].nh = (unsigned)(rnd() % 4096);
				rv = add(f, r[k].pfx, r[k].len, r[k].nh);
				assert_int_equal(rv, 0);
				/* an equal prefix drawn twice: one route */
				for (size_t j = 0; j < N; j++)
					if (j != k && r[j].in &&
					    r[j].len == r[k].len &&
					    r[j].pfx == r[k].pfx) {
						r[j].in = false;
						in--;
					}
				r[k].in = true;
				in++;
			} else if (rnd() % 4 == 0) {
				r[k].nh = (unsigned)(rnd() % 4096);
				assert_int_equal(add(f, r[k].pfx, r[k].len,
						     r[k].nh),
				    0);
			} else {
				assert_int_equal(del(f, r[k].pfx, r[k].len), 0);
				r[k].in = false;
				in--;
			}
			if (op % 500 == 0)
				check_all(f, r, N, 256);
		}
		assert_int_equal(fwd_fib6_count(f), in);
		check_all(f, r, N, 4096);
		/* delete everything: the groups all fold */
		for (size_t k = 0; k < N; k++)
			if (r[k].in) {
				assert_int_equal(del(f, r[k].pfx, r[k].len), 0);
				r[k].in = false;
			}
		assert_int_equal(fwd_fib6_count(f), 0);
		assert_int_equal(fwd_fib6_tbl8_used(f), 0);
		assert_int_equal(look(f, rnd128()), FWD_FIB6_NH_NONE);
		fib_done(f);
	}
	free(r);
}

static void
test_default_and_hosts(void **state)
{
	struct fwd_fib6 *f = fib_make(64, 0);
	u128 h1 = (u128)0x20010002u << 96 | 1, h2 = h1 + 1;

	(void)state;
	assert_int_equal(look(f, h1), FWD_FIB6_NH_NONE);
	assert_int_equal(add(f, 0, 0, 7), 0);
	assert_int_equal(look(f, h1), 7);
	assert_int_equal(look(f, ~(u128)0), 7);
	assert_int_equal(add(f, h1, 128, 1), 0);
	assert_int_equal(add(f, h2, 128, 2), 0);
	assert_int_equal(fwd_fib6_tbl8_used(f), 13); /* 14 reads to a /128 */
	assert_int_equal(look(f, h1), 1);
	assert_int_equal(look(f, h2), 2);
	assert_int_equal(look(f, h2 + 1), 7);
	assert_int_equal(look(f, h1 - 1), 7);
	assert_int_equal(del(f, h1, 128), 0);
	assert_int_equal(look(f, h1), 7);
	assert_int_equal(look(f, h2), 2);
	assert_int_equal(add(f, 0, 0, 9), 0); /* replace the default */
	assert_int_equal(look(f, h1), 9);
	assert_int_equal(del(f, h2, 128), 0);
	assert_int_equal(fwd_fib6_tbl8_used(f), 0); /* all folded */
	assert_int_equal(look(f, h2), 9);
	assert_int_equal(del(f, 0, 0), 0);
	assert_int_equal(look(f, h2), FWD_FIB6_NH_NONE);
	assert_int_equal(fwd_fib6_reclaim(f), 0); /* no readers: reused */
	fib_done(f);
}

/* A group cap: the add that needs one more group than is left fails and
 * changes nothing; after a delete its groups are reused. */
static void
test_group_cap(void **state)
{
	struct fwd_fib6 *f = fib_make(64, 4);
	u128 a = (u128)0x20010002u << 96;

	(void)state;
	assert_int_equal(add(f, a, 48, 1), 0);	     /* 3 groups */
	assert_int_equal(add(f, a, 64, 2), -ENOSPC); /* needs 2 more */
	assert_int_equal(fwd_fib6_count(f), 1);
	assert_int_equal(fwd_fib6_tbl8_used(f), 3);
	assert_int_equal(look(f, a), 1);
	assert_int_equal(add(f, a, 56, 2), 0); /* the 4th */
	assert_int_equal(del(f, a, 56), 0);
	assert_int_equal(del(f, a, 48), 0);
	assert_int_equal(add(f, a | 1, 128, 3), -ENOSPC);
	assert_int_equal(add(f, a | 0x100, 120, 3), -ENOSPC);
	assert_int_equal(add(f, a, 56, 3), 0);
	assert_int_equal(look(f, a), 3);
	fib_done(f);
}

struct walk_acc {
	u128 sum;
	size_t n;
};

static int
walk_cb(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg)
{
	struct walk_acc *w = arg;

	w->sum += get(pfx) + len + nh;
	w->n++;
	return (0);
}

/* The 1M set: built, every route there, lookups on both streams agree
 * with a longest match from exact gets, stale sweep, all deleted. */
static void
test_full_table(void **state)
{
	struct tt_prefixset6 ps;
	size_t n = getenv("FIB6_N") ? strtoul(getenv("FIB6_N"), NULL, 10) :
	    SAN			    ? 200000 :
				      TT_PFX6_FULL,
	       m = 200000;
	struct fwd_fib6 *f = fib_make(TT_PFX6_NNH, 0);
	uint8_t *addrs = malloc(16 * m);
	struct walk_acc w = {0}, w2 = {0};
	unsigned lens[129], nl = 0;

	(void)state;
	assert_non_null(addrs);
	assert_int_equal(tt_prefixset6_gen(&ps, n, TT_PFX6_SEED), 0);
	assert_int_equal(ps.n, n);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(fwd_fib6_add(f, ps.p[k].addr, ps.p[k].len,
				     ps.p[k].nh),
		    0);
		w.sum += get(ps.p[k].addr) + ps.p[k].len + ps.p[k].nh;
	}
	assert_int_equal(fwd_fib6_count(f), n);
	assert_int_equal(fwd_fib6_walk(f, walk_cb, &w2), 0);
	assert_int_equal(w2.n, n);
	assert_true(w2.sum == w.sum);
	/* the mix: /48 the most common, /32 next */
	for (unsigned l = 0; l <= 128; l++) {
		if (ps.count_len[l] > ps.count_len[48])
			fail_msg("/%u more common than /48", l);
		if (ps.count_len[l] != 0)
			lens[nl++] = l;
	}
	assert_true(ps.count_len[48] > n / 3);
	assert_true(ps.count_len[128] > 0 && ps.count_len[64] > 0);
	for (int kind = 0; kind < 2; kind++) {
		size_t hits = 0;

		assert_int_equal(tt_addrs6_gen(&ps, (enum tt_addr6_kind)kind,
				     addrs, m, 99),
		    0);
		for (size_t i = 0; i < m; i++) {
			u128 a = get(addrs + 16 * i);
			unsigned expect = FWD_FIB6_NH_NONE, nh;

			for (unsigned j = nl; j-- > 0;) {
				uint8_t p[16];

				put(a & m128(lens[j]), p);
				if (fwd_fib6_get(f, p, lens[j], &nh) == 0) {
					expect = nh;
					break;
				}
			}
			hits += expect != FWD_FIB6_NH_NONE;
			assert_int_equal(fwd_fib6_lookup(f, addrs + 16 * i),
			    expect);
		}
		if (kind == TT_ADDR6_MATCH)
			assert_int_equal(hits, m);
		else
			assert_true(hits > 0 && hits < m);
	}
	/* resync: half re-added, the other half swept */
	fwd_fib6_mark_stale(f);
	for (size_t k = 0; k < n; k += 2)
		assert_int_equal(fwd_fib6_add(f, ps.p[k].addr, ps.p[k].len,
				     ps.p[k].nh),
		    0);
	assert_int_equal(fwd_fib6_sweep_stale(f), n / 2);
	assert_int_equal(fwd_fib6_count(f), n - n / 2);
	for (size_t k = 0; k < n; k++) {
		int rv = fwd_fib6_del(f, ps.p[k].addr, ps.p[k].len);

		assert_int_equal(rv, k % 2 ? -ENOENT : 0);
	}
	assert_int_equal(fwd_fib6_count(f), 0);
	assert_int_equal(fwd_fib6_tbl8_used(f), 0);
	for (size_t i = 0; i < m; i++)
		assert_int_equal(fwd_fib6_lookup(f, addrs + 16 * i),
		    FWD_FIB6_NH_NONE);
	/* clear on a full table */
	for (size_t k = 0; k < n; k++)
		fwd_fib6_add(f, ps.p[k].addr, ps.p[k].len, ps.p[k].nh);
	fwd_fib6_clear(f);
	assert_int_equal(fwd_fib6_tbl8_used(f), 0);
	assert_int_equal(fwd_fib6_lookup(f, addrs), FWD_FIB6_NH_NONE);
	fib_done(f);
	free(addrs);
	tt_prefixset6_free(&ps);
}

/* ---- a reader thread during updates: every answer is NONE-free and the
 * next hop of a route that covers the address (old or new) ---- */

#define UNIV	200
#define BASE_NH 1000

struct mt {
	struct fwd_fib6 *fib;
	struct route u[UNIV];
	volatile int stop;
	unsigned long lookups, bad;
	u128 bad_addr;
	unsigned bad_nh;
};

static u128
region_addr(uint64_t s)
{
	/* 2001:2::/48 with a few varying bits at bytes 6-7 and 15 */
	return ((u128)0x20010002u << 96 | (u128)(s & 0x3f0) << 64 |
	    ((s >> 12) & 0x3));
}

static void *
mt_reader(void *arg)
{
	struct mt *m = arg;
	struct fwd_qsbr_thread *t = fwd_qsbr_register(fwd_fib6_qsbr(m->fib));
	uint64_t s = 12345;
	uint8_t a[16 * 32];
	uint16_t nh[32];

	assert_non_null(t);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 32; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			put(region_addr(s >> 30), a + 16 * i);
		}
		fwd_fib6_lookup_burst(m->fib, a, nh, 32);
		for (int i = 0; i < 32; i++) {
			unsigned v = i & 1 ?
			    nh[i] :
			    fwd_fib6_lookup(m->fib, a + 16 * i);
			bool ok = v == BASE_NH;
			u128 x = get(a + 16 * i);

			if (v >= 1 && v <= UNIV) {
				const struct route *r = &m->u[v - 1];

				ok = ((x ^ r->pfx) & m128(r->len)) == 0;
			}
			if (!ok) {
				m->bad++;
				m->bad_addr = x;
				m->bad_nh = v;
			}
		}
		m->lookups += 32;
		fwd_qsbr_quiescent(t);
	}
	fwd_qsbr_unregister(t);
	return (NULL);
}

static void
test_concurrent(void **state)
{
	struct mt *m = calloc(1, sizeof(*m));
	bool in[UNIV] = {false};
	pthread_t th;
	u128 base = (u128)0x20010002u << 96;

	(void)state;
	assert_non_null(m);
	m->fib = fib_make(1024, 0);
	rng_state = 4242;
	for (int k = 0; k < UNIV; k++) {
		unsigned len = 48 + (unsigned)(rnd() % 81); /* 48..128 */

		m->u[k].len = len;
		m->u[k].pfx = region_addr(rnd()) & m128(len);
	}
	assert_int_equal(add(m->fib, base, 48, BASE_NH), 0);
	assert_int_equal(pthread_create(&th, NULL, mt_reader, m), 0);
	for (int op = 0; op < (SAN ? 100000 : 300000); op++) {
		unsigned k = (unsigned)(rnd() % UNIV);

		if (!in[k]) {
			assert_int_equal(add(m->fib, m->u[k].pfx, m->u[k].len,
					     k + 1),
			    0);
			for (int j = 0; j < UNIV; j++)
				if (m->u[j].pfx == m->u[k].pfx &&
				    m->u[j].len == m->u[k].len)
					in[j] = (unsigned)j == k;
			in[k] = true;
		} else {
			assert_int_equal(del(m->fib, m->u[k].pfx, m->u[k].len),
			    0);
			in[k] = false;
		}
	}
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (m->bad != 0)
		fail_msg("%lu of %lu lookups saw an invalid next hop (-> %u)",
		    m->bad, m->lookups, m->bad_nh);
	assert_true(m->lookups > 0);
	fib_done(m->fib);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_every_length),
	    cmocka_unit_test(test_lpm_random),
	    cmocka_unit_test(test_default_and_hosts),
	    cmocka_unit_test(test_group_cap),
	    cmocka_unit_test(test_full_table),
	    cmocka_unit_test(test_concurrent),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
