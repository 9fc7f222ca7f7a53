/* libcommon/lc_addr.h: IPv4/IPv6 address and prefix types with strict parsing
 * and printing. */
#ifndef LC_ADDR_H
#define LC_ADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <arpa/inet.h>

struct lc_ip4 {
	uint32_t s_addr; /* network byte order */
};
struct lc_prefix4 {
	struct lc_ip4 addr; /* host bits always zero */
	uint8_t len;	    /* 0..32 */
};
struct lc_ip6 {
	uint8_t b[16];
};
struct lc_prefix6 {
	struct lc_ip6 addr; /* host bits always zero */
	uint8_t len;	    /* 0..128 */
};

#define LC_IP4_STRLEN	  16 /* "255.255.255.255" + NUL */
#define LC_PREFIX4_STRLEN 19 /* + "/32" */
#define LC_IP6_STRLEN	  46 /* INET6_ADDRSTRLEN */
#define LC_PREFIX6_STRLEN 50 /* + "/128" */

/*
 * Strict parsing. The whole string must be the value: no spaces, no sign,
 * no trailing characters, no partial parse. NULL and "" are rejected.
 * IPv4: exactly four decimal octets 0..255 separated by single dots; a
 * leading zero is rejected ("01.2.3.4", "1.2.3.00"; "0" alone is fine),
 * since inet_aton would read it as octal.
 * Prefix length: decimal, no leading zeros ("/024" and "/00" are rejected,
 * "/0" is fine), 0..32 (IPv4) or 0..128 (IPv6). The "/len" is required.
 * All return 0, or -EINVAL with *out (and *host) unchanged.
 */
int lc_ip4_parse(const char *s, struct lc_ip4 *out);
/* A route prefix: host bits set ("198.18.0.1/24") -> -EINVAL. */
int lc_prefix4_parse(const char *s, struct lc_prefix4 *out);
/*
 * An interface address "198.18.0.1/24": *out gets the masked prefix
 * (198.18.0.0/24), *host (if not NULL) the address as written.
 */
int lc_prefix4_parse_loose(const char *s, struct lc_prefix4 *out,
    struct lc_ip4 *host);
/* IPv6: lc_inet6_parse (RFC 4291 2.2 forms, no zone), without its message;
 * lc_inet6.h has the variants that say what is wrong. */
int lc_ip6_parse(const char *s, struct lc_ip6 *out);
/* host bits set -> -EINVAL. */
int lc_prefix6_parse(const char *s, struct lc_prefix6 *out);
/* As lc_prefix4_parse_loose for IPv6. */
int lc_prefix6_parse_loose(const char *s, struct lc_prefix6 *out,
    struct lc_ip6 *host);

/*
 * Printing into the caller's buffer (LC_IP4_STRLEN, LC_PREFIX4_STRLEN,
 * LC_IP6_STRLEN, LC_PREFIX6_STRLEN bytes); returns buf. The output parses
 * back to the same value (IPv6 in RFC 5952 form, lc_inet6_fmt).
 */
const char *lc_ip4_str(const struct lc_ip4 *, char *buf);
const char *lc_prefix4_str(const struct lc_prefix4 *, char *buf);
const char *lc_ip6_str(const struct lc_ip6 *, char *buf);
const char *lc_prefix6_str(const struct lc_prefix6 *, char *buf);

/*
 * For log lines: print into a thread-local ring of 8 buffers, so up to 8
 * results may be used in one printf. Never NULL.
 */
const char *lc_ip4_ntoa(struct lc_ip4);
const char *lc_prefix4_ntoa(const struct lc_prefix4 *);
const char *lc_ip6_ntoa(const struct lc_ip6 *);
const char *lc_prefix6_ntoa(const struct lc_prefix6 *);

/* Host-order netmask for len 0..32 (len > 32 is treated as 32). */
static inline uint32_t
lc_prefix4_mask(unsigned len)
{
	if (len == 0)
		return (0);
	if (len >= 32)
		return (0xffffffffU);
	return (0xffffffffU << (32 - len));
}

/* true if ip is inside p. */
static inline bool
lc_prefix4_contains(const struct lc_prefix4 *p, struct lc_ip4 ip)
{
	uint32_t m = lc_prefix4_mask(p->len);

	return ((ntohl(ip.s_addr) & m) == (ntohl(p->addr.s_addr) & m));
}

/* Builders from host-order values (tests, config). */
static inline struct lc_ip4
lc_ip4_from_host(uint32_t h)
{
	struct lc_ip4 ip = {htonl(h)};

	return (ip);
}
static inline uint32_t
lc_ip4_to_host(struct lc_ip4 ip)
{
	return (ntohl(ip.s_addr));
}

static inline bool
lc_ip4_eq(struct lc_ip4 a, struct lc_ip4 b)
{
	return (a.s_addr == b.s_addr);
}
static inline bool
lc_prefix4_eq(const struct lc_prefix4 *a, const struct lc_prefix4 *b)
{
	return (a->len == b->len && a->addr.s_addr == b->addr.s_addr);
}

#endif /* LC_ADDR_H */
