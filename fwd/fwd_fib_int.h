/* fwd/fwd_fib_int.h: private layout of the FIB, shared by fwd_fib*.c. */
#ifndef FWD_FIB_INT_H
#define FWD_FIB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_fib.h"

/* Control-side path-compressed binary trie node: 16 bytes, 32-bit indices
 * (0 = none) into chunked storage. A node without FIB_N_ROUTE always has two
 * children (a branch point). */
struct fib_node {
	uint32_t pfx;
	uint8_t len;
	uint8_t flags;
	uint16_t nh;
	uint32_t child[2];
};

#define FIB_N_ROUTE 0x1
#define FIB_N_STALE 0x2

#define FIB_CHUNK_SHIFT 14
#define FIB_CHUNK_NODES (1u << FIB_CHUNK_SHIFT)

#define FIB_TBL24_ENTRIES (1u << 24)
#define FIB_GROUP_ENTRIES 256u
#define FIB_NONE_GROUP	  0xffffu

struct fib_pending {
	uint64_t tok;
	uint32_t g;
};

struct fwd_fib {
	struct fwd_fib_dp dp;	/* must be first: the inline lookups use it */
	uint16_t *tbl24;
	uint16_t *tbl8;		/* group g at tbl8 + (g << 8), g < 0x10000 */
	void *tbl24_map;
	size_t tbl24_map_len;
	size_t tbl8_map_len;
	unsigned max_nh;
	unsigned flags;

	/* tbl8 groups: values [g_first, g_end) are groups; FIB_NONE_GROUP
	 * (0xffff) is NONE, never a group. */
	unsigned g_first, g_end, g_hwm;
	uint32_t *g_free;	/* stack of reusable groups */
	unsigned g_nfree, g_free_cap;
	struct fib_pending *pend;	/* FIFO ring of groups in grace period */
	unsigned pend_head, pend_n, pend_cap;
	size_t g_inuse;		/* groups referenced by tbl24 */

	/* control trie */
	uint32_t root;
	struct fib_node **chunk;
	unsigned nchunks, chunk_cap;
	uint32_t n_next;	/* next never-used node index (0 is reserved) */
	uint32_t n_free;	/* free list through child[0] */
	size_t nroutes;

	struct fwd_qsbr *qsbr;
	bool own_qsbr;
};

static inline struct fib_node *
fib_node(const struct fwd_fib *fib, uint32_t i)
{
	return (&fib->chunk[i >> FIB_CHUNK_SHIFT][i & (FIB_CHUNK_NODES - 1)]);
}

static inline uint32_t
fib_mask(unsigned len)
{
	return (len == 0 ? 0 : ~(uint32_t)0 << (32 - len));
}

/* bit `pos` (0 = most significant) of x, pos < 32 */
static inline unsigned
fib_bit(uint32_t x, unsigned pos)
{
	return ((x >> (31 - pos)) & 1);
}

#endif /* FWD_FIB_INT_H */
