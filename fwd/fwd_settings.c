/* fwd/fwd_settings.c: tern-fwd's run-time settings (SET_CONFIG, and the
 * settings of a commit with interfaces): the ICMP rate, and the worker
 * count, whose change stops the workers, reopens their ports and starts
 * them again. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libcommon/lc_log.h"
#include "fwd_d_int.h"
#include "fwd_port_xdp.h"

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
			fwd_if_port_stats_add(&f->gone, f->wport[k]);
			v[n++] = f->wport[k];
			f->wport[k] = NULL;
		}
	}
	fwd_ports_free(v, n);
}

/*
 * Workers 0..nw-1 exist and the worker ports of every attached interface
 * are open for nw workers; then the workers start. On error (ports that
 * cannot be opened) the interfaces concerned have no worker port.
 */
static int
workers_up(struct fwd_d *d, unsigned nw, struct lc_err *err)
{
	struct fwd_if_open o[FWD_D_IF_MAX];
	struct fwd_if_ports p[FWD_D_IF_MAX];
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
			rv = lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX,
			    "cannot create worker %u", k);
			nw = k;
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
		o[no].backend = f->bk_auto ?
		    fwd_if_backend_auto(f->name, f, nw) :
		    f->backend;
		o[no].fallback = f->bk_auto;
		o[no].id = (uint16_t)i;
		o[no].mtu = f->mtu_conf;
		o[no].ports = &p[no];
		o[no].workers_only = true;
		no++;
	}
	if (rv == 0 && (rv = fwd_if_ports_open(d, o, no, &bad)) != 0)
		lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "%s: cannot open the worker ports: %s", o[bad].name,
		    strerror(-rv));
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
		if (fwd_worker_start(d->w[k]) != 0 && rv == 0)
			rv = lc_err_set(err, -EAGAIN, LC_ERR_NOINDEX,
			    "cannot start worker %u", k);
	}
	return (rv);
}

static int
set_workers(struct fwd_d *d, unsigned nw, struct lc_err *err)
{
	unsigned old = d->nworkers;
	uint64_t t0 = fwd_d_now_ms(d);
	int rv;

	workers_down(d);
	if ((rv = workers_up(d, nw, err)) != 0) {
		struct lc_err e2;

		lc_log_warnx("workers %u -> %u: %s; back to %u", old, nw,
		    err->msg, old);
		workers_down(d);
		if (workers_up(d, old, &e2) != 0)
			lc_log_err("workers: back to %u: %s", old, e2.msg);
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
    const struct fwd_if_req *rq, unsigned n, bool replace_all,
    struct lc_err *err)
{
	lc_err_clear(err);
	if (c->workers > FWD_D_WORKERS_MAX)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "workers %u out of range (1..%u)", c->workers,
		    FWD_D_WORKERS_MAX));
	if (c->icmp_rate < -1 || c->icmp_rate > 1000000)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "icmp-rate-limit %ld out of range "
		    "(0..1000000)",
		    c->icmp_rate));
	if (d->conf.ncpus > 0 && nw > d->conf.ncpus)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "workers %u: tern-fwd pins its workers "
		    "(--cpus) and lists %u CPU%s",
		    nw, d->conf.ncpus, d->conf.ncpus == 1 ? "" : "s"));
	if (nw != d->nworkers && d->conf.workers == 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "workers: this tern-fwd runs without "
		    "worker threads (test mode)"));
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
		if ((nq = fwd_if_xdp_queues_short(f->name, nw)) > 0)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "workers %u: %s uses AF_XDP, which "
			    "binds a device queue per worker, and has %d "
			    "queue%s",
			    nw, f->name, nq, nq == 1 ? "" : "s"));
	}
	return (0);
}

/* The checked settings take effect. */
static int
settings_apply(struct fwd_d *d, const struct fwd_d_settings *c, unsigned nw,
    struct lc_err *err)
{
	unsigned rate;

	rate = c->icmp_rate < 0 ? d->icmp_rate_start : (unsigned)c->icmp_rate;
	if (rate != d->icmp_rate_cur) {
		fwd_icmp_set_rate(&d->icmp, rate);
		d->icmp_rate_cur = rate;
		lc_log_notice("icmp-rate-limit: %u errors per second", rate);
	}
	if (nw != d->nworkers)
		return (set_workers(d, nw, err));
	return (0);
}

int
fwd_d_set_config(struct fwd_d *d, const struct fwd_d_settings *c, bool dry_run,
    struct lc_err *err)
{
	unsigned nw = c->workers ? c->workers : d->nworkers_start;
	int rv;

	if ((rv = settings_check(d, c, nw, NULL, 0, false, err)) != 0 ||
	    dry_run)
		return (rv);
	return (settings_apply(d, c, nw, err));
}

int
fwd_d_config_apply(struct fwd_d *d, const struct fwd_d_settings *c,
    const struct fwd_if_req *rq, unsigned n, bool replace_all, bool dry_run,
    struct lc_err *err)
{
	unsigned nw = c->workers ? c->workers : d->nworkers_start;
	int rv;

	/* everything against the state both parts make, before either */
	if ((rv = settings_check(d, c, nw, rq, n, replace_all, err)) != 0 ||
	    (rv = fwd_if_apply(d, rq, n, replace_all, true, nw, err)) != 0 ||
	    dry_run)
		return (rv);
	/* fewer workers first when the interfaces need them, the
	 * interfaces first when the new count needs theirs */
	if (nw < d->nworkers) {
		if ((rv = settings_apply(d, c, nw, err)) != 0)
			return (rv);
		return (fwd_if_apply(d, rq, n, replace_all, false, d->nworkers,
		    err));
	}
	if ((rv = fwd_if_apply(d, rq, n, replace_all, false, d->nworkers,
		 err)) != 0)
		return (rv);
	return (settings_apply(d, c, nw, err));
}
