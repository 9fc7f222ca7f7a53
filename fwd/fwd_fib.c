/* fwd/fwd_fib.c: DIR-24-8 FIB with 2-byte entries, driven by a control trie. */
#include "fwd_fib_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FIB_HUGE (2u << 20)

/* ---- memory ---- */

static void *
fib_map(size_t len, bool thp, size_t *maplen, void **mapbase)
{
	/* Over-reserve by one huge page so the table can start 2 MiB aligned:
	 * with transparent huge pages, random lookups take far fewer TLB
	 * misses. MAP_NORESERVE: untouched pages cost nothing. */
	size_t ml = len + (thp ? FIB_HUGE : 0);
	uint8_t *p = mmap(NULL, ml, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *a;

	if (p == MAP_FAILED)
		return (NULL);
	a = p;
	if (thp) {
		a = (uint8_t *)(((uintptr_t)p + FIB_HUGE - 1) &
		    ~(uintptr_t)(FIB_HUGE - 1));
#ifdef MADV_HUGEPAGE
		(void)madvise(a, len, MADV_HUGEPAGE);
#endif
	}
	*maplen = ml;
	*mapbase = p;
	return (a);
}

/* ---- trie nodes ---- */

static uint32_t
fib_node_alloc(struct fwd_fib *fib)
{
	uint32_t i;

	if (fib->n_free != 0) {
		i = fib->n_free;
		fib->n_free = fib_node(fib, i)->child[0];
		return (i);
	}
	if ((fib->n_next >> FIB_CHUNK_SHIFT) >= fib->nchunks) {
		struct fib_node *c;

		if (fib->n_next == UINT32_MAX)
			return (0);
		if (fib->nchunks == fib->chunk_cap) {
			unsigned nc = fib->chunk_cap ? fib->chunk_cap * 2 : 64;
			struct fib_node **cp = realloc(fib->chunk,
			    nc * sizeof(*cp));

			if (cp == NULL)
				return (0);
			fib->chunk = cp;
			fib->chunk_cap = nc;
		}
		c = malloc(FIB_CHUNK_NODES * sizeof(*c));
		if (c == NULL)
			return (0);
		fib->chunk[fib->nchunks++] = c;
	}
	return (fib->n_next++);
}

static void
fib_node_put(struct fwd_fib *fib, uint32_t i)
{
	fib_node(fib, i)->child[0] = fib->n_free;
	fib->n_free = i;
}

static uint32_t
fib_node_new(struct fwd_fib *fib, uint32_t pfx, unsigned len)
{
	uint32_t i = fib_node_alloc(fib);
	struct fib_node *n;

	if (i == 0)
		return (0);
	n = fib_node(fib, i);
	n->pfx = pfx;
	n->len = (uint8_t)len;
	n->flags = 0;
	n->nh = 0;
	n->child[0] = n->child[1] = 0;
	return (i);
}

/* ---- tbl8 groups ---- */

static inline bool
fib_is_group(const struct fwd_fib *fib, unsigned v)
{
	return (v >= fib->max_nh && v != FIB_NONE_GROUP);
}

/* Move groups whose grace period ended to the free stack. */
static void
fib_reclaim_poll(struct fwd_fib *fib)
{
	while (fib->pend_n != 0) {
		struct fib_pending *p = &fib->pend[fib->pend_head];

		if (!fwd_qsbr_check(fib->qsbr, p->tok))
			break;
		/* the free stack was sized when the group was deferred */
		fib->g_free[fib->g_nfree++] = p->g;
		fib->pend_head = (fib->pend_head + 1) % fib->pend_cap;
		fib->pend_n--;
	}
}

size_t
fwd_fib_reclaim(struct fwd_fib *fib)
{
	fib_reclaim_poll(fib);
	return (fib->pend_n);
}

/* A tbl24 entry no longer points at group g: reuse g only after readers have
 * passed a quiescent point. Never fails: both arrays are reserved first. */
static int
fib_group_reserve_defer(struct fwd_fib *fib)
{
	unsigned need = fib->g_nfree + fib->pend_n + 1;

	if (need > fib->g_free_cap) {
		unsigned nc = fib->g_free_cap ? fib->g_free_cap * 2 : 256;
		uint32_t *nv;

		while (nc < need)
			nc *= 2;
		nv = realloc(fib->g_free, nc * sizeof(*nv));
		if (nv == NULL)
			return (-ENOMEM);
		fib->g_free = nv;
		fib->g_free_cap = nc;
	}
	if (fib->pend_n == fib->pend_cap) {
		unsigned nc = fib->pend_cap ? fib->pend_cap * 2 : 256;
		struct fib_pending *np = malloc(nc * sizeof(*np));

		if (np == NULL)
			return (-ENOMEM);
		for (unsigned k = 0; k < fib->pend_n; k++)
			np[k] = fib->pend[(fib->pend_head + k) % fib->pend_cap];
		free(fib->pend);
		fib->pend = np;
		fib->pend_head = 0;
		fib->pend_cap = nc;
	}
	return (0);
}

static void
fib_group_defer(struct fwd_fib *fib, unsigned g)
{
	struct fib_pending *p;

	p = &fib->pend[(fib->pend_head + fib->pend_n) % fib->pend_cap];
	p->g = g;
	p->tok = fwd_qsbr_start(fib->qsbr);
	fib->pend_n++;
	fib->g_inuse--;
}

/* A group to fill; -ENOSPC when none is free (after waiting up to 1 s for
 * groups in their grace period), -ENOMEM. */
static int
fib_group_alloc(struct fwd_fib *fib, unsigned *g)
{
	int rv;

	if ((rv = fib_group_reserve_defer(fib)) != 0)
		return (rv);
	fib_reclaim_poll(fib);
	if (fib->g_nfree == 0 && fib->g_hwm >= fib->g_end) {
		if (fib->pend_n == 0)
			return (-ENOSPC);
		if (fwd_qsbr_wait(fib->qsbr, fib->pend[fib->pend_head].tok,
		    1000000000u) != 0)
			return (-ENOSPC);
		fib_reclaim_poll(fib);
	}
	if (fib->g_nfree != 0)
		*g = fib->g_free[--fib->g_nfree];
	else
		*g = fib->g_hwm++;
	fib->g_inuse++;
	return (0);
}

/* ---- data-plane writes ---- */

static inline void
fib_store24(struct fwd_fib *fib, uint32_t i, unsigned v)
{
	__atomic_store_n(&fib->tbl24[i], (uint16_t)v, __ATOMIC_RELEASE);
}

/* Set tbl24 entries [i, j) to v (a next hop or NONE), freeing any group. */
static void
fib_paint24(struct fwd_fib *fib, uint32_t i, uint32_t j, unsigned v)
{
	for (; i < j; i++) {
		unsigned old = fib->tbl24[i];

		if (old == v)
			continue;
		fib_store24(fib, i, v);
		if (fib_is_group(fib, old))
			fib_group_defer(fib, old);
	}
}

/* Set addresses [a, b) inside /24 number i to v; the /24 has a group. */
static void
fib_paint8(struct fwd_fib *fib, uint32_t i, unsigned lo, unsigned hi,
    unsigned v)
{
	unsigned g = fib->tbl24[i];
	uint16_t *e = fib->tbl8 + ((size_t)g << 8);

	for (unsigned k = lo; k < hi; k++)
		__atomic_store_n(&e[k], (uint16_t)v, __ATOMIC_RELAXED);
}

/* Set addresses [a, b) (b may be 2^32) to v. Full /24 blocks go to tbl24;
 * partial blocks hold a route longer than /24, so they have a group. */
static void
fib_paint_range(struct fwd_fib *fib, uint64_t a, uint64_t b, unsigned v)
{
	while (a < b) {
		uint32_t i = (uint32_t)(a >> 8);

		if ((a & 0xff) == 0 && b - a >= 256) {
			uint32_t j = (uint32_t)(b >> 8);

			fib_paint24(fib, i, j, v);
			a = (uint64_t)j << 8;
		} else {
			unsigned lo = (unsigned)(a & 0xff);
			uint64_t hi = b - ((uint64_t)i << 8);

			if (hi > 256)
				hi = 256;
			fib_paint8(fib, i, lo, (unsigned)hi, v);
			a = ((uint64_t)i << 8) + hi;
		}
	}
}

struct fib_painter {
	uint64_t cursor;
	unsigned v;
};

static void
fib_paint_dfs(struct fwd_fib *fib, uint32_t ci, struct fib_painter *pt)
{
	const struct fib_node *c;

	if (ci == 0)
		return;
	c = fib_node(fib, ci);
	if (c->flags & FIB_N_ROUTE) {
		fib_paint_range(fib, pt->cursor, c->pfx, pt->v);
		pt->cursor = (uint64_t)c->pfx + ((uint64_t)1 << (32 - c->len));
		return;
	}
	fib_paint_dfs(fib, c->child[0], pt);
	fib_paint_dfs(fib, c->child[1], pt);
}

/* Write v for the addresses of node n's prefix that no longer-prefix route
 * below n covers. */
static void
fib_paint_node(struct fwd_fib *fib, const struct fib_node *n, unsigned v)
{
	struct fib_painter pt = { .cursor = n->pfx, .v = v };

	fib_paint_dfs(fib, n->child[0], &pt);
	fib_paint_dfs(fib, n->child[1], &pt);
	fib_paint_range(fib, pt.cursor,
	    (uint64_t)n->pfx + ((uint64_t)1 << (32 - n->len)), v);
}

/* ---- trie search ---- */

/* Does any route longer than /24 lie inside /24 number i? */
static bool
fib_has_long(const struct fwd_fib *fib, uint32_t i)
{
	uint32_t a = i << 8, ni = fib->root;

	while (ni != 0) {
		const struct fib_node *n = fib_node(fib, ni);
		unsigned m = n->len < 24 ? n->len : 24;

		if (((n->pfx ^ a) & fib_mask(m)) != 0)
			return (false);
		if (n->len > 24)
			return (true);	/* a route or a branch above routes */
		if (n->len == 24)
			return (n->child[0] != 0 || n->child[1] != 0);
		ni = n->child[fib_bit(a, n->len)];
	}
	return (false);
}

static inline unsigned
fib_common(uint32_t a, uint32_t b, unsigned max)
{
	uint32_t x = a ^ b;
	unsigned c = x == 0 ? 32 : (unsigned)__builtin_clz(x);

	return (c < max ? c : max);
}

/* Find pfx/len; with cover, the nearest shorter route above it (0 if none). */
static uint32_t
fib_find(const struct fwd_fib *fib, uint32_t pfx, unsigned len,
    uint32_t *cover)
{
	uint32_t ni = fib->root, cv = 0;

	while (ni != 0) {
		const struct fib_node *n = fib_node(fib, ni);

		if (n->len > len || ((n->pfx ^ pfx) & fib_mask(n->len)) != 0)
			break;
		if (n->len == len) {
			if (cover != NULL)
				*cover = cv;
			return (ni);
		}
		if (n->flags & FIB_N_ROUTE)
			cv = ni;
		ni = n->child[fib_bit(pfx, n->len)];
	}
	if (cover != NULL)
		*cover = cv;
	return (0);
}

/* ---- public ---- */

struct fwd_fib *
fwd_fib_new(const struct fwd_fib_conf *conf)
{
	struct fwd_fib *fib;
	bool thp;
	void *base;
	size_t ml;
	unsigned ng;

	if (conf == NULL || conf->max_nh == 0 || conf->max_nh > FWD_FIB_MAX_NH ||
	    (conf->flags & ~FWD_FIB_F_NO_THP) != 0) {
		errno = EINVAL;
		return (NULL);
	}
	fib = calloc(1, sizeof(*fib));
	if (fib == NULL)
		return (NULL);
	thp = !(conf->flags & FWD_FIB_F_NO_THP);
	fib->flags = conf->flags;
	fib->max_nh = conf->max_nh;
	fib->tbl24 = fib_map(FIB_TBL24_ENTRIES * sizeof(uint16_t), thp, &ml,
	    &base);
	if (fib->tbl24 == NULL)
		goto fail;
	fib->tbl24_map = base;
	fib->tbl24_map_len = ml;
	/* Group values are < 0x10000, so 2^16 groups of 512 bytes cover every
	 * value; groups below max_nh are never touched. */
	fib->tbl8 = mmap(NULL, (size_t)0x10000 * FIB_GROUP_ENTRIES * 2,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	    -1, 0);
	if (fib->tbl8 == MAP_FAILED) {
		fib->tbl8 = NULL;
		goto fail;
	}
	fib->tbl8_map_len = (size_t)0x10000 * FIB_GROUP_ENTRIES * 2;
#ifdef MADV_HUGEPAGE
	if (thp)
		(void)madvise(fib->tbl8, fib->tbl8_map_len, MADV_HUGEPAGE);
#endif
	ng = FIB_NONE_GROUP - conf->max_nh;
	if (conf->max_tbl8 != 0 && conf->max_tbl8 < ng)
		ng = conf->max_tbl8;
	fib->g_first = fib->g_hwm = conf->max_nh;
	fib->g_end = conf->max_nh + ng;
	for (uint32_t i = 0; i < FIB_TBL24_ENTRIES; i++)
		fib->tbl24[i] = FWD_FIB_NH_NONE;
	fib->n_next = 1;
	if (conf->qsbr != NULL) {
		fib->qsbr = conf->qsbr;
	} else {
		fib->qsbr = fwd_qsbr_new(0);
		if (fib->qsbr == NULL)
			goto fail;
		fib->own_qsbr = true;
	}
	fib->dp.tbl24 = fib->tbl24;
	fib->dp.tbl8 = fib->tbl8;
	fib->dp.nh_limit = conf->max_nh;
	fib->dp.g_span = FIB_NONE_GROUP - conf->max_nh;
	return (fib);
fail:
	fwd_fib_free(fib);
	errno = ENOMEM;
	return (NULL);
}

void
fwd_fib_free(struct fwd_fib *fib)
{
	if (fib == NULL)
		return;
	if (fib->tbl24_map != NULL)
		munmap(fib->tbl24_map, fib->tbl24_map_len);
	if (fib->tbl8 != NULL)
		munmap(fib->tbl8, fib->tbl8_map_len);
	for (unsigned c = 0; c < fib->nchunks; c++)
		free(fib->chunk[c]);
	free(fib->chunk);
	free(fib->g_free);
	free(fib->pend);
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

int
fwd_fib_add(struct fwd_fib *fib, uint32_t pfx, unsigned len, unsigned nh)
{
	uint32_t *link = &fib->root, ti, bi = 0;
	struct fib_node *t;
	unsigned g = 0;
	bool created = false;
	int rv;

	if (fib_check(pfx, len) != 0 || nh >= fib->max_nh)
		return (-EINVAL);
	/* Reserve what can fail before changing anything. */
	if ((rv = fib_group_reserve_defer(fib)) != 0)
		return (rv);
	fib_reclaim_poll(fib);

	/* Find or insert the node. */
	for (;;) {
		struct fib_node *n;
		unsigned cl;

		if (*link == 0) {
			if ((ti = fib_node_new(fib, pfx, len)) == 0)
				return (-ENOMEM);
			*link = ti;
			created = true;
			break;
		}
		n = fib_node(fib, *link);
		cl = fib_common(pfx, n->pfx, n->len < len ? n->len : len);
		if (cl == n->len && cl == len) {
			ti = *link;
			break;
		}
		if (cl == n->len) {
			link = &n->child[fib_bit(pfx, n->len)];
			continue;
		}
		if (cl == len) {
			/* the new prefix sits above n */
			if ((ti = fib_node_new(fib, pfx, len)) == 0)
				return (-ENOMEM);
			t = fib_node(fib, ti);
			t->child[fib_bit(n->pfx, len)] = *link;
			*link = ti;
			created = true;
			break;
		}
		/* diverge at bit cl: a branch node holding both */
		if ((bi = fib_node_new(fib, pfx & fib_mask(cl), cl)) == 0)
			return (-ENOMEM);
		if ((ti = fib_node_new(fib, pfx, len)) == 0) {
			fib_node_put(fib, bi);
			return (-ENOMEM);
		}
		{
			struct fib_node *b = fib_node(fib, bi);

			b->child[fib_bit(pfx, cl)] = ti;
			b->child[!fib_bit(pfx, cl)] = *link;
		}
		*link = bi;
		created = true;
		break;
	}
	t = fib_node(fib, ti);

	/* A route longer than /24 needs its /24 to have a group. */
	if (len > 24) {
		uint32_t i = pfx >> 8;
		unsigned old = fib->tbl24[i];

		if (!fib_is_group(fib, old)) {
			if ((rv = fib_group_alloc(fib, &g)) != 0)
				goto undo;
			uint16_t *e = fib->tbl8 + ((size_t)g << 8);

			for (unsigned k = 0; k < FIB_GROUP_ENTRIES; k++)
				e[k] = (uint16_t)old;
			/* publish the filled group */
			fib_store24(fib, i, g);
		}
	}
	if ((t->flags & FIB_N_ROUTE) && t->nh == nh) {
		t->flags &= ~FIB_N_STALE;
		return (0);
	}
	if (!(t->flags & FIB_N_ROUTE))
		fib->nroutes++;
	t->flags = FIB_N_ROUTE;
	t->nh = (uint16_t)nh;
	fib_paint_node(fib, t, nh);
	return (0);

undo:
	if (created) {
		/* take the new node out again; no data-plane state changed */
		struct fib_node *b = bi ? fib_node(fib, bi) : NULL;

		if (b != NULL) {
			*link = b->child[!fib_bit(pfx, b->len)];
			fib_node_put(fib, bi);
		} else {
			*link = t->child[0] ? t->child[0] : t->child[1];
		}
		fib_node_put(fib, ti);
	}
	return (rv);
}

int
fwd_fib_del(struct fwd_fib *fib, uint32_t pfx, unsigned len)
{
	uint32_t *link = &fib->root, *plink = NULL, ni, cover = 0;
	struct fib_node *n, *p = NULL;
	unsigned cv;
	int rv;

	if (fib_check(pfx, len) != 0)
		return (-EINVAL);
	/* Find with the links to the node and its parent. */
	for (;;) {
		if (*link == 0)
			return (-ENOENT);
		n = fib_node(fib, *link);
		if (n->len > len || ((n->pfx ^ pfx) & fib_mask(n->len)) != 0)
			return (-ENOENT);
		if (n->len == len)
			break;
		if (n->flags & FIB_N_ROUTE)
			cover = *link;
		plink = link;
		p = n;
		link = &n->child[fib_bit(pfx, n->len)];
	}
	if (!(n->flags & FIB_N_ROUTE))
		return (-ENOENT);
	if ((rv = fib_group_reserve_defer(fib)) != 0)
		return (rv);
	fib_reclaim_poll(fib);

	cv = cover ? fib_node(fib, cover)->nh : FWD_FIB_NH_NONE;
	/* Readers see the covering route's next hop from here on. */
	fib_paint_node(fib, n, cv);
	n->flags = 0;
	fib->nroutes--;

	/* Unlink. */
	ni = *link;
	if (n->child[0] != 0 && n->child[1] != 0) {
		/* stays as a branch point */
	} else if (n->child[0] != 0 || n->child[1] != 0) {
		*link = n->child[0] ? n->child[0] : n->child[1];
		fib_node_put(fib, ni);
	} else {
		*link = 0;
		fib_node_put(fib, ni);
		if (p != NULL && !(p->flags & FIB_N_ROUTE)) {
			uint32_t pi = *plink;

			*plink = p->child[0] ? p->child[0] : p->child[1];
			fib_node_put(fib, pi);
		}
	}

	/* The last route longer than /24 in its /24 gone: one tbl24 entry. */
	if (len > 24 && !fib_has_long(fib, pfx >> 8)) {
		uint32_t i = pfx >> 8;
		unsigned g = fib->tbl24[i];

		if (fib_is_group(fib, g)) {
			fib_store24(fib, i, fib->tbl8[((size_t)g << 8)]);
			fib_group_defer(fib, g);
		}
	}
	return (0);
}

int
fwd_fib_get(const struct fwd_fib *fib, uint32_t pfx, unsigned len,
    unsigned *nh)
{
	uint32_t ni;
	const struct fib_node *n;

	if (fib_check(pfx, len) != 0)
		return (-EINVAL);
	ni = fib_find(fib, pfx, len, NULL);
	if (ni == 0)
		return (-ENOENT);
	n = fib_node(fib, ni);
	if (!(n->flags & FIB_N_ROUTE) || n->pfx != pfx)
		return (-ENOENT);
	if (nh != NULL)
		*nh = n->nh;
	return (0);
}

size_t
fwd_fib_count(const struct fwd_fib *fib)
{
	return (fib->nroutes);
}

size_t
fwd_fib_tbl8_used(const struct fwd_fib *fib)
{
	return (fib->g_inuse);
}

size_t
fwd_fib_memory(const struct fwd_fib *fib)
{
	size_t m = (size_t)FIB_TBL24_ENTRIES * sizeof(uint16_t);

	/* groups ever touched */
	m += (size_t)(fib->g_hwm - fib->g_first) * FIB_GROUP_ENTRIES *
	    sizeof(uint16_t);
	m += (size_t)fib->nchunks * FIB_CHUNK_NODES * sizeof(struct fib_node);
	m += (size_t)fib->chunk_cap * sizeof(fib->chunk[0]);
	m += (size_t)fib->g_free_cap * sizeof(fib->g_free[0]);
	m += (size_t)fib->pend_cap * sizeof(fib->pend[0]);
	m += sizeof(*fib);
	return (m);
}

struct fwd_qsbr *
fwd_fib_qsbr(const struct fwd_fib *fib)
{
	return (fib->qsbr);
}

static int
fib_walk_rec(const struct fwd_fib *fib, uint32_t ni,
    int (*cb)(uint32_t, unsigned, unsigned, void *), void *arg)
{
	const struct fib_node *n;
	int rv;

	while (ni != 0) {
		n = fib_node(fib, ni);
		if ((n->flags & FIB_N_ROUTE) &&
		    (rv = cb(n->pfx, n->len, n->nh, arg)) != 0)
			return (rv);
		if ((rv = fib_walk_rec(fib, n->child[0], cb, arg)) != 0)
			return (rv);
		ni = n->child[1];	/* tail */
	}
	return (0);
}

int
fwd_fib_walk(const struct fwd_fib *fib,
    int (*cb)(uint32_t pfx, unsigned len, unsigned nh, void *arg), void *arg)
{
	return (fib_walk_rec(fib, fib->root, cb, arg));
}

void
fwd_fib_clear(struct fwd_fib *fib)
{
	for (uint32_t i = 0; i < FIB_TBL24_ENTRIES; i++) {
		unsigned old = fib->tbl24[i];

		if (old == FWD_FIB_NH_NONE)
			continue;
		fib_store24(fib, i, FWD_FIB_NH_NONE);
		if (fib_is_group(fib, old)) {
			/* reserve cannot fail to matter here: on ENOMEM the
			 * group leaks until fwd_fib_free */
			if (fib_group_reserve_defer(fib) == 0)
				fib_group_defer(fib, old);
			else
				fib->g_inuse--;
		}
	}
	/* Keep the chunks; chain every used node onto the free list. */
	fib->n_free = 0;
	for (uint32_t i = fib->n_next; i-- > 1;)
		fib_node_put(fib, i);
	fib->root = 0;
	fib->nroutes = 0;
	fib_reclaim_poll(fib);
}

void
fwd_fib_mark_stale(struct fwd_fib *fib)
{
	/* Every node slot: free ones are never read as routes (flags are
	 * reset on allocation), so marking them too is harmless. */
	for (uint32_t i = 1; i < fib->n_next; i++) {
		struct fib_node *n = fib_node(fib, i);

		if (n->flags & FIB_N_ROUTE)
			n->flags |= FIB_N_STALE;
	}
}

struct fib_stale_vec {
	uint32_t *pfx;
	uint8_t *len;
	size_t n, cap;
	int err;
};

static void
fib_stale_collect(const struct fwd_fib *fib, uint32_t ni,
    struct fib_stale_vec *v)
{
	while (ni != 0 && v->err == 0) {
		const struct fib_node *n = fib_node(fib, ni);

		if ((n->flags & (FIB_N_ROUTE | FIB_N_STALE)) ==
		    (FIB_N_ROUTE | FIB_N_STALE)) {
			if (v->n == v->cap) {
				size_t nc = v->cap ? v->cap * 2 : 1024;
				uint32_t *np = realloc(v->pfx,
				    nc * sizeof(*np));
				uint8_t *nl;

				if (np == NULL) {
					v->err = -ENOMEM;
					return;
				}
				v->pfx = np;
				nl = realloc(v->len, nc);
				if (nl == NULL) {
					v->err = -ENOMEM;
					return;
				}
				v->len = nl;
				v->cap = nc;
			}
			v->pfx[v->n] = n->pfx;
			v->len[v->n++] = n->len;
		}
		fib_stale_collect(fib, n->child[0], v);
		ni = n->child[1];
	}
}

size_t
fwd_fib_sweep_stale(struct fwd_fib *fib)
{
	struct fib_stale_vec v = { 0 };
	size_t done = 0;

	fib_stale_collect(fib, fib->root, &v);
	/* Longest first: each delete then rewrites only its own range. On
	 * ENOMEM collecting, what was collected is swept; call again. */
	for (size_t k = v.n; k-- > 0;)
		if (fwd_fib_del(fib, v.pfx[k], v.len[k]) == 0)
			done++;
	free(v.pfx);
	free(v.len);
	return (done);
}
