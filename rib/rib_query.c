/* rib/rib_query.c: route queries for show route (exact, longest match, longer, by source, active only) and memory figures. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "rib_int.h"

static void
rib_route_info_fill(const struct rib *rib, const struct rib_dest *d,
    const struct rib_route *r, struct rib_route_info *o)
{
	memset(o, 0, sizeof(*o));
	o->pfx = rib_dest_pfx(d);
	o->family = d->flags & RIB_DF_V6 ? AF_INET6 : AF_INET;
	o->pfx6 = rib_dest_pfx6(rib, d);
	o->src = r->src;
	o->src_name = rib->src[r->src].name;
	o->type = r->type;
	o->distance = rib_route_distance(rib, r);
	o->metric = r->metric;
	if (r->flags & RIB_RF_ACTIVE)
		o->flags |= RIB_RI_ACTIVE;
	if (r->flags & RIB_RF_USABLE)
		o->flags |= RIB_RI_USABLE;
	if (r->flags & RIB_RF_STALE)
		o->flags |= RIB_RI_STALE;
	if (r->grp != 0) {
		const struct rib_grp *g = rib_grp(rib, r->grp);

		o->n_nh = g->n;
		o->nh = g->hop;
		for (uint32_t i = 0; i < g->n; i++)
			if (rib_nh(rib, g->nh[i])->flags & RIB_NHF_LOOP)
				o->flags |= RIB_RI_LOOP;
		if (g->fib != RIB_FG_NONE) {
			const struct rib_fibgrp *fg = rib_fg(rib, g->fib);

			o->n_res = fg->n;
			o->res = fg->hop;
		}
	}
}

/* visit the routes of one dest; returns fn's non-zero value or 0 */
static int
rib_walk_dest(const struct rib *rib, uint32_t di, const struct rib_query *q,
    rib_route_fn fn, void *arg, long *count)
{
	const struct rib_dest *d = rib_dest(rib, di);
	struct rib_route_info info;
	int rv;

	for (uint32_t ri = d->routes; ri != RIB_NIL;) {
		const struct rib_route *r = rib_route(rib, ri);

		ri = r->next;
		if ((q->src != 0 && r->src != q->src) ||
		    (q->active_only && !(r->flags & RIB_RF_ACTIVE)))
			continue;
		rib_route_info_fill(rib, d, r, &info);
		(*count)++;
		if ((rv = fn(arg, &info)) != 0)
			return (rv);
	}
	return (0);
}

static int
rib_dest_cmp(const void *a, const void *b, void *arg)
{
	const struct rib_dest *x = rib_dest(arg, *(const uint32_t *)a);
	const struct rib_dest *y = rib_dest(arg, *(const uint32_t *)b);
	int c;

	if ((x->flags & RIB_DF_V6) != (y->flags & RIB_DF_V6))
		return ((x->flags & RIB_DF_V6) ? 1 : -1);
	if ((x->flags & RIB_DF_V6) &&
	    (c = memcmp(rib_dest_a6(arg, x), rib_dest_a6(arg, y), 16)) != 0)
		return (c);
	if (x->addr != y->addr && !(x->flags & RIB_DF_V6))
		return (x->addr < y->addr ? -1 : 1);
	return ((int)x->len - (int)y->len);
}

/* IPv6 EXACT and LONGEST */
static long
rib_route_walk6(struct rib *rib, const struct rib_query *q, rib_route_fn fn,
    void *arg)
{
	uint32_t di = q->match == RIB_MATCH_EXACT ?
	    rib_dest6_find(rib, &q->pfx6.addr, q->pfx6.len) :
	    rib_dest6_lpm(rib, &q->addr6, 0);
	long count = 0;
	int rv = 0;

	if (di != RIB_NIL)
		rv = rib_walk_dest(rib, di, q, fn, arg, &count);
	return (rv != 0 ? rv : count);
}

/* Does the table scan of ALL or LONGER (paddr..last, pfx6..hi) take d? */
static bool
rib_scan_match(const struct rib *rib, const struct rib_query *q,
    const struct rib_dest *d, uint32_t paddr, uint32_t last,
    const struct lc_ip6 *hi)
{
	bool v6 = d->flags & RIB_DF_V6;
	const struct lc_ip6 *a;

	if (d->routes == RIB_NIL)
		return (false);
	if (q->match == RIB_MATCH_ALL)
		return (q->family == 0 || v6 == (q->family == AF_INET6));
	if (v6 != (q->family == AF_INET6))
		return (false);
	if (!v6)
		return (d->len >= q->pfx.len && d->addr >= paddr &&
		    d->addr <= last);
	a = rib_dest_a6(rib, d);
	return (d->len >= q->pfx6.len && memcmp(a, &q->pfx6.addr, 16) >= 0 &&
	    memcmp(a, hi, 16) <= 0);
}

long
rib_route_walk(struct rib *rib, const struct rib_query *q, rib_route_fn fn,
    void *arg, struct lc_err *err)
{
	uint32_t paddr, last, di, *v = NULL;
	struct lc_ip6 hi, m;
	size_t nv = 0, cap = 0;
	long count = 0;
	int rv = 0;

	if (q == NULL || fn == NULL || q->match > RIB_MATCH_LONGER)
		return (lc_err_set(err, -EINVAL, -1, "bad query"));
	if (q->src != 0 && (q->src >= RIB_SOURCE_MAX || !rib->src[q->src].used))
		return (
		    lc_err_set(err, -ENOENT, -1, "unknown source %u", q->src));
	if (q->family != 0 && q->family != AF_INET && q->family != AF_INET6)
		return (
		    lc_err_set(err, -EINVAL, -1, "bad family %u", q->family));
	m = rib_ip6_mask(&q->pfx6.addr, q->pfx6.len, false);
	hi = rib_ip6_mask(&q->pfx6.addr, q->pfx6.len, true);
	if (q->family == AF_INET6 && q->match != RIB_MATCH_ALL &&
	    q->match != RIB_MATCH_LONGEST &&
	    (q->pfx6.len > 128 || memcmp(&m, &q->pfx6.addr, 16) != 0))
		return (lc_err_set(err, -EINVAL, -1, "invalid prefix %s",
		    lc_prefix6_ntoa(&q->pfx6)));
	if (q->family == AF_INET6 &&
	    (q->match == RIB_MATCH_EXACT || q->match == RIB_MATCH_LONGEST))
		return (rib_route_walk6(rib, q, fn, arg));
	paddr = ntohl(q->pfx.addr.s_addr);
	if ((q->match == RIB_MATCH_EXACT || q->match == RIB_MATCH_LONGER) &&
	    q->family != AF_INET6 &&
	    (q->pfx.len > 32 || (paddr & ~lc_prefix4_mask(q->pfx.len))))
		return (lc_err_set(err, -EINVAL, -1, "invalid prefix %s/%u",
		    lc_ip4_ntoa(q->pfx.addr), q->pfx.len));
	if (q->match == RIB_MATCH_EXACT || q->match == RIB_MATCH_LONGEST) {
		di = q->match == RIB_MATCH_EXACT ?
		    rib_dest_find(rib, paddr, q->pfx.len) :
		    rib_dest_lpm(rib, ntohl(q->addr.s_addr), 0);
		if (di != RIB_NIL)
			rv = rib_walk_dest(rib, di, q, fn, arg, &count);
		return (rv != 0 ? rv : count);
	}
	/* ALL and LONGER scan the table: O(prefixes) */
	last = q->match == RIB_MATCH_LONGER ?
	    paddr | ~lc_prefix4_mask(q->pfx.len) :
	    0xffffffffu;
	for (di = rib_ipool_next(&rib->dests, 0); di != RIB_NIL;
	     di = rib_ipool_next(&rib->dests, di)) {
		if (!rib_scan_match(rib, q, rib_dest(rib, di), paddr, last,
			&hi))
			continue;
		if (!q->sorted) {
			if ((rv = rib_walk_dest(rib, di, q, fn, arg, &count)) !=
			    0)
				return (rv);
			continue;
		}
		if (nv == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			uint32_t *nn = realloc(v, nc * sizeof(*nn));

			if (nn == NULL) {
				free(v);
				return (lc_err_set(err, -ENOMEM, -1,
				    "out of memory"));
			}
			v = nn;
			cap = nc;
		}
		v[nv++] = di;
	}
	if (q->sorted) {
		if (nv > 1) /* v is NULL when nothing matched */
			qsort_r(v, nv, sizeof(*v), rib_dest_cmp, rib);
		for (size_t i = 0; i < nv && rv == 0; i++)
			rv = rib_walk_dest(rib, v[i], q, fn, arg, &count);
		free(v);
	}
	return (rv != 0 ? rv : count);
}

static size_t
rib_otab_bytes(const struct rib_otab *t)
{
	size_t b = malloc_usable_size(t->obj) + malloc_usable_size(t->bkt) +
	    malloc_usable_size(t->free.v);

	for (uint32_t i = 1; i < t->n; i++)
		if (t->obj[i] != NULL)
			b += malloc_usable_size(t->obj[i]);
	return (b);
}

void
rib_mem_stats(const struct rib *rib, struct rib_mem_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->bytes = malloc_usable_size((void *)rib) +
	    rib_ipool_bytes(&rib->dests) + rib_ipool_bytes(&rib->routes) +
	    rib_ipool_bytes(&rib->a6) + malloc_usable_size(rib->rnh6) +
	    ((size_t)rib->hmask + 1) * sizeof(*rib->htab) +
	    rib_otab_bytes(&rib->nhs) + rib_otab_bytes(&rib->grps) +
	    rib_otab_bytes(&rib->fgs) + malloc_usable_size(rib->rnh) +
	    malloc_usable_size(rib->ifup) +
	    malloc_usable_size(rib->dirty_dest.v) +
	    malloc_usable_size(rib->dirty_nh.v) +
	    malloc_usable_size(rib->touched_nh.v) +
	    malloc_usable_size(rib->queue.v) + malloc_usable_size(rib->fe) +
	    malloc_usable_size(rib->fb) + malloc_usable_size(rib->dscratch) +
	    malloc_usable_size(rib->oscratch) +
	    malloc_usable_size(rib->hscratch) + malloc_usable_size(rib->bgrp);
	for (uint32_t id = 1; id < rib->nhs.n; id++) {
		const struct rib_nh *n = rib->nhs.obj[id];

		if (n != NULL)
			s->bytes += malloc_usable_size(n->grps);
	}
	s->prefixes = rib->dests.inuse;
	s->routes = rib->routes.inuse;
	s->nexthops = rib->nhs.count;
	s->groups = rib->grps.count;
	s->fibgroups = rib->fgs.count;
}
