/* libcommon/lc_inet6.h: IPv6 address and prefix text: strict parsing (RFC
 * 4291 2.2) with an error message naming what is wrong, and canonical
 * printing (RFC 5952). Not inet_pton/inet_ntop (lc_addr.h's lc_ip6_* call
 * these). */
#ifndef LC_INET6_H
#define LC_INET6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lc_addr.h"
#include "lc_err.h"

#define LC_INET6_ZONE_MAX 15 /* IFNAMSIZ - 1: the longest "%zone" name */

/* A "%zone" (an interface name) may follow a link-local address. */
#define LC_INET6_F_ZONE 0x1u
/* A link-local address must carry a zone (a next hop "fe80::1%eth0");
 * implies LC_INET6_F_ZONE. */
#define LC_INET6_F_ZONE_NEED 0x2u
/* A prefix may have host bits set (an interface address "2001:2::1/64"):
 * *out is masked, *host gets the address as written. */
#define LC_INET6_F_HOST 0x4u

/*
 * Parses the whole string s as an IPv6 address: eight groups of 1..4 hex
 * digits (either case) separated by ':', one "::" at most standing for one
 * or more zero groups, the last 32 bits optionally as a dotted quad (strict
 * as lc_ip4_parse: no leading zeros). With LC_INET6_F_ZONE, a link-local
 * address (fe80::/10, ff02::/16) may end in "%name" (1..15 of
 * [A-Za-z0-9._-], starting with a letter or digit), copied to zone (NUL
 * terminated, "" when none; zone may be NULL without the flag).
 * Returns 0, or -EINVAL with e's message saying what is wrong ("more than
 * one ::") and *out and zone unchanged. The message does not repeat s: the
 * caller puts it in front (lc_err_prefix(e, "invalid next-hop '%s'", s)).
 */
int lc_inet6_parse(const char *s, unsigned flags, struct lc_ip6 *out,
    char *zone, struct lc_err *e);

/*
 * Parses "addr/len" (len decimal 0..128, no leading zero, no zone). Host
 * bits set are refused ("host bits set: did you mean 2001:2::/48?") unless
 * LC_INET6_F_HOST. host (may be NULL) gets the address as written.
 * 0, or -EINVAL with the message in e and nothing written.
 */
int lc_inet6_prefix_parse(const char *s, unsigned flags, struct lc_prefix6 *out,
    struct lc_ip6 *host, struct lc_err *e);

/*
 * Prints a in RFC 5952 form: lower case, no leading zeros, the longest run
 * of two or more zero groups as "::" (the first of equal runs), a lone zero
 * group as "0", an IPv4-mapped address (::ffff:0:0/96) as ::ffff:a.b.c.d.
 * buf has LC_IP6_STRLEN bytes; returns the length written (without NUL).
 */
size_t lc_inet6_fmt(const struct lc_ip6 *a, char *buf);
/* lc_inet6_fmt, returning buf. */
const char *lc_inet6_str(const struct lc_ip6 *a, char *buf);
/* "addr/len" into LC_PREFIX6_STRLEN bytes; returns buf. */
const char *lc_inet6_prefix_str(const struct lc_prefix6 *p, char *buf);

/* fe80::/10 */
static inline bool
lc_ip6_is_linklocal(const struct lc_ip6 *a)
{
	return (a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80);
}

/* ff00::/8 */
static inline bool
lc_ip6_is_multicast(const struct lc_ip6 *a)
{
	return (a->b[0] == 0xff);
}

/* ::ffff:0:0/96 */
static inline bool
lc_ip6_is_v4mapped(const struct lc_ip6 *a)
{
	static const uint8_t pfx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff,
	    0xff};

	for (unsigned i = 0; i < 12; i++)
		if (a->b[i] != pfx[i])
			return (false);
	return (true);
}

#endif /* LC_INET6_H */
