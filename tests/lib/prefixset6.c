/* tests/lib/prefixset6.c: generator of the IPv6 prefix set and address streams. */
#include "tests/lib/prefixset6.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef tt_u128 u128;

static const struct {
	unsigned len, ppm;
} mix6[] = {
    /* allocations (/32 and shorter): 17.75% */
    {16, 20}, {19, 100}, {20, 600}, {22, 1000}, {23, 700}, {24, 1000},
    {26, 500}, {27, 800}, {28, 5780}, {29, 40000}, {30, 4000}, {31, 3000},
    {32, 120000},
    /* longer */
    {33, 4000}, {34, 4000}, {35, 3000}, {36, 25000}, {37, 3000}, {38, 6000},
    {39, 4000}, {40, 55000}, {41, 5000}, {42, 12000}, {43, 6000}, {44, 80000},
    {45, 12000}, {46, 25000}, {47, 22000}, {52, 2000}, {56, 12000}, {60, 2000},
    {64, 15000}, {96, 500}, {112, 500}, {127, 300}, {128, 5000},
    /* 2000 spread over /49-/63 and /65-/126 below; /48 the rest */
};

/* the allocated space: base /len */
static const struct {
	uint16_t top; /* first 16 bits */
	unsigned len;
} rir[] = {
    {0x2001, 16},
    {0x2400, 12},
    {0x2600, 12},
    {0x2800, 12},
    {0x2a00, 12},
    {0x2c00, 12},
};
#define NRIR (sizeof(rir) / sizeof(rir[0]))

u128
tt_a6_mask(unsigned len)
{
	return (len == 0 ? 0 : ~(u128)0 << (128 - len));
}

static inline u128
rnd128(struct tt_rng *r)
{
	return (((u128)tt_rng_next(r) << 64) | tt_rng_next(r));
}

void
tt_a6_put(u128 v, uint8_t a[16])
{
	for (int i = 15; i >= 0; i--) {
		a[i] = (uint8_t)v;
		v >>= 8;
	}
}

u128
tt_a6_get(const uint8_t a[16])
{
	u128 v = 0;

	for (int i = 0; i < 16; i++)
		v = (v << 8) | a[i];
	return (v);
}

/* a uniform address of the allocated space (blocks weighted by size) */
static u128
in_space(struct tt_rng *r)
{
	/* 2001::/16 is 1/16 of a /12: weights 1, 16, 16, 16, 16, 16 */
	uint64_t w = tt_rng_below(r, 81);
	unsigned b = w == 0 ? 0 : 1 + (unsigned)((w - 1) / 16);
	u128 base = (u128)rir[b].top << 112;

	return (base | (rnd128(r) & ~tt_a6_mask(rir[b].len)));
}

struct h6 {
	u128 *k;
	uint8_t *l;
	size_t mask;
};

static int
h6_add(struct h6 *h, u128 a, unsigned len)
{
	uint64_t x = ((uint64_t)(a >> 64) * 0x9e3779b97f4a7c15ull) ^
	    (((uint64_t)a + len) * 0xc2b2ae3d27d4eb4full);
	size_t i = (size_t)(x >> 17) & h->mask;

	while (h->l[i] != 0) {
		if (h->l[i] == len + 1 && h->k[i] == a)
			return (0);
		i = (i + 1) & h->mask;
	}
	h->k[i] = a;
	h->l[i] = (uint8_t)(len + 1);
	return (1);
}

static int
cmp_u8(const void *a, const void *b)
{
	return ((int)*(const uint8_t *)a - (int)*(const uint8_t *)b);
}

int
tt_prefixset6_gen(struct tt_prefixset6 *ps, size_t n, uint64_t seed)
{
	struct tt_rng rng;
	struct h6 h = {0};
	uint8_t *lens;
	size_t used = 0, k, nalloc, hs = 1024;

	memset(ps, 0, sizeof(*ps));
	if (n == 0 || n > 4000000)
		return (-EINVAL);
	tt_rng_seed(&rng, seed);
	lens = malloc(n);
	ps->p = malloc(n * sizeof(*ps->p));
	while (hs < n * 2)
		hs <<= 1;
	h.k = malloc(hs * sizeof(*h.k));
	h.l = calloc(hs, 1);
	h.mask = hs - 1;
	if (lens == NULL || ps->p == NULL || h.k == NULL || h.l == NULL) {
		free(lens);
		free(h.k);
		free(h.l);
		free(ps->p);
		ps->p = NULL;
		return (-ENOMEM);
	}
	for (size_t m = 0; m < sizeof(mix6) / sizeof(mix6[0]); m++) {
		size_t c = (size_t)((double)n * mix6[m].ppm / 1e6 + 0.5);

		for (size_t j = 0; j < c && used < n; j++)
			lens[used++] = (uint8_t)mix6[m].len;
	}
	for (size_t j = 0, c = (size_t)((double)n * 2000 / 1e6 + 0.5);
	     j < c && used < n; j++) {
		static const uint8_t odd[] = {49, 50, 51, 53, 54, 55, 57, 58,
		    59, 61, 62, 63, 72, 80, 120, 124, 126};

		lens[used++] = odd[tt_rng_below(&rng, sizeof(odd))];
	}
	while (used < n)
		lens[used++] = 48;
	if (n < 16) /* tiny sets: random lengths still */
		for (k = 0; k < n; k++)
			lens[k] = (uint8_t)(16 + tt_rng_below(&rng, 113));
	qsort(lens, n, 1, cmp_u8);
	for (nalloc = 0; nalloc < n && lens[nalloc] <= 32; nalloc++)
		;

	for (k = 0; k < n; k++) {
		unsigned len = lens[k];
		u128 a;

		for (unsigned tries = 0;; tries++) {
			if (tries > 100000) {
				free(lens);
				free(h.k);
				free(h.l);
				free(ps->p);
				ps->p = NULL;
				return (-ERANGE);
			}
			if (len <= 32 || nalloc == 0) {
				/* an allocation: a third under a shorter one */
				if (k > 0 && tries < 32 &&
				    tt_rng_below(&rng, 3) == 0) {
					const struct tt_prefix6 *par =
					    &ps->p[tt_rng_below(&rng, k)];

					a = tt_a6_get(par->addr) |
					    (rnd128(&rng) &
						~tt_a6_mask(par->len));
				} else {
					a = in_space(&rng);
				}
			} else {
				/* under an allocation, skewed towards the
				 * first ones (u^3) */
				double u = (double)tt_rng_next(&rng) /
				    18446744073709551616.0;
				size_t pi = (size_t)((double)nalloc * u * u *
				    u);
				const struct tt_prefix6 *par = &ps->p[pi];
				u128 pa = tt_a6_get(par->addr),
				     r = rnd128(&rng);

				a = pa | (r & ~tt_a6_mask(par->len));
				if (len > 40 && tt_rng_below(&rng, 5) != 0) {
					/* one of 4 site blocks (/40) */
					struct tt_rng s;
					u128 site;

					tt_rng_seed(&s,
					    (uint64_t)(pa >> 64) ^
						(pi * 4 + (r & 3)));
					site = rnd128(&s) &
					    ~tt_a6_mask(par->len) &
					    tt_a6_mask(40);
					a = pa | site | (r & ~tt_a6_mask(40));
				}
			}
			a &= tt_a6_mask(len);
			if (h6_add(&h, a, len))
				break;
		}
		tt_a6_put(a, ps->p[k].addr);
		ps->p[k].len = (uint8_t)len;
		ps->p[k].nh = (uint16_t)tt_rng_below(&rng, TT_PFX6_NNH);
		ps->count_len[len]++;
	}
	free(lens);
	free(h.k);
	free(h.l);
	for (k = n; k > 1; k--) {
		size_t j = tt_rng_below(&rng, k);
		struct tt_prefix6 t = ps->p[k - 1];

		ps->p[k - 1] = ps->p[j];
		ps->p[j] = t;
	}
	ps->n = n;
	ps->seed = seed;
	return (0);
}

void
tt_prefixset6_free(struct tt_prefixset6 *ps)
{
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}

int
tt_addrs6_gen(const struct tt_prefixset6 *ps, enum tt_addr6_kind kind,
    uint8_t *out, size_t n, uint64_t seed)
{
	struct tt_rng rng;

	tt_rng_seed(&rng, seed ^ 0x6164647236ull);
	if (kind == TT_ADDR6_UNIFORM) {
		for (size_t k = 0; k < n; k++)
			tt_a6_put(in_space(&rng), out + 16 * k);
		return (0);
	}
	if (kind != TT_ADDR6_MATCH || ps == NULL || ps->n == 0)
		return (-EINVAL);
	for (size_t k = 0; k < n; k++) {
		const struct tt_prefix6 *p = &ps->p[tt_rng_below(&rng, ps->n)];

		tt_a6_put(tt_a6_get(p->addr) |
			(rnd128(&rng) & ~tt_a6_mask(p->len)),
		    out + 16 * k);
	}
	return (0);
}

const char *
tt_addr6_kind_name(enum tt_addr6_kind k)
{
	return (k == TT_ADDR6_MATCH   ? "match" :
		k == TT_ADDR6_UNIFORM ? "uniform" :
					"?");
}
