/* fwd/fwd_nd.h: slow-path IPv6 Neighbour Discovery (RFC 4861) and Duplicate
 * Address Detection (RFC 4862) for tern-fwd: the neighbour cache per port
 * with its five states and timers, NS/NA, bounded queues of packets waiting
 * for resolution, our addresses (global and link-local, each DAD-checked),
 * static neighbours, and Router Advertisements. Control thread only, as
 * fwd_arp (its IPv4 model). Addresses are 16 bytes in network order. */
#ifndef FWD_ND_H
#define FWD_ND_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_dp.h"
#include "fwd_fib6.h"
#include "fwd_pkt6.h"
#include "fwd_port.h"

#define FWD_ND_ADDR_MAX \
	1088 /* our IPv6 addresses: 64 ports x (16 + a link-local) */
#define FWD_ND_RA_PFX_MAX 8 /* prefixes in one port's RA */

/* ICMPv6 types of ND (RFC 4861 4). */
#define FWD_ND_RS	133
#define FWD_ND_RA	134
#define FWD_ND_NS	135
#define FWD_ND_NA	136
#define FWD_ND_REDIRECT 137

/* Neighbour cache states (RFC 4861 7.3.2), and STATIC from config. */
enum fwd_nd_state {
	FWD_ND_FREE = 0,
	FWD_ND_INCOMPLETE, /* multicast NS sent, packets queued */
	FWD_ND_REACHABLE,  /* confirmed within ReachableTime */
	FWD_ND_STALE,	   /* not confirmed lately; used as is */
	FWD_ND_DELAY,	   /* used while STALE: wait for upper-layer hints */
	FWD_ND_PROBE,	   /* unicast NS sent */
	FWD_ND_STATIC,	   /* from config: never ages */
};

/* Our address's state (RFC 4862 5.4). */
enum fwd_nd_addr_state {
	FWD_ND_A_TENTATIVE = 1, /* DAD running: not used, not answered */
	FWD_ND_A_PREFERRED,	/* DAD passed (or off): in use */
	FWD_ND_A_DUPLICATE,	/* another node has it: refused */
};

/* Why fwd_nd_input refused a frame (stats.bad[]): one counter each. */
enum fwd_nd_bad {
	FWD_ND_BAD_FRAME = 0, /* short, not IPv6, payload past the frame */
	FWD_ND_BAD_PORT,      /* no such port, or IPv6 disabled on it */
	FWD_ND_BAD_HLIM,      /* hop limit not 255 (7.1.1, 7.1.2, 6.1) */
	FWD_ND_BAD_CSUM,      /* ICMPv6 checksum */
	FWD_ND_BAD_CODE,      /* ICMP code not 0 */
	FWD_ND_BAD_LEN,	      /* ICMP length under the message's minimum */
	FWD_ND_BAD_OPT,	      /* an option of length 0, or past the end */
	FWD_ND_BAD_TARGET,    /* target multicast (NS, NA) */
	FWD_ND_BAD_SRC,	      /* :: source with a SLLA option, or to a non
				 solicited-node destination (NS); RA from a
				 non-link-local source; multicast source */
	FWD_ND_BAD_DST,	      /* NA solicited to a multicast destination */
	FWD_ND_BAD_EXT,	      /* an extension header before ICMPv6 */
	FWD_ND_BAD_MAX,
};

/* A neighbour as reported by fwd_nd_walk / fwd_nd_get. */
struct fwd_nd_info {
	uint8_t ip6[16];
	uint16_t port;
	uint8_t mac[6];
	uint8_t state; /* enum fwd_nd_state */
	uint8_t queued;
	bool router;	     /* its last NA had R set (or an RA came from it) */
	uint64_t expires_ms; /* when the state's timer runs out (0: none) */
	/* when a solicited NA (or the config) last confirmed it; INCOMPLETE:
	 * when it was first solicited */
	uint64_t confirmed_ms;
};

struct fwd_nd_conf {
	unsigned max_neigh;    /* entries; 0: 4096 */
	unsigned queue_len;    /* packets waiting per entry; 0: 4 (16 max) */
	unsigned reachable_ms; /* BaseReachableTime; 0: 30000 */
	unsigned retrans_ms;   /* RetransTimer; 0: 1000 */
	unsigned max_mcast_solicit;    /* 0: 3 */
	unsigned max_ucast_solicit;    /* 0: 3 */
	unsigned delay_first_probe_ms; /* 0: 5000 */
	unsigned dad_transmits;	       /* DupAddrDetectTransmits; 0: 1 */
	unsigned gc_stale_ms;	       /* a STALE entry nothing uses is
					  deleted after; 0: 600000 */
	bool no_dad;		       /* addresses are in use at once */
	uint32_t seed;		       /* of the randomised timers; 0: fixed */
	/*
	 * Optional, as fwd_arp_conf.fib: a neighbour resolved through a
	 * connected (glean) route gets an adjacency and a /128 host route
	 * in fib6, removed (after a grace period of its qsbr) when the entry
	 * dies.
	 */
	struct fwd_fib6 *fib6;
	/* Milliseconds on a monotonic clock (the caller's loop time, or a
	 * test's fake clock). Required. */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	/*
	 * Resolution failed: frame (the queued packet as it came in on
	 * in_port) gets ICMPv6 Destination Unreachable code 3 (address
	 * unreachable) from the caller (fwd_icmp6). NULL: dropped, counted.
	 */
	void (*unreach)(void *arg, uint16_t in_port, const uint8_t *frame,
	    unsigned len, struct fwd_out *out);
	void *unreach_arg;
	/*
	 * An address of ours changed state (DAD passed: PREFERRED; another
	 * node has it: DUPLICATE, mac the other node's; deleted: 0). The
	 * caller pins a /128 of the address to a LOCAL adjacency while
	 * PREFERRED, and logs a DUPLICATE with the interface's name. NULL:
	 * fwd_nd logs a DUPLICATE itself (with the port id).
	 */
	void (*addr_event)(void *arg, uint16_t port, const uint8_t ip6[16],
	    unsigned plen, int state, const uint8_t *mac);
	void *addr_arg;
	/* A neighbour changed state (new, resolved, aged, gone: FWD_ND_FREE).
	 * NULL: none. */
	void (*neigh_event)(void *arg, const struct fwd_nd_info *info);
	void *neigh_arg;
};

struct fwd_nd_stats {
	uint64_t rx, rx_ns, rx_na, rx_rs, rx_ra, rx_other;
	uint64_t bad[FWD_ND_BAD_MAX]; /* enum fwd_nd_bad */
	uint64_t ns_sent, na_sent, ra_sent, dad_sent;
	uint64_t dad_ok, dad_dup;
	uint64_t addr_conflict; /* an NA from elsewhere for one in use */
	uint64_t resolved, failed, expired;
	uint64_t queued, queue_drops, released, unreach;
	uint64_t table_full, evicted;
};

/* Our address as reported by fwd_nd_addr_walk. */
struct fwd_nd_addr_info {
	uint8_t ip6[16];
	uint8_t plen;
	uint16_t port;
	uint8_t state; /* enum fwd_nd_addr_state */
	bool link_local;
	bool derived; /* the link-local from the MAC (EUI-64) */
};

/* One prefix of an RA (Prefix Information option, RFC 4861 4.6.2). */
struct fwd_nd_ra_prefix {
	uint8_t prefix[16];
	uint8_t len;
	bool autonomous, on_link;
	uint32_t valid_s;     /* 0: 2592000 */
	uint32_t preferred_s; /* 0: 604800 */
};

/* Router Advertisements of one port (fwd.proto RaConfig; RFC 4861 6.2.1). */
struct fwd_nd_ra_conf {
	bool enabled;
	unsigned interval_max_s;    /* MaxRtrAdvInterval 4..1800; 0: 600 */
	unsigned router_lifetime_s; /* 0: 1800 (>= 3 x max 4..9000 not
				       enforced: the config checks it) */
	unsigned mtu;		    /* MTU option; 0: none */
	unsigned hop_limit;	    /* Cur Hop Limit; 0: 64 */
	bool managed, other;	    /* M, O flags */
	/* none: one /64 (A and L set) per global address of the port */
	struct fwd_nd_ra_prefix prefix[FWD_ND_RA_PFX_MAX];
	unsigned nprefix;
};

struct fwd_nd;

/* NULL + errno EINVAL (no clock, no adj) / ENOMEM. adj is not owned: port
 * MACs, MTUs and states are read from it. */
struct fwd_nd *fwd_nd_new(const struct fwd_nd_conf *, struct fwd_adj_tbl *adj);
void fwd_nd_free(struct fwd_nd *);

/* ---- our addresses ---- */

/*
 * Our address ip6/plen (1..128, not multicast, ::, ::1, link-local: see
 * fwd_nd_ll_set) on port. Tentative until DAD (one NS from :: to its
 * solicited-node group, then RetransTimer with no answer) passes, then
 * PREFERRED (addr_event). 0, -EEXIST (already on port), -ENOSPC, -EINVAL.
 * DAD starts when the port is present (now or at fwd_nd_port_up).
 */
int fwd_nd_addr_add(struct fwd_nd *, uint16_t port, const uint8_t ip6[16],
    unsigned plen, struct fwd_out *out);
/* 0, -ENOENT. Global addresses only (the link-local: fwd_nd_ll_set). */
int fwd_nd_addr_del(struct fwd_nd *, uint16_t port, const uint8_t ip6[16]);
/* State of our address ip6 on port: enum fwd_nd_addr_state, or -ENOENT. */
int fwd_nd_addr_state(const struct fwd_nd *, uint16_t port,
    const uint8_t ip6[16]);
/* Calls cb for each of our addresses (all states); stops at cb's first
 * nonzero value and returns it. */
int fwd_nd_addr_walk(const struct fwd_nd *,
    int (*cb)(const struct fwd_nd_addr_info *, void *), void *arg);

/* The link-local address from a MAC: fe80::/64 with the modified EUI-64
 * interface identifier (RFC 4291 2.5.1 and appendix A). */
void fwd_nd_ll_from_mac(const uint8_t mac[6], uint8_t ip6[16]);

/*
 * The port's link-local address: ll6 (fe80::/64, a unicast interface id),
 * or NULL for the one derived from the port's MAC (fwd_nd_ll_from_mac; it
 * follows a MAC change at fwd_nd_port_up; a port not yet known to the
 * adjacency table gets it then). Replaces the previous one; DAD as for
 * any address. 0, -EINVAL (not fe80::/64, interface id 0, bad port).
 */
int fwd_nd_ll_set(struct fwd_nd *, uint16_t port, const uint8_t *ll6,
    struct fwd_out *out);
/* The port's link-local address in use (PREFERRED): false if none. */
bool fwd_nd_ll_get(const struct fwd_nd *, uint16_t port, uint8_t ll6[16]);

/*
 * IPv6 off on port (IfConfig.ipv6_disabled) or back on: off deletes every
 * address of the port (link-local too), its RA (a final one sent) and its
 * learned neighbours; input on it is refused (FWD_ND_BAD_PORT).
 */
void fwd_nd_port_disable(struct fwd_nd *, uint16_t port, bool off,
    struct fwd_out *out);

/*
 * The port came up or changed MAC (after fwd_adj_port_set): re-derive a
 * derived link-local, restart DAD of its tentative addresses, and send an
 * unsolicited RA if enabled.
 */
void fwd_nd_port_up(struct fwd_nd *, uint16_t port, struct fwd_out *out);

/* Is ip6 one of ours in use (not tentative) on any port? */
bool fwd_nd_is_ours(const struct fwd_nd *, const uint8_t ip6[16]);

/* Source address for a packet of ours out port toward dst (link-local for
 * a link-local or multicast dst, else the port's global in dst's prefix,
 * else its first global, else its link-local): false if none. */
bool fwd_nd_src_for(const struct fwd_nd *, uint16_t port, const uint8_t dst[16],
    uint8_t src[16]);

/* ---- the protocol ---- */

/*
 * An IPv6 ND/RS/RA frame (whole Ethernet frame) received on port: parsed,
 * validated (RFC 4861 6.1.1, 6.1.2, 7.1.1, 7.1.2), acted on; replies go to
 * out. NS for our address: an NA (R set; S set unless the NS came
 * from ::, then to ff02::1; O set); NS/NA for a tentative address: DAD
 * failure (the address DUPLICATE, logged); NA: updates the cache (7.2.5); RS: a solicited RA (delayed
 * 0..500 ms, MAX_RA_DELAY_TIME) when RAs are on. 0; -EINVAL (malformed,
 * counted in stats.bad[]); -ENOENT (valid but not for us: ignored).
 */
int fwd_nd_input(struct fwd_nd *, uint16_t port, const uint8_t *frame,
    unsigned len, struct fwd_out *out);

/*
 * A packet whose IPv6 adjacency adj_idx (K_NH: resolve its IPv6 gateway;
 * K_GLEAN: resolve the packet's dst) is not resolved: queue it (at most
 * conf.queue_len per neighbour; beyond, the oldest dropped), solicit; or
 * send it at once when the neighbour is known (hop limit decremented, MAC
 * rewritten; STALE becomes DELAY). 0; -EINVAL (bad adjacency or frame);
 * -ENOSPC (table full); -EHOSTUNREACH (the target is ours, or not on link).
 */
int fwd_nd_punt(struct fwd_nd *, uint16_t in_port, unsigned adj_idx,
    const uint8_t *frame, unsigned len, struct fwd_out *out);

/* Same, for an explicit neighbour ip6 on port; frame may be NULL to resolve
 * without a packet. */
int fwd_nd_resolve(struct fwd_nd *, uint16_t port, const uint8_t ip6[16],
    uint16_t in_port, const uint8_t *frame, unsigned len, struct fwd_out *out);

/* ---- static neighbours ---- */

/* Never ages, not changed by NAs; a learned entry becomes static. A full
 * table gives up a learned entry (stats.evicted). 0, -ENOSPC, -EINVAL (mac
 * multicast or zero; ip6 multicast, ::, or one of ours; bad port). */
int fwd_nd_static_add(struct fwd_nd *, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac, struct fwd_out *out);
/* 0, -ENOENT. */
int fwd_nd_static_del(struct fwd_nd *, uint16_t port, const uint8_t ip6[16]);

/* ---- Router Advertisements ---- */

/*
 * Set port's RA config (NULL or !enabled: off). On: an RA at once and
 * the first MAX_INITIAL_RTR_ADVERTISEMENTS (3) at most 16 s apart, then
 * every MinRtrAdvInterval..MaxRtrAdvInterval (uniformly random; min = max /
 * 3), RSs answered. Off after on: one final RA with router lifetime 0
 * (RFC 4861 6.2.5). 0, -EINVAL (interval, prefix length, mtu < 1280).
 */
int fwd_nd_ra_set(struct fwd_nd *, uint16_t port, const struct fwd_nd_ra_conf *,
    struct fwd_out *out);
bool fwd_nd_ra_enabled(const struct fwd_nd *, uint16_t port);
/* What fwd_nd_ra_set refuses: 0 or -EINVAL. */
int fwd_nd_ra_check(const struct fwd_nd_ra_conf *);
/* Shutting down: a final RA (lifetime 0) on every port with RAs on. */
void fwd_nd_shutdown(struct fwd_nd *, struct fwd_out *out);

/* ---- timers, tables ---- */

/*
 * Timers, called by the control thread every 100 ms or so: NS
 * retransmissions, INCOMPLETE failing after MAX_MULTICAST_SOLICIT (queued
 * packets to conf.unreach), REACHABLE -> STALE after ReachableTime,
 * DELAY -> PROBE after DELAY_FIRST_PROBE_TIME, PROBE failing after
 * MAX_UNICAST_SOLICIT, DAD completion, RA sending. Returns the number of
 * neighbours and addresses that changed state.
 */
unsigned fwd_nd_tick(struct fwd_nd *, struct fwd_out *out);

/* Forget everything learned on port (port down or removed); its addresses
 * and statics stay. */
void fwd_nd_port_flush(struct fwd_nd *, uint16_t port);

/* ReachableTime now in use (randomised 0.5..1.5 x BaseReachableTime,
 * recomputed every few hours as RFC 4861 6.3.4 says). */
unsigned fwd_nd_reachable_ms(const struct fwd_nd *);

/* Look up one neighbour. 0 and *info, or -ENOENT. */
int fwd_nd_get(const struct fwd_nd *, uint16_t port, const uint8_t ip6[16],
    struct fwd_nd_info *info);
/* Calls cb for each neighbour; stops at cb's first nonzero value. */
int fwd_nd_walk(const struct fwd_nd *,
    int (*cb)(const struct fwd_nd_info *, void *), void *arg);
const struct fwd_nd_stats *fwd_nd_stats(const struct fwd_nd *);

/* A MAC a neighbour may have: unicast, not zero (fwd_arp_mac_ok). */
bool fwd_nd_mac_ok(const uint8_t *mac);

#endif /* FWD_ND_H */
