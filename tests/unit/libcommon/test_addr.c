/* tests/unit/libcommon/test_addr.c: strict IPv4/IPv6 address and prefix
 * parsing, rejection of bad input, printing round-trips. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "libcommon/lc_addr.h"

static const struct lc_ip4 SENT4 = {0xdeadbeef};

static void
test_ip4_good(void **state)
{
	static const struct {
		const char *s;
		uint32_t v;
	} ok[] = {
	    {"198.18.0.1", 0xc6120001},
	    {"0.0.0.0", 0},
	    {"255.255.255.255", 0xffffffff},
	    {"198.19.255.0", 0xc613ff00},
	    {"10.0.100.9", 0x0a006409},
	};
	struct lc_ip4 ip;
	char buf[LC_IP4_STRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(lc_ip4_parse(ok[i].s, &ip), 0);
		assert_int_equal(ntohl(ip.s_addr), ok[i].v);
		assert_string_equal(lc_ip4_str(&ip, buf), ok[i].s);
		assert_string_equal(lc_ip4_ntoa(ip), ok[i].s);
	}
}

static void
test_ip4_bad(void **state)
{
	static const char *const bad[] = {
	    "300.1.1.1",
	    " 198.18.0.1",
	    "198.18.0.1 ",
	    "198.18.0",
	    "198.18.0.1.1",
	    "01.2.3.4",
	    "1.2.3.04",
	    "1.2.3.00",
	    "1..2.3",
	    "",
	    ".1.2.3",
	    "1.2.3.",
	    "1.2.3.4.",
	    "256.0.0.0",
	    "1.2.3.4/32",
	    "1.2.3.-1",
	    "+1.2.3.4",
	    "0x1.2.3.4",
	    "1.2.3.4\n",
	    "1 .2.3.4",
	    "1.2.3.1000",
	    "4294967295",
	    "198.18.0.1%eth0",
	    "a.b.c.d",
	    "1.2.3.4444",
	    "1.2.3.0004",
	};
	struct lc_ip4 ip;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ip = SENT4;
		if (lc_ip4_parse(bad[i], &ip) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(ip.s_addr, SENT4.s_addr); /* unchanged */
	}
	assert_int_equal(lc_ip4_parse(NULL, &ip), -EINVAL);
	assert_int_equal(lc_ip4_parse("1.2.3.4", NULL), -EINVAL);
	/* embedded NUL: the C string ends early, so "1.2.3" is what is seen */
	assert_int_equal(lc_ip4_parse("1.2.3\0.4", &ip), -EINVAL);
}

static void
test_prefix4_good(void **state)
{
	static const struct {
		const char *s;
		uint32_t v;
		unsigned len;
	} ok[] = {
	    {"198.18.0.0/15", 0xc6120000, 15},
	    {"0.0.0.0/0", 0, 0},
	    {"198.18.0.1/32", 0xc6120001, 32},
	    {"198.18.128.0/17", 0xc6128000, 17},
	    {"198.18.0.0/24", 0xc6120000, 24},
	    {"128.0.0.0/1", 0x80000000, 1},
	    {"198.18.0.254/31", 0xc61200fe, 31},
	};
	struct lc_prefix4 p;
	char buf[LC_PREFIX4_STRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(lc_prefix4_parse(ok[i].s, &p), 0);
		assert_int_equal(ntohl(p.addr.s_addr), ok[i].v);
		assert_int_equal(p.len, ok[i].len);
		assert_string_equal(lc_prefix4_str(&p, buf), ok[i].s);
		assert_string_equal(lc_prefix4_ntoa(&p), ok[i].s);
	}
	/* longest possible string fits the buffer */
	assert_int_equal(lc_prefix4_parse("255.255.255.255/32", &p), 0);
	assert_int_equal(strlen(lc_prefix4_str(&p, buf)) + 1,
	    LC_PREFIX4_STRLEN);
}

static void
test_prefix4_bad(void **state)
{
	static const char *const bad[] = {
	    "198.18.0.1/33",
	    "198.18.0.0/33",
	    "198.18.0.0/24x",
	    "198.18.0.0/",
	    "/24",
	    "198.18.0.0/024",
	    "198.18.0.0/00",
	    "0.0.0.0/00",
	    "198.18.0.0",
	    "198.18.0/24",
	    "300.1.1.0/24",
	    " 198.18.0.0/24",
	    "198.18.0.0/24 ",
	    "198.18.0.0 /24",
	    "198.18.0.0/ 24",
	    "198.18.0.0/-1",
	    "198.18.0.0/+24",
	    "198.18.0.0/24/24",
	    "198.18.0.0//24",
	    "198.18.0.0/1000",
	    "198.18.0.0/4294967320",
	    "01.2.3.0/24",
	    "",
	    /* host bits set: a route prefix must be canonical */
	    "198.18.0.1/24",
	    "198.18.0.1/31",
	    "198.18.0.0/15x",
	    "198.19.0.0/15",
	    "0.0.0.1/0",
	    "255.255.255.255/31",
	};
	struct lc_prefix4 p, sent = {SENT4, 7};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = sent;
		if (lc_prefix4_parse(bad[i], &p) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_memory_equal(&p, &sent, sizeof(p));
	}
	assert_int_equal(lc_prefix4_parse(NULL, &p), -EINVAL);
	assert_int_equal(lc_prefix4_parse("198.18.0.0/24", NULL), -EINVAL);
}

static void
test_prefix4_loose(void **state)
{
	struct lc_prefix4 p, sent = {SENT4, 7};
	struct lc_ip4 host = SENT4;

	(void)state;
	assert_int_equal(lc_prefix4_parse_loose("198.18.0.1/24", &p, &host), 0);
	assert_string_equal(lc_prefix4_ntoa(&p), "198.18.0.0/24");
	assert_string_equal(lc_ip4_ntoa(host), "198.18.0.1");
	assert_int_equal(lc_prefix4_parse_loose("198.18.3.7/0", &p, NULL), 0);
	assert_string_equal(lc_prefix4_ntoa(&p), "0.0.0.0/0");
	/* still strict about syntax */
	p = sent;
	host = SENT4;
	assert_int_equal(lc_prefix4_parse_loose("198.18.0.1/33", &p, &host),
	    -EINVAL);
	assert_int_equal(lc_prefix4_parse_loose("198.18.0.1", &p, &host),
	    -EINVAL);
	assert_int_equal(lc_prefix4_parse_loose("198.18.0.1/24x", &p, &host),
	    -EINVAL);
	assert_int_equal(lc_prefix4_parse_loose(NULL, &p, &host), -EINVAL);
	assert_memory_equal(&p, &sent, sizeof(p));
	assert_int_equal(host.s_addr, SENT4.s_addr);
}

static void
test_mask_contains(void **state)
{
	struct lc_prefix4 p;
	struct lc_ip4 ip;

	(void)state;
	assert_int_equal(lc_prefix4_mask(0), 0);
	assert_int_equal(lc_prefix4_mask(1), 0x80000000);
	assert_int_equal(lc_prefix4_mask(15), 0xfffe0000);
	assert_int_equal(lc_prefix4_mask(31), 0xfffffffe);
	assert_int_equal(lc_prefix4_mask(32), 0xffffffff);
	assert_int_equal(lc_prefix4_mask(40), 0xffffffff);

	assert_int_equal(lc_prefix4_parse("198.18.0.0/15", &p), 0);
	assert_int_equal(lc_ip4_parse("198.19.255.255", &ip), 0);
	assert_true(lc_prefix4_contains(&p, ip));
	assert_int_equal(lc_ip4_parse("198.20.0.0", &ip), 0);
	assert_false(lc_prefix4_contains(&p, ip));
	assert_int_equal(lc_ip4_parse("198.17.255.255", &ip), 0);
	assert_false(lc_prefix4_contains(&p, ip));
	assert_int_equal(lc_prefix4_parse("0.0.0.0/0", &p), 0);
	assert_true(lc_prefix4_contains(&p, ip));
	assert_int_equal(lc_prefix4_parse("198.17.255.255/32", &p), 0);
	assert_true(lc_prefix4_contains(&p, ip));
	assert_false(lc_prefix4_contains(&p, lc_ip4_from_host(0xc611fffe)));
}

static void
test_ip6(void **state)
{
	static const char *const good[] = {
	    "2001:2::1",
	    "::",
	    "::1",
	    "2001:2:0:1::",
	    "fe80::1:2:3:4",
	    "::ffff:198.18.0.1",
	    "2001:db8:1:2:3:4:5:6",
	};
	static const char *const bad[] = {
	    "",
	    " ::1",
	    "::1 ",
	    "2001:2::1%eth0",
	    "2001:2:::1",
	    "2001:2::1::2",
	    "12345::",
	    "::ffff:198.18.0.01",
	    "::ffff:300.1.1.1",
	    "g::",
	    "2001:2::1/64",
	    "1:2:3:4:5:6:7:8:9",
	    "0000000000000000000000000000000000000000000000001::",
	};
	struct lc_ip6 a, sent;
	char buf[LC_IP6_STRLEN];

	(void)state;
	memset(&sent, 0xab, sizeof(sent));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct lc_ip6 b;

		assert_int_equal(lc_ip6_parse(good[i], &a), 0);
		assert_int_equal(lc_ip6_parse(lc_ip6_str(&a, buf), &b), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	assert_int_equal(lc_ip6_parse("2001:0002:0000::0001", &a), 0);
	assert_string_equal(lc_ip6_str(&a, buf), "2001:2::1");
	assert_string_equal(lc_ip6_ntoa(&a), "2001:2::1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = sent;
		if (lc_ip6_parse(bad[i], &a) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_memory_equal(&a, &sent, sizeof(a));
	}
	assert_int_equal(lc_ip6_parse(NULL, &a), -EINVAL);
}

static void
test_prefix6(void **state)
{
	static const char *const good[] = {
	    "2001:2::/48",
	    "::/0",
	    "2001:2::1/128",
	    "2001:2:0:8000::/49",
	    "fe80::/10",
	    "2001:2::/127",
	};
	static const char *const bad[] = {
	    "2001:2::/129",
	    "2001:2::/048",
	    "2001:2::/",
	    "/48",
	    "2001:2::",
	    "2001:2::1/64",
	    "2001:2::/48x",
	    " 2001:2::/48",
	    "2001:2::/48 ",
	    "2001:2::/00",
	    "fe80::/8",
	    "2001:2::1/127",
	    "",
	    "2001:2:0:8000::/48",
	    "::1/0",
	};
	struct lc_prefix6 p, q, sent;
	struct lc_ip6 host;
	char buf[LC_PREFIX6_STRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(lc_prefix6_parse(good[i], &p), 0);
		assert_string_equal(lc_prefix6_str(&p, buf), good[i]);
		assert_int_equal(lc_prefix6_parse(buf, &q), 0);
		assert_memory_equal(&p, &q, sizeof(p));
	}
	memset(&sent, 0xab, sizeof(sent));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = sent;
		if (lc_prefix6_parse(bad[i], &p) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_memory_equal(&p, &sent, sizeof(p));
	}
	assert_int_equal(lc_prefix6_parse(NULL, &p), -EINVAL);

	assert_int_equal(lc_prefix6_parse_loose("2001:2::1/64", &p, &host), 0);
	assert_string_equal(lc_prefix6_ntoa(&p), "2001:2::/64");
	assert_string_equal(lc_ip6_ntoa(&host), "2001:2::1");
	assert_int_equal(lc_prefix6_parse("2001:2:ffff:ffff::/63", &p),
	    -EINVAL);
	assert_int_equal(lc_prefix6_parse_loose("2001:2:ffff:ffff::/63", &p,
			     NULL),
	    0);
	assert_string_equal(lc_prefix6_ntoa(&p), "2001:2:ffff:fffe::/63");
	/* the longest form fits */
	assert_int_equal(
	    lc_prefix6_parse(
		"ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128", &p),
	    0);
	assert_true(strlen(lc_prefix6_str(&p, buf)) < LC_PREFIX6_STRLEN);
}

/* Every /len of a random-ish address prints and parses back to itself. */
static void
test_roundtrip_all_lengths(void **state)
{
	char buf[LC_PREFIX4_STRLEN];
	uint32_t x = 0xc6123457;

	(void)state;
	for (unsigned n = 0; n < 2000; n++) {
		struct lc_prefix4 p, q;
		struct lc_ip4 ip, ip2;

		x = x * 1103515245u + 12345u;
		p.len = (uint8_t)(n % 33);
		p.addr.s_addr = htonl(x & lc_prefix4_mask(p.len));
		assert_int_equal(lc_prefix4_parse(lc_prefix4_str(&p, buf), &q),
		    0);
		assert_true(lc_prefix4_eq(&p, &q));
		ip.s_addr = htonl(x);
		assert_int_equal(lc_ip4_parse(lc_ip4_ntoa(ip), &ip2), 0);
		assert_true(lc_ip4_eq(ip, ip2));
	}
}

/* The ntoa ring: 8 results usable at once. */
static void
test_ntoa_ring(void **state)
{
	const char *s[8];

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		s[i] = lc_ip4_ntoa(lc_ip4_from_host(0xc6120000 + i));
	for (unsigned i = 0; i < 8; i++) {
		char want[LC_IP4_STRLEN];

		snprintf(want, sizeof(want), "198.18.0.%u", i);
		assert_string_equal(s[i], want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ip4_good),
	    cmocka_unit_test(test_ip4_bad),
	    cmocka_unit_test(test_prefix4_good),
	    cmocka_unit_test(test_prefix4_bad),
	    cmocka_unit_test(test_prefix4_loose),
	    cmocka_unit_test(test_mask_contains),
	    cmocka_unit_test(test_ip6),
	    cmocka_unit_test(test_prefix6),
	    cmocka_unit_test(test_roundtrip_all_lengths),
	    cmocka_unit_test(test_ntoa_ring),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
