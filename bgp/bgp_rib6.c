/* bgp/bgp_rib6.c: tern-bgp's IPv6 unicast routes (docs/bgp.md "IPv6
 * unicast").
 *
 * A chained hash of prefixes (struct bgp_dest6, allocated one by one), each
 * with an array of paths, one per neighbour. Simpler than the IPv4 table
 * (bgp_rib.c: pools of 16- and 24-byte records, tuned for a 1M-prefix full
 * table), which it leaves exactly as it was: IPv6 tables are a fifth of the
 * size. Changes mark a prefix; the changed list is drained once per loop
 * turn, as for IPv4, with the same best path rules (bgp_rib_path_cmp).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bgp_rib6.h"

struct bgp_rib6 {
	struct bgp_rib *r4; /* neighbours, local AS, the comparison */
	struct bgp_intern *intern;
	struct bgp_dest6 **slot;
	uint32_t cap; /* power of two */
	size_t ndests, npaths, nbest;
	struct bgp_dest6 **dirty;
	size_t dhead, dn, dcap;
	uint32_t pcount[BGP_RIB_PEERS], pimp[BGP_RIB_PEERS],
	    pstale[BGP_RIB_PEERS];
	bgp_rib6_notify_fn *notify;
	void *notify_arg;
};

int
bgp_aset_nh6(const struct bgp_aset *s, struct lc_ip6 *nh)
{
	struct bgp_attrs a;

	if (bgp_aset_attrs(s, &a) != 0 ||
	    !(a.present & BGP_ABIT(BGP_ATTR_MP_REACH)) ||
	    a.mp_reach.nh_len < 16)
		return (-EINVAL);
	memcpy(nh->b, a.mp_reach.nh, 16);
	return (0);
}

struct bgp_rib6 *
bgp_rib6_new(struct bgp_rib *r4, struct bgp_intern *t)
{
	struct bgp_rib6 *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return (NULL);
	r->r4 = r4;
	r->intern = t;
	r->cap = 256;
	if ((r->slot = calloc(r->cap, sizeof(*r->slot))) == NULL) {
		free(r);
		return (NULL);
	}
	return (r);
}

static void
path_drop(struct bgp_rib6 *r, struct bgp_path6 *p)
{
	bgp_aset_unref(r->intern, p->in);
	if (p->set != NULL)
		bgp_aset_unref(r->intern, p->set);
}

void
bgp_rib6_free(struct bgp_rib6 *r)
{
	if (r == NULL)
		return;
	for (uint32_t i = 0; i < r->cap; i++) {
		struct bgp_dest6 *d = r->slot[i], *n;

		for (; d != NULL; d = n) {
			n = d->next;
			for (unsigned k = 0; k < d->npaths; k++)
				path_drop(r, &d->paths[k]);
			free(d->paths);
			free(d);
		}
	}
	free(r->slot);
	free(r->dirty);
	free(r);
}

static uint32_t
pfx_hash(const struct lc_prefix6 *p)
{
	return ((uint32_t)bgp_hash(p->addr.b, 16, p->len));
}

static struct bgp_dest6 **
dest_ref(const struct bgp_rib6 *r, const struct lc_prefix6 *p)
{
	struct bgp_dest6 **dp = &r->slot[pfx_hash(p) & (r->cap - 1)];

	for (; *dp != NULL; dp = &(*dp)->next)
		if ((*dp)->pfx.len == p->len &&
		    memcmp((*dp)->pfx.addr.b, p->addr.b, 16) == 0)
			break;
	return (dp);
}

static void
grow(struct bgp_rib6 *r)
{
	uint32_t ncap = r->cap * 2;
	struct bgp_dest6 **ns = calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return; /* longer chains, still right */
	for (uint32_t i = 0; i < r->cap; i++) {
		struct bgp_dest6 *d = r->slot[i], *n;

		for (; d != NULL; d = n) {
			uint32_t h = pfx_hash(&d->pfx) & (ncap - 1);

			n = d->next;
			d->next = ns[h];
			ns[h] = d;
		}
	}
	free(r->slot);
	r->slot = ns;
	r->cap = ncap;
}

static int
dirty_mark(struct bgp_rib6 *r, struct bgp_dest6 *d)
{
	if (d->flags & BGP_DEST_DIRTY)
		return (0);
	if (r->dn == r->dcap) {
		size_t ncap;
		struct bgp_dest6 **n;

		if (r->dhead > 0) {
			memmove(r->dirty, r->dirty + r->dhead,
			    (r->dn - r->dhead) * sizeof(*n));
			r->dn -= r->dhead;
			r->dhead = 0;
		}
		if (r->dn == r->dcap) {
			ncap = r->dcap ? r->dcap * 2 : 256;
			if ((n = realloc(r->dirty, ncap * sizeof(*n))) == NULL)
				return (-ENOMEM);
			r->dirty = n;
			r->dcap = ncap;
		}
	}
	r->dirty[r->dn++] = d;
	d->flags |= BGP_DEST_DIRTY;
	return (0);
}

/* Frees d when nothing refers to it any more. */
static void
dest_gc(struct bgp_rib6 *r, struct bgp_dest6 *d)
{
	struct bgp_dest6 **dp;

	if (d->npaths > 0 || d->inst || (d->flags & BGP_DEST_DIRTY))
		return;
	dp = dest_ref(r, &d->pfx);
	if (*dp == d)
		*dp = d->next;
	free(d->paths);
	free(d);
	r->ndests--;
}

static struct bgp_path6 *
path_of(struct bgp_dest6 *d, unsigned peer)
{
	for (unsigned k = 0; k < d->npaths; k++)
		if (d->paths[k].peer == peer)
			return (&d->paths[k]);
	return (NULL);
}

int
bgp_rib6_update(struct bgp_rib6 *r, unsigned peer, const struct lc_prefix6 *pfx,
    struct bgp_aset *in, struct bgp_aset *set, uint8_t why)
{
	struct bgp_dest6 **dp = dest_ref(r, pfx), *d = *dp;
	struct bgp_path6 *p;
	struct lc_ip6 nh;
	int rv = 0;

	if (peer == 0 || peer >= BGP_RIB_PEERS)
		return (-EINVAL);
	if (bgp_aset_nh6(set != NULL ? set : in, &nh) != 0)
		memset(&nh, 0, sizeof(nh));
	if (d == NULL) {
		if ((d = calloc(1, sizeof(*d))) == NULL)
			return (-ENOMEM);
		d->pfx = *pfx;
		d->next = *dp;
		*dp = d;
		r->ndests++;
		if (r->ndests > r->cap)
			grow(r);
	}
	if ((p = path_of(d, peer)) == NULL) {
		if (d->npaths == d->cap) {
			unsigned nc = d->cap ? d->cap * 2u : 2u;
			struct bgp_path6 *np = realloc(d->paths,
			    nc * sizeof(*np));

			if (np == NULL) {
				dest_gc(r, d);
				return (-ENOMEM);
			}
			d->paths = np;
			d->cap = (uint16_t)nc;
		}
		p = &d->paths[d->npaths++];
		memset(p, 0, sizeof(*p));
		p->peer = (uint16_t)peer;
		r->pcount[peer]++;
		r->npaths++;
		rv = 1;
	} else {
		if (p->flags & BGP_PATH_STALE) {
			p->flags &= (uint8_t)~BGP_PATH_STALE;
			r->pstale[peer]--;
		}
		if (p->in == in && p->set == set)
			return (0);
		r->pimp[peer] -= p->set != NULL;
		/* the new references first: they may be the same sets */
		(void)bgp_aset_ref(in);
		if (set != NULL)
			(void)bgp_aset_ref(set);
		path_drop(r, p);
		p->in = in;
		p->set = set;
		goto done;
	}
	p->in = bgp_aset_ref(in);
	p->set = set != NULL ? bgp_aset_ref(set) : NULL;
done:
	p->nh = nh;
	p->why = set != NULL ? BGP_WHY_NONE : why;
	r->pimp[peer] += set != NULL;
	if (dirty_mark(r, d) != 0)
		return (-ENOMEM);
	return (rv);
}

/* Removes path k of d. */
static void
path_del(struct bgp_rib6 *r, struct bgp_dest6 *d, unsigned k)
{
	struct bgp_path6 *p = &d->paths[k];

	r->pcount[p->peer]--;
	r->pimp[p->peer] -= p->set != NULL;
	if (p->flags & BGP_PATH_STALE)
		r->pstale[p->peer]--;
	r->npaths--;
	path_drop(r, p);
	d->paths[k] = d->paths[--d->npaths];
}

int
bgp_rib6_withdraw(struct bgp_rib6 *r, unsigned peer,
    const struct lc_prefix6 *pfx)
{
	struct bgp_dest6 *d = *dest_ref(r, pfx);

	if (d == NULL)
		return (0);
	for (unsigned k = 0; k < d->npaths; k++) {
		if (d->paths[k].peer != peer)
			continue;
		path_del(r, d, k);
		if (dirty_mark(r, d) != 0)
			return (-ENOMEM);
		return (1);
	}
	return (0);
}

/* fn on every dest: for walks that may free the one they are on. */
static void
each_dest(struct bgp_rib6 *r,
    void (*fn)(struct bgp_rib6 *, struct bgp_dest6 *, void *), void *arg)
{
	for (uint32_t i = 0; i < r->cap; i++) {
		struct bgp_dest6 *d = r->slot[i], *n;

		for (; d != NULL; d = n) {
			n = d->next;
			fn(r, d, arg);
		}
	}
}

struct flush_arg {
	unsigned peer;
	bool stale_only;
	size_t n;
};

static void
flush_one(struct bgp_rib6 *r, struct bgp_dest6 *d, void *arg)
{
	struct flush_arg *f = arg;

	for (unsigned k = 0; k < d->npaths; k++) {
		struct bgp_path6 *p = &d->paths[k];

		if (p->peer != f->peer ||
		    (f->stale_only && !(p->flags & BGP_PATH_STALE)))
			continue;
		path_del(r, d, k);
		(void)dirty_mark(r, d);
		f->n++;
		break;
	}
}

size_t
bgp_rib6_peer_flush(struct bgp_rib6 *r, unsigned peer, bool stale_only)
{
	struct flush_arg f = {peer, stale_only, 0};

	if (peer == 0 || peer >= BGP_RIB_PEERS || r->pcount[peer] == 0 ||
	    (stale_only && r->pstale[peer] == 0))
		return (0);
	each_dest(r, flush_one, &f);
	return (f.n);
}

static void
stale_one(struct bgp_rib6 *r, struct bgp_dest6 *d, void *arg)
{
	struct flush_arg *f = arg;
	struct bgp_path6 *p = path_of(d, f->peer);

	if (p != NULL && !(p->flags & BGP_PATH_STALE)) {
		p->flags |= BGP_PATH_STALE;
		r->pstale[f->peer]++;
	}
	if (p != NULL)
		f->n++;
}

size_t
bgp_rib6_peer_stale(struct bgp_rib6 *r, unsigned peer)
{
	struct flush_arg f = {peer, false, 0};

	if (peer == 0 || peer >= BGP_RIB_PEERS || r->pcount[peer] == 0)
		return (0);
	each_dest(r, stale_one, &f);
	return (f.n);
}

size_t
bgp_rib6_peer_stale_count(const struct bgp_rib6 *r, unsigned peer)
{
	return (peer < BGP_RIB_PEERS ? r->pstale[peer] : 0);
}

struct reimport_arg {
	unsigned peer;
	bgp_rib6_import_fn *fn;
	void *arg;
	size_t n;
};

static void
reimport_one(struct bgp_rib6 *r, struct bgp_dest6 *d, void *arg)
{
	struct reimport_arg *ra = arg;
	struct bgp_path6 *p = path_of(d, ra->peer);
	struct bgp_aset *s;
	uint8_t why = BGP_WHY_POLICY;

	if (p == NULL)
		return;
	s = ra->fn(ra->arg, &d->pfx, p->in, &why);
	if (s == p->set) {
		if (s != NULL)
			bgp_aset_unref(r->intern, s);
		return;
	}
	r->pimp[ra->peer] += (s != NULL) - (p->set != NULL);
	if (p->set != NULL)
		bgp_aset_unref(r->intern, p->set);
	p->set = s; /* the reference fn gave */
	p->why = s != NULL ? BGP_WHY_NONE : why;
	if (bgp_aset_nh6(s != NULL ? s : p->in, &p->nh) != 0)
		memset(&p->nh, 0, sizeof(p->nh));
	(void)dirty_mark(r, d);
	ra->n++;
}

size_t
bgp_rib6_reimport(struct bgp_rib6 *r, unsigned peer, bgp_rib6_import_fn *fn,
    void *arg)
{
	struct reimport_arg ra = {peer, fn, arg, 0};

	if (peer == 0 || peer >= BGP_RIB_PEERS || r->pcount[peer] == 0)
		return (0);
	each_dest(r, reimport_one, &ra);
	return (ra.n);
}

void
bgp_rib6_peer_counts(const struct bgp_rib6 *r, unsigned peer, size_t *all,
    size_t *imported)
{
	*all = peer < BGP_RIB_PEERS ? r->pcount[peer] : 0;
	*imported = peer < BGP_RIB_PEERS ? r->pimp[peer] : 0;
}

/* The best path of d (flags and each loser's why set), or NULL. */
static struct bgp_path6 *
best_of(struct bgp_rib6 *r, struct bgp_dest6 *d)
{
	struct bgp_path6 *b = NULL;
	uint8_t step;

	for (unsigned k = 0; k < d->npaths; k++) {
		struct bgp_path6 *p = &d->paths[k];

		p->flags &= (uint8_t)~BGP_PATH_BEST;
		if (p->set == NULL)
			continue;
		if (b == NULL ||
		    bgp_rib_path_cmp(r->r4, p->peer, p->set, b->peer, b->set,
			&step) < 0)
			b = p;
	}
	if (b == NULL)
		return (NULL);
	b->flags |= BGP_PATH_BEST;
	b->why = BGP_WHY_NONE;
	for (unsigned k = 0; k < d->npaths; k++) {
		struct bgp_path6 *p = &d->paths[k];

		if (p == b || p->set == NULL)
			continue;
		(void)bgp_rib_path_cmp(r->r4, b->peer, b->set, p->peer, p->set,
		    &step);
		/* equal up to the end (two paths of one neighbour cannot
		 * be): the lower neighbour address decided */
		p->why = step != BGP_WHY_NONE ? step : BGP_WHY_PEER_ADDR;
	}
	return (b);
}

size_t
bgp_rib6_drain(struct bgp_rib6 *r, size_t max, bgp_rib6_emit_fn *emit,
    void *arg)
{
	size_t done = 0;

	while (r->dhead < r->dn && done < max) {
		struct bgp_dest6 *d = r->dirty[r->dhead];
		struct bgp_path6 *b = best_of(r, d);
		bool had = d->inst;

		if (r->notify != NULL)
			r->notify(r->notify_arg, d);
		if (b != NULL && (!had || memcmp(&d->inst_nh, &b->nh, 16))) {
			if (emit(arg, d, &b->nh) < 0)
				break;
			d->inst = true;
			d->inst_nh = b->nh;
			r->nbest += !had;
		} else if (b == NULL && had) {
			if (emit(arg, d, NULL) < 0)
				break;
			d->inst = false;
			r->nbest--;
		}
		d->flags &= (uint8_t)~BGP_DEST_DIRTY;
		r->dhead++;
		done++;
		dest_gc(r, d);
	}
	if (r->dhead == r->dn)
		r->dhead = r->dn = 0;
	return (done);
}

size_t
bgp_rib6_pending(const struct bgp_rib6 *r)
{
	return (r->dn - r->dhead);
}

void
bgp_rib6_set_notify(struct bgp_rib6 *r, bgp_rib6_notify_fn *fn, void *arg)
{
	r->notify = fn;
	r->notify_arg = arg;
}

static void
resend_one(struct bgp_rib6 *r, struct bgp_dest6 *d, void *arg)
{
	(void)arg;
	if (d->inst) {
		d->inst = false;
		r->nbest--;
	}
	if (d->npaths > 0)
		(void)dirty_mark(r, d);
}

void
bgp_rib6_resend_all(struct bgp_rib6 *r)
{
	each_dest(r, resend_one, NULL);
}

const struct bgp_dest6 *
bgp_rib6_find(const struct bgp_rib6 *r, const struct lc_prefix6 *pfx)
{
	return (*dest_ref(r, pfx));
}

const struct bgp_path6 *
bgp_rib6_best(const struct bgp_dest6 *d)
{
	for (unsigned k = 0; k < d->npaths; k++)
		if ((d->paths[k].flags & BGP_PATH_BEST) &&
		    d->paths[k].why == BGP_WHY_NONE)
			return (&d->paths[k]);
	return (NULL);
}

const struct bgp_dest6 *
bgp_rib6_next(const struct bgp_rib6 *r, uint64_t *cursor)
{
	/* cursor: bucket << 16 | place in its chain */
	for (uint64_t b = *cursor >> 16; b < r->cap; b++) {
		const struct bgp_dest6 *d = r->slot[b];
		unsigned k = b == *cursor >> 16 ? (unsigned)(*cursor & 0xffff) :
						  0;

		for (unsigned i = 0; d != NULL && i < k; i++)
			d = d->next;
		for (; d != NULL; d = d->next, k++) {
			if (d->npaths == 0)
				continue;
			*cursor = b << 16 | (k + 1);
			return (d);
		}
	}
	*cursor = (uint64_t)r->cap << 16;
	return (NULL);
}

void
bgp_rib6_stats(const struct bgp_rib6 *r, struct bgp_rib6_stats *s)
{
	s->dests = r->ndests;
	s->paths = r->npaths;
	s->best = r->nbest;
}
