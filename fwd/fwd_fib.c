/* fwd/fwd_fib.c: DIR-24-8 FIB with 2-byte entries; routes in a hash table, depths beside the tables. */
#include "fwd_fib_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_huge.h"

#define FIB_HUGE LC_HUGE_PAGE
/* a shared FIB's route hash: 2^23 slots at most (6.3M routes) */
#define FIB_HT_LOG2_MAX 23
/* tbl8 groups of 256 two-byte entries in a 2 MiB page */
#define FIB_GROUPS_PER_HUGE (LC_HUGE_PAGE / (FIB_GROUP_ENTRIES * 2))

/* The layout of a shared FIB (FWD_FIB_F_SHARED): its segment's regions. */
enum {
	FIB_R_TBL24,
	FIB_R_TBL24B,
	FIB_R_DEP24,
	FIB_R_TBL8,
	FIB_R_DEP8,
	FIB_R_GLONG,
	FIB_R_STATE,
	FIB_R_HT,
	FIB_R__N
};
#define FIB_SEG_KIND	0x46494234u /* "FIB4" */
#define FIB_SEG_VERSION 1u	    /* change with any layout change */

/* ---- the route table: open addressing, linear probing ---- */

static inline uint64_t
fib_key(uint32_t pfx, unsigned len)
{
	return ((uint64_t)pfx | ((uint64_t)len << 32));
}

static inline size_t
fib_home(const struct fwd_fib *fib, uint64_t key)
{
	return ((size_t)((key * 0x9e3779b97f4a7c15ull) >> fib->ht_shift));
}

void
fwd_fib_prefetch(const struct fwd_fib *fib, uint32_t pfx, unsigned len)
{
	__builtin_prefetch(&fib->ht[fib_home(fib, fib_key(pfx, len))], 0, 1);
	__builtin_prefetch(&fib->tbl24[pfx >> 8], 1, 1);
	__builtin_prefetch(&fib->dep24[pfx >> 8], 1, 1);
}

static inline unsigned
fib_e_nh(uint64_t e)
{
	return ((unsigned)(e >> 48));
}

static inline unsigned
fib_e_len(uint64_t e)
{
	return ((unsigned)(e >> 32) & 0x3f);
}

/* slot of key, or SIZE_MAX */
static size_t
fib_ht_find(const struct fwd_fib *fib, uint64_t key)
{
	size_t i = fib_home(fib, key);

	for (;;) {
		uint64_t e = fib->ht[i];

		if (!(e & FIB_E_USED))
			return (SIZE_MAX);
		if ((e & FIB_E_KEYMASK) == key)
			return (i);
		i = (i + 1) & fib->ht_mask;
	}
}

static void
fib_ht_put(struct fwd_fib *fib, uint64_t e)
{
	size_t i = fib_home(fib, e & FIB_E_KEYMASK);

	while (fib->ht[i] & FIB_E_USED)
		i = (i + 1) & fib->ht_mask;
	fib->ht[i] = e;
}

/* A shared FIB's hash has its largest capacity reserved in the segment
 * (sparse: pages cost memory once written) and uses its first 2^ht_log2
 * slots: a resize rehashes through a copy of the entries. */
static int
fib_ht_resize_shared(struct fwd_fib *fib, unsigned log2cap)
{
	size_t ocap = fib->ht_mask + 1, n = 0;
	uint64_t *tmp;

	if (log2cap > FIB_HT_LOG2_MAX)
		return (-ENOSPC);
	if ((tmp = malloc((fib->st->ht_n + 1) * sizeof(*tmp))) == NULL)
		return (-ENOMEM);
	for (size_t i = 0; i < ocap; i++)
		if (fib->ht[i] & FIB_E_USED)
			tmp[n++] = fib->ht[i];
	memset(fib->ht, 0, ocap * sizeof(uint64_t));
	fib->ht_mask = ((size_t)1 << log2cap) - 1;
	fib->ht_shift = 64 - log2cap;
	fib->st->ht_log2 = log2cap;
	for (size_t k = 0; k < n; k++)
		fib_ht_put(fib, tmp[k]);
	free(tmp);
	return (0);
}

static int
fib_ht_resize(struct fwd_fib *fib, unsigned log2cap)
{
	uint64_t *old = fib->ht, *nt;
	size_t ocap = old ? fib->ht_mask + 1 : 0, bytes, ml;
	void *omap = fib->ht_map, *base;

	if (fib->seg != NULL)
		return (fib_ht_resize_shared(fib, log2cap));

	/*
	 * Mapped (zeroed, 2 MiB aligned, huge pages where the kernel gives
	 * them): at 1M routes the table is 16 MiB probed at random, and with
	 * 4 KiB pages nearly every add and get of a batch took a TLB miss
	 * that the prefetch could not hide (fwd_fib_get was 40% of tern-fwd's
	 * CPU loading 1M routes).
	 */
	bytes = ((size_t)1 << log2cap) * sizeof(*nt);
	if ((nt = lc_huge_map(bytes, bytes >= FIB_HUGE, &ml, &base)) == NULL)
		return (-ENOMEM);
	fib->ht = nt;
	fib->ht_mask = ((size_t)1 << log2cap) - 1;
	fib->ht_shift = 64 - log2cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i] & FIB_E_USED)
			fib_ht_put(fib, old[i]);
	lc_huge_unmap(omap, fib->ht_map_len);
	fib->ht_map = base;
	fib->ht_map_len = ml;
	fib->st->ht_log2 = log2cap;
	return (0);
}

/* Room for one more route (load <= 3/4). */
static int
fib_ht_reserve(struct fwd_fib *fib)
{
	size_t cap = fib->ht_mask + 1;

	if ((fib->st->ht_n + 1) * 4 <= cap * 3)
		return (0);
	return (fib_ht_resize(fib, 64 - fib->ht_shift + 1));
}

/* Backward-shift deletion: no tombstones, probe chains stay short. */
static void
fib_ht_remove(struct fwd_fib *fib, size_t i)
{
	size_t j = i;

	for (;;) {
		uint64_t e;
		size_t k;
		bool stay;

		j = (j + 1) & fib->ht_mask;
		e = fib->ht[j];
		if (!(e & FIB_E_USED))
			break;
		k = fib_home(fib, e & FIB_E_KEYMASK);
		/* e may stay at j if its home is cyclically in (i, j] */
		stay = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stay) {
			fib->ht[i] = e;
			i = j;
		}
	}
	fib->ht[i] = 0;
}

/* ---- tbl8 groups ---- */

static inline bool
fib_is_group(const struct fwd_fib *fib, unsigned v)
{
	return (v >= fib->max_nh && v != FIB_NONE);
}

size_t
fwd_fib_reclaim(struct fwd_fib *fib)
{
	fwd_grp_poll(&fib->grp);
	return (fib->grp.n);
}

/* A tbl24 entry no longer points at group g: reuse g only after readers
 * have passed a quiescent point. The room was reserved first
 * (fwd_grp_reserve). */
static void
fib_group_defer(struct fwd_fib *fib, unsigned g)
{
	fwd_grp_defer(&fib->grp, g, fwd_qsbr_start(fib->qsbr));
}

/* A group to fill; -ENOSPC when none is free (after waiting up to 1 s for
 * groups in their grace period), -ENOMEM. */
static int
fib_group_alloc(struct fwd_fib *fib, unsigned *g)
{
	int rv;

	if ((rv = fwd_grp_reserve(&fib->grp, 1)) != 0)
		return (rv);
	if (!fwd_grp_avail(&fib->grp, 1))
		return (-ENOSPC);
	*g = fwd_grp_get(&fib->grp);
	/* a shared FIB's groups get huge pages 2 MiB at a time, as the
	 * never-used ones are taken (the last of a huge page's 4096) */
	if (fib->seg != NULL && ((*g + 1) & (FIB_GROUPS_PER_HUGE - 1)) == 0 &&
	    *g + 1 == fib->grp.hwm)
		(void)lc_seg_collapse_range(fib->seg, FIB_R_TBL8,
		    (size_t)*g * FIB_GROUP_ENTRIES * 2, 1);
	return (0);
}

/* ---- data-plane writes ---- */

/* The byte view's value for tbl24 value v (fwd_fib.h). */
static inline uint8_t
fib_byte(const struct fwd_fib *fib, unsigned v)
{
	if (v == FIB_NONE)
		return (FWD_FIB_NH_NONE);
	return ((
	    uint8_t)(v < FWD_FIB_B_ESC && v < fib->max_nh ? v : FWD_FIB_B_ESC));
}

/* tbl24 first, then the byte (both release): a reader that sees the byte
 * FWD_FIB_B_ESC finds in tbl24 what it stands for. */
static inline void
fib_store24(struct fwd_fib *fib, uint32_t i, unsigned v)
{
	__atomic_store_n(&fib->tbl24[i], (uint16_t)v, __ATOMIC_RELEASE);
	__atomic_store_n(&fib->tbl24b[i], fib_byte(fib, v), __ATOMIC_RELEASE);
}

/* Entries [lo, hi) of group g whose depth is in [dmin, dmax] get (nh, dnew). */
static void
fib_paint_group(struct fwd_fib *fib, unsigned g, unsigned lo, unsigned hi,
    unsigned dmin, unsigned dmax, unsigned nh, unsigned dnew)
{
	uint16_t *t = fib->tbl8 + ((size_t)g << 8);
	uint8_t *d = fib->dep8 + ((size_t)g << 8);

	for (unsigned e = lo; e < hi; e++) {
		if (d[e] < dmin || d[e] > dmax)
			continue;
		d[e] = (uint8_t)dnew;
		__atomic_store_n(&t[e], (uint16_t)nh, __ATOMIC_RELAXED);
	}
}

/*
 * Over the range of pfx/len (len <= 24): every /24 whose covering depth is
 * in [dmin, dmax] gets (nh, dnew), and inside a group only the entries whose
 * own depth is in [dmin, dmax] (the others belong to longer routes).
 */
static void
fib_paint24(struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned dmin,
    unsigned dmax, unsigned nh, unsigned dnew)
{
	uint32_t i = pfx >> 8, end = i + (1u << (24 - len));

	for (; i < end; i++) {
		unsigned dd = fib->dep24[i], v;

		if (dd < dmin || dd > dmax)
			continue;
		fib->dep24[i] = (uint8_t)dnew;
		v = fib->tbl24[i];
		if (fib_is_group(fib, v))
			fib_paint_group(fib, v, 0, FIB_GROUP_ENTRIES, dmin,
			    dmax, nh, dnew);
		else if (v != nh)
			fib_store24(fib, i, nh);
	}
}

/* The /24 of a new route longer than /24 gets a group, filled from its tbl24
 * entry, then published. */
static int
fib_group_make(struct fwd_fib *fib, uint32_t i, unsigned *gp)
{
	unsigned v = fib->tbl24[i], g;
	int rv;

	if (fib_is_group(fib, v)) {
		*gp = v;
		return (0);
	}
	if ((rv = fib_group_alloc(fib, &g)) != 0)
		return (rv);
	for (unsigned e = 0; e < FIB_GROUP_ENTRIES; e++)
		fib->tbl8[((size_t)g << 8) + e] = (uint16_t)v;
	memset(fib->dep8 + ((size_t)g << 8), fib->dep24[i], FIB_GROUP_ENTRIES);
	fib->glong[g] = 0;
	fib_store24(fib, i, g); /* release: the filled group first */
	*gp = g;
	return (0);
}

/* ---- updates of a shared FIB: the segment's epoch ---- */

/* Every public change inside the segment's epoch, when shared (a crash in
 * one leaves it refused by adopt; nested calls count once: lc_seg). */
static inline void
fib_upd_begin(struct fwd_fib *fib)
{
	if (fib->seg != NULL)
		lc_seg_begin(fib->seg);
}

static inline void
fib_upd_end(struct fwd_fib *fib)
{
	if (fib->seg != NULL)
		lc_seg_end(fib->seg);
}

/* ---- pinned entries ---- */

/* The martian ranges (0/8, 127/8, 224/3, as /24 numbers): NONE (tbl24's
 * value there, never painted) at a depth no route paints over. */
static void
fib_mark_martian(struct fwd_fib *fib)
{
	if (!(fib->flags & FWD_FIB_F_MARTIAN))
		return;
	memset(fib->dep24, FIB_D_PIN, 1u << 16);
	memset(fib->dep24 + (127u << 16), FIB_D_PIN, 1u << 16);
	memset(fib->dep24 + 0xe00000u, FIB_D_PIN, 0x200000u);
}

/* A route longer than /24 under a martian range: kept in the hash only. */
static inline bool
fib_pinned24(const struct fwd_fib *fib, uint32_t pfx)
{
	return (fib->dep24[pfx >> 8] == FIB_D_PIN);
}

/* The longest route shorter than len covering pfx: (*nh, *depth), or
 * (NONE, 0) when there is none. */
static void
fib_cover(const struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned *nh,
    unsigned *depth)
{
	*nh = FIB_NONE;
	*depth = 0;
	for (unsigned l = len; l-- > 0;) {
		size_t s;

		if (fib->st->len_count[l] == 0)
			continue;
		s = fib_ht_find(fib, fib_key(pfx & fib_mask(l), l));
		if (s != SIZE_MAX) {
			*nh = fib_e_nh(fib->ht[s]);
			*depth = l + 1;
			return;
		}
	}
}

static int
fib_pin_find(const struct fwd_fib *fib, uint32_t addr)
{
	for (unsigned k = 0; k < fib->st->npin; k++)
		if (fib->st->pin[k].addr == addr)
			return ((int)k);
	return (-1);
}

/* Write the pin of addr into the data plane (its /24 gets a group). */
static int
fib_pin_apply(struct fwd_fib *fib, uint32_t addr, unsigned nh, bool fresh)
{
	unsigned g, e = addr & 0xff;
	int rv;

	if ((rv = fib_group_make(fib, addr >> 8, &g)) != 0)
		return (rv);
	fib->dep8[((size_t)g << 8) + e] = (uint8_t)FIB_D_PIN;
	__atomic_store_n(&fib->tbl8[((size_t)g << 8) + e], (uint16_t)nh,
	    __ATOMIC_RELAXED);
	if (fresh)
		fib->glong[g]++;
	return (0);
}

/* ---- public ---- */

static const struct lc_seg_spec fib_seg_spec[FIB_R__N] = {
    [FIB_R_TBL24] = {"tbl24", FIB_TBL24_ENTRIES * sizeof(uint16_t), true},
    [FIB_R_TBL24B] = {"tbl24b", FIB_TBL24_ENTRIES, true},
    [FIB_R_DEP24] = {"dep24", FIB_TBL24_ENTRIES, false},
    [FIB_R_TBL8] = {"tbl8", (size_t)FIB_NGROUP_VALUES *FIB_GROUP_ENTRIES * 2,
	true},
    [FIB_R_DEP8] = {"dep8", (size_t)FIB_NGROUP_VALUES *FIB_GROUP_ENTRIES,
	false},
    [FIB_R_GLONG] = {"glong", FIB_NGROUP_VALUES * sizeof(uint16_t), false},
    [FIB_R_STATE] = {"state", sizeof(struct fib_state), false},
    [FIB_R_HT] = {"ht", ((size_t)1 << FIB_HT_LOG2_MAX) * sizeof(uint64_t),
	true},
};

/* Checks conf; the number of tbl8 groups it gives in *ng. */
static int
fib_conf_check(const struct fwd_fib_conf *conf, unsigned *ng)
{
	if (conf == NULL || conf->max_nh == 0 ||
	    conf->max_nh > FWD_FIB_MAX_NH ||
	    (conf->flags &
		~(FWD_FIB_F_NO_THP | FWD_FIB_F_NO_SIMD | FWD_FIB_F_MARTIAN |
		    FWD_FIB_F_SHARED)) != 0)
		return (-EINVAL);
	*ng = FIB_NONE - conf->max_nh;
	if (conf->max_tbl8 != 0 && conf->max_tbl8 < *ng)
		*ng = conf->max_tbl8;
	return (0);
}

/* What both new and adopt do once the tables are there. */
static int
fib_finish(struct fwd_fib *fib, const struct fwd_fib_conf *conf, unsigned ng)
{
	if (conf->qsbr != NULL) {
		fib->qsbr = conf->qsbr;
	} else {
		fib->qsbr = fwd_qsbr_new(0);
		if (fib->qsbr == NULL)
			return (-ENOMEM);
		fib->own_qsbr = true;
	}
	fwd_grp_init(&fib->grp, fib->qsbr, conf->max_nh, conf->max_nh + ng,
	    256);
	fib->dp.tbl24b = fib->tbl24b;
	fib->dp.tbl24 = fib->tbl24;
	fib->dp.tbl8 = fib->tbl8;
	fib->dp.nh_limit = conf->max_nh;
	fib->dp.g_span = FIB_NONE - conf->max_nh;
	fib->dp.simd = !(conf->flags & FWD_FIB_F_NO_SIMD) &&
	    fwd_fib_simd_supported();
	fib->dp.martian = !!(conf->flags & FWD_FIB_F_MARTIAN);
	return (0);
}

/* The tables and state as the segment's regions. */
static void
fib_seg_bind(struct fwd_fib *fib)
{
	struct lc_seg *sg = fib->seg;

	fib->tbl24 = lc_seg_region(sg, FIB_R_TBL24);
	fib->tbl24b = lc_seg_region(sg, FIB_R_TBL24B);
	fib->dep24 = lc_seg_region(sg, FIB_R_DEP24);
	fib->tbl8 = lc_seg_region(sg, FIB_R_TBL8);
	fib->dep8 = lc_seg_region(sg, FIB_R_DEP8);
	fib->glong = lc_seg_region(sg, FIB_R_GLONG);
	fib->st = lc_seg_region(sg, FIB_R_STATE);
	fib->ht = lc_seg_region(sg, FIB_R_HT);
}

/* Huge pages for the tables lookups read, where the kernel gives them
 * (lc_seg_collapse: best effort, the FIB works either way). */
static void
fib_seg_collapse(struct fwd_fib *fib)
{
	(void)lc_seg_collapse(fib->seg, FIB_R_TBL24);
	(void)lc_seg_collapse(fib->seg, FIB_R_TBL24B);
}

struct fwd_fib *
fwd_fib_new(const struct fwd_fib_conf *conf)
{
	struct fwd_fib *fib;
	struct lc_err err;
	bool thp;
	unsigned ng;
	int rv;

	if (fib_conf_check(conf, &ng) != 0) {
		errno = EINVAL;
		return (NULL);
	}
	fib = calloc(1, sizeof(*fib));
	if (fib == NULL)
		return (NULL);
	thp = !(conf->flags & FWD_FIB_F_NO_THP);
	fib->flags = conf->flags;
	fib->max_nh = conf->max_nh;
	if (conf->flags & FWD_FIB_F_SHARED) {
		if ((fib->seg = calloc(1, sizeof(*fib->seg))) == NULL ||
		    (rv = lc_seg_create(fib->seg, "tern-fwd-fib4", FIB_SEG_KIND,
			 FIB_SEG_VERSION, fib_seg_spec, FIB_R__N, &err)) != 0) {
			free(fib->seg);
			fib->seg = NULL;
			goto fail;
		}
		fib_seg_bind(fib);
		fib->ht_mask = ((size_t)1 << 10) - 1;
		fib->ht_shift = 64 - 10;
		fib->st->ht_log2 = 10;
	} else {
		fib->st = fib->st_own = calloc(1, sizeof(*fib->st));
		fib->tbl24 = lc_huge_map(FIB_TBL24_ENTRIES * sizeof(uint16_t),
		    thp, &fib->tbl24_map_len, &fib->tbl24_map);
		fib->tbl24b = lc_huge_map(FIB_TBL24_ENTRIES, thp,
		    &fib->tbl24b_map_len, &fib->tbl24b_map);
		fib->dep24 = lc_huge_map(FIB_TBL24_ENTRIES, thp,
		    &fib->dep24_map_len, &fib->dep24_map);
		/* Group values are < 0x10000: one slot per value, those below
		 * max_nh never touched, so they cost address space only. */
		fib->tbl8 = lc_huge_map((size_t)FIB_NGROUP_VALUES *
			FIB_GROUP_ENTRIES * 2,
		    thp, &fib->tbl8_map_len, &fib->tbl8_map);
		fib->dep8 = lc_huge_map((size_t)FIB_NGROUP_VALUES *
			FIB_GROUP_ENTRIES,
		    false, &fib->dep8_map_len, &fib->dep8_map);
		fib->glong = calloc(FIB_NGROUP_VALUES, sizeof(uint16_t));
		if (fib->st == NULL || fib->tbl24 == NULL ||
		    fib->tbl24b == NULL || fib->dep24 == NULL ||
		    fib->tbl8 == NULL || fib->dep8 == NULL ||
		    fib->glong == NULL || fib_ht_resize(fib, 10) != 0)
			goto fail;
	}
	fib->st->max_nh = conf->max_nh;
	fib->st->flags = conf->flags;
	fib->st->ng = ng;
	/* dep24 starts zeroed (fresh mapping); tbl24 and its byte view start
	 * NONE (0xffff and 0xff: every byte 0xff) */
	memset(fib->tbl24, 0xff, FIB_TBL24_ENTRIES * sizeof(uint16_t));
	memset(fib->tbl24b, FWD_FIB_NH_NONE, FIB_TBL24_ENTRIES);
	fib_mark_martian(fib);
	if (fib->seg != NULL)
		fib_seg_collapse(fib);
	if (fib_finish(fib, conf, ng) != 0)
		goto fail;
	return (fib);
fail:
	fwd_fib_free(fib);
	errno = ENOMEM;
	return (NULL);
}

struct fwd_fib *
fwd_fib_adopt(const struct fwd_fib_conf *conf, int fd, struct lc_err *err)
{
	struct fwd_fib *fib;
	const struct fib_state *st;
	uint32_t *used = NULL;
	size_t nused = 0;
	unsigned ng;
	int rv;

	lc_err_clear(err);
	if (fib_conf_check(conf, &ng) != 0 ||
	    !(conf->flags & FWD_FIB_F_SHARED)) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "bad FIB config");
		return (NULL);
	}
	if ((fib = calloc(1, sizeof(*fib))) == NULL ||
	    (fib->seg = calloc(1, sizeof(*fib->seg))) == NULL) {
		free(fib);
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (NULL);
	}
	fib->flags = conf->flags;
	fib->max_nh = conf->max_nh;
	if ((rv = lc_seg_adopt(fib->seg, fd, FIB_SEG_KIND, FIB_SEG_VERSION,
		 fib_seg_spec, FIB_R__N, err)) != 0) {
		free(fib->seg);
		free(fib);
		return (NULL);
	}
	fib_seg_bind(fib);
	st = fib->st;
	if (st->max_nh != conf->max_nh || st->flags != conf->flags ||
	    st->ng != ng || st->ht_log2 < 10 || st->ht_log2 > FIB_HT_LOG2_MAX ||
	    st->npin > FWD_FIB_PIN_MAX) {
		lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "a FIB of another shape (max_nh %u, flags %#x, %u groups; "
		    "this one %u, %#x, %u)",
		    st->max_nh, st->flags, st->ng, conf->max_nh, conf->flags,
		    ng);
		goto fail;
	}
	fib->ht_mask = ((size_t)1 << st->ht_log2) - 1;
	fib->ht_shift = 64 - st->ht_log2;
	fib_seg_collapse(fib);
	if (fib_finish(fib, conf, ng) != 0)
		goto nomem;
	/* The groups tbl24 links are in use; every other value is free (no
	 * reader of the old process is left to wait for). */
	if ((used = malloc((size_t)ng * sizeof(*used))) == NULL)
		goto nomem;
	for (uint32_t i = 0; i < FIB_TBL24_ENTRIES; i++) {
		unsigned v = fib->tbl24[i];

		if (!fib_is_group(fib, v))
			continue;
		if (v >= conf->max_nh + ng || nused == ng) {
			lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
			    "tbl24[%u] names group %u, beyond the %u there "
			    "are",
			    i, v, ng);
			goto fail;
		}
		used[nused++] = v;
	}
	if (fwd_grp_restore(&fib->grp, used, nused) != 0)
		goto nomem;
	/* the groups' huge pages, full ones: as fib_group_alloc makes them */
	if (fib->grp.hwm - fib->grp.first >= FIB_GROUPS_PER_HUGE)
		(void)lc_seg_collapse_range(fib->seg, FIB_R_TBL8,
		    (size_t)fib->grp.first * FIB_GROUP_ENTRIES * 2,
		    (size_t)((fib->grp.hwm & ~(FIB_GROUPS_PER_HUGE - 1)) -
			fib->grp.first) *
			FIB_GROUP_ENTRIES * 2);
	free(used);
	return (fib);
nomem:
	lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
fail:
	free(used);
	fwd_fib_free(fib);
	return (NULL);
}

int
fwd_fib_seg_fd(const struct fwd_fib *fib)
{
	return (fib->seg != NULL ? lc_seg_fd(fib->seg) : -1);
}

void
fwd_fib_free(struct fwd_fib *fib)
{
	if (fib == NULL)
		return;
	if (fib->seg != NULL) {
		lc_seg_close(fib->seg);
		free(fib->seg);
	} else {
		lc_huge_unmap(fib->tbl24_map, fib->tbl24_map_len);
		lc_huge_unmap(fib->tbl24b_map, fib->tbl24b_map_len);
		lc_huge_unmap(fib->dep24_map, fib->dep24_map_len);
		lc_huge_unmap(fib->tbl8_map, fib->tbl8_map_len);
		lc_huge_unmap(fib->dep8_map, fib->dep8_map_len);
		free(fib->glong);
		lc_huge_unmap(fib->ht_map, fib->ht_map_len);
		free(fib->st_own);
	}
	fwd_grp_fini(&fib->grp);
	if (fib->own_qsbr)
		fwd_qsbr_free(fib->qsbr);
	free(fib);
}

static int
fib_check(uint32_t pfx, unsigned len)
{
	if (len > 32 || (pfx & ~fib_mask(len)) != 0)
		return (-EINVAL);
	return (0);
}

/* nh can be a route's or a pin's next hop: below max_nh, and not the
 * lookups' "no route". */
static inline bool
fib_nh_ok(const struct fwd_fib *fib, unsigned nh)
{
	return (nh < fib->max_nh && nh != FWD_FIB_NH_NONE);
}

static int
fib_add_(struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned nh)
{
	uint64_t key;
	size_t slot;
	unsigned d = len + 1, g = 0;
	int rv;

	if (fib_check(pfx, len) != 0 || !fib_nh_ok(fib, nh))
		return (-EINVAL);
	key = fib_key(pfx, len);
	slot = fib_ht_find(fib, key);
	if (slot != SIZE_MAX) {
		/* replace: the entries this route holds get the new nh */
		uint64_t e = fib->ht[slot];

		fib->ht[slot] = (e & ~(FIB_E_STALE | (0xffffull << 48))) |
		    ((uint64_t)nh << 48);
		if (fib_e_nh(e) == nh || (len > 24 && fib_pinned24(fib, pfx)))
			return (0);
		if (len <= 24)
			fib_paint24(fib, pfx, len, d, d, nh, d);
		else
			fib_paint_group(fib, fib->tbl24[pfx >> 8], pfx & 0xff,
			    (pfx & 0xff) + (1u << (32 - len)), d, d, nh, d);
		return (0);
	}
	/* Everything that can fail, before any change. */
	if ((rv = fib_ht_reserve(fib)) != 0 ||
	    (rv = fwd_grp_reserve(&fib->grp, 1)) != 0)
		return (rv);
	fwd_grp_poll(&fib->grp);
	if (len > 24 && fib_pinned24(fib, pfx)) {
		fib_ht_put(fib, key | FIB_E_USED | ((uint64_t)nh << 48));
		fib->st->ht_n++;
		fib->st->len_count[len]++;
		return (0);
	}
	if (len > 24 && (rv = fib_group_make(fib, pfx >> 8, &g)) != 0)
		return (rv);

	fib_ht_put(fib, key | FIB_E_USED | ((uint64_t)nh << 48));
	fib->st->ht_n++;
	fib->st->len_count[len]++;
	/* the entries no longer route holds: depth <= ours */
	if (len <= 24) {
		fib_paint24(fib, pfx, len, 0, d, nh, d);
	} else {
		fib_paint_group(fib, g, pfx & 0xff,
		    (pfx & 0xff) + (1u << (32 - len)), 0, d, nh, d);
		fib->glong[g]++;
	}
	return (0);
}

int
fwd_fib_add(struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned nh)
{
	int rv;

	fib_upd_begin(fib);
	rv = fib_add_(fib, pfx, len, nh);
	fib_upd_end(fib);
	return (rv);
}

static int
fib_del_(struct fwd_fib *fib, uint32_t pfx, unsigned len)
{
	size_t slot;
	unsigned d = len + 1, cn = FIB_NONE, cd = 0;
	int rv;

	if (fib_check(pfx, len) != 0)
		return (-EINVAL);
	slot = fib_ht_find(fib, fib_key(pfx, len));
	if (slot == SIZE_MAX)
		return (-ENOENT);
	if ((rv = fwd_grp_reserve(&fib->grp, 1)) != 0)
		return (rv);
	fwd_grp_poll(&fib->grp);
	/* the covering route: the longest shorter one present */
	fib_cover(fib, pfx, len, &cn, &cd);
	fib_ht_remove(fib, slot);
	fib->st->ht_n--;
	fib->st->len_count[len]--;
	if (len > 24 && fib_pinned24(fib, pfx))
		return (0); /* under a martian range: never in the tables */
	/* Readers see the covering route's next hop from here on. */
	if (len <= 24) {
		fib_paint24(fib, pfx, len, d, d, cn, cd);
	} else {
		uint32_t i = pfx >> 8;
		unsigned g = fib->tbl24[i];

		fib_paint_group(fib, g, pfx & 0xff,
		    (pfx & 0xff) + (1u << (32 - len)), d, d, cn, cd);
		if (--fib->glong[g] == 0) {
			/* no longer route left: the group is uniform */
			fib_store24(fib, i, fib->tbl8[(size_t)g << 8]);
			fib_group_defer(fib, g);
		}
	}
	return (0);
}

int
fwd_fib_del(struct fwd_fib *fib, uint32_t pfx, unsigned len)
{
	int rv;

	fib_upd_begin(fib);
	rv = fib_del_(fib, pfx, len);
	fib_upd_end(fib);
	return (rv);
}

int
fwd_fib_get(const struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned *nh)
{
	size_t slot;

	if (fib_check(pfx, len) != 0)
		return (-EINVAL);
	slot = fib_ht_find(fib, fib_key(pfx, len));
	if (slot == SIZE_MAX)
		return (-ENOENT);
	if (nh != NULL)
		*nh = fib_e_nh(fib->ht[slot]);
	return (0);
}

size_t
fwd_fib_count(const struct fwd_fib *fib)
{
	return (fib->st->ht_n);
}

size_t
fwd_fib_tbl8_used(const struct fwd_fib *fib)
{
	return (fib->grp.inuse);
}

unsigned
fwd_fib_lookup_esc_(const struct fwd_fib_dp *dp, uint32_t dst)
{
	return (fwd_fib_esc_(dp, dst));
}

long
fwd_fib_check_bytes(const struct fwd_fib *fib)
{
	for (uint32_t i = 0; i < FIB_TBL24_ENTRIES; i++)
		if (fib->tbl24b[i] != fib_byte(fib, fib->tbl24[i]))
			return ((long)i);
	return (-1);
}

size_t
fwd_fib_memory(const struct fwd_fib *fib)
{
	/* tbl24, its byte view, dep24 */
	size_t m = (size_t)FIB_TBL24_ENTRIES * (sizeof(uint16_t) + 2);

	/* groups ever touched: entries and depths */
	m += (size_t)(fib->grp.hwm - fib->grp.first) * FIB_GROUP_ENTRIES * 3;
	m += (size_t)FIB_NGROUP_VALUES * sizeof(uint16_t); /* glong */
	m += (fib->ht_mask + 1) * sizeof(uint64_t);
	m += fwd_grp_memory(&fib->grp);
	m += sizeof(*fib);
	return (m);
}

struct fwd_qsbr *
fwd_fib_qsbr(const struct fwd_fib *fib)
{
	return (fib->qsbr);
}

int
fwd_fib_walk(const struct fwd_fib *fib,
    int (*cb)(uint32_t pfx, unsigned len, unsigned nh, void *arg), void *arg)
{
	for (size_t i = 0; i <= fib->ht_mask; i++) {
		uint64_t e = fib->ht[i];
		int rv;

		if (!(e & FIB_E_USED))
			continue;
		if ((rv = cb((uint32_t)e, fib_e_len(e), fib_e_nh(e), arg)) != 0)
			return (rv);
	}
	return (0);
}

static void
fib_clear_(struct fwd_fib *fib)
{
	for (uint32_t i = 0; i < FIB_TBL24_ENTRIES; i++) {
		unsigned old = fib->tbl24[i];

		if (old == FIB_NONE)
			continue;
		fib_store24(fib, i, FIB_NONE);
		if (fib_is_group(fib, old)) {
			/* on ENOMEM the group leaks until fwd_fib_free */
			if (fwd_grp_reserve(&fib->grp, 1) == 0)
				fib_group_defer(fib, old);
			else
				fib->grp.inuse--;
		}
	}
	memset(fib->dep24, 0, FIB_TBL24_ENTRIES);
	memset(fib->ht, 0, (fib->ht_mask + 1) * sizeof(uint64_t));
	fib->st->ht_n = 0;
	memset(fib->st->len_count, 0, sizeof(fib->st->len_count));
	fwd_grp_poll(&fib->grp);
	/* what is not a route comes back: martian ranges, pins (a pin whose
	 * group cannot be had now, which the groups just freed make all but
	 * impossible, is dropped) */
	fib_mark_martian(fib);
	for (unsigned k = 0; k < fib->st->npin;) {
		if (fib_pin_apply(fib, fib->st->pin[k].addr, fib->st->pin[k].nh,
			true) != 0)
			fib->st->pin[k] = fib->st->pin[--fib->st->npin];
		else
			k++;
	}
}

void
fwd_fib_clear(struct fwd_fib *fib)
{
	fib_upd_begin(fib);
	fib_clear_(fib);
	fib_upd_end(fib);
}

static int
fib_pin_(struct fwd_fib *fib, uint32_t addr, unsigned nh)
{
	int k = fib_pin_find(fib, addr), rv;

	if (!fib_nh_ok(fib, nh) || fib_pinned24(fib, addr))
		return (-EINVAL);
	if (k >= 0) {
		if ((rv = fib_pin_apply(fib, addr, nh, false)) != 0)
			return (rv);
		fib->st->pin[k].nh = (uint16_t)nh;
		return (0);
	}
	if (fib->st->npin >= FWD_FIB_PIN_MAX)
		return (-ENOSPC);
	if ((rv = fib_pin_apply(fib, addr, nh, true)) != 0)
		return (rv);
	fib->st->pin[fib->st->npin].addr = addr;
	fib->st->pin[fib->st->npin].nh = (uint16_t)nh;
	fib->st->npin++;
	return (0);
}

int
fwd_fib_pin(struct fwd_fib *fib, uint32_t addr, unsigned nh)
{
	int rv;

	fib_upd_begin(fib);
	rv = fib_pin_(fib, addr, nh);
	fib_upd_end(fib);
	return (rv);
}

static int
fib_unpin_(struct fwd_fib *fib, uint32_t addr)
{
	int k = fib_pin_find(fib, addr), rv;
	unsigned cn, cd, g, e = addr & 0xff;

	if (k < 0)
		return (-ENOENT);
	if ((rv = fwd_grp_reserve(&fib->grp, 1)) != 0)
		return (rv);
	/* the address goes back to its longest route, the /32 included */
	fib_cover(fib, addr, 33, &cn, &cd);
	g = fib->tbl24[addr >> 8];
	fib->dep8[((size_t)g << 8) + e] = (uint8_t)cd;
	__atomic_store_n(&fib->tbl8[((size_t)g << 8) + e], (uint16_t)cn,
	    __ATOMIC_RELAXED);
	if (--fib->glong[g] == 0) {
		fib_store24(fib, addr >> 8, fib->tbl8[(size_t)g << 8]);
		fib_group_defer(fib, g);
	}
	fib->st->pin[k] = fib->st->pin[--fib->st->npin];
	return (0);
}

int
fwd_fib_unpin(struct fwd_fib *fib, uint32_t addr)
{
	int rv;

	fib_upd_begin(fib);
	rv = fib_unpin_(fib, addr);
	fib_upd_end(fib);
	return (rv);
}

int
fwd_fib_pin_get(const struct fwd_fib *fib, uint32_t addr, unsigned *nh)
{
	int k = fib_pin_find(fib, addr);

	if (k < 0)
		return (-ENOENT);
	if (nh != NULL)
		*nh = fib->st->pin[k].nh;
	return (0);
}

static void
fib_mark_stale_(struct fwd_fib *fib)
{
	for (size_t i = 0; i <= fib->ht_mask; i++)
		if (fib->ht[i] & FIB_E_USED)
			fib->ht[i] |= FIB_E_STALE;
}

void
fwd_fib_mark_stale(struct fwd_fib *fib)
{
	fib_upd_begin(fib);
	fib_mark_stale_(fib);
	fib_upd_end(fib);
}

static size_t
fib_sweep_stale_(struct fwd_fib *fib)
{
	uint64_t *keys = NULL;
	size_t n = 0, cap = 0, done = 0;

	for (size_t i = 0; i <= fib->ht_mask; i++) {
		uint64_t e = fib->ht[i];

		if (!(e & FIB_E_USED) || !(e & FIB_E_STALE))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			uint64_t *nk = realloc(keys, nc * sizeof(*nk));

			if (nk == NULL)
				break; /* sweep what we have; call again */
			keys = nk;
			cap = nc;
		}
		keys[n++] = e & FIB_E_KEYMASK;
	}
	for (size_t k = 0; k < n; k++)
		if (fwd_fib_del(fib, (uint32_t)keys[k],
			(unsigned)(keys[k] >> 32)) == 0)
			done++;
	free(keys);
	return (done);
}

size_t
fwd_fib_sweep_stale(struct fwd_fib *fib)
{
	size_t rv;

	fib_upd_begin(fib);
	rv = fib_sweep_stale_(fib);
	fib_upd_end(fib);
	return (rv);
}
