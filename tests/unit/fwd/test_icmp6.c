/* tests/unit/fwd/test_icmp6.c: ICMPv6 (RFC 4443) from fwd_icmp6 and the slow
 * path's IPv6 dispatch, with crafted frames: the checksum against a vector
 * computed elsewhere (Python's own sum) and a reference, echo reply, each
 * error's type, code and parameter, the quote cut to 1280 bytes, the 2.4
 * (e) suppressions, the shared rate limit, ND frames to the ND hooks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_icmp6.h"
#include "fwd/fwd_slow.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t rmac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};

struct env {
	struct fwd_icmp rl;
	struct fwd_icmp6 ic;
	struct fwd_out out;
	uint8_t f[2048];
};

static int
setup(void **st)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fwd_icmp_conf c = {.rate = 10, .burst = 5};

	assert_non_null(e);
	assert_int_equal(fwd_icmp_init(&e->rl, &c), 0);
	assert_int_equal(fwd_icmp6_init(&e->ic, &e->rl), 0);
	*st = e;
	return (0);
}

static int
teardown(void **st)
{
	free(*st);
	return (0);
}

/* 2001:2:0:100::y */
static const uint8_t *
A(uint16_t y)
{
	static uint8_t a[4][16];
	static unsigned i;
	uint8_t *p = a[i++ % 4];

	tf_ip6(p, 0x100, y);
	return (p);
}

/* RFC 1071 over the pseudo-header and message, byte by byte: 0xffff when
 * the IPv6 packet at ip carries a good ICMPv6 checksum. */
static uint16_t
ref_sum(const uint8_t *ip)
{
	unsigned plen = (unsigned)(ip[4] << 8 | ip[5]);
	uint32_t sum = 58 + (plen >> 16) + (plen & 0xffff);

	for (unsigned i = 8; i < 40; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	for (unsigned i = 0; i < plen; i++)
		sum += i & 1 ? ip[40 + i] : (uint32_t)ip[40 + i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ((uint16_t)sum);
}

/* An echo request 2001:2:0:100::2 -> ::1, id 0x1234 seq 1, data "abcd". */
static unsigned
echo(uint8_t *f)
{
	unsigned len = tf_ipv6(f, rmac, hmac, A(2), A(1), 64, 58, 12);
	uint8_t *m = f + 54;

	memset(m, 0, 12);
	m[0] = 128;
	fwd_st16(m + 4, htons(0x1234));
	fwd_st16(m + 6, htons(1));
	memcpy(m + 8, "abcd", 4);
	fwd_st16(m + 2, fwd_icmp6_cksum(f + 22, f + 38, m, 12));
	return (len);
}

static void
test_cksum6(void **st)
{
	struct env *e = *st;

	echo(e->f);
	/* computed with Python (socket.inet_pton, struct) over the same
	 * pseudo-header and message */
	assert_int_equal(ntohs(fwd_ld16(e->f + 56)), 0x66b4);
	assert_int_equal(ref_sum(e->f + 14), 0xffff);
	assert_true(fwd_icmp6_cksum_ok(e->f + 22, e->f + 38, e->f + 54, 12));
	e->f[63] ^= 0x40;
	assert_false(fwd_icmp6_cksum_ok(e->f + 22, e->f + 38, e->f + 54, 12));
	/* an odd length */
	assert_true(fwd_icmp6_cksum(A(2), A(1), (const uint8_t *)"\x80", 1) !=
	    fwd_icmp6_cksum(A(2), A(1), (const uint8_t *)"\x81", 1));
}

static void
test_echo6(void **st)
{
	struct env *e = *st;
	unsigned len = echo(e->f);
	const uint8_t *o;

	assert_int_equal(fwd_icmp6_local(&e->ic, 3, e->f, len, 0, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(e->out.pkt[0].port, 3);
	assert_int_equal(e->out.pkt[0].len, len);
	o = e->out.pkt[0].data;
	assert_memory_equal(o, hmac, 6);
	assert_memory_equal(o + 6, rmac, 6);
	assert_int_equal(o[12], 0x86);
	assert_int_equal(o[14] >> 4, 6);
	assert_int_equal(o[14 + 6], 58);
	assert_int_equal(o[14 + 7], 64);
	assert_memory_equal(o + 22, A(1), 16); /* from the address pinged */
	assert_memory_equal(o + 38, A(2), 16);
	assert_int_equal(o[54], 129);
	assert_memory_equal(o + 58, e->f + 58, 8); /* id, seq, data */
	assert_int_equal(ref_sum(o + 14), 0xffff);
	assert_int_equal(e->ic.st.echo_replies, 1);
	/* not rate-limited: ten more with an empty bucket */
	fwd_icmp_set_rate(&e->rl, 0);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(fwd_icmp6_local(&e->ic, 3, e->f, len, 0,
				     &e->out),
		    0);
	/* a bad checksum, a short message: refused */
	e->out.n = 0;
	e->f[60] ^= 1;
	assert_int_equal(fwd_icmp6_local(&e->ic, 3, e->f, len, 0, &e->out),
	    -EINVAL);
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(1), 64, 58, 4);
	assert_int_equal(fwd_icmp6_local(&e->ic, 3, e->f, len, 0, &e->out),
	    -EINVAL);
	assert_int_equal(e->out.n, 0);
	assert_int_equal(e->ic.st.bad, 2);
}

/* The error out of e->out: type, code, parameter, source, quote length. */
static void
expect_err(struct env *e, uint8_t type, uint8_t code, uint32_t param,
    const uint8_t *src, unsigned quote)
{
	const uint8_t *o;

	assert_int_equal(e->out.n, 1);
	o = e->out.pkt[0].data;
	assert_int_equal(e->out.pkt[0].len, 14 + 48 + quote);
	assert_int_equal(o[14 + 6], 58);
	assert_memory_equal(o + 22, src, 16);
	assert_memory_equal(o + 38, e->f + 22, 16); /* to the source */
	assert_int_equal(o[54], type);
	assert_int_equal(o[55], code);
	assert_int_equal(ntohl(fwd_ld32(o + 58)), param);
	assert_memory_equal(o + 62, e->f + 14, quote);
	assert_int_equal(ref_sum(o + 14), 0xffff);
	e->out.n = 0;
}

static void
test_errors6(void **st)
{
	struct env *e = *st;
	unsigned len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 1, 17, 100);

	assert_int_equal(fwd_icmp6_error(&e->ic, FWD_ICMP6_TIMXCEED, 0, 0, 0,
			     A(1), e->f, len, 0, &e->out),
	    0);
	expect_err(e, 3, 0, 0, A(1), len - 14);
	assert_int_equal(fwd_icmp6_error(&e->ic, FWD_ICMP6_UNREACH,
			     FWD_ICMP6_UNREACH_ADMIN, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 1, 1, 0, A(1), len - 14);
	/* Packet Too Big: the MTU, and a 1500-byte packet quoted to 1280
	 * bytes in all */
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 64, 17, 1460);
	assert_int_equal(fwd_icmp6_error(&e->ic, FWD_ICMP6_TOOBIG, 0, 1400, 0,
			     A(1), e->f, len, 0, &e->out),
	    0);
	expect_err(e, 2, 0, 1400, A(1), 1280 - 48);
	/* UDP to us: port unreachable; an unknown upper layer: Parameter
	 * Problem 1 at the Next Header (offset 6) */
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(1), 64, 17, 20);
	assert_int_equal(fwd_icmp6_local(&e->ic, 0, e->f, len, 0, &e->out), 0);
	expect_err(e, 1, 4, 0, A(1), len - 14);
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(1), 64, 143, 20);
	assert_int_equal(fwd_icmp6_local(&e->ic, 0, e->f, len, 0, &e->out), 0);
	expect_err(e, 4, 1, 6, A(1), len - 14);
	assert_int_equal(e->ic.st.errors_sent, 5);
}

/* RFC 4443 2.4 (e): none about an error, a Redirect, a multicast
 * destination or frame (but Packet Too Big), a source naming no node;
 * none without a source address; 2.4 (f): the bucket. */
static void
test_suppressed6(void **st)
{
	struct env *e = *st;
	uint8_t mc[16] = {0xff, 0x0e, [15] = 1};
	unsigned len;

	len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 1, 58, 48);
	e->f[54] = 1; /* Destination Unreachable */
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    -EPERM);
	e->f[54] = 137; /* Redirect */
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    -EPERM);
	e->f[54] = 128; /* an echo request: fine */
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    0);
	e->out.n = 0;
	len = tf_ipv6(e->f, rmac, hmac, A(2), mc, 1, 17, 20);
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    -EPERM);
	/* ... but Packet Too Big about it is sent */
	assert_int_equal(fwd_icmp6_error(&e->ic, 2, 0, 1280, 0, A(1), e->f, len,
			     0, &e->out),
	    0);
	e->out.n = 0;
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 1, 17, 20);
	e->f[0] = 0x33; /* link-layer multicast */
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    -EPERM);
	len = tf_ipv6(e->f, rmac, hmac, mc, A(0x99), 1, 17, 20);
	assert_int_equal(fwd_icmp6_error(&e->ic, 2, 0, 1280, 0, A(1), e->f, len,
			     0, &e->out),
	    -EPERM);
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 1, 17, 20);
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, NULL, e->f, len, 0,
			     &e->out),
	    -EPERM);
	assert_int_equal(e->out.n, 0);
	/* the bucket (5 deep, 10/s, shared with IPv4's): 2 taken above, 3
	 * left, then none until time passes */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f,
				     len, 0, &e->out),
		    0);
		e->out.n = 0;
	}
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len, 0,
			     &e->out),
	    -EAGAIN);
	assert_false(fwd_icmp_allow(&e->rl, 0)); /* IPv4's is the same one */
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len,
			     1000, &e->out),
	    0);
	assert_int_equal(e->ic.st.rate_limited, 1);
	/* not IPv6 at all */
	len = tf_ipv4(e->f, rmac, hmac, TF_IP(1, 2), TF_IP(1, 1), 64, 17, 20,
	    0);
	assert_int_equal(fwd_icmp6_error(&e->ic, 3, 0, 0, 0, A(1), e->f, len,
			     1000, &e->out),
	    -EINVAL);
}

/* ---- the slow path's dispatch ---- */

static unsigned nd_in, nd_punted, nd_adj;

static int
nd_input(struct fwd_nd *nd, uint16_t port, const uint8_t *frame, unsigned len,
    struct fwd_out *out)
{
	(void)nd;
	(void)port;
	(void)frame;
	(void)len;
	(void)out;
	nd_in++;
	return (0);
}

static int
nd_punt(struct fwd_nd *nd, uint16_t in_port, unsigned adj_idx,
    const uint8_t *frame, unsigned len, struct fwd_out *out)
{
	(void)nd;
	(void)in_port;
	(void)frame;
	(void)len;
	(void)out;
	nd_punted++;
	nd_adj = adj_idx;
	return (0);
}

static bool
nd_src(const struct fwd_nd *nd, uint16_t port, const uint8_t dst[16],
    uint8_t src[16])
{
	(void)nd;
	(void)dst;
	if (port != 0)
		return (false);
	memcpy(src, A(1), 16);
	return (true);
}

static void
test_slow6(void **st)
{
	struct env *e = *st;
	struct fwd_slow s = {.icmp6 = &e->ic};
	uint8_t mc[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 1};
	unsigned len;

	/* without ND: ND frames and unresolved next hops go nowhere */
	len = tf_ipv6(e->f, rmac, hmac, A(2), mc, 255, 58, 24);
	e->f[54] = 135; /* NS */
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_IP6_MCAST, 0, e->f, len, 0,
			     &e->out),
	    -ENOENT);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_RESOLVE, 9, e->f, len, 0,
			     &e->out),
	    -EHOSTUNREACH);
	s.nd_input = nd_input;
	s.nd_punt = nd_punt;
	s.nd_src = nd_src;
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_IP6_MCAST, 0, e->f, len, 0,
			     &e->out),
	    0);
	/* an NA to our unicast address, RS, RA: ND's too */
	for (uint8_t t = 133; t <= 137; t++) {
		len = tf_ipv6(e->f, rmac, hmac, A(2), A(1), 255, 58, 24);
		e->f[54] = t;
		assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f,
				     len, 0, &e->out),
		    0);
	}
	assert_int_equal(nd_in, 6);
	/* MLD (type 143) to ff02::16: not ND's; no host path: dropped */
	len = tf_ipv6(e->f, rmac, hmac, A(2), mc, 1, 58, 24);
	e->f[54] = 143;
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_IP6_MCAST, 0, e->f, len, 0,
			     &e->out),
	    -ENOENT);
	assert_int_equal(nd_in, 6);
	len = tf_ipv6(e->f, rmac, hmac, A(2), A(0x99), 64, 17, 24);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_RESOLVE, 9, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(nd_punted, 1);
	assert_int_equal(nd_adj, 9);
	/* the errors, from nd_src's address */
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_NO_ROUTE, 0, e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 1, 0, 0, A(1), len - 14);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_REJECT, 0, e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 1, 1, 0, A(1), len - 14);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_IP6_HLIM, 0, e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 3, 0, 0, A(1), len - 14);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_MTU_DF, 1400, e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 2, 0, 1400, A(1), len - 14);
	assert_int_equal(fwd_slow_error6(&s, FWD_ICMP6_UNREACH,
			     FWD_ICMP6_UNREACH_ADDR, 0, 0, e->f, len, 0,
			     &e->out),
	    0);
	expect_err(e, 1, 3, 0, A(1), len - 14);
	/* no address on that port: no error */
	assert_int_equal(fwd_slow_input(&s, 1, FWD_R_NO_ROUTE, 0, e->f, len, 0,
			     &e->out),
	    -EPERM);
	/* an echo request to us: answered */
	len = echo(e->f);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(e->out.pkt[0].data[54], 129);
	/* a reason the IPv6 side has no use for */
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_ARP, 0, e->f, len, 0,
			     &e->out),
	    -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cksum6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_echo6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errors6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_suppressed6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slow6, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
