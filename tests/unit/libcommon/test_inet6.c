/* tests/unit/libcommon/test_inet6.c: lc_inet6.c: RFC 5952's examples, every
 * error with its message, zones, prefixes, and glibc's inet_pton/inet_ntop
 * as a cross-check where they agree with us. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "libcommon/lc_inet6.h"

/* Parses s (no flags), checks it against inet_pton and prints it. */
static const char *
canon(const char *s, char *buf)
{
	struct lc_ip6 a;
	struct lc_err e;
	uint8_t g[16];

	lc_err_clear(&e);
	if (lc_inet6_parse(s, 0, &a, NULL, &e) != 0)
		fail_msg("refused '%s': %s", s, e.msg);
	assert_int_equal(inet_pton(AF_INET6, s, g), 1);
	assert_memory_equal(a.b, g, 16);
	return (lc_inet6_str(&a, buf));
}

/* RFC 5952 section 2 (every form of one address), 4.1, 4.2.1-4.2.3, 4.3,
 * 5; and the printer's edges. */
static void
test_rfc5952(void **st)
{
	static const char *const same[] = {
	    "2001:db8:0:0:1:0:0:1",
	    "2001:0db8:0:0:1:0:0:1",
	    "2001:db8::1:0:0:1",
	    "2001:db8::0:1:0:0:1",
	    "2001:0db8::1:0:0:1",
	    "2001:db8:0:0:1::1",
	    "2001:db8:0000:0:1::1",
	    "2001:DB8:0:0:1::1",
	};
	static const char *const pairs[][2] = {
	    {"2001:0db8::0001", "2001:db8::1"},		     /* 4.1 */
	    {"2001:db8::0000:1", "2001:db8::1"},	     /* 4.2.1 */
	    {"2001:db8:0:0:0:0:2:1", "2001:db8::2:1"},	     /* 4.2.1 */
	    {"2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1"}, /* 4.2.2 */
	    {"2001:0:0:1:0:0:0:1", "2001:0:0:1::1"},	     /* 4.2.3 */
	    {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},   /* 4.2.3 tie */
	    {"2001:DB8::ABCD:EF", "2001:db8::abcd:ef"},	     /* 4.3 */
	    {"0:0:0:0:0:ffff:c612:1", "::ffff:198.18.0.1"},  /* 5 */
	    {"::FFFF:198.18.0.1", "::ffff:198.18.0.1"},
	    {"::ffff:0:0", "::ffff:0.0.0.0"},
	    {"0:0:0:0:0:0:0:0", "::"},
	    {"0:0:0:0:0:0:0:1", "::1"},
	    {"1:0:0:0:0:0:0:0", "1::"},
	    {"0:0:1:0:0:0:0:0", "0:0:1::"},
	    {"1:0:1:1:1:1:1:1", "1:0:1:1:1:1:1:1"},
	    {"1:1:1:1:1:1:1:0", "1:1:1:1:1:1:1:0"},
	    {"0:1:1:1:1:1:1:1", "0:1:1:1:1:1:1:1"},
	    {"1:0:0:1:0:0:0:0", "1:0:0:1::"},
	    {"0:0:1:1:1:1:0:0", "::1:1:1:1:0:0"},
	    {"2001:2:0:0:1:0:0:0", "2001:2:0:0:1::"},
	    {"ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
	    {"2001:2::198.18.0.1", "2001:2::c612:1"},
	    {"::198.18.0.1", "::c612:1"}, /* IPv4-compatible: not dotted */
	    {"fe80::0202:b3ff:fe1e:8329", "fe80::202:b3ff:fe1e:8329"},
	    {"1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"},
	    {"::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"},
	};
	char buf[LC_IP6_STRLEN];

	(void)st;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_string_equal(canon(same[i], buf), "2001:db8::1:0:0:1");
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		assert_string_equal(canon(pairs[i][0], buf), pairs[i][1]);
		/* canonical text is a fixed point */
		assert_string_equal(canon(pairs[i][1], buf), pairs[i][1]);
	}
}

/* Every error, its message, and *out left alone. */
static void
test_errors(void **st)
{
	static const char *const bad[][2] = {
	    {"", "empty address"},
	    {"2001:2::1::2", "more than one ::"},
	    {"::1::", "more than one ::"},
	    {"2001:2:::1", "empty group (':::')"},
	    {":::", "empty group (':::')"},
	    {":1::2", "starts with a single ':'"},
	    {":", "starts with a single ':'"},
	    {"1::2:", "ends with a single ':'"},
	    {"1:2:3:4:5:6:7:", "ends with a single ':'"},
	    {"12345::", "group '1234...' has more than 4 hex digits"},
	    {"2001:00002::", "group '0000...' has more than 4 hex digits"},
	    {"0000000000000000000000000000000000000000000000001::",
		"group '0000...' has more than 4 hex digits"},
	    {"1:2:3:4:5:6:7:8:9", "too many groups (more than 8)"},
	    {"1:2:3:4:5:6:7:1.2.3.4", "too many groups (more than 8)"},
	    {"1:2:3:4:5:6:7", "too few groups (8 without ::)"},
	    {"2001:2", "too few groups (8 without ::)"},
	    {"1:2:3:4:5:1.2.3.4", "too few groups (8 without ::)"},
	    {"1::2:3:4:5:6:7:8",
		":: with 8 groups (it stands for at least one)"},
	    {"1:2:3:4::5:6:7:8",
		":: with 8 groups (it stands for at least one)"},
	    {"::1:2:3:4:5:6:1.2.3.4",
		":: with 8 groups (it stands for at least one)"},
	    {"198.18.0.1", "an IPv4 address, not IPv6"},
	    {"::ffff:198.18.0.01", "bad embedded IPv4 address '198.18.0.01'"},
	    {"::ffff:300.1.1.1", "bad embedded IPv4 address '300.1.1.1'"},
	    {"::ffff:1.2.3", "bad embedded IPv4 address '1.2.3'"},
	    {"::ffff:1.2.3.4.5", "bad embedded IPv4 address '1.2.3.4.5'"},
	    {"::1.2.3.4:1", "an embedded IPv4 address must come last"},
	    {"::ffff:1a.2.3.4", "unexpected character 'a'"},
	    {"g::", "unexpected character 'g'"},
	    {"2001:2::x", "unexpected character 'x'"},
	    {"2001:2::1/64", "unexpected character '/'"},
	    {" ::1", "unexpected space (byte 0x20)"},
	    {"::1 ", "unexpected space (byte 0x20)"},
	    {"::1\n", "unexpected character (byte 0x0a)"},
	    {"-1::", "unexpected character '-'"},
	    {"fe80::1%eth0", "an interface ('%...') is not allowed here"},
	    {"2001:2::1%eth0", "an interface ('%...') is not allowed here"},
	};
	struct lc_ip6 a, sent;
	struct lc_err e;

	(void)st;
	memset(&sent, 0xab, sizeof(sent));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = sent;
		lc_err_clear(&e);
		if (lc_inet6_parse(bad[i][0], 0, &a, NULL, &e) != -EINVAL)
			fail_msg("accepted '%s'", bad[i][0]);
		if (strcmp(e.msg, bad[i][1]) != 0)
			fail_msg("'%s': got \"%s\", want \"%s\"", bad[i][0],
			    e.msg, bad[i][1]);
		assert_int_equal(e.code, -EINVAL);
		assert_memory_equal(&a, &sent, sizeof(a));
	}
	/* the caller puts the value in front */
	lc_err_clear(&e);
	assert_int_equal(lc_inet6_parse("2001:2::1::2", 0, &a, NULL, &e),
	    -EINVAL);
	lc_err_prefix(&e, "invalid next-hop '%s'", "2001:2::1::2");
	assert_string_equal(e.msg,
	    "invalid next-hop '2001:2::1::2': more "
	    "than one ::");
	/* no lc_err: only the code */
	assert_int_equal(lc_inet6_parse("::1::", 0, &a, NULL, NULL), -EINVAL);
	assert_int_equal(lc_inet6_parse(NULL, 0, &a, NULL, NULL), -EINVAL);
	assert_memory_equal(&a, &sent, sizeof(a));
}

/* A zone only where an interface is allowed, only on a link-local address,
 * and needed there when asked. */
static void
test_zone(void **st)
{
	static const char *const bad[][2] = {
	    {"2001:2::1%eth0",
		"an interface ('%eth0') only goes with a link-local address"},
	    {"fe80::1%", "no interface name after '%'"},
	    {"fe80::1%0123456789abcdef",
		"interface name after '%' longer than 15 characters"},
	    {"fe80::1%eth 0", "bad interface name after '%': unexpected byte"},
	    {"fe80::1%-eth0",
		"bad interface name after '%': unexpected character"},
	    {"fe80::1%eth0%1",
		"bad interface name after '%': unexpected character"},
	    {"fe80::1::2%eth0", "more than one ::"},
	};
	char zone[LC_INET6_ZONE_MAX + 1], buf[LC_IP6_STRLEN];
	struct lc_ip6 a, sent;
	struct lc_err e;

	(void)st;
	assert_int_equal(lc_inet6_parse("fe80::1%eth0", LC_INET6_F_ZONE, &a,
			     zone, &e),
	    0);
	assert_string_equal(zone, "eth0");
	assert_string_equal(lc_inet6_str(&a, buf), "fe80::1");
	assert_int_equal(lc_inet6_parse("fe80::1%0123456789abcde",
			     LC_INET6_F_ZONE, &a, zone, &e),
	    0);
	assert_string_equal(zone, "0123456789abcde");
	assert_int_equal(lc_inet6_parse("ff02::1:ff00:1%br-1.2_x",
			     LC_INET6_F_ZONE, &a, zone, &e),
	    0);
	assert_string_equal(zone, "br-1.2_x");
	/* a zone is optional unless needed; a global address needs none */
	assert_int_equal(lc_inet6_parse("fe80::1", LC_INET6_F_ZONE, &a, zone,
			     &e),
	    0);
	assert_string_equal(zone, "");
	assert_int_equal(lc_inet6_parse("2001:2::2", LC_INET6_F_ZONE_NEED, &a,
			     zone, &e),
	    0);
	assert_int_equal(lc_inet6_parse("febf::1%eth0", LC_INET6_F_ZONE_NEED,
			     &a, zone, &e),
	    0);
	memset(&sent, 0xab, sizeof(sent));
	strcpy(zone, "keep");
	a = sent;
	assert_int_equal(lc_inet6_parse("fe80::1", LC_INET6_F_ZONE_NEED, &a,
			     zone, &e),
	    -EINVAL);
	assert_string_equal(e.msg,
	    "a link-local address needs its interface (fe80::1%IFNAME)");
	assert_int_equal(lc_inet6_parse("fec0::1%eth0", LC_INET6_F_ZONE, &a,
			     zone, &e),
	    -EINVAL); /* site-local (deprecated) is not link-local */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lc_err_clear(&e);
		if (lc_inet6_parse(bad[i][0], LC_INET6_F_ZONE, &a, zone, &e) !=
		    -EINVAL)
			fail_msg("accepted '%s'", bad[i][0]);
		if (strcmp(e.msg, bad[i][1]) != 0)
			fail_msg("'%s': got \"%s\", want \"%s\"", bad[i][0],
			    e.msg, bad[i][1]);
	}
	assert_memory_equal(&a, &sent, sizeof(a));
	assert_string_equal(zone, "keep");
	/* the flag without room for the zone */
	assert_int_equal(lc_inet6_parse("fe80::1", LC_INET6_F_ZONE, &a, NULL,
			     &e),
	    -EINVAL);
}

static void
test_prefix(void **st)
{
	static const char *const good[][2] = {
	    {"2001:2::/48", "2001:2::/48"},
	    {"::/0", "::/0"},
	    {"2001:2::1/128", "2001:2::1/128"},
	    {"2001:2:0:8000::/49", "2001:2:0:8000::/49"},
	    {"FE80::/10", "fe80::/10"},
	    {"2001:0002:0000:0000::/64", "2001:2::/64"},
	    {"::ffff:0:0/96", "::ffff:0.0.0.0/96"},
	    {"ff00::/8", "ff00::/8"},
	};
	static const char *const bad[][2] = {
	    {"2001:2::/129", "prefix length /129 is over 128"},
	    {"2001:2::/999", "prefix length /999 is over 128"},
	    {"2001:2::/1289", "bad prefix length '/1289' (0..128)"},
	    {"2001:2::/12345", "bad prefix length '/1234...' (0..128)"},
	    {"2001:2::/048", "prefix length /048 has a leading zero"},
	    {"2001:2::/00", "prefix length /00 has a leading zero"},
	    {"2001:2::/", "no prefix length after '/' (0..128)"},
	    {"2001:2::/48x", "bad prefix length '/48x' (0..128)"},
	    {"2001:2::/-1", "bad prefix length '/-1' (0..128)"},
	    {"2001:2::/48/48", "bad prefix length '/48/4...' (0..128)"},
	    {"2001:2::/48 ", "bad prefix length '/48 ' (0..128)"},
	    {"2001:2::", "no prefix length (/0../128)"},
	    {"/48", "empty address"},
	    {" 2001:2::/48", "unexpected space (byte 0x20)"},
	    {"2001:2::1::/48", "more than one ::"},
	    {"2001:2::1/48", "host bits set: did you mean 2001:2::/48?"},
	    {"2001:2:ffff:ffff::/63",
		"host bits set: did you mean 2001:2:ffff:fffe::/63?"},
	    {"::1/0", "host bits set: did you mean ::/0?"},
	    {"fe80::/8", "host bits set: did you mean fe00::/8?"},
	    {"fe80::1%eth0/64", "a prefix takes no interface ('%...')"},
	};
	struct lc_prefix6 p, sent;
	struct lc_ip6 host, hsent;
	struct lc_err e;
	char buf[LC_PREFIX6_STRLEN];

	(void)st;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(lc_inet6_prefix_parse(good[i][0], 0, &p, NULL,
				     &e),
		    0);
		assert_string_equal(lc_inet6_prefix_str(&p, buf), good[i][1]);
	}
	memset(&sent, 0xab, sizeof(sent));
	memset(&hsent, 0xcd, sizeof(hsent));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = sent;
		host = hsent;
		lc_err_clear(&e);
		if (lc_inet6_prefix_parse(bad[i][0], 0, &p, &host, &e) !=
		    -EINVAL)
			fail_msg("accepted '%s'", bad[i][0]);
		if (strcmp(e.msg, bad[i][1]) != 0)
			fail_msg("'%s': got \"%s\", want \"%s\"", bad[i][0],
			    e.msg, bad[i][1]);
		assert_memory_equal(&p, &sent, sizeof(p));
		assert_memory_equal(&host, &hsent, sizeof(host));
	}
	/* an interface address: host bits kept apart */
	assert_int_equal(lc_inet6_prefix_parse("2001:2::1/64", LC_INET6_F_HOST,
			     &p, &host, &e),
	    0);
	assert_string_equal(lc_inet6_prefix_str(&p, buf), "2001:2::/64");
	assert_string_equal(lc_inet6_str(&host, buf), "2001:2::1");
	assert_int_equal(lc_inet6_prefix_parse("2001:2::1/129", LC_INET6_F_HOST,
			     &p, &host, &e),
	    -EINVAL);
	/* the longest text fits */
	assert_int_equal(
	    lc_inet6_prefix_parse(
		"ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128", 0, &p,
		NULL, &e),
	    0);
	assert_true(strlen(lc_inet6_prefix_str(&p, buf)) < LC_PREFIX6_STRLEN);
	assert_int_equal(lc_inet6_fmt(&p.addr, buf), 39);
	memset(&p.addr, 0, sizeof(p.addr));
	p.addr.b[10] = p.addr.b[11] = 0xff;
	memset(p.addr.b + 12, 0xff, 4);
	assert_string_equal(lc_inet6_str(&p.addr, buf),
	    "::ffff:255.255.255.255");
	/* lc_addr.h's IPv6 functions are these */
	assert_int_equal(lc_prefix6_parse("2001:2::1/48", &p), -EINVAL);
	assert_int_equal(lc_prefix6_parse_loose("2001:2::1/48", &p, &host), 0);
	assert_string_equal(lc_prefix6_ntoa(&p), "2001:2::/48");
	assert_int_equal(lc_ip6_parse("1::2:3:4:5:6:7:8", &host), -EINVAL);
}

/* Random addresses rich in zero groups: ours against glibc both ways,
 * except where glibc prints IPv4-compatible ::a.b.c.d (RFC 5952 5 keeps the
 * dotted form for IPv4-mapped only). */
static void
test_glibc_cross(void **st)
{
	uint32_t x = 12345;
	unsigned differ = 0;

	(void)st;
	for (unsigned n = 0; n < 200000; n++) {
		struct lc_ip6 a, b;
		char ours[LC_IP6_STRLEN], theirs[INET6_ADDRSTRLEN];
		bool compat;

		for (unsigned i = 0; i < 8; i++) {
			x = x * 1103515245u + 12345u;
			/* a group is 0 half the time, 1 or ffff sometimes */
			unsigned r = x >> 16, v = (x >> 8) & 3;

			v = v < 2 ? 0 : v == 2 ? (r & 1 ? 1 : 0xffff) : r;
			a.b[2 * i] = (uint8_t)(v >> 8);
			a.b[2 * i + 1] = (uint8_t)v;
		}
		if (n % 7 == 0) /* some IPv4-mapped */
			memcpy(a.b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
		lc_inet6_fmt(&a, ours);
		assert_non_null(
		    inet_ntop(AF_INET6, a.b, theirs, sizeof(theirs)));
		compat = memcmp(a.b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12) == 0;
		if (strcmp(ours, theirs) != 0) {
			if (!compat)
				fail_msg("%s vs glibc %s", ours, theirs);
			differ++;
		}
		/* ours parses back, and glibc reads ours the same */
		assert_int_equal(lc_inet6_parse(ours, 0, &b, NULL, NULL), 0);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(inet_pton(AF_INET6, ours, b.b), 1);
		assert_memory_equal(&a, &b, sizeof(a));
		/* and glibc's text (dotted quads included) parses to it */
		assert_int_equal(lc_inet6_parse(theirs, 0, &b, NULL, NULL), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	/* the known difference happened, and is what it should be */
	assert_true(differ > 0);
	{
		struct lc_ip6 a = {{0}};
		char buf[LC_IP6_STRLEN], g[INET6_ADDRSTRLEN];

		a.b[12] = 198;
		a.b[13] = 18;
		a.b[15] = 1;
		assert_string_equal(lc_inet6_str(&a, buf), "::c612:1");
		assert_string_equal(inet_ntop(AF_INET6, a.b, g, sizeof(g)),
		    "::198.18.0.1");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc5952),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_zone),
	    cmocka_unit_test(test_prefix),
	    cmocka_unit_test(test_glibc_cross),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
