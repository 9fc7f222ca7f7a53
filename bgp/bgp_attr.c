/* bgp/bgp_attr.c: path attributes: parsing with the RFC 7606 outcome (RFC
 * 4271 5, 6793, 4760, 1997, 8092, 4456), the canonical and per-session
 * encodings, AS path helpers, and the intern table of attribute sets. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "bgp_attr.h"

int
bgp_af_of(uint16_t afi, uint8_t safi)
{
	if (safi != BGP_SAFI_UNICAST)
		return (-1);
	if (afi == BGP_AFI_IPV4)
		return (BGP_AF_IPV4);
	if (afi == BGP_AFI_IPV6)
		return (BGP_AF_IPV6);
	return (-1);
}

uint16_t
bgp_af_afi(enum bgp_af af)
{
	return (af == BGP_AF_IPV6 ? BGP_AFI_IPV6 : BGP_AFI_IPV4);
}

uint8_t
bgp_af_safi(enum bgp_af af)
{
	(void)af;
	return (BGP_SAFI_UNICAST);
}

/* ---- prefixes ---------------------------------------------------------------- */

int
bgp_nlri_check(const uint8_t *p, size_t len, enum bgp_af af)
{
	unsigned max = af == BGP_AF_IPV4 ? 32 : 128;
	size_t off = 0;

	while (off < len) {
		if (p[off] > max)
			return (-EBADMSG);
		off += 1 + (p[off] + 7u) / 8;
	}
	return (off == len ? 0 : -EBADMSG);
}

/* The next prefix into addr (alen octets, zeroed beyond the length). */
static int
nlri_next(struct bgp_nlri_iter *it, uint8_t *addr, unsigned alen, uint8_t *plen)
{
	unsigned l, n;

	if (it->p >= it->end)
		return (0);
	l = it->p[0];
	n = (l + 7) / 8;
	if (l > alen * 8 || (size_t)(it->end - it->p) < 1 + n)
		return (-EBADMSG);
	memset(addr, 0, alen);
	memcpy(addr, it->p + 1, n);
	if (l % 8)
		addr[n - 1] &= (uint8_t)(0xff << (8 - l % 8));
	*plen = (uint8_t)l;
	it->p += 1 + n;
	return (1);
}

int
bgp_nlri_next4(struct bgp_nlri_iter *it, struct lc_prefix4 *pfx)
{
	return (nlri_next(it, (uint8_t *)&pfx->addr.s_addr, 4, &pfx->len));
}

int
bgp_nlri_next6(struct bgp_nlri_iter *it, struct lc_prefix6 *pfx)
{
	return (nlri_next(it, pfx->addr.b, 16, &pfx->len));
}

int
bgp_nlri_put(uint8_t *buf, size_t cap, const uint8_t *addr, unsigned len)
{
	unsigned n = (len + 7) / 8;

	if (cap < 1 + n)
		return (-ENOSPC);
	buf[0] = (uint8_t)len;
	memcpy(buf + 1, addr, n);
	if (len % 8)
		buf[n] &= (uint8_t)(0xff << (8 - len % 8));
	return ((int)(1 + n));
}

/* ---- AS paths ------------------------------------------------------------------ */

/*
 * 0 when p[0..len) is an AS path of w-octet ASes as RFC 7606 7.2 wants it
 * (known segment types, no empty segment, no overrun or underrun); *n gets
 * its length (bgp_aspath_count's rule), *confed whether it has
 * confederation segments, *zero whether AS 0 is in it (RFC 7607).
 */
static int
aspath_check(const uint8_t *p, size_t len, unsigned w, unsigned *n,
    bool *confed, bool *zero)
{
	size_t off = 0;

	*n = 0;
	*confed = *zero = false;
	while (off < len) {
		unsigned t, k;

		if (len - off < 2)
			return (-1);
		t = p[off];
		k = p[off + 1];
		if (t < BGP_AS_SET || t > BGP_AS_CONFED_SET || k == 0 ||
		    (size_t)k * w > len - off - 2)
			return (-1);
		for (unsigned i = 0; i < k; i++) {
			const uint8_t *q = p + off + 2 + i * w;

			if ((w == 4 ? bgp_get32(q) : bgp_get16(q)) == 0)
				*zero = true;
		}
		if (t == BGP_AS_SEQUENCE)
			*n += k;
		else if (t == BGP_AS_SET)
			*n += 1;
		else
			*confed = true;
		off += 2 + (size_t)k * w;
	}
	return (0);
}

unsigned
bgp_aspath_count(const uint8_t *p, size_t len)
{
	unsigned n = 0;

	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1]) {
		if (p[off] == BGP_AS_SEQUENCE)
			n += p[off + 1];
		else if (p[off] == BGP_AS_SET)
			n++;
	}
	return (n);
}

uint32_t
bgp_aspath_first(const uint8_t *p, size_t len)
{
	if (len < 6 || p[0] != BGP_AS_SEQUENCE || p[1] == 0)
		return (0);
	return (bgp_get32(p + 2));
}

bool
bgp_aspath_contains(const uint8_t *p, size_t len, uint32_t as)
{
	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1])
		for (unsigned i = 0; i < p[off + 1]; i++)
			if (off + 6 + 4 * i <= len &&
			    bgp_get32(p + off + 2 + 4 * i) == as)
				return (true);
	return (false);
}

int
bgp_aspath_prepend(const uint8_t *p, size_t len, uint32_t as, unsigned n,
    uint8_t *out, size_t cap)
{
	size_t o = 0;
	unsigned merge = 0;

	/* fill the leading sequence first, then new segments of 255 */
	if (len >= 2 && p[0] == BGP_AS_SEQUENCE && p[1] < 255)
		merge = n < 255u - p[1] ? n : 255u - p[1];
	n -= merge;
	while (n > 0) {
		unsigned k = n % 255 ? n % 255 : 255;

		if (cap - o < 2 + 4 * k)
			return (-ENOSPC);
		out[o++] = BGP_AS_SEQUENCE;
		out[o++] = (uint8_t)k;
		for (unsigned i = 0; i < k; i++, o += 4)
			bgp_put32(out + o, as);
		n -= k;
	}
	if (cap - o < len + 4 * merge)
		return (-ENOSPC);
	if (merge > 0) {
		out[o++] = BGP_AS_SEQUENCE;
		out[o++] = (uint8_t)(p[1] + merge);
		for (unsigned i = 0; i < merge; i++, o += 4)
			bgp_put32(out + o, as);
		memcpy(out + o, p + 2, len - 2);
		o += len - 2;
	} else if (len > 0) {
		memcpy(out + o, p, len);
		o += len;
	}
	return ((int)o);
}

/* Appends to buf as snprintf would, counting what did not fit. */
static void
str_add(char *buf, size_t n, size_t *o, const char *fmt, unsigned v)
{
	int w = snprintf(buf + (*o < n ? *o : n), *o < n ? n - *o : 0, fmt, v);

	*o += w > 0 ? (size_t)w : 0;
}

int
bgp_aspath_str(const uint8_t *p, size_t len, char *buf, size_t n)
{
	/* by segment type: none, set, sequence, confed sequence, confed set */
	static const char *const open[] = {"", "{", "", "(", "["};
	static const char *const close[] = {"", "}", "", ")", "]"};
	static const char *const sep[] = {" ", ",", " ", " ", ","};
	size_t o = 0;

	if (n > 0)
		buf[0] = 0;
	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1]) {
		unsigned t = p[off] <= 4 ? p[off] : 0;

		str_add(buf, n, &o, o > 0 ? " " : "", 0);
		str_add(buf, n, &o, open[t], 0);
		for (unsigned i = 0; i < p[off + 1] && off + 6 + 4 * i <= len;
		     i++) {
			if (i > 0)
				str_add(buf, n, &o, sep[t], 0);
			str_add(buf, n, &o, "%u",
			    bgp_get32(p + off + 2 + 4 * i));
		}
		str_add(buf, n, &o, close[t], 0);
	}
	return ((int)o);
}

/* ---- parsing ---------------------------------------------------------------------- */

/*
 * What RFC 4271 5 and RFC 7606 7 say of each attribute we know: its Optional
 * and Transitive flags, and the outcome when it is malformed, which is also
 * the outcome of a flags error (7606 section 3 (c)).
 */
struct attr_desc {
	uint8_t flags;
	uint8_t malformed; /* enum bgp_outcome */
	const char *name;
};
#define WK   BGP_ATTR_F_TRANSITIVE
#define OPT  BGP_ATTR_F_OPTIONAL
#define OPTT (BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE)
static const struct attr_desc attr_tab[256] = {
    [BGP_ATTR_ORIGIN] = {WK, BGP_OUT_WITHDRAW, "ORIGIN"},	  /* 7.1 */
    [BGP_ATTR_AS_PATH] = {WK, BGP_OUT_WITHDRAW, "AS_PATH"},	  /* 7.2 */
    [BGP_ATTR_NEXT_HOP] = {WK, BGP_OUT_WITHDRAW, "NEXT_HOP"},	  /* 7.3 */
    [BGP_ATTR_MED] = {OPT, BGP_OUT_WITHDRAW, "MULTI_EXIT_DISC"},  /* 7.4 */
    [BGP_ATTR_LOCAL_PREF] = {WK, BGP_OUT_WITHDRAW, "LOCAL_PREF"}, /* 7.5 */
    [BGP_ATTR_ATOMIC_AGGREGATE] = {WK, BGP_OUT_DISCARD,
	"ATOMIC_AGGREGATE"},					      /* 7.6 */
    [BGP_ATTR_AGGREGATOR] = {OPTT, BGP_OUT_DISCARD, "AGGREGATOR"},    /* 7.7 */
    [BGP_ATTR_COMMUNITIES] = {OPTT, BGP_OUT_WITHDRAW, "COMMUNITIES"}, /* 7.8 */
    [BGP_ATTR_ORIGINATOR_ID] = {OPT, BGP_OUT_WITHDRAW,
	"ORIGINATOR_ID"}, /* 7.9 */
    [BGP_ATTR_CLUSTER_LIST] = {OPT, BGP_OUT_WITHDRAW,
	"CLUSTER_LIST"},					     /* 7.10 */
    [BGP_ATTR_MP_REACH] = {OPT, BGP_OUT_RESET, "MP_REACH_NLRI"},     /* 7.11 */
    [BGP_ATTR_MP_UNREACH] = {OPT, BGP_OUT_RESET, "MP_UNREACH_NLRI"}, /* 7.12 */
    [BGP_ATTR_EXT_COMMUNITIES] = {OPTT, BGP_OUT_WITHDRAW,
	"EXTENDED_COMMUNITIES"},			       /* 7.14 */
    [BGP_ATTR_AS4_PATH] = {OPTT, BGP_OUT_DISCARD, "AS4_PATH"}, /* 6793 6 */
    [BGP_ATTR_AS4_AGGREGATOR] = {OPTT, BGP_OUT_DISCARD,
	"AS4_AGGREGATOR"}, /* 6793 6 */
    [BGP_ATTR_LARGE_COMMUNITY] = {OPTT, BGP_OUT_WITHDRAW,
	"LARGE_COMMUNITY"}, /* 8092 6 */
};

/* One parse: what the attributes of a 2-octet session leave for the merge. */
struct aparse {
	const struct bgp_codec *c;
	struct bgp_attrs *a;
	struct bgp_err *err;
	const uint8_t *aspath2; /* the 2-octet AS_PATH */
	uint16_t aspath2_len;
	const uint8_t *as4path;
	uint16_t as4path_len;
	bool has_as4agg;
	uint32_t as4agg_as;
	struct lc_ip4 as4agg_id;
};

static void
attr_bad(struct bgp_attrs *a, enum bgp_outcome o, uint8_t type, const char *why)
{
	if (o > a->outcome) {
		a->outcome = o;
		a->why = why;
		a->why_type = type;
	}
}

/* The first reset is the one reported. */
static void
attr_reset(struct aparse *ps, uint8_t sub, const uint8_t *data, size_t dlen,
    uint8_t type, const char *why)
{
	if (ps->a->outcome == BGP_OUT_RESET)
		return;
	attr_bad(ps->a, BGP_OUT_RESET, type, why);
	if (ps->err != NULL) {
		ps->err->code = BGP_ERR_UPDATE;
		ps->err->subcode = sub;
		ps->err->data = data;
		ps->err->len = (uint16_t)dlen;
		ps->err->reason = why;
	}
}

/* A malformed attribute of a known type: the outcome its RFC gives. */
static void
attr_malformed(struct aparse *ps, uint8_t type, uint8_t sub, const uint8_t *at,
    size_t whole, const char *why)
{
	if (type == BGP_ATTR_NEXT_HOP) {
		/* counts only when the NLRI field has prefixes */
		if (ps->a->nh_why == NULL)
			ps->a->nh_why = why;
		return;
	}
	if (attr_tab[type].malformed == BGP_OUT_RESET)
		attr_reset(ps, sub, at, whole, type, why);
	else
		attr_bad(ps->a, attr_tab[type].malformed, type, why);
}

/* 0/8, 127/8, 224/3: never a next hop (RFC 4271 6.3, RFC 1122). */
static bool
ip4_martian(const uint8_t *p)
{
	return (p[0] == 0 || p[0] == 127 || p[0] >= 224);
}

/* ::, ::1 and multicast */
static bool
ip6_martian(const uint8_t *p)
{
	static const uint8_t zero[15];

	return (p[0] == 0xff || (memcmp(p, zero, 15) == 0 && p[15] <= 1));
}

/* MP_REACH_NLRI and MP_UNREACH_NLRI (RFC 4760 3, 4; RFC 7606 7.11, 7.12). */
static void
attr_mp(struct aparse *ps, uint8_t type, const uint8_t *at, size_t whole,
    const uint8_t *v, size_t alen)
{
	struct bgp_attrs *a = ps->a;
	bool reach = type == BGP_ATTR_MP_REACH;
	size_t nhl = 0, hdr = reach ? 5 : 3;
	struct bgp_nlri *f = reach ? &a->mp_reach : &a->mp_unreach;
	int af;

	if (alen < hdr || (reach && hdr + (nhl = v[3]) > alen)) {
		attr_reset(ps, BGP_ERR_UPD_OPTATTR, at, whole, type,
		    "MP attribute shorter than its header");
		return;
	}
	hdr += nhl;
	af = bgp_af_of(bgp_get16(v), v[2]);
	if (af < 0 || !(ps->c->afs & BGP_AF_BIT(af)))
		return; /* not ours: ignored (RFC 4760 7) */
	if (reach && (af == BGP_AF_IPV4 ? nhl != 4 : nhl != 16 && nhl != 32)) {
		attr_reset(ps, BGP_ERR_UPD_OPTATTR, at, whole, type,
		    "MP_REACH_NLRI next hop length");
		return;
	}
	if (bgp_nlri_check(v + hdr, alen - hdr, (enum bgp_af)af) != 0) {
		attr_reset(ps, BGP_ERR_UPD_OPTATTR, at, whole, type,
		    "MP attribute prefixes do not parse (RFC 7606 5.3)");
		return;
	}
	if (reach &&
	    (af == BGP_AF_IPV4 ? ip4_martian(v + 4) : ip6_martian(v + 4)))
		attr_bad(a, BGP_OUT_WITHDRAW, type,
		    "MP_REACH_NLRI next hop is not a host address");
	f->p = v + hdr;
	f->len = (uint16_t)(alen - hdr);
	f->af = (uint8_t)af;
	f->nh = reach ? v + 4 : NULL;
	f->nh_len = (uint8_t)nhl;
	a->present |= BGP_ABIT(type);
}

/* A list of fixed-size items, not empty (communities and the like). */
static bool
attr_list_ok(size_t alen, size_t item)
{
	return (alen > 0 && alen % item == 0);
}

static void
attr_one(struct aparse *ps, const uint8_t *at, size_t hl, size_t alen)
{
	struct bgp_attrs *a = ps->a;
	const struct bgp_codec *c = ps->c;
	uint8_t flags = at[0], type = at[1];
	const uint8_t *v = at + hl;
	size_t whole = hl + alen;
	const struct attr_desc *d = &attr_tab[type];
	unsigned n;
	bool confed, zero;

	if (d->name == NULL) {
		if (!(flags & BGP_ATTR_F_OPTIONAL))
			attr_reset(ps, BGP_ERR_UPD_WELLKNOWN, at, whole, type,
			    "unrecognised well-known attribute");
		else if (flags & BGP_ATTR_F_TRANSITIVE)
			a->unknown[type >> 6] |= 1ull << (type & 63);
		/* an unknown optional non-transitive one is quietly ignored */
		return;
	}
	if (c->ebgp &&
	    (type == BGP_ATTR_LOCAL_PREF || type == BGP_ATTR_ORIGINATOR_ID ||
		type == BGP_ATTR_CLUSTER_LIST)) {
		/* RFC 7606 7.5 for LOCAL_PREF; the route reflection ones mean
		 * nothing across an AS border either */
		attr_bad(a, BGP_OUT_DISCARD, type,
		    "iBGP attribute from an eBGP peer");
		return;
	}
	if ((flags & OPTT) != d->flags) {
		attr_malformed(ps, type, BGP_ERR_UPD_FLAGS, at, whole,
		    "attribute flags (RFC 7606 3 (c))");
		return;
	}
	switch (type) {
	case BGP_ATTR_ORIGIN:
		if (alen != 1 || v[0] > BGP_ORIGIN_INCOMPLETE) {
			attr_malformed(ps, type, BGP_ERR_UPD_ORIGIN, at, whole,
			    "ORIGIN length or value (RFC 7606 7.1)");
			return;
		}
		a->origin = v[0];
		break;
	case BGP_ATTR_AS_PATH:
		if (aspath_check(v, alen, c->as4 ? 4 : 2, &n, &confed, &zero) !=
		    0) {
			attr_malformed(ps, type, BGP_ERR_UPD_ASPATH, at, whole,
			    "AS_PATH segments (RFC 7606 7.2)");
			return;
		}
		if (zero) {
			attr_malformed(ps, type, BGP_ERR_UPD_ASPATH, at, whole,
			    "AS 0 in AS_PATH (RFC 7607)");
			return;
		}
		if (confed && c->ebgp) {
			attr_malformed(ps, type, BGP_ERR_UPD_ASPATH, at, whole,
			    "confederation segment from an eBGP peer (RFC "
			    "7606 7.2)");
			return;
		}
		if (c->as4) {
			a->aspath = v;
			a->aspath_len = (uint16_t)alen;
		} else {
			ps->aspath2 = v;
			ps->aspath2_len = (uint16_t)alen;
		}
		break;
	case BGP_ATTR_NEXT_HOP:
		if (alen != 4) {
			attr_malformed(ps, type, BGP_ERR_UPD_LENGTH, at, whole,
			    "NEXT_HOP length (RFC 7606 7.3)");
			return;
		}
		if (ip4_martian(v)) {
			attr_malformed(ps, type, BGP_ERR_UPD_NEXTHOP, at, whole,
			    "NEXT_HOP is not a host address (RFC 4271 6.3)");
			return;
		}
		memcpy(&a->nexthop.s_addr, v, 4);
		a->nexthop_p = v;
		break;
	case BGP_ATTR_MED:
	case BGP_ATTR_LOCAL_PREF:
	case BGP_ATTR_ORIGINATOR_ID:
		if (alen != 4) {
			attr_malformed(ps, type, BGP_ERR_UPD_LENGTH, at, whole,
			    "attribute length is not 4 (RFC 7606 7.4, 7.5, "
			    "7.9)");
			return;
		}
		if (type == BGP_ATTR_MED)
			a->med = bgp_get32(v);
		else if (type == BGP_ATTR_LOCAL_PREF)
			a->local_pref = bgp_get32(v);
		else
			memcpy(&a->originator.s_addr, v, 4);
		break;
	case BGP_ATTR_ATOMIC_AGGREGATE:
		if (alen != 0) {
			attr_malformed(ps, type, BGP_ERR_UPD_LENGTH, at, whole,
			    "ATOMIC_AGGREGATE length (RFC 7606 7.6)");
			return;
		}
		break;
	case BGP_ATTR_AGGREGATOR:
		if (alen != (c->as4 ? 8u : 6u)) {
			attr_malformed(ps, type, BGP_ERR_UPD_LENGTH, at, whole,
			    "AGGREGATOR length (RFC 7606 7.7)");
			return;
		}
		a->agg_as = c->as4 ? bgp_get32(v) : bgp_get16(v);
		memcpy(&a->agg_id.s_addr, v + alen - 4, 4);
		if (a->agg_as == 0) {
			attr_malformed(ps, type, BGP_ERR_UPD_OPTATTR, at, whole,
			    "AS 0 in AGGREGATOR (RFC 7607)");
			return;
		}
		break;
	case BGP_ATTR_COMMUNITIES:
	case BGP_ATTR_CLUSTER_LIST:
	case BGP_ATTR_EXT_COMMUNITIES:
	case BGP_ATTR_LARGE_COMMUNITY: {
		size_t item = type == BGP_ATTR_EXT_COMMUNITIES ? 8 :
		    type == BGP_ATTR_LARGE_COMMUNITY	       ? 12 :
								 4;

		if (!attr_list_ok(alen, item)) {
			attr_malformed(ps, type, BGP_ERR_UPD_LENGTH, at, whole,
			    "list length is not a multiple of its item (RFC "
			    "7606 7.8, 7.10, 7.14, RFC 8092 6)");
			return;
		}
		if (type == BGP_ATTR_COMMUNITIES) {
			a->comm = v;
			a->comm_len = (uint16_t)alen;
		} else if (type == BGP_ATTR_CLUSTER_LIST) {
			a->cluster = v;
			a->cluster_len = (uint16_t)alen;
		} else if (type == BGP_ATTR_EXT_COMMUNITIES) {
			a->ext = v;
			a->ext_len = (uint16_t)alen;
		} else {
			a->large = v;
			a->large_len = (uint16_t)alen;
		}
		break;
	}
	case BGP_ATTR_MP_REACH:
	case BGP_ATTR_MP_UNREACH:
		attr_mp(ps, type, at, whole, v, alen);
		return; /* sets present itself */
	case BGP_ATTR_AS4_PATH:
	case BGP_ATTR_AS4_AGGREGATOR:
		if (c->as4) {
			/* RFC 6793 4.1: between 4-octet speakers they mean
			 * nothing */
			attr_bad(a, BGP_OUT_DISCARD, type,
			    "AS4 attribute on a 4-octet session (RFC 6793 4.1)");
			return;
		}
		if (type == BGP_ATTR_AS4_AGGREGATOR) {
			if (alen != 8 || bgp_get32(v) == 0) {
				attr_malformed(ps, type, 0, at, whole,
				    "AS4_AGGREGATOR length or AS 0 (RFC 6793 "
				    "6)");
				return;
			}
			ps->has_as4agg = true;
			ps->as4agg_as = bgp_get32(v);
			memcpy(&ps->as4agg_id.s_addr, v + 4, 4);
			return;
		}
		if (aspath_check(v, alen, 4, &n, &confed, &zero) != 0 ||
		    confed || zero) {
			attr_malformed(ps, type, 0, at, whole,
			    "AS4_PATH malformed, with confederation segments or "
			    "AS 0 (RFC 6793 6)");
			return;
		}
		ps->as4path = v;
		ps->as4path_len = (uint16_t)alen;
		return; /* consumed by the merge, never kept as itself */
	}
	a->present |= BGP_ABIT(type);
}

/*
 * Writes the 2-octet AS path p widened into out: all of it, or its leading
 * segments holding need ASes (RFC 6793 4.2.3; confederation segments on the
 * way are taken). Returns the bytes written; *last is the header of the last
 * segment written, NULL when none.
 */
static size_t
aspath_widen(const uint8_t *p, size_t len, bool all, unsigned need,
    uint8_t *out, uint8_t **last)
{
	size_t off = 0, o = 0;

	*last = NULL;
	while (off < len) {
		unsigned t = p[off], n = p[off + 1], k = n;

		if (!all && t == BGP_AS_SEQUENCE) {
			if (need == 0)
				break;
			k = n < need ? n : need;
			need -= k;
		} else if (!all && t == BGP_AS_SET) {
			if (need == 0)
				break;
			need--;
		}
		*last = out + o;
		out[o++] = (uint8_t)t;
		out[o++] = (uint8_t)k;
		for (unsigned i = 0; i < k; i++, o += 4)
			bgp_put32(out + o, bgp_get16(p + off + 2 + 2 * i));
		off += 2 + 2 * n;
		if (k < n)
			break;
	}
	return (o);
}

/* RFC 6793 4.2.3: AGGREGATOR, then the AS path from AS_PATH and AS4_PATH. */
static void
attr_as4_merge(struct aparse *ps, uint8_t *scratch)
{
	struct bgp_attrs *a = ps->a;
	bool use4 = ps->as4path != NULL;
	unsigned n1, n2 = 0;
	bool confed, zero;
	uint8_t *last;
	size_t o;

	if (a->present & BGP_ABIT(BGP_ATTR_AGGREGATOR)) {
		if (a->agg_as != BGP_AS_TRANS)
			use4 = false; /* an old speaker aggregated last */
		else if (ps->has_as4agg) {
			a->agg_as = ps->as4agg_as;
			a->agg_id = ps->as4agg_id;
		}
	}
	if (!(a->present & BGP_ABIT(BGP_ATTR_AS_PATH)))
		return;
	if (scratch == NULL) {
		a->present &= ~BGP_ABIT(BGP_ATTR_AS_PATH);
		attr_bad(a, BGP_OUT_WITHDRAW, BGP_ATTR_AS_PATH,
		    "no scratch for a 2-octet AS_PATH");
		return;
	}
	(void)aspath_check(ps->aspath2, ps->aspath2_len, 2, &n1, &confed,
	    &zero);
	if (use4)
		n2 = bgp_aspath_count(ps->as4path, ps->as4path_len);
	if (use4 && n1 < n2) {
		use4 = false;
		attr_bad(a, BGP_OUT_DISCARD, BGP_ATTR_AS4_PATH,
		    "AS4_PATH longer than AS_PATH (RFC 6793 4.2.3)");
	}
	o = aspath_widen(ps->aspath2, ps->aspath2_len, !use4, n1 - n2, scratch,
	    &last);
	for (size_t off = 0; use4 && off < ps->as4path_len;) {
		const uint8_t *s = ps->as4path + off;
		size_t sl = 2 + 4u * s[1];

		if (off == 0 && last != NULL && last[0] == BGP_AS_SEQUENCE &&
		    s[0] == BGP_AS_SEQUENCE && last[1] + s[1] <= 255) {
			/* one sequence where the two parts meet */
			last[1] = (uint8_t)(last[1] + s[1]);
			memcpy(scratch + o, s + 2, sl - 2);
			o += sl - 2;
		} else {
			memcpy(scratch + o, s, sl);
			o += sl;
		}
		off += sl;
	}
	a->aspath = scratch;
	a->aspath_len = (uint16_t)o;
}

enum bgp_outcome
bgp_attr_parse(const uint8_t *p, size_t len, const struct bgp_codec *c,
    uint8_t *scratch, struct bgp_attrs *a, struct bgp_err *err)
{
	struct aparse ps = {.c = c, .a = a, .err = err};
	uint64_t seen[4] = {0};
	size_t off = 0;

	memset(a, 0, sizeof(*a));
	a->raw = p;
	a->raw_len = (uint32_t)len;
	while (off < len) {
		const uint8_t *at = p + off;
		size_t rem = len - off, hl, alen;
		uint8_t type;

		hl = rem >= 1 && (at[0] & BGP_ATTR_F_EXTLEN) ? 4 : 3;
		if (rem < hl ||
		    (alen = hl == 4 ? bgp_get16(at + 2) : at[2]) > rem - hl) {
			/* RFC 7606 4: the rest cannot be read; the caller
			 * decides whether withdrawing is possible */
			a->broken = true;
			attr_bad(a, BGP_OUT_WITHDRAW, rem >= 2 ? at[1] : 0,
			    "attribute overruns the path attributes (RFC 7606 "
			    "4)");
			break;
		}
		type = at[1];
		off += hl + alen;
		if (seen[type >> 6] & (1ull << (type & 63))) {
			if (type == BGP_ATTR_MP_REACH ||
			    type == BGP_ATTR_MP_UNREACH)
				attr_reset(&ps, BGP_ERR_UPD_ATTRLIST, NULL, 0,
				    type,
				    "MP attribute twice (RFC 7606 3 (g))");
			else
				attr_bad(a, BGP_OUT_DISCARD, type,
				    "attribute twice, the second discarded "
				    "(RFC 7606 3 (g))");
			continue;
		}
		seen[type >> 6] |= 1ull << (type & 63);
		attr_one(&ps, at, hl, alen);
		if (a->outcome == BGP_OUT_RESET)
			return (BGP_OUT_RESET);
	}
	if (!c->as4)
		attr_as4_merge(&ps, scratch);
	if (c->first_as != 0 && (a->present & BGP_ABIT(BGP_ATTR_AS_PATH)) &&
	    bgp_aspath_first(a->aspath, a->aspath_len) != c->first_as)
		attr_bad(a, BGP_OUT_WITHDRAW, BGP_ATTR_AS_PATH,
		    "leftmost AS is not the peer's (RFC 4271 6.3, RFC 7606 "
		    "7.2)");
	return (a->outcome);
}

/* ---- encoding ----------------------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t cap;
	size_t off;
	bool over;
};

/* Room for one attribute of len octets; where its value goes, or NULL. */
static uint8_t *
attr_begin(struct wbuf *w, uint8_t flags, uint8_t type, size_t len)
{
	size_t hl = len > 255 ? 4 : 3;
	uint8_t *q;

	if (w->over || len > 0xffff || w->cap - w->off < hl + len) {
		w->over = true;
		return (NULL);
	}
	q = w->p + w->off;
	q[0] = (uint8_t)(flags | (hl == 4 ? BGP_ATTR_F_EXTLEN : 0));
	q[1] = type;
	if (hl == 4)
		bgp_put16(q + 2, (uint16_t)len);
	else
		q[2] = (uint8_t)len;
	w->off += hl + len;
	return (q + hl);
}

static void
attr_put(struct wbuf *w, uint8_t type, const void *v, size_t len)
{
	uint8_t *q = attr_begin(w, attr_tab[type].flags, type, len);

	if (q != NULL && len > 0)
		memcpy(q, v, len);
}

static void
attr_put32(struct wbuf *w, uint8_t type, uint32_t v)
{
	uint8_t *q = attr_begin(w, attr_tab[type].flags, type, 4);

	if (q != NULL)
		bgp_put32(q, v);
}

/* The value of the first attribute of type in p[0..len), or NULL. */
static const uint8_t *
attr_find(const uint8_t *p, size_t len, uint8_t type, size_t *vlen)
{
	size_t off = 0;

	while (len - off >= 3) {
		size_t hl = p[off] & BGP_ATTR_F_EXTLEN ? 4 : 3, alen;

		if (len - off < hl)
			break;
		alen = hl == 4 ? bgp_get16(p + off + 2) : p[off + 2];
		if (alen > len - off - hl)
			break;
		if (p[off + 1] == type) {
			*vlen = alen;
			return (p + off + hl);
		}
		off += hl + alen;
	}
	return (NULL);
}

/* AS_PATH for a 2-octet peer: AS_TRANS for what does not fit; true when
 * AS4_PATH is needed (a 4-octet AS outside confederation segments). */
static bool
aspath_put2(struct wbuf *w, const uint8_t *p, size_t len)
{
	size_t n = 0;
	bool need4 = false;
	uint8_t *q;

	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1]) {
		n += 2 + 2u * p[off + 1];
		for (unsigned i = 0; i < p[off + 1]; i++)
			if (bgp_get32(p + off + 2 + 4 * i) > 0xffff &&
			    p[off] <= BGP_AS_SEQUENCE)
				need4 = true;
	}
	if ((q = attr_begin(w, WK, BGP_ATTR_AS_PATH, n)) == NULL)
		return (false);
	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1]) {
		*q++ = p[off];
		*q++ = p[off + 1];
		for (unsigned i = 0; i < p[off + 1]; i++, q += 2) {
			uint32_t as = bgp_get32(p + off + 2 + 4 * i);

			bgp_put16(q, as > 0xffff ? BGP_AS_TRANS : (uint16_t)as);
		}
	}
	return (need4);
}

/* AS4_PATH: the path without its confederation segments (RFC 6793 3). */
static void
aspath_put4(struct wbuf *w, const uint8_t *p, size_t len)
{
	size_t n = 0;
	uint8_t *q;

	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1])
		if (p[off] <= BGP_AS_SEQUENCE)
			n += 2 + 4u * p[off + 1];
	if ((q = attr_begin(w, OPTT, BGP_ATTR_AS4_PATH, n)) == NULL)
		return;
	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1])
		if (p[off] <= BGP_AS_SEQUENCE) {
			memcpy(q, p + off, 2 + 4u * p[off + 1]);
			q += 2 + 4u * p[off + 1];
		}
}

/* c NULL: the canonical encoding. */
static int
attr_write(const struct bgp_attrs *a, const struct bgp_codec *c, enum bgp_af af,
    uint8_t *buf, size_t cap)
{
	struct wbuf w = {buf, cap, 0, false};
	bool as4 = c == NULL || c->as4, need4 = false;
	uint64_t emit[4], known = a->present;

	known &= ~(BGP_ABIT(BGP_ATTR_MP_UNREACH) | BGP_ABIT(BGP_ATTR_MP_REACH) |
	    BGP_ABIT(BGP_ATTR_AS4_PATH) | BGP_ABIT(BGP_ATTR_AS4_AGGREGATOR));
	if (c == NULL && af == BGP_AF_IPV6 && a->mp_reach.nh_len > 0)
		known |= BGP_ABIT(BGP_ATTR_MP_REACH);
	if (af != BGP_AF_IPV4)
		known &= ~BGP_ABIT(BGP_ATTR_NEXT_HOP);
	if (c != NULL && c->ebgp)
		known &= ~(BGP_ABIT(BGP_ATTR_LOCAL_PREF) |
		    BGP_ABIT(BGP_ATTR_ORIGINATOR_ID) |
		    BGP_ABIT(BGP_ATTR_CLUSTER_LIST));
	if (!as4 && (known & BGP_ABIT(BGP_ATTR_AGGREGATOR)) &&
	    a->agg_as > 0xffff)
		known |= BGP_ABIT(BGP_ATTR_AS4_AGGREGATOR);
	if (!as4 && (known & BGP_ABIT(BGP_ATTR_AS_PATH)))
		known |= BGP_ABIT(BGP_ATTR_AS4_PATH); /* if needed, below */
	/* unknown types never collide with known ones (attr_one) */
	emit[0] = known | a->unknown[0];
	emit[1] = a->unknown[1];
	emit[2] = a->unknown[2];
	emit[3] = a->unknown[3];
	for (unsigned i = 0; i < 4; i++)
		for (uint64_t m = emit[i]; m != 0; m &= m - 1) {
			uint8_t t = (uint8_t)(i * 64 + __builtin_ctzll(m));
			const uint8_t *v;
			uint8_t *q;
			size_t vl;

			if (i > 0 || !(known & BGP_ABIT(t))) {
				/* passed on with Partial (RFC 4271 5) */
				if ((v = attr_find(a->raw, a->raw_len, t,
					 &vl)) != NULL &&
				    (q = attr_begin(&w,
					 OPTT | BGP_ATTR_F_PARTIAL, t, vl)) !=
					NULL)
					memcpy(q, v, vl);
				continue;
			}
			switch (t) {
			case BGP_ATTR_ORIGIN:
				attr_put(&w, t, &a->origin, 1);
				break;
			case BGP_ATTR_AS_PATH:
				if (as4)
					attr_put(&w, t, a->aspath,
					    a->aspath_len);
				else
					need4 = aspath_put2(&w, a->aspath,
					    a->aspath_len);
				break;
			case BGP_ATTR_NEXT_HOP:
				attr_put(&w, t, &a->nexthop.s_addr, 4);
				break;
			case BGP_ATTR_MED:
				attr_put32(&w, t, a->med);
				break;
			case BGP_ATTR_LOCAL_PREF:
				attr_put32(&w, t, a->local_pref);
				break;
			case BGP_ATTR_ATOMIC_AGGREGATE:
				attr_put(&w, t, NULL, 0);
				break;
			case BGP_ATTR_AGGREGATOR:
				if ((q = attr_begin(&w, OPTT, t,
					 as4 ? 8 : 6)) == NULL)
					break;
				if (as4)
					bgp_put32(q, a->agg_as);
				else
					bgp_put16(q,
					    a->agg_as > 0xffff ?
						BGP_AS_TRANS :
						(uint16_t)a->agg_as);
				memcpy(q + (as4 ? 4 : 2), &a->agg_id.s_addr, 4);
				break;
			case BGP_ATTR_COMMUNITIES:
				attr_put(&w, t, a->comm, a->comm_len);
				break;
			case BGP_ATTR_ORIGINATOR_ID:
				attr_put(&w, t, &a->originator.s_addr, 4);
				break;
			case BGP_ATTR_CLUSTER_LIST:
				attr_put(&w, t, a->cluster, a->cluster_len);
				break;
			case BGP_ATTR_MP_REACH:
				/* canonical IPv6: the next hop alone */
				if ((q = attr_begin(&w, OPT, t,
					 5u + a->mp_reach.nh_len)) == NULL)
					break;
				bgp_put16(q, bgp_af_afi(af));
				q[2] = bgp_af_safi(af);
				q[3] = a->mp_reach.nh_len;
				memcpy(q + 4, a->mp_reach.nh,
				    a->mp_reach.nh_len);
				q[4 + a->mp_reach.nh_len] = 0;
				break;
			case BGP_ATTR_EXT_COMMUNITIES:
				attr_put(&w, t, a->ext, a->ext_len);
				break;
			case BGP_ATTR_AS4_PATH:
				if (need4)
					aspath_put4(&w, a->aspath,
					    a->aspath_len);
				break;
			case BGP_ATTR_AS4_AGGREGATOR:
				if ((q = attr_begin(&w, OPTT, t, 8)) == NULL)
					break;
				bgp_put32(q, a->agg_as);
				memcpy(q + 4, &a->agg_id.s_addr, 4);
				break;
			case BGP_ATTR_LARGE_COMMUNITY:
				attr_put(&w, t, a->large, a->large_len);
				break;
			}
		}
	return (w.over ? -ENOSPC : (int)w.off);
}

int
bgp_attr_canon(const struct bgp_attrs *a, enum bgp_af af, uint8_t *buf,
    size_t cap)
{
	return (attr_write(a, NULL, af, buf, cap));
}

int
bgp_attr_encode(const struct bgp_attrs *a, const struct bgp_codec *c,
    enum bgp_af af, uint8_t *buf, size_t cap)
{
	return (attr_write(a, c, af, buf, cap));
}

/* ---- the intern table ------------------------------------------------------------------ */

/* The 64x64 -> 128-bit multiply folded to 64 bits (the mix of wyhash and
 * MUM hash: every input bit reaches every output bit in one step). */
static inline uint64_t
mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return ((uint64_t)r ^ (uint64_t)(r >> 64));
}

static inline uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return (v);
}

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull

uint64_t
bgp_hash(const void *v, size_t n, uint64_t seed)
{
	const uint8_t *p = v;
	uint64_t h = seed ^ K0, x = 0, y = 0;
	size_t len = n;

	for (; n >= 16; p += 16, n -= 16)
		h = mum(rd64(p) ^ K1, rd64(p + 8) ^ h);
	if (n >= 8) {
		x = rd64(p);
		p += 8;
		n -= 8;
	}
	if (n > 0)
		memcpy(&y, p, n);
	h = mum(x ^ K1, y ^ h);
	return (mum(h ^ K2, (uint64_t)len ^ K1));
}

struct bgp_intern {
	struct bgp_aset **b;
	size_t mask; /* buckets - 1 */
	size_t n;
	size_t bytes;  /* of the entries */
	uint64_t seed; /* per table: chains a peer cannot aim at */
};

#define INTERN_MIN_BUCKETS 1024

struct bgp_intern *
bgp_intern_new(void)
{
	struct bgp_intern *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return (NULL);
	if ((t->b = calloc(INTERN_MIN_BUCKETS, sizeof(*t->b))) == NULL) {
		free(t);
		errno = ENOMEM;
		return (NULL);
	}
	t->mask = INTERN_MIN_BUCKETS - 1;
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) !=
	    sizeof(t->seed))
		t->seed = (uint64_t)time(NULL) ^ (uintptr_t)t;
	return (t);
}

void
bgp_intern_free(struct bgp_intern *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i <= t->mask; i++)
		for (struct bgp_aset *s = t->b[i], *nx; s != NULL; s = nx) {
			nx = s->next;
			free(s);
		}
	free(t->b);
	free(t);
}

/* Load factor 1: doubles the bucket array (a failed grow only lengthens
 * chains). */
static void
intern_grow(struct bgp_intern *t)
{
	size_t nb = (t->mask + 1) * 2;
	struct bgp_aset **b = calloc(nb, sizeof(*b));

	if (b == NULL)
		return;
	for (size_t i = 0; i <= t->mask; i++)
		for (struct bgp_aset *s = t->b[i], *nx; s != NULL; s = nx) {
			nx = s->next;
			s->next = b[s->hash & (nb - 1)];
			b[s->hash & (nb - 1)] = s;
		}
	free(t->b);
	t->b = b;
	t->mask = nb - 1;
}

/* The canonical form read back as a 4-octet iBGP session with every AF. */
static const struct bgp_codec canon_codec = {.as4 = true,
    .afs = BGP_AF_BIT(BGP_AF_IPV4) | BGP_AF_BIT(BGP_AF_IPV6)};

int
bgp_aset_attrs(const struct bgp_aset *s, struct bgp_attrs *a)
{
	struct bgp_err err;

	return (bgp_attr_parse(s->data, s->len, &canon_codec, NULL, a, &err) ==
		    BGP_OUT_OK ?
		0 :
		-EINVAL);
}

struct bgp_aset *
bgp_intern_get(struct bgp_intern *t, const uint8_t *canon, size_t len)
{
	uint32_t h = (uint32_t)bgp_hash(canon, len, t->seed);
	struct bgp_aset **bp = &t->b[h & t->mask], *s;
	struct bgp_attrs a;

	for (s = *bp; s != NULL; s = s->next)
		if (s->hash == h && s->len == len &&
		    memcmp(s->data, canon, len) == 0) {
			s->refs++;
			return (s);
		}
	if (len > 0xffff) {
		errno = EINVAL;
		return (NULL);
	}
	if ((s = malloc(sizeof(*s) + len)) == NULL)
		return (NULL);
	memcpy(s->data, canon, len);
	s->len = (uint16_t)len;
	if (bgp_aset_attrs(s, &a) != 0) {
		free(s);
		errno = EINVAL;
		return (NULL);
	}
	s->hash = h;
	s->refs = 1;
	s->flags = 0;
	s->origin = a.origin;
	s->med = a.med;
	s->local_pref = 100;
	if (a.present & BGP_ABIT(BGP_ATTR_MED))
		s->flags |= BGP_ASET_F_MED;
	if (a.present & BGP_ABIT(BGP_ATTR_LOCAL_PREF)) {
		s->flags |= BGP_ASET_F_LOCAL_PREF;
		s->local_pref = a.local_pref;
	}
	if (a.present & BGP_ABIT(BGP_ATTR_ATOMIC_AGGREGATE))
		s->flags |= BGP_ASET_F_ATOMIC;
	s->aspath_count = (uint16_t)bgp_aspath_count(a.aspath, a.aspath_len);
	s->first_as = bgp_aspath_first(a.aspath, a.aspath_len);
	s->nexthop = a.nexthop;
	s->next = *bp;
	*bp = s;
	t->bytes += sizeof(*s) + len;
	if (++t->n > t->mask + 1)
		intern_grow(t);
	return (s);
}

struct bgp_aset *
bgp_aset_ref(struct bgp_aset *s)
{
	s->refs++;
	return (s);
}

void
bgp_aset_unref(struct bgp_intern *t, struct bgp_aset *s)
{
	struct bgp_aset **pp;

	if (--s->refs > 0)
		return;
	for (pp = &t->b[s->hash & t->mask]; *pp != s; pp = &(*pp)->next)
		;
	*pp = s->next;
	t->n--;
	t->bytes -= sizeof(*s) + s->len;
	free(s);
}

void
bgp_intern_stats(const struct bgp_intern *t, struct bgp_intern_stats *st)
{
	st->sets = t->n;
	st->buckets = t->mask + 1;
	st->bytes = t->bytes + st->buckets * sizeof(*t->b);
}
