/* fwd/fwd_slow.c: dispatch of punted packets to ARP, ICMP and fragmentation. */
#include <errno.h>

#include "fwd_slow.h"

int
fwd_slow_input(struct fwd_slow *s, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out)
{
	uint32_t src = fwd_arp_addr_get(s->arp, in_port);

	switch (why) {
	case FWD_R_ARP:
		return (
		    fwd_arp_input(s->arp, in_port, frame, len, now_ms, out));
	case FWD_R_LOCAL:
		return (
		    fwd_icmp_local(s->icmp, in_port, frame, len, now_ms, out));
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
