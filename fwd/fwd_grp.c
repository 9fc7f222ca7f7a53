/* fwd/fwd_grp.c: a FIB's group values with QSBR-deferred reuse (fwd_grp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_grp.h"

void
fwd_grp_init(struct fwd_grp *p, struct fwd_qsbr *q, uint32_t first,
    uint32_t end, size_t cap0)
{
	memset(p, 0, sizeof(*p));
	p->qsbr = q;
	p->first = p->hwm = first;
	p->end = end;
	p->cap0 = cap0 ? cap0 : 256;
}

void
fwd_grp_fini(struct fwd_grp *p)
{
	free(p->free);
	free(p->pend);
	p->free = NULL;
	p->pend = NULL;
	p->nfree = p->free_cap = p->head = p->n = p->cap = 0;
}

int
fwd_grp_reserve(struct fwd_grp *p, size_t more)
{
	/* every value deferred comes back to the free stack */
	size_t need = p->nfree + p->n + more;

	if (need > p->free_cap) {
		size_t nc = p->free_cap ? p->free_cap * 2 : p->cap0;
		uint32_t *nv;

		while (nc < need)
			nc *= 2;
		if ((nv = realloc(p->free, nc * sizeof(*nv))) == NULL)
			return (-ENOMEM);
		p->free = nv;
		p->free_cap = nc;
	}
	if (p->n + more > p->cap) {
		size_t nc = p->cap ? p->cap * 2 : p->cap0;
		struct fwd_grp_pend *np;

		while (nc < p->n + more)
			nc *= 2;
		if ((np = malloc(nc * sizeof(*np))) == NULL)
			return (-ENOMEM);
		for (size_t k = 0; k < p->n; k++)
			np[k] = p->pend[(p->head + k) % p->cap];
		free(p->pend);
		p->pend = np;
		p->head = 0;
		p->cap = nc;
	}
	return (0);
}

void
fwd_grp_defer(struct fwd_grp *p, uint32_t g, uint64_t tok)
{
	struct fwd_grp_pend *e = &p->pend[(p->head + p->n) % p->cap];

	e->g = g;
	e->tok = tok;
	p->n++;
	p->inuse--;
}

void
fwd_grp_poll(struct fwd_grp *p)
{
	while (p->n != 0) {
		struct fwd_grp_pend *e = &p->pend[p->head];

		if (!fwd_qsbr_check(p->qsbr, e->tok))
			break;
		/* the free stack was sized when the value was deferred */
		p->free[p->nfree++] = e->g;
		p->head = (p->head + 1) % p->cap;
		p->n--;
	}
}

bool
fwd_grp_avail(struct fwd_grp *p, size_t n)
{
	fwd_grp_poll(p);
	while (p->nfree + (p->end - p->hwm) < n) {
		if (p->n == 0 ||
		    fwd_qsbr_wait(p->qsbr, p->pend[p->head].tok, 1000000000u) !=
			0)
			return (false);
		fwd_grp_poll(p);
	}
	return (true);
}

uint32_t
fwd_grp_get(struct fwd_grp *p)
{
	p->inuse++;
	if (p->nfree != 0)
		return (p->free[--p->nfree]);
	return (p->hwm++);
}

void
fwd_grp_reset(struct fwd_grp *p)
{
	p->hwm = p->first;
	p->nfree = p->head = p->n = p->inuse = 0;
}

size_t
fwd_grp_memory(const struct fwd_grp *p)
{
	return (p->free_cap * sizeof(*p->free) + p->cap * sizeof(*p->pend));
}

int
fwd_grp_restore(struct fwd_grp *p, const uint32_t *used, size_t n)
{
	uint32_t hwm = p->first;
	uint8_t *in;
	size_t nf = 0;

	for (size_t k = 0; k < n; k++) {
		if (used[k] < p->first || used[k] >= p->end)
			return (-EINVAL);
		if (used[k] >= hwm)
			hwm = used[k] + 1;
	}
	if ((in = calloc(hwm - p->first + 1, 1)) == NULL)
		return (-ENOMEM);
	for (size_t k = 0; k < n; k++)
		in[used[k] - p->first] = 1;
	/* every value below the mark not in use is free; room for all of
	 * them and for each in use to be deferred later */
	if (fwd_grp_reserve(p, hwm - p->first) != 0) {
		free(in);
		return (-ENOMEM);
	}
	fwd_grp_reset(p);
	for (uint32_t v = hwm; v-- > p->first;)
		if (!in[v - p->first])
			p->free[nf++] = v;
	p->nfree = nf;
	p->hwm = hwm;
	p->inuse = n;
	free(in);
	return (0);
}
