/* tests/unit/fwd/fwd_test_frames.h: crafted Ethernet/IPv4/IPv6/ARP frames for
 * fwd's tests, fuzzers and benchmark. */
#ifndef FWD_TEST_FRAMES_H
#define FWD_TEST_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "fwd/fwd_pkt.h"

static const uint8_t tf_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* 198.18.a.b in host order */
#define TF_IP(a, b) (0xc6120000u | ((uint32_t)(a) << 8) | (uint32_t)(b))

/*
 * An Ethernet + IPv4 frame with paylen bytes of payload (a counting
 * pattern, or a UDP-like header for proto 17). Returns the frame length.
 */
static inline unsigned
tf_ipv4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t src,
    uint32_t dst, uint8_t ttl, uint8_t proto, unsigned paylen, uint16_t off)
{
	uint8_t *ip = f + FWD_ETH_HLEN;
	unsigned len = FWD_IPV4_HLEN + paylen;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, FWD_IPV4_HLEN);
	ip[FWD_IP_VHL] = 0x45;
	fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)len));
	fwd_st16(ip + FWD_IP_ID, htons(0x1234));
	fwd_st16(ip + FWD_IP_OFF, htons(off));
	ip[FWD_IP_TTL] = ttl;
	ip[FWD_IP_PROTO] = proto;
	fwd_st32(ip + FWD_IP_SRC, htonl(src));
	fwd_st32(ip + FWD_IP_DST, htonl(dst));
	for (unsigned i = 0; i < paylen; i++)
		ip[FWD_IPV4_HLEN + i] = (uint8_t)i;
	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
	return (FWD_ETH_HLEN + len);
}

/* 2001:2:0:a::b (inside 2001:2::/48, the IPv6 benchmarking range) */
static inline void
tf_ip6(uint8_t *a, uint16_t x, uint16_t y)
{
	static const uint8_t pfx[6] = {0x20, 0x01, 0x00, 0x02, 0x00, 0x00};

	memset(a, 0, 16);
	memcpy(a, pfx, 6);
	a[6] = (uint8_t)(x >> 8);
	a[7] = (uint8_t)x;
	a[14] = (uint8_t)(y >> 8);
	a[15] = (uint8_t)y;
}

/*
 * An Ethernet + IPv6 frame (type 0x86dd, traffic class 0, flow label
 * 0x12345) with next header nh and paylen bytes of payload (a counting
 * pattern). Returns the frame length.
 */
static inline unsigned
tf_ipv6(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
    const uint8_t *src, const uint8_t *dst, uint8_t hlim, uint8_t nh,
    unsigned paylen)
{
	uint8_t *ip = f + FWD_ETH_HLEN;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	fwd_st32(ip, htonl(0x60012345u));
	fwd_st16(ip + 4, htons((uint16_t)paylen));
	ip[6] = nh;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	for (unsigned i = 0; i < paylen; i++)
		ip[40 + i] = (uint8_t)i;
	return (FWD_ETH_HLEN + 40 + paylen);
}

/* An ARP request (op 1) or reply (op 2). Returns 42. */
static inline unsigned
tf_arp(uint8_t *f, uint16_t op, const uint8_t *dmac, const uint8_t *smac,
    const uint8_t *sha, uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
	static const uint8_t zero[6];

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	fwd_st16(f + 14, htons(1));
	fwd_st16(f + 16, htons(0x0800));
	f[18] = 6;
	f[19] = 4;
	fwd_st16(f + 20, htons(op));
	memcpy(f + 22, sha, 6);
	fwd_st32(f + 28, htonl(spa));
	memcpy(f + 32, tha ? tha : zero, 6);
	fwd_st32(f + 38, htonl(tpa));
	return (42);
}

#endif /* FWD_TEST_FRAMES_H */
