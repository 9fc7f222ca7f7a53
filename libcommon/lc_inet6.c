/* libcommon/lc_inet6.c: strict IPv6 address and prefix parsing with messages
 * that say what is wrong, and RFC 5952 printing (no inet_pton/inet_ntop:
 * glibc accepts forms we refuse and prints some corner cases otherwise). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lc_inet6.h"

static int
lc_inet6_hex(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* An unexpected character, quoted when printable. */
static int
lc_inet6_badchar(struct lc_err *e, char c)
{
	if (c > 0x20 && c < 0x7f)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "unexpected character '%c'", c));
	return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
	    "unexpected %s (byte 0x%02x)", c == ' ' ? "space" : "character",
	    (unsigned char)c));
}

/*
 * A dotted quad at s[0..n), strict as lc_ip4_parse: four decimal octets
 * 0..255 without leading zeros. 0 or -1.
 */
static int
lc_inet6_quad(const char *s, size_t n, uint8_t out[4])
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t start = i;
		unsigned v = 0;

		while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 4)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i == start || i - start > 3 || v > 255 ||
		    (s[start] == '0' && i - start > 1))
			return (-1);
		out[part] = (uint8_t)v;
		if (part < 3) {
			if (i >= n || s[i] != '.')
				return (-1);
			i++;
		}
	}
	return (i == n ? 0 : -1);
}

/* Parses exactly s[0..n) (no zone, no length). 0 or -EINVAL with e set. */
static int
lc_inet6_parse_n(const char *s, size_t n, struct lc_ip6 *out, struct lc_err *e)
{
	uint16_t g[8];
	int ng = 0, dc = -1; /* groups read; where "::" is (group index) */
	bool quad = false;
	size_t i = 0;

	if (n == 0)
		return (
		    lc_err_set(e, -EINVAL, LC_ERR_NOINDEX, "empty address"));
	if (s[0] == ':') {
		if (n < 2 || s[1] != ':')
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "starts with a single ':'"));
		dc = 0;
		i = 2;
	}
	while (i < n) {
		size_t start = i;
		unsigned v = 0;
		int h;

		while (i < n && (h = lc_inet6_hex(s[i])) >= 0 && i - start < 5)
			v = (v << 4) | (unsigned)h, i++;
		if (i < n && s[i] == '.') {
			/* the last 32 bits as a dotted quad */
			uint8_t q[4];
			size_t end = start;

			while (end < n &&
			    ((s[end] >= '0' && s[end] <= '9') || s[end] == '.'))
				end++;
			if (end < n)
				return (s[end] == ':' ?
					lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
					    "an embedded IPv4 address "
					    "must come last") :
					lc_inet6_badchar(e, s[end]));
			if (lc_inet6_quad(s + start, n - start, q) != 0)
				return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
				    "bad embedded IPv4 address '%.*s'",
				    (int)(n - start > 16 ? 16 : n - start),
				    s + start));
			if (ng > 6)
				return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
				    "too many groups (more than 8)"));
			g[ng++] = (uint16_t)(q[0] << 8 | q[1]);
			g[ng++] = (uint16_t)(q[2] << 8 | q[3]);
			quad = true;
			i = n;
			break;
		}
		if (i == start) {
			if (i < n && s[i] == ':')
				return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
				    "empty group (':::')"));
			return (lc_inet6_badchar(e, s[i]));
		}
		if (i - start > 4)
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "group '%.4s...' has more than 4 hex digits",
			    s + start));
		if (ng == 8)
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "too many groups (more than 8)"));
		g[ng++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i] != ':')
			return (lc_inet6_badchar(e, s[i]));
		if (++i == n)
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "ends with a single ':'"));
		if (s[i] == ':') {
			if (dc >= 0)
				return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
				    "more than one ::"));
			dc = ng;
			i++;
		}
	}
	if (dc < 0 && ng != 8)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    quad && ng == 2 ? "an IPv4 address, not IPv6" :
				      "too few groups (8 without ::)"));
	if (dc >= 0 && ng == 8)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    ":: with 8 groups (it stands for at least one)"));
	memset(out->b, 0, sizeof(out->b));
	for (int k = 0; k < ng; k++) {
		/* the groups after "::" go to the end */
		int at = dc >= 0 && k >= dc ? 8 - ng + k : k;

		out->b[2 * at] = (uint8_t)(g[k] >> 8);
		out->b[2 * at + 1] = (uint8_t)g[k];
	}
	return (0);
}

/* A zone: 1..LC_INET6_ZONE_MAX of [A-Za-z0-9._-], the first alphanumeric
 * (mgmt's interface names). */
static int
lc_inet6_zone_check(const char *z, struct lc_err *e)
{
	size_t n = strlen(z);

	if (n == 0)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "no interface name after '%%'"));
	if (n > LC_INET6_ZONE_MAX)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "interface name after '%%' longer than %d characters",
		    LC_INET6_ZONE_MAX));
	for (size_t i = 0; i < n; i++) {
		char c = z[i];
		bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z');

		if (!alnum && (i == 0 || (c != '-' && c != '_' && c != '.')))
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "bad interface name after '%%': %s",
			    c > 0x20 && c < 0x7f ? "unexpected character" :
						   "unexpected byte"));
	}
	return (0);
}

/* Link-local unicast fe80::/10 and link-local multicast ff02::/16: the
 * addresses a zone means something for. */
static bool
lc_inet6_zoned(const struct lc_ip6 *a)
{
	return (lc_ip6_is_linklocal(a) ||
	    (a->b[0] == 0xff && (a->b[1] & 0x0f) == 0x02));
}

int
lc_inet6_parse(const char *s, unsigned flags, struct lc_ip6 *out, char *zone,
    struct lc_err *e)
{
	const char *pct;
	struct lc_ip6 v;
	size_t n;
	int rv;

	if (s == NULL || out == NULL)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX, "no address"));
	if (flags & LC_INET6_F_ZONE_NEED)
		flags |= LC_INET6_F_ZONE;
	if ((flags & LC_INET6_F_ZONE) && zone == NULL)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "no room for the interface"));
	pct = strchr(s, '%');
	n = pct != NULL ? (size_t)(pct - s) : strlen(s);
	if ((rv = lc_inet6_parse_n(s, n, &v, e)) != 0)
		return (rv);
	if (pct != NULL) {
		if (!(flags & LC_INET6_F_ZONE))
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "an interface ('%%...') is not allowed here"));
		if ((rv = lc_inet6_zone_check(pct + 1, e)) != 0)
			return (rv);
		if (!lc_inet6_zoned(&v))
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "an interface ('%%%s') only goes with a link-local "
			    "address",
			    pct + 1));
	} else if ((flags & LC_INET6_F_ZONE_NEED) && lc_inet6_zoned(&v)) {
		char b[LC_IP6_STRLEN];

		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "a link-local address needs its interface (%s%%IFNAME)",
		    lc_inet6_str(&v, b)));
	}
	*out = v;
	if (zone != NULL) {
		if (pct != NULL)
			memcpy(zone, pct + 1, strlen(pct + 1) + 1);
		else
			zone[0] = '\0';
	}
	return (0);
}

/* Zeroes the bits after len; true if any was set. */
static bool
lc_inet6_mask(struct lc_ip6 *a, unsigned len)
{
	bool had = false;

	for (unsigned i = 0; i < 16; i++) {
		uint8_t m;

		if (len >= 8 * (i + 1))
			m = 0xff;
		else if (len <= 8 * i)
			m = 0;
		else
			m = (uint8_t)(0xff << (8 - (len - 8 * i)));
		had |= (a->b[i] & ~m) != 0;
		a->b[i] &= m;
	}
	return (had);
}

int
lc_inet6_prefix_parse(const char *s, unsigned flags, struct lc_prefix6 *out,
    struct lc_ip6 *host, struct lc_err *e)
{
	const char *slash, *l;
	struct lc_ip6 v, h;
	unsigned len = 0;
	size_t nl;
	int rv;

	if (s == NULL || out == NULL)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX, "no prefix"));
	if ((slash = strchr(s, '/')) == NULL)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "no prefix length (/0../128)"));
	if (memchr(s, '%', (size_t)(slash - s)) != NULL)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "a prefix takes no interface ('%%...')"));
	if ((rv = lc_inet6_parse_n(s, (size_t)(slash - s), &v, e)) != 0)
		return (rv);
	l = slash + 1;
	nl = strlen(l);
	if (nl == 0)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "no prefix length after '/' (0..128)"));
	for (size_t i = 0; i < nl; i++)
		if (l[i] < '0' || l[i] > '9' || i >= 3)
			return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
			    "bad prefix length '/%.4s%s' (0..128)", l,
			    nl > 4 ? "..." : ""));
		else
			len = len * 10 + (unsigned)(l[i] - '0');
	if (l[0] == '0' && nl > 1)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "prefix length /%s has a leading zero", l));
	if (len > 128)
		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "prefix length /%u is over 128", len));
	h = v;
	if (lc_inet6_mask(&v, len) && !(flags & LC_INET6_F_HOST)) {
		struct lc_prefix6 p = {.addr = v, .len = (uint8_t)len};
		char b[LC_PREFIX6_STRLEN];

		return (lc_err_set(e, -EINVAL, LC_ERR_NOINDEX,
		    "host bits set: did you mean %s?",
		    lc_inet6_prefix_str(&p, b)));
	}
	out->addr = v;
	out->len = (uint8_t)len;
	if (host != NULL)
		*host = h;
	return (0);
}

size_t
lc_inet6_fmt(const struct lc_ip6 *a, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	unsigned g[8], best = 8, bestn = 0;
	char *p = buf;

	for (unsigned i = 0; i < 8; i++)
		g[i] = (unsigned)a->b[2 * i] << 8 | a->b[2 * i + 1];
	if (lc_ip6_is_v4mapped(a))
		return (
		    (size_t)snprintf(buf, LC_IP6_STRLEN, "::ffff:%u.%u.%u.%u",
			a->b[12], a->b[13], a->b[14], a->b[15]));
	/* the longest run of zero groups, the first of equal ones */
	for (unsigned i = 0; i < 8;) {
		unsigned j = i;

		while (j < 8 && g[j] == 0)
			j++;
		if (j - i > bestn) {
			best = i;
			bestn = j - i;
		}
		i = j > i ? j : i + 1;
	}
	if (bestn < 2)
		best = 8;
	for (unsigned i = 0; i < 8; i++) {
		if (i == best) {
			*p++ = ':';
			*p++ = ':';
			i += bestn - 1;
			continue;
		}
		if (i > 0 && i != best + bestn)
			*p++ = ':';
		for (int sh = 12; sh >= 0; sh -= 4)
			if ((g[i] >> sh) != 0 || sh == 0)
				*p++ = hex[(g[i] >> sh) & 0xf];
	}
	*p = '\0';
	return ((size_t)(p - buf));
}

const char *
lc_inet6_str(const struct lc_ip6 *a, char *buf)
{
	(void)lc_inet6_fmt(a, buf);
	return (buf);
}

const char *
lc_inet6_prefix_str(const struct lc_prefix6 *p, char *buf)
{
	size_t n = lc_inet6_fmt(&p->addr, buf);

	snprintf(buf + n, LC_PREFIX6_STRLEN - n, "/%u",
	    p->len > 128 ? 128 : p->len);
	return (buf);
}
