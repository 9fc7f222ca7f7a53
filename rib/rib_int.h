/* rib/rib_int.h: private structures of the RIB core (see docs/rib.md for the design). */
#ifndef RIB_INT_H
#define RIB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h> /* AF_INET6 */

#include "rib.h"

/*
 * Everything that exists once per route (prefixes, routes) lives in index
 * pools addressed by 32-bit indices (0 = none), so links are 4 bytes and
 * there is no malloc per route. Next hops, next-hop sets of routes ("groups")
 * and resolved sets ("fib groups") are interned: a million routes over 256
 * next hops share 256 of each.
 */
#define RIB_NIL 0u

/* ---- index pool: slabs of fixed-size elements, free list, used bitmap ---- */
#define RIB_SLAB_SHIFT 16
#define RIB_SLAB_SIZE  (1u << RIB_SLAB_SHIFT)
#define RIB_SLAB_MASK  (RIB_SLAB_SIZE - 1)

struct rib_ipool {
	size_t esz;
	char **slab;
	uint64_t **used; /* bitmap per slab */
	uint32_t nslab, capslab;
	uint32_t hwm;	    /* next never-used index */
	uint32_t free_head; /* through the element's first 4 bytes */
	uint32_t inuse;
};

static inline void *
rib_ipool_at(const struct rib_ipool *p, uint32_t i)
{
	return (p->slab[i >> RIB_SLAB_SHIFT] +
	    (size_t)(i & RIB_SLAB_MASK) * p->esz);
}
static inline bool
rib_ipool_used(const struct rib_ipool *p, uint32_t i)
{
	if (i == RIB_NIL || i >= p->hwm)
		return (false);
	return ((p->used[i >> RIB_SLAB_SHIFT][(i & RIB_SLAB_MASK) >> 6] >>
		    (i & 63)) &
	    1);
}
void rib_ipool_init(struct rib_ipool *, size_t esz);
void rib_ipool_fini(struct rib_ipool *);
/* 0 with -ENOMEM */
int rib_ipool_reserve(struct rib_ipool *, size_t n);
/* RIB_NIL on ENOMEM; contents zeroed */
uint32_t rib_ipool_get(struct rib_ipool *);
void rib_ipool_put(struct rib_ipool *, uint32_t);
/* the next used index after i (RIB_NIL at the end); start with 0 */
uint32_t rib_ipool_next(const struct rib_ipool *, uint32_t i);
size_t rib_ipool_bytes(const struct rib_ipool *);

/* ---- vector of u32, also a FIFO (head) ---------------------------------- */
struct rib_vec {
	uint32_t *v;
	uint32_t head, n, cap;
};
int rib_vec_push(struct rib_vec *, uint32_t);
static inline bool
rib_vec_empty(const struct rib_vec *q)
{
	return (q->head == q->n);
}
static inline uint32_t
rib_vec_pop_front(struct rib_vec *q)
{
	uint32_t x = q->v[q->head++];

	if (q->head == q->n)
		q->head = q->n = 0;
	return (x);
}
void rib_vec_fini(struct rib_vec *);

/* ---- table of interned objects by id, with a chained hash ---------------- */
struct rib_hobj { /* first fields of every interned object */
	uint32_t hash;
	uint32_t hnext;
};
struct rib_otab {
	void **obj;	 /* [id], id 0 unused */
	uint32_t n, cap; /* ids handed out so far: 1..n-1 */
	struct rib_vec free;
	uint32_t *bkt;
	uint32_t bmask, count;
};
int rib_otab_init(struct rib_otab *);
void rib_otab_fini(struct rib_otab *); /* frees the objects too */
struct rib;
void rib_grp_recompute_all(struct rib *);
/* Stores obj (a struct rib_hobj with hash set): id, or 0 on ENOMEM. */
uint32_t rib_otab_add(struct rib_otab *, void *obj);
void rib_otab_del(struct rib_otab *, uint32_t id); /* frees obj */
static inline void *
rib_otab_get(const struct rib_otab *t, uint32_t id)
{
	return (t->obj[id]);
}
static inline uint32_t
rib_otab_first(const struct rib_otab *t, uint32_t hash)
{
	return (t->bkt[hash & t->bmask]);
}

/* ---- prefixes ("dests") and routes -------------------------------------- */
#define RIB_DF_QUEUED  0x01 /* in the FIB export queue */
#define RIB_DF_DIRTY   0x02 /* selection to be redone */
#define RIB_DF_COUNTED 0x04 /* has routes: counted in lencount */
#define RIB_DF_V6      0x08 /* IPv6: addr is its address's index in a6 */

struct rib_dest {      /* 24 bytes */
	uint32_t addr; /* host order; IPv6: index in rib->a6 */
	uint8_t len;
	uint8_t flags;	   /* RIB_DF_* */
	uint16_t inflight; /* FIB batch entries naming it */
	uint32_t routes;   /* first route, by source id */
	uint32_t want;	   /* fib group rib wants in fwd */
	uint32_t sent;	   /* fib group last sent */
	uint32_t acked;	   /* fib group fwd acknowledged */
};

#define RIB_RF_ACTIVE  0x01
#define RIB_RF_USABLE  0x02
#define RIB_RF_STALE   0x04
#define RIB_RF_DEFDIST 0x08 /* distance follows the source's */

struct rib_route {     /* 28 bytes */
	uint32_t next; /* in the dest's list */
	uint32_t dest;
	uint32_t grp;	       /* next-hop set (UNICAST), else 0 */
	uint32_t gprev, gnext; /* routes sharing grp */
	uint32_t metric;
	uint8_t src;
	uint8_t distance;
	uint8_t flags; /* RIB_RF_* */
	uint8_t type;  /* enum rib_rtype */
};

/* ---- next hops, groups, fib groups -------------------------------------- */
#define RIB_NHF_RECURSIVE 0x01
#define RIB_NHF_DIRTY	  0x02
#define RIB_NHF_LOOP	  0x04 /* refused: loop or too deep */
#define RIB_NHF_FROZEN	  0x08 /* flapped too often this round */
#define RIB_NHF_V6	  0x10 /* IPv6: addr6 (addr 0) */
#define RIB_NH_FLIP_MAX	  8

struct rib_nh {
	struct rib_hobj h;
	uint32_t addr; /* host order */
	uint32_t ifindex;
	struct lc_ip6 addr6; /* RIB_NHF_V6 */
	uint32_t refcnt;     /* groups holding it */
	uint32_t res;	     /* fib group it resolves to, 0 = none */
	uint32_t via;	     /* dest resolving it (recursive) */
	uint32_t mark;	     /* traversal stamp */
	uint32_t *grps;	     /* groups containing it */
	uint32_t n_grps, cap_grps;
	uint8_t flags;	/* RIB_NHF_* */
	uint8_t flips;	/* resolution changes this round */
	uint8_t depth;	/* recursion levels used (0 direct) */
	uint8_t tdepth; /* scratch of a traversal */
};

struct rib_grp {
	struct rib_hobj h;
	uint32_t refcnt; /* routes + holds of a pending batch */
	uint32_t routes; /* first route using it */
	uint32_t fib;	 /* fib group it resolves to, 0 = none */
	uint32_t n;
	uint32_t *nh;		 /* [n] nh ids, sorted */
	struct rib_nexthop *hop; /* [n] as given, same order */
};

#define RIB_FG_NONE	 0u
#define RIB_FG_BLACKHOLE 1u
#define RIB_FG_REJECT	 2u

struct rib_fibgrp {
	struct rib_hobj h;
	uint32_t refcnt;
	uint8_t type;
	uint16_t n;
	struct rib_nexthop hop[]; /* sorted by address, ifindex */
};

struct rib_source {
	bool used;
	bool stale;
	char name[RIB_SOURCE_NAME_MAX];
	uint8_t distance;
	uint32_t grace_ms;
	size_t routes, active, stale_routes, inactive;
};

struct rib_fentry { /* a delta in flight */
	uint32_t dest;
	uint32_t fg; /* what it set (a reference) */
};
struct rib_fbatch {
	uint64_t seq;
	uint32_t n;
};

struct rib {
	struct rib_conf conf;

	struct rib_ipool dests;	 /* struct rib_dest */
	struct rib_ipool routes; /* struct rib_route */
	uint64_t *htab;		 /* prefix -> (hash, dest), open addressing */
	void *htab_map;		 /* lc_huge_map() of htab */
	size_t htab_maplen;
	uint32_t hmask, hcount;
	uint32_t lencount[33]; /* dests with routes, per length */
	struct rib_ipool a6;   /* struct lc_ip6 of the IPv6 dests */
	uint32_t lencount6[129];
	size_t n_want6; /* IPv6 dests with want set */
	bool fib_v6;	/* fwd takes IPv6 entries */

	struct rib_source src[RIB_SOURCE_MAX];

	uint64_t *ifup; /* bitmap by ifindex */
	uint32_t ifcap; /* bits */

	struct rib_otab nhs, grps, fgs;
	uint32_t *rnh; /* recursive nh ids sorted by address */
	uint32_t n_rnh, cap_rnh;
	uint32_t *rnh6; /* the same for IPv6 */
	uint32_t n_rnh6, cap_rnh6;

	struct rib_vec dirty_dest, dirty_nh, touched_nh;
	uint32_t stamp;

	/* FIB download */
	rib_fib_fn cb;
	void *cbarg;
	struct rib_vec queue; /* dests to look at, FIFO */
	uint64_t seq_sent, seq_acked;
	size_t inflight;
	bool blocked, syncing;
	struct rib_fbatch *fb; /* batches in flight, FIFO */
	uint32_t fb_head, fb_n, fb_cap;
	struct rib_fentry *fe; /* their entries, FIFO */
	size_t fe_head, fe_n, fe_cap;
	struct rib_fib_delta *dscratch; /* one batch being built */
	uint32_t *oscratch;		/* old sent values, for take-back */
	size_t n_want, n_acked;
	uint64_t batches, deltas;

	struct rib_nexthop *hscratch; /* RIB_NH_MAX * RIB_NH_MAX hops */

	/* scratch of rib_route_batch */
	uint32_t *bgrp;
	size_t bgrp_cap;
};

/* rib_table.c */
struct rib_dest *rib_dest(const struct rib *, uint32_t idx);
struct rib_route *rib_route(const struct rib *, uint32_t idx);
uint32_t rib_dest_find(const struct rib *, uint32_t addr, uint8_t len);
/* find or create; RIB_NIL on ENOMEM */
uint32_t rib_dest_get(struct rib *, uint32_t addr, uint8_t len);
void rib_dest_prefetch(const struct rib *, uint32_t addr, uint8_t len,
    bool deep);
/* frees it when nothing refers to it any more */
void rib_dest_gc(struct rib *, uint32_t idx);
/* longest dest with routes covering addr (len >= minlen); RIB_NIL */
uint32_t rib_dest_lpm(const struct rib *, uint32_t addr, unsigned minlen);
/* IPv6: the same by 128-bit address (host bits zero) */
uint32_t rib_dest6_find(const struct rib *, const struct lc_ip6 *, uint8_t len);
uint32_t rib_dest6_get(struct rib *, const struct lc_ip6 *, uint8_t len);
uint32_t rib_dest6_lpm(const struct rib *, const struct lc_ip6 *,
    unsigned minlen);
void rib_dest6_prefetch(const struct rib *, const struct lc_ip6 *, uint8_t len,
    bool deep);
/* room for `more` new IPv6 dests (after rib_table_reserve) */
int rib_table_reserve6(struct rib *, size_t more);
int rib_table_init(struct rib *);
void rib_table_fini(struct rib *);
int rib_table_reserve(struct rib *, size_t more);
static inline struct lc_prefix4
rib_dest_pfx(const struct rib_dest *d)
{
	struct lc_prefix4 p = {lc_ip4_from_host(d->addr), d->len};

	if (d->flags & RIB_DF_V6)
		p.addr.s_addr = 0;
	return (p);
}
static inline const struct lc_ip6 *
rib_dest_a6(const struct rib *rib, const struct rib_dest *d)
{
	return (rib_ipool_at(&rib->a6, d->addr));
}
/* fills the family fields of a delta/info from d */
static inline struct lc_prefix6
rib_dest_pfx6(const struct rib *rib, const struct rib_dest *d)
{
	struct lc_prefix6 p;

	memset(&p, 0, sizeof(p));
	if (d->flags & RIB_DF_V6) {
		p.addr = *rib_dest_a6(rib, d);
		p.len = d->len;
	}
	return (p);
}

/* ---- IPv6 addresses (network order bytes: memcmp orders them) ------------ */
static inline bool
rib_ip6_zero(const struct lc_ip6 *a)
{
	static const struct lc_ip6 z;

	return (memcmp(a, &z, sizeof(z)) == 0);
}
/* a with the bits past len cleared (ones: set) */
static inline struct lc_ip6
rib_ip6_mask(const struct lc_ip6 *a, unsigned len, bool ones)
{
	struct lc_ip6 r = *a;

	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = len >= 8 * (i + 1) ? 8 :
		    len > 8 * i			   ? len - 8 * i :
						     0;
		uint8_t m = (uint8_t)(0xffu >> keep); /* host bits */

		r.b[i] = ones ? (uint8_t)(r.b[i] | m) : (uint8_t)(r.b[i] & ~m);
	}
	return (r);
}
/* 0.0.0.0 or :: on an interface: the destination itself is the gateway */
static inline bool
rib_hop_attached(const struct rib_nexthop *h)
{
	return (h->family == AF_INET6 ? rib_ip6_zero(&h->addr6) :
					h->addr.s_addr == 0);
}
static inline bool
rib_ip6_linklocal(const struct lc_ip6 *a)
{
	return (a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80);
}

/* rib_nh.c */
int rib_nh_init(struct rib *);
void rib_nh_fini(struct rib *);
struct rib_nh *rib_nh(const struct rib *, uint32_t id);
/* intern the set of a route (hops valid): group id with a reference, 0 ENOMEM */
uint32_t rib_grp_get(struct rib *, const struct rib_nexthop *, uint32_t n);
void rib_grp_unref(struct rib *, uint32_t id);
struct rib_grp *rib_grp(const struct rib *, uint32_t id);
struct rib_fibgrp *rib_fg(const struct rib *, uint32_t id);
/*
 * intern a resolved set (sorted, deduplicated here); id with a reference.
 * RIB_FG_NONE only for no hops: out of memory goes to lc_oom().
 */
uint32_t rib_fg_get(struct rib *, uint8_t type, struct rib_nexthop *hop,
    unsigned n);
/* as rib_fg_get, capped at cap hops instead of the ECMP width; RIB_FG_NONE
 * for no hops or out of memory (the caller refuses its request) */
uint32_t rib_fg_intern(struct rib *, uint8_t type, struct rib_nexthop *hop,
    unsigned n, unsigned cap);
void rib_fg_ref(struct rib *, uint32_t id);
void rib_fg_unref(struct rib *, uint32_t id);
/* ECMP union of fib groups, capped to the width: id with a reference */
uint32_t rib_fg_merge(struct rib *, const uint32_t *ids, unsigned n);
void rib_nh_mark_dirty(struct rib *, uint32_t nh);
/* a dest's wanted state or its having routes changed: re-resolve the
 * recursive next hops it covers */
void rib_nh_dest_changed(struct rib *, const struct rib_dest *, uint32_t di);
void rib_nh_if_changed(struct rib *, uint32_t ifindex);
/* re-resolve one dirty next hop and propagate to groups and dests */
void rib_nh_process(struct rib *, uint32_t nh);
void rib_nh_round_end(struct rib *);

/* rib_route.c */
void rib_dest_mark_dirty(struct rib *, uint32_t di);
/* run selection and resolution until nothing changes */
void rib_process(struct rib *);
uint8_t rib_route_distance(const struct rib *, const struct rib_route *);
/* (distance, metric): lower is preferred */
static inline uint64_t
rib_route_key(const struct rib *rib, const struct rib_route *r)
{
	return (((uint64_t)rib_route_distance(rib, r) << 32) | r->metric);
}

/* rib_fib.c */
void rib_fib_enqueue(struct rib *, uint32_t di);
void rib_fib_fini(struct rib *);

/* rib_util.c */
static inline uint32_t
rib_hash32(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return ((uint32_t)x);
}

#endif /* RIB_INT_H */
