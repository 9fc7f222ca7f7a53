/* fwd/fwd_slow.h: the slow path's dispatcher: one punted packet in, frames to
 * send out (ARP, ICMP, fragments). */
#ifndef FWD_SLOW_H
#define FWD_SLOW_H

#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_arp.h"
#include "fwd_icmp.h"
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

/* What the control thread owns; the dispatcher owns none of it. */
struct fwd_slow {
	struct fwd_arp *arp;
	struct fwd_icmp *icmp;
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
 * -ENOENT, without one). Frames to send are appended to out. Returns what the handler returned (0 or -errno; a non-zero value
 * means the packet was dropped, already counted by the handler).
 */
int fwd_slow_input(struct fwd_slow *, uint16_t in_port, enum fwd_reason why,
    unsigned aux, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out);

#endif /* FWD_SLOW_H */
