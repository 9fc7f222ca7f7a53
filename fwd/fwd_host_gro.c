/* fwd/fwd_host_gro.c: the host path's receive coalescing (fwd_host_gro.h).
 *
 * The rules are those of the kernel's own TCP GRO, so that what the kernel
 * receives is what it would have built itself: IPv4 without options, not a
 * fragment, TCP with data and no flag but ACK (PSH ends a run), the same
 * addresses, ports, TOS, TTL, DF, acknowledgement, window and TCP options
 * (timestamps included) as the first segment, each sequence number where
 * the last ended, every segment but the last as long as the first. A
 * segment whose IPv4 or TCP checksum fails is never merged: it goes up as
 * it came and the kernel drops and counts it as it would have.
 */
#include "fwd_host_gro.h"

#include <string.h>

#include <arpa/inet.h>

#include "fwd_pkt.h"

#define TCP_PSH 0x08
#define TCP_ACK 0x10

/* TCP header offsets */
#define TH_SEQ	 4
#define TH_ACK	 8
#define TH_OFF	 12
#define TH_FLAGS 13
#define TH_WIN	 14
#define TH_SUM	 16

#define L3 FWD_ETH_HLEN
#define L4 (FWD_ETH_HLEN + FWD_IPV4_HLEN)

/* The sum of the IPv4 pseudo-header of a tcplen-byte TCP segment. */
static uint64_t
pseudo_sum(const uint8_t *ip, unsigned tcplen)
{
	return (fwd_cksum_add(ip + FWD_IP_SRC, 8, 0) + htons(FWD_IPPROTO_TCP) +
	    htons((uint16_t)tcplen));
}

/* The frame's TCP payload bytes when it may be merged (0 otherwise), its
 * frame length without Ethernet padding in *flen. */
static unsigned
segment(const uint8_t *f, unsigned len, unsigned *flen, unsigned *thl)
{
	const uint8_t *ip = f + L3, *th = f + L4;
	unsigned tl, pay;

	if (len < L4 + 20 ||
	    fwd_ld16(f + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV4) ||
	    ip[FWD_IP_VHL] != 0x45 || ip[FWD_IP_PROTO] != FWD_IPPROTO_TCP ||
	    (fwd_ld16(ip + FWD_IP_OFF) & htons(FWD_IP_MF | FWD_IP_OFFMASK)) !=
		0)
		return (0);
	tl = ntohs(fwd_ld16(ip + FWD_IP_LEN));
	*thl = (unsigned)(th[TH_OFF] >> 4) * 4;
	if (tl > len - L3 || *thl < 20 || tl <= FWD_IPV4_HLEN + *thl)
		return (0);
	if ((th[TH_FLAGS] & ~(TCP_ACK | TCP_PSH)) != 0 ||
	    !(th[TH_FLAGS] & TCP_ACK))
		return (0);
	pay = tl - FWD_IPV4_HLEN - *thl;
	if (!fwd_ipv4_cksum_ok(ip, FWD_IPV4_HLEN) ||
	    fwd_cksum_fold(fwd_cksum_add(th, tl - FWD_IPV4_HLEN,
		pseudo_sum(ip, tl - FWD_IPV4_HLEN))) != 0xffff)
		return (0);
	*flen = L3 + tl;
	return (pay);
}

/* True when segment f (thl bytes of TCP header) continues what g holds. */
static bool
continues(const struct fwd_gro *g, const uint8_t *f, unsigned thl, unsigned pay)
{
	const uint8_t *h = g->buf + FWD_GRO_VNET_LEN;
	const uint8_t *hip = h + L3, *ip = f + L3;
	const uint8_t *hth = h + L4, *th = f + L4;

	if (g->closed || pay > g->mss || g->hlen != L4 + thl ||
	    g->len + pay > FWD_GRO_FRAME_MAX)
		return (false);
	/* Ethernet header; TOS; fragment field (DF); TTL and protocol */
	if (memcmp(h, f, FWD_ETH_HLEN) != 0 ||
	    hip[FWD_IP_TOS] != ip[FWD_IP_TOS] ||
	    fwd_ld16(hip + FWD_IP_OFF) != fwd_ld16(ip + FWD_IP_OFF) ||
	    fwd_ld16(hip + FWD_IP_TTL) != fwd_ld16(ip + FWD_IP_TTL) ||
	    fwd_ld64(hip + FWD_IP_SRC) != fwd_ld64(ip + FWD_IP_SRC))
		return (false);
	/* ports; sequence; acknowledgement; window; options */
	if (fwd_ld32(hth) != fwd_ld32(th) ||
	    ntohl(fwd_ld32(th + TH_SEQ)) != g->next_seq ||
	    fwd_ld32(hth + TH_ACK) != fwd_ld32(th + TH_ACK) ||
	    fwd_ld16(hth + TH_WIN) != fwd_ld16(th + TH_WIN) ||
	    memcmp(hth + 20, th + 20, thl - 20) != 0)
		return (false);
	return (true);
}

bool
fwd_gro_offer(struct fwd_gro *g, uint16_t port, const uint8_t *frame,
    unsigned len)
{
	uint8_t *h = g->buf + FWD_GRO_VNET_LEN;
	unsigned flen = 0, thl = 0, pay;
	bool psh;

	if ((pay = segment(frame, len, &flen, &thl)) == 0)
		return (false);
	psh = (frame[L4 + TH_FLAGS] & TCP_PSH) != 0;
	if (g->len == 0) {
		memcpy(h, frame, flen);
		g->len = flen;
		g->segs = 1;
		g->bytes = len;
		g->mss = pay;
		g->hlen = L4 + thl;
		g->next_seq = ntohl(fwd_ld32(frame + L4 + TH_SEQ)) + pay;
		g->closed = psh;
		g->port = port;
		return (true);
	}
	if (g->port != port || !continues(g, frame, thl, pay))
		return (false);
	memcpy(h + g->len, frame + L4 + thl, pay);
	g->len += pay;
	g->segs++;
	g->bytes += len;
	g->next_seq += pay;
	if (psh)
		h[L4 + TH_FLAGS] |= TCP_PSH;
	g->closed = psh || pay < g->mss;
	return (true);
}

unsigned
fwd_gro_finish(struct fwd_gro *g)
{
	struct virtio_net_hdr *v = (struct virtio_net_hdr *)g->buf;
	uint8_t *h = g->buf + FWD_GRO_VNET_LEN, *ip = h + L3;
	unsigned n = g->len;

	if (n == 0)
		return (0);
	memset(v, 0, sizeof(*v));
	if (g->segs > 1) {
		unsigned tcplen = n - L4;

		fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)(n - L3)));
		fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
		/* checksum left to do (CHECKSUM_PARTIAL): the field holds the
		 * pseudo-header's sum, as a NIC's TSO expects; the kernel
		 * does not verify it for a local socket (each segment's was
		 * verified above) and completes it if it sends the frame on */
		fwd_st16(h + L4 + TH_SUM,
		    fwd_cksum_fold(pseudo_sum(ip, tcplen)));
		v->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		v->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		v->hdr_len = (uint16_t)g->hlen;
		v->gso_size = (uint16_t)g->mss;
		v->csum_start = L4;
		v->csum_offset = TH_SUM;
	}
	g->len = 0;
	return (FWD_GRO_VNET_LEN + n);
}
