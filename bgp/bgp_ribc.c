/* bgp/bgp_ribc.c: tern-bgp's best routes to tern-rib (docs/bgp.md, "To
 * rib"): source PROTOCOL "bgp", distance 170, routes kept by rib for the
 * graceful restart time when tern-bgp goes away.
 *
 * Once per loop turn (a loop hook, before IPC flushes) the changed list of
 * bgp_rib.c is drained into one RouteBatch of packed 8-byte records, at
 * most BATCH_MAX routes and WINDOW batches unacknowledged: when rib is
 * slower, changes wait on the list, where later changes of a prefix fold
 * into the one route still to send.
 *
 * Every (re)connect is a resync: RESYNC_BEGIN marks what rib has of us
 * stale, every best route is sent again, and RESYNC_END sweeps the rest,
 * but only once the routes are whole: after each configured neighbour sent
 * End-of-RIB, or the graceful restart time after start (RFC 4724 4.1's
 * selection deferral). So a restarted tern-bgp never withdraws a route from
 * rib that a neighbour is about to announce again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_log.h"

#include "bgp_int.h"

#define BATCH_MAX  65536
#define WINDOW	   4
#define RIB_WAIT_S 2.0 /* sessions wait this long for rib's first answer */

/* A call to rib answered: the ack, or NULL when it failed (the
 * connection went: on_connect resyncs everything). */
static const Rib__RouteBatchAck *
call_done(struct bgp_d *d, int status, const struct lc_err *err,
    const ProtobufCMessage *msg, const char *what)
{
	if (d->rc.inflight > 0)
		d->rc.inflight--;
	if (status != IPC_OK) {
		lc_log_info("rib: %s failed: %s %s", what,
		    ipc_status_str(status), err->msg);
		return (NULL);
	}
	return ((const Rib__RouteBatchAck *)msg);
}

static void
ack_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct bgp_d *d = arg;
	const Rib__RouteBatchAck *a = call_done(d, status, err, msg, "batch");

	if (a == NULL)
		return;
	d->rc.acked = a->seq;
	d->rc.accepted += a->accepted;
	if (a->rejected > 0) {
		d->rc.rejected += a->rejected;
		lc_log_warnx("rib refused %u routes of batch %llu: %s",
		    a->rejected, (unsigned long long)a->seq,
		    a->n_errors > 0 && a->errors[0]->message ?
			a->errors[0]->message :
			"");
	}
}

static void
resync_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct bgp_d *d = arg;
	const Rib__RouteBatchAck *a = call_done(d, status, err, msg, "resync");

	if (a != NULL && !d->rc.begin_acked) {
		/* the first RESYNC_BEGIN of this process: routes of ours in
		 * rib mean a restart with forwarding kept (RFC 4724) */
		d->rc.begin_acked = true;
		d->rc.restarting = a->accepted > 0;
		if (d->rc.restarting)
			lc_log_notice("restarting: rib kept %u BGP routes; "
				      "advertising waits for End-of-RIB from "
				      "every neighbour",
			    a->accepted);
	}
	if (a != NULL && a->swept > 0)
		lc_log_notice("rib swept %u stale BGP routes", a->swept);
}

static int
resync_call(struct bgp_d *d, bool begin)
{
	Rib__Resync r = RIB__RESYNC__INIT;
	int rv;

	r.source = RIB__SOURCE__PROTOCOL;
	r.source_name = "bgp";
	r.seq = ++d->rc.seq;
	r.distance = BGP_DISTANCE;
	r.grace_ms = d->gr_time * 1000;
	rv = ipc_call(d->rc.cl,
	    begin ? RIB__METHOD__RESYNC_BEGIN : RIB__METHOD__RESYNC_END,
	    &r.base, resync_cb, d, 0);
	if (rv == 0)
		d->rc.inflight++;
	return (rv);
}

/* Every configured neighbour has sent End-of-RIB, or the deferral is over. */
static bool
routes_whole(struct bgp_d *d)
{
	if (d->rc.deferral_over)
		return (true);
	if (!d->config_seen)
		return (false);
	for (unsigned i = 0; i < d->npeers; i++) {
		const struct bgp_peer *p = d->peers[i];

		if (!p->c.shutdown && !p->eor_rcvd &&
		    (p->state != BGP_ESTABLISHED ||
			(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV4))))
			return (false);
		if (!p->c.shutdown && p->state == BGP_ESTABLISHED &&
		    (p->afs_neg & BGP_AF_BIT(BGP_AF_IPV6)) && !p->eor6_rcvd)
			return (false);
	}
	return (true);
}

bool
bgp_ribc_known(struct bgp_d *d)
{
	/* rib answered, or did not within 2 s (then: not a restart) */
	return (
	    d->rc.begin_acked || ev_now(d->loop) - d->rc.started > RIB_WAIT_S);
}

bool
bgp_ribc_adv_ok(struct bgp_d *d)
{
	if (!d->rc.begin_acked)
		return (d->rc.deferral_over);
	return (!d->rc.restarting || routes_whole(d));
}

static void
deferral_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_d *d = w->data;

	(void)loop;
	(void)revents;
	if (!d->rc.deferral_over)
		lc_log_notice("selection deferral over (%u s): stale routes "
			      "swept from rib",
		    d->gr_time);
	d->rc.deferral_over = true;
}

/* The batch being built: routes through the set, deletes kept apart (the
 * codec wants adds first). */
static int
emit(void *arg, const struct bgp_dest *dst, uint32_t nhid, const uint32_t *nh,
    unsigned n)
{
	struct bgp_d *d = arg;
	struct bgp_ribc *c = &d->rc;
	struct ipc_route *rt;

	if (n == 0) {
		if (c->ndel == c->capdel) {
			size_t ncap = c->capdel ? c->capdel * 2 : 1024;
			uint64_t *nd = realloc(c->del, ncap * sizeof(*nd));

			if (nd == NULL)
				return (-ENOMEM);
			c->del = nd;
			c->capdel = ncap;
		}
		c->del[c->ndel++] = (uint64_t)dst->addr << 8 | dst->len;
		return (0);
	}
	if (nhid >= c->caprun) {
		size_t ncap = nhid * 2 + 16;
		uint64_t *nr = realloc(c->run, ncap * sizeof(*nr));

		if (nr == NULL)
			return (-ENOMEM);
		memset(nr + c->caprun, 0, (ncap - c->caprun) * sizeof(*nr));
		c->run = nr;
		c->caprun = ncap;
	}
	/* next-hop runs shared by the batch's routes: run[id] = batch << 32
	 * | index */
	if ((c->run[nhid] >> 32) != (c->batch & 0xffffffffu)) {
		if (ipc_route_set_reserve(&c->set, 1, n) != 0)
			return (-ENOMEM);
		c->run[nhid] = (c->batch & 0xffffffffu) << 32 | c->set.nnh;
		for (unsigned i = 0; i < n; i++) {
			struct ipc_route_nh *h = &c->set.nh[c->set.nnh++];

			memset(h, 0, sizeof(*h));
			h->family = AF_INET;
			h->addr.v4.s_addr = nh[i];
		}
	} else if (ipc_route_set_reserve(&c->set, 1, 0) != 0) {
		return (-ENOMEM);
	}
	rt = &c->set.rt[c->set.n++];
	memset(rt, 0, sizeof(*rt));
	rt->family = AF_INET;
	rt->pfx.v4.s_addr = dst->addr;
	rt->len = dst->len;
	rt->nh = (uint32_t)(c->run[nhid] & 0xffffffffu);
	rt->n_nh = (uint16_t)n;
	rt->op = IPC_ROUTE_ADD;
	return (0);
}

/* The same for an IPv6 prefix: one next hop (nh NULL: withdraw). */
static int
emit6(void *arg, const struct bgp_dest6 *dst, const struct lc_ip6 *nh)
{
	struct bgp_d *d = arg;
	struct bgp_ribc *c = &d->rc;
	struct ipc_route *rt;

	if (nh == NULL) {
		if (c->ndel6 == c->capdel6) {
			size_t ncap = c->capdel6 ? c->capdel6 * 2 : 256;
			struct lc_prefix6 *nd = realloc(c->del6,
			    ncap * sizeof(*nd));

			if (nd == NULL)
				return (-ENOMEM);
			c->del6 = nd;
			c->capdel6 = ncap;
		}
		c->del6[c->ndel6++] = dst->pfx;
		return (0);
	}
	if (ipc_route_set_reserve(&c->set, 1, 1) != 0)
		return (-ENOMEM);
	c->set.nh[c->set.nnh] = (struct ipc_route_nh){.family = AF_INET6};
	c->set.nh[c->set.nnh].addr.v6 = *nh;
	rt = &c->set.rt[c->set.n++];
	memset(rt, 0, sizeof(*rt));
	rt->family = AF_INET6;
	rt->pfx.v6 = dst->pfx.addr;
	rt->len = dst->pfx.len;
	rt->nh = (uint32_t)c->set.nnh++;
	rt->n_nh = 1;
	rt->op = IPC_ROUTE_ADD;
	return (0);
}

static size_t
pending(struct bgp_d *d)
{
	return (bgp_rib_pending(d->rib) + bgp_rib6_pending(d->rib6));
}

static void
send_batch(struct bgp_d *d)
{
	struct bgp_ribc *c = &d->rc;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	size_t n;
	int rv;

	c->batch++;
	ipc_route_set_clear(&c->set);
	c->ndel = 0;
	c->ndel6 = 0;
	n = bgp_rib_drain(d->rib, BATCH_MAX, emit, d);
	if (n < BATCH_MAX)
		n += bgp_rib6_drain(d->rib6, BATCH_MAX - n, emit6, d);
	if (n == 0 && c->set.n == 0 && c->ndel == 0 && c->ndel6 == 0)
		return;
	if (ipc_route_set_reserve(&c->set, c->ndel + c->ndel6, 0) != 0) {
		lc_log_err("rib: out of memory for a batch");
		return;
	}
	for (size_t i = 0; i < c->ndel; i++) {
		struct ipc_route *rt = &c->set.rt[c->set.n++];

		memset(rt, 0, sizeof(*rt));
		rt->family = AF_INET;
		rt->pfx.v4.s_addr = (uint32_t)(c->del[i] >> 8);
		rt->len = (uint8_t)c->del[i];
		rt->op = IPC_ROUTE_DEL;
	}
	for (size_t i = 0; i < c->ndel6; i++) {
		struct ipc_route *rt = &c->set.rt[c->set.n++];

		memset(rt, 0, sizeof(*rt));
		rt->family = AF_INET6;
		rt->pfx.v6 = c->del6[i].addr;
		rt->len = c->del6[i].len;
		rt->op = IPC_ROUTE_DEL;
	}
	if (c->set.n == 0)
		return;
	if ((rv = ipc_route_batch_encode(&c->enc, &b, &c->set, true)) != 0) {
		lc_log_err("rib: batch encoding: %s", strerror(-rv));
		return;
	}
	b.source = RIB__SOURCE__PROTOCOL;
	b.source_name = "bgp";
	b.seq = ++c->seq;
	b.distance = BGP_DISTANCE;
	b.grace_ms = d->gr_time * 1000;
	if ((rv = ipc_call(c->cl, RIB__METHOD__ROUTE_BATCH, &b.base, ack_cb, d,
		 30000)) != 0) {
		/* what was drained is lost for rib: send it all again */
		lc_log_warnx("rib: batch of %zu routes not sent: %s: resync",
		    c->set.n, strerror(-rv));
		c->need_resync = true;
		return;
	}
	c->inflight++;
	c->sent += c->set.n;
}

/* ---- next-hop tracking: rib's NH_WATCH and NH_CHANGED ---- */

#define NH_WATCH_MAX 1024 /* next hops per call */

static void
nh_apply(struct bgp_d *d, const Rib__NhStates *s)
{
	size_t marked = 0;

	for (size_t i = 0; i < s->n_states; i++) {
		const Rib__NhState *x = s->states[i];

		marked += bgp_rib_nh_set(d->rib, x->addr,
		    x->reachable ? BGP_NH_REACHABLE : BGP_NH_UNREACHABLE,
		    x->metric);
	}
	if (marked > 0)
		lc_log_info("rib: %zu next hops changed: %zu prefixes chosen "
			    "again",
		    s->n_states, marked);
}

static void
nh_watch_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct bgp_d *d = arg;

	if (status != IPC_OK) {
		/* a lost connection watches everything again (on_connect);
		 * a refusal (rib's limit) leaves those next hops unknown:
		 * taken as reachable, as without tracking */
		lc_log_warnx("rib: nh-watch failed: %s %s",
		    ipc_status_str(status), err->msg);
		return;
	}
	nh_apply(d, (const Rib__NhStates *)msg);
}

/* New next hops (or all, after a connect) to rib; true when a call went. */
static bool
nh_turn(struct bgp_d *d)
{
	struct bgp_ribc *c = &d->rc;
	uint32_t a[NH_WATCH_MAX];
	bool reset = false, any = false;
	size_t n;

	if (c->nh_rewatch) {
		bgp_rib_nh_rewatch(d->rib);
		c->nh_rewatch = false;
		reset = true;
	}
	while ((n = bgp_rib_nh_take(d->rib, a, NH_WATCH_MAX)) > 0 || reset) {
		Rib__NhWatch w = RIB__NH_WATCH__INIT;

		w.add = a;
		w.n_add = n;
		w.reset = reset;
		reset = false;
		if (ipc_call(c->cl, RIB__METHOD__NH_WATCH, &w.base, nh_watch_cb,
			d, 0) != 0) {
			c->nh_rewatch = true; /* those taken: all again */
			break;
		}
		any = true;
	}
	return (any);
}

static void
on_event(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    void *arg)
{
	(void)cl;
	if (method == RIB__METHOD__NH_CHANGED)
		nh_apply(arg, (const Rib__NhStates *)msg);
}

static void
on_resync(struct ipc_client *cl, uint64_t missed, void *arg)
{
	struct bgp_d *d = arg;

	(void)cl;
	lc_log_notice("rib: %llu next-hop events missed: watching again",
	    (unsigned long long)missed);
	d->rc.nh_rewatch = true;
}

static void
hook(void *arg)
{
	struct bgp_d *d = arg;
	struct bgp_ribc *c = &d->rc;
	bool any = false;

	/* a restart is over once every neighbour's routes are in (or the
	 * deferral time is): a neighbour lost later does not stall route
	 * selection again, and OPENs no longer carry the R bit */
	if (d->rc.restarting && routes_whole(d)) {
		d->rc.restarting = false;
		lc_log_notice("restart complete: End-of-RIB from every "
			      "neighbour%s",
		    d->rc.deferral_over ? " (or the deferral time over)" : "");
	}
	if (!ipc_client_connected(c->cl)) {
		bgp_adv_run(d);
		return;
	}
	if (c->need_resync) {
		c->need_resync = false;
		if (resync_call(d, true) != 0) {
			c->need_resync = true;
			return;
		}
		bgp_rib_resend_all(d->rib);
		bgp_rib6_resend_all(d->rib6);
		c->resyncing = true;
		any = true;
	}
	/* next hops before routes: their states arrive early */
	any |= nh_turn(d);
	/* a restarting speaker defers route selection until End-of-RIB
	 * from all (RFC 4724 4.1): rib forwards on the routes it kept, not
	 * on the first neighbour's alone */
	while (c->inflight < WINDOW && pending(d) > 0 && bgp_ribc_adv_ok(d)) {
		unsigned before = c->inflight;

		send_batch(d);
		if (c->inflight == before)
			break;
		any = true;
	}
	if (c->resyncing && pending(d) == 0 && routes_whole(d) &&
	    resync_call(d, false) == 0) {
		c->resyncing = false;
		any = true;
	}
	if (any)
		(void)ipc_client_flush(c->cl);
	bgp_adv_run(d);
}

static void
on_connect(struct ipc_client *cl, uint64_t gen, void *arg)
{
	struct bgp_d *d = arg;

	(void)cl;
	lc_log_info("rib connected (generation %llx): resync",
	    (unsigned long long)gen);
	d->rc.inflight = 0; /* what was in flight failed with the old one */
	d->rc.need_resync = true;
	d->rc.nh_rewatch = true;
}

static void
on_writable(struct ipc_client *cl, void *arg)
{
	(void)cl;
	(void)arg; /* the hook runs again before the loop blocks */
}

int
bgp_ribc_init(struct bgp_d *d, const struct ipc_opts *io)
{
	struct bgp_ribc *c = &d->rc;
	struct ipc_client_cbs cbs = {0};

	ipc_route_set_init(&c->set);
	ipc_route_enc_init(&c->enc);
	/* before the client's own hook, which flushes what this one queued */
	lc_loop_hook_start(d->loop, &c->hook, hook, d);
	if ((c->cl = ipc_client_new(d->loop, &ipc_svc_rib, io, false)) ==
	    NULL) {
		lc_loop_hook_stop(d->loop, &c->hook);
		return (-errno);
	}
	cbs.on_connect = on_connect;
	cbs.on_writable = on_writable;
	cbs.on_event = on_event;
	cbs.on_resync = on_resync;
	cbs.arg = d;
	ipc_client_set_cbs(c->cl, &cbs);
	c->started = ev_now(d->loop);
	ev_timer_init(&c->deferral, deferral_cb, d->gr_time, 0.0);
	c->deferral.data = d;
	ev_timer_start(d->loop, &c->deferral);
	ev_unref(d->loop);
	return (0);
}

void
bgp_ribc_deferral(struct bgp_d *d)
{
	struct bgp_ribc *c = &d->rc;

	if (c->deferral_over || !ev_is_active(&c->deferral))
		return;
	/* the configured restart time replaces the default one */
	ev_ref(d->loop);
	ev_timer_stop(d->loop, &c->deferral);
	ev_timer_set(&c->deferral,
	    d->gr_time - (ev_now(d->loop) - c->started) > 0 ?
		d->gr_time - (ev_now(d->loop) - c->started) :
		0.001,
	    0.0);
	ev_timer_start(d->loop, &c->deferral);
	ev_unref(d->loop);
}

void
bgp_ribc_fini(struct bgp_d *d)
{
	struct bgp_ribc *c = &d->rc;

	if (ev_is_active(&c->deferral)) {
		ev_ref(d->loop);
		ev_timer_stop(d->loop, &c->deferral);
	}
	lc_loop_hook_stop(d->loop, &c->hook);
	ipc_client_free(c->cl);
	c->cl = NULL;
	ipc_route_set_fini(&c->set);
	ipc_route_enc_fini(&c->enc);
	free(c->del);
	free(c->del6);
	free(c->run);
}
