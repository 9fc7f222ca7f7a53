/* tests/lib/bgpfeed.h: the routes of bench-bgp's feeder (tests/bench/bgp_feeder.c): the standard prefix set with a few thousand attribute sets assigned, pre-encoded as UPDATEs with tern's message layer, and the reference best path of the multi-peer case. */
#ifndef TT_BGPFEED_H
#define TT_BGPFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp/bgp_msg.h"
#include "tests/lib/prefixset.h"

#define TT_FEED_SETS	  4000			/* attribute sets by default */
#define TT_FEED_SEED	  0x7465726e2d626770ull /* attribute sets' seed */
#define TT_FEED_PATH_MIN  2			/* AS path lengths sent */
#define TT_FEED_PATH_MAX  8
#define TT_FEED_PEERS_MAX 7 /* 2-8 ASes leave room for 7 distinct lengths */

/*
 * What one feeder sends. The prefix set and the attribute sets depend only
 * on (n, seed, nsets, attr_seed, ebgp, peers): every feeder of a run has the
 * same ones, so the bench can compute the winner of every prefix.
 */
struct tt_feed_conf {
	size_t n;	    /* prefixes of the standard set */
	uint64_t seed;	    /* of the prefix set (TT_PFX_SEED) */
	unsigned nsets;	    /* attribute sets (TT_FEED_SETS) */
	uint64_t attr_seed; /* of the attribute sets (TT_FEED_SEED) */
	uint32_t as;	    /* the feeder's AS */
	bool ebgp;	  /* the feeder's AS leads every path; no LOCAL_PREF */
	uint32_t nexthop; /* NEXT_HOP, host order */
	unsigned peers;	  /* feeders of the multi-peer case, 1..7 */
	unsigned index;	  /* this feeder's, 0..peers-1 */
};

/* One attribute set: the same for every feeder but for the AS path's
 * padding (tt_feed_path_len) and, for eBGP, the feeder's AS in front. */
struct tt_feed_set {
	uint32_t as[TT_FEED_PATH_MAX]; /* the path's ASes after the feeder's */
	uint32_t med;
	uint32_t comm[4];
	uint32_t prefixes; /* how many prefixes have it */
	uint8_t lenr;	   /* random, picks the base length */
	uint8_t origin;
	uint8_t ncomm;
	bool has_med;
};

struct tt_feed {
	struct tt_feed_conf c;
	struct tt_prefixset ps;
	struct tt_feed_set *sets; /* c.nsets */
	uint32_t *set_of;	  /* ps.n: prefix i's set */
	uint32_t *order;	  /* ps.n: prefix indexes grouped by set */
	uint32_t *set_first;	  /* c.nsets + 1: a set's range in order[] */
	/* every UPDATE, back to back, as tt_feed_encode() left them */
	uint8_t *msgs;
	size_t len, cap, nmsgs;
};

/*
 * Generates the prefix set and the attribute sets, and assigns each prefix
 * a set: set = nsets * u^2 for u uniform in [0, 1), so that a few sets have
 * many prefixes and most have a few hundred. 0, -EINVAL (a bad conf),
 * -ENOMEM.
 */
int tt_feed_init(struct tt_feed *, const struct tt_feed_conf *);
void tt_feed_fini(struct tt_feed *);

/* The AS path length (RFC 4271 9.1.2.2, the feeder's AS included for
 * eBGP) that feeder k gives set s: distinct for each k of c->peers. */
unsigned tt_feed_path_len(const struct tt_feed *, unsigned s, unsigned k);
/* The feeder (0..peers-1) with the shortest path of set s: the best path
 * of every prefix of s on a receiver that prefers the shortest AS path. */
unsigned tt_feed_best(const struct tt_feed *, unsigned s);

/*
 * Set s's attributes as this feeder sends them, with NEXT_HOP nh (host
 * order): written as an attribute block into buf (cap >= 256) and parsed
 * into *a (pointing into buf), ready for bgp_upd_set_attrs(). 0 or -EINVAL.
 */
int tt_feed_attrs(const struct tt_feed *, unsigned s, uint32_t nh, uint8_t *buf,
    size_t cap, struct bgp_attrs *a);

/*
 * Encodes every prefix for session c into f->msgs (replacing what was
 * there): set by set, as many prefixes of a set per UPDATE as fit in 4096
 * octets. 0, -ENOMEM, or the builder's -errno.
 */
int tt_feed_encode(struct tt_feed *, const struct bgp_codec *c);

/*
 * One UPDATE announcing prefix i alone with its set's attributes and next
 * hop nh (churn): *msg points into b. The length, or -errno.
 */
int tt_feed_one(const struct tt_feed *, struct bgp_upd_builder *b, size_t i,
    uint32_t nh, const uint8_t **msg);

#endif /* TT_BGPFEED_H */
