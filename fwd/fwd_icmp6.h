/* fwd/fwd_icmp6.h: slow-path ICMPv6 (RFC 4443): echo reply, Destination
 * Unreachable, Packet Too Big, Time Exceeded, Parameter Problem, rate
 * limited by IPv4's token bucket. */
#ifndef FWD_ICMP6_H
#define FWD_ICMP6_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_icmp.h"
#include "fwd_pkt6.h"
#include "fwd_port.h"

/* Types and codes (RFC 4443 2.1, 3, 4). */
#define FWD_ICMP6_UNREACH    1
#define FWD_ICMP6_TOOBIG     2
#define FWD_ICMP6_TIMXCEED   3
#define FWD_ICMP6_PARAMPROB  4
#define FWD_ICMP6_ECHO	     128
#define FWD_ICMP6_ECHOREPLY  129
#define FWD_ICMP6_REDIRECT   137
#define FWD_ICMP6_INFO_FIRST 128 /* types below are errors (2.1) */

#define FWD_ICMP6_UNREACH_NOROUTE 0
#define FWD_ICMP6_UNREACH_ADMIN	  1
#define FWD_ICMP6_UNREACH_ADDR	  3
#define FWD_ICMP6_UNREACH_PORT	  4
#define FWD_ICMP6_PARAM_NXT	  1 /* unrecognised Next Header */

/* An error message is at most the IPv6 minimum MTU (RFC 4443 2.4 (c)). */
#define FWD_ICMP6_ERR_MAX 1280

struct fwd_icmp6_stats {
	uint64_t echo_replies;
	uint64_t errors_sent;
	uint64_t rate_limited; /* also counted in the IPv4 bucket's */
	uint64_t suppressed;   /* RFC 4443 2.4 (e) forbids it, or no source */
	uint64_t bad;	       /* malformed input, bad ICMPv6 checksum */
};

/*
 * One per control thread, beside IPv4's: errors take tokens from rl's
 * bucket (one rate for both families, fwd_icmp_set_rate), and what we
 * originate has rl's TTL as its hop limit.
 */
struct fwd_icmp6 {
	struct fwd_icmp *rl;
	struct fwd_icmp6_stats st;
};

/* 0, -EINVAL (rl NULL). */
int fwd_icmp6_init(struct fwd_icmp6 *, struct fwd_icmp *rl);

/*
 * The ICMPv6 checksum field's value for the len bytes of an upper-layer
 * message at l4 (its checksum field zero) between src and dst: the
 * pseudo-header of RFC 8200 8.1 (addresses, upper-layer length, next
 * header 58) summed with it.
 */
uint16_t fwd_icmp6_cksum(const uint8_t src[16], const uint8_t dst[16],
    const uint8_t *l4, unsigned len);

/* True when the message of len bytes at l4 between src and dst has a good
 * checksum. */
bool fwd_icmp6_cksum_ok(const uint8_t src[16], const uint8_t dst[16],
    const uint8_t *l4, unsigned len);

/*
 * An IPv6 packet to one of the router's addresses (the whole frame, as
 * received on port; fwd_pkt6_parse passed it, to us). Echo request: an
 * echo reply from the address it was sent to (not rate-limited). UDP or
 * TCP: Destination Unreachable code 4 (port unreachable), so traceroute6
 * ends at the router. Another upper layer with no extension header before
 * it: Parameter Problem code 1 at the Next Header field. 0 when something
 * was queued on out; -EINVAL (malformed, bad checksum), -ENOTSUP (an ICMPv6
 * message we do not answer), -EAGAIN, -EPERM, -ENOBUFS as
 * fwd_icmp6_error.
 */
int fwd_icmp6_local(struct fwd_icmp6 *, uint16_t port, const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out);

/*
 * An ICMPv6 error of type/code about the packet in frame (as received on
 * port: hop limit not yet decremented), from our address src, sent back out
 * port to the frame's source MAC, quoting as much of the packet as fits in
 * FWD_ICMP6_ERR_MAX bytes. param: the MTU for Packet Too Big, the pointer
 * for a Parameter Problem, else 0. Never (RFC 4443 2.4 (e)) about an
 * ICMPv6 error or a Redirect, about a packet to a multicast address or
 * received as link-layer multicast or broadcast (except Packet Too Big and
 * Parameter Problem code 2), or about one whose source is not a unicast
 * address (::, multicast): -EPERM. Rate-limited (2.4 (f)): -EAGAIN.
 * 0 when queued on out; -EINVAL (not IPv6, truncated), -ENOBUFS.
 */
int fwd_icmp6_error(struct fwd_icmp6 *, uint8_t type, uint8_t code,
    uint32_t param, uint16_t port, const uint8_t src[16], const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out);

#endif /* FWD_ICMP6_H */
