/* tests/unit/fwd/test_ipopt.c: the IP option walker of forwarded datagrams
 * (fwd_ipopt_forward): Record Route and Timestamp filled in, options passed
 * through, each kind of malformed option answered with its pointer and
 * nothing changed; and the Parameter Problem the slow path builds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_icmp.h"
#include "fwd/fwd_ipopt.h"
#include "tests/unit/fwd/fwd_test_frames.h"

#define OUT TF_IP(2, 1) /* the egress interface's address */
#define TS  0x01020304u /* ms since midnight UT */

/* A 20-byte header followed by the options opt (nopt bytes, padded with
 * EOL to a multiple of 4). Returns the header length. */
static unsigned
hdr(uint8_t *ip, const uint8_t *opt, unsigned nopt)
{
	unsigned hlen = FWD_IPV4_HLEN + ((nopt + 3) & ~3u);

	memset(ip, 0, 60);
	ip[FWD_IP_VHL] = (uint8_t)(0x40 | hlen / 4);
	fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)hlen));
	ip[FWD_IP_TTL] = 64;
	ip[FWD_IP_PROTO] = FWD_IPPROTO_UDP;
	fwd_st32(ip + FWD_IP_SRC, htonl(TF_IP(1, 2)));
	fwd_st32(ip + FWD_IP_DST, htonl(TF_IP(2, 2)));
	memcpy(ip + FWD_IPV4_HLEN, opt, nopt);
	return (hlen);
}

static unsigned
fwd(uint8_t *ip, unsigned hlen, bool *changed)
{
	return (fwd_ipopt_forward(ip, hlen, htonl(OUT), TS, changed));
}

static void
test_record_route(void **st)
{
	/* room for two addresses, the first one empty */
	static const uint8_t rr[] = {FWD_IPOPT_RR, 11, 4, 0, 0, 0, 0, 0, 0, 0,
	    0};
	uint8_t ip[60];
	unsigned hlen = hdr(ip, rr, sizeof(rr));
	bool ch;

	(void)st;
	assert_int_equal(hlen, 32);
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_true(ch);
	assert_int_equal(ip[22], 8); /* pointer past the first slot */
	assert_int_equal(ntohl(fwd_ld32(ip + 23)), OUT);
	assert_int_equal(fwd_ld32(ip + 27), 0);
	/* a second router fills the second slot */
	assert_int_equal(fwd_ipopt_forward(ip, hlen, htonl(TF_IP(3, 1)), TS,
			     &ch),
	    0);
	assert_true(ch);
	assert_int_equal(ip[22], 12);
	assert_int_equal(ntohl(fwd_ld32(ip + 27)), TF_IP(3, 1));
	/* full (pointer > length): forwarded as it is */
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_false(ch);
	assert_int_equal(ip[22], 12);
	/* the egress has no address: nothing recorded, nothing wrong */
	hlen = hdr(ip, rr, sizeof(rr));
	assert_int_equal(fwd_ipopt_forward(ip, hlen, 0, TS, &ch), 0);
	assert_false(ch);
	assert_int_equal(ip[22], 4);
}

static void
test_timestamp(void **st)
{
	static const uint8_t ts0[] = {FWD_IPOPT_TS, 12, 5, 0x00, 0, 0, 0, 0, 0,
	    0, 0, 0};
	static const uint8_t ts1[] = {FWD_IPOPT_TS, 12, 5, 0x01, 0, 0, 0, 0, 0,
	    0, 0, 0};
	uint8_t ts3[] = {FWD_IPOPT_TS, 20, 5, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0};
	static const uint8_t full[] = {FWD_IPOPT_TS, 4, 5, 0x21};
	uint8_t ip[60];
	unsigned hlen;
	bool ch;

	(void)st;
	/* flag 0: timestamps only */
	hlen = hdr(ip, ts0, sizeof(ts0));
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_true(ch);
	assert_int_equal(ip[22], 9);
	assert_int_equal(ntohl(fwd_ld32(ip + 24)), TS);
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_int_equal(ip[22], 13);
	assert_int_equal(ntohl(fwd_ld32(ip + 28)), TS);
	/* full now: the overflow count goes up, the flag stays */
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_true(ch);
	assert_int_equal(ip[23], 0x10);
	/* flag 1: address, then timestamp */
	hlen = hdr(ip, ts1, sizeof(ts1));
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_int_equal(ip[22], 13);
	assert_int_equal(ntohl(fwd_ld32(ip + 24)), OUT);
	assert_int_equal(ntohl(fwd_ld32(ip + 28)), TS);
	/* flag 3: only where the next prespecified address is ours */
	fwd_st32(ts3 + 4, htonl(TF_IP(9, 9)));
	fwd_st32(ts3 + 12, htonl(OUT));
	hlen = hdr(ip, ts3, sizeof(ts3));
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_false(ch); /* 198.18.9.9 is next: not us */
	ts3[2] = 13;	  /* the next one is ours */
	hlen = hdr(ip, ts3, sizeof(ts3));
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_true(ch);
	assert_int_equal(ip[22], 21);
	assert_int_equal(ntohl(fwd_ld32(ip + 36)), TS);
	assert_int_equal(fwd_ld32(ip + 28), 0); /* the other untouched */
	/* an overflow count of 15 that would overflow */
	hlen = hdr(ip, full, sizeof(full));
	ip[23] = 0xf0;
	assert_int_equal(fwd(ip, hlen, &ch), 23);
	assert_false(ch);
	assert_int_equal(ip[23], 0xf0);
}

/* NOP, an unknown option and a source route pass through unchanged; an
 * option after EOL is not looked at. */
static void
test_passed_through(void **st)
{
	static const uint8_t opts[] = {FWD_IPOPT_NOP, 148, 4, 0, 0,
	    FWD_IPOPT_LSRR, 7, 4, 198, 18, 3, 3, FWD_IPOPT_EOL, 0xee, 0xee};
	uint8_t ip[60], orig[60];
	unsigned hlen = hdr(ip, opts, sizeof(opts));
	bool ch;

	(void)st;
	memcpy(orig, ip, sizeof(ip));
	assert_int_equal(fwd(ip, hlen, &ch), 0);
	assert_false(ch);
	assert_memory_equal(ip, orig, hlen);
	/* no options at all: nothing to do */
	assert_int_equal(fwd(ip, FWD_IPV4_HLEN, &ch), 0);
	assert_false(ch);
}

/* Each malformed option: its pointer (as Linux's ip_options_compile
 * answers), and the header as it came, even when an option before it
 * would have been filled in. */
static void
test_malformed(void **st)
{
	static const struct {
		uint8_t opt[16];
		unsigned n, ptr;
		const char *what;
	} bad[] = {
	    {{FWD_IPOPT_RR}, 1, 20, "type, no length octet"},
	    {{FWD_IPOPT_NOP, FWD_IPOPT_NOP, FWD_IPOPT_NOP, FWD_IPOPT_RR}, 4, 23,
		"type in the last octet"},
	    {{FWD_IPOPT_RR, 1, 4, 0}, 4, 20, "length 1"},
	    {{FWD_IPOPT_RR, 9, 4, 0, 0, 0, 0, 0}, 8, 20, "beyond the header"},
	    {{FWD_IPOPT_RR, 2, 0, 0}, 4, 21, "RR length 2"},
	    {{FWD_IPOPT_RR, 7, 3, 0, 0, 0, 0}, 7, 22, "RR pointer 3"},
	    {{FWD_IPOPT_RR, 6, 4, 0, 0, 0}, 6, 22, "RR room for part of one"},
	    {{FWD_IPOPT_TS, 3, 5, 0}, 4, 21, "TS length 3"},
	    {{FWD_IPOPT_TS, 8, 4, 0, 0, 0, 0, 0}, 8, 22, "TS pointer 4"},
	    {{FWD_IPOPT_TS, 8, 5, 0x02, 0, 0, 0, 0}, 8, 23, "TS flag 2"},
	    {{FWD_IPOPT_TS, 8, 5, 0x01, 0, 0, 0, 0}, 8, 22,
		"TS flag 1, room for a timestamp only"},
	    {{FWD_IPOPT_LSRR, 2, 0, 0}, 4, 21, "LSRR length 2"},
	    {{FWD_IPOPT_SSRR, 7, 1, 0, 0, 0, 0}, 7, 22, "SSRR pointer 1"},
	    {{FWD_IPOPT_RR, 7, 4, 0, 0, 0, 0, FWD_IPOPT_RR, 7, 4, 0, 0, 0, 0},
		14, 27, "RR twice"},
	    {{FWD_IPOPT_RR, 7, 4, 0, 0, 0, 0, FWD_IPOPT_TS, 4, 3}, 10, 29,
		"a good RR, then a bad TS: nothing filled in"},
	};
	uint8_t ip[60], orig[60];
	bool ch;

	(void)st;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned hlen = hdr(ip, bad[i].opt, bad[i].n), got;

		memcpy(orig, ip, sizeof(ip));
		got = fwd(ip, hlen, &ch);
		if (got != bad[i].ptr)
			fail_msg("%s: pointer %u, expected %u", bad[i].what,
			    got, bad[i].ptr);
		assert_false(ch);
		assert_memory_equal(ip, orig, hlen);
	}
}

/* The slow path's answer: type 12 code 0 with the pointer, quoting the
 * header as it came. */
static void
test_param_problem(void **st)
{
	static const uint8_t rmac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};
	static const uint8_t rr[] = {FWD_IPOPT_RR, 7, 3, 0, 0, 0, 0};
	struct fwd_icmp_conf c = {.rate = 10, .burst = 5};
	static struct fwd_icmp ic;
	static struct fwd_out out;
	uint8_t f[128], *o, *icmp;
	unsigned hlen, len;

	(void)st;
	assert_int_equal(fwd_icmp_init(&ic, &c), 0);
	memcpy(f, rmac, 6);
	memcpy(f + 6, hmac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	hlen = hdr(f + 14, rr, sizeof(rr));
	len = hlen + 8;
	fwd_st16(f + 14 + FWD_IP_LEN, htons((uint16_t)len));
	memset(f + 14 + hlen, 0xab, 8);
	fwd_ipv4_cksum_set(f + 14, hlen);
	assert_int_equal(fwd(f + 14, hlen, &(bool){false}), 22);
	assert_int_equal(fwd_icmp_error(&ic, FWD_ICMP_PARAMPROB, 0, 22, 0,
			     TF_IP(1, 1), f, 14 + len, 0, &out),
	    0);
	assert_int_equal(out.n, 1);
	o = out.buf[0];
	assert_memory_equal(o, hmac, 6);
	assert_true(fwd_ipv4_cksum_ok(o + 14, 20));
	assert_int_equal(ntohl(fwd_ld32(o + 14 + FWD_IP_SRC)), TF_IP(1, 1));
	assert_int_equal(ntohl(fwd_ld32(o + 14 + FWD_IP_DST)), TF_IP(1, 2));
	icmp = o + 34;
	assert_int_equal(icmp[0], FWD_ICMP_PARAMPROB);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(icmp[4], 22); /* the pointer */
	assert_int_equal(fwd_ld16(icmp + 5), 0);
	assert_int_equal(icmp[7], 0);
	assert_int_equal(fwd_cksum_fold(
			     fwd_cksum_add(icmp, out.pkt[0].len - 34, 0)),
	    0xffff);
	assert_memory_equal(icmp + 8, f + 14, len); /* the whole datagram */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_route),
	    cmocka_unit_test(test_timestamp),
	    cmocka_unit_test(test_passed_through),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_param_problem),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
