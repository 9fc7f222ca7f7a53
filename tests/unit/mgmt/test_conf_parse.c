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
	struct mgmt_err err;
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
	if (mgmt_conf_parse(
		(char *)out.data, out.len - 1, "printed", &re, &err) != 0)
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

/* The parse must fail with exactly msg (which carries file:line:col). */
static void
bad(const char *text, const char *msg)
{
	struct mgmt_conf *c = (struct mgmt_conf *)0x1;
	struct mgmt_err err = {""};

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
	bad("routing { }", "t.conf:1:1: unknown word 'routing', expected "
			   "interfaces, protocols, rib, fwd, system");
	bad("interfaces { eth0 { speed 10; } }",
	    "t.conf:1:21: unknown word "
	    "'speed', expected device, address, mtu, disable, port-backend");
	bad("rib;", "t.conf:1:1: incomplete statement 'rib': expected '{' or "
		    "one of ecmp-width, distance");
	bad("rib { ecmp-width; }", "t.conf:1:7: expected <1..64> after "
				   "'ecmp-width'");
	bad("rib { ecmp-width 4 5; }", "t.conf:1:20: expected ';' after the "
				       "value of 'ecmp-width'");
	bad("rib { ecmp-width 4 { } }", "t.conf:1:7: expected ';' after the "
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
	    "address a.b.c.d");
	bad("fwd { port-backend dpdk; }",
	    "t.conf:1:20: invalid port-backend "
	    "'dpdk': expected one of af_packet, af_xdp, auto");
	bad("fwd { workers -1; }", "t.conf:1:15: invalid workers '-1': "
				   "expected a number in 1..16");
	bad("fwd { workers 08; }", "t.conf:1:15: invalid workers '08': "
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
	bad("protocols static route 10.0.0.0/8 { blackhole; blackhole; }",
	    "t.conf:1:48: duplicate blackhole (first at line 1, column 37)");
}

static void
invalid(const char *text, const char *msg)
{
	struct mgmt_conf *c;
	struct mgmt_err err = {""};

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
	struct mgmt_err err;

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
	struct mgmt_err err;
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
		lc_buf_printf(
		    &rev, "route 11.%u.%u.0/24 distance 9;\n", i >> 8, i & 255);
	lc_buf_printf(&fwd, "}\n");
	lc_buf_printf(&rev, "}\n");
	assert_int_equal(
	    mgmt_conf_parse((char *)fwd.data, fwd.len, "f", &a, &err), 0);
	assert_int_equal(
	    mgmt_conf_parse((char *)rev.data, rev.len, "r", &b, &err), 0);
	assert_int_equal(mgmt_conf_count(a, MGMT_S_ROUTE), n);
	assert_int_equal(mgmt_conf_count(b, MGMT_S_ROUTE), n);
	assert_false(mgmt_conf_equal(a, b)); /* the distances */
	for (unsigned i = 0; i < n; i += 7) {
		char pfx[32];
		const char *w[5] = {
		    "protocols", "static", "route", pfx, "distance"};

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
	assert_int_equal(
	    mgmt_conf_parse((char *)rev.data, rev.len, "r", &c, &err), -22);
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
