/* fwd/fwd_slow.h: the slow path's dispatcher: one punted packet in, frames to
 * send out (ARP, ICMP, fragments). */
#ifndef FWD_SLOW_H
#define FWD_SLOW_H

#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_arp.h"
#include "fwd_icmp.h"
#include "fwd_icmp6.h"
#include "fwd_pkt.h"
#include "fwd_port.h"

/*
 * The host path's way up (fwd_host.c): write a frame that came in on port
 * to that port's host interface. 0, -ENOENT when the port has none (the
 * slow path then handles the frame as without a host path), or another
 * -errno (dropped, counted by the host path).
 */
typedef int fwd_slow_host_fn(void *arg, uint16_t port, const uint8_t *frame,
    unsigned len);

struct fwd_nd;

/*
 * IPv6 Neighbour Discovery as fwd_nd.h has it (fwd_nd_input, fwd_nd_punt,
 * fwd_nd_src_for): the daemon sets them to those with its struct fwd_nd;
 * unit tests of the dispatcher may set their own. NULL: no ND (ND frames
 * dropped, -ENOENT; unresolved IPv6 next hops dropped, -EHOSTUNREACH; no
 * source address for ICMPv6 errors, -EPERM).
 */
typedef int fwd_slow_nd_input_fn(struct fwd_nd *, uint16_t port,
    const uint8_t *frame, unsigned len, struct fwd_out *out);
typedef int fwd_slow_nd_punt_fn(struct fwd_nd *, uint16_t in_port,
    unsigned adj_idx, const uint8_t *frame, unsigned len, struct fwd_out *out);
typedef bool fwd_slow_nd_src_fn(const struct fwd_nd *, uint16_t port,
    const uint8_t dst[16], uint8_t src[16]);

/* What the control thread owns; the dispatcher owns none of it. */
struct fwd_slow {
	struct fwd_arp *arp;
	struct fwd_icmp *icmp;
	struct fwd_icmp6 *icmp6; /* NULL: IPv6 punts refused (-EINVAL) */
	struct fwd_nd *nd;
	fwd_slow_nd_input_fn *nd_input;
	fwd_slow_nd_punt_fn *nd_punt;
	fwd_slow_nd_src_fn *nd_src;
	struct fwd_adj_tbl *adj;
	fwd_slow_host_fn *host_up; /* NULL: no host path */
	void *host_arg;
};

/*
 * Handle a packet the fast path handed over (fwd_dp_punt_fn's why and aux;
 * frame is a copy, in_port where it came in): FWD_R_ARP -> fwd_arp_input;
 * FWD_R_LOCAL -> fwd_icmp_local (echo reply, port/protocol unreachable);
 * FWD_R_TTL -> time exceeded; FWD_R_NO_ROUTE -> net unreachable;
 * FWD_R_RESOLVE -> fwd_arp_punt (queue and resolve); FWD_R_MTU_DF ->
 * fragmentation needed with the next-hop MTU; FWD_R_MTU_FRAG ->
 * fwd_ip_fragment through the adjacency; FWD_R_IP_OPT -> parameter problem
 * with aux as the pointer. With a host path on in_port
 * (docs/hostpath.md): FWD_R_LOCAL but an ICMP echo request goes up to it
 * instead (TCP, UDP, other protocols, fragments, ICMP other than echo);
 * an ARP reply for us goes up too, after fwd_arp_input learnt from it (the
 * kernel resolves its own neighbours); FWD_R_MCAST goes up (dropped,
 * -ENOENT, without one). An IPv6 frame (type 0x86dd) is dispatched by
 * fwd_slow_input6. Frames to send are appended to out. Returns what the handler returned (0 or -errno; a non-zero value
 * means the packet was dropped, already counted by the handler).
 */
int fwd_slow_input(struct fwd_slow *, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out);

/*
 * The IPv6 part: FWD_R_IP6_MCAST (link-scope multicast) and FWD_R_LOCAL
 * that is an ND message (ICMPv6 133..137) -> nd_input; FWD_R_LOCAL ->
 * the host path (but an echo request) or fwd_icmp6_local; FWD_R_IP6_HLIM
 * -> Time Exceeded code 0; FWD_R_NO_ROUTE -> Destination Unreachable
 * code 0; FWD_R_REJECT -> code 1 (administratively prohibited);
 * FWD_R_MTU_DF -> Packet Too Big with aux, the egress MTU;
 * FWD_R_RESOLVE -> nd_punt with aux, the adjacency. Errors come from
 * nd_src's address on in_port toward the packet's source.
 */
int fwd_slow_input6(struct fwd_slow *, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out);

/* An ICMPv6 error of type/code/param about frame (received on in_port),
 * from nd_src's address: what fwd_slow_input6 sends, and Destination
 * Unreachable code 3 when ND gives up on a queued packet. */
int fwd_slow_error6(struct fwd_slow *, uint8_t type, uint8_t code,
    uint32_t param, uint16_t in_port, const uint8_t *frame, unsigned len,
    uint64_t now_ms, struct fwd_out *out);

#endif /* FWD_SLOW_H */
