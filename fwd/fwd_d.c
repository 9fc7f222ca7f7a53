/* fwd/fwd_d.c: the tern-fwd daemon's control thread: interfaces, FIB batches
 * with interned next hops, resync, punt drain, ARP/ICMP timers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ipc/ipc.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_ring.h"
#include "libcommon/lc_time.h"
#include "fwd_d.h"
#include "fwd_port_xdp.h"

#define TICK_S	0.1
#define LINK_MS 500
#define NGROUPS 8192

static uint32_t
pmask(unsigned len)
{
	return (len == 0 ? 0 : 0xffffffffu << (32 - len));
}

uint64_t
fwd_d_now_ms(struct fwd_d *d)
{
	(void)d;
	return (lc_time_mono_ns() / 1000000);
}

static void
out_flush(struct fwd_d *d)
{
	if (d->out->n > 0)
		d->st.out_sent += fwd_out_send(d->out, d->ctl_ports,
		    FWD_PORT_MAX);
}

/* ---- interfaces by name / ifindex ---- */

struct fwd_iface *
fwd_d_if_find(struct fwd_d *d, const char *name)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && strcmp(d->ifs[i].name, name) == 0)
			return (&d->ifs[i]);
	return (NULL);
}

struct fwd_iface *
fwd_d_if_by_ifindex(struct fwd_d *d, uint32_t ifindex)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && d->ifs[i].ifindex == ifindex)
			return (&d->ifs[i]);
	return (NULL);
}

struct fwd_port *
fwd_d_port(struct fwd_d *d, const char *name, unsigned w)
{
	struct fwd_iface *f = fwd_d_if_find(d, name);

	if (f == NULL || !f->attached || w >= d->nworkers)
		return (NULL);
	return (f->wport[w]);
}

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
			    ((f->addr[k] ^ r->gw) & pmask(f->plen[k])) == 0)
				return ((uint16_t)i);
	}
	return (FWD_D_PORT_DEAD);
}

/* (Re)point NH record idx at its port; resolve the gateway ahead. */
static void
rec_bind(struct fwd_d *d, uint32_t idx, bool force)
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
			out_flush(d);
		(void)fwd_arp_resolve(d->arp, port, r->gw, port, NULL, 0,
		    fwd_d_now_ms(d), d->out);
	}
}

static void
rec_rebind_all(struct fwd_d *d)
{
	for (uint32_t i = 0; i < d->adj->size; i++)
		if (d->rec[i].kind == FWD_REC_NH && !d->rec[i].dying)
			rec_bind(d, i, false);
	out_flush(d);
}

static void rec_unhold(struct fwd_d *, uint32_t);

/* Release adjacencies whose grace period ended. */
static void
pending_reclaim(struct fwd_d *d)
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
					rec_unhold(d, r.m[k]);
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

static void
rec_unhold(struct fwd_d *d, uint32_t idx)
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
		pending_reclaim(d);
		idx = fwd_adj_alloc(d->adj);
	}
	if (idx < 0 && d->npend > 0) {
		/* Out of room and the workers have not passed a quiescent
		 * point since the last releases (a loaded machine): wait for
		 * them (they do between bursts), as an RCU writer would,
		 * rather than refuse the route. */
		fwd_qsbr_synchronize(d->qsbr);
		pending_reclaim(d);
		idx = fwd_adj_alloc(d->adj);
	}
	if (idx >= 0 && (unsigned)idx >= d->adj->size)
		return (-ENOSPC);
	return (idx);
}

/* The adjacency of next hop (gw, ifindex), created when new (no ref taken). */
static int
intern_nh(struct fwd_d *d, uint32_t gw, uint32_t ifindex)
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
	rec_bind(d, (uint32_t)idx, true);
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

	if (len > 32 || (pfx & ~pmask(len)) != 0 || n > FWD_ADJ_GROUP_MAX)
		return (-EINVAL);
	for (unsigned i = 0; i < n; i++)
		if (gw[i] == 0 && ifindex[i] == 0)
			return (-EINVAL);
	if (n == 0)
		return (fwd_d_route_nonh(d, pfx, len, 1));
	for (unsigned i = 0; i < n; i++) {
		if ((idx = intern_nh(d, gw[i], ifindex[i])) < 0) {
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
	if (len > 32 || (pfx & ~pmask(len)) != 0 || kind > 2)
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
			    (f->addr[k] & pmask(len)) == pfx)
				return (f->glean);
	}
	return (-1);
}

int
fwd_d_route_del(struct fwd_d *d, uint32_t pfx, unsigned len)
{
	unsigned old;
	int g;

	if (len > 32 || (pfx & ~pmask(len)) != 0)
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
		uint32_t *nv = realloc(rv->v, nc * sizeof(*nv));

		if (nv == NULL)
			return (0);
		rv->v = nv;
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

static void conn_add(struct fwd_d *, struct fwd_iface *, unsigned);

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
			uint32_t p = f->addr[k] & pmask(f->plen[k]);
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
				conn_add(d, &d->ifs[i], k);
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

/* ---- interfaces ---- */

static bool
if_link_up(struct fwd_d *d, const struct fwd_iface *f)
{
	struct ifreq ifr;

	if (f->backend == FWD_D_BK_MEM)
		return (true);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->name);
	if (d->ioctl_fd < 0 || ioctl(d->ioctl_fd, SIOCGIFFLAGS, &ifr) != 0)
		return (false);
	return ((ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING));
}

/* Ports of one interface, opened before anything changes. */
struct if_ports {
	struct fwd_port *w[FWD_D_WORKERS_MAX];
	struct fwd_port *tx;
};

static void *
port_free_run(void *arg)
{
	fwd_port_free(arg);
	return (NULL);
}

/*
 * Close ports, AF_PACKET ones on parallel threads: the kernel waits for an
 * RCU grace period per socket released (tens of ms on a busy machine).
 */
static void
ports_free(struct fwd_port **v, unsigned n)
{
	pthread_t thr[FWD_PORT_MAX * (FWD_D_WORKERS_MAX + 1)];
	bool started[FWD_PORT_MAX * (FWD_D_WORKERS_MAX + 1)];

	for (unsigned i = 0; i < n; i++) {
		started[i] = false;
		if (v[i] == NULL)
			continue;
		if (fwd_port_afp_fd(v[i]) >= 0 && n > 1 &&
		    pthread_create(&thr[i], NULL, port_free_run, v[i]) == 0)
			started[i] = true;
		else
			fwd_port_free(v[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		if (started[i])
			pthread_join(thr[i], NULL);
		v[i] = NULL;
	}
}

static void
if_ports_free(struct fwd_d *d, struct if_ports *p)
{
	struct fwd_port *v[FWD_D_WORKERS_MAX + 1];
	unsigned n = 0;

	for (unsigned k = 0; k < d->nworkers; k++) {
		v[n++] = p->w[k];
		p->w[k] = NULL;
	}
	v[n++] = p->tx;
	p->tx = NULL;
	ports_free(v, n);
}

/* One AF_PACKET socket to open (on its own thread: the kernel waits for
 * RCU grace periods while setting up rings; in parallel they overlap). */
struct afp_job {
	struct fwd_port_afp_conf ac;
	struct fwd_port **out;
	int err;
	pthread_t thr;
	bool started;
};

static void *
afp_job_run(void *arg)
{
	struct afp_job *j = arg;

	if ((*j->out = fwd_port_afp_new(&j->ac)) == NULL)
		j->err = errno ? errno : EIO;
	return (NULL);
}

static int
mem_ports_open(struct fwd_d *d, const char *name, uint16_t id, uint16_t mtu,
    bool workers_only, struct if_ports *p)
{
	for (int k = workers_only ? 0 : -1; k < (int)d->nworkers; k++) {
		struct fwd_port *x;

		if (d->conf.port_new != NULL)
			x = d->conf.port_new(d->conf.port_arg, name, id, k);
		else {
			struct fwd_port_mem_conf mc = {.id = id,
			    .mtu = mtu,
			    .mac = {0x02, 0x74, 0xfe, 0, 0, (uint8_t)id},
			    .capture = k < 0 ? 64 : 0};

			x = fwd_port_mem_new(&mc);
		}
		if (x == NULL)
			return (-(errno ? errno : EIO));
		if (k < 0)
			p->tx = x;
		else
			p->w[k] = x;
	}
	return (0);
}

/*
 * The AF_XDP ports of one interface: worker k's on device queue k, on the
 * worker's UMEM (shared by its ports, so forwarding between two AF_XDP
 * interfaces moves descriptors). The control thread sends through an
 * AF_PACKET port (opened with the others). Serial: the UMEMs are not
 * thread-safe and the redirect program is attached once per interface.
 */
#define FWD_D_XDP_RING	 2048
#define FWD_D_XDP_FRAMES 8192 /* per worker UMEM (32 MiB) */

static int
xdp_ports_open(struct fwd_d *d, const char *name, uint16_t id, uint16_t mtu,
    struct if_ports *p)
{
	for (unsigned k = 0; k < d->nworkers; k++) {
		struct fwd_port_xdp_conf xc = {.ifname = name,
		    .id = id,
		    .mtu = mtu,
		    .queue = k,
		    .ring = FWD_D_XDP_RING};

		if (d->xdp_umem[k] == NULL &&
		    (d->xdp_umem[k] = fwd_xdp_umem_new(FWD_D_XDP_FRAMES)) ==
			NULL)
			return (-(errno ? errno : ENOMEM));
		xc.umem = d->xdp_umem[k];
		if ((p->w[k] = fwd_port_xdp_new(&xc)) == NULL) {
			int e = errno ? errno : EIO;

			lc_log_warnx("%s: AF_XDP on queue %u: %s", name, k,
			    strerror(e));
			return (-e);
		}
		lc_log_info("%s: AF_XDP queue %u, %s", name, k,
		    fwd_port_xdp_mode(p->w[k]));
	}
	return (0);
}

/* One interface of an IF_CONFIG batch, as planned before anything changes. */
struct if_plan {
	bool in;     /* in the new set */
	bool listed; /* in this batch */
	const struct fwd_if_req *rq;
	uint8_t backend;
	bool bk_auto;	 /* "auto" configured */
	bool xdp_failed; /* auto: AF_XDP failed to open, AF_PACKET opened */
	uint32_t ifindex;
	int slot;      /* port id: existing, or chosen for a new one */
	bool reattach; /* backend or enabled changed */
	struct if_ports ports;
	bool open;
};

struct if_open {
	const char *name;
	uint8_t backend;      /* in: the one to open; out: the one opened */
	bool fallback;	      /* auto: AF_PACKET if AF_XDP cannot be opened */
	bool fell_back;	      /* out: it did */
	struct if_plan *plan; /* if set, gets backend and fell_back */
	uint16_t id, mtu;
	struct if_ports *ports;
	int err;
	bool workers_only; /* not the control thread's port */
};

/*
 * Open the ports of n interfaces: every worker's socket and the control
 * thread's, AF_PACKET ones all at once. 0, or -errno with *bad the index of
 * the first interface that failed; on error nothing stays open.
 */
static int
if_ports_open_all(struct fwd_d *d, struct if_open *o, unsigned n, unsigned *bad)
{
	struct afp_job *jobs;
	unsigned nj = 0;
	int rv = 0;

	*bad = 0;
	if (n == 0)
		return (0);
	if ((jobs = calloc((size_t)n * (d->nworkers + 1), sizeof(*jobs))) ==
	    NULL)
		return (-ENOMEM);
	for (unsigned i = 0; i < n; i++) {
		memset(o[i].ports, 0, sizeof(*o[i].ports));
		o[i].err = 0;
		if (o[i].backend == FWD_D_BK_MEM) {
			o[i].err = -mem_ports_open(d, o[i].name, o[i].id,
			    o[i].mtu, o[i].workers_only, o[i].ports);
			continue;
		}
		(void)fwd_port_afp_offloads_off(o[i].name);
		if (o[i].backend == FWD_D_BK_XDP) {
			o[i].err = -xdp_ports_open(d, o[i].name, o[i].id,
			    o[i].mtu, o[i].ports);
			if (o[i].err != 0 && o[i].fallback) {
				lc_log_warnx("%s: port-backend auto: AF_XDP "
					     "cannot be opened (%s): AF_PACKET",
				    o[i].name, strerror(o[i].err));
				if_ports_free(d, o[i].ports);
				memset(o[i].ports, 0, sizeof(*o[i].ports));
				o[i].err = 0;
				o[i].backend = FWD_D_BK_AFP;
				o[i].fell_back = true;
			}
		}
		for (int k = -1; k < (int)d->nworkers; k++) {
			struct afp_job *j;

			if (o[i].backend == FWD_D_BK_XDP && k >= 0)
				continue; /* AF_XDP: opened above */
			if (o[i].workers_only && k < 0)
				continue;
			j = &jobs[nj++];

			j->ac.ifname = o[i].name;
			j->ac.id = o[i].id;
			j->ac.mtu = o[i].mtu;
			j->ac.ring_frames = d->conf.ring_frames;
			j->ac.fanout_group = d->nworkers > 1 && k >= 0 ?
			    d->fanout_base + o[i].id :
			    0;
			j->ac.flags = k < 0 ? FWD_AFP_TX_ONLY : 0;
			j->out = k < 0 ? &o[i].ports->tx : &o[i].ports->w[k];
		}
	}
	for (unsigned k = 0; k < nj; k++) {
		if (nj > 1 &&
		    pthread_create(&jobs[k].thr, NULL, afp_job_run, &jobs[k]) ==
			0)
			jobs[k].started = true;
		else
			afp_job_run(&jobs[k]);
	}
	for (unsigned k = 0; k < nj; k++)
		if (jobs[k].started)
			pthread_join(jobs[k].thr, NULL);
	/* which interface failed first */
	nj = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned nk = o[i].backend == FWD_D_BK_XDP ? 1 :
							     d->nworkers + 1;

		if (o[i].workers_only)
			nk--;

		if (o[i].backend != FWD_D_BK_MEM)
			for (unsigned k = 0; k < nk; k++, nj++)
				if (jobs[nj].err != 0 && o[i].err == 0)
					o[i].err = jobs[nj].err;
		if (o[i].err != 0 && rv == 0) {
			rv = -o[i].err;
			*bad = i;
		}
	}
	if (rv != 0)
		for (unsigned i = 0; i < n; i++)
			if_ports_free(d, o[i].ports);
	else
		for (unsigned i = 0; i < n; i++)
			if (o[i].plan != NULL) {
				o[i].plan->backend = o[i].backend;
				o[i].plan->xdp_failed = o[i].fell_back;
			}
	free(jobs);
	return (rv);
}

/* The device's queue count when it has fewer than nw (an AF_XDP port binds
 * one queue per worker), else 0: enough, or the driver does not say. */
static int
xdp_queues_short(const char *name, unsigned nw)
{
	int nq = fwd_port_xdp_queues(name);

	return (nq > 0 && (unsigned)nq < nw ? nq : 0);
}

/*
 * port-backend auto: AF_XDP where the device has a queue for each of nw
 * workers (one worker when the count is unknown) and AF_XDP did not fail
 * there before (f: the interface as configured now, or NULL), else
 * AF_PACKET. Measured: AF_XDP costs 0.66-0.74x AF_PACKET's CPU per packet
 * on veth (docs/fwd.md, "Which backend by default").
 */
static uint8_t
auto_backend(const char *name, const struct fwd_iface *f, unsigned nw)
{
	int nq;

	if (f != NULL && f->bk_auto && f->xdp_failed)
		return (FWD_D_BK_AFP);
	nq = fwd_port_xdp_queues(name);
	if (nq > 0 ? (unsigned)nq < nw : nw > 1)
		return (FWD_D_BK_AFP);
	return (FWD_D_BK_XDP);
}

static void
conn_add(struct fwd_d *d, struct fwd_iface *f, unsigned k)
{
	uint32_t p = f->addr[k] & pmask(f->plen[k]);
	unsigned nh;

	if (f->plen[k] >= 32 || f->glean < 0 ||
	    fwd_fib_get(d->fib, p, f->plen[k], &nh) == 0)
		return;
	if (route_set(d, p, f->plen[k], (uint32_t)f->glean) != 0)
		lc_log_warnx("%s: cannot add connected route", f->name);
}

static void
conn_del(struct fwd_d *d, struct fwd_iface *f, uint32_t ip, unsigned plen)
{
	uint32_t p = ip & pmask(plen);
	unsigned nh;

	if (plen >= 32)
		return;
	for (unsigned k = 0; k < f->naddr; k++)
		if (f->plen[k] == plen && (f->addr[k] & pmask(plen)) == p)
			return; /* still connected through another address */
	if (fwd_fib_get(d->fib, p, plen, &nh) != 0 || nh != (unsigned)f->glean)
		return;
	if (fwd_fib_del(d->fib, p, plen) == 0 && d->rec[nh].routes > 0) {
		d->rec[nh].routes--;
		rec_check(d, nh);
	}
}

static void neigh_install(struct fwd_d *, struct fwd_iface *, uint32_t ip,
    const uint8_t *mac);

static void
if_attach(struct fwd_d *d, struct fwd_iface *f, struct if_ports *p)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	uint64_t now = fwd_d_now_ms(d);
	int g;

	for (unsigned k = 0; k < d->nworkers; k++)
		f->wport[k] = p->w[k];
	f->txport = p->tx;
	memset(p, 0, sizeof(*p));
	memset(&f->gone, 0, sizeof(f->gone));
	memcpy(f->mac, f->txport->mac, 6);
	f->mtu = f->mtu_conf ? f->mtu_conf : f->txport->mtu;
	if (f->mtu < 68)
		f->mtu = 1500;
	f->link_up = if_link_up(d, f);
	d->ctl_ports[id] = f->txport;
	f->attached = true;
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx("%s: a worker did not take the port in 1 s",
		    f->name);
	(void)fwd_adj_port_set(d->adj, id, f->mac, f->mtu, f->link_up);
	f->glean = -1;
	if ((g = intern_nh(d, 0, f->ifindex)) >= 0) {
		d->rec[g].hold++;
		f->glean = g;
		rec_bind(d, (uint32_t)g, false);
	} else
		lc_log_warnx("%s: no adjacency left for the connected "
			     "routes",
		    f->name);
	for (unsigned k = 0; k < f->naddr; k++) {
		int rv = fwd_arp_addr_add(d->arp, id, f->addr[k], f->plen[k],
		    now, d->out);

		if (rv != 0 && rv != -EEXIST)
			lc_log_warnx("%s: address: %s", f->name, strerror(-rv));
		conn_add(d, f, k);
	}
	/* after the addresses: a static neighbour on one of their subnets
	 * gets its host route */
	for (unsigned k = 0; k < f->nneigh; k++)
		neigh_install(d, f, f->neigh_ip[k], f->neigh_mac[k]);
	rec_rebind_all(d);
	out_flush(d);
	lc_log_info("%s: attached as port %u, ifindex %u, mtu %u, link %s",
	    f->name, id, f->ifindex, f->mtu, f->link_up ? "up" : "down");
}

static void
if_detach(struct fwd_d *d, struct fwd_iface *f)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	unsigned naddr = f->naddr;

	if (!f->attached)
		return;
	f->attached = false;
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx("%s: a worker did not drop the port in 1 s",
		    f->name);
	/* what the workers punted from it is handled while it still exists
	 * (its port id may be another interface's by the next drain) */
	(void)fwd_d_drain(d);
	d->ctl_ports[id] = NULL;
	/* addresses and their connected routes */
	f->naddr = 0;
	for (unsigned k = 0; k < naddr; k++) {
		(void)fwd_arp_addr_del(d->arp, id, f->addr[k]);
		if (f->glean >= 0)
			conn_del(d, f, f->addr[k], f->plen[k]);
	}
	f->naddr = naddr;
	/* the port id may be another interface's next: its static entries
	 * go too (kept in f, installed again on attach) */
	for (unsigned k = 0; k < f->nneigh; k++)
		(void)fwd_arp_static_del(d->arp, id, f->neigh_ip[k]);
	fwd_arp_port_flush(d->arp, id);
	fwd_adj_port_del(d->adj, id);
	if (f->glean >= 0) {
		uint32_t g = (uint32_t)f->glean;

		f->glean = -1;
		rec_bind(d, g, false);
		rec_unhold(d, g);
	}
	rec_rebind_all(d);
	{
		struct if_ports p = {.tx = f->txport};

		for (unsigned k = 0; k < d->nworkers; k++) {
			p.w[k] = f->wport[k];
			f->wport[k] = NULL;
		}
		f->txport = NULL;
		if_ports_free(d, &p);
	}
	f->link_up = false;
	lc_log_info("%s: detached (port %u)", f->name, id);
}

/* ---- IF_CONFIG: validation, then all or nothing ---- */

/* a is the network or broadcast address of its /plen (plen <= 30; a /31
 * or /32 has neither). */
static bool
subnet_edge(uint32_t a, unsigned plen)
{
	uint32_t h = a & ~pmask(plen);

	return (plen <= 30 && (h == 0 || h == ~pmask(plen)));
}

static bool
addr_ok(uint32_t a, unsigned plen)
{
	uint8_t top = (uint8_t)(a >> 24);

	if (plen < 1 || plen > 32)
		return (false);
	if (top == 0 || top == 127 || top >= 224)
		return (false);
	return (!subnet_edge(a, plen));
}

#define ERR(...)                                    \
	do {                                        \
		snprintf(err, errlen, __VA_ARGS__); \
		rv = -EINVAL;                       \
		goto out;                           \
	} while (0)

static void
ipstr(uint32_t a, char *b, size_t n)
{
	struct in_addr ia = {htonl(a)};

	inet_ntop(AF_INET, &ia, b, (socklen_t)n);
}

/* Index of static neighbour ip in f's set, or -1. */
static int
neigh_find(const struct fwd_iface *f, uint32_t ip)
{
	for (unsigned k = 0; k < f->nneigh; k++)
		if (f->neigh_ip[k] == ip)
			return ((int)k);
	return (-1);
}

/* Static neighbour ip -> mac into fwd_arp on f's port (f attached). */
static void
neigh_install(struct fwd_d *d, struct fwd_iface *f, uint32_t ip,
    const uint8_t *mac)
{
	char b[INET_ADDRSTRLEN];
	int rv = fwd_arp_static_add(d->arp, (uint16_t)(f - d->ifs), ip, mac,
	    fwd_d_now_ms(d), d->out);

	if (rv != 0) {
		ipstr(ip, b, sizeof(b));
		lc_log_warnx("%s: static neighbour %s: %s", f->name, b,
		    strerror(-rv));
	}
}

/* Is entry j of rq's static neighbours new to f, or with a new MAC? */
static bool
neigh_changed(const struct fwd_iface *f, const struct fwd_if_req *rq,
    unsigned j)
{
	int k = neigh_find(f, rq->neigh_ip[j]);

	return (k < 0 || memcmp(f->neigh_mac[k], rq->neigh_mac[j], 6) != 0);
}

/* f keeps rq's set of static neighbours (its config). */
static void
neigh_take(struct fwd_iface *f, const struct fwd_if_req *rq)
{
	f->nneigh = rq->nneigh;
	memcpy(f->neigh_ip, rq->neigh_ip, sizeof(f->neigh_ip));
	memcpy(f->neigh_mac, rq->neigh_mac, sizeof(f->neigh_mac));
}

/* Before f's addresses change: its static neighbours that rq does not
 * list leave fwd_arp. */
static void
if_neigh_drop(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *rq)
{
	for (unsigned k = 0; k < f->nneigh; k++) {
		unsigned j = 0;

		while (j < rq->nneigh && rq->neigh_ip[j] != f->neigh_ip[k])
			j++;
		if (j == rq->nneigh)
			(void)fwd_arp_static_del(d->arp, (uint16_t)(f - d->ifs),
			    f->neigh_ip[k]);
	}
}

/* After: the new ones, and those with a new MAC, go in; f keeps rq's set. */
static void
if_neigh_add(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *rq)
{
	for (unsigned j = 0; j < rq->nneigh; j++)
		if (neigh_changed(f, rq, j))
			neigh_install(d, f, rq->neigh_ip[j], rq->neigh_mac[j]);
	neigh_take(f, rq);
}

/* The static neighbours of r, checked against r's own addresses. */
static int
neigh_check(const struct fwd_if_req *r, char *err, size_t errlen)
{
	char b1[INET_ADDRSTRLEN], b2[INET_ADDRSTRLEN];
	int rv = 0;

	if (r->neigh_too_many || r->nneigh > FWD_D_NEIGH_MAX)
		ERR("%s: more than %u static neighbours", r->name,
		    FWD_D_NEIGH_MAX);
	for (unsigned k = 0; k < r->nneigh; k++) {
		uint32_t ip = r->neigh_ip[k];
		const uint8_t *m = r->neigh_mac[k];
		unsigned a;

		ipstr(ip, b1, sizeof(b1));
		if (r->neigh_maclen[k] != 6)
			ERR("%s: static neighbour %s: a MAC of %u bytes "
			    "(expected 6)",
			    r->name, b1, r->neigh_maclen[k]);
		if (!fwd_arp_mac_ok(m))
			ERR("%s: static neighbour %s: "
			    "%02x:%02x:%02x:%02x:%02x:%02x is not a unicast "
			    "MAC",
			    r->name, b1, m[0], m[1], m[2], m[3], m[4], m[5]);
		for (unsigned j = 0; j < k; j++)
			if (r->neigh_ip[j] == ip)
				ERR("%s: static neighbour %s given twice",
				    r->name, b1);
		for (a = 0; a < r->naddr; a++)
			if (r->addr[a] == ip)
				ERR("%s: static neighbour %s is an address of "
				    "the interface",
				    r->name, b1);
		for (a = 0; a < r->naddr; a++)
			if (r->plen[a] < 32 &&
			    ((r->addr[a] ^ ip) & pmask(r->plen[a])) == 0)
				break;
		if (a == r->naddr)
			ERR("%s: static neighbour %s is on none of the "
			    "interface's subnets",
			    r->name, b1);
		if (subnet_edge(ip, r->plen[a])) {
			ipstr(r->addr[a] & pmask(r->plen[a]), b2, sizeof(b2));
			ERR("%s: static neighbour %s is the network or "
			    "broadcast address of %s/%u",
			    r->name, b1, b2, r->plen[a]);
		}
	}
out:
	return (rv);
}

static bool
if_same(const struct fwd_iface *f, const struct fwd_if_req *rq, uint8_t bk,
    bool bk_auto)
{
	if (f->enabled != rq->enabled || f->mtu_conf != rq->mtu ||
	    f->backend != bk || f->bk_auto != bk_auto ||
	    f->naddr != rq->naddr || f->nneigh != rq->nneigh)
		return (false);
	for (unsigned j = 0; j < rq->nneigh; j++)
		if (neigh_changed(f, rq, j))
			return (false);
	for (unsigned k = 0; k < rq->naddr; k++) {
		unsigned j;

		for (j = 0; j < f->naddr; j++)
			if (f->addr[j] == rq->addr[k] &&
			    f->plen[j] == rq->plen[k])
				break;
		if (j == f->naddr)
			return (false);
	}
	return (true);
}

/* The addresses of f become those of rq (f attached): diff in place. */
static void
if_addrs_update(struct fwd_d *d, struct fwd_iface *f,
    const struct fwd_if_req *rq)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	uint32_t oa[FWD_LOCAL_MAX];
	uint8_t op[FWD_LOCAL_MAX];
	unsigned on = f->naddr;
	uint64_t now = fwd_d_now_ms(d);

	memcpy(oa, f->addr, sizeof(oa));
	memcpy(op, f->plen, sizeof(op));
	f->naddr = rq->naddr;
	memcpy(f->addr, rq->addr, sizeof(f->addr));
	memcpy(f->plen, rq->plen, sizeof(f->plen));
	for (unsigned k = 0; k < on; k++) {
		unsigned j;

		for (j = 0; j < f->naddr; j++)
			if (f->addr[j] == oa[k] && f->plen[j] == op[k])
				break;
		if (j < f->naddr)
			continue;
		(void)fwd_arp_addr_del(d->arp, id, oa[k]);
		conn_del(d, f, oa[k], op[k]);
	}
	for (unsigned j = 0; j < f->naddr; j++) {
		unsigned k;

		for (k = 0; k < on; k++)
			if (f->addr[j] == oa[k] && f->plen[j] == op[k])
				break;
		if (k < on)
			continue;
		(void)fwd_arp_addr_add(d->arp, id, f->addr[j], f->plen[j], now,
		    d->out);
		conn_add(d, f, j);
	}
}

/* fwd_d_if_apply, with the batch's AF_XDP and auto interfaces checked for
 * nw workers (the count the batch will run under). */
static int
if_apply(struct fwd_d *d, const struct fwd_if_req *rq, unsigned n,
    bool replace_all, bool dry_run, unsigned nw, char *err, size_t errlen)
{
	struct if_plan *pl;
	/* plans: [0, FWD_D_IF_MAX) for existing slots, then new ones */
	unsigned np = FWD_D_IF_MAX, total = 0, naddr = 0;
	char b1[INET_ADDRSTRLEN], b2[INET_ADDRSTRLEN];
	int rv = 0;

	err[0] = '\0';
	if (n > 4 * FWD_PORT_MAX) {
		snprintf(err, errlen, "%u interfaces in one batch (at most %u)",
		    n, 4 * FWD_PORT_MAX);
		return (-EINVAL);
	}
	if ((pl = calloc(FWD_D_IF_MAX + n, sizeof(*pl))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (-ENOMEM);
	}
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		pl[i].in = d->ifs[i].used && !replace_all;
		pl[i].slot = d->ifs[i].used ? (int)i : -1;
	}
	/* each item on its own */
	for (unsigned i = 0; i < n; i++) {
		const struct fwd_if_req *r = &rq[i];
		struct if_plan *p;
		uint8_t bk = FWD_D_BK_AFP;
		struct fwd_iface *f;

		if (r->name == NULL || r->name[0] == '\0')
			ERR("interface %u: no name", i);
		if (strlen(r->name) >= IFNAMSIZ || strchr(r->name, '/'))
			ERR("%s: not a valid device name", r->name);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(rq[j].name, r->name) == 0)
				ERR("%s: listed twice", r->name);
		f = fwd_d_if_find(d, r->name);
		p = f != NULL ? &pl[f - d->ifs] : &pl[np++];
		p->listed = true;
		p->rq = r;
		if (r->deleted) {
			p->in = false;
			continue;
		}
		p->bk_auto = false;
		if (r->backend == NULL || r->backend[0] == '\0' ||
		    strcmp(r->backend, "afpacket") == 0)
			bk = FWD_D_BK_AFP;
		else if (strcmp(r->backend, "xdp") == 0)
			bk = FWD_D_BK_XDP;
		else if (strcmp(r->backend, "auto") == 0) {
			p->bk_auto = true;
			bk = auto_backend(r->name, f, nw);
		} else if (strcmp(r->backend, "mem") == 0 && d->conf.allow_mem)
			bk = FWD_D_BK_MEM;
		else
			ERR("%s: unknown port backend '%s' (afpacket, xdp, "
			    "auto)",
			    r->name, r->backend);
		if (r->mtu != 0 && (r->mtu < 68 || r->mtu > FWD_FRAME_MAX - 18))
			ERR("%s: mtu %u out of range (68..%u)", r->name, r->mtu,
			    FWD_FRAME_MAX - 18);
		if (r->too_many || r->naddr > FWD_LOCAL_MAX)
			ERR("%s: more than %u addresses", r->name,
			    FWD_LOCAL_MAX);
		for (unsigned k = 0; k < r->naddr; k++) {
			ipstr(r->addr[k], b1, sizeof(b1));
			if (!addr_ok(r->addr[k], r->plen[k]))
				ERR("%s: address %s/%u is not a usable "
				    "host address",
				    r->name, b1, r->plen[k]);
			for (unsigned j = 0; j < k; j++)
				if (r->addr[j] == r->addr[k])
					ERR("%s: address %s given twice",
					    r->name, b1);
		}
		if ((rv = neigh_check(r, err, errlen)) != 0)
			goto out;
		p->backend = bk;
		if (bk != FWD_D_BK_MEM) {
			if ((p->ifindex = if_nametoindex(r->name)) == 0)
				ERR("%s: no such network device", r->name);
			if (bk == FWD_D_BK_XDP && !p->bk_auto) {
				int nq = xdp_queues_short(r->name, nw);

				if (nq > 0)
					ERR("%s: AF_XDP binds a device queue "
					    "per worker: %u workers, %d queue%s",
					    r->name, nw, nq,
					    nq == 1 ? "" : "s");
			}
		}
		p->in = true;
	}
	/* the set as a whole */
	for (unsigned i = 0; i < np; i++) {
		struct if_plan *p = &pl[i];
		const uint32_t *ad;
		const uint8_t *pln;
		unsigned na;
		const char *nm;

		if (!p->in)
			continue;
		total++;
		if (p->rq != NULL) {
			ad = p->rq->addr;
			pln = p->rq->plen;
			na = p->rq->naddr;
			nm = p->rq->name;
		} else {
			ad = d->ifs[i].addr;
			pln = d->ifs[i].plen;
			na = d->ifs[i].naddr;
			nm = d->ifs[i].name;
		}
		naddr += na;
		for (unsigned j = i + 1; j < np; j++) {
			const struct if_plan *q = &pl[j];
			const uint32_t *qa;
			const uint8_t *qp;
			unsigned qn;
			const char *qnm;

			if (!q->in)
				continue;
			qa = q->rq ? q->rq->addr : d->ifs[j].addr;
			qp = q->rq ? q->rq->plen : d->ifs[j].plen;
			qn = q->rq ? q->rq->naddr : d->ifs[j].naddr;
			qnm = q->rq ? q->rq->name : d->ifs[j].name;
			for (unsigned a = 0; a < na; a++)
				for (unsigned b = 0; b < qn; b++) {
					unsigned l = pln[a] < qp[b] ? pln[a] :
								      qp[b];

					if (((ad[a] ^ qa[b]) & pmask(l)) != 0)
						continue;
					ipstr(ad[a], b1, sizeof(b1));
					ipstr(qa[b], b2, sizeof(b2));
					ERR("%s/%u on %s overlaps %s/%u on %s",
					    b1, pln[a], nm, b2, qp[b], qnm);
				}
		}
	}
	if (total > FWD_D_IF_MAX)
		ERR("more than %u interfaces", FWD_D_IF_MAX);
	if (naddr > FWD_LOCAL_MAX)
		ERR("more than %u addresses in all", FWD_LOCAL_MAX);
	/* port ids for new interfaces: slots free now */
	{
		unsigned s = 0;

		for (unsigned i = FWD_D_IF_MAX; i < np; i++) {
			if (!pl[i].in)
				continue;
			while (s < FWD_D_IF_MAX && d->ifs[s].used)
				s++;
			if (s == FWD_D_IF_MAX)
				ERR("no port id left for %s", pl[i].rq->name);
			pl[i].slot = (int)s++;
		}
	}
	if (dry_run)
		goto out;
	/* open every port that will be attached, before changing anything */
	{
		struct if_open *o = calloc(np, sizeof(*o));
		unsigned no = 0, bad;

		if (o == NULL) {
			snprintf(err, errlen, "out of memory");
			rv = -ENOMEM;
			goto out;
		}
		for (unsigned i = 0; i < np; i++) {
			struct if_plan *p = &pl[i];
			bool was = i < FWD_D_IF_MAX && d->ifs[i].used;

			if (!p->in || p->rq == NULL || !p->rq->enabled)
				continue;
			if (was && d->ifs[i].attached &&
			    d->ifs[i].backend == p->backend)
				continue;
			p->reattach = was;
			o[no].name = p->rq->name;
			o[no].backend = p->backend;
			o[no].fallback = p->bk_auto;
			o[no].plan = p;
			o[no].id = (uint16_t)p->slot;
			o[no].mtu = p->rq->mtu;
			o[no].ports = &p->ports;
			no++;
		}
		if ((rv = if_ports_open_all(d, o, no, &bad)) != 0) {
			snprintf(err, errlen, "%s: cannot open the port: %s",
			    o[bad].name, strerror(-rv));
			free(o);
			goto out;
		}
		free(o);
		for (unsigned i = 0; i < np; i++)
			if (pl[i].ports.tx != NULL)
				pl[i].open = true;
	}
	/* apply: removals first, then changes and additions */
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		if (!f->used || pl[i].in)
			continue;
		if_detach(d, f);
		fwd_ctl_if_event(d, f, true);
		memset(f, 0, sizeof(*f));
		f->glean = -1;
	}
	for (unsigned i = 0; i < np; i++) {
		struct if_plan *p = &pl[i];
		const struct fwd_if_req *r = p->rq;
		struct fwd_iface *f;
		bool was;

		if (!p->in || r == NULL)
			continue;
		f = &d->ifs[p->slot];
		was = f->used;
		if (was && if_same(f, r, p->backend, p->bk_auto))
			continue; /* unchanged: untouched */
		if (was && (p->open || !r->enabled || f->backend != p->backend))
			if_detach(d, f);
		if (!was) {
			memset(f, 0, sizeof(*f));
			f->used = true;
			f->glean = -1;
			snprintf(f->name, sizeof(f->name), "%s", r->name);
		}
		f->backend = p->backend;
		if (!p->bk_auto)
			f->xdp_failed = false;
		else if (p->xdp_failed)
			f->xdp_failed = true;
		f->bk_auto = p->bk_auto;
		f->ifindex = p->backend == FWD_D_BK_MEM ?
		    FWD_D_MEM_IFINDEX + (uint32_t)p->slot :
		    p->ifindex;
		f->enabled = r->enabled;
		if (f->attached) {
			/* same backend, still enabled: mtu and addresses */
			if (f->mtu_conf != r->mtu) {
				f->mtu_conf = r->mtu;
				f->mtu = r->mtu ? r->mtu : f->txport->mtu;
				(void)fwd_adj_port_set(d->adj,
				    (uint16_t)p->slot, f->mac, f->mtu,
				    f->link_up);
			}
			if_neigh_drop(d, f, r);
			if_addrs_update(d, f, r);
			if_neigh_add(d, f, r);
			rec_rebind_all(d);
			out_flush(d);
		} else {
			f->mtu_conf = r->mtu;
			f->naddr = r->naddr;
			memcpy(f->addr, r->addr, sizeof(f->addr));
			memcpy(f->plen, r->plen, sizeof(f->plen));
			neigh_take(f, r);
			if (p->open) {
				if_attach(d, f, &p->ports);
				p->open = false;
			}
		}
		fwd_ctl_if_event(d, f, false);
	}
out:
	for (unsigned i = 0; i < np; i++)
		if (pl[i].open)
			if_ports_free(d, &pl[i].ports);
	free(pl);
	d->st.if_batches++;
	if (rv != 0)
		d->st.if_refused++;
	return (rv);
}

int
fwd_d_if_apply(struct fwd_d *d, const struct fwd_if_req *rq, unsigned n,
    bool replace_all, bool dry_run, char *err, size_t errlen)
{
	return (
	    if_apply(d, rq, n, replace_all, dry_run, d->nworkers, err, errlen));
}

/* ---- run-time settings ---- */

static void
port_stats_add(struct fwd_port_stats *s, struct fwd_port *p)
{
#define ADD(f) s->f += __atomic_load_n(&p->stats.f, __ATOMIC_RELAXED)
	if (p == NULL)
		return;
	ADD(rx_pkts);
	ADD(rx_bytes);
	ADD(tx_pkts);
	ADD(tx_bytes);
	ADD(tx_full);
	ADD(rx_vlan);
	ADD(rx_csum_partial);
#undef ADD
	fwd_port_kernel_drops(p, s);
}

/* Stop every worker and close their ports; the counters are kept. */
static void
workers_down(struct fwd_d *d)
{
	struct fwd_port *v[FWD_PORT_MAX * FWD_D_WORKERS_MAX];
	unsigned n = 0;

	for (unsigned k = 0; k < d->nworkers; k++)
		fwd_worker_stop(d->w[k]);
	(void)fwd_d_drain(d); /* what they punted, while the ports exist */
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		for (unsigned k = 0; k < d->nworkers; k++) {
			if (f->wport[k] == NULL)
				continue;
			port_stats_add(&f->gone, f->wport[k]);
			v[n++] = f->wport[k];
			f->wport[k] = NULL;
		}
	}
	ports_free(v, n);
}

/*
 * Workers 0..nw-1 exist and the worker ports of every attached interface
 * are open for nw workers; then the workers start. On error (ports that
 * cannot be opened) the interfaces concerned have no worker port.
 */
static int
workers_up(struct fwd_d *d, unsigned nw, char *err, size_t errlen)
{
	struct if_open o[FWD_D_IF_MAX];
	struct if_ports p[FWD_D_IF_MAX];
	unsigned no = 0, bad = 0;
	int rv = 0;

	for (unsigned k = nw; k < FWD_D_WORKERS_MAX; k++) {
		if (d->w[k] != NULL) {
			fwd_dp_stats_sum(&d->gone_dp, &d->w[k]->dp);
			d->gone_punt_full += d->w[k]->punt_full;
			fwd_worker_free(d->w[k]);
			d->w[k] = NULL;
		}
		fwd_xdp_umem_put(d->xdp_umem[k]);
		d->xdp_umem[k] = NULL;
	}
	for (unsigned k = 0; k < nw; k++)
		if (d->w[k] == NULL &&
		    (d->w[k] = fwd_worker_new(d, k)) == NULL) {
			snprintf(err, errlen, "cannot create worker %u", k);
			nw = k;
			rv = -ENOMEM;
			break;
		}
	d->nworkers = nw;
	memset(o, 0, sizeof(o));
	for (unsigned i = 0; i < FWD_D_IF_MAX && nw > 0; i++) {
		const struct fwd_iface *f = &d->ifs[i];

		if (!f->used || !f->attached)
			continue;
		o[no].name = f->name;
		/* auto: the backend nw workers can have (re-chosen) */
		o[no].backend = f->bk_auto ? auto_backend(f->name, f, nw) :
					     f->backend;
		o[no].fallback = f->bk_auto;
		o[no].id = (uint16_t)i;
		o[no].mtu = f->mtu_conf;
		o[no].ports = &p[no];
		o[no].workers_only = true;
		no++;
	}
	if (rv == 0 && (rv = if_ports_open_all(d, o, no, &bad)) != 0)
		snprintf(err, errlen, "%s: cannot open the worker ports: %s",
		    o[bad].name, strerror(-rv));
	for (unsigned j = 0; j < no && rv == 0; j++) {
		struct fwd_iface *f = &d->ifs[o[j].id];

		if (o[j].fell_back)
			f->xdp_failed = true;
		if (f->bk_auto && o[j].backend != f->backend) {
			lc_log_notice("%s: port-backend auto: %s with %u "
				      "worker%s",
			    f->name,
			    o[j].backend == FWD_D_BK_XDP ? "AF_XDP" :
							   "AF_PACKET",
			    nw, nw == 1 ? "" : "s");
			f->backend = o[j].backend;
		}
		for (unsigned k = 0; k < nw; k++)
			f->wport[k] = p[j].w[k];
	}
	/* the workers are stopped: they take their new ports at once */
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx("a worker did not take its ports");
	for (unsigned k = 0; k < nw; k++) {
		/* a worker stopped by workers_down() runs again */
		__atomic_store_n(&d->w[k]->stop, 0, __ATOMIC_RELEASE);
		if (fwd_worker_start(d->w[k]) != 0 && rv == 0) {
			snprintf(err, errlen, "cannot start worker %u", k);
			rv = -EAGAIN;
		}
	}
	return (rv);
}

static int
set_workers(struct fwd_d *d, unsigned nw, char *err, size_t errlen)
{
	unsigned old = d->nworkers;
	uint64_t t0 = fwd_d_now_ms(d);
	int rv;

	workers_down(d);
	if ((rv = workers_up(d, nw, err, errlen)) != 0) {
		char e2[256];

		lc_log_warnx("workers %u -> %u: %s; back to %u", old, nw, err,
		    old);
		workers_down(d);
		if (workers_up(d, old, e2, sizeof(e2)) != 0)
			lc_log_err("workers: back to %u: %s", old, e2);
		return (rv);
	}
	lc_log_notice("workers: %u -> %u (ports reopened in %llu ms)", old, nw,
	    (unsigned long long)(fwd_d_now_ms(d) - t0));
	return (0);
}

/*
 * The settings on their own: ranges, --cpus, test mode; then the configured
 * interfaces on AF_XDP (not auto) against nw workers, but for those of the
 * batch rq[0..n) (checked by if_apply) and those replace_all removes.
 */
static int
settings_check(struct fwd_d *d, const struct fwd_d_settings *c, unsigned nw,
    const struct fwd_if_req *rq, unsigned n, bool replace_all, char *err,
    size_t errlen)
{
	err[0] = '\0';
	if (c->workers > FWD_D_WORKERS_MAX) {
		snprintf(err, errlen, "workers %u out of range (1..%u)",
		    c->workers, FWD_D_WORKERS_MAX);
		return (-EINVAL);
	}
	if (c->icmp_rate < -1 || c->icmp_rate > 1000000) {
		snprintf(err, errlen,
		    "icmp-rate-limit %ld out of range "
		    "(0..1000000)",
		    c->icmp_rate);
		return (-EINVAL);
	}
	if (d->conf.ncpus > 0 && nw > d->conf.ncpus) {
		snprintf(err, errlen,
		    "workers %u: tern-fwd pins its workers "
		    "(--cpus) and lists %u CPU%s",
		    nw, d->conf.ncpus, d->conf.ncpus == 1 ? "" : "s");
		return (-EINVAL);
	}
	if (nw != d->nworkers && d->conf.workers == 0) {
		snprintf(err, errlen,
		    "workers: this tern-fwd runs without "
		    "worker threads (test mode)");
		return (-EINVAL);
	}
	for (unsigned i = 0;
	     i < FWD_D_IF_MAX && nw != d->nworkers && !replace_all; i++) {
		const struct fwd_iface *f = &d->ifs[i];
		bool listed = false;
		int nq;

		/* auto interfaces go to AF_PACKET instead (workers_up) */
		if (!f->used || f->backend != FWD_D_BK_XDP || f->bk_auto)
			continue;
		for (unsigned j = 0; j < n && !listed; j++)
			listed = rq[j].name != NULL &&
			    strcmp(rq[j].name, f->name) == 0;
		if (listed)
			continue;
		if ((nq = xdp_queues_short(f->name, nw)) > 0) {
			snprintf(err, errlen,
			    "workers %u: %s uses AF_XDP, which "
			    "binds a device queue per worker, and has %d "
			    "queue%s",
			    nw, f->name, nq, nq == 1 ? "" : "s");
			return (-EINVAL);
		}
	}
	return (0);
}

/* The checked settings take effect. */
static int
settings_apply(struct fwd_d *d, const struct fwd_d_settings *c, unsigned nw,
    char *err, size_t errlen)
{
	unsigned rate;

	rate = c->icmp_rate < 0 ? d->icmp_rate_start : (unsigned)c->icmp_rate;
	if (rate != d->icmp_rate_cur) {
		fwd_icmp_set_rate(&d->icmp, rate);
		d->icmp_rate_cur = rate;
		lc_log_notice("icmp-rate-limit: %u errors per second", rate);
	}
	if (nw != d->nworkers)
		return (set_workers(d, nw, err, errlen));
	return (0);
}

int
fwd_d_set_config(struct fwd_d *d, const struct fwd_d_settings *c, bool dry_run,
    char *err, size_t errlen)
{
	unsigned nw = c->workers ? c->workers : d->nworkers_start;
	int rv;

	if ((rv = settings_check(d, c, nw, NULL, 0, false, err, errlen)) != 0 ||
	    dry_run)
		return (rv);
	return (settings_apply(d, c, nw, err, errlen));
}

int
fwd_d_config_apply(struct fwd_d *d, const struct fwd_d_settings *c,
    const struct fwd_if_req *rq, unsigned n, bool replace_all, bool dry_run,
    char *err, size_t errlen)
{
	unsigned nw = c->workers ? c->workers : d->nworkers_start;
	int rv;

	/* everything against the state both parts make, before either */
	if ((rv = settings_check(d, c, nw, rq, n, replace_all, err, errlen)) !=
		0 ||
	    (rv = if_apply(d, rq, n, replace_all, true, nw, err, errlen)) !=
		0 ||
	    dry_run)
		return (rv);
	/* fewer workers first when the interfaces need them, the
	 * interfaces first when the new count needs theirs */
	if (nw < d->nworkers) {
		if ((rv = settings_apply(d, c, nw, err, errlen)) != 0)
			return (rv);
		return (if_apply(d, rq, n, replace_all, false, d->nworkers, err,
		    errlen));
	}
	if ((rv = if_apply(d, rq, n, replace_all, false, d->nworkers, err,
		 errlen)) != 0)
		return (rv);
	return (settings_apply(d, c, nw, err, errlen));
}

/* ---- counters ---- */

void
fwd_d_stats(struct fwd_d *d, struct fwd_dp_stats *s, uint64_t *punt_full)
{
	*s = d->gone_dp;
	*punt_full = d->gone_punt_full;
	for (unsigned k = 0; k < d->nworkers; k++) {
		fwd_dp_stats_sum(s, &d->w[k]->dp);
		*punt_full += __atomic_load_n(&d->w[k]->punt_full,
		    __ATOMIC_RELAXED);
	}
}

void
fwd_d_if_counters(struct fwd_d *d, const struct fwd_iface *f,
    struct fwd_port_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!f->attached)
		return;
	*s = f->gone;
	for (unsigned k = 0; k < d->nworkers; k++)
		port_stats_add(s, f->wport[k]);
	port_stats_add(s, f->txport);
}

/* ---- punts, timers ---- */

unsigned
fwd_d_drain(struct fwd_d *d)
{
	uint64_t now = fwd_d_now_ms(d);
	unsigned total = 0;

	for (unsigned k = 0; k < d->nworkers; k++) {
		struct fwd_worker *w = d->w[k];
		struct fwd_punt *b[32];
		unsigned n;

		while (
		    (n = lc_ring_dequeue_burst(w->puntq, (void **)b, 32)) > 0) {
			for (unsigned i = 0; i < n; i++) {
				if (fwd_slow_input(&d->slow, b[i]->port,
					(enum fwd_reason)b[i]->why, b[i]->aux,
					b[i]->data, b[i]->len, now,
					d->out) != 0)
					d->st.slow_errors++;
				if (d->out->n > FWD_OUT_MAX - 8)
					out_flush(d);
			}
			(void)lc_ring_enqueue_burst(w->freeq, (void **)b, n);
			total += n;
		}
	}
	d->st.punts += total;
	out_flush(d);
	return (total);
}

unsigned
fwd_d_poll(struct fwd_d *d)
{
	unsigned n = 0;

	for (unsigned k = 0; k < d->nworkers; k++)
		if (!d->w[k]->started)
			n += fwd_worker_poll(d->w[k]);
	(void)fwd_d_drain(d);
	return (n);
}

void
fwd_d_tick(struct fwd_d *d, uint64_t now)
{
	/* a tick stops when the output is full; send and go on (bounded) */
	for (int i = 0; i < 64; i++) {
		(void)fwd_arp_tick(d->arp, now, &d->icmp, d->out);
		if (d->out->n < FWD_OUT_MAX)
			break;
		out_flush(d);
	}
	pending_reclaim(d);
	(void)fwd_fib_reclaim(d->fib);
	if (now - d->last_link_ms >= LINK_MS) {
		d->last_link_ms = now;
		for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
			struct fwd_iface *f = &d->ifs[i];
			bool up;

			if (!f->used || !f->attached ||
			    (up = if_link_up(d, f)) == f->link_up)
				continue;
			f->link_up = up;
			(void)fwd_adj_port_set(d->adj, (uint16_t)i, f->mac,
			    f->mtu, up);
			if (up)
				(void)fwd_arp_announce(d->arp, (uint16_t)i,
				    d->out);
			lc_log_notice("%s: link %s", f->name,
			    up ? "up" : "down");
			fwd_ctl_if_event(d, f, false);
		}
	}
	out_flush(d);
}

static void
on_punt(struct ev_loop *loop, ev_async *w, int revents)
{
	(void)loop;
	(void)revents;
	fwd_d_drain(w->data);
}

static void
on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fwd_d *d = w->data;

	(void)loop;
	(void)revents;
	fwd_d_tick(d, fwd_d_now_ms(d));
}

/* ---- life cycle ---- */

struct fwd_d *
fwd_d_new(struct ev_loop *loop, const struct fwd_d_conf *c)
{
	struct fwd_d *d;
	struct fwd_fib_conf fc = {0};
	struct fwd_arp_conf ac = {0};
	struct fwd_icmp_conf ic = {0};
	int e = ENOMEM;

	if (loop == NULL || c == NULL || c->workers > FWD_D_WORKERS_MAX) {
		errno = EINVAL;
		return (NULL);
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return (NULL);
	d->conf = *c;
	d->loop = loop;
	d->ioctl_fd = -1;
	if (d->conf.max_nh == 0)
		d->conf.max_nh = FWD_D_MAX_NH;
	if (d->conf.max_nh < 64 || d->conf.max_nh > FWD_FIB_MAX_NH) {
		free(d);
		errno = EINVAL;
		return (NULL);
	}
	if (d->conf.spin_us == 0)
		d->conf.spin_us = 50;
	if (d->conf.idle_ms == 0)
		d->conf.idle_ms = 1;
	for (unsigned i = 0; i < FWD_PORT_MAX; i++)
		d->ifs[i].glean = -1;
	d->fanout_base = 1 + (int)(getpid() % 1000) * 64;
	d->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if ((d->qsbr = fwd_qsbr_new(0)) == NULL)
		goto fail;
	fc.max_nh = d->conf.max_nh;
	fc.qsbr = d->qsbr;
	fc.flags = FWD_FIB_F_MARTIAN; /* the fast path relies on it */
	if ((d->fib = fwd_fib_new(&fc)) == NULL)
		goto fail;
	if ((d->adj = fwd_adj_tbl_new(d->conf.max_nh, NGROUPS)) == NULL)
		goto fail;
	ac.local = &d->local;
	ac.fib = d->fib;
	/* every interface's static neighbours fit, with room to learn */
	ac.max_neigh = FWD_D_ARP_MAX;
	ac.reachable_ms = d->conf.arp_reachable_ms;
	_Static_assert(FWD_D_IF_MAX * FWD_D_NEIGH_MAX < FWD_D_ARP_MAX,
	    "static neighbours must fit the ARP table");
	if ((d->arp = fwd_arp_new(&ac, d->adj)) == NULL)
		goto fail;
	ic.rate = d->conf.icmp_rate;
	(void)fwd_icmp_init(&d->icmp, &ic);
	d->icmp_rate_start = d->icmp_rate_cur = d->icmp.conf.rate;
	d->slow.arp = d->arp;
	d->slow.icmp = &d->icmp;
	d->slow.adj = d->adj;
	if ((d->out = calloc(1, sizeof(*d->out))) == NULL ||
	    (d->ar = lc_arena_new(64 << 10)) == NULL)
		goto fail;
	if ((d->rec = calloc(d->conf.max_nh, sizeof(*d->rec))) == NULL)
		goto fail;
	for (d->nbucket = 64; d->nbucket < d->conf.max_nh; d->nbucket *= 2)
		;
	if ((d->hbucket = calloc(d->nbucket, sizeof(*d->hbucket))) == NULL)
		goto fail;
	/* blackhole routes share one permanent drop adjacency */
	if ((d->drop_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_drop(d->adj, (unsigned)d->drop_adj) != 0)
		goto fail;
	d->rec[d->drop_adj].kind = FWD_REC_DROP;
	d->rec[d->drop_adj].hold = 1;
	/* and reject routes one reject adjacency */
	if ((d->reject_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_reject(d->adj, (unsigned)d->reject_adj) != 0)
		goto fail;
	d->rec[d->reject_adj].kind = FWD_REC_DROP;
	d->rec[d->reject_adj].hold = 1;
	/* the router's own addresses are pinned in the FIB to a LOCAL one */
	if ((d->local_adj = fwd_adj_alloc(d->adj)) < 0 ||
	    fwd_adj_set_local(d->adj, (unsigned)d->local_adj) != 0 ||
	    fwd_local_bind(&d->local, d->fib, (unsigned)d->local_adj) != 0)
		goto fail;
	d->rec[d->local_adj].kind = FWD_REC_DROP;
	d->rec[d->local_adj].hold = 1;
	d->nworkers = d->conf.workers ? d->conf.workers : 1;
	d->nworkers_start = d->nworkers;
	for (unsigned k = 0; k < d->nworkers; k++)
		if ((d->w[k] = fwd_worker_new(d, k)) == NULL)
			goto fail;
	ev_async_init(&d->punt_async, on_punt);
	d->punt_async.data = d;
	ev_async_start(loop, &d->punt_async);
	ev_timer_init(&d->tick, on_tick, TICK_S, TICK_S);
	d->tick.data = d;
	ev_timer_start(loop, &d->tick);
	if (fwd_ctl_init(d) != 0) {
		e = errno;
		goto fail;
	}
	for (unsigned k = 0; k < d->nworkers; k++)
		if (fwd_worker_start(d->w[k]) != 0) {
			e = EAGAIN;
			goto fail;
		}
	return (d);
fail:
	if (errno != 0 && e == ENOMEM)
		e = errno;
	fwd_d_free(d);
	errno = e;
	return (NULL);
}

void
fwd_d_free(struct fwd_d *d)
{
	if (d == NULL)
		return;
	for (unsigned k = 0; k < FWD_D_WORKERS_MAX; k++)
		if (d->w[k] != NULL)
			fwd_worker_stop(d->w[k]);
	if (d->srv != NULL)
		ipc_server_free(d->srv);
	if (d->loop != NULL) {
		ev_async_stop(d->loop, &d->punt_async);
		ev_timer_stop(d->loop, &d->tick);
	}
	{
		struct fwd_port *v[FWD_PORT_MAX * (FWD_D_WORKERS_MAX + 1)];
		unsigned n = 0;

		for (unsigned i = 0; i < FWD_PORT_MAX; i++) {
			struct fwd_iface *f = &d->ifs[i];

			for (unsigned k = 0; k < FWD_D_WORKERS_MAX; k++)
				if (f->wport[k] != NULL)
					v[n++] = f->wport[k];
			if (f->txport != NULL)
				v[n++] = f->txport;
		}
		ports_free(v, n);
	}
	for (unsigned k = 0; k < FWD_D_WORKERS_MAX; k++) {
		fwd_worker_free(d->w[k]);
		fwd_xdp_umem_put(d->xdp_umem[k]);
	}
	fwd_arp_free(d->arp);
	fwd_adj_tbl_free(d->adj);
	fwd_fib_free(d->fib);
	fwd_qsbr_free(d->qsbr);
	free(d->out);
	free(d->rec);
	free(d->hbucket);
	free(d->pend);
	lc_arena_free(d->ar);
	if (d->ioctl_fd >= 0)
		close(d->ioctl_fd);
	free(d);
}
