/* bgp/bgp_show.c: tern-bgp's answer to QUERY_ROUTES (show bgp route, show
 * bgp neighbor A received-routes | advertised-routes; docs/bgp.md "Show"):
 * one page of a view of the table in prefix order, each path with its
 * attributes decoded from its interned set.
 *
 * The table is a hash, so prefix order costs a walk: one 8-byte key per
 * prefix of the match, the page's window selected in linear time and only
 * the window sorted (as rib's `show route` does), then each prefix of the
 * window fetched by exact lookup. A page is bounded by its prefix count and
 * by an estimate of its encoded size, far below the IPC frame's 16 MB. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "libcommon/lc_arena.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_page.h"

#include "bgp_int.h"

#define SHOW_LIMIT_DEFAULT 1000
#define SHOW_LIMIT_MAX	   10000
#define SHOW_BYTES_MAX	   (4u << 20) /* a page's estimated encoding */

struct show {
	struct bgp_d *d;
	const Bgp__RouteQuery *q;
	struct bgp_peer *p; /* RECEIVED, ADVERTISED: the neighbour */
	struct lc_arena *ar;
	Bgp__RouteList *l;
	size_t bytes; /* estimated so far */
	/* the match: (host-order address << 8 | len) of each prefix */
	uint64_t *k;
	size_t nk, capk;
	uint64_t paths;
};

static uint32_t
mask_of(unsigned len)
{
	return (len == 0 ? 0 : htonl(~0u << (32 - len)));
}

/* The peer's path in d's list, or NULL. */
static const struct bgp_path *
path_of(const struct bgp_rib *r, const struct bgp_dest *d, unsigned peer)
{
	const struct bgp_path *p;

	for (p = bgp_rib_path(r, d->paths); p != NULL;
	     p = bgp_rib_path(r, p->next))
		if (p->peer == peer)
			return (p);
	return (NULL);
}

/* Whether the view holds addr/len; *npaths: how many paths it has there. */
static bool
view_has(const struct show *s, uint32_t addr, uint8_t len, size_t *npaths)
{
	const struct bgp_dest *d;

	*npaths = 1;
	if (s->q->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED)
		return (bgp_adj_get(&s->p->out, addr, len) != NULL);
	if ((d = bgp_rib_find(s->d->rib, addr, len)) == NULL || d->npaths == 0)
		return (false);
	if (s->q->view == BGP__ROUTE_VIEW__VIEW_RECEIVED)
		return (path_of(s->d->rib, d, s->p->id) != NULL);
	*npaths = d->npaths;
	return (true);
}

static int
key_add(struct show *s, uint32_t addr, uint8_t len, size_t npaths)
{
	if (s->nk == s->capk) {
		size_t ncap = s->capk ? s->capk * 2 : 1024;
		uint64_t *n = realloc(s->k, ncap * sizeof(*n));

		if (n == NULL)
			return (-ENOMEM);
		s->k = n;
		s->capk = ncap;
	}
	s->k[s->nk++] = (uint64_t)ntohl(addr) << 8 | len;
	s->paths += npaths;
	return (0);
}

/* Whether addr/len is in the query's prefix (MATCH_ALL: every one). */
static bool
in_match(const Bgp__RouteQuery *q, uint32_t addr, uint8_t len)
{
	if (q->match == BGP__ROUTE_MATCH__MATCH_ALL)
		return (true);
	return (len >= q->len && (addr & mask_of(q->len)) == q->prefix);
}

/* Every prefix of the view in the match, unsorted. */
static int
collect(struct show *s)
{
	const Bgp__RouteQuery *q = s->q;
	const struct bgp_dest *d;
	uint32_t cur = 0;
	size_t np;

	if (q->match == BGP__ROUTE_MATCH__MATCH_EXACT) {
		if (view_has(s, q->prefix, (uint8_t)q->len, &np))
			return (key_add(s, q->prefix, (uint8_t)q->len, np));
		return (0);
	}
	if (q->match == BGP__ROUTE_MATCH__MATCH_LONGEST) {
		/* 33 hash lookups at most: no trie needed for one address */
		for (int len = 32; len >= 0; len--) {
			uint32_t a = q->prefix & mask_of((unsigned)len);

			if (view_has(s, a, (uint8_t)len, &np))
				return (key_add(s, a, (uint8_t)len, np));
		}
		return (0);
	}
	if (q->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED) {
		const struct bgp_adj *o = &s->p->out;

		for (uint32_t i = 0; i < o->cap; i++)
			if (o->e[i].set != NULL &&
			    in_match(q, o->e[i].addr, o->e[i].len) &&
			    key_add(s, o->e[i].addr, o->e[i].len, 1) != 0)
				return (-ENOMEM);
		return (0);
	}
	while ((d = bgp_rib_next(s->d->rib, &cur)) != NULL) {
		if (!in_match(q, d->addr, d->len))
			continue;
		if (q->view == BGP__ROUTE_VIEW__VIEW_RECEIVED) {
			if (path_of(s->d->rib, d, s->p->id) == NULL)
				continue;
			np = 1;
		} else {
			np = d->npaths;
		}
		if (key_add(s, d->addr, d->len, np) != 0)
			return (-ENOMEM);
	}
	return (0);
}

/* ---- one path's attributes ---------------------------------------------------- */

static Bgp__PathAttrs *
attrs_of(struct show *s, const struct bgp_aset *set, bool drop_lp)
{
	Bgp__PathAttrs *pa = lc_arena_alloc(s->ar, sizeof(*pa));
	struct bgp_attrs a;
	size_t n;

	if (pa == NULL)
		return (NULL);
	bgp__path_attrs__init(pa);
	if (bgp_aset_attrs(set, &a) != 0)
		return (pa); /* interned sets always decode */
	pa->origin = set->origin;
	n = (size_t)a.aspath_len * 3 + 16;
	if ((pa->as_path = lc_arena_alloc(s->ar, n)) == NULL)
		return (NULL);
	(void)bgp_aspath_str(a.aspath, a.aspath_len, pa->as_path, n);
	pa->as_path_len = set->aspath_count;
	pa->next_hop = a.nexthop.s_addr;
	if ((a.present & BGP_ABIT(BGP_ATTR_MP_REACH)) &&
	    a.mp_reach.nh_len >= 16) {
		pa->next_hop6.data = lc_arena_memdup(s->ar, a.mp_reach.nh, 16);
		pa->next_hop6.len = 16;
		if (a.mp_reach.nh_len == 32) {
			pa->next_hop6_ll.data = lc_arena_memdup(s->ar,
			    a.mp_reach.nh + 16, 16);
			pa->next_hop6_ll.len = 16;
		}
	}
	pa->has_med = (a.present & BGP_ABIT(BGP_ATTR_MED)) != 0;
	pa->med = pa->has_med ? a.med : 0;
	/* to eBGP the encoder drops LOCAL_PREF: not what is sent */
	pa->has_local_pref = !drop_lp && (set->flags & BGP_ASET_F_LOCAL_PREF);
	pa->local_pref = set->local_pref;
	if (a.present & BGP_ABIT(BGP_ATTR_COMMUNITIES)) {
		pa->n_communities = a.comm_len / 4;
		pa->communities = lc_arena_alloc(s->ar,
		    pa->n_communities * sizeof(*pa->communities) + 1);
		if (pa->communities == NULL)
			return (NULL);
		for (size_t i = 0; i < pa->n_communities; i++)
			pa->communities[i] = bgp_get32(a.comm + 4 * i);
	}
	if (a.present & BGP_ABIT(BGP_ATTR_LARGE_COMMUNITY)) {
		Bgp__LargeCommunity *lc;

		n = a.large_len / 12;
		lc = lc_arena_alloc(s->ar, n * sizeof(*lc) + 1);
		pa->large_communities = lc_arena_alloc(s->ar,
		    n * sizeof(*pa->large_communities) + 1);
		if (lc == NULL || pa->large_communities == NULL)
			return (NULL);
		for (size_t i = 0; i < n; i++) {
			bgp__large_community__init(&lc[i]);
			lc[i].global = bgp_get32(a.large + 12 * i);
			lc[i].local1 = bgp_get32(a.large + 12 * i + 4);
			lc[i].local2 = bgp_get32(a.large + 12 * i + 8);
			pa->large_communities[i] = &lc[i];
		}
		pa->n_large_communities = n;
	}
	if (a.present & BGP_ABIT(BGP_ATTR_EXT_COMMUNITIES)) {
		pa->n_ext_communities = a.ext_len / 8;
		pa->ext_communities = lc_arena_alloc(s->ar,
		    pa->n_ext_communities * sizeof(*pa->ext_communities) + 1);
		if (pa->ext_communities == NULL)
			return (NULL);
		for (size_t i = 0; i < pa->n_ext_communities; i++)
			pa->ext_communities[i] =
			    (uint64_t)bgp_get32(a.ext + 8 * i) << 32 |
			    bgp_get32(a.ext + 8 * i + 4);
	}
	pa->atomic_aggregate = (a.present &
				   BGP_ABIT(BGP_ATTR_ATOMIC_AGGREGATE)) != 0;
	if (a.present & BGP_ABIT(BGP_ATTR_AGGREGATOR)) {
		pa->aggregator_as = a.agg_as;
		pa->aggregator_id = a.agg_id.s_addr;
	}
	if (a.present & BGP_ABIT(BGP_ATTR_ORIGINATOR_ID))
		pa->originator_id = a.originator.s_addr;
	if (a.present & BGP_ABIT(BGP_ATTR_CLUSTER_LIST)) {
		pa->n_cluster_list = a.cluster_len / 4;
		pa->cluster_list = lc_arena_alloc(s->ar,
		    pa->n_cluster_list * sizeof(*pa->cluster_list) + 1);
		if (pa->cluster_list == NULL)
			return (NULL);
		memcpy(pa->cluster_list, a.cluster, a.cluster_len & ~3u);
	}
	/* field tags and lengths, the strings and the repeated fields */
	s->bytes += 64 + strlen(pa->as_path) + 6 * pa->n_communities +
	    20 * pa->n_large_communities + 9 * pa->n_ext_communities +
	    5 * pa->n_cluster_list;
	return (pa);
}

/* A path of either table: the neighbour it came from, its state, attrs. */
static Bgp__Path *
path_msg_of(struct show *s, unsigned peer, uint8_t flags, uint8_t why,
    const struct bgp_aset *in, const struct bgp_aset *set, bool as_received)
{
	const struct bgp_rib_peer *rp = bgp_rib_peer_get(s->d->rib, peer);
	Bgp__Path *m = lc_arena_alloc(s->ar, sizeof(*m));

	if (m == NULL)
		return (NULL);
	bgp__path__init(m);
	if (rp != NULL) {
		m->neighbor = rp->addr;
		m->neighbor_as = rp->remote_as;
		m->router_id = rp->router_id;
		m->ebgp = rp->ebgp;
	}
	m->best = (flags & BGP_PATH_BEST) && why == BGP_WHY_NONE && set != NULL;
	m->multipath = (flags & BGP_PATH_BEST) && !m->best;
	m->stale = (flags & BGP_PATH_STALE) != 0;
	m->imported = set != NULL;
	m->why = (Bgp__PathWhy)why;
	m->why_text = (char *)bgp_rib_why_str(why);
	s->bytes += 40;
	m->attrs = attrs_of(s, as_received || set == NULL ? in : set, false);
	return (m->attrs != NULL ? m : NULL);
}

static Bgp__Path *
path_msg(struct show *s, const struct bgp_path *bp, bool as_received)
{
	return (path_msg_of(s, bp->peer, bp->flags, bp->why, bp->in, bp->set,
	    as_received));
}

/* Best first, then the multipath set, then the other usable paths, then
 * the unusable ones: as a reader looks for them. */
static unsigned
path_rank(const struct bgp_path *p)
{
	if (p->set == NULL)
		return (3);
	if (p->flags & BGP_PATH_BEST)
		return (p->why == BGP_WHY_NONE ? 0 : 1);
	return (2);
}

static int
route_paths(struct show *s, Bgp__Route *rt, const struct bgp_dest *d)
{
	const struct bgp_rib *r = s->d->rib;
	const struct bgp_path *p;

	rt->paths = lc_arena_alloc(s->ar, (d->npaths + 1) * sizeof(*rt->paths));
	if (rt->paths == NULL)
		return (-ENOMEM);
	rt->pending = (d->flags & BGP_DEST_DIRTY) != 0;
	if (s->q->view == BGP__ROUTE_VIEW__VIEW_RECEIVED) {
		if ((p = path_of(r, d, s->p->id)) == NULL)
			return (0);
		if ((rt->paths[0] = path_msg(s, p, true)) == NULL)
			return (-ENOMEM);
		rt->n_paths = 1;
		return (0);
	}
	for (unsigned rank = 0; rank < 4; rank++)
		for (p = bgp_rib_path(r, d->paths); p != NULL;
		     p = bgp_rib_path(r, p->next)) {
			if (path_rank(p) != rank || rt->n_paths >= d->npaths)
				continue;
			if ((rt->paths[rt->n_paths] = path_msg(s, p, false)) ==
			    NULL)
				return (-ENOMEM);
			rt->n_paths++;
		}
	return (0);
}

/* What is sent to s->p for addr/len (its Adj-RIB-Out entry). */
static int
route_adv(struct show *s, Bgp__Route *rt, uint32_t addr, uint8_t len)
{
	struct bgp_aset *set = bgp_adj_get(&s->p->out, addr, len);
	Bgp__Path *m;

	if (set == NULL)
		return (0);
	if ((rt->paths = lc_arena_alloc(s->ar, sizeof(*rt->paths))) == NULL ||
	    (m = lc_arena_alloc(s->ar, sizeof(*m))) == NULL)
		return (-ENOMEM);
	bgp__path__init(m);
	m->neighbor = s->p->c.addr;
	m->neighbor_as = s->p->c.remote_as;
	m->router_id = s->p->remote_id;
	m->ebgp = s->p->codec.ebgp;
	m->why_text = (char *)"";
	if ((m->attrs = attrs_of(s, set, s->p->codec.ebgp)) == NULL)
		return (-ENOMEM);
	rt->paths[0] = m;
	rt->n_paths = 1;
	return (0);
}

/* The route of key k, appended to the list. */
static int
route_add(struct show *s, uint64_t k)
{
	uint32_t addr = htonl((uint32_t)(k >> 8));
	uint8_t len = (uint8_t)(k & 0xff);
	Bgp__Route *rt = lc_arena_alloc(s->ar, sizeof(*rt));
	const struct bgp_dest *d;
	int rv = 0;

	if (rt == NULL)
		return (-ENOMEM);
	bgp__route__init(rt);
	rt->prefix = addr;
	rt->len = len;
	if (s->q->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED)
		rv = route_adv(s, rt, addr, len);
	else if ((d = bgp_rib_find(s->d->rib, addr, len)) != NULL)
		rv = route_paths(s, rt, d);
	if (rv != 0)
		return (rv);
	s->bytes += 16;
	s->l->routes[s->l->n_routes++] = rt;
	return (0);
}

/* ---- IPv6 unicast (bgp_rib6.c): the whole match sorted, then the page */

static bool
in6(const struct lc_prefix6 *outer, const struct lc_prefix6 *p)
{
	unsigned full = outer->len / 8, rest = outer->len % 8;

	if (p->len < outer->len || memcmp(p->addr.b, outer->addr.b, full) != 0)
		return (false);
	return (rest == 0 ||
	    ((p->addr.b[full] ^ outer->addr.b[full]) &
		(uint8_t)(0xff << (8 - rest))) == 0);
}

static int
d6_cmp(const void *x, const void *y)
{
	const struct bgp_dest6 *a = *(const struct bgp_dest6 *const *)x,
			       *b = *(const struct bgp_dest6 *const *)y;
	int c = memcmp(a->pfx.addr.b, b->pfx.addr.b, 16);

	return (
	    c != 0 ? c : (a->pfx.len > b->pfx.len) - (a->pfx.len < b->pfx.len));
}

static bool
view6_has(const struct show *s, const struct bgp_dest6 *d)
{
	if (d == NULL || d->npaths == 0)
		return (false);
	if (s->q->view != BGP__ROUTE_VIEW__VIEW_RECEIVED)
		return (true);
	for (unsigned k = 0; k < d->npaths; k++)
		if (d->paths[k].peer == s->p->id)
			return (true);
	return (false);
}

static Bgp__Route *
route6_msg(struct show *s, const struct bgp_dest6 *d)
{
	Bgp__Route *rt = lc_arena_alloc(s->ar, sizeof(*rt));

	if (rt == NULL)
		return (NULL);
	bgp__route__init(rt);
	rt->paths = lc_arena_alloc(s->ar, (d->npaths + 1) * sizeof(*rt->paths));
	if (rt->paths == NULL)
		return (NULL);
	rt->len = d->pfx.len;
	rt->prefix6.data = lc_arena_memdup(s->ar, d->pfx.addr.b, 16);
	rt->prefix6.len = 16;
	rt->pending = (d->flags & BGP_DEST_DIRTY) != 0;
	/* best first, then the others as they rank (path_rank) */
	for (unsigned rank = 0; rank < 4; rank++)
		for (unsigned k = 0; k < d->npaths; k++) {
			const struct bgp_path6 *p = &d->paths[k];
			unsigned r = p->set == NULL	? 3 :
			    !(p->flags & BGP_PATH_BEST) ? 2 :
			    p->why == BGP_WHY_NONE	? 0 :
							  1;
			bool rcv = s->q->view == BGP__ROUTE_VIEW__VIEW_RECEIVED;

			if (r != rank || (rcv && p->peer != s->p->id))
				continue;
			if ((rt->paths[rt->n_paths] = path_msg_of(s, p->peer,
				 p->flags, p->why, p->in, p->set, rcv)) == NULL)
				return (NULL);
			rt->n_paths++;
		}
	s->bytes += 32;
	return (rt);
}

/* Host bits beyond the length cleared. */
static void
mask6(struct lc_prefix6 *p)
{
	for (unsigned b = p->len; b < 128; b++)
		p->addr.b[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
}

static int
add6(struct show *s, const struct bgp_dest6 ***v, size_t *n, size_t *cap,
    const struct bgp_dest6 *d)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		const struct bgp_dest6 **nv = realloc(*v, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = d;
	s->paths += d->npaths;
	return (0);
}

static int
show6(struct show *s, size_t limit, struct lc_err *err)
{
	const Bgp__RouteQuery *q = s->q;
	const struct bgp_dest6 **v = NULL, *d;
	size_t n = 0, cap = 0, i;
	struct lc_prefix6 qp = {.len = (uint8_t)q->len};
	uint64_t cur = 0;
	int rv = 0;

	if (q->len > 128 ||
	    (q->match != BGP__ROUTE_MATCH__MATCH_ALL && q->prefix6.len != 16))
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "an IPv6 query needs a 16-byte prefix6 and a length of "
		    "0..128"));
	if (q->prefix6.len == 16)
		memcpy(qp.addr.b, q->prefix6.data, 16);
	if (q->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "advertised-routes of IPv6 unicast: not done (see the "
		    "neighbour's IPv6 advertised count)"));
	if (q->match == BGP__ROUTE_MATCH__MATCH_EXACT ||
	    q->match == BGP__ROUTE_MATCH__MATCH_LONGER) {
		struct lc_prefix6 c = qp;

		mask6(&c);
		if (memcmp(&c, &qp, sizeof(c)) != 0)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s/%u: host bits set", lc_ip6_ntoa(&qp.addr),
			    q->len));
	}
	d = NULL;
	if (q->match == BGP__ROUTE_MATCH__MATCH_EXACT) {
		d = bgp_rib6_find(s->d->rib6, &qp);
	} else if (q->match == BGP__ROUTE_MATCH__MATCH_LONGEST) {
		/* 129 hash lookups at most */
		for (int len = 128; len >= 0 && !view6_has(s, d); len--) {
			struct lc_prefix6 c = qp;

			c.len = (uint8_t)len;
			mask6(&c);
			d = bgp_rib6_find(s->d->rib6, &c);
		}
	}
	if (q->match == BGP__ROUTE_MATCH__MATCH_EXACT ||
	    q->match == BGP__ROUTE_MATCH__MATCH_LONGEST) {
		if (view6_has(s, d) && (rv = add6(s, &v, &n, &cap, d)) != 0)
			goto out;
	} else {
		while ((d = bgp_rib6_next(s->d->rib6, &cur)) != NULL) {
			if (!view6_has(s, d) ||
			    (q->match == BGP__ROUTE_MATCH__MATCH_LONGER &&
				!in6(&qp, &d->pfx)))
				continue;
			if ((rv = add6(s, &v, &n, &cap, d)) != 0)
				goto out;
		}
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), d6_cmp);
	s->l->total = n;
	s->l->total_paths = s->paths;
	s->l->offset = q->offset < n ? q->offset : (uint32_t)n;
	if ((s->l->routes = lc_arena_alloc(s->ar,
		 (limit + 1) * sizeof(*s->l->routes))) == NULL)
		rv = -ENOMEM;
	for (i = s->l->offset; rv == 0 && i < n && i < s->l->offset + limit &&
	     s->bytes < SHOW_BYTES_MAX;
	     i++) {
		Bgp__Route *rt = route6_msg(s, v[i]);

		if (rt == NULL)
			rv = -ENOMEM;
		else
			s->l->routes[s->l->n_routes++] = rt;
	}
	s->l->more = rv == 0 && i < n;
out:
	free(v);
	if (rv != 0)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX, "out of memory"));
	return (0);
}

int
bgp_show_routes(struct bgp_d *d, const Bgp__RouteQuery *q, struct lc_arena *ar,
    Bgp__RouteList *l, struct lc_err *err)
{
	struct show s = {d, q, NULL, ar, l, 0, NULL, 0, 0, 0};
	size_t limit = q->limit ? q->limit : SHOW_LIMIT_DEFAULT, lo, hi, i;
	int rv;

	bgp__route_list__init(l);
	l->view = q->view;
	l->neighbor = q->neighbor;
	l->match = q->match;
	l->prefix = q->prefix;
	l->len = q->len;
	l->local_as = d->local_as;
	l->router_id = d->enabled ? bgp_d_router_id(d) : 0;
	if (limit > SHOW_LIMIT_MAX)
		limit = SHOW_LIMIT_MAX;
	if (q->match != BGP__ROUTE_MATCH__MATCH_ALL &&
	    q->match != BGP__ROUTE_MATCH__MATCH_EXACT &&
	    q->match != BGP__ROUTE_MATCH__MATCH_LONGEST &&
	    q->match != BGP__ROUTE_MATCH__MATCH_LONGER)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "unknown match %d", (int)q->match));
	if (q->ipv6 && q->view != BGP__ROUTE_VIEW__VIEW_LOC_RIB &&
	    (s.p = bgp_d_peer_find(d, q->neighbor)) == NULL)
		return (
		    lc_err_set(err, -ENOENT, LC_ERR_NOINDEX, "no neighbor %s",
			inet_ntoa((struct in_addr){q->neighbor})));
	if (q->ipv6) {
		l->ipv6 = true;
		l->prefix6 = q->prefix6;
		if (s.p != NULL)
			l->neighbor_state = (Bgp__State)s.p->state;
		return (show6(&s, limit, err));
	}
	if (q->len > 32)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "prefix length %u is over 32", q->len));
	if ((q->match == BGP__ROUTE_MATCH__MATCH_EXACT ||
		q->match == BGP__ROUTE_MATCH__MATCH_LONGER) &&
	    (q->prefix & ~mask_of(q->len)) != 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s/%u: host bits set",
		    inet_ntoa((struct in_addr){q->prefix}), q->len));
	switch (q->view) {
	case BGP__ROUTE_VIEW__VIEW_LOC_RIB:
		break;
	case BGP__ROUTE_VIEW__VIEW_RECEIVED:
	case BGP__ROUTE_VIEW__VIEW_ADVERTISED:
		if ((s.p = bgp_d_peer_find(d, q->neighbor)) == NULL)
			return (lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
			    "no neighbor %s",
			    inet_ntoa((struct in_addr){q->neighbor})));
		l->neighbor_state = (Bgp__State)s.p->state;
		break;
	default:
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "unknown view %d", (int)q->view));
	}
	if ((rv = collect(&s)) != 0)
		goto out;
	lc_page_u64(s.k, s.nk, q->offset, limit, &lo, &hi);
	l->total = s.nk;
	l->total_paths = s.paths;
	l->offset = (uint32_t)lo;
	if ((l->routes = lc_arena_alloc(ar,
		 (hi - lo + 1) * sizeof(*l->routes))) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	for (i = lo; i < hi && s.bytes < SHOW_BYTES_MAX; i++)
		if ((rv = route_add(&s, s.k[i])) != 0)
			goto out;
	l->more = i < s.nk;
out:
	free(s.k);
	if (rv == -ENOMEM)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX, "out of memory"));
	return (rv);
}

static void
h_query_routes(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct bgp_d *d = arg;
	Bgp__RouteList l;
	struct lc_arena *ar = lc_arena_new(64 << 10);
	struct lc_err err;
	int rv;

	lc_err_clear(&err);
	if (ar == NULL) {
		(void)ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	rv = bgp_show_routes(d, (const Bgp__RouteQuery *)msg, ar, &l, &err);
	if (rv != 0)
		(void)ipc_reply_err(req,
		    rv == -EINVAL ? IPC_BAD_REQUEST : IPC_ERROR, &err);
	else if (ipc_reply(req, IPC_OK, &l.base) == -EMSGSIZE)
		lc_log_warnx("show: a page of %zu routes over the frame "
			     "size",
		    l.n_routes);
	lc_arena_free(ar);
}

void
bgp_show_init(struct bgp_d *d)
{
	ipc_server_handle(d->srv, BGP__METHOD__QUERY_ROUTES, h_query_routes, d);
}
