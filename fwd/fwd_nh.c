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

/* pfx/len -> idx in the FIB, moving the route reference. */
static int
route_set(struct fwd_d *d, uint32_t pfx, unsigned len, uint32_t idx)
{
	unsigned old;
	bool had = fwd_fib_get(d->fib, pfx, len, &old) == 0;
	int rv;

	if ((rv = fwd_fib_add(d->fib, pfx, len, idx)) != 0) {
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
	if (nm > 1)
		qsort(m, nm, sizeof(*m), cmp_u16);
	{
		unsigned u = 1;

		for (unsigned i = 1; i < nm; i++)
			if (m[i] != m[u - 1])
				m[u++] = m[i];
		nm = u;
	}
	if (nm == 1)
		return (route_set(d, pfx, len, m[0]));
	if ((idx = intern_group(d, m, nm)) < 0) {
		for (unsigned k = 0; k < nm; k++)
			rec_check(d, m[k]);
		return (idx);
	}
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

/* Route references from a walk of the FIB (after a sweep deleted routes
 * without telling whose they were). */
static void
recount(struct fwd_d *d)
{
	for (uint32_t i = 0; i < d->adj->size; i++)
		d->rec[i].routes = 0;
	(void)fwd_fib_walk(d->fib, count_routes, d);
	for (uint32_t i = 0; i < d->adj->size; i++)
		rec_check(d, i);
}

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
	swept = fwd_fib_sweep_stale(d->fib);
	if (swept > 0)
		recount(d);
	/* a connected prefix the RIB no longer had: back to fwd's own */
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && d->ifs[i].attached)
			for (unsigned k = 0; k < d->ifs[i].naddr; k++)
				fwd_conn_add(d, &d->ifs[i], k);
	d->resyncing = false;
	d->st.swept += swept;
	return (swept);
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
		ifindex[0] = d->rec[nh].ifindex;
		if (ifindex[0] == 0) {
			uint16_t p = d->adj->ent[nh].port;

			if (p < FWD_D_IF_MAX && d->ifs[p].used)
				ifindex[0] = d->ifs[p].ifindex;
		}
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
