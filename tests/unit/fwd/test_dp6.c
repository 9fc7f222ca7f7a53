/* tests/unit/fwd/test_dp6.c: IPv6 through the fast path over in-memory ports
 * with a real FIB6: IPv6 adjacencies, egress, MACs and type, hop limit, MTU,
 * and every drop counted by reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_adj.h"
#include "fwd/fwd_dp.h"
#include "fwd/fwd_pkt6.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 0x10};
static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t gw1mac[6] = {0x02, 0, 0, 0, 1, 0xfe};
static const uint8_t gw2mac[6] = {0x02, 0, 0, 0, 2, 0xfe};
static const uint8_t mac2[6] = {0x02, 0, 0, 0, 0, 0x12};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99}; /* sender */

/* IPv6 adjacencies: their own gateway, type 0x86dd, and neighbour updates
 * that touch only the family and address they name. */
static void
test_adj6(void **st)
{
	struct fwd_adj_tbl *t = fwd_adj_tbl_new(64, 2);
	uint8_t gw[16], gw2[16];
	uint16_t m[2] = {1, 3};

	(void)st;
	assert_non_null(t);
	tf_ip6(gw, 1, 0xfe);
	tf_ip6(gw2, 2, 0xfe);
	assert_int_equal(fwd_adj_port_set(t, 0, mac0, 1500, true), 0);
	assert_int_equal(fwd_adj_port_set(t, 1, mac1, 1400, true), 0);
	assert_int_equal(fwd_adj_set_nh6(t, 1, 1, gw, NULL), 0);
	assert_int_equal(fwd_adj_set_nh(t, 2, 1, 0xfe, NULL), 0);
	assert_int_equal(fwd_adj_set_glean6(t, 3, 0), 0);
	assert_int_equal(fwd_adj_set_nh6(t, 4, 1, gw2, gw2mac), 0);
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[1].fmtu, 0);
	assert_int_equal(t->ent[1].eth[12], 0x86);
	assert_int_equal(t->ent[1].eth[13], 0xdd);
	assert_int_equal(t->ent[2].eth[12], 0x08);
	assert_int_equal(t->ent[3].eth[12], 0x86);
	assert_int_equal(t->ent[3].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[4].action, FWD_ADJ_A_FORWARD);
	assert_int_equal(t->ent[4].fmtu, 1400);
	assert_memory_equal(t->ent[4].eth, gw2mac, 6);
	assert_memory_equal(t->ent[4].eth + 6, mac1, 6);
	assert_true(fwd_adj_is_v6(t, 1) && !fwd_adj_is_v6(t, 2));
	assert_memory_equal(fwd_adj_gw6(t, 1), gw, 16);
	assert_null(fwd_adj_gw6(t, 3)); /* glean: no gateway */
	assert_null(fwd_adj_gw6(t, 2));
	/* an IPv4 neighbour never resolves an IPv6 adjacency, nor the other
	 * way round, nor another port's */
	assert_int_equal(fwd_adj_neigh_set(t, 1, 0, gw1mac), 0);
	assert_int_equal(fwd_adj_neigh_set6(t, 0, gw, gw1mac), 0);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw1mac), 1);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw1mac), 0); /* same */
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(t->ent[1].eth, gw1mac, 6);
	assert_int_equal(t->ent[2].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(fwd_adj_neigh_set(t, 1, 0xfe, gw1mac), 1);
	assert_int_equal(t->ent[1].eth[12], 0x86); /* kept by the v4 update */
	/* an MTU change rebuilds v6 entries with their type */
	assert_int_equal(fwd_adj_port_set(t, 1, mac1, 1280, true), 0);
	assert_int_equal(t->ent[1].fmtu, 1280);
	assert_int_equal(t->ent[1].eth[13], 0xdd);
	assert_int_equal(t->ent[2].eth[13], 0x00);
	/* invalidated */
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, NULL), 1);
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[1].fmtu, 0);
	/* an ECMP group of IPv6 members */
	assert_int_equal(fwd_adj_set_group(t, 5, m, 2), 0);
	/* reuse as IPv4 forgets the IPv6 gateway */
	assert_int_equal(fwd_adj_set_nh(t, 1, 1, 0xfe, gw1mac), 0);
	assert_false(fwd_adj_is_v6(t, 1));
	assert_int_equal(t->ent[1].eth[12], 0x08);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw2mac), 0);
	fwd_adj_release(t, 4);
	assert_false(fwd_adj_is_v6(t, 4));
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw2, gw1mac), 0);
	/* bad input */
	assert_int_equal(fwd_adj_set_nh6(t, 64, 1, gw, NULL), -EINVAL);
	assert_int_equal(fwd_adj_set_nh6(t, 6, FWD_PORT_MAX, gw, NULL),
	    -EINVAL);
	assert_int_equal(fwd_adj_set_nh6(t, 6, 1, NULL, NULL), -EINVAL);
	assert_int_equal(fwd_adj_set_glean6(t, FWD_FIB_B_ESC, 1), -EINVAL);
	assert_false(fwd_adj_is_v6(t, 6));
	assert_int_equal(fwd_adj_neigh_set6(t, 1, NULL, gw1mac), 0);
	fwd_adj_tbl_free(t);
}

/* ---- the fast path ---- */

#define PUNT_MAX 16

static unsigned dp_flags; /* each test runs with 0 and BURST_LOOKUP */

struct env {
	struct fwd_fib *fib;
	struct fwd_fib6 *fib6;
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	struct fwd_port *port[3];
	struct fwd_dp dp;
	unsigned npunt;
	enum fwd_reason punt_why[PUNT_MAX];
	unsigned punt_aux[PUNT_MAX];
};

static bool
punt_cb(void *arg, struct fwd_pkt *p, enum fwd_reason why, unsigned aux)
{
	struct env *e = arg;

	if (e->npunt == PUNT_MAX)
		return (false);
	e->punt_why[e->npunt] = why;
	e->punt_aux[e->npunt] = aux;
	e->npunt++;
	fwd_pkt_release(&p, 1);
	return (true);
}

/* 2001:2:0:x::/56 */
static void
route6(struct env *e, uint16_t x, unsigned nh)
{
	uint8_t p[16];

	tf_ip6(p, x, 0);
	assert_int_equal(fwd_fib6_add(e->fib6, p, 56, nh), 0);
}

/*
 * IPv6 routes: 2001:2:0:200::/56 -> adj 1 (gw 2001:2:0:200::fe on port 1,
 *              resolved)
 *              2001:2:0:300::/56 -> adj 2 (on port 2, unresolved)
 *              2001:2:0:400::/56 -> adj 3 (blackhole)
 *              2001:2:0:500::/56 -> adj 4 (on port 2, resolved; MTU 1280)
 *              2001:2:0:600::/56 -> adj 5 (ECMP of adj 1 and 4)
 *              2001:2:0:700::/56 -> adj 6 (connected on port 2: glean)
 *              2001:2:0:800::/56 -> adj 8 (reject)
 * Local (adj 7): 2001:2:0:100::1 and fe80::1. IPv4: 198.18.2.0/24 -> adj 9
 * (gw on port 1). Port 0 receives.
 */
static int
setup(void **st)
{
	struct fwd_fib_conf fc = {.max_nh = 512, .flags = FWD_FIB_F_MARTIAN};
	struct fwd_fib6_conf fc6 = {.max_nh = 512, .max_tbl8 = 256};
	struct env *e = calloc(1, sizeof(*e));
	static const uint8_t *macs[3] = {mac0, mac1, mac2};
	struct fwd_dp_conf dc;
	uint16_t grp[2] = {1, 4};
	uint8_t a[16];

	assert_non_null(e);
	assert_non_null(e->fib = fwd_fib_new(&fc));
	fc6.qsbr = fwd_fib_qsbr(e->fib);
	assert_non_null(e->fib6 = fwd_fib6_new(&fc6));
	assert_non_null(e->adj = fwd_adj_tbl_new(512, 4));
	for (unsigned i = 0; i < 3; i++) {
		struct fwd_port_mem_conf pc = {.id = (uint16_t)i,
		    .mtu = i == 2 ? 1280 : 1500,
		    .nbufs = 64,
		    .capture = 64};

		memcpy(pc.mac, macs[i], 6);
		assert_non_null(e->port[i] = fwd_port_mem_new(&pc));
		assert_int_equal(fwd_adj_port_set(e->adj, (uint16_t)i, macs[i],
				     pc.mtu, true),
		    0);
	}
	tf_ip6(a, 0x200, 0xfe);
	assert_int_equal(fwd_adj_set_nh6(e->adj, 1, 1, a, gw1mac), 0);
	tf_ip6(a, 0x300, 0xfe);
	assert_int_equal(fwd_adj_set_nh6(e->adj, 2, 2, a, NULL), 0);
	assert_int_equal(fwd_adj_set_drop(e->adj, 3), 0);
	tf_ip6(a, 0x500, 0xfe);
	assert_int_equal(fwd_adj_set_nh6(e->adj, 4, 2, a, gw2mac), 0);
	assert_int_equal(fwd_adj_set_group(e->adj, 5, grp, 2), 0);
	assert_int_equal(fwd_adj_set_glean6(e->adj, 6, 2), 0);
	assert_int_equal(fwd_adj_set_local(e->adj, 7), 0);
	assert_int_equal(fwd_adj_set_reject(e->adj, 8), 0);
	assert_int_equal(fwd_adj_set_nh(e->adj, 9, 1, TF_IP(2, 254), gw1mac),
	    0);
	route6(e, 0x200, 1);
	route6(e, 0x300, 2);
	route6(e, 0x400, 3);
	route6(e, 0x500, 4);
	route6(e, 0x600, 5);
	route6(e, 0x700, 6);
	route6(e, 0x800, 8);
	tf_ip6(a, 0x100, 1);
	assert_int_equal(fwd_fib6_add(e->fib6, a, 128, 7), 0);
	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[15] = 1;
	assert_int_equal(fwd_fib6_add(e->fib6, a, 128, 7), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(2, 0), 24, 9), 0);
	assert_int_equal(fwd_local_bind(&e->local, e->fib, 7), 0);
	memset(&dc, 0, sizeof(dc));
	dc.fib = e->fib;
	dc.fib6 = e->fib6;
	dc.adj = e->adj;
	dc.local = &e->local;
	dc.ports = e->port;
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
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(fwd_port_mem_inuse(e->port[i]), 0);
		fwd_port_free(e->port[i]);
	}
	fwd_adj_tbl_free(e->adj);
	fwd_fib6_free(e->fib6);
	fwd_fib_free(e->fib);
	free(e);
	return (0);
}

static int
setup_burst(void **st)
{
	dp_flags = FWD_DP_F_BURST_LOOKUP;
	return (setup(st));
}

static int
teardown_burst(void **st)
{
	dp_flags = 0;
	return (teardown(st));
}

static void
run1(struct env *e, const uint8_t *f, unsigned len)
{
	assert_int_equal(fwd_port_mem_inject(e->port[0], f, len), 0);
	assert_int_equal(fwd_dp_poll(&e->dp, e->port[0]), 1);
}

/* A UDP-ish packet from 2001:2:0:100::9 to 2001:2:0:x::y. */
static unsigned
pkt6(uint8_t *f, uint16_t x, uint16_t y, uint8_t hlim, unsigned paylen)
{
	uint8_t s[16], d[16];

	tf_ip6(s, 0x100, 9);
	tf_ip6(d, x, y);
	return (tf_ipv6(f, mac0, hmac, s, d, hlim, 17, paylen));
}

static void
test_forward6(void **st)
{
	struct env *e = *st;
	uint8_t f[1600], out[1600], orig[1600];
	unsigned len = pkt6(f, 0x200, 7, 64, 100);

	memcpy(orig, f, len);
	run1(e, f, len);
	assert_int_equal(e->dp.st.fwd, 1);
	assert_int_equal(fwd_port_mem_take(e->port[1], out, sizeof(out)),
	    (int)len);
	assert_memory_equal(out, gw1mac, 6);
	assert_memory_equal(out + 6, mac1, 6);
	assert_int_equal(out[12], 0x86);
	assert_int_equal(out[13], 0xdd);
	assert_int_equal(out[14 + FWD_IP6_HLIM], 63);
	/* nothing else changed */
	assert_memory_equal(out + 14, orig + 14, FWD_IP6_HLIM);
	assert_memory_equal(out + 14 + 8, orig + 14 + 8, len - 22);
	/* hop limit 2 forwards with 1; an IPv4 packet in the same burst
	 * still takes its own way */
	len = pkt6(f, 0x200, 7, 2, 10);
	assert_int_equal(fwd_port_mem_inject(e->port[0], f, len), 0);
	len = tf_ipv4(f, mac0, hmac, TF_IP(1, 2), TF_IP(2, 7), 64, 17, 30, 0);
	assert_int_equal(fwd_port_mem_inject(e->port[0], f, len), 0);
	assert_int_equal(fwd_dp_poll(&e->dp, e->port[0]), 2);
	assert_int_equal(fwd_port_mem_take(e->port[1], out, sizeof(out)),
	    14 + 40 + 10);
	assert_int_equal(out[14 + FWD_IP6_HLIM], 1);
	assert_int_equal(fwd_port_mem_take(e->port[1], out, sizeof(out)),
	    (int)len);
	assert_int_equal(out[12], 0x08);
	assert_int_equal(out[14 + FWD_IP_TTL], 63);
	/* exactly the egress MTU (1280 on port 2) forwards */
	len = pkt6(f, 0x500, 1, 64, 1280 - 40);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[2], out, sizeof(out)),
	    (int)len);
	assert_memory_equal(out, gw2mac, 6);
	/* ECMP: flows spread over both members, each flow on one */
	{
		unsigned n1 = 0, n2 = 0;

		for (unsigned i = 0; i < 32; i++) {
			len = pkt6(f, 0x600, (uint16_t)(i + 1), 64, 20);
			run1(e, f, len);
			n1 += fwd_port_mem_pending(e->port[1]);
			n2 += fwd_port_mem_pending(e->port[2]);
			while (
			    fwd_port_mem_take(e->port[1], out, sizeof(out)) > 0)
				;
			while (
			    fwd_port_mem_take(e->port[2], out, sizeof(out)) > 0)
				;
		}
		assert_int_equal(n1 + n2, 32);
		assert_true(n1 > 0 && n2 > 0);
	}
	assert_int_equal(e->npunt, 0);
}

/* One frame, one expected reason (and a punt when it is a slow one). */
static void
expect6(struct env *e, const uint8_t *f, unsigned len, enum fwd_reason r,
    unsigned aux)
{
	uint64_t before = e->dp.st.reason[r], fwd = e->dp.st.fwd;
	unsigned np = e->npunt;

	run1(e, f, len);
	assert_int_equal(e->dp.st.reason[r], before + 1);
	assert_int_equal(e->dp.st.fwd, fwd);
	if (fwd_reason_is_slow(r)) {
		assert_int_equal(e->npunt, np + 1);
		assert_int_equal(e->punt_why[np], r);
		assert_int_equal(e->punt_aux[np], aux);
		e->npunt = 0;
	} else
		assert_int_equal(e->npunt, np);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(fwd_port_mem_pending(e->port[i]), 0);
}

static void
test_drops6(void **st)
{
	struct env *e = *st;
	uint8_t f[1600], a[16];
	unsigned len;

	/* the slow ones */
	len = pkt6(f, 0x200, 7, 1, 20);
	expect6(e, f, len, FWD_R_IP6_HLIM, 0);
	len = pkt6(f, 0x200, 7, 0, 20);
	expect6(e, f, len, FWD_R_IP6_HLIM, 0);
	len = pkt6(f, 0x100, 1, 64, 20); /* ours */
	expect6(e, f, len, FWD_R_LOCAL, 7);
	len = pkt6(f, 0x100, 1, 1, 20); /* ours, hop limit 1: taken */
	expect6(e, f, len, FWD_R_LOCAL, 0);
	len = pkt6(f, 0x900, 1, 64, 20);
	expect6(e, f, len, FWD_R_NO_ROUTE, 0);
	len = pkt6(f, 0x300, 1, 64, 20);
	expect6(e, f, len, FWD_R_RESOLVE, 2);
	len = pkt6(f, 0x700, 1, 64, 20);
	expect6(e, f, len, FWD_R_RESOLVE, 6);
	len = pkt6(f, 0x800, 1, 64, 20);
	expect6(e, f, len, FWD_R_REJECT, 8);
	len = pkt6(f, 0x500, 1, 64, 1280 - 40 + 1); /* one byte over */
	expect6(e, f, len, FWD_R_MTU_DF, 1280);
	/* never fragmented, whatever the size */
	len = pkt6(f, 0x500, 1, 64, 1400);
	expect6(e, f, len, FWD_R_MTU_DF, 1280);
	/* link-scope multicast to its group MAC: ND's */
	len = pkt6(f, 0x200, 7, 255, 24);
	memset(f + 14 + 24, 0, 16);
	f[14 + 24] = 0xff;
	f[14 + 25] = 0x02;
	f[14 + 24 + 11] = 0x01;
	f[14 + 24 + 12] = 0xff;
	f[14 + 24 + 15] = 0x07;
	memcpy(f, (const uint8_t[]){0x33, 0x33, 0xff, 0, 0, 0x07}, 6);
	expect6(e, f, len, FWD_R_IP6_MCAST, 0);
	/* link-local: ours taken, another dropped */
	len = pkt6(f, 0x200, 7, 255, 24);
	memset(f + 14 + 24, 0, 16);
	f[14 + 24] = 0xfe;
	f[14 + 25] = 0x80;
	f[14 + 39] = 0x01;
	expect6(e, f, len, FWD_R_LOCAL, 0);
	f[14 + 39] = 0x02;
	expect6(e, f, len, FWD_R_IP6_LINK_LOCAL, 0);
	len = pkt6(f, 0x200, 7, 64, 24); /* a link-local source */
	memset(f + 14 + 8, 0, 16);
	f[14 + 8] = 0xfe;
	f[14 + 9] = 0x80;
	f[14 + 23] = 0x05;
	expect6(e, f, len, FWD_R_IP6_LINK_LOCAL, 0);
	/* the drops */
	len = pkt6(f, 0x400, 1, 64, 20);
	expect6(e, f, len, FWD_R_BLACKHOLE, 0);
	expect6(e, f, 50, FWD_R_IP6_SHORT, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	f[14] = 0x50;
	expect6(e, f, len, FWD_R_IP6_VERSION, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	expect6(e, f, len - 1, FWD_R_IP6_LEN, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	f[0] = 0x04;
	expect6(e, f, len, FWD_R_L2_DST, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	memset(f + 14 + 24, 0, 16);
	f[14 + 39] = 1; /* ::1 */
	expect6(e, f, len, FWD_R_IP6_MARTIAN, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	memset(f + 14 + 24, 0, 10);
	f[14 + 34] = 0xff; /* ::ffff:a.b.c.d */
	f[14 + 35] = 0xff;
	expect6(e, f, len, FWD_R_IP6_MARTIAN, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	memset(f + 14 + 24, 0, 16);
	f[14 + 24] = 0xff;
	f[14 + 25] = 0x0e; /* global multicast, unicast MAC */
	expect6(e, f, len, FWD_R_IP6_MARTIAN, 0);
	len = pkt6(f, 0x200, 7, 64, 20);
	memset(f + 14 + 8, 0, 16); /* source :: */
	expect6(e, f, len, FWD_R_IP6_MARTIAN_SRC, 0);
	/* extension headers: Destination Options then Hop-by-Hop: not
	 * first; a header past the payload */
	len = pkt6(f, 0x200, 7, 64, 24);
	f[14 + 6] = FWD_IP6_NH_DSTOPTS;
	memset(f + 14 + 40, 0, 16);
	f[14 + 40] = FWD_IP6_NH_HOPOPTS;
	f[14 + 48] = 17;
	expect6(e, f, len, FWD_R_IP6_HBH_POS, 0);
	len = pkt6(f, 0x200, 7, 64, 8);
	f[14 + 6] = FWD_IP6_NH_ROUTING;
	f[14 + 40] = 17;
	f[14 + 41] = 1; /* 16 bytes: past the 8 of payload */
	expect6(e, f, len, FWD_R_IP6_EXT, 0);
	/* no IPv6 FIB: not routed at all */
	{
		const struct fwd_fib6 *f6 = e->dp.conf.fib6;

		e->dp.conf.fib6 = NULL;
		len = pkt6(f, 0x200, 7, 64, 20);
		expect6(e, f, len, FWD_R_ETHERTYPE, 0);
		e->dp.conf.fib6 = f6;
	}
	/* and the good ones still go */
	len = pkt6(f, 0x200, 7, 64, 20);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_pending(e->port[1]), 1);
	assert_true(fwd_port_mem_take(e->port[1], f, sizeof(f)) > 0);
	{
		/* every IPv6 reason has a name (QUERY_DROPS, metrics) */
		for (unsigned r = FWD_R_IP6_SHORT; r <= FWD_R_IP6_MCAST; r++)
			assert_string_not_equal(fwd_reason_str(r), "unknown");
	}
	(void)a;
}

/* Extension headers the router does not need to look at are forwarded as
 * they are: Hop-by-Hop first (RFC 8200 4), a fragment, Destination
 * Options, Routing with segments left. */
static void
test_ext_forward6(void **st)
{
	struct env *e = *st;
	static const uint8_t nhs[] = {FWD_IP6_NH_HOPOPTS, FWD_IP6_NH_FRAGMENT,
	    FWD_IP6_NH_DSTOPTS, FWD_IP6_NH_ROUTING};
	uint8_t f[200], out[200];

	for (unsigned i = 0; i < sizeof(nhs); i++) {
		unsigned len = pkt6(f, 0x200, 7, 64, 24);

		f[14 + 6] = nhs[i];
		memset(f + 14 + 40, 0, 8);
		f[14 + 40] = 17;
		if (nhs[i] == FWD_IP6_NH_ROUTING)
			f[14 + 43] = 1; /* segments left */
		run1(e, f, len);
		assert_int_equal(fwd_port_mem_take(e->port[1], out,
				     sizeof(out)),
		    (int)len);
		assert_int_equal(out[14 + FWD_IP6_HLIM], 63);
		assert_int_equal(out[14 + 6], nhs[i]);
	}
	assert_int_equal(e->dp.st.fwd, sizeof(nhs));
	assert_int_equal(e->npunt, 0);
}

/* A neighbour resolved later makes the next packet go; one invalidated
 * sends them to the slow path again. */
static void
test_resolve6(void **st)
{
	struct env *e = *st;
	uint8_t f[200], out[200], gw[16];
	unsigned len = pkt6(f, 0x300, 1, 64, 20);

	tf_ip6(gw, 0x300, 0xfe);
	expect6(e, f, len, FWD_R_RESOLVE, 2);
	assert_int_equal(fwd_adj_neigh_set6(e->adj, 2, gw, gw2mac), 1);
	run1(e, f, len);
	assert_int_equal(fwd_port_mem_take(e->port[2], out, sizeof(out)),
	    (int)len);
	assert_memory_equal(out, gw2mac, 6);
	assert_int_equal(out[12], 0x86);
	assert_int_equal(fwd_adj_neigh_set6(e->adj, 2, gw, NULL), 1);
	expect6(e, f, len, FWD_R_RESOLVE, 2);
	/* the port down: the adjacency is down */
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, false), 0);
	len = pkt6(f, 0x200, 1, 64, 20);
	expect6(e, f, len, FWD_R_ADJ_DOWN, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adj6),
#define T(f)                                                 \
	cmocka_unit_test_setup_teardown(f, setup, teardown), \
	    cmocka_unit_test_setup_teardown(f, setup_burst, teardown_burst)
	    T(test_forward6),
	    T(test_drops6),
	    T(test_ext_forward6),
	    T(test_resolve6),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
