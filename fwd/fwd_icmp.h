/* fwd/fwd_icmp.h: slow-path ICMP: echo reply, time exceeded, unreachable (net,
 * host, port, frag-needed), fragmentation, token-bucket rate limit. */
#ifndef FWD_ICMP_H
#define FWD_ICMP_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_pkt.h"
#include "fwd_port.h"

#define FWD_ICMP_ECHOREPLY 0
#define FWD_ICMP_UNREACH   3
#define FWD_ICMP_ECHO	   8
#define FWD_ICMP_TIMXCEED  11
#define FWD_ICMP_PARAMPROB 12

#define FWD_ICMP_UNREACH_NET	  0
#define FWD_ICMP_UNREACH_HOST	  1
#define FWD_ICMP_UNREACH_PROTO	  2
#define FWD_ICMP_UNREACH_PORT	  3
#define FWD_ICMP_UNREACH_NEEDFRAG 4

/* Largest ICMP error datagram (RFC 1812 4.3.2.3: at most 576 bytes). */
#define FWD_ICMP_ERR_MAX 576

struct fwd_icmp_conf {
	unsigned rate;	/* errors per second; 0: 100 */
	unsigned burst; /* bucket depth; 0: 50 */
	uint8_t ttl;	/* of what we originate; 0: 64 */
	bool none;	/* send no errors (fwd_icmp_set_rate(0)) */
};

struct fwd_icmp_stats {
	uint64_t echo_replies;
	uint64_t errors_sent;
	uint64_t rate_limited; /* errors not sent: bucket empty */
	/*
	 * errors RFC 1812 forbids (about an error, a fragment, a
	 * broadcast...)
	 */
	uint64_t suppressed;
	uint64_t bad; /* malformed input */
	uint64_t frags_sent;
};

/*
 * One per control thread (not thread-safe). Times are milliseconds on any
 * monotonic clock the caller reads once per loop turn (ev_now).
 */
struct fwd_icmp {
	struct fwd_icmp_conf conf;
	struct fwd_icmp_stats st;
	uint64_t tokens_milli; /* tokens * 1000 */
	uint64_t last_ms;
	uint16_t ip_id;
};

/* 0 or -EINVAL (conf NULL). */
int fwd_icmp_init(struct fwd_icmp *, const struct fwd_icmp_conf *);

/*
 * Change the rate at run time: errors per second, 0 for none at all (every
 * error is counted as rate-limited). The bucket is refilled to the new depth
 * (min(50, rate)). Replies to echo requests are not limited.
 */
void fwd_icmp_set_rate(struct fwd_icmp *, unsigned rate);

/* Take one token from the bucket: true when an error may be sent now. */
bool fwd_icmp_allow(struct fwd_icmp *, uint64_t now_ms);

/*
 * A packet addressed to the router (frame of len bytes received on port).
 * Echo request: an echo reply to the sender (not rate-limited). UDP or TCP:
 * port unreachable (rate-limited), so traceroute ends at the router. Other
 * protocols: protocol unreachable. The reply goes back out port to the
 * frame's source MAC. 0 when something was queued on out; -EINVAL
 * (malformed, bad ICMP checksum), -EAGAIN (rate limit), -ENOBUFS (out
 * full), -ENOTSUP (an ICMP message we do not answer).
 */
int fwd_icmp_local(struct fwd_icmp *, uint16_t port, const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out);

/*
 * An ICMP error of type/code about the packet in frame (as received on
 * port: TTL not yet decremented), from our address src (host order), sent
 * back out port to the frame's source MAC, quoting as much of the packet as
 * fits in FWD_ICMP_ERR_MAX. mtu is the next-hop MTU for frag-needed
 * (RFC 1191), the pointer for a parameter problem (RFC 792), else 0. 0 when queued on out; -EPERM (RFC 1812 forbids an
 * error about this packet), -EAGAIN (rate limit), -EINVAL, -ENOBUFS.
 */
int fwd_icmp_error(struct fwd_icmp *, uint8_t type, uint8_t code, uint16_t mtu,
    uint16_t port, uint32_t src, const uint8_t *frame, unsigned len,
    uint64_t now_ms, struct fwd_out *out);

/*
 * Fragment the IPv4 packet in frame (DF clear, TTL > 1) for an egress MTU
 * and send the fragments through adjacency a (which must be FORWARD): TTL
 * decremented, Ethernet header a->eth. 0, -EINVAL (DF set, bad header,
 * mtu < 68), -ENOBUFS (out full: nothing queued).
 */
int fwd_ip_fragment(struct fwd_icmp *, const struct fwd_adj *a,
    const uint8_t *frame, unsigned len, struct fwd_out *out);

#endif /* FWD_ICMP_H */
