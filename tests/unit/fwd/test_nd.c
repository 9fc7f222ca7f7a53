/* tests/unit/fwd/test_nd.c: IPv6 Neighbour Discovery (fwd_nd) with a fake
 * clock: EUI-64, DAD (pass, duplicate by NS and by NA, loops ignored),
 * answers to NS (unicast, solicited-node, from ::), every RFC 4861 6.1/7.1
 * validity check failing on a broken frame, resolution through all five
 * states with the RFC's timers, NA processing (7.2.5), the bounded queue,
 * failure with address unreachable, static neighbours, glean host routes,
 * Router Advertisements (content, timing, RS answers, final RA), ports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_nd.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 0x10};
static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 2, 0x07};  /* host 2::7 */
static const uint8_t hmac2[6] = {0x02, 0, 0, 0, 2, 0x08}; /* moved */
static const uint8_t gwmac[6] = {0x02, 0, 0, 0, 2, 0xfe}; /* gw 2::fe */

static uint64_t now_ms;

static uint64_t
fake_clock(void *arg)
{
	(void)arg;
	return (now_ms);
}

struct ev {
	uint16_t port;
	uint8_t ip6[16];
	int state;
	uint8_t mac[6];
};

struct env {
	struct fwd_adj_tbl *adj;
	struct fwd_nd *nd;
	struct fwd_out out;
	uint8_t f[2048];
	struct ev ev[32];
	unsigned nev;
	unsigned nunreach;
	uint16_t unreach_port;
	unsigned nneigh_ev;
	uint8_t a0[16], a1[16], ll0[16], ll1[16], h[16], gw[16];
};

static void
addr_ev(void *arg, uint16_t port, const uint8_t ip6[16], unsigned plen,
    int state, const uint8_t *mac)
{
	struct env *e = arg;
	struct ev *v = &e->ev[e->nev++ % 32];

	(void)plen;
	v->port = port;
	memcpy(v->ip6, ip6, 16);
	v->state = state;
	memset(v->mac, 0, 6);
	if (mac != NULL)
		memcpy(v->mac, mac, 6);
}

static void
unreach_cb(void *arg, uint16_t in_port, const uint8_t *frame, unsigned len,
    struct fwd_out *out)
{
	struct env *e = arg;

	(void)frame;
	(void)len;
	(void)out;
	e->nunreach++;
	e->unreach_port = in_port;
}

static void
neigh_ev(void *arg, const struct fwd_nd_info *info)
{
	struct env *e = arg;

	(void)info;
	e->nneigh_ev++;
}

static struct env *
env_new(const struct fwd_nd_conf *over)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fwd_nd_conf c = {.queue_len = 4, .seed = 7};

	assert_non_null(e);
	if (over != NULL)
		c = *over;
	c.clock = fake_clock;
	c.addr_event = addr_ev;
	c.addr_arg = e;
	c.unreach = unreach_cb;
	c.unreach_arg = e;
	c.neigh_event = neigh_ev;
	c.neigh_arg = e;
	now_ms = 1000000;
	e->adj = fwd_adj_tbl_new(64, 0);
	assert_non_null(e->adj);
	assert_int_equal(fwd_adj_port_set(e->adj, 0, mac0, 1500, true), 0);
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, true), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(fwd_adj_alloc(e->adj), i);
	e->nd = fwd_nd_new(&c, e->adj);
	assert_non_null(e->nd);
	tf_ip6(e->a0, 1, 1);	/* 2001:2:0:1::1 */
	tf_ip6(e->a1, 2, 1);	/* 2001:2:0:2::1 */
	tf_ip6(e->h, 2, 7);	/* a host on port 1 */
	tf_ip6(e->gw, 2, 0xfe); /* a gateway on port 1 */
	fwd_nd_ll_from_mac(mac0, e->ll0);
	fwd_nd_ll_from_mac(mac1, e->ll1);
	return (e);
}

/* The usual one: addresses on both ports, DAD passed. */
static int
setup(void **st)
{
	struct env *e = env_new(NULL);

	assert_int_equal(fwd_nd_addr_add(e->nd, 0, e->a0, 64, &e->out), 0);
	assert_int_equal(fwd_nd_addr_add(e->nd, 1, e->a1, 64, &e->out), 0);
	assert_int_equal(fwd_nd_ll_set(e->nd, 0, NULL, &e->out), 0);
	assert_int_equal(fwd_nd_ll_set(e->nd, 1, NULL, &e->out), 0);
	assert_int_equal(e->out.n, 4); /* the DAD probes */
	now_ms += 1000;
	assert_int_equal(fwd_nd_tick(e->nd, &e->out), 4);
	assert_true(fwd_nd_is_ours(e->nd, e->a1));
	assert_true(fwd_nd_is_ours(e->nd, e->ll1));
	/* adjacencies: 1 = via gw on port 1, 2 = connected 2001:2:0:2::/64 */
	assert_int_equal(fwd_adj_set_nh6(e->adj, 1, 1, e->gw, NULL), 0);
	assert_int_equal(fwd_adj_set_glean6(e->adj, 2, 1), 0);
	e->out.n = 0;
	e->nev = 0;
	e->nneigh_ev = 0;
	*st = e;
	return (0);
}

static int
teardown(void **st)
{
	struct env *e = *st;

	fwd_nd_free(e->nd);
	fwd_adj_tbl_free(e->adj);
	free(e);
	return (0);
}

/* ---- frames ---- */

static uint16_t
icmp6_sum(const uint8_t *ip, unsigned ilen)
{
	uint64_t s = 0;
	uint8_t ph[8] = {0};

	fwd_st32(ph, htonl(ilen));
	ph[7] = 58;
	s = fwd_cksum_add(ip + 8, 32, s);
	s = fwd_cksum_add(ph, 8, s);
	s = fwd_cksum_add(ip + 40, ilen, s);
	return (fwd_cksum_fold(s));
}

/* An ND message: ICMPv6 body (type, code, then body[] from byte 4) with
 * its checksum. Returns the frame length. */
static unsigned
mk(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src,
    const uint8_t *dst, uint8_t hlim, uint8_t type, uint8_t code,
    const uint8_t *body, unsigned blen)
{
	unsigned len = tf_ipv6(f, dmac, smac, src, dst, hlim, 58, 4 + blen);
	uint8_t *m = f + 54;

	m[0] = type;
	m[1] = code;
	m[2] = m[3] = 0;
	memcpy(m + 4, body, blen);
	fwd_st16(m + 2, (uint16_t)~icmp6_sum(f + 14, 4 + blen));
	return (len);
}

/* NS/NA body: flags/reserved (4), target, optional LLA option. */
static unsigned
nbody(uint8_t *b, uint8_t flags, const uint8_t *target, uint8_t opt,
    const uint8_t *mac)
{
	memset(b, 0, 4);
	b[0] = flags;
	memcpy(b + 4, target, 16);
	if (opt == 0)
		return (20);
	b[20] = opt;
	b[21] = 1;
	memcpy(b + 22, mac, 6);
	return (28);
}

static void
solnode(const uint8_t *a, uint8_t *sn, uint8_t *snmac)
{
	static const uint8_t p[13] = {0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	    0xff};

	memcpy(sn, p, 13);
	memcpy(sn + 13, a + 13, 3);
	snmac[0] = snmac[1] = 0x33;
	memcpy(snmac + 2, sn + 12, 4);
}

static unsigned
mk_ns(uint8_t *f, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
    const uint8_t *dmac, const uint8_t *target, const uint8_t *slla)
{
	uint8_t b[64];
	unsigned bl = nbody(b, 0, target, slla ? 1 : 0, slla);

	return (mk(f, dmac, smac, src, dst, 255, 135, 0, b, bl));
}

static unsigned
mk_na(uint8_t *f, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
    const uint8_t *dmac, uint8_t flags, const uint8_t *target,
    const uint8_t *tlla)
{
	uint8_t b[64];
	unsigned bl = nbody(b, flags, target, tlla ? 2 : 0, tlla);

	return (mk(f, dmac, smac, src, dst, 255, 136, 0, b, bl));
}

static const uint8_t zero16[16];
static const uint8_t allnodes[16] = {0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 1};
static const uint8_t allnodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};

/* Checks a frame we sent: Ethernet, IPv6 with hop limit 255, ICMPv6 type,
 * checksum. Returns the ICMP part. */
static const uint8_t *
chk(const struct fwd_pkt *p, uint16_t port, const uint8_t *dmac,
    const uint8_t *smac, const uint8_t *src, const uint8_t *dst, uint8_t type)
{
	const uint8_t *ip = p->data + 14;
	unsigned ilen = ntohs(fwd_ld16(ip + 4));

	assert_int_equal(p->port, port);
	assert_int_equal(p->len, 54 + ilen);
	assert_memory_equal(p->data, dmac, 6);
	assert_memory_equal(p->data + 6, smac, 6);
	assert_int_equal(ntohs(fwd_ld16(p->data + 12)), 0x86dd);
	assert_int_equal(ip[0] >> 4, 6);
	assert_int_equal(ip[6], 58);
	assert_int_equal(ip[7], 255);
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	assert_int_equal(ip[40], type);
	assert_int_equal(ip[41], 0);
	assert_int_equal(icmp6_sum(ip, ilen), 0xffff);
	return (ip + 40);
}

static int
state_of(struct env *e, uint16_t port, const uint8_t *ip6)
{
	struct fwd_nd_info ni;

	if (fwd_nd_get(e->nd, port, ip6, &ni) != 0)
		return (FWD_ND_FREE);
	return (ni.state);
}

/* A data packet to dst from a host on port 0, marker in its first byte. */
static unsigned
data_pkt(struct env *e, const uint8_t *dst, uint8_t marker)
{
	uint8_t src[16];
	unsigned len;

	tf_ip6(src, 1, 9);
	len = tf_ipv6(e->f, mac0, hmac2, src, dst, 64, 17, 16);
	e->f[54] = marker;
	return (len);
}

/* ---- tests ---- */

static void
test_eui64(void **st)
{
	static const uint8_t m[6] = {0x00, 0x1b, 0x21, 0x3c, 0x4d, 0x5e};
	static const uint8_t want[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02,
	    0x1b, 0x21, 0xff, 0xfe, 0x3c, 0x4d, 0x5e};
	uint8_t ll[16];
	struct env *e = *st;

	fwd_nd_ll_from_mac(m, ll);
	assert_memory_equal(ll, want, 16);
	/* the local bit of 02:.. inverted: fe80::ff:fe00:10 */
	assert_int_equal(e->ll0[8], 0);
	assert_true(fwd_nd_ll_get(e->nd, 0, ll));
	assert_memory_equal(ll, e->ll0, 16);
	/* a configured one replaces it (DAD again) */
	ll[15] = 0x99;
	assert_int_equal(fwd_nd_ll_set(e->nd, 0, ll, &e->out), 0);
	assert_false(fwd_nd_is_ours(e->nd, e->ll0));
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, ll), FWD_ND_A_TENTATIVE);
	/* not fe80::/64, or interface id 0 */
	ll[1] = 0x81;
	assert_int_equal(fwd_nd_ll_set(e->nd, 0, ll, &e->out), -EINVAL);
	memset(ll + 8, 0, 8);
	ll[1] = 0x80;
	assert_int_equal(fwd_nd_ll_set(e->nd, 0, ll, &e->out), -EINVAL);
}

static void
test_dad_pass(void **st)
{
	struct env *e = *st;
	uint8_t a[16], sn[16], snmac[6];
	const uint8_t *m;

	tf_ip6(a, 1, 2);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, a, 64, &e->out), 0);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, a, 64, &e->out), -EEXIST);
	assert_int_equal(e->out.n, 1);
	solnode(a, sn, snmac);
	m = chk(&e->out.pkt[0], 0, snmac, mac0, zero16, sn, 135);
	assert_memory_equal(m + 8, a, 16);
	assert_int_equal(e->out.pkt[0].len, 54 + 24); /* no SLLA from :: */
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, a), FWD_ND_A_TENTATIVE);
	assert_false(fwd_nd_is_ours(e->nd, a));
	/* our own probe looped back is not a duplicate */
	memcpy(e->f, e->out.pkt[0].data, e->out.pkt[0].len);
	assert_int_equal(fwd_nd_input(e->nd, 0, e->f, e->out.pkt[0].len,
			     &e->out),
	    -ENOENT);
	/* an NS for it from a resolving node: ignored (RFC 4862 5.4.3) */
	e->out.n = 0;
	tf_ip6(sn, 1, 9);
	{
		unsigned l = mk_ns(e->f, hmac, sn, a, mac0, a, hmac);

		assert_int_equal(fwd_nd_input(e->nd, 0, e->f, l, &e->out), 0);
	}
	assert_int_equal(e->out.n, 0);
	now_ms += 999;
	assert_int_equal(fwd_nd_tick(e->nd, &e->out), 0);
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, a), FWD_ND_A_TENTATIVE);
	now_ms += 1;
	assert_int_equal(fwd_nd_tick(e->nd, &e->out), 1);
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, a), FWD_ND_A_PREFERRED);
	assert_true(fwd_nd_is_ours(e->nd, a));
	assert_int_equal(e->nev, 1);
	assert_int_equal(e->ev[0].state, FWD_ND_A_PREFERRED);
	assert_memory_equal(e->ev[0].ip6, a, 16);
	/* deleted: event 0 */
	assert_int_equal(fwd_nd_addr_del(e->nd, 0, a), 0);
	assert_int_equal(fwd_nd_addr_del(e->nd, 0, a), -ENOENT);
	assert_int_equal(e->ev[1].state, 0);
	assert_false(fwd_nd_is_ours(e->nd, a));
	/* bad ones */
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, allnodes, 64, NULL),
	    -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, zero16, 64, NULL), -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, e->ll0, 64, NULL), -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, a, 0, NULL), -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, a, 129, NULL), -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 64, a, 64, NULL), -EINVAL);
}

static void
test_dad_dup(void **st)
{
	struct env *e = *st;
	uint8_t a[16], b[16], sn[16], snmac[6];
	unsigned l;

	tf_ip6(a, 1, 2);
	tf_ip6(b, 1, 3);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, a, 64, &e->out), 0);
	assert_int_equal(fwd_nd_addr_add(e->nd, 0, b, 64, &e->out), 0);
	/* another node's DAD probe for a: duplicate */
	solnode(a, sn, snmac);
	l = mk_ns(e->f, hmac, zero16, sn, snmac, a, NULL);
	assert_int_equal(fwd_nd_input(e->nd, 0, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, a), FWD_ND_A_DUPLICATE);
	assert_int_equal(e->nev, 1);
	assert_int_equal(e->ev[0].state, FWD_ND_A_DUPLICATE);
	assert_memory_equal(e->ev[0].mac, hmac, 6);
	/* an NA for b (the owner defending it): duplicate */
	l = mk_na(e->f, gwmac, e->gw, allnodes, allnodes_mac, 0x20, b, gwmac);
	assert_int_equal(fwd_nd_input(e->nd, 0, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_addr_state(e->nd, 0, b), FWD_ND_A_DUPLICATE);
	assert_memory_equal(e->ev[1].mac, gwmac, 6);
	assert_int_equal(fwd_nd_stats(e->nd)->dad_dup, 2);
	/* an NA for one in use: a conflict, counted, the address kept */
	l = mk_na(e->f, gwmac, e->gw, allnodes, allnodes_mac, 0x20, e->a0,
	    gwmac);
	assert_int_equal(fwd_nd_input(e->nd, 0, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_stats(e->nd)->addr_conflict, 1);
	assert_true(fwd_nd_is_ours(e->nd, e->a0));
	/* refused for good: never in use, NS for it not answered */
	now_ms += 5000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_false(fwd_nd_is_ours(e->nd, a));
	assert_false(fwd_nd_is_ours(e->nd, b));
	e->out.n = 0;
	l = mk_ns(e->f, hmac, e->h, sn, snmac, a, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 0, e->f, l, &e->out), -ENOENT);
	assert_int_equal(e->out.n, 0);
	/* a source for packets: never */
	{
		uint8_t src[16];

		assert_true(fwd_nd_src_for(e->nd, 0, a, src));
		assert_memory_equal(src, e->a0, 16);
	}
}

static void
test_ns_answer(void **st)
{
	struct env *e = *st;
	uint8_t sn[16], snmac[6];
	const uint8_t *m;
	unsigned l;

	/* solicited-node multicast NS from the host, with SLLA */
	solnode(e->a1, sn, snmac);
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	m = chk(&e->out.pkt[0], 1, hmac, mac1, e->a1, e->h, 136);
	assert_int_equal(m[4], 0x80 | 0x40 | 0x20); /* R S O */
	assert_memory_equal(m + 8, e->a1, 16);
	assert_int_equal(m[24], 2); /* TLLA */
	assert_int_equal(m[25], 1);
	assert_memory_equal(m + 26, mac1, 6);
	/* the host was learned STALE (7.2.3) */
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_STALE);
	/* unicast NS without SLLA: answered to the frame's source MAC */
	e->out.n = 0;
	l = mk_ns(e->f, hmac, e->h, e->a1, mac1, e->a1, NULL);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	(void)chk(&e->out.pkt[0], 1, hmac, mac1, e->a1, e->h, 136);
	/* for the link-local */
	e->out.n = 0;
	solnode(e->ll1, sn, snmac);
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->ll1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	(void)chk(&e->out.pkt[0], 1, hmac, mac1, e->ll1, e->h, 136);
	/* from :: (a node doing DAD for our address): to all-nodes, no S */
	e->out.n = 0;
	solnode(e->a1, sn, snmac);
	l = mk_ns(e->f, hmac, zero16, sn, snmac, e->a1, NULL);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	m = chk(&e->out.pkt[0], 1, allnodes_mac, mac1, e->a1, allnodes, 136);
	assert_int_equal(m[4], 0x80 | 0x20);
	/* not ours, or ours on the other port: no answer */
	e->out.n = 0;
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->gw, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -ENOENT);
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a0, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -ENOENT);
	assert_int_equal(e->out.n, 0);
	assert_int_equal(fwd_nd_stats(e->nd)->na_sent, 4);
}

/* One broken frame: refused with reason why, nothing sent or learned. */
static void
refused(struct env *e, unsigned l, enum fwd_nd_bad why)
{
	uint64_t before = fwd_nd_stats(e->nd)->bad[why];
	unsigned n = e->out.n;

	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -EINVAL);
	assert_int_equal(fwd_nd_stats(e->nd)->bad[why], before + 1);
	assert_int_equal(e->out.n, n);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_FREE);
	assert_int_equal(fwd_nd_addr_state(e->nd, 1, e->a1),
	    FWD_ND_A_PREFERRED);
}

/* Recompute the checksum of the ICMP part after an edit. */
static void
resum(uint8_t *f)
{
	unsigned il = ntohs(fwd_ld16(f + 18));

	fwd_st16(f + 56, 0);
	fwd_st16(f + 56, (uint16_t)~icmp6_sum(f + 14, il));
}

static void
test_ns_invalid(void **st)
{
	struct env *e = *st;
	uint8_t sn[16], snmac[6], b[64];
	unsigned l, bl;

	solnode(e->a1, sn, snmac);
	/* the good one first works (then forget what it taught) */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	fwd_nd_port_flush(e->nd, 1);
	e->out.n = 0;
	/* 7.1.1: hop limit 255 */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	e->f[21] = 254;
	refused(e, l, FWD_ND_BAD_HLIM);
	/* checksum */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	e->f[56] ^= 1;
	refused(e, l, FWD_ND_BAD_CSUM);
	/* code 0 */
	bl = nbody(b, 0, e->a1, 1, hmac);
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 1, b, bl);
	refused(e, l, FWD_ND_BAD_CODE);
	/* ICMP length >= 24 */
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 0, b, 16);
	refused(e, l, FWD_ND_BAD_LEN);
	/* target not multicast */
	bl = nbody(b, 0, allnodes, 1, hmac);
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 0, b, bl);
	refused(e, l, FWD_ND_BAD_TARGET);
	/* an option of length 0 */
	bl = nbody(b, 0, e->a1, 1, hmac);
	b[21] = 0;
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 0, b, bl);
	refused(e, l, FWD_ND_BAD_OPT);
	/* an option running past the end */
	b[21] = 2;
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 0, b, bl);
	refused(e, l, FWD_ND_BAD_OPT);
	/* a multicast source link-layer address */
	bl = nbody(b, 0, e->a1, 1, allnodes_mac);
	l = mk(e->f, snmac, hmac, e->h, sn, 255, 135, 0, b, bl);
	refused(e, l, FWD_ND_BAD_OPT);
	/* from :: to a unicast destination */
	l = mk_ns(e->f, hmac, zero16, e->a1, mac1, e->a1, NULL);
	refused(e, l, FWD_ND_BAD_SRC);
	/* from :: with a source link-layer address option */
	l = mk_ns(e->f, hmac, zero16, sn, snmac, e->a1, hmac);
	refused(e, l, FWD_ND_BAD_SRC);
	/* a multicast source */
	l = mk_ns(e->f, hmac, allnodes, sn, snmac, e->a1, hmac);
	refused(e, l, FWD_ND_BAD_SRC);
	/* payload length past the frame */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	refused(e, l - 1, FWD_ND_BAD_FRAME);
	/* not IPv6 */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	e->f[14] = 0x40;
	refused(e, l, FWD_ND_BAD_FRAME);
	/* behind a Hop-by-Hop header (RFC 6980) */
	bl = nbody(b + 8, 0, e->a1, 1, hmac);
	{
		uint8_t *m;

		l = tf_ipv6(e->f, snmac, hmac, e->h, sn, 255, 0, 8 + 4 + bl);
		memset(e->f + 54, 0, 8);
		e->f[54] = 58;
		e->f[56] = 1; /* PadN */
		e->f[57] = 4;
		m = e->f + 62;
		memset(m, 0, 4);
		m[0] = 135;
		memcpy(m + 4, b + 8, bl);
	}
	refused(e, l, FWD_ND_BAD_EXT);
	/* an unknown port */
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 7, e->f, l, &e->out), -EINVAL);
	assert_int_equal(fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_PORT], 1);
	/* what is not ND is not refused, only ignored (an MLD report, an
	 * echo to ff02::1) */
	l = mk(e->f, allnodes_mac, hmac, e->h, allnodes, 1, 128, 0, b, 4);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -ENOENT);
	assert_int_equal(e->out.n, 0);
	(void)resum;
}

static void
test_na_rs_ra_invalid(void **st)
{
	struct env *e = *st;
	uint8_t b[64];
	unsigned l, bl;

	assert_int_equal(fwd_nd_resolve(e->nd, 1, e->h, 1, NULL, 0, &e->out),
	    0);
	e->out.n = 0;
	/* for the NA tests the host's entry exists (INCOMPLETE): any one
	 * that got through would resolve it */
#define NA_REFUSED(len, why)                                                 \
	do {                                                                 \
		uint64_t b0 = fwd_nd_stats(e->nd)->bad[why];                 \
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, len, &e->out), \
		    -EINVAL);                                                \
		assert_int_equal(fwd_nd_stats(e->nd)->bad[why], b0 + 1);     \
		assert_int_equal(state_of(e, 1, e->h), FWD_ND_INCOMPLETE);   \
	} while (0)
	/* 7.1.2 */
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x60, e->h, hmac);
	e->f[21] = 64;
	NA_REFUSED(l, FWD_ND_BAD_HLIM);
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x60, e->h, hmac);
	e->f[60] ^= 0x10;
	NA_REFUSED(l, FWD_ND_BAD_CSUM);
	bl = nbody(b, 0x60, e->h, 2, hmac);
	l = mk(e->f, mac1, hmac, e->h, e->a1, 255, 136, 3, b, bl);
	NA_REFUSED(l, FWD_ND_BAD_CODE);
	l = mk(e->f, mac1, hmac, e->h, e->a1, 255, 136, 0, b, 12);
	NA_REFUSED(l, FWD_ND_BAD_LEN);
	bl = nbody(b, 0x60, allnodes, 2, hmac);
	l = mk(e->f, mac1, hmac, e->h, e->a1, 255, 136, 0, b, bl);
	NA_REFUSED(l, FWD_ND_BAD_TARGET);
	/* solicited to a multicast destination */
	l = mk_na(e->f, hmac, e->h, allnodes, allnodes_mac, 0x60, e->h, hmac);
	NA_REFUSED(l, FWD_ND_BAD_DST);
	bl = nbody(b, 0x60, e->h, 2, hmac);
	b[21] = 0;
	l = mk(e->f, mac1, hmac, e->h, e->a1, 255, 136, 0, b, bl);
	NA_REFUSED(l, FWD_ND_BAD_OPT);
	/* the good one resolves it */
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x60, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_REACHABLE);
	/* 6.1.1 RS: hop limit, length >= 8, :: with SLLA */
	{
		struct fwd_nd_ra_conf rc = {.enabled = true};
		uint8_t rs[16] = {0};
		uint64_t b0;

		assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), 0);
		rs[4] = 1;
		rs[5] = 1;
		memcpy(rs + 6, hmac, 6);
		l = mk(e->f, allnodes_mac, hmac, zero16, allnodes, 255, 133, 0,
		    rs, 12);
		b0 = fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_SRC];
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out),
		    -EINVAL);
		assert_int_equal(fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_SRC],
		    b0 + 1);
		l = mk(e->f, allnodes_mac, hmac, e->h, allnodes, 1, 133, 0, rs,
		    12);
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out),
		    -EINVAL);
		l = mk(e->f, allnodes_mac, hmac, e->h, allnodes, 255, 133, 0,
		    rs, 2);
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out),
		    -EINVAL);
		assert_int_equal(fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_LEN], 2);
		assert_int_equal(fwd_nd_stats(e->nd)->rx_rs, 0);
		/* 6.1.2 RA: from a link-local source only; >= 16 bytes */
		memset(rs, 0, sizeof(rs));
		l = mk(e->f, allnodes_mac, gwmac, e->gw, allnodes, 255, 134, 0,
		    rs, 12);
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out),
		    -EINVAL);
		assert_int_equal(fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_SRC],
		    b0 + 2);
		l = mk(e->f, allnodes_mac, gwmac, e->ll0, allnodes, 255, 134, 0,
		    rs, 8);
		assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out),
		    -EINVAL);
		assert_int_equal(fwd_nd_stats(e->nd)->bad[FWD_ND_BAD_LEN], 3);
		assert_int_equal(fwd_nd_stats(e->nd)->rx_ra, 0);
	}
#undef NA_REFUSED
}

/* The multicast NS that resolution sends for target on port 1. */
static void
chk_solicit(struct env *e, const struct fwd_pkt *p, const uint8_t *target,
    const uint8_t *ucast_mac)
{
	uint8_t sn[16], snmac[6];
	const uint8_t *m;

	solnode(target, sn, snmac);
	if (ucast_mac != NULL)
		m = chk(p, 1, ucast_mac, mac1, e->a1, target, 135);
	else
		m = chk(p, 1, snmac, mac1, e->a1, sn, 135);
	assert_memory_equal(m + 8, target, 16);
	assert_int_equal(m[24], 1); /* SLLA */
	assert_memory_equal(m + 26, mac1, 6);
}

static void
test_resolve_fail(void **st)
{
	struct env *e = *st;
	unsigned l = data_pkt(e, e->h, 1);
	struct fwd_nd_info ni;

	assert_int_equal(fwd_nd_punt(e->nd, 0, 2, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_INCOMPLETE);
	assert_int_equal(e->out.n, 1);
	chk_solicit(e, &e->out.pkt[0], e->h, NULL);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.queued, 1);
	/* RetransTimer 1 s, MAX_MULTICAST_SOLICIT 3 */
	for (int k = 1; k < 3; k++) {
		e->out.n = 0;
		now_ms += 999;
		(void)fwd_nd_tick(e->nd, &e->out);
		assert_int_equal(e->out.n, 0);
		now_ms += 1;
		(void)fwd_nd_tick(e->nd, &e->out);
		assert_int_equal(e->out.n, 1);
		chk_solicit(e, &e->out.pkt[0], e->h, NULL);
	}
	e->out.n = 0;
	now_ms += 1000;
	assert_int_equal(fwd_nd_tick(e->nd, &e->out), 1);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_FREE);
	assert_int_equal(e->nunreach, 1); /* address unreachable */
	assert_int_equal(e->unreach_port, 0);
	assert_int_equal(fwd_nd_stats(e->nd)->failed, 1);
	assert_int_equal(fwd_nd_stats(e->nd)->ns_sent, 3);
	/* our own address, multicast: never resolved */
	assert_int_equal(fwd_nd_resolve(e->nd, 1, e->a1, 0, NULL, 0, &e->out),
	    -EHOSTUNREACH);
	assert_int_equal(fwd_nd_resolve(e->nd, 1, allnodes, 0, NULL, 0,
			     &e->out),
	    -EINVAL);
	/* not an IPv6 adjacency */
	assert_int_equal(fwd_nd_punt(e->nd, 0, 0, e->f, l, &e->out), -EINVAL);
}

static void
test_states(void **st)
{
	struct env *e = *st;
	unsigned l = data_pkt(e, e->h, 1);
	struct fwd_nd_info ni;
	unsigned rt = fwd_nd_reachable_ms(e->nd);
	const uint8_t *o;

	/* through the K_NH adjacency 1 (gw) */
	assert_int_equal(fwd_nd_punt(e->nd, 0, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_INCOMPLETE);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_RESOLVE);
	chk_solicit(e, &e->out.pkt[0], e->gw, NULL);
	e->out.n = 0;
	/* the solicited NA: REACHABLE, the queued packet sent, adj FORWARD */
	l = mk_na(e->f, gwmac, e->gw, e->a1, mac1, 0xe0, e->gw, gwmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->gw, &ni), 0);
	assert_int_equal(ni.state, FWD_ND_REACHABLE);
	assert_true(ni.router);
	assert_memory_equal(ni.mac, gwmac, 6);
	assert_int_equal(ni.expires_ms, now_ms + rt);
	assert_int_equal(e->out.n, 1);
	o = e->out.pkt[0].data;
	assert_int_equal(e->out.pkt[0].port, 1);
	assert_memory_equal(o, gwmac, 6);
	assert_memory_equal(o + 6, mac1, 6);
	assert_int_equal(o[21], 63); /* hop limit decremented */
	assert_int_equal(o[54], 1);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(e->adj->ent[1].eth, gwmac, 6);
	assert_int_equal(fwd_nd_stats(e->nd)->released, 1);
	/* ReachableTime: STALE, and being used, DELAY at once */
	e->out.n = 0;
	now_ms += rt - 1;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_REACHABLE);
	now_ms += 1;
	e->nneigh_ev = 0;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_DELAY);
	assert_int_equal(e->nneigh_ev, 2); /* STALE, DELAY */
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_FORWARD);
	assert_int_equal(e->out.n, 0);
	/* DELAY_FIRST_PROBE_TIME 5 s: PROBE, a unicast NS */
	now_ms += 4999;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_DELAY);
	now_ms += 1;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_PROBE);
	assert_int_equal(e->out.n, 1);
	chk_solicit(e, &e->out.pkt[0], e->gw, gwmac);
	/* answered (solicited): REACHABLE again */
	l = mk_na(e->f, gwmac, e->gw, e->a1, mac1, 0xc0, e->gw, NULL);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_REACHABLE);
	/* again to PROBE, now unanswered: MAX_UNICAST_SOLICIT 3, then gone
	 * and the adjacency back to RESOLVE */
	now_ms += rt;
	(void)fwd_nd_tick(e->nd, &e->out); /* DELAY */
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_DELAY);
	now_ms += 5000;
	(void)fwd_nd_tick(e->nd, &e->out); /* PROBE: 1st */
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_PROBE);
	e->out.n = 0;
	now_ms += 1000;
	(void)fwd_nd_tick(e->nd, &e->out);
	now_ms += 1000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(e->out.n, 2);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_PROBE);
	now_ms += 1000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_FREE);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(fwd_nd_stats(e->nd)->expired, 1);
}

static void
test_stale_delay(void **st)
{
	struct env *e = *st;
	uint8_t sn[16], snmac[6];
	unsigned l;

	/* learned from an NS: STALE, nothing sent to it, forgotten after
	 * gc_stale_ms (600 s) */
	solnode(e->a1, sn, snmac);
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_STALE);
	now_ms += 599999;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_STALE);
	/* a packet for it: sent at once, DELAY (7.3.3) */
	e->out.n = 0;
	l = data_pkt(e, e->h, 5);
	assert_int_equal(fwd_nd_punt(e->nd, 0, 2, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_DELAY);
	assert_int_equal(e->out.n, 1);
	assert_memory_equal(e->out.pkt[0].data, hmac, 6);
	/* an upper-layer-less router: PROBE after 5 s */
	now_ms += 5000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_PROBE);
	/* unused STALE entries go */
	fwd_nd_port_flush(e->nd, 1);
	l = mk_ns(e->f, hmac, e->h, sn, snmac, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	now_ms += 600000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_FREE);
}

static void
test_na_update(void **st)
{
	struct env *e = *st;
	struct fwd_nd_info ni;
	unsigned l;

	/* an NA for a neighbour we have no entry for: ignored */
	l = mk_na(e->f, hmac, e->h, allnodes, allnodes_mac, 0x20, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -ENOENT);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_FREE);
	/* INCOMPLETE + NA without TLLA: still INCOMPLETE */
	assert_int_equal(fwd_nd_resolve(e->nd, 1, e->h, 1, NULL, 0, &e->out),
	    0);
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x40, e->h, NULL);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_INCOMPLETE);
	/* unsolicited with TLLA: STALE */
	l = mk_na(e->f, hmac, e->h, allnodes, allnodes_mac, 0x20, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_STALE);
	/* solicited, same MAC: REACHABLE */
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x40, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_REACHABLE);
	/* O clear, another MAC: REACHABLE -> STALE, the MAC kept */
	l = mk_na(e->f, hmac2, e->h, e->a1, mac1, 0x40, e->h, hmac2);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.state, FWD_ND_STALE);
	assert_memory_equal(ni.mac, hmac, 6);
	/* O set, another MAC, not solicited: the MAC taken, STALE */
	l = mk_na(e->f, hmac2, e->h, allnodes, allnodes_mac, 0x20, e->h, hmac2);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.state, FWD_ND_STALE);
	assert_memory_equal(ni.mac, hmac2, 6);
	assert_false(ni.router);
	/* O and S set: REACHABLE with the MAC, R noted */
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0xe0, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.state, FWD_ND_REACHABLE);
	assert_memory_equal(ni.mac, hmac, 6);
	assert_true(ni.router);
}

static void
test_queue_bound(void **st)
{
	struct env *e = *st;
	struct fwd_nd_info ni;
	unsigned l;

	for (int k = 0; k < 6; k++) {
		l = data_pkt(e, e->h, (uint8_t)(10 + k));
		assert_int_equal(fwd_nd_punt(e->nd, 0, 2, e->f, l, &e->out), 0);
	}
	assert_int_equal(e->out.n, 1); /* one NS, not six */
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.queued, 4);
	assert_int_equal(fwd_nd_stats(e->nd)->queued, 6);
	assert_int_equal(fwd_nd_stats(e->nd)->queue_drops, 2);
	e->out.n = 0;
	l = mk_na(e->f, hmac, e->h, e->a1, mac1, 0x60, e->h, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	/* the four newest, in order */
	assert_int_equal(e->out.n, 4);
	for (int k = 0; k < 4; k++) {
		assert_int_equal(e->out.pkt[k].data[54], 12 + k);
		assert_memory_equal(e->out.pkt[k].data, hmac, 6);
	}
	assert_int_equal(fwd_nd_stats(e->nd)->released, 4);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->h, &ni), 0);
	assert_int_equal(ni.queued, 0);
}

static void
test_static(void **st)
{
	struct env *e = *st;
	struct fwd_nd_info ni;
	unsigned l;

	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->gw, gwmac, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_STATIC);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_FORWARD);
	/* NAs do not change it; it never ages */
	l = mk_na(e->f, hmac2, e->gw, allnodes, allnodes_mac, 0x20, e->gw,
	    hmac2);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	now_ms += 10000000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(fwd_nd_get(e->nd, 1, e->gw, &ni), 0);
	assert_int_equal(ni.state, FWD_ND_STATIC);
	assert_memory_equal(ni.mac, gwmac, 6);
	/* a flush keeps it */
	fwd_nd_port_flush(e->nd, 1);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_STATIC);
	/* bad ones */
	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->h, allnodes_mac,
			     &e->out),
	    -EINVAL);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->h, NULL, &e->out),
	    -EINVAL);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->a1, hmac, &e->out),
	    -EINVAL);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, allnodes, hmac, &e->out),
	    -EINVAL);
	assert_int_equal(fwd_nd_static_del(e->nd, 1, e->h), -ENOENT);
	assert_int_equal(fwd_nd_static_del(e->nd, 1, e->gw), 0);
	assert_int_equal(state_of(e, 1, e->gw), FWD_ND_FREE);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_RESOLVE);
}

static void
test_static_evicts(void **st)
{
	struct fwd_nd_conf c = {.max_neigh = 2, .queue_len = 2};
	struct env *e = env_new(&c);
	uint8_t x[16];

	(void)st;
	assert_int_equal(fwd_nd_addr_add(e->nd, 1, e->a1, 64, &e->out), 0);
	now_ms += 1000;
	(void)fwd_nd_tick(e->nd, &e->out);
	tf_ip6(x, 2, 100);
	assert_int_equal(fwd_nd_resolve(e->nd, 1, e->h, 1, NULL, 0, &e->out),
	    0);
	assert_int_equal(fwd_nd_resolve(e->nd, 1, x, 1, NULL, 0, &e->out), 0);
	assert_int_equal(fwd_nd_resolve(e->nd, 1, e->gw, 1, NULL, 0, &e->out),
	    -ENOSPC);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->gw, gwmac, &e->out), 0);
	assert_int_equal(fwd_nd_stats(e->nd)->evicted, 1);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, e->h, hmac, &e->out), 0);
	tf_ip6(x, 2, 101);
	assert_int_equal(fwd_nd_static_add(e->nd, 1, x, hmac2, &e->out),
	    -ENOSPC);
	teardown((void **)&e);
}

static void
test_host_route(void **st)
{
	struct env *e = *st;
	struct fwd_fib6_conf fc = {.max_nh = 64, .max_tbl8 = 64};
	struct fwd_fib6 *fib = fwd_fib6_new(&fc);
	struct fwd_nd_conf c = {.fib6 = fib};
	struct env *g;
	unsigned nh, l;

	(void)st;
	(void)e;
	assert_non_null(fib);
	g = env_new(&c);
	assert_int_equal(fwd_nd_addr_add(g->nd, 1, g->a1, 64, &g->out), 0);
	now_ms += 1000;
	(void)fwd_nd_tick(g->nd, &g->out);
	assert_int_equal(fwd_adj_set_glean6(g->adj, 2, 1), 0);
	l = data_pkt(g, g->h, 1);
	assert_int_equal(fwd_nd_punt(g->nd, 0, 2, g->f, l, &g->out), 0);
	l = mk_na(g->f, hmac, g->h, g->a1, mac1, 0x60, g->h, hmac);
	assert_int_equal(fwd_nd_input(g->nd, 1, g->f, l, &g->out), 0);
	assert_int_equal(fwd_fib6_get(fib, g->h, 128, &nh), 0);
	assert_int_equal(g->adj->ent[nh].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(g->adj->ent[nh].eth, hmac, 6);
	assert_memory_equal(fwd_adj_gw6(g->adj, nh), g->h, 16);
	/* gone with the entry */
	fwd_nd_port_flush(g->nd, 1);
	assert_int_equal(fwd_fib6_get(fib, g->h, 128, &nh), -ENOENT);
	(void)fwd_nd_tick(g->nd, &g->out);
	teardown((void **)&g);
	fwd_fib6_free(fib);
}

/* The RA in p: checks the header and returns the router lifetime. */
static unsigned
chk_ra(struct env *e, const struct fwd_pkt *p, unsigned mtu, const uint8_t *pfx)
{
	const uint8_t *m = chk(p, 1, allnodes_mac, mac1, e->ll1, allnodes, 134);
	unsigned ilen = p->len - 54, off = 16;
	bool seen_slla = false, seen_mtu = false, seen_pfx = false;

	assert_int_equal(m[4], 64);
	while (off < ilen) {
		const uint8_t *o = m + off;

		assert_true(o[1] > 0);
		if (o[0] == 1) {
			assert_memory_equal(o + 2, mac1, 6);
			seen_slla = true;
		} else if (o[0] == 5) {
			assert_int_equal(ntohl(fwd_ld32(o + 4)), mtu);
			seen_mtu = true;
		} else if (o[0] == 3) {
			assert_int_equal(o[1], 4);
			assert_int_equal(o[2], 64);
			assert_int_equal(o[3], 0xc0); /* L A */
			assert_int_equal(ntohl(fwd_ld32(o + 4)), 2592000);
			assert_int_equal(ntohl(fwd_ld32(o + 8)), 604800);
			assert_memory_equal(o + 16, pfx, 16);
			seen_pfx = true;
		}
		off += o[1] * 8u;
	}
	assert_true(seen_slla);
	assert_true(seen_mtu == (mtu != 0));
	assert_true(seen_pfx == (pfx != NULL));
	return (ntohs(fwd_ld16(m + 6)));
}

static void
test_ra(void **st)
{
	struct env *e = *st;
	struct fwd_nd_ra_conf rc = {.enabled = true,
	    .interval_max_s = 30,
	    .mtu = 1400};
	uint8_t pfx[16] = {0}, rs[16] = {0};
	uint64_t last, t0;
	unsigned l;

	memcpy(pfx, e->a1, 8);
	assert_false(fwd_nd_ra_enabled(e->nd, 1));
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), 0);
	assert_true(fwd_nd_ra_enabled(e->nd, 1));
	assert_int_equal(e->out.n, 1);
	assert_int_equal(chk_ra(e, &e->out.pkt[0], 1400, pfx), 1800);
	/* the first three at most 16 s apart, then 10..30 s */
	last = now_ms;
	for (int k = 0; k < 8; k++) {
		uint64_t d;

		e->out.n = 0;
		while (e->out.n == 0) {
			now_ms += 100;
			(void)fwd_nd_tick(e->nd, &e->out);
			assert_true(now_ms - last <= 30000);
		}
		d = now_ms - last;
		if (k < 3)
			assert_true(d >= 9900 && d <= 16000);
		else
			assert_true(d >= 9900 && d <= 30000);
		(void)chk_ra(e, &e->out.pkt[0], 1400, pfx);
		last = now_ms;
	}
	/* an RS: answered within 500 ms, but 3 s after the last at least */
	rs[4] = 1;
	rs[5] = 1;
	memcpy(rs + 6, hmac, 6);
	l = mk(e->f, allnodes_mac, hmac, e->h, allnodes, 255, 133, 0, rs, 12);
	now_ms += 1000;
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	assert_int_equal(state_of(e, 1, e->h), FWD_ND_STALE); /* learned */
	e->out.n = 0;
	t0 = now_ms;
	while (e->out.n == 0) {
		now_ms += 10;
		(void)fwd_nd_tick(e->nd, &e->out);
	}
	assert_true(now_ms - last >= 3000 && now_ms - last <= 3010);
	(void)t0;
	/* a later one: within MAX_RA_DELAY_TIME */
	now_ms += 5000;
	last = now_ms;
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), 0);
	e->out.n = 0;
	while (e->out.n == 0) {
		now_ms += 10;
		(void)fwd_nd_tick(e->nd, &e->out);
	}
	assert_true(now_ms - last <= 510);
	assert_int_equal(fwd_nd_stats(e->nd)->rx_rs, 2);
	/* off: a final RA with router lifetime 0 */
	e->out.n = 0;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, NULL, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(chk_ra(e, &e->out.pkt[0], 1400, pfx), 0);
	assert_false(fwd_nd_ra_enabled(e->nd, 1));
	e->out.n = 0;
	now_ms += 100000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(e->out.n, 0);
	/* an RS now: not answered */
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -ENOENT);
	/* shutdown: final RAs */
	rc.mtu = 0;
	rc.router_lifetime_s = 900;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), 0);
	assert_int_equal(chk_ra(e, &e->out.pkt[0], 0, pfx), 900);
	e->out.n = 0;
	fwd_nd_shutdown(e->nd, &e->out);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(chk_ra(e, &e->out.pkt[0], 0, pfx), 0);
	/* bad config: refused, nothing changed */
	e->out.n = 0;
	rc.interval_max_s = 3;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), -EINVAL);
	rc.interval_max_s = 0;
	rc.mtu = 1000;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), -EINVAL);
	rc.mtu = 0;
	rc.nprefix = 1;
	memcpy(rc.prefix[0].prefix, e->a1, 16); /* host bits */
	rc.prefix[0].len = 64;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), -EINVAL);
	assert_false(fwd_nd_ra_enabled(e->nd, 1));
	assert_int_equal(e->out.n, 0);
	/* configured prefixes instead of the addresses' */
	memcpy(rc.prefix[0].prefix, pfx, 16);
	rc.prefix[0].autonomous = rc.prefix[0].on_link = true;
	assert_int_equal(fwd_nd_ra_set(e->nd, 1, &rc, &e->out), 0);
	assert_int_equal(chk_ra(e, &e->out.pkt[0], 0, pfx), 900);
}

static void
test_reachable_random(void **st)
{
	unsigned lo = ~0u, hi = 0;

	(void)st;
	for (uint32_t s = 1; s <= 64; s++) {
		struct fwd_nd_conf c = {.seed = s};
		struct env *e = env_new(&c);
		unsigned r = fwd_nd_reachable_ms(e->nd);

		assert_true(r >= 15000 && r <= 45000);
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
		teardown((void **)&e);
	}
	assert_true(hi - lo > 10000);
}

static void
test_src_and_ports(void **st)
{
	struct env *e = *st;
	uint8_t src[16], x[16];
	unsigned l;

	/* link-local for link-local and multicast, the matching global */
	assert_true(fwd_nd_src_for(e->nd, 1, e->ll0, src));
	assert_memory_equal(src, e->ll1, 16);
	assert_true(fwd_nd_src_for(e->nd, 1, allnodes, src));
	assert_memory_equal(src, e->ll1, 16);
	assert_true(fwd_nd_src_for(e->nd, 1, e->h, src));
	assert_memory_equal(src, e->a1, 16);
	tf_ip6(x, 9, 9);
	assert_true(fwd_nd_src_for(e->nd, 1, x, src));
	assert_memory_equal(src, e->a1, 16);
	assert_false(fwd_nd_src_for(e->nd, 5, x, src));
	/* IPv6 off on port 1: addresses gone, input refused */
	e->nev = 0;
	fwd_nd_port_disable(e->nd, 1, true, &e->out);
	assert_false(fwd_nd_is_ours(e->nd, e->a1));
	assert_false(fwd_nd_is_ours(e->nd, e->ll1));
	assert_int_equal(e->nev, 2);
	l = mk_ns(e->f, hmac, e->h, e->a1, mac1, e->a1, hmac);
	assert_int_equal(fwd_nd_input(e->nd, 1, e->f, l, &e->out), -EINVAL);
	assert_int_equal(fwd_nd_addr_add(e->nd, 1, e->a1, 64, &e->out),
	    -EINVAL);
	fwd_nd_port_disable(e->nd, 1, false, &e->out);
	assert_int_equal(fwd_nd_addr_add(e->nd, 1, e->a1, 64, &e->out), 0);
	/* a port that is not up: DAD waits for fwd_nd_port_up */
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, false), 0);
	assert_int_equal(fwd_nd_ll_set(e->nd, 1, NULL, &e->out), 0);
	now_ms += 5000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_int_equal(fwd_nd_addr_state(e->nd, 1, e->ll1),
	    FWD_ND_A_TENTATIVE);
	/* up with a new MAC: the derived link-local follows it */
	assert_int_equal(fwd_adj_port_set(e->adj, 1, hmac2, 1500, true), 0);
	e->out.n = 0;
	fwd_nd_port_up(e->nd, 1, &e->out);
	assert_int_equal(e->out.n, 2); /* two DAD probes */
	fwd_nd_ll_from_mac(hmac2, x);
	assert_int_equal(fwd_nd_addr_state(e->nd, 1, x), FWD_ND_A_TENTATIVE);
	assert_int_equal(fwd_nd_addr_state(e->nd, 1, e->ll1), -ENOENT);
	now_ms += 1000;
	(void)fwd_nd_tick(e->nd, &e->out);
	assert_true(fwd_nd_is_ours(e->nd, x));
	assert_true(fwd_nd_is_ours(e->nd, e->a1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_eui64, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dad_pass, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dad_dup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ns_answer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ns_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_na_rs_ra_invalid, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_resolve_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_states, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_delay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_na_update, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_queue_bound, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_static, setup, teardown),
	    cmocka_unit_test(test_static_evicts),
	    cmocka_unit_test(test_host_route),
	    cmocka_unit_test_setup_teardown(test_ra, setup, teardown),
	    cmocka_unit_test(test_reachable_random),
	    cmocka_unit_test_setup_teardown(test_src_and_ports, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
