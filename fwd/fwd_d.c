/* fwd/fwd_d.c: the tern-fwd daemon's life cycle: builds the control
 * thread's state and the workers, drains what the workers punted, and runs
 * the timers (ARP, reclamation, link state). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_ring.h"
#include "libcommon/lc_time.h"
#include "fwd_d_int.h"
#include "fwd_port_xdp.h"

#define TICK_S	0.1
#define LINK_MS 500
#define NGROUPS 8192

uint64_t
fwd_d_now_ms(struct fwd_d *d)
{
	(void)d;
	return (lc_time_mono_ns() / 1000000);
}

void
fwd_d_out_flush(struct fwd_d *d)
{
	if (d->out->n > 0)
		d->st.out_sent += fwd_out_send(d->out, d->ctl_ports,
		    FWD_PORT_MAX);
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

/* ---- punts, timers ---- */

/* What the workers punted, at most budget frames per worker; true when a
 * ring was left with frames in it. */
static bool
drain(struct fwd_d *d, unsigned budget, unsigned *total_out)
{
	uint64_t now = fwd_d_now_ms(d);
	unsigned total = 0;
	bool more = false;

	for (unsigned k = 0; k < d->nworkers; k++) {
		struct fwd_worker *w = d->w[k];
		struct fwd_punt *b[32];
		unsigned n, done = 0;

		while (done < budget &&
		    (n = lc_ring_dequeue_burst(w->puntq, (void **)b, 32)) > 0) {
			for (unsigned i = 0; i < n; i++) {
				if (fwd_slow_input(&d->slow, b[i]->port,
					(enum fwd_reason)b[i]->why, b[i]->aux,
					b[i]->data, b[i]->len, now,
					d->out) != 0)
					d->st.slow_errors++;
				if (d->out->n > FWD_OUT_MAX - 8)
					fwd_d_out_flush(d);
			}
			(void)lc_ring_enqueue_burst(w->freeq, (void **)b, n);
			total += n;
			done += n;
		}
		if (done >= budget)
			more = true;
	}
	d->st.punts += total;
	fwd_host_flush(d);
	fwd_d_out_flush(d);
	*total_out = total;
	return (more);
}

unsigned
fwd_d_drain(struct fwd_d *d)
{
	unsigned total;

	(void)drain(d, ~0u, &total);
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
		fwd_d_out_flush(d);
	}
	fwd_d_nd_tick(d);
	fwd_nh_reclaim(d);
	(void)fwd_fib_reclaim(d->fib);
	(void)fwd_fib6_reclaim(d->fib6);
	if (d->link_nl == NULL && now - d->last_link_ms >= LINK_MS) {
		d->last_link_ms = now;
		fwd_if_link_check(d);
	}
	fwd_d_out_flush(d);
}

/*
 * A flood to the router's address (up the host path, or answered) takes
 * one punt ring's worth per worker per loop turn: IPC, timers and the host
 * interfaces get theirs in between, and what the rings cannot hold is
 * refused by the workers (punt_full), never waited for.
 */
static void
on_punt(struct ev_loop *loop, ev_async *w, int revents)
{
	unsigned total;

	(void)revents;
	if (drain(w->data, FWD_D_PUNT_BUFS, &total))
		ev_async_send(loop, w);
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

/*
 * The IPv6 FIB: the adjacencies' next-hop space, the IPv4 FIB's QSBR (the
 * workers report one quiescent state for both). Its groups are reserved
 * virtually (fwd_fib6.h): 2^20 groups, 4 GiB of address space, cost
 * memory only when used.
 */
static int
fwd_d6_init(struct fwd_d *d)
{
	struct fwd_fib6_conf c6 = {0};

	c6.max_nh = d->conf.max_nh;
	c6.qsbr = d->qsbr;
	c6.max_tbl8 = 1u << 20;
	if ((d->fib6 = fwd_fib6_new(&c6)) == NULL)
		return (-errno);
	for (unsigned i = 0; i < FWD_PORT_MAX; i++)
		d->ifs[i].glean6 = -1;
	return (0);
}

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
	d->host_prog = -1;
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
	if (fwd_d6_init(d) != 0)
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
	(void)fwd_icmp6_init(&d->icmp6, &d->icmp);
	d->slow.icmp6 = &d->icmp6;
	if (fwd_host_init(d) != 0)
		goto fail;
	if ((d->out = calloc(1, sizeof(*d->out))) == NULL ||
	    (d->ar = lc_arena_new(64 << 10)) == NULL)
		goto fail;
	if (fwd_nh_init(d) != 0 || fwd_d_nd_init(d) != 0)
		goto fail;
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
	if ((e = fwd_link_init(d)) != 0)
		lc_log_warnx("link events: %s: the link state is polled every "
			     "%u ms instead",
		    strerror(-e), LINK_MS);
	e = ENOMEM;
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
	if (d->out != NULL)
		fwd_d_nd_fini(d); /* final RAs while the ports are open */
	fwd_ctl_fini(d);
	fwd_link_fini(d);
	fwd_host_fini(d);
	if (d->loop != NULL) {
		ev_async_stop(d->loop, &d->punt_async);
		ev_timer_stop(d->loop, &d->tick);
	}
	fwd_if_reap_wait(d, FWD_PORT_MAX);
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
		fwd_ports_free(v, n);
	}
	for (unsigned k = 0; k < FWD_D_WORKERS_MAX; k++) {
		fwd_worker_free(d->w[k]);
		fwd_xdp_umem_put(d->xdp_umem[k]);
	}
	fwd_arp_free(d->arp);
	fwd_adj_tbl_free(d->adj);
	fwd_fib_free(d->fib);
	fwd_fib6_free(d->fib6);
	fwd_qsbr_free(d->qsbr);
	free(d->out);
	fwd_nh_fini(d);
	lc_arena_free(d->ar);
	if (d->ioctl_fd >= 0)
		close(d->ioctl_fd);
	free(d);
}
