/*
 * rib/rib_nht.c: next-hop tracking for tern-bgp (docs/rib.md "Next-hop
 * tracking"). A client's NH_WATCH names next hops; each is held as a
 * recursive next hop of the rib (rib_nh_watch) so it is resolved as routes
 * change, used by a route or not. Once per loop turn the watched states
 * are compared with what each watcher was last told, and the changes go to
 * it as one NH_CHANGED event. The table is small (distinct BGP next hops),
 * so a linear scan per turn is cheaper than bookkeeping on every change.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "rib_d_int.h"

static bool
state_eq(const struct rib_nh_state *a, const struct rib_nh_state *b)
{
	return (a->reachable == b->reachable && a->metric == b->metric &&
	    a->via_addr == b->via_addr && a->via_len == b->via_len);
}

static void
state_fill(Rib__NhState *m, uint32_t addr, const struct rib_nh_state *st)
{
	rib__nh_state__init(m);
	m->addr = addr;
	m->reachable = st->reachable;
	m->metric = st->metric;
	m->via_prefix = htonl(st->via_addr);
	m->via_len = st->via_len;
}

static struct rd_watch *
find(struct rib_d *d, struct ipc_peer *peer, uint32_t addr)
{
	for (size_t i = 0; i < d->nwatch; i++)
		if (d->watch[i].peer == peer && d->watch[i].addr == addr)
			return (&d->watch[i]);
	return (NULL);
}

static void
drop(struct rib_d *d, size_t i)
{
	rib_nh_unwatch(d->rib, d->watch[i].id);
	d->watch[i] = d->watch[--d->nwatch];
}

static void
h_nh_watch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct rib_d *d = arg;
	const Rib__NhWatch *w = (const Rib__NhWatch *)msg;
	struct ipc_peer *peer = ipc_req_peer(req);
	Rib__NhStates rep = RIB__NH_STATES__INIT;
	Rib__NhState *st, **sp;
	size_t n = 0;

	if (w->reset)
		for (size_t i = d->nwatch; i-- > 0;)
			if (d->watch[i].peer == peer)
				drop(d, i);
	for (size_t k = 0; k < w->n_del; k++)
		for (size_t i = 0; i < d->nwatch; i++)
			if (d->watch[i].peer == peer &&
			    d->watch[i].addr == w->del[k]) {
				drop(d, i);
				break;
			}
	lc_arena_reset(d->arena);
	st = lc_arena_alloc(d->arena, (w->n_add + 1) * sizeof(*st));
	sp = lc_arena_alloc(d->arena, (w->n_add + 1) * sizeof(*sp));
	if (st == NULL || sp == NULL) {
		(void)ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	for (size_t k = 0; k < w->n_add; k++) {
		struct rd_watch *x = find(d, peer, w->add[k]);
		uint32_t a = ntohl(w->add[k]);

		if (x == NULL) {
			uint32_t id;

			if (a == 0 || (a >> 24) == 127 || (a >> 28) >= 14) {
				(void)ipc_reply_error(req, IPC_BAD_REQUEST,
				    "nh-watch: %s is no unicast next hop",
				    inet_ntoa((struct in_addr){w->add[k]}));
				return;
			}
			if (d->nwatch >= RIB_D_WATCH_MAX) {
				(void)ipc_reply_error(req, IPC_NO_SPACE,
				    "nh-watch: %u next hops watched already",
				    RIB_D_WATCH_MAX);
				return;
			}
			if (d->nwatch == d->capwatch) {
				size_t c = d->capwatch ? d->capwatch * 2 : 64;
				struct rd_watch *nw = realloc(d->watch,
				    c * sizeof(*nw));

				if (nw == NULL) {
					(void)ipc_reply_error(req, IPC_ERROR,
					    "out of memory");
					return;
				}
				d->watch = nw;
				d->capwatch = c;
			}
			if ((id = rib_nh_watch(d->rib, a)) == 0) {
				(void)ipc_reply_error(req, IPC_ERROR,
				    "out of memory");
				return;
			}
			x = &d->watch[d->nwatch++];
			x->peer = peer;
			x->addr = w->add[k];
			x->id = id;
			/* the add may change nothing else in the rib: the
			 * resolution is there at once */
			rib_nh_state(d->rib, id, &x->told);
		}
		state_fill(&st[n], x->addr, &x->told);
		sp[n] = &st[n];
		n++;
	}
	rep.states = sp;
	rep.n_states = n;
	ipc_req_subscribe(req);
	(void)ipc_reply(req, IPC_OK, &rep.base);
}

void
rib_d_nht_turn(struct rib_d *d)
{
	struct ipc_peer *peer;
	size_t first = 0;

	/* watchers are few (tern-bgp): one pass per watcher with changes */
	for (;;) {
		Rib__NhStates ev = RIB__NH_STATES__INIT;
		Rib__NhState *st = NULL, **sp = NULL;
		size_t n = 0, cap = 0;
		struct rib_nh_state now;

		peer = NULL;
		for (size_t i = first; i < d->nwatch; i++) {
			struct rd_watch *x = &d->watch[i];

			if (peer != NULL && x->peer != peer)
				continue;
			rib_nh_state(d->rib, x->id, &now);
			if (state_eq(&now, &x->told))
				continue;
			if (peer == NULL) {
				peer = x->peer;
				first = i + 1;
				lc_arena_reset(d->arena);
			}
			if (n == cap) {
				size_t c = cap ? cap * 2 : 16;
				Rib__NhState *ns = lc_arena_alloc(d->arena,
				    c * sizeof(*ns));
				Rib__NhState **nsp = lc_arena_alloc(d->arena,
				    c * sizeof(*nsp));

				if (ns == NULL || nsp == NULL)
					return; /* told at a later turn */
				if (n > 0)
					memcpy(ns, st, n * sizeof(*ns));
				for (size_t k = 0; k < n; k++)
					nsp[k] = &ns[k];
				st = ns;
				sp = nsp;
				cap = c;
			}
			state_fill(&st[n], x->addr, &now);
			sp[n] = &st[n];
			n++;
			x->told = now;
		}
		if (peer == NULL)
			return;
		ev.states = sp;
		ev.n_states = n;
		/* a watcher that misses it sees a gap and watches again */
		(void)ipc_peer_send_event(peer, RIB__METHOD__NH_CHANGED,
		    &ev.base);
	}
}

void
rib_d_nht_peer_gone(struct rib_d *d, struct ipc_peer *peer)
{
	for (size_t i = d->nwatch; i-- > 0;)
		if (d->watch[i].peer == peer)
			drop(d, i);
}

void
rib_d_nht_init(struct rib_d *d)
{
	ipc_server_handle(d->srv, RIB__METHOD__NH_WATCH, h_nh_watch, d);
}

void
rib_d_nht_fini(struct rib_d *d)
{
	while (d->nwatch > 0)
		drop(d, d->nwatch - 1);
	free(d->watch);
	d->watch = NULL;
	d->capwatch = 0;
}
