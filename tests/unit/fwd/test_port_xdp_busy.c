/* tests/unit/fwd/test_port_xdp_busy.c: busy-poll options on AF_XDP ports
 * (fwd_port_xdp_busy_poll), the system calls an empty rx makes, and the
 * fill shares of ports on one UMEM, on real veths in namespaces built by
 * tests/lib/netns.sh (root only; skipped otherwise). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "fwd/fwd_port.h"
#include "fwd/fwd_port_xdp.h"
#include "fwd_test_netns.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif

static int
setup(void **st)
{
	(void)st;
	if (geteuid() != 0 || tn_create('b') != 0)
		fprintf(stderr,
		    "test_port_xdp_busy: no namespaces (not root?), "
		    "skipping\n");
	return (0);
}

static int
sockopt(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &l) != 0)
		fail_msg("getsockopt %d: %s", opt, strerror(errno));
	return (v);
}

static uint64_t
wakeups(const struct fwd_port *p)
{
	struct fwd_port_xdp_stats xs;

	assert_int_equal(fwd_port_xdp_stats(p, &xs), 0);
	return (xs.wakeups);
}

/* n frames of ethertype 0x88b5 from the client's eth0 to the router's rc0
 * MAC, carrying their numbers from first on. */
static void
client_send(const uint8_t *dst, uint32_t first, unsigned n)
{
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_halen = 6};
	uint8_t f[64] = {0};
	int fd;

	assert_int_equal(enter_ns(ns_client), 0);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	to.sll_ifindex = (int)if_nametoindex("eth0");
	memcpy(to.sll_addr, dst, 6);
	memcpy(f, dst, 6);
	f[6] = 0x02;
	f[12] = 0x88;
	f[13] = 0xb5;
	for (uint32_t i = first; i < first + n; i++) {
		memcpy(f + 14, &i, 4);
		assert_int_equal(sendto(fd, f, sizeof(f), 0,
				     (struct sockaddr *)&to, sizeof(to)),
		    (ssize_t)sizeof(f));
	}
	close(fd);
	assert_int_equal(enter_ns(ns_router), 0);
}

/*
 * The options are set once, read back from the socket, and later calls
 * change nothing; bad arguments are refused. A busy-polling port makes one
 * recvfrom per empty rx; a copy-mode port without busy-polling makes none
 * (it used to, whenever the fill ring asked for a wake-up). Frames arrive
 * through rx alone, without poll(), in order.
 */
static void
test_busy_poll(void **st)
{
	struct fwd_port_xdp_conf c = {.ifname = "rc0", .id = 1, .ring = 64};
	struct fwd_port_xdp_conf c2 = {.ifname = "rs0", .id = 2, .ring = 64};
	struct fwd_pkt *pk[FWD_BURST];
	struct fwd_port *p, *q;
	struct timespec t0, t;
	uint64_t w0;
	uint32_t next = 0;
	int fd;

	(void)st;
	assert_int_equal(fwd_port_xdp_busy_poll(NULL, 50, 16), -EINVAL);
	{
		struct fwd_port_mem_conf mc = {.id = 1};
		struct fwd_port *m = fwd_port_mem_new(&mc);

		assert_non_null(m);
		assert_int_equal(fwd_port_xdp_busy_poll(m, 50, 16), -EINVAL);
		fwd_port_free(m);
	}
	if (suffix[0] == '\0')
		skip();
	assert_int_equal(enter_ns(ns_router), 0);
	p = fwd_port_xdp_new(&c);
	q = fwd_port_xdp_new(&c2);
	assert_non_null(p);
	assert_non_null(q);
	assert_string_equal(fwd_port_xdp_mode(p), "xdp-copy");
	fd = fwd_port_xdp_fd(p);
	assert_int_equal(fwd_port_xdp_busy_poll(p, 0, 16), -EINVAL);
	assert_int_equal(fwd_port_xdp_busy_poll(p, 50, 0), -EINVAL);
	assert_int_equal(fwd_port_xdp_busy_poll(p, 50, 70000), -EINVAL);
	assert_int_equal(sockopt(fd, SO_BUSY_POLL), 0);
	assert_int_equal(fwd_port_xdp_busy_poll(p, 50, 16), 0);
	assert_int_equal(sockopt(fd, SO_BUSY_POLL), 50);
	assert_int_equal(sockopt(fd, SO_PREFER_BUSY_POLL), 1);
	/* SO_BUSY_POLL_BUDGET cannot be read back (ENOPROTOOPT): 0 above
	 * says the kernel took it */
	assert_int_equal(fwd_port_xdp_busy_poll(p, 20, 8), 0);
	assert_int_equal(sockopt(fd, SO_BUSY_POLL), 50);
	/* empty rx: one recvfrom each when busy-polling, none otherwise */
	w0 = wakeups(p);
	for (int i = 0; i < 10; i++)
		assert_int_equal(fwd_port_rx(p, pk, FWD_BURST), 0);
	assert_int_equal(wakeups(p) - w0, 10);
	w0 = wakeups(q);
	for (int i = 0; i < 10; i++)
		assert_int_equal(fwd_port_rx(q, pk, FWD_BURST), 0);
	assert_int_equal(wakeups(q) - w0, 0);
	assert_int_equal(sockopt(fwd_port_xdp_fd(q), SO_BUSY_POLL), 0);
	/* 100 frames in 4 sends (the rx ring holds 64), received by rx
	 * calls only */
	for (uint32_t want = 25; want <= 100; want += 25) {
		client_send(p->mac, next, 25);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (next < want) {
			unsigned k = fwd_port_rx(p, pk, FWD_BURST);

			for (unsigned i = 0; i < k; i++) {
				uint32_t seq;

				if (pk[i]->data[12] != 0x88 ||
				    pk[i]->data[13] != 0xb5)
					continue;
				memcpy(&seq, pk[i]->data + 14, 4);
				assert_int_equal(seq, next);
				next++;
			}
			fwd_pkt_release(pk, k);
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 2)
				break;
		}
		assert_int_equal(next, want);
	}
	assert_int_equal(next, 100);
	fwd_port_free(q);
	fwd_port_free(p);
	assert_int_equal(enter_ns(NULL), 0);
}

/*
 * Three ports on one UMEM of 256 frames with 64-entry rings (fill target
 * 128 each): the UMEM is shared out (80 each), so the third port gets
 * frames too and receives; with the targets alone the first two took
 * them all. Every frame is back in the UMEM after the ports are freed.
 */
static void
test_three_ports_share(void **st)
{
	static const char *const ifs[3] = {"rc0", "rs0", "tx0"};
	struct fwd_port *p[3];
	struct fwd_pkt *pk[FWD_BURST];
	struct fwd_xdp_umem *u;
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_halen = 6};
	uint8_t f[64] = {0};
	unsigned got = 0;
	int fd;

	(void)st;
	if (suffix[0] == '\0')
		skip();
	assert_int_equal(enter_ns(ns_router), 0);
	assert_int_equal(system("ip link add tx0 type veth peer name tx1 && "
				"ip link set tx0 up && ip link set tx1 up"),
	    0);
	u = fwd_xdp_umem_new(256);
	assert_non_null(u);
	for (unsigned i = 0; i < 3; i++) {
		struct fwd_port_xdp_conf c = {.ifname = ifs[i],
		    .id = (uint16_t)i,
		    .ring = 64,
		    .umem = u};

		p[i] = fwd_port_xdp_new(&c);
		assert_non_null(p[i]);
	}
	for (unsigned i = 0; i < 3; i++) /* the first rx fills */
		assert_int_equal(fwd_port_rx(p[i], pk, FWD_BURST), 0);
	assert_int_equal(fwd_xdp_umem_free_frames(u), 256 - 3 * 80);
	/* 10 frames into tx0 from its peer */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	to.sll_ifindex = (int)if_nametoindex("tx1");
	memcpy(to.sll_addr, p[2]->mac, 6);
	memcpy(f, p[2]->mac, 6);
	f[6] = 0x02;
	f[12] = 0x88;
	f[13] = 0xb5;
	for (int i = 0; i < 10; i++)
		assert_int_equal(sendto(fd, f, sizeof(f), 0,
				     (struct sockaddr *)&to, sizeof(to)),
		    (ssize_t)sizeof(f));
	close(fd);
	for (int tries = 0; tries < 200 && got < 10; tries++) {
		unsigned k = fwd_port_rx(p[2], pk, FWD_BURST);

		for (unsigned i = 0; i < k; i++)
			got += pk[i]->data[12] == 0x88 &&
			    pk[i]->data[13] == 0xb5;
		fwd_pkt_release(pk, k);
		usleep(5000);
	}
	assert_int_equal(got, 10);
	for (unsigned i = 0; i < 3; i++)
		fwd_port_free(p[i]);
	assert_int_equal(fwd_xdp_umem_free_frames(u), 256);
	fwd_xdp_umem_put(u);
	assert_int_equal(system("ip link del tx0"), 0);
	assert_int_equal(enter_ns(NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_busy_poll),
	    cmocka_unit_test(test_three_ports_share),
	};

	int rv = cmocka_run_group_tests(tests, setup, NULL);

	tn_destroy();
	return (rv);
}
