/* bgp/bgp_adv6.c: what tern-bgp advertises of IPv6 unicast (docs/bgp.md
 * "IPv6 unicast"): as bgp_adv.c does for IPv4, each neighbour with IPv6
 * negotiated gets an Adj-RIB-Out of IPv6 prefixes that follows the best
 * paths of bgp_rib6.c: the whole table walked when the session comes up,
 * End-of-RIB for AFI 2 after it (RFC 4724 2: an UPDATE with an empty
 * MP_UNREACH_NLRI), then the prefixes chosen again. The export decision
 * is bgp_adv.c's (bgp_adv_export), with our IPv6 next hop: the
 * neighbour's `local-address6`, or nothing to eBGP without one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "libcommon/lc_log.h"

#include "bgp_int.h"
#include "bgp_msg.h"

#define CHUNK	 256
#define ROOM_MIN (128u << 10)

struct adj6 {
	struct adj6 *next;
	struct lc_prefix6 pfx;
	struct bgp_aset *set;
};

struct bgp_adv6 {
	struct adj6 **slot; /* the Adj-RIB-Out */
	uint32_t cap;
	size_t n;
	struct lc_prefix6 *q; /* prefixes to judge again */
	size_t qh, qn, qcap;
	uint64_t cursor; /* the walk of the whole table */
	bool walk, eor_sent;
};

static uint32_t
h6(const struct lc_prefix6 *p, uint32_t cap)
{
	return ((uint32_t)bgp_hash(p->addr.b, 16, p->len) & (cap - 1));
}

static struct adj6 **
adj_ref(struct bgp_adv6 *a, const struct lc_prefix6 *p)
{
	struct adj6 **e = &a->slot[h6(p, a->cap)];

	for (; *e != NULL; e = &(*e)->next)
		if ((*e)->pfx.len == p->len &&
		    memcmp((*e)->pfx.addr.b, p->addr.b, 16) == 0)
			break;
	return (e);
}

static void
adj_clear(struct bgp_adv6 *a, struct bgp_intern *t)
{
	for (uint32_t i = 0; i < a->cap; i++) {
		struct adj6 *e = a->slot[i], *n;

		for (; e != NULL; e = n) {
			n = e->next;
			bgp_aset_unref(t, e->set);
			free(e);
		}
		a->slot[i] = NULL;
	}
	a->n = 0;
}

static void
adj_grow(struct bgp_adv6 *a)
{
	uint32_t ncap = a->cap * 2;
	struct adj6 **ns = calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return;
	for (uint32_t i = 0; i < a->cap; i++) {
		struct adj6 *e = a->slot[i], *n;

		for (; e != NULL; e = n) {
			uint32_t h = h6(&e->pfx, ncap);

			n = e->next;
			e->next = ns[h];
			ns[h] = e;
		}
	}
	free(a->slot);
	a->slot = ns;
	a->cap = ncap;
}

static int
q_push(struct bgp_adv6 *a, const struct lc_prefix6 *p)
{
	if (a->qn == a->qcap) {
		struct lc_prefix6 *n;
		size_t ncap;

		if (a->qh > 0) {
			memmove(a->q, a->q + a->qh,
			    (a->qn - a->qh) * sizeof(*n));
			a->qn -= a->qh;
			a->qh = 0;
		}
		if (a->qn == a->qcap) {
			ncap = a->qcap ? a->qcap * 2 : 256;
			if ((n = realloc(a->q, ncap * sizeof(*n))) == NULL)
				return (-ENOMEM);
			a->q = n;
			a->qcap = ncap;
		}
	}
	a->q[a->qn++] = *p;
	return (0);
}

static void
notify6(void *arg, const struct bgp_dest6 *dst)
{
	struct bgp_d *d = arg;

	for (unsigned i = 0; i < d->npeers; i++) {
		struct bgp_peer *p = d->peers[i];

		if (p->state != BGP_ESTABLISHED || p->adv6 == NULL)
			continue;
		if (q_push(p->adv6, &dst->pfx) != 0)
			p->adv6->walk = true; /* lost one: judge them all */
	}
}

void
bgp_adv6_init(struct bgp_d *d)
{
	bgp_rib6_set_notify(d->rib6, notify6, d);
}

void
bgp_adv6_stop(struct bgp_peer *p)
{
	struct bgp_adv6 *a = p->adv6;

	if (a == NULL)
		return;
	adj_clear(a, p->d->intern);
	free(a->slot);
	free(a->q);
	free(a);
	p->adv6 = NULL;
}

void
bgp_adv6_start(struct bgp_peer *p)
{
	struct bgp_adv6 *a;

	bgp_adv6_stop(p);
	if (!(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV6)))
		return;
	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->slot = calloc(64, sizeof(*a->slot))) == NULL) {
		free(a);
		lc_log_err("neighbor %s: out of memory: no IPv6 routes sent",
		    inet_ntoa((struct in_addr){p->c.addr}));
		return;
	}
	a->cap = 64;
	a->walk = true;
	p->adv6 = a;
}

void
bgp_adv6_again(struct bgp_peer *p)
{
	if (p->adv6 != NULL) {
		p->adv6->cursor = 0;
		p->adv6->walk = true;
	}
}

void
bgp_adv6_refresh(struct bgp_peer *p)
{
	if (p->adv6 == NULL)
		return;
	adj_clear(p->adv6, p->d->intern);
	bgp_adv6_again(p);
}

size_t
bgp_adv6_count(const struct bgp_peer *p)
{
	return (p->adv6 != NULL ? p->adv6->n : 0);
}

bool
bgp_adv6_busy(const struct bgp_peer *p)
{
	const struct bgp_adv6 *a = p->adv6;

	return (a != NULL && (a->walk || a->qh < a->qn || !a->eor_sent));
}

/* The route to send to p for prefix pfx (NULL: none). */
static struct bgp_aset *
export6(struct bgp_peer *p, const struct lc_prefix6 *pfx)
{
	const struct bgp_dest6 *dst = bgp_rib6_find(p->d->rib6, pfx);
	const struct bgp_path6 *b = dst != NULL ? bgp_rib6_best(dst) : NULL;
	struct bgp_policy_route rt;

	if (b == NULL)
		return (NULL);
	memset(&rt, 0, sizeof(rt));
	rt.af = BGP_AF_IPV6;
	rt.p6 = *pfx;
	return (bgp_adv_export(p, b->peer, b->set, &rt,
	    p->c.has_local6 ? &p->c.local_addr6 : NULL));
}

struct ann6 {
	struct bgp_aset *set;
	struct lc_prefix6 pfx;
};

static int
ann6_cmp(const void *x, const void *y)
{
	const struct ann6 *a = x, *b = y;

	return (a->set < b->set ? -1 : a->set > b->set);
}

/* One chunk of prefixes judged and sent: 1 when there may be more, 0 when
 * there is nothing left, -ENOBUFS. */
static int
chunk6(struct bgp_peer *p, struct bgp_conn *c)
{
	struct bgp_d *d = p->d;
	struct bgp_adv6 *a = p->adv6;
	struct bgp_upd_builder *u = &d->upd;
	struct ann6 an[CHUNK];
	struct lc_prefix6 wd[CHUNK];
	unsigned na = 0, nw = 0, taken = 0;
	int rv = 0;

	while (taken < CHUNK) {
		struct lc_prefix6 pfx;
		struct adj6 **ep, *ent;
		struct bgp_aset *e;

		if (a->qh < a->qn) {
			pfx = a->q[a->qh++];
		} else if (a->walk) {
			const struct bgp_dest6 *dst = bgp_rib6_next(d->rib6,
			    &a->cursor);

			if (dst == NULL) {
				a->walk = false;
				a->cursor = 0;
				continue;
			}
			pfx = dst->pfx;
		} else {
			break;
		}
		taken++;
		e = export6(p, &pfx);
		ep = adj_ref(a, &pfx);
		if (e == ((ent = *ep) != NULL ? ent->set : NULL)) {
			if (e != NULL)
				bgp_aset_unref(d->intern, e);
			continue;
		}
		if (e == NULL) {
			*ep = ent->next;
			bgp_aset_unref(d->intern, ent->set);
			free(ent);
			a->n--;
			wd[nw++] = pfx;
			continue;
		}
		if (ent == NULL) {
			if ((ent = calloc(1, sizeof(*ent))) == NULL) {
				bgp_aset_unref(d->intern, e);
				continue;
			}
			ent->pfx = pfx;
			*ep = ent;
			if (++a->n > a->cap)
				adj_grow(a);
		} else {
			bgp_aset_unref(d->intern, ent->set);
		}
		ent->set = bgp_aset_ref(e);
		an[na++] = (struct ann6){e, pfx};
	}
	if (taken == 0)
		return (0);
	if (a->qh == a->qn)
		a->qh = a->qn = 0;
	bgp_upd_init(u, &p->codec, BGP_AF_IPV6);
	for (unsigned i = 0; i < nw && rv == 0; i++) {
		if (bgp_upd_withdraw(u, wd[i].addr.b, wd[i].len) == -ENOSPC) {
			rv = bgp_adv_put(p, c);
			(void)bgp_upd_withdraw(u, wd[i].addr.b, wd[i].len);
		}
	}
	if (rv == 0)
		rv = bgp_adv_put(p, c);
	qsort(an, na, sizeof(*an), ann6_cmp);
	for (unsigned i = 0; i < na && rv == 0; i++) {
		if (i == 0 || an[i].set != an[i - 1].set) {
			struct bgp_attrs at;

			if ((rv = bgp_adv_put(p, c)) != 0)
				break;
			if (bgp_aset_attrs(an[i].set, &at) != 0 ||
			    bgp_upd_set_attrs(u, &at) != 0) {
				lc_log_warnx("neighbor %s: an IPv6 route's "
					     "attributes do not fit an UPDATE",
				    inet_ntoa((struct in_addr){p->c.addr}));
				while (i + 1 < na && an[i + 1].set == an[i].set)
					i++;
				continue;
			}
		}
		if (bgp_upd_announce(u, an[i].pfx.addr.b, an[i].pfx.len) ==
		    -ENOSPC) {
			rv = bgp_adv_put(p, c);
			(void)bgp_upd_announce(u, an[i].pfx.addr.b,
			    an[i].pfx.len);
		}
	}
	if (rv == 0)
		rv = bgp_adv_put(p, c);
	for (unsigned i = 0; i < na; i++)
		bgp_aset_unref(d->intern, an[i].set);
	return (rv != 0 ? rv : 1);
}

int
bgp_adv6_run_peer(struct bgp_peer *p, struct bgp_conn *c)
{
	struct bgp_adv6 *a = p->adv6;
	int rv = 0;

	if (a == NULL)
		return (0);
	while (bgp_conn_room(c) >= ROOM_MIN && (rv = chunk6(p, c)) == 1)
		;
	if (rv < 0)
		return (rv);
	if (rv == 0 && !a->eor_sent) {
		uint8_t eor[64];
		int n = bgp_eor_encode(eor, sizeof(eor), BGP_AF_IPV6);

		if (n > 0 && bgp_conn_put(c, eor, (size_t)n) == 0)
			a->eor_sent = true;
	}
	return (rv == 1 || !a->eor_sent);
}
