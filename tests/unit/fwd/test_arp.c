/* tests/unit/fwd/test_arp.c: ARP replies, resolution with bounded queues, glean
 * host routes, aging/refresh/expiry, failure with ICMP, static entries,
 * gratuitous ARP, the slow-path dispatcher (with and without a host path). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_arp.h"
#include "fwd/fwd_slow.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 0x10};
static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 1, 0x02};  /* 1.2 */
static const uint8_t gwmac[6] = {0x02, 0, 0, 0, 2, 0xfe}; /* 2.254 */
static const uint8_t h7mac[6] = {0x02, 0, 0, 0, 2, 0x07}; /* 2.7 */

struct env {
	struct fwd_fib *fib;
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	struct fwd_arp *arp;
	struct fwd_icmp icmp;
	struct fwd_out out;
	uint8_t f[2048];
};

static int
setup(void **st)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fwd_fib_conf fc = {.max_nh = 64};
	struct fwd_arp_conf ac = {.queue_len = 4,
	    .reachable_ms = 30000,
	    .retrans_ms = 1000,
	    .max_probes = 3};
	struct fwd_icmp_conf ic = {0};

	assert_non_null(e);
	e->fib = fwd_fib_new(&fc);
	assert_non_null(e->fib);
	e->adj = fwd_adj_tbl_new(64, 0);
	assert_non_null(e->adj);
	assert_int_equal(fwd_adj_port_set(e->adj, 0, mac0, 1500, true), 0);
	assert_int_equal(fwd_adj_port_set(e->adj, 1, mac1, 1500, true), 0);
	/* adj 0, 1, 2 are the RIB's: reserve them */
	for (int i = 0; i < 3; i++)
		assert_int_equal(fwd_adj_alloc(e->adj), i);
	ac.local = &e->local;
	ac.fib = e->fib;
	e->arp = fwd_arp_new(&ac, e->adj);
	assert_non_null(e->arp);
	assert_int_equal(fwd_icmp_init(&e->icmp, &ic), 0);
	/* 198.18.1.1/24 on port 0, 198.18.2.1/24 on port 1 */
	assert_int_equal(fwd_arp_addr_add(e->arp, 0, TF_IP(1, 1), 24, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_addr_add(e->arp, 1, TF_IP(2, 1), 24, 0,
			     &e->out),
	    0);
	assert_int_equal(e->out.n, 2); /* gratuitous ARPs */
	e->out.n = 0;
	/* routes: 198.18.9.0/24 via 2.254 (adj 1); connected 2.0/24 (adj 2) */
	assert_int_equal(fwd_adj_set_nh(e->adj, 1, 1, TF_IP(2, 254), NULL), 0);
	assert_int_equal(fwd_adj_set_glean(e->adj, 2, 1), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(9, 0), 24, 1), 0);
	assert_int_equal(fwd_fib_add(e->fib, TF_IP(2, 0), 24, 2), 0);
	*st = e;
	return (0);
}

static int
teardown(void **st)
{
	struct env *e = *st;

	fwd_arp_free(e->arp);
	fwd_adj_tbl_free(e->adj);
	fwd_fib_free(e->fib);
	free(e);
	return (0);
}

/* Checks an ARP frame on out. */
static void
check_arp(const struct fwd_pkt *p, uint16_t port, uint16_t op,
    const uint8_t *dmac, const uint8_t *smac, uint32_t spa, uint32_t tpa)
{
	assert_int_equal(p->port, port);
	assert_int_equal(p->len, 42);
	assert_memory_equal(p->data, dmac, 6);
	assert_memory_equal(p->data + 6, smac, 6);
	assert_int_equal(ntohs(fwd_ld16(p->data + 12)), FWD_ETH_P_ARP);
	assert_int_equal(ntohs(fwd_ld16(p->data + 20)), op);
	assert_memory_equal(p->data + 22, smac, 6);
	assert_int_equal(ntohl(fwd_ld32(p->data + 28)), spa);
	assert_int_equal(ntohl(fwd_ld32(p->data + 38)), tpa);
}

static void
test_garp_and_local(void **st)
{
	struct env *e = *st;

	assert_true(fwd_local_has(&e->local, TF_IP(1, 1)));
	assert_true(fwd_local_has(&e->local, TF_IP(2, 1)));
	assert_int_equal(fwd_arp_addr_get(e->arp, 1), TF_IP(2, 1));
	assert_int_equal(fwd_arp_addr_add(e->arp, 1, TF_IP(2, 1), 24, 0,
			     &e->out),
	    -EEXIST);
	assert_int_equal(fwd_arp_announce(e->arp, 1, &e->out), 1);
	check_arp(&e->out.pkt[0], 1, 1, tf_bcast, mac1, TF_IP(2, 1),
	    TF_IP(2, 1));
	assert_int_equal(fwd_arp_addr_del(e->arp, 1, TF_IP(2, 1)), 0);
	assert_false(fwd_local_has(&e->local, TF_IP(2, 1)));
	assert_int_equal(fwd_arp_addr_del(e->arp, 1, TF_IP(2, 1)), -ENOENT);
	assert_int_equal(fwd_arp_addr_get(e->arp, 1), 0);
}

static void
test_reply(void **st)
{
	struct env *e = *st;
	struct fwd_neigh_info ni;
	unsigned len;

	len = tf_arp(e->f, 1, tf_bcast, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, len, 5, &e->out), 0);
	assert_int_equal(e->out.n, 1);
	check_arp(&e->out.pkt[0], 0, 2, hmac, mac0, TF_IP(1, 1), TF_IP(1, 2));
	assert_memory_equal(e->out.pkt[0].data + 32, hmac, 6); /* tha */
	/* the asker is learned */
	assert_int_equal(fwd_arp_get(e->arp, 0, TF_IP(1, 2), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_REACHABLE);
	assert_memory_equal(ni.mac, hmac, 6);
	/* our address, but asked on the wrong port: not answered */
	len = tf_arp(e->f, 1, tf_bcast, hmac, hmac, TF_IP(1, 3), NULL,
	    TF_IP(2, 1));
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, len, 5, &e->out),
	    -ENOENT);
	/* for someone else: ignored, not learned */
	len = tf_arp(e->f, 1, tf_bcast, hmac, hmac, TF_IP(1, 4), NULL,
	    TF_IP(1, 9));
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, len, 5, &e->out),
	    -ENOENT);
	assert_int_equal(fwd_arp_get(e->arp, 0, TF_IP(1, 4), &ni), -ENOENT);
	assert_int_equal(e->out.n, 1);
	/* malformed */
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, 41, 5, &e->out),
	    -EINVAL);
	e->f[15] = 6; /* htype */
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, len, 5, &e->out),
	    -EINVAL);
	len = tf_arp(e->f, 1, tf_bcast, hmac, tf_bcast, TF_IP(1, 2), NULL,
	    TF_IP(1, 1)); /* bcast sha */
	assert_int_equal(fwd_arp_input(e->arp, 0, e->f, len, 5, &e->out),
	    -EINVAL);
	assert_int_equal(fwd_arp_stats(e->arp)->rx_bad, 3);
}

static unsigned
pkt(struct env *e, uint32_t dst, uint8_t seq)
{
	unsigned len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), dst, 64, 17, 26,
	    0);

	e->f[34] = seq; /* tag (payload is not checksummed here) */
	return (len);
}

static void
test_resolve_queue(void **st)
{
	struct env *e = *st;
	struct fwd_neigh_info ni;
	unsigned len;

	/* first packet: broadcast request for the gateway from 2.1 */
	len = pkt(e, TF_IP(9, 5), 0);
	assert_int_equal(fwd_arp_punt(e->arp, 0, 1, e->f, len, 100, &e->out),
	    0);
	assert_int_equal(e->out.n, 1);
	check_arp(&e->out.pkt[0], 1, 1, tf_bcast, mac1, TF_IP(2, 1),
	    TF_IP(2, 254));
	e->out.n = 0;
	/* 6 more: one request only, queue bounded at 4 (oldest dropped) */
	for (uint8_t s = 1; s <= 6; s++) {
		len = pkt(e, TF_IP(9, 5), s);
		assert_int_equal(fwd_arp_punt(e->arp, 0, 1, e->f, len, 100,
				     &e->out),
		    0);
	}
	assert_int_equal(e->out.n, 0);
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 254), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_INCOMPLETE);
	assert_int_equal(ni.queued, 4);
	assert_int_equal(fwd_arp_stats(e->arp)->queue_drops, 3);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_RESOLVE);
	/* the reply: adjacency forwards, the 4 newest packets go out */
	len = tf_arp(e->f, 2, mac1, gwmac, gwmac, TF_IP(2, 254), mac1,
	    TF_IP(2, 1));
	assert_int_equal(fwd_arp_input(e->arp, 1, e->f, len, 200, &e->out), 0);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(e->adj->ent[1].eth, gwmac, 6);
	assert_int_equal(e->out.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		const struct fwd_pkt *p = &e->out.pkt[i];

		assert_int_equal(p->port, 1);
		assert_memory_equal(p->data, gwmac, 6);
		assert_memory_equal(p->data + 6, mac1, 6);
		assert_int_equal(p->data[14 + 8], 63);
		assert_true(fwd_ipv4_cksum_ok(p->data + 14, 20));
		assert_int_equal(p->data[34], 3 + i);
	}
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 254), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_REACHABLE);
	assert_int_equal(ni.queued, 0);
	/* a late punt (worker raced the update) is sent at once */
	e->out.n = 0;
	len = pkt(e, TF_IP(9, 5), 9);
	assert_int_equal(fwd_arp_punt(e->arp, 0, 1, e->f, len, 300, &e->out),
	    0);
	assert_int_equal(e->out.n, 1);
	assert_memory_equal(e->out.pkt[0].data, gwmac, 6);
	/* bad arguments */
	assert_int_equal(fwd_arp_punt(e->arp, 0, 63, e->f, len, 300, &e->out),
	    -EINVAL); /* not an NH/glean adjacency */
	assert_int_equal(fwd_arp_resolve(e->arp, 1, TF_IP(2, 1), 0, e->f, len,
			     300, &e->out),
	    -EHOSTUNREACH); /* ourselves */
}

static void
test_glean_aging(void **st)
{
	struct env *e = *st;
	struct fwd_neigh_info ni;
	unsigned len, nh;

	len = pkt(e, TF_IP(2, 7), 1);
	assert_int_equal(fwd_arp_punt(e->arp, 0, 2, e->f, len, 0, &e->out), 0);
	check_arp(&e->out.pkt[0], 1, 1, tf_bcast, mac1, TF_IP(2, 1),
	    TF_IP(2, 7));
	e->out.n = 0;
	len = tf_arp(e->f, 2, mac1, h7mac, h7mac, TF_IP(2, 7), mac1,
	    TF_IP(2, 1));
	assert_int_equal(fwd_arp_input(e->arp, 1, e->f, len, 10, &e->out), 0);
	assert_int_equal(e->out.n, 1); /* the queued packet */
	assert_memory_equal(e->out.pkt[0].data, h7mac, 6);
	/* a host route with its own forwarding adjacency */
	nh = fwd_fib_lookup(e->fib, TF_IP(2, 7));
	assert_true(nh >= 3 && nh < 64);
	assert_int_equal(e->adj->ent[nh].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(e->adj->ent[nh].eth, h7mac, 6);
	assert_memory_equal(e->adj->ent[nh].eth + 6, mac1, 6);
	assert_int_equal(e->adj->ent[nh].port, 1);
	assert_int_equal(fwd_fib_lookup(e->fib, TF_IP(2, 8)), 2); /* glean */
	/* aging: nothing before reachable_ms */
	e->out.n = 0;
	assert_int_equal(fwd_arp_tick(e->arp, 20000, NULL, &e->out), 0);
	assert_int_equal(e->out.n, 0);
	/* then a unicast probe; the entry stays usable */
	assert_int_equal(fwd_arp_tick(e->arp, 30010, NULL, &e->out), 1);
	check_arp(&e->out.pkt[0], 1, 1, h7mac, mac1, TF_IP(2, 1), TF_IP(2, 7));
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 7), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_PROBE);
	assert_int_equal(e->adj->ent[nh].action, FWD_ADJ_A_FORWARD);
	/* its age counts from the reply at 10, not down to the probe */
	assert_int_equal(ni.confirmed_ms, 10);
	/* answered: reachable again */
	assert_int_equal(fwd_arp_input(e->arp, 1, e->f, len, 30100, &e->out),
	    0);
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 7), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_REACHABLE);
	assert_int_equal(ni.confirmed_ms, 30100); /* confirmed again */
	assert_int_equal(ni.expires_ms, 30100 + 30000);
	/* aged again and never answered: deleted after 3 probes */
	e->out.n = 0;
	assert_int_equal(fwd_arp_tick(e->arp, 60200, NULL, &e->out), 1);
	assert_int_equal(fwd_arp_tick(e->arp, 61200, NULL, &e->out), 0);
	assert_int_equal(fwd_arp_tick(e->arp, 62200, NULL, &e->out), 0);
	assert_int_equal(e->out.n, 3);
	assert_int_equal(fwd_arp_tick(e->arp, 63200, NULL, &e->out), 1);
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 7), &ni), -ENOENT);
	assert_int_equal(fwd_arp_stats(e->arp)->expired, 1);
	/* host route gone: back to the glean adjacency */
	assert_int_equal(fwd_fib_lookup(e->fib, TF_IP(2, 7)), 2);
	assert_int_equal(fwd_fib_get(e->fib, TF_IP(2, 7), 32, &nh), -ENOENT);
}

static void
test_fail_icmp(void **st)
{
	struct env *e = *st;
	unsigned len;

	len = pkt(e, TF_IP(2, 50), 1);
	assert_int_equal(fwd_arp_punt(e->arp, 0, 2, e->f, len, 0, &e->out), 0);
	assert_int_equal(fwd_arp_tick(e->arp, 1000, &e->icmp, &e->out), 0);
	assert_int_equal(fwd_arp_tick(e->arp, 2000, &e->icmp, &e->out), 0);
	assert_int_equal(e->out.n, 3); /* three broadcast requests */
	assert_int_equal(fwd_arp_tick(e->arp, 3000, &e->icmp, &e->out), 1);
	/* host unreachable back to the sender, from our port-0 address */
	assert_int_equal(e->out.n, 4);
	assert_int_equal(e->out.pkt[3].port, 0);
	assert_memory_equal(e->out.pkt[3].data, hmac, 6);
	assert_int_equal(e->out.pkt[3].data[34], FWD_ICMP_UNREACH);
	assert_int_equal(e->out.pkt[3].data[35], FWD_ICMP_UNREACH_HOST);
	assert_int_equal(ntohl(fwd_ld32(e->out.pkt[3].data + 26)), TF_IP(1, 1));
	assert_int_equal(fwd_arp_stats(e->arp)->failed, 1);
	assert_int_equal(e->adj->ent[2].action, FWD_ADJ_A_RESOLVE);
}

static void
test_static(void **st)
{
	struct env *e = *st;
	struct fwd_neigh_info ni;
	unsigned len;

	assert_int_equal(fwd_arp_static_add(e->arp, 1, TF_IP(2, 254), gwmac, 0,
			     &e->out),
	    0);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_FORWARD);
	/* ARP cannot override it */
	len = tf_arp(e->f, 2, mac1, h7mac, h7mac, TF_IP(2, 254), mac1,
	    TF_IP(2, 1));
	assert_int_equal(fwd_arp_input(e->arp, 1, e->f, len, 10, &e->out), 0);
	assert_memory_equal(e->adj->ent[1].eth, gwmac, 6);
	/* and it never ages */
	assert_int_equal(fwd_arp_tick(e->arp, 1000000, NULL, &e->out), 0);
	assert_int_equal(fwd_arp_get(e->arp, 1, TF_IP(2, 254), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_STATIC);
	assert_int_equal(fwd_arp_static_add(e->arp, 1, TF_IP(2, 254), tf_bcast,
			     0, &e->out),
	    -EINVAL);
	assert_int_equal(fwd_arp_static_del(e->arp, 1, TF_IP(2, 254)), 0);
	assert_int_equal(e->adj->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(fwd_arp_static_del(e->arp, 1, TF_IP(2, 254)), -ENOENT);
}

static void
test_table_full_and_flush(void **st)
{
	struct env *e = *st;
	struct fwd_arp_conf ac = {.max_neigh = 2};
	struct fwd_arp *a = fwd_arp_new(&ac, e->adj);
	unsigned len = pkt(e, TF_IP(2, 9), 0);

	assert_non_null(a);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 9), 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 10), 0, NULL, 0, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 11), 0, NULL, 0, 0,
			     &e->out),
	    -ENOSPC);
	fwd_arp_port_flush(a, 1);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 11), 0, NULL, 0, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_resolve(a, 9, TF_IP(2, 11), 0, NULL, 0, 0,
			     &e->out),
	    -EINVAL); /* unknown port */
	fwd_arp_free(a);
}

/* A full table gives up a learned entry for a static one, and refuses only
 * when every entry is static; a zero MAC is refused. */
static void
test_static_table_full(void **st)
{
	static const uint8_t zero[6];
	struct env *e = *st;
	struct fwd_arp_conf ac = {.max_neigh = 2};
	struct fwd_arp *a = fwd_arp_new(&ac, e->adj);
	struct fwd_neigh_info ni;

	assert_non_null(a);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 9), 0, NULL, 0, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 10), 0, NULL, 0, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_static_add(a, 1, TF_IP(2, 20), gwmac, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_stats(a)->evicted, 1);
	assert_int_equal(fwd_arp_get(a, 1, TF_IP(2, 20), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_STATIC);
	assert_int_equal(fwd_arp_static_add(a, 1, TF_IP(2, 21), gwmac, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_stats(a)->evicted, 2);
	assert_int_equal(fwd_arp_get(a, 1, TF_IP(2, 9), &ni), -ENOENT);
	assert_int_equal(fwd_arp_get(a, 1, TF_IP(2, 10), &ni), -ENOENT);
	assert_int_equal(fwd_arp_static_add(a, 1, TF_IP(2, 22), gwmac, 0,
			     &e->out),
	    -ENOSPC);
	assert_int_equal(fwd_arp_resolve(a, 1, TF_IP(2, 11), 0, NULL, 0, 0,
			     &e->out),
	    -ENOSPC);
	/* replacing the MAC of a static entry needs no room */
	assert_int_equal(fwd_arp_static_add(a, 1, TF_IP(2, 21), h7mac, 0,
			     &e->out),
	    0);
	assert_int_equal(fwd_arp_get(a, 1, TF_IP(2, 21), &ni), 0);
	assert_memory_equal(ni.mac, h7mac, 6);
	assert_int_equal(fwd_arp_static_add(a, 1, TF_IP(2, 21), zero, 0,
			     &e->out),
	    -EINVAL);
	fwd_arp_free(a);
}

static void
test_slow_dispatch(void **st)
{
	struct env *e = *st;
	struct fwd_slow s = {.arp = e->arp, .icmp = &e->icmp, .adj = e->adj};
	unsigned len;

	len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), TF_IP(9, 5), 1, 17, 26, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_TTL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(e->out.pkt[0].data[34], FWD_ICMP_TIMXCEED);
	assert_int_equal(ntohl(fwd_ld32(e->out.pkt[0].data + 26)), TF_IP(1, 1));
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_NO_ROUTE, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(e->out.pkt[1].data[35], FWD_ICMP_UNREACH_NET);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_MTU_DF, 1400, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(ntohs(fwd_ld16(e->out.pkt[2].data + 40)), 1400);
	len = tf_arp(e->f, 1, tf_bcast, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_ARP, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(e->out.n, 4);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_CKSUM, 0, e->f, len, 0,
			     &e->out),
	    -EINVAL);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_MTU_FRAG, 1, e->f, len, 0,
			     &e->out),
	    -EINVAL); /* adj 1 not resolved */
}

/* A host path that records what went up; port 1 has none. */
struct host_rec {
	unsigned n;
	uint16_t port[8];
	unsigned len[8];
	uint8_t first[8]; /* byte 23 (IP protocol) or 21 (ARP op) */
	int rv;		  /* returned for port 0 */
};

static int
host_up_rec(void *arg, uint16_t port, const uint8_t *frame, unsigned len)
{
	struct host_rec *h = arg;

	if (port != 0)
		return (-ENOENT);
	if (h->n < 8) {
		h->port[h->n] = port;
		h->len[h->n] = len;
		h->first[h->n] = frame[12] == 0x08 && frame[13] == 0x06 ?
		    frame[21] :
		    frame[23];
	}
	h->n++;
	return (h->rv);
}

/* ICMP echo request to us (type 8) or another ICMP type, with a valid
 * ICMP checksum. */
static unsigned
icmp_frame(uint8_t *f, uint32_t dst, uint8_t type, uint16_t off)
{
	unsigned len = tf_ipv4(f, mac0, hmac, TF_IP(1, 2), dst, 64,
	    FWD_IPPROTO_ICMP, 16, off);
	uint8_t *icmp = f + FWD_IPV4_MIN_FRAME;

	icmp[0] = type;
	icmp[1] = 0;
	fwd_st16(icmp + 2, 0);
	fwd_st16(icmp + 2, fwd_cksum(icmp, 16));
	return (len);
}

static void
test_slow_host_path(void **st)
{
	struct env *e = *st;
	struct host_rec h = {0};
	struct fwd_slow s = {.arp = e->arp,
	    .icmp = &e->icmp,
	    .adj = e->adj,
	    .host_up = host_up_rec,
	    .host_arg = &h};
	unsigned len;

	/* TCP and UDP to us: up, nothing answered by fwd */
	len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), TF_IP(1, 1), 64,
	    FWD_IPPROTO_TCP, 40, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), TF_IP(1, 1), 64,
	    FWD_IPPROTO_UDP, 26, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.first[0], FWD_IPPROTO_TCP);
	assert_int_equal(h.first[1], FWD_IPPROTO_UDP);
	assert_int_equal(h.len[1], len);
	assert_int_equal(e->out.n, 0);
	/* an echo request stays fwd's: answered, not up */
	len = icmp_frame(e->f, TF_IP(1, 1), FWD_ICMP_ECHO, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 2);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(e->out.pkt[0].data[34], FWD_ICMP_ECHOREPLY);
	e->out.n = 0;
	/* an echo reply (the kernel's own ping) and a fragment of an echo
	 * request (fwd does not reassemble) go up */
	len = icmp_frame(e->f, TF_IP(1, 1), FWD_ICMP_ECHOREPLY, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	len = icmp_frame(e->f, TF_IP(1, 1), FWD_ICMP_ECHO, FWD_IP_MF);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 4);
	assert_int_equal(e->out.n, 0);
	/* a port without a host path: as before, port unreachable */
	len = tf_ipv4(e->f, mac1, hmac, TF_IP(2, 2), TF_IP(2, 1), 64,
	    FWD_IPPROTO_UDP, 26, 0);
	assert_int_equal(fwd_slow_input(&s, 1, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 4);
	assert_int_equal(e->out.n, 1);
	assert_int_equal(e->out.pkt[0].data[34], FWD_ICMP_UNREACH);
	assert_int_equal(e->out.pkt[0].data[35], FWD_ICMP_UNREACH_PORT);
	e->out.n = 0;
	/* ARP: a request is answered by fwd and not up (the kernel would
	 * answer it again); a reply is learnt and goes up, also one to our
	 * address of another port (the kernel asked from it) */
	len = tf_arp(e->f, 1, tf_bcast, hmac, hmac, TF_IP(1, 2), NULL,
	    TF_IP(1, 1));
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_ARP, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 4);
	assert_int_equal(e->out.n, 1);
	e->out.n = 0;
	len = tf_arp(e->f, 2, mac0, h7mac, h7mac, TF_IP(1, 7), mac0,
	    TF_IP(1, 1));
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_ARP, 0, e->f, len, 0,
			     &e->out),
	    0);
	len = tf_arp(e->f, 2, mac0, h7mac, h7mac, TF_IP(1, 7), mac0,
	    TF_IP(2, 1));
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_ARP, 0, e->f, len, 0,
			     &e->out),
	    -ENOENT);
	assert_int_equal(h.n, 6);
	assert_int_equal(h.first[4], 2);
	assert_int_equal(h.first[5], 2);
	assert_int_equal(e->out.n, 0);
	/* link-local multicast: up, or dropped without a host path */
	len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), 0xe0000005u, 1, 89, 40, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_MCAST, 0, e->f, len, 0,
			     &e->out),
	    0);
	assert_int_equal(h.n, 7);
	assert_int_equal(h.first[6], 89);
	assert_int_equal(fwd_slow_input(&s, 1, FWD_R_MCAST, 0, e->f, len, 0,
			     &e->out),
	    -ENOENT);
	s.host_up = NULL;
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_MCAST, 0, e->f, len, 0,
			     &e->out),
	    -ENOENT);
	s.host_up = host_up_rec;
	/* the host path's own failure is the result (counted there) */
	h.rv = -EAGAIN;
	len = tf_ipv4(e->f, mac0, hmac, TF_IP(1, 2), TF_IP(1, 1), 64,
	    FWD_IPPROTO_TCP, 40, 0);
	assert_int_equal(fwd_slow_input(&s, 0, FWD_R_LOCAL, 0, e->f, len, 0,
			     &e->out),
	    -EAGAIN);
	assert_int_equal(e->out.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_garp_and_local, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_reply, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_resolve_queue, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_glean_aging, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fail_icmp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_static, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_full_and_flush, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_static_table_full, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_slow_dispatch, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_slow_host_path, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
