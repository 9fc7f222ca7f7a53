/* tests/fuzz/fuzz_bgp_msg.c: libFuzzer harness for the BGP message layer: the first byte picks the session (4- or 2-octet ASes, iBGP or eBGP, AFs), the rest is a TCP byte stream framed into messages and parsed; OPENs round trip through the encoder, and accepted UPDATEs keep their invariants (prefixes in range, canonical encoding stable, interned, and rebuilt by the UPDATE builder into messages that parse to the same attributes and prefixes); on a session with IPv6 their IPv6 prefixes go through tern-bgp's IPv6 table (bgp_rib6.c: every announced prefix found with the field's global next hop, withdrawn ones gone, the counts consistent after the drain). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bgp/bgp_msg.h"
#include "bgp/bgp_rib6.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static uint8_t scratch[BGP_ASPATH_SCRATCH], scratch2[BGP_ASPATH_SCRATCH];
static uint8_t canon[BGP_ATTR_CANON_MAX], canon2[BGP_ATTR_CANON_MAX];
static uint8_t obuf[BGP_MAX_LEN];
static struct bgp_update u, u2;
static struct bgp_upd_builder b;
static struct bgp_intern *intern;
/* tern-bgp's IPv6 table, fed what the parser accepted (peer 1) */
static struct bgp_rib *rib4;
static struct bgp_rib6 *rib6;

static int
emit6(void *arg, const struct bgp_dest6 *d, const struct lc_ip6 *nh)
{
	(void)arg;
	/* installed only through a best path, withdrawn only without one */
	CHECK((nh != NULL) == (bgp_rib6_best(d) != NULL));
	return (0);
}

/* The UPDATE's IPv6 fields into the table as tern-bgp's rx_update does:
 * withdrawals, then announcements with the field's next hop; then the
 * table drained and its counts checked. */
static void
rib6_feed(const struct bgp_update *p)
{
	struct bgp_rib6_stats st;
	size_t all, imp;

	for (unsigned i = 0; i < p->n_unreach; i++) {
		struct bgp_nlri_iter it;
		struct lc_prefix6 pf;

		if (p->unreach[i].af != BGP_AF_IPV6)
			continue;
		bgp_nlri_iter_init(&it, &p->unreach[i]);
		while (bgp_nlri_next6(&it, &pf) == 1) {
			(void)bgp_rib6_withdraw(rib6, 1, &pf);
			CHECK(bgp_rib6_find(rib6, &pf) == NULL ||
			    bgp_rib6_find(rib6, &pf)->npaths == 0 ||
			    bgp_rib6_find(rib6, &pf)->paths[0].peer != 1);
		}
	}
	for (unsigned i = 0; i < p->n_reach; i++) {
		struct bgp_attrs v6 = p->a;
		struct bgp_nlri_iter it;
		struct lc_prefix6 pf;
		struct bgp_aset *s;
		int n;

		if (p->reach[i].af != BGP_AF_IPV6)
			continue;
		v6.mp_reach = p->reach[i];
		n = bgp_attr_canon(&v6, BGP_AF_IPV6, canon, sizeof(canon));
		CHECK(n > 0);
		s = bgp_intern_get(intern, canon, (size_t)n);
		CHECK(s != NULL);
		bgp_nlri_iter_init(&it, &p->reach[i]);
		while (bgp_nlri_next6(&it, &pf) == 1) {
			struct lc_ip6 nh;

			CHECK(bgp_rib6_update(rib6, 1, &pf, s, s, 0) >= 0);
			CHECK(bgp_aset_nh6(s, &nh) == 0);
			CHECK(memcmp(nh.b, p->reach[i].nh, 16) == 0);
			CHECK(bgp_rib6_find(rib6, &pf) != NULL);
		}
		bgp_aset_unref(intern, s);
	}
	(void)bgp_rib6_drain(rib6, SIZE_MAX, emit6, NULL);
	CHECK(bgp_rib6_pending(rib6) == 0);
	bgp_rib6_stats(rib6, &st);
	bgp_rib6_peer_counts(rib6, 1, &all, &imp);
	CHECK(all == st.paths && imp == st.paths && st.best == st.dests);
}

/* Iterates a field: every prefix in range with no host bits; the count. */
static unsigned
field_check(const struct bgp_nlri *f)
{
	struct bgp_nlri_iter it;
	unsigned n = 0;
	int rv;

	CHECK(f->af < BGP_AF_COUNT);
	bgp_nlri_iter_init(&it, f);
	if (f->af == BGP_AF_IPV4) {
		struct lc_prefix4 p;

		while ((rv = bgp_nlri_next4(&it, &p)) == 1) {
			CHECK(p.len <= 32);
			CHECK((ntohl(p.addr.s_addr) &
				  ~lc_prefix4_mask(p.len)) == 0);
			n++;
		}
	} else {
		struct lc_prefix6 p;

		while ((rv = bgp_nlri_next6(&it, &p)) == 1) {
			CHECK(p.len <= 128);
			n++;
		}
	}
	CHECK(rv == 0);
	return (n);
}

static bool
has_confed(const uint8_t *p, size_t len)
{
	for (size_t off = 0; off + 2 <= len; off += 2 + 4u * p[off + 1])
		if (p[off] >= BGP_AS_CONFED_SEQUENCE)
			return (true);
	return (false);
}

/* The canonical encoding parses back to itself and interns. */
static int
canon_check(const struct bgp_attrs *a, enum bgp_af af)
{
	static const struct bgp_codec cc = {true, false,
	    BGP_AF_BIT(BGP_AF_IPV4) | BGP_AF_BIT(BGP_AF_IPV6), 0};
	struct bgp_attrs back;
	struct bgp_err err;
	struct bgp_aset *s;
	int n, m;

	n = bgp_attr_canon(a, af, canon, sizeof(canon));
	CHECK(n >= 0);
	CHECK(bgp_attr_parse(canon, (size_t)n, &cc, NULL, &back, &err) ==
	    BGP_OUT_OK);
	m = bgp_attr_canon(&back, af, canon2, sizeof(canon2));
	CHECK(m == n && memcmp(canon, canon2, (size_t)n) == 0);
	s = bgp_intern_get(intern, canon, (size_t)n);
	CHECK(s != NULL);
	CHECK(bgp_intern_get(intern, canon, (size_t)n) == s);
	bgp_aset_unref(intern, s);
	bgp_aset_unref(intern, s);
	return (n);
}

/* One message of the builder: parses on c with the attributes canonical
 * (canon[0..n)), and n_ann more prefixes announced. */
static void
rebuilt_check(const struct bgp_codec *c, const uint8_t *msg, size_t len, int n,
    unsigned *n_ann)
{
	struct bgp_err err;
	uint8_t type;
	int m;

	CHECK(bgp_msg_check_hdr(msg, len, &type, &err) == (int)len);
	CHECK(type == BGP_UPDATE);
	CHECK(bgp_update_parse(msg, len, c, scratch2, &u2, &err) == 0);
	CHECK(u2.a.outcome <= BGP_OUT_DISCARD);
	CHECK(u2.n_reach == 1 && u2.n_unreach == 0);
	*n_ann += field_check(&u2.reach[0]);
	m = bgp_attr_canon(&u2.a, BGP_AF_IPV4, canon2, sizeof(canon2));
	CHECK(m == n && memcmp(canon, canon2, (size_t)n) == 0);
}

/* The NLRI field's prefixes through the builder on the same session. */
static void
rebuild(const struct bgp_codec *c, const struct bgp_update *p, int n)
{
	struct bgp_nlri_iter it;
	struct lc_prefix4 pfx;
	const uint8_t *msg;
	unsigned want = 0, got = 0;
	size_t len;

	bgp_upd_init(&b, c, BGP_AF_IPV4);
	if (bgp_upd_set_attrs(&b, &p->a) != 0)
		return; /* too big for a message on this session */
	bgp_nlri_iter_init(&it, &p->reach[0]);
	while (bgp_nlri_next4(&it, &pfx) == 1) {
		int rv = bgp_upd_announce(&b, &pfx.addr.s_addr, pfx.len);

		if (rv == -ENOSPC) {
			len = bgp_upd_finish(&b, &msg);
			rebuilt_check(c, msg, len, n, &got);
			rv = bgp_upd_announce(&b, &pfx.addr.s_addr, pfx.len);
		}
		CHECK(rv == 0);
		want++;
	}
	if ((len = bgp_upd_finish(&b, &msg)) > 0)
		rebuilt_check(c, msg, len, n, &got);
	CHECK(got == want);
}

static void
update_check(const struct bgp_codec *c, const uint8_t *msg, size_t len)
{
	struct bgp_err err;
	const struct bgp_attrs *a = &u.a;

	memset(&err, 0, sizeof(err));
	if (bgp_update_parse(msg, len, c, scratch, &u, &err) != 0) {
		CHECK(err.code == BGP_ERR_UPDATE || err.code == BGP_ERR_HDR);
		CHECK(err.reason != NULL);
		CHECK(err.data == NULL ||
		    (err.data >= msg && err.data + err.len <= msg + len));
		return;
	}
	CHECK(a->outcome <= BGP_OUT_WITHDRAW);
	CHECK(a->outcome == BGP_OUT_OK || a->why != NULL);
	CHECK(u.n_reach <= 2 && u.n_unreach <= 4);
	CHECK(a->outcome < BGP_OUT_WITHDRAW || u.n_reach == 0);
	if (c->afs & BGP_AF_BIT(BGP_AF_IPV6))
		rib6_feed(&u);
	for (unsigned i = 0; i < u.n_unreach; i++)
		(void)field_check(&u.unreach[i]);
	for (unsigned i = 0; i < u.n_reach; i++) {
		CHECK(u.reach[i].nh != NULL);
		CHECK(u.reach[i].af == BGP_AF_IPV4 ?
			u.reach[i].nh_len == 4 :
			u.reach[i].nh_len == 16 || u.reach[i].nh_len == 32);
		(void)field_check(&u.reach[i]);
	}
	if (u.eor >= 0)
		CHECK(u.n_reach == 0 && u.n_unreach == 0);
	if (u.n_reach == 0)
		return;
	for (unsigned i = 0; i < u.n_reach; i++)
		if (u.reach[i].af == BGP_AF_IPV6) {
			struct bgp_attrs v6 = *a;

			v6.mp_reach = u.reach[i];
			(void)canon_check(&v6, BGP_AF_IPV6);
		}
	for (unsigned i = 0; i < u.n_reach; i++)
		if (u.reach[i].af == BGP_AF_IPV4) {
			int n = canon_check(a, BGP_AF_IPV4);

			/*
			 * The NLRI field (its next hop is NEXT_HOP's, not the
			 * MP attribute's) rebuilt on the session. Not
			 * compared on a 2-octet session: 4-octet ASes of
			 * confederation segments are lost, and an AGGREGATOR
			 * AS of 2 octets that came from AS4_AGGREGATOR makes
			 * the receiver ignore AS4_PATH (RFC 6793 4.2.3).
			 */
			if (u.reach[0].nh != a->mp_reach.nh &&
			    (c->as4 ||
				(!has_confed(a->aspath, a->aspath_len) &&
				    !(a->present &
					BGP_ABIT(BGP_ATTR_AGGREGATOR)))))
				rebuild(c, &u, n);
			break;
		}
}

static void
open_check(const uint8_t *msg, size_t len)
{
	struct bgp_open o, p;
	struct bgp_err err;
	uint32_t want;
	int n;

	if (bgp_open_parse(msg, len, &o, &err) != 0) {
		CHECK(err.code == BGP_ERR_OPEN);
		return;
	}
	CHECK(o.version == BGP_VERSION && o.as != 0 && o.id.s_addr != 0);
	CHECK(o.hold == 0 || o.hold >= 3);
	n = bgp_open_encode(obuf, sizeof(obuf), &o);
	CHECK(n >= BGP_OPEN_MIN);
	CHECK(bgp_open_parse(obuf, (size_t)n, &p, &err) == 0);
	want = o.caps & BGP_OPEN_F_ENCODED;
	if (o.mp == 0)
		want &= ~BGP_OPEN_F_MP;
	CHECK(p.caps == want && p.as == o.as && p.hold == o.hold &&
	    p.id.s_addr == o.id.s_addr && p.mp == o.mp);
	if (o.caps & BGP_OPEN_F_GR)
		CHECK(p.gr_flags == o.gr_flags && p.gr_time == o.gr_time &&
		    p.gr_afs == o.gr_afs && p.gr_fwd == o.gr_fwd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bgp_codec c;
	size_t off = 1;

	if (intern == NULL) {
		struct bgp_rib_peer rp = {1, 1, 65002, false};

		intern = bgp_intern_new();
		rib4 = bgp_rib_new(intern);
		rib6 = bgp_rib6_new(rib4, intern);
		bgp_rib_peer_set(rib4, 1, &rp);
	}
	/* each input from an empty table */
	(void)bgp_rib6_peer_flush(rib6, 1, false);
	(void)bgp_rib6_drain(rib6, SIZE_MAX, emit6, NULL);
	if (size < 1)
		return (0);
	c.as4 = data[0] & 1;
	c.ebgp = (data[0] >> 1) & 1;
	c.first_as = (data[0] & 4) ? 65002 : 0;
	c.afs = (data[0] >> 3) & 3;
	if (c.afs == 0)
		c.afs = BGP_AF_BIT(BGP_AF_IPV4);
	while (off < size) {
		struct bgp_err err;
		struct bgp_notification nt;
		struct bgp_rr rr;
		uint8_t type = 0;
		int len = bgp_msg_check_hdr(data + off, size - off, &type,
		    &err);

		if (len < 0) {
			CHECK(len == -EAGAIN || len == -EBADMSG);
			CHECK(len == -EAGAIN || err.code == BGP_ERR_HDR);
			break;
		}
		CHECK(len >= BGP_HDR_LEN && len <= BGP_MAX_LEN);
		if ((size_t)len > size - off)
			break; /* the rest of the message has not come */
		switch (type) {
		case BGP_OPEN:
			open_check(data + off, (size_t)len);
			break;
		case BGP_UPDATE:
			update_check(&c, data + off, (size_t)len);
			break;
		case BGP_NOTIFICATION:
			CHECK(bgp_notification_parse(data + off, (size_t)len,
				  &nt) == 0);
			break;
		case BGP_ROUTE_REFRESH:
			(void)bgp_rr_parse(data + off, (size_t)len, &rr, &err);
			break;
		case BGP_KEEPALIVE:
			CHECK(len == BGP_HDR_LEN);
			break;
		default:
			CHECK(0);
		}
		off += (size_t)len;
	}
	return (0);
}
