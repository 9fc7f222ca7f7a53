/* bgp/bgp_msg.h: BGP-4 messages: framing a byte stream, and parsing and
 * encoding OPEN (with capabilities), UPDATE, NOTIFICATION, KEEPALIVE and
 * ROUTE-REFRESH (RFC 4271, 5492, 6793, 4760, 2918, 7313, 4724, 7606). No
 * allocation: parsers point into the caller's buffer, encoders write into
 * the caller's. */
#ifndef BGP_MSG_H
#define BGP_MSG_H

#include "bgp_attr.h"

#define BGP_VERSION   4
#define BGP_PORT      179
#define BGP_OPEN_MIN  29
#define BGP_UPD_MIN   23
#define BGP_NOTIF_MIN 21
#define BGP_RR_LEN    23

enum bgp_type {
	BGP_OPEN = 1,
	BGP_UPDATE = 2,
	BGP_NOTIFICATION = 3,
	BGP_KEEPALIVE = 4,
	BGP_ROUTE_REFRESH = 5,
};

/* Names for the log and `show` ("UPDATE Message Error", "Malformed
 * AS_PATH"); "unknown" for codes we do not know. Never NULL. */
const char *bgp_type_str(uint8_t type);
const char *bgp_err_code_str(uint8_t code);
const char *bgp_err_subcode_str(uint8_t code, uint8_t subcode);

/*
 * Framing (RFC 4271 4.1, 6.1): checks the header at p[0..n). Returns the
 * message's length (19..4096) with *type set, once n >= 19 (the caller
 * waits for that many bytes, then for the length, then parses); -EAGAIN
 * when n < 19; -EBADMSG with *err (Message Header Error) for a marker that
 * is not all ones, a length out of range or wrong for the type (KEEPALIVE
 * 19, OPEN >= 29, UPDATE >= 23, NOTIFICATION >= 21; ROUTE-REFRESH is judged
 * by bgp_rr_parse, RFC 7313 5) or an unknown type.
 */
int bgp_msg_check_hdr(const uint8_t *p, size_t n, uint8_t *type,
    struct bgp_err *err);

/* ---- OPEN (RFC 4271 4.2, RFC 5492) ------------------------------------------- */
/* Capability codes */
#define BGP_CAP_MP	1
#define BGP_CAP_RR	2
#define BGP_CAP_EXTNH	5
#define BGP_CAP_EXTMSG	6
#define BGP_CAP_ROLE	9
#define BGP_CAP_GR	64
#define BGP_CAP_AS4	65
#define BGP_CAP_ADDPATH 69
#define BGP_CAP_ERR	70
#define BGP_CAP_LLGR	71
#define BGP_CAP_FQDN	73
#define BGP_CAP_RR_OLD	128

/* bgp_open.caps: the capabilities present */
#define BGP_OPEN_F_MP	   0x001 /* one or more MP capabilities */
#define BGP_OPEN_F_RR	   0x002 /* route refresh (RFC 2918) */
#define BGP_OPEN_F_RR_OLD  0x004 /* the pre-standard code 128 */
#define BGP_OPEN_F_AS4	   0x008 /* 4-octet AS (RFC 6793) */
#define BGP_OPEN_F_GR	   0x010 /* graceful restart (RFC 4724) */
#define BGP_OPEN_F_ERR	   0x020 /* enhanced route refresh (RFC 7313) */
#define BGP_OPEN_F_ADDPATH 0x040 /* seen, not supported */
#define BGP_OPEN_F_EXTMSG  0x080 /* seen, not supported */
#define BGP_OPEN_F_EXTNH   0x100 /* seen, not supported */
/* what bgp_open_encode writes */
#define BGP_OPEN_F_ENCODED                                                    \
	(BGP_OPEN_F_MP | BGP_OPEN_F_RR | BGP_OPEN_F_RR_OLD | BGP_OPEN_F_AS4 | \
	    BGP_OPEN_F_GR | BGP_OPEN_F_ERR)

/* bgp_open.gr_flags (RFC 4724 3, RFC 8538 2) */
#define BGP_GR_F_RESTART 0x8 /* R: the speaker has restarted */
#define BGP_GR_F_NOTIFY	 0x4 /* N: graceful notification */
#define BGP_GR_TIME_MAX	 4095

/*
 * An OPEN as parsed, or as bgp_open_encode() writes it (then set version,
 * as, hold, id, caps, mp and the gr_ fields; my_as is derived).
 */
struct bgp_open {
	uint8_t version;
	uint16_t my_as;	    /* the 2-octet field (AS_TRANS for a 4-octet AS) */
	uint32_t as;	    /* the speaker's AS: the 4-octet capability's, or
			    * my_as */
	uint16_t hold;	    /* seconds: 0, or >= 3 */
	struct lc_ip4 id;   /* BGP Identifier */
	uint32_t caps;	    /* BGP_OPEN_F_* */
	uint8_t mp;	    /* BGP_AF_BIT()s of the MP capabilities we know */
	uint8_t gr_flags;   /* BGP_GR_F_* */
	uint16_t gr_time;   /* restart time, seconds (<= 4095) */
	uint8_t gr_afs;	    /* AFs listed in the graceful restart capability */
	uint8_t gr_fwd;	    /* of those, the ones whose forwarding state was
			    * kept across the restart (F bit) */
	uint16_t n_unknown; /* capabilities ignored (RFC 5492 3: unknown ones,
			     * or MP for an AF we do not know) */
};

/*
 * Parses the OPEN msg[0..len) (checked by bgp_msg_check_hdr). 0, or -EBADMSG
 * with *err (OPEN Message Error, RFC 4271 6.2): a version other than 4
 * (data: 4), My AS 0 or disagreeing with the 4-octet capability (RFC 6793,
 * 7607), hold time 1 or 2, BGP Identifier 0, an optional parameter other
 * than capabilities, a known capability of the wrong length, lengths that
 * do not add up. Extended optional parameters (RFC 9072) are read.
 */
int bgp_open_parse(const uint8_t *msg, size_t len, struct bgp_open *o,
    struct bgp_err *err);
/*
 * Writes the OPEN o into buf: the capabilities in caps (MP for each AF of
 * mp; route refresh as codes 2 and 128; graceful restart with gr_*), all in
 * one optional parameter. Returns the length, or -ENOSPC, -EINVAL (a hold
 * time of 1 or 2, a restart time over 4095).
 */
int bgp_open_encode(uint8_t *buf, size_t cap, const struct bgp_open *o);
/*
 * The session's peer AS check (RFC 4271 6.2): 0 when the OPEN's AS is
 * remote_as, else the subcode to send (BGP_ERR_OPEN_PEER_AS).
 */
int bgp_open_check_as(const struct bgp_open *o, uint32_t remote_as);
/* The negotiated hold time (RFC 4271 4.2): the smaller, 0 if either is 0. */
uint16_t bgp_open_hold(const struct bgp_open *local,
    const struct bgp_open *peer);
/*
 * What both OPENs agree on, for parsing and encoding on the session: 4-octet
 * ASes when both sent the capability; the AFs both announced (a side
 * without MP capabilities announces IPv4 unicast, RFC 4760 8); for ebgp, the
 * peer's AS as the leftmost AS of every AS_PATH (clear c->first_as for a
 * route server peer).
 */
void bgp_codec_init(struct bgp_codec *c, const struct bgp_open *local,
    const struct bgp_open *peer, bool ebgp);

/* ---- KEEPALIVE, NOTIFICATION, ROUTE-REFRESH -------------------------------------- */
/* Writes a KEEPALIVE (19 bytes): the length, or -ENOSPC. */
int bgp_keepalive_encode(uint8_t *buf, size_t cap);

struct bgp_notification {
	uint8_t code;
	uint8_t subcode;
	uint16_t len;
	const uint8_t *data; /* into the message */
};
/* 0 (any code is accepted: it only ends the session). */
int bgp_notification_parse(const uint8_t *msg, size_t len,
    struct bgp_notification *n);
/* Writes a NOTIFICATION; data is cut to what a message holds. The length,
 * or -ENOSPC. */
int bgp_notification_encode(uint8_t *buf, size_t cap, uint8_t code,
    uint8_t subcode, const uint8_t *data, size_t dlen);
/* The same for an error a parser gave. */
int bgp_err_encode(uint8_t *buf, size_t cap, const struct bgp_err *e);

/* ROUTE-REFRESH subtypes (RFC 7313 3) */
#define BGP_RR_REQUEST 0
#define BGP_RR_BORR    1 /* beginning of route refresh */
#define BGP_RR_EORR    2 /* end of route refresh */
struct bgp_rr {
	uint16_t afi;
	uint8_t subtype; /* BGP_RR_*; others are to be ignored (RFC 7313 5) */
	uint8_t safi;
	int af; /* enum bgp_af, -1 for an AFI/SAFI we do not know (ignored,
		 * RFC 2918 4) */
};
/* 0, or -EBADMSG with *err (ROUTE-REFRESH Message Error, Invalid Message
 * Length, the message as data: RFC 7313 5) for a length other than 23. */
int bgp_rr_parse(const uint8_t *msg, size_t len, struct bgp_rr *rr,
    struct bgp_err *err);
int bgp_rr_encode(uint8_t *buf, size_t cap, enum bgp_af af, uint8_t subtype);

/* ---- UPDATE (RFC 4271 4.3, RFC 4760, RFC 7606) ------------------------------------ */
/*
 * An UPDATE as parsed. Its prefixes come as fields: first every field of
 * unreach[] is withdrawn, then every prefix of reach[] is announced with a
 * (each field carries its next hop). Treat-as-withdraw has already moved
 * the reach fields to unreach, so the caller needs no case of its own.
 * Fields of an AF the session does not have are left out.
 */
struct bgp_update {
	struct bgp_nlri unreach[4]; /* Withdrawn Routes, MP_UNREACH_NLRI, and
				     * treat-as-withdraw's reach fields */
	struct bgp_nlri reach[2]; /* NLRI (next hop NEXT_HOP), MP_REACH_NLRI */
	uint8_t n_unreach;
	uint8_t n_reach;
	int eor; /* End-of-RIB (RFC 4724 2): its enum bgp_af, else -1 */
	struct bgp_attrs a; /* a.nexthop: the NLRI field's next hop, or the
			     * MP_REACH_NLRI one's when that is IPv4 */
};

/*
 * Parses the UPDATE msg[0..len) (checked by bgp_msg_check_hdr) as session c
 * sees it; scratch (BGP_ASPATH_SCRATCH bytes) takes a 2-octet session's AS
 * path, and msg and scratch must outlive the use of *u. Returns 0 when the
 * session goes on (u->a.outcome says whether attributes were discarded or
 * the UPDATE is treated as withdraw, u->a.why why), or -EBADMSG with *err,
 * the NOTIFICATION that resets it. Every RFC 7606 case is here: lengths
 * that do not add up and prefixes that do not parse (reset, 7606 5.3), each
 * attribute's outcome (section 7), duplicates (3 (g)), missing mandatory
 * attributes (3 (d)), an attribute overrunning the block (section 4:
 * treat-as-withdraw when the prefixes are known, else reset). Never
 * allocates.
 */
int bgp_update_parse(const uint8_t *msg, size_t len, const struct bgp_codec *c,
    uint8_t *scratch, struct bgp_update *u, struct bgp_err *err);

/* Writes the End-of-RIB marker for af (RFC 4724 2): the length, or -ENOSPC. */
int bgp_eor_encode(uint8_t *buf, size_t cap, enum bgp_af af);

/*
 * The UPDATE builder of one session and AF: set the attributes once, add
 * prefixes to withdraw and to announce until an add says the message is
 * full, finish (which keeps the attributes for the next message), repeat.
 * IPv4 uses the Withdrawn Routes and NLRI fields, IPv6 MP_UNREACH_NLRI and
 * MP_REACH_NLRI, encoded first among the attributes (RFC 7606 5.1). A
 * builder is about 16 KB; it never allocates.
 */
struct bgp_upd_builder {
	struct bgp_codec c;
	enum bgp_af af;
	bool has_attrs;
	uint8_t nh_len; /* IPv6: the MP_REACH_NLRI next hop */
	uint8_t nh[32];
	size_t attr_len, wd_len, nlri_len;
	uint8_t attr[BGP_MAX_LEN]; /* encoded for the session, no MP */
	uint8_t wd[BGP_MAX_LEN];
	uint8_t nlri[BGP_MAX_LEN];
	uint8_t msg[BGP_MAX_LEN];
};

void bgp_upd_init(struct bgp_upd_builder *b, const struct bgp_codec *c,
    enum bgp_af af);
/*
 * The attributes of the prefixes announced from now on (a's NEXT_HOP for
 * IPv4, a->mp_reach's next hop for IPv6). 0; -EBUSY when announcements
 * are pending (finish first); -EINVAL without ORIGIN, AS_PATH or the next
 * hop; -E2BIG when they leave no room for a prefix in a message.
 */
int bgp_upd_set_attrs(struct bgp_upd_builder *b, const struct bgp_attrs *a);
/*
 * Adds a prefix (addr: the address's octets in network order, len its
 * length) to withdraw or to announce. 0; -ENOSPC when the message is full
 * (finish, then add it again); -EINVAL for a length beyond the AF's, or an
 * announcement with no attributes set.
 */
int bgp_upd_withdraw(struct bgp_upd_builder *b, const void *addr, unsigned len);
int bgp_upd_announce(struct bgp_upd_builder *b, const void *addr, unsigned len);
/* Nothing pending? */
static inline bool
bgp_upd_empty(const struct bgp_upd_builder *b)
{
	return (b->wd_len == 0 && b->nlri_len == 0);
}
/*
 * Makes the message of the prefixes added: *msg points at it in the builder
 * (valid until the next add). Returns its length, 0 when nothing was added.
 */
size_t bgp_upd_finish(struct bgp_upd_builder *b, const uint8_t **msg);

#endif /* BGP_MSG_H */
