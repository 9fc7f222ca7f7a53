/* bgp/bgp_rib6.h: tern-bgp's IPv6 unicast routes (bgp_rib6.c, docs/bgp.md
 * "IPv6 unicast"): every neighbour's paths per IPv6 prefix, as received and
 * after import policy, the best path of each (the rules of bgp_rib.c,
 * through bgp_rib_path_cmp), and what changed, for tern-rib and the
 * neighbours. A table of its own beside the IPv4 one, so that the IPv4
 * table's 16-byte records stay as they are; the neighbours' ids, the local
 * AS and the comparison are the IPv4 table's. */
#ifndef BGP_RIB6_H
#define BGP_RIB6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp_rib.h"

struct bgp_path6 {
	uint16_t peer;
	uint8_t flags;	      /* BGP_PATH_* */
	uint8_t why;	      /* enum bgp_rib_why */
	struct bgp_aset *in;  /* as received */
	struct bgp_aset *set; /* after import policy; NULL: not imported */
	struct lc_ip6 nh;     /* set's global next hop (in's when refused) */
};

struct bgp_dest6 {
	struct bgp_dest6 *next; /* hash chain */
	struct lc_prefix6 pfx;	/* host bits zero */
	uint8_t flags;		/* BGP_DEST_DIRTY */
	bool inst;		/* a route installed in rib, through inst_nh */
	uint16_t npaths, cap;
	struct bgp_path6 *paths;
	struct lc_ip6 inst_nh;
};

struct bgp_rib6;

struct bgp_rib6 *bgp_rib6_new(struct bgp_rib *r4, struct bgp_intern *);
void bgp_rib6_free(struct bgp_rib6 *);

/* The global next hop of an IPv6 set (its MP_REACH_NLRI's first 16
 * bytes): 0, or -EINVAL for a set without one. */
int bgp_aset_nh6(const struct bgp_aset *s, struct lc_ip6 *nh);

/* As bgp_rib_update / withdraw / peer_flush / peer_stale / reimport /
 * peer_counts / peer_stale_count for IPv6 prefixes. */
int bgp_rib6_update(struct bgp_rib6 *, unsigned peer,
    const struct lc_prefix6 *pfx, struct bgp_aset *in, struct bgp_aset *set,
    uint8_t why);
int bgp_rib6_withdraw(struct bgp_rib6 *, unsigned peer,
    const struct lc_prefix6 *pfx);
size_t bgp_rib6_peer_flush(struct bgp_rib6 *, unsigned peer, bool stale_only);
size_t bgp_rib6_peer_stale(struct bgp_rib6 *, unsigned peer);
size_t bgp_rib6_peer_stale_count(const struct bgp_rib6 *, unsigned peer);
typedef struct bgp_aset *bgp_rib6_import_fn(void *arg,
    const struct lc_prefix6 *pfx, struct bgp_aset *in, uint8_t *why);
size_t bgp_rib6_reimport(struct bgp_rib6 *, unsigned peer,
    bgp_rib6_import_fn *fn, void *arg);
void bgp_rib6_peer_counts(const struct bgp_rib6 *, unsigned peer, size_t *all,
    size_t *imported);

/*
 * The changed list, drained: each changed prefix's best path chosen again
 * (one next hop: IPv6 multipath is not done), notify(arg, dest) called, and
 * when what rib should have changed, emit(arg, dest, nh) with the next hop
 * to install (NULL: withdraw). emit < 0 stops (the prefix stays). Returns
 * the prefixes drained.
 */
typedef int bgp_rib6_emit_fn(void *arg, const struct bgp_dest6 *,
    const struct lc_ip6 *nh);
typedef void bgp_rib6_notify_fn(void *arg, const struct bgp_dest6 *);
size_t bgp_rib6_drain(struct bgp_rib6 *, size_t max, bgp_rib6_emit_fn *emit,
    void *arg);
size_t bgp_rib6_pending(const struct bgp_rib6 *);
void bgp_rib6_set_notify(struct bgp_rib6 *, bgp_rib6_notify_fn *, void *arg);
/* rib lost what it had: every prefix with a best path sent again. */
void bgp_rib6_resend_all(struct bgp_rib6 *);

const struct bgp_dest6 *bgp_rib6_find(const struct bgp_rib6 *,
    const struct lc_prefix6 *pfx);
const struct bgp_path6 *bgp_rib6_best(const struct bgp_dest6 *);
/* The next prefix at or after *cursor (start with 0), NULL at the end. A
 * walk over loop turns may see a prefix added meanwhile or not. */
const struct bgp_dest6 *bgp_rib6_next(const struct bgp_rib6 *,
    uint64_t *cursor);

struct bgp_rib6_stats {
	size_t dests, paths, best;
};
void bgp_rib6_stats(const struct bgp_rib6 *, struct bgp_rib6_stats *);

#endif /* BGP_RIB6_H */
