/* rib/rib_d.c: the tern-rib daemon: rib.sock handlers, protocol source grace, FIB download and resync with tern-fwd, connected routes from fwd's interfaces. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

#include "rib_d.h"

#define RD_IF_ADDRS   16 /* addresses per interface kept */
#define RD_IFNAME_MAX 32
#define RD_IF_UNKNOWN RIB_IFINDEX_MAX /* a name fwd has not told: down */
#define RD_NOINDEX    0xffffffffu     /* RouteError.index of a whole batch */
#define RD_PUSH_EARLY 1024	      /* a batch this big is pushed at once */

struct rd_src {
	struct ipc_peer *peer; /* owner while connected (protocols) */
	uint64_t seq;	       /* last batch seq */
	ev_timer grace;
	bool grace_on;
	bool used;
};

struct rd_if {
	uint32_t ifindex;
	char name[RD_IFNAME_MAX];
	bool up;
	bool seen;
	unsigned naddr;
	struct lc_prefix4 addr[RD_IF_ADDRS];
};

/* A (prefix, ifindex) pair of a connected route. */
struct rd_conn {
	struct lc_prefix4 pfx;
	uint32_t ifindex;
};

/* A static route with next hops given by interface name. */
struct rd_named {
	struct lc_prefix4 pfx;
	uint8_t type;
	int16_t distance;
	uint32_t metric;
	unsigned n;
	struct lc_ip4 addr[RIB_NH_MAX];
	char name[RIB_NH_MAX][RD_IFNAME_MAX]; /* "" = none */
	uint32_t ifindex[RIB_NH_MAX];	      /* as resolved when added */
};

/* One FIB_BATCH in flight: the seq we sent (acked even if fwd's FibAck
 * does not echo it). */
struct rd_call {
	struct rib_d *d;
	uint64_t seq;
	struct rd_call *next;
};

#define RD_FB_SLOTS 4096u /* pointer -> run cache, a power of 2 */

struct rd_fbslot {
	const struct rib_nexthop *nh;
	uint32_t first;
	uint32_t n;
	uint64_t gen;
};

struct rib_d {
	struct ev_loop *loop;
	struct rib *rib;
	struct ipc_server *srv;
	struct ipc_client *fwd;
	struct lc_loop_hook hook;
	struct lc_arena *arena; /* query replies */
	uint32_t hold_ms, grace_ms;

	struct rd_src src[RIB_SOURCE_MAX];

	/* fwd session */
	enum rib_d_fwd_state fs;
	bool fwd_blocked;	      /* ipc_call said -ENOBUFS */
	bool fwd_redo;		      /* an error: start the session again */
	bool ifs_synced;	      /* SUBSCRIBE answered in this session */
	bool begin_done;	      /* RESYNC_BEGIN answered */
	bool fwd_packed;	      /* fwd's FibAck said packed_ok */
	bool static_synced;	      /* mgmt ended a static resync */
	bool hold_over;		      /* the start hold timer expired */
	unsigned hold_extended;	      /* times, while mgmt is resyncing */
	struct ipc_peer *static_peer; /* began a static resync, not ended */
	ev_timer hold;
	uint64_t session; /* counts fwd sessions */
	const char *state;

	/* interfaces and connected routes */
	struct rd_if *ifs;
	size_t nifs, capifs;
	struct rd_conn *conn; /* installed, sorted */
	size_t nconn;
	struct rd_named **named;
	size_t nnamed, capnamed;

	/* scratch */
	struct rib_route_upd *upd;
	size_t capupd;
	struct rib_nexthop *nh;
	size_t capnh;
	void *fb; /* FIB batch encoding */
	size_t capfb;
	uint8_t *pk; /* packed FIB batch records */
	size_t cappk;
	struct rd_fbslot *fbslot; /* hop array -> packed_nh run */
	uint64_t fbgen;		  /* batch of the valid slots */
	struct rd_call *calls;	  /* free FIB call contexts */
};

static void rd_fwd_session(struct rib_d *);
static void rd_fib_push(struct rib_d *);

/* ---- small helpers ------------------------------------------------------- */

static int
grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return (0);
	while (nc < need)
		nc *= 2;
	if ((np = realloc(*p, nc * elem)) == NULL)
		return (-ENOMEM);
	*p = np;
	*cap = nc;
	return (0);
}

static void
err_set(struct rib_err *err, int code, long index, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->index = index;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static struct rd_if *
if_by_index(struct rib_d *d, uint32_t ifindex)
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

static uint32_t
if_resolve(struct rib_d *d, const char *name)
{
	struct rd_if *f = if_by_name(d, name);

	return (f != NULL ? f->ifindex : RD_IF_UNKNOWN);
}

static void
set_state(struct rib_d *d)
{
	const char *s;

	if (!d->static_synced && !d->hold_over)
		s = "resyncing";
	else if (d->fs == RIB_D_FWD_DOWN || d->fs == RIB_D_FWD_UP)
		s = "running";
	else
		s = "resyncing";
	if (s != d->state) {
		d->state = s;
		ipc_server_set_state(d->srv, s);
	}
}

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
    uint32_t grace_ms, bool *created, struct rib_err *err)
{
	int id, rv;

	*created = false;
	if (name == NULL)
		name = "";
	if (distance > 255) {
		err_set(err, -EINVAL, -1, "distance %u is over 255", distance);
		return (-EINVAL);
	}
	switch (source) {
	case RIB__SOURCE__CONNECTED:
		err_set(err, -EPERM, -1,
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
				err_set(err, -EINVAL, -1,
				    "a protocol source "
				    "needs a source_name");
				return (-EINVAL);
			}
			name = "kernel";
		}
		id = rib_source_find(d->rib, name);
		if (id == RIB_SRC_CONNECTED || id == RIB_SRC_STATIC) {
			err_set(err, -EINVAL, -1,
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
			err_set(err, -ENOENT, -1, "unknown source '%s'", name);
			return (-ENOENT);
		}
		break;
	default:
		err_set(err, -ENOENT, -1, "unknown source %d", source);
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
	struct rib_err err;

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

/* Named static routes: remember them so a later interface (re)appearance
 * re-resolves them. */
static void
named_forget(struct rib_d *d, const struct lc_prefix4 *p)
{
	for (size_t i = 0; i < d->nnamed; i++)
		if (lc_prefix4_eq(&d->named[i]->pfx, p)) {
			free(d->named[i]);
			d->named[i] = d->named[--d->nnamed];
			return;
		}
}

static int
named_keep(struct rib_d *d, const struct rib_route_upd *u, const Rib__Route *r)
{
	struct rd_named *n;

	named_forget(d, &u->pfx);
	if (grow((void **)&d->named, &d->capnamed, d->nnamed + 1,
		sizeof(*d->named)) != 0 ||
	    (n = calloc(1, sizeof(*n))) == NULL)
		return (-ENOMEM);
	n->pfx = u->pfx;
	n->type = u->type;
	n->distance = u->distance;
	n->metric = u->metric;
	n->n = u->n_nh;
	for (unsigned i = 0; i < u->n_nh; i++) {
		n->addr[i] = u->nh[i].addr;
		n->ifindex[i] = u->nh[i].ifindex;
		if (i < r->n_nh_ifname && r->nh_ifname[i] != NULL)
			snprintf(n->name[i], RD_IFNAME_MAX, "%s",
			    r->nh_ifname[i]);
	}
	d->named[d->nnamed++] = n;
	return (0);
}

/* Converts one proto route (entry index idx) into u, next hops in nh. */
static int
route_conv(struct rib_d *d, const Rib__Route *r, size_t idx,
    struct rib_route_upd *u, struct rib_nexthop *nh, bool *named,
    struct rib_err *err)
{
	size_t n = r->n_nh_addr;

	if (r->n_nh_ifindex > n)
		n = r->n_nh_ifindex;
	if (r->n_nh_ifname > n)
		n = r->n_nh_ifname;
	if ((r->n_nh_addr != 0 && r->n_nh_addr != n) ||
	    (r->n_nh_ifindex != 0 && r->n_nh_ifindex != n) ||
	    (r->n_nh_ifname != 0 && r->n_nh_ifname != n)) {
		err_set(err, -EINVAL, (long)idx,
		    "entry %zu: nh_addr, "
		    "nh_ifindex and nh_ifname must be parallel arrays",
		    idx);
		return (-EINVAL);
	}
	if (n > RIB_NH_MAX) {
		err_set(err, -EINVAL, (long)idx,
		    "entry %zu: %zu next hops "
		    "(at most %u)",
		    idx, n, RIB_NH_MAX);
		return (-EINVAL);
	}
	if (r->type > RIB__ROUTE_TYPE__REJECT) {
		err_set(err, -EINVAL, (long)idx,
		    "entry %zu: unknown route "
		    "type %d",
		    idx, (int)r->type);
		return (-EINVAL);
	}
	if (r->len > 32) {
		err_set(err, -EINVAL, (long)idx,
		    "entry %zu: prefix length %u "
		    "is over 32",
		    idx, r->len);
		return (-EINVAL);
	}
	if (r->distance > 255) {
		err_set(err, -EINVAL, (long)idx,
		    "entry %zu: distance %u is "
		    "over 255",
		    idx, r->distance);
		return (-EINVAL);
	}
	*named = false;
	for (size_t i = 0; i < n; i++) {
		const char *name = i < r->n_nh_ifname ? r->nh_ifname[i] : NULL;

		nh[i].addr.s_addr = i < r->n_nh_addr ? r->nh_addr[i] : 0;
		nh[i].ifindex = i < r->n_nh_ifindex ? r->nh_ifindex[i] : 0;
		if (nh[i].ifindex == 0 && name != NULL && name[0] != '\0') {
			nh[i].ifindex = if_resolve(d, name);
			*named = true;
		}
	}
	u->pfx.addr.s_addr = r->prefix;
	u->pfx.len = (uint8_t)r->len;
	u->type = (uint8_t)r->type;
	u->distance = r->distance ? (int16_t)r->distance : -1;
	u->metric = r->metric;
	u->n_nh = (uint32_t)n;
	u->nh = nh;
	return (0);
}

static void
reply_ack(struct ipc_req *req, uint64_t seq, size_t accepted,
    const struct rib_err *err, size_t total, int swept)
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

/*
 * The packed encoding of a RouteBatch (rib.proto packed_nh/packed_add/
 * packed_del): 8-byte records decoded in one pass. Converts the next-hop
 * table into nh[0..*nnh) and the n records of rec into u[0..n) (op op);
 * each route's next hops point into that table. base = the index of the
 * first record in the batch (for errors).
 */
#define RD_PACKED_REC	 8
#define RD_PACKED_NH_MAX 65536u

static int
packed_nh_conv(const ProtobufCBinaryData *t, struct rib_nexthop *nh,
    size_t *nnh, struct rib_err *err)
{
	size_t n = t->len / RD_PACKED_REC;

	if (t->len % RD_PACKED_REC != 0 || n > RD_PACKED_NH_MAX) {
		err_set(err, -EINVAL, -1,
		    "packed_nh: %zu bytes is not a table "
		    "of at most %u 8-byte next hops",
		    t->len, RD_PACKED_NH_MAX);
		return (-EINVAL);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t a, ifx;

		memcpy(&a, t->data + i * RD_PACKED_REC, 4);
		memcpy(&ifx, t->data + i * RD_PACKED_REC + 4, 4);
		nh[i].addr.s_addr = a;
		nh[i].ifindex = ntohl(ifx);
	}
	*nnh = n;
	return (0);
}

static int
packed_conv(const ProtobufCBinaryData *rec, uint8_t op,
    const struct rib_nexthop *nh, size_t nnh, size_t base,
    struct rib_route_upd *u, struct rib_err *err)
{
	size_t n = rec->len / RD_PACKED_REC;
	const uint8_t *p = rec->data;

	for (size_t i = 0; i < n; i++, p += RD_PACKED_REC) {
		uint32_t a;
		unsigned cnt = p[5] & 0x3f, first = (unsigned)p[6] << 8 | p[7];

		memcpy(&a, p, 4);
		u[i].pfx.addr.s_addr = a;
		u[i].pfx.len = p[4];
		u[i].op = op;
		u[i].distance = -1;
		u[i].metric = 0;
		if (op == RIB_OP_DELETE) {
			u[i].type = RIB_RT_UNICAST;
			u[i].n_nh = 0;
			u[i].nh = NULL;
		} else {
			u[i].type = p[5] >> 6;
			if (first + cnt > nnh) {
				err_set(err, -EINVAL, (long)(base + i),
				    "entry %zu: next hops %u..%u are beyond the "
				    "%zu of packed_nh",
				    base + i, first, first + cnt, nnh);
				return (-EINVAL);
			}
			u[i].n_nh = cnt;
			u[i].nh = nh + first;
		}
		if (p[4] > 32) {
			err_set(err, -EINVAL, (long)(base + i),
			    "entry %zu: "
			    "prefix length %u is over 32",
			    base + i, p[4]);
			return (-EINVAL);
		}
	}
	return (0);
}

static void
h_route_batch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	const Rib__RouteBatch *b = (const Rib__RouteBatch *)msg;
	size_t npa = b->packed_add.len / RD_PACKED_REC,
	       npd = b->packed_del.len / RD_PACKED_REC, nnh = 0;
	size_t nm = b->n_add + b->n_replace; /* message adds + replaces */
	size_t n = b->n_add + npa + b->n_replace + b->n_del + npd, nh = 0,
	       k = 0;
	struct rib_err err;
	bool created = false, *isnamed = NULL;
	int id, rv;

	memset(&err, 0, sizeof(err));
	if (b->packed_add.len % RD_PACKED_REC != 0 ||
	    b->packed_del.len % RD_PACKED_REC != 0) {
		err_set(&err, -EINVAL, -1,
		    "packed_add/packed_del of %zu/%zu "
		    "bytes: not 8-byte records",
		    b->packed_add.len, b->packed_del.len);
		goto refuse;
	}
	if (n > RIB_BATCH_MAX) {
		err_set(&err, -E2BIG, -1,
		    "batch of %zu routes is over the "
		    "limit of %u",
		    n, RIB_BATCH_MAX);
		goto refuse;
	}
	id = src_resolve(d, b->source, b->source_name, b->distance, b->grace_ms,
	    &created, &err);
	if (id < 0)
		goto refuse;
	for (size_t i = 0; i < b->n_add; i++)
		nh += b->add[i]->n_nh_addr + b->add[i]->n_nh_ifindex +
		    b->add[i]->n_nh_ifname;
	for (size_t i = 0; i < b->n_replace; i++)
		nh += b->replace[i]->n_nh_addr + b->replace[i]->n_nh_ifindex +
		    b->replace[i]->n_nh_ifname;
	nh += b->packed_nh.len / RD_PACKED_REC;
	if (grow((void **)&d->upd, &d->capupd, n + 1, sizeof(*d->upd)) != 0 ||
	    grow((void **)&d->nh, &d->capnh, nh + 1, sizeof(*d->nh)) != 0 ||
	    (isnamed = calloc(n + 1, sizeof(bool))) == NULL) {
		err_set(&err, -ENOMEM, -1, "out of memory");
		goto undo;
	}
	/* the packed next-hop table first, then each message route's own */
	if (packed_nh_conv(&b->packed_nh, d->nh, &nnh, &err) != 0)
		goto undo;
	nh = nnh;
	for (size_t i = 0; i < nm; i++, k++) {
		const Rib__Route *r = i < b->n_add ? b->add[i] :
						     b->replace[i - b->n_add];

		if (i == b->n_add) {
			/* the packed adds go after the message adds */
			if (packed_conv(&b->packed_add, RIB_OP_ADD, d->nh, nnh,
				k, d->upd + k, &err) != 0)
				goto undo;
			k += npa;
		}
		if (route_conv(d, r, k, &d->upd[k], d->nh + nh, &isnamed[k],
			&err) != 0)
			goto undo;
		d->upd[k].op = i < b->n_add ? RIB_OP_ADD : RIB_OP_REPLACE;
		nh += d->upd[k].n_nh;
	}
	if (b->n_add == nm) {
		if (packed_conv(&b->packed_add, RIB_OP_ADD, d->nh, nnh, k,
			d->upd + k, &err) != 0)
			goto undo;
		k += npa;
	}
	for (size_t i = 0; i < b->n_del; i++, k++) {
		if (b->del[i]->len > 32) {
			err_set(&err, -EINVAL, (long)k,
			    "entry %zu: prefix "
			    "length %u is over 32",
			    k, b->del[i]->len);
			goto undo;
		}
		memset(&d->upd[k], 0, sizeof(d->upd[k]));
		d->upd[k].pfx.addr.s_addr = b->del[i]->prefix;
		d->upd[k].pfx.len = (uint8_t)b->del[i]->len;
		d->upd[k].op = RIB_OP_DELETE;
		d->upd[k].distance = -1;
	}
	if (packed_conv(&b->packed_del, RIB_OP_DELETE, d->nh, nnh, k,
		d->upd + k, &err) != 0)
		goto undo;
	if ((rv = rib_route_batch(d->rib, (unsigned)id, d->upd, n, &err)) != 0)
		goto undo;
	/* applied: remember or forget statics by interface name (a protocol's
	 * names are resolved once, here); message routes are at upd[0..n_add)
	 * and upd[n_add + npa .. n_add + npa + n_replace) */
	if (id == RIB_SRC_STATIC) {
		for (k = 0; k < n; k++) {
			size_t mi = k < b->n_add ? k :
			    k < b->n_add + npa	 ? nm :
						   k - npa;

			if (isnamed[k] && mi < nm) {
				const Rib__Route *r = mi < b->n_add ?
				    b->add[mi] :
				    b->replace[mi - b->n_add];

				if (named_keep(d, &d->upd[k], r) != 0)
					lc_log_warnx("out of memory keeping a "
						     "route by interface name");
			} else {
				named_forget(d, &d->upd[k].pfx);
			}
		}
	}
	free(isnamed);
	src_update(d, (unsigned)id, b->distance, b->grace_ms);
	d->src[id].seq = b->seq;
	src_owned(d, (unsigned)id, req);
	reply_ack(req, b->seq, n, NULL, n, 0);
	/* one loop turn can read many batches: start fwd on this one now
	 * instead of after all of them (the loop hook flushes the rest) */
	if (n >= RD_PUSH_EARLY && d->fs != RIB_D_FWD_DOWN) {
		rd_fib_push(d);
		(void)ipc_client_flush(d->fwd);
	}
	return;
undo:
	free(isnamed);
	if (created)
		(void)rib_source_del(d->rib, (unsigned)id, NULL);
refuse:
	lc_log_info("batch %llu from %s refused: %s",
	    (unsigned long long)b->seq, ipc_peer_component(ipc_req_peer(req)),
	    err.msg);
	reply_ack(req, b->seq, 0, &err, n, 0);
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
	struct rib_err err;
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
		reply_ack(req, r->seq, 0, NULL, 0, 0);
		return;
	}
	grace_stop(d, (unsigned)id);
	n = rib_source_sweep(d->rib, (unsigned)id);
	lc_log_info("source %u (%s): resync ends, %d routes swept", id,
	    ipc_peer_component(ipc_req_peer(req)), n);
	if (id == RIB_SRC_STATIC) {
		/* swept statics no longer need their names */
		for (size_t i = 0; i < d->nnamed;) {
			struct rib_query q = {.match = RIB_MATCH_EXACT,
			    .pfx = d->named[i]->pfx,
			    .src = RIB_SRC_STATIC};

			if (rib_route_walk(d->rib, &q, q_count, NULL, NULL) ==
			    0)
				named_forget(d, &d->named[i]->pfx);
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
	r->distance = ri->distance;
	r->metric = ri->metric;
	r->type = ri->type;
	r->n_nh_addr = r->n_nh_ifindex = r->n_nh_ifname = ri->n_nh;
	r->nh_addr = lc_arena_alloc(a, sizeof(uint32_t) * (ri->n_nh + 1));
	r->nh_ifindex = lc_arena_alloc(a, sizeof(uint32_t) * (ri->n_nh + 1));
	r->nh_ifname = lc_arena_alloc(a, sizeof(char *) * (ri->n_nh + 1));
	e->n_resolved_addr = e->n_resolved_ifindex = ri->n_res;
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
		f = ri->nh[i].ifindex ? if_by_index(q->d, ri->nh[i].ifindex) :
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
	    grow((void **)&kc->k, &kc->cap, kc->n + 1, sizeof(*kc->k)) != 0)
		return (-ENOMEM);
	kc->k[kc->n++] = (uint64_t)ntohl(ri->pfx.addr.s_addr) << 32 |
	    (uint64_t)ri->pfx.len << 8 | ri->src;
	return (0);
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* Puts the k-th smallest of v[0..n) at v[k], smaller ones before it. */
static void
u64_select(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 16) {
		size_t m = lo + (hi - lo) / 2, i = lo, j = hi - 1;
		uint64_t a = v[lo], b = v[m], c = v[hi - 1], p, t;

		p = a < b ? (b < c ? b : (a < c ? c : a)) :
			    (a < c ? a : (b < c ? c : b));
		for (;;) { /* Hoare: [lo, j] <= p <= [j + 1, hi) */
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		if (k <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
	qsort(v + lo, hi - lo, sizeof(*v), u64_cmp);
}

static long
q_big(struct rib_d *d, const struct rib_query *q0, struct qctx *c,
    struct rib_err *err)
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
	lo = c->offset < kc.n ? c->offset : kc.n;
	hi = kc.n - lo > c->limit ? lo + c->limit : kc.n;
	if (lo > 0 && lo < kc.n)
		u64_select(kc.k, kc.n, lo);
	if (hi > lo && hi < kc.n)
		u64_select(kc.k + lo, kc.n - lo, hi - lo);
	if (hi > lo)
		qsort(kc.k + lo, hi - lo, sizeof(*kc.k), u64_cmp);
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
	struct rib_err err;
	struct qctx c = {d, &rep, m->offset, m->limit, 0};
	long rv;

	memset(&q, 0, sizeof(q));
	memset(&err, 0, sizeof(err));
	if (c.limit == 0)
		c.limit = RIB_D_QUERY_LIMIT;
	if (c.limit > RIB_D_QUERY_LIMIT_MAX)
		c.limit = RIB_D_QUERY_LIMIT_MAX;
	if (m->lookup != 0) {
		q.match = RIB_MATCH_LONGEST;
		q.addr.s_addr = m->lookup;
	} else if (m->longer) {
		q.match = RIB_MATCH_LONGER;
	} else if (m->exact || m->prefix != 0 || m->len != 0) {
		q.match = RIB_MATCH_EXACT;
	} else {
		q.match = RIB_MATCH_ALL;
	}
	if (m->len > 32) {
		ipc_reply_error(req, IPC_BAD_REQUEST,
		    "prefix length %u is "
		    "over 32",
		    m->len);
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
	if (q.match == RIB_MATCH_ALL || q.match == RIB_MATCH_LONGER)
		rv = q_big(d, &q, &c, &err);
	else
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
	struct rib_err err = {0};

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
		ipc_reply_error(req, IPC_ERROR, "%s", err.msg);
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

/* ---- interfaces and connected routes -------------------------------------- */

static int
conn_cmp(const void *a, const void *b)
{
	const struct rd_conn *x = a, *y = b;
	uint32_t xa = ntohl(x->pfx.addr.s_addr), ya = ntohl(y->pfx.addr.s_addr);

	if (xa != ya)
		return (xa < ya ? -1 : 1);
	if (x->pfx.len != y->pfx.len)
		return (x->pfx.len < y->pfx.len ? -1 : 1);
	if (x->ifindex != y->ifindex)
		return (x->ifindex < y->ifindex ? -1 : 1);
	return (0);
}

static bool
conn_same_pfx(const struct rd_conn *a, const struct rd_conn *b)
{
	return (lc_prefix4_eq(&a->pfx, &b->pfx));
}

/* Recomputes the connected routes from the interfaces and applies the
 * difference as one batch of source connected. */
static void
conn_update(struct rib_d *d)
{
	struct rd_conn *nw = NULL;
	size_t n = 0, cap = 0, i = 0, j = 0, nu = 0, nh = 0;
	struct rib_err err;

	for (size_t k = 0; k < d->nifs; k++)
		for (unsigned a = 0; a < d->ifs[k].naddr; a++) {
			if (grow((void **)&nw, &cap, n + 1, sizeof(*nw)) != 0)
				goto nomem;
			nw[n].pfx = d->ifs[k].addr[a];
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
	if (grow((void **)&d->upd, &d->capupd, n + d->nconn + 1,
		sizeof(*d->upd)) != 0 ||
	    grow((void **)&d->nh, &d->capnh, n + 1, sizeof(*d->nh)) != 0)
		goto nomem;
	while (i < n || j < d->nconn) {
		struct rd_conn *p = i < n ? &nw[i] : &d->conn[j];
		size_t i0 = i, j0 = j;
		int c;

		if (i < n && j < d->nconn) {
			c = conn_cmp(&(struct rd_conn){nw[i].pfx, 0},
			    &(struct rd_conn){d->conn[j].pfx, 0});
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
		d->upd[nu].distance = -1;
		if (i == i0) {
			d->upd[nu].op = RIB_OP_DELETE;
		} else {
			d->upd[nu].op = RIB_OP_ADD;
			d->upd[nu].type = RIB_RT_UNICAST;
			d->upd[nu].nh = d->nh + nh;
			for (size_t k = i0; k < i && k - i0 < RIB_NH_MAX; k++) {
				d->nh[nh].addr.s_addr = 0;
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
	struct rib_err err;

	for (size_t i = 0; i < d->nnamed; i++) {
		struct rd_named *n = d->named[i];
		struct rib_nexthop nh[RIB_NH_MAX];
		struct rib_route_upd u;
		bool changed = false;

		for (unsigned k = 0; k < n->n; k++) {
			nh[k].addr = n->addr[k];
			nh[k].ifindex = n->ifindex[k];
			if (n->name[k][0] != '\0') {
				nh[k].ifindex = if_resolve(d, n->name[k]);
				changed |= nh[k].ifindex != n->ifindex[k];
			}
		}
		if (!changed)
			continue;
		memset(&u, 0, sizeof(u));
		u.pfx = n->pfx;
		u.op = RIB_OP_REPLACE;
		u.type = n->type;
		u.distance = n->distance;
		u.metric = n->metric;
		u.n_nh = n->n;
		u.nh = nh;
		if (rib_route_batch(d->rib, RIB_SRC_STATIC, &u, 1, &err) != 0) {
			lc_log_info("static %s by interface name: %s",
			    lc_prefix4_ntoa(&n->pfx), err.msg);
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
	f = if_by_index(d, fi->ifindex);
	if (deleted) {
		if (f != NULL) {
			(void)rib_if_set(d->rib, f->ifindex, false);
			*f = d->ifs[--d->nifs];
		}
		return;
	}
	if (f == NULL) {
		if (grow((void **)&d->ifs, &d->capifs, d->nifs + 1,
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
subscribe_cb(void *arg, int status, const char *errmsg,
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
		    ipc_status_str(status), errmsg);
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
fib_ack_cb(void *arg, int status, const char *errmsg,
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
		    ipc_status_str(status), errmsg);
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
 * The packed FibBatch (fwd.proto packed_nh/packed_add/packed_del): a next-hop
 * table with one run of records per distinct next-hop set of the batch (the
 * deltas of one FIB group share its hop array, found by pointer), and one
 * 8-byte record per route. Deltas whose run does not fit the 65,536-record
 * table go as message routes (b->add). Returns the bytes used at buf.
 */

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int
fib_pack(struct rib_d *d, Fwd__FibBatch *b, const struct rib_fib_delta *dl,
    unsigned n, Fwd__FibRoute *fr, Fwd__FibRoute **frp, uint32_t *u32)
{
	struct rd_fbslot *slot;
	uint8_t *tab, *add, *del;
	size_t nnh = 0, na = 0, nd = 0, off = 0, nt = 0;

	for (unsigned i = 0; i < n; i++)
		nt += dl[i].n_nh;
	if (nt > RD_PACKED_NH_MAX)
		nt = RD_PACKED_NH_MAX;
	if (grow((void **)&d->pk, &d->cappk,
		(nt + 2 * (size_t)n) * RD_PACKED_REC, 1) != 0)
		return (-ENOMEM);
	if (d->fbslot == NULL &&
	    (d->fbslot = calloc(RD_FB_SLOTS, sizeof(*d->fbslot))) == NULL)
		return (-ENOMEM);
	slot = d->fbslot;
	d->fbgen++;
	tab = d->pk;
	add = tab + nt * RD_PACKED_REC;
	del = add + (size_t)n * RD_PACKED_REC;
	for (unsigned i = 0; i < n; i++) {
		const struct rib_fib_delta *e = &dl[i];
		uint8_t *r;
		uint32_t first = 0;

		if (e->op == RIB_FIB_DELETE) {
			r = del + nd++ * RD_PACKED_REC;
			memcpy(r, &e->pfx.addr.s_addr, 4);
			r[4] = e->pfx.len;
			r[5] = 0;
			put16(r + 6, 0);
			continue;
		}
		if (e->n_nh > 0) {
			uintptr_t h = ((uintptr_t)e->nh >> 3) * 0x9e3779b1u;
			struct rd_fbslot *sl =
			    &slot[(h >> 7) & (RD_FB_SLOTS - 1)];

			if (sl->gen == d->fbgen && sl->nh == e->nh &&
			    sl->n == e->n_nh)
				first = sl->first;
			else if (nnh + e->n_nh <= nt) {
				first = (uint32_t)nnh;
				for (unsigned k = 0; k < e->n_nh; k++) {
					uint32_t ifx = htonl(e->nh[k].ifindex);

					memcpy(tab + nnh * RD_PACKED_REC,
					    &e->nh[k].addr.s_addr, 4);
					memcpy(tab + nnh * RD_PACKED_REC + 4,
					    &ifx, 4);
					nnh++;
				}
				sl->nh = e->nh;
				sl->n = e->n_nh;
				sl->first = first;
				sl->gen = d->fbgen;
			} else {
				/* the table is full: a message route */
				fwd__fib_route__init(&fr[b->n_add]);
				fr[b->n_add].prefix = e->pfx.addr.s_addr;
				fr[b->n_add].len = e->pfx.len;
				fr[b->n_add].n_nh_addr =
				    fr[b->n_add].n_nh_ifindex = e->n_nh;
				fr[b->n_add].nh_addr = u32 + off;
				fr[b->n_add].nh_ifindex = u32 + off + e->n_nh;
				for (unsigned k = 0; k < e->n_nh; k++) {
					u32[off + k] = e->nh[k].addr.s_addr;
					u32[off + e->n_nh + k] =
					    e->nh[k].ifindex;
				}
				off += 2u * e->n_nh;
				frp[b->n_add] = &fr[b->n_add];
				b->n_add++;
				continue;
			}
		}
		/* no next hop: the field holds fwd's RouteKind */
		if (e->n_nh == 0)
			first = e->type == RIB_RT_REJECT ?
			    FWD__ROUTE_KIND__ROUTE_REJECT :
			    FWD__ROUTE_KIND__ROUTE_BLACKHOLE;
		r = add + na++ * RD_PACKED_REC;
		memcpy(r, &e->pfx.addr.s_addr, 4);
		r[4] = e->pfx.len;
		r[5] = (uint8_t)e->n_nh;
		put16(r + 6, first);
	}
	b->packed_nh.data = tab;
	b->packed_nh.len = nnh * RD_PACKED_REC;
	b->packed_add.data = add;
	b->packed_add.len = na * RD_PACKED_REC;
	b->packed_del.data = del;
	b->packed_del.len = nd * RD_PACKED_REC;
	return (0);
}

/* The rib core's FIB callback: encodes one FibBatch and sends it. */
static int
fib_send(void *arg, uint64_t seq, const struct rib_fib_delta *dl, unsigned n)
{
	struct rib_d *d = arg;
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	size_t nh = 0, need, off;
	Fwd__FibRoute *fr, **frp;
	Lifecycle__Prefix *dp, **dpp;
	struct rd_call *c;
	uint32_t *u32;
	int rv;

	for (unsigned i = 0; i < n; i++)
		nh += dl[i].n_nh;
	need = n * (sizeof(*fr) + sizeof(*frp) + sizeof(*dp) + sizeof(*dpp)) +
	    2 * nh * sizeof(uint32_t) + 64;
	if (grow(&d->fb, &d->capfb, need, 1) != 0)
		return (-ENOMEM);
	fr = d->fb;
	frp = (Fwd__FibRoute **)(fr + n);
	dp = (Lifecycle__Prefix *)(frp + n);
	dpp = (Lifecycle__Prefix **)(dp + n);
	u32 = (uint32_t *)(dpp + n);
	b.seq = seq;
	b.add = frp;
	b.del = dpp;
	off = 0;
	if (d->fwd_packed) {
		if (fib_pack(d, &b, dl, n, fr, frp, u32) != 0)
			return (-ENOMEM);
		n = 0; /* all packed (or in b.add) */
	}
	for (unsigned i = 0; i < n; i++) {
		if (dl[i].op == RIB_FIB_DELETE) {
			lifecycle__prefix__init(&dp[b.n_del]);
			dp[b.n_del].prefix = dl[i].pfx.addr.s_addr;
			dp[b.n_del].len = dl[i].pfx.len;
			dpp[b.n_del] = &dp[b.n_del];
			b.n_del++;
			continue;
		}
		fwd__fib_route__init(&fr[b.n_add]);
		fr[b.n_add].prefix = dl[i].pfx.addr.s_addr;
		fr[b.n_add].len = dl[i].pfx.len;
		if (dl[i].n_nh == 0)
			fr[b.n_add].kind = dl[i].type == RIB_RT_REJECT ?
			    FWD__ROUTE_KIND__ROUTE_REJECT :
			    FWD__ROUTE_KIND__ROUTE_BLACKHOLE;
		fr[b.n_add].n_nh_addr = fr[b.n_add].n_nh_ifindex = dl[i].n_nh;
		fr[b.n_add].nh_addr = u32 + off;
		fr[b.n_add].nh_ifindex = u32 + off + dl[i].n_nh;
		for (unsigned k = 0; k < dl[i].n_nh; k++) {
			u32[off + k] = dl[i].nh[k].addr.s_addr;
			u32[off + dl[i].n_nh + k] = dl[i].nh[k].ifindex;
		}
		off += 2u * dl[i].n_nh;
		frp[b.n_add] = &fr[b.n_add];
		b.n_add++;
	}
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
resync_end_cb(void *arg, int status, const char *errmsg,
    const ProtobufCMessage *msg)
{
	struct rib_d *d = arg;
	const Fwd__FibAck *a = (const Fwd__FibAck *)msg;

	if (status == IPC_CANCELLED || status == IPC_PEER_RESTARTED ||
	    d->fs != RIB_D_FWD_END)
		return;
	if (status == IPC_OK || status == IPC_UNKNOWN_METHOD) {
		d->fs = RIB_D_FWD_UP;
		set_state(d);
		lc_log_notice("fwd in sync: %u stale routes swept by fwd",
		    a != NULL ? a->swept : 0);
	} else {
		lc_log_warnx("fwd RESYNC_END: %s %s", ipc_status_str(status),
		    errmsg);
		d->fwd_redo = true;
	}
}

static void
resync_begin_cb(void *arg, int status, const char *errmsg,
    const ProtobufCMessage *msg)
{
	struct rib_d *d = arg;

	if (status == IPC_CANCELLED || status == IPC_PEER_RESTARTED ||
	    d->fs != RIB_D_FWD_SYNC)
		return;
	if (status != IPC_OK && status != IPC_UNKNOWN_METHOD)
		lc_log_warnx("fwd RESYNC_BEGIN: %s %s", ipc_status_str(status),
		    errmsg);
	d->fwd_packed = status == IPC_OK && msg != NULL &&
	    ((const Fwd__FibAck *)msg)->packed_ok;
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

static void
hold_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rib_d *d = w->data;

	(void)revents;
	if (d->static_peer != NULL && !d->static_synced &&
	    d->hold_extended < RIB_D_HOLD_EXTEND_MAX) {
		/* mgmt is re-pushing statics (a big config takes a while):
		 * give it another hold while it is connected */
		if (d->hold_extended++ == 0)
			lc_log_notice("static resync from mgmt still going: "
				      "holding the FIB push");
		ev_timer_set(&d->hold, d->hold_ms / 1000.0, 0.0);
		ev_timer_start(loop, &d->hold);
		return;
	}
	d->hold_over = true;
	set_state(d);
	if (!d->static_synced)
		lc_log_notice("no static resync from mgmt in %u ms: going on "
			      "without it",
		    d->hold_ms);
}

/* Sends what the FIB queue holds to fwd, up to the window. */
static void
rd_fib_push(struct rib_d *d)
{
	long rv;

	if (d->fs >= RIB_D_FWD_PUSH && !d->fwd_blocked) {
		rv = rib_fib_flush(d->rib);
		if (rv < 0 && rv != -EAGAIN)
			lc_log_warnx("FIB flush: %s", strerror((int)-rv));
	}
}

/* Once per loop turn, before blocking. */
static void
rd_hook(void *arg)
{
	struct rib_d *d = arg;
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
	rd_fib_push(d);
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
	set_state(d);
	if (d->fs != RIB_D_FWD_DOWN)
		(void)ipc_client_flush(d->fwd);
}

/* ---- life ------------------------------------------------------------------- */

struct rib_d *
rib_d_new(struct ev_loop *loop, const struct rib_d_opts *o)
{
	static const struct rib_d_opts zero;
	struct ipc_server_cbs scbs = {0};
	struct ipc_client_cbs ccbs = {0};
	struct ipc_opts io;
	struct rib_d *d;
	int e;

	if (o == NULL)
		o = &zero;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return (NULL);
	d->loop = loop;
	d->hold_ms = o->hold_ms ? o->hold_ms : RIB_D_HOLD_DEFAULT_MS;
	d->grace_ms = o->grace_ms ? o->grace_ms : RIB_D_GRACE_DEFAULT_MS;
	if ((d->rib = rib_new(o->conf)) == NULL ||
	    (d->arena = lc_arena_new(64 << 10)) == NULL)
		goto fail;
	for (unsigned i = 0; i < RIB_SOURCE_MAX; i++) {
		ev_timer_init(&d->src[i].grace, grace_cb, 1.0, 0.0);
		d->src[i].grace.data = d;
	}
	rib_fib_set_cb(d->rib, fib_send, d);
	/* our hook runs before the IPC flush hooks registered after it */
	lc_loop_hook_start(loop, &d->hook, rd_hook, d);

	memset(&io, 0, sizeof(io));
	io.rundir = o->rundir;
	io.component = "rib";
	io.generation = o->generation;
	io.reconnect_ms = o->reconnect_ms ? o->reconnect_ms : 20;
	if ((d->srv = ipc_server_new(loop, &ipc_svc_rib, &io)) == NULL)
		goto fail;
	d->state = "resyncing";
	ipc_server_set_state(d->srv, d->state);
	ipc_server_handle(d->srv, RIB__METHOD__ROUTE_BATCH, h_route_batch, d);
	ipc_server_handle(d->srv, RIB__METHOD__RESYNC_BEGIN, h_resync_begin, d);
	ipc_server_handle(d->srv, RIB__METHOD__RESYNC_END, h_resync_end, d);
	ipc_server_handle(d->srv, RIB__METHOD__QUERY, h_query, d);
	ipc_server_handle(d->srv, RIB__METHOD__FIB_STATUS, h_fib_status, d);
	ipc_server_handle(d->srv, RIB__METHOD__SOURCES, h_sources, d);
	ipc_server_handle(d->srv, RIB__METHOD__SET_CONFIG, h_set_config, d);
	scbs.on_peer_gone = on_peer_gone;
	scbs.on_shutdown = on_shutdown;
	scbs.arg = d;
	ipc_server_set_cbs(d->srv, &scbs);

	io.generation = ipc_server_generation(d->srv); /* fwd sees it */
	if ((d->fwd = ipc_client_new(loop, &ipc_svc_fwd, &io, false)) == NULL)
		goto fail;
	ccbs.on_connect = on_connect;
	ccbs.on_peer_restart = on_peer_restart;
	ccbs.on_event = on_event;
	ccbs.on_resync = on_resync;
	ccbs.on_writable = on_writable;
	ccbs.arg = d;
	ipc_client_set_cbs(d->fwd, &ccbs);

	ev_timer_init(&d->hold, hold_cb, d->hold_ms / 1000.0, 0.0);
	d->hold.data = d;
	ev_timer_start(loop, &d->hold);
	return (d);
fail:
	e = errno ? errno : ENOMEM;
	rib_d_free(d);
	errno = e;
	return (NULL);
}

void
rib_d_free(struct rib_d *d)
{
	if (d == NULL)
		return;
	lc_loop_hook_stop(d->loop, &d->hook);
	ev_timer_stop(d->loop, &d->hold);
	for (unsigned i = 0; i < RIB_SOURCE_MAX; i++)
		grace_stop(d, i);
	d->fs = RIB_D_FWD_DOWN;
	ipc_client_free(d->fwd);
	ipc_server_free(d->srv);
	rib_free(d->rib);
	lc_arena_free(d->arena);
	for (size_t i = 0; i < d->nnamed; i++)
		free(d->named[i]);
	free(d->named);
	free(d->ifs);
	free(d->conn);
	free(d->upd);
	free(d->nh);
	free(d->fb);
	free(d->pk);
	free(d->fbslot);
	while (d->calls != NULL) {
		struct rd_call *c = d->calls;

		d->calls = c->next;
		free(c);
	}
	free(d);
}

struct rib *
rib_d_rib(struct rib_d *d)
{
	return (d->rib);
}

enum rib_d_fwd_state
rib_d_fwd_state(const struct rib_d *d)
{
	return (d->fs);
}

const char *
rib_d_state(const struct rib_d *d)
{
	return (d->state);
}
