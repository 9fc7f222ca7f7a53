/* tests/lib/bgpfeed.c: the feeder's routes: attribute sets, their assignment to the standard prefix set, and the UPDATEs pre-encoded with tern's builder. */
#include "tests/lib/bgpfeed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* How the attribute block is parsed before the builder re-encodes it for
 * the session: 4-octet ASes, no eBGP rules (the block is ours). */
static const struct bgp_codec feed_parse_codec = {true, false,
    BGP_AF_BIT(BGP_AF_IPV4), 0};

/* An AS of a path: most from the 2-octet range below the private ones,
 * some 4-octet (as on the Internet), never AS_TRANS, 0 or the 64512+ range
 * the bench's routers and feeders use. */
static uint32_t
feed_asn(struct tt_rng *r)
{
	uint32_t as;

	if (tt_rng_below(r, 10) < 7)
		as = 1000 + (uint32_t)tt_rng_below(r, 59000);
	else
		as = 131072 + (uint32_t)tt_rng_below(r, 270000);
	return (as == BGP_AS_TRANS ? as + 1 : as);
}

int
tt_feed_init(struct tt_feed *f, const struct tt_feed_conf *c)
{
	struct tt_rng r;
	int rv;

	memset(f, 0, sizeof(*f));
	if (c->n == 0 || c->nsets == 0 || c->nsets > (1u << 24) ||
	    c->peers == 0 || c->peers > TT_FEED_PEERS_MAX ||
	    c->index >= c->peers || c->as == 0)
		return (-EINVAL);
	f->c = *c;
	if ((rv = tt_prefixset_gen(&f->ps, c->n, c->seed, 0)) != 0)
		return (rv);
	f->sets = calloc(c->nsets, sizeof(*f->sets));
	f->set_of = calloc(f->ps.n, sizeof(*f->set_of));
	f->order = calloc(f->ps.n, sizeof(*f->order));
	f->set_first = calloc((size_t)c->nsets + 1, sizeof(*f->set_first));
	if (f->sets == NULL || f->set_of == NULL || f->order == NULL ||
	    f->set_first == NULL) {
		tt_feed_fini(f);
		return (-ENOMEM);
	}
	tt_rng_seed(&r, c->attr_seed);
	for (unsigned s = 0; s < c->nsets; s++) {
		struct tt_feed_set *t = &f->sets[s];
		uint64_t o = tt_rng_below(&r, 100);

		for (unsigned i = 0; i < TT_FEED_PATH_MAX; i++)
			t->as[i] = feed_asn(&r);
		t->lenr = (uint8_t)tt_rng_below(&r, 256);
		/* origin: 85% IGP, 3% EGP, 12% incomplete */
		t->origin = o < 85 ? BGP_ORIGIN_IGP :
		    o < 88	   ? BGP_ORIGIN_EGP :
				     BGP_ORIGIN_INCOMPLETE;
		t->has_med = tt_rng_below(&r, 100) < 30;
		t->med = t->has_med ? (uint32_t)tt_rng_below(&r, 1000) : 0;
		/* 60% with 1-4 communities of the path's first AS */
		if (tt_rng_below(&r, 100) < 60)
			t->ncomm = (uint8_t)(1 + tt_rng_below(&r, 4));
		for (unsigned i = 0; i < t->ncomm; i++)
			t->comm[i] = (t->as[0] & 0xffff) << 16 |
			    (uint32_t)tt_rng_below(&r, 1000);
	}
	tt_rng_seed(&r, c->attr_seed ^ 0x61737369676e6564ull);
	for (size_t i = 0; i < f->ps.n; i++) {
		double u = (double)(tt_rng_next(&r) >> 11) * 0x1.0p-53;
		uint32_t s = (uint32_t)((double)c->nsets * u * u);

		if (s >= c->nsets)
			s = c->nsets - 1;
		f->set_of[i] = s;
		f->sets[s].prefixes++;
	}
	/* counting sort: a set's prefixes in the set's order */
	for (unsigned s = 0; s < c->nsets; s++)
		f->set_first[s + 1] = f->set_first[s] + f->sets[s].prefixes;
	{
		uint32_t *fill = calloc(c->nsets, sizeof(*fill));

		if (fill == NULL) {
			tt_feed_fini(f);
			return (-ENOMEM);
		}
		for (size_t i = 0; i < f->ps.n; i++) {
			uint32_t s = f->set_of[i];

			f->order[f->set_first[s] + fill[s]++] = (uint32_t)i;
		}
		free(fill);
	}
	return (0);
}

void
tt_feed_fini(struct tt_feed *f)
{
	tt_prefixset_free(&f->ps);
	free(f->sets);
	free(f->set_of);
	free(f->order);
	free(f->set_first);
	free(f->msgs);
	memset(f, 0, sizeof(*f));
}

/* The path's ASes after the feeder's own (eBGP) without the padding. */
static unsigned
feed_base_len(const struct tt_feed *f, unsigned s)
{
	unsigned lo = f->c.ebgp ? 1 : 2;
	unsigned hi = TT_FEED_PATH_MAX + 1 - f->c.peers - (f->c.ebgp ? 1 : 0);

	return (lo + f->sets[s].lenr % (hi - lo + 1));
}

unsigned
tt_feed_path_len(const struct tt_feed *f, unsigned s, unsigned k)
{
	return (
	    (f->c.ebgp ? 1 : 0) + feed_base_len(f, s) + (s + k) % f->c.peers);
}

unsigned
tt_feed_best(const struct tt_feed *f, unsigned s)
{
	return ((f->c.peers - s % f->c.peers) % f->c.peers);
}

/* Appends one attribute (length < 256) at b[o]; the new offset. */
static size_t
feed_attr(uint8_t *b, size_t o, uint8_t flags, uint8_t type, const void *v,
    size_t len)
{
	b[o++] = flags;
	b[o++] = type;
	b[o++] = (uint8_t)len;
	if (len > 0)
		memcpy(b + o, v, len);
	return (o + len);
}

int
tt_feed_attrs(const struct tt_feed *f, unsigned s, uint32_t nh, uint8_t *buf,
    size_t cap, struct bgp_attrs *a)
{
	const struct tt_feed_set *t;
	uint8_t path[2 + 4 * (TT_FEED_PATH_MAX + 1)], v[16];
	unsigned n = 0, len;
	struct bgp_err err;
	size_t o = 0;

	if (s >= f->c.nsets || cap < 256)
		return (-EINVAL);
	t = &f->sets[s];
	len = tt_feed_path_len(f, s, f->c.index);
	path[0] = BGP_AS_SEQUENCE;
	path[1] = (uint8_t)len;
	if (f->c.ebgp)
		bgp_put32(path + 2 + 4 * n++, f->c.as);
	/* the base, then the padding (its length distinct per feeder) */
	for (unsigned i = 0; n < len; i++)
		bgp_put32(path + 2 + 4 * n++, t->as[i]);
	o = feed_attr(buf, o, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_ORIGIN,
	    &t->origin, 1);
	o = feed_attr(buf, o, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_AS_PATH, path,
	    2 + 4 * (size_t)len);
	bgp_put32(v, nh);
	o = feed_attr(buf, o, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_NEXT_HOP, v, 4);
	if (t->has_med) {
		bgp_put32(v, t->med);
		o = feed_attr(buf, o, BGP_ATTR_F_OPTIONAL, BGP_ATTR_MED, v, 4);
	}
	if (!f->c.ebgp) {
		bgp_put32(v, 100);
		o = feed_attr(buf, o, BGP_ATTR_F_TRANSITIVE,
		    BGP_ATTR_LOCAL_PREF, v, 4);
	}
	if (t->ncomm > 0) {
		uint8_t cv[16];

		for (unsigned i = 0; i < t->ncomm; i++)
			bgp_put32(cv + 4 * i, t->comm[i]);
		o = feed_attr(buf, o,
		    BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE,
		    BGP_ATTR_COMMUNITIES, cv, 4 * (size_t)t->ncomm);
	}
	if (bgp_attr_parse(buf, o, &feed_parse_codec, NULL, a, &err) !=
	    BGP_OUT_OK)
		return (-EINVAL);
	return (0);
}

static int
feed_append(struct tt_feed *f, const uint8_t *msg, size_t len)
{
	if (f->len + len > f->cap) {
		size_t ncap = f->cap ? 2 * f->cap : 1 << 20;
		uint8_t *p;

		while (ncap < f->len + len)
			ncap *= 2;
		if ((p = realloc(f->msgs, ncap)) == NULL)
			return (-ENOMEM);
		f->msgs = p;
		f->cap = ncap;
	}
	memcpy(f->msgs + f->len, msg, len);
	f->len += len;
	f->nmsgs++;
	return (0);
}

int
tt_feed_encode(struct tt_feed *f, const struct bgp_codec *c)
{
	struct bgp_upd_builder *b = malloc(sizeof(*b));
	uint8_t abuf[256], pfx[4];
	struct bgp_attrs a;
	const uint8_t *msg;
	size_t len;
	int rv = 0;

	if (b == NULL)
		return (-ENOMEM);
	f->len = 0;
	f->nmsgs = 0;
	bgp_upd_init(b, c, BGP_AF_IPV4);
	for (unsigned s = 0; s < f->c.nsets && rv == 0; s++) {
		if (f->set_first[s] == f->set_first[s + 1])
			continue;
		if ((rv = tt_feed_attrs(f, s, f->c.nexthop, abuf, sizeof(abuf),
			 &a)) != 0 ||
		    (rv = bgp_upd_set_attrs(b, &a)) != 0)
			break;
		for (uint32_t j = f->set_first[s]; j < f->set_first[s + 1];
		     j++) {
			const struct tt_prefix *p = &f->ps.p[f->order[j]];

			bgp_put32(pfx, p->addr);
			if ((rv = bgp_upd_announce(b, pfx, p->len)) ==
			    -ENOSPC) {
				len = bgp_upd_finish(b, &msg);
				if ((rv = feed_append(f, msg, len)) != 0)
					break;
				rv = bgp_upd_announce(b, pfx, p->len);
			}
			if (rv != 0)
				break;
		}
		if (rv == 0 && (len = bgp_upd_finish(b, &msg)) > 0)
			rv = feed_append(f, msg, len);
	}
	free(b);
	return (rv);
}

int
tt_feed_one(const struct tt_feed *f, struct bgp_upd_builder *b, size_t i,
    uint32_t nh, const uint8_t **msg)
{
	uint8_t abuf[256], pfx[4];
	struct bgp_attrs a;
	int rv;

	if (i >= f->ps.n)
		return (-EINVAL);
	if ((rv = tt_feed_attrs(f, f->set_of[i], nh, abuf, sizeof(abuf), &a)) !=
		0 ||
	    (rv = bgp_upd_set_attrs(b, &a)) != 0)
		return (rv);
	bgp_put32(pfx, f->ps.p[i].addr);
	if ((rv = bgp_upd_announce(b, pfx, f->ps.p[i].len)) != 0)
		return (rv);
	return ((int)bgp_upd_finish(b, msg));
}
