/* fwd/fwd_worker.c: tern-fwd's forwarding threads: poll the worker's own
 * ports with adaptive back-off, punt to the control thread through a bounded
 * ring, pick up port changes between bursts. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "libcommon/lc_ring.h"
#include "fwd_d.h"
#include "fwd_port_xdp.h"

/*
 * Runs on the worker: copy the frame into a free punt buffer, queue it for
 * the control thread and give the RX slot back at once. No allocation, no
 * system call (the wake-up is sent once per burst by the poll loop).
 */
static bool
worker_punt(void *arg, struct fwd_pkt *pkt, enum fwd_reason why, unsigned aux)
{
	struct fwd_worker *w = arg;
	struct fwd_punt *b;

	if (lc_ring_dequeue(w->freeq, (void **)&b) != 0) {
		w->punt_full++;
		return (false);
	}
	b->len = pkt->len;
	b->port = pkt->port;
	b->why = (uint8_t)why;
	b->aux = aux;
	memcpy(b->data, pkt->data, pkt->len);
	/* cannot fail: there are as many ring slots as buffers */
	(void)lc_ring_enqueue(w->puntq, b);
	fwd_pkt_release(&pkt, 1);
	w->punted = true;
	return (true);
}

struct fwd_worker *
fwd_worker_new(struct fwd_d *d, unsigned id)
{
	struct fwd_worker *w;
	struct fwd_dp_conf dc;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return (NULL);
	w->d = d;
	w->id = id;
	w->efd = -1;
	w->puntq = lc_ring_new(FWD_D_PUNT_BUFS);
	w->freeq = lc_ring_new(FWD_D_PUNT_BUFS);
	w->bufs = calloc(FWD_D_PUNT_BUFS, sizeof(*w->bufs));
	if (w->puntq == NULL || w->freeq == NULL || w->bufs == NULL)
		goto fail;
	for (unsigned i = 0; i < FWD_D_PUNT_BUFS; i++)
		(void)lc_ring_enqueue(w->freeq, &w->bufs[i]);
	if (d->conf.workers > 0) {
		if ((w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
			goto fail;
		if ((w->qs = fwd_qsbr_register(d->qsbr)) == NULL)
			goto fail;
	}
	memset(&dc, 0, sizeof(dc));
	dc.fib = d->fib;
	dc.adj = d->adj;
	dc.local = &d->local;
	dc.ports = w->ports;
	dc.nports = 0;
	dc.punt = worker_punt;
	dc.punt_arg = w;
	dc.qsbr = w->qs;
	if (fwd_dp_init(&w->dp, &dc) != 0)
		goto fail;
	return (w);
fail:
	fwd_worker_free(w);
	return (NULL);
}

void
fwd_worker_free(struct fwd_worker *w)
{
	if (w == NULL)
		return;
	fwd_worker_stop(w);
	if (w->qs != NULL)
		fwd_qsbr_unregister(w->qs);
	if (w->efd >= 0)
		close(w->efd);
	lc_ring_free(w->puntq);
	lc_ring_free(w->freeq);
	free(w->bufs);
	free(w);
}

/* Take the port set the control thread prepared (between bursts only). */
void
fwd_worker_apply(struct fwd_worker *w)
{
	unsigned gen = __atomic_load_n(&w->cfg_gen, __ATOMIC_ACQUIRE);
	unsigned n = 0;
	uint64_t ok = 0;

	for (unsigned i = 0; i < FWD_PORT_MAX; i++) {
		w->ports[i] = w->next_ports[i];
		if (w->ports[i] != NULL) {
			ok |= 1ull << i;
			n = i + 1;
		}
	}
	w->dp.conf.nports = n;
	w->dp.port_ok = ok;
	w->dp.conf.flags = w->d->dp_flags;
	w->cur_gen = gen;
	__atomic_store_n(&w->cfg_ack, gen, __ATOMIC_RELEASE);
}

unsigned
fwd_worker_poll(struct fwd_worker *w)
{
	unsigned n = 0;

	for (unsigned i = 0; i < w->dp.conf.nports; i++)
		if (w->ports[i] != NULL)
			n += fwd_dp_poll(&w->dp, w->ports[i]);
	/* with no port, still a quiescent point for the FIB's writer */
	if (w->qs != NULL && w->dp.conf.nports == 0)
		fwd_qsbr_quiescent(w->qs);
	w->polls++;
	return (n);
}

static uint64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

/* Sleep until a port has something, the control thread wakes us, or
 * idle_ms passes. Offline for the FIB's QSBR meanwhile. */
static void
worker_sleep(struct fwd_worker *w)
{
	struct pollfd pfd[FWD_PORT_MAX + 1];
	unsigned np = 0;
	uint64_t v;

	pfd[np].fd = w->efd;
	pfd[np++].events = POLLIN;
	for (unsigned i = 0; i < w->dp.conf.nports; i++) {
		int fd;

		if (w->ports[i] == NULL)
			continue;
		/* AF_PACKET or AF_XDP socket; memory ports have none */
		if ((fd = fwd_port_afp_fd(w->ports[i])) < 0 &&
		    (fd = fwd_port_xdp_fd(w->ports[i])) < 0)
			continue;
		pfd[np].fd = fd;
		pfd[np++].events = POLLIN;
	}
	fwd_qsbr_offline(w->qs);
	(void)poll(pfd, np, (int)w->d->conf.idle_ms);
	fwd_qsbr_online(w->qs);
	if (pfd[0].revents & POLLIN)
		(void)!read(w->efd, &v, sizeof(v));
	w->sleeps++;
}

static void *
worker_main(void *arg)
{
	struct fwd_worker *w = arg;
	uint64_t spin = (uint64_t)w->d->conf.spin_us, last = mono_us();
	unsigned empty = 0;

	fwd_qsbr_online(w->qs);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		unsigned n;

		if (__atomic_load_n(&w->cfg_gen, __ATOMIC_ACQUIRE) !=
		    w->cur_gen)
			fwd_worker_apply(w);
		n = fwd_worker_poll(w);
		if (w->punted) {
			w->punted = false;
			ev_async_send(w->d->loop, &w->d->punt_async);
		}
		if (n > 0) {
			empty = 0;
			continue;
		}
		/* idle: spin for spin_us (clock read every 64 empty
		 * rounds), then sleep in poll() */
		if ((++empty & 63) != 0)
			continue;
		{
			uint64_t now = mono_us();

			if (empty == 64)
				last = now;
			if (now - last < spin) {
				sched_yield();
				continue;
			}
		}
		worker_sleep(w);
		empty = 0;
	}
	fwd_qsbr_offline(w->qs);
	return (NULL);
}

int
fwd_worker_start(struct fwd_worker *w)
{
	int rv;

	if (w->d->conf.workers == 0 || w->started)
		return (0);
	if ((rv = pthread_create(&w->thr, NULL, worker_main, w)) != 0)
		return (-rv);
	w->started = true;
	return (0);
}

void
fwd_worker_stop(struct fwd_worker *w)
{
	uint64_t one = 1;

	if (!w->started)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	(void)!write(w->efd, &one, sizeof(one));
	pthread_join(w->thr, NULL);
	w->started = false;
}

int
fwd_workers_publish(struct fwd_d *d)
{
	unsigned gen = ++d->cfg_gen;
	uint64_t one = 1, t0;
	bool all;

	for (unsigned k = 0; k < d->nworkers; k++) {
		struct fwd_worker *w = d->w[k];

		for (unsigned i = 0; i < FWD_PORT_MAX; i++)
			w->next_ports[i] =
			    d->ifs[i].attached ? d->ifs[i].wport[k] : NULL;
		__atomic_store_n(&w->cfg_gen, gen, __ATOMIC_RELEASE);
		if (!w->started)
			fwd_worker_apply(w);
		else
			(void)!write(w->efd, &one, sizeof(one));
	}
	t0 = mono_us();
	do {
		all = true;
		for (unsigned k = 0; k < d->nworkers; k++)
			if (__atomic_load_n(
				&d->w[k]->cfg_ack, __ATOMIC_ACQUIRE) != gen)
				all = false;
		if (all)
			return (0);
		sched_yield();
	} while (mono_us() - t0 < 1000000);
	return (-ETIMEDOUT);
}
