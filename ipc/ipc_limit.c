/* ipc/ipc_limit.c: a server's limits on its peers: connections per socket and per uid, refusals that say why (on a reserve fd when out of fds), accept pauses instead of a busy loop, hello and frame timeouts, idle receive buffers given back. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc_int.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

void
ipc_limits_opts(struct ipc_opts *o)
{
	struct rlimit rl;
	uint32_t cap = IPC_CONN_MAX_DEFAULT;

	if (o->conn_max == 0) {
		/* Both sockets full still leave half the fds to the rest of the process. */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < cap)
			cap = rl.rlim_cur / 4 > 8 ?
			    (uint32_t)(rl.rlim_cur / 4) :
			    8;
		o->conn_max = cap;
	}
	if (o->conn_max_uid == 0)
		o->conn_max_uid = o->conn_max / 4 > 0 ? o->conn_max / 4 : 1;
	if (o->conn_max_uid > o->conn_max)
		o->conn_max_uid = o->conn_max;
	if (o->frame_max_ro == 0)
		o->frame_max_ro = IPC_FRAME_MAX_RO_DEFAULT;
	if (o->frame_max_ro < IPC_FRAME_MIN_MAX)
		o->frame_max_ro = IPC_FRAME_MIN_MAX;
	if (o->frame_max_ro > o->frame_max)
		o->frame_max_ro = o->frame_max;
	if (o->rx_budget == 0)
		o->rx_budget = IPC_RX_BUDGET_DEFAULT;
	if (o->rx_budget_ro == 0)
		o->rx_budget_ro = IPC_RX_BUDGET_RO_DEFAULT;
	/* One frame of the largest size must fit. */
	if (o->rx_budget < o->frame_max)
		o->rx_budget = o->frame_max;
	if (o->rx_budget_ro < o->frame_max_ro)
		o->rx_budget_ro = o->frame_max_ro;
	if (o->hello_timeout_ms == 0)
		o->hello_timeout_ms = IPC_HELLO_TIMEOUT_MS;
	if (o->frame_timeout_ms == 0)
		o->frame_timeout_ms = IPC_FRAME_TIMEOUT_MS;
}

/* A quarter of the shorter timeout, 10 ms to 1 s: timeouts are kept to 1.25x. */
static uint64_t
tick_ns(const struct ipc_server *s)
{
	uint64_t t = s->hello_to_ns < s->frame_to_ns ? s->hello_to_ns :
						       s->frame_to_ns;

	t /= 4;
	if (t < 10 * LC_NS_PER_MSEC)
		t = 10 * LC_NS_PER_MSEC;
	if (t > LC_NS_PER_SEC)
		t = LC_NS_PER_SEC;
	return (t);
}

static int
reserve_open(void)
{
	return (open("/dev/null", O_RDONLY | O_CLOEXEC));
}

/* ---- refusing a connection ------------------------------------------------ */

/*
 * Tells the peer on fd why it is refused (an UNAVAILABLE reply to id 0,
 * which fails its calls with the text: ipc_client.c), and closes fd.
 */
static void
shed(struct ipc_server *s, int fd, const char *fmt, ...)
{
	uint8_t buf[IPC_FRAME_HDR + IPC_REC_HDR + 192], junk[1024];
	char *text = (char *)buf + IPC_FRAME_HDR + IPC_REC_HDR;
	struct iovec iov;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(buf) - IPC_FRAME_HDR - IPC_REC_HDR, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf) - IPC_FRAME_HDR - IPC_REC_HDR)
		n = (int)(sizeof(buf) - IPC_FRAME_HDR - IPC_REC_HDR - 1);
	ipc_frame_hdr_write(buf, 1, IPC_REC_HDR + (uint32_t)n, s->generation);
	ipc_rec_hdr_write(buf + IPC_FRAME_HDR, 0, 0, IPC_K_REP, 0,
	    IPC_UNAVAILABLE, (uint32_t)n);
	iov.iov_base = buf;
	iov.iov_len = IPC_FRAME_HDR + IPC_REC_HDR + (size_t)n;
	/* A new socket has room: one non-blocking write, whatever it takes. */
	(void)ipc_transport_unix.writev(fd, &iov, 1);
	/* Take what it sent (its hello), so our close reads as EOF, not a reset. */
	(void)ipc_transport_unix.read(fd, junk, sizeof(junk));
	ipc_transport_unix.close(fd);
}

/* ---- connections per uid -------------------------------------------------- */

static int
uid_slot(const struct ipc_listener *l, uid_t uid)
{
	int i;

	for (i = 0; i < IPC_UID_SLOTS; i++)
		if (l->uids[i].n > 0 && l->uids[i].uid == uid)
			return (i);
	return (-1);
}

/* The slot now counting uid, or -1 when every slot counts another uid. */
static int
uid_take(struct ipc_listener *l, uid_t uid)
{
	int i = uid_slot(l, uid);

	if (i < 0)
		for (i = 0; i < IPC_UID_SLOTS && l->uids[i].n > 0; i++)
			;
	if (i >= IPC_UID_SLOTS)
		return (-1);
	l->uids[i].uid = uid;
	l->uids[i].n++;
	return (i);
}

void
ipc_limits_peer_gone(struct ipc_peer *p)
{
	struct ipc_listener *l = p->lst;

	if (l == NULL)
		return;
	l->n_conns--;
	if (p->uid_slot >= 0 && l->uids[p->uid_slot].n > 0)
		l->uids[p->uid_slot].n--;
	p->lst = NULL;
}

/* ---- accepting ------------------------------------------------------------ */

static void
burst_end(struct ipc_listener *l)
{
	lc_log(LC_LOG_NOTICE, "ipc: %s: accepting again after %llu errors",
	    l->path, (unsigned long long)l->burst_errors);
	l->burst_errors = 0;
}

/*
 * Out of fds: the reserve fd is closed so that one connection can be
 * accepted, told why and closed, and opened again; up to a turn's worth,
 * which empties the backlog a flood left (otherwise the listener stays
 * readable and every turn fails again). The number refused.
 */
static unsigned
shed_on_reserve(struct ipc_listener *l)
{
	struct ipc_server *s = l->srv;
	unsigned n;
	int fd;

	for (n = 0; n < IPC_ACCEPT_TURN && s->reserve_fd >= 0; n++) {
		(void)close(s->reserve_fd);
		fd = ipc_transport_unix.accept(l->fd);
		if (fd >= 0) {
			shed(s, fd, "server out of file descriptors");
			s->st.shed_no_fd++;
		}
		s->reserve_fd = reserve_open();
		if (fd < 0)
			break;
	}
	return (n);
}

/*
 * accept() failed with err (EMFILE, ENFILE, ENOBUFS, ENOMEM...): retrying
 * at once would spin, the listener stays readable. It stops for
 * IPC_ACCEPT_PAUSE_MS; logged at the first error of a burst and when it
 * ends, counted every time.
 */
static void
accept_failed(struct ipc_listener *l, int err)
{
	struct ipc_server *s = l->srv;
	unsigned n = 0;

	s->st.accept_errors++;
	if (err == EMFILE || err == ENFILE)
		n = shed_on_reserve(l);
	if (l->burst_errors++ == 0)
		lc_log(LC_LOG_WARNING,
		    "ipc: %s: accept: %s: not accepting for %d ms at a time "
		    "until it works again%s",
		    l->path, strerror(err), IPC_ACCEPT_PAUSE_MS,
		    n > 0 ? " (connections refused on the reserve fd)" : "");
	ev_io_stop(s->loop, &l->w);
	ev_timer_stop(s->loop, &l->pause);
	ev_timer_set(&l->pause, IPC_ACCEPT_PAUSE_MS / 1000.0, 0.0);
	ev_timer_start(s->loop, &l->pause);
	s->st.accept_pauses++;
}

static void
pause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ipc_listener *l = w->data;
	struct ipc_server *s = l->srv;

	(void)revents;
	if (s->reserve_fd < 0)
		s->reserve_fd = reserve_open();
	ev_io_start(loop, &l->w);
}

/* Takes fd as a peer, or refuses it over a cap. false: out of memory. */
static bool
accept_one(struct ipc_listener *l, int fd)
{
	struct ipc_server *s = l->srv;
	struct ipc_peer *p;
	struct ipc_cred cred;
	bool has_cred;
	int i;

	/* who connected, while it is certainly that process's socket */
	has_cred = ipc_transport_unix.peer_cred(fd, &cred) == 0;
	if (l->n_conns >= l->conn_max) {
		shed(s, fd, "too many connections on %s (%u)", l->path,
		    l->conn_max);
		s->st.shed_conn_max++;
		return (true);
	}
	if (has_cred && (i = uid_slot(l, cred.uid)) >= 0 &&
	    l->uids[i].n >= l->conn_max_uid) {
		shed(s, fd, "too many connections from uid %u on %s (%u)",
		    (unsigned)cred.uid, l->path, l->conn_max_uid);
		s->st.shed_uid_max++;
		return (true);
	}
	if ((p = ipc_server_peer_add(l, fd, has_cred ? &cred : NULL)) == NULL) {
		shed(s, fd, "server out of memory");
		return (false);
	}
	l->n_conns++;
	p->uid_slot = has_cred ? uid_take(l, cred.uid) : -1;
	return (true);
}

void
ipc_limits_accept(struct ipc_listener *l)
{
	int fd, n;

	for (n = 0; n < IPC_ACCEPT_TURN; n++) {
		fd = ipc_transport_unix.accept(l->fd);
		if (fd == -EINTR || fd == -ECONNABORTED)
			continue;
		if (fd == -EAGAIN || fd == -EWOULDBLOCK)
			return;
		if (fd < 0) {
			accept_failed(l, -fd);
			return;
		}
		if (l->burst_errors > 0)
			burst_end(l);
		if (!accept_one(l, fd)) {
			accept_failed(l, ENOMEM);
			return;
		}
	}
}

/* ---- timeouts and idle buffers -------------------------------------------- */

static void
expire(struct ipc_peer *p, const char *fmt, uint32_t ms)
{
	char m[128];
	int n = snprintf(m, sizeof(m), fmt, (unsigned)ms);

	(void)ipc_conn_put(&p->c, 0, 0, IPC_K_REP, 0, IPC_TIMEOUT, NULL, m,
	    n > 0 ? (size_t)n : 0);
	ipc_server_peer_drop(p);
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ipc_server *s = w->data;
	struct ipc_peer *p, *next;
	uint64_t now = lc_now_ns(), iv = tick_ns(s);
	bool late;

	(void)revents;
	/*
	 * Late by more than a tick: this loop was busy or stopped, not the
	 * peers, whose bytes may wait unread. They get another tick (counted
	 * from now: libev would fire a late repeating timer again at once).
	 */
	late = now > s->tick_due + iv;
	s->tick_due = now + iv;
	ev_timer_again(loop, w);
	for (p = s->peers; p != NULL; p = next) {
		next = p->next;
		if (p->closed || p->c.down)
			continue;
		if (!late && !p->hello && !p->bad_version &&
		    now - p->accepted_ns >= s->hello_to_ns) {
			s->st.hello_timeouts++;
			expire(p, "no hello within %u ms: connection closed",
			    s->o.hello_timeout_ms);
			continue;
		}
		if (!late && p->c.rx_since != 0 &&
		    now - p->c.rx_since >= s->frame_to_ns) {
			s->st.frame_timeouts++;
			expire(p,
			    "frame not complete within %u ms: connection closed",
			    s->o.frame_timeout_ms);
			continue;
		}
		(void)ipc_conn_rx_release_idle(&p->c, now, IPC_RX_IDLE_NS);
	}
}

bool
ipc_limits_watch(const struct ipc_peer *p)
{
	return ((!p->hello && !p->bad_version) || p->c.rx_since != 0 ||
	    p->c.rx.cap > IPC_RX_KEEP);
}

void
ipc_limits_turn(struct ipc_server *s, bool need)
{
	if (need && !ev_is_active(&s->tick)) {
		s->tick_due = lc_now_ns() + tick_ns(s);
		ev_timer_start(s->loop, &s->tick);
	} else if (!need && ev_is_active(&s->tick))
		ev_timer_stop(s->loop, &s->tick);
}

/* ---- counters ------------------------------------------------------------- */

#define LIMIT_COUNTERS 8
#define STATUS_MAX     64

void
ipc_limits_status(const struct ipc_server *s, struct Lifecycle__Status *st)
{
	static const char *const names[LIMIT_COUNTERS] = {"shed_conn_max",
	    "shed_uid_max", "shed_no_fd", "accept_errors", "accept_pauses",
	    "hello_timeouts", "frame_timeouts", "rx_budget_refused"};
	/* the reply is packed before the next STATUS on this thread */
	static __thread Lifecycle__Counter c[LIMIT_COUNTERS];
	static __thread Lifecycle__Counter *all[STATUS_MAX];
	const uint64_t v[LIMIT_COUNTERS] = {s->st.shed_conn_max,
	    s->st.shed_uid_max, s->st.shed_no_fd, s->st.accept_errors,
	    s->st.accept_pauses, s->st.hello_timeouts, s->st.frame_timeouts,
	    s->st.rx_budget_refused};
	size_t i, n = st->n_counters;

	if (n + LIMIT_COUNTERS > STATUS_MAX)
		return;
	for (i = 0; i < n; i++)
		all[i] = st->counters[i];
	for (i = 0; i < LIMIT_COUNTERS; i++) {
		lifecycle__counter__init(&c[i]);
		c[i].name = (char *)names[i];
		c[i].value = v[i];
		all[n + i] = &c[i];
	}
	st->counters = all;
	st->n_counters = n + LIMIT_COUNTERS;
}

/* ---- set-up --------------------------------------------------------------- */

void
ipc_limits_init(struct ipc_server *s)
{
	double iv;
	int i;

	s->hello_to_ns = (uint64_t)s->o.hello_timeout_ms * LC_NS_PER_MSEC;
	s->frame_to_ns = (uint64_t)s->o.frame_timeout_ms * LC_NS_PER_MSEC;
	iv = (double)tick_ns(s) / 1e9;
	ev_timer_init(&s->tick, tick_cb, iv, iv);
	s->tick.data = s;
	s->reserve_fd = reserve_open();
	for (i = 0; i < 2; i++) {
		struct ipc_listener *l = &s->l[i];

		l->srv = s;
		l->ro = i == 1;
		l->conn_max = s->o.conn_max;
		l->conn_max_uid = s->o.conn_max_uid;
		l->frame_max = l->ro ? s->o.frame_max_ro : s->o.frame_max;
		l->budget.max = l->ro ? s->o.rx_budget_ro : s->o.rx_budget;
		ev_timer_init(&l->pause, pause_cb, IPC_ACCEPT_PAUSE_MS / 1000.0,
		    0.0);
		l->pause.data = l;
	}
}

void
ipc_limits_fini(struct ipc_server *s)
{
	ev_timer_stop(s->loop, &s->tick);
	ev_timer_stop(s->loop, &s->l[0].pause);
	ev_timer_stop(s->loop, &s->l[1].pause);
	if (s->reserve_fd >= 0)
		(void)close(s->reserve_fd);
	s->reserve_fd = -1;
}
