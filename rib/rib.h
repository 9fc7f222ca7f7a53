/* rib/rib.h: the tern RIB core: route sources, best path, ECMP, recursive next hops and the FIB it wants fwd to hold. */
#ifndef RIB_H
#define RIB_H

/*
 * A library with no I/O: the daemon (rib/main.c + IPC) calls these plain
 * functions and receives FIB deltas through a callback (rib_fib_set_cb),
 * emitted only from rib_fib_flush(), which the daemon calls once per loop
 * turn (an lc_loop hook), so everything changed in one turn goes out as one
 * batch (or as few batches as the size bound allows).
 *
 * Conventions: int functions return 0 (or a count) or -errno; on error they
 * fill *err when err is not NULL (code, index of the bad entry or -1, and a
 * message) and change nothing. Not thread-safe: one rib per event loop.
 * Addresses are libcommon's lc_ip4/lc_prefix4 (network byte order); an
 * IPv6 prefix or next hop says family AF_INET6 and uses the lc_ip6/lc_prefix6
 * fields appended to each structure (the IPv4 ones are then unused), so
 * IPv4 callers that know nothing of IPv6 stay as they are (docs/rib.md,
 * "IPv6").
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/lc_addr.h"
#include "libcommon/lc_err.h"

#define RIB_SOURCE_MAX	       255 /* source ids are 1..RIB_SOURCE_MAX-1 */
#define RIB_SRC_CONNECTED      1   /* created by rib_new(), name "connected" */
#define RIB_SRC_STATIC	       2   /* created by rib_new(), name "static" */
#define RIB_SOURCE_NAME_MAX    32  /* bytes including the NUL */
#define RIB_DISTANCE_CONNECTED 0
#define RIB_DISTANCE_STATIC    1
#define RIB_DISTANCE_PROTO     100 /* a protocol source that does not say */
#define RIB_NH_MAX	       64 /* next hops per route; also the widest ECMP */
#define RIB_ECMP_DEFAULT       8
#define RIB_RECURSION_DEFAULT  4 /* levels of recursive resolution */
#define RIB_RECURSION_MAX      16
#define RIB_BATCH_MAX	       65536	  /* entries per rib_route_batch() */
#define RIB_TXN_MAX	       (1u << 22) /* entries per rib_route_txn() */
#define RIB_IFINDEX_MAX	       (1u << 20)
#define RIB_FIB_BATCH_DEFAULT  1024   /* deltas per FIB batch */
#define RIB_FIB_HIGH_DEFAULT   262144 /* deltas in flight: stop at high... */
#define RIB_FIB_LOW_DEFAULT    65536  /* ...resume when acks bring it to low */

struct rib;

/* A next hop: addr 0.0.0.0 with an ifindex = attached to that interface;
 * addr with ifindex 0 = resolved recursively through the table. IPv6
 * (family AF_INET6): addr6 instead of addr (:: with an ifindex = attached);
 * a link-local addr6 (fe80::/10) needs its ifindex and is direct on it. A
 * route's next hops are of its prefix's family. */
struct rib_nexthop {
	struct lc_ip4 addr;
	uint32_t ifindex;
	uint32_t family;     /* 0 (or AF_INET): addr; AF_INET6: addr6 */
	struct lc_ip6 addr6; /* AF_INET6 */
};

enum rib_rtype {
	RIB_RT_UNICAST = 0, /* forward to next hops */
	RIB_RT_BLACKHOLE,   /* drop silently */
	RIB_RT_REJECT,	    /* drop, ICMP unreachable */
};

struct rib_conf {
	unsigned ecmp_width;	  /* 1..RIB_NH_MAX, default 8 */
	unsigned recursion_max;	  /* 1..RIB_RECURSION_MAX, default 4 */
	bool resolve_via_default; /* may 0.0.0.0/0 resolve next hops (no) */
	unsigned fib_batch_max;	  /* deltas per FIB batch (1024) */
	unsigned fib_high_water;  /* deltas in flight (262144) */
	unsigned fib_low_water;	  /* (65536), < high */
};

/* Fills the defaults above. */
void rib_conf_default(struct rib_conf *);
/* conf NULL: defaults. NULL with errno EINVAL (bad conf) or ENOMEM. */
struct rib *rib_new(const struct rib_conf *conf);
void rib_free(struct rib *); /* NULL is a no-op */

/* ---- sources ------------------------------------------------------------ */

struct rib_source_conf {
	const char *name;  /* 1..31 chars [A-Za-z0-9_.:-] */
	int distance;	   /* 0..255; -1: RIB_DISTANCE_PROTO */
	uint32_t grace_ms; /* how long its routes live stale */
};

/* Registers a protocol source: 0 and *id, -EEXIST (same name; see
 * rib_source_find), -ENOSPC, -EINVAL. */
int rib_source_add(struct rib *, const struct rib_source_conf *, unsigned *id,
    struct lc_err *err);
/* id > 0, or -ENOENT. */
int rib_source_find(const struct rib *, const char *name);
/* Changes distance (-1: keep) and grace; routes without their own
 * distance are re-selected. 0, -ENOENT, -EINVAL. */
/* Changes the ECMP width (1..RIB_NH_MAX) at run time: every prefix is
 * selected again and the FIB deltas follow. 0 or -EINVAL (err says why). */
int rib_set_ecmp_width(struct rib *, unsigned width, struct lc_err *);
int rib_source_set(struct rib *, unsigned id, int distance, uint32_t grace_ms,
    struct lc_err *err);
/* Deletes the source and all its routes now. -EPERM for connected/static
 * (use stale + sweep to flush those), -ENOENT. */
int rib_source_del(struct rib *, unsigned id, struct lc_err *err);
/*
 * The source went away (or restarts, or is being re-learned): all its routes
 * are marked stale and keep forwarding; a route added/replaced again is fresh.
 * The daemon arms a timer of the source's grace_ms, then calls
 * rib_source_sweep(), which deletes what is still stale.
 * Return the number of routes marked / deleted, or -ENOENT.
 */
int rib_source_stale(struct rib *, unsigned id);
int rib_source_sweep(struct rib *, unsigned id);

struct rib_source_info {
	unsigned id;
	char name[RIB_SOURCE_NAME_MAX];
	uint8_t distance;
	uint32_t grace_ms;
	bool stale;    /* stale() called, sweep() not yet */
	size_t routes; /* of this source */
	size_t active; /* selected (in the FIB) */
	size_t stale_routes;
	size_t inactive; /* next hop unresolvable */
};
/* 0, or -ENOENT for an unused id (loop id 1..RIB_SOURCE_MAX-1 for a summary). */
int rib_source_info(const struct rib *, unsigned id, struct rib_source_info *);

/* ---- interfaces --------------------------------------------------------- */

/*
 * Interface state from fwd. An interface rib was never told about is down.
 * Every route depending on it (directly, or recursively through a connected
 * route on it) is re-evaluated now; the FIB deltas go out together at the
 * next rib_fib_flush(). 0, -EINVAL (ifindex 0 or > RIB_IFINDEX_MAX), -ENOMEM.
 */
int rib_if_set(struct rib *, uint32_t ifindex, bool up);
bool rib_if_up(const struct rib *, uint32_t ifindex);

/* ---- routes ------------------------------------------------------------- */

enum rib_op {
	RIB_OP_ADD = 0, /* add, or replace what the source has there */
	RIB_OP_REPLACE, /* replace: the route must exist (-ENOENT) */
	RIB_OP_DELETE,	/* delete; absent is not an error */
};

struct rib_route_upd {
	struct lc_prefix4 pfx;
	uint8_t op;	  /* enum rib_op */
	uint8_t type;	  /* enum rib_rtype */
	int16_t distance; /* -1: the source's; 0..255 */
	uint32_t metric;
	uint32_t n_nh;		      /* 1..RIB_NH_MAX for unicast, else 0 */
	const struct rib_nexthop *nh; /* not kept */
	uint8_t family;		      /* 0 (or AF_INET): pfx; AF_INET6: pfx6 */
	struct lc_prefix6 pfx6;
};

/*
 * Applies n updates of source src, in order, as one transaction: all or
 * nothing. Errors (err->index = the bad entry): -ENOENT unknown source
 * (index -1) or REPLACE of a missing route, -E2BIG n > RIB_BATCH_MAX,
 * -EINVAL prefix length > 32, host bits set, bad op/type/distance, next hop
 * 0.0.0.0 without interface, bad next-hop address, next hops on a blackhole,
 * connected route without an interface; -ENOMEM. Returns 0.
 */
int rib_route_batch(struct rib *, unsigned src, const struct rib_route_upd *u,
    size_t n, struct lc_err *err);
/*
 * A transaction gathered from several batches (the daemon keeps them until
 * the last): rib_route_batch() of up to RIB_TXN_MAX entries, the same checks,
 * all or nothing. -E2BIG over RIB_TXN_MAX.
 */
int rib_route_txn(struct rib *, unsigned src, const struct rib_route_upd *u,
    size_t n, struct lc_err *err);
/*
 * The checks rib_route_batch() makes of each entry, without applying
 * anything (a part of a transaction, checked when it comes): 0, -EINVAL or
 * -ENOENT (unknown source) with err->index. A REPLACE is not looked up: the
 * route must exist when the transaction is applied.
 */
int rib_route_check(const struct rib *, unsigned src,
    const struct rib_route_upd *u, size_t n, struct lc_err *err);

/* ---- queries (show route) ---------------------------------------------- */

enum rib_match {
	RIB_MATCH_ALL = 0,
	RIB_MATCH_EXACT,   /* q.pfx */
	RIB_MATCH_LONGEST, /* longest prefix with routes covering q.addr */
	RIB_MATCH_LONGER,  /* q.pfx and every prefix under it */
};

struct rib_query {
	enum rib_match match;
	struct lc_prefix4 pfx;
	struct lc_ip4 addr;
	unsigned src;	  /* 0: any source */
	bool active_only; /* only routes selected for the FIB */
	bool sorted;	  /* by address, then length (costs a sort) */
	/* ALL: 0 both families (IPv4 first when sorted), AF_INET or AF_INET6
	 * only; the other matches: AF_INET6 takes pfx6/addr6, else pfx/addr */
	uint8_t family;
	struct lc_prefix6 pfx6;
	struct lc_ip6 addr6;
};

#define RIB_RI_ACTIVE 0x01 /* selected, in the FIB */
#define RIB_RI_USABLE 0x02 /* next hops resolve (or blackhole/reject) */
#define RIB_RI_STALE  0x04
#define RIB_RI_LOOP   0x08 /* a next hop's resolution loops or is too deep */

/* Valid only during the callback. */
struct rib_route_info {
	struct lc_prefix4 pfx;
	unsigned src;
	const char *src_name;
	uint8_t type;	  /* enum rib_rtype */
	uint8_t distance; /* effective */
	uint8_t flags;	  /* RIB_RI_* */
	uint32_t metric;
	unsigned n_nh; /* as given */
	const struct rib_nexthop *nh;
	unsigned n_res; /* resolved: address + interface */
	const struct rib_nexthop *res;
	uint8_t family; /* AF_INET: pfx; AF_INET6: pfx6 */
	struct lc_prefix6 pfx6;
};

/* Return non-zero to stop the walk (rib_route_walk then returns it). */
typedef int (*rib_route_fn)(void *arg, const struct rib_route_info *);

/* Calls fn per matching route (prefixes in table order unless q->sorted;
 * a prefix's routes by source id); fn must not change the rib. Returns the
 * count visited, fn's non-zero value, -EINVAL (bad q), -ENOENT (unknown
 * q->src), -ENOMEM (sorted). */
long rib_route_walk(struct rib *, const struct rib_query *q, rib_route_fn fn,
    void *arg, struct lc_err *err);

/* ---- FIB download ------------------------------------------------------- */

enum rib_fib_op {
	RIB_FIB_ADD = 0,
	RIB_FIB_REPLACE,
	RIB_FIB_DELETE,
};

/* One FIB change. nh points into rib memory valid during the callback:
 * addr 0.0.0.0 = attached (fwd ARPs for the destination). */
struct rib_fib_delta {
	struct lc_prefix4 pfx;
	uint8_t op;    /* enum rib_fib_op */
	uint8_t type;  /* enum rib_rtype; UNICAST for DELETE */
	uint16_t n_nh; /* 0 for DELETE/BLACKHOLE/REJECT */
	const struct rib_nexthop *nh;
	uint8_t family; /* 0 (or AF_INET): pfx; AF_INET6: pfx6 */
	struct lc_prefix6 pfx6;
};

/*
 * Receives one batch. Return 0 when it is on its way (fwd will ack seq), or
 * -errno (e.g. -EAGAIN): the batch is taken back as if never sent and
 * rib_fib_flush() stops and returns that value.
 */
typedef int (*rib_fib_fn)(void *arg, uint64_t seq,
    const struct rib_fib_delta *d, unsigned n);

/* fn NULL: nothing is emitted (changes wait in the queue). */
void rib_fib_set_cb(struct rib *, rib_fib_fn fn, void *arg);
/*
 * Emits queued changes in batches (seq 1, 2, ...) while the number of deltas
 * in flight (sent, not acked) is under the high water mark; once it reaches
 * it, nothing more goes out until acks bring it down to the low water mark.
 * Changes to one prefix made while it waits are merged (only the last state
 * is sent). Returns the deltas emitted, or the callback's -errno.
 */
long rib_fib_flush(struct rib *);
/* fwd applied every batch up to seq. 0; -ERANGE for a seq never sent
 * (an old seq is a no-op). */
int rib_fib_ack(struct rib *, uint64_t seq);
/* fwd restarted empty: forget what it held and what is in flight, queue the
 * whole table. Returns the prefixes queued. */
long rib_fib_repush(struct rib *);

/*
 * rib restart, fwd kept forwarding: begin() forgets what fwd holds and holds
 * back all output; load() tells what fwd holds (op ignored; host bits etc.
 * checked as for routes, -EINVAL with err->index); sources re-learn
 * meanwhile; end() releases output: only prefixes whose wanted state differs
 * from what fwd holds are sent (unchanged routes are never withdrawn; what
 * fwd holds and rib no longer wants is deleted). end() returns the prefixes
 * queued.
 */
int rib_fib_sync_begin(struct rib *);
int rib_fib_sync_load(struct rib *, const struct rib_fib_delta *d, size_t n,
    struct lc_err *err);
long rib_fib_sync_end(struct rib *);

/*
 * Whether fwd takes IPv6 FIB entries (off in a new rib). Off: IPv6 prefixes
 * are selected and resolved as usual (queries show them) but never sent;
 * switching it on queues every IPv6 prefix whose wanted state fwd does not
 * hold. rib_fib_stats() counts the prefixes held back in v6_held.
 */
void rib_fib_set_v6(struct rib *, bool on);

struct rib_fib_stats {
	uint64_t seq_sent; /* last batch emitted */
	uint64_t seq_acked;
	size_t inflight;  /* deltas sent, not acked */
	size_t queued;	  /* prefixes waiting to be looked at */
	bool blocked;	  /* at the high water mark */
	bool syncing;	  /* between sync_begin and sync_end */
	size_t want;	  /* prefixes rib wants in the FIB */
	size_t acked;	  /* prefixes fwd acknowledged holding */
	uint64_t batches; /* emitted in total */
	uint64_t deltas;
	size_t want6;	/* IPv6 prefixes rib wants in the FIB (in want) */
	size_t v6_held; /* of those, not sent: fwd takes no IPv6 */
};
void rib_fib_stats(const struct rib *, struct rib_fib_stats *);

enum rib_fib_view {
	RIB_FIB_WANT = 0, /* what rib wants fwd to hold */
	RIB_FIB_ACKED,	  /* what fwd acknowledged holding */
};
/* Calls fn per FIB entry of the view (op = ADD); stops on non-zero.
 * Returns the count or fn's value. */
typedef int (*rib_fib_entry_fn)(void *arg, const struct rib_fib_delta *);
long rib_fib_walk(const struct rib *, enum rib_fib_view, rib_fib_entry_fn fn,
    void *arg);

/* ---- next-hop tracking ------------------------------------------------- */

/*
 * A watch on a next hop without an interface (host order): it is resolved
 * recursively as a route's would be, and kept resolved as routes change,
 * whether or not a route uses it (tern-bgp's next hops, for its best path:
 * reachable, and the IGP cost). Returns an id for the calls below (a
 * reference: one rib_nh_unwatch() each), 0 when out of memory.
 */
uint32_t rib_nh_watch(struct rib *, uint32_t addr);
void rib_nh_unwatch(struct rib *, uint32_t id);
struct rib_nh_state {
	bool reachable;	   /* resolves to forwarding next hops */
	uint32_t metric;   /* of the selected route resolving it (IGP cost) */
	uint32_t via_addr; /* that route's prefix (host order), len 0: none */
	uint8_t via_len;
};
/* As of the last rib_process(). */
void rib_nh_state(const struct rib *, uint32_t id, struct rib_nh_state *);

/* ---- memory ------------------------------------------------------------- */

struct rib_mem_stats {
	size_t bytes; /* all rib allocations (usable sizes) */
	size_t prefixes;
	size_t routes;
	size_t nexthops;  /* interned next hops */
	size_t groups;	  /* interned next-hop sets of routes */
	size_t fibgroups; /* interned resolved sets */
};
void rib_mem_stats(const struct rib *, struct rib_mem_stats *);

#endif /* RIB_H */
