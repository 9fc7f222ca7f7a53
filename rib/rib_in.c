/* rib/rib_in.c: routes into tern-rib: rib.sock's handlers (route batches through the route codec, resync, queries, settings), sources and their grace timers, static routes given by interface name. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_page.h"
#include "libcommon/lc_time.h"

#include "rib_d_int.h"
#include "rib_int.h"

#define RD_NOINDEX    0xffffffffu /* RouteError.index of a whole batch */
#define RD_PUSH_EARLY 1024	  /* a batch this big is pushed at once */
#define RD_TXN_IDLE_S 60.0	  /* a transaction without a part: dropped */

/* the codec's values are the core's */
_Static_assert((int)IPC_ROUTE_ADD == (int)RIB_OP_ADD &&
	(int)IPC_ROUTE_REPLACE == (int)RIB_OP_REPLACE &&
	(int)IPC_ROUTE_DEL == (int)RIB_OP_DELETE,
    "route ops");
_Static_assert((int)IPC_ROUTE_UNICAST == (int)RIB_RT_UNICAST &&
	(int)IPC_ROUTE_BLACKHOLE == (int)RIB_RT_BLACKHOLE &&
	(int)IPC_ROUTE_REJECT == (int)RIB_RT_REJECT,
    "route types");
_Static_assert(IPC_ROUTE_NH_MAX == RIB_NH_MAX, "next hops per route");

/* ---- sources ------------------------------------------------------------- */

static void
grace_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rib_d *d = w->data;
	unsigned id;
	int n;

	(void)loop;
	(void)revents;
	for (id = 0; id < RIB_SOURCE_MAX; id++)
		if (&d->src[id].grace == w)
			break;
	if (id == RIB_SOURCE_MAX)
		return;
	d->src[id].grace_on = false;
	n = rib_source_sweep(d->rib, id);
	lc_log_notice("source %u: grace over, %d stale routes swept", id, n);
}

static void
grace_stop(struct rib_d *d, unsigned id)
{
	if (d->src[id].grace_on) {
		ev_timer_stop(d->loop, &d->src[id].grace);
		d->src[id].grace_on = false;
	}
}

/*
 * The source id of a batch or resync: STATIC and names of existing sources
 * are found, KERNEL and PROTOCOL names register on first use (*created).
 * -EPERM for CONNECTED (those routes come from fwd), -ENOENT unknown,
 * -EINVAL bad name or distance. Changes nothing else (see src_update).
 */
static int
src_resolve(struct rib_d *d, int source, const char *name, uint32_t distance,
    uint32_t grace_ms, bool *created, struct lc_err *err)
{
	int id, rv;

	*created = false;
	if (name == NULL)
		name = "";
	if (distance > 255) {
		lc_err_set(err, -EINVAL, -1, "distance %u is over 255",
		    distance);
		return (-EINVAL);
	}
	switch (source) {
	case RIB__SOURCE__CONNECTED:
		lc_err_set(err, -EPERM, -1,
		    "connected routes come from tern-fwd's "
		    "interface state, not from a client");
		return (-EPERM);
	case RIB__SOURCE__STATIC:
		id = RIB_SRC_STATIC;
		break;
	case RIB__SOURCE__KERNEL:
	case RIB__SOURCE__PROTOCOL:
		if (name[0] == '\0') {
			if (source == RIB__SOURCE__PROTOCOL) {
				lc_err_set(err, -EINVAL, -1,
				    "a protocol source "
				    "needs a source_name");
				return (-EINVAL);
			}
			name = "kernel";
		}
		id = rib_source_find(d->rib, name);
		if (id == RIB_SRC_CONNECTED || id == RIB_SRC_STATIC) {
			lc_err_set(err, -EINVAL, -1,
			    "source name '%s' is reserved", name);
			return (-EINVAL);
		}
		if (id < 0) {
			struct rib_source_conf sc = {name,
			    distance ? (int)distance : -1,
			    grace_ms ? grace_ms : d->grace_ms};
			unsigned nid;

			if ((rv = rib_source_add(d->rib, &sc, &nid, err)) != 0)
				return (rv);
			*created = true;
			d->src[nid].used = true;
			return ((int)nid);
		}
		break;
	case RIB__SOURCE__SOURCE_NONE:
		id = name[0] ? rib_source_find(d->rib, name) : -ENOENT;
		if (id == RIB_SRC_CONNECTED)
			return (src_resolve(d, RIB__SOURCE__CONNECTED, name, 0,
			    0, created, err));
		if (id < 0) {
			lc_err_set(err, -ENOENT, -1, "unknown source '%s'",
			    name);
			return (-ENOENT);
		}
		break;
	default:
		lc_err_set(err, -ENOENT, -1, "unknown source %d", source);
		return (-ENOENT);
	}
	return (id);
}

/* The distance and grace a batch or resync asks for (0: keep), once it is
 * accepted (checked in src_resolve). */
static void
src_update(struct rib_d *d, unsigned id, uint32_t distance, uint32_t grace_ms)
{
	struct rib_source_info si;
	struct lc_err err;

	if ((distance != 0 || grace_ms != 0) &&
	    rib_source_info(d->rib, id, &si) == 0 &&
	    ((distance != 0 && distance != si.distance) ||
		(grace_ms != 0 && grace_ms != si.grace_ms)) &&
	    rib_source_set(d->rib, id, distance ? (int)distance : -1,
		grace_ms ? grace_ms : si.grace_ms, &err) != 0)
		lc_log_warnx("source %u: %s", id, err.msg);
}

/* A protocol source's connection: it owns the source from now on. */
static void
src_owned(struct rib_d *d, unsigned id, struct ipc_req *req)
{
	if (id > RIB_SRC_STATIC)
		d->src[id].peer = ipc_req_peer(req);
}

/* ---- routes in ----------------------------------------------------------- */

static int conn6_only(struct rib_d *, struct lc_err *);

/* Named static routes: remember them so a later interface (re)appearance
 * re-resolves them. */
static bool
named_is(const struct rd_named *n, uint8_t family, const struct lc_prefix4 *p,
    const struct lc_prefix6 *p6)
{
	if ((n->family == AF_INET6) != (family == AF_INET6))
		return (false);
	if (family == AF_INET6)
		return (n->pfx6.len == p6->len &&
		    memcmp(&n->pfx6.addr, &p6->addr, sizeof(p6->addr)) == 0);
	return (lc_prefix4_eq(&n->pfx, p));
}

static void
named_forget(struct rib_d *d, uint8_t family, const struct lc_prefix4 *p,
    const struct lc_prefix6 *p6)
{
	for (size_t i = 0; i < d->nnamed; i++)
		if (named_is(d->named[i], family, p, p6)) {
			free(d->named[i]);
			d->named[i] = d->named[--d->nnamed];
			return;
		}
}

/* names[i]: the i-th next hop's interface name, NULL or "" for none */
static int
named_keep(struct rib_d *d, const struct rib_route_upd *u,
    const char *const *names)
{
	struct rd_named *n;

	named_forget(d, u->family, &u->pfx, &u->pfx6);
	if (lc_array_grow((void **)&d->named, &d->capnamed, d->nnamed + 1,
		sizeof(*d->named)) != 0 ||
	    (n = calloc(1, sizeof(*n))) == NULL)
		return (-ENOMEM);
	n->pfx = u->pfx;
	n->family = u->family;
	n->pfx6 = u->pfx6;
	n->type = u->type;
	n->distance = u->distance;
	n->metric = u->metric;
	n->n = u->n_nh;
	for (unsigned i = 0; i < u->n_nh; i++) {
		n->nh[i] = u->nh[i];
		n->ifindex[i] = u->nh[i].ifindex;
		if (names[i] != NULL)
			snprintf(n->name[i], RD_IFNAME_MAX, "%s", names[i]);
	}
	d->named[d->nnamed++] = n;
	return (0);
}

/* A next hop given by interface name only (resolved here, and again when
 * interfaces change). */
static bool
nh_named(const struct ipc_route_nh *h)
{
	return (h->ifindex == 0 && h->ifname != NULL && h->ifname[0] != '\0');
}

/* Applied statics: remember those given by interface name (a protocol's
 * names are resolved once, in upd_conv), forget the others. */
static void
named_note(struct rib_d *d)
{
	const struct ipc_route_set *s = &d->in;

	for (size_t k = 0; k < s->n; k++) {
		const struct ipc_route *r = &s->rt[k];
		const char *names[RIB_NH_MAX];
		bool named = false;

		for (unsigned i = 0; i < r->n_nh && i < RIB_NH_MAX; i++) {
			names[i] = s->nh[r->nh + i].ifname;
			named |= nh_named(&s->nh[r->nh + i]);
		}
		if (!named)
			named_forget(d, d->upd[k].family, &d->upd[k].pfx,
			    &d->upd[k].pfx6);
		else if (named_keep(d, &d->upd[k], names) != 0)
			lc_log_warnx("out of memory keeping a route by "
				     "interface name");
	}
}

static void
reply_ack(struct ipc_req *req, uint64_t seq, size_t accepted,
    const struct lc_err *err, size_t total, int swept)
{
	Rib__RouteBatchAck ack = RIB__ROUTE_BATCH_ACK__INIT;
	Rib__RouteError re = RIB__ROUTE_ERROR__INIT, *rep = &re;

	ack.seq = seq;
	if (err != NULL) {
		ack.rejected = (uint32_t)total;
		re.index = err->index < 0 ? RD_NOINDEX : (uint32_t)err->index;
		re.code = err->code;
		re.message = (char *)err->msg;
		ack.n_errors = 1;
		ack.errors = &rep;
	} else {
		ack.accepted = (uint32_t)accepted;
	}
	ack.swept = swept > 0 ? (uint32_t)swept : 0;
	if (ipc_reply(req, IPC_OK, &ack.base) != 0)
		lc_log_warnx("ack of batch %llu to %s dropped",
		    (unsigned long long)seq,
		    ipc_peer_component(ipc_req_peer(req)));
}

/* The decoded batch (d->in) as the core's updates in d->upd, next hops in
 * d->nh (the records of one packed run keep sharing theirs). */
static int
upd_conv(struct rib_d *d, struct lc_err *err)
{
	const struct ipc_route_set *s = &d->in;

	if (lc_array_grow((void **)&d->upd, &d->capupd, s->n + 1,
		sizeof(*d->upd)) != 0 ||
	    lc_array_grow((void **)&d->nh, &d->capnh, s->nnh + 1,
		sizeof(*d->nh)) != 0) {
		lc_err_set(err, -ENOMEM, -1, "out of memory");
		return (-ENOMEM);
	}
	for (size_t i = 0; i < s->nnh; i++) {
		const struct ipc_route_nh *h = &s->nh[i];

		memset(&d->nh[i], 0, sizeof(d->nh[i]));
		if (h->family == AF_INET6) {
			d->nh[i].family = AF_INET6;
			d->nh[i].addr6 = h->addr.v6;
		} else
			d->nh[i].addr = h->addr.v4;
		d->nh[i].ifindex = nh_named(h) ?
		    rib_d_if_resolve(d, h->ifname) :
		    h->ifindex;
	}
	for (size_t k = 0; k < s->n; k++) {
		const struct ipc_route *r = &s->rt[k];
		struct rib_route_upd *u = &d->upd[k];

		/* a next hop of the other family is refused by the core */
		memset(u, 0, sizeof(*u));
		if (r->family == AF_INET6) {
			u->family = AF_INET6;
			u->pfx6.addr = r->pfx.v6;
			u->pfx6.len = r->len;
		} else {
			u->pfx.addr = r->pfx.v4;
			u->pfx.len = r->len;
		}
		u->op = r->op;
		u->type = r->kind;
		u->distance = r->distance ? (int16_t)r->distance : -1;
		u->metric = r->metric;
		u->n_nh = r->n_nh;
		u->nh = r->op == IPC_ROUTE_DEL ? NULL : d->nh + r->nh;
	}
	return (0);
}

static void
err_of(struct lc_err *err, const struct lc_err *e)
{
	err->code = e->code;
	err->index = e->index;
	snprintf(err->msg, sizeof(err->msg), "%s", e->msg);
}

/* ---- transactions in parts ------------------------------------------------ */

/*
 * RouteBatch.txn: the parts are checked as they come (decoded, converted,
 * each entry checked as rib_route_batch() would) and kept as the core's
 * updates, their next hops and names copied into the transaction's arena;
 * the last part applies them all in one rib_route_txn(). Nothing reaches
 * the core, and so the FIB, before that: a refused part, an abort or the
 * sender's end leave rib as it was. One transaction at a time, at most
 * RIB_TXN_MAX routes (about 40 bytes each while kept).
 */
static void
txn_drop(struct rib_d *d, const char *why)
{
	struct rd_txn *t = &d->txn;

	if (t->peer == NULL)
		return;
	if (why != NULL)
		lc_log_info("transaction %llu: %zu routes in %u parts dropped: "
			    "%s",
		    (unsigned long long)t->txn, t->n, t->next_part, why);
	ev_timer_stop(d->loop, &t->idle);
	free(t->upd);
	free(t->names);
	lc_arena_free(t->ar);
	t->peer = NULL;
	t->txn = 0;
	t->next_part = 0;
	t->upd = NULL;
	t->n = t->cap = 0;
	t->ar = NULL;
	t->names = NULL;
	t->nnames = t->capnames = 0;
}

static void
txn_idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	txn_drop(w->data, "no part for a minute");
}

/* The part in d->in / d->upd (n routes) joins the transaction. */
static int
txn_keep(struct rib_d *d, size_t n, struct lc_err *err)
{
	struct rd_txn *t = &d->txn;
	const struct ipc_route_set *s = &d->in;
	struct rib_nexthop *nh = NULL;

	if (lc_array_grow((void **)&t->upd, &t->cap, t->n + n,
		sizeof(*t->upd)) != 0 ||
	    (s->nnh > 0 &&
		(nh = lc_arena_memdup(t->ar, d->nh, s->nnh * sizeof(*nh))) ==
		    NULL))
		return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
	for (size_t k = 0; k < n; k++) {
		const struct ipc_route *r = &s->rt[k];
		struct rib_route_upd *u = &t->upd[t->n + k];
		struct rd_tname *tn;
		bool named = false;

		*u = d->upd[k];
		if (u->nh != NULL)
			u->nh = nh + (d->upd[k].nh - d->nh);
		if (t->src != RIB_SRC_STATIC || r->op == IPC_ROUTE_DEL)
			continue;
		for (unsigned i = 0; i < r->n_nh; i++)
			named |= nh_named(&s->nh[r->nh + i]);
		if (!named)
			continue;
		/* resolved again when applied; kept for named_update then */
		if (lc_array_grow((void **)&t->names, &t->capnames,
			t->nnames + 1, sizeof(*t->names)) != 0 ||
		    (t->names[t->nnames].name = lc_arena_calloc(t->ar,
			 (size_t)r->n_nh * RD_IFNAME_MAX)) == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		tn = &t->names[t->nnames++];
		tn->k = t->n + k;
		tn->n = r->n_nh;
		for (unsigned i = 0; i < r->n_nh; i++)
			if (s->nh[r->nh + i].ifname != NULL)
				snprintf(tn->name[i], RD_IFNAME_MAX, "%s",
				    s->nh[r->nh + i].ifname);
	}
	t->n += n;
	return (0);
}

/* The last part came: everything kept, in one batch. */
static int
txn_apply(struct rib_d *d, struct lc_err *err)
{
	struct rd_txn *t = &d->txn;
	size_t j = 0;
	int rv;

	/* interfaces may have come or gone while the parts came */
	for (size_t i = 0; i < t->nnames; i++) {
		struct rib_nexthop *nh =
		    (struct rib_nexthop *)t->upd[t->names[i].k].nh;

		for (unsigned k = 0; k < t->names[i].n; k++)
			if (t->names[i].name[k][0] != '\0')
				nh[k].ifindex = rib_d_if_resolve(d,
				    t->names[i].name[k]);
	}
	if ((rv = rib_route_txn(d->rib, t->src, t->upd, t->n, err)) != 0)
		return (rv);
	if (t->src != RIB_SRC_STATIC)
		return (0);
	/* as named_note() for one batch */
	for (size_t k = 0; k < t->n; k++) {
		const char *names[RIB_NH_MAX];

		if (j < t->nnames && t->names[j].k == k) {
			for (unsigned i = 0; i < t->names[j].n; i++)
				names[i] = t->names[j].name[i];
			if (named_keep(d, &t->upd[k], names) != 0)
				lc_log_warnx("out of memory keeping a route by "
					     "interface name");
			j++;
		} else if (d->nnamed > 0) {
			named_forget(d, t->upd[k].family, &t->upd[k].pfx,
			    &t->upd[k].pfx6);
		}
	}
	return (0);
}

/* The error of a part: its entry's index counted in the transaction. */
static void
txn_err(struct lc_err *err, const struct lc_err *e, uint32_t part, size_t base)
{
	char m[sizeof(err->msg)];

	snprintf(m, sizeof(m), "%s", e->msg);
	lc_err_set(err, e->code,
	    e->index < 0 ? e->index : e->index + (long)base,
	    "part %u of the transaction: %s", part, m);
}

/* One part of transaction b->txn (decoded into d->in: drv, ie). */
static void
txn_part(struct rib_d *d, struct ipc_req *req, const Rib__RouteBatch *b,
    size_t n, int drv, const struct lc_err *ie)
{
	struct rd_txn *t = &d->txn;
	struct ipc_peer *peer = ipc_req_peer(req);
	bool mine = t->peer == peer && t->txn == b->txn, created;
	struct lc_err err, e;
	uint64_t t0;
	int id;

	memset(&err, 0, sizeof(err));
	memset(&e, 0, sizeof(e));
	if (b->abort) {
		if (mine)
			txn_drop(d, "given up by its sender");
		reply_ack(req, b->seq, 0, NULL, 0, 0);
		return;
	}
	if (b->part == 0 && t->peer == peer) {
		txn_drop(d, "its sender began another");
	} else if (b->part == 0 && t->peer != NULL) {
		lc_err_set(&err, -EBUSY, -1,
		    "transaction %llu of %s is in progress",
		    (unsigned long long)t->txn, ipc_peer_component(t->peer));
		goto refuse;
	} else if (b->part != 0 && (!mine || b->part != t->next_part)) {
		if (mine)
			lc_err_set(&err, -EPROTO, -1,
			    "transaction %llu: part %u out of sequence "
			    "(expected %u)",
			    (unsigned long long)b->txn, b->part, t->next_part);
		else
			lc_err_set(&err, -EPROTO, -1,
			    "transaction %llu: part %u of no transaction in "
			    "progress",
			    (unsigned long long)b->txn, b->part);
		goto fail;
	}
	if (drv != 0) {
		txn_err(&err, ie, b->part, t->n);
		goto fail;
	}
	id = src_resolve(d, b->source, b->source_name, b->distance, b->grace_ms,
	    &created, &e);
	if (created) {
		(void)rib_source_del(d->rib, (unsigned)id, NULL);
		lc_err_set(&e, -ENOENT, -1,
		    "source %s: a transaction needs a source that a batch or "
		    "RESYNC_BEGIN registered",
		    b->source_name);
		id = -ENOENT;
	}
	if (id < 0) {
		txn_err(&err, &e, b->part, t->n);
		goto fail;
	}
	if (b->part == 0) {
		if (b->txn_routes > RIB_TXN_MAX) {
			lc_err_set(&err, -E2BIG, -1,
			    "transaction of %u routes is over the limit of %u",
			    b->txn_routes, (unsigned)RIB_TXN_MAX);
			goto refuse;
		}
		if ((t->ar = lc_arena_new(0)) == NULL ||
		    (b->txn_routes > 0 &&
			(t->upd = malloc(b->txn_routes * sizeof(*t->upd))) ==
			    NULL)) {
			lc_arena_free(t->ar);
			t->ar = NULL;
			lc_err_set(&err, -ENOMEM, -1, "out of memory");
			goto refuse;
		}
		t->cap = b->txn_routes;
		t->peer = peer;
		t->txn = b->txn;
		t->src = (unsigned)id;
		t->started_ns = lc_time_mono_ns();
		mine = true;
		lc_log_info("transaction %llu from %s: part 0 (%zu routes), %u "
			    "routes in all",
		    (unsigned long long)t->txn, ipc_peer_component(peer), n,
		    b->txn_routes);
	} else if ((unsigned)id != t->src) {
		lc_err_set(&err, -EINVAL, -1,
		    "transaction %llu: part %u is of another source",
		    (unsigned long long)b->txn, b->part);
		goto fail;
	}
	if (t->n + n > RIB_TXN_MAX) {
		lc_err_set(&err, -E2BIG, -1,
		    "transaction of more than %u routes is over the limit",
		    (unsigned)RIB_TXN_MAX);
		goto fail;
	}
	if (upd_conv(d, &e) != 0 ||
	    rib_route_check(d->rib, t->src, d->upd, n, &e) != 0 ||
	    txn_keep(d, n, &e) != 0) {
		txn_err(&err, &e, b->part, t->n);
		goto fail;
	}
	t->next_part++;
	if (b->more) {
		ev_timer_stop(d->loop, &t->idle);
		ev_timer_set(&t->idle, RD_TXN_IDLE_S, 0.0);
		ev_timer_start(d->loop, &t->idle);
		reply_ack(req, b->seq, n, NULL, n, 0);
		return;
	}
	t0 = lc_time_mono_ns();
	if (txn_apply(d, &e) != 0) {
		lc_err_set(&err, e.code, e.index, "the transaction: %s", e.msg);
		goto fail;
	}
	src_update(d, t->src, b->distance, b->grace_ms);
	d->src[t->src].seq = b->seq;
	lc_log_info("transaction %llu from %s: %zu routes in %u parts "
		    "applied (%.1f ms after its first part, %.1f ms to apply)",
	    (unsigned long long)t->txn, ipc_peer_component(peer), t->n,
	    t->next_part, (double)(t0 - t->started_ns) / 1e6,
	    (double)(lc_time_mono_ns() - t0) / 1e6);
	reply_ack(req, b->seq, t->n, NULL, t->n, 0);
	txn_drop(d, NULL);
	if (d->fs != RIB_D_FWD_DOWN) {
		rib_d_fib_push(d);
		(void)ipc_client_flush(d->fwd);
	}
	return;
fail:
	if (mine)
		txn_drop(d, err.msg);
refuse:
	lc_log_info("batch %llu from %s refused: %s",
	    (unsigned long long)b->seq, ipc_peer_component(peer), err.msg);
	reply_ack(req, b->seq, 0, &err, n, 0);
}

static void
h_route_batch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	const Rib__RouteBatch *b = (const Rib__RouteBatch *)msg;
	size_t n = ipc_route_batch_count(b);
	struct lc_err ie;
	struct lc_err err;
	bool created = false;
	int id, drv;

	memset(&err, 0, sizeof(err));
	/* a malformed batch is refused before its source is looked at, a bad
	 * entry after */
	drv = ipc_route_batch_decode(&d->in, b, RIB_BATCH_MAX, &ie);
	if (b->txn != 0) {
		txn_part(d, req, b, n, drv, &ie);
		return;
	}
	if (b->more || b->abort || b->part != 0) {
		lc_err_set(&err, -EINVAL, -1,
		    "part, more and abort need a transaction (txn)");
		goto refuse;
	}
	if (drv != 0 && ie.index < 0) {
		err_of(&err, &ie);
		goto refuse;
	}
	if (b->source == RIB__SOURCE__CONNECTED && drv == 0) {
		id = conn6_only(d, &err);
		created = false;
	} else
		id = src_resolve(d, b->source, b->source_name, b->distance,
		    b->grace_ms, &created, &err);
	if (id < 0)
		goto refuse;
	if (drv != 0) {
		err_of(&err, &ie);
		goto undo;
	}
	if (upd_conv(d, &err) != 0 ||
	    rib_route_batch(d->rib, (unsigned)id, d->upd, n, &err) != 0)
		goto undo;
	if (id == RIB_SRC_STATIC)
		named_note(d);
	if (id != RIB_SRC_CONNECTED)
		src_update(d, (unsigned)id, b->distance, b->grace_ms);
	d->src[id].seq = b->seq;
	src_owned(d, (unsigned)id, req);
	reply_ack(req, b->seq, n, NULL, n, 0);
	/* one loop turn can read many batches: start fwd on this one now
	 * instead of after all of them (the loop hook flushes the rest) */
	if (n >= RD_PUSH_EARLY && d->fs != RIB_D_FWD_DOWN) {
		rib_d_fib_push(d);
		(void)ipc_client_flush(d->fwd);
	}
	return;
undo:
	if (created)
		(void)rib_source_del(d->rib, (unsigned)id, NULL);
refuse:
	lc_log_info("batch %llu from %s refused: %s",
	    (unsigned long long)b->seq, ipc_peer_component(ipc_req_peer(req)),
	    err.msg);
	reply_ack(req, b->seq, 0, &err, n, 0);
}

/*
 * A client's batch of source CONNECTED: IPv4 connected routes are fwd's
 * interface addresses, but fwd reports no IPv6 address yet (IfAddr is IPv4),
 * so IPv6 ones are taken from a client meanwhile (docs/rib.md, IPv6).
 * RIB_SRC_CONNECTED, or -EPERM when an entry is IPv4.
 */
static int
conn6_only(struct rib_d *d, struct lc_err *err)
{
	for (size_t k = 0; k < d->in.n; k++)
		if (d->in.rt[k].family != AF_INET6)
			return (lc_err_set(err, -EPERM, (long)k,
			    "entry %zu: IPv4 connected routes come from "
			    "tern-fwd's interface state, not from a client "
			    "(IPv6 ones may, until fwd reports IPv6 addresses)",
			    k));
	return (RIB_SRC_CONNECTED);
}

static int
q_count(void *arg, const struct rib_route_info *ri)
{
	(void)arg;
	(void)ri;
	return (0);
}

static void
h_resync(struct ipc_req *req, const Rib__Resync *r, struct rib_d *d, bool begin)
{
	struct lc_err err;
	bool created;
	int id, n;

	memset(&err, 0, sizeof(err));
	id = src_resolve(d, r->source, r->source_name, r->distance, r->grace_ms,
	    &created, &err);
	if (id < 0) {
		reply_ack(req, r->seq, 0, &err, 0, 0);
		return;
	}
	src_update(d, (unsigned)id, r->distance, r->grace_ms);
	src_owned(d, (unsigned)id, req);
	d->src[id].seq = r->seq;
	if (id == RIB_SRC_STATIC)
		d->static_peer = begin ? ipc_req_peer(req) : NULL;
	if (begin) {
		grace_stop(d, (unsigned)id);
		n = rib_source_stale(d->rib, (unsigned)id);
		lc_log_info("source %u (%s): resync begins, %d routes stale",
		    id, ipc_peer_component(ipc_req_peer(req)), n);
		/* accepted: how many it has, stale now (already stale
		 * ones too: a restarted source learns that its routes
		 * outlived it) */
		{
			struct rib_source_info si;

			reply_ack(req, r->seq,
			    rib_source_info(d->rib, (unsigned)id, &si) == 0 ?
				si.routes :
				0,
			    NULL, 0, 0);
		}
		return;
	}
	grace_stop(d, (unsigned)id);
	n = rib_source_sweep(d->rib, (unsigned)id);
	lc_log_info("source %u (%s): resync ends, %d routes swept", id,
	    ipc_peer_component(ipc_req_peer(req)), n);
	if (id == RIB_SRC_STATIC) {
		/* swept statics no longer need their names */
		for (size_t i = 0; i < d->nnamed;) {
			struct rd_named *nm = d->named[i];
			struct rib_query q = {.match = RIB_MATCH_EXACT,
			    .pfx = nm->pfx,
			    .src = RIB_SRC_STATIC,
			    .family = nm->family,
			    .pfx6 = nm->pfx6};

			if (rib_route_walk(d->rib, &q, q_count, NULL, NULL) ==
			    0)
				named_forget(d, nm->family, &nm->pfx,
				    &nm->pfx6);
			else
				i++;
		}
		if (!d->static_synced) {
			d->static_synced = true;
			lc_log_notice("static routes re-learned from %s",
			    ipc_peer_component(ipc_req_peer(req)));
		}
	}
	reply_ack(req, r->seq, 0, NULL, 0, n);
}

static void
h_resync_begin(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	h_resync(req, (const Rib__Resync *)msg, arg, true);
}

static void
h_resync_end(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	h_resync(req, (const Rib__Resync *)msg, arg, false);
}

static void
on_peer_gone(struct ipc_server *srv, struct ipc_peer *peer, void *arg)
{
	struct rib_d *d = arg;
	struct rib_source_info si;

	(void)srv;
	rib_d_nht_peer_gone(d, peer);
	if (d->txn.peer == peer)
		txn_drop(d, "its sender went away");
	if (d->static_peer == peer)
		d->static_peer = NULL; /* its static resync will not end */
	for (unsigned id = RIB_SRC_STATIC + 1; id < RIB_SOURCE_MAX; id++) {
		if (d->src[id].peer != peer)
			continue;
		d->src[id].peer = NULL;
		if (rib_source_info(d->rib, id, &si) != 0)
			continue;
		(void)rib_source_stale(d->rib, id);
		lc_log_notice("source %s went away: %zu routes stale for %u ms",
		    si.name, si.routes, si.grace_ms);
		grace_stop(d, id);
		ev_timer_set(&d->src[id].grace, si.grace_ms / 1000.0, 0.0);
		ev_timer_start(d->loop, &d->src[id].grace);
		d->src[id].grace_on = true;
	}
}

static void
on_shutdown(struct ipc_server *srv, const char *reason, void *arg)
{
	struct rib_d *d = arg;

	(void)srv;
	lc_log_notice("shutdown requested: %s", reason ? reason : "");
	ev_break(d->loop, EVBREAK_ALL);
}

/* ---- queries --------------------------------------------------------------- */

struct qctx {
	struct rib_d *d;
	Rib__QueryReply *rep;
	size_t offset, limit, seen;
};

/* the IPv6 fields of a reply entry: prefix6, nh_addr6, resolved_addr6 */
static int
q_route6(struct lc_arena *a, const struct rib_route_info *ri,
    Rib__RouteEntry *e, Rib__Route *r)
{
	/* one copy of the addresses: prefix, next hops, resolved */
	struct lc_ip6 *v = lc_arena_alloc(a,
	    sizeof(*v) * (1 + (size_t)ri->n_nh + ri->n_res));

	r->nh_addr6 = lc_arena_alloc(a, sizeof(*r->nh_addr6) * (ri->n_nh + 1));
	e->resolved_addr6 = lc_arena_alloc(a,
	    sizeof(*e->resolved_addr6) * (ri->n_res + 1));
	if (v == NULL || r->nh_addr6 == NULL || e->resolved_addr6 == NULL)
		return (-ENOMEM);
	v[0] = ri->pfx6.addr;
	r->len = ri->pfx6.len;
	r->prefix6.data = v[0].b;
	r->prefix6.len = 16;
	r->n_nh_addr6 = ri->n_nh;
	e->n_resolved_addr6 = ri->n_res;
	for (unsigned i = 0; i < ri->n_nh; i++) {
		v[1 + i] = ri->nh[i].addr6;
		r->nh_addr6[i].data = v[1 + i].b;
		r->nh_addr6[i].len = 16;
	}
	for (unsigned i = 0; i < ri->n_res; i++) {
		v[1 + ri->n_nh + i] = ri->res[i].addr6;
		e->resolved_addr6[i].data = v[1 + ri->n_nh + i].b;
		e->resolved_addr6[i].len = 16;
	}
	return (0);
}

static int
q_route(void *arg, const struct rib_route_info *ri)
{
	struct qctx *q = arg;
	struct lc_arena *a = q->d->arena;
	Rib__RouteEntry *e;
	Rib__Route *r;
	struct rd_if *f;

	if (q->seen++ < q->offset || q->rep->n_routes >= q->limit)
		return (0);
	if ((e = lc_arena_alloc(a, sizeof(*e))) == NULL ||
	    (r = lc_arena_alloc(a, sizeof(*r))) == NULL)
		return (-ENOMEM);
	rib__route_entry__init(e);
	rib__route__init(r);
	e->route = r;
	r->prefix = ri->pfx.addr.s_addr;
	r->len = ri->pfx.len;
	if (ri->family == AF_INET6 && q_route6(a, ri, e, r) != 0)
		return (-ENOMEM);
	r->distance = ri->distance;
	r->metric = ri->metric;
	r->type = ri->type;
	r->n_nh_addr = ri->family == AF_INET6 ? 0 : ri->n_nh;
	r->n_nh_ifindex = r->n_nh_ifname = ri->n_nh;
	r->nh_addr = lc_arena_alloc(a, sizeof(uint32_t) * (ri->n_nh + 1));
	r->nh_ifindex = lc_arena_alloc(a, sizeof(uint32_t) * (ri->n_nh + 1));
	r->nh_ifname = lc_arena_alloc(a, sizeof(char *) * (ri->n_nh + 1));
	e->n_resolved_addr = ri->family == AF_INET6 ? 0 : ri->n_res;
	e->n_resolved_ifindex = ri->n_res;
	e->resolved_addr = lc_arena_alloc(a,
	    sizeof(uint32_t) * (ri->n_res + 1));
	e->resolved_ifindex = lc_arena_alloc(a,
	    sizeof(uint32_t) * (ri->n_res + 1));
	if (r->nh_addr == NULL || r->nh_ifindex == NULL ||
	    r->nh_ifname == NULL || e->resolved_addr == NULL ||
	    e->resolved_ifindex == NULL)
		return (-ENOMEM);
	for (unsigned i = 0; i < ri->n_nh; i++) {
		r->nh_addr[i] = ri->nh[i].addr.s_addr;
		r->nh_ifindex[i] = ri->nh[i].ifindex;
		f = ri->nh[i].ifindex ?
		    rib_d_if_by_index(q->d, ri->nh[i].ifindex) :
		    NULL;
		r->nh_ifname[i] = f != NULL ? f->name : (char *)"";
	}
	for (unsigned i = 0; i < ri->n_res; i++) {
		e->resolved_addr[i] = ri->res[i].addr.s_addr;
		e->resolved_ifindex[i] = ri->res[i].ifindex;
	}
	e->source = ri->src == RIB_SRC_CONNECTED ? RIB__SOURCE__CONNECTED :
	    ri->src == RIB_SRC_STATIC		 ? RIB__SOURCE__STATIC :
	    strcmp(ri->src_name, "kernel") == 0	 ? RIB__SOURCE__KERNEL :
						   RIB__SOURCE__PROTOCOL;
	e->source_name = lc_arena_strdup(a, ri->src_name);
	e->active = (ri->flags & RIB_RI_USABLE) != 0;
	e->best = (ri->flags & RIB_RI_ACTIVE) != 0;
	e->stale = (ri->flags & RIB_RI_STALE) != 0;
	e->loop = (ri->flags & RIB_RI_LOOP) != 0;
	q->rep->routes[q->rep->n_routes++] = e;
	return (0);
}

/*
 * Big walks (all, longer) with paging: sorting every match for each page
 * would stall the loop (~0.75 s at 1M routes). Instead, collect one 8-byte
 * key per match (address, length, source: the sorted walk's order), select
 * the page's window in linear time, sort only the window, and fetch its
 * routes by exact lookups.
 */
struct qkeys {
	uint64_t *k;
	size_t n, cap;
};

static int
q_key(void *arg, const struct rib_route_info *ri)
{
	struct qkeys *kc = arg;

	if (kc->n == kc->cap &&
	    lc_array_grow((void **)&kc->k, &kc->cap, kc->n + 1,
		sizeof(*kc->k)) != 0)
		return (-ENOMEM);
	kc->k[kc->n++] = (uint64_t)ntohl(ri->pfx.addr.s_addr) << 32 |
	    (uint64_t)ri->pfx.len << 8 | ri->src;
	return (0);
}

static long
q_big(struct rib_d *d, const struct rib_query *q0, struct qctx *c,
    struct lc_err *err)
{
	struct rib_query q = *q0;
	struct qkeys kc = {NULL, 0, 0};
	size_t lo, hi;
	long rv;

	q.sorted = false;
	if ((rv = rib_route_walk(d->rib, &q, q_key, &kc, err)) < 0) {
		free(kc.k);
		return (rv);
	}
	lc_page_u64(kc.k, kc.n, c->offset, c->limit, &lo, &hi);
	c->offset = 0;
	for (size_t i = lo; i < hi; i++) {
		struct rib_query e = {.match = RIB_MATCH_EXACT,
		    .active_only = q.active_only};

		e.pfx.addr.s_addr = htonl((uint32_t)(kc.k[i] >> 32));
		e.pfx.len = (uint8_t)(kc.k[i] >> 8);
		e.src = (unsigned)(kc.k[i] & 0xff);
		if ((rv = rib_route_walk(d->rib, &e, q_route, c, err)) < 0)
			break;
	}
	c->offset = lo;
	c->seen = kc.n;
	free(kc.k);
	return (rv < 0 ? rv : (long)kc.n);
}

static void
h_query(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	const Rib__Query *m = (const Rib__Query *)msg;
	Rib__QueryReply rep = RIB__QUERY_REPLY__INIT;
	struct rib_query q;
	struct lc_err err;
	struct qctx c = {d, &rep, m->offset, m->limit, 0};
	long rv;

	memset(&q, 0, sizeof(q));
	memset(&err, 0, sizeof(err));
	if (c.limit == 0)
		c.limit = RIB_D_QUERY_LIMIT;
	if (c.limit > RIB_D_QUERY_LIMIT_MAX)
		c.limit = RIB_D_QUERY_LIMIT_MAX;
	if ((m->prefix6.len != 0 && m->prefix6.len != 16) ||
	    (m->lookup6.len != 0 && m->lookup6.len != 16) ||
	    (m->family != 0 && m->family != 4 && m->family != 6)) {
		ipc_reply_error(req, IPC_BAD_REQUEST,
		    "prefix6/lookup6 of 16 bytes, family 0, 4 or 6");
		return;
	}
	if (m->lookup6.len == 16 || m->prefix6.len == 16) {
		q.family = AF_INET6;
		if (m->lookup6.len == 16)
			memcpy(q.addr6.b, m->lookup6.data, 16);
		if (m->prefix6.len == 16)
			memcpy(q.pfx6.addr.b, m->prefix6.data, 16);
		q.pfx6.len = (uint8_t)(m->len > 255 ? 255 : m->len);
	} else if (m->family != 0)
		q.family = m->family == 6 ? AF_INET6 : AF_INET;
	if (m->lookup != 0 || m->lookup6.len == 16) {
		q.match = RIB_MATCH_LONGEST;
		q.addr.s_addr = m->lookup;
	} else if (m->longer) {
		q.match = RIB_MATCH_LONGER;
	} else if (m->exact || m->prefix != 0 || m->len != 0 ||
	    m->prefix6.len == 16) {
		q.match = RIB_MATCH_EXACT;
	} else {
		q.match = RIB_MATCH_ALL;
	}
	if (m->len >
	    (q.family == AF_INET6 && q.match != RIB_MATCH_ALL ? 128 : 32)) {
		ipc_reply_error(req, IPC_BAD_REQUEST,
		    "prefix length %u is over %u", m->len,
		    q.family == AF_INET6 ? 128 : 32);
		return;
	}
	q.pfx.addr.s_addr = m->prefix;
	q.pfx.len = (uint8_t)m->len;
	q.active_only = m->active_only;
	q.sorted = true;
	if (m->source != RIB__SOURCE__SOURCE_NONE ||
	    (m->source_name != NULL && m->source_name[0] != '\0')) {
		const char *name = m->source_name ? m->source_name : "";
		int id;

		id = m->source == RIB__SOURCE__CONNECTED ?
		    RIB_SRC_CONNECTED :
		    m->source == RIB__SOURCE__STATIC ?
		    RIB_SRC_STATIC :
		    rib_source_find(d->rib,
			m->source == RIB__SOURCE__KERNEL && name[0] == '\0' ?
			    "kernel" :
			    name);
		if (id < 0) {
			ipc_reply_error(req, IPC_ERROR, "unknown source '%s'",
			    name);
			return;
		}
		q.src = (unsigned)id;
	}
	lc_arena_reset(d->arena);
	rep.routes = lc_arena_alloc(d->arena,
	    sizeof(*rep.routes) * (c.limit < 4096 ? c.limit : 4096));
	/* grow in place would need a vector: size for the limit lazily */
	if (c.limit > 4096)
		rep.routes = lc_arena_alloc(d->arena,
		    sizeof(*rep.routes) * c.limit);
	if (rep.routes == NULL) {
		ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	if ((q.match == RIB_MATCH_ALL || q.match == RIB_MATCH_LONGER) &&
	    q.family != AF_INET6) {
		size_t off = c.offset;

		if (q.match == RIB_MATCH_ALL && q.family == 0)
			q.family = AF_INET; /* then IPv6 below */
		rv = q_big(d, &q, &c, &err);
		if (rv >= 0 && q.match == RIB_MATCH_ALL && m->family == 0) {
			/* IPv6 after IPv4: sorted in one walk (the 8-byte
			 * keys of q_big hold IPv4 only) */
			c.offset = off;
			q.family = AF_INET6;
			rv = rib_route_walk(d->rib, &q, q_route, &c, &err);
		}
	} else
		rv = rib_route_walk(d->rib, &q, q_route, &c, &err);
	if (rv < 0) {
		ipc_reply_error(req, IPC_ERROR, "%s",
		    err.msg[0] ? err.msg : strerror((int)-rv));
		return;
	}
	rep.total = (uint32_t)c.seen;
	rep.more = c.offset + rep.n_routes < c.seen;
	if (ipc_reply(req, IPC_OK, &rep.base) != 0)
		lc_log_warnx("query reply dropped (%zu routes)", rep.n_routes);
}

static void
h_fib_status(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	Rib__FibStatus st = RIB__FIB_STATUS__INIT;
	struct rib_fib_stats fs;

	(void)msg;
	rib_fib_stats(d->rib, &fs);
	st.sent_seq = fs.seq_sent;
	st.acked_seq = fs.seq_acked;
	st.fwd_generation = ipc_client_connected(d->fwd) ?
	    ipc_client_peer_generation(d->fwd) :
	    0;
	st.routes = (uint32_t)fs.want;
	st.pending = (uint32_t)(fs.queued + fs.inflight);
	st.resyncing = d->fs != RIB_D_FWD_UP;
	st.fwd_connected = d->fs != RIB_D_FWD_DOWN;
	st.batches = fs.batches;
	st.inflight = (uint32_t)fs.inflight;
	st.held6 = (uint32_t)fs.v6_held;
	(void)ipc_reply(req, IPC_OK, &st.base);
}

static void
h_sources(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	Rib__SourceList l = RIB__SOURCE_LIST__INIT;
	Rib__SourceInfo sv[RIB_SOURCE_MAX], *sp[RIB_SOURCE_MAX];
	char names[RIB_SOURCE_MAX][RIB_SOURCE_NAME_MAX];
	struct rib_source_info si;

	(void)msg;
	for (unsigned id = 1; id < RIB_SOURCE_MAX; id++) {
		Rib__SourceInfo *s = &sv[l.n_sources];

		if (rib_source_info(d->rib, id, &si) != 0)
			continue;
		rib__source_info__init(s);
		memcpy(names[l.n_sources], si.name, sizeof(si.name));
		s->source_name = names[l.n_sources];
		s->source = id == RIB_SRC_CONNECTED ? RIB__SOURCE__CONNECTED :
		    id == RIB_SRC_STATIC	    ? RIB__SOURCE__STATIC :
		    strcmp(si.name, "kernel") == 0  ? RIB__SOURCE__KERNEL :
						      RIB__SOURCE__PROTOCOL;
		s->seq = d->src[id].seq;
		s->routes = (uint32_t)si.routes;
		s->distance = si.distance;
		s->grace_ms = si.grace_ms;
		s->active = (uint32_t)si.active;
		s->inactive = (uint32_t)si.inactive;
		s->stale = (uint32_t)si.stale_routes;
		s->connected = id <= RIB_SRC_STATIC || d->src[id].peer != NULL;
		if (id == RIB_SRC_CONNECTED)
			s->connected = d->fs != RIB_D_FWD_DOWN;
		sp[l.n_sources] = s;
		l.n_sources++;
	}
	l.sources = sp;
	(void)ipc_reply(req, IPC_OK, &l.base);
}

/* mgmt's `rib { }` block: all or nothing */
static void
h_set_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	const Rib__RibConfig *c = (const Rib__RibConfig *)msg;
	Rib__RouteBatchAck a = RIB__ROUTE_BATCH_ACK__INIT;
	struct lc_err err = {0};

	if ((c->has_ecmp_width &&
		(c->ecmp_width < 1 || c->ecmp_width > RIB_NH_MAX)) ||
	    (c->has_distance_connected && c->distance_connected > 255) ||
	    (c->has_distance_static && c->distance_static > 255)) {
		ipc_reply_error(req, IPC_BAD_REQUEST,
		    "rib settings out of range "
		    "(ECMP width 1..%u, distances 0..255)",
		    (unsigned)RIB_NH_MAX);
		return;
	}
	if ((c->has_ecmp_width &&
		rib_set_ecmp_width(d->rib, c->ecmp_width, &err) != 0) ||
	    (c->has_distance_connected &&
		rib_source_set(d->rib, RIB_SRC_CONNECTED,
		    (int)c->distance_connected, 0, &err) != 0) ||
	    (c->has_distance_static &&
		rib_source_set(d->rib, RIB_SRC_STATIC, (int)c->distance_static,
		    0, &err) != 0)) {
		ipc_reply_err(req, IPC_ERROR, &err);
		return;
	}
	lc_log_info("settings from mgmt: ecmp-width %u, distances connected %d "
		    "static %d",
	    c->ecmp_width,
	    c->has_distance_connected ? (int)c->distance_connected : -1,
	    c->has_distance_static ? (int)c->distance_static : -1);
	a.accepted = 1;
	(void)ipc_reply(req, IPC_OK, &a.base);
}

/* ---- set up ---------------------------------------------------------------- */

void
rib_d_in_init(struct rib_d *d)
{
	struct ipc_server_cbs scbs = {0};

	ipc_route_set_init(&d->in);
	ev_timer_init(&d->txn.idle, txn_idle_cb, RD_TXN_IDLE_S, 0.0);
	d->txn.idle.data = d;
	for (unsigned i = 0; i < RIB_SOURCE_MAX; i++) {
		ev_timer_init(&d->src[i].grace, grace_cb, 1.0, 0.0);
		d->src[i].grace.data = d;
	}
	ipc_server_handle(d->srv, RIB__METHOD__ROUTE_BATCH, h_route_batch, d);
	ipc_server_handle(d->srv, RIB__METHOD__RESYNC_BEGIN, h_resync_begin, d);
	ipc_server_handle(d->srv, RIB__METHOD__RESYNC_END, h_resync_end, d);
	ipc_server_handle(d->srv, RIB__METHOD__QUERY, h_query, d);
	ipc_server_handle(d->srv, RIB__METHOD__FIB_STATUS, h_fib_status, d);
	ipc_server_handle(d->srv, RIB__METHOD__SOURCES, h_sources, d);
	ipc_server_handle(d->srv, RIB__METHOD__SET_CONFIG, h_set_config, d);
	rib_d_nht_init(d);
	scbs.on_peer_gone = on_peer_gone;
	scbs.on_shutdown = on_shutdown;
	scbs.arg = d;
	ipc_server_set_cbs(d->srv, &scbs);
}

void
rib_d_in_fini(struct rib_d *d)
{
	txn_drop(d, NULL);
	for (unsigned i = 0; i < RIB_SOURCE_MAX; i++)
		grace_stop(d, i);
	for (size_t i = 0; i < d->nnamed; i++)
		free(d->named[i]);
	free(d->named);
	d->named = NULL;
	d->nnamed = d->capnamed = 0;
	ipc_route_set_fini(&d->in);
}
