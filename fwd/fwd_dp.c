/* fwd/fwd_dp.c: the forwarding fast path (per worker, lock-free, no allocation,
 * no syscall but port I/O). */
#include <errno.h>
#include <string.h>

#include "fwd_dp.h"
#include "fwd_ipopt.h"
#include "fwd_pkt6.h"

static const char *const reason_names[FWD_R__COUNT] = {
    [FWD_R_OK] = "forwarded",
    [FWD_R_SHORT] = "short",
    [FWD_R_ETHERTYPE] = "ethertype",
    [FWD_R_L2_DST] = "l2_dst",
    [FWD_R_VERSION] = "ip_version",
    [FWD_R_IHL] = "ip_ihl",
    [FWD_R_CKSUM] = "ip_cksum",
    [FWD_R_LEN] = "ip_len",
    [FWD_R_MARTIAN] = "martian",
    [FWD_R_MARTIAN_SRC] = "martian_src",
    [FWD_R_IP_OPT] = "ip_options",
    [FWD_R_TTL] = "ttl_expired",
    [FWD_R_NO_ROUTE] = "no_route",
    [FWD_R_BLACKHOLE] = "blackhole",
    [FWD_R_ADJ_DOWN] = "adj_down",
    [FWD_R_LOCAL] = "local",
    [FWD_R_ARP] = "arp",
    [FWD_R_RESOLVE] = "unresolved",
    [FWD_R_MTU_DF] = "mtu_df",
    [FWD_R_MTU_FRAG] = "mtu_frag",
    [FWD_R_TX_FULL] = "tx_full",
    [FWD_R_PUNT_FULL] = "punt_full",
    [FWD_R_REJECT] = "reject",
    [FWD_R_MCAST] = "mcast_local",
    [FWD_R_IP6_SHORT] = "ip6_short",
    [FWD_R_IP6_VERSION] = "ip6_version",
    [FWD_R_IP6_LEN] = "ip6_len",
    [FWD_R_IP6_MARTIAN] = "ip6_martian",
    [FWD_R_IP6_MARTIAN_SRC] = "ip6_martian_src",
    [FWD_R_IP6_LINK_LOCAL] = "ip6_link_local",
    [FWD_R_IP6_EXT] = "ip6_ext_hdr",
    [FWD_R_IP6_HBH_POS] = "ip6_hbh_not_first",
    [FWD_R_IP6_HBH] = "ip6_hbh",
    [FWD_R_IP6_HLIM] = "ip6_hlim_expired",
    [FWD_R_IP6_MCAST] = "ip6_mcast_local",
};

/* 1, and 255 for the martian sources (fwd_ipv4_src_martian): 0/8, 127/8,
 * 224/4 and 240/4, the limited broadcast among them */
const uint8_t fwd_ttl_floor[256] = {
    [0] = 255,
    [1 ... 126] = 1,
    [127] = 255,
    [128 ... 223] = 1,
    [224 ... 255] = 255,
};

const char *
fwd_reason_str(enum fwd_reason r)
{
	if ((unsigned)r >= FWD_R__COUNT || reason_names[r] == NULL)
		return ("unknown");
	return (reason_names[r]);
}

int
fwd_local_add(struct fwd_local *l, uint32_t a)
{
	int rv;

	if (fwd_local_has(l, a))
		return (-EEXIST);
	if (l->n >= FWD_LOCAL_MAX)
		return (-ENOSPC);
	if (l->fib != NULL && (rv = fwd_fib_pin(l->fib, a, l->nh)) != 0)
		return (rv);
	l->addr[l->n++] = a;
	return (0);
}

int
fwd_local_bind(struct fwd_local *l, struct fwd_fib *fib, unsigned nh)
{
	int rv;

	for (unsigned i = 0; i < l->n; i++)
		if ((rv = fwd_fib_pin(fib, l->addr[i], nh)) != 0) {
			while (i-- > 0)
				(void)fwd_fib_unpin(fib, l->addr[i]);
			return (rv);
		}
	l->fib = fib;
	l->nh = nh;
	return (0);
}

int
fwd_local_del(struct fwd_local *l, uint32_t a)
{
	unsigned i;

	for (i = 0; i < l->n && l->addr[i] != a; i++)
		;
	if (i == l->n)
		return (-ENOENT);
	if (l->fib != NULL)
		(void)fwd_fib_unpin(l->fib, a);
	l->addr[i] = l->addr[--l->n]; /* the last one into the hole */
	return (0);
}

int
fwd_dp_init(struct fwd_dp *dp, const struct fwd_dp_conf *c)
{
	if (c == NULL || c->fib == NULL || c->adj == NULL || c->local == NULL ||
	    c->ports == NULL || c->nports > FWD_PORT_MAX)
		return (-EINVAL);
	/* FIB group ids (>= nh_limit) must index UNSET adjacencies; the
	 * fast path tests neither martian destinations nor local ones: the
	 * FIB gives NONE for the first, a LOCAL pin for the second */
	if (c->adj->size > ((const struct fwd_fib_dp *)c->fib)->nh_limit ||
	    !((const struct fwd_fib_dp *)c->fib)->martian ||
	    c->local->fib != c->fib)
		return (-EINVAL);
	memset(dp, 0, sizeof(*dp));
	dp->conf = *c;
	for (unsigned p = 0; p < FWD_PORT_MAX; p++)
		dp->txt[p] = dp->txq[p];
	memcpy(dp->ttl_floor, fwd_ttl_floor, sizeof(dp->ttl_floor));
	return (0);
}

void
fwd_dp_fini(struct fwd_dp *dp)
{
	/* Give back whatever is still queued. */
	for (unsigned p = 0; p < FWD_PORT_MAX; p++)
		if (dp->txt[p] != dp->txq[p]) {
			fwd_pkt_release(dp->txq[p],
			    (unsigned)(dp->txt[p] - dp->txq[p]));
			dp->txt[p] = dp->txq[p];
		}
	dp->txmask = 0;
}

/* Not forwarded: to the slow path if it wants it, else onto the drop list. */
static inline void
dp_divert(struct fwd_dp *dp, struct fwd_pkt *pkt, enum fwd_reason r,
    unsigned aux, struct fwd_pkt **drop, unsigned *ndrop)
{
	dp->st.reason[r]++;
	if (fwd_reason_is_slow(r)) {
		if (dp->conf.punt != NULL &&
		    dp->conf.punt(dp->conf.punt_arg, pkt, r, aux)) {
			dp->npunted++;
			return;
		}
		dp->st.punt_refused++;
	}
	drop[(*ndrop)++] = pkt;
}

/*
 * A datagram with IP options, routed to FIB next hop nh: when that is an
 * interface it leaves by (an adjacency that forwards or resolves), its
 * options are checked and Record Route and Timestamp filled in with that
 * interface's address (fwd_ipopt_forward, RFC 1812 5.3.13), the checksum
 * recomputed; the caller then forwards it as any other. Here, off the fast
 * loop, rather than on the control thread: the egress (ECMP member, ARP,
 * MTU) is decided in one place. Not an interface (no route, blackhole,
 * reject, down): left to the caller's verdict. Returns FWD_R_OK, or
 * FWD_R_IP_OPT with *aux the Parameter Problem pointer (nothing changed).
 */
static enum fwd_reason
dp_options(struct fwd_dp *dp, const struct fwd_pkt_meta *m, unsigned nh,
    unsigned *aux)
{
	const struct fwd_adj_tbl *at = dp->conf.adj;
	const struct fwd_adj *a;
	unsigned act, ptr;
	bool changed;

	if (nh >= at->size)
		return (FWD_R_OK);
	a = fwd_adj_select(at, &at->ent[nh], m->ip);
	act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
	if (act != FWD_ADJ_A_FORWARD && act != FWD_ADJ_A_RESOLVE)
		return (FWD_R_OK);
	ptr = fwd_ipopt_forward(m->ip, m->hlen, fwd_adj_port_addr(at, a->port),
	    fwd_ipopt_now_ms(), &changed);
	if (ptr != 0) {
		*aux = ptr;
		return (FWD_R_IP_OPT);
	}
	if (changed)
		fwd_ipv4_cksum_set(m->ip, m->hlen);
	return (FWD_R_OK);
}

/* Why a packet routed to an adjacency with action act (not FORWARD, not a
 * group) is not forwarded. */
static inline enum fwd_reason
dp_act_reason(unsigned act)
{
	switch (act) {
	case FWD_ADJ_A_RESOLVE:
		return (FWD_R_RESOLVE);
	case FWD_ADJ_A_LOCAL:
		return (FWD_R_LOCAL);
	case FWD_ADJ_A_DROP:
		return (FWD_R_BLACKHOLE);
	case FWD_ADJ_A_REJECT:
		return (FWD_R_REJECT);
	default:
		return (FWD_R_ADJ_DOWN);
	}
}

/* ---- IPv6 ---- */

/*
 * An IPv6 packet whose adjacency a (FIB6 next hop nh) is not FORWARD, or
 * that is over its MTU: as dp_adj_slow, but an IPv6 packet over the MTU is
 * never fragmented here (RFC 8200 5): FWD_R_MTU_DF with the egress MTU,
 * for the slow path's Packet Too Big. Returns the adjacency to forward
 * with, or NULL when the packet was diverted.
 */
static const struct fwd_adj *
dp6_adj_slow(struct fwd_dp *dp, struct fwd_pkt *p, const struct fwd_adj *a,
    unsigned nh, unsigned iplen, struct fwd_pkt **drop, unsigned *ndrop)
{
	const struct fwd_adj_tbl *at = dp->conf.adj;
	unsigned act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);

	if (act == FWD_ADJ_A_GROUP) {
		a = fwd_adj_select6(at, a, p->data + FWD_ETH_HLEN);
		act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
		if (act == FWD_ADJ_A_GROUP)
			act = FWD_ADJ_A_DOWN;
	}
	if (act == FWD_ADJ_A_FORWARD) {
		if (iplen <= a->mtu)
			return (a);
		dp_divert(dp, p, FWD_R_MTU_DF, a->mtu, drop, ndrop);
		return (NULL);
	}
	if (nh == FWD_FIB6_NH_NONE || nh >= at->size) {
		dp_divert(dp, p, FWD_R_NO_ROUTE, 0, drop, ndrop);
		return (NULL);
	}
	dp_divert(dp, p, dp_act_reason(act), (unsigned)(a - at->ent), drop,
	    ndrop);
	return (NULL);
}

/*
 * An IPv6 frame that failed the quick test: the full parse says why, or
 * that it is to be routed after all (a good address the quick test's
 * floors send here, an extension header chain to forward). One for the
 * router (its /128s are pinned in the FIB6 to the LOCAL adjacency, the
 * link-local among them) goes to the slow path before the hop limit and
 * link-local tests, so a hop-limit-1 ping or a Neighbor Solicitation to it
 * is taken. A Hop-by-Hop header is forwarded without being looked at (RFC
 * 8200 4: only when configured to). Link-scope multicast (ND, MLD, RS)
 * goes to the slow path (FWD_R_IP6_MCAST). Returns the FIB6 next hop with
 * *iplen set, or -1 when the packet was diverted.
 */
static __attribute__((noinline)) int
dp6_classify(struct fwd_dp *dp, struct fwd_pkt *p, const uint8_t *mac,
    unsigned *iplen, struct fwd_pkt **drop, unsigned *ndrop)
{
	struct fwd_pkt6_meta m;
	enum fwd_reason r = fwd_pkt6_parse(p->data, p->len, mac, &m);
	unsigned nh = FWD_FIB6_NH_NONE;

	if (fwd_pkt6_has_meta(r)) {
		nh = fwd_fib6_lookup(dp->conf.fib6, m.ip + FWD_IP6_DST);
		if (nh == dp->conf.local->nh)
			r = FWD_R_LOCAL;
		else if (r == FWD_R_IP6_HBH)
			r = m.hlim <= 1 ? FWD_R_IP6_HLIM : FWD_R_OK;
	}
	if (r != FWD_R_OK) {
		dp_divert(dp, p, r, 0, drop, ndrop);
		return (-1);
	}
	*iplen = m.ip_len;
	return ((int)nh);
}

/* One IPv6 packet (type 0x86dd, dp->conf.fib6 set), from check to the
 * egress port's batch, or diverted. false: dp_classify's "not for the
 * IPv4 loop". */
static __attribute__((noinline)) bool
dp6_packet(struct fwd_dp *dp, struct fwd_pkt *p, const uint8_t *mac,
    struct fwd_pkt **drop, unsigned *ndrop)
{
	const struct fwd_adj *ent = dp->conf.adj->ent, *a;
	uint8_t *f = p->data, *ip = f + FWD_ETH_HLEN;
	uint64_t hi, lo;
	unsigned iplen;
	int nh;

	if (__builtin_expect(fwd_pkt6_fast_ok(f, p->len, fwd_ld64(mac), &hi,
				 &lo, &iplen),
		1))
		nh = (int)fwd_fib6_lookup(dp->conf.fib6, ip + FWD_IP6_DST);
	else if ((nh = dp6_classify(dp, p, mac, &iplen, drop, ndrop)) < 0)
		return (false);
	a = &ent[nh];
	if (__builtin_expect(iplen >
		    __atomic_load_n(&a->fmtu, __ATOMIC_ACQUIRE),
		0) &&
	    (a = dp6_adj_slow(dp, p, a, (unsigned)nh, iplen, drop, ndrop)) ==
		NULL)
		return (false);
	fwd_ip6_hlim_dec(ip);
	fwd_eth_write(f, a->eth);
	*dp->txt[a->port]++ = p;
	return (false); /* nothing for the IPv4 loop to do */
}

/*
 * A packet that failed the quick test: the full parse says why, or that it
 * is fine after all (IP options, which dp_options processes). One for the
 * router (its address is pinned in the FIB to the LOCAL adjacency) goes to
 * the slow path before the TTL test, so a TTL-1 ping to the router is
 * answered. Returns true with dp->cl_dst and cl_iplen set when it is to
 * be routed (not through pointers: the caller's variables stay in registers).
 */
static __attribute__((noinline)) bool
dp4_classify(struct fwd_dp *dp, struct fwd_pkt *p, const uint8_t *mac,
    struct fwd_pkt **drop, unsigned *ndrop)
{
	struct fwd_pkt_meta m;
	enum fwd_reason r;
	unsigned nh = FWD_FIB_NH_NONE, aux = 0;

	r = fwd_pkt_parse(p->data, p->len, mac, &m);
	if (r == FWD_R_L2_DST && fwd_pkt_ll_mcast(p->data, p->len))
		r = FWD_R_MCAST;
	else if (r == FWD_R_OK &&
	    (nh = fwd_fib_lookup(dp->conf.fib, m.dst)) == dp->conf.local->nh)
		r = FWD_R_LOCAL;
	else if (r == FWD_R_OK && m.ip[FWD_IP_TTL] <= 1)
		r = FWD_R_TTL;
	else if (r == FWD_R_OK && m.hlen > FWD_IPV4_HLEN)
		r = dp_options(dp, &m, nh, &aux);
	if (r != FWD_R_OK) {
		dp_divert(dp, p, r, aux, drop, ndrop);
		return (false);
	}
	dp->cl_dst = m.dst;
	dp->cl_iplen = m.ip_len;
	return (true);
}

/*
 * The fast loop's branch for a packet its quick test failed: an IPv6 one
 * (with a FIB6) goes its own way to the end, in a tail call that leaves no
 * frame of this one's; anything else to the IPv4 classifier. Thin, so the
 * IPv6 packet pays no IPv4 frame and the loop calls one function as before.
 */
static __attribute__((noinline)) bool
dp_classify(struct fwd_dp *dp, struct fwd_pkt *p, const uint8_t *mac,
    struct fwd_pkt **drop, unsigned *ndrop)
{
	if (fwd_ld16(p->data + FWD_ETH_TYPE) == htons(FWD_ETH_P_IPV6) &&
	    p->len >= FWD_ETH_HLEN && dp->conf.fib6 != NULL)
		return (dp6_packet(dp, p, mac, drop, ndrop));
	return (dp4_classify(dp, p, mac, drop, ndrop));
}

static __attribute__((noinline)) void
dp_mtu(struct fwd_dp *dp, struct fwd_pkt *p, const struct fwd_adj *a,
    struct fwd_pkt **drop, unsigned *ndrop)
{
	if (p->data[FWD_ETH_HLEN + FWD_IP_OFF] & (FWD_IP_DF >> 8))
		dp_divert(dp, p, FWD_R_MTU_DF, a->mtu, drop, ndrop);
	else
		dp_divert(dp, p, FWD_R_MTU_FRAG,
		    (unsigned)(a - dp->conf.adj->ent), drop, ndrop);
}

/* A FORWARD adjacency found off the fast loop: the MTU decides. */
static inline const struct fwd_adj *
dp_fwd_mtu(struct fwd_dp *dp, struct fwd_pkt *p, const struct fwd_adj *a,
    unsigned iplen, struct fwd_pkt **drop, unsigned *ndrop)
{
	if (__builtin_expect(iplen > a->mtu, 0)) {
		dp_mtu(dp, p, a, drop, ndrop);
		return (NULL);
	}
	return (a);
}

/*
 * The fast loop's one test failed: the adjacency is not FORWARD, or the
 * packet is over its MTU. An ECMP group resolves to its member, a tbl8
 * group to its entry; a packet over the MTU gets dp_mtu; anything else goes
 * to the slow path or is dropped. Returns the adjacency to forward with, or
 * NULL when the packet was diverted.
 */
static __attribute__((noinline)) const struct fwd_adj *
dp_adj_slow(struct fwd_dp *dp, struct fwd_pkt *p, const struct fwd_adj *a,
    unsigned iplen, struct fwd_pkt **drop, unsigned *ndrop)
{
	const struct fwd_adj_tbl *at = dp->conf.adj;
	const struct fwd_fib_dp *fdp = (const struct fwd_fib_dp *)dp->conf.fib;
	unsigned act, v = (unsigned)(a - at->ent);
	/* read again here rather than kept live through the fast loop: the
	 * header was checked (quick test or full parse), options or not */
	uint32_t dst = ntohl(fwd_ld32(p->data + FWD_ETH_HLEN + FWD_IP_DST));

	/*
	 * The fast path reads the FIB's byte view only, as an adjacency
	 * index; the byte's two special values are reserved indices, never
	 * FORWARD (fwd_adj_reserved): FWD_FIB_NH_NONE is no route,
	 * FWD_FIB_B_ESC takes the FIB's own escape (tbl24, and the tbl8
	 * entry under a /25-/32 group), which gives the final next hop or
	 * FWD_FIB_NH_NONE.
	 */
	if (v == FWD_FIB_B_ESC) {
		v = fwd_fib_esc_(fdp, dst);
		a = &at->ent[v];
	}
	act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
	if (act == FWD_ADJ_A_FORWARD)
		return (dp_fwd_mtu(dp, p, a, iplen, drop, ndrop));

	if (v == FWD_FIB_NH_NONE || v >= at->size) {
		/* the FIB holds NONE over the martian ranges */
		dp_divert(dp, p,
		    fwd_ipv4_dst_martian(dst) ? FWD_R_MARTIAN : FWD_R_NO_ROUTE,
		    0, drop, ndrop);
		return (NULL);
	}
	if (act == FWD_ADJ_A_GROUP) {
		a = fwd_adj_select(at, a, p->data + FWD_ETH_HLEN);
		act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
		if (act == FWD_ADJ_A_FORWARD)
			return (dp_fwd_mtu(dp, p, a, iplen, drop, ndrop));
		if (act == FWD_ADJ_A_GROUP)
			act = FWD_ADJ_A_DOWN;
	}
	dp_divert(dp, p, dp_act_reason(act), (unsigned)(a - at->ent), drop,
	    ndrop);
	return (NULL);
}

/*
 * The burst function, in two compiled variants: burst == true looks the
 * whole burst up first with fwd_fib_lookup_burst (prefetching the table
 * lines, so cache misses on a large table overlap), burst == false looks up
 * one packet at a time (fewer instructions when the table is in cache).
 */
static inline __attribute__((always_inline)) unsigned
dp_process(struct fwd_dp *dp, uint16_t in_port, struct fwd_pkt **pkts,
    unsigned n, const bool burst)
{
	const struct fwd_fib *fib = dp->conf.fib;
	/* lookups read the FIB's byte view only (16 MiB: fewer cache misses
	 * than tbl24's 32); next hops >= 254, groups and no route are
	 * resolved in dp_adj_slow */
	const uint8_t *tb = fwd_fib_bytes(fib);
	const struct fwd_adj *ent = dp->conf.adj->ent;
	const uint8_t *mac;
	uint64_t mac64;
	struct fwd_pkt *drop[FWD_BURST];
	uint64_t ck_inv = FWD_CK_INV, ck_lim = FWD_CK_LIM;
	unsigned ndrop = 0, queued;

	if (n > FWD_BURST)
		n = FWD_BURST;
	if (dp->txmask != 0) /* the caller skipped fwd_dp_flush */
		fwd_dp_flush(dp);
	if (in_port >= dp->conf.nports || dp->conf.ports[in_port] == NULL) {
		dp->st.reason[FWD_R_ADJ_DOWN] += n;
		fwd_pkt_release(pkts, n);
		return (0);
	}
	mac = dp->conf.ports[in_port]->mac;
	mac64 = fwd_ld64(mac);
	dp->st.rx += n;
	if (burst) {
		/* Every packet's byte-view line is asked for first, so the cache
		 * misses of a large table overlap; the loop below then reads
		 * it. The destination sits at the same offset with or without
		 * IP options; a frame too short to have one asks for line 0. */
		for (unsigned i = 0; i < n; i++) {
			const struct fwd_pkt *p = pkts[i];
			uint32_t d = p->len >= FWD_IPV4_MIN_FRAME ?
			    ntohl(
				fwd_ld32(p->data + FWD_ETH_HLEN + FWD_IP_DST)) :
			    0;

			__builtin_prefetch(&tb[d >> 8]);
		}
	}

	/* the checksum test's constants in registers, not rebuilt per packet
	 * (an empty asm hides their value from the compiler) */
	__asm__("" : "+r"(ck_inv), "+r"(ck_lim));
	/* counted up to 0 from -n: one register and no compare per packet */
	for (long k = -(long)n; k != 0; k++) {
		struct fwd_pkt *p = pkts[n + k];
		uint8_t *f = p->data;
		const struct fwd_adj *a;
		unsigned iplen, port;
		uint32_t dst, w;

		/* the quick test, then TTL and source in one compare (w's low
		 * byte is the TTL; fwd_pkt_fast_ok_k) */
		if (__builtin_expect(!fwd_pkt_fast_ok_k(f, p->len, mac64,
					 ck_inv, ck_lim, &dst, &iplen, &w) ||
			    (uint8_t)w <=
				dp->ttl_floor[f[FWD_ETH_HLEN + FWD_IP_SRC]],
			0)) {
			if (!dp_classify(dp, p, mac, drop, &ndrop))
				continue;
			dst = dp->cl_dst;
			iplen = dp->cl_iplen;
			/* after dp_options, which may have changed it */
			w = fwd_ld32(f + FWD_ETH_HLEN + FWD_IP_TTL);
		}
		/*
		 * A byte is an adjacency index; its two special values are
		 * reserved (never FORWARD), so one test below catches them
		 * with everything else that is not forwarded at once.
		 */
		a = &ent[__atomic_load_n(&tb[dst >> 8], __ATOMIC_RELAXED)];
		/* one test: not FORWARD (fmtu 0), or over the egress MTU */
		if (__builtin_expect(iplen >
			    __atomic_load_n(&a->fmtu, __ATOMIC_ACQUIRE),
			0) &&
		    (a = dp_adj_slow(dp, p, a, iplen, drop, &ndrop)) == NULL)
			continue;
		/* < FWD_PORT_MAX (fwd_adj checks); a port this worker does
		 * not have is dropped by fwd_dp_flush, per burst */
		port = a->port;
		fwd_ipv4_ttl_dec_w(f + FWD_ETH_HLEN, w);
		fwd_eth_write(f, a->eth);
		*dp->txt[port]++ = p;
	}
	queued = n - ndrop - dp->npunted;
	dp->npunted = 0;
	dp->txmask = queued;
	if (ndrop > 0)
		fwd_pkt_release(drop, ndrop);
	return (queued);
}

unsigned
fwd_dp_process(struct fwd_dp *dp, uint16_t in_port, struct fwd_pkt **pkts,
    unsigned n)
{
	if (dp->conf.flags & FWD_DP_F_BURST_LOOKUP)
		return (dp_process(dp, in_port, pkts, n, true));
	return (dp_process(dp, in_port, pkts, n, false));
}

/* Queued for a port this worker does not have (detached, or not yet
 * given to it): dropped as the adjacency being down. */
static void
dp_unsent(struct fwd_dp *dp, unsigned p, unsigned cnt)
{
	fwd_pkt_release(dp->txq[p], cnt);
	dp->st.reason[FWD_R_ADJ_DOWN] += cnt;
	dp->txt[p] = dp->txq[p];
}

unsigned
fwd_dp_flush(struct fwd_dp *dp)
{
	uint64_t left = dp->txmask;
	unsigned sent = 0;

	if (dp->txmask == 0)
		return (0);
	/* A scan of the (few) ports is cheaper than a mask per packet. */
	for (unsigned p = 0; p < dp->conf.nports; p++) {
		unsigned cnt = (unsigned)(dp->txt[p] - dp->txq[p]), done;

		if (cnt == 0)
			continue;
		left -= cnt;
		if (__builtin_expect(dp->conf.ports[p] == NULL, 0)) {
			dp_unsent(dp, p, cnt);
			continue;
		}
		done = fwd_port_tx(dp->conf.ports[p], dp->txq[p], cnt);
		if (done < cnt) {
			fwd_pkt_release(dp->txq[p] + done, cnt - done);
			dp->st.reason[FWD_R_TX_FULL] += cnt - done;
		}
		dp->txt[p] = dp->txq[p];
		sent += done;
	}
	/* an adjacency of a port beyond this worker's set */
	for (unsigned p = dp->conf.nports; left > 0 && p < FWD_PORT_MAX; p++) {
		unsigned cnt = (unsigned)(dp->txt[p] - dp->txq[p]);

		left -= cnt;
		if (cnt > 0)
			dp_unsent(dp, p, cnt);
	}
	dp->txmask = 0;
	dp->st.fwd += sent;
	return (sent);
}

unsigned
fwd_dp_poll(struct fwd_dp *dp, struct fwd_port *in)
{
	struct fwd_pkt *pkts[FWD_BURST];
	unsigned n;

	n = fwd_port_rx(in, pkts, FWD_BURST);
	if (n > 0) {
		fwd_dp_process(dp, in->id, pkts, n);
		fwd_dp_flush(dp);
	}
	if (dp->conf.qsbr != NULL)
		fwd_qsbr_quiescent(dp->conf.qsbr);
	return (n);
}

void
fwd_dp_stats_sum(struct fwd_dp_stats *sum, const struct fwd_dp *dp)
{
	sum->rx += __atomic_load_n(&dp->st.rx, __ATOMIC_RELAXED);
	sum->fwd += __atomic_load_n(&dp->st.fwd, __ATOMIC_RELAXED);
	sum->punt_refused += __atomic_load_n(&dp->st.punt_refused,
	    __ATOMIC_RELAXED);
	for (unsigned r = 0; r < FWD_R__COUNT; r++)
		sum->reason[r] += __atomic_load_n(&dp->st.reason[r],
		    __ATOMIC_RELAXED);
}
