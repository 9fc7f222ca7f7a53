/* tests/lib/prefixset.c: generator of the standard prefix set and address streams. */
#include "tests/lib/prefixset.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG ---- */

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

void
tt_rng_seed(struct tt_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return ((x << k) | (x >> (64 - k)));
}

uint64_t
tt_rng_next(struct tt_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return (res);
}

uint64_t
tt_rng_below(struct tt_rng *r, uint64_t bound)
{
	/* Lemire's multiply-shift; the tiny bias is irrelevant here but the
	 * result is deterministic, which is what matters. */
	return ((uint64_t)(((unsigned __int128)tt_rng_next(r) * bound) >> 64));
}

/* ---- bogons ---- */

static const struct {
	uint32_t a;
	unsigned len;
} bogons[] = {
    {0x00000000, 8},
    {0x0a000000, 8},
    {0x7f000000, 8},
    {0xa9fe0000, 16},
    {0xac100000, 12},
    {0xc0a80000, 16},
    {0xc6120000, 15},
    {0xe0000000, 3},
};

static inline uint32_t
pmask(unsigned len)
{
	return (len == 0 ? 0 : ~(uint32_t)0 << (32 - len));
}

int
tt_prefix_is_bogon(uint32_t addr, unsigned len)
{
	for (size_t i = 0; i < sizeof(bogons) / sizeof(bogons[0]); i++) {
		unsigned m = len < bogons[i].len ? len : bogons[i].len;

		if (((addr ^ bogons[i].a) & pmask(m)) == 0)
			return (1);
	}
	return (0);
}

/* ---- length mix (per million) ---- */

static const struct {
	unsigned len;
	unsigned ppm;
} mix[] = {
    /* /8-/15: 0.48%, split roughly like a 2025 table */
    {8, 16}, {9, 13}, {10, 35}, {11, 100}, {12, 300}, {13, 600}, {14, 1100},
    {15, 2636}, {16, 13600}, {17, 7900}, {18, 13500}, {19, 24500}, {20, 43500},
    {21, 50500}, {22, 126000}, {23, 104000},
    /* /24 takes the rest (61.2%) */
};

/* ---- duplicate detection ---- */

struct pset_hash {
	uint64_t *slot;
	size_t mask;
};

static int
pset_hash_init(struct pset_hash *h, size_t n)
{
	size_t sz = 1024;

	while (sz < n * 2)
		sz <<= 1;
	h->slot = calloc(sz, sizeof(uint64_t));
	h->mask = sz - 1;
	return (h->slot == NULL ? -ENOMEM : 0);
}

/* 1 if inserted, 0 if already present */
static int
pset_hash_add(struct pset_hash *h, uint32_t addr, unsigned len)
{
	uint64_t key = ((uint64_t)addr << 6 | len) + 1;
	uint64_t x = key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(x >> 20) & h->mask;

	while (h->slot[i] != 0) {
		if (h->slot[i] == key)
			return (0);
		i = (i + 1) & h->mask;
	}
	h->slot[i] = key;
	return (1);
}

/* ---- generation ---- */

static int
cmp_addr_len(const void *a, const void *b)
{
	const struct tt_prefix *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr < y->addr ? -1 : 1);
	return ((int)x->len - (int)y->len);
}

/* Prefixes lying inside another prefix of the set. */
static size_t
count_nested(const struct tt_prefix *p, size_t n)
{
	struct tt_prefix *s = malloc(n * sizeof(*s));
	uint64_t stack_end[33];
	int top = -1;
	size_t nested = 0;

	if (s == NULL)
		return (0);
	memcpy(s, p, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_addr_len);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = s[i].addr;

		while (top >= 0 && a >= stack_end[top])
			top--;
		if (top >= 0)
			nested++;
		stack_end[++top] = a + ((uint64_t)1 << (32 - s[i].len));
	}
	free(s);
	return (nested);
}

static int
cmp_len(const void *a, const void *b)
{
	return ((int)*(const uint8_t *)a - (int)*(const uint8_t *)b);
}

int
tt_prefixset_gen(struct tt_prefixset *ps, size_t n, uint64_t seed,
    unsigned flags)
{
	struct tt_rng rng;
	struct pset_hash h;
	uint8_t *lens, *cov;
	size_t total, k, used = 0, nlong;
	size_t len_start = 0;
	unsigned cur_len = 0;

	memset(ps, 0, sizeof(*ps));
	if (n == 0 || n > 4000000 || (flags & ~TT_PFX_LONG) != 0)
		return (-EINVAL);
	nlong = (flags & TT_PFX_LONG) ? n / 20 : 0;
	total = n + nlong;
	tt_rng_seed(&rng, seed);

	/* The lengths, exactly in proportion. */
	lens = malloc(total);
	if (lens == NULL)
		return (-ENOMEM);
	for (size_t m = 0; m < sizeof(mix) / sizeof(mix[0]); m++) {
		size_t c = (size_t)((double)n * mix[m].ppm / 1e6 + 0.5);

		for (size_t j = 0; j < c && used < n; j++)
			lens[used++] = (uint8_t)mix[m].len;
	}
	while (used < n)
		lens[used++] = 24;
	for (k = 0; k < nlong; k++)
		lens[used++] = (uint8_t)(25 + tt_rng_below(&rng, 8));
	qsort(lens, total, 1, cmp_len);

	ps->p = malloc(total * sizeof(*ps->p));
	/* cov: one bit per /24, set under every prefix placed so far (/24 or
	 * shorter), so a prefix meant to be outside all others can be. */
	cov = calloc(1 << 21, 1);
	if (ps->p == NULL || cov == NULL || pset_hash_init(&h, total) != 0) {
		free(cov);
		free(lens);
		free(ps->p);
		ps->p = NULL;
		return (-ENOMEM);
	}

	/* Shortest first, so a prefix can be placed under a shorter one. */
	for (k = 0; k < total; k++) {
		unsigned len = lens[k];
		uint32_t a;

		if (len != cur_len) {
			cur_len = len;
			len_start = k;
		}
		/* decided once, so retries do not bias the mix */
		bool nest = len_start > 0 && (tt_rng_next(&rng) >> 63);

		for (unsigned tries = 0;; tries++) {
			if (tries > 1000000) {
				/* cannot place it: n too large for the space */
				free(h.slot);
				free(cov);
				free(lens);
				free(ps->p);
				ps->p = NULL;
				return (-ERANGE);
			}
			if (nest && tries < 64) {
				/* nested: under a random shorter prefix */
				const struct tt_prefix *par =
				    &ps->p[tt_rng_below(&rng, len_start)];

				a = par->addr |
				    ((uint32_t)tt_rng_next(&rng) &
					~pmask(par->len));
			} else {
				/* not nested: outside every shorter prefix */
				a = (uint32_t)tt_rng_next(&rng) & pmask(len);
				if (tt_prefix_is_bogon(a, len) ||
				    (cov[a >> 11] >> ((a >> 8) & 7) & 1))
					continue;
			}
			a &= pmask(len);
			if (pset_hash_add(&h, a, len))
				break;
		}
		ps->p[k].addr = a;
		ps->p[k].len = (uint8_t)len;
		if (len <= 24)
			for (uint32_t b = a >> 8, e = b + (1u << (24 - len));
			     b < e; b++)
				cov[b >> 3] |= (uint8_t)(1u << (b & 7));
		ps->p[k].nh = (uint16_t)tt_rng_below(&rng, TT_PFX_NNH);
	}
	free(h.slot);
	free(cov);
	free(lens);

	/* Random order (Fisher-Yates). */
	for (k = total; k > 1; k--) {
		size_t j = tt_rng_below(&rng, k);
		struct tt_prefix t = ps->p[k - 1];

		ps->p[k - 1] = ps->p[j];
		ps->p[j] = t;
	}
	ps->n = total;
	ps->nlong = nlong;
	ps->seed = seed;
	ps->flags = flags;
	ps->nested = count_nested(ps->p, total);
	return (0);
}

void
tt_prefixset_free(struct tt_prefixset *ps)
{
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}

int
tt_prefixset_write(const struct tt_prefixset *ps, FILE *f)
{
	for (size_t k = 0; k < ps->n; k++) {
		uint32_t a = ps->p[k].addr;

		if (fprintf(f, "%u.%u.%u.%u/%u %u\n", a >> 24, (a >> 16) & 0xff,
			(a >> 8) & 0xff, a & 0xff, ps->p[k].len,
			ps->p[k].nh) < 0)
			return (errno ? -errno : -EIO);
	}
	if (fflush(f) != 0)
		return (errno ? -errno : -EIO);
	return (0);
}

int
tt_addrs_gen(const struct tt_prefixset *ps, enum tt_addr_kind kind,
    uint32_t *out, size_t n, uint64_t seed)
{
	struct tt_rng rng;
	uint32_t hot[128];

	tt_rng_seed(&rng, seed ^ 0x61646472ull);
	switch (kind) {
	case TT_ADDR_UNIFORM:
		for (size_t k = 0; k < n; k++)
			out[k] = (uint32_t)tt_rng_next(&rng);
		return (0);
	case TT_ADDR_MATCH:
	case TT_ADDR_HOT128:
		if (ps == NULL || ps->n == 0)
			return (-EINVAL);
		break;
	default:
		return (-EINVAL);
	}
	if (kind == TT_ADDR_MATCH) {
		for (size_t k = 0; k < n; k++) {
			const struct tt_prefix *p =
			    &ps->p[tt_rng_below(&rng, ps->n)];

			out[k] = p->addr |
			    ((uint32_t)tt_rng_next(&rng) & ~pmask(p->len));
		}
		return (0);
	}
	for (size_t k = 0; k < 128; k++) {
		const struct tt_prefix *p = &ps->p[tt_rng_below(&rng, ps->n)];

		hot[k] = p->addr |
		    ((uint32_t)tt_rng_next(&rng) & ~pmask(p->len));
	}
	for (size_t k = 0; k < n; k++)
		out[k] = hot[tt_rng_next(&rng) & 127];
	return (0);
}

const char *
tt_addr_kind_name(enum tt_addr_kind k)
{
	switch (k) {
	case TT_ADDR_MATCH:
		return ("match");
	case TT_ADDR_UNIFORM:
		return ("uniform");
	case TT_ADDR_HOT128:
		return ("hot128");
	}
	return ("?");
}

void
tt_prefixset_fib_nh(struct tt_prefixset *ps)
{
	for (size_t k = 0; k < ps->n; k++)
		if (ps->p[k].nh == 255)
			ps->p[k].nh = TT_PFX_NNH;
}
