/* rib/rib_route.c: the rib object, route sources, interfaces, route batches and best-path selection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rib_int.h"

void
rib_conf_default(struct rib_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->ecmp_width = RIB_ECMP_DEFAULT;
	c->recursion_max = RIB_RECURSION_DEFAULT;
	c->resolve_via_default = false;
	c->fib_batch_max = RIB_FIB_BATCH_DEFAULT;
	c->fib_high_water = RIB_FIB_HIGH_DEFAULT;
	c->fib_low_water = RIB_FIB_LOW_DEFAULT;
}

static bool
rib_conf_ok(const struct rib_conf *c)
{
	return (c->ecmp_width >= 1 && c->ecmp_width <= RIB_NH_MAX &&
	    c->recursion_max >= 1 && c->recursion_max <= RIB_RECURSION_MAX &&
	    c->fib_batch_max >= 1 && c->fib_batch_max <= (1u << 20) &&
	    c->fib_high_water >= 1 && c->fib_high_water <= (1u << 24) &&
	    c->fib_low_water < c->fib_high_water);
}

static void
rib_source_setup(struct rib *rib, unsigned id, const char *name,
    uint8_t distance, uint32_t grace_ms)
{
	struct rib_source *s = &rib->src[id];

	memset(s, 0, sizeof(*s));
	s->used = true;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->distance = distance;
	s->grace_ms = grace_ms;
}

struct rib *
rib_new(const struct rib_conf *conf)
{
	struct rib *rib;

	if ((rib = calloc(1, sizeof(*rib))) == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	if (conf == NULL)
		rib_conf_default(&rib->conf);
	else
		rib->conf = *conf;
	if (!rib_conf_ok(&rib->conf)) {
		free(rib);
		errno = EINVAL;
		return (NULL);
	}
	if (rib_table_init(rib) != 0 || rib_nh_init(rib) != 0 ||
	    (rib->dscratch = calloc(rib->conf.fib_batch_max,
		 sizeof(*rib->dscratch))) == NULL ||
	    (rib->oscratch = calloc(rib->conf.fib_batch_max,
		 sizeof(*rib->oscratch))) == NULL) {
		rib_free(rib);
		errno = ENOMEM;
		return (NULL);
	}
	rib_source_setup(rib, RIB_SRC_CONNECTED, "connected",
	    RIB_DISTANCE_CONNECTED, 0);
	rib_source_setup(rib, RIB_SRC_STATIC, "static", RIB_DISTANCE_STATIC, 0);
	return (rib);
}

void
rib_free(struct rib *rib)
{
	if (rib == NULL)
		return;
	rib_fib_fini(rib);
	rib_table_fini(rib);
	rib_nh_fini(rib);
	rib_vec_fini(&rib->dirty_dest);
	rib_vec_fini(&rib->dirty_nh);
	rib_vec_fini(&rib->touched_nh);
	rib_vec_fini(&rib->queue);
	free(rib->ifup);
	free(rib->dscratch);
	free(rib->oscratch);
	free(rib->bgrp);
	free(rib);
}

uint8_t
rib_route_distance(const struct rib *rib, const struct rib_route *r)
{
	return ((r->flags & RIB_RF_DEFDIST) ? rib->src[r->src].distance :
					      r->distance);
}

/* ---- selection ----------------------------------------------------------- */

void
rib_dest_mark_dirty(struct rib *rib, uint32_t di)
{
	struct rib_dest *d = rib_dest(rib, di);

	if (d->flags & RIB_DF_DIRTY)
		return;
	if (rib_vec_push(&rib->dirty_dest, di) == 0)
		d->flags |= RIB_DF_DIRTY;
}

static void
rib_route_set_flags(struct rib *rib, struct rib_route *r, uint8_t flags)
{
	struct rib_source *s = &rib->src[r->src];
	uint8_t ch = r->flags ^ flags;

	if (ch & RIB_RF_ACTIVE) {
		if (flags & RIB_RF_ACTIVE)
			s->active++;
		else
			s->active--;
	}
	if (ch & RIB_RF_USABLE) {
		if (flags & RIB_RF_USABLE)
			s->inactive--;
		else
			s->inactive++;
	}
	if (ch & RIB_RF_STALE) {
		if (flags & RIB_RF_STALE)
			s->stale_routes++;
		else
			s->stale_routes--;
	}
	r->flags = flags;
}

/*
 * Best path for one prefix: among usable routes (next hops resolve, or
 * blackhole/reject) the lowest distance, then metric, then source id; if it
 * forwards, every usable forwarding route with the same distance and metric
 * joins the ECMP set (capped at conf.ecmp_width).
 */
static void
rib_dest_select(struct rib *rib, uint32_t di)
{
	struct rib_dest *d = rib_dest(rib, di);
	struct rib_route *best = NULL;
	uint32_t want = RIB_FG_NONE, fibs[RIB_SOURCE_MAX];
	unsigned nf = 0;
	uint8_t bdist = 0, flagsum = 0;
	bool has, structural = false;

	for (uint32_t ri = d->routes; ri != RIB_NIL;) {
		struct rib_route *r = rib_route(rib, ri);
		bool usable = r->type != RIB_RT_UNICAST ||
		    rib_grp(rib, r->grp)->fib != RIB_FG_NONE;
		uint8_t dist = rib_route_distance(rib, r);

		ri = r->next;
		flagsum |= r->flags ^
		    (uint8_t)((r->flags & ~RIB_RF_USABLE) |
			(usable ? RIB_RF_USABLE : 0));
		rib_route_set_flags(rib, r,
		    (uint8_t)((r->flags & ~RIB_RF_USABLE) |
			(usable ? RIB_RF_USABLE : 0)));
		if (!usable)
			continue;
		if (best == NULL || dist < bdist ||
		    (dist == bdist && r->metric < best->metric)) {
			best = r;
			bdist = dist;
		}
	}
	if (best != NULL && best->type != RIB_RT_UNICAST)
		want = best->type == RIB_RT_BLACKHOLE ? RIB_FG_BLACKHOLE :
							RIB_FG_REJECT;
	for (uint32_t ri = d->routes; ri != RIB_NIL;) {
		struct rib_route *r = rib_route(rib, ri);
		bool act;

		ri = r->next;
		if (best == NULL)
			act = false;
		else if (best->type != RIB_RT_UNICAST)
			act = r == best;
		else
			act = (r->flags & RIB_RF_USABLE) &&
			    r->type == RIB_RT_UNICAST &&
			    rib_route_distance(rib, r) == bdist &&
			    r->metric == best->metric;
		if (act && r->type == RIB_RT_UNICAST)
			fibs[nf++] = rib_grp(rib, r->grp)->fib;
		flagsum |= (r->flags & RIB_RF_ACTIVE) ^
		    (act ? RIB_RF_ACTIVE : 0);
		rib_route_set_flags(rib, r,
		    (uint8_t)((r->flags & ~RIB_RF_ACTIVE) |
			(act ? RIB_RF_ACTIVE : 0)));
	}
	if (nf == 1) {
		want = fibs[0];
		rib_fg_ref(rib, want);
	} else if (nf > 1) {
		bool same = true;

		for (unsigned i = 1; i < nf; i++)
			same = same && fibs[i] == fibs[0];
		if (same) {
			want = fibs[0];
			rib_fg_ref(rib, want);
		} else
			want = rib_fg_merge(rib, fibs, nf);
	}

	has = d->routes != RIB_NIL;
	if (has != !!(d->flags & RIB_DF_COUNTED)) {
		structural = true;
		uint32_t *lc = d->flags & RIB_DF_V6 ? rib->lencount6 :
						      rib->lencount;

		if (has) {
			lc[d->len]++;
			d->flags |= RIB_DF_COUNTED;
		} else {
			lc[d->len]--;
			d->flags &= ~RIB_DF_COUNTED;
		}
	}
	/* the resolution chains through this prefix follow its selected
	 * and usable routes: a change there re-checks them even when the
	 * wanted set stays the same */
	if (want == d->want && !structural && flagsum == 0) {
		rib_fg_unref(rib, want);
		return;
	}
	if (want != d->want) {
		int dw = d->want == RIB_FG_NONE ? 1 :
		    want == RIB_FG_NONE		? -1 :
						  0;

		rib->n_want += (size_t)(ssize_t)dw;
		if (d->flags & RIB_DF_V6)
			rib->n_want6 += (size_t)(ssize_t)dw;
		rib_fg_unref(rib, d->want);
		d->want = want;
		rib_fib_enqueue(rib, di);
	} else
		rib_fg_unref(rib, want);
	rib_nh_dest_changed(rib, d, di);
}

void
rib_process(struct rib *rib)
{
	for (;;) {
		if (!rib_vec_empty(&rib->dirty_dest)) {
			uint32_t di = rib_vec_pop_front(&rib->dirty_dest);

			rib_dest(rib, di)->flags &= ~RIB_DF_DIRTY;
			rib_dest_select(rib, di);
			rib_dest_gc(rib, di);
		} else if (!rib_vec_empty(&rib->dirty_nh))
			rib_nh_process(rib, rib_vec_pop_front(&rib->dirty_nh));
		else
			break;
	}
	rib_nh_round_end(rib);
}

/* ---- sources ------------------------------------------------------------- */

static bool
rib_source_name_ok(const char *name)
{
	size_t n;

	if (name == NULL || (n = strlen(name)) == 0 || n >= RIB_SOURCE_NAME_MAX)
		return (false);
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '_' || c == '.' ||
			c == ':' || c == '-'))
			return (false);
	}
	return (true);
}

static bool
rib_src_ok(const struct rib *rib, unsigned id)
{
	return (id >= 1 && id < RIB_SOURCE_MAX && rib->src[id].used);
}

int
rib_source_find(const struct rib *rib, const char *name)
{
	if (name == NULL)
		return (-ENOENT);
	for (unsigned id = 1; id < RIB_SOURCE_MAX; id++)
		if (rib->src[id].used && strcmp(rib->src[id].name, name) == 0)
			return ((int)id);
	return (-ENOENT);
}

int
rib_source_add(struct rib *rib, const struct rib_source_conf *c, unsigned *idp,
    struct lc_err *err)
{
	int distance;

	if (c == NULL || !rib_source_name_ok(c->name))
		return (lc_err_set(err, -EINVAL, -1, "invalid source name '%s'",
		    c != NULL && c->name != NULL ? c->name : "(null)"));
	distance = c->distance < 0 ? RIB_DISTANCE_PROTO : c->distance;
	if (distance > 255)
		return (lc_err_set(err, -EINVAL, -1,
		    "source %s: distance %d out of 0..255", c->name,
		    c->distance));
	if (rib_source_find(rib, c->name) > 0)
		return (
		    lc_err_set(err, -EEXIST, -1, "source %s exists", c->name));
	for (unsigned id = 1; id < RIB_SOURCE_MAX; id++)
		if (!rib->src[id].used) {
			rib_source_setup(rib, id, c->name, (uint8_t)distance,
			    c->grace_ms);
			if (idp != NULL)
				*idp = id;
			return (0);
		}
	return (lc_err_set(err, -ENOSPC, -1, "source %s: all %d sources in use",
	    c->name, RIB_SOURCE_MAX - 1));
}

int
rib_source_set(struct rib *rib, unsigned id, int distance, uint32_t grace_ms,
    struct lc_err *err)
{
	struct rib_source *s;

	if (!rib_src_ok(rib, id))
		return (lc_err_set(err, -ENOENT, -1, "unknown source %u", id));
	if (distance > 255 || distance < -1)
		return (lc_err_set(err, -EINVAL, -1,
		    "distance %d out of 0..255", distance));
	s = &rib->src[id];
	s->grace_ms = grace_ms;
	if (distance < 0 || distance == s->distance)
		return (0);
	s->distance = (uint8_t)distance;
	for (uint32_t ri = rib_ipool_next(&rib->routes, 0); ri != RIB_NIL;
	     ri = rib_ipool_next(&rib->routes, ri)) {
		const struct rib_route *r = rib_route(rib, ri);

		if (r->src == id && (r->flags & RIB_RF_DEFDIST))
			rib_dest_mark_dirty(rib, r->dest);
	}
	rib_process(rib);
	return (0);
}

int
rib_set_ecmp_width(struct rib *rib, unsigned width, struct lc_err *err)
{
	if (width < 1 || width > RIB_NH_MAX)
		return (lc_err_set(err, -EINVAL, -1,
		    "ECMP width %u out of 1..%u", width, (unsigned)RIB_NH_MAX));
	if (width == rib->conf.ecmp_width)
		return (0);
	rib->conf.ecmp_width = width;
	rib_grp_recompute_all(rib);
	for (uint32_t ri = rib_ipool_next(&rib->routes, 0); ri != RIB_NIL;
	     ri = rib_ipool_next(&rib->routes, ri))
		rib_dest_mark_dirty(rib, rib_route(rib, ri)->dest);
	rib_process(rib);
	return (0);
}

/* unlink and free one route; the dest is marked dirty */
static void
rib_route_remove(struct rib *rib, uint32_t di, uint32_t ri)
{
	struct rib_dest *d = rib_dest(rib, di);
	struct rib_route *r = rib_route(rib, ri);
	struct rib_source *s = &rib->src[r->src];
	uint32_t *pp = &d->routes;

	while (*pp != ri)
		pp = &rib_route(rib, *pp)->next;
	*pp = r->next;
	if (r->grp != 0) {
		struct rib_grp *g = rib_grp(rib, r->grp);

		if (r->gprev != RIB_NIL)
			rib_route(rib, r->gprev)->gnext = r->gnext;
		else
			g->routes = r->gnext;
		if (r->gnext != RIB_NIL)
			rib_route(rib, r->gnext)->gprev = r->gprev;
		rib_grp_unref(rib, r->grp);
	}
	rib_route_set_flags(rib, r, RIB_RF_USABLE); /* uncount */
	s->routes--;
	rib_ipool_put(&rib->routes, ri);
	rib_dest_mark_dirty(rib, di);
}

/* delete the routes of source id (only the stale ones if stale_only) */
static long
rib_source_purge(struct rib *rib, unsigned id, bool stale_only)
{
	long n = 0;

	for (uint32_t ri = rib_ipool_next(&rib->routes, 0); ri != RIB_NIL;
	     ri = rib_ipool_next(&rib->routes, ri)) {
		const struct rib_route *r = rib_route(rib, ri);

		if (r->src != id || (stale_only && !(r->flags & RIB_RF_STALE)))
			continue;
		rib_route_remove(rib, r->dest, ri);
		n++;
	}
	rib_process(rib);
	return (n);
}

int
rib_source_del(struct rib *rib, unsigned id, struct lc_err *err)
{
	if (!rib_src_ok(rib, id))
		return (lc_err_set(err, -ENOENT, -1, "unknown source %u", id));
	if (id == RIB_SRC_CONNECTED || id == RIB_SRC_STATIC)
		return (lc_err_set(err, -EPERM, -1,
		    "source %s cannot be deleted", rib->src[id].name));
	rib_source_purge(rib, id, false);
	memset(&rib->src[id], 0, sizeof(rib->src[id]));
	return (0);
}

int
rib_source_stale(struct rib *rib, unsigned id)
{
	int n = 0;

	if (!rib_src_ok(rib, id))
		return (-ENOENT);
	for (uint32_t ri = rib_ipool_next(&rib->routes, 0); ri != RIB_NIL;
	     ri = rib_ipool_next(&rib->routes, ri)) {
		struct rib_route *r = rib_route(rib, ri);

		if (r->src == id && !(r->flags & RIB_RF_STALE)) {
			rib_route_set_flags(rib, r, r->flags | RIB_RF_STALE);
			n++;
		}
	}
	rib->src[id].stale = true;
	return (n);
}

int
rib_source_sweep(struct rib *rib, unsigned id)
{
	long n;

	if (!rib_src_ok(rib, id))
		return (-ENOENT);
	n = rib_source_purge(rib, id, true);
	rib->src[id].stale = false;
	return ((int)n);
}

int
rib_source_info(const struct rib *rib, unsigned id, struct rib_source_info *o)
{
	const struct rib_source *s;

	if (!rib_src_ok(rib, id))
		return (-ENOENT);
	s = &rib->src[id];
	memset(o, 0, sizeof(*o));
	o->id = id;
	memcpy(o->name, s->name, sizeof(o->name));
	o->distance = s->distance;
	o->grace_ms = s->grace_ms;
	o->stale = s->stale;
	o->routes = s->routes;
	o->active = s->active;
	o->stale_routes = s->stale_routes;
	o->inactive = s->inactive;
	return (0);
}

/* ---- interfaces ---------------------------------------------------------- */

int
rib_if_set(struct rib *rib, uint32_t ifindex, bool up)
{
	if (ifindex == 0 || ifindex > RIB_IFINDEX_MAX)
		return (-EINVAL);
	if (ifindex >= rib->ifcap) {
		uint32_t nc = rib->ifcap ? rib->ifcap : 256;
		uint64_t *nb;

		while (nc <= ifindex)
			nc *= 2;
		if ((nb = realloc(rib->ifup, nc / 8)) == NULL)
			return (-ENOMEM);
		memset((char *)nb + rib->ifcap / 8, 0, (nc - rib->ifcap) / 8);
		rib->ifup = nb;
		rib->ifcap = nc;
	}
	if (rib_if_up(rib, ifindex) == up)
		return (0);
	if (up)
		rib->ifup[ifindex >> 6] |= 1ULL << (ifindex & 63);
	else
		rib->ifup[ifindex >> 6] &= ~(1ULL << (ifindex & 63));
	rib_nh_if_changed(rib, ifindex);
	rib_process(rib);
	return (0);
}

bool
rib_if_up(const struct rib *rib, uint32_t ifindex)
{
	return (ifindex < rib->ifcap &&
	    ((rib->ifup[ifindex >> 6] >> (ifindex & 63)) & 1));
}

/* ---- route batches ------------------------------------------------------- */

#define RIB_PROCESS_CHUNK 256 /* power of 2 */

static bool
rib_nh_addr_ok(uint32_t a)
{
	uint8_t top = (uint8_t)(a >> 24);

	/* 0/8 (but 0.0.0.0 = attached), loopback, multicast, class E and
	 * broadcast never make a next hop */
	if (a == 0)
		return (true);
	return (top != 0 && top != 127 && top < 224);
}

/* type, distance and next-hop count of an add (pb: its prefix as text):
 * 0 when its next hops are to be checked, 1 when it has none, or -EINVAL */
static int
rib_upd_shape_check(const struct rib_route_upd *u, long i, const char *pb,
    struct lc_err *err)
{
	if (u->type > RIB_RT_REJECT)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: bad type %u", i, pb, u->type));
	if (u->distance < -1 || u->distance > 255)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: distance %d out of 0..255", i, pb,
		    u->distance));
	if (u->type != RIB_RT_UNICAST) {
		if (u->n_nh != 0)
			return (lc_err_set(err, -EINVAL, i,
			    "entry %ld: %s: blackhole/reject route with next hops",
			    i, pb));
		return (1);
	}
	if (u->n_nh == 0 || u->nh == NULL)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: no next hop", i, pb));
	if (u->n_nh > RIB_NH_MAX)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: %u next hops > %d", i, pb, u->n_nh,
		    RIB_NH_MAX));
	return (0);
}

/* a next hop's interface, either family */
static int
rib_hop_if_check(unsigned src, const struct rib_nexthop *h, long i,
    const char *pb, struct lc_err *err)
{
	if (h->ifindex > RIB_IFINDEX_MAX)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: interface index %u too large", i, pb,
		    h->ifindex));
	if (src == RIB_SRC_CONNECTED && h->ifindex == 0)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: %s: connected route without interface", i, pb));
	return (0);
}

/* an IPv6 next-hop address: :: (attached, with an interface), or unicast
 * that is neither loopback nor IPv4-mapped; link-local needs its interface */
static const char *
rib_nh6_bad(const struct rib_nexthop *h)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff,
	    0xff};
	const uint8_t *b = h->addr6.b;

	if (rib_ip6_zero(&h->addr6))
		return (
		    h->ifindex == 0 ? "next hop :: without interface" : NULL);
	if (b[0] == 0xff)
		return ("multicast next hop");
	if (memcmp(b, mapped, 12) == 0)
		return ("IPv4-mapped next hop");
	if (memcmp(b, mapped, 12 - 2) == 0 && b[10] == 0 && b[11] == 0 &&
	    b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] == 1)
		return ("loopback next hop");
	if (rib_ip6_linklocal(&h->addr6) && h->ifindex == 0)
		return ("link-local next hop without interface");
	return (NULL);
}

static int
rib_upd6_check(unsigned src, const struct rib_route_upd *u, long i,
    struct lc_err *err)
{
	char pb[LC_PREFIX6_STRLEN], ab[LC_IP6_STRLEN];
	struct lc_ip6 m;
	int rv;

	if (u->pfx6.len > 128)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: prefix length %u > 128", i, u->pfx6.len));
	m = rib_ip6_mask(&u->pfx6.addr, u->pfx6.len, false);
	lc_prefix6_str(&u->pfx6, pb);
	if (memcmp(&m, &u->pfx6.addr, sizeof(m)) != 0)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: prefix %s has host bits set", i, pb));
	if (u->op == RIB_OP_DELETE)
		return (0);
	if ((rv = rib_upd_shape_check(u, i, pb, err)) != 0)
		return (rv < 0 ? rv : 0);
	for (uint32_t j = 0; j < u->n_nh; j++) {
		const struct rib_nexthop *h = &u->nh[j];
		const char *why;

		if (h->family != AF_INET6)
			return (lc_err_set(err, -EINVAL, i,
			    "entry %ld: %s: IPv4 next hop of an IPv6 prefix", i,
			    pb));
		if ((why = rib_nh6_bad(h)) != NULL)
			return (
			    lc_err_set(err, -EINVAL, i, "entry %ld: %s: %s %s",
				i, pb, why, lc_ip6_str(&h->addr6, ab)));
		if ((rv = rib_hop_if_check(src, h, i, pb, err)) != 0)
			return (rv);
	}
	return (0);
}

static int
rib_upd_check(const struct rib *rib, unsigned src,
    const struct rib_route_upd *u, long i, struct lc_err *err)
{
	char pb[LC_PREFIX4_STRLEN];
	uint32_t a = ntohl(u->pfx.addr.s_addr);
	int rv;

	if (u->op > RIB_OP_DELETE)
		return (lc_err_set(err, -EINVAL, i, "entry %ld: bad op %u", i,
		    u->op));
	if (u->family == AF_INET6)
		return (rib_upd6_check(src, u, i, err));
	if (u->family != 0 && u->family != AF_INET)
		return (lc_err_set(err, -EINVAL, i, "entry %ld: family %u", i,
		    u->family));
	if (u->pfx.len > 32)
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: prefix length %u > 32", i, u->pfx.len));
	if (a & ~lc_prefix4_mask(u->pfx.len))
		return (lc_err_set(err, -EINVAL, i,
		    "entry %ld: prefix %s/%u has host bits set", i,
		    lc_ip4_ntoa(u->pfx.addr), u->pfx.len));
	if (u->op == RIB_OP_DELETE)
		return (0);
	if (u->type == RIB_RT_UNICAST && u->n_nh >= 1 &&
	    u->n_nh <= RIB_NH_MAX && u->nh != NULL && u->distance >= -1 &&
	    u->distance <= 255 && src != RIB_SRC_CONNECTED) {
		/* the common case, checked without formatting anything */
		uint32_t j;

		for (j = 0; j < u->n_nh; j++)
			if ((u->nh[j].addr.s_addr == 0 &&
				u->nh[j].ifindex == 0) ||
			    u->nh[j].family == AF_INET6 ||
			    !rib_nh_addr_ok(ntohl(u->nh[j].addr.s_addr)) ||
			    u->nh[j].ifindex > RIB_IFINDEX_MAX)
				break;
		if (j == u->n_nh)
			return (0);
	}
	lc_prefix4_str(&u->pfx, pb);
	if ((rv = rib_upd_shape_check(u, i, pb, err)) != 0)
		return (rv < 0 ? rv : 0);
	for (uint32_t j = 0; j < u->n_nh; j++) {
		const struct rib_nexthop *h = &u->nh[j];

		if (h->family == AF_INET6)
			return (lc_err_set(err, -EINVAL, i,
			    "entry %ld: %s: IPv6 next hop of an IPv4 prefix", i,
			    pb));
		if (h->addr.s_addr == 0 && h->ifindex == 0)
			return (lc_err_set(err, -EINVAL, i,
			    "entry %ld: %s: next hop 0.0.0.0 without interface",
			    i, pb));
		if (!rib_nh_addr_ok(ntohl(h->addr.s_addr)))
			return (lc_err_set(err, -EINVAL, i,
			    "entry %ld: %s: invalid next-hop address %s", i, pb,
			    lc_ip4_ntoa(h->addr)));
		if ((rv = rib_hop_if_check(src, h, i, pb, err)) != 0)
			return (rv);
	}
	(void)rib;
	return (0);
}

static uint32_t
rib_route_find(const struct rib *rib, uint32_t di, unsigned src, uint32_t **ppp)
{
	uint32_t *pp = &rib_dest(rib, di)->routes;

	while (*pp != RIB_NIL && rib_route(rib, *pp)->src < src)
		pp = &rib_route(rib, *pp)->next;
	if (ppp != NULL)
		*ppp = pp;
	if (*pp != RIB_NIL && rib_route(rib, *pp)->src == src)
		return (*pp);
	return (RIB_NIL);
}

static void
rib_upd_apply(struct rib *rib, unsigned src, const struct rib_route_upd *u,
    uint32_t gid)
{
	uint32_t addr = ntohl(u->pfx.addr.s_addr), di, ri, *pp;
	bool v6 = u->family == AF_INET6;
	struct rib_route *r;

	if (u->op == RIB_OP_DELETE) {
		di = v6 ? rib_dest6_find(rib, &u->pfx6.addr, u->pfx6.len) :
			  rib_dest_find(rib, addr, u->pfx.len);
		if (di != RIB_NIL &&
		    (ri = rib_route_find(rib, di, src, NULL)) != RIB_NIL)
			rib_route_remove(rib, di, ri);
		return;
	}
	di = v6 ? rib_dest6_get(rib, &u->pfx6.addr, u->pfx6.len) :
		  rib_dest_get(rib, addr, u->pfx.len); /* reserved */
	ri = rib_route_find(rib, di, src, &pp);
	if (ri == RIB_NIL) {
		ri = rib_ipool_get(&rib->routes); /* reserved */
		r = rib_route(rib, ri);
		r->next = *pp;
		*pp = ri;
		r->src = (uint8_t)src;
		r->dest = di;
		rib->src[src].routes++;
		rib->src[src].inactive++; /* until selected usable */
	} else {
		r = rib_route(rib, ri);
		rib_route_set_flags(rib, r, r->flags & ~RIB_RF_STALE);
		if (r->grp != 0) {
			struct rib_grp *g = rib_grp(rib, r->grp);

			if (r->gprev != RIB_NIL)
				rib_route(rib, r->gprev)->gnext = r->gnext;
			else
				g->routes = r->gnext;
			if (r->gnext != RIB_NIL)
				rib_route(rib, r->gnext)->gprev = r->gprev;
			rib_grp_unref(rib, r->grp);
		}
	}
	r->type = u->type;
	r->metric = u->metric;
	if (u->distance < 0) {
		r->flags |= RIB_RF_DEFDIST;
		r->distance = 0;
	} else {
		r->flags &= ~RIB_RF_DEFDIST;
		r->distance = (uint8_t)u->distance;
	}
	r->grp = gid;
	r->gprev = r->gnext = RIB_NIL;
	if (gid != 0) {
		struct rib_grp *g = rib_grp(rib, gid);

		r->gnext = g->routes;
		if (g->routes != RIB_NIL)
			rib_route(rib, g->routes)->gprev = ri;
		g->routes = ri;
	}
	rib_dest_mark_dirty(rib, di);
}

static bool
rib_upd_same_pfx(const struct rib_route_upd *a, const struct rib_route_upd *b)
{
	if ((a->family == AF_INET6) != (b->family == AF_INET6))
		return (false);
	if (a->family == AF_INET6)
		return (a->pfx6.len == b->pfx6.len &&
		    memcmp(&a->pfx6.addr, &b->pfx6.addr, 16) == 0);
	return (lc_prefix4_eq(&a->pfx, &b->pfx));
}

static uint32_t
rib_upd_find(const struct rib *rib, const struct rib_route_upd *u)
{
	if (u->family == AF_INET6)
		return (rib_dest6_find(rib, &u->pfx6.addr, u->pfx6.len));
	return (rib_dest_find(rib, ntohl(u->pfx.addr.s_addr), u->pfx.len));
}

static inline void
rib_upd_prefetch(const struct rib *rib, const struct rib_route_upd *u,
    bool deep)
{
	if (u->family == AF_INET6)
		rib_dest6_prefetch(rib, &u->pfx6.addr, u->pfx6.len, deep);
	else
		rib_dest_prefetch(rib, ntohl(u->pfx.addr.s_addr), u->pfx.len,
		    deep);
}

static bool
rib_upd_same_nh(const struct rib_route_upd *a, const struct rib_route_upd *b)
{
	return (a->n_nh == b->n_nh &&
	    (a->nh == b->nh ||
		memcmp(a->nh, b->nh, a->n_nh * sizeof(*a->nh)) == 0));
}

#define RIB_PF_FAR   16	 /* look-ahead: the hash slot */
#define RIB_PF_NEAR  8	 /* look-ahead: the dest in that slot */
#define RIB_GC_SLOTS 256 /* next-hop array -> group, per batch */
#define RIB_GC_MIN   64	 /* batches this big use that cache */

/* A batch's next-hop arrays shared by several routes (the packed encoding
 * points every route with the same next hops at one array): the group is
 * interned once per array, not once per route. */
struct rib_gcache {
	const struct rib_nexthop *nh;
	uint32_t n;
	uint32_t gid;
};

int
rib_route_check(const struct rib *rib, unsigned src,
    const struct rib_route_upd *u, size_t n, struct lc_err *err)
{
	int rv;

	if (!rib_src_ok(rib, src))
		return (lc_err_set(err, -ENOENT, -1, "unknown source %u", src));
	if (n > 0 && u == NULL)
		return (lc_err_set(err, -EINVAL, -1, "no routes"));
	for (size_t i = 0; i < n; i++)
		if ((rv = rib_upd_check(rib, src, &u[i], (long)i, err)) != 0)
			return (rv);
	return (0);
}

/* rib_route_batch() and rib_route_txn(): at most max entries */
static int
rib_route_apply(struct rib *rib, unsigned src, const struct rib_route_upd *u,
    size_t n, size_t max, struct lc_err *err)
{
	struct rib_gcache gc[RIB_GC_SLOTS];
	size_t i, last = (size_t)-1, nadd = 0, nadd6 = 0;
	int rv;

	if (!rib_src_ok(rib, src))
		return (lc_err_set(err, -ENOENT, -1, "unknown source %u", src));
	if (n > max)
		return (lc_err_set(err, -E2BIG, (long)max,
		    "batch of %zu routes > %zu", n, max));
	if (n == 0)
		return (0);
	if (u == NULL)
		return (lc_err_set(err, -EINVAL, -1, "no routes"));
	for (i = 0; i < n; i++) {
		if ((rv = rib_upd_check(rib, src, &u[i], (long)i, err)) != 0)
			return (rv);
		nadd += u[i].op != RIB_OP_DELETE;
		nadd6 += u[i].op != RIB_OP_DELETE && u[i].family == AF_INET6;
		if (u[i].op == RIB_OP_REPLACE) {
			uint32_t di = rib_upd_find(rib, &u[i]);
			bool found = di != RIB_NIL &&
			    rib_route_find(rib, di, src, NULL) != RIB_NIL;

			/* or added earlier in this batch */
			for (size_t j = 0; !found && j < i; j++)
				found = u[j].op == RIB_OP_ADD &&
				    rib_upd_same_pfx(&u[j], &u[i]);
			if (!found)
				return (lc_err_set(err, -ENOENT, (long)i,
				    "entry %zu: replace of %s: no such route",
				    i,
				    u[i].family == AF_INET6 ?
					lc_prefix6_ntoa(&u[i].pfx6) :
					lc_prefix4_ntoa(&u[i].pfx)));
		}
	}
	if (rib->bgrp_cap < n) {
		uint32_t *nb = realloc(rib->bgrp, n * sizeof(*nb));

		if (nb == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		rib->bgrp = nb;
		rib->bgrp_cap = n;
	}
	/* deletes take nothing: a transaction deleting 1M routes must not
	 * grow the table by 1M */
	if ((rv = rib_table_reserve(rib, nadd)) != 0 ||
	    (nadd6 > 0 && (rv = rib_table_reserve6(rib, nadd6)) != 0))
		return (lc_err_set(err, rv, -1, "out of memory"));
	/* intern every next-hop set first: the only step that can fail */
	if (n >= RIB_GC_MIN)
		memset(gc, 0, sizeof(gc));
	for (i = 0; i < n; i++) {
		struct rib_gcache *c = NULL;

		rib->bgrp[i] = 0;
		if (u[i].op == RIB_OP_DELETE || u[i].type != RIB_RT_UNICAST)
			continue;
		if (n >= RIB_GC_MIN) {
			c = &gc[(((uintptr_t)u[i].nh >> 3) * 0x9e3779b1u >> 8) &
			    (RIB_GC_SLOTS - 1)];
			if (c->nh == u[i].nh && c->n == u[i].n_nh &&
			    c->gid != 0) {
				rib->bgrp[i] = c->gid;
				rib_grp(rib, c->gid)->refcnt++;
				continue;
			}
		}
		if (last != (size_t)-1 && rib_upd_same_nh(&u[last], &u[i])) {
			rib->bgrp[i] = rib->bgrp[last];
			rib_grp(rib, rib->bgrp[i])->refcnt++;
		} else if ((rib->bgrp[i] = rib_grp_get(rib, u[i].nh,
				u[i].n_nh)) == 0) {
			while (i-- > 0)
				rib_grp_unref(rib, rib->bgrp[i]);
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		}
		if (c != NULL) {
			c->nh = u[i].nh;
			c->n = u[i].n_nh;
			c->gid = rib->bgrp[i];
		}
		last = i;
	}
	for (i = 0; i < n; i++) {
		if (i + RIB_PF_FAR < n)
			rib_upd_prefetch(rib, &u[i + RIB_PF_FAR], false);
		if (i + RIB_PF_NEAR < n)
			rib_upd_prefetch(rib, &u[i + RIB_PF_NEAR], true);
		rib_upd_apply(rib, src, &u[i], rib->bgrp[i]);
		/* select while the prefixes are still in cache */
		if ((i & (RIB_PROCESS_CHUNK - 1)) == RIB_PROCESS_CHUNK - 1)
			rib_process(rib);
	}
	rib_process(rib);
	if (n > RIB_BATCH_MAX) {
		/* a transaction's groups: not kept for batches (16 MiB at
		 * RIB_TXN_MAX) */
		free(rib->bgrp);
		rib->bgrp = NULL;
		rib->bgrp_cap = 0;
	}
	return (0);
}

int
rib_route_batch(struct rib *rib, unsigned src, const struct rib_route_upd *u,
    size_t n, struct lc_err *err)
{
	return (rib_route_apply(rib, src, u, n, RIB_BATCH_MAX, err));
}

int
rib_route_txn(struct rib *rib, unsigned src, const struct rib_route_upd *u,
    size_t n, struct lc_err *err)
{
	return (rib_route_apply(rib, src, u, n, RIB_TXN_MAX, err));
}
