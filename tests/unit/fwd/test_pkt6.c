/* tests/unit/fwd/test_pkt6.c: fwd_pkt6.h: every malformed and scoped case of
 * the full parse, the fast test against it, the extension header walk, the
 * hop limit decrement, the new reasons' names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_pkt6.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t rmac[8] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};
#define MAC64 0x010000000002ull /* rmac as a little-endian load */

/* A frame at offset 2 of an aligned buffer, as the ports hand them out. */
static uint8_t bufmem[2048 + 2] __attribute__((aligned(64)));
#define FR (bufmem + 2)
#define IP (FR + FWD_ETH_HLEN)

static uint8_t s6[16], d6[16];

/* 2001:2:0:1::2 -> 2001:2:0:2::3, UDP, 26 bytes of payload: 80 */
static unsigned
good(void)
{
	tf_ip6(s6, 1, 2);
	tf_ip6(d6, 2, 3);
	return (tf_ipv6(FR, rmac, hmac, s6, d6, 64, FWD_IPPROTO_UDP, 26));
}

static enum fwd_reason
parse(unsigned len, struct fwd_pkt6_meta *m)
{
	return (fwd_pkt6_parse(FR, len, rmac, m));
}

static bool
fast(unsigned len)
{
	uint64_t hi, lo;
	unsigned il;

	return (fwd_pkt6_fast_ok(FR, len, MAC64, &hi, &lo, &il));
}

/* The parse's verdict, checking the fast test never says yes to anything
 * else. */
static enum fwd_reason
verdict(unsigned len)
{
	struct fwd_pkt6_meta m;
	enum fwd_reason r = parse(len, &m);

	if (fast(len) && r != FWD_R_OK)
		fail_msg("fast ok but parse says %s", fwd_reason_str(r));
	return (r);
}

static void
put_addr(unsigned at, const char *hex32)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned v;

		sscanf(hex32 + 2 * i, "%2x", &v);
		IP[at + i] = (uint8_t)v;
	}
}

static void
test_ok(void **st)
{
	struct fwd_pkt6_meta m;
	uint64_t hi = 0, lo = 0;
	unsigned il = 0, len = good();

	(void)st;
	assert_int_equal(len, 80);
	memset(&m, 0, sizeof(m));
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_ptr_equal(m.ip, IP);
	assert_true(m.dst_hi == 0x2001000200000002ull);
	assert_true(m.dst_lo == 3);
	assert_int_equal(m.ip_len, 66);
	assert_int_equal(m.l4_off, 40);
	assert_int_equal(m.l4_proto, 17);
	assert_int_equal(m.hlim, 64);
	assert_true(fwd_pkt6_fast_ok(FR, len, MAC64, &hi, &lo, &il));
	assert_true(hi == m.dst_hi && lo == m.dst_lo);
	assert_int_equal(il, 66);
	/* Ethernet padding after the packet is fine */
	assert_int_equal(parse(len + 10, &m), FWD_R_OK);
	assert_true(fast(len + 10));
	/* other upper layers and the ends of a chain are fast too */
	{
		static const uint8_t nhs[] = {6, 17, 58, FWD_IP6_NH_ESP,
		    FWD_IP6_NH_NONE, 4, 41, 47, 132, 255, 1};

		for (size_t i = 0; i < sizeof(nhs); i++) {
			IP[FWD_IP6_NXT] = nhs[i];
			assert_int_equal(verdict(len), FWD_R_OK);
			assert_true(fast(len));
		}
	}
	/* the traffic class and flow label are nobody's business */
	good();
	fwd_st32(IP, htonl(0x6fffffffu));
	assert_int_equal(verdict(len), FWD_R_OK);
	assert_true(fast(len));
	/* the IPv4 parse says what it always said of an IPv6 frame */
	{
		struct fwd_pkt_meta m4;
		uint32_t d;
		unsigned l;

		assert_int_equal(fwd_pkt_parse(FR, len, rmac, &m4),
		    FWD_R_ETHERTYPE);
		assert_false(fwd_pkt_fast_ok(FR, len, MAC64, &d, &l));
	}
}

static void
test_short_type_l2(void **st)
{
	struct fwd_pkt6_meta m;
	unsigned len = good();
	static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0x02};

	(void)st;
	for (unsigned l = 0; l < 14; l++)
		assert_int_equal(verdict(l), FWD_R_SHORT);
	for (unsigned l = 14; l < 54; l++)
		assert_int_equal(verdict(l), FWD_R_IP6_SHORT);
	/* 54 bytes: the header, but not the 26 of payload it says */
	assert_int_equal(verdict(54), FWD_R_IP6_LEN);
	/* IPv4, VLAN, ARP types */
	FR[12] = 0x08;
	FR[13] = 0x00;
	assert_int_equal(verdict(len), FWD_R_ETHERTYPE);
	FR[12] = 0x81;
	assert_int_equal(verdict(len), FWD_R_ETHERTYPE);
	FR[12] = 0x86;
	FR[13] = 0xdc;
	assert_int_equal(verdict(len), FWD_R_ETHERTYPE);
	/* another MAC, broadcast, our MAC but one bit */
	good();
	memcpy(FR, other, 6);
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	memcpy(FR, tf_bcast, 6);
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	good();
	FR[0] ^= 0x01;
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	/* the fast test and parse read no frame bytes beyond len: the same
	 * verdict with garbage after len */
	good();
	memset(FR + len, 0xee, 100);
	assert_int_equal(parse(len, &m), FWD_R_OK);
}

static void
test_version_len(void **st)
{
	unsigned len = good();

	(void)st;
	for (unsigned v = 0; v < 16; v++) {
		if (v == 6)
			continue;
		IP[0] = (uint8_t)(v << 4);
		assert_int_equal(verdict(len), FWD_R_IP6_VERSION);
	}
	good();
	/* payload length: exactly the frame, one over, the largest */
	fwd_st16(IP + FWD_IP6_PLEN, htons(26));
	assert_int_equal(verdict(len), FWD_R_OK);
	fwd_st16(IP + FWD_IP6_PLEN, htons(27));
	assert_int_equal(verdict(len), FWD_R_IP6_LEN);
	assert_int_equal(verdict(len + 1), FWD_R_OK);
	fwd_st16(IP + FWD_IP6_PLEN, htons(0xffff));
	assert_int_equal(verdict(len), FWD_R_IP6_LEN);
	assert_int_equal(verdict(2048), FWD_R_IP6_LEN);
	/* zero payload: a bare header is well-formed */
	fwd_st16(IP + FWD_IP6_PLEN, 0);
	assert_int_equal(verdict(54), FWD_R_OK);
	assert_true(fast(54));
}

static void
test_martian(void **st)
{
	static const char *const dst_bad[] = {
	    "00000000000000000000000000000000", /* :: */
	    "00000000000000000000000000000001", /* ::1 */
	    "00000000000000000000ffffc6120001", /* ::ffff:198.18.0.1 */
	    "00000000000000000000ffff00000000", /* ::ffff:0.0.0.0 */
	    "ff0e0000000000000000000000000001", /* multicast, our MAC */
	    "ff020000000000000000000000000001",
	    "ff020000000000000000000000000002",
	};
	static const char *const src_bad[] = {
	    "00000000000000000000000000000000",
	    "00000000000000000000000000000001",
	    "00000000000000000000ffffc6120001",
	    "ff020000000000000000000000000001",
	    "ff0e0000000000000000000000000001",
	};
	/* near the martians, forwarded (the fast test leaves ::/8 to the
	 * full parse) */
	static const char *const fine[] = {
	    "00000000000000000000000000000002",
	    "00000000000000000000fffec6120001",
	    "00000000000000000001ffffc6120001",
	    "0064ff9b0000000000000000c6120001", /* 64:ff9b::/96 */
	    "fec00000000000000000000000000001", /* site-local: not LL */
	    "fe000000000000000000000000000001",
	};
	unsigned len = good();

	(void)st;
	for (size_t i = 0; i < sizeof(dst_bad) / sizeof(dst_bad[0]); i++) {
		good();
		put_addr(FWD_IP6_DST, dst_bad[i]);
		assert_int_equal(verdict(len), FWD_R_IP6_MARTIAN);
		/* a martian destination is told before the source */
		put_addr(FWD_IP6_SRC, src_bad[0]);
		assert_int_equal(verdict(len), FWD_R_IP6_MARTIAN);
	}
	for (size_t i = 0; i < sizeof(src_bad) / sizeof(src_bad[0]); i++) {
		good();
		put_addr(FWD_IP6_SRC, src_bad[i]);
		assert_int_equal(verdict(len), FWD_R_IP6_MARTIAN_SRC);
	}
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		good();
		put_addr(FWD_IP6_DST, fine[i]);
		assert_int_equal(verdict(len), FWD_R_OK);
		assert_false(fast(len)); /* ::/8 and fe00::/8 go the long way */
		good();
		put_addr(FWD_IP6_SRC, fine[i]);
		assert_int_equal(verdict(len), FWD_R_OK);
		assert_false(fast(len));
	}
	/* a unique local address (fc00::/7) is plain unicast, fast */
	good();
	put_addr(FWD_IP6_DST, "fc000000000000000000000000000001");
	assert_int_equal(verdict(len), FWD_R_OK);
	assert_true(fast(len));
}

static void
test_link_local(void **st)
{
	static const char *const ll[] = {
	    "fe800000000000000000000000000001",
	    "febfffffffffffffffffffffffffffff",
	    "fe800000000000000202b3fffe1e8329",
	};
	struct fwd_pkt6_meta m;
	unsigned len = good();

	(void)st;
	for (size_t i = 0; i < sizeof(ll) / sizeof(ll[0]); i++) {
		for (unsigned which = 0; which < 2; which++) {
			good();
			put_addr(which ? FWD_IP6_SRC : FWD_IP6_DST, ll[i]);
			memset(&m, 0, sizeof(m));
			assert_int_equal(verdict(len), FWD_R_IP6_LINK_LOCAL);
			/* with the meta, for the caller's for-us test */
			assert_int_equal(parse(len, &m), FWD_R_IP6_LINK_LOCAL);
			assert_true(fwd_pkt6_has_meta(FWD_R_IP6_LINK_LOCAL));
			assert_ptr_equal(m.ip, IP);
			assert_int_equal(m.ip_len, 66);
			if (!which)
				assert_true(m.dst_hi >> 48 == 0xfe80 ||
				    m.dst_hi >> 48 == 0xfebf);
			/* it comes before the hop limit */
			IP[FWD_IP6_HLIM] = 1;
			assert_int_equal(verdict(len), FWD_R_IP6_LINK_LOCAL);
		}
	}
	/* fec0::/10 is next door, and forwarded */
	good();
	put_addr(FWD_IP6_DST, "fec00000000000000000000000000001");
	assert_int_equal(verdict(len), FWD_R_OK);
}

/* Multicast on its 33:33 MAC: link scope to the slow path, the rest not
 * ours; a mismatched group MAC is an L2 drop. */
static void
test_mcast(void **st)
{
	static const uint8_t snmac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
	static const uint8_t allmac[6] = {0x33, 0x33, 0, 0, 0, 0x01};
	struct fwd_pkt6_meta m, sent;
	unsigned len = good();

	(void)st;
	/* a Neighbor Solicitation to the solicited-node group, hop limit
	 * 255, from :: (DAD) or a link-local source: all slow */
	memcpy(FR, snmac, 6);
	put_addr(FWD_IP6_DST, "ff0200000000000000000001ff000001");
	IP[FWD_IP6_NXT] = FWD_IP6_NH_ICMPV6;
	IP[FWD_IP6_HLIM] = 255;
	memset(&sent, 0x5a, sizeof(sent));
	m = sent;
	assert_int_equal(parse(len, &m), FWD_R_IP6_MCAST);
	assert_memory_equal(&m, &sent, sizeof(m));
	assert_false(fast(len));
	put_addr(FWD_IP6_SRC, "00000000000000000000000000000000");
	assert_int_equal(verdict(len), FWD_R_IP6_MCAST);
	put_addr(FWD_IP6_SRC, "fe800000000000000000000000000001");
	assert_int_equal(verdict(len), FWD_R_IP6_MCAST);
	/* MLD: hop limit 1 with Hop-by-Hop (router alert) */
	IP[FWD_IP6_HLIM] = 1;
	IP[FWD_IP6_NXT] = FWD_IP6_NH_HOPOPTS;
	assert_int_equal(verdict(len), FWD_R_IP6_MCAST);
	/* all-nodes ff02::1 */
	memcpy(FR, allmac, 6);
	put_addr(FWD_IP6_DST, "ff020000000000000000000000000001");
	assert_int_equal(verdict(len), FWD_R_IP6_MCAST);
	/* wrong group MAC */
	memcpy(FR, snmac, 6);
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	/* a unicast destination on a group MAC */
	good();
	memcpy(FR, allmac, 6);
	FR[5] = 3;
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	/* site, global and interface scope groups: not ours (no multicast
	 * routing), even on their MAC */
	put_addr(FWD_IP6_DST, "ff050000000000000000000000000003");
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	put_addr(FWD_IP6_DST, "ff0e0000000000000000000000000003");
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	put_addr(FWD_IP6_DST, "ff010000000000000000000000000003");
	assert_int_equal(verdict(len), FWD_R_L2_DST);
	/* a link-scope group with flags (ff12::) is link scope */
	put_addr(FWD_IP6_DST, "ff120000000000000000000000000003");
	assert_int_equal(verdict(len), FWD_R_IP6_MCAST);
	/* version and length are checked before */
	IP[0] = 0x40;
	assert_int_equal(verdict(len), FWD_R_IP6_VERSION);
	IP[0] = 0x60;
	assert_int_equal(verdict(len - 1), FWD_R_IP6_LEN);
}

static void
test_hlim(void **st)
{
	struct fwd_pkt6_meta m;
	unsigned len = good();

	(void)st;
	for (unsigned h = 0; h < 256; h++) {
		IP[FWD_IP6_HLIM] = (uint8_t)h;
		memset(&m, 0, sizeof(m));
		assert_int_equal(parse(len, &m),
		    h <= 1 ? FWD_R_IP6_HLIM : FWD_R_OK);
		assert_int_equal(m.hlim, h);
		assert_int_equal(m.ip_len, 66); /* meta for the slow path */
		assert_int_equal(fast(len), h > 1);
		(void)verdict(len);
	}
	assert_true(fwd_reason_is_slow(FWD_R_IP6_HLIM));
	/* the decrement: one byte, nothing else (no checksum in IPv6) */
	{
		uint8_t before[80];

		good();
		memcpy(before, FR, len);
		fwd_ip6_hlim_dec(IP);
		assert_int_equal(IP[FWD_IP6_HLIM], 63);
		before[FWD_ETH_HLEN + FWD_IP6_HLIM] = 63;
		assert_memory_equal(FR, before, len);
		IP[FWD_IP6_HLIM] = 2;
		fwd_ip6_hlim_dec(IP);
		assert_int_equal(IP[FWD_IP6_HLIM], 1);
		assert_int_equal(verdict(len), FWD_R_IP6_HLIM);
	}
}

/* Writes an extension header of 8 * (1 + xl) bytes at ip + off with next
 * header nh; returns the offset after it. */
static unsigned
ext(unsigned off, uint8_t nh, uint8_t xl)
{
	IP[off] = nh;
	IP[off + 1] = xl;
	memset(IP + off + 2, 0, 6 + 8u * xl);
	return (off + 8 + 8u * xl);
}

/* Sets the payload length to reach off + tail and returns the frame's. */
static unsigned
finish(unsigned off, unsigned tail)
{
	fwd_st16(IP + FWD_IP6_PLEN, htons((uint16_t)(off + tail - 40)));
	return (FWD_ETH_HLEN + off + tail);
}

/* A good frame with two extension headers, first and second, then UDP. */
static unsigned
chain2(uint8_t first, uint8_t second)
{
	good();
	IP[FWD_IP6_NXT] = first;
	return (finish(ext(ext(40, second, 0), 17, 0), 8));
}

static void
test_ext(void **st)
{
	static const uint8_t exts[] = {FWD_IP6_NH_ROUTING, FWD_IP6_NH_DSTOPTS,
	    FWD_IP6_NH_MOBILITY, FWD_IP6_NH_HIP, FWD_IP6_NH_SHIM6,
	    FWD_IP6_NH_EXP1, FWD_IP6_NH_EXP2};
	struct fwd_pkt6_meta m;
	unsigned off, len;

	(void)st;
	/* each plain extension header, 8 or 24 bytes, then UDP: forwarded
	 * by the full parse, never by the fast test */
	for (size_t i = 0; i < sizeof(exts); i++)
		for (uint8_t xl = 0; xl < 3; xl += 2) {
			good();
			IP[FWD_IP6_NXT] = exts[i];
			off = ext(40, 17, xl);
			len = finish(off, 8);
			assert_false(fast(len));
			assert_int_equal(parse(len, &m), FWD_R_OK);
			assert_int_equal(m.l4_off, off);
			assert_int_equal(m.l4_proto, 17);
			/* cut short: the header past the payload */
			fwd_st16(IP + FWD_IP6_PLEN,
			    htons((uint16_t)(off - 41)));
			assert_int_equal(verdict(len), FWD_R_IP6_EXT);
			/* and past the payload into padding: still short */
			assert_int_equal(verdict(len + 64), FWD_R_IP6_EXT);
			fwd_st16(IP + FWD_IP6_PLEN, htons(4));
			assert_int_equal(verdict(len), FWD_R_IP6_EXT);
		}
	/* Hop-by-Hop first: to the slow path (RFC 8200 4.3), with meta */
	good();
	IP[FWD_IP6_NXT] = FWD_IP6_NH_HOPOPTS;
	off = ext(40, 58, 0);
	len = finish(off, 8);
	assert_int_equal(parse(len, &m), FWD_R_IP6_HBH);
	assert_true(fwd_reason_is_slow(FWD_R_IP6_HBH));
	assert_true(fwd_pkt6_has_meta(FWD_R_IP6_HBH));
	assert_int_equal(m.l4_off, 48);
	assert_int_equal(m.l4_proto, 58);
	assert_false(fast(len));
	/* and before the hop limit */
	IP[FWD_IP6_HLIM] = 1;
	assert_int_equal(verdict(len), FWD_R_IP6_HBH);
	/* a Hop-by-Hop header cut short */
	fwd_st16(IP + FWD_IP6_PLEN, htons(6));
	assert_int_equal(verdict(len), FWD_R_IP6_EXT);
	/* a jumbogram's payload length 0 (RFC 2675) cannot be on Ethernet */
	fwd_st16(IP + FWD_IP6_PLEN, 0);
	assert_int_equal(verdict(len), FWD_R_IP6_EXT);
	/* Hop-by-Hop anywhere else: dropped (RFC 8200 4.1) */
	len = chain2(FWD_IP6_NH_DSTOPTS, FWD_IP6_NH_HOPOPTS);
	assert_int_equal(verdict(len), FWD_R_IP6_HBH_POS);
	assert_false(fwd_reason_is_slow(FWD_R_IP6_HBH_POS));
	len = chain2(FWD_IP6_NH_HOPOPTS, FWD_IP6_NH_HOPOPTS);
	assert_int_equal(verdict(len), FWD_R_IP6_HBH_POS);
	/* ... even where it would run past the payload: found first */
	fwd_st16(IP + FWD_IP6_PLEN, htons(8));
	assert_int_equal(verdict(FWD_ETH_HLEN + 48), FWD_R_IP6_HBH_POS);
	/* a Hop-by-Hop after the first fragment header: dropped too */
	len = chain2(FWD_IP6_NH_FRAGMENT, FWD_IP6_NH_HOPOPTS);
	assert_int_equal(verdict(len), FWD_R_IP6_HBH_POS);
}

static void
test_fragment_ah(void **st)
{
	struct fwd_pkt6_meta m;
	unsigned off, len;

	(void)st;
	/* a first fragment (offset 0, M=1) with its UDP header */
	good();
	IP[FWD_IP6_NXT] = FWD_IP6_NH_FRAGMENT;
	off = ext(40, 17, 0);
	fwd_st16(IP + 42, htons(0x0001)); /* offset 0, M */
	len = finish(off, 8);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.l4_off, 48);
	assert_int_equal(m.l4_proto, 17);
	assert_false(fast(len));
	/* the fragment header's reserved length byte is not a length */
	IP[41] = 0xff;
	assert_int_equal(verdict(len), FWD_R_OK);
	/* a later fragment: what follows is data, never walked, even if it
	 * looks like a Hop-by-Hop header or a header past the end */
	good();
	IP[FWD_IP6_NXT] = FWD_IP6_NH_FRAGMENT;
	off = ext(40, FWD_IP6_NH_DSTOPTS, 0);
	fwd_st16(IP + 42, htons(185 << 3)); /* offset 1480 */
	IP[off] = FWD_IP6_NH_HOPOPTS;
	IP[off + 1] = 200;
	len = finish(off, 8);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.l4_off, 48);
	assert_int_equal(m.l4_proto, FWD_IP6_NH_DSTOPTS);
	/* a fragment header cut short */
	fwd_st16(IP + FWD_IP6_PLEN, htons(7));
	assert_int_equal(verdict(len), FWD_R_IP6_EXT);
	/* AH: length in 4-byte units minus 2 (RFC 4302 2.2): 4 -> 24 */
	good();
	IP[FWD_IP6_NXT] = FWD_IP6_NH_AH;
	memset(IP + 40, 0, 24);
	IP[40] = 6;
	IP[41] = 4;
	len = finish(64, 20);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.l4_off, 64);
	assert_int_equal(m.l4_proto, 6);
	assert_false(fast(len));
	fwd_st16(IP + FWD_IP6_PLEN, htons(23));
	assert_int_equal(verdict(len), FWD_R_IP6_EXT);
	/* a chain longer than FWD_IP6_EXT_MAX: forwarded, unlooked at */
	good();
	IP[FWD_IP6_NXT] = FWD_IP6_NH_DSTOPTS;
	off = 40;
	for (unsigned i = 0; i < FWD_IP6_EXT_MAX; i++)
		off = ext(off, FWD_IP6_NH_DSTOPTS, 0);
	off = ext(off, FWD_IP6_NH_HOPOPTS, 0);
	len = finish(off, 8);
	assert_int_equal(parse(len, &m), FWD_R_OK);
	assert_int_equal(m.l4_off, 40 + 8 * FWD_IP6_EXT_MAX);
	assert_int_equal(m.l4_proto, FWD_IP6_NH_DSTOPTS);
}

/* Every byte of the headers through every value: the fast test says yes
 * only when the parse says OK (and ASan, in the sanitizer run, that
 * neither reads past the frame: a heap copy of exactly len bytes). */
static void
test_fast_implies_ok(void **st)
{
	unsigned len = good(), fast_ok = 0;
	uint8_t base[80];

	(void)st;
	memcpy(base, FR, len);
	for (unsigned at = 0; at < len; at++)
		for (unsigned v = 0; v < 256; v++) {
			uint8_t *f = malloc(len);
			struct fwd_pkt6_meta m;
			uint64_t hi = 0, lo = 0;
			unsigned il = 0;
			bool fo;
			enum fwd_reason r;

			memcpy(f, base, len);
			f[at] = (uint8_t)v;
			fo = fwd_pkt6_fast_ok(f, len, MAC64, &hi, &lo, &il);
			r = fwd_pkt6_parse(f, len, rmac, &m);
			if (fo && r != FWD_R_OK)
				fail_msg("byte %u = %u: fast ok, parse %s", at,
				    v, fwd_reason_str(r));
			if (fo &&
			    (hi != m.dst_hi || lo != m.dst_lo ||
				il != m.ip_len))
				fail_msg("byte %u = %u: fast and parse "
					 "disagree on the meta",
				    at, v);
			fast_ok += fo;
			free(f);
		}
	/* most single-byte changes keep a good packet good */
	assert_true(fast_ok > 10000);
}

static void
test_reason_names(void **st)
{
	static const struct {
		enum fwd_reason r;
		const char *name;
		bool slow;
	} v6[] = {
	    {FWD_R_IP6_SHORT, "ip6_short", false},
	    {FWD_R_IP6_VERSION, "ip6_version", false},
	    {FWD_R_IP6_LEN, "ip6_len", false},
	    {FWD_R_IP6_MARTIAN, "ip6_martian", false},
	    {FWD_R_IP6_MARTIAN_SRC, "ip6_martian_src", false},
	    {FWD_R_IP6_LINK_LOCAL, "ip6_link_local", false},
	    {FWD_R_IP6_EXT, "ip6_ext_hdr", false},
	    {FWD_R_IP6_HBH_POS, "ip6_hbh_not_first", false},
	    {FWD_R_IP6_HBH, "ip6_hbh", true},
	    {FWD_R_IP6_HLIM, "ip6_hlim_expired", true},
	    {FWD_R_IP6_MCAST, "ip6_mcast_local", true},
	};

	(void)st;
	/* every reason has a name, and no two the same */
	for (unsigned r = 0; r < FWD_R__COUNT; r++) {
		assert_string_not_equal(fwd_reason_str(r), "unknown");
		for (unsigned q = 0; q < r; q++)
			assert_string_not_equal(fwd_reason_str(r),
			    fwd_reason_str(q));
	}
	for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		assert_string_equal(fwd_reason_str(v6[i].r), v6[i].name);
		assert_int_equal(fwd_reason_is_slow(v6[i].r), v6[i].slow);
	}
	/* the extension headers are exactly RFC 8200's and its registry's */
	for (unsigned nh = 0; nh < 256; nh++) {
		bool want = nh == 0 || nh == 43 || nh == 44 || nh == 51 ||
		    nh == 60 || nh == 135 || nh == 139 || nh == 140 ||
		    nh == 253 || nh == 254;

		assert_int_equal(fwd_ip6_nh_is_ext(nh), want);
		assert_int_equal(fwd_ip6_nh_floor[nh], want ? 255 : 1);
		assert_int_equal(fwd_ip6_addr_floor[nh],
		    nh == 0 || nh >= 0xfe ? 255 : 1);
	}
	/* the IPv4 reasons keep their numbers */
	assert_int_equal(FWD_R_MCAST, 23);
	assert_int_equal(FWD_R_IP6_SHORT, 24);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ok),
	    cmocka_unit_test(test_short_type_l2),
	    cmocka_unit_test(test_version_len),
	    cmocka_unit_test(test_martian),
	    cmocka_unit_test(test_link_local),
	    cmocka_unit_test(test_mcast),
	    cmocka_unit_test(test_hlim),
	    cmocka_unit_test(test_ext),
	    cmocka_unit_test(test_fragment_ah),
	    cmocka_unit_test(test_fast_implies_ok),
	    cmocka_unit_test(test_reason_names),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
