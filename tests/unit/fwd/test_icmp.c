/* tests/unit/fwd/test_icmp.c: ICMP echo reply, errors (time exceeded,
 * unreachable, frag-needed), RFC 1812 suppression, rate limit, fragmentation,
 * with crafted frames. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_icmp.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t rmac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};
#define RIP TF_IP(1, 1)
#define HIP TF_IP(1, 2)

struct env {
	struct fwd_icmp ic;
	struct fwd_out out;
	uint8_t f[2048];
};

static int
setup(void **st)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fwd_icmp_conf c = {.rate = 10, .burst = 5};

	assert_non_null(e);
	assert_int_equal(fwd_icmp_init(&e->ic, &c), 0);
	*st = e;
	return (0);
}

static int
teardown(void **st)
{
	free(*st);
	return (0);
}

static unsigned
echo(uint8_t *f, uint32_t dst, unsigned datalen)
{
	unsigned len = tf_ipv4(f, rmac, hmac, HIP, dst, 64, FWD_IPPROTO_ICMP,
	    8 + datalen, 0);
	uint8_t *ic = f + 34;

	ic[0] = FWD_ICMP_ECHO;
	ic[1] = 0;
	fwd_st16(ic + 2, 0);
	fwd_st16(ic + 4, htons(0x4242)); /* id */
	fwd_st16(ic + 6, htons(7));	 /* seq */
	fwd_st16(ic + 2, fwd_cksum(ic, 8 + datalen));
	return (len);
}

static void
check_ip(const uint8_t *o, unsigned len, uint32_t src, uint32_t dst)
{
	const uint8_t *ip = o + 14;

	assert_true(len >= 34);
	assert_int_equal(ip[0], 0x45);
	assert_true(fwd_ipv4_cksum_ok(ip, 20));
	assert_int_equal(ntohs(fwd_ld16(ip + 2)), len - 14);
	assert_int_equal(ip[FWD_IP_PROTO], FWD_IPPROTO_ICMP);
	assert_int_equal(ip[FWD_IP_TTL], 64);
	assert_int_equal(ntohl(fwd_ld32(ip + 12)), src);
	assert_int_equal(ntohl(fwd_ld32(ip + 16)), dst);
	/* ICMP checksum over the ICMP message */
	assert_int_equal(fwd_cksum_fold(fwd_cksum_add(ip + 20, len - 34, 0)),
	    0xffff);
	/* back to the sender's MAC from the MAC it used */
	assert_memory_equal(o, hmac, 6);
	assert_memory_equal(o + 6, rmac, 6);
}

static void
test_echo(void **st)
{
	struct env *e = *st;
	unsigned len = echo(e->f, RIP, 56);
	const struct fwd_pkt *p;

	assert_int_equal(fwd_icmp_local(&e->ic, 3, e->f, len, 0, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	p = &e->out.pkt[0];
	assert_int_equal(p->port, 3);
	assert_int_equal(p->len, len);
	check_ip(p->data, p->len, RIP, HIP);
	assert_int_equal(p->data[34], FWD_ICMP_ECHOREPLY);
	assert_memory_equal(p->data + 38, e->f + 38,
	    4 + 56); /* id, seq, data */
	assert_int_equal(e->ic.st.echo_replies, 1);
	/* not rate-limited */
	for (int i = 0; i < 20; i++)
		assert_int_equal(fwd_icmp_local(&e->ic, 3, e->f, len, 0,
				     &e->out),
		    0);
	/* bad ICMP checksum */
	e->out.n = 0;
	e->f[40] ^= 1;
	assert_int_equal(fwd_icmp_local(&e->ic, 3, e->f, len, 0, &e->out),
	    -EINVAL);
	assert_int_equal(e->out.n, 0);
	/* an echo reply to us is not answered */
	len = echo(e->f, RIP, 8);
	e->f[34] = FWD_ICMP_ECHOREPLY;
	fwd_st16(e->f + 36, 0);
	fwd_st16(e->f + 36, fwd_cksum(e->f + 34, 16));
	assert_int_equal(fwd_icmp_local(&e->ic, 3, e->f, len, 0, &e->out),
	    -ENOTSUP);
	assert_int_equal(e->out.n, 0);
	/* malformed IP */
	assert_int_equal(fwd_icmp_local(&e->ic, 3, e->f, 30, 0, &e->out),
	    -EINVAL);
}

static void
test_port_unreach(void **st)
{
	struct env *e = *st;
	unsigned len = tf_ipv4(e->f, rmac, hmac, HIP, RIP, 1, 17, 40, 0);
	const struct fwd_pkt *p;

	assert_int_equal(fwd_icmp_local(&e->ic, 0, e->f, len, 0, &e->out), 0);
	p = &e->out.pkt[0];
	check_ip(p->data, p->len, RIP, HIP);
	assert_int_equal(p->data[34], FWD_ICMP_UNREACH);
	assert_int_equal(p->data[35], FWD_ICMP_UNREACH_PORT);
	/* the whole packet quoted (it is short), as received */
	assert_int_equal(p->len, 14 + 20 + 8 + 60);
	assert_memory_equal(p->data + 42, e->f + 14, 60);
	/* another protocol: protocol unreachable */
	len = tf_ipv4(e->f, rmac, hmac, HIP, RIP, 64, 89, 40, 0);
	assert_int_equal(fwd_icmp_local(&e->ic, 0, e->f, len, 0, &e->out), 0);
	assert_int_equal(e->out.pkt[1].data[35], FWD_ICMP_UNREACH_PROTO);
}

static void
test_errors(void **st)
{
	struct env *e = *st;
	unsigned len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 1, 17, 1400,
	    0);
	const struct fwd_pkt *p;

	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 2, RIP,
			     e->f, len, 0, &e->out),
	    0);
	p = &e->out.pkt[0];
	assert_int_equal(p->port, 2);
	/* RFC 1812: at most 576 bytes of IP */
	assert_int_equal(p->len, 14 + FWD_ICMP_ERR_MAX);
	check_ip(p->data, p->len, RIP, HIP);
	assert_int_equal(p->data[34], FWD_ICMP_TIMXCEED);
	assert_int_equal(p->data[35], 0);
	assert_memory_equal(p->data + 42, e->f + 14, 548);
	/* frag-needed carries the MTU */
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 64, 6, 600,
	    FWD_IP_DF);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_UNREACH,
			     FWD_ICMP_UNREACH_NEEDFRAG, 576, 0, RIP, e->f, len,
			     0, &e->out),
	    0);
	p = &e->out.pkt[1];
	assert_int_equal(p->data[34], 3);
	assert_int_equal(p->data[35], 4);
	assert_int_equal(ntohs(fwd_ld16(p->data + 40)), 576);
	check_ip(p->data, p->len, RIP, HIP);
	assert_int_equal(e->ic.st.errors_sent, 2);
}

static void
test_suppressed(void **st)
{
	struct env *e = *st;
	unsigned len;

	/* about an ICMP error */
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 1, 1, 36, 0);
	e->f[34] = FWD_ICMP_UNREACH;
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 0, &e->out),
	    -EPERM);
	/* about an echo request: allowed */
	e->f[34] = FWD_ICMP_ECHO;
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 0, &e->out),
	    0);
	/* a non-first fragment */
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 1, 17, 36, 10);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 0, &e->out),
	    -EPERM);
	/* to a link broadcast */
	len = tf_ipv4(e->f, tf_bcast, hmac, HIP, TF_IP(9, 9), 1, 17, 36, 0);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 0, &e->out),
	    -EPERM);
	/* from 0.0.0.0 */
	len = tf_ipv4(e->f, rmac, hmac, 0, TF_IP(9, 9), 1, 17, 36, 0);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 0, &e->out),
	    -EPERM);
	/* no source address on the port */
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 1, 17, 36, 0);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, 0,
			     e->f, len, 0, &e->out),
	    -EPERM);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(e->ic.st.suppressed, 5);
}

static void
test_rate_limit(void **st)
{
	struct env *e = *st;
	unsigned len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 1, 17, 36,
	    0);
	int ok = 0;

	/* burst 5 at t=1000, rate 10/s */
	for (int i = 0; i < 20; i++)
		if (fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			e->f, len, 1000, &e->out) == 0)
			ok++;
	assert_int_equal(ok, 5);
	assert_int_equal(e->ic.st.rate_limited, 15);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 1050, &e->out),
	    -EAGAIN);
	/* 100 ms later: one token */
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 1100, &e->out),
	    0);
	assert_int_equal(fwd_icmp_error(&e->ic, FWD_ICMP_TIMXCEED, 0, 0, 0, RIP,
			     e->f, len, 1100, &e->out),
	    -EAGAIN);
	/* a long pause refills only up to the burst */
	ok = 0;
	for (int i = 0; i < 20; i++)
		if (fwd_icmp_allow(&e->ic, 100000))
			ok++;
	assert_int_equal(ok, 5);
}

static void
test_fragment(void **st)
{
	struct env *e = *st;
	struct fwd_adj a = {.port = 4,
	    .mtu = 576,
	    .action = FWD_ADJ_A_FORWARD,
	    .kind = FWD_ADJ_K_NH};
	unsigned len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 64, 17, 1380,
	    0);
	uint8_t re[1400];
	unsigned got = 0;

	memcpy(a.eth, "\x02\0\0\0\x07\x07\x02\0\0\0\0\x04\x08\x00", 14);
	assert_int_equal(fwd_ip_fragment(&e->ic, &a, e->f, len, &e->out), 0);
	/* 1380 bytes of data, 552 per fragment: 552 + 552 + 276 */
	assert_int_equal(e->out.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct fwd_pkt *p = &e->out.pkt[i];
		const uint8_t *ip = p->data + 14;
		unsigned tl = ntohs(fwd_ld16(ip + 2));
		uint16_t off = ntohs(fwd_ld16(ip + 6));

		assert_int_equal(p->port, 4);
		assert_memory_equal(p->data, a.eth, 14);
		assert_true(tl <= 576);
		assert_int_equal(p->len, 14 + tl);
		assert_true(fwd_ipv4_cksum_ok(ip, 20));
		assert_int_equal(ip[8], 63);
		assert_int_equal(off & FWD_IP_OFFMASK, i * 69);
		assert_int_equal(!!(off & FWD_IP_MF), i < 2);
		assert_int_equal(fwd_ld16(ip + 4), fwd_ld16(e->f + 18));
		memcpy(re + (off & FWD_IP_OFFMASK) * 8, ip + 20, tl - 20);
		got += tl - 20;
	}
	assert_int_equal(got, 1380);
	assert_memory_equal(re, e->f + 34, 1380);
	/* DF set: not ours to fragment */
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 64, 17, 1380,
	    FWD_IP_DF);
	assert_int_equal(fwd_ip_fragment(&e->ic, &a, e->f, len, &e->out),
	    -EINVAL);
	/* all or nothing when out is nearly full */
	e->out.n = FWD_OUT_MAX - 1;
	len = tf_ipv4(e->f, rmac, hmac, HIP, TF_IP(9, 9), 64, 17, 1380, 0);
	assert_int_equal(fwd_ip_fragment(&e->ic, &a, e->f, len, &e->out),
	    -ENOBUFS);
	assert_int_equal(e->out.n, FWD_OUT_MAX - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_echo, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_unreach, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_suppressed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rate_limit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fragment, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
