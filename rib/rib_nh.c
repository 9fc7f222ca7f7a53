/* rib/rib_nh.c: interned next hops, next-hop sets and resolved sets, and recursive next-hop resolution. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_err.h"
#include "rib_int.h"

/*
 * A next hop with an interface is direct: it resolves to itself while the
 * interface is up. A next hop without one is recursive: it resolves through
 * the longest prefix with routes covering it ("via"), to that prefix's
 * wanted FIB set, an attached hop (0.0.0.0 on ifX) becoming (gateway, ifX).
 * No fallback to a shorter prefix when the longest one is unusable: that
 * makes resolution a function of the routes, so it cannot oscillate between
 * covering prefixes. A resolution whose chain (through the selected routes
 * of each via prefix) comes back to the next hop itself is a loop and is
 * refused, as is one deeper than conf.recursion_max. A next hop whose
 * resolution changes more than RIB_NH_FLIP_MAX times in one processing round
 * (mutual recursion through alternative routes) is frozen unresolved for the
 * round, which bounds every round.
 */

struct rib_nh *
rib_nh(const struct rib *rib, uint32_t id)
{
	return (rib_otab_get(&rib->nhs, id));
}

struct rib_grp *
rib_grp(const struct rib *rib, uint32_t id)
{
	return (rib_otab_get(&rib->grps, id));
}

struct rib_fibgrp *
rib_fg(const struct rib *rib, uint32_t id)
{
	return (rib_otab_get(&rib->fgs, id));
}

/* IPv4 before IPv6, then by address, then interface */
static int
rib_hop_cmp(const void *a, const void *b)
{
	const struct rib_nexthop *x = a, *y = b;
	uint32_t xa = ntohl(x->addr.s_addr), ya = ntohl(y->addr.s_addr);
	int c;

	if (x->family != y->family)
		return (x->family < y->family ? -1 : 1);
	if (xa != ya)
		return (xa < ya ? -1 : 1);
	if (x->family == AF_INET6 &&
	    (c = memcmp(&x->addr6, &y->addr6, sizeof(x->addr6))) != 0)
		return (c);
	if (x->ifindex != y->ifindex)
		return (x->ifindex < y->ifindex ? -1 : 1);
	return (0);
}

/* one form per hop, so that hop arrays compare with memcmp: family 0 for
 * IPv4 with addr6 zero, addr zero for IPv6 */
static void
rib_hops_clean(struct rib_nexthop *h, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (h[i].family == AF_INET6)
			h[i].addr.s_addr = 0;
		else {
			h[i].family = 0;
			memset(&h[i].addr6, 0, sizeof(h[i].addr6));
		}
}

/* sort and deduplicate in place; returns the new count */
static unsigned
rib_hops_norm(struct rib_nexthop *h, unsigned n)
{
	unsigned i, k;

	rib_hops_clean(h, n);
	if (n > 1)
		qsort(h, n, sizeof(*h), rib_hop_cmp);
	for (i = k = 0; i < n; i++)
		if (k == 0 || rib_hop_cmp(&h[k - 1], &h[i]) != 0)
			h[k++] = h[i];
	return (k);
}

static uint32_t
rib_hops_hash(uint8_t type, const struct rib_nexthop *h, unsigned n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (type + 1);

	for (unsigned i = 0; i < n; i++) {
		uint64_t a = h[i].addr.s_addr;

		if (h[i].family == AF_INET6) {
			uint64_t hi, lo;

			memcpy(&hi, h[i].addr6.b, 8);
			memcpy(&lo, h[i].addr6.b + 8, 8);
			a = rib_hash32(hi) ^ ((uint64_t)rib_hash32(lo) << 32);
		}
		x = (x ^ ((a << 32) | h[i].ifindex) ^ (a >> 32)) *
			0x100000001b3ULL +
		    (x >> 29);
	}
	return (rib_hash32(x ^ n));
}

/* ---- fib groups ---------------------------------------------------------- */

static uint32_t
rib_fg_new(struct rib *rib, uint8_t type, const struct rib_nexthop *h,
    unsigned n, uint32_t hash)
{
	struct rib_fibgrp *fg = malloc(sizeof(*fg) + n * sizeof(*h));
	uint32_t id;

	if (fg == NULL)
		return (0);
	fg->h.hash = hash;
	fg->refcnt = 1;
	fg->type = type;
	fg->n = (uint16_t)n;
	if (n > 0)
		memcpy(fg->hop, h, n * sizeof(*h));
	if ((id = rib_otab_add(&rib->fgs, fg)) == 0)
		free(fg);
	return (id);
}

uint32_t
rib_fg_get(struct rib *rib, uint8_t type, struct rib_nexthop *h, unsigned n)
{
	uint32_t id = rib_fg_intern(rib, type, h, n, rib->conf.ecmp_width);

	/*
	 * Resolution has no request to refuse: a set it could not store would
	 * make its routes unreachable without a word.
	 */
	if (id == RIB_FG_NONE && n > 0)
		lc_oom("rib resolved next-hop set");
	return (id);
}

uint32_t
rib_fg_intern(struct rib *rib, uint8_t type, struct rib_nexthop *h, unsigned n,
    unsigned cap)
{
	uint32_t hash, id;

	if (type == RIB_RT_BLACKHOLE)
		return (RIB_FG_BLACKHOLE);
	if (type == RIB_RT_REJECT)
		return (RIB_FG_REJECT);
	n = rib_hops_norm(h, n);
	if (n == 0)
		return (RIB_FG_NONE);
	if (n > cap)
		n = cap; /* the lowest addresses win */
	hash = rib_hops_hash(type, h, n);
	for (id = rib_otab_first(&rib->fgs, hash); id != 0;) {
		struct rib_fibgrp *fg = rib_fg(rib, id);

		if (fg->h.hash == hash && fg->type == type && fg->n == n &&
		    memcmp(fg->hop, h, n * sizeof(*h)) == 0) {
			fg->refcnt++;
			return (id);
		}
		id = fg->h.hnext;
	}
	return (rib_fg_new(rib, type, h, n, hash));
}

void
rib_fg_ref(struct rib *rib, uint32_t id)
{
	if (id > RIB_FG_REJECT)
		rib_fg(rib, id)->refcnt++;
}

void
rib_fg_unref(struct rib *rib, uint32_t id)
{
	if (id > RIB_FG_REJECT && --rib_fg(rib, id)->refcnt == 0)
		rib_otab_del(&rib->fgs, id);
}

uint32_t
rib_fg_merge(struct rib *rib, const uint32_t *ids, unsigned n)
{
	struct rib_nexthop *h = rib->hscratch;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct rib_fibgrp *fg = rib_fg(rib, ids[i]);

		for (unsigned j = 0; j < fg->n && k < RIB_NH_MAX * RIB_NH_MAX;
		     j++)
			h[k++] = fg->hop[j];
	}
	return (rib_fg_get(rib, RIB_RT_UNICAST, h, k));
}

/* ---- next hops ----------------------------------------------------------- */

static bool
rib_if_up_int(const struct rib *rib, uint32_t ifindex)
{
	return (ifindex < rib->ifcap &&
	    ((rib->ifup[ifindex >> 6] >> (ifindex & 63)) & 1));
}

/* first index in rnh whose address is >= addr */
static uint32_t
rib_rnh_lower(const struct rib *rib, uint32_t addr)
{
	uint32_t lo = 0, hi = rib->n_rnh;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (rib_nh(rib, rib->rnh[mid])->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* IPv6: first index in rnh6 whose address is >= a */
static uint32_t
rib_rnh6_lower(const struct rib *rib, const struct lc_ip6 *a)
{
	uint32_t lo = 0, hi = rib->n_rnh6;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (memcmp(&rib_nh(rib, rib->rnh6[mid])->addr6, a, sizeof(*a)) <
		    0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

static int
rib_rnh6_insert(struct rib *rib, uint32_t id)
{
	uint32_t pos;

	if (rib->n_rnh6 == rib->cap_rnh6) {
		uint32_t nc = rib->cap_rnh6 ? rib->cap_rnh6 * 2 : 64;
		uint32_t *nv = realloc(rib->rnh6, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		rib->rnh6 = nv;
		rib->cap_rnh6 = nc;
	}
	pos = rib_rnh6_lower(rib, &rib_nh(rib, id)->addr6);
	memmove(&rib->rnh6[pos + 1], &rib->rnh6[pos],
	    (rib->n_rnh6 - pos) * sizeof(*rib->rnh6));
	rib->rnh6[pos] = id;
	rib->n_rnh6++;
	return (0);
}

static void
rib_rnh6_remove(struct rib *rib, uint32_t id)
{
	uint32_t pos = rib_rnh6_lower(rib, &rib_nh(rib, id)->addr6);

	while (rib->rnh6[pos] != id)
		pos++;
	memmove(&rib->rnh6[pos], &rib->rnh6[pos + 1],
	    (rib->n_rnh6 - pos - 1) * sizeof(*rib->rnh6));
	rib->n_rnh6--;
}

static int
rib_rnh_insert(struct rib *rib, uint32_t id)
{
	uint32_t pos;

	if (rib_nh(rib, id)->flags & RIB_NHF_V6)
		return (rib_rnh6_insert(rib, id));
	if (rib->n_rnh == rib->cap_rnh) {
		uint32_t nc = rib->cap_rnh ? rib->cap_rnh * 2 : 64;
		uint32_t *nv = realloc(rib->rnh, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		rib->rnh = nv;
		rib->cap_rnh = nc;
	}
	pos = rib_rnh_lower(rib, rib_nh(rib, id)->addr);
	memmove(&rib->rnh[pos + 1], &rib->rnh[pos],
	    (rib->n_rnh - pos) * sizeof(*rib->rnh));
	rib->rnh[pos] = id;
	rib->n_rnh++;
	return (0);
}

static void
rib_rnh_remove(struct rib *rib, uint32_t id)
{
	uint32_t pos;

	if (rib_nh(rib, id)->flags & RIB_NHF_V6) {
		rib_rnh6_remove(rib, id);
		return;
	}
	pos = rib_rnh_lower(rib, rib_nh(rib, id)->addr);
	while (rib->rnh[pos] != id)
		pos++;
	memmove(&rib->rnh[pos], &rib->rnh[pos + 1],
	    (rib->n_rnh - pos - 1) * sizeof(*rib->rnh));
	rib->n_rnh--;
}

#define RIB_CHAIN_LOOP	(-1)
#define RIB_CHAIN_DEEP	(-2)
#define RIB_TDEPTH_BUSY 0xff

/*
 * Height of the resolution chain below dest di (0: its selected routes use
 * direct next hops only), following the selected routes' resolved recursive
 * next hops; RIB_CHAIN_LOOP if it reaches nh self (or any cycle).
 */
static int
rib_chain(struct rib *rib, uint32_t di, uint32_t self, unsigned level, bool any)
{
	const struct rib_dest *d = rib_dest(rib, di);
	uint64_t best = UINT64_MAX;
	int h = 0;

	if (level > (any ? RIB_RECURSION_MAX : rib->conf.recursion_max))
		return (RIB_CHAIN_DEEP);
	/*
	 * Follow the selected routes, and also the unusable ones that would
	 * beat them: if resolving self made one of those usable it would be
	 * selected and close a loop (A via B, B via A, A also reachable by a
	 * worse direct route); counting them keeps the result stable.
	 */
	for (uint32_t ri = d->routes; !any && ri != RIB_NIL;) {
		const struct rib_route *r = rib_route(rib, ri);

		ri = r->next;
		if ((r->flags & RIB_RF_ACTIVE) && rib_route_key(rib, r) < best)
			best = rib_route_key(rib, r);
	}
	for (uint32_t ri = d->routes; ri != RIB_NIL;) {
		const struct rib_route *r = rib_route(rib, ri);

		ri = r->next;
		if (r->grp == 0 ||
		    (!any && !(r->flags & RIB_RF_ACTIVE) &&
			((r->flags & RIB_RF_USABLE) ||
			    rib_route_key(rib, r) > best)))
			continue;
		const struct rib_grp *g = rib_grp(rib, r->grp);
		for (uint32_t i = 0; i < g->n; i++) {
			struct rib_nh *m = rib_nh(rib, g->nh[i]);
			int x;

			if (g->nh[i] == self)
				return (RIB_CHAIN_LOOP);
			if (!(m->flags & RIB_NHF_RECURSIVE) ||
			    (!any && m->res == 0) || m->via == RIB_NIL)
				continue;
			if (m->mark == rib->stamp) {
				if (m->tdepth == RIB_TDEPTH_BUSY)
					return (RIB_CHAIN_LOOP);
				x = m->tdepth;
			} else {
				m->mark = rib->stamp;
				m->tdepth = RIB_TDEPTH_BUSY;
				x = rib_chain(rib, m->via, self, level + 1,
				    any);
				if (x == RIB_CHAIN_LOOP && any)
					m->flags |= RIB_NHF_LOOP; /* on it */
				if (x < 0)
					return (x);
				m->tdepth = (uint8_t)x;
			}
			if (x + 1 > h)
				h = x + 1;
		}
	}
	if (level + (unsigned)h > rib->conf.recursion_max)
		return (RIB_CHAIN_DEEP);
	return (h);
}

/* compute what nh id resolves to now: *res gets a reference */
static void
rib_nh_resolve(struct rib *rib, uint32_t id, uint32_t *res, uint32_t *via,
    uint8_t *depth, bool *loop)
{
	struct rib_nh *n = rib_nh(rib, id);
	const struct rib_dest *d;
	const struct rib_fibgrp *fg;
	uint32_t di;
	int h;

	*res = RIB_FG_NONE;
	*via = RIB_NIL;
	*depth = 0;
	*loop = false;
	if (!(n->flags & RIB_NHF_RECURSIVE)) {
		/* IPv6 link-local next hops are always here: direct on their
		 * interface, never looked up in the table */
		if (rib_if_up_int(rib, n->ifindex)) {
			struct rib_nexthop hop = {lc_ip4_from_host(n->addr),
			    n->ifindex, 0, {{0}}};

			if (n->flags & RIB_NHF_V6) {
				hop.family = AF_INET6;
				hop.addr6 = n->addr6;
			}
			*res = rib_fg_get(rib, RIB_RT_UNICAST, &hop, 1);
		}
		return;
	}
	di = n->flags & RIB_NHF_V6 ?
	    rib_dest6_lpm(rib, &n->addr6,
		rib->conf.resolve_via_default ? 0 : 1) :
	    rib_dest_lpm(rib, n->addr, rib->conf.resolve_via_default ? 0 : 1);
	if (di == RIB_NIL)
		return;
	*via = di;
	d = rib_dest(rib, di);
	if (d->want <= RIB_FG_REJECT) {
		/* unusable, blackhole or reject: no fallback. Only to tell the
		 * operator why: is it a loop through any of the routes? */
		rib->stamp++;
		*loop = d->want == RIB_FG_NONE &&
		    rib_chain(rib, di, id, 1, true) == RIB_CHAIN_LOOP;
		return;
	}
	rib->stamp++;
	if ((h = rib_chain(rib, di, id, 1, false)) < 0) {
		*loop = true;
		return;
	}
	*depth = (uint8_t)(h + 1);
	fg = rib_fg(rib, d->want);
	for (unsigned i = 0; i < fg->n; i++)
		if (rib_hop_attached(&fg->hop[i])) {
			struct rib_nexthop *t = rib->hscratch;

			memcpy(t, fg->hop, fg->n * sizeof(*t));
			for (unsigned j = 0; j < fg->n; j++) {
				if (!rib_hop_attached(&t[j]))
					continue;
				if (t[j].family == AF_INET6)
					t[j].addr6 = n->addr6;
				else
					t[j].addr = lc_ip4_from_host(n->addr);
			}
			*res = rib_fg_get(rib, RIB_RT_UNICAST, t, fg->n);
			return;
		}
	rib_fg_ref(rib, d->want);
	*res = d->want;
}

/* a6 NULL: IPv4 addr (host order); else IPv6 a6 (addr 0) */
static uint32_t
rib_nh_get(struct rib *rib, uint32_t addr, const struct lc_ip6 *a6,
    uint32_t ifindex)
{
	uint32_t hash = rib_hash32(((uint64_t)ifindex << 32) | addr), id;
	struct rib_nh *n;
	bool loop;

	if (a6 != NULL) {
		uint64_t hi, lo;

		memcpy(&hi, a6->b, 8);
		memcpy(&lo, a6->b + 8, 8);
		hash = rib_hash32(
		    hi ^ rib_hash32(lo) ^ ((uint64_t)ifindex << 40) ^ 0x6);
	}
	for (id = rib_otab_first(&rib->nhs, hash); id != 0;) {
		n = rib_nh(rib, id);
		if (n->addr == addr && n->ifindex == ifindex &&
		    !!(n->flags & RIB_NHF_V6) == (a6 != NULL) &&
		    (a6 == NULL || memcmp(&n->addr6, a6, sizeof(*a6)) == 0)) {
			n->refcnt++;
			return (id);
		}
		id = n->h.hnext;
	}
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return (0);
	n->h.hash = hash;
	n->addr = addr;
	n->ifindex = ifindex;
	n->refcnt = 1;
	if (a6 != NULL) {
		n->addr6 = *a6;
		n->flags |= RIB_NHF_V6;
	}
	if (ifindex == 0)
		n->flags |= RIB_NHF_RECURSIVE;
	if ((id = rib_otab_add(&rib->nhs, n)) == 0) {
		free(n);
		return (0);
	}
	if ((n->flags & RIB_NHF_RECURSIVE) && rib_rnh_insert(rib, id) != 0) {
		rib_otab_del(&rib->nhs, id);
		return (0);
	}
	rib_nh_resolve(rib, id, &n->res, &n->via, &n->depth, &loop);
	if (loop)
		n->flags |= RIB_NHF_LOOP;
	return (id);
}

uint32_t
rib_nh_watch(struct rib *rib, uint32_t addr)
{
	return (rib_nh_get(rib, addr, NULL, 0));
}

static void rib_nh_unref(struct rib *rib, uint32_t id);

void
rib_nh_unwatch(struct rib *rib, uint32_t id)
{
	if (id != 0 && id < rib->nhs.n && rib_nh(rib, id) != NULL)
		rib_nh_unref(rib, id);
}

void
rib_nh_state(const struct rib *rib, uint32_t id, struct rib_nh_state *st)
{
	const struct rib_nh *n;

	memset(st, 0, sizeof(*st));
	if (id == 0 || id >= rib->nhs.n || (n = rib_nh(rib, id)) == NULL)
		return;
	st->reachable = n->res > RIB_FG_REJECT;
	if (n->via == RIB_NIL || (n->flags & RIB_NHF_V6))
		return;
	{
		const struct rib_dest *d = rib_dest(rib, n->via);

		st->via_addr = d->addr;
		st->via_len = d->len;
		for (uint32_t ri = d->routes; ri != RIB_NIL;) {
			const struct rib_route *r = rib_route(rib, ri);

			if (r->flags & RIB_RF_ACTIVE) {
				st->metric = r->metric;
				break;
			}
			ri = r->next;
		}
	}
}

static void
rib_nh_unref(struct rib *rib, uint32_t id)
{
	struct rib_nh *n = rib_nh(rib, id);

	if (--n->refcnt > 0)
		return;
	if (n->flags & RIB_NHF_RECURSIVE)
		rib_rnh_remove(rib, id);
	rib_fg_unref(rib, n->res);
	free(n->grps);
	rib_otab_del(&rib->nhs, id);
}

static int
rib_nh_add_grp(struct rib_nh *n, uint32_t gid)
{
	if (n->n_grps == n->cap_grps) {
		uint32_t nc = n->cap_grps ? n->cap_grps * 2 : 4;
		uint32_t *nv = realloc(n->grps, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		n->grps = nv;
		n->cap_grps = nc;
	}
	n->grps[n->n_grps++] = gid;
	return (0);
}

static void
rib_nh_del_grp(struct rib_nh *n, uint32_t gid)
{
	for (uint32_t i = 0; i < n->n_grps; i++)
		if (n->grps[i] == gid) {
			n->grps[i] = n->grps[--n->n_grps];
			return;
		}
}

/* ---- groups (the next-hop set of a route) -------------------------------- */

static uint32_t
rib_grp_compute(struct rib *rib, const struct rib_grp *g)
{
	struct rib_nexthop *h = rib->hscratch;
	unsigned k = 0;

	for (uint32_t i = 0; i < g->n; i++) {
		const struct rib_nh *n = rib_nh(rib, g->nh[i]);
		const struct rib_fibgrp *fg;

		if (n->res == RIB_FG_NONE)
			continue;
		fg = rib_fg(rib, n->res);
		for (unsigned j = 0; j < fg->n && k < RIB_NH_MAX * RIB_NH_MAX;
		     j++)
			h[k++] = fg->hop[j];
	}
	return (rib_fg_get(rib, RIB_RT_UNICAST, h, k));
}

static void
rib_grp_free(struct rib *rib, uint32_t gid)
{
	struct rib_grp *g = rib_grp(rib, gid);

	for (uint32_t i = 0; i < g->n; i++) {
		if (g->nh[i] == 0)
			continue;
		rib_nh_del_grp(rib_nh(rib, g->nh[i]), gid);
		rib_nh_unref(rib, g->nh[i]);
	}
	rib_fg_unref(rib, g->fib);
	rib_otab_del(&rib->grps, gid);
}

uint32_t
rib_grp_get(struct rib *rib, const struct rib_nexthop *in, uint32_t n)
{
	struct rib_nexthop h[RIB_NH_MAX];
	struct rib_grp *g;
	uint32_t hash, gid;

	if (n > RIB_NH_MAX)
		return (0);
	memcpy(h, in, n * sizeof(*h));
	n = rib_hops_norm(h, n);
	hash = rib_hops_hash(0xff, h, n);
	for (gid = rib_otab_first(&rib->grps, hash); gid != 0;) {
		g = rib_grp(rib, gid);
		if (g->h.hash == hash && g->n == n &&
		    memcmp(g->hop, h, n * sizeof(*h)) == 0) {
			g->refcnt++;
			return (gid);
		}
		gid = g->h.hnext;
	}
	g = calloc(1, sizeof(*g) + n * (sizeof(uint32_t) + sizeof(*h)));
	if (g == NULL)
		return (0);
	g->h.hash = hash;
	g->refcnt = 1;
	g->n = n;
	g->hop = (struct rib_nexthop *)(g + 1);
	g->nh = (uint32_t *)(g->hop + n);
	memcpy(g->hop, h, n * sizeof(*h));
	if ((gid = rib_otab_add(&rib->grps, g)) == 0) {
		free(g);
		return (0);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = rib_nh_get(rib, ntohl(h[i].addr.s_addr),
		    h[i].family == AF_INET6 ? &h[i].addr6 : NULL, h[i].ifindex);

		if (id == 0 || rib_nh_add_grp(rib_nh(rib, id), gid) != 0) {
			if (id != 0)
				rib_nh_unref(rib, id);
			rib_grp_free(rib, gid);
			return (0);
		}
		g->nh[i] = id;
	}
	g->fib = rib_grp_compute(rib, g);
	return (gid);
}

void
rib_grp_unref(struct rib *rib, uint32_t gid)
{
	if (gid != 0 && --rib_grp(rib, gid)->refcnt == 0)
		rib_grp_free(rib, gid);
}

/* ---- change propagation -------------------------------------------------- */

void
rib_nh_mark_dirty(struct rib *rib, uint32_t id)
{
	struct rib_nh *n = rib_nh(rib, id);

	if (n->flags & (RIB_NHF_DIRTY | RIB_NHF_FROZEN))
		return;
	if (rib_vec_push(&rib->dirty_nh, id) != 0)
		return; /* see rib_process: ENOMEM leaves it stale */
	n->flags |= RIB_NHF_DIRTY;
}

/* a v6 nh n covered by dest d has to be looked at again */
static void
rib_nh_covered(struct rib *rib, const struct rib_dest *d, uint32_t di,
    uint32_t id, bool has)
{
	struct rib_nh *n = rib_nh(rib, id);

	if (n->via == di) {
		if (d->routes == RIB_NIL)
			n->via = RIB_NIL; /* di may be freed */
		rib_nh_mark_dirty(rib, id);
	} else if (has &&
	    (n->via == RIB_NIL || rib_dest(rib, n->via)->len < d->len))
		rib_nh_mark_dirty(rib, id);
}

static void
rib_nh_dest6_changed(struct rib *rib, const struct rib_dest *d, uint32_t di,
    bool has)
{
	const struct lc_ip6 *a = rib_dest_a6(rib, d);
	struct lc_ip6 last = rib_ip6_mask(a, d->len, true);

	if (rib->n_rnh6 == 0)
		return;
	for (uint32_t i = rib_rnh6_lower(rib, a); i < rib->n_rnh6; i++) {
		uint32_t id = rib->rnh6[i];

		if (memcmp(&rib_nh(rib, id)->addr6, &last, sizeof(last)) > 0)
			break;
		rib_nh_covered(rib, d, di, id, has);
	}
}

void
rib_nh_dest_changed(struct rib *rib, const struct rib_dest *d, uint32_t di)
{
	uint32_t last = d->addr | ~lc_prefix4_mask(d->len);
	bool has = d->routes != RIB_NIL;

	if (d->len == 0 && !rib->conf.resolve_via_default)
		has = false; /* can never be a via */
	if (d->flags & RIB_DF_V6) {
		rib_nh_dest6_changed(rib, d, di, has);
		return;
	}
	/* most prefixes cover no recursive next hop: skip the search */
	if (rib->n_rnh == 0 || rib_nh(rib, rib->rnh[0])->addr > last ||
	    rib_nh(rib, rib->rnh[rib->n_rnh - 1])->addr < d->addr)
		return;
	for (uint32_t i = rib_rnh_lower(rib, d->addr); i < rib->n_rnh; i++) {
		uint32_t id = rib->rnh[i];

		if (rib_nh(rib, id)->addr > last)
			break;
		rib_nh_covered(rib, d, di, id, has);
	}
}

void
rib_nh_if_changed(struct rib *rib, uint32_t ifindex)
{
	for (uint32_t id = 1; id < rib->nhs.n; id++) {
		const struct rib_nh *n = rib->nhs.obj[id];

		if (n != NULL && n->ifindex == ifindex)
			rib_nh_mark_dirty(rib, id);
	}
}

void
rib_nh_process(struct rib *rib, uint32_t id)
{
	struct rib_nh *n;
	uint32_t res, via;
	uint8_t depth;
	bool loop;

	if (id >= rib->nhs.n || (n = rib_nh(rib, id)) == NULL ||
	    !(n->flags & RIB_NHF_DIRTY))
		return;
	n->flags &= ~RIB_NHF_DIRTY;
	if (n->flags & RIB_NHF_FROZEN)
		return;
	rib_nh_resolve(rib, id, &res, &via, &depth, &loop);
	n->via = via;
	n->depth = depth;
	n->flags = (uint8_t)((n->flags & ~RIB_NHF_LOOP) |
	    (loop ? RIB_NHF_LOOP : 0));
	if (res == n->res) {
		rib_fg_unref(rib, res);
		return;
	}
	/* An untracked flip count is never reset: a later pass would take it for a loop. */
	if (n->flips++ == 0 && rib_vec_push(&rib->touched_nh, id) != 0)
		lc_oom("rib next-hop pass");
	if (n->flips > RIB_NH_FLIP_MAX) {
		/* resolution keeps changing: mutual recursion; stop it */
		rib_fg_unref(rib, res);
		res = RIB_FG_NONE;
		n->flags |= RIB_NHF_FROZEN | RIB_NHF_LOOP;
		if (n->res == RIB_FG_NONE)
			return;
	}
	rib_fg_unref(rib, n->res);
	n->res = res;
	for (uint32_t i = 0; i < n->n_grps; i++) {
		struct rib_grp *g = rib_grp(rib, n->grps[i]);
		uint32_t fib = rib_grp_compute(rib, g);

		if (fib == g->fib) {
			rib_fg_unref(rib, fib);
			continue;
		}
		rib_fg_unref(rib, g->fib);
		g->fib = fib;
		for (uint32_t ri = g->routes; ri != RIB_NIL;) {
			const struct rib_route *r = rib_route(rib, ri);

			rib_dest_mark_dirty(rib, r->dest);
			ri = r->gnext;
		}
	}
}

void
rib_nh_round_end(struct rib *rib)
{
	while (!rib_vec_empty(&rib->touched_nh)) {
		uint32_t id = rib_vec_pop_front(&rib->touched_nh);
		struct rib_nh *n;

		if (id < rib->nhs.n && (n = rib_nh(rib, id)) != NULL) {
			n->flips = 0;
			n->flags &= ~RIB_NHF_FROZEN;
		}
	}
}

/* ---- setup --------------------------------------------------------------- */

int
rib_nh_init(struct rib *rib)
{
	if (rib_otab_init(&rib->nhs) != 0 || rib_otab_init(&rib->grps) != 0 ||
	    rib_otab_init(&rib->fgs) != 0)
		return (-ENOMEM);
	rib->hscratch = malloc(
	    RIB_NH_MAX * RIB_NH_MAX * sizeof(*rib->hscratch));
	if (rib->hscratch == NULL)
		return (-ENOMEM);
	/* ids 1 and 2: the permanent blackhole and reject sets */
	if (rib_fg_new(rib, RIB_RT_BLACKHOLE, NULL, 0, 1) != RIB_FG_BLACKHOLE ||
	    rib_fg_new(rib, RIB_RT_REJECT, NULL, 0, 2) != RIB_FG_REJECT)
		return (-ENOMEM);
	return (0);
}

void
rib_nh_fini(struct rib *rib)
{
	for (uint32_t id = 1; id < rib->nhs.n; id++) {
		struct rib_nh *n = rib->nhs.obj[id];

		if (n != NULL)
			free(n->grps);
	}
	rib_otab_fini(&rib->nhs);
	rib_otab_fini(&rib->grps);
	rib_otab_fini(&rib->fgs);
	free(rib->rnh);
	free(rib->rnh6);
	free(rib->hscratch);
	rib->rnh = NULL;
	rib->rnh6 = NULL;
	rib->hscratch = NULL;
}

/* The ECMP width changed: every route's next-hop set is capped anew and the
 * dests whose set changed are re-selected (by rib_process). */
void
rib_grp_recompute_all(struct rib *rib)
{
	for (uint32_t gid = 1; gid < rib->grps.n; gid++) {
		struct rib_grp *g = rib->grps.obj[gid];
		uint32_t fib;

		if (g == NULL)
			continue;
		fib = rib_grp_compute(rib, g);
		if (fib == g->fib) {
			rib_fg_unref(rib, fib);
			continue;
		}
		rib_fg_unref(rib, g->fib);
		g->fib = fib;
		for (uint32_t ri = g->routes; ri != RIB_NIL;) {
			const struct rib_route *r = rib_route(rib, ri);

			rib_dest_mark_dirty(rib, r->dest);
			ri = r->gnext;
		}
	}
}
