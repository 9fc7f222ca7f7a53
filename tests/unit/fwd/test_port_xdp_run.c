/* tests/unit/fwd/test_port_xdp_run.c: AF_XDP ports sending with BPF_PROG_RUN
 * (fwd_port_xdp_tx_run) on real veths in namespaces built by
 * tests/lib/netns.sh, with the hosts' eth0 taking XDP frames (root only;
 * skipped otherwise). A binary of its own: the mode is process-wide. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fwd/fwd_port.h"
#include "fwd/fwd_port_xdp.h"
#include "fwd_test_netns.h"
#include "fwd_test_ports.h"

static const uint8_t smac[6] = {0x02, 0x74, 0, 0, 2, 2};
static const uint8_t rsmac[6] = {0x02, 0x74, 0, 0, 2, 1};

static int
setup(void **st)
{
	char cmd[256];

	(void)st;
	if (geteuid() != 0 || tn_create('x') != 0) {
		fprintf(stderr,
		    "test_port_xdp_run: no namespaces (not root?), skipping\n");
		return (0);
	}
	snprintf(cmd, sizeof(cmd),
	    "timeout 30 bash tests/lib/netns.sh hosts-napi %s", suffix);
	if (system(cmd) != 0) {
		fprintf(stderr, "test_port_xdp_run: hosts-napi failed\n");
		return (-1);
	}
	return (0);
}

static int
teardown(void **st)
{
	(void)st;
	tn_destroy();
	return (0);
}

/* Receive n frames of len bytes (0: 64 + seq) on fd, seq from first, as
 * mkframe(dst, src) made them. Returns how many arrived intact, in order. */
static unsigned
host_recv(int fd, const uint8_t *dst, const uint8_t *src, uint32_t first,
    unsigned n, unsigned len)
{
	uint8_t buf[2048], want[2048];
	unsigned got = 0;

	for (; got < n; got++) {
		struct pollfd pfd = {fd, POLLIN, 0};
		uint32_t seq;
		unsigned l;
		ssize_t r;

		if (poll(&pfd, 1, 2000) <= 0)
			break;
		r = recv(fd, buf, sizeof(buf), 0);
		memcpy(&seq, buf + 14, 4);
		if (seq != first + got) {
			fprintf(stderr, "frame %u: seq %u\n", first + got, seq);
			break;
		}
		l = len ? len : 64 + seq % 200;
		mkframe(want, dst, src, seq, l);
		if (r != (ssize_t)l || memcmp(buf, want, l) != 0) {
			fprintf(stderr, "frame %u: %zd bytes, not as sent\n",
			    seq, r);
			break;
		}
	}
	return (got);
}

/* A receive buffer that holds a test's frames: a frame built from an XDP
 * frame takes a page of it. */
static void
big_rcvbuf(int fd)
{
	int v = 8 << 20;

	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
			     sizeof(v)),
	    0);
}

/* n frames of 100 bytes, seq first.., from the client to the router. */
static void
client_send(int cfd, uint32_t first, unsigned n)
{
	uint8_t f[256];

	for (uint32_t s = first; s < first + n; s++) {
		unsigned len = mkframe(f, rmac, cmac, s, 100);

		assert_int_equal(send(cfd, f, len, 0), (ssize_t)len);
	}
}

/* Forward from a to b (MACs rewritten as a router would) until *fwd
 * reaches upto, without flushing b. */
static void
forward(struct fwd_port *a, struct fwd_port *b, unsigned *fwd, unsigned upto)
{
	for (unsigned tries = 0; *fwd < upto && tries < 100000; tries++) {
		struct fwd_pkt *pk[FWD_BURST];
		unsigned k = fwd_port_rx(a, pk, FWD_BURST);

		for (unsigned i = 0; i < k; i++) {
			memcpy(pk[i]->data, smac, 6);
			memcpy(pk[i]->data + 6, rsmac, 6);
		}
		assert_int_equal(fwd_port_tx(b, pk, k), k);
		*fwd += k;
	}
	assert_int_equal(*fwd, upto);
}

/* n frames of the caller's buffers, seq first.. (len 0: 64 + seq % 200
 * bytes), from the router's port p to the client, sent at once. */
static void
send_copies(struct fwd_port *p, uint32_t first, unsigned n, unsigned len)
{
	static uint8_t buf[64][2048];
	struct fwd_pkt pk[64], *v[64];

	assert_true(n <= 64);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = first + i;

		pk[i] = (struct fwd_pkt){.data = buf[i], .owner = NULL};
		pk[i].len = (uint16_t)mkframe(buf[i], cmac, rmac, s,
		    len ? len : 64 + s % 200);
		v[i] = &pk[i];
	}
	assert_int_equal(fwd_port_tx(p, v, n), n);
	fwd_port_poll_tx(p);
}

/*
 * Forwarding client -> rc0 -> rs0 -> server on one UMEM: short queues go
 * through the TX ring, long ones (64 and more) in BPF_PROG_RUN runs; every
 * frame arrives intact and in order, none is copied, and every frame comes
 * back to the UMEM. The program on rc0 also did the receiving.
 */
static void
test_run_forward(void **st)
{
	struct fwd_port_xdp_conf ca = {.ifname = "rc0", .id = 0, .ring = 256};
	struct fwd_port_xdp_conf cb = {.ifname = "rs0", .id = 1, .ring = 256};
	struct fwd_port_xdp_stats xs;
	struct fwd_xdp_umem *u;
	struct fwd_port *a, *b;
	struct fwd_pkt *pk[FWD_BURST];
	unsigned fwd = 0, base;
	int cfd, sfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	assert_true(fwd_port_xdp_tx_running());
	u = fwd_xdp_umem_new(1024);
	assert_non_null(u);
	ca.umem = cb.umem = u;
	a = fwd_port_xdp_new(&ca);
	assert_non_null(a);
	b = fwd_port_xdp_new(&cb);
	assert_non_null(b);
	fwd_xdp_umem_put(u);
	assert_string_equal(fwd_port_xdp_mode(a), "xdp-copy/run");
	assert_string_equal(fwd_port_xdp_mode(b), "xdp-copy/run");
	assert_int_equal(fwd_port_rx(a, pk, FWD_BURST), 0);
	assert_int_equal(fwd_port_rx(b, pk, FWD_BURST), 0);
	base = fwd_xdp_umem_free_frames(u);
	cfd = host_sock(ns_client);
	sfd = host_sock(ns_server);
	big_rcvbuf(sfd);
	/* 100 frames, 25 at a time, each batch sent at once: short queues */
	for (unsigned r = 0; r < 4; r++) {
		client_send(cfd, 25 * r, 25);
		forward(a, b, &fwd, 25 * r + 25);
		assert_true(b->tx_held);
		fwd_port_poll_tx(b);
		assert_false(b->tx_held);
	}
	assert_int_equal(host_recv(sfd, smac, rsmac, 0, 100, 100), 100);
	assert_int_equal(fwd_port_xdp_stats(b, &xs), 0);
	assert_int_equal(xs.run_ringed, 100);
	assert_int_equal(xs.runs, 0);
	/* 192 frames at once, forwarded in bursts of 32 without a flush:
	 * the queue goes in runs of 64 */
	client_send(cfd, 100, 192);
	forward(a, b, &fwd, 292);
	fwd_port_poll_tx(b);
	assert_int_equal(host_recv(sfd, smac, rsmac, 100, 192, 100), 192);
	assert_int_equal(fwd_port_xdp_stats(b, &xs), 0);
	assert_true(xs.runs >= 2);
	assert_int_equal(xs.run_errors, 0);
	assert_int_equal(xs.tx_moved, 292);
	assert_int_equal(xs.tx_copied, 0);
	assert_int_equal(b->stats.tx_pkts, 292);
	fprintf(stderr,
	    "test_port_xdp_run: %llu runs, %llu frames by the ring\n",
	    (unsigned long long)xs.runs, (unsigned long long)xs.run_ringed);
	/* every frame back: completions reaped, fill rings topped up */
	fwd_port_poll_tx(b);
	fwd_port_poll_tx(a);
	(void)fwd_port_rx(a, pk, 0);
	(void)fwd_port_rx(b, pk, 0);
	assert_int_equal(fwd_xdp_umem_free_frames(u), base);
	close(cfd);
	close(sfd);
	fwd_port_free(a);
	fwd_port_free(b);
}

/* Frames of the caller's buffers (copied into the UMEM), 64 to 263 bytes,
 * 64 per queue: sent in runs, intact and in order. */
static void
test_run_copied(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 5, .ring = 256};
	struct fwd_port_xdp_stats xs;
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	cfd = host_sock(ns_client);
	big_rcvbuf(cfd);
	for (uint32_t r = 0; r < 4; r++) {
		send_copies(p, 64 * r, 64, 0);
		assert_int_equal(host_recv(cfd, cmac, rmac, 64 * r, 64, 0), 64);
	}
	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	assert_int_equal(xs.tx_copied, 256);
	assert_int_equal(xs.runs, 4);
	assert_int_equal(xs.run_ringed, 0);
	assert_int_equal(xs.run_errors, 0);
	close(cfd);
	fwd_port_free(p);
}

/*
 * A device that does not take XDP frames (the client's eth0 without NAPI:
 * GRO off, as netns.sh leaves it): the first run's frames are refused
 * (-ENXIO in the devmap's flush, seen by the tracepoint program), sent
 * again through the TX ring (none lost), and the port says so and sends
 * through its TX ring from then on; short queues went through the ring
 * before that and arrived.
 */
static void
test_run_refused(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 6, .ring = 256};
	struct fwd_port_xdp_stats xs;
	struct fwd_port *p;
	char cmd[256];
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	snprintf(cmd, sizeof(cmd),
	    "timeout 30 bash tests/lib/netns.sh hosts-napi %s off", suffix);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-copy/run");
	cfd = host_sock(ns_client);
	for (uint32_t r = 0; r < 4; r++) {
		unsigned n = r == 1 ? 64 : 20; /* run 1: 64 frames, a run */

		send_copies(p, 1000 * r, n, 100);
		/* every frame, the refused run's too */
		assert_int_equal(host_recv(cfd, cmac, rmac, 1000 * r, n, 100),
		    n);
	}
	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	assert_int_equal(xs.runs, 1);
	assert_int_equal(xs.run_refused, 64);
	assert_int_equal(xs.run_resent, 64);
	assert_int_equal(xs.run_ringed, 20);
	assert_int_equal(xs.run_errors, 0);
	assert_int_equal(p->stats.tx_refused, 0);
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-copy (run refused)");
	/* and nothing twice */
	{
		struct pollfd pfd = {cfd, POLLIN, 0};

		assert_int_equal(poll(&pfd, 1, 200), 0);
	}
	close(cfd);
	fwd_port_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_forward),
	    cmocka_unit_test(test_run_copied),
	    cmocka_unit_test(test_run_refused),
	};
	int rv;

	/* fwd_test_ports.h's, unused here */
	(void)send_frames;
	(void)rx_wait;
	(void)kernel_drops;
	(void)set_mtu;
	(void)tx_lens;
	(void)rx_seqs;
	/* process-wide, before the first port */
	rv = fwd_port_xdp_tx_run();
	if (rv != 0) {
		fprintf(stderr, "test_port_xdp_run: fwd_port_xdp_tx_run: %s\n",
		    strerror(-rv));
		if (geteuid() == 0)
			return (1);
	}
	return (cmocka_run_group_tests(tests, setup, teardown));
}
