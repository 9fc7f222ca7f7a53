/* fwd/fwd_fib6.c: IPv6 multibit trie (24, then 8-bit strides) with 4-byte entries; routes in a hash table, depths beside the tables. */
#include "fwd_fib6.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_huge.h"
#include "libcommon/lc_seg.h"
#include "fwd_grp.h"

/*
 * Control state (the same scheme as fwd_fib.c):
 * - the routes: an open-addressing hash table of 24-byte entries (prefix,
 *   length, next hop, flags): exact match, add and delete cost one probe
 *   sequence;
 * - each entry's depth, in the entry itself (bits 16-23 of a next hop's,
 *   bits 0-7 of a group's; the lookups mask it off, fwd_fib6.h): 1 + the
 *   length of the route whose next hop the entry holds, or for an entry
 *   that names a group, of the longest route covering the entry's whole
 *   range (0: none). Value and depth change in one store;
 * - glong[g]: how many routes go through group g (are longer than the
 *   prefix of the entry that names g); at 0 the group is uniform and is
 *   folded back into that entry, its memory reused after a grace period.
 * An add paints the entries of its range whose depth is <= its own, going
 * down into the groups they name; a delete paints those whose depth is its
 * own with the covering route, found from the depth of the entry that names
 * the route's group plus probes of the lengths between.
 */

#define T24_N	  (1u << 24)
#define G_N	  256u
#define LEV_MAX	  13 /* group levels: bytes 3..15 of the address */
#define DEF_MAX_G (1u << 22)

#define R_USED	0x1u
#define R_STALE 0x2u

/* A shared FIB's layout (kind FIB6): its segment's regions. */
enum { F6_R_TBL24, F6_R_TBL8, F6_R_GLONG, F6_R_STATE, F6_R_HT, F6_R__N };
#define F6_SEG_KIND	   0x46494236u /* "FIB6" */
#define F6_SEG_VERSION	   1u	       /* change with any layout change */
#define F6_HT_LOG2_MAX	   23	       /* 6.3M routes */
#define F6_GROUPS_PER_HUGE (LC_HUGE_PAGE / (G_N * 4))

typedef unsigned __int128 u128;

struct fib6_route {
	uint64_t hi, lo; /* the prefix, host order halves */
	uint16_t nh;
	uint8_t len;
	uint8_t flags;
	uint32_t pad_;
};

/* The control state beside the tables that outlives the process with them
 * (a shared FIB's state region). */
struct fib6_state {
	uint32_t max_nh, flags, ng; /* as made: adopt checks them */
	uint32_t ht_log2;	    /* the route hash's capacity */
	uint64_t ht_n;
	uint32_t hwm; /* groups below were ever used */
	uint32_t len_count[129];
};

struct fwd_fib6 {
	struct fwd_fib6_dp dp; /* must be first: the inline lookup uses it */
	uint32_t *tbl24;
	uint32_t *tbl8;
	uint32_t *glong;
	void *tbl24_map, *tbl8_map, *glong_map;
	size_t tbl24_map_len, tbl8_map_len, glong_map_len;
	unsigned max_nh;

	/* groups 0..max_tbl8-1, their reuse after a grace period */
	struct fwd_grp grp;

	struct fib6_route *ht;
	void *ht_map;
	size_t ht_map_len, ht_mask;

	/* the rest of the control state: own, or in the segment */
	struct fib6_state *st;
	struct fib6_state *st_own;

	struct fwd_qsbr *qsbr;
	bool own_qsbr;

	/* FWD_FIB6_F_SHARED: every table in seg (F6_R_* regions) */
	struct lc_seg *seg;
};

/* ---- addresses ---- */

static inline u128
a_load(const uint8_t *a)
{
	u128 v = 0;

	for (int i = 0; i < 16; i++)
		v = (v << 8) | a[i];
	return (v);
}

static inline void
a_store(u128 v, uint8_t *a)
{
	for (int i = 15; i >= 0; i--) {
		a[i] = (uint8_t)v;
		v >>= 8;
	}
}

static inline u128
a_mask(unsigned len)
{
	return (len == 0 ? 0 : ~(u128)0 << (128 - len));
}

/* byte k (0..15) of the address */
static inline unsigned
a_byte(u128 a, unsigned k)
{
	return ((unsigned)(a >> (120 - 8 * k)) & 0xff);
}

static inline uint32_t
a_top24(u128 a)
{
	return ((uint32_t)(a >> 104));
}

/* the group level a route of len is painted at (0: tbl24) */
static inline unsigned
lev_of(unsigned len)
{
	return (len <= 24 ? 0 : (len - 17) / 8);
}

/* ---- the route table ---- */

static inline size_t
ht_home(const struct fwd_fib6 *fib, u128 pfx, unsigned len)
{
	uint64_t h = (uint64_t)(pfx >> 64) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)pfx + len) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ull;
	return ((size_t)(h >> 20) & fib->ht_mask);
}

static inline bool
ht_is(const struct fib6_route *r, u128 pfx, unsigned len)
{
	return (r->len == len && r->lo == (uint64_t)pfx &&
	    r->hi == (uint64_t)(pfx >> 64));
}

static size_t
ht_find(const struct fwd_fib6 *fib, u128 pfx, unsigned len)
{
	size_t i = ht_home(fib, pfx, len);

	for (;;) {
		const struct fib6_route *r = &fib->ht[i];

		if (!(r->flags & R_USED))
			return (SIZE_MAX);
		if (ht_is(r, pfx, len))
			return (i);
		i = (i + 1) & fib->ht_mask;
	}
}

static inline u128
r_pfx(const struct fib6_route *r)
{
	return (((u128)r->hi << 64) | r->lo);
}

static void
ht_put(struct fwd_fib6 *fib, const struct fib6_route *r)
{
	size_t i = ht_home(fib, r_pfx(r), r->len);

	while (fib->ht[i].flags & R_USED)
		i = (i + 1) & fib->ht_mask;
	fib->ht[i] = *r;
}

static unsigned
log2_of(size_t cap)
{
	unsigned l = 0;

	while (((size_t)1 << l) < cap)
		l++;
	return (l);
}

/* A shared FIB's hash has its largest capacity reserved in the segment
 * (sparse) and uses its first cap slots: a resize rehashes through a copy
 * of the routes. */
static int
ht_resize_shared(struct fwd_fib6 *fib, size_t cap)
{
	size_t ocap = fib->ht_mask + 1, n = 0;
	struct fib6_route *tmp;

	if (log2_of(cap) > F6_HT_LOG2_MAX)
		return (-ENOSPC);
	if ((tmp = malloc((fib->st->ht_n + 1) * sizeof(*tmp))) == NULL)
		return (-ENOMEM);
	for (size_t i = 0; i < ocap; i++)
		if (fib->ht[i].flags & R_USED)
			tmp[n++] = fib->ht[i];
	memset(fib->ht, 0, ocap * sizeof(*tmp));
	fib->ht_mask = cap - 1;
	fib->st->ht_log2 = log2_of(cap);
	for (size_t k = 0; k < n; k++)
		ht_put(fib, &tmp[k]);
	free(tmp);
	return (0);
}

static int
ht_resize(struct fwd_fib6 *fib, size_t cap)
{
	struct fib6_route *old = fib->ht;
	size_t ocap = old ? fib->ht_mask + 1 : 0, ml,
	       bytes = cap * sizeof(*old);
	void *omap = fib->ht_map, *base;
	struct fib6_route *nt;

	if (fib->seg != NULL)
		return (ht_resize_shared(fib, cap));

	nt = lc_huge_map(bytes, bytes >= LC_HUGE_PAGE, &ml, &base);
	if (nt == NULL)
		return (-ENOMEM);
	fib->ht = nt;
	fib->ht_mask = cap - 1;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].flags & R_USED)
			ht_put(fib, &old[i]);
	lc_huge_unmap(omap, fib->ht_map_len);
	fib->ht_map = base;
	fib->ht_map_len = ml;
	fib->st->ht_log2 = log2_of(cap);
	return (0);
}

static int
ht_reserve(struct fwd_fib6 *fib)
{
	size_t cap = fib->ht_mask + 1;

	if ((fib->st->ht_n + 1) * 4 <= cap * 3)
		return (0);
	return (ht_resize(fib, cap * 2));
}

/* backward-shift deletion */
static void
ht_remove(struct fwd_fib6 *fib, size_t i)
{
	size_t j = i;

	for (;;) {
		struct fib6_route *r;
		size_t k;
		bool stay;

		j = (j + 1) & fib->ht_mask;
		r = &fib->ht[j];
		if (!(r->flags & R_USED))
			break;
		k = ht_home(fib, r_pfx(r), r->len);
		stay = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stay) {
			fib->ht[i] = *r;
			i = j;
		}
	}
	memset(&fib->ht[i], 0, sizeof(fib->ht[i]));
}

/* ---- groups ---- */

/* entries: a next hop with its depth, a group with its depth */
static inline uint32_t
e_leaf(unsigned nh, unsigned d)
{
	return ((uint32_t)d << 16 | nh);
}

static inline uint32_t
e_ptr(uint32_t g, unsigned d)
{
	return (FWD_FIB6_G_BIT | g << 8 | d);
}

static inline bool
e_is_g(uint32_t e)
{
	return ((e & FWD_FIB6_G_BIT) != 0);
}

static inline unsigned
e_dep(uint32_t e)
{
	return (e_is_g(e) ? e & 0xff : (e >> 16) & 0xff);
}

static inline uint32_t
e_g(uint32_t e)
{
	return ((e >> 8) & (FWD_FIB6_MAX_G - 1));
}

static inline uint32_t *
g_tbl(const struct fwd_fib6 *fib, uint32_t e)
{
	return (fib->tbl8 + ((size_t)e_g(e) << 8));
}

size_t
fwd_fib6_reclaim(struct fwd_fib6 *fib)
{
	fwd_grp_poll(&fib->grp);
	return (fib->grp.n);
}

/* Entry *slot (a next hop) gets a group filled with it, published with a
 * release store. Returns the new entry. */
static uint32_t
g_make(struct fwd_fib6 *fib, uint32_t *slot)
{
	uint32_t g = fwd_grp_get(&fib->grp), v = *slot, e = e_ptr(g, e_dep(v));
	uint32_t *t = g_tbl(fib, e);

	fib->st->hwm = fib->grp.hwm;
	/* a shared FIB's groups get huge pages 2 MiB (512 groups) at a
	 * time, as the never-used ones are taken */
	if (fib->seg != NULL && ((g + 1) & (F6_GROUPS_PER_HUGE - 1)) == 0 &&
	    g + 1 == fib->grp.hwm)
		(void)lc_seg_collapse_range(fib->seg, F6_R_TBL8,
		    (size_t)g * G_N * 4, 1);
	for (unsigned i = 0; i < G_N; i++)
		t[i] = v;
	fib->glong[g] = 0;
	__atomic_store_n(slot, e, __ATOMIC_RELEASE);
	return (e);
}

/* ---- painting ---- */

/* Entries [lo, hi) of table t whose depth is in [dmin, dmax] get (nh,
 * dnew); an entry that names a group gets the depth, and the group is
 * painted whole by the same rule (its entries are at least as deep). */
static void
paint(struct fwd_fib6 *fib, uint32_t *t, unsigned lo, unsigned hi,
    unsigned dmin, unsigned dmax, unsigned nh, unsigned dnew)
{
	for (unsigned i = lo; i < hi; i++) {
		uint32_t v = t[i], d = e_dep(v);

		if (d < dmin || d > dmax)
			continue;
		if (e_is_g(v)) {
			if (d != dnew)
				__atomic_store_n(&t[i], e_ptr(e_g(v), dnew),
				    __ATOMIC_RELAXED);
			paint(fib, g_tbl(fib, v), 0, G_N, dmin, dmax, nh, dnew);
		} else if (v != e_leaf(nh, dnew)) {
			__atomic_store_n(&t[i], e_leaf(nh, dnew),
			    __ATOMIC_RELAXED);
		}
	}
}

/* The path of pfx down to level lev: slot[k] = the entry at level k the
 * address goes through, for k <= lev; a group that does not exist yet
 * stops the walk. Returns the levels found. */
static unsigned
path(const struct fwd_fib6 *fib, u128 pfx, unsigned lev, uint32_t **slot)
{
	slot[0] = &fib->tbl24[a_top24(pfx)];
	for (unsigned k = 1; k <= lev; k++) {
		uint32_t e = *slot[k - 1];

		if (!e_is_g(e))
			return (k);
		slot[k] = g_tbl(fib, e) + a_byte(pfx, 2 + k);
	}
	return (lev + 1);
}

/* [lo, hi) of the route's range in its level's table */
static void
range_of(u128 pfx, unsigned len, unsigned lev, unsigned *lo, unsigned *hi)
{
	if (lev == 0) {
		*lo = a_top24(pfx);
		*hi = *lo + (1u << (24 - len));
	} else {
		*lo = a_byte(pfx, 2 + lev);
		*hi = *lo + (1u << (24 + 8 * lev - len));
	}
}

/* the table a route at lev is painted in (path found) */
static uint32_t *
table_of(const struct fwd_fib6 *fib, unsigned lev, uint32_t **slot)
{
	return (lev == 0 ? fib->tbl24 : g_tbl(fib, *slot[lev - 1]));
}

/* ---- public ---- */

static void
f6_spec(struct lc_seg_spec *sp, unsigned ng)
{
	sp[F6_R_TBL24] = (struct lc_seg_spec){"tbl24", (size_t)T24_N * 4, true};
	sp[F6_R_TBL8] = (struct lc_seg_spec){"tbl8", (size_t)ng * G_N * 4,
	    true};
	sp[F6_R_GLONG] = (struct lc_seg_spec){"glong", (size_t)ng * 4, false};
	sp[F6_R_STATE] = (struct lc_seg_spec){"state",
	    sizeof(struct fib6_state), false};
	sp[F6_R_HT] = (struct lc_seg_spec){"ht",
	    ((size_t)1 << F6_HT_LOG2_MAX) * sizeof(struct fib6_route), true};
}

static int
f6_conf_check(const struct fwd_fib6_conf *conf, unsigned *ng)
{
	if (conf == NULL || conf->max_nh == 0 ||
	    conf->max_nh > FWD_FIB6_MAX_NH || conf->max_tbl8 > FWD_FIB6_MAX_G ||
	    (conf->flags & ~(FWD_FIB6_F_NO_THP | FWD_FIB6_F_SHARED)) != 0)
		return (-EINVAL);
	*ng = conf->max_tbl8 ? conf->max_tbl8 : DEF_MAX_G;
	return (0);
}

static int
f6_finish(struct fwd_fib6 *fib, const struct fwd_fib6_conf *conf, unsigned ng)
{
	if (conf->qsbr != NULL) {
		fib->qsbr = conf->qsbr;
	} else {
		if ((fib->qsbr = fwd_qsbr_new(0)) == NULL)
			return (-ENOMEM);
		fib->own_qsbr = true;
	}
	fwd_grp_init(&fib->grp, fib->qsbr, 0, ng, 1024);
	fib->dp.tbl24 = fib->tbl24;
	fib->dp.tbl8 = fib->tbl8;
	return (0);
}

static void
f6_seg_bind(struct fwd_fib6 *fib)
{
	fib->tbl24 = lc_seg_region(fib->seg, F6_R_TBL24);
	fib->tbl8 = lc_seg_region(fib->seg, F6_R_TBL8);
	fib->glong = lc_seg_region(fib->seg, F6_R_GLONG);
	fib->st = lc_seg_region(fib->seg, F6_R_STATE);
	fib->ht = lc_seg_region(fib->seg, F6_R_HT);
}

struct fwd_fib6 *
fwd_fib6_new(const struct fwd_fib6_conf *conf)
{
	struct lc_seg_spec sp[F6_R__N];
	struct fwd_fib6 *fib;
	struct lc_err err;
	bool thp;
	unsigned ng;

	if (f6_conf_check(conf, &ng) != 0) {
		errno = EINVAL;
		return (NULL);
	}
	if ((fib = calloc(1, sizeof(*fib))) == NULL)
		return (NULL);
	thp = !(conf->flags & FWD_FIB6_F_NO_THP);
	fib->max_nh = conf->max_nh;
	if (conf->flags & FWD_FIB6_F_SHARED) {
		f6_spec(sp, ng);
		if ((fib->seg = lc_seg_open("tern-fwd-fib6", -1, F6_SEG_KIND,
			 F6_SEG_VERSION, sp, F6_R__N, &err)) == NULL)
			goto fail;
		f6_seg_bind(fib);
		fib->ht_mask = 1024 - 1;
		fib->st->ht_log2 = 10;
	} else {
		fib->st = fib->st_own = calloc(1, sizeof(*fib->st));
		fib->tbl24 = lc_huge_map((size_t)T24_N * 4, thp,
		    &fib->tbl24_map_len, &fib->tbl24_map);
		/* reserved, touched group by group */
		fib->tbl8 = lc_huge_map((size_t)ng * G_N * 4, thp,
		    &fib->tbl8_map_len, &fib->tbl8_map);
		fib->glong = lc_huge_map((size_t)ng * 4, false,
		    &fib->glong_map_len, &fib->glong_map);
		if (fib->st == NULL || fib->tbl24 == NULL ||
		    fib->tbl8 == NULL || fib->glong == NULL ||
		    ht_resize(fib, 1024) != 0)
			goto fail;
	}
	fib->st->max_nh = conf->max_nh;
	fib->st->flags = conf->flags;
	fib->st->ng = ng;
	for (uint32_t i = 0; i < T24_N; i++)
		fib->tbl24[i] = FWD_FIB6_NH_NONE;
	if (fib->seg != NULL)
		(void)lc_seg_collapse(fib->seg, F6_R_TBL24);
	if (f6_finish(fib, conf, ng) != 0)
		goto fail;
	return (fib);
fail:
	fwd_fib6_free(fib);
	errno = ENOMEM;
	return (NULL);
}

struct fwd_fib6 *
fwd_fib6_adopt(const struct fwd_fib6_conf *conf, int fd, struct lc_err *err)
{
	struct lc_seg_spec sp[F6_R__N];
	const struct fib6_state *st;
	struct fwd_fib6 *fib;
	uint32_t *used = NULL;
	size_t nused = 0;
	unsigned ng;

	lc_err_clear(err);
	if (f6_conf_check(conf, &ng) != 0 ||
	    !(conf->flags & FWD_FIB6_F_SHARED)) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "bad FIB6 config");
		return (NULL);
	}
	if ((fib = calloc(1, sizeof(*fib))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (NULL);
	}
	fib->max_nh = conf->max_nh;
	f6_spec(sp, ng);
	if ((fib->seg = lc_seg_open(NULL, fd, F6_SEG_KIND, F6_SEG_VERSION, sp,
		 F6_R__N, err)) == NULL) {
		free(fib);
		return (NULL);
	}
	f6_seg_bind(fib);
	st = fib->st;
	if (st->max_nh != conf->max_nh || st->flags != conf->flags ||
	    st->ng != ng || st->ht_log2 < 10 || st->ht_log2 > F6_HT_LOG2_MAX ||
	    st->hwm > ng) {
		lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "an IPv6 FIB of another shape (max_nh %u, flags %#x, %u "
		    "groups; this one %u, %#x, %u)",
		    st->max_nh, st->flags, st->ng, conf->max_nh, conf->flags,
		    ng);
		goto fail;
	}
	fib->ht_mask = ((size_t)1 << st->ht_log2) - 1;
	(void)lc_seg_collapse(fib->seg, F6_R_TBL24);
	if (f6_finish(fib, conf, ng) != 0)
		goto nomem;
	/* a group is linked iff routes go through it (glong > 0: at 0 it is
	 * folded); only those below the mark were ever touched */
	if (st->hwm > 0 &&
	    (used = malloc((size_t)st->hwm * sizeof(*used))) == NULL)
		goto nomem;
	for (uint32_t g = 0; g < st->hwm; g++)
		if (fib->glong[g] != 0)
			used[nused++] = g;
	if (fwd_grp_restore(&fib->grp, used, nused) != 0)
		goto nomem;
	if (st->hwm >= F6_GROUPS_PER_HUGE)
		(void)lc_seg_collapse_range(fib->seg, F6_R_TBL8, 0,
		    (size_t)(st->hwm & ~(F6_GROUPS_PER_HUGE - 1)) * G_N * 4);
	free(used);
	return (fib);
nomem:
	lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
fail:
	free(used);
	fwd_fib6_free(fib);
	return (NULL);
}

int
fwd_fib6_seg_fd(const struct fwd_fib6 *fib)
{
	return (fib->seg != NULL ? lc_seg_fd(fib->seg) : -1);
}

void
fwd_fib6_free(struct fwd_fib6 *fib)
{
	if (fib == NULL)
		return;
	if (fib->seg != NULL) {
		lc_seg_free(fib->seg);
	} else {
		lc_huge_unmap(fib->tbl24_map, fib->tbl24_map_len);
		lc_huge_unmap(fib->tbl8_map, fib->tbl8_map_len);
		lc_huge_unmap(fib->glong_map, fib->glong_map_len);
		lc_huge_unmap(fib->ht_map, fib->ht_map_len);
		free(fib->st_own);
	}
	fwd_grp_fini(&fib->grp);
	if (fib->own_qsbr)
		fwd_qsbr_free(fib->qsbr);
	free(fib);
}

/* Every public change inside the segment's epoch, when shared (a crash in
 * one leaves it refused by adopt; nested calls count once: lc_seg). */
static inline void
f6_upd_begin(struct fwd_fib6 *fib)
{
	if (fib->seg != NULL)
		lc_seg_begin(fib->seg);
}

static inline void
f6_upd_end(struct fwd_fib6 *fib)
{
	if (fib->seg != NULL)
		lc_seg_end(fib->seg);
}

static int
check(const uint8_t *p, unsigned len, u128 *pfx)
{
	if (p == NULL || len > 128)
		return (-EINVAL);
	*pfx = a_load(p);
	if ((*pfx & ~a_mask(len)) != 0)
		return (-EINVAL);
	return (0);
}

void
fwd_fib6_prefetch(const struct fwd_fib6 *fib, const uint8_t p[16], unsigned len)
{
	u128 pfx = a_load(p);

	__builtin_prefetch(&fib->ht[ht_home(fib, pfx, len)], 0, 1);
	__builtin_prefetch(&fib->tbl24[a_top24(pfx)], 1, 1);
}

static int
f6_x_add(struct fwd_fib6 *fib, const uint8_t p[16], unsigned len, unsigned nh)
{
	uint32_t *slot[LEV_MAX + 1];
	unsigned lev = lev_of(len), dd = len + 1, lo, hi, have, need;
	struct fib6_route r;
	size_t s;
	u128 pfx;
	int rv;

	if (check(p, len, &pfx) != 0 || nh >= fib->max_nh ||
	    nh == FWD_FIB6_NH_NONE)
		return (-EINVAL);
	range_of(pfx, len, lev, &lo, &hi);
	if ((s = ht_find(fib, pfx, len)) != SIZE_MAX) {
		unsigned old = fib->ht[s].nh;

		fib->ht[s].nh = (uint16_t)nh;
		fib->ht[s].flags &= ~R_STALE;
		if (old == nh)
			return (0);
		path(fib, pfx, lev, slot);
		paint(fib, table_of(fib, lev, slot), lo, hi, dd, dd, nh, dd);
		return (0);
	}
	/* Everything that can fail, before any change. */
	if ((rv = ht_reserve(fib)) != 0 ||
	    (rv = fwd_grp_reserve(&fib->grp, 0)) != 0)
		return (rv);
	have = path(fib, pfx, lev, slot);
	need = lev + 1 - have;
	if (need != 0 && !fwd_grp_avail(&fib->grp, need))
		return (-ENOSPC);
	for (unsigned k = have; k <= lev; k++) {
		uint32_t e = g_make(fib, slot[k - 1]);

		slot[k] = g_tbl(fib, e) + a_byte(pfx, 2 + k);
	}
	memset(&r, 0, sizeof(r));
	r.hi = (uint64_t)(pfx >> 64);
	r.lo = (uint64_t)pfx;
	r.len = (uint8_t)len;
	r.nh = (uint16_t)nh;
	r.flags = R_USED;
	ht_put(fib, &r);
	fib->st->ht_n++;
	fib->st->len_count[len]++;
	for (unsigned k = 1; k <= lev; k++)
		fib->glong[e_g(*slot[k - 1])]++;
	paint(fib, table_of(fib, lev, slot), lo, hi, 0, dd, nh, dd);
	return (0);
}

int
fwd_fib6_add(struct fwd_fib6 *fib, const uint8_t p[16], unsigned len,
    unsigned nh)
{
	int rv;

	f6_upd_begin(fib);
	rv = f6_x_add(fib, p, len, nh);
	f6_upd_end(fib);
	return (rv);
}

/* The longest route shorter than len covering pfx (the route's path is in
 * slot): its (nh, depth), or (NONE, 0). Lengths below the route's level
 * are summed up by the depth of the entry that names its group. */
static void
cover(const struct fwd_fib6 *fib, u128 pfx, unsigned len, unsigned lev,
    uint32_t **slot, unsigned *nh, unsigned *depth)
{
	unsigned floor = lev == 0 ? 0 : 24 + 8 * (lev - 1) + 1, l, dp;
	size_t s;

	*nh = FWD_FIB6_NH_NONE;
	*depth = 0;
	/* the candidates' slots first, so their cache misses overlap */
	for (l = len; l-- > floor;)
		if (fib->st->len_count[l] != 0)
			__builtin_prefetch(
			    &fib->ht[ht_home(fib, pfx & a_mask(l), l)]);
	if (lev != 0 && (dp = e_dep(*slot[lev - 1])) != 0)
		__builtin_prefetch(
		    &fib->ht[ht_home(fib, pfx & a_mask(dp - 1), dp - 1)]);
	for (l = len; l-- > floor;) {
		if (fib->st->len_count[l] == 0)
			continue;
		s = ht_find(fib, pfx & a_mask(l), l);
		if (s != SIZE_MAX) {
			*nh = fib->ht[s].nh;
			*depth = l + 1;
			return;
		}
	}
	if (lev == 0 || (dp = e_dep(*slot[lev - 1])) == 0)
		return;
	s = ht_find(fib, pfx & a_mask(dp - 1), dp - 1);
	if (s != SIZE_MAX) {
		*nh = fib->ht[s].nh;
		*depth = dp;
	}
}

static int
f6_x_del(struct fwd_fib6 *fib, const uint8_t p[16], unsigned len)
{
	uint32_t *slot[LEV_MAX + 1];
	unsigned lev = lev_of(len), dd = len + 1, lo, hi, cn, cd;
	uint64_t tok = 0;
	size_t s;
	u128 pfx;
	int rv;

	if (check(p, len, &pfx) != 0)
		return (-EINVAL);
	if ((s = ht_find(fib, pfx, len)) == SIZE_MAX)
		return (-ENOENT);
	if ((rv = fwd_grp_reserve(&fib->grp, lev)) != 0)
		return (rv);
	fwd_grp_poll(&fib->grp);
	path(fib, pfx, lev, slot);
	cover(fib, pfx, len, lev, slot, &cn, &cd);
	ht_remove(fib, s);
	fib->st->ht_n--;
	fib->st->len_count[len]--;
	range_of(pfx, len, lev, &lo, &hi);
	paint(fib, table_of(fib, lev, slot), lo, hi, dd, dd, cn, cd);
	/* groups left with no route through them fold, deepest first */
	for (unsigned k = lev; k >= 1; k--) {
		uint32_t e = *slot[k - 1], g = e_g(e);

		if (--fib->glong[g] != 0)
			continue;
		__atomic_store_n(slot[k - 1], g_tbl(fib, e)[0],
		    __ATOMIC_RELEASE);
		if (tok == 0)
			tok = fwd_qsbr_start(fib->qsbr);
		fwd_grp_defer(&fib->grp, g, tok);
	}
	return (0);
}

int
fwd_fib6_del(struct fwd_fib6 *fib, const uint8_t p[16], unsigned len)
{
	int rv;

	f6_upd_begin(fib);
	rv = f6_x_del(fib, p, len);
	f6_upd_end(fib);
	return (rv);
}

int
fwd_fib6_get(const struct fwd_fib6 *fib, const uint8_t p[16], unsigned len,
    unsigned *nh)
{
	size_t s;
	u128 pfx;

	if (check(p, len, &pfx) != 0)
		return (-EINVAL);
	if ((s = ht_find(fib, pfx, len)) == SIZE_MAX)
		return (-ENOENT);
	if (nh != NULL)
		*nh = fib->ht[s].nh;
	return (0);
}

size_t
fwd_fib6_count(const struct fwd_fib6 *fib)
{
	return (fib->st->ht_n);
}

size_t
fwd_fib6_tbl8_used(const struct fwd_fib6 *fib)
{
	return (fib->grp.inuse);
}

size_t
fwd_fib6_memory(const struct fwd_fib6 *fib)
{
	size_t m = (size_t)T24_N * 4; /* tbl24 */

	m += (size_t)fib->grp.hwm * (G_N * 4 + 4); /* entries, glong */
	m += (fib->ht_mask + 1) * sizeof(struct fib6_route);
	m += fwd_grp_memory(&fib->grp);
	return (m + sizeof(*fib));
}

struct fwd_qsbr *
fwd_fib6_qsbr(const struct fwd_fib6 *fib)
{
	return (fib->qsbr);
}

int
fwd_fib6_walk(const struct fwd_fib6 *fib,
    int (*cb)(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg),
    void *arg)
{
	for (size_t i = 0; i <= fib->ht_mask; i++) {
		const struct fib6_route *r = &fib->ht[i];
		uint8_t a[16];
		int rv;

		if (!(r->flags & R_USED))
			continue;
		a_store(r_pfx(r), a);
		if ((rv = cb(a, r->len, r->nh, arg)) != 0)
			return (rv);
	}
	return (0);
}

static void
f6_x_clear(struct fwd_fib6 *fib)
{
	bool room = fwd_grp_reserve(&fib->grp, fib->grp.inuse) == 0;
	uint64_t tok;

	for (uint32_t i = 0; i < T24_N; i++)
		if (fib->tbl24[i] != FWD_FIB6_NH_NONE)
			__atomic_store_n(&fib->tbl24[i], FWD_FIB6_NH_NONE,
			    __ATOMIC_RELEASE);
	tok = fwd_qsbr_start(fib->qsbr);
	if (room) {
		/* the groups are unreachable now, but still intact */
		for (uint32_t g = 0; g < fib->grp.hwm && fib->grp.inuse != 0;
		     g++)
			if (fib->glong[g] != 0) {
				fib->glong[g] = 0;
				fwd_grp_defer(&fib->grp, g, tok);
			}
	} else {
		/* out of memory for the list: wait, then reuse them all */
		fwd_qsbr_wait(fib->qsbr, tok, 0);
		fwd_grp_poll(&fib->grp);
		memset(fib->glong, 0, (size_t)fib->grp.end * 4);
		fwd_grp_reset(&fib->grp);
	}
	memset(fib->ht, 0, (fib->ht_mask + 1) * sizeof(*fib->ht));
	fib->st->ht_n = 0;
	memset(fib->st->len_count, 0, sizeof(fib->st->len_count));
	fwd_grp_poll(&fib->grp);
}

void
fwd_fib6_clear(struct fwd_fib6 *fib)
{
	f6_upd_begin(fib);
	f6_x_clear(fib);
	f6_upd_end(fib);
}

static void
f6_x_mark_stale(struct fwd_fib6 *fib)
{
	for (size_t i = 0; i <= fib->ht_mask; i++)
		if (fib->ht[i].flags & R_USED)
			fib->ht[i].flags |= R_STALE;
}

void
fwd_fib6_mark_stale(struct fwd_fib6 *fib)
{
	f6_upd_begin(fib);
	f6_x_mark_stale(fib);
	f6_upd_end(fib);
}

static size_t
f6_x_sweep_stale(struct fwd_fib6 *fib)
{
	struct fib6_route *keys = NULL;
	size_t n = 0, cap = 0, done = 0;

	for (size_t i = 0; i <= fib->ht_mask; i++) {
		const struct fib6_route *r = &fib->ht[i];

		if (!(r->flags & R_USED) || !(r->flags & R_STALE))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct fib6_route *nk = realloc(keys, nc * sizeof(*nk));

			if (nk == NULL)
				break; /* sweep what we have; call again */
			keys = nk;
			cap = nc;
		}
		keys[n++] = *r;
	}
	for (size_t k = 0; k < n; k++) {
		uint8_t a[16];

		a_store(r_pfx(&keys[k]), a);
		if (fwd_fib6_del(fib, a, keys[k].len) == 0)
			done++;
	}
	free(keys);
	return (done);
}

size_t
fwd_fib6_sweep_stale(struct fwd_fib6 *fib)
{
	size_t rv;

	f6_upd_begin(fib);
	rv = f6_x_sweep_stale(fib);
	f6_upd_end(fib);
	return (rv);
}

void
fwd_fib6_lookup_burst(const struct fwd_fib6 *fib, const uint8_t *dst,
    uint16_t *nh, unsigned n)
{
	const uint32_t *t24 = fib->dp.tbl24, *t8 = fib->dp.tbl8;

	while (n != 0) {
		unsigned m = n < FWD_FIB6_BURST_MAX ? n : FWD_FIB6_BURST_MAX;
		uint32_t e[FWD_FIB6_BURST_MAX];
		uint8_t pend[FWD_FIB6_BURST_MAX];
		unsigned np = 0, k = 3;

		/* tbl24: read FWD_FIB6_PREFETCH_AHEAD addresses behind its
		 * prefetch; those that go on to a group wait in pend[] */
		for (unsigned i = 0; i < m && i < FWD_FIB6_PREFETCH_AHEAD; i++)
			__builtin_prefetch(&t24[fwd_fib6_top24_(dst + 16 * i)]);
		for (unsigned i = 0; i < m; i++) {
			const uint8_t *a = dst + 16 * i;
			uint32_t v;

			if (i + FWD_FIB6_PREFETCH_AHEAD < m)
				__builtin_prefetch(&t24[fwd_fib6_top24_(
				    a + 16 * FWD_FIB6_PREFETCH_AHEAD)]);
			v = FWD_FIB6_READ_(t24[fwd_fib6_top24_(a)]);
			if (v & FWD_FIB6_G_BIT) {
				__builtin_prefetch(
				    &t8[(v & FWD_FIB6_G_OFF) + a[3]]);
				e[i] = v;
				pend[np++] = (uint8_t)i;
			} else {
				nh[i] = (uint16_t)v;
			}
		}
		/* one level per pass: every pending address's entry was
		 * prefetched in the pass before */
		while (np != 0) {
			unsigned nq = 0;

			for (unsigned j = 0; j < np; j++) {
				unsigned i = pend[j];
				const uint8_t *a = dst + 16 * i;
				uint32_t v = FWD_FIB6_READ_(
				    t8[(e[i] & FWD_FIB6_G_OFF) + a[k]]);

				if (v & FWD_FIB6_G_BIT) {
					__builtin_prefetch(
					    &t8[(v & FWD_FIB6_G_OFF) +
						a[k + 1]]);
					e[i] = v;
					pend[nq++] = (uint8_t)i;
				} else {
					nh[i] = (uint16_t)v;
				}
			}
			np = nq;
			k++;
		}
		dst += 16 * m;
		nh += m;
		n -= m;
	}
}
