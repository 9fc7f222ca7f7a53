/* fwd/fwd_slow.c: dispatch of punted packets to ARP, ICMP and fragmentation,
 * and of IPv6 ones to ND and ICMPv6. */
#include <errno.h>

#include "fwd_slow.h"

/* An ICMP echo request, not a fragment: fwd answers it itself (frame
 * passed fwd_pkt_parse: the IPv4 header is in it). */
static bool
slow_is_echo(const uint8_t *frame, unsigned len)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned hlen = (ip[FWD_IP_VHL] & 0xfu) * 4;

	if (ip[FWD_IP_PROTO] != FWD_IPPROTO_ICMP ||
	    (ntohs(fwd_ld16(ip + FWD_IP_OFF)) & (FWD_IP_MF | FWD_IP_OFFMASK)) ||
	    len < FWD_ETH_HLEN + hlen + 1)
		return (false);
	return (ip[hlen] == FWD_ICMP_ECHO);
}

/* An ARP reply (fwd_arp_input checked the rest). */
static bool
slow_is_arp_reply(const uint8_t *frame, unsigned len)
{
	return (len >= 22 && fwd_ld16(frame + 20) == htons(2));
}

/* ---- IPv6 ---- */

/* The upper-layer header of an IPv6 frame (fwd_pkt6_parse passed it):
 * its next header value, and *type the ICMPv6 type (-1: not ICMPv6). */
static unsigned
slow6_l4(const uint8_t *frame, unsigned len, int *type)
{
	const uint8_t *ip = frame + FWD_ETH_HLEN;
	unsigned end = FWD_IPV6_HLEN + ntohs(fwd_ld16(ip + FWD_IP6_PLEN));
	unsigned off, proto;

	*type = -1;
	if (end > len - FWD_ETH_HLEN ||
	    fwd_pkt6_ext_walk(ip, end, ip[FWD_IP6_NXT], &off, &proto) !=
		FWD_R_OK)
		return (256);
	if (proto == FWD_IP6_NH_ICMPV6 && off < end)
		*type = ip[off];
	return (proto);
}

static bool
slow6_is_nd(int type)
{
	return (type >= 133 && type <= 137); /* RS, RA, NS, NA, Redirect */
}

int
fwd_slow_error6(struct fwd_slow *s, uint8_t type, uint8_t code, uint32_t param,
    uint16_t in_port, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out)
{
	uint8_t src[16];
	bool have;

	if (s->icmp6 == NULL || len < FWD_IPV6_MIN_FRAME)
		return (-EINVAL);
	have = s->nd_src != NULL &&
	    s->nd_src(s->nd, in_port, frame + FWD_ETH_HLEN + FWD_IP6_SRC, src);
	return (fwd_icmp6_error(s->icmp6, type, code, param, in_port,
	    have ? src : NULL, frame, len, now_ms, out));
}

int
fwd_slow_input6(struct fwd_slow *s, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out)
{
	int type;
	unsigned proto;

	if (s->icmp6 == NULL || len < FWD_IPV6_MIN_FRAME)
		return (-EINVAL);
	switch (why) {
	case FWD_R_IP6_MCAST:
	case FWD_R_LOCAL:
		proto = slow6_l4(frame, len, &type);
		if (slow6_is_nd(type))
			return (s->nd_input != NULL ?
				s->nd_input(s->nd, in_port, frame, len, out) :
				-ENOENT);
		if (why == FWD_R_IP6_MCAST)
			/* MLD and the rest of link-scope multicast: the
			 * host's, when it has a way up */
			return (s->host_up != NULL ?
				s->host_up(s->host_arg, in_port, frame, len) :
				-ENOENT);
		if (s->host_up != NULL &&
		    !(proto == FWD_IP6_NH_ICMPV6 && type == FWD_ICMP6_ECHO)) {
			int rv = s->host_up(s->host_arg, in_port, frame, len);

			if (rv != -ENOENT)
				return (rv);
		}
		return (fwd_icmp6_local(s->icmp6, in_port, frame, len, now_ms,
		    out));
	case FWD_R_IP6_HLIM:
		return (fwd_slow_error6(s, FWD_ICMP6_TIMXCEED, 0, 0, in_port,
		    frame, len, now_ms, out));
	case FWD_R_NO_ROUTE:
		return (fwd_slow_error6(s, FWD_ICMP6_UNREACH,
		    FWD_ICMP6_UNREACH_NOROUTE, 0, in_port, frame, len, now_ms,
		    out));
	case FWD_R_REJECT:
		return (fwd_slow_error6(s, FWD_ICMP6_UNREACH,
		    FWD_ICMP6_UNREACH_ADMIN, 0, in_port, frame, len, now_ms,
		    out));
	case FWD_R_MTU_DF:
		return (fwd_slow_error6(s, FWD_ICMP6_TOOBIG, 0, aux, in_port,
		    frame, len, now_ms, out));
	case FWD_R_RESOLVE:
		return (s->nd_punt != NULL ?
			s->nd_punt(s->nd, in_port, aux, frame, len, out) :
			-EHOSTUNREACH);
	default:
		return (-EINVAL);
	}
}

/* ---- IPv4 ---- */

int
fwd_slow_input(struct fwd_slow *s, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out)
{
	uint32_t src;

	if (len >= FWD_ETH_HLEN &&
	    fwd_ld16(frame + FWD_ETH_TYPE) == htons(FWD_ETH_P_IPV6))
		return (fwd_slow_input6(s, in_port, why, aux, frame, len,
		    now_ms, out));
	src = fwd_arp_addr_get(s->arp, in_port);

	switch (why) {
	case FWD_R_ARP: {
		int rv = fwd_arp_input(s->arp, in_port, frame, len, now_ms,
		    out);

		/* also a reply to an address of ours on another port (the
		 * kernel's weak host model asks from any of them) */
		if ((rv == 0 || rv == -ENOENT) && s->host_up != NULL &&
		    slow_is_arp_reply(frame, len))
			(void)s->host_up(s->host_arg, in_port, frame, len);
		return (rv);
	}
	case FWD_R_LOCAL:
		if (s->host_up != NULL && len >= FWD_IPV4_MIN_FRAME &&
		    !slow_is_echo(frame, len)) {
			int rv = s->host_up(s->host_arg, in_port, frame, len);

			if (rv != -ENOENT)
				return (rv);
		}
		return (
		    fwd_icmp_local(s->icmp, in_port, frame, len, now_ms, out));
	case FWD_R_MCAST:
		return (s->host_up != NULL ?
			s->host_up(s->host_arg, in_port, frame, len) :
			-ENOENT);
	case FWD_R_TTL:
		return (fwd_icmp_error(s->icmp, FWD_ICMP_TIMXCEED, 0, 0,
		    in_port, src, frame, len, now_ms, out));
	case FWD_R_NO_ROUTE:
		return (fwd_icmp_error(s->icmp, FWD_ICMP_UNREACH,
		    FWD_ICMP_UNREACH_NET, 0, in_port, src, frame, len, now_ms,
		    out));
	case FWD_R_REJECT:
		return (fwd_icmp_error(s->icmp, FWD_ICMP_UNREACH,
		    FWD_ICMP_UNREACH_HOST, 0, in_port, src, frame, len, now_ms,
		    out));
	case FWD_R_IP_OPT:
		/* aux: the octet in error (dp_options) */
		return (fwd_icmp_error(s->icmp, FWD_ICMP_PARAMPROB, 0,
		    (uint16_t)aux, in_port, src, frame, len, now_ms, out));
	case FWD_R_RESOLVE:
		return (fwd_arp_punt(s->arp, in_port, aux, frame, len, now_ms,
		    out));
	case FWD_R_MTU_DF:
		return (fwd_icmp_error(s->icmp, FWD_ICMP_UNREACH,
		    FWD_ICMP_UNREACH_NEEDFRAG, (uint16_t)aux, in_port, src,
		    frame, len, now_ms, out));
	case FWD_R_MTU_FRAG:
		if (aux >= s->adj->size ||
		    s->adj->ent[aux].action != FWD_ADJ_A_FORWARD)
			return (-EINVAL);
		return (fwd_ip_fragment(s->icmp, &s->adj->ent[aux], frame, len,
		    out));
	default:
		return (-EINVAL);
	}
}
