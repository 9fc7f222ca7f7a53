/* mgmt/mgmt_conf_validate.c: whole-tree and per-change validation (constraints,
 * references, duplicates, limits). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "libcommon/lc_inet6.h"
#include "mgmt/mgmt_conf_int.h"

static const struct mgmt_node *
ifaces_of(const struct mgmt_conf *conf)
{
	return (mgmt_node_find_sid(conf->root, MGMT_S_INTERFACES));
}

static const struct mgmt_node *
find_iface(const struct mgmt_conf *conf, const char *name)
{
	struct mgmt_key k = {MGMT_S_IFACE, 0, name};

	return (mgmt_node_find(ifaces_of(conf), &k));
}

static void
iface_names(const struct mgmt_conf *conf, char *buf, size_t sz)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;
	size_t off = 0;
	int n = 0;

	buf[0] = '\0';
	mgmt_iter_init(&it, ifaces_of(conf));
	while ((c = mgmt_iter_next(&it)) != NULL && off + 20 < sz) {
		if (n == 8) {
			snprintf(buf + off, sz - off, ", ...");
			return;
		}
		off += (size_t)snprintf(buf + off, sz - off, "%s%s",
		    n++ ? ", " : "", c->value);
	}
	if (n == 0)
		snprintf(buf, sz, "none");
}

static bool
nh_unicast(uint32_t a)
{
	return (
	    a != 0 && a != 0xffffffffu && (a >> 28) != 0xe && (a >> 24) != 127);
}

/* ---- IPv6 ----------------------------------------------------------------------- */

static bool
ip6_zero(const struct lc_ip6 *a, unsigned from)
{
	for (unsigned i = from; i < 16; i++)
		if (a->b[i] != 0)
			return (false);
	return (true);
}

/* a is none of ::, ::1, multicast or IPv4-mapped: "" when it is unicast,
 * else what it is */
static const char *
ip6_not_unicast(const struct lc_ip6 *a)
{
	if (ip6_zero(a, 0))
		return ("the unspecified address ::");
	if (a->b[15] == 1 && memcmp(a->b, (const uint8_t[15]){0}, 15) == 0)
		return ("the loopback address ::1");
	if (lc_ip6_is_multicast(a))
		return ("a multicast address");
	if (lc_ip6_is_v4mapped(a))
		return ("an IPv4-mapped address");
	return ("");
}

static bool
pfx6_contains(const struct lc_prefix6 *p, const struct lc_ip6 *a)
{
	unsigned full = p->len / 8, rest = p->len % 8;

	if (memcmp(p->addr.b, a->b, full) != 0)
		return (false);
	return (rest == 0 ||
	    ((p->addr.b[full] ^ a->b[full]) & (0xff00u >> rest) & 0xff) == 0);
}

/* The n-th child of u of schema sid (u itself if there is none). */
static const struct mgmt_node *
nth_node(const struct mgmt_node *u, unsigned sid, unsigned n)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_iter_init(&it, u);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == sid && n-- == 0)
			return (c);
	return (u);
}

/* A static route's next hop c: of the route's family, unicast, and a
 * link-local one only with the route's interface. */
static int
validate_nh6(const struct mgmt_node *u, const struct mgmt_route_conf *r,
    const struct mgmt_node *c, struct lc_err *err)
{
	bool v6 = (c->kbin >> 63) != 0;
	struct lc_ip6 a;
	struct lc_err e;
	const char *why;

	if (v6 != (r->family == AF_INET6)) {
		mgmt_err_node(err, c,
		    "static route %s: next-hop %s is an IPv%c address, the "
		    "route is IPv%c",
		    u->value, c->value, v6 ? '6' : '4', v6 ? '4' : '6');
		return (-EINVAL);
	}
	if (!v6 || lc_inet6_parse(c->value, 0, &a, NULL, &e) != 0)
		return (0);
	if ((why = ip6_not_unicast(&a))[0] != '\0') {
		mgmt_err_node(err, c,
		    "static route %s: next-hop %s is not a unicast address "
		    "(%s)",
		    u->value, c->value, why);
		return (-EINVAL);
	}
	if (lc_ip6_is_linklocal(&a) && r->ifname[0] == '\0') {
		mgmt_err_node(err, c,
		    "static route %s: next-hop %s is link-local: it needs its "
		    "interface (next-hop %s interface NAME)",
		    u->value, c->value, c->value);
		return (-EINVAL);
	}
	return (0);
}

/* inet6 address i of u (a: its view): a unicast host address, not
 * link-local, not the subnet's Subnet-Router anycast address. */
static int
validate_addr6(const struct mgmt_node *u, const struct mgmt_iface_conf *a,
    unsigned i, struct lc_err *err)
{
	const struct mgmt_node *in6 = mgmt_node_find_sid(u, MGMT_S_IFACE_INET6);
	const struct mgmt_node *c = nth_node(in6, MGMT_S_IFACE_INET6_ADDRESS,
	    i);
	const struct lc_ip6 *h = &a->host6[i];
	const char *why = ip6_not_unicast(h);
	char hb[LC_IP6_STRLEN];

	if (why[0] != '\0') {
		mgmt_err_node(err, c,
		    "interface %s: inet6 address %s is not a unicast address "
		    "(%s)",
		    u->value, c->value, why);
		return (-EINVAL);
	}
	if (lc_ip6_is_linklocal(h)) {
		mgmt_err_node(err, c,
		    "interface %s: inet6 address %s is link-local: write it as "
		    "link-local %s",
		    u->value, c->value, lc_inet6_str(h, hb));
		return (-EINVAL);
	}
	if (a->addr6[i].len == 0 ||
	    (a->addr6[i].len < 127 && memcmp(h, &a->addr6[i].addr, 16) == 0)) {
		mgmt_err_node(err, c,
		    "interface %s: inet6 address %s is not a host address of "
		    "its subnet%s",
		    u->value, c->value,
		    a->addr6[i].len == 0 ?
			"" :
			" (it is the Subnet-Router anycast address)");
		return (-EINVAL);
	}
	return (0);
}

/* The IPv6 parts of interface u: addresses, link-local, router
 * advertisements, static neighbours. */
static int
validate_iface6(const struct mgmt_node *u, const struct mgmt_iface_conf *a,
    struct lc_err *err)
{
	const struct mgmt_node *in6 = mgmt_node_find_sid(u, MGMT_S_IFACE_INET6);
	const struct mgmt_node *ra = mgmt_node_find_sid(u, MGMT_S_IFACE_RA), *c;
	struct mgmt_iter it;
	unsigned n = 0;

	mgmt_iter_init(&it, in6);
	while (in6 != NULL && (c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == MGMT_S_IFACE_INET6_ADDRESS &&
		    ++n > MGMT_MAX_ADDRS) {
			mgmt_err_node(err, c,
			    "interface %s: more than %d inet6 addresses",
			    u->value, MGMT_MAX_ADDRS);
			return (-EINVAL);
		}
	for (unsigned i = 0; i < a->naddr6; i++)
		if (validate_addr6(u, a, i, err) != 0)
			return (-EINVAL);
	if (a->inet6_disable &&
	    (a->naddr6 > 0 || a->ll6_set || a->ra || a->nndp > 0)) {
		mgmt_err_node(err,
		    mgmt_node_find_sid(in6, MGMT_S_IFACE_INET6_DISABLE),
		    "interface %s: inet6 disable excludes %s", u->value,
		    a->naddr6 > 0  ? "inet6 address" :
			a->ll6_set ? "link-local" :
			a->ra	   ? "router-advertisement" :
				     "ndp");
		return (-EINVAL);
	}
	if (a->ll6_set) {
		struct lc_prefix6 ll = {.addr = {{0xfe, 0x80}}, .len = 64};

		c = mgmt_node_find_sid(u, MGMT_S_IFACE_LINKLOCAL);
		if (!pfx6_contains(&ll, &a->ll6) || ip6_zero(&a->ll6, 8)) {
			mgmt_err_node(err, c,
			    "interface %s: link-local %s is not a link-local "
			    "address (fe80::/64, not fe80::): a global one "
			    "goes in inet6 address",
			    u->value, c->value);
			return (-EINVAL);
		}
	}
	if (a->ra && a->ra_lifetime_set &&
	    a->ra_lifetime < (a->ra_interval ? a->ra_interval : 600)) {
		mgmt_err_node(err,
		    mgmt_node_find_sid(ra, MGMT_S_IFACE_RA_LIFETIME),
		    "interface %s: router-advertisement lifetime %u is below "
		    "max-interval %u (RFC 4861 6.2.1)",
		    u->value, a->ra_lifetime,
		    a->ra_interval ? a->ra_interval : 600);
		return (-EINVAL);
	}
	mgmt_iter_init(&it, ra);
	while (ra != NULL && (c = mgmt_iter_next(&it)) != NULL) {
		struct lc_prefix6 p;
		struct lc_err e;

		if (c->sid != MGMT_S_IFACE_RA_PREFIX ||
		    lc_inet6_prefix_parse(c->value, 0, &p, NULL, &e) != 0)
			continue;
		if (p.len == 0 || lc_ip6_is_linklocal(&p.addr) ||
		    lc_ip6_is_multicast(&p.addr)) {
			mgmt_err_node(err, c,
			    "interface %s: router-advertisement prefix %s: "
			    "expected a global unicast prefix",
			    u->value, c->value);
			return (-EINVAL);
		}
	}
	for (unsigned i = 0; i < a->nndp; i++) {
		const struct lc_ip6 *ip = &a->ndp_ip[i];
		const char *why = ip6_not_unicast(ip);
		bool on = lc_ip6_is_linklocal(ip);

		c = nth_node(u, MGMT_S_IFACE_NDP, i);
		if (a->ndp_nomac[i]) {
			mgmt_err_node(err, c,
			    "interface %s: ndp %s: expected mac", u->value,
			    c->value);
			return (-EINVAL);
		}
		if (why[0] != '\0') {
			mgmt_err_node(err, c,
			    "interface %s: ndp %s: not a unicast address (%s)",
			    u->value, c->value, why);
			return (-EINVAL);
		}
		for (unsigned j = 0; j < a->naddr6; j++) {
			if (memcmp(ip, &a->host6[j], 16) == 0 ||
			    (a->ll6_set && memcmp(ip, &a->ll6, 16) == 0)) {
				mgmt_err_node(err, c,
				    "interface %s: ndp %s: the interface's own "
				    "address",
				    u->value, c->value);
				return (-EINVAL);
			}
			on |= pfx6_contains(&a->addr6[j], ip);
		}
		if (!on) {
			mgmt_err_node(err, c,
			    "interface %s: ndp %s: neither link-local nor in "
			    "an inet6 subnet of the interface",
			    u->value, c->value);
			return (-EINVAL);
		}
	}
	return (0);
}

static int
validate_route(const struct mgmt_conf *conf, const struct mgmt_node *u,
    struct lc_err *err)
{
	struct mgmt_route_conf r;
	const struct mgmt_node *c;
	struct mgmt_iter it;
	unsigned nnh = 0;
	char names[200];

	mgmt_conf_route_get(u, &r);
	mgmt_iter_init(&it, u);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		if (c->sid != MGMT_S_ROUTE_NH)
			continue;
		if (++nnh > MGMT_MAX_NH) {
			mgmt_err_node(err, c,
			    "static route %s: more than %d "
			    "next hops",
			    u->value, MGMT_MAX_NH);
			return (-EINVAL);
		}
		if (validate_nh6(u, &r, c, err) != 0)
			return (-EINVAL);
		if ((c->kbin >> 63) == 0 && !nh_unicast((uint32_t)c->kbin)) {
			mgmt_err_node(err, c,
			    "static route %s: next-hop %s "
			    "is not a unicast address",
			    u->value, c->value);
			return (-EINVAL);
		}
	}
	if (r.blackhole && r.reject) {
		mgmt_err_node(err, u,
		    "static route %s: blackhole and reject "
		    "exclude each other",
		    u->value);
		return (-EINVAL);
	}
	if ((r.blackhole || r.reject) && (r.nnh > 0 || r.ifname[0])) {
		mgmt_err_node(err, u,
		    "static route %s: %s excludes next-hop "
		    "and interface",
		    u->value, r.blackhole ? "blackhole" : "reject");
		return (-EINVAL);
	}
	if (!r.blackhole && !r.reject && r.nnh == 0 && !r.ifname[0]) {
		mgmt_err_node(err, u,
		    "static route %s: expected next-hop, "
		    "interface, blackhole or reject",
		    u->value);
		return (-EINVAL);
	}
	if (r.ifname[0] && find_iface(conf, r.ifname) == NULL) {
		iface_names(conf, names, sizeof(names));
		mgmt_err_node(err, mgmt_node_find_sid(u, MGMT_S_ROUTE_IFACE),
		    "static route %s: interface %s is not configured "
		    "(configured: %s)",
		    u->value, r.ifname, names);
		return (-EINVAL);
	}
	return (0);
}

/* host is the network or broadcast address of its /len (len <= 30; a /31
 * or /32 has neither). */
static bool
subnet_edge(uint32_t host, unsigned len)
{
	uint32_t m = lc_prefix4_mask(len);

	return (len <= 30 && ((host & ~m) == 0 || (host & ~m) == ~m));
}

static const struct mgmt_node *
addr_node(const struct mgmt_node *iface, unsigned i)
{
	return (nth_node(iface, MGMT_S_IFACE_ADDRESS, i));
}

/* "subnets: 198.18.1.0/24, 198.18.2.0/24" (those with len < 32), or why
 * there are none. */
static void
subnet_names(const struct mgmt_iface_conf *a, char *buf, size_t sz)
{
	size_t off = (size_t)snprintf(buf, sz, "subnets: "), start = off;

	for (unsigned i = 0; i < a->naddr && off < sz; i++) {
		char pb[LC_PREFIX4_STRLEN];
		bool seen = false;

		if (a->addr[i].len >= 32)
			continue;
		for (unsigned j = 0; j < i; j++)
			seen |= lc_prefix4_eq(&a->addr[i], &a->addr[j]);
		if (!seen)
			off += (size_t)snprintf(buf + off, sz - off, "%s%s",
			    off > start ? ", " : "",
			    lc_prefix4_str(&a->addr[i], pb));
	}
	if (off == start)
		snprintf(buf, sz, "%s",
		    a->naddr == 0 ? "the interface has no address" :
				    "the interface has only /32 addresses");
}

/*
 * The static ARP entries of interface u (a: its typed view): each has a
 * mac, at most MGMT_MAX_ARP, and its address is a unicast host address of
 * one of the interface's subnets (not the network or broadcast address
 * when len <= 30) and none of the interface's own addresses.
 */
static int
validate_arp(const struct mgmt_node *u, const struct mgmt_iface_conf *a,
    struct lc_err *err)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;
	unsigned narp = 0;
	char names[16 + MGMT_MAX_ADDRS * (LC_PREFIX4_STRLEN + 2)];

	mgmt_iter_init(&it, u);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		uint32_t ip = (uint32_t)c->kbin;
		bool in = false;

		if (c->sid != MGMT_S_IFACE_ARP)
			continue;
		if (++narp > MGMT_MAX_ARP) {
			mgmt_err_node(err, c,
			    "interface %s: more than %d arp entries", u->value,
			    MGMT_MAX_ARP);
			return (-EINVAL);
		}
		if (mgmt_node_find_sid(c, MGMT_S_IFACE_ARP_MAC) == NULL) {
			mgmt_err_node(err, c,
			    "interface %s: arp %s: expected mac", u->value,
			    c->value);
			return (-EINVAL);
		}
		if (!nh_unicast(ip)) {
			mgmt_err_node(err, c,
			    "interface %s: arp %s: not a unicast address",
			    u->value, c->value);
			return (-EINVAL);
		}
		for (unsigned i = 0; i < a->naddr; i++)
			if (lc_ip4_to_host(a->host[i]) == ip) {
				mgmt_err_node(err, c,
				    "interface %s: arp %s: the interface's own "
				    "address (%s)",
				    u->value, c->value, addr_node(u, i)->value);
				return (-EINVAL);
			}
		for (unsigned i = 0; i < a->naddr; i++) {
			const struct lc_prefix4 *p = &a->addr[i];
			char pb[LC_PREFIX4_STRLEN];

			if (p->len >= 32 ||
			    !lc_prefix4_contains(p, lc_ip4_from_host(ip)))
				continue;
			in = true;
			if (subnet_edge(ip, p->len)) {
				mgmt_err_node(err, c,
				    "interface %s: arp %s: the %s address of "
				    "subnet %s",
				    u->value, c->value,
				    (ip & ~lc_prefix4_mask(p->len)) == 0 ?
					"network" :
					"broadcast",
				    lc_prefix4_str(p, pb));
				return (-EINVAL);
			}
		}
		if (!in) {
			subnet_names(a, names, sizeof(names));
			mgmt_err_node(err, c,
			    "interface %s: arp %s: not in a subnet of the "
			    "interface (%s)",
			    u->value, c->value, names);
			return (-EINVAL);
		}
	}
	return (0);
}

static int
validate_iface(const struct mgmt_conf *conf, const struct mgmt_node *u,
    struct lc_err *err)
{
	struct mgmt_iface_conf a, b;
	struct mgmt_iter it;
	const struct mgmt_node *c;
	unsigned naddr = 0;

	mgmt_iter_init(&it, u);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == MGMT_S_IFACE_ADDRESS &&
		    ++naddr > MGMT_MAX_ADDRS) {
			mgmt_err_node(err, c,
			    "interface %s: more than %d "
			    "addresses",
			    u->value, MGMT_MAX_ADDRS);
			return (-EINVAL);
		}
	mgmt_conf_iface_get(u, &a);
	for (unsigned i = 0; i < a.naddr; i++) {
		uint32_t host = lc_ip4_to_host(a.host[i]);

		if (a.addr[i].len == 0 || !nh_unicast(host) ||
		    subnet_edge(host, a.addr[i].len)) {
			c = addr_node(u, i);
			mgmt_err_node(err, c,
			    "interface %s: address %s is not "
			    "a host address of its subnet",
			    u->value, c->value);
			return (-EINVAL);
		}
	}
	if (validate_arp(u, &a, err) != 0 || validate_iface6(u, &a, err) != 0)
		return (-EINVAL);
	/* duplicates against every other interface (few of them) */
	mgmt_iter_init(&it, ifaces_of(conf));
	while ((c = mgmt_iter_next(&it)) != NULL) {
		if (c == u || strcmp(c->value, u->value) == 0)
			continue;
		mgmt_conf_iface_get(c, &b);
		if (strcmp(a.device, b.device) == 0) {
			mgmt_err_node(err, u,
			    "interface %s: duplicate device "
			    "%s (also used by interface %s)",
			    u->value, a.device, b.name);
			return (-EINVAL);
		}
		for (unsigned i = 0; i < a.naddr; i++)
			for (unsigned j = 0; j < b.naddr; j++) {
				const struct lc_prefix4 *p = &a.addr[i],
							*q = &b.addr[j];

				if (lc_prefix4_contains(p, q->addr) ||
				    lc_prefix4_contains(q, p->addr)) {
					const struct mgmt_node *an =
					    addr_node(u, i);

					mgmt_err_node(err, an,
					    "interface %s: "
					    "duplicate subnet: address %s "
					    "overlaps %s of interface %s",
					    u->value, an->value,
					    addr_node(c, j)->value, b.name);
					return (-EINVAL);
				}
			}
		for (unsigned i = 0; i < a.naddr6; i++)
			for (unsigned j = 0; j < b.naddr6; j++) {
				const struct lc_prefix6 *p = &a.addr6[i],
							*q = &b.addr6[j];
				const struct mgmt_node *in6;

				if (!pfx6_contains(p, &q->addr) &&
				    !pfx6_contains(q, &p->addr))
					continue;
				in6 = mgmt_node_find_sid(u, MGMT_S_IFACE_INET6);
				mgmt_err_node(err,
				    nth_node(in6, MGMT_S_IFACE_INET6_ADDRESS,
					i),
				    "interface %s: duplicate subnet: inet6 "
				    "address %s overlaps %s of interface %s",
				    u->value,
				    nth_node(in6, MGMT_S_IFACE_INET6_ADDRESS, i)
					->value,
				    nth_node(mgmt_node_find_sid(c,
						 MGMT_S_IFACE_INET6),
					MGMT_S_IFACE_INET6_ADDRESS, j)
					->value,
				    b.name);
				return (-EINVAL);
			}
	}
	return (0);
}

/* ---- protocols bgp ---------------------------------------------------------------- */

/* The interface whose address a is (its name in *name), or false. */
static bool
own_address(const struct mgmt_conf *conf, struct lc_ip4 a, char *name)
{
	struct mgmt_iface_conf ic;
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_iter_init(&it, ifaces_of(conf));
	while ((c = mgmt_iter_next(&it)) != NULL) {
		mgmt_conf_iface_get(c, &ic);
		for (unsigned i = 0; i < ic.naddr; i++)
			if (lc_ip4_eq(ic.host[i], a)) {
				snprintf(name, MGMT_NAME_MAX, "%s", ic.name);
				return (true);
			}
	}
	return (false);
}

/* a is in a subnet (len < 32) of a configured interface; else buf gets
 * "connected subnets: 198.18.1.0/24, ..." or why there are none */
static bool
on_connected(const struct mgmt_conf *conf, struct lc_ip4 a, char *buf,
    size_t sz)
{
	struct mgmt_iface_conf ic;
	struct mgmt_iter it;
	const struct mgmt_node *c;
	size_t off = (size_t)snprintf(buf, sz, "connected subnets: ");
	size_t start = off;

	mgmt_iter_init(&it, ifaces_of(conf));
	while ((c = mgmt_iter_next(&it)) != NULL) {
		mgmt_conf_iface_get(c, &ic);
		for (unsigned i = 0; i < ic.naddr; i++) {
			char pb[LC_PREFIX4_STRLEN];

			if (ic.addr[i].len >= 32)
				continue;
			if (lc_prefix4_contains(&ic.addr[i], a))
				return (true);
			if (off + LC_PREFIX4_STRLEN + 8 < sz)
				off += (size_t)snprintf(buf + off, sz - off,
				    "%s%s", off > start ? ", " : "",
				    lc_prefix4_str(&ic.addr[i], pb));
		}
	}
	if (off == start)
		snprintf(buf, sz, "no interface has a subnet");
	return (false);
}

/*
 * One neighbour of the bgp block b: a remote-as, a local-as (its own or
 * the block's), a unicast address that is none of ours and, without
 * multihop, on a connected subnet; a local-address that is ours; an
 * import and export that name a policy-statement of policy-options.
 */
/* A neighbour's IPv6 part: local-address6 a global unicast address, and
 * only with family inet6 unicast. */
static int
validate_bgp_nbr6(const struct mgmt_node *u, const struct mgmt_bgp_nbr_conf *n,
    struct lc_err *err)
{
	const struct mgmt_node *l = mgmt_node_find_sid(u,
	    MGMT_S_BGP_NBR_LOCAL_ADDR6);
	struct lc_ip6 a;
	struct lc_err e;

	if (l == NULL)
		return (0);
	lc_err_clear(&e);
	if (lc_inet6_parse(n->local_address6, 0, &a, NULL, &e) != 0) {
		mgmt_err_node(err, l,
		    "protocols bgp neighbor %s: local-address6 '%s': %s",
		    u->value, n->local_address6, e.msg);
		return (-EINVAL);
	}
	if (lc_ip6_is_linklocal(&a) || lc_ip6_is_multicast(&a) ||
	    memcmp(a.b, (uint8_t[16]){0}, 16) == 0 || lc_ip6_is_v4mapped(&a)) {
		mgmt_err_node(err, l,
		    "protocols bgp neighbor %s: local-address6 %s: expected "
		    "a global unicast address",
		    u->value, n->local_address6);
		return (-EINVAL);
	}
	if (!(n->families & 2)) {
		mgmt_err_node(err, l,
		    "protocols bgp neighbor %s: local-address6 without family "
		    "inet6 unicast",
		    u->value);
		return (-EINVAL);
	}
	return (0);
}

static int
validate_bgp_nbr(const struct mgmt_conf *conf, const struct mgmt_bgp_conf *b,
    const struct mgmt_node *u, struct lc_err *err)
{
	static const unsigned pol[2] = {MGMT_S_BGP_NBR_IMPORT,
	    MGMT_S_BGP_NBR_EXPORT};
	struct mgmt_bgp_nbr_conf n;
	char ifn[MGMT_NAME_MAX], subnets[200];

	mgmt_conf_bgp_nbr_get(u, &n);
	if (n.remote_as == 0) {
		mgmt_err_node(err, u,
		    "protocols bgp neighbor %s: expected "
		    "remote-as",
		    u->value);
		return (-EINVAL);
	}
	if (n.local_as == 0 && b->local_as == 0) {
		mgmt_err_node(err, u,
		    "protocols bgp neighbor %s: no local-as (set protocols bgp "
		    "local-as, or the neighbor's own)",
		    u->value);
		return (-EINVAL);
	}
	if (!nh_unicast(lc_ip4_to_host(n.addr))) {
		mgmt_err_node(err, u,
		    "protocols bgp neighbor %s: not a unicast address",
		    u->value);
		return (-EINVAL);
	}
	if (own_address(conf, n.addr, ifn)) {
		mgmt_err_node(err, u,
		    "protocols bgp neighbor %s: the router's own address "
		    "(interface %s)",
		    u->value, ifn);
		return (-EINVAL);
	}
	if (n.multihop == 0 &&
	    !on_connected(conf, n.addr, subnets, sizeof(subnets))) {
		mgmt_err_node(err, u,
		    "protocols bgp neighbor %s: not on a connected subnet (%s); "
		    "set multihop for a neighbor further away",
		    u->value, subnets);
		return (-EINVAL);
	}
	if (n.local_address.s_addr != 0 &&
	    !own_address(conf, n.local_address, ifn)) {
		mgmt_err_node(err,
		    mgmt_node_find_sid(u, MGMT_S_BGP_NBR_LOCAL_ADDR),
		    "protocols bgp neighbor %s: local-address %s is none of "
		    "the router's addresses",
		    u->value, lc_ip4_ntoa(n.local_address));
		return (-EINVAL);
	}
	for (unsigned i = 0; i < 2; i++) {
		const struct mgmt_node *p = mgmt_node_find_sid(u, pol[i]);

		if (p != NULL &&
		    !mgmt_policy_defined(conf, MGMT_S_POL_PS, p->value)) {
			mgmt_err_node(err, p,
			    "protocols bgp neighbor %s: %s %s: no "
			    "policy-options policy-statement %s",
			    u->value, mgmt_schema[pol[i]].name, p->value,
			    p->value);
			return (-EINVAL);
		}
	}
	return (validate_bgp_nbr6(u, &n, err));
}

static int
validate_bgp(const struct mgmt_conf *conf, const struct mgmt_node *u,
    struct lc_err *err)
{
	struct mgmt_bgp_conf b;
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_conf_bgp_get(conf, &b);
	if (b.present && b.router_id.s_addr == 0 &&
	    (c = mgmt_node_find_sid(u, MGMT_S_BGP_ROUTER_ID)) != NULL) {
		mgmt_err_node(err, c,
		    "protocols bgp: router-id 0.0.0.0 is not a BGP "
		    "identifier");
		return (-EINVAL);
	}
	mgmt_iter_init(&it, u);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == MGMT_S_BGP_NBR &&
		    validate_bgp_nbr(conf, &b, c, err) != 0)
			return (-EINVAL);
	return (0);
}

static const struct mgmt_node *
bgp_of(const struct mgmt_conf *conf)
{
	return (
	    mgmt_node_find_sid(mgmt_node_find_sid(conf->root, MGMT_S_PROTOCOLS),
		MGMT_S_BGP));
}

int
mgmt_validate_unit(const struct mgmt_conf *conf, const struct mgmt_node *unit,
    struct lc_err *err)
{
	switch (unit->sid) {
	case MGMT_S_ROUTE:
		return (validate_route(conf, unit, err));
	case MGMT_S_IFACE:
		return (validate_iface(conf, unit, err));
	case MGMT_S_BGP:
		return (validate_bgp(conf, unit, err));
	case MGMT_S_POLICY:
		return (mgmt_validate_policy(conf, unit, err));
	default:
		/* rib, fwd, system: types and ranges are checked on input */
		return (0);
	}
}

int
mgmt_validate_iface_refs(const struct mgmt_conf *conf, struct lc_err *err)
{
	const struct mgmt_node *st =
	    mgmt_node_find_sid(mgmt_node_find_sid(conf->root, MGMT_S_PROTOCOLS),
		MGMT_S_STATIC);
	const struct mgmt_node *r, *i;
	struct mgmt_iter it;
	char names[200];

	mgmt_iter_init(&it, st);
	while ((r = mgmt_iter_next(&it)) != NULL) {
		if ((i = mgmt_node_find_sid(r, MGMT_S_ROUTE_IFACE)) == NULL)
			continue;
		if (find_iface(conf, i->value) == NULL) {
			iface_names(conf, names, sizeof(names));
			mgmt_err_node(err, i,
			    "static route %s: interface %s is "
			    "not configured (configured: %s)",
			    r->value, i->value, names);
			return (-EINVAL);
		}
	}
	return (0);
}

static int
validate_list(const struct mgmt_conf *conf, enum mgmt_sid list,
    struct lc_err *err)
{
	const struct mgmt_node *p, *c;
	struct mgmt_iter it;
	int rv;

	p = list == MGMT_S_IFACE ?
	    ifaces_of(conf) :
	    mgmt_node_find_sid(mgmt_node_find_sid(conf->root, MGMT_S_PROTOCOLS),
		MGMT_S_STATIC);
	mgmt_iter_init(&it, p);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if ((rv = mgmt_validate_unit(conf, c, err)) != 0)
			return (rv);
	return (0);
}

int
mgmt_conf_validate(const struct mgmt_conf *conf, struct lc_err *err)
{
	const struct mgmt_node *b = bgp_of(conf), *po = mgmt_policy_of(conf);
	int rv;

	if ((rv = validate_list(conf, MGMT_S_IFACE, err)) != 0)
		return (rv);
	if ((rv = validate_list(conf, MGMT_S_ROUTE, err)) != 0)
		return (rv);
	if (po != NULL && (rv = mgmt_validate_policy(conf, po, err)) != 0)
		return (rv);
	return (b != NULL ? validate_bgp(conf, b, err) : 0);
}

int
mgmt_conf_validate_changes(const struct mgmt_conf *new,
    const struct mgmt_changes *chg, struct lc_err *err)
{
	const struct mgmt_node *b = bgp_of(new);
	bool ifaces = false, bgp = false, pol = false;
	int rv;

	for (size_t i = 0; i < chg->n; i++) {
		ifaces |= chg->v[i].unit == MGMT_S_IFACE;
		bgp |= chg->v[i].unit == MGMT_S_BGP;
		pol |= chg->v[i].unit == MGMT_S_POLICY;
		if (chg->v[i].new != NULL &&
		    (rv = mgmt_validate_unit(new, chg->v[i].new, err)) != 0)
			return (rv);
	}
	if (chg->iface_deleted &&
	    (rv = mgmt_validate_iface_refs(new, err)) != 0)
		return (rv);
	/* the neighbours are checked against the interfaces' addresses and
	 * the policies they name */
	if ((ifaces || pol) && !bgp && b != NULL)
		return (validate_bgp(new, b, err));
	return (0);
}
