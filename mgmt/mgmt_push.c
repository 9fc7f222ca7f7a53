/* mgmt/mgmt_push.c: the commit transaction: each component's part of a change set, acks, rollback of the others on refusal, and full resync when a component (re)connects. */
#include "mgmt_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_err.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"

#define PUSH_TIMEOUT_MS 10000
#define PUSH_CHUNK	1000 /* routes per RouteBatch in a full resync */
/* A commit's static routes: a RouteBatch of up to PUSH_PART routes, or a
 * transaction in parts of PUSH_PART with PUSH_WINDOW parts in flight. */
#define PUSH_PART	8192
#define PUSH_WINDOW	4
#define PUSH_NHMAP_BITS 10
#define PUSH_NHMAP	(1u << PUSH_NHMAP_BITS) /* next hops of a part */

enum {
	C_FWD = MGMT_PEER_FWD,
	C_RIB = MGMT_PEER_RIB,
	C_RTRMGR = MGMT_PEER_RTRMGR,
	C_BGP = MGMT_PEER_BGP,
	C__COUNT
};
static const char *const comp_name[C__COUNT] = {"tern-fwd", "tern-rib",
    "tern-rtrmgr", "tern-bgp"};

/* ---- encoding one part ----------------------------------------------------------- */

/* Scratch for encoding one message; freed in one go. */
struct enc {
	void **ptrs;
	size_t n, cap;
	/* tern interface name -> Linux device, for static routes via an
	 * interface (rib and fwd know devices) */
	const struct mgmt_conf *conf;
};

struct dev_find {
	const char *name;
	char *device; /* MGMT_NAME_MAX */
};

static int
dev_find_cb(const struct mgmt_node *n, void *arg)
{
	struct dev_find *f = arg;
	struct mgmt_iface_conf c;

	if (mgmt_conf_iface_get(n, &c) != 0 || strcmp(c.name, f->name) != 0)
		return (0);
	snprintf(f->device, MGMT_NAME_MAX, "%s", c.device);
	return (1);
}

/* The device of tern interface name in conf; the name itself if unknown
 * (validation refuses such routes, so that only happens mid-rollback). */
static void
iface_device(const struct mgmt_conf *conf, const char *name, char *device)
{
	struct dev_find f = {name, device};

	snprintf(device, MGMT_NAME_MAX, "%s", name);
	if (conf != NULL)
		mgmt_conf_foreach(conf, MGMT_S_IFACE, dev_find_cb, &f);
}

static void *
enc_alloc(struct enc *e, size_t size)
{
	void *p;

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		void **np = lc_xrealloc(e->ptrs, cap * sizeof(*np),
		    "a commit's messages");

		e->ptrs = np;
		e->cap = cap;
	}
	p = lc_xcalloc(1, size, "a commit's messages");
	e->ptrs[e->n++] = p;
	return (p);
}

static void *
enc_alloc_cb(void *arg, size_t size)
{
	return (enc_alloc(arg, size));
}

static void
enc_free(struct enc *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->ptrs[i]);
	free(e->ptrs);
	memset(e, 0, sizeof(*e));
}

static uint8_t *
enc_bytes(struct enc *e, const void *p, size_t n)
{
	return (memcpy(enc_alloc(e, n), p, n));
}

/* The IPv6 part of interface c into ic (docs/ipv6.md): addrs6, link_local,
 * ra, ipv6_disabled, the static neighbours' addr6 (after the IPv4 ones:
 * ic->neighbours has room for them). */
static void
enc_iface6(struct enc *e, const struct mgmt_iface_conf *c, Fwd__IfConfig *ic)
{
	ic->ipv6_disabled = c->inet6_disable;
	ic->n_addrs6 = c->naddr6;
	ic->addrs6 = enc_alloc(e, sizeof(*ic->addrs6) * (c->naddr6 + 1));
	for (unsigned i = 0; i < c->naddr6; i++) {
		Fwd__IfAddr6 *a = enc_alloc(e, sizeof(*a));

		fwd__if_addr6__init(a);
		a->addr.len = 16;
		a->addr.data = enc_bytes(e, c->host6[i].b, 16);
		a->len = c->addr6[i].len;
		ic->addrs6[i] = a;
	}
	if (c->ll6_set) {
		ic->link_local.len = 16;
		ic->link_local.data = enc_bytes(e, c->ll6.b, 16);
	}
	if (c->ra) {
		Fwd__RaConfig *ra = enc_alloc(e, sizeof(*ra));

		fwd__ra_config__init(ra);
		ra->enabled = true;
		ra->interval_max_s = c->ra_interval;
		ra->mtu = c->ra_mtu;
		/* 0: fwd's defaults (600, 1800), as the schema's */
		ra->router_lifetime_s = c->ra_lifetime;
		ra->n_prefixes = c->ra_nprefix;
		ra->prefixes = enc_alloc(e,
		    sizeof(*ra->prefixes) * (c->ra_nprefix + 1));
		for (unsigned i = 0; i < c->ra_nprefix; i++) {
			Fwd__RaPrefix *p = enc_alloc(e, sizeof(*p));

			fwd__ra_prefix__init(p);
			p->prefix.len = 16;
			p->prefix.data = enc_bytes(e, c->ra_prefix[i].addr.b,
			    16);
			p->len = c->ra_prefix[i].len;
			p->autonomous = c->ra_prefix[i].len == 64;
			p->on_link = true;
			ra->prefixes[i] = p;
		}
		ic->ra = ra;
	}
	for (unsigned i = 0; i < c->nndp; i++) {
		Fwd__StaticNeighbour *sn;

		if (c->ndp_nomac[i])
			continue; /* validation refuses it: not in running */
		sn = enc_alloc(e, sizeof(*sn));
		fwd__static_neighbour__init(sn);
		sn->addr6.len = 16;
		sn->addr6.data = enc_bytes(e, c->ndp_ip[i].b, 16);
		sn->mac.len = 6;
		sn->mac.data = enc_bytes(e, c->ndp_mac[i], 6);
		ic->neighbours[ic->n_neighbours++] = sn;
	}
}

static Fwd__IfConfig *
enc_iface(struct enc *e, const struct mgmt_node *n, const char *deleted_name,
    const struct mgmt_fwd_conf *fc)
{
	Fwd__IfConfig *ic = enc_alloc(e, sizeof(*ic));
	struct mgmt_iface_conf c;

	fwd__if_config__init(ic);
	if (n == NULL) {
		ic->name = enc_alloc(e, MGMT_NAME_MAX);
		snprintf(ic->name, MGMT_NAME_MAX, "%s", deleted_name);
		ic->deleted = true;
		return (ic);
	}
	mgmt_conf_iface_get(n, &c);
	ic->name = enc_alloc(e, MGMT_NAME_MAX);
	/* fwd knows ports by their Linux device name */
	snprintf(ic->name, MGMT_NAME_MAX, "%s", c.device);
	ic->enabled = !c.disable;
	mgmt_wire_fill(MGMT_S_IFACE, n, &ic->base); /* the table's (mtu) */
	{
		enum mgmt_port_backend b = c.backend == MGMT_BACKEND_DEFAULT ?
		    fc->backend :
		    c.backend;

		ic->backend = (char *)(b == MGMT_BACKEND_AF_XDP ? "xdp" :
			b == MGMT_BACKEND_AUTO			? "auto" :
								  "afpacket");
	}
	/* always explicit: DEFAULT would leave the choice to fwd's idea of
	 * the default, and the config says what it is */
	ic->host_path = c.host_path ? FWD__HOST_PATH__HOST_PATH_ENABLE :
				      FWD__HOST_PATH__HOST_PATH_DISABLE;
	ic->n_addrs = c.naddr;
	ic->addrs = enc_alloc(e, sizeof(*ic->addrs) * (c.naddr + 1));
	for (unsigned i = 0; i < c.naddr; i++) {
		Fwd__IfAddr *a = enc_alloc(e, sizeof(*a));

		fwd__if_addr__init(a);
		a->addr = c.host[i].s_addr;
		a->len = c.addr[i].len;
		ic->addrs[i] = a;
	}
	/* the whole set: fwd removes the static entries not listed */
	ic->neighbours = enc_alloc(e,
	    sizeof(*ic->neighbours) * (c.narp + c.nndp + 1));
	for (unsigned i = 0; i < c.narp; i++) {
		Fwd__StaticNeighbour *sn;

		if (c.arp_nomac[i])
			continue; /* validation refuses it: not in running */
		sn = enc_alloc(e, sizeof(*sn));
		fwd__static_neighbour__init(sn);
		sn->addr = c.arp_ip[i].s_addr;
		sn->mac.len = 6;
		sn->mac.data = enc_alloc(e, 6);
		memcpy(sn->mac.data, c.arp_mac[i], 6);
		ic->neighbours[ic->n_neighbours++] = sn;
	}
	enc_iface6(e, &c, ic);
	return (ic);
}

static Rib__Route *
enc_route(struct enc *e, const struct mgmt_node *n)
{
	Rib__Route *r = enc_alloc(e, sizeof(*r));
	struct mgmt_route_conf c;
	unsigned nn;

	rib__route__init(r);
	mgmt_conf_route_get(n, &c);
	r->prefix = c.prefix.addr.s_addr;
	r->len = c.prefix.len;
	mgmt_wire_fill(MGMT_S_ROUTE, n, &r->base); /* the table's (distance) */
	r->type = c.blackhole ? RIB__ROUTE_TYPE__BLACKHOLE :
	    c.reject	      ? RIB__ROUTE_TYPE__REJECT :
				RIB__ROUTE_TYPE__UNICAST;
	nn = c.nnh > 0 ? c.nnh : (c.ifname[0] != '\0' ? 1 : 0);
	r->n_nh_addr = r->n_nh_ifindex = r->n_nh_ifname = nn;
	r->nh_addr = enc_alloc(e, sizeof(uint32_t) * (nn + 1));
	r->nh_ifindex = enc_alloc(e, sizeof(uint32_t) * (nn + 1));
	r->nh_ifname = enc_alloc(e, sizeof(char *) * (nn + 1));
	if (c.family == AF_INET6) {
		/* prefix 0 and prefix6; nh_addr6 instead of nh_addr */
		r->prefix = 0;
		r->len = c.prefix6.len;
		r->prefix6.len = 16;
		r->prefix6.data = enc_bytes(e, c.prefix6.addr.b, 16);
		r->n_nh_addr = 0;
		r->n_nh_addr6 = nn;
		r->nh_addr6 = enc_alloc(e, sizeof(*r->nh_addr6) * (nn + 1));
	}
	for (unsigned i = 0; i < nn; i++) {
		if (c.family == AF_INET6) {
			static const uint8_t zero[16];

			r->nh_addr6[i].len = 16;
			r->nh_addr6[i].data = enc_bytes(e,
			    i < c.nnh ? c.nh6[i].b : zero, 16);
		} else
			r->nh_addr[i] = i < c.nnh ? c.nh[i].s_addr : 0;
		r->nh_ifname[i] = enc_alloc(e, MGMT_NAME_MAX);
		if (c.ifname[0] != '\0')
			iface_device(e->conf, c.ifname, r->nh_ifname[i]);
	}
	return (r);
}

/* Did the fwd block's port-backend (the interfaces' default) change? */
static bool
fwd_backend_changed(const struct mgmt_changes *chg)
{
	for (size_t i = 0; i < chg->n; i++) {
		struct mgmt_fwd_conf o, n;

		if (chg->v[i].unit != MGMT_S_FWD)
			continue;
		mgmt_conf_fwd_node_get(chg->v[i].old, &o);
		mgmt_conf_fwd_node_get(chg->v[i].new, &n);
		return (o.backend != n.backend);
	}
	return (false);
}

struct dflt_ifaces {
	struct enc *e;
	Fwd__IfConfigBatch *b;
	const struct mgmt_fwd_conf *fc;
};

static int
count_iface(const struct mgmt_node *n, void *arg)
{
	(void)n;
	++*(size_t *)arg;
	return (0);
}

/* An interface with the default backend that the batch does not hold yet */
static int
dflt_iface(const struct mgmt_node *n, void *arg)
{
	struct dflt_ifaces *di = arg;
	struct mgmt_iface_conf c;

	mgmt_conf_iface_get(n, &c);
	if (c.backend != MGMT_BACKEND_DEFAULT)
		return (0);
	for (size_t i = 0; i < di->b->n_interfaces; i++)
		if (!di->b->interfaces[i]->deleted &&
		    strcmp(di->b->interfaces[i]->name, c.device) == 0)
			return (0); /* already in the batch */
	di->b->interfaces[di->b->n_interfaces++] = enc_iface(di->e, n, NULL,
	    di->fc);
	return (0);
}

/*
 * One component's part of the changes old -> new (only the units it owns).
 * Returns false when it has nothing to do. The message lives in e.
 */
static bool
enc_fwd_part(struct enc *e, const struct mgmt_changes *chg,
    const struct mgmt_conf *new, uint64_t txn, bool dry, Fwd__IfConfigBatch *b)
{
	struct mgmt_fwd_conf fc;
	size_t k = 0;

	mgmt_conf_fwd_get(new, &fc);
	fwd__if_config_batch__init(b);
	b->txn = txn;
	b->dry_run = dry;
	b->interfaces = enc_alloc(e, sizeof(*b->interfaces) * (chg->n + 1));
	for (size_t i = 0; i < chg->n; i++) {
		const struct mgmt_change *c = &chg->v[i];

		if (c->unit != MGMT_S_IFACE)
			continue;
		if (c->op == MGMT_CHG_DEL) {
			struct mgmt_iface_conf ic;

			mgmt_conf_iface_get(c->old, &ic);
			b->interfaces[k++] = enc_iface(e, NULL, ic.device, &fc);
		} else {
			/* a device rename is a delete of the old device */
			if (c->op == MGMT_CHG_MOD) {
				struct mgmt_iface_conf o, n;

				mgmt_conf_iface_get(c->old, &o);
				mgmt_conf_iface_get(c->new, &n);
				if (strcmp(o.device, n.device) != 0)
					b->interfaces[k++] = enc_iface(e, NULL,
					    o.device, &fc);
			}
			b->interfaces[k++] = enc_iface(e, c->new, NULL, &fc);
		}
	}
	/* a new default port backend: the interfaces that use it */
	if (fwd_backend_changed(chg)) {
		struct dflt_ifaces di = {.e = e, .b = b, .fc = &fc};
		Fwd__IfConfig **v;
		size_t cnt = 0;

		mgmt_conf_foreach(new, MGMT_S_IFACE, count_iface, &cnt);
		v = enc_alloc(e, sizeof(*v) * (k + cnt + 1));
		memcpy(v, b->interfaces, sizeof(*v) * k);
		b->interfaces = v;
		b->n_interfaces = k;
		mgmt_conf_foreach(new, MGMT_S_IFACE, dflt_iface, &di);
		k = b->n_interfaces;
	}
	b->n_interfaces = k;
	return (k > 0);
}

/* fwd's run-time settings from conf (a leaf not configured goes unset) */
static void
enc_fwd_config(const struct mgmt_conf *conf, uint64_t txn, bool dry,
    Fwd__FwdConfig *c)
{
	fwd__fwd_config__init(c);
	c->txn = txn;
	c->dry_run = dry;
	mgmt_wire_fill_conf(conf, MGMT_S_FWD, &c->base);
}

/* A part of a commit's static routes for rib being encoded (reused from
 * part to part). */
struct part_enc {
	struct ipc_route_set set;
	struct ipc_route_enc enc;
	struct lc_arena *names;
	uint64_t nhmap[PUSH_NHMAP]; /* address << 32 | index + 1 */
};

/* A next hop of the part's table (addresses only) */
static uint32_t
part_nh_new(struct ipc_route_set *s, uint32_t addr)
{
	struct ipc_route_nh *h;

	if (ipc_route_set_reserve(s, 0, 1) != 0)
		lc_oom("a commit's routes");
	h = &s->nh[s->nnh];
	memset(h, 0, sizeof(*h));
	h->family = AF_INET;
	h->addr.v4.s_addr = addr;
	return ((uint32_t)s->nnh++);
}

static uint32_t
part_nh(struct part_enc *pe, uint32_t addr)
{
	uint32_t h = (ntohl(addr) * 0x9e3779b1u) >> (32 - PUSH_NHMAP_BITS);

	for (unsigned i = 0; i < 8; i++) {
		uint64_t *slot = &pe->nhmap[(h + i) & (PUSH_NHMAP - 1)];
		uint32_t k;

		if (*slot == 0) {
			k = part_nh_new(&pe->set, addr);
			*slot = (uint64_t)addr << 32 | (k + 1);
			return (k);
		}
		if ((uint32_t)(*slot >> 32) == addr)
			return ((uint32_t)*slot - 1);
	}
	return (part_nh_new(&pe->set, addr)); /* crowded: a run of its own */
}

/* The device name of interface ifname for a part ("" -> NULL). */
static const char *
part_dev(struct part_enc *pe, const struct mgmt_conf *conf, const char *ifname)
{
	char *dev;

	if (ifname[0] == '\0')
		return (NULL);
	if ((dev = lc_arena_alloc(pe->names, MGMT_NAME_MAX)) == NULL)
		lc_oom("a commit's routes");
	iface_device(conf, ifname, dev);
	return (dev);
}

/* An IPv6 static route c with nn next hops (a link-local one has the
 * route's interface) as the part's record; next hops are not shared
 * between routes (IPv6 static routes are few) */
static void
part_add6(struct part_enc *pe, const struct mgmt_conf *conf,
    const struct mgmt_route_conf *c, unsigned nn, const Rib__Route *w)
{
	const char *dev = part_dev(pe, conf, c->ifname);
	struct ipc_route *r;

	if ((r = ipc_route_set_add(&pe->set, nn)) == NULL)
		lc_oom("a commit's routes");
	for (unsigned i = 0; i < nn; i++) {
		struct ipc_route_nh *h = &pe->set.nh[r->nh + i];

		h->family = AF_INET6;
		if (i < c->nnh)
			h->addr.v6 = c->nh6[i];
		h->ifname = dev;
	}
	r->family = AF_INET6;
	r->pfx.v6 = c->prefix6.addr;
	r->len = c->prefix6.len;
	r->op = IPC_ROUTE_ADD;
	r->kind = c->blackhole ? IPC_ROUTE_BLACKHOLE :
	    c->reject	       ? IPC_ROUTE_REJECT :
				 IPC_ROUTE_UNICAST;
	r->distance = (uint8_t)w->distance;
	r->metric = w->metric;
	r->tag = w->tag;
}

static void
part_add(struct part_enc *pe, const struct mgmt_conf *conf,
    const struct mgmt_node *n)
{
	Rib__Route w = RIB__ROUTE__INIT;
	struct mgmt_route_conf c;
	struct ipc_route *r;
	unsigned nn;
	uint32_t first = 0;

	mgmt_conf_route_get(n, &c);
	mgmt_wire_fill(MGMT_S_ROUTE, n, &w.base); /* the table's (distance) */
	nn = c.nnh > 0 ? c.nnh : (c.ifname[0] != '\0' ? 1 : 0);
	if (c.family == AF_INET6) {
		part_add6(pe, conf, &c, nn, &w);
		return;
	}
	if (nn == 1 && c.ifname[0] == '\0')
		first = part_nh(pe, c.nh[0].s_addr);
	if ((r = ipc_route_set_add(&pe->set,
		 nn == 1 && c.ifname[0] == '\0' ? 0 : nn)) == NULL)
		lc_oom("a commit's routes");
	if (nn == 1 && c.ifname[0] == '\0') {
		r->nh = first;
		r->n_nh = 1;
	} else {
		const char *dev = part_dev(pe, conf, c.ifname);

		for (unsigned i = 0; i < nn; i++) {
			struct ipc_route_nh *h = &pe->set.nh[r->nh + i];

			h->addr.v4.s_addr = i < c.nnh ? c.nh[i].s_addr : 0;
			h->ifname = dev;
		}
	}
	r->pfx.v4 = c.prefix.addr;
	r->len = c.prefix.len;
	r->op = IPC_ROUTE_ADD;
	r->kind = c.blackhole ? IPC_ROUTE_BLACKHOLE :
	    c.reject	      ? IPC_ROUTE_REJECT :
				IPC_ROUTE_UNICAST;
	r->distance = (uint8_t)w.distance;
	r->metric = w.metric;
	r->tag = w.tag;
}

/*
 * The next part: up to PUSH_PART route changes of chg from *pos on into the
 * set, adds (which replace) before deletes as a RouteBatch orders them. A
 * next hop given by address alone is put in the set's table once per part,
 * so the packed encoding sends it once and rib interns its group once.
 * Device names (routes via an interface) live in names until the next
 * part. Returns the changes taken.
 */
static size_t
part_fill(struct part_enc *pe, const struct mgmt_changes *chg,
    const struct mgmt_conf *conf, size_t *pos)
{
	size_t i, k = 0, start = *pos;

	ipc_route_set_clear(&pe->set);
	lc_arena_reset(pe->names);
	memset(pe->nhmap, 0, sizeof(pe->nhmap));
	for (i = start; i < chg->n && k < PUSH_PART; i++) {
		if (chg->v[i].unit != MGMT_S_ROUTE)
			continue;
		k++;
		if (chg->v[i].op != MGMT_CHG_DEL)
			part_add(pe, conf, chg->v[i].new);
	}
	*pos = i;
	for (i = start; i < *pos; i++) {
		struct mgmt_route_conf c;
		struct ipc_route *r;

		if (chg->v[i].unit != MGMT_S_ROUTE ||
		    chg->v[i].op != MGMT_CHG_DEL)
			continue;
		mgmt_conf_route_get(chg->v[i].old, &c);
		if ((r = ipc_route_set_add(&pe->set, 0)) == NULL)
			lc_oom("a commit's routes");
		if (c.family == AF_INET6) {
			r->family = AF_INET6;
			r->pfx.v6 = c.prefix6.addr;
			r->len = c.prefix6.len;
		} else {
			r->pfx.v4 = c.prefix.addr;
			r->len = c.prefix.len;
		}
		r->op = IPC_ROUTE_DEL;
	}
	return (k);
}

/* rib's settings from conf (every leaf, its default if not configured) */
static void
enc_rib_config(const struct mgmt_conf *conf, Rib__RibConfig *rc)
{
	rib__rib_config__init(rc);
	mgmt_wire_fill_conf(conf, MGMT_S_RIB, &rc->base);
}

/* A copy of s in e (the config's strings are only borrowed) */
static char *
enc_str(struct enc *e, const char *s)
{
	size_t n = strlen(s) + 1;

	return (memcpy(enc_alloc(e, n), s, n));
}

struct bgp_enc {
	struct enc *e;
	Bgp__BgpConfig *c;
	size_t max;
};

/* One neighbour: its numbers and flags from the schema's wire column, the
 * rest (address, strings, local-address) here. */
static int
enc_bgp_nbr(const struct mgmt_node *n, void *arg)
{
	struct bgp_enc *be = arg;
	Bgp__Neighbor *nb;
	struct mgmt_bgp_nbr_conf c;

	if (be->c->n_neighbors == be->max)
		return (0);
	nb = enc_alloc(be->e, sizeof(*nb));
	bgp__neighbor__init(nb);
	mgmt_conf_bgp_nbr_get(n, &c);
	nb->address = c.addr.s_addr;
	mgmt_wire_fill(MGMT_S_BGP_NBR, n, &nb->base);
	nb->description = enc_str(be->e, c.description);
	nb->local_address = c.local_address.s_addr;
	nb->md5_password = enc_str(be->e, c.auth_key);
	nb->import_policy = enc_str(be->e, c.import);
	nb->export_policy = enc_str(be->e, c.export);
	nb->families = c.families;
	if (c.local_address6[0] != '\0') {
		/* checked at validation */
		struct lc_ip6 *a6 = enc_alloc(be->e, sizeof(*a6));
		struct lc_err e;

		if (lc_inet6_parse(c.local_address6, 0, a6, NULL, &e) == 0) {
			nb->local_address6.data = a6->b;
			nb->local_address6.len = 16;
		}
	}
	be->c->neighbors[be->c->n_neighbors++] = nb;
	return (0);
}

/* tern-bgp's part: the whole bgp block of conf (enabled: it is there) and
 * policy-options, which tern-bgp diffs against what it runs */
static void
enc_bgp_config(struct enc *e, const struct mgmt_conf *conf, uint64_t txn,
    bool dry, Bgp__BgpConfig *c)
{
	struct bgp_enc be = {e, c, mgmt_conf_count(conf, MGMT_S_BGP_NBR)};
	struct mgmt_bgp_conf b;

	bgp__bgp_config__init(c);
	mgmt_conf_bgp_get(conf, &b);
	c->txn = txn;
	c->dry_run = dry;
	c->enabled = b.present;
	c->router_id = b.router_id.s_addr;
	mgmt_wire_fill_conf(conf, MGMT_S_BGP, &c->base); /* local-as, GR time */
	c->neighbors = enc_alloc(e, sizeof(*c->neighbors) * (be.max + 1));
	mgmt_conf_foreach(conf, MGMT_S_BGP_NBR, enc_bgp_nbr, &be);
	c->policy = (Bgp__PolicyOptions *)mgmt_policy_encode(conf, enc_alloc_cb,
	    e);
}

static bool
chg_has(const struct mgmt_changes *chg, enum mgmt_sid unit)
{
	for (size_t i = 0; i < chg->n; i++)
		if (chg->v[i].unit == unit)
			return (true);
	return (false);
}

/* ---- the transaction ------------------------------------------------------------- */

/* The parts of a transaction: one call each but rib's routes (a stream of
 * calls, below); a bit each in accepted. */
enum {
	P_FWD,	   /* interfaces and/or the fwd block */
	P_RIB,	   /* static routes */
	P_RIB_SET, /* the rib block */
	P_BGP,
	P__COUNT
};
static const int part_comp[P__COUNT] = {C_FWD, C_RIB, C_RIB, C_BGP};

/*
 * rib's part of a commit, its static routes: one RouteBatch of up to
 * PUSH_PART routes, or more as a transaction in parts (RouteBatch.txn): rib
 * keeps the parts and applies them all at the last, all or nothing, so a
 * refused part leaves rib and fwd as they were. PUSH_WINDOW parts are in
 * flight; each ack sends the next. The stream is one part of the commit
 * (pending, accepted), done when no call of it is in flight any more.
 */
struct rib_stream {
	bool active;
	bool stop;	/* send no more: a part failed, or the commit did */
	bool failed;	/* a part was refused (why) or its call failed */
	bool unknown;	/* a call failed: rib may have applied it anyway */
	bool last_sent; /* the last part went */
	const struct mgmt_changes *chg; /* the transaction's */
	const struct mgmt_conf *conf;	/* names interfaces' devices */
	size_t pos;			/* next change to look at */
	size_t total, sent;		/* route changes in chg, sent */
	uint64_t txn;			/* RouteBatch.txn; 0: one batch */
	uint32_t part;			/* next part */
	unsigned inflight;
	char why[400];
	struct part_enc pe;
};

struct mgmt_txn {
	struct mgmt *m;
	struct mgmt_conf *target; /* what becomes running */
	/* running -> target; the undo's change set once undoing */
	struct mgmt_changes chg;
	bool check_only;
	unsigned pending;  /* parts not answered yet */
	unsigned accepted; /* bit per P_ part */
	bool failed;
	bool undoing; /* the rollback of accepted parts */
	bool stored;  /* the store step has run */
	int store_rv;
	char err[512];
	mgmt_commit_done_fn *done;
	void *arg;
	bool has_meta;
	struct mgmt_commit_meta meta; /* stored with the commit */
	struct rib_stream rs;
};

struct mgmt_comp {
	struct ipc_client *cl;
	uint64_t seq;
	/* (re)connected during a commit: resync when it ends */
	bool resync_due;
};

static struct mgmt_comp comps[C__COUNT]; /* one mgmt per process */

static void txn_part_done(struct mgmt_txn *t, int part, bool ok,
    const char *why);
static void fwd_connected(struct ipc_client *cl, uint64_t gen, void *arg);
static void rib_connected(struct ipc_client *cl, uint64_t gen, void *arg);
static void bgp_connected(struct ipc_client *cl, uint64_t gen, void *arg);
/* what a component gets when it (re)connects: the whole running config */
static void (*const comp_connected[C__COUNT])(struct ipc_client *, uint64_t,
    void *) = {fwd_connected, rib_connected, NULL, bgp_connected};

static void
fwd_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	const Fwd__IfConfigAck *a = (const Fwd__IfConfigAck *)msg;
	char why[400];

	if (status != IPC_OK)
		snprintf(why, sizeof(why), "%s%s%s", ipc_status_str(status),
		    err->msg[0] ? ": " : "", err->msg);
	else if (a != NULL && !a->ok)
		snprintf(why, sizeof(why), "%s", a->error);
	txn_part_done(arg, P_FWD, status == IPC_OK && a != NULL && a->ok, why);
}

/* rib's answer (a RouteBatchAck): ok, or why not into why */
static bool
rib_ack_ok(int status, const struct lc_err *err, const ProtobufCMessage *msg,
    char *why, size_t len)
{
	const Rib__RouteBatchAck *a = (const Rib__RouteBatchAck *)msg;
	bool ok = status == IPC_OK && a != NULL && a->rejected == 0;

	if (status != IPC_OK)
		snprintf(why, len, "%s%s%s", ipc_status_str(status),
		    err->msg[0] ? ": " : "", err->msg);
	else if (!ok)
		snprintf(why, len, "%s",
		    a->n_errors > 0 ? a->errors[0]->message :
				      "routes rejected");
	return (ok);
}

/* the rib block (SET_CONFIG) */
static void
rib_set_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	char why[400];
	bool ok = rib_ack_ok(status, err, msg, why, sizeof(why));

	txn_part_done(arg, P_RIB_SET, ok, why);
}

static bool
comp_up(int c)
{
	return (comps[c].cl != NULL && ipc_client_connected(comps[c].cl));
}

/* One call of the transaction; false (and t failed) when it cannot go. */
static bool
txn_call(struct mgmt_txn *t, int c, unsigned method,
    const ProtobufCMessage *msg, ipc_reply_fn *reply, const char *what,
    unsigned *sent)
{
	if (ipc_call(comps[c].cl, method, msg, reply, t, PUSH_TIMEOUT_MS) !=
	    0) {
		snprintf(t->err, sizeof(t->err), "%s: could not send %s",
		    comp_name[c], what);
		t->failed = true;
		return (false);
	}
	t->pending++;
	++*sent;
	return (true);
}

/* ---- tern-bgp's part: one BgpConfig, or parts ---- */

/*
 * tern-bgp gets the whole bgp block and policy-options every time: one
 * BgpConfig while its prefix lists hold up to PUSH_BGP_ENTRIES entries,
 * else parts of PUSH_BGP_ENTRIES entries (a list goes on in the next part
 * under its name) and a last part with the rest, one in flight at a time
 * (a part is up to ~3.4 MB; a frame is at most 16 MiB, the queue's mark 8
 * MiB). tern-bgp keeps the parts and checks and applies the whole at the
 * last (BgpConfig.part, more). Used by the commit and by the resync.
 */
#define PUSH_BGP_ENTRIES 262144

struct bgp_send {
	struct enc e;
	Bgp__BgpConfig **part;
	size_t n, next;
	void (*done)(void *arg, bool ok, const char *why);
	void *arg;
};

static void bgp_send_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg);

/* The prefix lists of po from list *li, entry *off on, up to room entries
 * (all when room is 0) into p; *li, *off move on. */
static void
bgp_slice(struct enc *e, const Bgp__PolicyOptions *po, size_t *li, size_t *off,
    size_t room, Bgp__PolicyOptions *p)
{
	bool all = room == 0;

	p->prefix_lists = enc_alloc(e,
	    (po->n_prefix_lists - *li + 1) * sizeof(*p->prefix_lists));
	p->n_prefix_lists = 0;
	while (*li < po->n_prefix_lists && (all || room > 0)) {
		const Bgp__PrefixList *l = po->prefix_lists[*li];
		size_t take = l->n_entries - *off;
		Bgp__PrefixList *sl;

		if (!all && take > room)
			take = room;
		sl = enc_alloc(e, sizeof(*sl));
		*sl = *l;
		sl->entries = l->entries + *off;
		sl->n_entries = take;
		p->prefix_lists[p->n_prefix_lists++] = sl;
		*off += take;
		room -= all ? 0 : take;
		if (*off == l->n_entries) {
			++*li;
			*off = 0;
		}
	}
}

/* w (in bs->e) as parts */
static void
bgp_split(struct bgp_send *bs, Bgp__BgpConfig *w)
{
	const Bgp__PolicyOptions *po = w->policy;
	size_t total = 0, li = 0, off = 0;
	Bgp__BgpConfig *c;

	for (size_t i = 0; po != NULL && i < po->n_prefix_lists; i++)
		total += po->prefix_lists[i]->n_entries;
	bs->part = enc_alloc(&bs->e,
	    (total / PUSH_BGP_ENTRIES + 2) * sizeof(*bs->part));
	if (total <= PUSH_BGP_ENTRIES) {
		bs->part[bs->n++] = w;
		return;
	}
	for (; total > PUSH_BGP_ENTRIES; total -= PUSH_BGP_ENTRIES) {
		Bgp__PolicyOptions *p = enc_alloc(&bs->e, sizeof(*p));

		c = enc_alloc(&bs->e, sizeof(*c));
		bgp__bgp_config__init(c);
		bgp__policy_options__init(p);
		c->txn = w->txn;
		c->dry_run = w->dry_run;
		c->part = (uint32_t)bs->n;
		c->more = true;
		c->policy = p;
		bgp_slice(&bs->e, po, &li, &off, PUSH_BGP_ENTRIES, p);
		bs->part[bs->n++] = c;
	}
	/* the last: everything else, and the rest of the lists */
	c = enc_alloc(&bs->e, sizeof(*c));
	*c = *w;
	c->policy = enc_alloc(&bs->e, sizeof(*c->policy));
	*c->policy = *po;
	bgp_slice(&bs->e, po, &li, &off, 0, c->policy);
	c->part = (uint32_t)bs->n;
	bs->part[bs->n++] = c;
}

static void
bgp_send_free(struct bgp_send *bs)
{
	enc_free(&bs->e);
	free(bs);
}

static int
bgp_send_next(struct bgp_send *bs)
{
	return (ipc_call(comps[C_BGP].cl, BGP__METHOD__SET_CONFIG,
	    &bs->part[bs->next]->base, bgp_send_reply, bs, PUSH_TIMEOUT_MS));
}

/* conf's bgp block and policy-options to tern-bgp; done(arg, ok, why)
 * when it answered the last part (or one failed). NULL when the first
 * part could not go. */
static struct bgp_send *
bgp_send_start(const struct mgmt_conf *conf, uint64_t txn, bool dry,
    void (*done)(void *, bool, const char *), void *arg)
{
	struct bgp_send *bs = lc_xcalloc(1, sizeof(*bs), "tern-bgp's part");
	Bgp__BgpConfig *w;

	bs->e.conf = conf;
	bs->done = done;
	bs->arg = arg;
	w = enc_alloc(&bs->e, sizeof(*w));
	enc_bgp_config(&bs->e, conf, txn, dry, w);
	bgp_split(bs, w);
	if (bgp_send_next(bs) != 0) {
		bgp_send_free(bs);
		return (NULL);
	}
	return (bs);
}

static void
bgp_abort_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	(void)arg;
	(void)msg;
	if (status != IPC_OK)
		lc_log_info("tern-bgp's drop of a config in parts: %s %s",
		    ipc_status_str(status), err->msg);
}

static void
bgp_send_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	const Bgp__ConfigAck *a = (const Bgp__ConfigAck *)msg;
	struct bgp_send *bs = arg;
	bool ok = status == IPC_OK && a != NULL && a->ok;
	char why[400] = "";

	if (status != IPC_OK)
		snprintf(why, sizeof(why), "%s%s%s", ipc_status_str(status),
		    err->msg[0] ? ": " : "", err->msg);
	else if (!ok)
		snprintf(why, sizeof(why), "%s", a != NULL ? a->error : "");
	if (ok && ++bs->next < bs->n) {
		if (bgp_send_next(bs) == 0)
			return;
		snprintf(why, sizeof(why), "could not send part %zu of %zu",
		    bs->next, bs->n);
		ok = false;
	}
	if (!ok && bs->n > 1 && bs->next < bs->n - 1 && comp_up(C_BGP)) {
		/* parts kept by a tern-bgp that did not refuse them (a
		 * timeout): dropped */
		Bgp__BgpConfig ab = BGP__BGP_CONFIG__INIT;

		ab.txn = bs->part[0]->txn;
		ab.abort = true;
		(void)ipc_call(comps[C_BGP].cl, BGP__METHOD__SET_CONFIG,
		    &ab.base, bgp_abort_reply, NULL, PUSH_TIMEOUT_MS);
	}
	if (!ok && bs->n > 1)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
		    " (part %zu of %zu)", bs->next, bs->n);
	bs->done(bs->arg, ok, why);
	bgp_send_free(bs);
}

/* ---- rib's routes: the stream ---- */

static void rs_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg);
static void rs_abort(struct rib_stream *rs);

static void
rs_fini(struct rib_stream *rs)
{
	ipc_route_set_fini(&rs->pe.set);
	ipc_route_enc_fini(&rs->pe.enc);
	lc_arena_free(rs->pe.names);
	rs->pe.names = NULL;
	rs->active = false;
}

/* The next part; -errno when it could not go (rs->why says so). */
static int
rs_send(struct mgmt_txn *t)
{
	struct rib_stream *rs = &t->rs;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	size_t k = part_fill(&rs->pe, rs->chg, rs->conf, &rs->pos);
	int rv;

	if (ipc_route_batch_encode(&rs->pe.enc, &b, &rs->pe.set, true) != 0)
		lc_oom("a commit's routes");
	b.source = RIB__SOURCE__STATIC;
	b.source_name = (char *)"static";
	b.seq = ++comps[C_RIB].seq;
	b.txn = rs->txn;
	if (rs->txn != 0) {
		b.part = rs->part;
		b.more = rs->sent + k < rs->total;
		b.txn_routes = rs->part == 0 ? (uint32_t)rs->total : 0;
	}
	if ((rv = ipc_call(comps[C_RIB].cl, RIB__METHOD__ROUTE_BATCH, &b.base,
		 rs_reply, t, PUSH_TIMEOUT_MS)) != 0) {
		snprintf(rs->why, sizeof(rs->why),
		    "could not send part %u of %zu routes: %s", rs->part,
		    rs->total, strerror(-rv));
		return (rv);
	}
	rs->part++;
	rs->sent += k;
	rs->inflight++;
	rs->last_sent = rs->sent == rs->total;
	return (0);
}

/* Parts out while the window has room. */
static void
rs_pump(struct mgmt_txn *t)
{
	struct rib_stream *rs = &t->rs;

	while (!rs->stop && !rs->last_sent && rs->inflight < PUSH_WINDOW)
		if (rs_send(t) != 0) {
			rs->stop = rs->failed = true;
			rs_abort(rs);
			break;
		}
}

static void
abort_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	(void)msg;
	if (status != IPC_OK)
		lc_log_info(
		    "commit: tern-rib's drop of transaction %llu: %s %s",
		    (unsigned long long)(uintptr_t)arg, ipc_status_str(status),
		    err->msg);
}

/* The abort of a transaction rib keeps parts of: its answer is not waited
 * for (rib drops them also when our connection ends, or a minute after
 * the last part). */
static void
rs_abort(struct rib_stream *rs)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;

	if (rs->txn == 0 || rs->last_sent || rs->part == 0 || !comp_up(C_RIB))
		return;
	b.source = RIB__SOURCE__STATIC;
	b.source_name = (char *)"static";
	b.seq = ++comps[C_RIB].seq;
	b.txn = rs->txn;
	b.abort = true;
	if (ipc_call(comps[C_RIB].cl, RIB__METHOD__ROUTE_BATCH, &b.base,
		abort_reply, (void *)(uintptr_t)rs->txn, PUSH_TIMEOUT_MS) != 0)
		lc_log_warnx(
		    "commit: could not tell tern-rib to drop "
		    "transaction %llu (it drops it when its parts stop)",
		    (unsigned long long)rs->txn);
}

/*
 * Sends rib's routes of chg (conf names devices); false when there are
 * none. The stream counts as one pending part of t from here on.
 */
static bool
rs_start(struct mgmt_txn *t, const struct mgmt_changes *chg,
    const struct mgmt_conf *conf)
{
	struct rib_stream *rs = &t->rs;
	size_t total = 0;

	for (size_t i = 0; i < chg->n; i++)
		total += chg->v[i].unit == MGMT_S_ROUTE;
	if (total == 0)
		return (false);
	if (rs->active) /* cannot be: the undo starts once it ended */
		rs_fini(rs);
	memset(rs, 0, sizeof(*rs));
	rs->active = true;
	rs->chg = chg;
	rs->conf = conf;
	rs->total = total;
	ipc_route_set_init(&rs->pe.set);
	ipc_route_enc_init(&rs->pe.enc);
	if ((rs->pe.names = lc_arena_new(0)) == NULL)
		lc_oom("a commit's routes");
	/* more than a batch: a transaction rib applies at its last part */
	if (total > PUSH_PART)
		rs->txn = ++comps[C_RIB].seq;
	t->pending++;
	rs_pump(t);
	return (true);
}

/* The stream ended (nothing in flight): rib's part is done. */
static void
rs_end(struct mgmt_txn *t)
{
	struct rib_stream *rs = &t->rs;
	/* stopped by a failure elsewhere after its last part went: rib took
	 * it all (and it is undone with the other parts) */
	bool ok = rs->last_sent && !rs->failed;
	char why[sizeof(rs->why)];

	snprintf(why, sizeof(why), "%s", rs->why);
	if (rs->txn != 0 && !ok && !rs->failed)
		snprintf(why, sizeof(why), "transaction %llu given up",
		    (unsigned long long)rs->txn);
	/* a call that failed (timeout, connection lost) may have been
	 * applied: rib gets the running config in full when this ends */
	if (rs->unknown)
		comps[C_RIB].resync_due = true;
	rs_fini(rs);
	txn_part_done(t, P_RIB, ok, why);
}

static void
rs_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct mgmt_txn *t = arg;
	struct rib_stream *rs = &t->rs;
	char why[sizeof(rs->why)];

	rs->inflight--;
	if (!rib_ack_ok(status, err, msg, why, sizeof(why)) && !rs->failed) {
		/* the first refusal says why; rib refuses the parts behind
		 * it (no such transaction any more) */
		rs->failed = rs->stop = true;
		rs->unknown = status != IPC_OK;
		if (rs->txn != 0)
			snprintf(rs->why, sizeof(rs->why),
			    "%s (a transaction of %zu routes in %zu parts: "
			    "none of it applied)",
			    why, rs->total,
			    (rs->total + PUSH_PART - 1) / PUSH_PART);
		else
			snprintf(rs->why, sizeof(rs->why), "%s", why);
		rs_abort(rs);
	} else if (status != IPC_OK) {
		rs->unknown = true;
	}
	rs_pump(t);
	if (rs->inflight == 0 && (rs->stop || rs->last_sent))
		rs_end(t);
}

/* The commit failed elsewhere: no more parts; rib drops what it kept. A
 * last part already sent is waited for (rib may accept it: then it is
 * undone with the others). Returns true when the stream ended here. */
static bool
rs_cancel(struct mgmt_txn *t)
{
	struct rib_stream *rs = &t->rs;

	if (!rs->active || rs->stop)
		return (false);
	rs->stop = true;
	rs_abort(rs);
	if (rs->inflight > 0)
		return (false);
	rs_fini(rs);
	t->pending--; /* ended not accepted; nothing of it was applied */
	return (true);
}

static void
txn_bgp_done(void *arg, bool ok, const char *why)
{
	txn_part_done(arg, P_BGP, ok, why);
}

/* Sends each connected component its part of chg (t->chg); returns how
 * many parts went. */
static unsigned
txn_send(struct mgmt_txn *t, const struct mgmt_changes *chg,
    const struct mgmt_conf *new, bool dry)
{
	struct enc e = {.conf = new};
	Fwd__FwdConfig fc;
	Fwd__IfConfigBatch fb;
	Rib__RibConfig rc;
	bool fwd = comp_up(C_FWD), rib = comp_up(C_RIB) && !dry;
	unsigned sent = 0;

	/* fwd's settings and interfaces: in one IF_CONFIG when both changed
	 * (a new worker count and the AF_XDP interfaces are checked against
	 * each other and applied in the order that works), else each alone.
	 * rib has no dry run: commit check validates its part here. Once a
	 * part cannot be sent, the rest is not sent either. */
	if (fwd) {
		bool set = chg_has(chg, MGMT_S_FWD);
		bool ifs = enc_fwd_part(&e, chg, new, ++comps[C_FWD].seq, dry,
		    &fb);

		if (set)
			enc_fwd_config(new, ifs ? fb.txn : ++comps[C_FWD].seq,
			    dry, &fc);
		if (set && ifs)
			fb.settings = &fc;
		else if (set &&
		    !txn_call(t, C_FWD, FWD__METHOD__SET_CONFIG, &fc.base,
			fwd_reply, "its settings", &sent))
			goto out;
		if (ifs &&
		    !txn_call(t, C_FWD, FWD__METHOD__IF_CONFIG, &fb.base,
			fwd_reply, "its part", &sent))
			goto out;
	}
	if (rib && rs_start(t, chg, new)) {
		sent++;
		if (t->rs.failed && t->rs.inflight == 0) {
			/* its first part could not go */
			snprintf(t->err, sizeof(t->err), "%s: %s",
			    comp_name[C_RIB], t->rs.why);
			rs_fini(&t->rs);
			t->pending--;
			sent--;
			t->failed = true;
			goto out;
		}
	}
	/* the rib block: its own call in the same transaction */
	if (rib && chg_has(chg, MGMT_S_RIB)) {
		enc_rib_config(new, &rc);
		if (!txn_call(t, C_RIB, RIB__METHOD__SET_CONFIG, &rc.base,
			rib_set_reply, "its settings", &sent))
			goto out;
	}
	/* the bgp block and policy-options, whole, with tern-bgp's own dry
	 * run for commit check */
	if (comp_up(C_BGP) &&
	    (chg_has(chg, MGMT_S_BGP) || chg_has(chg, MGMT_S_POLICY))) {
		if (bgp_send_start(new, ++comps[C_BGP].seq, dry, txn_bgp_done,
			t) != NULL) {
			t->pending++;
			sent++;
		} else {
			snprintf(t->err, sizeof(t->err),
			    "%s: could not send its part", comp_name[C_BGP]);
			t->failed = true;
		}
	}
out:
	enc_free(&e);
	/* a part that could not go fails the commit: stop rib's routes
	 * (a rollback's go on whatever fails) */
	if (t->failed && !t->undoing && sent > 0 && rs_cancel(t))
		sent--;
	return (sent);
}

static void txn_finish(struct mgmt_txn *t);

static void
txn_stored(void *arg, int rv, const struct lc_err *err)
{
	struct mgmt_txn *t = arg;

	t->store_rv = rv;
	if (rv != 0)
		snprintf(t->err, sizeof(t->err), "%s", err->msg);
	txn_finish(t);
}

static void
txn_finish(struct mgmt_txn *t)
{
	struct mgmt *m = t->m;
	struct lc_err done_err;
	int rv = 0;

	if (!t->failed && !t->check_only && !t->stored) {
		t->stored = true;
		const struct mgmt_commit_meta *meta = t->has_meta ? &t->meta :
								    NULL;

		if (mgmt_commit_store(m, t->target, meta, txn_stored, t) == 0)
			return; /* txn_stored() comes back here */
		struct lc_err serr;

		if ((t->store_rv = mgmt_commit_local(m, t->target, meta,
			 &serr)) != 0)
			snprintf(t->err, sizeof(t->err), "%s", serr.msg);
	}
	if (t->stored)
		rv = t->store_rv;
	if (rv != 0 && t->accepted != 0 && !t->undoing) {
		/* stored nothing: take the components back to running */
		t->failed = true;
		t->undoing = true;
		mgmt_changes_fini(&t->chg);
		mgmt_conf_diff(t->target, m->running, &t->chg);
		if (txn_send(t, &t->chg, m->running, false) > 0)
			return;
	}
	m->txn = NULL;
	/* a component that (re)connected meanwhile gets running as it is
	 * now: resynced from the running of before the commit, it would
	 * have lost the commit's part (not sent to it, or swept by the
	 * resync that followed it) */
	for (int c = 0; c < C__COUNT; c++) {
		if (!comps[c].resync_due)
			continue;
		comps[c].resync_due = false;
		if (comp_up(c) && comp_connected[c] != NULL)
			comp_connected[c](comps[c].cl,
			    ipc_client_peer_generation(comps[c].cl), m);
	}
	/* a commit that succeeds may still say something (a warning) */
	lc_err_set(&done_err, t->failed || rv != 0 ? -EIO : 0, LC_ERR_NOINDEX,
	    "%s", t->err);
	t->done(t->arg, done_err.code, &done_err);
	mgmt_changes_fini(&t->chg);
	mgmt_conf_free(t->target);
	free(t);
}

static void
txn_part_done(struct mgmt_txn *t, int part, bool ok, const char *why)
{
	int comp = part_comp[part];

	if (t->undoing) {
		if (!ok) {
			lc_log_err("commit rollback: %s refused to go back: %s "
				   "(it will be resynced)",
			    comp_name[comp], why);
			comps[comp].resync_due = true;
		}
	} else if (ok) {
		t->accepted |= 1u << part;
	} else if (!t->failed) {
		t->failed = true;
		snprintf(t->err, sizeof(t->err),
		    "commit failed: %s refused its "
		    "part: %s",
		    comp_name[comp], why);
	}
	--t->pending;
	/* rib's routes still going: stop them (rs_cancel counts the stream
	 * out when nothing of it is in flight) */
	if (t->failed && !t->undoing && part != P_RIB)
		(void)rs_cancel(t);
	if (t->pending > 0)
		return;
	if (t->failed && !t->undoing && t->accepted != 0 && !t->check_only) {
		/* undo what the others accepted: running -> old again, to
		 * those that accepted */
		unsigned acc = t->accepted;

		t->undoing = true;
		mgmt_changes_fini(&t->chg);
		mgmt_conf_diff(t->target, t->m->running, &t->chg);
		for (size_t i = 0; i < t->chg.n; i++) {
			enum mgmt_sid u = t->chg.v[i].unit;

			if ((!(acc & (1u << P_FWD)) &&
				(u == MGMT_S_IFACE || u == MGMT_S_FWD)) ||
			    (!(acc & (1u << P_RIB)) && u == MGMT_S_ROUTE) ||
			    (!(acc & (1u << P_RIB_SET)) && u == MGMT_S_RIB) ||
			    (!(acc & (1u << P_BGP)) &&
				(u == MGMT_S_BGP || u == MGMT_S_POLICY)))
				t->chg.v[i].unit = MGMT_S__COUNT;
		}
		if (txn_send(t, &t->chg, t->m->running, false) > 0)
			return;
	}
	txn_finish(t);
}

int
mgmt_commit_start(struct mgmt *m, const struct mgmt_conf *conf, bool check_only,
    const struct mgmt_commit_meta *meta, mgmt_commit_done_fn *done, void *arg)
{
	struct mgmt_txn *t;
	struct lc_err merr;

	if (m->txn != NULL) {
		lc_err_set(&merr, -EBUSY, LC_ERR_NOINDEX,
		    "commit failed: another commit is in progress");
		done(arg, merr.code, &merr);
		return (0);
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		lc_err_set(&merr, -ENOMEM, LC_ERR_NOINDEX,
		    "commit failed: out of memory");
		done(arg, merr.code, &merr);
		return (0);
	}
	t->m = m;
	t->target = mgmt_conf_dup(conf);
	t->check_only = check_only;
	t->done = done;
	t->arg = arg;
	if ((t->has_meta = meta != NULL))
		t->meta = *meta;
	mgmt_conf_diff(m->running, conf, &t->chg);
	if (mgmt_conf_validate_changes(conf, &t->chg, &merr) != 0) {
		snprintf(t->err, sizeof(t->err), "commit failed: %s", merr.msg);
		t->failed = true;
		m->txn = t;
		txn_finish(t);
		return (0);
	}
	m->txn = t;
	/* target, not conf: rib's routes may still go after this returns */
	if (txn_send(t, &t->chg, t->target, check_only) == 0) {
		/* nothing to send, or the components are down: they take the
		 * running config when they connect */
		txn_finish(t);
	}
	return (0);
}

/* ---- full resync on (re)connect ------------------------------------------------ */

struct resync_ctx {
	struct enc e;
	Rib__RouteBatch b;
	size_t n;
};

static void
resync_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	const char *what = arg;

	if (status != IPC_OK)
		lc_log_warnx("resync of %s: %s %s", what,
		    ipc_status_str(status), err->msg);
}

/* fwd answers both with an IfConfigAck: a refusal is logged too */
static void
fwd_resync_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	const Fwd__IfConfigAck *a = (const Fwd__IfConfigAck *)msg;

	if (status == IPC_OK && a != NULL && !a->ok)
		lc_log_err("resync of tern-fwd's %s: refused: %s",
		    (const char *)arg, a->error);
	else
		resync_reply(arg, status, err, msg);
}

static int
resync_route(const struct mgmt_node *n, void *arg)
{
	struct resync_ctx *r = arg;

	r->b.add[r->b.n_add++] = enc_route(&r->e, n);
	if (r->b.n_add == PUSH_CHUNK) {
		r->b.seq = ++comps[C_RIB].seq;
		if (ipc_call(comps[C_RIB].cl, RIB__METHOD__ROUTE_BATCH,
			&r->b.base, resync_reply, (void *)"static routes",
			PUSH_TIMEOUT_MS) != 0)
			return (-ENOBUFS);
		{
			const struct mgmt_conf *conf = r->e.conf;

			enc_free(&r->e);
			r->e.conf = conf;
		}
		r->b.add = enc_alloc(&r->e, sizeof(*r->b.add) * PUSH_CHUNK);
		r->b.n_add = 0;
		r->n += PUSH_CHUNK;
	}
	return (0);
}

/* mgmt is the static route source: after rib connects (rib or mgmt
 * restarted), it replays every static route between RESYNC_BEGIN and
 * RESYNC_END, so rib sweeps only what is really gone. */
static void
rib_connected(struct ipc_client *cl, uint64_t gen, void *arg)
{
	struct mgmt *m = arg;
	struct resync_ctx r = {0};
	Rib__Resync rs = RIB__RESYNC__INIT;
	int rv;

	if (m->txn != NULL) {
		/* running changes when the commit ends: resync then */
		comps[C_RIB].resync_due = true;
		lc_log_info("tern-rib (generation %llu) connected during a "
			    "commit: resync when it ends",
		    (unsigned long long)gen);
		return;
	}
	r.e.conf = m->running;
	{
		Rib__RibConfig rc;

		enc_rib_config(m->running, &rc);
		ipc_call(cl, RIB__METHOD__SET_CONFIG, &rc.base, resync_reply,
		    (void *)"rib settings", PUSH_TIMEOUT_MS);
	}
	rs.source = RIB__SOURCE__STATIC;
	rs.source_name = (char *)"static";
	rs.seq = ++comps[C_RIB].seq;
	ipc_call(cl, RIB__METHOD__RESYNC_BEGIN, &rs.base, resync_reply,
	    (void *)"static routes", PUSH_TIMEOUT_MS);
	rib__route_batch__init(&r.b);
	r.b.source = RIB__SOURCE__STATIC;
	r.b.source_name = (char *)"static";
	r.b.add = enc_alloc(&r.e, sizeof(*r.b.add) * PUSH_CHUNK);
	rv = mgmt_conf_foreach(m->running, MGMT_S_ROUTE, resync_route, &r);
	if (rv == 0 && r.b.n_add > 0) {
		r.b.seq = ++comps[C_RIB].seq;
		rv = ipc_call(cl, RIB__METHOD__ROUTE_BATCH, &r.b.base,
		    resync_reply, (void *)"static routes", PUSH_TIMEOUT_MS);
		r.n += r.b.n_add;
	}
	enc_free(&r.e);
	if (rv != 0) {
		/* the session will be retried on the next connect */
		lc_log_warnx("resync of static routes to tern-rib: queue full");
		return;
	}
	rs.seq = ++comps[C_RIB].seq;
	ipc_call(cl, RIB__METHOD__RESYNC_END, &rs.base, resync_reply,
	    (void *)"static routes", PUSH_TIMEOUT_MS);
	lc_log_info("tern-rib (generation %llu): %zu static routes resynced",
	    (unsigned long long)gen, r.n);
}

struct if_resync {
	struct enc e;
	Fwd__IfConfigBatch b;
	struct mgmt_fwd_conf fc;
};

static int
resync_iface(const struct mgmt_node *n, void *arg)
{
	struct if_resync *r = arg;

	if (r->b.n_interfaces < 4096)
		r->b.interfaces[r->b.n_interfaces++] = enc_iface(&r->e, n, NULL,
		    &r->fc);
	return (0);
}

/* fwd gets every interface with replace_all: unchanged ones stay as they
 * are, ports not listed go away. */
static void
fwd_connected(struct ipc_client *cl, uint64_t gen, void *arg)
{
	struct mgmt *m = arg;
	struct if_resync r = {0};
	Fwd__FwdConfig fc;

	if (m->txn != NULL) {
		/* running changes when the commit ends: resync then */
		comps[C_FWD].resync_due = true;
		lc_log_info("tern-fwd (generation %llu) connected during a "
			    "commit: resync when it ends",
		    (unsigned long long)gen);
		return;
	}
	/* settings first: the interfaces are checked against them */
	enc_fwd_config(m->running, ++comps[C_FWD].seq, false, &fc);
	ipc_call(cl, FWD__METHOD__SET_CONFIG, &fc.base, fwd_resync_reply,
	    (void *)"settings", PUSH_TIMEOUT_MS);
	mgmt_conf_fwd_get(m->running, &r.fc);
	fwd__if_config_batch__init(&r.b);
	r.b.txn = ++comps[C_FWD].seq;
	r.b.replace_all = true;
	r.b.interfaces = enc_alloc(&r.e, sizeof(*r.b.interfaces) * 4096);
	mgmt_conf_foreach(m->running, MGMT_S_IFACE, resync_iface, &r);
	ipc_call(cl, FWD__METHOD__IF_CONFIG, &r.b.base, fwd_resync_reply,
	    (void *)"interfaces", PUSH_TIMEOUT_MS);
	lc_log_info("tern-fwd (generation %llu): %zu interfaces resynced",
	    (unsigned long long)gen, r.b.n_interfaces);
	enc_free(&r.e);
}

static void
bgp_resync_done(void *arg, bool ok, const char *why)
{
	(void)arg;
	if (!ok)
		lc_log_warnx("resync of tern-bgp: %s", why);
}

/* tern-bgp gets the whole bgp block of running (enabled false without
 * one), as at every commit that changes it */
static void
bgp_connected(struct ipc_client *cl, uint64_t gen, void *arg)
{
	struct mgmt *m = arg;
	size_t nbr = mgmt_conf_count(m->running, MGMT_S_BGP_NBR);

	(void)cl;
	if (m->txn != NULL) {
		/* running changes when the commit ends: resync then */
		comps[C_BGP].resync_due = true;
		lc_log_info("tern-bgp (generation %llu) connected during a "
			    "commit: resync when it ends",
		    (unsigned long long)gen);
		return;
	}
	if (bgp_send_start(m->running, ++comps[C_BGP].seq, false,
		bgp_resync_done, NULL) == NULL) {
		lc_log_err("resync of tern-bgp: could not send the config");
		return;
	}
	lc_log_info("tern-bgp (generation %llu): %zu neighbors resynced",
	    (unsigned long long)gen, nbr);
}

int
mgmt_push_init(struct mgmt *m)
{
	struct ipc_opts io = {0}, bio;
	struct ipc_client_cbs fcb = {.on_connect = fwd_connected, .arg = m};
	struct ipc_client_cbs rcb = {.on_connect = rib_connected, .arg = m};
	struct ipc_client_cbs bcb = {.on_connect = bgp_connected, .arg = m};
	struct ipc_client_cbs mcb = {.on_connect = mgmt_compl_rtrmgr_connected,
	    .arg = m};

	io.rundir = m->opts.rundir;
	io.component = "mgmt";
	io.generation = m->opts.generation;
	io.reconnect_ms =
	    20; /* a restarted peer is back within a turn or two */
	/* tern-bgp runs only where BGP is configured: retry less often */
	bio = io;
	bio.reconnect_ms = 100;
	if ((comps[C_FWD].cl = ipc_client_new(m->loop, &ipc_svc_fwd, &io,
		 false)) == NULL ||
	    (comps[C_RIB].cl = ipc_client_new(m->loop, &ipc_svc_rib, &io,
		 false)) == NULL ||
	    (comps[C_RTRMGR].cl = ipc_client_new(m->loop, &ipc_svc_rtrmgr, &io,
		 false)) == NULL ||
	    (comps[C_BGP].cl = ipc_client_new(m->loop, &ipc_svc_bgp, &bio,
		 false)) == NULL) {
		mgmt_push_fini(m);
		return (-errno);
	}
	ipc_client_set_cbs(comps[C_FWD].cl, &fcb);
	ipc_client_set_cbs(comps[C_RIB].cl, &rcb);
	ipc_client_set_cbs(comps[C_BGP].cl, &bcb);
	ipc_client_set_cbs(comps[C_RTRMGR].cl, &mcb);
	return (0);
}

void
mgmt_push_fini(struct mgmt *m)
{
	for (int i = 0; i < C__COUNT; i++) {
		ipc_client_free(comps[i].cl);
		comps[i].cl = NULL;
	}
}

struct ipc_client *
mgmt_peer_client(struct mgmt *m, enum mgmt_peer p)
{
	return ((unsigned)p < C__COUNT ? comps[p].cl : NULL);
}

const char *
mgmt_peer_name(enum mgmt_peer p)
{
	return ((unsigned)p < C__COUNT ? comp_name[p] : "?");
}
