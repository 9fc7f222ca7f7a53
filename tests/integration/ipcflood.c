/* tests/integration/ipcflood.c: a misbehaving IPC peer for tests/integration/test_ipc_limits.sh: many connections held, frames that stall half way, and a STATUS probe of one socket (admin or read-only) that prints the counters. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ipcflood hold SOCKET N [hello] [WAIT_S]\n"
	    "       ipcflood slow SOCKET N SIZE [WAIT_S]\n"
	    "       ipcflood status RUNDIR SERVICE [ro] [counters]\n"
	    "hold: N connections (with a hello each if asked); without WAIT_S\n"
	    "  they are held until killed, with it the tool waits that long\n"
	    "  for the server to close them and prints how many it did.\n"
	    "slow: N connections, each a hello then a frame announcing SIZE\n"
	    "  bytes and all but its last byte, then waits as hold does.\n"
	    "status: lifecycle STATUS on RUNDIR/SERVICE[-ro].sock: exit 0 on\n"
	    "  OK, else the status and the server's text on stderr, exit 1.\n");
	exit(2);
}

/* Our own limit up to the hard one: this process holds the flood. */
static void
fds_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int
sock_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval to = {.tv_sec = 5};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return (-1);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* a full backlog blocks connect(): bounded */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &to, sizeof(to));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return (-1);
	}
	return (fd);
}

static int
send_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) <= 0)
			return (-1);
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

static int
send_hello(int fd)
{
	Lifecycle__Hello h = LIFECYCLE__HELLO__INIT;
	uint8_t b[IPC_FRAME_HDR + IPC_REC_HDR + 256];
	size_t n;

	h.component = (char *)"ipcflood";
	h.protocol_version = IPC_PROTOCOL_VERSION;
	h.max_frame = 1u << 20;
	n = lifecycle__hello__pack(&h, b + IPC_FRAME_HDR + IPC_REC_HDR);
	ipc_frame_hdr_write(b, 1, (uint32_t)(IPC_REC_HDR + n), 1);
	ipc_rec_hdr_write(b + IPC_FRAME_HDR, 1, 0, IPC_K_REQ,
	    LIFECYCLE__METHOD__HELLO, IPC_OK, (uint32_t)n);
	return (send_all(fd, b, IPC_FRAME_HDR + IPC_REC_HDR + n));
}

/* A SINK frame of size bytes in all, but its last byte. */
static int
send_stalled_frame(int fd, size_t size)
{
	static uint8_t *body;
	static size_t have;
	uint8_t h[IPC_FRAME_HDR + IPC_REC_HDR];
	uint32_t plen = (uint32_t)(size - sizeof(h));

	if (have < plen) {
		free(body);
		if ((body = calloc(1, plen)) == NULL)
			return (-1);
		have = plen;
	}
	ipc_frame_hdr_write(h, 1, IPC_REC_HDR + plen, 1);
	ipc_rec_hdr_write(h + IPC_FRAME_HDR, 2, 0, IPC_K_REQ,
	    LIFECYCLE__METHOD__SINK, IPC_OK, plen);
	if (send_all(fd, h, sizeof(h)) != 0)
		return (-1);
	return (send_all(fd, body, plen - 1));
}

/*
 * Waits up to wait_s for the server to close the n connections: prints how
 * many it closed, when the last went, and the last error text it sent
 * (read from the id-0 replies).
 */
static int
wait_closed(int *fds, int n, double wait_s)
{
	struct pollfd *pf = calloc((size_t)n, sizeof(*pf));
	uint64_t t0 = lc_time_mono_ns(), end = t0 + (uint64_t)(wait_s * 1e9),
		 last = t0;
	static uint8_t in[1 << 16];
	char why[200] = "";
	int open = 0, closed = 0, i;

	if (pf == NULL)
		return (1);
	for (i = 0; i < n; i++) {
		pf[i].fd = fds[i];
		pf[i].events = POLLIN;
		if (fds[i] >= 0)
			open++;
	}
	while (open > 0 && lc_time_mono_ns() < end) {
		if (poll(pf, (nfds_t)n, 100) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			ssize_t r;

			if (pf[i].fd < 0 ||
			    !(pf[i].revents & (POLLIN | POLLHUP)))
				continue;
			r = read(pf[i].fd, in, sizeof(in));
			if (r > (ssize_t)(IPC_FRAME_HDR + IPC_REC_HDR)) {
				/* a refusal: the text of the first id-0 reply */
				struct ipc_frame_hdr h;
				struct ipc_rec rec;
				size_t off = 0;

				if (ipc_frame_hdr_parse(in, (size_t)r, 1u << 30,
					&h) == 0 &&
				    (size_t)r >= IPC_FRAME_HDR + h.length &&
				    ipc_frame_body_check(&h,
					in + IPC_FRAME_HDR) == 0) {
					for (uint32_t k = 0; k < h.count; k++) {
						ipc_frame_rec_read(in +
							IPC_FRAME_HDR,
						    &off, &rec);
						if (rec.id == 0 &&
						    rec.status != IPC_OK)
							snprintf(why,
							    sizeof(why),
							    "%s: %.*s",
							    ipc_status_str(
								rec.status),
							    (int)rec.len,
							    (const char *)
								rec.payload);
					}
				}
			}
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open--;
				closed++;
				last = lc_time_mono_ns();
			}
		}
	}
	printf("closed %d/%d, the last after %llu ms: %s\n", closed,
	    closed + open, (unsigned long long)((last - t0) / 1000000), why);
	fflush(stdout);
	free(pf);
	return (0);
}

static int
hold(const char *path, int n, bool hello, double wait_s, size_t frame)
{
	int *fds = calloc((size_t)n, sizeof(int)), ok = 0, i;

	if (fds == NULL)
		return (1);
	signal(SIGPIPE, SIG_IGN);
	fds_raise();
	for (i = 0; i < n; i++) {
		fds[i] = sock_connect(path);
		if (fds[i] < 0)
			continue;
		ok++;
		if (hello || frame > 0)
			(void)send_hello(fds[i]);
		if (frame > 0)
			(void)send_stalled_frame(fds[i], frame);
	}
	printf("connected %d/%d\n", ok, n);
	fflush(stdout);
	if (wait_s > 0)
		return (wait_closed(fds, n, wait_s));
	for (;;)
		pause();
}

static const struct ipc_service_desc *
service(const char *name)
{
	static const struct ipc_service_desc *const all[] = {&ipc_svc_mgmt,
	    &ipc_svc_rib, &ipc_svc_fwd, &ipc_svc_rtrmgr, &ipc_svc_bgp};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, name) == 0)
			return (all[i]);
	return (NULL);
}

static int
status(const char *rundir, const char *name, bool ro, bool counters)
{
	const struct ipc_service_desc *svc = service(name);
	struct ipc_opts o = {.rundir = rundir, .component = "ipcflood"};
	struct ev_loop *loop = lc_loop_new();
	struct lc_arena *ar = lc_arena_new(0);
	struct ipc_client *cl;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	if (svc == NULL)
		usage();
	cl = ipc_client_new(loop, svc, &o, ro);
	st = ipc_call_wait(cl, IPC_LC(LIFECYCLE__METHOD__STATUS), NULL, 5000,
	    ar, &rep, &err);
	if (st != IPC_OK) {
		fprintf(stderr, "%s: %s\n", ipc_status_str(st), err.msg);
		return (1);
	}
	if (counters) {
		const Lifecycle__Status *s = (const Lifecycle__Status *)rep;

		for (size_t i = 0; i < s->n_counters; i++)
			printf("%s %llu\n", s->counters[i]->name,
			    (unsigned long long)s->counters[i]->value);
	}
	ipc_client_free(cl);
	lc_arena_free(ar);
	lc_loop_free(loop);
	return (0);
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "hold") == 0) {
		bool hello = argc > 4 && strcmp(argv[4], "hello") == 0;
		int w = hello ? 5 : 4;

		return (hold(argv[2], atoi(argv[3]), hello,
		    argc > w ? atof(argv[w]) : 0, 0));
	}
	if (argc >= 5 && strcmp(argv[1], "slow") == 0)
		return (hold(argv[2], atoi(argv[3]), true,
		    argc > 5 ? atof(argv[5]) : 0, (size_t)atol(argv[4])));
	if (argc >= 4 && strcmp(argv[1], "status") == 0) {
		bool ro = false, counters = false;

		for (int i = 4; i < argc; i++) {
			if (strcmp(argv[i], "ro") == 0)
				ro = true;
			else if (strcmp(argv[i], "counters") == 0)
				counters = true;
			else
				usage();
		}
		return (status(argv[2], argv[3], ro, counters));
	}
	usage();
	return (2);
}
