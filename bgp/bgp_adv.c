/* bgp/bgp_adv.c: what tern-bgp advertises (docs/bgp.md, "Advertising"):
 * each neighbour's Adj-RIB-Out follows the best paths.
 *
 * Prefixes whose best path was chosen again (bgp_rib.c's notify, once per
 * loop turn) go on each Established neighbour's queue; a new session walks
 * the whole table first. Once per loop turn, while the session's send
 * buffer has room, a chunk of prefixes is judged: the route to send (or
 * none), compared with the Adj-RIB-Out by interned set, so only changes
 * travel; the chunk's announcements are sorted by set so that prefixes
 * sharing attributes share an UPDATE, and the whole chunk goes in one
 * send(). End-of-RIB follows the first full walk (RFC 4724 2).
 *
 * The route to send: the best path, not back to the neighbour it came
 * from, not from iBGP to iBGP (no route reflection), not against RFC 1997's
 * well-known communities; RFC 8212: to eBGP only through an export policy;
 * the policy's result, then the protocol's rules: to eBGP our AS
 * prepended, the next hop ours, no MED unless the policy set one, no
 * LOCAL_PREF (the encoder drops it); to iBGP LOCAL_PREF present, the next
 * hop ours with next-hop-self.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "libcommon/lc_log.h"

#include "bgp_int.h"
#include "bgp_msg.h"

#define CHUNK	       256
#define ROOM_MIN       (128u << 10) /* send buffer room before a chunk */
#define SENDS_PER_TURN 8	    /* buffers filled and sent per loop turn */

static int
q_push(struct bgp_peer *p, uint64_t k)
{
	if (p->advq_n == p->advq_cap) {
		size_t ncap;
		uint64_t *n;

		if (p->advq_h > 0) {
			memmove(p->advq, p->advq + p->advq_h,
			    (p->advq_n - p->advq_h) * sizeof(*n));
			p->advq_n -= p->advq_h;
			p->advq_h = 0;
		}
		if (p->advq_n == p->advq_cap) {
			ncap = p->advq_cap ? p->advq_cap * 2 : 1024;
			if ((n = realloc(p->advq, ncap * sizeof(*n))) == NULL)
				return (-ENOMEM);
			p->advq = n;
			p->advq_cap = ncap;
		}
	}
	p->advq[p->advq_n++] = k;
	return (0);
}

static void
notify(void *arg, const struct bgp_dest *dst)
{
	struct bgp_d *d = arg;

	for (unsigned i = 0; i < d->npeers; i++) {
		struct bgp_peer *p = d->peers[i];

		/* a walk still to reach it sends it then */
		if (p->state != BGP_ESTABLISHED || !p->adv_on)
			continue;
		if (q_push(p, (uint64_t)dst->addr << 8 | dst->len) != 0)
			p->adv_lost = true;
	}
}

void
bgp_adv_init(struct bgp_d *d)
{
	bgp_rib_set_notify(d->rib, notify, d);
}

void
bgp_adv_start(struct bgp_peer *p, uint32_t local_addr)
{
	bgp_adj_clear(&p->out, p->d->intern);
	p->advq_h = p->advq_n = 0;
	p->adv_cursor = 0;
	p->adv_walk = true;
	p->adv_on = true;
	p->adv_lost = false;
	p->eor_sent = false;
	p->local_ip = local_addr;
	p->pfx_adv = 0;
}

void
bgp_adv_stop(struct bgp_peer *p)
{
	bgp_adj_clear(&p->out, p->d->intern);
	free(p->advq);
	p->advq = NULL;
	p->advq_h = p->advq_n = p->advq_cap = 0;
	p->adv_on = false;
	p->pfx_adv = 0;
}

void
bgp_adv_again(struct bgp_peer *p)
{
	if (!p->adv_on)
		return;
	p->adv_cursor = 0;
	p->adv_walk = true;
}

void
bgp_adv_refresh(struct bgp_peer *p)
{
	if (!p->adv_on)
		return;
	/* forgotten, so that the walk sends every route again */
	bgp_adj_clear(&p->out, p->d->intern);
	p->pfx_adv = 0;
	p->adv_cursor = 0;
	p->adv_walk = true;
}

struct bgp_aset *
bgp_adv_export(struct bgp_peer *p, unsigned from_id, struct bgp_aset *bset,
    const struct bgp_policy_route *rt0, const struct lc_ip6 *nh6)
{
	struct bgp_d *d = p->d;
	const struct bgp_rib_peer *from;
	struct bgp_policy_peer pp;
	struct bgp_policy_route rt;
	struct bgp_aset *s = NULL, *e;
	struct bgp_attrs a;
	uint32_t las = p->c.local_as ? p->c.local_as : d->local_as;
	bool v6 = rt0->af == BGP_AF_IPV6;
	int n;

	if (from_id == p->id)
		return (NULL);
	from = bgp_rib_peer_get(d->rib, from_id);
	if (!from->ebgp && !p->codec.ebgp)
		return (NULL);
	/* IPv6 to eBGP, or with next-hop-self: our IPv6 address needed */
	if (v6 && nh6 == NULL && (p->codec.ebgp || p->c.next_hop_self))
		return (NULL);
	pp = (struct bgp_policy_peer){p->c.addr, p->c.remote_as, las,
	    p->codec.ebgp};
	if (!bgp_policy_export_ok(bset, &pp))
		return (NULL);
	if (p->exp == NULL) {
		if (p->codec.ebgp)
			return (NULL); /* RFC 8212 */
		s = bgp_aset_ref(bset);
	} else {
		rt = *rt0;
		rt.set = bset;
		rt.from = from->addr;
		if (bgp_policy_eval(p->exp, BGP_POL_EXPORT, &pp, &rt, d->pscr,
			&s) != BGP_POLICY_ACCEPT)
			return (NULL);
	}
	if (bgp_aset_attrs(s, &a) != 0) {
		bgp_aset_unref(d->intern, s);
		return (NULL);
	}
	if (p->codec.ebgp) {
		n = bgp_aspath_prepend(a.aspath, a.aspath_len, las, 1,
		    d->adv_path, sizeof(d->adv_path));
		if (n < 0) {
			bgp_aset_unref(d->intern, s);
			return (NULL);
		}
		a.aspath = d->adv_path;
		a.aspath_len = (uint16_t)n;
		a.nexthop.s_addr = p->local_ip;
		/* RFC 4271 5.1.4: a MED is not passed on to another AS,
		 * unless the export policy set it */
		if (s == bset)
			a.present &= ~BGP_ABIT(BGP_ATTR_MED);
	} else {
		if (p->c.next_hop_self)
			a.nexthop.s_addr = p->local_ip;
		if (!(a.present & BGP_ABIT(BGP_ATTR_LOCAL_PREF))) {
			a.present |= BGP_ABIT(BGP_ATTR_LOCAL_PREF);
			a.local_pref = s->local_pref;
		}
	}
	if (v6 && a.mp_reach.nh_len > 16)
		a.mp_reach.nh_len = 16; /* a link-local one stays on its link */
	if (v6 && (p->codec.ebgp || p->c.next_hop_self)) {
		/* our global address alone (RFC 2545 3: no link-local one
		 * across a session that is not on that link's addresses) */
		a.mp_reach.nh = nh6->b;
		a.mp_reach.nh_len = 16;
	}
	n = bgp_attr_canon(&a, (enum bgp_af)rt0->af, d->canon,
	    sizeof(d->canon));
	e = n > 0 ? bgp_intern_get(d->intern, d->canon, (size_t)n) : NULL;
	bgp_aset_unref(d->intern, s);
	return (e);
}

/* The route to advertise to p for dst: a set with a reference, or NULL. */
static struct bgp_aset *
export_of(struct bgp_peer *p, const struct bgp_dest *dst)
{
	const struct bgp_path *b = bgp_rib_best(p->d->rib, dst);
	struct bgp_policy_route rt;

	if (b == NULL)
		return (NULL);
	memset(&rt, 0, sizeof(rt));
	rt.af = BGP_AF_IPV4;
	rt.p4.addr.s_addr = dst->addr;
	rt.p4.len = dst->len;
	return (bgp_adv_export(p, b->peer, b->set, &rt, NULL));
}

struct ann {
	struct bgp_aset *set;
	uint32_t addr;
	uint8_t len;
};

static int
ann_cmp(const void *x, const void *y)
{
	const struct ann *a = x, *b = y;

	return (a->set < b->set ? -1 : a->set > b->set);
}

/* The builder's message into the send buffer: 0, or -ENOBUFS. */
int
bgp_adv_put(struct bgp_peer *p, struct bgp_conn *c)
{
	const uint8_t *m;
	size_t len = bgp_upd_finish(&p->d->upd, &m);

	if (len == 0)
		return (0);
	p->updates_out++;
	return (bgp_conn_put(c, m, len));
}

/* One chunk: 1 when there may be more, 0 when the peer has nothing left,
 * -ENOBUFS when the send buffer overflowed (the session is reset). */
static int
chunk(struct bgp_peer *p, struct bgp_conn *c)
{
	struct bgp_d *d = p->d;
	struct bgp_upd_builder *u = &d->upd;
	struct ann an[CHUNK];
	uint64_t wd[CHUNK];
	unsigned na = 0, nw = 0, taken = 0;
	int rv = 0;

	while (taken < CHUNK) {
		const struct bgp_dest *dst;
		struct bgp_aset *e, *old;
		uint32_t addr;
		uint8_t len;

		if (p->advq_h < p->advq_n) {
			uint64_t k = p->advq[p->advq_h++];

			addr = (uint32_t)(k >> 8);
			len = (uint8_t)k;
			dst = bgp_rib_find(d->rib, addr, len);
		} else if (p->adv_walk) {
			if ((dst = bgp_rib_next(d->rib, &p->adv_cursor)) ==
			    NULL) {
				p->adv_walk = false;
				continue;
			}
			addr = dst->addr;
			len = dst->len;
		} else {
			break;
		}
		taken++;
		e = dst != NULL ? export_of(p, dst) : NULL;
		old = bgp_adj_get(&p->out, addr, len);
		if (e == old) {
			if (e != NULL)
				bgp_aset_unref(d->intern, e);
			continue;
		}
		if (e == NULL) {
			(void)bgp_adj_del(&p->out, d->intern, addr, len);
			wd[nw++] = (uint64_t)addr << 8 | len;
			continue;
		}
		if (bgp_adj_set(&p->out, d->intern, addr, len, e) < 0) {
			bgp_aset_unref(d->intern, e);
			p->adv_lost = true;
			continue;
		}
		an[na++] = (struct ann){e, addr, len};
	}
	if (taken == 0)
		return (0);
	if (p->advq_h == p->advq_n)
		p->advq_h = p->advq_n = 0;
	bgp_upd_init(u, &p->codec, BGP_AF_IPV4);
	for (unsigned i = 0; i < nw && rv == 0; i++) {
		uint32_t a = (uint32_t)(wd[i] >> 8);

		if (bgp_upd_withdraw(u, &a, (unsigned)(wd[i] & 0xff)) ==
		    -ENOSPC) {
			rv = bgp_adv_put(p, c);
			(void)bgp_upd_withdraw(u, &a, (unsigned)(wd[i] & 0xff));
		}
	}
	if (rv == 0)
		rv = bgp_adv_put(p, c);
	qsort(an, na, sizeof(*an), ann_cmp);
	for (unsigned i = 0; i < na && rv == 0; i++) {
		if (i == 0 || an[i].set != an[i - 1].set) {
			struct bgp_attrs a;

			if ((rv = bgp_adv_put(p, c)) != 0)
				break;
			if (bgp_aset_attrs(an[i].set, &a) != 0 ||
			    bgp_upd_set_attrs(u, &a) != 0) {
				/* cannot be encoded for this session: left
				 * out, and out of the Adj-RIB-Out */
				lc_log_warnx("neighbor %s: a route's "
					     "attributes do not fit an UPDATE",
				    inet_ntoa((struct in_addr){p->c.addr}));
				while (i + 1 < na && an[i + 1].set == an[i].set)
					i++;
				continue;
			}
		}
		if (bgp_upd_announce(u, &an[i].addr, an[i].len) == -ENOSPC) {
			rv = bgp_adv_put(p, c);
			(void)bgp_upd_announce(u, &an[i].addr, an[i].len);
		}
	}
	if (rv == 0)
		rv = bgp_adv_put(p, c);
	for (unsigned i = 0; i < na; i++)
		bgp_aset_unref(d->intern, an[i].set);
	p->pfx_adv = p->out.n;
	return (rv != 0 ? rv : 1);
}

static void
run_peer(struct bgp_peer *p)
{
	struct bgp_conn *c = bgp_peer_conn(p);
	bool sent = false;
	int rv = 1;

	if (c == NULL)
		return;
	/* fill, send, again while the socket takes it all, a bounded number
	 * of times per loop turn; more left: a turn as soon as the socket
	 * is writable (nothing else may wake the loop: a whole table used to
	 * go out at the pace of unrelated events, 28 s for 1M) */
	for (unsigned k = 0; k < SENDS_PER_TURN; k++) {
		while (bgp_conn_room(c) >= ROOM_MIN && (rv = chunk(p, c)) == 1)
			sent = true;
		if (rv != 1)
			break;
		bgp_conn_send(c);
		sent = false;
		if ((c = bgp_peer_conn(p)) == NULL)
			return; /* the send failed: the session is gone */
		if (bgp_conn_room(c) < ROOM_MIN)
			break; /* the socket is full: its watcher is on */
	}
	if (rv < 0) {
		bgp_peer_reset(p, "send buffer full while advertising");
		return;
	}
	if (rv == 1)
		bgp_conn_poll_write(c);
	if (rv == 0 && !p->eor_sent) {
		uint8_t eor[32];
		int n = bgp_eor_encode(eor, sizeof(eor), BGP_AF_IPV4);

		if (n > 0 && bgp_conn_put(c, eor, (size_t)n) == 0) {
			p->eor_sent = true;
			sent = true;
		}
	}
	if (sent)
		bgp_conn_send(c);
}

void
bgp_adv_run(struct bgp_d *d)
{
	if (!bgp_ribc_adv_ok(d))
		return;
	for (unsigned i = 0; i < d->npeers; i++) {
		struct bgp_peer *p = d->peers[i];

		struct bgp_conn *c;
		int rv;

		if (p->state == BGP_ESTABLISHED && p->adv_on)
			run_peer(p);
		/* IPv6 unicast after IPv4's turn, in the room it left */
		if (p->state != BGP_ESTABLISHED || p->adv6 == NULL ||
		    (c = bgp_peer_conn(p)) == NULL)
			continue;
		if ((rv = bgp_adv6_run_peer(p, c)) < 0) {
			bgp_peer_reset(p, "send buffer full while advertising");
			continue;
		}
		bgp_conn_send(c);
		if (rv == 1 && (c = bgp_peer_conn(p)) != NULL)
			bgp_conn_poll_write(c);
	}
}

bool
bgp_adv_busy(const struct bgp_d *d)
{
	for (unsigned i = 0; i < d->npeers; i++) {
		const struct bgp_peer *p = d->peers[i];

		if (p->state == BGP_ESTABLISHED && p->adv_on &&
		    (p->adv_walk || p->advq_h < p->advq_n || !p->eor_sent))
			return (true);
		if (p->state == BGP_ESTABLISHED && bgp_adv6_busy(p))
			return (true);
	}
	return (false);
}
