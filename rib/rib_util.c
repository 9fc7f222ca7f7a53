/* rib/rib_util.c: index pools, u32 vectors, interned-object tables and error messages for the RIB. */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rib_int.h"

/* ---- index pool ---------------------------------------------------------- */

void
rib_ipool_init(struct rib_ipool *p, size_t esz)
{
	memset(p, 0, sizeof(*p));
	p->esz = esz;
	p->hwm = 1; /* index 0 is RIB_NIL */
}

void
rib_ipool_fini(struct rib_ipool *p)
{
	for (uint32_t i = 0; i < p->nslab; i++) {
		free(p->slab[i]);
		free(p->used[i]);
	}
	free(p->slab);
	free(p->used);
	memset(p, 0, sizeof(*p));
}

static int
rib_ipool_grow(struct rib_ipool *p)
{
	if (p->nslab == p->capslab) {
		uint32_t nc = p->capslab ? p->capslab * 2 : 8;
		char **ns;
		uint64_t **nu;

		if (nc > (1u << (32 - RIB_SLAB_SHIFT)))
			return (-ENOMEM);
		if ((ns = realloc(p->slab, nc * sizeof(*ns))) == NULL)
			return (-ENOMEM);
		p->slab = ns;
		if ((nu = realloc(p->used, nc * sizeof(*nu))) == NULL)
			return (-ENOMEM);
		p->used = nu;
		p->capslab = nc;
	}
	/* malloc, not calloc: pages are touched only as elements are used */
	if ((p->slab[p->nslab] = malloc(RIB_SLAB_SIZE * p->esz)) == NULL)
		return (-ENOMEM);
	if ((p->used[p->nslab] = calloc(RIB_SLAB_SIZE / 64,
		 sizeof(uint64_t))) == NULL) {
		free(p->slab[p->nslab]);
		return (-ENOMEM);
	}
	p->nslab++;
	return (0);
}

int
rib_ipool_reserve(struct rib_ipool *p, size_t n)
{
	size_t freecnt = (size_t)p->nslab * RIB_SLAB_SIZE - p->hwm;
	int rv;

	/* free-list entries are available too, but counting them costs a
	 * walk; reserving for the never-used space is enough */
	while (freecnt + (p->hwm - 1 - p->inuse) < n) {
		if ((rv = rib_ipool_grow(p)) != 0)
			return (rv);
		freecnt += RIB_SLAB_SIZE;
	}
	return (0);
}

uint32_t
rib_ipool_get(struct rib_ipool *p)
{
	uint32_t i;

	if (p->free_head != RIB_NIL) {
		i = p->free_head;
		memcpy(&p->free_head, rib_ipool_at(p, i), sizeof(uint32_t));
	} else {
		if (p->hwm >= (uint64_t)p->nslab * RIB_SLAB_SIZE &&
		    rib_ipool_grow(p) != 0)
			return (RIB_NIL);
		i = p->hwm++;
	}
	memset(rib_ipool_at(p, i), 0, p->esz);
	p->used[i >> RIB_SLAB_SHIFT][(i & RIB_SLAB_MASK) >> 6] |= 1ULL
	    << (i & 63);
	p->inuse++;
	return (i);
}

void
rib_ipool_put(struct rib_ipool *p, uint32_t i)
{
	p->used[i >> RIB_SLAB_SHIFT][(i & RIB_SLAB_MASK) >> 6] &= ~(
	    1ULL << (i & 63));
	memcpy(rib_ipool_at(p, i), &p->free_head, sizeof(uint32_t));
	p->free_head = i;
	p->inuse--;
}

uint32_t
rib_ipool_next(const struct rib_ipool *p, uint32_t i)
{
	for (i++; i < p->hwm;) {
		uint64_t w =
		    p->used[i >> RIB_SLAB_SHIFT][(i & RIB_SLAB_MASK) >> 6] >>
		    (i & 63);

		if (w != 0)
			return (i + (uint32_t)__builtin_ctzll(w));
		i = (i | 63) + 1;
	}
	return (RIB_NIL);
}

size_t
rib_ipool_bytes(const struct rib_ipool *p)
{
	size_t b = malloc_usable_size(p->slab) + malloc_usable_size(p->used);

	for (uint32_t i = 0; i < p->nslab; i++)
		b += malloc_usable_size(p->slab[i]) +
		    malloc_usable_size(p->used[i]);
	return (b);
}

/* ---- vectors ------------------------------------------------------------- */

int
rib_vec_push(struct rib_vec *q, uint32_t x)
{
	if (q->n == q->cap) {
		if (q->head > 0 && q->head >= q->n / 2) {
			/* a FIFO that was mostly consumed: slide down */
			memmove(q->v, q->v + q->head,
			    (q->n - q->head) * sizeof(*q->v));
			q->n -= q->head;
			q->head = 0;
		} else {
			uint32_t nc = q->cap ? q->cap * 2 : 64;
			uint32_t *nv = realloc(q->v, nc * sizeof(*nv));

			if (nv == NULL)
				return (-ENOMEM);
			q->v = nv;
			q->cap = nc;
		}
	}
	q->v[q->n++] = x;
	return (0);
}

void
rib_vec_fini(struct rib_vec *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* ---- interned objects ---------------------------------------------------- */

int
rib_otab_init(struct rib_otab *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->n = 1;
	if ((t->obj = calloc(t->cap, sizeof(*t->obj))) == NULL)
		return (-ENOMEM);
	t->bmask = 63;
	if ((t->bkt = calloc(t->bmask + 1, sizeof(*t->bkt))) == NULL) {
		free(t->obj);
		return (-ENOMEM);
	}
	return (0);
}

void
rib_otab_fini(struct rib_otab *t)
{
	for (uint32_t i = 1; i < t->n; i++)
		free(t->obj[i]);
	free(t->obj);
	free(t->bkt);
	rib_vec_fini(&t->free);
	memset(t, 0, sizeof(*t));
}

static void
rib_otab_rehash(struct rib_otab *t)
{
	uint32_t nm = t->bmask * 2 + 1;
	uint32_t *nb = calloc(nm + 1, sizeof(*nb));

	if (nb == NULL)
		return; /* longer chains, still correct */
	for (uint32_t i = 1; i < t->n; i++) {
		struct rib_hobj *o = t->obj[i];

		if (o == NULL)
			continue;
		o->hnext = nb[o->hash & nm];
		nb[o->hash & nm] = i;
	}
	free(t->bkt);
	t->bkt = nb;
	t->bmask = nm;
}

uint32_t
rib_otab_add(struct rib_otab *t, void *obj)
{
	struct rib_hobj *o = obj;
	uint32_t id;

	if (!rib_vec_empty(&t->free)) {
		id = t->free.v[--t->free.n];
		if (t->free.n == t->free.head)
			t->free.n = t->free.head = 0;
	} else {
		if (t->n == t->cap) {
			void **no = realloc(t->obj, 2 * t->cap * sizeof(*no));

			if (no == NULL)
				return (0);
			t->obj = no;
			t->cap *= 2;
		}
		id = t->n++;
	}
	t->obj[id] = o;
	o->hnext = t->bkt[o->hash & t->bmask];
	t->bkt[o->hash & t->bmask] = id;
	if (++t->count > t->bmask)
		rib_otab_rehash(t);
	return (id);
}

void
rib_otab_del(struct rib_otab *t, uint32_t id)
{
	struct rib_hobj *o = t->obj[id];
	uint32_t *pp = &t->bkt[o->hash & t->bmask];

	while (*pp != id)
		pp = &((struct rib_hobj *)t->obj[*pp])->hnext;
	*pp = o->hnext;
	free(o);
	t->obj[id] = NULL;
	t->count--;
	if (rib_vec_push(&t->free, id) != 0) {
		/* the id leaks: harmless */
	}
}

/* ---- errors -------------------------------------------------------------- */
