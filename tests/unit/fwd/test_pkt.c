/* tests/unit/fwd/test_pkt.c: fwd_pkt.h parsing of every malformed case,
 * checksums against a full recompute, rewrite. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_pkt.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t rmac[8] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};

/* A frame at offset 2 of an aligned buffer, as the ports hand them out. */
static uint8_t bufmem[2048 + 2] __attribute__((aligned(64)));
#define FR (bufmem + 2)

static unsigned
good(void)
{
	return (tf_ipv4(FR, rmac, hmac, TF_IP(1, 2), TF_IP(2, 3), 64, 17, 26,
	    FWD_IP_DF));
}

static enum fwd_reason
parse(unsigned len, struct fwd_pkt_meta *m)
{
	return (fwd_pkt_parse(FR, len, rmac, m));
}

static void
test_parse_ok(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();

	(void)st;
	assert_int_equal(len, 60);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_ptr_equal(m.ip, FR + 14);
	assert_int_equal(m.dst, TF_IP(2, 3));
	assert_int_equal(m.ip_len, 46);
	assert_int_equal(m.hlen, 20);
	/* Ethernet padding after the IP packet is fine. */
	assert_int_equal(parse(len + 10, &m), FWD_R_OK);
}

static void
test_parse_short(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();

	(void)st;
	for (unsigned l = 0; l < 34; l++)
		assert_int_equal(parse(l, &m), FWD_R_SHORT);
	assert_int_equal(parse(34, &m), FWD_R_LEN); /* tot_len 46 > 20 */
	(void)len;
}

static void
test_parse_ethertype(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();

	(void)st;
	FR[12] = 0x86;
	FR[13] = 0xdd; /* IPv6 */
	assert_int_equal(parse(len, &m), FWD_R_ETHERTYPE);
	FR[12] = 0x81;
	FR[13] = 0x00; /* VLAN */
	assert_int_equal(parse(len, &m), FWD_R_ETHERTYPE);
	len = tf_arp(FR, 1, tf_bcast, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	assert_int_equal(parse(len, &m), FWD_R_ARP);
}

static void
test_parse_l2(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();

	(void)st;
	FR[5] = 0x02; /* another host's MAC */
	assert_int_equal(parse(len, &m), FWD_R_L2_DST);
	memcpy(FR, tf_bcast, 6);
	assert_int_equal(parse(len, &m), FWD_R_L2_DST);
}

static void
test_parse_version_ihl(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();
	uint8_t *ip = FR + 14;

	(void)st;
	ip[0] = 0x65;
	fwd_ipv4_cksum_set(ip, 20);
	assert_int_equal(parse(len, &m), FWD_R_VERSION);
	for (unsigned ihl = 0; ihl < 5; ihl++) {
		ip[0] = (uint8_t)(0x40 | ihl);
		assert_int_equal(parse(len, &m), FWD_R_IHL);
	}
	/* IHL 15 = 60 bytes > the 46 bytes after Ethernet */
	ip[0] = 0x4f;
	assert_int_equal(parse(len, &m), FWD_R_IHL);
}

static void
test_parse_options(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();
	uint8_t *ip = FR + 14;

	(void)st;
	/* 4 bytes of options (NOPs + EOL) in a 46-byte packet: forwarded */
	ip[0] = 0x46;
	ip[20] = 1;
	ip[21] = 1;
	ip[22] = 1;
	ip[23] = 0;
	fwd_ipv4_cksum_set(ip, 24);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.hlen, 24);
	ip[22] = 7; /* checksum no longer matches */
	assert_int_equal(parse(len, &m), FWD_R_CKSUM);
}

static void
test_parse_cksum(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();
	uint8_t *ip = FR + 14;

	(void)st;
	for (unsigned b = 0; b < 20; b++) {
		len = good();
		if (b == 0)
			continue; /* covered by version tests */
		ip[b] ^= 0x10;
		enum fwd_reason r = parse(len, &m);

		assert_true(r == FWD_R_CKSUM);
	}
}

static void
test_parse_len(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len = good();
	uint8_t *ip = FR + 14;

	(void)st;
	fwd_st16(ip + 2, htons(47)); /* one past the frame */
	fwd_ipv4_cksum_set(ip, 20);
	assert_int_equal(parse(len, &m), FWD_R_LEN);
	fwd_st16(ip + 2, htons(19)); /* shorter than the header */
	fwd_ipv4_cksum_set(ip, 20);
	assert_int_equal(parse(len, &m), FWD_R_LEN);
	fwd_st16(ip + 2, htons(20)); /* header only: fine */
	fwd_ipv4_cksum_set(ip, 20);
	assert_int_equal(parse(len, &m), FWD_R_OK);
}

static void
test_parse_martian(void **st)
{
	struct fwd_pkt_meta m;
	static const uint32_t bad[] = {0x00000001, 0xe0000001, 0xefffffff,
	    0xf0000001, 0xffffffff};

	(void)st;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned len = tf_ipv4(FR, rmac, hmac, TF_IP(1, 2), bad[i], 64,
		    17, 26, 0);

		assert_int_equal(parse(len, &m), FWD_R_MARTIAN);
	}
}

/* TTL is not the parser's business (the for-us test comes first). */
static void
test_parse_ttl_left(void **st)
{
	struct fwd_pkt_meta m;
	unsigned len;

	(void)st;
	len = tf_ipv4(FR, rmac, hmac, TF_IP(1, 2), TF_IP(2, 3), 0, 17, 26, 0);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.ip[FWD_IP_TTL], 0);
}

/* Reference: the checksum recomputed from scratch. */
static uint16_t
ref_cksum(const uint8_t *ip, unsigned hlen)
{
	uint8_t tmp[60];
	uint32_t sum = 0;

	memcpy(tmp, ip, hlen);
	tmp[10] = tmp[11] = 0;
	for (unsigned i = 0; i < hlen; i += 2)
		sum += (uint32_t)(tmp[i] << 8 | tmp[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (htons((uint16_t)~sum));
}

/* The TCP/UDP checksum by the book (RFC 793 3.1): pseudo-header and the
 * segment, byte pairs in network order, field taken as zero. */
static uint16_t
ref_l4(const uint8_t *ip, unsigned l4len, unsigned sumoff)
{
	const uint8_t *l4 = ip + 20;
	uint32_t sum = 0;

	for (unsigned i = 12; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	sum += ip[9] + l4len;
	for (unsigned i = 0; i < l4len; i += 2) {
		unsigned hi = i == sumoff ? 0 : l4[i];
		unsigned lo = i + 1 >= l4len ? 0 :
		    i + 1 == sumoff + 1	     ? 0 :
					       l4[i + 1];

		sum += (uint32_t)(hi << 8 | lo);
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = (uint16_t)~sum;
	return (htons(sum ? (uint16_t)sum : 0xffff));
}

/*
 * A sender's CHECKSUM_PARTIAL frames (the field holds the folded
 * pseudo-header sum, as Linux leaves it to the device): fwd_l4_csum_fill
 * gives the checksum by the book, fwd_l4_csum_fill_partial finds and fills
 * them, and never changes a frame whose checksum is already right; other
 * protocols, fragments and short segments are left alone.
 */
static void
test_l4_csum_fill(void **st)
{
	(void)st;
	srandom(7);
	for (int it = 0; it < 20000; it++) {
		uint8_t proto = it & 1 ? FWD_IPPROTO_TCP : FWD_IPPROTO_UDP;
		unsigned sumoff = proto == FWD_IPPROTO_TCP ? 16 : 6;
		unsigned paylen = (proto == FWD_IPPROTO_TCP ? 20 : 8) +
		    (unsigned)(random() % 1460);
		unsigned len = tf_ipv4(FR, rmac, hmac, (uint32_t)random(),
		    (uint32_t)random(), 64, proto, paylen, FWD_IP_DF);
		uint8_t *ip = FR + 14, *l4 = ip + 20;
		uint16_t want, pseudo;

		for (unsigned i = 0; i < paylen; i++)
			l4[i] = (uint8_t)random();
		if (it % 5 == 0) /* runs of 0xff and 0 */
			memset(l4 + sumoff + 2, it & 2 ? 0xff : 0,
			    paylen - sumoff - 2);
		want = ref_l4(ip, paylen, sumoff);
		pseudo = fwd_l4_pseudo(ip, paylen);
		/* as the sender leaves it */
		fwd_st16(l4 + sumoff, pseudo);
		/* found and filled (unless the right checksum happens to be
		 * the pseudo-header sum: then nothing changes) */
		assert_int_equal(fwd_l4_csum_fill_partial(FR, len),
		    want != pseudo);
		assert_int_equal(fwd_ld16(l4 + sumoff), want);
		/* a complete one is left as it is and not counted */
		assert_false(fwd_l4_csum_fill_partial(FR, len));
		assert_int_equal(fwd_ld16(l4 + sumoff), want);
		/* the plain fill from the partial state */
		fwd_st16(l4 + sumoff, pseudo);
		assert_true(fwd_l4_csum_fill(FR, len));
		assert_int_equal(fwd_ld16(l4 + sumoff), want);
		/* Ethernet padding after the packet is not summed */
		memset(FR + len, 0xab, 10);
		fwd_st16(l4 + sumoff, pseudo);
		assert_true(fwd_l4_csum_fill(FR, len + 10));
		assert_int_equal(fwd_ld16(l4 + sumoff), want);
	}
	{
		unsigned len = tf_ipv4(FR, rmac, hmac, TF_IP(1, 2), TF_IP(2, 3),
		    64, FWD_IPPROTO_TCP, 40, FWD_IP_DF);
		uint8_t keep[128];

		memcpy(keep, FR, len);
		FR[14 + 9] = FWD_IPPROTO_ICMP;
		assert_false(fwd_l4_csum_fill(FR, len));
		FR[14 + 9] = FWD_IPPROTO_TCP;
		fwd_st16(FR + 14 + 6, htons(FWD_IP_MF));
		assert_false(fwd_l4_csum_fill(FR, len)); /* a fragment */
		fwd_st16(FR + 14 + 6, htons(FWD_IP_DF));
		assert_false(fwd_l4_csum_fill(FR, len - 1)); /* cut short */
		fwd_st16(FR + 14 + 2, htons(20 + 19)); /* TCP < 20 bytes */
		assert_false(fwd_l4_csum_fill(FR, len));
		memcpy(FR, keep, len);
		fwd_st16(FR + 12, htons(0x86dd));
		assert_false(fwd_l4_csum_fill(FR, len));
	}
}

static void
test_cksum_random(void **st)
{
	uint8_t ip[60];

	(void)st;
	srandom(42);
	for (int it = 0; it < 200000; it++) {
		unsigned hlen = 20 + 4 * (unsigned)(random() % 11);

		for (unsigned i = 0; i < hlen; i++)
			ip[i] = (uint8_t)random();
		if (it % 7 == 0) /* words near 0 and 0xffff */
			memset(ip + 12, it & 1 ? 0xff : 0, 8);
		ip[0] = (uint8_t)(0x40 | hlen / 4);
		ip[8] = (uint8_t)(2 + random() % 254);
		fwd_ipv4_cksum_set(ip, hlen);
		assert_int_equal(fwd_ld16(ip + 10), ref_cksum(ip, hlen));
		assert_true(fwd_ipv4_cksum_ok(ip, hlen));
		/* incremental TTL decrement == full recompute */
		fwd_ipv4_ttl_dec(ip);
		assert_int_equal(fwd_ld16(ip + 10), ref_cksum(ip, hlen));
		assert_true(fwd_ipv4_cksum_ok(ip, hlen));
		/* generic RFC 1624 update of another word */
		{
			uint16_t old = ntohs(fwd_ld16(ip + 4));
			uint16_t new = (uint16_t)random();
			uint16_t ck = ntohs(fwd_ld16(ip + 10));

			fwd_st16(ip + 4, htons(new));
			fwd_st16(ip + 10,
			    htons(fwd_cksum_update16(ck, old, new)));
			assert_int_equal(fwd_ld16(ip + 10),
			    ref_cksum(ip, hlen));
		}
	}
}

/* The TTL update for every checksum value against RFC 1624 in network
 * order (itself checked against full recomputes above). */
static void
test_ttl_dec_exhaustive(void **st)
{
	uint8_t ip[20];

	(void)st;
	memset(ip, 0, sizeof(ip));
	for (uint32_t c = 0; c <= 0xffff; c++) {
		uint32_t sum;
		uint16_t want;

		ip[8] = (uint8_t)(2 + c % 250);
		ip[9] = (uint8_t)(c >> 3);
		fwd_st16(ip + 10, (uint16_t)c);
		sum = (uint32_t)(uint16_t)~ntohs((uint16_t)c) + 0xfeff;
		sum = (sum & 0xffff) + (sum >> 16);
		want = htons((uint16_t)~sum);
		fwd_ipv4_ttl_dec(ip);
		assert_int_equal(ip[8], 1 + c % 250);
		assert_int_equal(ip[9], (uint8_t)(c >> 3));
		assert_int_equal(fwd_ld16(ip + 10), want);
	}
}

static void
test_cksum_odd(void **st)
{
	static const uint8_t b[] = {0x45, 0x00, 0x00, 0x1c, 0xab};

	(void)st;
	/* 0x4500 + 0x001c + 0xab00 = 0xf01c -> ~ = 0x0fe3 */
	assert_int_equal(ntohs(fwd_cksum(b, sizeof(b))), 0x0fe3);
}

static void
test_rewrite(void **st)
{
	static const uint8_t hdr[14] = {0x02, 0, 0, 0, 0, 0x42, 0x02, 0, 0, 0,
	    0, 0x07, 0x08, 0x00};
	unsigned len = good();
	uint8_t ip0[20];

	(void)st;
	memcpy(ip0, FR + 14, 20);
	fwd_ipv4_ttl_dec(FR + 14);
	fwd_eth_write(FR, hdr);
	assert_memory_equal(FR, hdr, 14);
	assert_int_equal(FR[14 + 8], 63);
	assert_memory_equal(FR + 14, ip0, 8); /* untouched */
	assert_memory_equal(FR + 14 + 12, ip0 + 12, 8);
	assert_true(fwd_ipv4_cksum_ok(FR + 14, 20));
	(void)len;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ok),
	    cmocka_unit_test(test_parse_short),
	    cmocka_unit_test(test_parse_ethertype),
	    cmocka_unit_test(test_parse_l2),
	    cmocka_unit_test(test_parse_version_ihl),
	    cmocka_unit_test(test_parse_options),
	    cmocka_unit_test(test_parse_cksum),
	    cmocka_unit_test(test_parse_len),
	    cmocka_unit_test(test_parse_martian),
	    cmocka_unit_test(test_parse_ttl_left),
	    cmocka_unit_test(test_cksum_random),
	    cmocka_unit_test(test_ttl_dec_exhaustive),
	    cmocka_unit_test(test_cksum_odd),
	    cmocka_unit_test(test_rewrite),
	    cmocka_unit_test(test_l4_csum_fill),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
