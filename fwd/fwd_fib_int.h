/* fwd/fwd_fib_int.h: private layout of the FIB, shared by fwd_fib*.c. */
#ifndef FWD_FIB_INT_H
#define FWD_FIB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_fib.h"
#include "fwd_grp.h"
#include "libcommon/lc_seg.h"

#define FIB_TBL24_ENTRIES (1u << 24)
#define FIB_GROUP_ENTRIES 256u
#define FIB_NONE	  FWD_FIB_T_NONE /* no route in tbl24/tbl8, never a group */
#define FIB_NGROUP_VALUES 0x10000u /* tbl8/dep8 reserve one slot per value */
/*
 * depth of a pinned entry: above any route's (1 + 32), so no route's
 * paint reaches it
 */
#define FIB_D_PIN 34u

/*
 * Control state, never read by the lookups:
 * - the routes: an open-addressing hash table of 8-byte entries (prefix,
 *   length, next hop, stale mark), so exact match, add and delete cost one
 *   probe sequence instead of a walk down a trie (a 1M-route trie walk is
 *   ~10 cache misses per update; this is 1-2);
 * - dep24[i]: 1 + the length of the longest route of /24 or shorter covering
 *   /24 number i (0: none);
 * - dep8[g][e]: 1 + the length of the route that entry e of group g holds
 *   (0: none);
 * - glong[g]: how many routes longer than /24 lie in group g's /24; the group
 *   is folded back into one tbl24 entry when this reaches 0.
 * An add writes the entries of its range whose depth is <= its own; a
 * delete writes the entries whose depth is its own with the covering route
 * (the longest shorter route, found by probing each length that has routes).
 * Pins: a pinned entry has depth FIB_D_PIN, which no paint touches: dep24
 * over the martian ranges (FWD_FIB_F_MARTIAN; tbl24 NONE there, never a
 * group: routes longer than /24 in them live in the hash table only) and
 * dep8 at a /32 pin (its group counts the pin in glong, so it is not folded
 * while pinned).
 */

/* hash entry: bits 0-31 prefix, 32-37 length, 38 stale, 39 used, 48-63 nh */
#define FIB_E_USED    (1ull << 39)
#define FIB_E_STALE   (1ull << 38)
#define FIB_E_KEYMASK 0x3fffffffffull /* prefix and length */

/* The control state beside the tables that outlives the process with them
 * (a shared FIB's meta region): the FIB's shape, then what routes and pins
 * change. */
struct fib_state {
	uint32_t max_nh, flags, ng; /* as made: adopt checks them */
	uint32_t ht_log2;	    /* the route hash's capacity */
	uint64_t ht_n;
	uint32_t len_count[33];
	uint32_t npin; /* /32 pins (few: the router's own addresses) */
	struct {
		uint32_t addr;
		uint16_t nh;
	} pin[FWD_FIB_PIN_MAX];
};

struct fwd_fib {
	struct fwd_fib_dp dp; /* must be first: the inline lookups use it */
	/* the byte view (fwd_fib.h), kept by fib_store24 */
	uint8_t *tbl24b;
	uint16_t *tbl24;
	uint16_t *tbl8; /* group g at tbl8 + (g << 8), g < 0x10000 */
	uint8_t *dep24;
	uint8_t *dep8; /* group g at dep8 + (g << 8) */
	uint16_t *glong;
	void *tbl24_map, *dep24_map, *tbl8_map, *dep8_map; /* lc_huge_map */
	size_t tbl24_map_len, dep24_map_len, tbl8_map_len, dep8_map_len;
	void *tbl24b_map;
	size_t tbl24b_map_len;
	unsigned max_nh;
	unsigned flags;

	/* tbl8 groups: values [max_nh, max_nh + groups), their reuse after a
	 * grace period; inuse: referenced by tbl24 */
	struct fwd_grp grp;

	/* routes */
	uint64_t *ht; /* lc_huge_map()ed: huge pages at 1M routes */
	void *ht_map;
	size_t ht_map_len;
	size_t ht_mask;	   /* capacity - 1 (power of two) */
	unsigned ht_shift; /* 64 - log2(capacity) */

	/* the rest of the control state: own, or in the segment */
	struct fib_state *st;
	struct fib_state *st_own;

	struct fwd_qsbr *qsbr;
	bool own_qsbr;

	/* FWD_FIB_F_SHARED: every table in seg (FIB_R_* regions) */
	struct lc_seg *seg;
};

bool fwd_fib_simd_supported(void);

static inline uint32_t
fib_mask(unsigned len)
{
	return (len == 0 ? 0 : ~(uint32_t)0 << (32 - len));
}

#endif /* FWD_FIB_INT_H */
