/* libcommon/lc_ring.h: bounded single-producer single-consumer queue of
 * pointers, lock-free (C11 atomics). */
#ifndef LC_RING_H
#define LC_RING_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#define LC_RING_CACHELINE    64
#define LC_RING_MAX_CAPACITY (1U << 31)

/*
 * Safe for one producer thread and one consumer thread at a time (also
 * fine single-threaded). head/tail are free-running counters, so the whole
 * capacity is usable. Fields are private.
 */
struct lc_ring {
	/* producer side */
	_Alignas(LC_RING_CACHELINE) _Atomic unsigned head;
	unsigned tail_cache; /* producer's last view of tail */
	/* consumer side */
	_Alignas(LC_RING_CACHELINE) _Atomic unsigned tail;
	unsigned head_cache; /* consumer's last view of head */
	/* read-only */
	_Alignas(LC_RING_CACHELINE) unsigned mask;
	unsigned capacity;
	void *slots[];
};

/*
 * capacity: a power of two, 1..LC_RING_MAX_CAPACITY. NULL with errno
 * EINVAL (not a power of two) or ENOMEM.
 */
struct lc_ring *lc_ring_new(unsigned capacity);
/* NULL is a no-op. Pointers still queued are not freed. */
void lc_ring_free(struct lc_ring *);

static inline unsigned
lc_ring_capacity(const struct lc_ring *r)
{
	return (r->capacity);
}

/* Items queued (exact when called by the producer or the consumer with the
 * other idle). */
static inline unsigned
lc_ring_count(const struct lc_ring *r)
{
	unsigned t = atomic_load_explicit(&((struct lc_ring *)r)->tail,
	    memory_order_acquire);
	unsigned h = atomic_load_explicit(&((struct lc_ring *)r)->head,
	    memory_order_acquire);

	return (h - t);
}

/* Free slots. */
static inline unsigned
lc_ring_free_count(const struct lc_ring *r)
{
	return (r->capacity - lc_ring_count(r));
}

/* Producer only. Enqueues up to n (in order); returns how many (0..n). */
static inline unsigned
lc_ring_enqueue_burst(struct lc_ring *r, void *const *objs, unsigned n)
{
	unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
	unsigned room = r->capacity - (h - r->tail_cache);

	if (room < n) {
		r->tail_cache = atomic_load_explicit(&r->tail,
		    memory_order_acquire);
		room = r->capacity - (h - r->tail_cache);
		if (n > room)
			n = room;
	}
	for (unsigned i = 0; i < n; i++)
		r->slots[(h + i) & r->mask] = objs[i];
	atomic_store_explicit(&r->head, h + n, memory_order_release);
	return (n);
}

/* Consumer only. Dequeues up to n (in order); returns how many (0..n). */
static inline unsigned
lc_ring_dequeue_burst(struct lc_ring *r, void **objs, unsigned n)
{
	unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned avail = r->head_cache - t;

	if (avail < n) {
		r->head_cache = atomic_load_explicit(&r->head,
		    memory_order_acquire);
		avail = r->head_cache - t;
		if (n > avail)
			n = avail;
	}
	for (unsigned i = 0; i < n; i++)
		objs[i] = r->slots[(t + i) & r->mask];
	atomic_store_explicit(&r->tail, t + n, memory_order_release);
	return (n);
}

/* Producer only. 0, or -ENOBUFS when full. */
static inline int
lc_ring_enqueue(struct lc_ring *r, void *obj)
{
	return (lc_ring_enqueue_burst(r, &obj, 1) == 1 ? 0 : -ENOBUFS);
}

/* Consumer only. 0 with *obj set, or -EAGAIN when empty (*obj unchanged). */
static inline int
lc_ring_dequeue(struct lc_ring *r, void **obj)
{
	return (lc_ring_dequeue_burst(r, obj, 1) == 1 ? 0 : -EAGAIN);
}

#endif /* LC_RING_H */
