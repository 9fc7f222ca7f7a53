/* tests/unit/fwd/test_port_afp.c: the AF_PACKET TPACKET_V2 port on real veths
 * in namespaces built by tests/lib/netns.sh (root only; skipped otherwise). */
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

#include "fwd/fwd_port.h"
#include "fwd_test_netns.h"
#include "fwd_test_ports.h"

static int
setup(void **st)
{

	(void)st;
	if (geteuid() != 0) {
		fprintf(stderr, "test_port_afp: not root, skipping\n");
		return (0);
	}
	if (tn_create('u') != 0) {
		fprintf(stderr, "test_port_afp: no namespaces, skipping\n");
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

static void
test_afp_rx(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 3,
	    .ring_frames = 64};
	static uint8_t seen[100][256];
	unsigned lens[100];
	uint8_t f[256];
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	assert_int_equal(fwd_port_afp_offloads_off("rc0"), 0);
	p = fwd_port_afp_new(&c);
	assert_non_null(p);
	/* the port ops a worker uses: a socket to sleep on, no busy-poll */
	assert_true(fwd_port_fd(p) >= 0);
	assert_int_equal(fwd_port_fd(p), fwd_port_afp_fd(p));
	assert_int_equal(fwd_port_busy_poll(p, 50, FWD_BURST), -EOPNOTSUPP);
	assert_memory_equal(p->mac, rmac, 6);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->id, 3);
	cfd = host_sock(ns_client);
	/* 100 frames: more than the 64-slot ring holds, so slots are reused */
	for (uint32_t s = 0; s < 100; s++) {
		unsigned len = mkframe(f, rmac, cmac, s, 60 + s);

		assert_int_equal(send(cfd, f, len, 0), (ssize_t)len);
		if (s % 32 == 31) {
			unsigned got = rx_wait(p, seen + s - 31, 32,
			    lens + s - 31);

			assert_int_equal(got, 32);
		}
	}
	assert_int_equal(rx_wait(p, seen + 96, 4, lens + 96), 4);
	for (uint32_t s = 0; s < 100; s++) {
		mkframe(f, rmac, cmac, s, 60 + s);
		assert_int_equal(lens[s], 60 + s);
		assert_memory_equal(seen[s], f, 60 + s);
	}
	assert_true(p->stats.rx_pkts >= 100);
	close(cfd);
	fwd_port_free(p);
}

static void
test_afp_tx(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 1,
	    .ring_frames = 32};
	struct fwd_port_afp_conf ct = {.ifname = "rc0",
	    .id = 1,
	    .ring_frames = 16,
	    .flags = FWD_AFP_TX_ONLY};
	struct fwd_out *out;
	struct fwd_port *p, *tp, *ports[2];
	uint8_t buf[2048];
	unsigned got = 0;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_afp_new(&c);
	assert_non_null(p);
	tp = fwd_port_afp_new(&ct);
	assert_non_null(tp);
	cfd = host_sock(ns_client);
	out = calloc(1, sizeof(*out));
	assert_non_null(out);
	/* 40 frames through the worker's port (ring of 32: reuse), 8 through
	 * the send-only port via fwd_out. */
	for (uint32_t s = 0; s < 40; s++) {
		struct fwd_pkt pk = {.data = buf, .owner = NULL}, *v = &pk;

		pk.len = (uint16_t)mkframe(buf, cmac, rmac, s, 64 + s);
		while (fwd_port_tx(p, &v, 1) != 1)
			fwd_port_poll_tx(p);
	}
	ports[0] = NULL;
	ports[1] = tp;
	for (uint32_t s = 40; s < 48; s++) {
		uint8_t *d = fwd_out_push(out, 1, 64 + s);

		assert_non_null(d);
		mkframe(d, cmac, rmac, s, 64 + s);
	}
	assert_int_equal(fwd_out_send(out, ports, 2), 8);
	assert_int_equal(out->n, 0);
	for (;;) {
		struct pollfd pfd = {cfd, POLLIN, 0};
		ssize_t r;
		uint32_t seq;
		uint8_t want[256];

		if (poll(&pfd, 1, 2000) <= 0)
			break;
		r = recv(cfd, buf, sizeof(buf), 0);
		assert_true(r > 0);
		memcpy(&seq, buf + 14, 4);
		assert_int_equal(seq, got); /* in order, none lost */
		mkframe(want, cmac, rmac, seq, 64 + seq);
		assert_int_equal(r, 64 + seq);
		assert_memory_equal(buf, want, (size_t)r);
		if (++got == 48)
			break;
	}
	assert_int_equal(got, 48);
	assert_int_equal(p->stats.tx_pkts, 40);
	/* PACKET_IGNORE_OUTGOING: our own frames do not come back */
	{
		struct fwd_pkt *pk[FWD_BURST];
		unsigned k = fwd_port_rx(p, pk, FWD_BURST);

		fwd_pkt_release(pk, k);
		assert_int_equal(k, 0);
		/* the send-only port never receives */
		assert_int_equal(fwd_port_rx(tp, pk, FWD_BURST), 0);
	}
	free(out);
	close(cfd);
	fwd_port_free(p);
	fwd_port_free(tp);
}

/* Two sockets in one PACKET_FANOUT_HASH group share the traffic: each
 * frame reaches exactly one of them. */
static void
test_afp_fanout(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 0,
	    .ring_frames = 64,
	    .fanout_group = 4242};
	struct fwd_port *p[2];
	unsigned total = 0, per[2] = {0, 0};
	struct timespec t0, t;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p[0] = fwd_port_afp_new(&c);
	assert_non_null(p[0]);
	p[1] = fwd_port_afp_new(&c);
	assert_non_null(p[1]);
	cfd = host_sock(ns_client);
	send_frames(cfd, 50, 80);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (total < 50) {
		for (int i = 0; i < 2; i++) {
			struct fwd_pkt *pk[FWD_BURST];
			unsigned k = fwd_port_rx(p[i], pk, FWD_BURST);

			for (unsigned j = 0; j < k; j++)
				if (pk[j]->data[12] == 0x88) {
					per[i]++;
					total++;
				}
			fwd_pkt_release(pk, k);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 2)
			break;
		usleep(1000);
	}
	assert_int_equal(total, 50);
	usleep(50000); /* nothing duplicated arrives late */
	for (int i = 0; i < 2; i++) {
		struct fwd_pkt *pk[FWD_BURST];
		unsigned k = fwd_port_rx(p[i], pk, FWD_BURST);

		fwd_pkt_release(pk, k);
		assert_int_equal(k, 0);
	}
	close(cfd);
	fwd_port_free(p[0]);
	fwd_port_free(p[1]);
}

/* Frames the kernel could not put in a full ring are counted exactly (from
 * PACKET_STATISTICS, which resets on read: the port sums them), and frames
 * received after the drops are not counted as drops. */
static void
test_afp_kernel_drops(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 4,
	    .ring_frames = 64};
	static uint8_t seen[64][256];
	unsigned lens[64];
	uint64_t drops, full;
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_afp_new(&c);
	assert_non_null(p);
	cfd = host_sock(ns_client);
	assert_int_equal(kernel_drops(p, NULL), 0);
	/* 200 frames, nothing read: the 64-slot ring takes at most 64 */
	send_frames(cfd, 200, 80);
	usleep(100000);
	drops = kernel_drops(p, &full);
	assert_true(drops >= 200 - 64);
	assert_true(drops <= 200);
	assert_int_equal(full, drops);
	/* read again: the same total (summed, not reset) */
	assert_int_equal(kernel_drops(p, NULL), drops);
	/* what the ring held, then 32 more, all received: no new drop */
	assert_int_equal(rx_wait(p, seen, 200 - (unsigned)drops, lens),
	    200 - (unsigned)drops);
	send_frames(cfd, 32, 80);
	assert_int_equal(rx_wait(p, seen, 32, lens), 32);
	assert_int_equal(kernel_drops(p, NULL), drops);
	assert_int_equal(p->stats.rx_kernel_drops, 0);
	close(cfd);
	fwd_port_free(p);
}

/* A VLAN-tagged frame arrives with its tag stripped into tp_vlan_tci: it
 * must not be handed out as an untagged frame. */
static void
test_afp_vlan(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 2,
	    .ring_frames = 32};
	static uint8_t seen[1][256];
	unsigned lens[1];
	uint8_t f[128];
	struct fwd_port *p;
	struct sockaddr_ll sll;
	int fd;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_afp_new(&c);
	assert_non_null(p);
	assert_int_equal(enter_ns(ns_client), 0);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex("eth0");
	assert_int_equal(enter_ns(ns_router), 0);
	/* 802.1Q tag 7 around a test frame */
	memcpy(f, rmac, 6);
	memcpy(f + 6, cmac, 6);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0x00;
	f[15] = 0x07;
	f[16] = TEST_ETHERTYPE >> 8;
	f[17] = TEST_ETHERTYPE & 0xff;
	memset(f + 18, 0x5a, 60);
	assert_int_equal(sendto(fd, f, 78, 0, (struct sockaddr *)&sll,
			     sizeof(sll)),
	    78);
	/* then an untagged one, which must arrive */
	mkframe(f, rmac, cmac, 99, 64);
	assert_int_equal(sendto(fd, f, 64, 0, (struct sockaddr *)&sll,
			     sizeof(sll)),
	    64);
	assert_int_equal(rx_wait(p, seen, 1, lens), 1);
	assert_int_equal(lens[0], 64);
	assert_int_equal(p->stats.rx_vlan, 1);
	close(fd);
	fwd_port_free(p);
}

static void
test_afp_errors(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "nosuch0", .id = 0};

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(enter_ns(ns_router), 0);
	assert_null(fwd_port_afp_new(&c));
	assert_int_equal(errno, ENODEV);
	c.ifname = "rc0";
	c.ring_frames = 100; /* not a power of two */
	assert_null(fwd_port_afp_new(&c));
	assert_int_equal(errno, EINVAL);
	c.ring_frames = 0;
	c.id = FWD_PORT_MAX;
	assert_null(fwd_port_afp_new(&c));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fwd_port_afp_offloads_off("nosuch0"), -ENODEV);
}

/*
 * A frame over the device's MTU is dropped by the port, counted (tx_mtu),
 * and the frames after it go out; one the kernel refuses itself (the port
 * not told of a smaller MTU yet) is skipped by the kernel (PACKET_LOSS)
 * instead of stopping the ring, where every later frame waited behind it.
 */
static void
test_afp_tx_mtu(void **st)
{
	struct fwd_port_afp_conf c = {.ifname = "rc0",
	    .id = 1,
	    .ring_frames = 32};
	static const unsigned lens[] = {100, 1415, 1414, 1500, 200};
	uint32_t seq[8];
	struct fwd_port *p;
	int cfd;

	(void)st;
	SKIP_UNLESS_NS();
	set_mtu(ns_router, "rc0", 1400);
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_afp_new(&c);
	assert_non_null(p);
	assert_int_equal(p->dev_mtu, 1400);
	assert_int_equal(p->mtu, 1400);
	cfd = host_sock(ns_client);
	tx_lens(p, lens, 5);
	assert_int_equal(rx_seqs(cfd, seq, 8), 3);
	assert_int_equal(seq[0], 0);
	assert_int_equal(seq[1], 2); /* 1414: the largest the device takes */
	assert_int_equal(seq[2], 4);
	assert_int_equal(p->stats.tx_mtu, 2);
	assert_int_equal(p->stats.tx_pkts, 3);
	assert_int_equal(p->stats.tx_errors, 0);
	/* the port believes 1500: the kernel refuses the 1500-byte frame,
	 * and the ring goes on */
	fwd_port_dev_mtu_set(p, 1500);
	tx_lens(p, lens, 5);
	assert_int_equal(rx_seqs(cfd, seq, 8), 3);
	assert_int_equal(seq[2], 4);
	tx_lens(p, lens, 1);
	assert_int_equal(rx_seqs(cfd, seq, 8), 1);
	assert_int_equal(p->stats.tx_mtu, 2);
	close(cfd);
	fwd_port_free(p);
	set_mtu(ns_router, "rc0", 1500);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_afp_rx),
	    cmocka_unit_test(test_afp_tx),
	    cmocka_unit_test(test_afp_fanout),
	    cmocka_unit_test(test_afp_vlan),
	    cmocka_unit_test(test_afp_kernel_drops),
	    cmocka_unit_test(test_afp_errors),
	    cmocka_unit_test(test_afp_tx_mtu),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
