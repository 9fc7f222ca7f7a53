/* bgp/bgp_rib.h: tern-bgp's routes (bgp_rib.c): every neighbour's paths
 * per prefix (the Adj-RIBs-In, as received and after import policy), the
 * best path of each prefix (RFC 4271 9.1, multipath when configured), and
 * what changed, sent to tern-rib as source PROTOCOL "bgp" (bgp_ribc.c). */
#ifndef BGP_RIB_H
#define BGP_RIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp_attr.h"

#define BGP_RIB_PEERS  1024 /* peer ids 1..BGP_RIB_PEERS - 1 */
#define BGP_RIB_MP_MAX 64   /* next hops of a multipath route (rib's max) */
#define BGP_DISTANCE   170  /* rib distance of BGP routes (Junos's) */

/* What best path selection needs to know of a neighbour, by its id. */
struct bgp_rib_peer {
	uint32_t addr;	    /* network order */
	uint32_t router_id; /* its BGP identifier, network order */
	uint32_t remote_as;
	bool ebgp;
};

/* One neighbour's path to a prefix. */
struct bgp_path {
	uint32_t next;	      /* the prefix's next path (pool index), 0: none */
	uint16_t peer;	      /* bgp_rib_peer id */
	uint8_t flags;	      /* BGP_PATH_* */
	uint8_t why;	      /* enum bgp_rib_why: not usable, or why it lost */
	struct bgp_aset *in;  /* as received (Adj-RIB-In before policy) */
	struct bgp_aset *set; /* after import policy; NULL: not imported */
};
#define BGP_PATH_STALE 0x01 /* graceful restart: kept until End-of-RIB */
#define BGP_PATH_BEST  0x02 /* the best path, or one of its multipath set */

/* Why a path is not the best (show bgp route), or why it is not usable. */
enum bgp_rib_why {
	BGP_WHY_NONE = 0,
	BGP_WHY_POLICY,	    /* refused by import policy (or RFC 8212) */
	BGP_WHY_LOOP,	    /* our AS in its AS path */
	BGP_WHY_LOCAL_PREF, /* lost on ... */
	BGP_WHY_ASPATH,
	BGP_WHY_ORIGIN,
	BGP_WHY_MED,
	BGP_WHY_EBGP,
	BGP_WHY_ROUTER_ID,
	BGP_WHY_PEER_ADDR,
	/* (after the others: the numbers travel in bgp.proto's PathWhy) */
	BGP_WHY_NH_UNREACH, /* its next hop does not resolve in rib */
	BGP_WHY_IGP_COST,   /* lost on the IGP cost of its next hop */
};
const char *bgp_rib_why_str(enum bgp_rib_why);

/* A prefix with at least one path. */
struct bgp_dest {
	uint32_t addr; /* network order, host bits zero */
	uint8_t len;
	uint8_t flags; /* BGP_DEST_* */
	uint16_t npaths;
	uint32_t paths; /* first path (pool index), 0: none */
	uint32_t inst;	/* next-hop set installed in rib, 0: none */
};
#define BGP_DEST_DIRTY 0x01 /* on the changed list */

struct bgp_rib;

struct bgp_rib_stats {
	size_t dests, paths, best;
	size_t nhsets;
	size_t bytes; /* dests, paths, hash and lists */
};

struct bgp_rib *bgp_rib_new(struct bgp_intern *);
void bgp_rib_free(struct bgp_rib *);
void bgp_rib_set_local_as(struct bgp_rib *, uint32_t as);
/* Multipath: up to max (1: off) equal paths install together. */
void bgp_rib_set_multipath(struct bgp_rib *, unsigned max);
/* The neighbour behind an id (its paths are compared with this). */
void bgp_rib_peer_set(struct bgp_rib *, unsigned id,
    const struct bgp_rib_peer *);

/*
 * The peer's path to addr/len: in as received, set after policy (NULL:
 * refused; it stays in the Adj-RIB-In for a later policy change). Takes its
 * own references. The prefix goes on the changed list when its best may
 * have changed. 1 for a new path, 0 for a changed one, or -ENOMEM.
 */
int bgp_rib_update(struct bgp_rib *, unsigned peer, uint32_t addr, uint8_t len,
    struct bgp_aset *in, struct bgp_aset *set, uint8_t why);
/* Prefetches what bgp_rib_update/withdraw of addr/len will read: its hash
 * slot (dest false), then, a few prefixes later, its record (dest true). */
void bgp_rib_prefetch(const struct bgp_rib *, uint32_t addr, uint8_t len,
    bool dest);
/* The peer withdrew addr/len: 1 when it had a path, 0 when not. */
int bgp_rib_withdraw(struct bgp_rib *, unsigned peer, uint32_t addr,
    uint8_t len);
/* Every path of the peer: removed (all), or (stale_only) those still
 * flagged stale. Returns how many. */
size_t bgp_rib_peer_flush(struct bgp_rib *, unsigned peer, bool stale_only);
/* Graceful restart: every path of the peer flagged stale (kept and used
 * until it is announced again or bgp_rib_peer_flush(.., true)). */
size_t bgp_rib_peer_stale(struct bgp_rib *, unsigned peer);
/* How many of the peer's paths are flagged stale now. */
size_t bgp_rib_peer_stale_count(const struct bgp_rib *, unsigned peer);

/*
 * Next hops as tern-rib resolves them (next-hop tracking): a path whose
 * next hop is unreachable is not used; among paths equal up to eBGP over
 * iBGP, the lower IGP cost of the next hop wins. A next hop rib has not
 * told of yet is taken as reachable at cost 0.
 */
enum bgp_nh_state { BGP_NH_UNKNOWN, BGP_NH_REACHABLE, BGP_NH_UNREACHABLE };
/* Next hops of imported paths never asked of rib yet: up to max into out
 * (network order), taken off the list. */
size_t bgp_rib_nh_take(struct bgp_rib *, uint32_t *out, size_t max);
/* Every known next hop back on that list (rib connected again). */
void bgp_rib_nh_rewatch(struct bgp_rib *);
/* What rib says of addr: when it changes, every prefix with a path through
 * it is marked. Returns how many. */
size_t bgp_rib_nh_set(struct bgp_rib *, uint32_t addr, enum bgp_nh_state,
    uint32_t cost);
enum bgp_nh_state bgp_rib_nh_get(const struct bgp_rib *, uint32_t addr,
    uint32_t *cost);

/*
 * Re-run the import policy over a peer's Adj-RIB-In: fn(arg, addr, len,
 * in, &why) returns the set to use (a new reference, or NULL: refused).
 * Changed prefixes go on the changed list. Returns the paths whose result
 * changed.
 */
typedef struct bgp_aset *bgp_rib_import_fn(void *arg, uint32_t addr,
    uint8_t len, struct bgp_aset *in, uint8_t *why);
size_t bgp_rib_reimport(struct bgp_rib *, unsigned peer, bgp_rib_import_fn *fn,
    void *arg);

/* Paths of one peer: count of all, and of those imported. */
void bgp_rib_peer_counts(const struct bgp_rib *, unsigned peer, size_t *all,
    size_t *imported);

/*
 * The changed list, drained: for each changed prefix, its best path (and
 * multipath set) is chosen again and, when the next hops to install
 * changed, emit(arg, dest, nhid, nh, n) is called with the new ones (n 0:
 * no usable path, withdraw; nhid: the set's id, equal for equal sets, 0
 * with n 0). Stops after max prefixes (the rest stay on the
 * list). emit returns 0, or < 0 to stop (the prefix stays on the list).
 * Returns the prefixes drained.
 */
typedef int bgp_rib_emit_fn(void *arg, const struct bgp_dest *, uint32_t nhid,
    const uint32_t *nh, unsigned n);
size_t bgp_rib_drain(struct bgp_rib *, size_t max, bgp_rib_emit_fn *emit,
    void *arg);
size_t bgp_rib_pending(const struct bgp_rib *);
/* Called for every prefix the drain chose again (before emit), so that
 * what is advertised follows the best path (bgp_adv.c). */
typedef void bgp_rib_notify_fn(void *arg, const struct bgp_dest *);
void bgp_rib_set_notify(struct bgp_rib *, bgp_rib_notify_fn *, void *arg);
/* The next prefix with paths at or after *cursor (start with 0), or NULL
 * at the end; *cursor moves past it. For walks spread over loop turns. */
const struct bgp_dest *bgp_rib_next(const struct bgp_rib *, uint32_t *cursor);
/* The best path of a prefix, or NULL. */
const struct bgp_path *bgp_rib_best(const struct bgp_rib *,
    const struct bgp_dest *);
const struct bgp_rib_peer *bgp_rib_peer_get(const struct bgp_rib *,
    unsigned id);
/* Next-hop set ids are below this. */
uint32_t bgp_rib_nhid_end(const struct bgp_rib *);
/* rib lost what it had (restart): every prefix's installed set forgotten
 * and every prefix with a best path put on the changed list. */
void bgp_rib_resend_all(struct bgp_rib *);

/* Lookups for show bgp route. */
const struct bgp_dest *bgp_rib_find(const struct bgp_rib *, uint32_t addr,
    uint8_t len);
const struct bgp_path *bgp_rib_path(const struct bgp_rib *, uint32_t idx);
/* Walk every prefix (hash order): fn returns non-zero to stop. */
void bgp_rib_walk(const struct bgp_rib *,
    int (*fn)(void *, const struct bgp_dest *), void *arg);

void bgp_rib_stats(const struct bgp_rib *, struct bgp_rib_stats *);

/* RFC 4271 9.1.2.2 as the table applies it, for the IPv6 table
 * (bgp_rib6.c): < 0 when peer_a's path with set a is better, > 0 when
 * b's; *step the rule that decided (BGP_WHY_NONE: equal). */
int bgp_rib_path_cmp(const struct bgp_rib *, unsigned peer_a,
    const struct bgp_aset *a, unsigned peer_b, const struct bgp_aset *b,
    uint8_t *step);
uint32_t bgp_rib_local_as(const struct bgp_rib *);

#endif /* BGP_RIB_H */
