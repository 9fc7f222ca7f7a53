/* fwd/fwd_arp.h: slow-path ARP: replies for our addresses, next-hop resolution
 * with bounded queues, aging and refresh, gratuitous ARP, static entries. */
#ifndef FWD_ARP_H
#define FWD_ARP_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_dp.h"
#include "fwd_fib.h"
#include "fwd_icmp.h"
#include "fwd_port.h"

#define FWD_ARP_ADDR_MAX FWD_LOCAL_MAX

enum fwd_neigh_state {
	FWD_NEIGH_FREE = 0,
	FWD_NEIGH_INCOMPLETE, /* broadcast requests sent, packets queued */
	FWD_NEIGH_REACHABLE,  /* MAC known and recently confirmed */
	FWD_NEIGH_PROBE,      /* aged: still used, unicast requests sent */
	FWD_NEIGH_STATIC,     /* from config: never ages */
};

struct fwd_arp_conf {
	unsigned max_neigh;	 /* entries; 0: 4096 */
	unsigned queue_len;	 /* packets waiting per neighbour; 0: 4 */
	unsigned reachable_ms;	 /* valid without refresh; 0: 30000 */
	unsigned retrans_ms;	 /* between requests; 0: 1000 */
	unsigned max_probes;	 /* requests before giving up; 0: 3 */
	struct fwd_local *local; /* kept in step with our addresses */
	/*
	 * Optional: with fib set, a resolved neighbour reached through a
	 * connected (glean) route gets an adjacency (from the adjacency
	 * table's free indices) and a /32 host route, removed when the entry
	 * dies; the adjacency index is reused only after a grace period of
	 * the FIB's qsbr.
	 */
	struct fwd_fib *fib;
};

struct fwd_arp_stats {
	uint64_t rx, rx_bad, replies_sent, requests_sent, garps_sent;
	uint64_t resolved, failed, expired;
	uint64_t queued, queue_drops, released;
	uint64_t table_full;
	uint64_t evicted; /* learned entries given up for a static one */
};

/* A neighbour as reported by fwd_arp_walk. */
struct fwd_neigh_info {
	uint32_t ip; /* host order */
	uint16_t port;
	uint8_t mac[6];
	uint8_t state; /* enum fwd_neigh_state */
	uint8_t queued;
	uint64_t expires_ms; /* REACHABLE: when it turns PROBE */
	/* when a reply (or the config) last gave its MAC; INCOMPLETE: when
	 * it was first asked for */
	uint64_t confirmed_ms;
};

struct fwd_arp;

/* NULL + errno EINVAL/ENOMEM. adj is not owned. */
struct fwd_arp *fwd_arp_new(const struct fwd_arp_conf *,
    struct fwd_adj_tbl *adj);
void fwd_arp_free(struct fwd_arp *);

/*
 * Our address ip/plen (host order) on port: answered in ARP, added to
 * conf.local, announced with a gratuitous ARP on out (if out != NULL and the
 * port is known to the adjacency table). 0, -EEXIST, -ENOSPC, -EINVAL.
 */
int fwd_arp_addr_add(struct fwd_arp *, uint16_t port, uint32_t ip,
    unsigned plen, uint64_t now_ms, struct fwd_out *out);
/* 0, -ENOENT. */
int fwd_arp_addr_del(struct fwd_arp *, uint16_t port, uint32_t ip);
/* Our first address on port (the source of ICMP we send there), or 0. */
uint32_t fwd_arp_addr_get(const struct fwd_arp *, uint16_t port);
/* True when ip is one of our addresses (any port). */
bool fwd_arp_is_ours(const struct fwd_arp *, uint32_t ip);
/* Send a gratuitous ARP for every address of port (port came up, MAC
 * changed). Returns how many. */
unsigned fwd_arp_announce(struct fwd_arp *, uint16_t port, struct fwd_out *out);

/*
 * An ARP frame received on port. Requests for our addresses are answered;
 * the sender is learned when the request is for us or when we have an
 * entry for it (RFC 826), and replies complete resolution: adjacencies
 * of the neighbour become FORWARD and its queued packets are sent (TTL
 * decremented, Ethernet rewritten) on out. 0; -EINVAL (malformed);
 * -ENOENT (not for us, ignored).
 */
int fwd_arp_input(struct fwd_arp *, uint16_t port, const uint8_t *frame,
    unsigned len, uint64_t now_ms, struct fwd_out *out);

/*
 * The fast path could not send frame (FWD_R_RESOLVE, aux = adjacency
 * index): resolve the next hop (the adjacency's gateway, or for a glean
 * adjacency the packet's destination), queue a copy of the packet (at most
 * conf.queue_len per neighbour; beyond, the oldest is dropped) and send a
 * request; or, when the neighbour is known, send the packet at once.
 * 0; -EINVAL (bad adjacency or frame); -ENOSPC (table full); -EHOSTUNREACH
 * (the target is one of our own addresses or not on the port's subnets).
 */
int fwd_arp_punt(struct fwd_arp *, uint16_t in_port, unsigned adj_idx,
    const uint8_t *frame, unsigned len, uint64_t now_ms, struct fwd_out *out);

/*
 * Same, for an explicit next hop ip on port (in_port: where the packet came
 * in, for the ICMP error if resolution fails); frame may be NULL to resolve
 * without a packet.
 */
int fwd_arp_resolve(struct fwd_arp *, uint16_t port, uint32_t ip,
    uint16_t in_port, const uint8_t *frame, unsigned len, uint64_t now_ms,
    struct fwd_out *out);

/* A MAC a static neighbour may have: unicast, not all zero. */
bool fwd_arp_mac_ok(const uint8_t *mac);

/* Static neighbour (never ages, not replaced by ARP; an entry of ip learned
 * before becomes static). A full table gives up a learned entry for it
 * (stats.evicted). 0, -ENOSPC (the table holds only static entries),
 * -EINVAL (mac NULL, multicast or zero; ip 0; bad port). */
int fwd_arp_static_add(struct fwd_arp *, uint16_t port, uint32_t ip,
    const uint8_t *mac, uint64_t now_ms, struct fwd_out *out);
/* 0, -ENOENT. */
int fwd_arp_static_del(struct fwd_arp *, uint16_t port, uint32_t ip);

/*
 * Timers, called by the control thread (every 100 ms or so): retransmit
 * requests, give up on unresolved neighbours after max_probes (their queued
 * packets get ICMP host unreachable through icmp, if not NULL, from our
 * address on the port), move expired entries to PROBE with unicast
 * requests, delete entries whose probes went unanswered, finish deferred
 * adjacency releases. Returns the number of entries that changed state.
 */
unsigned fwd_arp_tick(struct fwd_arp *, uint64_t now_ms, struct fwd_icmp *icmp,
    struct fwd_out *out);

/* Forget everything learned on port (port down or removed). */
void fwd_arp_port_flush(struct fwd_arp *, uint16_t port);

/* Look up one neighbour. 0 and *info, or -ENOENT. */
int fwd_arp_get(const struct fwd_arp *, uint16_t port, uint32_t ip,
    struct fwd_neigh_info *info);
/* Call cb for each neighbour; stops at cb's first nonzero return value. */
int fwd_arp_walk(const struct fwd_arp *,
    int (*cb)(const struct fwd_neigh_info *, void *), void *arg);
const struct fwd_arp_stats *fwd_arp_stats(const struct fwd_arp *);

#endif /* FWD_ARP_H */
