/* fwd/fwd_dp.c: the forwarding fast path (per worker, lock-free, no allocation,
 * no syscall but port I/O). */
#include <errno.h>
#include <string.h>

#include "fwd_dp.h"

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
	unsigned h = fwd_local_hash(a);

	for (unsigned i = 0; i < l->n; i++)
		if (l->addr[i] == a)
			return (-EEXIST);
	if (l->n >= FWD_LOCAL_MAX)
		return (-ENOSPC);
	__atomic_store_n(&l->addr[l->n], a, __ATOMIC_RELAXED);
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
	__atomic_fetch_or(&l->filter, 1ull << h, __ATOMIC_RELEASE);
	return (0);
}

int
fwd_local_del(struct fwd_local *l, uint32_t a)
{
	uint64_t f = 0;
	unsigned i;

	for (i = 0; i < l->n && l->addr[i] != a; i++)
		;
	if (i == l->n)
		return (-ENOENT);
	/* Move the last one into the hole: a reader may miss one lookup. */
	__atomic_store_n(&l->addr[i], l->addr[l->n - 1], __ATOMIC_RELAXED);
	__atomic_store_n(&l->n, l->n - 1, __ATOMIC_RELEASE);
	for (i = 0; i < l->n; i++) {
		unsigned h = fwd_local_hash(l->addr[i]);

		f |= 1ull << h;
	}
	__atomic_store_n(&l->filter, f, __ATOMIC_RELEASE);
	return (0);
}

int
fwd_dp_init(struct fwd_dp *dp, const struct fwd_dp_conf *c)
{
	if (c == NULL || c->fib == NULL || c->adj == NULL || c->local == NULL ||
	    c->ports == NULL || c->nports > FWD_PORT_MAX)
		return (-EINVAL);
	/* FIB group ids (>= nh_limit) must index UNSET adjacencies */
	if (c->adj->size > ((const struct fwd_fib_dp *)c->fib)->nh_limit)
		return (-EINVAL);
	memset(dp, 0, sizeof(*dp));
	dp->conf = *c;
	for (unsigned i = 0; i < c->nports; i++)
		if (c->ports[i] != NULL)
			dp->port_ok |= 1ull << i;
	return (0);
}

void
fwd_dp_fini(struct fwd_dp *dp)
{
	/* Give back whatever is still queued. */
	for (unsigned p = 0; p < FWD_PORT_MAX; p++)
		if (dp->txn[p] > 0) {
			fwd_pkt_release(dp->txq[p], dp->txn[p]);
			dp->txn[p] = 0;
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
 * A packet that failed the quick test: the full parse says why, or that it
 * is fine after all (IP options, a filter false positive for the local
 * set). Returns true with dp->cl_dst and cl_iplen set when it is to be
 * routed (not through pointers: the caller's variables stay in registers).
 */
static __attribute__((noinline)) bool
dp_classify(struct fwd_dp *dp, struct fwd_pkt *p, const uint8_t *mac,
    struct fwd_pkt **drop, unsigned *ndrop)
{
	struct fwd_pkt_meta m;
	enum fwd_reason r;

	r = fwd_pkt_parse(p->data, p->len, mac, &m);
	if (r == FWD_R_OK && fwd_local_has(dp->conf.local, m.dst))
		r = FWD_R_LOCAL;
	else if (r == FWD_R_OK && m.ip[FWD_IP_TTL] <= 1)
		r = FWD_R_TTL;
	if (r != FWD_R_OK) {
		dp_divert(dp, p, r, 0, drop, ndrop);
		return (false);
	}
	dp->cl_dst = m.dst;
	dp->cl_iplen = m.ip_len;
	return (true);
}

/*
 * The adjacency is not a plain FORWARD one: an ECMP group resolves to its
 * member; anything else goes to the slow path or is dropped. Returns the
 * adjacency to forward with, or NULL when the packet was diverted.
 */
static __attribute__((noinline)) const struct fwd_adj *
dp_adj_slow(struct fwd_dp *dp, struct fwd_pkt *p, const struct fwd_adj *a,
    uint32_t dst, struct fwd_pkt **drop, unsigned *ndrop)
{
	const struct fwd_adj_tbl *at = dp->conf.adj;
	const struct fwd_fib_dp *fdp = (const struct fwd_fib_dp *)dp->conf.fib;
	unsigned act, v = (unsigned)(a - at->ent);
	enum fwd_reason r;

	/*
	 * The fast path reads tbl24 only: a /25-/32 group id lands here (its
	 * entry, past the table's size, is never FORWARD; fwd_dp_init checks
	 * the sizes), and gets its tbl8 entry.
	 */
	if (v - fdp->nh_limit < fdp->g_span) {
		a = &at->ent[FWD_FIB_READ_(fdp->tbl8[((size_t)v << 8) |
		    (dst & 0xff)])];
		if (__atomic_load_n(&a->action, __ATOMIC_ACQUIRE) ==
		    FWD_ADJ_A_FORWARD)
			return (a);
	}
	act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);

	if ((unsigned)(a - at->ent) >= at->size) { /* FWD_FIB_NH_NONE */
		dp_divert(dp, p, FWD_R_NO_ROUTE, 0, drop, ndrop);
		return (NULL);
	}
	if (act == FWD_ADJ_A_GROUP) {
		a = fwd_adj_select(at, a, p->data + FWD_ETH_HLEN);
		act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
		if (act == FWD_ADJ_A_FORWARD)
			return (a);
		if (act == FWD_ADJ_A_GROUP)
			act = FWD_ADJ_A_DOWN;
	}
	switch (act) {
	case FWD_ADJ_A_RESOLVE:
		r = FWD_R_RESOLVE;
		break;
	case FWD_ADJ_A_LOCAL:
		r = FWD_R_LOCAL;
		break;
	case FWD_ADJ_A_DROP:
		r = FWD_R_BLACKHOLE;
		break;
	case FWD_ADJ_A_REJECT:
		r = FWD_R_REJECT;
		break;
	default:
		r = FWD_R_ADJ_DOWN;
		break;
	}
	dp_divert(dp, p, r, (unsigned)(a - at->ent), drop, ndrop);
	return (NULL);
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
	/* lookups read tbl24 only; groups are resolved in dp_adj_slow */
	const uint16_t *t24 = ((const struct fwd_fib_dp *)fib)->tbl24;
	const struct fwd_adj *ent = dp->conf.adj->ent;
	const uint64_t port_ok = dp->port_ok;
	const uint64_t filter =
	    __atomic_load_n(&dp->conf.local->filter, __ATOMIC_RELAXED);
	const uint8_t *mac;
	uint64_t mac64;
	struct fwd_pkt *drop[FWD_BURST];
	uint32_t bdst[FWD_BURST];
	uint16_t bnh[FWD_BURST];
	unsigned i, ndrop = 0, queued;

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
		/* The destination sits at the same offset with or without IP
		 * options; a frame too short to have one looks up 0. */
		for (i = 0; i < n; i++)
			bdst[i] =
			    pkts[i]->len >= FWD_IPV4_MIN_FRAME
				? ntohl(fwd_ld32(pkts[i]->data + FWD_ETH_HLEN +
						 FWD_IP_DST))
				: 0;
		fwd_fib_lookup_burst(fib, bdst, bnh, n);
	}

	for (i = 0; i < n; i++) {
		struct fwd_pkt *p = pkts[i];
		uint8_t *f = p->data;
		const struct fwd_adj *a;
		unsigned iplen, port, h;
		uint32_t dst;

		if (__builtin_expect(
			!fwd_pkt_fast_ok(f, p->len, mac64, &dst, &iplen), 0)) {
			if (!dp_classify(dp, p, mac, drop, &ndrop))
				continue;
			dst = dp->cl_dst;
			iplen = dp->cl_iplen;
		} else {
			h = fwd_local_hash(dst);
			if (__builtin_expect((filter >> h) & 1, 0)) {
				if (!dp_classify(dp, p, mac, drop, &ndrop))
					continue;
			}
		}
		/*
		 * The table has an entry for every 16-bit index, so even
		 * FWD_FIB_NH_NONE reads a (non-FORWARD) entry: no bounds test.
		 */
		a = &ent[burst ? bnh[i] : FWD_FIB_READ_(t24[dst >> 8])];
		if (__builtin_expect(__atomic_load_n(&a->action,
					 __ATOMIC_ACQUIRE) != FWD_ADJ_A_FORWARD,
			0) &&
		    (a = dp_adj_slow(dp, p, a, dst, drop, &ndrop)) == NULL)
			continue;
		if (__builtin_expect(iplen > a->mtu, 0)) {
			dp_mtu(dp, p, a, drop, &ndrop);
			continue;
		}
		port = a->port; /* < FWD_PORT_MAX (fwd_adj checks) */
		if (__builtin_expect(!((port_ok >> port) & 1), 0)) {
			dp_divert(dp, p, FWD_R_ADJ_DOWN, 0, drop, &ndrop);
			continue;
		}
		fwd_ipv4_ttl_dec(f + FWD_ETH_HLEN);
		fwd_eth_write(f, a->eth);
		dp->txq[port][dp->txn[port]++] = p;
	}
	queued = n - ndrop - dp->npunted;
	dp->npunted = 0;
	dp->txmask = queued;
	if (ndrop > 0)
		fwd_pkt_release(drop, ndrop);
	return (queued);
}

unsigned
fwd_dp_process(
    struct fwd_dp *dp, uint16_t in_port, struct fwd_pkt **pkts, unsigned n)
{
	if (dp->conf.flags & FWD_DP_F_BURST_LOOKUP)
		return (dp_process(dp, in_port, pkts, n, true));
	return (dp_process(dp, in_port, pkts, n, false));
}

unsigned
fwd_dp_flush(struct fwd_dp *dp)
{
	unsigned sent = 0;

	if (dp->txmask == 0)
		return (0);
	/* A scan of the (few) ports is cheaper than a mask per packet. */
	for (unsigned p = 0; p < dp->conf.nports; p++) {
		unsigned cnt = dp->txn[p], done;

		if (cnt == 0)
			continue;
		done = fwd_port_tx(dp->conf.ports[p], dp->txq[p], cnt);
		if (done < cnt) {
			fwd_pkt_release(dp->txq[p] + done, cnt - done);
			dp->st.reason[FWD_R_TX_FULL] += cnt - done;
		}
		dp->txn[p] = 0;
		sent += done;
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
	sum->punt_refused +=
	    __atomic_load_n(&dp->st.punt_refused, __ATOMIC_RELAXED);
	for (unsigned r = 0; r < FWD_R__COUNT; r++)
		sum->reason[r] +=
		    __atomic_load_n(&dp->st.reason[r], __ATOMIC_RELAXED);
}
