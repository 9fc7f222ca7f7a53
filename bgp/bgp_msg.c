/* bgp/bgp_msg.c: BGP-4 messages: framing, OPEN with capabilities, UPDATE with
 * the RFC 7606 decisions that need the whole message, KEEPALIVE,
 * NOTIFICATION, ROUTE-REFRESH, End-of-RIB and the UPDATE builder. */
#include <errno.h>
#include <string.h>

#include "bgp_msg.h"

/* ---- names ------------------------------------------------------------------- */

const char *
bgp_type_str(uint8_t type)
{
	static const char *const s[] = {NULL, "OPEN", "UPDATE", "NOTIFICATION",
	    "KEEPALIVE", "ROUTE-REFRESH"};

	return (type < 6 && s[type] != NULL ? s[type] : "unknown");
}

const char *
bgp_err_code_str(uint8_t code)
{
	static const char *const s[] = {NULL, "Message Header Error",
	    "OPEN Message Error", "UPDATE Message Error", "Hold Timer Expired",
	    "Finite State Machine Error", "Cease",
	    "ROUTE-REFRESH Message Error"};

	return (code < 8 && s[code] != NULL ? s[code] : "unknown");
}

const char *
bgp_err_subcode_str(uint8_t code, uint8_t subcode)
{
	/* RFC 4271 4.5, 5492, 6608, 4486, 8538, 9234, 7313 */
	static const char *const s[8][12] = {
	    [BGP_ERR_HDR] = {NULL, "Connection Not Synchronized",
		"Bad Message Length", "Bad Message Type"},
	    [BGP_ERR_OPEN] = {"Unspecific", "Unsupported Version Number",
		"Bad Peer AS", "Bad BGP Identifier",
		"Unsupported Optional Parameter", NULL,
		"Unacceptable Hold Time", "Unsupported Capability",
		"Role Mismatch"},
	    [BGP_ERR_UPDATE] = {NULL, "Malformed Attribute List",
		"Unrecognized Well-known Attribute",
		"Missing Well-known Attribute", "Attribute Flags Error",
		"Attribute Length Error", "Invalid ORIGIN Attribute", NULL,
		"Invalid NEXT_HOP Attribute", "Optional Attribute Error",
		"Invalid Network Field", "Malformed AS_PATH"},
	    [BGP_ERR_FSM] = {"Unspecified",
		"Unexpected Message in OpenSent State",
		"Unexpected Message in OpenConfirm State",
		"Unexpected Message in Established State"},
	    [BGP_ERR_CEASE] = {NULL, "Maximum Number of Prefixes Reached",
		"Administrative Shutdown", "Peer De-configured",
		"Administrative Reset", "Connection Rejected",
		"Other Configuration Change", "Connection Collision Resolution",
		"Out of Resources", "Hard Reset", "BFD Down"},
	    [BGP_ERR_RR] = {NULL, "Invalid Message Length"},
	};

	if (code < 8 && subcode < 12 && s[code][subcode] != NULL)
		return (s[code][subcode]);
	return (subcode == 0 ? "Unspecific" : "unknown");
}

/* ---- errors and the header ------------------------------------------------------ */

static int
err_set(struct bgp_err *e, uint8_t code, uint8_t sub, const uint8_t *data,
    size_t len, const char *why)
{
	if (e != NULL) {
		e->code = code;
		e->subcode = sub;
		e->data = data;
		e->len = (uint16_t)len;
		e->reason = why;
	}
	return (-EBADMSG);
}

/* With a 2-octet value of our own as data. */
static int
err_set16(struct bgp_err *e, uint8_t code, uint8_t sub, uint16_t v,
    const char *why)
{
	if (e != NULL) {
		err_set(e, code, sub, NULL, 2, why);
		bgp_put16(e->own, v);
	}
	return (-EBADMSG);
}

static void
put_hdr(uint8_t *p, size_t len, uint8_t type)
{
	memset(p, 0xff, 16);
	bgp_put16(p + 16, (uint16_t)len);
	p[18] = type;
}

int
bgp_msg_check_hdr(const uint8_t *p, size_t n, uint8_t *type,
    struct bgp_err *err)
{
	size_t len, min = BGP_HDR_LEN, max = BGP_MAX_LEN;

	if (n < BGP_HDR_LEN)
		return (-EAGAIN);
	for (unsigned i = 0; i < 16; i++)
		if (p[i] != 0xff)
			return (err_set(err, BGP_ERR_HDR, BGP_ERR_HDR_SYNC,
			    NULL, 0, "marker is not all ones"));
	len = bgp_get16(p + 16);
	if (len < BGP_HDR_LEN || len > BGP_MAX_LEN)
		return (err_set16(err, BGP_ERR_HDR, BGP_ERR_HDR_LEN,
		    (uint16_t)len, "message length out of range"));
	switch (p[18]) {
	case BGP_OPEN:
		min = BGP_OPEN_MIN;
		break;
	case BGP_UPDATE:
		min = BGP_UPD_MIN;
		break;
	case BGP_NOTIFICATION:
		min = BGP_NOTIF_MIN;
		break;
	case BGP_KEEPALIVE:
		max = BGP_HDR_LEN;
		break;
	case BGP_ROUTE_REFRESH:
		break; /* RFC 7313 5 has an error of its own */
	default:
		if (err != NULL) {
			err_set(err, BGP_ERR_HDR, BGP_ERR_HDR_TYPE, NULL, 1,
			    "unknown message type");
			err->own[0] = p[18];
		}
		return (-EBADMSG);
	}
	if (len < min || len > max)
		return (err_set16(err, BGP_ERR_HDR, BGP_ERR_HDR_LEN,
		    (uint16_t)len, "message length wrong for its type"));
	*type = p[18];
	return ((int)len);
}

/* ---- OPEN --------------------------------------------------------------------------- */

static int
open_caps(struct bgp_open *o, const uint8_t *p, size_t n, uint32_t *as4,
    struct bgp_err *err)
{
	static const char bad[] = "capability of the wrong length";
	size_t off = 0;

	while (off < n) {
		const uint8_t *v;
		unsigned code, cl;
		int af;

		if (n - off < 2 || p[off + 1] > n - off - 2)
			return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_UNSPEC,
			    NULL, 0, "capability overruns its parameter"));
		code = p[off];
		cl = p[off + 1];
		v = p + off + 2;
		off += 2 + cl;
		switch (code) {
		case BGP_CAP_MP:
			if (cl != 4)
				return (err_set(err, BGP_ERR_OPEN,
				    BGP_ERR_OPEN_UNSPEC, NULL, 0, bad));
			o->caps |= BGP_OPEN_F_MP;
			if ((af = bgp_af_of(bgp_get16(v), v[3])) < 0)
				o->n_unknown++;
			else
				o->mp |= (uint8_t)BGP_AF_BIT(af);
			break;
		case BGP_CAP_RR:
		case BGP_CAP_RR_OLD:
		case BGP_CAP_ERR:
			if (cl != 0)
				return (err_set(err, BGP_ERR_OPEN,
				    BGP_ERR_OPEN_UNSPEC, NULL, 0, bad));
			o->caps |= code == BGP_CAP_RR ? BGP_OPEN_F_RR :
			    code == BGP_CAP_ERR	      ? BGP_OPEN_F_ERR :
							BGP_OPEN_F_RR_OLD;
			break;
		case BGP_CAP_AS4:
			if (cl != 4)
				return (err_set(err, BGP_ERR_OPEN,
				    BGP_ERR_OPEN_UNSPEC, NULL, 0, bad));
			o->caps |= BGP_OPEN_F_AS4;
			*as4 = bgp_get32(v);
			break;
		case BGP_CAP_GR:
			/* RFC 4724 3: flags and time, then AFI/SAFI/flags */
			if (cl < 2 || (cl - 2) % 4 != 0)
				return (err_set(err, BGP_ERR_OPEN,
				    BGP_ERR_OPEN_UNSPEC, NULL, 0, bad));
			o->caps |= BGP_OPEN_F_GR;
			o->gr_flags = v[0] >> 4;
			o->gr_time = bgp_get16(v) & 0x0fff;
			o->gr_afs = o->gr_fwd = 0;
			for (unsigned i = 2; i < cl; i += 4) {
				if ((af = bgp_af_of(bgp_get16(v + i),
					 v[i + 2])) < 0)
					continue;
				o->gr_afs |= (uint8_t)BGP_AF_BIT(af);
				if (v[i + 3] & 0x80)
					o->gr_fwd |= (uint8_t)BGP_AF_BIT(af);
			}
			break;
		case BGP_CAP_ADDPATH:
			o->caps |= BGP_OPEN_F_ADDPATH;
			break;
		case BGP_CAP_EXTMSG:
			o->caps |= BGP_OPEN_F_EXTMSG;
			break;
		case BGP_CAP_EXTNH:
			o->caps |= BGP_OPEN_F_EXTNH;
			break;
		default:
			o->n_unknown++; /* RFC 5492 3: ignored */
			break;
		}
	}
	return (0);
}

int
bgp_open_parse(const uint8_t *msg, size_t len, struct bgp_open *o,
    struct bgp_err *err)
{
	const uint8_t *p = msg + BGP_HDR_LEN;
	size_t n = len - BGP_HDR_LEN, off = 10, optlen;
	uint32_t as4 = 0;
	bool ext = false;
	int rv;

	memset(o, 0, sizeof(*o));
	if (len < BGP_OPEN_MIN)
		return (err_set16(err, BGP_ERR_HDR, BGP_ERR_HDR_LEN,
		    (uint16_t)len, "OPEN too short"));
	o->version = p[0];
	o->my_as = bgp_get16(p + 1);
	o->hold = bgp_get16(p + 3);
	memcpy(&o->id.s_addr, p + 5, 4);
	optlen = p[9];
	if (o->version != BGP_VERSION)
		return (err_set16(err, BGP_ERR_OPEN, BGP_ERR_OPEN_VERSION,
		    BGP_VERSION, "unsupported version"));
	if (optlen == 255 && n >= 13 && p[10] == 255) {
		/* RFC 9072: the real length follows, parameters have
		 * 2-octet lengths */
		ext = true;
		optlen = bgp_get16(p + 11);
		off = 13;
	}
	if (off + optlen != n)
		return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_UNSPEC, NULL, 0,
		    "optional parameters length disagrees with the message"));
	while (off < n) {
		size_t hl = ext ? 3 : 2, pl;

		if (n - off < hl ||
		    (pl = ext ? bgp_get16(p + off + 1) : p[off + 1]) >
			n - off - hl)
			return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_UNSPEC,
			    NULL, 0, "optional parameter overruns the OPEN"));
		if (p[off] != 2) /* capabilities, RFC 5492 */
			return (err_set(err, BGP_ERR_OPEN,
			    BGP_ERR_OPEN_OPTPARAM, NULL, 0,
			    "optional parameter other than capabilities"));
		if ((rv = open_caps(o, p + off + hl, pl, &as4, err)) != 0)
			return (rv);
		off += hl + pl;
	}
	o->as = (o->caps & BGP_OPEN_F_AS4) ? as4 : o->my_as;
	if (o->my_as == 0 || o->as == 0)
		return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_PEER_AS, NULL,
		    0, "AS 0 (RFC 7607)"));
	if ((o->caps & BGP_OPEN_F_AS4) &&
	    o->my_as != (o->as > 0xffff ? BGP_AS_TRANS : o->as))
		return (
		    err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_PEER_AS, NULL, 0,
			"My AS disagrees with the 4-octet AS capability (RFC "
			"6793 4.1)"));
	if (o->hold == 1 || o->hold == 2)
		return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_HOLD, NULL, 0,
		    "hold time 1 or 2 (RFC 4271 6.2)"));
	if (o->id.s_addr == 0)
		return (err_set(err, BGP_ERR_OPEN, BGP_ERR_OPEN_ID, NULL, 0,
		    "BGP Identifier 0 (RFC 6286)"));
	return (0);
}

/* One capability into q; the bytes written. */
static size_t
cap_put(uint8_t *q, uint8_t code, const uint8_t *v, size_t len)
{
	q[0] = code;
	q[1] = (uint8_t)len;
	if (len > 0)
		memcpy(q + 2, v, len);
	return (2 + len);
}

int
bgp_open_encode(uint8_t *buf, size_t cap, const struct bgp_open *o)
{
	uint8_t c[255], v[2 + 4 * BGP_AF_COUNT];
	size_t n = 0, len;

	if (o->hold == 1 || o->hold == 2 || o->gr_time > BGP_GR_TIME_MAX ||
	    (o->as > 0xffff && !(o->caps & BGP_OPEN_F_AS4)))
		return (-EINVAL);
	for (unsigned af = 0; (o->caps & BGP_OPEN_F_MP) && af < BGP_AF_COUNT;
	     af++)
		if (o->mp & BGP_AF_BIT(af)) {
			bgp_put16(v, bgp_af_afi(af));
			v[2] = 0;
			v[3] = bgp_af_safi(af);
			n += cap_put(c + n, BGP_CAP_MP, v, 4);
		}
	if (o->caps & BGP_OPEN_F_RR)
		n += cap_put(c + n, BGP_CAP_RR, NULL, 0);
	if (o->caps & BGP_OPEN_F_RR_OLD)
		n += cap_put(c + n, BGP_CAP_RR_OLD, NULL, 0);
	if (o->caps & BGP_OPEN_F_ERR)
		n += cap_put(c + n, BGP_CAP_ERR, NULL, 0);
	if (o->caps & BGP_OPEN_F_GR) {
		size_t k = 2;

		bgp_put16(v,
		    (uint16_t)((o->gr_flags & 0xf) << 12 | o->gr_time));
		for (unsigned af = 0; af < BGP_AF_COUNT; af++)
			if (o->gr_afs & BGP_AF_BIT(af)) {
				bgp_put16(v + k, bgp_af_afi(af));
				v[k + 2] = bgp_af_safi(af);
				v[k + 3] = o->gr_fwd & BGP_AF_BIT(af) ? 0x80 :
									0;
				k += 4;
			}
		n += cap_put(c + n, BGP_CAP_GR, v, k);
	}
	if (o->caps & BGP_OPEN_F_AS4) {
		bgp_put32(v, o->as);
		n += cap_put(c + n, BGP_CAP_AS4, v, 4);
	}
	len = BGP_OPEN_MIN + (n > 0 ? 2 + n : 0);
	if (cap < len)
		return (-ENOSPC);
	put_hdr(buf, len, BGP_OPEN);
	buf[19] = BGP_VERSION;
	bgp_put16(buf + 20, o->as > 0xffff ? BGP_AS_TRANS : (uint16_t)o->as);
	bgp_put16(buf + 22, o->hold);
	memcpy(buf + 24, &o->id.s_addr, 4);
	buf[28] = (uint8_t)(n > 0 ? 2 + n : 0);
	if (n > 0) {
		buf[29] = 2;
		buf[30] = (uint8_t)n;
		memcpy(buf + 31, c, n);
	}
	return ((int)len);
}

int
bgp_open_check_as(const struct bgp_open *o, uint32_t remote_as)
{
	return (o->as == remote_as ? 0 : BGP_ERR_OPEN_PEER_AS);
}

uint16_t
bgp_open_hold(const struct bgp_open *local, const struct bgp_open *peer)
{
	if (local->hold == 0 || peer->hold == 0)
		return (0);
	return (local->hold < peer->hold ? local->hold : peer->hold);
}

void
bgp_codec_init(struct bgp_codec *c, const struct bgp_open *local,
    const struct bgp_open *peer, bool ebgp)
{
	uint8_t l = (local->caps & BGP_OPEN_F_MP) ? local->mp :
						    BGP_AF_BIT(BGP_AF_IPV4);
	uint8_t r = (peer->caps & BGP_OPEN_F_MP) ? peer->mp :
						   BGP_AF_BIT(BGP_AF_IPV4);

	c->as4 = (local->caps & peer->caps & BGP_OPEN_F_AS4) != 0;
	c->ebgp = ebgp;
	c->afs = l & r;
	c->first_as = ebgp ? peer->as : 0;
}

/* ---- KEEPALIVE, NOTIFICATION, ROUTE-REFRESH ---------------------------------------- */

int
bgp_keepalive_encode(uint8_t *buf, size_t cap)
{
	if (cap < BGP_HDR_LEN)
		return (-ENOSPC);
	put_hdr(buf, BGP_HDR_LEN, BGP_KEEPALIVE);
	return (BGP_HDR_LEN);
}

int
bgp_notification_parse(const uint8_t *msg, size_t len,
    struct bgp_notification *n)
{
	memset(n, 0, sizeof(*n));
	if (len < BGP_NOTIF_MIN)
		return (-EBADMSG);
	n->code = msg[19];
	n->subcode = msg[20];
	n->data = msg + BGP_NOTIF_MIN;
	n->len = (uint16_t)(len - BGP_NOTIF_MIN);
	return (0);
}

int
bgp_notification_encode(uint8_t *buf, size_t cap, uint8_t code, uint8_t subcode,
    const uint8_t *data, size_t dlen)
{
	size_t len;

	if (dlen > BGP_MAX_LEN - BGP_NOTIF_MIN)
		dlen = BGP_MAX_LEN - BGP_NOTIF_MIN;
	len = BGP_NOTIF_MIN + dlen;
	if (cap < len)
		return (-ENOSPC);
	put_hdr(buf, len, BGP_NOTIFICATION);
	buf[19] = code;
	buf[20] = subcode;
	if (dlen > 0)
		memcpy(buf + BGP_NOTIF_MIN, data, dlen);
	return ((int)len);
}

int
bgp_err_encode(uint8_t *buf, size_t cap, const struct bgp_err *e)
{
	return (bgp_notification_encode(buf, cap, e->code, e->subcode,
	    bgp_err_data(e), e->len));
}

int
bgp_rr_parse(const uint8_t *msg, size_t len, struct bgp_rr *rr,
    struct bgp_err *err)
{
	if (len != BGP_RR_LEN)
		return (err_set(err, BGP_ERR_RR, BGP_ERR_RR_LEN, msg, len,
		    "ROUTE-REFRESH length is not 23 (RFC 7313 5)"));
	rr->afi = bgp_get16(msg + 19);
	rr->subtype = msg[21];
	rr->safi = msg[22];
	rr->af = bgp_af_of(rr->afi, rr->safi);
	return (0);
}

int
bgp_rr_encode(uint8_t *buf, size_t cap, enum bgp_af af, uint8_t subtype)
{
	if (cap < BGP_RR_LEN)
		return (-ENOSPC);
	put_hdr(buf, BGP_RR_LEN, BGP_ROUTE_REFRESH);
	bgp_put16(buf + 19, bgp_af_afi(af));
	buf[21] = subtype;
	buf[22] = bgp_af_safi(af);
	return (BGP_RR_LEN);
}

/* ---- UPDATE ---------------------------------------------------------------------------- */

int
bgp_update_parse(const uint8_t *msg, size_t len, const struct bgp_codec *c,
    uint8_t *scratch, struct bgp_update *u, struct bgp_err *err)
{
	const uint8_t *p = msg + BGP_HDR_LEN;
	size_t n = len - BGP_HDR_LEN, wl, al, nl;
	struct bgp_attrs *a = &u->a;
	struct bgp_nlri wd, nlri;
	bool mp_r, mp_u;

	u->n_unreach = u->n_reach = 0;
	u->eor = -1;
	if (len < BGP_UPD_MIN)
		return (err_set16(err, BGP_ERR_HDR, BGP_ERR_HDR_LEN,
		    (uint16_t)len, "UPDATE too short"));
	wl = bgp_get16(p);
	if (4 + wl > n)
		return (err_set(err, BGP_ERR_UPDATE, BGP_ERR_UPD_ATTRLIST, NULL,
		    0, "Withdrawn Routes Length overruns the message"));
	al = bgp_get16(p + 2 + wl);
	if (4 + wl + al > n)
		return (err_set(err, BGP_ERR_UPDATE, BGP_ERR_UPD_ATTRLIST, NULL,
		    0, "Total Path Attribute Length overruns the message"));
	nl = n - 4 - wl - al;
	wd = (struct bgp_nlri){p + 2, (uint16_t)wl, BGP_AF_IPV4, 0, NULL};
	nlri = (struct bgp_nlri){p + 4 + wl + al, (uint16_t)nl, BGP_AF_IPV4, 0,
	    NULL};
	if (bgp_nlri_check(wd.p, wl, BGP_AF_IPV4) != 0)
		return (err_set(err, BGP_ERR_UPDATE, BGP_ERR_UPD_NETWORK, NULL,
		    0, "Withdrawn Routes do not parse (RFC 7606 5.3)"));
	if (bgp_nlri_check(nlri.p, nl, BGP_AF_IPV4) != 0)
		return (err_set(err, BGP_ERR_UPDATE, BGP_ERR_UPD_NETWORK, NULL,
		    0, "NLRI do not parse (RFC 7606 5.3)"));
	if (bgp_attr_parse(p + 4 + wl, al, c, scratch, a, err) == BGP_OUT_RESET)
		return (-EBADMSG);
	mp_r = (a->present & BGP_ABIT(BGP_ATTR_MP_REACH)) != 0;
	mp_u = (a->present & BGP_ABIT(BGP_ATTR_MP_UNREACH)) != 0;
	if (a->broken && nl == 0 && !mp_r && !mp_u) {
		/* RFC 7606 4, 5.1: what was announced cannot be known, so it
		 * cannot be withdrawn */
		a->outcome = BGP_OUT_RESET;
		return (
		    err_set(err, BGP_ERR_UPDATE, BGP_ERR_UPD_ATTRLIST, NULL, 0,
			"attribute overruns the path attributes, no prefixes "
			"known before it (RFC 7606 4)"));
	}
	if (nl > 0) {
		/* a malformed NEXT_HOP was not kept: nh_why says why */
		if (!(a->present & BGP_ABIT(BGP_ATTR_NEXT_HOP)) &&
		    a->outcome < BGP_OUT_WITHDRAW) {
			a->outcome = BGP_OUT_WITHDRAW;
			a->why = a->nh_why != NULL ?
			    a->nh_why :
			    "missing NEXT_HOP (RFC 7606 3 (d))";
			a->why_type = BGP_ATTR_NEXT_HOP;
		}
		nlri.nh = a->nexthop_p;
		nlri.nh_len = 4;
	} else {
		/* without NLRI field NEXT_HOP means nothing (RFC 4760 3) */
		a->present &= ~BGP_ABIT(BGP_ATTR_NEXT_HOP);
		if (mp_r && a->mp_reach.af == BGP_AF_IPV4) {
			memcpy(&a->nexthop.s_addr, a->mp_reach.nh, 4);
			a->nexthop_p = a->mp_reach.nh;
			a->present |= BGP_ABIT(BGP_ATTR_NEXT_HOP);
		}
	}
	if ((nl > 0 || mp_r) && a->outcome < BGP_OUT_WITHDRAW &&
	    (~a->present &
		(BGP_ABIT(BGP_ATTR_ORIGIN) | BGP_ABIT(BGP_ATTR_AS_PATH)))) {
		a->outcome = BGP_OUT_WITHDRAW;
		a->why = "missing ORIGIN or AS_PATH (RFC 7606 3 (d))";
		a->why_type = a->present & BGP_ABIT(BGP_ATTR_ORIGIN) ?
		    BGP_ATTR_AS_PATH :
		    BGP_ATTR_ORIGIN;
	}
	if (wl > 0)
		u->unreach[u->n_unreach++] = wd;
	if (mp_u && a->mp_unreach.len > 0)
		u->unreach[u->n_unreach++] = a->mp_unreach;
	if (nl > 0)
		u->reach[u->n_reach++] = nlri;
	if (mp_r && a->mp_reach.len > 0)
		u->reach[u->n_reach++] = a->mp_reach;
	if (a->outcome == BGP_OUT_WITHDRAW) {
		for (unsigned i = 0; i < u->n_reach; i++)
			u->unreach[u->n_unreach++] = u->reach[i];
		u->n_reach = 0;
	}
	if (wl == 0 && nl == 0) {
		if (al == 0)
			u->eor = BGP_AF_IPV4;
		else if (a->present == BGP_ABIT(BGP_ATTR_MP_UNREACH) &&
		    a->mp_unreach.len == 0 && a->outcome == BGP_OUT_OK &&
		    !(a->unknown[0] | a->unknown[1] | a->unknown[2] |
			a->unknown[3]))
			u->eor = a->mp_unreach.af;
	}
	return (0);
}

int
bgp_eor_encode(uint8_t *buf, size_t cap, enum bgp_af af)
{
	size_t len = af == BGP_AF_IPV4 ? BGP_UPD_MIN : BGP_UPD_MIN + 6;

	if (cap < len)
		return (-ENOSPC);
	put_hdr(buf, len, BGP_UPDATE);
	memset(buf + 19, 0, 4);
	if (af != BGP_AF_IPV4) {
		bgp_put16(buf + 21, 6);
		buf[23] = BGP_ATTR_F_OPTIONAL;
		buf[24] = BGP_ATTR_MP_UNREACH;
		buf[25] = 3;
		bgp_put16(buf + 26, bgp_af_afi(af));
		buf[28] = bgp_af_safi(af);
	}
	return ((int)len);
}

/* ---- the UPDATE builder --------------------------------------------------------------- */

/* The message's size with wd octets of withdrawn and nlri of announced
 * prefixes. The MP attributes have 2-octet lengths: they grow past 255. */
static size_t
upd_size(const struct bgp_upd_builder *b, size_t wd, size_t nlri)
{
	size_t n = BGP_UPD_MIN;

	if (b->af == BGP_AF_IPV4)
		return (n + wd + (nlri > 0 ? b->attr_len + nlri : 0));
	if (wd > 0)
		n += 4 + 3 + wd;
	if (nlri > 0)
		n += 4 + 5 + b->nh_len + b->attr_len + nlri;
	return (n);
}

void
bgp_upd_init(struct bgp_upd_builder *b, const struct bgp_codec *c,
    enum bgp_af af)
{
	b->c = *c;
	b->af = af;
	b->has_attrs = false;
	b->nh_len = 0;
	b->attr_len = b->wd_len = b->nlri_len = 0;
}

int
bgp_upd_set_attrs(struct bgp_upd_builder *b, const struct bgp_attrs *a)
{
	uint64_t need = BGP_ABIT(BGP_ATTR_ORIGIN) | BGP_ABIT(BGP_ATTR_AS_PATH);
	int rv;

	if (b->nlri_len > 0)
		return (-EBUSY);
	b->has_attrs = false;
	if (b->af == BGP_AF_IPV4)
		need |= BGP_ABIT(BGP_ATTR_NEXT_HOP);
	else if (a->mp_reach.nh_len != 16 && a->mp_reach.nh_len != 32)
		return (-EINVAL);
	if ((a->present & need) != need)
		return (-EINVAL);
	if ((rv = bgp_attr_encode(a, &b->c, b->af, b->attr, sizeof(b->attr))) <
	    0)
		return (-E2BIG);
	b->attr_len = (size_t)rv;
	if (b->af != BGP_AF_IPV4) {
		b->nh_len = a->mp_reach.nh_len;
		memcpy(b->nh, a->mp_reach.nh, b->nh_len);
	}
	if (upd_size(b, 0, b->af == BGP_AF_IPV4 ? 5 : 17) > BGP_MAX_LEN)
		return (-E2BIG);
	b->has_attrs = true;
	return (0);
}

static int
upd_add(struct bgp_upd_builder *b, bool reach, const void *addr, unsigned len)
{
	size_t pl = 1 + (len + 7) / 8;

	if (len > (b->af == BGP_AF_IPV4 ? 32u : 128u) ||
	    (reach && !b->has_attrs))
		return (-EINVAL);
	if (upd_size(b, b->wd_len + (reach ? 0 : pl),
		b->nlri_len + (reach ? pl : 0)) > BGP_MAX_LEN)
		return (-ENOSPC);
	if (reach)
		b->nlri_len += (size_t)bgp_nlri_put(b->nlri + b->nlri_len,
		    sizeof(b->nlri) - b->nlri_len, addr, len);
	else
		b->wd_len += (size_t)bgp_nlri_put(b->wd + b->wd_len,
		    sizeof(b->wd) - b->wd_len, addr, len);
	return (0);
}

int
bgp_upd_withdraw(struct bgp_upd_builder *b, const void *addr, unsigned len)
{
	return (upd_add(b, false, addr, len));
}

int
bgp_upd_announce(struct bgp_upd_builder *b, const void *addr, unsigned len)
{
	return (upd_add(b, true, addr, len));
}

/* An MP attribute's header with a 2-octet length, and its AFI/SAFI. */
static size_t
mp_hdr(uint8_t *q, uint8_t type, size_t len, enum bgp_af af)
{
	q[0] = BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_EXTLEN;
	q[1] = type;
	bgp_put16(q + 2, (uint16_t)len);
	bgp_put16(q + 4, bgp_af_afi(af));
	q[6] = bgp_af_safi(af);
	return (7);
}

size_t
bgp_upd_finish(struct bgp_upd_builder *b, const uint8_t **msg)
{
	uint8_t *p = b->msg;
	size_t o = BGP_HDR_LEN, alen;

	*msg = p;
	if (bgp_upd_empty(b))
		return (0);
	if (b->af == BGP_AF_IPV4) {
		bgp_put16(p + o, (uint16_t)b->wd_len);
		memcpy(p + o + 2, b->wd, b->wd_len);
		o += 2 + b->wd_len;
		alen = b->nlri_len > 0 ? b->attr_len : 0;
		bgp_put16(p + o, (uint16_t)alen);
		memcpy(p + o + 2, b->attr, alen);
		o += 2 + alen;
		memcpy(p + o, b->nlri, b->nlri_len);
		o += b->nlri_len;
	} else {
		size_t at = o + 2;

		bgp_put16(p + o, 0);
		o += 4;
		if (b->wd_len > 0) {
			o += mp_hdr(p + o, BGP_ATTR_MP_UNREACH, 3 + b->wd_len,
			    b->af);
			memcpy(p + o, b->wd, b->wd_len);
			o += b->wd_len;
		}
		if (b->nlri_len > 0) {
			o += mp_hdr(p + o, BGP_ATTR_MP_REACH,
			    5 + b->nh_len + b->nlri_len, b->af);
			p[o++] = b->nh_len;
			memcpy(p + o, b->nh, b->nh_len);
			o += b->nh_len;
			p[o++] = 0;
			memcpy(p + o, b->nlri, b->nlri_len);
			o += b->nlri_len;
			memcpy(p + o, b->attr, b->attr_len);
			o += b->attr_len;
		}
		bgp_put16(p + at, (uint16_t)(o - at - 2));
	}
	put_hdr(p, o, BGP_UPDATE);
	b->wd_len = b->nlri_len = 0;
	return (o);
}
