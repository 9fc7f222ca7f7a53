/* fwd/fwd_grp.h: the group values of a FIB's second-level tables (tbl8
 * groups of fwd_fib.c and fwd_fib6.c): never used, in use, waiting out a
 * grace period after the last reader could see them, or free again. */
#ifndef FWD_GRP_H
#define FWD_GRP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fwd_qsbr.h"

struct fwd_grp_pend {
	uint64_t tok; /* fwd_qsbr_start when it was unlinked */
	uint32_t g;
};

/*
 * Values [first, end); [hwm, end) never used yet. free: a stack of values
 * back from their grace period; pend: a FIFO of values unlinked, each with
 * its QSBR token. Control thread only (the FIB's writer).
 */
struct fwd_grp {
	struct fwd_qsbr *qsbr;
	uint32_t first, end, hwm;
	uint32_t *free;
	size_t nfree, free_cap;
	struct fwd_grp_pend *pend;
	size_t head, n, cap;
	size_t inuse; /* linked into the table */
	size_t cap0;  /* first size of both arrays */
};

/* An empty pool of values [first, end); arrays grow from cap0 entries. */
void fwd_grp_init(struct fwd_grp *, struct fwd_qsbr *, uint32_t first,
    uint32_t end, size_t cap0);
void fwd_grp_fini(struct fwd_grp *);
/* Room to defer `more` values without failing. 0 or -ENOMEM. */
int fwd_grp_reserve(struct fwd_grp *, size_t more);
/* Value g is no longer linked; reusable once tok's grace period is over.
 * The caller reserved the room (fwd_grp_reserve). */
void fwd_grp_defer(struct fwd_grp *, uint32_t g, uint64_t tok);
/* Values whose grace period is over go back to the free stack. */
void fwd_grp_poll(struct fwd_grp *);
/* n values can be had now, waiting up to 1 s for each grace period that
 * must end first. */
bool fwd_grp_avail(struct fwd_grp *, size_t n);
/* One value (fwd_grp_avail said yes): a free one, else a never-used one. */
uint32_t fwd_grp_get(struct fwd_grp *);
/* Every value unused again (the caller made sure no reader can see any):
 * the arrays are kept. */
void fwd_grp_reset(struct fwd_grp *);
/* The pool as another process left it: used (n distinct values, any
 * order) in use, every other value below the highest of them free, none
 * waiting for a grace period (the readers that could see them are gone).
 * 0, -EINVAL (a value outside [first, end)), -ENOMEM (unchanged). */
int fwd_grp_restore(struct fwd_grp *, const uint32_t *used, size_t n);
/* Bytes of the two arrays. */
size_t fwd_grp_memory(const struct fwd_grp *);

#endif /* FWD_GRP_H */
