/* fwd/fwd_pkt6.h: IPv6 header layout and the fast path's checks (RFC 8200,
 * RFC 4291 scopes): a quick test for the common case and a full parse that
 * says why a packet is not forwarded. */
#ifndef FWD_PKT6_H
#define FWD_PKT6_H

#include "fwd_pkt.h"

#define FWD_ETH_P_IPV6	   0x86DD
#define FWD_IPV6_HLEN	   40
#define FWD_IPV6_MIN_FRAME (FWD_ETH_HLEN + FWD_IPV6_HLEN)

/* Byte offsets into the IPv6 header. */
#define FWD_IP6_VTC  0 /* version 4 bits, traffic class 8, flow label 20 */
#define FWD_IP6_PLEN 4 /* payload length: what follows the 40 bytes */
#define FWD_IP6_NXT  6 /* next header */
#define FWD_IP6_HLIM 7 /* hop limit */
#define FWD_IP6_SRC  8
#define FWD_IP6_DST  24

/* Next header values (IANA "Assigned Internet Protocol Numbers"; the
 * extension headers are RFC 8200 4's and those of its registry). */
#define FWD_IP6_NH_HOPOPTS  0
#define FWD_IP6_NH_ROUTING  43
#define FWD_IP6_NH_FRAGMENT 44
#define FWD_IP6_NH_ESP	    50
#define FWD_IP6_NH_AH	    51
#define FWD_IP6_NH_ICMPV6   58
#define FWD_IP6_NH_NONE	    59
#define FWD_IP6_NH_DSTOPTS  60
#define FWD_IP6_NH_MOBILITY 135
#define FWD_IP6_NH_HIP	    139
#define FWD_IP6_NH_SHIM6    140
#define FWD_IP6_NH_EXP1	    253
#define FWD_IP6_NH_EXP2	    254

/* The most extension headers the full parse walks (each is 8 bytes or
 * more); a longer chain is forwarded without looking further. */
#define FWD_IP6_EXT_MAX 16

/*
 * The fast test's floors, by byte (fwd_pkt6.c). fwd_ip6_addr_floor[the
 * first byte of an address]: 255 for 0x00 (::, ::1, ::ffff:0:0/96 and the
 * rest of ::/8), 0xfe (fe80::/10; fec0::/10 with it) and 0xff (multicast),
 * else 1. fwd_ip6_nh_floor[next header]: 255 for the extension headers
 * (Hop-by-Hop first of them), else 1. The hop limit must be above all
 * three (source, destination, next header): one compare sends both an
 * expiring hop limit and anything the full parse must look at to it.
 */
extern const uint8_t fwd_ip6_addr_floor[256];
extern const uint8_t fwd_ip6_nh_floor[256];

/* True for the next header values that are extension headers (RFC 8200 4,
 * the IPv6 Extension Header Types registry): what the full parse walks. */
static inline bool
fwd_ip6_nh_is_ext(unsigned nh)
{
	return (fwd_ip6_nh_floor[nh & 0xff] != 1);
}

/* Host-order halves of an address at p (16 bytes). */
static inline uint64_t
fwd_ip6_hi(const uint8_t *p)
{
	return (__builtin_bswap64(fwd_ld64(p)));
}
static inline uint64_t
fwd_ip6_lo(const uint8_t *p)
{
	return (__builtin_bswap64(fwd_ld64(p + 8)));
}

#define FWD_IP6_V4MAPPED_HI 0ull
#define FWD_IP6_V4MAPPED_LO 0x0000ffff00000000ull /* ::ffff:0:0/96 */

/* Never a destination to forward to (RFC 4291 2.5.2, 2.5.3, 2.5.5.2, 2.7):
 * the unspecified ::, the loopback ::1, IPv4-mapped ::ffff:0:0/96, and
 * multicast ff00::/8 (unicast-forwarded: tern routes no multicast). */
static inline bool
fwd_ip6_dst_martian(uint64_t hi, uint64_t lo)
{
	return ((hi == 0 && (lo <= 1 || (lo >> 32) == 0xffff)) ||
	    (hi >> 56) == 0xff);
}

/* Never a source to forward from: the same set (a multicast source is
 * never valid, RFC 4291 2.7; :: only in a DAD probe, which is link-local
 * multicast and never forwarded, 2.5.2). */
static inline bool
fwd_ip6_src_martian(uint64_t hi, uint64_t lo)
{
	return (fwd_ip6_dst_martian(hi, lo));
}

/* fe80::/10: link-local unicast, never forwarded (RFC 4291 2.5.6). */
static inline bool
fwd_ip6_linklocal(uint64_t hi)
{
	return ((hi >> 54) == (0xfe80ull >> 6));
}

/* Result of fwd_pkt6_parse(): where the packet is and what it is to. */
struct fwd_pkt6_meta {
	uint8_t *ip;	  /* IPv6 header in the frame */
	uint64_t dst_hi;  /* destination, host order, first 8 bytes */
	uint64_t dst_lo;  /* and the last 8 */
	uint16_t ip_len;  /* 40 + payload length (the frame may be longer) */
	uint16_t l4_off;  /* offset from ip of the upper-layer header (or
			      where the walk stopped: ESP, a non-first
			      fragment's data, FWD_IP6_EXT_MAX) */
	uint8_t l4_proto; /* its next header value */
	uint8_t hlim;	  /* hop limit as received */
};

/* The reasons after which *m is filled (fwd_pkt6_parse): the caller makes
 * its for-us test on those before counting the reason (its own link-local
 * address; a ping or a Neighbor Solicitation to one of its addresses with
 * hop limit 1 or a Hop-by-Hop header is taken, not refused). */
static inline bool
fwd_pkt6_has_meta(enum fwd_reason r)
{
	return (r == FWD_R_OK || r == FWD_R_IP6_LINK_LOCAL ||
	    r == FWD_R_IP6_HBH || r == FWD_R_IP6_HLIM);
}

/*
 * Walks the extension header chain from next header nh at off (from ip)
 * to end (40 + payload length, inside the frame). Returns FWD_R_OK with
 * *l4_off and *l4_proto set, FWD_R_IP6_HBH_POS for a Hop-by-Hop header after
 * the first place (RFC 8200 4.1: "restricted to appear immediately after
 * an IPv6 header"), FWD_R_IP6_EXT for a header that runs past the payload
 * (a first fragment without the whole chain among them, RFC 7112 5; and a
 * jumbogram's payload length 0, RFC 2675, which no Ethernet frame holds). Stops,
 * without looking further, at an upper-layer header, ESP, No Next Header,
 * unknown values (RFC 8200 4: not for a router to judge), a fragment with
 * a non-zero offset (what follows is data), and after FWD_IP6_EXT_MAX
 * headers.
 */
static inline enum fwd_reason
fwd_pkt6_ext_walk(const uint8_t *ip, unsigned end, unsigned nh,
    unsigned *l4_off, unsigned *l4_proto)
{
	unsigned off = FWD_IPV6_HLEN;

	for (unsigned n = 0; n < FWD_IP6_EXT_MAX && fwd_ip6_nh_is_ext(nh);
	     n++) {
		unsigned hl;

		if (nh == FWD_IP6_NH_HOPOPTS && n > 0)
			return (FWD_R_IP6_HBH_POS);
		if (off + 8 > end)
			return (FWD_R_IP6_EXT);
		if (nh == FWD_IP6_NH_FRAGMENT) {
			hl = 8;
			if ((ntohs(fwd_ld16(ip + off + 2)) & 0xfff8) != 0) {
				/* not the first fragment: data follows */
				nh = ip[off];
				off += hl;
				break;
			}
		} else if (nh == FWD_IP6_NH_AH)
			hl = (ip[off + 1] + 2u) * 4u; /* RFC 4302 2.2 */
		else
			hl = (ip[off + 1] + 1u) * 8u;
		if (off + hl > end)
			return (FWD_R_IP6_EXT);
		nh = ip[off];
		off += hl;
	}
	*l4_off = off;
	*l4_proto = nh;
	return (FWD_R_OK);
}

/*
 * The full check of a frame: Ethernet type 0x86DD (else FWD_R_ETHERTYPE;
 * FWD_R_SHORT under 14 bytes), FWD_R_IP6_SHORT under 54, destination MAC
 * (ours, or 33:33 + the low 32 bits of a multicast destination, RFC 2464
 * 7; else FWD_R_L2_DST), version 6, payload length within the frame
 * (Ethernet padding after it is fine), then: a multicast frame of link
 * scope (ff02::/16: Neighbor Discovery, MLD, RS/RA) is FWD_R_IP6_MCAST for
 * the slow path, any other multicast FWD_R_L2_DST; martian destination,
 * martian source, the extension header chain (fwd_pkt6_ext_walk), a
 * link-local source or destination (FWD_R_IP6_LINK_LOCAL), a Hop-by-Hop
 * header (FWD_R_IP6_HBH, slow: RFC 8200 4.3, routers process it), hop
 * limit 0 or 1 (FWD_R_IP6_HLIM, slow: Time Exceeded). The first that
 * applies is returned; *m is filled for FWD_R_OK and the three last ones
 * (fwd_pkt6_has_meta), else left alone. Reads nothing past frame + len.
 */
static inline enum fwd_reason
fwd_pkt6_parse(uint8_t *frame, unsigned len, const uint8_t *port_mac,
    struct fwd_pkt6_meta *m)
{
	uint8_t *ip = frame + FWD_ETH_HLEN;
	uint64_t dhi, dlo, shi, slo;
	unsigned plen, nh, l4_off, l4_proto;
	bool mcast_l2;
	enum fwd_reason r;

	if (__builtin_expect(len < FWD_ETH_HLEN, 0))
		return (FWD_R_SHORT);
	if (__builtin_expect(fwd_ld16(frame + FWD_ETH_TYPE) !=
		    htons(FWD_ETH_P_IPV6),
		0))
		return (FWD_R_ETHERTYPE);
	if (__builtin_expect(len < FWD_IPV6_MIN_FRAME, 0))
		return (FWD_R_IP6_SHORT);
	mcast_l2 = fwd_ld16(frame) == htons(0x3333);
	if (!mcast_l2 &&
	    (fwd_ld32(frame) != fwd_ld32(port_mac) ||
		fwd_ld16(frame + 4) != fwd_ld16(port_mac + 4)))
		return (FWD_R_L2_DST);
	if (__builtin_expect((ip[FWD_IP6_VTC] >> 4) != 6, 0))
		return (FWD_R_IP6_VERSION);
	plen = ntohs(fwd_ld16(ip + FWD_IP6_PLEN));
	if (__builtin_expect(plen > len - FWD_IPV6_MIN_FRAME, 0))
		return (FWD_R_IP6_LEN);
	dhi = fwd_ip6_hi(ip + FWD_IP6_DST);
	dlo = fwd_ip6_lo(ip + FWD_IP6_DST);
	if (__builtin_expect(mcast_l2, 0)) {
		/* the group MAC must be this group's, RFC 2464 7 */
		if ((dhi >> 56) != 0xff ||
		    fwd_ld32(frame + 2) != fwd_ld32(ip + FWD_IP6_DST + 12))
			return (FWD_R_L2_DST);
		return (((dhi >> 48) & 0x0f) == 0x2 ? FWD_R_IP6_MCAST :
						      FWD_R_L2_DST);
	}
	if (__builtin_expect(fwd_ip6_dst_martian(dhi, dlo), 0))
		return (FWD_R_IP6_MARTIAN);
	shi = fwd_ip6_hi(ip + FWD_IP6_SRC);
	slo = fwd_ip6_lo(ip + FWD_IP6_SRC);
	if (__builtin_expect(fwd_ip6_src_martian(shi, slo), 0))
		return (FWD_R_IP6_MARTIAN_SRC);
	nh = ip[FWD_IP6_NXT];
	l4_off = FWD_IPV6_HLEN;
	l4_proto = nh;
	if (__builtin_expect(fwd_ip6_nh_is_ext(nh), 0) &&
	    (r = fwd_pkt6_ext_walk(ip, FWD_IPV6_HLEN + plen, nh, &l4_off,
		 &l4_proto)) != FWD_R_OK)
		return (r);
	m->ip = ip;
	m->dst_hi = dhi;
	m->dst_lo = dlo;
	m->ip_len = (uint16_t)(FWD_IPV6_HLEN + plen);
	m->l4_off = (uint16_t)l4_off;
	m->l4_proto = (uint8_t)l4_proto;
	m->hlim = ip[FWD_IP6_HLIM];
	if (__builtin_expect(fwd_ip6_linklocal(dhi) || fwd_ip6_linklocal(shi),
		0))
		return (FWD_R_IP6_LINK_LOCAL);
	if (__builtin_expect(nh == FWD_IP6_NH_HOPOPTS, 0))
		return (FWD_R_IP6_HBH);
	if (__builtin_expect(m->hlim <= 1, 0))
		return (FWD_R_IP6_HLIM);
	return (FWD_R_OK);
}

/*
 * The common case in few instructions: an untagged IPv6 frame to mac64 (our
 * MAC in the low 48 bits of a little-endian load, as fwd_pkt_fast_ok_k),
 * version 6, payload length within the frame, next header not an extension
 * header, hop limit above 1, and neither address in ::/8, fe00::/8 or
 * ff00::/8 (fwd_ip6_addr_floor: martians, link-local and multicast among
 * them, and a few good addresses the full parse then forwards). True
 * implies fwd_pkt6_parse() == FWD_R_OK; on true *dst_hi, *dst_lo (host
 * order) and *iplen (40 + payload length) are set, on false nothing is
 * known and fwd_pkt6_parse() tells why. Reads the first 54 bytes only
 * when len >= 54. The _k form takes the two tables: fwd_ip6_nh_floor and
 * fwd_ip6_addr_floor, or copies of them that the caller addresses from a
 * register it has (as fwd_dp does with fwd_ttl_floor's).
 */
static inline bool
fwd_pkt6_fast_ok_k(const uint8_t *f, unsigned len, uint64_t mac64,
    const uint8_t *nh_floor, const uint8_t *addr_floor, uint64_t *dst_hi,
    uint64_t *dst_lo, unsigned *iplen)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint8_t *ip = f + FWD_ETH_HLEN;
	unsigned plen;

	if (__builtin_expect(len < FWD_IPV6_MIN_FRAME, 0))
		return (false);
	/* type 0x86dd and version 6 in one compare */
	if (__builtin_expect((fwd_ld32(f + FWD_ETH_TYPE) & 0x00f0ffffu) !=
		    0x0060dd86u,
		0))
		return (false);
	if (__builtin_expect(((fwd_ld64(f) ^ mac64) << 16) != 0, 0))
		return (false);
	plen = ntohs(fwd_ld16(ip + FWD_IP6_PLEN));
	if (__builtin_expect(plen > len - FWD_IPV6_MIN_FRAME, 0))
		return (false);
	if (__builtin_expect(ip[FWD_IP6_HLIM] <=
		    (nh_floor[ip[FWD_IP6_NXT]] | addr_floor[ip[FWD_IP6_SRC]] |
			addr_floor[ip[FWD_IP6_DST]]),
		0))
		return (false);
	*dst_hi = fwd_ip6_hi(ip + FWD_IP6_DST);
	*dst_lo = fwd_ip6_lo(ip + FWD_IP6_DST);
	*iplen = FWD_IPV6_HLEN + plen;
	return (true);
#else
	(void)f;
	(void)len;
	(void)mac64;
	(void)nh_floor;
	(void)addr_floor;
	(void)dst_hi;
	(void)dst_lo;
	(void)iplen;
	return (false);
#endif
}

/* fwd_pkt6_fast_ok_k with the global tables. */
static inline bool
fwd_pkt6_fast_ok(const uint8_t *f, unsigned len, uint64_t mac64,
    uint64_t *dst_hi, uint64_t *dst_lo, unsigned *iplen)
{
	return (fwd_pkt6_fast_ok_k(f, len, mac64, fwd_ip6_nh_floor,
	    fwd_ip6_addr_floor, dst_hi, dst_lo, iplen));
}

/* Decrement the hop limit (the caller checked it is above 1): IPv6 has no
 * header checksum to update (RFC 8200 3). */
static inline void
fwd_ip6_hlim_dec(uint8_t *ip)
{
	ip[FWD_IP6_HLIM]--;
}

#endif /* FWD_PKT6_H */
