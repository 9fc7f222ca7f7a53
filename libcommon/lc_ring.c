/* libcommon/lc_ring.c: allocation of the SPSC ring (the queue operations are
 * inline in lc_ring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc_ring.h"

struct lc_ring *
lc_ring_new(unsigned capacity)
{
	struct lc_ring *r;
	size_t sz;

	if (capacity == 0 || capacity > LC_RING_MAX_CAPACITY ||
	    (capacity & (capacity - 1)) != 0) {
		errno = EINVAL;
		return (NULL);
	}
	sz = sizeof(*r) + (size_t)capacity * sizeof(void *);
	sz = (sz + LC_RING_CACHELINE - 1) & ~(size_t)(LC_RING_CACHELINE - 1);
	if ((r = aligned_alloc(LC_RING_CACHELINE, sz)) == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	memset(r, 0, sizeof(*r));
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	r->mask = capacity - 1;
	r->capacity = capacity;
	return (r);
}

void
lc_ring_free(struct lc_ring *r)
{
	free(r);
}
