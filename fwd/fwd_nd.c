/* fwd/fwd_nd.c: IPv6 Neighbour Discovery (RFC 4861), Duplicate Address
 * Detection (RFC 4862 5.4) and Router Advertisements for the slow path
 * (control thread only). The shape is fwd_arp.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"

#include "fwd_icmp6.h"
#include "fwd_nd.h"
#include "fwd_nq.h"

#define ND_NONE 0xffffffffu

/* RFC 4861 10 (router and node constants). */
#define ND_MAX_INITIAL_RTR_ADVERT_INTERVAL 16000
#define ND_MAX_INITIAL_RTR_ADVERTISEMENTS  3
#define ND_MIN_DELAY_BETWEEN_RAS	   3000
#define ND_MAX_RA_DELAY_TIME		   500
#define ND_REACHABLE_RECOMPUTE_MS	   (2 * 3600 * 1000ull)

/* ICMPv6 offsets and sizes. */
#define ND_IP	    FWD_ETH_HLEN
#define ND_ICMP	    (FWD_ETH_HLEN + FWD_IPV6_HLEN)
#define ND_NS_LEN   24 /* type..target */
#define ND_RA_LEN   16
#define ND_RS_LEN   8
#define ND_RED_LEN  40
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_OPT_PFX  3
#define ND_OPT_MTU  5

#define ND_NA_R 0x80
#define ND_NA_S 0x40
#define ND_NA_O 0x20

struct nd_neigh {
	uint8_t ip6[16];
	uint16_t port;
	uint8_t mac[6];
	uint8_t state;
	uint8_t probes;
	bool router;
	bool used;	   /* traffic wants it (resolve/punt): STALE -> DELAY */
	uint16_t host_adj; /* FWD_FIB_NH_NONE: no host route */
	uint64_t t_next;   /* the state's timer (see fwd_nd_tick) */
	uint64_t t_conf;
	uint32_t next;	      /* hash chain */
	struct fwd_nq_list q; /* packets waiting for it */
};

struct nd_addr {
	uint8_t ip6[16];
	uint8_t plen;
	uint8_t state;
	uint16_t port;
	bool ll, derived;
	uint8_t dad_left; /* DAD NSs still to send */
	uint64_t t_dad;
};

struct nd_port {
	bool disabled;
	bool ll_auto; /* wants the derived link-local (set at port_up) */
	bool ra_on;
	unsigned ra_sent; /* unsolicited since enabled (initial ones) */
	uint64_t ra_next, ra_last;
	struct fwd_nd_ra_conf ra;
};

struct fwd_nd {
	struct fwd_nd_conf conf;
	struct fwd_adj_tbl *adj;
	struct nd_neigh *ent;
	uint32_t *bucket;
	unsigned nbucket;
	uint32_t *freel;
	unsigned nfree;
	struct nd_addr addr[FWD_ND_ADDR_MAX];
	unsigned naddr;
	struct nd_port port[FWD_PORT_MAX];
	struct fwd_nq nq; /* queued packets, adjacencies to release */
	uint64_t rng;
	unsigned reachable_ms;
	uint64_t reachable_at; /* when it was last computed */
	struct fwd_nd_stats st;
};

static const uint8_t zero16[16];
static const uint8_t all_nodes[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 1};

/* ---- small helpers ---- */

static uint64_t
nd_now(const struct fwd_nd *nd)
{
	return (nd->conf.clock(nd->conf.clock_arg));
}

static uint32_t
nd_rand(struct fwd_nd *nd)
{
	/* xorshift64* */
	nd->rng ^= nd->rng >> 12;
	nd->rng ^= nd->rng << 25;
	nd->rng ^= nd->rng >> 27;
	return ((uint32_t)((nd->rng * 0x2545f4914f6cdd1dull) >> 32));
}

/* Uniform in [lo, hi]. */
static uint64_t
nd_rand_range(struct fwd_nd *nd, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return (lo);
	return (lo + (uint64_t)nd_rand(nd) % (hi - lo + 1));
}

static void
nd_reachable_compute(struct fwd_nd *nd, uint64_t now)
{
	/* RFC 4861 6.3.2: MIN_RANDOM_FACTOR 0.5 .. MAX_RANDOM_FACTOR 1.5 */
	uint64_t b = nd->conf.reachable_ms;

	nd->reachable_ms = (unsigned)nd_rand_range(nd, b / 2, b + b / 2);
	nd->reachable_at = now;
}

static bool
nd_is_mcast(const uint8_t *a)
{
	return (a[0] == 0xff);
}

static bool
nd_is_unspec(const uint8_t *a)
{
	return (memcmp(a, zero16, 16) == 0);
}

static bool
nd_is_ll(const uint8_t *a)
{
	return (a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
}

static void
nd_solnode(const uint8_t *a, uint8_t *sn)
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    1, 0xff};

	memcpy(sn, pfx, 13);
	memcpy(sn + 13, a + 13, 3);
}

static bool
nd_is_solnode(const uint8_t *a)
{
	uint8_t sn[16];

	nd_solnode(a, sn);
	return (memcmp(a, sn, 16) == 0);
}

static void
nd_mcast_mac(const uint8_t *dst, uint8_t *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, dst + 12, 4);
}

static bool
nd_prefix_match(const uint8_t *a, const uint8_t *b, unsigned plen)
{
	unsigned full = plen / 8, rem = plen % 8;

	if (memcmp(a, b, full) != 0)
		return (false);
	return (rem == 0 ||
	    ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rem))) == 0);
}

bool
fwd_nd_mac_ok(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac != NULL && !(mac[0] & 1) && memcmp(mac, zero, 6) != 0);
}

void
fwd_nd_ll_from_mac(const uint8_t mac[6], uint8_t ip6[16])
{
	memset(ip6, 0, 16);
	ip6[0] = 0xfe;
	ip6[1] = 0x80;
	ip6[8] = mac[0] ^ 0x02; /* the universal/local bit inverted */
	ip6[9] = mac[1];
	ip6[10] = mac[2];
	ip6[11] = 0xff;
	ip6[12] = 0xfe;
	ip6[13] = mac[3];
	ip6[14] = mac[4];
	ip6[15] = mac[5];
}

static unsigned
nd_hash(const struct fwd_nd *nd, uint16_t port, const uint8_t *ip6)
{
	uint64_t h = fwd_ld64(ip6) ^
	    (fwd_ld64(ip6 + 8) * 0x9e3779b97f4a7c15ull) ^ port;

	h *= 0xff51afd7ed558ccdull;
	return ((unsigned)(h >> 40) & (nd->nbucket - 1));
}

static const struct fwd_adj_port *
nd_pport(const struct fwd_nd *nd, uint16_t port)
{
	if (port >= FWD_PORT_MAX || !nd->adj->port[port].present)
		return (NULL);
	return (&nd->adj->port[port]);
}

/* ---- creation ---- */

struct fwd_nd *
fwd_nd_new(const struct fwd_nd_conf *c, struct fwd_adj_tbl *adj)
{
	struct fwd_nd *nd;

	if (c == NULL || adj == NULL || c->clock == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	if ((nd = calloc(1, sizeof(*nd))) == NULL)
		return (NULL);
	nd->conf = *c;
	nd->adj = adj;
	if (nd->conf.max_neigh == 0)
		nd->conf.max_neigh = 4096;
	if (nd->conf.queue_len == 0)
		nd->conf.queue_len = 4;
	if (nd->conf.queue_len > FWD_NQ_QMAX)
		nd->conf.queue_len = FWD_NQ_QMAX;
	if (nd->conf.reachable_ms == 0)
		nd->conf.reachable_ms = 30000;
	if (nd->conf.retrans_ms == 0)
		nd->conf.retrans_ms = 1000;
	if (nd->conf.max_mcast_solicit == 0)
		nd->conf.max_mcast_solicit = 3;
	if (nd->conf.max_ucast_solicit == 0)
		nd->conf.max_ucast_solicit = 3;
	if (nd->conf.delay_first_probe_ms == 0)
		nd->conf.delay_first_probe_ms = 5000;
	if (nd->conf.dad_transmits == 0)
		nd->conf.dad_transmits = 1;
	if (nd->conf.gc_stale_ms == 0)
		nd->conf.gc_stale_ms = 600000;
	nd->rng = c->seed ? c->seed * 0x9e3779b97f4a7c15ull :
			    0x9e3779b97f4a7c15ull;
	for (nd->nbucket = 16; nd->nbucket < nd->conf.max_neigh;
	     nd->nbucket *= 2)
		;
	nd->ent = calloc(nd->conf.max_neigh, sizeof(*nd->ent));
	nd->bucket = malloc(nd->nbucket * sizeof(*nd->bucket));
	nd->freel = malloc(nd->conf.max_neigh * sizeof(*nd->freel));
	if (nd->ent == NULL || nd->bucket == NULL || nd->freel == NULL ||
	    fwd_nq_init(&nd->nq, nd->conf.max_neigh * nd->conf.queue_len,
		nd->conf.queue_len) != 0) {
		fwd_nd_free(nd);
		errno = ENOMEM;
		return (NULL);
	}
	memset(nd->bucket, 0xff, nd->nbucket * sizeof(*nd->bucket));
	for (unsigned i = 0; i < nd->conf.max_neigh; i++)
		nd->freel[nd->nfree++] = nd->conf.max_neigh - 1 - i;
	nd_reachable_compute(nd, nd_now(nd));
	return (nd);
}

void
fwd_nd_free(struct fwd_nd *nd)
{
	if (nd == NULL)
		return;
	free(nd->ent);
	free(nd->bucket);
	free(nd->freel);
	fwd_nq_fini(&nd->nq);
	free(nd);
}

unsigned
fwd_nd_reachable_ms(const struct fwd_nd *nd)
{
	return (nd->reachable_ms);
}

const struct fwd_nd_stats *
fwd_nd_stats(const struct fwd_nd *nd)
{
	return (&nd->st);
}

/* ---- frames ---- */

/*
 * Ethernet and IPv6 headers (hop limit 255, next header ICMPv6) for an ICMP
 * message of ilen bytes, pushed on out; returns the ICMP part, zeroed, or
 * NULL. nd_csum() finishes it.
 */
static uint8_t *
nd_frame(struct fwd_nd *nd, uint16_t port, const uint8_t *dmac,
    const uint8_t *src, const uint8_t *dst, unsigned ilen, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	uint8_t *f, *ip;

	if (pp == NULL || out == NULL)
		return (NULL);
	if ((f = fwd_out_push(out, port, ND_ICMP + ilen)) == NULL)
		return (NULL);
	memcpy(f, dmac, 6);
	memcpy(f + 6, pp->mac, 6);
	f[12] = FWD_ETH_P_IPV6 >> 8;
	f[13] = FWD_ETH_P_IPV6 & 0xff;
	ip = f + ND_IP;
	ip[0] = 0x60;
	ip[1] = ip[2] = ip[3] = 0;
	fwd_st16(ip + FWD_IP6_PLEN, htons((uint16_t)ilen));
	ip[FWD_IP6_NXT] = FWD_IP6_NH_ICMPV6;
	ip[FWD_IP6_HLIM] = 255;
	memcpy(ip + FWD_IP6_SRC, src, 16);
	memcpy(ip + FWD_IP6_DST, dst, 16);
	memset(ip + FWD_IPV6_HLEN, 0, ilen);
	return (ip + FWD_IPV6_HLEN);
}

/* The ICMPv6 checksum of the message at icmp (fwd_icmp6's). */
static void
nd_csum(uint8_t *icmp, unsigned ilen)
{
	const uint8_t *ip = icmp - FWD_IPV6_HLEN;

	fwd_st16(icmp + 2, 0);
	fwd_st16(icmp + 2,
	    fwd_icmp6_cksum(ip + FWD_IP6_SRC, ip + FWD_IP6_DST, icmp, ilen));
}

/* A link-layer address option of type t at o (8 bytes). */
static void
nd_opt_lla(uint8_t *o, uint8_t t, const uint8_t *mac)
{
	o[0] = t;
	o[1] = 1;
	memcpy(o + 2, mac, 6);
}

/* NS for target from src (:: for DAD: no SLLA) to dst (its solicited-node
 * group, or the target itself with dmac its MAC for a unicast probe). */
static int
nd_send_ns(struct fwd_nd *nd, uint16_t port, const uint8_t *src,
    const uint8_t *target, const uint8_t *ucast_mac, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	bool dad = nd_is_unspec(src);
	unsigned ilen = ND_NS_LEN + (dad ? 0 : 8);
	uint8_t dst[16], dmac[6], *m;

	if (pp == NULL)
		return (-EINVAL);
	if (ucast_mac != NULL) {
		memcpy(dst, target, 16);
		memcpy(dmac, ucast_mac, 6);
	} else {
		nd_solnode(target, dst);
		nd_mcast_mac(dst, dmac);
	}
	if ((m = nd_frame(nd, port, dmac, src, dst, ilen, out)) == NULL)
		return (-ENOBUFS);
	m[0] = FWD_ND_NS;
	memcpy(m + 8, target, 16);
	if (!dad)
		nd_opt_lla(m + ND_NS_LEN, ND_OPT_SLLA, pp->mac);
	nd_csum(m, ilen);
	if (dad)
		nd->st.dad_sent++;
	else
		nd->st.ns_sent++;
	return (0);
}

static int
nd_send_na(struct fwd_nd *nd, uint16_t port, const uint8_t *target,
    const uint8_t *dst, const uint8_t *dmac, uint8_t flags, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	unsigned ilen = ND_NS_LEN + 8;
	uint8_t *m;

	if (pp == NULL)
		return (-EINVAL);
	if ((m = nd_frame(nd, port, dmac, target, dst, ilen, out)) == NULL)
		return (-ENOBUFS);
	m[0] = FWD_ND_NA;
	m[4] = flags;
	memcpy(m + 8, target, 16);
	nd_opt_lla(m + ND_NS_LEN, ND_OPT_TLLA, pp->mac);
	nd_csum(m, ilen);
	nd->st.na_sent++;
	return (0);
}

/* ---- our addresses ---- */

static struct nd_addr *
nd_addr_find(const struct fwd_nd *nd, uint16_t port, const uint8_t *ip6)
{
	for (unsigned i = 0; i < nd->naddr; i++)
		if (nd->addr[i].port == port &&
		    memcmp(nd->addr[i].ip6, ip6, 16) == 0)
			return ((struct nd_addr *)&nd->addr[i]);
	return (NULL);
}

static struct nd_addr *
nd_ll_find(const struct fwd_nd *nd, uint16_t port)
{
	for (unsigned i = 0; i < nd->naddr; i++)
		if (nd->addr[i].port == port && nd->addr[i].ll)
			return ((struct nd_addr *)&nd->addr[i]);
	return (NULL);
}

/* Any of ours in any state, any port (never learned as a neighbour). */
static bool
nd_ours_any(const struct fwd_nd *nd, const uint8_t *ip6)
{
	for (unsigned i = 0; i < nd->naddr; i++)
		if (memcmp(nd->addr[i].ip6, ip6, 16) == 0)
			return (true);
	return (false);
}

bool
fwd_nd_is_ours(const struct fwd_nd *nd, const uint8_t ip6[16])
{
	for (unsigned i = 0; i < nd->naddr; i++)
		if (nd->addr[i].state == FWD_ND_A_PREFERRED &&
		    memcmp(nd->addr[i].ip6, ip6, 16) == 0)
			return (true);
	return (false);
}

bool
fwd_nd_src_for(const struct fwd_nd *nd, uint16_t port, const uint8_t dst[16],
    uint8_t src[16])
{
	const struct nd_addr *ll = NULL, *first = NULL;

	for (unsigned i = 0; i < nd->naddr; i++) {
		const struct nd_addr *a = &nd->addr[i];

		if (a->port != port || a->state != FWD_ND_A_PREFERRED)
			continue;
		if (a->ll) {
			ll = a;
			continue;
		}
		if (dst != NULL && !nd_is_ll(dst) && !nd_is_mcast(dst) &&
		    nd_prefix_match(a->ip6, dst, a->plen)) {
			memcpy(src, a->ip6, 16);
			return (true);
		}
		if (first == NULL)
			first = a;
	}
	if (dst != NULL && (nd_is_ll(dst) || nd_is_mcast(dst)) && ll != NULL)
		first = ll;
	if (first == NULL)
		first = ll;
	if (first == NULL)
		return (false);
	memcpy(src, first->ip6, 16);
	return (true);
}

bool
fwd_nd_ll_get(const struct fwd_nd *nd, uint16_t port, uint8_t ll6[16])
{
	const struct nd_addr *a = nd_ll_find(nd, port);

	if (a == NULL || a->state != FWD_ND_A_PREFERRED)
		return (false);
	memcpy(ll6, a->ip6, 16);
	return (true);
}

static void
nd_addr_event(struct fwd_nd *nd, const struct nd_addr *a, int state,
    const uint8_t *mac)
{
	char buf[LC_IP6_STRLEN];

	if (nd->conf.addr_event != NULL) {
		nd->conf.addr_event(nd->conf.addr_arg, a->port, a->ip6, a->plen,
		    state, mac);
		return;
	}
	if (state == FWD_ND_A_DUPLICATE)
		lc_log(LC_LOG_WARNING,
		    "port %u: IPv6 address %s is in use by another node "
		    "(%02x:%02x:%02x:%02x:%02x:%02x): refused (duplicate "
		    "address detection, RFC 4862)",
		    a->port, lc_inet6_str((const struct lc_ip6 *)a->ip6, buf),
		    mac ? mac[0] : 0, mac ? mac[1] : 0, mac ? mac[2] : 0,
		    mac ? mac[3] : 0, mac ? mac[4] : 0, mac ? mac[5] : 0);
}

/* Send a DAD probe for a now if the port can; else at the next tick. */
static void
nd_dad_start(struct fwd_nd *nd, struct nd_addr *a, uint64_t now,
    struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, a->port);

	if (nd->conf.no_dad) {
		if (a->state != FWD_ND_A_PREFERRED) {
			a->state = FWD_ND_A_PREFERRED;
			nd_addr_event(nd, a, FWD_ND_A_PREFERRED, NULL);
		}
		return;
	}
	a->state = FWD_ND_A_TENTATIVE;
	a->dad_left = (uint8_t)nd->conf.dad_transmits;
	a->t_dad = now;
	if (pp != NULL && pp->up && out != NULL &&
	    nd_send_ns(nd, a->port, zero16, a->ip6, NULL, out) == 0) {
		a->dad_left--;
		a->t_dad = now + nd->conf.retrans_ms;
	}
}

static void
nd_dad_dup(struct fwd_nd *nd, struct nd_addr *a, const uint8_t *mac)
{
	a->state = FWD_ND_A_DUPLICATE;
	nd->st.dad_dup++;
	nd_addr_event(nd, a, FWD_ND_A_DUPLICATE, mac);
}

static int
nd_addr_insert(struct fwd_nd *nd, uint16_t port, const uint8_t *ip6,
    unsigned plen, bool ll, bool derived, struct fwd_out *out)
{
	struct nd_addr *a;

	if (nd->naddr >= FWD_ND_ADDR_MAX)
		return (-ENOSPC);
	a = &nd->addr[nd->naddr++];
	memset(a, 0, sizeof(*a));
	memcpy(a->ip6, ip6, 16);
	a->plen = (uint8_t)plen;
	a->port = port;
	a->ll = ll;
	a->derived = derived;
	nd_dad_start(nd, a, nd_now(nd), out);
	return (0);
}

static void
nd_addr_remove(struct fwd_nd *nd, struct nd_addr *a)
{
	struct nd_addr old = *a;

	*a = nd->addr[--nd->naddr];
	nd_addr_event(nd, &old, 0, NULL);
}

int
fwd_nd_addr_add(struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16],
    unsigned plen, struct fwd_out *out)
{
	static const uint8_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 1};

	if (port >= FWD_PORT_MAX || ip6 == NULL || plen < 1 || plen > 128 ||
	    nd_is_mcast(ip6) || nd_is_unspec(ip6) || nd_is_ll(ip6) ||
	    memcmp(ip6, lo, 16) == 0 ||
	    lc_ip6_is_v4mapped((const struct lc_ip6 *)ip6) ||
	    nd->port[port].disabled)
		return (-EINVAL);
	if (nd_addr_find(nd, port, ip6) != NULL)
		return (-EEXIST);
	return (nd_addr_insert(nd, port, ip6, plen, false, false, out));
}

int
fwd_nd_addr_del(struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16])
{
	struct nd_addr *a = nd_addr_find(nd, port, ip6);

	if (a == NULL || a->ll)
		return (-ENOENT);
	nd_addr_remove(nd, a);
	return (0);
}

int
fwd_nd_addr_state(const struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16])
{
	const struct nd_addr *a = nd_addr_find(nd, port, ip6);

	return (a == NULL ? -ENOENT : a->state);
}

int
fwd_nd_addr_walk(const struct fwd_nd *nd,
    int (*cb)(const struct fwd_nd_addr_info *, void *), void *arg)
{
	struct fwd_nd_addr_info info;
	int rv;

	for (unsigned i = 0; i < nd->naddr; i++) {
		const struct nd_addr *a = &nd->addr[i];

		memcpy(info.ip6, a->ip6, 16);
		info.plen = a->plen;
		info.port = a->port;
		info.state = a->state;
		info.link_local = a->ll;
		info.derived = a->derived;
		if ((rv = cb(&info, arg)) != 0)
			return (rv);
	}
	return (0);
}

static int
nd_ll_apply(struct fwd_nd *nd, uint16_t port, const uint8_t *ll6, bool derived,
    struct fwd_out *out)
{
	struct nd_addr *a = nd_ll_find(nd, port);

	if (a != NULL) {
		if (memcmp(a->ip6, ll6, 16) == 0) {
			a->derived = derived;
			return (0);
		}
		nd_addr_remove(nd, a);
	}
	return (nd_addr_insert(nd, port, ll6, 64, true, derived, out));
}

int
fwd_nd_ll_set(struct fwd_nd *nd, uint16_t port, const uint8_t *ll6,
    struct fwd_out *out)
{
	const struct fwd_adj_port *pp;
	uint8_t d[16];

	if (port >= FWD_PORT_MAX || nd->port[port].disabled)
		return (-EINVAL);
	if (ll6 != NULL) {
		static const uint8_t pfx[8] = {0xfe, 0x80};

		if (memcmp(ll6, pfx, 8) != 0 || memcmp(ll6 + 8, zero16, 8) == 0)
			return (-EINVAL);
		nd->port[port].ll_auto = false;
		return (nd_ll_apply(nd, port, ll6, false, out));
	}
	nd->port[port].ll_auto = true;
	if ((pp = nd_pport(nd, port)) == NULL)
		return (0); /* at fwd_nd_port_up */
	fwd_nd_ll_from_mac(pp->mac, d);
	return (nd_ll_apply(nd, port, d, true, out));
}

/* ---- the neighbour table ---- */

static struct nd_neigh *
nd_find(const struct fwd_nd *nd, uint16_t port, const uint8_t *ip6)
{
	uint32_t i = nd->bucket[nd_hash(nd, port, ip6)];

	while (i != ND_NONE) {
		struct nd_neigh *n = &nd->ent[i];

		if (n->port == port && memcmp(n->ip6, ip6, 16) == 0)
			return (n);
		i = n->next;
	}
	return (NULL);
}

static struct nd_neigh *
nd_create(struct fwd_nd *nd, uint16_t port, const uint8_t *ip6)
{
	struct nd_neigh *n;
	unsigned h;
	uint32_t i;

	if (nd->nfree == 0) {
		nd->st.table_full++;
		return (NULL);
	}
	i = nd->freel[--nd->nfree];
	n = &nd->ent[i];
	memset(n, 0, sizeof(*n));
	memcpy(n->ip6, ip6, 16);
	n->port = port;
	n->host_adj = FWD_FIB_NH_NONE;
	h = nd_hash(nd, port, ip6);
	n->next = nd->bucket[h];
	nd->bucket[h] = i;
	return (n);
}

static void
nd_info(const struct nd_neigh *n, struct fwd_nd_info *info)
{
	memcpy(info->ip6, n->ip6, 16);
	info->port = n->port;
	memcpy(info->mac, n->mac, 6);
	info->state = n->state;
	info->queued = n->q.n;
	info->router = n->router;
	info->expires_ms = (n->state == FWD_ND_STATIC) ? 0 : n->t_next;
	info->confirmed_ms = n->t_conf;
}

static void
nd_neigh_event(struct fwd_nd *nd, const struct nd_neigh *n)
{
	struct fwd_nd_info info;

	if (nd->conf.neigh_event == NULL)
		return;
	nd_info(n, &info);
	nd->conf.neigh_event(nd->conf.neigh_arg, &info);
}

static void
nd_queue_clear(struct fwd_nd *nd, struct nd_neigh *n)
{
	fwd_nq_clear(&nd->nq, &n->q);
}

/* Is ip6 on one of port's connected (global) subnets? */
static bool
nd_on_link(const struct fwd_nd *nd, uint16_t port, const uint8_t *ip6)
{
	for (unsigned i = 0; i < nd->naddr; i++) {
		const struct nd_addr *a = &nd->addr[i];

		if (a->port == port && !a->ll && a->plen < 128 &&
		    a->state == FWD_ND_A_PREFERRED &&
		    nd_prefix_match(a->ip6, ip6, a->plen))
			return (true);
	}
	return (false);
}

static void
nd_host_route_del(struct fwd_nd *nd, struct nd_neigh *n)
{
	struct fwd_qsbr *q;
	unsigned nh;

	if (n->host_adj == FWD_FIB_NH_NONE || nd->conf.fib6 == NULL)
		return;
	q = fwd_fib6_qsbr(nd->conf.fib6);
	if (fwd_fib6_get(nd->conf.fib6, n->ip6, 128, &nh) == 0 &&
	    nh == n->host_adj)
		(void)fwd_fib6_del(nd->conf.fib6, n->ip6, 128);
	fwd_nq_release_later(&nd->nq, nd->adj, q, n->host_adj);
	n->host_adj = FWD_FIB_NH_NONE;
}

static void
nd_host_route_add(struct fwd_nd *nd, struct nd_neigh *n)
{
	unsigned nh;
	int idx;

	if (nd->conf.fib6 == NULL || !nd_on_link(nd, n->port, n->ip6))
		return;
	if (n->host_adj == FWD_FIB_NH_NONE) {
		if (fwd_fib6_get(nd->conf.fib6, n->ip6, 128, &nh) == 0)
			return; /* a /128 from the RIB (or ours) wins */
		if ((idx = fwd_adj_alloc(nd->adj)) < 0)
			return;
		if (fwd_adj_set_nh6(nd->adj, (unsigned)idx, n->port, n->ip6,
			n->mac) != 0) {
			fwd_adj_release(nd->adj, (unsigned)idx);
			return;
		}
		n->host_adj = (uint16_t)idx;
	} else
		(void)fwd_adj_set_nh6(nd->adj, n->host_adj, n->port, n->ip6,
		    n->mac);
	if (fwd_fib6_add(nd->conf.fib6, n->ip6, 128, n->host_adj) != 0)
		nd_host_route_del(nd, n);
}

/* The MAC of n is usable: adjacencies FORWARD, host route. */
static void
nd_publish(struct fwd_nd *nd, struct nd_neigh *n)
{
	(void)fwd_adj_neigh_set6(nd->adj, n->port, n->ip6, n->mac);
	nd_host_route_add(nd, n);
}

static void
nd_destroy(struct fwd_nd *nd, struct nd_neigh *n)
{
	uint32_t idx = (uint32_t)(n - nd->ent);
	uint32_t *pp = &nd->bucket[nd_hash(nd, n->port, n->ip6)];

	nd_host_route_del(nd, n);
	(void)fwd_adj_neigh_set6(nd->adj, n->port, n->ip6, NULL);
	nd_queue_clear(nd, n);
	while (*pp != ND_NONE && *pp != idx)
		pp = &nd->ent[*pp].next;
	if (*pp == idx)
		*pp = n->next;
	n->state = FWD_ND_FREE;
	nd_neigh_event(nd, n);
	nd->freel[nd->nfree++] = idx;
}

/* Send frame (an IPv6 packet routed to n, hop limit not yet decremented). */
static bool
nd_send_to(struct fwd_nd *nd, const struct nd_neigh *n, const uint8_t *frame,
    unsigned len, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, n->port);
	unsigned il;
	uint8_t *o;

	if (pp == NULL || !pp->up || out == NULL || len < FWD_IPV6_MIN_FRAME)
		return (false);
	il = FWD_IPV6_HLEN + ntohs(fwd_ld16(frame + ND_IP + FWD_IP6_PLEN));
	if (il > pp->mtu || il + FWD_ETH_HLEN > len ||
	    frame[ND_IP + FWD_IP6_HLIM] <= 1)
		return (false);
	if ((o = fwd_out_push(out, n->port, FWD_ETH_HLEN + il)) == NULL)
		return (false);
	memcpy(o, n->mac, 6);
	memcpy(o + 6, pp->mac, 6);
	memcpy(o + 12, frame + 12, 2 + il);
	fwd_ip6_hlim_dec(o + ND_IP);
	return (true);
}

static void
nd_flush_queue(struct fwd_nd *nd, struct nd_neigh *n, struct fwd_out *out)
{
	for (unsigned k = 0; k < n->q.n; k++) {
		unsigned l;
		const uint8_t *fr = fwd_nq_frame(&nd->nq, &n->q, k, &l);

		if (nd_send_to(nd, n, fr, l, out))
			nd->st.released++;
		else
			nd->st.queue_drops++;
	}
	nd_queue_clear(nd, n);
}

/* n gets MAC mac in state st (REACHABLE, STALE or STATIC). */
static void
nd_set(struct fwd_nd *nd, struct nd_neigh *n, const uint8_t *mac, uint8_t st,
    uint64_t now, struct fwd_out *out)
{
	bool was_inc = n->state == FWD_ND_INCOMPLETE || n->state == FWD_ND_FREE;
	bool changed = was_inc || memcmp(n->mac, mac, 6) != 0;
	bool ev = changed || n->state != st;

	if (n->state == FWD_ND_INCOMPLETE)
		nd->st.resolved++;
	memcpy(n->mac, mac, 6);
	n->state = st;
	n->probes = 0;
	if (st == FWD_ND_REACHABLE) {
		n->t_conf = now;
		n->t_next = now + nd->reachable_ms;
	} else if (st == FWD_ND_STALE)
		n->t_next = now + nd->conf.gc_stale_ms;
	else {
		n->t_conf = now;
		n->t_next = 0;
	}
	if (changed)
		nd_publish(nd, n);
	nd_flush_queue(nd, n, out);
	if (ev)
		nd_neigh_event(nd, n);
}

/* 7.2.3 / 6.2.6 / 6.3.4: a Source Link-Layer Address option from ip6. */
static void
nd_learn(struct fwd_nd *nd, uint16_t port, const uint8_t *ip6,
    const uint8_t *mac, bool router, bool set_router, uint64_t now,
    struct fwd_out *out)
{
	struct nd_neigh *n = nd_find(nd, port, ip6);

	if (nd_ours_any(nd, ip6))
		return;
	if (n == NULL && (n = nd_create(nd, port, ip6)) == NULL)
		return;
	if (set_router)
		n->router = router;
	if (n->state == FWD_ND_STATIC)
		return;
	if (n->state == FWD_ND_FREE || n->state == FWD_ND_INCOMPLETE ||
	    memcmp(n->mac, mac, 6) != 0)
		nd_set(nd, n, mac, FWD_ND_STALE, now, out);
}

/* ---- input ---- */

struct nd_opts {
	const uint8_t *slla, *tlla;
	const uint8_t *mtu;
	unsigned nprefix;
};

static int
nd_bad(struct fwd_nd *nd, enum fwd_nd_bad why)
{
	nd->st.bad[why]++;
	return (-EINVAL);
}

/* Options from off to ilen (RFC 4861 4.6): none of length 0 or past the
 * end; link-layer addresses unicast. */
static bool
nd_opts_parse(const uint8_t *m, unsigned off, unsigned ilen, struct nd_opts *o)
{
	memset(o, 0, sizeof(*o));
	while (off < ilen) {
		unsigned ol;

		if (off + 2 > ilen)
			return (false);
		ol = m[off + 1] * 8u;
		if (ol == 0 || off + ol > ilen)
			return (false);
		switch (m[off]) {
		case ND_OPT_SLLA:
		case ND_OPT_TLLA:
			if (!fwd_nd_mac_ok(m + off + 2))
				return (false);
			if (m[off] == ND_OPT_SLLA)
				o->slla = m + off + 2;
			else
				o->tlla = m + off + 2;
			break;
		case ND_OPT_MTU:
			o->mtu = m + off;
			break;
		case ND_OPT_PFX:
			o->nprefix++;
			break;
		default:
			break; /* 4.6: unknown options are skipped */
		}
		off += ol;
	}
	return (true);
}

static int
nd_in_ns(struct fwd_nd *nd, uint16_t port, const uint8_t *f, const uint8_t *ip,
    const uint8_t *m, const struct nd_opts *o, uint64_t now,
    struct fwd_out *out)
{
	const uint8_t *src = ip + FWD_IP6_SRC, *dst = ip + FWD_IP6_DST;
	const uint8_t *target = m + 8;
	bool unspec = nd_is_unspec(src);
	struct nd_addr *a;
	uint8_t mmac[6];

	if (nd_is_mcast(target))
		return (nd_bad(nd, FWD_ND_BAD_TARGET));
	if (unspec && (!nd_is_solnode(dst) || o->slla != NULL))
		return (nd_bad(nd, FWD_ND_BAD_SRC));
	nd->st.rx_ns++;
	if ((a = nd_addr_find(nd, port, target)) == NULL)
		return (-ENOENT);
	if (a->state == FWD_ND_A_TENTATIVE) {
		/* RFC 4862 5.4.3: from :: another node is doing DAD for it */
		if (unspec)
			nd_dad_dup(nd, a, f + 6);
		return (0);
	}
	if (a->state != FWD_ND_A_PREFERRED)
		return (-ENOENT);
	if (unspec) {
		/* 7.2.4: to all-nodes, S clear */
		nd_mcast_mac(all_nodes, mmac);
		(void)nd_send_na(nd, port, target, all_nodes, mmac,
		    ND_NA_R | ND_NA_O, out);
		return (0);
	}
	if (o->slla != NULL)
		nd_learn(nd, port, src, o->slla, false, false, now, out);
	(void)nd_send_na(nd, port, target, src,
	    o->slla != NULL ? o->slla : f + 6, ND_NA_R | ND_NA_S | ND_NA_O,
	    out);
	return (0);
}

static int
nd_in_na(struct fwd_nd *nd, uint16_t port, const uint8_t *f, const uint8_t *ip,
    const uint8_t *m, const struct nd_opts *o, uint64_t now,
    struct fwd_out *out)
{
	const uint8_t *target = m + 8;
	bool r = m[4] & ND_NA_R, s = m[4] & ND_NA_S, ov = m[4] & ND_NA_O;
	struct nd_addr *a;
	struct nd_neigh *n;
	bool differ;

	if (nd_is_mcast(target))
		return (nd_bad(nd, FWD_ND_BAD_TARGET));
	if (s && nd_is_mcast(ip + FWD_IP6_DST))
		return (nd_bad(nd, FWD_ND_BAD_DST));
	nd->st.rx_na++;
	if ((a = nd_addr_find(nd, port, target)) != NULL) {
		if (a->state == FWD_ND_A_TENTATIVE)
			nd_dad_dup(nd, a, o->tlla != NULL ? o->tlla : f + 6);
		else if (a->state == FWD_ND_A_PREFERRED)
			nd->st.addr_conflict++; /* RFC 4862 5.4.4 */
		return (0);			/* ours: never learned */
	}
	if ((n = nd_find(nd, port, target)) == NULL)
		return (-ENOENT);
	if (n->state == FWD_ND_STATIC)
		return (0);
	if (n->state == FWD_ND_INCOMPLETE) {
		if (o->tlla == NULL)
			return (0);
		n->router = r;
		nd_set(nd, n, o->tlla, s ? FWD_ND_REACHABLE : FWD_ND_STALE, now,
		    out);
		return (0);
	}
	differ = o->tlla != NULL && memcmp(o->tlla, n->mac, 6) != 0;
	if (!ov && differ) {
		if (n->state == FWD_ND_REACHABLE) {
			n->state = FWD_ND_STALE;
			n->t_next = now + nd->conf.gc_stale_ms;
			nd_neigh_event(nd, n);
		}
		return (0);
	}
	n->router = r;
	if (s)
		nd_set(nd, n, differ ? o->tlla : n->mac, FWD_ND_REACHABLE, now,
		    out);
	else if (differ)
		nd_set(nd, n, o->tlla, FWD_ND_STALE, now, out);
	return (0);
}

static int
nd_in_rs(struct fwd_nd *nd, uint16_t port, const uint8_t *ip,
    const struct nd_opts *o, uint64_t now, struct fwd_out *out)
{
	const uint8_t *src = ip + FWD_IP6_SRC;
	struct nd_port *p = &nd->port[port];
	uint64_t t;

	if (nd_is_unspec(src) && o->slla != NULL)
		return (nd_bad(nd, FWD_ND_BAD_SRC));
	nd->st.rx_rs++;
	if (!p->ra_on)
		return (-ENOENT);
	if (!nd_is_unspec(src) && o->slla != NULL)
		nd_learn(nd, port, src, o->slla, false, true, now, out);
	/* 6.2.6: within MAX_RA_DELAY_TIME, and MIN_DELAY_BETWEEN_RAS after
	 * the last multicast one */
	t = now + nd_rand_range(nd, 0, ND_MAX_RA_DELAY_TIME);
	if (p->ra_sent > 0 && t < p->ra_last + ND_MIN_DELAY_BETWEEN_RAS)
		t = p->ra_last + ND_MIN_DELAY_BETWEEN_RAS;
	if (t < p->ra_next)
		p->ra_next = t;
	return (0);
}

static int
nd_in_ra(struct fwd_nd *nd, uint16_t port, const uint8_t *ip,
    const struct nd_opts *o, uint64_t now, struct fwd_out *out)
{
	if (!nd_is_ll(ip + FWD_IP6_SRC))
		return (nd_bad(nd, FWD_ND_BAD_SRC));
	nd->st.rx_ra++;
	/* another router on the link: learned, flagged */
	if (o->slla != NULL)
		nd_learn(nd, port, ip + FWD_IP6_SRC, o->slla, true, true, now,
		    out);
	return (0);
}

int
fwd_nd_input(struct fwd_nd *nd, uint16_t port, const uint8_t *f, unsigned len,
    struct fwd_out *out)
{
	static const unsigned minlen[5] = {ND_RS_LEN, ND_RA_LEN, ND_NS_LEN,
	    ND_NS_LEN, ND_RED_LEN};
	static const unsigned optoff[5] = {ND_RS_LEN, ND_RA_LEN, ND_NS_LEN,
	    ND_NS_LEN, ND_RED_LEN};
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	unsigned plen, end, off, proto, ilen, type;
	const uint8_t *ip, *m;
	struct nd_opts o;
	uint64_t now;

	nd->st.rx++;
	if (pp == NULL || nd->port[port].disabled)
		return (nd_bad(nd, FWD_ND_BAD_PORT));
	if (f == NULL || len < FWD_IPV6_MIN_FRAME ||
	    fwd_ld16(f + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV6) ||
	    (f[ND_IP] >> 4) != 6)
		return (nd_bad(nd, FWD_ND_BAD_FRAME));
	ip = f + ND_IP;
	plen = ntohs(fwd_ld16(ip + FWD_IP6_PLEN));
	if (plen > len - FWD_IPV6_MIN_FRAME)
		return (nd_bad(nd, FWD_ND_BAD_FRAME));
	end = FWD_IPV6_HLEN + plen;
	off = FWD_IPV6_HLEN;
	proto = ip[FWD_IP6_NXT];
	if (fwd_ip6_nh_is_ext(proto) &&
	    fwd_pkt6_ext_walk(ip, end, proto, &off, &proto) != FWD_R_OK)
		return (nd_bad(nd, FWD_ND_BAD_FRAME));
	if (proto != FWD_IP6_NH_ICMPV6 || off + 4 > end) {
		nd->st.rx_other++;
		return (-ENOENT);
	}
	m = ip + off;
	ilen = end - off;
	type = m[0];
	if (type < FWD_ND_RS || type > FWD_ND_REDIRECT) {
		nd->st.rx_other++;
		return (-ENOENT);
	}
	/* RFC 6980: no extension headers (no fragments) in ND */
	if (off != FWD_IPV6_HLEN)
		return (nd_bad(nd, FWD_ND_BAD_EXT));
	if (ip[FWD_IP6_HLIM] != 255)
		return (nd_bad(nd, FWD_ND_BAD_HLIM));
	if (!fwd_icmp6_cksum_ok(ip + FWD_IP6_SRC, ip + FWD_IP6_DST, m, ilen))
		return (nd_bad(nd, FWD_ND_BAD_CSUM));
	if (m[1] != 0)
		return (nd_bad(nd, FWD_ND_BAD_CODE));
	if (ilen < minlen[type - FWD_ND_RS])
		return (nd_bad(nd, FWD_ND_BAD_LEN));
	if (!nd_opts_parse(m, optoff[type - FWD_ND_RS], ilen, &o))
		return (nd_bad(nd, FWD_ND_BAD_OPT));
	if (nd_is_mcast(ip + FWD_IP6_SRC))
		return (nd_bad(nd, FWD_ND_BAD_SRC));
	/* our own frame coming back (a looped DAD probe is not a duplicate) */
	if (memcmp(f + 6, pp->mac, 6) == 0) {
		nd->st.rx_other++;
		return (-ENOENT);
	}
	now = nd_now(nd);
	switch (type) {
	case FWD_ND_NS:
		return (nd_in_ns(nd, port, f, ip, m, &o, now, out));
	case FWD_ND_NA:
		return (nd_in_na(nd, port, f, ip, m, &o, now, out));
	case FWD_ND_RS:
		return (nd_in_rs(nd, port, ip, &o, now, out));
	case FWD_ND_RA:
		return (nd_in_ra(nd, port, ip, &o, now, out));
	default:
		nd->st.rx_other++; /* Redirect: for hosts (8.1) */
		return (-ENOENT);
	}
}

/* ---- resolution ---- */

static int
nd_solicit(struct fwd_nd *nd, struct nd_neigh *n, bool unicast,
    struct fwd_out *out)
{
	uint8_t src[16];

	if (!fwd_nd_src_for(nd, n->port, n->ip6, src))
		return (-EADDRNOTAVAIL);
	return (
	    nd_send_ns(nd, n->port, src, n->ip6, unicast ? n->mac : NULL, out));
}

int
fwd_nd_resolve(struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16],
    uint16_t in_port, const uint8_t *frame, unsigned len, struct fwd_out *out)
{
	struct nd_neigh *n;
	bool fresh = false;
	uint64_t now;

	if (nd_pport(nd, port) == NULL || ip6 == NULL || nd_is_mcast(ip6) ||
	    nd_is_unspec(ip6) || nd->port[port].disabled ||
	    (frame != NULL &&
		(len < FWD_IPV6_MIN_FRAME || len > FWD_FRAME_MAX ||
		    fwd_ld16(frame + FWD_ETH_TYPE) != htons(FWD_ETH_P_IPV6) ||
		    (frame[ND_IP] >> 4) != 6 ||
		    ntohs(fwd_ld16(frame + ND_IP + FWD_IP6_PLEN)) >
			len - FWD_IPV6_MIN_FRAME)))
		return (-EINVAL);
	if (nd_ours_any(nd, ip6))
		return (-EHOSTUNREACH);
	now = nd_now(nd);
	if ((n = nd_find(nd, port, ip6)) == NULL) {
		if ((n = nd_create(nd, port, ip6)) == NULL)
			return (-ENOSPC);
		n->state = FWD_ND_INCOMPLETE;
		n->t_conf = now;
		fresh = true;
	}
	n->used = true;
	if (n->state != FWD_ND_INCOMPLETE) {
		/* known: a worker raced the adjacency update, or a glean
		 * route without a host route; 7.3.3: STALE -> DELAY */
		if (n->state == FWD_ND_STALE) {
			n->state = FWD_ND_DELAY;
			n->t_next = now + nd->conf.delay_first_probe_ms;
			nd_neigh_event(nd, n);
		}
		nd_publish(nd, n);
		if (frame != NULL) {
			if (nd_send_to(nd, n, frame, len, out))
				nd->st.released++;
			else
				nd->st.queue_drops++;
		}
		return (0);
	}
	if (frame != NULL) {
		unsigned r = fwd_nq_push(&nd->nq, &n->q, frame, len, in_port);

		nd->st.queue_drops += r != FWD_NQ_QUEUED;
		nd->st.queued += r != FWD_NQ_DROPPED;
	}
	if (fresh) {
		n->probes = 0;
		n->t_next = now;
		if (out != NULL && nd_solicit(nd, n, false, out) == 0) {
			n->probes = 1;
			n->t_next = now + nd->conf.retrans_ms;
		}
		nd_neigh_event(nd, n);
	}
	return (0);
}

int
fwd_nd_punt(struct fwd_nd *nd, uint16_t in_port, unsigned adj_idx,
    const uint8_t *frame, unsigned len, struct fwd_out *out)
{
	const struct fwd_adj *ad;
	const uint8_t *target;

	if (adj_idx >= nd->adj->size || frame == NULL ||
	    len < FWD_IPV6_MIN_FRAME || !fwd_adj_is_v6(nd->adj, adj_idx))
		return (-EINVAL);
	ad = &nd->adj->ent[adj_idx];
	if (ad->kind == FWD_ADJ_K_NH)
		target = fwd_adj_gw6(nd->adj, adj_idx);
	else if (ad->kind == FWD_ADJ_K_GLEAN)
		target = frame + ND_IP + FWD_IP6_DST;
	else
		return (-EINVAL);
	if (target == NULL)
		return (-EINVAL);
	return (fwd_nd_resolve(nd, ad->port, target, in_port, frame, len, out));
}

/* ---- static neighbours ---- */

static bool
nd_evict_learned(struct fwd_nd *nd)
{
	static const uint8_t order[] = {FWD_ND_STALE, FWD_ND_PROBE,
	    FWD_ND_DELAY, FWD_ND_REACHABLE, FWD_ND_INCOMPLETE};

	for (unsigned k = 0; k < sizeof(order); k++)
		for (unsigned i = 0; i < nd->conf.max_neigh; i++) {
			struct nd_neigh *n = &nd->ent[i];

			if (n->state != order[k])
				continue;
			nd->st.queue_drops += n->q.n;
			nd->st.evicted++;
			nd_destroy(nd, n);
			return (true);
		}
	return (false);
}

int
fwd_nd_static_add(struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac, struct fwd_out *out)
{
	struct nd_neigh *n;

	if (!fwd_nd_mac_ok(mac) || port >= FWD_PORT_MAX || ip6 == NULL ||
	    nd_is_mcast(ip6) || nd_is_unspec(ip6) || nd_ours_any(nd, ip6))
		return (-EINVAL);
	if ((n = nd_find(nd, port, ip6)) == NULL &&
	    (n = nd_create(nd, port, ip6)) == NULL &&
	    (!nd_evict_learned(nd) || (n = nd_create(nd, port, ip6)) == NULL))
		return (-ENOSPC);
	nd_set(nd, n, mac, FWD_ND_STATIC, nd_now(nd), out);
	return (0);
}

int
fwd_nd_static_del(struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16])
{
	struct nd_neigh *n = nd_find(nd, port, ip6);

	if (n == NULL || n->state != FWD_ND_STATIC)
		return (-ENOENT);
	nd_destroy(nd, n);
	return (0);
}

/* ---- Router Advertisements ---- */

static unsigned
nd_ra_min_ms(const struct fwd_nd_ra_conf *c)
{
	unsigned max = c->interval_max_s;

	/* 6.2.1: 0.33 x Max when Max >= 9 s, else Max (min >= 3 s) */
	return (max >= 9 ? max * 330 : max * 1000);
}

/* Build and send port's RA (lifetime 0 when final). */
static int
nd_send_ra(struct fwd_nd *nd, uint16_t port, bool final, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	const struct fwd_nd_ra_conf *c = &nd->port[port].ra;
	struct fwd_nd_ra_prefix auto_pfx[FWD_ND_RA_PFX_MAX];
	const struct fwd_nd_ra_prefix *px = c->prefix;
	unsigned npx = c->nprefix, ilen;
	uint8_t src[16], dmac[6], *m, *o;

	if (pp == NULL || !fwd_nd_ll_get(nd, port, src))
		return (-EADDRNOTAVAIL); /* 6.1.2: only from a link-local */
	if (npx == 0) {
		/* the /64s of the port's global addresses */
		for (unsigned i = 0; i < nd->naddr && npx < FWD_ND_RA_PFX_MAX;
		     i++) {
			const struct nd_addr *a = &nd->addr[i];
			struct fwd_nd_ra_prefix *q = &auto_pfx[npx];
			bool dup = false;

			if (a->port != port || a->ll || a->plen != 64 ||
			    a->state != FWD_ND_A_PREFERRED)
				continue;
			memset(q, 0, sizeof(*q));
			memcpy(q->prefix, a->ip6, 8);
			for (unsigned k = 0; k < npx; k++)
				dup |= memcmp(auto_pfx[k].prefix, q->prefix,
					   16) == 0;
			if (dup)
				continue;
			q->len = 64;
			q->autonomous = q->on_link = true;
			npx++;
		}
		px = auto_pfx;
	}
	ilen = ND_RA_LEN + 8 + (c->mtu ? 8 : 0) + 32 * npx;
	nd_mcast_mac(all_nodes, dmac);
	if ((m = nd_frame(nd, port, dmac, src, all_nodes, ilen, out)) == NULL)
		return (-ENOBUFS);
	m[0] = FWD_ND_RA;
	m[4] = (uint8_t)(c->hop_limit ? c->hop_limit : 64);
	m[5] = (c->managed ? 0x80 : 0) | (c->other ? 0x40 : 0);
	fwd_st16(m + 6,
	    htons(final ?
		    0 :
		    (uint16_t)(c->router_lifetime_s ? c->router_lifetime_s :
						      1800)));
	/* reachable time, retrans timer: 0, unspecified */
	o = m + ND_RA_LEN;
	nd_opt_lla(o, ND_OPT_SLLA, pp->mac);
	o += 8;
	if (c->mtu) {
		o[0] = ND_OPT_MTU;
		o[1] = 1;
		fwd_st32(o + 4, htonl(c->mtu));
		o += 8;
	}
	for (unsigned i = 0; i < npx; i++, o += 32) {
		o[0] = ND_OPT_PFX;
		o[1] = 4;
		o[2] = px[i].len;
		o[3] = (px[i].on_link ? 0x80 : 0) |
		    (px[i].autonomous ? 0x40 : 0);
		fwd_st32(o + 4, htonl(px[i].valid_s ? px[i].valid_s : 2592000));
		fwd_st32(o + 8,
		    htonl(px[i].preferred_s ? px[i].preferred_s : 604800));
		memcpy(o + 16, px[i].prefix, 16);
	}
	nd_csum(m, ilen);
	nd->st.ra_sent++;
	return (0);
}

/* After an RA went out at now: the next one (6.2.4). */
static void
nd_ra_schedule(struct fwd_nd *nd, struct nd_port *p, uint64_t now)
{
	uint64_t max = (uint64_t)p->ra.interval_max_s * 1000;
	uint64_t iv = nd_rand_range(nd, nd_ra_min_ms(&p->ra), max);

	p->ra_sent++;
	p->ra_last = now;
	if (p->ra_sent <= ND_MAX_INITIAL_RTR_ADVERTISEMENTS &&
	    iv > ND_MAX_INITIAL_RTR_ADVERT_INTERVAL)
		iv = ND_MAX_INITIAL_RTR_ADVERT_INTERVAL;
	p->ra_next = now + iv;
}

int
fwd_nd_ra_check(const struct fwd_nd_ra_conf *c)
{
	if ((c->interval_max_s != 0 &&
		(c->interval_max_s < 4 || c->interval_max_s > 1800)) ||
	    c->router_lifetime_s > 9000 ||
	    (c->mtu != 0 && (c->mtu < 1280 || c->mtu > 65535)) ||
	    c->hop_limit > 255 || c->nprefix > FWD_ND_RA_PFX_MAX)
		return (-EINVAL);
	for (unsigned i = 0; i < c->nprefix; i++) {
		const struct fwd_nd_ra_prefix *q = &c->prefix[i];
		uint8_t z[16];

		if (q->len < 1 || q->len > 128 || nd_is_ll(q->prefix) ||
		    nd_is_mcast(q->prefix))
			return (-EINVAL);
		memcpy(z, q->prefix, 16);
		for (unsigned b = q->len; b < 128; b++)
			z[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
		if (memcmp(z, q->prefix, 16) != 0)
			return (-EINVAL); /* host bits set */
		if ((q->preferred_s ? q->preferred_s : 604800) >
		    (q->valid_s ? q->valid_s : 2592000))
			return (-EINVAL);
	}
	return (0);
}

int
fwd_nd_ra_set(struct fwd_nd *nd, uint16_t port, const struct fwd_nd_ra_conf *c,
    struct fwd_out *out)
{
	struct nd_port *p;
	uint64_t now;

	if (port >= FWD_PORT_MAX ||
	    (c != NULL && c->enabled && fwd_nd_ra_check(c)))
		return (-EINVAL);
	p = &nd->port[port];
	now = nd_now(nd);
	if (c == NULL || !c->enabled || p->disabled) {
		if (p->ra_on && out != NULL)
			(void)nd_send_ra(nd, port, true, out);
		p->ra_on = false;
		return (c != NULL && c->enabled ? -EINVAL : 0);
	}
	p->ra = *c;
	if (p->ra.interval_max_s == 0)
		p->ra.interval_max_s = 600;
	if (!p->ra_on) {
		p->ra_on = true;
		p->ra_sent = 0;
		p->ra_next = now;
		if (out != NULL && nd_send_ra(nd, port, false, out) == 0)
			nd_ra_schedule(nd, p, now);
	}
	return (0);
}

bool
fwd_nd_ra_enabled(const struct fwd_nd *nd, uint16_t port)
{
	return (port < FWD_PORT_MAX && nd->port[port].ra_on);
}

void
fwd_nd_shutdown(struct fwd_nd *nd, struct fwd_out *out)
{
	for (uint16_t p = 0; p < FWD_PORT_MAX; p++)
		if (nd->port[p].ra_on) {
			(void)nd_send_ra(nd, p, true, out);
			nd->port[p].ra_on = false;
		}
}

/* ---- ports ---- */

void
fwd_nd_port_flush(struct fwd_nd *nd, uint16_t port)
{
	for (unsigned i = 0; i < nd->conf.max_neigh; i++) {
		struct nd_neigh *n = &nd->ent[i];

		if (n->state != FWD_ND_FREE && n->state != FWD_ND_STATIC &&
		    n->port == port)
			nd_destroy(nd, n);
	}
}

void
fwd_nd_port_disable(struct fwd_nd *nd, uint16_t port, bool off,
    struct fwd_out *out)
{
	if (port >= FWD_PORT_MAX)
		return;
	if (!off) {
		nd->port[port].disabled = false;
		return;
	}
	(void)fwd_nd_ra_set(nd, port, NULL, out);
	for (unsigned i = 0; i < nd->naddr;)
		if (nd->addr[i].port == port)
			nd_addr_remove(nd, &nd->addr[i]);
		else
			i++;
	fwd_nd_port_flush(nd, port);
	nd->port[port].disabled = true;
	nd->port[port].ll_auto = false;
}

void
fwd_nd_port_up(struct fwd_nd *nd, uint16_t port, struct fwd_out *out)
{
	const struct fwd_adj_port *pp = nd_pport(nd, port);
	struct nd_port *p;
	uint64_t now;

	if (pp == NULL || nd->port[port].disabled)
		return;
	p = &nd->port[port];
	now = nd_now(nd);
	/* a new derived link-local is tentative (its probe sent below with
	 * every other tentative address's) */
	if (p->ll_auto) {
		uint8_t d[16];

		fwd_nd_ll_from_mac(pp->mac, d);
		(void)nd_ll_apply(nd, port, d, true, NULL);
	}
	for (unsigned i = 0; i < nd->naddr; i++) {
		struct nd_addr *a = &nd->addr[i];

		if (a->port == port && a->state == FWD_ND_A_TENTATIVE)
			nd_dad_start(nd, a, now, out);
	}
	if (p->ra_on) {
		p->ra_sent = 0;
		p->ra_next = now;
	}
}

/* ---- timers ---- */

static void
nd_fail(struct fwd_nd *nd, struct nd_neigh *n, struct fwd_out *out)
{
	for (unsigned k = 0; k < n->q.n; k++) {
		unsigned l;
		const uint8_t *fr = fwd_nq_frame(&nd->nq, &n->q, k, &l);

		nd->st.queue_drops++;
		if (nd->conf.unreach != NULL) {
			nd->conf.unreach(nd->conf.unreach_arg, n->q.in[k], fr,
			    l, out);
			nd->st.unreach++;
		}
	}
	nd->st.failed++;
	nd_destroy(nd, n);
}

static unsigned
nd_tick_neigh(struct fwd_nd *nd, struct nd_neigh *n, uint64_t now,
    struct fwd_out *out)
{
	switch (n->state) {
	case FWD_ND_INCOMPLETE:
		if (n->probes >= nd->conf.max_mcast_solicit) {
			nd_fail(nd, n, out);
			return (1);
		}
		if (nd_solicit(nd, n, false, out) == 0)
			n->probes++;
		n->t_next = now + nd->conf.retrans_ms;
		return (0);
	case FWD_ND_REACHABLE:
		/* 7.3.3: ReachableTime passed. An entry traffic uses (the
		 * fast path sends on it) is then sent to while STALE at
		 * once: DELAY. */
		n->state = FWD_ND_STALE;
		n->t_next = now + nd->conf.gc_stale_ms;
		nd_neigh_event(nd, n);
		if (n->used) {
			n->state = FWD_ND_DELAY;
			n->t_next = now + nd->conf.delay_first_probe_ms;
			nd_neigh_event(nd, n);
		}
		return (1);
	case FWD_ND_STALE:
		/* unused for gc_stale_ms: forgotten */
		nd->st.expired++;
		nd_destroy(nd, n);
		return (1);
	case FWD_ND_DELAY:
		n->state = FWD_ND_PROBE;
		n->probes = 0;
		if (nd_solicit(nd, n, true, out) == 0)
			n->probes = 1;
		n->t_next = now + nd->conf.retrans_ms;
		nd_neigh_event(nd, n);
		return (1);
	case FWD_ND_PROBE:
		if (n->probes >= nd->conf.max_ucast_solicit) {
			nd->st.expired++;
			nd_destroy(nd, n);
			return (1);
		}
		if (nd_solicit(nd, n, true, out) == 0)
			n->probes++;
		n->t_next = now + nd->conf.retrans_ms;
		return (0);
	default:
		return (0);
	}
}

unsigned
fwd_nd_tick(struct fwd_nd *nd, struct fwd_out *out)
{
	uint64_t now = nd_now(nd);
	unsigned changed = 0;

	if (now >= nd->reachable_at + ND_REACHABLE_RECOMPUTE_MS)
		nd_reachable_compute(nd, now);
	for (unsigned i = 0; i < nd->naddr; i++) {
		struct nd_addr *a = &nd->addr[i];
		const struct fwd_adj_port *pp = nd_pport(nd, a->port);

		if (a->state != FWD_ND_A_TENTATIVE || now < a->t_dad ||
		    pp == NULL || !pp->up)
			continue;
		if (a->dad_left > 0) {
			if (nd_send_ns(nd, a->port, zero16, a->ip6, NULL,
				out) == 0) {
				a->dad_left--;
				a->t_dad = now + nd->conf.retrans_ms;
			}
			continue;
		}
		a->state = FWD_ND_A_PREFERRED;
		nd->st.dad_ok++;
		nd_addr_event(nd, a, FWD_ND_A_PREFERRED, NULL);
		changed++;
	}
	for (unsigned i = 0; i < nd->conf.max_neigh; i++) {
		struct nd_neigh *n = &nd->ent[i];

		/* out full: the rest wait (an unsent probe is no probe) */
		if (out != NULL && out->n >= FWD_OUT_MAX)
			break;
		if (n->state == FWD_ND_FREE || n->state == FWD_ND_STATIC ||
		    now < n->t_next)
			continue;
		changed += nd_tick_neigh(nd, n, now, out);
	}
	for (uint16_t p = 0; p < FWD_PORT_MAX; p++) {
		struct nd_port *np = &nd->port[p];

		if (np->ra_on && now >= np->ra_next &&
		    nd_send_ra(nd, p, false, out) == 0)
			nd_ra_schedule(nd, np, now);
	}
	if (nd->conf.fib6 != NULL)
		fwd_nq_release_poll(&nd->nq, nd->adj,
		    fwd_fib6_qsbr(nd->conf.fib6));
	return (changed);
}

/* ---- queries ---- */

int
fwd_nd_get(const struct fwd_nd *nd, uint16_t port, const uint8_t ip6[16],
    struct fwd_nd_info *info)
{
	const struct nd_neigh *n = nd_find(nd, port, ip6);

	if (n == NULL)
		return (-ENOENT);
	nd_info(n, info);
	return (0);
}

int
fwd_nd_walk(const struct fwd_nd *nd,
    int (*cb)(const struct fwd_nd_info *, void *), void *arg)
{
	struct fwd_nd_info info;
	int rv;

	for (unsigned i = 0; i < nd->conf.max_neigh; i++) {
		if (nd->ent[i].state == FWD_ND_FREE)
			continue;
		nd_info(&nd->ent[i], &info);
		if ((rv = cb(&info, arg)) != 0)
			return (rv);
	}
	return (0);
}
