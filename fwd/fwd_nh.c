/* fwd/fwd_nh.c: tern-fwd's next hops and ECMP groups, interned into
 * adjacencies and counted by the routes that use them; route add and
 * delete, connected routes, and the resync that sweeps what the RIB did not
 * send again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_log.h"
#include "fwd_d_int.h"

/* ---- next hops and groups interned into adjacencies ---- */

static uint32_t
h32(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return ((uint32_t)x);
}

static uint32_t
nh_hash(uint32_t gw, uint32_t ifindex)
{
	return (h32(((uint64_t)ifindex << 32) | gw));
}

static uint32_t
grp_hash(const uint16_t *m, unsigned n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < n; i++)
		x = (x ^ m[i]) * 0x100000001b3ull;
	return (h32(x) ^ 0x80000000u);
}

static void
hash_insert(struct fwd_d *d, uint32_t idx, uint32_t h)
{
	uint32_t *b = &d->hbucket[h & (d->nbucket - 1)];

	d->rec[idx].hash = h;
	d->rec[idx].hnext = *b;
	*b = idx + 1;
}

static void
hash_remove(struct fwd_d *d, uint32_t idx)
{
	uint32_t *pp = &d->hbucket[d->rec[idx].hash & (d->nbucket - 1)];

	while (*pp != 0 && *pp != idx + 1)
		pp = &d->rec[*pp - 1].hnext;
	if (*pp == idx + 1)
		*pp = d->rec[idx].hnext;
	d->rec[idx].hnext = 0;
}

static int
rec_find_nh(struct fwd_d *d, uint32_t gw, uint32_t ifindex)
{
	uint32_t h = nh_hash(gw, ifindex);

	for (uint32_t i = d->hbucket[h & (d->nbucket - 1)]; i != 0;
	     i = d->rec[i - 1].hnext) {
		const struct fwd_rec *r = &d->rec[i - 1];

		if (r->kind == FWD_REC_NH && r->hash == h && r->gw == gw &&
		    r->ifindex == ifindex)
			return ((int)i - 1);
	}
	return (-1);
}

static int
rec_find_grp(struct fwd_d *d, const uint16_t *m, unsigned n, uint32_t h)
{
	for (uint32_t i = d->hbucket[h & (d->nbucket - 1)]; i != 0;
	     i = d->rec[i - 1].hnext) {
		const struct fwd_rec *r = &d->rec[i - 1];

		if (r->kind == FWD_REC_GROUP && r->hash == h && r->nm == n &&
		    memcmp(r->m, m, n * sizeof(*m)) == 0)
			return ((int)i - 1);
	}
	return (-1);
}

/* The port an NH record uses now: its interface's, or for ifindex 0 the
 * interface whose subnet holds gw; FWD_D_PORT_DEAD when none is attached. */
static uint16_t
nh_port(struct fwd_d *d, const struct fwd_rec *r)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached)
			continue;
		if (r->ifindex != 0) {
			if (f->ifindex == r->ifindex)
				return ((uint16_t)i);
			continue;
		}
		for (unsigned k = 0; k < f->naddr; k++)
			if (f->plen[k] < 32 &&
			    ((f->addr[k] ^ r->gw) & fwd_pmask(f->plen[k])) == 0)
				return ((uint16_t)i);
	}
	return (FWD_D_PORT_DEAD);
}

static void nh_bind6(struct fwd_d *, uint32_t idx, bool force);

/* (Re)point NH record idx at its port; resolve the gateway ahead. */
void
fwd_nh_bind(struct fwd_d *d, uint32_t idx, bool force)
{
	struct fwd_rec *r = &d->rec[idx];
	const struct fwd_adj *a = &d->adj->ent[idx];
	uint16_t port = nh_port(d, r);
	struct fwd_neigh_info ni;
	const uint8_t *mac = NULL;

	if (r->kind != FWD_REC_NH)
		return;
	if (r->v6) {
		nh_bind6(d, idx, force);
		return;
	}
	if (!force && a->port == port &&
	    a->kind == (r->gw == 0 ? FWD_ADJ_K_GLEAN : FWD_ADJ_K_NH))
		return;
	if (r->gw == 0) {
		(void)fwd_adj_set_glean(d->adj, idx, port);
		return;
	}
	if (port != FWD_D_PORT_DEAD &&
	    fwd_arp_get(d->arp, port, r->gw, &ni) == 0 &&
	    ni.state != FWD_NEIGH_INCOMPLETE)
		mac = ni.mac;
	(void)fwd_adj_set_nh(d->adj, idx, port, r->gw, mac);
	if (mac == NULL && port != FWD_D_PORT_DEAD) {
		/* binding many next hops at once must not overflow the
		 * control thread's output (64 frames) */
		if (d->out->n >= FWD_OUT_MAX - 1)
			fwd_d_out_flush(d);
		(void)fwd_arp_resolve(d->arp, port, r->gw, port, NULL, 0,
		    fwd_d_now_ms(d), d->out);
	}
}

void
fwd_nh_rebind_all(struct fwd_d *d)
{
	for (uint32_t i = 0; i < d->adj->size; i++)
		if (d->rec[i].kind == FWD_REC_NH && !d->rec[i].dying)
			fwd_nh_bind(d, i, false);
	fwd_d_out_flush(d);
}

/* Release adjacencies whose grace period ended. */
void
fwd_nh_reclaim(struct fwd_d *d)
{
	for (unsigned i = 0; i < d->npend;) {
		struct fwd_pending *p = &d->pend[i];

		if (!fwd_qsbr_check(d->qsbr, p->tok)) {
			i++;
			continue;
		}
		{
			uint32_t idx = p->idx;
			struct fwd_rec r = d->rec[idx];

			*p = d->pend[--d->npend];
			memset(&d->rec[idx], 0, sizeof(d->rec[idx]));
			fwd_adj_release(d->adj, idx);
			if (r.kind == FWD_REC_GROUP)
				for (unsigned k = 0; k < r.nm; k++)
					fwd_nh_unhold(d, r.m[k]);
		}
	}
}

/* No route or holder left: unhash now, release after a grace period (a
 * worker may still have the index from a lookup made before). */
static void
rec_check(struct fwd_d *d, uint32_t idx)
{
	struct fwd_rec *r = &d->rec[idx];

	if (r->kind == FWD_REC_NONE || r->dying || r->routes + r->hold > 0)
		return;
	hash_remove(d, idx);
	r->dying = true;
	if (d->npend == d->pend_cap) {
		unsigned nc = d->pend_cap ? d->pend_cap * 2 : 64;
		struct fwd_pending *np = realloc(d->pend, nc * sizeof(*np));

		if (np == NULL) {
			/* no room to defer: wait for the readers now */
			fwd_qsbr_synchronize(d->qsbr);
			r->dying = false;
			memset(r, 0, sizeof(*r));
			fwd_adj_release(d->adj, idx);
			return;
		}
		d->pend = np;
		d->pend_cap = nc;
	}
	d->pend[d->npend].idx = idx;
	d->pend[d->npend].tok = fwd_qsbr_start(d->qsbr);
	d->npend++;
}

void
fwd_nh_unhold(struct fwd_d *d, uint32_t idx)
{
	if (idx < d->adj->size && d->rec[idx].hold > 0) {
		d->rec[idx].hold--;
		rec_check(d, idx);
	}
}

static int
adj_alloc(struct fwd_d *d)
{
	int idx = fwd_adj_alloc(d->adj);

	if (idx < 0 && d->npend > 0) {
		fwd_nh_reclaim(d);
		idx = fwd_adj_alloc(d->adj);
	}
	if (idx < 0 && d->npend > 0) {
		/* Out of room and the workers have not passed a quiescent
		 * point since the last releases (a loaded machine): wait for
		 * them (they do between bursts), as an RCU writer would,
		 * rather than refuse the route. */
		fwd_qsbr_synchronize(d->qsbr);
		fwd_nh_reclaim(d);
		idx = fwd_adj_alloc(d->adj);
	}
	if (idx >= 0 && (unsigned)idx >= d->adj->size)
		return (-ENOSPC);
	return (idx);
}

/* The adjacency of next hop (gw, ifindex), created when new (no ref taken). */
int
fwd_nh_intern(struct fwd_d *d, uint32_t gw, uint32_t ifindex)
{
	int idx = rec_find_nh(d, gw, ifindex);
	struct fwd_rec *r;

	if (idx >= 0)
		return (idx);
	if ((idx = adj_alloc(d)) < 0)
		return (idx);
	r = &d->rec[idx];
	memset(r, 0, sizeof(*r));
	r->kind = FWD_REC_NH;
	r->gw = gw;
	r->ifindex = ifindex;
	hash_insert(d, (uint32_t)idx, nh_hash(gw, ifindex));
	fwd_nh_bind(d, (uint32_t)idx, true);
	return (idx);
}

static int
cmp_u16(const void *a, const void *b)
{
	return ((int)*(const uint16_t *)a - (int)*(const uint16_t *)b);
}

/* An ECMP group of the member adjacencies (sorted, unique; n >= 2). */
static int
intern_group(struct fwd_d *d, const uint16_t *m, unsigned n)
{
	uint32_t h = grp_hash(m, n);
	int idx = rec_find_grp(d, m, n, h), rv;
	struct fwd_rec *r;

	if (idx >= 0)
		return (idx);
	if ((idx = adj_alloc(d)) < 0)
		return (idx);
	if ((rv = fwd_adj_set_group(d->adj, (unsigned)idx, m, n)) != 0) {
		fwd_adj_release(d->adj, (unsigned)idx);
		return (rv);
	}
	r = &d->rec[idx];
	memset(r, 0, sizeof(*r));
	r->kind = FWD_REC_GROUP;
	r->nm = (uint8_t)n;
	memcpy(r->m, m, n * sizeof(*m));
	for (unsigned i = 0; i < n; i++)
		d->rec[m[i]].hold++;
	hash_insert(d, (uint32_t)idx, h);
	return (idx);
}

static bool
rec_mine(const struct fwd_d *d, unsigned idx)
{
	return (idx < d->adj->size && d->rec[idx].kind != FWD_REC_NONE);
}

/*
 * The adjacency a route with next hops m[0..nm) (interned, nm >= 1) points
 * at: the one, or the ECMP group of them (sorted, unique). Its index, or
 * -errno with the members' references let go.
 */
static int
members_adj(struct fwd_d *d, uint16_t *m, unsigned nm)
{
	unsigned u = 1;
	int idx;

	if (nm > 1)
		qsort(m, nm, sizeof(*m), cmp_u16);
	for (unsigned i = 1; i < nm; i++)
		if (m[i] != m[u - 1])
			m[u++] = m[i];
	nm = u;
	if (nm == 1)
		return (m[0]);
	if ((idx = intern_group(d, m, nm)) < 0)
		for (unsigned k = 0; k < nm; k++)
			rec_check(d, m[k]);
	return (idx);
}

/* After a FIB add of a route to idx (rv its result; had: the route was
 * there, to old): the route references moved. Returns rv. */
static int
route_ref_move(struct fwd_d *d, int rv, uint32_t idx, bool had, unsigned old)
{
	if (rv != 0) {
		if (rec_mine(d, idx))
			rec_check(d, idx);
		return (rv);
	}
	if (rec_mine(d, idx))
		d->rec[idx].routes++;
	if (had && rec_mine(d, old) && d->rec[old].routes > 0) {
		d->rec[old].routes--;
		rec_check(d, old);
	}
	return (0);
}

/* pfx/len -> idx in the FIB, moving the route reference. */
static int
route_set(struct fwd_d *d, uint32_t pfx, unsigned len, uint32_t idx)
{
	unsigned old;
	bool had = fwd_fib_get(d->fib, pfx, len, &old) == 0;

	return (route_ref_move(d, fwd_fib_add(d->fib, pfx, len, idx), idx, had,
	    old));
}

int
fwd_d_route_add(struct fwd_d *d, uint32_t pfx, unsigned len, const uint32_t *gw,
    const uint32_t *ifindex, unsigned n)
{
	uint16_t m[FWD_ADJ_GROUP_MAX];
	unsigned nm = 0;
	int idx;

	if (len > 32 || (pfx & ~fwd_pmask(len)) != 0 || n > FWD_ADJ_GROUP_MAX)
		return (-EINVAL);
	for (unsigned i = 0; i < n; i++)
		if (gw[i] == 0 && ifindex[i] == 0)
			return (-EINVAL);
	if (n == 0)
		return (fwd_d_route_nonh(d, pfx, len, 1));
	for (unsigned i = 0; i < n; i++) {
		if ((idx = fwd_nh_intern(d, gw[i], ifindex[i])) < 0) {
			for (unsigned k = 0; k < nm; k++)
				rec_check(d, m[k]);
			return (idx);
		}
		m[nm++] = (uint16_t)idx;
	}
	if ((idx = members_adj(d, m, nm)) < 0)
		return (idx);
	return (route_set(d, pfx, len, (uint32_t)idx));
}

int
fwd_d_route_nonh(struct fwd_d *d, uint32_t pfx, unsigned len, unsigned kind)
{
	if (len > 32 || (pfx & ~fwd_pmask(len)) != 0 || kind > 2)
		return (-EINVAL);
	return (route_set(d, pfx, len,
	    (uint32_t)(kind == 2 ? d->reject_adj : d->drop_adj)));
}

unsigned
fwd_d_nh_kind(const struct fwd_d *d, unsigned nh)
{
	if (nh == (unsigned)d->drop_adj)
		return (1);
	if (nh == (unsigned)d->reject_adj)
		return (2);
	return (0);
}

/* Is pfx/len a connected prefix of an attached interface? Its glean. */
static int
conn_owner(struct fwd_d *d, uint32_t pfx, unsigned len)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached || f->glean < 0)
			continue;
		for (unsigned k = 0; k < f->naddr; k++)
			if (f->plen[k] == len && len < 32 &&
			    (f->addr[k] & fwd_pmask(len)) == pfx)
				return (f->glean);
	}
	return (-1);
}

int
fwd_d_route_del(struct fwd_d *d, uint32_t pfx, unsigned len)
{
	unsigned old;
	int g;

	if (len > 32 || (pfx & ~fwd_pmask(len)) != 0)
		return (-EINVAL);
	if (fwd_fib_get(d->fib, pfx, len, &old) != 0)
		return (0);
	/* a connected prefix falls back to fwd's own route, not to nothing */
	if ((g = conn_owner(d, pfx, len)) >= 0)
		return (route_set(d, pfx, len, (uint32_t)g));
	if (fwd_fib_del(d->fib, pfx, len) != 0)
		return (0);
	if (rec_mine(d, old) && d->rec[old].routes > 0) {
		d->rec[old].routes--;
		rec_check(d, old);
	}
	return (0);
}

void
fwd_d_fib_tune(struct fwd_d *d)
{
	size_t n = fwd_fib_count(d->fib);
	unsigned want = d->dp_flags;

	if (n > FWD_D_BURST_ON)
		want |= FWD_DP_F_BURST_LOOKUP;
	else if (n < FWD_D_BURST_ON / 2)
		want &= ~(unsigned)FWD_DP_F_BURST_LOOKUP;
	if (want == d->dp_flags)
		return;
	d->dp_flags = want;
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx(
		    "a worker did not take the new lookup mode in 1 s");
	lc_log_info("%zu routes: burst lookups %s", n,
	    want & FWD_DP_F_BURST_LOOKUP ? "on" : "off");
}

/* ---- connected routes ---- */

void
fwd_conn_add(struct fwd_d *d, struct fwd_iface *f, unsigned k)
{
	uint32_t p = f->addr[k] & fwd_pmask(f->plen[k]);
	unsigned nh;

	if (f->plen[k] >= 32 || f->glean < 0 ||
	    fwd_fib_get(d->fib, p, f->plen[k], &nh) == 0)
		return;
	if (route_set(d, p, f->plen[k], (uint32_t)f->glean) != 0)
		lc_log_warnx("%s: cannot add connected route", f->name);
}

void
fwd_conn_del(struct fwd_d *d, struct fwd_iface *f, uint32_t ip, unsigned plen)
{
	uint32_t p = ip & fwd_pmask(plen);
	unsigned nh;

	if (plen >= 32)
		return;
	for (unsigned k = 0; k < f->naddr; k++)
		if (f->plen[k] == plen && (f->addr[k] & fwd_pmask(plen)) == p)
			return; /* still connected through another address */
	if (fwd_fib_get(d->fib, p, plen, &nh) != 0 || nh != (unsigned)f->glean)
		return;
	if (fwd_fib_del(d->fib, p, plen) == 0 && d->rec[nh].routes > 0) {
		d->rec[nh].routes--;
		rec_check(d, nh);
	}
}

/* ---- resync ---- */

void
fwd_d_resync_begin(struct fwd_d *d)
{
	fwd_fib_mark_stale(d->fib);
	fwd_fib6_mark_stale(d->fib6);
	d->resyncing = true;
	d->st.resyncs++;
}

struct rvec {
	struct fwd_d *d;
	uint32_t *v;
	size_t n, cap;
};

static int
collect_own(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	struct rvec *rv = arg;
	struct fwd_d *d = rv->d;

	/* ARP's host routes: /32 to an adjacency the RIB side does not own */
	if (len != 32 || nh >= d->adj->size || rec_mine(d, nh) ||
	    d->adj->ent[nh].kind != FWD_ADJ_K_NH)
		return (0);
	if (rv->n + 2 > rv->cap) {
		size_t nc = rv->cap ? rv->cap * 2 : 256;

		/* a host route left out would be swept: no way on without */
		rv->v = lc_xrealloc(rv->v, nc * sizeof(*rv->v),
		    "tern-fwd resync: ARP host routes");
		rv->cap = nc;
	}
	rv->v[rv->n++] = pfx;
	rv->v[rv->n++] = nh;
	return (0);
}

static int
count_routes(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	struct fwd_d *d = arg;

	(void)pfx;
	(void)len;
	if (rec_mine(d, nh))
		d->rec[nh].routes++;
	return (0);
}

static int
count_routes6(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg)
{
	(void)pfx;
	return (count_routes(0, len, nh, arg));
}

/* Route references from a walk of both FIBs (after a sweep deleted routes
 * without telling whose they were). */
static void
recount(struct fwd_d *d)
{
	for (uint32_t i = 0; i < d->adj->size; i++)
		d->rec[i].routes = 0;
	(void)fwd_fib_walk(d->fib, count_routes, d);
	(void)fwd_fib6_walk(d->fib6, count_routes6, d);
	for (uint32_t i = 0; i < d->adj->size; i++)
		rec_check(d, i);
}

static void resync_own6(struct fwd_d *);
static int addr6_install(struct fwd_d *, struct fwd_iface *, unsigned k);

size_t
fwd_d_resync_end(struct fwd_d *d)
{
	struct rvec c = {d, NULL, 0, 0};
	size_t swept;

	/* fwd's own routes are not the RIB's to sweep: refresh them */
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached)
			continue;
		for (unsigned k = 0; k < f->naddr; k++) {
			uint32_t p = f->addr[k] & fwd_pmask(f->plen[k]);
			unsigned nh;

			if (f->plen[k] < 32 &&
			    fwd_fib_get(d->fib, p, f->plen[k], &nh) == 0 &&
			    nh == (unsigned)f->glean)
				(void)fwd_fib_add(d->fib, p, f->plen[k], nh);
		}
	}
	(void)fwd_fib_walk(d->fib, collect_own, &c);
	for (size_t i = 0; i < c.n; i += 2)
		(void)fwd_fib_add(d->fib, c.v[i], 32, c.v[i + 1]);
	free(c.v);
	resync_own6(d);
	swept = fwd_fib_sweep_stale(d->fib) + fwd_fib6_sweep_stale(d->fib6);
	if (swept > 0)
		recount(d);
	/* a connected prefix the RIB no longer had: back to fwd's own */
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && d->ifs[i].attached) {
			for (unsigned k = 0; k < d->ifs[i].naddr; k++)
				fwd_conn_add(d, &d->ifs[i], k);
			for (unsigned k = 0; k < d->ifs[i].nuse6; k++)
				(void)addr6_install(d, &d->ifs[i], k);
		}
	d->resyncing = false;
	d->st.swept += swept;
	return (swept);
}

/* A next-hop record's interface: its own, else its adjacency's port's. */
static uint32_t
rec_ifindex(const struct fwd_d *d, unsigned nh)
{
	uint16_t p;

	if (d->rec[nh].ifindex != 0)
		return (d->rec[nh].ifindex);
	p = d->adj->ent[nh].port;
	return (p < FWD_D_IF_MAX && d->ifs[p].used ? d->ifs[p].ifindex : 0);
}

unsigned
fwd_d_nh_describe(struct fwd_d *d, unsigned nh, uint32_t *gw, uint32_t *ifindex,
    unsigned max)
{
	const struct fwd_adj *a;

	if (nh >= d->adj->size || max == 0)
		return (0);
	if (d->rec[nh].kind == FWD_REC_NH) {
		gw[0] = d->rec[nh].gw;
		ifindex[0] = rec_ifindex(d, nh);
		return (1);
	}
	if (d->rec[nh].kind == FWD_REC_GROUP) {
		unsigned n = 0;

		for (unsigned i = 0; i < d->rec[nh].nm && n < max; i++)
			n += fwd_d_nh_describe(d, d->rec[nh].m[i], gw + n,
			    ifindex + n, max - n);
		return (n);
	}
	a = &d->adj->ent[nh];
	if (a->kind == FWD_ADJ_K_NH || a->kind == FWD_ADJ_K_GLEAN) {
		gw[0] = a->kind == FWD_ADJ_K_NH ? a->gw : 0;
		ifindex[0] = a->port < FWD_D_IF_MAX && d->ifs[a->port].used ?
		    d->ifs[a->port].ifindex :
		    0;
		return (1);
	}
	return (0);
}

/* ---- the record table ---- */

int
fwd_nh_init(struct fwd_d *d)
{
	if ((d->rec = calloc(d->conf.max_nh, sizeof(*d->rec))) == NULL)
		return (-ENOMEM);
	for (d->nbucket = 64; d->nbucket < d->conf.max_nh; d->nbucket *= 2)
		;
	if ((d->hbucket = calloc(d->nbucket, sizeof(*d->hbucket))) == NULL)
		return (-ENOMEM);
	/* blackhole routes share one permanent drop adjacency */
	if ((d->drop_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_drop(d->adj, (unsigned)d->drop_adj) != 0)
		return (-ENOMEM);
	d->rec[d->drop_adj].kind = FWD_REC_DROP;
	d->rec[d->drop_adj].hold = 1;
	/* and reject routes one reject adjacency */
	if ((d->reject_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_reject(d->adj, (unsigned)d->reject_adj) != 0)
		return (-ENOMEM);
	d->rec[d->reject_adj].kind = FWD_REC_DROP;
	d->rec[d->reject_adj].hold = 1;
	/* the router's own addresses are pinned in the FIB to a LOCAL one */
	if ((d->local_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_local(d->adj, (unsigned)d->local_adj) != 0 ||
	    fwd_local_bind(&d->local, d->fib, (unsigned)d->local_adj) != 0)
		return (-ENOMEM);
	d->rec[d->local_adj].kind = FWD_REC_DROP;
	d->rec[d->local_adj].hold = 1;
	return (0);
}

void
fwd_nh_fini(struct fwd_d *d)
{
	free(d->rec);
	free(d->hbucket);
	free(d->pend);
	d->rec = NULL;
	d->hbucket = NULL;
	d->pend = NULL;
}

/* ---- IPv6: next hops, routes, the router's addresses ---- */

static const uint8_t zero6[16];

static bool
pfx6_has(const uint8_t *pfx, unsigned plen, const uint8_t *a)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(pfx, a, full) != 0)
		return (false);
	return (rest == 0 ||
	    ((pfx[full] ^ a[full]) & (uint8_t)(0xff << (8 - rest))) == 0);
}

static void
pfx6_mask(uint8_t *out, const uint8_t *a, unsigned plen)
{
	memcpy(out, a, 16);
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			out[i] &= (uint8_t)(0xff00 >> bits);
	}
}

static uint32_t
nh6_hash(const uint8_t *gw6, uint32_t ifindex)
{
	uint64_t a, b;

	memcpy(&a, gw6, 8);
	memcpy(&b, gw6 + 8, 8);
	return (h32(a ^ h32(b ^ ifindex) ^ 0x6666666666666666ull));
}

static int
rec_find_nh6(struct fwd_d *d, const uint8_t *gw6, uint32_t ifindex)
{
	uint32_t h = nh6_hash(gw6, ifindex);

	for (uint32_t i = d->hbucket[h & (d->nbucket - 1)]; i != 0;
	     i = d->rec[i - 1].hnext) {
		const struct fwd_rec *r = &d->rec[i - 1];

		if (r->kind == FWD_REC_NH && r->v6 && r->hash == h &&
		    r->ifindex == ifindex && memcmp(r->gw6, gw6, 16) == 0)
			return ((int)i - 1);
	}
	return (-1);
}

/* The port of an IPv6 NH record: its interface's, or for ifindex 0 the
 * interface one of whose prefixes holds gw6. */
static uint16_t
nh_port6(struct fwd_d *d, const struct fwd_rec *r)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached || f->ipv6_off)
			continue;
		if (r->ifindex != 0) {
			if (f->ifindex == r->ifindex)
				return ((uint16_t)i);
			continue;
		}
		for (unsigned k = 0; k < f->nuse6; k++)
			if (f->use6[k].plen < 128 &&
			    pfx6_has(f->use6[k].a, f->use6[k].plen, r->gw6))
				return ((uint16_t)i);
	}
	return (FWD_D_PORT_DEAD);
}

/* fwd_nh_bind's IPv6 part: the neighbour's MAC is kept while the record
 * stays on its port (ND updates it through fwd_adj_neigh_set6). */
static void
nh_bind6(struct fwd_d *d, uint32_t idx, bool force)
{
	const struct fwd_rec *r = &d->rec[idx];
	const struct fwd_adj *a = &d->adj->ent[idx];
	uint16_t port = nh_port6(d, r);
	bool glean = memcmp(r->gw6, zero6, 16) == 0;
	uint8_t mac[6];
	bool known;

	if (!force && a->port == port && fwd_adj_is_v6(d->adj, idx) &&
	    a->kind == (glean ? FWD_ADJ_K_GLEAN : FWD_ADJ_K_NH))
		return;
	if (glean) {
		(void)fwd_adj_set_glean6(d->adj, idx, port);
		return;
	}
	/* the MAC: a neighbour's record keeps it (fwd_d_nd_host6), and a
	 * next hop that is such a neighbour on its port takes it from there;
	 * else what the adjacency had on the same port (ND's update) */
	known = r->host6 && r->mac6_ok;
	if (known)
		memcpy(mac, r->mac6, 6);
	else if (port != FWD_D_PORT_DEAD) {
		int h = rec_find_nh6(d, r->gw6, d->ifs[port].ifindex);

		if (h >= 0 && d->rec[h].host6 && d->rec[h].mac6_ok) {
			memcpy(mac, d->rec[h].mac6, 6);
			known = true;
		}
	}
	if (!known && fwd_adj_is_v6(d->adj, idx) && a->kind == FWD_ADJ_K_NH &&
	    a->resolved && a->port == port) {
		memcpy(mac, a->eth, 6);
		known = true;
	}
	(void)fwd_adj_set_nh6(d->adj, idx, port, r->gw6, known ? mac : NULL);
}

static int
nh_intern6(struct fwd_d *d, const uint8_t *gw6, uint32_t ifindex)
{
	int idx = rec_find_nh6(d, gw6, ifindex);
	struct fwd_rec *r;

	if (idx >= 0)
		return (idx);
	if ((idx = adj_alloc(d)) < 0)
		return (idx);
	r = &d->rec[idx];
	memset(r, 0, sizeof(*r));
	r->kind = FWD_REC_NH;
	r->v6 = true;
	memcpy(r->gw6, gw6, 16);
	r->ifindex = ifindex;
	hash_insert(d, (uint32_t)idx, nh6_hash(gw6, ifindex));
	nh_bind6(d, (uint32_t)idx, true);
	return (idx);
}

/* The glean6 of f: its (::, ifindex) record, held while attached. */
static int
glean6_of(struct fwd_d *d, struct fwd_iface *f)
{
	int g;

	if (f->glean6 >= 0)
		return (f->glean6);
	if ((g = nh_intern6(d, zero6, f->ifindex)) < 0)
		return (g);
	d->rec[g].hold++;
	f->glean6 = g;
	return (g);
}

/* pfx/len -> idx in the FIB6, moving the route reference. */
static int
route_set6(struct fwd_d *d, const uint8_t *pfx, unsigned len, uint32_t idx)
{
	unsigned old;
	bool had = fwd_fib6_get(d->fib6, pfx, len, &old) == 0;

	return (route_ref_move(d, fwd_fib6_add(d->fib6, pfx, len, idx), idx,
	    had, old));
}

/* Delete pfx/len from the FIB6 if it points at nh (any: nh < 0). */
static void
route_del6(struct fwd_d *d, const uint8_t *pfx, unsigned len, int nh)
{
	unsigned old;

	if (fwd_fib6_get(d->fib6, pfx, len, &old) != 0 ||
	    (nh >= 0 && old != (unsigned)nh))
		return;
	if (fwd_fib6_del(d->fib6, pfx, len) == 0 && rec_mine(d, old) &&
	    d->rec[old].routes > 0) {
		d->rec[old].routes--;
		rec_check(d, old);
	}
}

static bool
pfx6_ok(const uint8_t *pfx, unsigned len)
{
	uint8_t m[16];

	if (len > 128)
		return (false);
	pfx6_mask(m, pfx, len);
	return (memcmp(m, pfx, 16) == 0);
}

int
fwd_d_route6_add(struct fwd_d *d, const uint8_t *pfx, unsigned len,
    const uint8_t *gw6, const uint32_t *ifindex, unsigned n)
{
	uint16_t m[FWD_ADJ_GROUP_MAX];
	unsigned nm = 0;
	int idx;

	if (!pfx6_ok(pfx, len) || n > FWD_ADJ_GROUP_MAX)
		return (-EINVAL);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *g = gw6 + 16 * i;

		/* attached needs its interface, and so does a link-local
		 * gateway (RFC 4007: its scope is one link) */
		if ((memcmp(g, zero6, 16) == 0 ||
			(g[0] == 0xfe && (g[1] & 0xc0) == 0x80)) &&
		    ifindex[i] == 0)
			return (-EINVAL);
		if (g[0] == 0xff)
			return (-EINVAL); /* a multicast gateway */
	}
	if (n == 0)
		return (fwd_d_route6_nonh(d, pfx, len, 1));
	for (unsigned i = 0; i < n; i++) {
		if ((idx = nh_intern6(d, gw6 + 16 * i, ifindex[i])) < 0) {
			for (unsigned k = 0; k < nm; k++)
				rec_check(d, m[k]);
			return (idx);
		}
		m[nm++] = (uint16_t)idx;
	}
	if ((idx = members_adj(d, m, nm)) < 0)
		return (idx);
	return (route_set6(d, pfx, len, (uint32_t)idx));
}

int
fwd_d_route6_nonh(struct fwd_d *d, const uint8_t *pfx, unsigned len,
    unsigned kind)
{
	if (!pfx6_ok(pfx, len) || kind > 2)
		return (-EINVAL);
	return (route_set6(d, pfx, len,
	    (uint32_t)(kind == 2 ? d->reject_adj : d->drop_adj)));
}

/* Is pfx/len the prefix of an address in use of an attached interface?
 * Its glean6. */
static int
conn_owner6(struct fwd_d *d, const uint8_t *pfx, unsigned len)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached || f->glean6 < 0 || len >= 128)
			continue;
		for (unsigned k = 0; k < f->nuse6; k++)
			if (f->use6[k].plen == len &&
			    pfx6_has(pfx, len, f->use6[k].a))
				return (f->glean6);
	}
	return (-1);
}

int
fwd_d_route6_del(struct fwd_d *d, const uint8_t *pfx, unsigned len)
{
	int g;

	if (!pfx6_ok(pfx, len))
		return (-EINVAL);
	/* a connected prefix falls back to fwd's own route, not to nothing */
	if ((g = conn_owner6(d, pfx, len)) >= 0)
		return (route_set6(d, pfx, len, (uint32_t)g));
	if (len == 128 && fwd_d_is_ours6(d, pfx))
		return (0); /* our own address stays ours */
	route_del6(d, pfx, len, -1);
	return (0);
}

static int
use6_find(const struct fwd_iface *f, const uint8_t *ip6)
{
	for (unsigned k = 0; k < f->nuse6; k++)
		if (memcmp(f->use6[k].a, ip6, 16) == 0)
			return ((int)k);
	return (-1);
}

bool
fwd_d_is_ours6(const struct fwd_d *d, const uint8_t ip6[16])
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (f->used && f->attached && use6_find(f, ip6) >= 0)
			return (true);
	}
	return (false);
}

/* Address k in use on f (attached): its /128, its connected prefix. */
static int
addr6_install(struct fwd_d *d, struct fwd_iface *f, unsigned k)
{
	const struct fwd_addr6 *u = &f->use6[k];
	uint8_t p[16];
	unsigned nh;
	int g, rv;

	if ((rv = fwd_fib6_add(d->fib6, u->a, 128, (unsigned)d->local_adj)) !=
	    0)
		return (rv);
	if (u->plen >= 128 || (g = glean6_of(d, f)) < 0)
		return (0);
	pfx6_mask(p, u->a, u->plen);
	if (fwd_fib6_get(d->fib6, p, u->plen, &nh) != 0 &&
	    route_set6(d, p, u->plen, (uint32_t)g) != 0)
		lc_log_warnx("%s: cannot add the connected IPv6 route",
		    f->name);
	return (0);
}

/* Address k of f out of use: its /128, its prefix unless another address
 * in use is on it; taken off the list. */
static void
addr6_remove(struct fwd_d *d, struct fwd_iface *f, unsigned k)
{
	struct fwd_addr6 u = f->use6[k];
	uint8_t p[16];

	f->use6[k] = f->use6[--f->nuse6];
	route_del6(d, u.a, 128, d->local_adj);
	if (u.plen >= 128 || f->glean6 < 0)
		return;
	pfx6_mask(p, u.a, u.plen);
	for (unsigned j = 0; j < f->nuse6; j++)
		if (f->use6[j].plen == u.plen &&
		    pfx6_has(p, u.plen, f->use6[j].a))
			return;
	route_del6(d, p, u.plen, f->glean6);
}

int
fwd_d_addr6_set(struct fwd_d *d, uint16_t port, const uint8_t ip6[16],
    unsigned plen, bool in_use)
{
	struct fwd_iface *f;
	int k, rv;

	if (port >= FWD_D_IF_MAX || !d->ifs[port].used ||
	    !d->ifs[port].attached)
		return (-ENOENT);
	if (plen < 1 || plen > 128)
		return (-EINVAL);
	f = &d->ifs[port];
	k = use6_find(f, ip6);
	if (!in_use) {
		if (k >= 0)
			addr6_remove(d, f, (unsigned)k);
		return (0);
	}
	if (k >= 0)
		return (0);
	if (f->nuse6 == FWD_D_USE6_MAX)
		return (-ENOSPC);
	k = (int)f->nuse6++;
	memcpy(f->use6[k].a, ip6, 16);
	/* a link-local's prefix is on every link: not routed */
	f->use6[k].ll = ip6[0] == 0xfe && (ip6[1] & 0xc0) == 0x80;
	f->use6[k].plen = f->use6[k].ll ? 128 : (uint8_t)plen;
	if ((rv = addr6_install(d, f, (unsigned)k)) != 0)
		f->nuse6--;
	return (rv);
}

/* fwd_d_nd_host6 on f, attached or being detached. */
static int
nd_host6(struct fwd_d *d, struct fwd_iface *f, const uint8_t ip6[16],
    const uint8_t *mac)
{
	uint16_t port = (uint16_t)(f - d->ifs);
	unsigned old;
	int idx;

	(void)fwd_adj_neigh_set6(d->adj, port, ip6, mac);
	/* link-local neighbours are reached by the routes naming them */
	if (ip6[0] == 0xfe && (ip6[1] & 0xc0) == 0x80)
		return (0);
	if (mac == NULL) {
		if ((idx = rec_find_nh6(d, ip6, f->ifindex)) >= 0 &&
		    d->rec[idx].host6) {
			d->rec[idx].mac6_ok = false;
			route_del6(d, ip6, 128, idx);
		}
		return (0);
	}
	if (fwd_fib6_get(d->fib6, ip6, 128, &old) == 0 &&
	    !(rec_mine(d, old) && d->rec[old].host6))
		return (0); /* a route of the RIB's, or ours: not replaced */
	if ((idx = nh_intern6(d, ip6, f->ifindex)) < 0)
		return (idx);
	d->rec[idx].host6 = true;
	d->rec[idx].mac6_ok = true;
	memcpy(d->rec[idx].mac6, mac, 6);
	(void)fwd_adj_neigh_set6(d->adj, port, ip6, mac);
	return (route_set6(d, ip6, 128, (uint32_t)idx));
}

int
fwd_d_nd_host6(struct fwd_d *d, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac)
{
	/* a removal also while the port detaches (ND forgets its
	 * neighbours then) */
	if (port >= FWD_D_IF_MAX || !d->ifs[port].used ||
	    (!d->ifs[port].attached && mac != NULL))
		return (-ENOENT);
	return (nd_host6(d, &d->ifs[port], ip6, mac));
}

unsigned
fwd_d_nh_describe6(struct fwd_d *d, unsigned nh, uint8_t *gw6,
    uint32_t *ifindex, unsigned max)
{
	if (nh >= d->adj->size || max == 0)
		return (0);
	if (d->rec[nh].kind == FWD_REC_NH && d->rec[nh].v6) {
		memcpy(gw6, d->rec[nh].gw6, 16);
		ifindex[0] = rec_ifindex(d, nh);
		return (1);
	}
	if (d->rec[nh].kind == FWD_REC_GROUP) {
		unsigned n = 0;

		for (unsigned i = 0; i < d->rec[nh].nm && n < max; i++)
			n += fwd_d_nh_describe6(d, d->rec[nh].m[i],
			    gw6 + 16 * n, ifindex + n, max - n);
		return (n);
	}
	return (0);
}

/* The interface's IPv6 side on attach (after its glean): the glean6; its
 * addresses come into use when ND's DAD passes (fwd_d_addr6_set from ND's
 * addr_event, fwd_d_nd.c). */
void
fwd_if6_attach(struct fwd_d *d, struct fwd_iface *f)
{
	f->glean6 = -1;
	f->nuse6 = 0;
	if (f->ipv6_off)
		return;
	if (glean6_of(d, f) < 0)
		lc_log_warnx("%s: no adjacency left for the connected IPv6 "
			     "routes",
		    f->name);
}

/* ... and on detach: every address out of use, the glean6 let go. */
void
fwd_if6_detach(struct fwd_d *d, struct fwd_iface *f)
{
	while (f->nuse6 > 0)
		addr6_remove(d, f, f->nuse6 - 1);
	if (f->glean6 >= 0) {
		uint32_t g = (uint32_t)f->glean6;

		f->glean6 = -1;
		nh_bind6(d, g, false);
		fwd_nh_unhold(d, g);
	}
}

/* The IPv6 config of f (attached) becomes rq's: every address out of use
 * (ND's sync after it puts those it has in use back: fwd_d_nd.c). */
void
fwd_if6_update(struct fwd_d *d, struct fwd_iface *f,
    const struct fwd_if_req *rq)
{
	fwd_if6_detach(d, f);
	fwd_if6_conf_take(f, rq);
	fwd_if6_attach(d, f);
}

void
fwd_if6_conf_take(struct fwd_iface *f, const struct fwd_if_req *rq)
{
	f->naddr6 = rq->naddr6;
	memcpy(f->addr6, rq->addr6, sizeof(f->addr6));
	memcpy(f->plen6, rq->plen6, sizeof(f->plen6));
	f->has_ll = rq->has_ll;
	memcpy(f->ll6, rq->ll6, 16);
	f->ipv6_off = rq->ipv6_off;
	f->nneigh6 = rq->nneigh6;
	memcpy(f->neigh6_ip, rq->neigh6_ip, sizeof(f->neigh6_ip));
	memcpy(f->neigh6_mac, rq->neigh6_mac, sizeof(f->neigh6_mac));
}

/* fwd's own IPv6 routes are not the RIB's to sweep: the router's /128s,
 * the connected prefixes on their glean6, the neighbours' /128s
 * (fwd_d_nd_host6) refreshed (an add clears the stale mark). */
struct own6 {
	struct fwd_d *d;
	uint8_t (*p)[16];
	uint32_t *nh;
	size_t n, cap;
};

static int
collect_own6(const uint8_t pfx[16], unsigned len, unsigned nh, void *arg)
{
	struct own6 *o = arg;
	struct fwd_d *d = o->d;

	/* ours, a neighbour's of fwd_d_nd_host6, or of ND's own (an IPv6
	 * K_NH adjacency no record owns, as ARP's /32s) */
	if (!(len == 128 &&
		(nh == (unsigned)d->local_adj ||
		    (rec_mine(d, nh) && d->rec[nh].host6) ||
		    (nh < d->adj->size && !rec_mine(d, nh) &&
			fwd_adj_is_v6(d->adj, nh) &&
			d->adj->ent[nh].kind == FWD_ADJ_K_NH))))
		return (0);
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 64;

		o->p = lc_xrealloc(o->p, nc * sizeof(*o->p),
		    "tern-fwd resync: IPv6 host routes");
		o->nh = lc_xrealloc(o->nh, nc * sizeof(*o->nh),
		    "tern-fwd resync: IPv6 host routes");
		o->cap = nc;
	}
	memcpy(o->p[o->n], pfx, 16);
	o->nh[o->n++] = nh;
	return (0);
}

static void
resync_own6(struct fwd_d *d)
{
	struct own6 o = {d, NULL, NULL, 0, 0};

	(void)fwd_fib6_walk(d->fib6, collect_own6, &o);
	for (size_t i = 0; i < o.n; i++)
		(void)fwd_fib6_add(d->fib6, o.p[i], 128, o.nh[i]);
	free(o.p);
	free(o.nh);
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached || f->glean6 < 0)
			continue;
		for (unsigned k = 0; k < f->nuse6; k++) {
			const struct fwd_addr6 *u = &f->use6[k];
			uint8_t p[16];
			unsigned nh;

			if (u->plen >= 128)
				continue;
			pfx6_mask(p, u->a, u->plen);
			if (fwd_fib6_get(d->fib6, p, u->plen, &nh) == 0 &&
			    nh == (unsigned)f->glean6)
				(void)fwd_fib6_add(d->fib6, p, u->plen, nh);
		}
	}
}
