/* tests/unit/bgp/test_show.c: QUERY_ROUTES' pages (bgp_show.c) over a real
 * table: every path of a prefix with the best first and why the others
 * lost, the longest match, prefix order and paging over 2002 prefixes, a
 * neighbour's paths as received (imported or refused) and its
 * Adj-RIB-Out as sent, the refusals, and the size cap of a page. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgp/bgp_int.h"
#include "libcommon/lc_arena.h"

#define A(a, b, c, d) htonl((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct bgp_d *d;
static struct bgp_peer *p1, *p2; /* iBGP 198.18.2.2, eBGP 198.18.1.2 */
static struct lc_arena *ar;

/* A set: local-pref (0: absent), MED (~0u: absent), next hop, ncomm
 * communities 65000:1.., the AS path as[0..n) in one sequence. */
static struct bgp_aset *
mkp(uint32_t lp, uint32_t med, uint32_t nh, unsigned ncomm, const uint32_t *as,
    unsigned n)
{
	uint8_t path[2 + 4 * 255], comm[4 * 8], canon[BGP_ATTR_CANON_MAX];
	struct bgp_attrs a;
	struct bgp_aset *s;
	int k;

	memset(&a, 0, sizeof(a));
	a.present = BGP_ABIT(BGP_ATTR_ORIGIN) | BGP_ABIT(BGP_ATTR_AS_PATH) |
	    BGP_ABIT(BGP_ATTR_NEXT_HOP);
	path[0] = BGP_AS_SEQUENCE;
	path[1] = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		bgp_put32(path + 2 + 4 * i, as[i]);
	a.aspath = path;
	a.aspath_len = (uint16_t)(n ? 2 + 4 * n : 0);
	a.nexthop.s_addr = nh;
	if (lp) {
		a.present |= BGP_ABIT(BGP_ATTR_LOCAL_PREF);
		a.local_pref = lp;
	}
	if (med != ~0u) {
		a.present |= BGP_ABIT(BGP_ATTR_MED);
		a.med = med;
	}
	if (ncomm > 0) {
		for (unsigned i = 0; i < ncomm; i++)
			bgp_put32(comm + 4 * i, 65000u << 16 | (i + 1));
		a.present |= BGP_ABIT(BGP_ATTR_COMMUNITIES);
		a.comm = comm;
		a.comm_len = (uint16_t)(4 * ncomm);
	}
	k = bgp_attr_canon(&a, BGP_AF_IPV4, canon, sizeof(canon));
	assert_true(k > 0);
	assert_non_null(s = bgp_intern_get(d->intern, canon, (size_t)k));
	return (s);
}

/* mkp() with the AS path given as n arguments */
static struct bgp_aset *
mk(uint32_t lp, uint32_t med, uint32_t nh, unsigned ncomm, unsigned n, ...)
{
	uint32_t as[8];
	va_list ap;

	assert_true(n <= 8);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		as[i] = va_arg(ap, uint32_t);
	va_end(ap);
	return (mkp(lp, med, nh, ncomm, as, n));
}

static struct bgp_peer *
peer(uint32_t addr, uint32_t as, unsigned id, bool ebgp)
{
	struct bgp_peer *p = calloc(1, sizeof(*p));
	struct bgp_rib_peer rp = {addr, addr, as, ebgp};

	assert_non_null(p);
	p->d = d;
	p->c.addr = addr;
	p->c.remote_as = as;
	p->id = id;
	p->state = BGP_ESTABLISHED;
	p->remote_id = addr;
	p->codec.ebgp = ebgp;
	bgp_adj_init(&p->out);
	bgp_rib_peer_set(d->rib, id, &rp);
	d->peers[d->npeers++] = p;
	return (p);
}

static int
emit(void *arg, const struct bgp_dest *dst, uint32_t nhid, const uint32_t *nh,
    unsigned n)
{
	(void)arg;
	(void)dst;
	(void)nhid;
	(void)nh;
	(void)n;
	return (0);
}

/*
 * 198.18.50.0/24 from both (p1's path shorter), 198.18.60.0/24 from p2
 * refused by its import policy, 198.19.x.y/32 (2000) from p1 in an order
 * that is not the prefixes'; p2 is sent 198.18.50.0/24.
 */
static int
setup(void **st)
{
	struct bgp_aset *s1, *s2, *s3, *s4;

	(void)st;
	assert_non_null(d = calloc(1, sizeof(*d)));
	assert_non_null(d->intern = bgp_intern_new());
	assert_non_null(d->rib = bgp_rib_new(d->intern));
	assert_non_null(ar = lc_arena_new(0));
	d->local_as = 65001;
	d->enabled = true;
	d->router_id = A(198, 18, 1, 1);
	bgp_rib_set_local_as(d->rib, 65001);
	p1 = peer(A(198, 18, 2, 2), 65001, 1, false);
	p2 = peer(A(198, 18, 1, 2), 65002, 2, true);
	s1 = mk(100, ~0u, A(198, 18, 2, 2), 2, 1, 65100);
	s2 = mk(0, 5, A(198, 18, 1, 2), 0, 4, 65002, 65100, 65100, 65100);
	s3 = mk(0, ~0u, A(198, 18, 1, 2), 0, 1, 65002);
	assert_int_equal(bgp_rib_update(d->rib, 1, A(198, 18, 50, 0), 24, s1,
			     s1, 0),
	    1);
	assert_int_equal(bgp_rib_update(d->rib, 2, A(198, 18, 50, 0), 24, s2,
			     s2, 0),
	    1);
	assert_int_equal(bgp_rib_update(d->rib, 2, A(198, 18, 60, 0), 24, s3,
			     NULL, BGP_WHY_POLICY),
	    1);
	for (unsigned i = 0; i < 2000; i++) {
		unsigned j = (i * 7919) % 2000; /* a permutation */

		assert_int_equal(bgp_rib_update(d->rib, 1,
				     A(198, 19, j >> 8, j & 0xff), 32, s1, s1,
				     0),
		    1);
	}
	(void)bgp_rib_drain(d->rib, SIZE_MAX, emit, NULL);
	s4 = mk(100, ~0u, A(198, 18, 1, 1), 0, 2, 65001, 65100);
	assert_int_equal(bgp_adj_set(&p2->out, d->intern, A(198, 18, 50, 0), 24,
			     s4),
	    1);
	bgp_aset_unref(d->intern, s1);
	bgp_aset_unref(d->intern, s2);
	bgp_aset_unref(d->intern, s3);
	bgp_aset_unref(d->intern, s4);
	return (0);
}

static int
teardown(void **st)
{
	(void)st;
	for (unsigned i = 0; i < d->npeers; i++) {
		bgp_adj_clear(&d->peers[i]->out, d->intern);
		free(d->peers[i]);
	}
	bgp_rib_free(d->rib);
	bgp_intern_free(d->intern);
	lc_arena_free(ar);
	free(d);
	return (0);
}

/* One query into *l: 0 or the error. */
static int
ask(Bgp__RouteView v, uint32_t nbr, Bgp__RouteMatch mt, uint32_t pfx,
    unsigned len, unsigned limit, unsigned offset, Bgp__RouteList *l)
{
	Bgp__RouteQuery q = BGP__ROUTE_QUERY__INIT;
	struct lc_err err;

	lc_arena_reset(ar);
	q.view = v;
	q.neighbor = nbr;
	q.match = mt;
	q.prefix = pfx;
	q.len = len;
	q.limit = limit;
	q.offset = offset;
	lc_err_clear(&err);
	return (bgp_show_routes(d, &q, ar, l, &err));
}

static void
test_prefix(void **st)
{
	Bgp__RouteList l;
	const Bgp__Path *p;

	(void)st;
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_EXACT, A(198, 18, 50, 0),
			     24, 0, 0, &l),
	    0);
	assert_int_equal(l.total, 1);
	assert_int_equal(l.total_paths, 2);
	assert_false(l.more);
	assert_int_equal(l.local_as, 65001);
	assert_int_equal(l.router_id, A(198, 18, 1, 1));
	assert_int_equal(l.n_routes, 1);
	assert_int_equal(l.routes[0]->prefix, A(198, 18, 50, 0));
	assert_int_equal(l.routes[0]->len, 24);
	assert_false(l.routes[0]->pending);
	assert_int_equal(l.routes[0]->n_paths, 2);
	/* the best first */
	p = l.routes[0]->paths[0];
	assert_true(p->best && p->imported && !p->multipath && !p->stale);
	assert_int_equal(p->neighbor, A(198, 18, 2, 2));
	assert_int_equal(p->neighbor_as, 65001);
	assert_false(p->ebgp);
	assert_string_equal(p->attrs->as_path, "65100");
	assert_int_equal(p->attrs->as_path_len, 1);
	assert_int_equal(p->attrs->next_hop, A(198, 18, 2, 2));
	assert_true(p->attrs->has_local_pref);
	assert_int_equal(p->attrs->local_pref, 100);
	assert_false(p->attrs->has_med);
	assert_int_equal(p->attrs->n_communities, 2);
	assert_int_equal(p->attrs->communities[0], 65000u << 16 | 1);
	assert_int_equal(p->attrs->communities[1], 65000u << 16 | 2);
	/* the other and why it lost */
	p = l.routes[0]->paths[1];
	assert_false(p->best);
	assert_true(p->imported && p->ebgp);
	assert_int_equal(p->why, BGP__PATH_WHY__WHY_AS_PATH);
	assert_string_equal(p->why_text, "longer AS path");
	assert_string_equal(p->attrs->as_path, "65002 65100 65100 65100");
	assert_true(p->attrs->has_med);
	assert_int_equal(p->attrs->med, 5);
	assert_false(p->attrs->has_local_pref);
	assert_int_equal(p->attrs->local_pref, 100); /* what selection used */

	/* refused by policy: not used, attributes as received */
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_EXACT, A(198, 18, 60, 0),
			     24, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 1);
	p = l.routes[0]->paths[0];
	assert_false(p->best || p->imported);
	assert_int_equal(p->why, BGP__PATH_WHY__WHY_POLICY);
	assert_string_equal(p->why_text, "refused by import policy");
	assert_string_equal(p->attrs->as_path, "65002");

	/* the longest match of an address; none for one outside */
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_LONGEST,
			     A(198, 18, 50, 77), 0, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 1);
	assert_int_equal(l.routes[0]->prefix, A(198, 18, 50, 0));
	assert_int_equal(l.routes[0]->len, 24);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_LONGEST, A(198, 18, 51, 1),
			     0, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 0);
	assert_int_equal(l.total, 0);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_EXACT, A(198, 18, 50, 0),
			     25, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 0);
}

/* every prefix in order, a page at a time, and the longer match */
static void
test_walk(void **st)
{
	Bgp__RouteList l;
	uint64_t prev = 0;
	unsigned seen = 0;

	(void)st;
	for (unsigned off = 0; off < 2002; off += 300) {
		assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
				     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 300,
				     off, &l),
		    0);
		assert_int_equal(l.total, 2002);
		assert_int_equal(l.total_paths, 2003);
		assert_int_equal(l.offset, off);
		assert_int_equal(l.n_routes,
		    off + 300 <= 2002 ? 300 : 2002 - off);
		assert_int_equal(l.more, off + 300 < 2002);
		for (size_t i = 0; i < l.n_routes; i++) {
			uint64_t k = (uint64_t)ntohl(l.routes[i]->prefix) << 8 |
			    l.routes[i]->len;

			assert_true(seen == 0 || k > prev);
			prev = k;
			seen++;
		}
	}
	assert_int_equal(seen, 2002);
	/* the default page and the cap of a limit */
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 1000);
	assert_true(l.more);
	assert_int_equal(l.routes[0]->prefix, A(198, 18, 50, 0));
	assert_int_equal(l.routes[1]->prefix, A(198, 18, 60, 0));
	assert_int_equal(l.routes[2]->prefix, A(198, 19, 0, 0));
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 50000, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 2002);
	/* an offset past the end: nothing, no more */
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 10, 5000, &l),
	    0);
	assert_int_equal(l.n_routes, 0);
	assert_false(l.more);
	/* longer: 198.19.0.0/16 holds the 2000, 198.19.7.0/24 the last 208 */
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_LONGER, A(198, 19, 0, 0),
			     16, 10000, 0, &l),
	    0);
	assert_int_equal(l.total, 2000);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_LONGER, A(198, 19, 7, 0),
			     24, 10000, 0, &l),
	    0);
	assert_int_equal(l.total, 2000 - 7 * 256);
	assert_int_equal(l.routes[0]->prefix, A(198, 19, 7, 0));
	assert_int_equal(l.routes[l.n_routes - 1]->prefix, A(198, 19, 7, 207));
}

/* received: the neighbour's paths as received; advertised: what it is
 * sent, without LOCAL_PREF to eBGP */
static void
test_neighbor(void **st)
{
	Bgp__RouteList l;
	const Bgp__Path *p;

	(void)st;
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_RECEIVED, A(198, 18, 1, 2),
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 0, 0, &l),
	    0);
	assert_int_equal(l.neighbor_state, BGP__STATE__ESTABLISHED);
	assert_int_equal(l.total, 2);
	assert_int_equal(l.n_routes, 2);
	assert_int_equal(l.routes[0]->prefix, A(198, 18, 50, 0));
	assert_int_equal(l.routes[0]->n_paths, 1);
	p = l.routes[0]->paths[0];
	assert_int_equal(p->neighbor, A(198, 18, 1, 2));
	assert_true(p->imported);
	assert_false(p->best);
	assert_string_equal(p->why_text, "longer AS path");
	p = l.routes[1]->paths[0];
	assert_false(p->imported);
	assert_string_equal(p->why_text, "refused by import policy");
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_RECEIVED, A(198, 18, 2, 2),
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 5, 0, &l),
	    0);
	assert_int_equal(l.total, 2001);
	assert_true(l.routes[0]->paths[0]->best);

	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_ADVERTISED, A(198, 18, 1, 2),
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 0, 0, &l),
	    0);
	assert_int_equal(l.total, 1);
	assert_int_equal(l.routes[0]->prefix, A(198, 18, 50, 0));
	p = l.routes[0]->paths[0];
	assert_string_equal(p->attrs->as_path, "65001 65100");
	assert_int_equal(p->attrs->next_hop, A(198, 18, 1, 1));
	assert_false(p->attrs->has_local_pref); /* not sent to eBGP */
	assert_true(p->ebgp);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_ADVERTISED, A(198, 18, 1, 2),
			     BGP__ROUTE_MATCH__MATCH_LONGEST, A(198, 18, 50, 9),
			     0, 0, 0, &l),
	    0);
	assert_int_equal(l.n_routes, 1);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_ADVERTISED, A(198, 18, 2, 2),
			     BGP__ROUTE_MATCH__MATCH_ALL, 0, 0, 0, 0, &l),
	    0);
	assert_int_equal(l.total, 0);
}

static void
test_refused(void **st)
{
	Bgp__RouteQuery q = BGP__ROUTE_QUERY__INIT;
	Bgp__RouteList l;
	struct lc_err err;

	(void)st;
	q.view = BGP__ROUTE_VIEW__VIEW_RECEIVED;
	q.neighbor = A(198, 18, 1, 9);
	assert_int_equal(bgp_show_routes(d, &q, ar, &l, &err), -ENOENT);
	assert_string_equal(err.msg, "no neighbor 198.18.1.9");
	q.view = BGP__ROUTE_VIEW__VIEW_LOC_RIB;
	q.match = BGP__ROUTE_MATCH__MATCH_EXACT;
	q.len = 33;
	assert_int_equal(bgp_show_routes(d, &q, ar, &l, &err), -EINVAL);
	assert_string_equal(err.msg, "prefix length 33 is over 32");
	q.prefix = A(198, 18, 50, 1);
	q.len = 24;
	assert_int_equal(bgp_show_routes(d, &q, ar, &l, &err), -EINVAL);
	assert_string_equal(err.msg, "198.18.50.1/24: host bits set");
	q.len = 32;
	q.view = 7;
	assert_int_equal(bgp_show_routes(d, &q, ar, &l, &err), -EINVAL);
	q.view = BGP__ROUTE_VIEW__VIEW_LOC_RIB;
	q.match = 9;
	assert_int_equal(bgp_show_routes(d, &q, ar, &l, &err), -EINVAL);
}

/* long AS paths: a page stops at its size, far below the limit */
static void
test_size_cap(void **st)
{
	uint32_t as[250];
	struct bgp_aset *big;
	Bgp__RouteList l;
	size_t bytes = 0;

	(void)st;
	for (unsigned i = 0; i < 250; i++)
		as[i] = 4200000000u;
	big = mkp(0, ~0u, A(198, 18, 2, 2), 8, as, 250);
	for (unsigned i = 0; i < 10000; i++)
		assert_int_equal(bgp_rib_update(d->rib, 1,
				     A(198, 20, i >> 8, i & 0xff), 32, big, big,
				     0),
		    1);
	bgp_aset_unref(d->intern, big);
	assert_int_equal(ask(BGP__ROUTE_VIEW__VIEW_LOC_RIB, 0,
			     BGP__ROUTE_MATCH__MATCH_LONGER, A(198, 20, 0, 0),
			     16, 10000, 0, &l),
	    0);
	assert_int_equal(l.total, 10000);
	assert_true(l.more);
	assert_true(l.n_routes > 1000 && l.n_routes < 10000);
	for (size_t i = 0; i < l.n_routes; i++)
		bytes += strlen(l.routes[i]->paths[0]->attrs->as_path);
	/* 250 ASes of 10 digits: 2750 bytes a path; about 4 MB a page */
	assert_true(bytes < (5u << 20));
	assert_true(bytes > (3u << 20));
	assert_int_equal(strlen(l.routes[0]->paths[0]->attrs->as_path),
	    250 * 11 - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_prefix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_neighbor, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
