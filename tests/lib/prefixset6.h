/* tests/lib/prefixset6.h: a synthetic IPv6 full table (1M prefixes, realistic length mix) and address streams. */
#ifndef TT_PREFIXSET6_H
#define TT_PREFIXSET6_H

#include <stddef.h>
#include <stdint.h>

#include "tests/lib/prefixset.h" /* struct tt_rng */

/*
 * n IPv6 prefixes for in-memory FIB tests and benchmarks (never put on a
 * network: traffic in tests uses 2001:2::/48 only; a FIB's test set may hold
 * any prefixes). Drawn from the RIRs' allocated space (2001::/16, 2400::/12,
 * 2600::/12, 2800::/12, 2a00::/12, 2c00::/12) with a length mix like the
 * global table's (per million: /48 517k, /32 120k, /44 80k, /40 55k, /29
 * 40k, /46 25k, /36 25k, /47 22k, /64 15k, /42 and /45 12k, /56 12k, /128
 * 5k, 28 other lengths 0.01-0.6% each, up to /128: 54 lengths).
 * Prefixes of /32 and shorter are the "allocations": placed at random
 * (a third nested under a shorter one). Each longer prefix lies under an
 * allocation (drawn with a skew, so some hold thousands and most a few)
 * and, 80% of the time, in one of that allocation's four "site blocks"
 * (/40s), as PI assignments and an ISP's deaggregates cluster; all
 * distinct; next hops 0..255; random order. The same (n, seed) always
 * gives the same set.
 */

#define TT_PFX6_SEED 0x7465726e2d666936ull
#define TT_PFX6_FULL 1000000
#define TT_PFX6_NNH  256

struct tt_prefix6 {
	uint8_t addr[16]; /* network order, host bits clear */
	uint8_t len;
	uint16_t nh;
};

struct tt_prefixset6 {
	struct tt_prefix6 *p;
	size_t n;
	size_t count_len[129];
	uint64_t seed;
};

/* 0; -EINVAL (n == 0 or > 4,000,000); -ENOMEM. */
int tt_prefixset6_gen(struct tt_prefixset6 *, size_t n, uint64_t seed);
void tt_prefixset6_free(struct tt_prefixset6 *);

/* 128-bit addresses in host order, for generators and references */
typedef unsigned __int128 tt_u128;
tt_u128 tt_a6_get(const uint8_t a[16]);
void tt_a6_put(tt_u128, uint8_t a[16]);
tt_u128 tt_a6_mask(unsigned len); /* len 0..128 */

enum tt_addr6_kind {
	TT_ADDR6_MATCH,	  /* random address inside a random table prefix */
	TT_ADDR6_UNIFORM, /* uniform in the allocated space above */
};

/* out: n addresses of 16 bytes. 0, -EINVAL. */
int tt_addrs6_gen(const struct tt_prefixset6 *, enum tt_addr6_kind,
    uint8_t *out, size_t n, uint64_t seed);
const char *tt_addr6_kind_name(enum tt_addr6_kind);

#endif /* TT_PREFIXSET6_H */
