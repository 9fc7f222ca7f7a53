/* fwd/fwd_pkt.h: Ethernet/IPv4 header layout, parse checks and checksums for
 * the fast path. */
#ifndef FWD_PKT_H
#define FWD_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

/*
 * Every load and store goes through memcpy of a constant size, which compiles
 * to one plain instruction on x86 and keeps the code correct on any buffer
 * alignment (and quiet under UBSan's alignment check).
 */
static inline uint16_t
fwd_ld16(const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return (v);
}

static inline uint32_t
fwd_ld32(const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return (v);
}

static inline uint64_t
fwd_ld64(const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return (v);
}

static inline void
fwd_st16(void *p, uint16_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline void
fwd_st32(void *p, uint32_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline void
fwd_st64(void *p, uint64_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

#define FWD_ETH_ALEN	   6
#define FWD_ETH_HLEN	   14
#define FWD_ETH_P_IPV4	   0x0800
#define FWD_ETH_P_ARP	   0x0806
#define FWD_IPV4_HLEN	   20
#define FWD_IPV4_MIN_FRAME (FWD_ETH_HLEN + FWD_IPV4_HLEN)
#define FWD_IP_DF	   0x4000
#define FWD_IP_MF	   0x2000
#define FWD_IP_OFFMASK	   0x1fff
#define FWD_IPPROTO_ICMP   1
#define FWD_IPPROTO_TCP	   6
#define FWD_IPPROTO_UDP	   17

/* Byte offsets into the Ethernet header. */
#define FWD_ETH_DST  0
#define FWD_ETH_SRC  6
#define FWD_ETH_TYPE 12

/* Byte offsets into the IPv4 header. */
#define FWD_IP_VHL   0
#define FWD_IP_TOS   1
#define FWD_IP_LEN   2
#define FWD_IP_ID    4
#define FWD_IP_OFF   6
#define FWD_IP_TTL   8
#define FWD_IP_PROTO 9
#define FWD_IP_SUM   10
#define FWD_IP_SRC   12
#define FWD_IP_DST   16

/*
 * Why a packet left the fast path. Every packet the fast path does not put
 * on an egress batch is counted under exactly one reason. Reasons marked
 * "slow" are also handed to the slow path (ARP, ICMP, fragmentation);
 * the others are plain drops.
 */
enum fwd_reason {
	FWD_R_OK = 0,	 /* forwarded (not a drop) */
	FWD_R_SHORT,	 /* frame shorter than Ethernet + 20 bytes */
	FWD_R_ETHERTYPE, /* neither IPv4 nor ARP (VLAN tags included) */
	FWD_R_L2_DST,  /* unicast to another MAC, or IPv4 to bcast/mcast MAC */
	FWD_R_VERSION, /* IP version != 4 */
	FWD_R_IHL,     /* IHL < 5 or header beyond the frame */
	FWD_R_CKSUM,   /* bad IPv4 header checksum */
	FWD_R_LEN,     /* total length < IHL*4 or > frame */
	FWD_R_MARTIAN, /* dst 0/8, multicast, class E, broadcast */
	/* src 0/8, 127/8, multicast, class E, broadcast (RFC 1812 5.3.7) */
	FWD_R_MARTIAN_SRC,
	/* slow: a malformed IP option, ICMP parameter problem (aux: the
	 * pointer, RFC 792) */
	FWD_R_IP_OPT,
	FWD_R_TTL,	 /* slow: TTL 0/1, ICMP time exceeded */
	FWD_R_NO_ROUTE,	 /* slow: no FIB entry, ICMP net unreachable */
	FWD_R_BLACKHOLE, /* route to a drop adjacency */
	FWD_R_ADJ_DOWN,	 /* egress port down or adjacency unset */
	FWD_R_LOCAL,	 /* slow: addressed to the router */
	FWD_R_ARP,	 /* slow: ARP frame */
	FWD_R_RESOLVE,	 /* slow: next hop not resolved (queued on ARP) */
	FWD_R_MTU_DF,	 /* slow: over egress MTU with DF, ICMP frag-needed */
	FWD_R_MTU_FRAG,	 /* slow: over egress MTU without DF, fragmented */
	FWD_R_TX_FULL,	 /* egress ring full */
	FWD_R_PUNT_FULL, /* slow path queue full or no slow path */
	FWD_R_REJECT,	 /* slow: reject route, ICMP host unreachable */
	/* slow: to a link-local multicast group (224.0.0.0/24), for the host
	 * path (its kernel keeps the groups it joined) */
	FWD_R_MCAST,
	/* IPv6 (fwd_pkt6.h), after the IPv4 ones so that those keep their
	 * values; the IPv4 parse returns none of them */
	FWD_R_IP6_SHORT,   /* frame shorter than Ethernet + 40 bytes */
	FWD_R_IP6_VERSION, /* type 0x86dd, version != 6 */
	FWD_R_IP6_LEN,	   /* 40 + payload length > frame */
	/* dst ::, ::1, ::ffff:0:0/96, or multicast on our unicast MAC */
	FWD_R_IP6_MARTIAN,
	FWD_R_IP6_MARTIAN_SRC, /* src ::, ::1, ::ffff:0:0/96, multicast */
	/* src or dst link-local (fe80::/10), not ours: never forwarded */
	FWD_R_IP6_LINK_LOCAL,
	/* an extension header beyond the payload (RFC 7112: a first fragment
	 * without the whole chain) */
	FWD_R_IP6_EXT,
	FWD_R_IP6_HBH_POS, /* Hop-by-Hop header not first (RFC 8200 4.1) */
	FWD_R_IP6_HBH,	   /* slow: Hop-by-Hop options (RFC 8200 4.3) */
	FWD_R_IP6_HLIM,	   /* slow: hop limit 0/1, ICMPv6 time exceeded */
	/* slow: to a link-scope group (ff02::/16: ND, MLD, RS/RA) on its
	 * 33:33 MAC */
	FWD_R_IP6_MCAST,
	FWD_R__COUNT
};

/* Short lower-case name of a reason, for counters shown to operators. */
const char *fwd_reason_str(enum fwd_reason);

/* True for the reasons whose packets are handed to the slow path. */
static inline bool
fwd_reason_is_slow(enum fwd_reason r)
{
	return (r == FWD_R_TTL || r == FWD_R_NO_ROUTE || r == FWD_R_LOCAL ||
	    r == FWD_R_ARP || r == FWD_R_RESOLVE || r == FWD_R_MTU_DF ||
	    r == FWD_R_MTU_FRAG || r == FWD_R_REJECT || r == FWD_R_MCAST ||
	    r == FWD_R_IP_OPT || r == FWD_R_IP6_HBH || r == FWD_R_IP6_HLIM ||
	    r == FWD_R_IP6_MCAST);
}

/*
 * One's complement sum of len bytes (RFC 1071), added to sum, not folded.
 * Words are summed in memory order, which makes the folded result correct to
 * store back in memory order whatever the host's byte order.
 */
static inline uint64_t
fwd_cksum_add(const void *buf, size_t len, uint64_t sum)
{
	const uint8_t *p = buf;

	while (len >= 4) {
		sum += fwd_ld32(p);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		sum += fwd_ld16(p);
		p += 2;
		len -= 2;
	}
	if (len) {
		uint16_t last = 0;

		__builtin_memcpy(&last, p, 1);
		sum += last;
	}
	return (sum);
}

/* Fold a 64-bit partial sum to 16 bits with end-around carry. */
static inline uint16_t
fwd_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ((uint16_t)sum);
}

/* The checksum to store for len bytes whose checksum field is zero. */
static inline uint16_t
fwd_cksum(const void *buf, size_t len)
{
	return ((uint16_t)~fwd_cksum_fold(fwd_cksum_add(buf, len, 0)));
}

/* Recompute and store the IPv4 header checksum (hlen bytes of header). */
static inline void
fwd_ipv4_cksum_set(uint8_t *ip, unsigned hlen)
{
	fwd_st16(ip + FWD_IP_SUM, 0);
	fwd_st16(ip + FWD_IP_SUM, fwd_cksum(ip, hlen));
}

/* True when the hlen-byte IPv4 header's checksum verifies. */
static inline bool
fwd_ipv4_cksum_ok(const uint8_t *ip, unsigned hlen)
{
	uint64_t sum;

	if (__builtin_expect(hlen == FWD_IPV4_HLEN, 1))
		sum = (uint64_t)fwd_ld32(ip) + fwd_ld32(ip + 4) +
		    fwd_ld32(ip + 8) + fwd_ld32(ip + 12) + fwd_ld32(ip + 16);
	else
		sum = fwd_cksum_add(ip, hlen, 0);
	return (fwd_cksum_fold(sum) == 0xffff);
}

/*
 * RFC 1624 eqn. 3: the new checksum when one 16-bit word (in host order)
 * changes from old to new; cksum is in host order too.
 * HC' = ~(~HC + ~m + m')
 */
static inline uint16_t
fwd_cksum_update16(uint16_t cksum, uint16_t old, uint16_t new)
{
	uint32_t sum;

	sum = (uint32_t)(uint16_t)~cksum + (uint16_t)~old + new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ((uint16_t)~sum);
}

/*
 * Decrement the TTL (caller checked TTL > 1) and update the checksum
 * incrementally: the TTL/protocol word drops by 0x0100, so per RFC 1624
 * HC' = ~(~HC + ~m + m') = ~(~HC + 0xfeff). Byte swapping commutes with
 * one's complement addition, so on a little-endian host the same update on
 * the word as loaded is ~(~c + 0xfffe), which simplifies to c + 1 with the
 * two wrap cases 0xfffe -> 0 and 0xffff -> 1 (never the -0 of RFC 1141).
 */
static inline void
fwd_ipv4_ttl_dec_w(uint8_t *ip, uint32_t w /* as loaded from ip + 8 */)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (__builtin_expect(w < 0xfffe0000u, 1))
		fwd_st32(ip + FWD_IP_TTL, w + 0xffff); /* ttl - 1, c + 1 */
	else {
		uint32_t c = w >> 16;

		ip[FWD_IP_TTL]--;
		fwd_st16(ip + FWD_IP_SUM, (uint16_t)(c + 1 + ((c + 2) >> 16)));
	}
#else
	uint32_t sum;

	(void)w;
	ip[FWD_IP_TTL]--;
	sum = (uint32_t)(uint16_t)~ntohs(fwd_ld16(ip + FWD_IP_SUM)) + 0xfeff;
	sum = (sum & 0xffff) + (sum >> 16);
	fwd_st16(ip + FWD_IP_SUM, htons((uint16_t)~sum));
#endif
}

/* fwd_ipv4_ttl_dec_w, loading the word itself. */
static inline void
fwd_ipv4_ttl_dec(uint8_t *ip)
{
	/* TTL, protocol and checksum as one word: ttl | proto << 8 | c << 16 */
	fwd_ipv4_ttl_dec_w(ip, fwd_ld32(ip + FWD_IP_TTL));
}

/* Destination addresses never forwarded (RFC 1812 5.3.7): 0/8, 127/8,
 * 224/4 (and 240/4). The FIB's FWD_FIB_F_MARTIAN ranges are the same. */
static inline bool
fwd_ipv4_dst_martian(uint32_t dst_host)
{
	return ((dst_host >> 24) == 0 || (dst_host >> 24) == 127 ||
	    dst_host >= 0xe0000000u);
}

/* Source addresses never forwarded (RFC 1812 5.3.7, and 4.2.2.11's
 * "this network", loopback, multicast, class E, limited broadcast): by the
 * first octet, the same ranges as for destinations. */
static inline bool
fwd_ipv4_src_martian(uint32_t src_host)
{
	return (fwd_ipv4_dst_martian(src_host));
}

/*
 * The fast path's TTL floor by the source's first octet: 1 (a TTL of 0 or 1
 * is not forwarded), or 255 for a martian source, so that the TTL test
 * sends those to the full parse too (which says why): the source check
 * costs one table lookup, not a test of its own (fwd_pkt_fast_ok_k).
 */
extern const uint8_t fwd_ttl_floor[256];

/*
 * An IPv4 frame to a link-local multicast group (224.0.0.0/24, RFC 5771:
 * OSPF, VRRP, RIPv2...) on the group's MAC (01:00:5e:...): what the host
 * path takes up of the frames not to our MAC. Not the fast path's test.
 */
static inline bool
fwd_pkt_ll_mcast(const uint8_t *f, unsigned len)
{
	if (len < FWD_IPV4_MIN_FRAME || f[0] != 0x01 || f[1] != 0x00 ||
	    f[2] != 0x5e ||
	    fwd_ld16(f + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV4) ||
	    (f[FWD_ETH_HLEN + FWD_IP_VHL] >> 4) != 4)
		return (false);
	return ((ntohl(fwd_ld32(f + FWD_ETH_HLEN + FWD_IP_DST)) &
		    0xffffff00u) == 0xe0000000u);
}

/* Result of fwd_pkt_parse(): pointers into the receive buffer. */
struct fwd_pkt_meta {
	uint8_t *ip;	 /* IPv4 header in the frame */
	uint32_t dst;	 /* destination, host order */
	uint16_t ip_len; /* IPv4 total length */
	uint8_t hlen;	 /* header length in bytes */
};

/*
 * Check a received frame for the fast path: Ethernet type and destination
 * MAC (our port's or, for ARP only, broadcast), IPv4 version, IHL, header
 * checksum, total length against the frame, martian destination, then martian
 * source (FWD_R_MARTIAN_SRC). The TTL is
 * checked by the caller after the for-us test (a TTL-1 ping to the router is
 * answered). Fills *m on FWD_R_OK. Returns FWD_R_OK, FWD_R_ARP or the drop
 * reason. Reads nothing past frame + len; IP options are accepted.
 */
static inline enum fwd_reason
fwd_pkt_parse(uint8_t *frame, unsigned len, const uint8_t *port_mac,
    struct fwd_pkt_meta *m)
{
	uint8_t *ip = frame + FWD_ETH_HLEN;
	uint16_t type;
	unsigned vhl, hlen, iplen;

	if (__builtin_expect(len < FWD_IPV4_MIN_FRAME, 0)) {
		if (len >= FWD_ETH_HLEN &&
		    fwd_ld16(frame + FWD_ETH_TYPE) == htons(FWD_ETH_P_ARP))
			return (FWD_R_ARP);
		return (FWD_R_SHORT);
	}
	type = fwd_ld16(frame + FWD_ETH_TYPE);
	if (__builtin_expect(type != htons(FWD_ETH_P_IPV4), 0))
		return (
		    type == htons(FWD_ETH_P_ARP) ? FWD_R_ARP : FWD_R_ETHERTYPE);
	if (__builtin_expect(fwd_ld32(frame) != fwd_ld32(port_mac) ||
		    fwd_ld16(frame + 4) != fwd_ld16(port_mac + 4),
		0))
		return (FWD_R_L2_DST);
	vhl = ip[FWD_IP_VHL];
	if (__builtin_expect(vhl != 0x45, 0)) {
		if ((vhl >> 4) != 4)
			return (FWD_R_VERSION);
		if ((vhl & 0xf) < 5 || (vhl & 0xf) * 4u > len - FWD_ETH_HLEN)
			return (FWD_R_IHL);
	}
	hlen = (vhl & 0xf) * 4u;
	if (__builtin_expect(!fwd_ipv4_cksum_ok(ip, hlen), 0))
		return (FWD_R_CKSUM);
	iplen = ntohs(fwd_ld16(ip + FWD_IP_LEN));
	if (__builtin_expect(iplen > len - FWD_ETH_HLEN || iplen < hlen, 0))
		return (FWD_R_LEN);
	m->ip = ip;
	m->hlen = (uint8_t)hlen;
	m->ip_len = (uint16_t)iplen;
	m->dst = ntohl(fwd_ld32(ip + FWD_IP_DST));
	if (__builtin_expect(fwd_ipv4_dst_martian(m->dst), 0))
		return (FWD_R_MARTIAN);
	if (__builtin_expect(fwd_ipv4_src_martian(
				 ntohl(fwd_ld32(ip + FWD_IP_SRC))),
		0))
		return (FWD_R_MARTIAN_SRC);
	return (FWD_R_OK);
}

/*
 * The common case in few instructions: an untagged IPv4 frame to mac64 (our
 * MAC in the low 48 bits of a little-endian load, see fwd_port.mac), IHL 5,
 * good checksum, total length within the frame. The TTL and the source are
 * the caller's to test, in one compare: the TTL/protocol/checksum word
 * comes back in *ttlw (its low byte the TTL; fwd_ipv4_ttl_dec_w takes it
 * again, so it is loaded once), and the TTL must be above
 * fwd_ttl_floor[the source's first octet] (fwd_pkt_fast_ok, or fwd_dp.c
 * with a copy of the table it addresses from a register it has). The
 * destination is not tested: the FIB (FWD_FIB_F_MARTIAN) has no route for
 * a martian one, and pins the router's own (fwd_local). On true *dst,
 * *iplen and *ttlw are set; on false nothing is known and fwd_pkt_parse()
 * tells why (it may still be a good packet with options).
 * Reads the first 34 bytes only when len >= 34.
 */
static inline bool
fwd_pkt_fast_ok_k(const uint8_t *f, unsigned len, uint64_t mac64,
    uint64_t ck_inv, uint64_t ck_lim, uint32_t *dst, unsigned *iplen,
    uint32_t *ttlw)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint8_t *ip = f + FWD_ETH_HLEN;
	uint64_t sum;
	unsigned tl;
	uint32_t d, w;

	if (__builtin_expect(len < FWD_IPV4_MIN_FRAME, 0))
		return (false);
	/* type 0x0800 and version/IHL 0x45 in one compare */
	if (__builtin_expect((fwd_ld32(f + FWD_ETH_TYPE) & 0x00ffffffu) !=
		    0x00450008u,
		0))
		return (false);
	if (__builtin_expect(((fwd_ld64(f) ^ mac64) << 16) != 0, 0))
		return (false);
	/*
	 * One's complement sum in 64 bits (end-around carry): two 8-byte and
	 * one 4-byte word. It folds to 0xffff <=> it is a multiple of 0xffff
	 * (0xffff divides 2^64 - 1; the sum is never 0 here).
	 */
	{
		uint64_t a = fwd_ld64(ip), c = fwd_ld32(ip + 16);

		sum = a + fwd_ld64(ip + 8);
		sum += sum < a;
		sum += c;
		sum += sum < c;
	}
	/* sum % 0xffff != 0, as a multiply by the inverse (what the compiler
	 * makes of it; the caller may keep the constants in registers) */
	if (__builtin_expect(sum * ck_inv > ck_lim, 0))
		return (false);
	tl = ntohs(fwd_ld16(ip + FWD_IP_LEN));
	/* 20 <= tl <= len - 14, in one unsigned compare */
	if (__builtin_expect(tl - FWD_IPV4_HLEN > len - FWD_IPV4_MIN_FRAME, 0))
		return (false);
	d = ntohl(fwd_ld32(ip + FWD_IP_DST));
	w = fwd_ld32(ip + FWD_IP_TTL);
	*dst = d;
	*iplen = tl;
	*ttlw = w;
	return (true);
#else
	(void)f;
	(void)len;
	(void)mac64;
	(void)ck_inv;
	(void)ck_lim;
	(void)ttlw;
	(void)dst;
	(void)iplen;
	return (false);
#endif
}

/* 0xffff divides x <=> x * FWD_CK_INV <= FWD_CK_LIM (mod 2^64): the
 * inverse of 0xffff and (2^64 - 1) / 0xffff. */
#define FWD_CK_INV 0xfffefffefffeffffull
#define FWD_CK_LIM 0x0001000100010001ull

/* The whole quick test: fwd_pkt_fast_ok_k, and TTL above 1 from a source
 * that is not martian. */
static inline bool
fwd_pkt_fast_ok(const uint8_t *f, unsigned len, uint64_t mac64, uint32_t *dst,
    unsigned *iplen)
{
	uint32_t w;

	return (fwd_pkt_fast_ok_k(f, len, mac64, FWD_CK_INV, FWD_CK_LIM, dst,
		    iplen, &w) &&
	    (uint8_t)w > fwd_ttl_floor[f[FWD_ETH_HLEN + FWD_IP_SRC]]);
}

/*
 * Where the TCP or UDP checksum of a frame is: an Ethernet frame carrying an
 * unfragmented IPv4 TCP or UDP segment that lies within the frame. Sets *l4
 * (offset of the L4 header in the frame), *l4len (its length with the
 * payload, from the IP total length) and *sumoff (the checksum field's
 * offset in the L4 header). False for anything else (the caller leaves the
 * frame alone). Not the fast path's parse: only frames that need their L4
 * checksum looked at come here.
 */
static inline bool
fwd_l4_locate(const uint8_t *f, unsigned len, unsigned *l4, unsigned *l4len,
    unsigned *sumoff)
{
	const uint8_t *ip = f + FWD_ETH_HLEN;
	unsigned hl, tot, min;

	if (len < FWD_IPV4_MIN_FRAME ||
	    fwd_ld16(f + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV4) ||
	    (ip[FWD_IP_VHL] >> 4) != 4)
		return (false);
	hl = (ip[FWD_IP_VHL] & 0x0fu) * 4u;
	tot = ntohs(fwd_ld16(ip + FWD_IP_LEN));
	if (hl < FWD_IPV4_HLEN || tot < hl || FWD_ETH_HLEN + tot > len ||
	    (fwd_ld16(ip + FWD_IP_OFF) & htons(FWD_IP_MF | FWD_IP_OFFMASK)))
		return (false);
	if (ip[FWD_IP_PROTO] == FWD_IPPROTO_TCP) {
		*sumoff = 16;
		min = 20;
	} else if (ip[FWD_IP_PROTO] == FWD_IPPROTO_UDP) {
		*sumoff = 6;
		min = 8;
	} else
		return (false);
	if (tot - hl < min)
		return (false);
	*l4 = FWD_ETH_HLEN + hl;
	*l4len = tot - hl;
	return (true);
}

/* The TCP/UDP pseudo-header's sum (RFC 793 3.1, RFC 768): source,
 * destination, protocol and L4 length, in memory order, folded. */
static inline uint16_t
fwd_l4_pseudo(const uint8_t *ip, unsigned l4len)
{
	uint64_t sum = (uint64_t)fwd_ld32(ip + FWD_IP_SRC) +
	    fwd_ld32(ip + FWD_IP_DST) + htons((uint16_t)ip[FWD_IP_PROTO]) +
	    htons((uint16_t)l4len);

	return (fwd_cksum_fold(sum));
}

/*
 * A frame whose sender left its L4 checksum to the device (Linux's
 * CHECKSUM_PARTIAL: a local sender on a veth with tx checksum offload on,
 * whose frames reach us as sent): the checksum field holds the folded
 * pseudo-header sum. Complete it as the device would (the kernel's
 * skb_checksum_help): the one's complement of the sum of the L4 bytes, that
 * field included; 0 goes as 0xffff. true when filled, false when the frame
 * is no TCP/UDP segment we can fill (left as it is).
 */
static inline void
fwd_l4_csum_fill_at(uint8_t *f, unsigned l4, unsigned l4len, unsigned sumoff)
{
	uint16_t c = (uint16_t)~fwd_cksum_fold(fwd_cksum_add(f + l4, l4len, 0));

	fwd_st16(f + l4 + sumoff, c ? c : 0xffff);
}

static inline bool
fwd_l4_csum_fill(uint8_t *f, unsigned len)
{
	unsigned l4, l4len, sumoff;

	if (!fwd_l4_locate(f, len, &l4, &l4len, &sumoff))
		return (false);
	fwd_l4_csum_fill_at(f, l4, l4len, sumoff);
	return (true);
}

/*
 * For backends that are not told which frames are CHECKSUM_PARTIAL (AF_XDP
 * copies them into the UMEM as they are): a TCP/UDP frame whose checksum
 * field holds exactly the folded pseudo-header sum is taken for one and
 * filled. A complete checksum equal to that value by chance (1 in 65,536)
 * is recomputed to the same value, so a good frame is never changed; the
 * cost is a dozen instructions per frame, and the sum over the payload only
 * for the frames taken for one. true when the checksum changed (it was a
 * partial one).
 */
static inline bool
fwd_l4_csum_fill_partial(uint8_t *f, unsigned len)
{
	unsigned l4, l4len, sumoff;
	uint16_t old;

	if (!fwd_l4_locate(f, len, &l4, &l4len, &sumoff) ||
	    (old = fwd_ld16(f + l4 + sumoff)) !=
		fwd_l4_pseudo(f + FWD_ETH_HLEN, l4len))
		return (false);
	fwd_l4_csum_fill_at(f, l4, l4len, sumoff);
	return (fwd_ld16(f + l4 + sumoff) != old);
}

/* Write a 14-byte Ethernet header (prebuilt in an adjacency) to frame. */
static inline void
fwd_eth_write(uint8_t *frame, const uint8_t *hdr14)
{
	uint64_t a = fwd_ld64(hdr14), b = fwd_ld64(hdr14 + 6);

	fwd_st64(frame, a);
	fwd_st64(frame + 6, b);
}

#endif /* FWD_PKT_H */
