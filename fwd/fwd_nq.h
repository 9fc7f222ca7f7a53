/* fwd/fwd_nq.h: what fwd_arp and fwd_nd share: the bounded queues of packets
 * waiting for a neighbour's MAC (one pool of frames, a short list per
 * neighbour, the oldest dropped when full) and the host-route adjacencies
 * released only after a grace period of the FIB's qsbr. Control thread
 * only. */
#ifndef FWD_NQ_H
#define FWD_NQ_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_qsbr.h"

#define FWD_NQ_QMAX	   16	/* cap on packets a neighbour holds */
#define FWD_NQ_POOL_MAX	   1024 /* queued frames, all neighbours */
#define FWD_NQ_PENDING_MAX 256

/* One neighbour's queue: slots in the pool, oldest first. */
struct fwd_nq_list {
	uint8_t n;
	uint16_t slot[FWD_NQ_QMAX];
	uint16_t in[FWD_NQ_QMAX]; /* the ingress port of each */
};

struct fwd_nq_pending {
	uint16_t adj;
	uint64_t tok;
};

struct fwd_nq {
	unsigned qlen; /* per neighbour, <= FWD_NQ_QMAX */
	uint8_t *buf;  /* npool * FWD_FRAME_MAX */
	uint16_t *len;
	uint16_t *free;
	unsigned npool, nfree;
	struct fwd_nq_pending pend[FWD_NQ_PENDING_MAX];
	unsigned npend;
};

/* A pool for want frames (at most FWD_NQ_POOL_MAX), qlen a neighbour
 * (capped at FWD_NQ_QMAX). 0 or -ENOMEM. */
int fwd_nq_init(struct fwd_nq *, unsigned want, unsigned qlen);
void fwd_nq_fini(struct fwd_nq *);

/* A copy of frame (len <= FWD_FRAME_MAX) at the end of q. FWD_NQ_QUEUED;
 * FWD_NQ_QUEUED_DROP (the oldest of q dropped for it: q full, or the pool
 * empty); FWD_NQ_DROPPED (not queued: the pool empty and q holds none). */
enum { FWD_NQ_QUEUED = 0, FWD_NQ_QUEUED_DROP, FWD_NQ_DROPPED };
unsigned fwd_nq_push(struct fwd_nq *, struct fwd_nq_list *q,
    const uint8_t *frame, unsigned len, uint16_t in_port);
/* Packet k of q (its length in *len). */
static inline const uint8_t *
fwd_nq_frame(const struct fwd_nq *p, const struct fwd_nq_list *q, unsigned k,
    unsigned *len)
{
	*len = p->len[q->slot[k]];
	return (p->buf + (size_t)q->slot[k] * FWD_FRAME_MAX);
}
/* Empty q, its slots back to the pool. */
void fwd_nq_clear(struct fwd_nq *, struct fwd_nq_list *q);

/* Release adjacency idx of t once qsbr's grace period is over (at once,
 * after waiting for it, when too many are pending). */
void fwd_nq_release_later(struct fwd_nq *, struct fwd_adj_tbl *t,
    struct fwd_qsbr *qsbr, unsigned idx);
/* Release those whose grace period is over. */
void fwd_nq_release_poll(struct fwd_nq *, struct fwd_adj_tbl *t,
    struct fwd_qsbr *qsbr);

#endif /* FWD_NQ_H */
