/* fwd/fwd_d_nd.c: tern-fwd's Neighbour Discovery glue: IfConfig's IPv6 part
 * parsed, checked, kept per interface and applied to fwd_nd; DAD results
 * logged and published; IPv6 neighbours reported (docs/ipv6.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"

#include "fwd_d.h"
#include "fwd_d_int.h"
#include "fwd_d_nd.h"
#include "fwd_icmp6.h"

static const uint8_t nd_zero16[16];

/* ---- life cycle ---- */

static uint64_t
nd_clock(void *arg)
{
	return (fwd_d_now_ms(arg));
}

static struct fwd_iface *
nd_if_of(struct fwd_d *d, uint16_t port)
{
	return (
	    port < FWD_D_IF_MAX && d->ifs[port].used ? &d->ifs[port] : NULL);
}

/* A queued packet whose neighbour did not answer: address unreachable. */
static void
nd_unreach(void *arg, uint16_t in_port, const uint8_t *frame, unsigned len,
    struct fwd_out *out)
{
	struct fwd_d *d = arg;

	(void)fwd_slow_error6(&d->slow, FWD_ICMP6_UNREACH,
	    FWD_ICMP6_UNREACH_ADDR, 0, in_port, frame, len, fwd_d_now_ms(d),
	    out);
}

static void
nd_addr_event(void *arg, uint16_t port, const uint8_t ip6[16], unsigned plen,
    int state, const uint8_t *mac)
{
	struct fwd_d *d = arg;
	struct fwd_iface *f = nd_if_of(d, port);
	char b[LC_IP6_STRLEN];

	lc_inet6_str((const struct lc_ip6 *)ip6, b);
	if (state == FWD_ND_A_DUPLICATE)
		lc_log_warnx("%s: IPv6 address %s/%u is in use by another "
			     "node (%02x:%02x:%02x:%02x:%02x:%02x): refused "
			     "(duplicate address detection, RFC 4862)",
		    f != NULL ? f->name : "?", b, plen, mac ? mac[0] : 0,
		    mac ? mac[1] : 0, mac ? mac[2] : 0, mac ? mac[3] : 0,
		    mac ? mac[4] : 0, mac ? mac[5] : 0);
	else if (state == FWD_ND_A_PREFERRED)
		lc_log_info("%s: IPv6 address %s/%u in use (DAD passed)",
		    f != NULL ? f->name : "?", b, plen);
	/* its /128 pinned local, its prefix connected, while in use */
	(void)fwd_d_addr6_set(d, port, ip6, plen, state == FWD_ND_A_PREFERRED);
	/* Interface.addrs6 changed: rib takes its connected routes from it */
	if (f != NULL && f->attached && state != 0)
		fwd_ctl_if_event(d, f, false);
}

static Fwd__Neighbour *nd_enc_neigh(struct fwd_d *, const struct fwd_nd_info *,
    uint64_t now);

static void
nd_neigh_event(void *arg, const struct fwd_nd_info *ni)
{
	struct fwd_d *d = arg;
	Fwd__NeighbourEvent ev = FWD__NEIGHBOUR_EVENT__INIT;
	bool known = ni->state != FWD_ND_FREE && ni->state != FWD_ND_INCOMPLETE;

	/* the fast path's /128 of an on-link neighbour, and its K_NH
	 * adjacencies */
	(void)fwd_d_nd_host6(d, ni->port, ni->ip6, known ? ni->mac : NULL);
	if (d->srv == NULL)
		return;
	ev.neighbour = nd_enc_neigh(d, ni, fwd_d_now_ms(d));
	ev.deleted = ni->state == FWD_ND_FREE;
	(void)ipc_server_publish(d->srv, FWD__METHOD__EVENT_NEIGHBOUR,
	    &ev.base);
	lc_arena_reset(d->ar);
}

int
fwd_d_nd_init(struct fwd_d *d)
{
	struct fwd_nd_conf c = {0};

	/* every interface's static neighbours fit, with room to learn */
	c.max_neigh = FWD_D_ARP_MAX;
	c.clock = nd_clock;
	c.clock_arg = d;
	c.seed = (uint32_t)fwd_d_now_ms(d) | 1;
	c.no_dad = d->conf.nd_no_dad;
	c.unreach = nd_unreach;
	c.unreach_arg = d;
	c.addr_event = nd_addr_event;
	c.addr_arg = d;
	c.neigh_event = nd_neigh_event;
	c.neigh_arg = d;
	if ((d->nd = fwd_nd_new(&c, d->adj)) == NULL)
		return (-errno);
	d->slow.nd = d->nd;
	d->slow.nd_input = fwd_nd_input;
	d->slow.nd_punt = fwd_nd_punt;
	d->slow.nd_src = fwd_nd_src_for;
	return (0);
}

void
fwd_d_nd_fini(struct fwd_d *d)
{
	if (d->nd == NULL)
		return;
	fwd_nd_shutdown(d->nd, d->out);
	fwd_d_out_flush(d);
	d->slow.nd = NULL;
	d->slow.nd_input = NULL;
	d->slow.nd_punt = NULL;
	d->slow.nd_src = NULL;
	fwd_nd_free(d->nd);
	d->nd = NULL;
}

void
fwd_d_nd_tick(struct fwd_d *d)
{
	/* a tick stops when the output is full; send and go on (bounded) */
	for (int i = 0; i < 64; i++) {
		(void)fwd_nd_tick(d->nd, d->out);
		if (d->out->n < FWD_OUT_MAX)
			break;
		fwd_d_out_flush(d);
	}
}

/* ---- configuration ---- */

void
fwd_d_nd_req_parse(struct fwd_d_nd_req *r, const Fwd__IfConfig *c)
{
	struct fwd_d_nd_cfg *x = &r->c;
	const Fwd__RaConfig *ra = c->ra;

	memset(r, 0, sizeof(*r));
	if (ra == NULL)
		return;
	x->ra.enabled = ra->enabled;
	x->ra.interval_max_s = ra->interval_max_s;
	x->ra.router_lifetime_s = ra->router_lifetime_s;
	x->ra.mtu = ra->mtu;
	x->ra.hop_limit = ra->hop_limit;
	x->ra.managed = ra->managed;
	x->ra.other = ra->other;
	if (ra->n_prefixes > FWD_ND_RA_PFX_MAX)
		snprintf(r->bad, sizeof(r->bad),
		    "more than %u router advertisement prefixes",
		    FWD_ND_RA_PFX_MAX);
	for (size_t k = 0; k < ra->n_prefixes && k < FWD_ND_RA_PFX_MAX; k++) {
		const Fwd__RaPrefix *p = ra->prefixes[k];
		struct fwd_nd_ra_prefix *q = &x->ra.prefix[x->ra.nprefix];

		if (p->prefix.len != 16) {
			snprintf(r->bad, sizeof(r->bad),
			    "a router advertisement prefix of %zu bytes "
			    "(expected 16)",
			    p->prefix.len);
			continue;
		}
		memcpy(q->prefix, p->prefix.data, 16);
		q->len = p->len > 128 ? 0 : (uint8_t)p->len;
		q->autonomous = p->autonomous;
		q->on_link = p->on_link;
		q->valid_s = p->valid_lifetime_s;
		q->preferred_s = p->preferred_lifetime_s;
		x->ra.nprefix++;
	}
}

static bool
nd_pfx_match(const uint8_t *a, const uint8_t *b, unsigned plen)
{
	unsigned full = plen / 8, rem = plen % 8;

	return (memcmp(a, b, full) == 0 &&
	    (rem == 0 ||
		((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rem))) == 0));
}

static bool
nd_unicast_ok(const uint8_t *a)
{
	static const uint8_t lo[16] = {[15] = 1};

	return (a[0] != 0xff && memcmp(a, nd_zero16, 16) != 0 &&
	    memcmp(a, lo, 16) != 0 &&
	    !lc_ip6_is_v4mapped((const struct lc_ip6 *)a));
}

static bool
nd_has_addr(const struct fwd_if_req *rq, const uint8_t *a)
{
	for (unsigned j = 0; j < rq->naddr6; j++)
		if (memcmp(rq->addr6[j], a, 16) == 0)
			return (true);
	return (false);
}

int
fwd_d_nd_check(const struct fwd_if_req *rq, long i, struct lc_err *err)
{
	const struct fwd_d_nd_req *r = &rq->nd;
	const struct fwd_d_nd_cfg *x = &r->c;
	const char *name = rq->name;
	char b[LC_IP6_STRLEN];

	if (r->bad[0] != '\0')
		return (lc_err_set(err, -EINVAL, i, "%s: %s", name, r->bad));
	if (rq->has_ll && memcmp(rq->ll6 + 8, nd_zero16, 8) == 0)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: link-local address: interface identifier 0", name));
	if (x->ra.enabled && fwd_nd_ra_check(&x->ra) != 0)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: router advertisement: interval 4..1800 s, lifetime "
		    "at most 9000 s, mtu 1280..65535, prefixes of length "
		    "1..128 without host bits, not link-local or multicast, "
		    "preferred within valid lifetime",
		    name));
	for (unsigned k = 0; k < rq->nneigh6; k++) {
		const uint8_t *a = rq->neigh6_ip[k], *m = rq->neigh6_mac[k];
		bool on = lc_ip6_is_linklocal((const struct lc_ip6 *)a);

		lc_inet6_str((const struct lc_ip6 *)a, b);
		if (!nd_unicast_ok(a))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s is not a unicast "
			    "address",
			    name, b));
		if (!fwd_nd_mac_ok(m))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s: "
			    "%02x:%02x:%02x:%02x:%02x:%02x is not a unicast "
			    "MAC",
			    name, b, m[0], m[1], m[2], m[3], m[4], m[5]));
		for (unsigned j = 0; j < k; j++)
			if (memcmp(rq->neigh6_ip[j], a, 16) == 0)
				return (lc_err_set(err, -EINVAL, i,
				    "%s: static neighbour %s given twice", name,
				    b));
		if ((rq->has_ll && memcmp(rq->ll6, a, 16) == 0) ||
		    nd_has_addr(rq, a))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s is an address of the "
			    "interface",
			    name, b));
		for (unsigned j = 0; j < rq->naddr6; j++)
			on |= nd_pfx_match(rq->addr6[j], a, rq->plen6[j]);
		if (!on)
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s is on none of the "
			    "interface's IPv6 prefixes (nor link-local)",
			    name, b));
	}
	return (0);
}

bool
fwd_d_nd_same(const struct fwd_d_nd_cfg *have, const struct fwd_d_nd_req *r)
{
	return (memcmp(have, &r->c, sizeof(*have)) == 0);
}

void
fwd_d_nd_take(struct fwd_d_nd_cfg *have, const struct fwd_d_nd_req *r)
{
	*have = r->c;
}

static uint16_t
nd_port(const struct fwd_d *d, const struct fwd_iface *f)
{
	return ((uint16_t)(f - d->ifs));
}

static void
nd_log_rv(const struct fwd_iface *f, const char *what, const uint8_t *a, int rv)
{
	char b[LC_IP6_STRLEN];

	if (rv == 0 || rv == -EEXIST)
		return;
	lc_inet6_str((const struct lc_ip6 *)a, b);
	lc_log_warnx("%s: %s %s: %s", f->name, what, b, strerror(-rv));
}

/* What fwd_nd is given for a port: the interface's (fwd_if's fields) or a
 * request's. */
struct nd_view {
	bool off, has_ll;
	const uint8_t *ll6;
	unsigned naddr;
	const uint8_t (*addr)[16];
	const uint8_t *plen;
	unsigned nneigh;
	const uint8_t (*neigh_ip)[16];
	const uint8_t (*neigh_mac)[6];
	const struct fwd_d_nd_cfg *c;
};

static void
nd_view_if(const struct fwd_iface *f, struct nd_view *v)
{
	*v = (struct nd_view){f->ipv6_off, f->has_ll, f->ll6, f->naddr6,
	    f->addr6, f->plen6, f->nneigh6, f->neigh6_ip, f->neigh6_mac,
	    &f->nd};
}

static void
nd_view_rq(const struct fwd_if_req *r, struct nd_view *v)
{
	*v = (struct nd_view){r->ipv6_off, r->has_ll, r->ll6, r->naddr6,
	    r->addr6, r->plen6, r->nneigh6, r->neigh6_ip, r->neigh6_mac,
	    &r->nd.c};
}

/* v into fwd_nd for f's port: link-local first (the globals' DAD is sent
 * from ::, an RA needs the link-local). */
static void
nd_apply_all(struct fwd_d *d, struct fwd_iface *f, const struct nd_view *v)
{
	uint16_t id = nd_port(d, f);

	if (v->off) {
		fwd_nd_port_disable(d->nd, id, true, d->out);
		return;
	}
	fwd_nd_port_disable(d->nd, id, false, d->out);
	(void)fwd_nd_ll_set(d->nd, id, v->has_ll ? v->ll6 : NULL, d->out);
	for (unsigned k = 0; k < v->naddr; k++)
		nd_log_rv(f, "IPv6 address", v->addr[k],
		    fwd_nd_addr_add(d->nd, id, v->addr[k], v->plen[k], d->out));
	for (unsigned k = 0; k < v->nneigh; k++)
		nd_log_rv(f, "static neighbour", v->neigh_ip[k],
		    fwd_nd_static_add(d->nd, id, v->neigh_ip[k],
			v->neigh_mac[k], d->out));
	(void)fwd_nd_ra_set(d->nd, id, &v->c->ra, d->out);
}

void
fwd_d_nd_attach(struct fwd_d *d, struct fwd_iface *f)
{
	struct nd_view v;

	nd_view_if(f, &v);
	nd_apply_all(d, f, &v);
	fwd_nd_port_up(d->nd, nd_port(d, f), d->out);
	fwd_d_out_flush(d);
}

void
fwd_d_nd_detach(struct fwd_d *d, struct fwd_iface *f)
{
	uint16_t id = nd_port(d, f);

	/* the port id may be another interface's next: its statics go too
	 * (kept in f, installed again on attach) */
	for (unsigned k = 0; k < f->nneigh6; k++)
		(void)fwd_nd_static_del(d->nd, id, f->neigh6_ip[k]);
	fwd_nd_port_disable(d->nd, id, true, d->out);
	fwd_nd_port_disable(d->nd, id, false, d->out);
	fwd_d_out_flush(d);
}

/* v has the static neighbour ip -> mac. */
static bool
nd_has_neigh(const struct nd_view *v, const uint8_t *ip, const uint8_t *mac)
{
	for (unsigned k = 0; k < v->nneigh; k++)
		if (memcmp(v->neigh_ip[k], ip, 16) == 0 &&
		    memcmp(v->neigh_mac[k], mac, 6) == 0)
			return (true);
	return (false);
}

/* v has ip6/plen among its addresses. */
static bool
nd_view_has(const struct nd_view *v, const uint8_t *ip6, unsigned plen)
{
	for (unsigned k = 0; k < v->naddr; k++)
		if (memcmp(v->addr[k], ip6, 16) == 0 && v->plen[k] == plen)
			return (true);
	return (false);
}

void
fwd_d_nd_diff(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *rq)
{
	struct nd_view o, n;
	uint16_t id = nd_port(d, f);

	nd_view_if(f, &o);
	nd_view_rq(rq, &n);
	if (o.off != n.off) {
		fwd_d_nd_detach(d, f); /* with the old statics */
		f->nd = rq->nd.c;
		nd_apply_all(d, f, &n);
		fwd_nd_port_up(d->nd, id, d->out);
		fwd_d_out_flush(d);
		return;
	}
	if (n.off) {
		f->nd = rq->nd.c;
		return;
	}
	for (unsigned k = 0; k < o.nneigh; k++)
		if (!nd_has_neigh(&n, o.neigh_ip[k], o.neigh_mac[k]))
			(void)fwd_nd_static_del(d->nd, id, o.neigh_ip[k]);
	for (unsigned k = 0; k < o.naddr; k++)
		if (!nd_view_has(&n, o.addr[k], o.plen[k]))
			(void)fwd_nd_addr_del(d->nd, id, o.addr[k]);
	if (o.has_ll != n.has_ll || (n.has_ll && memcmp(o.ll6, n.ll6, 16) != 0))
		(void)fwd_nd_ll_set(d->nd, id, n.has_ll ? n.ll6 : NULL, d->out);
	for (unsigned k = 0; k < n.naddr; k++)
		if (!nd_view_has(&o, n.addr[k], n.plen[k]))
			nd_log_rv(f, "IPv6 address", n.addr[k],
			    fwd_nd_addr_add(d->nd, id, n.addr[k], n.plen[k],
				d->out));
	for (unsigned k = 0; k < n.nneigh; k++)
		if (!nd_has_neigh(&o, n.neigh_ip[k], n.neigh_mac[k]))
			nd_log_rv(f, "static neighbour", n.neigh_ip[k],
			    fwd_nd_static_add(d->nd, id, n.neigh_ip[k],
				n.neigh_mac[k], d->out));
	(void)fwd_nd_ra_set(d->nd, id, &n.c->ra, d->out);
	f->nd = rq->nd.c;
	fwd_d_out_flush(d);
}

struct nd_sync {
	struct fwd_d *d;
	uint16_t port;
};

static int
nd_sync_one(const struct fwd_nd_addr_info *ai, void *arg)
{
	struct nd_sync *w = arg;

	if (ai->port == w->port && ai->state == FWD_ND_A_PREFERRED)
		(void)fwd_d_addr6_set(w->d, w->port, ai->ip6, ai->plen, true);
	return (0);
}

void
fwd_d_nd_sync(struct fwd_d *d, struct fwd_iface *f)
{
	struct nd_sync w = {d, nd_port(d, f)};

	(void)fwd_nd_addr_walk(d->nd, nd_sync_one, &w);
}

void
fwd_d_nd_link_up(struct fwd_d *d, struct fwd_iface *f)
{
	fwd_nd_port_up(d->nd, nd_port(d, f), d->out);
	fwd_d_out_flush(d);
}

/* ---- reports ---- */

static void *
nd_ar(struct fwd_d *d, size_t n)
{
	void *p = lc_arena_calloc(d->ar, n ? n : 1);

	if (p == NULL)
		lc_oom("tern-fwd reply arena");
	return (p);
}

struct nd_if_walk {
	struct fwd_d *d;
	uint16_t port;
	Fwd__Interface *x;
};

static Fwd__IfAddr6 *
nd_enc_addr(struct fwd_d *d, const uint8_t *a, unsigned plen)
{
	Fwd__IfAddr6 *y = nd_ar(d, sizeof(*y));

	fwd__if_addr6__init(y);
	y->addr.data = nd_ar(d, 16);
	memcpy(y->addr.data, a, 16);
	y->addr.len = 16;
	y->len = plen;
	return (y);
}

static int
nd_if_addr(const struct fwd_nd_addr_info *ai, void *arg)
{
	struct nd_if_walk *w = arg;
	Fwd__Interface *x = w->x;

	/* room for both was made: at most FWD_D_USE6_MAX */
	if (ai->port != w->port || ai->state == FWD_ND_A_PREFERRED)
		return (0);
	if (ai->state == FWD_ND_A_TENTATIVE)
		x->addrs6_tentative[x->n_addrs6_tentative++] = nd_enc_addr(w->d,
		    ai->ip6, ai->plen);
	else
		x->addrs6_duplicate[x->n_addrs6_duplicate++] = nd_enc_addr(w->d,
		    ai->ip6, ai->plen);
	return (0);
}

void
fwd_d_nd_if_fill(struct fwd_d *d, const struct fwd_iface *f, Fwd__Interface *x)
{
	struct nd_if_walk w = {d, nd_port(d, f), x};
	size_t n = FWD_D_USE6_MAX + 1;

	if (!f->attached || d->nd == NULL)
		return;
	x->addrs6_tentative = nd_ar(d, n * sizeof(*x->addrs6_tentative));
	x->addrs6_duplicate = nd_ar(d, n * sizeof(*x->addrs6_duplicate));
	(void)fwd_nd_addr_walk(d->nd, nd_if_addr, &w);
	x->ra_enabled = fwd_nd_ra_enabled(d->nd, w.port);
}

static Fwd__Neighbour *
nd_enc_neigh(struct fwd_d *d, const struct fwd_nd_info *ni, uint64_t now)
{
	Fwd__Neighbour *n = nd_ar(d, sizeof(*n));
	struct fwd_iface *f = nd_if_of(d, ni->port);
	uint64_t age;

	fwd__neighbour__init(n);
	n->addr6.data = nd_ar(d, 16);
	memcpy(n->addr6.data, ni->ip6, 16);
	n->addr6.len = 16;
	n->mac.data = nd_ar(d, 6);
	memcpy(n->mac.data, ni->mac, 6);
	n->mac.len = 6;
	n->ifindex = f != NULL ? f->ifindex : 0;
	n->ifname = f != NULL ? f->name : (char *)"";
	n->router = ni->router;
	switch (ni->state) {
	case FWD_ND_INCOMPLETE:
		n->state = FWD__NEIGHBOUR_STATE__INCOMPLETE;
		n->mac.len = 0;
		break;
	case FWD_ND_REACHABLE:
		n->state = FWD__NEIGHBOUR_STATE__REACHABLE;
		break;
	case FWD_ND_STALE:
		n->state = FWD__NEIGHBOUR_STATE__STALE;
		break;
	case FWD_ND_DELAY:
		n->state = FWD__NEIGHBOUR_STATE__DELAY;
		break;
	case FWD_ND_PROBE:
		n->state = FWD__NEIGHBOUR_STATE__PROBE;
		break;
	case FWD_ND_STATIC:
		n->state = FWD__NEIGHBOUR_STATE__STATIC;
		break;
	default: /* gone (an event) */
		n->state = FWD__NEIGHBOUR_STATE__NEIGH_NONE;
		break;
	}
	age = ni->state != FWD_ND_STATIC && now > ni->confirmed_ms ?
	    now - ni->confirmed_ms :
	    0;
	n->age_ms = age < UINT32_MAX ? (uint32_t)age : UINT32_MAX;
	n->next_probe_ms = ni->state == FWD_ND_REACHABLE &&
		ni->expires_ms > now ?
	    (uint32_t)(ni->expires_ms - now) :
	    0;
	n->queued = ni->queued;
	return (n);
}

struct nd_list_walk {
	struct fwd_d *d;
	uint32_t ifindex;
	Fwd__NeighbourList *l;
	size_t *cap;
	uint64_t now;
};

static int
nd_list_one(const struct fwd_nd_info *ni, void *arg)
{
	struct nd_list_walk *w = arg;
	Fwd__Neighbour *n = nd_enc_neigh(w->d, ni, w->now);

	if (w->ifindex != 0 && n->ifindex != w->ifindex)
		return (0);
	if (w->l->n_neighbours == *w->cap) {
		size_t nc = *w->cap ? *w->cap * 2 : 64;
		Fwd__Neighbour **nv = nd_ar(w->d, nc * sizeof(*nv));

		if (w->l->n_neighbours)
			memcpy(nv, w->l->neighbours,
			    w->l->n_neighbours * sizeof(*nv));
		w->l->neighbours = nv;
		*w->cap = nc;
	}
	w->l->neighbours[w->l->n_neighbours++] = n;
	return (0);
}

void
fwd_d_nd_neigh_list(struct fwd_d *d, uint32_t ifindex, Fwd__NeighbourList *l,
    size_t *cap)
{
	struct nd_list_walk w = {d, ifindex, l, cap, fwd_d_now_ms(d)};

	if (d->nd != NULL)
		(void)fwd_nd_walk(d->nd, nd_list_one, &w);
}
