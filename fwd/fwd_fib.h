/* fwd/fwd_fib.h: the IPv4 forwarding table (DIR-24-8 longest-prefix match). */
#ifndef FWD_FIB_H
#define FWD_FIB_H

#include <stddef.h>
#include <stdint.h>

#include "fwd_qsbr.h"

/*
 * Threads: one control thread calls every function below except the two
 * lookups (add, del, get, walk, clear, stale marking are NOT thread-safe
 * against each other). Any number of worker threads call fwd_fib_lookup and
 * fwd_fib_lookup_burst concurrently with the control thread, without locks.
 * A lookup concurrent with an update returns either the old or the new next
 * hop of the address, never anything else.
 *
 * Reclamation: a tbl8 group that an update frees is reused only after every
 * reader registered with the FIB's qsbr (fwd_fib_qsbr()) has passed a
 * quiescent point: each worker registers once (fwd_qsbr_register) and calls
 * fwd_qsbr_quiescent() between bursts, fwd_qsbr_offline() before sleeping.
 * A worker that looks up without being registered is unsafe.
 *
 * Layout: tbl24 has 2^24 two-byte entries. A value below max_nh is a next-hop
 * index; 0xffff (FWD_FIB_T_NONE) is "no route"; a value max_nh <= v < 0xffff
 * names tbl8 group v (256 two-byte entries, each a next-hop index or
 * FWD_FIB_T_NONE). So (0xffff - max_nh) groups are available, more than
 * rte_fib's 2^15 for any max_nh < 32768. The tbl8 space is reserved virtually
 * (MAP_NORESERVE): only touched groups cost memory.
 *
 * Lookups read a byte view of tbl24 first (tbl24b, 16 MiB against 32: a
 * random lookup on a big table misses the CPU cache less often): a byte
 * below FWD_FIB_B_ESC is the next hop itself, FWD_FIB_NH_NONE (255) is "no
 * route", FWD_FIB_B_ESC sends the lookup to tbl24 (next hops >= 254 and
 * groups). A table whose next hops are below 254 is looked up in one read
 * of 16 MiB, and the byte read is the result: no route is 255 in the byte
 * view and in the API alike, so next-hop index 255 is not a next hop.
 */

/* The byte view's escape. tern-fwd's fast path uses a byte as an adjacency
 * index, so fwd_adj never hands out this index, nor FWD_FIB_NH_NONE. */
#define FWD_FIB_B_ESC 0xfeu /* read tbl24 */

/* What a lookup returns when no route matches; never a next hop (add and
 * pin refuse it). Equal to the byte view's code for it, so the lookup
 * returns the byte it read: turning 255 into a 16-bit 0xffff took a
 * compare and a conditional move on the value every lookup waits for
 * (measured in one process, docs/fib.md: +16-21% single lookups without). */
#define FWD_FIB_NH_NONE 0xffu
#define FWD_FIB_T_NONE	0xffffu /* tbl24/tbl8's "no route" (internal) */
#define FWD_FIB_MAX_NH	0xff00u /* largest max_nh (leaves >= 255 groups) */

/* fwd_fib_conf.flags */
#define FWD_FIB_F_NO_THP  0x1u /* do not ask for transparent huge pages */
#define FWD_FIB_F_NO_SIMD 0x2u /* scalar bursts even where AVX-512 exists */
/*
 * lookups in 0/8, 127/8 and 224/3 give FWD_FIB_NH_NONE whatever the
 * routes (RFC 1812 5.3.7): the fast path then needs no test of its
 * own for them
 */
#define FWD_FIB_F_MARTIAN 0x4u
/*
 * Every table and the control state in one shared memory segment
 * (libcommon/lc_seg.h) whose fd (fwd_fib_seg_fd) the caller keeps in
 * rtrmgr's fd store, so that the next tern-fwd adopts the FIB whole
 * (fwd_fib_adopt) after a crash (issue 26). At most 6M routes.
 */
#define FWD_FIB_F_SHARED 0x8u

/* Most /32 pins (fwd_fib_pin) a FIB holds. */
#define FWD_FIB_PIN_MAX 256

struct fwd_fib;

struct fwd_fib_conf {
	/*
	 * next-hop indices 0..max_nh-1 but 255 (FWD_FIB_NH_NONE), e.g. 4096;
	 * 1..FWD_FIB_MAX_NH
	 */
	unsigned max_nh;
	unsigned max_tbl8; /* cap on tbl8 groups; 0 = largest possible */
	/*
	 * readers' qsbr; NULL: the FIB makes its own (not owned by the FIB
	 * when given)
	 */
	struct fwd_qsbr *qsbr;
	unsigned flags; /* FWD_FIB_F_* */
};

/* The data-plane view; the first member of struct fwd_fib. Internal to the
 * inline lookups below: do not use it elsewhere. */
struct fwd_fib_dp {
	const uint8_t *tbl24b; /* 2^24 bytes: the byte view of tbl24 */
	const uint16_t *tbl24; /* 2^24 entries */
	const uint16_t *tbl8;  /* group v at tbl8 + (v << 8) */
	unsigned nh_limit;     /* == max_nh */
	/* 0xffff - max_nh: v is a group iff v - nh_limit < g_span (unsigned) */
	unsigned g_span;
	/* use fwd_fib_lookup_burst_simd_ for bursts of 16 or more */
	unsigned simd;
	unsigned martian; /* FWD_FIB_F_MARTIAN was given */
};

/* Internal: the AVX-512 burst (fwd_fib_simd.c). */
void fwd_fib_lookup_burst_simd_(const struct fwd_fib *, const uint32_t *dst,
    uint16_t *nh, unsigned n);

/* NULL + errno: EINVAL (bad conf), ENOMEM. */
struct fwd_fib *fwd_fib_new(const struct fwd_fib_conf *);
/*
 * The FIB a previous process made with FWD_FIB_F_SHARED and the same conf
 * (max_nh, max_tbl8, flags), from its segment's fd (which stays the
 * caller's): routes, pins and tables as they were after its last whole
 * update; the tbl8 groups' free list rebuilt from tbl24. NULL and err:
 * -EPROTO (not such a FIB, another layout or conf: err says which),
 * -EAGAIN (its writer died in the middle of an update: nothing is
 * trusted), -ENOMEM.
 */
struct lc_err;
struct fwd_fib *fwd_fib_adopt(const struct fwd_fib_conf *, int fd,
    struct lc_err *err);
/* A shared FIB's segment fd (the FIB's own; dup it to keep it), else -1. */
int fwd_fib_seg_fd(const struct fwd_fib *);
void fwd_fib_free(struct fwd_fib *);

/* Add or replace pfx/len (host order) -> nh. 0; -EINVAL (len > 32, host bits
 * set, nh >= max_nh, nh == FWD_FIB_NH_NONE); -ENOSPC (no tbl8 group left);
 * -ENOMEM. On error nothing changed. Clears the route's stale mark. */
int fwd_fib_add(struct fwd_fib *, uint32_t pfx, unsigned len, unsigned nh);
/* 0; -ENOENT (no such route); -EINVAL (len > 32, host bits set).
 * Addresses of the route fall back to the longest covering route. */
int fwd_fib_del(struct fwd_fib *, uint32_t pfx, unsigned len);
/* Exact match (control side). 0 and *nh; -ENOENT; -EINVAL. */
int fwd_fib_get(const struct fwd_fib *, uint32_t pfx, unsigned len,
    unsigned *nh);
/*
 * Pins: addr/32 looks up nh whatever the routes, until fwd_fib_unpin (the
 * router's own addresses -> a LOCAL adjacency, so the fast path finds them
 * with the route lookup it does anyway). Routes are kept under a pin (add,
 * replace, delete, get and walk see them as usual) and take the address
 * back when the pin goes. Pins are not routes: fwd_fib_count, walk, clear
 * and the stale sweep leave them alone.
 * fwd_fib_pin: 0 (a pin of addr already there just gets nh); -EINVAL (nh >=
 * max_nh, addr in a FWD_FIB_F_MARTIAN range); -ENOSPC (FWD_FIB_PIN_MAX pins,
 * or no tbl8 group left); -ENOMEM. On error nothing changed.
 * fwd_fib_unpin: 0; -ENOENT. */
int fwd_fib_pin(struct fwd_fib *, uint32_t addr, unsigned nh);
int fwd_fib_unpin(struct fwd_fib *, uint32_t addr);
/* The pin of addr: 0 and *nh; -ENOENT. */
int fwd_fib_pin_get(const struct fwd_fib *, uint32_t addr, unsigned *nh);

/* Number of routes. */
size_t fwd_fib_count(const struct fwd_fib *);
/* Bytes: data-plane tables (tbl24, tbl8 groups ever used) + control state
 * (depth per tbl24 entry and per group entry, the route hash table). */
size_t fwd_fib_memory(const struct fwd_fib *);
/* tbl8 groups in use now (diagnostics, tests). */
size_t fwd_fib_tbl8_used(const struct fwd_fib *);
/* Tests: -1 when every byte of the byte view agrees with its tbl24 entry,
 * else the first /24 number where it does not. */
long fwd_fib_check_bytes(const struct fwd_fib *);
/* Calls cb once for every route, in no particular order; stops and returns
 * cb's value when it is nonzero; else 0. cb must not modify the FIB. */
int fwd_fib_walk(const struct fwd_fib *,
    int (*cb)(uint32_t pfx, unsigned len, unsigned nh, void *arg), void *arg);
/* Delete every route (pins and the martian ranges stay). */
void fwd_fib_clear(struct fwd_fib *);

/* Resync: mark every route stale; fwd_fib_add (add or replace, even with the
 * same next hop) clears a route's mark; fwd_fib_sweep_stale deletes the routes
 * still marked and returns how many. */
void fwd_fib_mark_stale(struct fwd_fib *);
size_t fwd_fib_sweep_stale(struct fwd_fib *);

/* Prefetch what fwd_fib_add() or fwd_fib_del() of pfx/len (host order)
 * touches first: its hash slot and its tbl24 entries. A batch of updates
 * calls it a few routes ahead, so the cache misses of a large table
 * overlap (1M random prefixes miss on each). */
void fwd_fib_prefetch(const struct fwd_fib *, uint32_t pfx, unsigned len);

/* The qsbr the FIB's readers register with (conf->qsbr or its own). */
struct fwd_qsbr *fwd_fib_qsbr(const struct fwd_fib *);

/* Reclaim freed tbl8 groups whose grace period has ended (updates do this
 * too). Returns how many groups are still waiting. */
size_t fwd_fib_reclaim(struct fwd_fib *);

/* A table entry read exactly once (READ_ONCE): the compiler may neither
 * tear it nor read it twice, so v tested and v used as an index are the
 * same value. A volatile 2-byte load rather than __atomic_load_n(RELAXED):
 * same instruction, but GCC then reloads the table pointers and limits on
 * every lookup of a loop (measured: 3 extra loads per lookup in bench-fib). */
#define FWD_FIB_READ_(x) (*(const volatile uint16_t *)&(x))

/*
 * A byte of the byte view, read exactly once, and never hoisted or merged
 * with another read (the control thread writes the view while workers read
 * it). One load instruction in an asm volatile, which, unlike a volatile
 * C access, does not make GCC reload the FIB and table pointers from memory
 * on every lookup of a caller's loop (a volatile read cost 2 extra loads per
 * lookup in bench-fib's single loop, measured).
 */
static inline unsigned
fwd_fib_read8_(const uint8_t *p)
{
	unsigned b;

#if defined(__x86_64__)
	__asm__ volatile("movzbl %1, %0" : "=r"(b) : "m"(*p));
#elif defined(__aarch64__)
	__asm__ volatile("ldrb %w0, %1" : "=r"(b) : "Q"(*p));
#else
	b = *(const volatile uint8_t *)p;
#endif
	return (b);
}

/* dst's byte said FWD_FIB_B_ESC: its tbl24 entry, and its tbl8 entry when
 * that is a group. Inline for code that is out of line already (tern-fwd's
 * dp_adj_slow); lookups call fwd_fib_lookup_esc_. */
static inline unsigned
fwd_fib_esc_(const struct fwd_fib_dp *dp, uint32_t dst)
{
	unsigned v;

	/* The writer stores the tbl24 entry, then the byte (release): what
	 * the byte announced is in tbl24 (a compiler barrier on x86). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	v = FWD_FIB_READ_(dp->tbl24[dst >> 8]);
	/* One compare for "is a group" (NONE is not one). The tbl8 read
	 * depends on v (address dependency): ordered after it on every CPU
	 * Linux supports but Alpha. */
	if (v - dp->nh_limit < dp->g_span)
		v = FWD_FIB_READ_(dp->tbl8[((size_t)v << 8) | (dst & 0xff)]);
	return (v == FWD_FIB_T_NONE ? FWD_FIB_NH_NONE : v);
}

/* fwd_fib_esc_ out of line (fwd_fib.c) and declared pure (it writes
 * nothing the caller sees): inline, its acquire fence would make the
 * compiler reload the caller's table pointers on every lookup of a loop. */
unsigned fwd_fib_lookup_esc_(const struct fwd_fib_dp *, uint32_t dst)
    __attribute__((pure));

/* The lookup itself (fwd_fib_lookup, and each entry of a scalar burst). */
static inline unsigned
fwd_fib_lookup_dp_(const struct fwd_fib_dp *dp, uint32_t dst)
{
	unsigned b = fwd_fib_read8_(&dp->tbl24b[dst >> 8]);

	if (__builtin_expect(b == FWD_FIB_B_ESC, 0))
		return (fwd_fib_lookup_esc_(dp, dst));
	return (b); /* the next hop, or FWD_FIB_NH_NONE */
}

/* Longest-prefix match of dst (host order): the next-hop index or
 * FWD_FIB_NH_NONE. One memory read (of the 16 MiB byte view) for most
 * addresses; two for next hops >= 254, three under /25-/32. */
static inline unsigned
fwd_fib_lookup(const struct fwd_fib *fib, uint32_t dst)
{
	return (fwd_fib_lookup_dp_((const struct fwd_fib_dp *)fib, dst));
}

/* The byte view of tbl24 (2^24 bytes, one per /24), for a fast path that
 * reads the next hop of most packets itself (fwd_dp.c): a byte below
 * FWD_FIB_B_ESC is the next hop, FWD_FIB_B_ESC needs fwd_fib_lookup. */
static inline const uint8_t *
fwd_fib_bytes(const struct fwd_fib *fib)
{
	return (((const struct fwd_fib_dp *)fib)->tbl24b);
}

#ifndef FWD_FIB_PREFETCH_AHEAD
#define FWD_FIB_PREFETCH_AHEAD 16
#endif

/* One entry of a burst: the byte's line was prefetched earlier. */
static inline uint16_t
fwd_fib_lookup_one_(const struct fwd_fib_dp *dp, uint32_t dst)
{
	return ((uint16_t)fwd_fib_lookup_dp_(dp, dst));
}

/* nh[i] = fwd_fib_lookup(fib, dst[i]) for i < n, with the byte reads
 * prefetched FWD_FIB_PREFETCH_AHEAD addresses ahead so their cache misses
 * overlap. On CPUs with AVX-512 (checked once by fwd_fib_new), bursts of 16
 * or more gather 16 entries per instruction instead (one call). */
static inline void
fwd_fib_lookup_burst(const struct fwd_fib *fib, const uint32_t *dst,
    uint16_t *nh, unsigned n)
{
	const struct fwd_fib_dp *dp = (const struct fwd_fib_dp *)fib;
	const uint8_t *t24 = dp->tbl24b;
	unsigned i,
	    pre = n < FWD_FIB_PREFETCH_AHEAD ? n : FWD_FIB_PREFETCH_AHEAD;

	if (dp->simd && n >= 16) {
		fwd_fib_lookup_burst_simd_(fib, dst, nh, n);
		return;
	}
	for (i = 0; i < pre; i++)
		__builtin_prefetch(&t24[dst[i] >> 8]);
	for (i = 0; i + FWD_FIB_PREFETCH_AHEAD < n; i++) {
		__builtin_prefetch(&t24[dst[i + FWD_FIB_PREFETCH_AHEAD] >> 8]);
		nh[i] = fwd_fib_lookup_one_(dp, dst[i]);
	}
	for (; i < n; i++)
		nh[i] = fwd_fib_lookup_one_(dp, dst[i]);
}

#endif /* FWD_FIB_H */
