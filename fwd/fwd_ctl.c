/* fwd/fwd_ctl.c: tern-fwd's IPC service (fwd.proto): interface config from
 * mgmt, FIB batches and resync from rib, queries, interface events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_err.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_page.h"
#include "fwd_d.h"
#include "fwd_port_xdp.h"

#define FIB_QUERY_LIMIT_DEFAULT 1000
#define FIB_QUERY_LIMIT_MAX	100000

/* What the reply arena gave: it only fails when malloc does, and a reply
 * half built has nowhere to go. */
static void *
ar_ok(void *p)
{
	if (p == NULL)
		lc_oom("tern-fwd reply arena");
	return (p);
}

static void *
ar_calloc(struct fwd_d *d, size_t n)
{
	return (ar_ok(lc_arena_calloc(d->ar, n ? n : 1)));
}

/* The answer of both configuration methods (IF_CONFIG, SET_CONFIG): the
 * transaction, and why it was refused (logged too). */
static void
reply_config_ack(struct ipc_req *req, uint64_t txn, int rv, struct lc_err *err,
    const char *what)
{
	Fwd__IfConfigAck ack = FWD__IF_CONFIG_ACK__INIT;

	ack.txn = txn;
	ack.ok = rv == 0;
	ack.error = rv == 0 ? (char *)"" : err->msg;
	if (rv != 0)
		lc_log_notice("%s %llu refused: %s", what,
		    (unsigned long long)txn, err->msg);
	ipc_reply(req, IPC_OK, &ack.base);
}

/* FwdConfig's values (absent: unset) as settings; -EINVAL and err for
 * workers 0. */
static int
settings_of(const Fwd__FwdConfig *c, struct fwd_d_settings *st,
    struct lc_err *err)
{
	st->workers = c->has_workers ? c->workers : 0;
	st->icmp_rate = c->has_icmp_rate_limit ? (long)c->icmp_rate_limit : -1;
	if (c->has_workers && c->workers == 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "workers 0 out of range (1..%u)", FWD_D_WORKERS_MAX));
	return (0);
}

/* ---- IF_CONFIG ---- */

/* IfConfig's IPv6 fields into r (checked by fwd_d_if_apply). */
static void
if6_req_of(const Fwd__IfConfig *c, struct fwd_if_req *r)
{
	r->ipv6_off = c->ipv6_disabled;
	if (c->link_local.len != 0) {
		r->has_ll = c->link_local.len == 16;
		r->ll_bad = !r->has_ll;
		if (r->has_ll)
			memcpy(r->ll6, c->link_local.data, 16);
	}
	for (size_t j = 0; j < c->n_neighbours; j++) {
		const Fwd__StaticNeighbour *n = c->neighbours[j];
		unsigned k = r->nneigh6;

		if (n->addr6.len == 0)
			continue;
		if (k == FWD_D_NEIGH_MAX || n->addr6.len != 16 ||
		    n->mac.len != 6) {
			r->neigh6_bad = true;
			continue;
		}
		memcpy(r->neigh6_ip[k], n->addr6.data, 16);
		memcpy(r->neigh6_mac[k], n->mac.data, 6);
		r->nneigh6++;
	}
	if (c->n_addrs6 > FWD_D_ADDR6_MAX) {
		r->too_many6 = true;
		return;
	}
	r->naddr6 = (unsigned)c->n_addrs6;
	for (size_t k = 0; k < c->n_addrs6; k++) {
		const Fwd__IfAddr6 *a = c->addrs6[k];

		/* a bad length is refused by the check: plen 0 */
		r->plen6[k] = a->addr.len == 16 && a->len <= 128 ?
		    (uint8_t)a->len :
		    0;
		if (a->addr.len == 16)
			memcpy(r->addr6[k], a->addr.data, 16);
	}
}

static void
h_if_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__IfConfigBatch *b = (const Fwd__IfConfigBatch *)msg;
	struct fwd_if_req *rq;
	struct lc_err err;
	int rv;

	if ((rq = calloc(b->n_interfaces + 1, sizeof(*rq))) == NULL) {
		ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	for (size_t i = 0; i < b->n_interfaces; i++) {
		const Fwd__IfConfig *c = b->interfaces[i];
		struct fwd_if_req *r = &rq[i];

		r->name = c->name;
		r->enabled = c->enabled;
		r->deleted = c->deleted;
		r->mtu = c->mtu > 0xffff ? 1 : (uint16_t)c->mtu;
		r->backend = c->backend;
		/* an unknown value is refused by the batch's check */
		r->host_path = (unsigned)c->host_path;
		/* IPv4 ones here, IPv6 ones (addr6) by if6_req_of */
		for (size_t j = 0; j < c->n_neighbours; j++) {
			const ProtobufCBinaryData *m = &c->neighbours[j]->mac;
			unsigned k = r->nneigh;

			if (c->neighbours[j]->addr6.len != 0)
				continue;
			if (k == FWD_D_NEIGH_MAX) {
				r->neigh_too_many = true;
				break;
			}
			r->nneigh++;
			r->neigh_ip[k] = ntohl(c->neighbours[j]->addr);
			r->neigh_maclen[k] = m->len > 255 ? 255 :
							    (uint8_t)m->len;
			if (m->len == 6)
				memcpy(r->neigh_mac[k], m->data, 6);
		}
		fwd_d_nd_req_parse(&r->nd, c);
		if6_req_of(c, r);
		if (c->n_addrs > FWD_LOCAL_MAX) {
			r->too_many = true;
			continue;
		}
		r->naddr = (unsigned)c->n_addrs;
		for (size_t k = 0; k < c->n_addrs; k++) {
			r->addr[k] = ntohl(c->addrs[k]->addr);
			r->plen[k] = c->addrs[k]->len > 32 ?
			    0 :
			    (uint8_t)c->addrs[k]->len;
		}
	}
	if (b->settings != NULL) {
		/* the commit's settings with it: checked and applied together */
		struct fwd_d_settings st;

		if ((rv = settings_of(b->settings, &st, &err)) == 0)
			rv = fwd_d_config_apply(d, &st, rq,
			    (unsigned)b->n_interfaces, b->replace_all,
			    b->dry_run, &err);
	} else
		rv = fwd_d_if_apply(d, rq, (unsigned)b->n_interfaces,
		    b->replace_all, b->dry_run, &err);
	free(rq);
	if (rv == 0 && !b->dry_run)
		lc_log_info("interface batch %llu applied (%zu items%s)",
		    (unsigned long long)b->txn, b->n_interfaces,
		    b->replace_all ? ", replace all" : "");
	reply_config_ack(req, b->txn, rv, &err, "interface batch");
}

/* ---- SET_CONFIG ---- */

static void
h_set_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__FwdConfig *c = (const Fwd__FwdConfig *)msg;
	struct fwd_d_settings st;
	struct lc_err err;
	int rv;

	if ((rv = settings_of(c, &st, &err)) == 0)
		rv = fwd_d_set_config(d, &st, c->dry_run, &err);
	reply_config_ack(req, c->txn, rv, &err, "settings");
}

/* ---- FIB ---- */

#define FIB_PF_AHEAD 8 /* records looked ahead */

/* Prefetches what fwd_fib_add()/_del() of r's prefix will touch first
 * (fwd_fib_prefetch: 1M random prefixes miss the cache on each). */
static inline void
fib_prefetch(const struct fwd_fib *fib, const struct ipc_route *r)
{
	fwd_fib_prefetch(fib, ntohl(r->pfx.v4.s_addr), r->len);
}

/* One IPv6 record of a decoded FibBatch (fib_apply). */
static int
fib_apply6(struct fwd_d *d, const struct ipc_route_set *s,
    const struct ipc_route *r, const uint32_t *ifx)
{
	uint8_t gw6[FWD_ADJ_GROUP_MAX * 16];
	uint32_t ix[FWD_ADJ_GROUP_MAX];

	if (r->op == IPC_ROUTE_DEL)
		return (fwd_d_route6_del(d, r->pfx.v6.b, r->len));
	if (r->n_nh == 0)
		return (fwd_d_route6_nonh(d, r->pfx.v6.b, r->len, r->kind));
	if (r->n_nh > FWD_ADJ_GROUP_MAX)
		return (-EINVAL);
	for (unsigned k = 0; k < r->n_nh; k++) {
		const struct ipc_route_nh *nh = &s->nh[r->nh + k];

		if (nh->family != AF_INET6)
			return (-EINVAL);
		memcpy(gw6 + 16 * k, nh->addr.v6.b, 16);
		ix[k] = ifx[r->nh + k];
	}
	return (fwd_d_route6_add(d, r->pfx.v6.b, r->len, gw6, ix, r->n_nh));
}

/*
 * Applies the records of a decoded FibBatch (ipc/ipc_route.h: message and
 * packed entries in one array, in the order failed_index counts), failures
 * by index into fidx. gw/ifx: the batch's next-hop table in host order
 * (an IPv6 next hop's address is taken from the set itself).
 */
static void
fib_apply(struct fwd_d *d, const struct ipc_route_set *s, const uint32_t *gw,
    const uint32_t *ifx, uint32_t *fidx, size_t *nf)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];
		uint32_t a = ntohl(r->pfx.v4.s_addr);
		int rv;

		if (i + FIB_PF_AHEAD < s->n)
			fib_prefetch(d->fib, &s->rt[i + FIB_PF_AHEAD]);
		if (r->op != IPC_ROUTE_BAD && r->family == AF_INET6)
			rv = fib_apply6(d, s, r, ifx);
		else if (r->op == IPC_ROUTE_BAD || r->family != AF_INET)
			rv = -EINVAL;
		else if (r->op == IPC_ROUTE_DEL)
			rv = fwd_d_route_del(d, a, r->len);
		else if (r->n_nh == 0) /* no next hop: the kind says */
			rv = fwd_d_route_nonh(d, a, r->len, r->kind);
		else
			rv = fwd_d_route_add(d, a, r->len, gw + r->nh,
			    ifx + r->nh, r->n_nh);
		if (rv != 0)
			fidx[(*nf)++] = (uint32_t)i;
		else if (r->op == IPC_ROUTE_DEL)
			d->st.fib_dels++;
		else
			d->st.fib_adds++;
	}
}

static void
h_fib_batch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__FibBatch *b = (const Fwd__FibBatch *)msg;
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;
	struct ipc_route_set s;
	struct lc_err err;
	uint32_t *fidx, *gw, *ifx;
	size_t all = ipc_route_fib_count(b), nf = 0;
	int rv;

	ack.packed_ok = true;
	ack.ipv6_ok = true;
	ipc_route_set_init_arena(&s, d->ar);
	fidx = ar_calloc(d, all * sizeof(*fidx));
	if ((rv = ipc_route_fib_decode(&s, b, &err)) == -ENOMEM)
		lc_oom("tern-fwd FIB batch"); /* the arena's malloc */
	if (rv != 0) {
		/* a malformed batch changes nothing: all of it failed */
		for (size_t i = 0; i < all; i++)
			fidx[i] = (uint32_t)i;
		nf = all;
		lc_log_warnx("FIB batch %llu: %s: refused",
		    (unsigned long long)b->seq, err.msg);
	} else {
		/* an IPv6 next hop's gw is 0 here: an IPv4 route naming one
		 * is refused by fwd_d_route_add() (attached without
		 * interface) or points at nothing useful */
		gw = ar_calloc(d, s.nnh * sizeof(*gw));
		ifx = ar_calloc(d, s.nnh * sizeof(*ifx));
		for (size_t i = 0; i < s.nnh; i++) {
			if (s.nh[i].family == AF_INET)
				gw[i] = ntohl(s.nh[i].addr.v4.s_addr);
			ifx[i] = s.nh[i].ifindex;
		}
		fib_apply(d, &s, gw, ifx, fidx, &nf);
	}
	d->st.fib_batches++;
	d->st.fib_failed += nf;
	ack.seq = b->seq;
	ack.applied = (uint32_t)(all - nf);
	ack.failed = (uint32_t)nf;
	ack.n_failed_index = nf;
	ack.failed_index = fidx;
	ack.routes = (uint32_t)fwd_fib_count(d->fib);
	ipc_reply(req, IPC_OK, &ack.base);
	lc_arena_reset(d->ar);
	if (rv != 0)
		return;
	fwd_d_fib_tune(d);
	/* ARP requests for new gateways */
	if (d->out->n > 0)
		fwd_out_send(d->out, d->ctl_ports, FWD_PORT_MAX);
}

static void
h_resync_begin(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;

	fwd_d_resync_begin(d);
	ipc_server_set_state(d->srv, "resyncing");
	ack.packed_ok = true; /* FIB_BATCH takes packed_* fields */
	ack.ipv6_ok = true;   /* and IPv6 records (docs/ipv6.md) */
	ack.seq = ((const Fwd__Resync *)msg)->seq;
	ack.routes = (uint32_t)fwd_fib_count(d->fib);
	lc_log_info("resync begins (%u routes marked stale)", ack.routes);
	ipc_reply(req, IPC_OK, &ack.base);
}

static void
h_resync_end(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;

	ack.packed_ok = true;
	ack.ipv6_ok = true;
	ack.swept = (uint32_t)fwd_d_resync_end(d);
	fwd_d_fib_tune(d);
	ipc_server_set_state(d->srv, "running");
	ack.seq = ((const Fwd__Resync *)msg)->seq;
	ack.routes = (uint32_t)fwd_fib_count(d->fib);
	lc_log_info("resync done: %u routes swept, %u in the FIB", ack.swept,
	    ack.routes);
	ipc_reply(req, IPC_OK, &ack.base);
}

/* ---- interfaces ---- */

/* Interface.addrs6: the addresses in use (with ND: DAD passed; ND's own
 * integration adds tentative and duplicate ones), and the link-local. */
static void
enc_if6(struct fwd_d *d, const struct fwd_iface *f, Fwd__Interface *x)
{
	unsigned n = 0;

	x->addrs6 = ar_calloc(d, (f->nuse6 + 1) * sizeof(*x->addrs6));
	for (unsigned k = 0; f->attached && k < f->nuse6; k++) {
		const struct fwd_addr6 *u = &f->use6[k];
		Fwd__IfAddr6 *a;

		if (u->ll) {
			x->link_local.data = ar_ok(
			    lc_arena_memdup(d->ar, u->a, 16));
			x->link_local.len = 16;
			continue;
		}
		a = ar_calloc(d, sizeof(*a));
		fwd__if_addr6__init(a);
		a->addr.data = ar_ok(lc_arena_memdup(d->ar, u->a, 16));
		a->addr.len = 16;
		a->len = u->plen;
		x->addrs6[n++] = a;
	}
	x->n_addrs6 = n;
}

/* A port's counters as IfCounters, from the arena. */
static Fwd__IfCounters *
enc_if_counters(struct fwd_d *d, const struct fwd_port_stats *s)
{
	Fwd__IfCounters *c = ar_calloc(d, sizeof(*c));

	fwd__if_counters__init(c);
	c->rx_packets = s->rx_pkts;
	c->rx_bytes = s->rx_bytes;
	c->tx_packets = s->tx_pkts;
	c->tx_bytes = s->tx_bytes;
	c->rx_drops = s->rx_kernel_drops + s->rx_vlan + s->rx_oversize;
	c->tx_drops = s->tx_full;
	c->rx_ring_full = s->rx_ring_full;
	c->rx_oversize = s->rx_oversize;
	c->rx_csum_filled = s->rx_csum_partial;
	return (c);
}

/* A port's host path counters as HostPathCounters, from the arena. */
static Fwd__HostPathCounters *
enc_host_counters(struct fwd_d *d, const struct fwd_host_stats *hs)
{
	Fwd__HostPathCounters *h = ar_calloc(d, sizeof(*h));

	fwd__host_path_counters__init(h);
	h->up_packets = hs->up_pkts;
	h->up_bytes = hs->up_bytes;
	h->down_packets = hs->down_pkts;
	h->down_bytes = hs->down_bytes;
	h->up_full = hs->up_full;
	h->up_error = hs->up_error;
	h->up_coalesced = hs->up_coalesced;
	h->up_gso_writes = hs->up_gso;
	h->up_dropped = hs->up_full + hs->up_error;
	h->down_port_down = hs->down_port_down;
	h->down_not_ip = hs->down_not_ip;
	h->down_bad = hs->down_bad;
	h->down_tx_full = hs->down_tx_full;
	h->down_dropped = hs->down_port_down + hs->down_not_ip + hs->down_bad +
	    hs->down_tx_full;
	return (h);
}

/* What clear interfaces statistics left: the counters at that moment. */
static void
enc_baseline(struct fwd_d *d, const struct fwd_iface *f, Fwd__Interface *x)
{
	uint64_t now = fwd_d_now_ms(d);

	x->baseline = enc_if_counters(d, &f->base);
	x->host_baseline = enc_host_counters(d, &f->host_base);
	x->cleared_ago_ms = now > f->cleared_ms ? now - f->cleared_ms : 0;
}

static Fwd__Interface *
enc_iface(struct fwd_d *d, const struct fwd_iface *f, bool counters)
{
	Fwd__Interface *x = ar_calloc(d, sizeof(*x));

	fwd__interface__init(x);
	x->ifindex = f->ifindex;
	x->name = ar_ok(lc_arena_strdup(d->ar, f->name));
	x->link = f->attached && f->link_up ? FWD__LINK_STATE__LINK_UP :
					      FWD__LINK_STATE__LINK_DOWN;
	x->enabled = f->enabled;
	x->absent = f->absent;
	if (f->attached) {
		x->mac.data = ar_ok(lc_arena_memdup(d->ar, f->mac, 6));
		x->mac.len = 6;
	}
	x->mtu = f->attached ? f->mtu : f->mtu_conf;
	x->backend = (char *)(f->backend == FWD_D_BK_MEM ? "mem" : "afpacket");
	if (f->backend == FWD_D_BK_XDP) {
		/* the mode the kernel granted: xdp-zerocopy, xdp-copy or
		 * xdp-generic ("xdp" while not attached) */
		const char *m = f->attached ? fwd_port_xdp_mode(f->wport[0]) :
					      NULL;

		x->backend = (char *)(m != NULL ? m : "xdp");
	}
	if (f->bk_auto) {
		/* what port-backend auto chose: "xdp-copy (auto)" */
		char b[48];

		snprintf(b, sizeof(b), "%s (auto)", x->backend);
		x->backend = ar_ok(lc_arena_strdup(d->ar, b));
	}
	fwd_d_nd_if_fill(d, f, x);
	x->n_addrs = f->naddr;
	x->addrs = ar_calloc(d, f->naddr * sizeof(*x->addrs));
	for (unsigned k = 0; k < f->naddr; k++) {
		Fwd__IfAddr *a = ar_calloc(d, sizeof(*a));

		fwd__if_addr__init(a);
		a->addr = htonl(f->addr[k]);
		a->len = f->plen[k];
		x->addrs[k] = a;
	}
	enc_if6(d, f, x);
	if (counters) {
		struct fwd_port_stats st;

		fwd_d_if_counters(d, f, &st);
		x->counters = enc_if_counters(d, &st);
	}
	x->host_path = f->host_conf;
	x->host_ifname = (char *)"";
	if (f->host.open)
		x->host_ifname = ar_ok(lc_arena_strdup(d->ar, f->host.name));
	if (counters && f->host_conf)
		x->host = enc_host_counters(d, &f->host.st);
	if (counters && f->cleared)
		enc_baseline(d, f, x);
	return (x);
}

static void
list_ifaces(struct fwd_d *d, const char *name, bool counters,
    Fwd__InterfaceList *l)
{
	fwd__interface_list__init(l);
	l->interfaces = ar_calloc(d, FWD_PORT_MAX * sizeof(*l->interfaces));
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used ||
		    (name != NULL && name[0] != '\0' &&
			strcmp(name, f->name) != 0))
			continue;
		l->interfaces[l->n_interfaces++] = enc_iface(d, f, counters);
	}
}

static void
h_query_interfaces(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__InterfaceQuery *q = (const Fwd__InterfaceQuery *)msg;
	Fwd__InterfaceList l;

	list_ifaces(d, q->name, q->counters, &l);
	ipc_reply(req, IPC_OK, &l.base);
	lc_arena_reset(d->ar);
}

static void
h_subscribe(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	Fwd__InterfaceList l;

	(void)msg;
	ipc_req_subscribe(req);
	list_ifaces(d, NULL, false, &l);
	ipc_reply(req, IPC_OK, &l.base);
	lc_arena_reset(d->ar);
}

void
fwd_ctl_if_event(struct fwd_d *d, const struct fwd_iface *f, bool deleted)
{
	Fwd__InterfaceEvent ev = FWD__INTERFACE_EVENT__INIT;

	if (d->srv == NULL)
		return;
	ev.iface = enc_iface(d, f, false);
	ev.deleted = deleted;
	if (deleted)
		ev.iface->link = FWD__LINK_STATE__LINK_DOWN;
	(void)ipc_server_publish(d->srv, FWD__METHOD__EVENT_INTERFACE,
	    &ev.base);
	lc_arena_reset(d->ar);
}

/* ---- clear interfaces statistics, ping and traceroute (fwd_ops.c) ---- */

static void
h_clear_counters(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__ClearCounters *q = (const Fwd__ClearCounters *)msg;
	Fwd__ClearCountersAck ack = FWD__CLEAR_COUNTERS_ACK__INIT;
	int n = fwd_d_if_clear(d, q->name);

	if (n < 0) {
		ipc_reply_error(req, IPC_ERROR, "no interface %s", q->name);
		return;
	}
	ack.cleared = (uint32_t)n;
	lc_log_info("counters of %s cleared (a baseline: raw counters go on)",
	    q->name != NULL && q->name[0] != '\0' ? q->name :
						    "every interface");
	ipc_reply(req, IPC_OK, &ack.base);
}

static void
h_originate(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__Originate *q = (const Fwd__Originate *)msg;
	Fwd__OriginateAck ack = FWD__ORIGINATE_ACK__INIT;
	struct fwd_orig o = {0};
	struct fwd_orig_res r;
	struct lc_err err;

	o.dst = ntohl(q->dst);
	o.src = ntohl(q->src);
	o.ttl = q->ttl;
	o.proto = q->protocol > 255 ? 0 : (uint8_t)q->protocol;
	o.payload = q->payload.data;
	o.len = (unsigned)q->payload.len;
	o.ifname = q->ifname;
	if (q->payload.len > 0xffff || q->protocol == 0 || q->protocol > 255) {
		ipc_reply_error(req, IPC_BAD_REQUEST, "bad datagram");
		return;
	}
	if (fwd_d_originate(d, &o, &r, &err) != 0) {
		ipc_reply_err(req, IPC_ERROR, &err);
		return;
	}
	ack.src = htonl(r.src);
	ack.next_hop = htonl(r.next_hop);
	ack.ifname = r.ifname;
	ack.local = r.local;
	ack.queued = r.queued;
	ipc_reply(req, IPC_OK, &ack.base);
}

/* ---- FIB query ---- */

static Fwd__FibRoute *
enc_route(struct fwd_d *d, uint32_t pfx, unsigned len, unsigned nh)
{
	Fwd__FibRoute *r = ar_calloc(d, sizeof(*r));
	uint32_t gw[FWD_ADJ_GROUP_MAX], ifx[FWD_ADJ_GROUP_MAX];
	unsigned n = fwd_d_nh_describe(d, nh, gw, ifx, FWD_ADJ_GROUP_MAX);

	fwd__fib_route__init(r);
	r->prefix = htonl(pfx);
	r->len = len;
	r->kind = (Fwd__RouteKind)fwd_d_nh_kind(d, nh);
	r->n_nh_addr = r->n_nh_ifindex = n;
	r->nh_addr = ar_calloc(d, n * sizeof(uint32_t));
	r->nh_ifindex = ar_calloc(d, n * sizeof(uint32_t));
	for (unsigned i = 0; i < n; i++) {
		r->nh_addr[i] = htonl(gw[i]);
		r->nh_ifindex[i] = ifx[i];
	}
	return (r);
}

/* The FIB's routes as keys that sort in prefix order: address, then
 * length (198.18.0.0/15 before 198.18.0.0/24 before 198.18.1.0/24). */
struct fib_keys {
	uint64_t *k;
	size_t n, cap;
};

static int
fib_key(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	struct fib_keys *fk = arg;

	(void)nh;
	if (fk->n == fk->cap) {
		size_t nc = fk->cap ? fk->cap * 2 : 1024;
		uint64_t *v = realloc(fk->k, nc * sizeof(*v));

		if (v == NULL)
			return (-ENOMEM);
		fk->k = v;
		fk->cap = nc;
	}
	fk->k[fk->n++] = (uint64_t)pfx << 32 | len;
	return (0);
}

/*
 * One page of the FIB in prefix order (show fib): the walk is in hash
 * order, so it collects every route's key, picks the page's keys by linear
 * selection and sorts only those (lc_page_u64): O(n + limit log limit)
 * with 8 bytes per route, not a sort of a 1M-route table per query.
 * -ENOMEM.
 */
static int
fib_page(struct fwd_d *d, Fwd__FibList *l, uint32_t offset, uint32_t limit)
{
	struct fib_keys fk = {NULL, 0, 0};
	size_t lo, hi;
	unsigned nh;
	int rv;

	if ((rv = fwd_fib_walk(d->fib, fib_key, &fk)) != 0) {
		free(fk.k);
		return (rv);
	}
	lc_page_u64(fk.k, fk.n, offset, limit, &lo, &hi);
	l->more = hi < fk.n;
	for (size_t i = lo; i < hi; i++) {
		uint32_t pfx = (uint32_t)(fk.k[i] >> 32);
		unsigned len = (unsigned)(fk.k[i] & 0xff);

		if (fwd_fib_get(d->fib, pfx, len, &nh) == 0)
			l->routes[l->n_routes++] = enc_route(d, pfx, len, nh);
	}
	free(fk.k);
	return (0);
}

/* ---- the IPv6 FIB ---- */

static Fwd__FibRoute *
enc_route6(struct fwd_d *d, const uint8_t *pfx, unsigned len, unsigned nh)
{
	Fwd__FibRoute *r = ar_calloc(d, sizeof(*r));
	uint8_t gw6[FWD_ADJ_GROUP_MAX * 16];
	uint32_t ifx[FWD_ADJ_GROUP_MAX];
	unsigned n = fwd_d_nh_describe6(d, nh, gw6, ifx, FWD_ADJ_GROUP_MAX);

	fwd__fib_route__init(r);
	r->prefix6.data = ar_ok(lc_arena_memdup(d->ar, pfx, 16));
	r->prefix6.len = 16;
	r->len = len;
	r->kind = (Fwd__RouteKind)fwd_d_nh_kind(d, nh);
	r->n_nh_addr6 = r->n_nh_ifindex = n;
	r->nh_addr6 = ar_calloc(d, (n + 1) * sizeof(*r->nh_addr6));
	r->nh_ifindex = ar_calloc(d, (n + 1) * sizeof(uint32_t));
	for (unsigned i = 0; i < n; i++) {
		r->nh_addr6[i].data = ar_ok(
		    lc_arena_memdup(d->ar, gw6 + 16 * i, 16));
		r->nh_addr6[i].len = 16;
		r->nh_ifindex[i] = ifx[i];
	}
	return (r);
}

/* The FIB6's routes in prefix order (address, then length). */
struct fib6_key {
	uint8_t p[16];
	uint8_t len;
};

struct fib6_keys {
	struct fib6_key *k;
	size_t n, cap;
	unsigned local; /* the LOCAL adjacency: the router's own /128s */
};

static int
fib6_key_add(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg)
{
	struct fib6_keys *fk = arg;

	/* the router's own addresses are not routes (as IPv4's, pinned in
	 * its FIB, are not listed): a listing before and after DAD, or
	 * before and after a rib restart, is the same */
	if (nh == fk->local)
		return (0);
	if (fk->n == fk->cap) {
		size_t nc = fk->cap ? fk->cap * 2 : 1024;
		struct fib6_key *v = realloc(fk->k, nc * sizeof(*v));

		if (v == NULL)
			return (-ENOMEM);
		fk->k = v;
		fk->cap = nc;
	}
	memcpy(fk->k[fk->n].p, pfx, 16);
	fk->k[fk->n++].len = (uint8_t)len;
	return (0);
}

static int
fib6_key_cmp(const void *a, const void *b)
{
	const struct fib6_key *x = a, *y = b;
	int c = memcmp(x->p, y->p, 16);

	return (c != 0 ? c : (int)x->len - (int)y->len);
}

/* QUERY_FIB with ipv6: lookup6 (longest match), prefix6/len exact, or a
 * page (a sort of the whole table: IPv6 shows are of small tables; the
 * IPv4 side's selection is for 1M routes). */
static void
query_fib6(struct fwd_d *d, struct ipc_req *req, const Fwd__FibQuery *q)
{
	Fwd__FibList l = FWD__FIB_LIST__INIT;
	unsigned nh;

	l.total = (uint32_t)fwd_fib6_count(d->fib6);
	l.routes = ar_calloc(d, sizeof(*l.routes));
	if (q->use_lookup || q->exact) {
		const ProtobufCBinaryData *a = q->use_lookup ? &q->lookup6 :
							       &q->prefix6;
		uint8_t p[16];
		int len = q->use_lookup ? 128 : (int)q->len;

		if (a->len != 16 || q->len > 128) {
			ipc_reply_error(req, IPC_BAD_REQUEST,
			    "IPv6 FIB query: a 16-byte address and a length "
			    "up to 128");
			lc_arena_reset(d->ar);
			return;
		}
		/* the longest route holding it: exact gets from /128 down */
		for (; len >= 0; len--) {
			memcpy(p, a->data, 16);
			for (int i = len; i < 128; i++)
				p[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
			if (fwd_fib6_get(d->fib6, p, (unsigned)len, &nh) == 0) {
				l.routes[l.n_routes++] = enc_route6(d, p,
				    (unsigned)len, nh);
				break;
			}
			if (!q->use_lookup)
				break;
		}
	} else {
		uint32_t limit = q->limit ? q->limit : FIB_QUERY_LIMIT_DEFAULT;
		struct fib6_keys fk = {NULL, 0, 0, (unsigned)d->local_adj};

		if (limit > FIB_QUERY_LIMIT_MAX)
			limit = FIB_QUERY_LIMIT_MAX;
		if (fwd_fib6_walk(d->fib6, fib6_key_add, &fk) != 0) {
			free(fk.k);
			lc_arena_reset(d->ar);
			ipc_reply_error(req, IPC_ERROR,
			    "out of memory sorting the FIB");
			return;
		}
		if (fk.n > 1)
			qsort(fk.k, fk.n, sizeof(*fk.k), fib6_key_cmp);
		l.routes = ar_calloc(d, limit * sizeof(*l.routes));
		for (size_t i = q->offset; i < fk.n && l.n_routes < limit; i++)
			if (fwd_fib6_get(d->fib6, fk.k[i].p, fk.k[i].len,
				&nh) == 0)
				l.routes[l.n_routes++] = enc_route6(d,
				    fk.k[i].p, fk.k[i].len, nh);
		l.more = (size_t)q->offset + l.n_routes < fk.n;
		l.total = (uint32_t)fk.n;
		free(fk.k);
	}
	if (ipc_reply(req, IPC_OK, &l.base) == -EMSGSIZE)
		lc_log_notice("FIB query reply over the frame size: use a "
			      "smaller limit");
	lc_arena_reset(d->ar);
}

static void
h_query_fib(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__FibQuery *q = (const Fwd__FibQuery *)msg;
	Fwd__FibList l = FWD__FIB_LIST__INIT;
	unsigned nh;

	if (q->ipv6) {
		query_fib6(d, req, q);
		return;
	}
	l.total = (uint32_t)fwd_fib_count(d->fib);
	l.routes = ar_calloc(d, sizeof(*l.routes));
	if (q->use_lookup) {
		uint32_t a = ntohl(q->lookup);

		/* the longest route holding a: exact gets from /32 down */
		for (int len = 32; len >= 0; len--) {
			uint32_t p = len ? a & (0xffffffffu << (32 - len)) : 0;

			if (fwd_fib_get(d->fib, p, (unsigned)len, &nh) == 0) {
				l.routes[l.n_routes++] = enc_route(d, p,
				    (unsigned)len, nh);
				break;
			}
		}
	} else if (q->exact) {
		uint32_t p = ntohl(q->prefix);

		if (q->len > 32) {
			ipc_reply_error(req, IPC_BAD_REQUEST,
			    "prefix length %u", q->len);
			return;
		}
		if (fwd_fib_get(d->fib, p, q->len, &nh) == 0)
			l.routes[l.n_routes++] = enc_route(d, p, q->len, nh);
	} else {
		uint32_t limit = q->limit ? q->limit : FIB_QUERY_LIMIT_DEFAULT;

		if (limit > FIB_QUERY_LIMIT_MAX)
			limit = FIB_QUERY_LIMIT_MAX;
		l.routes = ar_calloc(d, limit * sizeof(*l.routes));
		if (fib_page(d, &l, q->offset, limit) != 0) {
			lc_arena_reset(d->ar);
			ipc_reply_error(req, IPC_ERROR,
			    "out of memory sorting the FIB");
			return;
		}
	}
	if (ipc_reply(req, IPC_OK, &l.base) == -EMSGSIZE)
		lc_log_notice("FIB query reply over the frame size: use a "
			      "smaller limit");
	lc_arena_reset(d->ar);
}

/* ---- neighbours, drops ---- */

struct neigh_walk {
	struct fwd_d *d;
	Fwd__NeighbourList *l;
	size_t cap;
	uint32_t ifindex;
	uint64_t now;
};

static int
neigh_collect(const struct fwd_neigh_info *ni, void *arg)
{
	struct neigh_walk *w = arg;
	Fwd__Neighbour *n;
	uint32_t ifx = ni->port < FWD_D_IF_MAX && w->d->ifs[ni->port].used ?
	    w->d->ifs[ni->port].ifindex :
	    0;
	uint64_t age;

	if (w->ifindex != 0 && ifx != w->ifindex)
		return (0);
	if (w->l->n_neighbours == w->cap) {
		size_t nc = w->cap * 2;
		Fwd__Neighbour **nv = ar_calloc(w->d, nc * sizeof(*nv));

		memcpy(nv, w->l->neighbours, w->cap * sizeof(*nv));
		w->l->neighbours = nv;
		w->cap = nc;
	}
	n = ar_calloc(w->d, sizeof(*n));
	fwd__neighbour__init(n);
	n->addr = htonl(ni->ip);
	n->mac.data = ar_ok(lc_arena_memdup(w->d->ar, ni->mac, 6));
	n->mac.len = 6;
	n->ifindex = ifx;
	n->ifname = ifx != 0 ? w->d->ifs[ni->port].name : (char *)"";
	switch (ni->state) {
	case FWD_NEIGH_INCOMPLETE:
		n->state = FWD__NEIGHBOUR_STATE__INCOMPLETE;
		n->mac.len = 0;
		break;
	case FWD_NEIGH_PROBE:
		n->state = FWD__NEIGHBOUR_STATE__STALE;
		break;
	case FWD_NEIGH_STATIC:
		n->state = FWD__NEIGHBOUR_STATE__STATIC;
		break;
	default: /* REACHABLE */
		n->state = FWD__NEIGHBOUR_STATE__REACHABLE;
		break;
	}
	/* the age counts up from the last confirmation; the time to the
	 * next probe (what age_ms once was, counting down) has its field */
	age = ni->state != FWD_NEIGH_STATIC && w->now > ni->confirmed_ms ?
	    w->now - ni->confirmed_ms :
	    0; /* config's entries do not age */
	n->age_ms = age < UINT32_MAX ? (uint32_t)age : UINT32_MAX;
	n->next_probe_ms = ni->state == FWD_NEIGH_REACHABLE &&
		ni->expires_ms > w->now ?
	    (uint32_t)(ni->expires_ms - w->now) :
	    0;
	n->queued = ni->queued;
	w->l->neighbours[w->l->n_neighbours++] = n;
	return (0);
}

static void
h_query_neighbours(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	const Fwd__NeighbourQuery *q = (const Fwd__NeighbourQuery *)msg;
	Fwd__NeighbourList l = FWD__NEIGHBOUR_LIST__INIT;
	struct neigh_walk w = {d, &l, 64, q->ifindex, fwd_d_now_ms(d)};

	l.neighbours = ar_calloc(d, w.cap * sizeof(*l.neighbours));
	/* family 0 (as before) and 4: IPv4; 6: IPv6; 46: both */
	if (q->family != 6)
		(void)fwd_arp_walk(d->arp, neigh_collect, &w);
	if (q->family == 6 || q->family == 46)
		fwd_d_nd_neigh_list(d, q->ifindex, &l, &w.cap);
	ipc_reply(req, IPC_OK, &l.base);
	lc_arena_reset(d->ar);
}

static void
drop_add(struct fwd_d *d, Fwd__DropList *l, const char *reason, uint64_t v)
{
	Fwd__DropCounter *c = ar_calloc(d, sizeof(*c));

	fwd__drop_counter__init(c);
	c->reason = (char *)reason;
	c->count = v;
	l->drops[l->n_drops++] = c;
}

static void
h_query_drops(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct fwd_d *d = arg;
	Fwd__DropList l = FWD__DROP_LIST__INIT;
	struct fwd_dp_stats s;
	uint64_t full;
	const struct fwd_arp_stats *as = fwd_arp_stats(d->arp);

	(void)msg;
	fwd_d_stats(d, &s, &full);
	l.drops = ar_calloc(d,
	    (FWD_R__COUNT + 13 + FWD_ND_BAD_MAX + 1) * sizeof(*l.drops));
	for (unsigned r = 1; r < FWD_R__COUNT; r++)
		drop_add(d, &l, fwd_reason_str((enum fwd_reason)r),
		    s.reason[r]);
	drop_add(d, &l, "punt_refused", s.punt_refused);
	drop_add(d, &l, "arp_queue_drops", as->queue_drops);
	fwd_d_nd_drops(d, &l);
	drop_add(d, &l, "icmp_rate_limited", d->icmp.st.rate_limited);
	drop_add(d, &l, "slow_out_overflow", d->out->overflow);
	/* what the devices refused, over every interface (fwd_port_stats) */
	{
		struct fwd_port_stats ps, sum = {0};

		for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
			if (d->ifs[i].used && d->ifs[i].attached) {
				fwd_d_if_counters(d, &d->ifs[i], &ps);
				sum.tx_mtu += ps.tx_mtu;
				sum.tx_refused += ps.tx_refused;
				sum.tx_errors += ps.tx_errors;
				sum.rx_oversize += ps.rx_oversize;
			}
		drop_add(d, &l, "tx_mtu", sum.tx_mtu);
		drop_add(d, &l, "tx_refused", sum.tx_refused);
		drop_add(d, &l, "tx_errors", sum.tx_errors);
		drop_add(d, &l, "rx_oversize", sum.rx_oversize);
	}
	ipc_reply(req, IPC_OK, &l.base);
	lc_arena_reset(d->ar);
}

static void
on_shutdown(struct ipc_server *srv, const char *reason, void *arg)
{
	struct fwd_d *d = arg;

	(void)srv;
	lc_log_notice("shutdown requested: %s", reason ? reason : "");
	ev_break(d->loop, EVBREAK_ALL);
}

int
fwd_ctl_init(struct fwd_d *d)
{
	struct ipc_opts io = {0};
	struct ipc_server_cbs cbs = {.on_shutdown = on_shutdown, .arg = d};

	io.rundir = d->conf.rundir;
	io.component = "fwd";
	io.generation = d->conf.generation;
	if ((d->srv = ipc_server_new(d->loop, &ipc_svc_fwd, &io)) == NULL)
		return (-errno);
	ipc_server_set_cbs(d->srv, &cbs);
	ipc_server_handle(d->srv, FWD__METHOD__IF_CONFIG, h_if_config, d);
	ipc_server_handle(d->srv, FWD__METHOD__SET_CONFIG, h_set_config, d);
	ipc_server_handle(d->srv, FWD__METHOD__FIB_BATCH, h_fib_batch, d);
	ipc_server_handle(d->srv, FWD__METHOD__RESYNC_BEGIN, h_resync_begin, d);
	ipc_server_handle(d->srv, FWD__METHOD__RESYNC_END, h_resync_end, d);
	ipc_server_handle(d->srv, FWD__METHOD__QUERY_INTERFACES,
	    h_query_interfaces, d);
	ipc_server_handle(d->srv, FWD__METHOD__QUERY_FIB, h_query_fib, d);
	ipc_server_handle(d->srv, FWD__METHOD__QUERY_NEIGHBOURS,
	    h_query_neighbours, d);
	ipc_server_handle(d->srv, FWD__METHOD__QUERY_DROPS, h_query_drops, d);
	ipc_server_handle(d->srv, FWD__METHOD__SUBSCRIBE, h_subscribe, d);
	ipc_server_handle(d->srv, FWD__METHOD__CLEAR_COUNTERS, h_clear_counters,
	    d);
	ipc_server_handle(d->srv, FWD__METHOD__ORIGINATE, h_originate, d);
	ipc_server_set_state(d->srv, "running");
	return (0);
}

void
fwd_ctl_fini(struct fwd_d *d)
{
	if (d->srv != NULL)
		ipc_server_free(d->srv);
	d->srv = NULL;
}
