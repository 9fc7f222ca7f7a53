/* tests/unit/ipc/test_limits.c: a server's limits on its peers (issue 24, points 5 and 6): connections per socket and per uid refused with a reason while the other socket and other users are served; accept errors and fd exhaustion without a busy loop (accept4 wrapped and counted, CPU measured); the read-only frame_max; the receive budget of a socket; frame and hello timeouts, also when the server's loop was the slow one; idle receive buffers given back. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

/* ---- accept4, counted, and failing on demand ---- */

int __real_accept4(int, struct sockaddr *, socklen_t *, int);
int __wrap_accept4(int, struct sockaddr *, socklen_t *, int);

static unsigned accept_calls;
static int accept_inject; /* errno to fail with; 0: the real call */

int
__wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	accept_calls++;
	if (accept_inject != 0) {
		errno = accept_inject;
		return (-1);
	}
	return (__real_accept4(fd, sa, len, flags));
}

/* ---- fixture ---- */

static char base[128], rundir[160];
static struct ev_loop *loop;
static struct ipc_server *srv;
static pid_t children[4];
static struct rlimit nofile0;
static pid_t server_pid;

static int
setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/tern-ipc-limits.%d.%ld",
	    (int)getpid(), (long)lc_time_mono_ns());
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	assert_int_equal(mkdir(base, 0755), 0);
	loop = lc_loop_new();
	accept_calls = 0;
	accept_inject = 0;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &nofile0), 0);
	return (loop == NULL);
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	accept_inject = 0;
	(void)setrlimit(RLIMIT_NOFILE, &nofile0);
	for (unsigned i = 0; i < 4; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			(void)waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
	}
	ipc_server_free(srv);
	srv = NULL;
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
	return (0);
}

static struct ipc_opts
sopts(void)
{
	struct ipc_opts o;

	memset(&o, 0, sizeof(o));
	o.rundir = rundir;
	o.component = "rib";
	return (o);
}

static void
server(const struct ipc_opts *o)
{
	srv = ipc_server_new(loop, &ipc_svc_rib, o);
	assert_non_null(srv);
	server_pid = getpid();
	/* other users may reach it (the tests as root) */
	assert_int_equal(chmod(rundir, 0755), 0);
	assert_int_equal(chmod(ipc_server_path(srv, false), 0666), 0);
	assert_int_equal(chmod(ipc_server_path(srv, true), 0666), 0);
}

static void
spin(double s)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(s * 1e9);

	while (lc_time_mono_ns() < end) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(500);
	}
}

static void
stop_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(l, EVBREAK_ONE);
}

/* Runs the loop as a daemon does (blocking in epoll) for s seconds. */
static void
run_for(double s)
{
	ev_timer t;

	ev_timer_init(&t, stop_cb, s, 0.0);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_timer_stop(loop, &t);
}

/* Runs the loop until child pid exits (at most 10 s): its exit status. */
static int
run_until_exit(pid_t pid)
{
	uint64_t end = lc_time_mono_ns() + 10000000000ull;
	pid_t w;
	int st;

	while (
	    (w = waitpid(pid, &st, WNOHANG)) == 0 && lc_time_mono_ns() < end) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(w, pid);
	for (unsigned i = 0; i < 4; i++)
		if (children[i] == pid)
			children[i] = 0;
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static void
child_add(pid_t pid)
{
	assert_true(pid > 0);
	for (unsigned i = 0; i < 4; i++)
		if (children[i] == 0) {
			children[i] = pid;
			return;
		}
	fail();
}

/* ---- raw connections and hand-made frames ---- */

static int
raw_connect(bool ro)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
	    ipc_server_path(srv, ro));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return (fd);
}

/* A frame of one record (service 0) with plen payload bytes into *out (malloc'ed). */
static size_t
frame1(uint8_t **out, uint32_t id, uint16_t method, const void *pl,
    uint32_t plen)
{
	size_t len = IPC_FRAME_HDR + IPC_REC_HDR + plen;
	uint8_t *b = calloc(1, len);

	assert_non_null(b);
	ipc_frame_hdr_write(b, 1, IPC_REC_HDR + plen, 7);
	ipc_rec_hdr_write(b + IPC_FRAME_HDR, id, 0, IPC_K_REQ, method, IPC_OK,
	    plen);
	if (pl != NULL)
		memcpy(b + IPC_FRAME_HDR + IPC_REC_HDR, pl, plen);
	*out = b;
	return (len);
}

static void
send_all(int fd, const uint8_t *p, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EAGAIN) {
			ev_run(loop, EVRUN_NOWAIT);
			continue;
		}
		assert_true(n > 0);
		done += (size_t)n;
	}
}

static void
send_hello_v(int fd, uint32_t version)
{
	Lifecycle__Hello h = LIFECYCLE__HELLO__INIT;
	uint8_t pl[256], *f;
	size_t plen, len;

	h.component = (char *)"raw";
	h.protocol_version = version;
	h.max_frame = 1u << 20;
	plen = lifecycle__hello__pack(&h, pl);
	len = frame1(&f, 1, LIFECYCLE__METHOD__HELLO, pl, (uint32_t)plen);
	send_all(fd, f, len);
	free(f);
}

static void
send_hello(int fd)
{
	send_hello_v(fd, IPC_PROTOCOL_VERSION);
}

/* What came back on fd (non-blocking) while the loop ran: first record's status and text; *eof when the server hung up. */
struct got {
	unsigned recs;
	int status; /* of the first record with id 0, else the first */
	uint32_t id;
	char text[256];
	bool eof;
	uint32_t max_frame; /* from a hello reply */
};

static void
got_rec(const struct ipc_rec *r, void *arg)
{
	struct got *g = arg;

	if (g->recs++ == 0 || (r->id == 0 && g->id != 0)) {
		size_t n = r->len < sizeof(g->text) - 1 ? r->len :
							  sizeof(g->text) - 1;

		g->status = r->status;
		g->id = r->id;
		g->text[0] = '\0';
		if (r->status != IPC_OK) {
			memcpy(g->text, r->payload, n);
			g->text[n] = '\0';
		}
	}
	if (r->status == IPC_OK && r->method == LIFECYCLE__METHOD__HELLO &&
	    r->service == 0) {
		Lifecycle__Hello *h = lifecycle__hello__unpack(NULL, r->len,
		    r->payload);

		if (h != NULL) {
			g->max_frame = h->max_frame;
			lifecycle__hello__free_unpacked(h, NULL);
		}
	}
}

static struct got
collect(int fd, double s)
{
	static uint8_t in[1 << 16];
	struct got g;
	size_t total = 0;
	ssize_t n;
	uint64_t end = lc_time_mono_ns() + (uint64_t)(s * 1e9);

	memset(&g, 0, sizeof(g));
	g.status = -1;
	while (lc_time_mono_ns() < end && !g.eof) {
		ev_run(loop, EVRUN_NOWAIT);
		while ((n = read(fd, in + total, sizeof(in) - total)) > 0)
			total += (size_t)n;
		if (n == 0)
			g.eof = true;
		usleep(500);
	}
	(void)ipc_frame_parse_all(in, total, 1 << 20, got_rec, &g);
	return (g);
}

/*
 * STATUS through a real client: the status, and the text in msg. On the
 * server's loop in this process, on a loop of its own in a child.
 */
static int
status_call(bool ro, char *msg, size_t msglen)
{
	struct ev_loop *l = srv != NULL && getpid() == server_pid ?
	    loop :
	    lc_loop_new();
	struct ipc_opts o = {.rundir = rundir, .component = "probe"};
	struct ipc_client *c = ipc_client_new(l, &ipc_svc_rib, &o, ro);
	struct lc_arena *a = lc_arena_new(0);
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	st = ipc_call_wait(c, IPC_LC(LIFECYCLE__METHOD__STATUS), NULL, 3000, a,
	    &rep, &err);
	if (msg != NULL)
		snprintf(msg, msglen, "%s", err.msg);
	ipc_client_free(c);
	lc_arena_free(a);
	if (l != loop)
		lc_loop_free(l);
	return (st);
}

/* In a child: STATUS must come back with status st and a text holding want. */
static pid_t
status_child(bool ro, int st, const char *want, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		char m[256];
		struct rlimit rl;

		/* not the parent's lowered limit */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (uid != 0 &&
		    (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
			setresuid(uid, uid, uid) != 0))
			_exit(10);
		if (status_call(ro, m, sizeof(m)) != st)
			_exit(11);
		if (want != NULL && strstr(m, want) == NULL)
			_exit(12);
		_exit(0);
	}
	child_add(pid);
	return (pid);
}

/* ---- 5: connections per socket and per uid ---- */

/*
 * conn_max 8, conn_max_uid 4: the fifth connection of this uid is refused
 * with the reason; the read-only socket (its own counts) still serves it;
 * another uid gets the rest of the socket; the ninth connection is over
 * the socket's cap; when ours close, we get in again.
 */
static void
test_conn_caps(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	struct got g;
	int fds[4], fd, i;
	char m[256];

	(void)state;
	o.conn_max = 8;
	o.conn_max_uid = 4;
	server(&o);
	for (i = 0; i < 4; i++) {
		fds[i] = raw_connect(false);
		send_hello(fds[i]);
		g = collect(fds[i], 0.05);
		assert_int_equal(g.status, IPC_OK);
	}
	/* the fifth: told why, then closed */
	fd = raw_connect(false);
	send_hello(fd);
	g = collect(fd, 0.5);
	assert_true(g.eof);
	assert_int_equal(g.id, 0);
	assert_int_equal(g.status, IPC_UNAVAILABLE);
	assert_non_null(strstr(g.text, "too many connections from uid"));
	close(fd);
	/* a real client sees the reason at once, not a timeout */
	assert_int_equal(status_call(false, m, sizeof(m)), IPC_UNAVAILABLE);
	assert_non_null(strstr(m, "too many connections from uid"));
	ipc_server_stats(srv, &st);
	assert_int_equal(st.shed_uid_max, 2);
	/* the read-only socket has its own counts */
	assert_int_equal(status_call(true, NULL, 0), IPC_OK);

	if (geteuid() == 0) {
		pid_t pid;

		/* another uid fills the other four places... */
		pid = fork();
		if (pid == 0) {
			struct ev_loop *l;
			struct ipc_client *c[4];
			struct lc_arena *a = lc_arena_new(0);
			struct ipc_opts co = {.rundir = rundir,
			    .component = "other"};
			ProtobufCMessage *rep;
			struct lc_err err;
			char why[256];

			if (setgroups(0, NULL) != 0 ||
			    setresgid(65534, 65534, 65534) != 0 ||
			    setresuid(65534, 65534, 65534) != 0)
				_exit(10);
			l = lc_loop_new();
			for (i = 0; i < 4; i++) {
				c[i] = ipc_client_new(l, &ipc_svc_rib, &co,
				    false);
				if (ipc_call_wait(c[i],
					IPC_LC(LIFECYCLE__METHOD__STATUS), NULL,
					3000, a, &rep, &err) != IPC_OK)
					_exit(20 + i);
			}
			/* ... and the next one is over the socket's cap */
			if (status_call(false, why, sizeof(why)) !=
				IPC_UNAVAILABLE ||
			    strstr(why, "too many connections on") == NULL)
				_exit(30);
			_exit(0);
		}
		child_add(pid);
		assert_int_equal(run_until_exit(pid), 0);
		ipc_server_stats(srv, &st);
		assert_int_equal(st.shed_conn_max, 1);
	}
	/* ours go: the uid gets in again */
	for (i = 0; i < 4; i++)
		close(fds[i]);
	spin(0.05);
	assert_int_equal(status_call(false, NULL, 0), IPC_OK);
	spin(0.05);
	assert_int_equal(srv->l[0].n_conns, 0);
	assert_int_equal(srv->l[1].n_conns, 0);
}

/* ---- 5: accept errors never spin ---- */

/*
 * accept4 fails (ENOBUFS) with a connection waiting: the listener stays
 * readable, so before issue 24 every loop turn called accept4 again
 * (mgmt: ~49k calls in 3 s). Now it stops for IPC_ACCEPT_PAUSE_MS each
 * time, and the connection is taken when accept works again.
 */
static void
test_accept_pause(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	struct got g;
	int fd;

	(void)state;
	server(&o);
	accept_inject = ENOBUFS;
	fd = raw_connect(false);
	send_hello(fd);
	accept_calls = 0;
	run_for(0.5);
	/* 0.5 s / 100 ms: about 5 tries */
	assert_true(accept_calls >= 3);
	assert_true(accept_calls <= 8);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.accept_errors, accept_calls);
	assert_int_equal(st.accept_pauses, accept_calls);
	assert_int_equal(st.connects, 0);
	accept_inject = 0;
	g = collect(fd, 0.3);
	assert_int_equal(g.status, IPC_OK);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.connects, 1);
	close(fd);
}

/* The fd limit that leaves `n` fds free to this process. */
static rlim_t
fd_limit_leaving(int n)
{
	int fd;

	for (fd = 0; n > 0; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			n--;
	return ((rlim_t)fd);
}

static void
cpu_now(struct timeval *tv)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	timeradd(&ru.ru_utime, &ru.ru_stime, tv);
}

/*
 * Out of fds for real (RLIMIT_NOFILE just above what is open, caps above
 * it): a child holds 150 connections. The server takes what it can, the
 * rest is refused on the reserve fd with a reason instead of waiting in
 * the backlog; then it sleeps (CPU and accept4 calls over 1 s), a client
 * hears "out of file descriptors" at once, and when the flood goes the
 * server is back.
 */
static void
test_fd_exhaustion(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	struct timeval t0, t1, dt;
	struct rlimit rl;
	int pfd[2], i;
	pid_t flood;
	char c;

	(void)state;
	o.conn_max = 1000;
	o.conn_max_uid = 1000;
	o.hello_timeout_ms = 60000;
	server(&o);
	assert_int_equal(pipe(pfd), 0);
	flood = fork();
	if (flood == 0) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		struct timeval to = {.tv_sec = 2};

		close(pfd[0]);
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 4096) {
			rl.rlim_cur = 4096;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
		    ipc_server_path(srv, false));
		for (i = 0; i < 150; i++) {
			int fd = socket(AF_UNIX, SOCK_STREAM, 0);

			(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &to,
			    sizeof(to));
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) !=
			    0)
				_exit(20);
		}
		(void)write(pfd[1], "x", 1);
		pause();
		_exit(0);
	}
	child_add(flood);
	close(pfd[1]);
	rl = nofile0;
	rl.rlim_cur = fd_limit_leaving(12);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	/* the flood, while the loop runs */
	for (i = 0; i < 5000; i++) {
		struct timeval z = {0};
		fd_set rs;

		FD_ZERO(&rs);
		FD_SET(pfd[0], &rs);
		if (select(pfd[0] + 1, &rs, NULL, NULL, &z) > 0)
			break;
		ev_run(loop, EVRUN_NOWAIT);
		usleep(1000);
	}
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	/* what is left in the backlog */
	spin(0.5);
	ipc_server_stats(srv, &st);
	assert_true(st.connects < 20);
	assert_true(st.shed_no_fd > 0);
	assert_true(st.accept_pauses > 0);
	assert_int_equal(st.connects + st.shed_no_fd, 150);

	/* held: it sleeps */
	accept_calls = 0;
	cpu_now(&t0);
	run_for(1.0);
	cpu_now(&t1);
	timersub(&t1, &t0, &dt);
	print_message("flood held 1 s: %ld.%06ld s CPU, %u accept4 calls\n",
	    (long)dt.tv_sec, (long)dt.tv_usec, accept_calls);
	assert_true(dt.tv_sec == 0 && dt.tv_usec < 100000);
	assert_true(accept_calls < 10);

	/* a client in the meantime: refused with the reason, not left waiting */
	assert_int_equal(run_until_exit(status_child(false, IPC_UNAVAILABLE,
			     "out of file descriptors", 0)),
	    0);

	/* the flood ends: served again */
	kill(flood, SIGKILL);
	assert_int_equal(run_until_exit(flood), 128 + SIGKILL);
	spin(0.2);
	assert_int_equal(run_until_exit(status_child(false, IPC_OK, NULL, 0)),
	    0);
	assert_int_equal(run_until_exit(status_child(true, IPC_OK, NULL, 0)),
	    0);
}

/* ---- 6: what a peer can make the server hold ---- */

/* The read-only socket's frame_max is small, and hello says so. */
static void
test_ro_frame_max(void **state)
{
	struct ipc_opts o = sopts();
	uint8_t *f;
	size_t len;
	struct got g;
	int fd;

	(void)state;
	o.frame_max = 1u << 20;
	o.frame_max_ro = 8192;
	server(&o);
	fd = raw_connect(true);
	send_hello(fd);
	g = collect(fd, 0.05);
	assert_int_equal(g.status, IPC_OK);
	assert_int_equal(g.max_frame, 8192);
	len = frame1(&f, 2, LIFECYCLE__METHOD__SINK, NULL, 10000);
	send_all(fd, f, len);
	g = collect(fd, 0.05);
	assert_int_equal(g.id, 0);
	assert_int_equal(g.status, IPC_TOO_BIG);
	close(fd);
	/* the admin socket takes it */
	fd = raw_connect(false);
	send_hello(fd);
	g = collect(fd, 0.05);
	assert_int_equal(g.max_frame, 1u << 20);
	send_all(fd, f, len);
	g = collect(fd, 0.05);
	assert_int_equal(g.id, 2);
	assert_int_equal(g.status, IPC_OK);
	close(fd);
	free(f);
}

/*
 * rx_budget 1 MiB: one 600 KiB frame half sent is charged; a second one
 * on another connection would pass the budget and is refused (NO_SPACE)
 * and skipped; when the first completes, the budget is free again.
 */
static void
test_rx_budget(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	uint8_t *f;
	size_t len, half;
	struct got g;
	int a, b;

	(void)state;
	o.frame_max = 1u << 20;
	o.rx_budget = 1u << 20;
	server(&o);
	len = frame1(&f, 3, LIFECYCLE__METHOD__SINK, NULL, 600u << 10);
	half = len / 2;
	a = raw_connect(false);
	b = raw_connect(false);
	send_hello(a);
	send_hello(b);
	send_all(a, f, half);
	(void)collect(a, 0.05);
	assert_int_equal(srv->l[0].budget.used, len);
	send_all(b, f, half);
	g = collect(b, 0.05);
	assert_int_equal(g.id, 0);
	assert_int_equal(g.status, IPC_NO_SPACE);
	assert_non_null(strstr(g.text, "receive budget"));
	assert_false(g.eof);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.rx_budget_refused, 1);
	assert_int_equal(srv->l[0].budget.used, len);
	/* the refused frame is skipped as it comes; the connection stays */
	send_all(b, f + half, len - half);
	/* the first one completes */
	send_all(a, f + half, len - half);
	g = collect(a, 0.05);
	assert_int_equal(g.id, 3);
	assert_int_equal(g.status, IPC_OK);
	assert_int_equal(srv->l[0].budget.used, 0);
	/* now b's frames fit */
	send_all(b, f, len);
	g = collect(b, 0.1);
	assert_int_equal(g.id, 3);
	assert_int_equal(g.status, IPC_OK);
	close(a);
	close(b);
	free(f);
}

/*
 * frame_timeout 200 ms: a frame that stalls half way is refused (TIMEOUT)
 * and the connection closed, its budget freed; a frame sent slowly that
 * completes in time is served; a frame whose rest arrived while the
 * server's loop was blocked is not timed out.
 */
static void
test_frame_timeout(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	uint8_t *f;
	size_t len, q, i;
	struct got g;
	int fd;

	(void)state;
	o.frame_max = 1u << 20;
	o.frame_timeout_ms = 200;
	server(&o);
	len = frame1(&f, 4, LIFECYCLE__METHOD__SINK, NULL, 100u << 10);

	/* stalls: closed within the timeout and a tick */
	fd = raw_connect(false);
	send_hello(fd);
	send_all(fd, f, len - 1);
	g = collect(fd, 0.15);
	assert_false(g.eof);
	g = collect(fd, 0.5);
	assert_true(g.eof);
	assert_int_equal(g.id, 0);
	assert_int_equal(g.status, IPC_TIMEOUT);
	assert_non_null(strstr(g.text, "frame not complete within 200 ms"));
	close(fd);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.frame_timeouts, 1);
	assert_int_equal(srv->l[0].budget.used, 0);
	assert_null(srv->peers);

	/* slow, twice, each in time: served, not closed */
	fd = raw_connect(false);
	send_hello(fd);
	(void)collect(fd, 0.02);
	q = len / 4;
	for (int k = 0; k < 2; k++) {
		for (i = 0; i < 4; i++) {
			send_all(fd, f + i * q, i < 3 ? q : len - 3 * q);
			if (i < 3)
				spin(0.04);
		}
		g = collect(fd, 0.05);
		assert_int_equal(g.id, 4);
		assert_int_equal(g.status, IPC_OK);
		assert_false(g.eof);
	}

	/*
	 * The server is the slow one: half read, then its loop is blocked for
	 * 3 timeouts. The tick that comes late does not judge the peer, which
	 * sends the rest at once.
	 */
	send_all(fd, f, len / 2);
	spin(0.02);
	assert_true(srv->peers->c.rx_since != 0);
	usleep(600000);
	ev_run(loop, EVRUN_NOWAIT);
	assert_non_null(srv->peers);
	assert_false(srv->peers->c.down);
	send_all(fd, f + len / 2, len - len / 2);
	g = collect(fd, 0.1);
	assert_int_equal(g.id, 4);
	assert_int_equal(g.status, IPC_OK);
	assert_false(g.eof);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.frame_timeouts, 1);
	close(fd);
	free(f);
}

/*
 * hello_timeout 200 ms: a connection that says nothing is closed; one that
 * said hello stays, also one whose hello had another version (answered
 * VERSION, as are its calls).
 */
static void
test_hello_timeout(void **state)
{
	struct ipc_opts o = sopts();
	struct ipc_stats st;
	struct got g;
	int mute, ok, other;

	(void)state;
	o.hello_timeout_ms = 200;
	server(&o);
	mute = raw_connect(true);
	ok = raw_connect(true);
	other = raw_connect(true);
	send_hello(ok);
	send_hello_v(other, IPC_PROTOCOL_VERSION + 1);
	g = collect(mute, 0.6);
	assert_true(g.eof);
	assert_int_equal(g.status, IPC_TIMEOUT);
	assert_non_null(strstr(g.text, "no hello within 200 ms"));
	g = collect(ok, 0.05);
	assert_int_equal(g.status, IPC_OK);
	assert_false(g.eof);
	g = collect(other, 0.05);
	assert_int_equal(g.status, IPC_VERSION);
	assert_false(g.eof);
	ipc_server_stats(srv, &st);
	assert_int_equal(st.hello_timeouts, 1);
	close(mute);
	close(ok);
	close(other);
}

/*
 * A complete 600 KiB frame leaves a buffer that big behind; an idle peer
 * gives it back (IPC_RX_IDLE_NS), and then nothing keeps the tick running.
 */
static void
test_idle_release(void **state)
{
	struct ipc_opts o = sopts();
	uint8_t *f;
	size_t len;
	struct got g;
	int fd;

	(void)state;
	o.frame_max = 1u << 20;
	server(&o);
	len = frame1(&f, 5, LIFECYCLE__METHOD__SINK, NULL, 600u << 10);
	fd = raw_connect(false);
	send_hello(fd);
	send_all(fd, f, len);
	g = collect(fd, 0.05);
	assert_int_equal(g.status, IPC_OK);
	assert_true(srv->peers->c.rx.cap > IPC_RX_KEEP);
	assert_true(ev_is_active(&srv->tick));
	run_for(2.5);
	assert_int_equal(srv->peers->c.rx.cap, 0);
	assert_false(ev_is_active(&srv->tick));
	/* and it still serves */
	send_all(fd, f, len);
	g = collect(fd, 0.05);
	assert_int_equal(g.id, 5);
	assert_int_equal(g.status, IPC_OK);
	close(fd);
	free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_conn_caps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_accept_pause, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fd_exhaustion, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_ro_frame_max, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_budget, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_frame_timeout, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_hello_timeout, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_idle_release, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
