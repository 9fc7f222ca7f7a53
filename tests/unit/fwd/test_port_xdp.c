/* tests/unit/fwd/test_port_xdp.c: the AF_XDP port on real veths in namespaces
 * built by tests/lib/netns.sh (root only; skipped otherwise). */
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
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <bpf/libbpf.h>

#include "fwd/fwd_port.h"
#include "fwd/fwd_port_xdp.h"
#include "fwd_test_netns.h"
#include "fwd_test_ports.h"

static int
setup(void **st)
{

	(void)st;
	if (geteuid() != 0) {
		fprintf(stderr, "test_port_xdp: not root, skipping\n");
		return (0);
	}
	if (tn_create('u') != 0) {
		fprintf(stderr, "test_port_xdp: no namespaces, skipping\n");
		return (0);
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

static const uint8_t smac[6] = {0x02, 0x74, 0, 0, 2, 2};
static const uint8_t rsmac[6] = {0x02, 0x74, 0, 0, 2, 1};

/* Is an XDP program attached to ifname (in the current namespace)? */
static bool
xdp_attached(const char *ifname)
{
	uint32_t id = 0;
	int ifi = (int)if_nametoindex(ifname);

	assert_true(ifi > 0);
	assert_int_equal(bpf_xdp_query_id(ifi, 0, &id), 0);
	return (id != 0);
}

/*
 * Frames sent by the client arrive through the XDP port, intact and in
 * order, more of them than the rings hold; zero-copy was asked for and
 * veth refused it, so the port runs in copy mode and says so.
 */
static void
test_xdp_rx(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 3, .ring = 64};
	static uint8_t seen[300][256];
	unsigned lens[300];
	uint8_t f[256];
	struct fwd_port *p;
	struct fwd_port_xdp_stats xs;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	assert_false(xdp_attached("rc0"));
	/* netns.sh's veths have one queue: one AF_XDP port each */
	assert_int_equal(fwd_port_xdp_queues("rc0"), 1);
	assert_true(fwd_port_xdp_queues("nosuch0") < 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	fprintf(stderr, "test_port_xdp: rc0 mode %s\n", fwd_port_xdp_mode(p));
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-copy");
	assert_true(xdp_attached("rc0"));
	assert_memory_equal(p->mac, rmac, 6);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->id, 3);
	assert_true(fwd_port_xdp_fd(p) >= 0);
	/* the port ops a worker uses, whatever the backend */
	assert_int_equal(fwd_port_fd(p), fwd_port_xdp_fd(p));
	assert_int_equal(fwd_port_afp_fd(p), -1);
	cfd = host_sock(ns_client);
	/* 300 frames through 64-entry rings and a 256-frame UMEM */
	for (uint32_t s = 0; s < 300; s++) {
		unsigned len = mkframe(f, rmac, cmac, s, 60 + s % 190);

		assert_int_equal(send(cfd, f, len, 0), (ssize_t)len);
		if (s % 32 == 31)
			assert_int_equal(rx_wait(p, seen + s - 31, 32,
					     lens + s - 31),
			    32);
	}
	assert_int_equal(rx_wait(p, seen + 288, 12, lens + 288), 12);
	for (uint32_t s = 0; s < 300; s++) {
		unsigned len = mkframe(f, rmac, cmac, s, 60 + s % 190);

		assert_int_equal(lens[s], len);
		assert_memory_equal(seen[s], f, len < 256 ? len : 256);
	}
	assert_true(p->stats.rx_pkts >= 300);
	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	assert_int_equal(xs.rx_dropped, 0);
	close(cfd);
	fwd_port_free(p);
	/* the last port of the interface takes the program away */
	assert_false(xdp_attached("rc0"));
}

/* Frames the socket could not take (its rx ring full) are the port's kernel
 * drops, rx_ring_full among them; frames taken later add none. */
static void
test_xdp_kernel_drops(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 2, .ring = 64};
	static uint8_t seen[64][256];
	unsigned lens[64];
	struct fwd_port_xdp_stats xs;
	uint64_t drops, full;
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	cfd = host_sock(ns_client);
	/* 300 frames, nothing read: the 64-entry rx ring takes 64 */
	send_frames(cfd, 300, 80);
	usleep(100000);
	drops = kernel_drops(p, &full);
	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	assert_int_equal(drops, xs.rx_dropped + xs.rx_ring_full);
	assert_int_equal(full, xs.rx_ring_full);
	assert_true(full >= 300 - 64);
	assert_true(drops <= 300);
	/* drain, then 20 more, all received: no new drop */
	assert_int_equal(rx_wait(p, seen, 300 - (unsigned)drops, lens),
	    300 - (unsigned)drops);
	send_frames(cfd, 20, 80);
	assert_int_equal(rx_wait(p, seen, 20, lens), 20);
	assert_int_equal(kernel_drops(p, NULL), drops);
	close(cfd);
	fwd_port_free(p);
}

/* Frames of the caller's buffers go out (copied into the UMEM), in order,
 * none lost, more than the tx ring holds. */
static void
test_xdp_tx(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 1, .ring = 64};
	uint8_t buf[2048];
	unsigned got = 0;
	struct fwd_port *p;
	struct fwd_port_xdp_stats xs;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	if (p == NULL)
		fprintf(stderr, "xdp_new: %s\n", strerror(errno));
	assert_non_null(p);
	cfd = host_sock(ns_client);
	for (uint32_t s = 0; s < 200; s++) {
		struct fwd_pkt pk = {.data = buf, .owner = NULL}, *v = &pk;

		pk.len = (uint16_t)mkframe(buf, cmac, rmac, s, 64 + s);
		while (fwd_port_tx(p, &v, 1) != 1)
			fwd_port_poll_tx(p);
		if (s % 50 == 49) {
			/* let the client's socket buffer drain */
			for (; got <= s; got++) {
				struct pollfd pfd = {cfd, POLLIN, 0};
				uint8_t want[300];
				uint32_t seq;
				ssize_t r;

				assert_true(poll(&pfd, 1, 2000) > 0);
				r = recv(cfd, buf, sizeof(buf), 0);
				memcpy(&seq, buf + 14, 4);
				assert_int_equal(seq, got);
				mkframe(want, cmac, rmac, seq, 64 + seq);
				assert_int_equal(r, 64 + seq);
				assert_memory_equal(buf, want, (size_t)r);
			}
		}
	}
	assert_int_equal(got, 200);
	assert_int_equal(p->stats.tx_pkts, 200);
	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	assert_int_equal(xs.tx_copied, 200);
	assert_int_equal(xs.tx_moved, 0);
	assert_int_equal(xs.tx_invalid, 0);
	close(cfd);
	fwd_port_free(p);
}

/*
 * Forwarding with one UMEM shared by two ports: client -> rc0 -> rs0 ->
 * server. The frames move as descriptors (nothing copied) and every frame
 * comes back to the UMEM once sent.
 */
static void
test_xdp_forward_shared_umem(void **st)
{
	struct fwd_xdp_umem *u;
	struct fwd_port_xdp_conf ca = {.ifname = "rc0", .id = 0, .ring = 64};
	struct fwd_port_xdp_conf cb = {.ifname = "rs0", .id = 1, .ring = 64};
	struct fwd_port *a, *b;
	struct fwd_port_xdp_stats xs;
	uint8_t f[256], buf[2048];
	unsigned fwd = 0, got = 0, base;
	struct timespec t0, t;
	int cfd, sfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	u = fwd_xdp_umem_new(1024);
	assert_non_null(u);
	ca.umem = cb.umem = u;
	a = fwd_port_xdp_new(&ca);
	assert_non_null(a);
	b = fwd_port_xdp_new(&cb);
	assert_non_null(b);
	fwd_xdp_umem_put(u); /* the ports keep it */
	/* ports on a shared UMEM fill their rings at their first rx (on the
	 * thread that owns the UMEM) */
	assert_int_equal(fwd_xdp_umem_free_frames(u), 1024);
	{
		struct fwd_pkt *pk[FWD_BURST];

		assert_int_equal(fwd_port_rx(a, pk, FWD_BURST), 0);
		assert_int_equal(fwd_port_rx(b, pk, FWD_BURST), 0);
	}
	assert_int_equal(fwd_xdp_umem_free_frames(u), 1024 - 2 * 128);
	cfd = host_sock(ns_client);
	sfd = host_sock(ns_server);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t s = 0; s < 100; s++) {
		unsigned len = mkframe(f, rmac, cmac, s, 100);

		assert_int_equal(send(cfd, f, len, 0), (ssize_t)len);
		if (s % 25 != 24)
			continue;
		/* 25 at a time: the 64-entry rx ring holds them */
		while (fwd <= s) {
			struct fwd_pkt *pk[FWD_BURST];
			unsigned k = fwd_port_rx(a, pk, FWD_BURST), sent = 0;

			for (unsigned i = 0; i < k; i++) {
				/* rewrite the MACs as a router would */
				memcpy(pk[i]->data, smac, 6);
				memcpy(pk[i]->data + 6, rsmac, 6);
			}
			while (sent < k) {
				sent += fwd_port_tx(b, pk + sent, k - sent);
				fwd_port_poll_tx(b);
			}
			fwd += k;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= 3)
				break;
		}
	}
	assert_int_equal(fwd, 100);
	for (; got < 100; got++) {
		struct pollfd pfd = {sfd, POLLIN, 0};
		uint8_t want[256];
		uint32_t seq;
		ssize_t r;

		if (poll(&pfd, 1, 2000) <= 0)
			break;
		r = recv(sfd, buf, sizeof(buf), 0);
		assert_int_equal(r, 100);
		memcpy(&seq, buf + 14, 4);
		assert_int_equal(seq, got);
		mkframe(want, smac, rsmac, seq, 100);
		assert_memory_equal(buf, want, 100);
	}
	assert_int_equal(got, 100);
	assert_int_equal(fwd_port_xdp_stats(b, &xs), 0);
	assert_int_equal(xs.tx_moved, 100);
	assert_int_equal(xs.tx_copied, 0);
	/* every frame sent came back: completions reaped, fill rings topped
	 * up to their targets (64*2 each), the rest free */
	fwd_port_poll_tx(b);
	fwd_port_poll_tx(a);
	base = fwd_xdp_umem_free_frames(u);
	assert_int_equal(base, 1024 - 2 * 128);
	close(cfd);
	close(sfd);
	/* a port freed while its UMEM lives on gives its frames back (fill
	 * ring, unread rx, unsent tx): 20 rounds of open, fill, free */
	fwd_port_free(a);
	assert_int_equal(fwd_xdp_umem_free_frames(u), 1024 - 128);
	for (int r = 0; r < 20; r++) {
		struct fwd_pkt *pk[FWD_BURST];

		a = fwd_port_xdp_new(&ca);
		assert_non_null(a);
		(void)fwd_port_rx(a, pk, 0);
		assert_int_equal(fwd_xdp_umem_free_frames(u), 1024 - 256);
		fwd_port_free(a);
	}
	assert_int_equal(fwd_xdp_umem_free_frames(u), 1024 - 128);
	fwd_port_free(b);
}

/* Asked for copy mode, or generic XDP: no zero-copy attempt, reported. */
static void
test_xdp_modes(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0",
	    .id = 0,
	    .flags = FWD_XDP_COPY};
	struct fwd_port *p;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-copy");
	fwd_port_free(p);
	c.flags = FWD_XDP_GENERIC;
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-generic");
	fwd_port_free(p);
	assert_false(xdp_attached("rc0"));
}

/* Bad configuration: a clear errno and nothing left attached. */
static void
test_xdp_bad_conf(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 0, .ring = 100};

	(void)st;
	assert_null(fwd_port_xdp_new(NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(fwd_port_xdp_new(&c)); /* ring not a power of 2 */
	assert_int_equal(errno, EINVAL);
	c.ring = 0;
	c.id = FWD_PORT_MAX;
	assert_null(fwd_port_xdp_new(&c));
	assert_int_equal(errno, EINVAL);
	c.id = 0;
	c.queue = 1000;
	assert_null(fwd_port_xdp_new(&c));
	assert_int_equal(errno, EINVAL);
	assert_null(fwd_xdp_umem_new(3));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fwd_port_xdp_mode(NULL) == NULL, 1);
	assert_int_equal(fwd_port_xdp_fd(NULL), -1);
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	c.queue = 0;
	c.ifname = "nosuch0";
	assert_null(fwd_port_xdp_new(&c));
	assert_int_equal(errno, ENODEV);
	/* queue 5 does not exist on a one-queue veth: the bind fails and
	 * the program goes away again */
	c.ifname = "rc0";
	c.queue = 5;
	assert_null(fwd_port_xdp_new(&c));
	assert_false(xdp_attached("rc0"));
}

/*
 * What the device refuses is counted: a frame over rc0's MTU is dropped by
 * the port (tx_mtu); one rc0 takes but its veth peer drops (smaller MTU)
 * comes back from the copy-mode send as EBUSY (tx_refused); the frames
 * around them arrive.
 */
static void
test_xdp_tx_refused(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 1, .ring = 64};
	static const unsigned lens[] = {100, 1500, 1350, 200};
	uint32_t seq[8];
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	set_mtu(ns_router, "rc0", 1400);
	set_mtu(ns_client, "eth0", 1300);
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	assert_non_null(p);
	assert_int_equal(p->dev_mtu, 1400);
	cfd = host_sock(ns_client);
	tx_lens(p, lens, 4);
	assert_int_equal(rx_seqs(cfd, seq, 8), 2);
	assert_int_equal(seq[0], 0);
	assert_int_equal(seq[1], 3);
	assert_int_equal(p->stats.tx_mtu, 1);
	assert_int_equal(p->stats.tx_refused, 1);
	assert_int_equal(p->stats.tx_pkts, 3);
	close(cfd);
	fwd_port_free(p);
	set_mtu(ns_router, "rc0", 1500);
	set_mtu(ns_client, "eth0", 1500);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xdp_bad_conf),
	    cmocka_unit_test(test_xdp_rx),
	    cmocka_unit_test(test_xdp_tx),
	    cmocka_unit_test(test_xdp_kernel_drops),
	    cmocka_unit_test(test_xdp_forward_shared_umem),
	    cmocka_unit_test(test_xdp_modes),
	    cmocka_unit_test(test_xdp_tx_refused),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
