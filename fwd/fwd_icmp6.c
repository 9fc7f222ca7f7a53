/* fwd/fwd_icmp6.c: ICMPv6 replies and errors (RFC 4443), built as frames for
 * the slow path to send. */
#include <errno.h>
#include <string.h>

#include "fwd_icmp6.h"

int
fwd_icmp6_init(struct fwd_icmp6 *ic, struct fwd_icmp *rl)
{
	if (ic == NULL || rl == NULL)
		return (-EINVAL);
	memset(ic, 0, sizeof(*ic));
	ic->rl = rl;
	return (0);
}

static uint64_t
icmp6_pseudo(const uint8_t *src, const uint8_t *dst, unsigned len)
{
	uint64_t sum = fwd_cksum_add(src, 16, 0);

	sum = fwd_cksum_add(dst, 16, sum);
	sum += htonl(len);
	sum += htonl(FWD_IP6_NH_ICMPV6);
	return (sum);
}

uint16_t
fwd_icmp6_cksum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *l4,
    unsigned len)
{
	return ((uint16_t)~fwd_cksum_fold(
	    fwd_cksum_add(l4, len, icmp6_pseudo(src, dst, len))));
}

bool
fwd_icmp6_cksum_ok(const uint8_t src[16], const uint8_t dst[16],
    const uint8_t *l4, unsigned len)
{
	return (fwd_cksum_fold(fwd_cksum_add(l4, len,
		    icmp6_pseudo(src, dst, len))) == 0xffff);
}

/* The IPv6 header of a received frame: 40 + payload length (within the
 * frame), or 0 when it is not one. */
static unsigned
icmp6_ip_ok(const uint8_t *frame, unsigned len)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned plen;

	if (len < FWD_IPV6_MIN_FRAME ||
	    fwd_ld16(frame + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV6) ||
	    (ip[FWD_IP6_VTC] >> 4) != 6)
		return (0);
	plen = ntohs(fwd_ld16(ip + FWD_IP6_PLEN));
	if (plen > len - FWD_IPV6_MIN_FRAME)
		return (0);
	return (FWD_IPV6_HLEN + plen);
}

/* Ethernet back to the sender, and the IPv6 header of a message of plen
 * bytes from src to dst; returns the ICMPv6 message's place. */
static uint8_t *
icmp6_hdr(struct fwd_icmp6 *ic, uint8_t *o, const uint8_t *frame,
    const uint8_t *src, const uint8_t *dst, unsigned plen)
{
	uint8_t *ip = o + FWD_ETH_HLEN;

	memcpy(o, frame + FWD_ETH_SRC, 6);
	memcpy(o + 6, frame + FWD_ETH_DST, 6);
	o[12] = FWD_ETH_P_IPV6 >> 8;
	o[13] = FWD_ETH_P_IPV6 & 0xff;
	fwd_st32(ip, htonl(0x60000000u));
	fwd_st16(ip + FWD_IP6_PLEN, htons((uint16_t)plen));
	ip[FWD_IP6_NXT] = FWD_IP6_NH_ICMPV6;
	ip[FWD_IP6_HLIM] = ic->rl->conf.ttl;
	/* src may be the received packet's dst: both copied before use */
	memmove(ip + FWD_IP6_SRC, src, 16);
	memmove(ip + FWD_IP6_DST, dst, 16);
	return (ip + FWD_IPV6_HLEN);
}

int
fwd_icmp6_local(struct fwd_icmp6 *ic, uint16_t port, const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned iplen, l4_off, l4_proto, mlen;
	uint8_t *o, *m;

	if ((iplen = icmp6_ip_ok(frame, len)) == 0 ||
	    fwd_pkt6_ext_walk(ip, iplen, ip[FWD_IP6_NXT], &l4_off, &l4_proto) !=
		FWD_R_OK) {
		ic->st.bad++;
		return (-EINVAL);
	}
	if (l4_proto == FWD_IPPROTO_UDP || l4_proto == FWD_IPPROTO_TCP)
		return (fwd_icmp6_error(ic, FWD_ICMP6_UNREACH,
		    FWD_ICMP6_UNREACH_PORT, 0, port, ip + FWD_IP6_DST, frame,
		    len, now_ms, out));
	if (l4_proto != FWD_IP6_NH_ICMPV6) {
		/* the Next Header field that names it: only without
		 * extension headers (with them, which one is ambiguous
		 * after a fragment or ESP: not answered) */
		if (l4_off != FWD_IPV6_HLEN)
			return (-ENOTSUP);
		return (fwd_icmp6_error(ic, FWD_ICMP6_PARAMPROB,
		    FWD_ICMP6_PARAM_NXT, FWD_IP6_NXT, port, ip + FWD_IP6_DST,
		    frame, len, now_ms, out));
	}
	mlen = iplen - l4_off;
	if (mlen < 8 ||
	    !fwd_icmp6_cksum_ok(ip + FWD_IP6_SRC, ip + FWD_IP6_DST, ip + l4_off,
		mlen)) {
		ic->st.bad++;
		return (-EINVAL);
	}
	if (ip[l4_off] != FWD_ICMP6_ECHO || ip[l4_off + 1] != 0)
		return (-ENOTSUP);
	/* Echo reply (RFC 4443 4.2): the same data, from the address the
	 * request went to, extension headers dropped */
	if ((o = fwd_out_push(out, port, FWD_IPV6_MIN_FRAME + mlen)) == NULL)
		return (-ENOBUFS);
	m = icmp6_hdr(ic, o, frame, ip + FWD_IP6_DST, ip + FWD_IP6_SRC, mlen);
	memcpy(m, ip + l4_off, mlen);
	m[0] = FWD_ICMP6_ECHOREPLY;
	fwd_st16(m + 2, 0);
	fwd_st16(m + 2,
	    fwd_icmp6_cksum(o + FWD_ETH_HLEN + FWD_IP6_SRC,
		o + FWD_ETH_HLEN + FWD_IP6_DST, m, mlen));
	ic->st.echo_replies++;
	return (0);
}

/* RFC 4443 2.4 (e): when no error may be sent about a packet (iplen its
 * length from the IPv6 header). */
static bool
icmp6_error_forbidden(uint8_t type, uint8_t code, const uint8_t *frame,
    unsigned iplen)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	uint64_t shi = fwd_ip6_hi(ip + FWD_IP6_SRC);
	uint64_t slo = fwd_ip6_lo(ip + FWD_IP6_SRC);
	bool exempt = type == FWD_ICMP6_TOOBIG ||
	    (type == FWD_ICMP6_PARAMPROB && code == 2);
	unsigned l4_off, l4_proto;

	/* (e.3), (e.4): a multicast destination, a link-layer multicast or
	 * broadcast frame, but for the two exceptions */
	if (!exempt && (ip[FWD_IP6_DST] == 0xff || (frame[FWD_ETH_DST] & 1)))
		return (true);
	/* (e.5): a source that names no single node: ::, multicast (and
	 * the other martians: ::1, IPv4-mapped) */
	if (fwd_ip6_src_martian(shi, slo))
		return (true);
	/* (e.1), (e.2): about an error message or a Redirect */
	if (fwd_pkt6_ext_walk(ip, iplen, ip[FWD_IP6_NXT], &l4_off, &l4_proto) ==
		FWD_R_OK &&
	    l4_proto == FWD_IP6_NH_ICMPV6) {
		if (l4_off + 1 > iplen)
			return (true); /* not even a type: no telling */
		if (ip[l4_off] < FWD_ICMP6_INFO_FIRST ||
		    ip[l4_off] == FWD_ICMP6_REDIRECT)
			return (true);
	}
	return (false);
}

int
fwd_icmp6_error(struct fwd_icmp6 *ic, uint8_t type, uint8_t code,
    uint32_t param, uint16_t port, const uint8_t src[16], const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned iplen, quote, mlen;
	uint8_t *o, *m;

	if ((iplen = icmp6_ip_ok(frame, len)) == 0) {
		ic->st.bad++;
		return (-EINVAL);
	}
	if (src == NULL || icmp6_error_forbidden(type, code, frame, iplen)) {
		ic->st.suppressed++;
		return (-EPERM);
	}
	if (!fwd_icmp_allow(ic->rl, now_ms)) {
		ic->st.rate_limited++;
		return (-EAGAIN);
	}
	/* (c): as much of the packet as fits in the minimum MTU */
	quote = iplen;
	if (quote > FWD_ICMP6_ERR_MAX - FWD_IPV6_HLEN - 8)
		quote = FWD_ICMP6_ERR_MAX - FWD_IPV6_HLEN - 8;
	mlen = 8 + quote;
	if ((o = fwd_out_push(out, port, FWD_IPV6_MIN_FRAME + mlen)) == NULL)
		return (-ENOBUFS);
	m = icmp6_hdr(ic, o, frame, src, ip + FWD_IP6_SRC, mlen);
	m[0] = type;
	m[1] = code;
	fwd_st16(m + 2, 0);
	/* the MTU (3.2) or the pointer (3.4); unused (0) otherwise */
	fwd_st32(m + 4, htonl(param));
	memcpy(m + 8, ip, quote);
	fwd_st16(m + 2,
	    fwd_icmp6_cksum(o + FWD_ETH_HLEN + FWD_IP6_SRC,
		o + FWD_ETH_HLEN + FWD_IP6_DST, m, mlen));
	ic->st.errors_sent++;
	return (0);
}
