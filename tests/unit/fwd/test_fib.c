/* tests/unit/fwd/test_fib.c: the FIB against a plain binary reference trie. */
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

#include "fwd/fwd_fib.h"
#include "fwd/fwd_pkt.h"

/* ---- reference: an uncompressed binary trie, one node per bit ---- */

struct ref_node {
	struct ref_node *child[2];
	int nh; /* -1: no route here */
};

struct ref {
	struct ref_node *root;
	size_t count;
};

static struct ref_node *
ref_node_new(void)
{
	struct ref_node *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	n->nh = -1;
	return (n);
}

static void
ref_init(struct ref *r)
{
	r->root = ref_node_new();
	r->count = 0;
}

static void
ref_free_node(struct ref_node *n)
{
	if (n == NULL)
		return;
	ref_free_node(n->child[0]);
	ref_free_node(n->child[1]);
	free(n);
}

static void
ref_fini(struct ref *r)
{
	ref_free_node(r->root);
}

static void
ref_add(struct ref *r, uint32_t pfx, unsigned len, unsigned nh)
{
	struct ref_node *n = r->root;

	for (unsigned i = 0; i < len; i++) {
		unsigned b = (pfx >> (31 - i)) & 1;

		if (n->child[b] == NULL)
			n->child[b] = ref_node_new();
		n = n->child[b];
	}
	if (n->nh < 0)
		r->count++;
	n->nh = (int)nh;
}

static bool
ref_del(struct ref *r, uint32_t pfx, unsigned len)
{
	struct ref_node *n = r->root;

	for (unsigned i = 0; i < len && n != NULL; i++)
		n = n->child[(pfx >> (31 - i)) & 1];
	if (n == NULL || n->nh < 0)
		return (false);
	n->nh = -1;
	r->count--;
	return (true);
}

static unsigned
ref_lookup(const struct ref *r, uint32_t a)
{
	const struct ref_node *n = r->root;
	unsigned best = FWD_FIB_NH_NONE;

	for (unsigned i = 0; n != NULL; i++) {
		if (n->nh >= 0)
			best = (unsigned)n->nh;
		if (i == 32)
			break;
		n = n->child[(a >> (31 - i)) & 1];
	}
	return (best);
}

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

static uint32_t
mask(unsigned len)
{
	return (len == 0 ? 0 : ~(uint32_t)0 << (32 - len));
}

static unsigned fib_flags; /* FWD_FIB_F_* for the next fib_make */

static struct fwd_fib *
fib_make(unsigned max_nh, unsigned max_tbl8)
{
	struct fwd_fib_conf c = {.max_nh = max_nh,
	    .max_tbl8 = max_tbl8,
	    .flags = fib_flags};
	struct fwd_fib *f = fwd_fib_new(&c);

	assert_non_null(f);
	return (f);
}

/* The byte view agrees with tbl24 everywhere. */
static void
bytes_ok(const struct fwd_fib *f)
{
	long bad = fwd_fib_check_bytes(f);

	if (bad >= 0)
		fail_msg("byte view differs from tbl24 at /24 %08lx",
		    (unsigned long)bad << 8);
}

/* Every test ends here: the byte view still agrees, then free. */
static void
fib_done(struct fwd_fib *f)
{
	bytes_ok(f);
	fwd_fib_free(f);
}

/* A next hop below max, never FWD_FIB_NH_NONE: half of them under 256, so
 * that the byte view holds some (< 254) and escapes the others (254, 256
 * and up). */
static unsigned
pick_nh(unsigned max)
{
	unsigned v;

	do
		v = (unsigned)(rnd() & 1 ? rnd() % (max < 256 ? max : 256) :
					   rnd() % max);
	while (v == FWD_FIB_NH_NONE);
	return (v);
}

struct route {
	uint32_t pfx;
	unsigned len;
};

static unsigned
pick_len(void)
{
	static const unsigned lens[] = {7, 8, 9, 12, 15, 16, 17, 19, 20, 21, 22,
	    23, 24, 24, 24, 24, 25, 26, 27, 28, 29, 30, 31, 32, 32, 24, 23, 25,
	    32};

	/* /0-/2 rarely: each add or delete rewrites up to 16M entries */
	if (rnd() % 256 == 0)
		return ((unsigned)(rnd() % 3));
	return (lens[rnd() % (sizeof(lens) / sizeof(lens[0]))]);
}

/* Random prefixes clustered under a few /8s and /16s so they nest deeply. */
static struct route
pick_route(void)
{
	static const uint32_t bases[] = {0xc6120000, 0x0b000000, 0xfe000000,
	    0x01020000, 0x80000000, 0x00000000};
	struct route r;
	uint32_t a = bases[rnd() % 6] | (uint32_t)(rnd() & 0x0001ffff);

	if (rnd() % 4 == 0)
		a = (uint32_t)rnd();
	r.len = pick_len();
	r.pfx = a & mask(r.len);
	return (r);
}

/* Compare lookups at every route's edges and at random addresses. */
/* rt -> nh in both the FIB and the reference. */
static void
both_add(struct fwd_fib *f, struct ref *r, struct route rt, unsigned nh)
{
	assert_int_equal(fwd_fib_add(f, rt.pfx, rt.len, nh), 0);
	ref_add(r, rt.pfx, rt.len, nh);
}

/* rt out of both: the FIB says -ENOENT exactly when the reference had it
 * not. */
static void
both_del(struct fwd_fib *f, struct ref *r, struct route rt)
{
	bool had = ref_del(r, rt.pfx, rt.len);

	assert_int_equal(fwd_fib_del(f, rt.pfx, rt.len), had ? 0 : -ENOENT);
}

/* What the FIB must answer: the reference's LPM, but for the martian
 * ranges (when the FIB has FWD_FIB_F_MARTIAN) and the pins. */
static bool want_martian;
static uint32_t want_pin_addr[FWD_FIB_PIN_MAX];
static unsigned want_pin_nh[FWD_FIB_PIN_MAX], want_npin;

static unsigned
ref_want(const struct ref *r, uint32_t a)
{
	if (want_martian &&
	    ((a >> 24) == 0 || (a >> 24) == 127 || a >= 0xe0000000u))
		return (FWD_FIB_NH_NONE);
	for (unsigned k = 0; k < want_npin; k++)
		if (want_pin_addr[k] == a)
			return (want_pin_nh[k]);
	return (ref_lookup(r, a));
}

static void
check_all(const struct fwd_fib *f, const struct ref *r, const struct route *rt,
    size_t n, unsigned nrandom)
{
	uint32_t addrs[64];
	uint16_t out[64];
	unsigned na = 0;

	assert_int_equal(fwd_fib_count(f), r->count);
	for (size_t k = 0; k < n; k++) {
		uint32_t lo = rt[k].pfx, hi = lo | ~mask(rt[k].len);
		uint32_t probe[4] = {lo, hi, lo - 1, hi + 1};

		for (int j = 0; j < 4; j++) {
			unsigned want = ref_want(r, probe[j]);
			unsigned got = fwd_fib_lookup(f, probe[j]);

			if (want != got)
				fail_msg("addr %08x: fib %u ref %u", probe[j],
				    got, want);
		}
	}
	for (unsigned k = 0; k < nrandom; k++) {
		uint32_t a = (uint32_t)rnd();

		if (k & 1) /* near the clusters */
			a = (a & 0x0003ffff) |
			    (n ? rt[rnd() % n].pfx & 0xfffc0000 : 0);
		addrs[na++] = a;
		if (na == 64 || k + 1 == nrandom) {
			fwd_fib_lookup_burst(f, addrs, out, na);
			for (unsigned j = 0; j < na; j++) {
				unsigned want = ref_want(r, addrs[j]);

				if (want != out[j] ||
				    want != fwd_fib_lookup(f, addrs[j]))
					fail_msg("addr %08x: fib %u/%u ref %u",
					    addrs[j], out[j],
					    fwd_fib_lookup(f, addrs[j]), want);
			}
			na = 0;
		}
	}
	if (nrandom >= 2000)
		bytes_ok(f);
}

/* ---- tests ---- */

static void
test_lpm_random(void **state)
{
	(void)state;
	want_martian = false; /* a failed test may have left it */
	want_npin = 0;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct fwd_fib *f;

		/* both burst paths (AVX-512 where the CPU has it, scalar) */
		fib_flags = seed % 2 ? FWD_FIB_F_NO_SIMD : 0;
		f = fib_make(4096, 0);
		fib_flags = 0;
		struct ref r;
		struct route rt[3000];
		size_t n = sizeof(rt) / sizeof(rt[0]);

		rng_state = seed;
		assert_non_null(f);
		ref_init(&r);
		for (size_t k = 0; k < n; k++) {
			unsigned nh = pick_nh(4096);

			rt[k] = pick_route();
			both_add(f, &r, rt[k], nh);
			if (k % 500 == 0)
				check_all(f, &r, rt, k + 1, 200);
		}
		check_all(f, &r, rt, n, 20000);
		/* replace some, delete some */
		for (size_t k = 0; k < n; k++) {
			unsigned op = (unsigned)(rnd() % 3);

			if (op == 0) {
				both_add(f, &r, rt[k], pick_nh(4096));
			} else if (op == 1) {
				both_del(f, &r, rt[k]);
			}
			if (k % 500 == 0)
				check_all(f, &r, rt, n, 200);
		}
		check_all(f, &r, rt, n, 20000);
		/* delete everything: back to empty, every group freed */
		for (size_t k = 0; k < n; k++)
			both_del(f, &r, rt[k]);
		check_all(f, &r, rt, n, 2000);
		assert_int_equal(fwd_fib_count(f), 0);
		assert_int_equal(fwd_fib_tbl8_used(f), 0);
		ref_fini(&r);
		fib_done(f);
	}
}

#define A(a, b, c, d)                                    \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
	    ((uint32_t)(c) << 8) | (uint32_t)(d))

/*
 * Pins and the martian ranges against the reference, on random tables that
 * also put routes under them: pins come and go among route adds, replaces
 * and deletes; clear keeps them; every group goes when the last goes.
 */
static void
test_pins_random(void **state)
{
	(void)state;
	for (uint64_t seed = 11; seed <= 13; seed++) {
		struct fwd_fib *f;
		struct ref r;
		struct route rt[2000];
		size_t n = sizeof(rt) / sizeof(rt[0]);
		unsigned nh;

		fib_flags = FWD_FIB_F_MARTIAN |
		    (seed % 2 ? FWD_FIB_F_NO_SIMD : 0);
		f = fib_make(4096, 0);
		fib_flags = 0;
		want_martian = true;
		want_npin = 0;
		rng_state = seed;
		ref_init(&r);
		for (size_t k = 0; k < n; k++) {
			nh = pick_nh(4096);
			rt[k] = pick_route();
			both_add(f, &r, rt[k], nh);
			if (k % 20 == 0 && want_npin < 80) {
				/* a pin on a route's edge, its /32 or anywhere */
				uint32_t a = k % 60 == 0 ?
				    (uint32_t)rnd() :
				    rt[rnd() % (k + 1)].pfx;
				bool mart = (a >> 24) == 0 ||
				    (a >> 24) == 127 || a >= 0xe0000000u;
				int rv;

				nh = pick_nh(4096);
				rv = fwd_fib_pin(f, a, nh);
				if (mart) {
					assert_int_equal(rv, -EINVAL);
				} else {
					unsigned q;

					assert_int_equal(rv, 0);
					for (q = 0; q < want_npin &&
					     want_pin_addr[q] != a;
					     q++)
						;
					want_pin_addr[q] = a;
					want_pin_nh[q] = nh;
					if (q == want_npin)
						want_npin++;
				}
			}
			if (k % 400 == 0)
				check_all(f, &r, rt, k + 1, 200);
		}
		check_all(f, &r, rt, n, 20000);
		for (size_t k = 0; k < n; k++) {
			unsigned op = (unsigned)(rnd() % 4);

			if (op == 0) {
				both_add(f, &r, rt[k], pick_nh(4096));
			} else if (op == 1) {
				both_del(f, &r, rt[k]);
			} else if (op == 2 && want_npin > 0 && k % 8 == 0) {
				unsigned q = (unsigned)(rnd() % want_npin);

				assert_int_equal(fwd_fib_unpin(f,
						     want_pin_addr[q]),
				    0);
				assert_int_equal(fwd_fib_unpin(f,
						     want_pin_addr[q]),
				    -ENOENT);
				want_pin_addr[q] = want_pin_addr[--want_npin];
				want_pin_nh[q] = want_pin_nh[want_npin];
			}
			if (k % 400 == 0)
				check_all(f, &r, rt, n, 200);
		}
		check_all(f, &r, rt, n, 20000);
		/* clear: routes go, pins and martian ranges stay */
		fwd_fib_clear(f);
		ref_fini(&r);
		ref_init(&r);
		check_all(f, &r, rt, 0, 20000);
		for (unsigned q = 0; q < want_npin; q++) {
			assert_int_equal(fwd_fib_pin_get(f, want_pin_addr[q],
					     &nh),
			    0);
			assert_int_equal(nh, want_pin_nh[q]);
		}
		/* a default route does not reach the martian ranges */
		assert_int_equal(fwd_fib_add(f, 0, 0, 5), 0);
		ref_add(&r, 0, 0, 5);
		check_all(f, &r, rt, 0, 20000);
		assert_int_equal(fwd_fib_del(f, 0, 0), 0);
		ref_del(&r, 0, 0);
		while (want_npin > 0)
			assert_int_equal(fwd_fib_unpin(f,
					     want_pin_addr[--want_npin]),
			    0);
		check_all(f, &r, rt, 0, 2000);
		assert_int_equal(fwd_fib_tbl8_used(f), 0);
		want_martian = false;
		ref_fini(&r);
		fib_done(f);
	}
}

/* The pin's rules, one by one. */
static void
test_pins(void **state)
{
	struct fwd_fib *f;
	unsigned nh;

	(void)state;
	fib_flags = FWD_FIB_F_MARTIAN;
	f = fib_make(16, 0);
	fib_flags = 0;
	assert_int_equal(fwd_fib_add(f, 0xc6120000, 24, 1),
	    0); /* 198.18.0/24 */
	assert_int_equal(fwd_fib_pin(f, 0xc6120001, 9), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 9);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120002), 1);
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	/* routes under the pin: kept, not seen */
	assert_int_equal(fwd_fib_add(f, 0xc6120001, 32, 2), 0);
	assert_int_equal(fwd_fib_add(f, 0xc6120000, 30, 3), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 9);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120002), 3);
	assert_int_equal(fwd_fib_get(f, 0xc6120001, 32, &nh), 0);
	assert_int_equal(nh, 2);
	assert_int_equal(fwd_fib_count(f), 3);
	/* re-pin: the new next hop; bad input changes nothing */
	assert_int_equal(fwd_fib_pin(f, 0xc6120001, 10), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 10);
	assert_int_equal(fwd_fib_pin(f, 0xc6120001, 16), -EINVAL);
	assert_int_equal(fwd_fib_pin(f, 0x7f000001, 1), -EINVAL);
	assert_int_equal(fwd_fib_pin(f, 0xe0000005, 1), -EINVAL);
	assert_int_equal(fwd_fib_pin(f, 0x00000001, 1), -EINVAL);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 10);
	assert_int_equal(fwd_fib_unpin(f, 0xc6120009), -ENOENT);
	assert_int_equal(fwd_fib_pin_get(f, 0xc6120009, &nh), -ENOENT);
	/* unpin: the /32, then the /30, then the /24 take it back */
	assert_int_equal(fwd_fib_unpin(f, 0xc6120001), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 2);
	assert_int_equal(fwd_fib_pin(f, 0xc6120001, 11), 0);
	assert_int_equal(fwd_fib_del(f, 0xc6120001, 32), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 11);
	assert_int_equal(fwd_fib_del(f, 0xc6120000, 30), 0);
	/* the pin alone holds the group */
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	assert_int_equal(fwd_fib_unpin(f, 0xc6120001), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xc6120001), 1);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	/* martian ranges: routes there are kept but never looked up */
	assert_int_equal(fwd_fib_add(f, 0, 0, 4), 0);
	assert_int_equal(fwd_fib_add(f, 0xe0000000, 4, 5), 0);
	assert_int_equal(fwd_fib_add(f, 0x7f000080, 25, 6), 0);
	assert_int_equal(fwd_fib_add(f, 0x7f000080, 25, 7), 0); /* replace */
	assert_int_equal(fwd_fib_lookup(f, 0xe0000001), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_lookup(f, 0x7f000081), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_lookup(f, 0x00ffffff), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_lookup(f, 0x01000000), 4);
	assert_int_equal(fwd_fib_lookup(f, 0xdfffffff), 4);
	assert_int_equal(fwd_fib_lookup(f, 0x7effffff), 4);
	assert_int_equal(fwd_fib_lookup(f, 0x80000000), 4);
	/* the same ranges as the parser's fwd_ipv4_dst_martian (the slow
	 * path's reason): both ends of every /8, and random addresses */
	{
		uint64_t x = 0x9e3779b97f4a7c15ull;

		for (uint32_t a = 0; a < 256; a++) {
			uint32_t lo = a << 24, hi = lo | 0xffffff;

			assert_int_equal(fwd_fib_lookup(f, lo) ==
				FWD_FIB_NH_NONE,
			    fwd_ipv4_dst_martian(lo));
			assert_int_equal(fwd_fib_lookup(f, hi) ==
				FWD_FIB_NH_NONE,
			    fwd_ipv4_dst_martian(hi));
		}
		for (unsigned k = 0; k < 100000; k++) {
			uint32_t a;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a = (uint32_t)x;
			/* the 198.18/16 routes above are not martian */
			assert_int_equal(fwd_fib_lookup(f, a) ==
				FWD_FIB_NH_NONE,
			    fwd_ipv4_dst_martian(a));
		}
	}
	assert_int_equal(fwd_fib_get(f, 0x7f000080, 25, &nh), 0);
	assert_int_equal(nh, 7);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	assert_int_equal(fwd_fib_del(f, 0x7f000080, 25), 0);
	assert_int_equal(fwd_fib_del(f, 0xe0000000, 4), 0);
	assert_int_equal(fwd_fib_count(f), 2);
	/* the most pins a FIB holds */
	for (unsigned k = 0; k < FWD_FIB_PIN_MAX; k++)
		assert_int_equal(fwd_fib_pin(f, 0xc6130000 + k * 7, 1), 0);
	assert_int_equal(fwd_fib_pin(f, 0xc6140000, 1), -ENOSPC);
	fib_done(f);
	/* without the flag there is no martian range */
	f = fib_make(16, 0);
	assert_int_equal(fwd_fib_add(f, 0, 0, 4), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xe0000001), 4);
	assert_int_equal(fwd_fib_pin(f, 0x7f000001, 3), 0);
	assert_int_equal(fwd_fib_lookup(f, 0x7f000001), 3);
	fib_done(f);
}

static void
test_sequence(void **state)
{
	struct fwd_fib *f = fib_make(16, 0);
	unsigned nh;

	(void)state;
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 1)), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 15, 1), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 19, 255, 255)), 1);
	assert_int_equal(fwd_fib_lookup(f, A(198, 20, 0, 0)), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 0), 24, 2), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 128), 25, 3), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 200), 32, 4), 0);
	assert_int_equal(fwd_fib_count(f), 4);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 1)), 2);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 129)), 3);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 4);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 201)), 3);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 2, 1)), 1);
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	/* replace */
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 128), 25, 5), 0);
	assert_int_equal(fwd_fib_count(f), 4);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 129)), 5);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 4);
	assert_int_equal(fwd_fib_get(f, A(198, 18, 1, 128), 25, &nh), 0);
	assert_int_equal(nh, 5);
	/* delete the /25: the /24 shows through, /32 stays */
	assert_int_equal(fwd_fib_del(f, A(198, 18, 1, 128), 25), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 129)), 2);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 4);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 1, 128), 25), -ENOENT);
	/* delete the /24 under the /32: the /15 shows through */
	assert_int_equal(fwd_fib_del(f, A(198, 18, 1, 0), 24), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 129)), 1);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 4);
	/* the last long route gone: the group collapses */
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 1, 200), 32), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 1);
	/* default route and /0 delete */
	assert_int_equal(fwd_fib_add(f, 0, 0, 7), 0);
	assert_int_equal(fwd_fib_lookup(f, A(1, 2, 3, 4)), 7);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 1);
	assert_int_equal(fwd_fib_lookup(f, 0xffffffff), 7);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 0, 0), 15), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)), 7);
	assert_int_equal(fwd_fib_del(f, 0, 0), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)),
	    FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_count(f), 0);
	/* /32 at the very top and bottom of the space */
	assert_int_equal(fwd_fib_add(f, 0xffffffff, 32, 8), 0);
	assert_int_equal(fwd_fib_add(f, 0, 32, 9), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xffffffff), 8);
	assert_int_equal(fwd_fib_lookup(f, 0xfffffffe), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_lookup(f, 0), 9);
	assert_int_equal(fwd_fib_lookup(f, 1), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_add(f, 0x80000000, 1, 10), 0);
	assert_int_equal(fwd_fib_lookup(f, 0xfffffffe), 10);
	assert_int_equal(fwd_fib_lookup(f, 0x7fffffff), FWD_FIB_NH_NONE);
	fib_done(f);
}

static void
test_collapse_and_reuse(void **state)
{
	struct fwd_fib *f = fib_make(256, 0);
	size_t mem;

	(void)state;
	assert_int_equal(fwd_fib_add(f, A(11, 0, 0, 0), 8, 1), 0);
	mem = fwd_fib_memory(f);
	for (int round = 0; round < 50; round++) {
		for (unsigned k = 0; k < 100; k++)
			assert_int_equal(fwd_fib_add(f,
					     A(11, 0, k, 16 * (k % 16)), 28,
					     2 + k % 200),
			    0);
		assert_int_equal(fwd_fib_tbl8_used(f), 100);
		for (unsigned k = 0; k < 100; k++) {
			assert_int_equal(fwd_fib_lookup(f,
					     A(11, 0, k, 16 * (k % 16) + 3)),
			    2 + k % 200);
			assert_int_equal(fwd_fib_lookup(f,
					     A(11, 0, k,
						 (16 * (k % 16) + 16) & 0xff)),
			    1);
		}
		for (unsigned k = 0; k < 100; k++)
			assert_int_equal(fwd_fib_del(f,
					     A(11, 0, k, 16 * (k % 16)), 28),
			    0);
		assert_int_equal(fwd_fib_tbl8_used(f), 0);
		assert_int_equal(fwd_fib_reclaim(f), 0);
		for (unsigned k = 0; k < 100; k++)
			assert_int_equal(fwd_fib_lookup(f,
					     A(11, 0, k, 16 * (k % 16) + 3)),
			    1);
	}
	/* groups were reused: 100 touched, not 5000 */
	assert_true(fwd_fib_memory(f) <= mem + 101 * 512 + 65536);
	/* a /24 holding a long route keeps its group while the route stays,
	 * even when every entry has the same next hop */
	assert_int_equal(fwd_fib_add(f, A(11, 1, 0, 0), 25, 1), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	assert_int_equal(fwd_fib_add(f, A(11, 1, 0, 128), 25, 1), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	assert_int_equal(fwd_fib_del(f, A(11, 1, 0, 0), 25), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 1);
	assert_int_equal(fwd_fib_del(f, A(11, 1, 0, 128), 25), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	fib_done(f);
}

static int
sum_cb(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	uint64_t *s = arg;

	s[0]++;
	s[1] += pfx ^ (len << 3) ^ (nh << 7);
	return (0);
}

static void
test_errors(void **state)
{
	struct fwd_fib *f = fib_make(16, 2);
	struct fwd_fib_conf bad = {.max_nh = 0};
	uint64_t before[2] = {0}, after[2] = {0};
	unsigned nh = 99;

	(void)state;
	assert_null(fwd_fib_new(&bad));
	assert_int_equal(errno, EINVAL);
	bad.max_nh = FWD_FIB_MAX_NH + 1;
	assert_null(fwd_fib_new(&bad));
	assert_null(fwd_fib_new(NULL));

	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 16, 1), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 0), 25, 2), 0);
	fwd_fib_walk(f, sum_cb, before);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 33, 1), -EINVAL);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 1), 24, 1), -EINVAL);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 24, 16), -EINVAL);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 16, 16), -EINVAL);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 0, 0), 33), -EINVAL);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 0, 1), 16), -EINVAL);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 0, 0), 17), -ENOENT);
	assert_int_equal(fwd_fib_del(f, A(198, 0, 0, 0), 8), -ENOENT);
	assert_int_equal(fwd_fib_get(f, A(198, 18, 0, 0), 17, &nh), -ENOENT);
	assert_int_equal(fwd_fib_get(f, A(198, 18, 0, 1), 16, &nh), -EINVAL);
	assert_int_equal(nh, 99);
	/* max_tbl8 = 2: the third /24 with a long route is refused, unchanged */
	assert_int_equal(fwd_fib_add(f, A(198, 18, 2, 0), 26, 3), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 2, 64), 26, 3), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 3, 0), 26, 4), -ENOSPC);
	assert_int_equal(fwd_fib_get(f, A(198, 18, 3, 0), 26, &nh), -ENOENT);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 3, 1)), 1);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 2, 64), 26), 0);
	assert_int_equal(fwd_fib_del(f, A(198, 18, 2, 0), 26), 0);
	fwd_fib_walk(f, sum_cb, after);
	assert_memory_equal(before, after, sizeof(before));
	assert_int_equal(fwd_fib_count(f), 2);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 0, 1)), 1);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 1)), 2);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 129)), 1);
	/* the freed group serves the refused route now */
	assert_int_equal(fwd_fib_add(f, A(198, 18, 3, 0), 26, 4), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 3, 1)), 4);
	/* clear */
	fwd_fib_clear(f);
	assert_int_equal(fwd_fib_count(f), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 3, 1)), FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 3, 0), 26, 4), 0);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 3, 1)), 4);
	fib_done(f);

	/* 255 is "no route", never a next hop, whatever max_nh; a group's
	 * unrouted entries and a next hop above 255 come back right through
	 * the escape */
	f = fib_make(4096, 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 0, 0), 24, 300), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 1, 0), 25, 254), 0);
	assert_int_equal(fwd_fib_add(f, A(198, 18, 2, 0), 24, 255), -EINVAL);
	assert_int_equal(fwd_fib_pin(f, A(198, 18, 2, 1), 255), -EINVAL);
	assert_int_equal(fwd_fib_get(f, A(198, 18, 2, 0), 24, &nh), -ENOENT);
	assert_int_equal(fwd_fib_count(f), 2);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 0, 9)), 300);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 9)), 254);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 1, 200)),
	    FWD_FIB_NH_NONE);
	assert_int_equal(fwd_fib_lookup(f, A(198, 18, 2, 1)), FWD_FIB_NH_NONE);
	{
		uint32_t a[32];
		uint16_t out[32];

		for (unsigned i = 0; i < 32; i++)
			a[i] = A(198, 18, i % 3, 100 + i * 4);
		fwd_fib_lookup_burst(f, a, out, 32);
		for (unsigned i = 0; i < 32; i++)
			assert_int_equal(out[i], fwd_fib_lookup(f, a[i]));
	}
	fib_done(f);
}

struct walk_state {
	struct ref *r;
	size_t n;
};

static int
walk_cb(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	struct walk_state *w = arg;
	struct ref_node *n = w->r->root;

	/* each route once, with its next hop: take it out of the reference */
	for (unsigned i = 0; i < len && n != NULL; i++)
		n = n->child[(pfx >> (31 - i)) & 1];
	assert_non_null(n);
	assert_int_equal(n->nh, (int)nh);
	n->nh = -2;
	w->n++;
	return (w->n == 100000 ? 42 : 0);
}

static void
test_walk(void **state)
{
	struct fwd_fib *f = fib_make(4096, 0);
	struct ref r;
	struct walk_state w = {&r, 0};
	size_t n;

	(void)state;
	rng_state = 99;
	ref_init(&r);
	for (int k = 0; k < 2000; k++) {
		struct route rt = pick_route();
		unsigned nh = pick_nh(4096);

		assert_int_equal(fwd_fib_add(f, rt.pfx, rt.len, nh), 0);
		ref_add(&r, rt.pfx, rt.len, nh);
	}
	n = r.count;
	assert_int_equal(fwd_fib_walk(f, walk_cb, &w), 0);
	assert_int_equal(w.n, n);
	/* a nonzero return stops the walk and is passed back */
	w.n = 100000 - 10;
	ref_fini(&r);
	ref_init(&r);
	w.r = &r;
	fwd_fib_clear(f);
	for (int k = 0; k < 20; k++)
		assert_int_equal(fwd_fib_add(f,
				     0x0b000000u + ((uint32_t)k << 8), 24, 1),
		    0);
	for (int k = 0; k < 20; k++)
		ref_add(&r, 0x0b000000u + ((uint32_t)k << 8), 24, 1);
	assert_int_equal(fwd_fib_walk(f, walk_cb, &w), 42);
	assert_int_equal(w.n, 100000);
	ref_fini(&r);
	fib_done(f);
}

static void
test_stale(void **state)
{
	want_martian = false; /* a failed test may have left it */
	want_npin = 0;
	struct fwd_fib *f = fib_make(4096, 0);
	struct ref r;
	struct route rt[2000];
	size_t n = 2000, expect = 0;

	(void)state;
	rng_state = 7;
	ref_init(&r);
	for (size_t k = 0; k < n; k++) {
		rt[k] = pick_route();
		both_add(f, &r, rt[k], 1);
	}
	fwd_fib_mark_stale(f);
	/* re-push half (some with a new next hop, some unchanged) */
	for (size_t k = 0; k < n; k++) {
		if (k % 2 == 0)
			continue;
		unsigned nh = k % 4 == 1 ? 1 : 2;

		assert_int_equal(fwd_fib_add(f, rt[k].pfx, rt[k].len, nh), 0);
	}
	/* the reference: only the refreshed ones, with their last nh */
	ref_fini(&r);
	ref_init(&r);
	for (size_t k = 0; k < n; k++) {
		if (k % 2 == 0)
			continue;
		ref_add(&r, rt[k].pfx, rt[k].len, k % 4 == 1 ? 1 : 2);
	}
	expect = fwd_fib_count(f) - r.count;
	assert_true(expect > 0);
	assert_int_equal(fwd_fib_sweep_stale(f), expect);
	check_all(f, &r, rt, n, 20000);
	assert_int_equal(fwd_fib_sweep_stale(f), 0);
	/* a new add after the sweep is not stale */
	fwd_fib_mark_stale(f);
	fwd_fib_mark_stale(f);
	assert_int_equal(fwd_fib_sweep_stale(f), r.count);
	assert_int_equal(fwd_fib_count(f), 0);
	assert_int_equal(fwd_fib_tbl8_used(f), 0);
	ref_fini(&r);
	fib_done(f);
}

/*
 * Concurrency: a writer adds and deletes routes from a fixed universe under
 * 198.18.0.0/16 (many of them longer than /24, so tbl8 groups are made,
 * collapsed and reused all the time) while a reader looks up random addresses
 * there. The route 198.18.0.0/16 -> BASE_NH is always present, and route k
 * of the universe always has next hop k + 1, so for address a the only next
 * hops that were ever valid are BASE_NH and k + 1 for the routes k covering a
 * (0, what a fresh zeroed group holds, is never valid). A reused
 * group read too early, a torn update or a half-filled group shows up as a
 * next hop of a route that does not cover a, or as NONE.
 */
#define UNIV	200
#define REGION	0x3fffu /* 198.18.0.0-198.18.63.255: 64 /24s */
#define BASE_NH 1000

struct mt {
	struct fwd_fib *fib;
	struct route u[UNIV];
	volatile int stop;
	unsigned long lookups, bad;
	uint32_t bad_addr;
	unsigned bad_nh;
};

static void *
mt_reader(void *arg)
{
	struct mt *m = arg;
	struct fwd_qsbr_thread *t = fwd_qsbr_register(fwd_fib_qsbr(m->fib));
	uint64_t s = 12345;
	uint32_t a[32];
	uint16_t nh[32];

	assert_non_null(t);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 32; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			a[i] = 0xc6120000 | (uint32_t)((s >> 33) & REGION);
		}
		fwd_fib_lookup_burst(m->fib, a, nh, 32);
		for (int i = 0; i < 32; i++) {
			unsigned v = nh[i];
			bool ok = v == BASE_NH;

			if (v >= 1 && v <= UNIV) {
				const struct route *r = &m->u[v - 1];

				ok = ((a[i] ^ r->pfx) & mask(r->len)) == 0;
			}
			if (!ok) {
				m->bad++;
				m->bad_addr = a[i];
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

	(void)state;
	assert_non_null(m);
	m->fib = fib_make(1024, 0);
	rng_state = 4242;
	for (int k = 0; k < UNIV; k++) {
		unsigned len = 20 + (unsigned)(rnd() % 13); /* 20..32 */

		if (len < 22)
			len = 25 + (unsigned)(rnd() % 8);
		/* about one long route per /24 present at a time, so
		 * groups are made, folded and reused all the time */
		m->u[k].len = len;
		m->u[k].pfx = (0xc6120000 | (uint32_t)(rnd() & REGION)) &
		    mask(len);
	}
	assert_int_equal(fwd_fib_add(m->fib, 0xc6120000, 16, BASE_NH), 0);
	assert_int_equal(pthread_create(&th, NULL, mt_reader, m), 0);
	for (int op = 0; op < 300000; op++) {
		unsigned k = (unsigned)(rnd() % UNIV);
		int rv;

		if (!in[k]) {
			rv = fwd_fib_add(m->fib, m->u[k].pfx, m->u[k].len,
			    k + 1);
			assert_int_equal(rv, 0);
			/* duplicates in the universe share a prefix: mark
			 * all of them present with the last next hop */
			for (int j = 0; j < UNIV; j++)
				if (m->u[j].pfx == m->u[k].pfx &&
				    m->u[j].len == m->u[k].len)
					in[j] = (unsigned)j == k;
			in[k] = true;
		} else {
			rv = fwd_fib_del(m->fib, m->u[k].pfx, m->u[k].len);
			assert_int_equal(rv, 0);
			in[k] = false;
		}
	}
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (m->bad != 0)
		fail_msg("%lu of %lu lookups saw an invalid next hop "
			 "(e.g. %08x -> %u)",
		    m->bad, m->lookups, m->bad_addr, m->bad_nh);
	assert_true(m->lookups > 0);
	fib_done(m->fib);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_collapse_and_reuse),
	    cmocka_unit_test(test_walk),
	    cmocka_unit_test(test_lpm_random),
	    cmocka_unit_test(test_pins),
	    cmocka_unit_test(test_pins_random),
	    cmocka_unit_test(test_stale),
	    cmocka_unit_test(test_concurrent),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
