/* bgp/bgp_rib.c: tern-bgp's routes (docs/bgp.md, "Routes").
 *
 * One record per prefix (a "dest", 16 bytes) found through an
 * open-addressing hash of 32-bit indices; each dest heads a list of paths,
 * one per neighbour that announced it (24 bytes: the attribute sets as
 * received and after import policy, interned and shared by every path that
 * has them). So the Adj-RIBs-In and the Loc-RIB are one structure: a
 * neighbour going down walks the prefixes once; a changed import policy is
 * run again over the paths as received, without asking the neighbour.
 *
 * Records live in chunked pools (no realloc of a million entries, indices
 * stay valid). Changes only mark a prefix: the changed list is drained once
 * per loop turn (bgp_ribc.c), choosing each prefix's best path again and
 * comparing the next hops it installs, interned as "next-hop sets", with
 * what rib has; so a prefix announced ten times in one turn costs one
 * route in one batch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "bgp_rib.h"

#define CHUNK_BITS 16
#define CHUNK	   (1u << CHUNK_BITS)
#define DEST_FREE  0x80 /* in a dest's flags: on the free list */

struct nhset {
	uint32_t refs; /* 0: free (next free in addr[0]) */
	uint32_t hash;
	uint16_t n;
	uint32_t addr[BGP_RIB_MP_MAX]; /* sorted, network order */
};

struct bgp_rib {
	struct bgp_intern *intern;
	uint32_t local_as;
	unsigned mp_max;
	struct bgp_rib_peer peers[BGP_RIB_PEERS];
	uint32_t pcount[BGP_RIB_PEERS],
	    pimp[BGP_RIB_PEERS],   /* paths, imported */
	    pstale[BGP_RIB_PEERS]; /* flagged stale */
	/* dests: chunked pool, index 0 unused */
	struct bgp_dest **dch;
	uint32_t ndch, dtop, dfree;
	size_t ndests;
	/* paths: the same */
	struct bgp_path **pch;
	uint32_t npch, ptop, pfree;
	size_t npaths, nbest;
	/* prefix -> dest index, 0: empty */
	uint32_t *slot;
	uint32_t cap;
	/* changed dests: dirty[head .. n) */
	uint32_t *dirty;
	size_t dhead, dn, dcap;
	/* next-hop sets, id = index + 1 */
	struct nhset *nh;
	uint32_t nnh, capnh, nhfree;
	uint32_t *nhslot; /* id, 0: empty */
	uint32_t nhcap;
	uint32_t nhused;
	bgp_rib_notify_fn *notify;
	void *notify_arg;
	/* next hops as rib resolves them (bgp_rib_nh_*): open addressing
	 * by address; nhnew: addresses not yet asked for */
	struct nht_ent *nht;
	uint32_t nhtcap, nhtn;
	uint32_t *nhnew;
	size_t nnew, capnew;
	uint32_t nht_last; /* the entry last found: paths share next hops */
};

struct nht_ent {
	uint32_t addr; /* network order; 0: empty */
	uint32_t cost;
	uint8_t state; /* enum bgp_nh_state */
};

static const char *const why_names[] = {
    [BGP_WHY_NONE] = "",
    [BGP_WHY_POLICY] = "refused by import policy",
    [BGP_WHY_LOOP] = "AS path loop",
    [BGP_WHY_LOCAL_PREF] = "lower local-preference",
    [BGP_WHY_ASPATH] = "longer AS path",
    [BGP_WHY_ORIGIN] = "higher origin",
    [BGP_WHY_MED] = "higher MED",
    [BGP_WHY_EBGP] = "iBGP path (eBGP preferred)",
    [BGP_WHY_ROUTER_ID] = "higher router id",
    [BGP_WHY_PEER_ADDR] = "higher neighbour address",
    [BGP_WHY_NH_UNREACH] = "next hop unreachable",
    [BGP_WHY_IGP_COST] = "higher IGP cost to the next hop",
};

const char *
bgp_rib_why_str(enum bgp_rib_why w)
{
	return ((unsigned)w < sizeof(why_names) / sizeof(why_names[0]) ?
		why_names[w] :
		"?");
}

/* ---- pools ----------------------------------------------------------------- */

static inline struct bgp_dest *
D(const struct bgp_rib *r, uint32_t i)
{
	return (&r->dch[i >> CHUNK_BITS][i & (CHUNK - 1)]);
}

static inline struct bgp_path *
P(const struct bgp_rib *r, uint32_t i)
{
	return (&r->pch[i >> CHUNK_BITS][i & (CHUNK - 1)]);
}

/* Room for one more chunk pointer and the chunk itself. */
static int
chunk_add(void ***ch, uint32_t *nch, size_t size)
{
	void **n = realloc(*ch, (*nch + 1) * sizeof(*n));

	if (n == NULL)
		return (-ENOMEM);
	*ch = n;
	if ((n[*nch] = malloc((size_t)CHUNK * size)) == NULL)
		return (-ENOMEM);
	(*nch)++;
	return (0);
}

static uint32_t
dest_alloc(struct bgp_rib *r)
{
	uint32_t i = r->dfree;

	if (i != 0) {
		r->dfree = D(r, i)->paths;
		return (i);
	}
	if (r->dtop == 0)
		r->dtop = 1;
	if ((r->dtop >> CHUNK_BITS) >= r->ndch &&
	    chunk_add((void ***)&r->dch, &r->ndch, sizeof(struct bgp_dest)) !=
		0)
		return (0);
	return (r->dtop++);
}

static uint32_t
path_alloc(struct bgp_rib *r)
{
	uint32_t i = r->pfree;

	if (i != 0) {
		r->pfree = P(r, i)->next;
		return (i);
	}
	if (r->ptop == 0)
		r->ptop = 1;
	if ((r->ptop >> CHUNK_BITS) >= r->npch &&
	    chunk_add((void ***)&r->pch, &r->npch, sizeof(struct bgp_path)) !=
		0)
		return (0);
	return (r->ptop++);
}

static void
path_free(struct bgp_rib *r, uint32_t i)
{
	struct bgp_path *p = P(r, i);

	r->pcount[p->peer]--;
	if (p->flags & BGP_PATH_STALE)
		r->pstale[p->peer]--;
	if (p->set != NULL)
		r->pimp[p->peer]--;
	if (p->in != NULL)
		bgp_aset_unref(r->intern, p->in);
	if (p->set != NULL)
		bgp_aset_unref(r->intern, p->set);
	p->in = p->set = NULL;
	p->next = r->pfree;
	r->pfree = i;
	r->npaths--;
}

/* ---- the prefix hash -------------------------------------------------------- */

static inline uint32_t
home_of(uint32_t cap, uint32_t addr, uint8_t len)
{
	uint64_t h = ((uint64_t)addr << 8 | len) * 0x9e3779b97f4a7c15ull;

	return ((uint32_t)(h >> 32) & (cap - 1));
}

static int
hash_grow(struct bgp_rib *r)
{
	uint32_t ncap = r->cap ? r->cap * 2 : 1024;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; i < r->cap; i++) {
		uint32_t di = r->slot[i], s;
		const struct bgp_dest *d;

		if (di == 0)
			continue;
		d = D(r, di);
		for (s = home_of(ncap, d->addr, d->len); ns[s] != 0;
		     s = (s + 1) & (ncap - 1))
			;
		ns[s] = di;
	}
	free(r->slot);
	r->slot = ns;
	r->cap = ncap;
	return (0);
}

void
bgp_rib_prefetch(const struct bgp_rib *r, uint32_t addr, uint8_t len, bool dest)
{
	uint32_t s;

	if (r->cap == 0)
		return;
	s = home_of(r->cap, addr, len);
	if (!dest) {
		__builtin_prefetch(&r->slot[s]);
		return;
	}
	if (r->slot[s] != 0) {
		const struct bgp_dest *d = D(r, r->slot[s]);

		__builtin_prefetch(d);
	}
}

/* The slot holding addr/len, or -1. */
static int64_t
hash_find(const struct bgp_rib *r, uint32_t addr, uint8_t len)
{
	if (r->cap == 0)
		return (-1);
	for (uint32_t s = home_of(r->cap, addr, len); r->slot[s] != 0;
	     s = (s + 1) & (r->cap - 1)) {
		const struct bgp_dest *d = D(r, r->slot[s]);

		if (d->addr == addr && d->len == len)
			return (s);
	}
	return (-1);
}

/* Backward-shift deletion: no tombstones. */
static void
hash_del(struct bgp_rib *r, uint32_t hole)
{
	uint32_t mask = r->cap - 1;

	r->slot[hole] = 0;
	for (uint32_t j = (hole + 1) & mask; r->slot[j] != 0;
	     j = (j + 1) & mask) {
		const struct bgp_dest *d = D(r, r->slot[j]);
		uint32_t home = home_of(r->cap, d->addr, d->len);

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			r->slot[hole] = r->slot[j];
			r->slot[j] = 0;
			hole = j;
		}
	}
}

/* The dest of addr/len, made when create; 0 when absent or out of memory
 * (*err -ENOMEM then). */
static uint32_t
dest_get(struct bgp_rib *r, uint32_t addr, uint8_t len, bool create, int *err)
{
	int64_t s = hash_find(r, addr, len);
	uint32_t di, h;
	struct bgp_dest *d;

	if (s >= 0)
		return (r->slot[s]);
	if (!create)
		return (0);
	if ((r->ndests + 1) * 4 > (size_t)r->cap * 3 && hash_grow(r) != 0) {
		*err = -ENOMEM;
		return (0);
	}
	if ((di = dest_alloc(r)) == 0) {
		*err = -ENOMEM;
		return (0);
	}
	d = D(r, di);
	memset(d, 0, sizeof(*d));
	d->addr = addr;
	d->len = len;
	for (h = home_of(r->cap, addr, len); r->slot[h] != 0;
	     h = (h + 1) & (r->cap - 1))
		;
	r->slot[h] = di;
	r->ndests++;
	return (di);
}

static void
dest_free(struct bgp_rib *r, uint32_t di)
{
	struct bgp_dest *d = D(r, di);
	int64_t s = hash_find(r, d->addr, d->len);

	if (s >= 0)
		hash_del(r, (uint32_t)s);
	d->flags = DEST_FREE;
	d->paths = r->dfree;
	r->dfree = di;
	r->ndests--;
}

static int
dirty_mark(struct bgp_rib *r, uint32_t di)
{
	struct bgp_dest *d = D(r, di);

	if (d->flags & BGP_DEST_DIRTY)
		return (0);
	if (r->dn == r->dcap) {
		size_t ncap = r->dcap ? r->dcap * 2 : 4096;
		uint32_t *n;

		if (r->dhead > 0) { /* room at the front first */
			memmove(r->dirty, r->dirty + r->dhead,
			    (r->dn - r->dhead) * sizeof(*r->dirty));
			r->dn -= r->dhead;
			r->dhead = 0;
		}
		if (r->dn == r->dcap) {
			if ((n = realloc(r->dirty, ncap * sizeof(*n))) == NULL)
				return (-ENOMEM);
			r->dirty = n;
			r->dcap = ncap;
		}
	}
	r->dirty[r->dn++] = di;
	d->flags |= BGP_DEST_DIRTY;
	return (0);
}

/* A dest whose last path went: freed now when rib has nothing of it,
 * else marked so that the drain withdraws it (and frees it then). */
static int
dest_gone(struct bgp_rib *r, uint32_t di)
{
	struct bgp_dest *d = D(r, di);

	if (d->npaths > 0)
		return (dirty_mark(r, di));
	if (d->inst == 0 && !(d->flags & BGP_DEST_DIRTY)) {
		dest_free(r, di);
		return (0);
	}
	return (dirty_mark(r, di));
}

/* ---- next-hop sets ------------------------------------------------------------ */

static uint32_t
nh_hash(const uint32_t *a, unsigned n)
{
	return ((uint32_t)bgp_hash(a, n * sizeof(*a), n));
}

static struct nhset *
NH(const struct bgp_rib *r, uint32_t id)
{
	return (&r->nh[id - 1]);
}

static int
nh_grow_slots(struct bgp_rib *r)
{
	uint32_t ncap = r->nhcap ? r->nhcap * 2 : 64;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; i < r->nhcap; i++) {
		uint32_t id = r->nhslot[i], s;

		if (id == 0)
			continue;
		for (s = NH(r, id)->hash & (ncap - 1); ns[s] != 0;
		     s = (s + 1) & (ncap - 1))
			;
		ns[s] = id;
	}
	free(r->nhslot);
	r->nhslot = ns;
	r->nhcap = ncap;
	return (0);
}

/* The id of the set a[0..n) (sorted) with a reference taken; 0 when out
 * of memory. */
static uint32_t
nh_get(struct bgp_rib *r, const uint32_t *a, unsigned n)
{
	uint32_t h = nh_hash(a, n), s, id;
	struct nhset *e;

	if (r->nhcap != 0)
		for (s = h & (r->nhcap - 1); (id = r->nhslot[s]) != 0;
		     s = (s + 1) & (r->nhcap - 1)) {
			e = NH(r, id);
			if (e->hash == h && e->n == n &&
			    memcmp(e->addr, a, n * sizeof(*a)) == 0) {
				e->refs++;
				return (id);
			}
		}
	if ((r->nhused + 1) * 2 > r->nhcap && nh_grow_slots(r) != 0)
		return (0);
	if (r->nhfree != 0) {
		id = r->nhfree;
		r->nhfree = NH(r, id)->addr[0];
	} else {
		if (r->nnh == r->capnh) {
			uint32_t ncap = r->capnh ? r->capnh * 2 : 16;
			struct nhset *nn = realloc(r->nh, ncap * sizeof(*nn));

			if (nn == NULL)
				return (0);
			r->nh = nn;
			r->capnh = ncap;
		}
		id = ++r->nnh;
	}
	e = NH(r, id);
	e->refs = 1;
	e->hash = h;
	e->n = (uint16_t)n;
	memcpy(e->addr, a, n * sizeof(*a));
	for (s = h & (r->nhcap - 1); r->nhslot[s] != 0;
	     s = (s + 1) & (r->nhcap - 1))
		;
	r->nhslot[s] = id;
	r->nhused++;
	return (id);
}

static void
nh_put(struct bgp_rib *r, uint32_t id)
{
	struct nhset *e;
	uint32_t s, mask;

	if (id == 0 || --(e = NH(r, id))->refs > 0)
		return;
	mask = r->nhcap - 1;
	for (s = e->hash & mask; r->nhslot[s] != id; s = (s + 1) & mask)
		;
	/* backward shift, as for prefixes */
	r->nhslot[s] = 0;
	for (uint32_t j = (s + 1) & mask, hole = s; r->nhslot[j] != 0;
	     j = (j + 1) & mask) {
		uint32_t home = NH(r, r->nhslot[j])->hash & mask;

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			r->nhslot[hole] = r->nhslot[j];
			r->nhslot[j] = 0;
			hole = j;
		}
	}
	e->addr[0] = r->nhfree;
	r->nhfree = id;
	r->nhused--;
}

/* ---- life cycle ------------------------------------------------------------------ */

struct bgp_rib *
bgp_rib_new(struct bgp_intern *t)
{
	struct bgp_rib *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return (NULL);
	r->intern = t;
	r->mp_max = 1;
	return (r);
}

void
bgp_rib_free(struct bgp_rib *r)
{
	if (r == NULL)
		return;
	for (uint32_t i = 1; i < r->ptop; i++) {
		struct bgp_path *p = P(r, i);

		if (p->in != NULL)
			bgp_aset_unref(r->intern, p->in);
		if (p->set != NULL)
			bgp_aset_unref(r->intern, p->set);
	}
	for (uint32_t i = 0; i < r->ndch; i++)
		free(r->dch[i]);
	for (uint32_t i = 0; i < r->npch; i++)
		free(r->pch[i]);
	free(r->dch);
	free(r->pch);
	free(r->slot);
	free(r->dirty);
	free(r->nh);
	free(r->nhslot);
	free(r->nht);
	free(r->nhnew);
	free(r);
}

/* ---- next hops as rib resolves them ---- */

static uint32_t
nht_hash(uint32_t a)
{
	return ((a * 2654435761u) >> 7);
}

/* The entry of addr, or NULL. */
static struct nht_ent *
nht_find(struct bgp_rib *r, uint32_t addr)
{
	uint32_t m = r->nhtcap - 1, i;

	if (r->nhtcap == 0)
		return (NULL);
	if (r->nht[r->nht_last].addr == addr)
		return (&r->nht[r->nht_last]);
	for (i = nht_hash(addr) & m; r->nht[i].addr != 0; i = (i + 1) & m)
		if (r->nht[i].addr == addr) {
			r->nht_last = i;
			return (&r->nht[i]);
		}
	return (NULL);
}

static int
nht_grow(struct bgp_rib *r)
{
	uint32_t cap = r->nhtcap ? r->nhtcap * 2 : 64, m = cap - 1;
	struct nht_ent *t = calloc(cap, sizeof(*t));

	if (t == NULL)
		return (-ENOMEM);
	for (uint32_t k = 0; k < r->nhtcap; k++) {
		uint32_t i;

		if (r->nht[k].addr == 0)
			continue;
		for (i = nht_hash(r->nht[k].addr) & m; t[i].addr != 0;
		     i = (i + 1) & m)
			;
		t[i] = r->nht[k];
	}
	free(r->nht);
	r->nht = t;
	r->nhtcap = cap;
	r->nht_last = 0;
	return (0);
}

static int
nhnew_push(struct bgp_rib *r, uint32_t addr)
{
	if (r->nnew == r->capnew) {
		size_t c = r->capnew ? r->capnew * 2 : 64;
		uint32_t *n = realloc(r->nhnew, c * sizeof(*n));

		if (n == NULL)
			return (-ENOMEM);
		r->nhnew = n;
		r->capnew = c;
	}
	r->nhnew[r->nnew++] = addr;
	return (0);
}

/* A next hop a path uses: known from here on, asked of rib once. */
static void
nht_note(struct bgp_rib *r, uint32_t addr)
{
	uint32_t m, i;

	if (addr == 0 || nht_find(r, addr) != NULL)
		return;
	if ((r->nhtn + 1) * 2 > r->nhtcap && nht_grow(r) != 0)
		return; /* unknown: taken as reachable, cost 0 */
	m = r->nhtcap - 1;
	for (i = nht_hash(addr) & m; r->nht[i].addr != 0; i = (i + 1) & m)
		;
	if (nhnew_push(r, addr) != 0)
		return;
	r->nht[i].addr = addr;
	r->nht[i].state = BGP_NH_UNKNOWN;
	r->nht[i].cost = 0;
	r->nhtn++;
}

size_t
bgp_rib_nh_take(struct bgp_rib *r, uint32_t *out, size_t max)
{
	size_t n = r->nnew < max ? r->nnew : max;

	memcpy(out, r->nhnew + r->nnew - n, n * sizeof(*out));
	r->nnew -= n;
	return (n);
}

void
bgp_rib_nh_rewatch(struct bgp_rib *r)
{
	r->nnew = 0;
	for (uint32_t k = 0; k < r->nhtcap; k++)
		if (r->nht[k].addr != 0 && nhnew_push(r, r->nht[k].addr) != 0)
			return;
}

size_t
bgp_rib_nh_set(struct bgp_rib *r, uint32_t addr, enum bgp_nh_state st,
    uint32_t cost)
{
	struct nht_ent *e = nht_find(r, addr);
	size_t n = 0;
	bool same;

	if (e == NULL)
		return (0);
	/* unknown counts as reachable at cost 0: rib confirming that
	 * changes no choice, and costs no walk (the first answers during
	 * a full table's arrival) */
	same = (e->state == BGP_NH_UNREACHABLE) == (st == BGP_NH_UNREACHABLE) &&
	    e->cost == cost;
	e->state = (uint8_t)st;
	e->cost = cost;
	if (same)
		return (0);
	/* every prefix with a path through it chosen again (a walk: next
	 * hops change rarely, and a reverse index would cost every path) */
	for (uint32_t di = 1; di < r->dtop; di++) {
		struct bgp_dest *d = D(r, di);

		if (d->flags & DEST_FREE)
			continue;
		for (uint32_t pi = d->paths; pi != 0; pi = P(r, pi)->next) {
			const struct bgp_path *p = P(r, pi);

			if (p->set != NULL && p->set->nexthop.s_addr == addr) {
				(void)dirty_mark(r, di);
				n++;
				break;
			}
		}
	}
	return (n);
}

enum bgp_nh_state
bgp_rib_nh_get(const struct bgp_rib *r, uint32_t addr, uint32_t *cost)
{
	struct nht_ent *e = nht_find((struct bgp_rib *)r, addr);

	*cost = e != NULL ? e->cost : 0;
	return (e != NULL ? (enum bgp_nh_state)e->state : BGP_NH_UNKNOWN);
}

void
bgp_rib_set_local_as(struct bgp_rib *r, uint32_t as)
{
	r->local_as = as;
}

void
bgp_rib_set_multipath(struct bgp_rib *r, unsigned max)
{
	max = max < 1 ? 1 : max > BGP_RIB_MP_MAX ? BGP_RIB_MP_MAX : max;
	if (max != r->mp_max) {
		r->mp_max = max;
		/* every prefix chosen again; only what changed reaches rib */
		for (uint32_t i = 1; i < r->dtop; i++) {
			struct bgp_dest *d = D(r, i);

			if (!(d->flags & DEST_FREE) && d->npaths > 0)
				(void)dirty_mark(r, i);
		}
	}
}

void
bgp_rib_peer_set(struct bgp_rib *r, unsigned id, const struct bgp_rib_peer *p)
{
	if (id > 0 && id < BGP_RIB_PEERS)
		r->peers[id] = *p;
}

/* ---- paths ------------------------------------------------------------------------ */

/* The path of peer in dest di, and (prev) the index pointing to it. */
static uint32_t
path_find(const struct bgp_rib *r, const struct bgp_dest *d, unsigned peer,
    uint32_t *prev)
{
	uint32_t pi, pv = 0;

	for (pi = d->paths; pi != 0; pv = pi, pi = P(r, pi)->next)
		if (P(r, pi)->peer == peer)
			break;
	if (prev != NULL)
		*prev = pv;
	return (pi);
}

int
bgp_rib_update(struct bgp_rib *r, unsigned peer, uint32_t addr, uint8_t len,
    struct bgp_aset *in, struct bgp_aset *set, uint8_t why)
{
	int err = 0;
	uint32_t di = dest_get(r, addr, len, true, &err), pi;
	struct bgp_dest *d;
	struct bgp_path *p;

	if (di == 0)
		return (err ? err : -ENOMEM);
	if (set != NULL)
		nht_note(r, set->nexthop.s_addr);
	d = D(r, di);
	if ((pi = path_find(r, d, peer, NULL)) != 0) {
		p = P(r, pi);
		if (p->flags & BGP_PATH_STALE) {
			p->flags &= (uint8_t)~BGP_PATH_STALE;
			r->pstale[peer]--;
		}
		if (p->in == in && p->set == set)
			return (0); /* the same again: nothing changes */
		/* the new references before the old go: they may be the
		 * same set */
		(void)bgp_aset_ref(in);
		if (set != NULL)
			(void)bgp_aset_ref(set);
		bgp_aset_unref(r->intern, p->in);
		if (p->set != NULL)
			bgp_aset_unref(r->intern, p->set);
		r->pimp[peer] += (set != NULL) - (p->set != NULL);
		p->in = in;
		p->set = set;
		p->why = set != NULL ? BGP_WHY_NONE : why;
		return (dirty_mark(r, di));
	} else {
		if ((pi = path_alloc(r)) == 0) {
			if (d->npaths == 0)
				(void)dest_gone(r, di);
			return (-ENOMEM);
		}
		d = D(r, di);
		p = P(r, pi);
		p->next = d->paths;
		p->peer = (uint16_t)peer;
		p->flags = 0;
		d->paths = pi;
		d->npaths++;
		r->npaths++;
		r->pcount[peer]++;
		if (set != NULL)
			r->pimp[peer]++;
	}
	p->in = bgp_aset_ref(in);
	p->set = set != NULL ? bgp_aset_ref(set) : NULL;
	p->why = set != NULL ? BGP_WHY_NONE : why;
	return (dirty_mark(r, di) == 0 ? 1 : -ENOMEM);
}

/* Unlinks and frees path pi (prev: its predecessor, 0: the head). */
static void
path_unlink(struct bgp_rib *r, struct bgp_dest *d, uint32_t pi, uint32_t prev)
{
	uint32_t next = P(r, pi)->next;

	if (prev == 0)
		d->paths = next;
	else
		P(r, prev)->next = next;
	d->npaths--;
	path_free(r, pi);
}

int
bgp_rib_withdraw(struct bgp_rib *r, unsigned peer, uint32_t addr, uint8_t len)
{
	int err = 0;
	uint32_t di = dest_get(r, addr, len, false, &err), pi, prev;
	struct bgp_dest *d;

	if (di == 0)
		return (0);
	d = D(r, di);
	if ((pi = path_find(r, d, peer, &prev)) == 0)
		return (0);
	path_unlink(r, d, pi, prev);
	(void)dest_gone(r, di);
	return (1);
}

size_t
bgp_rib_peer_flush(struct bgp_rib *r, unsigned peer, bool stale_only)
{
	size_t n = 0;

	for (uint32_t di = 1; di < r->dtop; di++) {
		struct bgp_dest *d = D(r, di);
		uint32_t pi, prev;

		if ((d->flags & DEST_FREE) ||
		    (pi = path_find(r, d, peer, &prev)) == 0)
			continue;
		if (stale_only && !(P(r, pi)->flags & BGP_PATH_STALE))
			continue;
		path_unlink(r, d, pi, prev);
		(void)dest_gone(r, di);
		n++;
	}
	return (n);
}

size_t
bgp_rib_peer_stale(struct bgp_rib *r, unsigned peer)
{
	size_t n = 0;

	for (uint32_t di = 1; di < r->dtop; di++) {
		struct bgp_dest *d = D(r, di);
		uint32_t pi;

		if ((d->flags & DEST_FREE) ||
		    (pi = path_find(r, d, peer, NULL)) == 0)
			continue;
		if (!(P(r, pi)->flags & BGP_PATH_STALE)) {
			P(r, pi)->flags |= BGP_PATH_STALE;
			r->pstale[peer]++;
		}
		n++;
	}
	return (n);
}

size_t
bgp_rib_reimport(struct bgp_rib *r, unsigned peer, bgp_rib_import_fn *fn,
    void *arg)
{
	size_t n = 0;

	for (uint32_t di = 1; di < r->dtop; di++) {
		struct bgp_dest *d = D(r, di);
		struct bgp_path *p;
		struct bgp_aset *s;
		uint32_t pi;
		uint8_t why = BGP_WHY_POLICY;

		if ((d->flags & DEST_FREE) ||
		    (pi = path_find(r, d, peer, NULL)) == 0)
			continue;
		p = P(r, pi);
		s = fn(arg, d->addr, d->len, p->in, &why);
		if (s == p->set) {
			if (s != NULL)
				bgp_aset_unref(r->intern, s);
			continue;
		}
		if (p->set != NULL)
			bgp_aset_unref(r->intern, p->set);
		r->pimp[peer] += (s != NULL) - (p->set != NULL);
		p->set = s; /* fn's reference */
		if (s != NULL)
			nht_note(r, s->nexthop.s_addr);
		p->why = s != NULL ? BGP_WHY_NONE : why;
		(void)dirty_mark(r, di);
		n++;
	}
	return (n);
}

void
bgp_rib_peer_counts(const struct bgp_rib *r, unsigned peer, size_t *all,
    size_t *imported)
{
	*all = peer < BGP_RIB_PEERS ? r->pcount[peer] : 0;
	*imported = peer < BGP_RIB_PEERS ? r->pimp[peer] : 0;
}

size_t
bgp_rib_peer_stale_count(const struct bgp_rib *r, unsigned peer)
{
	return (peer < BGP_RIB_PEERS ? r->pstale[peer] : 0);
}

/* ---- best path ----------------------------------------------------------------------- */

/* The IGP cost of a next hop (0 while rib has not said). */
static uint32_t
nh_cost(const struct bgp_rib *r, uint32_t addr)
{
	const struct nht_ent *e = nht_find((struct bgp_rib *)r, addr);

	return (e != NULL ? e->cost : 0);
}

/* Whether rib said the next hop does not resolve (RFC 4271 9.1.2.1: such
 * a path is not used). */
static bool
nh_down(const struct bgp_rib *r, uint32_t addr)
{
	const struct nht_ent *e;

	if (r->nhtn == 0)
		return (false);
	e = nht_find((struct bgp_rib *)r, addr);
	return (e != NULL && e->state == BGP_NH_UNREACHABLE);
}

/*
 * RFC 4271 9.1.2.2 with the usual tie-breakers: < 0 when a is better, > 0
 * when b is; *step is the rule that decided (enum bgp_rib_why), or
 * BGP_WHY_NONE for the same path. Rules before BGP_WHY_ROUTER_ID decide
 * whether two paths are equal for multipath.
 */
static inline int
sets_cmp(const struct bgp_rib *r, unsigned peer_a, const struct bgp_aset *x,
    unsigned peer_b, const struct bgp_aset *y, uint8_t *step)
{
	const struct bgp_rib_peer *pa = &r->peers[peer_a],
				  *pb = &r->peers[peer_b];

#define RULE(w, c)                   \
	do {                         \
		int c_ = (c);        \
		if (c_ != 0) {       \
			*step = (w); \
			return (c_); \
		}                    \
	} while (0)
#define CMP(u, v) ((u) < (v) ? -1 : (u) > (v) ? 1 : 0)
	RULE(BGP_WHY_LOCAL_PREF, CMP(y->local_pref, x->local_pref));
	RULE(BGP_WHY_ASPATH, CMP(x->aspath_count, y->aspath_count));
	RULE(BGP_WHY_ORIGIN, CMP(x->origin, y->origin));
	/* MED only between paths from the same neighbouring AS; a missing
	 * MED is the lowest (RFC 4271 9.1.2.2 c) */
	if (x->first_as == y->first_as)
		RULE(BGP_WHY_MED, CMP(x->med, y->med));
	RULE(BGP_WHY_EBGP, CMP(!pa->ebgp, !pb->ebgp));
	/* the IGP cost of the next hop, as rib resolves it */
	if (x->nexthop.s_addr != y->nexthop.s_addr && r->nhtn > 0)
		RULE(BGP_WHY_IGP_COST,
		    CMP(nh_cost(r, x->nexthop.s_addr),
			nh_cost(r, y->nexthop.s_addr)));
	RULE(BGP_WHY_ROUTER_ID,
	    CMP(ntohl(pa->router_id), ntohl(pb->router_id)));
	RULE(BGP_WHY_PEER_ADDR, CMP(ntohl(pa->addr), ntohl(pb->addr)));
#undef RULE
#undef CMP
	*step = BGP_WHY_NONE;
	return (0);
}

static int
path_cmp(const struct bgp_rib *r, const struct bgp_path *a,
    const struct bgp_path *b, uint8_t *step)
{
	return (sets_cmp(r, a->peer, a->set, b->peer, b->set, step));
}

int
bgp_rib_path_cmp(const struct bgp_rib *r, unsigned peer_a,
    const struct bgp_aset *a, unsigned peer_b, const struct bgp_aset *b,
    uint8_t *step)
{
	return (sets_cmp(r, peer_a, a, peer_b, b, step));
}

uint32_t
bgp_rib_local_as(const struct bgp_rib *r)
{
	return (r->local_as);
}

static int
u32_cmp(const void *a, const void *b)
{
	uint32_t x = ntohl(*(const uint32_t *)a),
		 y = ntohl(*(const uint32_t *)b);

	return (x < y ? -1 : x > y);
}

/* Chooses the best path of d (flags BGP_PATH_BEST, each loser's why) and
 * writes the next hops to install into nh: their number, 0 for none. */
static unsigned
best_of(struct bgp_rib *r, struct bgp_dest *d, uint32_t *nh)
{
	uint32_t pi, bi = 0;
	struct bgp_path *b = NULL;
	unsigned n = 0;
	uint8_t step;

	for (pi = d->paths; pi != 0; pi = P(r, pi)->next) {
		struct bgp_path *p = P(r, pi);

		p->flags &= (uint8_t)~BGP_PATH_BEST;
		if (p->set == NULL)
			continue;
		if (nh_down(r, p->set->nexthop.s_addr)) {
			p->why = BGP_WHY_NH_UNREACH;
			continue;
		}
		if (b == NULL || path_cmp(r, p, b, &step) < 0) {
			b = p;
			bi = pi;
		}
	}
	if (b == NULL)
		return (0);
	b->flags |= BGP_PATH_BEST;
	b->why = BGP_WHY_NONE;
	nh[n++] = b->set->nexthop.s_addr;
	for (pi = d->paths; pi != 0; pi = P(r, pi)->next) {
		struct bgp_path *p = P(r, pi);
		bool dup = false;

		if (pi == bi || p->set == NULL ||
		    nh_down(r, p->set->nexthop.s_addr))
			continue;
		(void)path_cmp(r, b, p, &step);
		p->why = step;
		/* multipath: equal up to the router id (IGP cost included),
		 * from the same neighbouring AS (as FRR and Junos without
		 * multiple-as) */
		if (r->mp_max <= 1 || n >= r->mp_max ||
		    (step != BGP_WHY_ROUTER_ID && step != BGP_WHY_PEER_ADDR) ||
		    p->set->first_as != b->set->first_as)
			continue;
		for (unsigned i = 0; i < n; i++)
			dup |= nh[i] == p->set->nexthop.s_addr;
		p->flags |= BGP_PATH_BEST;
		if (!dup)
			nh[n++] = p->set->nexthop.s_addr;
	}
	if (n > 1)
		qsort(nh, n, sizeof(*nh), u32_cmp);
	return (n);
}

size_t
bgp_rib_drain(struct bgp_rib *r, size_t max, bgp_rib_emit_fn *emit, void *arg)
{
	uint32_t nh[BGP_RIB_MP_MAX];
	size_t done = 0;

	while (r->dhead < r->dn && done < max) {
		uint32_t di = r->dirty[r->dhead];
		struct bgp_dest *d = D(r, di);
		unsigned n = best_of(r, d, nh);
		uint32_t id = 0;
		bool had = d->inst != 0;

		if (n > 0 && (id = nh_get(r, nh, n)) == 0)
			break; /* out of memory: try again next turn */
		if (r->notify != NULL)
			r->notify(r->notify_arg, d);
		if (id != d->inst) {
			if (emit(arg, d, id, nh, n) < 0) {
				nh_put(r, id);
				break;
			}
			nh_put(r, d->inst);
			d->inst = id;
			if (n > 0 && !had)
				r->nbest++;
			else if (n == 0 && had)
				r->nbest--;
		} else {
			nh_put(r, id);
		}
		d->flags &= (uint8_t)~BGP_DEST_DIRTY;
		r->dhead++;
		done++;
		if (d->npaths == 0 && d->inst == 0)
			dest_free(r, di);
	}
	if (r->dhead == r->dn)
		r->dhead = r->dn = 0;
	return (done);
}

size_t
bgp_rib_pending(const struct bgp_rib *r)
{
	return (r->dn - r->dhead);
}

void
bgp_rib_set_notify(struct bgp_rib *r, bgp_rib_notify_fn *fn, void *arg)
{
	r->notify = fn;
	r->notify_arg = arg;
}

const struct bgp_dest *
bgp_rib_next(const struct bgp_rib *r, uint32_t *cursor)
{
	for (uint32_t di = *cursor ? *cursor : 1; di < r->dtop; di++) {
		const struct bgp_dest *d = D(r, di);

		if (!(d->flags & DEST_FREE) && d->npaths > 0) {
			*cursor = di + 1;
			return (d);
		}
	}
	*cursor = r->dtop;
	return (NULL);
}

const struct bgp_path *
bgp_rib_best(const struct bgp_rib *r, const struct bgp_dest *d)
{
	for (uint32_t pi = d->paths; pi != 0; pi = P(r, pi)->next) {
		const struct bgp_path *p = P(r, pi);

		if ((p->flags & BGP_PATH_BEST) && p->why == BGP_WHY_NONE &&
		    p->set != NULL)
			return (p);
	}
	return (NULL);
}

const struct bgp_rib_peer *
bgp_rib_peer_get(const struct bgp_rib *r, unsigned id)
{
	return (id < BGP_RIB_PEERS ? &r->peers[id] : NULL);
}

uint32_t
bgp_rib_nhid_end(const struct bgp_rib *r)
{
	return (r->nnh + 1);
}

void
bgp_rib_resend_all(struct bgp_rib *r)
{
	for (uint32_t di = 1; di < r->dtop; di++) {
		struct bgp_dest *d = D(r, di);

		if (d->flags & DEST_FREE)
			continue;
		if (d->inst != 0) {
			nh_put(r, d->inst);
			d->inst = 0;
			r->nbest--;
		}
		if (d->npaths > 0)
			(void)dirty_mark(r, di);
	}
}

/* ---- lookups --------------------------------------------------------------------------- */

const struct bgp_dest *
bgp_rib_find(const struct bgp_rib *r, uint32_t addr, uint8_t len)
{
	int64_t s = hash_find(r, addr, len);

	return (s >= 0 ? D(r, r->slot[s]) : NULL);
}

const struct bgp_path *
bgp_rib_path(const struct bgp_rib *r, uint32_t idx)
{
	return (idx != 0 && idx < r->ptop ? P(r, idx) : NULL);
}

void
bgp_rib_walk(const struct bgp_rib *r,
    int (*fn)(void *, const struct bgp_dest *), void *arg)
{
	for (uint32_t di = 1; di < r->dtop; di++) {
		const struct bgp_dest *d = D(r, di);

		if (!(d->flags & DEST_FREE) && d->npaths > 0 && fn(arg, d) != 0)
			return;
	}
}

void
bgp_rib_stats(const struct bgp_rib *r, struct bgp_rib_stats *s)
{
	s->dests = r->ndests;
	s->paths = r->npaths;
	s->best = r->nbest;
	s->nhsets = r->nhused;
	s->bytes = (size_t)r->ndch * CHUNK * sizeof(struct bgp_dest) +
	    (size_t)r->npch * CHUNK * sizeof(struct bgp_path) +
	    (size_t)r->cap * sizeof(uint32_t) + r->dcap * sizeof(uint32_t) +
	    (size_t)r->capnh * sizeof(struct nhset) +
	    (size_t)r->nhcap * sizeof(uint32_t);
}
