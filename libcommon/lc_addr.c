/* libcommon/lc_addr.c: strict IPv4/IPv6 address and prefix parsing (whole
 * string or nothing) and printing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lc_addr.h"
#include "lc_inet6.h"

/*
 * Parses a decimal number of 1..maxdigits digits without a leading zero
 * (except "0" itself) from s[0..n). Returns the value or -1.
 */
static long
lc_addr_dec(const char *s, size_t n, size_t maxdigits, long max)
{
	long v = 0;

	if (n == 0 || n > maxdigits)
		return (-1);
	if (s[0] == '0' && n > 1)
		return (-1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		v = v * 10 + (s[i] - '0');
	}
	return (v <= max ? v : -1);
}

/* Parses exactly s[0..n) as a dotted quad into host order. 0 or -EINVAL. */
static int
lc_ip4_parse_n(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0;
	size_t i = 0, start;
	long oct;

	for (int part = 0; part < 4; part++) {
		start = i;
		while (i < n && s[i] != '.')
			i++;
		if ((oct = lc_addr_dec(s + start, i - start, 3, 255)) < 0)
			return (-EINVAL);
		v = (v << 8) | (uint32_t)oct;
		if (part < 3) {
			if (i >= n) /* too few parts */
				return (-EINVAL);
			i++; /* the dot */
		}
	}
	if (i != n) /* a fifth part or trailing dot */
		return (-EINVAL);
	*out = v;
	return (0);
}

int
lc_ip4_parse(const char *s, struct lc_ip4 *out)
{
	uint32_t v;

	if (s == NULL || out == NULL)
		return (-EINVAL);
	if (lc_ip4_parse_n(s, strlen(s), &v) != 0)
		return (-EINVAL);
	out->s_addr = htonl(v);
	return (0);
}

/* Splits "addr/len": address part length and the prefix length, or -EINVAL. */
static int
lc_prefix_split(const char *s, unsigned maxlen, size_t *alen, unsigned *plen)
{
	const char *slash;
	long v;

	if (s == NULL || (slash = strchr(s, '/')) == NULL)
		return (-EINVAL);
	if ((v = lc_addr_dec(slash + 1, strlen(slash + 1), 3, maxlen)) < 0)
		return (-EINVAL);
	*alen = (size_t)(slash - s);
	*plen = (unsigned)v;
	return (0);
}

static int
lc_prefix4_parse_common(const char *s, struct lc_prefix4 *out,
    struct lc_ip4 *host, int loose)
{
	size_t alen;
	unsigned len;
	uint32_t v;

	if (out == NULL || lc_prefix_split(s, 32, &alen, &len) != 0 ||
	    lc_ip4_parse_n(s, alen, &v) != 0)
		return (-EINVAL);
	if (!loose && (v & ~lc_prefix4_mask(len)) != 0)
		return (-EINVAL);
	if (host != NULL)
		host->s_addr = htonl(v);
	out->addr.s_addr = htonl(v & lc_prefix4_mask(len));
	out->len = (uint8_t)len;
	return (0);
}

int
lc_prefix4_parse(const char *s, struct lc_prefix4 *out)
{
	return (lc_prefix4_parse_common(s, out, NULL, 0));
}

int
lc_prefix4_parse_loose(const char *s, struct lc_prefix4 *out,
    struct lc_ip4 *host)
{
	return (lc_prefix4_parse_common(s, out, host, 1));
}

/* IPv6: lc_inet6.c's strict parser, without the message. */
int
lc_ip6_parse(const char *s, struct lc_ip6 *out)
{
	return (lc_inet6_parse(s, 0, out, NULL, NULL));
}

int
lc_prefix6_parse(const char *s, struct lc_prefix6 *out)
{
	return (lc_inet6_prefix_parse(s, 0, out, NULL, NULL));
}

int
lc_prefix6_parse_loose(const char *s, struct lc_prefix6 *out,
    struct lc_ip6 *host)
{
	return (lc_inet6_prefix_parse(s, LC_INET6_F_HOST, out, host, NULL));
}

const char *
lc_ip4_str(const struct lc_ip4 *ip, char *buf)
{
	uint32_t v = ntohl(ip->s_addr);

	snprintf(buf, LC_IP4_STRLEN, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff,
	    (v >> 8) & 0xff, v & 0xff);
	return (buf);
}

const char *
lc_prefix4_str(const struct lc_prefix4 *p, char *buf)
{
	uint32_t v = ntohl(p->addr.s_addr);
	unsigned len = p->len > 32 ? 32 : p->len; /* invariant: 0..32 */

	snprintf(buf, LC_PREFIX4_STRLEN, "%u.%u.%u.%u/%u", v >> 24,
	    (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff, len);
	return (buf);
}

const char *
lc_ip6_str(const struct lc_ip6 *ip, char *buf)
{
	return (lc_inet6_str(ip, buf));
}

const char *
lc_prefix6_str(const struct lc_prefix6 *p, char *buf)
{
	return (lc_inet6_prefix_str(p, buf));
}

#define LC_NTOA_BUFS 8
static _Thread_local char lc_ntoa_bufs[LC_NTOA_BUFS][LC_PREFIX6_STRLEN];
static _Thread_local unsigned lc_ntoa_next;

static char *
lc_ntoa_buf(void)
{
	return (lc_ntoa_bufs[lc_ntoa_next++ % LC_NTOA_BUFS]);
}

const char *
lc_ip4_ntoa(struct lc_ip4 ip)
{
	return (lc_ip4_str(&ip, lc_ntoa_buf()));
}

const char *
lc_prefix4_ntoa(const struct lc_prefix4 *p)
{
	return (lc_prefix4_str(p, lc_ntoa_buf()));
}

const char *
lc_ip6_ntoa(const struct lc_ip6 *ip)
{
	return (lc_ip6_str(ip, lc_ntoa_buf()));
}

const char *
lc_prefix6_ntoa(const struct lc_prefix6 *p)
{
	return (lc_prefix6_str(p, lc_ntoa_buf()));
}
