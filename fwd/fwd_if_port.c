/* fwd/fwd_if_port.c: tern-fwd opens and closes the ports of its
 * interfaces (AF_PACKET, AF_XDP, memory), many at once, and picks the
 * backend of "auto". */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/lc_log.h"
#include "fwd_d_int.h"
#include "fwd_port_xdp.h"

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
void
fwd_ports_free(struct fwd_port **v, unsigned n)
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

void
fwd_if_ports_free(struct fwd_d *d, struct fwd_if_ports *p)
{
	struct fwd_port *v[FWD_D_WORKERS_MAX + 1];
	unsigned n = 0;

	for (unsigned k = 0; k < d->nworkers; k++) {
		v[n++] = p->w[k];
		p->w[k] = NULL;
	}
	v[n++] = p->tx;
	p->tx = NULL;
	fwd_ports_free(v, n);
}

struct fwd_reap {
	pthread_t thr;
	struct fwd_port *v[FWD_D_WORKERS_MAX + 1];
	unsigned n;
	int fd;
};

static void *
reap_run(void *arg)
{
	struct fwd_reap *r = arg;

	fwd_ports_free(r->v, r->n);
	if (r->fd >= 0)
		close(r->fd);
	return (NULL);
}

void
fwd_if_ports_reap(struct fwd_d *d, uint16_t id, struct fwd_if_ports *p, int fd)
{
	struct fwd_reap *r;

	fwd_if_reap_wait(d, id);
	if ((r = calloc(1, sizeof(*r))) == NULL)
		goto here;
	r->fd = fd;
	for (unsigned k = 0; k <= d->nworkers; k++) {
		struct fwd_port **pp = k < d->nworkers ? &p->w[k] : &p->tx;

		if (*pp == NULL)
			continue;
		if (fwd_port_afp_fd(*pp) >= 0)
			r->v[r->n++] = *pp;
		else
			fwd_port_free(*pp);
		*pp = NULL;
	}
	if (pthread_create(&r->thr, NULL, reap_run, r) == 0) {
		d->reap[id] = r;
		return;
	}
	/* no thread: here, then */
	fd = r->fd;
	fwd_ports_free(r->v, r->n);
	free(r);
here:
	fwd_if_ports_free(d, p);
	if (fd >= 0)
		close(fd);
}

void
fwd_if_reap_wait(struct fwd_d *d, unsigned id)
{
	unsigned lo = id < FWD_PORT_MAX ? id : 0,
		 hi = id < FWD_PORT_MAX ? id + 1 : FWD_PORT_MAX;

	for (unsigned i = lo; i < hi; i++) {
		if (d->reap[i] == NULL)
			continue;
		pthread_join(d->reap[i]->thr, NULL);
		free(d->reap[i]);
		d->reap[i] = NULL;
	}
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
    bool workers_only, struct fwd_if_ports *p)
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
#define FWD_D_XDP_RING	 4096
#define FWD_D_XDP_FRAMES 16384 /* per worker UMEM (64 MiB) */

static int
xdp_ports_open(struct fwd_d *d, const char *name, uint16_t id, uint16_t mtu,
    struct fwd_if_ports *p)
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

/* Whether o's ports failed to open: its own error, or its first AF_PACKET
 * job's (jobs from *nj on, in the order open_one queued them). */
static int
open_err(struct fwd_d *d, const struct fwd_if_open *o,
    const struct afp_job *jobs, unsigned *nj)
{
	unsigned nk = o->backend == FWD_D_BK_XDP ? 1 : d->nworkers + 1;
	int err = o->err;

	if (o->workers_only)
		nk--;
	if (o->backend != FWD_D_BK_MEM)
		for (unsigned k = 0; k < nk; k++, (*nj)++)
			if (jobs[*nj].err != 0 && err == 0)
				err = jobs[*nj].err;
	return (err);
}

/* Open o's memory or AF_XDP ports now and queue its AF_PACKET ones as jobs
 * (from jobs[*nj] on); auto falls back from AF_XDP to AF_PACKET here. */
static void
open_one(struct fwd_d *d, struct fwd_if_open *o, struct afp_job *jobs,
    unsigned *nj)
{
	memset(o->ports, 0, sizeof(*o->ports));
	o->err = 0;
	if (o->backend == FWD_D_BK_MEM) {
		o->err = -mem_ports_open(d, o->name, o->id, o->mtu,
		    o->workers_only, o->ports);
		return;
	}
	(void)fwd_port_afp_offloads_off(o->name);
	if (o->backend == FWD_D_BK_XDP) {
		o->err = -xdp_ports_open(d, o->name, o->id, o->mtu, o->ports);
		if (o->err != 0 && o->fallback) {
			lc_log_warnx("%s: port-backend auto: AF_XDP "
				     "cannot be opened (%s): AF_PACKET",
			    o->name, strerror(o->err));
			fwd_if_ports_free(d, o->ports);
			memset(o->ports, 0, sizeof(*o->ports));
			o->err = 0;
			o->backend = FWD_D_BK_AFP;
			o->fell_back = true;
		}
	}
	for (int k = -1; k < (int)d->nworkers; k++) {
		struct afp_job *j;

		if (o->backend == FWD_D_BK_XDP && k >= 0)
			continue; /* AF_XDP: opened above */
		if (o->workers_only && k < 0)
			continue;
		j = &jobs[(*nj)++];

		j->ac.ifname = o->name;
		j->ac.id = o->id;
		j->ac.mtu = o->mtu;
		j->ac.ring_frames = d->conf.ring_frames;
		j->ac.fanout_group = d->nworkers > 1 && k >= 0 ?
		    d->fanout_base + o->id :
		    0;
		j->ac.flags = k < 0 ? FWD_AFP_TX_ONLY : 0;
		j->out = k < 0 ? &o->ports->tx : &o->ports->w[k];
	}
}

int
fwd_if_ports_open(struct fwd_d *d, struct fwd_if_open *o, unsigned n,
    unsigned *bad)
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
	for (unsigned i = 0; i < n; i++)
		open_one(d, &o[i], jobs, &nj);
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
		o[i].err = open_err(d, &o[i], jobs, &nj);
		if (o[i].err != 0 && rv == 0) {
			rv = -o[i].err;
			*bad = i;
		}
	}
	if (rv != 0)
		for (unsigned i = 0; i < n; i++)
			fwd_if_ports_free(d, o[i].ports);
	free(jobs);
	return (rv);
}

int
fwd_if_xdp_queues_short(const char *name, unsigned nw)
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
uint8_t
fwd_if_backend_auto(const char *name, const struct fwd_iface *f, unsigned nw)
{
	int nq;

	if (f != NULL && f->bk_auto && f->xdp_failed)
		return (FWD_D_BK_AFP);
	nq = fwd_port_xdp_queues(name);
	if (nq > 0 ? (unsigned)nq < nw : nw > 1)
		return (FWD_D_BK_AFP);
	return (FWD_D_BK_XDP);
}

void
fwd_if_port_stats_add(struct fwd_port_stats *s, struct fwd_port *p)
{
#define ADD(f) s->f += __atomic_load_n(&p->stats.f, __ATOMIC_RELAXED)
	if (p == NULL)
		return;
	ADD(rx_pkts);
	ADD(rx_bytes);
	ADD(tx_pkts);
	ADD(tx_bytes);
	ADD(tx_full);
	ADD(tx_mtu);
	ADD(tx_refused);
	ADD(tx_errors);
	ADD(rx_vlan);
	ADD(rx_csum_partial);
	ADD(rx_oversize);
#undef ADD
	fwd_port_kernel_drops(p, s);
}
