/* fwd/fwd_dp.c: the forwarding fast path (per worker, lock-free, no allocation, no syscall but port I/O). */
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
	__atomic_fetch_or(&l->filter[h >> 6], 1ull << (h & 63),
	    __ATOMIC_RELEASE);
	return (0);
}

int
fwd_local_del(struct fwd_local *l, uint32_t a)
{
	uint64_t f[4] = { 0, 0, 0, 0 };
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

		f[h >> 6] |= 1ull << (h & 63);
	}
	for (i = 0; i < 4; i++)
		__atomic_store_n(&l->filter[i], f[i], __ATOMIC_RELEASE);
	return (0);
}

int
fwd_dp_init(struct fwd_dp *dp, const struct fwd_dp_conf *c)
{
	if (c == NULL || c->fib == NULL || c->adj == NULL ||
	    c->local == NULL || c->ports == NULL || c->nports > FWD_PORT_MAX)
		return (-EINVAL);
	memset(dp, 0, sizeof(*dp));
	dp->conf = *c;
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
		    dp->conf.punt(dp->conf.punt_arg, pkt, r, aux))
			return;
		dp->st.punt_refused++;
	}
	drop[(*ndrop)++] = pkt;
}

unsigned
fwd_dp_process(struct fwd_dp *dp, uint16_t in_port, struct fwd_pkt **pkts,
    unsigned n)
{
	const struct fwd_adj_tbl *at = dp->conf.adj;
	const struct fwd_adj *ent = at->ent;
	const struct fwd_local *local = dp->conf.local;
	const uint8_t *mac;
	struct fwd_pkt *drop[FWD_BURST];
	struct fwd_pkt_meta meta[FWD_BURST];
	uint32_t dst[FWD_BURST];
	uint16_t nh[FWD_BURST];
	uint8_t idx[FWD_BURST];
	unsigned i, k = 0, ndrop = 0, queued = 0;

	if (n > FWD_BURST)
		n = FWD_BURST;
	if (in_port >= dp->conf.nports || dp->conf.ports[in_port] == NULL) {
		dp->st.reason[FWD_R_ADJ_DOWN] += n;
		fwd_pkt_release(pkts, n);
		return (0);
	}
	mac = dp->conf.ports[in_port]->mac;
	dp->st.rx += n;

	/* Pass 1: checks; collect destinations of packets to route. */
	for (i = 0; i < n; i++) {
		struct fwd_pkt *p = pkts[i];
		struct fwd_pkt_meta *m = &meta[k];
		enum fwd_reason r;

		r = fwd_pkt_parse(p->data, p->len, mac, m);
		if (__builtin_expect(r != FWD_R_OK, 0)) {
			dp_divert(dp, p, r, 0, drop, &ndrop);
			continue;
		}
		if (__builtin_expect(fwd_local_has(local, m->dst), 0)) {
			dp_divert(dp, p, FWD_R_LOCAL, 0, drop, &ndrop);
			continue;
		}
		if (__builtin_expect(m->ip[FWD_IP_TTL] <= 1, 0)) {
			dp_divert(dp, p, FWD_R_TTL, 0, drop, &ndrop);
			continue;
		}
		dst[k] = m->dst;
		idx[k] = (uint8_t)i;
		k++;
	}

	fwd_fib_lookup_burst(dp->conf.fib, dst, nh, k);

	/* Pass 2: adjacency, MTU, TTL, rewrite, queue. */
	for (i = 0; i < k; i++) {
		struct fwd_pkt *p = pkts[idx[i]];
		uint8_t *ip = meta[i].ip;
		const struct fwd_adj *a;
		unsigned act, port;

		if (__builtin_expect(nh[i] >= at->size, 0)) {
			dp_divert(dp, p, FWD_R_NO_ROUTE, 0, drop, &ndrop);
			continue;
		}
		a = &ent[nh[i]];
		act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
		if (__builtin_expect(act == FWD_ADJ_A_GROUP, 0)) {
			a = fwd_adj_select(at, a, ip);
			act = __atomic_load_n(&a->action, __ATOMIC_ACQUIRE);
			if (act == FWD_ADJ_A_GROUP)
				act = FWD_ADJ_A_DOWN;
		}
		if (__builtin_expect(act != FWD_ADJ_A_FORWARD, 0)) {
			enum fwd_reason r;

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
			default:
				r = FWD_R_ADJ_DOWN;
				break;
			}
			dp_divert(dp, p, r, (unsigned)(a - ent), drop, &ndrop);
			continue;
		}
		port = a->port;
		if (__builtin_expect(meta[i].ip_len > a->mtu, 0)) {
			if (ip[FWD_IP_OFF] & (FWD_IP_DF >> 8))
				dp_divert(dp, p, FWD_R_MTU_DF, a->mtu, drop,
				    &ndrop);
			else
				dp_divert(dp, p, FWD_R_MTU_FRAG,
				    (unsigned)(a - ent), drop, &ndrop);
			continue;
		}
		if (__builtin_expect(port >= dp->conf.nports ||
		    dp->conf.ports[port] == NULL, 0)) {
			dp_divert(dp, p, FWD_R_ADJ_DOWN, 0, drop, &ndrop);
			continue;
		}
		fwd_ipv4_ttl_dec(ip);
		fwd_eth_write(p->data, a->eth);
		/* Trim Ethernet padding so the frame is the IP packet. */
		p->len = (uint16_t)(FWD_ETH_HLEN + meta[i].ip_len +
		    (meta[i].ip_len < 46 ? 46 - meta[i].ip_len : 0));
		dp->txq[port][dp->txn[port]++] = p;
		dp->txmask |= 1ull << port;
		queued++;
	}
	if (ndrop > 0)
		fwd_pkt_release(drop, ndrop);
	return (queued);
}

unsigned
fwd_dp_flush(struct fwd_dp *dp)
{
	uint64_t mask = dp->txmask;
	unsigned sent = 0;

	while (mask != 0) {
		unsigned p = (unsigned)__builtin_ctzll(mask);
		unsigned cnt = dp->txn[p], done;

		mask &= mask - 1;
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
	sum->punt_refused += __atomic_load_n(&dp->st.punt_refused,
	    __ATOMIC_RELAXED);
	for (unsigned r = 0; r < FWD_R__COUNT; r++)
		sum->reason[r] += __atomic_load_n(&dp->st.reason[r],
		    __ATOMIC_RELAXED);
}
