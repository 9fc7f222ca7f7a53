/* rib/rib_table.c: the prefix index: dests in an index pool, found by an open-addressing hash on (address, length). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_huge.h"
#include "rib_int.h"

/*
 * The hash holds 8-byte slots: the dest index and the key's 32-bit hash, so
 * a probe reads a dest only when the hashes match (linear probing, deletion
 * by backward shift, no tombstones). Longest match probes
 * the lengths that have dests with routes, longest first: at most 33 probes,
 * used for next-hop resolution and queries, not per route.
 */

#define RIB_HTAB_MIN 1024u

struct rib_dest *
rib_dest(const struct rib *rib, uint32_t idx)
{
	return (rib_ipool_at(&rib->dests, idx));
}

struct rib_route *
rib_route(const struct rib *rib, uint32_t idx)
{
	return (rib_ipool_at(&rib->routes, idx));
}

static inline uint32_t
rib_pfx_hash(uint32_t addr, uint8_t len)
{
	return (rib_hash32(((uint64_t)len << 32) | addr));
}

/* IPv6 keys hash apart from IPv4 ones of the same bits (len + 256) */
static inline uint32_t
rib_pfx6_hash(const struct lc_ip6 *a, uint8_t len)
{
	uint64_t hi, lo;

	memcpy(&hi, a->b, 8);
	memcpy(&lo, a->b + 8, 8);
	return (rib_hash32(hi ^ rib_hash32(lo ^ ((uint64_t)(len + 256) << 40)) ^
	    ((uint64_t)len << 56)));
}

static inline uint32_t
rib_dest_hash(const struct rib *rib, const struct rib_dest *d)
{
	if (d->flags & RIB_DF_V6)
		return (rib_pfx6_hash(rib_dest_a6(rib, d), d->len));
	return (rib_pfx_hash(d->addr, d->len));
}

static int rib_htab_resize(struct rib *, uint32_t);

int
rib_table_init(struct rib *rib)
{
	rib_ipool_init(&rib->dests, sizeof(struct rib_dest));
	rib_ipool_init(&rib->routes, sizeof(struct rib_route));
	rib_ipool_init(&rib->a6, sizeof(struct lc_ip6));
	rib->hmask = 0;
	rib->hcount = 0;
	rib->htab = NULL;
	return (rib_htab_resize(rib, RIB_HTAB_MIN));
}

void
rib_table_fini(struct rib *rib)
{
	rib_ipool_fini(&rib->dests);
	rib_ipool_fini(&rib->routes);
	rib_ipool_fini(&rib->a6);
	lc_huge_unmap(rib->htab_map, rib->htab_maplen);
	rib->htab = NULL;
	rib->htab_map = NULL;
}

#define SLOT_IDX(x)  ((uint32_t)(x))
#define SLOT_HASH(x) ((uint32_t)((x) >> 32))
#define SLOT(h, i)   (((uint64_t)(h) << 32) | (i))

/*
 * The table is mapped (zeroed; 2 MiB aligned on huge pages once it is that
 * big): at 1M prefixes it is 16 MiB probed at random, and calloc'ed memory
 * never gets transparent huge pages in THP's "madvise" mode.
 */
static int
rib_htab_resize(struct rib *rib, uint32_t nslots)
{
	size_t bytes = (size_t)nslots * sizeof(uint64_t), ml;
	void *base;
	uint64_t *nt = lc_huge_map(bytes, bytes >= LC_HUGE_PAGE, &ml, &base);
	uint32_t nm = nslots - 1;

	if (nt == NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; rib->htab != NULL && i <= rib->hmask; i++) {
		uint64_t x = rib->htab[i];
		uint32_t s;

		if (x == 0)
			continue;
		s = SLOT_HASH(x) & nm;
		while (nt[s] != 0)
			s = (s + 1) & nm;
		nt[s] = x;
	}
	lc_huge_unmap(rib->htab_map, rib->htab_maplen);
	rib->htab = nt;
	rib->htab_map = base;
	rib->htab_maplen = ml;
	rib->hmask = nm;
	return (0);
}

/* room for `more` new dests and routes without any allocation failing */
int
rib_table_reserve(struct rib *rib, size_t more)
{
	uint64_t need = (uint64_t)rib->hcount + more;
	uint64_t slots = (uint64_t)rib->hmask + 1;
	int rv;

	while (need * 4 > slots * 3)
		slots *= 2;
	if (slots > (1u << 31))
		return (-ENOMEM);
	if (slots != (uint64_t)rib->hmask + 1 &&
	    (rv = rib_htab_resize(rib, (uint32_t)slots)) != 0)
		return (rv);
	if ((rv = rib_ipool_reserve(&rib->dests, more)) != 0)
		return (rv);
	return (rib_ipool_reserve(&rib->routes, more));
}

uint32_t
rib_dest_find(const struct rib *rib, uint32_t addr, uint8_t len)
{
	uint32_t h = rib_pfx_hash(addr, len), s = h & rib->hmask;
	uint64_t x;

	while ((x = rib->htab[s]) != 0) {
		if (SLOT_HASH(x) == h) {
			const struct rib_dest *d = rib_dest(rib, SLOT_IDX(x));

			if (d->addr == addr && d->len == len &&
			    !(d->flags & RIB_DF_V6))
				return (SLOT_IDX(x));
		}
		s = (s + 1) & rib->hmask;
	}
	return (RIB_NIL);
}

uint32_t
rib_dest_get(struct rib *rib, uint32_t addr, uint8_t len)
{
	uint32_t h = rib_pfx_hash(addr, len), s = h & rib->hmask, di;
	struct rib_dest *d;
	uint64_t x;

	while ((x = rib->htab[s]) != 0) {
		if (SLOT_HASH(x) == h) {
			d = rib_dest(rib, SLOT_IDX(x));
			if (d->addr == addr && d->len == len &&
			    !(d->flags & RIB_DF_V6))
				return (SLOT_IDX(x));
		}
		s = (s + 1) & rib->hmask;
	}
	if ((uint64_t)(rib->hcount + 1) * 4 > (uint64_t)(rib->hmask + 1) * 3) {
		if (rib_htab_resize(rib, (rib->hmask + 1) * 2) != 0)
			return (RIB_NIL);
		s = h & rib->hmask;
		while (rib->htab[s] != 0)
			s = (s + 1) & rib->hmask;
	}
	if ((di = rib_ipool_get(&rib->dests)) == RIB_NIL)
		return (RIB_NIL);
	d = rib_dest(rib, di);
	d->addr = addr;
	d->len = len;
	rib->htab[s] = SLOT(h, di);
	rib->hcount++;
	return (di);
}

/* Prefetches the hash slot of (addr, len) (deep: and its dest when the slot
 * is cached by an earlier shallow call): batches look ahead with it, since
 * 1M random prefixes miss the cache on every probe. */
void
rib_dest_prefetch(const struct rib *rib, uint32_t addr, uint8_t len, bool deep)
{
	uint32_t h = rib_pfx_hash(addr, len), s = h & rib->hmask;
	uint64_t x;

	if (!deep) {
		__builtin_prefetch(&rib->htab[s], 0, 1);
		return;
	}
	x = rib->htab[s];
	if (x != 0 && SLOT_HASH(x) == h)
		__builtin_prefetch(rib_dest(rib, SLOT_IDX(x)), 1, 1);
}

static void
rib_htab_remove(struct rib *rib, uint32_t di)
{
	const struct rib_dest *d = rib_dest(rib, di);
	uint32_t m = rib->hmask, i = rib_dest_hash(rib, d) & m, j;

	while (SLOT_IDX(rib->htab[i]) != di)
		i = (i + 1) & m;
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = (i + 1) & m; rib->htab[j] != 0; j = (j + 1) & m) {
		uint32_t home = SLOT_HASH(rib->htab[j]) & m;

		/* move it into the hole unless its home lies in (i, j] */
		if (((j - home) & m) >= ((j - i) & m)) {
			rib->htab[i] = rib->htab[j];
			i = j;
		}
	}
	rib->htab[i] = 0;
	rib->hcount--;
}

void
rib_dest_gc(struct rib *rib, uint32_t di)
{
	const struct rib_dest *d = rib_dest(rib, di);

	if (d->routes != RIB_NIL || d->want != RIB_FG_NONE ||
	    d->sent != RIB_FG_NONE || d->acked != RIB_FG_NONE ||
	    d->inflight != 0 || (d->flags & (RIB_DF_QUEUED | RIB_DF_DIRTY)))
		return;
	rib_htab_remove(rib, di);
	if (d->flags & RIB_DF_V6)
		rib_ipool_put(&rib->a6, d->addr);
	rib_ipool_put(&rib->dests, di);
}

uint32_t
rib_dest_lpm(const struct rib *rib, uint32_t addr, unsigned minlen)
{
	for (int len = 32; len >= (int)minlen; len--) {
		uint32_t di;

		if (rib->lencount[len] == 0)
			continue;
		di = rib_dest_find(rib, addr & lc_prefix4_mask((unsigned)len),
		    (uint8_t)len);
		if (di != RIB_NIL && rib_dest(rib, di)->routes != RIB_NIL)
			return (di);
	}
	return (RIB_NIL);
}

/* ---- IPv6 ---------------------------------------------------------------- */

/*
 * An IPv6 dest is a struct rib_dest like any other (routes, selection and
 * FIB state are family-blind) flagged RIB_DF_V6, whose 16-byte address
 * lives in the a6 pool at index d->addr: 24 + 16 bytes a prefix instead of
 * 24, and the IPv4 path does not change. Both families share the hash.
 */

int
rib_table_reserve6(struct rib *rib, size_t more)
{
	return (rib_ipool_reserve(&rib->a6, more));
}

uint32_t
rib_dest6_find(const struct rib *rib, const struct lc_ip6 *a, uint8_t len)
{
	uint32_t h = rib_pfx6_hash(a, len), s = h & rib->hmask;
	uint64_t x;

	while ((x = rib->htab[s]) != 0) {
		if (SLOT_HASH(x) == h) {
			const struct rib_dest *d = rib_dest(rib, SLOT_IDX(x));

			if ((d->flags & RIB_DF_V6) && d->len == len &&
			    memcmp(rib_dest_a6(rib, d), a, sizeof(*a)) == 0)
				return (SLOT_IDX(x));
		}
		s = (s + 1) & rib->hmask;
	}
	return (RIB_NIL);
}

uint32_t
rib_dest6_get(struct rib *rib, const struct lc_ip6 *a, uint8_t len)
{
	uint32_t h = rib_pfx6_hash(a, len), s, di, ai;
	struct rib_dest *d;

	if ((di = rib_dest6_find(rib, a, len)) != RIB_NIL)
		return (di);
	if ((uint64_t)(rib->hcount + 1) * 4 > (uint64_t)(rib->hmask + 1) * 3 &&
	    rib_htab_resize(rib, (rib->hmask + 1) * 2) != 0)
		return (RIB_NIL);
	s = h & rib->hmask;
	while (rib->htab[s] != 0)
		s = (s + 1) & rib->hmask;
	if ((ai = rib_ipool_get(&rib->a6)) == RIB_NIL)
		return (RIB_NIL);
	if ((di = rib_ipool_get(&rib->dests)) == RIB_NIL) {
		rib_ipool_put(&rib->a6, ai);
		return (RIB_NIL);
	}
	*(struct lc_ip6 *)rib_ipool_at(&rib->a6, ai) = *a;
	d = rib_dest(rib, di);
	d->addr = ai;
	d->len = len;
	d->flags = RIB_DF_V6;
	rib->htab[s] = SLOT(h, di);
	rib->hcount++;
	return (di);
}

/* as rib_dest_prefetch; deep also fetches the dest's address */
void
rib_dest6_prefetch(const struct rib *rib, const struct lc_ip6 *a, uint8_t len,
    bool deep)
{
	uint32_t h = rib_pfx6_hash(a, len), s = h & rib->hmask;
	uint64_t x;

	if (!deep) {
		__builtin_prefetch(&rib->htab[s], 0, 1);
		return;
	}
	x = rib->htab[s];
	if (x != 0 && SLOT_HASH(x) == h) {
		const struct rib_dest *d = rib_dest(rib, SLOT_IDX(x));

		__builtin_prefetch(d, 1, 1);
		__builtin_prefetch(rib_ipool_at(&rib->a6, d->addr), 0, 1);
	}
}

/* at most 129 probes, only the lengths that have IPv6 dests with routes */
uint32_t
rib_dest6_lpm(const struct rib *rib, const struct lc_ip6 *a, unsigned minlen)
{
	for (int len = 128; len >= (int)minlen; len--) {
		struct lc_ip6 m;
		uint32_t di;

		if (rib->lencount6[len] == 0)
			continue;
		m = rib_ip6_mask(a, (unsigned)len, false);
		di = rib_dest6_find(rib, &m, (uint8_t)len);
		if (di != RIB_NIL && rib_dest(rib, di)->routes != RIB_NIL)
			return (di);
	}
	return (RIB_NIL);
}
