/* fwd/fwd_nq.c: packets waiting for a neighbour, and adjacencies released
 * after a grace period (fwd_arp, fwd_nd). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_nq.h"

int
fwd_nq_init(struct fwd_nq *p, unsigned want, unsigned qlen)
{
	memset(p, 0, sizeof(*p));
	p->qlen = qlen > FWD_NQ_QMAX ? FWD_NQ_QMAX : qlen;
	p->npool = want > FWD_NQ_POOL_MAX ? FWD_NQ_POOL_MAX : want;
	p->buf = malloc((size_t)p->npool * FWD_FRAME_MAX);
	p->len = calloc(p->npool, sizeof(*p->len));
	p->free = malloc(p->npool * sizeof(*p->free));
	if (p->buf == NULL || p->len == NULL || p->free == NULL) {
		fwd_nq_fini(p);
		return (-ENOMEM);
	}
	for (unsigned i = 0; i < p->npool; i++)
		p->free[p->nfree++] = (uint16_t)(p->npool - 1 - i);
	return (0);
}

void
fwd_nq_fini(struct fwd_nq *p)
{
	free(p->buf);
	free(p->len);
	free(p->free);
	p->buf = NULL;
	p->len = p->free = NULL;
}

unsigned
fwd_nq_push(struct fwd_nq *p, struct fwd_nq_list *q, const uint8_t *frame,
    unsigned len, uint16_t in_port)
{
	unsigned rv = FWD_NQ_QUEUED;
	uint16_t s;

	if (q->n == p->qlen || p->nfree == 0) {
		/* full: the oldest goes (bounded, the newest kept) */
		if (q->n == 0)
			return (FWD_NQ_DROPPED);
		s = q->slot[0];
		memmove(q->slot, q->slot + 1, (q->n - 1) * sizeof(q->slot[0]));
		memmove(q->in, q->in + 1, (q->n - 1) * sizeof(q->in[0]));
		q->n--;
		rv = FWD_NQ_QUEUED_DROP;
	} else
		s = p->free[--p->nfree];
	memcpy(p->buf + (size_t)s * FWD_FRAME_MAX, frame, len);
	p->len[s] = (uint16_t)len;
	q->slot[q->n] = s;
	q->in[q->n] = in_port;
	q->n++;
	return (rv);
}

void
fwd_nq_clear(struct fwd_nq *p, struct fwd_nq_list *q)
{
	for (unsigned k = 0; k < q->n; k++)
		p->free[p->nfree++] = q->slot[k];
	q->n = 0;
}

void
fwd_nq_release_later(struct fwd_nq *p, struct fwd_adj_tbl *t,
    struct fwd_qsbr *qsbr, unsigned idx)
{
	/* workers may still hold the index */
	if (p->npend < FWD_NQ_PENDING_MAX) {
		p->pend[p->npend].adj = (uint16_t)idx;
		p->pend[p->npend].tok = fwd_qsbr_start(qsbr);
		p->npend++;
	} else {
		fwd_qsbr_synchronize(qsbr);
		fwd_adj_release(t, idx);
	}
}

void
fwd_nq_release_poll(struct fwd_nq *p, struct fwd_adj_tbl *t,
    struct fwd_qsbr *qsbr)
{
	for (unsigned i = 0; i < p->npend;) {
		if (fwd_qsbr_check(qsbr, p->pend[i].tok)) {
			fwd_adj_release(t, p->pend[i].adj);
			p->pend[i] = p->pend[--p->npend];
		} else
			i++;
	}
}
