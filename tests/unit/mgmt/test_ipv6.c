/* tests/unit/mgmt/test_ipv6.c: IPv6 in mgmt's config (issue 22, point 6):
 * interface addresses, link-local, router advertisements, static
 * neighbours and routes; parsing (each error message), RFC 5952 printing,
 * the order of 128-bit keys, validation, set/delete, completion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "libcommon/lc_inet6.h"
#include "mgmt/mgmt_conf.h"

static struct mgmt_conf *
parse_ok(const char *text)
{
	struct mgmt_conf *c = NULL;
	struct lc_err err = {0};

	if (mgmt_conf_parse(text, strlen(text), "t.conf", &c, &err) != 0)
		fail_msg("parse: %s\n%s", err.msg, text);
	return (c);
}

static char *
printed(const struct mgmt_conf *c)
{
	struct lc_buf b = {0};
	char *s;

	mgmt_conf_print(c, &b);
	lc_buf_append(&b, "", 1);
	s = strdup((char *)b.data);
	lc_buf_fini(&b);
	return (s);
}

/* text parses, validates, prints as want, and that parses back equal */
static void
round_trip(const char *text, const char *want)
{
	struct mgmt_conf *c = parse_ok(text), *re;
	struct lc_err err = {0};
	char *p;

	if (mgmt_conf_validate(c, &err) != 0)
		fail_msg("validate: %s\n%s", err.msg, text);
	p = printed(c);
	if (strcmp(p, want) != 0)
		fail_msg("printed\n%s\nwant\n%s", p, want);
	re = parse_ok(p);
	assert_true(mgmt_conf_equal(c, re));
	free(p);
	mgmt_conf_free(re);
	mgmt_conf_free(c);
}

/* the parser refuses text with msg */
static void
bad(const char *text, const char *msg)
{
	struct mgmt_conf *c = (struct mgmt_conf *)0x1;
	struct lc_err err = {0};

	if (mgmt_conf_parse(text, strlen(text), "t.conf", &c, &err) == 0)
		fail_msg("parsed: %s", text);
	assert_ptr_equal(c, (struct mgmt_conf *)0x1);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
}

/* text parses, validation refuses it with msg */
static void
invalid(const char *text, const char *msg)
{
	struct mgmt_conf *c = parse_ok(text);
	struct lc_err err = {0};

	if (mgmt_conf_validate(c, &err) == 0)
		fail_msg("valid: %s", text);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
	mgmt_conf_free(c);
}

static int
cmd(struct mgmt_conf *c, const char *line, struct lc_err *err)
{
	char buf[512];
	const char *w[32];
	int n = mgmt_conf_split(line, buf, sizeof(buf), w, 32);

	assert_true(n >= 1);
	if (strcmp(w[0], "set") == 0)
		return (mgmt_conf_set(c, w + 1, (unsigned)n - 1, err));
	return (mgmt_conf_delete(c, w + 1, (unsigned)n - 1, err));
}

#define IF1 "interfaces { veth1 { address 198.19.63.1/24; "

static void
test_iface_round_trip(void **s)
{
	(void)s;
	/* upper case, leading zeros and the longest zero run: RFC 5952 */
	round_trip(
	    "interfaces { veth1 { inet6 { address "
	    "2001:0002:0:0300:0:0:0:0001/64; address 2001:2:0:301::1/64; }"
	    " link-local FE80:0:0:0::1; router-advertisement { prefix "
	    "2001:2:0:300::/64; mtu 1400; lifetime 1800; max-interval 60; "
	    "} ndp fe80::2 mac 02:00:00:00:00:02; } }",
	    "interfaces {\n"
	    "    veth1 {\n"
	    "        inet6 {\n"
	    "            address 2001:2:0:300::1/64;\n"
	    "            address 2001:2:0:301::1/64;\n"
	    "        }\n"
	    "        link-local fe80::1;\n"
	    "        router-advertisement {\n"
	    "            prefix 2001:2:0:300::/64;\n"
	    "            mtu 1400;\n"
	    "            lifetime 1800;\n"
	    "            max-interval 60;\n"
	    "        }\n"
	    "        ndp fe80::2 mac 02:00:00:00:00:02;\n"
	    "    }\n"
	    "}\n");
}

static void
test_route_round_trip(void **s)
{
	(void)s;
	/* IPv4 first, then IPv6 in address order, then length; next hops in
	 * address order */
	round_trip(IF1 "inet6 address 2001:2:0:300::1/64; } }\n"
		       "protocols { static {\n"
		       "route 2001:2:0:310::/64 next-hop 2001:2:0:300::2;\n"
		       "route 2001:2:0:30f::/64 next-hop 2001:2:0:300::2;\n"
		       "route 2001:2:0:310::/60 next-hop 2001:2:0:300::2;\n"
		       "route 2001:2:0:310::1/128 next-hop [ 2001:2:0:300::10 "
		       "2001:2:0:300::9 ];\n"
		       "route 198.19.63.128/25 next-hop 198.19.63.2;\n"
		       "route 2001:2:0:320::/60 { next-hop fe80::2; interface "
		       "veth1; }\n"
		       "route 2001:2:0:3ff::/64 reject;\n"
		       "} }",
	    "interfaces {\n"
	    "    veth1 {\n"
	    "        address 198.19.63.1/24;\n"
	    "        inet6 {\n"
	    "            address 2001:2:0:300::1/64;\n"
	    "        }\n"
	    "    }\n"
	    "}\n"
	    "protocols {\n"
	    "    static {\n"
	    "        route 198.19.63.128/25 next-hop 198.19.63.2;\n"
	    "        route 2001:2:0:30f::/64 next-hop 2001:2:0:300::2;\n"
	    "        route 2001:2:0:310::/60 next-hop 2001:2:0:300::2;\n"
	    "        route 2001:2:0:310::/64 next-hop 2001:2:0:300::2;\n"
	    "        route 2001:2:0:310::1/128 {\n"
	    "            next-hop 2001:2:0:300::9;\n"
	    "            next-hop 2001:2:0:300::10;\n"
	    "        }\n"
	    "        route 2001:2:0:320::/60 {\n"
	    "            next-hop fe80::2;\n"
	    "            interface veth1;\n"
	    "        }\n"
	    "        route 2001:2:0:3ff::/64 reject;\n"
	    "    }\n"
	    "}\n");
}

/* Junos' one line: a leaf's value then another leaf of the same parent
 * ("next-hop fe80::2 interface veth1;", "reject distance 5;"): the same
 * tree as the block; printed as the block */
static void
test_one_line(void **s)
{
	struct mgmt_conf *a, *b;

	(void)s;
	a = parse_ok("protocols static route 2001:2:1::/48 next-hop fe80::2 "
		     "interface veth1;\n"
		     "protocols static route 2001:2:2::/48 reject distance 5;\n"
		     "protocols static route 198.19.63.128/25 next-hop "
		     "198.19.63.2 distance 7;");
	b = parse_ok(
	    "protocols static { route 2001:2:1::/48 { next-hop "
	    "fe80::2; interface veth1; } route 2001:2:2::/48 { reject; "
	    "distance 5; } route 198.19.63.128/25 { next-hop "
	    "198.19.63.2; distance 7; } }");
	assert_true(mgmt_conf_equal(a, b));
	mgmt_conf_free(a);
	mgmt_conf_free(b);
	/* what is not a sibling leaf is still an error, and a repeated leaf
	 * a duplicate */
	bad("protocols static route 2001:2:1::/48 next-hop fe80::2 veth1;",
	    "t.conf:1:55: expected ';' after the value of 'next-hop'");
	bad("protocols static route 2001:2:1::/48 distance 5 distance 6;",
	    "t.conf:1:49: duplicate distance (first at line 1, column 38)");
	bad("protocols static route 2001:2:1::/48 reject blackhole x;",
	    "t.conf:1:55: unexpected 'x': 'blackhole' takes no value");
	bad("protocols static route 2001:2:1::/48 next-hop fe80::2 interface;",
	    "t.conf:1:55: expected <name> after 'interface'");
}

/* Keys of equal kbin (the top 63 bits) still differ and order right: the
 * same /64 with other lengths and hosts, and prefixes that differ only in
 * bit 63, both through the parser's bulk set and through set. */
static void
test_key_order(void **s)
{
	static const char *const want[] = {"2001:2:0:300::/63",
	    "2001:2:0:300::/64", "2001:2:0:300::2/128", "2001:2:0:300::10/128",
	    "2001:2:0:300:8000::/65", "2001:2:0:301::/64"};
	struct mgmt_conf *c = parse_ok("protocols static {"
				       "route 2001:2:0:301::/64 reject;"
				       "route 2001:2:0:300::10/128 reject;"
				       "route 2001:2:0:300:8000::/65 reject;"
				       "route 2001:2:0:300::/64 reject;"
				       "route 2001:2:0:300::2/128 reject;"
				       "route 2001:2:0:300::/63 reject; }");
	struct mgmt_conf *d = mgmt_conf_new();
	struct lc_err err = {0};
	char *p, *q;
	const char *at;

	for (int i = 5; i >= 0; i--) {
		char line[128];

		snprintf(line, sizeof(line),
		    "set protocols static route %s reject", want[(i * 7) % 6]);
		assert_int_equal(cmd(d, line, &err), 0);
	}
	p = printed(c);
	q = printed(d);
	assert_string_equal(p, q);
	at = p;
	for (unsigned i = 0; i < 6; i++) {
		const char *f = strstr(at, want[i]);

		if (f == NULL)
			fail_msg("%s not in order in\n%s", want[i], p);
		at = f + strlen(want[i]);
	}
	assert_int_equal(mgmt_conf_count(c, MGMT_S_ROUTE), 6);
	/* a duplicate that differs only below bit 63 is still a duplicate */
	bad("protocols static { route 2001:2:0:300::2/128 reject; route "
	    "2001:2:0:300:0::2/128 reject; }",
	    "t.conf:1:82: duplicate reject (first at line 1, column 46)");
	/* and its delete finds it */
	assert_int_equal(cmd(d,
			     "delete protocols static route "
			     "2001:2:0:300:0:0:0:2/128",
			     &err),
	    0);
	assert_int_equal(mgmt_conf_count(d, MGMT_S_ROUTE), 5);
	assert_true(cmd(d, "delete protocols static route 2001:2:0:300::3/128",
			&err) < 0);
	free(p);
	free(q);
	mgmt_conf_free(c);
	mgmt_conf_free(d);
}

static void
test_parse_errors(void **s)
{
	(void)s;
	bad("protocols static route 2001:2:1::/48 next-hop 2001:2::1::2;",
	    "t.conf:1:47: invalid next-hop '2001:2::1::2': more than one ::");
	bad("protocols static route 2001:2:1::/129 reject;",
	    "t.conf:1:24: invalid route '2001:2:1::/129': prefix length /129 "
	    "is over 128");
	bad("protocols static route 2001:2:1::1/48 reject;",
	    "t.conf:1:24: invalid route '2001:2:1::1/48': host bits set: did "
	    "you mean 2001:2:1::/48?");
	bad("protocols static route 2001:2:1::/48 next-hop fe80::2%veth1;",
	    "t.conf:1:47: invalid next-hop 'fe80::2%veth1': an interface "
	    "('%...') is not allowed here");
	bad("interfaces veth1 inet6 address 2001:2::1;",
	    "t.conf:1:32: invalid address '2001:2::1': no prefix length "
	    "(/0../128)");
	bad("interfaces veth1 inet6 address 198.19.63.1/24;",
	    "t.conf:1:32: invalid address '198.19.63.1/24': an IPv4 address, "
	    "expected an IPv6 address with length x:x::x/len");
	bad("interfaces veth1 link-local fe80::g;",
	    "t.conf:1:29: invalid link-local 'fe80::g': unexpected character "
	    "'g'");
	bad("interfaces veth1 router-advertisement prefix 2001:2::1/64;",
	    "t.conf:1:46: invalid prefix '2001:2::1/64': host bits set: did "
	    "you mean 2001:2::/64?");
	bad("interfaces veth1 router-advertisement mtu 1279;",
	    "t.conf:1:43: mtu 1279 out of range, expected 1280..9216");
	bad("interfaces veth1 ndp 2001:2::/64 mac 02:00:00:00:00:02;",
	    "t.conf:1:22: invalid ndp '2001:2::/64': unexpected character "
	    "'/'");
	/* IPv4 keeps its messages */
	bad("protocols static route 10.0.0.1/8 blackhole;",
	    "t.conf:1:24: invalid route '10.0.0.1/8': host bits set, expected "
	    "10.0.0.0/8");
	bad("protocols static route 10.0.0.0/8 next-hop 198.18.0;",
	    "t.conf:1:44: invalid next-hop '198.18.0': expected an IPv4 "
	    "address a.b.c.d or an IPv6 address x:x::x");
}

static void
test_validation_errors(void **s)
{
	(void)s;
	invalid("protocols static route 2001:2:1::/48 next-hop fe80::2;",
	    "t.conf:1:38: static route 2001:2:1::/48: next-hop fe80::2 is "
	    "link-local: it needs its interface (next-hop fe80::2 interface "
	    "NAME)");
	invalid("protocols static route 2001:2:1::/48 next-hop 198.19.63.2;",
	    "t.conf:1:38: static route 2001:2:1::/48: next-hop 198.19.63.2 is "
	    "an IPv4 address, the route is IPv6");
	invalid("protocols static route 198.19.63.128/25 next-hop 2001:2::2;",
	    "t.conf:1:41: static route 198.19.63.128/25: next-hop 2001:2::2 "
	    "is an IPv6 address, the route is IPv4");
	invalid("protocols static route 2001:2:1::/48 next-hop ff02::1;",
	    "t.conf:1:38: static route 2001:2:1::/48: next-hop ff02::1 is not "
	    "a unicast address (a multicast address)");
	invalid("protocols static route 2001:2:1::/48 next-hop ::;",
	    "t.conf:1:38: static route 2001:2:1::/48: next-hop :: is not a "
	    "unicast address (the unspecified address ::)");
	invalid("protocols static route 2001:2:1::/48 next-hop ::1;",
	    "t.conf:1:38: static route 2001:2:1::/48: next-hop ::1 is not a "
	    "unicast address (the loopback address ::1)");
	invalid("protocols static route 2001:2:1::/48 { next-hop fe80::2; "
		"interface veth9; }",
	    "t.conf:1:58: static route 2001:2:1::/48: interface veth9 is not "
	    "configured (configured: none)");
	invalid("interfaces veth1 inet6 address fe80::1/64;",
	    "t.conf:1:24: interface veth1: inet6 address fe80::1/64 is "
	    "link-local: write it as link-local fe80::1");
	invalid("interfaces veth1 link-local 2001:2::1;",
	    "t.conf:1:18: interface veth1: link-local 2001:2::1 is not a "
	    "link-local address (fe80::/64, not fe80::): a global one goes in "
	    "inet6 address");
	invalid("interfaces veth1 inet6 address 2001:2:0:300::/64;",
	    "t.conf:1:24: interface veth1: inet6 address 2001:2:0:300::/64 is "
	    "not a host address of its subnet (it is the Subnet-Router "
	    "anycast address)");
	invalid("interfaces veth1 inet6 address ff02::1/64;",
	    "t.conf:1:24: interface veth1: inet6 address ff02::1/64 is not a "
	    "unicast address (a multicast address)");
	invalid("interfaces veth1 inet6 address ::ffff:198.19.63.1/120;",
	    "t.conf:1:24: interface veth1: inet6 address ::ffff:198.19.63.1/120"
	    " is not a unicast address (an IPv4-mapped address)");
	invalid("interfaces veth1 inet6 { address 2001:2:0:300::1/64; disable; "
		"}",
	    "t.conf:1:54: interface veth1: inet6 disable excludes inet6 "
	    "address");
	invalid("interfaces veth1 router-advertisement prefix fe80::/64;",
	    "t.conf:1:39: interface veth1: router-advertisement prefix "
	    "fe80::/64: expected a global unicast prefix");
	invalid("interfaces veth1 router-advertisement { lifetime 300; }",
	    "t.conf:1:41: interface veth1: router-advertisement lifetime 300 "
	    "is below max-interval 600 (RFC 4861 6.2.1)");
	invalid("interfaces veth1 ndp 2001:2:0:300::2;",
	    "t.conf:1:18: interface veth1: ndp 2001:2:0:300::2: expected mac");
	invalid("interfaces veth1 { inet6 address 2001:2:0:300::1/64; ndp "
		"2001:2:0:301::2 mac 02:00:00:00:00:02; }",
	    "t.conf:1:54: interface veth1: ndp 2001:2:0:301::2: neither "
	    "link-local nor in an inet6 subnet of the interface");
	invalid("interfaces veth1 { inet6 address 2001:2:0:300::1/64; ndp "
		"2001:2:0:300::1 mac 02:00:00:00:00:02; }",
	    "t.conf:1:54: interface veth1: ndp 2001:2:0:300::1: the "
	    "interface's own address");
	invalid("interfaces { veth1 { inet6 address 2001:2:0:300::1/64; } "
		"veth2 { inet6 address 2001:2:0:300::2/56; } }",
	    "t.conf:1:28: interface veth1: duplicate subnet: inet6 address "
	    "2001:2:0:300::1/64 overlaps 2001:2:0:300::2/56 of interface "
	    "veth2");
}

/* set refuses what the parser refuses, with the path in front, and changes
 * nothing; a valid set prints canonically */
static void
test_set_delete(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new();
	struct lc_err err = {0};
	char *p;

	(void)s;
	assert_int_equal(cmd(c,
			     "set interfaces veth1 inet6 address "
			     "2001:2:0:300:0::1/64",
			     &err),
	    0);
	assert_int_equal(
	    cmd(c,
		"set protocols static route 2001:2:1::/48 next-hop "
		"FE80::2",
		&err),
	    0);
	assert_int_equal(
	    cmd(c,
		"set protocols static route 2001:2:1::/48 interface "
		"veth1",
		&err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	assert_int_not_equal(cmd(c,
				 "set protocols static route 2001:2:1::/129 "
				 "reject",
				 &err),
	    0);
	assert_string_equal(err.msg,
	    "protocols static route: invalid route '2001:2:1::/129': prefix "
	    "length /129 is over 128");
	p = printed(c);
	assert_non_null(strstr(p, "address 2001:2:0:300::1/64;"));
	assert_non_null(strstr(p,
	    "route 2001:2:1::/48 {\n"
	    "            next-hop fe80::2;\n"
	    "            interface veth1;\n"));
	free(p);
	assert_int_equal(cmd(c,
			     "delete protocols static route 2001:2:1:0::/48 "
			     "next-hop fe80:0::2",
			     &err),
	    0);
	assert_int_equal(cmd(c,
			     "delete interfaces veth1 inet6 address "
			     "2001:2:0:300::1/64",
			     &err),
	    0);
	p = printed(c);
	assert_null(strstr(p, "inet6"));
	assert_null(strstr(p, "next-hop"));
	free(p);
	mgmt_conf_free(c);
}

static int
iface_cb(const struct mgmt_node *n, void *arg)
{
	return (mgmt_conf_iface_get(n, arg));
}

static int
route_cb(const struct mgmt_node *n, void *arg)
{
	return (mgmt_conf_route_get(n, arg));
}

/* The typed views that push encodes. */
static void
test_views(void **s)
{
	struct mgmt_conf *c = parse_ok(IF1
	    "inet6 address 2001:2:0:300::1/64; link-local fe80::1; "
	    "router-advertisement { prefix 2001:2:0:300::/64; mtu 1400; } "
	    "ndp fe80::2 mac 02:00:00:00:00:02; } }"
	    "protocols static route 2001:2:1::/48 next-hop [ 2001:2:0:300::2 "
	    "2001:2:0:300::3 ];");
	struct mgmt_iface_conf ic;
	struct mgmt_route_conf rc;
	struct lc_err err = {0};
	char b[LC_PREFIX6_STRLEN];

	(void)s;
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_IFACE, iface_cb, &ic), 0);
	assert_int_equal(ic.naddr, 1);
	assert_int_equal(ic.naddr6, 1);
	assert_string_equal(lc_inet6_prefix_str(&ic.addr6[0], b),
	    "2001:2:0:300::/64");
	assert_string_equal(lc_inet6_str(&ic.host6[0], b), "2001:2:0:300::1");
	assert_true(ic.ll6_set);
	assert_string_equal(lc_inet6_str(&ic.ll6, b), "fe80::1");
	assert_true(ic.ra);
	assert_int_equal(ic.ra_mtu, 1400);
	assert_int_equal(ic.ra_lifetime, 0);
	assert_int_equal(ic.ra_nprefix, 1);
	assert_int_equal(ic.nndp, 1);
	assert_int_equal(ic.ndp_mac[0][5], 2);
	assert_false(ic.inet6_disable);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_ROUTE, route_cb, &rc), 0);
	assert_int_equal(rc.family, AF_INET6);
	assert_string_equal(lc_inet6_prefix_str(&rc.prefix6, b),
	    "2001:2:1::/48");
	assert_int_equal(rc.nnh, 2);
	assert_int_equal(rc.nnh_other, 0);
	assert_string_equal(lc_inet6_str(&rc.nh6[1], b), "2001:2:0:300::3");
	mgmt_conf_free(c);
}

static void
test_completion(void **s)
{
	const char *w[] = {"interfaces", "veth1"};
	const char *r[] = {"protocols", "static", "route", "2001:2:1::/48"};
	struct mgmt_compl out[32];
	struct lc_err err = {0};
	int n;
	bool inet6 = false, ll = false, ra = false, ndp = false;

	(void)s;
	n = mgmt_schema_complete(NULL, w, 2, "", out, 32, &err);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		inet6 |= strcmp(out[i].word, "inet6") == 0;
		ll |= strcmp(out[i].word, "link-local") == 0;
		ra |= strcmp(out[i].word, "router-advertisement") == 0;
		ndp |= strcmp(out[i].word, "ndp") == 0;
	}
	assert_true(inet6 && ll && ra && ndp);
	n = mgmt_schema_complete(NULL, r, 4, "next", out, 32, &err);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].word, "next-hop");
	const char *r2[] = {"protocols", "static", "route", "2001:2:1::/48",
	    "next-hop"};
	n = mgmt_schema_complete(NULL, r2, 5, "", out, 32, &err);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].word, "<a.b.c.d|x:x::x>");
	const char *r3[] = {"protocols", "static", "route", "2001:2::1::/48"};
	assert_true(mgmt_schema_complete(NULL, r3, 4, "", out, 32, &err) < 0);
	assert_string_equal(err.msg,
	    "invalid route '2001:2::1::/48': more than one ::");
}

/* JSON prints IPv6 values as strings */
static void
test_json(void **s)
{
	struct mgmt_conf *c = parse_ok("interfaces veth1 inet6 address "
				       "2001:2:0:300::1/64;");
	struct lc_buf b = {0};

	(void)s;
	mgmt_conf_print_json(c, &b);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "{\"interfaces\":{\"veth1\":{\"inet6\":{\"address\":["
	    "\"2001:2:0:300::1/64\"]}}}}");
	lc_buf_fini(&b);
	mgmt_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_iface_round_trip),
	    cmocka_unit_test(test_route_round_trip),
	    cmocka_unit_test(test_key_order),
	    cmocka_unit_test(test_one_line),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_validation_errors),
	    cmocka_unit_test(test_set_delete),
	    cmocka_unit_test(test_views),
	    cmocka_unit_test(test_completion),
	    cmocka_unit_test(test_json),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
