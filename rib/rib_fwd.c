/* rib/rib_fwd.c: tern-rib's side of tern-fwd: interfaces and the connected routes they make, FIB download through the route codec, and the resync of each fwd session. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"

#include "rib_d_int.h"

static void rd_fwd_session(struct rib_d *);

/* ---- interfaces and connected routes -------------------------------------- */

struct rd_if *
rib_d_if_by_index(struct rib_d *d, uint32_t ifindex)
{
	for (size_t i = 0; i < d->nifs; i++)
		if (d->ifs[i].ifindex == ifindex)
			return (&d->ifs[i]);
	return (NULL);
}

static struct rd_if *
if_by_name(struct rib_d *d, const char *name)
{
	for (size_t i = 0; i < d->nifs; i++)
		if (strcmp(d->ifs[i].name, name) == 0)
			return (&d->ifs[i]);
	return (NULL);
}

uint32_t
rib_d_if_resolve(struct rib_d *d, const char *name)
{
	struct rd_if *f = if_by_name(d, name);

	return (f != NULL ? f->ifindex : RD_IF_UNKNOWN);
}

/* Prefix order: IPv4 before IPv6, then address and length. */
static int
conn_pfx_cmp(const struct rd_conn *x, const struct rd_conn *y)
{
	uint32_t xa = ntohl(x->pfx.addr.s_addr), ya = ntohl(y->pfx.addr.s_addr);
	int c;

	if (x->family != y->family)
		return (x->family < y->family ? -1 : 1);
	if (x->family == AF_INET6) {
		if ((c = memcmp(x->pfx6.addr.b, y->pfx6.addr.b, 16)) != 0)
			return (c < 0 ? -1 : 1);
		if (x->pfx6.len != y->pfx6.len)
			return (x->pfx6.len < y->pfx6.len ? -1 : 1);
		return (0);
	}
	if (xa != ya)
		return (xa < ya ? -1 : 1);
	if (x->pfx.len != y->pfx.len)
		return (x->pfx.len < y->pfx.len ? -1 : 1);
	return (0);
}

static int
conn_cmp(const void *a, const void *b)
{
	const struct rd_conn *x = a, *y = b;
	int c = conn_pfx_cmp(x, y);

	if (c != 0)
		return (c);
	if (x->ifindex != y->ifindex)
		return (x->ifindex < y->ifindex ? -1 : 1);
	return (0);
}

static bool
conn_same_pfx(const struct rd_conn *a, const struct rd_conn *b)
{
	return (conn_pfx_cmp(a, b) == 0);
}

/* Recomputes the connected routes from the interfaces and applies the
 * difference as one batch of source connected. */
static void
conn_update(struct rib_d *d)
{
	struct rd_conn *nw = NULL;
	size_t n = 0, cap = 0, i = 0, j = 0, nu = 0, nh = 0;
	struct lc_err err;

	for (size_t k = 0; k < d->nifs; k++)
		for (unsigned a = 0; a < d->ifs[k].naddr; a++) {
			if (lc_array_grow((void **)&nw, &cap, n + 1,
				sizeof(*nw)) != 0)
				goto nomem;
			memset(&nw[n], 0, sizeof(nw[n]));
			nw[n].pfx = d->ifs[k].addr[a];
			nw[n++].ifindex = d->ifs[k].ifindex;
		}
	for (size_t k = 0; k < d->nifs; k++)
		for (unsigned a = 0; a < d->ifs[k].naddr6; a++) {
			if (lc_array_grow((void **)&nw, &cap, n + 1,
				sizeof(*nw)) != 0)
				goto nomem;
			memset(&nw[n], 0, sizeof(nw[n]));
			nw[n].family = AF_INET6;
			nw[n].pfx6 = d->ifs[k].addr6[a];
			nw[n++].ifindex = d->ifs[k].ifindex;
		}
	if (n > 1)
		qsort(nw, n, sizeof(*nw), conn_cmp);
	if (n > 0) { /* dedup (the same prefix twice on one interface) */
		size_t w = 1;

		for (size_t k = 1; k < n; k++)
			if (conn_cmp(&nw[k], &nw[w - 1]) != 0)
				nw[w++] = nw[k];
		n = w;
	}
	if (lc_array_grow((void **)&d->upd, &d->capupd, n + d->nconn + 1,
		sizeof(*d->upd)) != 0 ||
	    lc_array_grow((void **)&d->nh, &d->capnh, n + 1, sizeof(*d->nh)) !=
		0)
		goto nomem;
	while (i < n || j < d->nconn) {
		struct rd_conn *p = i < n ? &nw[i] : &d->conn[j];
		size_t i0 = i, j0 = j;
		int c;

		if (i < n && j < d->nconn) {
			c = conn_pfx_cmp(&nw[i], &d->conn[j]);
			p = c <= 0 ? &nw[i] : &d->conn[j];
		}
		while (i < n && conn_same_pfx(&nw[i], p))
			i++;
		while (j < d->nconn && conn_same_pfx(&d->conn[j], p))
			j++;
		if (i - i0 == j - j0) {
			bool same = true;

			for (size_t k = 0; k < i - i0; k++)
				if (nw[i0 + k].ifindex !=
				    d->conn[j0 + k].ifindex)
					same = false;
			if (same)
				continue;
		}
		memset(&d->upd[nu], 0, sizeof(d->upd[nu]));
		d->upd[nu].pfx = p->pfx;
		d->upd[nu].family = p->family;
		d->upd[nu].pfx6 = p->pfx6;
		d->upd[nu].distance = -1;
		if (i == i0) {
			d->upd[nu].op = RIB_OP_DELETE;
		} else {
			d->upd[nu].op = RIB_OP_ADD;
			d->upd[nu].type = RIB_RT_UNICAST;
			d->upd[nu].nh = d->nh + nh;
			for (size_t k = i0; k < i && k - i0 < RIB_NH_MAX; k++) {
				memset(&d->nh[nh], 0, sizeof(d->nh[nh]));
				d->nh[nh].family = p->family;
				d->nh[nh++].ifindex = nw[k].ifindex;
				d->upd[nu].n_nh++;
			}
		}
		nu++;
	}
	if (nu > 0 &&
	    rib_route_batch(d->rib, RIB_SRC_CONNECTED, d->upd, nu, &err) != 0) {
		lc_log_warnx("connected routes refused: %s", err.msg);
		free(nw);
		return;
	}
	free(d->conn);
	d->conn = nw;
	d->nconn = n;
	return;
nomem:
	free(nw);
	lc_log_warnx("out of memory updating connected routes");
}
/* Re-resolves static routes given by interface name after a name change. */
static void
named_update(struct rib_d *d)
{
	struct lc_err err;

	for (size_t i = 0; i < d->nnamed; i++) {
		struct rd_named *n = d->named[i];
		struct rib_nexthop nh[RIB_NH_MAX];
		struct rib_route_upd u;
		bool changed = false;

		for (unsigned k = 0; k < n->n; k++) {
			nh[k] = n->nh[k];
			nh[k].ifindex = n->ifindex[k];
			if (n->name[k][0] != '\0') {
				nh[k].ifindex = rib_d_if_resolve(d, n->name[k]);
				changed |= nh[k].ifindex != n->ifindex[k];
			}
		}
		if (!changed)
			continue;
		memset(&u, 0, sizeof(u));
		u.pfx = n->pfx;
		u.family = n->family;
		u.pfx6 = n->pfx6;
		u.op = RIB_OP_REPLACE;
		u.type = n->type;
		u.distance = n->distance;
		u.metric = n->metric;
		u.n_nh = n->n;
		u.nh = nh;
		if (rib_route_batch(d->rib, RIB_SRC_STATIC, &u, 1, &err) != 0) {
			lc_log_info("static %s by interface name: %s",
			    n->family == AF_INET6 ? lc_prefix6_ntoa(&n->pfx6) :
						    lc_prefix4_ntoa(&n->pfx),
			    err.msg);
			continue;
		}
		for (unsigned k = 0; k < n->n; k++)
			n->ifindex[k] = nh[k].ifindex;
	}
}

static void
if_apply(struct rib_d *d, const Fwd__Interface *fi, bool deleted)
{
	struct rd_if *f;

	if (fi == NULL || fi->ifindex == 0 || fi->ifindex >= RD_IF_UNKNOWN)
		return;
	f = rib_d_if_by_index(d, fi->ifindex);
	if (deleted) {
		if (f != NULL) {
			(void)rib_if_set(d->rib, f->ifindex, false);
			*f = d->ifs[--d->nifs];
		}
		return;
	}
	if (f == NULL) {
		if (lc_array_grow((void **)&d->ifs, &d->capifs, d->nifs + 1,
			sizeof(*d->ifs)) != 0) {
			lc_log_warnx("out of memory for interface %u",
			    fi->ifindex);
			return;
		}
		f = &d->ifs[d->nifs++];
		memset(f, 0, sizeof(*f));
		f->ifindex = fi->ifindex;
	}
	snprintf(f->name, sizeof(f->name), "%s", fi->name ? fi->name : "");
	f->seen = true;
	f->up = fi->enabled && fi->link != FWD__LINK_STATE__LINK_DOWN;
	f->naddr = 0;
	for (size_t a = 0; a < fi->n_addrs && f->naddr < RD_IF_ADDRS; a++) {
		const Fwd__IfAddr *ia = fi->addrs[a];

		if (ia == NULL || ia->len == 0 || ia->len > 32)
			continue;
		f->addr[f->naddr].len = (uint8_t)ia->len;
		f->addr[f->naddr].addr.s_addr = ia->addr &
		    htonl(lc_prefix4_mask(ia->len));
		f->naddr++;
	}
	f->naddr6 = 0;
	for (size_t a = 0; a < fi->n_addrs6 && f->naddr6 < RD_IF_ADDRS; a++) {
		const Fwd__IfAddr6 *ia = fi->addrs6[a];
		struct lc_prefix6 *p = &f->addr6[f->naddr6];

		if (ia == NULL || ia->addr.len != 16 || ia->len == 0 ||
		    ia->len > 128)
			continue;
		memcpy(p->addr.b, ia->addr.data, 16);
		p->len = (uint8_t)ia->len;
		/* the subnet: host bits cleared */
		for (unsigned b = ia->len; b < 128; b++)
			p->addr.b[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
		if (lc_ip6_is_linklocal(&p->addr))
			continue; /* fe80::/64 is on every link */
		f->naddr6++;
	}
	if (rib_if_set(d->rib, f->ifindex, f->up) != 0)
		lc_log_warnx("interface %u: cannot record its state",
		    f->ifindex);
}

static void
ifs_done(struct rib_d *d)
{
	conn_update(d);
	named_update(d);
}

static void
subscribe_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct rib_d *d = arg;
	const Fwd__InterfaceList *l = (const Fwd__InterfaceList *)msg;

	if (status == IPC_CANCELLED || d->fs == RIB_D_FWD_DOWN)
		return;
	if (status == IPC_PEER_RESTARTED)
		return; /* the next connection subscribes again */
	if (status != IPC_OK) {
		lc_log_warnx("fwd SUBSCRIBE: %s %s (no interface state)",
		    ipc_status_str(status), err->msg);
	} else if (l != NULL) {
		/* the full list: what is not in it is gone */
		for (size_t i = 0; i < d->nifs; i++)
			d->ifs[i].seen = false;
		for (size_t i = 0; i < l->n_interfaces; i++)
			if_apply(d, l->interfaces[i], false);
		for (size_t i = 0; i < d->nifs;) {
			if (!d->ifs[i].seen) {
				(void)rib_if_set(d->rib, d->ifs[i].ifindex,
				    false);
				d->ifs[i] = d->ifs[--d->nifs];
			} else {
				i++;
			}
		}
		ifs_done(d);
		lc_log_info("fwd: %zu interfaces, %zu connected prefixes",
		    d->nifs, d->nconn);
	}
	d->ifs_synced = true;
}

static void
fwd_subscribe(struct rib_d *d)
{
	Fwd__Subscribe s = FWD__SUBSCRIBE__INIT;
	int rv;

	s.interfaces = true;
	if ((rv = ipc_call(d->fwd, FWD__METHOD__SUBSCRIBE, &s.base,
		 subscribe_cb, d, 0)) != 0) {
		lc_log_warnx("fwd SUBSCRIBE: %s", strerror(-rv));
		d->ifs_synced = true;
	}
}

static void
on_event(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    void *arg)
{
	struct rib_d *d = arg;
	const Fwd__InterfaceEvent *ev = (const Fwd__InterfaceEvent *)msg;

	(void)cl;
	if (method != FWD__METHOD__EVENT_INTERFACE || ev == NULL)
		return;
	if_apply(d, ev->iface, ev->deleted);
	ifs_done(d);
}

static void
on_resync(struct ipc_client *cl, uint64_t missed, void *arg)
{
	struct rib_d *d = arg;

	(void)cl;
	lc_log_warnx("missed %llu fwd events: asking for all interfaces",
	    (unsigned long long)missed);
	fwd_subscribe(d);
}

/* ---- FIB download ---------------------------------------------------------- */

static void
fib_ack_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct rd_call *c = arg;
	struct rib_d *d = c->d;
	const Fwd__FibAck *a = (const Fwd__FibAck *)msg;
	uint64_t seq = c->seq;

	c->next = d->calls;
	d->calls = c;
	if (status == IPC_CANCELLED || status == IPC_PEER_RESTARTED)
		return; /* a new connection pushes everything again */
	if (status != IPC_OK || a == NULL) {
		lc_log_warnx("fwd FIB_BATCH: %s %s: pushing the FIB again",
		    ipc_status_str(status), err->msg);
		d->fwd_redo = true;
		return;
	}
	if (a->failed > 0)
		lc_log_warnx("fwd could not apply %u routes of batch %llu",
		    a->failed, (unsigned long long)seq);
	if (a->seq != seq)
		lc_log_debug("fwd acked batch %llu as %llu",
		    (unsigned long long)seq, (unsigned long long)a->seq);
	(void)rib_fib_ack(d->rib, seq);
}

/*
 * The FIB deltas as route records (d->out) for the codec. The deltas of one
 * FIB group share its hop array: found by pointer, it becomes one run of
 * the next-hop table, so a packed FibBatch carries it once.
 */
static int
fib_fill(struct rib_d *d, const struct rib_fib_delta *dl, unsigned n)
{
	struct ipc_route_set *s = &d->out;
	size_t nt = 0;

	for (unsigned i = 0; i < n; i++)
		nt += dl[i].n_nh;
	ipc_route_set_clear(s);
	if (ipc_route_set_reserve(s, n, nt) != 0 ||
	    (d->fbslot == NULL &&
		(d->fbslot = calloc(RD_FB_SLOTS, sizeof(*d->fbslot))) == NULL))
		return (-ENOMEM);
	d->fbgen++;
	for (unsigned i = 0; i < n; i++) {
		const struct rib_fib_delta *e = &dl[i];
		struct ipc_route *r = &s->rt[s->n++];
		uintptr_t h = ((uintptr_t)e->nh >> 3) * 0x9e3779b1u;
		struct rd_fbslot *sl = &d->fbslot[(h >> 7) & (RD_FB_SLOTS - 1)];

		memset(r, 0, sizeof(*r));
		r->pfx.v4 = e->pfx.addr;
		r->len = e->pfx.len;
		r->family = AF_INET;
		if (e->family == AF_INET6) {
			r->pfx.v6 = e->pfx6.addr;
			r->len = e->pfx6.len;
			r->family = AF_INET6;
		}
		r->op = e->op == RIB_FIB_DELETE ? IPC_ROUTE_DEL : IPC_ROUTE_ADD;
		r->kind = e->type;
		r->n_nh = e->n_nh;
		if (e->n_nh == 0)
			continue;
		if (sl->gen == d->fbgen && sl->nh == e->nh &&
		    sl->n == e->n_nh) {
			r->nh = sl->first;
			continue;
		}
		r->nh = (uint32_t)s->nnh;
		for (unsigned k = 0; k < e->n_nh; k++) {
			struct ipc_route_nh *x = &s->nh[s->nnh++];

			memset(x, 0, sizeof(*x));
			x->addr.v4 = e->nh[k].addr;
			x->ifindex = e->nh[k].ifindex;
			x->family = AF_INET;
			if (e->nh[k].family == AF_INET6) {
				x->addr.v6 = e->nh[k].addr6;
				x->family = AF_INET6;
			}
		}
		sl->nh = e->nh;
		sl->n = e->n_nh;
		sl->first = r->nh;
		sl->gen = d->fbgen;
	}
	return (0);
}

/* The rib core's FIB callback: encodes one FibBatch (packed when fwd said
 * packed_ok) and sends it. */
static int
fib_send(void *arg, uint64_t seq, const struct rib_fib_delta *dl, unsigned n)
{
	struct rib_d *d = arg;
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	struct rd_call *c;
	int rv;

	if (fib_fill(d, dl, n) != 0 ||
	    ipc_route_fib_encode(&d->enc, &b, &d->out, d->fwd_packed) != 0)
		return (-ENOMEM);
	b.seq = seq;
	if ((c = d->calls) != NULL)
		d->calls = c->next;
	else if ((c = malloc(sizeof(*c))) == NULL)
		return (-ENOMEM);
	c->d = d;
	c->seq = seq;
	rv = ipc_call(d->fwd, FWD__METHOD__FIB_BATCH, &b.base, fib_ack_cb, c,
	    RIB_D_FIB_TIMEOUT_MS);
	if (rv != 0) {
		c->next = d->calls;
		d->calls = c;
	}
	if (rv == -ENOBUFS) {
		d->fwd_blocked = true;
		return (-EAGAIN);
	}
	if (rv != 0)
		lc_log_warnx("fwd FIB_BATCH %llu: %s", (unsigned long long)seq,
		    strerror(-rv));
	return (rv);
}

static void
resync_end_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct rib_d *d = arg;
	const Fwd__FibAck *a = (const Fwd__FibAck *)msg;

	if (status == IPC_CANCELLED || status == IPC_PEER_RESTARTED ||
	    d->fs != RIB_D_FWD_END)
		return;
	if (status == IPC_OK || status == IPC_UNKNOWN_METHOD) {
		d->fs = RIB_D_FWD_UP;
		rib_d_set_state(d);
		lc_log_notice("fwd in sync: %u stale routes swept by fwd",
		    a != NULL ? a->swept : 0);
	} else {
		lc_log_warnx("fwd RESYNC_END: %s %s", ipc_status_str(status),
		    err->msg);
		d->fwd_redo = true;
	}
}

static void
resync_begin_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct rib_d *d = arg;

	if (status == IPC_CANCELLED || status == IPC_PEER_RESTARTED ||
	    d->fs != RIB_D_FWD_SYNC)
		return;
	if (status != IPC_OK && status != IPC_UNKNOWN_METHOD)
		lc_log_warnx("fwd RESYNC_BEGIN: %s %s", ipc_status_str(status),
		    err->msg);
	d->fwd_packed = status == IPC_OK && msg != NULL &&
	    ((const Fwd__FibAck *)msg)->packed_ok;
	/* IPv6 FIB entries only to a fwd that says it applies them: one that
	 * does not would fail each (and rib would count them as held) */
	rib_fib_set_v6(d->rib,
	    status == IPC_OK && msg != NULL &&
		((const Fwd__FibAck *)msg)->ipv6_ok);
	d->begin_done = true;
}

/* A new fwd session: mark fwd's FIB stale, learn interfaces; the hook pushes
 * when ready. */
static void
rd_fwd_session(struct rib_d *d)
{
	Fwd__Resync rs = FWD__RESYNC__INIT;
	int rv;

	d->session++;
	d->fs = RIB_D_FWD_SYNC;
	d->fwd_redo = false;
	d->fwd_blocked = false;
	d->begin_done = false;
	d->fwd_packed = false; /* until this fwd's RESYNC_BEGIN ack says so */
	rs.seq = d->session;
	if ((rv = ipc_call(d->fwd, FWD__METHOD__RESYNC_BEGIN, &rs.base,
		 resync_begin_cb, d, 0)) != 0) {
		lc_log_warnx("fwd RESYNC_BEGIN: %s", strerror(-rv));
		d->begin_done = true;
	}
}

static void
on_connect(struct ipc_client *cl, uint64_t gen, void *arg)
{
	struct rib_d *d = arg;

	(void)cl;
	lc_log_notice("fwd connected (generation %llu)",
	    (unsigned long long)gen);
	d->ifs_synced = false;
	rd_fwd_session(d);
	fwd_subscribe(d);
}

static void
on_peer_restart(struct ipc_client *cl, uint64_t old, uint64_t gen, void *arg)
{
	(void)cl;
	(void)arg;
	lc_log_notice("fwd restarted (generation %llu -> %llu): full FIB push",
	    (unsigned long long)old, (unsigned long long)gen);
}

static void
on_writable(struct ipc_client *cl, void *arg)
{
	struct rib_d *d = arg;

	(void)cl;
	d->fwd_blocked = false;
}

/* Sends what the FIB queue holds to fwd, up to the window. */
void
rib_d_fib_push(struct rib_d *d)
{
	long rv;

	if (d->fs >= RIB_D_FWD_PUSH && !d->fwd_blocked) {
		rv = rib_fib_flush(d->rib);
		if (rv < 0 && rv != -EAGAIN)
			lc_log_warnx("FIB flush: %s", strerror((int)-rv));
	}
}

void
rib_d_fwd_turn(struct rib_d *d)
{
	struct rib_fib_stats st;
	long rv;

	if (d->fs != RIB_D_FWD_DOWN && !ipc_client_connected(d->fwd)) {
		lc_log_notice("fwd connection lost");
		d->fs = RIB_D_FWD_DOWN;
	}
	if (d->fwd_redo && d->fs != RIB_D_FWD_DOWN)
		rd_fwd_session(d);
	if (d->fs == RIB_D_FWD_SYNC && d->begin_done && d->ifs_synced &&
	    (d->static_synced || d->hold_over)) {
		rv = rib_fib_repush(d->rib);
		lc_log_notice("pushing the FIB to fwd: %ld prefixes", rv);
		d->fs = RIB_D_FWD_PUSH;
	}
	rib_d_fib_push(d);
	if (d->fs == RIB_D_FWD_PUSH) {
		rib_fib_stats(d->rib, &st);
		if (st.queued == 0 && st.inflight == 0) {
			Fwd__Resync rs = FWD__RESYNC__INIT;

			rs.seq = d->session;
			d->fs = RIB_D_FWD_END;
			if (ipc_call(d->fwd, FWD__METHOD__RESYNC_END, &rs.base,
				resync_end_cb, d, 0) != 0)
				d->fwd_redo = true;
		}
	}
	rib_d_set_state(d);
	if (d->fs != RIB_D_FWD_DOWN)
		(void)ipc_client_flush(d->fwd);
}

/* ---- set up ---------------------------------------------------------------- */

int
rib_d_fwd_init(struct rib_d *d, const struct ipc_opts *io)
{
	struct ipc_client_cbs ccbs = {0};

	ipc_route_set_init(&d->out);
	ipc_route_enc_init(&d->enc);
	rib_fib_set_cb(d->rib, fib_send, d);
	if ((d->fwd = ipc_client_new(d->loop, &ipc_svc_fwd, io, false)) == NULL)
		return (-errno);
	ccbs.on_connect = on_connect;
	ccbs.on_peer_restart = on_peer_restart;
	ccbs.on_event = on_event;
	ccbs.on_resync = on_resync;
	ccbs.on_writable = on_writable;
	ccbs.arg = d;
	ipc_client_set_cbs(d->fwd, &ccbs);
	return (0);
}

void
rib_d_fwd_fini(struct rib_d *d)
{
	d->fs = RIB_D_FWD_DOWN;
	ipc_client_free(d->fwd);
	d->fwd = NULL;
	free(d->ifs);
	free(d->conn);
	free(d->fbslot);
	ipc_route_set_fini(&d->out);
	ipc_route_enc_fini(&d->enc);
	while (d->calls != NULL) {
		struct rd_call *c = d->calls;

		d->calls = c->next;
		free(c);
	}
}
