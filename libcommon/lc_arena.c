/* libcommon/lc_arena.c: chunked bump allocator and slab-backed object pool
 * (poisoned under ASan). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define LC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LC_ASAN 1
#endif
#endif
#ifdef LC_ASAN
#include <sanitizer/asan_interface.h>
#define LC_POISON(p, n)	  ASAN_POISON_MEMORY_REGION((p), (n))
#define LC_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define LC_POISON(p, n)	  ((void)(p), (void)(n))
#define LC_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define LC_ALIGN_UP(n) \
	(((n) + LC_ARENA_ALIGN - 1) & ~(size_t)(LC_ARENA_ALIGN - 1))

_Static_assert(_Alignof(max_align_t) >= LC_ARENA_ALIGN,
    "malloc must return 16-byte aligned memory");

struct lc_arena_chunk {
	struct lc_arena_chunk *next;
	size_t size; /* usable bytes */
	size_t used;
	_Alignas(LC_ARENA_ALIGN) unsigned char data[];
};

struct lc_arena {
	struct lc_arena_chunk *cur;   /* bump chunk (head of list) */
	struct lc_arena_chunk *first; /* kept across reset (tail of list) */
	size_t chunk_size;
	size_t used;
	size_t size;
};

static struct lc_arena_chunk *
lc_arena_chunk_new(size_t size)
{
	struct lc_arena_chunk *c;

	if (size > SIZE_MAX - sizeof(*c))
		return (NULL);
	if ((c = malloc(sizeof(*c) + size)) == NULL)
		return (NULL);
	c->next = NULL;
	c->size = size;
	c->used = 0;
	LC_POISON(c->data, size);
	return (c);
}

struct lc_arena *
lc_arena_new(size_t chunk_size)
{
	struct lc_arena *a;

	if (chunk_size == 0)
		chunk_size = LC_ARENA_DEFAULT_CHUNK;
	chunk_size = LC_ALIGN_UP(chunk_size);
	if ((a = malloc(sizeof(*a))) == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	if ((a->first = lc_arena_chunk_new(chunk_size)) == NULL) {
		free(a);
		errno = ENOMEM;
		return (NULL);
	}
	a->cur = a->first;
	a->chunk_size = chunk_size;
	a->used = 0;
	a->size = chunk_size;
	return (a);
}

void *
lc_arena_alloc(struct lc_arena *a, size_t n)
{
	struct lc_arena_chunk *c;
	size_t sz;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - LC_ARENA_ALIGN) {
		errno = ENOMEM;
		return (NULL);
	}
	sz = LC_ALIGN_UP(n);
	c = a->cur;
	if (c->size - c->used < sz) {
		if (sz > a->chunk_size) {
			/*
			 * A large block gets its own chunk, linked behind the
			 * current one so the current chunk's free space stays
			 * in use.
			 */
			if ((c = lc_arena_chunk_new(sz)) == NULL) {
				errno = ENOMEM;
				return (NULL);
			}
			c->next = a->cur->next;
			a->cur->next = c;
		} else {
			if ((c = lc_arena_chunk_new(a->chunk_size)) == NULL) {
				errno = ENOMEM;
				return (NULL);
			}
			c->next = a->cur;
			a->cur = c;
		}
		a->size += c->size;
	}
	p = c->data + c->used;
	c->used += sz;
	a->used += sz;
	LC_UNPOISON(p, n);
	return (p);
}

void *
lc_arena_calloc(struct lc_arena *a, size_t n)
{
	void *p;

	if ((p = lc_arena_alloc(a, n)) != NULL)
		memset(p, 0, n);
	return (p);
}

void *
lc_arena_memdup(struct lc_arena *a, const void *src, size_t n)
{
	void *p;

	if ((p = lc_arena_alloc(a, n)) != NULL && n > 0)
		memcpy(p, src, n);
	return (p);
}

char *
lc_arena_strndup(struct lc_arena *a, const char *s, size_t n)
{
	char *p;

	if (s == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	n = strnlen(s, n);
	if (n == SIZE_MAX) {
		errno = ENOMEM;
		return (NULL);
	}
	if ((p = lc_arena_alloc(a, n + 1)) == NULL)
		return (NULL);
	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

char *
lc_arena_strdup(struct lc_arena *a, const char *s)
{
	return (lc_arena_strndup(a, s, SIZE_MAX - 1));
}

char *
lc_arena_sprintf(struct lc_arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		errno = EINVAL;
		return (NULL);
	}
	if ((p = lc_arena_alloc(a, (size_t)n + 1)) == NULL)
		return (NULL);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (p);
}

void
lc_arena_reset(struct lc_arena *a)
{
	struct lc_arena_chunk *c, *next;

	for (c = a->cur; c != NULL; c = next) {
		next = c->next;
		if (c != a->first)
			free(c);
	}
	a->first->next = NULL;
	a->first->used = 0;
	LC_POISON(a->first->data, a->first->size);
	a->cur = a->first;
	a->used = 0;
	a->size = a->first->size;
}

void
lc_arena_free(struct lc_arena *a)
{
	struct lc_arena_chunk *c, *next;

	if (a == NULL)
		return;
	for (c = a->cur; c != NULL; c = next) {
		next = c->next;
		LC_UNPOISON(c->data, c->size);
		free(c);
	}
	free(a);
}

size_t
lc_arena_used(const struct lc_arena *a)
{
	return (a->used);
}

size_t
lc_arena_size(const struct lc_arena *a)
{
	return (a->size);
}

/* Pools */

struct lc_pool_slab {
	struct lc_pool_slab *next;
	_Alignas(LC_ARENA_ALIGN) unsigned char data[];
};

#define LC_POOL_SLAB_BYTES (16 * 1024)

int
lc_pool_init(struct lc_pool *p, size_t obj_size, size_t per_slab)
{
	size_t sz;

	if (obj_size == 0 || obj_size > SIZE_MAX / 1024)
		return (-EINVAL);
	sz = LC_ALIGN_UP(obj_size < sizeof(void *) ? sizeof(void *) : obj_size);
	if (per_slab == 0) {
		per_slab = LC_POOL_SLAB_BYTES / sz;
		if (per_slab < 8)
			per_slab = 8;
	}
	if (per_slab > (SIZE_MAX - sizeof(struct lc_pool_slab)) / sz)
		return (-EINVAL);
	p->obj_size = sz;
	p->per_slab = per_slab;
	p->free_list = NULL;
	p->slabs = NULL;
	p->carved = 0;
	p->inuse = 0;
	p->total = 0;
	return (0);
}

void *
lc_pool_get(struct lc_pool *p)
{
	struct lc_pool_slab *s;
	void *obj;

	if ((obj = p->free_list) != NULL) {
		LC_UNPOISON(obj, p->obj_size);
		p->free_list = *(void **)obj;
		p->inuse++;
		return (obj);
	}
	if (p->slabs == NULL || p->carved == p->per_slab) {
		s = malloc(sizeof(*s) + p->per_slab * p->obj_size);
		if (s == NULL) {
			errno = ENOMEM;
			return (NULL);
		}
		LC_POISON(s->data, p->per_slab * p->obj_size);
		s->next = p->slabs;
		p->slabs = s;
		p->carved = 0;
		p->total += p->per_slab;
	}
	obj = p->slabs->data + p->carved * p->obj_size;
	p->carved++;
	p->inuse++;
	LC_UNPOISON(obj, p->obj_size);
	return (obj);
}

void
lc_pool_put(struct lc_pool *p, void *obj)
{
	if (obj == NULL)
		return;
	*(void **)obj = p->free_list;
	p->free_list = obj;
	p->inuse--;
	/* Use after put trips ASan; get unpoisons before reading the link. */
	LC_POISON(obj, p->obj_size);
}

void
lc_pool_fini(struct lc_pool *p)
{
	struct lc_pool_slab *s, *next;

	for (s = p->slabs; s != NULL; s = next) {
		next = s->next;
		LC_UNPOISON(s->data, p->per_slab * p->obj_size);
		free(s);
	}
	p->slabs = NULL;
	p->free_list = NULL;
	p->carved = 0;
	p->inuse = 0;
	p->total = 0;
}

size_t
lc_pool_inuse(const struct lc_pool *p)
{
	return (p->inuse);
}

size_t
lc_pool_total(const struct lc_pool *p)
{
	return (p->total);
}
