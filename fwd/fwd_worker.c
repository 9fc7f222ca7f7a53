/* fwd/fwd_worker.c: tern-fwd's forwarding threads: poll the worker's own
 * ports with adaptive back-off, pinned to a CPU when asked, punt to the
 * control thread through a bounded ring, pick up port changes between
 * bursts. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_ring.h"
#include "fwd_d.h"

/* Idle back-off: pauses between two empty polls, doubled after each empty
 * poll up to this (about 3-6 us on current x86), reset by a packet. */
#define WORKER_PAUSE_MAX 128
#define WORKER_TX_HOLD	 2 /* full turns a port may hold frames back */
/* A real-time (SCHED_FIFO/RR) worker that has not slept for this long
 * yields the CPU once (checked every WORKER_YIELD_POLLS polls): sharing its
 * CPU with the control thread, it would otherwise starve it (no ARP, no
 * IPC). Not under SCHED_OTHER: the scheduler shares the CPU there, and a
 * yield would hand it to any other task for a whole slice. */
#define WORKER_YIELD_US	   1000
#define WORKER_YIELD_POLLS 256

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

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

/* Control thread: the settings worker id runs with (its snapshot). */
static void
worker_conf_of(struct fwd_d *d, unsigned id, struct fwd_worker_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->threaded = d->conf.workers > 0;
	c->cpu = id < d->conf.ncpus ? d->conf.cpus[id] : -1;
	c->spin_us = d->conf.spin_us;
	c->idle_ms = d->conf.idle_ms;
	c->busy_poll_us = d->conf.busy_poll_us;
	c->dp_flags = d->dp_flags;
	c->loop = d->loop;
	c->punt = &d->punt_async;
}

struct fwd_worker *
fwd_worker_new(struct fwd_d *d, unsigned id)
{
	struct fwd_worker *w;
	struct fwd_dp_conf dc;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return (NULL);
	w->id = id;
	worker_conf_of(d, id, &w->conf);
	w->next_conf = w->conf;
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
	dc.fib6 = d->fib6;
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

/*
 * Busy-poll options on the worker's new AF_XDP ports (a port keeps them: set
 * once). A kernel that refuses them is logged once per process and the port
 * works as without.
 */
static void
worker_busy_poll(struct fwd_worker *w)
{
	static int logged; /* atomic */

	for (unsigned i = 0; i < FWD_PORT_MAX; i++) {
		int rv;

		if (w->ports[i] == NULL)
			continue;
		rv = fwd_port_busy_poll(w->ports[i], w->conf.busy_poll_us,
		    FWD_BURST);
		if (rv < 0 && rv != -EOPNOTSUPP &&
		    !__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
			lc_log_warnx(
			    "%s: busy-poll socket options refused (%s): "
			    "polling without them",
			    w->ports[i]->name, strerror(-rv));
	}
}

/* Take the port set the control thread prepared (between bursts only). */
void
fwd_worker_apply(struct fwd_worker *w)
{
	unsigned gen = __atomic_load_n(&w->cfg_gen, __ATOMIC_ACQUIRE);
	unsigned n = 0;

	for (unsigned i = 0; i < FWD_PORT_MAX; i++) {
		w->ports[i] = w->next_ports[i];
		if (w->ports[i] != NULL)
			n = i + 1;
	}
	w->conf = w->next_conf;
	w->dp.conf.nports = n;
	w->dp.conf.flags = w->conf.dp_flags;
	if (w->conf.busy_poll_us > 0)
		worker_busy_poll(w);
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
	/* Ports that hold frames back to send more at once (AF_XDP with
	 * BPF_PROG_RUN) send them after a light turn, or after
	 * WORKER_TX_HOLD full ones: batches grow only under load. */
	if (n < FWD_BURST || ++w->tx_turns >= WORKER_TX_HOLD) {
		w->tx_turns = 0;
		for (unsigned i = 0; i < w->dp.conf.nports; i++)
			if (w->ports[i] != NULL && w->ports[i]->tx_held)
				fwd_port_poll_tx(w->ports[i]);
	}
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
		if ((fd = fwd_port_fd(w->ports[i])) < 0)
			continue;
		pfd[np].fd = fd;
		pfd[np++].events = POLLIN;
	}
	fwd_qsbr_offline(w->qs);
	(void)poll(pfd, np, (int)w->conf.idle_ms);
	fwd_qsbr_online(w->qs);
	if (pfd[0].revents & POLLIN)
		(void)!read(w->efd, &v, sizeof(v));
	w->sleeps++;
}

/*
 * Poll mode with adaptive back-off: poll back to back while packets come;
 * once a poll finds nothing, spin with pause instructions between polls,
 * twice as many after each empty poll (1, 2, 4 ... WORKER_PAUSE_MAX), no
 * system call; after spin_us without a packet, sleep in poll().
 */
static void *
worker_main(void *arg)
{
	struct fwd_worker *w = arg;
	uint64_t spin = (uint64_t)w->conf.spin_us, since = 0;
	uint64_t yielded = mono_us();
	unsigned pause = 0, empty = 0, polls = 0;
	int pol = sched_getscheduler(0);
	bool rt = pol == SCHED_FIFO || pol == SCHED_RR;

	fwd_qsbr_online(w->qs);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		unsigned n;

		if (rt && ++polls == WORKER_YIELD_POLLS) {
			uint64_t now = mono_us();

			polls = 0;
			if (now - yielded >= WORKER_YIELD_US) {
				(void)sched_yield();
				yielded = now;
			}
		}
		if (__atomic_load_n(&w->cfg_gen, __ATOMIC_ACQUIRE) !=
		    w->cur_gen)
			fwd_worker_apply(w);
		n = fwd_worker_poll(w);
		if (w->punted) {
			w->punted = false;
			ev_async_send(w->conf.loop, w->conf.punt);
		}
		if (n > 0) {
			pause = empty = 0;
			continue;
		}
		if (empty++ == 0) {
			since = mono_us();
			pause = 1;
			continue;
		}
		for (unsigned i = 0; i < pause; i++)
			cpu_relax();
		if (pause < WORKER_PAUSE_MAX)
			pause <<= 1;
		/* the clock (vDSO, ~20 ns) once the pauses are long enough
		 * to hide it: from 8 on, every empty poll */
		if (pause < 8)
			continue;
		if (mono_us() - since < spin)
			continue;
		worker_sleep(w);
		yielded = mono_us();
		pause = empty = 0;
	}
	fwd_qsbr_offline(w->qs);
	return (NULL);
}

int
fwd_worker_start(struct fwd_worker *w)
{
	pthread_attr_t at;
	int rv;

	if (!w->conf.threaded || w->started)
		return (0);
	if ((rv = pthread_attr_init(&at)) != 0)
		return (-rv);
	if (w->conf.cpu >= 0) {
		cpu_set_t cs;

		CPU_ZERO(&cs);
		CPU_SET(w->conf.cpu, &cs);
		rv = pthread_attr_setaffinity_np(&at, sizeof(cs), &cs);
	}
	if (rv == 0)
		rv = pthread_create(&w->thr, &at, worker_main, w);
	pthread_attr_destroy(&at);
	if (rv != 0)
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
			w->next_ports[i] = d->ifs[i].attached ?
			    d->ifs[i].wport[k] :
			    NULL;
		worker_conf_of(d, k, &w->next_conf);
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
			if (__atomic_load_n(&d->w[k]->cfg_ack,
				__ATOMIC_ACQUIRE) != gen)
				all = false;
		if (all)
			return (0);
		sched_yield();
	} while (mono_us() - t0 < 1000000);
	return (-ETIMEDOUT);
}

/* ---- CPU lists (--cpus) ---- */

/* A decimal CPU number at *s below CPU_SETSIZE; advances *s. -1: none. */
static long
cpu_num(const char **s)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return (-1);
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v >= CPU_SETSIZE)
			return (-2);
		(*s)++;
	}
	return (v);
}

int
fwd_cpus_parse(const char *s, uint16_t *cpus, unsigned max, unsigned *n,
    struct lc_err *err)
{
	uint16_t tmp[CPU_SETSIZE];
	const char *p = s;
	unsigned k = 0;

	if (s == NULL || *s == '\0')
		return (
		    lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "empty CPU list"));
	for (;;) {
		const char *at = p;
		long a = cpu_num(&p), b = a;

		if (a >= 0 && *p == '-') {
			p++;
			b = cpu_num(&p);
		}
		if (a == -2 || b == -2)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "CPU list '%s': CPU number at '%s' is %d or more",
			    s, at, CPU_SETSIZE));
		if (a < 0 || b < 0 || (*p != ',' && *p != '\0'))
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "CPU list '%s': expected N or N-M at '%s'", s, at));
		if (b < a)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "CPU list '%s': range %ld-%ld goes down", s, a, b));
		for (long c = a; c <= b; c++) {
			for (unsigned j = 0; j < k; j++)
				if (tmp[j] == c)
					return (lc_err_set(err, -EINVAL,
					    LC_ERR_NOINDEX,
					    "CPU list '%s': CPU %ld twice", s,
					    c));
			if (k == max || k == CPU_SETSIZE)
				return (lc_err_set(err, -E2BIG, LC_ERR_NOINDEX,
				    "CPU list '%s': more than %u CPUs", s,
				    max));
			tmp[k++] = (uint16_t)c;
		}
		if (*p == '\0')
			break;
		p++;
	}
	memcpy(cpus, tmp, k * sizeof(*cpus));
	*n = k;
	return (0);
}

int
fwd_cpus_check(const uint16_t *cpus, unsigned n, struct lc_err *err)
{
	cpu_set_t cs;

	CPU_ZERO(&cs);
	if (sched_getaffinity(0, sizeof(cs), &cs) != 0)
		return (lc_err_set(err, -errno, LC_ERR_NOINDEX,
		    "sched_getaffinity: %s", strerror(errno)));
	for (unsigned i = 0; i < n; i++)
		if (cpus[i] >= CPU_SETSIZE || !CPU_ISSET(cpus[i], &cs))
			return (lc_err_set(err, -EINVAL, (long)i,
			    "CPU %u is not in this process's allowed set "
			    "(%d CPUs allowed)",
			    cpus[i], CPU_COUNT(&cs)));
	return (0);
}
