/* tests/unit/fwd/test_dp.c: the fast path over in-memory ports with a real FIB:
 * egress port, MACs, TTL, and every drop counted by reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_dp.h"
#include "fwd/fwd_ipopt.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 0x10}; /* port 0 */
static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t mac2[6] = {0x02, 0, 0, 0, 0, 0x12};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99}; /* sender */
static const uint8_t gw1mac[6] = {0x02, 0, 0, 0, 1, 0xfe};
static const uint8_t gw2mac[6] = {0x02, 0, 0, 0, 2, 0xfe};

#define PUNT_MAX 64

static unsigned dp_flags; /* each test runs with 0 and BURST_LOOKUP */

struct env {
	struct fwd_fib *fib;
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	struct fwd_port *port[3];
	struct fwd_port *port_slot[3]; /* the dp's view (a test empties one) */
	struct fwd_dp dp;
	/* punted packets (copies) */
	unsigned npunt;
	enum fwd_reason punt_why[PUNT_MAX];
	unsigned punt_aux[PUNT_MAX];
	uint16_t punt_len[PUNT_MAX];
	uint8_t punt_frame[PUNT_MAX][128];
	bool refuse;
};

static bool
punt_cb(void *arg, struct fwd_pkt *p, enum fwd_reason why, unsigned aux)
{
	struct env *e = arg;

	if (e->refuse || e->npunt == PUNT_MAX)
		return (false);
	e->punt_why[e->npunt] = why;
	e->punt_aux[e->npunt] = aux;
	e->punt_len[e->npunt] = p->len;
	memcpy(e->punt_frame[e->npunt], p->data, p->len < 128 ? p->len : 128);
	e->npunt++;
	fwd_pkt_release(&p, 1);
	return (true);
}

/*
 * Routes: 198.18.2.0/24 -> adj 1 (gw 198.18.2.254 on port 1, resolved)
 *         198.18.3.0/24 -> adj 2 (gw 198.18.3.254 on port 2, unresolved)
 *         198.18.4.0/24 -> adj 3 (blackhole)
 *         198.18.5.0/24 -> adj 4 (gw on port 2, resolved; port 2 MTU 576)
 *         198.18.6.0/24 -> adj 5 (ECMP of adj 1 and adj 4)
 *         198.18.7.0/24 -> adj 6 (connected on port 2: glean)
 *         198.18.8.8/32 -> adj 7 (local)
 * Local addresses 198.18.1.1, 198.18.2.1. Port 0 receives.
 */
static int
setup(void **st)
{
	struct fwd_fib_conf fc = {.max_nh = 512, .flags = FWD_FIB_F_MARTIAN};
	struct env *e = calloc(1, sizeof(*e));
	static const uint8_t *macs[3] = {mac0, mac1, mac2};
	struct fwd_dp_conf dc;
	uint16_t grp[2] = {1, 4};

	assert_non_null(e);
	e->fib = fwd_fib_new(&fc);
	assert_non_null(e->fib);
	e->adj = fwd_adj_tbl_new(512, 4);
	assert_non_null(e->adj);
	for (unsigned i = 0; i < 3; i++) {
		struct fwd_port_mem_conf pc = {.id = (uint16_t)i,
		    .mtu = i == 2 ? 576 : 1500,
		    .nbufs = 64,
		    .capture = 64};

		memcpy(pc.mac, macs[i], 6);
		e->port[i] = fwd_port_mem_new(&pc);
		assert_non_null(e->port[i]);
		assert_int_equal(fwd_adj_port_set(e->adj, (uint16_t)i, macs[i],
				     pc.mtu, true),
		    0);
	}
	assert_int_equal(fwd_adj_set_nh(e->adj, 1, 1, TF_IP(2, 254), NULL), 0);
	assert_int_equal(fwd_adj_neigh_set(e->adj, 1, TF_IP(2, 254), gw1mac),
	    1);
	assert_int_equal(fwd_adj_set_nh(e->adj, 2, 2, TF_IP(3, 254), NULL), 0);
	assert_int_equal(fwd_adj_set_drop(e->adj, 3), 0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 4, 2, TF_IP(5, 254), gw2mac),
	    0);
	assert_int_equal(fwd_adj_set_group(e->adj, 5, grp, 2), 0);
	assert_int_equal(fwd_adj_set_glean(e->adj, 6, 2), 0);
	assert_int_equal(fwd_adj_set_local(e->adj, 7), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(2, 0), 24, 1), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(3, 0), 24, 2), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(4, 0), 24, 3), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(5, 0), 24, 4), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(6, 0), 24, 5), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(7, 0), 24, 6), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(8, 8), 32, 7), 0);
	assert_int_equal(fwd_local_bind(&e->local, e->fib, 7), 0);
	assert_int_equal(fwd_local_add(&e->local, TF_IP(1, 1)), 0);
	assert_int_equal(fwd_local_add(&e->local, TF_IP(2, 1)), 0);
	assert_int_equal(fwd_local_add(&e->local, TF_IP(2, 1)), -EEXIST);
	memset(&dc, 0, sizeof(dc));
	dc.fib = e->fib;
	dc.adj = e->adj;
	dc.local = &e->local;
	memcpy(e->port_slot, e->port, sizeof(e->port));
	dc.ports = e->port_slot;
	dc.nports = 3;
	dc.punt = punt_cb;
	dc.punt_arg = e;
	dc.flags = dp_flags;
	assert_int_equal(fwd_dp_init(&e->dp, &dc), 0);
	*st = e;
	return (0);
}

static int
teardown(void **st)
{
	struct env *e = *st;

	fwd_dp_fini(&e->dp);
	/* nothing leaked: every receive buffer came back */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(fwd_port_mem_inuse(e->port[i]), 0);
		fwd_port_free(e->port[i]);
	}
	fwd_adj_tbl_free(e->adj);
	fwd_fib_free(e->fib);
	free(e);
	return (0);
}

/* Inject one frame on port 0 and run one poll. */
static void
run1(struct env *e, const uint8_t *f, unsigned len)
{
	assert_int_equal(fwd_port_mem_inject(e->port[0], f, len), 0);
	assert_int_equal(fwd_dp_poll(&e->dp, e->port[0]), 1);
}

static unsigned
udp(uint8_t *f, uint32_t dst, uint8_t ttl, unsigned paylen, uint16_t off)
{
	return (tf_ipv4(f, mac0, hmac, TF_IP(1, 2), dst, ttl, 17, paylen, off));
}

static void
test_forward(void **st)
{
	struct env *e = *st;
	uint8_t f[1600], out[1600], orig[1600];
	unsigned len = udp(f, TF_IP(2, 7), 64, 100, FWD_IP_DF);

	memcpy(orig, f, len);
	run1(e, f, len);
	assert_int_equal(e->dp.st.fwd, 1);
	assert_int_equal(fwd_port_mem_pending(e->port[1]), 1);
	assert_int_equal(fwd_port_mem_take(e->port[1], out, sizeof(out)),
	    (int)len);
	assert_memory_equal(out, gw1mac, 6);   /* neighbour */
	assert_memory_equal(out + 6, mac1, 6); /* egress port */
	assert_int_equal(out[12], 0x08);
	assert_int_equal(out[13], 0x00);
	assert_int_equal(out[14 + FWD_IP_TTL], 63);
	assert_true(fwd_ipv4_cksum_ok(out + 14, 20));
	/* the rest of the packet is untouched */
	assert_memory_equal(out + 14, orig + 14, 8);
	assert_memory_equal(out + 14 + 9, orig + 14 + 9, 1);
	assert_memory_equal(out + 14 + 12, orig + 14 + 12, len - 26);
	assert_int_equal(fwd_port_mem_pending(e->port[0]), 0);
	assert_int_equal(fwd_port_mem_pending(e->port[2]), 0);
	/* TTL 2 still forwards, with TTL 1 */
	len = udp(f, TF_IP(2, 7), 2, 10, 0);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[1], out, sizeof(out)),
	    44); /* 14 + 30: the frame as received */
	assert_int_equal(out[14 + FWD_IP_TTL], 1);
	assert_true(fwd_ipv4_cksum_ok(out + 14, 20));
}

static void
test_burst_mixed(void **st)
{
	struct env *e = *st;
	uint8_t f[200];

	/* 32 packets alternating between two egress ports, in one burst */
	for (unsigned i = 0; i < 32; i++) {
		unsigned len = udp(f,
		    i & 1 ? TF_IP(5, (uint8_t)i) : TF_IP(2, (uint8_t)i), 64, 40,
		    0);

		assert_int_equal(fwd_port_mem_inject(e->port[0], f, len), 0);
	}
	assert_int_equal(fwd_dp_poll(&e->dp, e->port[0]), 32);
	assert_int_equal(fwd_port_mem_pending(e->port[1]), 16);
	assert_int_equal(fwd_port_mem_pending(e->port[2]), 16);
	for (unsigned i = 0; i < 16; i++) {
		uint8_t o[200];

		assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)),
		    74);
		assert_memory_equal(o, gw2mac, 6);
		assert_memory_equal(o + 6, mac2, 6);
		/* order kept within a port */
		assert_int_equal(o[14 + 19], 2 * i + 1);
		assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)),
		    74);
		assert_int_equal(o[14 + 19], 2 * i);
	}
	assert_int_equal(e->dp.st.fwd, 32);
	assert_int_equal(e->dp.st.rx, 32);
}

/* One frame, one expected reason. */
static void
expect(struct env *e, const uint8_t *f, unsigned len, enum fwd_reason r)
{
	uint64_t before = e->dp.st.reason[r], fwd = e->dp.st.fwd;

	run1(e, f, len);
	assert_int_equal(e->dp.st.reason[r], before + 1);
	assert_int_equal(e->dp.st.fwd, fwd);
}

static void
test_drops(void **st)
{
	struct env *e = *st;
	uint8_t f[1600];
	unsigned len;
	uint64_t total = 0;

	len = udp(f, TF_IP(2, 7), 64, 26, 0);
	expect(e, f, 33, FWD_R_SHORT);
	f[12] = 0x86;
	f[13] = 0xdd;
	expect(e, f, len, FWD_R_ETHERTYPE);
	len = udp(f, TF_IP(2, 7), 64, 26, 0);
	f[0] = 0x04;
	expect(e, f, len, FWD_R_L2_DST);
	len = udp(f, TF_IP(2, 7), 64, 26, 0);
	f[14] = 0x65;
	fwd_ipv4_cksum_set(f + 14, 20);
	expect(e, f, len, FWD_R_VERSION);
	f[14] = 0x44;
	expect(e, f, len, FWD_R_IHL);
	len = udp(f, TF_IP(2, 7), 64, 26, 0);
	f[14 + 15] ^= 1;
	expect(e, f, len, FWD_R_CKSUM);
	len = udp(f, TF_IP(2, 7), 64, 26, 0);
	expect(e, f, len - 1, FWD_R_LEN); /* frame cut short */
	len = udp(f, 0xe0000005, 64, 26, 0);
	expect(e, f, len, FWD_R_MARTIAN);
	len = udp(f, TF_IP(4, 1), 64, 26, 0);
	expect(e, f, len, FWD_R_BLACKHOLE);
	len = udp(f, TF_IP(2, 7), 1, 26, 0);
	expect(e, f, len, FWD_R_TTL);
	len = udp(f, TF_IP(2, 7), 0, 26, 0);
	expect(e, f, len, FWD_R_TTL);
	len = udp(f, 0xc6136301, 64, 26, 0); /* 198.19.99.1 */
	expect(e, f, len, FWD_R_NO_ROUTE);
	len = udp(f, TF_IP(3, 9), 64, 26, 0);
	expect(e, f, len, FWD_R_RESOLVE);
	len = udp(f, TF_IP(7, 9), 64, 26, 0);
	expect(e, f, len, FWD_R_RESOLVE);    /* glean */
	len = udp(f, TF_IP(1, 1), 1, 26, 0); /* TTL 1 to us: ours */
	expect(e, f, len, FWD_R_LOCAL);
	len = udp(f, TF_IP(8, 8), 64, 26, 0); /* local via FIB */
	expect(e, f, len, FWD_R_LOCAL);
	len = tf_arp(f, 1, tf_bcast, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	expect(e, f, len, FWD_R_ARP);
	len = udp(f, TF_IP(5, 9), 64, 600, FWD_IP_DF); /* 620 > 576 */
	expect(e, f, len, FWD_R_MTU_DF);
	len = udp(f, TF_IP(5, 9), 64, 600, 0);
	expect(e, f, len, FWD_R_MTU_FRAG);
	len = udp(f, TF_IP(5, 9), 64, 556, FWD_IP_DF); /* exactly 576 */
	run1(e, f, len);
	assert_int_equal(e->dp.st.fwd, 1);

	/* What the slow path got, with which aux. */
	assert_int_equal(e->npunt, 10);
	assert_int_equal(e->punt_why[0], FWD_R_TTL);
	assert_int_equal(e->punt_why[1], FWD_R_TTL);
	assert_int_equal(e->punt_why[2], FWD_R_NO_ROUTE);
	assert_int_equal(e->punt_why[3], FWD_R_RESOLVE);
	assert_int_equal(e->punt_aux[3], 2); /* the adjacency */
	assert_int_equal(e->punt_why[4], FWD_R_RESOLVE);
	assert_int_equal(e->punt_aux[4], 6);
	assert_int_equal(e->punt_why[5], FWD_R_LOCAL);
	assert_int_equal(e->punt_why[6], FWD_R_LOCAL);
	assert_int_equal(e->punt_why[7], FWD_R_ARP);
	assert_int_equal(e->punt_len[7], 42);
	assert_int_equal(e->punt_why[8], FWD_R_MTU_DF);
	assert_int_equal(e->punt_aux[8], 576);
	assert_int_equal(e->punt_why[9], FWD_R_MTU_FRAG);
	assert_int_equal(e->punt_aux[9], 4);
	for (unsigned r = 1; r < FWD_R__COUNT; r++)
		total += e->dp.st.reason[r];
	assert_int_equal(total, 19);
	assert_int_equal(e->dp.st.rx, 20);
	/* punted packets are untouched (TTL not decremented) */
	assert_int_equal(e->punt_frame[3][14 + FWD_IP_TTL], 64);
	assert_string_equal(fwd_reason_str(FWD_R_CKSUM), "ip_cksum");
	assert_string_equal(fwd_reason_str(FWD_R__COUNT), "unknown");
}

/* Link-local multicast on its group MAC goes to the slow path (the host
 * path) as FWD_R_MCAST; other multicast groups stay l2_dst drops, and a
 * group address to our unicast MAC stays martian. */
static void
test_mcast(void **st)
{
	struct env *e = *st;
	static const uint8_t ospf_mac[6] = {0x01, 0x00, 0x5e, 0, 0, 5};
	static const uint8_t glob_mac[6] = {0x01, 0x00, 0x5e, 1, 2, 3};
	uint8_t f[256];
	unsigned len;

	len = tf_ipv4(f, ospf_mac, hmac, TF_IP(1, 2), 0xe0000005u, 1, 89, 40,
	    0);
	expect(e, f, len, FWD_R_MCAST);
	assert_int_equal(e->npunt, 1);
	assert_int_equal(e->punt_why[0], FWD_R_MCAST);
	assert_int_equal(e->punt_len[0], len);
	len = tf_ipv4(f, glob_mac, hmac, TF_IP(1, 2), 0xef010203u, 8, 17, 26,
	    0);
	expect(e, f, len, FWD_R_L2_DST);
	len = tf_ipv4(f, mac0, hmac, TF_IP(1, 2), 0xe0000005u, 1, 89, 40, 0);
	expect(e, f, len, FWD_R_MARTIAN);
	/* ARP on a multicast MAC is not IPv4: not taken as a group */
	len = tf_arp(f, 1, ospf_mac, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	expect(e, f, len, FWD_R_ARP);
	assert_int_equal(e->npunt, 2);
	assert_string_equal(fwd_reason_str(FWD_R_MCAST), "mcast_local");
}

static void
test_punt_refused(void **st)
{
	struct env *e = *st;
	uint8_t f[100];
	unsigned len = udp(f, TF_IP(1, 1), 64, 26, 0);

	e->refuse = true;
	expect(e, f, len, FWD_R_LOCAL);
	assert_int_equal(e->dp.st.punt_refused, 1);
	assert_int_equal(e->npunt, 0);
	/* no slow path at all */
	e->dp.conf.punt = NULL;
	expect(e, f, len, FWD_R_LOCAL);
	assert_int_equal(e->dp.st.punt_refused, 2);
}

static void
test_ecmp(void **st)
{
	struct env *e = *st;
	uint8_t f[100], o[100];
	unsigned n1 = 0, n2 = 0;

	for (unsigned i = 0; i < 64; i++) {
		unsigned len = udp(f, TF_IP(6, (uint8_t)i), 64, 26, 0);

		run1(e, f, len);
	}
	n1 = fwd_port_mem_pending(e->port[1]);
	n2 = fwd_port_mem_pending(e->port[2]);
	assert_int_equal(n1 + n2, 64);
	assert_true(n1 >= 16 && n2 >= 16); /* both members used */
	while (fwd_port_mem_take(e->port[1], o, sizeof(o)) > 0)
		assert_memory_equal(o, gw1mac, 6);
	while (fwd_port_mem_take(e->port[2], o, sizeof(o)) > 0)
		assert_memory_equal(o, gw2mac, 6);
	/* one flow always takes the same member */
	for (unsigned i = 0; i < 8; i++) {
		unsigned len = udp(f, TF_IP(6, 77), 64, 26, 0);

		run1(e, f, len);
	}
	n1 = fwd_port_mem_pending(e->port[1]);
	n2 = fwd_port_mem_pending(e->port[2]);
	assert_true((n1 == 8 && n2 == 0) || (n1 == 0 && n2 == 8));
}

static void
test_changes(void **st)
{
	struct env *e = *st;
	uint8_t f[100], o[100];
	unsigned len = udp(f, TF_IP(2, 7), 64, 26, 0);

	/* port 1 down: counted, then up again: forwarded */
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, false), 0);
	expect(e, f, len, FWD_R_ADJ_DOWN);
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, true), 0);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)), 60);
	/* next-hop change is one adjacency write: adj 1 now via port 2 */
	assert_int_equal(fwd_adj_set_nh(e->adj, 1, 2, TF_IP(5, 254), gw2mac),
	    0);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)), 60);
	assert_memory_equal(o, gw2mac, 6);
	assert_memory_equal(o + 6, mac2, 6);
	/* a /28 inside the /24 (a tbl8 group, resolved off the fast path's
	 * one tbl24 read): its addresses leave by its adjacency (4, port 2),
	 * the rest of the /24 still by adj 1 */
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(2, 0), 28, 4), 0);
	run1(e, f, len); /* 198.18.2.7: in the /28 */
	assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)), 60);
	assert_memory_equal(o, gw2mac, 6);
	{
		uint8_t g[128];
		unsigned gl = udp(g, TF_IP(2, 77), 64, 26, 0);

		run1(e, g, gl); /* 198.18.2.77: the /24's adj 1, port 2 */
		assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)),
		    60);
		assert_memory_equal(o, gw2mac, 6);
		assert_int_equal(fwd_adj_set_nh(e->adj, 1, 1, TF_IP(2, 254),
				     gw1mac),
		    0);
		run1(e, g, gl); /* adj 1 moved back to port 1 */
		assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)),
		    60);
		run1(e, f, len); /* the /28 did not move */
		assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)),
		    60);
		assert_int_equal(fwd_adj_set_nh(e->adj, 1, 2, TF_IP(5, 254),
				     gw2mac),
		    0);
	}
	assert_int_equal(fwd_fib_del(e->fib, TF_IP(2, 0), 28), 0);
	/* neighbour MAC lost: back to resolution */
	assert_int_equal(fwd_adj_neigh_set(e->adj, 2, TF_IP(5, 254), NULL), 2);
	expect(e, f, len, FWD_R_RESOLVE);
	/* FIB change: the /24 removed, a covering /16 to a blackhole */
	assert_int_equal(fwd_fib_del(e->fib, TF_IP(2, 0), 24), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(0, 0), 16, 3), 0);
	expect(e, f, len, FWD_R_BLACKHOLE);
	/* released adjacency */
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(2, 0), 24, 9), 0);
	expect(e, f, len, FWD_R_ADJ_DOWN);
	/* local address removal */
	assert_int_equal(fwd_local_del(&e->local, TF_IP(2, 1)), 0);
	assert_int_equal(fwd_local_del(&e->local, TF_IP(2, 1)), -ENOENT);
	assert_true(fwd_local_has(&e->local, TF_IP(1, 1)));
	assert_false(fwd_local_has(&e->local, TF_IP(2, 1)));
}

/*
 * The fast path tests neither martian nor local destinations: the FIB does
 * (FWD_FIB_F_MARTIAN, pins). More specific routes, a default route and a
 * /32 to the router's own address change nothing; an adjacency of a port
 * the worker does not have is dropped per burst.
 */
static void
test_fib_decides(void **st)
{
	struct env *e = *st;
	uint8_t f[128], o[128];
	unsigned len;
	static const uint32_t martian[] = {0x00010203, 0x7f000001, 0x7fffffff,
	    0xe0000005, 0xefffffff, 0xf0000001, 0xffffffff};

	/* routes over the local 198.18.1.1: a /24, a /30, the /32 itself */
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(1, 0), 24, 1), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(1, 0), 30, 1), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(1, 1), 32, 1), 0);
	len = udp(f, TF_IP(1, 1), 64, 26, 0);
	expect(e, f, len, FWD_R_LOCAL);
	len = udp(f, TF_IP(2, 1), 64, 26, 0); /* the other local one */
	expect(e, f, len, FWD_R_LOCAL);
	/* not ours any more: the /32 forwards it */
	assert_int_equal(fwd_local_del(&e->local, TF_IP(1, 1)), 0);
	len = udp(f, TF_IP(1, 1), 64, 26, 0);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)), 60);
	/* ours again: local again, the /32 kept underneath */
	assert_int_equal(fwd_local_add(&e->local, TF_IP(1, 1)), 0);
	expect(e, f, len, FWD_R_LOCAL);
	/* a default route: martian destinations still dropped as such,
	 * the rest of the unrouted space forwarded */
	assert_int_equal(fwd_fib_add(e->fib, 0, 0, 1), 0);
	for (unsigned k = 0; k < sizeof(martian) / sizeof(martian[0]); k++) {
		len = udp(f, martian[k], 64, 26, 0);
		expect(e, f, len, FWD_R_MARTIAN);
	}
	len = udp(f, 0xc6136301, 64, 26, 0); /* 198.19.99.1 */
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)), 60);
	/* a route to a martian range changes nothing either */
	assert_int_equal(fwd_fib_add(e->fib, 0xe0000000, 4, 1), 0);
	len = udp(f, 0xe0000005, 64, 26, 0);
	expect(e, f, len, FWD_R_MARTIAN);
	/* burst lookups too */
	e->dp.conf.flags = FWD_DP_F_BURST_LOOKUP;
	expect(e, f, len, FWD_R_MARTIAN);
	len = udp(f, TF_IP(1, 1), 64, 26, 0);
	expect(e, f, len, FWD_R_LOCAL);
	e->dp.conf.flags = 0;
	/* an adjacency on port 5, which this worker does not have (3 ports):
	 * queued, then dropped by the flush as adj_down */
	assert_int_equal(fwd_adj_port_set(e->adj, 5, mac2, 1500, true), 0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 20, 5, TF_IP(9, 254), gw1mac),
	    0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(9, 0), 24, 20), 0);
	len = udp(f, TF_IP(9, 9), 64, 26, 0);
	expect(e, f, len, FWD_R_ADJ_DOWN);
	/* and a port slot that is empty */
	e->port_slot[2] = NULL;
	len = udp(f, TF_IP(7, 9), 64, 26, 0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 6, 2, TF_IP(7, 9), gw2mac), 0);
	expect(e, f, len, FWD_R_ADJ_DOWN);
	e->port_slot[2] = e->port[2];
	assert_true(fwd_port_mem_take(e->port[2], o, sizeof(o)) < 0); /* none */
}

/*
 * Next hops the FIB's byte view cannot hold (>= 254) take dp_adj_slow's
 * way through tbl24, alone or under a /25-/32 group; both lookup variants
 * forward them like any other, and fwd_adj_alloc never hands out the two
 * reserved indices.
 */
static void
test_byte_view(void **st)
{
	struct env *e = *st;
	uint8_t f[128], o[128];
	unsigned len;
	int idx;

	assert_int_equal(fwd_adj_set_nh(e->adj, 300, 1, TF_IP(2, 254), gw1mac),
	    0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 301, 2, TF_IP(5, 254), gw2mac),
	    0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 253, 2, TF_IP(5, 254), gw2mac),
	    0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(10, 0), 24, 300), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(11, 0), 24, 253), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(11, 128), 25, 301), 0);
	for (unsigned v = 0; v < 2; v++) {
		e->dp.conf.flags = v ? FWD_DP_F_BURST_LOOKUP : 0;
		len = udp(f, TF_IP(10, 9), 64, 26, 0);
		run1(e, f, len);
		assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)),
		    60);
		assert_memory_equal(o, gw1mac, 6);
		len = udp(f, TF_IP(11, 9), 64, 26, 0); /* 253: direct */
		run1(e, f, len);
		assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)),
		    60);
		assert_memory_equal(o, gw2mac, 6);
		len = udp(f, TF_IP(11, 200), 64, 26, 0); /* the /25 */
		run1(e, f, len);
		assert_int_equal(fwd_port_mem_take(e->port[2], o, sizeof(o)),
		    60);
		/* no route under the byte view's NONE */
		len = udp(f, TF_IP(12, 1), 64, 26, 0);
		expect(e, f, len, FWD_R_NO_ROUTE);
	}
	e->dp.conf.flags = 0;
	assert_int_equal(e->dp.st.fwd, 6);
	/* allocations go lowest first and skip 254 and 255 */
	{
		int prev = -1;

		while ((idx = fwd_adj_alloc(e->adj)) >= 0) {
			assert_true(!fwd_adj_reserved((unsigned)idx));
			assert_true(idx > prev);
			prev = idx;
		}
	}
	assert_int_equal(e->adj->ent[FWD_FIB_B_ESC].action, FWD_ADJ_A_UNSET);
	assert_int_equal(e->adj->ent[FWD_FIB_NH_NONE].action, FWD_ADJ_A_UNSET);
	/* an index released is the next one given, however high the last
	 * was: next hops stay where the byte view holds them */
	fwd_adj_release(e->adj, 40);
	fwd_adj_release(e->adj, 12);
	assert_int_equal(fwd_adj_alloc(e->adj), 12);
	assert_int_equal(fwd_adj_alloc(e->adj), 40);
	assert_int_equal(fwd_adj_alloc(e->adj), -ENOSPC);
}

static void
test_api_errors(void **st)
{
	struct env *e = *st;
	struct fwd_dp dp;
	struct fwd_dp_conf c = {0};
	uint16_t m[2] = {3, 7}; /* drop and local are not members */
	struct fwd_dp_stats sum = {0};

	assert_int_equal(fwd_dp_init(&dp, &c), -EINVAL);
	/* an adjacency table larger than the FIB's next-hop space would let
	 * a tbl8 group id reach a real adjacency: refused */
	{
		struct fwd_fib_conf fc = {.max_nh = 128};
		struct fwd_fib *small = fwd_fib_new(&fc);

		assert_non_null(small);
		c = e->dp.conf;
		c.fib = small;
		assert_int_equal(fwd_dp_init(&dp, &c), -EINVAL);
		fwd_fib_free(small);
		memset(&c, 0, sizeof(c));
	}
	/* a FIB without the martian ranges, or local addresses not pinned
	 * in this FIB: the fast path would forward what it must not */
	{
		struct fwd_fib_conf fc = {.max_nh = 256};
		struct fwd_fib *plain = fwd_fib_new(&fc);
		struct fwd_local loose = {0};

		assert_non_null(plain);
		c = e->dp.conf;
		c.fib = plain;
		assert_int_equal(fwd_dp_init(&dp, &c), -EINVAL);
		c = e->dp.conf;
		c.local = &loose;
		assert_int_equal(fwd_dp_init(&dp, &c), -EINVAL);
		fwd_fib_free(plain);
		memset(&c, 0, sizeof(c));
	}
	assert_int_equal(fwd_adj_set_group(e->adj, 10, m, 2), -EINVAL);
	assert_int_equal(fwd_adj_set_group(e->adj, 10, m, 0), -EINVAL);
	assert_int_equal(fwd_adj_set_nh(e->adj, 512, 0, 1, NULL), -EINVAL);
	/* the FIB byte view's special values are never adjacencies */
	assert_int_equal(fwd_adj_set_nh(e->adj, FWD_FIB_B_ESC, 0, 1, NULL),
	    -EINVAL);
	assert_int_equal(fwd_adj_set_drop(e->adj, FWD_FIB_NH_NONE), -EINVAL);
	assert_int_equal(fwd_adj_set_group(e->adj, FWD_FIB_B_ESC, m, 2),
	    -EINVAL);
	assert_int_equal(fwd_adj_set_nh(e->adj, 1, FWD_PORT_MAX, 1, NULL),
	    -EINVAL);
	assert_int_equal(fwd_adj_port_set(e->adj, 0, mac0, 10, true), -EINVAL);
	assert_null(fwd_adj_tbl_new(0, 0));
	assert_null(fwd_adj_tbl_new(0x10000, 0));
	fwd_dp_stats_sum(&sum, &e->dp);
	fwd_dp_stats_sum(&sum, &e->dp);
	assert_int_equal(sum.rx, 2 * e->dp.st.rx);
}

/* RFC 1812 5.3.7: a martian source is never forwarded, nor taken as for
 * the router: dropped and counted (martian_src), in the quick test's one
 * TTL-floor lookup; the first octets around them forward. */
static void
test_martian_src(void **st)
{
	struct env *e = *st;
	static const uint32_t bad[] = {0x7f000001u, 0x00000000u, 0xe0000001u,
	    0xffffffffu, 0xf0000001u, 0x00ffffffu, 0x7fffffffu, 0xefffffffu};
	static const uint32_t good[] = {0x01000001u, 0x7effffffu, 0x80000001u,
	    0xdfffffffu};
	uint8_t f[100], o[100];
	unsigned len;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = tf_ipv4(f, mac0, hmac, bad[i], TF_IP(2, 7), 64, 17, 26,
		    0);
		expect(e, f, len, FWD_R_MARTIAN_SRC);
		/* to the router's own address too, and with TTL 255 */
		len = tf_ipv4(f, mac0, hmac, bad[i], TF_IP(1, 1), 255, 17, 26,
		    0);
		expect(e, f, len, FWD_R_MARTIAN_SRC);
	}
	assert_int_equal(e->dp.st.reason[FWD_R_MARTIAN_SRC], 16);
	assert_int_equal(e->dp.st.reason[FWD_R_MARTIAN], 0);
	assert_int_equal(e->npunt, 0); /* no ICMP about them */
	for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		len = tf_ipv4(f, mac0, hmac, good[i], TF_IP(2, 7), 64, 17, 26,
		    0);
		run1(e, f, len);
		assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)),
		    (int)len);
		assert_int_equal(o[14 + FWD_IP_TTL], 63);
	}
	/* a martian destination stays martian */
	len = tf_ipv4(f, mac0, hmac, 0x7f000001u, 0xe0000001u, 64, 17, 26, 0);
	expect(e, f, len, FWD_R_MARTIAN);
	for (unsigned s = 0; s < 256; s++)
		assert_int_equal(fwd_ttl_floor[s] > 1,
		    fwd_ipv4_src_martian(s << 24));
	assert_string_equal(fwd_reason_str(FWD_R_MARTIAN_SRC), "martian_src");
}

/* A UDP datagram to dst with the IP options opt (nopt bytes, padded). */
static unsigned
udp_opt(uint8_t *f, uint32_t dst, uint8_t ttl, const uint8_t *opt,
    unsigned nopt)
{
	unsigned olen = (nopt + 3) & ~3u, len;
	uint8_t *ip = f + FWD_ETH_HLEN;

	len = tf_ipv4(f, mac0, hmac, TF_IP(1, 2), dst, ttl, 17, 26 + olen, 0);
	memmove(ip + FWD_IPV4_HLEN + olen, ip + FWD_IPV4_HLEN, 26);
	memset(ip + FWD_IPV4_HLEN, 0, olen);
	memcpy(ip + FWD_IPV4_HLEN, opt, nopt);
	ip[FWD_IP_VHL] = (uint8_t)(0x45 + olen / 4);
	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN + olen);
	return (len);
}

/*
 * IP options leave the quick test for the classifier: Record Route gets
 * the egress port's address (the ECMP member's, the unresolved one's),
 * the checksum is right; a malformed option goes to the slow path as
 * ip_options with the pointer, unchanged; no route, a blackhole and TTL 1
 * keep their own verdicts.
 */
static void
test_options(void **st)
{
	struct env *e = *st;
	static const uint8_t rr[] = {FWD_IPOPT_RR, 7, 4, 0, 0, 0, 0};
	static const uint8_t rr_bad[] = {FWD_IPOPT_RR, 7, 3, 0, 0, 0, 0};
	uint8_t f[200], o[200], orig[200];
	unsigned len, n;

	fwd_adj_port_addr_set(e->adj, 1, htonl(TF_IP(2, 1)));
	fwd_adj_port_addr_set(e->adj, 2, htonl(TF_IP(5, 1)));
	len = udp_opt(f, TF_IP(2, 7), 64, rr, sizeof(rr));
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[1], o, sizeof(o)), (int)len);
	assert_int_equal(o[14], 0x47);
	assert_int_equal(o[14 + 22], 8);
	assert_int_equal(ntohl(fwd_ld32(o + 14 + 23)), TF_IP(2, 1));
	assert_int_equal(o[14 + FWD_IP_TTL], 63);
	assert_true(fwd_ipv4_cksum_ok(o + 14, 28));
	assert_memory_equal(o + 14 + 28, f + 14 + 28, 26); /* payload */
	/* each ECMP member records its own port's address */
	for (unsigned i = 0; i < 16; i++) {
		len = udp_opt(f, TF_IP(6, (uint8_t)i), 64, rr, sizeof(rr));
		run1(e, f, len);
	}
	for (unsigned p = 1; p <= 2; p++)
		while (fwd_port_mem_take(e->port[p], o, sizeof(o)) > 0) {
			assert_int_equal(ntohl(fwd_ld32(o + 14 + 23)),
			    p == 1 ? TF_IP(2, 1) : TF_IP(5, 1));
			assert_true(fwd_ipv4_cksum_ok(o + 14, 28));
		}
	/* unresolved: to ARP's queue already filled in */
	len = udp_opt(f, TF_IP(3, 9), 64, rr, sizeof(rr));
	expect(e, f, len, FWD_R_RESOLVE);
	n = e->npunt - 1;
	assert_int_equal(ntohl(fwd_ld32(e->punt_frame[n] + 14 + 23)),
	    TF_IP(5, 1));
	assert_true(fwd_ipv4_cksum_ok(e->punt_frame[n] + 14, 28));
	/* malformed: parameter problem, pointer 22, the frame as it came */
	len = udp_opt(f, TF_IP(2, 7), 64, rr_bad, sizeof(rr_bad));
	memcpy(orig, f, len);
	expect(e, f, len, FWD_R_IP_OPT);
	n = e->npunt - 1;
	assert_int_equal(e->punt_why[n], FWD_R_IP_OPT);
	assert_int_equal(e->punt_aux[n], 22);
	assert_memory_equal(e->punt_frame[n], orig, len);
	/* other verdicts first */
	len = udp_opt(f, 0xc6136301, 64, rr_bad, sizeof(rr_bad));
	expect(e, f, len, FWD_R_NO_ROUTE);
	len = udp_opt(f, TF_IP(4, 1), 64, rr_bad, sizeof(rr_bad));
	expect(e, f, len, FWD_R_BLACKHOLE);
	len = udp_opt(f, TF_IP(2, 7), 1, rr, sizeof(rr));
	expect(e, f, len, FWD_R_TTL);
	assert_int_equal(e->dp.st.reason[FWD_R_IP_OPT], 1);
	assert_string_equal(fwd_reason_str(FWD_R_IP_OPT), "ip_options");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_forward, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_byte_view, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_burst_mixed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mcast, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_punt_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ecmp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_changes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fib_decides, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_api_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_martian_src, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_options, setup, teardown),
	};
	int rv;

	dp_flags = 0;
	rv = cmocka_run_group_tests_name("per-packet lookup", tests, NULL,
	    NULL);
	dp_flags = FWD_DP_F_BURST_LOOKUP;
	rv |= cmocka_run_group_tests_name("burst lookup", tests, NULL, NULL);
	return (rv);
}
