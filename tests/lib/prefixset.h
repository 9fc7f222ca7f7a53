/* tests/lib/prefixset.h: the standard synthetic full table and address streams (BENCHMARKS.md). */
#ifndef TT_PREFIXSET_H
#define TT_PREFIXSET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The standard prefix set: n IPv4 prefixes with the BGP-like length mix of
 * shared/design/BENCHMARKS.md (/24 61.2%, /22 12.6%, /23 10.4%, /21 5.05%,
 * /20 4.35%, /19 2.45%, /16 1.36%, /18 1.35%, /17 0.79%, /8-/15 0.48% with
 * more of the longer ones), about half nested under a shorter prefix of the
 * set, none overlapping a bogon (0/8, 10/8, 127/8, 169.254/16, 172.16/12,
 * 192.168/16, 198.18/15, 224/3), next hops 0..255, all distinct, in a random
 * order (the order routes are added in). The same (n, seed, flags) always
 * gives the same set, on every machine.
 *
 * TT_PFX_LONG adds 5% of n more prefixes of /25-/32 (uniform over those
 * lengths; half nested, like the others): n * 1.05 prefixes in all.
 */

#define TT_PFX_SEED 0x7465726e2d666962ull /* the standard seed */
#define TT_PFX_FULL 1000000		  /* the standard size */
#define TT_PFX_NNH  256
/* fwd's FIB keeps next-hop index 255 for "no route" (FWD_FIB_NH_NONE):
 * tt_prefixset_fib_nh renumbers a set's next hop 255 to TT_PFX_NNH, so a
 * FIB of the set takes max_nh TT_PFX_FIB_NNH (256 next hops still, two of
 * them, 254 and 256, above the FIB's byte view). */
#define TT_PFX_FIB_NNH (TT_PFX_NNH + 1)

#define TT_PFX_LONG 0x1u /* flags: the "long" variant */

struct tt_prefix {
	uint32_t addr; /* host order, host bits clear */
	uint8_t len;
	uint16_t nh; /* 0..TT_PFX_NNH-1 */
};

struct tt_prefixset {
	struct tt_prefix *p; /* n prefixes */
	size_t n;
	size_t nested; /* how many lie inside another of the set */
	size_t nlong;  /* how many are longer than /24 */
	uint64_t seed;
	unsigned flags;
};

/* Small deterministic PRNG (xoshiro256**, seeded through splitmix64). */
struct tt_rng {
	uint64_t s[4];
};
void tt_rng_seed(struct tt_rng *, uint64_t seed);
uint64_t tt_rng_next(struct tt_rng *);
/* uniform in [0, bound), bound > 0 */
uint64_t tt_rng_below(struct tt_rng *, uint64_t bound);

/* Generate the set (n standard prefixes, plus 5% long ones with TT_PFX_LONG).
 * 0, -EINVAL (n == 0, n > 4,000,000, unknown flags), -ENOMEM. */
int tt_prefixset_gen(struct tt_prefixset *, size_t n, uint64_t seed,
    unsigned flags);
void tt_prefixset_free(struct tt_prefixset *);

/* One line per prefix, "a.b.c.d/len nh\n". 0 or -errno (write error). */
int tt_prefixset_write(const struct tt_prefixset *, FILE *);

/* true if pfx/len overlaps a bogon range */
int tt_prefix_is_bogon(uint32_t addr, unsigned len);

enum tt_addr_kind {
	TT_ADDR_MATCH,	 /* random address inside a random table prefix */
	TT_ADDR_UNIFORM, /* uniform random 32-bit */
	/* 128 addresses (inside table prefixes), drawn at random */
	TT_ADDR_HOT128,
};

/* Fill out[0..n) with the stream (host order). 0, -EINVAL (MATCH or HOT128
 * on an empty set, unknown kind). */
int tt_addrs_gen(const struct tt_prefixset *, enum tt_addr_kind, uint32_t *out,
    size_t n, uint64_t seed);
const char *tt_addr_kind_name(enum tt_addr_kind);
void tt_prefixset_fib_nh(struct tt_prefixset *);

#endif /* TT_PREFIXSET_H */
