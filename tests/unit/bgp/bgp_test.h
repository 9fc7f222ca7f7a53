/* tests/unit/bgp/bgp_test.h: helpers shared by the bgp message layer's unit tests: sessions, attributes and UPDATEs made byte by byte, and a parse that returns the RFC 7606 outcome. */
#ifndef BGP_TEST_H
#define BGP_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bgp/bgp_msg.h"

/* Allocations counted (tests/module.mk links with -Wl,--wrap=malloc,calloc). */
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__wrap_malloc(size_t);
void *__wrap_calloc(size_t, size_t);
static unsigned long allocs;

void *
__wrap_malloc(size_t n)
{
	allocs++;
	return (__real_malloc(n));
}

void *
__wrap_calloc(size_t a, size_t b)
{
	allocs++;
	return (__real_calloc(a, b));
}

#define V4V6 (BGP_AF_BIT(BGP_AF_IPV4) | BGP_AF_BIT(BGP_AF_IPV6))
/* iBGP, 4-octet; iBGP, 2-octet; eBGP from AS 65002, 4-octet */
static const struct bgp_codec C4 = {true, false, V4V6, 0};
static const struct bgp_codec C2 = {false, false, V4V6, 0};
static const struct bgp_codec CE = {true, true, V4V6, 65002};

#define WK   BGP_ATTR_F_TRANSITIVE
#define OPT  BGP_ATTR_F_OPTIONAL
#define OPTT (BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE)

/* Appends one attribute at b[o]; returns the new offset. */
static inline size_t
attr(uint8_t *b, size_t o, uint8_t flags, uint8_t type, const void *v,
    size_t len)
{
	b[o++] = flags;
	b[o++] = type;
	if (flags & BGP_ATTR_F_EXTLEN) {
		bgp_put16(b + o, (uint16_t)len);
		o += 2;
	} else
		b[o++] = (uint8_t)len;
	if (len > 0)
		memcpy(b + o, v, len);
	return (o + len);
}

/* ORIGIN IGP, AS_PATH 65002 65003 (4 or 2 octets), NEXT_HOP 198.18.1.2 */
static inline size_t
std_attrs(uint8_t *b, bool as4)
{
	static const uint8_t p4[] = {2, 2, 0, 0, 0xfd, 0xea, 0, 0, 0xfd, 0xeb};
	static const uint8_t p2[] = {2, 2, 0xfd, 0xea, 0xfd, 0xeb};
	static const uint8_t nh[] = {198, 18, 1, 2};
	uint8_t origin = 0;
	size_t o = 0;

	o = attr(b, o, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = as4 ? attr(b, o, WK, BGP_ATTR_AS_PATH, p4, sizeof(p4)) :
		  attr(b, o, WK, BGP_ATTR_AS_PATH, p2, sizeof(p2));
	return (attr(b, o, WK, BGP_ATTR_NEXT_HOP, nh, 4));
}

/* An UPDATE of the three fields; returns its length. */
static inline size_t
upd_make(uint8_t *m, const uint8_t *wd, size_t wl, const uint8_t *at, size_t al,
    const uint8_t *nlri, size_t nl)
{
	size_t o = BGP_HDR_LEN;

	memset(m, 0xff, 16);
	m[18] = BGP_UPDATE;
	bgp_put16(m + o, (uint16_t)wl);
	if (wl > 0)
		memcpy(m + o + 2, wd, wl);
	o += 2 + wl;
	bgp_put16(m + o, (uint16_t)al);
	if (al > 0)
		memcpy(m + o + 2, at, al);
	o += 2 + al;
	if (nl > 0)
		memcpy(m + o, nlri, nl);
	o += nl;
	bgp_put16(m + 16, (uint16_t)o);
	return (o);
}

static const uint8_t NLRI1[] = {24, 198, 18, 10};

static uint8_t t_msg[2 * BGP_MAX_LEN], t_scratch[BGP_ASPATH_SCRATCH];
static struct bgp_update t_u;
static struct bgp_err t_err;

/*
 * Parses an UPDATE with attributes at[0..al) and the NLRI field nlri as c
 * sees it: the outcome (BGP_OUT_RESET when parse refused it), the update in
 * t_u, the error in t_err.
 */
static inline enum bgp_outcome
upd_parse(const struct bgp_codec *c, const uint8_t *at, size_t al,
    const uint8_t *nlri, size_t nl)
{
	size_t len = upd_make(t_msg, NULL, 0, at, al, nlri, nl);
	uint8_t type;

	memset(&t_err, 0, sizeof(t_err));
	assert_int_equal(bgp_msg_check_hdr(t_msg, len, &type, &t_err),
	    (int)len);
	if (bgp_update_parse(t_msg, len, c, t_scratch, &t_u, &t_err) != 0) {
		assert_int_equal(t_err.code, BGP_ERR_UPDATE);
		return (BGP_OUT_RESET);
	}
	return (t_u.a.outcome);
}

/* The standard attributes plus one more, with one prefix announced. */
static inline enum bgp_outcome
upd_parse_with(const struct bgp_codec *c, uint8_t flags, uint8_t type,
    const void *v, size_t len)
{
	uint8_t at[BGP_MAX_LEN];
	size_t o = std_attrs(at, c->as4);

	o = attr(at, o, flags, type, v, len);
	return (upd_parse(c, at, o, NLRI1, sizeof(NLRI1)));
}

#endif /* BGP_TEST_H */
