/* fwd/fwd_adj.h: adjacency table, next-hop index -> egress port, prebuilt
 * Ethernet header, MTU, state. */
#ifndef FWD_ADJ_H
#define FWD_ADJ_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_fib.h"
#include "fwd_pkt.h"
#include "fwd_port.h"

/*
 * What the fast path does with a packet whose route points at an adjacency.
 * Only FORWARD sends; the others are derived by the control side from the
 * adjacency's kind, its neighbour state and its port's state, so the fast
 * path tests one byte.
 */
enum fwd_adj_action {
	FWD_ADJ_A_UNSET = 0, /* slot not in use: drop (adj_down) */
	FWD_ADJ_A_FORWARD,   /* rewrite with eth[] and send on port */
	FWD_ADJ_A_RESOLVE,   /* neighbour not resolved: slow path (ARP) */
	FWD_ADJ_A_LOCAL,     /* the router's own address: slow path */
	FWD_ADJ_A_DROP,	     /* blackhole */
	FWD_ADJ_A_DOWN,	     /* egress port down */
	FWD_ADJ_A_GROUP,     /* ECMP: pick a member by flow hash */
	FWD_ADJ_A_REJECT,    /* reject route: slow path, ICMP unreachable */
};

/* Kinds of adjacency as the control side sets them. */
enum fwd_adj_kind {
	FWD_ADJ_K_NONE = 0,
	FWD_ADJ_K_NH,	 /* gateway gw on port (resolved by ARP) */
	FWD_ADJ_K_GLEAN, /* connected subnet on port: resolve the dst */
	FWD_ADJ_K_LOCAL,
	FWD_ADJ_K_DROP,
	FWD_ADJ_K_GROUP,
	FWD_ADJ_K_REJECT,
};

#define FWD_ADJ_GROUP_MAX   16	    /* members of an ECMP group */
#define FWD_ADJ_INDEX_SPACE 0x10000 /* ent[] covers every 16-bit index */

/* 32 bytes, two per cache line. */
struct fwd_adj {
	uint8_t eth[14]; /* dst MAC, src MAC, type 0x0800 */
	uint8_t action;	 /* enum fwd_adj_action, read by workers */
	uint8_t kind;	 /* enum fwd_adj_kind */
	uint16_t port;	 /* egress port id */
	uint16_t mtu;	 /* egress IP MTU */
	uint32_t gw;	 /* next hop, host order (K_NH) */
	uint32_t group;	 /* K_GROUP: members at grp[group*MAX], n in ngrp */
	uint8_t ngrp;
	uint8_t resolved; /* K_NH: eth[0..5] holds the neighbour's MAC */
	/* mtu while action is FORWARD, else 0: the fast path's one test for
	 * both (an IP packet is never 0 bytes long); written after action
	 * when it becomes FORWARD, before it when it stops being so */
	uint16_t fmtu;
};
_Static_assert(sizeof(struct fwd_adj) == 32, "an entry is a power of two");

struct fwd_adj_port {
	uint8_t mac[6];
	uint16_t mtu;
	bool up;
	bool present;
	/* the interface's first address, network order, 0: none; what a
	 * forwarded datagram's Record Route gets (fwd_ipopt). Atomic. */
	uint32_t addr;
};

/*
 * The table. Workers read ent[] and grp[] without locks; the control thread
 * is the only writer. Entries change state through the action byte, written
 * last (release) so a worker that sees FORWARD sees the header and port it
 * was built with.
 */
struct fwd_adj_tbl {
	/* index = FIB next hop; [size, 0xffff] exist and stay UNSET */
	struct fwd_adj *ent;
	unsigned size;
	uint16_t *grp; /* ngroups * FWD_ADJ_GROUP_MAX member ids */
	unsigned ngroups;
	uint8_t *grp_used;
	uint8_t *used; /* allocation map for fwd_adj_alloc */
	/* IPv6 K_NH and K_GLEAN entries (fwd_adj_set_nh6, _glean6): v6[idx]
	 * is 1 and, for K_NH, gw6[idx] their gateway; kept out of the 32-byte
	 * entry the fast path reads (the control side's, and the slow path's,
	 * which reads it for resolution) */
	uint8_t *v6;
	uint8_t (*gw6)[16];
	unsigned low_free; /* every index below is used or reserved */
	struct fwd_adj_port port[FWD_PORT_MAX];
};

/*
 * A table of size entries (<= 65535, the FIB's next-hop space, of which
 * the fwd_adj_reserved indices are never given) and ngroups ECMP groups. NULL and errno EINVAL or ENOMEM.
 */
struct fwd_adj_tbl *fwd_adj_tbl_new(unsigned size, unsigned ngroups);
void fwd_adj_tbl_free(struct fwd_adj_tbl *);

/*
 * Indices no adjacency gets (they stay UNSET, so the fast path never
 * forwards with them): the FIB byte view's FWD_FIB_B_ESC and
 * FWD_FIB_NH_NONE (254, 255), which the fast path uses as adjacency indices
 * like any other byte (fwd_dp.c, dp_adj_slow). Indices >= size (0xffff
 * among them: size <= 0xffff) are refused by every setter anyway.
 */
static inline bool
fwd_adj_reserved(unsigned idx)
{
	return (idx == FWD_FIB_NH_NONE || idx == FWD_FIB_B_ESC);
}

/* The lowest free index (never a reserved one), marked used; -ENOSPC when
 * full. */
int fwd_adj_alloc(struct fwd_adj_tbl *);

/* Clear entry idx (action UNSET) and make it free for fwd_adj_alloc. */
void fwd_adj_release(struct fwd_adj_tbl *, unsigned idx);

/*
 * Set or change a port's MAC, MTU and state; rebuilds every adjacency on
 * that port. 0, -EINVAL for a bad id.
 */
int fwd_adj_port_set(struct fwd_adj_tbl *, uint16_t port, const uint8_t *mac,
    uint16_t mtu, bool up);

/* The address port records in IP options (network order, 0: none). */
static inline void
fwd_adj_port_addr_set(struct fwd_adj_tbl *t, uint16_t port, uint32_t addr_n)
{
	if (port < FWD_PORT_MAX)
		__atomic_store_n(&t->port[port].addr, addr_n, __ATOMIC_RELAXED);
}

/* Workers: that address (0 for none or a bad id). */
static inline uint32_t
fwd_adj_port_addr(const struct fwd_adj_tbl *t, uint16_t port)
{
	return (port < FWD_PORT_MAX ?
		__atomic_load_n(&t->port[port].addr, __ATOMIC_RELAXED) :
		0);
}

/* Forget a port: its adjacencies become DOWN (and it has no address). */
void fwd_adj_port_del(struct fwd_adj_tbl *, uint16_t port);

/*
 * Point idx at gateway gw (host order) on port. The neighbour MAC is
 * unknown until fwd_adj_neigh_set (action RESOLVE); mac may be given when
 * known (static neighbour). 0, -EINVAL (bad idx or port).
 */
int fwd_adj_set_nh(struct fwd_adj_tbl *, unsigned idx, uint16_t port,
    uint32_t gw, const uint8_t *mac);

/* Connected subnet on port: packets go to the slow path to be resolved. */
int fwd_adj_set_glean(struct fwd_adj_tbl *, unsigned idx, uint16_t port);

/* The router's own address (receive). */
int fwd_adj_set_local(struct fwd_adj_tbl *, unsigned idx);

/* Blackhole: drop silently; reject: drop with ICMP host unreachable. */
int fwd_adj_set_drop(struct fwd_adj_tbl *, unsigned idx);
int fwd_adj_set_reject(struct fwd_adj_tbl *, unsigned idx);

/*
 * ECMP group of n (1..FWD_ADJ_GROUP_MAX) member adjacencies, which must be
 * K_NH or K_GLEAN entries. The group storage is allocated on first use.
 * 0, -EINVAL, -ENOSPC (no group slot left).
 */
int fwd_adj_set_group(struct fwd_adj_tbl *, unsigned idx,
    const uint16_t *members, unsigned n);

/*
 * The neighbour ip on port has MAC mac (NULL: no longer valid). Updates every
 * IPv4 K_NH adjacency whose gateway it is. Returns how many changed.
 */
unsigned fwd_adj_neigh_set(struct fwd_adj_tbl *, uint16_t port, uint32_t ip,
    const uint8_t *mac);

/*
 * IPv6: point idx at gateway gw6 (a link-local or global address of the
 * neighbour) on port; the frames it builds carry type 0x86DD. mac as for
 * fwd_adj_set_nh. 0, -EINVAL.
 */
int fwd_adj_set_nh6(struct fwd_adj_tbl *, unsigned idx, uint16_t port,
    const uint8_t gw6[16], const uint8_t *mac);

/* IPv6 connected subnet on port (the slow path resolves the dst by ND). */
int fwd_adj_set_glean6(struct fwd_adj_tbl *, unsigned idx, uint16_t port);

/* Is idx an IPv6 adjacency (set by fwd_adj_set_nh6 or _glean6)? */
static inline bool
fwd_adj_is_v6(const struct fwd_adj_tbl *t, unsigned idx)
{
	return (idx < t->size && t->v6[idx] != 0);
}

/* idx's IPv6 gateway (K_NH from fwd_adj_set_nh6), else NULL. */
static inline const uint8_t *
fwd_adj_gw6(const struct fwd_adj_tbl *t, unsigned idx)
{
	return (fwd_adj_is_v6(t, idx) && t->ent[idx].kind == FWD_ADJ_K_NH ?
		t->gw6[idx] :
		NULL);
}

/*
 * The IPv6 neighbour ip6 on port has MAC mac (NULL: no longer valid).
 * Updates every IPv6 K_NH adjacency whose gateway it is. Returns how many
 * changed.
 */
unsigned fwd_adj_neigh_set6(struct fwd_adj_tbl *, uint16_t port,
    const uint8_t ip6[16], const uint8_t *mac);

/* Flow hash on the addresses and protocol (murmur3 finaliser), for ECMP. */
static inline uint32_t
fwd_adj_flow_hash(const uint8_t *ip)
{
	uint32_t h = fwd_ld32(ip + FWD_IP_SRC) * 0x9e3779b1u;

	h ^= fwd_ld32(ip + FWD_IP_DST) ^ ip[FWD_IP_PROTO];
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return (h ^ (h >> 16));
}

/* The same for an IPv6 header: both addresses, the next header and the
 * flow label (RFC 6438: the source's own flow hash when it sets one). */
static inline uint32_t
fwd_adj_flow_hash6(const uint8_t *ip)
{
	uint32_t h = (fwd_ld32(ip + 8) ^ fwd_ld32(ip + 12) ^ fwd_ld32(ip + 16) ^
			 fwd_ld32(ip + 20)) *
	    0x9e3779b1u;

	h ^= fwd_ld32(ip + 24) ^ fwd_ld32(ip + 28) ^ fwd_ld32(ip + 32) ^
	    fwd_ld32(ip + 36) ^ (fwd_ld32(ip) & htonl(0xfffffu)) ^ ip[6];
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return (h ^ (h >> 16));
}

/* Group a's member for flow hash h (a itself when not a group). */
static inline const struct fwd_adj *
fwd_adj_member(const struct fwd_adj_tbl *t, const struct fwd_adj *a, uint32_t h)
{
	unsigned n = __atomic_load_n(&a->ngrp, __ATOMIC_ACQUIRE);

	if (n == 0)
		return (a);
	return (&t->ent[t->grp[a->group * FWD_ADJ_GROUP_MAX +
	    (unsigned)(((uint64_t)h * n) >> 32)]]);
}

/* The adjacency to use for a packet: resolves a group to its member. */
static inline const struct fwd_adj *
fwd_adj_select(const struct fwd_adj_tbl *t, const struct fwd_adj *a,
    const uint8_t *ip)
{
	if (__atomic_load_n(&a->ngrp, __ATOMIC_ACQUIRE) == 0)
		return (a);
	return (fwd_adj_member(t, a, fwd_adj_flow_hash(ip)));
}

/* IPv6: the same (ip an IPv6 header). */
static inline const struct fwd_adj *
fwd_adj_select6(const struct fwd_adj_tbl *t, const struct fwd_adj *a,
    const uint8_t *ip)
{
	if (__atomic_load_n(&a->ngrp, __ATOMIC_ACQUIRE) == 0)
		return (a);
	return (fwd_adj_member(t, a, fwd_adj_flow_hash6(ip)));
}

#endif /* FWD_ADJ_H */
