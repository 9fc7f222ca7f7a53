/* bgp/bgp_attr.h: BGP-4 path attributes (parse into a struct that points into
 * the receive buffer, the RFC 7606 outcome, canonical and per-session
 * encodings, an intern table of attribute sets), and the few types the whole
 * message layer shares (bgp_msg.h builds on this file). */
#ifndef BGP_ATTR_H
#define BGP_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/lc_addr.h"

#define BGP_HDR_LEN  19
#define BGP_MAX_LEN  4096  /* RFC 4271 4.1 (no RFC 8654 extended messages) */
#define BGP_AS_TRANS 23456 /* RFC 6793: My AS and AS_PATH for a 2-octet peer */

/* ---- address families --------------------------------------------------- */
/* The AFI/SAFI pairs we know, as small indices for bitmaps (BGP_AF_BIT). */
enum bgp_af {
	BGP_AF_IPV4 = 0, /* AFI 1, SAFI 1 */
	BGP_AF_IPV6 = 1, /* AFI 2, SAFI 1 */
	BGP_AF_COUNT
};
#define BGP_AF_BIT(af)	 (1u << (af))
#define BGP_AFI_IPV4	 1
#define BGP_AFI_IPV6	 2
#define BGP_SAFI_UNICAST 1

/* enum bgp_af of (afi, safi), or -1 for a pair we do not know. */
int bgp_af_of(uint16_t afi, uint8_t safi);
uint16_t bgp_af_afi(enum bgp_af);
uint8_t bgp_af_safi(enum bgp_af);

/* ---- errors: what a NOTIFICATION would say (RFC 4271 4.5, 6) -------------- */
enum {
	BGP_ERR_HDR = 1,
	BGP_ERR_OPEN = 2,
	BGP_ERR_UPDATE = 3,
	BGP_ERR_HOLD = 4,
	BGP_ERR_FSM = 5,
	BGP_ERR_CEASE = 6,
	BGP_ERR_RR = 7, /* RFC 7313 */
};
/* Message Header Error subcodes */
#define BGP_ERR_HDR_SYNC 1
#define BGP_ERR_HDR_LEN	 2 /* data: the 2-octet length field */
#define BGP_ERR_HDR_TYPE 3 /* data: the type octet */
/* OPEN Message Error subcodes (0: unspecific, RFC 4271 errata / IANA) */
#define BGP_ERR_OPEN_UNSPEC   0
#define BGP_ERR_OPEN_VERSION  1 /* data: 2 octets, the version we support */
#define BGP_ERR_OPEN_PEER_AS  2
#define BGP_ERR_OPEN_ID	      3
#define BGP_ERR_OPEN_OPTPARAM 4
#define BGP_ERR_OPEN_HOLD     6
#define BGP_ERR_OPEN_CAP      7 /* RFC 5492 */
/* UPDATE Message Error subcodes */
#define BGP_ERR_UPD_ATTRLIST  1
#define BGP_ERR_UPD_WELLKNOWN 2 /* data: the attribute */
#define BGP_ERR_UPD_MISSING   3
#define BGP_ERR_UPD_FLAGS     4 /* data: the attribute */
#define BGP_ERR_UPD_LENGTH    5 /* data: the attribute */
#define BGP_ERR_UPD_ORIGIN    6
#define BGP_ERR_UPD_NEXTHOP   8
#define BGP_ERR_UPD_OPTATTR   9 /* data: the attribute */
#define BGP_ERR_UPD_NETWORK   10
#define BGP_ERR_UPD_ASPATH    11
/* Cease subcodes (RFC 4486, 8538) */
#define BGP_CEASE_MAXPFX     1
#define BGP_CEASE_SHUTDOWN   2
#define BGP_CEASE_DECONFIG   3
#define BGP_CEASE_RESET	     4
#define BGP_CEASE_REJECTED   5
#define BGP_CEASE_CONFIG     6
#define BGP_CEASE_COLLISION  7
#define BGP_CEASE_RESOURCES  8
#define BGP_CEASE_HARD_RESET 9
/* ROUTE-REFRESH Message Error subcodes (RFC 7313) */
#define BGP_ERR_RR_LEN 1 /* data: the whole message */

/*
 * An error that resets the session: the NOTIFICATION's code, subcode and
 * data, and a line for the log. data points into the message that was parsed
 * (valid while its buffer is), or, when NULL, the data is own[0..len): use
 * bgp_err_data(). reason is a static string.
 */
struct bgp_err {
	uint8_t code;
	uint8_t subcode;
	uint16_t len;
	const uint8_t *data;
	uint8_t own[4];
	const char *reason;
};

static inline const uint8_t *
bgp_err_data(const struct bgp_err *e)
{
	return (e->data != NULL ? e->data : e->own);
}

/*
 * What RFC 7606 says to do with an UPDATE, weakest first, so that the
 * outcome of several errors is the largest (7606 section 3 (j)): nothing;
 * "attribute discard" (the UPDATE is used without the bad attribute);
 * "treat-as-withdraw" (every prefix the UPDATE announces is withdrawn);
 * "session reset" (a NOTIFICATION, then the session closes).
 */
enum bgp_outcome {
	BGP_OUT_OK = 0,
	BGP_OUT_DISCARD = 1,
	BGP_OUT_WITHDRAW = 2,
	BGP_OUT_RESET = 3,
};

/*
 * What the codec must know of a session, fixed when it is Established
 * (bgp_codec_init() in bgp_msg.h fills it from the two OPENs).
 */
struct bgp_codec {
	bool as4;	   /* both sides sent the 4-octet AS capability */
	bool ebgp;	   /* LOCAL_PREF, ORIGINATOR_ID, CLUSTER_LIST dropped */
	uint8_t afs;	   /* BGP_AF_BIT()s both sides may send */
	uint32_t first_as; /* not 0: the leftmost AS every AS_PATH must have
			    * (the eBGP peer's, RFC 4271 6.3); 0 for iBGP and
			    * route servers */
};

/* Big-endian fields of the wire format. */
static inline uint16_t
bgp_get16(const uint8_t *p)
{
	return ((uint16_t)(p[0] << 8 | p[1]));
}
static inline uint32_t
bgp_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3]);
}
static inline void
bgp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void
bgp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- attributes ----------------------------------------------------------- */
enum bgp_attr_type {
	BGP_ATTR_ORIGIN = 1,
	BGP_ATTR_AS_PATH = 2,
	BGP_ATTR_NEXT_HOP = 3,
	BGP_ATTR_MED = 4,
	BGP_ATTR_LOCAL_PREF = 5,
	BGP_ATTR_ATOMIC_AGGREGATE = 6,
	BGP_ATTR_AGGREGATOR = 7,
	BGP_ATTR_COMMUNITIES = 8,      /* RFC 1997 */
	BGP_ATTR_ORIGINATOR_ID = 9,    /* RFC 4456 */
	BGP_ATTR_CLUSTER_LIST = 10,    /* RFC 4456 */
	BGP_ATTR_MP_REACH = 14,	       /* RFC 4760 */
	BGP_ATTR_MP_UNREACH = 15,      /* RFC 4760 */
	BGP_ATTR_EXT_COMMUNITIES = 16, /* RFC 4360 */
	BGP_ATTR_AS4_PATH = 17,	       /* RFC 6793 */
	BGP_ATTR_AS4_AGGREGATOR = 18,  /* RFC 6793 */
	BGP_ATTR_LARGE_COMMUNITY = 32, /* RFC 8092 */
};
#define BGP_ABIT(t) (1ull << (t)) /* bgp_attrs.present; known types < 64 */

/* Attribute flags */
#define BGP_ATTR_F_OPTIONAL   0x80
#define BGP_ATTR_F_TRANSITIVE 0x40
#define BGP_ATTR_F_PARTIAL    0x20
#define BGP_ATTR_F_EXTLEN     0x10

/* AS_PATH segment types */
#define BGP_AS_SET	       1
#define BGP_AS_SEQUENCE	       2
#define BGP_AS_CONFED_SEQUENCE 3
#define BGP_AS_CONFED_SET      4

#define BGP_ORIGIN_IGP	      0
#define BGP_ORIGIN_EGP	      1
#define BGP_ORIGIN_INCOMPLETE 2

/* A field of prefixes in the wire encoding (RFC 4271 4.3): the Withdrawn
 * Routes or NLRI field, or the prefixes of an MP attribute. */
struct bgp_nlri {
	const uint8_t *p;
	uint16_t len;
	uint8_t af;	   /* enum bgp_af */
	uint8_t nh_len;	   /* reachable ones: bytes at nh (4, 16 or 32) */
	const uint8_t *nh; /* reachable ones: the next hop, network order */
};

/*
 * 0 when p[0..len) is a whole number of prefixes of af, each no longer than
 * the family's addresses (RFC 7606 5.3); -EBADMSG otherwise.
 */
int bgp_nlri_check(const uint8_t *p, size_t len, enum bgp_af af);

/* Walks a field of prefixes: host bits beyond the length are cleared. */
struct bgp_nlri_iter {
	const uint8_t *p;
	const uint8_t *end;
};
static inline void
bgp_nlri_iter_init(struct bgp_nlri_iter *it, const struct bgp_nlri *f)
{
	it->p = f->p;
	it->end = f->p + f->len;
}
/* 1 and the next prefix, 0 at the end, -EBADMSG on a field that
 * bgp_nlri_check() refuses (never for one a parser accepted). */
int bgp_nlri_next4(struct bgp_nlri_iter *, struct lc_prefix4 *);
int bgp_nlri_next6(struct bgp_nlri_iter *, struct lc_prefix6 *);
/* Writes one prefix (the first (len + 7) / 8 octets of addr, host bits
 * cleared): the bytes written, or -ENOSPC. */
int bgp_nlri_put(uint8_t *buf, size_t cap, const uint8_t *addr, unsigned len);

/*
 * The scratch a 2-octet session's AS_PATH is widened and merged into (RFC
 * 6793 4.2.3); and the largest canonical encoding (the AS path can grow to
 * twice its wire size, the rest is at most one message).
 */
#define BGP_ASPATH_SCRATCH (2 * BGP_MAX_LEN)
#define BGP_ATTR_CANON_MAX (3 * BGP_MAX_LEN)

/*
 * Path attributes as parsed: pointers into the buffer given to
 * bgp_attr_parse() (the receive buffer, or an interned set), and for the
 * AS path of a 2-octet session into the caller's scratch. Values are in host
 * order, addresses in network order. A field is meaningful when its type's
 * bit is in present.
 */
struct bgp_attrs {
	uint64_t present;    /* BGP_ABIT(type) of the known attributes kept */
	uint64_t unknown[4]; /* bit t: optional transitive type t we do not
			       * know, carried on with Partial set (first of a
			       * type; found again in raw) */
	const uint8_t *raw;  /* the block parsed */
	uint32_t raw_len;
	uint8_t origin;
	const uint8_t *aspath; /* segments of 4-octet ASes */
	uint16_t aspath_len;
	struct lc_ip4 nexthop;
	const uint8_t *nexthop_p; /* the 4 octets in the buffer */
	uint32_t med;
	uint32_t local_pref;
	uint32_t agg_as;
	struct lc_ip4 agg_id;
	const uint8_t *comm; /* RFC 1997: 4 octets each */
	uint16_t comm_len;
	const uint8_t *ext; /* RFC 4360: 8 octets each */
	uint16_t ext_len;
	const uint8_t *large; /* RFC 8092: 12 octets each */
	uint16_t large_len;
	struct lc_ip4 originator;
	const uint8_t *cluster; /* 4 octets each */
	uint16_t cluster_len;
	struct bgp_nlri mp_reach; /* with its next hop */
	struct bgp_nlri mp_unreach;
	/* RFC 7606: the outcome of the errors found, the first error of that
	 * strength (static string) and its attribute type. */
	enum bgp_outcome outcome;
	uint8_t why_type;
	const char *why;
	/* NEXT_HOP errors count only when the NLRI field is not empty (RFC
	 * 4760 section 3): set here, judged by bgp_update_parse(). */
	const char *nh_why;
	bool broken; /* the block ended inside an attribute (7606 section 4) */
};

/*
 * Parses the path attributes p[0..len) of an UPDATE into *a, without
 * allocating. c says how the session encodes AS numbers and which AFs it has
 * (MP attributes of other AFs are ignored, RFC 4760 7). On a 2-octet
 * session the AS_PATH is widened into scratch (BGP_ASPATH_SCRATCH bytes)
 * and merged with AS4_PATH and AS4_AGGREGATOR (RFC 6793 4.2.3); on a 4-octet
 * one scratch may be NULL. Returns the RFC 7606 outcome (also in
 * a->outcome): for BGP_OUT_RESET *err is the NOTIFICATION to send. A
 * canonical encoding (bgp_attr_canon) parses back with c->as4 set.
 * Mandatory attributes and NEXT_HOP are judged by bgp_update_parse(), which
 * knows the NLRI field.
 */
enum bgp_outcome bgp_attr_parse(const uint8_t *p, size_t len,
    const struct bgp_codec *c, uint8_t *scratch, struct bgp_attrs *a,
    struct bgp_err *err);

/*
 * The canonical encoding of a's attributes for routes of af, the key of the
 * intern table: sorted by type code, flags normalised (as specified; Partial
 * only on unknown transitive ones, which have it; Extended Length only over
 * 255 octets), AS_PATH and AGGREGATOR with 4-octet ASes and no AS4_*, the
 * next hop as NEXT_HOP (IPv4) or as an MP_REACH_NLRI without prefixes
 * (IPv6), no MP_UNREACH_NLRI. Returns the length, or -ENOSPC when cap
 * (BGP_ATTR_CANON_MAX is always enough for a parsed UPDATE) is too small.
 */
int bgp_attr_canon(const struct bgp_attrs *a, enum bgp_af af, uint8_t *buf,
    size_t cap);

/*
 * The attributes as sent on session c for routes of af, without MP
 * attributes (the UPDATE builder adds MP_REACH_NLRI for IPv6): a 2-octet
 * session gets AS_TRANS in AS_PATH and AGGREGATOR and the real ASes in
 * AS4_PATH and AS4_AGGREGATOR (RFC 6793 4.2.2), an eBGP one no LOCAL_PREF,
 * ORIGINATOR_ID or CLUSTER_LIST; NEXT_HOP only for IPv4. Returns the
 * length, or -ENOSPC.
 */
int bgp_attr_encode(const struct bgp_attrs *a, const struct bgp_codec *c,
    enum bgp_af af, uint8_t *buf, size_t cap);

/* ---- AS paths (segments of 4-octet ASes, as in bgp_attrs.aspath) ---------- */
/* Its length for best path selection (RFC 4271 9.1.2.2: a set counts one,
 * confederation segments none). */
unsigned bgp_aspath_count(const uint8_t *p, size_t len);
/* The leftmost AS of a leading AS_SEQUENCE, or 0 (empty, or a set first). */
uint32_t bgp_aspath_first(const uint8_t *p, size_t len);
/* true when as is anywhere in the path (loop detection, RFC 4271 9.1.2). */
bool bgp_aspath_contains(const uint8_t *p, size_t len, uint32_t as);
/* Writes as n times in front of the path into out (eBGP export, prepend
 * policy): the length, or -ENOSPC. */
int bgp_aspath_prepend(const uint8_t *p, size_t len, uint32_t as, unsigned n,
    uint8_t *out, size_t cap);
/* "65001 65002 {65003,65004} (65005)"; the length printed (as snprintf). */
int bgp_aspath_str(const uint8_t *p, size_t len, char *buf, size_t n);

/* ---- the intern table of attribute sets ------------------------------------ */
/*
 * An attribute set stored once however many routes share it: its canonical
 * encoding, with the fields best path selection reads decoded once. Owned by
 * the table; each route holds a reference.
 */
struct bgp_aset {
	struct bgp_aset *next; /* hash chain */
	uint32_t hash;
	uint32_t refs;
	uint32_t local_pref; /* 100 when absent (RFC 4271 leaves it local) */
	uint32_t med;	     /* 0 when absent */
	uint32_t first_as;   /* bgp_aspath_first() */
	uint16_t aspath_count;
	uint8_t origin;
	uint8_t flags;	       /* BGP_ASET_F_* */
	struct lc_ip4 nexthop; /* IPv4 sets */
	uint16_t len;
	uint8_t data[]; /* the canonical encoding */
};
#define BGP_ASET_F_MED	      0x01
#define BGP_ASET_F_LOCAL_PREF 0x02
#define BGP_ASET_F_ATOMIC     0x04

struct bgp_intern;

/* An empty table; NULL with errno ENOMEM. */
struct bgp_intern *bgp_intern_new(void);
/* Frees the table and every set still in it. */
void bgp_intern_free(struct bgp_intern *);
/*
 * The set whose canonical encoding is canon[0..len), with one more
 * reference: found (no allocation), or made. NULL with errno ENOMEM, or
 * EINVAL when canon does not parse as a canonical encoding.
 */
struct bgp_aset *bgp_intern_get(struct bgp_intern *, const uint8_t *canon,
    size_t len);
/* One more reference to s; returns s. */
struct bgp_aset *bgp_aset_ref(struct bgp_aset *s);
/* Drops a reference; the last one frees the set. */
void bgp_aset_unref(struct bgp_intern *, struct bgp_aset *s);
/* The set's attributes decoded (pointing into s->data): 0 or -EINVAL. */
int bgp_aset_attrs(const struct bgp_aset *s, struct bgp_attrs *a);

struct bgp_intern_stats {
	size_t sets;  /* distinct sets held */
	size_t bytes; /* their memory: entries and the bucket array */
	size_t buckets;
};
void bgp_intern_stats(const struct bgp_intern *, struct bgp_intern_stats *);

/* A 64-bit hash of p[0..n) (word at a time, 128-bit multiply mix). */
uint64_t bgp_hash(const void *p, size_t n, uint64_t seed);

#endif /* BGP_ATTR_H */
