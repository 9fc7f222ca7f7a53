/* libcommon/lc_arena.h: arenas (many allocations, one free) and fixed-size
 * object pools. */
#ifndef LC_ARENA_H
#define LC_ARENA_H

#include <stddef.h>

#define LC_ARENA_ALIGN	       16
#define LC_ARENA_DEFAULT_CHUNK (64 * 1024)

struct lc_arena;

/* chunk_size 0 -> LC_ARENA_DEFAULT_CHUNK. NULL with errno ENOMEM. */
struct lc_arena *lc_arena_new(size_t chunk_size);
/*
 * 16-byte aligned, valid until reset/free. A request larger than the chunk
 * gets a chunk of its own. Size 0 returns a unique pointer. NULL with errno
 * ENOMEM (also on size overflow).
 */
void *lc_arena_alloc(struct lc_arena *, size_t);
/* As lc_arena_alloc, zeroed. */
void *lc_arena_calloc(struct lc_arena *, size_t);
/* Copies; NULL with errno ENOMEM (EINVAL if s is NULL). */
char *lc_arena_strdup(struct lc_arena *, const char *s);
/* Copies at most n bytes and NUL-terminates. NULL with errno ENOMEM/EINVAL. */
char *lc_arena_strndup(struct lc_arena *, const char *s, size_t n);
/* Copies n bytes. NULL with errno ENOMEM. */
void *lc_arena_memdup(struct lc_arena *, const void *p, size_t n);
/* printf into the arena. NULL with errno ENOMEM (EINVAL on a format error). */
char *lc_arena_sprintf(struct lc_arena *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forgets all allocations; keeps (only) the first chunk. */
void lc_arena_reset(struct lc_arena *);
/* Frees everything. NULL is a no-op. */
void lc_arena_free(struct lc_arena *);
/* Bytes handed out (after alignment) since new/reset. */
size_t lc_arena_used(const struct lc_arena *);
/* Bytes of chunk memory held (capacity). */
size_t lc_arena_size(const struct lc_arena *);

/*
 * Fixed-size object pool: a free list over slabs of per_slab objects. Grows
 * by slabs, never returns memory until lc_pool_fini(). Objects are 16-byte
 * aligned. Not thread-safe. Fields are private.
 */
struct lc_pool_slab;
struct lc_pool {
	size_t obj_size; /* rounded up to LC_ARENA_ALIGN */
	size_t per_slab;
	void *free_list;
	struct lc_pool_slab *slabs;
	size_t carved; /* objects carved from the newest slab */
	size_t inuse;
	size_t total; /* objects in all slabs */
};
/* per_slab 0 -> about 16 KiB worth (at least 8). 0, or -EINVAL (obj_size 0 or
 * too big). No allocation yet. */
int lc_pool_init(struct lc_pool *, size_t obj_size, size_t per_slab);
/* An object (contents undefined). NULL with errno ENOMEM. */
void *lc_pool_get(struct lc_pool *);
/* Returns obj to the pool (reused by the next get). NULL is a no-op. */
void lc_pool_put(struct lc_pool *, void *obj);
/* Frees all slabs (objects still out become invalid). */
void lc_pool_fini(struct lc_pool *);
/* Objects got and not put back. */
size_t lc_pool_inuse(const struct lc_pool *);
/* Objects the pool holds memory for. */
size_t lc_pool_total(const struct lc_pool *);

#endif /* LC_ARENA_H */
