/* fwd/fwd_arp.c: the neighbour table and ARP protocol of the slow path (control
 * thread only). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_arp.h"
#include "fwd_nq.h"

#define ARP_NONE 0xffffffffu
#define ARP_LEN	 42

struct arp_neigh {
	uint32_t ip;
	uint16_t port;
	uint8_t mac[6];
	uint8_t state;
	uint8_t probes;
	uint16_t host_adj;    /* FWD_FIB_NH_NONE: no host route */
	uint64_t t_next;      /* expiry or next retransmission */
	uint64_t t_conf;      /* last confirmed (a reply, config), or created */
	uint32_t next;	      /* hash chain, ARP_NONE ends */
	struct fwd_nq_list q; /* packets waiting for it */
};

struct arp_addr {
	uint32_t ip;
	uint8_t plen;
	uint16_t port;
};

struct fwd_arp {
	struct fwd_arp_conf conf;
	struct fwd_adj_tbl *adj;
	struct arp_neigh *ent;
	uint32_t *bucket;
	unsigned nbucket; /* power of 2 */
	uint32_t *freel;
	unsigned nfree;
	struct arp_addr addr[FWD_ARP_ADDR_MAX];
	unsigned naddr;
	struct fwd_nq nq; /* queued packets, adjacencies to release */
	struct fwd_arp_stats st;
};

static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static unsigned
arp_hash(const struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	return (((ip ^ ((uint32_t)port << 24)) * 0x9e3779b1u) >> 7) &
	    (a->nbucket - 1);
}

struct fwd_arp *
fwd_arp_new(const struct fwd_arp_conf *c, struct fwd_adj_tbl *adj)
{
	struct fwd_arp *a;

	if (c == NULL || adj == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return (NULL);
	a->conf = *c;
	a->adj = adj;
	if (a->conf.max_neigh == 0)
		a->conf.max_neigh = 4096;
	if (a->conf.queue_len == 0)
		a->conf.queue_len = 4;
	if (a->conf.queue_len > FWD_NQ_QMAX)
		a->conf.queue_len = FWD_NQ_QMAX;
	if (a->conf.reachable_ms == 0)
		a->conf.reachable_ms = 30000;
	if (a->conf.retrans_ms == 0)
		a->conf.retrans_ms = 1000;
	if (a->conf.max_probes == 0)
		a->conf.max_probes = 3;
	for (a->nbucket = 16; a->nbucket < a->conf.max_neigh; a->nbucket *= 2)
		;
	a->ent = calloc(a->conf.max_neigh, sizeof(*a->ent));
	a->bucket = malloc(a->nbucket * sizeof(*a->bucket));
	a->freel = malloc(a->conf.max_neigh * sizeof(*a->freel));
	if (a->ent == NULL || a->bucket == NULL || a->freel == NULL ||
	    fwd_nq_init(&a->nq, a->conf.max_neigh * a->conf.queue_len,
		a->conf.queue_len) != 0) {
		fwd_arp_free(a);
		errno = ENOMEM;
		return (NULL);
	}
	memset(a->bucket, 0xff, a->nbucket * sizeof(*a->bucket));
	for (unsigned i = 0; i < a->conf.max_neigh; i++)
		a->freel[a->nfree++] = a->conf.max_neigh - 1 - i;
	return (a);
}

void
fwd_arp_free(struct fwd_arp *a)
{
	if (a == NULL)
		return;
	free(a->ent);
	free(a->bucket);
	free(a->freel);
	fwd_nq_fini(&a->nq);
	free(a);
}

/* ---- our addresses ---- */

static const struct fwd_adj_port *
arp_port(const struct fwd_arp *a, uint16_t port)
{
	if (port >= FWD_PORT_MAX || !a->adj->port[port].present)
		return (NULL);
	return (&a->adj->port[port]);
}

static bool
arp_ours_on(const struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	for (unsigned i = 0; i < a->naddr; i++)
		if (a->addr[i].ip == ip && a->addr[i].port == port)
			return (true);
	return (false);
}

bool
fwd_arp_is_ours(const struct fwd_arp *a, uint32_t ip)
{
	for (unsigned i = 0; i < a->naddr; i++)
		if (a->addr[i].ip == ip)
			return (true);
	return (false);
}

uint32_t
fwd_arp_addr_get(const struct fwd_arp *a, uint16_t port)
{
	for (unsigned i = 0; i < a->naddr; i++)
		if (a->addr[i].port == port)
			return (a->addr[i].ip);
	return (0);
}

/* Our address on port to speak to target from: same subnet first. */
static uint32_t
arp_src_for(const struct fwd_arp *a, uint16_t port, uint32_t target)
{
	for (unsigned i = 0; i < a->naddr; i++) {
		const struct arp_addr *ad = &a->addr[i];
		uint32_t m = ad->plen ? ~0u << (32 - ad->plen) : 0;

		if (ad->port == port && (ad->ip & m) == (target & m))
			return (ad->ip);
	}
	return (fwd_arp_addr_get(a, port));
}

/* Build an ARP frame on out. */
static int
arp_emit(struct fwd_arp *a, uint16_t port, uint16_t op, const uint8_t *dmac,
    uint32_t spa, const uint8_t *tha, uint32_t tpa, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = arp_port(a, port);
	static const uint8_t zero[6];
	uint8_t *f;

	if (pp == NULL || out == NULL)
		return (-EINVAL);
	/* 42 bytes; the backend or the wire pads to 60 */
	if ((f = fwd_out_push(out, port, ARP_LEN)) == NULL)
		return (-ENOBUFS);
	memcpy(f, dmac, 6);
	memcpy(f + 6, pp->mac, 6);
	f[12] = FWD_ETH_P_ARP >> 8;
	f[13] = FWD_ETH_P_ARP & 0xff;
	fwd_st16(f + 14, htons(1));
	fwd_st16(f + 16, htons(FWD_ETH_P_IPV4));
	f[18] = 6;
	f[19] = 4;
	fwd_st16(f + 20, htons(op));
	memcpy(f + 22, pp->mac, 6);
	fwd_st32(f + 28, htonl(spa));
	memcpy(f + 32, tha != NULL ? tha : zero, 6);
	fwd_st32(f + 38, htonl(tpa));
	return (0);
}

static int
arp_garp(struct fwd_arp *a, uint16_t port, uint32_t ip, struct fwd_out *out)
{
	int rv = arp_emit(a, port, 1, bcast, ip, NULL, ip, out);

	if (rv == 0)
		a->st.garps_sent++;
	return (rv);
}

int
fwd_arp_addr_add(struct fwd_arp *a, uint16_t port, uint32_t ip, unsigned plen,
    uint64_t now_ms, struct fwd_out *out)
{
	int rv;

	(void)now_ms;
	if (port >= FWD_PORT_MAX || plen > 32 || ip == 0)
		return (-EINVAL);
	if (arp_ours_on(a, port, ip))
		return (-EEXIST);
	if (a->naddr >= FWD_ARP_ADDR_MAX)
		return (-ENOSPC);
	if (a->conf.local != NULL && !fwd_arp_is_ours(a, ip) &&
	    (rv = fwd_local_add(a->conf.local, ip)) != 0 && rv != -EEXIST)
		return (rv);
	a->addr[a->naddr].ip = ip;
	a->addr[a->naddr].plen = (uint8_t)plen;
	a->addr[a->naddr].port = port;
	a->naddr++;
	if (out != NULL && arp_port(a, port) != NULL)
		(void)arp_garp(a, port, ip, out);
	return (0);
}

int
fwd_arp_addr_del(struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	for (unsigned i = 0; i < a->naddr; i++) {
		if (a->addr[i].ip != ip || a->addr[i].port != port)
			continue;
		a->addr[i] = a->addr[--a->naddr];
		if (a->conf.local != NULL && !fwd_arp_is_ours(a, ip))
			(void)fwd_local_del(a->conf.local, ip);
		return (0);
	}
	return (-ENOENT);
}

unsigned
fwd_arp_announce(struct fwd_arp *a, uint16_t port, struct fwd_out *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < a->naddr; i++)
		if (a->addr[i].port == port &&
		    arp_garp(a, port, a->addr[i].ip, out) == 0)
			n++;
	return (n);
}

/* ---- the table ---- */

static struct arp_neigh *
arp_find(const struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	uint32_t i = a->bucket[arp_hash(a, port, ip)];

	while (i != ARP_NONE) {
		struct arp_neigh *n = &a->ent[i];

		if (n->ip == ip && n->port == port)
			return (n);
		i = n->next;
	}
	return (NULL);
}

static struct arp_neigh *
arp_create(struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	struct arp_neigh *n;
	unsigned h;
	uint32_t i;

	if (a->nfree == 0) {
		a->st.table_full++;
		return (NULL);
	}
	i = a->freel[--a->nfree];
	n = &a->ent[i];
	memset(n, 0, sizeof(*n));
	n->ip = ip;
	n->port = port;
	n->host_adj = FWD_FIB_NH_NONE;
	h = arp_hash(a, port, ip);
	n->next = a->bucket[h];
	a->bucket[h] = i;
	return (n);
}

static void
arp_queue_clear(struct fwd_arp *a, struct arp_neigh *n)
{
	fwd_nq_clear(&a->nq, &n->q);
}

/* Is ip on one of port's connected subnets? */
static bool
arp_on_link(const struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	for (unsigned i = 0; i < a->naddr; i++) {
		const struct arp_addr *ad = &a->addr[i];
		uint32_t m = ad->plen ? ~0u << (32 - ad->plen) : 0;

		if (ad->port == port && ad->plen < 32 &&
		    (ad->ip & m) == (ip & m))
			return (true);
	}
	return (false);
}

static void
arp_host_route_del(struct fwd_arp *a, struct arp_neigh *n)
{
	unsigned nh;

	if (n->host_adj == FWD_FIB_NH_NONE || a->conf.fib == NULL)
		return;
	if (fwd_fib_get(a->conf.fib, n->ip, 32, &nh) == 0 && nh == n->host_adj)
		(void)fwd_fib_del(a->conf.fib, n->ip, 32);
	(void)fwd_adj_neigh_set(a->adj, n->port, n->ip, NULL);
	/* Workers may still hold the index: release after a grace period. */
	fwd_nq_release_later(&a->nq, a->adj, fwd_fib_qsbr(a->conf.fib),
	    n->host_adj);
	n->host_adj = FWD_FIB_NH_NONE;
}

/* A resolved neighbour on a connected subnet: adjacency + /32 route. */
static void
arp_host_route_add(struct fwd_arp *a, struct arp_neigh *n)
{
	unsigned nh;
	int idx;

	if (a->conf.fib == NULL || !arp_on_link(a, n->port, n->ip))
		return;
	if (n->host_adj == FWD_FIB_NH_NONE) {
		if (fwd_fib_get(a->conf.fib, n->ip, 32, &nh) == 0)
			return; /* a /32 from the RIB wins */
		if ((idx = fwd_adj_alloc(a->adj)) < 0)
			return;
		if (fwd_adj_set_nh(a->adj, (unsigned)idx, n->port, n->ip,
			n->mac) != 0) {
			fwd_adj_release(a->adj, (unsigned)idx);
			return;
		}
		n->host_adj = (uint16_t)idx;
	}
	/* (re-)add: idempotent, and heals a route swept by a resync */
	if (fwd_fib_add(a->conf.fib, n->ip, 32, n->host_adj) != 0)
		arp_host_route_del(a, n);
}

static void
arp_destroy(struct fwd_arp *a, struct arp_neigh *n)
{
	uint32_t idx = (uint32_t)(n - a->ent);
	uint32_t *pp = &a->bucket[arp_hash(a, n->port, n->ip)];

	arp_host_route_del(a, n);
	(void)fwd_adj_neigh_set(a->adj, n->port, n->ip, NULL);
	arp_queue_clear(a, n);
	while (*pp != ARP_NONE && *pp != idx)
		pp = &a->ent[*pp].next;
	if (*pp == idx)
		*pp = n->next;
	n->state = FWD_NEIGH_FREE;
	a->freel[a->nfree++] = idx;
}

/*
 * Send frame (a packet that was routed to this neighbour, TTL not yet
 * decremented) to n. false when it cannot go (MTU, TTL, out full).
 */
static bool
arp_send_to(struct fwd_arp *a, const struct arp_neigh *n, const uint8_t *frame,
    unsigned len, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = arp_port(a, n->port);
	unsigned tl;
	uint8_t *o;

	if (pp == NULL || !pp->up || len < FWD_IPV4_MIN_FRAME)
		return (false);
	tl = ntohs(fwd_ld16(frame + FWD_ETH_HLEN + FWD_IP_LEN));
	if (tl > pp->mtu || tl + FWD_ETH_HLEN > len ||
	    frame[FWD_ETH_HLEN + FWD_IP_TTL] <= 1)
		return (false);
	if ((o = fwd_out_push(out, n->port, FWD_ETH_HLEN + tl)) == NULL)
		return (false);
	memcpy(o, n->mac, 6);
	memcpy(o + 6, pp->mac, 6);
	memcpy(o + 12, frame + 12, 2 + tl);
	fwd_ipv4_ttl_dec(o + FWD_ETH_HLEN);
	return (true);
}

/* The neighbour's MAC is (now) known: publish it and send its queue. */
static void
arp_resolved(struct fwd_arp *a, struct arp_neigh *n, const uint8_t *mac,
    uint64_t now_ms, struct fwd_out *out)
{
	bool changed = n->state == FWD_NEIGH_INCOMPLETE ||
	    memcmp(n->mac, mac, 6) != 0;

	if (n->state == FWD_NEIGH_INCOMPLETE)
		a->st.resolved++;
	memcpy(n->mac, mac, 6);
	n->t_conf = now_ms;
	if (n->state != FWD_NEIGH_STATIC) {
		n->state = FWD_NEIGH_REACHABLE;
		n->t_next = now_ms + a->conf.reachable_ms;
	}
	n->probes = 0;
	(void)fwd_adj_neigh_set(a->adj, n->port, n->ip, mac);
	if (changed && n->host_adj != FWD_FIB_NH_NONE)
		(void)fwd_adj_set_nh(a->adj, n->host_adj, n->port, n->ip, mac);
	arp_host_route_add(a, n);
	for (unsigned k = 0; k < n->q.n; k++) {
		unsigned l;
		const uint8_t *fr = fwd_nq_frame(&a->nq, &n->q, k, &l);

		if (out != NULL && arp_send_to(a, n, fr, l, out))
			a->st.released++;
		else
			a->st.queue_drops++;
	}
	arp_queue_clear(a, n);
}

static int
arp_request(struct fwd_arp *a, struct arp_neigh *n, bool unicast,
    struct fwd_out *out)
{
	int rv = arp_emit(a, n->port, 1, unicast ? n->mac : bcast,
	    arp_src_for(a, n->port, n->ip), NULL, n->ip, out);

	if (rv == 0)
		a->st.requests_sent++;
	return (rv);
}

int
fwd_arp_input(struct fwd_arp *a, uint16_t port, const uint8_t *f, unsigned len,
    uint64_t now_ms, struct fwd_out *out)
{
	uint32_t spa, tpa;
	const uint8_t *sha;
	struct arp_neigh *n;
	uint16_t op;
	bool for_us;

	a->st.rx++;
	if (len < ARP_LEN || fwd_ld16(f + 12) != htons(FWD_ETH_P_ARP) ||
	    fwd_ld16(f + 14) != htons(1) ||
	    fwd_ld16(f + 16) != htons(FWD_ETH_P_IPV4) || f[18] != 6 ||
	    f[19] != 4 || arp_port(a, port) == NULL) {
		a->st.rx_bad++;
		return (-EINVAL);
	}
	op = ntohs(fwd_ld16(f + 20));
	sha = f + 22;
	spa = ntohl(fwd_ld32(f + 28));
	tpa = ntohl(fwd_ld32(f + 38));
	if ((op != 1 && op != 2) || (sha[0] & 1)) {
		a->st.rx_bad++;
		return (-EINVAL);
	}
	for_us = arp_ours_on(a, port, tpa);
	/* RFC 826: merge the sender into an entry we have; add it when the
	 * packet is for us. Never learn our own addresses or 0.0.0.0. */
	if (spa != 0 && !fwd_arp_is_ours(a, spa)) {
		n = arp_find(a, port, spa);
		if (n == NULL && for_us)
			n = arp_create(a, port, spa);
		if (n != NULL) {
			if (n->state == FWD_NEIGH_STATIC)
				; /* config wins */
			else
				arp_resolved(a, n, sha, now_ms, out);
		}
	}
	if (!for_us)
		return (-ENOENT);
	if (op == 1 && out != NULL &&
	    arp_emit(a, port, 2, sha, tpa, sha, spa, out) == 0)
		a->st.replies_sent++;
	return (0);
}

int
fwd_arp_resolve(struct fwd_arp *a, uint16_t port, uint32_t ip, uint16_t in_port,
    const uint8_t *frame, unsigned len, uint64_t now_ms, struct fwd_out *out)
{
	struct arp_neigh *n;
	bool fresh = false;

	if (arp_port(a, port) == NULL || ip == 0 ||
	    (frame != NULL &&
		(len < FWD_IPV4_MIN_FRAME || len > FWD_FRAME_MAX)))
		return (-EINVAL);
	if (fwd_arp_is_ours(a, ip))
		return (-EHOSTUNREACH);
	if ((n = arp_find(a, port, ip)) == NULL) {
		if ((n = arp_create(a, port, ip)) == NULL)
			return (-ENOSPC);
		n->state = FWD_NEIGH_INCOMPLETE;
		n->t_conf = now_ms;
		fresh = true;
	}
	if (n->state != FWD_NEIGH_INCOMPLETE) {
		/* Known (a worker raced the adjacency update, or the host
		 * route was swept): republish and send at once. */
		arp_host_route_add(a, n);
		(void)fwd_adj_neigh_set(a->adj, n->port, n->ip, n->mac);
		if (frame != NULL && out != NULL) {
			if (arp_send_to(a, n, frame, len, out))
				a->st.released++;
			else
				a->st.queue_drops++;
		}
		return (0);
	}
	if (frame != NULL) {
		unsigned r = fwd_nq_push(&a->nq, &n->q, frame, len, in_port);

		a->st.queue_drops += r != FWD_NQ_QUEUED;
		a->st.queued += r != FWD_NQ_DROPPED;
	}
	if (fresh && out != NULL) {
		n->probes = 1;
		n->t_next = now_ms + a->conf.retrans_ms;
		(void)arp_request(a, n, false, out);
	} else if (fresh) {
		n->probes = 0;
		n->t_next = now_ms;
	}
	return (0);
}

int
fwd_arp_punt(struct fwd_arp *a, uint16_t in_port, unsigned adj_idx,
    const uint8_t *frame, unsigned len, uint64_t now_ms, struct fwd_out *out)
{
	const struct fwd_adj *ad;
	uint32_t target;

	if (adj_idx >= a->adj->size || frame == NULL ||
	    len < FWD_IPV4_MIN_FRAME)
		return (-EINVAL);
	ad = &a->adj->ent[adj_idx];
	if (ad->kind == FWD_ADJ_K_NH)
		target = ad->gw;
	else if (ad->kind == FWD_ADJ_K_GLEAN)
		target = ntohl(fwd_ld32(frame + FWD_ETH_HLEN + FWD_IP_DST));
	else
		return (-EINVAL);
	return (fwd_arp_resolve(a, ad->port, target, in_port, frame, len,
	    now_ms, out));
}

/*
 * The table is full and config wants a static entry: give up a learned one
 * (it is learned again when traffic needs it). The least useful first: one
 * being probed, then a reachable one, then one still resolving (its queued
 * packets are dropped and counted). O(table), on a config change only.
 */
static bool
arp_evict_learned(struct fwd_arp *a)
{
	static const uint8_t order[] = {FWD_NEIGH_PROBE, FWD_NEIGH_REACHABLE,
	    FWD_NEIGH_INCOMPLETE};

	for (unsigned k = 0; k < sizeof(order); k++)
		for (unsigned i = 0; i < a->conf.max_neigh; i++) {
			struct arp_neigh *n = &a->ent[i];

			if (n->state != order[k])
				continue;
			a->st.queue_drops += n->q.n;
			a->st.evicted++;
			arp_destroy(a, n);
			return (true);
		}
	return (false);
}

bool
fwd_arp_mac_ok(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac != NULL && !(mac[0] & 1) && memcmp(mac, zero, 6) != 0);
}

int
fwd_arp_static_add(struct fwd_arp *a, uint16_t port, uint32_t ip,
    const uint8_t *mac, uint64_t now_ms, struct fwd_out *out)
{
	struct arp_neigh *n;

	if (!fwd_arp_mac_ok(mac) || port >= FWD_PORT_MAX || ip == 0)
		return (-EINVAL);
	if ((n = arp_find(a, port, ip)) == NULL &&
	    (n = arp_create(a, port, ip)) == NULL &&
	    (!arp_evict_learned(a) || (n = arp_create(a, port, ip)) == NULL))
		return (-ENOSPC);
	if (n->state == FWD_NEIGH_FREE)
		n->state = FWD_NEIGH_INCOMPLETE;
	arp_resolved(a, n, mac, now_ms, out);
	n->state = FWD_NEIGH_STATIC;
	return (0);
}

int
fwd_arp_static_del(struct fwd_arp *a, uint16_t port, uint32_t ip)
{
	struct arp_neigh *n = arp_find(a, port, ip);

	if (n == NULL || n->state != FWD_NEIGH_STATIC)
		return (-ENOENT);
	arp_destroy(a, n);
	return (0);
}

static void
arp_fail(struct fwd_arp *a, struct arp_neigh *n, uint64_t now_ms,
    struct fwd_icmp *icmp, struct fwd_out *out)
{
	for (unsigned k = 0; k < n->q.n; k++) {
		unsigned l;
		const uint8_t *fr = fwd_nq_frame(&a->nq, &n->q, k, &l);

		a->st.queue_drops++;
		if (icmp != NULL && out != NULL)
			(void)fwd_icmp_error(icmp, FWD_ICMP_UNREACH,
			    FWD_ICMP_UNREACH_HOST, 0, n->q.in[k],
			    fwd_arp_addr_get(a, n->q.in[k]), fr, l, now_ms,
			    out);
	}
	a->st.failed++;
	arp_destroy(a, n);
}

unsigned
fwd_arp_tick(struct fwd_arp *a, uint64_t now_ms, struct fwd_icmp *icmp,
    struct fwd_out *out)
{
	unsigned changed = 0;

	for (unsigned i = 0; i < a->conf.max_neigh; i++) {
		struct arp_neigh *n = &a->ent[i];

		/* out is full: the rest wait for the next tick, their probes
		 * not counted (a probe that was not sent is not a probe) */
		if (out != NULL && out->n >= FWD_OUT_MAX)
			break;
		if (n->state == FWD_NEIGH_FREE ||
		    n->state == FWD_NEIGH_STATIC || now_ms < n->t_next)
			continue;
		switch (n->state) {
		case FWD_NEIGH_INCOMPLETE:
			if (n->probes >= a->conf.max_probes) {
				arp_fail(a, n, now_ms, icmp, out);
				changed++;
				break;
			}
			n->probes++;
			n->t_next = now_ms + a->conf.retrans_ms;
			(void)arp_request(a, n, false, out);
			break;
		case FWD_NEIGH_REACHABLE:
			/* aged: keep using it while we ask again (unicast) */
			n->state = FWD_NEIGH_PROBE;
			n->probes = 1;
			n->t_next = now_ms + a->conf.retrans_ms;
			(void)arp_request(a, n, true, out);
			changed++;
			break;
		case FWD_NEIGH_PROBE:
			if (n->probes >= a->conf.max_probes) {
				a->st.expired++;
				arp_destroy(a, n);
				changed++;
				break;
			}
			n->probes++;
			n->t_next = now_ms + a->conf.retrans_ms;
			(void)arp_request(a, n, true, out);
			break;
		default:
			break;
		}
	}
	fwd_nq_release_poll(&a->nq, a->adj, fwd_fib_qsbr(a->conf.fib));
	return (changed);
}

void
fwd_arp_port_flush(struct fwd_arp *a, uint16_t port)
{
	for (unsigned i = 0; i < a->conf.max_neigh; i++) {
		struct arp_neigh *n = &a->ent[i];

		if (n->state != FWD_NEIGH_FREE &&
		    n->state != FWD_NEIGH_STATIC && n->port == port)
			arp_destroy(a, n);
	}
}

static void
arp_info(const struct arp_neigh *n, struct fwd_neigh_info *info)
{
	info->ip = n->ip;
	info->port = n->port;
	memcpy(info->mac, n->mac, 6);
	info->state = n->state;
	info->queued = n->q.n;
	info->expires_ms = n->t_next;
	info->confirmed_ms = n->t_conf;
}

int
fwd_arp_get(const struct fwd_arp *a, uint16_t port, uint32_t ip,
    struct fwd_neigh_info *info)
{
	const struct arp_neigh *n = arp_find(a, port, ip);

	if (n == NULL)
		return (-ENOENT);
	arp_info(n, info);
	return (0);
}

int
fwd_arp_walk(const struct fwd_arp *a,
    int (*cb)(const struct fwd_neigh_info *, void *), void *arg)
{
	struct fwd_neigh_info info;
	int rv;

	for (unsigned i = 0; i < a->conf.max_neigh; i++) {
		if (a->ent[i].state == FWD_NEIGH_FREE)
			continue;
		arp_info(&a->ent[i], &info);
		if ((rv = cb(&info, arg)) != 0)
			return (rv);
	}
	return (0);
}

const struct fwd_arp_stats *
fwd_arp_stats(const struct fwd_arp *a)
{
	return (&a->st);
}
