/* mgmt/mgmt_show_bgp.c: show bgp route and show bgp neighbor A
 * received-routes | advertised-routes (tern-bgp's QUERY_ROUTES), as a table
 * of one line per path, in detail (a single prefix, or `detail`) as Junos'
 * `show route protocol bgp detail` and FRR's `show bgp ipv4 unicast
 * PREFIX` do, or as JSON. */
#include "mgmt_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_inet6.h"

/* Prefixes one command shows: every path of each in detail is ~10 lines,
 * so a page stays readable and far below the IPC frame (tern-bgp also caps
 * a page by its size) */
#define SHOW_BGP_LIMIT 1000

static const char *
ip4(uint32_t nbo)
{
	struct lc_ip4 a = {nbo};

	return (lc_ip4_ntoa(a));
}

static const char *
pfx4(uint32_t nbo, unsigned len)
{
	struct lc_prefix4 p = {{nbo}, (uint8_t)len};

	return (lc_prefix4_ntoa(&p));
}

/* A route's prefix, IPv4 or IPv6 (RFC 5952 text). */
static const char *
pfx_of(const Bgp__Route *r)
{
	struct lc_prefix6 p = {.len = (uint8_t)r->len};

	if (r->prefix6.len != 16)
		return (pfx4(r->prefix, r->len));
	memcpy(p.addr.b, r->prefix6.data, 16);
	return (lc_prefix6_ntoa(&p));
}

/* A path's next hop: IPv6 (and its link-local one) when it has one. */
static const char *
nh_of(const Bgp__PathAttrs *a, char *buf, size_t n)
{
	struct lc_ip6 g, ll;

	if (a->next_hop6.len != 16)
		return (ip4(a->next_hop));
	memcpy(g.b, a->next_hop6.data, 16);
	if (a->next_hop6_ll.len != 16) {
		snprintf(buf, n, "%s", lc_ip6_ntoa(&g));
		return (buf);
	}
	memcpy(ll.b, a->next_hop6_ll.data, 16);
	snprintf(buf, n, "%s (%s)", lc_ip6_ntoa(&g), lc_ip6_ntoa(&ll));
	return (buf);
}

/* The query's prefix as RouteList says it: IPv4, or IPv6. */
static const char *
qpfx(const Bgp__RouteList *l, bool with_len)
{
	struct lc_prefix6 p = {.len = (uint8_t)l->len};

	if (!l->ipv6 || l->prefix6.len != 16)
		return (with_len ? pfx4(l->prefix, l->len) : ip4(l->prefix));
	memcpy(p.addr.b, l->prefix6.data, 16);
	return (with_len ? lc_prefix6_ntoa(&p) : lc_ip6_ntoa(&p.addr));
}

static const char *
origin_name(uint32_t o)
{
	return (o == 0 ? "IGP" : o == 1 ? "EGP" : "incomplete");
}

static char
origin_code(uint32_t o)
{
	return (o == 0 ? 'i' : o == 1 ? 'e' : '?');
}

static const char *
view_name(Bgp__RouteView v)
{
	return (v == BGP__ROUTE_VIEW__VIEW_RECEIVED   ? "received" :
		v == BGP__ROUTE_VIEW__VIEW_ADVERTISED ? "advertised" :
							"loc-rib");
}

static const char *
state_name(Bgp__State st)
{
	static const char *const n[] = {"Idle", "Connect", "Active", "OpenSent",
	    "OpenConfirm", "Established"};

	return ((unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "unknown");
}

/* "65000:100", or its well-known name (text only: JSON keeps numbers) */
static const char *
comm_str(uint32_t v, bool names, char *buf, size_t n)
{
	const char *nm = names ? mgmt_comm_name(v) : NULL;

	if (nm != NULL)
		snprintf(buf, n, "%s", nm);
	else
		snprintf(buf, n, "%u:%u", v >> 16, v & 0xffff);
	return (buf);
}

/* RFC 4360's route target and route origin of the three AS/IPv4 kinds
 * ("rt 65000:100", "soo 198.18.1.1:7"), else the 8 octets in hex */
static const char *
ext_str(uint64_t v, char *buf, size_t n)
{
	unsigned type = (unsigned)(v >> 56), sub = (unsigned)(v >> 48) & 0xff;
	const char *kind = sub == 2 ? "rt" : sub == 3 ? "soo" : NULL;

	if (kind != NULL && type == 0x00)
		snprintf(buf, n, "%s %u:%u", kind, (unsigned)(v >> 32) & 0xffff,
		    (unsigned)v);
	else if (kind != NULL && type == 0x01)
		snprintf(buf, n, "%s %s:%u", kind,
		    ip4(htonl((uint32_t)(v >> 16))), (unsigned)v & 0xffff);
	else if (kind != NULL && type == 0x02)
		snprintf(buf, n, "%s %u:%u", kind, (unsigned)(v >> 16),
		    (unsigned)v & 0xffff);
	else
		snprintf(buf, n, "0x%016llx", (unsigned long long)v);
	return (buf);
}

/* ---- JSON ------------------------------------------------------------------------ */

#define JS(o, k, v) json_object_object_add(o, k, json_object_new_string(v))
#define JI(o, k, v) \
	json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
#define JB(o, k, v) json_object_object_add(o, k, json_object_new_boolean(v))

/* The attributes into the path's object. lp: LOCAL_PREF also when absent
 * (the Loc-RIB view: the value selection used). */
static void
attrs_json(json_object *o, const Bgp__PathAttrs *a, bool lp)
{
	json_object *arr;
	char b[64];

	JS(o, "origin", origin_name(a->origin));
	JS(o, "as_path", a->as_path != NULL ? a->as_path : "");
	JI(o, "as_path_length", a->as_path_len);
	JS(o, "next_hop", ip4(a->next_hop));
	if (a->has_med)
		JI(o, "med", a->med);
	if (lp || a->has_local_pref)
		JI(o, "local_pref", a->local_pref);
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_communities; i++)
		json_object_array_add(arr,
		    json_object_new_string(
			comm_str(a->communities[i], false, b, sizeof(b))));
	json_object_object_add(o, "communities", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_large_communities; i++) {
		const Bgp__LargeCommunity *l = a->large_communities[i];

		snprintf(b, sizeof(b), "%u:%u:%u", l->global, l->local1,
		    l->local2);
		json_object_array_add(arr, json_object_new_string(b));
	}
	json_object_object_add(o, "large_communities", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_ext_communities; i++)
		json_object_array_add(arr,
		    json_object_new_string(
			ext_str(a->ext_communities[i], b, sizeof(b))));
	json_object_object_add(o, "extended_communities", arr);
	JB(o, "atomic_aggregate", a->atomic_aggregate);
	if (a->aggregator_as != 0) {
		json_object *g = json_object_new_object();

		JI(g, "as", a->aggregator_as);
		JS(g, "id", ip4(a->aggregator_id));
		json_object_object_add(o, "aggregator", g);
	}
	if (a->originator_id != 0)
		JS(o, "originator_id", ip4(a->originator_id));
	if (a->n_cluster_list > 0) {
		arr = json_object_new_array();
		for (size_t i = 0; i < a->n_cluster_list; i++)
			json_object_array_add(arr,
			    json_object_new_string(ip4(a->cluster_list[i])));
		json_object_object_add(o, "cluster_list", arr);
	}
}

static json_object *
path_json(const Bgp__Path *p, Bgp__RouteView v)
{
	json_object *o = json_object_new_object();

	JS(o, "neighbor", ip4(p->neighbor));
	JI(o, "neighbor_as", p->neighbor_as);
	JS(o, "router_id", ip4(p->router_id));
	JB(o, "ebgp", p->ebgp);
	if (v != BGP__ROUTE_VIEW__VIEW_ADVERTISED) {
		JB(o, "best", p->best);
		JB(o, "multipath", p->multipath);
		JB(o, "stale", p->stale);
		JB(o, "imported", p->imported);
		JS(o, "why", p->why_text != NULL ? p->why_text : "");
	}
	if (p->attrs != NULL)
		attrs_json(o, p->attrs, v == BGP__ROUTE_VIEW__VIEW_LOC_RIB);
	return (o);
}

/* {"view", "total", "total_paths", "offset", "more", "routes": [{"prefix",
 * "pending", "paths": [...]}]}, with the neighbour for its views */
static void
routes_json(json_object *jo, const Bgp__RouteList *l)
{
	json_object *arr = json_object_new_array();

	JS(jo, "view", view_name(l->view));
	if (l->view != BGP__ROUTE_VIEW__VIEW_LOC_RIB) {
		JS(jo, "neighbor", ip4(l->neighbor));
		JS(jo, "neighbor_state", state_name(l->neighbor_state));
	}
	JI(jo, "local_as", l->local_as);
	JS(jo, "router_id", ip4(l->router_id));
	JI(jo, "total", l->total);
	JI(jo, "total_paths", l->total_paths);
	JI(jo, "offset", l->offset);
	JB(jo, "more", l->more);
	for (size_t i = 0; i < l->n_routes; i++) {
		const Bgp__Route *r = l->routes[i];
		json_object *o = json_object_new_object(), *ps;

		JS(o, "prefix", pfx_of(r));
		JB(o, "pending", r->pending);
		ps = json_object_new_array();
		for (size_t k = 0; k < r->n_paths; k++)
			json_object_array_add(ps,
			    path_json(r->paths[k], l->view));
		json_object_object_add(o, "paths", ps);
		json_object_array_add(arr, o);
	}
	json_object_object_add(jo, "routes", arr);
}

/* ---- text ------------------------------------------------------------------------ */

static void
attrs_text(struct lc_buf *out, const Bgp__PathAttrs *a, bool lp,
    const char *ind)
{
	char b[64], nhb[2 * LC_IP6_STRLEN + 4];

	lc_buf_printf(out, "%sAS path %s, origin %s\n", ind,
	    a->as_path != NULL && a->as_path[0] != '\0' ? a->as_path :
							  "(empty)",
	    origin_name(a->origin));
	lc_buf_printf(out, "%snext hop %s", ind, nh_of(a, nhb, sizeof(nhb)));
	if (a->has_med)
		lc_buf_printf(out, ", MED %u", a->med);
	if (lp || a->has_local_pref)
		lc_buf_printf(out, ", local-preference %u", a->local_pref);
	lc_buf_printf(out, "\n");
	if (a->n_communities > 0) {
		lc_buf_printf(out, "%scommunities", ind);
		for (size_t i = 0; i < a->n_communities; i++)
			lc_buf_printf(out, " %s",
			    comm_str(a->communities[i], true, b, sizeof(b)));
		lc_buf_printf(out, "\n");
	}
	if (a->n_large_communities > 0) {
		lc_buf_printf(out, "%slarge communities", ind);
		for (size_t i = 0; i < a->n_large_communities; i++)
			lc_buf_printf(out, " %u:%u:%u",
			    a->large_communities[i]->global,
			    a->large_communities[i]->local1,
			    a->large_communities[i]->local2);
		lc_buf_printf(out, "\n");
	}
	if (a->n_ext_communities > 0) {
		lc_buf_printf(out, "%sextended communities", ind);
		for (size_t i = 0; i < a->n_ext_communities; i++)
			lc_buf_printf(out, " %s",
			    ext_str(a->ext_communities[i], b, sizeof(b)));
		lc_buf_printf(out, "\n");
	}
	if (a->atomic_aggregate || a->aggregator_as != 0) {
		lc_buf_printf(out, "%s%s%s", ind,
		    a->atomic_aggregate ? "atomic-aggregate" : "",
		    a->atomic_aggregate && a->aggregator_as ? ", " : "");
		if (a->aggregator_as != 0)
			lc_buf_printf(out, "aggregator AS %u %s",
			    a->aggregator_as, ip4(a->aggregator_id));
		lc_buf_printf(out, "\n");
	}
	if (a->originator_id != 0 || a->n_cluster_list > 0) {
		lc_buf_printf(out, "%s", ind);
		if (a->originator_id != 0)
			lc_buf_printf(out, "originator %s%s",
			    ip4(a->originator_id),
			    a->n_cluster_list ? ", " : "");
		if (a->n_cluster_list > 0)
			lc_buf_printf(out, "cluster list");
		for (size_t i = 0; i < a->n_cluster_list; i++)
			lc_buf_printf(out, " %s", ip4(a->cluster_list[i]));
		lc_buf_printf(out, "\n");
	}
}

/* "best", "multipath, not best: higher router id", "not best: longer AS
 * path", "not used: refused by import policy" (received: "not imported:
 * ..."); ", stale" after it */
static void
path_state(struct lc_buf *out, const Bgp__Path *p, bool recv)
{
	const char *why = p->why_text != NULL ? p->why_text : "";

	if (!p->imported)
		lc_buf_printf(out, "%s: %s", recv ? "not imported" : "not used",
		    why);
	else if (p->best)
		lc_buf_printf(out, "%sbest", recv ? "imported, " : "");
	else if (p->multipath)
		lc_buf_printf(out, "%smultipath, not best: %s",
		    recv ? "imported, " : "", why);
	else
		lc_buf_printf(out, "%snot best: %s", recv ? "imported, " : "",
		    why);
	if (p->stale)
		lc_buf_printf(out, ", stale (graceful restart)");
}

static char
path_mark(const Bgp__Path *p)
{
	return (p->best ? '*' : p->multipath ? '=' : !p->imported ? 'x' : '+');
}

/* "(AS 65002, eBGP, router id 198.18.1.2)" */
static void
nbr_text(struct lc_buf *out, const Bgp__Path *p)
{
	lc_buf_printf(out, "%s (AS %u, %s, router id %s)", ip4(p->neighbor),
	    p->neighbor_as, p->ebgp ? "eBGP" : "iBGP", ip4(p->router_id));
}

static const char *
plural(uint64_t n, const char *one, const char *many)
{
	return (n == 1 ? one : many);
}

/* The view's first line: what these routes are. */
static void
header_text(struct lc_buf *out, const Bgp__RouteList *l)
{
	const char *st = state_name(l->neighbor_state);

	switch (l->view) {
	case BGP__ROUTE_VIEW__VIEW_RECEIVED:
		lc_buf_printf(out,
		    "Routes received from %s (as received, before import "
		    "policy), session %s\n",
		    ip4(l->neighbor), st);
		break;
	case BGP__ROUTE_VIEW__VIEW_ADVERTISED:
		lc_buf_printf(out,
		    "Routes advertised to %s (attributes as sent), session "
		    "%s\n",
		    ip4(l->neighbor), st);
		break;
	default:
		lc_buf_printf(out, "BGP routes of local AS %u, router id %s\n",
		    l->local_as, ip4(l->router_id));
		break;
	}
}

/* Nothing matched: what was asked, in one line. */
static void
none_text(struct lc_buf *out, const Bgp__RouteList *l)
{
	const char *what = l->view == BGP__ROUTE_VIEW__VIEW_RECEIVED ?
	    "received from" :
	    l->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED ? "advertised to" :
							  NULL;
	char nb[64] = "";

	if (what != NULL)
		snprintf(nb, sizeof(nb), " %s %s", what, ip4(l->neighbor));
	switch (l->match) {
	case BGP__ROUTE_MATCH__MATCH_EXACT:
		lc_buf_printf(out, "no BGP route for %s%s\n", qpfx(l, true),
		    nb);
		break;
	case BGP__ROUTE_MATCH__MATCH_LONGEST:
		lc_buf_printf(out, "no BGP route%s covers %s\n", nb,
		    qpfx(l, false));
		break;
	case BGP__ROUTE_MATCH__MATCH_LONGER:
		lc_buf_printf(out, "no BGP route%s in %s\n", nb, qpfx(l, true));
		break;
	default:
		lc_buf_printf(out, "no %sBGP routes%s\n",
		    l->ipv6 ? "IPv6 " : "", nb);
		break;
	}
	if (what != NULL && l->neighbor_state != BGP__STATE__ESTABLISHED)
		lc_buf_printf(out, "(the session is %s)\n",
		    state_name(l->neighbor_state));
}

/* "2 prefixes, 3 paths", and what was left out */
static void
footer_text(struct lc_buf *out, const Bgp__RouteList *l)
{
	uint64_t shown = l->offset + l->n_routes,
		 rest = l->total > shown ? l->total - shown : 0;

	lc_buf_printf(out, "%llu %s", (unsigned long long)l->total,
	    plural(l->total, "prefix", "prefixes"));
	if (l->view == BGP__ROUTE_VIEW__VIEW_LOC_RIB)
		lc_buf_printf(out, ", %llu %s",
		    (unsigned long long)l->total_paths,
		    plural(l->total_paths, "path", "paths"));
	lc_buf_printf(out, "\n");
	if (!l->more)
		return;
	lc_buf_printf(out, "... %llu more %s not shown, give a prefix: ",
	    (unsigned long long)rest, plural(rest, "prefix", "prefixes"));
	if (l->view == BGP__ROUTE_VIEW__VIEW_LOC_RIB)
		lc_buf_printf(out, "show bgp route PREFIX [longer]\n");
	else
		lc_buf_printf(out, "show bgp neighbor %s %s PREFIX [longer]\n",
		    ip4(l->neighbor),
		    l->view == BGP__ROUTE_VIEW__VIEW_RECEIVED ?
			"received-routes" :
			"advertised-routes");
}

/*
 * 198.18.50.0/24: 2 paths
 *   * 198.18.2.2 (AS 65001, iBGP, router id 198.18.2.2): best
 *       AS path 65100, origin IGP
 *       next hop 198.18.2.2, local-preference 100
 *   + 198.18.1.2 (AS 65002, eBGP, router id 198.18.1.2): not best: longer
 *     AS path ...
 * (received: one path, "imported" or not; advertised: the attributes sent)
 */
static void
render_detail(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Bgp__RouteList *l = (const Bgp__RouteList *)msg;
	bool loc = l->view == BGP__ROUTE_VIEW__VIEW_LOC_RIB, one;

	(void)m;
	if (jo != NULL) {
		routes_json(jo, l);
		return;
	}
	if (l->n_routes == 0 && l->offset == 0) {
		none_text(out, l);
		return;
	}
	one = l->match == BGP__ROUTE_MATCH__MATCH_EXACT ||
	    l->match == BGP__ROUTE_MATCH__MATCH_LONGEST;
	if (!one || !loc)
		header_text(out, l);
	for (size_t i = 0; i < l->n_routes; i++) {
		const Bgp__Route *r = l->routes[i];

		lc_buf_printf(out, "%s%s", one && loc ? "" : "\n", pfx_of(r));
		if (l->match == BGP__ROUTE_MATCH__MATCH_LONGEST)
			lc_buf_printf(out, " (longest match for %s)",
			    qpfx(l, false));
		if (loc) {
			bool best = false;

			for (size_t k = 0; k < r->n_paths; k++)
				best |= r->paths[k]->best;
			lc_buf_printf(out, ": %zu %s%s%s\n", r->n_paths,
			    plural(r->n_paths, "path", "paths"),
			    best ? "" : ", none usable",
			    r->pending ? ", best path being chosen again" : "");
		} else if (l->view == BGP__ROUTE_VIEW__VIEW_RECEIVED &&
		    r->n_paths > 0) {
			lc_buf_printf(out, ": ");
			path_state(out, r->paths[0], true);
			lc_buf_printf(out, "\n");
		} else {
			lc_buf_printf(out, "\n");
		}
		for (size_t k = 0; k < r->n_paths; k++) {
			const Bgp__Path *p = r->paths[k];

			if (loc) {
				lc_buf_printf(out, "  %c ", path_mark(p));
				nbr_text(out, p);
				lc_buf_printf(out, ": ");
				path_state(out, p, false);
				lc_buf_printf(out, "\n");
			}
			if (p->attrs != NULL)
				attrs_text(out, p->attrs, loc,
				    loc ? "      " : "    ");
		}
	}
	if (!one) {
		lc_buf_printf(out, "\n");
		footer_text(out, l);
	}
}

/*
 * Status: * best, = multipath, + usable, x not used, S stale
 *    Prefix             Next hop         MED        LocPrf     From             AS path
 * *  198.18.50.0/24     198.18.2.2       -          100        198.18.2.2       65100 i
 * +                     198.18.1.2       -          100        198.18.1.2       65002 65100 i
 * (received: no From column, + imported; advertised: no status, no From)
 */
static void
render_table(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Bgp__RouteList *l = (const Bgp__RouteList *)msg;
	bool loc = l->view == BGP__ROUTE_VIEW__VIEW_LOC_RIB,
	     adv = l->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED;

	(void)m;
	if (jo != NULL) {
		routes_json(jo, l);
		return;
	}
	if (l->n_routes == 0 && l->offset == 0) {
		none_text(out, l);
		return;
	}
	header_text(out, l);
	if (!adv)
		lc_buf_printf(out,
		    "Status: * best, = multipath, + %s, x %s, S stale\n",
		    loc ? "usable" : "imported",
		    loc ? "not used" : "not imported");
	lc_buf_printf(out, "   %-18s %-16s %-10s %-10s ", "Prefix", "Next hop",
	    "MED", "LocPrf");
	if (loc)
		lc_buf_printf(out, "%-16s ", "From");
	lc_buf_printf(out, "AS path\n");
	for (size_t i = 0; i < l->n_routes; i++) {
		const Bgp__Route *r = l->routes[i];

		for (size_t k = 0; k < r->n_paths; k++) {
			const Bgp__Path *p = r->paths[k];
			const Bgp__PathAttrs *a = p->attrs;
			char med[12] = "-", lp[12] = "-",
			     nhb[2 * LC_IP6_STRLEN + 4];

			if (a == NULL)
				continue;
			if (a->has_med)
				snprintf(med, sizeof(med), "%u", a->med);
			if (loc || a->has_local_pref)
				snprintf(lp, sizeof(lp), "%u", a->local_pref);
			lc_buf_printf(out, "%c%c %-18s %-16s %-10s %-10s ",
			    adv ? ' ' : path_mark(p),
			    !adv && p->stale ? 'S' : ' ',
			    k == 0 ? pfx_of(r) : "", nh_of(a, nhb, sizeof(nhb)),
			    med, lp);
			if (loc)
				lc_buf_printf(out, "%-16s ", ip4(p->neighbor));
			lc_buf_printf(out, "%s%s%c",
			    a->as_path ? a->as_path : "",
			    a->as_path && a->as_path[0] ? " " : "",
			    origin_code(a->origin));
			if (!adv && !p->imported)
				lc_buf_printf(out, " (%s)",
				    p->why_text ? p->why_text : "");
			lc_buf_printf(out, "\n");
		}
	}
	footer_text(out, l);
}

/* ---- the commands ------------------------------------------------------------------- */

/* [PREFIX [longer] | ADDRESS] [detail] into q; *detail for the form. */
static int
route_args(const char *cmd, const char *const *w, unsigned nw,
    Bgp__RouteQuery *q, bool *detail, struct lc_err *err)
{
	static struct lc_prefix6 p6; /* q->prefix6 points here */
	struct lc_prefix4 p;
	struct lc_ip4 a, host;
	struct lc_err e6;
	unsigned i = 0;

	*detail = false;
	q->limit = SHOW_BGP_LIMIT;
	if (i < nw && strcmp(w[i], "inet6") == 0) {
		q->ipv6 = true;
		i++;
	}
	if (i < nw && strchr(w[i], ':') != NULL) {
		/* IPv6 unicast: a prefix [longer], or an address */
		lc_err_clear(&e6);
		q->ipv6 = true;
		q->prefix6.data = p6.addr.b;
		q->prefix6.len = 16;
		if (strchr(w[i], '/') != NULL ?
			lc_inet6_prefix_parse(w[i], 0, &p6, NULL, &e6) != 0 :
			lc_inet6_parse(w[i], 0, &p6.addr, NULL, &e6) != 0) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: invalid IPv6 %s '%s': %s", cmd,
			    strchr(w[i], '/') ? "prefix" : "address", w[i],
			    e6.msg);
			return (MGMT_E_SYNTAX);
		}
		if (strchr(w[i], '/') == NULL)
			p6.len = 128;
		q->match = strchr(w[i], '/') != NULL ?
		    BGP__ROUTE_MATCH__MATCH_EXACT :
		    BGP__ROUTE_MATCH__MATCH_LONGEST;
		q->len = p6.len;
		i++;
	} else if (q->ipv6) {
		/* inet6 alone: the whole IPv6 table */
	} else if (i < nw && lc_prefix4_parse(w[i], &p) == 0) {
		q->match = BGP__ROUTE_MATCH__MATCH_EXACT;
		q->prefix = p.addr.s_addr;
		q->len = p.len;
		i++;
	} else if (i < nw && lc_ip4_parse(w[i], &a) == 0) {
		q->match = BGP__ROUTE_MATCH__MATCH_LONGEST;
		q->prefix = a.s_addr;
		i++;
	} else if (i < nw && lc_prefix4_parse_loose(w[i], &p, &host) == 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: %s has host bits set (the prefix is %s)", cmd, w[i],
		    lc_prefix4_ntoa(&p));
		return (MGMT_E_SYNTAX);
	}
	for (; i < nw; i++) {
		if (strcmp(w[i], "longer") == 0 &&
		    q->match == BGP__ROUTE_MATCH__MATCH_EXACT)
			q->match = BGP__ROUTE_MATCH__MATCH_LONGER;
		else if (strcmp(w[i], "detail") == 0)
			*detail = true;
		else
			return (mgmt_show_bad_args(err, cmd,
			    "a.b.c.d/len [longer], a.b.c.d, inet6, x:x::x/len "
			    "[longer], x:x::x or detail",
			    w[i]));
	}
	/* one prefix: in detail, as FRR and Junos show one */
	if (q->match == BGP__ROUTE_MATCH__MATCH_EXACT ||
	    q->match == BGP__ROUTE_MATCH__MATCH_LONGEST)
		*detail = true;
	return (MGMT_OK);
}

int
mgmt_show_bgp_route(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_err *err)
{
	Bgp__RouteQuery q = BGP__ROUTE_QUERY__INIT;
	bool detail;
	int rv;

	if ((rv = route_args("show bgp route", w, nw, &q, &detail, err)) !=
	    MGMT_OK)
		return (rv);
	if (!mgmt_show_bgp_up(op))
		return (mgmt_show_bgp_down(op, err));
	return (mgmt_show_ask(op, MGMT_PEER_BGP, BGP__METHOD__QUERY_ROUTES,
	    &q.base, detail ? render_detail : render_table, err));
}

int
mgmt_show_bgp_adj(const struct mgmt_op *op, struct lc_ip4 nbr, bool advertised,
    const char *const *w, unsigned nw, struct lc_err *err)
{
	Bgp__RouteQuery q = BGP__ROUTE_QUERY__INIT;
	bool detail;
	int rv;

	rv = route_args(advertised ? "show bgp neighbor advertised-routes" :
				     "show bgp neighbor received-routes",
	    w, nw, &q, &detail, err);
	if (rv != MGMT_OK)
		return (rv);
	q.view = advertised ? BGP__ROUTE_VIEW__VIEW_ADVERTISED :
			      BGP__ROUTE_VIEW__VIEW_RECEIVED;
	q.neighbor = nbr.s_addr;
	if (!mgmt_show_bgp_up(op))
		return (mgmt_show_bgp_down(op, err));
	return (mgmt_show_ask(op, MGMT_PEER_BGP, BGP__METHOD__QUERY_ROUTES,
	    &q.base, detail ? render_detail : render_table, err));
}
