/* tests/unit/fwd/fwd_test_ports.h: test frames between a host namespace's
 * eth0 and a router port (AF_PACKET or AF_XDP) on the tests/lib/netns.sh
 * topology, for the port tests. Include after fwd_test_netns.h. */
#ifndef FWD_TEST_PORTS_H
#define FWD_TEST_PORTS_H

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>

#include "fwd/fwd_port.h"
#include "fwd/fwd_port_xdp.h"

#define TEST_ETHERTYPE 0x88b5 /* IEEE local experimental */

static const uint8_t cmac[6] = {0x02, 0x74, 0, 0, 1, 2}; /* netns.sh */
static const uint8_t rmac[6] = {0x02, 0x74, 0, 0, 1, 1};

#define SKIP_UNLESS_NS()               \
	do {                           \
		if (suffix[0] == '\0') \
			skip();        \
	} while (0)

/* A raw socket on a host's eth0 (the far end of the router's rc0/rs0);
 * back in the router's namespace after. */
static int
host_sock(const char *ns)
{
	struct sockaddr_ll sll;
	int fd;

	assert_int_equal(enter_ns(ns), 0);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(TEST_ETHERTYPE));
	assert_true(fd >= 0);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(TEST_ETHERTYPE);
	sll.sll_ifindex = (int)if_nametoindex("eth0");
	assert_true(sll.sll_ifindex > 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	assert_int_equal(enter_ns(ns_router), 0);
	return (fd);
}

/* A test frame dst <- src of len bytes carrying seq. Returns len. */
static unsigned
mkframe(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint32_t seq,
    unsigned len)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = TEST_ETHERTYPE >> 8;
	f[13] = TEST_ETHERTYPE & 0xff;
	for (unsigned i = 14; i < len; i++)
		f[i] = (uint8_t)(i + seq);
	memcpy(f + 14, &seq, 4);
	return (len);
}

/* n test frames of len bytes, seq 0..n-1, from the client to the router. */
static void
send_frames(int fd, unsigned n, unsigned len)
{
	uint8_t f[256];

	assert_true(len <= sizeof(f));
	for (uint32_t k = 0; k < n; k++) {
		mkframe(f, rmac, cmac, k, len);
		assert_int_equal(send(fd, f, len, 0), (ssize_t)len);
	}
}

/* Receive on p until n test frames arrived or 2 s passed. */
static unsigned
rx_wait(struct fwd_port *p, uint8_t seen[][256], unsigned n, unsigned *lens)
{
	int fd = fwd_port_afp_fd(p) >= 0 ? fwd_port_afp_fd(p) :
					   fwd_port_xdp_fd(p);
	struct timespec t0, t;
	unsigned got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct fwd_pkt *pk[FWD_BURST];
		unsigned k = fwd_port_rx(p, pk, FWD_BURST);

		for (unsigned i = 0; i < k; i++) {
			if (pk[i]->len >= 18 && pk[i]->data[12] == 0x88 &&
			    pk[i]->data[13] == 0xb5 && got < n) {
				memcpy(seen[got], pk[i]->data,
				    pk[i]->len < 256 ? pk[i]->len : 256);
				lens[got++] = pk[i]->len;
			}
		}
		fwd_pkt_release(pk, k);
		if (got == n)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 2)
			break;
		if (k == 0) {
			struct pollfd pfd = {fd, POLLIN, 0};

			poll(&pfd, 1, 10);
		}
	}
	return (got);
}

/* Sets the MTU of ifname in namespace ns (ip link). */
static void
set_mtu(const char *ns, const char *ifname, unsigned mtu)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "ip -n %s link set %s mtu %u", ns, ifname,
	    mtu);
	assert_int_equal(system(cmd), 0);
}

/* Sends test frames of the given lengths (seq = index) on p, one by one. */
static void
tx_lens(struct fwd_port *p, const unsigned *lens, unsigned n)
{
	static uint8_t buf[2048];

	for (uint32_t s = 0; s < n; s++) {
		struct fwd_pkt pk = {.data = buf, .owner = NULL}, *v = &pk;

		pk.len = (uint16_t)mkframe(buf, cmac, rmac, s, lens[s]);
		while (fwd_port_tx(p, &v, 1) != 1)
			fwd_port_poll_tx(p);
	}
	fwd_port_poll_tx(p);
}

/* Receives on fd (a host_sock) the test frames that arrive within 500 ms of
 * each other; their seqs in seq[] (at most max). Returns how many. */
static unsigned
rx_seqs(int fd, uint32_t *seq, unsigned max)
{
	static uint8_t buf[2048];
	unsigned n = 0;

	while (n < max) {
		struct pollfd pfd = {fd, POLLIN, 0};

		if (poll(&pfd, 1, 500) <= 0 ||
		    recv(fd, buf, sizeof(buf), 0) < 18)
			break;
		memcpy(&seq[n++], buf + 14, 4);
	}
	return (n);
}

/* The port's kernel drops now (fwd_port_kernel_drops), ring full in *full. */
static uint64_t
kernel_drops(struct fwd_port *p, uint64_t *full)
{
	struct fwd_port_stats s;

	memset(&s, 0, sizeof(s));
	fwd_port_kernel_drops(p, &s);
	if (full != NULL)
		*full = s.rx_ring_full;
	return (s.rx_kernel_drops);
}

#endif /* FWD_TEST_PORTS_H */
