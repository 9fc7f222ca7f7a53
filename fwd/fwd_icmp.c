/* fwd/fwd_icmp.c: ICMP replies and errors, and IPv4 fragmentation, built as
 * frames for the slow path to send. */
#include <errno.h>
#include <string.h>

#include "fwd_icmp.h"

int
fwd_icmp_init(struct fwd_icmp *ic, const struct fwd_icmp_conf *c)
{
	if (ic == NULL || c == NULL)
		return (-EINVAL);
	memset(ic, 0, sizeof(*ic));
	ic->conf = *c;
	if (ic->conf.rate == 0)
		ic->conf.rate = 100;
	if (ic->conf.burst == 0)
		ic->conf.burst = 50;
	if (ic->conf.ttl == 0)
		ic->conf.ttl = 64;
	ic->tokens_milli = (uint64_t)ic->conf.burst * 1000;
	ic->ip_id = 1;
	return (0);
}

void
fwd_icmp_set_rate(struct fwd_icmp *ic, unsigned rate)
{
	ic->conf.none = rate == 0;
	ic->conf.rate = rate ? rate : 1;
	ic->conf.burst = rate == 0 ? 1 : rate < 50 ? rate : 50;
	ic->tokens_milli = (uint64_t)ic->conf.burst * 1000;
}

bool
fwd_icmp_allow(struct fwd_icmp *ic, uint64_t now_ms)
{
	uint64_t cap = (uint64_t)ic->conf.burst * 1000;

	if (ic->conf.none) {
		ic->st.rate_limited++;
		return (false);
	}
	if (now_ms > ic->last_ms) {
		ic->tokens_milli += (now_ms - ic->last_ms) * ic->conf.rate;
		if (ic->tokens_milli > cap)
			ic->tokens_milli = cap;
	}
	ic->last_ms = now_ms;
	if (ic->tokens_milli < 1000) {
		ic->st.rate_limited++;
		return (false);
	}
	ic->tokens_milli -= 1000;
	return (true);
}

/* Validate the IPv4 header of a received frame; returns hlen or 0. */
static unsigned
icmp_ip_ok(const uint8_t *frame, unsigned len, unsigned *iplen)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned hlen, tl;

	if (len < FWD_IPV4_MIN_FRAME ||
	    fwd_ld16(frame + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV4) ||
	    (ip[0] >> 4) != 4)
		return (0);
	hlen = (ip[0] & 0xf) * 4u;
	tl = ntohs(fwd_ld16(ip + FWD_IP_LEN));
	if (hlen < FWD_IPV4_HLEN || tl < hlen || tl > len - FWD_ETH_HLEN ||
	    !fwd_ipv4_cksum_ok(ip, hlen))
		return (0);
	*iplen = tl;
	return (hlen);
}

/* Ethernet back to the sender: dst = their MAC, src = the MAC they used. */
static void
icmp_eth_back(uint8_t *o, const uint8_t *frame)
{
	memcpy(o, frame + FWD_ETH_SRC, 6);
	memcpy(o + 6, frame + FWD_ETH_DST, 6);
	o[12] = FWD_ETH_P_IPV4 >> 8;
	o[13] = FWD_ETH_P_IPV4 & 0xff;
}

static void
icmp_ip_hdr(struct fwd_icmp *ic, uint8_t *ip, unsigned tl, uint32_t src_n,
    uint32_t dst_n, uint8_t tos)
{
	memset(ip, 0, FWD_IPV4_HLEN);
	ip[FWD_IP_VHL] = 0x45;
	ip[FWD_IP_TOS] = tos;
	fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)tl));
	fwd_st16(ip + FWD_IP_ID, htons(ic->ip_id++));
	ip[FWD_IP_TTL] = ic->conf.ttl;
	ip[FWD_IP_PROTO] = FWD_IPPROTO_ICMP;
	fwd_st32(ip + FWD_IP_SRC, src_n);
	fwd_st32(ip + FWD_IP_DST, dst_n);
	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
}

int
fwd_icmp_local(struct fwd_icmp *ic, uint16_t port, const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned hlen, tl, plen;
	uint8_t *o;
	uint16_t off;

	if ((hlen = icmp_ip_ok(frame, len, &tl)) == 0) {
		ic->st.bad++;
		return (-EINVAL);
	}
	off = ntohs(fwd_ld16(ip + FWD_IP_OFF));
	if (off & (FWD_IP_MF | FWD_IP_OFFMASK)) {
		/* no reassembly: fragments to us are not answered */
		ic->st.suppressed++;
		return (-ENOTSUP);
	}
	if (ip[FWD_IP_PROTO] != FWD_IPPROTO_ICMP) {
		uint8_t code = (ip[FWD_IP_PROTO] == FWD_IPPROTO_UDP ||
				   ip[FWD_IP_PROTO] == FWD_IPPROTO_TCP) ?
		    FWD_ICMP_UNREACH_PORT :
		    FWD_ICMP_UNREACH_PROTO;

		return (fwd_icmp_error(ic, FWD_ICMP_UNREACH, code, 0, port,
		    ntohl(fwd_ld32(ip + FWD_IP_DST)), frame, len, now_ms, out));
	}
	plen = tl - hlen;
	if (plen < 8 ||
	    fwd_cksum_fold(fwd_cksum_add(ip + hlen, plen, 0)) != 0xffff) {
		ic->st.bad++;
		return (-EINVAL);
	}
	if (ip[hlen] != FWD_ICMP_ECHO || ip[hlen + 1] != 0)
		return (-ENOTSUP);
	/* Echo reply: same payload, options dropped. */
	if ((o = fwd_out_push(out, port,
		 FWD_ETH_HLEN + FWD_IPV4_HLEN + plen)) == NULL)
		return (-ENOBUFS);
	icmp_eth_back(o, frame);
	icmp_ip_hdr(ic, o + FWD_ETH_HLEN, FWD_IPV4_HLEN + plen,
	    fwd_ld32(ip + FWD_IP_DST), fwd_ld32(ip + FWD_IP_SRC),
	    ip[FWD_IP_TOS]);
	memcpy(o + FWD_IPV4_MIN_FRAME, ip + hlen, plen);
	o[FWD_IPV4_MIN_FRAME] = FWD_ICMP_ECHOREPLY;
	fwd_st16(o + FWD_IPV4_MIN_FRAME + 2, 0);
	fwd_st16(o + FWD_IPV4_MIN_FRAME + 2,
	    fwd_cksum(o + FWD_IPV4_MIN_FRAME, plen));
	ic->st.echo_replies++;
	return (0);
}

/* RFC 1812 4.3.2.7: when no ICMP error may be sent about a packet. */
static bool
icmp_error_forbidden(const uint8_t *frame, const uint8_t *ip, unsigned hlen,
    unsigned tl)
{
	uint32_t src = ntohl(fwd_ld32(ip + FWD_IP_SRC));
	uint32_t dst = ntohl(fwd_ld32(ip + FWD_IP_DST));
	uint16_t off = ntohs(fwd_ld16(ip + FWD_IP_OFF));

	if (frame[FWD_ETH_DST] & 1) /* link broadcast/multicast */
		return (true);
	if (dst >= 0xe0000000u || (src >> 24) == 0 || (src >> 24) == 127 ||
	    src >= 0xe0000000u)
		return (true);
	if (off & FWD_IP_OFFMASK) /* not the first fragment */
		return (true);
	if (ip[FWD_IP_PROTO] == FWD_IPPROTO_ICMP) {
		uint8_t t;

		if (tl < hlen + 1)
			return (true);
		t = ip[hlen];
		/* only about queries (echo, timestamp, info, mask...) */
		if (t != FWD_ICMP_ECHO && t != 13 && t != 15 && t != 17)
			return (true);
	}
	return (false);
}

int
fwd_icmp_error(struct fwd_icmp *ic, uint8_t type, uint8_t code, uint16_t mtu,
    uint16_t port, uint32_t src, const uint8_t *frame, unsigned len,
    uint64_t now_ms, struct fwd_out *out)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned hlen, tl, quote, total;
	uint8_t *o, *oi, *ic8;

	if ((hlen = icmp_ip_ok(frame, len, &tl)) == 0) {
		ic->st.bad++;
		return (-EINVAL);
	}
	if (icmp_error_forbidden(frame, ip, hlen, tl)) {
		ic->st.suppressed++;
		return (-EPERM);
	}
	if (src == 0) {
		ic->st.suppressed++;
		return (-EPERM); /* no address to speak from */
	}
	if (!fwd_icmp_allow(ic, now_ms))
		return (-EAGAIN);
	quote = tl;
	if (quote > FWD_ICMP_ERR_MAX - FWD_IPV4_HLEN - 8)
		quote = FWD_ICMP_ERR_MAX - FWD_IPV4_HLEN - 8;
	total = FWD_IPV4_HLEN + 8 + quote;
	if ((o = fwd_out_push(out, port, FWD_ETH_HLEN + total)) == NULL)
		return (-ENOBUFS);
	icmp_eth_back(o, frame);
	oi = o + FWD_ETH_HLEN;
	icmp_ip_hdr(ic, oi, total, htonl(src), fwd_ld32(ip + FWD_IP_SRC),
	    ip[FWD_IP_TOS] & 0xfc);
	ic8 = oi + FWD_IPV4_HLEN;
	memset(ic8, 0, 8);
	ic8[0] = type;
	ic8[1] = code;
	if (type == FWD_ICMP_UNREACH && code == FWD_ICMP_UNREACH_NEEDFRAG)
		fwd_st16(ic8 + 6, htons(mtu));
	else if (type == FWD_ICMP_PARAMPROB)
		ic8[4] = (uint8_t)mtu; /* the pointer (RFC 792) */
	memcpy(ic8 + 8, ip, quote);
	fwd_st16(ic8 + 2, fwd_cksum(ic8, 8 + quote));
	ic->st.errors_sent++;
	return (0);
}

int
fwd_ip_fragment(struct fwd_icmp *ic, const struct fwd_adj *a,
    const uint8_t *frame, unsigned len, struct fwd_out *out)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned hlen, tl, data, per, done = 0, n0 = out->n, mtu = a->mtu;
	uint16_t off0;

	if ((hlen = icmp_ip_ok(frame, len, &tl)) == 0 || mtu < 68 ||
	    ip[FWD_IP_TTL] <= 1) {
		ic->st.bad++;
		return (-EINVAL);
	}
	off0 = ntohs(fwd_ld16(ip + FWD_IP_OFF));
	if (off0 & FWD_IP_DF)
		return (-EINVAL);
	data = tl - hlen;
	/*
	 * Every fragment carries the full header (options copied as they
	 * are: fine for the copied-flag options routers see today).
	 */
	per = ((mtu - hlen) / 8) * 8;
	if (per == 0)
		return (-EINVAL);
	while (done < data) {
		unsigned chunk = data - done > per ? per : data - done;
		bool last = done + chunk == data;
		uint16_t off = (uint16_t)((off0 & FWD_IP_OFFMASK) + done / 8);
		uint8_t *o, *oi;

		if (off0 & FWD_IP_MF || !last)
			off |= FWD_IP_MF;
		o = fwd_out_push(out, a->port, FWD_ETH_HLEN + hlen + chunk);
		if (o == NULL) {
			out->n = n0; /* all or nothing */
			return (-ENOBUFS);
		}
		memcpy(o, a->eth, FWD_ETH_HLEN);
		oi = o + FWD_ETH_HLEN;
		memcpy(oi, ip, hlen);
		memcpy(oi + hlen, ip + hlen + done, chunk);
		fwd_st16(oi + FWD_IP_LEN, htons((uint16_t)(hlen + chunk)));
		fwd_st16(oi + FWD_IP_OFF, htons(off));
		oi[FWD_IP_TTL]--;
		fwd_ipv4_cksum_set(oi, hlen);
		done += chunk;
		ic->st.frags_sent++;
	}
	return (0);
}
