/* tests/unit/mgmt/test_conf_parse.c: golden round trips of the config parser
 * and printer, and every class of input error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mgmt/mgmt_conf.h"

static char golden_dir[512];

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (f == NULL)
		return (NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return (b);
}

static void
golden(const char *name)
{
	char in[600], exp[600];
	struct mgmt_conf *c, *re;
	struct lc_err err;
	struct lc_buf out = {0}, out2 = {0};
	char *want;
	size_t wlen;

	snprintf(in, sizeof(in), "%s/%s.conf", golden_dir, name);
	snprintf(exp, sizeof(exp), "%s/%s.expected", golden_dir, name);
	if (mgmt_conf_load_file(in, &c, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	mgmt_conf_print(c, &out);
	lc_buf_append(&out, "", 1);
	want = slurp(exp, &wlen);
	assert_non_null(want);
	if (strcmp((char *)out.data, want) != 0)
		fail_msg("%s: printed\n%s\nexpected\n%s", name,
		    (char *)out.data, want);
	/* the printed form parses back to the same tree and prints the same */
	if (mgmt_conf_parse((char *)out.data, out.len - 1, "printed", &re,
		&err) != 0)
		fail_msg("%s: reparse: %s", name, err.msg);
	assert_true(mgmt_conf_equal(c, re));
	assert_true(mgmt_conf_equal(re, c));
	mgmt_conf_print(re, &out2);
	assert_int_equal(out2.len, out.len - 1);
	assert_memory_equal(out2.data, out.data, out2.len);
	free(want);
	lc_buf_fini(&out);
	lc_buf_fini(&out2);
	mgmt_conf_free(c);
	mgmt_conf_free(re);
}

static void
test_golden_basic(void **s)
{
	(void)s;
	golden("basic");
}
static void
test_golden_full(void **s)
{
	(void)s;
	golden("full");
}
static void
test_golden_empty(void **s)
{
	(void)s;
	golden("empty");
}
static void
test_golden_comments(void **s)
{
	(void)s;
	golden("comments");
}
static void
test_golden_arp(void **s)
{
	(void)s;
	golden("arp");
}
static void
test_golden_bgp(void **s)
{
	(void)s;
	golden("bgp");
}
static void
test_golden_policy(void **s)
{
	(void)s;
	golden("policy");
}

/* The parse must fail with exactly msg (which carries file:line:col). */
static void
bad(const char *text, const char *msg)
{
	struct mgmt_conf *c = (struct mgmt_conf *)0x1;
	struct lc_err err = {0};

	if (mgmt_conf_parse(text, strlen(text), "t.conf", &c, &err) == 0)
		fail_msg("parsed: %s", text);
	assert_ptr_equal(c, (struct mgmt_conf *)0x1); /* untouched */
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
}

static void
test_syntax_errors(void **s)
{
	(void)s;
	bad("interfaces {\n eth0 { mtu 1500 }\n}",
	    "t.conf:2:18: expected ';' or '{' after '1500', got '}'");
	bad("interfaces {\n eth0 { mtu 1500; }\n",
	    "t.conf:3:1: expected '}' before end of input (block opened at "
	    "line 1, column 12)");
	bad("system { }\n}", "t.conf:2:1: unexpected '}' (no block is open)");
	bad("/* open\n comment", "t.conf:1:1: unterminated comment");
	bad("system { host-name \"abc;\n}",
	    "t.conf:1:20: unterminated string (strings end on the same line)");
	bad("system { host-name \"abc", "t.conf:1:20: unterminated string");
	bad("; system", "t.conf:1:1: expected a statement, got ';'");
	bad("routing { }",
	    "t.conf:1:1: unknown word 'routing', expected "
	    "interfaces, protocols, policy-options, rib, fwd, system");
	bad("interfaces { eth0 { speed 10; } }",
	    "t.conf:1:21: unknown word "
	    "'speed', expected device, address, inet6, link-local, "
	    "router-advertisement, mtu, disable, port-backend, host-path, arp, "
	    "ndp");
	bad("rib;",
	    "t.conf:1:1: incomplete statement 'rib': expected '{' or "
	    "one of ecmp-width, distance");
	bad("rib { ecmp-width; }",
	    "t.conf:1:7: expected <1..64> after "
	    "'ecmp-width'");
	bad("rib { ecmp-width 4 5; }",
	    "t.conf:1:20: expected ';' after the "
	    "value of 'ecmp-width'");
	bad("rib { ecmp-width 4 { } }",
	    "t.conf:1:7: expected ';' after the "
	    "value of 'ecmp-width', got '{'");
	bad("protocols static route 10.0.0.0/8 blackhole now;",
	    "t.conf:1:45: unexpected 'now': 'blackhole' takes no value");
	bad("system { host-name a\001b; }",
	    "t.conf:1:21: unexpected character 0x01");
	bad("fwd { workers [ 1 2 ]; }",
	    "t.conf:1:7: 'workers' takes one value, not a [ list ]");
	bad("protocols static route 10.0.0.0/8 next-hop [ 198.18.0.1;",
	    "t.conf:1:56: expected ']' (list opened at line 1, column 44), "
	    "got ';'");
}

static void
test_type_errors(void **s)
{
	(void)s;
	bad("interfaces { eth0 { address 198.18.0.1; } }",
	    "t.conf:1:29: invalid address '198.18.0.1': expected an IPv4 "
	    "address with length a.b.c.d/len");
	bad("interfaces { eth0 { address 198.18.0.300/24; } }",
	    "t.conf:1:29: invalid address '198.18.0.300/24': expected an IPv4 "
	    "address with length a.b.c.d/len");
	bad("protocols static route 10.0.0.1/8 blackhole;",
	    "t.conf:1:24: invalid route '10.0.0.1/8': host bits set, expected "
	    "10.0.0.0/8");
	bad("protocols static route 10.0.0.0/8 next-hop 198.18.0;",
	    "t.conf:1:44: invalid next-hop '198.18.0': expected an IPv4 "
	    "address a.b.c.d or an IPv6 address x:x::x");
	bad("fwd { port-backend dpdk; }",
	    "t.conf:1:20: invalid port-backend "
	    "'dpdk': expected one of af_packet, af_xdp, auto");
	bad("interfaces { eth0 { host-path off; } }",
	    "t.conf:1:31: invalid host-path 'off': expected one of enable, "
	    "disable");
	bad("interfaces { eth0 { host-path [ enable ]; } }",
	    "t.conf:1:21: 'host-path' takes one value, not a [ list ]");
	bad("fwd { workers -1; }",
	    "t.conf:1:15: invalid workers '-1': "
	    "expected a number in 1..16");
	bad("fwd { workers 08; }",
	    "t.conf:1:15: invalid workers '08': "
	    "expected a number in 1..16");
	bad("interfaces { -eth0 { mtu 1500; } }",
	    "t.conf:1:14: invalid "
	    "interface name '-eth0': expected a name of 1..15 letters, "
	    "digits, '-', '_', '.' starting with a letter or digit");
}

static void
test_range_errors(void **s)
{
	(void)s;
	bad("interfaces { eth0 { mtu 67; } }",
	    "t.conf:1:25: mtu 67 out of range, expected 68..9216");
	bad("interfaces { eth0 { mtu 9217; } }",
	    "t.conf:1:25: mtu 9217 out of range, expected 68..9216");
	bad("fwd { workers 17; }",
	    "t.conf:1:15: workers 17 out of range, expected 1..16");
	bad("rib { ecmp-width 0; }",
	    "t.conf:1:18: ecmp-width 0 out of range, expected 1..64");
	bad("protocols static route 10.0.0.0/8 { blackhole; distance 256; }",
	    "t.conf:1:57: distance 256 out of range, expected 1..255");
	bad("fwd { icmp-rate-limit 99999999999; }",
	    "t.conf:1:23: invalid "
	    "icmp-rate-limit '99999999999': expected a number in 0..1000000");
}

static void
test_duplicate_errors(void **s)
{
	(void)s;
	bad("interfaces { eth0 { mtu 1500;\n mtu 9000; } }",
	    "t.conf:2:2: duplicate mtu (first at line 1, column 21)");
	bad("interfaces { eth0 { }\n eth0 { } }",
	    "t.conf:2:2: duplicate interface eth0 (first at line 1, column "
	    "14)");
	bad("protocols static route 10.0.0.0/8 blackhole;\n"
	    "protocols { static { route 10.0.0.0/8 { reject; } } }",
	    "t.conf:2:28: duplicate route 10.0.0.0/8 (first at line 1, column "
	    "18)");
	bad("interfaces { eth0 { address 198.18.0.1/24; address "
	    "198.18.0.1/24; } }",
	    "t.conf:1:52: duplicate address "
	    "198.18.0.1/24 (first at line 1, column 21)");
	bad("protocols static route 10.0.0.0/8 next-hop [ 198.18.0.1 "
	    "198.18.0.1 ];",
	    "t.conf:1:57: duplicate next-hop 198.18.0.1 "
	    "(first at line 1, column 35)");
	bad("interfaces { eth0 { host-path enable;\n host-path disable; } }",
	    "t.conf:2:2: duplicate host-path (first at line 1, column 21)");
	bad("protocols static route 10.0.0.0/8 { blackhole; blackhole; }",
	    "t.conf:1:48: duplicate blackhole (first at line 1, column 37)");
}

static int
collect_iface(const struct mgmt_node *n, void *arg)
{
	struct {
		struct mgmt_iface_conf *v;
		unsigned n;
	} *col = arg;

	assert_true(col->n < 3);
	return (mgmt_conf_iface_get(n, &col->v[col->n++]));
}

static void
invalid(const char *text, const char *msg)
{
	struct mgmt_conf *c;
	struct lc_err err = {0};

	if (mgmt_conf_parse(text, strlen(text), "v.conf", &c, &err) != 0)
		fail_msg("parse: %s", err.msg);
	assert_int_equal(mgmt_conf_validate(c, &err), -22);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
	mgmt_conf_free(c);
}

static void
test_reference_and_semantic_errors(void **s)
{
	(void)s;
	/* reference */
	invalid("interfaces { eth0 { address 198.18.0.1/24; } }\n"
		"protocols static route 10.0.0.0/8 interface eth1;",
	    "v.conf:2:35: static route 10.0.0.0/8: interface eth1 is not "
	    "configured (configured: eth0)");
	/* duplicates across entries */
	invalid("interfaces { a { device veth0; } b { device veth0; } }",
	    "v.conf:1:14: interface a: duplicate device veth0 (also used by "
	    "interface b)");
	invalid("interfaces { a { address 198.18.0.1/24; } b { address "
		"198.18.0.2/25; } }",
	    "v.conf:1:18: interface a: duplicate "
	    "subnet: address 198.18.0.1/24 overlaps 198.18.0.2/25 of "
	    "interface b");
	/* constraints */
	invalid("protocols static route 10.0.0.0/8 distance 5;",
	    "v.conf:1:18: static route 10.0.0.0/8: expected next-hop, "
	    "interface, blackhole or reject");
	invalid("protocols static route 10.0.0.0/8 { blackhole; reject; }",
	    "v.conf:1:18: static route 10.0.0.0/8: blackhole and reject "
	    "exclude each other");
	invalid("protocols static route 10.0.0.0/8 { blackhole; next-hop "
		"198.18.0.1; }",
	    "v.conf:1:18: static route 10.0.0.0/8: "
	    "blackhole excludes next-hop and interface");
	invalid("protocols static route 10.0.0.0/8 next-hop 224.0.0.1;",
	    "v.conf:1:35: static route 10.0.0.0/8: next-hop 224.0.0.1 is not "
	    "a unicast address");
	invalid("interfaces { eth0 { address 198.18.0.0/24; } }",
	    "v.conf:1:21: interface eth0: address 198.18.0.0/24 is not a host "
	    "address of its subnet");
}

/* check(text, want): the config fmt with arg in it must give pfx msg */
static void
framed(void (*check)(const char *, const char *), const char *fmt,
    const char *arg, const char *pfx, const char *msg)
{
	char text[512], want[512];

	snprintf(text, sizeof(text), fmt, arg);
	snprintf(want, sizeof(want), "%s%s", pfx, msg);
	check(text, want);
}

/* A mac value in `interfaces { eth1 { arp 198.18.1.10 mac V; } }`: the
 * value is at column 41. */
static void
bad_mac(const char *v, const char *msg)
{
	framed(bad, "interfaces { eth1 { arp 198.18.1.10 mac %s; } }", v,
	    "t.conf:1:41: ", msg);
}

#define MAC_EXPECTED \
	"expected a MAC address xx:xx:xx:xx:xx:xx (six pairs of hex digits)"

static void
test_mac_errors(void **s)
{
	(void)s;
	bad_mac("02:00:5e:00:01",
	    "invalid mac '02:00:5e:00:01': " MAC_EXPECTED);
	bad_mac("02:00:5e:00:01:0a:0b",
	    "invalid mac '02:00:5e:00:01:0a:0b': " MAC_EXPECTED);
	bad_mac("02:00:5e:00:01:0a:",
	    "invalid mac '02:00:5e:00:01:0a:': " MAC_EXPECTED);
	bad_mac("2:0:5e:0:1:a", "invalid mac '2:0:5e:0:1:a': " MAC_EXPECTED);
	bad_mac("02-00-5e-00-01-0a",
	    "invalid mac '02-00-5e-00-01-0a': " MAC_EXPECTED);
	bad_mac("02:00:5e:00:01:0g",
	    "invalid mac '02:00:5e:00:01:0g': " MAC_EXPECTED);
	bad_mac("02:00:5e:00:001:a",
	    "invalid mac '02:00:5e:00:001:a': " MAC_EXPECTED);
	bad_mac("0200.5e00.010a",
	    "invalid mac '0200.5e00.010a': " MAC_EXPECTED);
	bad_mac("\"\"", "invalid mac '': " MAC_EXPECTED);
	bad_mac("01:00:5e:00:00:01",
	    "invalid mac '01:00:5e:00:00:01': a group (multicast) address, "
	    "expected a unicast MAC address");
	bad_mac("33:33:00:00:00:01",
	    "invalid mac '33:33:00:00:00:01': a group (multicast) address, "
	    "expected a unicast MAC address");
	bad_mac("FF:FF:FF:FF:FF:FF",
	    "invalid mac 'FF:FF:FF:FF:FF:FF': the broadcast address, expected "
	    "a unicast MAC address");
	bad_mac("ff:ff:ff:ff:ff:ff",
	    "invalid mac 'ff:ff:ff:ff:ff:ff': the broadcast address, expected "
	    "a unicast MAC address");
	bad_mac("00:00:00:00:00:00",
	    "invalid mac '00:00:00:00:00:00': the all-zero address, expected "
	    "a unicast MAC address");
	/* the key, the list without a key, duplicates */
	bad("interfaces { eth1 { arp 198.18.1 mac 02:00:5e:00:01:0a; } }",
	    "t.conf:1:25: invalid arp '198.18.1': expected an IPv4 address "
	    "a.b.c.d");
	bad("interfaces { eth1 { arp; } }",
	    "t.conf:1:21: expected <a.b.c.d> after 'arp'");
	bad("interfaces { eth1 { arp 198.18.1.10 { mac; } } }",
	    "t.conf:1:39: expected <xx:xx:xx:xx:xx:xx> after 'mac'");
	bad("interfaces { eth1 { arp 198.18.1.10 { colour red; } } }",
	    "t.conf:1:39: unknown word 'colour', expected mac");
	bad("interfaces { eth1 { arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n"
	    "arp 198.18.1.10 { mac 02:00:5e:00:01:0b; } } }",
	    "t.conf:2:5: duplicate arp 198.18.1.10 (first at line 1, column "
	    "21)");
	bad("interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n"
	    "interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0b;",
	    "t.conf:2:33: duplicate mac (first at line 1, column 33)");
	bad("interfaces eth1 arp 198.18.1.10 mac [ 02:00:5e:00:01:0a ];",
	    "t.conf:1:33: 'mac' takes one value, not a [ list ]");
}

/* eth1 with 198.18.1.1/24 and the entry text on line 2: validation must
 * refuse it with exactly "v.conf:2:1: interface eth1: " + msg. */
static void
invalid_arp(const char *entry, const char *msg)
{
	framed(invalid, "interfaces { eth1 { address 198.18.1.1/24;\n%s } }",
	    entry, "v.conf:2:1: interface eth1: ", msg);
}

static void
valid(const char *text)
{
	struct mgmt_conf *c;
	struct lc_err err = {0};

	if (mgmt_conf_parse(text, strlen(text), "v.conf", &c, &err) != 0)
		fail_msg("parse: %s", err.msg);
	if (mgmt_conf_validate(c, &err) != 0)
		fail_msg("for %s\n%s", text, err.msg);
	mgmt_conf_free(c);
}

/* eth1 with n entries, one a line from line 2 on; the text, in t */
static const char *
arp_entries(struct lc_buf *t, unsigned n)
{
	lc_buf_reset(t);
	lc_buf_printf(t, "interfaces { eth1 { address 198.18.0.1/16;\n");
	for (unsigned i = 1; i <= n; i++)
		lc_buf_printf(t, "arp 198.18.1.%u mac 02:00:00:00:01:%02x;\n",
		    i, i);
	lc_buf_printf(t, "} }\n");
	lc_buf_append(t, "", 1);
	return ((const char *)t->data);
}

static void
test_arp_validation(void **s)
{
	struct lc_buf t = {0};

	(void)s;
	invalid_arp("arp 198.18.1.10;", "arp 198.18.1.10: expected mac");
	invalid_arp("arp 198.18.1.10 { }", "arp 198.18.1.10: expected mac");
	invalid_arp("arp 0.0.0.0 mac 02:00:5e:00:01:0a;",
	    "arp 0.0.0.0: not a unicast address");
	invalid_arp("arp 255.255.255.255 mac 02:00:5e:00:01:0a;",
	    "arp 255.255.255.255: not a unicast address");
	invalid_arp("arp 127.0.0.1 mac 02:00:5e:00:01:0a;",
	    "arp 127.0.0.1: not a unicast address");
	invalid_arp("arp 224.0.0.5 mac 02:00:5e:00:01:0a;",
	    "arp 224.0.0.5: not a unicast address");
	invalid_arp("arp 239.255.255.250 mac 02:00:5e:00:01:0a;",
	    "arp 239.255.255.250: not a unicast address");
	invalid_arp("arp 198.18.1.1 mac 02:00:5e:00:01:0a;",
	    "arp 198.18.1.1: the interface's own address (198.18.1.1/24)");
	invalid_arp("arp 198.18.1.0 mac 02:00:5e:00:01:0a;",
	    "arp 198.18.1.0: the network address of subnet 198.18.1.0/24");
	invalid_arp("arp 198.18.1.255 mac 02:00:5e:00:01:0a;",
	    "arp 198.18.1.255: the broadcast address of subnet "
	    "198.18.1.0/24");
	invalid_arp("arp 198.18.2.10 mac 02:00:5e:00:01:0a;",
	    "arp 198.18.2.10: not in a subnet of the interface (subnets: "
	    "198.18.1.0/24)");
	/* the first bad entry in address order is reported (.7, not .20) */
	invalid("interfaces { eth1 { address 198.18.1.1/24;\narp 198.18.1.20; "
		"arp 198.18.1.5 mac 02:00:5e:00:01:0a; arp 198.18.1.7; } }",
	    "v.conf:2:56: interface eth1: arp 198.18.1.7: expected mac");
	/* the subnets are listed (each once), /32 addresses are none */
	invalid("interfaces { eth1 { address 198.18.1.1/24; address "
		"198.18.1.2/24; address 198.18.2.1/30; address 198.18.9.9/32;"
		"\n arp 198.18.9.8 mac 02:00:5e:00:01:0a; } }",
	    "v.conf:2:2: interface eth1: arp 198.18.9.8: not in a subnet of "
	    "the interface (subnets: 198.18.1.0/24, 198.18.2.0/30)");
	invalid("interfaces { eth1 { address 198.18.9.9/32;\n"
		"arp 198.18.9.8 mac 02:00:5e:00:01:0a; } }",
	    "v.conf:2:1: interface eth1: arp 198.18.9.8: not in a subnet of "
	    "the interface (the interface has only /32 addresses)");
	invalid("interfaces { eth1 { address 198.18.9.9/32;\n"
		"arp 198.18.9.9 mac 02:00:5e:00:01:0a; } }",
	    "v.conf:2:1: interface eth1: arp 198.18.9.9: the interface's own "
	    "address (198.18.9.9/32)");
	invalid("interfaces { eth1 {\narp 198.18.1.10 mac 02:00:5e:00:01:0a; "
		"} }",
	    "v.conf:2:1: interface eth1: arp 198.18.1.10: not in a subnet of "
	    "the interface (the interface has no address)");
	/* /30: network and broadcast refused, the hosts accepted; /31: both
	 * addresses are hosts (RFC 3021) */
	invalid("interfaces { eth1 { address 198.18.1.1/30;\n"
		"arp 198.18.1.3 mac 02:00:5e:00:01:0a; } }",
	    "v.conf:2:1: interface eth1: arp 198.18.1.3: the broadcast "
	    "address of subnet 198.18.1.0/30");
	valid("interfaces { eth1 { address 198.18.1.1/30; "
	      "arp 198.18.1.2 mac 02:00:5e:00:01:0a; } }");
	valid("interfaces { eth1 { address 198.18.1.1/31; "
	      "arp 198.18.1.0 mac 02:00:5e:00:01:0a; } }");
	/* a second subnet of the interface */
	valid("interfaces { eth1 { address 198.18.1.1/24; address "
	      "198.18.2.1/24; arp 198.18.2.10 mac 02:00:5e:00:01:0a; } }");
	/* the other interface's subnet is not this one's */
	invalid("interfaces { eth0 { address 198.18.0.1/24; } eth1 { "
		"address 198.18.1.1/24;\narp 198.18.0.10 mac "
		"02:00:5e:00:01:0a; } }",
	    "v.conf:2:1: interface eth1: arp 198.18.0.10: not in a subnet of "
	    "the interface (subnets: 198.18.1.0/24)");
	/* at most 64 per interface: the 65th is named */
	valid(arp_entries(&t, 64));
	invalid(arp_entries(&t, 65),
	    "v.conf:66:1: interface eth1: more than 64 arp entries");
	lc_buf_fini(&t);
}

/* Two interfaces with entries: valid, and decoded in address order. */
static void
test_arp_typed_view(void **s)
{
	const char *text =
	    "interfaces {\n"
	    "    eth0 { address 198.18.0.1/24;\n"
	    "        arp 198.18.0.200 mac 02:00:5E:00:00:C8;\n"
	    "        arp 198.18.0.20 mac 0a:1b:2c:3d:4e:5f; }\n"
	    "    eth1 { address 198.18.1.1/24; address 198.18.2.1/24;\n"
	    "        arp 198.18.2.3 mac 02:00:00:00:02:03;\n"
	    "        arp 198.18.1.3 mac 02:00:00:00:01:03; }\n"
	    "    eth2 { address 198.18.3.1/24; }\n"
	    "}\n";
	static const uint8_t m0[6] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f},
			     m1[6] = {0x02, 0x00, 0x5e, 0x00, 0x00, 0xc8},
			     m2[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x03},
			     m3[6] = {0x02, 0x00, 0x00, 0x00, 0x02, 0x03};
	struct mgmt_iface_conf ic[3];
	struct mgmt_conf *c;
	struct lc_err err;
	struct {
		struct mgmt_iface_conf *v;
		unsigned n;
	} col = {ic, 0};

	(void)s;
	assert_int_equal(mgmt_conf_parse(text, strlen(text), "v.conf", &c,
			     &err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_IFACE, collect_iface,
			     &col),
	    0);
	assert_int_equal(col.n, 3);
	assert_int_equal(ic[0].narp, 2);
	assert_string_equal(lc_ip4_ntoa(ic[0].arp_ip[0]), "198.18.0.20");
	assert_memory_equal(ic[0].arp_mac[0], m0, 6);
	assert_string_equal(lc_ip4_ntoa(ic[0].arp_ip[1]), "198.18.0.200");
	assert_memory_equal(ic[0].arp_mac[1], m1, 6);
	assert_false(ic[0].arp_nomac[0] || ic[0].arp_nomac[1]);
	assert_int_equal(ic[1].narp, 2);
	assert_string_equal(lc_ip4_ntoa(ic[1].arp_ip[0]), "198.18.1.3");
	assert_memory_equal(ic[1].arp_mac[0], m2, 6);
	assert_string_equal(lc_ip4_ntoa(ic[1].arp_ip[1]), "198.18.2.3");
	assert_memory_equal(ic[1].arp_mac[1], m3, 6);
	assert_int_equal(ic[2].narp, 0);
	mgmt_conf_free(c);
}

/* host-path: enable unless the interface says disable */
static void
test_host_path_typed_view(void **s)
{
	const char *text = "interfaces {\n"
			   "    eth0 { address 198.18.0.1/24; }\n"
			   "    eth1 { host-path disable; }\n"
			   "    eth2 { host-path enable; }\n"
			   "}\n";
	struct mgmt_iface_conf ic[3];
	struct mgmt_conf *c;
	struct lc_err err;
	struct {
		struct mgmt_iface_conf *v;
		unsigned n;
	} col = {ic, 0};

	(void)s;
	assert_int_equal(mgmt_conf_parse(text, strlen(text), "v.conf", &c,
			     &err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_IFACE, collect_iface,
			     &col),
	    0);
	assert_int_equal(col.n, 3);
	assert_true(ic[0].host_path);
	assert_false(ic[1].host_path);
	assert_true(ic[2].host_path);
	mgmt_conf_free(c);
}

static void
test_bracket_and_oneliners(void **s)
{
	const char *a = "protocols static route 10.0.0.0/8 next-hop [ "
			"198.18.0.1 198.18.0.2 ];";
	const char *b =
	    "protocols { static { route 10.0.0.0/8 { next-hop "
	    "198.18.0.2; } } }\nprotocols static route 10.0.0.0/8 next-hop "
	    "198.18.0.1;";
	struct mgmt_conf *ca, *cb;
	struct lc_err err;

	(void)s;
	assert_int_equal(mgmt_conf_parse(a, strlen(a), "a", &ca, &err), 0);
	assert_int_equal(mgmt_conf_parse(b, strlen(b), "b", &cb, &err), 0);
	assert_true(mgmt_conf_equal(ca, cb));
	mgmt_conf_free(ca);
	mgmt_conf_free(cb);
}

static void
test_split(void **s)
{
	char buf[128];
	const char *w[8];

	(void)s;
	assert_int_equal(mgmt_conf_split(" set system host-name \"my "
					 "\\\"r\\\"\"  ",
			     buf, sizeof(buf), w, 8),
	    4);
	assert_string_equal(w[0], "set");
	assert_string_equal(w[3], "my \"r\"");
	assert_int_equal(mgmt_conf_split("a \"b", buf, sizeof(buf), w, 8), -22);
	assert_int_equal(mgmt_conf_split("a b c", buf, sizeof(buf), w, 2), -7);
	assert_int_equal(mgmt_conf_split("", buf, sizeof(buf), w, 2), 0);
}

/* Routes are collected and built into a balanced set at the end of a
 * parse: any input order gives the same tree; an error frees them. */
static void
test_route_order(void **s)
{
	struct lc_buf fwd = {0}, rev = {0}, p1 = {0}, p2 = {0};
	struct mgmt_conf *a, *b, *c;
	struct lc_err err;
	const unsigned n = 5000;

	(void)s;
	lc_buf_printf(&fwd, "protocols static {\n");
	lc_buf_printf(&rev, "protocols static {\n");
	for (unsigned i = 0; i < n; i++) {
		unsigned j = n - 1 - i, k = (i * 2654435761u) % n;

		lc_buf_printf(&fwd,
		    "route 11.%u.%u.0/24 next-hop 198.18.0.%u;\n", i >> 8,
		    i & 255, 1 + i % 200);
		/* reversed, and each route split over two statements */
		lc_buf_printf(&rev,
		    "route 11.%u.%u.0/24 next-hop 198.18.0.%u;\n", j >> 8,
		    j & 255, 1 + j % 200);
		(void)k;
	}
	for (unsigned i = 0; i < n; i += 7)
		lc_buf_printf(&rev, "route 11.%u.%u.0/24 distance 9;\n", i >> 8,
		    i & 255);
	lc_buf_printf(&fwd, "}\n");
	lc_buf_printf(&rev, "}\n");
	assert_int_equal(mgmt_conf_parse((char *)fwd.data, fwd.len, "f", &a,
			     &err),
	    0);
	assert_int_equal(mgmt_conf_parse((char *)rev.data, rev.len, "r", &b,
			     &err),
	    0);
	assert_int_equal(mgmt_conf_count(a, MGMT_S_ROUTE), n);
	assert_int_equal(mgmt_conf_count(b, MGMT_S_ROUTE), n);
	assert_false(mgmt_conf_equal(a, b)); /* the distances */
	for (unsigned i = 0; i < n; i += 7) {
		char pfx[32];
		const char *w[5] = {"protocols", "static", "route", pfx,
		    "distance"};

		snprintf(pfx, sizeof(pfx), "11.%u.%u.0/24", i >> 8, i & 255);
		assert_int_equal(mgmt_conf_delete(b, w, 5, &err), 0);
	}
	assert_true(mgmt_conf_equal(a, b));
	mgmt_conf_print(a, &p1);
	mgmt_conf_print(b, &p2);
	assert_int_equal(p1.len, p2.len);
	assert_memory_equal(p1.data, p2.data, p1.len);
	/* an error after many routes: nothing returned, nothing leaked */
	lc_buf_printf(&rev, "route 11.0.0.0/24 blackhole;\n");
	assert_int_equal(mgmt_conf_parse((char *)rev.data, rev.len, "r", &c,
			     &err),
	    -22);
	assert_non_null(strstr(err.msg, "r:5718:1: unknown word 'route'"));
	lc_buf_fini(&fwd);
	lc_buf_fini(&rev);
	lc_buf_fini(&p1);
	lc_buf_fini(&p2);
	mgmt_conf_free(a);
	mgmt_conf_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_basic),
	    cmocka_unit_test(test_golden_full),
	    cmocka_unit_test(test_golden_empty),
	    cmocka_unit_test(test_golden_comments),
	    cmocka_unit_test(test_golden_arp),
	    cmocka_unit_test(test_golden_bgp),
	    cmocka_unit_test(test_golden_policy),
	    cmocka_unit_test(test_mac_errors),
	    cmocka_unit_test(test_arp_validation),
	    cmocka_unit_test(test_arp_typed_view),
	    cmocka_unit_test(test_host_path_typed_view),
	    cmocka_unit_test(test_syntax_errors),
	    cmocka_unit_test(test_type_errors),
	    cmocka_unit_test(test_range_errors),
	    cmocka_unit_test(test_duplicate_errors),
	    cmocka_unit_test(test_reference_and_semantic_errors),
	    cmocka_unit_test(test_bracket_and_oneliners),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_route_order),
	};
	const char *f = __FILE__, *sl = strrchr(f, '/');

	snprintf(golden_dir, sizeof(golden_dir), "%.*s/golden",
	    sl ? (int)(sl - f) : 1, sl ? f : ".");
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
