/* tests/unit/bgp/test_msg.c: BGP messages both ways: framing errors (RFC 4271 6.1), OPEN with capabilities and its errors (6.2, RFC 5492, 6793, 4724, 9072), KEEPALIVE, NOTIFICATION, ROUTE-REFRESH (RFC 2918, 7313), the UPDATE builder round tripped through the parser for IPv4, IPv6 and 2-octet sessions, and no malloc per message. */
#include "bgp_test.h"

static uint8_t m[BGP_MAX_LEN + 64];

/* ---- framing ---------------------------------------------------------------------- */

static void
test_hdr_checks(void **state)
{
	uint8_t type = 0;
	int n;

	(void)state;
	n = bgp_keepalive_encode(m, sizeof(m));
	assert_int_equal(n, 19);
	assert_int_equal(bgp_msg_check_hdr(m, 18, &type, &t_err), -EAGAIN);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), 19);
	assert_int_equal(type, BGP_KEEPALIVE);
	assert_int_equal(bgp_keepalive_encode(m, 18), -ENOSPC);
	/* marker */
	m[3] = 0;
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	assert_int_equal(t_err.code, BGP_ERR_HDR);
	assert_int_equal(t_err.subcode, BGP_ERR_HDR_SYNC);
	m[3] = 0xff;
	/* length out of range, with the length as data */
	bgp_put16(m + 16, 18);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_HDR_LEN);
	assert_int_equal(t_err.len, 2);
	assert_int_equal(bgp_get16(bgp_err_data(&t_err)), 18);
	bgp_put16(m + 16, 4097);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	assert_int_equal(bgp_get16(bgp_err_data(&t_err)), 4097);
	/* wrong for the type */
	bgp_put16(m + 16, 20);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_HDR_LEN);
	m[18] = BGP_OPEN;
	bgp_put16(m + 16, 28);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	m[18] = BGP_UPDATE;
	bgp_put16(m + 16, 22);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	m[18] = BGP_NOTIFICATION;
	bgp_put16(m + 16, 20);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	bgp_put16(m + 16, 4096);
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), 4096);
	/* unknown type, with the type as data */
	m[18] = 6;
	assert_int_equal(bgp_msg_check_hdr(m, 19, &type, &t_err), -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_HDR_TYPE);
	assert_int_equal(t_err.len, 1);
	assert_int_equal(bgp_err_data(&t_err)[0], 6);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(bgp_type_str(BGP_UPDATE), "UPDATE");
	assert_string_equal(bgp_type_str(9), "unknown");
	assert_string_equal(bgp_err_code_str(BGP_ERR_CEASE), "Cease");
	assert_string_equal(bgp_err_subcode_str(BGP_ERR_UPDATE,
				BGP_ERR_UPD_ASPATH),
	    "Malformed AS_PATH");
	assert_string_equal(bgp_err_subcode_str(BGP_ERR_CEASE,
				BGP_CEASE_SHUTDOWN),
	    "Administrative Shutdown");
	assert_string_equal(bgp_err_subcode_str(BGP_ERR_HOLD, 0), "Unspecific");
	assert_string_equal(bgp_err_subcode_str(BGP_ERR_UPDATE, 7), "unknown");
	assert_string_equal(bgp_err_subcode_str(200, 200), "unknown");
}

/* ---- OPEN ---------------------------------------------------------------------------------- */

static struct bgp_open
open_full(uint32_t as)
{
	struct bgp_open o = {0};

	o.version = 4;
	o.as = as;
	o.hold = 90;
	o.id = lc_ip4_from_host(0xc6120001);
	o.caps = BGP_OPEN_F_MP | BGP_OPEN_F_RR | BGP_OPEN_F_RR_OLD |
	    BGP_OPEN_F_AS4 | BGP_OPEN_F_GR | BGP_OPEN_F_ERR;
	o.mp = V4V6;
	o.gr_flags = BGP_GR_F_RESTART | BGP_GR_F_NOTIFY;
	o.gr_time = 120;
	o.gr_afs = V4V6;
	o.gr_fwd = BGP_AF_BIT(BGP_AF_IPV4);
	return (o);
}

static void
test_open_round_trip(void **state)
{
	struct bgp_open o = open_full(4200000000u), p;
	uint8_t type;
	int n;

	(void)state;
	n = bgp_open_encode(m, sizeof(m), &o);
	/* 29 + parameter 2 + MP 2x6 + RR 2 + RR_OLD 2 + ERR 2 + GR 2+2+8 +
	 * AS4 6 */
	assert_int_equal(n, 29 + 2 + 12 + 6 + 12 + 6);
	assert_int_equal(bgp_msg_check_hdr(m, (size_t)n, &type, &t_err), n);
	assert_int_equal(type, BGP_OPEN);
	assert_int_equal(bgp_get16(m + 20), BGP_AS_TRANS);
	assert_int_equal(bgp_open_parse(m, (size_t)n, &p, &t_err), 0);
	assert_int_equal(p.version, 4);
	assert_int_equal(p.my_as, BGP_AS_TRANS);
	assert_int_equal(p.as, 4200000000u);
	assert_int_equal(p.hold, 90);
	assert_int_equal(p.id.s_addr, o.id.s_addr);
	assert_int_equal(p.caps, o.caps);
	assert_int_equal(p.mp, V4V6);
	assert_int_equal(p.gr_flags, o.gr_flags);
	assert_int_equal(p.gr_time, 120);
	assert_int_equal(p.gr_afs, V4V6);
	assert_int_equal(p.gr_fwd, BGP_AF_BIT(BGP_AF_IPV4));
	assert_int_equal(p.n_unknown, 0);
	assert_int_equal(bgp_open_check_as(&p, 4200000000u), 0);
	assert_int_equal(bgp_open_check_as(&p, 65001), BGP_ERR_OPEN_PEER_AS);
	/* a bare OPEN: no optional parameters */
	o.caps = 0;
	o.as = 65001;
	n = bgp_open_encode(m, sizeof(m), &o);
	assert_int_equal(n, 29);
	assert_int_equal(bgp_open_parse(m, (size_t)n, &p, &t_err), 0);
	assert_int_equal(p.as, 65001);
	assert_int_equal(p.caps, 0);
	/* what cannot be said */
	o.as = 70000;
	assert_int_equal(bgp_open_encode(m, sizeof(m), &o), -EINVAL);
	o.as = 65001;
	o.hold = 2;
	assert_int_equal(bgp_open_encode(m, sizeof(m), &o), -EINVAL);
	o.hold = 3;
	assert_int_equal(bgp_open_encode(m, 28, &o), -ENOSPC);
}

/* Encodes o, writes v[0..n) at off and makes the message len octets (0:
 * as encoded), parses: the subcode, or 0 when it parses. */
static int
open_err(const struct bgp_open *o, size_t off, const void *v, size_t n,
    size_t len)
{
	struct bgp_open p;
	int enc = bgp_open_encode(m, sizeof(m), o);

	assert_true(enc > 0);
	if (n > 0)
		memcpy(m + off, v, n);
	if (len == 0)
		len = (size_t)enc;
	bgp_put16(m + 16, (uint16_t)len);
	memset(&t_err, 0, sizeof(t_err));
	if (bgp_open_parse(m, len, &p, &t_err) == 0)
		return (0);
	assert_int_equal(t_err.code, BGP_ERR_OPEN);
	return (t_err.subcode);
}

static void
test_open_errors(void **state)
{
	/* one edit of a good OPEN (67 octets) each, and what it must get */
	static const struct {
		size_t off;
		uint8_t v[4];
		uint8_t n;
		uint8_t len;
		int subcode;
	} cases[] = {
	    {19, {3}, 1, 0, BGP_ERR_OPEN_VERSION},
	    {22, {0, 1}, 2, 0, BGP_ERR_OPEN_HOLD},
	    {24, {0, 0, 0, 0}, 4, 0, BGP_ERR_OPEN_ID},
	    {20, {0, 0}, 2, 0, BGP_ERR_OPEN_PEER_AS},	    /* RFC 7607 */
	    {20, {0xfd, 0xf1}, 2, 0, BGP_ERR_OPEN_PEER_AS}, /* != AS4 cap */
	    {63, {0, 0, 0, 0}, 4, 0, BGP_ERR_OPEN_PEER_AS}, /* AS4 cap 0 */
	    {28, {4, 1, 2}, 3, 33, BGP_ERR_OPEN_OPTPARAM},  /* auth */
	    {28, {39}, 1, 0, BGP_ERR_OPEN_UNSPEC},	    /* optlen */
	    {32, {5}, 1, 0, BGP_ERR_OPEN_UNSPEC},	    /* MP cap len */
	    {22, {0, 0}, 2, 0, 0},			    /* hold 0 */
	};
	/* two more capabilities: an unknown code, MP of an unknown AFI */
	static const uint8_t more[] = {200, 1, 7, BGP_CAP_MP, 4, 0, 25, 0, 70};
	struct bgp_open o = open_full(65001), p;
	int n;

	(void)state;
	assert_int_equal(bgp_open_encode(m, sizeof(m), &o), 67);
	assert_int_equal(open_err(&o, 0, NULL, 0, 0), 0);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int sub = open_err(&o, cases[i].off, cases[i].v, cases[i].n,
		    cases[i].len);

		if (sub != cases[i].subcode)
			fail_msg("case %u: subcode %d, want %d", i, sub,
			    cases[i].subcode);
		if (sub != 0)
			assert_non_null(t_err.reason);
	}
	/* the version error says which version we speak */
	assert_int_equal(open_err(&o, 19, "\x03", 1, 0), BGP_ERR_OPEN_VERSION);
	assert_int_equal(t_err.len, 2);
	assert_int_equal(bgp_get16(bgp_err_data(&t_err)), 4);
	/* unknown capabilities are ignored and counted (RFC 5492 3) */
	n = bgp_open_encode(m, sizeof(m), &o);
	memcpy(m + n, more, sizeof(more));
	m[28] = (uint8_t)(m[28] + sizeof(more));
	m[30] = (uint8_t)(m[30] + sizeof(more));
	n += (int)sizeof(more);
	bgp_put16(m + 16, (uint16_t)n);
	assert_int_equal(bgp_open_parse(m, (size_t)n, &p, &t_err), 0);
	assert_int_equal(p.n_unknown, 2);
	assert_int_equal(p.mp, V4V6);
}

static void
test_open_9072_extended(void **state)
{
	struct bgp_open p;
	/* optional parameters length 255, type 255, real length 2 octets,
	 * parameters with 2-octet lengths: one capability parameter holding
	 * 4-octet AS 70000 */
	static const uint8_t tail[] = {255, 255, 0, 9, 2, 0, 6, BGP_CAP_AS4, 4,
	    0, 1, 0x11, 0x70};
	size_t n = 28 + sizeof(tail);

	(void)state;
	memset(m, 0xff, 16);
	bgp_put16(m + 16, (uint16_t)n);
	m[18] = BGP_OPEN;
	m[19] = 4;
	bgp_put16(m + 20, BGP_AS_TRANS);
	bgp_put16(m + 22, 90);
	bgp_put32(m + 24, 0xc6120001);
	memcpy(m + 28, tail, sizeof(tail));
	assert_int_equal(bgp_open_parse(m, n, &p, &t_err), 0);
	assert_int_equal(p.as, 70000);
	assert_true(p.caps & BGP_OPEN_F_AS4);
}

static void
test_codec_init(void **state)
{
	struct bgp_open l = open_full(65001), r = open_full(65002);
	struct bgp_codec c;

	(void)state;
	r.mp = BGP_AF_BIT(BGP_AF_IPV6);
	bgp_codec_init(&c, &l, &r, true);
	assert_true(c.as4);
	assert_true(c.ebgp);
	assert_int_equal(c.afs, BGP_AF_BIT(BGP_AF_IPV6));
	assert_int_equal(c.first_as, 65002);
	/* no MP capability: IPv4 unicast (RFC 4760 8); no AS4 on one side */
	r.caps &= ~(BGP_OPEN_F_MP | BGP_OPEN_F_AS4);
	bgp_codec_init(&c, &l, &r, false);
	assert_false(c.as4);
	assert_int_equal(c.afs, BGP_AF_BIT(BGP_AF_IPV4));
	assert_int_equal(c.first_as, 0);
	/* hold: the smaller, 0 wins */
	r.hold = 30;
	assert_int_equal(bgp_open_hold(&l, &r), 30);
	l.hold = 0;
	assert_int_equal(bgp_open_hold(&l, &r), 0);
}

/* ---- NOTIFICATION, ROUTE-REFRESH ------------------------------------------------------------- */

static void
test_notification(void **state)
{
	struct bgp_notification nt;
	static uint8_t big[5000];
	uint8_t type;
	int n;

	(void)state;
	n = bgp_notification_encode(m, sizeof(m), BGP_ERR_CEASE,
	    BGP_CEASE_SHUTDOWN,
	    (const uint8_t *)"\x03"
			     "bye",
	    4);
	assert_int_equal(n, 25);
	assert_int_equal(bgp_msg_check_hdr(m, (size_t)n, &type, &t_err), n);
	assert_int_equal(type, BGP_NOTIFICATION);
	assert_int_equal(bgp_notification_parse(m, (size_t)n, &nt), 0);
	assert_int_equal(nt.code, BGP_ERR_CEASE);
	assert_int_equal(nt.subcode, BGP_CEASE_SHUTDOWN);
	assert_int_equal(nt.len, 4);
	assert_memory_equal(nt.data,
	    "\x03"
	    "bye",
	    4);
	/* data is cut to what a message holds */
	n = bgp_notification_encode(m, sizeof(m), BGP_ERR_UPDATE, 1, big,
	    sizeof(big));
	assert_int_equal(n, BGP_MAX_LEN);
	assert_int_equal(bgp_notification_encode(m, 20, 6, 2, NULL, 0),
	    -ENOSPC);
	/* a parser's error goes out as it says */
	t_err = (struct bgp_err){BGP_ERR_HDR, BGP_ERR_HDR_LEN, 2, NULL,
	    {0x10, 0x01}, "x"};
	n = bgp_err_encode(m, sizeof(m), &t_err);
	assert_int_equal(n, 23);
	assert_int_equal(bgp_notification_parse(m, (size_t)n, &nt), 0);
	assert_int_equal(nt.code, BGP_ERR_HDR);
	assert_int_equal(bgp_get16(nt.data), 0x1001);
}

static void
test_route_refresh(void **state)
{
	struct bgp_rr rr;
	uint8_t type;
	int n;

	(void)state;
	n = bgp_rr_encode(m, sizeof(m), BGP_AF_IPV6, BGP_RR_BORR);
	assert_int_equal(n, 23);
	assert_int_equal(bgp_msg_check_hdr(m, (size_t)n, &type, &t_err), n);
	assert_int_equal(type, BGP_ROUTE_REFRESH);
	assert_int_equal(bgp_rr_parse(m, (size_t)n, &rr, &t_err), 0);
	assert_int_equal(rr.afi, BGP_AFI_IPV6);
	assert_int_equal(rr.safi, BGP_SAFI_UNICAST);
	assert_int_equal(rr.subtype, BGP_RR_BORR);
	assert_int_equal(rr.af, BGP_AF_IPV6);
	/* an AFI we do not know parses, to be ignored */
	bgp_put16(m + 19, 25);
	assert_int_equal(bgp_rr_parse(m, (size_t)n, &rr, &t_err), 0);
	assert_int_equal(rr.af, -1);
	/* RFC 7313 5: a length other than 23, the message as data */
	bgp_put16(m + 16, 24);
	assert_int_equal(bgp_msg_check_hdr(m, 24, &type, &t_err), 24);
	assert_int_equal(bgp_rr_parse(m, 24, &rr, &t_err), -EBADMSG);
	assert_int_equal(t_err.code, BGP_ERR_RR);
	assert_int_equal(t_err.subcode, BGP_ERR_RR_LEN);
	assert_int_equal(t_err.len, 24);
	assert_ptr_equal(bgp_err_data(&t_err), m);
	assert_int_equal(bgp_rr_encode(m, 22, BGP_AF_IPV4, 0), -ENOSPC);
}

/* ---- UPDATE -------------------------------------------------------------------------------------- */

static void
test_update_parse_fields(void **state)
{
	uint8_t at[64];
	static const uint8_t wd[] = {16, 198, 19, 32, 198, 18, 5, 7};
	static const uint8_t nlri[] = {0, 25, 198, 18, 9, 0xff, 32, 198, 18, 9,
	    1};
	struct bgp_nlri_iter it;
	struct lc_prefix4 pfx;
	size_t o = std_attrs(at, true), len;

	(void)state;
	len = upd_make(m, wd, sizeof(wd), at, o, nlri, sizeof(nlri));
	assert_int_equal(bgp_update_parse(m, len, &C4, NULL, &t_u, &t_err), 0);
	assert_int_equal(t_u.a.outcome, BGP_OUT_OK);
	assert_int_equal(t_u.eor, -1);
	assert_int_equal(t_u.n_unreach, 1);
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(t_u.reach[0].nh_len, 4);
	assert_memory_equal(t_u.reach[0].nh, "\xc6\x12\x01\x02", 4);
	bgp_nlri_iter_init(&it, &t_u.unreach[0]);
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
	assert_string_equal(lc_prefix4_ntoa(&pfx), "198.19.0.0/16");
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
	assert_string_equal(lc_prefix4_ntoa(&pfx), "198.18.5.7/32");
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 0);
	bgp_nlri_iter_init(&it, &t_u.reach[0]);
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
	assert_string_equal(lc_prefix4_ntoa(&pfx), "0.0.0.0/0");
	/* host bits beyond the length are cleared */
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
	assert_string_equal(lc_prefix4_ntoa(&pfx), "198.18.9.128/25");
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
	assert_int_equal(bgp_nlri_next4(&it, &pfx), 0);
	assert_int_equal(t_u.a.origin, BGP_ORIGIN_IGP);
	assert_int_equal(bgp_aspath_count(t_u.a.aspath, t_u.a.aspath_len), 2);
	/* a field the iterator cannot finish */
	{
		struct bgp_nlri bad = {nlri, 4, BGP_AF_IPV4, 0, NULL};

		bgp_nlri_iter_init(&it, &bad);
		assert_int_equal(bgp_nlri_next4(&it, &pfx), 1);
		assert_int_equal(bgp_nlri_next4(&it, &pfx), -EBADMSG);
	}
}

/* The attributes the builder tests send: the standard ones plus
 * communities and a 4-octet AS. */
static void
builder_attrs(struct bgp_attrs *a, uint8_t *buf)
{
	static const uint8_t path[] = {2, 3, 0, 0, 0xfd, 0xea, 0, 1, 0x11, 0x70,
	    0, 0, 0xfd, 0xeb};
	static const uint8_t comm[] = {0xfd, 0xea, 0, 1, 0xfd, 0xea, 0, 2};
	size_t o;

	o = attr(buf, 0, WK, BGP_ATTR_ORIGIN, "\x01", 1);
	o = attr(buf, o, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	o = attr(buf, o, WK, BGP_ATTR_NEXT_HOP, "\xc6\x12\x01\x02", 4);
	o = attr(buf, o, OPT, BGP_ATTR_MED, "\0\0\0\x07", 4);
	o = attr(buf, o, WK, BGP_ATTR_LOCAL_PREF, "\0\0\0\x96", 4);
	o = attr(buf, o, OPTT, BGP_ATTR_COMMUNITIES, comm, sizeof(comm));
	assert_int_equal(bgp_attr_parse(buf, o, &C4, NULL, a, &t_err),
	    BGP_OUT_OK);
}

/* Marks the prefixes of t_u's fields in seen_a (198.0.i.0/24) and seen_w
 * (199.0.0.i/32); each must come once. */
static void
mark4(bool reach, uint8_t *seen_a, uint8_t *seen_w)
{
	unsigned nf = reach ? t_u.n_reach : t_u.n_unreach;

	for (unsigned f = 0; f < nf; f++) {
		struct bgp_nlri_iter it;
		struct lc_prefix4 p;

		bgp_nlri_iter_init(&it,
		    reach ? &t_u.reach[f] : &t_u.unreach[f]);
		while (bgp_nlri_next4(&it, &p) == 1) {
			uint32_t h = ntohl(p.addr.s_addr);

			if (reach) {
				assert_int_equal(p.len, 24);
				assert_int_equal(seen_a[(h >> 8) & 0xffff]++,
				    0);
			} else {
				assert_int_equal(p.len, 32);
				assert_int_equal(seen_w[h & 0xffffff]++, 0);
			}
		}
	}
}

/* 3000 /24s announced and 1000 /32s withdrawn through session c: each
 * message <= 4096 octets, parses, carries the attributes, and every prefix
 * comes out once. */
static void
builder_run(const struct bgp_codec *c)
{
	static struct bgp_upd_builder b;
	static uint8_t seen_a[65536], seen_w[1000];
	uint8_t abuf[256], c1[BGP_ATTR_CANON_MAX], c2[BGP_ATTR_CANON_MAX];
	struct bgp_attrs a;
	unsigned ann = 0, wd = 0, msgs = 0;
	const uint8_t *msg;
	size_t len;
	int k1, k2;
	uint8_t type;

	memset(seen_a, 0, sizeof(seen_a));
	memset(seen_w, 0, sizeof(seen_w));
	builder_attrs(&a, abuf);
	k1 = bgp_attr_canon(&a, BGP_AF_IPV4, c1, sizeof(c1));
	bgp_upd_init(&b, c, BGP_AF_IPV4);
	assert_int_equal(bgp_upd_announce(&b, "\xc6\x12\0\0", 24), -EINVAL);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), 0);
	for (;;) {
		if (ann < 3000 || wd < 1000) {
			uint8_t pa[4], pw[4];
			int rv = 0;

			bgp_put32(pa, 0xc6000000u | ann << 8);
			bgp_put32(pw, 0xc7000000u | wd);
			if (ann < 3000 &&
			    (rv = bgp_upd_announce(&b, pa, 24)) == 0)
				ann++;
			if (rv == 0 && wd < 1000 &&
			    (rv = bgp_upd_withdraw(&b, pw, 32)) == 0)
				wd++;
			if (rv == 0)
				continue;
			/* full: finish this one, then go on */
			assert_int_equal(rv, -ENOSPC);
			assert_int_equal(bgp_upd_set_attrs(&b, &a), -EBUSY);
		}
		if ((len = bgp_upd_finish(&b, &msg)) == 0)
			break;
		msgs++;
		assert_true(len <= BGP_MAX_LEN);
		assert_int_equal(bgp_msg_check_hdr(msg, len, &type, &t_err),
		    (int)len);
		assert_int_equal(bgp_update_parse(msg, len, c, t_scratch, &t_u,
				     &t_err),
		    0);
		assert_int_equal(t_u.a.outcome, BGP_OUT_OK);
		mark4(false, seen_a, seen_w);
		mark4(true, seen_a, seen_w);
		if (t_u.n_reach > 0) {
			k2 = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, c2,
			    sizeof(c2));
			assert_int_equal(k1, k2);
			assert_memory_equal(c1, c2, (size_t)k1);
		}
	}
	for (unsigned i = 0; i < 3000; i++)
		assert_int_equal(seen_a[i], 1);
	for (unsigned i = 0; i < 1000; i++)
		assert_int_equal(seen_w[i], 1);
	/* ~4 octets a /24, ~5 a /32: about 4 messages' worth */
	assert_true(msgs >= 4 && msgs < 10);
}

static void
test_builder_ipv4(void **state)
{
	(void)state;
	builder_run(&C4);
}

static void
test_builder_2octet(void **state)
{
	static struct bgp_upd_builder b;
	uint8_t abuf[256];
	struct bgp_attrs a;
	const uint8_t *msg;
	size_t len;

	(void)state;
	builder_run(&C2);
	/* the wire has AS_TRANS and AS4_PATH */
	builder_attrs(&a, abuf);
	bgp_upd_init(&b, &C2, BGP_AF_IPV4);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), 0);
	assert_int_equal(bgp_upd_announce(&b, "\xc6\x12\x07", 24), 0);
	len = bgp_upd_finish(&b, &msg);
	assert_true(len > 0);
	assert_int_equal(bgp_update_parse(msg, len, &C4, NULL, &t_u, &t_err),
	    0); /* read as 4-octet: garbage, but framed */
	assert_int_equal(bgp_update_parse(msg, len, &C2, t_scratch, &t_u,
			     &t_err),
	    0);
	{
		char s[64];

		bgp_aspath_str(t_u.a.aspath, t_u.a.aspath_len, s, sizeof(s));
		assert_string_equal(s, "65002 70000 65003");
	}
}

static void
test_builder_ebgp(void **state)
{
	static struct bgp_upd_builder b;
	uint8_t abuf[256];
	struct bgp_attrs a;
	const uint8_t *msg;
	size_t len;

	(void)state;
	/* LOCAL_PREF does not go to an external peer */
	builder_attrs(&a, abuf);
	bgp_upd_init(&b, &CE, BGP_AF_IPV4);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), 0);
	assert_int_equal(bgp_upd_announce(&b, "\xc6\x12\x07", 24), 0);
	len = bgp_upd_finish(&b, &msg);
	assert_int_equal(bgp_update_parse(msg, len, &C4, NULL, &t_u, &t_err),
	    0);
	assert_int_equal(t_u.a.outcome, BGP_OUT_OK);
	assert_false(t_u.a.present & BGP_ABIT(BGP_ATTR_LOCAL_PREF));
	assert_true(t_u.a.present & BGP_ABIT(BGP_ATTR_MED));
	/* nothing added, nothing made */
	assert_int_equal(bgp_upd_finish(&b, &msg), 0);
	/* what the builder refuses */
	assert_int_equal(bgp_upd_announce(&b, "\xc6\x12\x07\x00", 33), -EINVAL);
	a.present &= ~BGP_ABIT(BGP_ATTR_NEXT_HOP);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), -EINVAL);
}

static void
test_builder_ipv6(void **state)
{
	static struct bgp_upd_builder b;
	static const uint8_t nh[16] = {0x20, 0x01, 0, 2, [15] = 1};
	uint8_t abuf[256], addr[16] = {0x20, 0x01, 0, 2};
	struct bgp_attrs a;
	struct bgp_nlri_iter it;
	struct lc_prefix6 p;
	const uint8_t *msg;
	size_t len;
	unsigned n = 0, nw = 0;

	(void)state;
	builder_attrs(&a, abuf);
	bgp_upd_init(&b, &C4, BGP_AF_IPV6);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), -EINVAL); /* no MP nh */
	a.mp_reach.nh = nh;
	a.mp_reach.nh_len = 16;
	assert_int_equal(bgp_upd_set_attrs(&b, &a), 0);
	for (unsigned i = 0; i < 100; i++) {
		addr[4] = (uint8_t)i;
		assert_int_equal(bgp_upd_announce(&b, addr, 48), 0);
	}
	assert_int_equal(bgp_upd_withdraw(&b, addr, 128), 0);
	assert_int_equal(bgp_upd_withdraw(&b, addr, 129), -EINVAL);
	len = bgp_upd_finish(&b, &msg);
	/* MP attributes first, with 2-octet lengths (RFC 7606 5.1) */
	assert_int_equal(bgp_get16(msg + 19), 0);
	assert_int_equal(msg[24], BGP_ATTR_MP_UNREACH);
	assert_int_equal(msg[23], BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_EXTLEN);
	assert_int_equal(bgp_update_parse(msg, len, &C4, NULL, &t_u, &t_err),
	    0);
	assert_int_equal(t_u.a.outcome, BGP_OUT_OK);
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(t_u.reach[0].af, BGP_AF_IPV6);
	assert_int_equal(t_u.reach[0].nh_len, 16);
	assert_memory_equal(t_u.reach[0].nh, nh, 16);
	assert_false(t_u.a.present & BGP_ABIT(BGP_ATTR_NEXT_HOP));
	bgp_nlri_iter_init(&it, &t_u.reach[0]);
	while (bgp_nlri_next6(&it, &p) == 1) {
		assert_int_equal(p.len, 48);
		assert_int_equal(p.addr.b[4], n);
		n++;
	}
	assert_int_equal(n, 100);
	assert_int_equal(t_u.n_unreach, 1);
	bgp_nlri_iter_init(&it, &t_u.unreach[0]);
	while (bgp_nlri_next6(&it, &p) == 1)
		nw++;
	assert_int_equal(nw, 1);
	assert_int_equal(bgp_upd_finish(&b, &msg), 0);
	/* until full */
	for (n = 0; bgp_upd_announce(&b, addr, 128) == 0; n++)
		;
	len = bgp_upd_finish(&b, &msg);
	assert_true(len <= BGP_MAX_LEN && len > BGP_MAX_LEN - 17);
	assert_int_equal(bgp_update_parse(msg, len, &C4, NULL, &t_u, &t_err),
	    0);
	assert_int_equal(t_u.reach[0].len, n * 17);
}

static void
test_builder_too_big(void **state)
{
	static struct bgp_upd_builder b;
	static uint8_t abuf[BGP_MAX_LEN],
	    big[BGP_MAX_LEN - 40]; /* with the rest, over 4096 */
	struct bgp_attrs a;
	size_t o;

	(void)state;
	o = std_attrs(abuf, true);
	o = attr(abuf, o, OPTT | BGP_ATTR_F_EXTLEN, BGP_ATTR_COMMUNITIES, big,
	    sizeof(big));
	assert_int_equal(bgp_attr_parse(abuf, o, &C4, NULL, &a, &t_err),
	    BGP_OUT_OK);
	bgp_upd_init(&b, &C4, BGP_AF_IPV4);
	assert_int_equal(bgp_upd_set_attrs(&b, &a), -E2BIG);
	assert_int_equal(bgp_upd_announce(&b, "\xc6\x12\x07", 24), -EINVAL);
}

/* Steady state: parsing and building UPDATEs allocates nothing. */
static void
test_no_malloc(void **state)
{
	static struct bgp_upd_builder b;
	uint8_t abuf[256];
	struct bgp_attrs a;
	const uint8_t *msg;
	unsigned long a0;
	int bad = 0;

	(void)state;
	builder_attrs(&a, abuf);
	bgp_upd_init(&b, &C2, BGP_AF_IPV4);
	a0 = allocs;
	for (unsigned i = 0; i < 10000; i++) {
		uint8_t pfx[4];
		size_t len;

		bgp_put32(pfx, 0xc6000000u | (i % 4096) << 8);
		if (bgp_upd_set_attrs(&b, &a) != 0 ||
		    bgp_upd_announce(&b, pfx, 24) != 0 ||
		    bgp_upd_withdraw(&b, pfx, 32) != 0)
			bad++;
		len = bgp_upd_finish(&b, &msg);
		if (bgp_update_parse(msg, len, &C2, t_scratch, &t_u, &t_err) !=
		    0)
			bad++;
	}
	assert_int_equal(allocs - a0, 0);
	assert_int_equal(bad, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hdr_checks),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_open_round_trip),
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_open_9072_extended),
	    cmocka_unit_test(test_codec_init),
	    cmocka_unit_test(test_notification),
	    cmocka_unit_test(test_route_refresh),
	    cmocka_unit_test(test_update_parse_fields),
	    cmocka_unit_test(test_builder_ipv4),
	    cmocka_unit_test(test_builder_2octet),
	    cmocka_unit_test(test_builder_ebgp),
	    cmocka_unit_test(test_builder_ipv6),
	    cmocka_unit_test(test_builder_too_big),
	    cmocka_unit_test(test_no_malloc),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
