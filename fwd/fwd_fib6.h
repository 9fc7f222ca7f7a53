/* fwd/fwd_fib6.h: the IPv6 forwarding table (a multibit trie: 24-bit first level, then 8-bit strides). */
#ifndef FWD_FIB6_H
#define FWD_FIB6_H

#include <stddef.h>
#include <stdint.h>

#include "fwd_qsbr.h"

/*
 * Threads and reclamation: as fwd_fib.h. One control thread calls every
 * function below except the lookups; any number of workers look up
 * concurrently, without locks, registered with fwd_fib6_qsbr() and
 * passing fwd_qsbr_quiescent() between bursts. A lookup concurrent with an
 * update returns the old or the new next hop of the address.
 *
 * Layout (docs/fib.md, "IPv6"): tbl24 has 2^24 four-byte entries indexed
 * by the address's first 24 bits; then up to 13 levels of groups of 256
 * four-byte entries, one level per further byte of the address (so a /48
 * is found in 4 reads, a /64 in 6, a /128 in 14). An entry with bit 31
 * clear is a next hop: bits 0-15 the next-hop index (FWD_FIB6_NH_NONE: no
 * route), bits 16-23 the control side's depth. An entry with bit 31 set
 * names group g in bits 8-30 (g < 2^23), its depth in bits 0-7: the next
 * read is tbl8[(e & FWD_FIB6_G_OFF) + byte], one AND as the bare group
 * number's shift would be. Groups are reserved virtually: only those ever
 * used cost memory.
 *
 * Addresses are 16 bytes in network order (struct in6_addr's s6_addr).
 */

#define FWD_FIB6_NH_NONE 0xffffu     /* what a lookup returns when no route */
#define FWD_FIB6_MAX_NH	 0xffffu     /* largest max_nh (nh 0..0xfffe) */
#define FWD_FIB6_G_BIT	 0x80000000u /* an entry that names a group */
#define FWD_FIB6_G_OFF	 0x7fffff00u /* group g's first entry: g << 8 */
#define FWD_FIB6_MAX_G	 (1u << 23)  /* group numbers 0..2^23-1 */

/* fwd_fib6_conf.flags */
#define FWD_FIB6_F_NO_THP 0x1u /* do not ask for transparent huge pages */

struct fwd_fib6;

struct fwd_fib6_conf {
	unsigned max_nh;       /* next-hop indices 0..max_nh-1; 1..0xffff */
	unsigned max_tbl8;     /* cap on groups; 0 = 2^22 (4 GiB reserved) */
	struct fwd_qsbr *qsbr; /* NULL: the FIB makes its own */
	unsigned flags;	       /* FWD_FIB6_F_* */
};

/* The data-plane view; the first member of struct fwd_fib6. Internal. */
struct fwd_fib6_dp {
	const uint32_t *tbl24; /* 2^24 entries */
	const uint32_t *tbl8;  /* group g at tbl8 + (g << 8) */
};

/* NULL + errno: EINVAL (bad conf), ENOMEM. */
struct fwd_fib6 *fwd_fib6_new(const struct fwd_fib6_conf *);
void fwd_fib6_free(struct fwd_fib6 *);

/* Add or replace pfx/len -> nh. 0; -EINVAL (len > 128, host bits set,
 * nh >= max_nh, nh == FWD_FIB6_NH_NONE); -ENOSPC (no group left);
 * -ENOMEM. On error nothing changed. Clears the route's stale mark. */
int fwd_fib6_add(struct fwd_fib6 *, const uint8_t pfx[16], unsigned len,
    unsigned nh);
/* 0; -ENOENT (no such route); -EINVAL (len > 128, host bits set); -ENOMEM.
 * Addresses of the route fall back to the longest covering route. */
int fwd_fib6_del(struct fwd_fib6 *, const uint8_t pfx[16], unsigned len);
/* Exact match (control side). 0 and *nh; -ENOENT; -EINVAL. */
int fwd_fib6_get(const struct fwd_fib6 *, const uint8_t pfx[16], unsigned len,
    unsigned *nh);

/* Number of routes. */
size_t fwd_fib6_count(const struct fwd_fib6 *);
/* Bytes: tbl24 and its depths, groups ever used (entries, depths,
 * counters), the route hash table. */
size_t fwd_fib6_memory(const struct fwd_fib6 *);
/* Groups in use now (diagnostics, tests). */
size_t fwd_fib6_tbl8_used(const struct fwd_fib6 *);
/* Calls cb once per route, in no particular order; stops and returns cb's
 * value when nonzero; else 0. cb must not modify the FIB. */
int fwd_fib6_walk(const struct fwd_fib6 *,
    int (*cb)(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg),
    void *arg);
/* Delete every route. */
void fwd_fib6_clear(struct fwd_fib6 *);

/* Resync: as fwd_fib_mark_stale / fwd_fib_sweep_stale. */
void fwd_fib6_mark_stale(struct fwd_fib6 *);
size_t fwd_fib6_sweep_stale(struct fwd_fib6 *);

/* Prefetch the hash slot and tbl24 entry an update of pfx/len touches. */
void fwd_fib6_prefetch(const struct fwd_fib6 *, const uint8_t pfx[16],
    unsigned len);

struct fwd_qsbr *fwd_fib6_qsbr(const struct fwd_fib6 *);
/* Reclaim groups whose grace period ended; returns how many still wait. */
size_t fwd_fib6_reclaim(struct fwd_fib6 *);

/*
 * An entry read exactly once (the control thread writes while we read),
 * with one load instruction addressed as the compiler likes: in an asm
 * volatile, as fwd_fib_read8_ (fwd_fib.h) for the IPv4 byte view. A
 * volatile C access made GCC compute each address with an lea first, and
 * __atomic_load_n(RELAXED) made it reload the table pointers in loops.
 */
static inline uint32_t
fwd_fib6_read32_(const uint32_t *p)
{
	uint32_t v;

#if defined(__x86_64__)
	__asm__ volatile("movl %1, %0" : "=r"(v) : "m"(*p));
#elif defined(__aarch64__)
	__asm__ volatile("ldr %w0, %1" : "=r"(v) : "Q"(*p));
#else
	v = *(const volatile uint32_t *)p;
#endif
	return (v);
}
#define FWD_FIB6_READ_(x) fwd_fib6_read32_(&(x))

static inline uint32_t
fwd_fib6_top24_(const uint8_t *a)
{
	return (((uint32_t)a[0] << 16) | ((uint32_t)a[1] << 8) | a[2]);
}

/* Longest-prefix match of dst: the next-hop index or FWD_FIB6_NH_NONE.
 * The group read depends on the entry read (address dependency), and the
 * writer fills a group before it publishes it (release). */
/* One group level, unrolled (no byte counter, the index added in 64 bits
 * so no zero-extension, the load addressed from it): 6 instructions a
 * level instead of the loop's 10 (bench-fastpath, fastpath6). */
#define FWD_FIB6_STEP_(k)                                                 \
	do {                                                              \
		if (!(e & FWD_FIB6_G_BIT))                                \
			return (e & 0xffff);                              \
		e = FWD_FIB6_READ_(                                       \
		    tbl8[(size_t)(e & FWD_FIB6_G_OFF) + (size_t)dst[k]]); \
	} while (0)

static inline unsigned
fwd_fib6_lookup(const struct fwd_fib6 *fib, const uint8_t dst[16])
{
	const struct fwd_fib6_dp *dp = (const struct fwd_fib6_dp *)fib;
	const uint32_t *tbl8 = dp->tbl8;
	uint32_t e = FWD_FIB6_READ_(dp->tbl24[fwd_fib6_top24_(dst)]);

	FWD_FIB6_STEP_(3);
	FWD_FIB6_STEP_(4);
	FWD_FIB6_STEP_(5);
	FWD_FIB6_STEP_(6);
	FWD_FIB6_STEP_(7);
	FWD_FIB6_STEP_(8);
	FWD_FIB6_STEP_(9);
	FWD_FIB6_STEP_(10);
	FWD_FIB6_STEP_(11);
	FWD_FIB6_STEP_(12);
	FWD_FIB6_STEP_(13);
	FWD_FIB6_STEP_(14);
	FWD_FIB6_STEP_(15);
	/* byte 15's group holds the /121../128 entries: never a group */
	return (e & 0xffff);
}

#ifndef FWD_FIB6_PREFETCH_AHEAD
#define FWD_FIB6_PREFETCH_AHEAD 8
#endif
#ifndef FWD_FIB6_BURST_MAX
#define FWD_FIB6_BURST_MAX 64
#endif

/* nh[i] = fwd_fib6_lookup(fib, dst + 16 * i) for i < n. tbl24 entries are
 * prefetched FWD_FIB6_PREFETCH_AHEAD addresses ahead; then the addresses
 * that go on into groups are looked up level by level, every one's next
 * entry prefetched before any is read, so the cache misses of a burst
 * overlap at each level. */
void fwd_fib6_lookup_burst(const struct fwd_fib6 *, const uint8_t *dst,
    uint16_t *nh, unsigned n);

#endif /* FWD_FIB6_H */
